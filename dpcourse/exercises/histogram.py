"""Checkers for the exercises of the chapter "Histograms and vector-valued queries"."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..discrete import laplace_lattice
from ..histogram import dp_histogram, exact_histogram, histogram_sensitivity
from . import CheckResult, Forbidden, call_student
from ._draws import check_rng

# The exercise asks for the histogram built by hand from laplace_mechanism (allowed, with exact_histogram).
_FORBIDDEN = Forbidden(dp_histogram, histogram_sensitivity, allow=(exact_histogram,))

__all__ = ["check_my_dp_histogram"]

_K = 2000      # many categories: one call gives 2000 noise draws to test
_EPSILON = 0.5
_ALPHA = 1e-6  # level of each statistical test: a correct answer fails with probability below 1e-6
# The grader's cases draw the number of categories from [2001, 4000]: at the smallest size the one-sided test
# still refuses noise 0.8 times the right scale (its cut on mean |Z| / b is 0.89, five standard deviations of
# the 0.8x statistic above 0.8), which the exercise text promises.
_K_RANGE = (2001, 4000)   # never the book's 2000
_EPSILON_RANGE = (0.5, 2.0)


@dataclass(frozen=True)
class _Case:
    categories: np.ndarray
    data: np.ndarray
    epsilon: float
    seeds: tuple          # per relation: (seed of the first call and of its repetition, another seed)
    bad_seed: int         # the rng handed with the record outside the categories


def _case(rng=None) -> _Case:
    """The data of :func:`check_my_dp_histogram`: the book's, or drawn from ``rng``.

    Drawn: K categories (distinct integers, not sorted), each with 1 to 40 records except 40 to 80 empty
    ones (so a release that leaves empty categories at 0 is seen, and the counts vary enough for a wrong
    order to show against noise of scale at most 4), epsilon in hundredths, and the seeds of every rng
    handed to the student's function.
    """
    if rng is None:
        gen = np.random.default_rng(20260)
        categories = gen.permutation(np.arange(100, 100 + _K))  # deliberately not sorted
        counts = 2 * (np.arange(_K) % 50)  # varied counts, so that a wrong order shows
        data = gen.permutation(np.repeat(categories, counts))
        return _Case(categories, data, _EPSILON, ((0, 1000), (1, 1001)), 7)
    k = int(rng.integers(_K_RANGE[0], _K_RANGE[1] + 1))
    categories = rng.choice(10**6, size=k, replace=False).astype(np.int64) - int(rng.integers(0, 10**6))
    counts = rng.integers(1, 41, size=k)
    counts[rng.choice(k, size=int(rng.integers(40, 81)), replace=False)] = 0
    data = rng.permutation(np.repeat(categories, counts))
    epsilon = round(float(rng.uniform(*_EPSILON_RANGE)), 2)
    seeds = tuple(tuple(int(s) for s in rng.integers(2**63, size=2)) for _ in range(2))
    return _Case(categories, data, epsilon, seeds, int(rng.integers(2**63)))


def _max_repeats(resid, sensitivity, k=_K, epsilon=_EPSILON) -> int:
    """The most noise values that fresh independent noise repeats across categories, at level 1e-6.

    Discrete Laplace noise of the right scale b = sensitivity / epsilon on a lattice g Z gives each value
    probability at most tanh(g / 2b) <= g / 2b; given the earlier categories, one repeats an earlier value with
    probability at most (K - 1) g / 2b, so the number of repeats is dominated by that binomial. g is the coarsest
    power of two the residuals are multiples of: at most sensitivity 2**-20 for laplace_mechanism (limit 8).
    """
    g = 0.5  # whole-number residuals are refused before
    while g > 2.0**-80 and not np.all(np.mod(resid, g) == 0):
        g /= 2
    return int(stats.binom.isf(_ALPHA, k, min(1.0, (k - 1) * g * epsilon / (2 * sensitivity))))


def _run(student_fn, case, relation, seed, shape):
    """One call of the student's function on the case, with a fresh plain Generator seeded with ``seed``."""
    return call_student(student_fn, (case.data.copy(), case.categories.copy(), case.epsilon, relation,
                                     np.random.default_rng(seed)),
                        f"relation={relation!r}; one noisy count per category", shape=shape, forbidden=_FORBIDDEN)


def _secure_release_checks(student_fn, case, relation, seeds, out, exact) -> CheckResult | None:
    """Refuse noise that is not on the lattice of the secure release, or that does not come from ``rng``.

    Behavioural, with plain Generators only: the output must lie on the lattice, the same seed must give the
    same counts, and another seed other counts.
    """
    # The secure release rounds to a power-of-two lattice g Z and adds g times exact integer noise: every output
    # is a multiple of g, and g is a power of two at least the spacing for the whole vector (released one
    # coordinate at a time, g is larger). The check uses a lattice 2**10 times finer still, so a release
    # with a wrong scale reaches the scale tests below; a float Laplace draw of a count lands on it with
    # probability at most about 2**-4 per category (its last bits would all be 0), so K of them never do.
    g = laplace_lattice(histogram_sensitivity(relation), case.epsilon, dim=exact.size).spacing * 2.0**-10
    if not np.all(np.mod(out, g) == 0):
        return CheckResult(False, "your noisy counts are not on the lattice of the secure release, so the noise comes "
                                  "from a floating-point sampler (such as np.random.laplace or rng.laplace), which the "
                                  "chapter \"Noise on a real computer\" shows to leak; this exercise asks for the "
                                  "secure release")
    again, failure = _run(student_fn, case, relation, seeds[0], exact.shape)
    if failure is not None:
        return failure
    if not np.array_equal(again, out):
        return CheckResult(False, "two calls with identically seeded rng gave different counts: draw every random "
                                  "number from the rng argument (never from np.random or a generator of your own), "
                                  "so that a release can be reproduced and audited")
    other, failure = _run(student_fn, case, relation, seeds[1], exact.shape)
    if failure is not None:
        return failure
    if np.array_equal(other, out):
        return CheckResult(False, "different rng seeds gave the same counts: your noise does not come from the rng "
                                  "argument")
    return None


def _too_little_noise(relation) -> CheckResult:
    # No measured ratio in the message: "0.51 times the right size" would let a student divide out the answer.
    return CheckResult(False, f"too little noise for relation={relation!r}: the release is not epsilon-DP. How many "
                              "counts can change, and by how much, between neighbours under this relation?")


def check_my_dp_histogram(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(data, categories, epsilon, relation, rng)``, a Laplace histogram built by hand.

    It must return one noisy count per category, in the order of ``categories``, with Laplace noise of
    the right scale for ``relation`` ("add_remove" or "replace_one"), and raise ``ValueError`` on a
    record outside the declared categories. The noise is tested over 2000 categories, each test at level
    1e-6: first one-sided on the mean absolute residual (exact, |Lap(b)| is exponential with mean b), which
    refuses a scale 0.8 times the right one or less (a 1.25 epsilon guarantee), then with a two-sided
    Kolmogorov-Smirnov test on the shape. The message says what looks wrong, never the scale. A function
    that calls :func:`dpcourse.dp_histogram` or :func:`dpcourse.histogram_sensitivity` is refused.

    With ``rng=None`` the data, epsilon and seeds are the book's; with a :class:`numpy.random.Generator` they
    are drawn from it (2001 to 4000 categories, epsilon in [0.5, 2], every seed handed to the student).

    The exercise asks for the *secure* release. Every rng handed to the function is a plain
    ``numpy.random.default_rng(seed)``, and the release is judged by what it returns: a function is refused if
    an output is not on the power-of-two lattice of the secure release (a floating-point Laplace draw, from
    ``np.random.laplace``, ``rng.laplace`` or an inverse CDF, almost never is), if its output is not
    reproducible from ``rng`` (two calls with identically seeded generators differ, or two seeds give the same
    output: the rng is ignored), if more noise values repeat across categories than fresh independent noise
    would give at level 1e-6 (noise reused; outputs equal to 0, where clipping at zero lands, are not
    counted), or if every category with no record comes out exactly 0.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_my_dp_histogram(my_dp_histogram)")
    case = _case(check_rng(rng))
    categories, data, epsilon, k = case.categories, case.data, case.epsilon, case.categories.size
    exact = exact_histogram(data, categories=categories)
    for seeds, relation in zip(case.seeds, ("add_remove", "replace_one")):
        out, failure = _run(student_fn, case, relation, seeds[0], exact.shape)
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
        if np.any(exact == 0) and np.all(out[exact == 0] == 0):  # 40+ empty categories: a secure release, even clipped at 0, gives 2**-40
            return CheckResult(False, "every category with no record came out exactly 0: it needs noise too, or a "
                                      "neighbour with one record there is told apart from it")
        # 0 is also where a release clipped at zero lands (post-processing): only other values count as repeats
        kept = resid[out != 0]
        if kept.size - np.unique(kept).size > _max_repeats(resid, histogram_sensitivity(relation), k, epsilon):
            return CheckResult(False, "many categories got exactly the same noise: draw fresh, independent noise for "
                                      "every category; noise shared between categories cancels in their difference")
        refusal = _secure_release_checks(student_fn, case, relation, seeds, out, exact)
        if refusal is not None:
            return refusal
        if np.corrcoef(out, exact)[0, 1] < 0.5:
            return CheckResult(False, "your noisy counts are not centred on the exact counts: is the i-th output the "
                                      "count of categories[i] (in the given order, not sorted)?")
        scale = histogram_sensitivity(relation) / epsilon
        observed = float(np.mean(np.abs(resid)))  # the mean absolute value estimates the Laplace scale
        # One-sided test against too little noise. Under Lap(scale), |Z| is exponential with mean scale, so
        # sum |Z_j| / scale ~ Gamma(K, 1) exactly; reject if that sum is improbably small (level 1e-6). With
        # K >= 2000 this refuses scales of 0.8x and below, which the two-sided KS test lets through.
        if stats.gamma.cdf(observed * k / scale, a=k) < _ALPHA:
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
        student_fn(bad, categories.copy(), epsilon, "add_remove", np.random.default_rng(case.bad_seed))
    except ValueError:
        pass
    except Exception as exc:  # the student's code may raise anything; report it as feedback
        return CheckResult(False, f"on a record outside the categories raise ValueError, not {type(exc).__name__}")
    else:
        return CheckResult(False, "a record outside the declared categories was silently accepted; raise ValueError "
                                  "instead (dropping it quietly would hide a data error)")
    return CheckResult(True, "counts in the right order, noise of the right scale for both relations, and bad "
                             "records refused.")
