"""Lattice releases of real values: the floating-point-safe Laplace and Gaussian mechanisms.

A real value is rounded to the lattice g Z (g a power of two), exact discrete Laplace or discrete Gaussian
noise (from :mod:`dpcourse._sampling`) is added in lattice steps, and the result is multiplied back by g.
The rounding is charged to the sensitivity (lemma ``lem-lattice-rounding``), so the release keeps its
stated guarantee exactly (theorems ``thm-lattice-laplace`` and ``thm-lattice-gaussian`` of the chapter
"Noise on a real computer") and every lattice point is possible under every input.

Public names: :class:`LaplaceLattice`, :class:`GaussianLattice`, :func:`laplace_lattice`,
:func:`gaussian_lattice` and :func:`lattice_release`. :func:`dpcourse.laplace_mechanism`,
:func:`dpcourse.dp_mean` and :func:`dpcourse.gaussian_mechanism` release through the private helpers
``_secure_laplace``, ``_secure_laplace1``, ``_secure_laplace_draws``, ``_secure_gaussian`` and
``_secure_gaussian1`` (their arguments validated by the caller). All of these names are also importable
from :mod:`dpcourse.discrete`, where they lived before.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ._sampling import (VALUE_LIMIT, _check_release_scale, _check_terms, _checked_int_sum, _checked_sum,
                        _dgauss1, _dgauss_from_variance, _dlap, _dlap1, _release_uniforms, _round_up)
from ._validation import (MAX_EPSILON, check_delta, check_epsilon, check_positive_int, check_real,
                          check_sensitivity)

__all__ = [
    "LaplaceLattice",
    "GaussianLattice",
    "laplace_lattice",
    "gaussian_lattice",
    "lattice_release",
]


# ----------------------------------------------------------------------------------------------------
# Lattice releases of real-valued queries.


class LaplaceLattice(NamedTuple):
    """How a floating-point-safe Laplace release is made (theorem ``thm-lattice-laplace``): see :func:`laplace_lattice`.

    Parameters
    ----------
    spacing : float
        The lattice spacing g = 2**exponent.
    exponent : int
        log2 of the spacing.
    lattice_sensitivity : int
        ``floor(sensitivity / g) + dim``: the charge for rounding, in lattice steps.
    lattice_scale : fractions.Fraction
        The exact discrete Laplace scale in steps, at least ``lattice_sensitivity / epsilon``.
    noise_scale : float
        ``g * lattice_scale``: the effective Laplace scale in the units of the value.

    Examples
    --------
    >>> LaplaceLattice(0.5, -1, 3, Fraction(3), 1.5).noise_scale
    1.5
    """

    spacing: float                 # g = 2**exponent
    exponent: int
    lattice_sensitivity: int       # floor(sensitivity / g) + dim, in lattice steps
    lattice_scale: Fraction        # discrete Laplace scale in lattice steps, >= lattice_sensitivity / epsilon
    noise_scale: float             # g * lattice_scale, the effective Laplace scale in the units of the value


class GaussianLattice(NamedTuple):
    """How a floating-point-safe Gaussian release is made (``thm-lattice-gaussian``): see :func:`gaussian_lattice`.

    Its guarantee is rho-zCDP under the relation of the query's l2 sensitivity (add_remove or replace_one).

    Parameters
    ----------
    spacing : float
        The lattice spacing g = 2**exponent.
    exponent : int
        log2 of the spacing.
    lattice_sensitivity : float
        Upper bound on the l2 distance of rounded neighbours, in lattice steps.
    lattice_variance : int
        sigma_L^2 of the discrete Gaussian, in lattice steps squared.
    rho : float
        The zCDP parameter ``lattice_sensitivity^2 / (2 lattice_variance)``.
    noise_sigma : float
        ``g * sqrt(lattice_variance)``, in the units of the value.

    Examples
    --------
    >>> GaussianLattice(1.0, 0, 2.0, 8, 0.25, 2.0**1.5).rho
    0.25
    """

    spacing: float
    exponent: int
    lattice_sensitivity: float     # upper bound on the l2 distance of rounded neighbours, in lattice steps
    lattice_variance: int          # sigma_L^2 of the discrete Gaussian, in lattice steps squared
    rho: float                     # zCDP parameter lattice_sensitivity^2 / (2 lattice_variance)
    noise_sigma: float             # g * sqrt(lattice_variance), in the units of the value


def _power_of_two_at_most(x: float) -> int:
    mantissa, exp = math.frexp(x)      # x = mantissa * 2**exp, mantissa in [0.5, 1)
    return exp - 1


def _check_spacing(spacing: float, low_exponent: int) -> int:
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


def laplace_lattice(sensitivity: float, epsilon: float, *, dim: int = 1,
                    spacing: float | None = None) -> LaplaceLattice:
    """The lattice and the noise scale of a floating-point-safe Laplace release.

    Guarantee: a value rounded to the lattice g Z (g a power of two) plus g times discrete Laplace noise
    of ``lattice_scale`` steps (:func:`lattice_release`) is epsilon-DP exactly (theorem
    ``thm-lattice-laplace``): rounding moves neighbours apart by at most ``floor(sensitivity / g) + dim``
    steps (lemma ``lem-lattice-rounding``), and the scale charges that, rounded up to a dyadic rational
    that fits the exact sampler. Relation: the one under which ``sensitivity`` bounds the l1 distance of
    the query's values as computed (add_remove or replace_one, at the record or the user level).

    By default g is the largest power of two at most ``max(2**-20 min(b, sensitivity / dim), 2**-40 b)``
    with ``b = sensitivity / epsilon``; ``noise_scale`` then exceeds b by a factor of at most
    ``1 + dim g / sensitivity`` (``1 + 2**-20`` whenever ``dim <= 2**20 epsilon``).

    Parameters
    ----------
    sensitivity : float
        l1 sensitivity of the real-valued query, > 0 (``ValueError`` otherwise).
    epsilon : float
        > 0.
    dim : int
        Number of coordinates released, >= 1.
    spacing : float, optional
        Force the lattice spacing: a power of two (a coarser lattice charges more noise).

    Returns
    -------
    LaplaceLattice
        ``(spacing, exponent, lattice_sensitivity, lattice_scale, noise_scale)``: g, log2 g, the charge in
        steps, the exact discrete Laplace scale in steps (a Fraction), and ``g * lattice_scale``. A lattice
        finer than 2**-1000, a noise scale above 2**50 steps or one whose exact terms do not fit 62 bits
        is refused with ``ValueError``.

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


def _plain_args(*args: object) -> bool:
    """Whether every argument is None, an int or a float: hashable, so a lattice can be cached for them."""
    for a in args:
        if not (type(a) is float or type(a) is int or a is None):
            return False
    return True


def _laplace_lattice(sensitivity: float, epsilon: float, dim: int, spacing: float | None) -> LaplaceLattice:
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

    def eps_at(log_am1: float) -> float:
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


def gaussian_lattice(l2_sensitivity: float, epsilon: float, delta: float, *, dim: int = 1,
                     spacing: float | None = None) -> GaussianLattice:
    """The lattice and the noise variance of a floating-point-safe Gaussian release.

    Guarantee: a value rounded to g Z^dim plus g times independent discrete Gaussian noise of variance
    parameter ``lattice_variance`` steps squared is rho-zCDP with ``rho = Delta_L^2 / (2 sigma_L^2)``,
    ``Delta_L = l2_sensitivity / g + sqrt(dim)`` (theorem ``thm-lattice-gaussian``, lemma
    ``lem-dgauss-renyi``), hence (epsilon, delta)-DP: sigma_L^2 is the smallest integer for which the
    zCDP-to-DP conversion of Canonne, Kamath & Steinke (2020, Proposition 12; item 4 of ``lem-comp-rdp``)
    gives at most epsilon at delta, with a relative margin of 1e-9 on rho. The zCDP route costs noise
    against the analytic continuous calibration (8.5 % at epsilon = 1, delta = 1e-5). Relation: the one
    under which ``l2_sensitivity`` bounds the l2 distance of the query's values (add_remove or
    replace_one).

    Parameters
    ----------
    l2_sensitivity : float
        l2 sensitivity of the real-valued query, > 0.
    epsilon : float
        In (0, 1e300] (``MAX_EPSILON``); an epsilon so small that rho underflows is refused by name.
    delta : float
        In (0, 1).
    dim : int
        Number of coordinates released, >= 1.
    spacing : float, optional
        Force the lattice spacing: a power of two.

    Returns
    -------
    GaussianLattice
        ``(spacing, exponent, lattice_sensitivity, lattice_variance, rho, noise_sigma)``; a lattice so
        fine that the variance would reach 2**60 steps squared is refused with ``ValueError``.

    Examples
    --------
    >>> lat = gaussian_lattice(1.0, 1.0, 1e-5)
    >>> 1.0 < lat.noise_sigma / 3.73 < 1.3   # analytic continuous sigma is about 3.73 here
    True
    """
    if _plain_args(l2_sensitivity, epsilon, delta, dim, spacing):
        return _gaussian_lattice_cached(l2_sensitivity, epsilon, delta, dim, spacing)
    return _gaussian_lattice(l2_sensitivity, epsilon, delta, dim, spacing)


def _gaussian_lattice(l2_sensitivity: float, epsilon: float, delta: float, dim: int,
                      spacing: float | None) -> GaussianLattice:
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


def lattice_release(values: npt.ArrayLike, exponent: int, noise: npt.ArrayLike) -> np.ndarray:
    """Round ``values`` to the lattice 2**exponent Z, add ``noise`` steps, and scale back: a release's last step.

    Guarantee: with ``noise`` drawn as :func:`laplace_lattice` or :func:`gaussian_lattice` prescribe for
    the relation of the query (add_remove or replace_one), the result is the release of theorem
    ``thm-lattice-laplace`` or ``thm-lattice-gaussian``. Dividing by a power of two is exact; rounding
    (ties to even) moves each coordinate by at most half a step. Values beyond +-2**61 steps are
    clamped there (1-Lipschitz: the guarantee holds); the int64 sum raises ``OverflowError`` rather
    than wrap around.

    Parameters
    ----------
    values : array_like of float
        The private values, finite (NaN or +-inf: ``ValueError``, naming no value; impute or clip first).
    exponent : int
        log2 of the lattice spacing, in [-1074, 1023].
    noise : array_like of int
        Noise in lattice steps, an integer array of the shape of ``values``.

    Returns
    -------
    numpy.ndarray of float64
        Exact multiples of 2**exponent, of the shape of ``values``.

    Examples
    --------
    >>> lattice_release([0.3, 1.3], -2, [0, 1]).tolist()   # 0.3 -> 1 step, 1.3 -> 5 steps, + noise
    [0.25, 1.5]
    """
    values, noise = _check_release_args(values, exponent, noise)
    steps = _checked_sum(_lattice_steps(values, exponent), np.asarray(noise, dtype=np.int64))
    return np.ldexp(steps.astype(np.float64), exponent)


def _check_release_args(values: npt.ArrayLike, exponent: int,
                        noise: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The arguments of :func:`lattice_release`, checked: finite float values, an exponent, integer noise."""
    if isinstance(exponent, (bool, np.bool_)) or not isinstance(exponent, (int, np.integer)):
        raise TypeError(f"exponent must be an int, got {type(exponent).__name__} {exponent!r}")
    if not -1074 <= exponent <= 1023:
        raise ValueError(f"exponent must lie in [-1074, 1023] (2**exponent a float), got {exponent!r}")
    vals = np.asarray(values)
    if vals.dtype == bool or vals.dtype.kind not in "iuf":
        raise TypeError(f"values must be real numbers, got dtype {vals.dtype}")
    vals = vals.astype(np.float64, copy=False)
    if not np.isfinite(vals).all():
        raise ValueError("values must be finite (no NaN or inf): impute or clip them before the release")
    steps = np.asarray(noise)
    if steps.dtype == bool or steps.dtype.kind not in "iu":
        raise TypeError(f"noise must hold integers (lattice steps), got dtype {steps.dtype}")
    if steps.shape != vals.shape:
        raise ValueError(f"noise must have the shape of values, {vals.shape}, got {steps.shape}")
    return vals, steps


def _lattice_steps(values: npt.ArrayLike, exponent: int) -> np.ndarray:
    """``round(values / 2**exponent)`` as int64, clamped to +-VALUE_LIMIT steps (a finite value of any size).

    The clamp is 1-Lipschitz, so neighbours whose values differ by at most s differ by at most
    ``floor(s / 2**exponent) + 1`` steps after it, as before it (lemma ``lem-lattice-rounding``); a value
    whose quotient overflows to +-inf is clamped too. Shared by :func:`lattice_release` and
    :func:`dpcourse.sparse_vector`.
    """
    with np.errstate(over="ignore"):
        scaled = np.ldexp(np.asarray(values, dtype=np.float64), -exponent)
    return np.rint(np.clip(scaled, -float(VALUE_LIMIT), float(VALUE_LIMIT))).astype(np.int64)


def _secure_laplace(values: np.ndarray, sensitivity: float, epsilon: float, gen: np.random.Generator) -> np.ndarray:
    """Secure Laplace release of a float array (called by :func:`dpcourse.laplace_mechanism`)."""
    lat = laplace_lattice(sensitivity, epsilon, dim=max(1, values.size))
    t, s = lat.lattice_scale.numerator, lat.lattice_scale.denominator
    return lattice_release(values, lat.exponent, _dlap(t, s, values.size, gen).reshape(values.shape))


def _plain_scalar(value: object) -> float | None:
    """``value`` as a float if it is a finite Python float or a Python int of magnitude at most 2**53, else None.

    Such a value is released by the one-draw paths (:func:`_secure_laplace1`, :func:`_secure_gaussian1`),
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


def _secure_laplace1(x: float, sensitivity: float, epsilon: float, gen: np.random.Generator) -> float:
    """:func:`_secure_laplace` of one float (validated by the caller): the same lattice and law (and uniforms)."""
    lat = laplace_lattice(sensitivity, epsilon)
    scale = lat.lattice_scale
    return _release1(x, lat.exponent, _dlap1(scale.numerator, scale.denominator, _release_uniforms(gen)))


def _secure_gaussian1(x: float, lat: GaussianLattice, gen: np.random.Generator) -> float:
    """:func:`_secure_gaussian` of one float on its lattice ``lat`` (dim = 1, parameters validated by the caller)."""
    return _release1(x, lat.exponent, _dgauss1(lat.lattice_variance, 1, _release_uniforms(gen)))


def _secure_laplace_draws(value: float, sensitivity: float, epsilon: float, shape: tuple[int, ...],
                          gen: np.random.Generator) -> np.ndarray:
    """Independent secure Laplace releases of one value, each on the lattice of a single release (dim = 1).

    The same distribution as ``prod(shape)`` separate calls of :func:`_secure_laplace` on the scalar
    ``value``, drawn in one vectorized pass (used by ``dp_mean(..., size=...)``).
    """
    lat = laplace_lattice(sensitivity, epsilon, dim=1)
    t, s = lat.lattice_scale.numerator, lat.lattice_scale.denominator
    n = int(np.prod(shape, dtype=np.int64))
    return lattice_release(np.full(shape, float(value)), lat.exponent, _dlap(t, s, n, gen).reshape(shape))


def _secure_gaussian(values: np.ndarray, l2_sensitivity: float, epsilon: float, delta: float,
                     gen: np.random.Generator) -> np.ndarray:
    """Secure Gaussian release of a float array (called by :func:`dpcourse.gaussian_mechanism`)."""
    lat = gaussian_lattice(l2_sensitivity, epsilon, delta, dim=max(1, values.size))
    noise = _dgauss_from_variance(Fraction(lat.lattice_variance), values.size, gen).reshape(values.shape)
    return lattice_release(values, lat.exponent, noise)
