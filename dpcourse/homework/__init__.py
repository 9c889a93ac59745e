"""Homework questions: what each assignment grades, defined once (read by the grader in ``grader/``).

A question's text is the chapter's ``{exercise}`` block (read from the notebook by
:mod:`dpcourse.homework.notebooks`, never copied here); :mod:`dpcourse.homework.registry` adds, once per
gradable question, what the book does not hold: the *variant* (the numbers a student must use, drawn by the
grader from the teacher's secret, never computable from this package) and the *hidden tests* (the in-book
checker of :mod:`dpcourse.exercises`, a gate that tests privacy, run on cases the grader draws afresh, and tests
the book does not run). The sandbox a submission runs in has no copy of this package.
"""

from __future__ import annotations

import re

from .registry import ASSIGNMENTS, HiddenTest, Question, questions

__all__ = ["ASSIGNMENTS", "HiddenTest", "Question", "assignment_for", "check_student_id", "questions"]

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_student_id(student_id) -> str:
    """The student id, stripped; refuses anything but 1-64 letters, digits, '_', '.', '-' (first one alphanumeric)."""
    if not isinstance(student_id, str):
        raise TypeError(f"student_id must be a str, got {type(student_id).__name__}")
    sid = student_id.strip()
    if not _ID_RE.fullmatch(sid):
        raise ValueError(f"student_id must be 1 to 64 letters, digits, '_', '.' or '-' starting with a letter or "
                         f"digit, got {student_id!r}")
    return sid


def assignment_for(assignment: str) -> tuple[str, tuple[Question, ...]]:
    """``(chapter stem, questions)`` of an assignment id such as ``"hw05"``; a ValueError names the known ids."""
    if assignment not in ASSIGNMENTS:
        raise ValueError(f"assignment must be one of {sorted(ASSIGNMENTS)}, got {assignment!r}")
    return ASSIGNMENTS[assignment], questions(assignment)
