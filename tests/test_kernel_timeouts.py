"""A kernel that stops answering is cut by a timeout that names the notebook and the cell, never waited on.

The kernel here stops itself (SIGSTOP) in its second cell: it sends no reply and no output, as a kernel
that lost a message does. The test command's nbval (``--nbval-cell-timeout`` in pyproject.toml) and the
re-execution command of CONTRIBUTING (``jupyter execute --timeout``) must both give up with a message.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

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


def test_jupyter_execute_with_a_timeout_cuts_a_silent_kernel(tmp_path):
    _notebook(tmp_path / "silent.ipynb")
    out, _ = _run([sys.executable, "-m", "jupyter", "execute", "--timeout=2", "silent.ipynb"], tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "Executing silent.ipynb" in text and "CellTimeoutError" in text and "os.kill(os.getpid()" in text


def test_the_test_command_sets_a_cell_timeout():
    # without it nbval's default is 2000 s per cell: a silent kernel would hold a CI run for half an hour
    import tomllib
    from pathlib import Path

    cfg = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    opts = cfg["tool"]["pytest"]["ini_options"]["addopts"].split()
    timeouts = [int(o.split("=")[1]) for o in opts if o.startswith("--nbval-cell-timeout=")]
    assert timeouts and 30 <= timeouts[0] <= 300
