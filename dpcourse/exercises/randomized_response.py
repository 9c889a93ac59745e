"""Checkers for the exercises of the chapter "Randomized response: privacy without a trusted curator"."""

from __future__ import annotations

import math

import numpy as np

from ..local_dp import krr_estimate
from ..rr import randomized_response, rr_estimate_mean, rr_standard_error, rr_truth_probability
from . import CheckResult, Forbidden, call_student
from ._draws import check_rng, shown

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


def _surveys(mean: float, epsilon: float, seed: int, n: int = _EST_N) -> np.ndarray:
    """``_EST_REPS`` surveys of ``n`` people with exactly ``round(mean * n)`` ones: shape (reps, n)."""
    bits = np.zeros(n, dtype=np.int64)
    bits[: int(round(mean * n))] = 1
    return randomized_response(np.broadcast_to(bits, (_EST_REPS, n)), epsilon, rng=seed)


def _est_cases(rng) -> list:
    """``(true mean, epsilon, people per survey, seed)`` of each population: the book's, or four drawn from ``rng``.

    Drawn with the book's roles: a typical survey, two more populations at other epsilons (a slip in the
    truth probability shows at some epsilon only), and a mean near 0 at a small epsilon, where many unbiased
    estimates fall below 0 (with n <= 1000 and epsilon <= 1 their standard deviation is at least 0.03, above
    the mean, so a quarter or more of the 200 surveys do: clipping to [0, 1] shows). The verdict compares the
    student's estimates with the chapter's estimator on the same responses (to 1e-9), so it needs no power.
    """
    if rng is None:
        return [(mean, eps, _EST_N, _EST_SEED + case) for case, (mean, eps) in enumerate(_EST_CASES)]

    def case(mean_lo, mean_hi, eps_lo, eps_hi, n_hi):
        n = int(rng.integers(300, n_hi + 1))
        ones = int(rng.integers(math.ceil(mean_lo * n), math.floor(mean_hi * n) + 1))
        return ones / n, round(float(rng.uniform(eps_lo, eps_hi)), 2), n, int(rng.integers(2**63))

    return [case(0.15, 0.5, 0.5, 1.5, 2000), case(0.1, 0.9, 0.1, 0.5, 2000), case(0.5, 0.9, 2.0, 4.0, 2000),
            case(0.0, 0.02, 0.3, 1.0, 1000)]


def check_rr_estimator(student_fn, *, rng=None) -> CheckResult:
    """Check a student's estimator ``student_fn(responses, epsilon) -> float`` of the mean of the true bits.

    ``responses`` is a 1-d int array of 0/1 reports of epsilon-DP randomized response. The checker runs
    the estimator on simulated surveys from populations with known means and several epsilons (the book's
    fixed seeds and sizes with ``rng=None``; means, epsilons, survey sizes and seeds drawn from a
    :class:`numpy.random.Generator` ``rng`` otherwise); it passes if the values agree with the unbiased
    estimator of the chapter, and otherwise reports the first population on which the student's estimates
    are off on average (the bias), or, when they are unbiased but different, how their spread compares. It
    never shows the formula. A function that calls :func:`dpcourse.rr_estimate_mean` (or k-RR's estimator,
    the same for k = 2) is refused.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_rr_estimator(my_rr_estimate)")
    cases = _est_cases(check_rng(rng))
    for case, (mean, eps, n, seed) in enumerate(cases):
        reports = _surveys(mean, eps, seed, n)
        got = np.empty(_EST_REPS)
        for j in range(_EST_REPS):
            got[j], failure = call_student(student_fn, (reports[j].copy(), eps),
                                           f"on {n} responses, epsilon = {eps}; return the estimated mean",
                                           forbidden=_FORBIDDEN)
            if failure is not None:
                return failure
            if not math.isfinite(got[j]):
                return CheckResult(False, f"your function returned {got[j]} " +
                                   shown(f"on {n} responses at epsilon = {eps}") + "; an estimate must be a finite number")
        want = rr_estimate_mean(reports.T, eps)
        if np.allclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        where = shown(f"on responses from a population with true mean {mean:.4g} at epsilon = {eps}")
        numbers = where != shown("")   # the grader may hide its cases: then no number of the case is quoted
        people, truth = (f" of {n} people", f"the true mean {mean:.4g}") if numbers else ("", "the true mean")
        avg, sd = float(got.mean()), float(got.std())
        if np.allclose(got, np.clip(want, 0.0, 1.0), rtol=1e-9, atol=1e-12):
            return CheckResult(False, f"{where} some unbiased estimates fall below 0, and yours never leave [0, 1]: "
                                      f"they average {avg:.4g} over {_EST_REPS} surveys{people}, above {truth}. "
                                      "Forcing an estimate into [0, 1] biases it; leave it as it is")
        # Paired comparison with the unbiased estimator on the same surveys: its average is the true mean in
        # expectation, so a mean difference far beyond its sampling error is a bias of the student's estimator.
        diff = got - want
        if abs(diff.mean()) > 6 * diff.std() / math.sqrt(_EST_REPS):
            msg = (f"biased: {where}, your estimator averages {avg:.4g} over {_EST_REPS} simulated surveys{people} "
                   f"(the true mean is {mean:.4g}; an unbiased estimator averages {float(want.mean()):.4g} on the same "
                   "responses)" if numbers else
                   f"biased: {where}, your estimator's average over {_EST_REPS} simulated surveys is off the average of "
                   "an unbiased estimator on the same responses by far more than their sampling error")
            if np.allclose(got, reports.mean(axis=1), rtol=1e-9, atol=1e-12):
                msg += ". It returns the fraction of reported 1s as it is, but the reports are not the bits: " \
                       "what is the expected fraction of reported 1s when a fraction mu of the bits are 1?"
            elif case > 0:
                msg += ". It was right " + shown(f"at epsilon = {cases[0][1]}") + \
                    ": check how your truth probability depends on epsilon"
            return CheckResult(False, msg)
        ref_sd = rr_standard_error(n, eps)
        return CheckResult(False, f"{where} your estimates average {avg:.3g}, so they look unbiased, but they "
                                  f"differ from the chapter's estimator on the same responses: their standard "
                                  f"deviation is {sd:.3g} against {ref_sd:.3g} for the best one. "
                                  "Does your estimator use every response, and only through their average?")
    return CheckResult(True, f"your estimator agrees with the unbiased estimator on {len(cases)} simulated "
                             f"populations ({_EST_REPS} surveys each).")
