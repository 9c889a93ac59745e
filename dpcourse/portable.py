"""``exp``, ``expm1``, ``log``, ``log1p`` and ``sum`` that give the same bits on every computer.

numpy picks the code for ``exp``, ``log`` and the other transcendental functions at run time, by CPU:
AVX-512, AVX2, NEON or the C library. Their results differ in the last bit from one to another. Where
such a bit decides which sample a seeded release draws (an exponential-mechanism weight quantised to an
integer, a threshold compared with a draw), the same seed would release different values on a student's
laptop and on the machine that stored the book's outputs.

The functions here use only operations that IEEE 754 rounds the same way everywhere (``+``, ``-``, ``*``,
``/``, ``rint``, ``frexp``, ``ldexp`` by multiplication with powers of two), one numpy call each, so their
result is a function of the input bits alone. They are accurate to a few units in the last place
(tested against :mod:`decimal` at 40 digits), which is all a sampler's weights need: the privacy analysis
of every caller already allows for a float error in its weights (e.g. lemma ``lem-quant-sampling-error``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["exp", "expm1", "log", "log1p", "pairwise_sum"]

# ln 2 split so that k * _LN2_HI is exact for |k| < 2**21 (its last 21 bits are zero).
_LN2_HI = float.fromhex("0x1.62e42fee00000p-1")
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
_INV_LN2 = float.fromhex("0x1.71547652b82fep+0")
# 1/k! for k = 13 down to 2: exp(r) on |r| <= ln(2)/2 + 2**-40 has a Taylor remainder below 5e-18.
_EXP_COEFFS = tuple(1.0 / math.factorial(k) for k in range(13, 1, -1))
# 1/(2k + 1) for k = 11 down to 1: log(m) = 2 atanh(s), |s| <= 0.1716, remainder below 1e-18.
_LOG_COEFFS = tuple(1.0 / (2 * k + 1) for k in range(11, 0, -1))
# 1/k! for k = 14 down to 2: (e**x - 1 - x) / x**2 on |x| <= ln(2)/2, remainder below 1e-19.
_EXPM1_COEFFS = tuple(1.0 / math.factorial(k) for k in range(14, 1, -1))
_SQRT_HALF = float.fromhex("0x1.6a09e667f3bcdp-1")


def _pow2(k: np.ndarray) -> np.ndarray:
    """2.0**k for integer-valued float k in [-1022, 1023], exactly (ldexp of 1 in the normal range)."""
    return np.ldexp(1.0, k.astype(np.int64))


def exp(x: ArrayLike) -> np.ndarray:
    """``e**x`` elementwise, the same bits on every CPU; error below 3 ulp (NaN stays NaN).

    ``x = k ln 2 + r`` with ``k = rint(x / ln 2)`` and ``|r| <= ln(2)/2``; ``e**r`` by Horner's rule on its
    Taylor polynomial of degree 13; then ``2**k`` in two exact multiplications (one rounding, where the
    result is subnormal).
    """
    x = np.asarray(x, dtype=np.float64)
    big = x > 709.782712893384          # e**x overflows
    tiny = x < -745.1332191019412       # e**x < 2**-1075 rounds to 0
    xs = np.where(big | tiny | np.isnan(x), 0.0, x)
    k = np.rint(xs * _INV_LN2)
    r = (xs - k * _LN2_HI) - k * _LN2_LO
    p = np.full_like(r, _EXP_COEFFS[0])
    for c in _EXP_COEFFS[1:] + (1.0, 1.0):
        np.multiply(p, r, out=p)
        np.add(p, c, out=p)
    k1 = np.floor(k / 2.0)
    out = (p * _pow2(k1)) * _pow2(k - k1)
    out = np.where(big, np.inf, np.where(tiny, 0.0, out))
    return np.where(np.isnan(x), np.nan, out)


def log(x: ArrayLike) -> np.ndarray:
    """Natural logarithm elementwise, the same bits on every CPU; error below 3 ulp.

    ``log(0) = -inf``, ``log(inf) = inf``, NaN for negative or NaN input. ``x = m 2**e`` with
    ``m`` in ``[sqrt(1/2), sqrt(2))``; ``log m = 2 atanh(s)``, ``s = (m - 1) / (m + 1)``, by its series to
    ``s**23``; then ``e ln 2`` added in two parts.
    """
    x = np.asarray(x, dtype=np.float64)
    ok = (x > 0) & np.isfinite(x)
    m, e = np.frexp(np.where(ok, x, 1.0))
    low = m < _SQRT_HALF
    m = np.where(low, 2.0 * m, m)
    e = (e - low).astype(np.float64)
    f = m - 1.0                          # exact: m is within a factor 2 of 1
    s = f / (2.0 + f)
    z = s * s
    p = np.full_like(z, _LOG_COEFFS[0])
    for c in _LOG_COEFFS[1:]:
        np.multiply(p, z, out=p)
        np.add(p, c, out=p)
    lm = 2.0 * s + (2.0 * s) * (z * p)
    out = e * _LN2_HI + (lm + e * _LN2_LO)
    out = np.where(x == 0, -np.inf, np.where(x == np.inf, np.inf, out))
    return np.where(ok | (x == 0) | (x == np.inf), out, np.nan)


def expm1(x: ArrayLike) -> np.ndarray:
    """``e**x - 1`` elementwise, the same bits on every CPU; accurate near 0 (error below 8 ulp).

    For ``|x| < ln(2)/2``: ``x + x**2 q(x)``, ``q`` the Taylor polynomial of degree 12 of
    ``(e**x - 1 - x) / x**2``; elsewhere ``exp(x) - 1``, whose rounding is small against ``|e**x - 1| > 0.29``.
    """
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < 0.5 * _LN2_HI
    xs = np.where(small, x, 0.0)
    q = np.full_like(xs, _EXPM1_COEFFS[0])
    for c in _EXPM1_COEFFS[1:]:
        np.multiply(q, xs, out=q)
        np.add(q, c, out=q)
    near = xs + (xs * xs) * q
    with np.errstate(invalid="ignore"):
        far = exp(np.where(small, 0.0, x)) - 1.0
    return np.where(small, near, far)


def log1p(x: ArrayLike) -> np.ndarray:
    """``log(1 + x)`` elementwise, the same bits on every CPU; accurate near 0 (error below 4 ulp).

    ``u = fl(1 + x)``; ``log(u) x / (u - 1)`` corrects the rounding of ``1 + x`` (Goldberg 1991, theorem 4),
    and ``x`` itself where ``u == 1``. -1 gives -inf, below -1 NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    u = 1.0 + x
    d = u - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(d == 0.0, x, log(u) * (x / np.where(d == 0.0, 1.0, d)))
    return np.where(np.isinf(x) & (x > 0), np.inf, out)


def pairwise_sum(values: ArrayLike) -> float:
    """The sum of a float array by a fixed pairwise tree: the same bits on every CPU.

    Each level adds neighbours elementwise (``a[0::2] + a[1::2]``), so every addition and its order are
    fixed by the array's length alone; the error is at most ``ceil(log2 n)`` ulp of the sum of absolute
    values. (numpy's own ``sum`` is pairwise too, but its blocking is a detail of each numpy version and build.)
    """
    a = np.asarray(values, dtype=np.float64).ravel()
    if a.size == 0:
        return 0.0
    while a.size > 1:
        if a.size % 2:
            a = np.append(a, 0.0)
        a = a[0::2] + a[1::2]
    return float(a[0])
