"""Helpers shared by the statistical privacy tests."""

import math

import numpy as np
import pytest


def _max_cell_log_ratio(a, b, edges, min_count):
    """Largest |ln(freq_a / freq_b)| over the cells where both samples have >= min_count draws.

    ``a`` and ``b`` are samples of scalars (1-d, with ``edges`` one array of bin edges) or of vectors
    (shape (N, d), with ``edges`` a list of d arrays). Returns the ratio and its standard error
    sqrt(1/count_a + 1/count_b) (delta method for the log of a ratio of two Poisson-like counts).
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim == 1:
        a, b, edges = a[:, None], b[:, None], [edges]
    ca, _ = np.histogramdd(a, edges)
    cb, _ = np.histogramdd(b, edges)
    ok = (ca >= min_count) & (cb >= min_count)
    ratios = np.abs(np.log(ca[ok] / cb[ok]))
    i = int(np.argmax(ratios))
    return float(ratios[i]), math.sqrt(1 / ca[ok][i] + 1 / cb[ok][i])


@pytest.fixture
def max_log_ratio():
    """The function :func:`_max_cell_log_ratio`, for tests that measure a privacy loss from samples."""
    return _max_cell_log_ratio
