"""Checkers for the exercises of the chapter "Local frequency estimation"."""

from __future__ import annotations

import math

import numpy as np

from ..local_dp import (krr_variance, oracle_probabilities, unary_encoding, unary_encoding_estimate,
                        unary_encoding_variance)
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_crossover_domain", "check_oue_estimator"]


def _crossover(epsilon: float) -> int:
    """Smallest d at which OUE's exact variance (count 0) is below k-RR's, found by scanning the formulas.

    k-RR's variance grows with d and OUE's does not depend on it, so the scan starts a little below the
    closed-form threshold 3 e^epsilon + 2 and steps down while the smaller d still favours OUE, then up
    while it does not: the first d at which OUE wins, as a scan from d = 2 finds it, in a few steps.
    """
    def oue_wins(d):
        return krr_variance(1, d, epsilon) > unary_encoding_variance(1, d, epsilon)

    d = max(2, math.floor(3 * math.exp(epsilon)))
    while d > 2 and oue_wins(d - 1):
        d -= 1
    while not oue_wins(d):
        d += 1
    return d


def check_crossover_domain(answer, epsilon=2.0) -> CheckResult:
    """Check the smallest domain size d at which OUE estimates a count with smaller variance than k-RR
    (``epsilon``: the book's 2, or a homework variant's).

    The truth comes from the exact variance formulas of :mod:`dpcourse.local_dp` (theorem
    ``thm-ldp-variance``). Recognised slips: the crossing computed with OUE's variance without its
    factor 4) and the threshold rounded down (where k-RR is still better). Whole numbers only.
    """
    return check_number(answer, **_crossover_question(epsilon))


def _crossover_question(epsilon=2.0) -> dict:
    """check_number's arguments for :func:`check_crossover_domain` at this epsilon."""
    eps = float(epsilon)
    slips = [(math.ceil(math.exp(eps) + 2), "that is where the variances would cross if OUE's variance had no factor 4: "
                                            "redo q(1-q)/(p-q)^2 with p = 1/2"),
             (math.floor(3 * math.exp(eps) + 2), "at that d k-RR is still (barely) better: the domain must be strictly "
                                                 "larger than the threshold")]
    return dict(truth=_crossover(eps), what="the smallest domain size", low=2, slips=slips, integer=True)


# The estimator, with its module's helpers, but for those that give OUE's p and q: the student may take them
# from the library (oracle_probabilities).
_OUE_FORBIDDEN = Forbidden(unary_encoding_estimate, allow=(oracle_probabilities, unary_encoding_variance))
_CASES = [(1.0, 16, 2000, 1), (0.5, 5, 500, 2), (3.0, 40, 5000, 3)]


def _oue_cases(rng):
    """``[(epsilon, d, n, ones, reference estimates)]``: the book's three seeded cases, or three drawn from the
    grader's ``rng``: epsilon over 0.3..4 (to 3 digits), d from 2 to 64, n from 200 to 5000, values from a
    skewed (Dirichlet) distribution, reports by :func:`dpcourse.local_dp.unary_encoding` with ``rng``. The
    comparison is exact (1e-9), so any size tests the whole estimator."""
    from ._draws import check_rng, rounded

    if check_rng(rng) is None:
        draws = [(eps, d, n, np.random.default_rng(seed), seed) for eps, d, n, seed in _CASES]
    else:
        draws = []
        for _ in range(3):
            eps, d, n = rounded(rng.uniform(0.3, 4.0)), int(rng.integers(2, 65)), int(rng.integers(200, 5001))
            draws.append((eps, d, n, rng, rng))
    cases = []
    for eps, d, n, value_rng, report_rng in draws:
        if rng is None:
            values = value_rng.integers(0, d, n)
        else:
            values = value_rng.choice(d, size=n, p=value_rng.dirichlet(np.ones(d)))
        reports = unary_encoding(values, d, eps, rng=report_rng)
        ones = np.unpackbits(reports, axis=1, count=d).sum(axis=0).astype(np.int64)
        cases.append((eps, d, n, ones, unary_encoding_estimate(reports, d, eps)))
    return cases


def check_oue_estimator(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(ones, n, epsilon) -> estimated counts`` for OUE.

    ``ones`` is the array of the number of reports whose bit j is 1 (length d), ``n`` the number of reports.
    The student's estimates must equal those of :func:`dpcourse.local_dp.unary_encoding_estimate` (which is
    forbidden inside the student's function) to 1e-9 relative, on seeded reports (the book's three cases,
    or, with ``rng`` a numpy Generator -- the homework grader's --, three drawn from it). Recognised slips:
    the probabilities of SUE used for OUE, p and q swapped, a missing centring by n q.
    """
    from ._draws import shown

    for eps, d, n, ones, want in _oue_cases(rng):
        where = shown(f"on epsilon={eps}, d={d}, n={n}")
        got, err = call_student(student_fn, (ones.copy(), n, eps), where, shape=(d,),
                                forbidden=_OUE_FORBIDDEN)
        if err is not None:
            return err
        if np.allclose(got, want, rtol=1e-9, atol=1e-6):
            continue
        e = math.exp(eps)
        sue_p, sue_q = math.exp(eps / 2) / (math.exp(eps / 2) + 1), 1 / (math.exp(eps / 2) + 1)
        slips = [((ones - n * sue_q) / (sue_p - sue_q), "those are the probabilities of symmetric unary encoding; "
                                                        "OUE keeps the user's own bit with probability 1/2"),
                 ((ones - n * 0.5) / (1 / (e + 1) - 0.5), "p and q are swapped: p is the probability of the user's "
                                                          "own bit, q of every other bit"),
                 (ones / (0.5 - 1 / (e + 1)), "the estimate must first remove the n q reports that set bit j by noise")]
        for value, hint in slips:
            if np.allclose(got, value, rtol=1e-9, atol=1e-6):
                return CheckResult(False, f"{where}: {hint}")
        return CheckResult(False, f"{where}: the estimates are not unbiased counts yet (they differ from the "
                                  f"reference estimator by up to {np.max(np.abs(got - want)):.3g}).")
    return CheckResult(True, "your estimator agrees with the reference on every case tried.")
