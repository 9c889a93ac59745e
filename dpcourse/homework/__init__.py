"""Homework: assignments made from the chapters' own exercises, graded offline by hidden tests.

One source of truth: a question's text is the chapter's ``{exercise}`` block (read from the notebook by
:mod:`dpcourse.homework.notebooks`, never copied here), and this package adds, once per gradable question,
what the book does not hold:

* the **variant**: a function of the student id that returns the numbers this student must use (ε,
  bounds, sizes); the autograder computes that student's expected answer from them with ``dpcourse``;
* the **hidden tests**: the in-book checker of :mod:`dpcourse.exercises` (reused, with the variant's
  numbers; for a release it tests the noise scale under each neighbouring relation and refuses NumPy's
  floating-point samplers), as a *gate* whose failure scores the question 0, and tests the book does not
  run (for example that a bad epsilon is refused).

The student copy shows the exercise, a cell that prints the student's numbers (:func:`my_numbers`) and an
answer cell; it holds no solution and no hidden test. :mod:`dpcourse.homework.grading` runs a submission
in a separate process with time and output limits and writes the gradebook.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from .registry import ASSIGNMENTS, HiddenTest, Question, questions

__all__ = ["ASSIGNMENTS", "HiddenTest", "Question", "assignment_for", "check_student_id", "my_numbers",
           "questions", "variant"]

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


def variant(assignment: str, label: str, student_id: str) -> dict:
    """The numbers of question ``label`` of ``assignment`` for ``student_id`` (empty if the question has none).

    Derived from SHA-256 of (assignment, label, student id): the same id always gets the same numbers, and two
    ids get independent draws from the question's list of variants.

    Examples
    --------
    >>> mine = variant("hw03", "ex-laplace-sample-size", "s1234")
    >>> sorted(mine)
    ['alpha', 'beta', 'epsilon', 'k']
    >>> mine == variant("hw03", "ex-laplace-sample-size", "s1234")
    True
    """
    sid = check_student_id(student_id)
    _, qs = assignment_for(assignment)
    for q in qs:
        if q.label == label:
            if q.variant is None:
                return {}
            digest = hashlib.sha256(f"{assignment}\x00{label}\x00{sid}".encode()).digest()
            return q.variant(np.random.default_rng(int.from_bytes(digest[:8], "little")))
    raise ValueError(f"label must be a question of {assignment}: {[q.label for q in qs]}, got {label!r}")


def my_numbers(assignment: str, student_id: str, label: str | None = None) -> None:
    """Print the numbers of ``student_id``'s variant (of one question, or of every question that has one)."""
    _, qs = assignment_for(assignment)
    sid = check_student_id(student_id)
    shown = 0
    for q in qs:
        if q.variant is None or (label is not None and q.label != label):
            continue
        params = variant(assignment, q.label, sid)
        print(f"{q.label} (student {sid}): " + ", ".join(f"{k} = {v!r}" for k, v in params.items()))
        shown += 1
    if label is not None and shown == 0:
        print(f"{label}: the same numbers for every student (those in the text).")
