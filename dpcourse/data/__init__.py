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
