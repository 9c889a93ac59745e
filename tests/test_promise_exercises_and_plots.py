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
    assert len(fig2.axes) == 3
    assert "privacy loss = 1.386" in fig2.axes[1].get_title()  # ln 4
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
    assert len(ex.draw(n=2, epsilon=0.5).axes) == 3
    plt.close("all")
