"""Checkers for the exercises of the chapters "Approximate differential privacy" and "The Gaussian mechanism"."""

from __future__ import annotations

import math

from ..approx_dp import group_privacy
from ..gaussian import _classic_sigma_formula, analytic_gaussian_sigma, gaussian_delta
from . import CheckResult, Forbidden, call_student
from ._draws import check_rng, shown

# The functions each exercise asks the student to write rather than call. The sigma exercise allows
# gaussian_delta (and so its log-space twin _log_gaussian_delta): the search for sigma is the exercise.
_FORBIDDEN_GROUP = Forbidden(group_privacy)
_FORBIDDEN_SIGMA = Forbidden(analytic_gaussian_sigma, allow=(gaussian_delta,))

__all__ = ["check_group_delta", "check_analytic_sigma"]

# (epsilon, delta, k): k = 1, small and large epsilon, and k large enough that the sum differs from k e^{(k-1)eps}.
_GROUP_CASES = [(0.5, 1e-6, 1), (0.5, 1e-6, 2), (1.0, 1e-5, 3), (0.1, 1e-8, 10), (2.0, 1e-9, 5)]

# (epsilon, delta): small and large epsilon (the classic formula is unproven for epsilon >= 1), small and large delta.
_SIGMA_CASES = [(0.5, 1e-5), (1.0, 1e-6), (3.0, 1e-3), (0.1, 1e-8), (20.0, 1e-6), (0.05, 0.2)]


def _delta(rng, lo_exp, hi_exp) -> float:
    """A delta 10^-x with x uniform in [lo_exp, hi_exp], to three significant digits."""
    return float(f"{10.0 ** -rng.uniform(lo_exp, hi_exp):.3g}")


def _group_cases(rng) -> list:
    """The cases of :func:`check_group_delta`: the book's, or five drawn from ``rng`` with the same roles.

    Drawn: k = 1, k = 2, a k from 3 to 6, one from 7 to 15 and one from 3 to 10 at a large epsilon; epsilons
    in hundredths from 0.05 to 2.5, deltas from 1e-4 to 1e-10.
    """
    if rng is None:
        return _GROUP_CASES

    def eps(lo, hi):
        return round(float(rng.uniform(lo, hi)), 2)

    return [(eps(0.1, 1.5), _delta(rng, 4, 10), 1), (eps(0.1, 1.5), _delta(rng, 4, 10), 2),
            (eps(0.2, 1.5), _delta(rng, 4, 10), int(rng.integers(3, 7))),
            (eps(0.05, 0.3), _delta(rng, 4, 10), int(rng.integers(7, 16))),
            (eps(1.5, 2.5), _delta(rng, 4, 10), int(rng.integers(3, 11)))]


def _sigma_cases(rng) -> list:
    """The cases of :func:`check_analytic_sigma`: the book's, or six drawn from ``rng`` with the same roles.

    Drawn: epsilons below 1, about 1, above 1 (where the classic formula has no proof), very small and very
    large, and deltas from 1e-9 to 0.2 (one of them above 1e-2).
    """
    if rng is None:
        return _SIGMA_CASES

    def eps(lo, hi):
        return float(f"{10.0 ** rng.uniform(math.log10(lo), math.log10(hi)):.3g}")

    return [(eps(0.2, 0.9), _delta(rng, 4, 7)), (eps(0.9, 1.5), _delta(rng, 5, 8)), (eps(2.0, 5.0), _delta(rng, 2, 4)),
            (eps(0.05, 0.2), _delta(rng, 7, 9)), (eps(8.0, 25.0), _delta(rng, 4, 8)), (eps(0.03, 0.1), _delta(rng, 0.7, 2))]


def check_group_delta(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(epsilon, delta, k) -> float``: the delta that the chain argument gives for groups of k.

    The reference is the exact sum of theorem ``thm-approx-group``. The cases are the book's five with
    ``rng=None``, or five of the same kinds (k = 1, small and large k and epsilon) drawn from a
    :class:`numpy.random.Generator` ``rng``. The message names the first failing case and the likely slip,
    never the expected value.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_group_delta(my_group_delta)")
    cases = _group_cases(check_rng(rng))
    for eps, delta, k in cases:
        where = shown(f"for epsilon={eps}, delta={delta}, k={k}")
        got, failure = call_student(student_fn, (eps, delta, k), f"{where}; return delta_k only, not a pair",
                                    forbidden=_FORBIDDEN_GROUP)
        if failure is not None:
            return failure
        want = group_privacy(eps, delta, k)[1]
        if math.isclose(got, want, rel_tol=1e-9):
            continue
        if k == 1:
            return CheckResult(False, f"{where}: a group of one person is one person, so delta_1 must equal delta")
        if math.isclose(got, k * delta, rel_tol=1e-9):
            return CheckResult(False, f"{where} you returned k * delta: each link of the chain also multiplies "
                                      "the delta accumulated so far by e^epsilon")
        if math.isclose(got, k * math.exp((k - 1) * eps) * delta, rel_tol=1e-9):
            return CheckResult(False, f"{where} you returned k e^((k-1) epsilon) delta: that is a valid upper bound, "
                                      "but the chain argument gives something smaller; unroll the recursion exactly")
        if math.isclose(got, want * math.exp(eps), rel_tol=1e-9) or math.isclose(got, delta * math.exp(k * eps), rel_tol=1e-9):
            return CheckResult(False, f"{where} check your exponents: the link next to x adds delta "
                                      "without any factor e^epsilon")
        return CheckResult(False, f"{where} your value {got:.6g} is off; write the inequality for a chain of "
                                  "length 2, then 3, and look at the pattern")
    return CheckResult(True, f"your function agrees with the chain argument on all {len(cases)} cases.")


def check_analytic_sigma(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(epsilon, delta) -> float``: the smallest sigma (l2 sensitivity 1) giving (epsilon, delta)-DP.

    Correct means within 1e-6 relative of :func:`dpcourse.analytic_gaussian_sigma`, on the book's six cases
    with ``rng=None`` or on six of the same kinds drawn from a :class:`numpy.random.Generator` ``rng``.
    Recognised slips are named; any other wrong sigma gets the same message whichever side of the answer it
    is on, and the expected sigma is never shown.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_analytic_sigma(my_analytic_sigma)")
    cases = _sigma_cases(check_rng(rng))
    for eps, delta in cases:
        where = shown(f"for epsilon={eps}, delta={delta}")
        got, failure = call_student(student_fn, (eps, delta), where, forbidden=_FORBIDDEN_SIGMA)
        if failure is not None:
            return failure
        if not math.isfinite(got) or got <= 0:
            return CheckResult(False, f"{where} your function should return a positive finite number, got {got!r}")
        want = analytic_gaussian_sigma(eps, delta)
        if math.isclose(got, want, rel_tol=1e-6):
            continue
        if math.isclose(got, 1.0 / want, rel_tol=1e-6):
            return CheckResult(False, f"{where} it looks as if you returned mu = Delta / sigma rather than sigma")
        if math.isclose(got, _classic_sigma_formula(eps, delta, 1.0), rel_tol=1e-6):
            return CheckResult(False, f"{where} you returned the classic formula: it is not the smallest sigma "
                                      "(and has no proof for epsilon >= 1); solve gaussian_delta(epsilon, 1/sigma) = delta")
        # One message on either side of the answer (no "too small"/"too large"): nothing to bisect on.
        return CheckResult(False, f"{where} your sigma {got:.6g} is not the smallest sigma with exact delta at most "
                                  "the target (to 1e-6 relative); solve gaussian_delta(epsilon, 1/sigma) = delta")
    return CheckResult(True, f"your function finds the smallest sigma on all {len(cases)} cases.")
