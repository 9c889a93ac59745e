"""Checkers for the exercises of the chapter "Randomized response: privacy without a trusted curator"."""

from __future__ import annotations

import math

import numpy as np

from ..local_dp import krr_estimate
from ..rr import randomized_response, rr_estimate_mean, rr_standard_error, rr_truth_probability
from . import CheckResult, Forbidden, call_student

# The exercise asks the student to write this estimator, not to call it: rr_estimate_mean (with its module's
# helpers), and k-RR's estimator, which for k = 2 is the same estimator (of counts, not of a mean). The truth
# probability is a building block the student may take from the library.
_FORBIDDEN = Forbidden(rr_estimate_mean, krr_estimate, allow=(rr_truth_probability,))

__all__ = ["check_rr_estimator"]

# (true mean, epsilon): the first is the typical survey; then other epsilons (a slip in the truth
# probability shows at some epsilon only); then a mean near 0, where estimates leave [0, 1].
_EST_CASES = [(0.3, 1.0), (0.3, 0.3), (0.7, 3.0), (0.02, 1.0)]
_EST_N = 1000
_EST_REPS = 200
_EST_SEED = 20260202


def _surveys(mean: float, epsilon: float, seed: int) -> np.ndarray:
    """``_EST_REPS`` surveys of ``_EST_N`` people with exactly ``mean * n`` ones: shape (reps, n)."""
    bits = np.zeros(_EST_N, dtype=np.int64)
    bits[: int(round(mean * _EST_N))] = 1
    return randomized_response(np.broadcast_to(bits, (_EST_REPS, _EST_N)), epsilon, rng=seed)


def check_rr_estimator(student_fn) -> CheckResult:
    """Check a student's estimator ``student_fn(responses, epsilon) -> float`` of the mean of the true bits.

    ``responses`` is a 1-d int array of 0/1 reports of epsilon-DP randomized response. The checker runs
    the estimator on simulated surveys (fixed seeds) from populations with known means and several
    epsilons; it passes if the values agree with the unbiased estimator of the chapter, and otherwise
    reports the first population on which the student's estimates are off on average (the bias), or,
    when they are unbiased but different, how their spread compares. It never shows the formula. A
    function that calls :func:`dpcourse.rr_estimate_mean` (or k-RR's estimator, the same for k = 2) is refused.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_rr_estimator(my_rr_estimate)")
    for case, (mean, eps) in enumerate(_EST_CASES):
        reports = _surveys(mean, eps, _EST_SEED + case)
        got = np.empty(_EST_REPS)
        for j in range(_EST_REPS):
            got[j], failure = call_student(student_fn, (reports[j].copy(), eps),
                                           f"on {_EST_N} responses, epsilon = {eps}; return the estimated mean",
                                           forbidden=_FORBIDDEN)
            if failure is not None:
                return failure
            if not math.isfinite(got[j]):
                return CheckResult(False, f"your function returned {got[j]} on {_EST_N} responses at "
                                          f"epsilon = {eps}; an estimate must be a finite number")
        want = rr_estimate_mean(reports.T, eps)
        if np.allclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        where = f"on responses from a population with true mean {mean} at epsilon = {eps}"
        avg, sd = float(got.mean()), float(got.std())
        if np.allclose(got, np.clip(want, 0.0, 1.0), rtol=1e-9, atol=1e-12):
            return CheckResult(False, f"{where} some unbiased estimates fall below 0, and yours never leave [0, 1]: "
                                      f"they average {avg:.4g} over {_EST_REPS} surveys of {_EST_N} people, above the "
                                      f"true mean {mean}. Forcing an estimate into [0, 1] biases it; leave it as it is")
        # Paired comparison with the unbiased estimator on the same surveys: its average is the true mean in
        # expectation, so a mean difference far beyond its sampling error is a bias of the student's estimator.
        diff = got - want
        if abs(diff.mean()) > 6 * diff.std() / math.sqrt(_EST_REPS):
            msg = (f"biased: {where}, your estimator averages {avg:.4g} over {_EST_REPS} simulated surveys "
                   f"of {_EST_N} people (the true mean is {mean}; an unbiased estimator averages "
                   f"{float(want.mean()):.4g} on the same responses)")
            if np.allclose(got, reports.mean(axis=1), rtol=1e-9, atol=1e-12):
                msg += ". It returns the fraction of reported 1s as it is, but the reports are not the bits: " \
                       "what is the expected fraction of reported 1s when a fraction mu of the bits are 1?"
            elif case > 0:
                msg += f". It was right at epsilon = {_EST_CASES[0][1]}: check how your truth probability depends on epsilon"
            return CheckResult(False, msg)
        ref_sd = rr_standard_error(_EST_N, eps)
        return CheckResult(False, f"{where} your estimates average {avg:.3g}, so they look unbiased, but they "
                                  f"differ from the chapter's estimator on the same responses: their standard "
                                  f"deviation is {sd:.3g} against {ref_sd:.3g} for the best one. "
                                  "Does your estimator use every response, and only through their average?")
    return CheckResult(True, f"your estimator agrees with the unbiased estimator on {len(_EST_CASES)} simulated "
                             f"populations ({_EST_REPS} surveys each).")
