"""Sequential and parallel composition (chapter "Composing private releases"), its checker and figures."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import dpcourse  # noqa: E402
from dpcourse import basic_composition, composed_epsilon, laplace_mechanism, laplace_privacy_loss  # noqa: E402
from dpcourse.exercises.composition_basics import check_plan_epsilon  # noqa: E402
from dpcourse.plots import composition_basics as figs  # noqa: E402


# ---------------------------------------------------------------- composed_epsilon: values by hand

@pytest.mark.parametrize("eps, parts, relation, total", [
    ([0.5, 0.25], None, "add_remove", 0.75),
    ([0.5, 0.25], None, "replace_one", 0.75),               # whole-dataset releases: same rule
    ([1.0, 1.0, 1.0], ["A", "C", "G"], "add_remove", 1.0),  # a histogram: parallel
    ([1.0, 1.0, 1.0], ["A", "C", "G"], "replace_one", 2.0),  # a record moves between two parts
    ([0.1, 0.3], ["a", "a"], "add_remove", 0.4),            # one part, two releases: sequential
    ([0.2, 0.5, 0.3, 0.4], [None, "a", "b", "a"], "add_remove", 1.1),
    ([0.2, 0.5, 0.3, 0.4], [None, "a", "b", "a"], "replace_one", 2.0),
    ([0.6, 0.35, 0.35, 0.1], ["x", "y", "y", None], "add_remove", 0.8),
])
def test_composed_epsilon_by_hand(eps, parts, relation, total):
    assert composed_epsilon(eps, parts, relation=relation) == pytest.approx(total, rel=1e-12, abs=0)


@pytest.mark.parametrize("eps, k", [(0.1, 10), (0.5, 3), (2.0, 1)])
def test_sequential_agrees_with_basic_composition(eps, k):
    assert composed_epsilon([eps] * k, relation="add_remove") == pytest.approx(basic_composition(eps, k)[0])


def test_parallel_never_exceeds_sequential_and_is_at_least_the_largest_release():
    gen = np.random.default_rng(3)
    for _ in range(200):
        m = int(gen.integers(1, 8))
        eps = list(gen.uniform(0.01, 2.0, size=m))
        parts = [None if gen.random() < 0.3 else int(gen.integers(0, 3)) for _ in range(m)]
        total = composed_epsilon(eps, parts, relation="add_remove")
        assert max(eps) - 1e-12 <= total <= sum(eps) + 1e-12


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(epsilons=[], relation="add_remove"), ValueError, "at least one"),
    (dict(epsilons=[0.5, float("nan")], relation="add_remove"), ValueError, r"epsilons\[1\]"),
    (dict(epsilons=[0.5, 0.0], relation="add_remove"), ValueError, r"epsilons\[1\]"),
    (dict(epsilons=[True], relation="add_remove"), TypeError, r"epsilons\[0\]"),
    (dict(epsilons=0.5, relation="add_remove"), TypeError, "sequence"),
    (dict(epsilons=[0.5], parts=["a", "b"], relation="add_remove"), ValueError, "one label per release"),
    (dict(epsilons=[0.5], parts=[["a"]], relation="add_remove"), TypeError, "hashable"),
    (dict(epsilons=[0.5], parts="a", relation="add_remove"), TypeError, "parts"),
    (dict(epsilons=[0.5], relation="bounded"), ValueError, "relation"),
])
def test_composed_epsilon_fails_closed(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        composed_epsilon(**kwargs)


def test_relation_is_required():
    with pytest.raises(TypeError, match="relation"):
        composed_epsilon([0.5])


# ---------------------------------------------------------------- laplace_privacy_loss

def test_laplace_loss_by_hand_and_against_scipy():
    # one release: y = 0.3 between f(x) = 0 and f(x') = 1, scale 2: (|0.3 - 1| - |0.3|) / 2 = 0.2
    assert laplace_privacy_loss([0.3], [0.0], [1.0], 2.0) == pytest.approx(0.2, abs=1e-15)
    gen = np.random.default_rng(0)
    y = gen.normal(0, 3, size=(1000, 3))
    fx, fxp, b = np.array([0.0, 2.0, -1.0]), np.array([1.0, 2.5, -3.0]), np.array([0.5, 1.0, 2.0])
    want = (stats.laplace(fx, b).logpdf(y) - stats.laplace(fxp, b).logpdf(y)).sum(axis=1)
    np.testing.assert_allclose(laplace_privacy_loss(y, fx, fxp, b), want, rtol=0, atol=1e-12)
    bound = np.sum(np.abs(fx - fxp) / b)
    assert np.abs(laplace_privacy_loss(y, fx, fxp, b)).max() <= bound + 1e-12


@pytest.mark.parametrize("args, exc", [
    (([[0.0, 1.0]], [0.0], [1.0], 1.0), ValueError),          # 2 releases, 1 value
    (([0.0], [0.0], [1.0], 0.0), ValueError),                  # scale 0
    (([0.0, 1.0], [0.0, 0.0], [1.0, 1.0], [1.0, -1.0]), ValueError),
    (([0.0, 1.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0, 1.0]), ValueError),
    (([float("nan")], [0.0], [1.0], 1.0), ValueError),
    ((0.0, [0.0], [1.0], 1.0), ValueError),
])
def test_laplace_loss_fails_closed(args, exc):
    with pytest.raises(exc):
        laplace_privacy_loss(*args)


# ---------------------------------------------------------------- the theorem, measured on the mechanism

def _log_ratio_of_corner(eps1, eps2, scale_factor, n, seed):
    """ln(P_x[E] / P_x'[E]) estimated for E = {Y1 <= 0, Y2 <= 0}, counts 0 on x and 1 on x'."""
    gen = np.random.default_rng(seed)
    scales = scale_factor * np.array([1 / eps1, 1 / eps2])
    on_x = laplace_mechanism(np.zeros((n, 2)), 1.0, 1.0, rng=gen) * scales  # Lap(1) rescaled per column
    on_xp = 1.0 + laplace_mechanism(np.zeros((n, 2)), 1.0, 1.0, rng=gen) * scales
    a = int(np.all(on_x <= 0, axis=1).sum())
    b = int(np.all(on_xp <= 0, axis=1).sum())
    return math.log(a / b), math.sqrt(1 / a + 1 / b)


def test_two_laplace_releases_attain_the_sum_and_a_ten_percent_error_is_seen():
    """Basic composition is tight: the event 'both outputs <= f(x)' has ratio exactly e^(eps1 + eps2).

    With the right scales the estimate is within 5 standard errors (about 1e-6 two-sided) of 1.0; with
    scales 10% too small the true log ratio is 1/0.9 = 1.11 and the same check fails.
    """
    eps1, eps2 = 0.3, 0.7
    est, se = _log_ratio_of_corner(eps1, eps2, 1.0, 400_000, seed=11)
    assert abs(est - (eps1 + eps2)) < 5 * se, (est, se)
    est_bad, se_bad = _log_ratio_of_corner(eps1, eps2, 0.9, 400_000, seed=11)
    assert abs(est_bad - (eps1 + eps2)) > 5 * se_bad, (est_bad, se_bad)


def test_parallel_histogram_loss_is_one_bin():
    """Laplace noise of scale 1/eps per bin on a histogram: removing one record changes one bin only."""
    gen = np.random.default_rng(5)
    h = np.array([152.0, 68.0, 124.0])
    h_minus = h - np.array([0.0, 0.0, 1.0])
    y = laplace_mechanism(np.broadcast_to(h, (50_000, 3)), 1.0, 1.0, rng=gen)
    loss = laplace_privacy_loss(y, h, h_minus, 1.0)
    assert np.abs(loss).max() <= 1.0 + 1e-9
    assert np.mean(loss >= 1.0 - 1e-9) == pytest.approx(0.5, abs=5 * math.sqrt(0.25 / 50_000))


# ---------------------------------------------------------------- checker and figures

def reference(eps, parts):
    """The solution of the exercise, written by hand (the checker refuses calls to composed_epsilon)."""
    per_part = {}
    for e, p in zip(eps, parts):
        per_part[p] = per_part.get(p, 0.0) + e
    whole = per_part.pop(None, 0.0)
    return whole + max(per_part.values(), default=0.0)


def _replace_one_total(eps, parts):
    per_part = {}
    for e, p in zip(eps, parts):
        per_part[p] = per_part.get(p, 0.0) + e
    whole = per_part.pop(None, 0.0)
    return whole + 2 * max(per_part.values(), default=0.0)


def test_checker_accepts_the_reference():
    result = check_plan_epsilon(reference)
    assert result.passed, result.message


def _max_within_part(eps, parts):
    whole = sum(e for e, p in zip(eps, parts) if p is None)
    return whole + max((e for e, p in zip(eps, parts) if p is not None), default=0.0)


@pytest.mark.parametrize("wrong, hint", [
    (lambda e, p: sum(e), "added every release"),
    (lambda e, p: max(e), "largest single epsilon"),
    (_max_within_part, "add up"),
    (_replace_one_total, "under add/remove"),
    (lambda e, p: composed_epsilon(e, p, relation="add_remove"), "asks you to write"),
    (lambda e, p: dpcourse.composed_epsilon(e, p, relation="add_remove"), "asks you to write"),
    (lambda e, p: reference(e, p) - sum(x for x, q in zip(e, p) if q is None), "whole-dataset releases"),
    (lambda e, p: 0.0, "every release costs"),
    (lambda e, p: reference(e, p) + 0.05, "which releases can see"),
    (lambda e, p: 1 / 0, "ZeroDivisionError"),
    (lambda e, p: "one", "one number"),
    (lambda e, p: float("nan"), "nan"),
])
def test_checker_hints(wrong, hint):
    result = check_plan_epsilon(wrong)
    assert not result.passed and hint in result.message, (hint, result.message)


def test_checker_never_prints_a_total():
    """Apart from the plan it names, a message has no number in it (so no expected total)."""
    for wrong in (lambda e, p: sum(e), lambda e, p: max(e), _max_within_part, lambda e, p: reference(e, p) + 0.05):
        msg = check_plan_epsilon(wrong).message
        rest = msg.split("parts=")[1].split("]", 1)[1]
        assert not any(ch.isdigit() for ch in rest), msg


def test_figures_draw():
    losses = figs.composed_laplace_losses(0.5, 3, n_samples=4000, rng=0)
    assert losses.shape == (4000,) and np.abs(losses).max() <= 1.5 + 1e-9
    assert isinstance(figs.plot_composition_loss(0.5, 3, n_samples=2000, rng=0), plt.Figure)
    ex = figs.composition_loss_widget()
    assert list(ex.controls) == ["epsilon", "k"] and all(len(c.values) >= 2 for c in ex.controls.values())
    assert isinstance(ex.draw(epsilon=1.0, k=2), plt.Figure)
    plt.close("all")


def test_composition_loss_figure_draws_probabilities():
    """The loss of k Laplace releases has atoms (every output beyond one answer): the figure draws them as stems
    at their exact probabilities on a probability axis, and the rest as the share of draws per bin."""
    from matplotlib.container import BarContainer, StemContainer

    values, probs = figs.loss_atoms(0.5, 4)
    assert values.tolist() == pytest.approx([-2.0, -1.0, 0.0, 1.0, 2.0])
    assert probs[-1] == pytest.approx(1 / 16) and probs[0] == pytest.approx((math.exp(-0.5) / 2) ** 4)
    assert probs[2] == pytest.approx(6 * 0.25 * (math.exp(-0.5) / 2) ** 2)
    losses = figs.composed_laplace_losses(0.5, 4, n_samples=20_000, rng=0)
    assert np.mean(np.abs(losses - 2.0) < 1e-9) == pytest.approx(1 / 16, abs=5 * math.sqrt(1 / 16 / 20_000))
    fig = figs.plot_composition_loss(0.5, 4, n_samples=20_000, rng=0)
    left = fig.axes[0]
    assert left.get_ylabel() == "probability"
    stems = [c for c in left.containers if isinstance(c, StemContainer)]
    bars = [c for c in left.containers if isinstance(c, BarContainer)]
    assert len(stems) == 1 and len(bars) == 1
    assert stems[0].markerline.get_xdata() == pytest.approx(values)
    assert stems[0].markerline.get_ydata() == pytest.approx(probs)
    spread = sum(patch.get_height() for patch in bars[0])
    assert spread == pytest.approx(1 - probs.sum(), abs=0.02)  # the rest of the probability, spread over bins
    assert max(patch.get_height() for patch in bars[0]) < probs.max()  # no spike: bins hold probabilities
    plt.close(fig)


def test_averaging_attack_draws():
    """k fresh releases per analyst: averages centred on the two counts, spread sqrt(2)/(eps sqrt k), independent."""
    n, k, eps = 20_000, 10, 0.5
    on_x, on_x_prime = figs.averaging_attack(123, eps, k, n_analysts=n, rng=1)
    assert on_x.shape == on_x_prime.shape == (n,)
    sd = math.sqrt(2) / (eps * math.sqrt(k))
    for avg, centre in ((on_x, 123.0), (on_x_prime, 124.0)):
        assert abs(avg.mean() - centre) < 5 * sd / math.sqrt(n)  # 5 standard errors: about 1e-6
        # the sample sd of averages of 10 Laplace draws (excess kurtosis 0.3) has relative s.e. sqrt(2.3 / n) / 2
        assert abs(avg.std() / sd - 1) < 5 * math.sqrt(2.3 / n) / 2
    assert abs(np.corrcoef(on_x, on_x_prime)[0, 1]) < 5 / math.sqrt(n)  # fresh noise on each dataset
    with pytest.raises(ValueError, match="n_analysts"):
        figs.averaging_attack(123, eps, 1000, n_analysts=10**5)
    with pytest.raises(ValueError, match="epsilon"):
        figs.averaging_attack(123, 0.0, 1)


def test_averaging_attack_figure_states_the_guess_and_the_bound():
    fig = figs.plot_averaging_attack(123, 0.5, (1, 100), n_analysts=20_000, rng=0)
    one, hundred = (ax.get_title() for ax in fig.axes)
    # one release: the threshold guess is right with probability 1 - e^(-eps/2)/2 = 0.6106, at most e^eps/(1+e^eps)
    right = int(one.split("right ")[1].split("%")[0])
    assert abs(right - 100 * (1 - 0.5 * math.exp(-0.25))) <= 2
    assert "allows 62%" in one
    # a hundred releases: the averages have sd 0.283 and the guess is right about 96% of the time
    assert int(hundred.split("right ")[1].split("%")[0]) in (95, 96, 97) and "allows 100%" in hundred
    plt.close(fig)
    with pytest.raises(ValueError, match="ks"):
        figs.plot_averaging_attack(123, 0.5, ())


def test_partition_figure_states_the_costs():
    fig = figs.plot_partition(["Adelie", "Chinstrap", "Gentoo"], [151, 68, 123], "Gentoo", epsilon=0.5)
    left, right = fig.axes
    assert left.get_title() == "public partition: max(0.5, 0.5, 0.5) = 0.5"
    assert right.get_title() == "overlapping sets: 0.5 + 0.5 + 0.5 = 1.5"
    moved = [t.get_text() for t in left.texts if t.get_text() == "moves"]
    assert len(moved) == 1  # the added record changes exactly one part
    plt.close(fig)
    fig = figs.plot_partition(["a", "b"], [1, 1], "b", questions=("p?", "q?"))
    assert fig.axes[1].get_title() == "overlapping sets: 1 + 1 = 2"
    plt.close(fig)
    with pytest.raises(ValueError, match="added"):
        figs.plot_partition(["a", "b"], [1, 1], "c")
    with pytest.raises(ValueError, match="part_sizes"):
        figs.plot_partition(["a", "b"], [1, 0], "a")
    with pytest.raises(ValueError, match="questions"):
        figs.plot_partition(["a", "b"], [1, 1], "a", questions=("p?",))


def test_exported():
    assert dpcourse.composed_epsilon is composed_epsilon and dpcourse.laplace_privacy_loss is laplace_privacy_loss
