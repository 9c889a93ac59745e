"""Checkers for the exercises of the chapter "What differential privacy promises"."""

from __future__ import annotations

import math

import numpy as np

from ..divergences import hockey_stick
from . import CheckResult, Forbidden, call_student, check_number
from ._draws import check_rng, shown

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


def _distribution(rng, m: int, zeros: int = 0) -> list[float]:
    """A random distribution over ``m`` outcomes in hundredths (so that messages stay short), ``zeros`` of them 0."""
    cuts = np.sort(rng.choice(np.arange(1, 100), size=m - zeros - 1, replace=False))
    masses = [round(float(w) / 100, 2) for w in np.diff(np.r_[0, cuts, 100])] + [0.0] * zeros
    return [masses[i] for i in rng.permutation(m)]


def _hs_cases(rng) -> list:
    """The cases of :func:`check_hockey_stick`: the book's, or seven drawn from ``rng`` with the same roles.

    Drawn, in hundredths: a generic pair at a small epsilon, epsilon = 0 (the total variation), a zero in q
    where p > 0, a zero in p, pairs at moderate and larger epsilons, and a large epsilon with a zero in q.
    Each recognised slip gives another number on some case (two distributions have outcomes on both sides
    of e^eps q as soon as epsilon > 0).
    """
    if rng is None:
        return _HS_CASES

    def pair(lo, hi, zero_in=None):
        m = int(rng.integers(lo, hi + 1))
        p, q = _distribution(rng, m, zeros=int(zero_in == "p")), _distribution(rng, m, zeros=int(zero_in == "q"))
        return p, q

    def eps(lo, hi):
        return round(float(rng.uniform(lo, hi)), 2)

    return [pair(3, 6) + (eps(0.05, 0.5),), pair(2, 4) + (0.0,), pair(3, 5, "q") + (eps(0.5, 2.0),),
            pair(3, 5, "p") + (eps(0.1, 1.0),), pair(2, 4) + (eps(0.5, 1.5),), pair(2, 3, "q") + (eps(5.0, 40.0),),
            pair(3, 6) + (eps(1.0, 3.0),)]


def check_hockey_stick(student_fn, *, rng=None) -> CheckResult:
    """Check a student's implementation ``student_fn(p, q, epsilon) -> float`` of the hockey-stick divergence.

    With ``rng=None`` the cases are the book's seven; with a :class:`numpy.random.Generator` seven cases of the
    same kinds (a zero in q, a zero in p, epsilon = 0, a large epsilon, asymmetric pairs) are drawn from it.
    The message describes the first case that fails (its inputs and what is wrong with the value), never
    the expected value. A function that calls :func:`dpcourse.hockey_stick` (however it is reached) is refused.
    """
    cases = _hs_cases(check_rng(rng))
    for p, q, eps in cases:
        got, failure = call_student(student_fn, (np.array(p), np.array(q), eps), f"on p={p}, q={q}, epsilon={eps}",
                                    forbidden=_FORBIDDEN)
        if failure is not None:
            return failure
        want = hockey_stick(p, q, eps)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        where = shown(f"on p={p}, q={q}, epsilon={eps}")
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
    return CheckResult(True, f"your function agrees with the definition on all {len(cases)} test cases.")


def check_mixture_epsilon(answer, n: int, truth_probability: float = 0.5) -> CheckResult:
    """Check the exact epsilon of the 'true count with probability 1/2, else uniform on {0..n}' mechanism.

    ``answer`` is the student's epsilon (in nats) for a class of ``n`` students under replace-one,
    accepted within 0.1% (so the answer typed to five significant digits passes). ``truth_probability`` is
    the probability of publishing the true count (1/2 in the book; a homework variant changes it). Invalid
    answers (strings, NaN, inf, a negative number) are refused before any feedback; recognised slips are
    named; otherwise the message gives no direction.
    """
    return check_number(answer, **_mixture_question(n, truth_probability))


def _mixture_question(n: int, truth_probability: float = 0.5) -> dict:
    """check_number's arguments for :func:`check_mixture_epsilon` with these numbers (the homework's pool uses
    its truth and slips)."""
    t = truth_probability
    ratio = (t * (n + 1) + (1 - t)) / (1 - t)   # largest ratio of one outcome's probabilities
    truth = math.log(ratio)
    wrong_log = "right idea, wrong logarithm: epsilon uses the natural log"
    slips = ((math.log10(ratio), wrong_log), (math.log2(ratio), wrong_log),
             (math.log(ratio - 1), "compare the probabilities of the *same* outcome under the two neighbours: "
                                   "count every way that outcome can be published"),
             (-math.log(1 - t), "that is the ratio of the two branches' weights, not of one outcome's "
                                "probabilities under neighbouring datasets"))
    numbers = f"n = {n}" if t == 0.5 else f"n = {n} and probability {t:g}"
    return dict(truth=truth, what="epsilon", low=0.0, slips=slips, correct=f"That is the exact epsilon for {numbers}.")
