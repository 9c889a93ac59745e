"""Homework (issue 22): student copies hold no solution and no hidden test; nbgrader grades fixture submissions.

The leak test runs on every assignment with nbgrader's own preprocessors (those of ``generate_assignment``,
in process, no database); the end-to-end test generates hw05 with nbgrader, grades five fixture submissions
(one kernel each) and checks points and feedback per question.
"""

import contextlib
import copy
import json
import math
import re
import sqlite3
from pathlib import Path

import nbformat
import pytest

from dpcourse.homework import ASSIGNMENTS, check_student_id, my_numbers, questions, variant
from dpcourse.homework.notebooks import build_assignment, chapter_exercises
from dpcourse.laplace import laplace_max_error_bound
from homework_fixtures.hw05_answers import SUBMISSIONS

nbgrader = pytest.importorskip("nbgrader")


def _student_copy(nb):
    """What ``nbgrader generate_assignment`` does to the cells: clear solutions, hidden tests and outputs."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearOutput, ClearSolutions

    nb = copy.deepcopy(nb)
    for pre in (ClearSolutions(), ClearHiddenTests(), ClearOutput()):
        nb, _ = pre.preprocess(nb, {})
    return nb


def _distinctive(solution: str):
    """Lines of a solution long enough to be its own text, and its numbers with a decimal point."""
    lines = [ln.strip() for ln in solution.splitlines()]
    lines = [ln for ln in lines if len(ln) >= 25 and not ln.startswith(("```", ":class:", ":label:"))]
    numbers = set(re.findall(r"(?<![\w.])\d+\.\d{2,}", solution))
    return lines, numbers


@pytest.mark.parametrize("hw", sorted(ASSIGNMENTS))
def test_student_copy_has_no_solution_and_no_hidden_test(hw):
    source, manifest = build_assignment(hw)
    student = _student_copy(source)
    text = "\n".join(c.source for c in student.cells)
    _, exercises, _ = chapter_exercises(ASSIGNMENTS[hw])
    allowed = "\n".join(ex.text + "\n".join(ex.scaffolds) for ex in exercises)
    assert all(ex.solutions for ex in exercises), "every exercise of the chapter has a solution to hide"
    for ex in exercises:
        lines, numbers = _distinctive("\n".join(ex.solutions))
        assert lines or numbers, ex.label
        for line in lines:
            if line not in allowed:   # a scaffold's `def` line is also the solution's first line
                assert line not in text, (hw, ex.label, line)
        for number in numbers - set(re.findall(r"\d+\.\d+", allowed)):
            assert number not in text, (hw, ex.label, number)
    assert "{solution" not in text
    assert "HIDDEN TESTS" not in text and "hidden_test(" not in text and "dpcourse.homework.autograde" not in text
    assert sum("hidden_test(" in c.source for c in source.cells) == sum(len(q["tests"]) for q in manifest["questions"])
    assert not any(c.get("outputs") for c in student.cells if c.cell_type == "code")
    # every graded question has its answer cell, and the text of every exercise is in the copy
    for q in questions(hw):
        assert re.search(rf"^(def )?{q.name}\b", text, flags=re.M), q.name
    for ex in exercises:
        assert ex.text in text


def test_variants_are_per_student_and_stable(capsys):
    a, b = variant("hw03", "ex-laplace-sample-size", "alice"), variant("hw03", "ex-laplace-sample-size", "alice")
    assert a == b and set(a) == {"k", "alpha", "beta", "epsilon"}
    drawn = {tuple(variant("hw03", "ex-laplace-sample-size", f"s{i}").values()) for i in range(40)}
    assert len(drawn) > 20
    my_numbers("hw03", "alice")
    assert f"k = {a['k']}" in capsys.readouterr().out
    with pytest.raises(ValueError, match="student_id"):
        check_student_id("../etc")
    with pytest.raises(ValueError, match="assignment"):
        variant("hw99", "x", "alice")


def _gap(student):
    p = variant("hw05", "ex-hist-argmax", student)
    return 2 * laplace_max_error_bound(p["k"], 2.0 / p["epsilon"], p["beta"])


def _submission(student_copy, student, answers):
    nb = copy.deepcopy(student_copy)
    numbers_of = answers.get("copy_numbers_of", student)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith('STUDENT_ID = ""'):
            cell.source = cell.source.replace('STUDENT_ID = ""', f'STUDENT_ID = "{numbers_of}"', 1)
        label = cell.metadata.get("dpcourse", {}).get("answer")
        if label in answers:
            cell.source = answers[label].format(gap=round(_gap(numbers_of), 4))
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from dpcourse.homework.autograde import grade

    root = tmp_path_factory.mktemp("homework")
    student_copy = _student_copy(build_assignment("hw05")[0])
    for student, answers in SUBMISSIONS.items():
        (root / "in" / student).mkdir(parents=True)
        nbformat.write(_submission(student_copy, student, answers), root / "in" / student / "hw05.ipynb")
    results = grade(root / "in", root / "out", cell_timeout=8, html_feedback=False)
    return root, student_copy, {r["student"]: r for r in results}


def test_nbgrader_student_copy_matches_the_preprocessors(graded):
    root, student_copy, _ = graded
    released = nbformat.read(root / "out" / "course" / "release" / "hw05" / "hw05.ipynb", as_version=4)
    assert [c.source for c in released.cells] == [c.source for c in student_copy.cells]


def _points(results, student):
    return {label: q["points"] for label, q in results[student]["questions"].items()}


def _messages(results, student, label):
    return " ".join(t["message"] for t in results[student]["questions"][label]["tests"])


def test_fixture_grades(graded):
    from nbgrader.dbutil import ALEMBIC_DIR

    from dpcourse.homework.autograde import _alembic_head

    root, _, results = graded
    assert _gap("alice") != pytest.approx(_gap("mallory"), rel=1e-2)   # the copy test means something
    # each question can score its full points: the correct function (mallory's 4.0) and the right gap (bob's 2.0)
    assert {label: q["max"] for label, q in results["mallory"]["questions"].items()} == \
        {"ex-hist-implement": 4.0, "ex-hist-argmax": 2.0}
    # factor 2: the histogram scores 0 and the feedback names the slip (too little noise under replace-one)
    assert _points(results, "bob") == {"ex-hist-implement": 0.0, "ex-hist-argmax": 2.0}
    assert "too little noise for relation='replace_one'" in _messages(results, "bob", "ex-hist-implement")
    # numpy's float Laplace passes the scale test but is refused by the secure-release gate
    assert _points(results, "carol") == {"ex-hist-implement": 0.0, "ex-hist-argmax": 2.0}
    assert "secure release" in _messages(results, "carol", "ex-hist-implement")
    # a crash and an endless loop score 0 on that question only
    assert _points(results, "dave") == {"ex-hist-implement": 0.0, "ex-hist-argmax": 2.0}
    assert _points(results, "erin") == {"ex-hist-implement": 0.0, "ex-hist-argmax": 2.0}
    assert "KeyboardInterrupt" in _messages(results, "erin", "ex-hist-implement") or \
        "Timeout" in _messages(results, "erin", "ex-hist-implement")
    # the loop is stopped once: the question's second test fails on the interrupted gate without calling it again
    assert "Stopped at the time limit" in results["erin"]["questions"]["ex-hist-implement"]["tests"][1]["message"]
    # mallory copied alice's numbers: right for alice, not for her
    assert _points(results, "mallory") == {"ex-hist-implement": 4.0, "ex-hist-argmax": 0.0}
    for student in SUBMISSIONS:   # feedback never gives the expected answer
        text = (root / "out" / "feedback" / student / "hw05.md").read_text()
        assert f"{_gap(student):.3g}" not in text and f"{_gap(student):.4f}" not in text
    rows = (root / "out" / "grades.csv").read_text().splitlines()
    assert rows[0].startswith("student,assignment,hw05:ex-hist-implement,hw05:ex-hist-argmax,auto_total")
    assert len(rows) == 1 + len(SUBMISSIONS)
    assert (root / "out" / "course" / "gradebook.db").stat().st_size > 0
    with contextlib.closing(sqlite3.connect(root / "out" / "course" / "gradebook.db")) as db:
        (stamp,), = db.execute("SELECT version_num FROM alembic_version").fetchall()
    assert stamp == _alembic_head() and list((Path(ALEMBIC_DIR) / "versions").glob(f"{stamp}_*.py"))
    assert json.loads((root / "out" / "gradebook.json").read_text())[0]["assignment"] == "hw05"


def test_output_limit(graded):
    root, _, _ = graded
    autograded = nbformat.read(root / "out" / "course" / "autograded" / "dave" / "hw05" / "hw05.ipynb", as_version=4)
    printed = sum(len(o.get("text", "")) for c in autograded.cells if c.cell_type == "code" for o in c.outputs)
    assert 0 < printed < 100_000
    assert math.isfinite(printed)


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

    assert test(through_dpcourse, {}).passed
    assert "returned a release" in test(unchecked, {}).message
    assert "raised RuntimeError" in test(wrong_error, {}).message


def _number_truths():
    """Each numeric question with a variant: the exact answer for given numbers, computed from dpcourse."""
    import numpy as np

    from dpcourse.laplace import counting_queries_sample_size
    from dpcourse.local_dp import krr_variance, unary_encoding_variance
    from dpcourse.quantiles import dp_quantile_probabilities, quantile_rank_error_bound

    def interval(p):   # P(output in interval 1) of the interval exponential mechanism, for the book's data
        starts, probs = dp_quantile_probabilities([2.0, 5.0, 6.0], 0.5, 0.0, 8.0, p["epsilon"], resolution=8)
        return float(np.asarray(probs)[1])

    def crossover(p):
        d = 2
        while krr_variance(1, d, p["epsilon"]) <= unary_encoding_variance(1, d, p["epsilon"]):
            d += 1
        return d

    return {
        ("hw01", "ex-promise-mixture"): lambda p: math.log(p["n"] + 2),
        ("hw03", "ex-laplace-sample-size"): lambda p: math.ceil(counting_queries_sample_size(**p)),
        ("hw05", "ex-hist-argmax"): lambda p: 2 * laplace_max_error_bound(p["k"], 2.0 / p["epsilon"], p["beta"]),
        ("hw14", "ex-quant-interval"): interval,
        ("hw14", "ex-quant-rank"): lambda p: quantile_rank_error_bound(p["epsilon"], p["beta"], resolution=p["K"]),
        ("hw15", "learn-ex-sensitivity"): lambda p: 2.0 / (p["n"] * p["regularization"]),
        ("hw16", "ex-ldp-crossover"): crossover,
        ("hw22", "mia-ex-max-audit"): lambda p: math.log(1 / (1 - 0.025 ** (1 / p["n_bound"])) - 1),
        ("hw19", "cr-ex-tree-variance"): lambda p: bin(p["t"]).count("1") * 0.5 / math.sinh(
            p["epsilon"] / (2 * p["horizon"].bit_length())) ** 2,
    }


def test_number_variants_accept_the_right_answer_and_refuse_a_classmates():
    truths = _number_truths()
    with_variant = {(hw, q.label) for hw in ASSIGNMENTS for q in questions(hw) if q.kind == "number" and q.variant}
    assert with_variant == set(truths)
    for (hw, label), truth in truths.items():
        q = next(q for q in questions(hw) if q.label == label)
        for student in ("s1", "s2", "s3"):
            mine = variant(hw, label, student)
            verdict = q.tests[0].run(truth(mine), mine)
            assert verdict.passed, (hw, label, student, verdict.message)
            other = next(variant(hw, label, f"x{i}") for i in range(200)
                         if not math.isclose(truth(variant(hw, label, f"x{i}")), truth(mine), rel_tol=1e-2))
            assert not q.tests[0].run(truth(other), mine).passed, (hw, label, student)
