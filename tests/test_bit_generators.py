"""Every random function of dpcourse is private for every numpy bit generator a user can pass.

``as_rng`` accepts any ``numpy.random.Generator``, whatever its bit generator: PCG64 (numpy's default),
PCG64DXSM, MT19937, Philox or SFC64. They differ in their raw output (``random_raw`` gives 32-bit words for
MT19937 and 64-bit words for the others), so a sampler that reads raw bits can be exact under one and
wrong under another: the local oracles once compared MT19937's 32-bit words with 64-bit thresholds, and
k-RR then never reported the true value (epsilon = infinity). Two families of tests, for all five:

(a) each exact coin and integer sampler reproduces its exact law (chi-square at alpha = 1e-6, one
    vectorized draw per sampler and bit generator);
(b) a sweep over every public function of the package that takes ``rng`` (found by introspection: a
    parameter named ``rng``) runs with each bit generator and returns a valid output. A new function
    with an ``rng`` parameter fails ``test_every_rng_function_is_in_the_sweep`` until it is added here.
    The simulations behind the figures (``dpcourse.plots``, every rng function not named ``plot_*``; the
    ``plot_*`` functions draw them) run once under MT19937.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import math
import os
import pkgutil
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcourse
import dpcourse as dp
import dpcourse.local_dp as L

if "api_contract" not in sys.modules:  # tests/api_contract.py, loaded as tests/test_contract_properties.py does
    _spec = importlib.util.spec_from_file_location("api_contract", os.path.join(os.path.dirname(__file__),
                                                                                "api_contract.py"))
    sys.modules["api_contract"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["api_contract"])
contract = sys.modules["api_contract"]

ALPHA = 1e-6
BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64]
BG_IDS = [bg.__name__ for bg in BIT_GENERATORS]


def make(bit_generator, seed):
    return np.random.Generator(bit_generator(seed))


def chi2_ok(observed, probs):
    """Chi-square goodness of fit at ALPHA; cells with tiny expected counts are pooled into their neighbour."""
    observed = np.asarray(observed, dtype=float)
    probs = np.asarray([float(p) for p in probs])
    assert abs(probs.sum() - 1.0) < 1e-9 and observed.shape == probs.shape
    expected = observed.sum() * probs
    obs, exp = [], []
    acc_o = acc_e = 0.0
    for o, e in zip(observed, expected):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 20:
            obs.append(acc_o)
            exp.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        obs[-1] += acc_o
        exp[-1] += acc_e
    obs, exp = np.array(obs), np.array(exp)
    stat = float(((obs - exp) ** 2 / exp).sum())
    return stat < stats.chi2.isf(ALPHA, len(obs) - 1), stat


def integer_law(samples, pmf, lo, hi):
    """Observed counts on [lo, hi] plus the two tails, and the exact probabilities of the same cells."""
    samples = np.asarray(samples).ravel()
    ks = np.arange(lo, hi + 1)
    inner = pmf(ks)
    counts = [np.sum(samples < lo)] + np.bincount(samples[(samples >= lo) & (samples <= hi)] - lo,
                                                   minlength=ks.size).tolist() + [np.sum(samples > hi)]
    tail = (1.0 - float(np.sum(inner))) / 2  # both pmfs here are symmetric about the centre of [lo, hi]
    return counts, [tail] + list(inner) + [tail]


# ---------------------------------------------------------------------------------------------------
# (a) exact laws under every bit generator
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_krr_reports_the_truth_at_its_exact_rate(bit_generator):
    # d = 4, eps = 1: the true value with probability e/(e+3) = 0.475 (MT19937 once gave 0.0)
    d, eps, n = 4, 1.0, 40_000
    pr = L.oracle_probabilities("krr", d, eps)
    rep = L.krr(np.full(n, 2), d, eps, rng=make(bit_generator, 1))
    ok, stat = chi2_ok(np.bincount(rep, minlength=d), [pr["p"] if y == 2 else pr["q"] for y in range(d)])
    assert ok, stat


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_local_hashing_exact_law(bit_generator):
    d, eps, n = 50, 1.5, 40_000
    pr = L.oracle_probabilities("olh", d, eps)
    g = pr["g"]
    v = np.arange(n) % d
    a, b, y = L.local_hashing(v, d, eps, rng=make(bit_generator, 2)).T
    h = (a * v + b) % L.HASH_PRIME % g
    ok, stat = chi2_ok(np.bincount((y - h) % g, minlength=g), [pr["p"]] + [pr["q"]] * (g - 1))
    assert ok, stat
    ok, stat = chi2_ok(np.bincount(a % 7, minlength=7), [Fraction(((L.HASH_PRIME - 1 - r) // 7) + (r > 0), L.HASH_PRIME - 1)
                                                         for r in range(7)])  # a uniform on [1, p-1]
    assert ok, stat


@pytest.mark.parametrize("optimized", [True, False])
@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_unary_encoding_exact_joint_law(bit_generator, optimized):
    d, eps, n = 3, 1.2, 30_000
    pr = L.oracle_probabilities("oue" if optimized else "sue", d, eps)
    v = 1
    bits = np.unpackbits(L.unary_encoding(np.full(n, v), d, eps, optimized=optimized, rng=make(bit_generator, 3)),
                         axis=1, count=d)
    code = bits @ (1 << np.arange(d - 1, -1, -1))
    probs = []
    for c in range(2**d):
        prob = Fraction(1)
        for j in range(d):
            on = pr["p"] if j == v else pr["q"]
            prob *= on if (c >> (d - 1 - j)) & 1 else 1 - on
        probs.append(prob)
    ok, stat = chi2_ok(np.bincount(code, minlength=2**d), probs)
    assert ok, stat


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_local_coin_is_exact_at_a_threshold_above_two_to_the_32(bit_generator):
    # A coin whose threshold needs the high 32 bits of the word: P = 3/4 exactly. 32-bit words are all heads.
    heads = L._coin(make(bit_generator, 4), 3 * 2**62, (50_000,))
    ok, stat = chi2_ok([heads.sum(), (~heads).sum()], [0.75, 0.25])
    assert ok, stat
    tiny = L._coin(make(bit_generator, 5), 2**32, (50_000,))  # P = 2**-32: 32-bit words were always below it
    assert tiny.sum() <= 1


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_discrete_laplace_and_geometric_exact_law(bit_generator):
    scale = Fraction(5, 2)
    x = dp.discrete_laplace(scale, size=20_000, rng=make(bit_generator, 6))
    ok, stat = chi2_ok(*integer_law(x, lambda k: dp.discrete_laplace_pmf(k, scale), -15, 15))
    assert ok, stat
    y = dp.geometric_mechanism(7, 1, 0.4, size=20_000, rng=make(bit_generator, 7))
    ok, stat = chi2_ok(*integer_law(np.asarray(y) - 7, lambda k: dp.discrete_laplace_pmf(k, 2.5), -15, 15))
    assert ok, stat


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_discrete_gaussian_exact_law(bit_generator):
    sigma = 3.0
    x = dp.discrete_gaussian(sigma, size=40_000, rng=make(bit_generator, 8))
    ok, stat = chi2_ok(*integer_law(x, lambda k: dp.discrete_gaussian_pmf(k, sigma), -12, 12))
    assert ok, stat


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_randomized_response_exact_law(bit_generator):
    eps, n = 1.0, 40_000
    out = dp.randomized_response(np.ones(n, dtype=int), eps, rng=make(bit_generator, 9))
    t = dp.rr_truth_probability(eps)
    ok, stat = chi2_ok([out.sum(), n - out.sum()], [t, 1 - t])
    assert ok, stat


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_selection_mechanisms_exact_law(bit_generator):
    u = np.array([0.0, 1.0, 2.5, 3.0, 3.0])
    n = 30_000
    for i, (draw, law) in enumerate([(dp.exponential_mechanism, dp.exponential_probabilities),
                                     (dp.permute_and_flip, dp.permute_and_flip_probabilities)]):
        idx = draw(u, 1.0, 1.0, size=n, rng=make(bit_generator, 10 + i))
        ok, stat = chi2_ok(np.bincount(idx, minlength=u.size), law(u, 1.0, 1.0))
        assert ok, (draw.__name__, stat)
    idx = dp.report_noisy_max(u, 1.0, 1.0, noise="gumbel", size=n, rng=make(bit_generator, 12))
    ok, stat = chi2_ok(np.bincount(idx, minlength=u.size), dp.noisy_max_probabilities(u, 1.0, 1.0, noise="gumbel"))
    assert ok, stat


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_dp_quantile_exact_law(bit_generator):
    x, lower, upper, res = [1.0, 4.0, 3.0, 3.5, 8.0], 0.0, 10.0, 16
    edges, probs = dp.dp_quantile_probabilities(x, 0.5, lower, upper, 1.0, resolution=res)
    y = np.asarray(dp.dp_quantile(x, 0.5, lower, upper, 1.0, size=30_000, resolution=res,
                                  rng=make(bit_generator, 13)))
    grid = np.rint((y - lower) / (upper - lower) * res).astype(int)
    cell = np.searchsorted(edges, grid, side="right") - 1
    ok, stat = chi2_ok(np.bincount(cell, minlength=len(probs)), probs)
    assert ok, stat


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=BG_IDS)
def test_partition_selection_exact_keep_rate(bit_generator):
    users, parts, eps, delta = 7, 10_000, 1.0, 1e-3   # keep probability 0.64
    p = dp.partition_selection_probability(users, eps, delta)
    kept = dp.select_partitions(np.arange(users * parts), np.repeat(np.arange(parts), users), eps, delta,
                                rng=make(bit_generator, 14))
    ok, stat = chi2_ok([len(kept), parts - len(kept)], [p, 1 - p])
    assert 0.05 < p < 0.95 and ok, (p, stat)


# ---------------------------------------------------------------------------------------------------
# (b) every public function that takes rng runs with every bit generator
# ---------------------------------------------------------------------------------------------------

def rng_functions():
    """Qualified names of the public functions and methods of dpcourse's modules with a parameter ``rng``.

    The modules of the package itself (its mechanisms and helpers); ``dpcourse.plots`` and
    ``dpcourse.exercises`` draw figures and check homework by calling these.
    """
    found = set()
    for info in pkgutil.iter_modules(dpcourse.__path__):
        if (info.ispkg and info.name != "data") or info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"dpcourse.{info.name}")
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
                continue
            members = [(name, obj)] if inspect.isfunction(obj) else []
            if inspect.isclass(obj):
                members = [(f"{name}.{m}", f) for m, f in vars(obj).items() if inspect.isfunction(f)
                           and not m.startswith("_")]
            for qual, fn in members:
                if "rng" in inspect.signature(fn).parameters:
                    found.add(f"{info.name}.{qual}")
    return found


def _lap_mech(x, rng, size=None):
    return x + rng.laplace(0.0, 1.0, size=size)


_X = np.array([1.0, 4.0, 3.0, 3.5, 8.0, 6.0])
_HIST = np.array([3.0, 1.0, 4.0, 2.0])
_QUERIES = np.array([[1, 0, 1, 0], [0, 1, 1, 1], [1, 1, 0, 0]])

_MIA_X = np.array([[0.5, 0.1], [-0.2, 0.6], [0.3, -0.4], [-0.6, -0.2]])
_MIA_Y = np.array([1, 0, 1, 0])


def _mia_train(X, y, rng):
    """A small private trainer for the membership sweep: DP-SGD with one full-batch step."""
    return dp.dp_logistic_regression(X, y, 1.0, 1e-5, method="dpsgd", sampling_rate=1.0, steps=1,
                                     expected_batch_size=float(len(y)), rng=rng)


# name -> a call with small arguments, given a Generator
SWEEP = {
    "audit.audit_epsilon": lambda g: dp.audit_epsilon(_lap_mech, 0.0, 1.0, 200, rng=g),
    "continual.tree_counts": lambda g: dp.tree_counts([1, 0, 1, 1, 0], 1.0, runs=3, rng=g),
    "continual.naive_counts": lambda g: dp.naive_counts([1, 0, 1, 1, 0], 1.0, method="increments", rng=g),
    "continual.factorization_counts": lambda g: dp.factorization_counts([1, 0, 1, 1, 0], 0.5, runs=2, rng=g),
    "discrete.discrete_laplace": lambda g: dp.discrete_laplace(2.0, size=50, rng=g),
    "discrete.discrete_gaussian": lambda g: dp.discrete_gaussian(2.0, size=50, rng=g),
    "discrete.geometric_mechanism": lambda g: dp.geometric_mechanism(10, 1, 1.0, size=50, rng=g),
    "gaussian.gaussian_mechanism": lambda g: dp.gaussian_mechanism(_X, 1.0, 0.5, 1e-5, rng=g),
    "histogram.dp_histogram": lambda g: dp.dp_histogram(["A", "B", "A"], 1.0, relation="add_remove",
                                                        categories=["A", "B", "C"], rng=g),
    "laplace.laplace_mechanism": lambda g: dp.laplace_mechanism(_X, 1.0, 1.0, rng=g),
    "laplace.dp_mean": lambda g: dp.dp_mean(_X, 0.0, 10.0, 1.0, rng=g),
    "learning.dp_logistic_regression": lambda g: dp.dp_logistic_regression(
        np.array([[0.5, 0.1], [-0.2, 0.6], [0.3, -0.4], [-0.6, -0.2]]), np.array([1, 0, 1, 0]), 1.0, 1e-5,
        method="dpsgd", sampling_rate=1.0, steps=2, expected_batch_size=4.0, rng=g),
    "local_dp.krr": lambda g: dp.krr([0, 3, 2], 4, 1.0, rng=g),
    "local_dp.unary_encoding": lambda g: dp.unary_encoding([0, 3, 2], 4, 1.0, rng=g),
    "local_dp.local_hashing": lambda g: dp.local_hashing([0, 3, 2], 4, 1.0, rng=g),
    "optimal_noise.knorm_l2_noise": lambda g: dp.knorm_l2_noise(3, 1.0, 1.0, size=5, rng=g, secure=False),
    "quantiles.dp_quantile": lambda g: dp.dp_quantile(_X, 0.5, 0.0, 10.0, 1.0, rng=g),
    "quantiles.dp_median": lambda g: dp.dp_median(_X, 0.0, 10.0, 1.0, rng=g),
    "quantiles.smooth_median": lambda g: dp.smooth_median(_X, 0.0, 10.0, 1.0, 1e-5, rng=g),
    "quantiles.propose_test_release": lambda g: dp.propose_test_release(_X, 0.0, 10.0, 2.0, 1.0, 1e-5, rng=g),
    "quantiles.sample_and_aggregate": lambda g: dp.sample_and_aggregate(_X, np.mean, 2, 0.0, 10.0, 1.0, rng=g),
    "inference.mean_interval": lambda g: dp.mean_interval(_X, 0.0, 10.0, 1.0, rng=g),
    "inference.proportion_interval": lambda g: dp.proportion_interval([0, 1, 1, 0, 1], 1.0, rng=g),
    "inference.difference_of_means_interval": lambda g: dp.difference_of_means_interval(
        _X[:3], _X[3:], 0.0, 10.0, 1.0, rng=g),
    "inference.quantile_interval": lambda g: dp.quantile_interval(_X, 0.5, 0.0, 10.0, 1.0, resolution=64, rng=g),
    "inference.interval_coverage": lambda g: dpcourse.inference.interval_coverage(
        "proportion", [0, 1] * 10, 20, 1.0, reps=20, rng=g),
    "inference.coverage_grid": lambda g: dpcourse.inference.coverage_grid("proportion", [20], [1.0], reps=10, rng=g),
    "inference.mean_interval_coverage": lambda g: dp.mean_interval_coverage(_X, 10, 1.0, lower=0.0, upper=10.0,
                                                                            reps=10, rng=g),
    "inference.proportion_interval_coverage": lambda g: dp.proportion_interval_coverage([0, 1] * 10, 20, 1.0,
                                                                                        reps=10, rng=g),
    "inference.difference_interval_coverage": lambda g: dp.difference_interval_coverage(
        (_X[:3], _X[3:]), 10, 1.0, lower=0.0, upper=10.0, reps=10, rng=g),
    "inference.quantile_interval_coverage": lambda g: dp.quantile_interval_coverage(
        _X, 10, 1.0, lower=0.0, upper=10.0, spread=1.0, resolution=64, reps=4, rng=g),
    "membership.inclusion_masks": lambda g: dpcourse.membership.inclusion_masks(6, 4, rng=g),
    "membership.train_models": lambda g: dpcourse.membership.train_models(
        lambda X, y, rng: rng.integers(-3, 4, size=2).astype(float), _MIA_X, _MIA_Y,
        dpcourse.membership.inclusion_masks(4, 2, rng=0), rng=g),
    "membership.canary_audit": lambda g: dpcourse.membership.canary_audit(
        _mia_train, _MIA_X, _MIA_Y, np.array([0.9, -0.9]), 1, 100, delta=1e-5, rng=g),
    "synthetic.mst_synthesize": lambda g: dpcourse.synthetic.mst_synthesize([[0, 1, 1], [1, 1, 0]] * 5, [2, 2, 2],
                                                                          1.0, n_records=10, rng=g).records,
    "synthetic.independent_synthesize": lambda g: dpcourse.synthetic.independent_synthesize(
        [[0, 1], [1, 1]] * 5, [2, 2], 1.0, n_records=10, rng=g).records,
    "synthetic.sample_tree": lambda g: dpcourse.synthetic.sample_tree(
        {0: np.array([0.5, 0.5]), 1: np.array([0.25, 0.75])},
        {(0, 1): np.array([[0.25, 0.25], [0.0, 0.5]])}, [(0, 1)], [2, 2], 20, rng=g),
    "synthetic.compare_methods": lambda g: dpcourse.synthetic.compare_methods(
        [[0, 1, 1], [1, 1, 0], [0, 0, 1]] * 4, [2, 2, 2], [1.0], mwem_iterations=2, mwem_passes=1, rng=g),
    "lower_bounds.fingerprinting_code": lambda g: dp.fingerprinting_code(5, 8, rng=g),
    "lower_bounds.tracing_trial": lambda g: dp.tracing_trial(5, 8, release="gaussian", epsilon=1.0, delta=1e-5,
                                                              n_outsiders=5, rng=g),
    "attacks.penguin_sex_bits": lambda g: dpcourse.queries.penguin_sex_bits(20, rng=g),
    "attacks.random_subset_queries": lambda g: dpcourse.queries.random_subset_queries(5, 8, rng=g),
    "attacks.tracing_experiment": lambda g: dpcourse.queries.tracing_experiment(20, 50, n_reference=100, rng=g),
    "svt.sparse_vector": lambda g: dp.sparse_vector([1.0, 5.0, 9.0], 4.0, 1.0, 2, rng=g),
    "svt.above_threshold": lambda g: dp.above_threshold([1.0, 5.0, 9.0], 4.0, 1.0, rng=g),
    "svt.sparse_vector_variant": lambda g: [dpcourse.queries.sparse_vector_variant(
        [1.0, 5.0, 9.0], 4.0, 1.0, 2, variant=v, rng=g) for v in dpcourse.queries.SVT_VARIANTS],
    "query_release.smalldb": lambda g: dp.smalldb(_HIST, _QUERIES, 1.0, m=2, rng=g),
    "query_release.mwem": lambda g: dp.mwem(_HIST, _QUERIES, 1.0, iterations=2, rng=g),
    "query_release.laplace_per_query": lambda g: dpcourse.queries.laplace_per_query(_HIST, _QUERIES, 1.0, rng=g),
    "query_release.gaussian_per_query": lambda g: dpcourse.queries.gaussian_per_query(_HIST, _QUERIES, 1.0, 1e-5,
                                                                                      rng=g),
    "query_release.error_versus_queries": lambda g: dpcourse.queries.error_versus_queries(
        _HIST, _QUERIES, [1, 2], 1.0, iterations=2, runs=2, rng=g),
    "rr.randomized_response": lambda g: dp.randomized_response([1, 0, 1], 1.0, rng=g),
    "contribution_bounding.bound_contributions": lambda g: dp.bound_contributions([1, 2, 2], [0, 1, 2], [1.0, 1.0, 1.0],
                                                                  max_partitions=1, max_per_partition=1, rng=g),
    "partition_selection.select_partitions": lambda g: dp.select_partitions(np.arange(30), np.zeros(30, int), 1.0, 1e-5, rng=g),
    "group_by.dp_group_by": lambda g: dp.dp_group_by(np.arange(30), np.arange(30) % 2, np.ones(30), 1.0, 1e-5,
                                                  bounds=(0.0, 1.0), max_partitions=1, max_per_partition=1, rng=g),
    "data.synthetic_events": lambda g: dpcourse.data.synthetic_events(50, n_keys=10, rng=g),
    "selection.exponential_mechanism": lambda g: dp.exponential_mechanism([0.0, 1.0, 3.0], 1.0, 1.0, size=5, rng=g),
    "selection.report_noisy_max": lambda g: dp.report_noisy_max([0.0, 1.0, 3.0], 1.0, 1.0, size=5, rng=g),
    "selection.permute_and_flip": lambda g: dp.permute_and_flip([0.0, 1.0, 3.0], 1.0, 1.0, size=5, rng=g),
}


def numbers(result):
    """Every number in a result (arrays, tuples, dicts, dataclasses), as floats: the contract's helper."""
    return contract._numbers(result)


def test_every_rng_function_is_in_the_sweep():
    found = rng_functions()
    assert "local_dp.krr" in found and "discrete.discrete_gaussian" in found  # the discovery itself works
    assert found == set(SWEEP), (sorted(found - set(SWEEP)), sorted(set(SWEEP) - found))


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_sweep_every_bit_generator(name):
    results = []
    for i, bit_generator in enumerate(BIT_GENERATORS):
        out = SWEEP[name](make(bit_generator, 100 + i))
        nums = numbers(out)
        assert not any(math.isnan(x) for x in nums), (name, bit_generator.__name__)
        results.append(out)
    # the same call under another bit generator has the same structure (shapes, keys)
    shapes = {str(np.shape(r)) if isinstance(r, np.ndarray) else type(r).__name__ for r in results}
    assert len(shapes) == 1, (name, shapes)


# dpcourse.plots: the simulations behind the figures run under MT19937 (the bit generator whose raw words
# differ); the plot_* functions draw those simulations and are left out of the sweep.
def plot_rng_functions():
    import dpcourse.plots
    import dpcourse.exercises
    found = set()
    for pkg in (dpcourse.plots, dpcourse.exercises):
        for info in pkgutil.iter_modules(pkg.__path__):
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for name, obj in vars(mod).items():
                # the exercise checkers' rng is the grader's own PCG64 Generator (default_rng), never a reader's:
                # tests/test_homework_questions_*.py and test_reference_solutions.py run them with it
                if pkg is dpcourse.exercises and name.startswith("check_") and info.name != "_draws":
                    continue
                if (inspect.isfunction(obj) and not name.startswith(("_", "plot_"))
                        and obj.__module__ == mod.__name__ and "rng" in inspect.signature(obj).parameters):
                    found.add(f"{pkg.__name__.split('.')[-1]}.{info.name}.{name}")
    return found


def _figs(module):
    return importlib.import_module(f"dpcourse.plots.{module}")


PLOT_SWEEP = {
    "exercises._draws.check_rng": lambda g: [g.integers(10) for _ in range(3)] if
        importlib.import_module("dpcourse.exercises._draws").check_rng(g) is g else [float("nan")],
    "exercises._draws.log_uniform": lambda g: importlib.import_module("dpcourse.exercises._draws").log_uniform(
        g, 0.01, 100.0),
    "plots.composition_basics.averaging_attack":
        lambda g: _figs("composition_basics").averaging_attack(10, 0.5, 4, n_analysts=200, rng=g),
    "plots.queries.sparse_vector_trace":
        lambda g: _figs("queries").sparse_vector_trace([1.0, 5.0, 9.0], 4.0, 1.0, rng=g),
    "plots.composition_basics.composed_laplace_losses":
        lambda g: _figs("composition_basics").composed_laplace_losses(0.5, 3, n_samples=500, rng=g),
    "plots.histogram.max_error_quantiles":
        lambda g: _figs("histogram").max_error_quantiles([1, 4], 1.0, "add_remove", n_trials=50, rng=g),
    "plots.laplace.mean_rmse": lambda g: _figs("laplace").mean_rmse(np.linspace(3000, 5000, 20), 2000, 7000, [10],
                                                                     [1.0], n_trials=10, rng=g),
    "plots.local_dp.simulated_standard_errors":
        lambda g: _figs("local_dp").simulated_standard_errors(200, 8, 1.0, runs=10, rng=g),
    "plots.quantiles.method_errors": lambda g: _figs("quantiles").method_errors(
        np.linspace(3000, 5000, 60), 2000.0, 7000.0, [30], [1.0], runs=2, rng=g),
    "plots.queries.reconstruction_curve":
        lambda g: _figs("queries").reconstruction_curve(16, 64, [0.0, 10.0], epsilon=1.0, runs=1, rng=g),
    "plots.queries.svt_versus_laplace": lambda g: _figs("queries").svt_versus_laplace([1, 10], 1.0, runs=20, rng=g),
    "plots.randomized_response.simulate_estimates":
        lambda g: _figs("randomized_response").simulate_estimates(np.arange(200) % 2, 1.0, 3, rng=g),
    "plots.randomized_response.rmse_vs_n":
        lambda g: _figs("randomized_response").rmse_vs_n([100, 400], 1.0, reps=20, rng=g),
    "plots.scale.bounding_tradeoff":
        lambda g: _figs("scale").bounding_tradeoff((1, 4), epsilon=1.0, max_per_partition=1, rng=g),
}


def test_every_plot_simulation_is_in_the_sweep():
    assert plot_rng_functions() == set(PLOT_SWEEP)


@pytest.mark.parametrize("name", sorted(PLOT_SWEEP))
def test_plot_simulations_run_under_mt19937(name):
    out = PLOT_SWEEP[name](make(np.random.MT19937, 7))
    assert not any(math.isnan(x) for x in numbers(out)), name


def test_legacy_random_state_is_refused_by_name():
    # The only other source of numpy randomness a user might pass: refused, never silently used.
    for fn in (lambda r: dp.krr([0, 1], 4, 1.0, rng=r), lambda r: dp.discrete_laplace(1.0, rng=r)):
        with pytest.raises(TypeError, match="rng"):
            fn(np.random.RandomState(0))
