"""Lower bounds: how small the error of a differentially private release can be.

The chapter "Lower bounds: why the noise cannot be smaller" proves what is computed here:

* :func:`packing_failure_probability`, :func:`packing_error_bound`: the packing bound for ε-DP histograms
  and counts (theorem ``lb-thm-packing``, corollary ``lb-cor-packing``).
* :func:`bit_guessing_bound`, :func:`subset_sum_error_bound`: what (ε, δ)-DP allows an attacker to learn
  about uniformly random secret bits, and the error it forces on all subset sums (theorem
  ``lb-thm-dp-guessing``, corollary ``lb-cor-subset-sums``; the reconstruction itself is
  :func:`dpcourse.reconstruction_attack`).
* :func:`fingerprinting_code`, :func:`fingerprinting_sample_bound`, :func:`gaussian_means_sample_size`,
  :func:`tracing_trial`: the fingerprinting lower bound for releasing d attribute means (lemma
  ``lb-lem-fingerprinting``, theorem ``lb-thm-fingerprinting``, corollary ``lb-cor-fingerprinting-alpha``),
  the Gaussian mechanism's matching sample size, and the tracing attack (:func:`dpcourse.tracing_scores`) on
  a release of the means.

Every bound names its neighbouring relation; the attribute-mean results are under **replace one record**
(n public), as in Bun, Ullman & Vadhan (2014) and Dwork, Smith, Steinke, Ullman & Vadhan (2015).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ._validation import (
    as_rng,
    check_choice,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_real,
    check_relation,
)
from .gaussian import analytic_gaussian_sigma, gaussian_mechanism
from .queries import tracing_scores

__all__ = [
    "packing_failure_probability",
    "packing_error_bound",
    "bit_guessing_bound",
    "subset_sum_error_bound",
    "fingerprinting_code",
    "fingerprinting_sample_bound",
    "gaussian_means_sample_size",
    "tracing_trial",
    "FINGERPRINT_MAX_CELLS",
    "FINGERPRINT_MAX_N0",
    "FINGERPRINT_MAX_N",
]

#: Largest n * d (people times attributes) :func:`fingerprinting_code` and :func:`tracing_trial` draw.
FINGERPRINT_MAX_CELLS = 50_000_000
#: Largest n0 :func:`fingerprinting_sample_bound` tries (fewer n0 only exclude fewer n: the answer stays true).
FINGERPRINT_MAX_N0 = 10**6
#: Largest n :func:`fingerprinting_sample_bound` reports (the upper end is capped there, never overstated).
FINGERPRINT_MAX_N = 2**62


def _packing_count(k: int, relation: str) -> int:
    """The number K of datasets the packing argument compares with the centre one (k or k - 1)."""
    return k if relation == "add_remove" else k - 1


def _check_bins(k, relation):
    rel = check_relation(relation)
    k = check_positive_int(k, "k", minimum=1 if rel == "add_remove" else 2)
    return k, rel


def packing_failure_probability(k, epsilon, m, *, relation) -> float:
    """Smallest worst-case probability that an ε-DP histogram misses some count by m/2 or more.

    Theorem ``lb-thm-packing``: for every ε-DP mechanism answering a histogram over ``k`` bins (a vector in
    R^k) under ``relation``, one of the datasets of the proof (at most m records more than a common public
    base) has ``Pr[max_j |M(D)_j - h(D)_j| >= m/2] >= K / (K + e^(ε m))``, with K = k under add/remove and
    K = k - 1 under replace-one. ``k = 1`` under add/remove is a single counting query.

    Parameters
    ----------
    k : int
        Number of bins, >= 1 (add/remove) or >= 2 (replace-one).
    epsilon : float
        ε > 0.
    m : int
        Number of records moved between the datasets of the proof, >= 1.
    relation : {"add_remove", "replace_one"}

    Examples
    --------
    >>> round(packing_failure_probability(1, 1.0, 1, relation="add_remove"), 6)  # a count, error >= 1/2
    0.268941
    >>> packing_failure_probability(8, math.log(8), 1, relation="add_remove")
    0.5
    """
    k, rel = _check_bins(k, relation)
    eps = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    big_k = _packing_count(k, rel)
    # K / (K + e^(eps m)) = 1 / (1 + e^x), x = eps m - ln K: for x > 0 as e^-x / (1 + e^-x), which underflows
    # to 0 (never rounds the bound up) instead of overflowing
    x = eps * m - math.log(big_k)
    if x > 0:
        return float(math.exp(-x) / (1.0 + math.exp(-x)))
    return float(1.0 / (1.0 + math.exp(x)))


def packing_error_bound(k, epsilon, *, relation, beta=0.5) -> float:
    """The error t that some dataset suffers with probability >= ``beta`` under any ε-DP histogram.

    Corollary ``lb-cor-packing``: t = floor(ln(K (1 - β) / β) / ε) / 2 (K = k under add/remove, k - 1 under
    replace-one): for every ε-DP mechanism there is a dataset D with ``Pr[max_j |M(D)_j - h(D)_j| >= t] >=
    β``. Returns 0.0 when that floor is 0 (the argument then certifies nothing). ``beta = 0.5`` bounds the
    *median* of the largest error from below.

    Examples
    --------
    >>> packing_error_bound(1000, 1.0, relation="add_remove")
    3.0
    >>> packing_error_bound(1000, 1.0, relation="replace_one")
    3.0
    >>> packing_error_bound(1, 0.1, relation="add_remove", beta=1 / (1 + math.e))  # a count: m = 1/ε = 10
    5.0
    """
    k, rel = _check_bins(k, relation)
    eps = check_epsilon(epsilon)
    b = check_probability(beta, "beta", open_low=True, open_high=True)
    big_k = _packing_count(k, rel)
    ratio = math.log(big_k) + math.log1p(-b) - math.log(b)
    if ratio <= 0:
        return 0.0
    q = ratio / eps
    if not q < 2.0**53:   # huge (or overflowed) m: floor(q) >= q (1 - 1e-12), so this half never overstates t
        return min(q, sys.float_info.max) * (1 - 1e-12) / 2.0
    # largest integer m with eps * m <= ratio; a hair of slack so that e.g. ln 8 / ln 8 is not floored to 0
    m = math.floor(q * (1 + 1e-12))
    while m > 0 and packing_failure_probability(k, eps, m, relation=rel) < b * (1 - 1e-12):
        m -= 1
    return m / 2.0


def bit_guessing_bound(epsilon, delta) -> float:
    """Largest average probability of guessing a secret bit right from an (ε, δ)-DP release.

    Theorem ``lb-thm-dp-guessing``: if the n secret bits are independent and uniform and the release is
    (ε, δ)-DP under replace-one (one bit flips), every guess of bit i from the release is right with
    probability at most (e^ε + δ) / (1 + e^ε), averaged over the bits' draw and the mechanism.

    Examples
    --------
    >>> round(bit_guessing_bound(1.0, 0.0), 6)
    0.731059
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    if eps > 700:
        return 1.0
    return float((math.exp(eps) + dlt) / (1.0 + math.exp(eps)))


def subset_sum_error_bound(n, epsilon, delta, beta) -> float:
    """Error an (ε, δ)-DP mechanism must make on some subset sum of n secret bits.

    Corollary ``lb-cor-subset-sums``: if a mechanism, (ε, δ)-DP under replace-one, answers *all* 2^n subset
    sums of uniformly random bits with every error at most E with probability at least 1 - β, then
    E >= (n / 4) ((1 - δ) / (1 + e^ε) - β). Returns that value, or 0.0 when it is not positive.

    Examples
    --------
    >>> round(subset_sum_error_bound(1000, 1.0, 1e-6, 0.05), 3)
    54.735
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    b = check_probability(beta, "beta")
    wrong = 1.0 - bit_guessing_bound(eps, dlt)        # = (1 - δ) / (1 + e^ε)
    return max(0.0, n / 4.0 * (wrong - b))


def fingerprinting_code(n, d, *, rng=None):
    """Draw the random instance of the fingerprinting lemma: biases and n people with d 0/1 attributes.

    Each attribute j has a bias p_j uniform on [0, 1] (drawn once, independently); each of the ``n`` rows
    holds independent bits with Pr[x_ij = 1] = p_j. In ±1 notation (2x - 1) these are the product
    distributions with uniform means on [-1, 1] of lemma ``lb-lem-fingerprinting`` (the biased code of
    Tardos 2003, without its cut-off). Call it again with the same biases for fresh people: draw them as
    ``(rng.random((t, d)) < biases)``.

    Returns
    -------
    (biases, data) : float64 array of shape (d,), int8 array of shape (n, d)

    Examples
    --------
    >>> p, x = fingerprinting_code(3, 4, rng=0)
    >>> p.shape, x.shape, sorted(set(x.ravel().tolist())) <= [0, 1]
    ((4,), (3, 4), True)
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    if n * d > FINGERPRINT_MAX_CELLS:
        raise ValueError(f"n * d must be at most FINGERPRINT_MAX_CELLS = {FINGERPRINT_MAX_CELLS}, got n = {n}, "
                         f"d = {d}")
    gen = as_rng(rng)
    biases = gen.random(d)
    data = (gen.random((n, d)) < biases).astype(np.int8)
    return biases, data


def _fingerprinting_constant(d: int, eps: float) -> float:
    """C = sqrt(3 d / 2) / sinh(ε), the scale of theorem ``lb-thm-fingerprinting``."""
    if eps > 700:   # sinh(eps) overflows; C is then below 1e-290 and excludes nothing
        return 0.0
    return math.sqrt(1.5 * d) / math.sinh(eps)


def fingerprinting_sample_bound(d, epsilon, delta, alpha):
    """Range of dataset sizes n on which no (ε, δ)-DP release of d means can have error α (proved).

    Corollary ``lb-cor-fingerprinting-alpha`` (replace-one; 0/1 attributes): let M release d means of n
    people with E||M(x) - x̄||_1 <= α d for every dataset x. For an integer 1 <= n0 <= n, padding n0 people
    to n gives a release of n0 means in ±1 notation with error a = 2 α n / n0, and theorem
    ``lb-thm-fingerprinting`` then needs n0 >= (2/3 - 2 a - 4 δ n0) C, C = sqrt(3d/2) / sinh(ε). So n is
    excluded when n0 <= n < n0 (2/3 - 4 δ n0 - n0 / C) / (4 α) for some n0. This returns ``(n_low, n_high)``:
    every n with n_low <= n <= n_high is excluded, ``(0, 0)`` when the corollary excludes nothing at these
    parameters. Only n0 <= ``FINGERPRINT_MAX_N0`` are tried and n_high is capped at ``FINGERPRINT_MAX_N``:
    both can only shorten the range, never make it wrong. For small α and δ, n_high is about
    C / (36 α) = (sqrt(3/2) / 36) sqrt(d) / (α sinh ε), that is 0.034 sqrt(d) / (α ε) for small ε (the best
    n0 is C / 3): a constant about 85 times below what the Gaussian mechanism needs at δ = 1e-6
    (:func:`gaussian_means_sample_size`), of which sqrt(ln(1/δ)) = 3.7 is the δ-dependence the proof ignores.

    Examples
    --------
    >>> fingerprinting_sample_bound(10_000, 0.1, 1e-6, 0.01)
    (1, 3379)
    >>> fingerprinting_sample_bound(100, 5.0, 1e-6, 0.01)  # large ε: nothing is excluded
    (0, 0)
    """
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    a = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)
    c = _fingerprinting_constant(d, eps)
    # a positive slack 2/3 - 4 δ n0 - n0 / C needs n0 < 2C/3 and n0 < 1/(6 δ)
    top = math.floor(min(2.0 * c / 3.0, FINGERPRINT_MAX_N0))
    if dlt > 0:
        top = min(top, math.floor(min(1.0 / (6.0 * dlt), FINGERPRINT_MAX_N0)))
    if top < 1:
        return (0, 0)
    n0 = np.arange(1, top + 1, dtype=np.float64)
    slack = 2.0 / 3.0 - 4.0 * dlt * n0 - n0 / c
    with np.errstate(over="ignore"):
        upper = np.minimum(n0 * slack / (4.0 * a), float(FINGERPRINT_MAX_N))  # n excluded for n0 <= n < upper
    # largest integer strictly below upper
    last = np.ceil(upper) - 1
    ok = (slack > 0) & (last >= n0)
    if not ok.any():
        return (0, 0)
    starts, ends = n0[ok].astype(np.int64), last[ok].astype(np.int64)
    low, high = int(starts[0]), int(ends[0])
    for s, e in zip(starts[1:], ends[1:]):          # union of the intervals [n0, last], in order of n0
        if s > high + 1:
            break
        high = max(high, int(e))
    return (low, high)


def gaussian_means_sample_size(d, epsilon, delta, alpha) -> float:
    """People needed for the Gaussian mechanism to release d means with mean absolute error α per mean.

    The mean vector of n people's 0/1 attributes has l2 sensitivity sqrt(d)/n under replace-one, so the
    analytic calibration (theorem ``thm-gaussian-analytic``) adds N(0, σ²) with σ = σ1 sqrt(d)/n, σ1 =
    :func:`dpcourse.analytic_gaussian_sigma` (ε, δ, 1). Its expected absolute error per mean is σ sqrt(2/π),
    which equals α at n = sqrt(2/π) σ1 sqrt(d) / α (returned as a float). σ1 is about sqrt(2 ln(1.25/δ))/ε,
    so this is sqrt(d log(1/δ)) / (α ε) up to a constant: the upper bound that meets
    :func:`fingerprinting_sample_bound` up to the factor sqrt(log(1/δ)) and the proof's constant (about 23).
    ``alpha`` lies in (0, 1], as for :func:`fingerprinting_sample_bound` (the means lie in [0, 1]).

    Examples
    --------
    >>> round(gaussian_means_sample_size(10_000, 1.0, 1e-5, 0.01))
    29766
    """
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    a = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)   # an error per mean of 0/1 values: (0, 1]
    sigma1 = analytic_gaussian_sigma(eps, dlt, 1.0)
    return math.sqrt(2.0 / math.pi) * sigma1 * math.sqrt(d) / a


_RELEASES = ("exact", "rounded", "gaussian")


def tracing_trial(n, d, *, release="exact", epsilon=None, delta=None, step=None, n_outsiders=1000, rng=None):
    """Release the d means of a fingerprinting code and score members and outsiders with the tracing attack.

    Draws :func:`fingerprinting_code` (n members) and ``n_outsiders`` fresh people with the same biases,
    releases the members' means and scores everyone with :func:`dpcourse.tracing_scores`, the attacker
    knowing the biases (the population frequencies; the score of the proof of theorem
    ``lb-thm-fingerprinting``). Releases:

    * ``"exact"``: the means themselves;
    * ``"rounded"``: each mean rounded to the nearest multiple of ``step`` (deterministic, not private);
    * ``"gaussian"``: :func:`dpcourse.gaussian_mechanism` (secure) with l2 sensitivity sqrt(d)/n, (ε, δ)-DP
      under replace-one.

    Returns
    -------
    dict with ``members`` (n scores), ``outsiders`` (n_outsiders scores), ``mean_abs_error`` and
    ``max_abs_error`` of the released means.

    Examples
    --------
    >>> out = tracing_trial(50, 2000, rng=0)
    >>> bool(out["members"].mean() > out["outsiders"].mean()), out["mean_abs_error"]
    (True, 0.0)
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    t = check_positive_int(n_outsiders, "n_outsiders")
    kind = check_choice(release, "release", _RELEASES)
    if kind == "gaussian":
        if epsilon is None or delta is None:
            raise ValueError("release='gaussian' needs epsilon and delta")
        eps, dlt = check_epsilon(epsilon), check_delta(delta)
        if dlt == 0:
            raise ValueError("delta must be in (0, 1) for the Gaussian release, got 0")
    if kind == "rounded":
        if step is None:
            raise ValueError("release='rounded' needs step")
        st = check_real(step, "step", low=0.0, high=1.0, low_open=True)
    if (n + t) * d > FINGERPRINT_MAX_CELLS:
        raise ValueError(f"(n + n_outsiders) * d must be at most FINGERPRINT_MAX_CELLS = {FINGERPRINT_MAX_CELLS}, "
                         f"got n = {n}, n_outsiders = {t}, d = {d}")
    gen = as_rng(rng)
    biases, data = fingerprinting_code(n, d, rng=gen)
    outsiders = (gen.random((t, d)) < biases).astype(np.int8)
    means = data.mean(axis=0)
    if kind == "exact":
        released = means
    elif kind == "rounded":
        released = np.round(means / st) * st
    else:
        released = np.asarray(gaussian_mechanism(means, math.sqrt(d) / n, eps, dlt, rng=gen), dtype=np.float64)
    err = np.abs(released - means)
    return {"members": tracing_scores(data, released, biases), "outsiders": tracing_scores(outsiders, released, biases),
            "mean_abs_error": float(err.mean()), "max_abs_error": float(err.max())}
