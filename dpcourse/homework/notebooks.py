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


__all__ = ["Exercise", "chapter_exercises", "chapter_path"]

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
    title, exercises, imports = stem, [], []  # type: ignore[var-annotated]
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
