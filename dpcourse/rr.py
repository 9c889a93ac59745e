"""Randomized response: each person randomizes their own bit before anyone sees it.

The mechanism, its exact privacy and the unbiased estimator of the mean are proved in the chapter
"Randomized response: privacy without a trusted curator" (theorems ``thm-rr-privacy``,
``thm-rr-estimator`` and ``thm-rr-k-queries``); the exact distribution of the reported count is used in
the chapter "What differential privacy promises" (theorem ``thm-rr-count-epsilon``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from .exact_uniform import bernoulli, logistic_bounds
from ._validation import (
    as_rng,
    check_binary_array,
    check_epsilon,
    check_flag,
    check_positive_int,
    check_probability,
    check_real,
)

__all__ = [
    "rr_count_distribution",
    "rr_epsilon",
    "rr_truth_probability",
    "randomized_response",
    "rr_estimate_mean",
    "rr_standard_error",
    "rr_sample_size",
]


def rr_count_distribution(bits: ArrayLike, truth_prob: float) -> np.ndarray:
    """Exact distribution of the number of 1s reported when each bit goes through randomized response.

    Each person reports their bit with probability ``truth_prob`` and its flip otherwise, independently;
    the mechanism releases only the sum of the reports. Under the replace-one relation (the number of
    people is public) the release is ``ln(truth_prob / (1 - truth_prob))``-DP for ``truth_prob >= 1/2``
    (theorem ``thm-rr-count-epsilon`` of the chapter "What differential privacy promises"); under
    add/remove it is not epsilon-DP for any finite epsilon, because the support reveals the number of people.

    Parameters
    ----------
    bits : array_like of 0/1, shape (n,)
        The private bits (n >= 0).
    truth_prob : float
        Probability in [0, 1] that a person reports their true bit.

    Returns
    -------
    numpy.ndarray of shape (n + 1,)
        ``out[c]`` is the probability that exactly ``c`` reports equal 1.

    Examples
    --------
    >>> rr_count_distribution([1, 0], 0.75).round(4).tolist()
    [0.1875, 0.625, 0.1875]
    """
    x = check_binary_array(bits, "bits", allow_empty=True, ndim=1)
    t = check_probability(truth_prob, "truth_prob")
    dist = np.array([1.0])
    for b in x:  # n convolutions of length-2 kernels: exact and cheap for the small n this is for
        p_one = t if b == 1 else 1.0 - t
        dist = np.convolve(dist, [1.0 - p_one, p_one])
    return dist


def rr_epsilon(gamma: float) -> float:
    """Exact epsilon of randomized response that tells the truth with probability ``1/2 + gamma``.

    Returns ``ln((1/2 + gamma) / (1/2 - gamma))``, computed as ``log1p(2 gamma) - log1p(-2 gamma)`` so
    that it stays accurate for tiny ``gamma`` (where it is about ``4 gamma``; lemma ``lem-rr-gamma``).
    This is the smallest epsilon for which the report of one person is epsilon-LDP, and for which the
    vector of all reports is epsilon-DP under replace-one (theorem ``thm-rr-privacy``).

    Parameters
    ----------
    gamma : float
        The truth bias, in (0, 1/2).

    Examples
    --------
    >>> round(rr_epsilon(0.25), 12) == round(math.log(3), 12)
    True
    """
    g = check_real(gamma, "gamma", low=0.0, high=0.5, low_open=True, high_open=True)
    return math.log1p(2.0 * g) - math.log1p(-2.0 * g)


def rr_truth_probability(epsilon: float) -> float:
    """Truth probability ``e^eps / (1 + e^eps)`` of epsilon-DP randomized response.

    It is the inverse of :func:`rr_epsilon` (plus 1/2): ``1/2 + gamma`` with ``gamma = tanh(eps/2)/2``
    (lemma ``lem-rr-gamma``). Computed as ``1 / (1 + e^-eps)``, which never overflows.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, > 0.

    Examples
    --------
    >>> rr_truth_probability(math.log(3))
    0.75
    """
    eps = check_epsilon(epsilon)
    return 1.0 / (1.0 + math.exp(-eps))


def randomized_response(bits: ArrayLike, epsilon: float, *, rng: np.random.Generator | int | None = None,
                        secure: bool = True) -> np.ndarray:
    """Randomize every bit independently: keep it with probability ``e^eps/(1+e^eps)``, flip it otherwise.

    Releases one report per entry of ``bits``. Each entry's report is epsilon-LDP (local differential
    privacy: its distribution changes by a factor at most ``e^eps`` whichever bit went in), and the array
    of reports of n people with one bit each is epsilon-DP under replace-one, exactly and no better
    (theorem ``thm-rr-privacy``). A person who contributes m entries (for instance one row of an
    (n, m) array of answers to m questions) gets ``m * epsilon`` (lemma ``lem-rr-composition``).

    Boolean arrays are refused (``TypeError``), as booleans are everywhere in :mod:`dpcourse` where numbers
    are meant: a bool array is usually a mask built for indexing, and silently reading it as data hides
    which value was meant as the "1". Write ``bits.astype(int)`` to say that ``True`` is the bit 1.

    Parameters
    ----------
    bits : array_like of 0/1, any shape
        The private bits, as ints or floats equal to 0 or 1 (anything else raises ``ValueError``).
    epsilon : float
        Privacy parameter of each report, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness: None for fresh OS entropy, an int seed, or a Generator.
    secure : bool, optional
        True (default): each coin is exact, ``U < e^eps / (1 + e^eps)`` decided for a real uniform U whose
        first 53 bits are the float coin's ``rng.random()`` (theorem ``rr-thm-exact-coin``;
        :mod:`dpcourse.exact_uniform`), so the truth probability is exactly the theorem's and a flip
        stays possible at every epsilon. False: the float coin ``rng.random() >= fl(t)``, whose truth
        probability is the float ``t`` rounded to 53 bits (1.0, so no flip at all, once eps > 37).

    Returns
    -------
    numpy.ndarray of int64, same shape as ``bits``
        The reports, each 0 or 1.

    Examples
    --------
    >>> randomized_response([1, 0, 1, 1], epsilon=1.0, rng=0).tolist()  # doctest: +SKIP
    [1, 0, 0, 1]
    >>> randomized_response(np.ones((2, 3)), 2.0, rng=1).shape
    (2, 3)
    """
    x = check_binary_array(bits, "bits", allow_empty=True)
    t = rr_truth_probability(epsilon)
    gen = as_rng(rng)
    if not check_flag(secure, "secure"):
        flip = gen.random(x.shape) >= t  # float coin: probability 1 - fl(t) of a flip
        return np.bitwise_xor(x, flip.astype(np.int64))
    eps = Fraction(check_epsilon(epsilon))
    keep = bernoulli(gen, x.shape, lambda prec: logistic_bounds(eps, prec))  # exactly U < e^eps / (1 + e^eps)
    return np.bitwise_xor(x, (~keep).astype(np.int64))


def _keep_minus_flip(epsilon: float) -> float:
    """``2 gamma = t - (1 - t) = tanh(eps/2)``, the slope of the reports' mean in the true mean."""
    return math.tanh(epsilon / 2.0)


def rr_estimate_mean(responses: ArrayLike, epsilon: float) -> float | np.ndarray:
    """Unbiased estimate of the mean of the true bits from their randomized-response reports.

    With truth probability ``t = e^eps/(1+e^eps)`` a report is 1 with probability ``1 - t + (2t - 1) x``
    for the true bit ``x``, so ``(mean(responses) - (1 - t)) / (2t - 1)`` has expectation the true mean,
    exactly, and standard deviation :func:`rr_standard_error` (theorem ``thm-rr-estimator``). The
    estimate may fall outside [0, 1]: clipping it would bias it. It is a post-processing of the reports,
    so it is epsilon-DP whenever the reports are.

    Parameters
    ----------
    responses : array_like of 0/1, shape (n,) or (n, k)
        The reports, people along the first axis (n >= 1); a 2-d array holds the reports of k questions.
    epsilon : float
        The epsilon each report was randomized with, >= 1e-300 (below, the debiasing factor
        ``1 / tanh(epsilon / 2)`` overflows and the estimate would be +-inf).

    Returns
    -------
    float, or numpy.ndarray of shape ``responses.shape[1:]``
        The estimated mean (of each question).

    Examples
    --------
    >>> round(rr_estimate_mean([1, 1, 0, 1], math.log(3)), 12)
    1.0
    >>> rr_estimate_mean([[1, 0], [0, 1], [0, 0], [1, 0]], math.log(3)).round(12).tolist()
    [0.5, 0.0]
    """
    y = check_binary_array(responses, "responses")
    if y.ndim == 0:
        raise ValueError("responses must be an array of reports (people along the first axis), got a scalar")
    eps = check_real(epsilon, "epsilon", low=1e-300)  # below, the factor 1 / tanh(epsilon / 2) overflows
    flip_prob = math.exp(-eps) / (1.0 + math.exp(-eps))  # 1/(1+e^eps) without overflow at large eps
    est = (y.mean(axis=0) - flip_prob) / _keep_minus_flip(eps)
    return float(est) if np.ndim(est) == 0 else est


def rr_standard_error(n: int, epsilon: float) -> float:
    """Exact standard deviation of :func:`rr_estimate_mean` on n reports: ``1 / (2 sqrt(n) sinh(eps/2))``.

    It does not depend on the true bits (theorem ``thm-rr-estimator``), and it is at most
    ``1 / (eps sqrt(n))``, with equality in the limit eps -> 0.

    Parameters
    ----------
    n : int
        Number of reports, >= 1.
    epsilon : float
        The epsilon of each report, > 0.

    Examples
    --------
    >>> round(rr_standard_error(100, 2 * math.log(3)), 12)
    0.0375
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    # 1 / (2 sinh(eps/2)) = e^{-eps/2} / (1 - e^{-eps}): no overflow, and exactly 0 once e^{-eps/2} underflows.
    return math.exp(-eps / 2.0) / (math.sqrt(n) * -math.expm1(-eps))


def rr_sample_size(alpha: float, beta: float, epsilon: float, *, k: int = 1) -> int:
    """Smallest n for which Hoeffding's bound guarantees error <= alpha on k questions at total epsilon.

    Each person answers k yes/no questions by randomized response at ``epsilon / k`` each (so each person's
    reports are epsilon-LDP, lemma ``lem-rr-composition``). Theorem ``thm-rr-k-queries`` shows that with
    ``n >= ln(2k/beta) / (2 tanh(eps/(2k))^2 alpha^2)`` reports, all k estimates of
    :func:`rr_estimate_mean` are within ``alpha`` of the true means with probability at least
    ``1 - beta``; this returns the smallest such integer n. It is a sufficient size from a union and a
    Hoeffding bound, not the exact smallest size that works.

    Parameters
    ----------
    alpha : float
        Accuracy, in (0, 1].
    beta : float
        Failure probability, in (0, 1).
    epsilon : float
        Total privacy parameter of each person, > 0.
    k : int, optional
        Number of questions, >= 1.

    Examples
    --------
    >>> rr_sample_size(0.05, 0.05, 1.0)
    3455
    """
    a = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)
    b = check_probability(beta, "beta", low_open=True, high_open=True)
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    log_term = math.log(2.0 * k) - math.log(b)  # ln(2k/beta) without overflow for tiny beta
    x = eps / (2.0 * k)
    slope = math.tanh(x)
    denom = 2.0 * slope**2 * a**2
    if denom > 1e-250 and math.isfinite(log_term / denom):
        return math.ceil(log_term / denom)
    # Astronomically large n (tiny alpha or epsilon): exact rational arithmetic on the same numbers, so
    # the answer is still the exact ceiling instead of an overflow or a division by zero. For tiny x the
    # slope tanh(x) is replaced by its lower bound x - x^3/3 (a smaller slope only increases n).
    fx = Fraction(eps) / (2 * k)
    s = fx - fx**3 / 3 if x < 1e-5 else Fraction(slope)
    return math.ceil(Fraction(log_term) / (2 * s**2 * Fraction(a) ** 2))
