"""Confidence intervals from differentially private releases (chapter "Private statistical inference").

Each interval function releases a few noisy statistics with the course's secure samplers, then turns that
release into an interval without touching the data again (post-processing, theorem ``inf-thm-post``). It
returns a :class:`PrivateInterval` holding the interval, the released numbers it was computed from, the
public noise scales, and the privacy events of the release, which a caller's
:class:`dpcourse.PrivacyAccountant` can compose (or pass ``accountant=`` and the events are composed into it).

Neighbouring relation throughout: **replace one record**, with the number of records ``n`` public (for
two groups: each group's size public, a record replaced inside its group). Coverage is over both the
sampling of the records from a population and the privacy noise (definition ``inf-def-coverage``); the
target is the *clamped* population parameter (the mean of the values clamped to the public bounds), which
equals the true one only if the bounds hold the whole population.

Methods:

* ``"noise_aware"`` (default): the half-width is the ``level`` quantile of ``|S + L|``, with ``S`` the
  normal approximation of the sampling error and ``L`` the Laplace noise of the release, computed exactly
  (theorem ``inf-thm-convolution``); for a difference of two means, by a parametric bootstrap of that
  error law (Ferrando, Wang and Sheldon 2022); for a quantile, ranks widened by the same law in rank units.
* ``"naive"``: the textbook interval computed from the noisy statistics as if they were exact. It
  under-covers when the privacy noise is not small against the sampling error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtri

from ._validation import (as_rng, check_binary_array, check_bounds, check_choice, check_epsilon, check_flag,
                          check_positive_int, check_probability, check_real, check_real_array, check_size)
from .accounting import LaplaceEvent, PrivacyAccountant, PureDPEvent
from .laplace import _clamped_mean_query, laplace_mechanism
from .quantiles import _check_resolution, dp_quantile, dp_quantile_probabilities

__all__ = ["PrivateInterval", "mean_interval", "proportion_interval", "difference_of_means_interval",
           "quantile_interval", "noise_aware_halfwidth", "interval_coverage", "population_parameter",
           "course_populations", "coverage_grid", "INTERVAL_METHODS", "MEAN_SPLIT", "BOOTSTRAP_DRAWS",
           "PENGUIN_BOUNDS", "PENGUIN_SPREAD"]

INTERVAL_METHODS = ("noise_aware", "naive")
#: Share of epsilon spent on the clamped mean; the rest goes to the clamped second moment (theorem ``inf-thm-mean-privacy``).
MEAN_SPLIT = 0.8
#: Draws of the parametric bootstrap of :func:`difference_of_means_interval`.
BOOTSTRAP_DRAWS = 4000
#: Largest width ``upper - lower`` of the bounds of a mean interval (2**500, about 3e150): the second moment's
#: bound ``((upper - lower)/2)^2`` must stay finite and within ``WIDE_BOUNDS`` (wider bounds are refused by name).
MEAN_BOUNDS_WIDTH = 2.0**500
_BISECTION_STEPS = 60
_NEGLIGIBLE = 1e-6
_MAX_REPS = 20000


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
    # that moves the half-width by a relative 1e-5 at most.
    no_norm = (sigma == 0) | (sigma < _NEGLIGIBLE * b)
    no_lap = ~no_norm & ((b == 0) | (b < _NEGLIGIBLE * sigma))
    s = np.where(no_norm, 1.0, sigma)            # safe stand-ins where a part is absent (chosen by np.where below)
    bb = np.where(no_lap | (b == 0), 1.0, b)
    with np.errstate(all="ignore"):
        half = s * s / (2.0 * bb * bb)
        a = np.exp(-c / bb + half + log_ndtr(c / s - s / bb))
        d = np.exp(c / bb + half + log_ndtr(-c / s - s / bb))
        both = np.clip(2.0 * np.exp(log_ndtr(-c / s)) + (a - d), 0.0, 1.0)
        only_norm = 2.0 * np.exp(log_ndtr(-c / s))
        only_lap = np.where(b > 0, np.exp(-c / np.where(b > 0, b, 1.0)), (c == 0).astype(float))
    return np.where(no_norm, only_lap, np.where(no_lap, only_norm, both))


def noise_aware_halfwidth(sigma, b, level=0.95):
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
    level : float
        In (0, 1).

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
    s, bb = np.broadcast_arrays(s, bb)
    alpha = 1.0 - lev
    hi = s * float(-ndtri(alpha / 4.0)) + bb * math.log(2.0 / alpha)
    if hi.ndim == 0:                             # one interval: Brent's method, a dozen evaluations
        if hi == 0.0:
            return 0.0
        if not math.isfinite(float(hi)):
            raise ValueError(f"sigma and b must give a finite half-width, got sigma={float(s)!r}, b={float(bb)!r}")
        return float(brentq(lambda c: float(_laplace_normal_tail(c, s, bb)) - alpha, 0.0, float(hi),
                            xtol=max(1e-15 * float(hi), 5e-324), rtol=4 * np.finfo(float).eps))
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
    """``t_{df, (1+level)/2} / z_{(1+level)/2}``: widens a normal sampling error for an estimated variance (df = n - 1)."""
    from scipy.stats import t as student_t
    if level < _TINY_LEVEL:   # both quantiles -> 0 (z = 0 at level 1e-300); their ratio -> phi(0) / f_t(0), to O(level^2)
        return float(1.0 / math.sqrt(2.0 * math.pi) / student_t.pdf(0.0, df))
    # isf of (1 - level) / 2, not ppf of (1 + level) / 2: that rounds to 1.0 (t = inf) for level = 1 - 2**-53
    return float(student_t.isf((1.0 - level) / 2.0, df)) / _z(level)


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
    ``mean_k P(|S_k + L| > c) = 1 - level`` with ``S_k ~ N(0, t^2 v_k / n)``, ``v_k = clip(var_t + b_moment u_k,
    0, h2)`` and ``u_k`` the ``VARIANCE_NODES`` midpoint quantiles of a standard Laplace: the law of
    theorem ``inf-thm-convolution`` averaged over the variances the release is compatible with (a
    parametric-bootstrap step done by quadrature). Vectorized over ``var_t``; bisection between 0 and the
    union bound of the largest node.
    """
    var_t = np.atleast_1d(np.asarray(var_t, float))
    s = t_factor * np.sqrt(np.clip(var_t[:, None] + b_moment * _LAPLACE_NODES[None, :], 0.0, h2) / n)
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
    """Half-width of :func:`mean_interval`: naive ``z t sqrt(v/n)``, or the noise-aware mixture."""
    tf = _t_factor(level, n - 1)
    if method == "naive":
        return _z(level) * tf * np.sqrt(np.asarray(var_t, float) / n)
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


def _noisy_moments(means, moments, n, lo, hi, eps, gen):
    """Laplace releases of clamped means (``MEAN_SPLIT * eps``) and second moments about the midpoint (the rest).

    ``means`` and ``moments`` may be arrays (one entry per independent dataset of size ``n``, for the
    simulation); each entry then gets noise of the same scale, on the lattice of a release of that many
    values (:func:`dpcourse.laplace_mechanism`), rather than exactly the draw of a single call. Returns the noisy
    values, the two Laplace scales the interval assumes and the two epsilons.
    """
    eps1, eps2 = MEAN_SPLIT * eps, (1.0 - MEAN_SPLIT) * eps
    _, h2 = _second_moment_bound(lo, hi)
    s1, s2 = _mean_sensitivity(lo, hi, n), _mean_sensitivity(0.0, h2, n)
    m_t = laplace_mechanism(means, s1, eps1, rng=gen)
    v_t = laplace_mechanism(moments, s2, eps2, rng=gen)
    return m_t, v_t, s1 / eps1, s2 / eps2, (eps1, eps2)


def _mean_release(values, lo, hi, eps, gen):
    """One dataset: the exactly rounded clamped mean and second moment (``math.fsum``), released."""
    clamped = np.clip(values, lo, hi)
    mid, h2 = _second_moment_bound(lo, hi)
    mean = _clamped_mean_query(clamped, lo, hi)[0]
    moment = _clamped_mean_query((clamped - mid) ** 2, 0.0, h2)[0]
    return _noisy_moments(mean, moment, values.size, lo, hi, eps, gen)


def _proportion_release(counts, n, eps, gen):
    """Noisy proportions: counts of ones plus Laplace noise of scale 1/eps (sensitivity 1), over n; and that scale / n."""
    return laplace_mechanism(counts, 1.0, eps, rng=gen) / n, 1.0 / (n * eps)


def _variance_from_moments(m_t, v_t, lo, hi):
    """Post-processing: the variance ``E(x - mid)^2 - (E x - mid)^2`` of the noisy moments, clipped to ``[0, ((hi-lo)/2)^2]``."""
    mid, h2 = _second_moment_bound(lo, hi)
    return np.clip(np.asarray(v_t) - (np.clip(m_t, lo, hi) - mid) ** 2, 0.0, h2)


def mean_interval(x, lower, upper, epsilon, *, level=0.95, method="noise_aware", rng=None, accountant=None):
    """A confidence interval for the mean of the values clamped to ``[lower, upper]``, from a DP release.

    Release (theorem ``inf-thm-mean-privacy``): the clamped mean with Laplace noise of scale
    ``(upper - lower) / (n eps1)``, ``eps1 = MEAN_SPLIT * epsilon``, and the mean of the squared deviations
    of the clamped values from the midpoint ``mid`` with scale ``((upper - lower)/2)^2 / (n eps2)``,
    ``eps2 = epsilon - eps1``; both with :func:`dpcourse.laplace_mechanism` (exact lattice sampler).
    epsilon-DP under replace-one with ``n`` public (basic composition).

    Interval (post-processing): ``m ± c`` with ``m`` the noisy mean, ``v`` the noisy variance
    (clipped to ``[0, ((upper-lower)/2)^2]``), ``sigma = sqrt(v / n)``, ``b`` the mean's Laplace scale and

    * ``"noise_aware"``: ``c`` solves ``mean_k P(|S_k + L| > c) = 1 - level``, the law of theorem
      ``inf-thm-convolution`` averaged over ``VARIANCE_NODES`` variances ``clip(v + b2 u_k)`` that the noisy
      second moment (Laplace scale ``b2``) is compatible with, each widened by ``t_{n-1}/z``;
    * ``"naive"``: ``c = z sigma``, which ignores the noise.

    It targets the mean of the *clamped* population: values outside the bounds bias it (chapter text).
    The coverage is approximate (normal sampling error, plug-in variance) and checked by simulation.

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 2
        Private values, finite.
    lower, upper : float
        Public clamping bounds, chosen without looking at the data; ``upper - lower <= 2**500``
        (``MEAN_BOUNDS_WIDTH``, also for :func:`difference_of_means_interval`).
    epsilon : float
        Total privacy parameter, > 0.
    level : float, default 0.95
        Nominal coverage, in (0, 1).
    method : {"noise_aware", "naive"}
    rng : None, int or numpy.random.Generator, optional
    accountant : PrivacyAccountant, optional
        If given, the release's events are composed into it.

    Returns
    -------
    PrivateInterval

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
    events = _record([LaplaceEvent(eps1), LaplaceEvent(eps2)], accountant)
    return PrivateInterval(m_t - c, m_t + c, m_t, lev, meth, {"mean": m_t, "second_moment": v_t, "n": n},
                           {"mean": b1, "second_moment": b2}, events, eps)


# ----------------------------------------------------------------------------------------------------
# Proportion.


def proportion_interval(bits, epsilon, *, level=0.95, method="noise_aware", rng=None, accountant=None):
    """A confidence interval for a proportion from a DP count (theorem ``inf-thm-mean-privacy`` with one release).

    Release: the count of ones plus Laplace noise of scale ``1 / epsilon`` (:func:`dpcourse.laplace_mechanism`,
    sensitivity 1 under replace-one with ``n`` public): epsilon-DP. Interval (post-processing): ``p ± c`` with
    ``p`` the noisy count over ``n``, ``sigma = sqrt(p' (1 - p') / n)`` (``p'`` = ``p`` clipped to [0, 1]),
    ``b = 1 / (n epsilon)``, and ``c`` as in :func:`mean_interval`.

    Examples
    --------
    >>> r = proportion_interval([0, 1, 1, 0], 1e6, rng=0)
    >>> round(r.estimate, 3), r.release["n"]
    (0.5, 4)
    """
    x = check_binary_array(bits, "bits", ndim=1)
    if x.size < 2:
        raise ValueError("bits must hold at least 2 records (an interval needs a sample variance)")
    eps, lev, meth, gen = _common(epsilon, level, method, rng, accountant)
    n = x.size
    p, b = _proportion_release(float(x.sum()), n, eps, gen)
    count_t = p * n
    pc = min(max(p, 0.0), 1.0)
    c = float(_halfwidth(meth, math.sqrt(pc * (1.0 - pc) / n), b, lev))
    events = _record([LaplaceEvent(eps)], accountant)
    return PrivateInterval(p - c, p + c, p, lev, meth, {"count": count_t, "n": n}, {"count": b * n},
                           events, eps)


# ----------------------------------------------------------------------------------------------------
# Difference of two means (two groups with public sizes).


def _bootstrap_halfwidth(var_x, var_y, n_x, n_y, b_x, b_y, b2_x, b2_y, h2, t_factor, level, gen,
                         draws=BOOTSTRAP_DRAWS):
    """Parametric bootstrap: the ``level`` quantile of ``|S + L_x - L_y|`` (one row per entry of ``var_x``).

    Each draw redraws the two variances from their releases, ``clip(var + Laplace(b2), 0, h2)`` (the second
    moments' noise, as in :func:`_mixed_halfwidth`), then ``S ~ N(0, t^2 (v_x / n_x + v_y / n_y))``.
    """
    var_x, var_y = np.atleast_1d(np.asarray(var_x, float)), np.atleast_1d(np.asarray(var_y, float))
    shape = (var_x.size, draws)
    vx = np.clip(var_x[:, None] + gen.laplace(0.0, b2_x, shape), 0.0, h2)
    vy = np.clip(var_y[:, None] + gen.laplace(0.0, b2_y, shape), 0.0, h2)
    sigma = t_factor * np.sqrt(vx / n_x + vy / n_y)
    err = sigma * gen.standard_normal(shape) + gen.laplace(0.0, b_x, shape) - gen.laplace(0.0, b_y, shape)
    return np.quantile(np.abs(err), level, axis=1)


def difference_of_means_interval(x, y, lower, upper, epsilon, *, level=0.95, method="noise_aware", rng=None,
                                 accountant=None):
    """A confidence interval for ``mean(x) - mean(y)`` (both clamped to ``[lower, upper]``) of two groups.

    Release: :func:`mean_interval`'s two statistics for each group, each group with the whole ``epsilon``.
    The groups are disjoint sets of people with **public sizes** (the sizes are in the release and set the
    noise scales); replacing one record inside its group changes one group's statistics only, so the release
    is epsilon-DP (parallel composition, theorem ``inf-thm-mean-privacy``). If group membership is private
    (sizes counted from the data), a replacement can move a record between groups: this function is then
    not epsilon-DP and must not be used as is (release noisy sizes and charge both groups).
    Interval (post-processing): ``(m_x - m_y) ± c``; ``"noise_aware"``: ``c`` is the ``level`` quantile of
    ``|S + L_x - L_y|``, ``S ~ N(0, t^2 (v_x/n_x + v_y/n_y))`` with each variance redrawn from its noisy
    release per draw, estimated from ``BOOTSTRAP_DRAWS`` draws (a
    parametric bootstrap of the error, whose own randomness is post-processing of the release and drawn
    from ``rng`` with numpy's samplers); ``"naive"``: ``c = z sqrt(v_x/n_x + v_y/n_y)``.

    Examples
    --------
    >>> r = difference_of_means_interval([5.0, 6.0], [1.0, 2.0], 0.0, 10.0, 1e6, rng=0)
    >>> round(r.estimate, 3), r.events
    (4.0, (PureDPEvent(epsilon=1000000.0),))
    """
    vx, vy = _values(x, "x"), _values(y, "y")
    lo, hi = check_bounds(lower, upper, max_width=MEAN_BOUNDS_WIDTH)
    eps, lev, meth, gen = _common(epsilon, level, method, rng, accountant)
    mx, sx, bx, bx2, (e1, e2) = _mean_release(vx, lo, hi, eps, gen)
    my, sy, by, by2, _ = _mean_release(vy, lo, hi, eps, gen)
    var_x, var_y = float(_variance_from_moments(mx, sx, lo, hi)), float(_variance_from_moments(my, sy, lo, hi))
    tf = _t_factor(lev, min(vx.size, vy.size) - 1)
    if meth == "naive":
        c = _z(lev) * tf * math.sqrt(var_x / vx.size + var_y / vy.size)
    else:
        c = float(_bootstrap_halfwidth(var_x, var_y, vx.size, vy.size, bx, by, bx2, by2,
                                       _second_moment_bound(lo, hi)[1], tf, lev, gen)[0])
    # Parallel composition: the two groups' events are charged once, as one epsilon-DP release.
    events = _record([PureDPEvent(eps)], accountant)
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


def _quantile_ends(values, q_lo, q_hi, lo, hi, eps, gen, res, size=None):
    """The two ends: ``dp_quantile`` at ranks ``q_lo`` and ``q_hi`` with ``eps / 2`` each, or the public bound
    where a rank is 0 (1); and the events of what was released. ``size``: that many independent draws of each."""
    eps_each = eps / 2.0
    y_lo = dp_quantile(values, q_lo, lo, hi, eps_each, rng=gen, resolution=res, size=size) if q_lo > 0.0 else lo
    y_hi = dp_quantile(values, q_hi, lo, hi, eps_each, rng=gen, resolution=res, size=size) if q_hi < 1.0 else hi
    released = [r for r in (q_lo, q_hi) if 0.0 < r < 1.0]
    return y_lo, y_hi, [PureDPEvent(eps_each) for _ in released]   # none built when nothing is released


def quantile_interval(x, q, lower, upper, epsilon, *, level=0.95, method="noise_aware", rng=None,
                      accountant=None, resolution=2**12):
    """A confidence interval for the population q-quantile from two DP quantiles (:func:`dpcourse.dp_quantile`).

    Release: ``dp_quantile(x, q_lo, ...)`` and ``dp_quantile(x, q_hi, ...)``, each with ``epsilon / 2``
    (epsilon-DP by basic composition under replace-one, theorem ``inf-thm-mean-privacy``). The ranks are
    ``q -+ c / n`` with ``c`` the ``level`` half-width of ``S + L`` in rank units: ``S ~ N(0, n q (1 - q))``
    (the binomial count of sample values below the population quantile) and, for ``"noise_aware"``,
    ``L ~ Laplace(2 / (epsilon / 2))``, the rank error of the exponential mechanism when every gap between
    sorted values holds the same number of grid points (theorem ``inf-thm-quantile-ranks``); ``"naive"``
    takes ``L = 0`` (the order-statistic interval). The interval is ``[Y_lo, Y_hi]``: post-processing. A rank
    ``q - c/n <= 0`` (or ``q + c/n >= 1``) makes that end the public bound ``lower`` (``upper``) and nothing
    is released or charged for it: at small ``n epsilon`` the interval is the whole range.
    Approximate: the mechanism's rank error depends on the gaps; the chapter measures the coverage with the
    exact output law (:func:`dpcourse.dp_quantile_probabilities`).

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
    n = values.size
    q_lo, q_hi = _quantile_ranks(qq, n, eps / 2.0, lev, meth)
    # A rank clipped to 0 (or 1) makes that end the public bound: nothing is released for it (the
    # decision depends on q, n, epsilon and level only, all public).
    y_lo, y_hi, events = _quantile_ends(values, q_lo, q_hi, lo, hi, eps, gen, res)
    events = _record(events, accountant)
    return PrivateInterval(y_lo, y_hi, 0.5 * (y_lo + y_hi), lev, meth,
                           {"quantile_low": y_lo, "quantile_high": y_hi, "q_low": q_lo, "q_high": q_hi, "n": n},
                           {"rank_scale": 4.0 / eps}, events, (eps / 2.0) * len(events))


# ----------------------------------------------------------------------------------------------------
# Coverage by simulation (sampling from a population, then the privacy noise).

KINDS = ("mean", "proportion", "difference", "quantile")


def _clip_uniform_mean(a, w, lo, hi):
    """``E clip(V, lo, hi)`` for ``V`` uniform on ``[a, a + w]`` (``w > 0``), elementwise."""
    left = np.clip(a, lo, hi)
    right = np.clip(a + w, lo, hi)
    inside = (right ** 2 - left ** 2) / (2.0 * w)
    return inside + lo * np.clip((lo - a) / w, 0.0, 1.0) + hi * np.clip((a + w - hi) / w, 0.0, 1.0)


def population_parameter(kind, population, *, lower=None, upper=None, q=0.5, spread=0.0):
    """The parameter an interval of ``kind`` targets, for a population of records (not private: a simulation tool).

    A draw from the population is a record chosen uniformly plus ``Uniform(-spread/2, spread/2)`` jitter
    (``spread = 0``: the records themselves). ``"mean"``: the mean of the draws clamped to the bounds;
    ``"proportion"``: the share of ones; ``"difference"``: clamped mean of ``population[0]`` minus that of
    ``population[1]``; ``"quantile"``: the q-quantile (``spread > 0`` needed, so that it is unique).

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
        return float(np.mean(check_binary_array(population, "population", ndim=1)))
    if kind == "difference":
        px, py = population
        return (population_parameter("mean", px, lower=lower, upper=upper, spread=sp)
                - population_parameter("mean", py, lower=lower, upper=upper, spread=sp))
    pop = check_real_array(population, "population", ndim=1)
    if kind == "mean":
        lo, hi = check_bounds(lower, upper)
        if sp == 0.0:
            return float(np.mean(np.clip(pop, lo, hi)))
        return float(np.mean(_clip_uniform_mean(pop - sp / 2.0, sp, lo, hi)))
    qq = check_probability(q, "q", open_low=True, open_high=True)
    if sp == 0.0:
        raise ValueError("spread must be > 0 for kind='quantile' (a population quantile of a discrete "
                         "population need not be unique)")
    a, b = pop.min() - sp, pop.max() + sp
    for _ in range(200):   # bisection on the piecewise-linear CDF
        mid = 0.5 * (a + b)
        if np.mean(np.clip((mid - (pop - sp / 2.0)) / sp, 0.0, 1.0)) < qq:
            a = mid
        else:
            b = mid
    return float(0.5 * (a + b))


def _draw(pop, reps, n, spread, gen):
    x = pop[gen.integers(0, pop.size, size=(reps, n))]
    if spread > 0:
        x = x + spread * (gen.random((reps, n)) - 0.5)
    return x


def _simulated_mean_releases(x, lo, hi, eps, gen):
    """Row-wise :func:`mean_interval` releases (numpy row means; the same secure noise and scales)."""
    clamped = np.clip(x, lo, hi)
    mid, _ = _second_moment_bound(lo, hi)
    means = clamped.mean(axis=1)
    m_t, v_t, b, b2, _ = _noisy_moments(means, ((clamped - mid) ** 2).mean(axis=1), x.shape[1], lo, hi, eps, gen)
    return means, clamped.var(axis=1), m_t, _variance_from_moments(m_t, v_t, lo, hi), b, b2


def _cover(est, half, truth, keep=None, name=None):
    est = np.asarray(est, float)
    half = np.broadcast_to(np.asarray(half, float), est.shape)
    if keep is not None:
        keep[name] = (est - half, est + half)
    return np.abs(est - truth) <= half, 2.0 * half


def interval_coverage(kind, population, n, epsilon, *, reps=1000, level=0.95, lower=None, upper=None, q=0.5,
                      spread=0.0, resolution=2**12, target=None, keep_intervals=False, rng=None):
    """Coverage and mean width of the noise-aware, naive and non-private intervals, by simulation.

    Each of ``reps`` repetitions draws ``n`` records from ``population`` (see :func:`population_parameter`;
    for ``"difference"``, ``n`` from each of the two populations), releases the statistics of the
    interval function of ``kind`` with the course's secure samplers (vectorized over repetitions; the
    clamped means are numpy row means rather than the release's exactly rounded ones, a difference of a
    few ulps), builds the intervals and checks whether they hold the target parameter. Coverage is over
    the sampling **and** the privacy noise (definition ``inf-def-coverage``). For ``"quantile"`` the
    privacy noise is integrated exactly with :func:`dpcourse.dp_quantile_probabilities`: each repetition
    contributes the probability that its two released quantiles bracket the target.

    ``keep_intervals=True`` (not for ``"quantile"``) adds ``"intervals"``: ``method -> (lows, highs)``.
    ``target`` (optional, a float): the number whose coverage is measured instead of the parameter the
    intervals aim at, e.g. the population's true mean when the bounds clamp some values.

    Returns
    -------
    dict
        ``method -> (coverage, monte_carlo_standard_error, mean_width)`` for ``"noise_aware"``, ``"naive"``
        and ``"non_private"`` (the textbook interval on the clamped data, no noise), plus ``"truth"``.

    Examples
    --------
    >>> out = interval_coverage("proportion", [0, 1] * 50, 100, 1.0, reps=200, rng=0)
    >>> sorted(out)
    ['naive', 'noise_aware', 'non_private', 'truth']
    """
    kind = check_choice(kind, "kind", KINDS)
    n = check_positive_int(n, "n", minimum=2)
    eps = check_epsilon(epsilon)
    reps = check_size(reps, "reps", cap=_MAX_REPS, minimum=2)
    lev = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    check_size(reps * n, "reps * n")
    gen = as_rng(rng)
    truth = population_parameter(kind, population, lower=lower, upper=upper, q=q, spread=spread)
    if target is not None:
        truth = check_real(target, "target")
    z, tf = _z(lev), _t_factor(lev, n - 1)
    hits, widths = {}, {}
    keep = {} if check_flag(keep_intervals, "keep_intervals") else None
    if kind == "mean":
        lo, hi = check_bounds(lower, upper, max_width=MEAN_BOUNDS_WIDTH)
        x = _draw(check_real_array(population, "population", ndim=1), reps, n, spread, gen)
        means, var, m_t, var_t, b, b2 = _simulated_mean_releases(x, lo, hi, eps, gen)
        h2 = _second_moment_bound(lo, hi)[1]
        for meth in INTERVAL_METHODS:
            hits[meth], widths[meth] = _cover(m_t, _mean_halfwidth(meth, var_t, n, b, b2, h2, lev), truth, keep,
                                              meth)
        hits["non_private"], widths["non_private"] = _cover(means, z * tf * np.sqrt(var / n), truth, keep,
                                                            "non_private")
    elif kind == "proportion":
        x = _draw(check_binary_array(population, "population", ndim=1).astype(float), reps, n, 0.0, gen)
        p_hat = x.mean(axis=1)
        p_t, b = _proportion_release(x.sum(axis=1), n, eps, gen)
        pc = np.clip(p_t, 0.0, 1.0)
        for meth in INTERVAL_METHODS:
            hits[meth], widths[meth] = _cover(p_t, _halfwidth(meth, np.sqrt(pc * (1 - pc) / n), b, lev), truth,
                                              keep, meth)
        hits["non_private"], widths["non_private"] = _cover(p_hat, z * np.sqrt(p_hat * (1 - p_hat) / n), truth,
                                                            keep, "non_private")
    elif kind == "difference":
        lo, hi = check_bounds(lower, upper, max_width=MEAN_BOUNDS_WIDTH)
        rx = _simulated_mean_releases(_draw(check_real_array(population[0], "population[0]", ndim=1), reps, n,
                                            spread, gen), lo, hi, eps, gen)
        ry = _simulated_mean_releases(_draw(check_real_array(population[1], "population[1]", ndim=1), reps, n,
                                            spread, gen), lo, hi, eps, gen)
        d_t = rx[2] - ry[2]
        sd_t = tf * np.sqrt((rx[3] + ry[3]) / n)
        c_t = _bootstrap_halfwidth(rx[3], ry[3], n, n, rx[4], ry[4], rx[5], ry[5], _second_moment_bound(lo, hi)[1],
                                   tf, lev, gen)
        hits["noise_aware"], widths["noise_aware"] = _cover(d_t, c_t,
                                                            truth, keep, "noise_aware")
        hits["naive"], widths["naive"] = _cover(d_t, z * sd_t, truth, keep, "naive")
        hits["non_private"], widths["non_private"] = _cover(rx[0] - ry[0], z * tf * np.sqrt((rx[1] + ry[1]) / n),
                                                            truth, keep, "non_private")
    else:
        lo, hi = check_bounds(lower, upper)
        res = _check_resolution(resolution)
        x = _draw(check_real_array(population, "population", ndim=1), reps, n, spread, gen)
        grid_step = (hi - lo) / res
        k_truth = int(np.clip(np.floor((truth - lo) / grid_step) + 1, 0, res + 1))  # grid points <= truth
        for meth in INTERVAL_METHODS:
            q_lo, q_hi = _quantile_ranks(q, n, eps / 2.0, lev, meth)
            cov, wid = np.empty(reps), np.empty(reps)
            for r in range(reps):
                p_below, means = [], []
                for qq, edge in ((q_lo, 0.0), (q_hi, 1.0)):
                    if qq == edge:        # the public bound: lower (all below the truth) or upper (none)
                        p_below.append(1.0 - edge)
                        means.append(lo if edge == 0.0 else hi)
                        continue
                    starts, prob = dp_quantile_probabilities(x[r], qq, lo, hi, eps / 2.0, resolution=res)
                    cnt = np.diff(starts)
                    below = np.clip(k_truth - starts[:-1], 0, cnt)
                    with np.errstate(invalid="ignore", divide="ignore"):
                        p_below.append(float(np.sum(np.where(cnt > 0, prob * below / np.maximum(cnt, 1), 0.0))))
                    means.append(lo + grid_step * float(np.sum(prob * (starts[:-1] + starts[1:] - 1) / 2.0)))
                cov[r] = p_below[0] * (1.0 - p_below[1])
                wid[r] = means[1] - means[0]
            hits[meth], widths[meth] = cov, wid
        q_lo, q_hi = _quantile_ranks(q, n, eps / 2.0, lev, "naive")
        ends = np.quantile(x, [q_lo, q_hi], axis=1, method="inverted_cdf")
        hits["non_private"] = (ends[0] <= truth) & (truth <= ends[1])
        widths["non_private"] = ends[1] - ends[0]
    out = {}
    for meth in ("noise_aware", "naive", "non_private"):
        h = np.asarray(hits[meth], dtype=float)
        out[meth] = (float(h.mean()), float(h.std(ddof=1) / math.sqrt(reps)), float(np.mean(widths[meth])))
    out["truth"] = float(truth)
    if keep:
        out["intervals"] = keep
    return out


# ----------------------------------------------------------------------------------------------------
# The chapter's populations and coverage grid.

#: Public bounds of penguin body mass in grams (those of :func:`dpcourse.data.load_penguins`).
PENGUIN_BOUNDS = (2000.0, 7000.0)
#: Body masses are recorded to the nearest 25 g; the simulated population spreads each over its 25 g cell.
PENGUIN_SPREAD = 25.0


def course_populations():
    """The populations of the chapter's simulations, from data the course ships, as keyword arguments of
    :func:`interval_coverage` for each kind: penguin body mass (mean, median; male minus female for the
    difference) and the affairs survey's ``any_affair`` (proportion).

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


def coverage_grid(kind, ns, epsilons, *, reps, rng=None, **overrides):
    """:func:`interval_coverage` of ``kind`` on the course population for every ``(n, epsilon)``.

    Repetitions are run in chunks of at most ``MAX_SIZE // n`` so that any ``reps`` fits the per-call cap.
    Returns ``{(n, epsilon): result}`` with the chunks pooled (coverage and width averaged, the standard
    error recomputed from the pooled coverage for 0/1 outcomes, pooled from the chunks' errors otherwise).

    Examples
    --------
    >>> g = coverage_grid("proportion", [100], [1.0], reps=50, rng=0)
    >>> list(g), sorted(g[(100, 1.0)])
    ([(100, 1.0)], ['naive', 'noise_aware', 'non_private', 'truth'])
    """
    from ._validation import MAX_SIZE

    kw = dict(course_populations()[check_choice(kind, "kind", KINDS)], **overrides)
    gen = as_rng(rng)
    reps = check_size(reps, "reps", cap=_MAX_REPS)
    out = {}
    for n in ns:
        for eps in epsilons:
            chunk = max(1, MAX_SIZE // (2 * int(n)))
            parts, left = [], reps
            while left > 0:
                m = min(chunk, left)
                parts.append((m, interval_coverage(kind, n=n, epsilon=eps, reps=m, rng=gen, **kw)))
                left -= m
            res = {"truth": parts[0][1]["truth"]}
            for meth in ("noise_aware", "naive", "non_private"):
                cov = sum(m * r[meth][0] for m, r in parts) / reps
                se = math.sqrt(sum((m * r[meth][1]) ** 2 for m, r in parts)) / reps
                res[meth] = (cov, se, sum(m * r[meth][2] for m, r in parts) / reps)
            out[(n, eps)] = res
    return out
