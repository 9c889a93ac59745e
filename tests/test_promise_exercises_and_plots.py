"""Chapter 1's exercise checkers (reference passes, usual slips get their hint) and its figures."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpcourse.exercises import CheckResult  # noqa: E402
from dpcourse.exercises.promise import check_hockey_stick, check_mixture_epsilon  # noqa: E402
from dpcourse.plots import promise as figs  # noqa: E402


def reference(p, q, epsilon):
    return np.maximum(p - np.exp(epsilon) * q, 0).sum()


def test_hockey_stick_checker_accepts_a_correct_implementation():
    result = check_hockey_stick(reference)
    assert isinstance(result, CheckResult) and result.passed
    assert repr(result).startswith("Correct.")


@pytest.mark.parametrize(
    "wrong, hint",
    [
        (lambda p, q, e: np.abs(p - np.exp(e) * q).sum(), "summed |p - e^eps q|"),
        (lambda p, q, e: (p - np.exp(e) * q).sum(), "over all outcomes"),
        (lambda p, q, e: np.maximum(q - np.exp(e) * p, 0).sum(), "other direction"),
        (lambda p, q, e: -0.5, "never negative"),
        (lambda p, q, e: 2.0, "> 1"),
        (lambda p, q, e: np.maximum(p - np.exp(-e) * q, 0).sum(), "more than the total variation"),
        (lambda p, q, e: np.maximum(p - np.exp(e) * q, 0).sum() / 2, "is off"),
        (lambda p, q, e: 1 / 0, "ZeroDivisionError"),
        (lambda p, q, e: [1, 2], "one number"),
        (lambda p, q, e: math.nan, "NaN"),
        (lambda p, q, e: np.maximum(p - e * q, 0).sum(), "p=[0.1, 0.6, 0.3], q=[0.4, 0.4, 0.2], epsilon=0.1"),
    ],
)
def test_hockey_stick_checker_explains_mistakes(wrong, hint):
    result = check_hockey_stick(wrong)
    assert not result.passed
    assert hint in result.message


def test_hockey_stick_checker_never_prints_expected_values():
    # The message for a wrong answer names the inputs and the student's value only.
    from dpcourse import hockey_stick

    result = check_hockey_stick(lambda p, q, e: 0.123456)
    assert f"{hockey_stick([0.1, 0.6, 0.3], [0.4, 0.4, 0.2], 0.1):.4g}" not in result.message
    res = check_hockey_stick("not a function")
    assert not res.passed and "pass the function itself" in res.message


def test_mixture_checker():
    assert check_mixture_epsilon(math.log(12), n=10).passed
    assert check_mixture_epsilon(np.float64(math.log(7)), n=5).passed
    assert "natural log" in check_mixture_epsilon(math.log10(12), n=10).message
    assert check_mixture_epsilon(5.0, n=10).message == check_mixture_epsilon(1.0, n=10).message  # no direction
    assert not check_mixture_epsilon(5.0, n=10).passed and not check_mixture_epsilon(1.0, n=10).passed
    assert "not a valid answer" in check_mixture_epsilon(True, n=10).message
    assert "number" in check_mixture_epsilon("ln 12", n=10).message
    assert str(math.log(12))[:5] not in check_mixture_epsilon(1.0, n=10).message


def test_figures_draw_and_refuse_bad_parameters():
    fig = figs.plot_exp_vs_linear(1e-4, 1.0)
    assert len(fig.axes) == 2
    fig2 = figs.plot_rr_count(n=4, epsilon=math.log(4))
    assert len(fig2.axes) == 2
    assert "privacy loss = 1.386" in fig2.axes[1].get_title()  # ln 4
    fig2 = figs.plot_rr_count(n=4, epsilon=math.log(4), show_delta=True)
    assert len(fig2.axes) == 3
    # the delta(eps) curve of the pair reaches 0 exactly at its privacy loss ln 4 (the dashed line)
    eps_grid, delta = fig2.axes[2].get_lines()[0].get_data()
    assert delta[0] > 0 and delta[eps_grid >= math.log(4)].max() == 0 and delta[eps_grid < math.log(4) - 0.01].min() > 0
    fig4 = figs.plot_testing_tradeoff([0.5, 0.5], [0.25, 0.75], math.log(3))
    assert len(fig4.axes) == 1
    fig3 = figs.plot_neighbour_distributions([0.5, 0.5, 0.0], [0.5, 0.25, 0.25])
    assert fig3.axes[1].get_title() == "privacy loss = inf"
    plt.close("all")
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_rr_count(3, 0.0)
    with pytest.raises(ValueError, match="delta"):
        figs.plot_testing_tradeoff([0.5, 0.5], [0.25, 0.75], 1.0, delta=1.0)
    with pytest.raises(ValueError, match="same length"):
        figs.tradeoff_points([0.5, 0.5], [1.0])
    with pytest.raises(ValueError, match="eps_min"):
        figs.plot_exp_vs_linear(0.0, 1.0)
    with pytest.raises(TypeError, match="n"):
        figs.plot_rr_count(2.5, 0.7)
    with pytest.raises(TypeError, match="show_delta"):
        figs.plot_rr_count(3, 0.7, show_delta="yes")


def test_count_posteriors_by_hand():
    # one other student with grade 0; randomized response at ln 3 (truth probability 3/4), prior 1/2.
    # Dana = 1: counts 0, 1, 2 with probabilities 3/16, 10/16, 3/16; Dana = 0: 9/16, 6/16, 1/16.
    post, prob = figs.count_posteriors([0], math.log(3), prior=0.5)
    np.testing.assert_allclose(post, [3 / 12, 10 / 16, 3 / 4], rtol=1e-12)
    np.testing.assert_allclose(prob, [12 / 32, 16 / 32, 4 / 32], rtol=1e-12)
    # the extreme counts reach the bounds of thm-posterior-odds (odds moved by exactly e^-eps and e^eps)
    assert post[0] / (1 - post[0]) == pytest.approx(1 / 3, rel=1e-12)
    assert post[-1] / (1 - post[-1]) == pytest.approx(3.0, rel=1e-12)


@pytest.mark.parametrize("others, eps, prior", [([1, 1, 0, 0, 0], 1.0, 0.5), ([1, 0, 0, 1, 0], math.log(3), 0.3),
                                                ([0] * 12, 0.1, 0.9), ([1] * 7 + [0] * 3, 4.0, 0.01)])
def test_count_posteriors_obey_the_posterior_odds_theorem(others, eps, prior):
    post, prob = figs.count_posteriors(others, eps, prior)
    assert prob.sum() == pytest.approx(1.0, abs=1e-12) and post.size == len(others) + 2
    odds = post / (1 - post)
    lo, hi = prior / (1 - prior) * math.exp(-eps), prior / (1 - prior) * math.exp(eps)
    assert np.all(odds >= lo * (1 - 1e-12)) and np.all(odds <= hi * (1 + 1e-12))
    assert odds[0] == pytest.approx(lo, rel=1e-9) and odds[-1] == pytest.approx(hi, rel=1e-9)
    # the law of total probability: the posterior averages back to the prior
    assert (post * prob).sum() == pytest.approx(prior, rel=1e-12)


def test_chapter_one_opening_figures():
    fig = figs.plot_two_worlds([1, 1, 0, 0, 0], 1.0)
    assert len(fig.axes) == 3
    heights = [r.get_height() for r in fig.axes[2].patches]   # the ratio panel: within [e^-1, e]
    assert min(heights) == pytest.approx(math.exp(-1), rel=1e-12) and max(heights) == pytest.approx(math.e, rel=1e-12)
    fig = figs.plot_attack_defeated([1, 1, 0, 0, 0], 1.0, prior=0.5)
    assert len(fig.axes) == 1
    bars = [r.get_height() for r in fig.axes[0].patches if r.get_width() == 0.6]
    np.testing.assert_allclose(bars, figs.count_posteriors([1, 1, 0, 0, 0], 1.0, 0.5)[0], rtol=1e-12)
    plt.close("all")
    for bad in ([0, 2], [], np.array([True, False]), "01", [[0, 1]]):
        with pytest.raises(ValueError, match="others"):
            figs.count_posteriors(bad, 1.0)
    for prior in (0.0, 1.0, float("nan")):
        with pytest.raises(ValueError, match="prior"):
            figs.count_posteriors([0, 1], 1.0, prior)
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_two_worlds([0, 1], 0.0)
    with pytest.raises(ValueError, match="prior"):
        figs.plot_attack_defeated([0, 1], 1.0, prior=1.5)


def test_tradeoff_points_by_hand():
    # two outcomes: events {}, {0}, {1}, {0, 1}; FPR = p(S), FNR = 1 - q(S)
    pts = figs.tradeoff_points([0.5, 0.5], [0.25, 0.75])
    np.testing.assert_allclose(pts, [[0.0, 1.0], [0.5, 0.75], [0.5, 0.25], [1.0, 0.0]], atol=1e-15)
    # randomized response at ln 3 is ln 3-DP: every test satisfies both inequalities, one with equality
    t = 0.75
    pts = figs.tradeoff_points([t, 1 - t], [1 - t, t])
    lhs = np.minimum(pts[:, 0] + 3 * pts[:, 1], pts[:, 1] + 3 * pts[:, 0])
    assert lhs.min() == pytest.approx(1.0, abs=1e-12)


def test_widget_builds():
    ex = figs.rr_count_widget()
    assert list(ex.controls) == ["n", "epsilon"] and all(len(c.values) >= 2 for c in ex.controls.values())
    assert len(ex.draw(n=2, epsilon=0.5).axes) == 2
    plt.close("all")
