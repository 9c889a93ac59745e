"""Composition bounds: how much privacy k mechanisms run on the same data lose together.

Each function computes one theorem of the chapter "Composition and privacy accounting" and names its
label. The accountant of :mod:`dpcourse.accounting` only combines these functions; it re-derives nothing.

* basic composition (theorem ``thm-comp-basic``): ``(k eps, k delta)``;
* advanced composition (theorem ``thm-comp-advanced``; Dwork, Rothblum & Vadhan 2010);
* optimal composition of k eps-DP mechanisms (theorem ``thm-comp-optimal``; Kairouz, Oh & Viswanath 2015),
  computed exactly as a hockey-stick divergence of two binomial laws, in log space;
* Renyi-DP curves and their conversion to (eps, delta) (Mironov 2017; Canonne, Kamath & Steinke 2020),
  zCDP conversion (Bun & Steinke 2016);
* exact composition of Gaussian mechanisms (theorem ``thm-comp-gaussian-exact``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from ._validation import check_delta, check_epsilon, check_positive_int, check_real, check_sensitivity
from .gaussian import gaussian_epsilon

__all__ = [
    "basic_composition",
    "advanced_composition",
    "advanced_composition_crossover",
    "zcdp_epsilon",
    "optimal_composition_delta",
    "optimal_composition_epsilon",
    "gaussian_composition_epsilon",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_pure_dp",
    "rdp_to_epsilon",
    "RdpEpsilon",
]

# Largest number of atoms of a privacy-loss distribution that the exact pure-DP computation builds.
MAX_ATOMS = 2_000_000


def basic_composition(epsilon: float, k: int, delta: float = 0.0) -> tuple[float, float]:
    """Total ``(k epsilon, k delta)`` of k adaptively chosen (epsilon, delta)-DP mechanisms.

    Theorem ``thm-comp-basic``: the adaptive composition of k mechanisms, each (epsilon, delta)-DP under a
    neighbouring relation, is (k epsilon, k delta)-DP under the same relation.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon, > 0.
    k : int
        Number of mechanisms, >= 1.
    delta : float, optional
        Per-mechanism delta in [0, 1) (default 0: pure DP).

    Returns
    -------
    tuple of float
        ``(k * epsilon, k * delta)``; the total delta may reach 1 or more, in which case the bound says nothing.

    Examples
    --------
    >>> basic_composition(0.1, 10)
    (1.0, 0.0)
    >>> basic_composition(0.5, 4, 1e-6)
    (2.0, 4e-06)
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    d = check_delta(delta)
    return k * eps, k * d


def advanced_composition(epsilon: float, k: int, delta_prime: float) -> float:
    """Total epsilon of the advanced composition theorem for k adaptively chosen (epsilon, delta)-DP mechanisms.

    Returns ``eps' = epsilon sqrt(2 k ln(1/delta_prime)) + k epsilon (e^epsilon - 1)``. By theorem
    ``thm-comp-advanced`` (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Theorem 3.20) the adaptive
    composition is (eps', k delta + delta_prime)-DP under the mechanisms' neighbouring relation; for pure
    DP mechanisms (delta = 0) it is (eps', delta_prime)-DP. The per-mechanism delta does not enter eps'.
    It can be larger than the basic ``k epsilon``: both bounds hold, use the smaller one.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon, > 0.
    k : int
        Number of mechanisms, >= 1.
    delta_prime : float
        The extra failure probability, in (0, 1).

    Returns
    -------
    float
        eps' in nats.

    Examples
    --------
    >>> round(advanced_composition(0.1, 100, 1e-5), 6)  # 0.1 sqrt(200 ln 1e5) + 10 (e^0.1 - 1)
    5.850235
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    dp = check_delta(delta_prime, "delta_prime", allow_zero=False)
    drift = k * eps * math.expm1(eps) if eps < 700.0 else math.inf  # e^700 is near the float limit
    return eps * math.sqrt(2.0 * k * -math.log(dp)) + drift


def advanced_composition_crossover(k: int, delta_prime: float) -> float:
    """The per-mechanism epsilon below which advanced composition beats basic composition.

    ``advanced_composition(eps, k, dp) < k eps`` is equivalent to ``eps < ln(2 - sqrt(2 ln(1/dp) / k))``. That
    threshold never exceeds ln 2, because for eps >= ln 2 the drift term ``k eps (e^eps - 1)`` alone is at
    least ``k eps`` (see the discussion after theorem ``thm-comp-advanced``).

    Parameters
    ----------
    k : int
        Number of mechanisms, >= 1.
    delta_prime : float
        The extra failure probability of advanced composition, in (0, 1).

    Returns
    -------
    float
        The threshold epsilon, or 0.0 when advanced composition never wins (``k <= 2 ln(1/dp)``).

    Examples
    --------
    >>> round(advanced_composition_crossover(1000, 1e-5), 6)
    0.614243
    >>> advanced_composition_crossover(10, 1e-5)
    0.0
    """
    k = check_positive_int(k, "k")
    dp = check_delta(delta_prime, "delta_prime", allow_zero=False)
    root = math.sqrt(2.0 * -math.log(dp) / k)
    if root >= 1.0:
        return 0.0
    return math.log1p(1.0 - root)


def zcdp_epsilon(rho: float, delta: float) -> float:
    """Epsilon of the (epsilon, delta)-DP guarantee implied by rho-zCDP: ``rho + 2 sqrt(rho ln(1/delta))``.

    Bun & Steinke 2016, Proposition 1.3 (lemma ``lem-comp-zcdp``), under the neighbouring relation of the
    zCDP guarantee. rho-zCDP composes by adding rho; an epsilon-DP mechanism is (epsilon^2 / 2)-zCDP, so k of
    them give ``k eps^2 / 2 + eps sqrt(2 k ln(1/delta))``.

    Parameters
    ----------
    rho : float
        zCDP parameter, > 0.
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        epsilon in nats.

    Examples
    --------
    >>> round(zcdp_epsilon(0.5, 1e-5), 6)
    5.298526
    """
    r = check_real(rho, "rho", low=0.0, low_open=True)
    d = check_delta(delta, allow_zero=False)
    return r + 2.0 * math.sqrt(r * -math.log(d))


# ----------------------------------------------------------------------------------------------------
# Exact privacy-loss distributions of pure-DP worst cases (products of randomized-response pairs).


def _rr_atoms(eps: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Loss values and log-probabilities under P of the k-fold randomized-response pair.

    P = (e^eps, 1)/(1 + e^eps) and Q = (1, e^eps)/(1 + e^eps), k independent copies. With j the number of
    coordinates equal to the second outcome, the privacy loss ln(P/Q) is (k - 2j) eps and
    P(j) = C(k, j) e^{(k-j) eps} / (1 + e^eps)^k. Atoms come sorted by decreasing loss.
    """
    j = np.arange(k + 1, dtype=float)
    log_binom = special.gammaln(k + 1.0) - special.gammaln(j + 1.0) - special.gammaln(k - j + 1.0)
    log_p = -math.log1p(math.exp(-eps))  # ln(e^eps / (1 + e^eps))
    log_q = log_p - eps  # ln(1 / (1 + e^eps))
    return (k - 2.0 * j) * eps, log_binom + (k - j) * log_p + j * log_q


def _product_atoms(groups: Sequence[tuple[float, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Atoms of the product of k_i-fold RR pairs with parameters eps_i, for ``groups = [(eps_i, k_i), ...]``."""
    size, total = 1, 0.0
    for eps, k in groups:
        size *= k + 1
        total += k * eps
    if not math.isfinite(4.0 * total):
        raise ValueError(f"the total epsilon of these pure-DP events, {total}, overflows floating point")
    if size > MAX_ATOMS:
        raise ValueError(f"the exact composition of these pure-DP events needs {size} atoms, more than {MAX_ATOMS}; "
                         "group identical events together or use another method")
    loss, logp = np.zeros(1), np.zeros(1)
    for eps, k in groups:
        l2, p2 = _rr_atoms(eps, k)
        loss = np.add.outer(loss, l2).ravel()
        logp = np.add.outer(logp, p2).ravel()
    order = np.argsort(-loss, kind="stable")
    return loss[order], logp[order]


def _rr_atom_errors(eps: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the rounding errors of :func:`_rr_atoms` ``(eps, k)``, atom by atom: (loss, log-probability).

    A loss ``(k - 2j) eps`` is exact when eps's odd mantissa times k fits in 53 bits (eps = 2, 0.5, ...), else
    within ``u |loss|`` (u = 2^-53; 2u is used, so that adding it to the float moves it up). A log-probability
    ``gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1) + (k - j) ln p + j ln q`` has terms each within a few
    ulps of its size, and they cancel (gammaln(301) is 1414 where ln C(300, j) is a few units): within
    ``64 u (gammaln(k + 1) + gammaln(j + 1) + gammaln(k - j + 1) + (k - j) |ln p| + j |ln q| + 1)``.
    """
    u = 2.0**-53
    j = np.arange(k + 1, dtype=float)
    odd = int(math.frexp(eps)[0] * 2**53)
    odd >>= (odd & -odd).bit_length() - 1
    if odd.bit_length() + int(k).bit_length() <= 53:
        loss_err = np.zeros(k + 1)
    else:
        loss_err = 2.0 * u * np.abs((k - 2.0 * j) * eps)
    minus_log_p = math.log1p(math.exp(-eps))
    logp_err = 64.0 * u * (special.gammaln(k + 1.0) + special.gammaln(j + 1.0) + special.gammaln(k - j + 1.0)
                           + (k - j) * minus_log_p + j * (minus_log_p + eps) + 1.0)
    return loss_err, logp_err


def _product_atoms_with_errors(groups):
    """:func:`_product_atoms` (the same floats, in the same order) and the bounds of :func:`_rr_atom_errors`
    carried through the sums (each float sum adds ``2u |sum|``): ``(loss, logp, loss_err, logp_err)``."""
    u = 2.0**-53
    if len(groups) == 1:  # one group: _rr_atoms, already sorted by decreasing loss (the caller checked k)
        return _rr_atoms(*groups[0]) + _rr_atom_errors(*groups[0])
    loss, logp = _product_atoms(groups)  # the size checks, and the atoms as every caller sees them
    raw_loss, raw_logp, el, ep = np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1)
    for i, (eps, k) in enumerate(groups):
        l2, p2 = _rr_atoms(eps, k)
        e2l, e2p = _rr_atom_errors(eps, k)
        raw_loss = np.add.outer(raw_loss, l2).ravel()
        raw_logp = np.add.outer(raw_logp, p2).ravel()
        el = np.add.outer(el, e2l).ravel() + (2.0 * u * np.abs(raw_loss) if i else 0.0)  # the first sum is 0 + x
        ep = np.add.outer(ep, e2p).ravel() + (2.0 * u * np.abs(raw_logp) if i else 0.0)
    order = np.argsort(-raw_loss, kind="stable")
    return loss, logp, el[order], ep[order]


def _prefix_logs(loss, logp):
    """ln A_m and ln B_m: P- and Q-probabilities of the m atoms of largest loss, m = 1..n."""
    log_a = np.logaddexp.accumulate(logp)
    log_b = np.logaddexp.accumulate(logp - loss)
    return log_a, log_b


def _delta_of_atoms(loss: np.ndarray, logp: np.ndarray, eps_total: float) -> float:
    """Hockey-stick divergence H_eps'(P || Q) = sum over atoms of P (1 - e^{eps' - loss})_+ ."""
    active = loss > eps_total
    if not active.any():
        return 0.0
    terms = logp[active] + np.log(-np.expm1(eps_total - loss[active]))
    return float(min(1.0, math.exp(special.logsumexp(terms))))


def _epsilon_of_atoms(groups: Sequence[tuple[float, int]], delta: float) -> float:
    """Smallest eps' >= 0 with H_eps'(P || Q) <= delta, for the atoms of ``groups`` (:func:`_product_atoms`).

    H_eps'(P||Q) = max_m (A_m - e^eps' B_m) over the prefixes (top-m atoms by loss), because the best event
    of the hockey-stick lemma is such a prefix. Each term is decreasing in eps', so the answer is the
    largest of ln((A_m - delta) / B_m) over the m with A_m > delta, clipped at 0. Computed in log space.
    """
    loss, logp, loss_err, logp_err = _product_atoms_with_errors(groups)
    log_a, log_b = _prefix_logs(loss, logp)
    log_d = math.log(delta)
    ok = log_a > log_d
    root = 0.0
    if ok.any():
        la, lb = log_a[ok], log_b[ok]
        cand = la + np.log(-np.expm1(log_d - la)) - lb
        root = float(max(0.0, cand.max()))
    # Rounding guard: when eps' lies within a few ulps of a loss atom, the float eps' cannot resolve delta
    # finely and the delta computed at it may exceed the target by ~1e-6 relative; and the atoms themselves are
    # rounded (a log-binomial by 1e-13 at k = 300). Move eps' up (by steps that at least double from 2 ulps)
    # until the hockey-stick sum with every probability and every loss raised by its error bound
    # (:func:`_rr_atom_errors`: an upper bound on the exact sum), and with room for the sum's own rounding
    # (64 u (8 + ln(atoms) + |ln delta|) relative), is within the target: never optimistic against the exact
    # atoms (tested against 100-digit arithmetic).
    upper_loss = loss + loss_err
    keep = np.flatnonzero(upper_loss > root)  # the guard's eps' stays >= root: no other atom is ever active
    upper_loss, upper_logp = upper_loss[keep], logp[keep] + logp_err[keep]
    allowed = delta * math.exp(-64.0 * 2.0**-53 * (8.0 + math.log(loss.size) - math.log(delta)))
    e, step = root, 2.0 * float(np.finfo(float).eps) * max(root, 1e-300)
    for _ in range(200):
        up = _delta_of_atoms(upper_loss, upper_logp, e)
        if up <= allowed:
            return float(e)
        # The sum falls at the rate e^e' Q(loss > e') and is convex: twice the tangent's step to the target, at
        # least twice the last step (a few sums at two million atoms, not one per doubling from 2 ulps).
        active = upper_loss > e
        rate = math.exp(e + special.logsumexp(upper_logp[active] - upper_loss[active])) if active.any() else math.inf
        step = max(2.0 * (up - allowed) / rate, 2.0 * step)
        e = e + step
    return float(upper_loss[0])  # above the largest loss the sum is 0 (not reached: the steps at least double)


def _check_optimal_k(eps: float, k: int) -> None:
    """Refuse a k whose k + 1 atoms exceed :data:`MAX_ATOMS`, or whose total k * epsilon overflows."""
    if k + 1 > MAX_ATOMS:
        raise ValueError(f"k must be at most {MAX_ATOMS - 1} for the exact optimal composition (it builds k + 1 "
                         f"atoms), got {k}; use advanced or RDP composition for more mechanisms")
    if not math.isfinite(4.0 * k * eps):
        raise ValueError(f"k * epsilon must be finite, got k={k}, epsilon={eps!r} whose product overflows "
                         "floating point (the total epsilon is then at least that product)")


def optimal_composition_delta(epsilon: float, k: int, epsilon_total: float) -> float:
    """Exact smallest delta for which every k-fold adaptive composition of epsilon-DP mechanisms is (epsilon_total, delta)-DP.

    Theorem ``thm-comp-optimal`` (Kairouz, Oh & Viswanath 2015, Theorem 3.3), under the mechanisms'
    neighbouring relation: the worst case is k independent randomized responses with parameter epsilon, and
    the answer is the hockey-stick divergence between the two k-fold products,
    ``sum_j C(k, j) P(j) (1 - e^{epsilon_total - (k - 2j) epsilon})_+``, evaluated in log space.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon, > 0.
    k : int
        Number of mechanisms, >= 1 (at most 1 999 999: the computation builds k + 1 atoms).
    epsilon_total : float
        The total epsilon asked about, >= 0.

    Returns
    -------
    float
        delta in [0, 1].

    Examples
    --------
    >>> e = 0.5
    >>> round(optimal_composition_delta(e, 1, 0.2), 9) == round((math.exp(e) - math.exp(0.2)) / (1 + math.exp(e)), 9)
    True
    >>> optimal_composition_delta(0.5, 10, 5.0)
    0.0
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    et = check_real(epsilon_total, "epsilon_total", low=0.0)
    _check_optimal_k(eps, k)
    loss, logp = _rr_atoms(eps, k)
    return _delta_of_atoms(loss, logp, et)


def optimal_composition_epsilon(epsilon: float, k: int, delta: float) -> float:
    """Exact smallest total epsilon of k adaptively composed epsilon-DP mechanisms at a given delta.

    The smallest eps' >= 0 with ``optimal_composition_delta(epsilon, k, eps') <= delta`` (theorem
    ``thm-comp-optimal``; Kairouz, Oh & Viswanath 2015): every adaptive composition of k epsilon-DP mechanisms
    under one neighbouring relation is (eps', delta)-DP under it, and some composition is not (e, delta)-DP
    for any e < eps'. Computed in closed form on the right piece of the profile, in log space, then moved up
    by a few ulps where rounding requires, so that the exact divergence at the returned eps' is at most
    delta (never optimistic). It never exceeds the basic ``k epsilon`` nor the advanced-composition bound.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon, > 0.
    k : int
        Number of mechanisms, >= 1 (at most 1 999 999).
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        eps' in nats.

    Examples
    --------
    >>> round(optimal_composition_epsilon(0.1, 100, 1e-5), 4)
    4.3068
    >>> round(optimal_composition_epsilon(1.0, 1, 1e-3), 6) == round(math.log(math.e - 1e-3 * (1 + math.e)), 6)
    True
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    d = check_delta(delta, allow_zero=False)
    _check_optimal_k(eps, k)
    return _epsilon_of_atoms([(eps, k)], d)


def _optimal_epsilon_groups(groups: Sequence[tuple[float, int]], delta: float) -> float:
    """Exact optimal total epsilon of several groups ``[(eps_i, k_i)]`` of pure-DP mechanisms at delta.

    The worst case of heterogeneous pure-DP mechanisms is again the product of randomized-response pairs
    (Murtagh & Vadhan 2016); its atoms are the sums of the groups' atoms.
    """
    return _epsilon_of_atoms(groups, delta)


def gaussian_composition_epsilon(sigma: float, k: int, delta: float, l2_sensitivity: float = 1.0) -> float:
    """Exact smallest epsilon at delta of k adaptively composed Gaussian mechanisms with noise sigma.

    Theorem ``thm-comp-gaussian-exact``: k Gaussian mechanisms, each adding N(0, sigma^2) noise to a query of
    l2 sensitivity ``l2_sensitivity`` (the queries may be chosen adaptively), are together exactly as private
    as one Gaussian mechanism with ``mu = sqrt(k) * l2_sensitivity / sigma``, under the neighbouring relation
    the sensitivity is for. Returns ``gaussian_epsilon(delta, mu)``.

    Parameters
    ----------
    sigma : float
        Noise standard deviation of each mechanism, > 0.
    k : int
        Number of mechanisms, >= 1.
    delta : float
        Target delta in (0, 1).
    l2_sensitivity : float, optional
        l2 sensitivity of each query, > 0 (default 1).

    Returns
    -------
    float
        epsilon in nats (never optimistic, as :func:`dpcourse.gaussian_epsilon`).

    Examples
    --------
    >>> from dpcourse.gaussian import gaussian_epsilon
    >>> gaussian_composition_epsilon(10.0, 100, 1e-5) == gaussian_epsilon(1e-5, 1.0)
    True
    """
    s = check_real(sigma, "sigma", low=0.0, low_open=True)
    k = check_positive_int(k, "k")
    d = check_delta(delta, allow_zero=False)
    sens = check_sensitivity(l2_sensitivity, "l2_sensitivity")
    mu = math.sqrt(k) * sens / s
    if not (math.isfinite(mu) and mu > 0.0):
        raise ValueError(f"sqrt(k) * l2_sensitivity / sigma must be a positive finite number, got sqrt({k}) * "
                         f"{sens!r} / {s!r} = {mu!r} (rescale the query)")
    return gaussian_epsilon(d, mu)


# ----------------------------------------------------------------------------------------------------
# Renyi differential privacy.


def _check_orders(alpha: object) -> np.ndarray:
    raw = None if isinstance(alpha, (bool, np.bool_, str, bytes)) else np.asarray(alpha)
    if raw is None or raw.dtype.kind not in "iuf":  # refuse bools, strings ('2' is not the order 2), objects
        raise TypeError(f"alpha must be a real number or an array of them, got {type(alpha).__name__} {alpha!r}")
    a = raw.astype(float)
    if not np.all(np.isfinite(a)) or not np.all(a > 1.0):
        raise ValueError(f"alpha (the Renyi order) must be finite and > 1 everywhere, got {alpha!r}")
    return a


def _out(values, alpha):
    return float(values) if np.ndim(alpha) == 0 else values


def _expm1_minus_x(z):
    """``e^z - 1 - z`` (>= 0) without cancellation: Taylor series for |z| < 1/2, else directly."""
    z = np.asarray(z, dtype=float)
    small = np.abs(z) < 0.5
    zs = np.where(small, z, 0.0)
    term, series = zs * zs / 2.0, np.zeros_like(zs)
    for n in range(3, 25):  # |z|^n / n! < 1e-17 relative to z^2/2 after ~20 terms for |z| < 1/2
        series = series + term
        term = term * zs / n
    with np.errstate(over="ignore"):
        direct = np.expm1(np.where(small, 0.0, z)) - np.where(small, 0.0, z)
    return np.where(small, series, direct)


def _laplace_log_moment(a, e):
    """ln[a/(2a-1) e^{(a-1)e} + (a-1)/(2a-1) e^{-ae}]: the Laplace mechanism's Renyi moment.

    The bracket is 1 + [a g((a-1)e) + (a-1) g(-ae)]/(2a-1) with g(z) = e^z - 1 - z >= 0 (the first-order
    terms cancel exactly), so for small (a-1)e it is computed as log1p of a sum of positive terms; the
    log-sum-exp form, which loses everything below 1e-16 to cancellation, is used only for larger values.
    """
    x = (a - 1) * e
    small = x < 1.0
    xs, ys = np.where(small, x, 0.0), np.where(small, a * e, 0.0)
    near = np.log1p((a * _expm1_minus_x(xs) + (a - 1) * _expm1_minus_x(-ys)) / (2 * a - 1))
    far = np.logaddexp(np.log(a / (2 * a - 1)) + x, np.log((a - 1) / (2 * a - 1)) - a * e)
    return np.where(small, near, far)


def _rr_log_moment(a, e):
    """ln[(e^{ae} + e^{(1-a)e}) / (1 + e^e)]: the randomized-response pair's Renyi moment.

    The numerator minus the denominator is g(ae) + g((1-a)e) - g(e) with g(z) = e^z - 1 - z (the
    first-order terms cancel exactly); for small ae it is computed that way, else by log-sum-exp.
    """
    x = a * e
    small = x < 1.0
    ax, es = np.where(small, x, 0.0), np.where(small, e, 0.0)
    diff = _expm1_minus_x(ax) + _expm1_minus_x(es - ax) - _expm1_minus_x(es)
    near = np.log1p(diff / (2.0 + np.expm1(es)))
    far = np.logaddexp(x, (1 - a) * e) - np.logaddexp(0.0, e)
    return np.where(small, near, far)


def _pure_dp_curve(alpha, epsilon, log_moment):
    """Validate (alpha, epsilon) and return ``log_moment(alpha, epsilon) / (alpha - 1)``."""
    a = _check_orders(alpha)
    eps = check_epsilon(epsilon)
    # A Renyi divergence is >= 0; the clip only removes a rounding error of the order of 1e-300.
    return _out(np.maximum(log_moment(a, eps) / (a - 1), 0.0), alpha)


def rdp_gaussian(alpha: float | npt.ArrayLike, mu: float) -> float | np.ndarray:
    """Renyi divergence of order alpha of a Gaussian mechanism: ``alpha mu^2 / 2`` with mu = Delta_2 / sigma.

    Mironov 2017, Proposition 7 (lemma ``lem-comp-rdp``): D_alpha(N(Delta, sigma^2) || N(0, sigma^2)) =
    alpha Delta^2 / (2 sigma^2), the mechanism's RDP curve under the neighbouring relation Delta_2 is the l2
    sensitivity for.

    Parameters
    ----------
    alpha : float or array_like
        Renyi order(s), each > 1.
    mu : float
        l2 sensitivity over sigma, > 0.

    Returns
    -------
    float or numpy.ndarray
        The divergence at each order (a float for a scalar ``alpha``).

    Examples
    --------
    >>> rdp_gaussian(2.0, 1.0)
    1.0
    """
    a = _check_orders(alpha)
    m = check_real(mu, "mu", low=0.0, low_open=True)
    return _out(a * m * m / 2.0, alpha)


def rdp_laplace(alpha: float | npt.ArrayLike, epsilon: float) -> float | np.ndarray:
    """Renyi divergence of order alpha of the Laplace mechanism with scale Delta_1 / epsilon (one-dimensional shift).

    Mironov 2017, Table II (lemma ``lem-comp-rdp``): ``1/(alpha-1) ln[alpha/(2 alpha-1) e^{(alpha-1) eps} +
    (alpha-1)/(2 alpha-1) e^{-alpha eps}]``, evaluated in log space; the mechanism's RDP curve under the
    neighbouring relation Delta_1 is the sensitivity for. It tends to epsilon as alpha grows.

    Parameters
    ----------
    alpha : float or array_like
        Renyi order(s), each > 1.
    epsilon : float
        The mechanism's epsilon (sensitivity over scale), > 0.

    Returns
    -------
    float or numpy.ndarray
        The divergence at each order (a float for a scalar ``alpha``).

    Examples
    --------
    >>> round(rdp_laplace(2.0, 1.0), 6)
    0.619124
    """
    return _pure_dp_curve(alpha, epsilon, _laplace_log_moment)


def rdp_pure_dp(alpha: float | npt.ArrayLike, epsilon: float) -> float | np.ndarray:
    """Largest Renyi divergence of order alpha that an epsilon-DP mechanism can have.

    Every epsilon-DP pair of output distributions (on two neighbours, under the mechanism's relation) is a
    post-processing of the randomized-response pair (e^eps, 1)/(1+e^eps) vs (1, e^eps)/(1+e^eps), and Renyi
    divergence cannot grow under post-processing (lemma ``lem-comp-rdp``); so the answer is that pair's
    divergence, ``1/(alpha-1) ln[(e^{alpha eps} + e^{(1-alpha) eps}) / (1 + e^eps)]``, at most
    ``min(epsilon, alpha epsilon^2 / 2)``.

    Parameters
    ----------
    alpha : float or array_like
        Renyi order(s), each > 1.
    epsilon : float
        The mechanism's epsilon, > 0.

    Returns
    -------
    float or numpy.ndarray
        The divergence at each order (a float for a scalar ``alpha``).

    Examples
    --------
    >>> round(rdp_pure_dp(2.0, 1.0), 6)
    0.735326
    """
    return _pure_dp_curve(alpha, epsilon, _rr_log_moment)


_CONVERSIONS = ("improved", "mironov")


def _conversion_term(a, delta, conversion):
    if conversion == "mironov":  # Mironov 2017, Proposition 3
        return -math.log(delta) / (a - 1)
    # Canonne, Kamath & Steinke 2020, Proposition 12 (= Balle et al. 2020, Theorem 21)
    return np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1)


class RdpEpsilon(NamedTuple):
    """What :func:`rdp_to_epsilon` returns: the epsilon and the Renyi order that attains it."""

    epsilon: float   # clipped at 0
    alpha: float     # the order alpha > 1 of the minimum


def rdp_to_epsilon(rdp_curve: Callable[[np.ndarray], npt.ArrayLike], delta: float, *,
                   conversion: str = "improved") -> RdpEpsilon:
    """Convert a Renyi-DP curve to (epsilon, delta)-DP, optimising the order alpha.

    A mechanism that is (alpha, r(alpha))-RDP for every alpha > 1 under a neighbouring relation is
    (epsilon, delta)-DP under the same relation (lemma ``lem-comp-rdp``) with

    * ``conversion="mironov"``: ``epsilon = min_alpha r(alpha) + ln(1/delta) / (alpha - 1)``
      (Mironov 2017, Proposition 3);
    * ``conversion="improved"`` (default): ``epsilon = min_alpha r(alpha) + ln(1 - 1/alpha)
      - (ln delta + ln alpha) / (alpha - 1)`` (Canonne, Kamath & Steinke 2020, Proposition 12), smaller for
      every alpha.

    The minimum is searched on a log grid of alpha - 1 in [1e-4, 1e6], refined by a bounded scalar search;
    the result is a valid bound whatever alpha the search returns.

    Parameters
    ----------
    rdp_curve : callable
        Vectorized function ``alpha -> r(alpha)`` (e.g. a sum of :func:`rdp_gaussian` terms), alpha > 1,
        returning finite values >= 0.
    delta : float
        Target delta in (0, 1).
    conversion : {"improved", "mironov"}
        The conversion theorem.

    Returns
    -------
    RdpEpsilon
        The NamedTuple ``(epsilon, alpha)``: the epsilon (clipped at 0) and the order that attains it.

    Examples
    --------
    >>> eps, alpha = rdp_to_epsilon(lambda a: rdp_gaussian(a, 1.0), 1e-5, conversion="mironov")
    >>> round(eps, 6) == round(zcdp_epsilon(0.5, 1e-5), 6)
    True
    """
    if not callable(rdp_curve):
        raise TypeError(f"rdp_curve must be a function of alpha, got {type(rdp_curve).__name__}")
    d = check_delta(delta, allow_zero=False)
    if conversion not in _CONVERSIONS:
        raise ValueError(f"conversion must be one of {_CONVERSIONS}, got {conversion!r}")

    def curve(a):
        r = np.asarray(rdp_curve(a))
        if r.dtype == bool or r.dtype.kind not in "iuf":
            raise TypeError(f"rdp_curve must return real numbers, got dtype {r.dtype}")
        if r.shape != a.shape:
            raise ValueError(f"rdp_curve must return one number per order alpha: shape {r.shape} for {a.shape} orders")
        r = r.astype(float)
        if not np.all(np.isfinite(r)):
            raise ValueError("rdp_curve must return one finite number per order alpha, got NaN or inf")
        if (r < 0).any():
            bad = int(np.argmax(r < 0))
            raise ValueError(f"rdp_curve must be >= 0 (a Renyi divergence is never negative), got {r[bad]!r} at "
                             f"alpha = {float(a[bad]):.6g}")
        return r

    def total(log_am1):
        a = 1.0 + np.exp(log_am1)
        return curve(a) + _conversion_term(a, d, conversion)

    grid = np.linspace(math.log(1e-4), math.log(1e6), 2001)
    values = total(grid)
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best_x, best = grid[i], float(values[i])
    if hi > lo:
        res = optimize.minimize_scalar(lambda x: float(total(np.array([x]))[0]), bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-10})
        if res.fun < best:
            best_x, best = float(res.x), float(res.fun)
    return RdpEpsilon(max(0.0, best), 1.0 + math.exp(best_x))
