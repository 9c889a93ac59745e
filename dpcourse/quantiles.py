"""Beyond global sensitivity: private quantiles, local and smooth sensitivity, propose-test-release, sample-and-aggregate.

Everything here is proved in the chapter "Medians and quantiles" (``chapters/14_quantiles``):

* :func:`dp_quantile`, :func:`dp_median`, :func:`dp_quantile_probabilities`: the exponential mechanism over
  the intervals between sorted data points (Smith 2011), on a public grid of ``resolution + 1`` candidate
  outputs; privacy in theorem ``thm-quant-em-privacy``, accuracy in rank in theorem ``thm-quant-rank-accuracy``
  (:func:`quantile_rank_error_bound`).
* :func:`local_sensitivity`, :func:`smooth_sensitivity` of the median (Nissim, Raskhodnikova & Smith 2007,
  lemma ``lem-quant-ak``), and :func:`smooth_median`, the median released with noise scaled to its smooth
  sensitivity (theorem ``thm-quant-smooth-release``).
* :func:`distance_to_instability`, :func:`propose_test_release`: propose-test-release for the median
  (Dwork & Lei 2009; theorem ``thm-quant-ptr``).
* :func:`sample_and_aggregate` (Nissim, Raskhodnikova & Smith 2007; theorem ``thm-quant-sa``).

The median of ``n`` values is the order statistic ``x_(m)`` with ``m = ceil(n / 2)`` (the lower median when
``n`` is even), after clamping every value to the public interval ``[lower, upper]``. All guarantees are
stated for the **replace-one** relation (``n`` is public); :func:`dp_quantile` has the same guarantee under
add/remove (see its docstring).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    MAX_SIZE,
    as_rng,
    check_size,
    WIDE_BOUNDS,
    check_bounds,
    check_callable,
    check_choice,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_real,
    check_real_array,
)
from . import portable
from ._sampling import _round_up
from .discrete import discrete_laplace
from .lattice import laplace_lattice, lattice_release
from .laplace import laplace_mechanism

__all__ = [
    "dp_quantile",
    "dp_median",
    "dp_quantile_probabilities",
    "dp_quantile_sampling_error",
    "quantile_rank_error_bound",
    "local_sensitivity",
    "smooth_sensitivity",
    "smooth_median",
    "smooth_median_beta",
    "distance_to_instability",
    "ptr_threshold",
    "propose_test_release",
    "sample_and_aggregate",
    "QuantileProbabilities",
    "QuantileSamplingError",
]

DEFAULT_RESOLUTION = 2**20
_MAX_RESOLUTION = 2**22


class QuantileProbabilities(NamedTuple):
    """The output law of :func:`dp_quantile`, interval by interval (:func:`dp_quantile_probabilities`)."""

    starts: np.ndarray         # int64, n + 2 entries: interval i holds the candidates starts[i] <= k < starts[i + 1]
    probabilities: np.ndarray  # float64, n + 1 entries summing to 1: probability of interval i


class QuantileSamplingError(NamedTuple):
    """How far :func:`dp_quantile`'s sampler is from the ideal law (:func:`dp_quantile_sampling_error`)."""

    eta: float    # total variation between the integer weights' law and the ideal one
    d: float      # l1 error of the float interval probabilities
    bound: float  # the proven bound (n + 1) 2**-61 + d on eta


# ----------------------------------------------------------------------------------------------------
# The interval exponential mechanism.


def _check_resolution(resolution: int) -> int:
    res = check_positive_int(resolution, "resolution")
    if res > _MAX_RESOLUTION:
        raise ValueError(f"resolution must be an integer in [1, {_MAX_RESOLUTION}], got {res}")
    return res


def _check_size(size):
    return check_size(size, allow_none=True)  # None or an int in [1, MAX_SIZE]


def _grid(lo: float, hi: float, resolution: int) -> np.ndarray:
    """The public candidates ``y_k = lo (1 - k/K) + hi k/K``, k = 0..K, made non-decreasing, ends exact.

    Computed without forming ``hi - lo`` (which overflows for bounds near +-1.8e308). A deterministic
    function of public numbers only.
    """
    t = np.arange(resolution + 1, dtype=np.float64) / resolution  # exact: resolution is a power of two or small
    g = lo * (1.0 - t) + hi * t
    g[0], g[-1] = lo, hi
    return np.maximum.accumulate(g)


def _quantile_setup(x, q, lower, upper, epsilon, resolution):
    """Validate; return (grid, pos, log_weights) of the interval mechanism.

    ``pos`` has n + 2 entries: candidates ``k`` in ``[pos[i], pos[i+1])`` are those with exactly ``i`` data
    values strictly below ``y_k`` (interval ``i``). ``log_weights[i] = log(count_i) - epsilon |i - q n| / 2``
    (-inf for an empty interval).
    """
    # n = 0 is answered (a uniform draw on the grid): under add/remove, [] and [v] are neighbours.
    values = check_real_array(x, "x", ndim=1, allow_empty=True)
    qq = check_probability(q, "q")
    lo, hi = check_bounds(lower, upper)
    eps = check_epsilon(epsilon)
    res = _check_resolution(resolution)
    grid = _grid(lo, hi, res)
    data = np.sort(np.clip(values, lo, hi))
    n = data.size
    pos = np.empty(n + 2, dtype=np.int64)
    pos[0] = 0
    pos[1:-1] = np.searchsorted(grid, data, side="right")   # #{k : y_k <= x_(j)}
    pos[-1] = res + 1
    counts = np.diff(pos)
    ranks = np.arange(n + 1, dtype=np.float64)
    utility = -np.abs(ranks - qq * n)
    # portable: the weights decide which sample a seeded release draws, so they must not depend on
    # which exp/log code numpy picks for this CPU (the same seed releases the same value everywhere)
    logw = portable.log(counts.astype(np.float64)) + (eps / 2.0) * utility
    return grid, pos, logw


def _probabilities_from_logw(logw: np.ndarray) -> np.ndarray:
    top = logw.max()
    w = portable.exp(logw - top)
    return w / portable.pairwise_sum(w)


def _integer_weights(p: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``W_i = floor(p_i 2**62) + 1`` for every non-empty interval, 0 for an empty one (int64, sum < 2**63).

    The ``+ 1`` keeps every grid point possible whatever the data, even where ``p_i`` underflows: no output
    of one dataset is impossible under a neighbour (chapter "Noise on a real computer").
    """
    weights = np.floor(p * 2.0**62).astype(np.int64)          # every p <= 1: no overflow; sum <= 2**62 sum(p)
    return weights + (counts > 0)


def dp_quantile_probabilities(x: ArrayLike, q: float, lower: float, upper: float, epsilon: float, *,
                              resolution: int = DEFAULT_RESOLUTION) -> QuantileProbabilities:
    """Exact output distribution of :func:`dp_quantile`, interval by interval.

    The candidates are the ``resolution + 1`` public grid points ``y_0 = lower < ... < y_K = upper``
    (``K = resolution``). Candidate ``k`` has utility ``u(k) = -|c_k - q n|`` with
    ``c_k = #{j : x_j < y_k}`` (the data clamped to ``[lower, upper]``), and probability proportional to
    ``exp(epsilon u(k) / 2)``. Candidates with the same ``c_k = i`` form interval ``i`` (between the
    i-th and (i+1)-th sorted values); they share one utility, so interval ``i`` has probability
    proportional to ``count_i exp(-epsilon |i - q n| / 2)`` (theorem ``thm-quant-em-privacy``, for the
    replace-one and add/remove relations). A diagnostic: it reads the data and is not private.

    Parameters
    ----------
    x, q, lower, upper, epsilon, resolution
        As in :func:`dp_quantile`.

    Returns
    -------
    QuantileProbabilities
        A named tuple ``(starts, probabilities)``. ``starts`` (int64, n + 2 entries): interval ``i`` holds the
        candidates ``k`` with ``starts[i] <= k < starts[i + 1]``; ``probabilities`` (float64, n + 1 entries summing
        to 1): ``probabilities[i]`` is the probability of interval ``i``, shared equally by its candidates
        (0 for an empty interval).

    Examples
    --------
    >>> starts, p = dp_quantile_probabilities([1.0, 3.0], 0.5, 0.0, 4.0, 2.0, resolution=4)
    >>> starts.tolist()          # grid 0, 1, 2, 3, 4: c_k = 0, 0, 1, 1, 2
    [0, 2, 4, 5]
    >>> [round(float(v), 6) for v in p]  # weights 2 e^-1, 2, e^-1
    [0.237063, 0.644405, 0.118532]
    """
    _, pos, logw = _quantile_setup(x, q, lower, upper, epsilon, resolution)
    return QuantileProbabilities(pos, _probabilities_from_logw(logw))


def dp_quantile_sampling_error(x: ArrayLike, q: float, lower: float, upper: float, epsilon: float, *,
                               resolution: int = DEFAULT_RESOLUTION) -> QuantileSamplingError:
    """How far the law :func:`dp_quantile` draws from is from the ideal one (lemma ``lem-quant-sampling-error``).

    The ideal interval probabilities ``p*_i = count_i exp(-epsilon |i - q n| / 2) / Z`` are evaluated with
    50 significant digits (:mod:`decimal`), with the exact values of the float inputs. Against them this
    returns the float error ``d = sum_i |p_i - p*_i|`` of the computed probabilities ``p``
    (:func:`dp_quantile_probabilities`), the total variation ``eta = (1/2) sum_i |W_i / sum(W) - p*_i|`` of
    the integer weights the sampler really uses, and the proven bound ``(n + 1) 2**-61 + d`` on ``eta``; the
    release is (epsilon, (1 + e^epsilon) eta)-DP under replace-one and add/remove for the largest eta over the
    datasets. A diagnostic for the tests and the chapter: it reads the data and is not private.

    Parameters
    ----------
    x, q, lower, upper, epsilon, resolution
        As in :func:`dp_quantile`.

    Returns
    -------
    QuantileSamplingError
        A named tuple of floats ``(eta, d, bound)``.

    Examples
    --------
    >>> eta, d, bound = dp_quantile_sampling_error([1.0, 3.0], 0.5, 0.0, 4.0, 2.0, resolution=4)
    >>> eta <= bound < 1e-16
    True
    """
    import decimal

    _, pos, logw = _quantile_setup(x, q, lower, upper, epsilon, resolution)
    counts = np.diff(pos)
    p = _probabilities_from_logw(logw)
    weights = _integer_weights(p, counts)
    n = counts.size - 1
    ctx = decimal.Context(prec=50, Emin=-10**9, Emax=10**9)
    half_eps = ctx.divide(decimal.Decimal(float(epsilon)), 2)
    qn = ctx.multiply(decimal.Decimal(float(q)), n)
    m = int(qn)                                          # |i - qn| = (qn - m) + (m - i) for i <= m, else ...
    ratio = ctx.exp(-half_eps)                           # ... (i - qn) = (m + 1 - qn) + (i - m - 1): two
    factor = [decimal.Decimal(0)] * (n + 1)              # geometric sequences, 2 exp and n multiplications
    cur = ctx.exp(ctx.minus(ctx.multiply(half_eps, ctx.subtract(qn, m))))
    for i in range(m, -1, -1):
        factor[i], cur = cur, ctx.multiply(cur, ratio)
    cur = ctx.exp(ctx.minus(ctx.multiply(half_eps, ctx.subtract(m + 1, qn))))
    for i in range(m + 1, n + 1):
        factor[i], cur = cur, ctx.multiply(cur, ratio)
    ideal = [ctx.multiply(int(c), f) for c, f in zip(counts.tolist(), factor)]
    z = ctx.add(sum(ideal[1:], ideal[0]), 0)
    ideal = [ctx.divide(v, z) for v in ideal]
    total = int(weights.sum())
    d = sum(abs(ctx.subtract(decimal.Decimal(float(pi)), v)) for pi, v in zip(p.tolist(), ideal))
    eta = sum(abs(ctx.subtract(ctx.divide(int(w), total), v)) for w, v in zip(weights.tolist(), ideal)) / 2
    return QuantileSamplingError(float(eta), float(d), float(d + decimal.Decimal(n + 1) * decimal.Decimal(2) ** -61))


def dp_quantile(x: ArrayLike, q: float, lower: float, upper: float, epsilon: float, *,
                rng: np.random.Generator | int | None = None, size: int | None = None,
                resolution: int = DEFAULT_RESOLUTION) -> float | np.ndarray:
    """Release the q-quantile of ``x`` by the exponential mechanism: (epsilon, (1 + e^epsilon) eta)-DP as computed.

    The exponential mechanism over intervals (Smith 2011) on the public grid of ``resolution + 1`` points
    ``y_k = lower + k (upper - lower) / resolution``: with ``x`` clamped to ``[lower, upper]``, ``y_k`` is drawn with
    probability proportional to ``exp(-epsilon |c_k - q n| / 2)``, ``c_k`` the number of values strictly below
    ``y_k`` (:func:`dp_quantile_probabilities`); the grid point inside the drawn interval is an exact uniform draw.

    Guarantee, under **replace-one** and under **add/remove** (with ``n`` the actual size): the ideal mechanism is
    epsilon-DP (theorem ``thm-quant-em-privacy``). As implemented, the interval probabilities are computed in
    floating point and drawn exactly from the integer weights ``floor(p_i 2**62) + 1``; that law is within total
    variation ``eta <= (n + 1) 2**-61 + d`` of the ideal one, ``d`` the float error of the probabilities (lemma
    ``lem-quant-sampling-error``; about 1.5e-15 at n = 3000, epsilon = 1; :func:`dp_quantile_sampling_error`
    computes it), so the release is (epsilon, (1 + e^epsilon) eta)-DP. Every grid point keeps a positive
    probability whatever the data. Accuracy in rank: :func:`quantile_rank_error_bound` (``thm-quant-rank-accuracy``).

    Parameters
    ----------
    x : array_like of floats, shape (n,)
        The private values, finite (NaN or +-inf raise ValueError); n = 0 gives a uniform draw on the grid.
    q : float
        The quantile, in [0, 1] (0.5 for the median).
    lower, upper : float
        Public bounds, finite, ``lower < upper``, chosen without looking at the data; values outside are clamped.
    epsilon : float
        Privacy parameter, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.
    size : None or int, optional
        None for one release; an int in [1, MAX_SIZE] for that many independent releases (``size * epsilon``).
    resolution : int, default 2**20
        Number of grid steps K, 1 <= K <= 2**22; outputs are the grid points ``y_k``.

    Returns
    -------
    float or numpy.ndarray of float64
        One grid point, or ``size`` of them.

    Examples
    --------
    >>> out = dp_quantile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5, 0.0, 8.0, epsilon=1.0, rng=0, resolution=8)
    >>> out in [float(k) for k in range(9)]
    True
    >>> dp_quantile([1.0, 2.0], 0.5, 0.0, 8.0, 1.0, rng=0, size=3).shape
    (3,)
    """
    grid, pos, logw = _quantile_setup(x, q, lower, upper, epsilon, resolution)
    size = _check_size(size)
    gen = as_rng(rng)
    p = _probabilities_from_logw(logw)
    weights = _integer_weights(p, np.diff(pos))
    cum = np.cumsum(weights)
    total = int(cum[-1])                                       # >= floor(2**62 / (n + 1)) > 0
    m = 1 if size is None else size
    draws = gen.integers(0, total, size=m, dtype=np.int64)     # exact uniform on {0, ..., total - 1}
    interval = np.searchsorted(cum, draws, side="right")       # P(i) = W_i / total exactly
    start = pos[interval]
    k = start + gen.integers(0, pos[interval + 1] - start, dtype=np.int64)  # exact uniform in the interval
    out = grid[k]
    return float(out[0]) if size is None else out


def dp_median(x: ArrayLike, lower: float, upper: float, epsilon: float, *, rng: np.random.Generator | int | None = None,
              size: int | None = None, resolution: int = DEFAULT_RESOLUTION) -> float | np.ndarray:
    """Release the median of ``x``: :func:`dp_quantile` with ``q = 0.5``.

    Guarantee as for :func:`dp_quantile`, under replace-one and under add/remove: the ideal mechanism is
    epsilon-DP (theorem ``thm-quant-em-privacy``) and the release as computed (epsilon, (1 + e^epsilon) eta)-DP,
    eta the sampling error of the float weights (lemma ``lem-quant-sampling-error``).

    Parameters
    ----------
    x, lower, upper, epsilon, rng, size, resolution
        As in :func:`dp_quantile`.

    Returns
    -------
    float or numpy.ndarray of float64
        One grid point, or ``size`` of them.

    Examples
    --------
    >>> 0.0 <= dp_median([3.0, 1.0, 2.0], 0.0, 4.0, epsilon=1.0, rng=0) <= 4.0
    True
    """
    return dp_quantile(x, 0.5, lower, upper, epsilon, rng=rng, size=size, resolution=resolution)


def quantile_rank_error_bound(epsilon: float, beta: float, *, resolution: int = DEFAULT_RESOLUTION,
                              n_best: int = 1) -> float:
    """The rank-error excess ``t = (2 / epsilon) ln((resolution + 1) / (n_best beta))`` of theorem ``thm-quant-rank-accuracy``.

    With probability at least ``1 - beta``, the rank error ``|c - q n|`` of :func:`dp_quantile`'s output is
    below ``e* + t``, where ``e*`` is the smallest rank error of any grid point and ``n_best`` (>= 1) the
    number of grid points achieving it (``n_best = 1`` is always valid).

    Parameters
    ----------
    epsilon : float
        > 0.
    beta : float
        Failure probability, in (0, 1).
    resolution : int
        As in :func:`dp_quantile`.
    n_best : int
        A lower bound on the number of grid points with the smallest rank error, 1 <= n_best <= resolution + 1.

    Examples
    --------
    >>> round(quantile_rank_error_bound(1.0, 0.05, resolution=2**20), 3)
    33.717
    """
    eps = check_epsilon(epsilon)
    b = check_probability(beta, "beta", low_open=True, high_open=True)
    res = _check_resolution(resolution)
    nb = check_positive_int(n_best, "n_best")
    if nb > res + 1:
        raise ValueError(f"n_best must be an integer in [1, resolution + 1 = {res + 1}], got {nb}")
    return float(2.0 / eps * (math.log(res + 1) - math.log(nb) + math.log(1.0 / b)))


# ----------------------------------------------------------------------------------------------------
# Local and smooth sensitivity of the median.


def _padded_sorted(x, lower, upper):
    """(z, m, lo, hi): z = [lower, sorted clamped x, upper] so that z[j] = x_(j) for j = 0..n+1; m = ceil(n/2)."""
    values = check_real_array(x, "x", ndim=1)
    lo, hi = check_bounds(lower, upper, max_width=WIDE_BOUNDS)   # wider: differences and releases overflow to inf
    n = values.size
    z = np.empty(n + 2)
    z[0], z[-1] = lo, hi
    z[1:-1] = np.sort(np.clip(values, lo, hi))
    return z, (n + 1) // 2, lo, hi


def local_sensitivity(x: ArrayLike, lower: float, upper: float) -> float:
    """Local sensitivity of the median at ``x``: ``max(x_(m) - x_(m-1), x_(m+1) - x_(m))``.

    The median is ``x_(m)``, ``m = ceil(n / 2)``, of the values clamped to ``[lower, upper]``, with
    ``x_(0) = lower`` and ``x_(n+1) = upper``. ``LS(x)`` is the largest change of the median when one value
    is replaced (**replace-one**; lemma ``lem-quant-ak`` with k = 0, Nissim, Raskhodnikova & Smith 2007).
    It is a property of the data: releasing it, or noise scaled to it, is **not** differentially private
    (the chapter gives a neighbouring pair).

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 1
    lower, upper : float
        Public bounds, ``lower < upper``, ``upper - lower <= 2**1000`` (``WIDE_BOUNDS``).

    Returns
    -------
    float

    Examples
    --------
    >>> local_sensitivity([1.0, 2.0, 2.5, 6.0, 7.0], 0.0, 10.0)   # median 2.5; gaps 0.5 and 3.5
    3.5
    """
    z, m, _, _ = _padded_sorted(x, lower, upper)
    return float(max(z[m] - z[m - 1], z[m + 1] - z[m]))


def _smooth_sensitivity(z: np.ndarray, m: int, beta: float) -> float:
    """max over i <= m <= j, i < j, of exp(-beta (j - i - 1)) (z[j] - z[i]) (lemma lem-quant-ak).

    Pairs (i, j) with j - i = k + 1 are the terms of A^(k). Exact O(D^2) scan over a window i >= m - D,
    j <= m + D, where D is chosen so that every pair outside the window is dominated: its term is at
    most exp(-beta D) (upper - lower) <= a value already known (LS, the term k = 0, or the full range at
    k = n). Rows are processed in blocks, so memory stays O(block D).
    """
    n = z.size - 2
    rng_full = z[-1] - z[0]
    # exp(-beta k) for k = 0..n, once, by portable: the smooth sensitivity sets the noise scale, whose last
    # bit the exact sampler sees, so it must not depend on which exp numpy picks for this CPU
    decay = portable.exp(-beta * np.arange(n + 1, dtype=np.float64))
    best = max(z[m] - z[m - 1], z[m + 1] - z[m], rng_full * float(decay[n]))
    if beta == 0.0 or best <= 0.0:
        d_max = n + 1
    else:
        d_max = min(n + 1, int(math.ceil((math.log(rng_full) - math.log(best)) / beta)) + 1)
    i_idx = np.arange(max(0, m - d_max), m + 1)
    j_idx = np.arange(m, min(n + 1, m + d_max) + 1)
    block = max(1, 2_000_000 // max(1, j_idx.size))
    zj = z[j_idx]
    for s in range(0, i_idx.size, block):
        ii = i_idx[s:s + block, None]
        k = j_idx[None, :] - ii - 1
        val = np.where(k >= 0, (zj[None, :] - z[ii]) * decay[np.clip(k, 0, n)], 0.0)
        best = max(best, float(val.max()))
    return float(best)


def smooth_sensitivity(x: ArrayLike, lower: float, upper: float, beta: float) -> float:
    """The beta-smooth sensitivity of the median, computed exactly (Nissim, Raskhodnikova & Smith 2007).

    ``S(x) = max_{k >= 0} exp(-beta k) A^(k)(x)``, where ``A^(k)(x)`` is the largest local sensitivity
    over datasets at replace-one distance at most ``k`` from ``x``; for the median
    ``A^(k)(x) = max_{0 <= t <= k+1} (x_(m+t) - x_(m+t-k-1))`` with ``x_(j) = lower`` for ``j <= 0`` and
    ``upper`` for ``j > n`` (lemma ``lem-quant-ak``). ``S`` is the smallest beta-smooth upper bound on the
    local sensitivity: ``S(x) >= LS(x)`` and ``S(x) <= e^beta S(x')`` for replace-one neighbours.

    Computed as the maximum over pairs ``i <= m <= j`` of ``exp(-beta (j - i - 1)) (x_(j) - x_(i))``, an
    exact scan restricted to the pairs that can beat a lower bound already known (O(n^2) in the worst
    case, O(D^2) when the answer is reached within distance D).

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 1
    lower, upper : float
        Public bounds, ``lower < upper``, ``upper - lower <= 2**1000`` (``WIDE_BOUNDS``).
    beta : float
        Smoothness parameter, >= 0 (beta = 0 gives the global sensitivity ``upper - lower``).

    Returns
    -------
    float
        ``S(x)`` (it can underflow to 0.0 for very large ``beta n``; :func:`smooth_median` floors it).

    Examples
    --------
    >>> smooth_sensitivity([1.0, 2.0, 2.5, 6.0, 7.0], 0.0, 10.0, beta=0.0)
    10.0
    >>> round(smooth_sensitivity([1.0, 2.0, 2.5, 6.0, 7.0], 0.0, 10.0, beta=1.0), 6)  # max(3.5, e^-1 * 5, ...)
    3.5
    """
    z, m, _, _ = _padded_sorted(x, lower, upper)
    b = check_real(beta, "beta", low=0.0)
    return _smooth_sensitivity(z, m, b)


def smooth_median_beta(epsilon: float, delta: float) -> float:
    """The smoothness ``beta = min(epsilon / 2, ln(1 + epsilon / (2 ln(2 / delta))))`` of :func:`smooth_median`.

    Theorem ``thm-quant-smooth-release``: with noise ``(2 S / epsilon) Z``, Z discrete Laplace on a fine
    lattice, a beta-smooth upper bound S with this beta gives (epsilon, delta)-DP. Nissim, Raskhodnikova &
    Smith (2007, Laplace case of their admissible noise) use ``epsilon / (2 ln(2 / delta))``; ours is
    ``ln(1 + that)``, slightly smaller, because our proof covers the discrete (secure) noise.

    Examples
    --------
    >>> round(smooth_median_beta(1.0, 1e-6), 6)
    0.033882
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=False)
    return float(min(eps / 2.0, math.log1p(eps / (2.0 * math.log(2.0 / dlt)))))


_SMOOTH_SLACK = 2.0**-40   # beta used for S is reduced by this, covering float rounding of S (relative 1e-15)


def _release_exponent(lo: float, hi: float) -> int:
    """Public lattice exponent of the smooth release: the largest power of two <= (upper - lower) 2**-40."""
    width = hi / 2.0 - lo / 2.0        # (hi - lo) / 2 without overflow
    return math.frexp(width)[1] - 1 + 1 - 40


def smooth_median(x: ArrayLike, lower: float, upper: float, epsilon: float, delta: float, *,
                  rng: np.random.Generator | int | None = None) -> float:
    """Release the median with noise scaled to its smooth sensitivity: (epsilon, delta)-DP (replace-one).

    With ``beta = smooth_median_beta(epsilon, delta)``, ``S = max(smooth_sensitivity(x, lower, upper, beta),
    1024 g)`` and the public lattice spacing ``g`` (the largest power of two <= ``(upper - lower) 2**-40``),
    the release is ``g (round(med / g) + D)`` where ``D`` is exact discrete Laplace noise of scale
    ``S / (alpha g)`` steps, ``alpha = (epsilon / 2) / (1 + 2**-10)`` (theorem ``thm-quant-smooth-release``,
    the Laplace case of the admissible-noise framework of Nissim, Raskhodnikova & Smith 2007, Section 2,
    proved in the chapter for this discrete noise). The floor ``1024 g`` keeps S a beta-smooth upper bound
    and bounds the rounding; the noise scale is about ``2 S / epsilon``.

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 1
    lower, upper : float
        Public bounds, ``lower < upper``, ``upper - lower <= 2**1000`` (``WIDE_BOUNDS``).
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    float
        A multiple of ``g``; it can fall outside ``[lower, upper]`` (clip it afterwards if needed).

    Examples
    --------
    >>> out = smooth_median(np.arange(101.0), 0.0, 100.0, 1.0, 1e-6, rng=0)
    >>> abs(out - 50.0) < 100
    True
    """
    z, m, lo, hi = _padded_sorted(x, lower, upper)
    eps = check_epsilon(epsilon)
    beta = smooth_median_beta(eps, delta)
    gen = as_rng(rng)
    exponent = _release_exponent(lo, hi)
    g = math.ldexp(1.0, exponent)
    alpha = (eps / 2.0) / (1.0 + 2.0**-10)
    if alpha < 2.0**-18:   # public check: the largest possible scale, 2**41 / alpha steps, must stay below 2**60
        raise ValueError(f"epsilon must be >= 2**-17 for smooth_median (noise scale in lattice steps), got {epsilon!r}")
    s = max(_smooth_sensitivity(z, m, max(0.0, beta - _SMOOTH_SLACK)), 1024.0 * g)
    steps = s / (alpha * g)
    # rounded up to a dyadic that fits the exact sampler (exact when it already fits; more noise is safe): a
    # huge epsilon gives a tiny scale whose float value has too long a denominator
    noise = np.asarray(discrete_laplace(_round_up(Fraction(steps)), rng=gen), dtype=np.int64)
    return float(lattice_release(np.asarray(z[m]), exponent, noise))


# ----------------------------------------------------------------------------------------------------
# Propose-test-release.


def distance_to_instability(x: ArrayLike, lower: float, upper: float, bound: float) -> int | float:
    """Replace-one distance from ``x`` to the nearest dataset whose median has local sensitivity > ``bound``.

    ``d(x) = min{k : A^(k)(x) > bound}`` (lemma ``lem-quant-ak``): the smallest ``j - i - 1`` over pairs
    ``i <= m <= j`` with ``x_(j) - x_(i) > bound`` (padding ``x_(0) = lower``, ``x_(n+1) = upper``). It has
    sensitivity 1 under replace-one. Computed in O(n log n) (one binary search per ``i``).

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 1
    lower, upper : float
        Public bounds.
    bound : float
        The proposed bound on the local sensitivity, > 0.

    Returns
    -------
    int or float
        ``d(x)`` (0 when ``LS(x) > bound`` already); ``math.inf`` when ``bound >= upper - lower`` (no dataset
        is unstable).

    Examples
    --------
    >>> distance_to_instability([1.0, 2.0, 3.0, 4.0, 5.0], 0.0, 10.0, 1.5)   # move 1 value: gap 2 or 3
    1
    """
    z, m, lo, hi = _padded_sorted(x, lower, upper)
    b = check_real(bound, "bound", low=0.0, low_open=True)
    if not hi - lo > b:
        return math.inf
    i = np.arange(0, m + 1)
    j = np.searchsorted(z, z[i] + b, side="right")   # first j with z[j] > z[i] + b
    j = np.maximum(j, m)
    ok = j <= z.size - 1
    return int(np.min(j[ok] - i[ok] - 1))


def ptr_threshold(epsilon: float, delta: float) -> int:
    """The integer threshold T of :func:`propose_test_release`: the smallest T >= 0 with P[N > T] <= delta.

    N is discrete Laplace noise of scale ``2 / epsilon`` (``P(N > T) = r^(T+1) / (1 + r)``, ``r = e^(-epsilon/2)``),
    so a dataset at distance 0 passes the test with probability at most delta (theorem ``thm-quant-ptr``).

    Examples
    --------
    >>> ptr_threshold(1.0, 1e-6)
    26
    """
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=False)
    r_log = -eps / 2.0
    val = (math.log(dlt) + math.log1p(math.exp(r_log))) / r_log if r_log < 0.0 else math.inf
    if not val < 2.0**62:
        raise ValueError(f"epsilon = {epsilon!r} is too small for propose-test-release: the threshold "
                         f"{val:.3g} exceeds 2**62")
    t = max(0, math.ceil(val) - 1)
    while (t + 1) * r_log - math.log1p(math.exp(r_log)) > math.log(dlt):   # guard against rounding
        t += 1
    return int(t)


def propose_test_release(x: ArrayLike, lower: float, upper: float, bound: float, epsilon: float, delta: float, *,
                         rng: np.random.Generator | int | None = None) -> float | None:
    """Propose-test-release for the median (Dwork & Lei 2009): (epsilon, delta)-DP under replace-one.

    1. Propose ``bound`` (public) for the local sensitivity of the median.
    2. Test: ``d = distance_to_instability(x, lower, upper, bound)`` (sensitivity 1) plus exact discrete
       Laplace noise of scale ``2 / epsilon``; if the noisy distance is ``<= ptr_threshold(epsilon, delta)``,
       return None (the "bottom" answer: the proposal was refused).
    3. Release: the median plus Laplace noise of scale ``bound / (epsilon / 2)`` with
       :func:`dpcourse.laplace_mechanism` (secure lattice sampler; its lattice depends only on ``bound``
       and ``epsilon``).

    Theorem ``thm-quant-ptr``: the test is epsilon/2-DP; if the median moves by more than ``bound``
    between two neighbours, both are at distance 0, and then the test passes with probability <= delta.
    When ``bound >= upper - lower`` the test is skipped (every dataset is stable, a public fact).

    Parameters
    ----------
    x : array_like of floats, shape (n,), n >= 1
    lower, upper : float
        Public bounds, ``lower < upper``, ``upper - lower <= 2**1000`` (``WIDE_BOUNDS``).
    bound : float
        The proposed local-sensitivity bound, > 0, chosen without looking at the data.
    epsilon : float
        Total privacy parameter, > 0 (half for the test, half for the release).
    delta : float
        In (0, 1).
    rng : None, int or numpy.random.Generator, optional

    Returns
    -------
    float or None

    Examples
    --------
    >>> distance_to_instability(np.arange(1001.0), 0.0, 1000.0, 50.0)   # > ptr_threshold(1.0, 1e-6) = 26
    50
    >>> propose_test_release(np.arange(1001.0), 0.0, 1000.0, 50.0, 1.0, 1e-6, rng=0) is not None
    True
    >>> propose_test_release([0.0, 0.0, 100.0], 0.0, 100.0, 5.0, 1.0, 1e-6, rng=0) is None
    True
    """
    z, m, lo, hi = _padded_sorted(x, lower, upper)
    d = distance_to_instability(x, lower, upper, bound)
    eps = check_epsilon(epsilon)
    t = ptr_threshold(eps, delta)
    gen = as_rng(rng)
    b = float(bound)
    try:   # the release's lattice depends only on public parameters: refuse them before looking at the data
        laplace_lattice(b, eps / 2.0)
    except ValueError as exc:
        raise ValueError(f"bound={bound!r} with epsilon={epsilon!r} cannot be released: {exc}") from None
    if d != math.inf:
        # scale 2 / epsilon (as computed in floating point), rounded up to a dyadic the exact sampler takes when its
        # terms do not fit (a huge epsilon); unchanged otherwise
        noise = int(discrete_laplace(_round_up(Fraction(2.0 / eps)), rng=gen))
        if d + noise <= t:
            return None
    return laplace_mechanism(float(z[m]), b, eps / 2.0, rng=gen)  # type: ignore[return-value]


# ----------------------------------------------------------------------------------------------------
# Sample and aggregate.


def sample_and_aggregate(x: ArrayLike, statistic: Callable[[np.ndarray], float], k: int, lower: float, upper: float,
                         epsilon: float, *, aggregate: str = "median", rng: np.random.Generator | int | None = None,
                         resolution: int = DEFAULT_RESOLUTION) -> float:
    """Sample-and-aggregate: run ``statistic`` on k disjoint random blocks, aggregate the k outputs privately.

    The records are split into ``k`` blocks (sizes differing by at most one) by a uniformly random permutation
    drawn from ``rng``; ``statistic`` is applied to each block and its output clamped to ``[lower, upper]`` (an
    output that is not a finite real number, or a raised ``Exception``, becomes ``lower``: no data-dependent
    exception escapes). The k outputs are aggregated by :func:`dp_median` (``aggregate="median"``, robust to a few
    outlying blocks) or :func:`dpcourse.dp_mean` (``"mean"``, noise ``(upper - lower) / (k epsilon)``: smaller
    error when the outputs concentrate).

    Guarantee, under **replace-one** (theorem ``thm-quant-sa``): the partition does not depend on the data, so
    replacing one record changes at most one of the k outputs, and the release has the aggregator's guarantee in
    its k inputs: epsilon-DP for the mean; for the median that of :func:`dp_quantile` as computed,
    (epsilon, (1 + e^epsilon) eta)-DP with eta the tiny sampling error of its float weights.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
        The records (rows); n >= k; at most ``MAX_SIZE`` = 10**7 values (refused by name above it).
    statistic : callable
        ``statistic(block) -> float``, applied to each block (rows of ``x``).
    k : int
        Number of blocks, 1 <= k <= n.
    lower, upper : float
        Public bounds on the statistic's output, finite, ``lower < upper``.
    epsilon : float
        Privacy parameter, > 0.
    aggregate : {"median", "mean"}
        The private aggregator.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness (the partition and the aggregator's noise).
    resolution : int
        Grid of :func:`dp_median` (ignored for the mean).

    Returns
    -------
    float

    Examples
    --------
    >>> out = sample_and_aggregate(np.arange(1000.0), np.mean, 20, 0.0, 1000.0, 1.0, rng=0)
    >>> 0.0 <= out <= 1000.0
    True
    """
    if isinstance(x, np.ndarray) and x.size > MAX_SIZE:   # before any copy (a broadcast view may not fit in memory)
        raise ValueError(f"x must hold at most MAX_SIZE = {MAX_SIZE} values (the cap on one call's work), got an "
                         f"array of shape {x.shape}")
    data = check_real_array(x, "x")
    if data.ndim not in (1, 2):
        raise ValueError(f"x must be a 1-d or 2-d array of records, got {data.ndim} dimensions")
    if data.size > MAX_SIZE:
        raise ValueError(f"x must hold at most MAX_SIZE = {MAX_SIZE} values (the cap on one call's work), got an "
                         f"array of shape {data.shape}")
    fn = check_callable(statistic, "statistic")
    kk = check_positive_int(k, "k")
    n = data.shape[0]                  # public under replace-one
    if kk > n:
        raise ValueError(f"k must be an integer in [1, n] with n = {n} the number of records (the rows of x, "
                         f"shape {data.shape}), got k={kk}: lower k, or pass the records as rows of x")
    lo, hi = check_bounds(lower, upper)
    eps = check_epsilon(epsilon)
    how = check_choice(aggregate, "aggregate", ("median", "mean"))
    gen = as_rng(rng)
    order = gen.permutation(n)
    outputs = np.empty(kk)
    for b, idx in enumerate(np.array_split(order, kk)):     # a loop over the k blocks, not over records
        try:
            v = float(fn(data[idx]))
        except Exception:  # any failure of the statistic (ZeroDivisionError, IndexError, ...) -> lower:
            v = math.nan   # an exception escaping here would be a data-dependent abort outside the theorem
        outputs[b] = v if math.isfinite(v) else lo
    outputs = np.clip(outputs, lo, hi)
    if how == "median":
        return cast(float, dp_median(outputs, lo, hi, eps, rng=gen, resolution=resolution))   # size=None: a float
    from .laplace import dp_mean
    return dp_mean(outputs, lo, hi, eps, rng=gen)  # type: ignore[return-value]
