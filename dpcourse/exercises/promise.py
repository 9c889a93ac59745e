"""Checkers for the exercises of the chapter "What differential privacy promises"."""

from __future__ import annotations

import math

import numpy as np

from ..divergences import hockey_stick
from . import CheckResult, Forbidden, call_student, check_number

# The exercise asks the student to write this function, not to call it (with it, its module's helpers).
_FORBIDDEN = Forbidden(hockey_stick)

__all__ = ["check_hockey_stick", "check_mixture_epsilon"]

# Cases chosen so that typical slips give a wrong number: a zero in q, outcomes where p < e^eps q,
# asymmetric p and q, epsilon = 0, and a large epsilon.
_HS_CASES = [
    ([0.1, 0.6, 0.3], [0.4, 0.4, 0.2], 0.1),
    ([0.75, 0.25], [0.25, 0.75], 0.0),
    ([0.75, 0.25], [0.25, 0.75], 0.5),
    ([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 0.2),
    ([0.5, 0.5, 0.0], [0.5, 0.25, 0.25], 1.0),
    ([0.2, 0.8], [0.0, 1.0], 3.0),
    ([0.6, 0.4], [0.5, 0.5], 30.0),
]


def check_hockey_stick(student_fn) -> CheckResult:
    """Check a student's implementation ``student_fn(p, q, epsilon) -> float`` of the hockey-stick divergence.

    The message describes the first case that fails (its inputs and what is wrong with the value), never
    the expected value. A function that calls :func:`dpcourse.hockey_stick` (however it is reached) is refused.
    """
    for p, q, eps in _HS_CASES:
        got, failure = call_student(student_fn, (np.array(p), np.array(q), eps), f"on p={p}, q={q}, epsilon={eps}",
                                    forbidden=_FORBIDDEN)
        if failure is not None:
            return failure
        want = hockey_stick(p, q, eps)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        where = f"on p={p}, q={q}, epsilon={eps}"
        pa, qa, scale = np.array(p), np.array(q), np.exp(eps)
        slips = [  # (value a typical slip gives, hint for it)
            (float(np.abs(pa - scale * qa).sum()), "it looks as if you summed |p - e^eps q|; only the outcomes where p is larger count"),
            (float((pa - scale * qa).sum()), "it looks as if you summed p - e^eps q over all outcomes; drop the outcomes where it is negative"),
            (hockey_stick(q, p, eps), "it looks as if you computed the other direction, with the roles of p and q swapped"),
        ]
        if math.isnan(got):
            return CheckResult(False, f"{where} your function returned NaN; is something like 0 * inf happening?")
        for value, hint in slips:
            if math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-12) and not math.isclose(value, want, rel_tol=1e-9):
                return CheckResult(False, f"{where}: {hint}")
        if got < 0:
            return CheckResult(False, f"{where} you returned {got:.4g} < 0; a sum of positive parts is never negative")
        if got > 1:
            return CheckResult(False, f"{where} you returned {got:.4g} > 1; delta is a difference of probabilities")
        tv = 0.5 * float(np.abs(pa - qa).sum())
        if got > tv + 1e-12:
            return CheckResult(False, f"{where} you returned {got:.4g}, more than the total variation distance of p and q; "
                                      "the divergence can only shrink as epsilon grows")
        return CheckResult(False, f"{where} your value {got:.6g} is off; write down the event S that attains "
                                  "the supremum of P(S) - e^eps Q(S) and sum over it")
    return CheckResult(True, f"your function agrees with the definition on all {len(_HS_CASES)} test cases.")


def check_mixture_epsilon(answer, n: int) -> CheckResult:
    """Check the exact epsilon of the 'true count with probability 1/2, else uniform on {0..n}' mechanism.

    ``answer`` is the student's epsilon (in nats) for a class of ``n`` students under replace-one,
    accepted within 0.1% (so the answer typed to five significant digits passes). Invalid answers (strings, NaN, inf, a
    negative number) are refused before any feedback; recognised slips are named; otherwise the
    message gives no direction.
    """
    truth = math.log(n + 2)
    wrong_log = "right idea, wrong logarithm: epsilon uses the natural log"
    slips = ((math.log10(n + 2), wrong_log), (math.log2(n + 2), wrong_log),
             (math.log(n + 1), "compare the probabilities of the *same* outcome under the two neighbours: "
                               "count every way that outcome can be published"),
             (math.log(2.0), "that is the ratio of the two branches' weights, not of one outcome's "
                             "probabilities under neighbouring datasets"))
    return check_number(answer, truth, what="epsilon", low=0.0, slips=slips,
                        correct=f"That is the exact epsilon for n = {n}.")
