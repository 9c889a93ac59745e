"""Private selection: report noisy max, the exponential mechanism and permute-and-flip.

All three pick one index out of ``m`` candidates whose *scores* (or *utilities*) depend on the data.
Each candidate's score may move by at most ``sensitivity`` between neighbouring datasets; the
mechanisms release only the chosen index, never the scores.

The noise scale of every mechanism here is ``k * sensitivity / epsilon`` with ``k = 2`` in general and
``k = 1`` when ``monotone=True``: the scores are *monotone* if, for every pair of neighbours, all scores
move in the same direction (all up by at most ``sensitivity``, or all down). The theorems are those of
the chapter "Private selection" (labels ``thm-sel-rnm-privacy``, ``thm-sel-em-privacy``,
``thm-sel-em-accuracy``, ``thm-sel-pf-privacy``).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import cast

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate

from . import portable
from ._sampling import _round_up
from .discrete import discrete_laplace
from .exact_uniform import (below, cdf_bounds, cdf_bounds53, choose_slot, exp_neg_bounds, exp_neg_bounds53,
                             uniform_prefix)

from ._validation import (
    as_rng,
    check_size,
    check_choice,
    check_epsilon,
    check_flag,
    check_positive_int,
    check_real,
    check_real_array,
    check_sensitivity,
)

__all__ = [
    "exponential_probabilities",
    "exponential_mechanism",
    "exponential_accuracy_gap",
    "report_noisy_max",
    "noisy_max_probabilities",
    "permute_and_flip",
    "permute_and_flip_probabilities",
    "selection_support",
]

_NOISES = ("laplace", "exponential", "gumbel")
# A candidate whose scaled score is this far below the best one has probability below 1e-300 under
# every noise of this module; exact-probability routines treat it as 0.
_NEGLIGIBLE_GAP = 800.0
_CHUNK = 1 << 22  # noise values drawn at once by the samplers (bounds memory for large ``size``)
# Secure samplers: a scaled gap x_r = epsilon (max u - u_r) / (k sensitivity) larger than GAP_CAP is
# replaced by GAP_CAP, i.e. the utility by max(u_r, max u - GAP_CAP k sensitivity / epsilon): a map that
# keeps the sensitivity and monotonicity (theorem ``sel-thm-secure-selection``), so privacy is unchanged and
# only candidates of probability below e^-GAP_CAP move.
GAP_CAP = 1 << 16
# Report noisy max (secure): utilities rounded to the lattice spacing 2**(floor(log2 sensitivity) - 5).
LATTICE_SHIFT = 5
#: Largest noise scale, in lattice steps, of the secure Laplace noisy max (the exact sampler takes 60-bit scales):
#: with D = ceil(sensitivity / spacing) in [32, 64] steps, epsilon below about 2 * 64 / 2**60 (1.1e-16) is refused.
NOISY_MAX_SCALE_STEPS = (1 << 60) - 1


def _exact_gaps(utilities, sensitivity, epsilon, monotone, name):
    """Validate; the exact scaled gaps ``min(GAP_CAP, eps (max u - u_r) / (k sensitivity))`` as (num, den).

    Every float is a dyadic rational, so the gaps are exact: integer numerators over one denominator.
    """
    u = check_real_array(utilities, name, ndim=1)
    delta = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    k = 1 if check_flag(monotone, "monotone") else 2
    coef = Fraction(eps) / (k * Fraction(delta))
    ratios = [v.as_integer_ratio() for v in u.tolist()]
    shift = max(d.bit_length() for _, d in ratios) - 1  # every denominator is a power of 2, at most 2**shift
    ints = [n << (shift - d.bit_length() + 1) for n, d in ratios]  # u_r * 2**shift, exactly
    top = max(ints)
    den = coef.denominator << shift
    cap = GAP_CAP * den
    return [(min(cap, coef.numerator * (top - v)), den) for v in ints]


def _weight_bounds(gaps):
    return functools.lru_cache(maxsize=None)(lambda prec: exp_neg_bounds(gaps, prec))


def _scaled(utilities, sensitivity, epsilon, monotone, name):
    """Validate, then return ``(u - max u) * epsilon / (k * sensitivity)``: entries in [-inf, 0].

    Subtracting the maximum first keeps every entry finite-or--inf whatever the magnitude of the
    utilities, and ``0 * inf`` (an infinite coefficient) is never formed.
    """
    u = check_real_array(utilities, name, ndim=1)
    delta = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    k = 1.0 if check_flag(monotone, "monotone") else 2.0
    coef = eps / (k * delta)
    with np.errstate(over="ignore", invalid="ignore"):
        diff = u - u.max()  # may be -inf if the spread overflows; never NaN
        return np.where(diff == 0.0, 0.0, diff * coef)


def _float_weights(utilities, sensitivity, epsilon, monotone, name):
    """The weights ``exp(scaled)`` of the float samplers (``secure=False``), by :func:`dpcourse.portable.exp`.

    numpy's ``exp`` differs in the last bit between CPUs (AVX-512, AVX2, NEON), and these weights are compared
    with the draws: with them a seeded float release would draw another sample on another computer, once in a
    while. The portable ``exp`` gives the same bits everywhere (within 3 ulp of e^x).
    """
    return portable.exp(_scaled(utilities, sensitivity, epsilon, monotone, name))


def _check_size(size):
    return check_size(size, allow_none=True)  # None or an int in [1, MAX_SIZE]


def exponential_probabilities(utilities: ArrayLike, sensitivity: float, epsilon: float, *,
                              monotone: bool = False) -> np.ndarray:
    """Output distribution of the exponential mechanism.

    Candidate ``r`` is chosen with probability proportional to ``exp(epsilon * u[r] / (2 * sensitivity))``
    (``exp(epsilon * u[r] / sensitivity)`` when ``monotone=True``). Computed in a numerically stable way
    (the largest utility is subtracted before exponentiating), so utilities of any magnitude work.

    Privacy: if every utility moves by at most ``sensitivity`` between neighbouring datasets (under the
    relation the caller has in mind), sampling from this distribution is epsilon-DP under that relation
    (theorem ``thm-sel-em-privacy``). With ``monotone=True`` the guarantee is epsilon-DP only when, in
    addition, for every pair of neighbours all utilities move in the same direction; otherwise it is
    2 * epsilon-DP.

    Parameters
    ----------
    utilities : array_like of shape (m,)
        Finite real utilities ``u(x, r)`` of the m >= 1 candidates on the dataset x.
    sensitivity : float
        Bound ``Delta u > 0`` on ``|u(x, r) - u(x', r)|`` over neighbours x, x' and candidates r.
    epsilon : float
        Privacy parameter, > 0.
    monotone : bool, optional
        Use the weights ``exp(epsilon * u / sensitivity)``, valid for monotone utilities only.

    Returns
    -------
    numpy.ndarray of shape (m,)
        The probabilities, >= 0, summing to 1 (candidates far below the best may get exactly 0).

    Examples
    --------
    >>> exponential_probabilities([0.0, 0.0], 1.0, 1.0)
    array([0.5, 0.5])
    >>> p = exponential_probabilities([1e6, -1e6, 1e6 - 2], sensitivity=1, epsilon=1)
    >>> [round(float(v), 6) for v in p]  # weights 1, 0, e^-1
    [0.731059, 0.0, 0.268941]
    """
    w = np.exp(_scaled(utilities, sensitivity, epsilon, monotone, "utilities"))
    return w / w.sum()


def exponential_mechanism(utilities: ArrayLike, sensitivity: float, epsilon: float, *, monotone: bool = False,
                          rng: np.random.Generator | int | None = None, size: int | None = None,
                          secure: bool = True) -> int | np.ndarray:
    """Sample the index chosen by the exponential mechanism.

    Draws from :func:`exponential_probabilities` by inverse-CDF sampling (many draws are one vectorized
    call). epsilon-DP when every utility moves by at most ``sensitivity`` between neighbours
    (theorem ``thm-sel-em-privacy``); with ``monotone=True`` only for monotone utilities.

    With ``secure=True`` (the default) the sampling is exact (theorem ``sel-thm-secure-selection``): the
    uniform ``rng.random()`` of the float code is located *exactly* among the CDF's real boundaries,
    whose weights ``exp(-x_r)`` are bounded with correctly rounded arithmetic and refined with fresh
    random bits when 53 bits do not decide (:mod:`dpcourse.exact_uniform`). The law is the textbook
    one for every candidate whose scaled gap is at most ``GAP_CAP = 2**16``; farther candidates keep a
    probability of at least ``e^-65536 / m`` instead of less (never 0), at the same epsilon.
    ``secure=False`` is the float sampler (``Generator.choice`` with float probabilities, where a far
    candidate's weight underflows to 0), kept for the lessons; its weights come from
    :func:`dpcourse.portable.exp`, so a seeded float release is the same on every CPU.

    Parameters
    ----------
    utilities, sensitivity, epsilon, monotone
        As in :func:`exponential_probabilities`.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness: None for fresh OS entropy, an int seed, or a Generator.
    size : None or int, optional
        None for one index; an int >= 1 for that many independent draws (each one is an epsilon-DP
        release: releasing all of them costs ``size * epsilon`` by composition).
    secure : bool, optional
        Exact sampling (default) or the float sampler.

    Returns
    -------
    int or numpy.ndarray of int
        The chosen index in ``range(m)``, or an array of ``size`` indices.

    Examples
    --------
    >>> exponential_mechanism([3.0, 2.0], sensitivity=2, epsilon=0.2, rng=0) in (0, 1)
    True
    >>> exponential_mechanism([3.0, 2.0], 2, 0.2, rng=0, size=5).shape
    (5,)
    """
    if not check_flag(secure, "secure"):
        w = _float_weights(utilities, sensitivity, epsilon, monotone, "utilities")
        p = w / portable.pairwise_sum(w)   # the law of exponential_probabilities, the same bits on every CPU
        size = _check_size(size)
        gen = as_rng(rng)
        out = gen.choice(p.size, size=size, p=p)
        return int(out) if size is None else out.astype(np.int64)
    gaps = _exact_gaps(utilities, sensitivity, epsilon, monotone, "utilities")
    size = _check_size(size)
    gen = as_rng(rng)
    k = uniform_prefix(gen, () if size is None else (size,))  # the uniform Generator.choice draws
    out = choose_slot(k, cdf_bounds(_weight_bounds(gaps)), gen, bounds53=cdf_bounds53(gaps))
    return int(out) if size is None else out


def exponential_accuracy_gap(n_candidates: int, sensitivity: float, epsilon: float, t: ArrayLike, *,
                             monotone: bool = False) -> float | np.ndarray:
    """The utility loss ``(2 * sensitivity / epsilon) * (ln n_candidates + t)`` of the accuracy theorem.

    The exponential mechanism outputs a candidate whose utility is at most ``OPT - gap`` with
    probability at most ``e^(-t)`` (theorem ``thm-sel-em-accuracy``); with ``monotone=True`` the factor 2
    is dropped, matching the weights of :func:`exponential_probabilities` with ``monotone=True``.

    Parameters
    ----------
    n_candidates : int
        Number of candidates ``|R| >= 1``.
    sensitivity, epsilon : float
        As in :func:`exponential_probabilities` (> 0).
    t : float or array_like of floats
        Tail parameter(s), finite, >= 0.
    monotone : bool, optional
        See above.

    Returns
    -------
    float or numpy.ndarray
        The gap(s), in units of the utility; a float for a scalar ``t``.

    Examples
    --------
    >>> round(exponential_accuracy_gap(4, 1.0, 2.0, 0.0), 6)  # ln 4
    1.386294
    >>> exponential_accuracy_gap(1, 1.0, 1.0, [0.0, 1.0]).tolist()
    [0.0, 2.0]
    """
    n = check_positive_int(n_candidates, "n_candidates")
    delta = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    k = 1.0 if check_flag(monotone, "monotone") else 2.0
    if np.ndim(t) == 0:
        return float(k * delta / eps * (math.log(n) + check_real(t, "t", low=0.0)))
    tt = check_real_array(t, "t")
    if (tt < 0).any():
        raise ValueError(f"t must lie in [0.0, +inf), got {tt[np.argmax(tt < 0)]} at index {int(np.argmax(tt < 0))}")
    return k * delta / eps * (math.log(n) + tt)  # math.log: n may exceed int64


def _draw_noise(gen, noise, shape):
    if noise == "laplace":
        return gen.laplace(0.0, 1.0, size=shape)
    if noise == "exponential":
        return gen.standard_exponential(size=shape)
    return gen.gumbel(0.0, 1.0, size=shape)


def report_noisy_max(scores: ArrayLike, sensitivity: float, epsilon: float, *, monotone: bool = False,
                     noise: str = "laplace", rng: np.random.Generator | int | None = None, size: int | None = None,
                     secure: bool = True) -> int | np.ndarray:
    """Add noise of scale b to every score and release only the index of the largest noisy score.

    Guarantee: if every score moves by at most ``sensitivity`` between neighbouring datasets, under the relation
    the caller has in mind (add/remove or replace-one, record or user level), the index is epsilon-DP under that
    relation with ``b = 2 sensitivity / epsilon`` (theorem ``thm-sel-rnm-privacy``). ``monotone=True`` takes
    ``b = sensitivity / epsilon``: epsilon-DP only when, for every pair of neighbours, all scores move in the same
    direction (e.g. possibly overlapping counts under add/remove); 2 epsilon-DP on other scores. Exponential noise
    gives :func:`permute_and_flip`, Gumbel noise :func:`exponential_mechanism`, both at the same ``b``.

    As implemented (``secure=True``, theorem ``sel-thm-secure-selection``) the guarantee holds exactly. Laplace:
    the scores are rounded to the lattice ``g = 2**(floor(log2 sensitivity) - 5)`` (sensitivity ``D g``,
    ``D = ceil(sensitivity / g)``) and get exact discrete Laplace noise of ``k D / epsilon`` steps (``k = 2``, 1 if
    monotone; ties to the smallest index; law: :func:`noisy_max_probabilities`); the other two noises are sampled
    exactly by those two functions. ``secure=False`` draws float noise, for the lessons only.

    Parameters
    ----------
    scores : array_like of shape (m,)
        Finite real scores of the m >= 1 candidates.
    sensitivity : float
        Bound > 0 on how much any one score moves between neighbours.
    epsilon : float
        Privacy parameter, > 0; the secure Laplace noise refuses by name one below ``k D / NOISY_MAX_SCALE_STEPS``.
    monotone : bool, optional
        Noise scale ``sensitivity / epsilon`` (monotone scores only, see above).
    noise : {"laplace", "exponential", "gumbel"}, optional
        Standard Laplace, exponential or Gumbel noise, times b.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness: None for fresh OS entropy, an int seed, or a Generator.
    size : None or int, optional
        None for one index; an int >= 1 for that many independent runs (each one an epsilon-DP release).
    secure : bool, optional
        Exact sampling (default) or float noise.

    Returns
    -------
    int or numpy.ndarray of int
        The chosen index in ``range(m)``, or an array of ``size`` indices.

    Examples
    --------
    >>> report_noisy_max([1, 4, 3], sensitivity=1, epsilon=1.0, monotone=True, rng=0) in (0, 1, 2)
    True
    >>> report_noisy_max([1, 4, 3], 1, 1.0, rng=0, size=1000).shape
    (1000,)
    """
    if check_flag(secure, "secure"):
        noise = check_choice(noise, "noise", _NOISES)
        if noise != "laplace":   # checked here so that a bad value is named "scores", not the delegate's "utilities"
            scores = check_real_array(scores, "scores", ndim=1)
        if noise == "exponential":
            return permute_and_flip(scores, sensitivity, epsilon, monotone=monotone, rng=rng, size=size)
        if noise == "gumbel":
            return exponential_mechanism(scores, sensitivity, epsilon, monotone=monotone, rng=rng, size=size)
        return _secure_laplace_noisy_max(scores, sensitivity, epsilon, monotone, rng, size)
    logits = _scaled(scores, sensitivity, epsilon, monotone, "scores")
    noise = check_choice(noise, "noise", _NOISES)
    size = _check_size(size)
    gen = as_rng(rng)
    m = logits.size
    if size is None:
        return int(np.argmax(logits + _draw_noise(gen, noise, m)))
    out = np.empty(size, dtype=np.int64)
    rows = max(1, _CHUNK // m)
    for start in range(0, size, rows):  # chunks only bound memory; each chunk is one vectorized draw
        stop = min(size, start + rows)
        out[start:stop] = np.argmax(logits + _draw_noise(gen, noise, (stop - start, m)), axis=1)
    return out


def _lattice_scores(scores, sensitivity, epsilon, monotone):
    """Validate; lattice scores ``-min(cap, n_max - n_r)`` (int64, best = 0) and the noise scale in steps.

    ``n_r = floor(s_r / g + 1/2)`` on the lattice ``g = 2**(floor(log2 sensitivity) - LATTICE_SHIFT)``;
    the sensitivity of n is ``D = ceil(sensitivity / g)`` steps; the scale ``k D / epsilon`` is rounded up
    to a rational the exact sampler takes (more noise). The gap cap keeps the sensitivity D.
    """
    s = check_real_array(scores, "scores", ndim=1)
    delta = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    k = 1 if check_flag(monotone, "monotone") else 2
    frac_delta = Fraction(delta)
    exponent = math.floor(math.log2(delta)) - LATTICE_SHIFT
    while Fraction(2) ** (exponent + LATTICE_SHIFT) > frac_delta:  # log2 rounding guard
        exponent -= 1
    g = Fraction(2) ** exponent
    d_steps = math.ceil(frac_delta / g)
    if Fraction(k * d_steps) / Fraction(eps) > NOISY_MAX_SCALE_STEPS:   # a cap on public parameters only
        least = math.nextafter(k * d_steps / NOISY_MAX_SCALE_STEPS, math.inf)
        raise ValueError(f"epsilon must be at least {least!r} for the secure Laplace noisy max with sensitivity "
                         f"{sensitivity!r} (its noise scale, {k * d_steps} lattice steps / epsilon, is capped at "
                         f"NOISY_MAX_SCALE_STEPS = 2**60 - 1 steps), got epsilon={epsilon!r}")
    scale = _round_up(Fraction(k * d_steps) / Fraction(eps))
    cap = min(math.ceil(GAP_CAP * scale), 1 << 60)  # any public cap keeps the sensitivity; int64-safe
    n = [math.floor(Fraction(float(v)) / g + Fraction(1, 2)) for v in s.tolist()]
    top = max(n)
    return np.array([-min(cap, top - v) for v in n], dtype=np.int64), scale


def _secure_laplace_noisy_max(scores, sensitivity, epsilon, monotone, rng, size):
    lattice, scale = _lattice_scores(scores, sensitivity, epsilon, monotone)
    size = _check_size(size)
    gen = as_rng(rng)
    m = lattice.size
    n = 1 if size is None else size
    out = np.empty(n, dtype=np.int64)
    rows = max(1, _CHUNK // m)
    for start in range(0, n, rows):  # chunks only bound memory; ties (possible: integer noise) go to the first
        k = min(n, start + rows) - start
        z = discrete_laplace(scale, size=(k, m), rng=gen)
        if int(z.min()) < -(1 << 62):  # lattice >= -2**60: the int64 sum could wrap (huge scales only)
            out[start:start + k] = np.argmax(lattice.astype(object) + z.astype(object), axis=1)
        else:
            out[start:start + k] = np.argmax(lattice + z, axis=1)
    return int(out[0]) if size is None else out


def _discrete_noisy_max_law(scores, sensitivity, epsilon, monotone):
    """Law of the secure report noisy max: sum over the winner's integer score y of
    ``f(y - a_i) prod_{j<i} F(y - 1 - a_j) prod_{j>i} F(y - a_j)`` (f, F: discrete Laplace pmf and cdf)."""
    a, scale = _lattice_scores(scores, sensitivity, epsilon, monotone)
    t = float(scale)
    q = math.exp(-1.0 / t)
    half = int(math.ceil(60.0 * t)) + 1  # P(|Z| > half) < e^-60
    if (2 * half + 1) * a.size > 50_000_000:
        raise ValueError(f"the exact law of the secure report noisy max is computed by summation over "
                         f"{2 * half + 1} noise values per candidate; use epsilon larger or fewer than "
                         f"{50_000_000 // (2 * half + 1)} candidates")
    y = np.arange(-half, half + 1, dtype=np.float64)

    def powers(k):  # q ** k for whole-number floats k >= 0: one power per exponent that can occur (same floats)
        top = int(k.max())
        return q ** k if top >= k.size else (q ** np.arange(top + 1, dtype=np.float64))[k.astype(np.int64)]

    def cdf(z):  # P(Z <= z) for integer z
        low = z < 0
        p = powers(np.where(low, np.abs(z), np.maximum(z, 0) + 1.0)) / (1.0 + q)
        return np.where(low, p, 1.0 - p)

    pmf = lambda z: (1.0 - q) / (1.0 + q) * powers(np.abs(z))  # noqa: E731
    af = a.astype(np.float64)[:, None]
    strict = cdf(y[None, :] - 1.0 - af)   # used by the candidates before the winner
    weak = cdf(y[None, :] - af)           # used by the candidates after it
    m = a.size
    before = np.vstack([np.ones((1, y.size)), np.cumprod(strict[:-1], axis=0)]) if m > 1 else np.ones((1, y.size))
    after = (np.vstack([np.cumprod(weak[:0:-1], axis=0)[::-1], np.ones((1, y.size))]) if m > 1
             else np.ones((1, y.size)))
    probs = (pmf(y[None, :] - af) * before * after).sum(axis=1)
    return probs / probs.sum()


def _noise_pdf_cdf(noise):
    if noise == "laplace":
        return (lambda z: 0.5 * np.exp(-np.abs(z)),
                lambda z: np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(z, 0.0))))
    if noise == "exponential":
        return (lambda z: np.where(z >= 0, np.exp(-np.maximum(z, 0.0)), 0.0),
                lambda z: np.where(z >= 0, -np.expm1(-np.maximum(z, 0.0)), 0.0))
    return (lambda z: np.exp(-z - np.exp(-z)), lambda z: np.exp(-np.exp(-z)))


def noisy_max_probabilities(scores: ArrayLike, sensitivity: float, epsilon: float, *, monotone: bool = False,
                            noise: str = "laplace", secure: bool = True) -> np.ndarray:
    """Exact output distribution of :func:`report_noisy_max`, by numerical integration.

    With ``Y_j = s_j + b N_j`` (N_j i.i.d. standard noise with density f and CDF F), candidate i wins with
    probability ``integral f(y - l_i) prod_{j != i} F(y - l_j) dy`` where ``l = (s - max s) / b``. Each
    integral is computed by adaptive quadrature (``scipy.integrate.quad``, relative tolerance 1e-12,
    with the kinks of the Laplace density as break points). Meant for checking and teaching with a few
    dozen candidates at most; the cost grows like m^2.

    Candidates whose score lies more than ``800 b`` below the best get probability 0 (their true
    probability is below 1e-300). For ``noise="gumbel"`` the result equals
    :func:`exponential_probabilities` (the Gumbel-max fact) and for ``noise="exponential"`` it equals
    :func:`permute_and_flip_probabilities`: both serve as independent checks of those closed forms.

    With ``secure=True`` (the default, the law of the default sampler) and ``noise="laplace"``, the law of
    the secure :func:`report_noisy_max` (lattice scores, discrete Laplace noise, ties to the smallest
    index), by exact summation over the winner's score truncated at 60 noise scales (mass below e^-60);
    the Gumbel and exponential noises have the same law secure or not (up to the gap cap, see
    :func:`exponential_mechanism`). ``secure=False``: the continuous-noise law by integration.

    Parameters
    ----------
    scores, sensitivity, epsilon, monotone, noise, secure
        As in :func:`report_noisy_max`.

    Returns
    -------
    numpy.ndarray of shape (m,)
        The probabilities (normalised; before normalisation they sum to 1 within 1e-9, else
        ``RuntimeError``).

    Examples
    --------
    Two tied candidates win equally often:

    >>> noisy_max_probabilities([2.0, 2.0], 1.0, 1.0, secure=False).tolist()
    [0.5, 0.5]
    """
    if check_flag(secure, "secure") and check_choice(noise, "noise", _NOISES) == "laplace":
        return _discrete_noisy_max_law(scores, sensitivity, epsilon, monotone)
    logits = _scaled(scores, sensitivity, epsilon, monotone, "scores")
    noise = check_choice(noise, "noise", _NOISES)
    m = logits.size
    active = np.flatnonzero(logits > -_NEGLIGIBLE_GAP)
    la = logits[active]
    out = np.zeros(m)
    if active.size == 1:
        out[active] = 1.0
        return out
    pdf, cdf = _noise_pdf_cdf(noise)
    if noise == "laplace":
        lo, hi = float(la.min()) - 45.0, 45.0
        points = np.unique(la)
    elif noise == "exponential":
        lo, hi, points = 0.0, 50.0, None
    else:
        lo, hi, points = -8.0, 50.0, None
    # One vector-valued adaptive quadrature for all candidates at once (was one scalar quad per candidate):
    # the integrand of candidate i is f(y - l_i) times the product of F(y - l_j) over j != i, that
    # product taken as prefix product times suffix product (no division, so no 0/0 where F = 0).
    def integrand(y):
        c = cdf(y - la)
        before = np.concatenate(([1.0], np.cumprod(c[:-1])))
        after = np.concatenate((np.cumprod(c[:0:-1])[::-1], [1.0]))
        return pdf(y - la) * before * after

    vals, _ = integrate.quad_vec(integrand, lo, hi, points=points, epsabs=0.0, epsrel=1e-12, limit=1000)
    out[active] = vals
    total = out.sum()
    if not abs(total - 1.0) < 1e-9:
        raise RuntimeError(f"numerical integration failed: probabilities sum to {total!r}")
    return out / total


def _first_bounds(bounds: tuple[list[int], list[int]]) -> tuple[list[int], list[int]]:
    """``([lo[0]], [hi[0]])`` of ``(lo, hi)``: one coin's bounds, as :func:`dpcourse.exact_uniform.below` takes them."""
    return [bounds[0][0]], [bounds[1][0]]


def permute_and_flip(utilities: ArrayLike, sensitivity: float, epsilon: float, *, monotone: bool = False,
                     rng: np.random.Generator | int | None = None, size: int | None = None,
                     secure: bool = True) -> int | np.ndarray:
    """The permute-and-flip mechanism of McKenna and Sheldon.

    Visit the candidates in a uniformly random order; at candidate r flip a coin with heads probability
    ``exp(epsilon * (u[r] - max u) / (2 * sensitivity))`` (``/ sensitivity`` when ``monotone=True``)
    and release r at the first heads. A best candidate has heads probability 1, so one pass always
    ends. The ``size`` runs are simulated at once without sorting: a uniformly random order is the
    order of i.i.d. uniform arrival times, so each run draws an arrival time and a coin per candidate
    and releases the earliest arrival whose coin shows heads.

    Privacy (theorem ``thm-sel-pf-privacy``): epsilon-DP whenever every utility moves by at most
    ``sensitivity`` between neighbours (``monotone=True``: only for monotone utilities). Its expected
    utility is never below the exponential mechanism's at the same epsilon. In distribution it equals
    :func:`report_noisy_max` with ``noise="exponential"``.

    With ``secure=True`` (the default) every coin is exact (theorem ``sel-thm-secure-selection``): the
    float code's uniform is compared exactly with the real ``exp(-x_r)`` (:mod:`dpcourse.exact_uniform`),
    and arrival times that tie in their 53 bits are ordered by fresh uniform bits, so the order is exactly
    uniform. Same law as the float version, up to the gap cap of :func:`exponential_mechanism`.

    Parameters
    ----------
    utilities, sensitivity, epsilon, monotone, rng, size, secure
        As in :func:`exponential_mechanism`.

    Returns
    -------
    int or numpy.ndarray of int
        The chosen index, or an array of ``size`` indices.

    Examples
    --------
    >>> permute_and_flip([0.0, 50.0, 0.0], sensitivity=1, epsilon=1, rng=3)  # coins e^-25 for the others
    1
    """
    if not check_flag(secure, "secure"):
        p = _float_weights(utilities, sensitivity, epsilon, monotone, "utilities")  # coins: same bits on every CPU
        lo53 = hi53 = None
    else:
        gaps = _exact_gaps(utilities, sensitivity, epsilon, monotone, "utilities")
        lo53, hi53 = exp_neg_bounds53(gaps)
        p = lo53  # only its size is used below
    size = _check_size(size)
    gen = as_rng(rng)
    m = p.size
    n = 1 if size is None else size
    out = np.empty(n, dtype=np.int64)
    rows = max(1, _CHUNK // m)
    for start in range(0, n, rows):  # chunks only bound memory
        k = min(n, start + rows) - start
        arrival = gen.random((k, m))  # ranking i.i.d. uniforms gives a uniform random order
        if lo53 is None:
            heads = gen.random((k, m)) < p  # a best candidate (p = 1) always shows heads
        else:
            heads = below(uniform_prefix(gen, (k, m)), lo53, cast(np.ndarray, hi53),   # set with lo53
                          lambda j: (lambda prec: _first_bounds(exp_neg_bounds([gaps[j]], prec))), gen)
        arrival[~heads] = 2.0  # later than every real arrival time in [0, 1)
        first = np.argmin(arrival, axis=1)
        if lo53 is not None:  # 53-bit arrival times that tie: the next bits decide, uniformly among them
            tied = (arrival == arrival[np.arange(k), first][:, None]).sum(axis=1) > 1
            for i in np.flatnonzero(tied):
                cands = np.flatnonzero(arrival[i] == arrival[i, first[i]])
                first[i] = cands[gen.integers(0, cands.size)]
        out[start:start + k] = first
    return int(out[0]) if size is None else out


def permute_and_flip_probabilities(utilities: ArrayLike, sensitivity: float, epsilon: float, *,
                                   monotone: bool = False) -> np.ndarray:
    """Exact output distribution of :func:`permute_and_flip`.

    With heads probabilities ``p_r`` and ``q_r = 1 - p_r``, candidate r sits at a uniform position
    ``k in {0, ..., m-1}`` and the candidates before it form a uniform k-subset S of the others, so
    ``P[r] = p_r * (1/m) * sum_k E_k`` where ``E_k`` is the mean of ``prod_{j in S} q_j`` over the
    k-subsets S of the other candidates. The means are built by a recursion whose steps are convex
    combinations of numbers in [0, 1] (no cancellation, no overflow); cost O(m^3) with O(m) vectorized
    steps, fine for a few hundred candidates.

    Parameters
    ----------
    utilities, sensitivity, epsilon, monotone
        As in :func:`exponential_probabilities`.

    Returns
    -------
    numpy.ndarray of shape (m,)
        The probabilities, summing to 1.

    Examples
    --------
    Two candidates with heads probabilities 1 and p: the worse one wins only if it comes first and
    flips heads, with probability p / 2.

    >>> u = [0.0, -2.0]  # p = e^{-1} at epsilon = 1, sensitivity = 1
    >>> round(float(permute_and_flip_probabilities(u, 1, 1)[1]), 6), round(float(np.exp(-1) / 2), 6)
    (0.18394, 0.18394)
    """
    scaled = _scaled(utilities, sensitivity, epsilon, monotone, "utilities")
    p = np.exp(scaled)
    q = -np.expm1(scaled)  # 1 - p without cancellation for p near 1
    m = p.size
    # E[r, k]: mean over k-subsets S of the candidates added so far, excluding r, of prod_{j in S} q_j.
    E = np.zeros((m, m))
    E[:, 0] = 1.0
    n = np.zeros(m)  # how many candidates each row has absorbed
    k = np.arange(1, m)
    for j in range(m):
        rows = np.arange(m) != j
        nn = n[rows][:, None] + 1.0
        old = E[rows]
        new = old.copy()
        new[:, 1:] = np.clip(nn - k, 0.0, None) / nn * old[:, 1:] + k / nn * q[j] * old[:, :-1]
        E[rows] = new
        n[rows] += 1.0
    probs = p * E.mean(axis=1)
    return probs / probs.sum()


_FLOAT_LAPLACE_REACH = 36.05  # |numpy's float Laplace noise| <= -ln(2**-52) < 36.05 noise scales


def selection_support(utilities: ArrayLike, sensitivity: float, epsilon: float, *, mechanism: str,
                      monotone: bool = False, secure: bool = True) -> np.ndarray:
    """Which candidates can the sampler output at all? Exact, no sampling (the reachability check).

    ``secure=True``: every candidate, for all three mechanisms (theorem ``sel-thm-secure-selection``: each
    weight or coin is ``exp(-x)`` with ``x <= GAP_CAP``, and discrete Laplace noise gives every integer
    positive probability). ``secure=False``: the float samplers, as numpy runs them on the 53-bit
    uniforms ``k / 2**53``: the exponential mechanism outputs r iff some k lies in
    ``[cdf[r-1], cdf[r]) * 2**53`` of its float CDF; permute-and-flip iff the float coin ``exp(-x_r)`` is
    not 0; report noisy max (Laplace) is marked impossible when its score plus the largest float noise
    (36.05 scales) stays below the best minus it (impossible for sure; possible otherwise).

    Parameters
    ----------
    utilities, sensitivity, epsilon, monotone, secure
        As in :func:`exponential_mechanism`.
    mechanism : {"exponential", "permute_and_flip", "noisy_max"}

    Returns
    -------
    numpy.ndarray of bool, shape (m,)

    Examples
    --------
    >>> selection_support([0.0, -1500.0], 1.0, 1.0, mechanism="permute_and_flip", secure=False).tolist()
    [True, False]
    >>> selection_support([0.0, -1500.0], 1.0, 1.0, mechanism="permute_and_flip").tolist()
    [True, True]
    """
    which = check_choice(mechanism, "mechanism", ("exponential", "permute_and_flip", "noisy_max"))
    scaled = _scaled(utilities, sensitivity, epsilon, monotone, "utilities")
    if check_flag(secure, "secure"):
        return np.ones(scaled.size, dtype=bool)
    if which == "exponential":
        p = portable.exp(scaled)   # the float sampler's weights (_float_weights)
        cdf = np.cumsum(p / portable.pairwise_sum(p))
        cdf /= cdf[-1]  # as Generator.choice computes it
        edges = np.ceil(np.concatenate(([0.0], cdf)) * 2.0**53)
        return edges[1:] > edges[:-1]
    if which == "permute_and_flip":
        return portable.exp(scaled) > 0.0
    # scaled = (s - max s) / b; each float noise is at most 36.05 b in size
    return scaled + 2 * _FLOAT_LAPLACE_REACH >= 0.0
