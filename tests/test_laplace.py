"""laplace_mechanism, dp_mean and the Laplace tail bounds: exact laws, privacy on neighbours, bad input.

Statistical tests use fixed seeds and significance 1e-6; each is shown able to fail on a sampler whose
scale is 10% off (or a mechanism with half the noise, or twice the noise).
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import dpcourse  # noqa: E402
from dpcourse import (  # noqa: E402
    counting_queries_sample_size,
    dp_mean,
    laplace_max_error_bound,
    laplace_max_error_tail,
    laplace_mechanism,
    laplace_tail,
)
from dpcourse.exercises.laplace import check_inverse_cdf_sampler, check_sample_size  # noqa: E402
from dpcourse.plots import laplace as figs  # noqa: E402

ALPHA = 1e-6
N_KS = 100_000


def ks_pvalue(sample, scale):
    return stats.kstest(sample, stats.laplace(scale=scale).cdf).pvalue


# ---------------------------------------------------------------- the sampler


@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 1.0), (2.0, 0.5), (0.01, 3.0)])
def test_noise_is_laplace_with_scale_sensitivity_over_epsilon(sensitivity, epsilon):
    noise = laplace_mechanism(np.zeros(N_KS), sensitivity, epsilon, rng=11)
    b = sensitivity / epsilon
    assert ks_pvalue(noise, b) > ALPHA
    # the same test rejects a scale 10% off in either direction: it has the power to catch a wrong sampler
    assert ks_pvalue(noise, 1.1 * b) < ALPHA
    assert ks_pvalue(noise, b / 1.1) < ALPHA


def test_noise_is_added_to_the_value_and_shape_is_kept():
    value = np.arange(6.0).reshape(2, 3)
    out = laplace_mechanism(value, 1.0, 1.0, rng=3)
    noise = laplace_mechanism(np.zeros((2, 3)), 1.0, 1.0, rng=3)
    assert out.shape == (2, 3) and out.dtype == np.float64
    np.testing.assert_allclose(out - value, noise, rtol=0, atol=1e-14)
    scalar = laplace_mechanism(5, 1.0, 1.0, rng=3)
    assert isinstance(scalar, float)
    assert laplace_mechanism([], 1.0, 1.0, rng=0).shape == (0,)


def test_seeds_reproduce_and_generators_advance():
    assert laplace_mechanism(0.0, 1.0, 1.0, rng=5) == laplace_mechanism(0.0, 1.0, 1.0, rng=5)
    gen = np.random.default_rng(5)
    assert laplace_mechanism(0.0, 1.0, 1.0, rng=gen) != laplace_mechanism(0.0, 1.0, 1.0, rng=gen)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_privacy_loss_on_neighbours_reaches_epsilon_and_no_more(epsilon, max_log_ratio):
    # a counting query: f(x) = 10, f(x') = 11, sensitivity 1 (either relation)
    n = 400_000
    edges = np.linspace(4, 17, 27)
    a = laplace_mechanism(np.full(n, 10.0), 1.0, epsilon, rng=1)
    b = laplace_mechanism(np.full(n, 11.0), 1.0, epsilon, rng=2)
    loss, se = max_log_ratio(a, b, edges, 5000)
    z = 5.5  # bins are compared at once: about 1e-6 overall with a Bonferroni correction
    assert epsilon - z * se <= loss <= epsilon + z * se


def test_the_privacy_check_catches_too_little_and_too_much_noise(max_log_ratio):
    n, epsilon, z = 400_000, 1.0, 5.5
    edges = np.linspace(4, 17, 27)
    # a mechanism with half the noise claims epsilon but leaks 2 epsilon: the same check would catch it
    half = laplace_mechanism(np.full(n, 11.0), 0.5, epsilon, rng=2)
    a_half = laplace_mechanism(np.full(n, 10.0), 0.5, epsilon, rng=1)
    loss_half, se_half = max_log_ratio(a_half, half, edges, 5000)
    assert loss_half > epsilon + z * se_half
    # twice the noise (over-noising) gives epsilon / 2: also caught
    a2 = laplace_mechanism(np.full(n, 10.0), 2.0, epsilon, rng=1)
    b2 = laplace_mechanism(np.full(n, 11.0), 2.0, epsilon, rng=2)
    loss2, se2 = max_log_ratio(a2, b2, edges, 5000)
    assert loss2 < epsilon - z * se2


def test_exact_density_ratio_matches_the_proof():
    # the ratio of the output densities at z = 1.3 for f(x) = 0, f(x') = 1, b = 1: e^(|1.3-1| - |1.3|) = e^-1
    p = stats.laplace(0, 1).pdf(1.3)
    q = stats.laplace(1, 1).pdf(1.3)
    assert p / q == pytest.approx(math.exp(-1.0), rel=1e-12)
    z = np.linspace(-10, 10, 2001)
    ratio = stats.laplace(0, 0.5).logpdf(z) - stats.laplace(1, 0.5).logpdf(z)
    assert np.abs(ratio).max() == pytest.approx(2.0, rel=1e-12)  # epsilon = sensitivity / b = 2


BAD_EPS = [(0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError),
           (True, TypeError), ("1", TypeError), (None, TypeError)]


@pytest.mark.parametrize("bad, exc", BAD_EPS)
def test_laplace_mechanism_bad_epsilon_and_sensitivity(bad, exc):
    with pytest.raises(exc, match="epsilon"):
        laplace_mechanism(1.0, 1.0, bad)
    with pytest.raises(exc, match="sensitivity"):
        laplace_mechanism(1.0, bad, 1.0)


@pytest.mark.parametrize("bad, exc, match", [
    (math.nan, ValueError, "finite"), ([1.0, math.inf], ValueError, "finite"), (True, TypeError, "booleans"),
    ([True, False], TypeError, "booleans"), ("3", TypeError, "numeric"), ([1 + 2j], TypeError, "real"),
])
def test_laplace_mechanism_bad_value(bad, exc, match):
    with pytest.raises(exc, match=match):
        laplace_mechanism(bad, 1.0, 1.0)


@pytest.mark.parametrize("bad, exc", [(True, TypeError), (1.5, TypeError), (-1, ValueError), ("x", TypeError)])
def test_bad_rng(bad, exc):
    with pytest.raises(exc, match="rng"):
        laplace_mechanism(1.0, 1.0, 1.0, rng=bad)


# ---------------------------------------------------------------- dp_mean


def test_dp_mean_is_unbiased_when_data_are_inside_the_bounds():
    x = np.array([2.0, 3.5, 7.0, 9.5])  # mean 5.5, all inside [0, 10]
    gen = np.random.default_rng(4)
    eps, trials = 0.5, 20_000
    releases = dp_mean(x, 0.0, 10.0, eps, rng=gen, size=trials)  # independent releases (tested like single calls)
    b = 10.0 / (x.size * eps)
    # the noise is exactly Laplace(b) around the mean ...
    assert ks_pvalue(releases - 5.5, b) > ALPHA
    # the scale is (upper - lower) / n, not / (n - 1): the test tells them apart
    assert ks_pvalue(releases - 5.5, b * x.size / (x.size - 1)) < ALPHA
    # ... so the average release is within 5.3 standard errors (two-sided 1e-7) of the true mean
    se = math.sqrt(2) * b / math.sqrt(trials)
    assert abs(releases.mean() - 5.5) < 5.3 * se


def test_dp_mean_clamps():
    # values outside [0, 10] are clamped: mean of (0, 10, 4) = 14 / 3
    # epsilon = 1e9: noise scale about 3e-9, so 1e-6 is 300 scales (probability e^-300 of a miss)
    assert dp_mean([-50.0, 99.0, 4.0], 0.0, 10.0, 1e9, rng=0) == pytest.approx(14 / 3, abs=1e-6)
    assert dp_mean([5.0], 0.0, 10.0, 1e9, rng=0) == pytest.approx(5.0, abs=1e-6)


def test_dp_mean_privacy_under_replace_one(max_log_ratio):
    # replace-one neighbours at the extremes: the clamped means differ by exactly (upper - lower) / n
    x, x2 = np.array([0.0, 5.0, 5.0, 5.0]), np.array([10.0, 5.0, 5.0, 5.0])
    eps, n = 1.0, 300_000
    gen = np.random.default_rng(8)
    a = dp_mean(x, 0.0, 10.0, eps, rng=gen, size=n)   # n independent releases, each as a single call draws it
    b = dp_mean(x2, 0.0, 10.0, eps, rng=gen, size=n)
    loss, se = max_log_ratio(a, b, np.linspace(-5, 15, 21), 1500)
    assert eps - 5.5 * se <= loss <= eps + 5.5 * se


@pytest.mark.parametrize("secure", [True, False])
def test_dp_mean_size_draws_like_single_calls(secure):
    """size=k gives k independent releases distributed as k separate calls: KS at 1e-6 against single
    calls, a 10% larger noise scale refuted by the same test, and (secure) exactly the single release's
    lattice and noise scale."""
    from dpcourse import laplace_lattice
    from dpcourse.laplace import _clamped_mean_query

    x = np.array([0.0, 5.0, 5.0, 7.0])
    gen = np.random.default_rng(81)
    many = dp_mean(x, 0.0, 10.0, 0.5, rng=gen, size=100_000, secure=secure)
    single = np.array([dp_mean(x, 0.0, 10.0, 0.5, rng=gen, secure=secure) for _ in range(3000)])
    assert many.shape == (100_000,)
    assert stats.ks_2samp(many, single).pvalue > 1e-6
    wider = dp_mean(x, 0.0, 10.0, 0.5 / 1.1, rng=gen, size=100_000, secure=secure)
    assert stats.ks_2samp(many, wider).pvalue < 1e-6
    if secure:
        value, sens = _clamped_mean_query(x, 0.0, 10.0)
        lat = laplace_lattice(sens, 0.5, dim=1)
        steps = (many - round(value / lat.spacing) * lat.spacing) / lat.spacing
        assert np.array_equal(steps, np.round(steps)) and (steps % 2 == 1).any()  # on g Z, not on 2g Z
        # the empirical scale matches the single release's noise scale (mean |noise| of Laplace(b) is b)
        assert abs(np.abs(steps).mean() * lat.spacing / lat.noise_scale - 1) < 5 * 1 / np.sqrt(many.size)
    assert dp_mean(x, 0.0, 10.0, 0.5, rng=1, size=(2, 3), secure=secure).shape == (2, 3)


@pytest.mark.parametrize("size, exc", [(-1, ValueError), (2.5, TypeError), (True, TypeError), ("3", TypeError)])
def test_dp_mean_bad_size(size, exc):
    with pytest.raises(exc, match="size"):
        dp_mean([1.0, 2.0], 0.0, 10.0, 1.0, size=size)


@pytest.mark.parametrize("x, lo, hi, eps, exc, match", [
    ([1.0, math.nan], 0, 10, 1, ValueError, "x must be finite"),
    ([1.0, math.inf], 0, 10, 1, ValueError, "x must be finite"),
    ([True, False], 0, 10, 1, TypeError, "booleans"),
    ([], 0, 10, 1, ValueError, "not be empty"),
    ([[1.0, 2.0]], 0, 10, 1, ValueError, "dimension"),
    ([1.0], 10, 0, 1, ValueError, "lower must be < upper"),
    ([1.0], 5, 5, 1, ValueError, "lower must be < upper"),
    ([1.0], math.nan, 5, 1, ValueError, "lower"),
    ([1.0], 0, math.inf, 1, ValueError, "upper"),
    ([1.0], True, 5, 1, TypeError, "lower"),
    ([1.0], 0, 10, 0, ValueError, "epsilon"),
    ([1.0], 0, 10, math.nan, ValueError, "epsilon"),
    ([1.0], 0, 10, True, TypeError, "epsilon"),
])
def test_dp_mean_bad_input(x, lo, hi, eps, exc, match):
    with pytest.raises(exc, match=match):
        dp_mean(x, lo, hi, eps)


# ---------------------------------------------------------------- tails and bounds


def test_tail_values_by_hand():
    assert laplace_tail(0.0, 3.0) == 1.0
    assert laplace_tail(2.0, 1.0) == pytest.approx(math.exp(-2), rel=1e-15)
    assert laplace_tail(3.0, 1.5) == pytest.approx(math.exp(-2), rel=1e-15)
    assert laplace_max_error_tail(1.0, 1, 1.0) == pytest.approx(math.exp(-1), rel=1e-14)
    assert laplace_max_error_tail(1.0, 2, 1.0) == pytest.approx(1 - (1 - math.exp(-1)) ** 2, rel=1e-14)
    assert laplace_max_error_tail(0.0, 5, 1.0) == 1.0
    # far tails keep their digits: 1 - (1 - 1e-300)^3 = 3e-300
    assert laplace_max_error_tail(300 * math.log(10), 3, 1.0) == pytest.approx(3e-300, rel=1e-9)
    assert laplace_max_error_bound(1, 1.0, math.exp(-3)) == pytest.approx(3.0, rel=1e-15)
    assert laplace_max_error_bound(100, 2.0, 0.05) == pytest.approx(2 * (math.log(100) + math.log(20)), rel=1e-15)
    assert counting_queries_sample_size(10, 0.01, 0.05, 1.0) == pytest.approx(10 * math.log(200) / 0.01, rel=1e-15)


def test_union_bound_laws():
    s = np.linspace(0, 20, 101)
    for k in (1, 2, 10, 1000):
        exact = laplace_max_error_tail(s, k, 1.5)
        assert np.all(exact <= np.minimum(k * laplace_tail(s, 1.5), 1.0) + 1e-15)
        assert np.all(exact >= laplace_tail(s, 1.5) - 1e-15)
        assert np.all(np.diff(exact) <= 1e-15)
        for beta in (0.5, 0.05, 1e-6):
            assert laplace_max_error_tail(laplace_max_error_bound(k, 1.5, beta), k, 1.5) <= beta * (1 + 1e-12)


def test_exact_quantile_inverts_the_tail_and_sits_below_the_bound():
    for k in (1, 2, 10, 343, 10_000):
        for beta in (0.5, 0.05, 1e-4):
            s = dpcourse.laplace_max_error_quantile(k, 1.7, beta)
            assert laplace_max_error_tail(s, k, 1.7) == pytest.approx(beta, rel=1e-9)
            bound = laplace_max_error_bound(k, 1.7, beta)
            assert bound - 1.7 * beta / (1 - beta) <= s <= bound  # corollary cor-hist-max-error
    assert dpcourse.laplace_max_error_quantile(1, 1.0, 0.05) == pytest.approx(math.log(20), rel=1e-12)


def test_max_of_k_laplace_has_the_exact_law():
    k, b = 10, 2.0
    m = np.abs(laplace_mechanism(np.zeros((50_000, k)), b, 1.0, rng=21)).max(axis=1)
    cdf = lambda s: 1.0 - laplace_max_error_tail(np.maximum(s, 0.0), k, b)  # noqa: E731
    assert stats.kstest(m, cdf).pvalue > ALPHA
    wrong = lambda s: 1.0 - laplace_max_error_tail(np.maximum(s, 0.0), k, 1.1 * b)  # noqa: E731
    assert stats.kstest(m, wrong).pvalue < ALPHA


def test_counting_queries_sample_size_delivers_accuracy():
    k, alpha, beta, eps = 5, 0.05, 0.1, 1.0
    n = math.ceil(counting_queries_sample_size(k, alpha, beta, eps))
    errors = np.abs(laplace_mechanism(np.zeros((20_000, k)), k / n, eps, rng=9)).max(axis=1)
    failures = int((errors > alpha).sum())
    # the bound promises a failure rate <= beta; binomial upper tail at 1e-6 for 20000 trials
    assert stats.binom.sf(failures - 1, 20_000, beta) > ALPHA


@pytest.mark.parametrize("call, match", [
    (lambda: laplace_tail(-1.0, 1.0), "t must be >= 0"),
    (lambda: laplace_tail(1.0, 0.0), "scale"),
    (lambda: laplace_tail(math.nan, 1.0), "finite"),
    (lambda: laplace_max_error_tail(1.0, 0, 1.0), "k must be"),
    (lambda: laplace_max_error_tail(-1.0, 2, 1.0), "s must be >= 0"),
    (lambda: laplace_max_error_bound(2, 1.0, 0.0), "beta"),
    (lambda: laplace_max_error_bound(2, 1.0, 1.0), "beta"),
    (lambda: laplace_max_error_bound(2.5, 1.0, 0.1), "k must be"),
    (lambda: counting_queries_sample_size(2, 0.0, 0.1, 1.0), "alpha"),
    (lambda: counting_queries_sample_size(2, 0.1, 0.1, -1.0), "epsilon"),
])
def test_bounds_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# ---------------------------------------------------------------- checkers and figures


def reference_inverse_cdf(u, scale):
    return -scale * np.sign(u - 0.5) * np.log1p(-2 * np.abs(u - 0.5))


def test_inverse_cdf_checker():
    assert check_inverse_cdf_sampler(reference_inverse_cdf).passed
    cases = [
        (lambda u, b: -reference_inverse_cdf(u, b), "mirrored"),
        (lambda u, b: 2 * reference_inverse_cdf(u, b), "wrong scale"),
        (lambda u, b: -b * np.log(1 - 2 * u), "NaN"),
        (lambda u, b: np.where(u < 0.5, b * np.log(2 * u), b * np.log(2 * (1 - u))), "not increasing"),
        (lambda u, b: np.where(u < 0.5, b * np.log(2 * u), -b * np.log(1 - u)), "median"),
        (lambda u, b: float(u[0]), "shape (11,)"),
        (lambda u, b: 1 / 0, "ZeroDivisionError"),
        (lambda u, b: np.where(u < 0.5, b * np.log(2 * u), -b * np.log(2 - 2 * u) + 0.1 * (u - 0.5) ** 2), "above 1/2"),
    ]
    for fn, hint in cases:
        result = check_inverse_cdf_sampler(fn)
        assert not result.passed and hint in result.message, (hint, result.message)
    assert not check_inverse_cdf_sampler(3.0).passed


def test_sample_size_checker():
    k, a, bt, e = 10, 0.01, 0.05, 1.0
    truth = counting_queries_sample_size(k, a, bt, e)
    assert "whole number" in check_sample_size(truth, k, a, bt, e).message  # the bound is not a sample size
    assert check_sample_size(math.ceil(truth), k, a, bt, e).passed
    assert "whole vector of k answers" in check_sample_size(truth / k, k, a, bt, e).message
    assert "union bound" in check_sample_size(k * math.log(1 / bt) / (a * e), k, a, bt, e).message
    assert "natural" in check_sample_size(truth * math.log10(math.e), k, a, bt, e).message
    assert not check_sample_size(3 * truth, k, a, bt, e).passed
    assert check_sample_size(3 * truth, k, a, bt, e).message == check_sample_size(truth / 3, k, a, bt, e).message
    assert not check_sample_size("5000", k, a, bt, e).passed
    assert not check_sample_size(True, k, a, bt, e).passed


def test_figures_draw():
    for fig in (figs.plot_laplace_panel(1.0, n_draws=2000, rng=0),
                figs.plot_neighbour_densities(0.0, 1.0, 1.0, 1.0, 1.3),
                figs.plot_tails(1.0, 5, n_trials=5000, rng=0)):
        assert isinstance(fig, plt.Figure)
        plt.close(fig)
    assert len(figs.plot_laplace_panel(2.0, n_draws=100, rng=0).axes) == 6
    plt.close("all")
    rmse, se = figs.mean_rmse(np.linspace(3000, 5000, 50), 2000, 7000, [10, 100], [1.0], n_trials=50, rng=0)
    assert rmse.shape == (1, 2) and se.shape == (2,)
    assert rmse[0, 1] < rmse[0, 0]
    plt.close(figs.plot_mean_rmse([10, 100], [1.0], rmse, se, lower=2000, upper=7000, unit="g"))
    w = figs.neighbour_densities_widget()
    assert "epsilon" in [c.description for c in w.children if hasattr(c, "description")]
    plt.close("all")


def test_mean_rmse_figure_spans_its_data_only():
    """The y axis of the RMSE figure, printed as PNG as Jupyter does, spans the drawn values (a factor 2 either
    side): a legend over the lines used to make the book's style raise the top of the axis to 10^7."""
    import io

    ns, epsilons = [10, 30, 100, 300, 1000, 3000], [0.1, 1.0, 10.0]
    population = np.random.default_rng(0).normal(4200, 800, 342).clip(2000, 7000)
    rmse, se = figs.mean_rmse(population, 2000, 7000, ns, epsilons, n_trials=20, rng=0)
    fig = figs.plot_mean_rmse(ns, epsilons, rmse, se, lower=2000, upper=7000, unit="(g)")
    fig.savefig(io.BytesIO(), format="png")
    noise = [np.sqrt(2) * 5000 / (np.asarray(ns, dtype=float) * e) for e in epsilons]
    drawn = np.concatenate([rmse.ravel(), se, *noise])
    low, high = fig.axes[0].get_ylim()
    assert low == pytest.approx(drawn.min() / 2) and high == pytest.approx(drawn.max() * 2)
    plt.close(fig)


def test_sensitivity_by_hand_states_the_moves():
    """The hand example's titles state how far the count and the clamped mean moved, and their worst case."""
    fig = figs.plot_sensitivity_by_hand([3750, 3300, 4500], ["Adelie", "Chinstrap", "Gentoo"], 0, 6300, "Gentoo",
                                        lower=2000, upper=7000)
    left, right = fig.axes
    assert left.get_title() == "count of Gentoo: moves by 1, never more"
    assert "moves by 850 g here" in right.get_title() and "at most 1667 g" in right.get_title()
    bracket = [line for line in right.lines if line.get_color() == "tab:red"][0].get_xdata()
    assert bracket[1] - bracket[0] == pytest.approx(5000 / 3)  # the width of the bracket is (u - l) / n
    plt.close(fig)
    # a swap that keeps the species moves the count by 0; a value beyond the bounds is clamped in the mean
    fig = figs.plot_sensitivity_by_hand([3750, 3300, 4500], ["Adelie", "Chinstrap", "Gentoo"], 1, 60_000_000,
                                        "Chinstrap", lower=2000, upper=7000)
    left, right = fig.axes
    assert "moves by 0" in left.get_title()
    assert f"moves by {(7000 - 3300) / 3:.0f} g here" in right.get_title()
    plt.close(fig)
    with pytest.raises(ValueError, match="one label per mass"):
        figs.plot_sensitivity_by_hand([1.0, 2.0], ["a"], 0, 1.0, "a", lower=0, upper=3)
    with pytest.raises(ValueError, match="index"):
        figs.plot_sensitivity_by_hand([1.0, 2.0], ["a", "b"], 2, 1.0, "a", lower=0, upper=3)
    with pytest.raises(ValueError, match="lower"):
        figs.plot_sensitivity_by_hand([1.0, 2.0], ["a", "b"], 0, 1.0, "a", lower=3, upper=0)
    with pytest.raises(TypeError):
        figs.plot_sensitivity_by_hand([1.0, 2.0], ["a", "b"], True, 1.0, "a", lower=0, upper=3)
    with pytest.raises(ValueError):
        figs.plot_sensitivity_by_hand([1.0, 2.0], ["a", "b"], 0, float("nan"), "a", lower=0, upper=3)


def test_split_laplace_figures():
    """The six panels, one idea at a time: density, sampling, tail; each shows what its caption says."""
    fig = figs.plot_laplace_density(2.0, n_draws=20_000, rng=0)
    (ax,) = fig.axes
    heights = np.array([p.get_height() for p in ax.patches])
    width = ax.patches[0].get_width()
    assert width == pytest.approx(0.4) and heights.sum() * width == pytest.approx(1.0, abs=0.01)  # 12b / 60 bins
    assert sorted(line.get_xdata()[0] for line in ax.lines[1:]) == [-2.0, 2.0]  # the marks at +-b
    plt.close(fig)
    fig = figs.plot_laplace_sampling(1.0, n_uniforms=7, rng=0)
    assert len(fig.axes) == 3
    crosses = fig.axes[2].lines[-1]
    u = np.asarray(fig.axes[2].lines[-2].get_ydata())
    assert u.size == 7
    np.testing.assert_allclose(crosses.get_xdata(), stats.laplace.ppf(u), rtol=1e-12)  # F^-1(U), not U
    plt.close(fig)
    fig = figs.plot_laplace_tail(1.0, n_draws=20_000, rng=0)
    (ax,) = fig.axes
    t, emp = ax.lines[2].get_xdata(), ax.lines[2].get_ydata()
    j = int(np.argmin(np.abs(t - 1.0)))
    se = math.sqrt(math.exp(-t[j]) * (1 - math.exp(-t[j])) / 20_000)
    assert abs(emp[j] - math.exp(-t[j])) < 5 * se  # the empirical tail of the draws follows e^-t
    plt.close(fig)
    with pytest.raises(ValueError, match="n_uniforms"):
        figs.plot_laplace_sampling(1.0, n_uniforms=10**6)
    with pytest.raises(ValueError, match="scale"):
        figs.plot_laplace_density(-1.0)


def test_public_api():
    assert dpcourse.dp_mean is dp_mean and dpcourse.laplace_mechanism is laplace_mechanism
