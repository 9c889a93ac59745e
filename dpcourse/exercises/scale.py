"""Checkers for the exercises of the chapter "From the course to production" (DP at scale)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import partition_selection as _selection
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_sum_scale", "check_user_level_epsilon", "check_keep_sequence", "SUM_SCALE_QUESTION"]

#: The question of the first exercise: (epsilon, max_partitions, max_per_partition, bounds).
SUM_SCALE_QUESTION = (1.0, 4, 2, (-60.0, 240.0))


def check_sum_scale(answer: object, *, epsilon: float | None = None, m: int | None = None, c: int | None = None,
                    lower: float | None = None, upper: float | None = None) -> CheckResult:
    """Check the Laplace scale of the clamped sum in :func:`dpcourse.dp_group_by` for ``SUM_SCALE_QUESTION``.

    Total epsilon 1 split in three (selection, count, sum); sum of delays clamped to [-60, 240] with at
    most 4 destinations and 2 flights per destination and aircraft. ``epsilon``, ``m`` (max_partitions),
    ``c`` (max_per_partition), ``lower``, ``upper`` replace the book's numbers (a homework variant).
    Recognised slips: no budget split, and the other usual slips, named in the messages without the formula.
    """
    return check_number(answer, **_sum_scale_question(epsilon=epsilon, m=m, c=c, lower=lower, upper=upper))


def _sum_scale_question(epsilon: float | None = None, m: int | None = None, c: int | None = None,
                        lower: float | None = None, upper: float | None = None) -> dict:
    """check_number's arguments for :func:`check_sum_scale` with these numbers."""
    book_eps, book_m, book_c, (book_lo, book_hi) = SUM_SCALE_QUESTION
    eps = book_eps if epsilon is None else epsilon
    m = book_m if m is None else m
    c = book_c if c is None else c
    lo = book_lo if lower is None else lower
    hi = book_hi if upper is None else upper
    share = eps / 3
    big = max(abs(lo), abs(hi))
    truth = m * c * big / share
    split = "the sum gets only its share of epsilon (selection and count spend the rest)"
    slips = [
        (m * c * big / eps, split),
        (m * c * big / (eps / 2), "partition selection spends a share of epsilon too, not only the two metrics"),
        (m * c * (hi - lo) / share, "under add/remove one user a row moves the sum by its value, at most "
                                   "max(|lower|, |upper|), not by the width of the interval"),
        (m * c * min(abs(lo), abs(hi)) / share, "the largest change a row can make is the larger absolute bound"),
        (c * big / share, "one user reaches several partitions: the l1 sensitivity adds them up"),
        (m * big / share, "one user has several rows per partition"),
    ]
    return dict(truth=truth, what="the Laplace scale of the sum", low=0, low_open=True, slips=slips)


def check_user_level_epsilon(answer: object, *, epsilon: float = 0.1, max_events: int = 20) -> CheckResult:
    """Check: an event-level 0.1-DP count, at most 20 events per user enforced: the user-level epsilon.

    (``epsilon`` and ``max_events``: the book's numbers, or a homework variant's.) The limit is enforced by
    contribution bounding before the mechanism (not merely observed in the data: an observed maximum says
    nothing about a neighbouring dataset with a heavier user), so every user-level neighbour is a bounded
    number of event-level steps away (group privacy). Recognised slips: the event-level value itself, and
    the square-root growth of advanced composition (which concerns independent mechanisms, not one
    mechanism on a group of records).
    """
    return check_number(answer, **_user_level_question(epsilon, max_events))


def _user_level_question(epsilon: float = 0.1, max_events: int = 20) -> dict:
    """check_number's arguments for :func:`check_user_level_epsilon` with these numbers."""
    truth = max_events * epsilon
    slips = [(epsilon, f"adding or removing a user changes up to {max_events} rows, not one"),
             (math.sqrt(max_events) * epsilon, "group privacy of a pure-DP mechanism grows linearly with the group "
                                               "size; a square root appears in composition of many mechanisms "
                                               "with a delta")]
    return dict(truth=truth, what="the user-level epsilon", low=0, low_open=True, slips=slips)


# partition_selection_probability with the helpers that compute the sequence (its parameters per partition, its
# regimes, the probabilities themselves), through which select_partitions and dp_group_by go too.
# The float rule, and the certified integer rule beside it (its thresholds are the same keep probabilities,
# exact): either answers the exercise.
_SEQ_FORBIDDEN = Forbidden(_selection.partition_selection_probability, _selection.partition_selection_thresholds,
                           _selection._selection_sequence, _selection._threshold_sequence,
                           _selection._certified_parameters)
_SEQ_CASES = [(60, 1.0, 1e-5), (40, 0.5, 1e-8), (30, 2.0, 1e-3), (12, math.log(2), 0.1)]


def _seq_cases(rng):
    """The book's four cases, or four drawn from the grader's ``rng``: epsilon over 0.2..3 (to 3 digits), delta
    over 1e-9..1e-2 on a log scale (to 2 digits), and n_max from 1.3 to 2.5 times the n at which the
    sequence passes 1/2, so that both constraints bind within the sequence (a rule that forgets one of them
    breaks it there)."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return _SEQ_CASES
    cases = []
    for _ in range(4):
        eps, delta = rounded(rng.uniform(0.2, 3.0)), rounded(log_uniform(rng, 1e-9, 1e-2), 2)
        half = math.log1p(math.expm1(eps) / (2 * delta)) / eps     # delta (e^(n eps) - 1) / (e^eps - 1) = 1/2
        cases.append((max(3, math.ceil(half * rng.uniform(1.3, 2.5))), eps, delta))
    return cases


def check_keep_sequence(student_fn: Callable[..., Any], *, rng: np.random.Generator | None = None) -> CheckResult:
    """Check ``student_fn(n_max, epsilon, delta) -> p`` (length n_max + 1): the optimal keep probabilities.

    For one partition per user (max_partitions = 1), on the book's four cases or (``rng``, a numpy
    Generator: the homework grader's) on four drawn from it. The privacy constraints come first: p[0] = 0,
    p in [0, 1], and for every n >= 1 ``p[n] <= e^eps p[n-1] + delta`` and
    ``1 - p[n-1] <= e^eps (1 - p[n]) + delta``, each with a slack of ``1e-9 delta`` plus a few units of
    rounding of the quantities compared (so a sequence that is a billionth of delta too generous is refused,
    whatever delta is). Only a private sequence is then compared with
    :func:`dpcourse.partition_selection_probability`, to a relative 1e-9; calling that function is refused
    (the exercise is to derive the sequence from the two (epsilon, delta) constraints). The messages say
    which constraint is violated or that the sequence could be larger, never the formula.
    """
    from ._draws import shown

    for n_max, eps, delta in _seq_cases(rng):
        where = shown(f"on n_max={n_max}, epsilon={eps:g}, delta={delta:g}")
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
        want = _selection.partition_selection_probability(np.arange(n_max + 1), eps, delta)
        short = got < want * (1 - 1e-9)
        if short.any():
            return CheckResult(False, f"the sequence is private but not optimal: from n = {int(np.argmax(short))} "
                                      f"on it can be larger without breaking either constraint {where}")
    return CheckResult(True, "your sequence satisfies both constraints and is the optimal rule for every case "
                             "tried (to a relative 1e-9).")
