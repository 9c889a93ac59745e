"""Error messages about private data hold nothing computed from the data (issue 21, item 3).

The policy (CONTRIBUTING.md, "Private data"): private data that breaks a function's input contract
(NaN or +-inf, a row norm above the declared bound, a user in more partitions than declared, a negative
or fractional count, a label outside the declared domain) is refused with a message that names the
argument and the rule broken, and nothing else: no index, no value, no norm, no count, no maximum, no
example record. An exception is read by whoever runs the code, and often logged: a message such as
"row 4817 has norm 7.12346" would publish a record without any noise.

Every case below plants a distinctive record (index 4817, norm 7.123456, a user 90210 with 37
partitions, ...) and asserts that the message quotes none of it.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcourse
from dpcourse import queries as Q

N = 5000
AT = 4817           # the index of the planted record: never in a message
HIDDEN_INDEX = ("4817", "(4817", "[4817")


def _with(value, fill=1.0, n=N):
    a = np.full(n, fill, dtype=float)
    a[AT] = value
    return a


def _message(call) -> str:
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    return str(err.value)


def _assert_quotes_nothing(msg: str, *planted: str):
    for s in HIDDEN_INDEX + planted:
        assert s not in msg, f"the message quotes {s!r} computed from the private data: {msg!r}"


def _x_with_row(row):
    X = np.full((N, 2), 0.1)
    X[AT] = row
    return X


Y = np.r_[np.zeros(N // 2), np.ones(N - N // 2)]
QUERIES = np.zeros((2, N))
QUERIES[0, :10] = 1
QUERIES[1, 10:20] = 1


@pytest.mark.parametrize("method", ["output", "objective"])
def test_logistic_regression_row_norm_above_one(method):
    msg = _message(lambda: dpcourse.dp_logistic_regression(_x_with_row([7.123456, 0.0]), Y, 1.0, 1e-5,
                                                           method=method, rng=0))
    assert "norm <= 1" in msg                       # the rule is named ...
    _assert_quotes_nothing(msg, "7.12", "7.1234")   # ... the row and its norm are not


def test_logistic_regression_labels():
    y = Y.copy()
    y[AT] = 4.5
    msg = _message(lambda: dpcourse.dp_logistic_regression(_x_with_row([0.1, 0.1]), y, 1.0, 1e-5, method="output",
                                                           rng=0))
    assert "labels" in msg
    _assert_quotes_nothing(msg, "4.5")


def test_select_partitions_user_with_too_many_partitions():
    user_ids = np.r_[np.full(37, 90210), np.arange(100)]
    keys = np.r_[np.arange(37) + 500, np.arange(100)]
    msg = _message(lambda: dpcourse.select_partitions(user_ids, keys, 1.0, 1e-6, max_partitions=2, rng=0))
    assert "max_partitions=2" in msg                # the public parameter may be named
    _assert_quotes_nothing(msg, "37", "90210", "536")


def test_partition_selection_probability_user_counts():
    msg = _message(lambda: dpcourse.partition_selection_probability(_with(-37.5), 1.0, 1e-6))
    _assert_quotes_nothing(msg, "37.5")


@pytest.mark.parametrize("count, planted", [(-6.5, "6.5"), (2.71828, "2.718")])
@pytest.mark.parametrize("release", ["mwem", "smalldb", "laplace_per_query", "gaussian_per_query"])
def test_histogram_counts(release, count, planted):
    h = _with(count)
    calls = {
        "mwem": lambda: dpcourse.mwem(h, QUERIES, 1.0, iterations=1, rng=0),
        "smalldb": lambda: dpcourse.smalldb(h, QUERIES, 1.0, m=1, rng=0),
        "laplace_per_query": lambda: Q.laplace_per_query(h, QUERIES, 1.0, rng=0),
        "gaussian_per_query": lambda: Q.gaussian_per_query(h, QUERIES, 1.0, 1e-6, rng=0),
    }
    _assert_quotes_nothing(_message(calls[release]), planted)


def test_histogram_of_an_empty_dataset_quotes_no_total():
    msg = _message(lambda: dpcourse.mwem(np.zeros(N), QUERIES, 1.0, iterations=1, rng=0))
    assert "at least one record" in msg and "0.0" not in msg and "total" not in msg


def test_dp_histogram_labels():
    # An undeclared category is a broken contract (refused); a number outside the bins is clamped
    # (tests/test_histogram.py::test_records_outside_the_bins_are_clamped), so it has no message.
    data = np.r_[np.full(37, "Zebra42"), np.full(100, "A")]
    msg = _message(lambda: dpcourse.dp_histogram(data, 1.0, relation="add_remove", categories=["A", "B"], rng=0))
    _assert_quotes_nothing(msg, "Zebra42", "37")


def test_bits():
    msg = _message(lambda: dpcourse.randomized_response(_with(2.5, 0.0), 1.0, rng=0))
    _assert_quotes_nothing(msg, "2.5")


@pytest.mark.parametrize("oracle", ["krr", "unary_encoding", "local_hashing"])
def test_local_oracle_values(oracle):
    values = _with(123457, 0.0).astype(int)
    msg = _message(lambda: getattr(dpcourse, oracle)(values, 4, 1.0, rng=0))
    _assert_quotes_nothing(msg, "123457")


def test_geometric_mechanism_values():
    values = np.zeros(N, dtype=object)
    values[AT] = 1.625
    _assert_quotes_nothing(_message(lambda: dpcourse.geometric_mechanism(values, 1, 1.0, rng=0)), "1.625")


#: Releases whose private argument is a float array: a NaN or an infinity at index 4817 is refused
#: (the input contract: the caller removes or imputes them first) without naming where it is.
NON_FINITE = {
    "laplace_mechanism": lambda a: dpcourse.laplace_mechanism(a, 1.0, 1.0, rng=0),
    "gaussian_mechanism": lambda a: dpcourse.gaussian_mechanism(a, 1.0, 1.0, 1e-6, rng=0),
    "dp_mean": lambda a: dpcourse.dp_mean(a, 0.0, 10.0, 1.0, rng=0),
    "dp_median": lambda a: dpcourse.dp_median(a, 0.0, 10.0, 1.0, rng=0, resolution=64),
    "dp_quantile": lambda a: dpcourse.dp_quantile(a, 0.3, 0.0, 10.0, 1.0, rng=0, resolution=64),
    "smooth_median": lambda a: dpcourse.smooth_median(a, 0.0, 10.0, 1.0, 1e-6, rng=0),
    "propose_test_release": lambda a: dpcourse.propose_test_release(a, 0.0, 10.0, 5.0, 1.0, 1e-6, rng=0),
    "sample_and_aggregate": lambda a: dpcourse.sample_and_aggregate(a, np.median, 4, 0.0, 10.0, 1.0, rng=0,
                                                                    resolution=64),
    "sparse_vector": lambda a: dpcourse.sparse_vector(a, 0.5, 1.0, 1, rng=0),
    "above_threshold": lambda a: dpcourse.above_threshold(a, 0.5, 1.0, rng=0),
    "exponential_mechanism": lambda a: dpcourse.exponential_mechanism(a, 1.0, 1.0, rng=0),
    "permute_and_flip": lambda a: dpcourse.permute_and_flip(a, 1.0, 1.0, rng=0),
    "report_noisy_max": lambda a: dpcourse.report_noisy_max(a, 1.0, 1.0, rng=0),
    "dp_histogram": lambda a: dpcourse.dp_histogram(a, 1.0, relation="add_remove", bins=[0, 1, 2], rng=0),
    "dp_group_by": lambda a: dpcourse.dp_group_by(np.arange(N), np.arange(N) % 3, a, 1.0, 1e-6, bounds=(0.0, 2.0),
                                                  max_partitions=1, max_per_partition=1, rng=0),
    "dp_logistic_regression": lambda a: dpcourse.dp_logistic_regression(np.c_[a * 0.1, a * 0.1], Y, 1.0, 1e-5,
                                                                        method="output", rng=0),
    "mwem": lambda a: dpcourse.mwem(a, QUERIES, 1.0, iterations=1, rng=0),
}


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("release", sorted(NON_FINITE))
def test_non_finite_private_values(release, bad):
    msg = _message(lambda: NON_FINITE[release](_with(bad)))
    _assert_quotes_nothing(msg)


def test_generalize_values_outside_the_edges():
    from dpcourse.deidentification import generalize

    msg = _message(lambda: generalize(_with(123.456, 20.0), [0.0, 50.0, 100.0]))
    assert "[0.0, 100.0]" in msg                    # the public edges may be named
    _assert_quotes_nothing(msg, "123.456")
