"""Helpers shared by the statistical privacy tests."""

import math
import os
import sys

import numpy as np
import pytest
from scipy import stats

# Plain helper modules of the tests (student_solutions.py) import by name under --import-mode=importlib.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


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


def _chi2_pvalue(samples, pmf, min_expected=5.0):
    """Chi-square p-value of integer ``samples`` against an exact ``pmf`` (a function of an int array).

    Every integer whose expected count is at least ``min_expected`` is its own cell; the two tails
    beyond them are one cell each, with their exact probabilities (1 minus the rest, split by side).
    """
    x = np.asarray(samples).ravel()
    n = x.size
    centre = int(np.median(x))
    span = int(np.abs(x - centre).max()) + 1
    ks = np.arange(centre - span, centre + span + 1)
    p = pmf(ks)
    keep = np.flatnonzero(p * n >= min_expected)
    lo, hi = ks[keep[0]], ks[keep[-1]]
    cells = ks[keep[0]:keep[-1] + 1]
    probs = pmf(cells)
    counts = np.array([np.sum(x == k) for k in cells], dtype=float) if cells.size < 50 else \
        np.bincount(x[(x >= lo) & (x <= hi)] - lo, minlength=cells.size).astype(float)
    below, above = float(np.sum(x < lo)), float(np.sum(x > hi))
    p_below = float(pmf(np.arange(lo - 20 * span - 1, lo)).sum())
    p_above = max(0.0, 1.0 - float(probs.sum()) - p_below)
    obs = np.concatenate([counts, [below, above]])
    exp = np.concatenate([probs, [p_below, p_above]]) * n
    mask = exp > 0
    if (obs[~mask] > 0).any():
        return 0.0
    return float(stats.chisquare(obs[mask], exp[mask] * obs[mask].sum() / exp[mask].sum()).pvalue)


@pytest.fixture
def chi2_pvalue():
    """The function :func:`_chi2_pvalue`: goodness of fit of integer samples to an exact pmf."""
    return _chi2_pvalue


BOOK_BROWSER_TESTS = "tests/test_book_browser.py"


class _BrowserFirst:
    """Under ``--dist loadfile``, start the browser tests first.

    pytest-xdist queues files by their number of tests, largest first, which put the browser module
    (a dozen tests, but a whole book build and every page in Chromium: the longest file by far) near
    the end, so one worker ran it alone after the other had finished. Started first, it runs beside
    the rest of the suite. Other modes keep xdist's own scheduler (return None).
    """

    @staticmethod
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class BrowserFirst(LoadFileScheduling):
            def _assign_work_unit(self, node):
                if BOOK_BROWSER_TESTS in self.workqueue:
                    self.workqueue.move_to_end(BOOK_BROWSER_TESTS, last=False)
                super()._assign_work_unit(node)

        return BrowserFirst(config, log)


def pytest_configure(config):
    # The hook exists only when xdist is loaded: registered here, ``pytest -p no:xdist`` still works.
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_BrowserFirst(), "dpcourse-browser-first")
