"""Checkers for the book's exercises.

A checker looks at a student's answer and says whether it is right, with a message that helps find the
mistake without revealing the answer. It returns a :class:`CheckResult`, which notebooks display as its
message and tests inspect through ``.passed``.

Rules every checker follows (the helpers below implement them once):

* An answer that is not a valid answer at all (a string such as "0.3", a bool, NaN, +-inf, a value
  outside the range the question allows) is refused as invalid *before* any other feedback.
* A numeric answer is accepted within a stated relative precision (:data:`DEFAULT_REL_TOL`, 0.1 %, so
  a value typed to four significant digits passes), and the message says which precision was asked.
* Feedback names a recognised mistake (a known slip) or says the value is not yet within the
  precision; it never says "too small" or "too large", so the answer cannot be found by bisection on
  the messages.
* A coding exercise may forbid a library function (the one it asks the student to write):
  :func:`call_student` refuses a function that calls it.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import types
from dataclasses import dataclass

import numpy as np

__all__ = ["CheckResult", "call_student", "check_number", "match_slip", "not_yet", "parse_number",
           "DEFAULT_REL_TOL"]

DEFAULT_REL_TOL = 1e-3


@dataclass(frozen=True)
class CheckResult:
    """The verdict of an exercise checker: ``passed`` and a ``message`` for the student."""

    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return ("Correct. " if self.passed else "Not yet. ") + self.message

    def __str__(self) -> str:
        return repr(self)


class _ForbiddenCall(Exception):
    pass


def _code_names(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _uses_forbidden(student_fn, forbidden) -> str | None:
    """The name of a forbidden function that ``student_fn`` refers to through a global name, if any."""
    targets = {id(getattr(module, name)): f"{module.__name__}.{name}" for module, name in forbidden
               if hasattr(module, name)}
    if id(student_fn) in targets:  # the library function itself, passed as the answer
        return targets[id(student_fn)]
    code = getattr(student_fn, "__code__", None)
    if code is None:
        return None
    env = getattr(student_fn, "__globals__", {})
    for name in _code_names(code):
        obj = env.get(name)
        if id(obj) in targets:
            return targets[id(obj)]
        if isinstance(obj, types.ModuleType):  # dpcourse.f or sel.f: attribute access, caught at call time
            continue
    for cell in getattr(student_fn, "__closure__", None) or ():
        with contextlib.suppress(ValueError):
            if id(cell.cell_contents) in targets:
                return targets[id(cell.cell_contents)]
    return None


@contextlib.contextmanager
def _blocked(forbidden):
    """Replace each forbidden ``module.name`` by a function that raises, for the duration of a call."""
    saved = []
    for module, name in forbidden:
        if hasattr(module, name):
            saved.append((module, name, getattr(module, name)))

            def blocker(*args, _name=f"{module.__name__}.{name}", **kwargs):
                raise _ForbiddenCall(_name)

            setattr(module, name, blocker)
    try:
        yield
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


def call_student(student_fn, args, context: str, *, shape=None, forbidden=()):
    """Run a student's function on ``args``; return ``(result, None)`` or ``(None, CheckResult)`` on failure.

    With ``shape=None`` the result must be one real number and comes back as a float; with a tuple
    ``shape`` it must be an array of numbers of that shape and comes back as a float64 array. The
    failure says whether the function was not passed, raised (the student's code may raise anything),
    or returned the wrong kind of value; ``context`` (e.g. "on p=[...], epsilon=0.5") names the call.
    NumPy warnings are silenced: the checker reports a NaN itself, with a hint.

    ``forbidden`` lists ``(module, name)`` pairs of library functions the exercise asks the student to
    write, not call: a function that refers to one by a global name, or calls one during the run
    (``dpcourse.name(...)``), fails with a message that says so.
    """
    if not callable(student_fn):
        return None, CheckResult(False, "pass the function itself (its name, without parentheses)")
    used = _uses_forbidden(student_fn, forbidden)
    if used is not None:
        return None, CheckResult(False, f"your function uses {used}, the function this exercise asks you to write "
                                        "yourself")
    try:
        with np.errstate(all="ignore"), _blocked(forbidden):
            out = student_fn(*args)
    except _ForbiddenCall as exc:
        return None, CheckResult(False, f"your function calls {exc}, the function this exercise asks you to write "
                                        "yourself")
    except Exception as exc:  # noqa: BLE001 - any exception in the student's code is feedback
        return None, CheckResult(False, f"your function raised {type(exc).__name__}: {exc} ({context})")
    if shape is None:
        if isinstance(out, (bool, np.bool_)):
            return None, CheckResult(False, f"your function should return one number, it returned a bool ({context})")
        try:
            return float(out), None
        except (TypeError, ValueError):
            return None, CheckResult(False, f"your function should return one number, it returned "
                                            f"{type(out).__name__} ({context})")
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        return None, CheckResult(False, f"return an array of numbers, got {type(out).__name__} ({context})")
    if arr.shape != tuple(shape):
        return None, CheckResult(False, f"return an array of shape {tuple(shape)}, got shape {arr.shape} ({context})")
    return arr, None


def _close(a: float, b: float, rel_tol: float) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=0.0 if b != 0 else rel_tol)


def parse_number(answer, *, what: str, low=None, high=None, low_open=False, high_open=False, integer=False):
    """The first rule of every numeric checker: ``(value, None)`` for a valid answer, else ``(None, refusal)``.

    Refused as "not a valid answer", before any feedback on the value: strings (even "0.3"), bytes,
    bools, non-numbers, NaN, +-inf, a non-whole number where ``integer`` is set, and a value outside the
    range ``low``..``high`` (open at an end if ``low_open``/``high_open``).
    """
    if isinstance(answer, (bool, np.bool_)) or isinstance(answer, (str, bytes)) or \
            not isinstance(answer, numbers.Real):
        kind = f"the string {answer!r}" if isinstance(answer, (str, bytes)) else type(answer).__name__
        return None, CheckResult(False, f"not a valid answer: give {what} as a number, not {kind}")
    a = float(answer)
    if not math.isfinite(a):
        return None, CheckResult(False, f"not a valid answer: {what} must be a finite number, got {a}")
    if integer and a != math.floor(a):
        return None, CheckResult(False, f"not a valid answer: {what} is a whole number, got {a}")
    if (low is not None and (a < low or (low_open and a == low))) or \
            (high is not None and (a > high or (high_open and a == high))):
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low:g}"
        hi = "+inf)" if high is None else f"{high:g}" + (")" if high_open else "]")
        return None, CheckResult(False, f"not a valid answer: {what} must lie in {lo}, {hi}, got {a:g}")
    return a, None


def match_slip(a: float, truth: float, slips, rel_tol: float) -> CheckResult | None:
    """The hint of the first recognised mistake ``a`` matches, or None.

    ``slips`` holds ``(value, hint)`` or ``(value, hint, tolerance)``; a slip matches within its own
    tolerance (default ``rel_tol``) unless ``a`` is within a tenth of ``rel_tol`` of the truth.
    """
    for slip in slips:
        value, hint = slip[0], slip[1]
        tol = slip[2] if len(slip) > 2 else rel_tol
        if _close(a, value, tol) and not _close(a, truth, rel_tol / 10):
            return CheckResult(False, hint)
    return None


def not_yet(what: str, precision: str) -> CheckResult:
    """The message for a valid answer that is neither right nor a recognised slip: no direction given."""
    return CheckResult(False, f"{what} is not yet right: it is not {precision}. Re-derive it step by step; "
                              "the hints in the exercise point at the usual slips.")


def check_number(answer, truth: float, *, what: str, low=None, high=None, low_open=False, high_open=False,
                 rel_tol: float = DEFAULT_REL_TOL, slips=(), integer=False, correct: str = "") -> CheckResult:
    """Check a numeric answer by the rules of this module.

    Parameters
    ----------
    answer : object
        What the student typed.
    truth : float
        The exact answer.
    what : str
        What the number is ("epsilon", "the sample size n"), for the messages.
    low, high, low_open, high_open : optional
        The range of valid answers (an answer outside it is invalid, not "wrong").
    rel_tol : float
        Relative precision accepted (stated in the messages).
    slips : sequence of (value, hint) or (value, hint, tolerance)
        Recognised mistakes: an answer within the slip's tolerance (default ``rel_tol``) of ``value``
        gets ``hint``, unless it is within a tenth of ``rel_tol`` of the truth.
    integer : bool
        The answer must be a whole number (a float such as 5299.0 is accepted).
    correct : str
        Extra words for a correct answer.
    """
    a, refusal = parse_number(answer, what=what, low=low, high=high, low_open=low_open, high_open=high_open,
                              integer=integer)
    if refusal is not None:
        return refusal
    precision = f"within {rel_tol:.1%} of the exact value" if not integer else "the exact whole number"
    slip = match_slip(a, truth, slips, rel_tol)
    if slip is not None:
        return slip
    if (integer and a == truth) or (not integer and _close(a, truth, rel_tol)):
        return CheckResult(True, f"{what} is right ({precision}). {correct}".strip())
    return not_yet(what, precision)
