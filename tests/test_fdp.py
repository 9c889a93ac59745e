"""Tests of dpcourse.fdp: exact trade-off curves against independent computations, the laws every trade-off
function obeys (convex, continuous, non-increasing, below 1 - alpha, symmetric), GDP composition, the
mu <-> (epsilon, delta) conversions to 1e-9 against mpmath, the CLT's mu, and named errors on bad input.

Statistical tests are seeded and use alpha = 1e-6 (binomial critical values from scipy).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

import dpcourse as dp
from dpcourse import fdp as F

ALPHA = 1e-6
GRID = np.linspace(0.0, 1.0, 2001)


# ---------------------------------------------------------------------------------------------------
# Exact values, computed independently (scipy.stats / by hand)
# ---------------------------------------------------------------------------------------------------

def test_gaussian_curve_exact_values():
    for mu in (0.1, 1.0, 3.0):
        for a in (1e-9, 0.01, 0.05, 0.5, 0.9):
            want = stats.norm.cdf(stats.norm.ppf(1 - a) - mu)
            assert F.tradeoff_gaussian(a, mu) == pytest.approx(want, rel=1e-9)
    assert F.tradeoff_gaussian(0.0, 1.0) == 1.0 and F.tradeoff_gaussian(1.0, 1.0) == 0.0


def test_laplace_curve_by_hand_and_by_threshold_sweep():
    e = 1.0
    assert F.tradeoff_laplace(0.1, e) == pytest.approx(1 - math.e * 0.1, rel=1e-12)
    assert F.tradeoff_laplace(0.25, e) == pytest.approx(math.exp(-1) / 1.0, rel=1e-12)
    assert F.tradeoff_laplace(0.8, e) == pytest.approx(math.exp(-1) * 0.2, rel=1e-12)
    # Independent: the likelihood-ratio threshold test t sweeps the curve, alpha = P(X > t), beta = Q(X <= t)
    for eps in (0.3, 1.0, 4.0):
        t = np.linspace(-12, 12 + eps, 4001)
        a = stats.laplace.sf(t)
        b = stats.laplace.cdf(t - eps)
        assert np.allclose(F.tradeoff_laplace(a, eps), b, rtol=1e-9, atol=1e-13)


def test_randomized_response_curve_is_its_tests_lower_hull():
    for eps in (0.5, math.log(3), 2.0):
        p = math.exp(eps) / (1 + math.exp(eps))
        # corners of the deterministic tests: reject never, reject on answer 'yes' (x = yes truth), reject always
        corners = [(0.0, 1.0), (1 - p, 1 - p), (1.0, 0.0)]
        for a, b in corners:
            assert F.tradeoff_randomized_response(a, eps) == pytest.approx(b, abs=1e-15)
        mid = 0.5 * (1 - p)  # a randomized test mixing the first two corners
        assert F.tradeoff_randomized_response(mid, eps) == pytest.approx(0.5 + 0.5 * (1 - p), rel=1e-12)


def test_f_epsilon_delta_and_chapter_one_inequalities():
    eps, d = math.log(3), 0.1
    b = F.tradeoff_epsilon_delta(GRID, eps, d)
    # chapter 1: alpha + e^eps beta >= 1 - delta and beta + e^eps alpha >= 1 - delta, tight on the curve
    assert np.all(GRID + 3 * b >= 0.9 - 1e-12) and np.all(b + 3 * GRID >= 0.9 - 1e-12)
    tight = (np.abs(GRID + 3 * b - 0.9) < 1e-12) | (np.abs(b + 3 * GRID - 0.9) < 1e-12) | (b == 0)
    assert tight.all()
    assert F.tradeoff_epsilon_delta(0.0, eps, d) == pytest.approx(0.9)


# ---------------------------------------------------------------------------------------------------
# Laws of trade-off functions
# ---------------------------------------------------------------------------------------------------

CURVES = [("gauss", lambda a: F.tradeoff_gaussian(a, 1.3)), ("laplace", lambda a: F.tradeoff_laplace(a, 1.3)),
          ("rr", lambda a: F.tradeoff_randomized_response(a, 1.3)),
          ("eps-delta", lambda a: F.tradeoff_epsilon_delta(a, 0.7, 0.05)),
          ("profile", lambda a: F.tradeoff_from_profile(a, [0.2, 1.0, 3.0], [0.3, 0.05, 1e-4]))]


@pytest.mark.parametrize("name,f", CURVES, ids=[c[0] for c in CURVES])
def test_tradeoff_laws(name, f):
    b = f(GRID)
    assert np.all(np.diff(b) <= 1e-15), "non-increasing"
    assert np.all(b <= 1 - GRID + 1e-15), "below 1 - alpha"
    second = b[:-2] - 2 * b[1:-1] + b[2:]
    assert np.all(second >= -1e-12), "convex"
    assert np.max(np.abs(np.diff(b))) < 0.05, "continuous (no jump on a grid of step 5e-4)"


@pytest.mark.parametrize("name,f", CURVES[:4], ids=[c[0] for c in CURVES[:4]])
def test_symmetric_curves_are_their_own_inverse(name, f):
    a = np.linspace(0.001, 0.999, 301)
    # symmetric: f(f(alpha)) = alpha where f is strictly decreasing (f > 0)
    b = f(a)
    keep = b > 1e-9
    assert np.allclose(f(b[keep]), a[keep], atol=1e-9)


def test_laplace_between_pure_dp_curve_and_touching_it_outside_the_middle():
    eps = 1.0
    lap, rr = F.tradeoff_laplace(GRID, eps), F.tradeoff_randomized_response(GRID, eps)
    assert np.all(lap >= rr - 1e-15)
    outer = (GRID <= math.exp(-eps) / 2) | (GRID >= 0.5)
    assert np.allclose(lap[outer], rr[outer], atol=1e-14)
    assert np.all(lap[~outer] > rr[~outer])


# ---------------------------------------------------------------------------------------------------
# GDP: composition, conversions, CLT
# ---------------------------------------------------------------------------------------------------

def test_gdp_composition_adds_in_quadrature_and_is_seen_by_the_optimal_test():
    assert F.gdp_mu([dp.GaussianEvent(2.0), dp.GaussianEvent(2.0, 1.5)]) == pytest.approx(math.sqrt(0.25 + 0.5625))
    acc = dp.PrivacyAccountant().compose(dp.GaussianEvent(1.0), 9)
    assert F.gdp_mu(acc) == pytest.approx(3.0, rel=1e-15)
    # a seeded experiment: two Gaussian mechanisms (mu 0.6 and 0.8) on neighbours, the likelihood-ratio test
    # on their joint output (statistic 0.6 x1 + 0.8 x2) at level alpha = 0.05 has type II error G_1(0.05)
    rng = np.random.default_rng(21)
    n = 200_000
    mus = np.array([0.6, 0.8])
    x = rng.standard_normal((n, 2))
    y = rng.standard_normal((n, 2)) + mus
    t = stats.norm.ppf(0.95) * 1.0  # the statistic has sd |mus| = 1 under x
    fpr = np.mean(x @ mus > t)
    fnr = np.mean(y @ mus <= t)
    beta = F.tradeoff_gaussian(0.05, 1.0)
    for rate, p in ((fpr, 0.05), (fnr, beta)):
        lo, hi = stats.binom.interval(1 - ALPHA, n, p)
        assert lo <= rate * n <= hi
    # and adding the mus linearly (mu = 1.4) would predict a type II error far outside that interval
    lo, hi = stats.binom.interval(1 - ALPHA, n, F.tradeoff_gaussian(0.05, 1.4))
    assert not lo <= fnr * n <= hi


def test_gdp_delta_is_the_gaussian_profile_to_1e9_against_mpmath():
    mpmath.mp.dps = 40
    for mu in (0.1, 0.5, 1.0, 2.0, 5.0):
        for eps in (0.0, 0.1, 1.0, 3.0, 10.0):
            m, e = mpmath.mpf(mu), mpmath.mpf(eps)
            want = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            got = dp.gaussian_delta(eps, mu)
            assert abs(got - float(want)) <= 1e-9 * float(want) + 1e-300


def test_gdp_delta_is_the_conjugate_of_the_curve():
    # delta(eps) = max_alpha 1 - G_mu(alpha) - e^eps alpha, the max at alpha* = Phi(-eps/mu - mu/2)
    for mu in (0.5, 1.0, 2.0):
        for eps in (0.0, 0.5, 2.0):
            a_star = stats.norm.cdf(-eps / mu - mu / 2)
            val = 1 - F.tradeoff_gaussian(a_star, mu) - math.exp(eps) * a_star
            assert val == pytest.approx(dp.gaussian_delta(eps, mu), rel=1e-9, abs=1e-15)
            a = np.linspace(0, 1, 20001)
            assert np.max(1 - F.tradeoff_gaussian(a, mu) - math.exp(eps) * a) <= val + 1e-12


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 4.0, 20.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 0.1])
def test_gdp_mu_for_dp_is_certified_and_inverts(eps, delta):
    mu = F.gdp_mu_for_dp(eps, delta)
    assert dp.gaussian_delta(eps, mu) <= delta
    assert dp.gaussian_delta(eps, mu * (1 + 1e-9)) > delta
    assert dp.gaussian_epsilon(delta, mu) == pytest.approx(eps, rel=1e-9)


def test_gdp_mu_for_dp_guard_repairs_a_root_on_the_wrong_side(monkeypatch):
    # the calibration's sigma made 1e-9 too small (as a rounding slip upstream would): mu must still be certified
    real = F.analytic_gaussian_sigma
    monkeypatch.setattr(F, "analytic_gaussian_sigma", lambda e, d: real(e, d) * (1 - 1e-9))
    for eps, delta in ((0.5, 1e-5), (1.0, 1e-9), (3.0, 0.01)):
        mu = F.gdp_mu_for_dp(eps, delta)
        assert dp.gaussian_delta(eps, mu) <= delta
        assert mu > (1 - 1e-8) / real(eps, delta)  # and not stepped far below the root


def test_clt_mu_formula_and_refusals():
    # q sqrt(T (e^{1/sigma^2} - 1)), computed by hand for q = 0.01, sigma = 1, T = 1000
    assert F.clt_mu_poisson_gaussian(0.01, 1.0, 1000) == pytest.approx(0.01 * math.sqrt(1000 * (math.e - 1)), rel=1e-14)
    assert F.clt_mu_poisson_gaussian(0.02, 2.0, 50) == pytest.approx(0.02 * math.sqrt(50 * math.expm1(0.25)), rel=1e-14)
    ev = dp.PoissonSampledEvent(0.01, dp.GaussianEvent(1.0))
    with pytest.raises(dp.NotApplicableError, match="clt=True"):
        F.gdp_mu(ev)
    with pytest.raises(dp.NotApplicableError, match="LaplaceEvent"):
        F.gdp_mu(dp.LaplaceEvent(1.0))
    with pytest.raises(TypeError, match="clt"):
        F.gdp_mu(ev, clt=1)
    with pytest.raises(ValueError, match="noise_multiplier"):
        F.clt_mu_poisson_gaussian(0.01, 0.01, 10)
    with pytest.raises(TypeError, match="noise_multiplier"):
        F.clt_mu_poisson_gaussian(0.01, True, 10)
    # q = 1: the CLT's per-step mu^2 is e^{mu^2} - 1, not mu^2 (it is not exact even without sampling)
    assert F.gdp_mu(dp.PoissonSampledEvent(1.0, dp.GaussianEvent(1.0)), clt=True) == pytest.approx(math.sqrt(math.e - 1))


def test_clt_under_reports_epsilon_at_few_steps():
    # the CLT is an approximation: at q = 0.01, sigma = 0.6, 100 steps it reports less than half the PLD's epsilon
    e_pld = dp.dpsgd_epsilon(0.01, noise_multiplier=0.6, steps=100, delta=1e-5)
    e_clt = dp.gaussian_epsilon(1e-5, F.clt_mu_poisson_gaussian(0.01, 0.6, 100))
    assert e_clt < 0.5 * e_pld


# ---------------------------------------------------------------------------------------------------
# tradeoff_curve on the accountant's events
# ---------------------------------------------------------------------------------------------------

def test_tradeoff_curve_of_events():
    a = np.array([0.0, 0.01, 0.2, 0.7, 1.0])
    assert np.array_equal(F.tradeoff_curve(dp.ComposedEvent(dp.GaussianEvent(2.0), 4), a), F.tradeoff_gaussian(a, 1.0))
    assert np.array_equal(F.tradeoff_curve(dp.LaplaceEvent(0.5), a), F.tradeoff_laplace(a, 0.5))
    assert np.array_equal(F.tradeoff_curve([dp.PureDPEvent(0.5)], a), F.tradeoff_epsilon_delta(a, 0.5))
    # two pure events: the envelope of the optimal composition's profile lies above f_{1, 0} (basic
    # composition) up to the smallest delta asked, and below one run's f_{0.5, 0}
    two = F.tradeoff_curve([dp.PureDPEvent(0.5), dp.PureDPEvent(0.5)], GRID, deltas=[1e-9, 0.01, 0.1])
    assert np.all(two >= F.tradeoff_epsilon_delta(GRID, 1.0) - 1e-9 - 1e-12)
    assert np.any(two > F.tradeoff_epsilon_delta(GRID, 1.0) + 1e-3)
    assert np.all(two <= F.tradeoff_epsilon_delta(GRID, 0.5) + 1e-12)


def test_profile_envelope_of_gaussian_is_below_and_close_to_exact():
    mu = 1.0
    ds = np.geomspace(1e-10, 0.38, 60)
    eps = [dp.gaussian_epsilon(d, mu) for d in ds]
    env = F.tradeoff_from_profile(GRID, eps, ds)
    exact = F.tradeoff_gaussian(GRID, mu)
    assert np.all(env <= exact + 1e-12)
    assert np.max(exact - env) < 0.01


def envelope_kinks(eps, deltas):
    """Every alpha in [0, 1] where two of the envelope's lines (or a line and 0) cross, plus 0 and 1.

    G_mu minus a maximum of lines is convex on each linear piece of the maximum, so its supremum is at a piece's
    end: at one of these points. Evaluating there gives the exact supremum, where a grid (linear or geometric)
    only gives a lower estimate (a linear grid missed the gaps at alpha ~ 1e-8 of large mu)."""
    lines = [(1.0 - d, -math.exp(e)) for e, d in zip(eps, deltas)]
    lines += [(math.exp(-e) * (1.0 - d), -math.exp(-e)) for e, d in zip(eps, deltas)] + [(0.0, 0.0)]
    points = {0.0, 1.0}
    for i, (a0, a1) in enumerate(lines):
        for b0, b1 in lines[i + 1:]:
            if a1 != b1 and 0.0 <= (b0 - a0) / (a1 - b1) <= 1.0:
                points.add((b0 - a0) / (a1 - b1))
    return np.array(sorted(points))


@pytest.mark.parametrize("mu,bound", [(0.05, 0.0015), (0.26, 0.0075), (0.591, 0.0178), (1.0, 0.011), (2.0, 0.0155),
                                      (3.598, 0.0258), (4.0, 0.0225), (6.0, 0.031)])
def test_default_envelope_grid_is_below_gaussian_by_its_stated_supremum(mu, bound):
    # the default deltas reach 0.99: a grid stopping at 0.5 left the envelope 0.25 below G_4 near alpha = 4e-4.
    # The supremum over alpha is computed exactly at the envelope's kinks (a linear alpha grid said 0.019 at
    # mu = 4 and 0.0016 at mu = 6; the suprema are 0.0224 and 0.0304, at alpha 4e-8 and 2e-6).
    ds = np.array(F.DEFAULT_PROFILE_DELTAS)
    acc = dp.PrivacyAccountant().compose(dp.PoissonSampledEvent(1.0, dp.GaussianEvent(1.0 / mu)), 1)
    eps = [acc.epsilon(float(d), "pld") for d in ds]  # q = 1: the exact Gaussian epsilon
    kinks = envelope_kinks(eps, ds)
    env = F.tradeoff_curve(acc, kinks)
    exact = F.tradeoff_gaussian(kinks, mu)
    assert np.all(env <= exact + 1e-12)
    gap = float(np.max(exact - env))
    assert bound - 0.0015 < gap <= bound  # the stated number, not a loose one
    # no grid finds more than the kinks do
    grid = np.concatenate([GRID, np.geomspace(1e-14, 1.0, 4001)])
    assert np.max(F.tradeoff_gaussian(grid, mu) - F.tradeoff_curve(acc, grid)) <= gap + 1e-12
    assert ds.size == 31 and ds.max() == 0.99


def test_gdp_mu_for_dp_is_a_calibration_not_a_conversion():
    # mu-GDP with mu = gdp_mu_for_dp(eps, delta) implies (eps, delta)-DP: G_mu >= f_{eps, delta} everywhere ...
    eps, delta = 1.0, 1e-5
    mu = F.gdp_mu_for_dp(eps, delta)
    assert np.all(F.tradeoff_gaussian(GRID, mu) >= F.tradeoff_epsilon_delta(GRID, eps, delta) - 1e-15)
    # ... but (eps, delta)-DP does not imply mu-GDP for any mu: its curve starts at 1 - delta < 1 = G_mu(0)
    for m in (mu, 10.0, 30.0):
        assert F.tradeoff_epsilon_delta(0.0, eps, delta) < F.tradeoff_gaussian(0.0, m)


# ---------------------------------------------------------------------------------------------------
# Bad input: public parameters, named
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,exc,match", [
    (lambda: F.tradeoff_gaussian(1.5, 1.0), ValueError, "alpha"),
    (lambda: F.tradeoff_gaussian(float("nan"), 1.0), ValueError, "alpha"),
    (lambda: F.tradeoff_gaussian(0.1, 0.0), ValueError, "mu"),
    (lambda: F.tradeoff_gaussian(True, 1.0), TypeError, "alpha"),
    (lambda: F.tradeoff_laplace(0.1, -1.0), ValueError, "epsilon"),
    (lambda: F.tradeoff_epsilon_delta(0.1, 1.0, 1.5), ValueError, "delta"),
    (lambda: F.tradeoff_from_profile(0.1, [1.0], [0.1, 0.2]), ValueError, "equal length"),
    (lambda: F.gdp_mu_for_dp(0.0, 1e-5), ValueError, "epsilon"),
    (lambda: F.gdp_mu_for_dp(1.0, 0.0), ValueError, "delta"),
    (lambda: F.tradeoff_curve("GaussianEvent", 0.1), TypeError, "DpEvent"),
    (lambda: F.tradeoff_curve(dp.LaplaceEvent(1.0), 0.1, deltas=[0.0]), ValueError, "deltas"),
    (lambda: F.tradeoff_curve([dp.LaplaceEvent(1.0)] * 2, 0.1, deltas=[1.0]), ValueError, "deltas"),
])
def test_bad_input_is_refused_by_name(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_extremes_stay_finite():
    assert F.tradeoff_epsilon_delta(0.5, 800.0) == 0.0
    assert F.tradeoff_epsilon_delta(0.0, 800.0) == 1.0
    assert 0.0 < F.tradeoff_gaussian(1e-300, 50.0) < 1e-37  # Phi(37.05 - 50)


def test_huge_epsilon_curves_are_the_exact_values_not_nan_or_zero():
    # e^-eps underflows from eps = 745: the Laplace curve was 0/0 = NaN at alpha = 0 and 0 in the middle piece,
    # and f_{eps, 0} was 0 where e^eps alpha < 1 but e^eps overflows. References in 50-digit arithmetic.
    mpmath.mp.dps = 50
    for eps in (746.0, 800.0, 1e4, 1e300):
        assert F.tradeoff_laplace(0.0, eps) == 1.0
        assert F.tradeoff_laplace(1.0, eps) == 0.0
        b = F.tradeoff_laplace(np.array([0.0, 1e-320, 1e-300, 0.3, 0.7]), eps)
        assert not np.any(np.isnan(b)) and b[0] == 1.0
    for a, eps in [(1e-300, 800.0), (1e-320, 746.0), (5e-324, 745.5), (1e-310, 712.0)]:
        e, al = mpmath.mpf(eps), mpmath.mpf(a)
        knee = mpmath.exp(-e) / 2
        want = 1 - mpmath.exp(e) * al if al < knee else mpmath.exp(-e) / (4 * al)
        # abs=0: pytest.approx's default absolute tolerance 1e-12 would accept any value near these tiny ones
        assert F.tradeoff_laplace(a, eps) == pytest.approx(float(want), rel=1e-12, abs=0)
    for a, eps in [(1e-320, 720.0), (5e-324, 744.0), (1e-310, 709.9)]:
        want = 1 - mpmath.exp(mpmath.mpf(eps)) * mpmath.mpf(a)
        assert F.tradeoff_epsilon_delta(a, eps) == pytest.approx(float(want), rel=1e-12)
        assert F.tradeoff_randomized_response(a, eps) == pytest.approx(float(want), rel=1e-12)
    # e^720 * 1e-300 > 1: the first line is below 0, the second is e^-720 (1 - alpha)
    # (e^-720 = 2e-313 is subnormal: 35 significant bits; abs=0, or approx would accept 0 for it)
    assert F.tradeoff_epsilon_delta(1e-300, 720.0) == pytest.approx(float(mpmath.exp(-720)), rel=1e-10, abs=0)


def test_gaussian_curve_at_extreme_alpha_and_mu_against_mpmath():
    mpmath.mp.dps = 50
    for mu in (1e-8, 0.3, 8.0, 37.0):
        for a in (1e-300, 1e-20, 0.5, 1 - 1e-12):
            am = mpmath.mpf(a)
            t = mpmath.mpf(float(stats.norm.isf(a)))  # Phi^-1(1 - a), refined by Newton in 50 digits
            for _ in range(3):
                t += (mpmath.ncdf(-t) - am) / mpmath.npdf(t)
            want = mpmath.ncdf(t - mu)
            got = F.tradeoff_gaussian(a, mu)
            assert got == pytest.approx(float(want), rel=1e-9, abs=1e-300), (mu, a)


def test_profile_epsilons_are_checked_as_real_numbers():
    # numpy turns "1.0" and True into 1.0: such epsilons were accepted as a guarantee
    for bad in (["1.0"], [True], [1.0, None], [1j], "1.0", [np.True_], np.array([True])):
        with pytest.raises(TypeError, match="epsilons"):
            F.tradeoff_from_profile(0.1, bad, [0.1] * (2 if isinstance(bad, list) and len(bad) == 2 else 1))
    for bad in ([-1.0], [float("nan")], [-math.inf]):
        with pytest.raises(ValueError, match="epsilons"):
            F.tradeoff_from_profile(0.1, bad, [0.1])
    with pytest.raises(ValueError, match="equal length"):
        F.tradeoff_from_profile(0.1, [[1.0]], [0.1])
    # inf ("no guarantee at this delta") is skipped, ints and object arrays of floats are fine
    assert F.tradeoff_from_profile(0.1, [math.inf, 1], [0.1, 0.01]) == F.tradeoff_from_profile(0.1, [1.0], [0.01])
    as_objects = F.tradeoff_from_profile(0.1, np.array([1.0], dtype=object), [0.01])
    assert as_objects == F.tradeoff_from_profile(0.1, [1], [0.01])


def test_profile_envelope_is_the_brute_force_maximum_of_lines():
    # an independent evaluation: every f_{eps_j, delta_j} in 50-digit arithmetic, then the maximum
    mpmath.mp.dps = 50
    rng = np.random.default_rng(2121)
    eps = rng.uniform(0, 4, 7)
    ds = rng.uniform(0, 0.5, 7)
    alphas = np.concatenate([rng.uniform(0, 1, 40), [0.0, 1.0, 1e-9]])
    got = F.tradeoff_from_profile(alphas, eps, ds)
    for a, g in zip(alphas, got):
        am = mpmath.mpf(a)
        want = max([mpmath.mpf(0)] + [max(1 - mpmath.mpf(d) - mpmath.exp(e) * am, mpmath.exp(-e) * (1 - mpmath.mpf(d) - am))
                                      for e, d in zip(eps, ds)])
        assert g == pytest.approx(float(want), rel=1e-13, abs=1e-16)


def test_randomized_response_curve_at_exact_fractions():
    # epsilon = ln 3: p = 3/4, the corners of the deterministic tests are (0, 1), (1/4, 1/4), (1, 0); between them
    # the randomized tests: beta = 1 - 3 alpha up to 1/4, (1 - alpha) / 3 after
    from fractions import Fraction
    for a in (Fraction(1, 8), Fraction(1, 4), Fraction(5, 8), Fraction(1, 1)):
        want = 1 - 3 * a if a <= Fraction(1, 4) else (1 - a) / 3
        assert F.tradeoff_randomized_response(float(a), math.log(3)) == pytest.approx(float(want), rel=1e-14, abs=1e-16)


def test_huge_run_counts_are_counted_exactly_or_refused_by_name():
    # 10**400 runs: the sums were floats (OverflowError); the exact sum gives the right mu
    mpmath.mp.dps = 50
    got = F.clt_mu_poisson_gaussian(0.01, 1.0, 10**400)
    want = mpmath.mpf(0.01) * mpmath.sqrt(mpmath.mpf(10) ** 400 * mpmath.expm1(1))
    assert got == pytest.approx(float(want), rel=1e-14)
    assert F.gdp_mu(dp.ComposedEvent(dp.GaussianEvent(1.0), 10**400)) == pytest.approx(1e200, rel=1e-15)
    assert F.tradeoff_curve(dp.ComposedEvent(dp.GaussianEvent(1.0), 10**400), 0.1) == 0.0
    with pytest.raises(ValueError, match="steps"):
        F.clt_mu_poisson_gaussian(0.01, 1.0, 10**700)
    with pytest.raises(ValueError, match="overflows"):
        F.gdp_mu(dp.ComposedEvent(dp.GaussianEvent(1e-200), 10**240))  # mu = 1e320
    # exact rationals: sum of runs * mu^2 rounded once (the float sum 0.1^2 * 3 + ... is not)
    from fractions import Fraction
    events = [dp.ComposedEvent(dp.GaussianEvent(10.0), 3), dp.GaussianEvent(3.0, 0.7), dp.GaussianEvent(7.0)]
    square = 3 * Fraction(1 / 10.0) ** 2 + Fraction(0.7 / 3.0) ** 2 + Fraction(1 / 7.0) ** 2
    assert F.gdp_mu(events) == math.sqrt(float(square))


def test_sampled_pair_is_asymmetric_and_the_envelope_bounds_both_orders():
    # one Poisson-sampled Gaussian step, q = 0.5, sigma = 0.5 (units of sigma): P = N(0, 1) (record absent),
    # Q = (1 - q) N(0, 1) + q N(2, 1). T(P, Q) = q G_2 + (1 - q) Id; T(Q, P) is its inverse. Both from the exact
    # CDFs of the likelihood-ratio (threshold) tests, independently of dpcourse's curves.
    from scipy import optimize
    q, sigma, a0 = 0.5, 0.5, 0.01
    shift = 1.0 / sigma
    # order (P, Q): reject "absent" for large y
    t = stats.norm.isf(a0)
    beta_pq = (1 - q) * stats.norm.cdf(t) + q * stats.norm.cdf(t - shift)
    assert beta_pq == pytest.approx(q * F.tradeoff_gaussian(a0, shift) + (1 - q) * (1 - a0), rel=1e-12)
    # order (Q, P): reject "present" for small y, at level a0 under Q
    t2 = optimize.brentq(lambda s: (1 - q) * stats.norm.cdf(s) + q * stats.norm.cdf(s - shift) - a0, -20, 20,
                         xtol=1e-14)
    beta_qp = stats.norm.sf(t2)
    assert round(beta_pq, 3) == 0.809 and round(beta_qp, 3) == 0.980
    # the accountant's curve is a lower bound in both orders (its envelope is symmetric)
    acc = dp.PrivacyAccountant().compose(dp.PoissonSampledEvent(q, dp.GaussianEvent(sigma)), 1)
    ts = np.linspace(-3, 6, 40)
    a_pq, b_pq = stats.norm.sf(ts), (1 - q) * stats.norm.cdf(ts) + q * stats.norm.cdf(ts - shift)
    a_qp, b_qp = (1 - q) * stats.norm.cdf(ts) + q * stats.norm.cdf(ts - shift), stats.norm.sf(ts)
    ds = np.geomspace(1e-6, 0.5, 6)
    for a, b in ((a_pq, b_pq), (a_qp, b_qp)):
        assert np.all(b >= F.tradeoff_curve(acc, a, deltas=ds) - 1e-9)


def test_clt_is_the_limit_of_both_orders_of_add_remove():
    # theorem fdp-thm-clt-sampled: with q sqrt(T) = 0.5 fixed and T growing, the PLD's epsilon of the removal
    # order comes down to the CLT's and that of the addition order comes up to it
    from dpcourse.accounting import _pld_epsilon
    sigma, nu, d = 2.0, 0.5, 1e-5
    gaps = []
    for steps in (100, 10_000):
        q = nu / math.sqrt(steps)
        e_clt = dp.gaussian_epsilon(d, F.clt_mu_poisson_gaussian(q, sigma, steps))
        e_remove, e_add = (_pld_epsilon(q, sigma, steps, d, o) for o in ("remove", "add"))
        assert e_add < e_clt < e_remove
        gaps.append(max(e_remove / e_clt - 1, 1 - e_add / e_clt))
    assert gaps[1] < 0.02 < 0.05 < gaps[0]


def test_symmetrised_step_has_a_larger_clt_mu():
    # Dong-Roth-Su's route symmetrises each step: C = min{f_q, f_q^-1}**, f_q = q G + (1 - q) Id; their CLT's
    # mu = 2 kl(C) / sqrt(kappa_2(C)) per step (times sqrt(T)), computed here by quadrature at q = 1e-4 (C' = f_q' up
    # to alpha* = Phi(-1/(2 sigma)), then -1, then the inverse's): sqrt 2 sqrt(e^{1/sigma^2} Phi(3/(2 sigma)) +
    # 3 Phi(-1/(2 sigma)) - 2) per unit of nu, larger than clt_mu_poisson_gaussian's sqrt(e^{1/sigma^2} - 1)
    from scipy import integrate
    q = 1e-4
    for sigma in (1.0, 2.0):
        m0 = 1.0 / sigma

        def log_slope(t):  # log |f_q'| at alpha = Phi(-t)
            return np.logaddexp(math.log(q) + m0 * t - m0 * m0 / 2, math.log1p(-q))

        kl = integrate.quad(lambda t: log_slope(t) * math.expm1(log_slope(t)) * stats.norm.pdf(t), m0 / 2, 60,
                            epsrel=1e-12, limit=400)[0]
        k2 = integrate.quad(lambda t: log_slope(t) ** 2 * (1 + math.exp(log_slope(t))) * stats.norm.pdf(t), m0 / 2,
                            60, epsrel=1e-12, limit=400)[0]
        per_nu = 2 * kl / (q * math.sqrt(k2))
        drs = math.sqrt(2 * (math.exp(m0 ** 2) * stats.norm.cdf(1.5 * m0) + 3 * stats.norm.cdf(-0.5 * m0) - 2))
        assert per_nu == pytest.approx(drs, rel=2e-3)
        assert per_nu > 1.15 * F.clt_mu_poisson_gaussian(q, sigma, round(1 / q ** 2))
    assert drs == pytest.approx(0.6276, abs=1e-4)


def test_dpsgd_calibration_refuses_by_name_at_once_and_calibrates_up_to_its_cap():
    # the refusal is one query at the cap (it was reached after doubling from 1: 20 queries, 20 s at q = 0.5,
    # 10**6 steps; the time is measured in benchmarks/bench_fdp.py, not here)
    for q, steps, eps, delta in [(1.0, 1000, 1e-9, 1e-10), (0.5, 10**4, 1e-7, 1e-12)]:
        with pytest.raises(ValueError, match="no noise multiplier up to 1e6 reaches epsilon"):
            dp.dpsgd_noise_multiplier(q, steps=steps, epsilon=eps, delta=delta)
    # a target whose sigma lies between 2**19 and the cap 1e6 is calibrated (the doubling refused at 2**20 > 1e6)
    eps = dp.gaussian_epsilon(1e-7, 1.0 / 7e5)
    assert eps > 0
    sigma = dp.dpsgd_noise_multiplier(1.0, steps=1, epsilon=eps, delta=1e-7)
    assert 7e5 * (1 - 2e-3) < sigma <= 1e6 and dp.dpsgd_epsilon(1.0, noise_multiplier=sigma, steps=1, delta=1e-7) <= eps


def test_tradeoff_curve_method_reaches_the_accountant():
    # the method argument decides which accountant answers: the envelope is exactly that method's profile
    acc = dp.PrivacyAccountant().compose(dp.PoissonSampledEvent(0.05, dp.GaussianEvent(1.0)), 5)
    ds = [1e-6, 0.1]
    a = np.array([1e-4, 0.01, 0.3])
    curves = {}
    for m in ("rdp", "pld"):
        curves[m] = F.tradeoff_curve(acc, a, method=m, deltas=ds)
        assert np.array_equal(curves[m], F.tradeoff_from_profile(a, [acc.epsilon(d, m) for d in ds], ds))
    assert not np.array_equal(curves["rdp"], curves["pld"])
    assert np.array_equal(F.tradeoff_curve(acc, a, deltas=ds), curves["pld"])  # the default for sampled events


def test_numbers_of_the_chapter_exercises():
    # fdp-ex-composition-budget: mu_0 = 0.05; (b) 28 runs within (1, 1e-5); (c) basic composition allows 5
    mu = F.gdp_mu_for_dp(1.0, 1e-5)
    assert math.floor((mu / 0.05) ** 2) == 28
    assert dp.gaussian_delta(1.0, 0.05 * math.sqrt(28)) <= 1e-5 < dp.gaussian_delta(1.0, 0.05 * math.sqrt(29))
    basic = [k for k in range(1, 10) if k * dp.gaussian_epsilon(1e-5 / k, 0.05) <= 1.0]
    assert max(basic) == 5
    # fdp-ex-clt-regime: at q = 0.001, sigma = 0.5, 1000 steps the CLT reports about a quarter of the PLD's epsilon
    e_clt = dp.gaussian_epsilon(1e-5, F.clt_mu_poisson_gaussian(0.001, 0.5, 1000))
    ratio = e_clt / dp.dpsgd_epsilon(0.001, noise_multiplier=0.5, steps=1000, delta=1e-5)
    assert 0.2 < ratio < 0.3


def test_default_envelope_gap_over_ranges_of_mu_is_the_stated_supremum():
    # DEFAULT_PROFILE_DELTAS states the supremum over alpha *and* mu: at most 0.018 below G_mu for mu <= 1, 0.026 up
    # to mu = 4 and 0.031 up to mu = 6. Measured at six mu only, it said 0.011 for mu <= 1 and 0.0225 up to 4; the gap
    # is not monotone in mu and peaks where 2 Phi(mu/2) - 1 falls between two grid deltas (0.0178 at mu = 0.591,
    # 0.0257 at mu = 3.598). The supremum over alpha is exact at the envelope's kinks.
    ds = np.array(F.DEFAULT_PROFILE_DELTAS)
    mus = np.concatenate([np.arange(0.25, 6.0001, 0.25), [0.5907, 3.5977]])
    gaps = []
    for mu in mus:
        eps = [dp.gaussian_epsilon(float(d), float(mu)) for d in ds]
        kinks = envelope_kinks(eps, ds)
        gaps.append(float(np.max(F.tradeoff_gaussian(kinks, mu) - F.tradeoff_from_profile(kinks, eps, ds))))
    gaps = np.array(gaps)
    for top, bound in ((1.0, 0.018), (4.0, 0.026), (6.0, 0.031)):
        worst = gaps[mus <= top + 1e-9].max()
        assert bound - 0.001 < worst <= bound, (top, worst)
    assert gaps[mus == 0.5907][0] > 0.0175 > 0.011  # the old statement "0.011 for mu <= 1" is false here


def test_composed_pure_and_laplace_events_are_not_read_as_one_run():
    # The closed forms of tradeoff_curve hold for ONE run only. Independent upper bounds on the exact curves of two
    # runs: (i) randomized response run twice, the exact curve through the Neyman-Pearson corners of the number of
    # 1s; (ii) the Laplace mechanism run twice on (0, 0) vs (eps, eps), the threshold test on the sum, whose law is
    # (1 + |z|) e^-|z| / 4 (P(S > z) = (2 + z) e^-z / 4 for z >= 0). A guarantee is never above either.
    eps = 0.5
    p = math.exp(eps) / (1 + math.exp(eps))
    ones0 = [p * p, 2 * p * (1 - p), (1 - p) ** 2]  # P(k ones | bit 0), k = 0, 1, 2
    ones1 = ones0[::-1]                                                  # P(k ones | bit 1)
    corners_a = [sum(ones0[j:]) for j in (3, 2, 1, 0)]                   # reject when k >= j
    corners_b = [sum(ones1[:j]) for j in (3, 2, 1, 0)]
    a = np.linspace(0.0, 1.0, 401)
    exact_rr2 = np.interp(a, corners_a, corners_b)
    for events in (dp.ComposedEvent(dp.PureDPEvent(eps), 2), [dp.PureDPEvent(eps), dp.PureDPEvent(eps)]):
        curve = F.tradeoff_curve(events, a)
        assert np.all(curve <= exact_rr2 + 1e-12)
    assert np.max(F.tradeoff_epsilon_delta(a, eps) - exact_rr2) > 0.05  # one run's curve is far above it
    t = np.linspace(0.0, 2.0, 21)
    a_sum, b_sum = (2 + t) * np.exp(-t) / 4, (4 - t) * np.exp(t - 2) / 4
    for events in (dp.ComposedEvent(dp.LaplaceEvent(1.0), 2), [dp.LaplaceEvent(1.0)] * 2):
        assert np.all(F.tradeoff_curve(events, a_sum) <= b_sum + 1e-12)
    assert np.min(F.tradeoff_laplace(a_sum, 1.0) - b_sum) > 0.04


def test_mixed_gaussian_and_laplace_events_get_the_envelope():
    # not only Gaussian events: no closed form, the accountant's envelope; it is a lower bound on the joint curve,
    # which is below each part's exact curve (each part's output is a post-processing of the joint output)
    a = np.array([1e-3, 0.05, 0.3, 0.8])
    events = [dp.GaussianEvent(1.0), dp.LaplaceEvent(0.5)]
    acc = dp.PrivacyAccountant(events)
    ds = [1e-6, 1e-3, 0.1]
    got = F.tradeoff_curve(events, a, deltas=ds)
    assert np.array_equal(got, F.tradeoff_from_profile(a, [acc.epsilon(d, "rdp") for d in ds], ds))
    assert np.all(got <= np.minimum(F.tradeoff_gaussian(a, 1.0), F.tradeoff_laplace(a, 0.5)) + 1e-12)


def test_laplace_curve_between_eps_700_and_745_against_mpmath():
    # the log-space branch (eps > 700) at its knee e^-eps / 2 and beyond alpha = 1/2, where e^-eps is still a normal
    # float: a knee at e^-eps, or log1p(+alpha), gave 1/4 for 1/3 and 1.7 e^-eps for 0.3 e^-eps
    mpmath.mp.dps = 50
    for eps in (701.0, 705.5):
        e = mpmath.mpf(eps)
        knee = mpmath.exp(-e) / 2
        for a in (float(1.5 * knee), float(1.9 * knee), float(0.6 * knee), 0.3, 0.7, 0.999):
            am = mpmath.mpf(a)
            want = 1 - mpmath.exp(e) * am if am < knee else (mpmath.exp(-e) / (4 * am) if am <= 0.5
                                                             else mpmath.exp(-e) * (1 - am))
            assert F.tradeoff_laplace(a, eps) == pytest.approx(float(want), rel=1e-12, abs=0), (eps, a)
    assert F.tradeoff_laplace(float(1.5 * mpmath.exp(-701) / 2), 701.0) == pytest.approx(1 / 3, rel=1e-12)


def test_clt_overflow_is_refused_by_name_in_gdp_mu_too():
    # gdp_mu(..., clt=True) on its own (not through clt_mu_poisson_gaussian): e^(mu^2) overflows for mu^2 > 709
    for ev in (dp.PoissonSampledEvent(0.5, dp.GaussianEvent(0.03)), dp.PoissonSampledEvent(0.5, dp.GaussianEvent(1.0, 30.0))):
        with pytest.raises(ValueError, match="noise_multiplier"):
            F.gdp_mu(ev, clt=True)
    # just inside the limit (mu^2 = 696): a finite mu, q sqrt(e^696 - 1)
    sigma = 1.0 / math.sqrt(696.0)
    got = F.gdp_mu(dp.PoissonSampledEvent(0.5, dp.GaussianEvent(sigma)), clt=True)
    assert got == pytest.approx(0.5 * math.sqrt(math.expm1(1.0 / sigma ** 2)), rel=1e-12)


def test_profile_deltas_above_one_and_a_misspelt_method_are_refused_by_name():
    for bad in ([1.5], [1.0 + 1e-12]):
        with pytest.raises(ValueError, match="deltas"):
            F.tradeoff_from_profile(0.1, [1.0], bad)
    assert F.tradeoff_from_profile(0.1, [1.0], [1.0]) == 0.0  # delta = 1: no guarantee, the curve 0
    # method is a public parameter: refused by name even where a closed form answers (it was ignored there)
    for events in (dp.GaussianEvent(1.0), dp.LaplaceEvent(1.0), dp.PureDPEvent(1.0), [dp.LaplaceEvent(1.0)] * 2):
        with pytest.raises(ValueError, match="method"):
            F.tradeoff_curve(events, 0.1, method="pdl")
        with pytest.raises(TypeError, match="method"):
            F.tradeoff_curve(events, 0.1, method=3)
    assert F.tradeoff_curve(dp.GaussianEvent(1.0), 0.1, method="rdp") == F.tradeoff_gaussian(0.1, 1.0)



def test_one_pure_dp_event_reads_as_randomized_response_not_laplace():
    # One PureDPEvent is known only to be eps-DP: its guarantee is f_{eps, 0}, the curve of randomized response
    # (fdp-thm-rr-curve), not the Laplace curve, which lies strictly above it for e^-eps/2 < alpha < 1/2 and would
    # promise more than eps-DP does. Values by hand at eps = ln 3: f = max(1 - 3 alpha, (1 - alpha)/3), Laplace
    # 1/(12 alpha) in the middle (knee 1/6). The alphas sit in the middle, where the two differ (at 0, 0.01, 0.2,
    # 0.7 and 1, with eps = 0.5, they coincide: swapping the two closed forms went unnoticed).
    eps = math.log(3)
    a = np.array([0.2, 0.25, 0.3, 0.4])
    f_pure = np.maximum(1 - 3 * a, (1 - a) / 3)
    lap = 1 / (12 * a)
    assert np.all(lap > f_pure + 0.005)
    np.testing.assert_allclose(F.tradeoff_curve(dp.PureDPEvent(eps), a), f_pure, rtol=1e-12)
    np.testing.assert_allclose(F.tradeoff_curve(dp.LaplaceEvent(eps), a), lap, rtol=1e-12)


def test_profile_of_unequal_lengths_is_refused_either_way():
    # zip would drop the surplus silently: more epsilons than deltas is as wrong as fewer
    for eps, ds in (([1.0, 2.0], [0.1]), ([1.0], [0.1, 0.2]), ([1.0, 2.0, 3.0], [0.1, 0.01])):
        with pytest.raises(ValueError, match="equal length"):
            F.tradeoff_from_profile(0.1, eps, ds)


def test_laplace_curve_where_e_minus_eps_is_subnormal_against_mpmath():
    # from eps = 708.4, e^-eps is subnormal (at eps = 740 it has 7 significant bits): the middle piece
    # e^-eps / (4 alpha) near the knee is about 1/3 and must not inherit that rounding (the log-space branch
    # from eps = 700 keeps it to ~1e-13)
    mpmath.mp.dps = 50
    for eps in (712.0, 730.0, 740.0):
        e = mpmath.mpf(eps)
        knee = mpmath.exp(-e) / 2
        for a in (float(1.5 * knee), float(1.9 * knee), float(3 * knee)):
            am = mpmath.mpf(a)
            want = mpmath.exp(-e) / (4 * am)
            assert F.tradeoff_laplace(a, eps) == pytest.approx(float(want), rel=1e-12, abs=0), (eps, a)

# ---------------------------------------------------------------------------------------------------
# The chapter's figures (issue 37): what they draw is what the theorems say, and no legend covers data
# ---------------------------------------------------------------------------------------------------

def _print_png(fig):
    """The figure as Jupyter shows it (book style, legends moved off data), with its PNG's text chunks."""
    import io

    from IPython.core.pylabtools import print_figure
    from PIL import Image

    import dpcourse.plots  # noqa: F401  (installs the book's figure style)

    return Image.open(io.BytesIO(print_figure(fig, "png", bbox_inches="tight")))


def test_threshold_test_errors_are_the_gaussian_tails_and_lie_on_g_mu():
    from dpcourse.plots.fdp import threshold_test_errors

    for mu, t in ((1.0, 1.0), (0.3, -2.0), (2.5, 0.7), (4.0, 6.0)):
        a, b = threshold_test_errors(mu, t)
        assert a == pytest.approx(stats.norm.sf(t), rel=1e-12)           # P[N(0, 1) > t]
        assert b == pytest.approx(stats.norm.cdf(t - mu), rel=1e-12)     # P[N(mu, 1) <= t]
        # a threshold test is a best test here (fdp-thm-gaussian-curve): its pair is on the curve
        assert F.tradeoff_gaussian(a, mu) == pytest.approx(b, rel=1e-9)
    assert threshold_test_errors(1.0, 1.0)[1] == 0.5
    with pytest.raises(ValueError, match="mu"):
        threshold_test_errors(0.0, 1.0)
    with pytest.raises(ValueError, match="threshold"):
        threshold_test_errors(1.0, float("nan"))


def test_tradeoff_idea_figure_marks_the_test_on_the_curve():
    import matplotlib.pyplot as plt

    from dpcourse.plots.fdp import plot_tradeoff_idea, threshold_test_errors

    fig = plot_tradeoff_idea(mu=1.5, threshold=0.4)
    left, right = fig.axes
    a, b = threshold_test_errors(1.5, 0.4)
    labels = [t.get_text() for t in left.get_legend().get_texts()]
    assert f"false positives α = {a:.2f}" in labels and f"misses β = {b:.2f}" in labels
    curve, others, marked = right.lines[:3]
    np.testing.assert_allclose(curve.get_ydata(), F.tradeoff_gaussian(curve.get_xdata(), 1.5), rtol=1e-12)
    assert (marked.get_xdata()[0], marked.get_ydata()[0]) == (a, b)
    # every other threshold's pair is on the curve too
    np.testing.assert_allclose(others.get_ydata(), F.tradeoff_gaussian(np.asarray(others.get_xdata()), 1.5),
                               rtol=1e-9)
    # the shaded false positives are the density of N(0, 1) right of the threshold, and nothing left of it
    shade = left.collections[0].get_paths()[0].vertices
    assert shade[:, 0].min() >= 0.4 - 1e-9
    assert _print_png(fig).text["dpcourse:legends-over-data"] == "0"
    plt.close(fig)
    with pytest.raises(ValueError, match="mu"):
        plot_tradeoff_idea(mu=-1.0)


def test_attack_caps_figure_draws_the_three_readings_of_a_run():
    import matplotlib.pyplot as plt

    from dpcourse.plots.fdp import plot_attack_caps

    q, steps, delta, sigma = 0.05, 40, 1e-5, 2.0
    run = dp.PrivacyAccountant().compose(dp.PoissonSampledEvent(q, dp.GaussianEvent(sigma)), steps)
    eps = run.epsilon(delta, "pld")
    mu = F.clt_mu_poisson_gaussian(q, sigma, steps)
    fig = plot_attack_caps(run, eps, delta, mu, fpr=0.02)
    ax = fig.axes[0]
    chance, pair, profile, clt = ax.lines[:4]
    a = np.asarray(profile.get_xdata())
    assert 0.02 in a
    np.testing.assert_allclose(pair.get_ydata(), 1 - F.tradeoff_epsilon_delta(a, eps, delta), rtol=1e-12)
    np.testing.assert_allclose(profile.get_ydata(), 1 - F.tradeoff_curve(run, a), rtol=1e-12)
    np.testing.assert_allclose(clt.get_ydata(), 1 - F.tradeoff_gaussian(a, mu), rtol=1e-12)
    np.testing.assert_array_equal(chance.get_ydata(), a)
    i = int(np.searchsorted(a, 0.02))
    title = ax.get_title()
    assert f"{1 - F.tradeoff_curve(run, 0.02):.4f} (profile)" in title and "not a bound" in title
    assert f"{1 - F.tradeoff_epsilon_delta(0.02, eps, delta):.4f} (pair)" in title
    assert np.all(np.asarray(profile.get_ydata()) >= a - 1e-12) and i > 0   # no guarantee below a blind guess
    assert _print_png(fig).text["dpcourse:legends-over-data"] == "0"
    plt.close(fig)
    with pytest.raises(ValueError, match="mu_clt"):
        plot_attack_caps(run, eps, delta, 0.0)


def test_one_run_of_one_kind_among_other_events_is_not_read_as_the_whole():
    # The closed forms need ONE event and ONE run. With a pure-DP (or Laplace) event first and another event
    # after it, the composition is more distinguishable than the first alone. Independent upper bound on the
    # joint curve: the test "reject when every coordinate is at its most telling value" (randomized response
    # reports 1; a Laplace output lies beyond its shift), whose type II error is 1 - e^(eps_1 + eps_2) alpha for
    # small alpha (the likelihood ratio is e^(eps_1 + eps_2) on that set). A guarantee is never above it.
    for events, total in (([dp.PureDPEvent(0.5), dp.LaplaceEvent(0.5)], 1.0),
                          ([dp.LaplaceEvent(0.5), dp.PureDPEvent(0.5)], 1.0),
                          ([dp.LaplaceEvent(1.0), dp.LaplaceEvent(0.5)], 1.5)):
        a = np.array([1e-3, 1e-2])  # below (1 - p) e^-0.5 / 2 = 0.114 and e^-1.5 / 4 = 0.056: the set's alpha reaches
        got = F.tradeoff_curve(events, a)
        assert np.all(got <= 1 - math.exp(total) * a + 1e-12), (events, got)
        first = events[0]
        alone = F.tradeoff_epsilon_delta(a, first.epsilon)  # equal to Laplace's curve at these alphas too
        assert np.all(alone - got > 0.5 * (math.exp(total) - math.exp(first.epsilon)) * a)


def test_gdp_mu_refuses_a_sampled_non_gaussian_event_by_name_even_with_clt():
    for inner in (dp.LaplaceEvent(1.0), dp.PureDPEvent(0.5)):
        with pytest.raises(dp.accounting.NotApplicableError, match="Gaussian"):
            F.gdp_mu(dp.PoissonSampledEvent(0.1, inner), clt=True)


@pytest.mark.parametrize("call", [
    lambda: F.tradeoff_gaussian(-0.1, 1.0),
    lambda: F.tradeoff_laplace(np.array([0.5, -1e-12]), 1.0),
    lambda: F.tradeoff_epsilon_delta(-5e-324, 1.0, 0.1),
    lambda: F.tradeoff_from_profile(-0.5, [1.0], [0.1]),
    lambda: F.tradeoff_curve(dp.GaussianEvent(1.0), [0.2, -1.0]),
])
def test_negative_alpha_is_refused_by_name(call):
    # a negative type I error made tradeoff_gaussian return NaN (ndtri of a negative number) without a word
    with pytest.raises(ValueError, match="alpha must lie in"):
        call()


def test_gdp_mu_sends_to_tradeoff_curve_only_the_events_it_can_take():
    """A sampled Laplace event is refused by gdp_mu and by tradeoff_curve alike: no hint sends it from one to the other."""
    from dpcourse.accounting import LaplaceEvent, NotApplicableError, PoissonSampledEvent
    from dpcourse.fdp import gdp_mu, tradeoff_curve
    sampled = PoissonSampledEvent(0.1, LaplaceEvent(1.0))
    with pytest.raises(NotApplicableError) as err:
        gdp_mu(sampled, clt=True)
    assert "tradeoff_curve" not in str(err.value)
    with pytest.raises((NotApplicableError, ValueError)):
        tradeoff_curve(sampled, 0.1)
    with pytest.raises(NotApplicableError, match="use tradeoff_curve"):
        gdp_mu(LaplaceEvent(1.0))
    assert 0.0 < tradeoff_curve(LaplaceEvent(1.0), 0.1) < 1.0


def test_an_infinite_epsilon_line_promises_nothing_even_at_alpha_zero():
    # An epsilon of inf means "no guarantee at this delta". Read as the line f_{inf, delta_j}, it still claims
    # beta(0) >= 1 - delta_j. The mechanism that publishes the record with probability 1e-5 (and answers by
    # randomized response otherwise) is (1, 1e-5)-DP with curve exactly f_{1, 1e-5}, so beta(0) = 1 - 1e-5: no
    # guarantee for it may be higher. The accountant's basic method answers inf below delta = 1e-5.
    mech = F.tradeoff_epsilon_delta(0.0, 1.0, 1e-5)
    assert F.tradeoff_from_profile(0.0, [math.inf, 1.0], [1e-10, 1e-5]) <= mech
    assert F.tradeoff_from_profile(0.0, [math.inf], [1e-10]) == 0.0
    got = F.tradeoff_curve(dp.accounting.EpsilonDeltaEvent(1.0, 1e-5), np.array([0.0, 1e-9, 0.01]), method="basic")
    assert np.all(got <= F.tradeoff_epsilon_delta(np.array([0.0, 1e-9, 0.01]), 1.0, 1e-5))


@pytest.mark.parametrize("delta", [2.3e-308, 1e-100, 1e-5, 0.5])
def test_gdp_mu_for_dp_is_tight_to_1e_9_where_documented(delta):
    # docstring: for delta from 2.3e-308 to 0.5, gaussian_delta(epsilon, mu * (1 + 1e-9)) > delta (at any epsilon)
    for eps in np.geomspace(1e-12, 1e15, 28):
        mu = F.gdp_mu_for_dp(float(eps), delta)
        assert dp.gaussian_delta(float(eps), mu * (1 + 1e-9)) > delta, eps


def test_gdp_mu_for_dp_is_looser_near_delta_one_as_documented():
    # nearer delta = 1 the certificate's margin moves mu more than 1e-9 below the root (the old docstring said
    # gaussian_delta(epsilon, mu * (1 + 1e-9)) > delta for every delta): 3.7e-9 at 0.99999, 3e-5 at 1 - 1e-9
    for delta, low, high in ((0.99999, 1e-9, 1e-8), (1 - 1e-9, 1e-5, 1e-4)):
        mu = F.gdp_mu_for_dp(1.0, delta)
        assert not dp.gaussian_delta(1.0, mu * (1 + low)) > delta
        assert dp.gaussian_delta(1.0, mu * (1 + high)) > delta
        assert dp.gaussian_delta(1.0, mu) <= delta
