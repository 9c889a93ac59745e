"""Tests of dpcourse.inference: the normal + Laplace law against numerical integration, the release's noise
scales and budget split (KS and chi-square at alpha = 1e-6), coverage by binomial tests at alpha = 1e-6
against [94%, 97%] (and the naive interval's under-coverage), accounting, post-processing, bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

import dpcourse as dp
from dpcourse import inference as I
from dpcourse.data import load_affairs, load_penguins

ALPHA = 1e-6


@pytest.fixture(scope="module")
def penguins():
    d = load_penguins()
    ok = ~np.isnan(d["body_mass_g"])
    return d["body_mass_g"][ok], d["sex"][ok]


def coverage_in_range(hits, reps, low=0.94, high=0.97):
    """Binomial test at ALPHA against every coverage in [low, high]: True unless rejected."""
    k = int(round(hits * reps))
    return stats.binom.cdf(k, reps, low) > ALPHA and stats.binom.sf(k - 1, reps, high) > ALPHA


def below(hits, reps, low=0.94):
    k = int(round(hits * reps))
    return stats.binom.cdf(k, reps, low) < ALPHA


# ---------------------------------------------------------------------------------------------------
# the law of S + L


@pytest.mark.parametrize("sigma,b,c", [(1.0, 1.0, 2.0), (0.3, 2.0, 5.0), (3.0, 0.2, 4.0), (1.0, 0.05, 1.0)])
def test_tail_matches_numerical_convolution(sigma, b, c):
    dens = lambda t: stats.norm.pdf(t, scale=sigma) * math.exp(-max(c - t, 0) / b) / 2  # P(L > c - t) for t < c
    upper = integrate.quad(dens, -np.inf, c, limit=200)[0] + stats.norm.sf(c, scale=sigma) * 1.0
    # P(S + L > c) = E[P(L > c - S)]; for S > c, P(L > c - S) = 1 - exp(-(S - c)/b)/2
    corr = integrate.quad(lambda t: stats.norm.pdf(t, scale=sigma) * math.exp(-(t - c) / b) / 2, c, np.inf)[0]
    assert I._laplace_normal_tail(c, sigma, b) == pytest.approx(2 * (upper - corr), rel=1e-9, abs=1e-13)


def test_halfwidth_limits_and_level():
    assert I.noise_aware_halfwidth(2.0, 0.0) == pytest.approx(2.0 * stats.norm.ppf(0.975), rel=1e-12)
    assert I.noise_aware_halfwidth(0.0, 3.0, 0.9) == pytest.approx(3.0 * math.log(10.0), rel=1e-12)
    c = I.noise_aware_halfwidth(np.array([0.5, 1.0]), np.array([1.0, 0.5]), 0.95)
    assert I._laplace_normal_tail(c, [0.5, 1.0], [1.0, 0.5]) == pytest.approx(0.05, abs=1e-12)
    # larger than either part alone, smaller than their sum
    assert 1.96 < c[1] < 1.96 + 0.5 * math.log(20)


# ---------------------------------------------------------------------------------------------------
# the releases: scales, split, accounting


def test_mean_release_noise_scales_and_split():
    n, lo, hi, eps, reps = 50, 0.0, 10.0, 0.5, 4000
    means, moments = np.full(reps, 4.0), np.full(reps, 9.0)
    m_t, v_t, b1, b2, (e1, e2) = I._noisy_moments(means, moments, n, lo, hi, eps, np.random.default_rng(3))
    assert e1 + e2 == pytest.approx(eps, rel=1e-15) and e1 == pytest.approx(0.8 * eps)
    assert b1 == pytest.approx((hi - lo) / (n * e1), rel=1e-9)
    assert b2 == pytest.approx(((hi - lo) / 2) ** 2 / (n * e2), rel=1e-9)
    assert stats.kstest(m_t - 4.0, "laplace", args=(0, b1)).pvalue > ALPHA
    assert stats.kstest(v_t - 9.0, "laplace", args=(0, b2)).pvalue > ALPHA


def test_proportion_release_noise_scale():
    p_t, b = I._proportion_release(np.full(5000, 30.0), 100, 0.7, np.random.default_rng(4))
    assert b == pytest.approx(1 / (100 * 0.7))
    assert stats.kstest(p_t - 0.3, "laplace", args=(0, b)).pvalue > ALPHA


def test_events_are_charged_and_total_epsilon():
    acc = dp.PrivacyAccountant()
    x = np.linspace(0, 10, 40)
    r1 = dp.mean_interval(x, 0.0, 10.0, 1.0, rng=0, accountant=acc)
    r2 = dp.proportion_interval((x > 5).astype(int), 0.5, rng=1, accountant=acc)
    r3 = dp.difference_of_means_interval(x, x + 1, 0.0, 12.0, 0.25, rng=2, accountant=acc)
    r4 = dp.quantile_interval(x, 0.5, 0.0, 10.0, 4.0, rng=3, accountant=acc, resolution=64)
    assert acc.events == r1.events + r2.events + r3.events + r4.events
    for r in (r1, r2, r3, r4):
        assert dp.PrivacyAccountant(r.events).epsilon(1e-9, "basic") == pytest.approx(r.epsilon, rel=1e-12)
    assert acc.epsilon(1e-9, "basic") == pytest.approx(1.0 + 0.5 + 0.25 + 4.0, rel=1e-12)


def test_interval_is_post_processing_of_the_release():
    x = np.random.default_rng(5).normal(5, 2, 200)
    r = dp.mean_interval(x, 0.0, 10.0, 0.3, rng=6)
    var = float(I._variance_from_moments(r.release["mean"], r.release["second_moment"], 0.0, 10.0))
    # independent: the normal + Laplace tail averaged over 16 variances v + b2 * (Laplace midpoint quantiles)
    nodes = stats.laplace.ppf((np.arange(16) + 0.5) / 16)
    h2 = 25.0 * (1 + 1e-15)
    s = stats.t.ppf(0.975, 199) / stats.norm.ppf(0.975) * np.sqrt(
        np.clip(var + r.noise["second_moment"] * nodes, 0.0, h2) / 200)
    c = optimize.brentq(lambda c: np.mean(I._laplace_normal_tail(c, s, r.noise["mean"])) - 0.05, 0.0, 10.0,
                        xtol=1e-14)
    assert (r.low, r.high) == pytest.approx((r.release["mean"] - c, r.release["mean"] + c), rel=1e-10)
    plug_in = dp.noise_aware_halfwidth(I._t_factor(0.95, 199) * math.sqrt(var / 200), r.noise["mean"])
    assert abs(c - plug_in) > 1e-4 * c           # the variance's noise is accounted, not plugged in
    naive = dp.mean_interval(x, 0.0, 10.0, 0.3, rng=6, method="naive")
    assert naive.release == r.release and naive.width < r.width     # same release, same seed


def test_quantile_ranks_and_edge_rule():
    n, q, eps = 400, 0.5, 1.0
    lo_q, hi_q = I._quantile_ranks(q, n, eps / 2, 0.95, "noise_aware")
    c = dp.noise_aware_halfwidth(math.sqrt(n * q * (1 - q)), 2 / (eps / 2))
    assert (lo_q, hi_q) == pytest.approx((q - c / n, q + c / n), rel=1e-12)
    r = dp.quantile_interval(np.arange(20.0), 0.5, 0.0, 20.0, 0.1, rng=0, resolution=64)
    assert (r.low, r.high, r.events) == (0.0, 20.0, ())      # small n epsilon: the whole range, nothing spent


def test_quantile_release_uses_half_epsilon():
    """Each end's law is dp_quantile's at epsilon / 2 (chi-square at ALPHA; epsilon would be rejected)."""
    x, eps, res, reps = np.arange(1.0, 9.0), 3.0, 8, 20000
    y_lo, y_hi, events = I._quantile_ends(x, 0.3, 0.8, 0.0, 8.0, eps, np.random.default_rng(7), res, size=reps)
    assert events == [dp.PureDPEvent(eps / 2)] * 2
    for q, draws in ((0.3, y_lo), (0.8, y_hi)):
        starts, p = dp.dp_quantile_probabilities(x, q, 0.0, 8.0, eps / 2, resolution=res)
        cnt = np.diff(starts)
        probs = np.repeat(np.where(cnt > 0, p / np.maximum(cnt, 1), 0.0), cnt)
        observed = np.bincount(np.round(draws).astype(int), minlength=res + 1)
        keep = probs > 0
        assert observed[~keep].sum() == 0
        assert stats.chisquare(observed[keep], reps * probs[keep]).pvalue > ALPHA


# ---------------------------------------------------------------------------------------------------
# coverage (binomial tests at ALPHA against [94%, 97%])


def test_mean_coverage(penguins):
    mass, _ = penguins
    out = dp.interval_coverage("mean", mass, 100, 1.0, reps=4000, lower=2000.0, upper=7000.0, spread=25.0, rng=11)
    assert coverage_in_range(out["noise_aware"][0], 4000)
    assert below(out["naive"][0], 4000)


def test_proportion_coverage():
    aff = load_affairs()["any_affair"].astype(int)
    out = dp.interval_coverage("proportion", aff, 1000, 0.1, reps=5000, rng=12)
    assert coverage_in_range(out["noise_aware"][0], 5000)
    assert below(out["naive"][0], 5000)


def test_difference_coverage(penguins):
    mass, sex = penguins
    out = dp.interval_coverage("difference", (mass[sex == "male"], mass[sex == "female"]), 100, 1.0, reps=1000,
                               lower=2000.0, upper=7000.0, spread=25.0, rng=13)
    assert coverage_in_range(out["noise_aware"][0], 1000)
    assert below(out["naive"][0], 1000)


def test_quantile_coverage(penguins):
    """The simulation integrates the privacy noise exactly: the mean of per-sample probabilities in [0, 1];
    Hoeffding's inequality at ALPHA bounds its deviation (a looser test than the binomial one above)."""
    mass, _ = penguins
    gen = np.random.default_rng(14)
    out = dp.interval_coverage("quantile", mass, 1000, 0.1, reps=150, lower=2000.0, upper=7000.0, spread=25.0,
                               rng=gen)
    t = math.sqrt(math.log(1 / ALPHA) / (2 * 150))
    assert out["noise_aware"][0] > 0.94 - t and out["naive"][0] < 0.94 - t


def test_clamping_bias_breaks_coverage_of_the_true_mean(penguins):
    mass, _ = penguins
    kw = dict(reps=400, lower=3000.0, upper=4500.0, spread=25.0)
    out = dp.interval_coverage("mean", mass, 10000, 1.0, rng=15, **kw)
    true_mean = I.population_parameter("mean", mass, lower=-1e9, upper=1e9, spread=25.0)
    assert coverage_in_range(out["noise_aware"][0], 400)       # covers the clamped mean ...
    wrong = dp.interval_coverage("mean", mass, 10000, 1.0, rng=15, target=true_mean, **kw)
    assert wrong["noise_aware"][0] == 0.0                        # ... and never the true mean


# ---------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("kwargs,exc", [
    (dict(epsilon=0.0), ValueError), (dict(epsilon=float("nan")), ValueError), (dict(epsilon=True), TypeError),
    (dict(level=1.0), ValueError), (dict(method="exact"), ValueError), (dict(lower=5.0, upper=1.0), ValueError),
    (dict(accountant="acc"), TypeError), (dict(rng=1.5), TypeError)])
def test_mean_interval_refuses(kwargs, exc):
    args = dict(x=[1.0, 2.0, 3.0], lower=0.0, upper=4.0, epsilon=1.0)
    args.update(kwargs)
    with pytest.raises(exc):
        dp.mean_interval(**args)


def test_private_data_errors_hold_nothing_from_the_data():
    with pytest.raises(ValueError, match="finite") as e:
        dp.mean_interval([1.0, float("nan"), 3.7319], 0.0, 4.0, 1.0)
    assert "3.7319" not in str(e.value)
    with pytest.raises(ValueError, match="only 0 and 1"):
        dp.proportion_interval([0, 1, 2], 1.0)
    with pytest.raises(ValueError, match="at least 2"):
        dp.quantile_interval([1.0], 0.5, 0.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="reps"):
        dp.interval_coverage("proportion", [0, 1], 10, 1.0, reps=10**9)


# ---------------------------------------------------------------------------------------------------
# exercise checkers


def test_halfwidth_checker_accepts_truth_and_names_slips():
    from dpcourse.exercises import inference as ex

    n, eps, width, var = ex.HALFWIDTH_QUESTION
    truth = ex._halfwidth_truth(n, eps, width, var)
    assert ex.check_mean_halfwidth(truth)
    naive = ex.check_mean_halfwidth(stats.norm.ppf(0.975) * math.sqrt(var / n))
    assert not naive and "ignores the privacy noise" in naive.message
    whole = ex.check_mean_halfwidth(dp.noise_aware_halfwidth(math.sqrt(var / n), width / (n * eps)))
    assert not whole and "part of epsilon" in whole.message


def test_proportion_checker():
    from dpcourse.exercises import inference as ex

    def right(count, n, eps):
        p = count / n
        pc = min(max(p, 0.0), 1.0)
        h = dp.noise_aware_halfwidth(math.sqrt(pc * (1 - pc) / n), 1 / (n * eps))
        return p - h, p + h

    def unscaled(count, n, eps):
        p = count / n
        h = dp.noise_aware_halfwidth(math.sqrt(p * (1 - p) / n), 1 / eps)
        return p - h, p + h

    assert ex.check_proportion_interval(right)
    res = ex.check_proportion_interval(unscaled)
    assert not res and "divided by n" in res.message
    assert not ex.check_proportion_interval(lambda c, n, e: dp.proportion_interval([0, 1], e, rng=0))
    centre_only = ex.check_proportion_interval(lambda c, n, e: (c / n, c / n))
    assert not centre_only and not any(ch.isdigit() for ch in centre_only.message.split(":", 1)[1])


def test_figures_and_widget():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import inference as figs

    w = figs.interval_widget()
    assert len(w.controls["n"].values) * len(w.controls["epsilon"].values) <= 16
    fig = figs.plot_interval_coverage(100, 1.0, reps=40, shown=10)
    assert len(fig.axes) == 2
    plt.close(fig)
    grid = dp.inference.coverage_grid("proportion", [100], [1.0], reps=50, rng=0)
    fig = figs.plot_coverage_grid(grid)
    assert [len(c) for c in fig.axes[0].containers if hasattr(c, "patches")] == [len(grid)] * 3
    plt.close(fig)
