"""Run nbgrader offline: generate the student copies, autograde a folder of submissions, write the gradebook.

nbgrader (https://nbgrader.readthedocs.io) does the work it was made for: it removes the hidden tests from
the student copy (``generate_assignment``), runs each submission in its own Jupyter kernel with a time limit
per cell, continuing after a cell that raises or is interrupted (``autograde``), keeps every score in its
SQLite gradebook (``gradebook.db``), and writes an HTML feedback page per submission
(``generate_feedback``). This module adds what is specific to the course:

* :func:`hidden_test`, the body of every hidden-test cell: it finds the student (nbgrader runs the notebook
  in ``autograded/<student id>/<assignment>/``), computes that student's variant and runs one hidden test
  of :mod:`dpcourse.homework.registry`; a failed privacy test (a *gate*) fails every test of the question;
* :class:`LimitOutputChars`, an nbgrader preprocessor that caps the characters a cell may print (nbgrader's
  own ``LimitOutput`` counts lines, and one line can hold megabytes);
* :func:`generate` and :func:`grade`, which build the course folder, call nbgrader's API, and export one
  CSV row per submission with the points of every question, and a short feedback file per submission.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import sys
from pathlib import Path

from . import ASSIGNMENTS, check_student_id, questions, variant

__all__ = ["LimitOutputChars", "generate", "grade", "hidden_test", "nbgrader_config"]

COURSE_ID = "dpcourse"
_GATES: dict = {}


# ------------------------------------------------------------------------------------ inside the kernel

def _student_id(ns: dict) -> str:
    """The id nbgrader grades (the folder it runs the notebook in), else the notebook's STUDENT_ID."""
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        return check_student_id(Path.cwd().parent.name)
    return check_student_id(ns.get("STUDENT_ID", ""))


def _verdict(test, answer, params):
    try:
        return test.run(answer, params)
    except Exception as exc:  # noqa: BLE001 - the student's answer may make a test raise anything
        from ..exercises import CheckResult
        return CheckResult(False, f"the test could not run your answer ({type(exc).__name__})")


def hidden_test(assignment: str, label: str, index: int, ns: dict) -> None:
    """Run hidden test ``index`` of question ``label`` on the answer defined in the notebook namespace ``ns``.

    Prints the verdict if it passes; raises AssertionError with the checker's message (which names the slip,
    never the answer) if it fails, so that nbgrader scores the cell 0. If a privacy test (gate) of the same
    question fails, every test of the question fails with that message. A gate stopped at the cell time limit
    counts as failed: an answer that never returns costs one time limit per question, not one per test.
    """
    sid = _student_id(ns)
    q = next((q for q in questions(assignment) if q.label == label), None)
    if q is None:
        raise ValueError(f"label must be a question of {assignment}, got {label!r}")
    if q.name not in ns or ns[q.name] is None:
        raise AssertionError(f"no answer: `{q.name}` is not defined (or is None) when the notebook has run")
    answer, params = ns[q.name], variant(assignment, label, sid)
    key = (assignment, label, sid, id(answer))
    if key not in _GATES:
        try:
            _GATES[key] = [(t.name, _verdict(t, answer, params)) for t in q.tests if t.gate]
        except KeyboardInterrupt:   # the cell's time limit (nbgrader interrupts the kernel): charged once per question
            from ..exercises import CheckResult
            stopped = CheckResult(False, "Stopped at the time limit of a cell (an endless loop?).")
            _GATES[key] = [(t.name, stopped) for t in q.tests if t.gate]
            raise
    gates = _GATES[key]
    for name, verdict in gates:
        if not verdict.passed:
            raise AssertionError(f"0 points for this question: {name} failed. {verdict.message}")
    test = q.tests[index]
    verdict = dict(gates).get(test.name) or _verdict(test, answer, params)
    if not verdict.passed:
        raise AssertionError(f"Not yet. {verdict.message}")
    print(f"Passed: {test.name}. {verdict.message}")


def _limit_output_chars_class():
    from nbgrader.preprocessors import NbGraderPreprocessor
    from traitlets import Integer

    class LimitOutputChars(NbGraderPreprocessor):
        """Keep at most ``max_chars`` characters of a cell's printed (stream) output."""

        max_chars = Integer(20_000, help="characters of stream output kept per cell").tag(config=True)

        def preprocess_cell(self, cell, resources, index):
            if cell.cell_type != "code":
                return cell, resources
            room = self.max_chars
            kept = []
            for out in cell.outputs:
                if out.output_type == "stream":
                    if room <= 0:
                        continue
                    if len(out.text) > room:
                        out.text = out.text[:room] + "\n... output truncated (limit reached) ...\n"
                    room -= len(out.text)
                kept.append(out)
            cell.outputs = kept
            return cell, resources

    return LimitOutputChars


def __getattr__(name):   # the preprocessor class needs nbgrader: built on first use
    if name == "LimitOutputChars":
        return _limit_output_chars_class()
    raise AttributeError(name)


# ------------------------------------------------------------------------------------------- the driver

def nbgrader_config(course: Path, *, cell_timeout: float = 30.0, max_chars: int = 20_000):
    """nbgrader's configuration for the course folder ``course`` (and the same, as ``nbgrader_config.py`` text)."""
    from nbgrader.converters.autograde import Autograde
    from traitlets.config import Config

    from .kernel import CLIENT_CLASS

    if not (0 < cell_timeout <= 3600):
        raise ValueError(f"cell_timeout must be in (0, 3600] seconds, got {cell_timeout!r}")
    if not (isinstance(max_chars, int) and 0 < max_chars <= 10**8):
        raise ValueError(f"max_chars must be a whole number in (0, 1e8], got {max_chars!r}")
    limiter = _limit_output_chars_class()
    preprocessors = list(Autograde.class_traits()["autograde_preprocessors"].default())
    at = next(i for i, p in enumerate(preprocessors) if p.__name__ == "LimitOutput") + 1
    c = Config()
    c.CourseDirectory.root = str(course)
    c.CourseDirectory.course_id = COURSE_ID
    c.Execute.timeout = int(cell_timeout) if float(cell_timeout).is_integer() else cell_timeout
    c.Execute.interrupt_on_timeout = True
    # a client that cannot miss a kernel's reply (dpcourse.homework.kernel): a lost wake-up would otherwise
    # wait out the cell timeout and cost a student marks for a cell that had finished
    c.AsyncKernelManager.client_class = CLIENT_CLASS
    c.LimitOutput.max_lines = 1000
    c.LimitOutputChars.max_chars = max_chars
    c.Autograde.autograde_preprocessors = preprocessors[:at] + [limiter] + preprocessors[at:]
    text = (
        "# Written by dpcourse.homework.autograde (python tools/homework.py); nbgrader's own commands read it.\n"
        "from nbgrader.converters.autograde import Autograde\n"
        "from dpcourse.homework.autograde import LimitOutputChars\n\n"
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Execute.timeout = {c.Execute.timeout!r}\n"
        "c.Execute.interrupt_on_timeout = True\n"
        f"c.AsyncKernelManager.client_class = {CLIENT_CLASS!r}\n"
        "c.LimitOutput.max_lines = 1000\n"
        f"c.LimitOutputChars.max_chars = {max_chars!r}\n"
        "_pre = list(Autograde.class_traits()['autograde_preprocessors'].default())\n"
        f"c.Autograde.autograde_preprocessors = _pre[:{at}] + [LimitOutputChars] + _pre[{at}:]\n")
    return c, text


def _alembic_head() -> str:
    """The schema version nbgrader stamps on a new gradebook, read by alembic in this process."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = Config()
    config.set_main_option("script_location", ALEMBIC_DIR)
    return ScriptDirectory.from_config(config).get_current_head()


@contextlib.contextmanager
def _nbgrader_env():
    """nbgrader runs the ``alembic`` command of its own environment: put that environment's bin first on PATH.

    A new gradebook asks the ``alembic heads`` command for its schema version (a subprocess: about 5 s of CPU,
    measured); :func:`_alembic_head` reads the same version with alembic's API in this process (under a second),
    so it stands in for nbgrader's ``get_alembic_version`` while nbgrader's API runs here.
    """
    import nbgrader.api

    saved, saved_version = os.environ.get("PATH", ""), nbgrader.api.get_alembic_version
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), saved])
    nbgrader.api.get_alembic_version = _alembic_head
    try:
        yield
    finally:
        os.environ["PATH"] = saved
        nbgrader.api.get_alembic_version = saved_version


def _api(course: Path, **limits):
    from nbgrader.apps import NbGraderAPI

    config, text = nbgrader_config(course, **limits)
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(text)
    return NbGraderAPI(config=config)


def _check(result: dict, what: str) -> None:
    if not result.get("success"):
        raise RuntimeError(f"nbgrader {what} failed:\n{result.get('error', '')}\n{result.get('log', '')}")


def _write_sources(course: Path, chosen) -> list[dict]:
    import nbformat

    from .notebooks import build_assignment

    manifests = []
    for hw in chosen:
        nb, manifest = build_assignment(hw)
        src = course / "source" / hw
        src.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, src / f"{hw}.ipynb")
        manifests.append(manifest)
    return manifests


def _chosen(only):
    chosen = list(only or ASSIGNMENTS)
    unknown = sorted(set(chosen) - set(ASSIGNMENTS))
    if unknown:
        raise ValueError(f"assignments must be among {sorted(ASSIGNMENTS)}, got {unknown}")
    return chosen


def generate(out, only=None) -> list[dict]:
    """Write every assignment (or those in ``only``) under ``out``.

    ``out/student/hwNN.ipynb``: the copies to hand out (nbgrader's release: no solution, no hidden test).
    ``out/teacher/hwNN.ipynb``: a reading copy with the chapter's solutions. ``out/autograder/hwNN.json``:
    questions, points and hidden tests' names. ``out/course/``: nbgrader's course folder (``source/``,
    ``release/``, ``gradebook.db``, ``nbgrader_config.py``), usable with nbgrader's own commands.
    """
    import nbformat

    from .notebooks import build_assignment

    out = Path(out)
    chosen = _chosen(only)
    course = out / "course"
    manifests = _write_sources(course, chosen)
    for sub in ("student", "teacher", "autograder"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    with _nbgrader_env():
        api = _api(course)
        for hw, manifest in zip(chosen, manifests):
            _check(api.generate_assignment(hw, force=True, create=True), f"generate_assignment {hw}")
            shutil.copyfile(course / "release" / hw / f"{hw}.ipynb", out / "student" / f"{hw}.ipynb")
            nbformat.write(build_assignment(hw, teacher=True)[0], out / "teacher" / f"{hw}.ipynb")
            (out / "autograder" / f"{hw}.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifests


def _submissions(submissions: Path, assignment=None):
    """``(student id, assignment, path)`` of ``SUBMISSIONS/<student id>/<assignment>*.ipynb``."""
    found = []
    for folder in sorted(p for p in submissions.iterdir() if p.is_dir() and not p.name.startswith(".")):
        sid = check_student_id(folder.name)
        for nb_path in sorted(folder.glob("*.ipynb")):
            hw = assignment or next((a for a in sorted(ASSIGNMENTS, key=len, reverse=True)
                                     if nb_path.stem.lower().startswith(a)), None)
            if hw is not None and not nb_path.name.startswith("."):
                found.append((sid, hw, nb_path))
    return found


def _outputs_text(cell) -> str:
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        elif o.get("output_type") == "error":
            parts.append(f"{o.get('ename')}: {o.get('evalue')}")
    return " ".join(" ".join(parts).split())[:600]


def grade(submissions, out, *, assignment=None, cell_timeout: float = 30.0, max_chars: int = 20_000,
          html_feedback: bool = True) -> list[dict]:
    """Autograde ``SUBMISSIONS/<student id>/<assignment>.ipynb`` with nbgrader into ``out``.

    Writes ``out/grades.csv`` (student, assignment, points of every question, automatic total and maximum,
    written answers awaiting the teacher), ``out/feedback/<student id>/<assignment>.md`` (each hidden test's
    verdict and message), and keeps nbgrader's course folder ``out/course`` with its SQLite gradebook, the
    autograded notebooks and nbgrader's HTML feedback. Each submission runs in its own kernel, every cell
    under ``cell_timeout`` seconds and ``max_chars`` characters of printed output; a cell that raises or
    is stopped scores 0 where it matters and the next cell runs. ``html_feedback=False`` skips nbgrader's
    HTML feedback pages (``out/feedback`` is written either way).
    """
    import nbformat
    from nbgrader.api import Gradebook

    submissions, out = Path(submissions), Path(out)
    if not submissions.is_dir():
        raise ValueError(f"submissions must be a folder of <student id>/<assignment>.ipynb, got {str(submissions)!r}")
    found = _submissions(submissions, assignment)
    chosen = sorted({hw for _, hw, _ in found})
    course = out / "course"
    if course.exists():
        shutil.rmtree(course)
    _write_sources(course, chosen)
    for sid, hw, path in found:
        dest = course / "submitted" / sid / hw
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / f"{hw}.ipynb")
    results = []
    with _nbgrader_env():
        api = _api(course, cell_timeout=cell_timeout, max_chars=max_chars)
        for hw in chosen:
            _check(api.generate_assignment(hw, force=True, create=True), f"generate_assignment {hw}")
        for sid, hw, _ in found:
            _check(api.autograde(hw, sid, force=True, create=True), f"autograde {hw} {sid}")
            if html_feedback:
                _check(api.generate_feedback(hw, sid, force=True), f"generate_feedback {hw} {sid}")
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id=COURSE_ID) as gb:
            for sid, hw, _ in found:
                autograded = nbformat.read(course / "autograded" / sid / hw / f"{hw}.ipynb", as_version=4)
                outputs = {c.metadata.get("nbgrader", {}).get("grade_id"): _outputs_text(c) for c in autograded.cells}
                row = {"student": sid, "assignment": hw, "questions": {}, "written_pending": 0}
                for q in questions(hw):
                    tests = []
                    for i, t in enumerate(q.tests):
                        g = gb.find_grade(f"{q.label}-test{i}", hw, hw, sid)
                        tests.append({"name": t.name, "points": float(g.score), "max": float(g.max_score),
                                      "message": outputs.get(f"{q.label}-test{i}", "")})
                    row["questions"][q.label] = {"points": sum(t["points"] for t in tests), "max": q.points,
                                                 "tests": tests}
                row["written_pending"] = sum(1 for c in autograded.cells
                                             if c.metadata.get("nbgrader", {}).get("grade")
                                             and c.cell_type == "markdown")
                row["cells_failed"] = [i + 1 for i, c in enumerate(x for x in autograded.cells
                                                                   if x.cell_type == "code")
                                       if any(o.get("output_type") == "error" for o in c.get("outputs", []))
                                       and not c.metadata.get("nbgrader", {}).get("grade")]
                results.append(row)
    _write_gradebook(out, results)
    return results


def _write_gradebook(out: Path, results: list[dict]) -> None:
    columns = [(hw, q.label) for hw in sorted({r["assignment"] for r in results}) for q in questions(hw)]
    with open(out / "grades.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["student", "assignment", *[f"{hw}:{lab}" for hw, lab in columns], "auto_total", "auto_max",
                    "written_to_grade"])
        for r in results:
            qs = r["questions"]
            w.writerow([r["student"], r["assignment"],
                        *[f"{qs[lab]['points']:g}" if hw == r["assignment"] else "" for hw, lab in columns],
                        f"{sum(q['points'] for q in qs.values()):g}", f"{sum(q['max'] for q in qs.values()):g}",
                        r["written_pending"]])
    for r in results:
        d = out / "feedback" / r["student"]
        d.mkdir(parents=True, exist_ok=True)
        total = sum(q["points"] for q in r["questions"].values())
        top = sum(q["max"] for q in r["questions"].values())
        lines = [f"# {r['assignment']}, student {r['student']}", "",
                 f"Graded automatically: {total:g} / {top:g} points. Written answers to be graded by your teacher: "
                 f"{r['written_pending']}.", ""]
        for label, q in r["questions"].items():
            lines.append(f"## {label}: {q['points']:g} / {q['max']:g}")
            lines += [f"- {t['name']} ({t['points']:g} / {t['max']:g}): {t['message'] or 'no output'}"
                      for t in q["tests"]]
            lines.append("")
        if r["cells_failed"]:
            lines += ["Cells of your notebook that raised or were stopped at the time limit (code cells counted "
                      f"from 1): {', '.join(map(str, r['cells_failed']))}.", ""]
        (d / f"{r['assignment']}.md").write_text("\n".join(lines))
    (out / "gradebook.json").write_text(json.dumps(results, indent=1) + "\n")
