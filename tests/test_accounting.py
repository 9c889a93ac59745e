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
    assert check_optimal_delta(optimal_composition_delta).passed
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
        return optimal_composition_delta(eps, k, max(0.0, (k - 2 * i) * eps))
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
