"""The end-to-end user-level release: noisy per-key counts and clamped sums (theorem ``scale-thm-group-by``).

:func:`dp_group_by` bounds the contributions (:mod:`dpcourse.contribution_bounding`), selects the partitions
(:mod:`dpcourse.partition_selection`) unless they are public, and adds exact discrete or lattice Laplace noise
to each kept key's count and clamped sum; :func:`group_by_noise_scales` states its budget split and noise
scales. The unit of privacy is the user: neighbours differ by all the rows of one user (add/remove one user).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_rng, check_bounds, check_choice, check_delta, check_epsilon, check_positive_int
from .contribution_bounding import _bound_mask, _columns, _labels_column
from .discrete import geometric_mechanism
from .lattice import laplace_lattice
from .laplace import laplace_mechanism
from .partition_selection import (
    _keep_decisions,
    _per_partition_parameters,
    _released_keys,
    _selection_sequence,
    _user_counts,
)

__all__ = ["GroupByNoiseScales", "GroupByRelease", "group_by_noise_scales", "dp_group_by"]

_METRICS = ("count", "sum")


class _ByName:
    """Read access by name, as on the dicts these results replaced: ``result["count"]`` is ``result.count``.

    A field that is None (a metric that was not asked for) is absent: indexing it raises KeyError, ``in``
    says False and iteration skips it, as with the dict. :meth:`as_dict` gives that dict.
    """

    __slots__ = ()

    def _present(self) -> list[str]:
        return [name for name in getattr(self, "__dataclass_fields__") if getattr(self, name) is not None]

    def __getitem__(self, name: str) -> Any:
        if not isinstance(name, str) or name not in self._present():
            raise KeyError(name)
        return getattr(self, name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._present()

    def __iter__(self) -> Iterator[str]:
        return iter(self._present())

    def as_dict(self) -> dict[str, Any]:
        """The fields that are set, by name (the dict this result replaced)."""
        return {name: getattr(self, name) for name in self._present()}


@dataclasses.dataclass(frozen=True)
class GroupByNoiseScales(_ByName):
    """The budget split and noise scales of :func:`dp_group_by` (see :func:`group_by_noise_scales`).

    The fields of a metric that was not asked for are None (and absent when read by name,
    ``scales["count_scale"]``).
    """

    epsilon_selection: float               #: epsilon of partition selection (0 with public partitions)
    epsilon_count: float | None = None     #: epsilon of the count
    count_scale: float | None = None       #: discrete Laplace scale b of the count noise
    count_std: float | None = None         #: its standard deviation, sqrt(2 q) / (1 - q), q = e^(-1/b)
    epsilon_sum: float | None = None       #: epsilon of the clamped sum
    sum_scale: float | None = None         #: exact Laplace scale of the sum noise (lattice Laplace)
    sum_std: float | None = None           #: its standard deviation, sqrt(2) times the scale


@dataclasses.dataclass(frozen=True, eq=False)
class GroupByRelease(_ByName):
    """What :func:`dp_group_by` releases; fields also read by name (``out["count"]``), as the old dict.

    ``count`` or ``sum`` is None when that metric was not asked for.
    """

    keys: np.ndarray                        #: the released keys, sorted
    count: np.ndarray | None                #: noisy count per released key (int64), aligned with ``keys``
    sum: np.ndarray | None                  #: noisy clamped sum per released key (float64)
    scales: GroupByNoiseScales              #: the budget split and noise scales used


def _check_metrics(metrics: object) -> tuple[str, ...]:
    if isinstance(metrics, str) or not isinstance(metrics, (tuple, list)):
        raise TypeError(f"metrics must be a tuple of names from {_METRICS}, got {type(metrics).__name__} "
                        f"{metrics!r}")
    if len(metrics) == 0:
        raise ValueError(f"metrics must name at least one of {_METRICS}")
    names = tuple(check_choice(x, "metrics entry", _METRICS) for x in metrics)
    if len(set(names)) != len(names):
        raise ValueError(f"metrics must not repeat a name, got {metrics!r}")
    return names


def _check_pair(bounds: object) -> tuple[float, float]:
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise TypeError(f"bounds must be a pair (lower, upper), got {type(bounds).__name__} {bounds!r}")
    return check_bounds(bounds[0], bounds[1], "bounds[0]", "bounds[1]")


def _resolve_bounds(lower: float | None, upper: float | None, bounds: object, *, needed: bool,
                    stacklevel: int = 3) -> tuple[float, float] | None:
    """The checked public bounds ``(lower, upper)`` of the values, or None when none are given and the
    metrics need none. ``bounds=(lower, upper)`` is the deprecated spelling of ``lower=, upper=``; it warns
    (PendingDeprecationWarning, silent by default) at ``stacklevel`` (the caller of the public function)."""
    if bounds is not None:
        if lower is not None or upper is not None:
            raise TypeError("give the bounds of the values as lower= and upper=, or as the deprecated "
                            "bounds=(lower, upper), not both")
        warnings.warn("bounds=(lower, upper) is deprecated: pass lower= and upper=", PendingDeprecationWarning,
                      stacklevel=stacklevel)
        return _check_pair(bounds)
    if lower is None and upper is None:
        if needed:
            raise ValueError("lower and upper (the public bounds of the values) must be given for the metric 'sum'")
        return None
    if lower is None or upper is None:
        missing = "lower" if lower is None else "upper"
        raise ValueError(f"{missing} must be given too: the bounds of the values are a pair lower < upper")
    return check_bounds(lower, upper, "lower", "upper")


def group_by_noise_scales(epsilon: float, *, metrics: Sequence[str] = ("count", "sum"), lower: float | None = None,
                          upper: float | None = None, max_partitions: int, max_per_partition: int,
                          public_partitions: bool = False, n_partitions: int = 1,
                          bounds: tuple[float, float] | None = None) -> GroupByNoiseScales:
    """The budget split and noise scales that :func:`dp_group_by` uses (deterministic, releases nothing).

    The total epsilon is split in equal parts between partition selection (unless the partitions are
    public) and each metric; the whole delta goes to partition selection. Under **add/remove one user**,
    after :func:`dpcourse.bound_contributions`, the count has l1 sensitivity ``max_partitions *
    max_per_partition`` and gets discrete Laplace noise of scale ``l1 / eps_count``; the sum of values
    clamped to [lower, upper] has l1 sensitivity ``max_partitions * max_per_partition * max(|lower|,
    |upper|)`` and gets lattice Laplace noise, whose exact scale (slightly above ``l1 / eps_sum``: the
    rounding to the lattice is charged to the sensitivity, see :func:`dpcourse.laplace_lattice`) is
    reported for ``n_partitions`` released partitions. Theorem ``scale-thm-group-by``.

    Parameters
    ----------
    epsilon : float
        Total epsilon, > 0.
    metrics : tuple of str, default ("count", "sum")
        Among "count" and "sum", each at most once.
    lower, upper : float
        Public bounds of the values, lower < upper; required for "sum".
    max_partitions, max_per_partition : int
        Contribution bounds m and c, >= 1.
    public_partitions : bool, default False
        True when the released keys are public (no budget for selection).
    n_partitions : int, default 1
        Number of released partitions (the lattice of the sum noise depends on it), >= 1.
    bounds : (float, float), optional
        Deprecated spelling of ``(lower, upper)``.

    Returns
    -------
    GroupByNoiseScales
        ``epsilon_selection``, ``epsilon_count``/``epsilon_sum``, ``count_scale``, ``count_std`` (sqrt of
        the discrete Laplace variance), ``sum_scale`` and ``sum_std``, also read by name (``s["count_scale"]``);
        the fields of a metric not asked for are None.

    Examples
    --------
    >>> s = group_by_noise_scales(1.5, max_partitions=2, max_per_partition=3, lower=0, upper=10)
    >>> s.epsilon_count, s["count_scale"]
    (0.5, 12.0)
    """
    eps = check_epsilon(epsilon)
    names = _check_metrics(metrics)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    if not isinstance(public_partitions, (bool, np.bool_)):
        raise TypeError(f"public_partitions must be True or False, got {public_partitions!r}")
    k = check_positive_int(n_partitions, "n_partitions")
    pair = _resolve_bounds(lower, upper, bounds, needed="sum" in names)
    parts = len(names) + (0 if public_partitions else 1)
    share = eps / parts
    out: dict[str, float] = {"epsilon_selection": 0.0 if public_partitions else share}
    if "count" in names:
        b = m * c / share if share > 0.0 else math.inf
        if not b <= 2.0**50:   # the exact sampler's largest scale (discrete.SCALE_LIMIT); beyond, 1 - q is 0
            raise ValueError(f"the count noise scale max_partitions * max_per_partition / (epsilon / {parts}) must be "
                             f"at most 2**50, got max_partitions={m}, max_per_partition={c}, epsilon={epsilon!r}")
        q = math.exp(-1.0 / b)
        out.update(epsilon_count=share, count_scale=b, count_std=math.sqrt(2 * q) / (1 - q))
    if "sum" in names and pair is not None:
        lo, hi = pair
        sens = m * c * max(abs(lo), abs(hi))
        lat = laplace_lattice(sens, share, dim=k)
        out.update(epsilon_sum=share, sum_scale=lat.noise_scale,
                   sum_std=math.sqrt(2.0) * lat.noise_scale)
    return GroupByNoiseScales(**out)


def dp_group_by(user_ids: ArrayLike, keys: ArrayLike, values: ArrayLike | None, epsilon: float, delta: float, *,
                metrics: Sequence[str] = ("count", "sum"), lower: float | None = None, upper: float | None = None,
                max_partitions: int, max_per_partition: int, public_partitions: ArrayLike | None = None,
                rng: int | np.random.Generator | None = None,
                bounds: tuple[float, float] | None = None) -> GroupByRelease:
    """Release noisy per-key counts and clamped sums, (epsilon, delta)-DP at the user level.

    Steps (as in PipelineDP): :func:`dpcourse.bound_contributions` (m = ``max_partitions``, c =
    ``max_per_partition``); the exact keep coins of :func:`dpcourse.select_partitions` with budget
    (epsilon / (k + 1), delta) for k metrics, unless ``public_partitions`` lists the keys to release; the
    bounded count plus exact discrete Laplace noise; the sum of values clamped to [lower, upper] plus exact
    lattice Laplace noise. Budget split and noise scales: :func:`group_by_noise_scales`.

    Guarantee as implemented: (epsilon, delta)-DP under **add/remove one user** (all the rows of one
    ``user_id``; theorem ``scale-thm-group-by``), epsilon-DP with public partitions. A setting whose keep
    thresholds need more than ``SELECTION_MAX_STEPS`` steps is refused before the data are looked at.

    Parameters
    ----------
    user_ids, keys : array_like, shape (n,)
        Privacy id and partition key of each row (ints or strings).
    values : array_like of floats, shape (n,), or None
        Values to sum (may be None if "sum" is not asked).
    epsilon, delta : float
        Totals: epsilon > 0; delta in (0, 1) with private partition selection, in [0, 1) with public ones.
    metrics : tuple of str, default ("count", "sum")
    lower, upper : float
        Public clamping bounds of the values, lower < upper; required for "sum".
    max_partitions, max_per_partition : int
        Contribution bounds m and c, >= 1.
    public_partitions : array_like, optional
        Keys known without looking at the data (released whether or not they occur).
    rng : None, int or numpy.random.Generator, optional
    bounds : (float, float), optional
        Deprecated spelling of ``(lower, upper)``.

    Returns
    -------
    GroupByRelease
        ``keys`` (sorted), ``count`` (int64) and ``sum`` (float) aligned with them (None for a metric not
        asked) and ``scales`` (:func:`group_by_noise_scales`); fields also read by name, ``out["count"]``.

    Examples
    --------
    >>> users = np.arange(4000) // 4; keys = np.arange(4000) % 2
    >>> out = dp_group_by(users, keys, np.ones(4000), 1.0, 1e-6, lower=0, upper=1, max_partitions=2,
    ...                   max_per_partition=2, rng=0)
    >>> out.keys.tolist(), out["scales"]["count_scale"]
    ([0, 1], 12.0)
    """
    names = _check_metrics(metrics)
    users, ks, vals = _columns(user_ids, keys, values, need_values="sum" in names, allow_empty=True)
    eps = check_epsilon(epsilon)
    public = public_partitions is not None
    dlt = check_delta(delta, allow_zero=public)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    pair = _resolve_bounds(lower, upper, bounds, needed="sum" in names)
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
    lower_upper = (None, None) if pair is None else pair
    scales = group_by_noise_scales(eps, metrics=names, lower=lower_upper[0], upper=lower_upper[1], max_partitions=m,
                                   max_per_partition=c, public_partitions=public, n_partitions=max(n_out, 1))
    out: dict[str, Any] = {"keys": released if public else _released_keys(released), "scales": scales}
    if "count" in names:
        exact = np.bincount(kid, minlength=n_out).astype(np.int64)
        out["count"] = (geometric_mechanism(exact, m * c, scales["epsilon_count"], rng=gen) if n_out
                        else exact)
    if "sum" in names and pair is not None and vals is not None:
        lo, hi = pair
        exact = np.bincount(kid, weights=np.clip(vals, lo, hi), minlength=n_out)
        sens = m * c * max(abs(lo), abs(hi))
        out["sum"] = (np.atleast_1d(laplace_mechanism(exact, sens, scales["epsilon_sum"], rng=gen, secure=True))
                      if n_out else exact)
    return GroupByRelease(out["keys"], out.get("count"), out.get("sum"), scales)
