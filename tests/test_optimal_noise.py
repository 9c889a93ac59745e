"""Tests of dpcourse.optimal_noise: LP optimum = geometric + remap, K-norm noise, error formulas."""

import math

import numpy as np
import pytest
from scipy import stats

from dpcourse.optimal_noise import (count_loss_matrix, geometric_remap_loss, is_count_dp, knorm_l2_noise,
                                    l2_error_comparison, mechanism_loss, optimal_count_mechanism,
                                    truncated_geometric_matrix)


def test_truncated_geometric_by_hand():
    # alpha = 1/2, n = 1: P[z=0 | x=0] = 1/(1+a) = 2/3, P[z=1 | x=0] = a/(1+a) = 1/3
    np.testing.assert_allclose(truncated_geometric_matrix(1, math.log(2)), [[2 / 3, 1 / 3], [1 / 3, 2 / 3]],
                               rtol=1e-15)
    G = truncated_geometric_matrix(3, math.log(2))
    np.testing.assert_allclose(G[1], [1 / 3, 1 / 3, 1 / 6, 1 / 6], rtol=1e-15)
    assert is_count_dp(G, math.log(2))
    assert not is_count_dp(G, 0.99 * math.log(2))


def _custom_loss(n):
    """x-dependent, non-decreasing in |r - x|, capped: errors on large counts cost more, any error >= 3 is lost."""
    x = np.arange(n + 1)
    d = np.abs(x[None, :] - x[:, None])
    return np.sqrt(np.minimum(d, 3)) * (1 + x[:, None] / n)


@pytest.mark.parametrize("n", [2, 5, 9])
@pytest.mark.parametrize("epsilon", [0.2, 1.0, 2.5])
@pytest.mark.parametrize("loss", ["absolute", "squared", "zero_one", "custom"])
def test_lp_optimum_equals_geometric_plus_remap(n, epsilon, loss):
    prior = np.random.default_rng(n * 100 + int(10 * epsilon)).dirichlet(np.ones(n + 1))
    L = _custom_loss(n) if loss == "custom" else loss
    best = optimal_count_mechanism(n, epsilon, prior=prior, loss=L)
    geo = geometric_remap_loss(n, epsilon, prior=prior, loss=L)
    assert abs(best.expected_loss - geo.expected_loss) <= 1e-9
    assert is_count_dp(best.matrix, epsilon) and is_count_dp(geo.matrix, epsilon)
    np.testing.assert_allclose(best.matrix.sum(axis=1), 1.0, rtol=1e-12)


def test_a_mechanism_that_is_not_dp_does_better():
    """The equality above can fail: mechanisms outside epsilon-DP beat the optimum."""
    n, eps = 6, 1.0
    geo = geometric_remap_loss(n, eps)
    looser = optimal_count_mechanism(n, 1.1 * eps)
    assert looser.expected_loss < geo.expected_loss - 1e-3
    assert not is_count_dp(looser.matrix, eps)
    # geometric noise with a 10 %-too-small scale, remapped: also better, also not eps-DP
    cheat = geometric_remap_loss(n, 1.1 * eps)
    assert cheat.expected_loss < geo.expected_loss - 1e-3
    assert not is_count_dp(cheat.matrix, eps)
    # no noise at all
    assert mechanism_loss(np.eye(n + 1), np.full(n + 1, 1 / (n + 1)), count_loss_matrix(n)) == 0.0


def test_remapping_matters():
    """Without the remap the geometric mechanism is not optimal for a skewed prior."""
    n, eps = 6, 0.5
    prior = np.r_[0.7, np.full(n, 0.3 / n)]
    L = count_loss_matrix(n, "zero_one")
    raw = mechanism_loss(truncated_geometric_matrix(n, eps), prior, L)
    best = optimal_count_mechanism(n, eps, prior=prior, loss="zero_one").expected_loss
    assert raw > best + 0.05


def test_loss_and_prior_validation():
    with pytest.raises(ValueError, match="non-decreasing"):
        count_loss_matrix(2, [[0, 2, 1], [1, 0, 1], [1, 1, 0]])
    with pytest.raises(ValueError, match="loss must be one of"):
        count_loss_matrix(2, "huber")
    with pytest.raises(ValueError, match="prior must have"):
        optimal_count_mechanism(3, 1.0, prior=[0.5, 0.5])
    with pytest.raises(ValueError, match="sum to 1"):
        geometric_remap_loss(1, 1.0, prior=[0.5, 0.6])
    with pytest.raises(ValueError, match="epsilon"):
        geometric_remap_loss(3, float("nan"))
    with pytest.raises(ValueError, match="n must be at most"):
        optimal_count_mechanism(61, 1.0)


def test_knorm_requires_explicit_secure_false():
    for secure in (None, True):
        with pytest.raises(ValueError, match="secure=False"):
            knorm_l2_noise(3, 1.0, 1.0, rng=0, secure=secure)
    with pytest.raises(TypeError, match="secure"):
        knorm_l2_noise(3, 1.0, 1.0, rng=0, secure="no")
    assert knorm_l2_noise(4, 1.0, 1.0, rng=0, secure=False).shape == (4,)


@pytest.mark.parametrize("dim", [1, 3, 20])
def test_knorm_norm_is_gamma_and_direction_uniform(dim):
    """||Z||_2 ~ Gamma(dim, Delta/eps) (KS at alpha = 1e-6); the direction is uniform on the sphere."""
    delta, eps = 2.0, 0.5
    z = knorm_l2_noise(dim, delta, eps, size=40_000, rng=2026, secure=False)
    r = np.linalg.norm(z, axis=1)
    assert stats.kstest(r, stats.gamma(dim, scale=delta / eps).cdf).pvalue > 1e-6
    # a 10 % wrong scale is refused by the same test
    assert stats.kstest(r, stats.gamma(dim, scale=1.1 * delta / eps).cdf).pvalue < 1e-6
    if dim > 1:
        u1 = (z[:, 0] / r + 1) / 2      # first coordinate of a uniform direction: Beta((d-1)/2, (d-1)/2)
        assert stats.kstest(u1, stats.beta((dim - 1) / 2, (dim - 1) / 2).cdf).pvalue > 1e-6


def test_l2_error_comparison_by_hand():
    r = l2_error_comparison(1, 1.0, 1e-6)
    assert r["laplace"] == pytest.approx(math.sqrt(2), rel=1e-15)
    assert r["knorm"] == pytest.approx(math.sqrt(2), rel=1e-15)
    r = l2_error_comparison(100, 0.5, 1e-6, sensitivity_ball="l2", sensitivity=2.0)
    assert r["l1_sensitivity"] == 20.0
    assert r["laplace"] == pytest.approx(math.sqrt(200) * 20 / 0.5, rel=1e-15)
    assert r["knorm"] == pytest.approx(math.sqrt(100 * 101) * 2 / 0.5, rel=1e-15)
    r1 = l2_error_comparison(100, 0.5, 1e-6, sensitivity_ball="l1", sensitivity=2.0)
    assert r1["laplace"] == pytest.approx(math.sqrt(200) * 2 / 0.5, rel=1e-15)
    assert r1["gaussian"] == r["gaussian"]
    with pytest.raises(ValueError, match="sensitivity_ball"):
        l2_error_comparison(3, 1.0, 1e-6, sensitivity_ball="linf")


def test_knorm_rms_matches_formula():
    z = knorm_l2_noise(10, 1.0, 1.0, size=100_000, rng=5, secure=False)
    rms = math.sqrt(np.mean(np.sum(z * z, axis=1)))
    # E||Z||^2 = d (d + 1); the sample mean of ||Z||^2 has relative sd about 0.5 %
    assert rms == pytest.approx(l2_error_comparison(10, 1.0, 1e-6)["knorm"], rel=0.02)


def test_parity_loss_breaks_optimality():
    """For a loss that is not monotone in |r - x| (guess the parity) the geometric mechanism is not optimal."""
    n, eps = 4, 1.0
    x = np.arange(n + 1)
    parity = ((x[None, :] + x[:, None]) % 2).astype(float)
    with pytest.raises(ValueError, match="non-decreasing"):
        geometric_remap_loss(n, eps, loss=parity)
    best = optimal_count_mechanism(n, eps, loss=parity, require_monotone=False)
    geo = geometric_remap_loss(n, eps, loss=parity, require_monotone=False)
    assert geo.expected_loss > best.expected_loss + 0.05
    # the optimum is randomized response on the parity: error probability 1 / (1 + e^eps)
    assert best.expected_loss == pytest.approx(1 / (1 + math.exp(eps)), abs=1e-9)
    with pytest.raises(ValueError, match="non-negative"):
        count_loss_matrix(1, [[0, -1], [1, 0]], require_monotone=False)
