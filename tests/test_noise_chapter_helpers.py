"""Tests of the figures, the chi-square helper and the exercise checkers of the chapter "Noise on a real computer"."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import dpcourse  # noqa: E402
from dpcourse.exercises.noise import IntegersOnly, check_bernoulli_exp, check_lattice_scale  # noqa: E402
from dpcourse.plots import noise as figs  # noqa: E402


def test_chi_square_accepts_right_pmf_and_refuses_10_percent_off():
    x = dpcourse.discrete_laplace(2, size=100_000, rng=11)
    assert figs.pmf_chi_square(x, lambda k: dpcourse.discrete_laplace_pmf(k, 2))[2] > 1e-6
    assert figs.pmf_chi_square(x, lambda k: dpcourse.discrete_laplace_pmf(k, 2.2))[2] < 1e-6
    y = dpcourse.discrete_gaussian(3, size=100_000, rng=12)
    assert figs.pmf_chi_square(y, lambda k: dpcourse.discrete_gaussian_pmf(k, 3))[2] > 1e-6
    assert figs.pmf_chi_square(y, lambda k: dpcourse.discrete_gaussian_pmf(k, 3.3))[2] < 1e-6


def test_chi_square_by_hand():
    """Samples exactly at their expectations give statistic 0 (up to the pooled tails)."""
    pmf = lambda k: dpcourse.discrete_laplace_pmf(k, 1)  # noqa: E731
    k = np.arange(-12, 13)
    counts = np.round(10_000 * pmf(k)).astype(int)
    x = np.repeat(k, counts)
    stat, dof, p = figs.pmf_chi_square(x, pmf)
    assert dof >= 10 and stat < 1.0 and p > 0.999
    with pytest.raises(ValueError):
        figs.pmf_chi_square(np.arange(10), pmf)


def test_reachable_window_matches_exact_check():
    fig, from0, from1 = figs.plot_reachable_window(0.0, 1.0, 0.3, 40)
    plt.close(fig)
    grid = [0.3]
    for _ in range(39):
        grid.append(math.nextafter(grid[-1], math.inf))
    assert from0.tolist() == dpcourse.textbook_reachable(grid, 0.0, 1.0, 1.0).tolist()
    assert from1.any() and from0.any() and not (from0 == from1).all()


def test_figures_build():
    for fig in (figs.plot_lattice_cost(), figs.plot_lattice_release(exponent=-3),
                figs.plot_discrete_gaussian_delta(2.0), figs.plot_noise_dimension(),
                figs.plot_pmf_check(dpcourse.discrete_laplace(2, size=1000, rng=0),
                                    lambda k: dpcourse.discrete_laplace_pmf(k, 2))):
        assert fig.axes
        plt.close(fig)
    with pytest.raises(ValueError, match="not neighbours"):
        figs.plot_lattice_release(0.0, 2.0, 1.0)
    w = figs.lattice_widget()
    assert len(w.widget().children) == 3            # two sliders and the figure, in a live kernel
    assert w.draw(epsilon=2.0, exponent=-4).axes     # any setting is drawn by plot_lattice_release
    plt.close("all")


def _exact(num, den, rng):
    k = 1
    while rng.integers(0, den * k) < num:
        k += 1
    return k % 2 == 1


def test_bernoulli_checker():
    assert check_bernoulli_exp(_exact).passed
    assert not check_bernoulli_exp(lambda n, d, rng: not _exact(n, d, rng)).passed
    assert "rng.integers" in check_bernoulli_exp(lambda n, d, rng: rng.random() < math.exp(-n / d)).message

    def ten_percent_off(num, den, rng):      # gamma 10 % too large
        k = 1
        while rng.integers(0, 10 * den * k) < 11 * num:
            k += 1
        return k % 2 == 1

    assert not check_bernoulli_exp(ten_percent_off).passed
    assert not check_bernoulli_exp(lambda n, d, rng: 0.5).passed
    assert not check_bernoulli_exp(3).passed
    with pytest.raises(AttributeError, match="integers"):
        IntegersOnly(0).uniform()


def test_lattice_scale_checker():
    assert check_lattice_scale(lambda s, e, g, d: g * (math.floor(s / g) + d) / e).passed
    assert "charged" in check_lattice_scale(lambda s, e, g, d: s / e).message
    assert "lattice steps" in check_lattice_scale(lambda s, e, g, d: (math.floor(s / g) + d) / e).message
    assert "one coordinate" in check_lattice_scale(lambda s, e, g, d: g * (math.floor(s / g) + 1) / e).message
    assert not check_lattice_scale(lambda s, e, g, d: g * (s / g + d / 2) / e).passed
    assert not check_lattice_scale(lambda s, e, g, d: 1 / 0).passed


def test_geometric_neighbours_draws_the_exact_pmfs_and_a_loss_within_epsilon():
    eps = 0.7
    fig = figs.plot_geometric_neighbours(10, 11, epsilon=eps, width=5)
    top, bottom = fig.axes
    bars = [np.array(c.get_segments()) for c in top.collections]   # one LineCollection per input
    assert len(bars) == 2
    scale = 1 / eps
    for coll, centre, shift in zip(bars, (10, 11), (-0.15, 0.15)):
        k = np.rint(coll[:, 0, 0] - shift).astype(int)
        assert np.allclose(coll[:, 1, 1], dpcourse.discrete_laplace_pmf(k - centre, scale), rtol=1e-12)
        assert k.min() <= 10 - 5 * scale and k.max() >= 11 + 5 * scale      # the whole width is drawn
    x, loss = bottom.lines[0].get_data()
    assert np.all(np.abs(loss) <= eps + 1e-12)
    assert np.isclose(loss.max(), eps) and np.isclose(loss.min(), -eps)   # the bound is reached
    pa = dpcourse.discrete_laplace_pmf(np.asarray(x, dtype=int) - 10, scale)
    pb = dpcourse.discrete_laplace_pmf(np.asarray(x, dtype=int) - 11, scale)
    assert np.allclose(loss, np.log(pa / pb), atol=1e-12)
    plt.close(fig)
    with pytest.raises(ValueError, match="not neighbours"):
        figs.plot_geometric_neighbours(10, 12)
    with pytest.raises(ValueError, match="whole number"):
        figs.plot_geometric_neighbours(10.5, 11)
    with pytest.raises(ValueError):
        figs.plot_geometric_neighbours(10, 11, epsilon=0)
    plt.close("all")


def test_noisy_histogram_whiskers_hold_the_stated_coverage():
    # by hand, scale 1: P[|K| > 2] = 2 e^-3 / (1 + e^-1) = 0.073 > 0.05 and P[|K| > 3] = 2 e^-4 / (1 + e^-1) = 0.027
    assert figs._noise_half_width(1.0, 0.95) == 3
    for scale in (0.5, 1.0, 4.0, 10.0):
        h = figs._noise_half_width(scale, 0.95)
        inside = dpcourse.discrete_laplace_pmf(np.arange(-h, h + 1), scale).sum()
        one_less = dpcourse.discrete_laplace_pmf(np.arange(-h + 1, h), scale).sum()
        assert inside >= 0.95 > one_less            # the smallest half-width with that coverage
    fig = figs.plot_noisy_histogram(["a", "b", "c"], [152, 68, 124], [149, 64, 124], scale=4)
    ax = fig.axes[0]
    segments = [np.array(c.get_segments()) for c in ax.collections if len(c.get_segments()) == 3]
    whiskers = segments[0]
    assert np.allclose(whiskers[:, 1, 1] - whiskers[:, 0, 1], 2 * figs._noise_half_width(4, 0.95))
    assert ax.lines[-1].get_ydata().tolist() == [149, 64, 124]
    plt.close(fig)
    with pytest.raises(ValueError, match="same length"):
        figs.plot_noisy_histogram(["a", "b"], [1, 2, 3], [1, 2, 3], scale=1)
    with pytest.raises(ValueError):
        figs.plot_noisy_histogram(["a"], [1], [1], scale=0)


def test_bernoulli_checker_refuses_the_librarys_own_samplers():
    """A student took full marks on hw11's Bernoulli(exp(-gamma)) through dpcourse._sampling's private samplers:
    the checker refuses each of them, however reached, and still accepts the chapter's algorithm."""
    import dpcourse._sampling as S

    def honest(num, den, rng):
        k = 1
        while rng.integers(0, den * k) < num:
            k += 1
        return k % 2 == 1

    def one(num, den, rng):
        return S._bern_exp_fraction1(int(num), int(den), False, lambda n: int(rng.integers(0, n)))

    def by_name(num, den, rng, f=getattr(S, "_bern_" + "exp1")):
        return f(0, int(num), int(den), False, lambda n: int(rng.integers(0, n)))

    def vectorized(num, den, rng):
        return bool(S._bern_exp_fraction(np.array([int(num)], dtype=object), int(den), rng)[0])

    assert check_bernoulli_exp(honest).passed
    for cheat in (one, by_name, vectorized):
        result = check_bernoulli_exp(cheat)
        assert not result.passed and "yourself" in result.message, (cheat.__name__, result.message)
