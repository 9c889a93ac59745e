"""Homework questions and copies (issue 36): student copies hold no solution and their owner's numbers only.

The copies are built in process (no sandbox); the grading itself is tested in ``test_grader.py``.
"""

import re

import nbformat
import numpy as np
import pytest

from dpcourse.homework import ASSIGNMENTS, check_student_id, questions
from dpcourse.homework.notebooks import chapter_exercises
from grader import course as hw

SECRET = bytes(range(32))


def _distinctive(solution: str):
    """Lines of a solution long enough to be its own text, and its numbers with a decimal point."""
    lines = [ln.strip() for ln in solution.splitlines()]
    lines = [ln for ln in lines if len(ln) >= 25 and not ln.startswith(("```", ":class:", ":label:"))]
    numbers = set(re.findall(r"(?<![\w.])\d+\.\d{2,}", solution))
    return lines, numbers


@pytest.mark.parametrize("assignment", sorted(ASSIGNMENTS))
def test_student_copy_has_no_solution_and_no_test(assignment):
    student = hw.Student("s1234", "Ada Lovelace")
    nb, numbers = hw.build_copy(assignment, secret=SECRET, student=student)
    text = "\n".join(c.source for c in nb.cells)
    _, exercises, _ = chapter_exercises(ASSIGNMENTS[assignment])
    allowed = "\n".join(ex.text + "\n".join(ex.scaffolds) for ex in exercises)
    assert all(ex.solutions for ex in exercises), "every exercise of the chapter has a solution to hide"
    for ex in exercises:
        lines, nums = _distinctive("\n".join(ex.solutions))
        assert lines or nums, ex.label
        for line in lines:
            if line not in allowed:   # a scaffold's `def` line is also the solution's first line
                assert line not in text, (assignment, ex.label, line)
        for number in nums - set(re.findall(r"\d+\.\d+", allowed)):
            assert number not in text, (assignment, ex.label, number)
        assert ex.text in text
    assert "{solution" not in text and "dpcourse.homework" not in text and "grader" not in text
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    for q in questions(assignment):
        assert re.search(rf"^(def )?{q.name}\b", text, flags=re.M), q.name
        if q.variant is not None:   # the student's own numbers are printed under the question
            assert hw._numbers_text(numbers[q.label]) in text
    assert nb.metadata["dpcourse"]["student"] == "s1234"
    assert nb.metadata["dpcourse"]["copy_id"] == hw.copy_id(SECRET, assignment, "s1234")
    nbformat.validate(nb)


def test_student_ids():
    assert check_student_id(" s1234 ") == "s1234"
    for bad in ("../etc", "", "a b", "x" * 65):
        with pytest.raises(ValueError, match="student_id"):
            check_student_id(bad)


def test_teaching_plan_lists_every_assignment_with_its_chapter():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "teaching.md").read_text()
    rows = [line for line in page.splitlines() if re.match(r"\| \d+ \|", line)]
    planned = {}
    for row in rows:
        _, week, chapters, hws, _ = row.split("|")
        stems = re.findall(r"\{doc\}`chapters/(\w+)`", chapters)
        for hw in re.findall(r"hw\w+", hws):
            planned[hw] = (int(week), stems)
    assert set(planned) == set(ASSIGNMENTS)
    for hw, (_, stems) in planned.items():
        assert ASSIGNMENTS[hw] in stems, hw
    assert len(rows) == 13
    # each chapter is taught once, at most two a week, and the core chapters (01-18) in the book's order, so that
    # a chapter is never planned before one it builds on
    taught = [stem for row in rows for stem in re.findall(r"\{doc\}`chapters/(\w+)`", row)]
    assert sorted(taught) == sorted(ASSIGNMENTS.values())
    assert all(len(re.findall(r"\{doc\}`chapters/", row)) <= 2 for row in rows)
    core_weeks = [planned[hw][0] for hw in sorted(planned) if int(hw[2:]) <= 18]
    assert core_weeks == sorted(core_weeks)


def test_bad_epsilon_hidden_test():
    import numpy as np

    import dpcourse
    from dpcourse.homework.registry import _histogram_args, refuses_bad_epsilon

    test = refuses_bad_epsilon(_histogram_args)

    def counts(data, categories):
        return np.array([(data == c).sum() for c in categories], dtype=float)

    def through_dpcourse(data, categories, epsilon, relation, rng):
        return dpcourse.laplace_mechanism(counts(data, categories), 2.0, epsilon, rng=rng)

    def unchecked(data, categories, epsilon, relation, rng):   # returns inf/NaN noise at epsilon = 0 or NaN
        return counts(data, categories) + np.divide(2.0, epsilon) * rng.integers(-3, 4, size=len(categories))

    def wrong_error(data, categories, epsilon, relation, rng):
        if not epsilon > 0:
            raise RuntimeError("bad")
        return counts(data, categories)

    assert test(through_dpcourse, {}, None).passed
    assert "returned a release" in test(unchecked, {}, None).message
    assert "raised RuntimeError" in test(wrong_error, {}, None).message
