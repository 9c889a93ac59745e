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

import numpy as np
from scipy import optimize, special

from ._validation import (as_rng, check_delta, check_epsilon, check_flag, check_real, check_real_array,
                          check_sensitivity)
from .discrete import GaussianLattice, gaussian_lattice, plain_scalar, secure_gaussian, secure_gaussian1

_SQRT2 = np.sqrt(2.0)

__all__ = [
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_loss_tail",
    "gaussian_sigma",
    "analytic_gaussian_sigma",
    "gaussian_mechanism",
]


def _check_mu(mu) -> float:
    return check_real(mu, "mu", low=0.0, low_open=True)


def gaussian_delta(epsilon, mu) -> float:
    """Exact smallest delta for which a Gaussian mechanism with ``mu = Delta_2 / sigma`` is (epsilon, delta)-DP.

    Returns ``Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu)``, the hockey-stick divergence
    between N(0, sigma^2) and N(Delta_2, sigma^2) (both directions agree by symmetry), under whichever
    neighbouring relation ``Delta_2`` is the l2 sensitivity for (theorem ``thm-gaussian-profile``;
    Balle & Wang 2018, Theorem 8). When both terms are tails it is evaluated through ``erfcx``, in which
    the factor e^epsilon cancels exactly, otherwise the second term in log space: the result keeps ~1e-9
    relative accuracy or better down to delta ~ 1e-300, for epsilon in the hundreds and mu tiny or large.

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
        return float(max(np.exp(special.log_ndtr(a)) * ((ea - eb) / ea), 0.0))
    # Phi(a) >= 1/2: subtract the second term, evaluated in log space so that e^eps never overflows.
    log_second = eps + special.log_ndtr(b)
    return float(max(special.ndtr(a) - np.exp(log_second), 0.0))


def gaussian_epsilon(delta, mu) -> float:
    """Smallest epsilon >= 0 for which a Gaussian mechanism with ``mu = Delta_2 / sigma`` is (epsilon, delta)-DP.

    The inverse of :func:`gaussian_delta` in epsilon (which is continuous and strictly decreasing while
    positive), found by bracketing root search to relative accuracy ~1e-12. Returns 0.0 when
    ``delta >= gaussian_delta(0, mu)`` (the total variation distance).

    Parameters
    ----------
    delta : float
        delta in (0, 1).
    mu : float
        l2 sensitivity over sigma, > 0, finite.

    Examples
    --------
    >>> round(gaussian_epsilon(gaussian_delta(1.0, 1.0), 1.0), 9)
    1.0
    """
    d = check_delta(delta, allow_zero=False)
    m = _check_mu(mu)
    if d >= gaussian_delta(0.0, m):
        return 0.0
    # The answer is below mu^2/2 + mu sqrt(2 ln(1/delta)) + 1 (the loss is N(mu^2/2, mu^2) and its tail
    # bounds delta); start the bracket there so huge mu needs no long doubling, and double if rounding asks.
    hi = min(m * m / 2.0 + m * np.sqrt(2.0 * -np.log(d)) + 1.0, 1e308)
    while gaussian_delta(hi, m) > d:
        if hi >= 1e308:  # the epsilon exceeds the largest float: report it as unbounded (a valid bound)
            return float("inf")
        hi = min(2.0 * hi, 1e308)
    root = float(optimize.brentq(lambda e: gaussian_delta(e, m) - d, 0.0, hi, xtol=1e-14, rtol=1e-13, maxiter=500))
    e, bump = root, 1e-13
    while e < hi and gaussian_delta(e, m) > d:  # rounding guard: never return an epsilon whose delta exceeds d
        e, bump = min(root * (1.0 + bump) + bump, hi), 2.0 * bump
    return float(e)


def _gaussian_delta_array(eps: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """:func:`gaussian_delta` elementwise on already-validated arrays (same two branches, no checks)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a = mu / 2 - eps / mu
        b = -mu / 2 - eps / mu
        tails = a < 0
        ea = special.erfcx(-np.where(tails, a, -1.0) / _SQRT2)
        eb = special.erfcx(-np.where(tails, b, -1.0) / _SQRT2)
        tail_value = np.exp(special.log_ndtr(a)) * ((ea - eb) / ea)
        body_value = special.ndtr(a) - np.exp(eps + special.log_ndtr(b))
        value = np.where(tails, tail_value, body_value)
        underflow = np.isinf(eps / mu)  # mu tiny next to epsilon: delta underflows to 0
    return np.where(underflow, 0.0, np.maximum(value, 0.0))


def _log_gaussian_delta_array(eps: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log delta(eps), log(e^eps Phi(b)))`` elementwise: the log profile and the log of minus its slope.

    ``d delta / d eps = -e^eps Phi(-mu/2 - eps/mu)``, because the two density terms cancel
    (e^eps phi(b) = phi(a)). Both are computed as in :func:`_log_gaussian_delta` (erfcx for two tails).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a = mu / 2 - eps / mu
        b = -mu / 2 - eps / mu
        log_first = special.log_ndtr(a)
        log_slope = eps + special.log_ndtr(b)
        tails = a < 0
        ea = special.erfcx(-np.where(tails, a, -1.0) / _SQRT2)
        eb = special.erfcx(-np.where(tails, b, -1.0) / _SQRT2)
        tail_log = log_first + np.log((ea - eb) / ea)
        body_log = log_first + np.log(-np.expm1(np.minimum(log_slope - log_first, 0.0)))
        log_delta = np.where(tails, tail_log, body_log)
    return np.where(np.isnan(log_delta), -np.inf, log_delta), log_slope


def _gaussian_epsilon_array(delta: float, mu: np.ndarray) -> np.ndarray:
    """:func:`gaussian_epsilon` for one delta in (0, 1) and an array of mu > 0 (validated by the caller).

    Vectorized Newton iteration on ``log delta(eps) = log delta``, started to the right of the root.
    ``delta(eps) = int_eps^inf e^t Phi(-mu/2 - t/mu) dt`` is the tail integral of a log-concave function,
    hence log-concave (Prekopa), so each Newton step from the right lands between the root and the
    previous point: the iterates decrease to the root (about six steps). Where the profile underflows
    the iterate moves halfway to 0 instead. The limit is then nudged up, where rounding requires, until
    ``delta(eps) <= delta`` holds as computed, so the answer is never optimistic.
    """
    mu = np.asarray(mu, dtype=float)
    log_d = np.log(delta)
    zero = delta >= _gaussian_delta_array(np.zeros_like(mu), mu)
    # delta(eps) <= P[L > eps] = Phi(mu/2 - eps/mu) (the loss L is N(mu^2/2, mu^2)): a bracket end close
    # to the root; the tiny margin absorbs rounding.
    with np.errstate(over="ignore"):
        hi = np.minimum((mu * mu / 2.0 - mu * special.ndtri(delta)) * (1 + 1e-12) + 1e-300, 1e308)
    over = np.flatnonzero(~zero)
    for _ in range(2100):  # the bound above holds mathematically; double where rounding says otherwise
        over = over[np.isfinite(hi[over]) & (_gaussian_delta_array(hi[over], mu[over]) > delta)]
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
    # Rounding guard: the profile is evaluated to ~1e-15, so the limit may sit a hair left of the root.
    bad = np.flatnonzero(~zero & np.isfinite(x))
    bad = bad[_gaussian_delta_array(x[bad], mu[bad]) > delta]
    root, bump = x.copy(), 1e-15
    while bad.size:
        x[bad] = np.minimum(root[bad] * (1.0 + bump) + bump * 1e-300, hi[bad])
        bad = bad[(x[bad] < hi[bad]) & (_gaussian_delta_array(x[bad], mu[bad]) > delta)]
        bump *= 2.0
    return np.where(zero, 0.0, x)


def _checked_lattice(l2_sensitivity, epsilon, delta) -> GaussianLattice:
    """The lattice of a secure release of one value, its parameters checked as the array path checks them."""
    return gaussian_lattice(check_sensitivity(l2_sensitivity, "l2_sensitivity"), check_epsilon(epsilon),
                            _check_gaussian_delta(delta))


# For plain ints and floats the checked lattice is cached (typed, so 1 and 1.0 are separate entries and a
# refusal quotes the argument as given; errors are never cached): a scalar release then skips the checks.
_checked_lattice_cached = functools.lru_cache(maxsize=1024, typed=True)(_checked_lattice)


def _scalar_lattice(l2_sensitivity, epsilon, delta) -> GaussianLattice:
    t1, t2, t3 = type(l2_sensitivity), type(epsilon), type(delta)
    if (t1 is float or t1 is int) and (t2 is float or t2 is int) and (t3 is float or t3 is int):
        return _checked_lattice_cached(l2_sensitivity, epsilon, delta)
    return _checked_lattice(l2_sensitivity, epsilon, delta)


def _check_gaussian_delta(delta) -> float:
    """delta in (0, 1), with a message explaining why delta = 0 is impossible for Gaussian noise."""
    d = check_delta(delta)
    if d == 0.0:
        raise ValueError(
            "delta must lie in (0, 1) for the Gaussian mechanism, got 0: no finite sigma gives delta = 0, "
            "because the Gaussian privacy loss is unbounded (use the Laplace mechanism for pure epsilon-DP)"
        )
    return d


def gaussian_loss_tail(epsilon, mu) -> float:
    """Probability ``P[L > epsilon]`` that the Gaussian privacy loss exceeds epsilon.

    The privacy loss of a Gaussian mechanism with ``mu = Delta_2 / sigma`` is distributed as
    ``N(mu^2 / 2, mu^2)`` (theorem ``thm-gaussian-profile``), so ``P[L > epsilon] = Phi(mu/2 - epsilon/mu)``.
    It is an upper bound on the exact delta :func:`gaussian_delta` (lemma ``lem-approx-loss-delta``), the
    bound that the classic calibration controls; it is not the smallest delta.

    Parameters
    ----------
    epsilon : float
        epsilon >= 0, finite.
    mu : float
        l2 sensitivity over sigma, > 0, finite.

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


def gaussian_sigma(epsilon, delta, l2_sensitivity=1.0) -> float:
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
    """``log(gaussian_delta(eps, mu))``, computed as there (erfcx) but without underflow (-inf when it is 0)."""
    if mu == 0.0:
        return -np.inf
    if np.isinf(mu):
        return 0.0
    a = mu / 2 - eps / mu
    b = -mu / 2 - eps / mu
    log_first = special.log_ndtr(a)
    if not np.isfinite(log_first):
        return -np.inf
    if a < 0:  # delta = Phi(a) (1 - erfcx(-b/sqrt 2) / erfcx(-a/sqrt 2)), see gaussian_delta
        ea = special.erfcx(-a / _SQRT2)
        eb = special.erfcx(-b / _SQRT2)
        return float(log_first + np.log((ea - eb) / ea)) if ea > eb else -np.inf
    diff = eps + special.log_ndtr(b) - log_first
    if diff >= 0:
        return -np.inf
    return float(log_first + np.log(-np.expm1(diff)))


def analytic_gaussian_sigma(epsilon, delta, l2_sensitivity=1.0) -> float:
    """The smallest sigma for which Gaussian noise gives (epsilon, delta)-DP: the analytic calibration.

    Returns the sigma solving ``gaussian_delta(epsilon, l2_sensitivity / sigma) = delta`` (Balle & Wang 2018,
    Algorithm 1; theorem ``thm-gaussian-analytic`` of the course): noise of this standard deviation makes a
    query of l2 sensitivity ``l2_sensitivity`` (under whichever neighbouring relation that sensitivity is
    computed for) (epsilon, delta)-DP, and no smaller sigma does, because the exact delta
    (theorem ``thm-gaussian-profile``) is strictly decreasing in sigma. Valid for every epsilon > 0 (tested
    up to 1000) and delta in (0, 1); for epsilon < 1 it is never larger than :func:`gaussian_sigma`.
    Accuracy: ``gaussian_delta`` at the returned sigma never exceeds delta, and equals it within 1e-9
    relative for epsilon in [0.01, 1000] and within 1e-8 relative for epsilon down to 1e-4, for delta in
    [1e-300, 0.999] (tested; the limit is the accuracy of the profile formula itself at tiny epsilon).

    The root is found in log(mu) on log(delta) by Brent's method, so delta may be as small as the smallest
    float; the returned sigma is then nudged up, if rounding requires, so that ``gaussian_delta(epsilon,
    l2_sensitivity / sigma) <= delta`` holds as computed.

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

    # Start between the classic guess (right for small epsilon) and sqrt(2 eps) (right for large epsilon).
    guess = min(eps / np.sqrt(2.0 * (np.log(1.25) - target) + eps), np.sqrt(2.0 * eps) + 1.0)
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
    for _ in range(60):  # rounding guard: never return a sigma whose computed delta exceeds the target
        if gaussian_delta(eps, sens / sigma) <= d:
            return float(sigma)
        sigma, bump = root * (1.0 + bump), 2.0 * bump
    return sens / float(np.exp(lo))  # the safe end of the bracket (not reached in the tested range)


def gaussian_mechanism(value, l2_sensitivity, epsilon, delta, *, rng=None, secure=True):
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
