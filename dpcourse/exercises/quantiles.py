"""Checkers for the exercises of the chapter "Medians and quantiles"."""

from __future__ import annotations

import math

import numpy as np

from ..quantiles import dp_quantile_probabilities, local_sensitivity, quantile_rank_error_bound, smooth_sensitivity
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["INTERVAL_EXERCISE", "check_interval_probability", "check_local_sensitivity", "check_rank_bound"]

#: The data of the interval exercise: values, bounds, resolution, epsilon (median, q = 1/2).
INTERVAL_EXERCISE = {"x": [2.0, 5.0, 6.0], "lower": 0.0, "upper": 8.0, "resolution": 8, "epsilon": 2.0}


def _interval_numbers(x=None, lower=None, upper=None, resolution=None, epsilon=None) -> dict:
    """:data:`INTERVAL_EXERCISE` with the numbers given replaced (a variant of the question)."""
    given = {"x": x, "lower": lower, "upper": upper, "resolution": resolution, "epsilon": epsilon}
    return {key: (INTERVAL_EXERCISE[key] if value is None else value) for key, value in given.items()}


def _interval_truth(ex=None, weight_scale=0.5, use_counts=True):
    ex = _interval_numbers() if ex is None else ex
    starts, _ = dp_quantile_probabilities(ex["x"], 0.5, ex["lower"], ex["upper"], ex["epsilon"],
                                          resolution=ex["resolution"])
    counts = np.diff(starts) if use_counts else (np.diff(starts) > 0).astype(float)
    n = len(ex["x"])
    w = counts * np.exp(-weight_scale * ex["epsilon"] * np.abs(np.arange(n + 1) - n / 2))
    return float(w[1] / w.sum())


def check_interval_probability(answer, *, x=None, lower=None, upper=None, resolution=None,
                               epsilon=None) -> CheckResult:
    """Check the probability that the exponential-mechanism median of :data:`INTERVAL_EXERCISE` falls strictly
    above the smallest value and at or below the second one (interval 1: grid points 3, 4, 5).

    ``x``, ``lower``, ``upper``, ``resolution``, ``epsilon`` replace the book's numbers (a homework variant);
    left out, they are the book's. The hints recognise weights ``exp(epsilon u)`` (the factor 2 forgotten)
    and intervals weighted as if each held one candidate (grid-point counts forgotten).
    """
    return check_number(answer, **_interval_question(x=x, lower=lower, upper=upper, resolution=resolution,
                                                     epsilon=epsilon))


def _interval_question(**numbers) -> dict:
    """The truth, slips and range of :func:`check_interval_probability` for these numbers (check_number's
    arguments; the homework registry also reads them to keep only variants whose slips stay distinct)."""
    ex = _interval_numbers(**numbers)
    slips = [(_interval_truth(ex, weight_scale=1.0), "check the exponent: the utility has sensitivity 1 and the "
                                                     "weights of the exponential mechanism carry a factor 1/2"),
             (_interval_truth(ex, use_counts=False), "an interval is not one candidate: count the grid points it "
                                                     "holds")]
    return dict(truth=_interval_truth(ex), what="the probability", low=0.0, high=1.0, slips=slips)


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


_LS_CAUSES = ["a dataset of 5 sorted values", "a single value: what are its neighbours in the sorted order?",
              "two unsorted values: sort first; the median of an even number of values is the lower one here",
              "ties at the median", "values outside [lower, upper]: clamp them first", "7 values"]


def _ls_cases(rng):
    """``[(x, lower, upper, cause)]``: the book's six cases, or eight drawn from the grader's ``rng``.

    The drawn cases keep the book's kinds (a single value, two unsorted values, ties at the median, values
    outside the bounds) with drawn bounds, values (to 2 decimals) and sizes, then four datasets of 3 to 40
    values of which about a fifth fall outside the bounds. In the case of values outside the bounds, those
    ranked beyond the median on one side lie more than the bounds' width outside (the others inside), so
    that a neighbour of the median is a clamped value and clamping changes the answer. Every case is
    compared exactly (to 1e-9), so each draw tests the whole computation; the small sizes are where the
    bounds take the place of missing neighbours.
    """
    from ._draws import check_rng

    if check_rng(rng) is None:
        return [(x, lo, hi, cause) for (x, lo, hi), cause in zip(_LS_CASES, _LS_CAUSES)]
    lo = float(round(rng.uniform(-50.0, 50.0), 1))
    hi = float(round(lo + rng.uniform(1.0, 100.0), 1))
    width = hi - lo

    def values(n, outside=0.0):
        inside = rng.uniform(lo, hi, n)
        wide = rng.uniform(lo - width, hi + width, n)
        return [float(v) for v in np.round(np.where(rng.random(n) < outside, wide, inside), 2)]

    n_tie = int(rng.integers(3, 12))
    tied = values(n_tie)
    middle = sorted(tied)[(n_tie - 1) // 2]
    tied = [middle if rng.random() < 0.5 else v for v in tied]
    n_out = int(rng.integers(4, 13))
    m = (n_out + 1) // 2                                # the (lower) median's rank
    if rng.random() < 0.5:                              # the values ranked above the median lie far above
        far = hi + rng.uniform(width, 2 * width, n_out - m)
        outside = values(m) + [float(v) for v in np.round(far, 2)]
    else:                                               # those ranked below it lie far below
        far = lo - rng.uniform(width, 2 * width, m - 1)
        outside = values(n_out - m + 1) + [float(v) for v in np.round(far, 2)]
    outside = [outside[i] for i in rng.permutation(len(outside))]
    # two values in one third of the bounds: the lower median's gaps differ from the upper median's
    two = [float(v) for v in np.round(rng.uniform(lo, lo + width / 3, 2), 2)]
    two = sorted(two if rng.random() < 0.5 else [float(round(lo + hi - v, 2)) for v in two])[::-1]
    cases = [(values(1), "a single value: what are its neighbours in the sorted order?"),
             (two, "two unsorted values: sort first; the median of an even number of values is the lower one here"),
             (tied, "ties at the median"), (outside, "values outside [lower, upper]: clamp them first")]
    for _ in range(4):
        n = int(rng.integers(3, 41))
        cases.append((values(n, outside=0.2), f"{n} values"))
    order = rng.permutation(len(cases))
    return [(cases[i][0], lo, hi, cases[i][1]) for i in order]


def check_local_sensitivity(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(x, lower, upper)``: the local sensitivity of the (lower) median, clamped to the bounds.

    On the book's six cases, or (``rng``, a numpy Generator: the homework grader's) on eight drawn from it.
    :func:`dpcourse.local_sensitivity` is forbidden. The message names the first case that fails and a
    likely cause (unsorted data, bounds not used as the 0-th and (n+1)-th values, no clamping, the upper
    median), never the value.
    """
    from ._draws import shown

    cases = _ls_cases(rng)
    for x, lo, hi, cause in cases:
        where = shown(f"on x={x}, lower={lo}, upper={hi}")
        got, failure = call_student(student_fn, (list(x), lo, hi), where, forbidden=_LS_FORBIDDEN)
        if failure is not None:
            return failure
        if not math.isfinite(got):
            return CheckResult(False, f"your function returned {got} {where}")
        want = local_sensitivity(x, lo, hi)
        if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            return CheckResult(False, f"not yet right {where} ({cause})")
    return CheckResult(True, f"your local sensitivity matches on all {len(cases)} cases.")


#: (epsilon, beta, resolution) of the rank-accuracy exercise.
RANK_EXERCISE = (0.5, 0.01, 2**10)


def check_rank_bound(answer, *, epsilon=None, beta=None, resolution=None) -> CheckResult:
    """Check ``t`` of theorem ``thm-quant-rank-accuracy`` for :data:`RANK_EXERCISE` (n_best = 1).

    ``epsilon``, ``beta``, ``resolution`` (the grid's K) replace the book's numbers (a homework variant).
    """
    return check_number(answer, **_rank_question(epsilon=epsilon, beta=beta, resolution=resolution))


def _rank_question(epsilon=None, beta=None, resolution=None) -> dict:
    """check_number's arguments for :func:`check_rank_bound` with these numbers."""
    eps, beta, res = (given if given is not None else book
                      for given, book in zip((epsilon, beta, resolution), RANK_EXERCISE))
    truth = quantile_rank_error_bound(eps, beta, resolution=res)
    slips = [(truth / 2, "the weights are exp(epsilon u / 2): the factor 2 belongs in t"),
             (2 / eps * math.log(1 / beta), "the number of candidates enters t too"),
             (2 / eps * math.log(res + 1), "the failure probability beta enters t too")]
    return dict(truth=truth, what="t", low=0.0, low_open=True, slips=slips)
