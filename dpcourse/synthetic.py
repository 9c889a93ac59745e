"""Synthetic data from noisy marginals: MST (McKenna, Miklau & Sheldon 2021) with an exact tree model.

The chapter "Synthetic data from noisy marginals" proves what is used here:

* ``syn-thm-privacy``: the whole pipeline is rho-zCDP under the stated neighbouring relation
  (add/remove one record, or replace one record): three Gaussian measurement steps and the
  exponential-mechanism selection, composed; :func:`mst_budget` computes every constant.
* ``syn-thm-tree``: on a forest, marginals that agree on their shared one-way marginals are reproduced
  exactly by the product ``prod_i p_i prod_(ij) q_ij / (p_i p_j)``, which is also the maximum-entropy
  distribution with those edge marginals *and* one-way marginals (an attribute on no edge needs its own);
  :func:`sample_tree` samples it by ancestral sampling and :func:`tree_joint` computes it on a small domain.
* ``syn-lem-consistency``: how the noisy marginals are made non-negative and consistent first
  (:func:`fit_tree_marginals`): a projection onto the simplex and Sinkhorn scaling. That step is a
  heuristic (not the maximum-likelihood fit Private-PGM computes); the model fitted from its output is exact.

The measurements use the exact discrete Gaussian sampler (:func:`dpcourse.discrete_gaussian`) on the
integer counts; the selection uses :func:`dpcourse.exponential_mechanism` (exact sampling).
Private-PGM (``mbi``) is not used: it needs jax, several hundred MB and seconds of import per process.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ._validation import as_rng, check_positive_int, check_real, check_relation, check_size
from .discrete import discrete_gaussian
from .selection import exponential_mechanism

__all__ = ["mst_synthesize", "independent_synthesize", "mst_budget", "marginal_errors", "SyntheticRelease"]

#: Shares of rho spent on the one-way measurements, the selection and the two-way measurements (MST's split).
MST_SPLIT = (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)
#: Caps on public sizes: attributes, values per attribute, cells of a joint table built by :func:`tree_joint`.
MAX_ATTRIBUTES = 64
MAX_VALUES = 1000
MAX_JOINT_CELLS = 2**22
#: Cap on the cells of all two-way marginals together, sum over pairs of dom[i] * dom[j]: MST scores every pair
#: (and measures d - 1 of them), so this bounds its time and memory: about 6 CPU-s and 0.45 GB near the cap (six
#: attributes of 1000 values) when Sinkhorn's scaling converges in a few rounds. On strongly dependent, skewed data
#: it needs thousands of rounds on a 1000 x 1000 table, about 1.5 ms each, up to SINKHORN_ITERATIONS per measured
#: pair: 55 CPU-s were measured below the cap (six such attributes, 10**5 records), and five tables of 10**6 cells
#: at 10**4 rounds each make about 80 CPU-s at most.
MAX_PAIR_CELLS = 2**24
#: Largest number of synthetic records drawn in one call.
MAX_RECORDS = 10**7
#: Weight of the independent table mixed into each projected two-way marginal before Sinkhorn scaling.
TREE_MIX = 1e-3
#: Sinkhorn scaling stops when every margin is within this of its target (or after SINKHORN_ITERATIONS).
SINKHORN_TOL = 1e-12
SINKHORN_ITERATIONS = 10_000
#: The selection scores are computed exactly in integers on this grid (units of 1/SCORE_GRID count).
SCORE_GRID = 2**10
#: Noise scales are rounded up to this dyadic grid (exact rationals for the discrete Gaussian sampler).
SIGMA_GRID = 2**20
MAX_SIGMA = 2.0**40


def _check_domain(domain: Sequence[int]) -> tuple[int, ...]:
    if isinstance(domain, (str, bytes)) or not hasattr(domain, "__len__"):
        raise TypeError(f"domain must be a sequence of positive integers (values per attribute), got {domain!r}")
    dom = tuple(check_positive_int(k, "domain entry") for k in domain)
    if not 2 <= len(dom) <= MAX_ATTRIBUTES:
        raise ValueError(f"domain must list between 2 and MAX_ATTRIBUTES = {MAX_ATTRIBUTES} attributes, got "
                         f"{len(dom)}")
    if max(dom) > MAX_VALUES:
        raise ValueError(f"each domain entry must be at most MAX_VALUES = {MAX_VALUES} values, got {max(dom)}")
    return dom


def _check_records(data: npt.ArrayLike, dom: tuple[int, ...], name: str = "data") -> np.ndarray:
    """Integer codes of shape (n, d); a code outside ``range(domain[j])`` is clamped to the nearest end.

    Clamping a record's code is a map applied to each record separately, so neighbouring datasets stay
    neighbours and every sensitivity is unchanged. NaN, +-inf and non-whole numbers break the contract
    (codes are whole numbers) and are refused with a message that holds nothing computed from the data.
    """
    if isinstance(data, (str, bytes)):
        raise TypeError(f"{name} must be a 2-d array of integer codes, got a string")
    arr = _ragged_safe_array(data, name)
    if arr.ndim == 1 and arr.size == 0:           # [] is the empty data set (a filter that kept no record)
        return np.zeros((0, len(dom)), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != len(dom):
        raise ValueError(f"{name} must be a 2-d array with one column per domain entry ({len(dom)} columns), got "
                         f"{arr.ndim} dimensions" + (f" and {arr.shape[1]} columns" if arr.ndim == 2 else ""))
    hi = np.array(dom, dtype=np.int64) - 1
    if arr.dtype == bool:
        raise TypeError(f"{name} must hold integer codes, got booleans (use 0 and 1)")
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "u":
            arr = np.minimum(arr, np.uint64(2**62)).astype(np.int64)
        return np.clip(arr.astype(np.int64, copy=False), 0, hi)
    if arr.dtype.kind == "O":
        return np.array([[_object_code(v, int(h), name) for v, h in zip(row, hi)] for row in arr],
                        dtype=np.int64).reshape(arr.shape)
    if arr.dtype.kind != "f":
        raise TypeError(f"{name} must hold integer codes, got non-numeric values: recode the column before the call")
    if not np.isfinite(arr).all() or (arr != np.floor(arr)).any():
        raise ValueError(f"{name} must hold whole-number codes (no NaN, inf or fractions): recode or impute "
                         f"the column before the call")
    return np.clip(arr, 0, hi).astype(np.int64)


def _ragged_safe_array(data: npt.ArrayLike, name: str) -> np.ndarray:
    """``np.asarray(data)``, but rows of unequal length raise a named ValueError quoting nothing about the data.

    numpy's own error for a ragged list prints the detected shape, that is the number of records (protected
    under add/remove one); it is suppressed here (raised outside the ``except`` block, so no context is kept).
    """
    try:
        return np.asarray(data)
    except ValueError:
        pass
    raise ValueError(f"{name} must be a two-dimensional array of integer codes whose rows all have one entry per "
                     f"domain attribute (some rows have a different length or are not sequences): fix the records "
                     f"before the call")


def _object_code(v: object, h: int, name: str) -> int:
    """One code of an object array: an integer of any size is clamped to [0, h]; a float must be whole."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, numbers.Real)):
        raise TypeError(f"{name} must hold whole-number codes; clean or recode the column before the call")
    if isinstance(v, numbers.Integral):
        return min(max(int(v), 0), h)      # a whole number of any size is clamped
    if isinstance(v, numbers.Rational) and v.denominator == 1:
        return min(max(int(v.numerator), 0), h)      # Fraction(10**400) too
    if isinstance(v, np.floating):         # float16 to longdouble, decided in the value's own precision:
        if not np.isfinite(v) or v != np.floor(v):     # float(np.longdouble("1e4000")) would be inf
            raise ValueError(f"{name} must hold whole-number codes (no NaN, inf or fractions): recode or impute "
                             f"the column before the call")
        return h if v > h else (0 if v < 0 else int(v))
    try:
        f = float(v)
    except OverflowError:                  # a non-whole rational beyond the float range: refused below
        f = math.nan
    if not math.isfinite(f) or f != math.floor(f):
        raise ValueError(f"{name} must hold whole-number codes (no NaN, inf or fractions): recode or impute "
                         f"the column before the call")
    return min(max(int(f), 0), h)


def marginal(records: np.ndarray, dom: Sequence[int], attrs: Sequence[int]) -> np.ndarray:
    """Counts of the records over the attributes ``attrs`` (a table of shape ``[dom[a] for a in attrs]``)."""
    shape = tuple(dom[a] for a in attrs)
    if records.shape[0] == 0:
        return np.zeros(shape, dtype=np.int64)
    idx = np.ravel_multi_index(tuple(records[:, a] for a in attrs), shape)
    return np.bincount(idx, minlength=math.prod(shape)).reshape(shape)


@dataclass(frozen=True)
class MSTBudget:
    """The constants of :func:`mst_synthesize` for one (rho, domain size, relation): theorem ``syn-thm-privacy``."""

    rho: float
    relation: str
    sigma_one_way: Fraction      # discrete Gaussian scale of every one-way count
    sigma_two_way: Fraction      # ... of every selected two-way count (0 when no pair is measured)
    epsilon_select: float        # epsilon of each of the d - 1 exponential-mechanism rounds
    l2_one_way: float            # l2 sensitivity of the d one-way marginals together
    l2_two_way: float            # ... of the d - 1 selected two-way marginals together
    utility_sensitivity: float   # sensitivity of the selection score
    rho_parts: tuple[float, ...] = field(default=())   # rho spent by each step, after the rounding of sigma (sum <= rho)


def _sigma_for(l2: float, rho: float, l2_sq: int | None = None, share: Fraction | None = None) -> Fraction:
    """Dyadic noise scale for l2 sensitivity ``l2`` at zCDP budget ``rho`` (float, used for the scale and the cap).

    When ``l2_sq`` (the exact squared sensitivity, an int) and ``share`` (the exact rational budget of the step)
    are given, the scale is raised, if needed, to the smallest grid point with ``l2_sq / (2 sigma^2) <= share``
    decided in exact rational arithmetic: the float formula alone can round below that once sigma >~ 2**33.
    """
    root = math.sqrt(2.0 * rho)   # 0.0 when a share of rho = 5e-324 underflows: the scale is then unbounded
    sigma = l2 / root if root > 0.0 else math.inf
    if not sigma <= MAX_SIGMA:
        raise ValueError(f"rho is too small: its share rho={rho!r} gives the noise scale {sigma:.3g}, "
                         f"above MAX_SIGMA = 2**40; "
                         f"use a larger rho")
    # round up on a dyadic grid: strictly above the float sigma, so the rho spent never exceeds the share
    k = math.floor(sigma * SIGMA_GRID) + 1
    if l2_sq is not None:
        assert share is not None            # every caller gives l2_sq and share together
        # smallest integer k with l2_sq / (2 (k / G)^2) <= share, i.e. k^2 >= l2_sq G^2 / (2 share), exactly
        need = math.ceil(Fraction(l2_sq * SIGMA_GRID**2) / (2 * share))
        k = max(k, math.isqrt(need - 1) + 1)
    return Fraction(k, SIGMA_GRID)


def _exact_spend_gauss(l2_sq: int, sigma: Fraction) -> Fraction:
    return Fraction(l2_sq) / (2 * sigma**2)


def _epsilon_for(rho_share: float, rounds: int, share: Fraction) -> float:
    """Epsilon of each of ``rounds`` exponential-mechanism rounds, with ``rounds eps^2 / 8 <= share`` exactly."""
    eps = math.sqrt(8.0 * rho_share / rounds)
    for _ in range(16):                     # the float formula is within a few ulp: step down until it holds
        if rounds * Fraction(eps) ** 2 / 8 <= share:
            return eps
        eps = math.nextafter(eps, 0.0)
    raise RuntimeError("internal error: the selection epsilon could not be made to fit its share of rho")


def mst_budget(rho: float, d: int, *, relation: str = "add_remove", independent: bool = False) -> MSTBudget:
    """Noise scales and selection epsilon of MST at total ``rho`` for ``d`` attributes (theorem ``syn-thm-privacy``).

    The constants that make :func:`mst_synthesize` rho-zCDP under ``relation``. Under add/remove one record the d
    one-way marginals together have l2 sensitivity ``sqrt(d)``, the d - 1 selected two-way marginals
    ``sqrt(d - 1)``, and the selection score moves by at most 1; under replace one record the l2 sensitivities gain
    a factor ``sqrt(2)`` and the score's sensitivity is 2. A discrete Gaussian of scale sigma on a query of l2
    sensitivity D costs ``D^2 / (2 sigma^2)``, an exponential-mechanism round of epsilon ``epsilon^2 / 8``. MST
    spends ``MST_SPLIT`` of rho on its three steps; with ``independent=True`` all of rho goes to the one-way
    marginals. The scales are rounded up to the grid ``1 / SIGMA_GRID``, and each step's spend, computed exactly
    from the released sigma or epsilon, is at most its share of rho.

    Parameters
    ----------
    rho : float
        Total zCDP budget, in (0, 1e6]; one whose noise scale would exceed ``MAX_SIGMA`` = 2**40 is refused.
    d : int
        Number of attributes, 2 <= d <= MAX_ATTRIBUTES.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation.
    independent : bool
        True for the independent baseline (:func:`independent_synthesize`).

    Returns
    -------
    MSTBudget
        A frozen dataclass: ``sigma_one_way`` and ``sigma_two_way`` (exact Fractions; 0 when no pair is measured),
        ``epsilon_select`` (per round), the sensitivities, and ``rho_parts``, the rho spent by each step.

    Examples
    --------
    >>> b = mst_budget(0.3, 4)
    >>> float(b.sigma_one_way) > (4 / (2 * 0.1)) ** 0.5, round(b.epsilon_select, 6)
    (True, 0.516398)
    >>> sum(b.rho_parts) <= 0.3
    True
    """
    r = check_real(rho, "rho", low=0.0, low_open=True, high=1e6)
    if isinstance(d, (bool, np.bool_)):
        raise TypeError(f"d must be an integer, got {d!r}")
    d = check_positive_int(d, "d")
    if not 2 <= d <= MAX_ATTRIBUTES:
        raise ValueError(f"d must lie in [2, MAX_ATTRIBUTES = {MAX_ATTRIBUTES}], got {d}")
    rel = check_relation(relation)
    if not isinstance(independent, (bool, np.bool_)):
        raise TypeError(f"independent must be a bool, got {independent!r}")
    factor = 2.0 if rel == "replace_one" else 1.0          # cells changed by one record in a marginal
    l2_one, l2_two = math.sqrt(factor * d), math.sqrt(factor * (d - 1))
    sq_one, sq_two = int(factor) * d, int(factor) * (d - 1)       # exact squared sensitivities
    u_sens = factor                                    # l1 change of one marginal
    if independent:
        s1 = _sigma_for(l2_one, r, sq_one, Fraction(r))
        parts: tuple[float, ...] = (float(_exact_spend_gauss(sq_one, s1)),)
        return MSTBudget(r, rel, s1, Fraction(0), 0.0, l2_one, l2_two, u_sens, parts)
    # exact shares Fraction(MST_SPLIT[i]) * rho: they sum to at most rho (float(1/3) < 1/3), and every step's
    # spend, computed exactly from the released sigma / epsilon, is at most its share
    shares = tuple(Fraction(share) * Fraction(r) for share in MST_SPLIT)
    r1, r_sel, r2 = (float(share) for share in shares)      # = share * r in floats (one correct rounding)
    s1, s2 = _sigma_for(l2_one, r1, sq_one, shares[0]), _sigma_for(l2_two, r2, sq_two, shares[2])
    eps_sel = _epsilon_for(r_sel, d - 1, shares[1])
    parts = (float(_exact_spend_gauss(sq_one, s1)), float((d - 1) * Fraction(eps_sel) ** 2 / 8),
             float(_exact_spend_gauss(sq_two, s2)))
    return MSTBudget(r, rel, s1, s2, eps_sel, l2_one, l2_two, u_sens, parts)


def _selection_score(counts: np.ndarray, model: np.ndarray) -> float:
    """``sum |counts - model|`` computed exactly: the score of MST's selection (lemma ``syn-lem-sensitivity``).

    The public table ``model`` (a function of the one-way release) is rounded to the grid
    ``1 / SCORE_GRID`` and the counts are scaled by SCORE_GRID, so the score is an exact integer number of
    grid steps: between neighbours it moves by at most ``SCORE_GRID`` times the l1 change of the counts,
    exactly. (A float sum of ``|counts - model|`` can move by more through rounding: 1 + 1e-13 was
    measured, which would make each round slightly more than epsilon-bounded-range.) The returned float is
    exact below 2**53 grid steps, i.e. for any data set that fits in memory.
    """
    grid = np.round(model * SCORE_GRID).astype(np.int64)
    steps = int(np.abs(counts.astype(np.int64) * SCORE_GRID - grid).sum())
    return steps / SCORE_GRID


def _measure(table: np.ndarray, sigma: Fraction, gen: np.random.Generator) -> np.ndarray:
    # int64 cannot wrap: counts <= MAX_SIZE and sigma <= MAX_SIGMA = 2**40, so only past 2**22 sigmas
    # (tests/test_int64_noise_audit.py)
    return table + discrete_gaussian(sigma, size=table.shape, rng=gen)


def project_simplex(v: npt.ArrayLike) -> np.ndarray:
    """Euclidean projection of ``v`` (any shape) onto the probability simplex {x >= 0, sum x = 1}.

    The projection is ``max(v - tau, 0)`` with the unique tau making the sum 1 (sort-based, exact up to
    rounding; Held, Wolfe & Crowder 1974). Post-processing of a release: no privacy cost.
    """
    a = np.asarray(v, dtype=float)
    flat = a.ravel()
    u = np.sort(flat)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, u.size + 1)
    rho = np.nonzero(u - css / k > 0)[0][-1]
    tau = css[rho] / (rho + 1.0)
    return np.maximum(flat - tau, 0.0).reshape(a.shape)


def _sinkhorn(table: np.ndarray, row: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Scale the rows and columns of a non-negative table to the margins ``row`` and ``col`` (equal sums)."""
    t = table.copy()
    rs = t.sum(axis=1)
    for _ in range(SINKHORN_ITERATIONS):
        t *= np.divide(row, rs, out=np.zeros_like(rs), where=rs > 0)[:, None]
        cs = t.sum(axis=0)
        t *= np.divide(col, cs, out=np.zeros_like(cs), where=cs > 0)[None, :]
        rs = t.sum(axis=1)              # the stopping test's row sums are the next round's (a fifth less time)
        if np.abs(rs - row).max() <= SINKHORN_TOL:
            break
    return t


def fit_tree_marginals(one_way: dict, two_way: dict, dom: Sequence[int], *, sigma_one: float | Fraction = 1.0,
                       sigma_two: float | Fraction = 1.0) -> tuple[dict, dict, float]:
    """Non-negative, mutually consistent marginals from noisy counts (lemma ``syn-lem-consistency``).

    1. Each attribute's one-way distribution: the inverse-variance weighted average of its noisy one-way
       counts (variance ``sigma_one^2`` per cell) and the row sums of the noisy two-way tables that
       contain it (variance ``k * sigma_two^2`` per cell for a sum of k cells), divided by the estimated
       number of records and projected onto the simplex (:func:`project_simplex`).
    2. Each two-way table: its noisy counts divided by that number, projected onto the simplex, zeroed
       outside the support of the two one-way distributions, mixed with weight ``TREE_MIX`` with their
       product (so the table is positive on that support) and scaled by Sinkhorn's iteration until its
       margins equal the one-way distributions of step 1 (to ``SINKHORN_TOL``).

    Returns ``(p, q, n_hat)``: p maps an attribute to its distribution, q maps a pair (i, j), i < j, to a
    table of shape (dom[i], dom[j]) whose row sums are p[i] and column sums p[j]; n_hat is the estimated
    number of records (at least 1). Post-processing of the noisy counts: no privacy cost.
    """
    totals = [float(np.sum(y)) / (float(sigma_one) ** 2 * y.size) for y in one_way.values()]
    weights = [1.0 / (float(sigma_one) ** 2 * y.size) for y in one_way.values()]
    n_hat = min(max(sum(totals) / sum(weights), 1.0), float(MAX_RECORDS))
    p = {}
    for a, y in one_way.items():
        est, w = np.asarray(y, dtype=float) / float(sigma_one) ** 2, 1.0 / float(sigma_one) ** 2
        for (i, j), t in two_way.items():
            if a in (i, j):
                other = dom[j] if a == i else dom[i]
                var = other * float(sigma_two) ** 2
                est = est + np.asarray(t, dtype=float).sum(axis=1 if a == i else 0) / var
                w += 1.0 / var
        p[a] = project_simplex(est / w / n_hat)
    q = {}
    for (i, j), t in two_way.items():
        proj = project_simplex(np.asarray(t, dtype=float) / n_hat)
        support = np.outer(p[i] > 0, p[j] > 0)
        start = (1.0 - TREE_MIX) * np.where(support, proj, 0.0) + TREE_MIX * np.outer(p[i], p[j])
        q[(i, j)] = _sinkhorn(start, p[i], p[j])
    return p, q, n_hat


def _forest(d: int, edges: Iterable[tuple[int, int]]) -> list[tuple[int, int | None]]:
    """(node, parent) in breadth-first order from the smallest node of each component."""
    nbrs: dict[int, list[int]] = {a: [] for a in range(d)}
    for i, j in edges:
        nbrs[i].append(j)
        nbrs[j].append(i)
    order: list[tuple[int, int | None]] = []
    seen = set()
    for root in range(d):
        if root in seen:
            continue
        seen.add(root)
        queue: list[tuple[int, int | None]] = [(root, None)]
        while queue:
            node, parent = queue.pop(0)
            order.append((node, parent))
            for c in sorted(nbrs[node]):
                if c not in seen:
                    seen.add(c)
                    queue.append((c, node))
    return order


def _pair(q: dict, parent: int, child: int) -> np.ndarray:
    """The table of (parent, child), rows indexed by the parent's value."""
    return q[(parent, child)] if (parent, child) in q else q[(child, parent)].T


def _check_tree(d: int, edges: Iterable[Sequence[int]]) -> list[tuple[int, int]]:
    out, parent = [], list(range(d))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for e in edges:
        i, j = sorted((int(e[0]), int(e[1])))
        if not (0 <= i < j < d):
            raise ValueError(f"edges must be pairs of distinct attributes in range({d}), got {tuple(e)!r}")
        if find(i) == find(j):
            raise ValueError(f"edges must form a forest (no cycle); the edge {(i, j)} closes a cycle")
        parent[find(i)] = find(j)
        out.append((i, j))
    return out


def _check_model(p: object, q: object, edges: list[tuple[int, int]], dom: tuple[int, ...]) -> None:
    """Refuse, by argument name, a tree model that is not one: every ``p[a]`` a finite non-negative vector of
    ``dom[a]`` entries with a positive sum, every edge's table (``q[(i, j)]`` or ``q[(j, i)]``, transposed) a
    finite non-negative array of shape ``(dom[i], dom[j])``. Public inputs (post-processing of a release)."""
    if not isinstance(p, dict) or not isinstance(q, dict):
        raise TypeError("p and q must be dicts: p maps an attribute to its distribution, q a pair to its table")
    for a, k in enumerate(dom):
        if a not in p:
            raise ValueError(f"p must hold a distribution for every attribute; attribute {a} has none")
        v = np.asarray(p[a], dtype=float)
        if v.shape != (k,) or not np.isfinite(v).all() or (v < 0).any() or not v.sum() > 0:
            raise ValueError(f"p[{a}] must be a finite non-negative vector of {k} entries with a positive sum")
    for i, j in edges:
        if (i, j) not in q and (j, i) not in q:
            raise ValueError(f"q must hold a table for every edge; the edge {(i, j)} has none")
        t = np.asarray(_pair(q, i, j), dtype=float)
        if t.shape != (dom[i], dom[j]) or not np.isfinite(t).all() or (t < 0).any():
            raise ValueError(f"q[{(i, j)}] must be a finite non-negative table of shape {(dom[i], dom[j])}")


def sample_tree(p: dict, q: dict, edges: Iterable[Sequence[int]], dom: Sequence[int], n: int, *,
                rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Draw ``n`` records from the tree model by ancestral sampling (theorem ``syn-thm-tree``).

    The root of each component is drawn from its one-way distribution, every other attribute from the
    conditional ``q[parent, child][x_parent, :] / p[parent][x_parent]`` given its parent's value. With
    consistent marginals the records follow ``prod p prod q / (p p)`` exactly. The draws use
    ``Generator.random`` (public inputs: post-processing of a release). A ``p`` or ``q`` that is not a
    model (NaN, a negative entry, a wrong shape, a missing table, a ``p[a]`` summing to 0) raises a
    ValueError naming it: it was drawn from silently.
    """
    dom = _check_domain(dom)
    n = check_size(n, "n", cap=MAX_RECORDS, minimum=0)
    edges = _check_tree(len(dom), edges)
    _check_model(p, q, edges, dom)
    gen = as_rng(rng)
    out = np.zeros((n, len(dom)), dtype=np.int64)
    for node, parent in _forest(len(dom), edges):
        u = gen.random(n)
        if parent is None:
            cdf = np.cumsum(p[node])
            out[:, node] = np.minimum(np.searchsorted(cdf / cdf[-1], u, side="right"), dom[node] - 1)
            continue
        table = _pair(q, parent, node)
        rows = table.sum(axis=1, keepdims=True)
        cond = np.divide(table, rows, out=np.full_like(table, 1.0 / dom[node]), where=rows > 0)
        cdf = np.cumsum(cond, axis=1)
        cdf /= cdf[:, -1:]
        # inverse CDF per value of the parent: memory O(n), not an (n, k) matrix (80 GB at the caps)
        par = out[:, parent]
        order = np.argsort(par, kind="stable")
        cuts = np.searchsorted(par[order], np.arange(dom[parent] + 1))
        col = np.empty(n, dtype=np.int64)
        for v in range(dom[parent]):
            idx = order[cuts[v]:cuts[v + 1]]
            col[idx] = np.searchsorted(cdf[v], u[idx], side="right")
        out[:, node] = np.minimum(col, dom[node] - 1)
    return out


def tree_joint(p: dict, q: dict, edges: Iterable[Sequence[int]], dom: Sequence[int]) -> np.ndarray:
    """The joint distribution ``prod_i p_i prod_(ij) q_ij / (p_i p_j)`` (0/0 = 0) as a full table.

    Only for small domains (at most ``MAX_JOINT_CELLS`` cells): the tests and the chapter check
    theorem ``syn-thm-tree`` with it. Refuses ``p`` and ``q`` as :func:`sample_tree` does.
    """
    dom = _check_domain(dom)
    if math.prod(dom) > MAX_JOINT_CELLS:
        raise ValueError(f"the joint table has {math.prod(dom)} cells, above MAX_JOINT_CELLS = {MAX_JOINT_CELLS}")
    edges = _check_tree(len(dom), edges)
    _check_model(p, q, edges, dom)
    d = len(dom)
    joint = np.ones(dom)
    for node, parent in _forest(d, edges):
        shape = [1] * d
        if parent is None:
            shape[node] = dom[node]
            joint = joint * np.asarray(p[node]).reshape(shape)
            continue
        table = _pair(q, parent, node)
        rows = np.asarray(p[parent])[:, None]
        cond = np.divide(table, rows, out=np.zeros_like(table), where=rows > 0)
        shape[parent], shape[node] = dom[parent], dom[node]
        joint = joint * (cond if parent < node else cond.T).reshape(shape)   # axes in attribute order
    return joint


def max_spanning_tree(weights: Mapping[tuple[int, int], float], d: int) -> list[tuple[int, int]]:
    """Kruskal's maximum spanning tree of the complete graph on ``range(d)`` with ``weights[(i, j)]``, i < j.

    Ties go to the pair listed first in ``itertools.combinations`` order. The non-private reference for
    the selection of :func:`mst_synthesize`, which replaces each of Kruskal's choices by an
    exponential-mechanism draw.
    """
    parent = list(range(d))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    pairs = sorted(itertools.combinations(range(d), 2), key=lambda e: -weights[e])
    out = []
    for i, j in pairs:
        if find(i) != find(j):
            parent[find(i)] = find(j)
            out.append((i, j))
    return out


@dataclass
class SyntheticRelease:
    """What :func:`mst_synthesize` releases: synthetic records, the noisy marginals, the selected pairs.

    Everything in it is the release of :func:`mst_synthesize` or post-processing of it: rho-zCDP together under
    the relation of ``budget`` (theorem ``syn-thm-privacy``).

    Parameters
    ----------
    records : numpy.ndarray of int64, shape (n_records, d)
        The synthetic records, as integer codes.
    one_way : dict
        Attribute -> its noisy one-way counts (integers).
    two_way : dict
        Selected pair (i, j) -> its noisy two-way counts.
    edges : list of (int, int)
        The selected pairs, in the order chosen.
    p : dict
        The fitted one-way distributions.
    q : dict
        The fitted two-way distributions (consistent with ``p``).
    n_hat : float
        The number of records estimated from the noisy counts.
    budget : MSTBudget
        The constants of the release (:func:`mst_budget`).

    Examples
    --------
    >>> rel = independent_synthesize([[0, 1], [1, 1]] * 50, [2, 2], 1.0, rng=0)
    >>> rel.records.shape[1], sorted(rel.one_way), rel.two_way
    (2, [0, 1], {})
    """

    records: np.ndarray                 # synthetic records, shape (n_records, d), integer codes
    one_way: dict                       # attribute -> noisy counts (integers)
    two_way: dict                       # (i, j) -> noisy counts of the selected pairs
    edges: list                         # selected pairs, in the order chosen
    p: dict                             # fitted one-way distributions
    q: dict                             # fitted two-way distributions (consistent with p)
    n_hat: float                        # estimated number of records
    budget: MSTBudget


def _synthesize(data: npt.ArrayLike, domain: Sequence[int], rho: float, n_records: int | None, relation: str,
                rng: np.random.Generator | int | None, independent: bool) -> SyntheticRelease:
    dom = _check_domain(domain)
    if not independent:
        cells = (sum(dom) ** 2 - sum(k * k for k in dom)) // 2
        if cells > MAX_PAIR_CELLS:
            raise ValueError(f"domain has {cells} cells in its two-way marginals together, above MAX_PAIR_CELLS = "
                             f"2**24 (MST scores every pair): use fewer attributes or values")
    budget = mst_budget(rho, len(dom), relation=relation, independent=independent)
    x = _check_records(data, dom)
    if n_records is not None:
        n_records = check_size(n_records, "n_records", cap=MAX_RECORDS, minimum=0)
    gen = as_rng(rng)
    d = len(dom)
    one_way = {a: _measure(marginal(x, dom, (a,)), budget.sigma_one_way, gen) for a in range(d)}
    edges, two_way = [], {}
    if not independent:
        p0, _, n0 = fit_tree_marginals(one_way, {}, dom, sigma_one=budget.sigma_one_way)
        pairs = list(itertools.combinations(range(d), 2))
        score = {e: _selection_score(marginal(x, dom, e), n0 * np.outer(p0[e[0]], p0[e[1]])) for e in pairs}
        comp = list(range(d))
        for _ in range(d - 1):
            cands = [e for e in pairs if comp[e[0]] != comp[e[1]]]
            k = exponential_mechanism([score[e] for e in cands], budget.utility_sensitivity, budget.epsilon_select,
                                      rng=gen)
            i, j = cands[k]
            old, new = comp[i], comp[j]
            comp = [new if c == old else c for c in comp]
            edges.append((i, j))
        two_way = {e: _measure(marginal(x, dom, e), budget.sigma_two_way, gen) for e in edges}
    p, q, n_hat = fit_tree_marginals(one_way, two_way, dom, sigma_one=budget.sigma_one_way,
                                     sigma_two=budget.sigma_two_way if two_way else 1.0)
    n_out = int(round(n_hat)) if n_records is None else n_records
    records = sample_tree(p, q, edges, dom, n_out, rng=gen)
    return SyntheticRelease(records, one_way, two_way, edges, p, q, n_hat, budget)


def mst_synthesize(data: npt.ArrayLike, domain: Sequence[int], rho: float, *, n_records: int | None = None,
                   relation: str = "add_remove", rng: np.random.Generator | int | None = None) -> SyntheticRelease:
    """MST: synthetic records from noisy one- and two-way marginals on a private spanning tree.

    1. Measure every one-way marginal with discrete Gaussian noise (``rho / 3`` together).
    2. Pick a spanning tree, pair by pair, with :func:`dpcourse.exponential_mechanism` among the pairs joining two
       components, scored by the l1 distance of their two-way marginal to the fitted product (``rho / 3`` in all).
    3. Measure the chosen two-way marginals (``rho / 3`` together).
    4. Fit consistent marginals (:func:`fit_tree_marginals`) and sample the tree model (:func:`sample_tree`).

    Guarantee: ``rho``-zCDP under ``relation`` (add/remove or replace one record), theorem ``syn-thm-privacy``, for
    data that meet the input contract: every code a whole number (an int of any size, or a finite float of any
    width such as 3.0); codes outside ``range(domain[j])`` are clamped to the nearest end (a per-record map).

    Parameters
    ----------
    data : array_like of int, shape (n, d)
        The private records as whole-number codes; n may be 0.
    domain : sequence of int
        Public number of values of each attribute: 2 <= d <= 64 attributes, each at most 1000 values, and at most
        ``MAX_PAIR_CELLS`` = 2**24 cells in all two-way marginals together.
    rho : float
        zCDP budget, in (0, 1e6], as for :func:`mst_budget`.
    n_records : None or int
        Number of synthetic records; default: the number estimated from the noisy counts, never the private n.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation of the guarantee.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    SyntheticRelease
        The records (``n_records`` rows), the noisy marginals, the selected pairs, the model and the budget.

    Raises
    ------
    ValueError, TypeError
        A bad public parameter (named); ``data`` not a table of ``len(domain)`` columns, or (TypeError) holding
        booleans, strings or other non-numbers; a code that breaks the contract (NaN, +-inf, a non-whole number):
        ValueError, raised before any noise is drawn, quoting nothing of the data.

    Examples
    --------
    >>> rel = mst_synthesize([[0, 1, 1], [1, 1, 0]] * 50, [2, 2, 2], 1.0, rng=0)
    >>> rel.records.shape[1], len(rel.edges)
    (3, 2)
    """
    return _synthesize(data, domain, rho, n_records, relation, rng, independent=False)


def independent_synthesize(data: npt.ArrayLike, domain: Sequence[int], rho: float, *, n_records: int | None = None,
                           relation: str = "add_remove",
                           rng: np.random.Generator | int | None = None) -> SyntheticRelease:
    """The baseline: all of ``rho`` on the one-way marginals, attributes sampled independently.

    Guarantee: rho-zCDP under ``relation`` (add/remove or replace one record; theorem ``syn-thm-privacy`` with only
    its first step). The same clamping, input contract and refusals as :func:`mst_synthesize`: whole-number codes
    of any size are clamped; NaN, +-inf and fractions raise ValueError without quoting the data.

    Parameters
    ----------
    data, domain, rho, n_records, relation, rng
        As in :func:`mst_synthesize`.

    Returns
    -------
    SyntheticRelease
        With no selected pair: ``edges == []`` and ``two_way == {}``.

    Examples
    --------
    >>> independent_synthesize([[0, 1], [1, 1]] * 50, [2, 2], 1.0, rng=0).edges
    []
    """
    return _synthesize(data, domain, rho, n_records, relation, rng, independent=True)


def _tables(x: np.ndarray, dom: tuple[int, ...], attrs: tuple[int, ...], histogram: bool) -> np.ndarray:
    if histogram:
        axes = tuple(a for a in range(len(dom)) if a not in attrs)
        t = x.sum(axis=axes)
    else:
        t = marginal(x, dom, attrs).astype(float)
    s = t.sum()
    return t / s if s > 0 else t


def marginal_errors(real: npt.ArrayLike, synthetic: npt.ArrayLike, domain: Sequence[int], k: int, *,
                    synthetic_is_histogram: bool = False) -> np.ndarray:
    """l1 distances between the normalised k-way marginals of ``real`` and ``synthetic``, one per k-subset.

    Each entry is ``sum |M_S(real)/n - M_S(synthetic)/m|`` over the cells of the marginal on the attribute set S
    (twice the total-variation distance; 0 = identical, 2 = disjoint), for S in
    ``itertools.combinations(range(d), k)`` order. Not a release: it reads the real records, to evaluate one.

    Parameters
    ----------
    real : array_like of int, shape (n, d)
        Records as codes (clamped to the domain, as :func:`mst_synthesize` clamps them).
    synthetic : array_like
        Records like ``real`` or, with ``synthetic_is_histogram=True``, a finite non-negative table of shape
        ``domain`` (e.g. MWEM's output).
    domain : sequence of int
        Number of values of each attribute, as for :func:`mst_synthesize`.
    k : int
        The size of the attribute sets, in [1, d].
    synthetic_is_histogram : bool
        Whether ``synthetic`` is a table rather than records.

    Returns
    -------
    numpy.ndarray of float64, shape (binom(d, k),)

    Examples
    --------
    >>> marginal_errors([[0, 0], [1, 1]], [[0, 1], [1, 0]], [2, 2], 2).tolist()
    [2.0]
    """
    dom = _check_domain(domain)
    kk = check_positive_int(k, "k")
    if kk > len(dom):
        raise ValueError(f"k must lie in [1, {len(dom)}] (the number of attributes), got {kk}")
    x = _check_records(real, dom, "real")
    if synthetic_is_histogram:
        h = np.asarray(synthetic, dtype=float)
        if h.shape != dom or not np.isfinite(h).all() or (h < 0).any():
            raise ValueError(f"synthetic must be a finite non-negative table of shape {dom}")
    else:
        h = _check_records(synthetic, dom, "synthetic")
    return np.array([np.abs(_tables(x, dom, s, False) - _tables(h, dom, s, synthetic_is_histogram)).sum()
                     for s in itertools.combinations(range(len(dom)), kk)])


# ---- the chapter's data
AFFAIRS_ATTRIBUTES = ("any_affair", "gender", "age", "yearsmarried", "children", "religiousness", "rating")


def affairs_categorical() -> tuple[np.ndarray, tuple[int, ...], dict[str, list[str]]]:
    """Seven categorical columns of Fair's affairs survey (601 respondents) as integer codes.

    Returns ``(records, domain, labels)``. The codes follow the survey's codebook, fixed without looking at
    the counts: any_affair {0, 1}; gender {female, male}; age in four bands (17.5-27, 32-37, 42-47,
    52-57); years married in four bands (at most 1.5, 4-7, 10, 15); children {no, yes}; religiousness
    1-5 and rating 1-5 (codes 0-4).
    """
    from .data import read_csv

    raw = read_csv("affairs_survey.csv")
    age = np.searchsorted([30.0, 40.0, 50.0], raw["age"])
    years = np.searchsorted([2.0, 8.0, 12.0], raw["yearsmarried"])
    cols = [raw["any_affair"].astype(np.int64), (raw["gender"] == "male").astype(np.int64), age, years,
            (raw["children"] == "yes").astype(np.int64), raw["religiousness"].astype(np.int64) - 1,
            raw["rating"].astype(np.int64) - 1]
    labels = {"any_affair": ["no", "yes"], "gender": ["female", "male"],
              "age": ["17-27", "32-37", "42-47", "52-57"], "yearsmarried": ["<=1.5", "4-7", "10", "15"],
              "children": ["no", "yes"], "religiousness": ["1", "2", "3", "4", "5"],
              "rating": ["1", "2", "3", "4", "5"]}
    return np.column_stack(cols).astype(np.int64), (2, 2, 4, 4, 2, 5, 5), labels


def one_hot(records: npt.ArrayLike, domain: Sequence[int], columns: Iterable[int]) -> np.ndarray:
    """One-hot features of the given columns (first level dropped) plus an intercept column of ones."""
    x = np.asarray(records)
    parts = [np.ones((x.shape[0], 1))]
    for c in columns:
        parts.append((x[:, c][:, None] == np.arange(1, domain[c])[None, :]).astype(float))
    return np.hstack(parts)


def marginal_queries(domain: Sequence[int]) -> np.ndarray:
    """0/1 counting queries over the full domain (row-major cells), one per cell of every two-way marginal.

    The workload MWEM (:func:`dpcourse.mwem`) is given in the chapter's comparison: what MST measures at most.
    """
    dom = _check_domain(domain)
    if math.prod(dom) > MAX_JOINT_CELLS:
        raise ValueError(f"the domain has {math.prod(dom)} cells, above MAX_JOINT_CELLS = {MAX_JOINT_CELLS}")
    grid = np.indices(dom).reshape(len(dom), -1)
    rows = [(grid[i] == a) & (grid[j] == b) for i, j in itertools.combinations(range(len(dom)), 2)
            for a in range(dom[i]) for b in range(dom[j])]
    return np.array(rows, dtype=float)


def rho_for_epsilon(epsilon: float, delta: float) -> float:
    """A rho (within 1e-9 relative of the largest) whose rho-zCDP guarantee implies (epsilon, delta)-DP.

    Bisection on the conversion of Canonne, Kamath & Steinke (2020), Proposition 12, which is tighter than
    :func:`dpcourse.zcdp_epsilon` (Bun & Steinke's ``rho + 2 sqrt(rho ln(1/delta))``).

    Examples
    --------
    >>> rho = rho_for_epsilon(1.0, 1e-6)
    >>> 0.02 < rho < 0.03
    True
    """
    from .lattice import _zcdp_rho_for

    e = check_real(epsilon, "epsilon", low=0.0, low_open=True, high=1e3)
    dl = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    return _zcdp_rho_for(e, dl)


def compare_methods(records: npt.ArrayLike, domain: Sequence[int], epsilons: Iterable[float], *, delta: float = 1e-6,
                    mwem_iterations: int = 15, mwem_passes: int = 2,
                    rng: np.random.Generator | int | None = None) -> dict[str, Any]:
    """Errors of MST, independent marginals and MWEM on all two- and three-way marginals, per epsilon.

    Every method is (epsilon, delta)-DP under replace one record at each ``epsilon``: MST and the
    independent baseline get the largest rho whose zCDP conversion (Canonne, Kamath & Steinke 2020,
    Proposition 12) gives at most epsilon at ``delta``; MWEM is epsilon-DP (so (epsilon, delta)-DP too) with
    the two-way workload of :func:`marginal_queries` and n public. The synthetic sets have the real
    number of records for MWEM (its histogram) and the estimated number for MST and independent.

    Returns a dict: ``"rho"`` (one per epsilon) and, for each of ``"mst"``, ``"independent"``, ``"mwem"``,
    the arrays ``[method][2]`` and ``[method][3]`` of shape (len(epsilons), number of k-subsets) from
    :func:`marginal_errors`.
    """
    from .query_release import mwem

    dom = _check_domain(domain)
    x = _check_records(records, dom)
    gen = as_rng(rng)
    hist = marginal(x, dom, tuple(range(len(dom)))).ravel()
    queries = marginal_queries(dom)
    out: dict[str, Any] = {"rho": [], "mst": {2: [], 3: []}, "independent": {2: [], 3: []}, "mwem": {2: [], 3: []}}
    for eps in epsilons:
        e = check_real(eps, "epsilon", low=0.0, low_open=True, high=1e3)
        rho = rho_for_epsilon(e, delta)
        out["rho"].append(rho)
        syn = {"mst": mst_synthesize(x, dom, rho, relation="replace_one", rng=gen).records,
               "independent": independent_synthesize(x, dom, rho, relation="replace_one", rng=gen).records,
               "mwem": mwem(hist, queries, e, iterations=mwem_iterations, passes=mwem_passes, output="last",
                            rng=gen).reshape(dom)}
        for name, y in syn.items():
            for k in (2, 3):
                out[name][k].append(marginal_errors(x, y, dom, k, synthetic_is_histogram=name == "mwem"))
    out["rho"] = np.array(out["rho"])
    for name in ("mst", "independent", "mwem"):
        out[name] = {k: np.array(v) for k, v in out[name].items()}
    return out


def classifier_accuracy(train: npt.ArrayLike, test: npt.ArrayLike, domain: Sequence[int], target: int = 0) -> float:
    """Accuracy on ``test`` of a (non-private) logistic regression fitted on ``train`` to predict column ``target``.

    Features: one-hot codes of the other columns (:func:`one_hot`). Fitting on synthetic records is
    post-processing of the synthetic release. ``target`` is a column index in ``[0, d)``: a negative one
    (which would keep the target among the features and report 1.0), a bool or a non-integer raises by name,
    as does an empty ``train`` or ``test``.
    """
    from .learning import logistic_regression

    dom = _check_domain(domain)
    if isinstance(target, (bool, np.bool_)) or not isinstance(target, numbers.Integral):
        raise TypeError(f"target must be an integer column index, got {target!r}")
    if not 0 <= int(target) < len(dom):     # a negative index would keep the target among the features
        raise ValueError(f"target must lie in [0, {len(dom) - 1}] (a column of the domain), got {target!r}")
    target = int(target)
    tr, te = _check_records(train, dom, "train"), _check_records(test, dom, "test")
    if len(tr) == 0 or len(te) == 0:
        raise ValueError("train and test must each hold at least one record")
    cols = [c for c in range(len(dom)) if c != target]
    y = tr[:, target]
    if y.min() == y.max():          # one class only: the fit is the constant classifier
        return float(np.mean(te[:, target] == y[0]))
    w = logistic_regression(one_hot(tr, dom, cols), y, regularization=1e-3)
    pred = (one_hot(te, dom, cols) @ w > 0).astype(np.int64)
    return float(np.mean(pred == te[:, target]))
