"""A term of homework: the course folder, per-student copies, grading a class, exports and disputes.

A course folder (made by ``python tools/homework.py init DIR``) holds::

    homework.toml    the settings, with paths relative to the folder (see CONFIG_TEMPLATE)
    secret.key       the teacher's secret: every student's numbers and every hidden input derive from it
    roster.csv       the class: student_id, name, email, lms_id (any extra columns are kept)
    submissions/     what students handed in, in any of the layouts of teaching.md
    handout/         per-student copies to hand out (written by ``generate``)
    teacher/         teacher copies (written by ``generate``)
    gradebook/       grades, feedback, exports, and manual.csv where the teacher's own points go

Nothing here runs student code in this process: :func:`grade_submission` starts a :class:`~grader.sandbox.Sandbox`
and the hidden tests call across it.
"""

from __future__ import annotations

import concurrent.futures
import csv
import dataclasses
import datetime as dt
import hashlib
import hmac
import json
import math
import multiprocessing
import os
import re
import secrets
import time
import tomllib
from pathlib import Path

import numpy as np

__all__ = ["CONFIG_TEMPLATE", "Course", "Student", "answer_report", "copy_id", "find_submissions", "generate",
           "grade", "init_course", "load_course", "student_numbers"]

CONFIG_NAME = "homework.toml"
CONFIG_TEMPLATE = '''# Settings of this course's homework (python tools/homework.py). Paths are relative to this folder.
roster = "roster.csv"          # student_id,name,email,lms_id
secret = "secret.key"          # never hand this out, never commit it
submissions = "submissions"
handout = "handout"
teacher = "teacher"
gradebook = "gradebook"
written_points = 2             # points of each written answer (graded by you, in gradebook/manual.csv)

[limits]
cell_timeout = 30              # seconds per notebook cell
notebook_timeout = 300         # seconds for a whole submission, its hidden tests included
jobs = 2                       # submissions graded at once

[late]
grace_minutes = 15             # a submission this late is on time
per_day = 0.10                 # fraction of the assignment's points lost per started day late
max_days = 5                   # later than this, the assignment scores 0

[due]                          # due dates, ISO 8601 with a time zone; an assignment not listed has none
# hw05 = "2026-10-12T23:59:00+01:00"
'''

ROSTER_TEMPLATE = "student_id,name,email,lms_id\n"


# ------------------------------------------------------------------------------------------ the course

@dataclasses.dataclass(frozen=True)
class Student:
    student_id: str
    name: str = ""
    email: str = ""
    lms_id: str = ""


@dataclasses.dataclass
class Course:
    root: Path
    roster: list[Student]
    secret: bytes
    submissions: Path
    handout: Path
    teacher: Path
    gradebook: Path
    written_points: float
    cell_timeout: float
    notebook_timeout: float
    jobs: int
    grace: dt.timedelta
    late_per_day: float
    late_max_days: int
    due: dict
    titles: dict = dataclasses.field(default_factory=dict)

    def student(self, sid: str) -> Student:
        for s in self.roster:
            if s.student_id == sid:
                return s
        raise ValueError(f"student_id must be on the roster, got {sid!r}")


def init_course(root) -> Path:
    """Make a course folder: settings, a new secret (readable by its owner only) and an empty roster."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    cfg = root / CONFIG_NAME
    if cfg.exists():
        raise ValueError(f"{cfg} exists already: a course is initialised once (its secret must not change)")
    cfg.write_text(CONFIG_TEMPLATE)
    key = root / "secret.key"
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32) + "\n")
    if not (root / "roster.csv").exists():
        (root / "roster.csv").write_text(ROSTER_TEMPLATE)
    (root / ".gitignore").write_text("secret.key\nroster.csv\nsubmissions/\nhandout/\nteacher/\ngradebook/\n")
    return root


def _check_sid(sid: str) -> str:
    from dpcourse.homework import check_student_id
    return check_student_id(sid)


def _read_csv(path: Path) -> tuple[list[str], list[tuple[int, dict]]]:
    """``(header, [(line, row)])`` of a CSV file as spreadsheets save it: UTF-8 with or without a BOM (or
    Windows-1252), comma or semicolon separated; blank rows skipped. ValueError names the file."""
    raw = path.read_bytes()
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    first = text.splitlines()[0] if text.strip() else ""
    delimiter = ";" if first.count(";") > first.count(",") else ","
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    header = [h.strip() for h in next(reader, [])]
    rows = []
    for line, values in enumerate(reader, start=2):
        if not any(v.strip() for v in values):
            continue
        rows.append((line, {h: (values[k].strip() if k < len(values) else "") for k, h in enumerate(header)}))
    return header, rows


def _read_roster(path: Path) -> list[Student]:
    header, rows = _read_csv(path)
    if "student_id" not in header:
        raise ValueError(f"{path.name} needs a header line with the column student_id (and name, email, lms_id), "
                         f"got {header}")
    out, seen, emails, lms = [], set(), {}, {}
    for i, row in rows:
        sid = (row.get("student_id") or "").strip()
        try:
            sid = _check_sid(sid)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path.name} line {i}: {exc}") from None
        if sid in seen:
            raise ValueError(f"{path.name} line {i}: student_id {sid!r} appears twice")
        seen.add(sid)
        student = Student(sid, row.get("name", ""), row.get("email", ""), row.get("lms_id", ""))
        for value, used, what in ((student.email.lower(), emails, "email"), (student.lms_id, lms, "lms_id")):
            if value and value in used:
                raise ValueError(f"{path.name} line {i}: {what} {value!r} is also {used[value]}'s")
            used[value] = sid
        out.append(student)
    return out


def load_course(root) -> Course:
    """Read a course folder's settings, roster and secret (ValueError names what is missing or wrong)."""
    root = Path(root).resolve()
    cfg_path = root / CONFIG_NAME
    if not cfg_path.is_file():
        raise ValueError(f"no {CONFIG_NAME} in {root}: run `python tools/homework.py init {root}` first")
    cfg = tomllib.loads(cfg_path.read_text())

    def path(key, default):
        p = Path(cfg.get(key, default))
        return p if p.is_absolute() else root / p

    secret_path = path("secret", "secret.key")
    if not secret_path.is_file():
        raise ValueError(f"the secret {secret_path} is missing: it was made by `init` and cannot be re-made "
                         "without changing every student's numbers")
    secret = bytes.fromhex(secret_path.read_text().strip())
    if len(secret) < 16:
        raise ValueError("the secret must be at least 16 bytes (32 hex digits)")
    limits, late = cfg.get("limits", {}), cfg.get("late", {})
    due = {}
    for hw, when in cfg.get("due", {}).items():
        t = dt.datetime.fromisoformat(str(when))
        if t.tzinfo is None:
            raise ValueError(f"due date of {hw} must name its time zone (e.g. +01:00), got {when!r}")
        due[hw] = t
    for key, when in cfg.get("extensions", {}).items():   # "hw05.s1234" = a later due date for one student
        t = dt.datetime.fromisoformat(str(when))
        if "." not in key or t.tzinfo is None:
            raise ValueError(f"an extension is written \"hwNN.<student id>\" = a time with its zone, got {key!r}")
        due[key] = t
    course = Course(
        root=root, roster=_read_roster(path("roster", "roster.csv")), secret=secret,
        submissions=path("submissions", "submissions"), handout=path("handout", "handout"),
        teacher=path("teacher", "teacher"), gradebook=path("gradebook", "gradebook"),
        written_points=float(cfg.get("written_points", 2)),
        cell_timeout=float(limits.get("cell_timeout", 30)), notebook_timeout=float(limits.get("notebook_timeout", 300)),
        jobs=int(limits.get("jobs", 2)), grace=dt.timedelta(minutes=float(late.get("grace_minutes", 15))),
        late_per_day=float(late.get("per_day", 0.1)), late_max_days=int(late.get("max_days", 5)), due=due,
        titles={str(k): str(v) for k, v in cfg.get("titles", {}).items()})
    if not (0 <= course.late_per_day <= 1) or course.late_max_days < 0:
        raise ValueError("late.per_day must be in [0, 1] and late.max_days at least 0")
    if not (course.written_points >= 0 and math.isfinite(course.written_points)):
        raise ValueError("written_points must be a finite number at least 0")
    return course


# ------------------------------------------------------------------------------------------ keyed numbers

def _key(secret: bytes, *parts: str) -> bytes:
    return hmac.new(secret, "\x00".join(parts).encode(), hashlib.sha256).digest()


def student_numbers(secret: bytes, assignment: str, label: str, sid: str) -> dict:
    """The numbers of question ``label`` for ``sid``: the question's variant drawn from the teacher's secret."""
    from dpcourse.homework import questions
    q = next((q for q in questions(assignment) if q.label == label), None)
    if q is None:
        raise ValueError(f"label must be a question of {assignment}, got {label!r}")
    if q.variant is None:
        return {}
    seed = int.from_bytes(_key(secret, "numbers", assignment, label, sid)[:16], "little")
    return q.variant(np.random.default_rng(seed))


def copy_id(secret: bytes, assignment: str, sid: str) -> str:
    """The mark of the copy issued to ``sid`` (in its metadata): a copy handed in by another student shows."""
    return _key(secret, "copy", assignment, sid).hex()[:16]


def _test_rng(secret: bytes, run_key: str, sid: str, assignment: str, label: str, index: int):
    seed = int.from_bytes(_key(secret, "hidden", run_key, assignment, label, sid, str(index))[:16], "little")
    return np.random.default_rng(seed)


# ------------------------------------------------------------------------------------------ copies

def _numbers_text(numbers: dict) -> str:
    return ", ".join(f"`{k} = {v!r}`" for k, v in numbers.items())


def build_copy(assignment: str, *, secret: bytes | None = None, student: Student | None = None,
               reference: dict | None = None, written_points: float = 2.0):
    """The notebook of ``assignment`` for ``student`` (their numbers in it), or the teacher's copy.

    The teacher's copy (``reference`` given: label -> source of a runnable answer cell) has the chapter's
    solutions under each question and a reference answer in each answer cell.
    """
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    from dpcourse.homework import ASSIGNMENTS, questions
    from dpcourse.homework.notebooks import _scaffold, chapter_exercises

    stem = ASSIGNMENTS[assignment]
    title, exercises, imports = chapter_exercises(stem)
    graded = {q.label: q for q in questions(assignment)}
    missing = set(graded) - {ex.label for ex in exercises}
    if missing:
        raise ValueError(f"{assignment}: the chapter {stem} has no exercise labelled {sorted(missing)}")
    auto = sum(q.points for q in graded.values())
    written = [ex.label for ex in exercises if ex.label not in graded]
    who = f"**This copy is for {student.name or student.student_id}** (student id `{student.student_id}`): the " \
          "numbers in it are yours." if student is not None else "**Teacher's copy**, with the reference answers."
    cells = [new_markdown_cell(
        f"# Homework {assignment}: {title}\n\n{who}\n\nThe exercises of the chapter *{title}*. Questions marked *your "
        "own numbers* give them under the question: use them in place of the numbers in the text. Answer in the "
        "cells that say so, run the whole notebook (Kernel, Restart Kernel and Run All Cells), save it and hand in "
        "this `.ipynb` file.\n\n"
        f"Graded automatically: {len(graded)} question(s), {auto:g} points, by hidden tests on cases you do not see. "
        f"Written answers: {len(written)}, {written_points:g} points each, graded by your teacher. Your notebook is "
        "run on its own, with a time limit per cell: keep long experiments out of it.")]
    cells.append(new_code_cell("import math\n\nimport numpy as np\n\nimport dpcourse\n"
                               + "".join(line + "\n" for line in imports)))
    numbers_all = {}
    for ex in exercises:
        q = graded.get(ex.label)
        if q is None:
            note = f"*Written answer, graded by your teacher ({written_points:g} points).*"
        else:
            note = f"*Graded automatically: {q.points:g} points.*"
            if q.variant is not None and secret is not None:
                sid = student.student_id if student is not None else "teacher-reference"
                nums = student_numbers(secret, assignment, ex.label, sid)
                numbers_all[ex.label] = nums
                label = "Your own numbers" if student is not None else "Reference numbers (those of an example student)"
                note += f" **{label}:** {_numbers_text(nums)} (in place of those in the text)."
            if q.kind == "number":
                note += (" Give the number to at least 4 significant digits, or exactly if it is a whole number "
                         "(an answer within 0.1% of the exact value counts as right).")
        cells.append(new_markdown_cell(ex.text + "\n\n" + note))
        if reference is not None and ex.solutions:
            cells.append(new_markdown_cell("**Solution (teacher's copy).**\n\n" + "\n\n".join(ex.solutions)))
        if q is None:
            cells.append(new_markdown_cell("*Your answer here.*"))
            continue
        if reference is not None and ex.label in reference:
            source = reference[ex.label]
        elif q.kind == "code":
            source = _scaffold(ex, q.name)
        else:
            source = f"{q.name} = None  # your answer: a number, for your own numbers\n"
        cell = new_code_cell(source)
        cell.metadata["dpcourse"] = {"answer": ex.label}
        cells.append(cell)
    meta = {"assignment": assignment, "chapter": stem, "copy": "teacher" if reference is not None else "student"}
    if student is not None and secret is not None:
        meta.update(student=student.student_id, copy_id=copy_id(secret, assignment, student.student_id))
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}, "dpcourse": meta})
    nbformat.validate(nb)
    return nb, numbers_all


def generate(course: Course, only=None) -> dict:
    """Write ``handout/<student id>/hwNN.ipynb`` for every student on the roster and ``teacher/hwNN.ipynb``."""
    import nbformat

    from dpcourse.homework import ASSIGNMENTS

    from .reference import reference_cells

    chosen = _chosen(only, ASSIGNMENTS)
    counts = {}
    for hw in chosen:
        for s in course.roster:
            nb, _ = build_copy(hw, secret=course.secret, student=s, written_points=course.written_points)
            d = course.handout / s.student_id
            d.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, d / f"{hw}.ipynb")
        course.teacher.mkdir(parents=True, exist_ok=True)
        ref = reference_cells(hw, course.secret, "teacher-reference")
        nb, _ = build_copy(hw, secret=course.secret, reference=ref, written_points=course.written_points)
        nbformat.write(nb, course.teacher / f"{hw}.ipynb")
        counts[hw] = len(course.roster)
    course.handout.mkdir(parents=True, exist_ok=True)
    with open(course.handout / "index.csv", "w", newline="", encoding="utf-8") as fh:   # for a mail merge
        w = csv.writer(fh)
        w.writerow(["student_id", "name", "email", "assignment", "file"])
        for hw in chosen:
            for s in course.roster:
                w.writerow([s.student_id, s.name, s.email, hw, f"{s.student_id}/{hw}.ipynb"])
    return counts


def _chosen(only, known):
    chosen = list(only or known)
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise ValueError(f"assignments must be among {sorted(known)}, got {unknown}")
    return chosen


# ------------------------------------------------------------------------------------------ finding submissions

_HW_NAME = re.compile(r"(?:hw|homework|assignment)[\s_-]*0*(\d{1,2})(?!\d)", re.I)


def _assignment_of_name(name: str, known) -> str | None:
    m = _HW_NAME.search(name)
    if m:
        hw = f"hw{int(m[1]):02d}"
        return hw if hw in known else None
    return None


def _letters(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _match_student(entry: str, roster: list[Student]) -> tuple[Student | None, str]:
    """The roster student a download folder or file name belongs to, and how it matched (or why not).

    A folder named by the student id or email matches directly. Moodle's "download all" folders
    (``First Last_123_assignsubmission_file_``) carry a participant number of that assignment, not a user id:
    they match by name only. Canvas's flat files (``lastfirst_12345_678_hw05.ipynb``) carry the Canvas user
    id, the roster's ``lms_id``.
    """
    low = entry.lower().strip()
    for s in roster:
        if low == s.student_id.lower() or (s.email and low == s.email.lower()):
            return s, "id"
    if "_assignsubmission_" in low or "_onlinetext_" in low:
        name = entry.split("_")[0]
        hits = [s for s in roster if s.name and _letters(s.name) == _letters(name)]
        if len(hits) == 1:
            return hits[0], "name"
        return None, ("ambiguous name: " + ", ".join(s.student_id for s in hits)) if hits else \
            "no roster name matches this Moodle folder"
    tokens = set(re.split(r"[\s_.@()\[\]-]+", low)) - {""}
    # Canvas: lastfirst_[LATE_]<user id>_<submission id>_<the student's own file name>: only the user id in its
    # place counts (a student id or another token in the student's own file name is the student's to choose)
    canvas = re.match(r"^[a-z0-9]+_(?:late_)?(\d+)_\d+_", low)
    hits = [s for s in roster if canvas and s.lms_id and s.lms_id.lower() == canvas[1]]
    if len(hits) == 1:
        return hits[0], "id in name"
    if len(hits) > 1:
        return None, "ambiguous: " + ", ".join(s.student_id for s in hits)
    flat = _letters(entry)
    names = []
    for s in roster:
        if not s.name:
            continue
        words = [w for w in re.split(r"[\s,]+", s.name.lower()) if w]
        forms = {_letters("".join(words)), _letters("".join(reversed(words)))}
        if any(f and flat.startswith(f) for f in forms):
            names.append(s)
    if len(names) == 1:
        return names[0], "name"
    if len(names) > 1:
        return None, "ambiguous name: " + ", ".join(s.student_id for s in names)
    return None, "not on the roster"


def find_submissions(course: Course, assignment: str):
    """``(chosen, notes, unmatched)`` for ``assignment``.

    ``chosen`` maps a student id to ``(path, how)``; ``notes`` maps a student id to remarks (duplicates not
    graded, a misnamed file graded, ...); ``unmatched`` lists the files no roster student could be told from.
    Layouts: ``SUBMISSIONS/<entry>/...ipynb`` (a folder per student: id, email, or an LMS download name) or
    ``SUBMISSIONS/<entry>.ipynb`` (a flat LMS download, the student in the file name).
    """
    from dpcourse.homework import ASSIGNMENTS

    by_student: dict[str, list[tuple[Path, str | None]]] = {}
    notes: dict[str, list[str]] = {}
    unmatched = []
    root = submissions_root(course, assignment)
    entries = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or (entry.is_file() and entry.suffix != ".ipynb"):
            continue
        if entry.is_dir() and _match_student(entry.name, course.roster)[0] is None and \
                sum(_match_student(e.name if e.is_dir() else e.stem, course.roster)[0] is not None
                    for e in entry.iterdir()) >= 2:
            entries += sorted(e for e in entry.iterdir() if not e.name.startswith("."))   # a zip's top folder
            continue
        entries.append(entry)
    for entry in entries:
        if entry.is_file() and entry.suffix != ".ipynb":
            continue
        files = sorted(p for p in entry.rglob("*.ipynb") if not any(part.startswith(".") for part in
                                                                   p.relative_to(root).parts)) \
            if entry.is_dir() and not entry.is_symlink() else ([entry] if entry.suffix == ".ipynb" else [])
        # regular files only: a link (to the teacher's copy, say) or a FIFO is reported, never read
        odd = [f for f in files if f.is_symlink() or not f.is_file()]
        unmatched += [(str(f.relative_to(root)), "not a regular file (a link or a device): not read") for f in odd]
        files = [f for f in files if f not in odd]
        if not files:
            continue
        key = entry.name if entry.is_dir() else entry.stem
        student, how = _match_student(key, course.roster)
        if student is None:
            unmatched += [(str(f.relative_to(root)), how) for f in files]
            continue
        for f in files:
            meta_hw = _notebook_assignment(f)
            named_hw = _assignment_of_name(f.name if entry.is_dir() else f.name.replace(key, ""), ASSIGNMENTS) \
                or _assignment_of_name(f.name, ASSIGNMENTS)
            by_student.setdefault(student.student_id, []).append((f, meta_hw or named_hw))
    chosen = {}
    for sid, files in by_student.items():
        mine = [f for f, hw in files if hw == assignment]
        unknown = [f for f, hw in files if hw is None]
        others = [(f, hw) for f, hw in files if hw is not None and hw != assignment]
        rel = lambda f: str(f.relative_to(root))  # noqa: E731
        if not mine and len(unknown) == 1 and not others:
            mine = unknown
            notes.setdefault(sid, []).append(f"the file {rel(unknown[0])} has no assignment in its name or "
                                             f"metadata; graded as {assignment}")
        elif unknown:
            notes.setdefault(sid, []).append("not graded, no assignment in name or metadata (rename it to "
                                             f"{assignment}.ipynb if it is this one): " + ", ".join(rel(f) for f in unknown))
        if not mine and others:
            notes.setdefault(sid, []).append(f"no file for {assignment}, but files for other assignments: "
                                             + ", ".join(f"{rel(f)} ({hw})" for f, hw in others))
        if not mine:
            continue
        mine.sort(key=lambda f: (f.stat().st_mtime, _copy_number(f.name), f.name))
        chosen[sid] = (mine[-1], "")
        if len(mine) > 1:
            tie = mine[-1].stat().st_mtime == mine[-2].stat().st_mtime
            notes.setdefault(sid, []).append(
                f"{len(mine)} files for {assignment}; graded " + (f"{rel(mine[-1])} (same file time as another: "
                                                                   "the highest copy number, check it)" if tie else
                                                                   f"the newest, {rel(mine[-1])}")
                + "; not graded: " + ", ".join(rel(f) for f in mine[:-1]))
    return chosen, notes, unmatched


def _copy_number(name: str) -> int:
    """The n of a download's duplicate name ``hw05 (n).ipynb`` or ``hw05-n.ipynb`` (0 for the first copy)."""
    m = re.search(r"(?:\((\d+)\)|-(\d+))\.ipynb$", name)
    return int(m[1] or m[2]) if m else 0


def submissions_root(course: Course, assignment: str) -> Path:
    """``submissions/hwNN/`` if the teacher keeps each assignment's download apart (recommended), else
    ``submissions/``."""
    root = course.submissions
    if not root.is_dir():
        raise ValueError(f"the submissions folder {root} does not exist")
    return root / assignment if (root / assignment).is_dir() else root


def _notebook_assignment(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > 64 * 2**20:   # no FIFO, no device, nothing huge
            return None
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("dpcourse", {})
    except (OSError, ValueError, AttributeError, RecursionError, MemoryError):
        return None
    hw = meta.get("assignment") if isinstance(meta, dict) else None
    return hw if isinstance(hw, str) and re.fullmatch(r"hw\d\d", hw) else None


# ------------------------------------------------------------------------------------------ grading

def grader_version() -> str:
    """A hash of the code that decides grades: the grader, the checkers and the registry, and dpcourse's
    mechanisms (what a submission calls). The figures (``dpcourse/plots``) and data are left out: a new figure
    in the book does not re-grade a class."""
    import dpcourse
    h = hashlib.sha256()
    package = Path(dpcourse.__file__).resolve().parent
    files = [(Path(__file__).resolve().parent, p) for p in sorted(Path(__file__).resolve().parent.glob("*.py"))]
    files += [(package, p) for p in sorted(package.rglob("*.py")) if "plots" not in p.relative_to(package).parts]
    for root, p in files:
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _read_cells(path: Path):
    """The code cells' sources of a submission, or raises ValueError saying why it cannot be read."""
    try:
        if not path.is_file() or path.is_symlink():
            raise ValueError("not a regular file (a link or a device)")
        if path.stat().st_size > 32 * 2**20:
            raise ValueError("over 32 MB: not a notebook of this course")
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, MemoryError) as exc:
        raise ValueError(f"not a readable notebook ({type(exc).__name__})") from None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook (no list of cells)")
    out = []
    for c in cells:
        if isinstance(c, dict) and c.get("cell_type") == "code":
            src = c.get("source", "")
            if isinstance(src, list) and all(isinstance(x, str) for x in src):
                src = "".join(src)
            if not isinstance(src, str):
                raise ValueError("a code cell whose source is not text")
            out.append(src)
    meta = doc.get("metadata", {}).get("dpcourse", {}) if isinstance(doc.get("metadata"), dict) else {}
    return out, (meta if isinstance(meta, dict) else {})


def grade_submission(course_secret: bytes, run_key: str, assignment: str, sid: str, path: str, stage: str,
                     cell_timeout: float, notebook_timeout: float) -> dict:
    """Grade one submission (in a worker process of the grader): sandboxed run, then every hidden test."""
    import dpcourse.exercises as ex

    from dpcourse.homework import questions

    from .sandbox import RemoteFunction, Sandbox, SandboxError

    ex.SHOW_INPUTS = False
    row = {"student": sid, "assignment": assignment, "status": "graded", "reason": "", "questions": {},
           "cells_failed": [], "flags": []}
    qs = questions(assignment)
    for q in qs:
        row["questions"][q.label] = {"points": 0.0, "max": q.points, "tests": [
            {"name": t.name, "points": 0.0, "max": t.points, "passed": False, "message": "not run"} for t in q.tests]}
    try:
        cells, meta = _read_cells(Path(path))
    except ValueError as exc:
        row.update(status="unreadable", reason=str(exc))
        return row
    owner = meta.get("student")
    owner = re.sub(r"[^A-Za-z0-9_.@-]", "?", owner)[:64] if isinstance(owner, str) else None
    if owner and owner != sid:
        row["flags"].append(f"this notebook was issued to another student ({owner}); graded with the numbers of {sid}")
    elif meta.get("copy_id") != copy_id(course_secret, assignment, sid):
        row["flags"].append("the copy's mark is missing or is not this student's: not the copy generated for them")
    start = time.monotonic()
    sandbox = Sandbox(Path(stage), cells, cell_timeout=cell_timeout, total_timeout=notebook_timeout)
    row["cgroups"] = list(sandbox.cgroups.active)
    try:
        row["cells_failed"] = [{"cell": c.get("cell"), "status": c.get("status"), "detail": str(c.get("detail"))[:300]}
                               for c in sandbox.cells if c.get("status") != "ok"]
        if sandbox.stopped is not None:
            timed_out = "time limit" in sandbox.stopped
            row.update(status="timed out" if timed_out else "crashed", reason=f"the notebook stopped: {sandbox.stopped}")
            return row
        for q in qs:
            params = student_numbers(course_secret, assignment, q.label, sid)
            if q.kind == "code":
                answer = RemoteFunction(sandbox, q.name, timeout=min(60.0, notebook_timeout))
            else:
                try:
                    answer = sandbox.value(q.name)
                except SandboxError:
                    answer = None
                except Exception:  # noqa: BLE001 - the NameError (or other) raised across for a missing answer
                    answer = None
            result = row["questions"][q.label]
            if q.kind == "number" and answer is None:
                for t in result["tests"]:
                    t["message"] = f"no answer: `{q.name}` is not set (or is None) when the notebook has run"
                continue
            gate_failed = None
            order = sorted(range(len(q.tests)), key=lambda i: not q.tests[i].gate)
            for i in order:
                t, out = q.tests[i], result["tests"][i]
                if gate_failed is not None:
                    out["message"] = f"0 points for this question: {gate_failed}"
                    continue
                rng = _test_rng(course_secret, run_key, sid, assignment, q.label, i)
                verdict = _run_test(t, answer, params, rng)
                out["passed"], out["message"] = bool(verdict.passed), str(verdict.message)[:600]
                out["points"] = float(t.points) if verdict.passed else 0.0
                if t.gate and not verdict.passed:
                    gate_failed = f"{t.name} failed. {verdict.message}"[:600]
                    for j in range(len(q.tests)):
                        if j != i:
                            result["tests"][j].update(points=0.0, passed=False,
                                                      message=f"0 points for this question: {gate_failed}")
            result["points"] = float(sum(t["points"] for t in result["tests"]))
        if sandbox.stopped is not None:
            row["flags"].append(f"the notebook's process stopped during the hidden tests: {sandbox.stopped}")
    finally:
        sandbox.close()
        row["seconds"] = round(time.monotonic() - start, 2)
    return row


def _run_test(test, answer, params, rng):
    from dpcourse.exercises import CheckResult
    try:
        with np.errstate(all="ignore"):
            return test.run(answer, params, rng)
    except Exception as exc:  # noqa: BLE001 - the student's answer may make a test raise anything
        return CheckResult(False, f"the test could not run your answer ({type(exc).__name__})")


def _late(course: Course, assignment: str, submitted: dt.datetime | None, sid: str = "") -> tuple[int, float]:
    """``(days late, factor kept)`` under the course's late rule (a student's extension replaces the due date)."""
    due = course.due.get(f"{assignment}.{sid}", course.due.get(assignment))
    if due is None or submitted is None:
        return 0, 1.0
    over = submitted - due - course.grace
    if over <= dt.timedelta(0):
        return 0, 1.0
    days = math.ceil(over / dt.timedelta(days=1))
    if days > course.late_max_days:
        return days, 0.0
    return days, max(0.0, 1.0 - course.late_per_day * days)


def _submission_times(course: Course) -> dict:
    """``(student id, assignment) -> time`` from ``submissions/times.csv`` (an LMS export), if there is one."""
    path = course.submissions / "times.csv"
    out = {}
    if path.is_file():
        header, rows = _read_csv(path)
        if not {"student_id", "assignment", "submitted"} <= set(header):
            raise ValueError(f"{path} needs the columns student_id, assignment, submitted; got {header}")
        for line, row in rows:
            try:
                t = dt.datetime.fromisoformat(row["submitted"])
            except ValueError:
                raise ValueError(f"{path.name} line {line}: submitted must be an ISO time such as "
                                 f"2026-10-12T23:10:00+01:00, got {row['submitted']!r}") from None
            if t.tzinfo is None:
                raise ValueError(f"{path.name} line {line}: the time {row['submitted']!r} must name its zone "
                                 "(e.g. +01:00)")
            out[(row["student_id"], row["assignment"])] = t
    return out


def grade(course: Course, assignment: str, *, force: bool = False, jobs: int | None = None,
          progress=None, students=None) -> list[dict]:
    """Grade every roster student's submission of ``assignment``; keep earlier results that did not change.

    Returns one row per roster student (graded, missing, unreadable, timed out or crashed, with the reason),
    and writes the gradebook (:func:`write_gradebook`). A submission is re-graded only if its file, the
    grader's code or the secret changed (or ``force``); manual grades in ``manual.csv`` are never touched.
    """
    from dpcourse.homework import ASSIGNMENTS

    from .sandbox import stage_package

    if assignment not in ASSIGNMENTS:
        raise ValueError(f"assignment must be one of {sorted(ASSIGNMENTS)}, got {assignment!r}")
    out = course.gradebook
    out.mkdir(parents=True, exist_ok=True)
    store_path = out / "gradebook.json"
    store = json.loads(store_path.read_text()) if store_path.is_file() else {"results": {}}
    chosen, notes, unmatched = find_submissions(course, assignment)
    version = grader_version()
    secret_mark = _key(course.secret, "fingerprint").hex()[:12]
    times = _submission_times(course)
    run_key = secrets.token_hex(16)
    stage = stage_package(out / ".stage" / assignment, _forbidden_sets(assignment))
    todo, rows, reasons = [], {}, {}
    only = set(students) if students else None
    for s in course.roster:
        sid = s.student_id
        key = f"{sid}/{assignment}"
        if sid not in chosen:
            rows[sid] = {"student": sid, "assignment": assignment, "status": "missing",
                         "reason": "no submission found", "questions": {}, "cells_failed": [], "flags": []}
            continue
        path = chosen[sid][0]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        old = store["results"].get(key)
        if not force and old and old.get("sha256") == digest and old.get("version") == version \
                and old.get("secret") == secret_mark and (only is None or sid not in only):
            rows[sid] = old["row"]
            continue
        why = ("new submission" if not old else "forced" if force or (only and sid in only) else
               "the file changed" if old.get("sha256") != digest else
               "the grader or dpcourse changed" if old.get("version") != version else "the secret changed")
        reasons[why] = reasons.get(why, 0) + 1
        todo.append((sid, path, digest))
    workers = max(1, int(jobs or course.jobs))
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = {pool.submit(grade_submission, course.secret, run_key, assignment, sid, str(path), str(stage),
                               course.cell_timeout, course.notebook_timeout): (sid, path, digest)
                   for sid, path, digest in todo}
        for fut in concurrent.futures.as_completed(futures):
            sid, path, digest = futures[fut]
            try:
                row = fut.result()
            except Exception as exc:  # noqa: BLE001 - a grader fault for one submission must not stop the class
                row = {"student": sid, "assignment": assignment, "status": "crashed",
                       "reason": f"the grader failed on this submission ({type(exc).__name__}: {exc})"[:400],
                       "questions": {}, "cells_failed": [], "flags": []}
            row["file"] = str(path.relative_to(course.submissions))
            row["run_key"] = run_key
            rows[sid] = row
            if not row["reason"].startswith("the grader failed"):   # a grader fault is tried again next run
                store["results"][f"{sid}/{assignment}"] = {"sha256": digest, "version": version,
                                                         "secret": secret_mark, "row": row}
            store_path.write_text(json.dumps(store, indent=1) + "\n")   # after each: an interrupted run keeps its work
            if progress:
                progress(row)
    result = []
    for s in course.roster:
        row = dict(rows[s.student_id])
        row["notes"] = notes.get(s.student_id, [])
        sub = chosen.get(s.student_id)
        when = times.get((s.student_id, assignment))
        due = course.due.get(f"{assignment}.{s.student_id}", course.due.get(assignment))
        if sub is not None and due is not None and when is None:
            # file times say when a download was unpacked, not when the work was handed in: never used
            row["notes"] = row["notes"] + ["no submission time in submissions/times.csv: the late rule was not "
                                           "applied"]
        if sub is not None and "_late_" in sub[0].name.lower():
            row["notes"] = row["notes"] + ["Canvas marks this file late (_LATE_ in its name)"]
        row["submitted"] = when.isoformat() if when else ""
        row["late_days"], row["late_factor"] = _late(course, assignment, when, s.student_id)
        result.append(row)
    store["unmatched"] = {assignment: unmatched}
    store_path.write_text(json.dumps(store, indent=1) + "\n")
    write_gradebook(course, assignment, result, unmatched, reasons)
    return result


def _forbidden_sets(assignment: str):
    """The Forbidden sets of the checkers of ``assignment``'s coding questions (read from their modules)."""
    import importlib

    from dpcourse.exercises import Forbidden
    from dpcourse.homework import questions

    sets = []
    for q in questions(assignment):
        if q.kind != "code" or q.checker is None:
            continue
        module = importlib.import_module(q.checker.__module__)
        sets += [v for v in vars(module).values() if isinstance(v, Forbidden)]
    return sets


# ------------------------------------------------------------------------------------------ the gradebook

def _manual(course: Course, rows: list[dict], assignment: str) -> dict:
    """Read (and extend, never overwrite) ``manual.csv``: the teacher's points for written answers.

    One row per student and written answer (``points`` empty until graded, out of ``written_points`` of
    ``homework.toml``, between 0 and that), and any row the teacher adds with ``max`` 0: an adjustment after a
    dispute (``points`` may then be negative). Saved by a spreadsheet: UTF-8 or Windows-1252, comma or semicolon,
    a decimal comma. A row that cannot be read stops the run with its line named, before anything is written.
    """
    from dpcourse.homework import ASSIGNMENTS, questions
    from dpcourse.homework.notebooks import chapter_exercises

    path = course.gradebook / "manual.csv"
    fields = ["student", "assignment", "question", "points", "max", "comment"]
    existing = []
    if path.is_file():
        header, lines = _read_csv(path)
        if not {"student", "assignment", "question", "points"} <= set(header):
            raise ValueError(f"{path} needs the columns {fields}, got {header}")
        for line, r in lines:
            r = dict(r)
            r["_line"] = line
            existing.append(r)
    _, exercises, _ = chapter_exercises(ASSIGNMENTS[assignment])
    graded = {q.label for q in questions(assignment)}
    written = [e.label for e in exercises if e.label not in graded]
    out = {}
    for r in existing:
        if r["assignment"] != assignment:
            continue
        adjustment = r["question"] not in written
        top = 0.0 if adjustment else course.written_points
        pts_text = (r.get("points") or "").strip().replace(",", ".")
        entry = out.setdefault(r["student"], {"points": 0.0, "graded": 0, "pending": 0, "max": 0.0, "items": []})
        entry["max"] += top
        if not pts_text:
            entry["pending"] += 0 if adjustment else 1
            continue
        try:
            pts = float(pts_text)
        except ValueError:
            raise ValueError(f"{path.name} line {r['_line']}: points must be a number, got {r['points']!r}") from None
        if not math.isfinite(pts) or (not adjustment and not 0 <= pts <= top):
            raise ValueError(f"{path.name} line {r['_line']}: points of {r['question']} must lie in [0, {top:g}], "
                             f"got {pts:g} (an adjustment after a dispute goes in a row of its own with max 0)")
        entry["points"] += pts
        entry["graded"] += 1
        entry["items"].append((r["question"], pts, top, r.get("comment", "")))
    have = {(r["student"], r["assignment"], r["question"]) for r in existing}
    added = [{"student": r["student"], "assignment": assignment, "question": label, "points": "",
              "max": f"{course.written_points:g}", "comment": ""}
             for r in rows for label in written if (r["student"], assignment, label) not in have]
    stale = any(r["assignment"] == assignment and r["question"] in written and r.get("max") != f"{course.written_points:g}"
                for r in existing)
    if added or stale or not path.is_file():
        for r in existing:   # the maximum follows homework.toml; points and comments stay as the teacher wrote them
            if r["assignment"] == assignment and r["question"] in written:
                r["max"] = f"{course.written_points:g}"
        tmp = path.with_suffix(".csv.tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=fields)
            w.writeheader()
            for r in existing + added:
                w.writerow({k: r.get(k, "") for k in fields})
        os.replace(tmp, path)
    for r in added:
        entry = out.setdefault(r["student"], {"points": 0.0, "graded": 0, "pending": 0, "max": 0.0, "items": []})
        entry["max"] += course.written_points
        entry["pending"] += 1
    return out


def write_gradebook(course: Course, assignment: str, rows: list[dict], unmatched, reasons=None) -> None:
    """``grades_hwNN.csv``, ``feedback/<id>/hwNN.md``, ``canvas_hwNN.csv``, ``moodle_hwNN.csv``, ``report_hwNN.md``."""
    from dpcourse.homework import questions

    out = course.gradebook
    manual = _manual(course, rows, assignment)
    qs = questions(assignment)
    auto_max = sum(q.points for q in qs)
    totals = {}
    with open(out / f"grades_{assignment}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["student", "assignment", "status", "reason", *[q.label for q in qs], "auto", "auto_max",
                    "written", "written_max", "written_pending", "late_days", "late_factor", "total", "max",
                    "flags", "notes"])
        for r in rows:
            m = manual.get(r["student"], {"points": 0.0, "graded": 0, "pending": 0, "max": 0.0, "items": []})
            auto = sum(q["points"] for q in r["questions"].values()) if r["questions"] else 0.0
            total = round((auto + m["points"]) * r.get("late_factor", 1.0), 4)
            top = auto_max + m["max"]
            totals[r["student"]] = (total, top, r)
            w.writerow([r["student"], assignment, r["status"], r["reason"],
                        *[f"{r['questions'].get(q.label, {}).get('points', 0.0):g}" for q in qs],
                        f"{auto:g}", f"{auto_max:g}", f"{m['points']:g}", f"{m['max']:g}", m["pending"],
                        r.get("late_days", 0), f"{r.get('late_factor', 1.0):g}", f"{total:g}", f"{top:g}",
                        " | ".join(r.get("flags", [])), " | ".join(r.get("notes", []))])
    title = course.titles.get(assignment, assignment)   # the gradebook column's exact title ([titles] in homework.toml)
    top_all = max((t[1] for t in totals.values()), default=0.0)

    def shown(total, r):   # no grade for a student with nothing handed in and nothing graded by hand
        graded_by_hand = manual.get(r["student"], {}).get("graded", 0)
        return "" if r["status"] == "missing" and not graded_by_hand else f"{total:g}"

    with open(out / f"canvas_{assignment}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)   # Canvas's gradebook import: these five columns, then one column per assignment
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title])
        w.writerow(["    Points Possible", "", "", "", "", f"{top_all:g}"])
        for s in course.roster:
            total, _, r = totals[s.student_id]
            w.writerow([s.name or s.student_id, s.lms_id, s.student_id, s.email, "", shown(total, r)])
    no_email = []
    with open(out / f"moodle_{assignment}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)   # Moodle's CSV grade import: map "Email address" to the user, the rest to grade items
        w.writerow(["Email address", "ID number", "Full name", title, f"{title} feedback"])
        for s in course.roster:
            total, top, r = totals[s.student_id]
            if not s.email:   # Moodle refuses a whole file with a row it cannot match
                no_email.append(s.student_id)
                continue
            w.writerow([s.email, s.student_id, s.name, shown(total, r),
                        f"{r['status']}: {total:g} / {top:g}" + (f" ({r['reason']})" if r["reason"] else "")])
    for s in course.roster:
        total, top, r = totals[s.student_id]
        d = out / "feedback" / s.student_id
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{assignment}.md").write_text(_feedback(r, total, top, manual.get(s.student_id)))
    with open(out / "feedback" / f"index_{assignment}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)   # for returning the feedback files by a mail merge or an LMS's bulk upload
        w.writerow(["student_id", "name", "email", "file"])
        for s in course.roster:
            w.writerow([s.student_id, s.name, s.email, f"{s.student_id}/{assignment}.md"])
    lines = [f"# {assignment}: {len(rows)} students", ""]
    if no_email:
        lines += [f"Not in moodle_{assignment}.csv (no email on the roster): {', '.join(no_email)}.", ""]
    if reasons:
        lines += ["Graded in this run: " + ", ".join(f"{n} ({why})" for why, n in sorted(reasons.items()))
                  + "; the others kept their grades.", ""]
    late = [(r["student"], r["late_days"]) for r in rows if r.get("late_days")]
    if late:
        lines += ["Late: " + ", ".join(f"{sid} ({d} day{'s' if d > 1 else ''})" for sid, d in late) + ".", ""]
    for status in ("graded", "missing", "unreadable", "timed out", "crashed"):
        who = [r["student"] for r in rows if r["status"] == status]
        lines.append(f"- {status}: {len(who)}" + (f" ({', '.join(who)})" if who and status != "graded" else ""))
    groups = {tuple(r["cgroups"]) for r in rows if "cgroups" in r}
    if groups:
        lines += ["", "Sandbox limits: time, CPU, file size and address space per process (rlimits), and "
                  + ("for the whole sandbox " + " and ".join(sorted({g for t in groups for g in t}))
                     + " (control groups)." if all(groups) else
                     "NO control group on this host for some submissions: the process count and total memory "
                     "were not capped (see grader/sandbox.py).")]
    flagged = [(r["student"], f) for r in rows for f in r.get("flags", []) + r.get("notes", [])]
    if flagged:
        lines += ["", "## To look at", ""] + [f"- {sid}: {f}" for sid, f in flagged]
    if unmatched:
        lines += ["", "## Files that match no roster student (not graded)", ""] + \
                 [f"- {path}: {why}" for path, why in unmatched]
    (out / f"report_{assignment}.md").write_text("\n".join(lines) + "\n")


def _feedback(r: dict, total: float, top: float, manual) -> str:
    from dpcourse.homework import questions

    lines = [f"# {r['assignment']}, student {r['student']}", "", f"Status: {r['status']}"
             + (f" ({r['reason']})." if r["reason"] else "."), ""]
    if r["status"] == "missing":
        return "\n".join(lines + ["No submission was found for you. Ask your teacher if you handed one in.", ""])
    if r["status"] == "unreadable":
        lines += ["Your file could not be read as a notebook, so nothing in it was tested. Open it in Jupyter, "
                  "check that it opens and runs, save it and hand it in again.", ""]
    lines.append(f"Total so far: {total:g} / {top:g}" + (f" (after a late penalty: {r['late_days']} day(s) late, "
                                                         f"{r['late_factor']:g} of the points kept)"
                                                         if r.get("late_days") else "") + ".")
    if manual and manual.get("pending"):
        lines.append(f"Written answers still to be graded by your teacher: {manual['pending']}.")
    lines.append("")
    for question, pts, top_q, comment in (manual or {}).get("items", []):
        head = f"## {question}: {pts:g} / {top_q:g} (graded by your teacher)" if top_q else \
            f"## {question}: {pts:+g} points (your teacher's adjustment)"
        lines += [head] + ([comment, ""] if comment else [""])
    for q in questions(r["assignment"]):
        res = r["questions"].get(q.label)
        if not res:
            continue
        lines.append(f"## {q.label}: {res['points']:g} / {res['max']:g}")
        for t in res["tests"]:
            mark = "passed" if t["passed"] else "not passed"
            lines.append(f"- {t['name']} ({t['points']:g} / {t['max']:g} point{'' if t['max'] == 1 else 's'}, "
                         f"{mark}): {t['message']}")
        lines.append("")
    if r.get("cells_failed"):
        lines += ["Code cells of your notebook that raised or passed the time limit (counted from 1, code cells "
                  "only): " + ", ".join(f"{c['cell'] + 1} ({c['status']})" for c in r["cells_failed"]) + ".", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ disputes

def final_grades(course: Course) -> Path:
    """``gradebook/final.csv``: per student, the total and maximum of every assignment graded so far (from the
    ``grades_hwNN.csv`` files, written points and late penalties included) and their sums."""
    files = sorted(course.gradebook.glob("grades_hw*.csv"))
    if not files:
        raise ValueError(f"nothing graded yet in {course.gradebook}")
    per = {}
    for f in files:
        hw = f.stem.split("_", 1)[1]
        with open(f, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                per.setdefault(row["student"], {})[hw] = (float(row["total"]), float(row["max"]))
    hws = [f.stem.split("_", 1)[1] for f in files]
    path = course.gradebook / "final.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["student_id", "name", "email", *hws, "total", "max", "percent"])
        for s in course.roster:
            got = per.get(s.student_id, {})
            total = sum(got.get(hw, (0.0, 0.0))[0] for hw in hws)
            top = sum(got.get(hw, (0.0, 0.0))[1] for hw in hws)
            w.writerow([s.student_id, s.name, s.email, *[f"{got[hw][0]:g}" if hw in got else "" for hw in hws],
                        f"{total:g}", f"{top:g}", f"{100 * total / top:.1f}" if top else ""])
    return path


def answer_report(course: Course, assignment: str, sid: str) -> str:
    """For the teacher only (it needs the secret): a student's numbers, expected answers and hidden tests."""
    from dpcourse.homework import questions

    course.student(sid)
    lines = [f"{assignment}, student {sid}"]
    for q in questions(assignment):
        params = student_numbers(course.secret, assignment, q.label, sid)
        lines.append(f"- {q.label} ({q.kind} `{q.name}`, {q.points:g} points)")
        if params:
            lines.append(f"    numbers: {_numbers_text(params)}")
        if q.kind == "number" and q.expected is not None:
            lines.append(f"    expected answer: {q.expected(params)!r}")
        for t in q.tests:
            lines.append(f"    hidden test: {t.name} ({t.points:g} points{', a gate' if t.gate else ''})")
    return "\n".join(lines)
