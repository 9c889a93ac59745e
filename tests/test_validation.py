"""The shared argument checks: every bad kind of input is refused with a message naming it."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpcourse import _validation as v


@pytest.mark.parametrize("bad", [float("nan"), np.nan, np.float32("nan")])
def test_nan_is_refused_everywhere(bad):
    for check in (v.check_epsilon, v.check_sensitivity, v.check_delta, v.check_probability):
        with pytest.raises(ValueError, match="NaN"):
            check(bad)


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), np.array(True)])
def test_bools_are_not_numbers(bad):
    with pytest.raises(TypeError, match="bool"):
        v.check_epsilon(bad)
    with pytest.raises(TypeError, match="bool"):
        v.check_positive_int(bad)


@pytest.mark.parametrize("bad", ["1", None, 1 + 0j, [1.0], np.array([1.0, 2.0])])
def test_non_reals_are_type_errors(bad):
    with pytest.raises(TypeError, match="epsilon"):
        v.check_epsilon(bad)


@pytest.mark.parametrize("eps", [0, 0.0, -1e-300, -1, math.inf, -math.inf])
def test_epsilon_range(eps):
    with pytest.raises(ValueError, match=r"epsilon must (lie in \(0\.0, \+inf\)|be finite)"):
        v.check_epsilon(eps)


def test_accepted_values_come_back_as_floats():
    assert v.check_epsilon(1) == 1.0 and isinstance(v.check_epsilon(1), float)
    assert v.check_epsilon(np.float32(0.5)) == 0.5
    assert v.check_epsilon(np.array(2.0)) == 2.0
    assert v.check_delta(0) == 0.0
    assert v.check_delta(0.999) == 0.999
    assert v.check_sensitivity(1e-12) == 1e-12


@pytest.mark.parametrize("delta", [1, 1.0, -1e-9, 2])
def test_delta_outside_unit_interval(delta):
    with pytest.raises(ValueError, match=r"delta must lie in \[0\.0, 1\.0\)"):
        v.check_delta(delta)


def test_delta_zero_can_be_excluded():
    with pytest.raises(ValueError, match=r"\(0\.0, 1\.0\)"):
        v.check_delta(0.0, allow_zero=False)


def test_message_names_argument_and_value():
    with pytest.raises(ValueError) as err:
        v.check_sensitivity(-2.5, "l2_sensitivity")
    assert "l2_sensitivity" in str(err.value) and "-2.5" in str(err.value)


@pytest.mark.parametrize("huge", [10**400, -(10**400), Fraction(10**400, 3)])
def test_numbers_beyond_the_float_range_are_refused_by_name(huge):
    # float() of such a number raises OverflowError, which named no argument
    with pytest.raises(ValueError, match="sensitivity must be at most 1.798e\\+308 in size .* 40[01] digits"):
        v.check_sensitivity(huge)
    with pytest.raises(ValueError, match="^bound must be at most"):
        v.check_real(huge, "bound", allow_inf=True)
    from dpcourse import laplace_mechanism
    with pytest.raises(ValueError, match="^sensitivity must be at most"):
        laplace_mechanism(1.0, 10**400, 1.0, rng=0)


def test_positive_int():
    assert v.check_positive_int(3) == 3
    assert v.check_positive_int(np.int64(7)) == 7
    with pytest.raises(TypeError):
        v.check_positive_int(3.0)
    with pytest.raises(ValueError, match="k must be an integer >= 1, got 0"):
        v.check_positive_int(0)
    assert v.check_positive_int(0, minimum=0) == 0


def test_real_array():
    out = v.check_real_array([1, 2, 3])
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"x must be finite everywhere"):
        v.check_real_array([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="inf"):
        v.check_real_array(np.array([[1.0, 2.0], [np.inf, 0.0]]))
    with pytest.raises(TypeError, match="booleans"):
        v.check_real_array(np.array([True, False]))
    with pytest.raises(TypeError):
        v.check_real_array(["a", "b"])
    with pytest.raises(TypeError):
        v.check_real_array("123")
    with pytest.raises(ValueError, match="empty"):
        v.check_real_array([])
    assert v.check_real_array([], allow_empty=True).size == 0


def test_bounds():
    assert v.check_bounds(0, 1) == (0.0, 1.0)
    with pytest.raises(ValueError, match="lower must be < upper"):
        v.check_bounds(2, 1)
    with pytest.raises(ValueError, match="lower must be < upper"):
        v.check_bounds(1, 1)
    with pytest.raises(ValueError, match="NaN"):
        v.check_bounds(float("nan"), 1)


def test_distribution():
    assert v.check_distribution([0.25, 0.75]).tolist() == [0.25, 0.75]
    with pytest.raises(ValueError, match="sums to"):
        v.check_distribution([0.5, 0.6])
    with pytest.raises(ValueError, match="entry 1 is -0.1"):
        v.check_distribution([1.1, -0.1])
    with pytest.raises(ValueError, match="dimension"):
        v.check_distribution([[0.5, 0.5]])


def test_as_rng():
    g = np.random.default_rng(5)
    assert v.as_rng(g) is g
    assert v.as_rng(3).random() == np.random.default_rng(3).random()
    assert isinstance(v.as_rng(None), np.random.Generator)
    for bad in (True, 1.5, "0", np.random.RandomState(0)):
        with pytest.raises(TypeError, match="rng"):
            v.as_rng(bad)
    with pytest.raises(ValueError):
        v.as_rng(-1)


def test_relation_and_choice():
    assert v.check_relation("add_remove") == "add_remove"
    assert v.check_relation("replace_one") == "replace_one"
    with pytest.raises(ValueError, match=r"relation must be one of \('add_remove', 'replace_one'\), got 'bounded'"):
        v.check_relation("bounded")
    with pytest.raises(TypeError, match="relation"):
        v.check_relation(1)
    with pytest.raises(ValueError, match="noise"):
        v.check_choice("cauchy", "noise", ("laplace", "gumbel"))


def test_flag_and_callable():
    assert v.check_flag(np.bool_(True), "monotone") is True
    for bad in (1, 0, "yes", None):
        with pytest.raises(TypeError, match="monotone must be True or False"):
            v.check_flag(bad, "monotone")
    assert v.check_callable(len) is len
    with pytest.raises(TypeError, match="mechanism must be callable, got int"):
        v.check_callable(3)


def test_binary_array():
    out = v.check_binary_array([0, 1.0, 1])
    assert out.dtype == np.int64 and out.tolist() == [0, 1, 1]
    with pytest.raises(ValueError, match=r"bits must contain only 0 and 1"):
        v.check_binary_array([0, 2, 1])
    with pytest.raises(ValueError, match="only 0 and 1") as err:
        v.check_binary_array([[0, 1], [0.5, 1]])
    assert "0.5" not in str(err.value)  # the entries are private data: no value, no index
    with pytest.raises(TypeError, match="booleans"):
        v.check_binary_array([True, False])
    with pytest.raises(ValueError, match="finite"):
        v.check_binary_array([0, np.nan])


def test_labels():
    assert v.check_labels(["A", "B"], "categories").tolist() == ["A", "B"]
    assert v.check_labels([3, 1, 2], "universe").tolist() == [3, 1, 2]
    with pytest.raises(ValueError, match="must not repeat"):
        v.check_labels(["A", "A"], "categories")
    with pytest.raises(ValueError, match="non-empty"):
        v.check_labels([], "categories")
    with pytest.raises(TypeError, match="string"):
        v.check_labels("AB", "categories")
    with pytest.raises(TypeError, match="booleans"):
        v.check_labels([True, False], "categories")
    with pytest.raises(ValueError, match="finite"):
        v.check_labels([1.0, np.inf], "universe")


@pytest.mark.parametrize("bad", [np.array(True, dtype=object), np.array(False, dtype=object),
                                 np.array(1.0, dtype=object), np.array(None, dtype=object), np.array(1 + 0j),
                                 np.array("1.0")])
def test_zero_d_arrays_of_other_kinds_are_refused(bad):
    # A Python True inside a 0-d object array once passed as epsilon = 1.
    for check in (v.check_epsilon, v.check_real):
        with pytest.raises(TypeError, match="epsilon"):
            check(bad, "epsilon")
    with pytest.raises(TypeError, match="k must be an integer"):
        v.check_positive_int(bad)
    # ... while a real 0-d array is a real number
    assert v.check_epsilon(np.array(0.5)) == 0.5 and v.check_positive_int(np.array(3)) == 3


def test_unseeded_generators_are_fresh():
    # rng=None must give fresh OS entropy: two generators from None never share a stream, and neither is the
    # stream of a small fixed seed.
    draws = [v.as_rng(None).integers(0, 2**63, size=4).tolist() for _ in range(20)]
    assert len({tuple(d) for d in draws}) == 20
    fixed = {tuple(np.random.default_rng(s).integers(0, 2**63, size=4).tolist()) for s in range(1000)}
    assert not fixed & {tuple(d) for d in draws}


# ---- caps on sizes and iterations (issue 21): refused by name, in one step, before any allocation or loop
@pytest.mark.parametrize("huge", [v.MAX_SIZE + 1, 10**12, 2**64, np.int64(2**62)])
def test_check_size_refuses_beyond_the_cap_by_name(huge):
    with pytest.raises(ValueError, match=rf"n_draws must be an integer in \[1, {v.MAX_SIZE}\].*got {int(huge)}"):
        v.check_size(huge, "n_draws")


def test_check_size_accepts_up_to_the_cap_and_other_caps():
    assert v.check_size(v.MAX_SIZE) == v.MAX_SIZE and isinstance(v.check_size(np.int64(3)), int)
    assert v.check_size(None, allow_none=True) is None
    assert v.check_size(0, "passes", minimum=0, cap=v.MAX_ITERATIONS) == 0
    with pytest.raises(ValueError, match=rf"iterations must be an integer in \[1, {v.MAX_ITERATIONS}\]"):
        v.check_size(v.MAX_ITERATIONS + 1, "iterations", cap=v.MAX_ITERATIONS)
    for bad, err in ((None, TypeError), (True, TypeError), (2.5, TypeError), ("3", TypeError), (0, ValueError)):
        with pytest.raises(err, match="size"):
            v.check_size(bad)


def test_check_shape_caps_the_number_of_values_not_each_axis():
    assert v.check_shape(None) == () and v.check_shape(3) == (3,) and v.check_shape((10**12, 0)) == (10**12, 0)
    assert v.check_shape((2, v.MAX_SIZE // 2)) == (2, v.MAX_SIZE // 2)
    for huge in (10**12, 2**64, (10**6, 10**6), (2, v.MAX_SIZE // 2 + 1)):
        with pytest.raises(ValueError, match=rf"size .* at most {v.MAX_SIZE} per call"):
            v.check_shape(huge)
    for bad in (True, 2.5, "3", [2, 2], (2, 1.5)):
        with pytest.raises(TypeError, match="size"):
            v.check_shape(bad)
    with pytest.raises(ValueError, match="size must not be negative"):
        v.check_shape((2, -1))


def test_the_caps_are_used_by_the_samplers_and_loops():
    # The fuzzer's hangs and terabyte allocations: each is now a named refusal (no allocation is tried).
    import dpcourse as dp
    calls = [
        ("size", lambda: dp.discrete_laplace(1.0, size=10**12)),
        ("size", lambda: dp.discrete_gaussian(1.0, size=(10**6, 10**6))),
        ("size", lambda: dp.geometric_mechanism(3, 1, 1.0, size=2**64)),
        ("size", lambda: dp.dp_mean([1.0, 2.0], 0.0, 3.0, 1.0, size=10**12)),
        ("size", lambda: dp.exponential_mechanism([1.0, 2.0], 1.0, 1.0, size=10**12)),
        ("size", lambda: dp.report_noisy_max([1.0, 2.0], 1.0, 1.0, size=2**64)),
        ("size", lambda: dp.permute_and_flip([1.0, 2.0], 1.0, 1.0, size=10**12)),
        ("size", lambda: dp.dp_quantile([1.0, 2.0], 0.5, 0.0, 3.0, 1.0, size=10**12)),
        ("size", lambda: dp.sparse_vector([1.0], 0.0, 1.0, 1, size=10**12)),
        ("size", lambda: dp.knorm_l2_noise(3, 1.0, 1.0, size=10**12, secure=False)),
        ("dim", lambda: dp.knorm_l2_noise(10**12, 1.0, 1.0, secure=False)),
        ("n_samples", lambda: dp.audit_epsilon(lambda x, rng: x, 0.0, 1.0, 10**12)),
        ("iterations", lambda: dp.mwem([3, 1], [[1, 0]], 1.0, iterations=10**12)),
        ("passes", lambda: dp.mwem([3, 1], [[1, 0]], 1.0, iterations=1000, passes=1000)),
    ]
    for name, call in calls:
        with pytest.raises(ValueError, match=name):
            call()


# ---- the fuzzer's worst findings (issue 21), one by one: each was an inf, a leaked error or an unnamed one
def _named(fn, name):
    with pytest.raises((TypeError, ValueError), match=name):
        fn()


def test_extreme_epsilon_is_handled_or_refused_by_name():
    import dpcourse as dp
    tiny, huge = 5e-324, 1e308
    _named(lambda: dp.gaussian_lattice(1.0, tiny, 1e-5), "epsilon")        # was ZeroDivisionError
    _named(lambda: dp.gaussian_lattice(1.0, huge, 1e-5), "epsilon")        # was OverflowError
    _named(lambda: dp.gaussian_mechanism(1.0, 1.0, huge, 1e-5, rng=0), "epsilon")
    _named(lambda: dp.geometric_mechanism(3, 1, tiny, rng=0), "epsilon")   # was OverflowError
    _named(lambda: dp.dp_histogram(["A"], tiny, relation="add_remove", categories=["A", "B"], rng=0), "epsilon")
    _named(lambda: dp.sparse_vector([1.0, 2.0], 0.0, tiny, 1, rng=0), "epsilon")
    _named(lambda: dp.above_threshold([1.0, 2.0], 0.0, tiny, rng=0), "epsilon")
    _named(lambda: dp.dp_group_by([1, 2], [0, 1], [1.0, 2.0], tiny, 1e-5, bounds=(0.0, 3.0), max_partitions=1,
                                  max_per_partition=1, rng=0), "epsilon")       # was ZeroDivisionError
    _named(lambda: dp.optimal_count_mechanism(4, huge), "epsilon")          # was OverflowError
    _named(lambda: dp.optimal_count_mechanism(4, 50.0), "epsilon")          # the LP fails beyond e^20
    _named(lambda: dp.rr_estimate_mean([1, 0, 1], tiny), "epsilon")         # was +-inf
    _named(lambda: dp.textbook_reachable([0.0], 0.0, 1.0, tiny), "epsilon")
    assert dp.discrete_gaussian_delta(huge, 3.0) == 0.0                     # was OverflowError; the sum is 0
    assert dp.discrete_gaussian_delta(30.0, 3.0) == 0.0 < dp.discrete_gaussian_delta(1.0, 3.0)
    out = dp.smooth_median(np.arange(101.0), 0.0, 100.0, 1e15, 1e-6, rng=0)  # was an unnamed sampler refusal
    assert math.isfinite(out) and abs(out - 50.0) < 1.0
    assert math.isfinite(dp.propose_test_release(np.arange(101.0), 0.0, 100.0, 5.0, 1e4, 1e-6, rng=0))


def test_no_release_is_infinite_and_no_huge_parameter_leaks():
    import dpcourse as dp
    _named(lambda: dp.smooth_median([1.0, 2.0, 3.0], 0.0, 1e308, 1.0, 1e-6, rng=0), "upper")     # was inf
    _named(lambda: dp.smooth_median([1.0, 2.0], -1e308, 1e308, 1.0, 1e-6, rng=0), "upper")       # was NaN error
    _named(lambda: dp.dp_mean([1.0, 2.0], -1e308, 1.0, 1.0, rng=0), "lower")
    _named(lambda: dp.knorm_l2_noise(3, 1e300, 1e-10, rng=0, secure=False), "epsilon")          # was +-inf noise
    assert np.isfinite(dp.knorm_l2_noise(3, 1e290, 1.0, size=1000, rng=0, secure=False)).all()
    _named(lambda: dp.analytic_gaussian_sigma(1.0, 1e-5, 1e308), "l2_sensitivity")
    _named(lambda: dp.laplace_mechanism(1.0, 1e308, 1.0, rng=0), "sensitivity")
    assert math.isfinite(dp.exponential_accuracy_gap(2**64, 1.0, 1.0, 1.0))   # was an unnamed TypeError (np.log)
    _named(lambda: dp.propose_test_release([1.0, 2.0], 0.0, 3.0, 1e308, 1.0, 1e-6, rng=0), "bound")
    _named(lambda: dp.k_anonymity({"a": [1, 2], "b": ["x"]}, ["a", "b"]), "table")


def test_reconstruction_clips_answers_without_changing_the_minimisers():
    import dpcourse as dp
    A = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]]
    # Answers beyond [0, row sum] move the LP objective by a constant only: same decoding, and no solver failure.
    assert dp.reconstruction_attack(A, [7.0, -3.0, 1.0, 9.0]).tolist() == \
        dp.reconstruction_attack(A, [1.0, 0.0, 1.0, 3.0]).tolist() == [1, 0, 1]
    assert dp.reconstruction_attack(A, [1e308, -1e308, 1.0, 1e308]).tolist() == [1, 0, 1]   # was RuntimeError


@pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max, reason="longdouble is float64 here")
def test_longdouble_beyond_the_float_range_is_clamped_not_refused():
    """A finite np.longdouble beyond the float64 range was cast to inf and refused as "not finite" while a
    neighbour holding 1e300 released. It is clamped to +-the largest float64, with no overflow warning;
    NaN and +-inf stay refused."""
    import warnings

    huge = np.longdouble("1e4000")
    top = np.finfo(np.float64).max
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = v.check_real_array(np.array([3000.0, huge, -huge], dtype=np.longdouble))
    assert out.dtype == np.float64 and out.tolist() == [3000.0, top, -top]
    for bad in (np.longdouble("nan"), np.longdouble("inf"), -np.longdouble("inf")):
        with pytest.raises(ValueError, match="finite everywhere"):
            v.check_real_array(np.array([1.0, bad], dtype=np.longdouble))
