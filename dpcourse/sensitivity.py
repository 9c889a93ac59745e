"""Sensitivity of a query, found by brute force over every neighbouring pair of small datasets.

A hand derivation of a sensitivity ("a count changes by at most 1") is easy to get wrong by a factor of
2 or by a forgotten relation. On a small universe and a small dataset size, every dataset and every one
of its neighbours can be enumerated, and the largest change of the query measured exactly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from ._validation import check_callable, check_flag, check_labels, check_positive_int, check_relation

__all__ = ["SensitivityPair", "brute_force_sensitivity"]


class SensitivityPair(NamedTuple):
    """What :func:`brute_force_sensitivity` returns with ``return_pair=True``: the value and a pair attaining it."""

    value: float     # the largest l1 change found
    x: tuple         # a dataset (a tuple of records) ...
    x_prime: tuple   # ... and a neighbour of it whose answers differ by ``value``


def brute_force_sensitivity(query: Callable[[np.ndarray], Any], universe: Sequence[Any], n: int, relation: str, *,
                            max_datasets: int = 20_000, return_pair: bool = False) -> float | SensitivityPair:
    """The largest l1 change of ``query`` between neighbouring datasets, one of them of size ``n``.

    Enumerates every dataset ``x`` of ``n`` records from ``universe`` (all ``len(universe)**n`` sequences) and
    every neighbour ``x'`` under ``relation``: under ``"replace_one"``, ``x'`` differs from ``x`` in exactly one
    position; under ``"add_remove"``, ``x'`` is ``x`` with one record removed or one record of the universe
    inserted at any position. Returns ``max ||query(x) - query(x')||_1`` over these pairs (definition
    ``def-l1-sensitivity``): a *lower bound* on the global sensitivity (a supremum over all sizes and
    universes), which confirms or refutes a hand-derived value on small cases.

    Parameters
    ----------
    query : callable
        ``query(records) -> float or array``: takes a 1-d numpy array of records (possibly empty under
        add/remove) and returns a finite number or a fixed-shape array of finite numbers.
    universe : sequence of numbers or strings
        The possible records, without repetitions (e.g. ``[0, 1]`` or ``["A", "B", "C"]``); at least two
        under replace-one.
    n : int
        Dataset size, >= 1.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation.
    max_datasets : int, optional
        Refuse (ValueError) to enumerate more than this many datasets of size ``n`` (default 20 000).
    return_pair : bool, optional
        Also return one pair ``(x, x')`` that attains the maximum, as tuples of records.

    Returns
    -------
    float or SensitivityPair
        The sensitivity found; with ``return_pair``, the NamedTuple ``(value, x, x_prime)``.

    Examples
    --------
    The normalised count of ones changes by 1/n under replace-one:

    >>> brute_force_sensitivity(lambda r: r.mean(), [0, 1], n=4, relation="replace_one")
    0.25

    A histogram over three grades changes by 2 under replace-one and by 1 under add/remove:

    >>> hist = lambda r: np.array([(r == g).sum() for g in "ABC"])
    >>> brute_force_sensitivity(hist, list("ABC"), 3, "replace_one"), brute_force_sensitivity(hist, list("ABC"), 3, "add_remove")
    (2.0, 1.0)
    """
    check_callable(query, "query")
    u = check_labels(universe, "universe")
    n = check_positive_int(n, "n")
    relation = check_relation(relation)
    limit = check_positive_int(max_datasets, "max_datasets")
    return_pair = check_flag(return_pair, "return_pair")
    m = u.size
    if relation == "replace_one" and m < 2:
        raise ValueError(f"universe must hold at least 2 records under replace_one (got {m}): with one possible "
                         "record no two datasets of the same size differ, so there is no neighbouring pair")
    if n * math.log(m) > math.log(limit):
        raise ValueError(f"{m}**{n} datasets exceed max_datasets={limit}; use a smaller universe or n")

    cache: dict[tuple, np.ndarray] = {}

    def f(idx: tuple) -> np.ndarray:
        if idx not in cache:
            raw = np.asarray(query(u[np.array(idx, dtype=np.intp)]))
            if raw.dtype == bool or raw.dtype.kind not in "iuf":  # complex, str, object, bool: no silent cast
                raise TypeError(f"query must return real numbers, got dtype {raw.dtype} on the dataset "
                                f"{tuple(u[list(idx)].tolist())}")
            value = raw.astype(float)
            if not np.isfinite(value).all():
                raise ValueError(f"query returned a non-finite value on the dataset {tuple(u[list(idx)].tolist())}")
            cache[idx] = value
        return cache[idx]

    def neighbours(idx: tuple) -> Iterator[tuple]:
        if relation == "replace_one":
            for i in range(n):
                for j in range(m):
                    if j != idx[i]:
                        yield idx[:i] + (j,) + idx[i + 1:]
        else:
            for i in range(n):
                yield idx[:i] + idx[i + 1:]
            for i in range(n + 1):
                for j in range(m):
                    yield idx[:i] + (j,) + idx[i:]

    best = -1.0
    best_pair: tuple[tuple, tuple] = ((), ())   # every dataset has a neighbour: both are set below
    for idx in itertools.product(range(m), repeat=n):
        fx = f(idx)
        for nb in neighbours(idx):
            fy = f(nb)
            if fy.shape != fx.shape:
                raise ValueError(f"query must return the same shape on every dataset, got {fx.shape} and {fy.shape}")
            change = float(np.abs(fx - fy).sum())
            if change > best:
                best, best_pair = change, (idx, nb)
    if not return_pair:
        return best
    x, y = best_pair
    return SensitivityPair(best, tuple(u[list(x)].tolist()), tuple(u[list(y)].tolist()))
