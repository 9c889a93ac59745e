"""Tests of dpcourse.local_dp: exact privacy loss, exact sampling distributions, unbiasedness, variance,
the shuffle bound, and named errors on bad input.

Statistical tests are seeded and use alpha = 1e-6 (critical values computed with scipy), so a correct
implementation never flakes and a wrong constant fails.
"""

from __future__ import annotations

import itertools
import math
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcourse.local_dp as L

ALPHA = 1e-6
Z_CRIT = stats.norm.isf(ALPHA / 2)  # two-sided, 4.89


# ---------------------------------------------------------------------------------------------------
# Ideal probabilities, computed here independently of the module (the formulas of the chapter)
# ---------------------------------------------------------------------------------------------------

def ideal(oracle, d, eps):
    e = math.exp(eps)
    if oracle == "krr":
        return e / (e + d - 1), 1 / (e + d - 1)
    if oracle == "oue":
        return 0.5, 1 / (e + 1)
    if oracle == "sue":
        h = math.exp(eps / 2)
        return h / (h + 1), 1 / (h + 1)
    g = round(e) + 1
    return e / (e + g - 1), 1 / (e + g - 1)


@pytest.mark.parametrize("oracle", L._ORACLES)
@pytest.mark.parametrize("eps", [1e-3, 0.1, 1.0, math.log(3), 4.0, 10.0, 20.0])
@pytest.mark.parametrize("d", [2, 10, 1000])
def test_probabilities_are_the_ideal_ones(oracle, eps, d):
    pr = L.oracle_probabilities(oracle, d, eps)
    p, q = ideal(oracle, d, eps)
    assert float(pr["p"]) == pytest.approx(p, rel=1e-13)
    assert float(pr["q"]) == pytest.approx(q, rel=1e-13)
    # the achieved epsilon: never above eps (beyond the float error of a logarithm), and within 1e-12 below
    assert pr["epsilon"] <= eps + 1e-15
    assert eps - pr["epsilon"] < deficit_bound(oracle, d, eps)
    assert eps - pr["epsilon"] < (1e-12 if eps <= 15 else 1e-10)


def deficit_bound(oracle, d, eps):
    """The module docstring's bound on eps - achieved eps: 2**-48 + 2**-63 + 2**-64 / s per coin, s the
    probability of the coin's less likely side (symmetric unary encoding: two coins at eps / 2)."""
    if oracle == "sue":
        x = math.exp(-eps / 2)
        return 2 * (2.0**-48 + 2.0**-63 + 2.0**-64 / (x / (1 + x)))
    k = {"krr": d, "oue": 2, "olh": round(math.exp(eps)) + 1 if eps < 21 else L.HASH_PRIME}[oracle]
    x = (k - 1) * math.exp(-eps)
    return 2.0**-48 + 2.0**-63 + 2.0**-64 / min(x / (1 + x), 1 / (1 + x))


@pytest.mark.parametrize("oracle", L._ORACLES)
@pytest.mark.parametrize("d", [2, 1000, 2**24])
def test_min_epsilon_holds_at_every_domain_size(oracle, d):
    # The documented minimum (MIN_EPSILON = 1e-9) holds for every d <= 2**24, within 1e-12 of what was asked
    # (the old rounding of the flip coin refused eps = 1e-9 at d = 2**24).
    eps = L.MIN_EPSILON
    pr = L.oracle_probabilities(oracle, d, eps)
    assert pr["p"] > pr["q"]
    assert eps - 1e-12 < pr["epsilon"] <= eps + 1e-15
    assert eps - pr["epsilon"] < deficit_bound(oracle, d, eps)
    if oracle == "krr":
        assert L.krr([0, d - 1], d, eps, rng=0).shape == (2,)
        assert L.krr_variance(10, d, eps) > 0


def test_min_epsilon_is_refused_below_by_name():
    with pytest.raises(ValueError, match="epsilon"):
        L.krr([0, 1], 2**24, L.MIN_EPSILON / 2, rng=0)


def test_huge_epsilon_is_capped_below_the_request():
    for oracle in L._ORACLES:
        pr = L.oracle_probabilities(oracle, 10, 1e6)
        assert 0 < pr["q"] and pr["epsilon"] < 100.0


def exp_lower(eps):
    """A rational lower bound of e^eps, independent of dpcourse: decimal's exp is correctly rounded (60
    digits, rounded down, then one unit lower). Exponents are cut to 200: every achieved ratio is < 2**130."""
    with localcontext() as ctx:
        ctx.prec, ctx.rounding = 60, ROUND_FLOOR
        return Fraction(Decimal(min(eps, 200.0)).exp().next_minus())


def exact_grid():
    """(eps, d): extremes of both, the k-RR branch switch e^eps = d - 1, OLH's g steps, 100 seeded draws."""
    eps_list = [L.MIN_EPSILON, 2e-9, 1e-7, 1e-4, 0.01, 0.3, 1.0, math.log(3), 2.0, 5.0, 10.0, 15.0, 20.0,
                math.log(L.HASH_PRIME), 30.0, 44.0, 45.0, 100.0, 1e6, float(np.finfo(float).max)]
    grid = [(e, d) for e in eps_list for d in (2, 3, 10, 1000, 2**24 - 1, 2**24)]
    grid += [(float(e), d) for d in (3, 5, 1001, 2**24) for e in (math.log(d - 1), np.nextafter(math.log(d - 1), 0))]
    grid += [(math.log(k + 0.5), 10) for k in (1, 2, 7, 100, 10**6)]
    draw = np.random.default_rng(21)
    grid += [(float(math.exp(draw.uniform(math.log(1e-9), math.log(50)))), int(draw.integers(2, 2**24, endpoint=True)))
             for _ in range(100)]
    return grid


@pytest.mark.parametrize("oracle", L._ORACLES)
def test_achieved_epsilon_never_exceeds_the_request_exactly(oracle):
    # The privacy promise itself, with no float tolerance: the exact ratio of the coins' dyadic probabilities
    # is <= e^eps. The float check above (<= eps + 1e-15) cannot see a coin rounded from the float probability
    # without the 2**-50 margin (the ratio is above e^eps in 289 of these 932 cases); this can.
    for eps, d in exact_grid():
        pr = L.oracle_probabilities(oracle, d, eps)
        p, q = pr["p"], pr["q"]
        ratio = p * (1 - q) / ((1 - p) * q) if oracle in ("sue", "oue") else p / q
        assert ratio <= exp_lower(eps), (oracle, eps, d)


# ---------------------------------------------------------------------------------------------------
# Exact privacy loss on the worst pair of inputs, from the exact output distributions
# ---------------------------------------------------------------------------------------------------

def max_loss(dists):
    """Largest ln(P[y|v] / P[y|v']) over all outputs y and ordered pairs (v, v'), exactly (Fractions)."""
    worst = Fraction(1)
    for pv, pw in itertools.permutations(dists, 2):
        for a, b in zip(pv, pw):
            assert b > 0 or a == 0, "a neighbour's output is impossible"
            if b > 0:
                worst = max(worst, a / b)
    return math.log(worst.numerator) - math.log(worst.denominator)


def krr_dists(d, eps):
    pr = L.oracle_probabilities("krr", d, eps)
    return [[pr["p"] if y == v else pr["q"] for y in range(d)] for v in range(d)]


def ue_dists(d, eps, optimized):
    pr = L.oracle_probabilities("oue" if optimized else "sue", d, eps)
    out = []
    for v in range(d):
        dist = []
        for bits in itertools.product((0, 1), repeat=d):  # all 2^d outputs
            prob = Fraction(1)
            for j, bit in enumerate(bits):
                on = pr["p"] if j == v else pr["q"]
                prob *= on if bit else 1 - on
            dist.append(prob)
        assert sum(dist) == 1
        out.append(dist)
    return out


def olh_dists(d, eps, a, b):
    """Exact distribution of y for each value, given the hash (a, b): the report (a, b, y) has the same ratio."""
    pr = L.oracle_probabilities("olh", d, eps)
    g = pr["g"]
    return [[pr["p"] if y == ((a * v + b) % L.HASH_PRIME) % g else pr["q"] for y in range(g)] for v in range(d)]


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_exact_loss_equals_epsilon_and_a_stricter_claim_fails(eps):
    d = 4
    rng = np.random.default_rng(1)
    cases = {"krr": krr_dists(d, eps), "sue": ue_dists(d, eps, False), "oue": ue_dists(d, eps, True)}
    for oracle, dists in cases.items():
        loss = max_loss(dists)
        assert abs(loss - eps) < 1e-12, oracle
        assert loss > eps / 1.1, oracle                      # a claim 10% stricter is false
        assert max_loss(
            krr_dists(d, 1.1 * eps) if oracle == "krr" else ue_dists(d, 1.1 * eps, oracle == "oue")
        ) > eps                                              # the mechanism run at 1.1 eps breaks the claim eps
    for _ in range(5):  # OLH, hash by hash
        a, b = int(rng.integers(1, L.HASH_PRIME)), int(rng.integers(0, L.HASH_PRIME))
        dists = olh_dists(d, eps, a, b)
        g = L.oracle_probabilities("olh", d, eps)["g"]
        hashes = {((a * v + b) % L.HASH_PRIME) % g for v in range(d)}
        loss = max_loss(dists)
        if len(hashes) > 1:
            assert abs(loss - eps) < 1e-12 and loss > eps / 1.1
        else:
            assert loss == 0.0


def test_olh_worst_pair_has_two_hash_values():
    # with a = 1, b = 0 and values 0, 1 the hashes differ (g >= 2): the loss is exactly eps on that pair
    eps = 2.0
    loss = max_loss([olh_dists(2, eps, 1, 0)[0], olh_dists(2, eps, 1, 0)[1]])
    assert abs(loss - eps) < 1e-12


def test_unary_encoding_distribution_ratio_by_formula():
    # the exact enumeration agrees with the closed form ln(p(1-q)/((1-p)q))
    for opt in (False, True):
        pr = L.oracle_probabilities("oue" if opt else "sue", 3, 1.3)
        assert abs(max_loss(ue_dists(3, 1.3, opt)) - pr["epsilon"]) < 1e-13


# ---------------------------------------------------------------------------------------------------
# The samplers draw from exactly those distributions (chi-square at alpha = 1e-6)
# ---------------------------------------------------------------------------------------------------

def chi2_ok(observed, expected_probs):
    observed = np.asarray(observed, dtype=float)
    expected = observed.sum() * np.asarray([float(x) for x in expected_probs])
    stat = float(((observed - expected) ** 2 / expected).sum())
    return stat < stats.chi2.isf(ALPHA, len(observed) - 1), stat


@pytest.mark.parametrize("eps", [0.7, 2.5])
def test_krr_sampler_distribution(eps):
    d = 5
    pr = L.oracle_probabilities("krr", d, eps)
    for v in (0, 2, 4):
        rep = L.krr(np.full(100_000, v), d, eps, rng=10 + v)
        ok, stat = chi2_ok(np.bincount(rep, minlength=d), [pr["p"] if y == v else pr["q"] for y in range(d)])
        assert ok, (v, stat)


@pytest.mark.parametrize("optimized", [False, True])
def test_unary_encoding_joint_distribution(optimized):
    d, eps = 3, 1.2
    dists = ue_dists(d, eps, optimized)
    for v in range(d):
        rep = L.unary_encoding(np.full(60_000, v), d, eps, optimized=optimized, rng=20 + v)
        bits = np.unpackbits(rep, axis=1, count=d)
        code = bits @ (1 << np.arange(d - 1, -1, -1))  # same order as itertools.product
        ok, stat = chi2_ok(np.bincount(code, minlength=2**d), dists[v])
        assert ok, (optimized, v, stat)
        assert not np.unpackbits(rep, axis=1)[:, d:].any()  # padding bits are zero


def test_unary_encoding_large_domain_bit_frequencies():
    d, eps, n = 20, 0.8, 20_000
    pr = L.oracle_probabilities("oue", d, eps)
    rep = L.unary_encoding(np.full(n, 13), d, eps, rng=5)
    ones = np.unpackbits(rep, axis=1, count=d).sum(axis=0)
    probs = np.array([float(pr["p"] if j == 13 else pr["q"]) for j in range(d)])
    z = (ones - n * probs) / np.sqrt(n * probs * (1 - probs))
    assert np.abs(z).max() < stats.norm.isf(ALPHA / (2 * d))


def test_olh_sampler_distribution():
    d, eps, n = 50, 1.5, 100_000
    pr = L.oracle_probabilities("olh", d, eps)
    g = pr["g"]
    v = np.random.default_rng(3).integers(0, d, n)
    rep = L.local_hashing(v, d, eps, rng=4)
    a, b, y = rep.T
    assert a.min() >= 1 and a.max() < L.HASH_PRIME and b.min() >= 0 and b.max() < L.HASH_PRIME
    h = (a * v + b) % L.HASH_PRIME % g
    ok, stat = chi2_ok(np.bincount((y - h) % g, minlength=g), [pr["p"]] + [pr["q"]] * (g - 1))
    assert ok, stat
    # the hash values of different users' values are (nearly) uniform on [0, g): no fixed hash
    ok, stat = chi2_ok(np.bincount(h, minlength=g), [Fraction(1, g)] * g)
    assert ok, stat


class ScriptedGenerator(np.random.Generator):
    """A numpy Generator whose 64-bit coin draws (integers(0, 2**64, dtype=uint64)) are the given words, in
    order; every other draw comes from PCG64. Lets a test put a coin's uniform draw exactly on its threshold."""

    def __init__(self, words):
        super().__init__(np.random.PCG64(0))
        self.words = [int(w) for w in words]

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if dtype is np.uint64 and low == 0 and high == 2**64 and not endpoint:
            m = int(np.prod(size))
            out, self.words = self.words[:m], self.words[m:]
            assert len(out) == m, "the scripted words ran out"
            return np.array(out, dtype=np.uint64).reshape(size)
        return super().integers(low, high, size=size, dtype=dtype, endpoint=endpoint)


def flip_threshold(oracle, d, eps):
    """T = 2**64 P[the coin flips], from the exact probabilities of oracle_probabilities (not the code's T)."""
    pr = L.oracle_probabilities(oracle, d, eps)
    k = d if oracle == "krr" else pr["g"]
    flip = pr["q"] * (k - 1)
    assert (flip * 2**64).denominator == 1
    return int(flip * 2**64)


@pytest.mark.parametrize("d,eps", [(4, 1.0), (2, 0.3), (1000, 2.0), (2**24, 1e-9), (3, 40.0)])
def test_krr_coin_flips_exactly_below_its_threshold(d, eps):
    # The coin is heads exactly when the 64-bit word is < 2**64 P[flip]: one word off either way changes the
    # report. Catches an off-by-one threshold and a float comparison, which no sampling test can see.
    t = flip_threshold("krr", d, eps)
    words = [t - 1, t, 0, 2**64 - 1]
    rep = L.krr(np.zeros(4, dtype=int), d, eps, rng=ScriptedGenerator(words))
    assert (rep != 0).tolist() == [True, False, True, False]


def test_olh_coin_flips_exactly_below_its_threshold():
    d, eps = 50, 1.5
    t = flip_threshold("olh", d, eps)
    g = L.oracle_probabilities("olh", d, eps)["g"]
    v = np.array([3, 3, 7, 7])
    rep = L.local_hashing(v, d, eps, rng=ScriptedGenerator([t - 1, t, t + 1, 0]))
    a, b, y = rep.T
    assert (y != (a * v + b) % L.HASH_PRIME % g).tolist() == [True, False, False, True]


@pytest.mark.parametrize("optimized", [True, False])
def test_unary_encoding_coins_are_exact_at_their_thresholds(optimized):
    d, eps = 3, 1.2
    pr = L.oracle_probabilities("oue" if optimized else "sue", d, eps)
    t1, t0 = int(pr["p"] * 2**64), int(pr["q"] * 2**64)   # bit v is 1 iff word < t1, another bit iff word < t0
    # user 0 holds value 1: the d words of the other-bit coins (row-major), then the word of bit 1's own coin
    words = [t0 - 1, t0, t0, t1 - 1]
    bits = np.unpackbits(L.unary_encoding([1], d, eps, optimized=optimized, rng=ScriptedGenerator(words)),
                         axis=1, count=d)
    assert bits.tolist() == [[1, 1, 0]]
    words = [t0, t0 - 1, t0, t1]
    bits = np.unpackbits(L.unary_encoding([1], d, eps, optimized=optimized, rng=ScriptedGenerator(words)),
                         axis=1, count=d)
    assert bits.tolist() == [[0, 0, 0]]


def test_collision_probability_brute_force(monkeypatch):
    monkeypatch.setattr(L, "HASH_PRIME", 13)
    for g in (2, 3, 4, 5, 13):
        for u, v in ((0, 1), (2, 9)):
            hits = sum((((a * u + b) % 13) % g) == (((a * v + b) % 13) % g) for a in range(1, 13) for b in range(13))
            assert L._collision_probability(g) == Fraction(hits, 12 * 13)


def test_collision_probability_is_below_one_over_g():
    # lemma lem-ldp-collision: with P = g k + r, P(P-1) - g sum_j m_j(m_j - 1) = r^2 - r + g(g-1)k > 0, so c < 1/g
    # (the chapter says this family collides slightly less often than an ideal hash: OLH gains ~1e-9 at ln 3).
    P = L.HASH_PRIME
    for g in (2, 3, 4, 21, 56, 1000, 2**20, P - 1, P):
        k, r = divmod(P, g)
        c = L._collision_probability(g)
        assert P * (P - 1) * (1 - g * c) == r * r - r + g * (g - 1) * k and c < Fraction(1, g)
    e = math.log(3)
    assert L.local_hashing_variance(1, 2, e) < L.unary_encoding_variance(1, 2, e)


def test_olh_estimator_unbiased_and_variance_exact_by_enumeration(monkeypatch):
    # Every (a, b, y) of one user under a small prime, in exact fractions: E[estimate_x] = [x = v] and the
    # variance is local_hashing_variance(1, ...), for the value held and for the others.
    monkeypatch.setattr(L, "HASH_PRIME", 13)
    d, v = 5, 2
    for eps in (0.3, 1.8):
        pr = L.oracle_probabilities("olh", d, eps)
        g, p, q, qs = pr["g"], pr["p"], pr["q"], pr["q_support"]
        rows = [(a, b, y) for a in range(1, 13) for b in range(13) for y in range(g)]
        prob = [Fraction(1, 12 * 13) * (p if y == (a * v + b) % 13 % g else q) for a, b, y in rows]
        est = L.local_hashing_estimate(np.array(rows), d, eps)  # sum over all rows of the per-row estimates
        for x in range(d):
            per_row = [((1 if (a * x + b) % 13 % g == y else 0) - qs) / (p - qs) for a, b, y in rows]
            mean = sum(w * e for w, e in zip(prob, per_row))
            var = sum(w * e * e for w, e in zip(prob, per_row)) - mean**2
            assert mean == (x == v)
            assert L.local_hashing_variance(1, d, eps, count=int(x == v)) == pytest.approx(float(var), rel=1e-12)
            assert est[x] == pytest.approx(float(sum(per_row)), rel=1e-9, abs=1e-9)


def test_fresh_randomness_per_user_and_seed_reproducibility():
    v = np.zeros(1000, dtype=int)
    assert np.array_equal(L.krr(v, 4, 1.0, rng=7), L.krr(v, 4, 1.0, rng=7))
    r = L.local_hashing(v, 4, 1.0, rng=8)
    assert len(np.unique(r[:, 0])) > 990  # each user has their own hash
    u = L.unary_encoding(v, 64, 1.0, rng=9)
    assert len({row.tobytes() for row in u}) > 900


# ---------------------------------------------------------------------------------------------------
# Estimators: unbiased (CLT z-test) and variance equal to the exact formula (within 5%)
# ---------------------------------------------------------------------------------------------------

D, N_USERS, EPS = 8, 300, 1.0
TRUE_VALUES = np.repeat(np.arange(D), [120, 60, 40, 30, 20, 15, 10, 5])  # 300 users
TRUE_COUNTS = np.bincount(TRUE_VALUES, minlength=D)


def run_oracle(oracle, runs, seed):
    """Estimates of R independent runs (one randomizer call for all R*n users, one estimate per run)."""
    vals = np.tile(TRUE_VALUES, runs)
    if oracle == "krr":
        rep = L.krr(vals, D, EPS, rng=seed).reshape(runs, N_USERS)
        return np.array([L.krr_estimate(r, D, EPS) for r in rep])
    if oracle in ("sue", "oue"):
        opt = oracle == "oue"
        rep = L.unary_encoding(vals, D, EPS, optimized=opt, rng=seed).reshape(runs, N_USERS, -1)
        return np.array([L.unary_encoding_estimate(r, D, EPS, optimized=opt) for r in rep])
    rep = L.local_hashing(vals, D, EPS, rng=seed).reshape(runs, N_USERS, 3)
    return np.array([L.local_hashing_estimate(r, D, EPS) for r in rep])


def formula(oracle, count):
    if oracle == "krr":
        return L.krr_variance(N_USERS, D, EPS, count=count)
    if oracle in ("sue", "oue"):
        return L.unary_encoding_variance(N_USERS, D, EPS, optimized=oracle == "oue", count=count)
    return L.local_hashing_variance(N_USERS, D, EPS, count=count)


RUNS = 6_000


@pytest.fixture(scope="module")
def estimates():
    return {o: run_oracle(o, RUNS, seed=100 + i) for i, o in enumerate(L._ORACLES)}


@pytest.mark.parametrize("oracle", L._ORACLES)
def test_estimator_unbiased(estimates, oracle):
    est = estimates[oracle]
    var = np.array([formula(oracle, c) for c in TRUE_COUNTS])
    z = (est.mean(axis=0) - TRUE_COUNTS) / np.sqrt(var / RUNS)
    assert np.abs(z).max() < stats.norm.isf(ALPHA / (2 * D)), z  # Bonferroni over the d values


def sample_variance_se(x):
    """Standard error of the sample variance divided by the true variance: sqrt((m4/s^4 - (R-3)/(R-1))/R)."""
    kurt = stats.kurtosis(x, fisher=False)
    return math.sqrt((kurt - (len(x) - 3) / (len(x) - 1)) / len(x))


@pytest.mark.parametrize("oracle", L._ORACLES)
def test_variance_matches_formula(estimates, oracle):
    est = estimates[oracle]
    var = np.array([formula(oracle, c) for c in TRUE_COUNTS])
    # Pooled over the d values: each run gives w = mean_j (est_j - c_j)^2 / Var_j, whose expectation is 1
    # exactly when every variance formula is right; the R runs are independent, so the standard error of
    # mean(w) is std(w)/sqrt(R), computed from the data (about 0.8% here, so 5% is > 4.89 standard errors).
    w = (((est - TRUE_COUNTS) ** 2) / var).mean(axis=1)
    ratio, se = w.mean(), w.std(ddof=1) / math.sqrt(RUNS)
    assert 0.05 > Z_CRIT * se, f"5% is not far enough above the sampling error {se}: use more runs"
    assert abs(ratio - 1) < 0.05, (oracle, ratio)
    assert abs(ratio - 1) < Z_CRIT * se, (oracle, ratio, se)
    # and value by value, within the sampling error of each sample variance (about 1.8% each, so 9% at 1e-6)
    for j, c in enumerate(TRUE_COUNTS):
        x = est[:, j]
        r_j = x.var(ddof=1) / var[j]
        assert abs(r_j - 1) < Z_CRIT * sample_variance_se(x), (oracle, c, r_j)


def test_estimates_sum_to_n_for_krr_and_oue_means():
    rep = L.krr(TRUE_VALUES, D, EPS, rng=3)
    assert L.krr_estimate(rep, D, EPS).sum() == pytest.approx(N_USERS, rel=1e-12)


# ---------------------------------------------------------------------------------------------------
# Variance formulas by hand, and the choice rule
# ---------------------------------------------------------------------------------------------------

def test_variance_closed_forms():
    n, e = 1000, math.e
    assert L.krr_variance(n, 5, 1.0) == pytest.approx(n * (e + 3) / (e - 1) ** 2, rel=1e-12)
    assert L.unary_encoding_variance(n, 5, 1.0) == pytest.approx(n * 4 * e / (e - 1) ** 2, rel=1e-12)
    h = math.exp(0.5)
    assert L.unary_encoding_variance(n, 5, 1.0, optimized=False) == pytest.approx(n * h / (h - 1) ** 2, rel=1e-12)
    # count term: Var = (c p(1-p) + (n-c) q(1-q)) / (p-q)^2
    p, q = ideal("krr", 5, 1.0)
    assert L.krr_variance(n, 5, 1.0, count=300) == pytest.approx(
        (300 * p * (1 - p) + 700 * q * (1 - q)) / (p - q) ** 2, rel=1e-12)
    # OLH with e^eps + 1 an integer (eps = ln 3, g = 4) is OUE up to the hash's collision probability
    assert L.local_hashing_variance(n, 5, math.log(3)) == pytest.approx(
        L.unary_encoding_variance(n, 5, math.log(3)), rel=1e-8)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 3.0])
def test_choice_rule_krr_below_3e_eps_plus_2(eps):
    n = 10_000
    threshold = 3 * math.exp(eps) + 2
    for d in range(2, int(threshold) + 40):
        krr_better = L.krr_variance(n, d, eps) < L.unary_encoding_variance(n, d, eps)
        assert krr_better == (d < threshold), d


# ---------------------------------------------------------------------------------------------------
# Shuffle amplification
# ---------------------------------------------------------------------------------------------------

def test_shuffle_matches_authors_published_interval():
    # README of apple/ml-shuffling-amplification: n = 1e5, eps0 = 4, delta = 1e-6 -> eps in [0.16754, 0.17279]
    eps = L.shuffle_amplification_epsilon(4.0, 100_000, 1e-6)
    assert 0.16754 <= eps <= 0.17279


def brute_clone_delta(eps, eps0, n):
    """D_{e^eps}(P0 || P1) by enumerating every (c, x), independently of the closed-form tails."""
    p = math.exp(-eps0)
    alpha = math.exp(eps0) / (math.exp(eps0) + 1)
    total = 0.0
    for c in range(n):
        wc = stats.binom.pmf(c, n - 1, p)
        a = stats.binom.pmf(np.arange(c + 1), c, 0.5)
        p0 = np.zeros(c + 2)
        p1 = np.zeros(c + 2)
        p0[1:] += alpha * a
        p0[:-1] += (1 - alpha) * a
        p1[:-1] += alpha * a
        p1[1:] += (1 - alpha) * a
        total += wc * np.maximum(p0 - math.exp(eps) * p1, 0).sum()
    return total


@pytest.mark.parametrize("eps0,n", [(1.0, 30), (3.0, 60), (0.3, 45)])
def test_clone_divergence_by_enumeration(eps0, n):
    for eps in (0.05, 0.2, 0.5 * eps0):
        got = L._clone_delta(eps, eps0, n)
        want = brute_clone_delta(eps, eps0, n)
        assert want - 1e-14 <= got <= want + 1e-13  # equal up to float rounding; got also charges 1 - sum(pmf)


def test_shuffle_bound_at_most_closed_form_and_local():
    for eps0 in (0.5, 1.0, 2.0, 4.0):
        for n in (10_000, 100_000):
            num = L.shuffle_amplification_epsilon(eps0, n, 1e-6)
            closed = L.shuffle_amplification_epsilon(eps0, n, 1e-6, method="closed_form")
            assert num <= closed <= eps0


def test_shuffle_bound_decreases_with_n():
    vals = [L.shuffle_amplification_epsilon(2.0, n, 1e-6) for n in (1000, 10_000, 100_000)]
    assert vals[0] > vals[1] > vals[2]


def test_shuffle_bound_holds_for_shuffled_binary_rr():
    # Shuffled binary RR releases the number of 1-reports. Neighbours: user 1 holds 0 or 1, the others 0.
    # The exact (eps, delta) of that release must not exceed the bound (an upper bound for every randomizer).
    eps0, n, delta = 2.0, 2000, 1e-6
    t = math.exp(eps0) / (1 + math.exp(eps0))
    base = stats.binom.pmf(np.arange(n), n - 1, 1 - t)   # the other n-1 users
    d0 = np.zeros(n + 1)
    d1 = np.zeros(n + 1)
    d0[:-1] += t * base
    d0[1:] += (1 - t) * base
    d1[:-1] += (1 - t) * base
    d1[1:] += t * base
    bound = L.shuffle_amplification_epsilon(eps0, n, delta)
    hs = max(np.maximum(d0 - math.exp(bound) * d1, 0).sum(), np.maximum(d1 - math.exp(bound) * d0, 0).sum())
    assert hs <= delta
    # and the bound is not vacuous: the exact epsilon of this mechanism is within a factor 3 of it
    lo, hi = 0.0, eps0
    for _ in range(60):
        mid = (lo + hi) / 2
        if max(np.maximum(d0 - math.exp(mid) * d1, 0).sum(), np.maximum(d1 - math.exp(mid) * d0, 0).sum()) <= delta:
            hi = mid
        else:
            lo = mid
    assert hi <= bound < 3 * hi


def authors_closed_form(eps0, n, delta):
    """Theorem 3.1 as the authors' program computes it (apple/ml-shuffling-amplification,
    closedformanalysis), rewritten here from its formula: factor (1 - e^-eps0) / (1 + e^-(eps0 + e1))."""
    big_b = 8 * math.sqrt(math.exp(eps0) * math.log(4 / delta)) / math.sqrt(n) + 8 * math.exp(eps0) / n
    e1 = math.log(1 + big_b)
    return math.log(1 + (1 - math.exp(-eps0)) / (1 + math.exp(-eps0 - e1)) * big_b)


def printed_closed_form(eps0, n, delta):
    """Theorem 3.1 with the factor printed in the paper, (e^eps0 - 1) / (e^eps0 + 1): smaller."""
    big_b = 8 * math.sqrt(math.exp(eps0) * math.log(4 / delta)) / math.sqrt(n) + 8 * math.exp(eps0) / n
    return math.log(1 + (math.exp(eps0) - 1) / (math.exp(eps0) + 1) * big_b)


def test_shuffle_closed_form_uses_the_larger_constant():
    got = L.shuffle_amplification_epsilon(4.0, 100_000, 1e-6, method="closed_form")
    assert round(got, 4) == 0.5378                       # the authors' program prints 0.5378
    assert round(printed_closed_form(4.0, 100_000, 1e-6), 4) == 0.5346   # the factor printed in the theorem
    assert got == pytest.approx(authors_closed_form(4.0, 100_000, 1e-6), rel=1e-12)
    for eps0, n, delta in [(4.0, 10**5, 1e-6), (1.0, 10**4, 1e-8), (0.5, 10**6, 1e-5), (2.0, 10**9, 1e-10)]:
        safe = L.shuffle_amplification_epsilon(eps0, n, delta, method="closed_form")
        assert safe >= printed_closed_form(eps0, n, delta)        # never below either statement's value
        assert safe == pytest.approx(authors_closed_form(eps0, n, delta), rel=1e-12)
        if n <= L.MAX_SHUFFLE_USERS:
            assert L.shuffle_amplification_epsilon(eps0, n, delta) <= safe


def test_shuffle_n_cap_refuses_by_name_and_closed_form_takes_any_n():
    for n in (L.MAX_SHUFFLE_USERS + 1, 10**12, 2**64):
        with pytest.raises(ValueError, match=r"\bn must be <= MAX_SHUFFLE_USERS = 10000000"):
            L.shuffle_amplification_epsilon(1.0, n, 1e-6)
    vals = [L.shuffle_amplification_epsilon(4.0, n, 1e-6, method="closed_form") for n in (10**9, 10**12, 2**64, 10**400)]
    assert all(0 < v < 4.0 for v in vals) and vals == sorted(vals, reverse=True)
    assert vals[2] == pytest.approx(authors_closed_form(4.0, 2**64, 1e-6), rel=1e-9)


def test_shuffle_budget_exercise_solution():
    # ex-ldp-shuffle-budget's solution: the bound grows with eps0 around the answer (bisection is right), the
    # largest local epsilon for (1, 1e-6) at n = 10**6 is several times 1, and there 3 e^eps0 + 2 > 1024 (k-RR).
    grid = [L.shuffle_amplification_epsilon(e0, 10**6, 1e-6) for e0 in (4.0, 6.0, 8.0, 9.0, 10.0, 12.0)]
    assert all(a < b for a, b in zip(grid, grid[1:]))
    lo, hi = 0.1, 20.0
    while hi - lo >= 0.01:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if L.shuffle_amplification_epsilon(mid, 10**6, 1e-6) <= 1 else (lo, mid)
    assert 3 < lo and 3 * math.exp(lo) + 2 > 1024 and L.shuffle_amplification_epsilon(lo + 0.02, 10**6, 1e-6) > 1


def test_shuffle_edge_cases():
    assert L.shuffle_amplification_epsilon(1.0, 1, 1e-6) == 1.0
    assert L.shuffle_amplification_epsilon(1.0, 100, 1e-300) == 1.0  # delta too small to buy anything
    assert L.shuffle_amplification_epsilon(5.0, 100, 1e-6, method="closed_form") == 5.0  # outside its range


# ---------------------------------------------------------------------------------------------------
# Named errors on bad input
# ---------------------------------------------------------------------------------------------------

BAD_VALUES = [([0, 1, 4], ValueError), ([0, -1], ValueError), ([0.5], ValueError), ([np.nan], ValueError),
              ([np.inf], ValueError), (np.array([True, False]), TypeError), ([], ValueError),
              ("01", TypeError), ([[0, 1]], ValueError)]


@pytest.mark.parametrize("bad,exc", BAD_VALUES)
@pytest.mark.parametrize("fn", [L.krr, L.unary_encoding, L.local_hashing])
def test_bad_values(fn, bad, exc):
    with pytest.raises(exc, match="values"):
        fn(bad, 4, 1.0, rng=0)


@pytest.mark.parametrize("fn", [L.krr, L.unary_encoding, L.local_hashing])
def test_bad_private_value_message_holds_nothing_from_the_data(fn):
    # The refusal names the argument and the rule, and quotes neither the offending value nor its position.
    cases = [(np.r_[np.zeros(12345), 987654.0], ["987654", "12345"]),
             (np.r_[np.zeros(54321), np.nan], ["nan", "54321"]),
             (np.r_[np.zeros(23456), 2.75], ["2.75", "23456"]),
             (["7", "3"], ["'7'", "'3'"])]
    for bad, secrets in cases:
        with pytest.raises((TypeError, ValueError)) as info:
            fn(bad, 4, 1.0, rng=0)
        exc = info.value
        msg = str(exc)
        assert "values" in msg and "[0, 3]" in msg
        chained = str(exc.__context__ or "") + str(exc.__cause__ or "")
        for secret in secrets:
            assert secret not in msg.lower() and secret not in chained.lower(), (secret, msg)


@pytest.mark.parametrize("fn", [L.krr, L.unary_encoding, L.local_hashing])
def test_bad_parameters(fn):
    for eps, exc in [(0.0, ValueError), (-1.0, ValueError), (np.nan, ValueError), (np.inf, ValueError),
                     (True, TypeError), ("1", TypeError)]:
        with pytest.raises(exc, match="epsilon"):
            fn([0, 1], 4, eps, rng=0)
    for d, exc in [(1, ValueError), (0, ValueError), (2.5, TypeError), (True, TypeError), (2**24 + 1, ValueError)]:
        with pytest.raises(exc, match="domain_size"):
            fn([0, 1], d, 1.0, rng=0)
    with pytest.raises(TypeError, match="rng"):
        fn([0, 1], 4, 1.0, rng=1.5)


def test_bad_reports():
    with pytest.raises(ValueError, match="reports"):
        L.krr_estimate([0, 4], 4, 1.0)
    with pytest.raises(ValueError, match="shape"):
        L.unary_encoding_estimate(np.zeros((3, 2), np.uint8), 4, 1.0)
    with pytest.raises(ValueError, match="padding"):
        L.unary_encoding_estimate(np.full((3, 1), 255, np.uint8), 4, 1.0)
    with pytest.raises(ValueError, match="reports"):
        L.unary_encoding_estimate(np.full((3, 1), 300.0), 4, 1.0)
    with pytest.raises(TypeError, match="optimized"):
        L.unary_encoding([0], 4, 1.0, optimized=1)
    good = L.local_hashing([0, 1], 4, 1.0, rng=0)
    for col, val in [(0, 0), (1, -1), (2, 99), (0, L.HASH_PRIME)]:
        bad = good.copy()
        bad[0, col] = val
        with pytest.raises(ValueError, match="reports"):
            L.local_hashing_estimate(bad, 4, 1.0)
    with pytest.raises(ValueError, match="shape"):
        L.local_hashing_estimate(good[:, :2], 4, 1.0)


def test_bad_variance_and_shuffle_arguments():
    with pytest.raises(ValueError, match="count"):
        L.krr_variance(10, 4, 1.0, count=11)
    with pytest.raises(ValueError, match="n"):
        L.local_hashing_variance(0, 4, 1.0)
    with pytest.raises(ValueError, match="delta"):
        L.shuffle_amplification_epsilon(1.0, 100, 0.0)
    with pytest.raises(ValueError, match="delta"):
        L.shuffle_amplification_epsilon(1.0, 100, 1.0)
    with pytest.raises(ValueError, match="epsilon_local"):
        L.shuffle_amplification_epsilon(0.0, 100, 1e-6)
    with pytest.raises(ValueError, match="method"):
        L.shuffle_amplification_epsilon(1.0, 100, 1e-6, method="tight")
    with pytest.raises(ValueError, match="oracle"):
        L.oracle_probabilities("rappor", 4, 1.0)


# ---------------------------------------------------------------------------------------------------
# Exercise checkers and figures of the chapter
# ---------------------------------------------------------------------------------------------------

def test_crossover_checker():
    from dpcourse.exercises.local_dp import check_crossover_domain

    truth = math.floor(3 * math.exp(2.0) + 2) + 1  # 25, by the rule derived in the chapter
    assert check_crossover_domain(truth).passed
    assert check_crossover_domain(float(truth)).passed
    for bad in ("25", True, math.nan, math.inf, 24.5, 1):
        res = check_crossover_domain(bad)
        assert not res.passed and "not a valid answer" in res.message
    assert "factor 4" in check_crossover_domain(math.ceil(math.exp(2.0) + 2)).message
    assert "strictly" in check_crossover_domain(truth - 1).message
    for wrong in (26, 30, 100):  # no direction is given
        msg = check_crossover_domain(wrong).message
        assert not check_crossover_domain(wrong).passed and "too small" not in msg and "too large" not in msg


def test_oue_estimator_checker():
    import dpcourse
    from dpcourse.exercises.local_dp import check_oue_estimator

    def good(ones, n, epsilon):
        q = 1 / (math.exp(epsilon) + 1)
        return (ones - n * q) / (0.5 - q)

    def sue(ones, n, epsilon):
        h = math.exp(epsilon / 2)
        return (ones - n / (h + 1)) / ((h - 1) / (h + 1))

    def cheat(ones, n, epsilon):
        return dpcourse.unary_encoding_estimate(np.zeros((n, (len(ones) + 7) // 8), np.uint8), len(ones), epsilon)

    assert check_oue_estimator(good).passed
    assert "symmetric" in check_oue_estimator(sue).message
    assert "yourself" in check_oue_estimator(cheat).message
    assert not check_oue_estimator(lambda ones, n, epsilon: ones).passed
    assert not check_oue_estimator(3).passed


def test_figures_and_widget():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import local_dp as figs

    errs = figs.exact_standard_errors(1000, [2, 64], 1.0)
    assert errs["k-RR"][0] < errs["OUE"][0] and errs["k-RR"][1] > errs["OUE"][1]
    sim = figs.simulated_standard_errors(500, 8, 1.0, runs=50, rng=1)
    assert set(sim) == set(figs.ORACLE_NAMES) and all(v > 0 for v in sim.values())
    for fig in (figs.plot_oracle_variance(1.0, 1000), figs.plot_local_frequency(2.0, 10_000)):
        assert fig.axes
        plt.close(fig)
    widget = figs.local_dp_widget()
    n_states = int(np.prod([len(c.values) for c in widget.controls.values()]))
    assert n_states <= 24


def test_report_probabilities_figure_draws_the_samplers_probabilities():
    """Chapter 16's opening picture: the bars are the probabilities the samplers use, and no report is more
    than e^eps times likelier for one user than for the other (the ratio e^eps is reached on their values)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import local_dp as figs

    d, eps = 6, 1.5
    fig = figs.plot_report_probabilities(d, eps, values=(1, 4))
    for ax, oracle in zip(fig.axes, ("krr", "oue")):
        pr = L.oracle_probabilities(oracle, d, eps)
        heights = np.array([b.get_height() for b in ax.patches]).reshape(2, d)
        for row, v in zip(heights, (1, 4)):
            assert np.allclose(row, [float(pr["p"] if y == v else pr["q"]) for y in range(d)], rtol=0, atol=0)
        if oracle == "krr":   # a report's probability, so the ratio itself is bounded
            ratio = heights[0] / heights[1]
            assert ratio.max() == pytest.approx(math.exp(eps), rel=1e-12) and ratio.max() <= math.exp(eps) * (1 + 1e-12)
    plt.close(fig)
    for bad in [dict(domain_size=1), dict(domain_size=100), dict(values=(2, 2)), dict(values=(0, 6)),
                dict(epsilon=0.0), dict(values=(1,))]:
        with pytest.raises((ValueError, TypeError)):
            figs.plot_report_probabilities(**{"domain_size": 6, **bad})


def test_frequency_estimates_figure_draws_the_top_values_and_each_error():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import local_dp as figs

    labels, counts = ["a", "b", "c", "d"], [5, 40, 20, 10]
    fig = figs.plot_frequency_estimates(labels, counts, {"A": [11, 37, 20, 10], "B": [5, 40, 20, 14]}, top=3)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["b", "c", "d"]
    assert [b.get_height() for b in ax.patches] == [40, 20, 10]
    assert list(ax.get_lines()[0].get_ydata()) == [37, 20, 10]   # estimates of A on the top three
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "A (RMSE 3)" in texts and "B (RMSE 2)" in texts   # over all four values: sqrt(45/4), not sqrt(9/3)
    plt.close(fig)
    for args in [(["a"], [1, 2], {"A": [1, 2]}), (["a", "b"], [1, 2], {"A": [1]}), (["a", "b"], [1, 2], {}),
                 (["a", "b"], [1, 2], [1, 2]), (["a", "b"], [1, float("nan")], {"A": [1, 2]})]:
        with pytest.raises((ValueError, TypeError)):
            figs.plot_frequency_estimates(*args)
