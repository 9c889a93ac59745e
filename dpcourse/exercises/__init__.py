"""Checkers for the book's exercises.

A checker looks at a student's answer and says whether it is right, with a message that helps find the
mistake without revealing the answer. It returns a :class:`CheckResult`, which notebooks display as its
message and tests inspect through ``.passed``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CheckResult"]


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
