"""Checkers for the book's exercises.

A checker looks at a student's answer and says whether it is right, with a message that helps find the
mistake without revealing the answer. It returns a :class:`CheckResult`, which notebooks display as its
message and tests inspect through ``.passed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CheckResult", "call_student"]


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


def call_student(student_fn, args, context: str, *, shape=None):
    """Run a student's function on ``args``; return ``(result, None)`` or ``(None, CheckResult)`` on failure.

    With ``shape=None`` the result must be one real number and comes back as a float; with a tuple
    ``shape`` it must be an array of numbers of that shape and comes back as a float64 array. The
    failure says whether the function was not passed, raised (the student's code may raise anything),
    or returned the wrong kind of value; ``context`` (e.g. "on p=[...], epsilon=0.5") names the call.
    NumPy warnings are silenced: the checker reports a NaN itself, with a hint.
    """
    if not callable(student_fn):
        return None, CheckResult(False, "pass the function itself (its name, without parentheses)")
    try:
        with np.errstate(all="ignore"):
            out = student_fn(*args)
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
