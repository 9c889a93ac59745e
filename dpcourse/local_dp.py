"""Local frequency oracles (k-RR, unary encoding, local hashing) and amplification by shuffling.

Every user holds one value ``v`` in the public domain ``{0, ..., d-1}`` and sends one randomized report;
the aggregator estimates how many users hold each value. The oracles, their unbiased estimators, the exact
variances and the privacy proofs are in the chapter "Local frequency estimation" (theorems
``thm-ldp-krr``, ``thm-ldp-ue``, ``thm-ldp-olh``, ``thm-ldp-variance`` and ``thm-ldp-shuffle``).

How the coins are flipped (the secure-sampling principle of the chapter "Noise on a computer")
-------------------------------------------------------------------------------------------------
Every biased coin compares a uniform 64-bit integer, drawn with ``Generator.integers(0, 2**64,
dtype=np.uint64)``, with an integer threshold ``T``: it comes up heads with probability exactly
``T / 2**64``. That draw is uniform on [0, 2**64) for every numpy bit generator (PCG64, PCG64DXSM,
MT19937, Philox, SFC64); the bit generator's ``random_raw`` is not (MT19937's raw words have 32 bits,
so a 64-bit threshold would make every coin come up heads). Every uniform choice among ``m`` values is
``Generator.integers`` too (an exact, unbiased integer draw). So the output distribution of each
randomizer is given by exact dyadic rationals, which :func:`oracle_probabilities` returns as
:class:`fractions.Fraction`.

Each threshold is computed for the *less likely* side ``s <= 1/2`` of its coin, from the float
probability of that side (a few ulps of relative error, ``< 2**-51``), with a relative margin of
``2**-50`` in the safe direction: rounded *up* when heads make the report less informative (a flip of
randomized response), *down* when heads make it more informative (k-RR keeping the true value when that
is the less likely side, ``e^eps < d - 1``). So the epsilon actually achieved
(``oracle_probabilities(...)["epsilon"]``, computed from the exact rationals) is never larger than the
epsilon asked for (up to the ``1e-15`` float error of evaluating its logarithm). It is below it by at
most about ``2**-48 + 2**-63 + 2**-64 / s`` (the margin on both sides of the coin plus the rounding to a
multiple of ``2**-64``), and ``s >= min(1/d, (d-1) e^-eps / 2)`` (symmetric unary encoding has two
coins with ``s >= e^(-eps/2) / 2``, and twice that bound): below ``1e-12`` for eps <= 15 and every
d <= 2**24, checked in the tests. For the same reason every epsilon >= ``MIN_EPSILON`` = 1e-9 is
supported for every domain size: the gap ``p - q`` (about ``eps / d``) stays far above the rounding
(about ``2**-49 / d + 2**-64``). For very large epsilon (``e^-eps`` below ``2**-64``) a coin cannot be
more biased than ``2**-64`` and the achieved epsilon is capped (at about 44 for unary encoding, plus
ln(d-1) for k-RR): a stronger guarantee than asked, never a weaker one.

Neighbouring relation: a local randomizer is epsilon-LDP when the distribution of one user's report
changes by a factor at most ``e^eps`` whichever value the user holds; the array of all reports is then
epsilon-DP under replace-one (one user changes their value).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    as_rng,
    check_choice,
    check_delta,
    check_epsilon,
    check_flag,
    check_positive_int,
    check_real,
    check_real_array,
)

__all__ = [
    "krr",
    "krr_estimate",
    "krr_variance",
    "unary_encoding",
    "unary_encoding_estimate",
    "unary_encoding_variance",
    "local_hashing",
    "local_hashing_estimate",
    "local_hashing_variance",
    "oracle_probabilities",
    "shuffle_amplification_epsilon",
    "HASH_PRIME",
    "MIN_EPSILON",
    "MAX_SHUFFLE_USERS",
]

HASH_PRIME = 2**31 - 1  # the Mersenne prime p of OLH's hash family ((a v + b) mod p) mod g
_TWO64 = 2**64
_MARGIN = Fraction(1) + Fraction(1, 2**50)
_MAX_DOMAIN = 2**24  # largest domain: an estimate is d floats (128 MB) and a unary report d bits (OLH needs d < p)
_ORACLES = ("krr", "sue", "oue", "olh")
MIN_EPSILON = 1e-9  # smallest epsilon the oracles accept (see _check_ldp_epsilon)
MAX_SHUFFLE_USERS = 10**7  # largest n of shuffle_amplification_epsilon(method="numerical")


# ---------------------------------------------------------------------------------------------------
# Exact coins
# ---------------------------------------------------------------------------------------------------

def _threshold_up(prob: float) -> int:
    """Smallest integer T >= prob * (1 + 2**-50) * 2**64, kept in [1, 2**64 - 1]: P[raw < T] = T / 2**64."""
    t = math.ceil(Fraction(prob) * _MARGIN * _TWO64)
    return int(min(max(t, 1), _TWO64 - 1))


def _threshold_down(prob: float) -> int:
    """Largest integer T <= prob * (1 - 2**-50) * 2**64, kept in [1, 2**64 - 1]."""
    t = math.floor(Fraction(prob) * (2 - _MARGIN) * _TWO64)
    return int(min(max(t, 1), _TWO64 - 1))


def _coin(gen: np.random.Generator, threshold: int, shape: int | tuple[int, ...]) -> np.ndarray:
    """Boolean array, each entry True with probability exactly ``threshold / 2**64``, independently.

    ``Generator.integers(0, 2**64, dtype=uint64)`` is uniform on [0, 2**64) whatever the bit generator
    (numpy composes two 32-bit words for MT19937); ``bit_generator.random_raw`` would not be.
    """
    raw = gen.integers(0, _TWO64, size=shape, dtype=np.uint64)
    return raw < np.uint64(threshold)


def _log_ratio(num: Fraction, den: Fraction) -> float:
    """ln(num/den) for positive Fractions, accurate even when both are tiny (big-integer logs)."""
    r = num / den
    if r < 2:  # near 1: log1p of the correctly rounded r - 1 keeps full relative precision
        return math.log1p(float(r - 1))
    return math.log(float(r))  # r < 2**130 here, and float(r) is correctly rounded


def _rr_flip_prob(epsilon: float, k: int) -> float:
    """(k-1) / (e^eps + k - 1), the probability that k-ary RR reports another value (no overflow)."""
    x = (k - 1) * math.exp(-epsilon)
    return x / (1.0 + x)


def _olh_g(epsilon: float) -> int:
    """OLH's hash range g = round(e^eps) + 1 (Wang et al. 2017), at most the hash prime p."""
    if epsilon >= math.log(HASH_PRIME):
        return HASH_PRIME
    return min(int(round(math.exp(epsilon))) + 1, HASH_PRIME)


def _collision_probability(g: int) -> Fraction:
    """P[h(u) = h(v)] for u != v and h = ((a x + b) mod p) mod g, a uniform in [1, p-1], b in [0, p-1].

    (a u + b, a v + b) mod p is uniform over the p (p-1) ordered pairs of distinct residues, so the
    probability is sum_j m_j (m_j - 1) / (p (p-1)), m_j = #{r in [0, p): r mod g = j}.
    """
    p = HASH_PRIME
    q, rem = divmod(p, g)
    pairs = rem * (q + 1) * q + (g - rem) * q * (q - 1)
    return Fraction(pairs, p * (p - 1))


def _krr_flip_threshold(k: int, epsilon: float) -> int:
    """T with P[flip] = T / 2**64 >= the ideal (k-1)/(e^eps + k - 1), rounded on the coin's smaller side.

    When the flip is the less likely side (e^eps >= k - 1) its probability is rounded up; otherwise the
    probability of keeping the value, 1/(1 + (k-1) e^-eps) < 1/2, is rounded down. Either way the
    relative margin 2**-50 applies to a probability <= 1/2, so it costs at most about 2**-48 in epsilon
    and never swamps the gap p - q, whatever k (module docstring).
    """
    x = (k - 1) * math.exp(-epsilon)
    if x <= 1.0:
        return _threshold_up(x / (1.0 + x))
    return _TWO64 - _threshold_down(1.0 / (1.0 + x))


def _krr_probs(k: int, epsilon: float) -> tuple[int, Fraction, Fraction]:
    t = _krr_flip_threshold(k, epsilon)
    flip = Fraction(t, _TWO64)
    p, q = 1 - flip, flip / (k - 1)
    if not p > q:  # cannot happen for eps >= MIN_EPSILON and k <= 2**31 (module docstring); fail closed
        raise ValueError(f"epsilon={epsilon!r} is too small for the 64-bit coins with {k} values")
    return t, p, q


def _check_ldp_epsilon(epsilon: float) -> float:
    """epsilon > 0 as everywhere, and >= MIN_EPSILON = 1e-9, for every domain size d <= 2**24.

    The rounding of the coins costs at most ``2**-48 + 2**-63 + 2**-64 max(d, 2 e^eps)`` in epsilon
    (module docstring), under 1e-12 for every d <= 2**24 when eps <= 15: at MIN_EPSILON it is below 0.1% of epsilon, and
    far below the gap p - q (about eps / d) that carries the information. Smaller epsilons are refused
    rather than served by coins whose rounding would be a visible part of the guarantee."""
    eps = check_epsilon(epsilon)
    if eps < MIN_EPSILON:
        raise ValueError(f"epsilon must be >= {MIN_EPSILON} for the local oracles' 64-bit coins, got {epsilon!r}")
    return eps


def oracle_probabilities(oracle: str, domain_size: int, epsilon: float) -> dict[str, Any]:
    """The exact output probabilities of a frequency oracle as implemented, and the epsilon they achieve.

    All coins of :mod:`dpcourse.local_dp` are exact dyadic rationals (see the module docstring), so the
    distribution of a report is known exactly. This returns, as :class:`fractions.Fraction`:

    * ``"krr"``: ``p`` = P[report = v | value v], ``q`` = P[report = u | value v] for each u != v;
    * ``"sue"``, ``"oue"``: ``p`` = P[bit v = 1 | value v], ``q`` = P[bit u = 1 | value v] for u != v;
    * ``"olh"``: ``p`` and ``q`` of the g-ary randomized response on the hashed value, ``g``, the hash
      collision probability ``collision`` and ``q_support`` = P[h(u) = report | value v] for u != v
      (the probability that a user supports a value they do not hold; ``1/g`` for an ideal hash).

    and ``"epsilon"``, the float ``ln`` of the largest ratio of the probabilities of one report under two
    values (theorems ``thm-ldp-krr``, ``thm-ldp-ue``, ``thm-ldp-olh``): ``ln(p/q)`` for k-RR and OLH,
    ``ln(p(1-q)/((1-p)q))`` for unary encoding. It is at most ``epsilon`` (up to the 1e-14 float error
    of the logarithm) and below it by at most ``2**-48 + 2**-63 + 2**-64 / s``, ``s`` the probability of
    the less likely side of the coin (module docstring; < 1e-12 for eps <= 15 and every d <= 2**24).
    Replace-one neighbours; each report is
    epsilon-LDP.

    Parameters
    ----------
    oracle : {"krr", "sue", "oue", "olh"}
        k-ary randomized response, symmetric or optimized unary encoding, optimized local hashing.
    domain_size : int
        Number of possible values d, in [2, 2**24].
    epsilon : float
        The epsilon asked for, >= MIN_EPSILON = 1e-9 (as for every oracle here).

    Examples
    --------
    >>> pr = oracle_probabilities("oue", 8, 1.0)
    >>> pr["p"], abs(pr["epsilon"] - 1.0) < 1e-12
    (Fraction(1, 2), True)
    """
    name = check_choice(oracle, "oracle", _ORACLES)
    d = _check_domain(domain_size)
    eps = _check_ldp_epsilon(epsilon)
    if name == "krr":
        _, p, q = _krr_probs(d, eps)
        return {"p": p, "q": q, "epsilon": _log_ratio(p, q)}
    if name in ("sue", "oue"):
        p, q = _ue_probs(eps, name == "oue")
        return {"p": p, "q": q, "epsilon": _log_ratio(p * (1 - q), (1 - p) * q)}
    g = _olh_g(eps)
    _, p, q = _krr_probs(g, eps)
    c = _collision_probability(g)
    return {"p": p, "q": q, "g": g, "collision": c, "q_support": c * p + (1 - c) * q,
            "epsilon": _log_ratio(p, q)}


# ---------------------------------------------------------------------------------------------------
# Validation shared by the oracles (built from dpcourse._validation)
# ---------------------------------------------------------------------------------------------------

def _check_domain(domain_size: int) -> int:
    d = check_positive_int(domain_size, "domain_size", minimum=2)
    if d > _MAX_DOMAIN:
        raise ValueError(f"domain_size must be an integer in [2, {_MAX_DOMAIN}], got {d}")
    return d


def _check_values(values: ArrayLike, d: int, name: str = "values") -> np.ndarray:
    """A non-empty 1-d array of whole numbers in [0, d), returned as int64 (floats like 3.0 accepted)."""
    refused = None
    try:
        arr = check_real_array(values, name, ndim=1)
    except (TypeError, ValueError) as exc:  # its message may quote an entry (a NaN and its index, a string)
        refused = type(exc)
    else:
        if not ((arr == np.floor(arr)) & (arr >= 0) & (arr < d)).all():
            refused = ValueError
    if refused is not None:  # raised outside the except clause: no message quoting the data is chained to it
        raise refused(_private_value_message(name, d))
    return arr.astype(np.int64)


def _private_value_message(name: str, d: int) -> str:
    """The refusal of invalid private values: which rule was broken and what to do, nothing from the data."""
    return (f"{name} must be a non-empty 1-d numeric array (not strings or booleans) of whole numbers in "
            f"[0, {d - 1}] (the domain of "
            f"domain_size={d}); at least one entry is not. This message quotes no entry, because the values are "
            f"private: map every value into the domain (e.g. an 'other' category) before calling")


def _check_count(count: float, n: int) -> float:
    return check_real(count, "count", low=0.0, high=float(n))


# ---------------------------------------------------------------------------------------------------
# k-ary randomized response
# ---------------------------------------------------------------------------------------------------

def krr(values: ArrayLike, domain_size: int, epsilon: float, *,
        rng: np.random.Generator | int | None = None) -> np.ndarray:
    """k-ary randomized response: each user reports their value, or a uniformly chosen other value.

    A user with value ``v`` reports ``v`` with probability ``p = e^eps/(e^eps + d - 1)`` and each other
    value with probability ``q = 1/(e^eps + d - 1)``. Each report is epsilon-LDP and the array of reports is
    epsilon-DP under replace-one, exactly (theorem ``thm-ldp-krr``; for d = 2 it is the randomized response
    of the chapter "Randomized response"). The coin is exact (module docstring): the epsilon achieved is
    ``oracle_probabilities("krr", d, eps)["epsilon"]`` <= eps. Reference: Kairouz, Bonawitz & Ramage (2016);
    Wang, Blocki, Li & Jha (2017).

    Parameters
    ----------
    values : array_like of int, shape (n,)
        The users' values, whole numbers in [0, d-1] (n >= 1).
    domain_size : int
        d, in [2, 2**24].
    epsilon : float
        Privacy parameter of each report, >= MIN_EPSILON = 1e-9 (for every domain size).
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        The reports, in [0, d-1].

    Examples
    --------
    >>> krr([0, 1, 2, 3], 4, 2.0, rng=0).shape
    (4,)
    """
    d = _check_domain(domain_size)
    v = _check_values(values, d)
    eps = _check_ldp_epsilon(epsilon)
    gen = as_rng(rng)
    t, _, _ = _krr_probs(d, eps)
    return _krr_draw(gen, v, d, t)


def _krr_draw(gen: np.random.Generator, v: np.ndarray, k: int, threshold: int) -> np.ndarray:
    flip = _coin(gen, threshold, v.shape)
    other = gen.integers(0, k - 1, size=v.shape, dtype=np.int64)  # uniform on the k-1 values != v
    other += other >= v
    return np.where(flip, other, v)


def krr_estimate(reports: ArrayLike, domain_size: int, epsilon: float) -> np.ndarray:
    """Unbiased estimate of how many users hold each value, from k-RR reports.

    ``(N_v - n q) / (p - q)`` with ``N_v`` the number of reports equal to ``v`` and ``p, q`` the exact
    probabilities of :func:`oracle_probabilities` (theorem ``thm-ldp-variance``): its expectation is the
    true count exactly, its variance :func:`krr_variance`. Estimates can be negative: clipping would bias
    them. A post-processing of the reports.

    Parameters
    ----------
    reports : array_like of int, shape (n,)
        Reports of :func:`krr` (n >= 1).
    domain_size : int
        d, as used by :func:`krr`.
    epsilon : float
        The epsilon the reports were made with, >= MIN_EPSILON.

    Returns
    -------
    numpy.ndarray of float, shape (d,)

    Examples
    --------
    >>> (krr_estimate(krr([0] * 1000, 3, 4.0, rng=1), 3, 4.0).round(-2) + 0.0).tolist()
    [1000.0, 0.0, 0.0]
    """
    d = _check_domain(domain_size)
    y = _check_values(reports, d, "reports")
    eps = _check_ldp_epsilon(epsilon)
    _, p, q = _krr_probs(d, eps)
    counts = np.bincount(y, minlength=d).astype(np.float64)
    return (counts - y.size * float(q)) / float(p - q)


def _variance(n: int, count: float, p: Fraction, q: Fraction) -> float:
    """(count p(1-p) + (n - count) q(1-q)) / (p-q)^2: variance of (N - n q)/(p - q)."""
    pf, qf, gap = float(p), float(q), float(p - q)
    return (count * pf * (1 - pf) + (n - count) * qf * (1 - qf)) / gap**2


def krr_variance(n: int, domain_size: int, epsilon: float, *, count: float = 0) -> float:
    """Exact variance of :func:`krr_estimate` for one value held by ``count`` of the ``n`` users.

    ``(c p(1-p) + (n-c) q(1-q)) / (p-q)^2`` (theorem ``thm-ldp-variance``); with the ideal p, q and c = 0
    it is ``n (e^eps + d - 2) / (e^eps - 1)^2``, the number that grows linearly in d.

    Parameters
    ----------
    n : int
        Number of users, >= 1.
    domain_size : int
        d, in [2, 2**24].
    epsilon : float
        >= MIN_EPSILON = 1e-9.
    count : float, optional
        The true number c of users holding the value, in [0, n].

    Examples
    --------
    >>> round(krr_variance(1000, 2, 1.0) / (1000 * math.e / (math.e - 1) ** 2), 9)
    1.0
    """
    n = check_positive_int(n, "n")
    d = _check_domain(domain_size)
    eps = _check_ldp_epsilon(epsilon)
    c = _check_count(count, n)
    _, p, q = _krr_probs(d, eps)
    return _variance(n, c, p, q)


# ---------------------------------------------------------------------------------------------------
# Unary encoding (SUE = basic RAPPOR, OUE)
# ---------------------------------------------------------------------------------------------------

def _ue_probs(epsilon: float, optimized: bool) -> tuple[Fraction, Fraction]:
    """(p, q) of unary encoding as exact Fractions; the thresholds are reproduced by _ue_thresholds."""
    t_one, t_zero = _ue_thresholds(epsilon, optimized)
    p, q = Fraction(t_one, _TWO64), Fraction(t_zero, _TWO64)
    if not p > q:  # cannot happen for eps >= MIN_EPSILON; fail closed if it ever did
        raise ValueError(f"epsilon={epsilon!r} is too small for the 64-bit coins")
    return p, q


def _ue_thresholds(epsilon: float, optimized: bool) -> tuple[int, int]:
    """Thresholds (T1, T0): the v-th bit is 1 with probability T1/2**64, every other bit with T0/2**64."""
    if optimized:  # OUE: p = 1/2, q = 1/(e^eps + 1)
        t_zero = _threshold_up(_rr_flip_prob(epsilon, 2))
        return _TWO64 // 2, t_zero
    # SUE: each bit is kept with probability e^(eps/2)/(e^(eps/2)+1), flipped otherwise
    t_flip = _threshold_up(_rr_flip_prob(epsilon / 2.0, 2))
    return _TWO64 - t_flip, t_flip


def unary_encoding(values: ArrayLike, domain_size: int, epsilon: float, *, optimized: bool = True,
                   rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Unary encoding: each user sends a d-bit vector, the one-hot code of their value with every bit noised.

    Bit ``v`` (the user's value) is 1 with probability ``p`` and every other bit with probability ``q``,
    independently. Optimized unary encoding (OUE, ``optimized=True``): ``p = 1/2``, ``q = 1/(e^eps + 1)``;
    symmetric unary encoding (SUE, basic one-time RAPPOR): ``p = e^(eps/2)/(e^(eps/2) + 1) = 1 - q``.
    Either way ``p(1-q) / ((1-p) q) = e^eps``: each report is epsilon-LDP and all reports are epsilon-DP
    under replace-one (theorem ``thm-ldp-ue``; Wang, Blocki, Li & Jha 2017; Erlingsson, Pihur & Korolova
    2014). The coins are exact (module docstring).

    Parameters
    ----------
    values : array_like of int, shape (n,)
        The users' values in [0, d-1] (n >= 1).
    domain_size : int
        d, in [2, 2**24] (memory: n * ceil(d/8) bytes).
    epsilon : float
        Privacy parameter of each report, >= MIN_EPSILON = 1e-9 (for every domain size).
    optimized : bool, optional
        OUE (True, default) or SUE (False).
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    numpy.ndarray of uint8, shape (n, ceil(d/8))
        The bit vectors packed with ``numpy.packbits(..., axis=1)`` (big-endian bit order); the padding
        bits past d are 0. ``numpy.unpackbits(r, axis=1, count=d)`` recovers the (n, d) bits.

    Examples
    --------
    >>> unary_encoding([0, 5, 9], 10, 1.0, rng=0).shape
    (3, 2)
    """
    d = _check_domain(domain_size)
    v = _check_values(values, d)
    eps = _check_ldp_epsilon(epsilon)
    opt = check_flag(optimized, "optimized")
    gen = as_rng(rng)
    t_one, t_zero = _ue_thresholds(eps, opt)
    n = v.size
    out = np.empty((n, (d + 7) // 8), dtype=np.uint8)
    block = max(1, (1 << 21) // d)  # about 2 million coins (16 MB of raw draws) at a time
    for start in range(0, n, block):  # blocks of users, each fully vectorized
        vb = v[start:start + block]
        bits = _coin(gen, t_zero, (vb.size, d))
        bits[np.arange(vb.size), vb] = _coin(gen, t_one, vb.shape)
        out[start:start + vb.size] = np.packbits(bits, axis=1)
    return out


def _check_packed(reports: ArrayLike, d: int) -> np.ndarray:
    if isinstance(reports, np.ndarray) and reports.dtype == np.uint8:
        arr = reports
    else:
        arr = check_real_array(reports, "reports", ndim=2)
        if not ((arr == np.floor(arr)) & (arr >= 0) & (arr <= 255)).all():
            raise ValueError("reports must hold bytes (whole numbers in [0, 255]) as made by unary_encoding")
        arr = arr.astype(np.uint8)
    width = (d + 7) // 8
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] != width:
        raise ValueError(f"reports must have shape (n >= 1, {width}) for domain_size={d} (packed bits), "
                         f"got shape {arr.shape}")
    pad = 8 * width - d
    if pad and (arr[:, -1] & np.uint8((1 << pad) - 1)).any():
        raise ValueError(f"reports have nonzero padding bits past domain_size={d}: not made for this domain")
    return arr


def unary_encoding_estimate(reports: ArrayLike, domain_size: int, epsilon: float, *,
                            optimized: bool = True) -> np.ndarray:
    """Unbiased estimate of how many users hold each value, from packed unary-encoding reports.

    ``(N_v - n q) / (p - q)`` with ``N_v`` the number of reports whose bit v is 1 (theorem
    ``thm-ldp-variance``); variance :func:`unary_encoding_variance`. Post-processing of the reports.

    Parameters
    ----------
    reports : numpy.ndarray of uint8, shape (n, ceil(d/8))
        Output of :func:`unary_encoding`.
    domain_size : int
        d.
    epsilon : float
        The epsilon of the reports, >= MIN_EPSILON.
    optimized : bool, optional
        Whether the reports are OUE (True) or SUE (False).

    Returns
    -------
    numpy.ndarray of float, shape (d,)

    Examples
    --------
    >>> r = unary_encoding([3] * 2000, 4, 5.0, rng=2)
    >>> bool((unary_encoding_estimate(r, 4, 5.0).round(-2) == [0, 0, 0, 2000]).all())
    True
    """
    d = _check_domain(domain_size)
    arr = _check_packed(reports, d)
    eps = _check_ldp_epsilon(epsilon)
    opt = check_flag(optimized, "optimized")
    p, q = _ue_probs(eps, opt)
    counts = np.zeros(d, dtype=np.int64)
    block = max(1, (1 << 22) // d)
    for start in range(0, arr.shape[0], block):
        counts += np.unpackbits(arr[start:start + block], axis=1, count=d).sum(axis=0, dtype=np.int64)
    n = arr.shape[0]
    return (counts - n * float(q)) / float(p - q)


def unary_encoding_variance(n: int, domain_size: int, epsilon: float, *, optimized: bool = True,
                            count: float = 0) -> float:
    """Exact variance of :func:`unary_encoding_estimate` for a value held by ``count`` of ``n`` users.

    ``(c p(1-p) + (n-c) q(1-q)) / (p-q)^2`` (theorem ``thm-ldp-variance``). It does not depend on d: with
    the ideal probabilities and c = 0 it is ``n 4 e^eps / (e^eps - 1)^2`` for OUE and
    ``n e^(eps/2) / (e^(eps/2) - 1)^2`` for SUE.

    Parameters
    ----------
    n : int
        Number of users, >= 1.
    domain_size : int
        d, in [2, 2**24] (checked; the variance does not depend on it).
    epsilon : float
        >= MIN_EPSILON = 1e-9.
    optimized : bool, optional
        OUE (True) or SUE (False).
    count : float, optional
        The true count c, in [0, n].

    Examples
    --------
    >>> e = math.exp(1.0)
    >>> round(unary_encoding_variance(100, 16, 1.0) / (100 * 4 * e / (e - 1) ** 2), 9)
    1.0
    """
    n = check_positive_int(n, "n")
    _check_domain(domain_size)
    eps = _check_ldp_epsilon(epsilon)
    opt = check_flag(optimized, "optimized")
    c = _check_count(count, n)
    p, q = _ue_probs(eps, opt)
    return _variance(n, c, p, q)


# ---------------------------------------------------------------------------------------------------
# Optimized local hashing
# ---------------------------------------------------------------------------------------------------

def local_hashing(values: ArrayLike, domain_size: int, epsilon: float, *,
                  rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Optimized local hashing (OLH): hash the value to g = round(e^eps) + 1 buckets, then g-ary RR.

    Each user draws their own hash ``h(x) = ((a x + b) mod p) mod g`` from the universal family of Carter
    and Wegman, with ``p = 2**31 - 1`` (prime, > d), ``a`` uniform in [1, p-1] and ``b`` in [0, p-1], and
    reports ``(a, b, y)`` where ``y`` is g-ary randomized response applied to ``h(v)``. The hash does not
    depend on the value, and given the hash ``y`` is epsilon-LDP, so each report is epsilon-LDP and all
    reports are epsilon-DP under replace-one (theorem ``thm-ldp-olh``; Wang, Blocki, Li & Jha 2017).
    The coins are exact (module docstring).

    Parameters
    ----------
    values : array_like of int, shape (n,)
        The users' values in [0, d-1] (n >= 1).
    domain_size : int
        d, in [2, 2**24].
    epsilon : float
        Privacy parameter of each report, >= MIN_EPSILON = 1e-9 (for every domain size).
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int64, shape (n, 3)
        Rows ``(a, b, y)``.

    Examples
    --------
    >>> local_hashing([1, 2, 3], 100, 1.0, rng=0).shape
    (3, 3)
    """
    d = _check_domain(domain_size)
    v = _check_values(values, d)
    eps = _check_ldp_epsilon(epsilon)
    gen = as_rng(rng)
    g = _olh_g(eps)
    t, _, _ = _krr_probs(g, eps)
    n = v.size
    a = gen.integers(1, HASH_PRIME, size=n, dtype=np.int64)
    b = gen.integers(0, HASH_PRIME, size=n, dtype=np.int64)
    hashed = (a * v + b) % HASH_PRIME % g  # a*v + b < 2**62: no overflow
    y = _krr_draw(gen, hashed, g, t)
    return np.stack([a, b, y], axis=1)


def _check_olh_reports(reports: ArrayLike, g: int) -> np.ndarray:
    arr = check_real_array(reports, "reports", ndim=2)
    if arr.shape[1] != 3:
        raise ValueError(f"reports must have shape (n, 3) (rows a, b, y), got shape {arr.shape}")
    whole = (arr == np.floor(arr)).all(axis=1)
    ok = (whole & (arr[:, 0] >= 1) & (arr[:, 0] < HASH_PRIME) & (arr[:, 1] >= 0) & (arr[:, 1] < HASH_PRIME)
          & (arr[:, 2] >= 0) & (arr[:, 2] < g))
    if not ok.all():  # the rows are not quoted: a report is derived from a private value
        raise ValueError(f"reports must have rows (a, b, y) of whole numbers with a in [1, p-1], b in [0, p-1] "
                         f"(p = {HASH_PRIME}) and y in [0, {g - 1}] (g for this epsilon); at least one row does "
                         f"not: pass the reports local_hashing made with this domain_size and epsilon")
    return arr.astype(np.int64)


def local_hashing_estimate(reports: ArrayLike, domain_size: int, epsilon: float) -> np.ndarray:
    """Unbiased estimate of how many users hold each value, from OLH reports.

    A report ``(a, b, y)`` supports value x when ``h(x) = y``. With ``N_x`` the number of supporting reports,
    ``(N_x - n q*) / (p - q*)`` is unbiased, where ``q* = c p + (1 - c) q`` is the exact probability that a
    user who does not hold x supports it (``c`` the hash family's exact collision probability, about 1/g;
    theorem ``thm-ldp-variance``). Support is counted for all d values at once, in blocks of users: time
    and memory O(n d) and O(2**22) entries. Post-processing of the reports.

    Parameters
    ----------
    reports : array_like of int, shape (n, 3)
        Output of :func:`local_hashing`.
    domain_size : int
        d.
    epsilon : float
        The epsilon of the reports, >= MIN_EPSILON.

    Returns
    -------
    numpy.ndarray of float, shape (d,)

    Examples
    --------
    >>> r = local_hashing([7] * 3000, 10, 6.0, rng=3)
    >>> int(np.argmax(local_hashing_estimate(r, 10, 6.0)))
    7
    """
    d = _check_domain(domain_size)
    eps = _check_ldp_epsilon(epsilon)
    pr = oracle_probabilities("olh", d, eps)
    g = pr["g"]
    arr = _check_olh_reports(reports, g)
    a, b, y = arr[:, 0], arr[:, 1], arr[:, 2]
    xs = np.arange(d, dtype=np.int64)
    support = np.zeros(d, dtype=np.int64)
    block = max(1, (1 << 22) // d)
    for start in range(0, arr.shape[0], block):
        sl = slice(start, start + block)
        h = a[sl, None] * xs[None, :]
        h += b[sl, None]
        h %= HASH_PRIME
        h %= g
        support += (h == y[sl, None]).sum(axis=0)
    n = arr.shape[0]
    q_star = pr["q_support"]
    return (support - n * float(q_star)) / float(pr["p"] - q_star)


def local_hashing_variance(n: int, domain_size: int, epsilon: float, *, count: float = 0) -> float:
    """Exact variance of :func:`local_hashing_estimate` for a value held by ``count`` of ``n`` users.

    ``(c p(1-p) + (n-c) q*(1-q*)) / (p - q*)^2`` with the exact ``p`` and support probability ``q*`` of
    :func:`oracle_probabilities` (theorem ``thm-ldp-variance``). With an ideal hash (q* = 1/g), g = e^eps + 1
    and c = 0 it is OUE's ``n 4 e^eps / (e^eps - 1)^2``; rounding g to an integer costs a little.

    Parameters
    ----------
    n : int
        Number of users, >= 1.
    domain_size : int
        d, in [2, 2**24] (checked; the variance does not depend on it).
    epsilon : float
        >= MIN_EPSILON = 1e-9.
    count : float, optional
        The true count c, in [0, n].

    Examples
    --------
    >>> e = math.exp(math.log(3))
    >>> round(local_hashing_variance(100, 64, math.log(3)) / (100 * 4 * e / (e - 1) ** 2), 6)
    1.0
    """
    n = check_positive_int(n, "n")
    d = _check_domain(domain_size)
    eps = _check_ldp_epsilon(epsilon)
    c = _check_count(count, n)
    pr = oracle_probabilities("olh", d, eps)
    return _variance(n, c, pr["p"], pr["q_support"])


# ---------------------------------------------------------------------------------------------------
# Amplification by shuffling: the numerical bound of Feldman, McMillan & Talwar (2021)
# ---------------------------------------------------------------------------------------------------

_TAIL_SDS = 10.0  # the mass of Bin(n-1, e^-eps0) outside mean +- 10 sd is charged in full (it is ~1e-23)


def _clone_delta(eps: float, eps0: float, n: int) -> float:
    """An upper bound on D_{e^eps}(P0 || P1) for the pair of Feldman, McMillan & Talwar (2021), Thm 3.2.

    C ~ Bin(n-1, e^-eps0); given C = c, A ~ Bin(c, 1/2); with prob. alpha = e^eps0/(e^eps0+1) the first
    coordinate of P0 is A + 1 (else A) and that of P1 is A (else A + 1); the second is c + 1 minus the
    first. Given c, the likelihood ratio P0(x)/P1(x) = (alpha x + (1-alpha)(m-x)) / ((1-alpha) x +
    alpha (m-x)) (m = c+1) increases in x, so the divergence is sum over x > t of P0(x) - e^eps P1(x)
    for the right threshold t; the three integer candidates around the real root are tried and the
    largest kept. The mass of C outside the window is charged with divergence 1.
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of `import dpcourse`

    p = math.exp(-eps0)
    mean = (n - 1) * p
    sd = math.sqrt(max((n - 1) * p * (1 - p), 0.0))
    lo = max(0, int(math.floor(mean - _TAIL_SDS * sd)) - 1)
    hi = min(n - 1, int(math.ceil(mean + _TAIL_SDS * sd)) + 1)
    c = np.arange(lo, hi + 1, dtype=np.float64)
    w = stats.binom.pmf(c, n - 1, p)
    outside = max(0.0, 1.0 - float(w.sum())) + 1e-15  # mass not covered (plus float slack), charged fully
    alpha = 1.0 / (1.0 + math.exp(-eps0))
    ee = math.exp(eps)
    m = c + 1.0
    # alpha x + (1-alpha)(m-x) > ee ((1-alpha) x + alpha (m-x))  <=>  x > m (ee alpha - (1 - alpha)) / k
    k = (2 * alpha - 1) * (1 + ee)
    root = m * (ee * alpha - (1 - alpha)) / k
    base = np.floor(root)
    # P(A > base + j) for j = -2..1; the sum over x > t = base + shift uses j = shift - 1 and j = shift
    tails = [stats.binom.sf(base + j, c, 0.5) for j in (-2, -1, 0, 1)]
    best = np.zeros_like(c)
    for shift in (-1, 0, 1):
        s_prev, s_here = tails[shift + 1], tails[shift + 2]
        # P0(X > t) = alpha P(A > t-1) + (1-alpha) P(A > t); P1(X > t) = (1-alpha) P(A > t-1) + alpha P(A > t)
        p0 = alpha * s_prev + (1 - alpha) * s_here
        p1 = (1 - alpha) * s_prev + alpha * s_here
        best = np.maximum(best, p0 - ee * p1)
    return float(np.dot(w, best)) + outside


def _shuffle_closed_form(eps0: float, n: int, dlt: float) -> float:
    """Theorem 3.1 of Feldman, McMillan & Talwar (2021) with the authors' program's (larger) factor.

    Logs of n (an int of any size: math.log takes big integers) keep every step finite without floats of n.
    """
    log4d = math.log(4.0 / dlt)
    if n < 2 or eps0 > math.log(n) - math.log(16.0 * log4d):
        return eps0
    log_n = math.log(n)
    b = 8.0 * math.exp(0.5 * (eps0 + math.log(log4d) - log_n)) + 8.0 * math.exp(eps0 - log_n)
    e1 = math.log1p(b)
    factor = -math.expm1(-eps0) / (1.0 + math.exp(-eps0 - e1))
    return min(eps0, math.log1p(factor * b))


def shuffle_amplification_epsilon(epsilon_local: float, n: int, delta: float, *, method: str = "numerical",
                                  tol: float = 1e-4) -> float:
    """Epsilon of the shuffled reports of n users, each epsilon_local-LDP: Feldman, McMillan & Talwar (2021).

    Guarantee: if each of n users applies an ``epsilon_local``-LDP randomizer (the same one, or any sequence of
    them) and a trusted shuffler releases the reports in uniformly random order, the release is
    ``(epsilon, delta)``-DP under replace-one, user level (theorem ``thm-ldp-shuffle``), for the returned epsilon.
    It is an upper bound, at most ``epsilon_local`` (shuffling never hurts):

    * ``method="numerical"`` (default): the hockey-stick divergence of the pair of distributions of their
      Theorem 3.2 (arXiv:2012.12803), computed through binomial tails (the mass of counts more than 10 standard
      deviations away is charged in full), and the smallest epsilon at which it is <= delta on a bisection grid
      of width ``tol * epsilon_local``, rounded up (exact up to float rounding of the tails, about 1e-14 in
      delta). Its work grows like ``sqrt(n)`` per bisection step: n above ``MAX_SHUFFLE_USERS`` is refused.
    * ``method="closed_form"`` (corollary ``cor-ldp-shuffle-closed``): their Theorem 3.1 as the authors' program
      computes it, ``ln(1 + (1 - e^-eps0) / (1 + e^-(eps0 + e1)) B)`` with
      ``B = 8 sqrt(e^eps0 ln(4/delta) / n) + 8 e^eps0 / n`` and ``e1 = ln(1 + B)``: no smaller than the theorem
      as printed, so a bound under either statement. Used when ``eps0 <= ln(n / (16 ln(4/delta)))``; outside
      that range it returns ``epsilon_local``. Computed in log space: any n >= 1.

    Parameters
    ----------
    epsilon_local : float
        epsilon_0 of each local report, in (0, 50] (beyond, e^-eps0 underflows the analysis).
    n : int
        Number of users, >= 1 (at most ``MAX_SHUFFLE_USERS`` = 10**7 for ``method="numerical"``).
    delta : float
        The delta of the central guarantee, in (0, 1).
    method : {"numerical", "closed_form"}, optional
        The bound computed, as above.
    tol : float, optional
        Relative width of the bisection, in [1e-9, 0.1] (numerical method).

    Returns
    -------
    float
        The epsilon of the shuffled release, in [0, epsilon_local].

    Examples
    --------
    >>> round(shuffle_amplification_epsilon(4.0, 100_000, 1e-6), 3)  # README of the authors: in [0.1675, 0.1728]
    0.17
    >>> round(shuffle_amplification_epsilon(4.0, 100_000, 1e-6, method="closed_form"), 4)
    0.5378
    """
    eps0 = check_real(epsilon_local, "epsilon_local", low=0.0, high=50.0, low_open=True)
    n = check_positive_int(n, "n")
    dlt = check_delta(delta, allow_zero=False)
    meth = check_choice(method, "method", ("numerical", "closed_form"))
    rel = check_real(tol, "tol", low=1e-9, high=0.1)
    if meth == "closed_form":
        return _shuffle_closed_form(eps0, n, dlt)
    if n > MAX_SHUFFLE_USERS:
        raise ValueError(f"n must be <= MAX_SHUFFLE_USERS = {MAX_SHUFFLE_USERS} for method='numerical' (its work "
                         f"grows like sqrt(n)), got n={n}; use method='closed_form' for more users")
    if n == 1 or eps0 < 1e-9:  # one user, or a local epsilon so small that nothing is worth computing
        return eps0  # the shuffled reports are a post-processing of eps0-DP reports
    if _clone_delta(0.0, eps0, n) <= dlt:
        return 0.0
    lo, hi = 0.0, eps0  # the divergence is 0 at eps0: P0(x)/P1(x) <= alpha/(1-alpha) = e^eps0
    while hi - lo > rel * eps0:
        mid = 0.5 * (lo + hi)
        if _clone_delta(mid, eps0, n) <= dlt:
            hi = mid
        else:
            lo = mid
    return hi
