"""Checkers for the exercises of the chapter "Lower bounds: why the noise cannot be smaller"."""

from __future__ import annotations

import math

from ..lower_bounds import packing_error_bound, packing_failure_probability
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_packing_error", "check_packing_probability"]

#: The question of exercise ``lb-ex-packing-error``: k bins, ε, relation.
PACKING_QUESTION = (21, 0.25, "replace_one")


def check_packing_error(answer, *, k=None, epsilon=None, relation=None) -> CheckResult:
    """Check the error that corollary ``lb-cor-packing`` certifies for the exercise's histogram (median sense).

    The truth is :func:`dpcourse.lower_bounds.packing_error_bound` on :data:`PACKING_QUESTION` (or on the
    ``k``, ``epsilon``, ``relation`` of a homework variant). Recognised slips: the number of other datasets
    taken as under the other neighbouring relation, the halving of the distance forgotten, the number of
    records m left unrounded, and m rounded up (or to the nearest) instead of down. Where two slips give the
    same number (at the book's question, the other relation's count and m rounded up do), the message names
    both, so that it never blames a slip the student did not make.
    """
    return check_number(answer, **_packing_error_question(k, epsilon, relation))


def _packing_error_question(k=None, epsilon=None, relation=None) -> dict:
    """check_number's arguments for :func:`check_packing_error` with these numbers."""
    k, eps, rel = (given if given is not None else book
                   for given, book in zip((k, epsilon, relation), PACKING_QUESTION))
    truth = packing_error_bound(k, eps, relation=rel)
    other = packing_error_bound(k, eps, relation="add_remove" if rel == "replace_one" else "replace_one")
    unfloored = math.log(k - 1 if rel == "replace_one" else k) / eps / 2
    rounded_up = math.ceil(2 * unfloored) / 2
    slips = [(other, "that is the count of the other neighbouring relation: under this one, how many datasets of the "
                     "proof are at distance m from the centre one?"),
             (2 * truth, "the balls around the datasets' histograms must be disjoint: their radius is half the "
                         "distance between two histograms"),
             (unfloored, "m counts records, so it is a whole number: the proof needs e^(ε m) small enough for a "
                         "whole m"),
             (rounded_up, "m was rounded the wrong way: the proof needs e^(ε m) at most the number of other "
                          "datasets, so the largest whole m that meets it")]
    return dict(truth=truth, what="the certified error", low=0.0, slips=slips)


# The function with its module's helpers, among them the count of the datasets compared with the centre one
# under each relation (packing_error_bound goes through both).
_PROBABILITY_FORBIDDEN = Forbidden(packing_failure_probability)
_CASES = [(1, 1.0, 1, "add_remove"), (8, 0.5, 3, "add_remove"), (8, 0.5, 3, "replace_one"),
          (1000, 2.0, 4, "replace_one"), (2, 0.1, 20, "replace_one")]


def _probability_cases(rng):
    """The book's five cases, or six drawn from the grader's ``rng``, three per relation: k over 1..10^5 on a
    log scale (from 2 under replace-one), m from 1 to 30 and epsilon (to 3 digits) over 0.01..min(3, 20/m),
    so that e^(epsilon m) stays below e^20 and the probability above 1e-9 times k (a wrong answer is not
    lost in the absolute tolerance)."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return _CASES
    cases = []
    for rel in ("add_remove", "replace_one") * 3:
        m = int(rng.integers(1, 31))
        k = int(round(log_uniform(rng, 1.0 if rel == "add_remove" else 2.0, 1e5)))
        cases.append((k, rounded(log_uniform(rng, 0.01, min(3.0, 20.0 / m))), m, rel))
    return [cases[i] for i in rng.permutation(len(cases))]


def check_packing_probability(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(k, epsilon, m, relation)``: the worst-case failure probability of theorem ``lb-thm-packing``.

    Compared with :func:`dpcourse.lower_bounds.packing_failure_probability` (forbidden inside the student's
    function) to 1e-9 relative on a few cases under both relations (the book's, or with ``rng`` -- a numpy
    Generator: the homework grader's -- cases drawn from it). Recognised slips: the count of the other
    relation, the sign of the exponent, and the ratio written the other way up.
    """
    from ._draws import shown

    for k, eps, m, rel in _probability_cases(rng):
        where = shown(f"on k={k}, epsilon={eps}, m={m}, relation={rel!r}")
        got, err = call_student(student_fn, (k, eps, m, rel), where,
                                forbidden=_PROBABILITY_FORBIDDEN)
        if err is not None:
            return err
        want = packing_failure_probability(k, eps, m, relation=rel)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-15):
            continue
        big = k if rel == "replace_one" else k - 1
        slips = []
        if big >= 1:
            slips.append((big / (big + math.exp(eps * m)), "the number of datasets compared with the centre one "
                                                           "depends on the neighbouring relation"))
        small = k if rel == "add_remove" else k - 1
        slips += [(small / (small + math.exp(-eps * m)), "group privacy makes a far dataset's probability smaller "
                                                         "by e^(ε m), not larger"),
                  (math.exp(eps * m) / (small + math.exp(eps * m)), "that is the probability of the good event at "
                                                                    "the centre dataset, not of the error")]
        for value, hint in slips:
            if math.isclose(got, value, rel_tol=1e-9):
                return CheckResult(False, f"{where}: {hint}")
        return CheckResult(False, f"{where}: not the theorem's probability yet (it must hold for every ε-DP "
                                  f"mechanism, and be attained by the counting argument of the proof).")
    return CheckResult(True, "your function agrees with the theorem on every case tried.")
