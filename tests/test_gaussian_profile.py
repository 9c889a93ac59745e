"""The exact Gaussian privacy profile and its inverse."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpcourse import gaussian_delta, gaussian_epsilon


@pytest.mark.parametrize("mu", [0.05, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.3, 1.0, 2.5])
def test_profile_is_the_hockey_stick_integral(mu, eps):
    # delta(eps) = integral of max(p(z) - e^eps q(z), 0) for p = N(mu, 1), q = N(0, 1), computed numerically.
    def integrand(z):
        return max(stats.norm.pdf(z, mu) - math.exp(eps) * stats.norm.pdf(z), 0.0)
    cut = eps / mu + mu / 2  # p > e^eps q exactly when z > cut
    numeric, _ = integrate.quad(integrand, cut, np.inf, epsabs=1e-14, epsrel=1e-12)
    assert gaussian_delta(eps, mu) == pytest.approx(numeric, rel=1e-8, abs=1e-15)


def test_profile_at_zero_is_total_variation():
    assert gaussian_delta(0.0, 1.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-14)


def test_profile_is_monotone():
    eps = np.linspace(0, 10, 201)
    d = np.array([gaussian_delta(e, 1.5) for e in eps])
    assert np.all(np.diff(d) < 0)
    mus = np.linspace(0.1, 5, 50)
    d = np.array([gaussian_delta(1.0, m) for m in mus])
    assert np.all(np.diff(d) > 0)  # less noise (larger mu) leaks more


def test_extreme_arguments_stay_finite():
    for eps, mu in [(700.0, 0.1), (50.0, 10.0), (1e-9, 1e-6), (0.0, 40.0), (5.0, 1e3)]:
        d = gaussian_delta(eps, mu)
        assert 0.0 <= d <= 1.0 and math.isfinite(d)  # 2 Phi(20) - 1 rounds to 1.0


@pytest.mark.parametrize("mu", [0.01, 0.3, 1.0, 4.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-5, 1e-2])
def test_epsilon_inverts_delta(mu, delta):
    eps = gaussian_epsilon(delta, mu)
    if eps > 0:
        assert gaussian_delta(eps, mu) == pytest.approx(delta, rel=1e-9, abs=0)
    else:
        assert gaussian_delta(0.0, mu) <= delta


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_bad_mu(bad):
    with pytest.raises(ValueError, match="mu"):
        gaussian_delta(1.0, bad)
    with pytest.raises(ValueError, match="mu"):
        gaussian_epsilon(1e-5, bad)


@pytest.mark.parametrize("bad", [0.0, 1.0, -1e-3, math.nan])
def test_bad_delta(bad):
    with pytest.raises(ValueError, match="delta"):
        gaussian_epsilon(bad, 1.0)


def test_bad_epsilon():
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_delta(-0.5, 1.0)
    with pytest.raises(TypeError, match="epsilon"):
        gaussian_delta(True, 1.0)


@pytest.mark.parametrize(
    "eps, mu, reference",
    [  # references computed with mpmath at 80 significant digits from the same formula
        (1e-4, 1e-5, 7.4749339918537527e-30),
        (1.0, 0.05, 1.1290332270977223e-91),
        (0.01, 0.00027, 1.0622100687490736e-305),
        (10.0, 0.27, 1.5543885455656868e-300),
        (300.0, 15.0, 2.0274692797167509e-36),
    ],
)
def test_tiny_deltas_keep_their_relative_accuracy(eps, mu, reference):
    assert gaussian_delta(eps, mu) == pytest.approx(reference, rel=1e-8, abs=0)


# ---------------------------------------------------------------- every finite answer, and the vectorized inverse


def test_gaussian_epsilon_accepts_every_input_with_a_finite_answer():
    # gaussian_epsilon(1e-300, 5e3) was refused ("exceeds 1e7"); its answer is about 1.27e7.
    for d, mu in [(1e-300, 5e3), (5e-324, 1e100), (1e-300, 1e154), (0.5, 1e-300), (1e-5, 1e5)]:
        e = gaussian_epsilon(d, mu)
        assert np.isfinite(e) and e >= 0 and gaussian_delta(e, mu) <= d
    assert gaussian_epsilon(1e-300, 5e3) == pytest.approx(12685234.485, rel=1e-9)
    # the answer is beyond the largest float: reported as unbounded, a valid (if useless) epsilon
    assert gaussian_epsilon(1e-300, 1e160) == math.inf


def test_vectorized_inverse_agrees_with_the_scalar_one_and_is_never_optimistic():
    from dpcourse.gaussian import _gaussian_delta_array, _gaussian_epsilon_array

    mus = np.geomspace(1e-3, 1e3, 61)
    for d in [1e-300, 1e-12, 1e-5, 0.01, 0.3, 0.9]:
        vec = _gaussian_epsilon_array(d, mus)
        scalar = np.array([gaussian_epsilon(d, m) for m in mus])
        # where delta exceeds the total variation distance the answer is exactly 0
        np.testing.assert_array_equal(vec == 0.0, scalar == 0.0)
        np.testing.assert_allclose(vec, scalar, rtol=1e-8, atol=0)
        assert all(gaussian_delta(e, m) <= d for e, m in zip(vec, mus))
        assert np.all(_gaussian_delta_array(vec, mus) <= d)
        # and just below each answer the profile is above delta (the inverse is tight)
        pos = vec > 0
        assert all(gaussian_delta(e * (1 - 1e-7), m) > d for e, m in zip(vec[pos], mus[pos]))
