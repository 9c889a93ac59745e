"""Exact choices from a uniform drawn as the float code draws it, refined only when undecided.

A float sampler draws ``u = rng.random()`` and compares it with a float probability (or a float CDF).
For every numpy bit generator (PCG64, PCG64DXSM, MT19937, Philox, SFC64) ``rng.random()`` returns
``k / 2**53`` with ``k`` a uniform integer on ``[0, 2**53)``: numpy builds it from 53 raw bits (two
32-bit words for MT19937, the top 53 bits of a 64-bit word for the others). So ``u`` is the first 53
bits of an infinitely precise uniform ``U = (k + V) / 2**53``, with V an independent uniform whose bits
are drawn only when needed (``Generator.integers``, 62 bits at a time).

The functions here decide *exactly* where U falls among real boundaries ``0 < B_0 <= ... < 1`` known
only through certified integer bounds ``lo <= 2**P B <= hi`` at a precision P of our choice:

* at 53 bits (one vectorized numpy step) the interval ``[k, k + 1) / 2**53`` lies on one side of every
  boundary except when it straddles one, which happens with probability below ``2**-42`` per boundary
  for up to 10**3 candidates (``tests/test_exact_selection.py`` measures it exactly from the bounds);
* an undecided draw gets more bits of V and tighter bounds (P = 128, 256, ...) until it is decided.

The output is then exactly ``r`` with probability ``B_r - B_(r-1)``: no floating-point rounding enters
the law (theorem ``sel-thm-exact-uniform`` of the chapter "Private selection"). The seeded outputs equal
those of the float code except in the rare draws where the float comparison itself was wrong or
undecided. ``exp(-x)`` for an exact rational x is bounded with :mod:`decimal`, whose ``exp`` is
correctly rounded.
"""

from __future__ import annotations

import bisect
import decimal
import functools
import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

__all__: list[str] = []  # internal helpers of the samplers (not releases)

#: ``bounds(P)``: two nondecreasing lists of integers ``lo, hi`` with ``lo[r] <= 2**P B_r <= hi[r]``.
Bounds = Callable[[int], tuple[Sequence[int], Sequence[int]]]

_BITS = 53
_ONE53 = 1 << _BITS
_NUMPY_BIT_GENERATORS = (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox,
                         np.random.SFC64)


def check_bit_generator(gen: np.random.Generator) -> None:
    """Refuse a Generator whose ``random()`` is not known to be a uniform multiple of 2**-53."""
    bg = gen.bit_generator
    if not isinstance(bg, _NUMPY_BIT_GENERATORS):
        raise TypeError(f"rng uses the bit generator {type(bg).__name__}, whose random() is not known to give "
                        f"53 uniform bits; use one of numpy's PCG64, PCG64DXSM, MT19937, Philox or SFC64")


def uniform_prefix(gen: np.random.Generator, shape: int | tuple[int, ...]) -> np.ndarray:
    """The 53-bit integers k of ``gen.random(shape) == k / 2**53`` (the same draws as the float code)."""
    check_bit_generator(gen)
    return (gen.random(shape) * _ONE53).astype(np.int64)  # exact: every value is an integer below 2**53


def _fresh_bits(gen: np.random.Generator, n: int) -> int:
    out = 0
    while n > 0:
        b = min(62, n)
        out = (out << b) | int(gen.integers(0, 1 << b))
        n -= b
    return out


def _refine(k: int, bounds: Bounds, gen: np.random.Generator, cache: dict[int, Any]) -> int:
    """Index of the slot of U = (k + V) / 2**53, deciding with ever tighter bounds and more bits of V."""
    u, have, prec = k, _BITS, 64
    while True:
        prec *= 2
        u = (u << (prec - have)) | _fresh_bits(gen, prec - have)
        have = prec
        if prec not in cache:
            cache[prec] = bounds(prec)
        lo, hi = cache[prec]
        passed = bisect.bisect_right(hi, u)       # boundaries surely <= U: hi <= u
        maybe = bisect.bisect_left(lo, u + 1)     # boundaries possibly <= U: lo < u + 1
        if passed == maybe:
            return passed


def choose_slot(k: np.ndarray, bounds: Bounds, gen: np.random.Generator,
                bounds53: tuple[Any, Any] | None = None) -> np.ndarray:
    """For each prefix k, the number of boundaries B_r with B_r <= U (exactly), U = (k + V) / 2**53.

    ``bounds(P)`` returns two nondecreasing lists of Python ints ``lo, hi`` with
    ``lo[r] <= 2**P B_r <= hi[r]``; ``bounds53``, if given, are such bounds at P = 53 computed faster
    (int64 arrays). Returns int64 indices in ``[0, len(lo)]``.
    """
    lo53, hi53 = bounds(_BITS) if bounds53 is None else bounds53
    lo53 = np.asarray(lo53, dtype=np.int64)
    hi53 = np.asarray(hi53, dtype=np.int64)
    flat = k.ravel()
    passed = np.searchsorted(hi53, flat, side="right")
    maybe = np.searchsorted(lo53, flat + 1, side="left")
    out = passed.astype(np.int64)
    cache: dict = {}
    for i in np.flatnonzero(passed != maybe):  # rare: the 53-bit interval straddles a boundary
        out[i] = _refine(int(flat[i]), bounds, gen, cache)
    return out.reshape(k.shape)


def below(k: np.ndarray, lo53: np.ndarray, hi53: np.ndarray, bounds_of: Callable[[Any], Bounds],
          gen: np.random.Generator) -> np.ndarray:
    """Exact coins: for each k[..., j], whether U = (k + V) / 2**53 < p_j (p_j in [0, 1] real).

    ``lo53[j] <= 2**53 p_j <= hi53[j]`` (int64 arrays); ``bounds_of(j)(P)`` gives ``([lo], [hi])`` at
    precision P for the undecided draws of column j (one boundary each).
    """
    heads = k + 1 <= lo53
    undecided = ~heads & (k < hi53)
    if undecided.any():
        caches: dict = {}
        for idx in zip(*np.nonzero(undecided)):
            j = idx[-1] if k.ndim else 0
            cache = caches.setdefault(j, {})
            heads[idx] = _refine(int(k[idx]), bounds_of(j), gen, cache) == 0
    return heads


def bernoulli(gen: np.random.Generator, shape: int | tuple[int, ...],
              bounds: Callable[[int], tuple[int, int]]) -> np.ndarray:
    """Exact coins ``U < p`` of one real probability p, drawing ``gen.random(shape)`` as the float coin
    ``gen.random(shape) < p`` does; ``bounds(P)`` returns integers ``lo <= 2**P p <= hi``."""
    k = uniform_prefix(gen, shape).reshape(-1, 1)
    lo53, hi53 = bounds(_BITS)
    @functools.lru_cache(maxsize=None)
    def cached(prec: int) -> tuple[list[int], list[int]]:
        lo, hi = bounds(prec)
        return [lo], [hi]

    heads = below(k, np.array([lo53], dtype=np.int64), np.array([hi53], dtype=np.int64), lambda j: cached, gen)
    return heads.reshape(shape)


# ----------------------------------------------------------------------------------------------------
# Certified bounds.


def dyadic_bounds(value: Fraction, prec: int) -> tuple[int, int]:
    """floor and ceil of ``2**prec * value`` for an exact rational."""
    scaled = value * (1 << prec)
    return scaled.numerator // scaled.denominator, -((-scaled.numerator) // scaled.denominator)


def _context(prec_bits: int, rounding: str) -> decimal.Context:
    return decimal.Context(prec=int(prec_bits * 0.302) + 3, rounding=rounding, Emin=decimal.MIN_EMIN,
                           Emax=decimal.MAX_EMAX)


_LN2_UP = decimal.Decimal("0.6931471805599454")  # > ln 2


def exp_neg_bounds(xs: Iterable[tuple[int, int]], prec: int) -> tuple[list[int], list[int]]:
    """Integers ``lo[i] <= 2**prec * exp(-x_i) <= hi[i]`` for exact rationals ``x_i = num / den >= 0``.

    ``xs`` holds ``(num, den)`` pairs of Python ints. The argument is bounded by directed rounding,
    ``x_lo <= x <= x_hi``; ``decimal``'s ``exp`` is correctly rounded (relative error below
    ``10**(1 - digits)``), so ``E = exp(-x_lo)`` rounded gives ``exp(-x) <= E (1 + r)`` and
    ``exp(-x) >= exp(-x_lo) e^-(x_hi - x_lo) >= E (1 - r) (1 - (x_hi - x_lo))``; every later step rounds
    towards the side that keeps the bound valid. Every operation names its own context: nothing depends on the
    caller's :func:`decimal.getcontext` (a unary minus there once rounded x to 28 digits, so that the "bounds" at
    128 bits and beyond excluded the true value; ``tests/test_exact_branches.py``).
    """
    down = _context(prec, decimal.ROUND_FLOOR)
    up = _context(prec, decimal.ROUND_CEILING)
    near = _context(prec, decimal.ROUND_HALF_EVEN)
    rel = decimal.Decimal(f"1e{1 - near.prec}")  # exact; no arithmetic in the caller's (thread's) decimal context
    scale = decimal.Decimal(1 << prec)
    small = up.multiply(prec, _LN2_UP)  # x >= prec ln 2: 2**prec exp(-x) <= 1
    full = 1 << prec
    lo_out, hi_out = [], []
    for num, den in xs:
        if num == 0:
            lo_out.append(full)
            hi_out.append(full)
            continue
        dn, dd = decimal.Decimal(num), decimal.Decimal(den)
        x_lo = down.divide(dn, dd)
        if x_lo >= small:
            lo_out.append(0)
            hi_out.append(1)
            continue
        x_hi = up.divide(dn, dd)
        e = near.exp(x_lo.copy_negate())  # exact negation: ``-x_lo`` would round to the thread's context (28 digits)
        e_hi = up.multiply(e, up.add(1, rel))
        e_lo = down.multiply(down.multiply(e, down.subtract(1, rel)), down.subtract(1, up.subtract(x_hi, x_lo)))
        lo_out.append(max(0, int(down.multiply(e_lo, scale).to_integral_value(decimal.ROUND_FLOOR))))
        hi_out.append(min(full, int(up.multiply(e_hi, scale).to_integral_value(decimal.ROUND_CEILING))))
    return lo_out, hi_out


def logistic_bounds(x: Fraction, prec: int) -> tuple[int, int]:
    """Integers ``lo <= 2**prec / (1 + exp(-x)) <= hi`` for an exact rational x >= 0."""
    e_lo, e_hi = exp_neg_bounds([(x.numerator, x.denominator)], prec + 8)
    one = 1 << (prec + 8)
    return (one << prec) // (one + e_hi[0]), -((-(one << prec)) // (one + e_lo[0]))


def cdf_bounds(weight_bounds: Bounds) -> Bounds:
    """``bounds(P)`` for the boundaries ``B_r = (w_0 + ... + w_r) / (w_0 + ... + w_(m-1))``, r < m - 1.

    ``weight_bounds(P)`` returns integer bounds of ``2**P w_i``; B_r = C / (C + R) grows with the head
    sum C and shrinks with the rest R, so ``C_lo / (C_lo + R_hi) <= B_r <= C_hi / (C_hi + R_lo)``.
    """
    def bounds(prec: int) -> tuple[list[int], list[int]]:
        wl, wh = weight_bounds(prec + 5)
        cl = np.cumsum(np.array(wl, dtype=object))
        ch = np.cumsum(np.array(wh, dtype=object))
        tot_l, tot_h = cl[-1], ch[-1]
        lo, hi = [], []
        for r in range(len(wl) - 1):
            c_lo, c_hi = cl[r], ch[r]
            r_lo, r_hi = tot_l - cl[r], tot_h - ch[r]
            den_lo = c_lo + r_hi
            lo.append((c_lo << prec) // den_lo if den_lo else 0)
            den_hi = c_hi + r_lo
            hi.append(-((-(c_hi << prec)) // den_hi) if den_hi else 1 << prec)
        return lo, hi
    return bounds


# ----------------------------------------------------------------------------------------------------
# Fast certified bounds at 53 bits, vectorized: exp(-x) from tables of exp(-i 2**-5), exp(-j 2**-15),
# exp(-k 2**-25), exp(-l 2**-35) and x's floor at 2**-45, all in float64 with every rounding bounded.

_TABLE_BITS = ((5, 43 << 5), (15, 1 << 10), (25, 1 << 10), (35, 1 << 10), (45, 1 << 10))
_X_FAST = 43  # 2**53 exp(-43) < 2**-8: such a weight is bounded by [0, exp(-43)]
_U = 2.0**-53  # unit roundoff of float64


@functools.lru_cache(maxsize=1)
def _exp_tables():
    """Float lower and upper bounds of exp(-i / 2**b) for each table (decimal at 80 bits, then one ulp out)."""
    out = []
    for bits, n in _TABLE_BITS:
        lo, hi = exp_neg_bounds([(i, 1 << bits) for i in range(n)], 80)
        lo_f = np.nextafter(np.array([float(v) for v in lo]) / 2.0**80, 0.0)    # float(int) rounds to nearest
        hi_f = np.nextafter(np.array([float(v) for v in hi]) / 2.0**80, np.inf)
        out.append((lo_f, hi_f))
    return out


def exp_neg_float_bounds(xs: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Float64 arrays ``lo <= exp(-x_i) <= hi`` for exact ``x_i = num / den``: relative width about 2**-44 for
    small x, growing with x to about 2**-18 near x = 43 (the tables hold exp(-i 2**-5) to 2**-80 absolute).

    ``a = floor(x 2**45)`` is exact (integers); ``exp(-a 2**-45)`` is a product of one entry of each
    table; a product of n positive floats is within a factor ``(1 +- u)**(n - 1)`` of the exact product
    of its factors (u = 2**-53, round to nearest), and ``exp(-x) >= exp(-a 2**-45) (1 - 2**-45)``.
    """
    top = _X_FAST << 45
    a = np.array([min(top, (num << 45) // den) for num, den in xs], dtype=np.int64)
    far = a >= top
    a = np.where(far, 0, a)
    tables = _exp_tables()
    lo = np.ones(a.size)
    hi = np.ones(a.size)
    for (bits, n), (tlo, thi) in zip(_TABLE_BITS, tables):
        idx = (a >> (45 - bits)) & (n - 1) if bits > 5 else a >> 40
        lo = lo * tlo[idx]
        hi = hi * thi[idx]
    lo = lo * ((1.0 - 2.0**-45) * (1.0 - 16 * _U))  # 6 products and this one: factors (1 +- u)^7 covered
    hi = hi * (1.0 + 16 * _U)
    lo = np.where(far, 0.0, lo)
    hi = np.where(far, math.exp(-_X_FAST) * (1.0 + 2.0**-40), hi)  # math.exp's error is far below 2**-40
    return lo, hi


def exp_neg_bounds53(xs: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """int64 bounds ``lo <= 2**53 exp(-x_i) <= hi`` (coins of permute-and-flip), from the float bounds."""
    wl, wh = exp_neg_float_bounds(xs)
    return np.floor(wl * 2.0**53).astype(np.int64), np.minimum(np.ceil(wh * 2.0**53), 2.0**53).astype(np.int64)


def cdf_bounds53(xs: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """int64 bounds ``lo <= 2**53 B_r <= hi`` of the CDF boundaries for weights exp(-x_i), in float64.

    Sums of m positive floats are within a factor ``1 +- m u / (1 - m u)`` of the exact sums; each bound
    is widened by that factor, then by ``(1 +- 4 u)`` for the division and the scaling.
    """
    wl, wh = exp_neg_float_bounds(xs)
    m = wl.size
    g = 2.0 * m * _U
    cl = np.cumsum(wl)[:-1] * (1.0 - g)
    ch = np.cumsum(wh)[:-1] * (1.0 + g)
    rl = np.cumsum(wl[::-1])[::-1][1:] * (1.0 - g)   # sums of the rest
    rh = np.cumsum(wh[::-1])[::-1][1:] * (1.0 + g)
    b_lo = cl / (cl + rh) * (1.0 - 8 * _U)
    b_hi = np.minimum(ch / (ch + rl) * (1.0 + 8 * _U), 1.0)
    # B_r is nondecreasing in r, so a running max of lower bounds (min of later upper bounds) is still a
    # bound; it makes both arrays sorted, as the binary search of ``choose_slot`` requires, whatever the
    # rounding of the float sums did to neighbouring boundaries.
    lo = np.maximum.accumulate(np.floor(np.maximum(b_lo, 0.0) * 2.0**53).astype(np.int64))
    hi = np.minimum.accumulate(np.ceil(b_hi * 2.0**53).astype(np.int64)[::-1])[::-1]
    return lo, hi
