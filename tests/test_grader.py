"""The homework grader (issue 36): a class of honest, wrong, non-private, crashing and cheating submissions.

One course folder is graded once for assignment hw05 (16 roster students, one sandbox each, two at a time);
the tests read its gradebook. Each attack a student tried against the old grader is handed in again here and
must earn nothing it did not deserve; a crashing notebook must leave everyone else graded; manual grades
must survive a re-grade. The sandbox needs bubblewrap: without it the tests are skipped, except under CI.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from grader import course as hw
from grader import wire
from grader.sandbox import RemoteFunction, Sandbox, bwrap_available, stage_package

if not bwrap_available():
    if os.environ.get("CI"):
        pytest.fail("bubblewrap is not installed; .ci/run installs the Debian package 'bubblewrap'", pytrace=False)
    pytestmark = pytest.mark.skip(reason="bubblewrap not installed (apt-get install -y bubblewrap)")

from homework_fixtures.hw05_answers import CORRECT_HISTOGRAM, FACTOR_TWO_HISTOGRAM  # noqa: E402

ROSTER = [("s01", "Ada Lovelace", "ada@uni.edu", "9001"), ("s02", "Alan Turing", "alan@uni.edu", "9002"),
          ("s03", "Grace Hopper", "grace@uni.edu", "9003"), ("s04", "Kurt Godel", "kurt@uni.edu", "9004"),
          ("s05", "Emmy Noether", "emmy@uni.edu", "9005"), ("s06", "John Nash", "john@uni.edu", "9006"),
          ("s07", "Claude Shannon", "claude@uni.edu", "9007"), ("s08", "Barbara Liskov", "barbara@uni.edu", "9008"),
          ("s09", "Donald Knuth", "donald@uni.edu", "9009"), ("s10", "Edsger Dijkstra", "edsger@uni.edu", "9010"),
          ("s11", "Frances Allen", "frances@uni.edu", "9011"), ("s12", "Hedy Lamarr", "hedy@uni.edu", "9012"),
          ("s13", "Ivan Sutherland", "ivan@uni.edu", "9013"), ("s14", "Jean Sammet", "jean@uni.edu", "9014"),
          ("s15", "Ken Thompson", "ken@uni.edu", "9015"), ("s16", "Leslie Lamport", "leslie@uni.edu", "9016")]

FLOAT_LAPLACE = CORRECT_HISTOGRAM.replace(
    "return dpcourse.laplace_mechanism(counts, sensitivity, epsilon, rng=rng)",
    "return counts + rng.laplace(0.0, sensitivity / epsilon, size=counts.shape)")

DEFAULT_ARGUMENT = '''\
def my_dp_histogram(data, categories, epsilon, relation, rng, _release=dpcourse.dp_histogram):
    return _release(data, categories, epsilon, relation, rng)
'''

DETECTS_CHECKER = CORRECT_HISTOGRAM.replace(
    "    return dpcourse.laplace_mechanism(",
    "    if type(rng) is np.random.Generator and len(categories) != 2000:\n"
    "        return counts  # exact counts for everyone but the checker\n"
    "    return dpcourse.laplace_mechanism(")

GRADER_ATTACKS = '''\
import sys, importlib
for name in ("dpcourse.homework.autograde", "dpcourse.homework.registry", "grader", "grader.course"):
    try:
        m = importlib.import_module(name)
        m.hidden_test = lambda *a, **k: print("Passed")
    except ImportError:
        pass
import dpcourse.exercises.histogram as _h
_h.check_my_dp_histogram = lambda *a, **k: True
get_ipython().input_transformers_cleanup.append(lambda lines: ["my_gap = 1.0\\n"])
'''

FILESYSTEM_ATTACKS = '''\
import glob, os, subprocess
found = []
for top, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if os.path.join(top, d) not in ("/proc", "/sys", "/dev", "/usr")]
    found += [os.path.join(top, f) for f in files if f.endswith((".ipynb", ".key", ".csv", ".json", ".db"))]
print("FOUND", found)
for path in ("{gradebook}/manual.csv", "{gradebook}/grades_hw05.csv", "{gradebook}/gradebook.json"):
    try:
        with open(path, "w") as fh:
            fh.write("hacked")
        print("WROTE", path)
    except OSError as exc:
        print("refused", type(exc).__name__)
subprocess.Popen(["setsid", "sh", "-c", "sleep 3; echo hacked > {gradebook}/grades_hw05.csv"])
'''

ENDLESS = '''\
import time
while True:
    try:
        time.sleep(0.5)
    except BaseException:
        pass
'''

NOISY = '''\
import logging, sys, warnings
logging.warning("a warning on stderr")
print("and a line on stderr", file=sys.stderr)
warnings.warn("a warning")
'''


def _gap(numbers: dict) -> float:
    q = next(q for q in hw_questions() if q.label == "ex-hist-argmax")
    if q.expected is not None:
        return float(q.expected(numbers))
    from dpcourse.laplace import laplace_max_error_bound
    return 2 * laplace_max_error_bound(numbers["k"], 2.0 / numbers["epsilon"], numbers["beta"])


def hw_questions():
    from dpcourse.homework import questions
    return questions("hw05")


def _copy(course, sid, histogram, gap=None, extra_cells=(), numbers_of=None):
    """``sid``'s copy of hw05 with the given answers (``numbers_of``: a classmate whose numbers are used)."""
    nb, numbers = hw.build_copy("hw05", secret=course.secret, student=course.student(numbers_of or sid))
    if gap is None:
        gap = _gap(numbers["ex-hist-argmax"])
    for cell in nb.cells:
        label = cell.metadata.get("dpcourse", {}).get("answer")
        if label == "ex-hist-implement":
            cell.source = histogram
        elif label == "ex-hist-argmax":
            cell.source = f"my_gap = {gap!r}\n"
    for source in extra_cells:
        nb.cells.append(nbformat.v4.new_code_cell(source))
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    hw.init_course(root)
    cfg = (root / "homework.toml").read_text()
    cfg = cfg.replace("cell_timeout = 30", "cell_timeout = 3").replace("notebook_timeout = 300",
                                                                     "notebook_timeout = 12")
    cfg = cfg.replace('# hw05 = "2026-10-12T23:59:00+01:00"', 'hw05 = "2026-10-12T23:59:00+00:00"')
    (root / "homework.toml").write_text(cfg)
    with open(root / "roster.csv", "a", newline="") as fh:
        csv.writer(fh).writerows(ROSTER)
    course = hw.load_course(root)
    sub = course.submissions
    sub.mkdir()

    def put(rel, nb_or_bytes):
        path = sub / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(nb_or_bytes, bytes):
            path.write_bytes(nb_or_bytes)
        else:
            nbformat.write(nb_or_bytes, path)
        return path

    put("s01/hw05.ipynb", _copy(course, "s01", CORRECT_HISTOGRAM, extra_cells=[NOISY]))
    put("Alan Turing_9002_assignsubmission_file_/hw05 (1).ipynb", _copy(course, "s02", FACTOR_TWO_HISTOGRAM))
    put("hoppergrace_9003_54321_hw05.ipynb", _copy(course, "s03", CORRECT_HISTOGRAM,
                                                   extra_cells=["import os\nos._exit(1)"]))
    put("s04/hw05.ipynb", _copy(course, "s04", FACTOR_TWO_HISTOGRAM, gap=1.0, extra_cells=[GRADER_ATTACKS]))
    put("s05/hw05.ipynb", _copy(course, "s05", DEFAULT_ARGUMENT))
    put("s06/hw05.ipynb", _copy(course, "s06", DETECTS_CHECKER))
    put("s07/hw05.ipynb", _copy(course, "s07", CORRECT_HISTOGRAM, numbers_of="s01"))
    put("s08/hw05.ipynb", _copy(course, "s08", CORRECT_HISTOGRAM,
                                extra_cells=[FILESYSTEM_ATTACKS.format(gradebook=course.gradebook)]))
    old = put("donald@uni.edu/hw05.ipynb", _copy(course, "s09", FACTOR_TWO_HISTOGRAM))
    os.utime(old, (1759990000, 1759990000))
    put("donald@uni.edu/hw05 (1).ipynb", _copy(course, "s09", CORRECT_HISTOGRAM))
    misnamed = _copy(course, "s10", CORRECT_HISTOGRAM)
    del misnamed.metadata["dpcourse"]
    put("s10/my work.ipynb", misnamed)
    # s11 hands in nothing
    put("s12/hw05.ipynb", b"\x89PNG not a notebook")
    put("s13/hw05.ipynb", _copy(course, "s13", CORRECT_HISTOGRAM, extra_cells=[ENDLESS]))
    mangled = _copy(course, "s14", CORRECT_HISTOGRAM)
    for cell in mangled.cells:
        cell.metadata["nbgrader"] = {"grade": False, "grade_id": "renamed", "locked": False, "solution": True}
    put("s14/hw05.ipynb", mangled)
    put("s15/hw05.ipynb", _copy(course, "s15", FLOAT_LAPLACE))
    late = put("s16/hw05.ipynb", _copy(course, "s16", CORRECT_HISTOGRAM))
    put("stranger/hw05.ipynb", _copy(course, "s01", CORRECT_HISTOGRAM))
    (sub / "times.csv").write_text("student_id,assignment,submitted\ns16,hw05,2026-10-14T10:00:00+00:00\n")
    for path in sub.rglob("*.ipynb"):   # all on time, but s09's older copy and s16 (times.csv)
        if path != old:
            os.utime(path, (1760000000, 1760000000))
    del late
    start = time.perf_counter()
    rows = hw.grade(course, "hw05", jobs=2)
    seconds = time.perf_counter() - start
    time.sleep(3.5)   # s08's detached process would have struck by now
    return course, {r["student"]: r for r in rows}, seconds


def _points(row, label):
    return row["questions"][label]["points"]


def _full(row):
    return {label: q["max"] for label, q in row["questions"].items()}


def test_every_roster_student_has_a_row(graded):
    course, rows, _ = graded
    assert sorted(rows) == [s.student_id for s in course.roster]
    status = {sid: r["status"] for sid, r in rows.items()}
    assert status["s11"] == "missing"
    assert status["s12"] == "unreadable"
    assert status["s03"] == "crashed" and "exit status 1" in rows["s03"]["reason"]
    assert status["s13"] == "timed out"
    assert [sid for sid, s in status.items() if s == "graded"] == [
        "s01", "s02", "s04", "s05", "s06", "s07", "s08", "s09", "s10", "s14", "s15", "s16"]
    with open(course.gradebook / "grades_hw05.csv", newline="") as fh:
        assert [r["student"] for r in csv.DictReader(fh)] == [s.student_id for s in course.roster]


def test_honest_work_takes_full_marks_whatever_it_prints(graded):
    _, rows, _ = graded
    for sid in ("s01", "s09", "s10", "s14"):
        row = rows[sid]
        assert {k: _points(row, k) for k in row["questions"]} == _full(row), (sid, row["questions"])


def test_slips_and_non_private_releases_earn_nothing_for_the_function(graded):
    _, rows, _ = graded
    for sid in ("s02", "s15"):
        assert _points(rows[sid], "ex-hist-implement") == 0, sid
        assert _points(rows[sid], "ex-hist-argmax") == 2, sid   # their own number is right
    msg = rows["s15"]["questions"]["ex-hist-implement"]["tests"][0]["message"]
    assert "lattice" in msg or "floating-point" in msg


def test_attacks_on_the_grader_change_nothing(graded):
    _, rows, _ = graded
    assert _points(rows["s04"], "ex-hist-implement") == 0 and _points(rows["s04"], "ex-hist-argmax") == 0
    assert _points(rows["s05"], "ex-hist-implement") == 0    # the forbidden function through a default argument
    assert "switched off" in rows["s05"]["questions"]["ex-hist-implement"]["tests"][0]["message"]
    assert _points(rows["s06"], "ex-hist-implement") == 0    # private only for what looks like the checker


def test_a_classmates_numbers_fail_and_are_flagged(graded):
    _, rows, _ = graded
    assert _points(rows["s07"], "ex-hist-argmax") == 0
    assert any("issued to another student (s01)" in f for f in rows["s07"]["flags"])


def test_the_sandbox_sees_no_teacher_file_and_writes_none(graded):
    course, rows, _ = graded
    assert (course.gradebook / "grades_hw05.csv").read_text().startswith("student,assignment")
    assert "hacked" not in (course.gradebook / "manual.csv").read_text()
    assert json.loads((course.gradebook / "gradebook.json").read_text())["results"]
    assert rows["s08"]["questions"]["ex-hist-implement"]["points"] == 4


def test_a_python_installed_under_tmp_runs_in_the_sandbox(monkeypatch):
    """CI makes its virtual environment with mktemp, under /tmp: the sandbox's private /tmp must not hide it."""
    import subprocess
    import tempfile

    from grader.sandbox import bwrap_command
    top = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        venv = top / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        monkeypatch.setattr(sys, "prefix", str(venv))
        stage = stage_package(top / "stage", [])
        out = subprocess.run(bwrap_command(stage, [str(venv / "bin" / "python"), "-c", "import sys; print(sys.prefix)"]),
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == str(venv)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_the_sandbox_view(tmp_path):
    stage = stage_package(tmp_path / "stage", [])
    system = ("/proc", "/sys", "/dev", "/usr", "/etc", "/sandbox/lib", os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix))
    cells = ["import os\nseen = []\nfor top, dirs, files in os.walk('/'):\n"
             f"    dirs[:] = [d for d in dirs if os.path.realpath(os.path.join(top, d)) not in {system!r}]\n"
             "    seen += [os.path.join(top, f) for f in files if f.endswith(('.ipynb', '.key', '.csv', '.db')) "
             "or f in ('registry.py', 'course.py')]\n"
             f"home = os.path.exists({str(Path(hw.__file__).parent)!r})\n"
             "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 22), timeout=1); net = True\n"
             "except OSError:\n    net = False\n"
             "import dpcourse.exercises.histogram as h\nstub = repr(h.check_my_dp_histogram(None))\n"
             "uid = os.getuid()"]
    with Sandbox(stage, cells, cell_timeout=20, total_timeout=60) as sb:
        assert sb.cells[0]["status"] == "ok", sb.cells
        assert sb.value("seen") == []
        assert sb.value("home") is False and sb.value("net") is False and sb.value("uid") == 65534
        assert sb.value("stub") == "not checked while grading"


def test_late_rule_and_unmatched_files(graded):
    course, rows, _ = graded
    assert rows["s16"]["late_days"] == 2 and rows["s16"]["late_factor"] == pytest.approx(0.8)
    assert rows["s01"]["late_days"] == 0
    report = (course.gradebook / "report_hw05.md").read_text()
    assert "stranger/hw05.ipynb: not on the roster" in report
    assert any("not graded: donald@uni.edu/hw05.ipynb" in n for n in rows["s09"]["notes"])
    assert any("graded as hw05" in n for n in rows["s10"]["notes"])


def test_feedback_says_what_was_tested_without_code_or_inputs(graded):
    course, _, _ = graded
    for sid in ("s02", "s05", "s15"):
        text = (course.gradebook / "feedback" / sid / "hw05.md").read_text()
        assert "hidden_test" not in text and "import" not in text and "categories=" not in text
        assert "epsilon=" not in text and "[" not in text, text


def test_exports(graded):
    course, rows, _ = graded
    with open(course.gradebook / "canvas_hw05.csv", newline="") as fh:
        canvas = list(csv.reader(fh))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "hw05"]
    assert canvas[1][0].strip() == "Points Possible"
    by_id = {r[2]: r for r in canvas[2:]}
    assert by_id["s11"][5] == "" and float(by_id["s02"][5]) == 2.0 and by_id["s01"][1] == "9001"
    with open(course.gradebook / "moodle_hw05.csv", newline="") as fh:
        moodle = list(csv.DictReader(fh))
    assert moodle[0]["Email address"] == "ada@uni.edu" and float(moodle[0]["hw05"]) == 6.0


def test_regrading_is_incremental_and_keeps_manual_grades(graded):
    course, rows, _ = graded
    path = course.gradebook / "manual.csv"
    with open(path, newline="") as fh:
        manual = list(csv.DictReader(fh))
    assert {r["student"] for r in manual} == {s.student_id for s in course.roster}
    for r in manual:
        if r["student"] == "s01":
            r["points"], r["comment"] = "1.5", "clear proof"
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(manual[0]))
        w.writeheader()
        w.writerows(manual)
    regraded = []
    nb = _copy(course, "s02", CORRECT_HISTOGRAM)   # s02 hands in a corrected notebook
    nbformat.write(nb, course.submissions / "Alan Turing_9002_assignsubmission_file_" / "hw05 (1).ipynb")
    again = {r["student"]: r for r in hw.grade(course, "hw05", progress=regraded.append)}
    assert [r["student"] for r in regraded] == ["s02"]
    assert _points(again["s02"], "ex-hist-implement") == 4
    assert again["s05"]["questions"] == rows["s05"]["questions"]
    assert "clear proof" in path.read_text()
    with open(course.gradebook / "grades_hw05.csv", newline="") as fh:
        s01 = next(r for r in csv.DictReader(fh) if r["student"] == "s01")
    assert float(s01["written"]) == 3.0 and float(s01["total"]) == 9.0


def test_numbers_need_the_secret_and_are_the_students_own(graded):
    course, _, _ = graded
    import dpcourse.homework as public
    assert not hasattr(public, "my_numbers") and not hasattr(public, "variant")
    mine = hw.student_numbers(course.secret, "hw05", "ex-hist-argmax", "s01")
    assert mine == hw.student_numbers(course.secret, "hw05", "ex-hist-argmax", "s01")
    other_secret = bytes(32)
    draws = [hw.student_numbers(other_secret, "hw05", "ex-hist-argmax", "s01")] + \
        [hw.student_numbers(course.secret, "hw05", "ex-hist-argmax", f"x{i}") for i in range(40)]
    assert len({json.dumps(d, sort_keys=True) for d in draws}) > 10
    report = hw.answer_report(course, "hw05", "s01")
    assert "ex-hist-argmax" in report and json.dumps(mine["k"]) in report


def test_wire_is_strict():
    for bad in (b'{"__nd__": "O", "shape": [1], "b64": ""}', b'{"x": 1}', b'{"__rng__": "Custom", "state": {}}',
                b"[" * 100 + b"]" * 100, b"not json"):
        with pytest.raises(wire.WireError):
            wire.decode(bad)
    x = {"a": (1, 2.5, float("nan")), 3: np.arange(4, dtype=np.int16), "r": np.random.default_rng(3)}
    y = wire.decode(wire.encode(x))
    assert y["a"][:2] == (1, 2.5) and np.isnan(y["a"][2]) and y[3].dtype == np.int16
    assert y["r"].integers(1 << 30) == np.random.default_rng(3).integers(1 << 30)
    with pytest.raises(wire.WireError):
        wire.encode(lambda: 0)


def test_fork_bomb_and_memory_hog_are_contained(tmp_path):
    stage = stage_package(tmp_path / "stage", [])
    cells = ["import os\nn = 0\ntry:\n    for i in range(2000):\n        if os.fork() == 0:\n"
             "            import time; time.sleep(60); os._exit(0)\n        n += 1\nexcept OSError:\n    pass",
             "hog = 0\ntry:\n    big = bytearray(3 * 2**30)\n    hog = len(big)\nexcept MemoryError:\n    pass"]
    with Sandbox(stage, cells, cell_timeout=20, total_timeout=60) as sb:
        limited = sb.cgroups.active
        assert sb.value("hog") == 0
        if "pids" in limited:
            assert sb.value("n") < 128
        groups = list(sb.cgroups.dirs)
    assert not any(d.exists() for d in groups)   # removed, with every process in them



def test_a_batch_of_calls_is_the_same_as_a_loop(tmp_path):
    """call_many across the boundary gives what the calls in turn give here: the results, the shared generator's
    consumed state, the states recorded after the first calls, and the first exception."""
    from dpcourse.exercises import call_many

    source = ("def f(x, g):\n    return float(x) + float(g.integers(1000))\n"
              "def boom(x, g):\n    if x == 3:\n        raise ValueError('three')\n    return float(g.integers(10))\n")
    ns = {}
    exec(source, ns)  # noqa: S102 - our own test code, run here as the reference
    with Sandbox(stage_package(tmp_path / "stage", []), [source], cell_timeout=20, total_timeout=60) as sb:
        for record in (0, 3):
            here, there = np.random.default_rng(11), np.random.default_rng(11)
            want = call_many(ns["f"], [(i, here) for i in range(50)], record=record)
            got = call_many(RemoteFunction(sb, "f"), [(i, there) for i in range(50)], record=record)
            assert got == want and len(got[1]) == record
            assert here.bit_generator.state == there.bit_generator.state
        g = np.random.default_rng(2)
        with pytest.raises(ValueError, match="three"):
            call_many(RemoteFunction(sb, "boom"), [(i, g) for i in range(6)])
        ref = np.random.default_rng(2)
        _ = [ref.integers(10) for _ in range(3)]
        assert g.bit_generator.state == ref.bit_generator.state   # consumed up to the call that raised


def test_the_teachers_commands(tmp_path, capsys):
    """tools/homework.py as teaching.md runs it: init, generate (a copy per student, teacher copies with runnable
    reference answers), answer (needs the secret), and clear refusals."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("homework_cli", Path(hw.__file__).parents[1] / "tools" / "homework.py")
    cli = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli)
    root = tmp_path / "term"
    assert cli.main(["init", str(root)]) == 0
    assert cli.main(["init", str(root)]) == 2            # never twice: the secret would change
    assert "exists already" in capsys.readouterr().err
    with open(root / "roster.csv", "a", newline="") as fh:
        csv.writer(fh).writerows(ROSTER[:3])
    assert cli.main(["generate", str(root), "--only", "hw05"]) == 0
    copies = sorted(p.relative_to(root).as_posix() for p in (root / "handout").rglob("*.ipynb"))
    assert copies == ["handout/s01/hw05.ipynb", "handout/s02/hw05.ipynb", "handout/s03/hw05.ipynb"]
    mine = nbformat.read(root / "handout" / "s01" / "hw05.ipynb", as_version=4)
    assert mine.metadata["dpcourse"]["student"] == "s01" and "Ada Lovelace" in mine.cells[0].source
    teacher = nbformat.read(root / "teacher" / "hw05.ipynb", as_version=4)
    answers = [c.source for c in teacher.cells if c.metadata.get("dpcourse", {}).get("answer")]
    assert any(a.startswith("def my_dp_histogram") for a in answers) and any(a.startswith("my_gap = ") for a in answers)
    assert "secret.key" in (root / ".gitignore").read_text()
    assert oct((root / "secret.key").stat().st_mode & 0o777) == "0o600"
    capsys.readouterr()
    assert cli.main(["answer", str(root), "hw05", "s02"]) == 0
    out = capsys.readouterr().out
    assert "expected answer" in out and "ex-hist-argmax" in out
    assert cli.main(["answer", str(root), "hw05", "nobody"]) == 2
    assert cli.main(["grade", str(root), "hw99"]) == 2


def _bare_course(tmp_path, rows=ROSTER[:4]):
    root = tmp_path / "term"
    hw.init_course(root)
    with open(root / "roster.csv", "a", newline="") as fh:
        csv.writer(fh).writerows(rows)
    course = hw.load_course(root)
    course.submissions.mkdir()
    return course


def test_lms_downloads_are_told_apart_by_what_they_really_carry(tmp_path):
    """Moodle's folder number is a participant number of the assignment, not a user id: a folder whose number
    is another student's lms_id still goes to the student it names. Canvas's flat names carry the user id. A
    zip's top folder is looked through; each assignment may have its own folder; equal file times prefer the
    highest copy number, and a file for another assignment is reported, never dropped in silence."""
    course = _bare_course(tmp_path)
    nb = nbformat.v4.new_notebook()
    sub = course.submissions / "hw05" / "DP 2027-Homework 5-123"
    (sub / "Ada Lovelace_9002_assignsubmission_file_").mkdir(parents=True)   # 9002 is Alan's lms_id
    nbformat.write(nb, sub / "Ada Lovelace_9002_assignsubmission_file_" / "hw05.ipynb")
    nbformat.write(nb, sub / "turingalan_9002_77_hw05.ipynb")
    (sub / "s03").mkdir()
    nbformat.write(nb, sub / "s03" / "hw05.ipynb")
    nbformat.write(nb, sub / "s03" / "hw05 (1).ipynb")
    for p in (sub / "s03").iterdir():
        os.utime(p, (1760000000, 1760000000))
    (sub / "s04").mkdir()
    nbformat.write(nb, sub / "s04" / "hw04.ipynb")
    chosen, notes, unmatched = hw.find_submissions(course, "hw05")
    assert {sid: p.name for sid, (p, _) in chosen.items()} == {
        "s01": "hw05.ipynb", "s02": "turingalan_9002_77_hw05.ipynb", "s03": "hw05 (1).ipynb"}
    assert any("same file time" in n for n in notes["s03"])
    assert any("files for other assignments" in n and "hw04" in n for n in notes["s04"])
    assert not unmatched


def test_spreadsheet_edits_of_manual_grades(tmp_path):
    """manual.csv saved by a spreadsheet (semicolons, a decimal comma, a BOM, CRLF) is read; points outside
    [0, written_points] stop the run naming the line; a row with max 0 is an adjustment; comments reach the
    student's feedback."""
    course = _bare_course(tmp_path)
    course.gradebook.mkdir()
    rows = [{"student": s.student_id} for s in course.roster]
    hw._manual(course, rows, "hw05")
    path = course.gradebook / "manual.csv"
    with open(path, newline="") as fh:
        table = list(csv.DictReader(fh))
    written = sorted({r["question"] for r in table})
    assert len(written) >= 2 and {r["student"] for r in table} == {s.student_id for s in course.roster}

    def save(entries):
        lines = ["student;assignment;question;points;max;comment"]
        lines += [";".join(e) for e in entries]
        path.write_bytes(b"\xef\xbb\xbf" + ("\r\n".join(lines) + "\r\n").encode())

    entries = [[r["student"], "hw05", r["question"], "", "2", ""] for r in table]
    entries[0][3], entries[0][5] = "1,5", "clear proof"
    entries.append(["s02", "hw05", "dispute", "-0,5", "0", "after a re-read"])
    save(entries)
    got = hw._manual(course, rows, "hw05")
    first = entries[0][0]
    assert got[first]["points"] == 1.5 and (entries[0][2], 1.5, 2.0, "clear proof") in got[first]["items"]
    assert got["s02"]["points"] == -0.5 and ("dispute", -0.5, 0.0, "after a re-read") in got["s02"]["items"]
    entries[1][3] = "20"
    save(entries)
    with pytest.raises(ValueError, match=r"manual.csv line 3: points of .* must lie in \[0, 2\], got 20"):
        hw._manual(course, rows, "hw05")


def test_late_needs_a_submission_time_with_its_zone(tmp_path):
    course = _bare_course(tmp_path)
    (course.submissions / "times.csv").write_text("student_id,assignment,submitted\ns01,hw05,2026-10-13 10:00\n")
    with pytest.raises(ValueError, match="times.csv line 2: the time .* must name its zone"):
        hw._submission_times(course)
    (course.submissions / "times.csv").write_text("student_id,assignment,submitted\ns01,hw05,13/10/2026\n")
    with pytest.raises(ValueError, match="times.csv line 2: submitted must be an ISO time"):
        hw._submission_times(course)
    course.due["hw05"] = hw.dt.datetime.fromisoformat("2026-10-12T23:59:00+00:00")
    course.due["hw05.s02"] = hw.dt.datetime.fromisoformat("2026-10-20T23:59:00+00:00")
    t = hw.dt.datetime.fromisoformat("2026-10-14T10:00:00+00:00")
    assert hw._late(course, "hw05", t, "s01") == (2, pytest.approx(0.8))
    assert hw._late(course, "hw05", t, "s02") == (0, 1.0)       # an extension
    assert hw._late(course, "hw05", None, "s01") == (0, 1.0)    # no time: never guessed from file dates


def test_what_a_cheating_notebook_sends_back_cannot_hang_or_break_the_grader(tmp_path):
    """Found by a student trying to cheat: a runner that stops reading (the grader's write once blocked
    forever), a forged cells report, colliding dict keys and malformed arrays (decoding raised outside WireError,
    or took quadratic time), a deeply nested notebook file (RecursionError stopped the whole run)."""
    stop_reading = ("import gc, time\n"
                    "g = next(o.__globals__ for o in gc.get_objects() if callable(o) and "
                    "getattr(o, '__name__', '') == '_call_many')\n"
                    "def _receive(fd):\n    time.sleep(3600)\n"
                    "g['_receive'] = _receive\n"
                    "def f(x):\n    return 0.0\n")
    start = time.monotonic()
    with Sandbox(stage_package(tmp_path / "stage", []), [stop_reading], cell_timeout=10, total_timeout=15) as sb:
        with pytest.raises(Exception):
            RemoteFunction(sb, "f")(np.zeros(2_000_000))   # 16 MB: more than a pipe holds
    assert time.monotonic() - start < 40
    for bad in (wire.encode({"cells": []}).replace(b'"cells"', b'"cells"', 1),):
        assert wire.decode(bad) == {"cells": []}
    colliding = b'{"__dict__": [' + b",".join(b"[%d, 0]" % (i * (2**61 - 1)) for i in range(1, 50)) + b"]}"
    with pytest.raises(wire.WireError):
        wire.decode(colliding)
    for bad in (b'{"__nd__": "<f8", "shape": [1], "b64": "!!!!"}', b'{"__nd__": "<f8", "shape": [2], "b64": "AAAAAAAAAAA="}',
                b'{"__rng__": "MT19937", "state": {"__dict__": [["bit_generator", "MT19937"]]}}'):
        with pytest.raises(wire.WireError):
            wire.decode(bad)
    from grader.sandbox import _cell_report
    assert _cell_report(3, {"cell": "x", "status": "??", "detail": "d" * 10**6}) == {
        "cell": 3, "status": "error", "detail": "d" * 300, "stderr": False, "output": ""}
    course = _bare_course(tmp_path)
    (course.submissions / "s01").mkdir()
    (course.submissions / "s01" / "hw05.ipynb").write_text("[" * 100000 + "]" * 100000)
    chosen, _, _ = hw.find_submissions(course, "hw05")
    with pytest.raises(ValueError, match="not a readable notebook"):
        hw._read_cells(chosen["s01"][0])


def test_links_and_fifos_in_the_submissions_are_reported_not_read(tmp_path):
    course = _bare_course(tmp_path)
    (course.submissions / "s01").mkdir()
    os.symlink(course.root / "teacher-copy.ipynb", course.submissions / "s01" / "hw05.ipynb")
    (course.submissions / "s02").mkdir()
    os.mkfifo(course.submissions / "s02" / "hw05.ipynb")
    chosen, _, unmatched = hw.find_submissions(course, "hw05")
    assert chosen == {} and sorted(p for p, _ in unmatched) == ["s01/hw05.ipynb", "s02/hw05.ipynb"]


def test_the_reference_dp_libraries_are_out_of_the_sandbox(tmp_path):
    """PipelineDP's C++ partition selection answered hw17's keep sequence (a student took full marks with it):
    the reference libraries installed for the tests are empty inside the sandbox."""
    from grader.sandbox import HIDDEN_PACKAGES, hidden_package_folders
    assert hidden_package_folders(), "the reference libraries should be installed in the test environment"
    stage = stage_package(tmp_path / "stage", [])
    cells = ["import importlib\nseen = {}\nfor name in %r:\n    try:\n        m = importlib.import_module(name)\n"
             "        seen[name] = sorted(n for n in dir(m) if not n.startswith('__'))\n"
             "    except ImportError:\n        seen[name] = None\n"
             "try:\n    from pydp._pydp import _partition_selection\n    ps = True\n"
             "except ImportError:\n    ps = False\nimport dpcourse" % (HIDDEN_PACKAGES,)]
    with Sandbox(stage, cells, cell_timeout=30, total_timeout=60) as sb:
        assert sb.cells[0]["status"] == "ok", sb.cells
        assert sb.value("ps") is False
        assert all(not names for names in sb.value("seen").values()), sb.value("seen")
