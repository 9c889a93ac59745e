"""Contribution bounding: at most ``max_partitions`` keys per user and ``max_per_partition`` rows per key.

:func:`bound_contributions` keeps, for every user, a uniformly random set of at most ``max_partitions`` of
the partitions (keys) the user contributed to, and in each kept partition a uniformly random set of at most
``max_per_partition`` of the user's rows (lemma ``scale-lem-bounding`` of the chapter "From the course to
production"). It releases nothing; it makes the user-level sensitivities of :mod:`dpcourse.group_by` finite.

This module also holds the argument checks of grouped data (a column of privacy ids, a column of keys, an
optional column of values) that :mod:`dpcourse.partition_selection`, :mod:`dpcourse.group_by` and
:mod:`dpcourse.pipeline_dp_adaptor` share.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_rng, check_label_column, check_positive_int, check_real_array

__all__ = ["BoundedRows", "bound_contributions"]


class BoundedRows(NamedTuple):
    """The rows :func:`bound_contributions` keeps, in their original order (unpacks as a 3-tuple)."""

    user_ids: np.ndarray            #: the privacy id of each kept row
    keys: np.ndarray                #: its partition key
    values: np.ndarray | None       #: its value (None when no values were given)


# ----------------------------------------------------------------------------------------------------
# Argument checks specific to grouped data (built from the shared checks of ``_validation``).


def _labels_column(x: object, name: str) -> np.ndarray:
    """A 1-d, non-empty column of labels (ints or strings; floats must be finite; bools refused).

    A list holding an int beyond 64 bits (a 128-bit user id, say) is stored by numpy as an ``object``
    array, and whether it is depends on the values (``[-1, 2**63]`` is object, ``[-1, 2**63 - 1]`` int64):
    such a column of whole numbers and finite floats is kept, as Python numbers, instead of refused, so
    that one record's size never decides whether a release happens (CONTRIBUTING.md, "Private data").
    """
    if not isinstance(x, (str, bytes)):
        try:
            arr = np.asarray(x)
        except (ValueError, TypeError):
            arr = None
        if arr is not None and arr.dtype == object and arr.ndim == 1 and arr.size:
            items = arr.tolist()
            if all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) or
                   isinstance(v, (float, np.floating)) and np.isfinite(v) for v in items):
                return np.array([v if isinstance(v, (float, np.floating)) else int(v) for v in items], dtype=object)
    return check_label_column(x, name)


def _empty_1d(x: ArrayLike) -> bool:
    return not isinstance(x, (str, bytes)) and np.ndim(x) == 1 and np.size(x) == 0


def _columns(user_ids: ArrayLike, keys: ArrayLike, values: ArrayLike | None, *, need_values: bool,
             allow_empty: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if allow_empty and _empty_1d(user_ids) and _empty_1d(keys) and (values is None or _empty_1d(values)):
        # No rows (a release under add/remove one user, where [] neighbours every one-user table).
        if values is None and need_values:
            raise ValueError("values must be given (one finite number per row) for the metric 'sum'")
        none = np.zeros(0, dtype=np.int64)
        return none, none, (None if values is None else np.zeros(0))
    users = _labels_column(user_ids, "user_ids")
    ks = _labels_column(keys, "keys")
    if ks.size != users.size:
        raise ValueError("keys must have one entry per row of user_ids (their lengths differ)")
    if values is None:
        if need_values:
            raise ValueError("values must be given (one finite number per row) for the metric 'sum'")
        return users, ks, None
    vals = check_real_array(values, "values", ndim=1)
    if vals.size != users.size:
        raise ValueError("values must have one entry per row of user_ids (their lengths differ)")
    return users, ks, vals


# ----------------------------------------------------------------------------------------------------
# Contribution bounding.


def _rank_in_runs(sorted_ids: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... within each run of equal consecutive entries of ``sorted_ids`` (vectorized)."""
    n = sorted_ids.size
    starts = np.ones(n, dtype=bool)
    starts[1:] = sorted_ids[1:] != sorted_ids[:-1]
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    return np.arange(n) - first


def _bound_mask(uid: np.ndarray, kid: np.ndarray, m: int, c: int, gen: np.random.Generator) -> np.ndarray:
    """Boolean mask of the rows kept by contribution bounding; ``uid``/``kid`` are int codes."""
    n = uid.size
    # Per partition: order each (user, key) group's rows by a uniformly random permutation, keep ranks < c.
    n_keys = int(kid.max()) + 1
    if (int(uid.max()) + 1) * n_keys * n < 2**62:   # one int64 sort key: (user, key, random rank)
        order = np.argsort((uid.astype(np.int64) * n_keys + kid) * n + gen.permutation(n))
    else:
        order = np.lexsort((gen.permutation(n), kid, uid))
    su, sk = uid[order], kid[order]
    new_pair = np.ones(n, dtype=bool)
    new_pair[1:] = (su[1:] != su[:-1]) | (sk[1:] != sk[:-1])
    pair = np.cumsum(new_pair) - 1                  # id of the (user, key) pair of each sorted row
    first = np.maximum.accumulate(np.where(new_pair, np.arange(n), 0))
    keep_row = (np.arange(n) - first) < c
    # Across partitions: order each user's distinct keys by a uniformly random permutation, keep ranks < m.
    pair_user = su[new_pair]
    n_pairs = pair_user.size
    order2 = np.lexsort((gen.permutation(n_pairs), pair_user))
    keep_pair = np.empty(n_pairs, dtype=bool)
    keep_pair[order2] = _rank_in_runs(pair_user[order2]) < m
    mask = np.empty(n, dtype=bool)
    mask[order] = keep_row & keep_pair[pair]
    return mask


def bound_contributions(user_ids: ArrayLike, keys: ArrayLike, values: ArrayLike | None = None, *,
                        max_partitions: int, max_per_partition: int,
                        rng: int | np.random.Generator | None = None) -> BoundedRows:
    """Keep at most ``max_partitions`` keys per user and ``max_per_partition`` rows per (user, key).

    Each user's set of distinct keys is subsampled uniformly at random (without replacement) down to
    ``max_partitions`` keys, and within each kept key the user's rows are subsampled uniformly down to
    ``max_per_partition`` rows; users under the limits keep all their rows. Every user is treated
    independently of every other user.

    Guarantee: none by itself (nothing is released). Under **add/remove one user** the bounded datasets of
    two neighbours differ by the bounded rows of one user: at most ``max_partitions`` keys, each with at most
    ``max_per_partition`` rows, so a count per key has l0 sensitivity ``max_partitions`` and l-infinity
    sensitivity ``max_per_partition`` (lemma ``scale-lem-bounding``). The counts and sums of heavy users are
    biased downwards.

    Parameters
    ----------
    user_ids : array_like, shape (n,)
        The privacy id of each row (ints or strings), the unit of privacy.
    keys : array_like, shape (n,)
        The partition key of each row (ints or strings).
    values : array_like of floats, shape (n,), optional
        A finite value per row, carried along with the kept rows.
    max_partitions : int
        Largest number of distinct keys kept per user, >= 1.
    max_per_partition : int
        Largest number of rows kept per (user, key), >= 1.
    rng : None, int or numpy.random.Generator, optional
        Source of the uniform subsampling.

    Returns
    -------
    BoundedRows
        ``(user_ids, keys, values)``: the kept rows, in their original order (``values`` is None if not
        given).

    Examples
    --------
    >>> u, k, v = bound_contributions([1, 1, 1, 2], ["a", "a", "b", "a"], [1., 2., 3., 4.],
    ...                               max_partitions=2, max_per_partition=1, rng=0)
    >>> len(u)
    3
    """
    users, ks, vals = _columns(user_ids, keys, values, need_values=False, allow_empty=True)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    gen = as_rng(rng)
    uid = np.unique(users, return_inverse=True)[1].ravel()
    kid = np.unique(ks, return_inverse=True)[1].ravel()
    mask = _bound_mask(uid, kid, m, c, gen) if users.size else np.zeros(0, dtype=bool)  # an empty table too
    return BoundedRows(users[mask], ks[mask], None if vals is None else vals[mask])
