"""Read a chapter's exercises and build an assignment's student and teacher notebooks from them.

The chapter notebook is the only source of a question's text and solution. An exercise is a MyST
``{exercise}`` block (or the gated ``{exercise-start}``/``{exercise-end}`` pair, which may span cells); its
solution is the ``{solution}`` block (or ``{solution-start}``/``{solution-end}``) that follows it. The code
cell after an exercise is its scaffold (``def my_f(...): ...  # your code here``), copied without outputs.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from . import ASSIGNMENTS, questions

__all__ = ["Exercise", "build_assignment", "chapter_exercises", "chapter_path"]

ROOT = Path(__file__).resolve().parents[2]
_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<kind>exercise|solution|exercise-start|solution-start|"
                   r"exercise-end|solution-end)\}(?P<arg>.*)$")


@dataclass
class Exercise:
    """One exercise of a chapter: its label, its MyST text, its solution text(s) and its scaffold code."""

    label: str
    text: str
    solutions: list[str] = field(default_factory=list)
    scaffolds: list[str] = field(default_factory=list)


def chapter_path(stem: str, root: Path | None = None) -> Path:
    return Path(root or ROOT) / "chapters" / f"{stem}.ipynb"


def _blocks(source: str):
    """Split markdown into ("text", s) and (kind, block) pieces; kind is exercise/solution/...-start/-end."""
    lines = source.split("\n")
    i, text = 0, []
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            text.append(lines[i])
            i += 1
            continue
        if text:
            yield "text", "\n".join(text)
            text = []
        kind, fence = m["kind"], m["fence"]
        if kind.endswith("-end"):
            # the closing fence of a one-line end directive
            j = i + 1
            while j < len(lines) and lines[j].strip() != fence:
                j += 1
            yield kind, "\n".join(lines[i:j + 1])
            i = j + 1
            continue
        j, depth = i + 1, 0
        while j < len(lines):
            s = lines[j].strip()
            if s == fence and depth == 0:
                break
            if s.startswith(fence[0] * 3):   # a nested fence: opened with an info string, closed bare
                depth = depth + 1 if s.lstrip(fence[0]) else max(depth - 1, 0)
            j += 1
        yield kind, "\n".join(lines[i:j + 1])
        i = j + 1
    if text:
        yield "text", "\n".join(text)


def _label(block: str) -> str | None:
    m = re.search(r"^:label:\s*(\S+)", block, flags=re.M)
    return m[1] if m else None


def chapter_exercises(stem: str, root: Path | None = None) -> tuple[str, list[Exercise], list[str]]:
    """``(title, exercises, imports)`` of a chapter: its H1 title, its exercises in order, and the
    ``from dpcourse.exercises... import ...`` lines of its exercise cells (the student copy's setup cell)."""
    nb = nbformat.read(chapter_path(stem, root), as_version=4)
    title, exercises, imports = stem, [], []
    current: Exercise | None = None
    gated: str | None = None   # inside exercise-start..end or solution-start..end
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if title == stem:
                m = re.search(r"^#\s+(.+)$", cell.source, flags=re.M)
                if m:
                    title = m[1].strip()
            for kind, block in _blocks(cell.source):
                if kind == "exercise":
                    current = Exercise(_label(block) or f"exercise-{len(exercises) + 1}", block)
                    exercises.append(current)
                elif kind == "exercise-start":
                    current = Exercise(_label(block) or f"exercise-{len(exercises) + 1}", block)
                    exercises.append(current)
                    gated = "exercise"
                elif kind == "solution" and current is not None:
                    current.solutions.append(block)
                elif kind == "solution-start" and current is not None:
                    current.solutions.append(block)
                    gated = "solution"
                elif kind.endswith("-end"):
                    if gated == "solution" and current is not None:
                        current.solutions.append(block)
                    gated = None
                elif kind == "text":
                    if gated == "solution" and current is not None:
                        current.solutions.append(block)
                    elif gated == "exercise" and current is not None:
                        current.text += "\n" + block
                    elif block.strip().startswith("#") and not block.strip().startswith("## Exercises"):
                        current = None   # a new section ends the exercises' scaffolds
        elif cell.cell_type == "code" and current is not None:
            if gated == "solution":
                current.solutions.append(cell.source)
                continue
            current.scaffolds.append(cell.source)
            imports += [line for line in cell.source.splitlines()
                        if line.startswith("from dpcourse.exercises") and line not in imports]
    return title, exercises, imports


def _cell_id(*parts: str) -> str:
    raw = "-".join(parts)
    clean = re.sub(r"[^A-Za-z0-9_-]", "-", raw)
    return clean if len(clean) <= 64 else clean[:51] + "-" + hashlib.sha1(raw.encode()).hexdigest()[:12]


def _grader(cell, grade_id, *, grade=False, solution=False, locked=False, points=None):
    """nbgrader's cell metadata (schema 3): an answer cell is ``solution``, a test or written answer ``grade``."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution}
    if points is not None:
        meta["points"] = float(points)
    cell.metadata["nbgrader"] = meta
    return cell


def _md(source, *parts):
    cell = new_markdown_cell(source)
    cell.id = _cell_id(*parts)
    return cell


def _code(source, *parts):
    cell = new_code_cell(source)
    cell.id = _cell_id(*parts)
    return cell


def _scaffold(ex: Exercise, name: str) -> str:
    for source in ex.scaffolds:
        if re.search(rf"^def {re.escape(name)}\(", source, flags=re.M):
            return source
    return f"def {name}(*args):\n    ...  # your code here\n"


#: Points of a written answer (graded by the teacher in nbgrader's formgrader).
WRITTEN_POINTS = 2.0


def hidden_cell_source(assignment: str, label: str, index: int, name: str) -> str:
    """A hidden-test cell: nbgrader removes the part between the markers from the student copy."""
    return (f"# Hidden test {index + 1} of {label} (run by the autograder): {name}\n"
            "### BEGIN HIDDEN TESTS\n"
            "from dpcourse.homework.autograde import hidden_test\n"
            f'hidden_test("{assignment}", "{label}", {index}, globals())\n'
            "### END HIDDEN TESTS\n")


def build_assignment(assignment: str, *, teacher: bool = False, root: Path | None = None):
    """The nbgrader source notebook of ``assignment`` (or, with ``teacher=True``, the teacher's reading copy),
    and its manifest.

    Per exercise: the chapter's text (locked), a cell printing the student's numbers where the question has a
    variant, an answer cell (nbgrader ``solution`` cell: the chapter's scaffold, or ``name = None``), and one
    hidden-test cell per hidden test (nbgrader ``grade`` cell with its points); a written exercise gets a
    markdown answer cell graded by the teacher. ``nbgrader generate_assignment`` turns it into the student
    copy (hidden tests removed). The teacher's copy adds the chapter's solutions. No cell has an output.
    """
    stem = ASSIGNMENTS[assignment]
    title, exercises, imports = chapter_exercises(stem, root)
    graded = {q.label: q for q in questions(assignment)}
    missing = set(graded) - {ex.label for ex in exercises}
    if missing:
        raise ValueError(f"{assignment}: the chapter {stem} has no exercise labelled {sorted(missing)}")
    auto = sum(q.points for q in graded.values())
    written = [ex.label for ex in exercises if ex.label not in graded]
    cells = [
        _grader(_md(f"# Homework {assignment}: {title}\n\n"
                    f"The exercises of the chapter *{title}*. Write your student id in the next cell and run it: "
                    "questions marked *your own numbers* print them in the cell under the question; use them in "
                    "place of the numbers in the text. Answer in the cells that say so, then run the whole "
                    "notebook (Kernel, Restart Kernel and Run All Cells), save it and hand in this `.ipynb` file.\n\n"
                    f"Graded automatically: {len(graded)} question(s), {auto:g} points, by hidden tests that check "
                    "more than the in-book checkers (for example that a release draws its noise with the secure "
                    f"sampler). Written answers: {len(written)}, {WRITTEN_POINTS:g} points each, graded by your "
                    "teacher. Each cell runs under a time limit when graded: keep long experiments out of the "
                    "notebook.", assignment, "intro"), f"{assignment}-intro", locked=True),
        _code('STUDENT_ID = ""  # your student id, exactly as your teacher gave it\n\n'
              "import math\n\nimport numpy as np\n\nimport dpcourse\nfrom dpcourse.homework import my_numbers\n"
              + "".join(line + "\n" for line in imports), assignment, "setup"),
    ]
    for ex in exercises:
        q = graded.get(ex.label)
        if q is None:
            note = f"*Written answer, graded by your teacher ({WRITTEN_POINTS:g} points).*"
        else:
            note = f"*Graded automatically: {q.points:g} points.*"
            if q.variant is not None:
                note += " *Your own numbers:* the cell below prints them; use them in place of those in the text."
        cells.append(_grader(_md(ex.text + "\n\n" + note, ex.label, "text"), f"{ex.label}-text", locked=True))
        if teacher:
            cells.append(_md("\n\n".join(ex.solutions), ex.label, "solution"))
        if q is not None and q.variant is not None:
            cells.append(_grader(_code(f'my_numbers("{assignment}", STUDENT_ID, "{ex.label}")', ex.label, "numbers"),
                                 f"{ex.label}-numbers", locked=True))
        if q is None:
            cells.append(_grader(_md("*Your answer here.*", ex.label, "answer"), f"{ex.label}-answer",
                                 grade=True, solution=True, points=WRITTEN_POINTS))
            continue
        source = _scaffold(ex, q.name) if q.kind == "code" else \
            f"{q.name} = None  # your answer: a number, for your own numbers\n"
        cell = _code(source, ex.label, "answer")   # a plain cell: nbgrader keeps the student's version as it is
        cell.metadata["dpcourse"] = {"answer": ex.label}
        cells.append(cell)
        if not teacher:
            for i, t in enumerate(q.tests):
                cells.append(_grader(_code(hidden_cell_source(assignment, ex.label, i, t.name), ex.label, f"test{i}"),
                                     f"{ex.label}-test{i}", grade=True, locked=True, points=t.points))
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "dpcourse": {"assignment": assignment, "chapter": stem, "copy": "teacher" if teacher else "source"}})
    manifest = {"assignment": assignment, "chapter": stem, "title": title, "points_auto": auto,
                "points_written": WRITTEN_POINTS * len(written),
                "questions": [{"label": q.label, "kind": q.kind, "name": q.name, "points": q.points,
                               "variant": q.variant is not None,
                               "tests": [{"name": t.name, "points": t.points, "gate": t.gate} for t in q.tests]}
                              for q in graded.values()],
                "written": written}
    return nb, manifest
