"""Checkers for the exercises of the chapter "From the course to production" (DP at scale)."""

from __future__ import annotations

import math

import numpy as np

from .. import scale as _scale
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_sum_scale", "check_user_level_epsilon", "check_keep_sequence", "SUM_SCALE_QUESTION"]

#: The question of the first exercise: (epsilon, max_partitions, max_per_partition, bounds).
SUM_SCALE_QUESTION = (1.0, 4, 2, (-60.0, 240.0))


def check_sum_scale(answer) -> CheckResult:
    """Check the Laplace scale of the clamped sum in :func:`dpcourse.dp_group_by` for ``SUM_SCALE_QUESTION``.

    Total epsilon 1 split in three (selection, count, sum); sum of delays clamped to [-60, 240] with at
    most 4 destinations and 2 flights per destination and aircraft. Recognised slips: no budget split,
    and the other usual slips, named in the messages without the formula.
    """
    eps, m, c, (lo, hi) = SUM_SCALE_QUESTION
    share = eps / 3
    big = max(abs(lo), abs(hi))
    truth = m * c * big / share
    split = "the sum gets only its share of epsilon (selection and count spend the rest)"
    slips = [
        (m * c * big / eps, split),
        (m * c * big / (eps / 2), "partition selection spends a share of epsilon too, not only the two metrics"),
        (m * c * (hi - lo) / share, "under add/remove one user a row moves the sum by its value, at most "
                                   "max(|lower|, |upper|), not by the width of the interval"),
        (m * c * abs(lo) / share, "the largest change a row can make is the larger absolute bound"),
        (c * big / share, "one user reaches several partitions: the l1 sensitivity adds them up"),
        (m * big / share, "one user has several rows per partition"),
    ]
    return check_number(answer, truth, what="the Laplace scale of the sum", low=0, low_open=True, slips=slips)


def check_user_level_epsilon(answer) -> CheckResult:
    """Check: an event-level 0.1-DP count, at most 20 events per user enforced: the user-level epsilon.

    The limit is enforced by contribution bounding before the mechanism (not merely observed in the
    data: an observed maximum says nothing about a neighbouring dataset with a heavier user), so every
    user-level neighbour is a bounded number of event-level steps away (group privacy).
    Recognised slips: the event-level value itself, and the square-root growth of advanced composition
    (which concerns independent mechanisms, not one mechanism on a group of records).
    """
    truth = 20 * 0.1
    slips = [(0.1, "adding or removing a user changes up to 20 rows, not one"),
             (math.sqrt(20) * 0.1, "group privacy of a pure-DP mechanism grows linearly with the group size; "
                                   "a square root appears in composition of many mechanisms with a delta")]
    return check_number(answer, truth, what="the user-level epsilon", low=0, low_open=True, slips=slips)


# partition_selection_probability with the helpers that compute the sequence (its parameters per partition, its
# regimes, the probabilities themselves), through which select_partitions and dp_group_by go too.
_SEQ_FORBIDDEN = Forbidden(_scale.partition_selection_probability)
_SEQ_CASES = [(60, 1.0, 1e-5), (40, 0.5, 1e-8), (30, 2.0, 1e-3), (12, math.log(2), 0.1)]


def check_keep_sequence(student_fn) -> CheckResult:
    """Check ``student_fn(n_max, epsilon, delta) -> p`` (length n_max + 1): the optimal keep probabilities.

    For one partition per user (max_partitions = 1). The privacy constraints come first: p[0] = 0,
    p in [0, 1], and for every n >= 1 ``p[n] <= e^eps p[n-1] + delta`` and
    ``1 - p[n-1] <= e^eps (1 - p[n]) + delta``, each with a slack of ``1e-9 delta`` plus a few units of
    rounding of the quantities compared (so a sequence that is a billionth of delta too generous is refused,
    whatever delta is). Only a private sequence is then compared with
    :func:`dpcourse.partition_selection_probability`, to a relative 1e-9; calling that function is refused
    (the exercise is to derive the sequence from the two (epsilon, delta) constraints). The messages say
    which constraint is violated or that the sequence could be larger, never the formula.
    """
    for n_max, eps, delta in _SEQ_CASES:
        where = f"on n_max={n_max}, epsilon={eps:g}, delta={delta:g}"
        got, failure = call_student(student_fn, (n_max, eps, delta), where, shape=(n_max + 1,),
                                    forbidden=_SEQ_FORBIDDEN)
        if failure is not None:
            return failure
        if not np.all((got >= 0) & (got <= 1)):
            return CheckResult(False, f"probabilities must lie in [0, 1] {where}")
        if got[0] != 0:
            return CheckResult(False, f"a partition with no user must never be kept (p[0] = 0) {where}")
        e = math.exp(eps)
        # slack: a billionth of delta, plus a few ulps of the quantities compared (relative rounding only)
        ulp = 8 * np.finfo(float).eps
        rhs_up = e * got[:-1] + delta
        up = got[1:] > rhs_up + 1e-9 * delta + ulp * (rhs_up + got[1:])
        rhs_down = e * (1 - got[1:]) + delta
        down = 1 - got[:-1] > rhs_down + 1e-9 * delta + ulp * (rhs_down + 1.0)
        if up.any():
            return CheckResult(False, f"p[n] <= e^eps p[n-1] + delta fails at n = {int(np.argmax(up)) + 1} {where}")
        if down.any():
            return CheckResult(False, f"1 - p[n-1] <= e^eps (1 - p[n]) + delta fails at n = "
                                      f"{int(np.argmax(down)) + 1} {where}")
        want = _scale.partition_selection_probability(np.arange(n_max + 1), eps, delta)
        short = got < want * (1 - 1e-9)
        if short.any():
            return CheckResult(False, f"the sequence is private but not optimal: from n = {int(np.argmax(short))} "
                                      f"on it can be larger without breaking either constraint {where}")
    return CheckResult(True, "your sequence satisfies both constraints and is the optimal rule for every case "
                             "tried (to a relative 1e-9).")
