"""The privacy accountant: immutable validated events, each method against the composition functions."""

import dataclasses
import math
from functools import reduce

import numpy as np
import pytest

from dpcourse import (ComposedEvent, GaussianEvent, LaplaceEvent, NotApplicableError, PrivacyAccountant, PureDPEvent,
                      SequenceEvent, advanced_composition, gaussian_composition_epsilon, gaussian_epsilon,
                      hockey_stick, optimal_composition_epsilon, rdp_gaussian, rdp_to_epsilon)
from dpcourse import accounting
from dpcourse.accounting import max_compositions
from dpcourse.exercises.composition import check_optimal_delta
from dpcourse.composition import optimal_composition_delta


# ---------------------------------------------------------------- events

@pytest.mark.parametrize("event, field", [(PureDPEvent(0.1), "epsilon"), (LaplaceEvent(0.5), "epsilon"),
                                          (GaussianEvent(2.0), "sigma"), (GaussianEvent(2.0, 3.0), "l2_sensitivity"),
                                          (ComposedEvent(PureDPEvent(0.1), 3), "k"),
                                          (SequenceEvent([PureDPEvent(0.1)]), "events")])
def test_events_are_immutable(event, field):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(event, field, 1.0)


def test_events_are_values():
    assert GaussianEvent(10) == GaussianEvent(10.0) and isinstance(GaussianEvent(10).sigma, float)
    assert GaussianEvent(2.0, 4.0).mu == 2.0
    assert len({PureDPEvent(0.1), PureDPEvent(0.1), LaplaceEvent(0.1)}) == 2
    seq = SequenceEvent([PureDPEvent(0.1), GaussianEvent(1.0)])
    assert isinstance(seq.events, tuple) and hash(seq) == hash(SequenceEvent((PureDPEvent(0.1), GaussianEvent(1.0))))


@pytest.mark.parametrize("bad, exc", [(0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError),
                                      (math.inf, ValueError), (True, TypeError), ("1", TypeError)])
def test_event_validation(bad, exc):
    with pytest.raises(exc, match="epsilon"):
        PureDPEvent(bad)
    with pytest.raises(exc, match="epsilon"):
        LaplaceEvent(bad)
    with pytest.raises(exc, match="sigma"):
        GaussianEvent(bad)
    with pytest.raises(exc, match="l2_sensitivity"):
        GaussianEvent(1.0, bad)


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-2, ValueError), (2.5, TypeError), (2.0, TypeError),
                                      (True, TypeError)])
def test_composed_event_validation(bad, exc):
    with pytest.raises(exc, match="k must be an integer"):
        ComposedEvent(PureDPEvent(0.1), bad)
    with pytest.raises(exc, match="k must be an integer"):
        PrivacyAccountant().compose(PureDPEvent(0.1), bad)


def test_event_type_validation():
    with pytest.raises(TypeError, match="event must be a DpEvent"):
        ComposedEvent(0.1, 3)
    with pytest.raises(TypeError, match=r"events\[1\] must be a DpEvent"):
        SequenceEvent([PureDPEvent(0.1), 0.5])
    with pytest.raises(TypeError, match="sequence of DpEvent"):
        SequenceEvent(PureDPEvent(0.1))
    with pytest.raises(TypeError, match="event must be a DpEvent"):
        PrivacyAccountant().compose("gaussian")
    with pytest.raises(TypeError, match=r"events\[1\] must be a DpEvent"):
        PrivacyAccountant([GaussianEvent(1.0), None])


# ---------------------------------------------------------------- methods

def test_pure_events_against_the_functions():
    eps, k, d = 0.1, 100, 1e-5
    acc = PrivacyAccountant().compose(PureDPEvent(eps), k)
    assert acc.epsilon(d, "basic") == pytest.approx(k * eps, rel=1e-14)
    assert acc.epsilon(d, "advanced") == advanced_composition(eps, k, d)
    assert acc.epsilon(d, "optimal") == optimal_composition_epsilon(eps, k, d)
    assert acc.epsilon(d, "optimal") <= acc.epsilon(d, "rdp")  # rdp of the worst case cannot beat the exact worst case


def test_advanced_applies_to_different_mechanisms_with_one_guarantee():
    # the theorem needs k mechanisms that are each (eps, delta)-DP, not k copies of one mechanism
    mix = PrivacyAccountant([ComposedEvent(PureDPEvent(0.1), 30), ComposedEvent(LaplaceEvent(0.1), 70)])
    assert mix.epsilon(1e-5, "advanced") == advanced_composition(0.1, 100, 1e-5)
    same_mu = PrivacyAccountant([ComposedEvent(GaussianEvent(10.0), 40), ComposedEvent(GaussianEvent(20.0, 2.0), 60)])
    assert same_mu.epsilon(1e-5, "advanced") == PrivacyAccountant().compose(GaussianEvent(10.0), 100).epsilon(
        1e-5, "advanced")


def test_rdp_of_laplace_can_beat_the_optimum_over_all_pure_dp_mechanisms():
    # "optimal" is the worst case over every eps-DP mechanism; Laplace is not that worst case, and its own
    # RDP curve can give a smaller total (the chapter's claim, at eps = 1, k = 100)
    res = PrivacyAccountant().compose(LaplaceEvent(1.0), 100).compare(1e-5)
    assert res["rdp"].epsilon < 0.9 * res["optimal"].epsilon
    # while for an unknown eps-DP mechanism the optimum is, as it must be, below rdp
    worst = PrivacyAccountant().compose(PureDPEvent(1.0), 100).compare(1e-5)
    assert worst["optimal"].epsilon <= worst["rdp"].epsilon


def test_flattening_nested_events():
    e = LaplaceEvent(0.2)
    nested = PrivacyAccountant([ComposedEvent(ComposedEvent(e, 2), 3), SequenceEvent([e, ComposedEvent(e, 4)])])
    flat = PrivacyAccountant().compose(e, 11)
    for m in ["basic", "advanced", "optimal", "rdp"]:
        assert nested.epsilon(1e-6, m) == flat.epsilon(1e-6, m)
    assert len(nested.events) == 2 and isinstance(nested.events, tuple)


def test_gaussian_events_against_the_functions():
    sigma, k, d = 10.0, 100, 1e-5
    acc = PrivacyAccountant().compose(GaussianEvent(sigma), k)
    exact = acc.epsilon(d, "gaussian_exact")
    assert exact == gaussian_composition_epsilon(sigma, k, d)
    assert acc.epsilon(d, "basic") == pytest.approx(k * gaussian_epsilon(d / k, 1 / sigma), rel=1e-12)
    rdp = acc.epsilon(d, "rdp")
    assert rdp == pytest.approx(rdp_to_epsilon(lambda a: k * rdp_gaussian(a, 1 / sigma), d)[0], rel=1e-12)
    adv = acc.epsilon(d, "advanced")
    half = advanced_composition(gaussian_epsilon(d / 2 / k, 1 / sigma), k, d / 2)  # one fixed split
    assert adv <= half * (1 + 1e-9)
    assert exact < rdp < adv  # the exact Gaussian composition is the smallest valid answer
    # heterogeneous Gaussians: mu^2 adds up
    mixed = PrivacyAccountant([GaussianEvent(2.0), GaussianEvent(4.0, 2.0), GaussianEvent(1.0, 0.5)])
    assert mixed.epsilon(d, "gaussian_exact") == gaussian_epsilon(d, math.sqrt(0.25 + 0.25 + 0.25))


def test_heterogeneous_optimal_is_the_product_hockey_stick():
    eps_list = [0.3, 0.3, 0.8, 1.1]
    acc = PrivacyAccountant([PureDPEvent(e) for e in eps_list])
    d = 1e-3
    got = acc.epsilon(d, "optimal")
    pairs = [np.array([math.exp(e), 1.0]) / (1 + math.exp(e)) for e in eps_list]
    pk, qk = reduce(np.kron, pairs), reduce(np.kron, [p[::-1] for p in pairs])
    assert hockey_stick(pk, qk, got) == pytest.approx(d, rel=1e-9, abs=0)
    assert hockey_stick(pk, qk, got * (1 - 1e-6)) > d


def test_not_applicable_raises_with_reason_and_compare_reports_inf():
    gauss = PrivacyAccountant().compose(GaussianEvent(5.0), 10)
    with pytest.raises(NotApplicableError, match="pure-DP events only"):
        gauss.epsilon(1e-5, "optimal")
    lap = PrivacyAccountant().compose(LaplaceEvent(0.1), 10)
    with pytest.raises(NotApplicableError, match="Gaussian events only"):
        lap.epsilon(1e-5, "gaussian_exact")
    mixed = PrivacyAccountant([LaplaceEvent(0.1), GaussianEvent(5.0)])
    with pytest.raises(NotApplicableError, match="one common .epsilon, delta.; these events mix"):
        mixed.epsilon(1e-5, "advanced")
    with pytest.raises(NotApplicableError, match="2 different privacy parameters"):
        PrivacyAccountant([PureDPEvent(0.1), LaplaceEvent(0.2)]).epsilon(1e-5, "advanced")
    with pytest.raises(NotApplicableError, match="2 different privacy parameters"):
        PrivacyAccountant([GaussianEvent(1.0), GaussianEvent(2.0)]).epsilon(1e-5, "advanced")
    res = mixed.compare(1e-5)
    assert set(res) == {"basic", "advanced", "optimal", "rdp", "gaussian_exact"}
    for m in ["advanced", "optimal", "gaussian_exact"]:
        assert res[m].epsilon == math.inf and res[m].note.startswith("not applicable")
    assert math.isfinite(res["basic"].epsilon) and math.isfinite(res["rdp"].epsilon)
    assert issubclass(NotApplicableError, ValueError)


def test_bad_accountant_queries():
    acc = PrivacyAccountant().compose(PureDPEvent(0.1))
    with pytest.raises(ValueError, match="method must be one of"):
        acc.epsilon(1e-5, "moments")
    for bad in [0.0, 1.0, math.nan, -0.1]:
        with pytest.raises(ValueError, match="delta"):
            acc.epsilon(bad)
        with pytest.raises(ValueError, match="delta"):
            acc.compare(bad)
    with pytest.raises(ValueError, match="no events"):
        PrivacyAccountant().epsilon(1e-5)


def test_new_method_needs_no_change_to_events(monkeypatch):
    def max_eps(counts, delta):
        return max(e.epsilon for e, _ in counts), "a wrong method, for the test"
    monkeypatch.setitem(accounting.ACCOUNTING_METHODS, "max", max_eps)
    acc = PrivacyAccountant([PureDPEvent(0.1), PureDPEvent(0.4)])
    assert acc.epsilon(1e-5, "max") == 0.4
    assert acc.compare(1e-5)["max"].note == "a wrong method, for the test"


def test_monotonicity_through_the_accountant():
    sig = [PrivacyAccountant().compose(GaussianEvent(s), 20).epsilon(1e-5, "rdp") for s in [1, 2, 4, 8]]
    assert all(a > b for a, b in zip(sig, sig[1:]))
    ks = [PrivacyAccountant().compose(LaplaceEvent(0.1), k).epsilon(1e-5, "optimal") for k in [1, 10, 100]]
    assert all(a < b for a, b in zip(ks, ks[1:]))


# ---------------------------------------------------------------- the exercise checker

def test_checker_accepts_the_reference_and_catches_slips():
    from student_solutions import optimal_delta

    assert check_optimal_delta(optimal_delta).passed                          # written by hand: accepted
    assert "optimal_composition_delta" in check_optimal_delta(optimal_composition_delta).message  # forbidden
    assert "pass the function" in check_optimal_delta(3.0).message

    def no_positive_part(eps, k, et):
        j = np.arange(k + 1)
        c = np.array([math.comb(k, int(i)) for i in j], dtype=float)
        return float(np.sum(c * (np.exp((k - j) * eps) - np.exp(et + j * eps))) / (1 + math.exp(eps)) ** k)
    r = check_optimal_delta(no_positive_part)
    assert not r.passed and "positive part" in r.message

    def naive(eps, k, et):
        return sum(math.comb(k, j) * max(math.exp((k - j) * eps) - math.exp(et + j * eps), 0.0)
                   for j in range(k + 1)) / (1 + math.exp(eps)) ** k
    r = check_optimal_delta(naive)
    assert not r.passed and "logarithms" in r.message

    def grid_only(eps, k, et):
        i = max(0, math.ceil((k * eps - et) / (2 * eps) - 1e-12))
        return optimal_delta(eps, k, max(0.0, (k - 2 * i) * eps))
    r = check_optimal_delta(grid_only)
    assert not r.passed and "grid point" in r.message
    r = check_optimal_delta(lambda e, k, t: 0.5)
    assert not r.passed and "0.5" in r.message and str(optimal_composition_delta(0.5, 1, 0.2))[:6] not in r.message


def test_max_compositions():
    assert max_compositions(PureDPEvent(0.1), 1.0, 1e-6, "basic") == 10
    assert max_compositions(PureDPEvent(0.3), 1.0, 1e-6, "basic") == 3
    assert max_compositions(PureDPEvent(2.0), 1.0, 1e-6, "basic") == 0
    assert max_compositions(PureDPEvent(1e-7), 1.0, 1e-6, "basic", k_max=1000) == 1000
    g = GaussianEvent(20.0)
    k = max_compositions(g, 1.0, 1e-6, "gaussian_exact")
    assert gaussian_composition_epsilon(20.0, k, 1e-6) <= 1.0 < gaussian_composition_epsilon(20.0, k + 1, 1e-6)
    with pytest.raises(TypeError, match="DpEvent"):
        max_compositions(0.1, 1.0, 1e-6)
    with pytest.raises(ValueError, match="epsilon"):
        max_compositions(g, 0.0, 1e-6)
    with pytest.raises(ValueError, match="k_max"):
        max_compositions(g, 1.0, 1e-6, k_max=0)
    with pytest.raises(NotApplicableError):
        max_compositions(g, 1.0, 1e-6, "optimal")


# ---------------------------------------------------------------- independent computations of the accountant's numbers


def _rr_product_epsilon(eps_list, delta):
    """Optimal epsilon of the pure-DP worst case by enumeration: the product of randomized-response pairs.

    Every outcome of the len(eps_list) pairs is listed with its probabilities under P and Q, and the
    smallest eps with sum (P - e^eps Q)_+ <= delta is found by bisection: no code of dpcourse involved.
    """
    p = np.ones(1)
    q = np.ones(1)
    for e in eps_list:
        pair = np.array([math.exp(e), 1.0]) / (1 + math.exp(e))
        p, q = np.kron(p, pair), np.kron(q, pair[::-1])

    def hs(e):
        return np.maximum(p - math.exp(e) * q, 0.0).sum()

    lo, hi = 0.0, sum(eps_list)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if hs(mid) > delta else (lo, mid)
    return hi


def test_optimal_groups_sharing_an_epsilon_against_enumeration():
    # A PureDPEvent and a LaplaceEvent with the same epsilon are different events that the optimal method must
    # pool: 2 x 0.5 (pure) + 1 x 0.5 (Laplace) + 3 x 0.3 is the product of six RR pairs.
    acc = PrivacyAccountant([ComposedEvent(PureDPEvent(0.5), 2), LaplaceEvent(0.5), ComposedEvent(PureDPEvent(0.3), 3)])
    for d in (1e-3, 0.05):
        want = _rr_product_epsilon([0.5, 0.5, 0.5, 0.3, 0.3, 0.3], d)
        assert acc.epsilon(d, "optimal") == pytest.approx(want, rel=1e-9, abs=0)
    # the same total with all the 0.5-DP runs declared as one event
    same = PrivacyAccountant([ComposedEvent(PureDPEvent(0.5), 3), ComposedEvent(PureDPEvent(0.3), 3)])
    assert same.epsilon(1e-3, "optimal") == pytest.approx(acc.epsilon(1e-3, "optimal"), rel=1e-12)


def test_advanced_for_gaussian_events_against_a_split_search():
    # Each of the k Gaussian runs is (eps_0, delta_0)-DP and advanced composition adds delta' : k delta_0 + delta'
    # must equal delta. Searching the split on a grid (independently of the accountant's optimiser) gives the
    # same total up to the grid's resolution, never less.
    mu, k, d = 0.5, 40, 1e-5
    acc = PrivacyAccountant().compose(GaussianEvent(sigma=2.0), k)
    got = acc.epsilon(d, "advanced")
    grid = [advanced_composition(gaussian_epsilon((d - dp) / k, mu), k, dp) for dp in d * np.geomspace(1e-4, 0.9999, 300)]
    assert min(grid) * (1 - 1e-3) <= got <= min(grid) * (1 + 1e-9)
    # not splitting delta (each run at delta instead of delta/k) would give a much smaller, invalid number
    unsplit = min(advanced_composition(gaussian_epsilon(d - dp, mu), k, dp) for dp in d * np.geomspace(1e-4, 0.9999, 50))
    assert got > 1.2 * unsplit


def test_basic_for_distinct_gaussian_events_is_the_sum_of_scalar_inversions():
    # Distinct sigmas, two of them with equal mu (grouped), and repeated runs: the basic total is
    # sum over runs of gaussian_epsilon(delta / runs, mu), computed here one scalar call per event.
    sigmas = [3.0, 5.0, 7.5, 11.0, 40.0]
    events = [ComposedEvent(GaussianEvent(s), i + 1) for i, s in enumerate(sigmas)] + [GaussianEvent(6.0, 2.0)]
    acc = PrivacyAccountant(events)
    runs = sum(range(1, 6)) + 1
    d = 1e-6
    want = math.fsum((i + 1) * gaussian_epsilon(d / runs, 1 / s) for i, s in enumerate(sigmas)) + \
        gaussian_epsilon(d / runs, 2.0 / 6.0)
    assert acc.epsilon(d, "basic") == pytest.approx(want, rel=1e-9, abs=0)
    mixed = PrivacyAccountant(events + [ComposedEvent(PureDPEvent(0.25), 4)])
    assert mixed.epsilon(d, "basic") == pytest.approx(want + 1.0, rel=1e-9, abs=0)


def test_rdp_of_a_mixture_is_the_sum_of_the_curves():
    from dpcourse import rdp_laplace, rdp_pure_dp
    events = [ComposedEvent(PureDPEvent(0.5), 3), PureDPEvent(0.2), ComposedEvent(LaplaceEvent(0.5), 2),
              ComposedEvent(GaussianEvent(4.0), 5), GaussianEvent(2.0, 0.5), GaussianEvent(1.0, 0.1)]
    acc = PrivacyAccountant(events)

    def curve(a):
        return (3 * rdp_pure_dp(a, 0.5) + rdp_pure_dp(a, 0.2) + 2 * rdp_laplace(a, 0.5)
                + 6 * rdp_gaussian(a, 0.25) + rdp_gaussian(a, 0.1))

    d = 1e-6
    assert acc.epsilon(d, "rdp") == pytest.approx(rdp_to_epsilon(curve, d)[0], rel=1e-9, abs=0)


def test_composing_after_a_query_counts_the_new_events():
    acc = PrivacyAccountant([PureDPEvent(1.0)])
    assert acc.epsilon(1e-5, "basic") == 1.0
    acc.compose(PureDPEvent(1.0), 2)
    assert acc.epsilon(1e-5, "basic") == 3.0
    assert acc.epsilon(1e-5, "optimal") == pytest.approx(_rr_product_epsilon([1.0] * 3, 1e-5), rel=1e-9)


@pytest.mark.parametrize("event, eps, d, method", [
    (PureDPEvent(0.1), 0.999, 1e-6, "basic"),  # k = 9: 10 runs are 0.1% over the budget
    (PureDPEvent(0.1), 1.0, 1e-6, "basic"),  # k = 10 exactly (rounding slack of 1e-12 only)
    (LaplaceEvent(0.2), 2.0, 1e-6, "optimal"),
    (PureDPEvent(0.05), 1.5, 1e-6, "advanced"),
    (GaussianEvent(8.0), 1.0, 1e-5, "rdp"),
    (GaussianEvent(8.0), 1.0, 1e-5, "gaussian_exact"),
    (GaussianEvent(8.0, 0.5), 3.0, 1e-5, "basic"),
])
def test_max_compositions_is_exact(event, eps, d, method):
    # The k returned fits the budget and k + 1 does not, each checked with the accountant directly.
    k = max_compositions(event, eps, d, method)
    assert k >= 1
    assert PrivacyAccountant().compose(event, k).epsilon(d, method) <= eps * (1 + 1e-12)
    assert PrivacyAccountant().compose(event, k + 1).epsilon(d, method) > eps * (1 + 1e-12)


def test_max_compositions_has_no_slack_near_the_budget():
    # A budget 0.5% below what k runs cost must give k - 1, for each method.
    for event, method, k in [(GaussianEvent(10.0), "rdp", 50), (GaussianEvent(10.0), "gaussian_exact", 80),
                             (PureDPEvent(0.1), "optimal", 30)]:
        cost = PrivacyAccountant().compose(event, k).epsilon(1e-5, method)
        assert max_compositions(event, cost, 1e-5, method) == k
        assert max_compositions(event, cost * 0.995, 1e-5, method) == k - 1


def test_accountant_refuses_bad_containers_by_name():
    with pytest.raises(TypeError, match="events must be a sequence of DpEvent"):
        PrivacyAccountant(PureDPEvent(1.0))
    with pytest.raises(TypeError, match="events must be a sequence"):
        PrivacyAccountant(3)
    with pytest.raises(TypeError, match="events must be a sequence"):
        SequenceEvent(7)
    with pytest.raises(TypeError, match="method must be one of"):
        PrivacyAccountant([PureDPEvent(1.0)]).epsilon(1e-5, ["rdp"])
    with pytest.raises(TypeError, match="method must be one of"):
        max_compositions(PureDPEvent(1.0), 1.0, 1e-5, method=None)
    with pytest.raises(ValueError, match="l2_sensitivity / sigma"):
        GaussianEvent(1e-300, 1e10)  # the ratio overflows: named, not "mu must be finite"
    with pytest.raises(ValueError, match="l2_sensitivity / sigma"):
        GaussianEvent(1e300, 1e-300)  # the ratio underflows to 0


def test_a_delta_split_that_underflows_is_refused_by_name():
    # delta / runs == 0 in floating point: 'basic' once returned 7.9e283 (the inverse at delta 0)
    acc = PrivacyAccountant().compose(GaussianEvent(1.0), 10**6)
    for method in ("basic", "advanced"):
        with pytest.raises(ValueError, match=r"delta=5e-324 split over 1000000 Gaussian runs underflows"):
            acc.epsilon(5e-324, method)
    assert math.isfinite(acc.epsilon(5e-324, "gaussian_exact")) and math.isfinite(acc.epsilon(5e-324, "rdp"))


# ---------------------------------------------------------------- issue 38: relations, (epsilon, delta) events, delta

from fractions import Fraction  # noqa: E402

from dpcourse.accounting import EpsilonDeltaEvent, PoissonSampledEvent, RelationMismatchError  # noqa: E402
from dpcourse.gaussian import gaussian_delta  # noqa: E402


def test_events_record_their_relation_and_keep_their_repr():
    for e in (PureDPEvent(0.1), LaplaceEvent(0.1), GaussianEvent(2.0), EpsilonDeltaEvent(0.1, 1e-6)):
        assert e.relation == "add_remove"                          # the default: the Poisson-sampled accounting's
    assert repr(PureDPEvent(1e6)) == "PureDPEvent(epsilon=1000000.0)"  # a default relation is not shown
    assert repr(GaussianEvent(2.0, relation="replace_one")) == ("GaussianEvent(sigma=2.0, l2_sensitivity=1.0, "
                                                                "relation='replace_one')")
    assert PureDPEvent(0.1) != PureDPEvent(0.1, relation="replace_one")   # part of the value
    assert len({LaplaceEvent(0.1), LaplaceEvent(0.1, relation="replace_one")}) == 2
    inner = GaussianEvent(1.0, relation="replace_one")
    assert ComposedEvent(inner, 3).relation == PoissonSampledEvent(0.1, inner).relation == "replace_one"
    assert SequenceEvent([inner, ComposedEvent(inner, 2)]).relation == "replace_one"
    assert SequenceEvent([]).relation is None
    with pytest.raises(ValueError, match="relation must be one of"):
        PureDPEvent(0.1, relation="zero_out")
    with pytest.raises(TypeError, match="relation"):
        GaussianEvent(1.0, relation=None)
    with pytest.raises(TypeError):
        LaplaceEvent(0.1, "replace_one")                          # keyword only
    with pytest.raises(dataclasses.FrozenInstanceError):
        PureDPEvent(0.1).relation = "replace_one"


def test_composing_two_relations_is_refused_by_name():
    ar, ro = GaussianEvent(1.0), GaussianEvent(1.0, relation="replace_one")
    with pytest.raises(RelationMismatchError, match=r"events\[1\] is under the relation 'replace_one'.*'add_remove'"):
        SequenceEvent([ar, ro])
    with pytest.raises(RelationMismatchError, match=r"events\[2\] is under the relation 'add_remove'"):
        PrivacyAccountant([ro, SequenceEvent([]), ComposedEvent(ar, 2)])
    acc = PrivacyAccountant().compose(ar, 3)
    with pytest.raises(RelationMismatchError, match="no conversion between relations is implemented"):
        acc.compose(SequenceEvent([ro]))
    assert acc.events == (ComposedEvent(ar, 3),) and acc.relation == "add_remove"   # nothing recorded
    with pytest.raises(RelationMismatchError):
        PrivacyAccountant(relation="replace_one").compose(ar)
    assert issubclass(RelationMismatchError, ValueError) and PrivacyAccountant().relation is None
    assert PrivacyAccountant([ro]).relation == PrivacyAccountant([ro]).compare(1e-5)["rdp"].relation == "replace_one"
    with pytest.raises(ValueError, match="relation must be one of"):
        PrivacyAccountant(relation="add_or_remove")


def test_sampled_accounting_is_for_add_remove_only():
    ro = PrivacyAccountant().compose(PoissonSampledEvent(0.1, GaussianEvent(1.0, relation="replace_one")), 10)
    for method in ("rdp", "pld"):
        with pytest.raises(NotApplicableError, match="PoissonSampledEvent under replace_one"):
            ro.epsilon(1e-5, method)
        with pytest.raises(NotApplicableError, match="PoissonSampledEvent under replace_one"):
            ro.delta(1.0, method)
    same = PrivacyAccountant().compose(PoissonSampledEvent(0.1, GaussianEvent(1.0)), 10)
    assert same.epsilon(1e-5, "rdp") < math.inf


@pytest.mark.parametrize("bad, exc", [(0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError), (True, TypeError)])
def test_epsilon_delta_event_validation(bad, exc):
    with pytest.raises(exc, match="epsilon"):
        EpsilonDeltaEvent(bad, 1e-6)
    if bad != 0.0:                                               # delta = 0 is allowed (a pure guarantee)
        with pytest.raises(exc, match="delta"):
            EpsilonDeltaEvent(1.0, bad)
    with pytest.raises(ValueError, match="delta"):
        EpsilonDeltaEvent(1.0, 1.0)


def test_epsilon_delta_events_compose_by_basic_and_advanced_only():
    e = EpsilonDeltaEvent(0.25, 1e-7)
    acc = PrivacyAccountant().compose(e, 20).compose(PureDPEvent(0.5))
    assert acc.epsilon(1e-5, "basic") == 5.5                     # the epsilons add up; the deltas use 2e-6 of 1e-5
    assert acc.delta(5.5, "basic") == pytest.approx(2e-6, rel=1e-15) and acc.delta(5.5, "basic") >= 20 * 1e-7
    assert acc.delta(5.49, "basic") == 1.0                      # basic composition proves nothing below the sum
    assert acc.epsilon(1.9e-6, "basic") == math.inf              # the deltas alone exceed the budget
    assert PrivacyAccountant([PureDPEvent(0.5)] * 3).delta(1.5, "basic") == 0.0   # pure: delta 0 exactly
    # the deltas are summed exactly: ten deltas of 1e-6 exceed the float 1e-5 by one part in 1e17 or fit it
    ten = PrivacyAccountant().compose(EpsilonDeltaEvent(0.1, 1e-6), 10)
    fits = sum(Fraction(1e-6) for _ in range(10)) <= Fraction(1e-5)
    assert (ten.epsilon(1e-5, "basic") < math.inf) == fits
    # advanced: k runs of one (epsilon, delta_0) pair (a pure event of the same epsilon counts as one), delta_0 the
    # largest, delta' = delta - k delta_0
    adv = PrivacyAccountant([ComposedEvent(EpsilonDeltaEvent(0.1, 1e-8), 50), EpsilonDeltaEvent(0.1, 2e-8),
                             ComposedEvent(PureDPEvent(0.1), 49)])
    assert adv.epsilon(1e-5, "advanced") == advanced_composition(0.1, 100, 1e-5 - 100 * 2e-8)
    s = (3.0 - 100 * 0.1 * math.expm1(0.1)) / 0.1                 # delta at epsilon = 3: k delta_0 + delta'
    assert adv.delta(3.0, "advanced") == pytest.approx(100 * 2e-8 + math.exp(-s * s / 200), rel=1e-12)
    assert PrivacyAccountant().compose(EpsilonDeltaEvent(0.1, 1e-6), 11).epsilon(1e-5, "advanced") == math.inf
    with pytest.raises(NotApplicableError, match="2 different privacy parameters"):
        PrivacyAccountant([EpsilonDeltaEvent(0.1, 1e-8), PureDPEvent(0.2)]).epsilon(1e-5, "advanced")
    with pytest.raises(NotApplicableError, match=r"mix \(epsilon, delta\) and Gaussian"):
        PrivacyAccountant([EpsilonDeltaEvent(0.1, 1e-8), GaussianEvent(2.0)]).epsilon(1e-5, "advanced")
    for method in ("optimal", "rdp", "gaussian_exact", "pld"):
        with pytest.raises(NotApplicableError, match="EpsilonDeltaEvent"):
            acc.epsilon(1e-5, method)
        with pytest.raises(NotApplicableError, match="EpsilonDeltaEvent"):
            acc.delta(1.0, method)
    with pytest.raises(NotApplicableError, match=r"EpsilonDeltaEvent; an \(epsilon, delta\) guarantee composes by"):
        acc.epsilon(1e-5, "rdp")
    res = acc.compare(1e-5)                                     # advanced: 0.25 and 0.5 are two parameters
    assert [m for m, r in res.items() if r.epsilon < math.inf] == ["basic"]


def test_epsilon_delta_event_with_gaussian_runs_splits_what_is_left():
    # the Gaussian runs share what the (epsilon, delta) events leave of delta
    acc = PrivacyAccountant([EpsilonDeltaEvent(0.3, 4e-6), ComposedEvent(GaussianEvent(5.0), 6)])
    want = 0.3 + 6 * gaussian_epsilon((1e-5 - 4e-6) / 6, 0.2)
    assert acc.epsilon(1e-5, "basic") == pytest.approx(want, rel=1e-12)
    assert acc.epsilon(1e-5, "basic") > 0.3 + 6 * gaussian_epsilon(1e-5 / 6, 0.2)   # not the whole delta
    d = acc.delta(want, "basic")                                 # inverted numerically, to 1e-6 relative
    assert 1e-5 * (1 - 1e-12) <= d <= 1e-5 * (1 + 2e-6)
    assert acc.epsilon(d, "basic") <= want


@pytest.mark.parametrize("events, method", [
    ([ComposedEvent(GaussianEvent(10.0), 100)], "gaussian_exact"),
    ([ComposedEvent(GaussianEvent(10.0), 100)], "rdp"),
    ([ComposedEvent(GaussianEvent(10.0), 100)], "basic"),
    ([ComposedEvent(GaussianEvent(10.0), 100)], "advanced"),
    ([ComposedEvent(LaplaceEvent(0.1), 100), PureDPEvent(0.3)], "rdp"),
    ([ComposedEvent(LaplaceEvent(0.1), 100), PureDPEvent(0.3)], "optimal"),
    ([ComposedEvent(PureDPEvent(0.1), 100)], "advanced"),
    ([ComposedEvent(PoissonSampledEvent(0.02, GaussianEvent(1.0)), 500)], "rdp"),
    ([ComposedEvent(PoissonSampledEvent(0.02, GaussianEvent(1.0)), 500)], "pld"),
])
def test_delta_at_epsilon_inverts_epsilon_at_delta(events, method):
    # delta(epsilon(d)) is d, and epsilon(delta(e)) <= e: each method's two answers are one curve
    acc = PrivacyAccountant(events)
    for d in (1e-3, 1e-6, 1e-9):
        e = acc.epsilon(d, method)
        back = acc.delta(e, method)
        assert back <= d * (1 + 2e-6), (d, e, back)
        assert back >= d * (0.995 if method in ("pld", "optimal") else 1 - 1e-6), (d, e, back)
        assert acc.epsilon(back, method) <= e * (1 + (1e-4 if method == "pld" else 1e-9))  # pld: two upper bounds


def test_delta_by_method_against_the_closed_forms():
    acc = PrivacyAccountant().compose(GaussianEvent(3.0, 0.5), 40)
    mu = math.sqrt(40) * 0.5 / 3.0
    for e in (0.0, 0.5, 2.0, 8.0):
        assert acc.delta(e, "gaussian_exact") == gaussian_delta(e, mu)
    pure = PrivacyAccountant().compose(PureDPEvent(0.2), 30)
    for e in (0.0, 1.0, 3.0, 5.9, 6.0):
        exact = optimal_composition_delta(0.2, 30, e)
        got = pure.delta(e, "optimal")
        assert exact <= got <= exact * (1 + 1e-10) + 1e-20      # never below the exact value, and within rounding
    assert pure.delta(6.0, "basic") == 0.0 and pure.delta(6.0, "optimal") <= 1e-20   # the top atom's rounding only
    for e in (1.0, 5.0, 8.0):                                     # advanced: delta' of the inverted formula
        s = (e - 30 * 0.2 * math.expm1(0.2)) / 0.2
        assert pure.delta(e, "advanced") == pytest.approx(math.exp(-s * s / 60) if s > 0 else 1.0, rel=1e-12)
    curve = lambda a: 40 * rdp_gaussian(a, 0.5 / 3.0)  # noqa: E731
    for e in (0.5, 2.0):
        got = acc.delta(e, "rdp")
        alpha = 1.0 + np.geomspace(1e-4, 1e6, 200001)
        with np.errstate(over="ignore"):
            brute = np.exp((alpha - 1) * (curve(alpha) - e + np.log1p(-1 / alpha)) - np.log(alpha)).min()
        assert got == pytest.approx(brute, rel=1e-6)


def test_delta_refuses_bad_queries_by_name():
    acc = PrivacyAccountant().compose(PureDPEvent(0.1))
    for bad, exc in [(-0.1, ValueError), (math.nan, ValueError), (math.inf, ValueError), (True, TypeError),
                     ("1", TypeError)]:
        with pytest.raises(exc, match="epsilon"):
            acc.delta(bad)
    with pytest.raises(ValueError, match="method must be one of"):
        acc.delta(1.0, "moments")
    with pytest.raises(ValueError, match="no events"):
        PrivacyAccountant().delta(1.0)


def test_a_new_method_gets_delta_by_inversion(monkeypatch):
    # a method without a DELTA_METHODS entry is inverted numerically: here epsilon = log(1/delta) / 10
    monkeypatch.setitem(accounting.ACCOUNTING_METHODS, "toy", lambda counts, d: (math.log(1 / d) / 10, "toy"))
    acc = PrivacyAccountant([PureDPEvent(0.1)])
    assert acc.delta(1.0, "toy") == pytest.approx(math.exp(-10), rel=1e-6) and acc.delta(1.0, "toy") >= math.exp(-10)
    assert acc.delta(0.0, "toy") == 1.0 and acc.delta(100.0, "toy") == 1e-300


def test_the_old_module_path_keeps_every_moved_name():
    import subprocess
    import sys

    from dpcourse import subsampled_gaussian as sg

    for name in ("rdp_subsampled_gaussian", "subsampled_gaussian_delta", "subsampling_amplification", "dpsgd_epsilon",
                 "dpsgd_noise_multiplier", "MIN_NOISE_MULTIPLIER", "AmplifiedGuarantee", "_pld_epsilon", "_calibrate"):
        assert getattr(accounting, name) is getattr(sg, name), name
    assert set(sg.__all__) <= set(accounting.__all__)
    # the new module imported first, in a fresh interpreter (its import of the events must not be circular)
    subprocess.run([sys.executable, "-c", "import dpcourse.subsampled_gaussian"], check=True)


def test_what_is_left_of_delta_is_rounded_down():
    # delta minus the events' deltas, exactly, then rounded down: never more than is left
    rng = np.random.default_rng(38)
    for _ in range(2000):
        d, parts = float(rng.uniform(1e-6, 1e-4)), rng.uniform(1e-9, 1e-6, size=int(rng.integers(1, 20)))
        spent = sum((Fraction(float(x)) for x in parts), Fraction(0))
        left = accounting._delta_left(d, spent)
        assert Fraction(left) <= Fraction(d) - spent < Fraction(math.nextafter(left, math.inf))


def test_delta_by_inversion_reaches_deltas_far_below_the_float_square_root():
    """The bisection on log delta takes geometric means of brackets like [1e-300, 1e-30], whose product
    underflows: the answer must come back (it divided by a 0 bracket end), and be a delta whose epsilon fits."""
    import dpcourse as dp
    acc = dp.PrivacyAccountant([dp.GaussianEvent(3.0), dp.PureDPEvent(0.5)])
    for eps in (10.0, 20.0, 40.0):
        d = acc.delta(eps, "basic")
        assert 0.0 < d < 1e-3
        assert acc.epsilon(d, "basic") <= eps * (1 + 1e-9)
