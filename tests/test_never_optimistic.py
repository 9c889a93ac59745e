"""Every inverse that promises a value that is never optimistic, checked at its rounding guard against
100-digit arithmetic (mpmath) on adversarial points: tiny and huge epsilon and mu, delta down to 5e-324, values
just at an atom of a discrete profile.

"Never optimistic" means: the *exact* quantity at the returned float (the exact Gaussian profile at the
returned epsilon or mu, the exact hockey-stick divergence of the worst-case pair, the exact zCDP conversion) is
within the target, not only the quantity as the package computes it in floating point. The functions:

* ``gaussian_epsilon`` and its vectorized twin (used by the accountant's "basic" method),
  ``gaussian_composition_epsilon``,
  the accountant's "gaussian_exact" method, ``dpsgd_epsilon`` at q = 1;
* ``analytic_gaussian_sigma``, ``gdp_mu_for_dp``, ``gaussian_per_query_sigma``, ``dpsgd_noise_multiplier`` at q = 1;
* ``optimal_composition_epsilon`` (exact randomized-response atoms); ``rho_for_epsilon`` (zCDP conversion);
  ``shuffle_amplification_epsilon`` (the Feldman-McMillan-Talwar pair, exact binomials at small n).

Each Gaussian check fails on the code before the profile's error bound entered the guards: at epsilon = 1e-6,
delta = 1e-300 the exact delta at the returned mu (and sigma) was 9.6e-8 relative above the target.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import dpcourse as dp
from dpcourse import fdp as F
from dpcourse.gaussian import _gaussian_epsilon_array

DPS = 100


def exact_delta(eps, mu):
    """The Gaussian profile Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) at exact (mpf) arguments."""
    with mpmath.workdps(DPS):
        eps, mu = mpmath.mpf(eps), mpmath.mpf(mu)
        return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


def at_most(exact, target) -> bool:
    return exact <= mpmath.mpf(target)  # a float target is an exact binary number


MUS = [1e-12, 2.7e-8, 1e-3, 0.26, 1.0, 3.0, 40.0, 5e3]
DELTAS = [5e-324, 1e-300, 1e-100, 1e-12, 1e-5, 0.01, 0.3, 0.9]


@pytest.mark.parametrize("delta", DELTAS)
def test_gaussian_epsilon_scalar_and_vectorized_are_never_optimistic(delta):
    vec = _gaussian_epsilon_array(delta, np.array(MUS))
    for mu, e_vec in zip(MUS, vec):
        e = dp.gaussian_epsilon(delta, mu)
        for got in (e, float(e_vec)):
            assert math.isfinite(got) and got >= 0.0
            assert at_most(exact_delta(got, mu), delta), (delta, mu, got)
            if got > 0.0:  # and not far on the safe side: a slightly smaller epsilon breaks the target
                assert exact_delta(got * (1 - 1e-9), mu) > delta, (delta, mu, got)


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1e-3, 0.5, 1.0, 20.0, 700.0])
@pytest.mark.parametrize("delta", [5e-324, 1e-300, 1e-12, 1e-5, 0.3])
def test_gdp_mu_for_dp_and_analytic_sigma_are_never_optimistic(eps, delta):
    mu = F.gdp_mu_for_dp(eps, delta)
    assert at_most(exact_delta(eps, mu), delta), (eps, delta, mu)
    sens = 3.0
    sigma = dp.analytic_gaussian_sigma(eps, delta, sens)
    with mpmath.workdps(DPS):
        exact_mu = mpmath.mpf(sens) / mpmath.mpf(sigma)  # the mechanism's mu: sensitivity over the float sigma
    assert at_most(exact_delta(eps, exact_mu), delta), (eps, delta, sigma)
    if eps >= 1e-6 and delta >= 1e-300:  # tight too (at eps = 1e-12 a relative 1e-9 in mu moves delta by less)
        assert exact_delta(eps, mu * (1 + 1e-9)) > delta
        assert exact_delta(eps, exact_mu * (1 + mpmath.mpf(1e-9))) > delta


def test_the_issues_point_fails_without_the_error_bound(monkeypatch):
    # epsilon = 1e-6, delta = 1e-300: the old guard compared the float profile, 9.6e-8 relative below the
    # exact one there; with the bound in the guard the exact profile is within the target.
    mu = F.gdp_mu_for_dp(1e-6, 1e-300)
    assert at_most(exact_delta(1e-6, mu), 1e-300)
    # what the guard must not do: accept a mu whose exact delta exceeds the target by 1e-9 relative
    bad = mu * (1 + 1e-11)
    assert exact_delta(1e-6, bad) > mpmath.mpf(1e-300) * (1 + mpmath.mpf(1e-9))
    from dpcourse.gaussian import _within
    assert not _within(1e-6, bad, math.log(1e-300))


def test_profile_error_bound_holds_against_100_digits():
    # eta of _profile_log bounds |computed - exact| log delta at the float arguments, with room: at most eta / 4
    from dpcourse.gaussian import _profile_log

    rng = np.random.default_rng(35)
    mus = np.exp(rng.uniform(math.log(1e-14), math.log(1e6), 240))
    eps = np.exp(rng.uniform(math.log(1e-16), math.log(1e9), 240))
    eps[:80] = mus[:80] ** 2 / 2 * np.exp(rng.uniform(-0.2, 0.2, 80)) + mus[:80] * rng.uniform(0, 40, 80)
    eps[80:90] = 0.0
    eps = np.concatenate([eps, [1e-6, 2.4e-15, 1e-300, 5e-324, 1.0, 1e7]])
    mus = np.concatenate([mus, [2.7e-8, 1.4e-14, 1e-150, 1e-300, 1e154, 5e3]])
    log_delta, eta = _profile_log(eps, mus)
    checked = 0
    for e, m, ld, h in zip(eps, mus, log_delta, eta):
        ref = exact_delta(e, m)
        if ref < mpmath.mpf("1e-320"):
            continue
        checked += 1
        assert abs(ld - float(mpmath.log(ref))) <= h / 4, (e, m, ld, h)
    assert checked > 150


def test_composed_gaussians_are_never_optimistic():
    # mu = sqrt(k) sens / sigma is rounded before the inversion: the exact mu may be an ulp larger
    for sigma, k, delta, sens in [(3.0, 3, 1e-300, 1.0), (0.7, 7, 1e-12, 0.3), (1e4, 10**6, 1e-5, 1.0),
                                  (1e-3, 2, 0.3, 1e-4)]:
        e = dp.gaussian_composition_epsilon(sigma, k, delta, sens)
        with mpmath.workdps(DPS):
            mu = mpmath.sqrt(k) * mpmath.mpf(sens) / mpmath.mpf(sigma)
        assert at_most(exact_delta(e, mu), delta), (sigma, k, delta)
        acc = dp.PrivacyAccountant().compose(dp.GaussianEvent(sigma, sens), k)
        assert at_most(exact_delta(acc.epsilon(delta, "gaussian_exact"), mu), delta)
        # basic composition: k runs, each at delta / k (the vectorized inverse), the total delta within delta
        e_basic = acc.epsilon(delta, "basic") / k
        with mpmath.workdps(DPS):
            run_mu = mpmath.mpf(sens) / mpmath.mpf(sigma)
            assert k * exact_delta(e_basic, run_mu) <= mpmath.mpf(delta)


def test_calibrated_sigmas_are_never_optimistic():
    # q = 1: DP-SGD is k Gaussians with mu = sqrt(k) / sigma, whose exact profile is known
    for k, eps, delta in [(3, 1.0, 1e-5), (1000, 1e-3, 1e-12)]:
        sigma = dp.dpsgd_noise_multiplier(1.0, steps=k, epsilon=eps, delta=delta, rtol=1e-6)
        with mpmath.workdps(DPS):
            mu = mpmath.sqrt(k) / mpmath.mpf(sigma)
        assert at_most(exact_delta(eps, mu), delta), (k, eps, delta)
        s = dp.queries.gaussian_per_query_sigma(k, eps, delta)
        with mpmath.workdps(DPS):
            mu = mpmath.sqrt(k) / mpmath.mpf(s)
        assert at_most(exact_delta(eps, mu), delta), (k, eps, delta)


def exact_rr_delta(eps, k, eps_total):
    """Hockey-stick divergence of the k-fold randomized-response pair (Kairouz-Oh-Viswanath), exact atoms."""
    with mpmath.workdps(DPS):
        e, et = mpmath.mpf(eps), mpmath.mpf(eps_total)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        total = mpmath.mpf(0)
        for j in range(k + 1):
            loss = (k - 2 * j) * e
            if loss > et:
                total += mpmath.binomial(k, j) * p ** (k - j) * (1 - p) ** j * (1 - mpmath.exp(et - loss))
        return total


@pytest.mark.parametrize("eps,k", [(1.0, 1), (0.5, 10), (1e-6, 40), (2.0, 300), (0.7, 3)])
def test_optimal_composition_is_never_optimistic_even_at_an_atom(eps, k):
    # targets: generic deltas, tiny ones, and the profile's values exactly at an atom (k - 2i) eps, where
    # the float epsilon cannot resolve delta finely; and a delta far below the top atom's mass, whose answer sits
    # just below the top loss k eps: there a loss rounded down (3 * 0.7 is 2.0999999999999996, the exact product
    # 2.09999999999999987) moves delta by 3e-5 relative
    targets = [1e-300, 1e-12, 1e-5, 0.2]
    with mpmath.workdps(DPS):
        p_top = (mpmath.exp(mpmath.mpf(eps)) / (1 + mpmath.exp(mpmath.mpf(eps)))) ** k
    targets.append(float(p_top * mpmath.mpf(1e-12)))
    for i in (1, k // 3):
        if 0 < (k - 2 * i) * eps:
            d_atom = float(exact_rr_delta(eps, k, (k - 2 * i) * eps))
            if 0 < d_atom < 1:
                targets.append(d_atom)
    for d in targets:
        got = dp.optimal_composition_epsilon(eps, k, d)
        assert at_most(exact_rr_delta(eps, k, got), d), (eps, k, d, got)


def exact_zcdp_epsilon(rho, delta):
    """min over alpha of the CKS 2020 (Prop. 12) conversion of rho-zCDP, in 100-digit arithmetic."""
    with mpmath.workdps(DPS):
        r, d = mpmath.mpf(rho), mpmath.mpf(delta)

        def conv(la):  # la = log(alpha - 1)
            a = 1 + mpmath.exp(la)
            return a * r + mpmath.log(1 - 1 / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)

        grid = [mpmath.mpf(x) for x in np.linspace(math.log(1e-6), math.log(1e10), 400)]
        best = min(grid, key=conv)
        lo, hi = best - mpmath.mpf(0.05), best + mpmath.mpf(0.05)
        for _ in range(200):  # golden-section refinement (conv is unimodal in log(alpha - 1) near its minimum)
            m1, m2 = lo + (hi - lo) * mpmath.mpf(0.382), lo + (hi - lo) * mpmath.mpf(0.618)
            lo, hi = (lo, m2) if conv(m1) < conv(m2) else (m1, hi)
        return conv((lo + hi) / 2)


@pytest.mark.parametrize("eps,delta", [(1e-3, 1e-300), (1.0, 1e-5), (10.0, 1e-12), (0.5, 0.4)])
def test_rho_for_epsilon_is_never_optimistic(eps, delta):
    rho = dp.synthetic.rho_for_epsilon(eps, delta)
    assert exact_zcdp_epsilon(rho, delta) <= mpmath.mpf(eps)


def exact_shuffle_delta(eps, eps0, n):
    """D_{e^eps}(P0 || P1) of the Feldman-McMillan-Talwar pair (Theorem 3.2), with exact binomials."""
    with mpmath.workdps(DPS):
        e0 = mpmath.mpf(eps0)
        p, alpha, ee = mpmath.exp(-e0), 1 / (1 + mpmath.exp(-e0)), mpmath.exp(mpmath.mpf(eps))
        total = mpmath.mpf(0)
        for c in range(n):
            pc = mpmath.binomial(n - 1, c) * p ** c * (1 - p) ** (n - 1 - c)
            inner = mpmath.mpf(0)
            for x in range(c + 2):  # first coordinate X in 0..c+1; A ~ Bin(c, 1/2)
                pa = (mpmath.binomial(c, x) if x <= c else 0) / mpmath.mpf(2) ** c      # P(A = x)
                pa1 = (mpmath.binomial(c, x - 1) if x >= 1 else 0) / mpmath.mpf(2) ** c  # P(A = x - 1)
                p0 = alpha * pa1 + (1 - alpha) * pa
                p1 = (1 - alpha) * pa1 + alpha * pa
                inner += max(p0 - ee * p1, 0)
            total += pc * inner
        return total


@pytest.mark.parametrize("eps0,n,delta", [(1.0, 12, 0.05), (3.0, 40, 1e-3), (0.5, 25, 1e-6)])
def test_shuffle_amplification_is_never_optimistic(eps0, n, delta):
    got = dp.local_dp.shuffle_amplification_epsilon(eps0, n, delta, tol=1e-9)
    assert at_most(exact_shuffle_delta(got, eps0, n), delta), (eps0, n, delta, got)


def test_a_failed_profile_evaluation_is_never_a_certificate():
    # at eps near 1e17 and beyond, eps + log Phi(b) cancels to rounding noise, and an inf * 0 gave NaN: both
    # were turned into delta = 0 with no error bound, and the inverses certified answers whose exact delta is
    # 0.5 to 1 (a fresh hostile read). A failed evaluation must read as delta = 1.
    import mpmath as mp

    from dpcourse import gaussian as g

    assert g.gaussian_delta(5e17, 1e9) >= 0.5
    with mp.workdps(400):
        def exact(eps, mu):
            eps, mu = mp.mpf(eps), mp.mpf(mu)
            return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)

        for target, mu in [(1e-5, 1e12), (0.5, 1e9), (1e-5, 3.16e9), (1e-5, 1e16)]:
            assert exact(g.gaussian_epsilon(target, mu), mu) <= target, (target, mu)
        for eps, target in [(1e30, 1e-5), (1e18, 0.5)]:
            assert exact(eps, 1 / mp.mpf(g.analytic_gaussian_sigma(eps, target))) <= target, (eps, target)
