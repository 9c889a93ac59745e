"""Small real datasets shipped with the course, read from CSV files in this folder (no download).

Each file's source, licence and any processing are recorded in ``SOURCES.md`` beside it. A chapter
loads data through a named loader below, which documents the columns and their public bounds.
:func:`synthetic_events` generates event logs of benchmark sizes (not shipped data).
"""

from __future__ import annotations

import csv
import functools
import gzip
from importlib import resources

import numpy as np

from .._validation import as_rng, check_positive_int, check_real

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


#: Public bounds (minutes) the chapter uses to clamp an arrival delay, chosen without looking at the data.
FLIGHT_DELAY_BOUNDS = (-60.0, 240.0)


def load_flights() -> dict[str, np.ndarray]:
    """Flights that left New York City in January-March 2013: aircraft, destination, arrival delay.

    From the CC0 dataset ``nycflights13`` (US Bureau of Transportation Statistics; see ``SOURCES.md``):
    77,911 completed flights of 3,560 aircraft to 96 destinations. The chapter "From the course to
    production" treats the aircraft (``tailnum``) as the unit of privacy: it has many rows (a median of
    15 flights in the quarter, up to 186), as a user of a real service has many events.

    Returns
    -------
    dict
        ``month`` (1, 2 or 3), ``tailnum`` (str), ``dest`` (str, airport code) and ``arr_delay`` (float,
        minutes; negative is early), one entry per flight, in the order of departure (fresh copies).
        Public bounds for the delay: :data:`FLIGHT_DELAY_BOUNDS`.

    Examples
    --------
    >>> flights = load_flights()
    >>> flights["tailnum"].size, sorted(flights)
    (77911, ['arr_delay', 'dest', 'month', 'tailnum'])
    """
    return {name: column.copy() for name, column in _read_flights().items()}


@functools.lru_cache(maxsize=1)
def _read_flights() -> dict[str, np.ndarray]:
    raw = resources.files(__name__).joinpath("nycflights13_q1.csv.gz").read_bytes()
    fields = gzip.decompress(raw).decode("ascii").strip().replace("\n", ",").split(",")
    header, table = fields[:4], np.array(fields[4:]).reshape(-1, 4)
    if header != ["month", "tailnum", "dest", "arr_delay"]:
        raise ValueError(f"unexpected columns {header} in nycflights13_q1.csv.gz")
    return {"month": table[:, 0].astype(np.int64), "tailnum": table[:, 1], "dest": table[:, 2],
            "arr_delay": table[:, 3].astype(np.float64)}


def synthetic_events(n_rows: int, *, n_keys: int = 1000, rows_per_user: float = 20.0, tail: float = 1.5,
                     zipf: float = 1.1, rng: int | np.random.Generator | None = None) -> dict[str, np.ndarray]:
    """A realistic synthetic event log: heavy-tailed rows per user, Zipf-distributed keys (not private data).

    Users get activity weights ``1 + Pareto(tail)`` (a few users have very many rows, most have few);
    each of the ``n_rows`` rows picks its user with probability proportional to the weight (about
    ``n_rows / rows_per_user`` users) and its key among ``n_keys`` with probability proportional to
    ``1 / rank**zipf``; values are Gamma(2, 5) (mean 10, a "spend per event"). Not a release: no guarantee
    applies. The benchmarks of :func:`dpcourse.dp_group_by` run on these tables, whose unit of privacy is the
    ``user_id`` (user-level neighbours, add/remove all the rows of one user: definition
    ``scale-def-user-level``).

    Parameters
    ----------
    n_rows : int
        Number of rows, >= 1.
    n_keys : int, default 1000
        Number of distinct keys, >= 1.
    rows_per_user : float, default 20.0
        Mean rows per user, >= 1.
    tail : float, default 1.5
        Pareto shape of the activity weights, > 0 (smaller is heavier-tailed).
    zipf : float, default 1.1
        Zipf exponent of the key popularity, >= 0.
    rng : None, int or numpy.random.Generator, optional
        Source of the table.

    Returns
    -------
    dict
        ``user_id`` (int64), ``key`` (int64) and ``value`` (float64) arrays of length ``n_rows``.

    Examples
    --------
    >>> d = synthetic_events(1000, rng=0)
    >>> sorted(d), bool(d["key"].max() < 1000)
    (['key', 'user_id', 'value'], True)
    """
    n = check_positive_int(n_rows, "n_rows")
    k = check_positive_int(n_keys, "n_keys")
    per = check_real(rows_per_user, "rows_per_user", low=1.0)
    a = check_real(tail, "tail", low=0.0, low_open=True)
    z = check_real(zipf, "zipf", low=0.0)
    gen = as_rng(rng)
    n_users = max(1, int(round(n / per)))
    w = 1.0 + gen.pareto(a, n_users)
    cw = np.cumsum(w)
    users = np.searchsorted(cw, gen.random(n) * cw[-1], side="right")
    kp = np.cumsum(1.0 / np.arange(1, k + 1) ** z)
    keys = np.searchsorted(kp, gen.random(n) * kp[-1], side="right")
    return {"user_id": np.minimum(users, n_users - 1).astype(np.int64),
            "key": np.minimum(keys, k - 1).astype(np.int64),
            "value": gen.gamma(2.0, 5.0, n)}


__all__ += ["FLIGHT_DELAY_BOUNDS", "load_flights", "synthetic_events"]
