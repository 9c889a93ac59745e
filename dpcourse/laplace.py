"""The Laplace mechanism, its accuracy bounds, and the clamped mean released with it.

Everything here is proved in the chapter "Sensitivity and the Laplace mechanism": privacy in theorem
``thm-laplace-privacy``, the tails in lemma ``lem-laplace-tail`` and theorem ``thm-laplace-max-error``,
the mean in theorem ``thm-laplace-mean``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from ._sampling import _shape
# The secure helpers are private (dpcourse.lattice); their old names are kept here because chapter 03 prints the
# source of laplace_mechanism, which calls secure_laplace.
from .lattice import _plain_scalar as plain_scalar, _secure_laplace as secure_laplace
from .lattice import _secure_laplace1 as secure_laplace1, _secure_laplace_draws as secure_laplace_draws
from ._validation import (
    as_rng,
    WIDE_BOUNDS,
    check_bounds,
    check_epsilon,
    check_flag,
    check_positive_int,
    check_probability,
    check_real,
    check_real_array,
    check_sensitivity,
)

__all__ = [
    "laplace_mechanism",
    "dp_mean",
    "laplace_tail",
    "laplace_max_error_tail",
    "laplace_max_error_bound",
    "laplace_max_error_quantile",
    "counting_queries_sample_size",
]


def laplace_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, *,
                      rng: np.random.Generator | int | None = None, secure: bool = True) -> float | np.ndarray:
    """Release ``value`` plus independent Laplace noise of scale ``sensitivity / epsilon`` per coordinate.

    Privacy: if ``value = f(x)`` for a query ``f`` whose l1 sensitivity (the largest l1 distance between
    ``f(x)`` and ``f(x')`` over neighbouring datasets, under the relation the caller has in mind) is at
    most ``sensitivity``, the release is epsilon-DP under that same relation (theorem
    ``thm-laplace-privacy``). For an array, ``sensitivity`` bounds the l1 norm of the change of the
    *whole* vector, not of each coordinate.

    * ``secure=True`` (default): floating-point safe. The value is rounded to a power-of-two lattice g Z
      and g times exact discrete Laplace noise is added, with the rounding charged to the sensitivity
      (:func:`dpcourse.laplace_lattice`, theorem ``thm-lattice-laplace``). The noise scale exceeds
      ``sensitivity / epsilon`` by a factor of at most ``1 + 2**-20`` for ``dim <= 2**20 * epsilon``;
      every output is a multiple of g and every multiple of g is possible from every input.
    * ``secure=False``: the textbook float sampler :meth:`numpy.random.Generator.laplace`. Most of its
      outputs are impossible under a neighbouring input (Mironov 2012; chapter "Noise on a real
      computer"), so it is **not** private on a real computer: kept to demonstrate that.

    Parameters
    ----------
    value : float or array_like of floats
        The exact query answer(s); finite.
    sensitivity : float
        l1 sensitivity of the query, > 0, in the units of ``value``.
    epsilon : float
        Privacy parameter, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness: None for fresh OS entropy, an int seed, or a Generator.
    secure : bool, default True
        Exact lattice sampler (True) or the unsafe textbook float sampler (False).

    Returns
    -------
    float or numpy.ndarray
        A float for a scalar ``value``, otherwise a float64 array of the same shape.

    Examples
    --------
    >>> out = laplace_mechanism(42, sensitivity=1, epsilon=0.5, rng=0)
    >>> out == round(out * 2**20) / 2**20   # a multiple of the lattice spacing 2**-20
    True
    >>> laplace_mechanism([3.0, 4.0], 2.0, 1.0, rng=1).shape
    (2,)
    """
    scalar = plain_scalar(value)   # a plain float or int: the one-draw path, as for an array of one value
    x = check_real_array(value, "value", allow_empty=True) if scalar is None else np.asarray(scalar)
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    safe = check_flag(secure, "secure")
    gen = as_rng(rng)
    if safe and scalar is not None:
        return secure_laplace1(scalar, sens, eps, gen)
    if safe:
        out = secure_laplace(x, sens, eps, gen)
    else:
        out = gen.laplace(0.0, sens / eps, size=x.shape)
        out += x  # in place: one pass over the noise, no second array of a million floats
    return float(out) if out.ndim == 0 else out


def dp_mean(x: ArrayLike, lower: float, upper: float, epsilon: float, *,
            rng: np.random.Generator | int | None = None, secure: bool = True,
            size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
    """Release the mean of ``x`` clamped to the public interval ``[lower, upper]``, with Laplace noise.

    The values are clamped to ``[lower, upper]`` and averaged, and :func:`laplace_mechanism` adds noise of scale
    ``(upper - lower) / (n epsilon)``, ``n = len(x)`` (the exact lattice sampler by default).

    Guarantee: epsilon-DP under the **replace-one** relation, in which ``n`` is public (theorem
    ``thm-laplace-mean``), for the mean as computed: the sensitivity passed on also covers the float rounding of
    the mean (``2**-51 max(|lower|, |upper|)``), and the lattice release is exact (theorem
    ``thm-lattice-laplace``). It is *not* epsilon-DP under add/remove for any epsilon (the noise scale depends on
    ``n``): there, release a noisy clamped sum and a noisy count. ``secure=False`` uses the textbook float
    sampler, not private on a real computer. Accuracy: unbiased when every value lies in ``[lower, upper]``,
    standard deviation ``sqrt(2) (upper - lower) / (n epsilon)``; clamping biases towards the interval.

    Parameters
    ----------
    x : array_like of floats, shape (n,)
        The private values, n >= 1; finite (NaN or +-inf raise: drop missing values first, knowingly).
    lower, upper : float
        Public clamping bounds, chosen without looking at the data: finite, ``lower < upper``,
        ``upper - lower <= 2**1000``, in the units of ``x``.
    epsilon : float
        Privacy parameter, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.
    secure : bool, default True
        Exact lattice sampler (True) or the unsafe textbook float sampler (False).
    size : None, int or tuple of ints, optional
        None (default): one release. Otherwise that shape of independent releases of the same mean, each drawn
        as a single call draws it and each epsilon-DP (``k * epsilon`` for all k of them); at most ``MAX_SIZE``.

    Returns
    -------
    float or numpy.ndarray
        The noisy clamped mean (it can fall outside ``[lower, upper]``: clip it afterwards if needed), or an
        array of ``size`` independent releases.

    Examples
    --------
    >>> round(dp_mean([4.0, 5.0, 6.0], 0.0, 10.0, epsilon=1e9, rng=0), 6)
    5.0
    >>> dp_mean([1.0, float("nan")], 0.0, 10.0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: x must be finite everywhere (no NaN or +-inf entry): remove or impute such entries before the call
    """
    values = check_real_array(x, "x", ndim=1)
    lo, hi = check_bounds(lower, upper, max_width=WIDE_BOUNDS)  # wider: the secure lattice overflows
    eps = check_epsilon(epsilon)
    value, sensitivity = _clamped_mean_query(values, lo, hi)
    if size is None:
        return laplace_mechanism(value, sensitivity, eps, rng=rng, secure=secure)
    shape = _shape(size)
    gen = as_rng(rng)
    if check_flag(secure, "secure"):
        return secure_laplace_draws(value, sensitivity, eps, shape, gen)
    return value + gen.laplace(0.0, sensitivity / eps, size=shape)


def _clamped_mean_query(values: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """The clamped mean as computed in floating point, and a sensitivity that covers that computation.

    The exact clamped means of replace-one neighbours differ by at most (hi - lo) / n. The computed one,
    fl(fl(sum) / n), is within 2**-52 |mean| <= 2**-52 max(|lo|, |hi|) of the exact one (the exact sum is
    rounded once, as ``math.fsum`` rounds it, by :func:`_clamped_sum`; the division once), so the computed
    means of neighbours differ by at most
    (hi - lo) / n + 2**-51 max(|lo|, |hi|). That bound, computed exactly and rounded up, is the
    sensitivity passed on: theorem ``thm-lattice-laplace`` is about the numbers the computer outputs.
    """
    n = values.size
    try:
        value = _clamped_sum(values, lo, hi) / n
    except OverflowError:
        # The exact clamped sum lies beyond the float range (n values near +-max/n: bounds such as
        # max/3 -+ 2**999 refused [hi, hi, hi] and released [lo, lo, lo]); the mean does not. It is taken
        # exactly, in integer multiples of 2**-_UNIT_BITS, and rounded once (int / int true division is
        # correctly rounded), within 2**-53 |mean| of the exact mean as the proof below needs.
        value = sum(map(_in_units, np.clip(values, lo, hi).tolist())) / (n * _UNIT)
    bound = (Fraction(hi) - Fraction(lo)) / n + Fraction(max(abs(lo), abs(hi))) / 2**51
    sensitivity = float(bound)
    if Fraction(sensitivity) < bound:
        sensitivity = math.nextafter(sensitivity, math.inf)
    return value, sensitivity


_UNIT_BITS = 1074 + 64        # every float is an integer multiple of 2**-1074
_UNIT = 1 << _UNIT_BITS
_BLOCK = 1 << 17             # values per block of the exact sum (1 MiB buffers: measured 7% faster than 512 KiB)


def _in_units(x: float) -> int:
    """The float x as an exact integer multiple of 2**-_UNIT_BITS."""
    num, den = x.as_integer_ratio()               # den is a power of two, at most 2**1074
    return num * (_UNIT // den)


def _clamped_sum(values: np.ndarray, lo: float, hi: float) -> float:
    """``math.fsum`` of the values clamped to [lo, hi] (their exact sum rounded once, ties to even), vectorized.

    Error-free split (Rump, Ogita & Oishi 2008, ExtractScalar): with n values, ``2**E > max(|lo|, |hi|)``,
    ``K = bitlength(n) + 1`` (so n <= 2**(K-1)) and ``sigma = 2**M``, M = E + K, each clamped value c is
    split as c = q + r with q = fl(fl(sigma + c) - sigma) and r = fl(c - q):

    * fl(sigma + c) lies in [sigma/2, 2 sigma], a multiple of 2**(M-53) within 2**(M-53) of sigma + c, so
      q = fl(sigma + c) - sigma exactly (Sterbenz), q is a multiple of 2**(M-53) and |q| <= 2**E + 2**(M-53);
    * c - q = (sigma + c) - fl(sigma + c) is the rounding error of one addition, a float: r is exact and
      |r| <= 2**(M-53).

    Every partial sum of the q's (numpy's pairwise order or any other) is a multiple of 2**(M-53) of size at
    most n (2**E + 2**(M-53)) <= 2**(M-1) + 2**(M+K-54) <= 2**M, hence a float: ``sum(q)`` is exact. A
    float sum of the r's in any order is within gamma_(n-1) sum |r| <= gamma_(n-1) n 2**(M-53) of their
    exact sum, gamma_m = m 2**-53 / (1 - m 2**-53) (Higham 2002, section 4.2). So the exact sum S lies in
    [sum(q) + sum(r) - err, sum(q) + sum(r) + err], computed exactly in integer multiples of 2**-_UNIT_BITS
    (every float is one; err is rounded up) and rounded by int / int true division, which CPython rounds
    correctly (ties to even); rounding to nearest is
    monotone, so when both ends round to the same float, that float is the correctly rounded S. Otherwise
    (S within err of a rounding boundary, as when the clamped values nearly cancel) ``math.fsum`` decides,
    as it did for every call before. Six passes over blocks of the data (clip included), no Python list.
    """
    n = values.size
    e = math.frexp(max(abs(lo), abs(hi)))[1]       # 2**e > max(|lo|, |hi|)
    m = e + n.bit_length() + 1
    if -1021 <= m <= 1023:                          # sigma is a float, and 2**(m-53) a normal step
        sigma = math.ldexp(1.0, m)
        block = min(n, _BLOCK)
        c, q = np.empty(block), np.empty(block)     # blocks that stay in cache, no array of n allocated
        sum_q = sum_r = 0.0
        for start in range(0, n, block):
            part = values[start:start + block]
            cc, qq = c[:part.size], q[:part.size]
            np.clip(part, lo, hi, out=cc)
            np.add(cc, sigma, out=qq)
            qq -= sigma                             # q, exact
            cc -= qq                                # the remainders r, exact
            sum_q += float(qq.sum())                # exact, as every partial sum of q's is
            sum_r += float(cc.sum())                # one more summation order of the r's
        err = -((-(n - 1) * n << (m - 53 + _UNIT_BITS)) // (2**53 - (n - 1)))   # ceil(err * 2**_UNIT_BITS)
        mid = _in_units(sum_q) + _in_units(sum_r)
        low, high = (mid - err) / _UNIT, (mid + err) / _UNIT
        if low == high:
            return low + 0.0    # S = 0: (mid - err) / _UNIT rounds to -0.0, and fsum of a zero sum gives +0.0
    return math.fsum(np.clip(values, lo, hi).tolist())


def laplace_tail(t: ArrayLike, scale: float) -> float | np.ndarray:
    """Exact two-sided tail ``P(|Z| >= t) = exp(-t / scale)`` of Z ~ Laplace(0, scale), t >= 0.

    Lemma ``lem-laplace-tail``: |Z| is exponential with mean ``scale``. Vectorized over ``t``.

    Examples
    --------
    >>> round(laplace_tail(2.0, 1.0), 6)  # e^-2
    0.135335
    >>> laplace_tail([0.0, 1.0], 2.0).round(4).tolist()
    [1.0, 0.6065]
    """
    b = check_sensitivity(scale, "scale")
    tt = check_real_array(t, "t", allow_empty=True)
    if (tt < 0).any():
        raise ValueError(f"t must be >= 0, got {tt[tt < 0].ravel()[0]}")
    out = np.exp(-tt / b)
    return float(out) if out.ndim == 0 else out


def laplace_max_error_tail(s: ArrayLike, k: int, scale: float) -> float | np.ndarray:
    """Exact ``P(max_i |Z_i| >= s)`` for k independent Laplace(0, scale) variables, s >= 0.

    Equal to ``1 - (1 - exp(-s / scale))**k`` by independence (theorem ``thm-laplace-max-error``),
    computed as ``-expm1(k * log1p(-exp(-s / scale)))`` so that tiny tails keep their digits.

    Examples
    --------
    >>> round(laplace_max_error_tail(3.0, 1, 1.0), 6) == round(laplace_tail(3.0, 1.0), 6)
    True
    >>> round(laplace_max_error_tail(10.0, 100, 1.0), 6)
    0.00453
    """
    b = check_sensitivity(scale, "scale")
    kk = check_positive_int(k, "k")
    ss = check_real_array(s, "s", allow_empty=True)
    if (ss < 0).any():
        raise ValueError(f"s must be >= 0, got {ss[ss < 0].ravel()[0]}")
    with np.errstate(divide="ignore"):  # s = 0 gives log1p(-1) = -inf and the exact answer 1
        out = -np.expm1(kk * np.log1p(-np.exp(-ss / b)))
    return float(out) if out.ndim == 0 else out


def laplace_max_error_bound(k: int, scale: float, beta: float) -> float:
    """Union bound: with probability >= 1 - beta, ``max_i |Z_i| <= scale * ln(k / beta)``.

    For k Laplace(0, scale) noise variables, independent or not (theorem ``thm-laplace-max-error``).
    With ``beta = e^-t`` this reads ``scale * (ln k + t)``: the largest error over k coordinates grows
    only like ln k.

    Parameters
    ----------
    k : int
        Number of coordinates, >= 1.
    scale : float
        Laplace scale b = sensitivity / epsilon, > 0.
    beta : float
        Failure probability in (0, 1).

    Examples
    --------
    >>> round(laplace_max_error_bound(1, 1.0, math.exp(-3)), 12)
    3.0
    >>> round(laplace_max_error_bound(100, 2.0, 0.05), 4)  # 2 (ln 100 + ln 20)
    15.2018
    """
    kk = check_positive_int(k, "k")
    b = check_sensitivity(scale, "scale")
    beta = check_probability(beta, "beta", low_open=True, high_open=True)
    return b * (math.log(kk) - math.log(beta))


def laplace_max_error_quantile(k: int, scale: float, beta: float) -> float:
    """Exact ``1 - beta`` quantile of ``max_i |Z_i|`` for k *independent* Laplace(0, scale) variables.

    The s with ``P(max_i |Z_i| >= s) = beta``, i.e. ``-scale * ln(1 - (1 - beta)^(1/k))`` by theorem
    ``thm-laplace-max-error``; it is at most :func:`laplace_max_error_bound` and at least that bound minus
    ``scale * beta / (1 - beta)`` (corollary ``cor-hist-max-error``).

    Examples
    --------
    >>> round(laplace_max_error_quantile(1, 1.0, 0.05), 6) == round(math.log(20), 6)
    True
    >>> round(laplace_max_error_quantile(100, 2.0, 0.05), 4)
    15.1512
    """
    kk = check_positive_int(k, "k")
    b = check_sensitivity(scale, "scale")
    beta = check_probability(beta, "beta", low_open=True, high_open=True)
    inner = -math.expm1(math.log1p(-beta) / kk)   # 1 - (1 - beta)^(1/k)
    if inner == 0.0:  # beta / k underflowed; there 1 - (1 - beta)^(1/k) = beta / k to double precision
        return -b * (math.log(beta) - math.log(kk))
    return -b * math.log(inner)


def counting_queries_sample_size(k: int, alpha: float, beta: float, epsilon: float) -> float:
    """Smallest n for which k normalised counting queries are answered within ``alpha`` w.p. >= 1 - beta.

    With the Laplace mechanism on the vector of k normalised counts (l1 sensitivity ``k / n`` under
    replace-one, n public), every answer is within ``alpha`` of the truth with probability at least
    ``1 - beta`` as soon as ``n >= k ln(k / beta) / (alpha epsilon)`` (corollary ``cor-laplace-counting``).
    Returns that threshold (a real number; round it up).

    Examples
    --------
    >>> round(counting_queries_sample_size(1, 0.01, 0.05, 1.0), 2)  # ln 20 / 0.01
    299.57
    >>> round(counting_queries_sample_size(10, 0.01, 0.05, 1.0))
    5298
    """
    kk = check_positive_int(k, "k")
    a = check_real(alpha, "alpha", low=0.0, low_open=True)
    beta = check_probability(beta, "beta", low_open=True, high_open=True)
    eps = check_epsilon(epsilon)
    return kk * (math.log(kk) - math.log(beta)) / (a * eps)
