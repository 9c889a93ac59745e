"""Checkers for the exercises of the chapters "Too many answers" and "Private query release"."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from ..query_release import smalldb_sample_size
from . import CheckResult, Forbidden, call_student

if TYPE_CHECKING:
    import numpy as np

__all__ = ["check_svt_scales", "check_sample_size"]

# (epsilon, c, sensitivity): c = 1 and c > 1, unit and non-unit sensitivities
_SVT_CASES = [(1.0, 1, 1.0), (0.5, 3, 1.0), (2.0, 5, 0.25), (1.0, 10, 2.0)]


def _svt_cases(rng: np.random.Generator | None) -> list:
    """``(epsilon, c, sensitivity)`` per case: the book's four, or four drawn from ``rng`` with the same roles.

    Drawn: c = 1 and three c from 2 to 20 (the slip of a query scale that does not grow with c shows only
    there), epsilons and sensitivities in hundredths (one sensitivity below 1, one above).
    """
    if rng is None:
        return _SVT_CASES

    def hundredths(lo, hi):
        return round(float(rng.uniform(lo, hi)), 2)

    return [(hundredths(0.2, 3.0), 1, hundredths(0.5, 2.0)),
            (hundredths(0.2, 3.0), int(rng.integers(2, 6)), hundredths(0.5, 2.0)),
            (hundredths(0.5, 4.0), int(rng.integers(6, 21)), hundredths(0.05, 0.95)),
            (hundredths(0.2, 2.0), int(rng.integers(2, 11)), hundredths(1.1, 5.0))]


def check_svt_scales(student_fn: Callable[..., Any], *, rng: np.random.Generator | None = None) -> CheckResult:
    """Check ``student_fn(epsilon, c, sensitivity) -> (threshold_scale, query_scale)`` of Lyu-Su-Li Algorithm 1.

    With the budget split evenly, on the book's four cases with ``rng=None`` or on four of the same kinds drawn
    from a :class:`numpy.random.Generator` ``rng``. The message says which scale is off and names recognised
    slips (for instance a query scale that does not grow with c, as in the variant of Lee & Clifton), never
    the formula, and never whether a scale is too small or too large.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_svt_scales(my_svt_scales)")
    from ._draws import check_rng, shown

    for eps, c, sens in _svt_cases(check_rng(rng)):
        where = shown(f"on epsilon={eps}, c={c}, sensitivity={sens}")
        try:
            out = student_fn(eps, c, sens)
            rho, nu = (float(v) for v in out)
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
            return CheckResult(False, f"return two numbers (threshold_scale, query_scale); calling your function "
                                      f"{where} gave {type(exc).__name__}: {exc}")
        want_rho, want_nu = 2 * sens / eps, 4 * c * sens / eps
        if not (math.isfinite(rho) and math.isfinite(nu)) or rho <= 0 or nu <= 0:
            return CheckResult(False, f"both scales must be positive numbers {where}")
        if not math.isclose(rho, want_rho, rel_tol=1e-9):
            hint = "the threshold's noise must cost exactly half of the budget, for a query of this sensitivity"
            return CheckResult(False, f"the threshold scale is off {where}: {hint}")
        if not math.isclose(nu, want_nu, rel_tol=1e-9):
            if c > 1 and math.isclose(nu, want_nu / c, rel_tol=1e-9):
                hint = "it does not grow with c: each of the c 'above' answers spends part of the query budget"
            elif math.isclose(nu, want_nu / 2, rel_tol=1e-9):
                hint = ("it is half of what the proof needs: the 'above' query is compared with a threshold "
                        "that itself moved, so its shift can be twice the sensitivity")
            else:
                hint = "it is not the scale the proof of Algorithm 1 needs; redo the budget of the c 'above' answers"
            return CheckResult(False, f"the query scale is off {where}: {hint}")
    return CheckResult(True, "both scales match Algorithm 1 for every case tried.")


# The exercise asks for the m of lemma lem-smalldb-sampling: the library's smalldb_sample_size is forbidden.
_SIZE_FORBIDDEN = Forbidden(smalldb_sample_size)

_SIZE_CASES = [(1, 0.5), (10, 0.1), (1000, 0.05), (7, 0.3), (100_000, 0.01)]


def _size_cases(rng):
    """The book's cases, or 8 drawn from the grader's ``rng``: n_queries spread on a log scale over 1..10^6
    (the lemma's ln(2k) is then 0.7 to 14.5) and alpha over 0.005..0.5, to 3 digits. A draw whose
    ln(2k) / (2 alpha^2) lies within 1e-9 (relative) of a whole number is drawn again: there two correct
    ways of computing it may round to different sides."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return _SIZE_CASES
    cases = []
    while len(cases) < 8:
        k = int(round(log_uniform(rng, 1.0, 1e6)))
        alpha = rounded(log_uniform(rng, 0.005, 0.5))
        bound = math.log(2 * k) / (2 * alpha**2)
        if abs(bound - round(bound)) > 1e-9 * bound:
            cases.append((k, alpha))
    return cases


def check_sample_size(student_fn: Callable[..., Any], *, rng: np.random.Generator | None = None) -> CheckResult:
    """Check ``student_fn(n_queries, alpha) -> m``: the smallest m that lemma ``lem-smalldb-sampling`` guarantees.

    On the book's five cases, or (``rng``, a numpy Generator: the homework grader's) on eight cases drawn
    from it. The message recognises the usual slips (a weaker concentration exponent, one tail instead of
    two, the rounding) without giving the formula.
    """
    from ._draws import shown

    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_sample_size(my_sample_size)")
    for k, alpha in _size_cases(rng):
        where = shown(f"on n_queries={k}, alpha={alpha}")
        got, failure = call_student(student_fn, (k, alpha), where, forbidden=_SIZE_FORBIDDEN)
        if failure is not None:
            return failure
        want = smalldb_sample_size(k, alpha)
        if got == want:
            continue
        if not float(got).is_integer():
            return CheckResult(False, f"a number of records must be a whole number; got {got} {where}")
        exact = math.log(2 * k) / (2 * alpha**2)
        if abs(got - 4 * exact) <= 2:
            hint = ("that is what the weaker exponent m alpha^2 / 2 gives; use the exponent of Hoeffding's "
                    "inequality")
        elif abs(got - math.log(k) / (2 * alpha**2)) <= 1:
            hint = "each query can fail on either side: count both tails"
        elif abs(got - exact) <= 1:
            hint = "close: check the rounding (the lemma needs a strict inequality)"
        else:
            hint = "write down the failure probability of one query, then of all of them, and solve for m"
        return CheckResult(False, f"{hint} ({where})")
    return CheckResult(True, "your m matches the lemma in every case tried.")
