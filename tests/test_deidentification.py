"""Tests of dpcourse.deidentification: exact small tables by hand, bad input, and the DP attack bound."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import dpcourse as dp
from dpcourse import deidentification as de

T = {"age": [30, 30, 40, 40, 40, 50], "sex": ["f", "f", "m", "m", "f", "m"], "ill": [1, 1, 0, 1, 0, 0]}


# ---------------------------------------------------------------------------------------------------- tables
def test_equivalence_classes_by_hand():
    labels, sizes = de.equivalence_classes(T, ["age", "sex"])
    # classes: (30,f) x2, (40,f) x1, (40,m) x2, (50,m) x1, numbered in sorted order of the tuples
    assert labels.tolist() == [0, 0, 2, 2, 1, 3]
    assert sizes.tolist() == [2, 2, 2, 2, 1, 1]
    assert de.k_anonymity(T, ["age", "sex"]) == 1
    assert de.k_anonymity(T, ["sex"]) == 3
    assert de.uniqueness(T, ["age", "sex"]) == pytest.approx(2 / 6)
    assert de.uniqueness(T, ["age"]) == pytest.approx(1 / 6)


def test_equivalence_classes_match_brute_force():
    rng = np.random.default_rng(1)
    t = {"a": rng.integers(0, 3, 200), "b": rng.choice(["x", "y"], 200), "c": rng.integers(0, 2, 200) * 1.5}
    labels, sizes = de.equivalence_classes(t, ["a", "b", "c"])
    rows = list(zip(t["a"].tolist(), t["b"].tolist(), t["c"].tolist()))
    for i in range(200):
        same = [j for j in range(200) if rows[j] == rows[i]]
        assert sizes[i] == len(same)
        assert all(labels[j] == labels[i] for j in same)
    assert len(set(labels.tolist())) == len(set(rows))


def test_l_diversity_and_homogeneity_by_hand():
    # (30,f): ill {1}, (40,f): {0}, (40,m): {0,1}, (50,m): {0}
    assert de.l_diversity(T, ["age", "sex"], "ill") == 1
    assert de.homogeneous_records(T, ["age", "sex"], "ill").tolist() == [True, True, False, False, True, True]
    assert de.l_diversity(T, ["sex"], "ill") == 2
    assert not de.homogeneous_records(T, ["sex"], "ill").any()


def test_generalize_by_hand():
    out = de.generalize([0, 4.999, 5, 9, 10], [0, 5, 10])
    assert out.tolist() == [0.0, 0.0, 5.0, 5.0, 5.0]  # last interval closed on the right


def test_linkage_attack_by_hand():
    rel = {"age": [30, 30, 40, 50], "sex": ["f", "f", "m", "m"]}
    aux = {"age": [50, 30, 40, 60], "sex": ["m", "f", "m", "m"]}
    out = de.linkage_attack(rel, aux, ["age", "sex"])
    assert out["match_counts"].tolist() == [1, 2, 1, 0]
    assert out["matched_index"].tolist() == [3, -1, 2, -1]
    assert out["rate"] == pytest.approx(0.5)


def test_linkage_on_the_survey_relinks_every_unique_record_to_itself():
    s = de.load_affairs_survey()
    q = ["gender", "age", "yearsmarried", "children", "religiousness", "education", "occupation"]
    out = de.linkage_attack(s, s, q)
    _, sizes = de.equivalence_classes(s, q)
    assert out["rate"] == pytest.approx(de.uniqueness(s, q))
    linked = out["matched_index"] >= 0
    assert np.array_equal(linked, sizes == 1)
    assert np.array_equal(out["matched_index"][linked], np.flatnonzero(linked))


@pytest.mark.parametrize("call", [
    lambda: de.k_anonymity({"a": [1, 2]}, "a"),
    lambda: de.k_anonymity({"a": [1, 2]}, []),
    lambda: de.k_anonymity({"a": [1, 2]}, ["b"]),
    lambda: de.k_anonymity({"a": [1, 2], "b": [1]}, ["a", "b"]),
    lambda: de.k_anonymity({"a": []}, ["a"]),
    lambda: de.k_anonymity({"a": [1.0, math.nan]}, ["a"]),
    lambda: de.k_anonymity({"a": [True, False]}, ["a"]),
    lambda: de.k_anonymity({"a": [None, 1]}, ["a"]),
    lambda: de.k_anonymity([[1, 2]], ["a"]),
    lambda: de.k_anonymity({"a": [1, 2]}, ["a", "a"]),
    lambda: de.k_anonymity({"a": [[1, 2]]}, ["a"]),
    lambda: de.l_diversity(T, ["age"], "age"),
    lambda: de.l_diversity(T, ["age"], 3),
    lambda: de.linkage_attack({"a": [1, 2]}, {"a": ["1"]}, ["a"]),
    lambda: de.generalize([1, 2], [0]),
    lambda: de.generalize([1, 2], [3, 0]),
    lambda: de.generalize([1, 20], [0, 10]),
    lambda: de.generalize([1, math.inf], [0, 10]),
    lambda: de.generalize([True], [0, 10]),
])
def test_bad_tables_raise_named_errors(call):
    with pytest.raises((TypeError, ValueError)):
        call()


# ---------------------------------------------------------------------------------------------------- posterior
def test_posterior_bound_by_hand():
    assert de.posterior_bound(0.5, math.log(3)) == pytest.approx(0.75, abs=1e-15)
    assert de.posterior_bound(0.1, math.log(2)) == pytest.approx(0.2 / 1.1, abs=1e-15)  # odds 1/9 -> 2/9
    assert de.posterior_bound([0.0, 1.0], 3.0).tolist() == [0.0, 1.0]
    assert de.posterior_bound(0.01, 1e-12) == pytest.approx(0.01, rel=1e-9)
    assert de.posterior_bound(0.5, 700.0) == 1.0


@pytest.mark.parametrize("args", [(0.5, 0.0), (0.5, -1.0), (0.5, math.nan), (1.1, 1.0), (-0.1, 1.0), (math.nan, 1.0),
                                  (True, 1.0), ([0.5, 2.0], 1.0), ([0.5, math.nan], 1.0), ("0.5", 1.0)])
def test_posterior_bound_bad_input(args):
    with pytest.raises((TypeError, ValueError)):
        de.posterior_bound(*args)


def test_rappor_epsilon_formulas():
    # f = 1/2: permanent response keeps a bit with prob 3/4 -> ln 3 per differing bit, 2h bits
    eps_inf, eps_1 = de.rappor_epsilon(0.5, 0.5, 0.75, 1)
    assert eps_inf == pytest.approx(2 * math.log(3), rel=1e-14)
    q_star, p_star = 0.75 * 0.75 + 0.25 * 0.5, 0.25 * 0.75 + 0.75 * 0.5
    assert eps_1 == pytest.approx(math.log(q_star * (1 - p_star) / (p_star * (1 - q_star))), rel=1e-14)
    two = de.rappor_epsilon(0.5, 0.5, 0.75, 2)
    assert two == pytest.approx((2 * eps_inf, 2 * eps_1), rel=1e-14)
    assert de.rappor_epsilon(1.0, 0.25, 0.75, 3) == (0.0, 0.0)  # f = 1: a fair coin for every bit


def test_rappor_eps1_is_the_exact_loss_of_one_report():
    # brute force over the 2^2 reported bits of the two differing Bloom bits (h = 1): worst log ratio
    f, p, q = 0.3, 0.2, 0.9
    half = f / 2
    prob_one = {1: (1 - half) * q + half * p, 0: half * q + (1 - half) * p}  # P(report 1 | true bit)
    worst = 0.0
    for r in itertools.product([0, 1], repeat=2):
        def lik(bits):
            return math.prod(prob_one[b] if x else 1 - prob_one[b] for b, x in zip(bits, r))
        worst = max(worst, abs(math.log(lik((1, 0)) / lik((0, 1)))))
    assert de.rappor_epsilon(f, p, q, 1)[1] == pytest.approx(worst, rel=1e-12)


@pytest.mark.parametrize("args", [(0.0, 0.5, 0.75, 1), (1.5, 0.5, 0.75, 1), (0.5, 0.75, 0.5, 1), (0.5, 0.5, 0.5, 1),
                                  (0.5, 0.5, 0.75, 0), (0.5, 0.5, 0.75, 1.5), (math.nan, 0.5, 0.75, 1),
                                  (0.5, -0.1, 0.75, 1), (0.5, 0.5, 1.2, 1), (True, 0.5, 0.75, 1)])
def test_rappor_bad_input(args):
    with pytest.raises((TypeError, ValueError)):
        de.rappor_epsilon(*args)


# ---------------------------------------------------------------------------------------------------- DP attack
C0, C1 = np.array([7, 3, 5]), np.array([6, 4, 5])  # replace-one: the target moves from cell 0 to cell 1


def test_attack_posterior_exact_values():
    eps = 0.8
    post = de.histogram_attack_posterior(np.array([[0, 20, 5], [7, 3, 5], [6, 4, 9], [7, 4, 5]]), C0, C1,
                                         epsilon=eps, relation="replace_one", prior=0.3)
    prior_logit = math.log(0.3 / 0.7)
    want = [prior_logit + eps, prior_logit - eps, prior_logit + eps, prior_logit]
    assert post.tolist() == pytest.approx([1 / (1 + math.exp(-w)) for w in want], rel=1e-12)


def test_attack_posterior_never_exceeds_the_bound_and_attains_it():
    eps, prior, runs = 1.0, 0.2, 20_000
    rng = np.random.default_rng(2024)
    bits = rng.random(runs) < prior
    # the release of dpcourse.dp_histogram under replace-one: its geometric noise of sensitivity 2, one row per run
    rel = dp.geometric_mechanism(np.where(bits[:, None], C1, C0), 2, eps, rng=rng)
    post = de.histogram_attack_posterior(rel, C0, C1, epsilon=eps, relation="replace_one", prior=prior)
    bound = de.posterior_bound(prior, eps)
    assert post.max() <= bound * (1 + 1e-12)
    at_bound = np.isclose(post, bound, rtol=1e-12)
    assert at_bound.sum() > 1000
    # calibration: among runs whose posterior equals the bound, the secret bit is 1 with frequency = bound
    k, n = int(bits[at_bound].sum()), int(at_bound.sum())
    assert stats.binomtest(k, n, bound).pvalue > 1e-6
    # and the attacker who saw those outputs is right more often than the prior allows without DP's e^eps
    assert stats.binomtest(k, n, prior).pvalue < 1e-6


def test_attack_posterior_wrong_calibration_is_detected():
    # a release drawn at epsilon = 2 but analysed as epsilon = 1: its extreme outputs are more revealing
    eps_true, eps_claim, prior, runs = 2.0, 1.0, 0.5, 6000
    rng = np.random.default_rng(7)
    bits = rng.random(runs) < prior
    rel = dp.geometric_mechanism(np.where(bits[:, None], C1, C0), 2, eps_true, rng=rng)
    post = de.histogram_attack_posterior(rel, C0, C1, epsilon=eps_claim, relation="replace_one", prior=prior)
    top = np.isclose(post, de.posterior_bound(prior, eps_claim), rtol=1e-12)
    k, n = int(bits[top].sum()), int(top.sum())
    assert stats.binomtest(k, n, de.posterior_bound(prior, eps_claim)).pvalue < 1e-6


@pytest.mark.parametrize("kwargs", [
    dict(released=[[1.5, 3, 5]]), dict(released=[[True, False, True]]), dict(released="abc"),
    dict(released=[[1, 2]]), dict(counts_1=[5, 5, 5]), dict(counts_0=[-1, 3, 5], counts_1=[-2, 4, 5]),
    dict(epsilon=0.0), dict(epsilon=math.nan), dict(relation="replace"), dict(prior=0.0), dict(prior=1.0),
    dict(prior=math.nan), dict(released=np.zeros((2, 2, 3), dtype=int)),
])
def test_attack_posterior_bad_input(kwargs):
    args = dict(released=[[7, 3, 5]], counts_0=C0, counts_1=C1, epsilon=1.0, relation="replace_one", prior=0.5)
    args.update(kwargs)
    with pytest.raises((TypeError, ValueError)):
        de.histogram_attack_posterior(args.pop("released"), args.pop("counts_0"), args.pop("counts_1"), **args)


def test_add_remove_neighbours_use_sensitivity_one():
    # membership: counts differ by one record; the extreme output gives exactly e^eps odds
    post = de.histogram_attack_posterior([[9, 3]], [5, 3], [6, 3], epsilon=1.0, relation="add_remove", prior=0.5)
    assert float(post[0]) == pytest.approx(de.posterior_bound(0.5, 1.0), rel=1e-12)
    with pytest.raises(ValueError):
        de.histogram_attack_posterior([[9, 3]], [5, 3], [6, 4], epsilon=1.0, relation="add_remove", prior=0.5)


def test_dp_histogram_release_is_what_the_attack_models():
    # dp_histogram(replace_one) adds geometric noise of sensitivity 2: same seed, same draws
    labels = np.array(["a", "b", "c"])
    a = dp.dp_histogram(np.repeat(labels, C0), 0.7, relation="replace_one", categories=labels, rng=5)
    b = dp.geometric_mechanism(C0, 2, 0.7, rng=5)
    assert a.tolist() == b.tolist()


def test_deployments_file_is_complete():
    t = de.load_deployments()
    n = t["deployment"].size
    assert n >= 10
    for col in ("model", "accounting", "unit", "period", "parameter", "value", "source", "where"):
        assert t[col].size == n and all(str(v).strip() for v in t[col])


# ---------------------------------------------------------------------------------------------------- checkers, plots
def test_posterior_checker():
    from dpcourse.exercises.deidentification import check_posterior_bound

    assert check_posterior_bound(lambda p, e: math.exp(e) * p / (math.exp(e) * p + 1 - p)).passed
    wrong = check_posterior_bound(lambda p, e: min(1.0, math.exp(e) * p))
    assert not wrong.passed and "odds" in wrong.message
    half = check_posterior_bound(lambda p, e: math.exp(e / 2) * p / (math.exp(e / 2) * p + 1 - p))
    assert not half.passed and "whole epsilon" in half.message
    assert not check_posterior_bound(lambda p, e: dp.posterior_bound(p, e)).passed
    assert not check_posterior_bound(lambda p, e: 1.5).passed
    assert not check_posterior_bound(3).passed


def test_user_epsilon_checker():
    from dpcourse.exercises.deidentification import check_user_epsilon

    assert check_user_epsilon(30).passed
    assert "20" in check_user_epsilon(1.5).message
    assert not check_user_epsilon(1.0).passed
    for bad in ("30", True, math.nan, -1.0, 0.0):
        assert not check_user_epsilon(bad).passed


def test_plots_and_widget():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import deidentification as figs

    fig = figs.plot_posterior_bound(epsilon=2.0, prior=0.01)
    assert len(fig.axes) == 1
    fig2 = figs.plot_uniqueness(T, [["age"], ["age", "sex"]], ["age", "+ sex"])
    heights = [p.get_height() for p in fig2.axes[0].patches]
    assert heights == pytest.approx([1.0, 1.0, 1 / 6, 2 / 6])  # "class < 5" bars, then "unique" bars
    plt.close("all")
    w = figs.posterior_widget()
    assert np.prod([len(c.values) for c in w.controls.values()]) <= 24
    with pytest.raises(ValueError):
        figs.plot_posterior_bound(epsilon=0.0)


def test_attack_posteriors_figure_states_the_largest_posterior_and_the_bound():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import deidentification as figs

    prior, eps = 0.25, 1.0
    bound = math.e * prior / (math.e * prior + 1 - prior)   # 0.4748..., by hand
    posts = np.r_[np.full(300, 0.1), np.full(500, prior), np.full(200, bound)]
    fig = figs.plot_attack_posteriors(posts, prior, eps)
    ax = fig.axes[0]
    assert ax.get_title() == "largest posterior 0.475, bound 0.475 (\u03b5 = 1)"
    heights = np.array([p.get_height() for p in ax.patches])
    assert heights.sum() == pytest.approx(1.0) and sorted(heights[heights > 0]) == pytest.approx([0.2, 0.3, 0.5])
    assert sorted(line.get_xdata()[0] for line in ax.lines) == pytest.approx([prior, bound, 1.0])
    plt.close(fig)
    fig = figs.plot_attack_posteriors([0.01, 0.02], 0.01, 2.0)
    assert fig.axes[0].get_title() == "largest posterior 0.020, bound 0.069 (\u03b5 = 2)"
    plt.close(fig)
    with pytest.raises(ValueError, match="posteriors"):
        figs.plot_attack_posteriors([0.5, 1.5], 0.25, 1.0)
    with pytest.raises(ValueError, match="prior"):
        figs.plot_attack_posteriors([0.5], 1.5, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_attack_posteriors([0.5], 0.25, 0.0)


def test_units_of_privacy_figure_states_epsilon_per_unit():
    """Group privacy over a day's events, then basic composition over the days: 0.1 -> 2.4 -> 876, and what a
    1% secret can become at each (1.1%, 10.0%, 100.0%, computed here by hand)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import deidentification as figs

    fig = figs.plot_units_of_privacy(0.1, 24, 365, prior=0.01)
    left, right = fig.axes
    assert [p.get_width() for p in right.patches] == pytest.approx([0.1, 2.4, 876.0])
    by_hand = [math.exp(e) * 0.01 / (math.exp(e) * 0.01 + 0.99) if e < 700 else 1.0 for e in (0.1, 2.4, 876.0)]
    assert [t.get_text() for t in right.texts] == [f"\u03b5 = {e:g} \u2192 {q:.1%}"
                                                    for e, q in zip((0.1, 2.4, 876), by_hand)]
    assert [t.get_text() for t in right.texts][1] == "\u03b5 = 2.4 \u2192 10.0%"
    assert len(left.lines[0].get_xdata()) == 24 * 7       # one dot per event of the days shown
    assert "365 days" in left.get_title() and "24 events a day" in left.get_title()
    plt.close(fig)
    fig = figs.plot_units_of_privacy(0.5, 3, 2, prior=0.5, days_shown=2)
    assert [p.get_width() for p in fig.axes[1].patches] == pytest.approx([0.5, 1.5, 3.0])
    plt.close(fig)
    with pytest.raises(ValueError, match="events_per_day"):
        figs.plot_units_of_privacy(0.1, 0, 365)
    with pytest.raises(ValueError, match="days_shown"):
        figs.plot_units_of_privacy(0.1, 24, 3, days_shown=7)
    with pytest.raises(ValueError, match="prior"):
        figs.plot_units_of_privacy(0.1, 24, 365, prior=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_units_of_privacy(-1.0, 24, 365)


def test_rappor_extreme_parameters_in_log_space():
    # f -> 0: no permanent noise, eps_inf grows like 2h ln(2/f); eps_1 is the instantaneous RR's ln(q(1-p)/(p(1-q)))
    eps_inf, eps_1 = de.rappor_epsilon(5e-324, 0.5, 0.75, 1)
    assert eps_inf == pytest.approx(2 * (math.log(2) - math.log(5e-324)), rel=1e-12)
    assert eps_1 == pytest.approx(math.log(0.75 * 0.5 / (0.5 * 0.25)), rel=1e-12)
    # p = 0, q = 1: the report is the memoized bit, so eps_1 = eps_inf
    assert de.rappor_epsilon(0.5, 0.0, 1.0, 2) == pytest.approx((4 * math.log(3), 4 * math.log(3)), rel=1e-12)
    assert all(v >= 0 for v in de.rappor_epsilon(1.0, 0.5, 0.75, 3))


def test_attack_posterior_far_out_counts_are_refused_or_exact_never_wrapped():
    # round 3: a uint64 release above 2**63 was cast to a negative int64 (2**64 - 1 read as -1) and an int64 one near
    # -2**63 wrapped inside y - c0: both gave the posterior of the opposite side (0.269 instead of 0.731) silently
    c0, c1 = [0, 0], [1, 0]                       # add/remove: the target adds one to cell 0
    for released in (np.array([[2**64 - 1, 0]], dtype=np.uint64), np.array([[-2**63, 0]]),
                     np.array([[2**62, 0]], dtype=np.uint64)):
        with pytest.raises(ValueError, match=r"released must hold integers of absolute value below 2\*\*62"):
            de.histogram_attack_posterior(released, c0, c1, epsilon=1.0, relation="add_remove", prior=0.5)
    with pytest.raises(ValueError, match=r"counts_0 must hold integers of absolute value below 2\*\*62"):
        de.histogram_attack_posterior([[0, 0]], np.array([2**63, 0], dtype=np.uint64), c1, epsilon=1.0,
                                      relation="add_remove", prior=0.5)
    # the largest accepted values give the exact answer: far above both hypotheses +eps, far below -eps, per row
    # (three cells: their l1 norms, 3 (2**62 - 1), wrap in int64, but modular arithmetic keeps their small difference)
    top = 2**62 - 1
    far = np.array([[top, top, top], [-top, -top, -top]])
    post = de.histogram_attack_posterior(far, c0 + [0], c1 + [0], epsilon=1.0, relation="add_remove", prior=0.5)
    assert post.tolist() == pytest.approx([1 / (1 + math.exp(-1)), 1 / (1 + math.exp(1))], rel=1e-12)
    post = de.histogram_attack_posterior(np.array([[-top, 0]]), [top, 0], [top - 1, 0], epsilon=1.0,
                                         relation="add_remove", prior=0.5)
    assert post.tolist() == pytest.approx([1 / (1 + math.exp(-1))], rel=1e-12)


def test_attack_posterior_refuses_a_negative_count_in_either_hypothesis():
    with pytest.raises(ValueError, match="non-negative"):
        de.histogram_attack_posterior([[7, 3, 5]], [0, 3, 5], [-1, 3, 5], epsilon=1.0, relation="replace_one",
                                      prior=0.5)
    with pytest.raises(ValueError, match="non-negative"):
        de.histogram_attack_posterior([[7, 3, 5]], [-1, 3, 5], [0, 3, 5], epsilon=1.0, relation="replace_one",
                                      prior=0.5)


@pytest.mark.parametrize("measure", [de.k_anonymity, de.uniqueness, lambda t, q: de.equivalence_classes(t, q)])
def test_an_empty_table_is_refused_by_name(measure):
    with pytest.raises(ValueError, match="table must have at least one row"):
        measure({"a": np.array([], dtype=np.int64)}, ["a"])
