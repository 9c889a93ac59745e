"""Checkers of chapters 06-09 that must refuse under-noised answers (issue 11, erratum 2)."""

import math

import numpy as np
import pytest

from dpcourse.exercises import audit as audit_checker
from dpcourse.exercises.audit import check_clamped_mean, smallest_unbiased_sd


def scaled_student(factor):
    """The reference clamped mean with ``factor`` times the Laplace scale it needs."""

    def student(x, lower, upper, epsilon, rng):
        return np.clip(x, lower, upper).mean() + rng.laplace(0.0, factor * (upper - lower) / (len(x) * epsilon))

    return student


def test_reference_clamped_mean_passes():
    res = check_clamped_mean(scaled_student(1.0))
    assert res.passed, res.message


@pytest.mark.parametrize("factor", [0.45, 0.5, 0.6])
def test_under_noised_clamped_mean_fails(factor):
    # 0.45-0.6x the noise is about 1.7-2.2 epsilon-DP: the pair that moves one record from 0 to 1 exposes it
    res = check_clamped_mean(scaled_student(factor))
    assert not res.passed
    assert "0 in one and 1 in the other" in res.message


@pytest.mark.parametrize("factor", [0.5, 0.6])
def test_noise_lower_bound_alone_refuses_half_the_noise(monkeypatch, factor):
    class NeverRefutes:
        lower_bound = 0.0
        event = "none"

        @staticmethod
        def refutes(_eps):
            return False

    # switch the audits off: the Chapman-Robbins lower bound on the standard deviation must still fail it
    monkeypatch.setattr(audit_checker, "audit_epsilon", lambda *a, **k: NeverRefutes())
    res = check_clamped_mean(scaled_student(factor))
    assert not res.passed and "less noise than any epsilon-DP mean" in res.message
    assert check_clamped_mean(scaled_student(1.0)).passed


def test_smallest_unbiased_sd_by_hand():
    # Delta / (2 sinh(eps / 2)); at eps = 2 ln 2, sinh(ln 2) = (2 - 1/2) / 2 = 3/4, so the bound is 2 Delta / 3
    assert smallest_unbiased_sd(0.3, 2 * math.log(2)) == pytest.approx(0.2, rel=1e-14, abs=0)
    # the Laplace mechanism respects it, and tends to it as epsilon -> 0 (sqrt(2) Delta / eps >= Delta / eps)
    for eps in (0.01, 0.5, 2.0, 8.0):
        assert math.sqrt(2) * 0.1 / eps > smallest_unbiased_sd(0.1, eps)


def test_smallest_unbiased_sd_is_attained_by_a_two_point_ratio():
    # An exact check of the chi-square step: randomized response on {0, 1} shifted and scaled so that its
    # mean moves by Delta; its likelihood ratio takes only the values e^eps and e^-eps, so the Chapman-Robbins
    # bound holds with equality for the estimator (output - (1 - p)) / (2p - 1) * Delta.
    eps, delta = 0.7, 0.1
    p = math.exp(eps) / (1 + math.exp(eps))
    sd_unbiased = math.sqrt(p * (1 - p)) / (2 * p - 1) * delta
    assert sd_unbiased == pytest.approx(smallest_unbiased_sd(delta, eps), rel=1e-12, abs=0)


def test_high_dim_error_figure_draws_the_exact_sampler_noise():
    import matplotlib.pyplot as plt

    from dpcourse import analytic_gaussian_sigma, gaussian_lattice
    from dpcourse.plots.gaussian import plot_high_dim_error

    fig = plot_high_dim_error([1, 100], 1.0, 1e-6)
    dashed = [ln for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 1
    x, y = dashed[0].get_data()
    assert x[0] == 1 and y[0] == pytest.approx(gaussian_lattice(1.0, 1.0, 1e-6).noise_sigma, rel=1e-12, abs=0)
    # the exact sampler pays for its proof: more noise than the analytic calibration, but less than 1.3x
    assert 1.0 < y[-1] / analytic_gaussian_sigma(1.0, 1e-6, 10.0) < 1.3
    plt.close(fig)


def test_analytic_sigma_checker_refuses_a_slightly_under_noised_sigma():
    from dpcourse import analytic_gaussian_sigma
    from dpcourse.exercises.gaussian import check_analytic_sigma

    from student_solutions import analytic_sigma

    assert check_analytic_sigma(analytic_sigma).passed                       # written by hand: accepted
    res = check_analytic_sigma(lambda e, d: analytic_gaussian_sigma(e, d))
    assert not res.passed and "analytic_gaussian_sigma" in res.message and "yourself" in res.message
    res = check_analytic_sigma(lambda e, d: 0.9999 * analytic_sigma(e, d))
    assert not res.passed and "not the smallest sigma" in res.message
    assert "too small" not in res.message and "larger" not in res.message


def test_group_delta_checker_refuses_a_smaller_delta():
    from dpcourse import group_privacy
    from dpcourse.exercises.gaussian import check_group_delta

    from student_solutions import group_delta

    assert check_group_delta(group_delta).passed                             # written by hand: accepted
    res = check_group_delta(lambda e, d, k: group_privacy(e, d, k)[1])   # forbidden
    assert not res.passed and "group_privacy" in res.message and "yourself" in res.message
    # right for a group of one, 0.1% short from k = 2 on: refused at k = 2 as off (not for the k = 1 rule)
    res = check_group_delta(lambda e, d, k: group_delta(e, d, k) * (1.0 if k == 1 else 0.999))
    assert not res.passed and "k=2" in res.message and "is off" in res.message, res.message
