"""Lower bounds: how small the error of a differentially private release can be.

The chapter "Lower bounds: why the noise cannot be smaller" proves what is computed here:

* :func:`packing_failure_probability`, :func:`packing_error_bound`: the packing bound for ε-DP histograms
  and counts (theorem ``lb-thm-packing``, corollary ``lb-cor-packing``).
* :func:`bit_guessing_bound`, :func:`subset_sum_error_bound`: what (ε, δ)-DP allows an attacker to learn
  about uniformly random secret bits, and the error it forces on all subset sums (theorem
  ``lb-thm-dp-guessing``, corollary ``lb-cor-subset-sums``; the reconstruction itself is
  :func:`dpcourse.reconstruction_attack`).
* :func:`fingerprinting_code`, :func:`fingerprinting_sample_bound`, :func:`gaussian_means_sample_size`,
  :func:`tracing_trial`: the fingerprinting lower bound for releasing d attribute means (lemma
  ``lb-lem-fingerprinting``, theorem ``lb-thm-fingerprinting``, corollary ``lb-cor-fingerprinting-alpha``),
  the Gaussian mechanism's matching sample size, and the tracing attack (:func:`dpcourse.tracing_scores`) on
  a release of the means.

Every bound names its neighbouring relation; the attribute-mean results are under **replace one record**
(n public), as in Bun, Ullman & Vadhan (2014) and Dwork, Smith, Steinke, Ullman & Vadhan (2015).
"""

from __future__ import annotations

import decimal
import math
import sys
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ._validation import (
    as_rng,
    check_choice,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_real,
    check_relation,
)
from .gaussian import analytic_gaussian_sigma, gaussian_mechanism
from .attacks import tracing_scores

__all__ = [
    "packing_failure_probability",
    "packing_error_bound",
    "bit_guessing_bound",
    "subset_sum_error_bound",
    "fingerprinting_code",
    "fingerprinting_sample_bound",
    "gaussian_means_sample_size",
    "tracing_trial",
    "FingerprintingCode",
    "FINGERPRINT_MAX_CELLS",
    "FINGERPRINT_MAX_N0",
    "FINGERPRINT_MAX_N",
    "PACKING_MAX_DIGITS",
    "PACKING_MAX_K_BITS",
]

#: Largest n * d (people times attributes) :func:`fingerprinting_code` and :func:`tracing_trial` draw.
FINGERPRINT_MAX_CELLS = 50_000_000
#: Largest n0 :func:`fingerprinting_sample_bound` tries (fewer n0 only exclude fewer n: the answer stays true).
FINGERPRINT_MAX_N0 = 10**6
#: Largest n :func:`fingerprinting_sample_bound` reports (the upper end is capped there, never overstated).
FINGERPRINT_MAX_N = 2**62
#: Most decimal digits :func:`packing_error_bound` computes ln(K (1 - beta) / beta) to while it decides floor(. / eps)
#: (the precision doubles from 40). ln(R) / eps is below 1e330 for any float eps and int K of up to
#: PACKING_MAX_K_BITS bits, so 1280 digits decide the floor unless ln(R) / eps lies within 1e-900 of an integer (it
#: never equals one, see ``_largest_packing_m``); there the lower end is taken, which can only understate the bound.
PACKING_MAX_DIGITS = 1280
#: Largest K (in bits, about 39,000 decimal digits) :func:`packing_error_bound` accepts: converting K to a decimal
#: and taking its logarithm grows faster than linearly in its length (measured: 0.05 s at 2**17 bits, 0.7 s at
#: 7**10**5 = 280,735 bits, 53 s at 7**10**6 on a shared 2-core machine), so a larger K is refused by name.
PACKING_MAX_K_BITS = 2**17
#: Decimal digits of the upper bound on e^ε :func:`subset_sum_error_bound` forms its exact lower bound from.
SUBSET_SUM_DIGITS = 60
_FLOAT_MAX = sys.float_info.max


def _int_text(v: int) -> str:
    """An int for a message: its digits, or its size when it is too long to print (or to convert to text at all)."""
    return str(v) if v.bit_length() <= 64 else f"an int of {v.bit_length()} bits"


def _float_down(x: Fraction) -> float:
    """The largest float at most x (x >= 0; the largest finite float when x is beyond the float range)."""
    if x >= Fraction(_FLOAT_MAX):
        return _FLOAT_MAX
    f = float(x)                               # correctly rounded, so at most one float above x
    return math.nextafter(f, 0.0) if Fraction(f) > x else f


def _ln_bounds(num: int, den: int, digits: int) -> tuple[Fraction, Fraction]:
    """Rigorous bounds (lo, hi) on ln(num / den) for positive integers, as exact fractions.

    ``decimal.Decimal.ln`` is correctly rounded (the decimal module's documented guarantee, libmpdec's
    ``mpd_qln``): at ``digits`` significant digits each logarithm is within half a unit in its last place of
    the true value; a whole unit is allowed here. ``Decimal(int)`` is exact, whatever the size of the int.
    """
    ctx = decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    lo = hi = Fraction(0)
    for value, sign in ((num, 1), (den, -1)):
        if value == 1:                         # ln 1 = 0 exactly
            continue
        v = decimal.Decimal(value).ln(ctx)
        centre, unit = Fraction(v), Fraction(10) ** (v.adjusted() - digits + 1)
        lo += sign * centre - unit
        hi += sign * centre + unit
    return lo, hi


def _largest_packing_m(big_k: int, eps: float, beta: float) -> int:
    """The largest integer m >= 0 with K / (K + e^(eps m)) >= beta, decided exactly (corollary ``lb-cor-packing``).

    The condition is e^(eps m) <= R with the rational R = K (1 - beta) / beta (the floats eps and beta are exact
    rationals), that is m <= ln(R) / eps, so m = floor(ln(R) / eps) when R > 1 and m = 0 otherwise. ln(R) / eps is
    never an integer m >= 1: e^(eps m) = R would make e^a rational for the rational a = eps m > 0, and e^a is
    transcendental for every algebraic a != 0 (Lindemann-Weierstrass). So rigorous bounds on ln R
    (:func:`_ln_bounds`) at increasing precision eventually put ln(R) / eps strictly between two consecutive
    integers, and the floor is then exact.
    """
    b = Fraction(beta)
    r = Fraction(big_k) * (1 - b) / b
    if r <= 1:                                 # e^(eps m) > 1 >= R for every m >= 1
        return 0
    e = Fraction(eps)
    digits = 40
    while True:
        lo, hi = _ln_bounds(r.numerator, r.denominator, digits)
        m_lo, m_hi = math.floor(lo / e), math.floor(hi / e)
        if m_lo == m_hi:
            return max(m_lo, 0)
        if digits >= PACKING_MAX_DIGITS:       # never reached in practice; the lower end never overstates
            return max(m_lo, 0)
        digits = min(2 * digits, PACKING_MAX_DIGITS)


def _packing_count(k: int, relation: str) -> int:
    """The number K of datasets the packing argument compares with the centre one (k or k - 1)."""
    return k if relation == "add_remove" else k - 1


def _check_bins(k: int, relation: str) -> tuple[int, str]:
    rel = check_relation(relation)
    k = check_positive_int(k, "k", minimum=1 if rel == "add_remove" else 2)
    return k, rel


def packing_failure_probability(k: int, epsilon: float, m: int, *, relation: str) -> float:
    """Smallest worst-case probability that an ε-DP histogram misses some count by m/2 or more.

    Theorem ``lb-thm-packing``: for every ε-DP mechanism answering a histogram over ``k`` bins (a vector in R^k)
    under ``relation``, one of the datasets of the proof (at most m records more than a common public base) has
    ``Pr[max_j |M(D)_j - h(D)_j| >= m/2] >= K / (K + e^(ε m))``, with K = k under add/remove and K = k - 1 under
    replace-one. ``k = 1`` under add/remove is a single counting query.

    As computed: in floating point, not certified exactly (:func:`packing_error_bound` is): within 1e-12 relative
    of the bound when ε m and ln K are below 1e3 (the rounding of ε m and ln K, each relative 2**-53, moves the
    result by that times their size). A bound below the normal float range (2.2e-308) is returned as 0.0
    (rounded down: a smaller failure probability is still true).

    Parameters
    ----------
    k : int
        Number of bins, >= 1 (add/remove) or >= 2 (replace-one); an int of any size.
    epsilon : float
        ε > 0.
    m : int
        Number of records moved between the datasets of the proof, >= 1; an int of any size.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation the mechanism is ε-DP under.

    Returns
    -------
    float
        The lower bound on the failure probability, in [0, 1].

    Examples
    --------
    >>> round(packing_failure_probability(1, 1.0, 1, relation="add_remove"), 6)  # a count, error >= 1/2
    0.268941
    >>> packing_failure_probability(8, math.log(8), 1, relation="add_remove")
    0.5
    """
    k, rel = _check_bins(k, relation)
    eps = check_epsilon(epsilon)
    m = check_positive_int(m, "m")
    big_k = _packing_count(k, rel)
    # K / (K + e^(eps m)) = 1 / (1 + e^x), x = eps m - ln K: for x > 0 as e^-x / (1 + e^-x), which underflows
    # to 0 (never rounds the bound up) instead of overflowing. eps m is the exact product rounded once (an int m
    # of any size: beyond the float range the bound is below 1e-300 and 0.0 is returned); ln K of an int of any
    # size is finite.
    try:
        em = float(Fraction(eps) * m)
    except OverflowError:
        em = math.inf
    x = em - math.log(big_k)
    if x > 0:
        value = math.exp(-x) / (1.0 + math.exp(-x))
        # subnormal: the few bits left can round far up (eps m = 744 gave 1e-323 for 7.67e-324); round down to 0
        return float(value) if value >= sys.float_info.min else 0.0
    return float(1.0 / (1.0 + math.exp(x)))


def packing_error_bound(k: int, epsilon: float, *, relation: str, beta: float = 0.5) -> float:
    """The error t that some dataset suffers with probability >= ``beta`` under any ε-DP histogram.

    Corollary ``lb-cor-packing``: t = floor(ln(K (1 - β) / β) / ε) / 2 (K = k under add/remove, k - 1 under
    replace-one): for every mechanism that is ε-DP under ``relation`` there is a dataset D with
    ``Pr[max_j |M(D)_j - h(D)_j| >= t] >= β``. ``beta = 0.5`` bounds the *median* of the largest error from below.

    Exact: m = floor(ln(K (1 - β) / β) / ε), the largest whole m with K / (K + e^(ε m)) >= β, is decided in
    rational arithmetic for the floats ε and β as given, with rigorous bounds on the logarithm (no float slack:
    at k = 1000 and ε = ln(1000) / 3 (1 + 1e-13), m = 2, not 3). t = m / 2 is returned exactly up to m = 2**53,
    rounded down to a float above that, and capped at the largest float: never overstated.

    Parameters
    ----------
    k : int
        Number of bins, >= 1 (add/remove) or >= 2 (replace-one), of at most ``PACKING_MAX_K_BITS`` bits
        (ValueError above: use :func:`packing_failure_probability`).
    epsilon : float
        ε > 0.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation the mechanism is ε-DP under.
    beta : float, default 0.5
        The probability, in (0, 1).

    Returns
    -------
    float
        t >= 0; 0.0 when the floor is 0 (the argument then certifies nothing).

    Examples
    --------
    >>> packing_error_bound(1000, 1.0, relation="add_remove")
    3.0
    >>> packing_error_bound(1000, 1.0, relation="replace_one")
    3.0
    >>> packing_error_bound(1, 0.1, relation="add_remove", beta=1 / (1 + math.e))  # a count: m = 1/ε = 10
    5.0
    """
    k, rel = _check_bins(k, relation)
    eps = check_epsilon(epsilon)
    b = check_probability(beta, "beta", low_open=True, high_open=True)
    if k.bit_length() > PACKING_MAX_K_BITS:
        raise ValueError(f"k has {k.bit_length()} bits, above PACKING_MAX_K_BITS = 2**17 (about 39,000 digits): "
                         f"the exact logarithm would take too long; use packing_failure_probability for such k")
    m = _largest_packing_m(_packing_count(k, rel), eps, b)
    return _float_down(Fraction(m, 2))


def bit_guessing_bound(epsilon: float, delta: float) -> float:
    """Largest average probability of guessing a secret bit right from an (ε, δ)-DP release.

    Theorem ``lb-thm-dp-guessing``: if the n secret bits are independent and uniform and the release is
    (ε, δ)-DP under replace-one (one bit flips), every guess of bit i from the release is right with probability
    at most (e^ε + δ) / (1 + e^ε), averaged over the bits' draw and the mechanism.

    Parameters
    ----------
    epsilon : float
        ε > 0 (above 700 the bound is 1.0).
    delta : float
        δ in [0, 1).

    Returns
    -------
    float
        The bound, in [1/2, 1].

    Examples
    --------
    >>> round(bit_guessing_bound(1.0, 0.0), 6)
    0.731059
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    if eps > 700:
        return 1.0
    return float((math.exp(eps) + dlt) / (1.0 + math.exp(eps)))


def subset_sum_error_bound(n: int, epsilon: float, delta: float, beta: float) -> float:
    """Error an (ε, δ)-DP mechanism must make on some subset sum of n secret bits.

    Corollary ``lb-cor-subset-sums``: if a mechanism, (ε, δ)-DP under replace-one, answers *all* 2^n subset sums
    of uniformly random bits with every error at most E with probability at least 1 - β, then
    E >= (n / 4) ((1 - δ) / (1 + e^ε) - β).

    As computed: in exact rational arithmetic from a rigorous upper bound on e^ε (a correctly rounded 60-digit
    decimal exp plus one unit in its last place), so it never cancels and is never overstated: at most 1e-58
    relative of (1 - δ) / (1 + e^ε) below the exact value, then rounded down to a float.

    Parameters
    ----------
    n : int
        Number of secret bits, >= 1; an int of any size.
    epsilon : float
        ε > 0; above ln(n) + 746 the bound is below the smallest float and 0.0 is returned at once (e^ε is not
        formed: exactly, it took 4.6 s at ε = 1e7 and more than 30 s at 1e8).
    delta : float
        δ in [0, 1).
    beta : float
        The failure probability, in [0, 1].

    Returns
    -------
    float
        The lower bound on E; 0.0 when it is not proved positive, the largest float when it is beyond the float
        range (a smaller lower bound is still true).

    Examples
    --------
    >>> round(subset_sum_error_bound(1000, 1.0, 1e-6, 0.05), 3)
    54.735
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    b = check_probability(beta, "beta")
    if eps > n.bit_length() * math.log(2.0) + 746.0:
        return 0.0                              # (n / 4) e^-ε < e^(ln n - ε) < e^-746 < 2**-1074: rounds down to 0
    # (1 - δ) / (1 + e^ε), from below: 1 - bit_guessing_bound(ε, δ) cancels (at ε = 35 it is off by 5.6 %)
    ctx = decimal.Context(prec=SUBSET_SUM_DIGITS, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                          traps=[decimal.Overflow, decimal.InvalidOperation])
    try:
        e_eps = decimal.Decimal(eps).exp(ctx)   # correctly rounded: within half a unit in the last place
    except (decimal.Overflow, decimal.InvalidOperation):
        return 0.0                              # e^ε beyond 10**MAX_EMAX: the bound is below every float
    e_hi = Fraction(e_eps) + Fraction(10) ** (e_eps.adjusted() - SUBSET_SUM_DIGITS + 1)
    gap = (1 - Fraction(dlt)) / (1 + e_hi) - Fraction(b)
    if gap <= 0:
        return 0.0
    return _float_down(Fraction(n, 4) * gap)


class FingerprintingCode(NamedTuple):
    """What :func:`fingerprinting_code` returns: the attributes' biases and the people's 0/1 attributes."""

    biases: np.ndarray   # float64, shape (d,): Pr[x_ij = 1] = biases[j]
    data: np.ndarray     # int8, shape (n, d): one row per person


def fingerprinting_code(n: int, d: int, *, rng: np.random.Generator | int | None = None) -> FingerprintingCode:
    """Draw the random instance of the fingerprinting lemma: biases and n people with d 0/1 attributes.

    Each attribute j has a bias p_j uniform on [0, 1] (drawn once, independently); each of the ``n`` rows holds
    independent bits with Pr[x_ij = 1] = p_j. In ±1 notation (2x - 1) these are the product distributions with
    uniform means on [-1, 1] of lemma ``lb-lem-fingerprinting`` (the biased code of Tardos 2003, without its
    cut-off), the hard instance of the lower bound under replace-one neighbours. Draw fresh people with the same
    biases as ``(rng.random((t, d)) < biases)``. Not a release: it draws public simulation data.

    Parameters
    ----------
    n : int
        Number of people, >= 1.
    d : int
        Number of attributes, >= 1; ``n * d`` at most ``FINGERPRINT_MAX_CELLS`` (ValueError above).
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    FingerprintingCode
        The NamedTuple ``(biases, data)``: float64 array of shape (d,), int8 array of shape (n, d).

    Examples
    --------
    >>> p, x = fingerprinting_code(3, 4, rng=0)
    >>> p.shape, x.shape, sorted(set(x.ravel().tolist())) <= [0, 1]
    ((4,), (3, 4), True)
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    if n * d > FINGERPRINT_MAX_CELLS:
        raise ValueError(f"n * d must be at most FINGERPRINT_MAX_CELLS = {FINGERPRINT_MAX_CELLS}, got n = "
                         f"{_int_text(n)}, d = {_int_text(d)}")
    gen = as_rng(rng)
    biases = gen.random(d)
    data = (gen.random((n, d)) < biases).astype(np.int8)
    return FingerprintingCode(biases, data)


def _log_sinh(eps: float) -> float:
    """ln(sinh(ε)) for any ε > 0 (sinh overflows above 710; ln(sinh ε) = ε - ln 2 + ln(1 - e^(-2ε)))."""
    if eps <= 20.0:
        return math.log(math.sinh(eps))
    return eps - math.log(2.0) + math.log1p(-math.exp(-2.0 * eps))


def _fingerprinting_constant(d: int, eps: float) -> float:
    """C = sqrt(3 d / 2) / sinh(ε), the scale of theorem ``lb-thm-fingerprinting``, for d of any size.

    Directly (d <= 1e300, ε <= 700) C is within 5 units in the last place (sqrt and the division correctly
    rounded, libm's sinh within 2 ulp): :data:`_SLACK_GUARD` covers that. Through logarithms (a larger d, or
    ε > 700 where sinh overflows) it is within about 1e-12 relative, and is rounded down by 1e-9 (C enters only
    through the term n0 / C that is subtracted from the slack, so a smaller C can only shorten the range). inf
    when C is beyond the float range (then n0 / C < 1e-302, which the guard covers).
    """
    if eps <= 700.0 and d <= 10**300:
        return math.sqrt(1.5 * d) / math.sinh(eps)             # inf when it overflows (ε near 5e-324)
    log_c = 0.5 * (math.log(1.5) + math.log(d)) - _log_sinh(eps)
    if log_c > 709.0:
        return math.inf
    return math.exp(log_c) * (1.0 - 1e-9)


#: Absolute guard subtracted from the float slack 2/3 - 4 δ n0 - n0 / C of :func:`fingerprinting_sample_bound`.
#: Where the exact slack is positive each term is at most 2/3, so its float evaluation is within 1.4e-15 of it
#: (n0 / C within 5 ulp, 4 δ n0 within 2, three subtractions, float(2/3) below 2/3); and since the slack is at most
#: 2/3, what is left of the guard lowers n0 * slack / (4 α) by more than 3.9e-15 relative, above the two roundings
#: of that quotient. So every float `upper` is below the exact bound of its n0.
_SLACK_GUARD = 4e-15


def fingerprinting_sample_bound(d: int, epsilon: float, delta: float, alpha: float) -> tuple[int, int]:
    """Range of dataset sizes n on which no (ε, δ)-DP release of d means can have error α (proved).

    Corollary ``lb-cor-fingerprinting-alpha`` (replace-one; 0/1 attributes): let M release d means of n people
    with E||M(x) - x̄||_1 <= α d for every dataset x. Then n is excluded when n0 <= n < n0 (2/3 - 4 δ n0 - n0 / C)
    / (4 α) for some integer n0 >= 1, C = sqrt(3d/2) / sinh(ε) (theorem ``lb-thm-fingerprinting`` applied to n0
    people padded to n). For small α and δ the range ends near C / (36 α), about 0.034 sqrt(d) / (α ε) for small ε;
    :func:`gaussian_means_sample_size` gives what the Gaussian mechanism needs.

    As computed: the float slack is lowered by a guard above its float error, so every n reported is excluded by
    the corollary in exact arithmetic. Only n0 <= ``FINGERPRINT_MAX_N0`` are tried and the upper end is capped at
    ``FINGERPRINT_MAX_N``: both can only shorten the range, never make it wrong.

    Parameters
    ----------
    d : int
        Number of attributes, >= 1; an int of any size.
    epsilon : float
        ε > 0.
    delta : float
        δ in [0, 1).
    alpha : float
        Mean absolute error per mean, in (0, 1].

    Returns
    -------
    tuple of two ints
        ``(n_low, n_high)``: every n with n_low <= n <= n_high is excluded; ``(0, 0)`` when nothing is.

    Examples
    --------
    >>> fingerprinting_sample_bound(10_000, 0.1, 1e-6, 0.01)
    (1, 3379)
    >>> fingerprinting_sample_bound(100, 5.0, 1e-6, 0.01)  # large ε: nothing is excluded
    (0, 0)
    """
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    a = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)
    c = _fingerprinting_constant(d, eps)
    # a positive slack 2/3 - 4 δ n0 - n0 / C needs n0 < 2C/3 and n0 < 1/(6 δ)
    top = math.floor(min(2.0 * c / 3.0, FINGERPRINT_MAX_N0))
    if dlt > 0:
        top = min(top, math.floor(min(1.0 / (6.0 * dlt), FINGERPRINT_MAX_N0)))
    if top < 1:
        return (0, 0)
    n0 = np.arange(1, top + 1, dtype=np.float64)
    # Rounded the safe way: the slack is lowered by a guard above the float error of everything after it, so
    # each float `upper` is below the exact n0 (2/3 - 4 δ n0 - n0 / C) / (4 α), and every n < upper is excluded
    # (tested against 60-digit arithmetic on inputs where the unguarded quotient rounded up to an integer).
    slack = 2.0 / 3.0 - 4.0 * dlt * n0 - n0 / c - _SLACK_GUARD
    with np.errstate(over="ignore"):
        upper = np.minimum(n0 * slack / (4.0 * a), float(FINGERPRINT_MAX_N))
    # largest integer strictly below upper
    last = np.ceil(upper) - 1
    ok = (slack > 0) & (last >= n0)
    if not ok.any():
        return (0, 0)
    starts, ends = n0[ok].astype(np.int64), last[ok].astype(np.int64)
    low, high = int(starts[0]), int(ends[0])
    for s, e in zip(starts[1:], ends[1:]):          # union of the intervals [n0, last], in order of n0
        if s > high + 1:
            break
        high = max(high, int(e))
    return (low, high)


def gaussian_means_sample_size(d: int, epsilon: float, delta: float, alpha: float) -> float:
    """People needed for the Gaussian mechanism to release d means with mean absolute error α per mean.

    The mean vector of n people's 0/1 attributes has l2 sensitivity sqrt(d)/n under replace-one, so the analytic
    calibration (theorem ``thm-gaussian-analytic``), (ε, δ)-DP, adds N(0, σ²) with σ = σ1 sqrt(d)/n, σ1 =
    :func:`dpcourse.analytic_gaussian_sigma` (ε, δ, 1). Its expected absolute error per mean is σ sqrt(2/π), which
    equals α at n = sqrt(2/π) σ1 sqrt(d) / α.

    Against :func:`fingerprinting_sample_bound`, whose range ends near C / (36 α) for small α (C = sqrt(3d/2) /
    sinh ε), this n is 36 sqrt(4/(3π)) σ1 sinh ε ≈ 23.45 σ1 sinh ε times larger: 85 to 89 times at ε = 0.1,
    116 to 117 at ε = 1 (δ = 1e-6). Divided by sqrt(ln(1/δ)), the factor the proof ignores, it is 22.9 at ε = 0.1
    and 31.3 at ε = 1 for δ = 1e-6, and from 15.6 (ε = 0.1, δ = 1e-3) to 34.4 (ε = 1, δ = 1e-12) over ε in
    [0.1, 1] and δ in [1e-12, 1e-3]: not a constant. The chapter compares the two beyond these ranges.

    Parameters
    ----------
    d : int
        Number of attributes, >= 1; an int of any size.
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).
    alpha : float
        Mean absolute error per mean, in (0, 1] (the means lie in [0, 1]).

    Returns
    -------
    float
        The sample size n (not rounded); one beyond the float range is refused by name (ValueError).

    Examples
    --------
    >>> round(gaussian_means_sample_size(10_000, 1.0, 1e-5, 0.01))
    29766
    """
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    a = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)   # an error per mean of 0/1 values: (0, 1]
    sigma1 = analytic_gaussian_sigma(eps, dlt, 1.0)
    log_n = 0.5 * math.log(2.0 / math.pi) + math.log(sigma1) + 0.5 * math.log(d) - math.log(a)
    if log_n > 709.0:
        raise ValueError(f"d and alpha give a sample size sqrt(2/pi) sigma1 sqrt(d) / alpha beyond the float range "
                         f"(about e^{log_n:.4g} people, d = {_int_text(d)}, alpha={alpha!r}): use a smaller d or a "
                         f"larger alpha")
    if d <= 10**300:                            # the direct product, within a few ulp
        return math.sqrt(2.0 / math.pi) * sigma1 * math.sqrt(d) / a
    return math.exp(log_n)


_RELEASES = ("exact", "rounded", "gaussian")


def tracing_trial(n: int, d: int, *, release: str = "exact", epsilon: float | None = None,
                  delta: float | None = None, step: float | None = None, n_outsiders: int = 1000,
                  rng: np.random.Generator | int | None = None) -> dict[str, np.ndarray | float]:
    """Release the d means of a fingerprinting code and score members and outsiders with the tracing attack.

    Draws :func:`fingerprinting_code` (n members) and ``n_outsiders`` fresh people with the same biases, releases
    the members' means and scores everyone with :func:`dpcourse.tracing_scores`, the attacker knowing the biases
    (the score of the proof of theorem ``lb-thm-fingerprinting``). The releases: ``"exact"``, the means
    themselves; ``"rounded"``, each mean rounded to the nearest multiple of ``step`` (not private);
    ``"gaussian"``, :func:`dpcourse.gaussian_mechanism` (secure) with l2 sensitivity sqrt(d)/n: (ε, δ)-DP under
    replace-one.

    Parameters
    ----------
    n : int
        Number of members, >= 1.
    d : int
        Number of attributes, >= 1; ``(n + n_outsiders) * d`` at most ``FINGERPRINT_MAX_CELLS``.
    release : {"exact", "rounded", "gaussian"}
        The release scored.
    epsilon, delta : float, optional
        ε > 0 and δ in (0, 1), needed by ``"gaussian"``; checked whenever given (a NaN ε is refused, not ignored).
    step : float, optional
        The rounding step, in (0, 1], needed by ``"rounded"``; checked whenever given.
    n_outsiders : int, default 1000
        Number of fresh people scored, >= 1.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    dict
        ``members`` (n scores), ``outsiders`` (n_outsiders scores), ``mean_abs_error`` and ``max_abs_error`` (floats)
        of the released means.

    Examples
    --------
    >>> out = tracing_trial(50, 2000, rng=0)
    >>> bool(out["members"].mean() > out["outsiders"].mean()), out["mean_abs_error"]
    (True, 0.0)
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    t = check_positive_int(n_outsiders, "n_outsiders")
    kind = check_choice(release, "release", _RELEASES)
    # a parameter given is checked even where the release does not use it (a NaN epsilon is refused, not ignored)
    eps = None if epsilon is None else check_epsilon(epsilon)
    dlt = None if delta is None else check_delta(delta)
    st = None if step is None else check_real(step, "step", low=0.0, high=1.0, low_open=True)
    if kind == "gaussian":
        if eps is None or dlt is None:
            raise ValueError("release='gaussian' needs epsilon and delta")
        if dlt == 0:
            raise ValueError("delta must be in (0, 1) for the Gaussian release, got 0")
    if kind == "rounded" and st is None:
        raise ValueError("release='rounded' needs step")
    if (n + t) * d > FINGERPRINT_MAX_CELLS:
        raise ValueError(f"(n + n_outsiders) * d must be at most FINGERPRINT_MAX_CELLS = {FINGERPRINT_MAX_CELLS}, "
                         f"got n = {_int_text(n)}, n_outsiders = {_int_text(t)}, d = {_int_text(d)}")
    gen = as_rng(rng)
    biases, data = fingerprinting_code(n, d, rng=gen)
    outsiders = (gen.random((t, d)) < biases).astype(np.int8)
    means = data.mean(axis=0)
    if kind == "exact":
        released = means
    elif kind == "rounded":
        released = np.round(means / st) * st
    else:
        assert eps is not None and dlt is not None       # checked above for release="gaussian"
        released = np.asarray(gaussian_mechanism(means, math.sqrt(d) / n, eps, dlt, rng=gen), dtype=np.float64)
    err = np.abs(released - means)
    return {"members": tracing_scores(data, released, biases), "outsiders": tracing_scores(outsiders, released, biases),
            "mean_abs_error": float(err.mean()), "max_abs_error": float(err.max())}
