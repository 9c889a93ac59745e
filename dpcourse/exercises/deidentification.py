"""Checkers for the exercises of the chapter "Differential privacy in the world"."""

from __future__ import annotations

import math

from ..deidentification import posterior_bound
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_posterior_bound", "check_user_epsilon"]

_FORBIDDEN = Forbidden(posterior_bound)

# (prior, epsilon): rare and common secrets, small and large epsilon
_POSTERIOR_CASES = [(0.5, 1.0), (0.01, 0.1), (0.01, 4.0), (0.3, 8.0), (0.9, 0.5), (1e-6, 10.0)]


def check_posterior_bound(student_fn) -> CheckResult:
    """Check ``student_fn(prior, epsilon) -> float``: the largest posterior after an epsilon-DP release.

    The function must be written, not borrowed: a function that uses ``dpcourse.posterior_bound`` is
    refused. The messages name the usual slips (a posterior that can exceed 1; a halved epsilon) without
    giving the formula.
    """
    for prior, eps in _POSTERIOR_CASES:
        where = f"on prior={prior}, epsilon={eps}"
        got, failure = call_student(student_fn, (prior, eps), where, forbidden=_FORBIDDEN)
        if failure is not None:
            return failure
        want = posterior_bound(prior, eps)
        if math.isclose(got, want, rel_tol=1e-6):
            continue
        if not 0.0 <= got <= 1.0:
            return CheckResult(False, f"a posterior is a probability, in [0, 1]; got {got} {where}. "
                                      "Theorem world-thm-posterior bounds a ratio of odds, not of probabilities")
        if math.isclose(got, min(1.0, math.exp(eps) * prior), rel_tol=1e-9):
            return CheckResult(False, f"off {where}: e^epsilon multiplies the odds p/(1-p), not the probability")
        if math.isclose(got, posterior_bound(prior, eps / 2), rel_tol=1e-9):
            return CheckResult(False, f"off {where}: the odds grow by e^epsilon, the whole epsilon")
        return CheckResult(False, f"not yet right {where} (a relative precision of 1e-6 is asked)")
    return CheckResult(True, "your bound matches theorem world-thm-posterior on every case tried.")


def check_user_epsilon(answer) -> CheckResult:
    """Exercise world-ex-unit: a user contributes up to 20 events a day, each event's release is 0.05-DP
    (pure, event level, add/remove); the releases run for 30 days. The user-level epsilon over the month."""
    truth = 0.05 * 20 * 30
    return check_number(answer, truth, what="the user-level epsilon over 30 days", low=0.0, low_open=True,
                        slips=[(0.05 * 30, "that protects one event a day; a user can contribute up to 20"),
                               (0.05 * 20, "that is one day; the month composes 30 daily releases"),
                               (0.05 * 20 * 20 * 30, "group privacy multiplies epsilon by the group size k, "
                                                     "not by k^2 (k^2 is the zCDP rule for rho)")])
