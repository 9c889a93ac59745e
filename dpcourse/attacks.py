"""Attacks on accurate answers: reconstruction from subset sums, tracing from released means.

The chapter "Too many answers" proves and measures what is used here:

* :func:`reconstruction_attack`: LP decoding of a secret 0/1 column from noisy subset sums
  (Dinur & Nissim 2003; theorem ``thm-reconstruction``), on a real secret (:func:`penguin_sex_bits`)
  and random queries (:func:`random_subset_queries`).
* :func:`tracing_scores`, :func:`tpr_at_fpr`, :func:`tracing_experiment`: membership inference from
  released attribute means (Homer et al. 2008; Dwork et al. 2015).

None of these functions is a release: they build public queries and data sets, or attack a release.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import optimize, sparse

from ._query_checks import _check_queries
from ._validation import as_rng, check_binary_array, check_epsilon, check_positive_int, check_probability, \
    check_real_array
from .laplace import laplace_mechanism

__all__ = [
    "penguin_sex_bits",
    "random_subset_queries",
    "reconstruction_attack",
    "tracing_scores",
    "tpr_at_fpr",
    "tracing_experiment",
    "TracingScores",
]


# ----------------------------------------------------------------------------------------------------
# Reconstruction.


def penguin_sex_bits(n: int, *, rng: int | np.random.Generator | None = None) -> npt.NDArray[np.int64]:
    """A real secret column: the sex (1 = female, 0 = male) of n penguins drawn without replacement.

    The penguins are drawn from the 333 of :func:`dpcourse.data.load_penguins` whose sex is recorded
    (165 female, 168 male), so the bits are nearly balanced and guessing gives about 50%.

    Parameters
    ----------
    n : int
        Number of penguins, 1 <= n <= 333.
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        The secret bits.

    Examples
    --------
    >>> bits = penguin_sex_bits(128, rng=0)
    >>> bits.shape, sorted(set(bits.tolist()))
    ((128,), [0, 1])
    """
    from .data import load_penguins

    sex = load_penguins()["sex"]
    known = np.flatnonzero(sex != "NA")
    n = check_positive_int(n, "n")
    if n > known.size:
        raise ValueError(f"n must be at most {known.size} (penguins whose sex is recorded), got {n}")
    rows = as_rng(rng).choice(known, size=n, replace=False)
    return (sex[rows] == "female").astype(np.int64)


def random_subset_queries(m: int, n: int, *, rng: int | np.random.Generator | None = None) -> npt.NDArray[np.int64]:
    """An (m, n) matrix of independent fair 0/1 entries: m random subset-sum queries on n records.

    Parameters
    ----------
    m : int
        Number of queries, >= 1.
    n : int
        Number of records, >= 1.
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    numpy.ndarray of int64, shape (m, n)
        Row i is the indicator of the records query i sums.

    Examples
    --------
    >>> random_subset_queries(3, 4, rng=0).shape
    (3, 4)
    """
    m = check_positive_int(m, "m")
    n = check_positive_int(n, "n")
    return as_rng(rng).integers(0, 2, size=(m, n)).astype(np.int64)


def reconstruction_attack(queries: npt.ArrayLike, answers: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Reconstruct a secret 0/1 vector from noisy answers to subset-sum queries, by LP decoding.

    The attacker knows the public query matrix ``A`` (m x n, entries 0/1: query i sums the secret bits
    of the records in row i) and the released answers ``a_i = (A s)_i + e_i``. It solves the linear
    program ``min sum_i |(A x)_i - a_i|`` over ``x in [0, 1]^n`` (Dinur & Nissim 2003, in the
    LP-decoding form of Dwork, McSherry & Talwar 2007) with ``scipy.optimize.linprog`` (HiGHS) and
    rounds each coordinate at 1/2.

    Guarantee, for the minimiser ``x*`` and ``d = x* - s`` (proved in the chapter "Too many answers",
    after theorem ``thm-reconstruction``): ``||A d||_1 <= 2 ||e||_1`` for any query matrix; with *all* 2^n
    subset queries and mean absolute error ``e_bar = ||e||_1 / 2^n``, the output differs from ``s`` in at
    most ``128 e_bar^2`` bits. Theorem ``thm-reconstruction`` itself (at most 4E wrong bits) is about an x
    that fits *every* answer within E, which this minimiser of the *sum* of the errors need not be. With
    m = O(n) random subset queries and errors well below sqrt(n) the attack recovers all but a small
    fraction of the bits (Dinur & Nissim 2003; Dwork, McSherry & Talwar 2007): measured in the chapter,
    not proved there. The relation attacked is replace one record (one secret bit changes).

    Parameters
    ----------
    queries : array_like, shape (m, n)
        0/1 entries (ints or floats equal to 0 or 1; bools are refused).
    answers : array_like, shape (m,)
        Finite real answers, one per query.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        The reconstructed bits.

    Examples
    --------
    >>> A = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]]
    >>> reconstruction_attack(A, [1.0, 0.0, 1.0, 2.0]).tolist()
    [1, 0, 1]
    """
    a = _check_queries(queries)
    b = check_real_array(answers, "answers", ndim=1)
    m, n = a.shape
    if b.shape[0] != m:
        raise ValueError(f"answers must have one entry per query row: expected {m}, got {b.shape[0]}")
    # (A x)_i lies in [0, r_i] (r_i the row sum) for x in [0, 1]^n, so |(A x)_i - b_i| and |(A x)_i - clip(b_i)|
    # differ by a constant in x: clipping leaves the minimisers unchanged, and keeps huge answers (1e308)
    # from breaking the solver.
    b = np.clip(b, 0.0, a.sum(axis=1))
    # variables (x_1..x_n, t_1..t_m): minimise sum t subject to -t <= A x - b <= t
    a_sp = sparse.csr_matrix(a)
    eye = sparse.identity(m, format="csr")
    a_ub = sparse.vstack([sparse.hstack([a_sp, -eye]), sparse.hstack([-a_sp, -eye])], format="csr")
    b_ub = np.concatenate([b, -b])
    c = np.concatenate([np.zeros(n), np.ones(m)])
    bounds = [(0.0, 1.0)] * n + [(0.0, None)] * m
    res = optimize.linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"the decoding LP failed: {res.message}")
    return (res.x[:n] > 0.5).astype(np.int64)


# ----------------------------------------------------------------------------------------------------
# Tracing (membership inference) from released means.


class TracingScores(NamedTuple):
    """What :func:`tracing_experiment` returns: the tracing scores of the members and of the non-members."""

    member_scores: npt.NDArray[np.float64]      # one score per member tested
    nonmember_scores: npt.NDArray[np.float64]   # one score per fresh non-member


def tracing_scores(targets: npt.ArrayLike, released_means: npt.ArrayLike,
                   reference_means: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The tracing statistic ``<y - p_ref, q - p_ref>`` of each target y (one row of ``targets``).

    ``released_means`` q are the published means of d binary attributes over a private dataset,
    ``reference_means`` p_ref the attacker's estimate of the population means (from public data). A
    member of the dataset pulls q towards itself, so its score is larger on average (Homer et al. 2008;
    the inner-product test of Dwork, Smith, Steinke, Ullman & Vadhan 2015). Thresholding it is a tracing
    test (definition ``def-tracing-test``); against an (epsilon, delta)-DP release under replace one record,
    corollary ``cor-tracing-bound`` caps its true-positive rate by ``e^epsilon FPR + delta``.

    Parameters
    ----------
    targets : array_like, shape (t, d)
        0/1 attribute vectors of the people tested.
    released_means, reference_means : array_like, shape (d,)
        Finite reals (released means may be noisy and fall outside [0, 1]).

    Returns
    -------
    numpy.ndarray of float64, shape (t,)
        One score per target.

    Examples
    --------
    >>> tracing_scores([[1, 0], [0, 1]], [0.9, 0.1], [0.5, 0.5]).tolist()
    [0.4, -0.4]
    """
    y = check_binary_array(targets, "targets", ndim=2).astype(np.float64)
    q = check_real_array(released_means, "released_means", ndim=1)
    p = check_real_array(reference_means, "reference_means", ndim=1)
    if not y.shape[1] == q.size == p.size:
        raise ValueError(f"targets, released_means and reference_means must share d: got {y.shape[1]}, {q.size}, "
                         f"{p.size}")
    return (y - p) @ (q - p)


def tpr_at_fpr(member_scores: npt.ArrayLike, nonmember_scores: npt.ArrayLike, fpr: float) -> float:
    """True-positive rate of the test "score > tau" whose false-positive rate on non-members is at most ``fpr``.

    tau is the smallest non-member score such that at most ``floor(fpr * N)`` of the N non-member scores
    exceed it; a member is flagged when its score is strictly above tau (the rates of definition
    ``def-tracing-test``, measured on the scores given).

    Parameters
    ----------
    member_scores, nonmember_scores : array_like, shape (t,) and (N,)
        Finite scores of members and of non-members.
    fpr : float
        Largest false-positive rate allowed, in [0, 1].

    Returns
    -------
    float
        The fraction of members flagged, in [0, 1].

    Examples
    --------
    >>> tpr_at_fpr([5.0, 6.0, 0.5], [0.0, 1.0, 2.0, 3.0], 0.25)
    0.6666666666666666
    """
    mem = check_real_array(member_scores, "member_scores", ndim=1)
    non = np.sort(check_real_array(nonmember_scores, "nonmember_scores", ndim=1))
    f = check_probability(fpr, "fpr")
    allowed = math.floor(f * non.size + 1e-9)
    tau = non[non.size - 1 - allowed] if allowed < non.size else -np.inf
    return float(np.mean(mem > tau))


def tracing_experiment(n: int, d: int, *, epsilon: float | None = None, n_reference: int = 1000,
                       n_tested: int | None = None, rng: int | np.random.Generator | None = None) -> TracingScores:
    """Simulate a tracing attack on the means of d binary attributes of n people; return the scores.

    Population means p_j ~ Uniform(0.1, 0.9); the dataset holds n people, each attribute Bernoulli(p_j);
    the curator releases the d means, exactly (``epsilon=None``) or with
    :func:`dpcourse.laplace_mechanism` at ``epsilon`` (l1 sensitivity d/n of the mean vector under
    **replace one record**, so the release is epsilon-DP: theorem ``thm-laplace-privacy``). The attacker
    knows a reference sample of ``n_reference`` other people from the same population, and scores
    ``n_tested`` members and ``n_tested`` fresh non-members with :func:`tracing_scores`. A simulation on
    synthetic data, not a release.

    Parameters
    ----------
    n, d : int
        People in the dataset and attributes, >= 1.
    epsilon : float or None
        Budget of the Laplace release of the means (> 0), or None for exact means.
    n_reference : int
        Size of the attacker's reference sample, >= 1.
    n_tested : int or None
        Members (and non-members) scored, 1 <= n_tested <= n; None for n.
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    TracingScores
        ``(member_scores, nonmember_scores)``, a NamedTuple of two arrays of ``n_tested`` scores.

    Examples
    --------
    >>> mem, non = tracing_experiment(50, 2000, rng=0)
    >>> bool(mem.mean() > non.mean())
    True
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    n_ref = check_positive_int(n_reference, "n_reference")
    t = n if n_tested is None else check_positive_int(n_tested, "n_tested")
    if t > n:
        raise ValueError(f"n_tested must be at most n = {n}, got {t}")
    gen = as_rng(rng)
    p = gen.uniform(0.1, 0.9, size=d)
    data = (gen.random((n, d)) < p).astype(np.int64)
    reference = (gen.random((n_ref, d)) < p).mean(axis=0)
    outsiders = (gen.random((t, d)) < p).astype(np.int64)
    means = data.mean(axis=0)
    if epsilon is not None:
        means = laplace_mechanism(means, d / n, check_epsilon(epsilon), rng=gen)
    return TracingScores(tracing_scores(data[:t], means, reference), tracing_scores(outsiders, means, reference))
