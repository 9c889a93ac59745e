"""Checkers for the exercises of the chapters "Approximate differential privacy" and "The Gaussian mechanism"."""

from __future__ import annotations

import math

from ..approx_dp import group_privacy
from ..gaussian import _classic_sigma_formula, analytic_gaussian_sigma, gaussian_delta
from . import CheckResult, Forbidden, call_student

# The functions each exercise asks the student to write rather than call. The sigma exercise allows
# gaussian_delta (and so its log-space twin _log_gaussian_delta): the search for sigma is the exercise.
_FORBIDDEN_GROUP = Forbidden(group_privacy)
_FORBIDDEN_SIGMA = Forbidden(analytic_gaussian_sigma, allow=(gaussian_delta,))

__all__ = ["check_group_delta", "check_analytic_sigma"]

# (epsilon, delta, k): k = 1, small and large epsilon, and k large enough that the sum differs from k e^{(k-1)eps}.
_GROUP_CASES = [(0.5, 1e-6, 1), (0.5, 1e-6, 2), (1.0, 1e-5, 3), (0.1, 1e-8, 10), (2.0, 1e-9, 5)]

# (epsilon, delta): small and large epsilon (the classic formula is unproven for epsilon >= 1), small and large delta.
_SIGMA_CASES = [(0.5, 1e-5), (1.0, 1e-6), (3.0, 1e-3), (0.1, 1e-8), (20.0, 1e-6), (0.05, 0.2)]


def check_group_delta(student_fn) -> CheckResult:
    """Check ``student_fn(epsilon, delta, k) -> float``: the delta that the chain argument gives for groups of k.

    The reference is the exact sum of theorem ``thm-approx-group``. The message names the first failing
    case and the likely slip, never the expected value.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_group_delta(my_group_delta)")
    for eps, delta, k in _GROUP_CASES:
        where = f"for epsilon={eps}, delta={delta}, k={k}"
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
    return CheckResult(True, f"your function agrees with the chain argument on all {len(_GROUP_CASES)} cases.")


def check_analytic_sigma(student_fn) -> CheckResult:
    """Check ``student_fn(epsilon, delta) -> float``: the smallest sigma (l2 sensitivity 1) giving (epsilon, delta)-DP.

    Correct means within 1e-6 relative of :func:`dpcourse.analytic_gaussian_sigma`. Recognised slips are
    named; any other wrong sigma gets the same message whichever side of the answer it is on, and the
    expected sigma is never shown.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_analytic_sigma(my_analytic_sigma)")
    for eps, delta in _SIGMA_CASES:
        where = f"for epsilon={eps}, delta={delta}"
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
    return CheckResult(True, f"your function finds the smallest sigma on all {len(_SIGMA_CASES)} cases.")
