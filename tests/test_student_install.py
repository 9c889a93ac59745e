"""The student install, ``requirements-student.txt``: a subset of ``requirements.txt`` with the same exact pins,
closed under the dependencies of what it pins, holding what a student's homework copy and the chapters import,
and without the heavy parts of the full environment. Nothing is installed here: the pins are read from the two
files, the dependencies from the metadata of the packages installed in this (the full) environment.

``.ci/student_install`` installs the file in a fresh virtual environment and runs chapters there; the tests at
the end check, without Beam, what chapter 17 relies on: PipelineDP's local engine runs and Beam's absence is
named with the command that adds it.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
STUDENT = ROOT / "requirements-student.txt"
FULL = ROOT / "requirements.txt"

#: What the issue names for a student, besides the homework's imports (checked below).
NAMED = {"numpy", "scipy", "matplotlib", "ipywidgets", "jupyterlab", "jupyterlab-myst", "ipykernel"}
#: The heavy parts of the full environment that the student install leaves out.
LEFT_OUT = {"apache-beam", "pyarrow", "grpcio", "playwright", "jupyter-book", "sphinx", "mypy", "hypothesis",
            "pytest", "nbval"}
#: Modules that chapters import only where the full environment is installed (the chapter runs without them).
FULL_ONLY_MODULES = {"apache_beam"}


def pins(text: str) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """``({canonical name: (name, version)}, other requirement lines)`` of a requirements file's text."""
    found, other = {}, []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)", line)
        if m is None:
            other.append(line)
            continue
        name = canonicalize_name(m[1])
        assert name not in found, f"{name} is pinned twice"
        found[name] = (m[1], m[2])
    return found, other


def pin_problems(student_text: str, full_text: str) -> list[str]:
    """What makes ``student_text`` not an exact-pin subset of ``full_text`` ending with the package itself."""
    student, other = pins(student_text)
    full, _ = pins(full_text)
    problems = [f"{name}=={v} is not in requirements.txt" for name, (_, v) in student.items() if name not in full]
    problems += [f"{name}=={v} differs from requirements.txt's {full[name][1]}" for name, (_, v) in student.items()
                 if name in full and full[name][1] != v]
    if other != ["-e ."]:
        problems.append(f"besides exact pins, the file must hold only its last line '-e .', not {other}")
    lines = [s for s in (raw.split("#", 1)[0].strip() for raw in student_text.splitlines()) if s]
    if not lines or lines[-1] != "-e .":
        problems.append("the file must end with '-e .' (dpcourse from this checkout)")
    return problems


def missing_dependencies(student_text: str) -> list[str]:
    """Dependencies (with their markers and extras evaluated here) of the pinned packages, and of dpcourse, that
    the file does not pin: read from the installed packages' metadata, whose versions must be the pinned ones."""
    student, _ = pins(student_text)
    problems, seen = [], set()
    stack = [(name, frozenset()) for name in student] + [("dpcourse", frozenset())]
    while stack:
        name, extras = stack.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        dist = md.distribution(name)
        if name in student and dist.version != student[name][1]:
            problems.append(f"{name} is installed here at {dist.version}, not at the pinned {student[name][1]}")
        for text in dist.requires or []:
            req = Requirement(text)
            envs = [{"extra": e} for e in extras] or [{"extra": ""}]
            if req.marker is not None and not any(req.marker.evaluate(env) for env in envs):
                continue
            dep = canonicalize_name(req.name)
            if dep not in student:
                problems.append(f"{dep} (needed by {name}) is not pinned")
                continue
            stack.append((dep, frozenset(req.extras)))
    return sorted(set(problems))


def test_student_pins_are_those_of_requirements_txt():
    assert pin_problems(STUDENT.read_text(encoding="utf-8"), FULL.read_text(encoding="utf-8")) == []


def test_the_pin_check_can_fail():
    full = FULL.read_text(encoding="utf-8")
    numpy = re.search(r"^numpy==.*$", full, re.M)[0]
    assert pin_problems(f"{numpy}\n-e .\n", full) == []
    [wrong] = pin_problems("numpy==1.0\n-e .\n", full)
    assert wrong.startswith("numpy==1.0 differs from requirements.txt's")
    assert pin_problems(f"not-a-course-package==1.0\n{numpy}\n-e .\n", full) == \
        ["not-a-course-package==1.0 is not in requirements.txt"]
    assert any("'-e .'" in p for p in pin_problems(f"{numpy}\n", full))
    assert any("'-e .'" in p for p in pin_problems(f"{numpy}\nscipy>=1\n-e .\n", full))


def test_student_file_is_closed_under_dependencies():
    """``pip install -r requirements-student.txt`` brings nothing unpinned: every dependency is pinned in it."""
    assert missing_dependencies(STUDENT.read_text(encoding="utf-8")) == []


def test_the_closure_check_can_fail():
    text = STUDENT.read_text(encoding="utf-8")
    without = "\n".join(line for line in text.splitlines() if not line.startswith("traitlets=="))
    assert "traitlets (needed by ipykernel) is not pinned" in missing_dependencies(without)


def test_student_file_has_what_the_issue_names_and_not_the_heavy_parts():
    student, _ = pins(STUDENT.read_text(encoding="utf-8"))
    assert NAMED - set(student) == set()
    assert LEFT_OUT & set(student) == set()


@functools.cache
def _providers() -> dict[str, list[str]]:
    return md.packages_distributions()


def _distributions_of(modules: set[str]) -> set[str]:
    """The installed distributions that provide the top-level ``modules`` (standard library ones omitted)."""
    provided = _providers()
    dists = set()
    for module in modules:
        if module in sys.stdlib_module_names or module.startswith("_"):
            continue
        assert module in provided, f"no installed distribution provides the module {module}"
        dists |= {canonicalize_name(d) for d in provided[module]}
    return dists


def homework_setup_cells() -> list[str]:
    """The setup cell (the imports) of every assignment's student copy, as ``grader.course.build_copy`` writes it."""
    from dpcourse.homework import ASSIGNMENTS
    from grader.course import build_copy

    cells = []
    for assignment in ASSIGNMENTS:
        nb, _ = build_copy(assignment)
        cells.append(next(c.source for c in nb.cells if c.cell_type == "code"))
    return cells


def modules_loaded_by(code: str) -> set[str]:
    """The top-level modules (those loaded from a file) a fresh interpreter holds after running ``code``."""
    probe = code + ("\nimport sys, json\nprint(json.dumps(sorted({name.split('.')[0] for name, module in "
                    "list(sys.modules.items()) if getattr(module, '__file__', None)})))")   # not cython_runtime
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_student_file_has_what_a_homework_copy_imports():
    """A student's copy runs its setup cell (numpy, dpcourse, the chapter's checkers) and JupyterLab runs it with
    ipykernel; dpcourse.homework (its notebooks and kernel client) is the package's own student side."""
    cells = homework_setup_cells()
    assert len(cells) >= 24 and all("import dpcourse" in c for c in cells)
    code = "\n".join(cells) + "\nimport dpcourse.homework, dpcourse.homework.notebooks, dpcourse.homework.kernel\n" \
                              "import ipykernel.kernelapp\n"
    needed = _distributions_of(modules_loaded_by(code)) - {"dpcourse"}
    student, _ = pins(STUDENT.read_text(encoding="utf-8"))
    assert needed - set(student) == set()
    assert {"numpy", "nbformat", "jupyter-client"} <= needed   # the probe sees what it must


def chapter_imports() -> dict[str, set[str]]:
    """The top-level modules each chapter's code cells import (``import m`` and ``from m import ...``)."""
    found = {}
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        modules = set()
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            code = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]  # magics
            tree = ast.parse("\n".join(code))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
        found[path.stem] = modules
    return found


def test_student_file_has_what_the_chapters_import():
    """Every module a chapter imports is installed by the student file, except Beam (chapter 17 runs without it)."""
    student, _ = pins(STUDENT.read_text(encoding="utf-8"))
    imports = chapter_imports()
    assert len(imports) >= 24
    missing = {}
    for chapter, modules in imports.items():
        lacking = _distributions_of(modules - FULL_ONLY_MODULES - {"dpcourse"}) - set(student)
        if lacking:
            missing[chapter] = sorted(lacking)
    assert missing == {}
    assert {"dp-accounting", "mpmath", "python-dp"} <= _distributions_of(set().union(*imports.values()))


BEAM_BLOCKED = "import sys\nsys.modules['apache_beam'] = None   # as if Beam were not installed\n"


def run_without_beam(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BEAM_BLOCKED + code], capture_output=True, text=True, cwd=ROOT)


def test_without_beam_the_engines_are_the_local_one_and_a_message():
    """Chapter 17 in the student install: ``pipeline_dp_engines`` lists the local engine only and prints how to
    add Beam; the local engine runs; asking for Beam raises an error that says the same."""
    pytest.importorskip("pipeline_dp")
    code = ("from dpcourse.pipeline_dp_adaptor import pipeline_dp_engines, pipeline_dp_group_by\n"
            "print(pipeline_dp_engines())\n"
            "res = pipeline_dp_group_by(['u', 'v'], ['a', 'a'], [1.0, 2.0], 3.0, 0.0, lower=0, upper=5,\n"
            "                           max_partitions=1, max_per_partition=1, public_partitions=['a', 'b'])\n"
            "print(res.keys.tolist())\n"
            "try:\n"
            "    pipeline_dp_group_by(['u'], ['a'], [1.0], 3.0, 0.0, lower=0, upper=5, max_partitions=1,\n"
            "                         max_per_partition=1, public_partitions=['a'], backend='beam')\n"
            "except ModuleNotFoundError as exc:\n"
            "    print('raised:', exc.name, exc)\n")
    run = run_without_beam(code)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "The module apache_beam is not installed" in lines[0]
    assert "python -m pip install -r requirements.txt" in lines[0]
    assert lines[1] == "{'PipelineDP local': 'local'}"
    assert lines[2] == "['a', 'b']"
    assert lines[3].startswith("raised: apache_beam The module apache_beam is not installed")
    assert "python -m pip install -r requirements.txt" in lines[3]


def test_with_beam_both_engines_and_no_message():
    pytest.importorskip("apache_beam")
    run = subprocess.run([sys.executable, "-c", "from dpcourse.pipeline_dp_adaptor import pipeline_dp_engines\n"
                          "print(pipeline_dp_engines())"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert run.stdout.splitlines() == ["{'PipelineDP local': 'local', 'PipelineDP on Beam': 'beam'}"]
    assert "apitools" not in run.stderr   # Beam's import-time warning stays silenced


def test_a_broken_engine_install_is_not_taken_for_a_missing_one():
    """Beam installed but one of its own imports missing raises (the full environment must not go quiet)."""
    pytest.importorskip("apache_beam")
    code = ("import sys\nsys.modules['grpc'] = None\n"
            "from dpcourse.pipeline_dp_adaptor import pipeline_dp_engines\n"
            "try:\n    pipeline_dp_engines()\nexcept ModuleNotFoundError as exc:\n    print('raised', exc.name)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert run.stdout.strip().splitlines()[-1] == "raised grpc"


def test_ci_script_installs_the_student_file_in_a_fresh_venv_and_runs_chapters():
    script = (ROOT / ".ci" / "student_install").read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env bash")
    assert "-m venv" in script and "-r requirements-student.txt" in script
    assert "--nbval-lax" in script and "17_dp_at_scale.ipynb" in script and 'import dpcourse' in script
