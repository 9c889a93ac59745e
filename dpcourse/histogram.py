"""Histograms released with the Laplace mechanism.

Proved in the chapter "Histograms and vector-valued queries": the sensitivity of a histogram under each
relation (lemma ``lem-hist-sensitivity``), privacy (theorem ``thm-hist-privacy``) and the largest error
over all bins (theorem ``thm-laplace-max-error`` with corollary ``cor-hist-max-error``).
"""

from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_epsilon, check_flag, check_labels, check_real_array, check_relation
from ._sampling import _shape
from .discrete import geometric_mechanism
from .laplace import laplace_mechanism

__all__ = ["histogram_sensitivity", "exact_histogram", "dp_histogram"]


def histogram_sensitivity(relation: str) -> float:
    """l1 sensitivity of a histogram (counts of records per bin): 1 under add/remove, 2 under replace-one.

    Adding or removing one record changes one count by 1; replacing one record moves it from one bin to
    another, changing two counts by 1 each (lemma ``lem-hist-sensitivity``).

    Examples
    --------
    >>> histogram_sensitivity("add_remove"), histogram_sensitivity("replace_one")
    (1.0, 2.0)
    """
    return 1.0 if check_relation(relation) == "add_remove" else 2.0


def _check_edges(bins: ArrayLike) -> np.ndarray:
    edges = check_real_array(bins, "bins", ndim=1)
    if edges.size < 2:
        raise ValueError(f"bins must hold at least 2 edges, got {edges.size}")
    if not (np.diff(edges) > 0).all():
        raise ValueError("bins must be strictly increasing bin edges")
    return edges


def exact_histogram(data: ArrayLike, *, categories: ArrayLike | None = None,
                    bins: ArrayLike | None = None) -> np.ndarray:
    """The exact counts of ``data`` per category (or per bin): the query that :func:`dp_histogram` privatises.

    Exactly one of ``categories`` and ``bins`` is given.

    * ``categories``: the declared labels (numbers or strings, no repeats); ``counts[j]`` is the number
      of records equal to ``categories[j]``. A record that is not a declared category raises
      ``ValueError``: the list of categories must be public, so it cannot be read off the data.
    * ``bins``: strictly increasing finite edges ``e_0 < ... < e_k``; bin j is ``[e_j, e_{j+1})``, the
      last bin also includes ``e_k`` (as :func:`numpy.histogram`). A finite record outside
      ``[e_0, e_k]`` is clamped: below ``e_0`` it counts in the first bin, above ``e_k`` in the last.
      Clamping is 1-Lipschitz, so the sensitivity is unchanged; refusing the record would let its size
      decide whether a release happens (CONTRIBUTING.md, "Private data"). NaN and +-inf raise ``ValueError``.

    Returns
    -------
    numpy.ndarray of int64, shape (k,)

    Examples
    --------
    >>> exact_histogram(list("ABAC"), categories=list("ABCDF")).tolist()
    [2, 1, 1, 0, 0]
    >>> exact_histogram([0.5, 1.0, 2.0], bins=[0, 1, 2]).tolist()
    [1, 2]
    >>> exact_histogram([-1e308, 0.5, 1e308], bins=[0, 1, 2]).tolist()  # clamped into the outer bins
    [2, 1]
    """
    if (categories is None) == (bins is None):
        raise ValueError("give exactly one of categories= and bins=")
    if isinstance(data, (str, bytes)):
        raise TypeError(f"data must be a sequence of records, got the string {data!r}")
    arr = np.asarray(data)
    if arr.ndim != 1:
        raise ValueError(f"data must be 1-d, got {arr.ndim} dimensions")  # (no shape: n may be private)
    if arr.dtype == bool:
        raise TypeError("data must hold numbers or strings, got booleans (convert with .astype(int) if meant)")
    if bins is not None:
        edges = _check_edges(bins)
        values = check_real_array(arr, "data", allow_empty=True, ndim=1)
        # A finite record of any size is clamped into [e_0, e_k], never refused (CONTRIBUTING.md, "Private
        # data"): a refusal for a record just outside the edges would tell it apart from its neighbour.
        values = np.clip(values, edges[0], edges[-1])
        idx = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, edges.size - 2)
        return np.bincount(idx, minlength=edges.size - 1).astype(np.int64)
    cats = check_labels(categories, "categories")
    numeric_cats = cats.dtype.kind in "iuf"
    if arr.size and (arr.dtype.kind in "iuf") != numeric_cats:
        raise TypeError(f"data (dtype {arr.dtype}) and categories (dtype {cats.dtype}) must both be numbers or both strings")
    if arr.size and arr.dtype.kind not in "iufUS":
        raise TypeError(f"data must hold numbers or strings, got dtype {arr.dtype}")
    if arr.size and arr.dtype.kind == "f":
        check_real_array(arr, "data", ndim=1)
    order = np.argsort(cats)
    sorted_cats = cats[order]
    pos = np.clip(np.searchsorted(sorted_cats, arr), 0, cats.size - 1)
    unknown = sorted_cats[pos] != arr
    if np.any(unknown):
        raise ValueError("data must only hold declared categories: map or drop the other records before the call")
    return np.bincount(order[pos], minlength=cats.size).astype(np.int64)


def dp_histogram(data: ArrayLike, epsilon: float, *, relation: str, categories: ArrayLike | None = None,
                 bins: ArrayLike | None = None, rng: np.random.Generator | int | None = None, secure: bool = True,
                 size: int | tuple[int, ...] | None = None) -> np.ndarray:
    """Release the counts of ``data`` per category (or bin), each plus Laplace-type noise of scale Delta/epsilon.

    Guarantee: epsilon-DP under ``relation`` (theorem ``thm-hist-privacy``), with ``Delta =
    histogram_sensitivity(relation)``: 1 under add/remove, 2 under replace-one (record level). As implemented
    (``secure=True``) the counts get exact two-sided geometric (discrete Laplace) noise of scale Delta/epsilon,
    :func:`dpcourse.geometric_mechanism` (theorem ``thm-geometric-privacy``), so the guarantee holds exactly;
    ``secure=False`` uses the textbook float Laplace sampler, **not** private on a real computer (for
    demonstrations). With probability at least ``1 - beta`` all k counts are within
    ``(Delta / epsilon) ln(k / beta)`` of the truth (corollary ``cor-hist-max-error``).

    The categories (or bin edges) are public, fixed before seeing the data: a record that is not a declared
    category raises ``ValueError``, a finite number outside the edges is clamped into the first or last bin
    (:func:`exact_histogram`). Noisy counts can be negative; rounding or clipping them is post-processing.

    Parameters
    ----------
    data : array_like of numbers or strings, shape (n,)
        The records.
    epsilon : float
        Privacy parameter, > 0.
    relation : {"add_remove", "replace_one"}
        Neighbouring relation of the guarantee (keyword, required: it sets the noise scale).
    categories : sequence, optional
        Declared labels, no repeats (exactly one of ``categories`` and ``bins``).
    bins : array_like of floats, optional
        Declared bin edges, strictly increasing and finite.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.
    secure : bool, default True
        Exact geometric noise on integer counts (True) or the unsafe float Laplace sampler (False).
    size : None, int or tuple of ints, optional
        None (default): one release of shape (k,). Otherwise independent releases of the same counts, shape
        ``(size, k)`` or ``size + (k,)``, each epsilon-DP (all of them together: their number times epsilon).

    Returns
    -------
    numpy.ndarray of int64 (secure) or float64 (``secure=False``), shape (k,), ``(size, k)`` or ``size + (k,)``

    Examples
    --------
    >>> dp_histogram(list("ABBA"), 1e9, relation="add_remove", categories=list("ABC"), rng=0).tolist()
    [2, 2, 0]
    >>> noisy = dp_histogram(list("ABBA"), 1e9, relation="add_remove", categories=list("ABC"), rng=0, secure=False)
    >>> (noisy.round(6) + 0.0).tolist()  # epsilon huge: almost no noise
    [2.0, 2.0, 0.0]
    """
    safe = check_flag(secure, "secure")
    delta = histogram_sensitivity(relation)
    eps = check_epsilon(epsilon)
    counts = exact_histogram(data, categories=categories, bins=bins)
    if size is not None:  # independent copies: the noise is drawn per entry, each row is one release
        counts = np.broadcast_to(counts, _shape(size) + counts.shape).copy()
    if safe:   # counts is an array: so is the release (the casts only tell the type checker)
        return cast(np.ndarray, geometric_mechanism(counts, int(delta), eps, rng=rng))
    return cast(np.ndarray, laplace_mechanism(counts, delta, eps, rng=rng, secure=False))
