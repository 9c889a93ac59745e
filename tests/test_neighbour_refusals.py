"""Neighbours are both answered or both refused (CONTRIBUTING.md, "Private data", part 1).

tests/test_extreme_magnitudes.py walks one record along a ladder of float sizes. These cases are the
pairs of neighbours that a neighbour fuzzer found to be told apart by an exception, i.e. by an infinite
privacy loss, although each record is a finite number:

* a Python int beyond 64 bits (or beyond the float range) in a list: numpy stores the whole list as an
  ``object`` array, so ``[-1, 2**63]`` was refused where ``[-1, 2**63 - 1]`` (int64) was released, and
  ``[1.0, 10**400]`` where ``[1.0, 1e308]`` was released (replace-one neighbours, and add/remove ones
  with the record added to ``[-1]`` or ``[1.0]``);
* the empty dataset under add/remove: ``dp_quantile([])`` was refused while ``dp_quantile([v])`` was
  released, and ``[]`` and ``[v]`` are add/remove neighbours.

The same fuzzer found one output told apart with certainty without any exception: the *dtype* of the keys
released by ``select_partitions`` and ``dp_group_by`` was the key column's, set by every key, released or
not (``<U20`` when one never-released user had a 20-character key, float64 when an unreleased key was 2.5).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcourse

MAX_FLOAT = float(np.finfo(np.float64).max)

#: Releases whose private argument is a 1-d list of real numbers: call(d) -> output.
FLOAT_RELEASES = {
    "laplace_mechanism": lambda d: dpcourse.laplace_mechanism(d, 1.0, 1.0, rng=0),
    "gaussian_mechanism": lambda d: dpcourse.gaussian_mechanism(d, 1.0, 1.0, 1e-6, rng=0),
    "dp_mean": lambda d: dpcourse.dp_mean(d, 0.0, 10.0, 1.0, rng=0),
    "dp_histogram": lambda d: dpcourse.dp_histogram(d, 1.0, relation="add_remove", bins=[0, 1, 2], rng=0),
    "sparse_vector": lambda d: dpcourse.sparse_vector(d, 0.5, 1.0, 1, rng=0),
    "above_threshold": lambda d: dpcourse.above_threshold(d, 0.5, 1.0, rng=0),
    "exponential_mechanism": lambda d: dpcourse.exponential_mechanism(d, 1.0, 1.0, rng=0),
    "permute_and_flip": lambda d: dpcourse.permute_and_flip(d, 1.0, 1.0, rng=0),
    "report_noisy_max": lambda d: dpcourse.report_noisy_max(d, 1.0, 1.0, rng=0),
    "dp_median": lambda d: dpcourse.dp_median(d, 0.0, 10.0, 1.0, rng=0, resolution=64),
    "dp_quantile": lambda d: dpcourse.dp_quantile(d, 0.3, 0.0, 10.0, 1.0, rng=0, resolution=64),
    "smooth_median": lambda d: dpcourse.smooth_median(d, 0.0, 10.0, 1.0, 1e-6, rng=0),
    "propose_test_release": lambda d: dpcourse.propose_test_release(d, 0.0, 10.0, 5.0, 1.0, 1e-6, rng=0),
    "dp_group_by": lambda d: dpcourse.dp_group_by(list(range(len(d))), ["a"] * len(d), d, 1.0, 1e-6,
                                                  bounds=(0.0, 10.0), max_partitions=1, max_per_partition=1,
                                                  public_partitions=["a", "b"], rng=0),
    "dp_logistic_regression": lambda d: dpcourse.dp_logistic_regression(
        [[v, 0.1] for v in d], [i % 2 for i in range(len(d))], 1.0, 1e-5, sampling_rate=0.5, steps=2,
        expected_batch_size=2.0, rng=0),
}

#: (x, x'): neighbours whose only difference is one record's size (replace-one, then add/remove).
BIG_INT_PAIRS = [
    ([-1, 2, 2**63 - 1], [-1, 2, 2**63]),              # int64 array / object array
    ([1.0, 2.0, 1e308], [1.0, 2.0, 10**400]),          # float array / object array, beyond the float range
    ([1.0, 2.0, -MAX_FLOAT], [1.0, 2.0, -(10**400)]),
    ([-1, 2], [-1, 2, 2**64]),                         # add/remove
    ([1.0, 2.0], [1.0, 2.0, 10**400]),
]


@pytest.mark.parametrize("name", sorted(FLOAT_RELEASES))
def test_ints_beyond_64_bits_are_answered_like_their_neighbours(name):
    call = FLOAT_RELEASES[name]
    for x, x_prime in BIG_INT_PAIRS[:2] if name == "dp_logistic_regression" else BIG_INT_PAIRS:  # (slow one)
        call(x)                                        # the int64 / float neighbour is released ...
        call(x_prime)                                  # ... so the object-array neighbour must be too
        call(np.array(x_prime, dtype=object))


def test_object_arrays_are_read_as_clamped_floats():
    from dpcourse._validation import check_real_array

    out = check_real_array([1, 10**400, -(10**400), 2**64, np.uint64(2**64 - 1), 0.5])
    assert out.dtype == np.float64
    assert out.tolist() == [1.0, MAX_FLOAT, -MAX_FLOAT, 2.0**64, 2.0**64, 0.5]
    for bad in ([1, "a", 10**400], [None, 10**400], np.array([True, 10**400], dtype=object)):
        with pytest.raises(TypeError, match="real numbers"):   # a type breach, both neighbours alike
            check_real_array(bad)
    with pytest.raises(ValueError, match="finite"):
        check_real_array([10**400, float("nan")])


@pytest.mark.parametrize("name", ["dp_quantile", "dp_median", "dp_histogram"])
def test_empty_dataset_is_answered_under_add_remove(name):
    # These releases are epsilon-DP under add/remove: [] and [v] are neighbours, so [] is answered.
    call = FLOAT_RELEASES[name]
    for v in (0.0, 5.0, 1e308):
        call([v])
    out = call([])
    assert np.all(np.isfinite(out))


def test_empty_quantile_is_uniform_on_the_grid():
    # n = 0: one interval holding all 5 grid points, rank error 0: the draw is uniform on the grid.
    starts, p = dpcourse.dp_quantile_probabilities([], 0.3, 0.0, 10.0, 1.0, resolution=4)
    assert starts.tolist() == [0, 5] and p.tolist() == [1.0]


KEY_NEIGHBOURS = [  # (keys of users 0..198, the key of the one user 199 added in the neighbour)
    (np.full(199, "a"), "averyveryverylongkey"),
    (np.zeros(199, dtype=np.int64), 2.5),
    (np.zeros(199, dtype=np.int64), 2**64 - 1),
]


@pytest.mark.parametrize("keys, extra", KEY_NEIGHBOURS)
def test_released_keys_do_not_reveal_unreleased_ones(keys, extra):
    # Add/remove one user (user 199, alone in a partition: kept with probability at most delta, and not
    # with this seed). Both releases must be the same array, dtype included: keys 'a' (or 0) only.
    users = np.arange(200)
    with_extra = np.array(keys.tolist() + [extra])
    releases = [
        lambda u, k: dpcourse.select_partitions(u, k, 1.0, 1e-6, rng=0),
        lambda u, k: dpcourse.dp_group_by(u, k, np.ones(k.size), 1.0, 1e-6, bounds=(0.0, 1.0), max_partitions=1,
                                          max_per_partition=1, rng=0)["keys"],
    ]
    for release in releases:
        without, with_ = release(users[:199], keys), release(users, with_extra)
        assert without.tolist() == with_.tolist() == keys[:1].tolist()
        assert without.dtype == with_.dtype, (without.dtype, with_.dtype)


@pytest.mark.parametrize("public", [None, ["a", "b"]])
def test_empty_table_is_answered_under_add_remove_one_user(public):
    # select_partitions and dp_group_by are private under add/remove one user: the empty table and a
    # one-user table are neighbours, so both are answered (and an empty key release looks the same).
    def group_by(u, k, v):
        return dpcourse.dp_group_by(u, k, v, 1.0, 1e-6, bounds=(0.0, 10.0), max_partitions=1,
                                    max_per_partition=1, public_partitions=public, rng=0)

    empty, one = group_by([], [], []), group_by(["u"], ["a"], [3.0])
    assert empty["keys"].dtype == one["keys"].dtype and empty["keys"].tolist() == one["keys"].tolist()
    assert empty["count"].shape == one["count"].shape and empty["sum"].shape == one["sum"].shape
    for keys in (["a"], [7], ["averyveryverylongkey"]):
        none, single = (dpcourse.select_partitions(u, k, 1.0, 1e-6, rng=0) for u, k in (([], []), (["u"], keys)))
        assert none.tolist() == single.tolist() == [] and none.dtype == single.dtype


def test_dpsgd_answers_tables_of_zero_and_one_rows():
    # DP-SGD is private under add/remove one: 0, 1 and 2 rows are a chain of neighbours (it refused < 2).
    kw = dict(sampling_rate=0.5, steps=2, expected_batch_size=2.0, rng=0)
    for X, y in ((np.zeros((0, 2)), []), ([[0.1, 0.2]], [1]), ([[0.1, 0.2], [0.3, 0.1]], [1, 0])):
        w = dpcourse.dp_logistic_regression(X, y, 1.0, 1e-5, **kw)
        assert w.shape == (2,) and np.isfinite(w).all()


ROWS = 4817   # the private number of rows: never in a message


@pytest.mark.parametrize("call", [
    lambda: dpcourse.dp_mean(np.zeros((ROWS, 2)), 0.0, 1.0, 1.0, rng=0),
    lambda: dpcourse.dp_histogram(np.zeros((ROWS, 2)), 1.0, relation="add_remove", bins=[0, 1], rng=0),
    lambda: dpcourse.sample_and_aggregate(np.zeros((ROWS, 2, 2)), np.mean, 2, 0.0, 1.0, 1.0, rng=0),
    lambda: dpcourse.select_partitions(np.arange(ROWS), np.zeros(ROWS + 1), 1.0, 1e-6, rng=0),
    lambda: dpcourse.dp_group_by(np.arange(ROWS), np.zeros(ROWS), np.zeros(ROWS - 1), 1.0, 1e-6, bounds=(0, 1),
                                 max_partitions=1, max_per_partition=1, rng=0),
    lambda: dpcourse.select_partitions(np.zeros((ROWS, 2)), np.zeros((ROWS, 2)), 1.0, 1e-6, rng=0),
    lambda: dpcourse.dp_logistic_regression(np.zeros((ROWS, 2)), np.zeros(ROWS + 1), 1.0, 1e-5, method="output",
                                            rng=0),
], ids=["dp_mean", "dp_histogram", "sample_and_aggregate", "select_partitions", "dp_group_by", "labels_2d",
        "dp_logistic_regression"])
def test_malformed_private_arrays_quote_no_size(call):
    # A malformed private array (wrong dimensions, columns of different lengths) is refused without
    # quoting its shape: under add/remove the number of records is itself private.
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    for s in (str(ROWS), str(ROWS + 1), str(ROWS - 1)):
        assert s not in str(err.value), str(err.value)


@pytest.mark.parametrize("user, key", [(500, 10**400), (500, 2**70), (2**64, 2**64), (-(2**63) - 1, 0)],
                         ids=["key 10**400", "key 2**70", "id and key 2**64", "id -2**63-1"])
def test_user_ids_and_keys_beyond_64_bits_are_answered(user, key):
    # A user id or key beyond 64 bits turns the column into an object array; it was refused where the
    # neighbour without that user was released. Both are answered now, with the same (rng-seeded) output.
    users, keys = list(range(199)), [0] * 199
    releases = [
        lambda u, k: dpcourse.select_partitions(u, k, 1.0, 1e-6, rng=0),
        lambda u, k: dpcourse.dp_group_by(u, k, [1.0] * len(u), 1.0, 1e-6, bounds=(0, 1), max_partitions=1,
                                          max_per_partition=1, rng=0)["keys"],
    ]
    for release in releases:
        without, with_ = release(users, keys), release(users + [user], keys + [key])
        assert without.tolist() == with_.tolist() == [0] and without.dtype == with_.dtype
    big = dpcourse.select_partitions(list(range(400)), [2**70] * 400, 1.0, 1e-6, rng=0)
    assert big.tolist() == [2**70]                      # released exactly (no rounding through a float)
