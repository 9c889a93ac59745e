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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))
from old_addresses import OLD_TO_NEW  # noqa: E402

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
    if os.environ.get("DPCOURSE_BOOK_HTML") and not os.environ.get("CI"):  # while editing these tests only
        yield Path(os.environ["DPCOURSE_BOOK_HTML"])
        return
    out = Path(tempfile.mkdtemp(prefix="dpcourse-book-"))
    jb = Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run(
        [str(jb), "build", "-W", "-n", "--keep-going", "--path-output", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, "strict book build failed:\n" + proc.stdout[-4000:] + proc.stderr[-4000:]
    yield out / "_build" / "html"
    shutil.rmtree(out, ignore_errors=True)


def chapter_pages(html_dir: Path) -> list[Path]:
    """The built chapter pages (not a print page a failed PDF run may have left behind, not the small pages
    that forward an old address to a renumbered chapter)."""
    return sorted(p for p in (html_dir / "chapters").glob("*.html")
                  if not p.name.startswith("_") and p.stem not in OLD_TO_NEW)


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
    # the interactive experiment: a live figure (sliders and the figure of their setting, drawn at build time)
    assert dom.count('class="dpcourse-explorer-control"') >= 2
    assert re.search(r'<img class="dpcourse-explorer-figure" src="\.\./_static/explorers/[0-9a-f]+/\d+\.png"', dom)
    # exercises: every solution starts collapsed
    solutions = re.findall(r'<div class="([^"]*\bsolution\b[^"]*)"', dom)
    assert len(solutions) >= 3
    assert all("toggle-hidden" in cls for cls in solutions), solutions


def test_no_page_loads_scripts_from_the_internet(html_dir):
    pages = sorted(html_dir.rglob("*.html"))
    assert len(pages) >= 3
    for page in pages:
        html = page.read_text(encoding="utf-8")
        remote = re.findall(r'<script[^>]+src="(https?:)?//[^"]+"', html)
        assert not remote, f"{page.name} loads scripts from the network: {remote}"


def test_launch_buttons_for_online_readers(html_dir):
    html = (html_dir / "chapters" / "01_promise.html").read_text(encoding="utf-8")
    # MathJax from the book itself, as components (not the 1.16 MB combined tex-chtml.js)
    assert re.search(r'src="\.\./_static/mathjax/startup\.js[^"]*"', html) and "tex-chtml.js" not in html
    assert '"load": ["input/tex", "output/chtml", "a11y/assistive-mml"]' in html
    assert "mybinder.org/v2/gh/" in html
    assert "colab.research.google.com/github/" in html
    # one repository setting: the launch buttons and the introduction's Colab line read repository.url
    import yaml

    repo = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]
    owner_name = repo["url"].removeprefix("https://github.com/").rstrip("/")
    assert f"mybinder.org/v2/gh/{owner_name}/" in html and f"colab.research.google.com/github/{owner_name}/" in html
    intro = (html_dir / "intro.html").read_text(encoding="utf-8")
    assert f'git+{repo["url"].rstrip("/")}@{repo.get("branch", "main")}' in intro
    assert "{{ repository_url }}" not in intro and "first state" not in intro


# ---------------------------------------------------------------- a real driver: Playwright on Debian's Chromium

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - playwright is pinned in requirements.txt
    sync_playwright = None

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# A formula is cut off when it is wider than the nearest ancestor that clips (overflow other than
# visible) and neither it nor that ancestor can scroll. Formulas inside collapsed solutions have no box.
CLIPPED_MATH_JS = """(removeCourseCss) => {
  if (removeCourseCss) document.querySelectorAll('link[href*="course.css"]').forEach(l => l.remove());
  const bad = [];
  for (const el of document.querySelectorAll('mjx-container')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const own = getComputedStyle(el).overflowX;
    if (own === 'auto' || own === 'scroll') continue;
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if (ox === 'visible') continue;
      const ar = a.getBoundingClientRect();
      if ((r.right > ar.right + 1 || r.left < ar.left - 1) && !(ox === 'auto' || ox === 'scroll')) {
        bad.push(el.textContent.slice(0, 60));
      }
      break;
    }
  }
  return bad;
}"""


@pytest.fixture(scope="module")
def browser():
    if sync_playwright is None:
        pytest.fail("playwright is not installed (it is pinned in requirements.txt)", pytrace=False)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        yield chromium
        chromium.close()


LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


def watched_page(browser, width: int, server: str | None = None):
    """A new page at a viewport width that records page errors and aborts (and records) every request that is
    neither a local file nor for ``server`` (the book served from this machine, see :func:`book_server`)."""
    page = browser.new_page(viewport={"width": width, "height": 844})
    page.errors, page.remote = [], []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: page.errors.append(msg.text) if msg.type == "error" else None)
    local = LOCAL_SCHEMES + ((server,) if server else ())

    def guard(route):
        url = route.request.url
        if url.startswith(local):
            route.continue_()
        else:
            page.remote.append(url)
            route.abort()

    page.route("**/*", guard)
    return page


def load(page, url: str):
    """Go to ``url`` and wait until the page has loaded and MathJax has typeset it."""
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_function("() => !window.MathJax || !window.MathJax.startup || "
                           "window.MathJax.startup.promise !== undefined", timeout=15000)
    page.evaluate("() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : null")
    return page


def open_page(browser, path: Path, width: int):
    """Open a page from disk at a viewport width; record page errors and every request that is not a local file."""
    return load(watched_page(browser, width), path.as_uri())


@pytest.fixture(scope="module")
def book_server(html_dir):
    """The built book served over HTTP from 127.0.0.1, as a web host serves it (with a cache lifetime, so the
    browser keeps MathJax's scripts and fonts, and their compiled code, from one page to the next; measured
    on eight chapters, one tab served this way loaded them in 12.3 s, new tabs from disk in 20.9 s).
    Yields the base URL."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Handler(SimpleHTTPRequestHandler):
        def end_headers(self):
            self.send_header("Cache-Control", "max-age=3600")
            super().end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(html_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


# The page of the tests of the theme's layout (sidebars, search): a light one (about a third of the load time
# of a chapter, which spends it typesetting its formulas); the layout is the same on every page.
LAYOUT_PAGE = "homework.html"


def test_sidebar_buttons_work_on_phone_and_desktop(browser, html_dir):
    page_path = html_dir / LAYOUT_PAGE
    phone = open_page(browser, page_path, 390)
    phone.locator("button.primary-toggle:visible").first.click()
    assert phone.evaluate("() => document.getElementById('pst-primary-sidebar-modal').open"), "navigation did not open"
    assert phone.locator("#pst-primary-sidebar-modal a.reference").first.is_visible()
    phone.keyboard.press("Escape")
    phone.locator("button.secondary-toggle:visible").first.click()
    assert phone.evaluate("() => document.getElementById('pst-secondary-sidebar-modal').open"), "contents did not open"
    phone.close()
    desktop = open_page(browser, page_path, 1280)
    sidebar = "() => document.getElementById('pst-primary-sidebar').classList.contains('pst-sidebar-hidden')"
    assert not desktop.evaluate(sidebar)
    desktop.locator("button.primary-toggle:visible").first.click()
    assert desktop.evaluate(sidebar), "the menu button did not hide the sidebar on a wide screen"
    desktop.close()


def test_search_works_offline_with_the_index_on_the_search_page_only(browser, html_dir):
    for page in chapter_pages(html_dir):
        assert "searchindex.js" not in page.read_text(encoding="utf-8"), f"{page.name} loads the search index"
    assert "searchindex.js" in (html_dir / "search.html").read_text(encoding="utf-8")
    page = open_page(browser, html_dir / LAYOUT_PAGE, 1280)
    page.keyboard.press("Control+k")
    box = page.locator("input[name=q]:visible").first
    box.fill("Laplace")
    box.press("Enter")
    page.wait_for_url("**/search.html?q=Laplace*")
    page.wait_for_function("() => document.querySelectorAll('#search-results li').length > 5", timeout=20000)
    page.close()


def check_live_figures(page, page_path):
    """Every slider of every live figure on the page changes the figure, its label and its alt text."""
    maxima = page.evaluate("() => [...document.querySelectorAll('.dpcourse-explorer-live')].map("
                           "b => [...b.querySelectorAll('input[type=range]')].map(i => Number(i.max)))")
    assert maxima, f"{page_path.name}: no live figure"
    for b, tops in enumerate(maxima):
        for i, top in enumerate(tops):
            assert top >= 1, f"{page_path.name}: a slider with one setting"
            start = page.evaluate(f"() => Number(document.querySelectorAll('.dpcourse-explorer-live')[{b}]"
                                  f".querySelectorAll('input[type=range]')[{i}].value)")
            res = page.evaluate(MOVE_SLIDER_JS, [b, i, 0 if start else top])
            assert res["after"]["src"] != res["before"]["src"], f"{page_path.name}: the figure did not change"
            assert res["after"]["label"] != res["before"]["label"] and res["width"] > 0
            assert res["after"]["alt"] != res["before"]["alt"]
    # no ipywidgets view is left on the page (it would show a slider that cannot move the figure)
    assert "application/vnd.jupyter.widget-view+json" not in page_path.read_text(encoding="utf-8")


# TeX that MathJax did not typeset, in the text a reader sees (code blocks and typeset math left out).
RAW_TEX = (r"\(", r"\)", r"\[", r"\]", "$$", r"\frac", r"\varepsilon", r"\begin{", r"\end{", r"\mathbb",
           r"\sum_", r"\left", r"\text{")
PROSE_TEXT_JS = """() => {
  const copy = document.querySelector('main') ? document.querySelector('main').cloneNode(true) : document.body.cloneNode(true);
  copy.querySelectorAll('pre, code, mjx-container, script, style, .highlight, textarea').forEach(e => e.remove());
  return copy.textContent;
}"""

# Display formulas wider than their box: at 1280 px there must be none; on a phone each one that scrolls
# must show that it does (the edge shadows of course.css: a gradient background, and overflow that scrolls).
WIDE_MATH_JS = """() => [...document.querySelectorAll('mjx-container[display="true"]')]
  .filter(b => b.offsetWidth > 0 && b.scrollWidth > b.clientWidth + 1)
  .map(b => { const cs = getComputedStyle(b);
              return {text: b.textContent.slice(0, 50), width: b.scrollWidth, box: b.clientWidth,
                      shows: cs.backgroundImage.includes('gradient') && ['auto', 'scroll'].includes(cs.overflowX)}; })"""

# Smallest text of each live figure as shown: its smallest font in the image (px, recorded when the
# states were drawn) times the ratio of the shown width to the image's own width.
FIGURE_TEXT_JS = """() => [...document.querySelectorAll('img.dpcourse-explorer-figure')].filter(i => i.offsetWidth > 0)
  .map(i => ({src: i.getAttribute('src'), px: Number(i.dataset.minTextPx) * i.getBoundingClientRect().width / i.naturalWidth,
              legends: Number(i.dataset.statesWithLegendOverData)}))"""


# The notebooks' static figures: the build copies into each <img> the smallest text the PNG was drawn with
# (px in the image) and how many of its legends cover data (booktools.static_figures.static_figure_hook);
# lazy images are loaded first, so that every figure has its natural size. Figures in collapsed solutions
# have no box and are left out.
STATIC_FIGURE_JS = """async () => {
  const imgs = [...document.querySelectorAll('img')].filter(i => /_images\\/[^\\/]+\\.png$/.test(i.getAttribute('src') || ''));
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  return imgs.filter(i => i.offsetWidth > 0).map(i => ({
    src: i.getAttribute('src').split('/').pop(), natural: i.naturalWidth, shown: i.getBoundingClientRect().width,
    text: i.dataset.minTextPx === undefined ? null : Number(i.dataset.minTextPx),
    legends: i.dataset.legendsOverData === undefined ? null : Number(i.dataset.legendsOverData)}));
}"""


def static_figure_problems(name: str, width: int, figures: list[dict], floor: float, smallest: dict) -> tuple[list, list]:
    """Problems of a page's static figures at one width, and the figures not drawn in the book's style."""
    problems, unstyled = [], []
    for f in figures:
        if f["text"] is None:
            unstyled.append(f["src"])
            continue
        px = f["text"] * f["shown"] / f["natural"]
        smallest[(name, width)] = min(px, smallest.get((name, width), px))
        if px < floor:
            problems.append(f"{name} at {width} px: static figure {f['src']} text {px:.1f} px < {floor}")
        if f["legends"]:
            problems.append(f"{name}: static figure {f['src']} has {f['legends']} legend(s) over data")
    return problems, unstyled


def raw_tex_in(text: str) -> list[str]:
    return [raw for raw in RAW_TEX if raw in text]


def test_the_static_figure_check_has_power():
    smallest = {}
    figures = [{"src": "a.png", "natural": 800, "shown": 390, "text": 14.0, "legends": 0},   # 6.8 px shown
               {"src": "b.png", "natural": 700, "shown": 700, "text": 14.0, "legends": 1},   # legend over data
               {"src": "c.png", "natural": 700, "shown": 700, "text": None, "legends": None}]  # not re-executed
    problems, unstyled = static_figure_problems("x.html", 390, figures, 9, smallest)
    assert len(problems) == 2 and "a.png text 6.8 px" in problems[0] and "b.png has 1 legend" in problems[1]
    assert unstyled == ["c.png"] and smallest == {("x.html", 390): 14.0 * 390 / 800}


def test_the_raw_tex_check_has_power():
    assert raw_tex_in(r"the bound $$\frac{1}{\varepsilon}$$ holds") == ["$$", r"\frac", r"\varepsilon"]
    assert raw_tex_in("plain prose, (a) and [b], with ε = 1") == []


# every page of the book that is not a chapter (raw TeX, clipping and the phone layout are checked on all of them)
BACK_PAGES = ("intro", "notation", "glossary", "bibliography", "teaching", "homework")


def test_the_back_pages_are_every_page_of_the_toc():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s*(?:root|- file):\s*(\S+)", toc, flags=re.M))
    assert listed == {f"chapters/{p.stem}" for p in (ROOT / "chapters").glob("*.ipynb")} | set(BACK_PAGES)




def test_every_page_math_figures_phone_layout_no_errors_no_requests(browser, html_dir, book_server):
    """Each page is loaded once, at 1280 px, then narrowed to 390 px (a phone). The pages are served from this
    machine (:func:`book_server`) and visited one after the other in one tab, as a reader moves through the
    book; a request for anything else is aborted and fails the test. On each page:

    * math typeset by the local MathJax, no raw TeX in the prose, every solution collapsed (1280 px);
    * every slider of every live figure changes the figure (chapters; 1280 px);
    * no formula cut off, at 1280 px and at 390 px; at 1280 px no display formula wider than its column,
      at 390 px each that scrolls shows it; no sideways scroll of the page on the phone;
    * the smallest text of every live figure and of every static (notebook) figure at least 11 px at
      1280 px and 9 px at 390 px, and no legend of a static or live figure over its data;
    * no page error and no request leaving the machine.
    """
    pages = chapter_pages(html_dir) + [html_dir / f"{name}.html" for name in BACK_PAGES]
    problems, wide_phone, figure_px, live_legends = [], 0, {1280: [], 390: []}, 0
    static_px, unstyled = {}, {}
    page = watched_page(browser, 1280, book_server)
    for page_path in pages:
        # back to 1280 px on a blank page, so that the previous page is not laid out again at that width
        page.goto("about:blank")
        page.set_viewport_size({"width": 1280, "height": 844})
        page.errors.clear()
        page.remote.clear()
        load(page, book_server + page_path.relative_to(html_dir).as_posix())
        assert page.evaluate("() => window.innerWidth") == 1280
        state = page.evaluate("""() => ({math: document.querySelectorAll('mjx-container').length,
            open: [...document.querySelectorAll('div.solution')].filter(
                d => !d.className.includes('toggle-hidden')).length})""")
        assert state["math"] > 0 or page_path.stem in ("intro", "glossary", "bibliography", "teaching", "homework"), \
            f"{page_path.name}: no typeset math"
        raw = raw_tex_in(page.evaluate(PROSE_TEXT_JS))
        if raw:
            problems.append(f"{page_path.name}: raw TeX {raw} in the text")
        assert state["open"] == 0, f"{page_path.name}: a solution is not collapsed"
        clipped = page.evaluate(CLIPPED_MATH_JS, False)
        assert not clipped, f"{page_path.name} at 1280 px: formulas cut off: {clipped[:3]}"
        wide = page.evaluate(WIDE_MATH_JS)
        if wide:
            problems.append(f"{page_path.name} at 1280 px: {len(wide)} formulas wider than the column: "
                            f"{[(w['text'][:30], w['width'], w['box']) for w in wide[:3]]}")
        live = page.evaluate(FIGURE_TEXT_JS)
        figure_px[1280] += [(page_path.name, f["px"]) for f in live]
        assert all(f["legends"] >= 0 for f in live), f"{page_path.name}: a live figure without its legend count"
        live_legends += sum(f["legends"] for f in live)
        found, missing = static_figure_problems(page_path.name, 1280, page.evaluate(STATIC_FIGURE_JS), 11, static_px)
        problems += found
        if missing:
            unstyled[page_path.name] = missing
        if page_path.parent.name == "chapters":
            check_live_figures(page, page_path)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function("() => window.innerWidth === 390")
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        clipped = page.evaluate(CLIPPED_MATH_JS, False)
        assert not clipped, f"{page_path.name} at 390 px: formulas cut off: {clipped[:3]}"
        wide = page.evaluate(WIDE_MATH_JS)
        wide_phone += len(wide)
        hidden = [w["text"][:30] for w in wide if not w["shows"]]
        if hidden:
            problems.append(f"{page_path.name} at 390 px: formulas scroll without showing it: {hidden[:3]}")
        figure_px[390] += [(page_path.name, f["px"]) for f in page.evaluate(FIGURE_TEXT_JS)]
        problems += static_figure_problems(page_path.name, 390, page.evaluate(STATIC_FIGURE_JS), 9, static_px)[0]
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"), \
            f"{page_path.name}: the page scrolls sideways on a phone"
        assert not page.errors, f"{page_path.name}: {page.errors[:3]}"
        assert not page.remote, f"{page_path.name}: requests left the machine: {page.remote[:3]}"
    page.close()
    for width, floor in ((1280, 11), (390, 9)):
        small = [(name, round(px, 1)) for name, px in figure_px[width] if px < floor]
        if small:
            problems.append(f"at {width} px, figure text below {floor} px: {small[:4]}")
    assert len(figure_px[1280]) >= len(chapter_pages(html_dir)) - 1
    # Live-figure states whose legend covers data, a text or the figure's edge (measured at build time,
    # booktools.states.draw_state, which puts every live legend below its axes): none may.
    print(f"live-figure states with a legend over data: {live_legends}")
    if live_legends:
        problems.append(f"{live_legends} live-figure states with a legend over data, a text or the figure's edge")
    print(f"display formulas that scroll at 390 px: {wide_phone}; smallest live-figure text: "
          f"{min(px for _, px in figure_px[1280]):.1f} px at 1280, {min(px for _, px in figure_px[390]):.1f} px at 390")
    print("smallest static-figure text (px at 1280 / 390): " + ", ".join(
        f"{name.split('_')[0]} {static_px[(name, 1280)]:.1f}/{static_px.get((name, 390), 0):.1f}"
        for name, width in sorted(static_px) if width == 1280))
    if unstyled:
        problems.append("static figures drawn before the book's figure style (re-execute these notebooks: "
                        + "; ".join(f"{name}: {len(srcs)} figures" for name, srcs in sorted(unstyled.items())) + ")")
    assert static_px, "no static figure was measured"
    assert not problems, "\n".join(problems)


def test_the_served_pages_guard_records_requests_elsewhere_and_errors(browser, book_server):
    """The every-page check's guard: a request to another host, or to another port of this one, is aborted
    and recorded; the book's own requests are not; an uncaught error is recorded."""
    page = watched_page(browser, 1280, book_server)
    load(page, book_server + LAYOUT_PAGE)
    assert page.remote == [] and page.errors == [] and page.evaluate("() => document.styleSheets.length") > 3
    other_port = book_server.rstrip("/").rsplit(":", 1)[0] + ":9/x.png"
    page.evaluate(f"""() => {{ fetch('https://example.org/a.js').catch(() => null);
                              const i = new Image(); i.src = '{other_port}';
                              setTimeout(() => {{ throw new Error('boom'); }}, 0); }}""")
    for _ in range(100):   # the requests and the error arrive asynchronously: wait up to 10 s for them
        if len(page.remote) >= 2 and page.errors:
            break
        page.wait_for_timeout(100)
    assert sorted(page.remote) == sorted(["https://example.org/a.js", other_port])
    assert any("boom" in e for e in page.errors)
    page.close()


def test_narrowing_a_page_gives_the_phone_layout(browser, html_dir):
    """The check above narrows a loaded page instead of loading it again at 390 px: the layout it then
    sees is the phone layout (the primary sidebar becomes a drawer, as on a page opened at 390 px)."""
    page = open_page(browser, html_dir / LAYOUT_PAGE, 1280)
    layout = ("() => { const e = document.getElementById('pst-primary-sidebar'); const r = e.getBoundingClientRect();"
              " return [getComputedStyle(e).visibility, r.left >= 0, Math.round(r.width)]; }")
    wide = page.evaluate(layout)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function("() => window.innerWidth === 390")
    # the sidebar's visibility changes in a CSS transition: measured once the transitions have ended
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    narrowed = page.evaluate(layout)
    page.close()
    fresh = open_page(browser, html_dir / LAYOUT_PAGE, 390)
    assert wide == ["visible", True, wide[2]] and narrowed == fresh.evaluate(layout) and narrowed[0] == "hidden"
    fresh.close()


def test_the_clipping_check_has_power(browser, html_dir):
    # without the course's stylesheet, the long formulas of chapter 1's proofs are cut off at 390 px
    page = open_page(browser, html_dir / "chapters" / "01_promise.html", 390)
    assert len(page.evaluate(CLIPPED_MATH_JS, True)) >= 3
    page.close()


def test_widget_script_only_where_widgets_are(html_dir):
    for page_path in sorted(html_dir.rglob("*.html")):
        html = page_path.read_text(encoding="utf-8")
        tags = re.findall(r'<script[^>]*src="[^"]*widgets/embed\.js[^"]*"[^>]*>', html)
        if "application/vnd.jupyter.widget-state+json" in html:
            assert len(tags) == 1 and "defer" in tags[0], f"{page_path.name}: {tags}"
        else:
            assert not tags, f"{page_path.name} loads the widget manager without widgets"
        assert "THEBE_JS_URL" not in html
        if "<head>" in html and "_static/" in html:  # a page of the book (not a forwarding stub)
            links = re.findall(r'<link[^>]*href="[^"]*course\.css[^"]*"', html)
            assert len(links) == 1, f"{page_path.name} links course.css {len(links)} times"


def test_pdf_is_a_book_with_outline_links_inside_and_the_book_title(browser, html_dir, tmp_path):
    """A short PDF (introduction and two chapters) printed by tools/build_pdf.py, read back with pypdf."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build_pdf

    out = tmp_path / "short.pdf"
    # chunk_bytes=1: each document is printed as its own part, so the links between parts are joined too
    checks = build_pdf.print_pdf(html_dir, out, docs=["intro", "chapters/01_promise"], browser=browser, chunk_bytes=1)
    assert checks["title"] == build_pdf.book_config()["title"]
    assert checks["parts"] == 2 and checks["links_across_parts"] >= 10, checks["links_across_parts"]
    # the title page opens with the book's title (not a chapter's header), and every chapter's title is printed
    assert build_pdf._letters(checks["first_page"]).startswith(build_pdf._letters(checks["title"])), checks["first_page"]
    assert checks["titles_not_shown"] == [], checks["titles_not_shown"]
    assert checks["outline_depth"] >= 2 and checks["outline_entries"] >= 10
    assert "Contents" in checks["outline_titles"]
    assert any(t.startswith("1.") or t.startswith("1 ") for t in checks["outline_titles"]), checks["outline_titles"][:8]
    links = checks["links"]
    assert links["file"] == 0 and links["broken"] == 0, links
    assert links["internal"] >= 30 and links["external"] >= 1, links
    assert checks["formulas"]["stillWide"] == [] and checks["formulas"]["widePre"] == 0


def test_pdf_link_and_documented_command(html_dir):
    # The PDF itself is made and checked (every TOC document, math typeset, images loaded, solutions
    # open, no outside request; tools/build_pdf.py raises otherwise) by the README's build command,
    # which .ci/run runs after the strict build; here only the link and the command are checked.
    assert 'href="dpcourse.pdf"' in (html_dir / "intro.html").read_text(encoding="utf-8")
    assert "python tools/build_pdf.py" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python tools/build_pdf.py" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_bibliography_author_year_with_back_links_and_a_real_index(html_dir):
    bib = (html_dir / "bibliography.html").read_text(encoding="utf-8")
    labels = re.findall(r'<span class="label"><span class="fn-bracket">\[</span>([^<]+)<', bib)
    assert len(labels) >= 20
    # author-year labels, as the citations in the text read ("Dwork & Roth 2014"), not alpha ones ("DR14")
    assert all(re.search(r"\b(1[89]|20)\d\d[a-z]?$", label) for label in labels), labels[:5]
    assert any("&amp;" in label or "et al." in label for label in labels)
    entries = re.findall(r'<div class="citation" id="[^"]+">(.*?)</div>', bib, flags=re.S)
    assert entries and all('class="cited-in"' in entry for entry in entries), "an entry without back-links"
    # every back-link lands on a citation in a chapter
    for uri in set(re.findall(r'<p class="cited-in">.*?href="([^"]+)"', bib, flags=re.S)):
        page, anchor = uri.split("#")
        assert f'id="{anchor}"' in (html_dir / page).read_text(encoding="utf-8"), uri
    index = (html_dir / "genindex.html").read_text(encoding="utf-8")
    assert len(re.findall(r"<li><a href=\"chapters/", index)) >= 100
    intro = (html_dir / "intro.html").read_text(encoding="utf-8")
    assert 'href="genindex.html"' in intro and 'href="prf-prf.html"' in intro


def test_figures_have_captions_and_alt_text(html_dir):
    for page_path in chapter_pages(html_dir):
        html = page_path.read_text(encoding="utf-8")
        alts = re.findall(r'<img[^>]*\balt="([^"]*)"', html)
        imgs = re.findall(r"<img\b", html)
        assert len(alts) == len(imgs), f"{page_path.name}: an image without alt text"
        for alt in alts:
            assert alt.strip() and not re.search(r"[0-9a-f]{32}|\.png", alt), f"{page_path.name}: alt {alt!r}"
        captions = re.findall(r'<figcaption>\s*<p><span class="caption-number">Fig\. (\d+)\.(\d+) </span>', html)
        outputs = len(re.findall(r'<img[^>]*alt="Figure: ', html))
        assert len(captions) == outputs >= 1, f"{page_path.name}: {len(captions)} captions for {outputs} figures"
        assert len({c[0] for c in captions}) == 1, f"{page_path.name}: figures numbered across chapters {captions}"


MOVE_SLIDER_JS = """async ([boxIndex, inputIndex, value]) => {
  const box = document.querySelectorAll('.dpcourse-explorer-live')[boxIndex];
  const input = box.querySelectorAll('input[type=range]')[inputIndex];
  const img = box.querySelector('img.dpcourse-explorer-figure');
  const before = {src: img.src, alt: img.alt, label: input.nextElementSibling.textContent};
  input.value = String(value);
  input.dispatchEvent(new Event('input', {bubbles: true}));
  await img.decode();
  return {before, after: {src: img.src, alt: img.alt, label: input.nextElementSibling.textContent},
          width: img.naturalWidth};
}"""




def test_each_chapter_file_number_is_the_number_the_book_shows(html_dir):
    """A teacher saying "read chapter 14" means one file: 14_*.ipynb is the chapter the book shows as 14."""
    pages = chapter_pages(html_dir)
    notebooks = sorted(p.stem for p in (ROOT / "chapters").glob("*.ipynb"))
    assert [p.stem for p in pages] == notebooks
    for page in pages:
        shown = re.search(r'<h1>\s*<span class="section-number">(\d+)\.\s*</span>', page.read_text(encoding="utf-8"))
        assert shown, f"{page.name}: no chapter number in its heading"
        assert re.fullmatch(r"\d\d_[a-z0-9_]+", page.stem), f"{page.stem}: a chapter file is NN_name"
        assert int(shown.group(1)) == int(page.stem[:2]), f"{page.name} is shown as chapter {shown.group(1)}"


def test_old_chapter_addresses_forward_to_the_renumbered_pages(html_dir):
    for old, new in OLD_TO_NEW.items():
        page = html_dir / "chapters" / f"{old}.html"
        assert page.exists(), f"no forwarding page at the old address {page.name}"
        text = page.read_text(encoding="utf-8")
        assert f'url={new}.html"' in text and f'href="{new}.html"' in text, text
        assert (html_dir / "chapters" / f"{new}.html").exists()


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def test_every_page_passes_axe_wcag21_aa(browser, html_dir, book_server):
    """axe-core 4.14.1 (package.json; ``npm ci`` installs it), run in the page after its scripts and MathJax,
    with the rules of WCAG 2.0 and 2.1, levels A and AA (the experimental label-content-name-mismatch, a 2.1 A
    rule, switched on): no violation on any page of the book."""
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `npm ci` in the repository (package.json pins 4.14.1)",
                    pytrace=False)
    source = AXE.read_text(encoding="utf-8")
    pages = chapter_pages(html_dir) + [html_dir / f"{name}.html" for name in BACK_PAGES]
    page = watched_page(browser, 1280, book_server)
    problems, checked = [], 0
    for page_path in pages:
        load(page, book_server + page_path.relative_to(html_dir).as_posix())
        page.add_script_tag(content=source)
        result = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}, rules: {'label-content-name-mismatch': {enabled: true}}})"
                               ".then(r => ({version: axe.version, v: r.violations.map(v => ({id: v.id, "
                               "n: v.nodes.length, where: v.nodes.slice(0, 2).map(n => n.target.join(' '))}))}))",
                               WCAG_TAGS)
        assert result["version"] == "4.14.1"
        checked += 1
        for v in result["v"]:
            problems.append(f"{page_path.name}: {v['id']} on {v['n']} element(s), e.g. {v['where']}")
    page.close()
    assert checked == len(pages)
    assert not problems, "\n".join(problems)


def test_the_axe_check_has_power(browser, tmp_path):
    """The same call finds each of the three rules the book broke before, on a page that breaks it: a scrolling
    formula no key reaches, a link at 4.03:1 on a theorem box's colour, a button whose name does not contain its
    visible text."""
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run `npm ci`", pytrace=False)
    cases = {
        "scrollable-region-focusable":
            '<pre style="overflow-x:auto;width:100px">' + "a wide formula that scrolls sideways " * 8 + "</pre>",
        "color-contrast": '<p style="background:#f9e6f9">a <a href="#x" style="color:#176de8">link in a lemma</a></p>',
        "label-content-name-mismatch": '<button aria-label="Find">Search the book</button>',
    }
    source = AXE.read_text(encoding="utf-8")
    for rule, body in cases.items():
        page = browser.new_page()
        page.set_content(f'<!doctype html><html lang="en"><head><title>t</title></head><body><main>{body}</main>'
                         "</body></html>")
        page.add_script_tag(content=source)
        ids = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}, rules: "
                            "{'label-content-name-mismatch': {enabled: true}}}).then(r => r.violations.map(v => v.id))",
                            WCAG_TAGS)
        page.close()
        assert rule in ids, (rule, ids)


def test_live_figures_quizzes_and_deeper_sections_work_from_the_keyboard(browser, html_dir, book_server):
    """On the first chapter: a live figure's slider moves with the arrow keys and the figure's text alternative
    then says what the new figure shows; a quiz is answered with the keyboard alone and its verdict is
    announced; a deeper section opens with Enter and closes again."""
    page = watched_page(browser, 1280, book_server)
    load(page, book_server + "chapters/03_laplace.html")
    slider = page.locator(".dpcourse-explorer-live input[type=range]").first
    img = page.locator(".dpcourse-explorer-live img.dpcourse-explorer-figure").first
    before_alt, before_src = img.get_attribute("alt"), img.get_attribute("src")
    slider.focus()
    page.keyboard.press("ArrowRight" if slider.evaluate("e => +e.value < +e.max") else "ArrowLeft")
    after_alt, after_src = img.get_attribute("alt"), img.get_attribute("src")
    assert after_src != before_src and after_alt != before_alt
    assert ": " in after_alt and len(after_alt) > 60, after_alt   # the setting, then what the figure shows
    assert page.locator(".dpcourse-explorer-said").first.text_content().strip()
    load(page, book_server + "chapters/01_promise.html")
    quiz = page.locator("div.quiz").first
    right = int(quiz.get_attribute("data-right"))
    quiz.locator("input[type=radio]").nth(right).focus()
    page.keyboard.press("Space")
    quiz.locator("button.quiz-check").focus()
    page.keyboard.press("Enter")
    assert quiz.locator(".quiz-verdict").text_content().startswith("Right.")
    wrong = (right + 1) % quiz.locator("input[type=radio]").count()
    quiz.locator("input[type=radio]").nth(wrong).focus()
    page.keyboard.press("Space")
    quiz.locator("button.quiz-check").focus()
    page.keyboard.press("Enter")
    assert quiz.locator(".quiz-verdict").text_content().startswith("Not quite.")
    toggle = page.locator("section.deeper button.collapsible-toggle").first
    body = page.locator("section.deeper .collapsible-body").first
    assert toggle.get_attribute("aria-expanded") == "false" and not body.is_visible()
    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "true" and body.is_visible()
    page.keyboard.press("Enter")
    assert not body.is_visible()
    assert page.evaluate("() => document.querySelectorAll('mjx-assistive-mml').length") > 0   # screen readers
    assert not page.errors, page.errors[:3]
    page.close()

