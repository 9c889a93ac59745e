"""Tests of dpcourse.continual: the tree counter, the naive counts and the square-root factorization."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcourse
import dpcourse.continual as cc

ALPHA = 1e-6


def reference_tree(stream, noise):
    """The binary mechanism written from its definition: the dyadic intervals of 1..t, each a true sum plus the
    noise drawn at the step that closes it (one draw per step, in order)."""
    x = np.asarray(stream)
    out = []
    for t in range(1, len(x) + 1):
        total, start = 0, 0
        for j in reversed(range(t.bit_length())):
            if (t >> j) & 1:
                end = start + (1 << j)          # the interval (start, end] of length 2**j
                total += int(x[start:end].sum()) + int(noise[end - 1])
                start = end
        out.append(total)
    return out


def test_tree_levels_and_node_scale():
    assert [cc.tree_levels(T) for T in (1, 2, 3, 4, 7, 8, 2**16 - 1, 2**16)] == [1, 2, 2, 3, 3, 4, 16, 17]
    c = cc.TreeCounter(2**10, epsilon=0.5, rng=0)
    assert c.levels == 11 and c.noise_parameter == Fraction(22)           # L / epsilon exactly
    g = cc.TreeCounter(2**10, rho=0.25, rng=0)
    assert g.noise_parameter == Fraction(22)                                 # L / (2 rho)


@pytest.mark.parametrize("T,eps", [(13, 1.0), (64, 0.5), (100, 2.0)])
def test_answers_equal_the_dyadic_tree_from_its_definition(T, eps):
    x = np.random.default_rng(T).integers(0, 2, T)
    L = T.bit_length()
    noise = dpcourse.discrete_laplace(Fraction(L) / Fraction(eps), size=T, rng=7)   # the node scale L / epsilon
    c = cc.TreeCounter(T, eps, rng=7)
    assert [c.step(v) for v in x] == reference_tree(x, noise)


def test_step_feed_and_batch_agree(monkeypatch):
    monkeypatch.setattr(cc, "NOISE_BLOCK", 5)       # many refills inside one feed
    for T, kw in [(1, {"epsilon": 1.0}), (37, {"epsilon": 0.7}), (300, {"rho": 0.3})]:
        x = np.random.default_rng(T).integers(0, 2, T)
        a = cc.TreeCounter(T, rng=3, **kw)
        want = [a.step(v) for v in x]
        b = cc.TreeCounter(T, rng=3, **kw)
        cut1, cut2 = T // 3, (2 * T) // 3
        got = [b.step(v) for v in x[:cut1]] + b.feed(x[cut1:cut2]).tolist() + b.feed(x[cut2:]).tolist()
        assert got == want
    monkeypatch.setattr(cc, "NOISE_BLOCK", 1 << 16)
    x = np.random.default_rng(1).integers(0, 2, 200)
    assert cc.tree_counts(x, 1.0, rng=4).tolist() == cc.TreeCounter(200, 1.0, rng=4).feed(x).tolist()


def test_memory_is_logarithmic():
    c = cc.TreeCounter(2**40, 1.0, rng=0)
    for v in (1, 0, 1):
        c.step(v)
    assert len(c._noisy) == 41 and len(c._block) <= cc.NOISE_BLOCK


def test_single_node_answer_is_exact_discrete_laplace():
    """At t = 8 (one node) the error is one discrete Laplace of scale L / epsilon = 4 / 1: chi-square test."""
    T, eps, runs = 8, 1.0, 40_000
    x = np.zeros(T, dtype=int)
    err = cc.tree_counts(x, eps, runs=runs, rng=11)[:, 7]
    k = np.arange(-20, 21)
    p = dpcourse.discrete_laplace_pmf(k, 4.0)
    obs = np.array([np.sum(err == v) for v in k[1:-1]] + [np.sum(err <= k[0]), np.sum(err >= k[-1])])
    tail = dpcourse.discrete_laplace_pmf(np.arange(-400, -19), 4.0).sum()
    exp = runs * np.concatenate([p[1:-1], [tail, tail]])
    assert stats.chisquare(obs, exp).pvalue > ALPHA


@pytest.mark.parametrize("kw", [{"epsilon": 1.0}, {"rho": 0.5}])
def test_variance_of_every_answer(kw):
    """Empirical variance at each t against popcount(t) times the node variance, within 5 standard errors."""
    T, runs = 31, 4_000
    err = cc.tree_counts(np.ones(T, dtype=int), runs=runs, rng=5, **kw) - np.arange(1, T + 1)
    want = cc.tree_variance(np.arange(1, T + 1), T, **kw)
    got = err.var(axis=0)
    se = np.sqrt((np.mean((err - err.mean(0)) ** 4, axis=0) - got**2) / runs)
    assert np.all(np.abs(got - want) < 5 * se)
    assert tree_popcounts_are_right(want)


def tree_popcounts_are_right(var):
    return np.allclose(var / var[0], [bin(t).count("1") for t in range(1, len(var) + 1)])


def test_node_variance_formulas():
    b = 7.0   # L = 7 at epsilon = 1
    p = math.exp(-1 / b)
    assert math.isclose(cc.tree_node_variance(100, 1.0), 2 * p / (1 - p) ** 2, rel_tol=1e-12)
    assert 2 * b * b - 1 / 6 <= cc.tree_node_variance(100, 1.0) <= 2 * b * b
    k = np.arange(-200, 201)
    pmf = dpcourse.discrete_gaussian_pmf(k, math.sqrt(7 / 2))
    assert math.isclose(cc.tree_node_variance(100, rho=1.0), float(np.sum(k * k * pmf)), rel_tol=1e-9)


def test_discrete_laplace_variance_bounds():
    """2 b^2 - 1/6 <= v(b) <= 2 b^2, from 1/x^2 - 1/3 <= 1/sinh(x)^2 <= 1/x^2 (the chapter's naive theorem)."""
    x = np.geomspace(1e-2, 30, 20_000)      # below 1e-2 the float difference of 1/x^2 and 1/sinh^2 is noise
    inv = 1 / np.sinh(x) ** 2
    assert np.all(1 / x**2 - 1 / 3 <= inv * (1 + 1e-12)) and np.all(inv <= 1 / x**2)
    for T in (1, 2, 3, 100, 4096):
        v = float(cc.naive_variance(T, T, 1.0))
        assert 2 * T * T - 1 / 6 <= v * (1 + 1e-12) and v <= 2 * T * T * (1 + 1e-12)


def test_naive_counts_and_variances():
    T, eps, runs = 16, 1.0, 20_000
    x = np.random.default_rng(0).integers(0, 2, T)
    fresh = cc.naive_counts(x, eps, runs=2000, rng=0) - np.cumsum(x)
    var_fresh = cc.naive_variance(np.arange(1, T + 1), T, eps)
    assert np.allclose(var_fresh, 2 * math.exp(-1 / 16) / (1 - math.exp(-1 / 16)) ** 2)
    got = fresh.var()
    se = math.sqrt((np.mean((fresh - fresh.mean()) ** 4) - got**2) / fresh.size) * 4  # correlation-free bound x4
    assert abs(got - var_fresh[0]) < 5 * se
    inc = cc.naive_counts(x, eps, method="increments", runs=runs, rng=1) - np.cumsum(x)
    v1 = 2 * math.exp(-1) / (1 - math.exp(-1)) ** 2
    assert np.allclose(cc.naive_variance(np.arange(1, T + 1), T, eps, method="increments"), v1 * np.arange(1, T + 1))
    got_t = inc[:, -1].var()
    assert abs(got_t / (T * v1) - 1) < 5 * math.sqrt(2.5 / inc.shape[0])


def test_sqrt_factor_squares_to_prefix_sums():
    T = 16
    exact = [Fraction(math.comb(2 * k, k), 4**k) for k in range(T)]
    assert cc.sqrt_factor(T).tolist() == [float(f) for f in exact]
    for i in range(T):        # (L L)[i, j] = sum_k c_k c_{i-j-k} = 1 exactly
        for j in range(i + 1):
            assert sum(exact[k] * exact[i - j - k] for k in range(i - j + 1)) == 1
    c = cc.sqrt_factor(256)
    Lm = np.array([[c[i - j] if i >= j else 0.0 for j in range(256)] for i in range(256)])
    assert np.allclose(Lm @ Lm, np.tril(np.ones((256, 256))), atol=1e-12)
    assert math.isclose(cc.factorization_sensitivity(256), np.linalg.norm(Lm, axis=0).max(), rel_tol=1e-12)


def test_factorization_lattice_is_rho_zcdp():
    """The charged variance against an independent exact computation: the integer factor's column norm (Python
    ints) plus the rounding, in rational arithmetic."""
    for T, rho in [(64, 0.5), (1000, 0.01), (2**16, 2.0)]:
        exponent, variance, sigma = cc.factorization_lattice(T, rho)
        q = [round(float(Fraction(math.comb(2 * k, k), 4**k)) * 2**cc.COEF_BITS) for k in range(min(T, 64))]
        assert cc._integer_factor(T)[0][:64].tolist() == q
        n = sum(int(v) ** 2 for v in cc._integer_factor(T)[0])
        shift = cc.COEF_BITS + exponent
        # (sqrt(n) / 2^shift + sqrt(T))^2 <= 2 rho variance, squared out exactly
        a, b = Fraction(2 * rho) * variance, Fraction(n, 4**shift) + T
        assert a >= b and (a - b) ** 2 >= Fraction(4 * n * T, 4**shift)
        assert math.isclose(sigma, 2.0**exponent * math.sqrt(variance))


@pytest.mark.parametrize("T", [1, 7, 100])
def test_factorization_lattice_point_is_exact_and_neighbours_close(T):
    """The perturbed lattice point equals round(Q x / 2^shift) computed with Python ints, and every neighbour's
    lattice point is within the charged l2 distance (the zCDP of the discrete Gaussian: ||d||^2 / (2 variance))."""
    x = np.random.default_rng(T).integers(0, 2, T)
    for rho in (0.01, 0.5, 1e6):
        exponent, variance, _ = cc.factorization_lattice(T, rho)
        q = [int(v) for v in cc._integer_factor(T)[0]]
        shift = cc.COEF_BITS + exponent
        point = cc._factorization_steps(x, exponent)
        exact = [sum(q[k] * int(x[t - k]) for k in range(t + 1)) for t in range(T)]
        assert point.tolist() == [(v + (1 << shift >> 1)) >> shift for v in exact]
        for s in range(T):
            xp = x.copy()
            xp[s] ^= 1
            d = (cc._factorization_steps(xp, exponent) - point).astype(object)
            assert Fraction(int(np.sum(d * d)), 2 * variance) <= Fraction(rho)


def test_factorization_variance_measured():
    """Noise of answer t: sigma^2 (c_0^2 + ... + c_{t-1}^2), sigma^2 >= (largest column norm)^2 / (2 rho)."""
    T, rho, runs = 64, 0.5, 3000
    x = np.random.default_rng(2).integers(0, 2, T)
    err = cc.factorization_counts(x, rho, runs=runs, rng=9) - np.cumsum(x)
    c = cc.sqrt_factor(T)
    Lm = np.array([[c[i - j] if i >= j else 0.0 for j in range(T)] for i in range(T)])
    sigma2_min = np.linalg.norm(Lm, axis=0).max() ** 2 / (2 * rho)        # independent of the module's sensitivity
    for t in (1, 8, 64):
        got = err[:, t - 1].var()
        want = cc.factorization_variance(t, T, rho)
        assert abs(got / want - 1) < 5 * math.sqrt(2 / runs)
        assert want >= sigma2_min * np.sum(c[:t] ** 2)
    assert abs(err.mean()) < 5 * math.sqrt(cc.factorization_variance(T, T, rho) / runs)


def test_audit_tree_counter_not_refuted_and_broken_caught():
    """Neighbours differ in the first event, which lies in the L = 3 released nodes answered at t = 1, 2, 4.
    The audit statistic is the privacy loss of those nodes (post-processing)."""
    x, xp = np.array([0, 1, 1, 0]), np.array([1, 1, 1, 0])
    idx = [0, 1, 3]

    def loss(y):
        n = y[:, idx]
        return (np.abs(n - np.cumsum(xp)[idx]) - np.abs(n - np.cumsum(x)[idx])).sum(axis=1)

    def counter(stream, rng, size):
        return loss(cc.tree_counts(stream, 1.0, runs=size, rng=rng))

    def broken(stream, rng, size):      # the scale without the log T factor: L / epsilon' = 1 / epsilon
        return loss(cc.tree_counts(stream, 3.0, runs=size, rng=rng))

    ok = dpcourse.audit_epsilon(counter, x, xp, 40_000, rng=1, confidence=1 - ALPHA)
    assert not ok.refutes(1.0) and ok.lower_bound > 0.5
    bad = dpcourse.audit_epsilon(broken, x, xp, 40_000, rng=2, confidence=1 - ALPHA)
    assert bad.refutes(1.0)


@pytest.mark.parametrize("call,word", [
    (lambda: cc.TreeCounter(0, 1.0), "horizon"),
    (lambda: cc.TreeCounter(2**41, 1.0), "horizon"),
    (lambda: cc.TreeCounter(8, 0.0), "epsilon"),
    (lambda: cc.TreeCounter(8, float("nan")), "epsilon"),
    (lambda: cc.TreeCounter(8), "exactly one"),
    (lambda: cc.TreeCounter(8, 1.0, rho=0.5), "exactly one"),
    (lambda: cc.TreeCounter(8, rho=-1.0), "rho"),
    (lambda: cc.tree_variance(9, 8, 1.0), "t must"),
    (lambda: cc.naive_counts([0, 1], 1.0, method="tree"), "method"),
    (lambda: cc.factorization_counts([0, 1], 0.0), "rho"),
    (lambda: cc.tree_counts([0, 1, 1], 1.0, horizon=2), "horizon"),
    (lambda: cc.tree_counts([0, 1], 1.0, runs=10**7), "runs"),
])
def test_bad_public_parameters(call, word):
    with pytest.raises((ValueError, TypeError), match=word):
        call()


def test_bad_events_and_horizon_refused_without_data():
    c = cc.TreeCounter(3, 1.0, rng=0)
    with pytest.raises(ValueError) as info:
        c.step(7)
    assert "7" not in str(info.value)
    with pytest.raises(ValueError) as info:
        c.feed([0, 5, 1])
    assert "5" not in str(info.value)
    c.feed([1, 1, 0])
    with pytest.raises(ValueError, match="horizon"):
        c.step(1)
    with pytest.raises(ValueError, match="horizon"):
        cc.TreeCounter(2, 1.0).feed([1, 1, 1])


def test_crossover_numbers_of_the_exercise():
    """Exercise cr-ex-crossover: the largest answer variances (Laplace tree / noisy increments) at T = 2^10 and 2^11,
    epsilon = 1 (about 2418 / 1886 and 3166 / 3771), and the tree wins from 2^11 on at epsilon = 1 and 0.3 alike."""
    def largest(T, eps):
        t = np.arange(1, T + 1)
        return (cc.tree_variance(t, T, eps).max(), cc.naive_variance(t, T, eps, method="increments").max())
    assert [round(v) for v in largest(2**10, 1.0) + largest(2**11, 1.0)] == [2418, 1886, 3166, 3771]
    for eps in (1.0, 0.3):
        assert [k for k in range(4, 15) if largest(2**k, eps)[0] < largest(2**k, eps)[1]] == list(range(11, 15))


def test_checkers_accept_the_answer_and_name_the_slips():
    from dpcourse.exercises.continual import check_node_scale, check_tree_variance
    assert check_node_scale(lambda h, e: h.bit_length() / e)
    assert "power of two" in check_node_scale(lambda h, e: math.ceil(math.log2(h)) / e).message
    assert "whole number" in check_node_scale(lambda h, e: math.log2(h) / e).message
    assert "write yourself" in check_node_scale(lambda h, e: dpcourse.tree_levels(h) / e).message
    assert "write yourself" in check_node_scale(lambda h, e: float(dpcourse.TreeCounter(h, e).noise_parameter)).message
    b = 10.0                                                    # T = 1000: L = 10 levels; t = 1000 has six 1 bits
    v = 1 / (2 * math.sinh(1 / (2 * b)) ** 2)
    assert check_tree_variance(6 * v) and not check_tree_variance(6 * v * 1.002)
    assert "continuous" in check_tree_variance(6 * 2 * b * b).message
    assert "binary expansion" in check_tree_variance(10 * v).message


def test_every_event_in_at_most_levels_released_nodes():
    """Lemma cr-lem-tree-sensitivity for every T <= 600 (powers of two and not): the released nodes (t - 2^i, t],
    i = trailing zeros of t <= T, cover each step at most L = floor(log2 T) + 1 times, and the first step exactly L."""
    for T in range(1, 601):
        cover = np.zeros(T + 2, dtype=int)
        for t in range(1, T + 1):
            cover[t - (t & -t) + 1] += 1
            cover[t + 1] -= 1
        cover = np.cumsum(cover)[1:T + 1]
        assert cover.max() == cover[0] == cc.tree_levels(T) == math.floor(math.log2(T)) + 1
