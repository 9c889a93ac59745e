"""The Poisson-subsampled Gaussian mechanism and the accounting of DP-SGD (chapter "Private learning").

A Gaussian mechanism run on a Poisson sample, under the add/remove-one relation: its Renyi DP at integer orders
(:func:`rdp_subsampled_gaussian`), the privacy profile of one run (:func:`subsampled_gaussian_delta`), the
composition of its privacy-loss distributions behind the accountant's method ``"pld"`` (``_pld_epsilon``,
``_pld_delta``), the generic amplification theorem (:func:`subsampling_amplification`) and the DP-SGD fronts
:func:`dpsgd_epsilon` and :func:`dpsgd_noise_multiplier`.

The events and the accountant live in :mod:`dpcourse.accounting`; this module imports them, and
:mod:`dpcourse.accounting` imports this module's numerics (at its end) for its methods ``"rdp"`` and ``"pld"`` and
re-exports its public names, so ``dpcourse.accounting.dpsgd_epsilon`` keeps working.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._validation import check_choice, check_delta, check_epsilon, check_positive_int, check_probability, check_real
from .accounting import PLD_MAX_RUNS, GaussianEvent, NotApplicableError, PoissonSampledEvent, PrivacyAccountant

__all__ = [
    "AmplifiedGuarantee",
    "MIN_NOISE_MULTIPLIER",
    "rdp_subsampled_gaussian",
    "subsampled_gaussian_delta",
    "subsampling_amplification",
    "dpsgd_epsilon",
    "dpsgd_noise_multiplier",
]

#: Integer Renyi orders at which a Poisson-sampled Gaussian is accounted: every order up to 256, then a
#: geometric grid up to 10**5 (the exact formula of theorem learn-thm-rdp-subsampled holds at integers).
_INTEGER_ORDERS = np.unique(np.concatenate([np.arange(2, 257),
                                            np.round(np.geomspace(256, 1e5, 60)).astype(int)])).astype(float)
#: The smallest noise multiplier :func:`dpsgd_noise_multiplier` calibrates to (0.125 = 2**-3, a halving step from
#: 1): a setting whose answer is below it is refused by name (the PLD grid grows like 1/sigma^2; the cost of the
#: queries below it is measured by benchmarks/bench_dpsgd.py).
MIN_NOISE_MULTIPLIER = 0.125


# Neighbouring relation: add/remove one record. With sampling rate q and a Gaussian of noise sigma on a
# query of l2 sensitivity 1 (mu = 1/sigma), the pair of output distributions that dominates every pair of
# neighbours is (Zhu, Dong & Wang 2022, Proposition 30; Mironov, Talwar & Zhang 2019, section 3)
#   remove direction:  P = (1 - q) N(0, 1) + q N(mu, 1)   against   Q = N(0, 1),
#   add direction:     Q = N(0, 1)                        against   P = (1 - q) N(0, 1) + q N(mu, 1),
# in units of sigma. A guarantee for add/remove must hold in both directions: the methods take the max.


def _check_q_sigma(sampling_rate: float, noise_multiplier: float) -> tuple[float, float]:
    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.0, low_open=True)
    if not math.isfinite(1.0 / sigma):
        raise ValueError(f"noise_multiplier={noise_multiplier!r} is too small (1/noise_multiplier overflows)")
    return q, sigma


def rdp_subsampled_gaussian(alpha: ArrayLike, sampling_rate: float, noise_multiplier: float) -> float | np.ndarray:
    """Renyi DP of the Poisson-subsampled Gaussian mechanism at integer orders (exact binomial sum).

    A Gaussian mechanism with noise ``noise_multiplier`` times the l2 sensitivity, run on a Poisson sample with
    rate ``q = sampling_rate``, is (alpha, r(alpha))-RDP under the **add/remove-one** relation, for every integer
    alpha >= 2, with

    ``r(alpha) = 1/(alpha - 1) * log sum_{j=0}^{alpha} C(alpha, j) (1-q)^(alpha-j) q^j exp((j^2 - j) / (2 sigma^2))``

    (theorem ``learn-thm-rdp-subsampled``; Mironov, Talwar & Zhang 2019, Theorem 11): the exact Renyi divergence
    of the remove direction, at least that of the add direction. Evaluated in log space, so it stays finite at
    orders up to 1e7.

    Parameters
    ----------
    alpha : int or array of int
        Renyi orders, integers in [2, 1e7] (a float such as 3.0 is accepted; 2.5 is refused with ValueError).
    sampling_rate : float
        Poisson sampling rate q in (0, 1].
    noise_multiplier : float
        sigma > 0, the noise standard deviation divided by the l2 sensitivity.

    Returns
    -------
    float or ndarray
        r(alpha) >= 0, one value per order (a float for a scalar order).

    Examples
    --------
    >>> round(rdp_subsampled_gaussian(2, 1.0, 1.0), 12)  # q = 1: the Gaussian's alpha / (2 sigma^2)
    1.0
    >>> round(float(rdp_subsampled_gaussian(2, 0.5, 1.0)), 6)  # log(1 + q^2 (e - 1))
    0.357374
    """
    q, sigma = _check_q_sigma(sampling_rate, noise_multiplier)
    raw = np.asarray(alpha)
    if raw.dtype == bool or raw.dtype.kind not in "iuf":
        raise TypeError(f"alpha must be an integer order >= 2 or an array of them, got {type(alpha).__name__}")
    a = raw.astype(float)
    if not np.all(np.isfinite(a)) or np.any(a < 2) or np.any(a != np.round(a)) or np.any(a > 1e7):
        raise ValueError(f"alpha must hold integer Renyi orders in [2, 1e7] (the binomial sum is exact at "
                         f"integers), got {alpha!r}")
    flat = a.ravel()
    out = np.empty_like(flat)
    log_q, log_1mq = math.log(q), math.log1p(-q) if q < 1 else -math.inf
    for idx, order in enumerate(flat):  # one vectorized logsumexp per order (the orders are few)
        n = int(order)
        j = np.arange(n + 1, dtype=float)
        log_binom = special.gammaln(n + 1) - special.gammaln(j + 1) - special.gammaln(n - j + 1)
        with np.errstate(invalid="ignore"):
            log_terms = (log_binom + np.where(j > 0, j * log_q, 0.0) + np.where(n - j > 0, (n - j) * log_1mq, 0.0)
                         + (j * j - j) / (2.0 * sigma * sigma))
        # logsumexp as scipy computes it (the largest term's exp(0) = 1 left out of the sum, log1p of the
        # others), without its per-call overhead: two thirds of a calibration's time
        top = int(np.argmax(log_terms))
        scaled = np.exp(log_terms - log_terms[top])
        scaled[top] = 0.0
        out[idx] = (log_terms[top] + math.log1p(float(scaled.sum()))) / (n - 1)
    out = np.maximum(out, 0.0).reshape(a.shape)
    return float(out) if out.ndim == 0 else out


def _loss_to_z(ell, q, mu, direction):
    """The point z (in units of sigma) where the privacy loss equals ``ell``; the loss is increasing in z
    for 'remove' and decreasing for 'add'. At or beyond the end of the loss's range (below its minimum for
    'remove', above its maximum for 'add') it returns -inf."""
    ell = np.asarray(ell, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if direction == "remove":  # ell = log(1 - q + q exp(mu z - mu^2/2))
            inner = np.where(ell > (math.log1p(-q) if q < 1 else -math.inf),
                             np.log(np.maximum(np.expm1(ell) + q, 0.0)) - math.log(q), -np.inf)
            return np.where(np.isneginf(inner), -np.inf, (inner + mu * mu / 2.0) / mu)
        inner = np.where(-ell > (math.log1p(-q) if q < 1 else -math.inf),
                         np.log(np.maximum(np.expm1(-ell) + q, 0.0)) - math.log(q), -np.inf)
        return np.where(np.isneginf(inner), -np.inf, (inner + mu * mu / 2.0) / mu)


def _interval_mass(za, zb, shift):
    """P(za <= Z + shift <= zb) for Z ~ N(0, 1), accurate in both tails (za <= zb, may be infinite)."""
    a, b = za - shift, zb - shift
    upper = special.ndtr(-a) - special.ndtr(-b)  # accurate when the interval is in the upper tail
    lower = special.ndtr(b) - special.ndtr(a)  # accurate in the lower tail
    return np.maximum(np.where(a > 0, upper, lower), 0.0)


def subsampled_gaussian_delta(epsilon: ArrayLike, sampling_rate: float, noise_multiplier: float, *,
                              direction: str = "remove") -> float | np.ndarray:
    """Exact delta(epsilon) of one run of the Poisson-subsampled Gaussian mechanism, in one direction.

    The hockey-stick divergence ``sup_S P(S) - e^epsilon Q(S)`` of the pair of output distributions that dominates
    every pair of neighbours under the **add/remove-one** relation (theorem ``learn-thm-pld``): ``"remove"``
    compares the mixture ``(1-q) N(0,1) + q N(1/sigma,1)`` with ``N(0,1)``, ``"add"`` the reverse. One run is
    (epsilon, delta)-DP under add/remove with the larger of the two directions' values.

    Parameters
    ----------
    epsilon : float or array
        Any finite real epsilon (negative values are allowed: the whole curve describes the mechanism).
    sampling_rate : float
        q in (0, 1].
    noise_multiplier : float
        sigma > 0, the noise standard deviation divided by the l2 sensitivity.
    direction : {"remove", "add"}
        Which of the two dominating pairs.

    Returns
    -------
    float or ndarray
        delta(epsilon) in [0, 1], one value per epsilon (a float for a scalar epsilon).

    Examples
    --------
    >>> from dpcourse.gaussian import gaussian_delta
    >>> abs(subsampled_gaussian_delta(1.0, 1.0, 2.0) - gaussian_delta(1.0, 0.5)) < 1e-15
    True
    """
    q, sigma = _check_q_sigma(sampling_rate, noise_multiplier)
    direction = check_choice(direction, "direction", ("remove", "add"))
    eps = np.asarray(epsilon)
    if eps.dtype == bool or eps.dtype.kind not in "iuf" or not np.all(np.isfinite(eps)):
        raise ValueError(f"epsilon must be a finite real number or array of them, got {epsilon!r}")
    eps = eps.astype(float)
    mu = 1.0 / sigma
    z = _loss_to_z(eps, q, mu, direction)
    t = np.exp(eps)
    if direction == "remove":  # S = {z > z(eps)}
        p = (1 - q) * _interval_mass(z, np.inf, 0.0) + q * _interval_mass(z, np.inf, mu)
        qq = _interval_mass(z, np.inf, 0.0)
    else:  # S = {z < z(eps)}: P = N(0,1), Q = mixture
        p = _interval_mass(-np.inf, z, 0.0)
        qq = (1 - q) * _interval_mass(-np.inf, z, 0.0) + q * _interval_mass(-np.inf, z, mu)
    out = np.maximum(p - t * qq, 0.0)
    return float(out) if out.ndim == 0 else out


def _loss_range(q, mu, direction, tail):
    """A loss interval [l_bot, l_top] holding all but ``tail`` of the mass of either normal component."""
    zt = -special.ndtri(tail)  # a normal beyond zt has probability < tail
    if direction == "remove":
        l_top = math.log1p(q * math.expm1(min(mu * (zt + mu) - mu * mu / 2, 700.0)))  # log(1 - q + q e^x)
        l_bot = math.log1p(-q) if q < 1 else (-mu * zt - mu * mu / 2)
    else:
        l_top = -math.log1p(-q) if q < 1 else (mu * zt + mu * mu / 2)
        l_bot = -math.log1p(q * math.expm1(min(mu * zt - mu * mu / 2, 700.0)))
    return l_bot, l_top


def _step_pld(q, mu, h, direction, tail):
    """Connect-the-dots PLD of one run on the grid ``ell_i = h * (i0 + i)``: (i0, masses, mass at +inf).

    Each piece of loss between two grid points is split between them so that both its P-mass and its
    Q-mass (the integral of e^-loss dP) are kept: a mean-preserving spread of e^-loss (theorem learn-thm-pld).
    Loss above the top point (P-mass <= ``tail``) goes to +inf; loss below the bottom point is rounded up
    to it. Both changes can only increase delta(epsilon) for every epsilon."""
    l_bot, l_top = _loss_range(q, mu, direction, tail)
    i0, i1 = math.floor(l_bot / h), math.ceil(l_top / h)
    grid = h * np.arange(i0, i1 + 1, dtype=float)
    z = _loss_to_z(grid, q, mu, direction)
    if direction == "remove":
        za, zb = z[:-1], z[1:]
    else:
        za, zb = z[1:], z[:-1]

    def masses(za, zb):
        if direction == "remove":
            pm = (1 - q) * _interval_mass(za, zb, 0.0) + q * _interval_mass(za, zb, mu)
            qm = _interval_mass(za, zb, 0.0)
        else:
            pm = _interval_mass(za, zb, 0.0)
            qm = (1 - q) * _interval_mass(za, zb, 0.0) + q * _interval_mass(za, zb, mu)
        return pm, qm

    pm, qm = masses(za, zb)  # P- and Q-mass of the loss pieces [ell_i, ell_{i+1}]
    # split: upper share b = (e^-ell_i Pm - Qm) / (e^-ell_i - e^-ell_{i+1}) = (Pm - e^ell_i Qm) / (1 - e^-h)
    with np.errstate(over="ignore", invalid="ignore"):
        up = (pm - np.exp(grid[:-1]) * qm) / (-math.expm1(-h))
    up = np.clip(np.nan_to_num(up, nan=0.0, posinf=0.0), 0.0, pm)
    w = np.zeros(grid.size)
    w[1:] += up
    w[:-1] += pm - up
    # below the grid: rounded up to the bottom point; above: to +inf
    if direction == "remove":
        below = (1 - q) * _interval_mass(-np.inf, z[0], 0.0) + q * _interval_mass(-np.inf, z[0], mu)
        above = (1 - q) * _interval_mass(z[-1], np.inf, 0.0) + q * _interval_mass(z[-1], np.inf, mu)
    else:
        below = _interval_mass(z[0], np.inf, 0.0)
        above = _interval_mass(-np.inf, z[-1], 0.0)
    w[0] += float(below)
    return i0, w, float(above)


def _log_mgf(w, grid, lam):
    """log sum_i w_i exp(lam ell_i) for each lam (of either sign): the exact log moment-generating function of
    the discretised loss, over the points with positive mass (16 orders at a time, in log-space)."""
    keep = w > 0
    logw, ell = np.log(w[keep]), grid[keep]
    out = np.empty(lam.size)
    buf = np.empty((16, ell.size))
    for s in range(0, lam.size, 16):   # in place, one buffer: the same operations, in the same order
        x = buf[:min(16, lam.size - s)]
        np.multiply(lam[s:s + 16, None], ell[None, :], out=x)
        x += logw[None, :]
        top = x.max(axis=1)
        x -= top[:, None]
        np.exp(x, out=x)
        out[s:s + 16] = top + np.log(x.sum(axis=1))
    return out


def _fft_power(folded, k, n_fft):
    """The k-fold circular self-convolution of ``folded`` (non-negative, sum 1) by FFT, and the round-off
    allowance per entry: 4 times the larger of the noise floor seen in the result (its most negative entry)
    and a first-order bound of the error: a per-frequency error of (log2 n + 2) 2^-52 (the sum of the masses
    is 1) raised to the k-th power with the transform X, k |X_j|^(k-1) times it, averaged by the inverse
    transform. The floor alone missed the error by up to 47 times (q = 0.03, sigma = 1, k = 300, where no
    entry came out negative); this is an estimate, checked against a long-double recomputation."""
    spec = np.fft.rfft(folded)
    comp_t = np.fft.irfft(spec ** k, n_fft)
    mod = np.abs(spec) ** (k - 1)
    mean_mod = (mod[0] + mod[-1] + 2.0 * mod[1:-1].sum()) / n_fft   # (1/n) sum over the full spectrum
    propagated = k * (math.log2(n_fft) + 2.0) * 2.0 ** -52 * float(mean_mod)
    floor = max(-float(comp_t.min()), 2.0 ** -52 * float(comp_t.max()), propagated)
    return comp_t, 4.0 * floor


_MAX_FFT = 2 ** 22
#: Tilting orders for the Chernoff bounds and the exponential tilt of :func:`_pld_epsilon` (both signs).
_TILTS = np.concatenate([-np.geomspace(1e3, 1e-3, 41), np.geomspace(1e-3, 1e3, 121)])


class _ComposedPld(NamedTuple):
    """The k-fold composed PLD of one direction, as :func:`_pld_composition` leaves it for a readout."""

    losses: np.ndarray     # the grid of composed losses (spacing h), from the window's start
    comp: np.ndarray       # the composed P-mass at each loss
    entry_err: np.ndarray  # the round-off allowance of each entry (charged to delta)
    p_inf_k: float         # the composed P-mass at +inf (charged to delta)
    tol: float             # the Chernoff bound on the mass above the window (charged to delta)
    h: float               # the grid spacing


def _pld_composition(q: float, sigma: float, k: int, delta: float, direction: str, h: float | None = None,
                     tail: float | None = None, eps_target: float | None = None) -> _ComposedPld:
    """The k-fold composition of one direction's PLD, tilted to be read at ``delta`` (or at ``eps_target``).

    The k-fold composition of the one-run PLD ``w`` (:func:`_step_pld`) is computed by a circular FFT of the
    *exponentially tilted* masses ``w_i e^(lam ell_i) / M(lam)`` (M the moment-generating function), then
    untilted: the composition of the tilted masses is the tilt of the composition, so the composed mass at
    ell is ``e^(k log M(lam) - lam ell)`` times the tilted one. The tilt ``lam`` minimises the Chernoff
    estimate ``(k log M(lam) - log delta) / lam`` of epsilon, which centres the tilted composition where delta
    is decided (with ``eps_target``, the tilt minimises ``k log M(lam) - lam eps_target``, the Chernoff estimate of
    the mass above ``eps_target``); the FFT's absolute round-off (a small fraction of the largest tilted mass, growing
    with k: see
    (iii)) is then a tiny *relative* error there. Without the tilt that round-off is of the order of 1e-16 per
    entry on every one of up to 4 million entries, and its margin, charged over the entries above epsilon,
    exceeded delta at delta = 1e-9 (epsilon = 365 instead of 19.5 at q = 0.001, sigma = 0.5, k = 10^5).

    Guarantees. (i) Mass of the composition above the window top b is at most ``tol`` by a Chernoff bound
    and is charged to delta, as is the mass at +inf. (ii) Mass outside the window wraps around the circle:
    every wrapped entry is non-negative, so it can only increase the computed delta. (iii) Each entry's
    round-off is taken to be at most the allowance of :func:`_fft_power` (4 times the larger of the noise floor
    of the tilted result and a first-order propagation bound; an estimate, not proved, checked against a
    long-double recomputation by the tests), untilted like the entry, and the sum of these bounds over the
    entries above epsilon is charged to delta. (iv) Composed entries where the untilting factor exceeds
    e^700 are dropped: delta is never read below them.

    Grid: spacing ``h = min(one run's loss range / 5000, 0.03 / sqrt(k), 1e-3)``: the connect-the-dots
    error grows with k h^2 (measured: at q = 0.001, k = 10^5 a spacing of 1e-3 gives epsilon 2% above
    the converged value, 1e-4 agrees with dp_accounting's 1e-4 grid to 0.02%). ``tail`` (default
    ``1e-7 delta / (10 k)``) is the P-mass of one run moved to +inf; its k-fold total is charged to delta."""
    mu = 1.0 / sigma
    tol = 1e-7 * delta
    if tail is None:  # one run's P-mass moved to +inf (charged to delta; the tests pass a larger one to see it)
        tail = tol / (10 * k)
    if h is None:
        l_bot, l_top = _loss_range(q, mu, direction, tail)
        h = float(np.clip(min((l_top - l_bot) / 5000.0, 0.03 / math.sqrt(k)), 1e-7, 1e-3))
    lam = _TILTS
    pos = lam > 0
    for _ in range(6):
        i0, w, p_inf = _step_pld(q, mu, h, direction, tail=tail)
        grid = h * np.arange(i0, i0 + w.size)
        logm = _log_mgf(w, grid, lam)
        # Chernoff: the mass of the k-fold sum above b_u is at most exp(k log M(lam) - lam b_u) <= tol
        b_u = float(np.min((k * logm[pos] - math.log(tol)) / lam[pos]))
        # the tilt: where the Chernoff estimate of epsilon at delta is smallest, or that of delta at eps_target
        if eps_target is None:
            score = (k * logm - math.log(delta)) / np.where(pos, lam, 1.0)
        else:
            score = k * logm - lam * eps_target
        i_t = int(np.argmin(np.where(pos, score, np.inf)))
        lt = float(lam[i_t])
        kc = k * float(logm[i_t])
        # window of the tilted composition: mass below a_t at most 1e-30, above b_t at most 1e-12 (Chernoff on
        # the tilted law, whose log-MGF at theta is k log M(lt + theta) - k log M(lt)); wrapped mass is >= 0
        th = lam - lt
        up, dn = th > 0, th < 0
        b_t = float(np.min((k * logm[up] - kc - math.log(1e-12)) / th[up])) if up.any() else b_u
        a_t = float(np.max((k * logm[dn] - kc - math.log(1e-30)) / th[dn]))
        a = max(a_t, k * float(grid[0]))
        b = min(max(b_u, b_t), k * float(grid[-1]))
        n_needed = int(math.ceil(max(b - a, 0.0) / h)) + 2
        if n_needed <= _MAX_FFT:
            break
        h = h * 2.0 * n_needed / _MAX_FFT
    n_fft = 1 << max(int(math.ceil(math.log2(n_needed))), 4)
    if n_fft > _MAX_FFT * 2:
        raise ValueError(f"the PLD grid would need {n_fft} points; use method='rdp' for these parameters")
    with np.errstate(divide="ignore"):
        logw = np.log(w)
    c = float(special.logsumexp(logw + lt * grid))
    kc = k * c
    # the one-run masses folded onto the circle of n_fft points (exact for a circular convolution)
    folded = np.bincount(np.arange(w.size) % n_fft, weights=np.exp(logw + lt * grid - c), minlength=n_fft)
    comp_t, err = _fft_power(folded, k, n_fft)  # err: round-off allowance per tilted entry
    comp_t = np.clip(comp_t, 0.0, None)
    # true index of the composed sum: k*i0 + j; the window starts at j_a
    j_a = int(math.floor(a / h)) - k * i0
    comp_t = np.roll(comp_t, -(j_a % n_fft))
    losses = h * (k * i0 + j_a + np.arange(n_fft, dtype=float))
    log_untilt = kc - lt * losses
    j0 = int(np.argmax(log_untilt <= 700.0)) if log_untilt[-1] <= 700.0 else n_fft
    factor = np.exp(log_untilt[j0:])
    comp = np.minimum(comp_t[j0:] * factor, 1.0)  # a composed mass is at most 1
    entry_err = np.minimum(err * factor, 1.0)
    losses = losses[j0:]
    p_inf_k = -math.expm1(k * math.log1p(-p_inf)) if p_inf < 1 else 1.0
    return _ComposedPld(losses, comp, entry_err, p_inf_k, tol, h)


def _pld_epsilon(q: float, sigma: float, k: int, delta: float, direction: str, h: float | None = None,
                 tail: float | None = None) -> float:
    """Smallest epsilon with delta_k(epsilon) <= delta for k runs, one direction, as an upper bound
    (the composition of :func:`_pld_composition`, read at ``delta``)."""
    losses, comp, entry_err, p_inf_k, tol, h = _pld_composition(q, sigma, k, delta, direction, h, tail)
    budget = delta - p_inf_k - tol
    if budget <= 0 or comp.size == 0:
        return math.inf
    # delta(eps) = sum_{ell > eps} w (1 - e^(eps - ell)). At the grid point ell_j it is S1_{j+1} - T_j with
    # S1_j = sum_{i>=j} w_i and T_j = sum_{i>j} w_i e^(-(i-j) h), the stable recursion T_j = e^-h (w_{j+1} + T_{j+1}).
    s1 = np.cumsum(comp[::-1])[::-1]
    margin = np.cumsum(entry_err[::-1])[::-1]  # margin[j] = round-off bound of the entries >= j
    decay = math.exp(-h)
    from scipy import signal  # here, not at the top: scipy.signal loads scipy.stats, about 0.9 s of `import dpcourse`

    t_rev = signal.lfilter([decay], [1.0, -decay], comp[::-1])  # t_rev[m] = sum_{i<=m} decay^(m-i+1) comp_rev[i]
    t = t_rev[::-1]  # t[j] = sum_{i>=j} w_i e^(-(i-j+1) h) = T_{j-1}
    delta_at = np.empty(comp.size)
    delta_at[:-1] = s1[1:] - t[1:] + margin[1:]
    delta_at[-1] = 0.0
    ok = np.nonzero(delta_at <= budget)[0]
    if ok.size == 0:
        return math.inf
    j = int(ok[0])
    if j == 0:
        return float(losses[0]) if losses[0] > 0 else 0.0
    # on [ell_{j-1}, ell_j] the curve is sum_{i>=j} w_i (1 - e^(eps - ell_i)) = S1_j - e^(eps - ell_{j-1}) T_{j-1}
    s1j, tj = float(s1[j]), float(t[j])
    budget -= float(margin[j])
    eps = float(losses[j - 1]) + math.log((s1j - budget) / tj) if s1j > budget and tj > 0 else float(losses[j])
    return max(min(eps, float(losses[j])), float(losses[j - 1]), 0.0)




def _pld_delta(q: float, sigma: float, k: int, epsilon: float, direction: str, delta_hint: float,
               h: float | None = None, tail: float | None = None) -> float:
    """An upper bound on delta_k(epsilon) for k runs, one direction: the composition of :func:`_pld_composition`
    tilted at ``epsilon`` and read there, ``sum_{ell > epsilon} w (1 - e^(epsilon - ell))``, plus the round-off
    allowance of those entries, the mass at +inf and the mass above the window. ``delta_hint`` (an upper bound
    on the answer, e.g. the RDP bound) sets the truncations: the mass they move is at most ``1e-7 delta_hint``.
    1.0 (no guarantee) if ``epsilon`` lies below the composed window."""
    losses, comp, entry_err, p_inf_k, tol, h = _pld_composition(q, sigma, k, delta_hint, direction, h, tail,
                                                                eps_target=epsilon)
    if comp.size == 0 or epsilon < float(losses[0]):
        return 1.0
    above = losses > epsilon
    with np.errstate(over="ignore"):
        mass = math.fsum(comp[above] * -np.expm1(epsilon - losses[above]))
    return min(1.0, mass + math.fsum(entry_err[above]) + p_inf_k + tol)


class AmplifiedGuarantee(NamedTuple):
    """The (epsilon, delta) guarantee that :func:`subsampling_amplification` returns (unpacks as a pair)."""

    epsilon: float
    delta: float


def subsampling_amplification(epsilon: float, delta: float, sampling_rate: float) -> AmplifiedGuarantee:
    """The guarantee of an (epsilon, delta)-DP mechanism run on a Poisson sample (privacy amplification).

    If a mechanism is (epsilon, delta)-DP under the **add/remove-one** relation, running it on a Poisson sample
    with rate q is ``(log(1 + q (e^epsilon - 1)), q delta)``-DP under add/remove one (theorem
    ``learn-thm-amplification``; Balle, Barthe & Gaboardi 2018, Theorem 8). For a Gaussian mechanism the exact
    accounting of :func:`dpsgd_epsilon` is much tighter.

    Parameters
    ----------
    epsilon : float
        The mechanism's epsilon, > 0.
    delta : float
        The mechanism's delta, in [0, 1).
    sampling_rate : float
        q in (0, 1].

    Returns
    -------
    AmplifiedGuarantee
        ``(epsilon, delta)`` of the subsampled mechanism, a NamedTuple (it unpacks as a pair).

    Examples
    --------
    >>> eps, d = subsampling_amplification(1.0, 1e-6, 0.01)
    >>> round(eps, 6), d
    (0.017037, 1e-08)
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    q = check_probability(sampling_rate, "sampling_rate", low_open=True)
    return AmplifiedGuarantee(*_amplify(eps, d, q))


def _amplify(eps: float, d: float, q: float) -> tuple[float, float]:
    """``(log(1 + q (e^eps - 1)), q d)``, without overflow for a large eps."""
    if eps <= 1.0:
        return math.log1p(q * math.expm1(eps)), q * d
    return eps + math.log(q + (1.0 - q) * math.exp(-eps)), q * d  # the same, without overflow for large epsilon


def dpsgd_epsilon(sampling_rate: float, *, steps: int, noise_multiplier: float, delta: float,
                  method: str = "pld") -> float:
    """Epsilon of DP-SGD: ``steps`` Poisson-sampled Gaussian steps, at ``delta``, as an upper bound.

    Each step adds N(0, (noise_multiplier * C)^2) noise to a sum of per-example gradients clipped to l2 norm C,
    computed on a Poisson sample with rate ``sampling_rate``; the training is (epsilon, delta)-DP under the
    **add/remove-one** relation (theorem ``learn-thm-dpsgd``), with epsilon computed by ``method``:

    * ``"pld"`` (default): privacy-loss distributions (theorem ``learn-thm-pld``), the larger of the remove and
      add directions, composed on a grid of spacing ``min(one step's loss range / 5000, 0.03 / sqrt(steps),
      1e-3)``. An upper bound on the exact epsilon (the FFT's round-off is estimated and charged to delta); no
      bound on its distance to the exact epsilon is proved (its agreement with dp_accounting is measured by
      ``benchmarks/bench_dpsgd.py``). Below delta = 1e-9 the smaller of it and the RDP bound is returned; with
      q = 1 the answer is the exact Gaussian composition.
    * ``"rdp"``: the exact RDP binomial sum at integer orders (theorem ``learn-thm-rdp-subsampled``) with the
      improved conversion; also an upper bound, in practice larger than the PLD's.

    The same as ``PrivacyAccountant().compose(PoissonSampledEvent(q, GaussianEvent(noise_multiplier)), steps)
    .epsilon(delta, method)``. Every argument after ``sampling_rate`` is keyword-only, as in
    :func:`dpsgd_noise_multiplier`.

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1] (q = 1: full-batch gradient descent).
    noise_multiplier : float
        sigma > 0, the noise standard deviation over the clipping norm.
    steps : int
        Number of steps k >= 1; at most ``PLD_MAX_RUNS`` = 10**6 for ``"pld"`` when q < 1 (refused with
        :class:`~dpcourse.accounting.NotApplicableError` above it; ``"rdp"`` takes any number).
    delta : float
        Target delta in (0, 1).
    method : {"pld", "rdp"}
        The accounting method.

    Returns
    -------
    float
        epsilon >= 0.

    Examples
    --------
    >>> round(dpsgd_epsilon(1.0, steps=100, noise_multiplier=10.0, delta=1e-5), 3)  # q = 1: exact Gaussian
    4.377
    >>> run = dict(steps=1000, noise_multiplier=1.0, delta=1e-5)
    >>> dpsgd_epsilon(0.01, **run, method="rdp") >= dpsgd_epsilon(0.01, **run)
    True
    """
    q, sigma = _check_q_sigma(sampling_rate, noise_multiplier)
    k = check_positive_int(steps, "steps")
    d = check_delta(delta, allow_zero=False)
    method = check_choice(method, "method", ("pld", "rdp"))
    if method == "pld" and q < 1.0 and k > PLD_MAX_RUNS:   # the same cap as the accountant's, named by argument
        raise NotApplicableError(f"steps must be at most PLD_MAX_RUNS = {PLD_MAX_RUNS} for method 'pld' with "
                                 f"sampling_rate < 1, got steps={k}: use method 'rdp'")
    event = PoissonSampledEvent(q, GaussianEvent(sigma))
    return PrivacyAccountant().compose(event, k).epsilon(d, method)


def dpsgd_noise_multiplier(sampling_rate: float, *, steps: int, epsilon: float, delta: float, method: str = "pld",
                           rtol: float = 1e-3) -> float:
    """The smallest noise multiplier for which DP-SGD is (epsilon, delta)-DP, to relative precision ``rtol``.

    The returned sigma satisfies ``dpsgd_epsilon(sampling_rate, noise_multiplier=sigma, steps=steps, delta=delta, method=method) <= epsilon``:
    DP-SGD with it is (epsilon, delta)-DP under the **add/remove-one** relation (theorem ``learn-thm-dpsgd``),
    and some sigma' >= sigma / (1 + rtol) has a computed epsilon above ``epsilon``. Found by bisection on
    log sigma (the computed epsilon decreases in sigma). A target that needs a sigma below
    ``MIN_NOISE_MULTIPLIER`` = 0.125 or above 1e6 is refused with ValueError. Every argument after
    ``sampling_rate`` is keyword-only, as in :func:`dpsgd_epsilon`.

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1].
    steps : int
        Number of steps k >= 1 (at most ``PLD_MAX_RUNS`` for ``"pld"`` when q < 1).
    epsilon : float
        Target epsilon > 0.
    delta : float
        Target delta in (0, 1).
    method : {"pld", "rdp"}
        The accounting method of :func:`dpsgd_epsilon`.
    rtol : float
        Relative precision of sigma, in [1e-9, 0.5].

    Returns
    -------
    float
        sigma, rounded up to the precision.

    Examples
    --------
    >>> s = dpsgd_noise_multiplier(0.01, steps=1000, epsilon=1.0, delta=1e-5)
    >>> run = dict(steps=1000, delta=1e-5)
    >>> dpsgd_epsilon(0.01, noise_multiplier=s, **run) <= 1.0 < dpsgd_epsilon(0.01, noise_multiplier=s * 0.995, **run)
    True
    """
    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0)
    k = check_positive_int(steps, "steps")
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    method = check_choice(method, "method", ("pld", "rdp"))
    tol = check_real(rtol, "rtol", low=1e-9, high=0.5)

    return _calibrate(q, k, eps, d, method, tol)


#: The largest noise multiplier :func:`dpsgd_noise_multiplier` calibrates to: a target that needs more is refused.
_MAX_NOISE_MULTIPLIER = 1e6


@functools.lru_cache(maxsize=256)
def _calibrate(q, k, eps, d, method, tol):
    def eps_of(sigma):
        return dpsgd_epsilon(q, noise_multiplier=sigma, steps=k, delta=d, method=method)

    # Refuse first, with one query at the largest noise multiplier calibrated to (the cheapest query: the PLD grid
    # shrinks as sigma grows): the doubling from 1 reached the refusal only after 20 queries (20 s at q = 0.5,
    # 10**6 steps; benchmarks/bench_fdp.py).
    if eps_of(_MAX_NOISE_MULTIPLIER) > eps:
        raise ValueError(f"no noise multiplier up to 1e6 reaches epsilon={eps!r} at delta={d!r} "
                         f"(sampling_rate={q!r}, steps={k}): ask for a larger epsilon or delta, or fewer steps")
    hi = 1.0
    lo_above = False                 # whether eps_of(hi / 2) > eps is known already
    while eps_of(hi) > eps:  # epsilon decreases in sigma: double until the budget is met
        hi *= 2.0
        lo_above = True
        if hi >= _MAX_NOISE_MULTIPLIER:  # eps_of(cap) <= eps is known, and eps_of(hi / 2) > eps was just seen
            hi = _MAX_NOISE_MULTIPLIER
            break
    lo = hi / 2.0
    # Halve until eps_of(lo) > eps, then bisect [lo, hi] on log sigma. eps_of(lo) is the dearest evaluation (the
    # PLD grid grows like 1/sigma^2) and is skipped when it is implied: known from doubling, or by the first
    # midpoint of the bisection (epsilon is non-increasing in sigma: eps_of(mid) > eps gives eps_of(lo) > eps).
    # The midpoints, and so the result, are those of halving first and bisecting after.
    while not lo_above and hi / lo > 1.0 + tol:
        mid = math.sqrt(lo * hi)
        if eps_of(mid) > eps:        # the first step of the bisection, done early
            lo = mid
            break
        if eps_of(lo) > eps:
            hi = mid
            break
        hi, lo = lo, lo / 2.0        # halve until it is not
        if lo < MIN_NOISE_MULTIPLIER:
            raise ValueError(f"epsilon={eps!r} at delta={d!r} (sampling_rate={q!r}, steps={k}) is reached with a "
                             f"noise multiplier below MIN_NOISE_MULTIPLIER = {MIN_NOISE_MULTIPLIER}; dpcourse does "
                             "not calibrate below it (the PLD grid grows like 1/sigma^2): use a larger sampling_rate "
                             "or more steps, or a smaller epsilon")
    while hi / lo > 1.0 + tol:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if eps_of(mid) <= eps else (mid, hi)
    return hi
