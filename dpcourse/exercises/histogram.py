"""Checkers for the exercises of the chapter "Histograms and vector-valued queries"."""

from __future__ import annotations

import numpy as np
from scipy import stats

import dpcourse

from .. import histogram
from ..histogram import exact_histogram, histogram_sensitivity
from . import CheckResult, call_student

# the exercise asks for the histogram built by hand from laplace_mechanism
_FORBIDDEN = tuple((module, name) for module in (dpcourse, histogram) for name in ("dp_histogram", "histogram_sensitivity"))

__all__ = ["check_my_dp_histogram"]

_K = 2000      # many categories: one call gives 2000 noise draws to test
_EPSILON = 0.5
_ALPHA = 1e-6  # level of each statistical test: a correct answer fails with probability below 1e-6


def _case():
    gen = np.random.default_rng(20260)
    categories = gen.permutation(np.arange(100, 100 + _K))  # deliberately not sorted
    counts = 2 * (np.arange(_K) % 50)  # varied counts, so that a wrong order shows
    data = gen.permutation(np.repeat(categories, counts))
    return categories, data


def _too_little_noise(relation, ratio) -> CheckResult:
    return CheckResult(False, f"too little noise for relation={relation!r}: your noise is about {ratio:.2f} times "
                              "the right size. How many counts can change, and by how much, between neighbours "
                              "under this relation?")


def check_my_dp_histogram(student_fn) -> CheckResult:
    """Check ``student_fn(data, categories, epsilon, relation, rng)``, a Laplace histogram built by hand.

    It must return one noisy count per category, in the order of ``categories``, with Laplace noise of
    the right scale for ``relation`` ("add_remove" or "replace_one"), and raise ``ValueError`` on a
    record outside the declared categories. The noise is tested over 2000 categories, each test at level
    1e-6: first one-sided on the mean absolute residual (exact, |Lap(b)| is exponential with mean b), which
    refuses a scale 0.8 times the right one or less (a 1.25 epsilon guarantee), then with a two-sided
    Kolmogorov-Smirnov test on the shape. The message says what looks wrong, never the scale. A function
    that calls :func:`dpcourse.dp_histogram` or :func:`dpcourse.histogram_sensitivity` is refused.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_my_dp_histogram(my_dp_histogram)")
    categories, data = _case()
    exact = exact_histogram(data, categories=categories)
    for seed, relation in enumerate(("add_remove", "replace_one")):
        out, failure = call_student(student_fn, (data.copy(), categories.copy(), _EPSILON, relation,
                                                 np.random.default_rng(seed)),
                                    f"relation={relation!r}; one noisy count per category", shape=exact.shape,
                                    forbidden=_FORBIDDEN)
        if failure is not None:
            return failure
        if not np.isfinite(out).all():
            return CheckResult(False, "your counts contain NaN or inf")
        resid = out - exact
        if np.ptp(out) == 0:
            return CheckResult(False, "your function returns the same value for every category; count the records "
                                      "of each category first")
        if np.all(resid == 0):
            return CheckResult(False, f"your counts are exact (relation={relation!r}): add the Laplace noise")
        if np.all(resid == np.round(resid)):
            return CheckResult(False, "your noisy counts are all whole numbers: this exercise asks for the Laplace "
                                      "noise of dpcourse.laplace_mechanism, released as it is (rounding is "
                                      "post-processing the reader may do later)")
        if np.corrcoef(out, exact)[0, 1] < 0.5:
            return CheckResult(False, "your noisy counts are not centred on the exact counts: is the i-th output the "
                                      "count of categories[i] (in the given order, not sorted)?")
        scale = histogram_sensitivity(relation) / _EPSILON
        observed = float(np.mean(np.abs(resid)))  # the mean absolute value estimates the Laplace scale
        # One-sided test against too little noise. Under Lap(scale), |Z| is exponential with mean scale, so
        # sum |Z_j| / scale ~ Gamma(K, 1) exactly; reject if that sum is improbably small (level 1e-6). With
        # K = 2000 this refuses scales of 0.8x and below, which the two-sided KS test lets through.
        if stats.gamma.cdf(observed * _K / scale, a=_K) < _ALPHA:
            return _too_little_noise(relation, observed / scale)
        p = stats.kstest(resid, stats.laplace(scale=scale).cdf).pvalue
        if p > _ALPHA:
            continue
        if observed < scale:
            return _too_little_noise(relation, observed / scale)
        return CheckResult(False, f"too much noise for relation={relation!r}: about {observed / scale:.2f} times the "
                                  "right size. Over-noising is safe but wastes accuracy: recheck the sensitivity "
                                  "under this relation and the scale of the Laplace noise")
    bad = np.append(data[:10], categories.max() + 1)
    try:
        student_fn(bad, categories.copy(), _EPSILON, "add_remove", np.random.default_rng(7))
    except ValueError:
        pass
    except Exception as exc:  # the student's code may raise anything; report it as feedback
        return CheckResult(False, f"on a record outside the categories raise ValueError, not {type(exc).__name__}")
    else:
        return CheckResult(False, "a record outside the declared categories was silently accepted; raise ValueError "
                                  "instead (dropping it quietly would hide a data error)")
    return CheckResult(True, "counts in the right order, noise of the right scale for both relations, and bad "
                             "records refused.")
