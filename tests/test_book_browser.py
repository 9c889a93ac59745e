"""The rendered book works offline in a real browser.

The fixture builds the book strictly (-W -n --keep-going) into a temporary folder, so this test also
covers the strict build and does not touch _build/. Headless Chromium then loads a chapter from disk
with all network access disabled, and the test checks the DOM after scripts ran: math typeset by the
local MathJax, no raw TeX left, the saved widget state rendered (sliders and their first figure),
solutions collapsed, and no script fetched from the internet.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--virtual-time-budget=15000",
]

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed; .ci/run installs the Debian package 'chromium'", pytrace=False)
    pytestmark = pytest.mark.skip(reason="chromium not installed (apt-get install -y chromium)")


@pytest.fixture(scope="module")
def html_dir():
    out = Path(tempfile.mkdtemp(prefix="dpcourse-book-"))
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(jb), "build", "-W", "-n", "--keep-going", "--path-output", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, "strict book build failed:\n" + proc.stdout[-4000:] + proc.stderr[-4000:]
    yield out / "_build" / "html"
    shutil.rmtree(out, ignore_errors=True)


def dump_dom(page: Path) -> str:
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=120,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def visible_text(dom: str) -> str:
    dom = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S | re.I)
    dom = re.sub(r"<mjx-container\b.*?</mjx-container>", " ", dom, flags=re.S)
    return re.sub(r"<[^>]+>", " ", dom)


def test_chapter_renders_offline(html_dir):
    page = html_dir / "chapters" / "01_promise.html"
    assert page.exists()
    dom = dump_dom(page)
    # math: typeset by MathJax, none left as raw TeX
    assert dom.count("<mjx-container") > 50
    text = visible_text(dom)
    for raw in (r"\(", r"\[", "$$", r"\varepsilon"):
        assert raw not in text, f"raw TeX {raw!r} left in the page"
    # widgets: the saved state of the interactive experiment, with its first figure
    assert dom.count("widget-slider") >= 2
    assert re.search(r'<div class="[^"]*widget-output[^"]*">.*?<img src="data:image/png', dom, flags=re.S)
    # exercises: every solution starts collapsed
    solutions = re.findall(r'<div class="([^"]*\bsolution\b[^"]*)"', dom)
    assert len(solutions) >= 3
    assert all("toggle-hidden" in cls for cls in solutions), solutions


def test_every_chapter_typesets_its_math_and_shows_its_widgets(html_dir):
    pages = sorted((html_dir / "chapters").glob("*.html"))
    assert pages
    for page in pages:
        html = page.read_text(encoding="utf-8")
        dom = dump_dom(page)
        text = visible_text(dom)
        assert "<mjx-container" in dom, f"{page.name}: no typeset math"
        for raw in (r"\(", r"\[", "$$"):
            assert raw not in text, f"{page.name}: raw TeX {raw!r} left in the page"
        if "application/vnd.jupyter.widget-view+json" in html:
            assert "jupyter-widgets" in dom and "widget-" in dom, f"{page.name}: saved widget state not rendered"
        solutions = re.findall(r'<div class="([^"]*\bsolution\b[^"]*)"', dom)
        assert all("toggle-hidden" in cls for cls in solutions), f"{page.name}: a solution is not collapsed"


def test_no_page_loads_scripts_from_the_internet(html_dir):
    pages = sorted(html_dir.rglob("*.html"))
    assert len(pages) >= 3
    for page in pages:
        html = page.read_text(encoding="utf-8")
        remote = re.findall(r'<script[^>]+src="(https?:)?//[^"]+"', html)
        assert not remote, f"{page.name} loads scripts from the network: {remote}"


def test_launch_buttons_for_online_readers(html_dir):
    html = (html_dir / "chapters" / "01_promise.html").read_text(encoding="utf-8")
    assert 'src="../_static/mathjax/tex-chtml.js"' in html  # MathJax from the book itself
    assert "mybinder.org/v2/gh/" in html
    assert "colab.research.google.com/github/" in html
