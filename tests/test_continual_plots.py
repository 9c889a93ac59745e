"""dpcourse.plots.continual: the figures of the chapter on continual release draw what they say they draw."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import dpcourse  # noqa: E402
from dpcourse.plots import continual as figs  # noqa: E402


def _popcount(t):
    return bin(t).count("1")


@pytest.mark.parametrize("horizon", [1, 7, 16, 64, 1000])
def test_tree_nodes_partition_the_prefix_into_released_nodes(horizon):
    for t in range(1, min(horizon, 200) + 1):
        nodes = figs.tree_nodes(horizon, t)
        assert len(nodes) == _popcount(t)
        assert nodes[0][1] == 0 and nodes[-1][2] == t          # they cover 1..t ...
        for (_, _, end), (_, start, _) in zip(nodes, nodes[1:]):
            assert end == start                                # ... without gaps or overlaps
        for level, start, end in nodes:
            assert end - start == 2**level
            assert (end // 2**level) % 2 == 1                  # a released node: odd index k
    assert figs.tree_nodes(16, 13) == [(3, 0, 8), (2, 8, 12), (0, 12, 13)]


def test_tree_nodes_agree_with_the_exact_variance():
    # the variance of answer t is popcount(t) node variances (theorem cr-thm-tree-variance)
    node = dpcourse.tree_variance(1, 1000, 1.0)
    for t in (1, 2, 3, 500, 999, 1000):
        assert dpcourse.tree_variance(t, 1000, 1.0) == pytest.approx(len(figs.tree_nodes(1000, t)) * node, rel=1e-12)


def _boxes(fig):
    return [p for p in fig.axes[0].patches if isinstance(p, Rectangle)]


@pytest.mark.parametrize("horizon, t, event", [(16, 13, 5), (16, 15, 1), (13, 12, 13), (64, 63, 32)])
def test_dyadic_tree_marks_the_answer_and_the_event(horizon, t, event):
    fig = figs.plot_dyadic_tree(horizon, t, event)
    boxes = _boxes(fig)
    L = horizon.bit_length()
    assert len(boxes) == sum(horizon // 2**j for j in range(L))          # every node of every level
    blue = [b for b in boxes if b.get_facecolor()[:3] == matplotlib.colors.to_rgb("tab:blue")]
    assert len(blue) == _popcount(t)
    red = [b for b in boxes if b.get_edgecolor()[:3] == matplotlib.colors.to_rgb("tab:red")]
    expected = sum(1 for j in range(L) for k in range(1, horizon // 2**j + 1)
                   if k % 2 == 1 and (k - 1) * 2**j < event <= k * 2**j)
    assert len(red) == expected <= L
    if event == 1:
        assert len(red) == L                                                  # the first event attains L
    assert f"adds {_popcount(t)} nodes" in fig.axes[0].get_title()
    plt.close(fig)


@pytest.mark.parametrize("kwargs, error", [
    ({"horizon": 65}, ValueError), ({"horizon": 16, "t": 17}, ValueError), ({"horizon": 16, "event": 0}, ValueError),
    ({"horizon": 16, "event": 17}, ValueError), ({"horizon": 16.5}, TypeError), ({"t": float("nan")}, TypeError)])
def test_dyadic_tree_refuses_bad_input(kwargs, error):
    with pytest.raises(error):
        figs.plot_dyadic_tree(**kwargs)


STREAM = (np.arange(1, 301) % 3 == 0).astype(np.int64)


def test_running_count_draws_the_counters_runs_from_the_seed():
    fig = figs.plot_running_count(STREAM, 0.5, methods=("fresh", "increments", "tree"), seed=7)
    gen = np.random.default_rng(7)
    expected = [dpcourse.naive_counts(STREAM, 0.5, method="fresh", rng=gen),
                dpcourse.naive_counts(STREAM, 0.5, method="increments", rng=gen),
                dpcourse.tree_counts(STREAM, 0.5, rng=gen)]
    truth = np.cumsum(STREAM)
    for ax, y in zip(fig.axes, expected):
        private, true = ax.get_lines()[:2]
        np.testing.assert_array_equal(private.get_ydata(), y)
        np.testing.assert_array_equal(true.get_ydata(), truth)
    largest = math.sqrt(dpcourse.naive_variance(300, 300, 0.5, method="increments"))
    assert f"{largest:,.1f}" in fig.axes[1].get_title()
    plt.close(fig)


def test_running_count_errors_show_the_exact_band():
    fig = figs.plot_running_count(STREAM, 1.0, methods=("increments", "tree"), errors=True, seed=3)
    gen = np.random.default_rng(3)
    runs = [dpcourse.naive_counts(STREAM, 1.0, method="increments", rng=gen), dpcourse.tree_counts(STREAM, 1.0, rng=gen)]
    t = np.arange(1, 301)
    sds = [np.sqrt(dpcourse.naive_variance(t, 300, 1.0, method="increments")), np.sqrt(dpcourse.tree_variance(t, 300, 1.0))]
    for ax, y, sd in zip(fig.axes, runs, sds):
        np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), y - np.cumsum(STREAM))
        band = ax.collections[0].get_paths()[0].vertices
        assert band[:, 1].max() == pytest.approx(2 * sd.max(), rel=1e-12)
        assert band[:, 1].min() == pytest.approx(-2 * sd.max(), rel=1e-12)
        assert f"largest sd {sd.max():,.1f}" in ax.get_title()
    plt.close(fig)


@pytest.mark.parametrize("kwargs, error", [
    ({"methods": ("fresh", "bogus")}, ValueError), ({"methods": ("tree", "tree")}, ValueError),
    ({"methods": ()}, ValueError), ({"errors": "yes"}, TypeError), ({"epsilon": 0.0}, ValueError),
    ({"epsilon": float("nan")}, ValueError), ({"stream": [0, 1, 2]}, ValueError)])
def test_running_count_refuses_bad_input(kwargs, error):
    args = {"stream": STREAM, **kwargs}
    with pytest.raises(error):
        figs.plot_running_count(**args)


def test_the_other_figures_draw():
    errors = figs.exact_errors(64, 1.0)
    assert errors["tree, Laplace (ε-DP)"].max() == pytest.approx(math.sqrt(dpcourse.tree_variance(63, 64, 1.0)))
    for fig in (figs.plot_errors_vs_horizon(1.0, (4, 6)), figs.plot_continual(horizon=2**8, epsilon=1.0, seed=0)):
        assert fig.axes
        plt.close(fig)
    assert len(list(figs.continual_widget().controls)) == 2


@pytest.mark.parametrize("call, name", [
    (lambda: figs.exact_errors(16, 2000.0), "epsilon"),                 # rho = 2e6, above the Gaussian counters' cap
    (lambda: figs.exact_errors(16, 1e-9), "epsilon"),                   # rho = 5e-19: the node noise would pass 2**60
    (lambda: figs.plot_continual(16, 2000.0), "epsilon"),
    (lambda: figs.plot_errors_vs_horizon(1e-9, (4,)), "epsilon"),
    (lambda: figs.plot_errors_vs_horizon(1.0, (-1,)), "log2_horizons"),
    (lambda: figs.plot_errors_vs_horizon(1.0, (4.5,)), "log2_horizons"),
    (lambda: figs.plot_continual(16, 1.0, seed=-1), "seed"),
    (lambda: figs.plot_continual(16, 1.0, seed=1.5), "seed"),
    (lambda: figs.plot_running_count(STREAM, 1.0, seed="a"), "seed"),
])
def test_figures_name_the_argument_the_caller_gave(call, name):
    """The Gaussian counters run at rho = epsilon**2 / 2: where they refuse that rho, the figure's refusal names
    epsilon (the caller gave no rho); a bad seed or horizon exponent is refused by its own name."""
    with pytest.raises((ValueError, TypeError), match=name):
        call()
    plt.close("all")


def test_exact_errors_run_the_gaussian_counters_at_rho_epsilon_squared_over_two():
    """The comparison's currency (chapter, theorem cr-thm-fact): the Gaussian counters run at rho = epsilon**2 / 2.
    Checked against values computed here from the theorems, not by the module: at T = 16 (L = 5) the Gaussian tree's
    worst answer (t = 15, four nodes) has variance 4 L / (2 rho) (the discrete Gaussian's variance is its parameter
    to within 1e-40 at sigma^2 = 5 / (2 rho) >= 5), and the factorization's worst RMSE is S(T) / sqrt(2 rho)
    times the lattice's factor, between 1 and 1.001 (S(16) = sum of c_k^2, c_k = binom(2k, k) / 4**k). A figure at
    rho = epsilon**2 would be sqrt(2) too accurate."""
    T, L = 16, 5
    S = sum(math.comb(2 * k, k) ** 2 / 16**k for k in range(T))
    for eps in (0.25, 0.5, 1.0):
        rho = eps * eps / 2
        e = figs.exact_errors(T, eps)
        assert e["tree, Gaussian (ρ = ε²/2)"].max() == pytest.approx(math.sqrt(4 * L / (2 * rho)), rel=1e-12)
        ratio = e["factorization, Gaussian (ρ = ε²/2)"].max() / (S / math.sqrt(2 * rho))
        assert 1 <= ratio <= 1.001
