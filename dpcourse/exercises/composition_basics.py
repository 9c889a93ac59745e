"""Checkers for the exercises of the chapter "Composing private releases"."""

from __future__ import annotations

import math

from ..composition_basics import composed_epsilon
from . import CheckResult, Forbidden, call_student
from ._draws import check_rng, shown

__all__ = ["check_plan_epsilon"]

# the exercise asks the student to write this function, not to call it
_FORBIDDEN = Forbidden(composed_epsilon)

# (epsilons, parts): sequential only, parallel only, the same part twice, mixed plans, one release, and
# a plan whose largest part is not the one with the largest single release.
_PLANS = [
    ([0.5, 0.25], [None, None]),
    ([1.0, 1.0, 1.0], ["Adelie", "Chinstrap", "Gentoo"]),
    ([0.1, 0.3], ["a", "a"]),
    ([0.2, 0.5, 0.3, 0.4], [None, "a", "b", "a"]),
    ([0.25], [None]),
    ([0.6, 0.35, 0.35, 0.1], ["x", "y", "y", None]),
]


_NAMES = ("Adelie", "Chinstrap", "Gentoo", "Biscoe", "Dream", "Torgersen", "north", "south", "east", "west",
          "2023", "2024", "a", "b", "c", "x", "y", "z")


def _plans(rng) -> list:
    """The plans of :func:`check_plan_epsilon`: the book's, or six drawn from ``rng`` with the same roles.

    Drawn (epsilons in hundredths, part names from a list, the order of releases shuffled): whole-dataset
    releases only; one release on each of several parts; several releases on one part; a mix of
    whole-dataset releases and parts with repeats; one release; and a plan whose costliest part is not the
    one holding the largest single release (two releases on one part outweigh a larger one on another).
    """
    if rng is None:
        return _PLANS

    def eps(n, lo=0.05, hi=1.0):
        return [round(float(e), 2) for e in rng.uniform(lo, hi, size=n)]

    def names(n):
        return [str(x) for x in rng.choice(_NAMES, size=n, replace=False)]

    def shuffled(epsilons, parts):
        order = rng.permutation(len(epsilons))
        return [epsilons[i] for i in order], [parts[i] for i in order]

    sequential = int(rng.integers(2, 5))
    parallel = int(rng.integers(2, 6))
    one_part = names(1) * int(rng.integers(2, 4))
    a, b = names(2)
    mixed_parts = [None] * int(rng.integers(1, 3)) + [a, a, b] + [b] * int(rng.integers(0, 2))
    big = round(float(rng.uniform(0.5, 0.9)), 2)
    small = round(big * float(rng.uniform(0.55, 0.9)), 2)   # two of them outweigh one big release
    c, d = names(2)
    return [
        (eps(sequential), [None] * sequential),
        (eps(parallel), names(parallel)),
        (eps(len(one_part)), one_part),
        shuffled(eps(len(mixed_parts)), mixed_parts),
        (eps(1), [None if rng.random() < 0.5 else names(1)[0]]),
        shuffled([big, small, small] + eps(1, 0.05, 0.3), [c, d, d, None]),
    ]


def check_plan_epsilon(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(epsilons, parts)``: the total epsilon of a plan of releases under add/remove.

    Release j is ``epsilons[j]``-DP under add/remove on the whole dataset (``parts[j] is None``) or on the
    records of one part of a public partition (``parts[j]`` names the part). The plans are the book's six with
    ``rng=None``, or six of the same kinds (sequential, parallel, mixed) drawn from a
    :class:`numpy.random.Generator` ``rng``. The message names the first plan that is off and what the value
    looks like, never the expected total. A function that calls :func:`dpcourse.composed_epsilon` is refused:
    the exercise is to write it.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_plan_epsilon(my_plan_epsilon)")
    plans = _plans(check_rng(rng))
    for eps, parts in plans:
        where = shown(f"on epsilons={eps}, parts={parts}")
        got, failure = call_student(student_fn, (list(eps), list(parts)), f"{where}; return one number",
                                    forbidden=_FORBIDDEN)
        if failure is not None:
            return failure
        want = composed_epsilon(eps, parts, relation="add_remove")
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if not math.isfinite(got):
            return CheckResult(False, f"{where} your function returned {got}")
        whole = sum(e for e, p in zip(eps, parts) if p is None)
        if got <= 0:
            extra = ", and the whole-dataset releases (part None) see every record" if whole > 0 else ""
            return CheckResult(False, f"{where} your total is {got:g}, but every release costs some privacy{extra}")
        if math.isclose(got, sum(eps), rel_tol=1e-9):
            return CheckResult(False, f"{where} you added every release. A record lies in one part only: the "
                                      "releases on the other parts see the same data on both neighbours")
        if math.isclose(got, max(eps), rel_tol=1e-9):
            return CheckResult(False, f"{where} you took the largest single epsilon. Releases that see the same "
                                      "record (all whole-dataset releases, and all releases on one part) add up")
        per_part_max = whole + max((e for e, p in zip(eps, parts) if p is not None), default=0.0)
        if math.isclose(got, per_part_max, rel_tol=1e-9):
            return CheckResult(False, f"{where} two releases on the same part both see that part's records: "
                                      "within a part, epsilons add up")
        if whole > 0 and math.isclose(got, want - whole, rel_tol=1e-9):
            return CheckResult(False, f"{where} the whole-dataset releases (part None) are missing: they see every "
                                      "record, whatever its part")
        if math.isclose(got, composed_epsilon(eps, parts, relation="replace_one"), rel_tol=1e-9):
            return CheckResult(False, f"{where} the plan is under add/remove: one record is added or removed, so "
                                      "it enters or leaves one part only")
        return CheckResult(False, f"{where} your total is off; which releases can see one given record?")
    return CheckResult(True, f"your totals agree on all {len(plans)} plans, sequential, parallel and mixed.")
