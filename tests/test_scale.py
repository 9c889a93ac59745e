"""Tests of the modules split from dpcourse.scale: contribution bounding (dpcourse.contribution_bounding), optimal
partition selection (dpcourse.partition_selection), the user-level group-by (dpcourse.group_by), the flights loader
(dpcourse.data) and the PipelineDP adaptor (dpcourse.pipeline_dp_adaptor); dpcourse.scale re-exports them."""

from __future__ import annotations

import itertools
import logging
import math
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from dpcourse.contribution_bounding import bound_contributions
from dpcourse.data import load_flights, synthetic_events
from dpcourse.discrete import discrete_laplace_pmf
from dpcourse.group_by import dp_group_by, group_by_noise_scales
from dpcourse.partition_selection import partition_selection_probability, select_partitions

ALPHA = 1e-6


def _greedy(n_max, eps, delta, m):
    """The largest sequence satisfying both (eps1, delta1) constraints, step by step (the definition)."""
    e1 = eps / m
    d1 = -math.expm1(math.log1p(-delta) / m)
    p = [0.0]
    for _ in range(n_max):
        q = p[-1]
        p.append(min(math.exp(e1) * q + d1, 1 - math.exp(-e1) * (1 - q - d1), 1.0))
    return np.array(p)


# ---------------------------------------------------------------------------------------------------
# partition_selection_probability


def _google_keep(eps, delta, m, n_max=60):
    """Google's probability_of_keep(n), n = 0 .. n_max (pydp's truncated geometric strategy)."""
    ps = pytest.importorskip("pydp.algorithms.partition_selection")
    strategy = ps.create_truncated_geometric_partition_strategy(eps, delta, m)
    return np.array([strategy.probability_of_keep(n) for n in range(n_max + 1)])



@pytest.mark.parametrize("eps,delta,m", list(itertools.product([0.5, 1.0, 2.0], [1e-8, 1e-5], [1, 4])))
def test_keep_probability_equals_googles_library(eps, delta, m):
    ref = _google_keep(eps, delta, m)
    mine = partition_selection_probability(np.arange(61), eps, delta, max_partitions=m)
    np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-9)
    assert np.abs(mine - ref).max() <= 1e-9


def test_keep_probability_by_hand():
    # eps = ln 2, delta = 0.1, m = 1: p = 0, .1, .3 (=2*.1+.1), .7 (both constraints), .9 (=1-(1-.7-.1)/2), 1.
    p = partition_selection_probability(np.arange(7), math.log(2), 0.1)
    np.testing.assert_allclose(p, [0, 0.1, 0.3, 0.7, 0.9, 1.0, 1.0], atol=1e-12)


@pytest.mark.parametrize("eps,delta,m", [(0.5, 1e-8, 1), (1.0, 1e-5, 4), (2.0, 1e-3, 3), (0.1, 1e-6, 2),
                                         (3.0, 0.2, 1)])
def test_keep_probability_is_the_greedy_optimum_and_satisfies_the_constraints(eps, delta, m):
    n = np.arange(3000)
    p = partition_selection_probability(n, eps, delta, max_partitions=m)
    np.testing.assert_allclose(p, _greedy(2999, eps, delta, m), rtol=1e-9, atol=1e-12)
    e1, d1 = eps / m, 1 - (1 - delta) ** (1 / m)
    assert p[0] == 0.0 and np.all(np.diff(p) >= 0) and p[-1] == 1.0
    assert np.all(p[1:] <= math.exp(e1) * p[:-1] + d1 + 1e-12)
    assert np.all(1 - p[:-1] <= math.exp(e1) * (1 - p[1:]) + d1 + 1e-12)


def test_keep_probability_scalar_and_shape():
    assert partition_selection_probability(0, 1.0, 1e-5) == 0.0
    assert isinstance(partition_selection_probability(3, 1.0, 1e-5), float)
    assert partition_selection_probability([[1, 2]], 1.0, 1e-5).shape == (1, 2)


# ---------------------------------------------------------------------------------------------------
# bound_contributions


def test_bounding_limits_and_untouched_light_users():
    d = synthetic_events(20_000, n_keys=50, rng=1)
    u, k, v = bound_contributions(d["user_id"], d["key"], d["value"], max_partitions=3, max_per_partition=2,
                                  rng=2)
    pairs, per_pair = np.unique(np.stack([u, k]), axis=1, return_counts=True)
    assert per_pair.max() <= 2
    assert np.bincount(pairs[0]).max() <= 3
    # Each user keeps exactly min(m, #keys) keys and min(c, rows) rows in each kept key.
    all_pairs, all_counts = np.unique(np.stack([d["user_id"], d["key"]]), axis=1, return_counts=True)
    n_keys_user = np.bincount(all_pairs[0], minlength=d["user_id"].max() + 1)
    kept_keys_user = np.bincount(pairs[0], minlength=d["user_id"].max() + 1)
    np.testing.assert_array_equal(kept_keys_user, np.minimum(n_keys_user, 3))
    # Rows carried with their values.
    lookup = dict(zip(d["value"], zip(d["user_id"], d["key"])))
    assert all(lookup[x] == (a, b) for a, b, x in zip(u[:200], k[:200], v[:200]))
    # A dataset within the limits is returned unchanged.
    u2, k2, v2 = bound_contributions([1, 1, 2], ["a", "b", "a"], [1.0, 2.0, 3.0], max_partitions=2,
                                     max_per_partition=1, rng=0)
    assert u2.tolist() == [1, 1, 2] and k2.tolist() == ["a", "b", "a"] and v2.tolist() == [1.0, 2.0, 3.0]


def _chi2_uniform(labels, n_cells):
    counts = np.bincount(labels, minlength=n_cells)
    return stats.chisquare(counts).pvalue


def test_bounding_samples_partitions_uniformly():
    # One user with 4 keys, max_partitions = 2: the 6 pairs of keys are equally likely; another user is
    # present and must not change that (users are bounded independently).
    subsets = {s: i for i, s in enumerate(combinations("abcd", 2))}
    gen = np.random.default_rng(3)
    labels = []
    for _ in range(3000):
        u, k, _ = bound_contributions([7, 7, 7, 7, 7, 9, 9, 9], list("abcdaabc"), None, max_partitions=2,
                                      max_per_partition=5, rng=gen)
        labels.append(subsets[tuple(sorted(set(k[u == 7])))])
    assert _chi2_uniform(np.array(labels), 6) > ALPHA


def test_bounding_samples_rows_uniformly():
    # One (user, key) with 5 rows, max_per_partition = 2: the 10 pairs of rows are equally likely.
    subsets = {s: i for i, s in enumerate(combinations(range(5), 2))}
    gen = np.random.default_rng(4)
    labels = []
    for _ in range(4000):
        _, _, v = bound_contributions([1] * 5 + [2, 2], ["x"] * 7, [0.0, 1.0, 2.0, 3.0, 4.0, 9.0, 9.0],
                                      max_partitions=1, max_per_partition=2, rng=gen)
        labels.append(subsets[tuple(sorted(int(x) for x in v if x < 9))])
    assert _chi2_uniform(np.array(labels), 10) > ALPHA


# ---------------------------------------------------------------------------------------------------
# select_partitions and dp_group_by


def _keys_with_users(sizes):
    """One key per entry of ``sizes``, with that many distinct one-row users."""
    keys = np.repeat(np.arange(len(sizes)), sizes)
    return np.arange(keys.size), keys


def test_select_partitions_keep_rate_matches_probability():
    sizes = [4] * 4000
    users, keys = _keys_with_users(sizes)
    kept = select_partitions(users, keys, 1.0, 1e-2, rng=5).size
    p = partition_selection_probability(4, 1.0, 1e-2)
    assert 0.01 < p < 0.99
    assert stats.binomtest(kept, len(sizes), p).pvalue > ALPHA


def test_select_partitions_refuses_unbounded_users():
    with pytest.raises(ValueError, match="max_partitions"):
        select_partitions([1, 1, 2], ["a", "b", "a"], 1.0, 1e-5, max_partitions=1, rng=0)


def test_group_by_keep_rate_uses_a_third_of_epsilon_and_all_of_delta():
    sizes = [3] * 3000
    users, keys = _keys_with_users(sizes)
    out = dp_group_by(users, keys, np.ones(users.size), 3.0, 0.05, lower=0, upper=1, max_partitions=1,
                      max_per_partition=1, rng=6)
    p = partition_selection_probability(3, 1.0, 0.05)
    assert 0.05 < p < 0.95
    assert stats.binomtest(out["keys"].size, len(sizes), p).pvalue > ALPHA


def test_group_by_exact_with_huge_epsilon():
    # Users within the limits: the release is the exact clamped statistics (noise of scale 4e-6 rounds away).
    users = np.array([1, 1, 2, 3, 3, 3])
    keys = np.array(["a", "b", "a", "a", "b", "b"])
    vals = np.array([5.0, -9.0, 1.0, 2.0, 100.0, 3.0])
    out = dp_group_by(users, keys, vals, 3e6, 0.5, lower=-2, upper=10, max_partitions=2, max_per_partition=2,
                      public_partitions=["a", "b", "c"], rng=0)
    assert out["keys"].tolist() == ["a", "b", "c"]
    assert out["count"].tolist() == [3, 3, 0]
    np.testing.assert_allclose(out["sum"], [8.0, -2.0 + 10.0 + 3.0, 0.0], atol=1e-3)


def _noise_samples(eps, m, c, n_parts, rng, metrics=("count", "sum")):
    """Noisy statistics of empty public partitions: pure noise draws."""
    out = dp_group_by([0], [-1], [0.0], eps, 0.0, metrics=metrics, lower=-1, upper=2, max_partitions=m,
                      max_per_partition=c, public_partitions=np.arange(n_parts), rng=rng)
    return out


def test_group_by_count_noise_is_discrete_laplace_with_the_stated_scale():
    out = _noise_samples(2.0, 2, 3, 20_000, 7)
    scale = group_by_noise_scales(2.0, max_partitions=2, max_per_partition=3, lower=-1, upper=2,
                                  public_partitions=True)["count_scale"]
    assert scale == 2 * 3 / 1.0
    k = np.arange(-60, 61)
    expected = discrete_laplace_pmf(k, scale) * out["count"].size
    observed = np.array([(out["count"] == x).sum() for x in k])
    tails = out["count"].size - observed.sum()
    f_exp = np.append(expected, out["count"].size - expected.sum())
    assert stats.chisquare(np.append(observed, tails), f_exp).pvalue > ALPHA


def test_group_by_sum_noise_is_laplace_with_the_stated_scale():
    out = _noise_samples(2.0, 2, 3, 20_000, 8)
    scales = group_by_noise_scales(2.0, max_partitions=2, max_per_partition=3, lower=-1, upper=2,
                                   public_partitions=True, n_partitions=20_000)
    assert abs(scales["sum_scale"] / (2 * 3 * 2 / 1.0) - 1) < 1e-3
    assert stats.kstest(out["sum"], stats.laplace(scale=scales["sum_scale"]).cdf).pvalue > ALPHA


def test_group_by_neighbours_count_loss_bounded():
    # Exact privacy loss of the released count of one public key: D has the extra user with c rows.
    eps, m, c = 1.0, 1, 3
    scale = group_by_noise_scales(eps, metrics=("count",), max_partitions=m, max_per_partition=c,
                                  public_partitions=True)["count_scale"]
    k = np.arange(-200, 200)
    loss = np.abs(np.log(discrete_laplace_pmf(k - c, scale)) - np.log(discrete_laplace_pmf(k, scale)))
    assert loss.max() <= eps + 1e-9
    # The released count moves by exactly c when the user with c + 1 rows is added (huge epsilon: no noise).
    users, keys = np.arange(50), np.zeros(50, int)
    nb_users, nb_keys = np.concatenate([users, [99] * (c + 1)]), np.zeros(50 + c + 1, int)
    kw = dict(metrics=("count",), max_partitions=m, max_per_partition=c, public_partitions=[0])
    a = dp_group_by(users, keys, None, 1e7, 0.0, rng=9, **kw)["count"]
    b = dp_group_by(nb_users, nb_keys, None, 1e7, 0.0, rng=9, **kw)["count"]
    assert a.tolist() == [50] and b.tolist() == [50 + c]


def test_group_by_is_reproducible_and_private_partitions_drop_rare_keys():
    f = load_flights()
    kwargs = dict(lower=-60, upper=240, max_partitions=4, max_per_partition=2, rng=11)
    a = dp_group_by(f["tailnum"], f["dest"], f["arr_delay"], 1.0, 1e-6, **kwargs)
    b = dp_group_by(f["tailnum"], f["dest"], f["arr_delay"], 1.0, 1e-6, **kwargs)
    assert a["keys"].tolist() == b["keys"].tolist() and np.array_equal(a["sum"], b["sum"])
    n_users = {k: len(set(f["tailnum"][f["dest"] == k])) for k in np.unique(f["dest"])}
    assert all(n_users[k] >= 2 for k in a["keys"])       # a one-aircraft destination has keep prob <= 2.5e-7
    assert 0 < a["keys"].size < len(n_users)


# ---------------------------------------------------------------------------------------------------
# Agreement with PipelineDP (LocalBackend): same noise parameters, same noise distribution.


def _pipeline_dp_counts(eps, m, c, n_parts):
    logging.getLogger().setLevel(logging.ERROR)
    pipeline_dp = pytest.importorskip("pipeline_dp")
    acc = pipeline_dp.NaiveBudgetAccountant(total_epsilon=eps, total_delta=0.0)
    engine = pipeline_dp.DPEngine(acc, pipeline_dp.LocalBackend())
    params = pipeline_dp.AggregateParams(noise_kind=pipeline_dp.NoiseKind.LAPLACE,
                                         metrics=[pipeline_dp.Metrics.COUNT], max_partitions_contributed=m,
                                         max_contributions_per_partition=c)
    ext = pipeline_dp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1],
                                     value_extractor=lambda r: 0.0)
    report = pipeline_dp.report_generator.ExplainComputationReport()
    res = engine.aggregate([(0, -1)], params, ext, public_partitions=list(range(n_parts)),
                           out_explain_computation_report=report)
    acc.compute_budgets()
    counts = np.array([r[1].count for r in res])
    return counts, report.text()


def test_pipeline_dp_reports_the_same_count_scale_and_noise():
    counts, text = _pipeline_dp_counts(1.0, 2, 3, 3000)
    assert "parameter=6.0" in text                        # Laplace b = m c / eps, as group_by_noise_scales
    mine = _noise_samples(1.0, 2, 3, 3000, 12, metrics=("count",))["count"]
    assert group_by_noise_scales(1.0, metrics=("count",), max_partitions=2, max_per_partition=3,
                                 public_partitions=True)["count_scale"] == 6.0
    # Google's Laplace is continuous (to a fine granularity), ours discrete: KS with alpha 1e-6 tolerates
    # the atoms (CDF gap < 0.05 at scale 6) and rejects a factor-2 scale error (gap 0.125).
    assert stats.ks_2samp(counts, mine).pvalue > ALPHA


# ---------------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize("bad,exc", [(0.0, ValueError), (-1.0, ValueError), (float("nan"), ValueError),
                                     (True, TypeError), ("1", TypeError)])
def test_bad_epsilon(bad, exc):
    with pytest.raises(exc, match="epsilon"):
        partition_selection_probability(3, bad, 1e-5)
    with pytest.raises(exc, match="epsilon"):
        dp_group_by([1], [1], [1.0], bad, 1e-5, lower=0, upper=1, max_partitions=1, max_per_partition=1)


@pytest.mark.parametrize("bad", [0.0, 1.0, -1e-3, float("nan")])
def test_bad_delta_for_private_selection(bad):
    with pytest.raises(ValueError, match="delta"):
        partition_selection_probability(3, 1.0, bad)
    with pytest.raises(ValueError, match="delta"):
        select_partitions([1], [1], 1.0, bad)


@pytest.mark.parametrize("bad,exc", [(-1, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                                     (float("inf"), ValueError), ([True], TypeError), ("3", TypeError)])
def test_bad_n_users(bad, exc):
    with pytest.raises(exc, match="n_users"):
        partition_selection_probability(bad, 1.0, 1e-5)


@pytest.mark.parametrize("kwargs,exc,word", [
    (dict(user_ids=[1, 2], keys=[1], values=[1.0, 2.0]), ValueError, "keys"),
    (dict(user_ids=[], keys=["a"], values=[]), ValueError, "user_ids"),   # (an empty table is answered)
    (dict(user_ids=[True, False], keys=[1, 2], values=[1.0, 2.0]), TypeError, "user_ids"),
    (dict(user_ids=[1.0, float("nan")], keys=[1, 2], values=[1.0, 2.0]), ValueError, "user_ids"),
    (dict(user_ids=[1, 2], keys=[[1], [2]], values=[1.0, 2.0]), ValueError, "keys"),
    (dict(user_ids=[1, 2], keys=[1, 2], values=[1.0, float("inf")]), ValueError, "values"),
    (dict(user_ids=[1, 2], keys=[1, 2], values=[1.0]), ValueError, "values"),
    (dict(user_ids=[1, 2], keys=[1, 2], values=[1.0, 2.0], max_partitions=0), ValueError, "max_partitions"),
    (dict(user_ids=[1, 2], keys=[1, 2], values=[1.0, 2.0], max_per_partition=2.5), TypeError,
     "max_per_partition"),
])
def test_bad_columns(kwargs, exc, word):
    args = dict(max_partitions=1, max_per_partition=1) | kwargs
    with pytest.raises(exc, match=word):
        bound_contributions(**args)


def test_bad_group_by_options():
    base = dict(user_ids=[1, 2], keys=[1, 2], values=[1.0, 2.0], epsilon=1.0, delta=1e-5, max_partitions=1,
                max_per_partition=1)
    with pytest.raises(ValueError, match="lower and upper"):
        dp_group_by(**base)
    with pytest.raises(ValueError, match="upper must be given"):
        dp_group_by(**base, lower=0)
    with pytest.raises(ValueError, match="lower must be given"):
        dp_group_by(**base, upper=1)
    with pytest.raises(ValueError, match="lower"):
        dp_group_by(**base, lower=2, upper=1)
    with pytest.raises(ValueError, match="upper"):
        dp_group_by(**base, lower=0, upper=float("inf"))
    with pytest.raises(TypeError, match="lower"):
        dp_group_by(**base, lower="0", upper=1)
    with pytest.raises(ValueError, match="metrics"):
        dp_group_by(**base, lower=0, upper=1, metrics=("mean",))
    with pytest.raises(TypeError, match="metrics"):
        dp_group_by(**base, lower=0, upper=1, metrics="count")
    with pytest.raises(ValueError, match="values"):
        dp_group_by(**(base | {"values": None}), lower=0, upper=1)
    with pytest.raises(ValueError, match="delta"):
        dp_group_by(**(base | {"delta": 0.0}), lower=0, upper=1)
    with pytest.raises(TypeError, match="rng"):
        dp_group_by(**base, lower=0, upper=1, rng=1.5)
    with pytest.raises(ValueError, match="lower must be < upper"):
        group_by_noise_scales(1.0, lower=-0.0, upper=0.0, max_partitions=1, max_per_partition=1)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_deprecated_bounds_keyword_is_checked_as_before():
    """bounds=(lower, upper) is the old spelling, still used by the chapter: refused the same way."""
    base = dict(user_ids=[1, 2], keys=[1, 2], values=[1.0, 2.0], epsilon=1.0, delta=1e-5, max_partitions=1,
                max_per_partition=1)
    with pytest.raises(ValueError, match="bounds"):
        dp_group_by(**base, bounds=(2, 1))
    with pytest.raises(TypeError, match="bounds"):
        dp_group_by(**base, bounds=5)
    with pytest.raises(ValueError, match=r"bounds\[0\] must be < bounds\[1\]"):
        dp_group_by(**base, bounds=(0, 0.0))
    with pytest.raises(TypeError, match="not both"):
        dp_group_by(**base, bounds=(0, 1), lower=0, upper=1)
    with pytest.raises(TypeError, match="not both"):
        group_by_noise_scales(1.0, bounds=(0, 1), upper=1, max_partitions=1, max_per_partition=1)


# ---------------------------------------------------------------------------------------------------
# Exercise checkers and figures


def test_checkers_accept_the_answers_and_name_the_slips():
    from dpcourse.exercises.scale import check_keep_sequence, check_sum_scale, check_user_level_epsilon

    assert check_sum_scale(5760.0).passed and check_sum_scale(5761.0).passed
    assert not check_sum_scale(1920.0).passed and "share" in check_sum_scale(1920.0).message
    assert "width" in check_sum_scale(7200.0).message
    assert not check_sum_scale("5760").passed and "not a valid answer" in check_sum_scale("5760").message
    assert not check_sum_scale(float("nan")).passed and not check_sum_scale(-5760.0).passed
    assert check_user_level_epsilon(2.0).passed and "20 rows" in check_user_level_epsilon(0.1).message

    def greedy(n_max, eps, delta):
        return _greedy(n_max, eps, delta, 1)

    def one_constraint(n_max, eps, delta):
        p = [0.0]
        for _ in range(n_max):
            p.append(min(math.exp(eps) * p[-1] + delta, 1.0))
        return np.array(p)

    def first_regime_only(n_max, eps, delta):   # not private: past the crossover the drop constraint fails
        n = np.arange(n_max + 1)
        return np.minimum(delta * np.expm1(n * eps) / math.expm1(eps), 1.0)

    def capped(n_max, eps, delta):              # private (both constraints hold) but not optimal
        return np.minimum(_greedy(n_max, eps, delta, 1), 0.5)

    def cheat(n_max, eps, delta):
        return partition_selection_probability(np.arange(n_max + 1), eps, delta)

    assert check_keep_sequence(greedy).passed
    assert "fails" in check_keep_sequence(one_constraint).message
    assert "1 - p[n-1]" in check_keep_sequence(first_regime_only).message
    assert "not optimal" in check_keep_sequence(capped).message
    assert not check_keep_sequence(cheat).passed
    assert not check_keep_sequence(lambda n, e, d: np.zeros(3)).passed


def test_keep_sequence_checker_checks_privacy_before_closeness():
    """p* + 1e-9 is within 1e-9 of the optimum in absolute terms, but at delta = 1e-8 it breaks
    p(1) <= delta by 10%: it must be refused by the constraint, not accepted as close to the optimum."""
    from dpcourse.exercises.scale import check_keep_sequence

    def too_generous(n_max, eps, delta):
        p = _greedy(n_max, eps, delta, 1) + 1e-9
        p[0] = 0.0
        return np.minimum(p, 1.0)

    res = check_keep_sequence(too_generous)
    assert not res.passed and "p[n] <= e^eps p[n-1] + delta fails at n = 1" in res.message

    def too_generous_at_small_delta(n_max, eps, delta):   # exact elsewhere, +1e-9 only where delta = 1e-8
        p = _greedy(n_max, eps, delta, 1)
        if delta == 1e-8:
            p[1:] = np.minimum(p[1:] + 1e-9, 1.0)
        return p

    res = check_keep_sequence(too_generous_at_small_delta)
    assert not res.passed and "fails at n = 1" in res.message and "delta=1e-08" in res.message

    def slightly_short(n_max, eps, delta):               # private, but a relative 1e-6 below the optimum
        return _greedy(n_max, eps, delta, 1) * (1 - 1e-6)

    assert "not optimal" in check_keep_sequence(slightly_short).message


def test_bounding_tradeoff_numbers():
    from dpcourse.plots.scale import bounding_tradeoff

    res = bounding_tradeoff((1, 4, 64), epsilon=1.0, max_per_partition=4, rng=0)
    assert np.all(np.diff(res["bias"]) <= 0)                # larger bounds drop fewer flights
    assert np.allclose(res["noise"][1:] / res["noise"][:-1], [4.0, 16.0], rtol=0.05)   # noise std grows ~ m
    assert np.all(res["total"] >= np.maximum(res["bias"], res["noise"]) - 1e-12)


def test_bounding_by_hand_figure_states_what_one_aircraft_moves():
    """The chapter's first figure: the busiest aircraft (186 flights) before bounding, and after it at most
    m destinations with at most c flights each, the rows bound_contributions keeps with the same seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots.scale import plot_bounding_by_hand

    flights = load_flights()
    tails, per_tail = np.unique(flights["tailnum"], return_counts=True)
    busiest = str(tails[np.argmax(per_tail)])
    fig = plot_bounding_by_hand(seed=2016)
    left, right = fig.axes
    before = np.array([p.get_width() for p in left.patches])
    after = np.array([p.get_width() for p in right.patches])
    assert before.sum() == per_tail.max() == 186
    assert left.get_title() == f"{busiest}: 186 flights\nmoves the counts by 186"
    # bounding: at most m = 4 destinations, at most c = 2 flights each, never more than the aircraft flew there
    assert np.count_nonzero(after) <= 4 and after.max() <= 2 and np.all(after <= before)
    u, k, _ = bound_contributions(flights["tailnum"], flights["dest"], max_partitions=4, max_per_partition=2,
                                  rng=2016)
    kept = k[u == busiest]
    labels = [t.get_text() for t in left.get_yticklabels()]
    assert after.tolist() == [int(np.sum(kept == d)) for d in labels]
    assert right.get_title() == (f"bounded, m = 4, c = 2: {int(after.sum())} flights\n"
                                 "any aircraft moves them by \u2264 8")
    plt.close(fig)
    fig = plot_bounding_by_hand(str(tails[0]), max_partitions=1, max_per_partition=3, seed=1)
    after = np.array([p.get_width() for p in fig.axes[1].patches])
    assert np.count_nonzero(after) <= 1 and after.max() <= 3 and "\u2264 3" in fig.axes[1].get_title()
    plt.close(fig)
    with pytest.raises(ValueError, match="tailnum"):
        plot_bounding_by_hand("not an aircraft")
    with pytest.raises(ValueError, match="max_partitions"):
        plot_bounding_by_hand(max_partitions=0)


# ---------------------------------------------------------------------------------------------------
# The release's exact coins (issue 21, item 4): integer thresholds that meet (epsilon, delta) exactly.

from decimal import ROUND_FLOOR, Decimal, localcontext  # noqa: E402
from fractions import Fraction  # noqa: E402

from dpcourse.partition_selection import _integer_coin, partition_selection_thresholds  # noqa: E402

BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64]
EPS_MAX, DELTA_MIN = float(np.finfo(float).max), 5e-324   # the largest epsilon and smallest delta accepted


def _exp_lower(eps, m):
    """A rational lower bound of e^(eps/m), independent of dpcourse: the decimal module's exp is correctly
    rounded (120 digits), one unit of the last place below it; exponents above 5000 are cut to 5000."""
    with localcontext() as ctx:
        ctx.prec, ctx.rounding = 120, ROUND_FLOOR
        x = min(Decimal(eps) / m, Decimal(5000))
        return Fraction(x.exp().next_minus())


def _achieved_delta(thresholds, denominator, eps, m):
    """Exact per-partition delta of the coins T(n)/K at e^(eps/m) (an upper bound: L <= e^(eps/m)), over
    n = 0 .. len - 1, then the m-fold composition 1 - (1 - delta1)^m: the delta the release really meets."""
    L = _exp_lower(eps, m)
    a, b, big = L.numerator, L.denominator, denominator
    t = [int(x) for x in thresholds]
    worst = 0
    for t0, t1 in zip(t[:-1], t[1:]):   # the four inequalities of scale-thm-optimal-selection, times K b
        worst = max(worst, t1 * b - a * t0, (big - t0) * b - a * (big - t1), t0 * b - a * t1,
                    (big - t1) * b - a * (big - t0))
    delta1 = Fraction(worst, big * b)
    return 1 - (1 - delta1) ** m, delta1


def _float_coin_thresholds(eps, delta, m, n_max):
    """What the float coin ``rng.random() < p`` of the old release kept with: ceil(2^53 p) / 2^53."""
    p = partition_selection_probability(np.arange(n_max + 1), eps, delta, max_partitions=m)
    return [math.ceil(Fraction(float(x)) * 2**53) for x in p], 2**53


def _thresholds_to_saturation(eps, delta, m, n_cap=2000):
    th = partition_selection_thresholds(np.arange(n_cap + 1), eps, delta, max_partitions=m)
    t = list(th.thresholds)
    end = t.index(th.denominator) + 1 if th.denominator in t else len(t)
    return t[:end + 1], th


@pytest.mark.parametrize("eps,delta,m", list(itertools.product([1e-3, 1.0, 15.0, 20.0, EPS_MAX],
                                                                [0.5, 1e-6, 1e-12, DELTA_MIN], [1, 3])))
def test_release_thresholds_meet_epsilon_delta_exactly(eps, delta, m):
    """Every (epsilon, delta) accepted: from 1e-3 to the largest float, delta down to the smallest; checked
    in integer arithmetic on n = 0 .. saturation (at most 2000), with p(0) = 0 and p non-decreasing."""
    t, th = _thresholds_to_saturation(eps, delta, m)
    assert t[0] == 0 and all(x <= y for x, y in zip(t[:-1], t[1:])) and t[-1] <= th.denominator
    total, delta1 = _achieved_delta(t, th.denominator, eps, m)
    assert total <= Fraction(delta)
    assert delta1 >= th.delta_per_partition           # the bound used is reached (no free slack)
    assert th.exp_epsilon_lower <= _exp_lower(eps, m)  # and L is below e^(eps/m)
    if eps == EPS_MAX:                                  # a huge epsilon: T reaches K in three steps
        assert t.index(th.denominator) <= 3


@pytest.mark.parametrize("eps,excess", [(15.0, 16), (20.0, 9000)])
def test_the_float_coin_failed_the_same_check(eps, excess):
    """The check above can fail: the old float coin broke delta = 1e-12 by a factor 16.5 / 9,300."""
    t, big = _float_coin_thresholds(eps, 1e-12, 1, 60)
    total, _ = _achieved_delta(t, big, eps, 1)
    assert total > excess * Fraction(1e-12)
    t, th = _thresholds_to_saturation(eps, 1e-12, 1)
    assert _achieved_delta(t, th.denominator, eps, 1)[0] <= Fraction(1e-12)


@pytest.mark.parametrize("eps,delta,m", list(itertools.product([0.5, 1.0, 2.0], [1e-8, 1e-5], [1, 4])))
def test_release_thresholds_are_googles_rule_within_1e_9_and_below_it(eps, delta, m):
    ref = _google_keep(eps, delta, m)
    th = partition_selection_thresholds(np.arange(61), eps, delta, max_partitions=m)
    exact = np.array([float(Fraction(int(t), th.denominator)) for t in th.thresholds])
    assert np.abs(exact - ref).max() <= 1e-9
    p = partition_selection_probability(np.arange(61), eps, delta, max_partitions=m)
    assert np.all(exact <= p + 1e-15)


def _twin(bit_generator, seed):
    return np.random.Generator(bit_generator(seed)), np.random.Generator(bit_generator(seed))


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_integer_coin_is_exactly_u_below_t(bit_generator):
    """Thresholds placed on the very integers the coin will draw: T = U must drop, T = U + 1 keep."""
    gen, twin = _twin(bit_generator, 21)
    u = twin.integers(0, 2**64, size=(6, 2), dtype=np.uint64)
    u_int = [int(r[0]) << 64 | int(r[1]) for r in u]
    targets = [u_int[0], u_int[1] + 1, u_int[2] - 1, u_int[3] + 2**64, u_int[4] - 2**64, 0]
    words = np.array([[t >> 64, t & (2**64 - 1)] for t in targets], dtype=np.uint64)
    full = np.array([False] * 5 + [True])
    assert _integer_coin(gen, words, full).tolist() == [False, True, False, True, False, True]


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_select_partitions_draws_the_documented_coin(bit_generator):
    """Keep iff U < T(n), U the row of rng.integers(0, 2**64, size=(n_keys, k // 64)) of the sorted key."""
    sizes = np.arange(1, 400) % 9 + 1
    users, keys = _keys_with_users(sizes)
    gen, twin = _twin(bit_generator, 22)
    kept = select_partitions(users, keys, 3.0, 1e-3, rng=gen)
    th = partition_selection_thresholds(sizes, 3.0, 1e-3)
    w = th.denominator.bit_length() // 64
    u = twin.integers(0, 2**64, size=(sizes.size, w), dtype=np.uint64)
    u_int = [sum(int(x) << (64 * (w - 1 - j)) for j, x in enumerate(r)) for r in u]
    expected = [k for k, x, t in zip(range(sizes.size), u_int, th.thresholds) if x < t]
    assert kept.tolist() == expected and 0 < len(expected) < sizes.size


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_keep_rate_matches_the_threshold_for_every_bit_generator(bit_generator):
    sizes = [4] * 4000
    users, keys = _keys_with_users(sizes)
    th = partition_selection_thresholds(4, 1.0, 1e-2)
    p = float(Fraction(int(th.thresholds), th.denominator))
    assert 0.05 < p < 0.95
    kept = select_partitions(users, keys, 1.0, 1e-2, rng=np.random.Generator(bit_generator(23))).size
    assert stats.binomtest(kept, len(sizes), p).pvalue > ALPHA
    out = dp_group_by(users, keys, None, 2.0, 1e-2, metrics=("count",), max_partitions=1, max_per_partition=1,
                      rng=np.random.Generator(bit_generator(24)))
    assert stats.binomtest(out["keys"].size, len(sizes), p).pvalue > ALPHA


@pytest.mark.parametrize("delta,m", [(1e-6, 3), (0.3, 7), (DELTA_MIN, 3), (1e-12, 1000)])
def test_delta_split_is_certified_whatever_the_float_delta1(delta, m):
    """The per-partition D / K composes to at most delta exactly, even from a wrong or underflowed float
    delta1 (too large: the whole delta; too small: 0)."""
    from dpcourse.partition_selection import _certified_parameters

    good = -math.expm1(math.log1p(-delta) / m)
    for delta1 in (good, delta, 0.0, good * (1 + 1e-12)):
        _, d, k = _certified_parameters(0.5, delta1, delta, m)
        assert 1 - (1 - Fraction(d, 2**k)) ** m <= Fraction(delta)
        assert Fraction(d, 2**k) >= Fraction(delta) / m * (1 - Fraction(1, 2**30))   # and nothing is wasted


def test_threshold_sequence_length_stated_in_the_docstring():
    """219 steps to T = K at eps1 = 0.1, delta = 1e-6 (the cost the docstring of
    partition_selection_thresholds states)."""
    from dpcourse.partition_selection import _certified_parameters, _per_partition_parameters, _threshold_sequence

    a, d, k = _certified_parameters(*_per_partition_parameters(0.1, 1e-6, 1), 1e-6, 1)
    seq = _threshold_sequence(a, d, k, 10**6)
    assert len(seq) == 219 and seq[-1] == 2**k and seq[-2] < 2**k


# ----------------------------------------------------------------------------------------------------
# The certified sequence: built to saturation from public parameters only, with a cap (issue 21).

def _fresh_sequences(monkeypatch):
    """The module that holds the threshold sequences (patched there: dpcourse.scale only re-exports)."""
    import dpcourse.partition_selection as selection
    monkeypatch.setattr(selection, "_SEQUENCES", {})
    return selection


def test_threshold_work_depends_on_public_parameters_only(monkeypatch):
    """The sequence is built to T = K whatever the largest user count asked for (the private count of
    select_partitions): a count of 0 builds all 219 steps, a count of 10**12 (a hang before) reuses them."""
    scale = _fresh_sequences(monkeypatch)
    partition_selection_thresholds([0], 0.1, 1e-6)
    (seq,) = scale._SEQUENCES.values()
    assert len(seq) == 219 and seq[-1] == 2**128
    th = partition_selection_thresholds([5, 10**12], 0.1, 1e-6)
    assert th.thresholds[0] == seq[5] and th.thresholds[1] == th.denominator
    assert list(scale._SEQUENCES.values()) == [seq]       # nothing built beyond saturation


@pytest.mark.parametrize("eps,delta,m", [(1e-9, 1e-12, 1), (1e-3, 1e-100, 3), (1e-300, 1e-7, 1), (1e-3, DELTA_MIN, 1)])
def test_selection_refused_by_name_when_the_sequence_passes_the_cap(monkeypatch, eps, delta, m):
    """Public parameters whose sequence would run past SELECTION_MAX_STEPS are refused before anything is
    built by select_partitions and dp_group_by, for the empty table too (the refusal does not depend on the
    data), and by partition_selection_thresholds for a (public) count above the cap. Below the cap that
    function answers for the counts asked, building no further (the chapter checks such prefixes)."""
    scale = _fresh_sequences(monkeypatch)
    calls = [lambda: partition_selection_thresholds([10**12], eps, delta, max_partitions=m),
             lambda: partition_selection_thresholds([scale.SELECTION_MAX_STEPS + 1], eps, delta, max_partitions=m),
             lambda: select_partitions([], [], eps, delta, max_partitions=m),
             lambda: select_partitions([1], ["a"], eps, delta, max_partitions=m),
             lambda: dp_group_by([], [], None, eps * 2, delta, metrics=("count",), max_partitions=m,
                                 max_per_partition=1)]
    for call in calls:
        with pytest.raises(ValueError, match=r"delta = .*max_partitions = .*SELECTION_MAX_STEPS = 1048576"):
            call()
    assert scale._SEQUENCES == {}
    th = partition_selection_thresholds([0, 3], eps, delta, max_partitions=m)
    assert [len(seq) for seq in scale._SEQUENCES.values()] == [4] and th.thresholds[1] < th.denominator


def test_saturation_estimate_is_within_three_steps_above_the_true_length():
    """The pre-check's estimate of N (first n with T(n) = K) is never below N and at most 3 above, from
    L = 1 (epsilon1 underflowed) to a huge epsilon1, so a refused setting really is over the cap."""
    from dpcourse.partition_selection import _certified_parameters, _per_partition_parameters, _saturation_estimate

    for eps, delta, m in itertools.product([1e-60, 1e-2, 1.0, 20.0, 1e300], [0.9, 1e-3, 1e-12, DELTA_MIN],
                                           [1, 7]):
        params = _certified_parameters(*_per_partition_parameters(eps, delta, m), delta, m)
        est = _saturation_estimate(*params)
        if est > 20_000:
            continue
        t = partition_selection_thresholds(np.arange(int(est) + 2), eps, delta, max_partitions=m).thresholds
        first = list(t).index(2**params[2])
        assert first <= est <= first + 3, (eps, delta, m, first, est)


def test_hard_stop_at_the_cap_when_the_estimate_is_low(monkeypatch):
    """If the estimate were too low the build still stops at the cap: with SELECTION_MAX_STEPS = 217 and the
    estimate disabled, the 218-step sequence of epsilon1 = 0.1, delta = 1e-6 is refused with the same named
    error (and not cached); with the cap at 218 it is built, 219 entries, T(218) = K."""
    scale = _fresh_sequences(monkeypatch)
    monkeypatch.setattr(scale, "_saturation_estimate", lambda a, d, k: 0.0)
    monkeypatch.setattr(scale, "SELECTION_MAX_STEPS", 217)
    with pytest.raises(ValueError, match=r"needs more than 217 steps.*SELECTION_MAX_STEPS = 217"):
        partition_selection_thresholds([3], 0.1, 1e-6)
    assert scale._SEQUENCES == {}
    monkeypatch.setattr(scale, "SELECTION_MAX_STEPS", 218)
    partition_selection_thresholds([3], 0.1, 1e-6)
    (seq,) = scale._SEQUENCES.values()
    assert len(seq) == 219 and seq[-2] < seq[-1] == 2**128


# ----------------------------------------------------------------------------------------------------
# The split of dpcourse.scale (issue 38): named results, lower/upper, old import paths, Beam patched only in use.

def test_results_have_names_and_old_reads_still_work():
    """bound_contributions gives a NamedTuple, group_by_noise_scales and dp_group_by frozen dataclasses that
    read by name as the dicts did (a metric not asked is absent: KeyError, not None)."""
    import dataclasses

    from dpcourse.contribution_bounding import BoundedRows
    from dpcourse.group_by import GroupByNoiseScales, GroupByRelease

    rows = bound_contributions([1, 1, 2], ["a", "b", "a"], None, max_partitions=1, max_per_partition=1, rng=0)
    assert isinstance(rows, BoundedRows) and rows.values is None and rows[1] is rows.keys and len(rows) == 3
    out = dp_group_by([1, 2, 3], ["a", "a", "b"], None, 1e6, 0.0, metrics=("count",), max_partitions=1,
                      max_per_partition=1, public_partitions=["a", "b"], rng=0)
    assert isinstance(out, GroupByRelease) and isinstance(out.scales, GroupByNoiseScales)
    assert out["keys"] is out.keys and out["count"] is out.count and out.count.tolist() == [2, 1]
    assert out.sum is None and "sum" not in out and "count" in out and list(out) == ["keys", "count", "scales"]
    with pytest.raises(KeyError):
        out["sum"]
    with pytest.raises(KeyError):
        out.scales["sum_scale"]
    assert out["scales"]["count_scale"] == out.scales.count_scale == 1e-6   # m c / epsilon (public keys)
    assert out.scales.as_dict() == {"epsilon_selection": 0.0, "epsilon_count": 1e6, "count_scale": 1e-6,
                                    "count_std": 0.0}
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.keys = np.array([])
    scales = group_by_noise_scales(1.5, max_partitions=2, max_per_partition=3, lower=0, upper=10)
    assert set(scales.as_dict()) == {"epsilon_selection", "epsilon_count", "count_scale", "count_std", "epsilon_sum",
                                     "sum_scale", "sum_std"}
    assert scales == group_by_noise_scales(1.5, max_partitions=2, max_per_partition=3, lower=0, upper=10)


def test_deprecated_bounds_gives_the_same_release_and_warns_quietly():
    """bounds=(lo, hi) and lower=lo, upper=hi are the same release (same seed, same output); the old spelling
    raises a PendingDeprecationWarning (silent by default, so the chapter's outputs are unchanged)."""
    f = load_flights()
    args = (f["tailnum"], f["dest"], f["arr_delay"], 1.0, 1e-6)
    kw = dict(max_partitions=4, max_per_partition=2, rng=5)
    new = dp_group_by(*args, lower=-60, upper=240, **kw)
    with pytest.warns(PendingDeprecationWarning, match="lower= and upper="):
        old = dp_group_by(*args, bounds=(-60, 240), **kw)
    assert new.keys.tolist() == old.keys.tolist() and new.keys.size > 0
    assert np.array_equal(new.count, old.count) and np.array_equal(new.sum, old.sum)
    assert new.scales == old.scales
    with pytest.warns(PendingDeprecationWarning):
        assert group_by_noise_scales(1.0, bounds=(-60, 240), max_partitions=4, max_per_partition=2) == \
            group_by_noise_scales(1.0, lower=-60, upper=240, max_partitions=4, max_per_partition=2)


def test_old_import_paths_are_the_same_objects():
    import dpcourse
    import dpcourse.scale as scale
    from dpcourse import contribution_bounding, data, group_by, partition_selection, pipeline_dp_adaptor

    homes = {"bound_contributions": contribution_bounding, "dp_group_by": group_by,
             "group_by_noise_scales": group_by, "load_flights": data, "synthetic_events": data,
             "FLIGHT_DELAY_BOUNDS": data, "pipeline_dp_group_by": pipeline_dp_adaptor,
             "pipeline_dp_laplace_parameters": pipeline_dp_adaptor, "quiet_beam_import": pipeline_dp_adaptor,
             "SELECTION_MAX_STEPS": partition_selection, "SelectionTooLongError": partition_selection}
    for name in scale.__all__ + ["SELECTION_MAX_STEPS", "SelectionTooLongError"]:
        assert getattr(scale, name) is getattr(homes.get(name, partition_selection), name), name
    for name in ("bound_contributions", "dp_group_by", "partition_selection_probability", "select_partitions"):
        assert getattr(dpcourse, name) is getattr(scale, name)
    assert scale._keep_probability is partition_selection._keep_probability   # tests/test_exercises_forbidden.py


def test_importing_the_package_and_the_adaptor_leaves_beam_alone():
    """Neither ``import dpcourse`` nor importing dpcourse.scale or the adaptor imports Beam or PipelineDP (so
    nothing in Beam is patched); the patch is in place only while a Beam pipeline runs and restored after."""
    import subprocess
    import sys

    code = ("import sys, dpcourse, dpcourse.scale, dpcourse.pipeline_dp_adaptor\n"
            "print(sorted(m for m in ('apache_beam', 'pipeline_dp', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
    interactive = pytest.importorskip("apache_beam.utils.interactive_utils")
    from dpcourse.pipeline_dp_adaptor import _as_a_script

    before = interactive.is_in_ipython
    with _as_a_script():
        assert interactive.is_in_ipython is not before and interactive.is_in_ipython() is False
    assert interactive.is_in_ipython is before


def test_pipeline_dp_group_by_takes_lower_and_upper_and_names_its_result():
    pytest.importorskip("pipeline_dp")
    from dpcourse.pipeline_dp_adaptor import PipelineDPRelease, pipeline_dp_group_by, pipeline_dp_laplace_parameters

    res = pipeline_dp_group_by(["u", "v"], ["a", "a"], [1.0, 2.0], 3.0, 0.0, lower=0, upper=5, max_partitions=1,
                               max_per_partition=1, public_partitions=["a", "b"])
    assert isinstance(res, PipelineDPRelease) and res["keys"].tolist() == res.keys.tolist() == ["a", "b"]
    b = pipeline_dp_laplace_parameters(res["report"])   # epsilon 3 / 2 per metric (public keys): b = 2/3, 5 * 2/3
    assert b == pytest.approx({"count": 2 / 3, "sum": 10 / 3}, rel=1e-12)
    with pytest.raises(ValueError, match="lower and upper"):
        pipeline_dp_group_by(["u"], ["a"], [1.0], 3.0, 0.0, max_partitions=1, max_per_partition=1,
                             public_partitions=["a"])


SPLIT_PUBLIC = ["dpcourse.contribution_bounding:bound_contributions",
                "dpcourse.partition_selection:partition_selection_probability",
                "dpcourse.partition_selection:partition_selection_thresholds",
                "dpcourse.partition_selection:achieved_selection_delta",
                "dpcourse.partition_selection:select_partitions",
                "dpcourse.group_by:group_by_noise_scales", "dpcourse.group_by:dp_group_by",
                "dpcourse.pipeline_dp_adaptor:quiet_beam_import", "dpcourse.pipeline_dp_adaptor:pipeline_dp_group_by",
                "dpcourse.pipeline_dp_adaptor:pipeline_dp_laplace_parameters",
                "dpcourse.data:load_flights", "dpcourse.data:synthetic_events"]


@pytest.mark.parametrize("name", SPLIT_PUBLIC)
def test_split_functions_follow_the_docstring_rule_and_are_typed(name):
    """The docstring rule of CONTRIBUTING.md (checked by tests/test_docstrings.py's ``problems``), and a type
    hint on every parameter and on the result."""
    import importlib
    import importlib.util
    import inspect
    import os

    spec = importlib.util.spec_from_file_location("_docstring_rule", os.path.join(os.path.dirname(__file__),
                                                                                   "test_docstrings.py"))
    rule = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rule)
    module, attr = name.split(":")
    fn = getattr(importlib.import_module(module), attr)
    assert rule.problems(fn) == [], name
    sig = inspect.signature(fn)
    assert sig.return_annotation is not inspect.Signature.empty, name
    assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()), name


def test_keep_sequence_checker_refuses_the_certified_integer_rule():
    """A student took full marks on hw17's keep sequence through partition_selection's certified integer rule (the
    same keep probabilities, exact): the checker forbids it as it forbids the float rule."""
    from dpcourse.exercises.scale import check_keep_sequence
    from dpcourse.partition_selection import _selection_sequence

    def my_keep(n_max, epsilon, delta):
        seq, a, d, k = _selection_sequence(epsilon, delta, delta, 1, int(n_max))
        seq = seq + [1 << k] * (int(n_max) + 1 - len(seq))
        return np.array([t / 2**k for t in seq[:int(n_max) + 1]])

    result = check_keep_sequence(my_keep)
    assert not result.passed and "yourself" in result.message, result.message
