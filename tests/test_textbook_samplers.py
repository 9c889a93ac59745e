"""The textbook (secure=False) float samplers still have the scale their theorems assume.

They are kept to demonstrate the floating-point attack, and the chapters measure their privacy loss and
accuracy with them, so their noise distribution is checked here: a KS test at alpha = 1e-6 on 20,000 draws
(40,000 single releases), which a scale 10% off fails.
"""

import numpy as np
import pytest
from scipy import stats

from dpcourse import analytic_gaussian_sigma, dp_mean, gaussian_mechanism, laplace_mechanism

ALPHA = 1e-6
N = 20_000


@pytest.mark.parametrize("sens, eps", [(1.0, 1.0), (2.0, 0.5)])
def test_textbook_laplace_noise_has_scale_sensitivity_over_epsilon(sens, eps):
    noise = laplace_mechanism(np.zeros(N), sens, eps, rng=3, secure=False)
    b = sens / eps
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > ALPHA
    assert stats.kstest(noise, stats.laplace(scale=1.1 * b).cdf).pvalue < ALPHA
    assert stats.kstest(noise, stats.laplace(scale=b / 1.1).cdf).pvalue < ALPHA


def test_textbook_laplace_single_releases_have_the_same_law():
    gen = np.random.default_rng(4)
    draws = np.array([laplace_mechanism(5.0, 1.0, 2.0, rng=gen, secure=False) for _ in range(2 * N)]) - 5.0
    assert stats.kstest(draws, stats.laplace(scale=0.5).cdf).pvalue > ALPHA
    assert stats.kstest(draws, stats.laplace(scale=0.55).cdf).pvalue < ALPHA


def test_textbook_dp_mean_noise_scale():
    # clamped mean of 4 values in [0, 10]: sensitivity 10/4 under replace-one, noise scale 2.5 / epsilon
    x = [1.0, 2.0, 30.0, -4.0]  # clamped to 1, 2, 10, 0: mean 3.25
    # size= releases (one vectorized draw): the law, at the sample size of the single releases above
    draws = dp_mean(x, 0.0, 10.0, 1.0, rng=5, secure=False, size=2 * N) - 3.25
    assert stats.kstest(draws, stats.laplace(scale=2.5).cdf).pvalue > ALPHA
    assert stats.kstest(draws, stats.laplace(scale=2.75).cdf).pvalue < ALPHA
    # a single release is, draw for draw, the textbook Laplace release of 3.25 at sensitivity 2.5 (to 1e-12:
    # dp_mean rounds its sensitivity up by 10 * 2**-51 to cover the float mean), whose single releases have the
    # right law (the test above): 400 seeds compared (a loop of 40,000 single dp_mean releases cost 5 s)
    for seed in range(400):
        one = dp_mean(x, 0.0, 10.0, 1.0, rng=np.random.default_rng(seed), secure=False)
        ref = laplace_mechanism(3.25, 2.5, 1.0, rng=np.random.default_rng(seed), secure=False)
        assert one == pytest.approx(ref, rel=1e-12, abs=1e-12), seed


def test_textbook_gaussian_noise_has_the_analytic_sigma():
    sigma = analytic_gaussian_sigma(1.0, 1e-5, 2.0)
    noise = gaussian_mechanism(np.zeros(N), 2.0, 1.0, 1e-5, rng=6, secure=False)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > ALPHA
    assert stats.kstest(noise, stats.norm(scale=1.1 * sigma).cdf).pvalue < ALPHA
