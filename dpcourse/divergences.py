"""Exact privacy quantities of two discrete output distributions.

A mechanism run on two neighbouring datasets gives two distributions ``p`` and ``q`` over the same
finite set of outcomes. These functions say exactly how far apart they are in the two senses that the
definitions of differential privacy use.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

import numpy as np
import numpy.typing as npt

from ._validation import check_distribution, check_real

__all__ = ["privacy_loss", "hockey_stick", "mechanism_epsilon"]


def _pair(p: npt.ArrayLike, q: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must be distributions over the same outcomes, got lengths {p.size} and {q.size}")
    return p, q


def privacy_loss(p: npt.ArrayLike, q: npt.ArrayLike) -> float:
    """The largest absolute privacy loss between two discrete distributions.

    Returns ``max_o |ln(p[o] / q[o])|`` over the outcomes ``o`` that either distribution can produce.
    It is the smallest epsilon such that ``p[o] <= e^epsilon q[o]`` and ``q[o] <= e^epsilon p[o]`` for every
    outcome, hence (summing over outcomes) for every event: a mechanism whose output distributions on
    every pair of neighbouring datasets have privacy loss at most epsilon is epsilon-DP, and the smallest
    such epsilon is the maximum of this quantity over neighbouring pairs (definition ``def-pure-dp`` and
    lemma ``lem-pointwise-suffices`` of the chapter "What differential privacy promises").

    Parameters
    ----------
    p, q : array_like of shape (m,)
        Probability distributions over the same m outcomes: finite, >= 0, each summing to 1 (within 1e-9).

    Returns
    -------
    float
        The loss in nats, ``inf`` if one distribution gives positive probability to an outcome the
        other never produces. Outcomes with ``p[o] = q[o] = 0`` are ignored.

    Raises
    ------
    TypeError, ValueError
        If ``p`` or ``q`` is not a probability distribution, or their lengths differ.

    Examples
    --------
    Randomized response with truth probability 3/4 on a bit equal to 1 or 0:

    >>> round(privacy_loss([0.75, 0.25], [0.25, 0.75]), 6)  # ln 3
    1.098612
    >>> privacy_loss([0.5, 0.5, 0.0], [0.5, 0.25, 0.25])
    inf
    """
    p, q = _pair(p, q)
    either = (p > 0) | (q > 0)
    if ((p == 0) != (q == 0))[either].any():
        return float("inf")
    both = p > 0
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def hockey_stick(p: npt.ArrayLike, q: npt.ArrayLike, epsilon: float | npt.ArrayLike) -> float | np.ndarray:
    """The hockey-stick divergence ``sum_o max(p[o] - e^epsilon q[o], 0)``.

    It is the smallest delta such that ``P(S) <= e^epsilon Q(S) + delta`` holds for every event ``S``
    (the event ``{o : p[o] > e^epsilon q[o]}`` attains it), i.e. the delta of (epsilon, delta)-DP in the
    direction p -> q. It is not symmetric: check both ``hockey_stick(p, q, eps)`` and
    ``hockey_stick(q, p, eps)`` for a pair of neighbours. At ``epsilon = 0`` it is the total variation
    distance (lemma ``lem-hockey-stick`` of the chapter "What differential privacy promises").

    Parameters
    ----------
    p, q : array_like of shape (m,)
        Probability distributions over the same m outcomes (checked as in :func:`privacy_loss`).
    epsilon : float or array_like of floats
        One or several values of epsilon >= 0, finite.

    Returns
    -------
    float or numpy.ndarray
        The divergence at each epsilon, in [0, 1]; a float for a scalar epsilon.

    Examples
    --------
    >>> hockey_stick([0.75, 0.25], [0.25, 0.75], 0.0)  # total variation
    0.5
    >>> round(hockey_stick([0.75, 0.25], [0.25, 0.75], 1.0), 6)  # 0.75 - e * 0.25
    0.07043
    >>> hockey_stick([0.75, 0.25], [0.25, 0.75], float(np.log(3)))
    0.0
    """
    p, q = _pair(p, q)
    scalar = np.ndim(epsilon) == 0
    if scalar:
        eps = np.array([check_real(epsilon, "epsilon", low=0.0)])
    else:
        eps = np.asarray(epsilon)
        if eps.dtype == bool or eps.dtype.kind not in "iuf":
            raise TypeError(f"epsilon must hold real numbers, got dtype {eps.dtype}")
        for e in eps.ravel():
            check_real(e, "epsilon", low=0.0)
        eps = eps.astype(float)
    # p - e^eps q, written so that a huge e^eps never meets q = 0 (inf * 0 would be NaN).
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.where(q == 0, 0.0, np.exp(eps)[..., None] * q)
    out = np.clip(np.maximum(p - scaled, 0.0).sum(axis=-1), 0.0, 1.0)
    return float(out[0]) if scalar else out.reshape(np.shape(epsilon))


def mechanism_epsilon(output_distributions: Mapping[Hashable, npt.ArrayLike],
                      neighbours: Iterable[tuple[Hashable, Hashable]]) -> float:
    """The exact epsilon of a mechanism with finitely many inputs and outputs.

    Parameters
    ----------
    output_distributions : mapping
        ``{dataset: distribution}``: for each dataset (any hashable key), the probabilities of the
        mechanism's outcomes on it, all over the same outcomes.
    neighbours : iterable of pairs
        The pairs ``(x, x2)`` of keys that the neighbouring relation relates. The guarantee holds only for
        this relation: pass the add/remove pairs or the replace-one pairs, as the claim requires.

    Returns
    -------
    float
        ``max privacy_loss(M(x), M(x2))`` over the pairs: the smallest epsilon for which the mechanism is
        epsilon-DP under that relation (``inf`` if it is not epsilon-DP for any finite epsilon).

    Examples
    --------
    >>> dists = {0: [0.75, 0.25], 1: [0.25, 0.75]}
    >>> round(mechanism_epsilon(dists, [(0, 1)]), 6)
    1.098612
    """
    if not isinstance(output_distributions, Mapping):
        raise TypeError(f"output_distributions must be a mapping {{dataset: distribution}}, got "
                        f"{type(output_distributions).__name__}")
    if isinstance(neighbours, (str, bytes)) or not isinstance(neighbours, Iterable):
        raise TypeError(f"neighbours must be an iterable of pairs (x, x2), got {type(neighbours).__name__}")
    pairs = list(neighbours)
    if not pairs:
        raise ValueError("neighbours must contain at least one pair of datasets")
    for i, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable) or len(tuple(pair)) != 2:
            raise ValueError(f"neighbours[{i}] must be a pair (x, x2) of dataset keys, got {pair!r}")
    worst = 0.0
    for x, x2 in pairs:
        for key in (x, x2):
            if not isinstance(key, Hashable):
                raise TypeError(f"neighbours names the dataset {key!r}, which is not a valid key (unhashable "
                                f"{type(key).__name__}): use tuples, numbers or strings as dataset keys")
            if key not in output_distributions:
                raise ValueError(f"neighbours names the dataset {key!r}, which output_distributions lacks")
        p = check_distribution(output_distributions[x], f"output_distributions[{x!r}]")
        q = check_distribution(output_distributions[x2], f"output_distributions[{x2!r}]")
        if p.shape != q.shape:
            raise ValueError(f"output_distributions[{x!r}] and output_distributions[{x2!r}] must be distributions "
                             f"over the same outcomes, got lengths {p.size} and {q.size}")
        worst = max(worst, privacy_loss(p, q))
    return worst
