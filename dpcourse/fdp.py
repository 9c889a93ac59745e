"""The hypothesis-testing view of differential privacy: trade-off functions, f-DP and Gaussian DP.

A test that sees a mechanism's output decides between the neighbours x and x'. Its type I error alpha (it
rejects x although the data is x) and its type II error beta (it accepts x although the data is x') cannot
both be small; the smallest beta at each alpha is the **trade-off function** T(P, Q) of the two output
distributions P = M(x), Q = M(x') (chapter "The hypothesis-testing view", definition ``fdp-def-tradeoff``;
Dong, Roth & Su 2022). The conventions are those of theorem ``thm-testing-tradeoff`` of chapter 1:
alpha = Pr[reject | x] (the false-positive rate), beta = Pr[accept | x'] (the false-negative rate); an
attacker's best true-positive rate at false-positive rate alpha is ``1 - f(alpha)``.

This module gives the exact trade-off curves of randomized response, Laplace and Gaussian noise, the curve
implied by an (epsilon, delta) guarantee or by a whole privacy profile, and the curve and the Gaussian-DP
parameter mu of the accountant's events (:mod:`dpcourse.accounting`): :func:`tradeoff_curve` and
:func:`gdp_mu` take the same events as :class:`~dpcourse.accounting.PrivacyAccountant`. The conversion
mu-GDP -> (epsilon, delta) is :func:`dpcourse.gaussian.gaussian_delta` / :func:`dpcourse.gaussian.gaussian_epsilon`
(the same formula: theorem ``fdp-thm-gdp-to-dp``). :func:`gdp_mu_for_dp` answers the calibration question
"which mu still implies a target (epsilon, delta)?"; it does not turn an (epsilon, delta) guarantee into a GDP one
(with delta > 0 no finite mu follows from (epsilon, delta)-DP alone).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._validation import check_delta, check_epsilon, check_flag, check_positive_int, check_real, check_real_array
from .accounting import (DpEvent, GaussianEvent, LaplaceEvent, NotApplicableError, PoissonSampledEvent,
                         PrivacyAccountant, PureDPEvent, _check_method)
from .gaussian import _check_mu, _within, analytic_gaussian_sigma

__all__ = [
    "tradeoff_gaussian",
    "tradeoff_laplace",
    "tradeoff_randomized_response",
    "tradeoff_epsilon_delta",
    "tradeoff_from_profile",
    "tradeoff_curve",
    "gdp_mu",
    "gdp_mu_for_dp",
    "clt_mu_poisson_gaussian",
    "DEFAULT_PROFILE_DELTAS",
]

#: The deltas at which :func:`tradeoff_curve` asks the accountant for epsilon when no closed form applies
#: (31 values: 21 geometric from 1e-10 to 0.1, 9 evenly spaced from 0.15 to 0.95, then 0.99). The large deltas
#: matter: for mu >= 1 the tangent lines of the curve at moderate alpha have delta above 0.5 (a geometric grid
#: stopping at 0.5 left the envelope 0.25 below G_4 and 0.07 below G_1). Measured on Gaussian profiles
#: (``tests/test_fdp.py``), as the supremum over alpha (G_mu minus a maximum of lines is largest at one of the
#: envelope's kinks, where it is evaluated exactly) and over mu (a scan of mu in steps of 0.005, refined near its
#: peaks): the envelope is at most 0.018 below G_mu for mu <= 1, 0.026 up to mu = 4 and 0.031 up to mu = 6. The
#: gap is not monotone in mu: it peaks where the total variation distance 2 Phi(mu/2) - 1 (the delta of the
#: epsilon = 0 tangent) falls between two grid deltas, 0.0178 at mu = 0.591 and 0.0257 at mu = 3.598, against
#: 0.0109, 0.0224 and 0.0304 at mu = 1, 4 and 6 (where the largest gaps sit at tiny alpha, 4e-8 at mu = 4, where a
#: linear alpha grid does not look). With method "pld" each delta is one accountant query (about 0.1 s for a
#: Poisson-sampled Gaussian at 100 to 1000 steps).
DEFAULT_PROFILE_DELTAS = tuple(float(d) for d in np.concatenate([np.geomspace(1e-10, 0.1, 21),
                                                                 np.linspace(0.15, 0.95, 9), [0.99]]))


def _check_alpha(alpha):
    """alpha (a type I error, public): a real number or array with entries in [0, 1]."""
    scalar = np.ndim(alpha) == 0
    a = check_real_array(np.atleast_1d(alpha) if scalar else alpha, "alpha")
    if np.any(a < 0.0) or np.any(a > 1.0):
        bad = float(a[(a < 0.0) | (a > 1.0)][0])
        raise ValueError(f"alpha must lie in [0, 1] (a type I error), got an entry {bad!r}")
    return a, scalar


def _out(values, scalar):
    values = np.clip(values, 0.0, 1.0)
    return float(values[0]) if scalar else values


def tradeoff_gaussian(alpha: ArrayLike, mu: float) -> float | np.ndarray:
    """The Gaussian trade-off function ``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``.

    ``G_mu = T(N(0, 1), N(mu, 1))`` (theorem ``fdp-thm-gaussian-curve``): the smallest type II error of a
    test between the outputs of a Gaussian mechanism with ``mu = l2_sensitivity / sigma`` on two neighbours,
    under whichever neighbouring relation the sensitivity is computed for. A mechanism is mu-GDP
    (definition ``fdp-def-gdp``; Dong, Roth & Su 2022) when its trade-off functions are all >= G_mu.
    Evaluated as ``Phi(-Phi^{-1}(alpha) - mu)`` (``special.ndtri`` of alpha itself, so tiny alpha keeps its
    accuracy).

    Parameters
    ----------
    alpha : float or array_like
        Type I errors in [0, 1].
    mu : float
        mu > 0, finite.

    Returns
    -------
    float or numpy.ndarray
        beta = G_mu(alpha), same shape as ``alpha``.

    Examples
    --------
    >>> round(tradeoff_gaussian(0.05, 1.0), 6)  # Phi(1.644854 - 1)
    0.740489
    >>> tradeoff_gaussian(0.0, 3.0), tradeoff_gaussian(1.0, 3.0)
    (1.0, 0.0)
    """
    a, scalar = _check_alpha(alpha)
    m = _check_mu(mu)
    with np.errstate(divide="ignore"):
        beta = special.ndtr(-special.ndtri(a) - m)  # ndtri(0) = -inf -> beta = 1; ndtri(1) = inf -> 0
    return _out(beta, scalar)


def tradeoff_laplace(alpha: ArrayLike, epsilon: float) -> float | np.ndarray:
    """The exact trade-off function of the Laplace mechanism with noise scale ``sensitivity / epsilon``.

    ``T(Lap(0, 1), Lap(epsilon, 1))`` (theorem ``fdp-thm-laplace-curve``) is

    * ``1 - e^epsilon alpha`` for ``alpha < e^-epsilon / 2``,
    * ``e^-epsilon / (4 alpha)`` for ``e^-epsilon / 2 <= alpha <= 1/2``,
    * ``e^-epsilon (1 - alpha)`` for ``alpha > 1/2``.

    It is the curve of two neighbours whose real-valued query answers differ by the full sensitivity, under
    the relation the sensitivity is computed for (the worst pair for a one-dimensional query); it lies above
    ``f_{epsilon, 0}`` (:func:`tradeoff_epsilon_delta`): equal to it for alpha <= e^-epsilon / 2 and for
    alpha >= 1/2, strictly above it in between (the Laplace mechanism is epsilon-DP, but no pair of its
    outputs is as distinguishable as randomized response's).

    Parameters
    ----------
    alpha : float or array_like
        Type I errors in [0, 1].
    epsilon : float
        epsilon > 0 (the Laplace scale is sensitivity / epsilon).

    Returns
    -------
    float or numpy.ndarray
        beta at each alpha, same shape as ``alpha``.

    Examples
    --------
    >>> round(tradeoff_laplace(0.25, 1.0), 6)  # e^-1 / (4 * 0.25)
    0.367879
    >>> round(tradeoff_laplace(0.75, 1.0), 6)  # e^-1 * 0.25
    0.09197
    """
    a, scalar = _check_alpha(alpha)
    eps = check_epsilon(epsilon)
    if eps <= 700.0:  # e^eps and e^-eps are normal floats: the three pieces directly
        knee = 0.5 * math.exp(-eps)
        with np.errstate(divide="ignore", over="ignore"):
            middle = math.exp(-eps) / (4.0 * a)
        beta = np.where(a < knee, _one_minus_scaled(a, eps, 0.0),
                        np.where(a <= 0.5, middle, math.exp(-eps) * (1.0 - a)))
        return _out(beta, scalar)
    # Beyond, e^-eps is subnormal or 0 (e^-eps / (4 alpha) was 0/0 = NaN at alpha = 0 from eps = 746, and lost
    # its digits before): the pieces and the knee in log space. alpha = 0 (log -inf) takes the first piece, 1.
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_a = np.log(a)
        first = -np.expm1(np.minimum(eps + log_a, 0.0))           # 1 - e^eps alpha, where e^eps alpha < 1/2
        middle = np.exp(-eps - math.log(4.0) - log_a)
        last = np.exp(-eps + np.log1p(-a))
    beta = np.where(log_a < -eps - math.log(2.0), first, np.where(a <= 0.5, middle, last))
    return _out(beta, scalar)


def tradeoff_epsilon_delta(alpha: ArrayLike, epsilon: float, delta: float = 0.0) -> float | np.ndarray:
    """The trade-off function ``f_{epsilon, delta}`` that (epsilon, delta)-DP guarantees.

    ``f(alpha) = max(0, 1 - delta - e^epsilon alpha, e^-epsilon (1 - delta - alpha))`` (theorem
    ``fdp-thm-dp-as-tradeoff``; Wasserman & Zhou 2010, Kairouz, Oh & Viswanath 2015, Dong, Roth & Su 2022):
    a mechanism is (epsilon, delta)-DP under a (symmetric) neighbouring relation exactly when all its
    trade-off functions are >= f_{epsilon, delta}. It is chapter 1's pair of inequalities
    (theorem ``thm-testing-tradeoff``) solved for beta.

    Parameters
    ----------
    alpha : float or array_like
        Type I errors in [0, 1].
    epsilon : float
        epsilon >= 0, finite.
    delta : float, default 0.0
        delta in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        beta at each alpha, same shape as ``alpha``.

    Examples
    --------
    >>> round(tradeoff_epsilon_delta(0.1, math.log(3)), 6)  # 1 - 3 * 0.1
    0.7
    >>> round(tradeoff_epsilon_delta(0.5, math.log(3), 0.1), 6)  # (1 - 0.1 - 0.5) / 3
    0.133333
    """
    a, scalar = _check_alpha(alpha)
    eps = check_real(epsilon, "epsilon", low=0.0)
    d = check_real(delta, "delta", low=0.0, high=1.0)
    return _out(_f_eps_delta(a, eps, d), scalar)


def _one_minus_scaled(a: np.ndarray, eps: float, d: float) -> np.ndarray:
    """``1 - d - e^eps a`` without overflow (-inf where e^eps a overflows, 1 - d at a = 0).

    Beyond eps = 700, e^eps a is ``exp(eps + log a)``: e^eps overflows there, but e^eps a is below 1 for a
    subnormal a (``f_{720, 0}(1e-320)`` is 1 - 5.3e-8, not 0).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if eps <= 700.0:
            scaled = np.where(a > 0, np.exp(eps) * a, 0.0)
        else:
            scaled = np.where(a > 0, np.exp(eps + np.log(np.where(a > 0, a, 1.0))), 0.0)
    return 1.0 - d - scaled


def _f_eps_delta(a: np.ndarray, eps: float, d: float) -> np.ndarray:
    first = _one_minus_scaled(a, eps, d)
    return np.maximum(np.maximum(first, math.exp(-eps) * (1.0 - d - a)), 0.0)


def tradeoff_randomized_response(alpha: ArrayLike, epsilon: float) -> float | np.ndarray:
    """The exact trade-off function of binary randomized response with ``p = e^epsilon / (1 + e^epsilon)``.

    Equal to ``f_{epsilon, 0}`` (theorem ``fdp-thm-rr-curve``): randomized response meets the pure-DP
    curve everywhere, which is why every epsilon-DP mechanism is a post-processing of it on each pair of
    neighbours (Kairouz, Oh & Viswanath 2015). The curve is that of a test allowed its own coins
    (randomized tests); deterministic tests reach only its corners (0, 1), (1 - p, 1 - p), (1, 0). Under
    whichever neighbouring relation the response's epsilon is stated for.

    Parameters
    ----------
    alpha : float or array_like
        Type I errors in [0, 1].
    epsilon : float
        epsilon > 0.

    Returns
    -------
    float or numpy.ndarray
        beta at each alpha, same shape as ``alpha``.

    Examples
    --------
    >>> p = math.exp(1.0) / (1 + math.exp(1.0))
    >>> round(tradeoff_randomized_response(1 - p, 1.0), 12) == round(1 - p, 12)
    True
    """
    return tradeoff_epsilon_delta(alpha, check_epsilon(epsilon), 0.0)


def tradeoff_from_profile(alpha: ArrayLike, epsilons: ArrayLike, deltas: ArrayLike) -> float | np.ndarray:
    """The trade-off function implied by a set of (epsilon_j, delta_j) guarantees: ``max_j f_{epsilon_j, delta_j}``.

    If a mechanism is (epsilon_j, delta_j)-DP for every j, it is f-DP with the pointwise maximum of the
    f_{epsilon_j, delta_j} (theorem ``fdp-thm-profile-envelope``); over the whole privacy profile
    delta(epsilon), epsilon >= 0, of a symmetric pair this maximum is the exact trade-off function (Dong,
    Roth & Su 2022, the duality between f-DP and privacy profiles). An epsilon of ``inf`` (no guarantee at that delta) is skipped.

    Parameters
    ----------
    alpha : float or array_like
        Type I errors in [0, 1].
    epsilons, deltas : array_like
        Equal-length sequences: epsilon_j >= 0 (or inf) and delta_j in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        beta at each alpha, same shape as ``alpha``.

    Examples
    --------
    >>> round(tradeoff_from_profile(0.1, [1.0, 2.0], [0.1, 0.01]), 6)  # max(1 - .1 - .2718, 1 - .01 - .7389)
    0.628172
    """
    a, scalar = _check_alpha(alpha)
    eps = _check_profile_epsilons(epsilons)
    d = check_real_array(deltas, "deltas", ndim=1)
    if eps.ndim != 1 or eps.size != d.size:
        raise ValueError(f"epsilons and deltas must be 1-d and of equal length, got {eps.ndim}-d epsilons of size "
                         f"{eps.size} and {d.size} deltas")
    if np.any(np.isnan(eps)) or np.any(eps < 0) or np.any(eps == -np.inf):
        raise ValueError("epsilons must be >= 0 (inf allowed for 'no guarantee at this delta'), got a negative or NaN")
    if np.any(d < 0) or np.any(d > 1):
        raise ValueError("deltas must lie in [0, 1]")
    beta = np.zeros_like(a)
    for e, dj in zip(eps, d):
        if math.isfinite(e):
            beta = np.maximum(beta, _f_eps_delta(a, float(e), float(dj)))
    return _out(beta, scalar)


def _check_profile_epsilons(epsilons: ArrayLike) -> np.ndarray:
    """epsilons of a profile (public): a sequence of real numbers >= 0 or +inf, as a float array.

    Strings (``["1.0"]``), bools (``[True]``), complex numbers and None are refused by name (numpy would convert
    the first two to 1.0); NaN and negative entries are checked by the caller.
    """
    if isinstance(epsilons, (str, bytes)):
        raise TypeError(f"epsilons must be a sequence of real numbers, got {type(epsilons).__name__} {epsilons!r}")
    try:
        arr = np.atleast_1d(np.asarray(epsilons))
    except (TypeError, ValueError):
        raise TypeError(f"epsilons must be a sequence of real numbers, got a ragged or malformed "
                        f"{type(epsilons).__name__}") from None
    if arr.dtype == object:  # mixed entries: each must be a real number (a bool or a str is not)
        arr = np.array([check_real(v, "epsilons", allow_inf=True) for v in arr.ravel()]).reshape(arr.shape)
    elif arr.dtype.kind not in "iuf":
        raise TypeError(f"epsilons must hold real numbers (or inf), got dtype {arr.dtype}")
    return arr.astype(float)


def _counts(events):
    """The accountant's flattened ``((base_event, runs), ...)`` of an event, a sequence of events or an accountant."""
    if isinstance(events, PrivacyAccountant):
        acc = events
    elif isinstance(events, DpEvent):
        acc = PrivacyAccountant([events])
    else:
        acc = PrivacyAccountant(events)
    return acc, acc._counts()


def clt_mu_poisson_gaussian(sampling_rate: float, noise_multiplier: float, steps: int) -> float:
    """The CLT's mu for ``steps`` Poisson-sampled Gaussian steps: ``q sqrt(steps (e^{1/sigma^2} - 1))``.

    Theorem ``fdp-thm-clt-sampled``: as T -> infinity with sigma fixed and ``q sqrt(T) -> nu``, the trade-off
    function of the T-step composition converges uniformly to G_mu, mu = nu sqrt(e^{1/sigma^2} - 1), in **both**
    orders of a pair of add/remove neighbours (the record removed, and the record added); the formula is the one
    Bu, Dong, Long & Su (2020) give for Poisson sampling. For finite T this is an **approximation, not a
    guarantee**: it can under-report the exact epsilon (``benchmarks/bench_fdp.py`` compares it with the PLD
    accountant).

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1].
    noise_multiplier : float
        sigma >= ``1/sqrt(700)`` (about 0.0378), where ``e^{1/sigma^2}`` still fits a float; refused by name below.
    steps : int
        T >= 1, small enough that mu fits a float (refused by name otherwise).

    Returns
    -------
    float
        mu.

    Examples
    --------
    >>> round(clt_mu_poisson_gaussian(0.01, 1.0, 1000), 6)
    0.414522
    """
    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.0, low_open=True)
    k = check_positive_int(steps, "steps")
    if not sigma * sigma >= 1.0 / 700.0:   # gdp_mu's limit e^(mu^2), mu^2 <= 700 (at 5e-324 the event itself overflows)
        raise ValueError(f"noise_multiplier must be at least 1/sqrt(700) = {1.0 / math.sqrt(700.0):.6g} for the CLT "
                         f"(e^(1/sigma^2) overflows below it: such a run leaks everything), got {noise_multiplier!r}")
    per_step = math.expm1(1.0 / (sigma * sigma))  # 0 when 1/sigma^2 underflows (mu is then 0)
    if per_step > 0 and math.log(q) + 0.5 * (math.log(k) + math.log(per_step)) >= math.log(np.finfo(float).max):
        shown = f"an integer of {len(str(k))} digits" if k > 10**20 else repr(k)
        raise ValueError(f"steps is too large for this sampling_rate and noise_multiplier, got {shown}: the CLT's mu "
                         f"q sqrt(steps (e^(1/sigma^2) - 1)) exceeds the largest float (such a run leaks everything)")
    return gdp_mu(PrivacyAccountant().compose(PoissonSampledEvent(q, GaussianEvent(sigma)), k), clt=True)


def gdp_mu(events: DpEvent | Sequence[DpEvent] | PrivacyAccountant, *, clt: bool = False) -> float:
    """The Gaussian-DP parameter mu of the accountant's events (a DpEvent, a sequence of them, or an accountant).

    * Gaussian events (any number, any sigmas, composed adaptively): mu-GDP under the events' neighbouring
      relation with ``mu = sqrt(sum of runs * (l2_sensitivity / sigma)^2)`` (theorem ``fdp-thm-gdp-composition``),
      a guarantee; when the sensitivities are attained the composition's trade-off function is exactly G_mu.
    * Poisson-sampled Gaussian events: only with ``clt=True``, each run contributing ``q^2 (e^{mu_0^2} - 1)``
      to mu^2 (theorem ``fdp-thm-clt-sampled``, both orders of add/remove): the central limit theorem's
      **approximation**, not a guarantee.
    * Pure-DP and Laplace events: :class:`~dpcourse.accounting.NotApplicableError` (use :func:`tradeoff_curve`).

    Parameters
    ----------
    events : DpEvent, sequence of DpEvent, or PrivacyAccountant
        The events; a run count of any size is summed exactly (rationals), rounded once before the root.
    clt : bool, default False
        Accept Poisson-sampled Gaussian events with the CLT's approximation.

    Returns
    -------
    float
        mu; a mu beyond the largest float is refused by name.

    Examples
    --------
    >>> gdp_mu([GaussianEvent(sigma=2.0), GaussianEvent(sigma=2.0, l2_sensitivity=1.5)])  # sqrt(0.25 + 0.5625)
    0.9013878188659973
    """
    clt = check_flag(clt, "clt")
    _, counts = _counts(events)
    total = []  # exact terms runs * (per-run mu^2): a count of any size (10**400) is an int, not a float
    for e, n in counts:
        if isinstance(e, GaussianEvent):
            total.append(n * Fraction(e.mu) ** 2)
        elif isinstance(e, PoissonSampledEvent) and isinstance(e.event, GaussianEvent):
            if not clt:
                raise NotApplicableError("a Poisson-sampled Gaussian is not exactly mu-GDP for any useful mu; "
                                         "gdp_mu(..., clt=True) returns the central limit theorem's approximation "
                                         "(not a guarantee)")
            if e.event.mu ** 2 > 700.0:
                raise ValueError(f"the CLT's e^(1/sigma^2) overflows for sigma (noise_multiplier) = "
                                 f"{e.event.sigma / e.event.l2_sensitivity!r}: such a run leaks everything")
            total.append(n * Fraction(e.sampling_rate) ** 2 * Fraction(math.expm1(e.event.mu ** 2)))
        else:
            name = type(e).__name__ if not isinstance(e, PoissonSampledEvent) else \
                f"PoissonSampledEvent({type(e.event).__name__})"
            hint = "" if isinstance(e, PoissonSampledEvent) else ": use tradeoff_curve"  # it takes no sampled Laplace
            raise NotApplicableError(f"gdp_mu accounts for Gaussian (and, with clt=True, Poisson-sampled Gaussian) "
                                     f"events only, got {name}{hint}")
    square = sum(total, Fraction(0))
    # the exact sum scaled by a power of 4 into the float range, rounded once, its root scaled back (exact steps)
    shift = (square.numerator.bit_length() - square.denominator.bit_length()) // 2
    try:
        return math.ldexp(math.sqrt(float(square / Fraction(4) ** shift)), shift)
    except OverflowError:
        raise ValueError("the composed mu overflows (it is above the largest float, about 1.8e308): the events "
                         "leak everything") from None


def gdp_mu_for_dp(epsilon: float, delta: float) -> float:
    """The largest mu such that mu-GDP implies (epsilon, delta)-DP (a calibration, not a conversion of a guarantee).

    It answers "how large may mu be if the release must be (epsilon, delta)-DP?", under whichever neighbouring
    relation the guarantee is stated for: for a Gaussian mechanism of l2 sensitivity Delta the smallest noise is
    ``sigma = Delta / gdp_mu_for_dp(epsilon, delta)``. It does **not** say that an (epsilon, delta)-DP mechanism
    is mu-GDP with this mu (with delta > 0 it is mu-GDP for no finite mu in general). The answer is the root of
    ``gaussian_delta(epsilon, mu) = delta`` (theorem ``fdp-thm-gdp-to-dp``), ``1 / analytic_gaussian_sigma``,
    certified: the exact profile at the returned mu is at most delta (stepped down where rounding in 1/sigma
    broke it), and, for delta from 2.3e-308 (the smallest normal float) to 0.5, ``gaussian_delta(epsilon,
    mu * (1 + 1e-9)) > delta``. Nearer 1 the profile is flat in mu and the certificate's margin moves mu further
    below the root (3.7e-9 relative at delta = 0.99999, 3e-5 at 1 - 1e-9; at delta = 0.9 for epsilon 1e10).

    Parameters
    ----------
    epsilon : float
        epsilon > 0.
    delta : float
        delta in (0, 1).

    Returns
    -------
    float
        mu > 0.

    Examples
    --------
    >>> mu = gdp_mu_for_dp(1.0, 1e-5)
    >>> round(mu, 6)
    0.268051
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    mu = 1.0 / analytic_gaussian_sigma(eps, d)
    step, log_d = 2.0**-52, math.log(d)
    while not _within(eps, mu, log_d):  # the guard: step down, doubling the step, until the exact delta is
        mu *= 1.0 - step                # certainly <= d (delta -> 0 as mu -> 0: it ends)
        step = min(2.0 * step, 0.5)
    return mu


def _method_for(counts):
    kinds = {type(e) for e, _ in counts}
    if PoissonSampledEvent in kinds:
        return "pld"
    if kinds <= {PureDPEvent, LaplaceEvent}:
        return "optimal"
    return "rdp"


def tradeoff_curve(events: DpEvent | Sequence[DpEvent] | PrivacyAccountant, alpha: ArrayLike, *,
                   method: str | None = None, deltas: ArrayLike | None = None) -> float | np.ndarray:
    """A lower bound on the trade-off function of the accountant's events (exact only where a closed form applies).

    The returned beta(alpha) is a **guarantee** under the events' neighbouring relation: no test between the
    composed outputs on two neighbours has type I error alpha and type II error below it (an attacker's
    true-positive rate at false-positive rate alpha is at most ``1 - beta``).

    * Only Gaussian events: the exact curve G_mu, mu from :func:`gdp_mu` (theorem ``fdp-thm-gdp-composition``).
    * One Laplace event (one run): its exact curve (:func:`tradeoff_laplace`).
    * One pure-DP event (one run): f_{epsilon, 0} (:func:`tradeoff_epsilon_delta`).
    * Anything else: the envelope of f_{epsilon(delta_j), delta_j} over ``deltas`` (theorem
      ``fdp-thm-profile-envelope``), epsilon(delta_j) from ``PrivacyAccountant.epsilon(delta_j, method)``. Every
      accountant method returns an upper bound on epsilon (for "pld" the FFT round-off is an estimate added to
      delta, not a proved bound), so the envelope lies below the exact curve, by the grid's tangent-line gap
      (on Gaussian profiles with the default grid at most 0.018 for mu <= 1 and 0.031 up to mu = 6, see
      :data:`DEFAULT_PROFILE_DELTAS`) and the accountant's slack. It is symmetric, so it bounds both orders of
      a pair of neighbours (for add/remove: the removal and the addition of a record).

    Parameters
    ----------
    events : DpEvent, sequence of DpEvent, or PrivacyAccountant
        What :class:`~dpcourse.accounting.PrivacyAccountant` takes.
    alpha : float or array_like
        Type I errors (false-positive rates) in [0, 1].
    method : str or None
        An accountant method (a key of ``ACCOUNTING_METHODS``) for the envelope, checked always; None chooses
        "pld" when a Poisson-sampled event is present, "optimal" for pure-DP events and "rdp" otherwise.
    deltas : sequence of float or None
        The deltas of the envelope, in (0, 1) (default :data:`DEFAULT_PROFILE_DELTAS`, 31 values).

    Returns
    -------
    float or numpy.ndarray
        beta at each alpha, same shape as ``alpha``.

    Examples
    --------
    >>> round(tradeoff_curve(GaussianEvent(sigma=1.0), 0.05), 6) == round(tradeoff_gaussian(0.05, 1.0), 6)
    True
    >>> acc = PrivacyAccountant().compose(PoissonSampledEvent(0.01, GaussianEvent(1.0)), 100)
    >>> b = tradeoff_curve(acc, 0.05, deltas=[1e-6, 1e-3])
    >>> round(b, 4), b <= tradeoff_curve(acc, 0.05, deltas=[1e-6, 1e-3, 1e-2])
    (0.9287, True)
    """
    acc, counts = _counts(events)
    a, scalar = _check_alpha(alpha)
    if method is not None:
        method = _check_method(method)
    ds = check_real_array(DEFAULT_PROFILE_DELTAS if deltas is None else deltas, "deltas", ndim=1)
    if np.any(ds <= 0) or np.any(ds >= 1):
        raise ValueError("deltas must lie in (0, 1)")
    if all(isinstance(e, GaussianEvent) for e, _ in counts):
        return tradeoff_gaussian(a[0] if scalar else a, gdp_mu(acc))
    if len(counts) == 1 and counts[0][1] == 1 and isinstance(counts[0][0], (LaplaceEvent, PureDPEvent)):
        e = counts[0][0]
        f = tradeoff_laplace if isinstance(e, LaplaceEvent) else tradeoff_randomized_response
        return f(a[0] if scalar else a, e.epsilon)
    method = _method_for(counts) if method is None else method
    eps = [acc.epsilon(float(d), method) for d in ds]
    return tradeoff_from_profile(a[0] if scalar else a, eps, ds)
