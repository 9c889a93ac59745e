"""Confidence intervals from differentially private releases (chapter "Private statistical inference").

Each interval function releases a few noisy statistics with the course's exact samplers, then turns that
release into an interval without touching the data again (post-processing, theorem ``inf-thm-post``). It
returns a :class:`PrivateInterval` holding the interval, the released numbers it was computed from, the
public noise scales, and the privacy events of the release, which a caller's
:class:`dpcourse.PrivacyAccountant` can compose (or pass ``accountant=`` and the events are composed into it).
Every release is pure epsilon-DP as computed (exact samplers: :func:`dpcourse.laplace_mechanism`'s lattice
and the secure :func:`dpcourse.exponential_mechanism`), so its events are pure-DP events with no delta.

Neighbouring relation throughout: **replace one record**, with the number of records ``n`` public (for
two groups: each group's size public, a record replaced inside its group). Coverage is over both the
sampling of the records from a population and the privacy noise (definition ``inf-def-coverage``); the
target is the *clamped* population parameter (the mean of the values clamped to the public bounds), which
equals the true one only if the bounds hold the whole population.

Private data: a finite value of any size (a Python int beyond the float range too) is clamped to the
public bounds (to [0, 1] for a proportion) before anything else, so a value never decides whether a
release happens. NaN and +-inf break the documented input contract ("finite numbers") and are refused
with a message that holds nothing computed from the data; the guarantees are stated for datasets of
finite values (CONTRIBUTING, "Private data").

Methods:

* ``"noise_aware"`` (default): for a mean, the half-width is the ``level`` quantile of ``|S + L|``, with ``S``
  the normal approximation of the sampling error and ``L`` the Laplace noise of the release, computed exactly
  (theorem ``inf-thm-convolution``); for a difference of two means, by a parametric bootstrap of that
  error law (Ferrando, Wang and Sheldon 2022); for a proportion, by inverting the exact law of the noisy
  count (binomial plus the release's discrete Laplace noise, theorem ``inf-thm-proportion-exact``); for a
  quantile, ranks widened by the normal-plus-Laplace law in rank units, each end moved one grid step out and
  the two ends put in increasing order.
* ``"naive"``: the textbook interval computed from the noisy statistics as if they were exact. It
  under-covers when the privacy noise is not small against the sampling error.

Where each holds (measured by ``benchmarks/bench_inference.py`` and the chapter): the proportion interval
covers at least ``level`` for every n, p and epsilon (0/1 data). The mean and difference intervals are
asymptotic (central limit theorem): on the penguins the mean interval covers 94-97% from n = 50 up at every
epsilon from 0.1 to 30, but below 95% at n = 10 to 30 when the noise is small (epsilon >= 10; 0.937 at
n = 10, epsilon = 30, where the textbook t interval covers 0.94), and skewed data need larger n (0/1 data with
p = 0.05: 0.76 at n = 20 and about 0.90 at n = 100, epsilon = 10: use :func:`proportion_interval` for 0/1
data). The quantile interval is approximate (the gaps between the data); its coverage is measured with the exact law
of the release, and it holds only where the population has a positive, roughly flat density around the
quantile at the scale of the interval (unimodal data, skewed ones too): on a bimodal population whose
median lies in a valley it under-covers badly (see :func:`quantile_interval`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq
from scipy.special import bdtr, gammaln, log_ndtr, ndtri, poch, stdtrit

from ._validation import (as_rng, check_binary_array, check_bounds, check_choice, check_epsilon, check_flag,
                          check_positive_int, check_probability, check_real, check_real_array, check_size)
from .accounting import LaplaceEvent, PrivacyAccountant, PureDPEvent
from .discrete import _dlap, laplace_lattice, lattice_release
from .laplace import _clamped_mean_query, _clamped_sum
from .quantiles import _check_resolution, _grid
from .selection import exponential_mechanism

__all__ = ["PrivateInterval", "mean_interval", "proportion_interval", "difference_of_means_interval",
           "quantile_interval", "noise_aware_halfwidth", "interval_coverage", "mean_interval_coverage",
           "proportion_interval_coverage", "difference_interval_coverage", "quantile_interval_coverage",
           "IntervalCoverage", "MethodCoverage", "population_parameter",
           "course_populations", "coverage_grid", "INTERVAL_METHODS", "MEAN_SPLIT", "BOOTSTRAP_DRAWS",
           "PENGUIN_BOUNDS", "PENGUIN_SPREAD", "QUANTILE_RESOLUTION", "QUANTILE_MAX_RESOLUTION", "MIN_NOISE_SCALE",
           "MEAN_BOUNDS_WIDTH"]

INTERVAL_METHODS = ("noise_aware", "naive")
#: Share of epsilon spent on the clamped mean; the rest goes to the clamped second moment (theorem ``inf-thm-mean-privacy``).
MEAN_SPLIT = 0.8
#: Draws of the parametric bootstrap of :func:`difference_of_means_interval`.
BOOTSTRAP_DRAWS = 4000
#: Largest width ``upper - lower`` of the bounds of a mean interval (2**500, about 3e150): the second moment's
#: bound ``((upper - lower)/2)^2`` must stay finite and within ``WIDE_BOUNDS`` (wider bounds are refused by name).
MEAN_BOUNDS_WIDTH = 2.0**500
#: Smallest Laplace scale of a released statistic of a mean interval (2**-960): below it the lattice of the
#: exact sampler (2**-40 of the scale or coarser) would fall under 2**-1000, outside the float range the sampler
#: represents. Bounds too narrow for n and epsilon (or an epsilon too large) are refused by name.
MIN_NOISE_SCALE = 2.0**-960
#: Default grid of :func:`quantile_interval`: ``resolution`` steps between the bounds.
QUANTILE_RESOLUTION = 2**16
#: Largest grid of :func:`quantile_interval` (its exact sampler costs about 0.3 s per end at 2**18 points).
QUANTILE_MAX_RESOLUTION = 2**18
_BISECTION_STEPS = 60
_NEGLIGIBLE = 1e-6
_MAX_REPS = 20000
#: Half-width, in noise scales, of the window of counts summed exactly by the proportion interval's law
#: (the terms outside it move a probability by less than 2 e^-40, about 8.5e-18).
_TAIL_SCALES = 40.0


@dataclass(frozen=True)
class PrivateInterval:
    """An interval computed from a DP release, with the release and its privacy cost.

    Attributes
    ----------
    low, high : float
        The interval.
    estimate : float
        The point estimate (from the release).
    level : float
        The nominal coverage.
    method : str
        ``"noise_aware"`` or ``"naive"``.
    release : dict
        The released noisy statistics (all that the interval was computed from, with the public ``n``).
    noise : dict
        The public Laplace scales of the released statistics.
    events : tuple of DpEvent
        The privacy events of the release (compose them into a :class:`dpcourse.PrivacyAccountant`).
    epsilon : float
        Total epsilon of the release (pure DP, replace-one relation): the sum of the events' epsilons (less
        than the budget for a quantile interval whose end is a public bound and released nothing).
    relation : str
        The neighbouring relation of the guarantee.
    """

    low: float
    high: float
    estimate: float
    level: float
    method: str
    release: dict = field(repr=False)
    noise: dict = field(repr=False)
    events: tuple = field(repr=False)
    epsilon: float = 0.0
    relation: str = "replace_one"

    @property
    def width(self) -> float:
        return self.high - self.low


# ----------------------------------------------------------------------------------------------------
# The law of sampling error plus Laplace noise.


def _laplace_normal_tail(c, sigma, b):
    """``P(|S + L| > c)`` for ``S ~ N(0, sigma^2)``, ``L ~ Laplace(b)`` independent (arrays broadcast; c >= 0).

    ``P(S + L > c) = Phi(-c/s) + (1/2) e^{s^2/(2b^2)} [e^{-c/b} Phi(c/s - s/b) - e^{c/b} Phi(-c/s - s/b)]``
    (theorem ``inf-thm-convolution``), evaluated in log space; the law is symmetric, so the two-sided tail is twice it.
    """
    c, sigma, b = np.broadcast_arrays(np.asarray(c, float), np.asarray(sigma, float), np.asarray(b, float))
    # A part below _NEGLIGIBLE times the other is dropped (the formula would subtract overflowing terms);
    # that moves the half-width by a relative 1e-5 at most. Each case is evaluated on its own entries only.
    no_norm = (sigma == 0) | (sigma < _NEGLIGIBLE * b)
    no_lap = ~no_norm & ((b == 0) | (b < _NEGLIGIBLE * sigma))
    mixed = ~(no_norm | no_lap)
    out = np.empty(c.shape)
    with np.errstate(all="ignore"):
        cl, bl = c[no_norm], b[no_norm]
        out[no_norm] = np.where(bl > 0, np.exp(-cl / np.where(bl > 0, bl, 1.0)), (cl == 0).astype(float))
        out[no_lap] = 2.0 * np.exp(log_ndtr(-c[no_lap] / sigma[no_lap]))
        c, s, bb = c[mixed], sigma[mixed], b[mixed]
        half = s * s / (2.0 * bb * bb)
        a = np.exp(-c / bb + half + log_ndtr(c / s - s / bb))
        d = np.exp(c / bb + half + log_ndtr(-c / s - s / bb))
        both = np.clip(2.0 * np.exp(log_ndtr(-c / s)) + (a - d), 0.0, 1.0)
        out[mixed] = both
    return out


def noise_aware_halfwidth(sigma: ArrayLike, b: ArrayLike, level: float = 0.95) -> float | np.ndarray:
    """The half-width ``c`` with ``P(|S + L| <= c) = level``, ``S ~ N(0, sigma^2)``, ``L ~ Laplace(b)``.

    Theorem ``inf-thm-convolution`` gives the law of ``S + L`` in closed form; ``c`` is found by bisection
    (vectorized: ``sigma`` and ``b`` may be arrays) between 0 and the union bound
    ``sigma z_{1-(1-level)/4} + b ln(2/(1-level))`` (Brent's method for one pair). With ``b = 0`` it is ``sigma z_{(1+level)/2}``; with
    ``sigma = 0`` it is ``b ln(1/(1-level))``.

    Parameters
    ----------
    sigma : float or array_like
        Standard deviation of the (normal) sampling error, >= 0.
    b : float or array_like
        Scale of the Laplace noise, >= 0.
    level : float, default 0.95
        In (0, 1).

    Returns
    -------
    float or numpy.ndarray
        ``c``, of the broadcast shape of ``sigma`` and ``b`` (a float for two numbers).

    Examples
    --------
    >>> round(float(noise_aware_halfwidth(1.0, 0.0)), 4)
    1.96
    >>> round(float(noise_aware_halfwidth(0.0, 1.0)), 4)   # ln 20
    2.9957
    """
    lev = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    s = check_real_array(sigma, "sigma", allow_empty=True)
    bb = check_real_array(b, "b", allow_empty=True)
    if (s < 0).any() or (bb < 0).any():
        raise ValueError("sigma and b must be >= 0")
    try:
        s, bb = np.broadcast_arrays(s, bb)
    except ValueError:
        raise ValueError(f"sigma and b must broadcast to one shape, got shapes {s.shape} and {bb.shape}") from None
    alpha = 1.0 - lev
    with np.errstate(over="ignore"):             # an overflow is refused by name below
        hi = s * float(-ndtri(alpha / 4.0)) + bb * math.log(2.0 / alpha)
    if hi.ndim == 0:                             # one interval: Brent's method, a dozen evaluations
        if hi == 0.0:
            return 0.0
        if not math.isfinite(float(hi)):
            raise ValueError(f"sigma and b must give a finite half-width, got sigma={float(s)!r}, b={float(bb)!r}")
        def excess(c):
            return float(_laplace_normal_tail(c, s, bb)) - alpha
        # the tail is 1 at c = 0 and at most alpha at the union bound; at a level within rounding of 0 or of
        # the bound (the last bits of the tail's exp and erfc differ between CPUs) an end can land on the
        # wrong side: 0 already covers, or the (wider) bound is returned
        if excess(0.0) <= 0.0:
            return 0.0
        if excess(float(hi)) >= 0.0:
            return float(hi)
        return float(brentq(excess, 0.0, float(hi), xtol=max(1e-15 * float(hi), 5e-324), rtol=4 * np.finfo(float).eps))
    if not np.isfinite(hi).all():
        raise ValueError("sigma and b must give finite half-widths: sigma z_{1-(1-level)/4} + b ln(2/(1-level)) "
                         "overflows the float range for some entry; rescale sigma and b")
    lo = np.zeros_like(hi)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        too_small = _laplace_normal_tail(mid, s, bb) > alpha
        lo = np.where(too_small, mid, lo)
        hi = np.where(too_small, hi, mid)
    out = 0.5 * (lo + hi)
    return float(out) if out.ndim == 0 else out


def _z(level: float) -> float:
    return float(-ndtri((1.0 - level) / 2.0))


_TINY_LEVEL = 1e-4   # below it, scipy's t quantile near the median loses digits; the limit ratio is exact to 1e-8


def _t_factor(level: float, df: int) -> float:
    """``t_{df, (1+level)/2} / z_{(1+level)/2}``: widens a normal sampling error for an estimated variance (df = n - 1).

    From ``scipy.special`` (the same ``stdtrit`` as ``scipy.stats.t``, without importing ``scipy.stats``,
    whose first import takes about a second).
    """
    if level < _TINY_LEVEL:   # both quantiles -> 0 (z = 0 at level 1e-300); their ratio -> phi(0) / f_t(0), to O(level^2)
        f_t0 = float(poch(df / 2.0, 0.5)) / math.sqrt(df * math.pi)     # Gamma((df+1)/2) / (sqrt(df pi) Gamma(df/2))
        return float(1.0 / math.sqrt(2.0 * math.pi) / f_t0)
    # the upper quantile as minus the lower one at (1 - level) / 2: (1 + level) / 2 rounds to 1.0 (t = inf)
    # for level = 1 - 2**-53
    return float(-stdtrit(df, (1.0 - level) / 2.0)) / _z(level)


def _halfwidth(method, sigma, b, level):
    if method == "naive":
        return _z(level) * np.asarray(sigma, float)
    return noise_aware_halfwidth(sigma, b, level)


#: Nodes of the average over the second moment's Laplace noise (midpoint quantiles of a standard Laplace).
VARIANCE_NODES = 16
_U = (np.arange(VARIANCE_NODES) + 0.5) / VARIANCE_NODES
_LAPLACE_NODES = np.where(_U < 0.5, np.log(2.0 * _U), -np.log(2.0 * (1.0 - _U)))
_MIX_STEPS = 40


def _mixed_halfwidth(var_t, n, b_mean, b_moment, h2, t_factor, level):
    """The noise-aware half-width of the mean when the variance is itself a noisy release.

    The plug-in variance ``var_t`` carries the second moment's ``Laplace(b_moment)`` noise; at small
    ``n epsilon`` that noise is as large as the variance, and plugging it in as if exact under-covers (a
    variance pushed down by the noise gives a short interval). The half-width ``c`` solves
    ``mean_k P(|S_k + L| > c) = 1 - level`` with ``S_k ~ N(0, t^2 v_k / (n - 1))``, ``v_k = clip(var_t +
    b_moment u_k, 0, h2)`` and ``u_k`` the ``VARIANCE_NODES`` midpoint quantiles of a standard Laplace: the law
    of theorem ``inf-thm-convolution`` averaged over the variances the release is compatible with (a
    parametric-bootstrap step done by quadrature). ``var_t`` estimates the variance with divisor n (the
    released moments are means), so ``v_k / (n - 1)`` is the textbook ``s^2 / n`` with Bessel's ``n / (n - 1)``,
    the variance the ``t`` factor belongs with. Vectorized over ``var_t``; bisection between 0 and the
    union bound of the largest node.
    """
    var_t = np.atleast_1d(np.asarray(var_t, float))
    s = t_factor * np.sqrt(np.clip(var_t[:, None] + b_moment * _LAPLACE_NODES[None, :], 0.0, h2) / (n - 1))
    alpha = 1.0 - level
    hi = s.max(axis=1) * float(-ndtri(alpha / 4.0)) + b_mean * math.log(2.0 / alpha)
    lo = np.zeros_like(hi)
    for _ in range(_MIX_STEPS):
        mid = 0.5 * (lo + hi)
        too_small = _laplace_normal_tail(mid[:, None], s, b_mean).mean(axis=1) > alpha
        lo = np.where(too_small, mid, lo)
        hi = np.where(too_small, hi, mid)
    return 0.5 * (lo + hi)


def _mean_halfwidth(method, var_t, n, b_mean, b_moment, h2, level):
    """Half-width of :func:`mean_interval`: naive ``z t sqrt(v/(n-1))`` (the textbook ``t s / sqrt(n)``,
    ``s^2 = n v/(n-1)``), or the noise-aware mixture."""
    tf = _t_factor(level, n - 1)
    if method == "naive":
        return _z(level) * tf * np.sqrt(np.asarray(var_t, float) / (n - 1))
    return _mixed_halfwidth(var_t, n, b_mean, b_moment, h2, tf, level)


# ----------------------------------------------------------------------------------------------------
# Checks shared by the interval functions.


def _common(epsilon, level, method, rng, accountant):
    eps = check_epsilon(epsilon)
    lev = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    meth = check_choice(method, "method", INTERVAL_METHODS)
    if accountant is not None and not isinstance(accountant, PrivacyAccountant):
        raise TypeError(f"accountant must be None or a PrivacyAccountant, got {type(accountant).__name__}")
    return eps, lev, meth, as_rng(rng)


def _record(events, accountant):
    if accountant is not None:
        for e in events:
            accountant.compose(e)
    return tuple(events)


def _values(x, name, n_min=2):
    values = check_real_array(x, name, ndim=1)
    if values.size < n_min:  # n is public under replace-one: refusing it reveals nothing
        raise ValueError(f"{name} must hold at least {n_min} records (an interval needs a sample variance)")
    return values


# ----------------------------------------------------------------------------------------------------
# Mean with bounds.


def _split_epsilon(eps: float) -> tuple[float, float]:
    """``(eps1, eps2)`` with ``eps1 = fl(MEAN_SPLIT eps)`` and ``eps2 = eps - eps1``, so that ``eps1 + eps2 = eps`` exactly.

    ``eps - eps1`` is computed without rounding (Sterbenz's lemma: ``eps / 2 <= eps1 <= 2 eps``, which holds
    for every float ``eps``, subnormals included), so the two parts sum to ``epsilon`` in exact arithmetic,
    not only to within an ulp. An epsilon too small to split (``eps2 = 0``, subnormal epsilon) is refused.
    """
    eps1 = MEAN_SPLIT * eps
    eps2 = eps - eps1                     # exact (Sterbenz)
    if not (eps1 > 0.0 and eps2 > 0.0):
        raise ValueError(f"epsilon must be large enough to split between the mean and the second moment "
                         f"(MEAN_SPLIT = {MEAN_SPLIT}), got epsilon={eps!r}")
    return eps1, eps2


def _half_epsilon(eps: float) -> float:
    """The largest float ``h`` with ``2 h <= eps`` exactly: ``eps / 2`` (rounded down where it is not exact)."""
    h = eps / 2.0
    if 2.0 * h > eps:                     # only for an odd multiple of the smallest subnormal
        h = math.nextafter(h, 0.0)
    return h


def _second_moment_bound(lo: float, hi: float) -> tuple[float, float]:
    """The midpoint ``m`` and the bound ``h2 >= ((hi - lo)/2)^2`` of the squared deviations ``(clamp(x) - m)^2``."""
    mid = lo / 2.0 + hi / 2.0
    half = max(hi - mid, mid - lo)
    return mid, math.nextafter(half * half, math.inf)


def _mean_sensitivity(lo, hi, n):
    """The sensitivity charged for a clamped mean of n values in [lo, hi] (that of :func:`dpcourse.dp_mean`'s query).

    It depends on ``lo``, ``hi`` and ``n`` only: ``(hi - lo)/n`` plus the float rounding of the exactly rounded mean.
    """
    return _clamped_mean_query(np.full(n, lo), lo, hi)[1]


def _mean_plan(lo, hi, n, eps):
    """The public plan of a mean release: ``((eps1, eps2), (lattice_mean, lattice_moment))``.

    Each lattice is :func:`dpcourse.laplace_lattice` of that statistic's sensitivity and epsilon (dim = 1):
    its ``noise_scale`` is the exact Laplace scale of the noise the release adds. Refused by name, before
    any data is read, when a scale is not finite or below ``MIN_NOISE_SCALE`` (bounds too narrow for ``n``
    and ``epsilon``, or an epsilon too large): the same rule for every such setting, whatever the data.
    """
    eps1, eps2 = _split_epsilon(eps)
    _, h2 = _second_moment_bound(lo, hi)
    lattices = []
    for what, sens, e in (("mean", _mean_sensitivity(lo, hi, n), eps1),
                          ("second moment", _mean_sensitivity(0.0, h2, n), eps2)):
        scale = sens / e
        if not (math.isfinite(scale) and scale >= MIN_NOISE_SCALE):
            raise ValueError(f"the Laplace scale of the {what}, {scale!r}, must be finite and at least "
                             f"MIN_NOISE_SCALE = 2**-960 for an exact release: upper - lower = {hi - lo!r} is too "
                             f"narrow (or epsilon={eps!r} too large) for n = {n}; rescale the data (e.g. other "
                             f"units) and the bounds with it (lower={lo!r}, upper={hi!r})")
        lattices.append(laplace_lattice(sens, e))
    return (eps1, eps2), tuple(lattices)


def _release_each(values, lattice, gen):
    """Each entry of ``values`` released with the noise of ``lattice`` (dim 1): exactly the law of a single release.

    One entry draws as :func:`dpcourse.laplace_mechanism` draws one value (the same draws from the same
    ``gen``); several entries are independent releases of that law, one per simulated dataset.
    """
    values = np.atleast_1d(np.asarray(values, dtype=np.float64))
    t, s = lattice.lattice_scale.numerator, lattice.lattice_scale.denominator
    return lattice_release(values, lattice.exponent, _dlap(t, s, values.size, gen).reshape(values.shape))


def _noisy_moments(means, moments, n, lo, hi, eps, gen):
    """Laplace releases of clamped means (``eps1 = MEAN_SPLIT * eps``) and second moments about the midpoint (``eps - eps1``).

    ``means`` and ``moments`` may be arrays (one entry per independent dataset of size ``n``, for the
    simulation); each entry gets exactly the noise of a single release. Returns the noisy values (arrays),
    the two Laplace scales of that noise (the lattices' ``noise_scale``) and the two epsilons.
    """
    (eps1, eps2), (lat1, lat2) = _mean_plan(lo, hi, n, eps)
    m_t = _release_each(means, lat1, gen)
    v_t = _release_each(moments, lat2, gen)
    return m_t, v_t, lat1.noise_scale, lat2.noise_scale, (eps1, eps2)


def _mean_release(values, lo, hi, eps, gen):
    """One dataset: the exactly rounded clamped mean and second moment (``math.fsum``), released (floats)."""
    clamped = np.clip(values, lo, hi)
    mid, h2 = _second_moment_bound(lo, hi)
    mean = _clamped_mean_query(clamped, lo, hi)[0]
    moment = _clamped_mean_query((clamped - mid) ** 2, 0.0, h2)[0]
    m_t, v_t, b1, b2, eps12 = _noisy_moments(mean, moment, values.size, lo, hi, eps, gen)
    return float(m_t[0]), float(v_t[0]), b1, b2, eps12


def _variance_from_moments(m_t, v_t, lo, hi):
    """Post-processing: the variance ``E(x - mid)^2 - (clip(E x, lo, hi) - mid)^2`` of the noisy moments, clipped to
    ``[0, ((hi-lo)/2)^2]`` (the chapter's plug-in of theorem ``inf-thm-coverage`` (b))."""
    mid, h2 = _second_moment_bound(lo, hi)
    return np.clip(np.asarray(v_t) - (np.clip(m_t, lo, hi) - mid) ** 2, 0.0, h2)


def _spent(events: Sequence[Any]) -> float:
    """The epsilon of the events by basic composition (``math.fsum``: their exact sum, correctly rounded)."""
    return math.fsum(e.epsilon for e in events)


def mean_interval(x: ArrayLike, lower: float, upper: float, epsilon: float, *, level: float = 0.95,
                  method: str = "noise_aware", rng: np.random.Generator | int | None = None,
                  accountant: PrivacyAccountant | None = None) -> PrivateInterval:
    """A confidence interval for the mean of the values clamped to ``[lower, upper]``, from a DP release.

    Release: the clamped mean (Laplace scale ``(upper - lower) / (n eps1)``, ``eps1 = MEAN_SPLIT * epsilon``) and
    the mean squared deviation from the midpoint (scale ``((upper - lower)/2)^2 / (n eps2)``, ``eps2 = epsilon -
    eps1`` exactly), both with :func:`dpcourse.laplace_mechanism`'s exact lattice sampler, whose sensitivities
    cover the float rounding of the means: epsilon-DP under replace-one with ``n`` public (basic composition,
    theorem ``inf-thm-mean-privacy``), for datasets of finite values.

    Interval (post-processing): ``m ± c``, ``m`` the noisy mean, ``v`` the noisy variance (clipped to
    ``[0, ((upper-lower)/2)^2]``) and ``"noise_aware"``: ``c`` the ``level`` quantile of the sampling error
    ``N(0, t^2 v / (n - 1))`` plus the mean's Laplace noise (theorem ``inf-thm-convolution``), averaged over
    ``VARIANCE_NODES`` variances the noisy second moment is compatible with; ``"naive"``: the textbook ``t``
    interval on the released numbers, which ignores the noise. It targets the *clamped* population mean; its
    coverage is asymptotic (theorem ``inf-thm-coverage``), below ``level`` at small n with little noise and for
    skewed data (``benchmarks/bench_inference.py``; use :func:`proportion_interval` for 0/1 data).

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 2
        Private values. Finite values of any size are clamped to ``[lower, upper]``; NaN and +-inf break
        this contract and are refused with a message that holds nothing computed from the data.
    lower, upper : float
        Public clamping bounds, chosen without the data; ``upper - lower <= MEAN_BOUNDS_WIDTH = 2**500``
        and wide enough for ``n`` and ``epsilon`` that both noise scales are at least ``MIN_NOISE_SCALE``
        (refused by name otherwise).
    epsilon : float
        Total privacy parameter, > 0.
    level : float, default 0.95
        Nominal coverage, in (0, 1).
    method : {"noise_aware", "naive"}
        How the half-width is computed (the release is the same).
    rng : None, int or numpy.random.Generator, optional
    accountant : PrivacyAccountant, optional
        If given, the release's events are composed into it.

    Returns
    -------
    PrivateInterval
        The interval, the release, its noise scales and its two Laplace events.

    Examples
    --------
    >>> r = mean_interval([3.0, 4.0, 5.0, 6.0], 0.0, 10.0, 1e6, rng=0)
    >>> round(r.estimate, 3), [type(e).__name__ for e in r.events]
    (4.5, ['LaplaceEvent', 'LaplaceEvent'])
    """
    values = _values(x, "x")
    lo, hi = check_bounds(lower, upper, max_width=MEAN_BOUNDS_WIDTH)
    eps, lev, meth, gen = _common(epsilon, level, method, rng, accountant)
    n = values.size
    m_t, v_t, b1, b2, (eps1, eps2) = _mean_release(values, lo, hi, eps, gen)
    var = float(_variance_from_moments(m_t, v_t, lo, hi))
    c = float(np.ravel(_mean_halfwidth(meth, var, n, b1, b2, _second_moment_bound(lo, hi)[1], lev))[0])
    events = _record([LaplaceEvent(eps1, relation="replace_one"), LaplaceEvent(eps2, relation="replace_one")],
                     accountant)
    return PrivateInterval(m_t - c, m_t + c, m_t, lev, meth, {"mean": m_t, "second_moment": v_t, "n": n},
                           {"mean": b1, "second_moment": b2}, events, _spent(events))


# ----------------------------------------------------------------------------------------------------
# Proportion.


def _count_sensitivity(n: int) -> float:
    """``1 + n 2**-52``, rounded up: the sensitivity of ``fsum`` of n values in [0, 1] under replace-one.

    The exact sums of neighbours differ by at most 1; ``math.fsum`` rounds each once, by at most
    ``2**-53 n``, so the computed sums differ by at most ``1 + n 2**-52`` (for 0/1 data the sums are exact
    integers and the extra is never used).
    """
    bound = 1 + Fraction(n, 2**52)
    s = float(bound)
    return s if Fraction(s) >= bound else math.nextafter(s, math.inf)


def _proportion_release(counts, n, eps, gen):
    """Noisy counts (each an exact single release, Laplace scale about 1/eps), and the lattice of that noise."""
    lattice = laplace_lattice(_count_sensitivity(n), eps)
    return _release_each(counts, lattice, gen), lattice


def _laplace_steps_cdf(m, t):
    """``P(D <= m)`` for the discrete Laplace ``P(D = k) = (1 - r)/(1 + r) r^|k|``, ``r = e^{-1/t}`` (m integer-valued)."""
    r = math.exp(-1.0 / t)
    with np.errstate(over="ignore"):
        return np.where(m >= 0, 1.0 - np.exp(-(m + 1.0) / t) / (1.0 + r), np.exp(m / t) / (1.0 + r))


class _CountLaw:
    """The law of the noisy count ``C = g (rint(K / g) + D)``, ``K ~ Bin(n, p)``, at observed values ``c``.

    ``cdf(p)`` is ``P_p(C <= c)`` for each observation (vectorized over ``c`` and ``p``): the counts ``k``
    with ``|k - c|`` below ``_TAIL_SCALES`` noise scales are summed exactly (binomial pmf in log space
    times the discrete Laplace CDF); those further below ``c`` count with noise CDF 1 (the binomial CDF
    ``bdtr`` of the last of them), those further above with 0 (errors below ``2 e^{-40}``).
    """

    def __init__(self, c, n, lattice):
        c = np.atleast_1d(np.asarray(c, dtype=np.float64))
        g, t = lattice.spacing, float(lattice.lattice_scale)
        beta = g * t                                    # the noise scale in counts
        first = np.clip(np.ceil(c - _TAIL_SCALES * beta), 0, n + 1)
        last = np.clip(np.floor(c + _TAIL_SCALES * beta), -1, n)
        width = int(max(1.0, float(np.max(last - first + 1)) if c.size else 1.0))
        k = first[:, None] + np.arange(width)[None, :]
        inside = k <= last[:, None]
        k = np.where(inside, k, 0.0)
        self.k, self.n = k, n
        self.log_choose = np.where(inside, gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0), -np.inf)
        steps = c[:, None] / g - np.rint(k / g)        # exact: c and k / g are on the lattice's integers
        self.noise_cdf = np.where(inside, _laplace_steps_cdf(steps, t), 0.0)
        self.below = first - 1                          # counts k <= below: noise CDF taken as 1
        self.c, self.g, self.t = c, g, t

    def cdf(self, p):
        """``P_p(C <= c)`` for every observation, at ``p`` (one value per observation, or one for all)."""
        return self.cdf_at(np.arange(self.c.size), np.broadcast_to(np.asarray(p, dtype=np.float64), self.c.shape))

    def cdf_at(self, rows, p):
        """``P_p(C <= c)`` for the observations ``rows`` at the probabilities ``p`` (one per row)."""
        p = np.asarray(p, dtype=np.float64)
        out = np.empty(p.shape)
        inner = (p > 0.0) & (p < 1.0)
        if inner.any():
            whole = inner.all() and rows.size == self.c.size     # every row: no copies of the windows
            r, pi = (slice(None), p) if whole else (rows[inner], p[inner])
            lp, lq = np.log(pi)[:, None], np.log1p(-pi)[:, None]
            terms = self.k[r] * (lp - lq)                        # log pmf = log C(n, k) + k log p + (n - k) log q
            terms += self.n * lq
            terms += self.log_choose[r]
            with np.errstate(under="ignore"):
                np.exp(terms, out=terms)
            terms *= self.noise_cdf[r]
            below = self.below[r]
            bulk = np.where(below >= 0, bdtr(np.maximum(below, 0), self.n, pi), 0.0)
            out[inner] = bulk + terms.sum(axis=1)
        for edge, kk in ((p <= 0.0, 0.0), (p >= 1.0, float(self.n))):   # K is the constant 0 or n
            if edge.any():
                out[edge] = _laplace_steps_cdf(self.c[rows[edge]] / self.g - np.rint(kk / self.g), self.t)
        return np.clip(out, 0.0, 1.0)


def _invert(law, a, decreasing, start):
    """The end of ``{p in [0, 1] : law.cdf(p) >= a}`` (its sup if the CDF decreases in p, else its inf).

    Regula falsi with the Illinois modification on the probit of the CDF (nearly linear in p), vectorized,
    every fourth step a bisection, on a bracket that always keeps ``cdf >= a`` on its inner side and
    ``cdf < a`` on its outer side; it stops when the bracket is below 1e-9 wide or the outer side's probit
    is within 1e-9 of the target (or after 100 steps), and returns the *outer* side, so the whole set is
    inside the interval. Where the set is empty the end is the
    boundary (0 for the sup, 1 for the inf), where it is all of [0, 1] the other boundary. ``start`` =
    ``(inner, outer)``: a first bracket (the normal approximation's); where it does not bracket, [0, 1] does.
    """
    m = law.c.size
    target = float(ndtri(a))

    def f(rows, p):                  # probit of the CDF minus that of a: same sign, nearly linear in p
        return ndtri(np.clip(law.cdf_at(rows, p), 1e-300, 1.0 - 2.0**-53)) - target

    every = np.arange(m)
    lo_end, hi_end = (np.zeros(m), np.ones(m)) if decreasing else (np.ones(m), np.zeros(m))
    f_lo, f_hi = f(every, lo_end), f(every, hi_end)
    full, empty = f_hi >= 0.0, f_lo < 0.0
    inner, outer = (np.array(v, dtype=np.float64) for v in start)
    f_in, f_out = f(every, inner), f(every, outer)
    bad_in, bad_out = f_in < 0.0, f_out >= 0.0
    inner, f_in = np.where(bad_in, lo_end, inner), np.where(bad_in, f_lo, f_in)
    outer, f_out = np.where(bad_out, hi_end, outer), np.where(bad_out, f_hi, f_out)
    todo = ~(full | empty)
    side = np.zeros(m)                        # Illinois: which end was kept last (-1 inner, +1 outer)
    for step in range(100):
        if not todo.any():
            break
        i = np.flatnonzero(todo)
        x = inner[i] - f_in[i] * (outer[i] - inner[i]) / (f_out[i] - f_in[i])
        mid = 0.5 * (inner[i] + outer[i])
        # every fourth step, and wherever the secant leaves the bracket, a bisection step
        x = np.where(((x - inner[i]) * (outer[i] - x) > 0.0) & (step % 4 != 3), x, mid)
        fx = f(i, x)
        ok = fx >= 0.0
        # the kept end twice in a row: halve its function value (Illinois)
        f_out[i] = np.where(ok & (side[i] == 1.0), 0.5 * f_out[i], f_out[i])
        f_in[i] = np.where(~ok & (side[i] == -1.0), 0.5 * f_in[i], f_in[i])
        inner[i], f_in[i] = np.where(ok, x, inner[i]), np.where(ok, fx, f_in[i])
        outer[i], f_out[i] = np.where(ok, outer[i], x), np.where(ok, f_out[i], fx)
        side[i] = np.where(ok, 1.0, -1.0)
        todo[i] = (np.abs(outer[i] - inner[i]) > 1e-9) & (f_out[i] < -1e-9)
    out = outer.copy()
    out[full] = 1.0 if decreasing else 0.0
    out[empty] = 0.0 if decreasing else 1.0
    return out


def _exact_proportion_ends(counts, n, lattice, level):
    """The interval of theorem ``inf-thm-proportion-exact`` for noisy counts ``counts`` (vectorized).

    ``p_U = sup{p : P_p(C <= c) >= a}`` and ``p_L = inf{p : P_p(C >= c) >= a}``, ``a = (1 - level) / 2``,
    with ``P_p(C >= c) = 1 - P_p(C <= c - g)`` on the lattice ``g Z``.
    """
    a = (1.0 - level) / 2.0
    counts = np.atleast_1d(np.asarray(counts, dtype=np.float64))
    p_hat = np.clip(counts / n, 0.0, 1.0)
    # a first bracket from the normal approximation: three times its half-width away from the estimate
    reach = np.minimum(3.0 * (_z(level) * np.sqrt(np.maximum(p_hat * (1.0 - p_hat), 1.0 / n) / n)
                              + lattice.noise_scale * math.log(1.0 / a) / n) + 1.0 / n, 1.0)
    upper = _invert(_CountLaw(counts, n, lattice), a, True, (p_hat, np.minimum(p_hat + reach, 1.0)))
    below = _CountLaw(counts - lattice.spacing, n, lattice)   # P(C >= c) = 1 - P(C <= c - g) >= a
    lower = _invert(_ComplementLaw(below), a, False, (p_hat, np.maximum(p_hat - reach, 0.0)))
    return lower, upper


class _ComplementLaw:
    """``1 - law.cdf(p)``: the upper tail ``P_p(C >= c)`` as a function of p (increasing)."""

    def __init__(self, law):
        self.law, self.c = law, law.c

    def cdf(self, p):
        return 1.0 - self.law.cdf(p)

    def cdf_at(self, rows, p):
        return 1.0 - self.law.cdf_at(rows, p)


def proportion_interval(bits: ArrayLike, epsilon: float, *, level: float = 0.95, method: str = "noise_aware",
                        rng: np.random.Generator | int | None = None,
                        accountant: PrivacyAccountant | None = None) -> PrivateInterval:
    """A confidence interval for a proportion from a DP count (theorem ``inf-thm-proportion-exact``).

    Release (theorem ``inf-thm-mean-privacy``, item 2): the values are clamped to [0, 1] and summed
    exactly (``math.fsum``), and the sum is released with :func:`dpcourse.laplace_mechanism`'s exact lattice
    sampler at sensitivity ``1 + n 2**-52`` (replace-one, ``n`` public; the extra covers the rounding of a
    sum of non-integers): epsilon-DP. The noise is ``g D``, ``D`` discrete Laplace of ``t`` lattice steps of
    size ``g`` (scale ``b = t g``, about ``1 / epsilon``).

    Interval (post-processing):

    * ``"noise_aware"``: the exact test inversion: all ``p`` under which the noisy count is in neither
      ``(1 - level)/2`` tail of its law ``Bin(n, p) + g D`` (computed exactly up to ``2e-17``). For 0/1 data
      it covers the proportion with probability at least ``level`` for every ``n``, ``p`` and ``epsilon``;
    * ``"naive"``: ``p ± z sqrt(p' (1 - p') / n)`` with ``p`` the noisy count over ``n`` and ``p'`` its clip to
      [0, 1] (the Wald interval, which ignores the noise).

    Parameters
    ----------
    bits : array_like, shape (n,), n >= 2
        Private values, meant to be 0 or 1. Any finite value is clamped to [0, 1] (a 2 counts as a 1, a -1
        as a 0; a value in between counts as itself, and the interval then covers the mean of the clamped
        values only approximately: the coverage statement is for 0/1 data). NaN and +-inf break the
        contract and are refused without quoting the data; bool arrays are refused (convert with ``.astype(int)``).
    epsilon : float
        > 0.
    level : float, default 0.95
        In (0, 1).
    method : {"noise_aware", "naive"}
        How the interval is computed from the count (the release is the same).
    rng, accountant
        As in :func:`mean_interval`.

    Returns
    -------
    PrivateInterval
        The interval, the noisy count, its noise scale and its Laplace event.

    Examples
    --------
    >>> r = proportion_interval([0, 1, 1, 0], 1e6, rng=0)
    >>> round(r.estimate, 3), r.release["n"]
    (0.5, 4)
    >>> r.low < 0.5 < r.high
    True
    """
    x = check_real_array(bits, "bits", ndim=1)
    if x.size < 2:
        raise ValueError("bits must hold at least 2 records (an interval needs a sample variance)")
    eps, lev, meth, gen = _common(epsilon, level, method, rng, accountant)
    n = x.size
    count_t, lattice = _proportion_release(_clamped_sum(x, 0.0, 1.0), n, eps, gen)   # each value clamped to [0, 1]
    count_t = float(count_t[0])
    p = count_t / n
    if meth == "naive":
        pc = min(max(p, 0.0), 1.0)
        c = _z(lev) * math.sqrt(pc * (1.0 - pc) / n)
        low, high = p - c, p + c
    else:
        ends = _exact_proportion_ends(count_t, n, lattice, lev)
        low, high = float(ends[0][0]), float(ends[1][0])
    events = _record([LaplaceEvent(eps, relation="replace_one")], accountant)
    return PrivateInterval(low, high, p, lev, meth, {"count": count_t, "n": n}, {"count": lattice.noise_scale},
                           events, _spent(events))


# ----------------------------------------------------------------------------------------------------
# Difference of two means (two groups with public sizes).


def _bootstrap_halfwidth(var_x, var_y, n_x, n_y, b_x, b_y, b2_x, b2_y, h2, t_factor, level, gen,
                         draws=BOOTSTRAP_DRAWS):
    """Parametric bootstrap: the ``level`` quantile of ``|S + L_x - L_y|`` (one row per entry of ``var_x``).

    Each draw redraws the two variances from their releases, ``clip(var + Laplace(b2), 0, h2)`` (the second
    moments' noise, as in :func:`_mixed_halfwidth`), then ``S ~ N(0, t^2 (v_x / (n_x - 1) + v_y / (n_y - 1)))``
    (each ``v / (n - 1)`` the textbook ``s^2 / n``).
    """
    var_x, var_y = np.atleast_1d(np.asarray(var_x, float)), np.atleast_1d(np.asarray(var_y, float))
    shape = (var_x.size, draws)
    vx = np.clip(var_x[:, None] + gen.laplace(0.0, b2_x, shape), 0.0, h2)
    vy = np.clip(var_y[:, None] + gen.laplace(0.0, b2_y, shape), 0.0, h2)
    sigma = t_factor * np.sqrt(vx / (n_x - 1) + vy / (n_y - 1))
    err = sigma * gen.standard_normal(shape) + gen.laplace(0.0, b_x, shape) - gen.laplace(0.0, b_y, shape)
    return np.quantile(np.abs(err), level, axis=1)


def difference_of_means_interval(x: ArrayLike, y: ArrayLike, lower: float, upper: float, epsilon: float, *,
                                 level: float = 0.95, method: str = "noise_aware",
                                 rng: np.random.Generator | int | None = None,
                                 accountant: PrivacyAccountant | None = None) -> PrivateInterval:
    """A confidence interval for ``mean(x) - mean(y)`` (both clamped to ``[lower, upper]``) of two groups.

    Release: :func:`mean_interval`'s two statistics for each group, each group with the whole ``epsilon``.
    The groups are disjoint sets of people with **public sizes**; replacing one record inside its group changes
    one group's statistics only, so the release is epsilon-DP under replace-one within a group (parallel
    composition, theorem ``inf-thm-mean-privacy``). If group membership is private (sizes counted from the
    data), a replacement can move a record between groups: the function is then not epsilon-DP and must not be
    used as is (release noisy sizes and charge both groups).

    Interval (post-processing): ``(m_x - m_y) ± c``; ``"noise_aware"``: ``c`` is the ``level`` quantile of
    ``|S + L_x - L_y|``, ``S ~ N(0, t^2 (v_x/(n_x-1) + v_y/(n_y-1)))``, each variance redrawn from its noisy
    release, from ``BOOTSTRAP_DRAWS`` draws of ``rng`` (a parametric bootstrap: post-processing); ``"naive"``:
    ``c = t_{df} sqrt(v_x/(n_x-1) + v_y/(n_y-1))``, ``df = min(n_x, n_y) - 1``.

    Parameters
    ----------
    x, y : array_like of floats, shapes (n_x,) and (n_y,), each n >= 2
        The two groups' private values, as ``x`` of :func:`mean_interval`.
    lower, upper : float
        Public clamping bounds for both groups, as in :func:`mean_interval`.
    epsilon : float
        Privacy parameter of each group's release, > 0.
    level, method, rng, accountant
        As in :func:`mean_interval`.

    Returns
    -------
    PrivateInterval
        The interval, both groups' releases and noise scales, and one pure-DP event of ``epsilon``.

    Examples
    --------
    >>> r = difference_of_means_interval([5.0, 6.0], [1.0, 2.0], 0.0, 10.0, 1e6, rng=0)
    >>> round(r.estimate, 3), r.events
    (4.0, (PureDPEvent(epsilon=1000000.0, relation='replace_one'),))
    """
    vx, vy = _values(x, "x"), _values(y, "y")
    lo, hi = check_bounds(lower, upper, max_width=MEAN_BOUNDS_WIDTH)
    eps, lev, meth, gen = _common(epsilon, level, method, rng, accountant)
    mx, sx, bx, bx2, (e1, e2) = _mean_release(vx, lo, hi, eps, gen)
    my, sy, by, by2, _ = _mean_release(vy, lo, hi, eps, gen)
    var_x, var_y = float(_variance_from_moments(mx, sx, lo, hi)), float(_variance_from_moments(my, sy, lo, hi))
    tf = _t_factor(lev, min(vx.size, vy.size) - 1)
    if meth == "naive":
        c = _z(lev) * tf * math.sqrt(var_x / (vx.size - 1) + var_y / (vy.size - 1))
    else:
        c = float(_bootstrap_halfwidth(var_x, var_y, vx.size, vy.size, bx, by, bx2, by2,
                                       _second_moment_bound(lo, hi)[1], tf, lev, gen)[0])
    # Parallel composition: the two groups' events are charged once, as one epsilon-DP release.
    events = _record([PureDPEvent(eps, relation="replace_one")], accountant)
    d = mx - my
    return PrivateInterval(d - c, d + c, d, lev, meth,
                           {"mean_x": mx, "second_moment_x": sx, "n_x": vx.size, "mean_y": my,
                            "second_moment_y": sy, "n_y": vy.size},
                           {"mean_x": bx, "second_moment_x": bx2, "mean_y": by, "second_moment_y": by2},
                           events, eps)


# ----------------------------------------------------------------------------------------------------
# Quantile: two exponential-mechanism quantiles at widened ranks.


def _quantile_ranks(q, n, eps_each, level, method):
    """The ranks ``q -+ c / n`` (clipped to [0, 1]) of the two released quantiles (theorem ``inf-thm-quantile-ranks``)."""
    sd = math.sqrt(n * q * (1.0 - q))
    b = 2.0 / eps_each if eps_each > 0.0 else math.inf   # eps / 2 underflows to 0 at epsilon = 5e-324
    if method != "naive" and b * -math.log1p(-level) >= n:
        return 0.0, 1.0   # c >= b ln(1/(1-level)) >= n (|S + L| dominates |L|): both ranks clip, nothing is released
    c = float(_halfwidth(method, sd, b, level))
    return max(q - c / n, 0.0), min(q + c / n, 1.0)


def _rank_target(r: float, n: int) -> float:
    """``r n`` rounded to a multiple of 2**-20: the exponential mechanism's target rank, so that every utility
    ``-|c_k - target|`` (an integer minus a multiple of 2**-20, below 2**33) is an exact float."""
    return math.ldexp(round(math.ldexp(r * n, 20)), -20)


def _grid_counts(values, lo, hi, res):
    """The public grid ``y_0 = lo < ... < y_res = hi`` and ``c_k = #{j : clamp(x_j) < y_k}`` for every grid point."""
    grid = _grid(lo, hi, res)
    return grid, np.searchsorted(np.sort(np.clip(values, lo, hi)), grid, side="left")


def _quantile_ends(values, q_lo, q_hi, lo, hi, eps_each, gen, res, size=None):
    """Release the grid indices of the two ends, or None where an end is the public bound (rank 0 or 1).

    Each released end is the secure :func:`dpcourse.exponential_mechanism` over the ``res + 1`` grid points
    with utility ``-|c_k - r n|`` (sensitivity 1 under replace-one: one replaced value moves every ``c_k`` by
    at most 1) and ``eps_each``: exactly epsilon_each-DP, the law of :func:`dpcourse.dp_quantile` without its
    floating-point weights. Returns ``(grid, k_lo, k_hi, events)``; ``size``: that many independent draws.
    """
    grid, counts = _grid_counts(values, lo, hi, res)
    n = values.size
    ks, events = [], []
    for r, edge in ((q_lo, 0.0), (q_hi, 1.0)):
        if r == edge:
            ks.append(None)               # the public bound: nothing released, nothing charged
            continue
        utilities = -np.abs(counts - _rank_target(r, n))
        ks.append(exponential_mechanism(utilities, 1.0, eps_each, rng=gen, size=size))
        events.append(PureDPEvent(eps_each, relation="replace_one"))
    return grid, ks[0], ks[1], events


def _widened(grid, k_lo, k_hi):
    """Post-processing: each released grid point moved one grid step out (``lower``/``upper`` where there is none).

    A grid point with ``c`` values below it lies at or below the ``(c+1)``-th smallest value; the grid point
    before it has at most ``c`` values below it, so the lower end keeps the guarantee of theorem
    ``inf-thm-quantile-ranks`` (b) and does not land above the quantile when the grid is coarse against
    the data (both ends on one grid point); the upper end likewise.
    """
    res = grid.size - 1
    low = grid[0] if k_lo is None else grid[np.maximum(np.asarray(k_lo) - 1, 0)]
    high = grid[-1] if k_hi is None else grid[np.minimum(np.asarray(k_hi) + 1, res)]
    return low, high


def quantile_interval(x: ArrayLike, q: float, lower: float, upper: float, epsilon: float, *, level: float = 0.95,
                      method: str = "noise_aware", rng: np.random.Generator | int | None = None,
                      accountant: PrivacyAccountant | None = None,
                      resolution: int = QUANTILE_RESOLUTION) -> PrivateInterval:
    """A confidence interval for the population q-quantile from two DP quantiles on a public grid.

    Release: two exponential-mechanism quantiles (the law of :func:`dpcourse.dp_quantile`, grid point ``y_k``
    with probability proportional to ``exp(-epsilon' |c_k - r n| / 2)``, ``c_k`` the number of values below
    it) at the ranks ``r = q_lo`` and ``q_hi``, each with ``epsilon' = epsilon / 2`` (rounded down), sampled
    exactly by the secure :func:`dpcourse.exponential_mechanism`: epsilon-DP under replace-one with ``n``
    public (basic composition, theorem ``inf-thm-mean-privacy``), with no delta. A rank clipped to 0 (or 1)
    makes that end the public bound ``lower`` (``upper``): nothing is released or charged for it.

    The ranks are ``q -+ c / n`` with ``c`` the ``level`` half-width of ``S + L`` in rank units (theorem
    ``inf-thm-quantile-ranks``): ``S ~ N(0, n q (1 - q))`` and, for ``"noise_aware"``, ``L ~ Laplace(2 /
    epsilon')``; ``"naive"`` takes ``L = 0``. The interval (post-processing) is the grid point before the lower
    end's and the one after the upper end's, in increasing order. Approximate: it under-covers badly with the
    quantile in a valley of multimodal data, and with next to no noise at n = 10 to 60 its coverage swings with
    n between about 0.92 and 0.98 (``benchmarks/bench_inference.py``); it holds for a density positive and roughly
    flat around the quantile (unimodal data). Measure it with :func:`quantile_interval_coverage` before relying on it.

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 2
        Private values; finite values of any size are clamped to the bounds; NaN and +-inf are refused.
    q : float
        The quantile, in [0, 1].
    lower, upper : float
        Public bounds, chosen without looking at the data.
    epsilon : float
        Total privacy parameter, > 0.
    level, rng, accountant
        As in :func:`mean_interval`.
    method : {"noise_aware", "naive"}
        How the ranks are widened.
    resolution : int, default QUANTILE_RESOLUTION = 2**16
        Grid steps between the bounds, 1 to ``QUANTILE_MAX_RESOLUTION = 2**18``.

    Returns
    -------
    PrivateInterval
        The interval, the two released grid points and ranks, and one pure-DP event per released end.

    Examples
    --------
    >>> r = quantile_interval(list(range(1, 100)), 0.5, 0.0, 100.0, 50.0, rng=0, resolution=100)
    >>> r.low < 50.0 < r.high, len(r.events)
    (True, 2)
    """
    values = _values(x, "x")
    qq = check_probability(q, "q")
    lo, hi = check_bounds(lower, upper)
    eps, lev, meth, gen = _common(epsilon, level, method, rng, accountant)
    res = _check_resolution(resolution)
    if res > QUANTILE_MAX_RESOLUTION:
        raise ValueError(f"resolution must be an integer in [1, QUANTILE_MAX_RESOLUTION = {QUANTILE_MAX_RESOLUTION}] "
                         f"for quantile_interval, got {res}")
    n = values.size
    eps_each = _half_epsilon(eps)
    q_lo, q_hi = _quantile_ranks(qq, n, eps_each, lev, meth)
    grid, k_lo, k_hi, events = _quantile_ends(values, q_lo, q_hi, lo, hi, eps_each, gen, res)
    events = _record(events, accountant)
    a, b = (float(v) for v in _widened(grid, k_lo, k_hi))
    # The two ends are independent draws: the lower one can land above the upper one (about 0.5% of releases
    # at n = 1000, epsilon = 0.1; 20% at level 0.5). Ordering them (post-processing) returns an interval, never
    # an empty one, and misses only if both orders miss.
    low, high = min(a, b), max(a, b)
    y_lo = lo if k_lo is None else float(grid[k_lo])
    y_hi = hi if k_hi is None else float(grid[k_hi])
    return PrivateInterval(low, high, 0.5 * y_lo + 0.5 * y_hi, lev, meth,   # halves first: no overflow at 1e308
                           {"quantile_low": y_lo, "quantile_high": y_hi, "q_low": q_lo, "q_high": q_hi, "n": n,
                            "resolution": res},
                           {"rank_scale": 2.0 / eps_each if eps_each > 0.0 else math.inf}, events, _spent(events))


# ----------------------------------------------------------------------------------------------------
# Coverage by simulation (sampling from a population, then the privacy noise).

KINDS = ("mean", "proportion", "difference", "quantile")


def _clip_uniform_mean(a, w, lo, hi):
    """``E clip(V, lo, hi)`` for ``V`` uniform on ``[a, a + w]`` (``w > 0``), elementwise."""
    left = np.clip(a, lo, hi)
    right = np.clip(a + w, lo, hi)
    inside = (right ** 2 - left ** 2) / (2.0 * w)
    return inside + lo * np.clip((lo - a) / w, 0.0, 1.0) + hi * np.clip((a + w - hi) / w, 0.0, 1.0)


def population_parameter(kind: str, population: ArrayLike | tuple[ArrayLike, ArrayLike], *, lower: float | None = None,
                         upper: float | None = None, q: float = 0.5, spread: float = 0.0) -> float:
    """The parameter an interval of ``kind`` targets, for a population of records (not private: a simulation tool).

    A draw from the population is a record chosen uniformly plus ``Uniform(-spread/2, spread/2)`` jitter.

    Parameters
    ----------
    kind : {"mean", "proportion", "difference", "quantile"}
        ``"mean"``: the mean of the draws clamped to the bounds; ``"proportion"``: the share of ones;
        ``"difference"``: the clamped mean of ``population[0]`` minus that of ``population[1]``;
        ``"quantile"``: the smallest q-quantile ``inf{t : F(t) >= q}`` of the draws' distribution ``F``.
    population : array_like of floats, shape (m,), or a pair of them for ``"difference"``
        The public records (0/1 for ``"proportion"``).
    lower, upper : float, optional
        The clamping bounds (``"mean"`` and ``"difference"``).
    q : float, default 0.5
        The quantile, in (0, 1) (``"quantile"``).
    spread : float, default 0.0
        Width of the jitter, >= 0: 0 for ``"proportion"``, > 0 for ``"quantile"`` (so that ``F`` is continuous
        and its quantile unique where ``F`` increases through ``q``); refused by name otherwise.

    Returns
    -------
    float

    Examples
    --------
    >>> population_parameter("mean", [0.0, 10.0], lower=0.0, upper=4.0)
    2.0
    >>> round(population_parameter("quantile", [1.0, 3.0], q=0.25, spread=2.0), 9)
    1.0
    """
    kind = check_choice(kind, "kind", KINDS)
    sp = check_real(spread, "spread", low=0.0)
    if kind == "proportion":
        if sp != 0.0:
            raise ValueError(f"spread must be 0 for kind='proportion' (the records are 0/1 and are drawn as they "
                             f"are), got spread={sp!r}")
        return float(np.mean(check_binary_array(population, "population", ndim=1)))
    if kind == "difference":
        pair: Any = population
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__"):
            raise TypeError(f"population must be a pair (population_x, population_y) for kind='difference', got "
                            f"{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"population must be a pair (population_x, population_y) for kind='difference', got "
                             f"{len(pair)} entries")
        px, py = pair
        out = (population_parameter("mean", px, lower=lower, upper=upper, spread=sp)
               - population_parameter("mean", py, lower=lower, upper=upper, spread=sp))
        return _finite_parameter(out)
    pop = check_real_array(population, "population", ndim=1)
    if kind == "mean":
        lo, hi = check_bounds(lower, upper)
        with np.errstate(all="ignore"):
            if sp == 0.0:
                return _finite_parameter(float(np.mean(np.clip(pop, lo, hi))))
            return _finite_parameter(float(np.mean(_clip_uniform_mean(pop - sp / 2.0, sp, lo, hi))))
    qq = check_probability(q, "q", low_open=True, high_open=True)
    if sp == 0.0:
        raise ValueError("spread must be > 0 for kind='quantile' (a population quantile of a discrete "
                         "population need not be unique)")
    with np.errstate(all="ignore"):
        a, b = float(pop.min()) - sp, float(pop.max()) + sp
        if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(sp / 2.0 - float(pop.min()))
                and math.isfinite(float(pop.max()) + sp / 2.0)):
            raise ValueError("population and spread must keep every record +- spread within the float range "
                             "(rescale them)")
        for _ in range(2200):   # bisection on the piecewise-linear CDF, down to adjacent floats
            mid = 0.5 * a + 0.5 * b
            if not a < mid < b:
                break
            if np.mean(np.clip((mid - (pop - sp / 2.0)) / sp, 0.0, 1.0)) < qq:
                a = mid
            else:
                b = mid
    return float(0.5 * a + 0.5 * b)


def _finite_parameter(value: float) -> float:
    """``value``, or a named refusal where the population's numbers overflowed the float range."""
    if not math.isfinite(value):
        raise ValueError("the parameter of this population is not representable (its values, bounds or spread "
                         "overflow the float range): rescale the population and the bounds")
    return value


def _draw(pop, reps, n, spread, gen):
    x = pop[gen.integers(0, pop.size, size=(reps, n))]
    if spread > 0:
        x = x + spread * (gen.random((reps, n)) - 0.5)
    return x


class _MeanReleases(NamedTuple):
    """Row-wise simulated :func:`mean_interval` releases and the non-private statistics beside them."""

    means: np.ndarray          # clamped sample means (non-private)
    variances: np.ndarray      # clamped sample variances, divisor n - 1 (non-private)
    mean_t: np.ndarray         # released means
    var_t: np.ndarray          # variances post-processed from the released moments
    b_mean: float              # Laplace scale of the mean's noise
    b_moment: float            # Laplace scale of the second moment's noise


def _simulated_mean_releases(x, lo, hi, eps, gen):
    """Row-wise :func:`mean_interval` releases (numpy row means; the same secure noise and scales), with the
    non-private sample variance ``s^2`` (divisor n - 1) of the textbook interval."""
    clamped = np.clip(x, lo, hi)
    mid, _ = _second_moment_bound(lo, hi)
    means = clamped.mean(axis=1)
    m_t, v_t, b, b2, _ = _noisy_moments(means, ((clamped - mid) ** 2).mean(axis=1), x.shape[1], lo, hi, eps, gen)
    return _MeanReleases(means, clamped.var(axis=1, ddof=1), m_t, _variance_from_moments(m_t, v_t, lo, hi), b, b2)


def _cover(est, half, truth, keep=None, name=None):
    est = np.asarray(est, float)
    half = np.broadcast_to(np.asarray(half, float), est.shape)
    if keep is not None:
        keep[name] = (est - half, est + half)
    return np.abs(est - truth) <= half, 2.0 * half


def _end_law(counts, r, n, eps_each, good=None, ends=None):
    """For one released end at rank ``r``: the probability of each grid index under the exact law of the release.

    The exponential mechanism picks grid point k with probability proportional to
    ``exp(-eps_each |c_k - target| / 2)`` (the secure sampler's law, up to candidates of probability below
    ``e^-65536``). With ``good`` and ``ends`` (as ``benchmarks/bench_inference.py`` calls it): ``P(good[k])``
    and ``E[ends[k]]`` instead.
    """
    logw = -0.5 * eps_each * np.abs(counts - _rank_target(r, n))
    w = np.exp(logw - logw.max())
    w /= w.sum()
    if good is None:
        return w
    return float(np.sum(w[good])), float(np.sum(w * ends))


def _end_probabilities(values, w, truth):
    """``(P(A <= truth), P(A >= truth), P(A == truth), E A)`` for ``A`` taking ``values[k]`` with probability ``w[k]``."""
    return (float(np.sum(w[values <= truth])), float(np.sum(w[values >= truth])), float(np.sum(w[values == truth])),
            float(np.sum(w * values)))


def _expected_excess(a_values, a_w, b_values, b_w):
    """``E (A - B)^+`` for independent ``A`` and ``B`` (``b_values`` non-decreasing): what the ordering of
    :func:`quantile_interval`'s ends adds to the mean width where the lower end was drawn above the upper one."""
    cw = np.concatenate(([0.0], np.cumsum(b_w)))
    cwv = np.concatenate(([0.0], np.cumsum(b_w * b_values)))
    idx = np.searchsorted(b_values, a_values, side="left")      # the B values strictly below each A value
    return float(np.sum(a_w * np.maximum(a_values * cw[idx] - cwv[idx], 0.0)))


class MethodCoverage(NamedTuple):
    """One interval method's simulated coverage, its Monte-Carlo standard error and its intervals' mean width."""

    coverage: float
    standard_error: float
    mean_width: float


@dataclass(frozen=True)
class IntervalCoverage:
    """The result of a coverage simulation (:func:`mean_interval_coverage` and the other ``*_interval_coverage``).

    Attributes
    ----------
    noise_aware, naive, non_private : MethodCoverage
        ``(coverage, standard_error, mean_width)`` of the noise-aware and the naive private intervals and of the
        textbook interval on the (clamped) sample, without noise.
    truth : float
        The number whose coverage was measured (the target parameter, or the caller's ``target``).
    intervals : dict or None
        With ``keep_intervals=True``: ``method -> (lows, highs)``, the simulated intervals; otherwise None.
    """

    noise_aware: MethodCoverage
    naive: MethodCoverage
    non_private: MethodCoverage
    truth: float
    intervals: dict | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """``{"noise_aware": ..., "naive": ..., "non_private": ..., "truth": ...}`` (and ``"intervals"`` if kept):
        the result as :func:`interval_coverage` returns it."""
        out: dict[str, Any] = {"noise_aware": self.noise_aware, "naive": self.naive, "non_private": self.non_private,
                               "truth": self.truth}
        if self.intervals:
            out["intervals"] = self.intervals
        return out


class _Simulation(NamedTuple):
    n: int
    eps: float
    reps: int
    level: float
    gen: np.random.Generator
    truth: float
    z: float
    tf: float
    keep: dict | None


def _simulation(kind, population, n, epsilon, reps, level, target, keep_intervals, rng, **param):
    """The checks and the set-up shared by the coverage simulations, in the order a call checks its arguments."""
    n = check_positive_int(n, "n", minimum=2)
    eps = check_epsilon(epsilon)
    reps = check_size(reps, "reps", cap=_MAX_REPS, minimum=2)
    lev = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    check_size(reps * n, "reps * n")
    gen = as_rng(rng)
    truth = population_parameter(kind, population, **param)
    if target is not None:
        truth = check_real(target, "target")
    z, tf = _z(lev), _t_factor(lev, n - 1)
    keep = {} if check_flag(keep_intervals, "keep_intervals") else None
    return _Simulation(n, eps, reps, lev, gen, truth, z, tf, keep)


def _summary(sim: _Simulation, hits: dict[str, Any], widths: dict[str, Any]) -> IntervalCoverage:
    per = {}
    for meth in ("noise_aware", "naive", "non_private"):
        h = np.asarray(hits[meth], dtype=float)
        per[meth] = MethodCoverage(float(h.mean()), float(h.std(ddof=1) / math.sqrt(sim.reps)),
                                   float(np.mean(widths[meth])))
    return IntervalCoverage(per["noise_aware"], per["naive"], per["non_private"], float(sim.truth),
                            sim.keep if sim.keep else None)


def _mean_coverage(population, n, epsilon, lower, upper, reps, level, spread, target, keep_intervals,
                   rng):
    sim = _simulation("mean", population, n, epsilon, reps, level, target, keep_intervals, rng, lower=lower,
                      upper=upper, spread=spread)
    n, keep, truth = sim.n, sim.keep, sim.truth
    lo, hi = check_bounds(lower, upper, max_width=MEAN_BOUNDS_WIDTH)
    x = _draw(check_real_array(population, "population", ndim=1), sim.reps, n, spread, sim.gen)
    r = _simulated_mean_releases(x, lo, hi, sim.eps, sim.gen)
    h2 = _second_moment_bound(lo, hi)[1]
    hits, widths = {}, {}
    for meth in INTERVAL_METHODS:
        hits[meth], widths[meth] = _cover(r.mean_t, _mean_halfwidth(meth, r.var_t, n, r.b_mean, r.b_moment, h2,
                                                                     sim.level), truth, keep, meth)
    hits["non_private"], widths["non_private"] = _cover(r.means, sim.z * sim.tf * np.sqrt(r.variances / n), truth,
                                                        keep, "non_private")
    return _summary(sim, hits, widths)


def mean_interval_coverage(population: ArrayLike, n: int, epsilon: float, *, lower: float, upper: float,
                           reps: int = 1000, level: float = 0.95, spread: float = 0.0, target: float | None = None,
                           keep_intervals: bool = False,
                           rng: np.random.Generator | int | None = None) -> IntervalCoverage:
    """Coverage and mean width of :func:`mean_interval`'s intervals, by simulation on a public population.

    Not a release: each of ``reps`` repetitions draws ``n`` records from ``population`` (see
    :func:`population_parameter`), releases them as :func:`mean_interval` does (its exact samplers and noise
    scales: epsilon-DP under replace-one, theorem ``inf-thm-mean-privacy``; numpy row means, a few ulps from the
    exactly rounded ones), builds both methods' intervals and checks that they hold the target, the clamped
    population mean. Coverage is over the sampling and the privacy noise (definition ``inf-def-coverage``).

    Parameters
    ----------
    population : array_like of floats, shape (m,)
        The public records drawn from, uniformly with replacement.
    n : int
        Records per repetition, >= 2.
    epsilon : float
        The epsilon of each simulated release, > 0.
    lower, upper : float
        The bounds of :func:`mean_interval`.
    reps : int, default 1000
        Repetitions, in [2, 20000]; ``reps * n`` at most ``MAX_SIZE``.
    level : float, default 0.95
        Nominal coverage, in (0, 1).
    spread : float, default 0.0
        Width (>= 0) of the uniform jitter added to each drawn record.
    target : float, optional
        The number whose coverage is measured instead (e.g. the true mean when the bounds clamp).
    keep_intervals : bool, default False
        Keep the simulated intervals in the result's ``intervals``.
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    IntervalCoverage
        ``noise_aware``, ``naive`` and ``non_private`` (the textbook t interval on the clamped sample), each
        ``(coverage, standard_error, mean_width)``; ``truth``; ``intervals``.

    Examples
    --------
    >>> out = mean_interval_coverage([3.0, 5.0], 50, 1.0, lower=0.0, upper=10.0, reps=100, rng=0)
    >>> out.truth, 0.0 <= out.noise_aware.coverage <= 1.0
    (4.0, True)
    """
    return _mean_coverage(population, n, epsilon, lower, upper, reps, level, spread, target, keep_intervals, rng)


def _proportion_coverage(population, n, epsilon, reps, level, target, keep_intervals, rng,
                         spread=0.0):
    sim = _simulation("proportion", population, n, epsilon, reps, level, target, keep_intervals, rng, spread=spread)
    n, keep, truth, z = sim.n, sim.keep, sim.truth, sim.z
    x = _draw(check_binary_array(population, "population", ndim=1).astype(float), sim.reps, n, 0.0, sim.gen)
    p_hat = x.mean(axis=1)
    counts_t, lattice = _proportion_release(x.sum(axis=1), n, sim.eps, sim.gen)
    p_t = counts_t / n
    pc = np.clip(p_t, 0.0, 1.0)
    hits, widths = {}, {}
    hits["naive"], widths["naive"] = _cover(p_t, z * np.sqrt(pc * (1 - pc) / n), truth, keep, "naive")
    low, high = _exact_proportion_ends(counts_t, n, lattice, sim.level)
    if keep is not None:
        keep["noise_aware"] = (low, high)
    hits["noise_aware"], widths["noise_aware"] = (low <= truth) & (truth <= high), high - low
    hits["non_private"], widths["non_private"] = _cover(p_hat, z * np.sqrt(p_hat * (1 - p_hat) / n), truth,
                                                        keep, "non_private")
    return _summary(sim, hits, widths)


def proportion_interval_coverage(population: ArrayLike, n: int, epsilon: float, *, reps: int = 1000,
                                 level: float = 0.95, target: float | None = None, keep_intervals: bool = False,
                                 rng: np.random.Generator | int | None = None) -> IntervalCoverage:
    """Coverage and mean width of :func:`proportion_interval`'s intervals, by simulation on a public population.

    Not a release: each of ``reps`` repetitions draws ``n`` 0/1 records from ``population``, releases their
    count as :func:`proportion_interval` does (epsilon-DP under replace-one, theorem ``inf-thm-mean-privacy``),
    builds the exact noise-aware interval (theorem ``inf-thm-proportion-exact``), the naive (Wald) one and the
    non-private Wald interval, and checks that they hold the population's share of ones. Coverage is over the
    sampling and the privacy noise (definition ``inf-def-coverage``).

    Parameters
    ----------
    population : array_like of 0/1, shape (m,)
        The public records drawn from, uniformly with replacement.
    n : int
        Records per repetition, >= 2.
    epsilon : float
        The epsilon of each simulated release, > 0.
    reps, level, target, keep_intervals, rng
        As in :func:`mean_interval_coverage`.

    Returns
    -------
    IntervalCoverage

    Examples
    --------
    >>> out = proportion_interval_coverage([0, 1] * 50, 100, 1.0, reps=200, rng=0)
    >>> out.truth, out.noise_aware.coverage > 0.8
    (0.5, True)
    """
    return _proportion_coverage(population, n, epsilon, reps, level, target, keep_intervals, rng)


def _difference_coverage(population, n, epsilon, lower, upper, reps, level, spread, target, keep_intervals,
                         rng):
    sim = _simulation("difference", population, n, epsilon, reps, level, target, keep_intervals, rng, lower=lower,
                      upper=upper, spread=spread)
    n, keep, truth, z, tf, gen = sim.n, sim.keep, sim.truth, sim.z, sim.tf, sim.gen
    lo, hi = check_bounds(lower, upper, max_width=MEAN_BOUNDS_WIDTH)
    rx = _simulated_mean_releases(_draw(check_real_array(population[0], "population[0]", ndim=1), sim.reps, n,
                                        spread, gen), lo, hi, sim.eps, gen)
    ry = _simulated_mean_releases(_draw(check_real_array(population[1], "population[1]", ndim=1), sim.reps, n,
                                        spread, gen), lo, hi, sim.eps, gen)
    d_t = rx.mean_t - ry.mean_t
    sd_t = tf * np.sqrt((rx.var_t + ry.var_t) / (n - 1))
    c_t = _bootstrap_halfwidth(rx.var_t, ry.var_t, n, n, rx.b_mean, ry.b_mean, rx.b_moment, ry.b_moment,
                               _second_moment_bound(lo, hi)[1], tf, sim.level, gen)
    hits, widths = {}, {}
    hits["noise_aware"], widths["noise_aware"] = _cover(d_t, c_t, truth, keep, "noise_aware")
    hits["naive"], widths["naive"] = _cover(d_t, z * sd_t, truth, keep, "naive")
    hits["non_private"], widths["non_private"] = _cover(rx.means - ry.means,
                                                        z * tf * np.sqrt((rx.variances + ry.variances) / n),
                                                        truth, keep, "non_private")
    return _summary(sim, hits, widths)


def difference_interval_coverage(population: tuple[ArrayLike, ArrayLike], n: int, epsilon: float, *, lower: float,
                                 upper: float, reps: int = 1000, level: float = 0.95, spread: float = 0.0,
                                 target: float | None = None, keep_intervals: bool = False,
                                 rng: np.random.Generator | int | None = None) -> IntervalCoverage:
    """Coverage and mean width of :func:`difference_of_means_interval`'s intervals, by simulation.

    Not a release: each of ``reps`` repetitions draws ``n`` records from each of the two public populations,
    releases both groups as :func:`difference_of_means_interval` does (epsilon-DP under replace-one inside a
    group of public size, theorem ``inf-thm-mean-privacy``), builds both methods' intervals (the noise-aware
    one by its parametric bootstrap) and the textbook one, and checks that they hold the difference of the
    clamped population means. Coverage is over the sampling and the privacy noise (definition
    ``inf-def-coverage``).

    Parameters
    ----------
    population : pair of array_like of floats
        The two public populations ``(population_x, population_y)``.
    n : int
        Records per group and repetition, >= 2.
    epsilon : float
        The epsilon of each simulated release, > 0.
    lower, upper, reps, level, spread, target, keep_intervals, rng
        As in :func:`mean_interval_coverage`.

    Returns
    -------
    IntervalCoverage

    Examples
    --------
    >>> out = difference_interval_coverage(([5.0, 7.0], [1.0, 3.0]), 50, 1.0, lower=0.0, upper=10.0, reps=20,
    ...                                    rng=0)
    >>> out.truth
    4.0
    """
    return _difference_coverage(population, n, epsilon, lower, upper, reps, level, spread, target, keep_intervals,
                                rng)


def _quantile_coverage(population, n, epsilon, q, lower, upper, reps, level, spread, resolution, target, rng,
                       keep_intervals=False):
    sim = _simulation("quantile", population, n, epsilon, reps, level, target, keep_intervals, rng, q=q,
                      spread=spread)
    n, reps, truth = sim.n, sim.reps, sim.truth
    lo, hi = check_bounds(lower, upper)
    res = _check_resolution(resolution)
    x = _draw(check_real_array(population, "population", ndim=1), reps, n, spread, sim.gen)
    eps_each = _half_epsilon(sim.eps)
    ranks = {meth: _quantile_ranks(q, n, eps_each, sim.level, meth) for meth in INTERVAL_METHODS}
    grid = _grid(lo, hi, res)
    below = grid[np.maximum(np.arange(res + 1) - 1, 0)]     # the widened ends of each released grid point
    above = grid[np.minimum(np.arange(res + 1) + 1, res)]
    hits = {meth: np.empty(reps) for meth in INTERVAL_METHODS}
    widths = {meth: np.empty(reps) for meth in INTERVAL_METHODS}
    one = np.ones(1)
    for r in range(reps):
        counts = np.searchsorted(np.sort(np.clip(x[r], lo, hi)), grid, side="left")
        for meth in INTERVAL_METHODS:
            q_lo, q_hi = ranks[meth]
            # the two widened ends A (lower draw) and B (upper draw): independent; a public bound is a point mass
            a_v, a_w = (np.array([lo]), one) if q_lo == 0.0 else (below, _end_law(counts, q_lo, n, eps_each))
            b_v, b_w = (np.array([hi]), one) if q_hi == 1.0 else (above, _end_law(counts, q_hi, n, eps_each))
            p_low, a_ge, a_eq, mean_low = _end_probabilities(a_v, a_w, truth)
            b_le, p_high, b_eq, mean_high = _end_probabilities(b_v, b_w, truth)
            # quantile_interval returns [min(A, B), max(A, B)]: it holds truth if A <= truth <= B or
            # B <= truth <= A (both when A = B = truth)
            p_swap, p_tie = b_le * a_ge, a_eq * b_eq
            hits[meth][r] = p_low * p_high + p_swap - p_tie
            widths[meth][r] = mean_high - mean_low + 2.0 * _expected_excess(a_v, a_w, b_v, b_w)   # E|B - A|
    q_lo, q_hi = ranks["naive"]
    ends = np.quantile(x, [q_lo, q_hi], axis=1, method="inverted_cdf")
    hits["non_private"] = (ends[0] <= truth) & (truth <= ends[1])
    widths["non_private"] = ends[1] - ends[0]
    return _summary(sim, hits, widths)


def quantile_interval_coverage(population: ArrayLike, n: int, epsilon: float, *, q: float = 0.5, lower: float,
                               upper: float, reps: int = 1000, level: float = 0.95, spread: float,
                               resolution: int = QUANTILE_RESOLUTION, target: float | None = None,
                               rng: np.random.Generator | int | None = None) -> IntervalCoverage:
    """Coverage and mean width of :func:`quantile_interval`'s intervals, exact in the privacy noise.

    Not a release: each of ``reps`` repetitions draws ``n`` records from ``population``, and contributes the
    probability, under the exact law of :func:`quantile_interval`'s two exponential-mechanism draws (epsilon-DP
    under replace-one, theorem ``inf-thm-quantile-ranks``; grid ``resolution``, ends widened and ordered), that
    the interval holds the population q-quantile, and the interval's expected width ``E|B - A|``. Coverage is
    over the sampling and the privacy noise (definition ``inf-def-coverage``). The standard error is that of
    the per-sample probabilities, unreliable from a few dozen skewed ones: ``sqrt(c (1 - c) / reps)`` (``c``
    the coverage) bounds the true one.

    Parameters
    ----------
    population : array_like of floats, shape (m,)
        The public records drawn from, uniformly with replacement.
    n : int
        Records per repetition, >= 2.
    epsilon : float
        The epsilon of each simulated release, > 0.
    q : float, default 0.5
        The quantile, in (0, 1).
    lower, upper, resolution
        The bounds and the grid of :func:`quantile_interval`.
    spread : float
        Width (> 0: the population quantile must be unique) of the uniform jitter added to each record.
    reps, level, target, rng
        As in :func:`mean_interval_coverage`.

    Returns
    -------
    IntervalCoverage
        As in :func:`mean_interval_coverage`, with ``intervals`` None.

    Examples
    --------
    >>> out = quantile_interval_coverage([1.0, 3.0], 20, 1.0, lower=0.0, upper=4.0, spread=2.0, reps=4,
    ...                                  resolution=64, rng=0)
    >>> round(out.truth, 6), 0.0 <= out.noise_aware.coverage <= 1.0
    (2.0, True)
    """
    return _quantile_coverage(population, n, epsilon, q, lower, upper, reps, level, spread, resolution, target, rng)


def interval_coverage(kind: str, population: ArrayLike | tuple[ArrayLike, ArrayLike], n: int, epsilon: float, *,
                      reps: int = 1000, level: float = 0.95, lower: float | None = None, upper: float | None = None,
                      q: float = 0.5, spread: float = 0.0, resolution: int = QUANTILE_RESOLUTION,
                      target: float | None = None, keep_intervals: bool = False,
                      rng: np.random.Generator | int | None = None) -> dict[str, Any]:
    """Coverage and mean width of the intervals of ``kind``, by simulation, as a dict.

    Calls :func:`mean_interval_coverage`, :func:`proportion_interval_coverage`,
    :func:`difference_interval_coverage` or :func:`quantile_interval_coverage` with the parameters that
    kind takes (the others are ignored) and returns :meth:`IntervalCoverage.as_dict`. Not a release: the
    simulated releases are those of the interval functions (epsilon-DP under replace-one, theorem
    ``inf-thm-mean-privacy``); coverage is over the sampling and the privacy noise (definition
    ``inf-def-coverage``).

    Parameters
    ----------
    kind : {"mean", "proportion", "difference", "quantile"}
        Which interval function is simulated.
    population, n, epsilon
        As in the function of ``kind`` (for ``"difference"``, a pair of populations).
    reps, level, lower, upper, q, spread, resolution, target, keep_intervals, rng
        As in the function of ``kind``; ``keep_intervals`` is ignored for ``"quantile"``.

    Returns
    -------
    dict
        ``method -> (coverage, standard_error, mean_width)`` for ``"noise_aware"``, ``"naive"`` and
        ``"non_private"``, ``"truth"``, and ``"intervals"`` (``method -> (lows, highs)``) if kept.

    Examples
    --------
    >>> out = interval_coverage("proportion", [0, 1] * 50, 100, 1.0, reps=200, rng=0)
    >>> sorted(out)
    ['naive', 'noise_aware', 'non_private', 'truth']
    """
    kind = check_choice(kind, "kind", KINDS)
    if kind == "mean":
        result = _mean_coverage(population, n, epsilon, lower, upper, reps, level, spread, target, keep_intervals, rng)
    elif kind == "proportion":
        result = _proportion_coverage(population, n, epsilon, reps, level, target, keep_intervals, rng, spread)
    elif kind == "difference":
        result = _difference_coverage(population, n, epsilon, lower, upper, reps, level, spread, target,
                                      keep_intervals, rng)
    else:
        result = _quantile_coverage(population, n, epsilon, q, lower, upper, reps, level, spread, resolution,
                                    target, rng, keep_intervals)
    return result.as_dict()


# ----------------------------------------------------------------------------------------------------
# The chapter's populations and coverage grid.

#: Public bounds of penguin body mass in grams (those of :func:`dpcourse.data.load_penguins`).
PENGUIN_BOUNDS = (2000.0, 7000.0)
#: Body masses are recorded to the nearest 25 g; the simulated population spreads each over its 25 g cell.
PENGUIN_SPREAD = 25.0


def course_populations() -> dict[str, dict[str, Any]]:
    """The populations of the chapter's simulations, from data the course ships.

    Penguin body mass (mean, median; male minus female for the difference), bounds ``PENGUIN_BOUNDS`` and jitter
    ``PENGUIN_SPREAD``, and the affairs survey's ``any_affair`` (proportion).

    Returns
    -------
    dict
        ``kind -> keyword arguments`` of :func:`interval_coverage` for that kind (``population`` and, where
        the kind takes them, ``lower``, ``upper``, ``spread``, ``q``).

    Examples
    --------
    >>> sorted(course_populations())
    ['difference', 'mean', 'proportion', 'quantile']
    """
    from .data import load_affairs, load_penguins

    d = load_penguins()
    ok = ~np.isnan(d["body_mass_g"])
    mass, sex = d["body_mass_g"][ok], d["sex"][ok]
    lo, hi = PENGUIN_BOUNDS
    common = dict(lower=lo, upper=hi, spread=PENGUIN_SPREAD)
    return {"mean": dict(population=mass, **common),
            "proportion": dict(population=load_affairs()["any_affair"].astype(int)),
            "difference": dict(population=(mass[sex == "male"], mass[sex == "female"]), **common),
            "quantile": dict(population=mass, q=0.5, **common)}


def coverage_grid(kind: str, ns: Sequence[int], epsilons: Sequence[float], *, reps: int,
                  rng: np.random.Generator | int | None = None,
                  **overrides: Any) -> dict[tuple[int, float], dict[str, Any]]:
    """:func:`interval_coverage` of ``kind`` on the course population for every ``(n, epsilon)``.

    Not a release: a grid of simulations of the interval functions' releases (epsilon-DP under replace-one,
    theorem ``inf-thm-mean-privacy``; coverage as in definition ``inf-def-coverage``). Repetitions run in chunks
    of at most ``MAX_SIZE // (2 n)`` (and at least 2), so that any ``reps`` fits the per-call cap.

    Parameters
    ----------
    kind : {"mean", "proportion", "difference", "quantile"}
        The population of :func:`course_populations` and the interval function simulated.
    ns : sequence of int
        Sample sizes, each in [2, MAX_SIZE // 6].
    epsilons : sequence of float
        Epsilons, each > 0.
    reps : int
        Repetitions per cell, in [2, 20000].
    rng : None, int or numpy.random.Generator, optional
    **overrides
        Keyword arguments of :func:`interval_coverage` replacing the course population's.

    Returns
    -------
    dict
        ``{(n, epsilon): result}``, each result as :func:`interval_coverage`'s with the chunks pooled (coverage
        and width averaged, the standard error pooled from the chunks').

    Examples
    --------
    >>> g = coverage_grid("proportion", [100], [1.0], reps=50, rng=0)
    >>> list(g), sorted(g[(100, 1.0)])
    ([(100, 1.0)], ['naive', 'noise_aware', 'non_private', 'truth'])
    """
    from ._validation import MAX_SIZE

    kw = dict(course_populations()[check_choice(kind, "kind", KINDS)], **overrides)
    gen = as_rng(rng)
    reps = check_size(reps, "reps", cap=_MAX_REPS, minimum=2)
    # every chunk holds at least 2 repetitions (interval_coverage's minimum): chunks of at most MAX_SIZE // (2 n)
    # (a difference draws 2 n records per repetition), at least 3, with a last chunk of 1 merged into the one before
    n_cap = MAX_SIZE // 6
    ns = [check_positive_int(n, "ns (each sample size)", minimum=2) for n in ns]
    epsilons = [check_epsilon(e) for e in epsilons]
    if any(n > n_cap for n in ns):
        raise ValueError(f"ns must hold sample sizes of at most MAX_SIZE // 6 = {n_cap} (a simulation chunk of 3 "
                         f"repetitions must fit MAX_SIZE records), got {max(ns)}")
    out = {}
    for n in ns:
        for eps in epsilons:
            chunk = MAX_SIZE // (2 * n)
            sizes, left = [], reps
            while left > 0:
                sizes.append(min(chunk, left))
                left -= sizes[-1]
            if sizes[-1] == 1:            # reps = k chunk + 1: the last two chunks become chunk - 1 and 2
                sizes[-2:] = [sizes[-2] - 1, 2]
            parts = [(m, interval_coverage(kind, n=n, epsilon=eps, reps=m, rng=gen, **kw)) for m in sizes]
            res = {"truth": parts[0][1]["truth"]}
            for meth in ("noise_aware", "naive", "non_private"):
                cov = sum(m * r[meth][0] for m, r in parts) / reps
                se = math.sqrt(sum((m * r[meth][1]) ** 2 for m, r in parts)) / reps
                res[meth] = (cov, se, sum(m * r[meth][2] for m, r in parts) / reps)
            out[(n, eps)] = res
    return out
