"""Checkers for the exercises of the chapter "Local frequency estimation"."""

from __future__ import annotations

import math

import numpy as np

from ..local_dp import (krr_variance, oracle_probabilities, unary_encoding, unary_encoding_estimate,
                        unary_encoding_variance)
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_crossover_domain", "check_oue_estimator"]


def _crossover(epsilon: float) -> int:
    """Smallest d at which OUE's exact variance (count 0) is below k-RR's, found by scanning the formulas."""
    d = 2
    while krr_variance(1, d, epsilon) <= unary_encoding_variance(1, d, epsilon):
        d += 1
    return d


def check_crossover_domain(answer, epsilon=2.0) -> CheckResult:
    """Check the smallest domain size d at which OUE estimates a count with smaller variance than k-RR.

    The truth comes from the exact variance formulas of :mod:`dpcourse.local_dp` (theorem
    ``thm-ldp-variance``). Recognised slips: the crossing computed with OUE's variance without its
    factor 4) and the threshold rounded down (where k-RR is still better). Whole numbers only.
    """
    eps = float(epsilon)
    truth = _crossover(eps)
    slips = [(math.ceil(math.exp(eps) + 2), "that is where the variances would cross if OUE's variance had no factor 4: "
                                            "redo q(1-q)/(p-q)^2 with p = 1/2"),
             (math.floor(3 * math.exp(eps) + 2), "at that d k-RR is still (barely) better: the domain must be strictly "
                                                 "larger than the threshold")]
    return check_number(answer, truth, what="the smallest domain size", low=2, slips=slips, integer=True)


# The estimator, with its module's helpers, but for those that give OUE's p and q: the student may take them
# from the library (oracle_probabilities).
_OUE_FORBIDDEN = Forbidden(unary_encoding_estimate, allow=(oracle_probabilities, unary_encoding_variance))
_CASES = [(1.0, 16, 2000, 1), (0.5, 5, 500, 2), (3.0, 40, 5000, 3)]


def check_oue_estimator(student_fn) -> CheckResult:
    """Check ``student_fn(ones, n, epsilon) -> estimated counts`` for OUE.

    ``ones`` is the array of the number of reports whose bit j is 1 (length d), ``n`` the number of reports.
    The student's estimates must equal those of :func:`dpcourse.local_dp.unary_encoding_estimate` (which is
    forbidden inside the student's function) to 1e-9 relative, on seeded reports. Recognised slips: the
    probabilities of SUE used for OUE, p and q swapped, a missing centring by n q.
    """
    cases = []
    for eps, d, n, seed in _CASES:
        values = np.random.default_rng(seed).integers(0, d, n)
        reports = unary_encoding(values, d, eps, rng=seed)
        ones = np.unpackbits(reports, axis=1, count=d).sum(axis=0).astype(np.int64)
        cases.append((eps, d, n, ones, unary_encoding_estimate(reports, d, eps)))
    for eps, d, n, ones, want in cases:
        where = f"on epsilon={eps}, d={d}, n={n}"
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
