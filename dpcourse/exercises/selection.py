"""Checkers for the exercises of the chapter "Private selection"."""

from __future__ import annotations

import math

import numpy as np

from ..selection import exponential_probabilities
from . import CheckResult, Forbidden, call_student, check_number
from ._draws import check_rng, shown

__all__ = ["check_em_probabilities", "check_pumpkin_epsilon", "PUMPKIN_REL_TOL"]

# exponential_probabilities, and with it the helper that computes its scaled utilities: every selection routine
# of the package goes through that helper (noisy_max_probabilities with Gumbel noise gives the same answer).
_FORBIDDEN = Forbidden(exponential_probabilities)
PUMPKIN_REL_TOL = 2e-3  # three significant digits of epsilon

# (utilities, sensitivity, epsilon): a tie, unequal sensitivities and epsilons, one candidate, and
# utilities so large (or so far apart) that exponentiating them directly overflows or underflows.
_EM_CASES = [
    ([0.0, 0.0], 1.0, 1.0),
    ([3.0, 2.0], 2.0, 0.2),
    ([1.0, 4.0, 3.0], 1.0, 0.5),
    ([5.0], 1.0, 1.0),
    ([0.0, 1.0, 2.0, 3.0], 0.5, 3.0),
    ([1e6, -1e6, 1e6 - 2.0], 1.0, 1.0),
    ([-1e6, -1e6 + 4.0], 2.0, 1.0),
]


def _weights(u, sensitivity, epsilon, factor):
    w = np.exp(factor * epsilon * (np.asarray(u) - np.max(u)) / sensitivity)
    return w / w.sum()


def _em_cases(rng) -> list:
    """The cases of :func:`check_em_probabilities`: the book's, or seven drawn from ``rng`` with the same roles.

    Drawn: a tie, three generic cases (2 to 8 candidates, whole-number utilities, sensitivities and epsilons
    that differ), one candidate, and two cases shifted by about +1e6 and -1e6, where exponentiating the
    utilities directly overflows or underflows (there epsilon / sensitivity <= 1, so the scaled utilities
    stay below 1e6 and a value computed through a logarithm is still exact to 1e-9).
    """
    if rng is None:
        return _EM_CASES

    def utilities(n, spread):
        return [float(u) for u in rng.integers(-spread, spread + 1, size=n)]

    def sens():
        return float(rng.choice([0.5, 1.0, 2.0, 5.0]))

    def eps(lo, hi):
        return round(float(rng.uniform(lo, hi)), 2)

    tie = [float(rng.integers(-5, 6))] * int(rng.integers(2, 5))
    cases = [(tie, sens(), eps(0.1, 3.0))]
    cases += [(utilities(int(rng.integers(2, 9)), 6), sens(), eps(0.2, 3.0)) for _ in range(3)]
    cases.append(([float(rng.integers(-100, 101))], sens(), eps(0.1, 3.0)))
    for sign in (1.0, -1.0):
        s = float(rng.choice([1.0, 2.0]))
        shift = sign * float(rng.integers(9 * 10**5, 11 * 10**5))
        cases.append(([shift + u for u in utilities(int(rng.integers(2, 5)), 4)], s, eps(0.2, s)))
    return cases


def check_em_probabilities(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(utilities, sensitivity, epsilon) -> probabilities`` of the exponential mechanism.

    The cases (the book's seven with ``rng=None``, or seven of the same kinds drawn from a
    :class:`numpy.random.Generator` ``rng``) include utilities of magnitude 1e6, which break a version that
    exponentiates the utilities directly. The message names the first failing case and what looks wrong,
    never the expected probabilities.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_em_probabilities(my_em_probabilities)")
    cases = _em_cases(check_rng(rng))
    for u, delta, eps in cases:
        where = shown(f"on utilities={u}, sensitivity={delta}, epsilon={eps}")
        got, failure = call_student(student_fn, (np.array(u), delta, eps),
                                    f"{where}; give one probability per candidate", shape=(len(u),),
                                    forbidden=_FORBIDDEN)
        if failure is not None:
            return failure
        want = exponential_probabilities(u, delta, eps)
        if np.allclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        if not np.isfinite(got).all():
            return CheckResult(False, f"{where} your function returned NaN or inf: exp of a large utility "
                                      "overflows. Which constant can you subtract from every utility without "
                                      "changing the normalised probabilities?")
        if not math.isclose(float(got.sum()), 1.0, rel_tol=1e-9):
            return CheckResult(False, f"{where} your probabilities sum to {got.sum():.6g}; normalise the weights")
        if np.allclose(got, _weights(u, delta, eps, 1.0), rtol=1e-9, atol=1e-12):
            return CheckResult(False, f"{where} you used exp(epsilon * u / sensitivity): that version is only "
                                      "2 * epsilon-DP for general utilities")
        if np.allclose(got, _weights(u, 1.0, 1.0, 1.0), rtol=1e-9, atol=1e-12):
            return CheckResult(False, f"{where} your weights ignore epsilon and the sensitivity")
        return CheckResult(False, f"{where} your probabilities are off; check the exponent of the weights")
    return CheckResult(True, f"your function agrees with the exponential mechanism on all {len(cases)} cases, "
                             "including utilities of size 1e6.")


def _pumpkin_truth(bids_of_1: int = 90, bids_of_2: int = 10, probability: float = 0.99) -> float:
    """The answer of exercise ``ex-sel-pumpkin`` for these numbers (the homework's variants use it)."""
    gap = float(bids_of_1 - bids_of_2)   # revenue at $1 (every bidder buys) minus revenue at $2
    return 2 * 2.0 * math.log(probability / (1 - probability)) / gap


def check_pumpkin_epsilon(answer, bids_of_1: int = 90, bids_of_2: int = 10, probability: float = 0.99) -> CheckResult:
    """Check the smallest epsilon at which the exponential mechanism picks the $1 price w.p. >= ``probability``.

    The auction: ``bids_of_1`` bids of $1 and ``bids_of_2`` bids of $2 (the book's numbers by default; a
    homework variant changes them), prices {$1, $2}, revenue utility with sensitivity 2. The answer is
    accepted to three significant digits: a relative error below ``PUMPKIN_REL_TOL`` (0.2%), so the rounded
    value printed in the solution passes. The one recognised wrong answer closer than that is recognised only
    within 0.03% of its own value, so a rounded right answer is never mistaken for it. Invalid answers
    (strings, NaN, inf, epsilon <= 0) come first; the other slips are named; any other value gets no direction.
    """
    return check_number(answer, **_pumpkin_question(bids_of_1, bids_of_2, probability))


def _pumpkin_question(bids_of_1: int = 90, bids_of_2: int = 10, probability: float = 0.99) -> dict:
    """check_number's arguments for :func:`check_pumpkin_epsilon` with these numbers (the homework's pool uses
    its truth, slips and tolerance)."""
    gap = float(bids_of_1 - bids_of_2)  # revenue at $1 minus revenue at $2
    truth = _pumpkin_truth(bids_of_1, bids_of_2, probability)
    odds, miss = round(probability / (1 - probability)), round(1 / (1 - probability))  # 99 and 100 in the book
    factor2 = ("this is the value for the exponent epsilon * u / sensitivity; the exponential mechanism of "
               "this chapter uses epsilon * u / (2 * sensitivity)")
    slips = ((2 * 2.0 * -math.log(1 - probability) / gap,
              f"close: P[$1] = 1 / (1 + e^(-x)) >= {probability:g} means e^(-x) <= 1/{odds}, not 1/{miss}", 3e-4),
             (truth / 2, factor2, 1e-3),
             (truth / 4, "both the 2 in the exponent and the sensitivity 2 of the revenue count", 1e-3))
    return dict(truth=truth, what="epsilon", low=0.0, low_open=True, rel_tol=PUMPKIN_REL_TOL, slips=slips,
                correct="That is the smallest such epsilon, to the precision asked (three significant digits).")
