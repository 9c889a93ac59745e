"""Checkers for the exercises of the chapter "Histograms and vector-valued queries"."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ..discrete import laplace_lattice
from ..histogram import dp_histogram, exact_histogram, histogram_sensitivity
from . import CheckResult, Forbidden, call_student

# The exercise asks for the histogram built by hand from laplace_mechanism (allowed, with exact_histogram).
_FORBIDDEN = Forbidden(dp_histogram, histogram_sensitivity, allow=(exact_histogram,))

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


def _max_repeats(resid, sensitivity) -> int:
    """The most noise values that fresh independent noise repeats across categories, at level 1e-6.

    Discrete Laplace noise of the right scale b = sensitivity / epsilon on a lattice g Z gives each value
    probability at most tanh(g / 2b) <= g / 2b; given the earlier categories, one repeats an earlier value with
    probability at most (K - 1) g / 2b, so the number of repeats is dominated by that binomial. g is the coarsest
    power of two the residuals are multiples of: at most sensitivity 2**-20 for laplace_mechanism (limit 8).
    """
    g = 0.5  # whole-number residuals are refused before
    while g > 2.0**-80 and not np.all(np.mod(resid, g) == 0):
        g /= 2
    return int(stats.binom.isf(_ALPHA, _K, min(1.0, (_K - 1) * g * _EPSILON / (2 * sensitivity))))


class _FloatLaplaceUsed(Exception):
    pass


_FLOAT_SAMPLERS = ("laplace", "exponential", "standard_exponential")


class _SecureOnlyGenerator(np.random.Generator):
    """The rng handed to the student: a numpy Generator whose floating-point Laplace samplers raise.

    The secure release (:func:`dpcourse.laplace_mechanism`) draws only exact integers, so it never notices.
    """

    def __getattribute__(self, name):
        if name in _FLOAT_SAMPLERS:
            raise _FloatLaplaceUsed(f"rng.{name}")
        return super().__getattribute__(name)


def _blocked_global_laplace(*args, **kwargs):
    raise _FloatLaplaceUsed("numpy.random.laplace")


_FLOAT_MESSAGE = ("your function draws {} from numpy's floating-point sampler, which the chapter \"Noise on a "
                  "real computer\" shows to leak (some outputs are impossible under a neighbour); this exercise asks "
                  "for the secure release")


def _run(student_fn, data, categories, relation, seed, shape):
    """One call of the student's function with a fresh seeded rng, numpy's global float Laplace blocked."""
    saved = np.random.laplace
    np.random.laplace = _blocked_global_laplace
    try:
        out, failure = call_student(student_fn, (data.copy(), categories.copy(), _EPSILON, relation,
                                                 _SecureOnlyGenerator(np.random.PCG64(seed))),
                                    f"relation={relation!r}; one noisy count per category", shape=shape,
                                    forbidden=_FORBIDDEN)
    finally:
        np.random.laplace = saved
    if failure is not None and "_FloatLaplaceUsed" in failure.message:
        sampler = failure.message.split("_FloatLaplaceUsed: ")[1].split(" ")[0]
        return None, CheckResult(False, _FLOAT_MESSAGE.format(f"its noise ({sampler})"))
    return out, failure


def _secure_release_checks(student_fn, data, categories, relation, seed, out, exact) -> CheckResult | None:
    """Refuse noise that ignores ``rng`` or is not on the lattice of the secure release."""
    again, failure = _run(student_fn, data, categories, relation, seed, exact.shape)
    if failure is not None:
        return failure
    if not np.array_equal(again, out):
        return CheckResult(False, "two calls with identically seeded rng gave different counts: draw every random "
                                  "number from the rng argument (never from np.random or a generator of your own), "
                                  "so that a release can be reproduced and audited")
    other, failure = _run(student_fn, data, categories, relation, seed + 1000, exact.shape)
    if failure is not None:
        return failure
    if np.array_equal(other, out):
        return CheckResult(False, "different rng seeds gave the same counts: your noise does not come from the rng "
                                  "argument")
    # The secure release rounds to a power-of-two lattice g Z and adds g times exact integer noise: every output
    # is a multiple of g, and g is a power of two at least the spacing for the whole vector (released one
    # coordinate at a time, g is larger). The check uses a lattice 2**10 times finer still, so a release
    # with a wrong scale reaches the scale tests below; a float Laplace draw of a count lands on it with
    # probability at most about 2**-6 per category (its last 6 or more mantissa bits would all be 0).
    g = laplace_lattice(histogram_sensitivity(relation), _EPSILON, dim=exact.size).spacing * 2.0**-10
    if not np.all(np.mod(out, g) == 0):
        return CheckResult(False, "your noisy counts are not on the lattice of the secure release, so the noise comes "
                                  "from a floating-point sampler, which the chapter \"Noise on a real computer\" shows "
                                  "to leak; this exercise asks for the secure release")
    return None


def _too_little_noise(relation) -> CheckResult:
    # No measured ratio in the message: "0.51 times the right size" would let a student divide out the answer.
    return CheckResult(False, f"too little noise for relation={relation!r}: the release is not epsilon-DP. How many "
                              "counts can change, and by how much, between neighbours under this relation?")


def check_my_dp_histogram(student_fn) -> CheckResult:
    """Check ``student_fn(data, categories, epsilon, relation, rng)``, a Laplace histogram built by hand.

    It must return one noisy count per category, in the order of ``categories``, with Laplace noise of
    the right scale for ``relation`` ("add_remove" or "replace_one"), and raise ``ValueError`` on a
    record outside the declared categories. The noise is tested over 2000 categories, each test at level
    1e-6: first one-sided on the mean absolute residual (exact, |Lap(b)| is exponential with mean b), which
    refuses a scale 0.8 times the right one or less (a 1.25 epsilon guarantee), then with a two-sided
    Kolmogorov-Smirnov test on the shape. The message says what looks wrong, never the scale. A function
    that calls :func:`dpcourse.dp_histogram` or :func:`dpcourse.histogram_sensitivity` is refused.

    The exercise asks for the *secure* release, so a function is also refused if it calls numpy's
    floating-point Laplace sampler (``np.random.laplace``, or ``laplace``/``exponential`` of the rng it is
    given), if its output is not reproducible from ``rng`` (two calls with identically seeded generators differ,
    or two seeds give the same output: the rng is ignored), or if an output is not on the power-of-two
    lattice of the secure release (a float Laplace draw almost never is), or if more noise values repeat across
    categories than fresh independent noise would give at level 1e-6 (noise reused; outputs equal to 0, where
    clipping at zero lands, are not counted), or if every category with no record comes out exactly 0.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_my_dp_histogram(my_dp_histogram)")
    categories, data = _case()
    exact = exact_histogram(data, categories=categories)
    for seed, relation in enumerate(("add_remove", "replace_one")):
        out, failure = _run(student_fn, data, categories, relation, seed, exact.shape)
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
        if np.any(exact == 0) and np.all(out[exact == 0] == 0):  # 40 empty categories: a secure release, even clipped at 0, gives 2**-40
            return CheckResult(False, "every category with no record came out exactly 0: it needs noise too, or a "
                                      "neighbour with one record there is told apart from it")
        # 0 is also where a release clipped at zero lands (post-processing): only other values count as repeats
        kept = resid[out != 0]
        if kept.size - np.unique(kept).size > _max_repeats(resid, histogram_sensitivity(relation)):
            return CheckResult(False, "many categories got exactly the same noise: draw fresh, independent noise for "
                                      "every category; noise shared between categories cancels in their difference")
        refusal = _secure_release_checks(student_fn, data, categories, relation, seed, out, exact)
        if refusal is not None:
            return refusal
        if np.corrcoef(out, exact)[0, 1] < 0.5:
            return CheckResult(False, "your noisy counts are not centred on the exact counts: is the i-th output the "
                                      "count of categories[i] (in the given order, not sorted)?")
        scale = histogram_sensitivity(relation) / _EPSILON
        observed = float(np.mean(np.abs(resid)))  # the mean absolute value estimates the Laplace scale
        # One-sided test against too little noise. Under Lap(scale), |Z| is exponential with mean scale, so
        # sum |Z_j| / scale ~ Gamma(K, 1) exactly; reject if that sum is improbably small (level 1e-6). With
        # K = 2000 this refuses scales of 0.8x and below, which the two-sided KS test lets through.
        if stats.gamma.cdf(observed * _K / scale, a=_K) < _ALPHA:
            return _too_little_noise(relation)
        p = stats.kstest(resid, stats.laplace(scale=scale).cdf).pvalue
        if p > _ALPHA:
            continue
        if observed < scale:
            return _too_little_noise(relation)
        return CheckResult(False, f"too much noise for relation={relation!r}. Over-noising is safe but wastes accuracy: recheck the sensitivity "
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
