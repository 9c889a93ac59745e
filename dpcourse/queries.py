"""Answering many queries: reconstruction and tracing attacks, the sparse vector technique, query release.

The chapters "Too many answers" and "Private query release" prove what is used here:

* :func:`reconstruction_attack`: LP decoding of a secret 0/1 column from noisy subset sums
  (Dinur & Nissim 2003; theorem ``thm-reconstruction``).
* :func:`tracing_scores`, :func:`tpr_at_fpr`, :func:`tracing_experiment`: membership inference from
  released attribute means (Homer et al. 2008; Dwork et al. 2015).
* :func:`above_threshold`, :func:`sparse_vector`: the sparse vector technique with the noise of
  Lyu, Su & Li (2017), Algorithm 1 (theorem ``thm-svt-privacy``), sampled exactly on a power-of-two
  lattice; :func:`sparse_vector_variant` runs the published *broken* variants for auditing only.
* :func:`smalldb`: the small-database mechanism of Blum, Ligett & Roth (2008), exact on tiny domains
  (theorem ``thm-smalldb-privacy``, lemma ``lem-smalldb-sampling``); :func:`mwem`: multiplicative
  weights with the exponential mechanism (Hardt, Ligett & McSherry 2012; theorem ``thm-mwem-privacy``).

Histograms are non-negative integer counts over a finite, public domain of cells; a query matrix has one
row per counting query and one 0/1 column per cell, so ``queries @ histogram`` are the true counts.
Unless a docstring says otherwise the neighbouring relation is **replace one record** (the number of
records n is public), as in the papers these mechanisms come from.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations_with_replacement, product

import numpy as np
from scipy import optimize, sparse

from ._validation import (
    MAX_ITERATIONS,
    MAX_SIZE,
    as_rng,
    check_size,
    check_binary_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_real,
    check_real_array,
    check_sensitivity,
)
from .discrete import _check_terms, _dlap, _lattice_steps, _power_of_two_at_most, _round_up
from .laplace import laplace_mechanism
from .selection import exponential_mechanism

__all__ = [
    "penguin_sex_bits",
    "random_subset_queries",
    "reconstruction_attack",
    "tracing_scores",
    "tpr_at_fpr",
    "tracing_experiment",
    "above_threshold",
    "sparse_vector",
    "sparse_vector_variant",
    "SVT_VARIANTS",
    "svt_audit_mechanism",
    "above_threshold_accuracy",
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
]

#: Most candidate databases (times queries) :func:`smalldb` enumerates before refusing.
SMALLDB_MAX_WORK = 50_000_000


# ----------------------------------------------------------------------------------------------------
# Arguments.


def _check_queries(queries, n_cells=None, name="queries") -> np.ndarray:
    """A 2-d 0/1 matrix (k, n_cells), returned as float64 (exact for 0/1)."""
    q = check_binary_array(queries, name, ndim=2)
    if n_cells is not None and q.shape[1] != n_cells:
        raise ValueError(f"{name} must have one column per cell: expected {n_cells} columns, got shape {q.shape}")
    return q.astype(np.float64)


def _check_histogram(histogram, name="histogram") -> np.ndarray:
    """A 1-d array of non-negative whole counts with a positive total, returned as float64."""
    h = check_real_array(histogram, name, ndim=1)
    # The histogram is private: these messages name the rule, never an index, a count or a total.
    if (h < 0).any():
        raise ValueError(f"{name} must hold counts >= 0")
    if (h != np.round(h)).any():
        raise ValueError(f"{name} must hold whole counts")
    if h.sum() <= 0:
        raise ValueError(f"{name} must contain at least one record")
    return h


def _check_size(size):
    return check_size(size, allow_none=True)  # None or an int in [1, MAX_SIZE]


# ----------------------------------------------------------------------------------------------------
# Reconstruction.


def penguin_sex_bits(n, *, rng=None) -> np.ndarray:
    """A real secret column: the sex (1 = female, 0 = male) of n penguins drawn without replacement.

    The penguins are drawn from the 333 of :func:`dpcourse.data.load_penguins` whose sex is recorded
    (165 female, 168 male), so the bits are nearly balanced and guessing gives about 50%.

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


def random_subset_queries(m, n, *, rng=None) -> np.ndarray:
    """An (m, n) matrix of independent fair 0/1 entries: m random subset-sum queries on n records.

    Examples
    --------
    >>> random_subset_queries(3, 4, rng=0).shape
    (3, 4)
    """
    m = check_positive_int(m, "m")
    n = check_positive_int(n, "n")
    return as_rng(rng).integers(0, 2, size=(m, n)).astype(np.int64)


def reconstruction_attack(queries, answers) -> np.ndarray:
    """Reconstruct a secret 0/1 vector from noisy answers to subset-sum queries, by LP decoding.

    The attacker knows the public query matrix ``A`` (m x n, entries 0/1: query i sums the secret bits
    of the records in row i) and the released answers ``a_i = (A s)_i + e_i``. It solves the linear
    program ``min sum_i |(A x)_i - a_i|`` over ``x in [0, 1]^n`` (Dinur & Nissim 2003, in the
    LP-decoding form of Dwork, McSherry & Talwar 2007) with ``scipy.optimize.linprog`` (HiGHS) and
    rounds each coordinate at 1/2.

    What this algorithm guarantees (chapter "Too many answers", remark after theorem
    ``thm-reconstruction``). Write ``e = a - A s`` for the errors of the answers and ``x*`` for the LP's
    minimiser, ``d = x* - s``.

    * For any query matrix: ``||A d||_1 <= 2 ||e||_1``. (``s`` is feasible, so
      ``||A x* - a||_1 <= ||A s - a||_1 = ||e||_1``, and ``||A d||_1 <= ||A x* - a||_1 + ||a - A s||_1``.)
    * With *all* 2^n subset queries and mean absolute error ``e_bar = ||e||_1 / 2^n`` (at most E when every
      error is at most E): the output differs from ``s`` in at most ``128 e_bar^2`` bits. Sketch: a wrong
      bit has ``|d_i| >= 1/2``, so t wrong bits give ``||d||_2 >= sqrt(t) / 2``. For a uniform subset S,
      ``sum_{i in S} d_i = (sum_i d_i + sum_i r_i d_i) / 2`` with independent random signs ``r_i``, and
      ``E|c + Z| >= E|Z|`` for a symmetric Z; Szarek's sharp Khintchine inequality
      ``E|sum_i r_i d_i| >= ||d||_2 / sqrt(2)`` then gives ``||A d||_1 / 2^n >= sqrt(t) / (4 sqrt(2))``,
      and the first point bounds it by ``2 e_bar``.

    Theorem ``thm-reconstruction`` (at most 4E wrong bits, or at most 8E after rounding a fractional
    x) is about an x that fits *every* answer within E; this function minimises the *sum* of the errors
    instead (which tolerates a few wildly wrong answers, Dwork, McSherry & Talwar 2007), and its
    minimiser need not fit every answer within E, so that theorem does not apply to it.
    ``tests/test_queries.py`` checks the second point on random and adversarial instances. With m = O(n) random
    subset queries LP decoding still recovers all but a small fraction of the bits when E is well below
    sqrt(n) (Dinur & Nissim 2003; Dwork, McSherry & Talwar 2007): not proved here, measured in the chapter.

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


def tracing_scores(targets, released_means, reference_means) -> np.ndarray:
    """The tracing statistic ``<y - p_ref, q - p_ref>`` of each target y (one row of ``targets``).

    ``released_means`` q are the published means of d binary attributes over a private dataset,
    ``reference_means`` p_ref the attacker's estimate of the population means (from public data). A
    member of the dataset pulls q towards itself, so its score is larger on average (Homer et al. 2008;
    the inner-product test of Dwork, Smith, Steinke, Ullman & Vadhan 2015).

    Parameters
    ----------
    targets : array_like, shape (t, d)
        0/1 attribute vectors of the people tested.
    released_means, reference_means : array_like, shape (d,)
        Finite reals (released means may be noisy and fall outside [0, 1]).

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


def tpr_at_fpr(member_scores, nonmember_scores, fpr) -> float:
    """True-positive rate of the test "score > tau" whose false-positive rate on non-members is at most ``fpr``.

    tau is the smallest non-member score such that at most ``floor(fpr * N)`` of the N non-member scores
    exceed it; a member is flagged when its score is strictly above tau.

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


def tracing_experiment(n, d, *, epsilon=None, n_reference=1000, n_tested=None, rng=None):
    """Simulate a tracing attack on the means of d binary attributes of n people; return the scores.

    Population means p_j ~ Uniform(0.1, 0.9); the dataset holds n people, each attribute Bernoulli(p_j);
    the curator releases the d means, exactly (``epsilon=None``) or with
    :func:`dpcourse.laplace_mechanism` at ``epsilon`` (l1 sensitivity d/n of the mean vector under
    replace-one, so the release is epsilon-DP). The attacker knows a reference sample of
    ``n_reference`` other people from the same population, and scores ``n_tested`` members and
    ``n_tested`` fresh non-members with :func:`tracing_scores`.

    Returns
    -------
    (member_scores, nonmember_scores) : tuple of numpy.ndarray

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
    return tracing_scores(data[:t], means, reference), tracing_scores(outsiders, means, reference)


# ----------------------------------------------------------------------------------------------------
# Sparse vector.


def _svt_indices(above: np.ndarray, c: int) -> np.ndarray:
    """(size, c) indices of the first c True entries of each row of ``above`` (-1 where there are fewer)."""
    cum = np.cumsum(above, axis=1)
    out = np.full((above.shape[0], c), -1, dtype=np.int64)
    for j in range(min(c, above.shape[1])):   # columns beyond the number of queries stay -1
        hit = cum >= j + 1
        out[:, j] = np.where(hit[:, -1], np.argmax(hit, axis=1), -1)
    return out


def _svt_lattice(sensitivity: float):
    """Lattice exponent e (spacing 2**e, about sensitivity * 2**-20) and the rounded sensitivity in steps."""
    e = _power_of_two_at_most(sensitivity * 2.0**-20)
    g = Fraction(2) ** e
    return e, math.floor(Fraction(sensitivity) / g) + 1


_SVT_THRESHOLD_STEPS = 2**60   # a (public) threshold must lie within +-2**60 lattice steps
_SVT_EXACT_NOISE = 2**61       # below this, value (<= 2**61 steps) + noise fits int64


def _threshold_steps(t: float, e: int, sensitivity: float) -> int:
    """The public threshold in lattice steps; refused (it is public) beyond +-2**60 steps."""
    limit = math.ldexp(float(_SVT_THRESHOLD_STEPS), e) if e < 964 else math.inf  # 2**(60 + e) beyond the floats
    if not abs(t) < limit:
        raise ValueError(f"threshold must lie in (-{limit!r}, {limit!r}) (2**60 lattice steps of the sensitivity "
                         f"{sensitivity!r}), got {t!r}")
    return int(np.rint(math.ldexp(t, -e)))


def _svt_above(q_steps: np.ndarray, t_steps: int, rho: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """``q_i + nu_i >= T + rho``, exactly: in int64, or in Python ints when a noise draw is huge."""
    if max(int(np.abs(nu).max(initial=0)), int(np.abs(rho).max(initial=0))) < _SVT_EXACT_NOISE:
        return (q_steps[None, :] + nu) >= (t_steps + rho)[:, None]
    lhs = q_steps.astype(object)[None, :] + nu.astype(object)
    return (lhs >= (t_steps + rho.astype(object))[:, None]).astype(bool)


def sparse_vector(values, threshold, epsilon, c, *, sensitivity=1.0, rng=None, size=None):
    """The sparse vector technique: the indices of the first ``c`` queries whose noisy value exceeds a noisy threshold.

    Lyu, Su & Li (2017), Algorithm 1. With ``epsilon_1 = epsilon_2 = epsilon / 2``: draw
    ``rho ~ Lap(sensitivity / epsilon_1)`` once; for each query in order draw
    ``nu_i ~ Lap(2 c sensitivity / epsilon_2)`` and answer "above" (release i) if
    ``q_i + nu_i >= threshold + rho``, else "below"; stop after the c-th "above". The threshold noise is
    **not** redrawn after an "above" answer. The whole transcript (all "below" answers up to the last
    released index) is a function of the returned indices.

    Privacy: epsilon-DP if every ``q_i`` (= ``values[i]``, computed from the data) moves by at most
    ``sensitivity`` between neighbours, under the relation the caller has in mind, however many queries
    are asked and even if each query is chosen after seeing the previous answers (theorem
    ``thm-svt-privacy``).

    Noise on a real computer: the values and the threshold are rounded to the lattice g Z with
    g = 2**floor(log2(sensitivity * 2**-20)), and rho and nu are g times exact discrete Laplace draws
    (:func:`dpcourse.discrete_laplace`'s sampler) with scales computed for the rounded sensitivity
    ``floor(sensitivity / g) + 1`` steps, rounded up; the proof of ``thm-svt-privacy`` holds verbatim for
    these integer noises, so the claimed epsilon holds exactly. Only comparisons are released. A value
    of any finite size is answered: the rounded values are clamped to +-2**61 lattice steps (about
    2**41 times the sensitivity), a 1-Lipschitz map that keeps the sensitivity, and the comparisons
    are exact integer arithmetic however large a noise draw is. Only the public threshold is refused
    beyond +-2**60 steps.

    Parameters
    ----------
    values : array_like of float, shape (k,)
        The true answers q_1(x), ..., q_k(x), in the order asked; finite (NaN and +-inf are refused with
        a message that holds nothing computed from them), of any size.
    threshold : float
        Public threshold T, finite, within +-2**60 lattice steps (about 2**40 times the sensitivity).
    epsilon : float
        Total privacy parameter, > 0.
    c : int
        Largest number of "above" answers, >= 1.
    sensitivity : float
        Bound on the change of each single query between neighbours, > 0.
    rng : None, int or numpy.random.Generator, optional
    size : None or int, optional
        Number of independent runs (one vectorized call); None for one run.

    Returns
    -------
    numpy.ndarray of int64
        Shape (c,) (or (size, c)): the released indices in increasing order, padded with -1 when fewer
        than c queries were found above the threshold.

    Examples
    --------
    >>> sparse_vector([0.0, 100.0, 0.0, 100.0, 100.0], 50.0, 10.0, 2, rng=0).tolist()
    [1, 3]
    >>> sparse_vector([0.0, 0.0], 50.0, 10.0, 1, rng=0).tolist()
    [-1]
    """
    q = check_real_array(values, "values", ndim=1)
    t = check_real(threshold, "threshold")
    eps = check_epsilon(epsilon)
    c = check_size(c, "c")
    sens = check_sensitivity(sensitivity)
    size_ = _check_size(size)
    gen = as_rng(rng)
    runs = 1 if size_ is None else size_
    if runs * c > MAX_SIZE:
        raise ValueError(f"size * c must be at most MAX_SIZE = {MAX_SIZE} (the output has that many entries), got "
                         f"size={size!r}, c={c}")
    e, steps = _svt_lattice(sens)
    q_steps = _lattice_steps(q, e)   # clamped to +-2**61 steps: a value of any size is answered
    t_steps = _threshold_steps(t, e, sens)
    eps1 = Fraction(eps) / 2
    eps2 = Fraction(eps) - eps1
    if Fraction(2 * c * steps) / eps2 >= 2**59:   # the larger of the two scales, before any float division
        raise ValueError(f"the query noise scale 2 c / (epsilon / 2), in lattice steps of the sensitivity, must stay "
                         f"below 2**59 for the exact sampler; got epsilon={epsilon!r}, c={c}")
    b_rho = _round_up(Fraction(steps) / eps1)
    b_nu = _round_up(Fraction(2 * c * steps) / eps2)
    rho = _dlap(*_check_terms(b_rho, "the threshold noise scale", float(b_rho)), runs, gen)
    nu = _dlap(*_check_terms(b_nu, "the query noise scale", float(b_nu)), runs * q.size, gen).reshape(runs, q.size)
    above = _svt_above(q_steps, t_steps, rho, nu)
    out = _svt_indices(above, c)
    return out[0] if size_ is None else out


def above_threshold(values, threshold, epsilon, *, sensitivity=1.0, rng=None, size=None):
    """AboveThreshold: the index of the first query whose noisy value exceeds the noisy threshold, or -1.

    :func:`sparse_vector` with c = 1: ``rho ~ Lap(2 sensitivity / epsilon)``,
    ``nu_i ~ Lap(4 sensitivity / epsilon)`` (Lyu, Su & Li 2017, Algorithm 1 with c = 1; Dwork & Roth
    2014, Algorithm 1), sampled exactly on a lattice. epsilon-DP for queries of sensitivity
    ``sensitivity`` (theorem ``thm-svt-privacy``); accuracy in theorem ``thm-svt-accuracy``.

    Returns
    -------
    int or numpy.ndarray of int64
        One index in ``{-1, 0, ..., k-1}``, or ``size`` of them.

    Examples
    --------
    >>> above_threshold([1.0, 2.0, 90.0, 95.0], 50.0, 5.0, rng=0)
    2
    >>> above_threshold([1.0, 2.0], 50.0, 1.0, rng=0, size=3).shape
    (3,)
    """
    out = sparse_vector(values, threshold, epsilon, 1, sensitivity=sensitivity, rng=rng, size=size)
    return int(out[0]) if size is None else out[:, 0]


#: Variants of the sparse vector technique catalogued by Lyu, Su & Li (2017): their privacy in truth.
SVT_VARIANTS = {
    "lyu_su_li": "Algorithm 1: rho ~ Lap(D/e1), nu ~ Lap(2cD/e2), stop after c; epsilon-DP",
    "lee_clifton": "Algorithm 4: e1 = e/4, nu ~ Lap(D/e2) (not scaled with c), stop after c; only ((1+6c)/4)e-DP",
    "stoddard": "Algorithm 5: no query noise, no cutoff; not e-DP for any finite e",
    "chen": "Algorithm 6: nu ~ Lap(D/e2), no cutoff; not e-DP for any finite e",
}


def sparse_vector_variant(values, threshold, epsilon, c, *, variant, sensitivity=1.0, rng=None, size=None):
    """Run a published variant of the sparse vector technique, **for auditing only**; returns the transcript.

    The variants are those of Lyu, Su & Li (2017) listed in :data:`SVT_VARIANTS`. Only
    ``"lyu_su_li"`` is private (it is :func:`sparse_vector`'s algorithm); the others claim epsilon-DP
    and are not. This function exists so that the book and the tests can show an auditor refuting
    them: it draws its noise with the textbook float sampler ``Generator.laplace`` (a demonstration,
    not a release), and it must never be used on real data.

    Parameters
    ----------
    values, threshold, epsilon, c, sensitivity, rng, size
        As in :func:`sparse_vector`.
    variant : str
        A key of :data:`SVT_VARIANTS`.

    Returns
    -------
    numpy.ndarray of int8, shape (k,) or (size, k)
        1 for "above", 0 for "below", -1 for queries not answered (after the cutoff).

    Examples
    --------
    >>> sparse_vector_variant([0.0, 9.0, 9.0], 5.0, 50.0, 1, variant="chen", rng=0).tolist()
    [0, 1, 1]
    >>> sparse_vector_variant([0.0, 9.0, 9.0], 5.0, 50.0, 1, variant="lyu_su_li", rng=0).tolist()
    [0, 1, -1]
    """
    q = check_real_array(values, "values", ndim=1)
    t = check_real(threshold, "threshold")
    eps = check_epsilon(epsilon)
    c = check_positive_int(c, "c")
    sens = check_sensitivity(sensitivity)
    variant = check_choice(variant, "variant", tuple(SVT_VARIANTS))
    size_ = _check_size(size)
    gen = as_rng(rng)
    runs = 1 if size_ is None else size_
    eps1 = eps / 4 if variant == "lee_clifton" else eps / 2
    eps2 = eps - eps1
    rho = gen.laplace(0.0, sens / eps1, size=(runs, 1))
    if variant == "stoddard":
        nu = np.zeros((runs, q.size))
    else:
        nu_scale = 2 * c * sens / eps2 if variant == "lyu_su_li" else sens / eps2
        nu = gen.laplace(0.0, nu_scale, size=(runs, q.size))
    above = (q[None, :] + nu) >= (t + rho)
    transcript = above.astype(np.int8)
    if variant in ("lyu_su_li", "lee_clifton"):
        before = np.cumsum(above, axis=1) - above  # "above" answers strictly before query i
        transcript[before >= c] = -1
    return transcript[0] if size_ is None else transcript


_SUMMARIES = ("first_above", "half_difference")


def svt_audit_mechanism(variant, summary, *, epsilon=1.0, threshold=0.0, c=1):
    """A mechanism ``mech(values, rng, size=None)`` for :func:`dpcourse.audit_epsilon`: a scalar summary of SVT.

    ``variant`` is ``"secure"`` (:func:`sparse_vector`) or a key of :data:`SVT_VARIANTS`
    (:func:`sparse_vector_variant`); the input of the mechanism is the vector of true query values.
    ``summary`` reduces each transcript to one integer (post-processing, so an audit of it is still a
    valid lower bound): ``"first_above"``, the index of the first "above" answer (-1 if none), or
    ``"half_difference"``, the number of "above" answers among the first half of the queries minus
    that among the second half.

    Examples
    --------
    >>> mech = svt_audit_mechanism("stoddard", "first_above")
    >>> mech([-50.0, 50.0], np.random.default_rng(0), size=3).tolist()
    [1, 1, 1]
    """
    eps = check_epsilon(epsilon)
    t = check_real(threshold, "threshold")
    c = check_positive_int(c, "c")
    variant = check_choice(variant, "variant", ("secure",) + tuple(SVT_VARIANTS))
    summary = check_choice(summary, "summary", _SUMMARIES)

    def mech(values, rng, size=None):
        vals = np.asarray(values, dtype=float)
        runs = 1 if size is None else size
        if variant == "secure":
            idx = sparse_vector(vals, t, eps, c, rng=rng, size=runs)
            above = np.zeros((runs, vals.size), dtype=bool)
            rows, cols = np.nonzero(idx >= 0)
            above[rows, idx[rows, cols]] = True
        else:
            above = sparse_vector_variant(vals, t, eps, c, variant=variant, rng=rng, size=runs) == 1
        if summary == "first_above":
            out = np.where(above.any(axis=1), above.argmax(axis=1), -1)
        else:
            h = vals.size // 2
            out = above[:, :h].sum(axis=1) - above[:, h:].sum(axis=1)
        return out if size is not None else int(out[0])

    return mech


def above_threshold_accuracy(k, epsilon, beta, *, sensitivity=1.0) -> float:
    """alpha of theorem ``thm-svt-accuracy``: ``8 sensitivity (ln k + ln(2 / beta)) / epsilon``.

    With probability at least 1 - beta, AboveThreshold on k queries answers "above" only for a query with
    ``q_i > T - alpha`` and "below" only for queries with ``q_i < T + alpha``. :func:`above_threshold` samples on
    a lattice of spacing ``g <= 2**-20 sensitivity``; for epsilon <= 2**21 the same holds with
    ``alpha_g = alpha (1 + 2**-20)(1 + 2**-58) + 2 g`` in place of alpha, provided ``alpha_g <= 2**60 g`` (values
    beyond 2**61 steps are clamped; chapter "Too many answers", after theorem ``thm-svt-accuracy``).

    Examples
    --------
    >>> round(above_threshold_accuracy(1000, 1.0, 0.05), 3)
    84.773
    """
    kk = check_positive_int(k, "k")
    eps = check_epsilon(epsilon)
    b = check_probability(beta, "beta", open_low=True, open_high=True)
    sens = check_sensitivity(sensitivity)
    return 8.0 * sens * (math.log(kk) + math.log(2.0 / b)) / eps


# ----------------------------------------------------------------------------------------------------
# Query release.


def answer_queries(histogram, queries) -> np.ndarray:
    """The exact counts ``queries @ histogram`` (validated: 0/1 queries, one column per cell).

    Examples
    --------
    >>> answer_queries([3, 1, 2], [[1, 1, 0], [0, 0, 1]]).tolist()
    [4.0, 2.0]
    """
    h = check_real_array(histogram, "histogram", ndim=1)
    return _check_queries(queries, h.size) @ h


#: Shape of :func:`affairs_histogram`: any affair (2) x gender (2) x age group (4) x marriage rating group (4).
AFFAIRS_SHAPE = (2, 2, 4, 4)


def affairs_histogram() -> np.ndarray:
    """Fair's affairs survey (601 respondents, :func:`dpcourse.data.load_affairs`) as counts over 64 cells.

    Attributes, in C order of the cells: ``any_affair`` (0, 1); ``gender`` (female, male); age group
    (up to 22, 27-32, 37-42, 47 and over); rating group (1-2, 3, 4, 5). Reshape with
    :data:`AFFAIRS_SHAPE` to read it as a table.

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


def max_query_error(queries, histogram, estimate) -> float:
    """``max_i |q_i . estimate - q_i . histogram|``: the largest count error of a synthetic histogram.

    ``estimate`` is a synthetic histogram over the same cells (any finite reals).

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


def product_queries(shape) -> np.ndarray:
    """All counting queries "attribute j lies in S_j for every j", S_j a non-empty set of values of attribute j.

    The domain is the grid of ``shape`` (cells in C order, as ``np.ravel`` of a histogram of that
    shape). Marginals are the special case where each S_j is one value or all values. There are
    ``prod_j (2**shape[j] - 1)`` queries, returned as rows of a 0/1 matrix with ``prod(shape)`` columns.

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


def smalldb_candidates(domain_size, m) -> np.ndarray:
    """Every histogram of m records over ``domain_size`` cells (multisets), one per row.

    There are ``C(domain_size + m - 1, m)`` of them.

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


def smalldb(histogram, queries, epsilon, *, m, rng=None) -> np.ndarray:
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
        Counts of the private data over the cells (n = their sum, public).
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


def smalldb_sample_size(n_queries, alpha) -> int:
    """The m of lemma ``lem-smalldb-sampling``: ``ceil(ln(2 k) / (2 alpha^2))`` (+1 if that is exact).

    For any dataset and any k counting queries, some database of m records (a sample of the data) answers
    every normalised query within alpha.

    Examples
    --------
    >>> smalldb_sample_size(1000, 0.1)
    381
    """
    k = check_positive_int(n_queries, "n_queries")
    a = check_real(alpha, "alpha", low=0.0, low_open=True, high=1.0)
    bound = math.log(2 * k) / (2 * a * a)
    return math.floor(bound) + 1


def smalldb_error_bound(n, n_queries, domain_size, epsilon, m, beta) -> float:
    """Theorem ``thm-smalldb-accuracy``: with probability >= 1 - beta the normalised error of :func:`smalldb` is at most this.

    ``sqrt(ln(2 k) / (2 m)) + 2 (ln C(|X| + m - 1, m) + ln(1 / beta)) / (epsilon n)``: the first term is
    the best small database (lemma ``lem-smalldb-sampling``), the second the exponential mechanism's loss.

    Examples
    --------
    >>> round(smalldb_error_bound(10_000, 100, 8, 1.0, 20, 0.05), 4)
    0.3673
    """
    n = check_positive_int(n, "n")
    k = check_positive_int(n_queries, "n_queries")
    d = check_positive_int(domain_size, "domain_size")
    eps = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    b = check_probability(beta, "beta", open_low=True, open_high=True)
    log_count = math.lgamma(d + m) - math.lgamma(m + 1) - math.lgamma(d)
    return math.sqrt(math.log(2 * k) / (2 * m)) + 2.0 * (log_count + math.log(1.0 / b)) / (eps * n)


def mwem(histogram, queries, epsilon, *, iterations, passes=0, output="average", rng=None) -> np.ndarray:
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
    # name (it used to surface as a message about the exponential mechanism's utilities).
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

    def update(log_a, row, measured):
        est = n * float(row @ np.exp(log_a))
        log_a = log_a + row * (measured - est) / (2.0 * n)
        log_a -= log_a.max()
        return log_a - math.log(np.exp(log_a).sum())

    measurements = []
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


def replace_one_sensitivity(queries) -> int:
    """Largest l1 change of ``queries @ histogram`` when one record moves from one cell to another.

    Moving a record from cell j to cell j' changes query i by ``q_i(j') - q_i(j)``, so the l1 change is
    the Hamming distance of columns j and j' of the 0/1 matrix; this returns the largest one (at most
    twice the largest column sum). Under add/remove the sensitivity is the largest column sum instead.
    For 0/1 entries the squared l2 change equals the l1 change.

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


def laplace_per_query(histogram, queries, epsilon, *, rng=None) -> np.ndarray:
    """Answer every counting query with Laplace noise, calibrated to the replace-one l1 sensitivity.

    Releases ``laplace_mechanism(Q x, s, epsilon)`` (exact lattice sampler) with s =
    :func:`replace_one_sensitivity` (the basic-composition price of answering the queries one by one:
    theorem ``thm-basic-composition``; s is at most 2k and often much smaller). epsilon-DP under
    replace one record, the relation of :func:`mwem` and :func:`smalldb`.

    Examples
    --------
    >>> laplace_per_query([3, 1], [[1, 0], [1, 1]], 1e6, rng=0).round(3).tolist()
    [3.0, 4.0]
    """
    h = _check_histogram(histogram)
    q = _check_queries(queries, h.size)
    eps = check_epsilon(epsilon)
    sens = max(1, replace_one_sensitivity(q))
    return laplace_mechanism(q @ h, float(sens), eps, rng=rng)


def gaussian_per_query_sigma(n_queries, epsilon, delta) -> float:
    """Smallest sigma (to 1e-9 relative) with which k Gaussian answers of sensitivity 1 are (epsilon, delta)-DP.

    Found with :class:`dpcourse.PrivacyAccountant` (events ``GaussianEvent(sigma)`` composed k times,
    method ``"gaussian_exact"``: exact for Gaussian composition) by bisection.

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

    def eps_of(sigma):
        return PrivacyAccountant().compose(GaussianEvent(sigma=sigma), k).epsilon(d, "gaussian_exact")

    lo, hi = 1e-3, 1.0
    while eps_of(hi) > eps:
        lo, hi = hi, 2 * hi
    while hi / lo > 1 + 1e-9:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if eps_of(mid) <= eps else (mid, hi)
    return hi


def gaussian_per_query(histogram, queries, epsilon, delta, *, rng=None) -> np.ndarray:
    """Answer every counting query with Gaussian noise of l2 sensitivity ``sqrt(s)``, s = :func:`replace_one_sensitivity`.

    Moving one record changes s of the answers by 1 each (0/1 queries), so the answer vector has l2
    sensitivity sqrt(s) under replace one record. A Gaussian release of l2 sensitivity sqrt(s) with noise
    sigma has exactly the privacy of s composed releases of sensitivity 1 with the same sigma (a
    Gaussian's privacy depends only on sensitivity / sigma, and these compose as the root of the sum of
    squares), which is how :func:`gaussian_per_query_sigma` accounts for it with the accountant. The
    release uses the exact lattice sampler of :func:`dpcourse.gaussian_mechanism` (``secure=True``),
    whose zCDP calibration adds some noise over that sigma. (epsilon, delta)-DP.

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
    return gaussian_mechanism(q @ h, math.sqrt(s), eps, d, rng=rng)


def error_versus_queries(histogram, query_pool, ks, epsilon, *, delta=1e-6, iterations=10, passes=0, output="average",
                         runs=5, rng=None):
    """Normalised max error of three releases of the first k queries of ``query_pool``, for each k in ``ks``.

    For each k: Laplace per query (:func:`laplace_per_query`), Gaussian per query
    (:func:`gaussian_per_query`, (epsilon, delta)) and :func:`mwem` (``iterations``, ``passes``, ``output``), each
    averaged over ``runs`` runs drawn from ``rng``; errors are divided by n, the number of records.

    Returns
    -------
    dict
        ``{"k": array, "laplace": array, "gaussian": array, "mwem": array}``.
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
    out = {"k": np.array(ks), "laplace": [], "gaussian": [], "mwem": []}
    for k in ks:
        q = pool[:k]
        true = q @ h
        errs = {"laplace": [], "gaussian": [], "mwem": []}
        for _ in range(runs):
            errs["laplace"].append(np.max(np.abs(laplace_per_query(h, q, eps, rng=gen) - true)))
            errs["gaussian"].append(np.max(np.abs(gaussian_per_query(h, q, eps, delta, rng=gen) - true)))
            synthetic = mwem(h, q, eps, iterations=T, passes=passes, output=output, rng=gen)
            errs["mwem"].append(max_query_error(q, h, synthetic))
        for key in errs:
            out[key].append(float(np.mean(errs[key])) / n)
    for key in ("laplace", "gaussian", "mwem"):
        out[key] = np.array(out[key])
    return out
