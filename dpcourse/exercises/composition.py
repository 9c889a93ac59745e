"""Checkers for the exercises of the chapter "Composition and privacy accounting"."""

from __future__ import annotations

import math

import numpy as np

from .. import composition
from ..composition import optimal_composition_delta, optimal_composition_epsilon
from . import CheckResult, Forbidden, call_student

# The exercise asks for the optimal composition theorem written out, not called: the two public functions with
# the private helpers that compute them (the atoms of the k-fold randomized-response pair, the delta and epsilon
# of a set of atoms), and the composition of groups of atoms the accountant's exact method uses.
_FORBIDDEN = Forbidden(optimal_composition_delta, optimal_composition_epsilon, composition._optimal_epsilon_groups)

__all__ = ["check_optimal_delta"]

# (epsilon, k, epsilon_total): k = 1; totals on and between the grid (k - 2i) epsilon; a total above k eps
# (delta must be 0); a total of 0; and a large k where (1 + e^eps)^k overflows a float.
_CASES = [
    (0.5, 1, 0.2),
    (0.1, 10, 0.6),
    (0.3, 7, 0.45),
    (1.0, 5, 0.0),
    (0.5, 4, 2.5),
    (0.2, 30, 1.3),
    (0.1, 1200, 10.0),
]


def _kov_grid_only(eps, k, et):
    """The mistake of evaluating Kairouz-Oh-Viswanath's delta_i at the grid point just below epsilon_total."""
    i = max(0, math.ceil((k * eps - et) / (2 * eps) - 1e-12))
    return optimal_composition_delta(eps, k, max(0.0, (k - 2 * i) * eps))


def check_optimal_delta(student_fn) -> CheckResult:
    """Check ``student_fn(epsilon, k, epsilon_total) -> delta``: the exact delta of k composed epsilon-DP mechanisms.

    The reference is :func:`dpcourse.optimal_composition_delta`; the message names the first failing case
    and what looks wrong, never the expected value.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_optimal_delta(my_optimal_delta)")
    for eps, k, et in _CASES:
        where = f"on epsilon={eps}, k={k}, epsilon_total={et}"
        got, failure = call_student(student_fn, (eps, k, et), where, forbidden=_FORBIDDEN)
        if failure is not None:
            if "OverflowError" in failure.message:
                return CheckResult(False, f"{where} your function overflowed: (1 + e^eps)^k and C(k, j) are huge for "
                                          "large k; work with logarithms (scipy.special.gammaln, logsumexp)")
            return failure
        want = optimal_composition_delta(eps, k, et)
        if math.isclose(got, want, rel_tol=1e-7, abs_tol=1e-15):
            continue
        if math.isnan(got) or math.isinf(got):
            return CheckResult(False, f"{where} you returned {got}: for large k, (1 + e^eps)^k overflows; "
                                      "work with logarithms (scipy.special.gammaln, logsumexp)")
        if got < 0:
            return CheckResult(False, f"{where} you returned {got:.4g} < 0: keep only the outcomes whose privacy loss "
                                      "exceeds epsilon_total (the positive part)")
        if got > 1:
            return CheckResult(False, f"{where} you returned {got:.4g} > 1; delta is a difference of probabilities")
        if et >= k * eps:
            return CheckResult(False, f"{where} epsilon_total is at least k*epsilon, the largest possible privacy loss: "
                                      "what is delta then?")
        if math.isclose(got, _kov_grid_only(eps, k, et), rel_tol=1e-7):
            return CheckResult(False, f"{where} you seem to use the value at the grid point (k - 2i) epsilon; "
                                      "between grid points the divergence keeps decreasing, evaluate it at epsilon_total itself")
        return CheckResult(False, f"{where} your value {got:.6g} is off; the privacy loss of j flipped coordinates is "
                                  "(k - 2j) epsilon: check the probability of j flips under each distribution")
    return CheckResult(True, f"your function agrees with the exact optimal composition on all {len(_CASES)} cases.")
