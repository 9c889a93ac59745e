"""The Gaussian mechanism: its exact privacy profile, calibrations and the mechanism itself.

The exact profile is the core every Gaussian statement of the course uses: a Gaussian mechanism with
l2 sensitivity Delta and noise sigma is characterised by mu = Delta / sigma alone, and its privacy
profile is (Balle & Wang 2018, Theorem 8)

    delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from ._validation import check_delta, check_real

__all__ = ["gaussian_delta", "gaussian_epsilon"]


def _check_mu(mu) -> float:
    return check_real(mu, "mu", low=0.0, low_open=True)


def gaussian_delta(epsilon, mu) -> float:
    """Exact smallest delta for which a Gaussian mechanism with ``mu = Delta_2 / sigma`` is (epsilon, delta)-DP.

    Returns ``Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu)``, the hockey-stick divergence
    between N(0, sigma^2) and N(Delta_2, sigma^2) (both directions agree by symmetry), under whichever
    neighbouring relation ``Delta_2`` is the l2 sensitivity for (theorem ``thm-gaussian-profile``;
    Balle & Wang 2018, Theorem 8). The second term is evaluated in log space, so the result is accurate
    for epsilon in the hundreds and mu tiny or large.

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
    a = m / 2 - eps / m
    b = -m / 2 - eps / m
    # Phi(a) - exp(eps + log Phi(b)); both terms in log space to avoid inf * 0 and cancellation.
    log_first = special.log_ndtr(a)
    log_second = eps + special.log_ndtr(b)
    if log_second >= log_first:  # only by rounding: the difference is >= 0 mathematically
        return 0.0
    return float(np.exp(log_first) * -np.expm1(log_second - log_first))


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
    hi = 1.0
    while gaussian_delta(hi, m) > d:
        hi *= 2.0
        if hi > 1e7:  # cannot happen for delta >= 1e-300; a guard against an endless loop
            raise ValueError(f"epsilon for delta={delta!r}, mu={mu!r} exceeds 1e7")
    return float(optimize.brentq(lambda e: gaussian_delta(e, m) - d, 0.0, hi, xtol=1e-14, rtol=1e-13, maxiter=500))
