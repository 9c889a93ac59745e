"""Differential privacy at scale: user-level privacy, contribution bounding and private partition selection.

The chapter "From the course to production" proves what is used here:

* :func:`bound_contributions`: keep, for every user, a uniformly random set of at most ``max_partitions``
  of the partitions (keys) the user contributed to, and in each kept partition a uniformly random set of
  at most ``max_per_partition`` of the user's rows (lemma ``scale-lem-bounding``).
* :func:`partition_selection_probability`: the optimal keep probability of a partition with n users
  (Desfontaines, Voss, Gipson & Mandayam 2022, theorem ``scale-thm-optimal-selection``), computed in
  floating point; :func:`partition_selection_thresholds`, the exact integer keep thresholds the releases
  draw with (theorem ``scale-thm-exact-selection``), and :func:`select_partitions`, which keeps each
  partition with an exact integer coin on them.
* :func:`dp_group_by`: the course's own end-to-end release of noisy per-key counts and clamped sums,
  (epsilon, delta)-DP at the **user level** (theorem ``scale-thm-group-by``).
* :func:`load_flights` (real data shipped with the course) and :func:`synthetic_events` (a documented
  generator for benchmark sizes).

The unit of privacy is the *user* (the privacy id): two datasets are neighbours when one is the other plus
all the rows of one user (add/remove one user). Event-level guarantees (add/remove one row) are weaker
whenever a user has several rows.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import math
import numbers
from fractions import Fraction
from importlib import resources
from typing import NamedTuple

import numpy as np

from . import portable
from ._validation import (
    as_rng,
    check_bounds,
    check_choice,
    check_delta,
    check_epsilon,
    check_label_column,
    check_positive_int,
    check_real,
    check_real_array,
)
from .discrete import geometric_mechanism, laplace_lattice
from .laplace import laplace_mechanism

__all__ = [
    "bound_contributions",
    "partition_selection_probability",
    "partition_selection_thresholds",
    "achieved_selection_delta",
    "KeepThresholds",
    "select_partitions",
    "dp_group_by",
    "group_by_noise_scales",
    "load_flights",
    "synthetic_events",
    "FLIGHT_DELAY_BOUNDS",
    "pipeline_dp_group_by",
    "pipeline_dp_laplace_parameters",
    "quiet_beam_import",
]

#: Public bounds (minutes) the chapter uses to clamp an arrival delay, chosen without looking at the data.
FLIGHT_DELAY_BOUNDS = (-60.0, 240.0)

_METRICS = ("count", "sum")


# ----------------------------------------------------------------------------------------------------
# Argument checks specific to grouped data (built from the shared checks of ``_validation``).


def _labels_column(x, name: str) -> np.ndarray:
    """A 1-d, non-empty column of labels (ints or strings; floats must be finite; bools refused).

    A list holding an int beyond 64 bits (a 128-bit user id, say) is stored by numpy as an ``object``
    array, and whether it is depends on the values (``[-1, 2**63]`` is object, ``[-1, 2**63 - 1]`` int64):
    such a column of whole numbers and finite floats is kept, as Python numbers, instead of refused, so
    that one record's size never decides whether a release happens (CONTRIBUTING.md, "Private data").
    """
    if not isinstance(x, (str, bytes)):
        try:
            arr = np.asarray(x)
        except (ValueError, TypeError):
            arr = None
        if arr is not None and arr.dtype == object and arr.ndim == 1 and arr.size:
            items = arr.tolist()
            if all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) or
                   isinstance(v, (float, np.floating)) and np.isfinite(v) for v in items):
                return np.array([v if isinstance(v, (float, np.floating)) else int(v) for v in items], dtype=object)
    return check_label_column(x, name)


def _empty_1d(x) -> bool:
    return not isinstance(x, (str, bytes)) and np.ndim(x) == 1 and np.size(x) == 0


def _columns(user_ids, keys, values, *, need_values: bool, allow_empty: bool = False):
    if allow_empty and _empty_1d(user_ids) and _empty_1d(keys) and (values is None or _empty_1d(values)):
        # No rows (a release under add/remove one user, where [] neighbours every one-user table).
        if values is None and need_values:
            raise ValueError("values must be given (one finite number per row) for the metric 'sum'")
        none = np.zeros(0, dtype=np.int64)
        return none, none, (None if values is None else np.zeros(0))
    users = _labels_column(user_ids, "user_ids")
    ks = _labels_column(keys, "keys")
    if ks.size != users.size:
        raise ValueError("keys must have one entry per row of user_ids (their lengths differ)")
    if values is None:
        if need_values:
            raise ValueError("values must be given (one finite number per row) for the metric 'sum'")
        return users, ks, None
    vals = check_real_array(values, "values", ndim=1)
    if vals.size != users.size:
        raise ValueError("values must have one entry per row of user_ids (their lengths differ)")
    return users, ks, vals


def _rank_in_runs(sorted_ids: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... within each run of equal consecutive entries of ``sorted_ids`` (vectorized)."""
    n = sorted_ids.size
    starts = np.ones(n, dtype=bool)
    starts[1:] = sorted_ids[1:] != sorted_ids[:-1]
    first = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    return np.arange(n) - first


def _bound_mask(uid: np.ndarray, kid: np.ndarray, m: int, c: int, gen: np.random.Generator):
    """Boolean mask of the rows kept by contribution bounding; ``uid``/``kid`` are int codes."""
    n = uid.size
    # Per partition: order each (user, key) group's rows by a uniformly random permutation, keep ranks < c.
    n_keys = int(kid.max()) + 1
    if (int(uid.max()) + 1) * n_keys * n < 2**62:   # one int64 sort key: (user, key, random rank)
        order = np.argsort((uid.astype(np.int64) * n_keys + kid) * n + gen.permutation(n))
    else:
        order = np.lexsort((gen.permutation(n), kid, uid))
    su, sk = uid[order], kid[order]
    new_pair = np.ones(n, dtype=bool)
    new_pair[1:] = (su[1:] != su[:-1]) | (sk[1:] != sk[:-1])
    pair = np.cumsum(new_pair) - 1                  # id of the (user, key) pair of each sorted row
    first = np.maximum.accumulate(np.where(new_pair, np.arange(n), 0))
    keep_row = (np.arange(n) - first) < c
    # Across partitions: order each user's distinct keys by a uniformly random permutation, keep ranks < m.
    pair_user = su[new_pair]
    n_pairs = pair_user.size
    order2 = np.lexsort((gen.permutation(n_pairs), pair_user))
    keep_pair = np.empty(n_pairs, dtype=bool)
    keep_pair[order2] = _rank_in_runs(pair_user[order2]) < m
    mask = np.empty(n, dtype=bool)
    mask[order] = keep_row & keep_pair[pair]
    return mask


def bound_contributions(user_ids, keys, values=None, *, max_partitions, max_per_partition, rng=None):
    """Keep at most ``max_partitions`` keys per user and ``max_per_partition`` rows per (user, key).

    Each user's set of distinct keys is subsampled uniformly at random (without replacement) down to
    ``max_partitions`` keys, and within each kept key the user's rows are subsampled uniformly down to
    ``max_per_partition`` rows; users under the limits keep all their rows. Every user is treated
    independently of every other user, so under the **add/remove-one-user** relation the bounded datasets
    of neighbours differ by the bounded rows of one user: at most ``max_partitions`` keys, each with at most
    ``max_per_partition`` rows (lemma ``scale-lem-bounding`` of the chapter "From the course to
    production"; this is the bounding of Wilson et al. 2020 and of PipelineDP). A count per key then has
    l0 sensitivity ``max_partitions`` and l-infinity sensitivity ``max_per_partition``.

    This step releases nothing: it is the pre-processing that makes the sensitivities of
    :func:`dp_group_by` finite. It biases counts and sums downwards for heavy users (see the chapter).
    Vectorized: two lexicographic sorts with random permutations as tie-breakers, no loop over rows.

    Parameters
    ----------
    user_ids : array_like, shape (n,)
        The privacy id of each row (ints or strings), the unit of privacy.
    keys : array_like, shape (n,)
        The partition key of each row (ints or strings).
    values : array_like of floats, shape (n,), optional
        A finite value per row, carried along with the kept rows.
    max_partitions : int
        Largest number of distinct keys kept per user, >= 1.
    max_per_partition : int
        Largest number of rows kept per (user, key), >= 1.
    rng : None, int or numpy.random.Generator, optional
        Source of the uniform subsampling.

    Returns
    -------
    (user_ids, keys, values) : tuple of numpy.ndarray
        The kept rows, in their original order (``values`` is None if not given).

    Examples
    --------
    >>> u, k, v = bound_contributions([1, 1, 1, 2], ["a", "a", "b", "a"], [1., 2., 3., 4.],
    ...                               max_partitions=2, max_per_partition=1, rng=0)
    >>> len(u)
    3
    """
    users, ks, vals = _columns(user_ids, keys, values, need_values=False, allow_empty=True)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    gen = as_rng(rng)
    uid = np.unique(users, return_inverse=True)[1].ravel()
    kid = np.unique(ks, return_inverse=True)[1].ravel()
    mask = _bound_mask(uid, kid, m, c, gen) if users.size else np.zeros(0, dtype=bool)  # an empty table too
    return users[mask], ks[mask], (None if vals is None else vals[mask])


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


def _check_user_counts(n_users) -> np.ndarray:
    arr = check_real_array(n_users, "n_users", allow_empty=True)
    if arr.size and (np.any(arr < 0) or np.any(arr != np.floor(arr))):
        raise ValueError("n_users must hold whole numbers >= 0 (user counts)")
    return arr.astype(np.int64)


def partition_selection_probability(n_users, epsilon, delta, *, max_partitions=1):
    """Probability of keeping a partition that has ``n_users`` distinct users: the optimal rule.

    With ``eps1 = epsilon / max_partitions`` and ``delta1 = 1 - (1 - delta)**(1 / max_partitions)``,
    the keep probability p(n) is the largest sequence with p(0) = 0 and, for every n >= 1,
    ``p(n) <= e^eps1 p(n-1) + delta1`` and ``1 - p(n-1) <= e^eps1 (1 - p(n)) + delta1``: it is
    ``delta1 (e^(n eps1) - 1) / (e^eps1 - 1)`` up to a crossover, then rises geometrically to 1
    (Desfontaines, Voss, Gipson & Mandayam 2022, theorem 1; theorem ``scale-thm-optimal-selection`` of the
    chapter "From the course to production"). Keeping each partition independently with p(n) is
    (epsilon, delta)-DP under **add/remove one user** when each user contributes to at most
    ``max_partitions`` partitions: each of the user's partitions is (eps1, delta1)-DP and m-fold
    composition of (eps1, delta1) gives (m eps1, 1 - (1 - delta1)**m) = (epsilon, delta) (Kairouz, Oh &
    Viswanath 2015). This is the rule and the per-partition split of Google's differential-privacy
    library (``probability_of_keep`` of its truncated-geometric strategy, which the tests compare to 1e-9).

    This function computes the real-valued rule in floating point, for plots and comparisons; **no
    release draws with it**. A coin with these float probabilities is not (epsilon, delta)-DP at large
    eps1: a rounding of 2**-53 in p(n) near 1 is multiplied by e^eps1 in the second constraint (at
    eps1 = 20, delta = 1e-12 the float coin ``rng.random() < p`` meets delta = 9.3e-9 only).
    :func:`select_partitions` and :func:`dp_group_by` draw with the exact thresholds of
    :func:`partition_selection_thresholds`, which meet the constraints exactly and are at most p(n).

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
        Probabilities in [0, 1], non-decreasing in ``n_users``, 0 at n = 0.

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
_SEQUENCES: dict = {}                            # greedy threshold sequences, built to saturation

#: Most steps n of the certified threshold sequence T(n) one setting may need before T(n) = K (3-6 s of
#: integer arithmetic at 3-6 microseconds a step; epsilon = 0.01, delta = 1e-12 split over 150 partitions needs
#: 6.6e5): a setting (epsilon / max_partitions, delta) whose sequence would be longer is refused
#: by name before anything is built. The length depends on the public parameters only (219 at epsilon1 = 0.1,
#: delta = 1e-6; 1.5e5 at epsilon1 = 0.01, delta = 5e-324; about 1 / delta1 as epsilon1 -> 0).
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


def _refuse_long_selection(eps1: float, delta: float, m: int, steps) -> None:
    raise ValueError(
        f"partition selection at epsilon / max_partitions = {eps1!r}, delta = {delta!r}, max_partitions = {m} "
        f"needs {steps} steps to certify its keep thresholds; at most SELECTION_MAX_STEPS = {SELECTION_MAX_STEPS} "
        "(the cap on one call's work, 3-6 s): raise epsilon or delta, or lower max_partitions "
        "(the number of steps grows like 2 log(epsilon1 / delta1) / epsilon1, and like 1 / delta1 as epsilon1 -> 0)")


def _threshold_sequence(a: int, d: int, k: int, n_max=None) -> list:
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


def _selection_sequence(eps1: float, delta1: float, delta: float, m: int, n_max=None):
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


def _thresholds_for(counts: np.ndarray, eps1: float, delta1: float, delta: float, m: int, n_max=None):
    """The thresholds T(counts) (a list aligned with ``counts.ravel()``), K, and the parameters used."""
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


def partition_selection_thresholds(n_users, epsilon, delta, *, max_partitions=1):
    """The exact keep probabilities that :func:`select_partitions` and :func:`dp_group_by` draw with.

    With ``K = 2**k`` (k a multiple of 64 with ``K delta1 >= 2**64``), a rational ``L = A / 2**256`` at or
    below ``e^(epsilon / max_partitions)`` and an integer ``D`` with ``1 - (1 - D/K)**max_partitions <=
    delta`` (both certified with integer arithmetic), the thresholds are the greedy integer rule
    ``T(0) = 0``, ``T(n) = min(floor(L T(n-1) + D), K - ceil((K - T(n-1) - D) / L), K)``.
    Each term is the largest integer meeting one constraint of theorem ``scale-thm-optimal-selection``,
    so ``T(n)/K`` meets ``p(n) <= e^eps1 p(n-1) + delta1`` and ``1 - p(n-1) <= e^eps1 (1 - p(n)) + delta1``
    **exactly**, and is non-decreasing; keeping each partition with probability ``T(n)/K`` is therefore
    (epsilon, delta)-DP under add/remove one user for every accepted epsilon > 0 and delta in (0, 1)
    (theorem ``scale-thm-exact-selection`` of the chapter "From the course to production"). ``T(n)/K`` is
    at most the real optimum :func:`partition_selection_probability` and, on the tested settings, within
    1e-9 of it. A tiny ``epsilon / max_partitions`` (below about 1e-58) is treated as 0, which is safe
    and gives ``T(n) = n D``; a huge one as ``k + 64`` (a smaller L is always safe; T then reaches K in
    three steps).

    Cost: a few microseconds of integer arithmetic per n, from 0 to the first n = N with T(n) = K, whatever
    the user counts asked for (every count >= N has T = K): the work, and so the run time of
    :func:`select_partitions` and :func:`dp_group_by`, depends on the public (epsilon, delta,
    max_partitions) only, never on a private count. N is 218 at eps1 = 0.1, delta = 1e-6 and grows like
    2 log(eps1 / delta1) / eps1 (the two regimes of the closed form), like 1 / delta1 as eps1 -> 0; the
    sequence is cached. For a setting with N above ``SELECTION_MAX_STEPS`` = 2**20 (3-6 s; known from an
    estimate of N made before anything is built, with a hard stop at the cap) :func:`select_partitions` and
    :func:`dp_group_by` refuse with a ValueError naming the parameters and the cap, on any data; this
    function, whose ``n_users`` are public, computes T(n) for n up to the cap and refuses larger n the same way.

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


def _check_exp_epsilon(exp_epsilon) -> Fraction:
    """A rational e^eps >= 1: a Fraction or an int exactly (no float overflow), else a finite real >= 1."""
    if isinstance(exp_epsilon, (Fraction, int)) and not isinstance(exp_epsilon, bool):
        e = Fraction(exp_epsilon)
        if e < 1:
            raise ValueError(f"exp_epsilon must be a real number >= 1 (a bound of e^epsilon), got {exp_epsilon!r}")
        return e
    return Fraction(check_real(exp_epsilon, "exp_epsilon", low=1.0))


def _check_thresholds(thresholds, big: int) -> list:
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


def achieved_selection_delta(thresholds, denominator, exp_epsilon, *, max_partitions=1) -> Fraction:
    """The delta that keep probabilities ``T(n) / K``, n = 0, 1, ..., len - 1, meet, exactly (a Fraction).

    delta1 is the largest violation of the four inequalities of theorem ``scale-thm-optimal-selection``
    (``p(n) <= e p(n-1) + delta1``, ``1 - p(n-1) <= e (1 - p(n)) + delta1`` and the two exchanged ones)
    over consecutive n with ``e = exp_epsilon`` (a rational), computed in integers; the result is the
    m-fold composition ``1 - (1 - delta1)**m`` (exact up to m = 1000; above, ``(1 - delta1)**m`` is bounded
    from below in fixed point with 64 guard bits, so the result is an upper bound, in milliseconds even at
    m = 2**64). With ``exp_epsilon`` at or below e^(epsilon/m) it is an upper bound of the delta the rule
    meets on those n (it checks the coins, not the float formula).

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


def select_partitions(user_ids, keys, epsilon, delta, *, max_partitions=1, rng=None):
    """Release the set of keys kept by optimal private partition selection.

    Each distinct key with n distinct users is kept independently with probability
    :func:`partition_selection_probability` ``(n, epsilon, delta, max_partitions=max_partitions)``.
    (epsilon, delta)-DP under **add/remove one user** (theorem ``scale-thm-optimal-selection``;
    Desfontaines et al. 2022), provided no user has more than ``max_partitions`` distinct keys: this is
    checked, and a violation raises instead of releasing (run :func:`bound_contributions` first).
    Keys with no user are never kept, so a key that only one user has is released with probability at
    most delta1 (the "delta" of the definition at work). The coin is exact: a key with n users is kept
    iff a uniform integer U on {0, ..., K - 1}, drawn as ``rng.integers(0, 2**64, size=(n_keys, k // 64),
    dtype=np.uint64)`` (one row per sorted key, most significant word first), is below the threshold
    T(n) of :func:`partition_selection_thresholds`; so P(keep) = T(n)/K exactly, for every numpy bit
    generator, and the (epsilon, delta) guarantee holds exactly for every accepted epsilon > 0 and delta
    in (0, 1) (theorem ``scale-thm-exact-selection``). The thresholds are computed up to saturation from
    (epsilon, delta, max_partitions) alone, so the run time does not depend on the user counts; a setting
    that needs more than ``SELECTION_MAX_STEPS`` = 2**20 of them is refused (ValueError naming the
    parameters and the cap) before the data is looked at, for every table (see
    :func:`partition_selection_thresholds`).

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

    Returns
    -------
    numpy.ndarray
        The kept keys, sorted.

    Examples
    --------
    >>> users = np.repeat(np.arange(500), 2)
    >>> keys = np.tile(["big", "tiny"], 500); keys[1::2][1:] = "big"
    >>> select_partitions(users, keys, 1.0, 1e-6, max_partitions=1, rng=0)
    Traceback (most recent call last):
    ...
    ValueError: every user must contribute to at most max_partitions=1 partitions: bound the contributions first (bound_contributions)
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


# ----------------------------------------------------------------------------------------------------
# End-to-end release.


def _check_metrics(metrics) -> tuple[str, ...]:
    if isinstance(metrics, str) or not isinstance(metrics, (tuple, list)):
        raise TypeError(f"metrics must be a tuple of names from {_METRICS}, got {type(metrics).__name__} "
                        f"{metrics!r}")
    if len(metrics) == 0:
        raise ValueError(f"metrics must name at least one of {_METRICS}")
    names = tuple(check_choice(x, "metrics entry", _METRICS) for x in metrics)
    if len(set(names)) != len(names):
        raise ValueError(f"metrics must not repeat a name, got {metrics!r}")
    return names


def group_by_noise_scales(epsilon, *, metrics=("count", "sum"), bounds=None, max_partitions,
                          max_per_partition, public_partitions=False, n_partitions=1):
    """Budget split and Laplace noise scales that :func:`dp_group_by` uses (deterministic, releases nothing).

    The total epsilon is split in equal parts between partition selection (unless the partitions are
    public) and each metric; the whole delta goes to partition selection. The count has l1 sensitivity
    ``max_partitions * max_per_partition`` (add/remove one user, after :func:`bound_contributions`) and
    gets discrete Laplace noise of scale ``l1 / eps_count``; the sum of values clamped to
    ``bounds = (lower, upper)`` has l1 sensitivity ``max_partitions * max_per_partition * max(|lower|,
    |upper|)`` and gets lattice Laplace noise, whose exact scale (slightly above ``l1 / eps_sum``, because
    rounding to the lattice is charged to the sensitivity; see :func:`dpcourse.laplace_lattice`) is
    reported for ``n_partitions`` released partitions. Theorem ``scale-thm-group-by``.

    Returns
    -------
    dict
        ``epsilon_selection``, ``epsilon_count``/``epsilon_sum`` (for the metrics asked), and
        ``count_scale``, ``count_std`` (sqrt of the discrete Laplace variance), ``sum_scale``, ``sum_std``.

    Examples
    --------
    >>> s = group_by_noise_scales(1.5, max_partitions=2, max_per_partition=3, bounds=(0, 10))
    >>> s["epsilon_count"], s["count_scale"]
    (0.5, 12.0)
    """
    eps = check_epsilon(epsilon)
    names = _check_metrics(metrics)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    if not isinstance(public_partitions, (bool, np.bool_)):
        raise TypeError(f"public_partitions must be True or False, got {public_partitions!r}")
    k = check_positive_int(n_partitions, "n_partitions")
    parts = len(names) + (0 if public_partitions else 1)
    share = eps / parts
    out = {"epsilon_selection": 0.0 if public_partitions else share}
    if "count" in names:
        b = m * c / share if share > 0.0 else math.inf
        if not b <= 2.0**50:   # the exact sampler's largest scale (discrete.SCALE_LIMIT); beyond, 1 - q is 0
            raise ValueError(f"the count noise scale max_partitions * max_per_partition / (epsilon / {parts}) must be "
                             f"at most 2**50, got max_partitions={m}, max_per_partition={c}, epsilon={epsilon!r}")
        q = math.exp(-1.0 / b)
        out.update(epsilon_count=share, count_scale=b, count_std=math.sqrt(2 * q) / (1 - q))
    if "sum" in names:
        if bounds is None:
            raise ValueError("bounds=(lower, upper) must be given for the metric 'sum'")
        lo, hi = _check_pair(bounds)
        sens = m * c * max(abs(lo), abs(hi))
        lat = laplace_lattice(sens, share, dim=k)
        out.update(epsilon_sum=share, sum_scale=lat.noise_scale,
                   sum_std=math.sqrt(2.0) * lat.noise_scale)
    return out


def _check_pair(bounds) -> tuple[float, float]:
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise TypeError(f"bounds must be a pair (lower, upper), got {type(bounds).__name__} {bounds!r}")
    lo, hi = check_bounds(bounds[0], bounds[1], "bounds[0]", "bounds[1]")
    if max(abs(lo), abs(hi)) == 0:
        raise ValueError("bounds must not both be 0")
    return lo, hi


def dp_group_by(user_ids, keys, values, epsilon, delta, *, metrics=("count", "sum"), bounds=None,
                max_partitions, max_per_partition, public_partitions=None, rng=None):
    """Release noisy per-key counts and clamped sums, (epsilon, delta)-DP at the user level.

    Unit of privacy: the user (``user_ids``); neighbours differ by **all the rows of one user**
    (add/remove one user). The steps (theorem ``scale-thm-group-by`` of the chapter "From the course to
    production"; the design of Wilson et al. 2020 and of PipelineDP):

    1. :func:`bound_contributions` with ``max_partitions`` (m) and ``max_per_partition`` (c);
    2. partition selection: each key is kept with the exact probability T(n)/K of
       :func:`partition_selection_thresholds` (at most :func:`partition_selection_probability`) of its
       number n of distinct users, by the exact integer coin of :func:`select_partitions`, with budget
       (epsilon / (k + 1), delta) for k metrics, unless
       ``public_partitions`` lists the keys to release (then every listed key is released, rows with
       other keys are dropped first, and epsilon is split between the metrics only, delta unused);
    3. "count": number of bounded rows per kept key plus exact discrete Laplace noise
       (:func:`dpcourse.geometric_mechanism`) of scale m c / eps_count;
    4. "sum": sum of values clamped to ``bounds`` plus exact lattice Laplace noise
       (:func:`dpcourse.laplace_mechanism`, ``secure=True``) for l1 sensitivity m c max(|lower|, |upper|).

    Budget split: epsilon in equal parts between selection and each metric, the whole delta to selection
    (what PipelineDP's ``NaiveBudgetAccountant`` does with equal weights and Laplace noise). Sequential
    composition of the three steps gives (epsilon, delta); the chapter proves it.

    Parameters
    ----------
    user_ids, keys : array_like, shape (n,)
        Privacy id and partition key of each row (ints or strings).
    values : array_like of floats, shape (n,), or None
        Values to sum (may be None if "sum" is not asked).
    epsilon : float
        Total epsilon, > 0.
    delta : float
        Total delta, in (0, 1) with private partition selection; in [0, 1) with public partitions.
    metrics : tuple of str, default ("count", "sum")
    bounds : (float, float)
        Public clamping bounds of the values, lower < upper; required for "sum".
    max_partitions, max_per_partition : int
        Contribution bounds m and c, >= 1.
    public_partitions : array_like, optional
        Keys known without looking at the data (released whether or not they occur).
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    dict
        ``keys`` (sorted released keys), ``count`` (int64 array) and/or ``sum`` (float array) aligned
        with ``keys``, and ``scales`` (:func:`group_by_noise_scales`).

    Examples
    --------
    >>> users = np.arange(4000) // 4; keys = np.arange(4000) % 2
    >>> out = dp_group_by(users, keys, np.ones(4000), 1.0, 1e-6, bounds=(0, 1), max_partitions=2,
    ...                   max_per_partition=2, rng=0)
    >>> out["keys"].tolist(), out["scales"]["count_scale"]
    ([0, 1], 12.0)
    """
    names = _check_metrics(metrics)
    users, ks, vals = _columns(user_ids, keys, values, need_values="sum" in names, allow_empty=True)
    eps = check_epsilon(epsilon)
    public = public_partitions is not None
    dlt = check_delta(delta, allow_zero=public)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    if "sum" in names:
        if bounds is None:
            raise ValueError("bounds=(lower, upper) must be given for the metric 'sum'")
        lo, hi = _check_pair(bounds)
    gen = as_rng(rng)
    per_partition = _per_partition_parameters(eps / (len(names) + 1), dlt, m)
    if not public:   # refused or not, whatever the data (an empty table too)
        _selection_sequence(*per_partition, dlt, m)
    if public:
        released = np.unique(_labels_column(public_partitions, "public_partitions"))
        if ks.size and released.dtype.kind != ks.dtype.kind and {released.dtype.kind, ks.dtype.kind} & {"U", "S"}:
            raise TypeError(f"public_partitions must hold the same kind of labels as keys, got dtype "
                            f"{released.dtype} and {ks.dtype}")
        inside = np.isin(ks, released)
        users, ks = users[inside], ks[inside]
        vals = None if vals is None else vals[inside]
    n_rows = users.size
    uid = np.unique(users, return_inverse=True)[1].ravel()
    key_values, kid = np.unique(ks, return_inverse=True)
    kid = kid.ravel()
    if n_rows:
        mask = _bound_mask(uid, kid, m, c, gen)
        uid, kid = uid[mask], kid[mask]
        vals = None if vals is None else vals[mask]
    if public:
        # Position of each bounded row's key among the released keys.
        kid = np.searchsorted(released, key_values[kid]) if n_rows else kid
        n_out = released.size
    else:
        if n_rows:
            counts_users = _user_counts(uid, kid, key_values.size)
            keep = _keep_decisions(counts_users, per_partition, dlt, m, gen)
        else:  # no rows: nothing to keep (the empty table neighbours every one-user table)
            keep = np.zeros(0, dtype=bool)
        released = key_values[keep]
        n_out = released.size
        new_index = np.cumsum(keep) - 1
        row_kept = keep[kid]
        kid = new_index[kid[row_kept]]
        vals = None if vals is None else vals[row_kept]
    scales = group_by_noise_scales(eps, metrics=names, bounds=bounds, max_partitions=m, max_per_partition=c,
                                   public_partitions=public, n_partitions=max(n_out, 1))
    out = {"keys": released if public else _released_keys(released), "scales": scales}
    if "count" in names:
        exact = np.bincount(kid, minlength=n_out).astype(np.int64)
        out["count"] = (geometric_mechanism(exact, m * c, scales["epsilon_count"], rng=gen) if n_out
                        else exact)
    if "sum" in names:
        exact = np.bincount(kid, weights=np.clip(vals, lo, hi), minlength=n_out)
        sens = m * c * max(abs(lo), abs(hi))
        out["sum"] = (np.atleast_1d(laplace_mechanism(exact, sens, scales["epsilon_sum"], rng=gen, secure=True))
                      if n_out else exact)
    return out


# ----------------------------------------------------------------------------------------------------
# Data.


def load_flights():
    """Flights that left New York City in January-March 2013: aircraft, destination, arrival delay.

    From the CC0 dataset ``nycflights13`` (US Bureau of Transportation Statistics; see
    ``dpcourse/data/SOURCES.md``): 77,911 completed flights of 3,560 aircraft to 96 destinations.
    The chapter treats the aircraft (``tailnum``) as the unit of privacy: it has many rows (a median of
    15 flights in the quarter, up to 186), as a user of a real service has many events.

    Returns
    -------
    dict
        ``month`` (1, 2 or 3), ``tailnum`` (str), ``dest`` (str, airport code) and ``arr_delay`` (float,
        minutes; negative is early), one entry per flight, in the order of departure.
        Public bounds for the delay: :data:`FLIGHT_DELAY_BOUNDS`.
    """
    return {name: column.copy() for name, column in _read_flights().items()}


@functools.lru_cache(maxsize=1)
def _read_flights() -> dict:
    raw = resources.files("dpcourse.data").joinpath("nycflights13_q1.csv.gz").read_bytes()
    fields = gzip.decompress(raw).decode("ascii").strip().replace("\n", ",").split(",")
    header, table = fields[:4], np.array(fields[4:]).reshape(-1, 4)
    if header != ["month", "tailnum", "dest", "arr_delay"]:
        raise ValueError(f"unexpected columns {header} in nycflights13_q1.csv.gz")
    return {"month": table[:, 0].astype(np.int64), "tailnum": table[:, 1], "dest": table[:, 2],
            "arr_delay": table[:, 3].astype(np.float64)}


def synthetic_events(n_rows, *, n_keys=1000, rows_per_user=20.0, tail=1.5, zipf=1.1, rng=None):
    """A realistic synthetic event log: heavy-tailed rows per user, Zipf-distributed keys.

    Users get activity weights ``1 + Pareto(tail)`` (a few users have very many rows, most have few);
    each of the ``n_rows`` rows picks its user with probability proportional to the weight (about
    ``n_rows / rows_per_user`` users) and its key among ``n_keys`` with probability proportional to
    ``1 / rank**zipf``; values are Gamma(2, 5) (mean 10, a "spend per event"). Used by the benchmarks for
    10^4 to 10^6 rows; not private data.

    Returns
    -------
    dict
        ``user_id`` (int64), ``key`` (int64) and ``value`` (float64) arrays of length ``n_rows``.

    Examples
    --------
    >>> d = synthetic_events(1000, rng=0)
    >>> sorted(d), bool(d["key"].max() < 1000)
    (['key', 'user_id', 'value'], True)
    """
    n = check_positive_int(n_rows, "n_rows")
    k = check_positive_int(n_keys, "n_keys")
    per = check_real(rows_per_user, "rows_per_user", low=1.0)
    a = check_real(tail, "tail", low=0.0, low_open=True)
    z = check_real(zipf, "zipf", low=0.0)
    gen = as_rng(rng)
    n_users = max(1, int(round(n / per)))
    w = 1.0 + gen.pareto(a, n_users)
    cw = np.cumsum(w)
    users = np.searchsorted(cw, gen.random(n) * cw[-1], side="right")
    kp = np.cumsum(1.0 / np.arange(1, k + 1) ** z)
    keys = np.searchsorted(kp, gen.random(n) * kp[-1], side="right")
    return {"user_id": np.minimum(users, n_users - 1).astype(np.int64),
            "key": np.minimum(keys, k - 1).astype(np.int64),
            "value": gen.gamma(2.0, 5.0, n)}


# ----------------------------------------------------------------------------------------------------
# The same release on PipelineDP (Google's C++ DP library underneath), locally or on Apache Beam.


def quiet_beam_import():
    """Import ``apache_beam`` and ``pipeline_dp`` with the root logger's import-time warning silenced.

    Beam logs "apitools not found ..." on the root logger when it is imported (harmless: it concerns the
    Google Cloud I/O connectors). Returns the two modules ``(beam, pipeline_dp)``.
    """
    import logging

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        import apache_beam as beam
        import pipeline_dp
    finally:
        root.setLevel(level)
    return beam, pipeline_dp


@contextlib.contextmanager
def _as_a_script():
    """Run Beam as it runs from a script, also inside Jupyter.

    In an IPython kernel Beam switches on its notebook integration (cell labels, pipeline tracking),
    which imports pandas; the course does not install pandas, and the integration is not needed to run a
    pipeline. Beam's "am I in IPython?" checks answer no while the block runs, and are restored after.
    """
    import importlib

    names = [("apache_beam.utils.interactive_utils", "is_in_ipython"), ("apache_beam.pipeline", "is_in_ipython"),
             ("apache_beam.runners.direct.direct_runner", "is_in_ipython"),
             ("apache_beam.utils.interactive_utils", "is_in_notebook"),
             ("apache_beam.runners.portability.fn_api_runner.worker_handlers", "is_in_notebook")]
    saved = []
    for module_name, attr in names:
        module = importlib.import_module(module_name)
        saved.append((module, attr, getattr(module, attr)))
        setattr(module, attr, lambda: False)
    try:
        yield
    finally:
        for module, attr, value in saved:
            setattr(module, attr, value)


def pipeline_dp_group_by(user_ids, keys, values, epsilon, delta, *, bounds, max_partitions, max_per_partition,
                         public_partitions=None, backend="local"):
    """The release of :func:`dp_group_by` (count and sum) written with PipelineDP, on a local or Beam backend.

    Same unit of privacy (the user), same contribution bounds, same budget split (PipelineDP's
    ``NaiveBudgetAccountant`` gives epsilon/3 to each of partition selection, count and sum and the whole
    delta to selection), same Laplace scales, same optimal partition selection (Google's truncated
    geometric strategy). ``backend="local"`` runs :class:`pipeline_dp.LocalBackend` (plain Python
    iterators); ``backend="beam"`` builds an Apache Beam pipeline and runs it on the local
    ``DirectRunner`` (results are written to a temporary folder and read back; inside Jupyter, Beam's
    notebook integration, which needs pandas, is kept off). PipelineDP's noise comes
    from the C++ library's secure generator and **cannot be seeded**: two runs differ.

    Returns
    -------
    dict
        ``keys`` (sorted), ``count`` and ``sum`` (float arrays aligned with ``keys``), and ``report``
        (PipelineDP's explain-computation text, which states each mechanism's Laplace parameter).
    """
    users, ks, vals = _columns(user_ids, keys, values, need_values=True)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=public_partitions is not None)
    lo, hi = _check_pair(bounds)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    which = check_choice(backend, "backend", ("local", "beam"))
    beam, pipeline_dp = quiet_beam_import()
    rows = list(zip(users.tolist(), ks.tolist(), vals.tolist()))
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=eps, total_delta=dlt)
    params = pipeline_dp.AggregateParams(noise_kind=pipeline_dp.NoiseKind.LAPLACE,
                                         metrics=[pipeline_dp.Metrics.COUNT, pipeline_dp.Metrics.SUM],
                                         max_partitions_contributed=m, max_contributions_per_partition=c,
                                         min_value=lo, max_value=hi)
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda row: row[0],
                                            partition_extractor=lambda row: row[1],
                                            value_extractor=lambda row: row[2])
    report = pipeline_dp.report_generator.ExplainComputationReport()
    public = None if public_partitions is None else _labels_column(public_partitions, "public_partitions").tolist()
    if which == "local":
        engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
        result = engine.aggregate(rows, params, extractors, public_partitions=public,
                                  out_explain_computation_report=report)
        accountant.compute_budgets()
        out = [(k, r.count, r.sum) for k, r in result]
    else:
        import ast
        import pathlib
        import tempfile

        with tempfile.TemporaryDirectory() as folder, _as_a_script():
            with beam.Pipeline(runner="DirectRunner") as pipeline:
                engine = pipeline_dp.DPEngine(accountant, pipeline_dp.BeamBackend())
                result = engine.aggregate(pipeline | beam.Create(rows), params, extractors,
                                          public_partitions=public, out_explain_computation_report=report)
                accountant.compute_budgets()
                (result | beam.Map(lambda kv: repr((kv[0], float(kv[1].count), float(kv[1].sum))))
                 | beam.io.WriteToText(str(pathlib.Path(folder) / "part")))
            out = [ast.literal_eval(line) for path in sorted(pathlib.Path(folder).glob("part*"))
                   for line in path.read_text().splitlines()]
    out.sort(key=lambda t: t[0])
    return {"keys": np.array([t[0] for t in out]), "count": np.array([t[1] for t in out], dtype=float),
            "sum": np.array([t[2] for t in out], dtype=float), "report": report.text()}


def pipeline_dp_laplace_parameters(report: str) -> dict:
    """The Laplace parameters (scales b) PipelineDP states in an explain-computation report, by metric."""
    import re

    found = re.findall(r"Computed DP (\w+) with\s+Laplace mechanism:\s+parameter=([0-9.e+-]+)", report)
    return {name: float(b) for name, b in found}
