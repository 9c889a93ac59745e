"""Gaussian calibrations and mechanism, (epsilon, delta) group privacy, and the chapters' checkers and figures."""

import math

import matplotlib
import numpy as np
import pytest
from scipy import stats

from dpcourse import (analytic_gaussian_sigma, gaussian_delta, gaussian_loss_tail, gaussian_mechanism,
                      gaussian_sigma, group_privacy)
from dpcourse.exercises.gaussian import check_analytic_sigma, check_group_delta

matplotlib.use("Agg")

EPS_GRID = np.geomspace(0.01, 1000.0, 25)
DELTA_GRID = np.r_[np.geomspace(1e-12, 0.5, 15), 0.9, 0.999]


# ---------------------------------------------------------------- classic calibration

def test_classic_sigma_by_hand():
    # sqrt(2 ln(1.25 / 1e-5)) = sqrt(2 ln 125000) = 4.844805..., divided by epsilon = 0.5
    assert gaussian_sigma(0.5, 1e-5) == pytest.approx(2 * math.sqrt(2 * math.log(125_000)), rel=1e-15)
    assert gaussian_sigma(0.5, 1e-5) == pytest.approx(9.68961052521, rel=1e-11)
    # delta = 0.05: 2 ln 25 = 6.437752..., sqrt = 2.537272..., times Delta / eps = 3 / 0.1
    assert gaussian_sigma(0.1, 0.05, l2_sensitivity=3.0) == pytest.approx(30 * math.sqrt(2 * math.log(25)), rel=1e-15)
    assert gaussian_sigma(0.1, 0.05, l2_sensitivity=3.0) == pytest.approx(76.1181, rel=1e-6)


@pytest.mark.parametrize("eps", [0.001, 0.1, 0.5, 0.9, 0.999999])
@pytest.mark.parametrize("delta", [1e-15, 1e-6, 0.01, 0.3, 0.74, 0.9, 0.98, 0.999])
def test_classic_calibration_is_private_below_one(eps, delta):
    # theorem thm-gaussian-classic: P[L > eps] <= delta, hence the exact delta is <= delta, for every delta in (0, 1)
    mu = 1.0 / gaussian_sigma(eps, delta)
    assert gaussian_loss_tail(eps, mu) <= delta
    assert gaussian_delta(eps, mu) <= delta


@pytest.mark.parametrize("delta, eps_fail", [(1e-3, 7.463), (1e-5, 8.420), (1e-8, 9.374)])
def test_classic_formula_fails_for_large_epsilon(delta, eps_fail):
    # Why gaussian_sigma refuses epsilon >= 1: the formula stays private a little beyond 1 by luck, then fails.
    c = math.sqrt(2 * math.log(1.25 / delta))
    assert gaussian_delta(2.0, 2.0 / c) < delta
    assert gaussian_delta(eps_fail - 0.01, (eps_fail - 0.01) / c) < delta < gaussian_delta(eps_fail + 0.01, (eps_fail + 0.01) / c)
    # thm-gaussian-scaling: beyond 4 ln(1.25/delta) the exact delta is at least 1/4
    big = 4 * math.log(1.25 / delta) * 1.001
    assert gaussian_delta(big, big / c) >= 0.25


def test_classic_refuses_epsilon_at_least_one():
    for eps in [1.0, 2.0, 100.0]:
        with pytest.raises(ValueError, match="analytic_gaussian_sigma"):
            gaussian_sigma(eps, 1e-5)


# ---------------------------------------------------------------- analytic calibration

@pytest.mark.parametrize("eps", EPS_GRID)
def test_analytic_sigma_solves_the_profile(eps):
    for delta in DELTA_GRID:
        sigma = analytic_gaussian_sigma(eps, delta)
        got = gaussian_delta(eps, 1.0 / sigma)
        assert got <= delta  # never above the target, as computed
        assert got == pytest.approx(delta, rel=1e-9, abs=0)
        assert gaussian_delta(eps, 1.0 / (sigma * (1 - 1e-6))) > delta  # slightly less noise is not private


def test_analytic_sigma_by_hand():
    # values fixed from the exact profile: sigma = 1 gives delta(1) = 0.126936...
    d = gaussian_delta(1.0, 1.0)
    assert d == pytest.approx(0.126936737, rel=1e-8)
    assert analytic_gaussian_sigma(1.0, d) == pytest.approx(1.0, rel=1e-12)
    assert analytic_gaussian_sigma(1.0, d, l2_sensitivity=2.5) == pytest.approx(2.5, rel=1e-12)


@pytest.mark.parametrize("eps, delta", [(1e-4, 1e-300), (1e-4, 0.5), (1000.0, 1e-300), (1000.0, 1 - 1e-16),
                                        (0.01, 5e-324), (300.0, 1e-12), (3000.0, 1e-5)])
def test_analytic_sigma_is_robust_at_extremes(eps, delta):
    sigma = analytic_gaussian_sigma(eps, delta)
    assert math.isfinite(sigma) and sigma > 0
    assert gaussian_delta(eps, 1.0 / sigma) <= delta


@pytest.mark.parametrize("eps", [1e-4, 1e-3, 10.0, 1000.0])
@pytest.mark.parametrize("delta", [1e-300, 1e-100, 1e-30])
def test_analytic_sigma_is_accurate_for_tiny_delta_and_small_epsilon(eps, delta):
    # the docstring's accuracy claim at the corners, where cancellation in the profile formula is worst
    sigma = analytic_gaussian_sigma(eps, delta)
    got = gaussian_delta(eps, 1.0 / sigma)
    assert got <= delta
    assert got == pytest.approx(delta, rel=1e-9 if eps >= 0.01 else 1e-8, abs=0)


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 1e-3, 0.1, 0.9])
def test_analytic_never_exceeds_classic(eps, delta):
    assert analytic_gaussian_sigma(eps, delta) <= gaussian_sigma(eps, delta)


def test_analytic_sigma_monotone_and_linear_laws():
    rng = np.random.default_rng(7)
    for _ in range(200):
        e1, e2 = np.sort(np.exp(rng.uniform(np.log(0.01), np.log(500), 2)))
        d1, d2 = np.sort(np.exp(rng.uniform(np.log(1e-12), np.log(0.9), 2)))
        sens = float(np.exp(rng.uniform(-5, 5)))
        assert analytic_gaussian_sigma(e2, d1) < analytic_gaussian_sigma(e1, d1)  # larger eps: less noise
        assert analytic_gaussian_sigma(e1, d2) < analytic_gaussian_sigma(e1, d1)  # larger delta: less noise
        assert analytic_gaussian_sigma(e1, d1, sens) == pytest.approx(sens * analytic_gaussian_sigma(e1, d1), rel=1e-9)
        if e2 < 1:
            assert gaussian_sigma(e2, d1) < gaussian_sigma(e1, d1)
            assert gaussian_sigma(e1, d2) < gaussian_sigma(e1, d1)


@pytest.mark.parametrize("eps", [4 / math.pi, 3.0, 10.0, 100.0, 1000.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 0.2])
def test_large_epsilon_scaling_bounds(eps, delta):
    # theorem thm-gaussian-scaling: Delta/sqrt(2 eps) < sigma* <= Delta / (sqrt(z^2 + 2 eps) - z)
    z = stats.norm.isf(delta)
    sigma = analytic_gaussian_sigma(eps, delta)
    assert 1 / math.sqrt(2 * eps) < sigma <= 1 / (math.sqrt(z * z + 2 * eps) - z) * (1 + 1e-12)


def test_loss_tail_bounds_the_exact_delta():
    for mu in [0.05, 0.5, 1.0, 3.0]:
        for eps in [0.0, 0.5, 2.0, 6.0]:
            tail = gaussian_loss_tail(eps, mu)
            assert tail == pytest.approx(stats.norm.cdf(mu / 2 - eps / mu), rel=1e-12, abs=1e-300)
            assert gaussian_delta(eps, mu) <= tail


# ---------------------------------------------------------------- the mechanism

def test_mechanism_shapes_and_seeding():
    assert isinstance(gaussian_mechanism(3.0, 1.0, 1.0, 1e-5, rng=0), float)
    assert isinstance(gaussian_mechanism(np.float32(3.0), 1.0, 1.0, 1e-5, rng=0), float)
    out = gaussian_mechanism(np.zeros((3, 4)), 2.0, 1.0, 1e-5, rng=0)
    assert out.shape == (3, 4) and out.dtype == np.float64
    assert gaussian_mechanism([], 1.0, 1.0, 1e-5, rng=0).shape == (0,)
    np.testing.assert_array_equal(gaussian_mechanism([1, 2, 3], 1.0, 0.5, 1e-6, rng=42),
                                  gaussian_mechanism([1, 2, 3], 1.0, 0.5, 1e-6, rng=42))
    gen = np.random.default_rng(1)
    a, b = gaussian_mechanism(0.0, 1.0, 1.0, 1e-5, rng=gen), gaussian_mechanism(0.0, 1.0, 1.0, 1e-5, rng=gen)
    assert a != b  # a Generator is advanced, not reseeded


def test_textbook_mechanism_noise_is_normal_with_the_analytic_sigma():
    eps, delta, sens, n = 0.7, 1e-6, 3.0, 50_000
    sigma = analytic_gaussian_sigma(eps, delta, sens)
    value = np.full(n, 10.0)
    noise = gaussian_mechanism(value, sens, eps, delta, rng=2026, secure=False) - value
    assert stats.kstest(noise / sigma, "norm").pvalue > 1e-6
    # the test has power: a sampler whose sigma is 10% off in either direction is rejected
    for wrong in (0.9, 1.1):
        assert stats.kstest(noise / (wrong * sigma), "norm").pvalue < 1e-6


def _measured_delta(y_from, y_to, eps, event):
    """Estimate P_from(S) - e^eps P_to(S) and its standard error."""
    n = y_from.size
    p1, p0 = event(y_from).mean(), event(y_to).mean()
    se = math.sqrt(p1 * (1 - p1) / n + math.exp(2 * eps) * p0 * (1 - p0) / n)
    return p1 - math.exp(eps) * p0, se


def test_textbook_empirical_privacy_on_neighbouring_inputs():
    # Neighbouring query values 0 and Delta; the optimal events are the thresholds of lemma lem-approx-hockey.
    eps, delta, sens, n = 0.5, 0.02, 2.0, 400_000
    sigma = analytic_gaussian_sigma(eps, delta, sens)
    t = sens / 2 + eps * sigma**2 / sens
    y0 = gaussian_mechanism(np.zeros(n), sens, eps, delta, rng=11, secure=False)
    y1 = gaussian_mechanism(np.full(n, sens), sens, eps, delta, rng=12, secure=False)
    for y_from, y_to, event in [(y1, y0, lambda y: y > t), (y0, y1, lambda y: y < sens - t)]:
        measured, se = _measured_delta(y_from, y_to, eps, event)
        assert abs(measured - delta) < 5.3 * se  # two-sided 1e-7 normal quantile: attained, not exceeded
    # the check has power: the same experiment with 10% less noise measures a delta far above the claim
    rng = np.random.default_rng(13)
    small = 0.9 * sigma
    z0, z1 = rng.normal(0.0, small, n), rng.normal(sens, small, n)
    t_small = sens / 2 + eps * small**2 / sens
    measured, se = _measured_delta(z1, z0, eps, lambda y: y > t_small)
    assert measured - delta > 5.3 * se


# ---------------------------------------------------------------- validation

@pytest.mark.parametrize("fn", [gaussian_sigma, analytic_gaussian_sigma])
@pytest.mark.parametrize("bad, exc, match", [
    (0.0, ValueError, "epsilon"), (-1.0, ValueError, "epsilon"), (math.nan, ValueError, "NaN"),
    (math.inf, ValueError, "epsilon"), (True, TypeError, "bool"), ("0.5", TypeError, "epsilon"),
])
def test_bad_epsilon(fn, bad, exc, match):
    with pytest.raises(exc, match=match):
        fn(bad, 1e-5)
    with pytest.raises(exc, match=match):
        gaussian_mechanism(1.0, 1.0, bad, 1e-5)


@pytest.mark.parametrize("fn", [gaussian_sigma, analytic_gaussian_sigma])
@pytest.mark.parametrize("bad, exc, match", [
    (0.0, ValueError, "no finite sigma gives delta = 0"), (1.0, ValueError, "delta"), (-0.1, ValueError, "delta"),
    (1.5, ValueError, "delta"), (math.nan, ValueError, "NaN"), (True, TypeError, "bool"), (None, TypeError, "delta"),
])
def test_bad_delta(fn, bad, exc, match):
    with pytest.raises(exc, match=match):
        fn(0.5, bad)
    with pytest.raises(exc, match=match):
        gaussian_mechanism(1.0, 1.0, 0.5, bad)


@pytest.mark.parametrize("fn", [gaussian_sigma, analytic_gaussian_sigma])
@pytest.mark.parametrize("bad, exc", [(0.0, ValueError), (-2.0, ValueError), (math.nan, ValueError),
                                      (math.inf, ValueError), (False, TypeError)])
def test_bad_sensitivity(fn, bad, exc):
    with pytest.raises(exc, match="l2_sensitivity|bool"):
        fn(0.5, 1e-5, bad)
    with pytest.raises(exc, match="l2_sensitivity|bool"):
        gaussian_mechanism(1.0, bad, 0.5, 1e-5)


@pytest.mark.parametrize("bad, exc, match", [
    (math.nan, ValueError, "finite"), (math.inf, ValueError, "finite"),
    ([1.0, math.nan], ValueError, r"value must be finite everywhere \(no NaN"),   # private: no index, no value
    (True, TypeError, "booleans"), (np.array([True, False]), TypeError, "booleans"), ("abc", TypeError, "numeric"),
])
def test_bad_value(bad, exc, match):
    with pytest.raises(exc, match=match):
        gaussian_mechanism(bad, 1.0, 1.0, 1e-5)


@pytest.mark.parametrize("bad, exc", [(True, TypeError), (1.5, TypeError), (-1, ValueError)])
def test_bad_rng(bad, exc):
    with pytest.raises(exc, match="rng"):
        gaussian_mechanism(1.0, 1.0, 1.0, 1e-5, rng=bad)


def test_loss_tail_validation():
    with pytest.raises(ValueError, match="mu"):
        gaussian_loss_tail(1.0, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_loss_tail(-1.0, 1.0)


# ---------------------------------------------------------------- group privacy for (epsilon, delta)

def test_group_privacy_by_hand():
    assert group_privacy(0.5, 1e-6, 1) == (0.5, pytest.approx(1e-6, rel=1e-14, abs=0))
    eps_k, delta_k = group_privacy(0.5, 1e-6, 2)
    assert eps_k == 1.0 and delta_k == pytest.approx((1 + math.exp(0.5)) * 1e-6, rel=1e-14, abs=0)
    eps_k, delta_k = group_privacy(1.0, 1e-5, 3)
    assert eps_k == 3.0 and delta_k == pytest.approx((1 + math.e + math.e**2) * 1e-5, rel=1e-14, abs=0)
    assert group_privacy(2.0, 0.0, 7) == (14.0, 0.0)
    # epsilon = 0: the chain adds delta at every link, delta_k = k delta exactly
    assert group_privacy(0.0, 1e-6, 4) == (0.0, pytest.approx(4e-6, rel=1e-15, abs=0))


def test_group_privacy_laws():
    for eps in [1e-9, 0.01, 0.5, 3.0]:
        for k in [1, 2, 5, 50]:
            _, dk = group_privacy(eps, 1e-8, k)
            assert k * 1e-8 * (1 - 1e-12) <= dk <= k * math.exp((k - 1) * eps) * 1e-8 * (1 + 1e-12)
    assert math.isinf(group_privacy(50.0, 0.5, 100)[1])  # overflow reported as inf, never NaN
    # the closed form equals the chain's sum delta * sum_{j<k} e^{j eps} (computed term by term)
    rng = np.random.default_rng(3)
    for _ in range(200):
        eps, k, delta = float(rng.uniform(1e-6, 5.0)), int(rng.integers(1, 40)), float(rng.uniform(0, 0.1))
        chain = delta * math.fsum(math.exp(j * eps) for j in range(k))
        assert group_privacy(eps, delta, k) == (pytest.approx(k * eps, rel=1e-15, abs=0), pytest.approx(chain, rel=1e-11, abs=0))


def test_group_privacy_is_attained_by_the_alarm_mechanism():
    from dpcourse import hockey_stick

    eps, delta, K = 0.3, 1e-3, 5
    m = [delta * math.expm1(c * eps) / math.expm1(eps) for c in range(K + 1)]
    dist = [np.array([mc, 1 - mc]) for mc in m]
    for c in range(K):
        assert hockey_stick(dist[c + 1], dist[c], eps) == pytest.approx(delta, rel=1e-9, abs=0)
        assert hockey_stick(dist[c], dist[c + 1], eps) == 0.0
    for k in range(1, K + 1):
        assert hockey_stick(dist[k], dist[0], k * eps) == pytest.approx(group_privacy(eps, delta, k)[1], rel=1e-9, abs=0)


@pytest.mark.parametrize("args, exc", [((-0.1, 1e-5, 2), ValueError), ((0.5, 1.0, 2), ValueError),
                                       ((0.5, 1e-5, 0), ValueError), ((0.5, 1e-5, 1.5), TypeError),
                                       ((0.5, 1e-5, True), TypeError), ((math.nan, 1e-5, 2), ValueError)])
def test_group_privacy_validation(args, exc):
    with pytest.raises(exc):
        group_privacy(*args)


# ---------------------------------------------------------------- exercise checkers

def test_check_group_delta():
    assert check_group_delta(lambda e, d, k: d * sum(math.exp(j * e) for j in range(k))).passed
    r = check_group_delta(lambda e, d, k: k * d)
    assert not r.passed and "multiplies" in r.message
    r = check_group_delta(lambda e, d, k: k * math.exp((k - 1) * e) * d)
    assert not r.passed and "upper bound" in r.message
    r = check_group_delta(lambda e, d, k: d * sum(math.exp(j * e) for j in range(1, k + 1)))
    assert not r.passed and ("exponents" in r.message or "delta_1" in r.message)
    r = check_group_delta(lambda e, d, k: (k * e, d))
    assert not r.passed and "one number" in r.message
    assert not check_group_delta(42).passed
    r = check_group_delta(lambda e, d, k: 1 / 0)
    assert not r.passed and "ZeroDivisionError" in r.message


def test_check_analytic_sigma():
    from student_solutions import analytic_sigma

    assert check_analytic_sigma(analytic_sigma).passed
    assert not check_analytic_sigma(lambda e, d: analytic_gaussian_sigma(e, d)).passed  # the forbidden function
    r = check_analytic_sigma(lambda e, d: math.sqrt(2 * math.log(1.25 / d)) / e)
    assert not r.passed and "classic" in r.message
    low = check_analytic_sigma(lambda e, d: 0.9 * analytic_sigma(e, d))
    high = check_analytic_sigma(lambda e, d: 1.1 * analytic_sigma(e, d))
    assert not low.passed and not high.passed and "not the smallest sigma" in low.message
    # the same words on both sides of the answer (only the student's own sigma differs): nothing to bisect on
    assert low.message.replace(low.message.split("sigma ")[1].split()[0], "S") == \
        high.message.replace(high.message.split("sigma ")[1].split()[0], "S")
    r = check_analytic_sigma(lambda e, d: 1 / analytic_sigma(e, d))
    assert not r.passed and "mu" in r.message
    assert not check_analytic_sigma(lambda e, d: -1.0).passed
    # the expected value never appears in a message
    want = analytic_gaussian_sigma(0.5, 1e-5)
    assert f"{want:.4g}" not in check_analytic_sigma(lambda e, d: 1.1 * analytic_sigma(e, d)).message


# ---------------------------------------------------------------- figures

def test_figures_are_returned():
    import matplotlib.pyplot as plt

    from dpcourse.plots import gaussian as figs

    for fig in [figs.plot_loss_tail(1.0, 1.0), figs.plot_calibration(0.5, 1e-5), figs.plot_calibration(20.0, 1e-8),
                figs.plot_sigma_ratio(), figs.plot_high_dim_error([1, 10, 100], 1.0, 1e-6, laplace_rmse=[1, 2, 3],
                                                                   gaussian_rmse=[1, 2, 3]),
                figs.plot_hockey_stick_region(0.5, 2.0), figs.plot_privacy_profiles([3.0], sensitivity=2.0),
                figs.plot_round_noise((3.0, -1.0), 2.0), figs.plot_noisy_counts([1, 2], [5, 6], {"a": [5, 7]})]:
        assert isinstance(fig, matplotlib.figure.Figure)
        plt.close(fig)
    with pytest.raises(ValueError, match="delta"):
        figs.plot_calibration(0.5, 0.0)


def test_widgets_build():
    pytest.importorskip("ipywidgets")
    import matplotlib.pyplot as plt

    from dpcourse.plots import gaussian as figs

    for build in (figs.loss_tail_widget, figs.calibration_widget):
        w = build()
        assert len(w.widget().children) >= 3  # live kernel: two sliders and the output area
        assert w.draw().axes
        plt.close("all")


@pytest.mark.parametrize("mu, eps", [(1.0, 1.0), (0.5, 2.0)])
def test_density_ratio_figure_draws_the_unbounded_ratio(mu, eps):
    """Chapter 07's first picture: the ratio of the two Gaussian densities is exp(mu z - mu^2/2), a line on a
    log axis that crosses e^eps at z = mu/2 + eps/mu and keeps growing; the y axis spans that line, no more."""
    import io

    import matplotlib.pyplot as plt
    from scipy import stats

    from dpcourse.plots import gaussian as figs

    fig = figs.plot_density_ratio(mu, eps)
    fig.savefig(io.BytesIO(), format="png")  # as Jupyter prints it, in the book's style
    left, right = fig.axes
    z, ratio = (np.asarray(v, dtype=float) for v in right.lines[0].get_data())
    assert ratio == pytest.approx(stats.norm.pdf(z, mu) / stats.norm.pdf(z, 0.0), rel=1e-9)
    border = right.lines[-1].get_xdata()[0]
    assert border == pytest.approx(mu / 2 + eps / mu)
    assert np.all(ratio[z > border] > math.exp(eps)) and np.all(ratio[z < border] < math.exp(eps))
    low, high = right.get_ylim()
    assert low == pytest.approx(ratio.min() / 3) and high == pytest.approx(ratio.max() * 3)
    q, p = (np.asarray(line.get_ydata(), dtype=float) for line in left.lines[:2])
    assert p.max() == pytest.approx(q.max(), rel=1e-3)  # the same bell curve, shifted by mu
    plt.close(fig)
    with pytest.raises(ValueError, match="mu"):
        figs.plot_density_ratio(0.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_density_ratio(1.0, -1.0)


def _polygon_area(vertices):
    x, y = vertices[:, 0], vertices[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


@pytest.mark.parametrize("mu, eps", [(1.0, 1.0), (2.0, 0.5), (0.5, 0.0)])
def test_hockey_stick_region_shades_exactly_delta(mu, eps):
    """The red region of chapter 07's picture is the set where p > e^eps q, and its area is delta."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    from dpcourse.plots import gaussian as figs

    fig = figs.plot_hockey_stick_region(mu, eps)
    ax = fig.axes[0]
    regions = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(regions) == 1
    paths = regions[0].get_paths()
    area = sum(_polygon_area(path.vertices) for path in paths)
    assert area == pytest.approx(gaussian_delta(eps, mu), rel=2e-3, abs=1e-5)
    border = mu / 2 + eps / mu   # where p = e^eps q: the region starts there and not before
    left = min(float(path.vertices[:, 0].min()) for path in paths)
    assert left == pytest.approx(border, abs=0.02)
    assert any(f"{gaussian_delta(eps, mu):.3g}" in t.get_text() for t in ax.get_legend().get_texts())
    plt.close(fig)


def test_hockey_stick_region_refuses_bad_parameters():
    from dpcourse.plots import gaussian as figs

    for mu, eps in [(0.0, 1.0), (-1.0, 1.0), (float("nan"), 1.0), (1.0, -0.5), (1.0, float("inf")), (True, 1.0)]:
        with pytest.raises((ValueError, TypeError)):
            figs.plot_hockey_stick_region(mu, eps)


def test_privacy_profiles_draw_the_exact_profile_and_the_line_one_over_n():
    import matplotlib.pyplot as plt

    from dpcourse.plots import gaussian as figs

    fig = figs.plot_privacy_profiles([2.0, 5.0], sensitivity=3.0, n=601, eps_max=2.0)
    lines = fig.axes[0].get_lines()
    for line, sigma in zip(lines[:2], [2.0, 5.0]):
        x, y = line.get_data()
        assert x[0] == 0 and x[-1] == 2.0
        for i in (0, 50, 120):
            assert y[i] == pytest.approx(max(gaussian_delta(x[i], 3.0 / sigma), 1e-13), rel=1e-12)
    assert lines[2].get_ydata()[0] == pytest.approx(1 / 601, rel=1e-15)
    plt.close(fig)
    for bad in [dict(sigmas=[]), dict(sigmas=[1.0] * 9), dict(sigmas=[0.0]), dict(sigmas=[1.0], n=1),
                dict(sigmas=[1.0], sensitivity=0.0), dict(sigmas=[1.0], eps_max=0.0)]:
        with pytest.raises((ValueError, TypeError)):
            figs.plot_privacy_profiles(**bad)


def test_round_noise_shifts_by_the_l2_distance_over_sigma():
    """Chapter 08's picture: along the line through the two answers, the shift is ||v||_2 / sigma."""
    import matplotlib.pyplot as plt

    from dpcourse.plots import gaussian as figs

    fig = figs.plot_round_noise(shift=(3.0, -4.0), sigma=2.0)
    left, right = fig.axes
    assert "5" in left.get_title() and "7" in left.get_title()   # l2 distance 5, l1 distance 7
    on_x = [ln for ln in right.get_lines() if ln.get_label() == "on $x$"][0]
    x, y = on_x.get_data()
    assert x[np.argmax(y)] == pytest.approx(5.0 / 2.0, abs=0.02)   # the peak of N(mu, 1), mu = 2.5
    plt.close(fig)
    for shift, sigma in [((0.0, 0.0), 1.0), ((1.0,), 1.0), ((1.0, np.nan), 1.0), ((1.0, 1.0), 0.0)]:
        with pytest.raises(ValueError):
            figs.plot_round_noise(shift, sigma)


def test_noisy_counts_report_each_release_error():
    import matplotlib.pyplot as plt

    from dpcourse.plots import gaussian as figs

    fig = figs.plot_noisy_counts([1, 2, 3, 4], [10, 10, 10, 10], {"A": [13, 7, 13, 7], "B": [10, 10, 10, 14]})
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == ["exact counts", "A (RMSE 3)", "B (RMSE 2)"]
    plt.close(fig)
    for args in [([1, 2], [1], {"A": [1, 2]}), ([1, 2], [1, 2], {"A": [1]}), ([1, 2], [1, 2], {}),
                 ([1, 2], [1, 2], [1, 2])]:
        with pytest.raises(ValueError):
            figs.plot_noisy_counts(*args)


def test_group_privacy_returns_named_fields():
    """Issue 38: a NamedTuple, so that unpacking and indexing keep working and the fields have names."""
    res = group_privacy(0.5, 1e-6, 2)
    assert (res.epsilon, res.delta) == tuple(res) == (res[0], res[1])
    assert res._fields == ("epsilon", "delta") and res.epsilon == 1.0
    assert group_privacy(1.0, 0.0, 3).delta == 0.0 and group_privacy(0.0, 1e-6, 3).epsilon == 0.0
