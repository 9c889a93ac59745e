"""Checkers for the exercises of the chapters "Too many answers" and "Private query release"."""

from __future__ import annotations

import math

from ..queries import smalldb_sample_size
from . import CheckResult, call_student

__all__ = ["check_svt_scales", "check_sample_size"]

# (epsilon, c, sensitivity): c = 1 and c > 1, unit and non-unit sensitivities
_SVT_CASES = [(1.0, 1, 1.0), (0.5, 3, 1.0), (2.0, 5, 0.25), (1.0, 10, 2.0)]


def check_svt_scales(student_fn) -> CheckResult:
    """Check ``student_fn(epsilon, c, sensitivity) -> (threshold_scale, query_scale)`` of Lyu-Su-Li Algorithm 1.

    With the budget split evenly. The message says which scale is off and names recognised slips (for
    instance a query scale that does not grow with c, as in the variant of Lee & Clifton), never the
    formula, and never whether a scale is too small or too large.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_svt_scales(my_svt_scales)")
    for eps, c, sens in _SVT_CASES:
        where = f"on epsilon={eps}, c={c}, sensitivity={sens}"
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


_SIZE_CASES = [(1, 0.5), (10, 0.1), (1000, 0.05), (7, 0.3), (100_000, 0.01)]


def check_sample_size(student_fn) -> CheckResult:
    """Check ``student_fn(n_queries, alpha) -> m``: the smallest m that lemma ``lem-smalldb-sampling`` guarantees.

    The message recognises the usual slips (a weaker concentration exponent, one tail instead of two,
    the rounding) without giving the formula.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_sample_size(my_sample_size)")
    for k, alpha in _SIZE_CASES:
        where = f"on n_queries={k}, alpha={alpha}"
        got, failure = call_student(student_fn, (k, alpha), where)
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
