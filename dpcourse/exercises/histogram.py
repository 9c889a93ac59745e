"""Checkers for the exercises of the chapter "Histograms and vector-valued queries"."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from ..lattice import laplace_lattice
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
_EPSILON_ONE = 1.0        # the grader's second case: epsilon exactly 1, where a special case would hide


@dataclass(frozen=True)
class _Case:
    categories: np.ndarray
    data: np.ndarray
    epsilon: float
    seeds: tuple          # per relation: (seed of the first call and of its repetition, another seed)
    bad_seed: int         # the rng handed with the record outside the categories


def _case(rng=None, epsilon=None) -> _Case:
    """The data of :func:`check_my_dp_histogram`: the book's, or drawn from ``rng``.

    Drawn: K categories (distinct integers, not sorted), each with 1 to 40 records except 40 to 80 empty
    ones (so a release that leaves empty categories at 0 is seen, the empty ones alone are enough for a
    test of their noise, and the counts vary enough for a wrong order to show against noise of scale at most
    4), epsilon in hundredths (or ``epsilon`` when given), and the seeds of every rng handed to the student's
    function.
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
    epsilon = round(float(rng.uniform(*_EPSILON_RANGE)), 2) if epsilon is None else epsilon
    seeds = tuple(tuple(int(s) for s in rng.integers(2**63, size=2)) for _ in range(2))
    return _Case(categories, data, epsilon, seeds, int(rng.integers(2**63)))


def _max_repeats(resid, sensitivity, k=_K, epsilon=_EPSILON) -> int:
    """The most absolute noise values that fresh independent noise repeats across categories, at level 1e-6.

    Discrete Laplace noise of the right scale b = sensitivity / epsilon on a lattice g Z gives each value
    probability at most tanh(g / 2b) <= g / 2b, so each absolute value probability at most g / b (the value and
    its negative); given the earlier categories, one repeats an earlier absolute value with probability at most
    (K - 1) g / b, so the number of repeats is dominated by that binomial. Absolute values, so that noise z and
    -z on two categories (their sum released exactly) counts too. g is the coarsest power of two the residuals
    are multiples of: at most sensitivity 2**-20 for laplace_mechanism (limit 11 at the book's 2000 categories
    and epsilon).
    """
    g = 0.5  # whole-number residuals are refused before
    while g > 2.0**-80 and not np.all(np.mod(resid, g) == 0):
        g /= 2
    return int(stats.binom.isf(_ALPHA, k, min(1.0, (k - 1) * g * epsilon / sensitivity)))


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
    # is a multiple of g, the library's spacing for the whole vector at the relation's sensitivity (released one
    # coordinate at a time, or on a coarser lattice, g is a larger power of two, so a multiple of it). A float
    # Laplace draw of a count lands on it with probability about g / (its last bit), tiny, so K of them never do;
    # nor does a float draw rounded to a finer grid. (A release at a wrong sensitivity is on another lattice:
    # the scale tests, run before, name that slip.)
    g = laplace_lattice(histogram_sensitivity(relation), case.epsilon, dim=exact.size).spacing
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


def _small_count_noise(out, exact, scale) -> np.ndarray:
    """The residuals of the categories with 0 or 1 records that fresh noise leaves exponential of mean ``scale``.

    Empty categories: every nonzero output (a release clipped at 0 keeps exactly the positive noise). One record:
    the positive residuals. Each selection depends only on the sign of the noise, so given it the absolute
    residuals are independent Exp(scale) (the noise is symmetric), whatever clipping at 0 did to the others.
    """
    resid = out - exact
    keep = ((exact == 0) & (out != 0)) | ((exact == 1) & (resid > 0))
    return np.abs(resid[keep]) / scale


def _too_small_overall(resid, exact, scale) -> bool:
    """Whether the absolute residuals are improbably small for Laplace noise of scale ``scale`` (level 1e-6 / 2).

    Clipping at 0 (post-processing) turns the residual of a count c into max(Z, -c), so the statistic is one it
    leaves alone: T = Z for positive noise, min(|Z|, c) for negative noise. The T_j / scale are independent,
    with E exp(-theta T / scale) = (1 + theta exp(-(1 + theta) c / scale) / 2) / (1 + theta) (half Exp(1), half
    Exp(1) capped at c / scale), so P(sum T_j / scale <= s) <= min over theta of exp(theta s + sum log of
    those) (Chernoff). At K >= 2000 and counts far above the scale the cut on mean |Z| / scale is about 0.88, so
    0.8 times the right scale is refused (more than four standard deviations of its statistic).
    """
    a = exact / scale
    t = np.where(resid > 0, resid, np.minimum(-resid, exact)) / scale
    s = float(np.sum(t))

    def log_bound(theta):
        return theta * s + float(np.sum(np.log1p(0.5 * theta * np.exp(-(1 + theta) * a)))) - a.size * math.log1p(theta)

    best = optimize.minimize_scalar(log_bound, bounds=(0.0, 50.0), method="bounded")
    return min(best.fun, log_bound(0.0)) < math.log(_ALPHA / 2)


def _scale_checks(resid, exact, small, relation, scale) -> CheckResult | None:
    """The noise scale: too little overall, too little on the categories with 0 or 1 records, or the wrong shape."""
    observed = float(np.mean(np.abs(resid)))  # the mean absolute value estimates the Laplace scale
    # One-sided tests against too little noise, each at level 1e-6 / 2 (1e-6 for the two), which the two-sided KS
    # test lets through: on all the categories (a bound that holds for a release clipped at 0 too), and on the
    # categories with 0 or 1 records alone (dozens of them): there sum |Z_j| / scale ~ Gamma(m, 1) exactly, so
    # noise made small just where a record's presence shows most is seen.
    if _too_small_overall(resid, exact, scale):
        return _too_little_noise(relation)
    if small.size and stats.gamma.cdf(float(np.sum(small)), a=small.size) < _ALPHA / 2:
        return _too_little_noise(relation)
    p = stats.kstest(resid, stats.laplace(scale=scale).cdf).pvalue
    if p > _ALPHA:
        return None
    if observed < scale:
        return _too_little_noise(relation)
    return CheckResult(False, f"too much noise for relation={relation!r}. Over-noising is safe but wastes accuracy: "
                              "recheck the sensitivity under this relation and the scale of the Laplace noise")


def _check_release(student_fn, case, relation, seeds) -> CheckResult | None:
    """Every check of one relation on one case; None if the release passes."""
    exact = exact_histogram(case.data, categories=case.categories)
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
    # 40+ empty categories: a secure release, even clipped at 0, gives some of them a nonzero count
    if np.any(exact == 0) and np.all(out[exact == 0] == 0):
        return CheckResult(False, "every category with no record came out exactly 0: it needs noise too, or a "
                                  "neighbour with one record there is told apart from it")
    # 0 is also where a release clipped at zero lands (post-processing): only other values count as repeats
    kept = np.abs(resid[out != 0])
    sensitivity = histogram_sensitivity(relation)
    if kept.size - np.unique(kept).size > _max_repeats(resid, sensitivity, exact.size, case.epsilon):
        return CheckResult(False, "many categories got exactly the same noise, or the same noise up to its sign: "
                                  "draw fresh, independent noise for every category; noise shared between "
                                  "categories cancels in their difference or their sum")
    if np.corrcoef(out, exact)[0, 1] < 0.5:
        return CheckResult(False, "your noisy counts are not centred on the exact counts: is the i-th output the "
                                  "count of categories[i] (in the given order, not sorted)?")
    scale = sensitivity / case.epsilon
    refusal = _scale_checks(resid, exact, _small_count_noise(out, exact, scale), relation, scale)
    if refusal is not None:
        return refusal
    return _secure_release_checks(student_fn, case, relation, seeds, out, exact)


def check_my_dp_histogram(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(data, categories, epsilon, relation, rng)``, a Laplace histogram built by hand.

    It must return one noisy count per category, in the order of ``categories``, with Laplace noise of
    the right scale for ``relation`` ("add_remove" or "replace_one"), and raise ``ValueError`` on a
    record outside the declared categories. The noise is tested over 2000 or more categories: first one-sided
    on the absolute residuals (|Lap(b)| is exponential with mean b; a Chernoff bound that a release clipped at 0
    meets too), which refuses a scale 0.8 times the right one or less (a 1.25 epsilon guarantee), and on the
    categories with 0 or 1 records alone (exact Gamma; each test at level 1e-6 / 2), then with a two-sided
    Kolmogorov-Smirnov test on the shape (level 1e-6). The
    message says what looks wrong, never the scale. A function that calls :func:`dpcourse.dp_histogram` or
    :func:`dpcourse.histogram_sensitivity` is refused.

    With ``rng=None`` the data, epsilon and seeds are the book's; with a :class:`numpy.random.Generator` there
    are two cases drawn from it (2001 to 4000 categories each, every seed handed to the student), one at an
    epsilon drawn in [0.5, 2] and one at epsilon exactly 1.

    The exercise asks for the *secure* release. Every rng handed to the function is a plain
    ``numpy.random.default_rng(seed)``, and the release is judged by what it returns: a function is refused if
    more absolute noise values repeat across categories than fresh independent noise would give at level 1e-6
    (noise reused, or z and -z on two categories; outputs equal to 0, where clipping at zero lands, are not
    counted), if every category with no record comes out exactly 0, if the scale tests fail, if an output is
    not a multiple of the spacing of :func:`dpcourse.laplace_lattice` for the relation's sensitivity, epsilon
    and K coordinates (the secure release's lattice; one coordinate at a time, or a coarser power of two, gives
    multiples of it; a floating-point Laplace draw, from ``np.random.laplace``, ``rng.laplace`` or an inverse
    CDF, even rounded to a finer grid, almost never is), or if its output is not reproducible from ``rng`` (two
    calls with identically seeded generators differ, or two seeds give the same output: the rng is ignored).
    Each statistical test is at level 1e-6 for a correct release, clipped at 0 or not.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_my_dp_histogram(my_dp_histogram)")
    gen = check_rng(rng)
    cases = [_case(gen)] if gen is None else [_case(gen), _case(gen, epsilon=_EPSILON_ONE)]
    for case in cases:
        for seeds, relation in zip(case.seeds, ("add_remove", "replace_one")):
            refusal = _check_release(student_fn, case, relation, seeds)
            if refusal is not None:
                return refusal
    case = cases[0]
    categories, data, epsilon = case.categories, case.data, case.epsilon
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
