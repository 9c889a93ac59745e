"""Sequential and parallel composition of pure DP releases, and the exact privacy loss of Laplace releases.

The chapter "Composing private releases" proves both rules (theorems ``thm-basic-composition`` and
``thm-parallel-composition``); the advanced and optimal forms are in :mod:`dpcourse.composition`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import numpy.typing as npt

from ._validation import check_epsilon, check_real_array, check_relation, check_sensitivity

__all__ = ["composed_epsilon", "laplace_privacy_loss"]


def composed_epsilon(epsilons: Sequence[float], parts: Sequence[Hashable | None] | None = None, *,
                     relation: str) -> float:
    """Total epsilon of a plan of pure DP releases on one dataset, by sequential and parallel composition.

    Release j is ``epsilons[j]``-DP on its input. Its input is the whole dataset if ``parts[j]`` is None,
    and otherwise the sub-dataset of the records lying in the part named ``parts[j]`` of a *public*
    partition of the universe, fixed before seeing the data. The releases may be chosen adaptively and
    run with independent randomness.

    * ``relation="add_remove"``: every release is ``epsilons[j]``-DP under add/remove. One record lies in
      one part p, so the total is ``sum(whole-dataset epsilons) + max_p sum(epsilons on part p)``
      (theorem ``thm-basic-composition`` for the releases that see the record, theorem
      ``thm-parallel-composition`` for the parts).
    * ``relation="replace_one"``: whole-dataset releases are ``epsilons[j]``-DP under replace-one, and
      releases on a part are ``epsilons[j]``-DP under add/remove on that part (its size changes when a
      record moves between parts). A replacement removes a record from one part and adds one to a part
      (possibly the same), so the total is ``sum(whole-dataset epsilons) + 2 max_p sum(epsilons on part p)``
      (the parallel part of theorem ``thm-parallel-composition``).

    Without ``parts`` this is sequential composition: ``sum(epsilons)``; with equal epsilons it agrees
    with :func:`dpcourse.basic_composition`.

    Parameters
    ----------
    epsilons : sequence of float
        Per-release epsilon, each > 0; at least one.
    parts : sequence or None
        One hashable label per release (None for the whole dataset), or None: every release on the whole
        dataset.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation of the total guarantee (required: the total depends on it).

    Returns
    -------
    float
        The total epsilon; the plan is that-DP under ``relation``.

    Examples
    --------
    >>> composed_epsilon([0.5, 0.25], relation="add_remove")
    0.75
    >>> composed_epsilon([1.0, 1.0, 1.0], ["Adelie", "Chinstrap", "Gentoo"], relation="add_remove")
    1.0
    >>> composed_epsilon([0.2, 0.5, 0.3, 0.4], [None, "a", "b", "a"], relation="add_remove")
    1.1
    >>> composed_epsilon([1.0, 1.0, 1.0], ["Adelie", "Chinstrap", "Gentoo"], relation="replace_one")
    2.0
    """
    relation = check_relation(relation)
    if isinstance(epsilons, (str, bytes)) or not hasattr(epsilons, "__len__"):
        raise TypeError(f"epsilons must be a sequence of positive numbers, got {epsilons!r}")
    if len(epsilons) == 0:
        raise ValueError("epsilons must hold at least one release, got an empty sequence")
    eps = [check_epsilon(e, f"epsilons[{j}]") for j, e in enumerate(epsilons)]
    if parts is None:
        parts = [None] * len(eps)
    if isinstance(parts, (str, bytes)) or not hasattr(parts, "__len__"):
        raise TypeError(f"parts must be a sequence of labels (None for the whole dataset), got {parts!r}")
    if len(parts) != len(eps):
        raise ValueError(f"parts must have one label per release: {len(eps)} epsilons, {len(parts)} parts")
    whole = 0.0
    per_part: dict = {}
    for e, part in zip(eps, parts):
        try:
            hash(part)
        except TypeError:
            raise TypeError(f"parts must hold hashable labels (or None), got {part!r}") from None
        if part is None:
            whole += e
        else:
            per_part[part] = per_part.get(part, 0.0) + e
    largest = max(per_part.values(), default=0.0)
    return whole + (largest if relation == "add_remove" else 2.0 * largest)


def laplace_privacy_loss(y: npt.ArrayLike, fx: npt.ArrayLike, fx_prime: npt.ArrayLike,
                         scale: float | npt.ArrayLike) -> float | np.ndarray:
    """Exact privacy loss ln(p_x(y) / p_x'(y)) of independent Laplace releases, summed over coordinates.

    Release j outputs ``y_j = f_j(x) + Lap(scale_j)``. Its privacy loss at ``y_j`` is
    ``(|y_j - f_j(x')| - |y_j - f_j(x)|) / scale_j`` (the log ratio of the two densities, definition
    ``def-privacy-loss``), which lies in ``[-|f_j(x) - f_j(x')| / scale_j, +|f_j(x) - f_j(x')| / scale_j]``
    (theorem ``thm-laplace-privacy``). The loss of the releases together is the sum over the last axis
    (the releases are independent; theorem ``thm-basic-composition``). This is the loss of the ideal
    real-valued mechanism evaluated at ``y``, whatever sampler produced ``y``.

    Parameters
    ----------
    y : array_like, shape (..., k)
        Outputs, one row per draw, one column per release (a 1-d array is one draw of k releases).
    fx, fx_prime : array_like, shape (k,)
        The exact values f(x) and f(x') of the k released statistics.
    scale : float or array_like, shape (k,)
        Laplace scale of each release, > 0.

    Returns
    -------
    numpy.ndarray or float
        The total privacy loss of each draw (shape ``y.shape[:-1]``; a float for one draw).

    Examples
    --------
    >>> float(laplace_privacy_loss([0.0, -2.0], [0.0, 0.0], [1.0, 1.0], [2.0, 1.0]))
    1.5
    >>> float(laplace_privacy_loss([5.0], [0.0], [1.0], 1.0))
    -1.0
    """
    y = check_real_array(y, "y")
    if y.ndim == 0:
        raise ValueError("y must have at least one axis (one column per release)")
    fx = check_real_array(fx, "fx", ndim=1)
    fx_prime = check_real_array(fx_prime, "fx_prime", ndim=1)
    k = y.shape[-1]
    if fx.shape != (k,) or fx_prime.shape != (k,):
        raise ValueError(f"fx and fx_prime must have one value per release ({k}), got shapes {fx.shape} "
                         f"and {fx_prime.shape}")
    if np.ndim(scale) == 0:
        b = np.full(k, check_sensitivity(scale, "scale"))
    else:
        b = check_real_array(scale, "scale", ndim=1)
        if b.shape != (k,):
            raise ValueError(f"scale must be one number or one per release ({k}), got shape {b.shape}")
        for j, bj in enumerate(b):
            check_sensitivity(float(bj), f"scale[{j}]")
    loss = ((np.abs(y - fx_prime) - np.abs(y - fx)) / b).sum(axis=-1)
    return float(loss) if loss.ndim == 0 else loss
