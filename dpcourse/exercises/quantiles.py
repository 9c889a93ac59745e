"""Checkers for the exercises of the chapter "Medians and quantiles"."""

from __future__ import annotations

import math

import numpy as np

from ..quantiles import dp_quantile_probabilities, local_sensitivity, quantile_rank_error_bound, smooth_sensitivity
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["INTERVAL_EXERCISE", "check_interval_probability", "check_local_sensitivity", "check_rank_bound"]

#: The data of the interval exercise: values, bounds, resolution, epsilon (median, q = 1/2).
INTERVAL_EXERCISE = {"x": [2.0, 5.0, 6.0], "lower": 0.0, "upper": 8.0, "resolution": 8, "epsilon": 2.0}


def _interval_truth(weight_scale=0.5, use_counts=True):
    ex = INTERVAL_EXERCISE
    starts, _ = dp_quantile_probabilities(ex["x"], 0.5, ex["lower"], ex["upper"], ex["epsilon"],
                                          resolution=ex["resolution"])
    counts = np.diff(starts) if use_counts else (np.diff(starts) > 0).astype(float)
    n = len(ex["x"])
    w = counts * np.exp(-weight_scale * ex["epsilon"] * np.abs(np.arange(n + 1) - n / 2))
    return float(w[1] / w.sum())


def check_interval_probability(answer) -> CheckResult:
    """Check the probability that the exponential-mechanism median of :data:`INTERVAL_EXERCISE` falls strictly
    above the smallest value and at or below the second one (interval 1: grid points 3, 4, 5).

    The hints recognise weights ``exp(epsilon u)`` (the factor 2 forgotten) and intervals weighted as if
    each held one candidate (grid-point counts forgotten).
    """
    truth = _interval_truth()
    slips = [(_interval_truth(weight_scale=1.0), "check the exponent: the utility has sensitivity 1 and the "
                                                 "weights of the exponential mechanism carry a factor 1/2"),
             (_interval_truth(use_counts=False), "an interval is not one candidate: count the grid points it "
                                                 "holds")]
    return check_number(answer, truth, what="the probability", low=0.0, high=1.0, slips=slips)


_LS_CASES = [
    ([1.0, 2.0, 2.5, 6.0, 7.0], 0.0, 10.0),
    ([3.0], 0.0, 10.0),                         # n = 1: both neighbours are the bounds
    ([4.0, 1.0], 0.0, 10.0),                    # n = 2, unsorted: lower median
    ([5.0, 5.0, 5.0, 9.0], 0.0, 10.0),
    ([-20.0, 3.0, 4.0, 30.0, 31.0, 50.0], 0.0, 10.0),   # values outside the bounds are clamped
    ([0.5, 0.6, 0.9, 0.95, 2.0, 3.0, 8.0], 0.0, 10.0),
]


# local_sensitivity and smooth_sensitivity, with their module's helpers: the clamped, sorted values padded with
# the bounds (every median routine of the package starts from them) and the smooth sensitivity's inner loop.
_LS_FORBIDDEN = Forbidden(local_sensitivity, smooth_sensitivity)


def check_local_sensitivity(student_fn) -> CheckResult:
    """Check ``student_fn(x, lower, upper)``: the local sensitivity of the (lower) median, clamped to the bounds.

    :func:`dpcourse.local_sensitivity` is forbidden. The message names the first case that fails and a
    likely cause (unsorted data, bounds not used as the 0-th and (n+1)-th values, no clamping, the upper
    median), never the value.
    """
    causes = ["a dataset of 5 sorted values", "a single value: what are its neighbours in the sorted order?",
              "two unsorted values: sort first; the median of an even number of values is the lower one here",
              "ties at the median", "values outside [lower, upper]: clamp them first",
              "7 values"]
    for (x, lo, hi), cause in zip(_LS_CASES, causes):
        where = f"on x={x}, lower={lo}, upper={hi}"
        got, failure = call_student(student_fn, (list(x), lo, hi), where, forbidden=_LS_FORBIDDEN)
        if failure is not None:
            return failure
        if not math.isfinite(got):
            return CheckResult(False, f"your function returned {got} {where}")
        want = local_sensitivity(x, lo, hi)
        if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            return CheckResult(False, f"not yet right {where} ({cause})")
    return CheckResult(True, f"your local sensitivity matches on all {len(_LS_CASES)} cases.")


#: (epsilon, beta, resolution) of the rank-accuracy exercise.
RANK_EXERCISE = (0.5, 0.01, 2**10)


def check_rank_bound(answer) -> CheckResult:
    """Check ``t`` of theorem ``thm-quant-rank-accuracy`` for :data:`RANK_EXERCISE` (n_best = 1)."""
    eps, beta, res = RANK_EXERCISE
    truth = quantile_rank_error_bound(eps, beta, resolution=res)
    slips = [(truth / 2, "the weights are exp(epsilon u / 2): the factor 2 belongs in t"),
             (2 / eps * math.log(1 / beta), "the number of candidates enters t too"),
             (2 / eps * math.log(res + 1), "the failure probability beta enters t too")]
    return check_number(answer, truth, what="t", low=0.0, low_open=True, slips=slips)
