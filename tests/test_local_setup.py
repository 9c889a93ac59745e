"""The local set-up works as the introduction writes it: `jupyter lab chapters/` starts JupyterLab."""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_intro_command_opens_jupyterlab():
    intro = (ROOT / "intro.md").read_text(encoding="utf-8")
    assert "jupyter lab chapters/" in intro
    jupyter = Path(sys.executable).with_name("jupyter")
    port = _free_port()
    # the intro's command, kept on loopback with no token for the probe; as root (CI) Jupyter needs --allow-root
    extra = ["--allow-root"] if os.geteuid() == 0 else []
    proc = subprocess.Popen(
        [str(jupyter), "lab", "chapters/", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--IdentityProvider.token=", *extra],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, status = time.monotonic() + 60, None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents", timeout=2) as resp:
                    status = json.load(resp)
                break
            except OSError:
                time.sleep(0.5)
        assert status is not None, "JupyterLab did not answer: " + (proc.stderr.read() if proc.poll() else "")
        names = {item["name"] for item in status["content"]}
        assert "01_promise.ipynb" in names  # the server is serving the chapters folder
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab", timeout=5) as resp:
            assert re.search(r"JupyterLab", resp.read().decode())
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_binder_runtime_matches_the_tested_python():
    assert (ROOT / "runtime.txt").read_text().strip() == f"python-{sys.version_info.major}.{sys.version_info.minor}"
