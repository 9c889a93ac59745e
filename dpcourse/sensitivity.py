"""Sensitivity of a query, found by brute force over every neighbouring pair of small datasets.

A hand derivation of a sensitivity ("a count changes by at most 1") is easy to get wrong by a factor of
2 or by a forgotten relation. On a small universe and a small dataset size, every dataset and every one
of its neighbours can be enumerated, and the largest change of the query measured exactly.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._validation import check_callable, check_flag, check_labels, check_positive_int, check_relation

__all__ = ["brute_force_sensitivity"]


def brute_force_sensitivity(query, universe, n, relation, *, max_datasets=20_000, return_pair=False):
    """The largest l1 change of ``query`` between neighbouring datasets, one of them of size ``n``.

    Enumerates every dataset ``x`` of ``n`` records drawn from ``universe`` (all ``len(universe)**n``
    sequences) and every neighbour ``x'`` of ``x`` under ``relation``:

    * ``"replace_one"``: ``x'`` has size ``n`` and differs from ``x`` in exactly one position;
    * ``"add_remove"``: ``x'`` is ``x`` with one record removed (size ``n - 1``) or one record of the
      universe inserted at any position (size ``n + 1``).

    It returns ``max ||query(x) - query(x')||_1``, the l1 sensitivity of the query restricted to these
    pairs (definition ``def-l1-sensitivity``). The global sensitivity is the supremum over all sizes and
    all universes; a brute-force value is a *lower bound* on it that confirms (or refutes) a hand-derived
    value on small cases. The Laplace mechanism calibrated with the value is epsilon-DP under the same
    relation (theorem ``thm-laplace-privacy``).

    Parameters
    ----------
    query : callable
        ``query(records) -> float or array``: takes a 1-d numpy array of records (possibly empty under
        add/remove) and returns a finite number or a fixed-shape array of finite numbers.
    universe : sequence of numbers or strings
        The possible records, without repetitions (e.g. ``[0, 1]`` or ``["A", "B", "C"]``); at least two
        under replace-one, where a single possible record leaves no neighbouring pair.
    n : int
        Dataset size, >= 1.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation.
    max_datasets : int, optional
        Refuse to enumerate more than this many datasets of size ``n`` (default 20 000).
    return_pair : bool, optional
        Also return one pair ``(x, x')`` that attains the maximum, as tuples of records.

    Returns
    -------
    float, or (float, tuple, tuple) if ``return_pair``

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

    def neighbours(idx: tuple):
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

    best, best_pair = -1.0, None
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
    return best, tuple(u[list(x)].tolist()), tuple(u[list(y)].tolist())
