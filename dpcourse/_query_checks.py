"""Argument checks shared by the counting-query modules: query matrices and histograms of private counts.

Used by :mod:`dpcourse.attacks` (the query matrix of the reconstruction attack) and
:mod:`dpcourse.query_release` (histograms and workloads). A histogram is private: its messages name the
rule that is broken, never an index, a count or a total.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validation import check_binary_array, check_real_array


def _check_queries(queries: npt.ArrayLike, n_cells: int | None = None,
                   name: str = "queries") -> npt.NDArray[np.float64]:
    """A 2-d 0/1 matrix (k, n_cells), returned as float64 (exact for 0/1)."""
    q = check_binary_array(queries, name, ndim=2)
    if n_cells is not None and q.shape[1] != n_cells:
        raise ValueError(f"{name} must have one column per cell: expected {n_cells} columns, got shape {q.shape}")
    return q.astype(np.float64)


def _check_histogram(histogram: npt.ArrayLike, name: str = "histogram") -> npt.NDArray[np.float64]:
    """A 1-d array of non-negative whole counts with a positive total, returned as float64."""
    h = check_real_array(histogram, name, ndim=1)
    # The histogram is private: these messages name the rule, never an index, a count or a total.
    if (h < 0).any():
        raise ValueError(f"{name} must hold counts >= 0")
    if (h != np.round(h)).any():
        raise ValueError(f"{name} must hold whole counts")
    if h.sum() <= 0:
        raise ValueError(f"{name} must contain at least one record")
    return h
