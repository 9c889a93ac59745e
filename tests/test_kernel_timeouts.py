"""A kernel that stops answering is cut by a timeout that names the notebook and the cell, never waited on.

The kernel here stops itself (SIGSTOP) in its second cell: it sends no reply and no output, as a kernel
that stopped answering does. The test command's nbval (``--nbval-cell-timeout`` in pyproject.toml) and the
re-execution command of CONTRIBUTING (``tools/execute_notebooks.py``) must both give up with a message
that names the notebook and the cell. (The grader's own limit is tested with the homework.)
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs POSIX signals")


def _notebook(path):
    cells = ["x = 1", "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)", "print(x)"]
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
                     "source": src} for i, src in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")


def _run(cmd, cwd):
    start = time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120,
                         env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")})
    return out, time.monotonic() - start


def test_nbval_cuts_a_silent_kernel_and_names_notebook_and_cell(tmp_path):
    _notebook(tmp_path / "silent.ipynb")
    out, _ = _run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "--nbval",
                   "--nbval-current-env", "--nbval-cell-timeout=2", "-q", "silent.ipynb"], tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "silent.ipynb::Cell 1" in text and "Timeout of 2 seconds exceeded" in text, text[-2000:]


def test_the_execute_tool_cuts_a_silent_kernel_and_leaves_the_notebook(tmp_path):
    _notebook(tmp_path / "silent.ipynb")
    before = (tmp_path / "silent.ipynb").read_text(encoding="utf-8")
    tool = os.path.join(ROOT, "tools", "execute_notebooks.py")
    out, _ = _run([sys.executable, tool, "--timeout", "2", "silent.ipynb"], tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "silent.ipynb: code cell 1" in text and "`import os, signal`" in text and "no answer within 2 s" in text
    assert (tmp_path / "silent.ipynb").read_text(encoding="utf-8") == before


def test_the_execute_tool_stores_outputs(tmp_path):
    nb = tmp_path / "ok.ipynb"
    _notebook(nb)
    data = json.loads(nb.read_text(encoding="utf-8"))
    data["cells"][1]["source"] = "y = x + 1"
    data["cells"][2]["source"] = "print(y)"
    nb.write_text(json.dumps(data), encoding="utf-8")
    tool = os.path.join(ROOT, "tools", "execute_notebooks.py")
    out, _ = _run([sys.executable, tool, "ok.ipynb"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    stored = json.loads(nb.read_text(encoding="utf-8"))["cells"][2]
    assert stored["execution_count"] == 3 and "".join(stored["outputs"][0]["text"]) == "2\n"


def test_the_test_command_sets_a_cell_timeout():
    # without it nbval's default is 2000 s per cell: a silent kernel would hold a CI run for half an hour
    import tomllib
    from pathlib import Path

    cfg = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    opts = cfg["tool"]["pytest"]["ini_options"]["addopts"].split()
    timeouts = [int(o.split("=")[1]) for o in opts if o.startswith("--nbval-cell-timeout=")]
    assert timeouts and 30 <= timeouts[0] <= 300
