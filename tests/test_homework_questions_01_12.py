"""The graded questions of hw01-hw12 (issue 36): checkers the grader can defend, and per-student numbers.

Coding questions: each checker takes the grader's ``rng`` and draws its cases from it. With every case drawn
afresh, an honest answer (written here by hand, from the chapters' solutions) passes for any grader rng, each
recognised slip fails, a release that is not private fails with plain ``numpy.random.Generator`` objects only,
a table of the book's cases fails, and everything handed to the student's function is plain data. With
``rng=None`` the book's self-checks give the verdicts the chapters store.

Numeric questions: every variant pool holds at least 200 equally likely combinations without the book's own,
and on every member the expected answer passes and each named slip fails.
"""

import hashlib
import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import nbformat
import numpy as np
import pytest
from scipy import optimize, special

import dpcourse
from dpcourse import gaussian_delta, laplace_mechanism
from dpcourse.exercises import audit as ex_audit
from dpcourse.exercises import composition as ex_composition
from dpcourse.exercises import composition_basics as ex_cb
from dpcourse.exercises import gaussian as ex_gaussian
from dpcourse.exercises import histogram as ex_histogram
from dpcourse.exercises import laplace as ex_laplace
from dpcourse.exercises import noise as ex_noise
from dpcourse.exercises import promise as ex_promise
from dpcourse.exercises import queries as ex_queries
from dpcourse.exercises import randomized_response as ex_rr
from dpcourse.exercises import selection as ex_selection
from dpcourse.homework import questions
from dpcourse.homework import registry
from dpcourse.laplace import counting_queries_sample_size, laplace_max_error_bound

ROOT = Path(__file__).resolve().parents[1]
GRADER_SEEDS = (101, 202)


def grader(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------------------
# Honest answers, written by hand from the chapters' solutions (no call of the code each question forbids)


def hockey(p, q, epsilon):
    return float(np.maximum(p - np.exp(epsilon) * q, 0).sum())


def rr_estimate(responses, epsilon):
    t = np.exp(epsilon) / (1 + np.exp(epsilon))
    return (np.mean(responses) - (1 - t)) / (2 * t - 1)


def inverse_cdf(u, scale):
    return -scale * np.sign(u - 0.5) * np.log1p(-2 * np.abs(u - 0.5))


def plan_epsilon(epsilons, parts):
    whole = sum(e for e, p in zip(epsilons, parts) if p is None)
    per_part = {}
    for e, p in zip(epsilons, parts):
        if p is not None:
            per_part[p] = per_part.get(p, 0.0) + e
    return whole + max(per_part.values(), default=0.0)


def _counts(data, categories):
    data, categories = np.asarray(data), np.asarray(categories)
    if not np.isin(data, categories).all():
        raise ValueError("a record is not one of the categories")
    order = np.argsort(categories)
    return np.bincount(order[np.searchsorted(categories[order], data)], minlength=len(categories)).astype(float)


def histogram_with(sensitivity, noise="secure"):
    """A histogram by hand with ``sensitivity(relation)`` and noise from ``noise``."""
    def my_dp_histogram(data, categories, epsilon, relation, rng):
        counts, sens = _counts(data, categories), sensitivity(relation)
        if noise == "secure":
            return laplace_mechanism(counts, sens, epsilon, rng=rng)
        if noise == "secure_fresh":                 # secure, but from a generator of its own
            return laplace_mechanism(counts, sens, epsilon, rng=None)
        if noise == "secure_fixed":                 # secure, with a fixed seed of its own
            return laplace_mechanism(counts, sens, epsilon, rng=12345)
        if noise == "rng_float":                    # numpy's float sampler of the rng it is given
            return counts + rng.laplace(0.0, sens / epsilon, size=counts.size)
        if noise == "global_float":                 # numpy's global float sampler, the rng ignored
            return counts + np.random.laplace(0.0, sens / epsilon, size=counts.size)
        raise AssertionError(noise)
    return my_dp_histogram


def right_sensitivity(relation):
    return 1.0 if relation == "add_remove" else 2.0


honest_histogram = histogram_with(right_sensitivity)


def em_probabilities(utilities, sensitivity, epsilon):
    w = np.exp(epsilon * (utilities - utilities.max()) / (2 * sensitivity))
    return w / w.sum()


def group_delta(epsilon, delta, k):
    return delta * sum(math.exp(j * epsilon) for j in range(k))


def analytic_sigma(epsilon, delta):
    return optimize.brentq(lambda s: gaussian_delta(epsilon, 1.0 / s) - delta, 1e-3, 1e4, xtol=1e-13, rtol=1e-13)


def optimal_delta(epsilon, k, epsilon_total):
    j = np.arange(k + 1)
    log_c = special.gammaln(k + 1) - special.gammaln(j + 1) - special.gammaln(k - j + 1)
    x = epsilon_total + j * epsilon - (k - j) * epsilon
    keep = x < 0
    log_terms = log_c[keep] + (k - j[keep]) * epsilon + np.log(-np.expm1(x[keep])) - k * np.logaddexp(0.0, epsilon)
    return float(np.exp(special.logsumexp(log_terms))) if keep.any() else 0.0


def dp_mean(x, lower, upper, epsilon, rng):   # the chapter's solution (its float Laplace is the book's answer)
    return np.clip(x, lower, upper).mean() + rng.laplace(0.0, (upper - lower) / (len(x) * epsilon))


def bernoulli_exp(num, den, rng):
    k = 1
    while rng.integers(0, den * k) < num:
        k += 1
    return k % 2 == 1


def lattice_scale(sensitivity, epsilon, spacing, dim):
    return spacing * (math.floor(sensitivity / spacing) + dim) / epsilon


def svt_scales(epsilon, c, sensitivity):
    return 2 * sensitivity / epsilon, 4 * c * sensitivity / epsilon


# label -> (checker, honest answer)
CODE = {
    "ex-promise-hockey": (ex_promise.check_hockey_stick, hockey),
    "ex-rr-estimator": (ex_rr.check_rr_estimator, rr_estimate),
    "ex-laplace-inverse-cdf": (ex_laplace.check_inverse_cdf_sampler, inverse_cdf),
    "ex-cb-plan": (ex_cb.check_plan_epsilon, plan_epsilon),
    "ex-hist-implement": (ex_histogram.check_my_dp_histogram, honest_histogram),
    "ex-sel-em-code": (ex_selection.check_em_probabilities, em_probabilities),
    "ex-approx-group-code": (ex_gaussian.check_group_delta, group_delta),
    "ex-gaussian-analytic-code": (ex_gaussian.check_analytic_sigma, analytic_sigma),
    "ex-comp-optimal-delta": (ex_composition.check_optimal_delta, optimal_delta),
    "ex-audit-fix-mean": (ex_audit.check_clamped_mean, dp_mean),
    "ex-noise-bernoulli": (ex_noise.check_bernoulli_exp, bernoulli_exp),
    "ex-noise-lattice-scale": (ex_noise.check_lattice_scale, lattice_scale),
    "ex-many-svt-scales": (ex_queries.check_svt_scales, svt_scales),
}
SLOW = {"ex-audit-fix-mean", "ex-noise-bernoulli"}   # about a second per run: one grader rng


def _question(label):
    return next(q for hw in (f"hw{i:02d}" for i in range(1, 13)) for q in questions(hw) if q.label == label)


def test_every_question_of_hw01_to_hw12_is_covered():
    labels = {q.label: q.kind for hw in (f"hw{i:02d}" for i in range(1, 13)) for q in questions(hw)}
    assert {k for k, v in labels.items() if v == "code"} == set(CODE)
    assert {k for k, v in labels.items() if v == "number"} == set(NUMERIC)
    for label, (checker, _) in CODE.items():   # the registry grades with the chapter's checker
        assert _question(label).checker is checker


@pytest.mark.parametrize("label", sorted(CODE))
def test_honest_answer_passes_the_hidden_test_for_grader_rngs(label):
    q = _question(label)
    _, honest = CODE[label]
    for seed in GRADER_SEEDS[:1] if label in SLOW else GRADER_SEEDS:
        verdict = q.tests[0].run(honest, {}, grader(seed))
        assert verdict.passed, (label, seed, verdict.message)
    assert q.tests[0].run(honest, {}, None).passed   # the book's cases


@pytest.mark.parametrize("label", sorted(set(CODE) - SLOW))
def test_honest_answer_passes_for_many_grader_rngs(label):
    checker, honest = CODE[label]
    if label == "ex-gaussian-analytic-code":   # its root finder takes 0.1 s a run
        seeds = range(5)
    else:
        seeds = range(3 if label in ("ex-hist-implement", "ex-rr-estimator") else 40)
    for seed in seeds:
        verdict = checker(honest, rng=grader(1000 + seed))
        assert verdict.passed, (label, seed, verdict.message)


# ---------------------------------------------------------------------------------------------------------
# What reaches the student's function is plain data; a generator is a plain PCG64 Generator


def _plain(x, depth=0):
    if depth > 8:
        return False
    if x is None or isinstance(x, (bool, int, float, str)):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "biuf"
    if isinstance(x, np.random.Generator):
        return type(x) is np.random.Generator and type(x.bit_generator) is np.random.PCG64
    if isinstance(x, (list, tuple)):
        return all(_plain(v, depth + 1) for v in x)
    if isinstance(x, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in x.items())
    return False


@pytest.mark.parametrize("label", sorted(set(CODE) - SLOW))
def test_the_student_gets_plain_data_only(label):
    checker, honest = CODE[label]
    seen = []

    def spy(*args):
        seen.append(args)
        return honest(*args)

    assert checker(spy, rng=grader(7)).passed
    assert seen and all(_plain(list(args)) for args in seen), label


def test_the_student_gets_plain_generators_in_the_release_questions():
    for checker, honest, calls in ((ex_audit.check_clamped_mean, dp_mean, 30),
                                   (ex_noise.check_bernoulli_exp, bernoulli_exp, 30),
                                   (ex_histogram.check_my_dp_histogram, honest_histogram, 3)):
        seen = []

        def spy(*args, _honest=honest, _seen=seen):
            if len(_seen) < calls:
                _seen.append(args)
            return _honest(*args)

        assert checker(spy, rng=grader(8)).passed
        assert all(_plain(list(args)) for args in seen)
        assert all(type(args[-1]) is np.random.Generator for args in seen)


# ---------------------------------------------------------------------------------------------------------
# Recognised slips and releases that are not private fail under a grader rng


def _vary(fn, how):
    return lambda *args: how(fn(*args), *args)


SLIPS = {
    "ex-promise-hockey": [
        (lambda p, q, e: float(np.abs(p - np.exp(e) * q).sum()), "summed |p - e^eps q|"),
        (lambda p, q, e: float((p - np.exp(e) * q).sum()), "over all outcomes"),
        (lambda p, q, e: hockey(q, p, e), "roles of p and q swapped"),
    ],
    "ex-rr-estimator": [
        (lambda r, e: float(np.mean(r)), "reports are not the bits"),
        (lambda r, e: float(np.clip(rr_estimate(r, e), 0.0, 1.0)), "never leave [0, 1]"),
        (lambda r, e: rr_estimate(r, 1.0), "biased"),                  # the truth probability of epsilon = 1
    ],
    "ex-laplace-inverse-cdf": [
        (lambda u, b: -inverse_cdf(u, b), "mirrored"),
        (lambda u, b: inverse_cdf(u, 1.0), "wrong scale"),
        (lambda u, b: np.where(u < 0.5, b * np.log(2 * u), -2 * b * np.log(2 - 2 * u)), "right on one side"),
    ],
    "ex-cb-plan": [
        (lambda e, p: sum(e), "added every release"),
        (lambda e, p: max(e), "largest single epsilon"),
        (lambda e, p: plan_epsilon(e, p) - sum(x for x, y in zip(e, p) if y is None), "whole-dataset releases"),
    ],
    "ex-sel-em-code": [
        (lambda u, s, e: em_probabilities(u, s, 2 * e), "only 2 * epsilon-DP"),
        (lambda u, s, e: em_probabilities(u, 0.5, 1.0), "ignore epsilon and the sensitivity"),
        (lambda u, s, e: np.exp(e * u / (2 * s)) / np.exp(e * u / (2 * s)).sum(), ""),   # overflows at 1e6
    ],
    "ex-approx-group-code": [
        (lambda e, d, k: k * d, "k * delta"),
        (lambda e, d, k: k * math.exp((k - 1) * e) * d, "valid upper bound"),
        (lambda e, d, k: group_delta(e, d, k) * math.exp(e) if k > 1 else d, "exponents"),
    ],
    "ex-gaussian-analytic-code": [
        (lambda e, d: math.sqrt(2 * math.log(1.25 / d)) / e, "classic formula"),
        (lambda e, d: 1 / analytic_sigma(e, d), "mu = Delta / sigma"),
        (lambda e, d: 0.9999 * analytic_sigma(e, d), "not the smallest sigma"),
    ],
    "ex-comp-optimal-delta": [
        (lambda e, k, t: 0.0, "off"),
        (lambda e, k, t: optimal_delta(e, k, t) * 1.001, "off"),
        (lambda e, k, t: optimal_delta(e, k, max(0.0, (k - 2 * max(0, math.ceil((k * e - t) / (2 * e) - 1e-12))) * e)),
         "grid point"),
    ],
    "ex-noise-lattice-scale": [
        (lambda s, e, g, d: s / e, "exact reals"),
        (lambda s, e, g, d: (math.floor(s / g) + d) / e, "lattice steps"),
        (lambda s, e, g, d: g * (math.floor(s / g) + 1) / e, "one coordinate"),
        (lambda s, e, g, d: g * (s / g + d / 2) / e, "Not yet"),
    ],
    "ex-many-svt-scales": [
        (lambda e, c, s: (s / e, 4 * c * s / e), "threshold scale is off"),
        (lambda e, c, s: (2 * s / e, 4 * s / e), "does not grow with c"),
        (lambda e, c, s: (2 * s / e, 2 * c * s / e), "half of what the proof needs"),
    ],
}


@pytest.mark.parametrize("label, index", [(label, i) for label, slips in SLIPS.items() for i in range(len(slips))])
def test_each_recognised_slip_fails_under_a_grader_rng(label, index):
    checker, _ = CODE[label]
    slip, words = SLIPS[label][index]
    for seed in GRADER_SEEDS:
        verdict = checker(slip, rng=grader(seed))
        assert not verdict.passed and words in str(verdict), (label, index, seed, verdict.message)


@pytest.mark.parametrize("name, fn, words", [
    ("factor two under replace-one", histogram_with(lambda r: 1.0), "too little noise for relation='replace_one'"),
    ("0.8 times the scale", histogram_with(lambda r: 0.8 * right_sensitivity(r)), "too little noise"),
    ("rng.laplace", histogram_with(right_sensitivity, "rng_float"), "not on the lattice of the secure release"),
    ("np.random.laplace", histogram_with(right_sensitivity, "global_float"), "not on the lattice"),
    ("secure noise from a generator of its own", histogram_with(right_sensitivity, "secure_fresh"),
     "identically seeded"),
    ("secure noise with a fixed seed", histogram_with(right_sensitivity, "secure_fixed"), "different rng seeds"),
    ("one noise draw for all", lambda d, c, e, r, rng: _counts(d, c) + laplace_mechanism(0.0, right_sensitivity(r), e,
                                                                                          rng=rng), "same noise"),
])
def test_a_histogram_that_is_not_private_fails(name, fn, words):
    for seed in GRADER_SEEDS:
        verdict = ex_histogram.check_my_dp_histogram(fn, rng=grader(seed))
        assert not verdict.passed and words in verdict.message, (name, seed, verdict.message)


def _rounded_float(data, categories, epsilon, relation, rng):
    # numpy's float Laplace sampler, rounded to the grid 2**-40: finer than the secure release's lattice
    counts = _counts(data, categories)
    return np.round((counts + rng.laplace(0.0, right_sensitivity(relation) / epsilon, counts.size)) / 2**-40) * 2**-40


def _paired_noise(data, categories, epsilon, relation, rng):
    # secure noise z on one category of each pair and -z on the other: each pair's sum is released exactly
    counts = _counts(data, categories)
    z = laplace_mechanism(np.zeros((counts.size + 1) // 2), right_sensitivity(relation), epsilon, rng=rng)
    return counts + np.concatenate([z, -z])[:counts.size]


def _little_noise_on_small_counts(data, categories, epsilon, relation, rng):
    # the right noise, except 1000 times less on the categories with 0 or 1 records (where presence shows most)
    counts = _counts(data, categories)
    out = laplace_mechanism(counts, right_sensitivity(relation), epsilon, rng=rng)
    small = counts <= 1
    out[small] = laplace_mechanism(counts[small], right_sensitivity(relation) / 1000, epsilon, rng=rng)
    return out


def _slip_at_epsilon_one(data, categories, epsilon, relation, rng):
    # the sensitivity of add/remove under both relations, only at epsilon = 1
    sensitivity = 1.0 if epsilon == 1.0 else right_sensitivity(relation)
    return laplace_mechanism(_counts(data, categories), sensitivity, epsilon, rng=rng)


@pytest.mark.parametrize("name, fn, words", [
    ("float noise rounded to 2**-40", _rounded_float, "not on the lattice of the secure release"),
    ("noise z and -z on pairs of categories", _paired_noise, "same noise up to its sign"),
    ("1000 times less noise on 0 or 1 records", _little_noise_on_small_counts, "too little noise"),
    ("the factor-two slip at epsilon = 1 only", _slip_at_epsilon_one, "too little noise for relation='replace_one'"),
])
def test_a_histogram_that_the_review_found_passing_now_fails(name, fn, words):
    for seed in (*GRADER_SEEDS, 303):
        verdict = ex_histogram.check_my_dp_histogram(fn, rng=grader(seed))
        assert not verdict.passed and words in verdict.message, (name, seed, verdict.message)


def _reference_histogram():
    import sys
    if not (ROOT / "grader").is_dir():   # a copy of the package and tests only (tools/mutation_test.py)
        pytest.skip("the grader is not in this copy")
    sys.path.insert(0, str(ROOT))
    from grader.reference_solutions import REFERENCE_CODE

    namespace = {}
    exec("import math\nimport numpy as np\nimport dpcourse\n" + REFERENCE_CODE["ex-hist-implement"], namespace)  # noqa: S102
    return namespace["my_dp_histogram"]


def _per_category_loop(data, categories, epsilon, relation, rng):
    counts = _counts(data, categories)
    return np.array([laplace_mechanism(float(c), right_sensitivity(relation), epsilon, rng=rng) for c in counts])


def _dict_counting(data, categories, epsilon, relation, rng):
    counts = {c: 0 for c in categories.tolist()}
    for x in data.tolist():
        if x not in counts:
            raise ValueError("a record is not one of the categories")
        counts[x] += 1
    return laplace_mechanism(np.array([float(counts[c]) for c in categories.tolist()]), right_sensitivity(relation),
                             epsilon, rng=rng)


def _clipped(data, categories, epsilon, relation, rng):
    return np.maximum(honest_histogram(data, categories, epsilon, relation, rng), 0.0)


def test_the_overall_noise_test_sees_the_same_statistic_for_a_release_clipped_at_zero():
    # clipping at 0 is post-processing: the one-sided test on all categories must not hold it against the release
    case = ex_histogram._case(grader(9), epsilon=0.5)
    counts = _counts(case.data, case.categories)
    honest = laplace_mechanism(counts, 2.0, 0.5, rng=grader(10))
    clipped = np.maximum(honest, 0.0)
    assert np.sum(clipped == 0) > 20     # the clipping did something
    for out in (honest, clipped):
        assert not ex_histogram._too_small_overall(out - counts, counts, 4.0)
    assert ex_histogram._too_small_overall(0.8 * (honest - counts), counts, 4.0)


@pytest.mark.parametrize("name", ["reference", "per-category loop", "dict counting", "clipped at 0"])
def test_honest_histograms_written_other_ways_pass(name):
    fn = _reference_histogram() if name == "reference" else {
        "per-category loop": _per_category_loop, "dict counting": _dict_counting, "clipped at 0": _clipped}[name]
    for seed in GRADER_SEEDS if name == "per-category loop" else (*GRADER_SEEDS, 303, 404):   # the loop is slow
        verdict = ex_histogram.check_my_dp_histogram(fn, rng=grader(seed))
        assert verdict.passed, (name, seed, verdict.message)
    assert ex_histogram.check_my_dp_histogram(fn).passed, name


def test_the_grader_checks_the_secure_lattice_of_the_right_sensitivity(monkeypatch):
    # the lattice of the whole vector divides the one of a per-category release (and of a coarser forced spacing),
    # and the grader has a case at epsilon exactly 1 besides the drawn one
    from dpcourse.discrete import laplace_lattice

    gen = grader(5)
    for _ in range(200):
        k, epsilon = int(gen.integers(*ex_histogram._K_RANGE)), round(float(gen.uniform(0.5, 2.0)), 2)
        for relation in ("add_remove", "replace_one"):
            whole = laplace_lattice(right_sensitivity(relation), epsilon, dim=k).spacing
            single = laplace_lattice(right_sensitivity(relation), epsilon, dim=1).spacing
            ratio = single / whole
            assert ratio >= 1 and ratio == 2.0 ** round(math.log2(ratio)), (k, epsilon, relation)
            assert (2.0**-10 / whole).is_integer()
    epsilons = []
    real_case = ex_histogram._case

    def spy(rng=None, epsilon=None):
        case = real_case(rng, epsilon)
        epsilons.append(case.epsilon)
        return case

    monkeypatch.setattr(ex_histogram, "_case", spy)
    assert ex_histogram.check_my_dp_histogram(honest_histogram, rng=grader(6)).passed
    assert len(epsilons) == 2 and epsilons[1] == 1.0


def _mean_with(noise):
    def my_dp_mean(x, lower, upper, epsilon, rng):
        return noise(np.clip(x, lower, upper).mean(), x, lower, upper, epsilon, rng)
    return my_dp_mean


@pytest.mark.parametrize("name, fn, words", [
    ("no clamp", lambda x, lo, hi, e, rng: x.mean() + rng.laplace(0.0, (hi - lo) / (len(x) * e)), "far"),
    ("half the noise", _mean_with(lambda m, x, lo, hi, e, rng: m + rng.laplace(0.0, (hi - lo) / (2 * len(x) * e))),
     "the audit on two datasets inside"),
    ("np.random noise", _mean_with(lambda m, x, lo, hi, e, rng: m + np.random.laplace(0.0, (hi - lo) / (len(x) * e))),
     "identically seeded"),
    ("n times the noise", _mean_with(lambda m, x, lo, hi, e, rng: m + rng.laplace(0.0, (hi - lo) / e)),
     "more than twice"),
    ("the book's sensitivity 1/10 whatever the data", lambda x, lo, hi, e, rng: np.clip(x, 0, 1).mean() +
     rng.laplace(0.0, 0.1 / e), "centred"),
])
def test_a_mean_that_is_not_private_or_not_fitted_fails(name, fn, words):
    verdict = ex_audit.check_clamped_mean(fn, rng=grader(GRADER_SEEDS[0]))
    assert not verdict.passed and words in verdict.message, (name, verdict.message)


def _half_noise_when(condition):
    """The honest float mean with half its noise whenever ``condition(x, epsilon)``: a pattern cheat."""
    def my_dp_mean(x, lower, upper, epsilon, rng):
        factor = 0.5 if condition(x, epsilon) else 1.0
        return np.clip(x, lower, upper).mean() + rng.laplace(0.0, factor * (upper - lower) / (len(x) * epsilon))
    return my_dp_mean


PATTERN_CHEATS = {
    # the book's and the old grader's data have n - 1 equal records: at most two distinct values
    "half the noise on varied data": _half_noise_when(lambda x, e: len(np.unique(x)) > 2),
    # the old grader drew epsilon from [0.3, 0.8] and [1.5, 2.5] only
    "half the noise for 0.8 < epsilon < 1.5": _half_noise_when(lambda x, e: 0.8 < e < 1.5),
}


@pytest.mark.parametrize("name", sorted(PATTERN_CHEATS))
def test_a_mean_that_cheats_on_a_pattern_of_the_cases_fails(name):
    for seed in GRADER_SEEDS:
        verdict = ex_audit.check_clamped_mean(PATTERN_CHEATS[name], rng=grader(seed))
        assert not verdict.passed and "found epsilon >=" in verdict.message, (name, seed, verdict.message)


def test_the_noise_is_measured_on_varied_data(monkeypatch):
    # with every audit switched off, the standard-deviation test alone refuses half the noise on varied data
    class NeverRefutes:
        lower_bound, event = 0.0, "none"

        @staticmethod
        def refutes(_eps):
            return False

    monkeypatch.setattr(ex_audit, "audit_epsilon", lambda *a, **k: NeverRefutes())
    cheat = PATTERN_CHEATS["half the noise on varied data"]
    for seed in GRADER_SEEDS:
        verdict = ex_audit.check_clamped_mean(cheat, rng=grader(seed))
        assert not verdict.passed and "less noise than any" in verdict.message, (seed, verdict.message)
    assert ex_audit.check_clamped_mean(dp_mean, rng=grader(GRADER_SEEDS[0])).passed


def test_the_grader_audits_epsilon_one_and_a_range_around_it_at_a_joint_level_of_1e_6():
    drawn = []
    for seed in range(300):
        setup = ex_audit._setup(grader(seed), 0)
        assert 1.0 in setup.epsilons
        drawn += [e for e in setup.epsilons if e != 1.0]
        audits = len(setup.epsilons) * len(setup.pairs)
        assert audits * (1 - setup.confidence) <= 1e-6                  # Bonferroni over the gate's audits
        assert setup.draws >= 10_000
        varied = setup.pairs[-1][1]
        assert len(np.unique(varied)) > 2 and any(pair is not setup.low_high for pair in setup.sd_pairs)
    assert min(drawn) < 0.8 < 1.0 < 1.5 < max(drawn)
    # the book's self-check keeps its numbers (its stored verdict)
    book = ex_audit._setup(None, 2026)
    assert (book.epsilons, book.draws, book.confidence, len(book.pairs)) == ((0.5, 2.0), 5000, 0.999, 3)


@pytest.mark.parametrize("label, fn", [
    ("ex-audit-fix-mean", lambda x, lo, hi, e, rng: dpcourse.dp_mean(x, lo, hi, e, rng=rng)),
    ("ex-noise-lattice-scale", lambda s, e, g, d: dpcourse.laplace_lattice(s, e, dim=d, spacing=g).noise_scale),
    ("ex-release-sample-size", lambda k, a: dpcourse.queries.smalldb_sample_size(k, a)),
])
def test_a_one_line_library_call_is_refused(label, fn):
    q = next(q for hw in ("hw10", "hw11", "hw13") for q in questions(hw) if q.label == label)
    for rng in (None, grader(GRADER_SEEDS[0])):
        verdict = q.tests[0].run(fn, {}, rng)
        assert not verdict.passed and "yourself" in verdict.message, (label, verdict.message)


def _von_neumann(trial):
    def my_bernoulli_exp(num, den, rng):
        k = 1
        while trial(num, den * k, rng):
            k += 1
        return k % 2 == 1
    return my_bernoulli_exp


def _ten_percent_off(num, den, rng):
    k = 1
    while rng.integers(0, 10 * den * k) < 11 * num:
        k += 1
    return k % 2 == 1


@pytest.mark.parametrize("name, fn, words", [
    ("the wrong parity", lambda n, d, rng: not bernoulli_exp(n, d, rng), "1 - exp(-gamma)"),
    ("gamma 10 % too large", _ten_percent_off, "not plausible"),
    ("True below gamma = 1/4 (after a draw)", lambda n, d, rng: rng.integers(0, 2) >= 0 if 4 * n < d else
     bernoulli_exp(n, d, rng), "not plausible"),
    ("the first trial only", lambda n, d, rng: bool(rng.integers(0, d) >= n), "not plausible"),
    ("np.random instead of rng", lambda n, d, rng: (rng.integers(0, 2), bernoulli_exp(n, d, np.random.default_rng()))[1],
     "identically seeded"),
])
def test_a_bernoulli_sampler_that_is_not_exact_or_not_from_rng_fails(name, fn, words):
    verdict = ex_noise.check_bernoulli_exp(fn, rng=grader(GRADER_SEEDS[0]))
    assert not verdict.passed and words in verdict.message, (name, verdict.message)


@lru_cache(maxsize=None)
def _exp_bounds(num, den, bits):
    """Fractions lo <= exp(-num/den) <= hi with hi - lo < 2**-bits (alternating Taylor series, num <= den)."""
    x, term, total, n = Fraction(num, den), Fraction(1), Fraction(1), 0
    while True:
        n += 1
        term = term * x / n
        nxt = total - term if n % 2 else total + term
        if term < Fraction(1, 2**bits):
            return min(total, nxt), max(total, nxt)
        total = nxt


def _lazy_exact(word_bits):
    """An exact sampler that compares a uniform U, drawn lazily in words of 63 or 64 bits, with exp(-gamma)."""
    def my_bernoulli_exp(num, den, rng):
        u, bits = 0, 0                      # U lies in [u / 2**bits, (u + 1) / 2**bits)
        while True:
            word = rng.integers(0, 2**63) if word_bits == 63 else rng.integers(0, 2**64, dtype=np.uint64)
            u, bits = (u << word_bits) | int(word), bits + word_bits
            lo, hi = _exp_bounds(num, den, bits + 2)
            if Fraction(u + 1, 2**bits) <= lo:
                return True
            if Fraction(u, 2**bits) >= hi:
                return False
    return my_bernoulli_exp


@pytest.mark.parametrize("word_bits", [63, 64])
def test_a_lazy_exact_sampler_of_whole_words_passes(word_bits):
    # one 63- or 64-bit word decides almost every trial (a threshold of one draw, as rng.random() < p is): the
    # grader used to refuse it as floating-point; it is exact, and only the distribution and the rng are judged
    for seed in GRADER_SEEDS:
        verdict = ex_noise.check_bernoulli_exp(_lazy_exact(word_bits), rng=grader(seed))
        assert verdict.passed, (word_bits, seed, verdict.message)
    assert ex_noise.check_bernoulli_exp(_lazy_exact(63)).passed      # and the book's integers-only self-check


def test_the_grader_draws_small_gammas():
    # one fraction in [1e-3, 1/4) per grader rng, so that "True below 1/4" is tried where it is wrong; the
    # binomial tests share the level 1e-6
    smallest = []
    for seed in range(200):
        cases = ex_noise._bernoulli_cases(grader(seed), 0)
        small = [n / d for n, d, _ in cases if 0 < n / d < 0.25]
        assert len(cases) == 6 and len(small) == 1 and 1e-3 * 0.999 < small[0] < 0.25
        smallest.append(small[0])
    assert min(smallest) < 0.005 and max(smallest) > 0.1
    # at the smallest gamma, 20 000 runs that all return True are refused at level 1e-6 / 6
    assert math.exp(-1e-3) ** 20_000 < 1e-6 / 6 / 10


def test_exact_bernoulli_samplers_written_other_ways_pass():
    # exact samplers written with other integer calls, and with lazily drawn binary digits
    def digits(num, den, rng):
        k = 1
        while True:
            a, b = num, den * k                  # compare a uniform U with a/b, one binary digit at a time
            while True:
                a *= 2
                bit, digit = int(rng.integers(0, 2)), int(a >= b)
                a -= digit * b
                if bit != digit:
                    break
            if bit > digit:                      # U > num / (den k): the trial fails
                return k % 2 == 1
            k += 1

    for fn in (_von_neumann(lambda n, m, rng: rng.integers(1, m, endpoint=True) <= n),
               _von_neumann(lambda n, m, rng: rng.integers(0, m, dtype=np.uint64) < n), digits):
        verdict = ex_noise.check_bernoulli_exp(fn, rng=grader(GRADER_SEEDS[1]))
        assert verdict.passed, verdict.message


# ---------------------------------------------------------------------------------------------------------
# A table of the book's cases fails under a grader rng (and fools the book's self-check, so it is a real table)


def _key(args):
    return repr([a.tolist() if isinstance(a, np.ndarray) else a for a in args])


TABLED = sorted(set(CODE) - {"ex-hist-implement", "ex-audit-fix-mean", "ex-noise-bernoulli"})


@pytest.mark.parametrize("label", TABLED)
def test_a_table_of_the_book_cases_fails(label):
    checker, honest = CODE[label]
    table = {}

    def recorder(*args):
        out = honest(*args)
        table[_key(args)] = out
        return out

    assert checker(recorder).passed

    def cheat(*args):
        if _key(args) in table:
            return table[_key(args)]
        first = args[0]
        return np.zeros_like(first) if label in ("ex-laplace-inverse-cdf", "ex-sel-em-code") else (
            (1.0, 1.0) if label == "ex-many-svt-scales" else 0.5)

    assert checker(cheat).passed, label          # it fools the book's cases
    for seed in GRADER_SEEDS:
        assert not checker(cheat, rng=grader(seed)).passed, (label, seed)


def test_special_cases_of_the_book_sizes_fail():
    # a histogram with the right noise only for 2000 categories, a mean calibrated for ten records in [0, 1], and
    # an exact sampler for the book's fractions only: each passes the book's self-check, none the grader's
    def histogram(data, categories, epsilon, relation, rng):
        sens = right_sensitivity(relation) if len(categories) == 2000 else 1.0
        return laplace_mechanism(_counts(data, categories), sens, epsilon, rng=rng)

    def mean(x, lower, upper, epsilon, rng):
        return np.clip(x, lower, upper).mean() + rng.laplace(0.0, 0.1 / epsilon)

    book = {(num, den) for num, den in ex_noise._CASES}

    def bernoulli(num, den, rng):
        return bernoulli_exp(num, den, rng) if (num, den) in book else rng.random() < 1 - num / den

    for checker, fn in ((ex_histogram.check_my_dp_histogram, histogram), (ex_audit.check_clamped_mean, mean),
                        (ex_noise.check_bernoulli_exp, bernoulli)):
        assert checker(fn).passed
        assert not checker(fn, rng=grader(GRADER_SEEDS[0])).passed


# ---------------------------------------------------------------------------------------------------------
# The book's self-checks (rng=None) still give the verdicts the chapters store


def _stored_cells():
    """``(chapter, namespace, source, stored text)`` of every exercise cell that calls a checker of hw01-hw12."""
    modules = ("promise", "randomized_response", "laplace", "composition_basics", "histogram", "selection",
               "gaussian", "composition", "audit", "noise", "queries")
    names = {n for m in modules for n, f in vars(getattr(dpcourse.exercises, m)).items()
             if n.startswith("check_") and getattr(f, "__module__", "") == f"dpcourse.exercises.{m}"}
    cells = []
    for stem in sorted(p.stem for p in (ROOT / "chapters").glob("[01][0-9]_*.ipynb") if int(p.stem[:2]) <= 12):
        nb = nbformat.read(ROOT / "chapters" / f"{stem}.ipynb", as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and any(f"{n}(" in cell.source for n in names):
                outs = [o.get("data", {}).get("text/plain") for o in cell.outputs if o.output_type == "execute_result"]
                cells.append((stem, cell.source, outs[0] if outs else None))
    return cells


def test_the_book_self_checks_keep_their_stored_verdicts():
    if not (ROOT / "chapters").is_dir():   # a copy of the package and tests only (tools/mutation_test.py)
        pytest.skip("the chapters are not in this copy")
    cells = _stored_cells()
    assert len(cells) == 16
    namespaces = {}
    for stem, source, stored in cells:
        ns = namespaces.setdefault(stem, {"np": np, "math": math})
        *body, last = source.rstrip().split("\n")
        exec("\n".join(body), ns)  # noqa: S102 - the chapter's own cell
        assert repr(eval(last, ns)) == stored, (stem, last)  # noqa: S307


def test_the_book_answers_pass_and_the_slips_fail_without_rng():
    for label, (checker, honest) in CODE.items():
        assert checker(honest).passed, label
    for label, slips in SLIPS.items():
        for slip, _ in slips:
            assert not CODE[label][0](slip).passed, label


# ---------------------------------------------------------------------------------------------------------
# Numeric questions: pools, the book's numbers excluded, every member's answer and slips


def _mixture_slips(p):
    t, n = p["truth_probability"], p["n"]
    ratio = (t * (n + 1) + 1 - t) / (1 - t)
    return [math.log10(ratio), math.log2(ratio), math.log(ratio - 1), -math.log(1 - t)]


def _sample_size_slips(p):
    k, a, b, e = p["k"], p["alpha"], p["beta"], p["epsilon"]
    bound = counting_queries_sample_size(k, a, b, e)
    return [math.ceil(bound) - 1, math.ceil(bound) + 1, math.ceil(bound / k), math.ceil(k * math.log(1 / b) / (a * e)),
            bound]


def _argmax_slips(p):
    k, e, b = p["k"], p["epsilon"], p["beta"]
    return [laplace_max_error_bound(k, 2.0 / e, b), 2 * 2.0 / e * math.log(1 / b),
            2 * laplace_max_error_bound(k, 1.0 / e, b)]


def _pumpkin_slips(p):
    truth = ex_selection._pumpkin_truth(**p)
    gap = p["bids_of_1"] - p["bids_of_2"]
    return [-4 * math.log(1 - p["probability"]) / gap, truth / 2, truth / 4]


# label -> (book's numbers, how the truth is typed to the precision the text asks, slips)
NUMERIC = {
    "ex-promise-mixture": ({"n": 10, "truth_probability": 0.5}, lambda t: float(f"{t:.4g}"), _mixture_slips),
    "ex-laplace-sample-size": ({"k": 10, "alpha": 0.01, "beta": 0.05, "epsilon": 1.0}, lambda t: t, _sample_size_slips),
    "ex-hist-argmax": ({"k": 6, "epsilon": 1.0, "beta": 0.05}, lambda t: float(f"{t:.4g}"), _argmax_slips),
    "ex-sel-pumpkin": ({"bids_of_1": 90, "bids_of_2": 10, "probability": 0.99}, lambda t: float(f"{t:.3g}"),
                       _pumpkin_slips),
}
POOLS = {"ex-promise-mixture": ("n", "truth_probability"), "ex-laplace-sample-size": ("k", "alpha", "beta", "epsilon"),
         "ex-hist-argmax": ("k", "epsilon", "beta"), "ex-sel-pumpkin": ("bids_of_1", "bids_of_2", "probability")}
POOL_OF = {label: tuple(tuple(p[k] for k in keys) for p in _question(label).variant.pool())
           for label, keys in POOLS.items()}


def _draws(q, n):
    """The numbers of ``n`` student ids, each from a generator seeded by a hash of the id (as the grader's are)."""
    out = []
    for i in range(n):
        seed = int.from_bytes(hashlib.sha256(f"{q.label}\x00s{i}".encode()).digest()[:8], "little")
        out.append(q.variant(np.random.default_rng(seed)))
    return out


@pytest.mark.parametrize("label", sorted(NUMERIC))
def test_pool_size_collisions_and_the_book_numbers(label):
    q = _question(label)
    book, _, _ = NUMERIC[label]
    pool = POOL_OF[label]
    assert len(pool) == len(set(pool)) >= 200 and 1 / len(pool) <= 0.005   # exact: uniform over the pool
    assert tuple(book[k] for k in POOLS[label]) not in pool
    draws = _draws(q, 20_000)
    assert all(set(d) == set(book) for d in draws)           # the keys are the names of the text's numbers
    counts = Counter(tuple(d[k] for k in POOLS[label]) for d in draws)
    assert tuple(book[k] for k in POOLS[label]) not in counts
    assert set(counts) <= set(pool)
    n = sum(counts.values())
    collision = sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))   # unbiased estimate of sum p^2
    assert collision <= 0.005, collision
    # and the answers themselves: two students share one answer no more often
    answers = Counter(round(float(q.expected(d)), 9) for d in draws)
    assert sum(c * (c - 1) for c in answers.values()) / (n * (n - 1)) <= 0.005


@pytest.mark.parametrize("label", sorted(NUMERIC))
def test_every_pool_member_accepts_its_answer_and_refuses_the_slips(label):
    q = _question(label)
    _, typed, slips = NUMERIC[label]
    pool = POOL_OF[label]
    members = pool if len(pool) <= 1000 else [pool[i] for i in np.random.default_rng(0).choice(len(pool), 1500,
                                                                                                replace=False)]
    for combo in members:
        p = dict(zip(POOLS[label], combo))
        truth = q.expected(p)
        for answer in (truth, typed(truth)):
            verdict = q.tests[0].run(answer, p, None)
            assert verdict.passed, (label, p, answer, verdict.message)
        for slip in slips(p):
            verdict = q.tests[0].run(slip, p, None)
            assert not verdict.passed, (label, p, slip)


# The book's printed answers (ex-hist-argmax: 4 ln(120) = 19.15 at k = 6, epsilon = 1, beta = 0.05)
BOOK_ANSWERS = {"ex-promise-mixture": (math.log(12), 2.485), "ex-laplace-sample-size": (5299,),
                "ex-hist-argmax": (4 * math.log(120), 19.15), "ex-sel-pumpkin": (0.230, 0.2298)}


@pytest.mark.parametrize("label", sorted(NUMERIC))
def test_no_variant_accepts_the_book_answer_or_another_variants_answer(label):
    q = _question(label)
    pool = q.variant.pool()
    assert len(pool) >= 200 and len({tuple(sorted(p.items())) for p in pool}) == len(pool)
    assert sum((1 / len(pool)) ** 2 for _ in pool) <= 0.005          # exact: one answer per variant, uniform
    book = NUMERIC[label][0]
    for answer in BOOK_ANSWERS[label]:
        assert q.tests[0].run(answer, book, None).passed                 # the book's answer to the book's numbers
        assert not any(q.tests[0].run(answer, p, None).passed for p in pool), (label, answer)
    answers = [q.expected(p) for p in pool]
    assert answers == sorted(answers) and len(set(answers)) == len(answers)
    for i, p in enumerate(pool):   # the neighbours in answer order, the nearest answers of other variants
        for j in (i - 1, i + 1):
            if 0 <= j < len(pool):
                assert not q.tests[0].run(answers[j], p, None).passed, (label, p, pool[j])


def test_named_slips_are_recognised_for_the_variants():
    mixture = _question("ex-promise-mixture")
    for combo in POOL_OF["ex-promise-mixture"]:
        p = dict(zip(POOLS["ex-promise-mixture"], combo))
        assert "count every way" in mixture.tests[0].run(_mixture_slips(p)[2], p, None).message
    pumpkin = _question("ex-sel-pumpkin")
    for combo in POOL_OF["ex-sel-pumpkin"][::7]:
        p = dict(zip(POOLS["ex-sel-pumpkin"], combo))
        message = pumpkin.tests[0].run(_pumpkin_slips(p)[0], p, None).message
        assert "close:" in message and f"{ex_selection._pumpkin_truth(**p):.3g}" not in message
    argmax = _question("ex-hist-argmax")
    for combo in POOL_OF["ex-hist-argmax"]:
        p = dict(zip(POOLS["ex-hist-argmax"], combo))
        assert "both counts may err" in argmax.tests[0].run(_argmax_slips(p)[0], p, None).message


def test_the_numbers_of_a_classmate_fail():
    for label in NUMERIC:
        q = _question(label)
        mine, other = _draws(q, 2)[0], None
        for d in _draws(q, 50)[1:]:
            if not math.isclose(q.expected(d), q.expected(mine), rel_tol=1e-2):
                other = d
                break
        assert q.tests[0].run(q.expected(mine), mine, None).passed
        assert not q.tests[0].run(q.expected(other), mine, None).passed, label


def test_numeric_answers_of_the_book_are_unchanged():
    assert ex_promise.check_mixture_epsilon(math.log(12), n=10).passed
    assert ex_selection.check_pumpkin_epsilon(0.23).passed and not ex_selection.check_pumpkin_epsilon(0.2303).passed
    assert "1/99, not 1/100" in ex_selection.check_pumpkin_epsilon(math.log(100) / 20).message
    assert ex_laplace.check_sample_size(5299, 10, 0.01, 0.05, 1.0).passed


def test_bad_epsilon_hidden_test_draws_its_arguments():
    test = registry.refuses_bad_epsilon(registry._histogram_args)

    def refuses(data, categories, epsilon, relation, rng):
        assert _plain([data, categories, relation, rng])
        if not (isinstance(epsilon, float) and 0 < epsilon < math.inf):
            raise ValueError("epsilon")
        return honest_histogram(data, categories, epsilon, relation, rng)

    def only_the_fixed_case(data, categories, epsilon, relation, rng):   # refuses on the fixed inputs only
        if list(categories) == [3, 1, 2, 7]:
            raise ValueError("epsilon")
        return _counts(data, categories)

    assert test(refuses, {}, grader(1)).passed and test(refuses, {}, None).passed
    assert test(only_the_fixed_case, {}, None).passed
    assert not test(only_the_fixed_case, {}, grader(1)).passed


def test_hidden_cases_are_not_quoted_when_the_grader_hides_them(monkeypatch):
    # the grader sets SHOW_INPUTS = False: a failure says what was tested in words, not the drawn numbers
    import dpcourse.exercises as exercises

    monkeypatch.setattr(exercises, "SHOW_INPUTS", False)
    for label, slips in SLIPS.items():
        checker = CODE[label][0]
        for slip, _ in slips:
            numbers = set()

            def recorded(*args, _slip=slip, _numbers=numbers):
                _numbers.update(a for a in args if isinstance(a, float) and not a.is_integer())
                return _slip(*args)

            message = checker(recorded, rng=grader(GRADER_SEEDS[0])).message
            assert not any(f"{x:g}" in message or repr(x) in message for x in numbers), (label, message)
    rr_message = ex_rr.check_rr_estimator(SLIPS["ex-rr-estimator"][0][0], rng=grader(GRADER_SEEDS[0])).message
    assert "grader's cases" in rr_message and "people" not in rr_message
    audit_message = ex_audit.check_clamped_mean(lambda x, lo, hi, e, rng: x.mean() + rng.laplace(0.0, (hi - lo) / (
        len(x) * e)), rng=grader(GRADER_SEEDS[0])).message
    assert "far above" in audit_message and "inside [" not in audit_message and "epsilon >=" not in audit_message


def test_a_wrong_shape_does_not_reveal_the_hidden_size(monkeypatch):
    # the histogram's number of categories is drawn by the grader: a wrong-length array must not learn it
    import dpcourse.exercises as exercises

    def short(data, categories, epsilon, relation, rng):
        return laplace_mechanism(_counts(data, categories), right_sensitivity(relation), epsilon, rng=rng)[:-1]

    shown = ex_histogram.check_my_dp_histogram(short, rng=grader(GRADER_SEEDS[0])).message
    assert "shape (" in shown and "(shape" not in shown          # the book's self-check names it
    monkeypatch.setattr(exercises, "SHOW_INPUTS", False)
    hidden = ex_histogram.check_my_dp_histogram(short, rng=grader(GRADER_SEEDS[0])).message
    assert "wrong shape" in hidden and not any(ch.isdigit() for ch in hidden), hidden
