"""The exact sampling kernel of :mod:`dpcourse` (private): exact Bernoulli trials, discrete Laplace and Gaussian.

Every function here uses only exact uniform integer draws (:meth:`numpy.random.Generator.integers`, or for
a release of one value the raw words of the bit generator, :func:`_release_uniforms`) and exact integer or
rational arithmetic, following Canonne, Kamath & Steinke (2020): the probability of every output is
exactly the one the theorem assumes (chapter "Noise on a real computer", lemmas ``lem-dlap-sampler``,
``lem-dgauss-rejection`` and ``noise-lem-word-uniform``). The samplers are vectorized: the rejection loops
of the paper run over boolean masks of the samples still undecided, never per sample in Python; the
one-draw functions (``_dlap1``, ``_dgauss1``, ...) are the n = 1 case on Python integers.

The public samplers built on this kernel are in :mod:`dpcourse.discrete` (discrete Laplace, discrete
Gaussian, the geometric mechanism) and :mod:`dpcourse.lattice` (lattice releases of real values); other
modules (continual, selection, quantiles, svt, inference) import the kernel from here.

Representation limits (public parameters only): the exact rational value of a scale must have numerator
and denominator below 2**62 (``_TERM_LIMIT``), and a release's noise scale must be at most
``SCALE_LIMIT`` = 2**50 steps; integer answers and lattice steps are clamped to ``+-VALUE_LIMIT`` = 2**61
before any cast, and the int64 sum of a value and its noise is checked (:func:`_checked_sum`).
"""

from __future__ import annotations

import functools
import math
import numbers
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from ._validation import check_real, check_shape

#: ``integers(k)``: a source of independent exact uniforms on {0, ..., k-1} (see :func:`_release_uniforms`).
Uniforms = Callable[[int], int]

_TERM_LIMIT = 2**62      # numerator and denominator of a scale, and int64 intermediate values
_LAZY_BITS = 62          # bits compared at a time when a Bernoulli's denominator exceeds int64
_I64_MAX = 2**63 - 1
VALUE_LIMIT = 2**61      # integer answers and lattice steps are clamped to +-VALUE_LIMIT
SCALE_LIMIT = 2**50      # largest discrete Laplace scale a release uses: value + noise then stays in int64


# ----------------------------------------------------------------------------------------------------
# Arguments.


def _as_fraction(value: Any, name: str) -> Fraction:
    """The exact rational value of a positive int, Fraction or float (a float is taken exactly)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a positive number (int, Fraction or float), got the bool {value!r}")
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]
    if isinstance(value, Fraction):
        frac = value
    elif isinstance(value, numbers.Integral):
        frac = Fraction(int(value))
    elif isinstance(value, numbers.Real):
        frac = Fraction(check_real(value, name))  # refuses NaN and +-inf
    else:
        raise TypeError(f"{name} must be a positive number (int, Fraction or float), got {type(value).__name__} "
                        f"{value!r}")
    if frac <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return frac


def _check_terms(frac: Fraction, name: str, value: Any) -> tuple[int, int]:
    if frac.numerator >= _TERM_LIMIT or frac.denominator >= _TERM_LIMIT:
        raise ValueError(f"{name}={value!r} has the exact value {frac.numerator}/{frac.denominator}, whose terms do "
                         f"not fit the 62-bit exact sampler; use a value between about 2**-60 and 2**60, or a "
                         f"Fraction with smaller terms")
    return frac.numerator, frac.denominator


_PLAIN = (int, float, Fraction)   # argument types whose exact terms are cached (hashable, never a bool)


@functools.lru_cache(maxsize=1024, typed=True)
def _scale_terms_cached(scale: int | float | Fraction) -> tuple[int, int]:
    return _check_terms(_as_fraction(scale, "scale"), "scale", scale)


def _scale_terms(scale: Any) -> tuple[int, int]:
    """``(numerator, denominator)`` of a discrete Laplace scale, checked; cached for ints, floats, Fractions."""
    if type(scale) in _PLAIN:
        return _scale_terms_cached(scale)   # typed: 1 and 1.0 are separate entries; errors are never cached
    return _check_terms(_as_fraction(scale, "scale"), "scale", scale)


def _round_up(frac: Fraction, bits: int = 60) -> Fraction:
    """The smallest dyadic rational >= ``frac`` whose numerator has at most ``bits`` bits (exact if it fits).

    Used where more noise is always safe (a Laplace scale), so the release keeps its stated epsilon
    exactly; the absolute increase is below 2**-(bits - bitlength(ceil(frac))), i.e. below 2**-58
    relative for ``frac >= 1``.
    """
    if frac.numerator < _TERM_LIMIT and frac.denominator < _TERM_LIMIT:
        return frac
    whole = math.ceil(frac)
    if whole.bit_length() > bits:
        raise ValueError(f"the noise scale {float(frac):.3g} is too large for the 62-bit exact sampler")
    k = bits - whole.bit_length()
    return Fraction(-((-frac.numerator << k) // frac.denominator), 1 << k)  # ceil(frac * 2**k) / 2**k


def _shape(size: int | tuple[int, ...] | None) -> tuple[int, ...]:
    return check_shape(size)  # None, an int or a tuple; at most MAX_SIZE values


def _finish(samples: np.ndarray, shape: tuple[int, ...]) -> int | np.ndarray:
    return int(samples[0]) if shape == () else samples.reshape(shape)


# ----------------------------------------------------------------------------------------------------
# Exact Bernoulli trials from integer draws (Canonne, Kamath & Steinke 2020, Algorithm 1).


def _bern_ratio(num: np.ndarray, den: int, gen: np.random.Generator) -> np.ndarray:
    """Bernoulli(num[i] / den) for each i, exactly; 0 <= num <= den, den >= 1 a Python int.

    When ``den`` fits an int64 one uniform integer in [0, den) decides. Otherwise the uniform is drawn
    lazily, 62 bits at a time, against the binary expansion of num/den: the first block decides unless
    it ties (probability 2**-62), and a tie recurses on the remainder, so the probability is exact.
    """
    if den <= _I64_MAX and num.dtype != object:
        return gen.integers(0, den, size=num.size) < num
    nums = num.astype(object)
    scaled = nums * (1 << _LAZY_BITS)
    head = scaled // den                      # floor(num * 2**62 / den) <= 2**62
    u = gen.integers(0, 1 << _LAZY_BITS, size=num.size)
    head64 = head.astype(np.int64)
    out = u < head64
    ties = np.flatnonzero(u == head64)
    if ties.size:
        rest = (scaled[ties] - head[ties] * den).astype(object)  # remainder < den
        out[ties] = _bern_ratio(rest, den, gen)
    return out


def _bern_exp_fraction(num: np.ndarray, den: int, gen: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num[i]/den)) for 0 <= num <= den (gamma in [0, 1]): CKS Algorithm 1.

    K = 1; repeat: draw A ~ Bernoulli(gamma / K); stop if A = 0, else K += 1. Return 1 iff K is odd.
    P(K > k) = gamma^k / k!, so P(K odd) = sum_k (-gamma)^k / k! = exp(-gamma).
    """
    n = num.size
    result = np.empty(n, dtype=bool)
    active = np.arange(n)
    a_num = num
    k = 1
    while active.size:
        if num.dtype != object and den * k <= _I64_MAX:
            cont = gen.integers(0, den * k, size=active.size) < a_num   # Bernoulli(num / (den k))
        else:
            cont = _bern_ratio(a_num, den, gen)
            if k > 1:
                cont &= gen.integers(0, k, size=active.size) == 0       # independent Bernoulli(1/k)
        result[active[~cont]] = (k % 2 == 1)
        active = active[cont]
        a_num = a_num[cont]
        k += 1
    return result


_ONE = np.ones(1, dtype=np.int64)


def _bern_exp_minus_one(n: int, gen: np.random.Generator) -> np.ndarray:
    """n independent Bernoulli(exp(-1)) trials."""
    return _bern_exp_fraction(np.broadcast_to(_ONE, (n,)), 1, gen)


def _bern_exp(whole: np.ndarray, num: np.ndarray, den: int, gen: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-(whole[i] + num[i]/den))) for integers whole >= 0 and 0 <= num < den.

    exp(-(w + f)) = exp(-1)^w * exp(-f): w independent Bernoulli(exp(-1)) trials that must all succeed,
    and one Bernoulli(exp(-f)) (CKS 2020, Algorithm 1 for gamma > 1).
    """
    ok = np.ones(whole.size, dtype=bool)
    idx = np.flatnonzero(whole > 0)
    j = 0
    while idx.size:
        success = _bern_exp_minus_one(idx.size, gen)
        ok[idx[~success]] = False
        idx = idx[success]
        j += 1
        idx = idx[whole[idx] > j]
    idx = np.flatnonzero(ok)
    ok[idx] = _bern_exp_fraction(num[idx], den, gen)
    return ok


def _geometric_exp_minus_one(n: int, gen: np.random.Generator) -> np.ndarray:
    """V with P(V >= k) = e^-k: the number of Bernoulli(exp(-1)) successes before the first failure."""
    v = np.zeros(n, dtype=np.int64)
    idx = np.arange(n)
    while idx.size:
        success = _bern_exp_minus_one(idx.size, gen)
        idx = idx[success]
        v[idx] += 1
    return v


# ----------------------------------------------------------------------------------------------------
# Discrete Laplace.


def _affine_floor(u: np.ndarray, v: np.ndarray, t: int, s: int) -> np.ndarray:
    """floor((u + t v) / s) exactly, as int64 (Python integers where int64 would overflow)."""
    vmax = int(v.max()) if v.size else 0
    if t * (vmax + 1) <= _I64_MAX:
        return (u + t * v) // s
    exact = (u.astype(object) + t * v.astype(object)) // s
    if exact.size and max(abs(int(exact.max())), abs(int(exact.min()))) > _I64_MAX:
        raise OverflowError("a discrete Laplace sample exceeded the int64 range; use a smaller scale")
    return exact.astype(np.int64)


def _dlap(t: int, s: int, n: int, gen: np.random.Generator) -> np.ndarray:
    """n samples of the discrete Laplace of scale t/s: one at a time (:func:`_dlap1`) for n = 1."""
    if n == 1:
        return np.array([_dlap1(t, s, _release_uniforms(gen))], dtype=np.int64)
    return _dlap_vector(t, s, n, gen)


def _dlap_vector(t: int, s: int, n: int, gen: np.random.Generator) -> np.ndarray:
    """n samples with P(k) proportional to exp(-|k| s / t) (scale t/s): CKS 2020, Algorithm 2.

    U ~ uniform{0..t-1}; keep U with probability exp(-U/t); V ~ geometric with P(V >= k) = e^-k;
    X = U + t V is then geometric with P(X = x) proportional to exp(-x / t); Y = floor(X / s) is
    geometric with P(Y = y) proportional to exp(-y s / t); a fair sign B, rejecting (B = 1, Y = 0)
    so that 0 is not counted twice, gives (1 - 2B) Y.
    """
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        u = gen.integers(0, t, size=todo.size)
        keep = _bern_exp_fraction(u, t, gen)
        rejected = todo[~keep]
        idx, u = todo[keep], u[keep]
        y = _affine_floor(u, _geometric_exp_minus_one(idx.size, gen), t, s)
        negative = gen.integers(0, 2, size=idx.size) == 1
        minus_zero = negative & (y == 0)
        ok = ~minus_zero
        out[idx[ok]] = np.where(negative[ok], -y[ok], y[ok])
        todo = np.concatenate([rejected, idx[minus_zero]])
    return out


# ----------------------------------------------------------------------------------------------------
# One draw at a time. A scalar release would pay numpy's per-call overhead on arrays of one element in
# every step of the loops above (``benchmarks/bench_per_call.py``); these functions are the n = 1 case of the
# samplers above, step by step, on Python integers: the same algorithm (CKS 2020, Algorithms 1-3), the
# same uniform integers asked for in the same order, from a source ``integers(k)`` that returns an
# independent exact uniform on {0, ..., k-1}. Given ``Generator.integers`` they make the very calls of the
# vectorized code for n = 1 (``tests/test_fast_paths.py``; :func:`_dgauss_vector` relies on it for its
# rounds with one sample left). A release of one value passes the faster :func:`_release_uniforms` instead
# (lemma ``noise-lem-word-uniform``), so its law is the same, its random stream is not. Two calls the
# vectorized code makes are skipped because they draw nothing: ``integers(0, 1)`` (a range of one value)
# and draws of size 0. ``integers(k)`` is ``integers(0, k)``, one argument cheaper.

# Bits per ``random_raw()`` word of numpy's bit generators; MT19937's words are 32-bit. Looked up by exact
# type: a subclass (which could change ``random_raw``) or another bit generator uses ``Generator.integers``.
_WORD_BITS = {np.random.PCG64: 64, np.random.PCG64DXSM: 64, np.random.Philox: 64, np.random.SFC64: 64,
              np.random.MT19937: 32}


def _release_uniforms(gen: np.random.Generator) -> Uniforms:
    """``integers(k)``: independent exact uniforms on {0, ..., k-1} for one release (lemma ``noise-lem-word-uniform``).

    Built on ``gen.bit_generator.random_raw()``, whose words are i.i.d. uniform on [0, 2**w) (w = 64, or
    32 for MT19937): their bits, kept in a buffer, are i.i.d. fair coins. A draw takes the next
    b = bitlength(k - 1) bits as an integer u, uniform on [0, 2**b), and returns u if u < k, else tries
    again: rejection sampling, exact, accepting with probability k / 2**b > 1/2. The buffer belongs to
    this one release (its leftover bits are discarded), so nothing is carried from one call to the next
    and a seeded release is reproducible. Any other bit generator gets ``gen.integers`` (the same law).
    k < 1 raises :class:`ValueError`, as ``gen.integers(0)`` does (the loop would otherwise never end).
    """
    width = _WORD_BITS.get(type(gen.bit_generator))
    if width is None:
        return gen.integers
    raw = gen.bit_generator.random_raw
    buf = 0      # the unused bits, ``have`` of them, lowest first
    have = 0

    def integers(k: int) -> int:
        nonlocal buf, have
        b = (k - 1).bit_length()
        while True:
            while have < b:
                buf |= raw() << have
                have += width
            u = buf & ((1 << b) - 1)
            buf >>= b
            have -= b
            if u < k:
                return u
            if k < 1:     # checked only after a rejection (free for k >= 1): an empty range would never end
                raise ValueError(f"a uniform draw needs a range k >= 1, got k={k}")

    return integers


def _bern_ratio1(num: int, den: int, lazy: bool, integers: Uniforms) -> bool:
    """:func:`_bern_ratio` for one trial; ``lazy`` where it takes the 62-bit path (den or num beyond int64)."""
    if not lazy:
        return int(integers(den)) < num
    while True:
        scaled = num << _LAZY_BITS
        head = scaled // den
        u = int(integers(1 << _LAZY_BITS))
        if u != head:
            return u < head
        num = scaled - head * den             # a tie: recurse on the remainder, as the vectorized code does


def _bern_exp_fraction1(num: int, den: int, big: bool, integers: Uniforms) -> bool:
    """:func:`_bern_exp_fraction` for one trial; ``big`` where the numerator is held as a Python integer."""
    k = 1
    while True:
        if not big and den * k <= _I64_MAX:
            cont = int(integers(den * k)) < num
        else:
            cont = _bern_ratio1(num, den, big or den > _I64_MAX, integers)
            if k > 1:
                cont = (int(integers(k)) == 0) and cont       # drawn whatever cont is, as vectorized
        if not cont:
            return k % 2 == 1
        k += 1


def _bern_exp_minus_one1(integers: Uniforms) -> bool:
    """One Bernoulli(exp(-1)) trial: :func:`_bern_exp_fraction` with gamma = 1.

    Its first step, Bernoulli(1/1), always continues (``integers(1)`` returns 0 without drawing), so
    the loop starts at K = 2: continue while a uniform on {0..K-1} is 0.
    """
    k = 2
    while int(integers(k)) == 0:
        k += 1
    return k % 2 == 1


def _bern_exp1(whole: int, num: int, den: int, big: bool, integers: Uniforms) -> bool:
    """:func:`_bern_exp` for one trial: ``whole`` Bernoulli(exp(-1)) successes, then Bernoulli(exp(-num/den))."""
    j = 0
    while j < whole:
        if not _bern_exp_minus_one1(integers):
            return False
        j += 1
    return _bern_exp_fraction1(num, den, big, integers)


def _dlap1(t: int, s: int, integers: Uniforms) -> int:
    """One discrete Laplace draw of scale t/s: :func:`_dlap_vector` for n = 1, uniforms from ``integers``."""
    while True:
        u = int(integers(t))
        if not _bern_exp_fraction1(u, t, False, integers):
            continue
        v = 0
        while _bern_exp_minus_one1(integers):
            v += 1
        y = (u + t * v) // s
        if y > _I64_MAX:
            raise OverflowError("a discrete Laplace sample exceeded the int64 range; use a smaller scale")
        if int(integers(2)) == 1:
            if y == 0:
                continue                      # -0: rejected, so that 0 is not counted twice
            return -y
        return y


def _dgauss1(a: int, b: int, integers: Uniforms) -> int:
    """One discrete Gaussian draw, sigma^2 = a/b: :func:`_dgauss_vector` for n = 1, uniforms from ``integers``."""
    t = math.isqrt(a // b) + 1
    den = 2 * a * t * t * b
    tb = t * b
    limit = ((1 << 31) - 1 + a) // tb if den <= _I64_MAX and a < (1 << 31) else -1
    while True:
        y = _dlap1(t, 1, integers)
        ay = abs(y)
        u = ay * tb - a
        sq = u * u
        whole = sq // den
        if _bern_exp1(whole, sq - whole * den, den, ay > limit, integers):
            return y


# ----------------------------------------------------------------------------------------------------
# Discrete Gaussian.


def _sigma_squared(sigma: Any) -> Fraction:
    if type(sigma) in _PLAIN:
        return _sigma_squared_cached(sigma)
    return _sigma_squared_exact(sigma)


def _sigma_squared_exact(sigma: Any) -> Fraction:
    frac = _as_fraction(sigma, "sigma")
    if frac.numerator >= _TERM_LIMIT or frac.denominator >= _TERM_LIMIT:
        raise ValueError(f"sigma={sigma!r} has the exact value {frac}, whose terms do not fit 62 bits; use a "
                         f"value between about 2**-30 and 2**30 or a Fraction with smaller terms")
    return frac * frac


_sigma_squared_cached = functools.lru_cache(maxsize=1024, typed=True)(_sigma_squared_exact)


def _dgauss_from_variance(var: Fraction, n: int, gen: np.random.Generator) -> np.ndarray:
    """n samples of the discrete Gaussian with sigma^2 = ``var``: one at a time (:func:`_dgauss1`) for n = 1."""
    if n == 1:
        return np.array([_dgauss1(var.numerator, var.denominator, _release_uniforms(gen))], dtype=np.int64)
    return _dgauss_vector(var, n, gen)


def _dgauss_vector(var: Fraction, n: int, gen: np.random.Generator) -> np.ndarray:
    """n samples of the discrete Gaussian with variance parameter ``var`` = sigma^2: CKS 2020, Algorithm 3.

    t = floor(sigma) + 1; Y ~ discrete Laplace of scale t; accept Y with probability
    exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)). Writing sigma^2 = A/B, the exponent is
    (|Y| t B - A)^2 / (2 A t^2 B), a ratio of integers.
    """
    a, b = var.numerator, var.denominator
    t = math.isqrt(a // b) + 1          # floor(sqrt(a/b)) = isqrt(floor(a/b))
    den = 2 * a * t * t * b
    tb = t * b
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        if todo.size == 1:              # the draws of _dlap_vector(t, 1, 1, gen), without its array overhead
            y = np.array([_dlap1(t, 1, gen.integers)], dtype=np.int64)
        else:
            y = _dlap_vector(t, 1, todo.size, gen)
        ay = np.abs(y)
        accept = np.empty(todo.size, dtype=bool)
        if den <= _I64_MAX and a < (1 << 31):
            small = ay <= ((1 << 31) - 1 + a) // tb
        else:
            small = np.zeros(todo.size, dtype=bool)
        if small.any():                 # int64 path: |u| < 2**31 so u^2 < 2**62
            u = ay[small] * tb - a
            sq = u * u
            whole = sq // den
            accept[small] = _bern_exp(whole, sq - whole * den, den, gen)
        big = ~small
        if big.any():                   # exact Python integers
            u = ay[big].astype(object) * tb - a
            sq = u * u
            whole = sq // den
            accept[big] = _bern_exp(whole, (sq - whole * den).astype(object), den, gen)
        out[todo[accept]] = y[accept]
        todo = todo[~accept]
    return out


# ----------------------------------------------------------------------------------------------------
# Checked int64 arithmetic of a release (value + noise).


def _check_release_scale(scale: Fraction, what: str) -> None:
    """Refuse a noise scale above SCALE_LIMIT steps (the choice depends only on public parameters).

    With |value| <= 2**61 and a scale of at most 2**50, value + noise leaves int64 only if
    |noise| > 2**62, an event of probability below e^-2048; :func:`_checked_sum` raises then.
    """
    if scale > SCALE_LIMIT:
        approx = f"{float(scale):.3g}" if scale < 2**1000 else \
            f"about 2**{scale.numerator.bit_length() - scale.denominator.bit_length()}"  # beyond float
        raise ValueError(f"{what} = {approx} steps exceeds 2**50: the noise would swamp any answer and "
                         f"could leave the 64-bit range; use a larger epsilon or a coarser unit")


def _checked_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b for int64 arrays, raising OverflowError instead of wrapping around."""
    out = a + b
    wrapped = ((a >= 0) == (b >= 0)) & ((out >= 0) != (a >= 0))
    if np.any(wrapped):
        raise OverflowError("a release left the int64 range (probability below e^-2048 for supported scales)")
    return out


def _checked_int_sum(a: int, b: int) -> int:
    """a + b for two int64 values (Python ints), raising OverflowError as :func:`_checked_sum` does."""
    out = a + b
    if not -_I64_MAX - 1 <= out <= _I64_MAX:
        raise OverflowError("a release left the int64 range (probability below e^-2048 for supported scales)")
    return out
