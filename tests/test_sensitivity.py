"""brute_force_sensitivity: the hand-derived sensitivities of the chapters, both relations, and bad input."""

import itertools
import math

import numpy as np
import pytest

from dpcourse import brute_force_sensitivity


def count_ones(r):
    return float(np.sum(r == 1))


def mean(r):
    return float(np.mean(r))


@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
@pytest.mark.parametrize("n", [1, 3, 5])
def test_count_has_sensitivity_one(relation, n):
    assert brute_force_sensitivity(count_ones, [0, 1], n, relation) == 1.0


@pytest.mark.parametrize("n", [1, 2, 4, 6])
def test_normalised_count_is_one_over_n_under_replace_one(n):
    assert brute_force_sensitivity(mean, [0, 1], n, "replace_one") == pytest.approx(1 / n, rel=1e-15)


def test_k_normalised_counting_queries_have_sensitivity_k_over_n():
    # records are 3-bit vectors encoded 0..7; query j asks "is bit j set?", normalised by n
    def workload(r):
        bits = (r[:, None] >> np.arange(3)) & 1
        return bits.mean(axis=0)

    for n in (1, 2, 3):
        assert brute_force_sensitivity(workload, list(range(8)), n, "replace_one") == pytest.approx(3 / n)


def test_histogram_two_versus_one_and_the_pair():
    def hist(r):
        return np.array([(r == g).sum() for g in "ABCDF"])

    assert brute_force_sensitivity(hist, list("ABCDF"), 3, "replace_one") == 2.0
    assert brute_force_sensitivity(hist, list("ABCDF"), 3, "add_remove") == 1.0
    value, x, x2 = brute_force_sensitivity(hist, list("ABCDF"), 2, "replace_one", return_pair=True)
    assert value == 2.0 and len(x) == len(x2) == 2 and sum(a != b for a, b in zip(x, x2)) == 1


def test_sum_and_mean_under_add_remove():
    universe = [0, 1, 2, 3, 4, 5]
    assert brute_force_sensitivity(np.sum, universe, 2, "add_remove") == 5.0
    assert brute_force_sensitivity(np.sum, universe, 2, "replace_one") == 5.0
    # add/remove at n = 2: removing the 5 from (0, 5) moves the mean from 5/2 to 0; adding a record to a
    # pair moves it by at most 5/3. Replace-one: (0, 0) -> (0, 5), also 5/2 = (upper - lower) / n.
    assert brute_force_sensitivity(mean, universe, 2, "add_remove") == pytest.approx(5 / 2)
    assert brute_force_sensitivity(mean, universe, 2, "replace_one") == pytest.approx(5 / 2)


def test_a_single_record_universe_still_has_add_remove_neighbours():
    assert brute_force_sensitivity(len, [7], 2, "add_remove") == 1.0
    assert brute_force_sensitivity(np.sum, [7], 2, "add_remove", return_pair=True) == (7.0, (7, 7), (7,))


def test_the_size_is_sensitive_only_under_add_remove():
    assert brute_force_sensitivity(len, [0, 1], 3, "add_remove") == 1.0
    assert brute_force_sensitivity(len, [0, 1], 3, "replace_one") == 0.0


def test_string_universe_and_order_of_records():
    # the first record's value: order-dependent, so insertion at the front matters under add/remove
    first = lambda r: float(r[0] == "b") if r.size else 0.0  # noqa: E731
    assert brute_force_sensitivity(first, ["a", "b"], 2, "add_remove") == 1.0


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(relation="bounded"), ValueError, "relation must be one of"),
    (dict(relation="add-remove"), ValueError, "relation must be one of"),
    (dict(relation=None), TypeError, "relation must be one of"),
    (dict(n=0), ValueError, "n must be an integer >= 1"),
    (dict(n=2.0), TypeError, "n must be an integer"),
    (dict(n=True), TypeError, "bool"),
    (dict(universe="01"), TypeError, "string"),
    (dict(universe=[]), ValueError, "non-empty"),
    (dict(universe=[0, 0, 1]), ValueError, "repeat"),
    (dict(universe=[True, False]), TypeError, "booleans"),
    (dict(universe=[0.0, math.nan]), ValueError, "finite"),
    (dict(universe=[[0, 1]]), ValueError, "1-d"),
    (dict(query=3), TypeError, "query must be callable"),
    (dict(universe=list(range(10)), n=6), ValueError, "max_datasets"),
    (dict(universe=[0]), ValueError, "at least 2 records under replace_one"),
])
def test_bad_arguments(kwargs, exc, match):
    args = dict(query=count_ones, universe=[0, 1], n=2, relation="replace_one")
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        brute_force_sensitivity(args["query"], args["universe"], args["n"], args["relation"])


def test_return_pair_must_be_a_flag():
    with pytest.raises(TypeError, match="return_pair must be True or False"):
        brute_force_sensitivity(count_ones, [0, 1], 2, "replace_one", return_pair=1)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_bad_query_outputs():
    with pytest.raises(ValueError, match="non-finite"):
        brute_force_sensitivity(mean, [0, 1], 1, "add_remove")  # the mean of the empty dataset
    with pytest.raises(ValueError, match="same shape"):
        brute_force_sensitivity(lambda r: r.astype(float), [0, 1], 1, "add_remove")


def test_add_remove_includes_insertions_and_removals():
    # len^2 at n = 2: a removal moves it by 4 - 1 = 3, an insertion by 9 - 4 = 5 (the maximum).
    square = lambda r: float(len(r)) ** 2  # noqa: E731
    assert brute_force_sensitivity(square, [0, 1], 2, "add_remove") == 5.0
    value, x, x2 = brute_force_sensitivity(square, [0, 1], 2, "add_remove", return_pair=True)
    assert value == 5.0 and len(x) == 2 and len(x2) == 3
    # 1/(1 + len) at n = 2: a removal moves it by 1/2 - 1/3 = 1/6, an insertion by 1/3 - 1/4 = 1/12.
    inverse = lambda r: 1.0 / (1.0 + len(r))  # noqa: E731
    assert brute_force_sensitivity(inverse, [0, 1], 2, "add_remove") == pytest.approx(1 / 6, rel=1e-15)
    value, x, x2 = brute_force_sensitivity(inverse, [0, 1], 2, "add_remove", return_pair=True)
    assert len(x) == 2 and len(x2) == 1


def _independent_brute_force(query, universe, n, relation):
    """A second enumeration, written differently: every neighbour pair listed explicitly, both directions."""
    best = 0.0
    for x in itertools.product(universe, repeat=n):
        neighbours = []
        if relation == "replace_one":
            neighbours = [x[:i] + (v,) + x[i + 1:] for i in range(n) for v in universe if v != x[i]]
        else:
            neighbours = [x[:i] + x[i + 1:] for i in range(n)]
            neighbours += [x[:i] + (v,) + x[i:] for i in range(n + 1) for v in universe]
        for y in neighbours:
            fx = np.atleast_1d(query(np.array(x, dtype=float)))
            fy = np.atleast_1d(query(np.array(y, dtype=float)))
            best = max(best, float(np.abs(fx - fy).sum()))
    return best


def _position_weighted(r):
    return float(np.sum(r * np.arange(1, len(r) + 1)))


def _top_two(r):
    s = np.sort(np.r_[r, np.zeros(2)])[::-1]
    return np.array([s[0], s[1]])


@pytest.mark.parametrize("query", [_position_weighted, _top_two, lambda r: float(np.sum(r ** 2)) + len(r)])
@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_agrees_with_an_independent_enumeration(query, relation, n):
    universe = [0, 1, 3]
    assert brute_force_sensitivity(query, universe, n, relation) == _independent_brute_force(query, universe, n, relation)


def test_complex_or_non_numeric_query_values_are_refused():
    # A complex query once gave sensitivity 0 with only a warning.
    with pytest.raises(TypeError, match="query must return real numbers, got dtype complex"):
        brute_force_sensitivity(lambda r: r.sum() + 1j, [0, 1], 2, "replace_one")
    with pytest.raises(TypeError, match="query must return real numbers"):
        brute_force_sensitivity(lambda r: "many", [0, 1], 2, "replace_one")
    with pytest.raises(TypeError, match="query must return real numbers"):
        brute_force_sensitivity(lambda r: r.sum() > 1, [0, 1], 2, "replace_one")


def test_return_pair_has_named_fields():
    """Issue 38: with return_pair, a NamedTuple ``(value, x, x_prime)``; unpacking keeps working."""
    res = brute_force_sensitivity(np.sum, [0, 1], 2, "add_remove", return_pair=True)
    assert res._fields == ("value", "x", "x_prime") and tuple(res) == (res.value, res.x, res.x_prime)
    assert res.value == 1.0 and abs(sum(res.x) - sum(res.x_prime)) == 1
    assert len(res.x) == 2 and abs(len(res.x) - len(res.x_prime)) == 1   # a record added or removed
