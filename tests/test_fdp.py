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
    e_pld = dp.dpsgd_epsilon(0.01, 0.6, 100, 1e-5)
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


@pytest.mark.parametrize("mu", [0.05, 0.26, 1.0, 2.0, 4.0, 6.0])
def test_default_envelope_grid_is_below_and_within_002_of_gaussian(mu):
    # the default deltas reach 0.99: a grid stopping at 0.5 left the envelope 0.24 below G_4 near alpha = 5e-4
    ds = np.array(F.DEFAULT_PROFILE_DELTAS)
    acc = dp.PrivacyAccountant().compose(dp.PoissonSampledEvent(1.0, dp.GaussianEvent(1.0 / mu)), 1)
    env = F.tradeoff_curve(acc, GRID)  # q = 1: the "pld" method answers with the exact Gaussian epsilon
    exact = F.tradeoff_gaussian(GRID, mu)
    assert np.all(env <= exact + 1e-12)
    assert np.max(exact - env) < (0.011 if mu <= 1 else 0.02)
    assert ds.size == 31 and ds.max() == 0.99


def test_gdp_mu_for_dp_is_a_calibration_not_a_conversion():
    # mu-GDP with mu = gdp_mu_for_dp(eps, delta) implies (eps, delta)-DP: G_mu >= f_{eps, delta} everywhere ...
    eps, delta = 1.0, 1e-5
    mu = F.gdp_mu_for_dp(eps, delta)
    assert np.all(F.tradeoff_gaussian(GRID, mu) >= F.tradeoff_epsilon_delta(GRID, eps, delta) - 1e-15)
    # ... but (eps, delta)-DP does not imply mu-GDP for any mu: its curve starts at 1 - delta < 1 = G_mu(0)
    for m in (mu, 10.0, 30.0):
        assert F.tradeoff_epsilon_delta(0.0, eps, delta) < F.tradeoff_gaussian(0.0, m)


def test_sampled_curve_bounds_a_simulated_attack():
    # the envelope is a guarantee: the best test on one subsampled-Gaussian output (remove direction, the
    # likelihood-ratio test = a threshold on y) cannot beat it. Exact error of that test from the mixture CDF.
    q, sigma = 0.2, 0.5
    acc = dp.PrivacyAccountant().compose(dp.PoissonSampledEvent(q, dp.GaussianEvent(sigma)), 1)
    t = np.linspace(-1, 6, 50)
    a = stats.norm.sf(t)  # x: N(0,1) (record absent) ; x': mixture (record present), in units of sigma
    b = (1 - q) * stats.norm.cdf(t) + q * stats.norm.cdf(t - 1 / sigma)
    bound = F.tradeoff_curve(acc, a, deltas=np.geomspace(1e-6, 0.5, 6))
    assert np.all(b >= bound - 1e-9)


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
    assert F.tradeoff_laplace(1e-300, 800.0) == 0.0  # e^-800 / 2 underflows below alpha: the middle branch, 0
    assert F.tradeoff_epsilon_delta(0.5, 800.0) == 0.0
    assert F.tradeoff_epsilon_delta(0.0, 800.0) == 1.0
    assert 0.0 < F.tradeoff_gaussian(1e-300, 50.0) < 1e-37  # Phi(37.05 - 50)


def test_numbers_of_the_chapter_exercises():
    # fdp-ex-composition-budget: mu_0 = 0.05; (b) 28 runs within (1, 1e-5); (c) basic composition allows 5
    mu = F.gdp_mu_for_dp(1.0, 1e-5)
    assert math.floor((mu / 0.05) ** 2) == 28
    assert dp.gaussian_delta(1.0, 0.05 * math.sqrt(28)) <= 1e-5 < dp.gaussian_delta(1.0, 0.05 * math.sqrt(29))
    basic = [k for k in range(1, 10) if k * dp.gaussian_epsilon(1e-5 / k, 0.05) <= 1.0]
    assert max(basic) == 5
    # fdp-ex-clt-regime: at q = 0.001, sigma = 0.5, 1000 steps the CLT reports about a quarter of the PLD's epsilon
    e_clt = dp.gaussian_epsilon(1e-5, F.clt_mu_poisson_gaussian(0.001, 0.5, 1000))
    ratio = e_clt / dp.dpsgd_epsilon(0.001, 0.5, 1000, 1e-5)
    assert 0.2 < ratio < 0.3
