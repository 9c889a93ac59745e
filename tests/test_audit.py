"""audit_epsilon and clopper_pearson: exact bounds, the confidence guarantee, power, and bad input."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

import dpcourse
from dpcourse.audit import MIN_SAMPLES, AuditEvent, audit_epsilon, clopper_pearson


def laplace_at(epsilon):
    """Sensitivity-1 Laplace mechanism with scale 1/epsilon, drawing `size` outputs at once."""

    def mech(x, rng, size=None):
        return x + rng.laplace(0.0, 1.0 / epsilon, size=size)

    return mech


def rr_at(epsilon):
    """Randomized response on one bit, keeping it with probability e^eps / (1 + e^eps)."""
    keep_prob = math.exp(epsilon) / (1 + math.exp(epsilon))

    def mech(bit, rng, size=None):
        keep = rng.random(size) < keep_prob
        return np.where(keep, bit, 1 - bit)

    return mech


# ---------------------------------------------------------------- Clopper-Pearson


def test_clopper_pearson_closed_forms():
    # k = 0: lower 0, upper solves (1 - p)^n = alpha; k = n: upper 1, lower solves p^n = alpha.
    for n, alpha in [(1, 0.05), (10, 0.025), (1000, 1e-3)]:
        lo, hi = clopper_pearson(0, n, alpha)
        assert lo == 0.0
        assert hi == pytest.approx(1 - alpha ** (1 / n), rel=1e-10)
        lo, hi = clopper_pearson(n, n, alpha)
        assert hi == 1.0
        assert lo == pytest.approx(alpha ** (1 / n), rel=1e-10)


def test_clopper_pearson_inverts_the_binomial_tails():
    n, alpha = 50, 0.05
    k = np.arange(1, n)
    lo, hi = clopper_pearson(k, n, alpha)
    # the lower bound is the p at which seeing >= k successes has probability alpha, and symmetrically
    np.testing.assert_allclose(stats.binom.sf(k - 1, n, lo), alpha, rtol=1e-8)
    np.testing.assert_allclose(stats.binom.cdf(k, n, hi), alpha, rtol=1e-8)
    assert np.all(lo < k / n) and np.all(k / n < hi)


def test_clopper_pearson_coverage_is_at_least_nominal_for_every_p():
    # exact coverage: sum the binomial probabilities of the k whose interval misses p
    n, alpha = 40, 0.1
    k = np.arange(n + 1)
    lo, hi = clopper_pearson(k, n, alpha)
    for p in np.linspace(0.001, 0.999, 157):
        pmf = stats.binom.pmf(k, n, p)
        assert pmf[lo > p].sum() <= alpha + 1e-12
        assert pmf[hi < p].sum() <= alpha + 1e-12


@pytest.mark.parametrize(
    "k, n, alpha, exc, match",
    [
        (-1, 10, 0.05, ValueError, r"k must lie in \[0, n\]"),
        (11, 10, 0.05, ValueError, r"k must lie in \[0, n\]"),
        (0.5, 10, 0.05, TypeError, "k must hold integers"),
        (True, 10, 0.05, TypeError, "k must hold integers"),
        (1, 0, 0.05, ValueError, "n must be an integer >= 1"),
        (1, 10, 0.0, ValueError, "alpha must lie in"),
        (1, 10, 1.0, ValueError, "alpha must lie in"),
        (1, 10, float("nan"), ValueError, "alpha must be a real number, got NaN"),
    ],
)
def test_clopper_pearson_rejects_bad_input(k, n, alpha, exc, match):
    with pytest.raises(exc, match=match):
        clopper_pearson(k, n, alpha)


# ---------------------------------------------------------------- events and results


def test_events_contain_and_print():
    o = np.array([-1.0, 0.0, 0.5, 2.0])
    assert AuditEvent(">", 0.0).contains(o).tolist() == [False, False, True, True]
    assert AuditEvent("<", 0.0).contains(o).tolist() == [True, False, False, False]
    assert AuditEvent("==", 0.5).contains(o).tolist() == [False, False, True, False]
    assert str(AuditEvent(">", 0.25)) == "o > 0.25"
    assert str(AuditEvent("==", np.int64(3))) == "o == 3"


def test_result_is_immutable_and_reproducible():
    res = audit_epsilon(laplace_at(1.0), 0.0, 1.0, 2000, rng=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.lower_bound = 3.0
    assert audit_epsilon(laplace_at(1.0), 0.0, 1.0, 2000, rng=5) == res
    assert res.n_select == res.n_bound == 1000
    assert res.confidence == 0.95 and res.delta == 0.0
    # the reported bound is exactly the one the stored counts give
    alpha = 0.025
    p_lo, _ = clopper_pearson(res.count_p, res.n_bound, alpha)
    _, q_hi = clopper_pearson(res.count_q, res.n_bound, alpha)
    assert res.p_lower == pytest.approx(p_lo, rel=1e-12) and res.q_upper == pytest.approx(q_hi, rel=1e-12)
    assert res.lower_bound == pytest.approx(max(0.0, math.log(p_lo / q_hi)), rel=1e-12)
    assert res.estimate == pytest.approx(math.log(res.count_p / res.count_q), rel=1e-12)
    assert str(res).startswith(f"epsilon >= {res.lower_bound:.4f} with confidence 0.95")
    assert f"{res.count_p} vs {res.count_q} of 1000 bounding draws" in str(res)


# ---------------------------------------------------------------- the properties the issue asks for


def test_laplace_one_million_samples_is_tight_and_valid():
    res = audit_epsilon(laplace_at(1.0), 0.0, 1.0, 1_000_000, rng=2026)
    assert 0.9 <= res.lower_bound <= 1.0
    assert res.event.kind in (">", "<")
    assert not res.refutes(1.0)


def test_bound_exceeds_truth_no_more_often_than_confidence_allows():
    # 200 independent audits at confidence 0.95: the number of bounds above the true epsilon = 1 is
    # stochastically at most Binomial(200, 0.05). The point estimate, which is not a bound, fails this.
    runs, conf = 200, 0.95
    seeds = np.random.SeedSequence(7).spawn(runs)
    results = [audit_epsilon(laplace_at(1.0), 0.0, 1.0, 2000, rng=np.random.default_rng(s), confidence=conf)
               for s in seeds]
    above = sum(r.lower_bound > 1.0 for r in results)
    assert stats.binom.sf(above - 1, runs, 1 - conf) > 1e-6
    estimates_above = sum(r.estimate > 1.0 for r in results)
    assert stats.binom.sf(estimates_above - 1, runs, 1 - conf) < 1e-6


def fifty_sided_die(x, rng, size=None):
    """50 outcomes, each with probability ratio exactly e between the inputs 0 and 1 (the pair's epsilon is 1)."""
    weights = np.r_[np.full(25, math.e), np.ones(25)]
    p = weights / weights.sum()
    return rng.choice(50, size=size, p=p[::-1] if x else p)


def reusing_draws(mechanism):
    """The same mechanism, but the second half of its draws repeats the first: selection sees the bounding draws."""

    def mech(x, rng, size=None):
        half = mechanism(x, rng, size=size // 2)
        return np.r_[half, half]

    return mech


def count_above(mechanism, runs, confidence, n=2000):
    seeds = np.random.SeedSequence(17).spawn(runs)
    return sum(audit_epsilon(mechanism, 0, 1, n, rng=np.random.default_rng(s), confidence=confidence).lower_bound > 1.0
               for s in seeds)


def test_guarantee_holds_where_selection_is_tempted_by_the_winners_curse():
    # 100 candidate (outcome, direction) pairs, all with ratio exactly e: selecting the best-looking one is
    # where a bound computed on the selection draws overshoots. At confidence 0.5 the theorem allows at most
    # half of the runs above the truth; a correct split stays well below, and reusing the selection draws
    # for the bound (the bug the split prevents) overshoots in almost every run, so this test can fail.
    runs, conf = 200, 0.5
    limit = stats.binom.isf(1e-6, runs, 1 - conf)
    assert count_above(fifty_sided_die, runs, conf) <= limit
    assert count_above(reusing_draws(fifty_sided_die), runs, conf) > limit


def test_discrete_outcomes_bound_randomized_response():
    res = audit_epsilon(rr_at(1.0), 0, 1, 100_000, rng=3)
    assert res.event.kind == "=="
    assert 0.9 <= res.lower_bound <= 1.0


def test_a_mechanism_weaker_than_claimed_is_flagged():
    res = audit_epsilon(laplace_at(1.3), 0.0, 1.0, 200_000, rng=11)
    assert res.lower_bound > 1.0
    assert res.refutes(1.0)
    assert res.lower_bound <= 1.3


def test_delta_accounts_for_a_rare_catastrophe():
    # With probability 0.01 the input is published in the clear; otherwise Laplace with epsilon = 1.
    # The mechanism is (1, 0.01)-DP on the pair, and not epsilon-DP for any finite epsilon.
    def leaky(x, rng, size=None):
        return np.where(rng.random(size) < 0.01, 1000.0 + x, x + rng.laplace(0.0, 1.0, size=size))

    at_zero = audit_epsilon(leaky, 0.0, 1.0, 100_000, rng=4)
    assert at_zero.lower_bound > 3.0
    with_delta = audit_epsilon(leaky, 0.0, 1.0, 100_000, rng=4, delta=0.01)
    assert with_delta.delta == 0.01
    assert 0.8 <= with_delta.lower_bound <= 1.0


def test_both_directions_are_searched():
    # One-sided mechanism: from x = 1 the output is never below 1, from x = 0 it often is.
    def shifted_exponential(x, rng, size=None):
        return x + rng.exponential(1.0, size=size)

    res = audit_epsilon(shifted_exponential, 1.0, 0.0, 10_000, rng=8)
    assert res.direction == "x' -> x"
    assert res.count_q == 0 and res.lower_bound > 3.0
    swapped = audit_epsilon(shifted_exponential, 0.0, 1.0, 10_000, rng=8)
    assert swapped.direction == "x -> x'"


def test_scalar_mechanisms_are_called_once_per_draw_and_vectorized_ones_once():
    calls = {"scalar": 0, "vector": 0}

    def scalar(x, rng):
        calls["scalar"] += 1
        return x + rng.laplace()

    def vector(x, rng, *, size):
        calls["vector"] += 1
        return x + rng.laplace(size=size)

    audit_epsilon(scalar, 0.0, 1.0, 300, rng=1)
    audit_epsilon(vector, 0.0, 1.0, 300, rng=1)
    assert calls == {"scalar": 600, "vector": 2}


def test_string_and_bool_outputs_use_outcome_events():
    def coin(x, rng, size=None):
        return np.where(rng.random(size) < (0.8 if x else 0.2), "heads", "tails")

    res = audit_epsilon(coin, True, False, 20_000, rng=9)
    assert res.event.kind == "==" and res.event.value in ("heads", "tails")
    assert res.lower_bound <= math.log(4) and res.lower_bound > 1.2

    def flip(x, rng, size=None):
        return rng.random(size) < (0.75 if x else 0.25)

    assert audit_epsilon(flip, 1, 0, 20_000, rng=9).lower_bound <= math.log(3)


def test_identical_distributions_give_zero():
    # the pair's epsilon is 0: a positive bound would be a (legitimate, at most 5%) false alarm; this seed has none
    res = audit_epsilon(laplace_at(1.0), 0.0, 0.0, 5000, rng=1)
    assert res.lower_bound == 0.0


# ---------------------------------------------------------------- bad input


def good_mech(x, rng, size=None):
    return x + rng.laplace(size=size)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(mechanism=3.0), TypeError, "mechanism must be callable"),
        (dict(n_samples=MIN_SAMPLES - 1), ValueError, "n_samples must be an integer >= 100"),
        (dict(n_samples=1000.0), TypeError, "n_samples must be an integer"),
        (dict(n_samples=True), TypeError, "n_samples must be an integer >= 100, got the bool"),
        (dict(confidence=0.0), ValueError, "confidence must lie in"),
        (dict(confidence=1.0), ValueError, "confidence must lie in"),
        (dict(confidence=float("nan")), ValueError, "confidence must be a real number, got NaN"),
        (dict(confidence="0.95"), TypeError, "confidence must be a real number"),
        (dict(delta=1.0), ValueError, "delta must lie in"),
        (dict(delta=-0.1), ValueError, "delta must lie in"),
        (dict(delta=float("inf")), ValueError, "delta must be finite"),
        (dict(events="intervals"), ValueError, "events must be one of"),
        (dict(rng=-1), ValueError, "rng seed must be >= 0"),
        (dict(rng=1.5), TypeError, "rng must be None"),
    ],
)
def test_bad_arguments_are_refused(kwargs, exc, match):
    args = dict(mechanism=good_mech, x=0.0, x_prime=1.0, n_samples=1000)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        audit_epsilon(args.pop("mechanism"), args.pop("x"), args.pop("x_prime"), args.pop("n_samples"), **args)


def test_bad_mechanism_outputs_are_refused():
    with pytest.raises(ValueError, match="one scalar output per draw"):
        audit_epsilon(lambda x, rng, size=None: rng.random((size, 2)), 0, 1, 200)
    with pytest.raises(ValueError, match="returned NaN on x_prime"):
        audit_epsilon(lambda x, rng, size=None: np.full(size, np.nan if x else 0.0), 0, 1, 200)
    with pytest.raises(TypeError, match="numbers or strings"):
        audit_epsilon(lambda x, rng: {"a": x}, 0, 1, 200)
    with pytest.raises(ValueError, match="threshold events need numeric outputs"):
        audit_epsilon(lambda x, rng, size=None: np.full(size, "a"), 0, 1, 200, events="thresholds")


def test_audit_epsilon_is_exported():
    assert dpcourse.audit_epsilon is audit_epsilon


# ---------------------------------------------------------------- exercise checker and figures


def reference_mean(x, lower, upper, epsilon, rng):
    return np.clip(x, lower, upper).mean() + rng.laplace(0.0, (upper - lower) / (len(x) * epsilon))


def test_checker_accepts_the_reference_answer():
    from dpcourse.exercises.audit import check_clamped_mean

    res = check_clamped_mean(reference_mean)
    assert res.passed and "no audit refuted" in res.message


@pytest.mark.parametrize(
    "student, hint",
    [
        (lambda x, lo, hi, eps, rng: x.mean() + rng.laplace(0.0, (hi - lo) / (len(x) * eps)),
         "a record outside [lower, upper] moves your release"),
        (lambda x, lo, hi, eps, rng: np.clip(x, lo, hi).mean() + rng.laplace(0.0, (hi - lo) * eps / len(x)),
         "even between records inside the bounds"),
        (lambda x, lo, hi, eps, rng: np.clip(x, lo, hi).mean() + rng.laplace(0.0, (hi - lo) / eps),
         "more than twice what the sensitivity"),
        (lambda x, lo, hi, eps, rng: 0.0, "should be centred on the true mean"),
        (lambda x, lo, hi, eps, rng: x, "should return one number"),
        (lambda x, lo, hi, eps, rng: 1 / 0, "raised ZeroDivisionError"),
        ("not a function", "pass the function itself"),
    ],
)
def test_checker_explains_typical_mistakes_without_the_answer(student, hint):
    from dpcourse.exercises.audit import check_clamped_mean

    res = check_clamped_mean(student)
    assert not res.passed
    assert hint in res.message
    assert "np.clip" not in res.message and "/ (n" not in res.message


def test_audit_lower_bounds_and_figure():
    import matplotlib.pyplot as plt

    from dpcourse.plots.audit import audit_lower_bounds, plot_audit_runs

    lbs = audit_lower_bounds(true_epsilon=1.3, n_samples=2000, runs=5, seed=1)
    assert lbs.shape == (5,) and np.all(lbs >= 0) and np.all(lbs <= 1.3)
    np.testing.assert_array_equal(lbs, audit_lower_bounds(true_epsilon=1.3, n_samples=2000, runs=5, seed=1))
    fig = plot_audit_runs(1.3, 1.0, 1000, runs=5, seed=1)
    assert "audits with 1,000 draws" in fig.axes[0].get_title()
    plt.close(fig)
    with pytest.raises(ValueError, match="true_epsilon must lie in"):
        audit_lower_bounds(true_epsilon=0.0)
    with pytest.raises(ValueError, match="n_samples must be an integer >= 100"):
        audit_lower_bounds(n_samples=10)


def test_attack_event_summary_counts_the_event_exactly():
    from dpcourse.plots.audit import attack_event_summary

    # 3 of 4 outputs of x and 1 of 4 of x' lie strictly below 2.5; 2.0 lies below and 3.0 does not
    s = attack_event_summary([0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0], 2.5)
    assert (s["p"], s["q"]) == (0.75, 0.25) and s["log_ratio"] == pytest.approx(math.log(3.0), rel=1e-15)
    # strictly below: an output equal to the threshold is outside the event
    assert attack_event_summary([1.0, 2.0], [2.0, 2.0], 2.0) == {"p": 0.5, "q": 0.0, "log_ratio": math.inf}
    assert attack_event_summary([3.0], [1.0], 2.0)["log_ratio"] == -math.inf
    # on exact Laplace outputs of a 1.2-DP count the estimate sits near the pair's epsilon, 1.2 (not 1)
    rng = np.random.default_rng(4)
    a, b = laplace_at(1.2)(0.0, rng, size=200_000), laplace_at(1.2)(1.0, rng, size=200_000)
    est = attack_event_summary(a, b, 0.0)["log_ratio"]
    # standard error of ln(p/q) here is about sqrt((1-p)/(n p) + (1-q)/(n q)) = 0.0063; 6 se is 0.038
    assert abs(est - 1.2) < 0.04
    with pytest.raises(ValueError, match="threshold"):
        attack_event_summary([1.0], [2.0], float("nan"))
    with pytest.raises(ValueError, match="outputs_x"):
        attack_event_summary([], [2.0], 0.0)


def test_attack_event_figure():
    import matplotlib.pyplot as plt

    from dpcourse.plots.audit import plot_attack_event

    fig = plot_attack_event([0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0], 2.5, claimed_epsilon=1.0)
    title = fig.axes[0].get_title()
    assert "0.750" in title and "0.250" in title and "= 1.10 > claimed ε = 1" in title
    plt.close(fig)
    fig = plot_attack_event([0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0], 2.5, claimed_epsilon=2.0)
    assert "= 1.10 <= claimed ε = 2" in fig.axes[0].get_title()
    plt.close(fig)
    with pytest.raises(TypeError, match="names"):
        plot_attack_event([0.0], [1.0], 0.5, names="x")
    with pytest.raises(ValueError, match="claimed_epsilon"):
        plot_attack_event([0.0], [1.0], 0.5, claimed_epsilon=-1.0)


def test_threshold_search_figure():
    import matplotlib.pyplot as plt

    from dpcourse.plots.audit import plot_threshold_search

    fig = plot_threshold_search(laplace_at(1.0), 0.0, 1.0, 2000, epsilon=1.0, rng=3)
    plug_in, bound = fig.axes[1].get_lines()[:2]
    # pointwise, the CP lower bound never exceeds the plug-in estimate
    y_plug, y_bound = plug_in.get_ydata(), bound.get_ydata()
    ok = np.isfinite(y_plug) & np.isfinite(y_bound)
    assert ok.sum() > 100 and np.all(y_bound[ok] <= y_plug[ok] + 1e-12)
    plt.close(fig)
    with pytest.raises(TypeError, match="mechanism must be callable"):
        plot_threshold_search(None, 0.0, 1.0)


def test_event_families_can_be_chosen():
    # a discrete mechanism on ordered outputs: a count of 5 fair coins plus the input bit
    def coins(x, rng, size=None):
        return rng.binomial(5, 0.5, size=size) + x

    outcomes = audit_epsilon(coins, 0, 1, 20_000, rng=12)
    assert outcomes.event.kind == "=="
    both = audit_epsilon(coins, 0, 1, 20_000, rng=12, events="both")
    assert both.event.kind in ("==", "<", ">")
    # the outcome 0 is impossible from input 1 and the outcome 6 from input 0: the pair's epsilon is infinite
    assert outcomes.lower_bound > 3.0 and both.lower_bound > 3.0
    floats = audit_epsilon(laplace_at(1.0), 0.0, 1.0, 2000, rng=12, events="outcomes")
    assert floats.event.kind == "==" and floats.lower_bound == 0.0  # every real output is seen once


@pytest.mark.parametrize("conf", [0.5, 0.8, 0.95, 0.999])
def test_bounds_split_the_error_budget_between_the_two_proportions(conf):
    # The bound is valid with probability conf because each of the two one-sided Clopper-Pearson bounds errs with
    # probability (1 - conf) / 2 (Bonferroni). Those are the ends of scipy's exact two-sided intervals at level
    # conf, computed here by a different route than dpcourse's clopper_pearson.
    res = audit_epsilon(rr_at(1.0), 1, 0, 4000, rng=9, confidence=conf)
    p_ci = stats.binomtest(res.count_p, res.n_bound).proportion_ci(confidence_level=conf, method="exact")
    q_ci = stats.binomtest(res.count_q, res.n_bound).proportion_ci(confidence_level=conf, method="exact")
    assert res.p_lower == pytest.approx(p_ci.low, rel=1e-9)
    assert res.q_upper == pytest.approx(q_ci.high, rel=1e-9)
    assert res.lower_bound == pytest.approx(max(0.0, math.log(p_ci.low / q_ci.high)), rel=1e-9)


def test_clopper_pearson_returns_named_fields():
    """Issue 38: a NamedTuple ``(lower, upper)``, floats for a scalar k, arrays for an array k."""
    res = clopper_pearson(3, 10, 0.05)
    assert res._fields == ("lower", "upper") and (res.lower, res.upper) == tuple(res)
    assert isinstance(res.lower, float) and res.lower < 0.3 < res.upper
    arr = clopper_pearson(np.array([0, 10]), 10, 0.05)
    assert arr.lower.shape == arr.upper.shape == (2,) and arr.lower[0] == 0.0 and arr.upper[1] == 1.0
