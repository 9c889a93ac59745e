"""Private partition selection: which keys a user-level release may publish.

* :func:`partition_selection_probability`: the optimal keep probability of a partition with n users
  (theorem ``scale-thm-optimal-selection``), computed in floating point for plots and comparisons;
* :func:`partition_selection_thresholds`: the exact integer keep thresholds T(n) / K that releases draw
  with (theorem ``scale-thm-exact-selection``), and :func:`achieved_selection_delta`, the delta a sequence
  of keep probabilities meets, computed exactly;
* :func:`select_partitions`: keeps each partition with an exact integer coin on those thresholds,
  (epsilon, delta)-DP under add/remove one user.

The proofs are in the chapter "From the course to production"; the speed of the thresholds and of the
coins is measured by ``benchmarks/bench_scale.py``.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple, NoReturn

import numpy as np
from numpy.typing import ArrayLike

from . import portable
from ._validation import as_rng, check_delta, check_epsilon, check_positive_int, check_real, check_real_array
from .contribution_bounding import _columns

__all__ = [
    "partition_selection_probability",
    "partition_selection_thresholds",
    "achieved_selection_delta",
    "KeepThresholds",
    "SELECTION_MAX_STEPS",
    "select_partitions",
]


# ----------------------------------------------------------------------------------------------------
# Optimal partition selection.


def _per_partition_parameters(eps: float, delta: float, m: int) -> tuple[float, float]:
    """(epsilon/m, 1 - (1 - delta)**(1/m)): the budget of one partition's keep decision."""
    return eps / m, -math.expm1(math.log1p(-delta) / m)


def _regimes(eps: float, delta: float) -> tuple[float, float, float, float]:
    """(e^eps - 1, n1, p(n1), n2) of the closed form, for eps > 0 and delta in (0, 1) (floats)."""
    em1 = math.expm1(eps) if eps < 700 else math.inf
    # Regime 1 (p(n) = e^eps p(n-1) + delta) lasts up to n1; regime 2 (1 - p(n) = e^-eps (1 - p(n-1) - delta))
    # follows; p = 1 from n2 on.
    # t = tanh(eps/2) (1/delta - 1), in log space so that tiny eps or delta cannot give 0 * inf.
    log_tanh = math.log(math.tanh(eps / 2)) if eps > 1e-300 else math.log(eps) - math.log(2.0)
    log_t = log_tanh + math.log1p(-delta) - math.log(delta)
    t = math.exp(log_t) if log_t < 700 else math.inf
    n1 = 1.0 + math.floor(math.log1p(t) / eps) if math.log1p(t) / eps < 2.0**62 else math.inf
    if math.isinf(n1):  # the first regime outlasts every representable count
        p1, n2 = 1.0, math.inf
    else:
        p1 = delta * math.exp((n1 - 1.0) * eps) * (-math.expm1(-n1 * eps)) / (-math.expm1(-eps))
        g = math.log1p(em1 / delta * (1.0 - p1)) / eps
        n2 = n1 + math.floor(g) if g < 2.0**62 else math.inf
    return em1, n1, p1, n2


def _keep_probability(n: np.ndarray, eps: float, delta: float) -> np.ndarray:
    """Closed form of the largest keep-probability sequence satisfying the (eps, delta) constraints."""
    if delta == 0.0:  # delta / max_partitions underflowed: with delta = 0 no partition may ever be kept
        return np.zeros(n.shape)
    if eps == 0.0:  # epsilon / max_partitions underflowed: the (0, delta) rule p(n) = min(n delta, 1)
        return np.minimum(n.astype(np.float64) * delta, 1.0)
    em1, n1, p1, n2 = _regimes(eps, delta)
    nf = n.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        nl = np.clip(nf, 1.0, n1)
        # delta (e^(n eps) - 1) / (e^eps - 1), written so that a huge eps (where n1 = 1) cannot overflow.
        # portable: the same floats on every CPU, so the float coin's measured failure (chapter "DP at
        # scale") is the same everywhere
        low = delta * portable.exp((nl - 1.0) * eps) * (-portable.expm1(-nl * eps)) / (-math.expm1(-eps))
        high = p1 - (1.0 - p1 + delta / em1) * portable.expm1(-(nf - n1) * eps)
    p = np.where(nf <= n1, low, np.where(nf <= n2, high, 1.0))
    p = np.where(nf == 0, 0.0, p)
    return np.clip(p, 0.0, 1.0)


def _check_user_counts(n_users: ArrayLike) -> np.ndarray:
    arr = check_real_array(n_users, "n_users", allow_empty=True)
    if arr.size and (np.any(arr < 0) or np.any(arr != np.floor(arr))):
        raise ValueError("n_users must hold whole numbers >= 0 (user counts)")
    return arr.astype(np.int64)


def partition_selection_probability(n_users: ArrayLike, epsilon: float, delta: float, *,
                                    max_partitions: int = 1) -> float | np.ndarray:
    """Probability of keeping a partition that has ``n_users`` distinct users: the optimal rule, in floats.

    With ``eps1 = epsilon / max_partitions`` and ``delta1 = 1 - (1 - delta)**(1 / max_partitions)``,
    p(n) is the largest sequence with p(0) = 0 and, for every n >= 1, ``p(n) <= e^eps1 p(n-1) + delta1``
    and ``1 - p(n-1) <= e^eps1 (1 - p(n)) + delta1``: ``delta1 (e^(n eps1) - 1) / (e^eps1 - 1)`` up to a
    crossover, then a geometric rise to 1 (theorem ``scale-thm-optimal-selection``; Desfontaines, Voss,
    Gipson & Mandayam 2022). It is the rule and the per-partition split of Google's differential-privacy
    library (``probability_of_keep`` of its truncated-geometric strategy).

    Guarantee as implemented: none, since **no release draws with these floats**. Keeping each partition
    independently with the real p(n) is (epsilon, delta)-DP under **add/remove one user** when each user
    contributes to at most ``max_partitions`` partitions; a coin on the float p(n) is not at large eps1 (a
    rounding near 1 is multiplied by e^eps1). :func:`select_partitions` and :func:`dpcourse.dp_group_by`
    draw with the exact thresholds of :func:`partition_selection_thresholds`, which are at most p(n).

    Parameters
    ----------
    n_users : int or array_like of ints
        Number(s) of distinct users in a partition, >= 0.
    epsilon : float
        > 0, the budget of the whole selection.
    delta : float
        In (0, 1): with delta = 0 no partition could ever be kept.
    max_partitions : int, default 1
        Largest number of partitions one user contributes to, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Probabilities in [0, 1], non-decreasing in ``n_users``, 0 at n = 0 (a float for a scalar
        ``n_users``).

    Examples
    --------
    >>> partition_selection_probability(0, 1.0, 1e-5)
    0.0
    >>> round(partition_selection_probability(1, 1.0, 1e-5), 12)
    1e-05
    >>> partition_selection_probability(1000, 1.0, 1e-5)
    1.0
    """
    n = _check_user_counts(n_users)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=False)
    m = check_positive_int(max_partitions, "max_partitions")
    p = _keep_probability(n, *_per_partition_parameters(eps, dlt, m))
    return float(p) if p.ndim == 0 else p


# ----------------------------------------------------------------------------------------------------
# The release's coins: integer keep thresholds that satisfy the (eps1, delta1) constraints exactly.

_EXP_BITS = 256                                  # L = A / 2**256 is the rational lower bound of e^eps1
_EPS_MARGIN = Fraction(1) - Fraction(1, 2**49)   # absorbs the float roundings of epsilon / parts / m
_GUARD_BITS = 64                                 # the grid 1/K is at most 2**-64 delta1
_WORD = 0xFFFF_FFFF_FFFF_FFFF
# Greedy threshold sequences T(0..N) by (A, D, k), built to saturation (at most 32 kept).
_SEQUENCES: dict[tuple[int, int, int], list[int]] = {}

#: Most steps n of the certified threshold sequence T(n) one setting may need before T(n) = K (epsilon = 0.01,
#: delta = 1e-12 split over 150 partitions needs 6.6e5; the time a step takes is measured by
#: ``benchmarks/bench_scale.py``): a setting (epsilon / max_partitions, delta) whose sequence would be longer is
#: refused by name before anything is built. The length depends on the public parameters only (219 at
#: epsilon1 = 0.1, delta = 1e-6; 1.5e5 at epsilon1 = 0.01, delta = 5e-324; about 1 / delta1 as epsilon1 -> 0).
SELECTION_MAX_STEPS = 2**20


class SelectionTooLongError(ValueError):
    """The certified threshold sequence would need more than :data:`SELECTION_MAX_STEPS` steps."""


class KeepThresholds(NamedTuple):
    """The exact keep rule of a release: keep with probability ``thresholds / denominator``."""

    thresholds: np.ndarray          #: Python ints T(n), 0 <= T(n) <= denominator (object array)
    denominator: int                #: K = 2**k, k a multiple of 64
    exp_epsilon_lower: Fraction     #: L <= e^eps1, the factor the thresholds were built with
    delta_per_partition: Fraction   #: D / K <= delta1, the additive term they were built with


def _exp_lower(x: Fraction) -> int:
    """A with A / 2**_EXP_BITS <= e^x for a rational x >= 0 (every rounding goes down)."""
    bits = _EXP_BITS
    s = 0
    while x > Fraction(2**s, 2):         # e^x = (e^(x / 2^s))^(2^s) with x / 2^s <= 1/2
        s += 1
    y = x / 2**s
    term = total = 1 << bits
    j = 1
    while term:                          # Taylor terms, each rounded down; the dropped tail is positive
        term = term * y.numerator // (y.denominator * j)
        total += term
        j += 1
    for _ in range(s):
        total = total * total >> bits
    return max(total - (total >> (bits - 64)) - 1, 1 << bits)   # a relative 2**-192 below; e^x >= 1


def _power_lower(num: int, k: int, m: int) -> Fraction:
    """A lower bound of (num / 2**k)**m (fixed point with k + 64 bits, every product rounded down)."""
    g = k + 64
    base, result = num << 64, 1 << g
    while m:
        if m & 1:
            result = result * base >> g
        m >>= 1
        if m:
            base = base * base >> g
    return Fraction(result, 1 << g)


@functools.lru_cache(maxsize=64)
def _certified_parameters(eps1: float, delta1: float, delta: float, m: int) -> tuple[int, int, int]:
    """(A, D, k) with A / 2**256 <= e^(true epsilon / m) and 1 - (1 - D / 2**k)**m <= delta, exactly.

    ``eps1`` is the float epsilon / m (after at most a few float divisions, each rounding by at most a
    relative 2**-53: the margin 2**-49 covers them); ``delta1`` the float 1 - (1 - delta)**(1/m).
    """
    bits = math.ceil(math.log2(m) - math.log2(delta)) + _GUARD_BITS
    k = 64 * max(1, -(-bits // 64))
    big = 1 << k
    a = _exp_lower(min(Fraction(eps1) * _EPS_MARGIN, Fraction(k + 64)))  # a smaller L is always safe
    d = max(int(Fraction(delta1) * big), int(Fraction(delta) * big / m))  # rounded down; delta1 may underflow
    for candidate in (d, d - (d >> 40) - 1):    # the float delta1 may be a few ulps too large
        if candidate >= 0 and _power_lower(big - candidate, k, m) >= 1 - Fraction(delta):
            return a, candidate, k              # (1 - D/K)^m >= 1 - delta, checked exactly
    return a, int(Fraction(delta) * big / m), k  # (1 - D/K)^m >= 1 - m D / K >= 1 - delta (Bernoulli)


def _log1p_exp(x: float) -> float:
    """log(1 + e^x) without overflow."""
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _saturation_estimate(a: int, d: int, k: int) -> float:
    """About the first n with T(n) = K, from the real recurrence with L = a / 2**256 and delta1 = d / K.

    Regime 1 (``p' = L p + delta1``) runs until the crossover ``p* = (1 - delta1) / (L + 1)``, taking
    ``log(1 + p* (L - 1) / delta1) / log L`` steps; regime 2 (``1 - p' = (1 - p - delta1) / L``) takes
    ``log(1 + (1 - p*) (L - 1) / delta1) / log L`` more; with L = 1 the rule is ``p(n) = n delta1``. In
    logarithms, so that no delta1 and no L can underflow or overflow. Within a few steps of the length the
    integer rule really has (checked in ``tests/test_scale.py``); :func:`_threshold_sequence` stops at the cap
    anyway, so a low estimate costs time, never correctness.
    """
    log_l = math.log(a) - _EXP_BITS * math.log(2.0)
    log_d = math.log(d) - k * math.log(2.0)
    if log_l <= 0.0:                                     # L = 1: T(n) = n D
        return math.ceil(math.exp(min(-log_d, 700.0))) + 1.0
    log_lm1 = math.log(math.expm1(log_l)) if log_l < 1.0 else log_l + math.log(-math.expm1(-log_l))
    log_p = math.log((1 << k) - d) - k * math.log(2.0) - _log1p_exp(log_l)   # log p*, p* <= 1/2
    log_q = math.log1p(-math.exp(log_p))                             # log (1 - p*)
    steps = (_log1p_exp(log_p + log_lm1 - log_d) + _log1p_exp(log_q + log_lm1 - log_d)) / log_l
    return math.ceil(min(steps, 1e300)) + 1.0


def _refuse_long_selection(eps1: float, delta: float, m: int, steps: str) -> NoReturn:
    raise ValueError(
        f"partition selection at epsilon / max_partitions = {eps1!r}, delta = {delta!r}, max_partitions = {m} "
        f"needs {steps} steps to certify its keep thresholds; at most SELECTION_MAX_STEPS = {SELECTION_MAX_STEPS} "
        "(the cap on one call's work): raise epsilon or delta, or lower max_partitions "
        "(the number of steps grows like 2 log(epsilon1 / delta1) / epsilon1, and like 1 / delta1 as epsilon1 -> 0)")


def _threshold_sequence(a: int, d: int, k: int, n_max: int | None = None) -> list[int]:
    """T(0), ..., T(N), N the first n with T(n) = K, of the greedy integer rule (never mutate it).

    With ``n_max`` None (every release) the sequence is built to saturation: the work depends on the public
    (a, d, k) only, never on the largest user count of the data. With an ``n_max`` (a public count, asked by
    :func:`partition_selection_thresholds` for a setting over the cap) it stops at T(n_max) or saturation.
    At most :data:`SELECTION_MAX_STEPS` steps: a sequence that has not saturated by then raises
    :class:`SelectionTooLongError` (its caller names the public parameters).
    """
    key = (a, d, k)
    seq = _SEQUENCES.pop(key, None) or [0]
    big, t = 1 << k, seq[-1]
    while t < big and (n_max is None or len(seq) <= n_max):
        if len(seq) > SELECTION_MAX_STEPS:             # a hard stop: T(SELECTION_MAX_STEPS) < K
            raise SelectionTooLongError(f"more than {SELECTION_MAX_STEPS}")
        r = big - t - d
        up = ((a * t) >> _EXP_BITS) + d                                  # floor(L T + D)
        down = big - (-(-(r << _EXP_BITS) // a)) if r > 0 else big       # K - ceil((K - T - D) / L)
        t = min(up, down, big)
        seq.append(t)
    _SEQUENCES[key] = seq
    while len(_SEQUENCES) > 32:
        _SEQUENCES.pop(next(iter(_SEQUENCES)))
    return seq


def _selection_sequence(eps1: float, delta1: float, delta: float, m: int,
                        n_max: int | None = None) -> tuple[list[int], int, int, int]:
    """The certified sequence T(0..N) and (a, d, k), or a ValueError naming the public parameters whose
    sequence is longer than :data:`SELECTION_MAX_STEPS` (from an estimate, before anything is built). A
    release calls it with ``n_max`` None before looking at the data, so that whether it is refused never
    depends on the data (an empty table too). :func:`partition_selection_thresholds`, whose counts are public,
    passes their largest: a setting over the cap then gets T(0..n_max), n_max at most the cap."""
    a, d, k = _certified_parameters(eps1, delta1, delta, m)
    estimate = _saturation_estimate(a, d, k)
    if estimate > SELECTION_MAX_STEPS:
        if n_max is None or n_max > SELECTION_MAX_STEPS:
            _refuse_long_selection(eps1, delta, m, f"about {estimate:.3g}")
    else:
        n_max = None
    try:
        seq = _threshold_sequence(a, d, k, n_max)
    except SelectionTooLongError as err:
        _refuse_long_selection(eps1, delta, m, str(err))
    return seq, a, d, k


def _thresholds_for(counts: np.ndarray, eps1: float, delta1: float, delta: float, m: int,
                    n_max: int | None = None) -> tuple[list[int], np.ndarray, int, int, int]:
    """The sequence T(0..N), the index into it of each entry of ``counts.ravel()``, and (a, d, k)."""
    flat = counts.ravel()
    seq, a, d, k = _selection_sequence(eps1, delta1, delta, m, n_max)
    idx = np.minimum(flat, len(seq) - 1)   # from N on T = K: every count >= N maps to the last entry
    return seq, idx, a, d, k


def _integer_coin(gen: np.random.Generator, words: np.ndarray, full: np.ndarray) -> np.ndarray:
    """keep[i] = full[i] or U_i < T_i, U_i uniform on {0, ..., 2**(64 w) - 1}, exactly.

    ``words`` (shape (n, w), uint64) holds T_i most significant word first; U_i is drawn as
    ``gen.integers(0, 2**64, size=(n, w), dtype=np.uint64)``, same layout: exact for every numpy bit
    generator, because ``Generator.integers`` builds its 64-bit words itself (two 32-bit outputs of MT19937).
    """
    u = gen.integers(0, 2**64, size=words.shape, dtype=np.uint64)
    below = np.zeros(words.shape[0], dtype=bool)
    decided = np.zeros(words.shape[0], dtype=bool)
    for j in range(words.shape[1]):                 # lexicographic U < T, word by word
        below |= ~decided & (u[:, j] < words[:, j])
        decided |= u[:, j] != words[:, j]
    return full | below


def _keep_decisions(counts: np.ndarray, per_partition: tuple[float, float], delta: float, m: int,
                    gen: np.random.Generator) -> np.ndarray:
    """One exact keep coin per entry of ``counts``, with probability T(count) / K."""
    seq, idx, _, _, k = _thresholds_for(counts, *per_partition, delta, m)
    big, w = 1 << k, k // 64
    table = np.empty((len(seq), w), dtype=np.uint64)
    for j in range(w):
        shift = 64 * (w - 1 - j)
        table[:, j] = [(min(t, big - 1) >> shift) & _WORD for t in seq]
    full = np.array([t == big for t in seq])
    return _integer_coin(gen, table[idx], full[idx])


def partition_selection_thresholds(n_users: ArrayLike, epsilon: float, delta: float, *,
                                   max_partitions: int = 1) -> KeepThresholds:
    """The exact keep probabilities T(n) / K that :func:`select_partitions` and ``dp_group_by`` draw with.

    With ``K = 2**k`` (k a multiple of 64 with ``K delta1 >= 2**64``), a rational ``L = A / 2**256`` at or
    below ``e^(epsilon / max_partitions)`` and an integer ``D`` with ``1 - (1 - D/K)**max_partitions <=
    delta`` (both certified in integer arithmetic), the thresholds follow the greedy integer rule
    ``T(0) = 0``, ``T(n) = min(floor(L T(n-1) + D), K - ceil((K - T(n-1) - D) / L), K)``.

    Guarantee as implemented: ``T(n) / K`` meets the two constraints of theorem
    ``scale-thm-optimal-selection`` **exactly** and is non-decreasing, so keeping each partition with
    probability ``T(n) / K`` is (epsilon, delta)-DP under **add/remove one user** (each user in at most
    ``max_partitions`` partitions) for every accepted epsilon > 0 and delta in (0, 1) (theorem
    ``scale-thm-exact-selection``). ``T(n) / K`` is at most :func:`partition_selection_probability` and,
    on the tested settings, within 1e-9 of it. A tiny ``epsilon / max_partitions`` (below about 1e-58) is
    treated as 0 (then ``T(n) = n D``), a huge one as ``k + 64``: a smaller L is always safe.

    The sequence is built from (epsilon, delta, max_partitions) alone, up to the first N with T(N) = K
    (every count >= N has T = K), and cached; N grows like ``2 log(eps1 / delta1) / eps1``, like
    ``1 / delta1`` as eps1 -> 0. The releases refuse a setting with N above :data:`SELECTION_MAX_STEPS`
    (ValueError naming the parameters and the cap) on any data; here, ``n_users`` being public, such a
    setting is answered for counts up to the cap and refused for larger ones.

    Parameters
    ----------
    n_users : int or array_like of ints
        Number(s) of distinct users in a partition, >= 0.
    epsilon : float
        > 0, the budget of the whole selection.
    delta : float
        In (0, 1).
    max_partitions : int, default 1
        Largest number of partitions one user contributes to, >= 1.

    Returns
    -------
    KeepThresholds
        ``thresholds`` (object array of Python ints, the shape of ``n_users``), ``denominator`` K,
        ``exp_epsilon_lower`` L and ``delta_per_partition`` D / K, as exact ``Fraction``.

    Examples
    --------
    >>> th = partition_selection_thresholds([0, 1, 40], 1.0, 1e-5)
    >>> th.thresholds[0], th.thresholds[2] == th.denominator
    (0, True)
    >>> float(th.thresholds[1] / th.denominator)
    1e-05
    """
    n = _check_user_counts(n_users)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=False)
    m = check_positive_int(max_partitions, "max_partitions")
    n_max = int(n.max()) if n.size else 0      # public here: a setting over the cap is answered up to the cap
    seq, idx, a, d, k = _thresholds_for(n, *_per_partition_parameters(eps, dlt, m), dlt, m, n_max)
    out = np.empty(idx.size, dtype=object)
    out[:] = [seq[i] for i in idx]
    return KeepThresholds(out.reshape(n.shape), 1 << k, Fraction(a, 1 << _EXP_BITS), Fraction(d, 1 << k))


def _check_exp_epsilon(exp_epsilon: object) -> Fraction:
    """A rational e^eps >= 1: a Fraction or an int exactly (no float overflow), else a finite real >= 1."""
    if isinstance(exp_epsilon, (Fraction, int)) and not isinstance(exp_epsilon, bool):
        e = Fraction(exp_epsilon)
        if e < 1:
            raise ValueError(f"exp_epsilon must be a real number >= 1 (a bound of e^epsilon), got {exp_epsilon!r}")
        return e
    return Fraction(check_real(exp_epsilon, "exp_epsilon", low=1.0))


def _check_thresholds(thresholds: Any, big: int) -> list[int]:
    """The thresholds as Python ints in [0, K]; at most SELECTION_MAX_STEPS + 1 of them (a longer sequence
    is never built)."""
    try:
        size = thresholds.size if isinstance(thresholds, np.ndarray) else len(thresholds)
    except TypeError:
        raise TypeError(f"thresholds must be a sequence of integers in [0, denominator], got "
                        f"{type(thresholds).__name__}") from None
    if size > SELECTION_MAX_STEPS + 1:
        raise ValueError(f"thresholds holds {size} values; at most SELECTION_MAX_STEPS + 1 = "
                         f"{SELECTION_MAX_STEPS + 1} (the longest sequence partition_selection_thresholds builds)")
    out = []
    for x in np.ravel(np.asarray(list(thresholds) if not isinstance(thresholds, np.ndarray) else thresholds,
                                 dtype=object)):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
            raise TypeError(f"thresholds must hold integers in [0, denominator], got {type(x).__name__} {x!r}")
        if not 0 <= int(x) <= big:
            raise ValueError(f"thresholds must hold integers in [0, denominator = {big}], got {int(x)}")
        out.append(int(x))
    return out


def achieved_selection_delta(thresholds: Sequence[int] | np.ndarray, denominator: int,
                             exp_epsilon: Fraction | float, *, max_partitions: int = 1) -> Fraction:
    """The delta that keep probabilities ``T(n) / K``, n = 0, 1, ..., len - 1, meet, exactly (a Fraction).

    delta1 is the largest violation of the four inequalities of theorem ``scale-thm-optimal-selection``
    (``p(n) <= e p(n-1) + delta1``, ``1 - p(n-1) <= e (1 - p(n)) + delta1`` and the two exchanged ones)
    over consecutive n with ``e = exp_epsilon``, computed in integers; the result is the m-fold
    composition ``1 - (1 - delta1)**m``.

    Guarantee as implemented: exact up to m = 1000; above, ``(1 - delta1)**m`` is bounded from below in fixed
    point with 64 guard bits, so the result is an upper bound. With ``exp_epsilon`` at or below
    e^(epsilon / m) it is an upper bound of the delta, under add/remove one user, of the selection that keeps
    each partition with these probabilities, on those n (it checks the coins, not the float formula).

    Parameters
    ----------
    thresholds : sequence of ints
        T(0), T(1), ...: integers in [0, ``denominator``], at most ``SELECTION_MAX_STEPS + 1`` of them.
    denominator : int
        K >= 1.
    exp_epsilon : Fraction, int or float
        A bound e >= 1 of e^(epsilon / max_partitions) (a Fraction or an int is used exactly).
    max_partitions : int, default 1
        m >= 1, the number of partitions one user contributes to.

    Returns
    -------
    fractions.Fraction
        The achieved delta (an upper bound of it for m > 1000).

    Examples
    --------
    >>> th = partition_selection_thresholds(range(40), 15.0, 1e-12)
    >>> achieved_selection_delta(th.thresholds, th.denominator, th.exp_epsilon_lower) <= Fraction(1e-12)
    True
    """
    big = check_positive_int(denominator, "denominator")
    e = _check_exp_epsilon(exp_epsilon)
    a, b = e.numerator, e.denominator
    t = _check_thresholds(thresholds, big)
    worst = 0
    for t0, t1 in zip(t[:-1], t[1:]):
        worst = max(worst, t1 * b - a * t0, (big - t0) * b - a * (big - t1), t0 * b - a * t1,
                    (big - t1) * b - a * (big - t0))
    m = check_positive_int(max_partitions, "max_partitions")
    if worst == 0:
        return Fraction(0)
    if m <= _EXACT_COMPOSITION:
        return 1 - (1 - Fraction(worst, big * b)) ** m
    g = (big * b).bit_length() + 64           # (1 - delta1)^m from below in fixed point: the result is above
    base = ((big * b - worst) << g) // (big * b)
    return 1 - _power_lower(base, g, m)


_EXACT_COMPOSITION = 1000   # above, the m-fold composition is an upper bound (a Fraction of m bits is slow)


# ----------------------------------------------------------------------------------------------------
# The release: select_partitions.


def _released_keys(keys: np.ndarray) -> np.ndarray:
    """The released keys, in a dtype computed from the released keys alone.

    ``np.unique`` of the key column has the column's dtype, and that dtype is set by *every* key, released
    or not: ``<U20`` when one user (never released) has a 20-character key, float64 when one unreleased
    key is 2.5. Returned as is, an empty release of ``[("u1", "a")]`` (``<U1``) and of its neighbour with a
    user ``("u2", "averyveryverylongkey")`` (``<U20``) differ with certainty: infinite privacy loss. The
    keys are rebuilt from their values: strings as ``str``, numbers as int64 when every released key is a
    whole number in the int64 range, else as float64; an empty release is ``np.array([])`` (float64)
    whatever the key column (strings or numbers, or no rows at all).
    """
    if keys.size == 0:
        return np.array([])
    if keys.dtype.kind in "US":
        return np.array(keys.tolist(), dtype=bytes if keys.dtype.kind == "S" else str)
    values = keys.tolist()
    whole = [isinstance(v, numbers.Integral) or float(v).is_integer() for v in values]
    if all(whole) and all(-(2**63) <= v < 2**63 for v in values):
        return np.array([int(v) for v in values], dtype=np.int64)
    if all(whole):                              # a whole number beyond int64 (an object key column)
        return np.array([int(v) for v in values], dtype=object)
    if all(abs(v) <= float(np.finfo(np.float64).max) for v in values):   # (Python compares int and float exactly)
        return np.array([float(v) for v in values], dtype=np.float64)
    return np.array(values, dtype=object)       # an int beyond the float range next to a fraction


def _user_counts(uid: np.ndarray, kid: np.ndarray, n_keys: int) -> np.ndarray:
    """Distinct users per key code (vectorized: unique (key, user) pairs, then a bincount)."""
    pairs = np.unique(kid.astype(np.int64) * (int(uid.max()) + 1) + uid)
    return np.bincount(pairs // (int(uid.max()) + 1), minlength=n_keys)


def _check_partitions_per_user(uid: np.ndarray, kid: np.ndarray, m: int) -> None:
    pairs = np.unique(uid.astype(np.int64) * (int(kid.max()) + 1) + kid)
    per_user = np.bincount(pairs // (int(kid.max()) + 1))
    if per_user.max() > m:
        raise ValueError(f"every user must contribute to at most max_partitions={m} partitions: bound the "
                         f"contributions first (bound_contributions)")


def select_partitions(user_ids: ArrayLike, keys: ArrayLike, epsilon: float, delta: float, *,
                      max_partitions: int = 1, rng: int | np.random.Generator | None = None) -> np.ndarray:
    """Release the set of keys kept by optimal private partition selection, with exact coins.

    Each distinct key with n distinct users is kept independently iff a uniform integer U on
    {0, ..., K - 1} is below the threshold T(n) of :func:`partition_selection_thresholds`: P(keep) =
    T(n) / K exactly, at most :func:`partition_selection_probability`. U is drawn as
    ``rng.integers(0, 2**64, size=(n_keys, k // 64), dtype=np.uint64)`` (one row per sorted key, most
    significant word first), exact for every numpy bit generator. Keys with no user are never kept.

    Guarantee as implemented: (epsilon, delta)-DP under **add/remove one user** for every accepted
    epsilon > 0 and delta in (0, 1) (theorems ``scale-thm-optimal-selection`` and
    ``scale-thm-exact-selection``), for tables where no user has more than ``max_partitions`` distinct
    keys. That contract is checked: a violation raises instead of releasing (run
    :func:`dpcourse.bound_contributions` first). A setting whose thresholds need more than
    :data:`SELECTION_MAX_STEPS` steps is refused (ValueError naming the parameters and the cap) before the
    data are looked at, for every table.

    Parameters
    ----------
    user_ids, keys : array_like, shape (n,)
        Privacy id and key of each row.
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    max_partitions : int, default 1
        Largest number of distinct keys per user, >= 1.
    rng : None, int or numpy.random.Generator, optional
        Source of the keep coins.

    Returns
    -------
    numpy.ndarray
        The kept keys, sorted (their dtype is computed from the kept keys alone).

    Examples
    --------
    >>> users = np.repeat(np.arange(500), 2)
    >>> keys = np.tile(["big", "tiny"], 500); keys[1::2][1:] = "big"
    >>> select_partitions(users, keys, 1.0, 1e-6, max_partitions=1, rng=0)
    Traceback (most recent call last):
    ...
    ValueError: every user must contribute to at most max_partitions=1 partitions: bound the contributions first (bound_contributions)
    >>> keys[1::2] = "big"
    >>> select_partitions(users, keys, 1.0, 1e-6, rng=0).tolist()
    ['big']
    """
    users, ks, _ = _columns(user_ids, keys, None, need_values=False, allow_empty=True)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=False)
    m = check_positive_int(max_partitions, "max_partitions")
    gen = as_rng(rng)
    _selection_sequence(*_per_partition_parameters(eps, dlt, m), dlt, m)   # refused or not, whatever the data
    if users.size == 0:
        return _released_keys(users)
    uid = np.unique(users, return_inverse=True)[1].ravel()
    key_values, kid = np.unique(ks, return_inverse=True)
    kid = kid.ravel()
    _check_partitions_per_user(uid, kid, m)
    counts = _user_counts(uid, kid, key_values.size)
    return _released_keys(key_values[_keep_decisions(counts, _per_partition_parameters(eps, dlt, m), dlt, m, gen)])

