"""Runnable reference answers, for the teacher's copy and the grader's own tests: never handed to students.

A coding question's reference is the source of a function that passes its hidden tests without calling the
library code the question forbids (:data:`REFERENCE_CODE`, in :mod:`grader.reference_solutions`); a numeric
question's is its expected value for the given numbers (``Question.expected``), written as the student would.
"""

from __future__ import annotations

from .reference_solutions import REFERENCE_CODE

__all__ = ["REFERENCE_CODE", "reference_cells"]


def reference_cells(assignment: str, secret: bytes, sid: str) -> dict:
    """``label -> source`` of the answer cells of a reference submission of ``assignment`` for student ``sid``."""
    from dpcourse.homework import questions

    from .course import student_numbers

    cells = {}
    for q in questions(assignment):
        if q.kind == "code":
            if q.label not in REFERENCE_CODE:
                raise ValueError(f"{assignment}: no reference solution for {q.label}")
            cells[q.label] = REFERENCE_CODE[q.label]
        else:
            if q.expected is None:
                raise ValueError(f"{assignment}: question {q.label} has no expected answer")
            value = q.expected(student_numbers(secret, assignment, q.label, sid))
            cells[q.label] = f"{q.name} = {value!r}\n"
    return cells
