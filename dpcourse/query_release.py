"""Private query release: answering many counting queries on a histogram, one by one or with synthetic data.

The chapter "Private query release" proves what is used here:

* :func:`smalldb`: the small-database mechanism of Blum, Ligett & Roth (2008), exact on tiny domains
  (theorem ``thm-smalldb-privacy``, lemma ``lem-smalldb-sampling``, theorem ``thm-smalldb-accuracy``);
  :func:`mwem`: multiplicative weights with the exponential mechanism (Hardt, Ligett & McSherry 2012;
  theorem ``thm-mwem-privacy``).
* :func:`laplace_per_query`, :func:`gaussian_per_query`: the baselines that answer every query with noise,
  compared with MWEM by :func:`error_versus_queries`.
* The data and workloads of the chapter: :func:`affairs_histogram` (Fair's affairs survey over 64 cells) and
  :func:`product_queries`; :func:`answer_queries` and :func:`max_query_error` evaluate against the truth.

Histograms are non-negative integer counts over a finite, public domain of cells; a query matrix has one
row per counting query and one 0/1 column per cell, so ``queries @ histogram`` are the true counts.
Unless a docstring says otherwise the neighbouring relation is **replace one record** (the number of
records n is public), as in the papers these mechanisms come from.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement, product

import numpy as np
import numpy.typing as npt

from ._query_checks import _check_histogram, _check_queries
from ._validation import (
    MAX_ITERATIONS,
    as_rng,
    check_choice,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_real,
    check_real_array,
    check_size,
)
from .laplace import laplace_mechanism
from .selection import exponential_mechanism

__all__ = [
    "answer_queries",
    "affairs_histogram",
    "AFFAIRS_SHAPE",
    "product_queries",
    "max_query_error",
    "smalldb",
    "smalldb_candidates",
    "smalldb_sample_size",
    "smalldb_error_bound",
    "mwem",
    "replace_one_sensitivity",
    "laplace_per_query",
    "gaussian_per_query",
    "gaussian_per_query_sigma",
    "error_versus_queries",
    "QueryErrorCurves",
]

#: Most candidate databases (times queries) :func:`smalldb` enumerates before refusing.
SMALLDB_MAX_WORK = 50_000_000


def answer_queries(histogram: npt.ArrayLike, queries: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The exact counts ``queries @ histogram`` (validated: 0/1 queries, one column per cell).

    Not a release: the true answers that the releases below perturb.

    Parameters
    ----------
    histogram : array_like, shape (|X|,)
        Finite counts per cell.
    queries : array_like, shape (k, |X|)
        0/1 counting queries.

    Returns
    -------
    numpy.ndarray of float64, shape (k,)

    Examples
    --------
    >>> answer_queries([3, 1, 2], [[1, 1, 0], [0, 0, 1]]).tolist()
    [4.0, 2.0]
    """
    h = check_real_array(histogram, "histogram", ndim=1)
    return _check_queries(queries, h.size) @ h


#: Shape of :func:`affairs_histogram`: any affair (2) x gender (2) x age group (4) x marriage rating group (4).
AFFAIRS_SHAPE: tuple[int, ...] = (2, 2, 4, 4)


def affairs_histogram() -> npt.NDArray[np.float64]:
    """Fair's affairs survey (601 respondents, :func:`dpcourse.data.load_affairs`) as counts over 64 cells.

    Attributes, in C order of the cells: ``any_affair`` (0, 1); ``gender`` (female, male); age group
    (up to 22, 27-32, 37-42, 47 and over); rating group (1-2, 3, 4, 5). Reshape with
    :data:`AFFAIRS_SHAPE` to read it as a table.

    Returns
    -------
    numpy.ndarray of float64, shape (64,)
        Whole counts summing to 601.

    Examples
    --------
    >>> h = affairs_histogram()
    >>> h.shape, int(h.sum())
    ((64,), 601)
    """
    from .data import load_affairs

    d = load_affairs()
    affair = d["any_affair"].astype(np.int64)
    gender = (d["gender"] == "male").astype(np.int64)
    age = np.digitize(d["age"], [25.0, 35.0, 45.0])
    rating = np.digitize(d["rating"], [2.5, 3.5, 4.5])
    cells = np.ravel_multi_index((affair, gender, age, rating), AFFAIRS_SHAPE)
    return np.bincount(cells, minlength=math.prod(AFFAIRS_SHAPE)).astype(np.float64)


def max_query_error(queries: npt.ArrayLike, histogram: npt.ArrayLike, estimate: npt.ArrayLike) -> float:
    """``max_i |q_i . estimate - q_i . histogram|``: the largest count error of a synthetic histogram.

    Not a release: an evaluation against the true data.

    Parameters
    ----------
    queries : array_like, shape (k, |X|)
        0/1 counting queries.
    histogram : array_like, shape (|X|,)
        The true counts.
    estimate : array_like, shape (|X|,)
        A synthetic histogram over the same cells (any finite reals).

    Returns
    -------
    float
        The largest absolute error, in records.

    Examples
    --------
    >>> max_query_error([[1, 1, 0], [0, 1, 1]], [3, 1, 2], [2.0, 2.0, 2.0])
    1.0
    """
    h = check_real_array(histogram, "histogram", ndim=1)
    est = check_real_array(estimate, "estimate", ndim=1)
    if est.size != h.size:
        raise ValueError(f"estimate must have {h.size} cells like histogram, got {est.size}")
    q = _check_queries(queries, h.size)
    return float(np.max(np.abs(q @ (est - h))))


def product_queries(shape: int | Sequence[int]) -> npt.NDArray[np.int64]:
    """All counting queries "attribute j lies in S_j for every j", S_j a non-empty set of values of attribute j.

    The domain is the grid of ``shape`` (cells in C order, as ``np.ravel`` of a histogram of that
    shape). Marginals are the special case where each S_j is one value or all values. There are
    ``prod_j (2**shape[j] - 1)`` queries, returned as rows of a 0/1 matrix with ``prod(shape)`` columns.

    Parameters
    ----------
    shape : int or sequence of int
        Number of values of each attribute, each >= 1, with at most 10**6 queries in all.

    Returns
    -------
    numpy.ndarray of int64, shape (k, prod(shape))

    Examples
    --------
    >>> product_queries((2, 2)).shape   # 3 x 3 queries on 4 cells
    (9, 4)
    """
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    dims = [check_positive_int(s, "shape entry") for s in shape]
    if math.prod(2**s - 1 for s in dims) > 1_000_000:
        raise ValueError(f"shape {tuple(dims)} has more than 1e6 product queries")
    per_attr = []
    for s in dims:
        masks = np.array([[(m >> v) & 1 for v in range(s)] for m in range(1, 2**s)], dtype=np.int64)
        per_attr.append(masks)
    rows = []
    for combo in product(*per_attr):
        cell = combo[0]
        for mask in combo[1:]:
            cell = np.multiply.outer(cell, mask)
        rows.append(np.ravel(cell))
    return np.array(rows, dtype=np.int64)


def smalldb_candidates(domain_size: int, m: int) -> npt.NDArray[np.int64]:
    """Every histogram of m records over ``domain_size`` cells (multisets), one per row.

    There are ``C(domain_size + m - 1, m)`` of them, at most :data:`SMALLDB_MAX_WORK`: the candidate set of
    :func:`smalldb`, which does not depend on the data.

    Parameters
    ----------
    domain_size : int
        Number of cells, >= 1.
    m : int
        Records per candidate, >= 1.

    Returns
    -------
    numpy.ndarray of int64, shape (C(domain_size + m - 1, m), domain_size)

    Examples
    --------
    >>> smalldb_candidates(2, 2).tolist()
    [[2, 0], [1, 1], [0, 2]]
    """
    d = check_positive_int(domain_size, "domain_size")
    m = check_positive_int(m, "m")
    count = math.comb(d + m - 1, m)
    if count > SMALLDB_MAX_WORK:
        raise ValueError(f"{count} candidate databases of m={m} records over {d} cells: too many to enumerate")
    idx = np.array(list(combinations_with_replacement(range(d), m)), dtype=np.int64)
    out = np.zeros((count, d), dtype=np.int64)
    np.add.at(out, (np.repeat(np.arange(count), m), idx.ravel()), 1)
    return out


def smalldb(histogram: npt.ArrayLike, queries: npt.ArrayLike, epsilon: float, *, m: int,
            rng: int | np.random.Generator | None = None) -> npt.NDArray[np.float64]:
    """The small-database mechanism (Blum, Ligett & Roth 2008): a synthetic histogram of ``m`` records.

    Every histogram y of m records over the cells is a candidate; its utility is minus its largest
    error on the counting queries, with y scaled to the n records of the data:
    ``u(y) = -max_i |q_i . x - (n / m) q_i . y|``. The exponential mechanism
    (:func:`dpcourse.exponential_mechanism`) picks y with probability proportional to
    ``exp(epsilon u(y) / 2)``. Exact: all ``C(|X| + m - 1, m)`` candidates are enumerated, so only
    tiny domains and small m are possible (at most :data:`SMALLDB_MAX_WORK` candidate-query pairs).

    Privacy: epsilon-DP under **replace one record** (n public): each q_i . x moves by at most 1 and the
    candidates do not depend on the data, so u has sensitivity 1 (theorem ``thm-smalldb-privacy``).
    Accuracy: :func:`smalldb_error_bound` (theorem ``thm-smalldb-accuracy``, via the sampling lemma
    ``lem-smalldb-sampling``).

    Parameters
    ----------
    histogram : array_like of int, shape (|X|,)
        Counts of the private data over the cells (n = their sum, public, at most 2**53).
    queries : array_like, shape (k, |X|)
        0/1 counting queries.
    epsilon : float
        > 0.
    m : int
        Records in the synthetic database, >= 1.
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    numpy.ndarray of float64, shape (|X|,)
        The chosen small database scaled to n records: ``(n / m) y``.

    Examples
    --------
    >>> smalldb([6, 2], [[1, 0], [0, 1]], 1e3, m=4, rng=0).tolist()   # huge epsilon: the best y = (3, 1)
    [6.0, 2.0]
    """
    h = _check_histogram(histogram)
    q = _check_queries(queries, h.size)
    eps = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    n = float(h.sum())
    if not n <= 2.0**53:  # n is public under replace-one: neighbours are both refused or both released
        raise ValueError(f"the number of records n = sum(histogram), public under replace-one, must be at most "
                         f"2**53 (exact counting in float64), got {n!r}")
    count = math.comb(h.size + m - 1, m)
    if count * q.shape[0] > SMALLDB_MAX_WORK:
        raise ValueError(f"{count} candidates x {q.shape[0]} queries exceeds {SMALLDB_MAX_WORK}: smalldb is exact "
                         f"only on tiny domains (use fewer cells or a smaller m)")
    cands = smalldb_candidates(h.size, m).astype(np.float64)
    true = q @ h
    utilities = -np.max(np.abs(true[None, :] - (n / m) * (cands @ q.T)), axis=1)
    i = exponential_mechanism(utilities, 1.0, eps, rng=rng)
    return cands[i] * (n / m)


def smalldb_sample_size(n_queries: int, alpha: float) -> int:
    """The m of lemma ``lem-smalldb-sampling``: ``ceil(ln(2 k) / (2 alpha^2))`` (+1 if that is exact).

    For any dataset and any k counting queries, some database of m records (a sample of the data) answers
    every normalised query within alpha.

    Parameters
    ----------
    n_queries : int
        k, >= 1.
    alpha : float
        Error per normalised query, in (0, 1].

    Returns
    -------
    int
        m, the smallest integer strictly above ``ln(2 k) / (2 alpha^2)``.

    Examples
    --------
    >>> smalldb_sample_size(1000, 0.1)
    381
    """
    k = check_positive_int(n_queries, "n_queries")
    a = check_real(alpha, "alpha", low=0.0, low_open=True, high=1.0)
    bound = math.log(2 * k) / (2 * a * a)
    return math.floor(bound) + 1


def smalldb_error_bound(n: int, n_queries: int, domain_size: int, epsilon: float, m: int, beta: float) -> float:
    """Theorem ``thm-smalldb-accuracy``: with probability >= 1 - beta the normalised error of :func:`smalldb` is at most this.

    ``sqrt(ln(2 k) / (2 m)) + 2 (ln C(|X| + m - 1, m) + ln(1 / beta)) / (epsilon n)``: the first term is
    the best small database (lemma ``lem-smalldb-sampling``), the second the exponential mechanism's loss.

    Parameters
    ----------
    n : int
        Records in the data, >= 1.
    n_queries : int
        k, >= 1.
    domain_size : int
        |X|, >= 1.
    epsilon : float
        > 0.
    m : int
        Records of the small databases, >= 1.
    beta : float
        Failure probability, in (0, 1).

    Returns
    -------
    float
        The bound on ``max_i |q_i . x - q_i . y| / n``.

    Examples
    --------
    >>> round(smalldb_error_bound(10_000, 100, 8, 1.0, m=20, beta=0.05), 4)
    0.3673
    """
    n = check_positive_int(n, "n")
    k = check_positive_int(n_queries, "n_queries")
    d = check_positive_int(domain_size, "domain_size")
    eps = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    b = check_probability(beta, "beta", low_open=True, high_open=True)
    log_count = math.lgamma(d + m) - math.lgamma(m + 1) - math.lgamma(d)
    return math.sqrt(math.log(2 * k) / (2 * m)) + 2.0 * (log_count + math.log(1.0 / b)) / (eps * n)


def mwem(histogram: npt.ArrayLike, queries: npt.ArrayLike, epsilon: float, *, iterations: int, passes: int = 0,
         output: str = "average", rng: int | np.random.Generator | None = None) -> npt.NDArray[np.float64]:
    """MWEM (Hardt, Ligett & McSherry 2012): a synthetic histogram answering many counting queries.

    Start from the uniform histogram A_0 with the n records of the data (n public). In round
    t = 1..T (``T = iterations``): pick the query worst answered by A_{t-1} with the exponential
    mechanism (score ``|q . A_{t-1} - q . x|``, sensitivity 1, budget ``epsilon / (2T)``; the score is not
    monotone in the data, since a replaced record can raise one query's score and lower another's, so the
    weights are ``exp(epsilon u / (4T))``, never the monotone ``exp(epsilon u / (2T))``), measure it
    with :func:`dpcourse.laplace_mechanism` (sensitivity 1, budget ``epsilon / (2T)``: the exact lattice
    sampler), and update multiplicatively
    ``A_t(i) ∝ A_{t-1}(i) exp(q(i) (m_t - q . A_{t-1}) / (2 n))``, renormalised to n records. With
    ``passes > 0``, each round then sweeps that many more times over all measurements so far, applying
    the same update with each (an improvement suggested in the paper; post-processing of the
    measurements). Returns the average of A_1, ..., A_T (``output="average"``, the paper's output,
    which its accuracy theorem covers) or A_T (``output="last"``).

    Privacy: epsilon-DP under **replace one record** (n public), by basic composition of 2T releases of
    epsilon / (2T) each, the updates being post-processing (theorem ``thm-mwem-privacy``).

    Parameters
    ----------
    histogram : array_like of int, shape (|X|,)
        Counts of the private data.
    queries : array_like, shape (k, |X|)
        0/1 counting queries.
    epsilon : float
        > 0.
    iterations : int
        T, 1 <= T <= ``MAX_ITERATIONS`` = 10**4 (:data:`dpcourse._validation.MAX_ITERATIONS`).
    passes : int
        Extra sweeps over past measurements per round, >= 0, with ``T (T + 1) / 2 * passes`` extra
        updates at most ``MAX_ITERATIONS``.
    output : {"average", "last"}
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    numpy.ndarray of float64, shape (|X|,)
        Positive, summing to n.

    Examples
    --------
    >>> out = mwem([30, 0, 10, 0], [[1, 1, 0, 0], [1, 0, 1, 0]], 50.0, iterations=10, rng=0)
    >>> round(float(out.sum()), 9), bool(out[0] > out[3])
    (40.0, True)
    """
    h = _check_histogram(histogram)
    # n, the number of records, is public under replace one record: the exactly rounded total (fsum), a function
    # of the exact count alone, so datasets with the same n get the same float (a pairwise float sum of counts
    # beyond 2**53 depends on where they sit). A total beyond the float range is refused here, by the argument's
    # name.
    try:
        n = math.fsum(h)
    except OverflowError:      # fsum's intermediate overflow: the total is beyond the float range
        n = math.inf
    if not math.isfinite(n):
        raise ValueError("histogram must have a total number of records n (public under replace one record) below "
                         "the float range, about 1.8e308: rescale the counts before the call")
    q = _check_queries(queries, h.size)
    eps = check_epsilon(epsilon)
    T = check_size(iterations, "iterations", cap=MAX_ITERATIONS)
    passes = check_size(passes, "passes", minimum=0, cap=MAX_ITERATIONS)
    if T * (T + 1) // 2 * passes > MAX_ITERATIONS:   # the extra sweeps make T (T + 1) / 2 * passes updates
        raise ValueError(f"iterations={T} with passes={passes} makes {T * (T + 1) // 2 * passes} extra updates; at "
                         f"most MAX_ITERATIONS = {MAX_ITERATIONS} per call")
    output = check_choice(output, "output", ("average", "last"))
    gen = as_rng(rng)
    eps_round = eps / (2 * T)
    true = q @ h
    log_a = np.full(h.size, -math.log(h.size))  # log of A / n, kept normalised

    def update(log_a: npt.NDArray[np.float64], row: npt.NDArray[np.float64],
               measured: float | npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        est = n * float(row @ np.exp(log_a))
        log_a = log_a + row * (measured - est) / (2.0 * n)
        log_a -= log_a.max()
        return log_a - math.log(np.exp(log_a).sum())

    measurements: list[tuple[int | np.ndarray, float | np.ndarray]] = []
    avg = np.zeros(h.size)
    for _ in range(T):
        est = n * (q @ np.exp(log_a))
        i = exponential_mechanism(np.abs(est - true), 1.0, eps_round, rng=gen)
        measured = laplace_mechanism(true[i], 1.0, eps_round, rng=gen)
        measurements.append((i, measured))
        log_a = update(log_a, q[i], measured)
        for _ in range(passes):
            for j, m_j in measurements:
                log_a = update(log_a, q[j], m_j)
        avg += np.exp(log_a)
    return n * (avg / T if output == "average" else np.exp(log_a))


def replace_one_sensitivity(queries: npt.ArrayLike) -> int:
    """Largest l1 change of ``queries @ histogram`` when one record moves from one cell to another.

    Moving a record from cell j to cell j' changes query i by ``q_i(j') - q_i(j)``, so the l1 change is
    the Hamming distance of columns j and j' of the 0/1 matrix; this returns the largest one (at most
    twice the largest column sum). Under add/remove the sensitivity is the largest column sum instead.
    For 0/1 entries the squared l2 change equals the l1 change.

    Parameters
    ----------
    queries : array_like, shape (k, |X|)
        0/1 counting queries.

    Returns
    -------
    int
        The l1 sensitivity of the answer vector under replace one record.

    Examples
    --------
    >>> replace_one_sensitivity([[1, 0, 1], [1, 1, 0]])   # columns 1 and 2 differ in both queries
    2
    """
    q = _check_queries(queries)
    col = q.sum(axis=0)
    gram = q.T @ q
    hamming = col[:, None] + col[None, :] - 2.0 * gram
    return int(round(float(hamming.max())))


def laplace_per_query(histogram: npt.ArrayLike, queries: npt.ArrayLike, epsilon: float, *,
                      rng: int | np.random.Generator | None = None) -> npt.NDArray[np.float64]:
    """Answer every counting query with Laplace noise, calibrated to the replace-one l1 sensitivity.

    Releases ``laplace_mechanism(Q x, s, epsilon)`` (exact lattice sampler) with s =
    :func:`replace_one_sensitivity` (the basic-composition price of answering the queries one by one:
    theorem ``thm-basic-composition``; s is at most 2k and often much smaller). epsilon-DP under
    replace one record, the relation of :func:`mwem` and :func:`smalldb` (theorem ``thm-laplace-privacy``).

    Parameters
    ----------
    histogram : array_like of int, shape (|X|,)
        Counts of the private data.
    queries : array_like, shape (k, |X|)
        0/1 counting queries.
    epsilon : float
        > 0.
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    numpy.ndarray of float64, shape (k,)
        The noisy answers.

    Examples
    --------
    >>> laplace_per_query([3, 1], [[1, 0], [1, 1]], 1e6, rng=0).round(3).tolist()
    [3.0, 4.0]
    """
    h = _check_histogram(histogram)
    q = _check_queries(queries, h.size)
    eps = check_epsilon(epsilon)
    sens = max(1, replace_one_sensitivity(q))
    return laplace_mechanism(q @ h, float(sens), eps, rng=rng)  # type: ignore[return-value]


def gaussian_per_query_sigma(n_queries: int, epsilon: float, delta: float) -> float:
    """Smallest sigma (to 1e-9 relative) with which k Gaussian answers of sensitivity 1 are (epsilon, delta)-DP.

    Found with :class:`dpcourse.PrivacyAccountant` (events ``GaussianEvent(sigma)`` composed k times,
    method ``"gaussian_exact"``: exact for Gaussian composition, theorem ``thm-comp-gaussian-exact``) by
    bisection.

    Parameters
    ----------
    n_queries : int
        k, >= 1.
    epsilon : float
        > 0.
    delta : float
        In (0, 1).

    Returns
    -------
    float
        sigma, in units of the sensitivity.

    Examples
    --------
    >>> s = gaussian_per_query_sigma(100, 1.0, 1e-6)
    >>> 40 < s < 60
    True
    """
    from .accounting import GaussianEvent, PrivacyAccountant

    k = check_positive_int(n_queries, "n_queries")
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)

    def eps_of(sigma: float) -> float:
        return PrivacyAccountant().compose(GaussianEvent(sigma=sigma), k).epsilon(d, "gaussian_exact")

    lo, hi = 1e-3, 1.0
    while eps_of(hi) > eps:
        lo, hi = hi, 2 * hi
    while hi / lo > 1 + 1e-9:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if eps_of(mid) <= eps else (mid, hi)
    return hi


def gaussian_per_query(histogram: npt.ArrayLike, queries: npt.ArrayLike, epsilon: float, delta: float, *,
                       rng: int | np.random.Generator | None = None) -> npt.NDArray[np.float64]:
    """Answer every counting query with Gaussian noise of l2 sensitivity ``sqrt(s)``, s = :func:`replace_one_sensitivity`.

    Moving one record changes s of the answers by 1 each (0/1 queries), so the answer vector has l2
    sensitivity sqrt(s) under replace one record. A Gaussian release of l2 sensitivity sqrt(s) with noise
    sigma has exactly the privacy of s composed releases of sensitivity 1 with the same sigma (a
    Gaussian's privacy depends only on sensitivity / sigma, and these compose as the root of the sum of
    squares), which is how :func:`gaussian_per_query_sigma` accounts for it with the accountant. The
    release uses the exact lattice sampler of :func:`dpcourse.gaussian_mechanism` (``secure=True``,
    theorem ``thm-lattice-gaussian``), whose zCDP calibration adds some noise over that sigma.
    (epsilon, delta)-DP under replace one record.

    Parameters
    ----------
    histogram : array_like of int, shape (|X|,)
        Counts of the private data.
    queries : array_like, shape (k, |X|)
        0/1 counting queries.
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    numpy.ndarray of float64, shape (k,)
        The noisy answers.

    Examples
    --------
    >>> gaussian_per_query([3, 1], [[1, 0], [1, 1]], 1.0, 1e-6, rng=0).shape
    (2,)
    """
    from .gaussian import gaussian_mechanism

    h = _check_histogram(histogram)
    q = _check_queries(queries, h.size)
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    s = max(1, replace_one_sensitivity(q))
    return gaussian_mechanism(q @ h, math.sqrt(s), eps, d, rng=rng)  # type: ignore[return-value]  # an array here


_ERROR_KEYS = ("k", "laplace", "gaussian", "mwem")


@dataclass(frozen=True, eq=False)
class QueryErrorCurves(Mapping[str, np.ndarray]):
    """What :func:`error_versus_queries` returns: for each k, the mean normalised max error of each release.

    A read-only mapping as well, so ``result["mwem"]`` and ``result.mwem`` are the same array.
    """

    k: npt.NDArray[np.int64]             # the numbers of queries, as given
    laplace: npt.NDArray[np.float64]     # laplace_per_query, one entry per k
    gaussian: npt.NDArray[np.float64]    # gaussian_per_query
    mwem: npt.NDArray[np.float64]        # mwem

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in _ERROR_KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_ERROR_KEYS)

    def __len__(self) -> int:
        return len(_ERROR_KEYS)


def error_versus_queries(histogram: npt.ArrayLike, query_pool: npt.ArrayLike, ks: int | Sequence[int], epsilon: float,
                         *, delta: float = 1e-6, iterations: int = 10, passes: int = 0, output: str = "average",
                         runs: int = 5, rng: int | np.random.Generator | None = None) -> QueryErrorCurves:
    """Normalised max error of three releases of the first k queries of ``query_pool``, for each k in ``ks``.

    For each k: Laplace per query (:func:`laplace_per_query`, epsilon), Gaussian per query
    (:func:`gaussian_per_query`, (epsilon, delta)) and :func:`mwem` (epsilon; ``iterations``, ``passes``,
    ``output``), each averaged over ``runs`` runs drawn from ``rng``; errors are divided by n, the number of
    records. An experiment, not a release: each release it makes is private under replace one record, and
    the errors are computed against the true data.

    Parameters
    ----------
    histogram : array_like of int, shape (|X|,)
        Counts of the data.
    query_pool : array_like, shape (K, |X|)
        0/1 counting queries, in the order they are taken.
    ks : int or sequence of int
        Numbers of queries, each in [1, K].
    epsilon : float
        Budget of each release, > 0.
    delta : float
        Delta of the Gaussian release.
    iterations, passes, output
        As in :func:`mwem`.
    runs : int
        Runs averaged per k, >= 1.
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    QueryErrorCurves
        Fields (and keys) ``k``, ``laplace``, ``gaussian``, ``mwem``: arrays with one entry per k.

    Examples
    --------
    >>> res = error_versus_queries([30, 10, 5, 15], [[1, 0, 0, 0], [1, 1, 0, 0]], [1, 2], 1.0, iterations=2,
    ...                            runs=1, rng=0)
    >>> res.k.tolist(), res["mwem"].shape
    ([1, 2], (2,))
    """
    h = _check_histogram(histogram)
    pool = _check_queries(query_pool, h.size, "query_pool")
    eps = check_epsilon(epsilon)
    runs = check_positive_int(runs, "runs")
    T = check_positive_int(iterations, "iterations")
    ks = [check_positive_int(k, "ks entry") for k in np.atleast_1d(ks).tolist()]
    if max(ks) > pool.shape[0]:
        raise ValueError(f"ks must be at most the pool size {pool.shape[0]}, got {max(ks)}")
    gen = as_rng(rng)
    n = h.sum()
    out: dict[str, list[float]] = {"laplace": [], "gaussian": [], "mwem": []}
    for k in ks:
        q = pool[:k]
        true = q @ h
        errs: dict[str, list[float]] = {"laplace": [], "gaussian": [], "mwem": []}
        for _ in range(runs):
            errs["laplace"].append(np.max(np.abs(laplace_per_query(h, q, eps, rng=gen) - true)))
            errs["gaussian"].append(np.max(np.abs(gaussian_per_query(h, q, eps, delta, rng=gen) - true)))
            synthetic = mwem(h, q, eps, iterations=T, passes=passes, output=output, rng=gen)
            errs["mwem"].append(max_query_error(q, h, synthetic))
        for key in errs:
            out[key].append(float(np.mean(errs[key])) / n)
    return QueryErrorCurves(np.array(ks), np.array(out["laplace"]), np.array(out["gaussian"]), np.array(out["mwem"]))
