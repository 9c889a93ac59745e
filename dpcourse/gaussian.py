"""The Gaussian mechanism: its exact privacy profile, calibrations and the mechanism itself.

The exact profile is the core every Gaussian statement of the course uses: a Gaussian mechanism with
l2 sensitivity Delta and noise sigma is characterised by mu = Delta / sigma alone, and its privacy
profile is (Balle & Wang 2018, Theorem 8)

    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu).

On top of it: the classic calibration of Dwork & Roth (valid for epsilon < 1 only), the analytic
calibration of Balle & Wang (the smallest sigma, for every epsilon > 0), and the mechanism itself.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from ._validation import (as_rng, check_delta, check_epsilon, check_flag, check_real, check_real_array,
                          check_sensitivity)
from .lattice import GaussianLattice, gaussian_lattice
from .lattice import _plain_scalar as plain_scalar, _secure_gaussian as secure_gaussian
from .lattice import _secure_gaussian1 as secure_gaussian1

_SQRT2 = np.sqrt(2.0)

__all__ = [
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_loss_tail",
    "gaussian_sigma",
    "analytic_gaussian_sigma",
    "gaussian_mechanism",
]


def _check_mu(mu: object) -> float:
    return check_real(mu, "mu", low=0.0, low_open=True)


_U = 2.0**-53
#: 8-point Gauss-Legendre nodes and weights on [-1, 1], for the integral of the hazard gap in :func:`_profile_log`.
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)
#: Where the formula's two terms cancel to below this fraction (1 - R in the tail form, delta / Phi(a) in the
#: body form), the profile is evaluated in the forms of :func:`_profile_log` that do not cancel.
_CANCEL = 0.25


def _hazard_gap(t: np.ndarray) -> np.ndarray:
    """``c(t) = phi(t) / Phi(-t) - t`` for t >= 0: the normal hazard rate minus t, in (0, sqrt(2/pi)], ~1/t for large t.

    Directly below t = 3 (the subtraction loses at most a factor 12 there), above by Laplace's continued
    fraction of the Mills ratio, ``c(t) = 1 / (t + 2 / (t + 3 / (t + ...)))`` (``min(100, 12 + 700 / t^2)`` terms:
    exact to rounding from t = 3 on, checked against 40-digit arithmetic).
    """
    t = np.asarray(t, dtype=float)
    out = np.empty_like(t)
    small = t < 3.0
    ts = t[small]
    out[small] = np.sqrt(2.0 / np.pi) / special.erfcx(ts / _SQRT2) - ts
    tl = t[~small]
    f = tl.copy()
    low = float(tl.min()) if tl.size else 3.0
    terms = min(100, 12 + int(700.0 / low / low))  # 89 at t = 3, 20 from t = 9.4
    for k in range(terms, 1, -1):
        f = tl + k / f
    out[~small] = 1.0 / f
    return out


def _profile_log(eps: npt.ArrayLike, mu: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(log delta(eps, mu), eta)`` elementwise for validated eps >= 0 and mu > 0: the log profile, accurate
    where the formula's two terms cancel, and a bound ``eta`` on its error (theorem ``thm-gaussian-profile``).

    With ``a = mu/2 - eps/mu`` and ``b = a - mu`` (b < 0 always):

    * tail form (a < 0): ``delta = Phi(a) (1 - R)`` with ``R = e^eps Phi(b) / Phi(a) = m(-b) / m(-a)``, m the
      Mills ratio (e^eps phi(b) = phi(a)). Since ``d/dt log m(t) = -c(t)`` (:func:`_hazard_gap`),
      ``1 - R = 1 - exp(-I)`` with ``I`` the integral of c over [-a, -b], an interval of length mu on which c
      changes little when ``1 - R`` is small. There (``1 - R < 1/4``) I is taken by 8-point Gauss-Legendre and
      ``log(1 - R) = log I + log((1 - e^-I) / I)``: nothing cancels. Elsewhere ``1 - R`` is
      ``(erfcx(-a/sqrt 2) - erfcx(-b/sqrt 2)) / erfcx(-a/sqrt 2)`` (at most two bits lost).
    * body form (a >= 0): ``log Phi(a) + log(-expm1(log(e^eps Phi(b)) - log Phi(a)))``; where delta < Phi(a)/4,
      ``delta = [Phi(a) - Phi(b)] - (e^eps - 1) Phi(b)`` with
      ``Phi(a) - Phi(b) = (erf(a/sqrt 2) + erf(-b/sqrt 2)) / 2``,
      a sum of positive terms (for mu < 1e-150, ``log delta = log mu - log(2 pi)/2``, exact to 1e-150).

    The direct form lost all digits at tiny epsilon and mu (9.6e-8 relative at epsilon = 1e-6, delta = 1e-300;
    7% at epsilon = 2.4e-15, mu = 1.4e-14). Where mu/2 and eps/mu nearly cancel (mu huge, eps near mu^2/2), a
    and b are computed in rational arithmetic and rounded once.

    ``eta = 64 [u (8 + |log delta|) + (|a| + 1) e_a + (body form only) u (eps + |log Phi(b)|) + |b| e_a]``,
    u = 2^-53, bounds the error against the exact log profile *at these float arguments*; ``e_a`` is the
    rounding error of a and b (``u (mu/2 + eps/mu)``, or ``u |a|`` when computed in rationals), which moves
    log Phi by at most ``(|a| + 1) e_a``. The rest covers a few ulps of the special functions in log Phi(a), in
    the result's logarithm and in ``eps + log Phi(b)``, times the cancellation left (at most a factor 4), with
    room: against 140-digit arithmetic the largest error found is below eta / 20 (``tests/test_never_optimistic.py``).
    It is a bound derived from condition numbers, with scipy's special functions assumed accurate to a few
    ulps: measured, not proved. Where ``eps / mu`` overflows, delta underflows: ``(-inf, 0)``.
    """
    eps, mu = np.broadcast_arrays(np.asarray(eps, dtype=float), np.asarray(mu, dtype=float))
    shape = eps.shape
    eps, mu = eps.ravel(), mu.ravel()
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        s = eps / mu
        a = mu / 2 - s
        b = -mu / 2 - s
        err_a = _U * (mu / 2 + s)  # the rounding of a (and of b): of eps / mu, then of the subtraction
        finite = np.isfinite(s)
        for i in np.flatnonzero(finite & (mu / 2 + s > 1024.0 * (np.abs(a) + 1.0))):
            # mu/2 and eps/mu nearly cancel (mu huge, eps near mu^2/2): a and b correctly rounded, in rationals
            exact_a = Fraction(float(mu[i])) / 2 - Fraction(float(eps[i])) / Fraction(float(mu[i]))
            a[i], b[i] = float(exact_a), float(exact_a - Fraction(float(mu[i])))
            err_a[i] = _U * abs(a[i])
        log_first = special.log_ndtr(a)
        tails = a < 0
        ea = special.erfcx(-np.where(tails, a, -1.0) / _SQRT2)
        eb = special.erfcx(-np.where(tails, b, -1.0) / _SQRT2)
        ratio = (ea - eb) / ea
        log_phi_b = special.log_ndtr(b)
        diff = np.minimum(eps + log_phi_b - log_first, 0.0)
        log_delta = np.where(tails, log_first + np.log(ratio), log_first + np.log(-np.expm1(diff)))
        tail_cancel = np.flatnonzero(tails & finite & (ratio < _CANCEL))
        if tail_cancel.size:
            m, c = mu[tail_cancel], s[tail_cancel]
            nodes = c[:, None] + (0.5 * m)[:, None] * _GL_X[None, :]
            gaps = _hazard_gap(nodes.ravel()).reshape(nodes.shape)
            total = gaps[:, 0] * _GL_W[0]
            for j in range(1, _GL_W.size):  # I = (m / 2) total, summed in a fixed order (not BLAS's)
                total = total + gaps[:, j] * _GL_W[j]
            i = 0.5 * m * total
            log_g = np.log(np.where(i > 1e-300, -np.expm1(-i) / np.where(i > 1e-300, i, 1.0), 1.0))
            log_delta[tail_cancel] = log_first[tail_cancel] + np.log(0.5 * m) + np.log(total) + log_g
        body_cancel = np.flatnonzero(~tails & finite & (-np.expm1(diff) < _CANCEL))
        if body_cancel.size:
            aa, bb, ee, mm = a[body_cancel], b[body_cancel], eps[body_cancel], mu[body_cancel]
            between = 0.5 * (special.erf(aa / _SQRT2) + special.erf(-bb / _SQRT2))
            value = np.log(between - np.expm1(ee) * special.ndtr(bb))
            log_delta[body_cancel] = np.where(mm < 1e-150, np.log(mm) - 0.5 * np.log(2.0 * np.pi), value)
        eta = 64.0 * (_U * (8.0 + np.abs(log_delta)) + (np.abs(a) + 1.0) * err_a
                      + np.where(tails, 0.0, _U * (eps + np.abs(log_phi_b)) + np.abs(b) * err_a))
        # with eps / mu finite, a log delta of -inf or NaN is a failed evaluation (a cancellation near 1e17 or an
        # inf * 0), never an underflow: answer delta = 1, which no guard can take for a certificate
        failed = finite & ~np.isfinite(log_delta)
        log_delta = np.where(failed, 0.0, np.where(finite, log_delta, -np.inf))
        eta = np.where(np.isneginf(log_delta) | failed, 0.0, eta)
    return log_delta.reshape(shape), eta.reshape(shape)


def _within(eps: npt.ArrayLike, mu: npt.ArrayLike, log_target: npt.ArrayLike) -> np.ndarray:
    """Whether the exact profile at these float arguments is certainly <= e^log_target (``log delta + eta <=
    log_target``).

    The rounding guard of every inverse (:func:`gaussian_epsilon`, :func:`analytic_gaussian_sigma`,
    ``dpcourse.gdp_mu_for_dp``): a value that passes is never optimistic against the exact profile, within the
    error model of :func:`_profile_log`.
    """
    log_delta, eta = _profile_log(eps, mu)
    return log_delta + eta <= log_target


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Exact smallest delta for which a Gaussian mechanism with ``mu = Delta_2 / sigma`` is (epsilon, delta)-DP.

    Returns ``Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu)``, the hockey-stick divergence
    between N(0, sigma^2) and N(Delta_2, sigma^2) (both directions agree by symmetry), under whichever
    neighbouring relation ``Delta_2`` is the l2 sensitivity for (theorem ``thm-gaussian-profile``;
    Balle & Wang 2018, Theorem 8). When both terms are tails it is evaluated through ``erfcx``, in which
    the factor e^epsilon cancels exactly, otherwise the second term in log space; where the two terms nearly
    cancel (tiny epsilon and mu), in the forms of ``_profile_log`` that do not subtract. The result keeps
    ~1e-11 relative accuracy or better for delta above 1e-300 (4e-11 the largest error found against
    140-digit arithmetic, mu from 1e-14 to 1e6, epsilon from 0 to 1e9).

    Parameters
    ----------
    epsilon : float
        epsilon >= 0, finite.
    mu : float
        Ratio of l2 sensitivity to noise standard deviation, > 0, finite.

    Returns
    -------
    float
        delta in [0, 1).

    Examples
    --------
    >>> round(gaussian_delta(0.0, 1.0), 6)  # total variation 2 Phi(1/2) - 1
    0.382925
    >>> round(gaussian_delta(1.0, 1.0), 6)
    0.126937
    """
    eps = check_real(epsilon, "epsilon", low=0.0)
    m = _check_mu(mu)
    if eps / m == np.inf:  # mu is so small next to epsilon that the loss never exceeds it: delta underflows to 0
        return 0.0
    a = m / 2 - eps / m
    b = -m / 2 - eps / m
    if a < 0:
        # Both terms are Gaussian tails. With Phi(x) = erfcx(-x/sqrt 2) exp(-x^2/2) / 2 and b^2 - a^2 = 2 eps,
        # the factor e^eps cancels exactly: e^eps Phi(b) / Phi(a) = erfcx(-b/sqrt 2) / erfcx(-a/sqrt 2).
        # So delta = Phi(a) (1 - erfcx(-b/sqrt 2) / erfcx(-a/sqrt 2)), with no huge or tiny intermediate.
        ea = special.erfcx(-a / _SQRT2)
        eb = special.erfcx(-b / _SQRT2)
        ratio = (ea - eb) / ea
        if not ratio >= _CANCEL:  # the two tails nearly cancel: the form of _profile_log that does not
            return float(np.exp(_profile_log(eps, m)[0]))
        return float(max(np.exp(special.log_ndtr(a)) * ratio, 0.0))
    # Phi(a) >= 1/2: subtract the second term, evaluated in log space so that e^eps never overflows.
    log_second = eps + special.log_ndtr(b)
    first = special.ndtr(a)
    value = first - np.exp(log_second)
    if not value >= _CANCEL * first:  # delta far below Phi(a): the form of _profile_log that does not cancel
        return float(np.exp(_profile_log(eps, m)[0]))
    return float(value)


def gaussian_epsilon(delta: float, mu: float) -> float:
    """Smallest epsilon >= 0 for which a Gaussian mechanism with ``mu = Delta_2 / sigma`` is (epsilon, delta)-DP.

    The inverse in epsilon of :func:`gaussian_delta` (theorem ``thm-gaussian-profile``), under the neighbouring
    relation ``Delta_2`` is the l2 sensitivity for. Found by bracketing root search to relative accuracy
    ~1e-13, then moved up where needed so that it is never optimistic: the exact profile at the returned
    epsilon is at most delta, within the error model of ``_profile_log`` (tested against 60-digit arithmetic
    for tiny and huge epsilon and mu and delta down to 5e-324).

    Parameters
    ----------
    delta : float
        delta in (0, 1).
    mu : float
        l2 sensitivity over sigma, > 0, finite.

    Returns
    -------
    float
        epsilon in nats; 0.0 when the total variation distance ``gaussian_delta(0, mu)`` is certainly at most
        delta, ``inf`` when epsilon exceeds the largest float.

    Examples
    --------
    >>> round(gaussian_epsilon(gaussian_delta(1.0, 1.0), 1.0), 9)
    1.0
    """
    d = check_delta(delta, allow_zero=False)
    m = _check_mu(mu)
    log_d = math.log(d)
    if _within(0.0, m, log_d):  # the total variation distance is certainly <= delta
        return 0.0
    # The answer is below mu^2/2 + mu sqrt(2 ln(1/delta)) + 1 (the loss is N(mu^2/2, mu^2) and its tail
    # bounds delta); start the bracket there so huge mu needs no long doubling, and double if rounding asks.
    hi = min(m * m / 2.0 + m * np.sqrt(2.0 * -np.log(d)) + 1.0, 1e308)
    while not _within(hi, m, log_d):
        if hi >= 1e308:  # the epsilon exceeds the largest float: report it as unbounded (a valid bound)
            return float("inf")
        hi = min(2.0 * hi, 1e308)
    # On the log profile (delta itself is subnormal below 2.2e-308), with xtol far below any root (a tiny mu has a
    # tiny epsilon: an xtol of 1e-14 was 3e-4 relative at mu = 1e-12)
    root = float(optimize.brentq(lambda e: float(_profile_log(e, m)[0][()]) - log_d, 0.0, hi, xtol=1e-300, rtol=1e-13,
                                 maxiter=500))
    e, bump = root, 1e-13
    while e < hi and not _within(e, m, log_d):  # rounding guard: never an epsilon whose exact delta may exceed d
        e, bump = min(root * (1.0 + bump) + bump * 1e-300, hi), 2.0 * bump  # relative steps (an absolute 1e-13
                                                                             # was 0.3% of epsilon at mu = 1e-12)
    return float(e)


def _gaussian_delta_array(eps: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """:func:`gaussian_delta` elementwise on already-validated arrays (same two branches, no checks)."""
    eps, mu = np.broadcast_arrays(np.asarray(eps, dtype=float), np.asarray(mu, dtype=float))
    shape = eps.shape
    eps, mu = eps.ravel(), mu.ravel()
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a = mu / 2 - eps / mu
        b = -mu / 2 - eps / mu
        tails = a < 0
        ea = special.erfcx(-np.where(tails, a, -1.0) / _SQRT2)
        eb = special.erfcx(-np.where(tails, b, -1.0) / _SQRT2)
        ratio = (ea - eb) / ea
        tail_value = np.exp(special.log_ndtr(a)) * ratio
        first = special.ndtr(a)
        body_value = first - np.exp(eps + special.log_ndtr(b))
        value = np.where(tails, tail_value, body_value)
        underflow = np.isinf(eps / mu)  # mu tiny next to epsilon: delta underflows to 0
        cancel = np.flatnonzero(~underflow & np.where(tails, ~(ratio >= _CANCEL), ~(body_value >= _CANCEL * first)))
        if cancel.size:  # the two terms nearly cancel: the forms of _profile_log that do not
            value[cancel] = np.exp(_profile_log(eps[cancel], mu[cancel])[0])
    return np.where(underflow, 0.0, np.maximum(value, 0.0)).reshape(shape)


def _log_gaussian_delta_array(eps: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log delta(eps), log(e^eps Phi(b)))`` elementwise: the log profile and the log of minus its slope.

    ``d delta / d eps = -e^eps Phi(-mu/2 - eps/mu)``, because the two density terms cancel
    (e^eps phi(b) = phi(a)). The log profile is :func:`_profile_log`'s.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_slope = eps + special.log_ndtr(-mu / 2 - eps / mu)
    return _profile_log(eps, mu)[0], log_slope


def _gaussian_epsilon_array(delta: float, mu: np.ndarray) -> np.ndarray:
    """:func:`gaussian_epsilon` for one delta in (0, 1) and an array of mu > 0 (validated by the caller).

    Vectorized Newton iteration on ``log delta(eps) = log delta``, started to the right of the root.
    ``delta(eps) = int_eps^inf e^t Phi(-mu/2 - t/mu) dt`` is the tail integral of a log-concave function,
    hence log-concave (Prekopa), so each Newton step from the right lands between the root and the
    previous point: the iterates decrease to the root (about six steps). Where the profile underflows
    the iterate moves halfway to 0 instead. The limit is then nudged up, where rounding requires, until
    the exact profile at it is certainly <= delta (:func:`_within`: the computed log profile plus its error
    bound), so the answer is never optimistic (within the error model of :func:`_profile_log`; tested against
    60-digit arithmetic). The answer is 0 only where the total variation distance is certainly <= delta.
    """
    mu = np.asarray(mu, dtype=float)
    log_d = np.log(delta)
    zero = _within(np.zeros_like(mu), mu, log_d)
    # delta(eps) <= P[L > eps] = Phi(mu/2 - eps/mu) (the loss L is N(mu^2/2, mu^2)): a bracket end close
    # to the root; the tiny margin absorbs rounding.
    with np.errstate(over="ignore"):
        hi = np.minimum((mu * mu / 2.0 - mu * special.ndtri(delta)) * (1 + 1e-12) + 1e-300, 1e308)
    over = np.flatnonzero(~zero)
    for _ in range(2100):  # the bound above holds mathematically; double where rounding says otherwise
        over = over[np.isfinite(hi[over]) & ~_within(hi[over], mu[over], log_d)]
        if not over.size:
            break
        with np.errstate(over="ignore"):
            hi[over] = np.where(hi[over] >= 1e308, np.inf, np.minimum(2.0 * hi[over], 1e308))
    x = hi.copy()
    live = ~zero & np.isfinite(x)
    for _ in range(100):
        if not live.any():
            break
        h, m = x[live], mu[live]
        log_delta, log_slope = _log_gaussian_delta_array(h, m)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            step = (log_d - log_delta) * np.exp(log_delta - log_slope)  # -g / g', >= 0 from the right
        new = h - step
        new = np.where(np.isfinite(new) & (new > 0.0), new, 0.5 * h)  # underflowed profile: move left
        x[live] = new
        idx = np.flatnonzero(live)
        # Stop at a step below 1e-14 relative, or at a tiny step to the right (rounding noise at the root); a
        # large step to the right (from a point left of the root) goes on.
        live[idx[(np.abs(new - h) <= 1e-14 * h) | ((new > h) & (new - h <= 1e-12 * h))]] = False
    # Rounding guard: the limit may sit a hair left of the root, and the profile is only known to within eta:
    # step right (by a relative step that doubles from 1e-15) until the exact profile is certainly <= delta.
    bad = np.flatnonzero(~zero & np.isfinite(x))
    bad = bad[~_within(x[bad], mu[bad], log_d)]
    root, bump = x.copy(), 1e-15
    while bad.size:
        x[bad] = np.minimum(root[bad] * (1.0 + bump) + bump * 1e-300, hi[bad])
        bad = bad[(x[bad] < hi[bad]) & ~_within(x[bad], mu[bad], log_d)]
        bump *= 2.0
    return np.where(zero, 0.0, x)


def _checked_lattice(l2_sensitivity: float, epsilon: float, delta: float) -> GaussianLattice:
    """The lattice of a secure release of one value, its parameters checked as the array path checks them."""
    return gaussian_lattice(check_sensitivity(l2_sensitivity, "l2_sensitivity"), check_epsilon(epsilon),
                            _check_gaussian_delta(delta))


# For plain ints and floats the checked lattice is cached (typed, so 1 and 1.0 are separate entries and a
# refusal quotes the argument as given; errors are never cached): a scalar release then skips the checks.
_checked_lattice_cached = functools.lru_cache(maxsize=1024, typed=True)(_checked_lattice)


def _scalar_lattice(l2_sensitivity: float, epsilon: float, delta: float) -> GaussianLattice:
    t1, t2, t3 = type(l2_sensitivity), type(epsilon), type(delta)
    if (t1 is float or t1 is int) and (t2 is float or t2 is int) and (t3 is float or t3 is int):
        return _checked_lattice_cached(l2_sensitivity, epsilon, delta)
    return _checked_lattice(l2_sensitivity, epsilon, delta)


def _check_gaussian_delta(delta: object) -> float:
    """delta in (0, 1), with a message explaining why delta = 0 is impossible for Gaussian noise."""
    d = check_delta(delta)
    if d == 0.0:
        raise ValueError(
            "delta must lie in (0, 1) for the Gaussian mechanism, got 0: no finite sigma gives delta = 0, "
            "because the Gaussian privacy loss is unbounded (use the Laplace mechanism for pure epsilon-DP)"
        )
    return d


def gaussian_loss_tail(epsilon: float, mu: float) -> float:
    """Probability ``P[L > epsilon]`` that the Gaussian privacy loss exceeds epsilon.

    The privacy loss of a Gaussian mechanism with ``mu = Delta_2 / sigma`` (on two neighbours, under the
    relation ``Delta_2`` is the l2 sensitivity for) is distributed as ``N(mu^2 / 2, mu^2)`` (theorem
    ``thm-gaussian-profile``), so ``P[L > epsilon] = Phi(mu/2 - epsilon/mu)``. It bounds the exact delta
    :func:`gaussian_delta` from above (lemma ``lem-approx-loss-delta``); it is the bound that the classic
    calibration controls, not the smallest delta.

    Parameters
    ----------
    epsilon : float
        epsilon >= 0, finite.
    mu : float
        l2 sensitivity over sigma, > 0, finite.

    Returns
    -------
    float
        The probability, in [0, 1].

    Examples
    --------
    >>> round(gaussian_loss_tail(1.0, 1.0), 6)  # Phi(-1/2)
    0.308538
    """
    eps = check_real(epsilon, "epsilon", low=0.0)
    m = _check_mu(mu)
    return float(special.ndtr(m / 2 - eps / m))


def _classic_sigma_formula(eps: float, delta: float, sens: float) -> float:
    """The classic formula without its range check (for figures that show where it breaks)."""
    return float(np.sqrt(2.0 * np.log(1.25 / delta)) * sens / eps)


def gaussian_sigma(epsilon: float, delta: float, l2_sensitivity: float = 1.0) -> float:
    """The classic calibration ``sigma = sqrt(2 ln(1.25 / delta)) * l2_sensitivity / epsilon``, for epsilon < 1.

    Gaussian noise of this standard deviation makes a query of l2 sensitivity ``l2_sensitivity`` (under the
    neighbouring relation the sensitivity is computed for) (epsilon, delta)-DP when ``0 < epsilon < 1``
    (theorem ``thm-gaussian-classic``; Dwork & Roth 2014, Theorem A.1). The proof needs epsilon <= 1, and
    for large epsilon the formula is wrong: its sigma shrinks like 1/epsilon while the noise needed shrinks
    only like 1/sqrt(epsilon), so epsilon >= 1 is refused; use :func:`analytic_gaussian_sigma`, which is
    valid for every epsilon > 0 and never larger.

    Parameters
    ----------
    epsilon : float
        0 < epsilon < 1.
    delta : float
        0 < delta < 1.
    l2_sensitivity : float, default 1.0
        l2 sensitivity of the query, > 0.

    Returns
    -------
    float
        The noise standard deviation, in the units of the query.

    Raises
    ------
    ValueError
        For epsilon >= 1 (with a pointer to the analytic calibration), delta = 0, and any out-of-range value.

    Examples
    --------
    >>> round(gaussian_sigma(0.5, 1e-5), 6)  # 2 * sqrt(2 ln 125000)
    9.689611
    """
    eps = check_epsilon(epsilon)
    if eps >= 1.0:
        raise ValueError(
            f"epsilon must be < 1 for the classic Gaussian calibration, got {epsilon!r}: its proof needs "
            "epsilon <= 1 and for large epsilon it adds too little noise; use analytic_gaussian_sigma(epsilon, "
            "delta, l2_sensitivity), which is exact for every epsilon > 0"
        )
    d = _check_gaussian_delta(delta)
    sens = check_sensitivity(l2_sensitivity, "l2_sensitivity")
    return _classic_sigma_formula(eps, d, sens)


def _log_gaussian_delta(eps: float, mu: float) -> float:
    """``log(gaussian_delta(eps, mu))`` without underflow (-inf when it is 0): :func:`_profile_log`'s value."""
    if mu == 0.0:
        return -np.inf
    if np.isinf(mu):
        return 0.0
    return float(_profile_log(eps, mu)[0])


def analytic_gaussian_sigma(epsilon: float, delta: float, l2_sensitivity: float = 1.0) -> float:
    """The smallest sigma for which Gaussian noise gives (epsilon, delta)-DP: the analytic calibration.

    Returns the sigma solving ``gaussian_delta(epsilon, l2_sensitivity / sigma) = delta`` (Balle & Wang 2018,
    Algorithm 1; theorem ``thm-gaussian-analytic`` of the course): noise of this standard deviation makes a
    query of l2 sensitivity ``l2_sensitivity`` (under whichever neighbouring relation that sensitivity is
    computed for) (epsilon, delta)-DP, and no smaller sigma does, because the exact delta
    (theorem ``thm-gaussian-profile``) is strictly decreasing in sigma. Valid for every epsilon > 0 (tested
    up to 1000) and delta in (0, 1); for epsilon < 1 it is never larger than :func:`gaussian_sigma`.
    Accuracy: the exact profile at the returned sigma never exceeds delta (within the error model of
    ``_profile_log``, tested against 60-digit arithmetic), and ``gaussian_delta`` there equals delta within
    1e-9 relative for epsilon in [0.01, 1000] and within 1e-8 relative for epsilon down to 1e-4, for delta in
    [1e-300, 0.999] (tested).

    The root is found in log(mu) on log(delta) by Brent's method, so delta may be as small as the smallest
    float; the returned sigma is then nudged up, if rounding requires, until the computed log profile at
    ``l2_sensitivity / sigma`` plus its error bound is at most log delta.

    Parameters
    ----------
    epsilon : float
        epsilon > 0, finite.
    delta : float
        0 < delta < 1.
    l2_sensitivity : float, default 1.0
        l2 sensitivity of the query, > 0.

    Returns
    -------
    float
        The noise standard deviation, in the units of the query.

    Examples
    --------
    >>> round(analytic_gaussian_sigma(0.5, 1e-5), 4)
    7.0318
    >>> round(analytic_gaussian_sigma(0.5, 1e-5) / gaussian_sigma(0.5, 1e-5), 3)
    0.726
    >>> round(analytic_gaussian_sigma(100.0, 1e-5), 4)  # the classic formula would give 0.0484: delta ~ 1
    0.0947
    """
    eps = check_epsilon(epsilon)
    d = _check_gaussian_delta(delta)
    sens = check_sensitivity(l2_sensitivity, "l2_sensitivity")
    target = np.log(d)

    def g(t):  # increasing in t = log(mu): more signal relative to noise leaks more
        return _log_gaussian_delta(eps, float(np.exp(t))) - target

    # Start between the classic guess (right for small epsilon) and sqrt(2 eps) (right for large epsilon), and
    # not below the mu whose total variation 2 Phi(mu/2) - 1 is delta (a lower bound on the root: right as epsilon
    # -> 0, where the classic guess walked ~1000 halvings from 1e-300 at epsilon = 1e-300).
    guess = max(min(eps / np.sqrt(2.0 * (np.log(1.25) - target) + eps), np.sqrt(2.0 * eps) + 1.0),
                2.0 * _SQRT2 * float(special.erfinv(d)))
    t0 = float(np.log(max(guess, 1e-300)))  # a subnormal epsilon would make the guess 0
    step = np.log(2.0)
    lo = hi = t0
    upwards = g(t0) <= 0
    for _ in range(2100):  # mu moves by a factor 2 per step: 2100 steps span every positive float
        if upwards:
            if g(hi) > 0:
                break
            lo, hi = hi, hi + step
        else:
            if g(lo) <= 0:
                break
            hi, lo = lo, lo - step
    t = optimize.brentq(g, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    root = sens / float(np.exp(t))
    if not np.isfinite(root):
        raise ValueError(f"sigma overflows for l2_sensitivity={l2_sensitivity!r} at epsilon={epsilon!r}, "
                         f"delta={delta!r} (it exceeds the largest float); rescale the query")
    sigma, bump = root, 4 * np.finfo(float).eps
    for _ in range(60):  # rounding guard: never a sigma whose exact delta may exceed the target (_within)
        if _within(eps, sens / sigma, target):
            return float(sigma)
        sigma, bump = root * (1.0 + bump), 2.0 * bump
    return sens / float(np.exp(lo))  # the safe end of the bracket (not reached in the tested range)


def gaussian_mechanism(value: float | npt.ArrayLike, l2_sensitivity: float, epsilon: float, delta: float, *,
                       rng: np.random.Generator | int | None = None, secure: bool = True) -> float | np.ndarray:
    """Release ``value`` plus independent Gaussian noise per coordinate, (epsilon, delta)-DP.

    Privacy: if ``value = f(x)`` for a query ``f`` whose l2 sensitivity (the largest Euclidean distance
    between ``f(x)`` and ``f(x')`` over neighbouring datasets, under the relation the caller has in mind) is
    at most ``l2_sensitivity``, the release is (epsilon, delta)-DP under that same relation. For an array,
    ``l2_sensitivity`` bounds the l2 norm of the change of the *whole* vector: k counts that each change by
    at most 1 have l2 sensitivity sqrt(k).

    * ``secure=True`` (default): floating-point safe. The value is rounded to a power-of-two lattice and
      exact discrete Gaussian noise on that lattice is added (:func:`dpcourse.gaussian_lattice`,
      theorem ``thm-lattice-gaussian``), the rounding charged to the sensitivity and the noise calibrated
      through zCDP; every output is a multiple of the lattice spacing and every multiple is possible
      from every input. The noise is 3-28 % larger than the analytic sigma for 0.01 <= epsilon <= 10 and
      1e-12 <= delta <= 1e-3 (8.5 % at epsilon = 1, delta = 1e-5): the price of the zCDP calibration.
    * ``secure=False``: the textbook sampler, N(0, sigma^2) from :meth:`numpy.random.Generator.normal`
      with the analytic sigma (theorems ``thm-gaussian-profile`` and ``thm-gaussian-analytic``). Its
      floating-point outputs can reveal the input (chapter "Noise on a real computer"): **unsafe**,
      kept to demonstrate that.

    Parameters
    ----------
    value : float or array_like of floats
        The exact query answer(s); finite.
    l2_sensitivity : float
        l2 sensitivity of the query, > 0, in the units of ``value``.
    epsilon : float
        epsilon > 0.
    delta : float
        0 < delta < 1 (delta = 0 is impossible with Gaussian noise).
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
    >>> round(gaussian_mechanism(42, l2_sensitivity=1, epsilon=1.0, delta=1e-6, rng=0, secure=False), 4)
    42.5312
    >>> gaussian_mechanism([[1.0, 2.0], [3.0, 4.0]], 2.0, 1.0, 1e-6, rng=1).shape
    (2, 2)
    """
    scalar = plain_scalar(value)   # a plain float or int: the one-draw path, as for an array of one value
    x = check_real_array(value, "value", allow_empty=True) if scalar is None else np.asarray(scalar)
    safe = check_flag(secure, "secure")
    gen = as_rng(rng)
    if safe and scalar is not None:
        return secure_gaussian1(scalar, _scalar_lattice(l2_sensitivity, epsilon, delta), gen)
    if safe:
        out = secure_gaussian(x, check_sensitivity(l2_sensitivity, "l2_sensitivity"), check_epsilon(epsilon),
                              _check_gaussian_delta(delta), gen)
    else:
        sigma = analytic_gaussian_sigma(epsilon, delta, l2_sensitivity)
        out = gen.normal(0.0, sigma, size=x.shape)
        out += x
    return float(out) if out.ndim == 0 else out
