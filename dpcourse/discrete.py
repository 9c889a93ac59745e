"""Exact discrete noise: the discrete Laplace and discrete Gaussian distributions, and the geometric mechanism.

Every sampler here draws only exact uniform integers and uses exact integer or rational arithmetic
(Canonne, Kamath & Steinke 2020): the probability of every output is exactly the one the theorem
assumes, so a floating-point artefact cannot make an output of one dataset impossible under its
neighbour (the attack of Mironov 2012, chapter "Noise on a real computer").

Public names:

* :func:`discrete_laplace`, :func:`discrete_laplace_pmf`: P(k) proportional to exp(-|k|/scale) on Z.
* :func:`discrete_gaussian`, :func:`discrete_gaussian_pmf`: P(k) proportional to exp(-k^2/(2 sigma^2)).
* :func:`discrete_gaussian_delta`: the exact delta(epsilon) of the discrete Gaussian mechanism.
* :func:`geometric_mechanism`: integer query plus discrete Laplace noise, epsilon-DP.

Where the other topics of this module now live (every name below is still importable from here):

* the exact sampling kernel (Bernoulli(exp(-gamma)) trials, the vectorized and one-draw discrete Laplace
  and Gaussian samplers, the raw-word uniforms of one release, the dyadic round-up, the checked int64
  sums, ``VALUE_LIMIT`` and ``SCALE_LIMIT``): :mod:`dpcourse._sampling`;
* the lattice releases of real values (:func:`laplace_lattice`, :func:`gaussian_lattice`,
  :func:`lattice_release`, :class:`LaplaceLattice`, :class:`GaussianLattice`, and the private helpers of
  :func:`dpcourse.laplace_mechanism` and :func:`dpcourse.gaussian_mechanism`): :mod:`dpcourse.lattice`.

Representation limits concern public parameters only, and refuse with ``ValueError``: the exact
rational value of a scale must have numerator and denominator below 2**62, and a release's noise scale
must be at most 2**50 steps. Private integer answers of any size are clamped to +-2**61 before any cast,
and the int64 sum of a value and its noise is checked (``OverflowError``, never a wrap-around).
"""

from __future__ import annotations

import functools
import math
import numbers

from fractions import Fraction
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from ._sampling import (_I64_MAX, _LAZY_BITS, _ONE, _PLAIN, _TERM_LIMIT, _WORD_BITS, SCALE_LIMIT,  # noqa: F401
                        VALUE_LIMIT, _affine_floor, _as_fraction, _bern_exp, _bern_exp1, _bern_exp_fraction,
                        _bern_exp_fraction1, _bern_exp_minus_one, _bern_exp_minus_one1, _bern_ratio, _bern_ratio1,
                        _check_release_scale, _check_terms, _checked_int_sum, _checked_sum, _dgauss1,
                        _dgauss_from_variance, _dgauss_vector, _dlap, _dlap1, _dlap_vector, _finish,
                        _geometric_exp_minus_one, _release_uniforms, _round_up, _scale_terms, _scale_terms_cached,
                        _shape, _sigma_squared, _sigma_squared_cached, _sigma_squared_exact)
from ._validation import as_rng, check_epsilon, check_positive_int, check_real
# The lattice releases, re-exported under their old names (the secure helpers are private now: ``_secure_*``).
from .lattice import (GaussianLattice, LaplaceLattice, _VALUE_LIMIT_F, _check_spacing,  # noqa: F401
                      _gaussian_lattice, _gaussian_lattice_cached, _laplace_lattice, _laplace_lattice_cached,
                      _lattice_exponent, _lattice_steps, _plain_args, _plain_scalar, _power_of_two_at_most,
                      _release1, _secure_gaussian, _secure_gaussian1, _secure_laplace, _secure_laplace1,
                      _secure_laplace_draws, _zcdp_epsilon, _zcdp_rho_for, gaussian_lattice, laplace_lattice,
                      lattice_release)

__all__ = [
    "discrete_laplace",
    "discrete_laplace_pmf",
    "discrete_gaussian",
    "discrete_gaussian_pmf",
    "discrete_gaussian_delta",
    "geometric_mechanism",
    # re-exported from dpcourse.lattice
    "LaplaceLattice",
    "GaussianLattice",
    "laplace_lattice",
    "gaussian_lattice",
    "lattice_release",
]


# ----------------------------------------------------------------------------------------------------
# Discrete Laplace.


def discrete_laplace(scale: float | Fraction, *, size: int | tuple[int, ...] | None = None,
                     rng: int | np.random.Generator | None = None) -> int | npt.NDArray[np.int64]:
    """Draw from the discrete Laplace distribution: ``P(k) = tanh(1/(2 scale)) exp(-|k| / scale)``, k in Z.

    Guarantee: exact. Only uniform integer draws and exact rational arithmetic are used (Canonne, Kamath
    & Steinke 2020, Algorithms 1-2; lemma ``lem-dlap-sampler``), so every integer has exactly the
    probability of definition ``def-discrete-laplace`` for every numpy bit generator. Noise, not a
    release: added to an integer query of l1 sensitivity Delta under a neighbouring relation (add_remove
    or replace_one) with ``scale = Delta / epsilon``, it gives the epsilon-DP geometric mechanism
    (:func:`geometric_mechanism`, theorem ``thm-geometric-privacy``). It is the two-sided geometric
    distribution with ``p = exp(-1/scale)``, of variance ``2 p / (1 - p)^2``.

    Parameters
    ----------
    scale : int, fractions.Fraction or float
        > 0. A float is used at its exact rational value (0.1 means 3602879701896397 / 2**55); numerator
        and denominator of that value must be below 2**62 (``ValueError`` otherwise).
    size : None, int or tuple of ints, optional
        Output shape; None for a single int.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness (its ``integers`` method; a single draw uses the raw words of its bit
        generator when that is one of numpy's five, with the same law).

    Returns
    -------
    int or numpy.ndarray of int64
        One draw (``size=None``), or an array of independent draws of shape ``size``.

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


def discrete_laplace_pmf(k: npt.ArrayLike, scale: float | Fraction) -> float | npt.NDArray[np.float64]:
    """Exact pmf of :func:`discrete_laplace`: ``tanh(1/(2 scale)) exp(-|k| / scale)``, vectorized over k.

    Definition ``def-discrete-laplace``: the normalising constant is
    ``sum_k exp(-|k|/scale) = (1 + e^{-1/scale}) / (1 - e^{-1/scale})``. Evaluated in floating point.

    Parameters
    ----------
    k : int or array_like of ints
        The integers at which to evaluate (floats that are whole numbers are accepted).
    scale : int, fractions.Fraction or float
        > 0.

    Returns
    -------
    float or numpy.ndarray of float64
        P(k), of the shape of ``k``.

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


def _check_integers(k: Any, name: str) -> np.ndarray:
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



def discrete_gaussian(sigma: float | Fraction, *, size: int | tuple[int, ...] | None = None,
                      rng: int | np.random.Generator | None = None) -> int | npt.NDArray[np.int64]:
    """Draw from the discrete Gaussian: ``P(k) = exp(-k^2 / (2 sigma^2)) / Z``, k in Z.

    Guarantee: exact. Rejection from a discrete Laplace of scale floor(sigma) + 1 (Canonne, Kamath &
    Steinke 2020, Algorithm 3; lemma ``lem-dgauss-rejection``) with only uniform integer draws and exact
    rational arithmetic, so every integer has exactly the probability of definition
    ``def-discrete-gaussian``. Noise, not a release: added to an integer query of l2 sensitivity Delta
    under a neighbouring relation (add_remove or replace_one), it gives (Delta^2 / (2 sigma^2))-zCDP
    (lemma ``lem-dgauss-renyi``; exact delta: :func:`discrete_gaussian_delta`). Its variance is below
    sigma^2.

    Parameters
    ----------
    sigma : int, fractions.Fraction or float
        > 0; a float is used at its exact rational value, whose terms must be below 2**62.
    size : None, int or tuple of ints, optional
        Output shape; None for a single int.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness (as for :func:`discrete_laplace`).

    Returns
    -------
    int or numpy.ndarray of int64
        One draw (``size=None``), or an array of independent draws of shape ``size``.

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


def discrete_gaussian_pmf(k: npt.ArrayLike, sigma: float | Fraction) -> float | npt.NDArray[np.float64]:
    """Exact pmf of :func:`discrete_gaussian`, vectorized over k.

    Definition ``def-discrete-gaussian``; the normalising constant is summed directly for sigma <= 64 and
    by the Poisson summation formula above, to double precision. Evaluated in floating point.

    Parameters
    ----------
    k : int or array_like of ints
        The integers at which to evaluate.
    sigma : int, fractions.Fraction or float
        > 0.

    Returns
    -------
    float or numpy.ndarray of float64
        P(k), of the shape of ``k``.

    Examples
    --------
    >>> round(float(discrete_gaussian_pmf(range(-40, 41), 2.5).sum()), 12)
    1.0
    """
    s = float(math.sqrt(_sigma_squared(sigma)))
    kk = _check_integers(k, "k").astype(float)
    out = np.exp(-(kk * kk) / (2 * s * s) - _dgauss_log_norm(s))
    return float(out) if out.ndim == 0 else out


def discrete_gaussian_delta(epsilon: float, sigma: float | Fraction, sensitivity: int = 1) -> float:
    """Exact delta(epsilon) of releasing ``q(x) + Y``, Y discrete Gaussian, for an integer query.

    Guarantee: for neighbours (under the relation for which ``sensitivity`` bounds |q(x) - q(x')|:
    add_remove or replace_one) whose answers differ by an integer m with 1 <= |m| <= ``sensitivity``, the
    release is (epsilon, delta)-DP exactly for ``delta = max_m sum_y max(0, P[Y = y] - e^eps P[Y = y - m])``
    (the hockey-stick divergence, lemma ``lem-discrete-gaussian-delta``), computed in floating point with
    positive terms only (nothing cancels).

    Parameters
    ----------
    epsilon : float
        >= 0.
    sigma : float, int or Fraction
        Noise parameter, > 0 and at most 1e5 (the sum has about 40 sigma terms).
    sensitivity : int
        Largest |q(x) - q(x')| over neighbours, a positive integer (at most 1000).

    Returns
    -------
    float
        delta, in [0, 1].

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


def _check_int_values(value: Any, name: str = "value") -> np.ndarray:
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



def _noise_on_values(values: np.ndarray, size: int | tuple[int, ...] | None, gen: np.random.Generator,
                     draw: Callable[[int], np.ndarray]) -> np.ndarray:
    """values + noise, with ``size`` independent releases of a scalar value when size is given."""
    shape = values.shape if size is None else _shape(size)
    if size is not None and values.ndim != 0:
        raise ValueError(f"size can only be given for a scalar value, got value of shape {values.shape}")
    n = math.prod(shape) if shape else 1
    noise = draw(n).reshape(shape)
    return _checked_sum(np.broadcast_to(values, shape).astype(np.int64), noise)


def geometric_mechanism(value: int | npt.ArrayLike, sensitivity: int, epsilon: float, *,
                        rng: int | np.random.Generator | None = None,
                        size: int | tuple[int, ...] | None = None) -> int | npt.NDArray[np.int64]:
    """Release an integer query plus two-sided geometric (discrete Laplace) noise of scale sensitivity/epsilon.

    Guarantee: epsilon-DP exactly (theorem ``thm-geometric-privacy``; Ghosh, Roughgarden & Sundararajan
    2009) under the neighbouring relation (add_remove or replace_one, record or user level) for which
    ``sensitivity`` bounds the l1 sensitivity of the integer query ``value = q(x)``; the noise is exact
    (:func:`discrete_laplace`), its scale rounded *up* to a dyadic rational with a 60-bit numerator
    where the exact one does not fit (more noise). Values of any size are released: each is clamped to
    +-2**61 before any cast (1-Lipschitz, so the sensitivity holds); the int64 sum of value and noise is
    checked (``OverflowError`` instead of a wrap-around, probability below e^-2048).

    Parameters
    ----------
    value : int or array_like of ints
        Exact integer answer(s), private; values beyond +-2**61 are clamped there.
    sensitivity : int
        l1 sensitivity, a positive integer.
    epsilon : float
        > 0; a scale sensitivity / epsilon above 2**50 is refused with ``ValueError``.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.
    size : None, int or tuple, optional
        Number (shape) of independent releases of a scalar ``value``.

    Returns
    -------
    int or numpy.ndarray of int64
        The noisy answer(s), of the shape of ``value`` (or ``size``).

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
