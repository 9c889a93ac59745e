"""Small real datasets shipped with the course, read from CSV files in this folder (no download).

Each file's source, licence and any processing are recorded in ``SOURCES.md`` beside it. A chapter
loads data through a named loader below, which documents the columns and their public bounds.
"""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np

__all__ = ["read_csv"]


def read_csv(filename: str) -> dict[str, np.ndarray]:
    """Read ``filename`` from this folder into ``{column: array}``.

    Columns whose every entry parses as a number become float64 arrays (an empty cell becomes NaN, so a
    caller sees missing values and must decide what to do with them); other columns stay string arrays.
    """
    text = resources.files(__name__).joinpath(filename).read_text(encoding="utf-8")
    rows = list(csv.reader(text.splitlines()))
    header, body = rows[0], rows[1:]
    out = {}
    for j, name in enumerate(header):
        col = [r[j] for r in body]
        try:
            out[name] = np.array([float(v) if v not in ("", "NA") else np.nan for v in col])
        except ValueError:
            out[name] = np.array(col)
    return out


def load_penguins() -> dict[str, np.ndarray]:
    """Palmer penguins: 344 penguins of three species on three islands (``penguins.csv``, CC0).

    Columns: ``species`` (Adelie, Chinstrap, Gentoo), ``island`` (Biscoe, Dream, Torgersen),
    ``bill_length_mm``, ``bill_depth_mm``, ``flipper_length_mm``, ``body_mass_g``, ``sex``, ``year``.
    Missing measurements are NaN (two penguins have no body mass; ``sex`` is the string "NA" for 11).
    Public bounds used in the book for ``body_mass_g``: [2000, 7000] g (plausible for the three species,
    chosen without looking at the data).
    """
    return read_csv("penguins.csv")


def load_canada_2021_ridings() -> dict[str, np.ndarray]:
    """Valid votes per party in each of Canada's 343 federal ridings, 2021 election on 2023 boundaries.

    Columns: ``riding_code``, ``riding_name``, ``province`` (two-letter code), the vote counts
    ``CPC``, ``LPC``, ``NDP``, ``BQ``, ``GPC``, ``PPC``, ``Ind``, ``OTH`` (0 where a party ran no
    candidate) and ``valid_votes`` (their sum). See ``SOURCES.md`` for the source and licence.
    """
    return read_csv("canada_2021_ridings.csv")


__all__ += ["load_penguins", "load_canada_2021_ridings"]


def load_affairs() -> dict[str, np.ndarray]:
    """Fair's extramarital affairs survey: 601 married respondents, Psychology Today, 1969 (``affairs.csv``).

    Columns: ``any_affair`` (1 if the respondent reported at least one extramarital affair in the past
    year, else 0; derived from ``affairs``), ``affairs`` (how often in the past year, coded 0 = none,
    1 = once, 2 = twice, 3 = three times, 7 = 4-10 times, 12 = monthly or more), ``gender`` ("female" or
    "male"), ``age`` (years, coded by class midpoints 17.5, 22, 27, ..., 57) and ``rating`` (self-rating of
    the marriage, 1 = very unhappy to 5 = very happy). See ``SOURCES.md`` for the source and licence.
    """
    return read_csv("affairs.csv")


__all__ += ["load_affairs"]
