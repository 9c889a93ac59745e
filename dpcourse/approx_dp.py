"""Approximate (epsilon, delta)-differential privacy: statements that hold for every mechanism.

The exact delta of a pair of discrete output distributions is :func:`dpcourse.hockey_stick`; this module
holds the generic bounds built on it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validation import check_delta, check_positive_int, check_real

__all__ = ["GroupPrivacy", "group_privacy"]


class GroupPrivacy(NamedTuple):
    """What :func:`group_privacy` returns: the guarantee for datasets at distance k."""

    epsilon: float   # k epsilon
    delta: float     # delta (e^{k epsilon} - 1) / (e^epsilon - 1)


def group_privacy(epsilon: float, delta: float, k: int) -> GroupPrivacy:
    """The (epsilon_k, delta_k) guarantee for datasets at distance k of an (epsilon, delta)-DP mechanism.

    If a mechanism is (epsilon, delta)-DP under a neighbouring relation, then for datasets at distance at
    most ``k`` under that relation it satisfies the (epsilon, delta) inequality with

        epsilon_k = k epsilon,   delta_k = delta (1 + e^epsilon + ... + e^{(k-1) epsilon})
                                         = delta (e^{k epsilon} - 1) / (e^epsilon - 1)
                                        <= k e^{(k-1) epsilon} delta

    (theorem ``thm-approx-group``). The geometric sum is what the chain argument gives and is attained by
    a mechanism of the chapter; the textbook form ``k e^{(k-1) epsilon} delta`` bounds it. A ``delta_k``
    >= 1 is a vacuous guarantee; it is returned as computed (``inf`` on overflow).

    Parameters
    ----------
    epsilon : float
        epsilon >= 0 (at epsilon = 0 the sum is k delta).
    delta : float
        delta in [0, 1).
    k : int
        Group size (distance between the datasets), >= 1.

    Returns
    -------
    GroupPrivacy
        The NamedTuple ``(epsilon, delta)`` = ``(k * epsilon, delta_k)``.

    Examples
    --------
    >>> eps_k, delta_k = group_privacy(0.5, 1e-6, 2)
    >>> eps_k, round(delta_k / 1e-6, 6)  # 1 + e^0.5
    (1.0, 2.648721)
    """
    eps = check_real(epsilon, "epsilon", low=0.0)  # a bound, not a mechanism: (0, delta)-DP is meaningful
    d = check_delta(delta)
    k = check_positive_int(k, "k")
    if d == 0.0:
        return GroupPrivacy(k * eps, 0.0)
    if eps == 0.0:
        return GroupPrivacy(0.0, k * d)
    # log of (e^{k eps} - 1) / (e^eps - 1), without overflow: log(expm1(x)) = x + log(-expm1(-x)).
    log_ratio = k * eps + np.log(-np.expm1(-k * eps)) - eps - np.log(-np.expm1(-eps))
    with np.errstate(over="ignore"):
        return GroupPrivacy(k * eps, float(d * np.exp(log_ratio)))
