"""Continual release of a running count: the binary tree counter and the square-root factorization.

A stream of T events ``x_1, ..., x_T`` in {0, 1} arrives one at a time; after step t the curator
publishes a private estimate of the count ``c_t = x_1 + ... + x_t``. Neighbouring streams
(**event-level**) differ in one event ``x_s`` (a 0 becomes a 1 or back), the horizon T being public; that
one event moves every later count ``c_s, ..., c_T`` by 1. See the chapter "Continual release"
(``chapters/19_continual_release``) for the theorems named below.

* :class:`TreeCounter`: the binary (hierarchical) tree mechanism of Dwork, Naor, Pitassi & Rothblum (2010)
  and Chan, Shi & Song (2011), as a streaming object: one event in, one private count out, O(log T)
  integers of state. Pure epsilon-DP with exact discrete Laplace noise, or rho-zCDP with the exact discrete
  Gaussian (theorems ``cr-thm-tree-privacy`` and ``cr-thm-tree-variance``).
* :func:`factorization_counts`: the square-root factorization A = L L of the prefix-sum matrix
  (Fichtenberger, Henzinger & Upadhyay 2023; Henzinger, Upadhyay & Upadhyay 2023) with lattice Gaussian
  noise, rho-zCDP (theorem ``cr-thm-fact``); the private part R x is computed exactly in integers, with the same
  number and size of operations for every stream (``benchmarks/bench_continual.py`` times it on neighbouring
  streams).
* :func:`naive_counts`: the two naive answers (fresh noise on every count; noise on every increment).
* Exact variances of every answer: :func:`tree_variance`, :func:`factorization_variance`,
  :func:`naive_variance`.
"""

from __future__ import annotations

import decimal
import functools
import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ._validation import MAX_SIZE, as_rng, check_binary_array, check_choice, check_epsilon, check_positive_int, check_real
from ._sampling import SCALE_LIMIT, _dgauss_from_variance, _dlap, _round_up
from .discrete import discrete_laplace

__all__ = ["TreeCounter", "tree_counts", "tree_levels", "tree_node_variance", "tree_variance", "naive_counts", "naive_variance",
           "sqrt_factor", "factorization_sensitivity", "factorization_lattice", "factorization_counts",
           "factorization_variance", "FactorizationLattice", "MAX_HORIZON"]

MAX_HORIZON = 2**40        # a tree counter's horizon (41 levels of state)
MAX_BATCH_HORIZON = 2**20  # batch releases (naive_counts, factorization_counts) build arrays of length T
NOISE_BLOCK = 1 << 16      # noise values a TreeCounter draws at once (one per step): a constant buffer, not O(T)
COEF_BITS = 40             # the factor R is rounded to multiples of 2**-40 and applied to x exactly, in integers
# The noise added to one answer (a sum of ``terms`` noise values) stays within +-2**62, so count + noise fits int64
# (a count is below 2**41). A release refuses (by epsilon, a public parameter) a total scale ``terms * scale`` above
# SCALE_LIMIT = 2**50; then one value exceeds 2**62 / terms >= 2**12 scales with probability below e^-4095, and
# :func:`_check_noise` raises OverflowError in that case instead of letting an int64 sum wrap around.
NOISE_SUM_LIMIT = 1 << 62
# The Gaussian tree's node variance L / (2 rho) is refused (by rho, public) from 2**60 on: sigma < 2**30, and a node
# noise beyond 2**62 / L >= 2**56 is then more than 2**26 sigmas away.
GAUSS_VARIANCE_LIMIT = 1 << 60



def _up3(x: float) -> str:
    """``x`` to 3 significant digits, rounded up (a suggested epsilon that is itself accepted)."""
    exp10 = math.floor(math.log10(x)) - 2
    return f"{math.ceil(x / 10.0**exp10) * 10.0**exp10:.3g}"

def _check_horizon(horizon: int, cap: int = MAX_HORIZON) -> int:
    T = check_positive_int(horizon, "horizon")
    if T > cap:
        raise ValueError(f"horizon must be at most {cap} (the cap of this function), got {T}")
    return T


def _check_rho(rho: float) -> float:
    return check_real(rho, "rho", low=0.0, low_open=True, high=1e6)


def _privacy(epsilon: float | None, rho: float | None) -> tuple[str, float]:
    if (epsilon is None) == (rho is None):
        raise ValueError("give exactly one of epsilon (pure DP, discrete Laplace) and rho (zCDP, discrete Gaussian)")
    return ("laplace", check_epsilon(epsilon)) if rho is None else ("gaussian", _check_rho(rho))


def tree_levels(horizon: int) -> int:
    """Number of levels L of the binary tree over ``horizon`` steps: ``floor(log2 T) + 1`` (``T.bit_length()``).

    Every event lies in at most one released node per level, so under event-level neighbours L is the l1
    sensitivity of the vector of node sums (lemma ``cr-lem-tree-sensitivity``).

    Parameters
    ----------
    horizon : int
        The number of steps T, in [1, MAX_HORIZON = 2**40] (a named error outside).

    Returns
    -------
    int
        L, in [1, 41].

    Examples
    --------
    >>> tree_levels(1), tree_levels(8), tree_levels(2**16), tree_levels(2**16 - 1)
    (1, 4, 17, 16)
    """
    return _check_horizon(horizon).bit_length()


def _node_parameter(kind: str, value: float, levels: int) -> Fraction:
    """The exact noise parameter of one node: Laplace scale >= L / epsilon, or Gaussian variance >= L / (2 rho).

    Rounded up to a dyadic rational the exact sampler takes (unchanged when its terms fit 62 bits): more noise,
    never less. An answer adds up to L node noises, so the Laplace scale is refused (by ``epsilon``, public) when L
    times it exceeds SCALE_LIMIT = 2**50 (see ``NOISE_SUM_LIMIT``). The Gaussian variance is below 2**60 (else
    refused): sigma < 2**30, and a node noise beyond 2**62 / L >= 2**56 is 2**26 sigmas away.
    """
    name = "epsilon" if kind == "laplace" else "rho"
    try:
        if kind == "laplace":
            param = _round_up(Fraction(levels) / Fraction(value))
        else:
            param = _round_up(Fraction(levels) / (2 * Fraction(value)))
    except (ValueError, OverflowError):
        raise ValueError(f"{name}={value!r} is too small for the exact sampler: the node noise would exceed 2**60 "
                         f"(horizon with {levels} levels); use a larger {name}") from None
    if kind == "gaussian":
        # _round_up keeps any variance whose terms fit 62 bits (2**61 for rho = 41 / 2**62): the cap is checked here,
        # so that the refusal is the documented one and monotone in rho.
        if param >= GAUSS_VARIANCE_LIMIT:
            raise ValueError(f"rho={value!r} is too small at a horizon with {levels} levels: the node noise's variance "
                             f"L / (2 rho) would reach 2**60; use rho >= {_up3(levels * 2.0**-61)}")
        return param
    if param * levels > SCALE_LIMIT:
        raise ValueError(f"epsilon={value!r} is too small at a horizon with {levels} levels: the {levels} node noises "
                         f"of an answer would have a total scale L**2 / epsilon above 2**50 (SCALE_LIMIT), where "
                         f"their int64 sum is no longer safe; use epsilon >= {_up3(levels * levels * 2.0**-50)}")
    return param


def _dlap_variance(scale: Fraction) -> float:
    """Variance of the discrete Laplace of scale b: 2 p / (1 - p)^2 = 1 / (2 sinh^2(1 / (2 b))), p = e^{-1/b}."""
    x = 1.0 / float(scale)
    return 2.0 * math.exp(-x) / math.expm1(-x) ** 2


_DGAUSS_SUM_LIMIT = 2.0**10   # above this sigma^2 the discrete Gaussian's variance is sigma^2 in double precision


def _dgauss_variance(var: Fraction) -> float:
    """Variance of the discrete Gaussian with parameter sigma^2 = var (< sigma^2), to double precision.

    Summed over its support up to 12 sigma + 12 for sigma^2 <= 2**10. Above, sigma^2 itself: by Poisson summation
    the variance is ``sigma^2 (1 - 8 pi^2 sigma^2 sum_n n^2 e^{-2 pi^2 sigma^2 n^2} / theta)`` (theta >= 1), a
    relative gap below ``9 pi^2 sigma^2 e^{-2 pi^2 sigma^2}``, under 2**-100 already at sigma^2 = 4 (and the sum
    would need an array of 12 sigma values: 10**10 at the largest parameter, 2**60).
    """
    s2 = float(var)
    if s2 > _DGAUSS_SUM_LIMIT:
        return s2
    k = np.arange(0, int(12 * math.sqrt(s2)) + 12, dtype=np.float64)
    w = np.exp(-k * k / (2 * s2))
    return float(2 * np.sum(k * k * w) / (2 * np.sum(w) - 1))


def tree_node_variance(horizon: int, epsilon: float | None = None, *, rho: float | None = None) -> float:
    """Variance of the noise of one node of the tree counter (theorem ``cr-thm-tree-variance``).

    The node noise of :class:`TreeCounter` at this horizon (event-level neighbours), with its parameter rounded up
    as the counter rounds it: with ``epsilon``, the discrete Laplace of scale b = L / epsilon
    (L = :func:`tree_levels`), variance ``1 / (2 sinh^2(1/(2b)))``, between ``2 b^2 - 1/6`` and ``2 b^2``; with
    ``rho``, the discrete Gaussian of parameter sigma^2 = L / (2 rho), variance just below sigma^2.

    Parameters
    ----------
    horizon : int
        The number of steps T, in [1, 2**40].
    epsilon : float, optional
        Pure DP parameter, > 0, with the limits of :class:`TreeCounter` (exactly one of ``epsilon`` and ``rho``).
    rho : float, optional
        zCDP parameter, in (0, 1e6].

    Returns
    -------
    float
        The variance, in double precision.

    Examples
    --------
    >>> round(tree_node_variance(2**10 - 1, 1.0), 4)  # L = 10, b = 10: 2 b^2 - 1/6 + 1/(120 b^2) + ...
    199.8334
    """
    T = _check_horizon(horizon)
    kind, value = _privacy(epsilon, rho)
    param = _node_parameter(kind, value, T.bit_length())
    return _dlap_variance(param) if kind == "laplace" else _dgauss_variance(param)


def _check_steps(t: npt.ArrayLike, T: int) -> np.ndarray:
    arr = np.asarray(t)
    if arr.dtype.kind not in "iu" or arr.size == 0 or arr.min() < 1 or arr.max() > T:
        raise ValueError(f"t must be whole numbers (an int array) in [1, horizon={T}]")
    return arr.astype(np.int64)


def _popcount(t: np.ndarray) -> np.ndarray:
    count = np.zeros(t.shape, dtype=np.int64)
    x = t.copy()
    while x.any():
        count += x & 1
        x >>= 1
    return count


def tree_variance(t: npt.ArrayLike, horizon: int, epsilon: float | None = None, *,
                  rho: float | None = None) -> float | np.ndarray:
    """Exact variance of the tree counter's answer at step t: ``popcount(t)`` times one node's variance.

    Theorem ``cr-thm-tree-variance``: the answer of :class:`TreeCounter` (event-level neighbours) at step t adds
    the independent, identically distributed noises of the ``popcount(t)`` nodes of t's binary expansion, each of
    variance :func:`tree_node_variance`.

    Parameters
    ----------
    t : int or array_like of int
        Steps, whole numbers in [1, horizon] (ValueError outside).
    horizon : int
        The number of steps T, in [1, 2**40].
    epsilon : float, optional
        Pure DP parameter, > 0 (exactly one of ``epsilon`` and ``rho``).
    rho : float, optional
        zCDP parameter, in (0, 1e6].

    Returns
    -------
    float or numpy.ndarray of float64
        A float for a scalar ``t``, else an array of its shape.

    Examples
    --------
    >>> float(tree_variance(7, 8, 1.0) / tree_variance(8, 8, 1.0))  # 7 = 111b: three nodes; 8 = 1000b: one
    3.0
    """
    T = _check_horizon(horizon)
    steps = _check_steps(t, T)
    var = tree_node_variance(T, epsilon, rho=rho) * _popcount(steps)
    return float(var) if np.ndim(t) == 0 else var


def _expansion_noise(t0: int, z: np.ndarray, stored: list[int], levels: int) -> np.ndarray:
    """The noise of the answers at steps t0 + 1 .. t0 + n: the sum over the 1 bits j of t of the noise of the
    level-j node of t's binary expansion (theorem ``cr-thm-tree-variance``).

    ``z[..., k]`` is the noise of the node completed at step t0 + 1 + k (leading axes: independent runs);
    ``stored[j]`` the noise of the last level-j node completed at or before t0; it is updated in place to the
    last level-j node completed at or before t0 + n (of the last run).
    """
    n = z.shape[-1]
    noise = np.zeros(z.shape, dtype=np.int64)
    for j in range(levels):
        # The steps t0 < t <= t0 + n fall in consecutive blocks [k 2^j, (k + 1) 2^j); bit j of t is set iff k is odd,
        # and then the level-j node of t ends at step k 2^j: drawn in z if after t0, else stored[j]. One value per
        # block, repeated over the block (no per-step gather).
        w = 1 << j
        ks = np.arange((t0 + 1) >> j, ((t0 + n) >> j) + 1, dtype=np.int64)
        lengths = np.minimum((ks + 1) * w - 1, t0 + n) - np.maximum(ks * w, t0 + 1) + 1
        ends = ks * w
        odd = (ks & 1) == 1
        vals = np.zeros(z.shape[:-1] + (ks.size,), dtype=np.int64)
        fresh = odd & (ends > t0)
        vals[..., fresh] = z[..., ends[fresh] - t0 - 1]
        vals[..., odd & (ends <= t0)] = stored[j]
        noise += np.repeat(vals, lengths, axis=-1)
        last = ((t0 + n) >> j) << j          # the last step <= t0 + n completing a level-j node (odd multiple)
        if not (last >> j) & 1:
            last -= 1 << j
        if last > t0:
            stored[j] = int(z.reshape(-1, n)[-1, last - t0 - 1])
    return noise


def _check_noise(z: np.ndarray | int, terms: int) -> np.ndarray:
    """``z`` if no value exceeds ``NOISE_SUM_LIMIT // terms`` in absolute value, else OverflowError.

    Any sum of ``terms`` such values stays within +-2**62, so no int64 sum of noises, nor count + noise, wraps
    around. At the scales the releases allow (``terms`` times the scale at most SCALE_LIMIT = 2**50) the error has
    probability below e^-4095 per value; it depends on the noise only, never on the data.
    """
    z = np.asarray(z)      # already an array (drawn with a size): the same object; an int only in its type
    bound = NOISE_SUM_LIMIT // terms
    if z.size and (int(z.max()) > bound or int(z.min()) < -bound):
        raise OverflowError("a noise draw exceeded 2**62 / (noises per answer), where an int64 sum could wrap around "
                            "(probability below e^-4095 at the scales allowed); nothing was counted: draw again")
    return z


_EVENT_TYPES = (int, float, np.integer, np.floating)


def _event(x: object) -> int:
    """One stream event as the int 0 or 1: an int or a float (numpy scalars too) equal to 0 or 1, as :meth:`feed`
    takes them; a bool, an array, a complex number or anything else is refused by type (TypeError), another number
    by value (ValueError). The messages hold nothing of the event.

    The same operations for the event 0 and the event 1 (both comparisons, a non-short-circuit ``|``, no early
    return): which one it is decides no branch of a step (Python gives no stronger timing guarantee)."""
    if type(x) is int or (isinstance(x, _EVENT_TYPES) and not isinstance(x, bool)):
        zero, one = bool(x == 0), bool(x == 1)
        if zero | one:
            return int(one)
        raise ValueError("x, a stream event, must be 0 or 1 (another value was given): recode the stream")
    raise TypeError(f"x, a stream event, must be the number 0 or 1 (an int or a float), not a bool, an array or any "
                    f"other type (got {type(x).__name__}); use feed for an array of events")


class TreeCounter:
    """A private running count over a stream of 0/1 events: the binary tree mechanism, in O(log T) memory.

    Step t (1-based) completes the dyadic node of level ``i = trailing zeros of t`` (steps ``t - 2**i + 1 .. t``)
    and draws its noise; the answer at step t is the exact count plus the noises of the ``popcount(t)`` nodes of
    t's binary expansion, which partition ``1..t``. All arithmetic is on integers, O(log T) of them kept.

    Guarantee (theorem ``cr-thm-tree-privacy``), under **event-level** neighbours (one event changed, the horizon
    public), for the whole output sequence, events chosen adaptively too: with ``epsilon``, exact discrete
    Laplace noise of scale L / epsilon per node (L = :func:`tree_levels`, the l1 sensitivity of the node sums),
    rounded up to a dyadic rational, is epsilon-DP; with ``rho``, the exact discrete Gaussian of parameter
    L / (2 rho), rounded up, is rho-zCDP. A huge ``epsilon`` is clamped silently to more privacy: the scale never
    falls below 2**-62 (``epsilon = 1e300`` gives 2**-59: the answers are then the exact counts, except with
    probability below 2 e^{-2**59}). Variance of the answers: theorem ``cr-thm-tree-variance``.

    :meth:`feed` gives the same answers as :meth:`step` on each value with the same ``rng`` state. A step or a
    feed changes the counter only when it completes: if it raises (a refused event, an error in a noise draw),
    the counter gives the answers it would have given before the call, and the call can be repeated.

    Parameters
    ----------
    horizon : int
        The number of steps T, in [1, 2**40]; public. A step beyond it is refused (ValueError).
    epsilon : float, optional
        Pure DP parameter, > 0; refused (ValueError) when L**2 / epsilon exceeds 2**50, where the L node noises of
        an answer would not stay far inside int64. Exactly one of ``epsilon`` and ``rho``.
    rho : float, optional
        zCDP parameter, in (0, 1e6]; refused when the variance L / (2 rho) reaches 2**60.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; the noise is drawn in blocks of ``NOISE_BLOCK`` values (a constant buffer).

    Examples
    --------
    >>> c = TreeCounter(8, epsilon=1.0, rng=0)
    >>> answers = [c.step(x) for x in [1, 0, 1, 1, 0, 0, 1, 0]]
    >>> len(answers), all(isinstance(a, int) for a in answers), c.levels, c.t
    (8, True, 4, 8)
    """

    def __init__(self, horizon: int, epsilon: float | None = None, *, rho: float | None = None,
                 rng: np.random.Generator | int | None = None) -> None:
        self.horizon = _check_horizon(horizon)
        self.noise, value = _privacy(epsilon, rho)
        self.epsilon = value if self.noise == "laplace" else None
        self.rho = value if self.noise == "gaussian" else None
        self.levels = self.horizon.bit_length()
        self.noise_parameter = _node_parameter(self.noise, value, self.levels)
        self._gen = as_rng(rng)
        # The whole state, replaced by one assignment when a step (or a feed) completes: the step t, the exact
        # count c_t (never released), the sum of the noises of the nodes of t's binary expansion, the noise of the
        # last completed node of each level, the block of pre-drawn noise (a list, and the same as an array) and
        # the position of the next value in it.
        self._state: tuple[int, int, int, list[int], list[int], np.ndarray, int] = (
            0, 0, 0, [0] * self.levels, [], np.zeros(0, dtype=np.int64), 0)

    @property
    def t(self) -> int:
        """The number of steps taken so far."""
        return self._state[0]

    def _draw(self, n: int) -> np.ndarray:
        p = self.noise_parameter
        if self.noise == "laplace":
            z = _dlap(p.numerator, p.denominator, n, self._gen)
        else:
            z = _dgauss_from_variance(p, n, self._gen)
        return _check_noise(z, self.levels)   # an answer adds at most L node noises

    def step(self, x: float) -> int:
        """Take the next event ``x`` and return the private count of the events so far.

        One step of the release of :class:`TreeCounter`, with its guarantee (theorem ``cr-thm-tree-privacy``,
        event-level neighbours). The counter changes only when the step completes.

        Parameters
        ----------
        x : int or float
            The event, the number 0 or 1 (numpy scalars too: the values :meth:`feed` takes). A bool, an array or
            a complex number is refused with a TypeError, another number with a ValueError (messages without the
            value); a step past the horizon with a ValueError.

        Returns
        -------
        int
            The noisy count of the events so far.

        Examples
        --------
        >>> c = TreeCounter(4, epsilon=1e300, rng=0)   # a huge epsilon: no noise, the exact counts
        >>> [c.step(x) for x in (1, 0, 1)]
        [1, 1, 2]
        """
        event = _event(x)
        t, count, noise_sum, noisy, block, array, pos = self._state
        t += 1
        if t > self.horizon:
            raise ValueError(f"the stream's horizon of {self.horizon} steps is reached (public); start a new counter")
        if pos == len(block):                # the next block: the noise of the next min(NOISE_BLOCK, T - t + 1) steps
            array = self._draw(min(NOISE_BLOCK, self.horizon - t + 1))
            block = array.tolist()
            pos = 0
        z = block[pos]
        i = (t & -t).bit_length() - 1        # level of the node completed at step t
        if i:                                # the lower nodes merge into the new one: their noise leaves the answer
            z_sum = noise_sum + z - sum(noisy[:i])
        else:
            z_sum = noise_sum + z
        # Written before the commit below: the level-i node it replaces is in the expansion of no step >= t, so a
        # step that fails after this line leaves a state whose every later answer is unchanged (a retry rewrites it).
        noisy[i] = z
        count += event
        self._state = (t, count, z_sum, noisy, block, array, pos + 1)   # the commit: one assignment
        return count + z_sum

    def feed(self, values: npt.ArrayLike) -> np.ndarray:
        """Take many events at once and return the private counts after each.

        The same answers as ``[self.step(x) for x in values]`` with the same ``rng`` state (one noise value per
        step, consumed in the same order), computed with NumPy in O(n log T) vectorized operations; the guarantee
        of :class:`TreeCounter` (theorem ``cr-thm-tree-privacy``, event-level neighbours). The counter changes
        only when the call completes.

        Parameters
        ----------
        values : array_like of 0/1, shape (n,)
            The events (n may be 0); more events than steps left before the horizon are refused (ValueError).

        Returns
        -------
        numpy.ndarray of int64, shape (n,)

        Examples
        --------
        >>> TreeCounter(8, epsilon=1e300, rng=0).feed([1, 0, 1]).tolist()   # a huge epsilon: no noise
        [1, 1, 2]
        """
        x = check_binary_array(values, "values", ndim=1, allow_empty=True)
        n = x.size
        t0, count, _, noisy, old_block, array, pos = self._state
        block: list[int] | None = old_block
        if n > self.horizon - t0:
            raise ValueError(f"{n} events would go past the horizon of {self.horizon} steps (at step {t0}); "
                             "start a new counter")
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        parts = []                            # the noise of the node completed at step t0 + 1 + k, k < n
        done = t0
        while done < t0 + n:
            if pos == array.size:
                array = self._draw(min(NOISE_BLOCK, self.horizon - done))
                block = None                  # made from the array below, once
                pos = 0
            take = min(t0 + n - done, array.size - pos)
            parts.append(array[pos:pos + take])
            pos += take
            done += take
        if block is None:
            block = array.tolist()
        stored = list(noisy)                  # updated by _expansion_noise; the counter's list is left as it is
        noise = _expansion_noise(t0, np.concatenate(parts), stored, self.levels)
        counts = np.cumsum(x) + count         # < 2**41; |noise| <= 2**62 (_check_noise): no int64 wrap-around
        out = counts + noise
        self._state = (t0 + n, int(counts[-1]), int(noise[-1]), stored, block, array, pos)   # the commit
        return out


def tree_counts(stream: npt.ArrayLike, epsilon: float | None = None, *, rho: float | None = None,
                horizon: int | None = None, runs: int | None = None,
                rng: np.random.Generator | int | None = None) -> np.ndarray:
    """The tree counter's answers on a whole stream at once, or ``runs`` independent runs of them.

    The mechanism of :class:`TreeCounter` with its guarantee (theorem ``cr-thm-tree-privacy``): epsilon-DP with
    ``epsilon``, rho-zCDP with ``rho``, under event-level neighbours with the horizon public; and with its limits
    (a huge epsilon is clamped silently to more privacy, a tiny one refused). With ``runs=None`` the result is
    exactly ``TreeCounter(horizon, ...).feed(stream)`` for the same ``rng``; with ``runs``, the noise of all runs
    is drawn in one batch (not the random numbers of ``runs`` counters).

    Parameters
    ----------
    stream : array_like of 0/1, shape (n,)
        The private events.
    epsilon : float, optional
        Pure DP parameter, > 0 (exactly one of ``epsilon`` and ``rho``).
    rho : float, optional
        zCDP parameter, in (0, 1e6].
    horizon : int, optional
        The public horizon T that sets the noise (``L = tree_levels(horizon)``), at least n (a stream stopped
        early); default n.
    runs : int, optional
        Number of independent runs; ``runs * n`` at most MAX_SIZE.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int64
        Shape (n,), or (runs, n) with ``runs``.

    Examples
    --------
    >>> tree_counts([1, 0, 1, 1], 1.0, runs=3, rng=0).shape
    (3, 4)
    >>> c = TreeCounter(100, 1.0, rng=5)
    >>> bool(np.array_equal(tree_counts([1, 0, 1, 1], 1.0, horizon=100, rng=5), c.feed([1, 0, 1, 1])))
    True
    """
    x = check_binary_array(stream, "stream", ndim=1)
    T = _check_horizon(x.size if horizon is None else horizon)
    if x.size > T:
        raise ValueError(f"the stream is longer than horizon={T}: pass a horizon of at least its (public) length")
    shape = _runs_shape(runs, x.size)
    counter = TreeCounter(T, epsilon, rho=rho, rng=rng)
    if runs is None:
        return counter.feed(x)
    z = counter._draw(math.prod(shape)).reshape(shape)
    return np.cumsum(x) + _expansion_noise(0, z, [0] * counter.levels, counter.levels)   # |noise| <= 2**62: no wrap


# ----------------------------------------------------------------------------------------------------
# The naive answers.


def _runs_shape(runs: int | None, T: int) -> tuple[int, ...]:
    shape = (T,) if runs is None else (check_positive_int(runs, "runs"), T)
    if math.prod(shape) > MAX_SIZE:
        raise ValueError(f"runs times the stream length must be at most {MAX_SIZE}, got {math.prod(shape)}")
    return shape


def _naive_scale(sensitivity: int, eps: float, terms: int = 1) -> Fraction:
    """The discrete Laplace scale sensitivity / epsilon, rounded up to a dyadic rational the sampler takes.

    ``terms``: the number of such noises summed into one answer (1 for fresh noise, T for noisy increments); the
    total scale ``terms * scale`` must be at most SCALE_LIMIT = 2**50, else ``epsilon`` (public) is refused (see
    ``NOISE_SUM_LIMIT``).
    """
    try:
        scale = _round_up(Fraction(sensitivity) / Fraction(eps))
    except (ValueError, OverflowError):
        scale = None
    if scale is None or scale * terms > SCALE_LIMIT:
        raise ValueError(f"epsilon={eps!r} is too small: the noise of one answer ({terms} value(s) of scale "
                         f"{sensitivity} / epsilon) would have a total scale above 2**50 (SCALE_LIMIT), where its int64 "
                         f"sum is no longer safe; use epsilon >= {_up3(sensitivity * terms * 2.0**-50)}") from None
    return scale


def naive_counts(stream: npt.ArrayLike, epsilon: float, *, method: str = "fresh", runs: int | None = None,
                 rng: np.random.Generator | int | None = None) -> np.ndarray:
    """The two naive running counts, with exact discrete Laplace noise: epsilon-DP (theorem ``cr-thm-naive``).

    Guarantee: epsilon-DP under event-level neighbours, the horizon T being the stream's (public) length.
    ``method="fresh"``: every count c_t gets its own noise of scale T / epsilon (the T counts have l1 sensitivity
    T); ``method="increments"``: every event gets noise of scale 1 / epsilon and the answers are the running sums
    of the noisy events. The scales are rounded up to the exact sampler's dyadic grid, so a huge epsilon is
    clamped silently to more privacy (a scale never below 2**-62: the answers are then the exact counts, except
    with probability below 2 e^{-2**59}).

    Parameters
    ----------
    stream : array_like of 0/1, shape (T,)
        The private events, T <= 2**20.
    epsilon : float
        Privacy parameter, > 0; refused (ValueError) when the noise of one answer would have a total scale above
        2**50, i.e. below ``T / 2**50``.
    method : {"fresh", "increments"}
        Which naive release.
    runs : int, optional
        Number of independent releases; ``runs * T`` at most MAX_SIZE.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    numpy.ndarray of int64
        Shape (T,), or (runs, T) with ``runs``.

    Examples
    --------
    >>> naive_counts([1, 0, 1], 1.0, method="increments", rng=0).dtype
    dtype('int64')
    """
    x = check_binary_array(stream, "stream", ndim=1)
    T = _check_horizon(x.size, MAX_BATCH_HORIZON)
    eps = check_epsilon(epsilon)
    method = check_choice(method, "method", ("fresh", "increments"))
    shape = _runs_shape(runs, T)
    gen = as_rng(rng)
    if method == "fresh":      # one noise per answer, |noise| <= 2**62 (_check_noise): no int64 wrap-around
        return np.cumsum(x) + _check_noise(discrete_laplace(_naive_scale(T, eps), size=shape, rng=gen), 1)
    z = _check_noise(discrete_laplace(_naive_scale(1, eps, T), size=shape, rng=gen), T)
    return np.cumsum(x + z, axis=-1)       # t <= T noises of |z| <= 2**62 / T per answer: no int64 wrap-around


def naive_variance(t: npt.ArrayLike, horizon: int, epsilon: float, *,
                   method: str = "fresh") -> float | np.ndarray:
    """Exact variance of the naive answers at step t (theorem ``cr-thm-naive``).

    For the release of :func:`naive_counts` (event-level neighbours), with the scales rounded up as it rounds
    them: ``"fresh"``, one discrete Laplace of scale T / epsilon, ``1 / (2 sinh^2(epsilon / (2T)))``, at most
    ``2 T^2 / epsilon^2``; ``"increments"``, t discrete Laplaces of scale 1 / epsilon, at most ``2 t / epsilon^2``.

    Parameters
    ----------
    t : int or array_like of int
        Steps, whole numbers in [1, horizon].
    horizon : int
        The number of steps T, in [1, 2**20].
    epsilon : float
        Privacy parameter, > 0, with the limits of :func:`naive_counts`.
    method : {"fresh", "increments"}
        Which naive release.

    Returns
    -------
    float or numpy.ndarray of float64
        A float for a scalar ``t``, else an array of its shape.

    Examples
    --------
    >>> round(float(naive_variance(4, 4, 1.0, method="increments") / naive_variance(1, 4, 1.0, method="increments")))
    4
    """
    T = _check_horizon(horizon, MAX_BATCH_HORIZON)
    steps = _check_steps(t, T)
    eps = check_epsilon(epsilon)
    method = check_choice(method, "method", ("fresh", "increments"))
    if method == "fresh":
        var = np.full(steps.shape, _dlap_variance(_naive_scale(T, eps)))
    else:
        var = steps * _dlap_variance(_naive_scale(1, eps, T))
    return float(var) if np.ndim(t) == 0 else var


# ----------------------------------------------------------------------------------------------------
# The square-root factorization.


def sqrt_factor(horizon: int) -> np.ndarray:
    """The coefficients ``c_0, ..., c_{T-1}`` of (1 - x)^{-1/2}: ``c_k = binom(2k, k) / 4^k``.

    The lower-triangular Toeplitz matrix L with ``L[i, j] = c_{i-j}`` satisfies L L = A, the T x T prefix-sum
    matrix (lemma ``cr-lem-sqrt``). Computed by the recurrence ``c_k = c_{k-1} (2k - 1) / (2k)`` (relative error
    below 2k ulps).

    Parameters
    ----------
    horizon : int
        T, in [1, 2**20].

    Returns
    -------
    numpy.ndarray of float64, shape (T,)

    Examples
    --------
    >>> sqrt_factor(4).tolist()
    [1.0, 0.5, 0.375, 0.3125]
    """
    T = _check_horizon(horizon, MAX_BATCH_HORIZON)
    k = np.arange(1, T, dtype=np.float64)
    return np.concatenate(([1.0], np.cumprod((2 * k - 1) / (2 * k))))


def factorization_sensitivity(horizon: int) -> float:
    """l2 sensitivity of R x for the right factor R = L, under event-level neighbours: its largest column norm.

    The first column of R is the longest, so this is ``sqrt(sum_k c_k^2)`` (lemma ``cr-lem-sqrt``); it grows like
    ``sqrt(ln(T) / pi)``. In floating point: the release charges the exact integer version
    (:func:`factorization_lattice`).

    Parameters
    ----------
    horizon : int
        T, in [1, 2**20].

    Returns
    -------
    float

    Examples
    --------
    >>> factorization_sensitivity(2) == (1 + 0.25) ** 0.5
    True
    """
    c = sqrt_factor(horizon)
    return math.sqrt(math.fsum(c * c))


@functools.lru_cache(maxsize=4)
def _integer_factor(T: int) -> tuple[np.ndarray, int]:
    """The released factor as integers: ``q_k = round(c_k 2**COEF_BITS)`` (int64, read-only), and ``N = sum_k q_k^2``.

    The mechanism releases a function of ``Q x`` (Q the lower-triangular Toeplitz matrix of the q_k), computed
    exactly; its l2 sensitivity is ``sqrt(N)`` exactly (the first column is the longest, all q_k >= 0), whatever
    the float rounding of c_k was. N is summed exactly: q = hi 2^20 + lo with hi <= 2^20, lo < 2^20.
    """
    q = np.rint(np.ldexp(sqrt_factor(T), COEF_BITS)).astype(np.int64)
    hi, lo = q >> 20, q & ((1 << 20) - 1)
    n = (int(np.sum(hi * hi)) << 40) + (int(np.sum(hi * lo)) << 21) + int(np.sum(lo * lo))
    q.setflags(write=False)
    return q, n


_FIELD = 16                      # decimal digits per entry: every entry read back is below 2**51 < 10**16
_POW10 = 10 ** np.arange(_FIELD - 1, -1, -1, dtype=np.uint64)


def _exact_convolution(q: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """The first T entries of the convolution of the public factor ``q`` (non-negative int64, length T) with the
    private stream ``bits`` (0/1, length T), exactly, with the same work for every stream.

    Kronecker substitution: each vector becomes one decimal number, entry k in the 16-digit field at 10**(16 k);
    the two numbers are multiplied exactly by the decimal module (libmpdec; an ``Inexact`` or ``Rounded`` result
    raises), and the low T fields of the product are the wanted entries. The caller guarantees that each of them is
    below 10**16; a field's carry only goes up, so the fields above T may hold anything.

    No timing side channel: the stream's number is ``10**(16 T) + X`` (a 1 above its T fields), so it always has
    16 T + 1 digits, where X alone would lose its leading zeros and be as long as the position of the last event.
    The extra 1 adds Q 10**(16 T) to the product, in the fields >= T only. The stream's digits are written by
    additions (no division of private values); the product always has ``digits(Q) + 16 T`` digits (Q X is below
    Q 10**(16 T - 15), and Q does not begin with 15 nines: all q_k < 10**13, so its top field is followed by zeros);
    its low T fields are read back by one matrix product of fixed shape. What depends on the stream is only the
    values inside libmpdec's product of two numbers of fixed lengths, not which or how many operations it runs (it
    chooses its algorithm from the lengths).
    """
    T = q.size
    ctx = decimal.Context(prec=2 * T * _FIELD + 2, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                          traps=[decimal.Inexact, decimal.Rounded, decimal.InvalidOperation])
    public = ((q.astype(np.uint64)[::-1, None] // _POW10) % 10).astype(np.uint8) + 48
    stream = np.full((T, _FIELD), 48, dtype=np.uint8)
    stream[:, -1] += bits[::-1].astype(np.uint8)          # the last digit of each field: "0" or "1"
    a = decimal.Decimal(public.tobytes().decode("ascii"))
    b = decimal.Decimal("1" + stream.tobytes().decode("ascii"))          # 10**(16 T) + X: 16 T + 1 digits, always
    text = format(ctx.multiply(a, b), "f").encode("ascii")
    fields = (np.frombuffer(text[-T * _FIELD:], dtype=np.uint8) - 48).astype(np.uint64).reshape(T, _FIELD)
    return (fields[::-1] @ _POW10).astype(np.int64)


class FactorizationLattice(NamedTuple):
    """What :func:`factorization_lattice` returns: the lattice and the noise of the factorization release."""

    exponent: int    # the lattice step is g = 2**exponent
    variance: int    # the discrete Gaussian's parameter, in lattice steps squared (below 2**60)
    sigma: float     # the noise standard deviation in the units of the count, g sqrt(variance)


def factorization_lattice(horizon: int, rho: float) -> FactorizationLattice:
    """The lattice and the noise of the factorization release: ``(exponent, variance, sigma)``.

    :func:`factorization_counts` perturbs ``round(Q x / 2**(COEF_BITS + exponent))`` (Q x exact in integers) with
    discrete Gaussian noise of parameter ``variance`` (lattice steps squared) on the lattice of step
    g = 2**exponent. Event-level neighbours then differ by at most ``D = sqrt(N) / 2**(COEF_BITS + exponent) +
    sqrt(T)`` steps in l2 norm (N the exact squared norm of Q's first column), and ``variance = ceil(D^2 / (2
    rho))``, with sqrt(N) and sqrt(T) rounded up, is computed in exact rational arithmetic: the release is
    rho-zCDP (theorem ``cr-thm-fact``) with no float error in the charge.

    Parameters
    ----------
    horizon : int
        T, in [1, 2**20].
    rho : float
        zCDP parameter, in (0, 1e6]; refused (ValueError) when the noise would reach 2**30 lattice steps.

    Returns
    -------
    FactorizationLattice
        The NamedTuple ``(exponent, variance, sigma)``: the lattice exponent (int), the noise parameter (int, below
        2**60) and ``sigma = g sqrt(variance)``, the noise standard deviation in the units of the count.

    Examples
    --------
    >>> lattice = factorization_lattice(2**10, 0.5)
    >>> lattice.sigma == math.ldexp(math.sqrt(lattice.variance), lattice.exponent)
    True
    """
    T = _check_horizon(horizon, MAX_BATCH_HORIZON)
    r = _check_rho(rho)
    _, n = _integer_factor(T)
    delta = math.ldexp(math.sqrt(n), -COEF_BITS)           # float: only to choose the lattice, not to charge it
    sigma_ref = delta / math.sqrt(2 * r)
    exponent = max(math.frexp(min(sigma_ref * 2.0**-12, delta / math.sqrt(T) * 2.0**-10))[1] - 1, -COEF_BITS)
    shift = COEF_BITS + exponent
    steps = Fraction(math.isqrt(n - 1) + 1, 1 << shift) + (math.isqrt(T - 1) + 1)   # >= sqrt(N)/2^shift + sqrt(T)
    variance = math.ceil(steps * steps / (2 * Fraction(r)))
    if variance >= 2**60:
        raise ValueError(f"rho={rho!r} is too small at horizon={T}: the lattice noise would exceed 2**30 steps; "
                         "use a larger rho")
    return FactorizationLattice(exponent, variance, math.ldexp(math.sqrt(variance), exponent))


def _factorization_steps(x: np.ndarray, exponent: int) -> np.ndarray:
    """The lattice point of R x that the mechanism perturbs: ``round(Q x / 2**(COEF_BITS + exponent))``, exact.

    Q x is an exact integer below 2**51 < 10**16 (q_k <= 2**40, sum_k c_k <= 2 sqrt(T / pi) + 1 < 2**11), as
    :func:`_exact_convolution` requires; rounding half up by an integer shift.
    """
    shift = COEF_BITS + exponent
    w = _exact_convolution(_integer_factor(x.size)[0], x.astype(np.int64))
    return (w + (1 << (shift - 1))) >> shift if shift else w


def _toeplitz_apply(c: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The first T entries of the convolution c * v along the last axis (L v for the Toeplitz factor), by FFT.

    Used only for post-processing (applying L to the noisy lattice point), where float error costs no privacy.
    """
    T = v.shape[-1]
    size = 1 << (2 * T - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(c, size) * np.fft.rfft(v, size, axis=-1), size, axis=-1)[..., :T]


def factorization_counts(stream: npt.ArrayLike, rho: float, *, runs: int | None = None,
                         rng: np.random.Generator | int | None = None) -> np.ndarray:
    """The square-root factorization mechanism: all T private counts at once, ``L (g round(Q x / g) + g z)``.

    Guarantee: rho-zCDP under event-level neighbours, the horizon being the stream's (public) length (theorem
    ``cr-thm-fact``). R = L is rounded to the integer matrix Q = round(2**40 L) and Q x is computed exactly in
    integers (:func:`_exact_convolution`, the same number and size of operations for every stream), so the
    sensitivity charged in :func:`factorization_lattice` is exact; z is the exact discrete Gaussian, on the
    lattice of step g = 2**exponent. The product by L is float post-processing (an FFT). The exact variance of
    each answer: :func:`factorization_variance`.

    Parameters
    ----------
    stream : array_like of 0/1, shape (T,)
        The private events, T <= 2**20.
    rho : float
        zCDP parameter, in (0, 1e6]; a rho so small that the noise would reach 2**30 lattice steps is refused
        (ValueError). Nothing is clamped.
    runs : int, optional
        Number of independent releases; ``runs * T`` at most MAX_SIZE.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    numpy.ndarray of float64
        Shape (T,), or (runs, T) with ``runs``.

    Examples
    --------
    >>> factorization_counts([1, 1, 0, 1], 0.5, rng=0).shape
    (4,)
    """
    x = check_binary_array(stream, "stream", ndim=1)
    T = _check_horizon(x.size, MAX_BATCH_HORIZON)
    shape = _runs_shape(runs, T)
    exponent, variance, _ = factorization_lattice(T, rho)
    gen = as_rng(rng)
    lattice_point = _factorization_steps(x, exponent)
    noise = _dgauss_from_variance(Fraction(variance), math.prod(shape), gen).reshape(shape)
    return _toeplitz_apply(sqrt_factor(T), np.ldexp((lattice_point + noise).astype(np.float64), exponent))


def factorization_variance(t: npt.ArrayLike, horizon: int, rho: float) -> float | np.ndarray:
    """Exact variance of the factorization mechanism's answer at step t: ``sigma^2 sum_{k < t} c_k^2``.

    For the release of :func:`factorization_counts` (rho-zCDP under event-level neighbours, theorem
    ``cr-thm-fact``): answer t is ``c_t`` plus ``sum_{k<t} c_k z_{t-k}``, with sigma from
    :func:`factorization_lattice` (the discrete Gaussian's variance equals its parameter to far below double
    precision at these sizes). Not included: the deterministic rounding of R x to the lattice and of R's
    coefficients to multiples of 2**-40, carried through L, an error below ``(g/2 + t 2**-40) sum_{k<t} c_k``.

    Parameters
    ----------
    t : int or array_like of int
        Steps, whole numbers in [1, horizon].
    horizon : int
        T, in [1, 2**20].
    rho : float
        zCDP parameter, in (0, 1e6].

    Returns
    -------
    float or numpy.ndarray of float64
        A float for a scalar ``t``, else an array of its shape.

    Examples
    --------
    >>> T = 2**10
    >>> v = factorization_variance(np.arange(1, T + 1), T, 0.5)
    >>> bool(np.all(np.diff(v) > 0))
    True
    """
    T = _check_horizon(horizon, MAX_BATCH_HORIZON)
    steps = _check_steps(t, T)
    sigma = factorization_lattice(T, rho)[2]
    c = sqrt_factor(T)
    row_norms = np.cumsum(c * c)
    var = sigma * sigma * row_norms[steps - 1]
    return float(var) if np.ndim(t) == 0 else var
