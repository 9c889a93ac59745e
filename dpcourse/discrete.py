"""Exact discrete noise: discrete Laplace, discrete Gaussian, the geometric mechanism, lattice releases.

Every sampler here uses only exact uniform integer draws (:meth:`numpy.random.Generator.integers`, or
for a release of one value the raw words of the bit generator, :func:`_release_uniforms`) and exact
integer or rational arithmetic, following Canonne, Kamath & Steinke (2020): the probability of every
output is exactly the one the theorem assumes, so a floating-point artefact cannot make an output of
one dataset impossible under its neighbour (the attack of Mironov 2012, chapter "Noise on a real
computer"). The samplers are vectorized: the rejection loops of the paper run over boolean masks of
the samples still undecided, never per sample in Python.

Public names:

* :func:`discrete_laplace`, :func:`discrete_laplace_pmf`: P(k) proportional to exp(-|k|/scale) on Z.
* :func:`discrete_gaussian`, :func:`discrete_gaussian_pmf`: P(k) proportional to exp(-k^2/(2 sigma^2)).
* :func:`discrete_gaussian_delta`: the exact delta(epsilon) of the discrete Gaussian mechanism.
* :func:`geometric_mechanism`: integer query plus discrete Laplace noise, epsilon-DP.
* :func:`laplace_lattice`, :func:`gaussian_lattice`: the power-of-two lattice and the noise that
  :func:`dpcourse.laplace_mechanism` and :func:`dpcourse.gaussian_mechanism` use with ``secure=True``,
  and :func:`lattice_release`, which adds it.

Representation limits. They concern public parameters only, and refuse with ``ValueError`` rather
than sample something else: the exact rational value of a scale must have numerator and denominator
below 2**62, and a release's noise scale must be at most 2**50 steps. Private values are never refused
for their size: integer answers (of any size, Python ints beyond 64 bits included) and lattice steps
are clamped to +-2**61 before any cast, and the int64 sum of a value and its noise is checked
(``OverflowError`` instead of a wrap-around, an event of probability below e^-2048 at the scales
accepted; ``tests/test_discrete_review.py`` and ``tests/test_extreme_magnitudes.py``).
"""

from __future__ import annotations

import functools
import math
import numbers
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ._validation import (MAX_EPSILON, as_rng, check_delta, check_epsilon, check_positive_int, check_real,
                          check_real_array, check_sensitivity, check_shape)

__all__ = [
    "discrete_laplace",
    "discrete_laplace_pmf",
    "discrete_gaussian",
    "discrete_gaussian_pmf",
    "discrete_gaussian_delta",
    "geometric_mechanism",
    "LaplaceLattice",
    "GaussianLattice",
    "laplace_lattice",
    "gaussian_lattice",
    "lattice_release",
]

_TERM_LIMIT = 2**62      # numerator and denominator of a scale, and int64 intermediate values
_LAZY_BITS = 62          # bits compared at a time when a Bernoulli's denominator exceeds int64
_I64_MAX = 2**63 - 1
VALUE_LIMIT = 2**61      # integer answers and lattice steps are clamped to +-VALUE_LIMIT
SCALE_LIMIT = 2**50      # largest discrete Laplace scale a release uses: value + noise then stays in int64


# ----------------------------------------------------------------------------------------------------
# Arguments.


def _as_fraction(value, name: str) -> Fraction:
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


def _check_terms(frac: Fraction, name: str, value) -> tuple[int, int]:
    if frac.numerator >= _TERM_LIMIT or frac.denominator >= _TERM_LIMIT:
        raise ValueError(f"{name}={value!r} has the exact value {frac.numerator}/{frac.denominator}, whose terms do "
                         f"not fit the 62-bit exact sampler; use a value between about 2**-60 and 2**60, or a "
                         f"Fraction with smaller terms")
    return frac.numerator, frac.denominator


_PLAIN = (int, float, Fraction)   # argument types whose exact terms are cached (hashable, never a bool)


@functools.lru_cache(maxsize=1024, typed=True)
def _scale_terms_cached(scale) -> tuple[int, int]:
    return _check_terms(_as_fraction(scale, "scale"), "scale", scale)


def _scale_terms(scale) -> tuple[int, int]:
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


def _shape(size) -> tuple[int, ...]:
    return check_shape(size)  # None, an int or a tuple; at most MAX_SIZE values


def _finish(samples: np.ndarray, shape: tuple[int, ...]):
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
# every step of the loops above (about 0.2-0.4 ms a draw); these functions are the n = 1 case of the
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


def _release_uniforms(gen: np.random.Generator):
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

    def integers(k):
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


def _bern_ratio1(num: int, den: int, lazy: bool, integers) -> bool:
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


def _bern_exp_fraction1(num: int, den: int, big: bool, integers) -> bool:
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


def _bern_exp_minus_one1(integers) -> bool:
    """One Bernoulli(exp(-1)) trial: :func:`_bern_exp_fraction` with gamma = 1.

    Its first step, Bernoulli(1/1), always continues (``integers(1)`` returns 0 without drawing), so
    the loop starts at K = 2: continue while a uniform on {0..K-1} is 0.
    """
    k = 2
    while int(integers(k)) == 0:
        k += 1
    return k % 2 == 1


def _bern_exp1(whole: int, num: int, den: int, big: bool, integers) -> bool:
    """:func:`_bern_exp` for one trial: ``whole`` Bernoulli(exp(-1)) successes, then Bernoulli(exp(-num/den))."""
    j = 0
    while j < whole:
        if not _bern_exp_minus_one1(integers):
            return False
        j += 1
    return _bern_exp_fraction1(num, den, big, integers)


def _dlap1(t: int, s: int, integers) -> int:
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


def _dgauss1(a: int, b: int, integers) -> int:
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


def discrete_laplace(scale, *, size=None, rng=None):
    """Draw from the discrete Laplace distribution: ``P(k) = tanh(1/(2 scale)) exp(-|k| / scale)``, k in Z.

    Exact: only integer draws and exact rational arithmetic (Canonne, Kamath & Steinke 2020, Algorithm 2
    with their Algorithm 1 for the Bernoulli(exp(-gamma)) trials), so every integer has exactly the
    probability above (definition ``def-discrete-laplace`` of the chapter "Noise on a real computer").
    It is the two-sided geometric distribution with ``p = exp(-1/scale)``; its variance is
    ``2 p / (1 - p)^2``.

    Parameters
    ----------
    scale : int, fractions.Fraction or float
        > 0. A float is used at its exact rational value (0.1 means 3602879701896397 / 2**55); numerator
        and denominator of that value must be below 2**62.
    size : None, int or tuple of ints, optional
        Output shape; None for a single int.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness (its ``integers`` method; a single draw uses the raw words of its bit
        generator when that is one of numpy's five, with the same law).

    Returns
    -------
    int or numpy.ndarray of int64

    Examples
    --------
    >>> discrete_laplace(2, size=5, rng=0).dtype
    dtype('int64')
    >>> discrete_laplace(0.0)
    Traceback (most recent call last):
    ...
    ValueError: scale must be > 0, got 0.0
    """
    t, s = _scale_terms(scale)
    shape = _shape(size)
    gen = as_rng(rng)
    if shape == ():
        return _dlap1(t, s, _release_uniforms(gen))
    return _finish(_dlap(t, s, math.prod(shape), gen), shape)


def discrete_laplace_pmf(k, scale):
    """Exact pmf of :func:`discrete_laplace`: ``tanh(1/(2 scale)) exp(-|k| / scale)``, vectorized over k.

    The normalising constant is ``sum_k exp(-|k|/scale) = (1 + e^{-1/scale}) / (1 - e^{-1/scale})``.

    Examples
    --------
    >>> round(discrete_laplace_pmf(0, 1.0), 6)  # tanh(1/2)
    0.462117
    >>> round(float(discrete_laplace_pmf(range(-200, 201), 3.0).sum()), 12)
    1.0
    """
    b = float(_as_fraction(scale, "scale"))
    kk = _check_integers(k, "k")
    out = math.tanh(0.5 / b) * np.exp(-np.abs(kk) / b)
    return float(out) if out.ndim == 0 else out


def _check_integers(k, name: str) -> np.ndarray:
    if isinstance(k, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer or an array of integers, got the bool {k!r}")
    arr = np.asarray(k)
    if arr.dtype == bool or arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            return arr.astype(np.int64)
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


# ----------------------------------------------------------------------------------------------------
# Discrete Gaussian.


def _sigma_squared(sigma) -> Fraction:
    if type(sigma) in _PLAIN:
        return _sigma_squared_cached(sigma)
    return _sigma_squared_exact(sigma)


def _sigma_squared_exact(sigma) -> Fraction:
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


def discrete_gaussian(sigma, *, size=None, rng=None):
    """Draw from the discrete Gaussian: ``P(k) = exp(-k^2 / (2 sigma^2)) / Z``, k in Z.

    Exact: Canonne, Kamath & Steinke (2020), Algorithm 3 (rejection from a discrete Laplace of scale
    floor(sigma) + 1), with only integer draws and exact rational arithmetic
    (definition ``def-discrete-gaussian`` of the chapter "Noise on a real computer"). Its variance is
    below sigma^2.

    Parameters
    ----------
    sigma : int, fractions.Fraction or float
        > 0; a float is used at its exact rational value, whose terms must be below 2**62. Integers and
        Fractions with small terms take the fast int64 path; others use exact Python integers (slower).
    size : None, int or tuple of ints, optional
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    int or numpy.ndarray of int64

    Examples
    --------
    >>> discrete_gaussian(3, size=(2, 2), rng=0).shape
    (2, 2)
    """
    var = _sigma_squared(sigma)
    shape = _shape(size)
    gen = as_rng(rng)
    if shape == ():
        return _dgauss1(var.numerator, var.denominator, _release_uniforms(gen))
    n = math.prod(shape) if shape else 1
    return _finish(_dgauss_from_variance(var, n, gen), shape)


def _dgauss_log_norm(sigma: float) -> float:
    """ln sum_k exp(-k^2 / (2 sigma^2)), exactly to double precision.

    Direct summation for sigma <= 64; above it the Poisson summation formula
    sum_k exp(-k^2/(2 s^2)) = s sqrt(2 pi) sum_m exp(-2 pi^2 s^2 m^2), whose m != 0 terms are < e^-80000.
    """
    if sigma <= 64.0:
        k = np.arange(1, int(40 * sigma) + 2)
        return math.log1p(2.0 * float(np.exp(-(k * k) / (2 * sigma * sigma)).sum()))
    return math.log(sigma) + 0.5 * math.log(2 * math.pi)


def discrete_gaussian_pmf(k, sigma):
    """Exact pmf of :func:`discrete_gaussian`, vectorized over k.

    Examples
    --------
    >>> round(float(discrete_gaussian_pmf(range(-40, 41), 2.5).sum()), 12)
    1.0
    """
    s = float(math.sqrt(_sigma_squared(sigma)))
    kk = _check_integers(k, "k").astype(float)
    out = np.exp(-(kk * kk) / (2 * s * s) - _dgauss_log_norm(s))
    return float(out) if out.ndim == 0 else out


def discrete_gaussian_delta(epsilon, sigma, sensitivity=1) -> float:
    """Exact delta(epsilon) of releasing ``q(x) + Y``, Y discrete Gaussian, for an integer query.

    For neighbours whose answers differ by an integer m with 1 <= |m| <= ``sensitivity``, the release
    is (epsilon, delta)-DP exactly for ``delta = max_m sum_y max(0, P[Y = y] - e^eps P[Y = y - m])``
    (the hockey-stick divergence, lemma ``lem-discrete-gaussian-delta``). The privacy loss at y is
    ``(m^2 - 2 m y) / (2 sigma^2)``, decreasing in y, so the sum runs over y <= m/2 - eps sigma^2 / m;
    every term is positive and is summed as ``P[Y=y] (-expm1(eps - loss(y)))``, so nothing cancels.

    Parameters
    ----------
    epsilon : float
        >= 0.
    sigma : float, int or Fraction
        Noise parameter, > 0 and at most 1e5 (the sum has about 40 sigma terms).
    sensitivity : int
        Largest |q(x) - q(x')| over neighbours, a positive integer (at most 1000).

    Examples
    --------
    >>> d = discrete_gaussian_delta(1.0, 3.0)
    >>> 0 < d < 0.1
    True
    """
    eps = check_real(epsilon, "epsilon", low=0.0)
    s = float(math.sqrt(_sigma_squared(sigma)))
    if s > 1e5:
        raise ValueError(f"sigma must be at most 1e5 for the exact sum, got {s}")
    delta_max = check_positive_int(sensitivity, "sensitivity")
    if delta_max > 1000:
        raise ValueError(f"sensitivity must be at most 1000 for the exact sum, got {delta_max}")
    log_z = _dgauss_log_norm(s)
    best = 0.0
    width = int(40 * s) + 2
    for m in range(1, delta_max + 1):
        if eps * s * s / m - m / 2 > 45 * s + 2:  # every term is below e^-1000 (0 in floating point), or eps is huge
            continue
        top = math.ceil(m / 2 - eps * s * s / m) - 1          # largest y with loss(y) > eps
        y = np.arange(top - width - m, top + 1, dtype=float)
        loss = (m * m - 2 * m * y) / (2 * s * s)
        terms = np.exp(-(y * y) / (2 * s * s) - log_z) * -np.expm1(eps - loss)
        best = max(best, float(terms.sum()))
    return best


# ----------------------------------------------------------------------------------------------------
# The geometric mechanism.


def _check_int_values(value, name: str = "value") -> np.ndarray:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer or an array of integers, got the bool {value!r}")
    arr = np.asarray(value)
    if arr.dtype == bool:
        raise TypeError(f"{name} must hold integers, got booleans (convert them with .astype(int) if meant)")
    if arr.dtype.kind == "f" and arr.size and not isinstance(value, np.ndarray):
        # numpy stores a list such as [2**64 - 1, 3] as float64: look at the Python ints themselves.
        arr = np.asarray(value, dtype=object)
    # Clamp to +-2**61 *before* any cast: an unsigned 2**63 must not wrap to -2**63, and a Python int
    # beyond the 64-bit range (numpy stores it as an object) is clamped like any other. Clamping is
    # 1-Lipschitz, so it keeps the sensitivity and the guarantee; refusing instead would make the error
    # itself depend on the private value (2**64 - 1 released, 2**64 refused).
    if arr.dtype == object:
        flat = arr.ravel().tolist()
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in flat):
            raise TypeError(f"{name} must hold integers only, no bools, floats or other objects (round a "
                            f"real-valued query yourself, or use laplace_mechanism)")
        return np.array([min(max(int(v), -VALUE_LIMIT), VALUE_LIMIT) for v in flat],
                        dtype=np.int64).reshape(arr.shape)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype} (round a real-valued query yourself, or "
                        f"use laplace_mechanism)")
    if arr.dtype.kind == "u":
        arr = np.minimum(arr, np.uint64(VALUE_LIMIT))
    return np.clip(arr.astype(np.int64), -VALUE_LIMIT, VALUE_LIMIT)


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


def _noise_on_values(values: np.ndarray, size, gen, draw) -> np.ndarray:
    """values + noise, with ``size`` independent releases of a scalar value when size is given."""
    shape = values.shape if size is None else _shape(size)
    if size is not None and values.ndim != 0:
        raise ValueError(f"size can only be given for a scalar value, got value of shape {values.shape}")
    n = math.prod(shape) if shape else 1
    noise = draw(n).reshape(shape)
    return _checked_sum(np.broadcast_to(values, shape).astype(np.int64), noise)


def geometric_mechanism(value, sensitivity, epsilon, *, rng=None, size=None):
    """Release an integer query plus two-sided geometric (discrete Laplace) noise of scale sensitivity/epsilon.

    Privacy: if ``value = q(x)`` for an integer-valued query whose l1 sensitivity under the caller's
    neighbouring relation is at most ``sensitivity`` (an integer), the release is epsilon-DP under that
    relation (theorem ``thm-geometric-privacy``; Ghosh, Roughgarden & Sundararajan 2009): the pmf ratio
    at any output is at most exp(|m| epsilon / sensitivity) <= e^epsilon for a shift |m| <= sensitivity.
    The scale is used exactly when its rational value fits the sampler; otherwise it is rounded *up*
    to the next dyadic rational with a 60-bit numerator (more noise, so epsilon still holds exactly).
    Values of any size are released: each is clamped to +-2**61 before any cast (a uint64 or a Python
    int beyond 64 bits included), a 1-Lipschitz map that keeps the sensitivity, so no value is refused
    for its size. Scales above 2**50 are refused (a public choice); below that ``value + noise`` stays
    in int64 except with probability below e^-2048, and the sum is checked (``OverflowError``, never a
    wrap-around).

    Parameters
    ----------
    value : int or array_like of ints
        Exact integer answer(s); values beyond +-2**61 are clamped there.
    sensitivity : int
        l1 sensitivity, a positive integer.
    epsilon : float
        > 0.
    rng : None, int or numpy.random.Generator, optional
    size : None, int or tuple, optional
        Number (shape) of independent releases of a scalar ``value``.

    Returns
    -------
    int or numpy.ndarray of int64

    Examples
    --------
    >>> geometric_mechanism(10, 1, 1e6, rng=0)  # huge epsilon: almost surely no noise
    10
    >>> geometric_mechanism([3, 4], 2, 1.0, rng=1).dtype
    dtype('int64')
    """
    if type(value) is int:   # a Python int: clamped as _check_int_values clamps it, without an array
        values = np.asarray(min(max(value, -VALUE_LIMIT), VALUE_LIMIT), dtype=np.int64)
    else:
        values = _check_int_values(value)
    delta = check_positive_int(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    t, s = _geometric_terms(delta, eps)
    gen = as_rng(rng)
    if size is None and values.ndim == 0:
        return _checked_int_sum(int(values), _dlap1(t, s, _release_uniforms(gen)))
    out = _noise_on_values(values, size, gen, lambda n: _dlap(t, s, n, gen))
    return int(out) if out.ndim == 0 else out


@functools.lru_cache(maxsize=1024)
def _geometric_terms(delta: int, eps: float) -> tuple[int, int]:
    """Exact terms of the scale delta / eps (rounded up to fit the sampler) of :func:`geometric_mechanism`."""
    _check_release_scale(Fraction(delta) / Fraction(eps), "sensitivity / epsilon")  # before any float division
    scale = _round_up(Fraction(delta) / Fraction(eps))
    _check_release_scale(scale, "sensitivity / epsilon")
    return _check_terms(scale, "sensitivity / epsilon", float(scale))


# ----------------------------------------------------------------------------------------------------
# Lattice releases of real-valued queries.


class LaplaceLattice(NamedTuple):
    """How a secure Laplace release is made: see :func:`laplace_lattice`."""

    spacing: float                 # g = 2**exponent
    exponent: int
    lattice_sensitivity: int       # floor(sensitivity / g) + dim, in lattice steps
    lattice_scale: Fraction        # discrete Laplace scale in lattice steps, >= lattice_sensitivity / epsilon
    noise_scale: float             # g * lattice_scale, the effective Laplace scale in the units of the value


class GaussianLattice(NamedTuple):
    """How a secure Gaussian release is made: see :func:`gaussian_lattice`."""

    spacing: float
    exponent: int
    lattice_sensitivity: float     # upper bound on the l2 distance of rounded neighbours, in lattice steps
    lattice_variance: int          # sigma_L^2 of the discrete Gaussian, in lattice steps squared
    rho: float                     # zCDP parameter lattice_sensitivity^2 / (2 lattice_variance)
    noise_sigma: float             # g * sqrt(lattice_variance), in the units of the value


def _power_of_two_at_most(x: float) -> int:
    mantissa, exp = math.frexp(x)      # x = mantissa * 2**exp, mantissa in [0.5, 1)
    return exp - 1


def _check_spacing(spacing, low_exponent: int) -> int:
    g = check_real(spacing, "spacing", low=0.0, low_open=True)
    mantissa, exp = math.frexp(g)
    if mantissa != 0.5:
        raise ValueError(f"spacing must be a power of two (such as 2**-10), got {spacing!r}")
    return exp - 1


def _lattice_exponent(k: int, params: str = "") -> int:
    where = f" ({params})" if params else ""
    if k < -1000:
        raise ValueError(f"the lattice spacing 2**{k} is too fine to represent in floating point{where}: the noise "
                         f"scale is too small for a secure release (raise the sensitivity or lower epsilon)")
    if k > 1000:
        raise ValueError(f"the lattice spacing 2**{k} is too coarse to represent in floating point{where}")
    return k


def laplace_lattice(sensitivity, epsilon, *, dim=1, spacing=None) -> LaplaceLattice:
    """The lattice and the noise of a secure (floating-point-safe) Laplace release.

    The value is rounded to the lattice g Z (g a power of two), and g times discrete Laplace noise of
    scale ``t`` lattice steps is added. Rounding can move neighbours apart: if the true answers differ
    by at most ``sensitivity`` in l1 norm, the rounded ones differ by at most
    ``floor(sensitivity / g) + dim`` lattice steps (lemma ``lem-lattice-rounding``). The noise scale
    charges that: ``t >= (floor(sensitivity / g) + dim) / epsilon``, rounded up to a dyadic rational
    that fits the exact sampler, so the release is epsilon-DP exactly (theorem ``thm-lattice-laplace``).

    By default ``g`` is the largest power of two at most ``max(2**-20 min(b, sensitivity / dim), 2**-40 b)``
    with ``b = sensitivity / epsilon``. The effective scale ``noise_scale`` then exceeds b by a factor
    of at most ``1 + dim g / sensitivity`` (plus the dyadic round-up, below 2**-58 relative when the
    scale is at least one step): at most ``1 + 2**-20`` whenever ``dim <= 2**20 epsilon``, and at most
    ``1 + dim 2**-40 / epsilon`` otherwise (for example ``1 + 7.6e-6`` at dim = 1, epsilon = 1e-7).

    The guarantee is about the value as passed: if it was computed in floating point, its sensitivity
    must bound the computed values, which can move by a rounding error more than the real-arithmetic
    sensitivity (``tests/test_discrete_review.py`` has a ``dp_mean`` pair one lattice step over the charge).

    Parameters
    ----------
    sensitivity : float
        l1 sensitivity of the real-valued query, > 0.
    epsilon : float
        > 0.
    dim : int
        Number of coordinates released, >= 1.
    spacing : float, optional
        Force the lattice spacing: a power of two (a coarser lattice charges more noise).

    Examples
    --------
    >>> lat = laplace_lattice(1.0, 1.0)
    >>> lat.spacing == 2.0**-20, lat.lattice_sensitivity
    (True, 1048577)
    >>> laplace_lattice(1.0, 1.0, spacing=0.5).noise_scale  # floor(1/0.5) + 1 = 3 steps of 0.5
    1.5
    """
    if _plain_args(sensitivity, epsilon, dim, spacing):
        return _laplace_lattice_cached(sensitivity, epsilon, dim, spacing)
    return _laplace_lattice(sensitivity, epsilon, dim, spacing)


def _plain_args(*args) -> bool:
    """Whether every argument is None, an int or a float: hashable, so a lattice can be cached for them."""
    for a in args:
        if not (type(a) is float or type(a) is int or a is None):
            return False
    return True


def _laplace_lattice(sensitivity, epsilon, dim, spacing) -> LaplaceLattice:
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    d = check_positive_int(dim, "dim")
    b = sens / eps
    if spacing is None:
        if not math.isfinite(b) or b == 0.0:
            raise ValueError(f"sensitivity / epsilon = {b} cannot be represented; rescale the query")
        k = _power_of_two_at_most(max(min(b, sens / d) * 2.0**-20, b * 2.0**-40))
    else:
        k = _check_spacing(spacing, -1000)
    params = f"sensitivity={sensitivity!r}, epsilon={epsilon!r}, dim={d}"
    k = _lattice_exponent(k, params)
    g = Fraction(2) ** k
    steps = math.floor(Fraction(sens) / g) + d
    _check_release_scale(Fraction(steps) / Fraction(eps), f"the lattice noise scale ({params})")
    scale = _round_up(Fraction(steps) / Fraction(eps))
    _check_release_scale(scale, f"the lattice noise scale ({params})")
    _check_terms(scale, f"the lattice noise scale ({params})", float(scale))
    return LaplaceLattice(math.ldexp(1.0, k), k, steps, scale, float(scale * g))


# A lattice is a function of the arguments alone (an immutable NamedTuple): cached, typed so that the
# messages of a refusal, which quote the arguments, are those of the uncached call (errors are never cached).
_laplace_lattice_cached = functools.lru_cache(maxsize=1024, typed=True)(_laplace_lattice)


def _zcdp_epsilon(rho: float, delta: float) -> float:
    """Smallest epsilon found for rho-zCDP at delta with the conversion of CKS 2020, Proposition 12.

    For every alpha > 1, rho-zCDP implies (eps, delta)-DP with
    eps = alpha rho + ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1); any alpha gives a valid
    bound, so the bounded search below can only be conservative.
    """
    from scipy import optimize

    def eps_at(log_am1):
        a = 1.0 + math.exp(log_am1)
        return a * rho + math.log1p(-1.0 / a) - (math.log(delta) + math.log(a)) / (a - 1.0)

    res = optimize.minimize_scalar(eps_at, bounds=(math.log(1e-6), math.log(1e8)), method="bounded",
                                   options={"xatol": 1e-9})
    return float(eps_at(float(res.x)))


@functools.lru_cache(maxsize=256)
def _zcdp_rho_for(epsilon: float, delta: float) -> float:
    """A rho (slightly below the largest) whose zCDP-to-DP conversion gives at most epsilon at delta."""
    # Bracket [0, epsilon]: lo is only ever a rho whose conversion was verified. For delta of about 0.3
    # or more the conversion can accept rho = epsilon itself; the result, about epsilon, is then valid
    # but not the largest rho.
    lo, hi = 0.0, epsilon
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if _zcdp_epsilon(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo * (1 - 1e-9)


def gaussian_lattice(l2_sensitivity, epsilon, delta, *, dim=1, spacing=None) -> GaussianLattice:
    """The lattice and the noise of a secure (floating-point-safe) Gaussian release.

    The value is rounded to g Z^dim and g times discrete Gaussian noise (variance parameter sigma_L^2
    lattice steps squared, independent per coordinate) is added. Rounding moves neighbours apart by at
    most ``Delta_L = l2_sensitivity / g + sqrt(dim)`` lattice steps in l2 norm. An *integer* shift of
    l2 norm at most Delta_L of the multivariate discrete Gaussian has Renyi divergence at most
    ``alpha Delta_L^2 / (2 sigma_L^2)`` (Canonne, Kamath & Steinke 2020; lemma ``lem-dgauss-renyi``,
    coordinate by coordinate), i.e. the release is rho-zCDP with rho = Delta_L^2 / (2 sigma_L^2) under
    the relation for which ``l2_sensitivity`` was computed; sigma_L^2 is the smallest integer for which
    the zCDP-to-(epsilon, delta) conversion (CKS 2020, Proposition 12; item 4 of ``lem-comp-rdp``, at
    the best order found numerically, any order being valid) gives at most epsilon at delta, with a
    relative margin of 1e-9 on rho against rounding (theorem ``thm-lattice-gaussian``). The zCDP route
    costs noise against the analytic calibration of the continuous Gaussian: 3-30 % for
    0.01 <= epsilon <= 10 and 1e-12 <= delta <= 1e-3 (most for large delta and small epsilon; 8.5 % at
    epsilon = 1, delta = 1e-5), the price of a bound that covers every shift and every dimension.
    ``epsilon`` must lie in (0, 1e300] (``MAX_EPSILON`` of :mod:`dpcourse._validation`: beyond, the conversion
    overflows); an epsilon so small that the zCDP parameter underflows (5e-324) is refused by name too.

    Examples
    --------
    >>> lat = gaussian_lattice(1.0, 1.0, 1e-5)
    >>> 1.0 < lat.noise_sigma / 3.73 < 1.3   # analytic continuous sigma is about 3.73 here
    True
    """
    if _plain_args(l2_sensitivity, epsilon, delta, dim, spacing):
        return _gaussian_lattice_cached(l2_sensitivity, epsilon, delta, dim, spacing)
    return _gaussian_lattice(l2_sensitivity, epsilon, delta, dim, spacing)


def _gaussian_lattice(l2_sensitivity, epsilon, delta, dim, spacing) -> GaussianLattice:
    sens = check_sensitivity(l2_sensitivity, "l2_sensitivity")
    eps = check_real(epsilon, "epsilon", low=0.0, low_open=True, high=MAX_EPSILON)  # beyond, the conversion overflows
    dl = check_delta(delta, allow_zero=False)
    d = check_positive_int(dim, "dim")
    rho_target = _zcdp_rho_for(eps, dl)
    if not rho_target > 0.0:
        raise ValueError(f"epsilon={epsilon!r} is too small for the zCDP conversion at delta={delta!r} (the zCDP "
                         "parameter underflows to 0); use a larger epsilon")
    sigma_ref = sens / math.sqrt(2 * rho_target)           # continuous sigma for that rho, no rounding
    if spacing is None:
        k = _power_of_two_at_most(min(sigma_ref * 2.0**-12, sens / math.sqrt(d) * 2.0**-10))
    else:
        k = _check_spacing(spacing, -1000)
    params = f"l2_sensitivity={l2_sensitivity!r}, epsilon={epsilon!r}, delta={delta!r}, dim={d}"
    k = _lattice_exponent(k, params)
    g = math.ldexp(1.0, k)
    # Upper bound on the rounded l2 distance, rounded up twice to absorb the float error of sqrt and +.
    steps = math.nextafter(math.nextafter(sens / g + math.sqrt(d), math.inf), math.inf)
    variance = math.ceil(steps * steps / (2 * rho_target) * (1 + 1e-12))
    if variance >= 2**60:
        raise ValueError(f"the lattice is too fine for this noise level ({params}): the noise would exceed 2**30 "
                         f"lattice steps; pass a coarser spacing, or a larger epsilon or l2_sensitivity")
    rho = steps * steps / (2 * variance)
    return GaussianLattice(g, k, steps, variance, rho, g * math.sqrt(variance))


_gaussian_lattice_cached = functools.lru_cache(maxsize=1024, typed=True)(_gaussian_lattice)


def lattice_release(values: np.ndarray, exponent: int, noise: np.ndarray) -> np.ndarray:
    """``(round(values / 2**exponent) + noise) * 2**exponent``: the last step of a secure release.

    ``values / g`` is exact in floating point for a power of two g (an underflow cannot change the
    nearest integer); rounding to the nearest integer (ties to even) moves each coordinate by at most
    half a step. ``noise`` is an int64 array of lattice steps. The result is an exact multiple of g (for
    |steps| >= 2**53 the conversion to float rounds, a deterministic function of the exact integer,
    i.e. post-processing). Values beyond +-2**61 lattice steps are clamped there: clamping is
    1-Lipschitz, so the guarantee holds, whereas refusing would make the error itself depend on the
    private value. The int64 sum raises OverflowError rather than wrapping around.
    """
    steps = _checked_sum(_lattice_steps(values, exponent), np.asarray(noise, dtype=np.int64))
    return np.ldexp(steps.astype(np.float64), exponent)


def _lattice_steps(values, exponent: int) -> np.ndarray:
    """``round(values / 2**exponent)`` as int64, clamped to +-VALUE_LIMIT steps (a finite value of any size).

    The clamp is 1-Lipschitz, so neighbours whose values differ by at most s differ by at most
    ``floor(s / 2**exponent) + 1`` steps after it, as before it (lemma ``lem-lattice-rounding``); a value
    whose quotient overflows to +-inf is clamped too. Shared by :func:`lattice_release` and
    :func:`dpcourse.sparse_vector`.
    """
    with np.errstate(over="ignore"):
        scaled = np.ldexp(np.asarray(values, dtype=np.float64), -exponent)
    return np.rint(np.clip(scaled, -float(VALUE_LIMIT), float(VALUE_LIMIT))).astype(np.int64)


def secure_laplace(values: np.ndarray, sensitivity: float, epsilon: float, gen) -> np.ndarray:
    """Secure Laplace release of a float array (called by :func:`dpcourse.laplace_mechanism`)."""
    lat = laplace_lattice(sensitivity, epsilon, dim=max(1, values.size))
    t, s = lat.lattice_scale.numerator, lat.lattice_scale.denominator
    return lattice_release(values, lat.exponent, _dlap(t, s, values.size, gen).reshape(values.shape))


def plain_scalar(value):
    """``value`` as a float if it is a finite Python float or a Python int of magnitude at most 2**53, else None.

    Such a value is released by the one-draw paths (:func:`secure_laplace1`, :func:`secure_gaussian1`),
    exactly as the array paths would release ``np.asarray(value, dtype=float)``; anything else (an array,
    a numpy scalar, NaN, a larger int) takes the array path and its checks.
    """
    if type(value) is float:
        return value if math.isfinite(value) else None
    if type(value) is int and -2**53 <= value <= 2**53:
        return float(value)
    return None


_VALUE_LIMIT_F = float(VALUE_LIMIT)


def _release1(x: float, exponent: int, noise: int) -> float:
    """:func:`lattice_release` of one float: the same clamp, rounding (ties to even) and int64 check.

    ``math.ldexp`` is the C ``ldexp`` numpy calls too, ``round`` of a float rounds ties to even as
    ``np.rint`` does, and ``float`` of an int rounds to nearest as the int64 cast does. Where a Python
    float operation would raise instead of overflowing (a result beyond the float range, or an int64
    overflow), the array path decides, with the noise already drawn.
    """
    try:
        steps = round(min(max(math.ldexp(x, -exponent), -_VALUE_LIMIT_F), _VALUE_LIMIT_F))
        return math.ldexp(float(_checked_int_sum(steps, noise)), exponent)
    except OverflowError:
        return float(lattice_release(np.asarray(x), exponent, np.asarray(noise, dtype=np.int64)))


def secure_laplace1(x: float, sensitivity: float, epsilon: float, gen) -> float:
    """:func:`secure_laplace` of one float (validated by the caller): the same lattice and law (and uniforms)."""
    lat = laplace_lattice(sensitivity, epsilon)
    scale = lat.lattice_scale
    return _release1(x, lat.exponent, _dlap1(scale.numerator, scale.denominator, _release_uniforms(gen)))


def secure_gaussian1(x: float, lat: GaussianLattice, gen) -> float:
    """:func:`secure_gaussian` of one float on its lattice ``lat`` (dim = 1, parameters validated by the caller)."""
    return _release1(x, lat.exponent, _dgauss1(lat.lattice_variance, 1, _release_uniforms(gen)))


def secure_laplace_draws(value: float, sensitivity: float, epsilon: float, shape: tuple, gen) -> np.ndarray:
    """Independent secure Laplace releases of one value, each on the lattice of a single release (dim = 1).

    The same distribution as ``prod(shape)`` separate calls of :func:`secure_laplace` on the scalar
    ``value``, drawn in one vectorized pass (used by ``dp_mean(..., size=...)``).
    """
    lat = laplace_lattice(sensitivity, epsilon, dim=1)
    t, s = lat.lattice_scale.numerator, lat.lattice_scale.denominator
    n = int(np.prod(shape, dtype=np.int64))
    return lattice_release(np.full(shape, float(value)), lat.exponent, _dlap(t, s, n, gen).reshape(shape))


def secure_gaussian(values: np.ndarray, l2_sensitivity: float, epsilon: float, delta: float, gen) -> np.ndarray:
    """Secure Gaussian release of a float array (called by :func:`dpcourse.gaussian_mechanism`)."""
    lat = gaussian_lattice(l2_sensitivity, epsilon, delta, dim=max(1, values.size))
    noise = _dgauss_from_variance(Fraction(lat.lattice_variance), values.size, gen).reshape(values.shape)
    return lattice_release(values, lat.exponent, noise)
