"""Checkers for the exercises of the chapter "Composition and privacy accounting"."""

from __future__ import annotations

import math

import numpy as np

from .. import composition
from ..composition import optimal_composition_delta, optimal_composition_epsilon
from . import CheckResult, Forbidden, call_student
from ._draws import check_rng, shown

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


def _cases(rng) -> list:
    """The cases of :func:`check_optimal_delta`: the book's, or seven drawn from ``rng`` with the same roles.

    Drawn (epsilons in hundredths): k = 1; a total on the grid (k - 2i) epsilon and one between grid points;
    a total of 0; a total above k epsilon (delta is 0); a moderate k near the middle of the loss distribution;
    and k from 1000 to 3000, where (1 + e^eps)^k overflows a float, with a total a few standard deviations
    above the mean loss k epsilon tanh(epsilon / 2) (delta between about 1e-6 and 0.3).
    """
    if rng is None:
        return _CASES

    def eps(lo, hi):
        return round(float(rng.uniform(lo, hi)), 2)

    e1 = eps(0.2, 1.0)
    cases = [(e1, 1, round(e1 * float(rng.uniform(0.0, 0.9)), 2))]
    e, k = eps(0.05, 0.3), int(rng.integers(5, 16))
    i = int(rng.integers(1, (k + 1) // 2))
    cases.append((e, k, round((k - 2 * i) * e, 2)))                                       # on the grid
    e, k = eps(0.1, 0.5), int(rng.integers(4, 12))
    i = int(rng.integers(1, (k + 1) // 2))
    cases.append((e, k, round((k - 2 * i + float(rng.uniform(0.2, 0.8))) * e, 3)))        # between grid points
    cases.append((eps(0.2, 1.5), int(rng.integers(2, 8)), 0.0))
    e, k = eps(0.2, 1.0), int(rng.integers(2, 6))
    cases.append((e, k, round(k * e + float(rng.uniform(0.1, 1.0)), 2)))                  # above k epsilon
    e, k = eps(0.05, 0.3), int(rng.integers(20, 61))
    cases.append((e, k, round(k * e * math.tanh(e / 2) + float(rng.uniform(0.5, 2.0)) * e * math.sqrt(k), 2)))
    e, k = eps(0.05, 0.15), int(rng.integers(1000, 3001))
    cases.append((e, k, round(k * e * math.tanh(e / 2) + float(rng.uniform(1.0, 4.5)) * e * math.sqrt(k), 2)))
    return cases


def check_optimal_delta(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(epsilon, k, epsilon_total) -> delta``: the exact delta of k composed epsilon-DP mechanisms.

    The reference is :func:`dpcourse.optimal_composition_delta`, on the book's seven cases with ``rng=None`` or
    on seven of the same kinds (k = 1, totals on and between grid points, 0 and above k epsilon, a large k
    where direct evaluation overflows) drawn from a :class:`numpy.random.Generator` ``rng``. The message names
    the first failing case and what looks wrong, never the expected value.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_optimal_delta(my_optimal_delta)")
    cases = _cases(check_rng(rng))
    for eps, k, et in cases:
        where = shown(f"on epsilon={eps}, k={k}, epsilon_total={et}")
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
    return CheckResult(True, f"your function agrees with the exact optimal composition on all {len(cases)} cases.")
