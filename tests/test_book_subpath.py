"""The published book works under a sub-path, as GitHub Pages serves a project's site: ``/<repository>/``.

The book in ``_build/html`` (``jupyter-book build`` and ``python tools/build_pdf.py``, the README's build command,
so the PDF is part of it) is served from 127.0.0.1 under ``/<repository>/`` (the last part of ``repository.url``
in _config.yml), and nothing is served outside it: a link or an asset that climbs out of the sub-path (``/_static/...``)
gets a 404, as it would on the real host. Then:

* every HTML page and stylesheet of the build is read, and every link, asset and ``url()`` in it must resolve: to
  a file under the sub-path that the server returns (200), to an anchor that exists on the target page, or, for
  links only, to another web site (assets must all be local);
* every page of the book is visited in headless Chromium (Playwright on Debian's chromium, with the helpers of
  tests/test_book_browser.py): no request gets an error status, no request leaves the machine, and the links
  and assets of the page as its scripts left it resolve as above;
* the address of the sub-path itself leads to the introduction, the introduction's PDF link serves the PDF,
  every slider of a live figure loads its figures, and the search page finds pages and links them correctly;
* the checks find each kind of fault on a small site built to break them.

This file reads the build, it does not make one (the browser tests build their own, without the PDF): without
``_build/html`` it is skipped. ``.ci/run`` runs it again after the build and the PDF with
``DPCOURSE_REQUIRE_BUILT_BOOK=1``, under which a missing build fails.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
import yaml

from test_book_browser import (  # noqa: F401  (browser is a fixture: imported, it is this module's too)
    BACK_PAGES, CHROMIUM, browser, chapter_pages, check_live_figures, load, watched_page,
)

ROOT = Path(__file__).resolve().parent.parent
HTML = Path(os.environ["DPCOURSE_BOOK_HTML"]) if os.environ.get("DPCOURSE_BOOK_HTML") and not os.environ.get("CI") \
    else ROOT / "_build" / "html"

if not (HTML / "index.html").exists():
    if os.environ.get("DPCOURSE_REQUIRE_BUILT_BOOK"):
        pytest.fail(f"no built book in {HTML}: build it first (jupyter-book build -W -n --keep-going . && "
                    "python tools/build_pdf.py)", pytrace=False)
    pytestmark = pytest.mark.skip(reason=f"no built book in {HTML} (the README's build command makes it; "
                                         ".ci/run runs this file after it)")
elif CHROMIUM is None:   # under CI, importing test_book_browser has already failed
    pytestmark = pytest.mark.skip(reason="chromium not installed (apt-get install -y chromium)")


def repository_name() -> str:
    """The repository's name, the last part of ``repository.url`` in _config.yml (the one place it is set)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]["url"].rstrip("/").rsplit("/", 1)[-1]


SUBPATH = f"/{repository_name()}/"


@contextlib.contextmanager
def serve_under(directory: Path, prefix: str):
    """Serve ``directory`` from 127.0.0.1 under the path ``prefix`` ("/name/") and nowhere else; ``/name`` is
    redirected to ``/name/`` (as GitHub Pages does). Yields the base URL and the list of (path, status) of every
    request the server answered."""
    answered: list[tuple[str, int]] = []

    class Handler(SimpleHTTPRequestHandler):
        def translate_path(self, path):
            bare = urlsplit(path).path
            if bare == prefix.rstrip("/"):
                return str(directory)   # a folder asked for without its slash: the handler redirects
            if not bare.startswith(prefix):
                return os.path.join(directory, ".outside-the-sub-path", "none")   # no such file: 404
            return super().translate_path("/" + path[len(prefix):])

        def end_headers(self):
            self.send_header("Cache-Control", "max-age=3600")   # as a web host does (see book_server)
            super().end_headers()

        def log_request(self, code="-", size="-"):
            answered.append((self.path, int(code)))

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}", answered
    finally:
        server.shutdown()
        server.server_close()


class _References(HTMLParser):
    """The links (``a``, ``area``, ``form``, canonical/alternate ``link``) and assets (every ``src``, ``srcset``,
    other ``link`` and ``object`` data) of an HTML text, as written."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("a", "area") and a.get("href") is not None:
            self.found.append(("link", a["href"]))
        elif tag == "form" and a.get("action"):
            self.found.append(("link", a["action"]))
        elif tag == "link" and a.get("href") is not None:
            rel = (a.get("rel") or "").lower().split()
            self.found.append(("link" if {"canonical", "alternate"} & set(rel) else "asset", a["href"]))
        if a.get("src"):
            self.found.append(("asset", a["src"]))
        if a.get("srcset"):
            self.found += [("asset", part.split()[0]) for part in a["srcset"].split(",") if part.strip()]
        if tag == "object" and a.get("data"):
            self.found.append(("asset", a["data"]))


def references(html: str) -> list[tuple[str, str]]:
    parser = _References()
    parser.feed(html)
    return parser.found


CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
ID = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")
IGNORED_SCHEMES = ("data:", "blob:", "javascript:", "mailto:", "about:", "tel:")

# What the browser reports of a page as its scripts left it: links and assets, resolved by the browser.
DOM_REFERENCES_JS = """() => {
  const out = [], abs = (v) => { try { return new URL(v, document.baseURI).href; } catch (e) { return 'invalid:' + v; } };
  document.querySelectorAll('a[href], area[href]').forEach(e => out.push(['link', abs(e.getAttribute('href'))]));
  document.querySelectorAll('form[action]').forEach(e => out.push(['link', abs(e.getAttribute('action'))]));
  document.querySelectorAll('link[href]').forEach(e => out.push(
      [/\\b(canonical|alternate)\\b/i.test(e.rel) ? 'link' : 'asset', abs(e.getAttribute('href'))]));
  document.querySelectorAll('[src]').forEach(e => out.push(['asset', abs(e.getAttribute('src'))]));
  document.querySelectorAll('[srcset]').forEach(e => e.getAttribute('srcset').split(',').filter(s => s.trim())
      .forEach(s => out.push(['asset', abs(s.trim().split(/\\s+/)[0])])));
  return out;
}"""


class Resolver:
    """Checks that a reference resolves under the sub-path ``base`` (an http URL ending in "/"), fetching each
    target once from the server (never through a proxy)."""

    def __init__(self, base: str):
        self.base = base
        parts = urlsplit(base)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self.fetched: dict[str, tuple[int, str, bytes]] = {}
        self.ids: dict[str, set[str]] = {}

    def fetch(self, url: str) -> tuple[int, str, bytes]:
        if url not in self.fetched:
            try:
                with self.opener.open(url, timeout=30) as resp:
                    self.fetched[url] = (resp.status, resp.headers.get_content_type(), resp.read())
            except urllib.error.HTTPError as err:
                self.fetched[url] = (err.code, "", b"")
        return self.fetched[url]

    def problem(self, where: str, kind: str, url: str) -> str | None:
        """None if ``url`` (absolute) resolves, else what is wrong with it."""
        if url.startswith(IGNORED_SCHEMES) or not url:
            return None
        if url.startswith("invalid:"):
            return f"{where}: {kind} {url[8:]!r} is not a valid address"
        scheme = urlsplit(url).scheme
        if scheme == "file":
            return f"{where}: {kind} {url} points into the builder's disk"
        if not url.startswith(self.origin + "/"):
            if scheme in ("http", "https") and kind == "link":
                return None   # a link to another web site (references, launch buttons): not this book's to serve
            return f"{where}: {kind} {url} is not served by the book (it would leave the machine)"
        path_and_query, _, fragment = url.partition("#")
        if not path_and_query.startswith(self.base):
            return f"{where}: {kind} {url} leaves the sub-path {urlsplit(self.base).path}"
        status, ctype, body = self.fetch(path_and_query)
        if status != 200:
            return f"{where}: {kind} {url} answers {status}"
        fragment = unquote(fragment)
        if fragment and ctype == "text/html" and path_and_query not in self.ids:
            self.ids[path_and_query] = set(ID.findall(body.decode("utf-8", "replace")))
        if fragment and ctype == "text/html" and fragment not in self.ids[path_and_query]:
            return f"{where}: {kind} {url}: no element with id {fragment!r} on that page"
        return None


def static_problems(html_dir: Path, resolver: Resolver) -> tuple[list[str], int]:
    """Every reference written in the build's pages (not the theme's templates in _static/) and stylesheets."""
    problems, checked = [], 0
    for file in sorted(html_dir.rglob("*")):
        rel = file.relative_to(html_dir).as_posix()
        if file.suffix == ".html" and not rel.startswith("_static/"):
            refs = references(file.read_text(encoding="utf-8"))
        elif file.suffix == ".css":
            refs = [("asset", m.group(2)) for m in CSS_URL.finditer(file.read_text(encoding="utf-8"))]
        else:
            continue
        page_url = resolver.base + rel
        for kind, value in refs:
            checked += 1
            problem = resolver.problem(rel, kind, urljoin(page_url, value.strip()))
            if problem:
                problems.append(problem)
    return problems, checked


def visit(page, resolver: Resolver, url: str) -> list[str]:
    """Load ``url`` in ``page`` (a :func:`watched_page` for the sub-path) and return what went wrong: requests that
    failed or left the sub-path, page errors, and references of the page as its scripts left it that do not
    resolve."""
    page.errors.clear()
    page.remote.clear()
    page.failed.clear()
    load(page, url)
    where = urlsplit(page.url).path
    problems = [f"{where}: {p}" for p in page.failed]
    problems += [f"{where}: request outside the book's sub-path: {u}" for u in page.remote]
    problems += [f"{where}: page error: {e}" for e in page.errors]
    for kind, ref in page.evaluate(DOM_REFERENCES_JS):
        problem = resolver.problem(where, kind, ref)
        if problem:
            problems.append(problem)
    return problems


def subpath_page(browser, base: str):
    """A :func:`watched_page` that lets through only requests for the sub-path ``base`` (any other request, on
    this machine or not, is aborted and recorded) and records every response with an error status."""
    page = watched_page(browser, 1280, base)
    page.failed = []
    page.on("response", lambda r: page.failed.append(f"{r.status} for {r.url}") if r.status >= 400 else None)
    return page


@pytest.fixture(scope="module")
def served():
    with serve_under(HTML, SUBPATH) as (base, answered):
        yield base, answered, Resolver(base)


def book_pages(html_dir: Path) -> list[Path]:
    """Every page of the book: the chapters, the back pages, the index of terms and of theorems."""
    extra = [html_dir / name for name in ("genindex.html", "prf-prf.html")]
    return chapter_pages(html_dir) + [html_dir / f"{name}.html" for name in BACK_PAGES] + [p for p in extra if p.exists()]


def test_the_sub_path_is_one_segment_named_after_the_repository():
    assert re.fullmatch(r"/[A-Za-z0-9._-]+/", SUBPATH), SUBPATH


def test_every_reference_in_the_built_files_resolves_under_the_sub_path(served):
    base, answered, resolver = served
    problems, checked = static_problems(HTML, resolver)
    print(f"{checked} references in {sum(1 for _ in HTML.rglob('*.html'))} HTML files and the stylesheets, "
          f"{len(resolver.fetched)} distinct targets fetched under {SUBPATH}")
    assert checked > 1000
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_every_page_loads_under_the_sub_path_with_nothing_missing_and_nothing_remote(browser, served):
    base, answered, resolver = served
    pages = book_pages(HTML)
    page = subpath_page(browser, base)
    problems = []
    for page_path in pages:
        problems += visit(page, resolver, base + page_path.relative_to(HTML).as_posix())
    page.close()
    errors = sorted({(path, code) for path, code in answered if code >= 400})
    print(f"{len(pages)} pages visited under {SUBPATH}; {len(answered)} requests answered")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
    assert not errors, errors[:20]


def test_the_address_of_the_sub_path_opens_the_introduction_and_its_pdf_link_serves_the_pdf(browser, served):
    base, answered, resolver = served
    with resolver.opener.open(base.rstrip("/"), timeout=30) as resp:   # "/name" is redirected to "/name/"
        assert resp.url == base and b'url=intro.html' in resp.read()
    page = subpath_page(browser, base)
    page.goto(base)
    page.wait_for_url(base + "intro.html")
    problems = visit(page, resolver, base + "intro.html")
    pdf = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href).filter(h => h.endsWith('.pdf'))")
    page.close()
    assert not problems, problems
    assert pdf == [base + "dpcourse.pdf"], pdf
    status, ctype, body = resolver.fetch(pdf[0])
    assert status == 200 and ctype == "application/pdf" and body.startswith(b"%PDF-") and len(body) > 100_000


def test_live_figures_and_search_work_under_the_sub_path(browser, served):
    base, answered, resolver = served
    page = subpath_page(browser, base)
    first = chapter_pages(HTML)[0]
    problems = visit(page, resolver, base + first.relative_to(HTML).as_posix())
    check_live_figures(page, first)   # every slider: its figure changes and decodes (a 404 would not)
    problems += [f"after the sliders: {p}" for p in page.failed + page.remote + page.errors]
    page.goto(base + "search.html?q=Laplace")
    page.wait_for_function("() => document.querySelectorAll('#search-results li a').length > 5", timeout=30000)
    results = page.evaluate("() => [...document.querySelectorAll('#search-results li a')].map(a => a.href)")
    for ref in results:
        problems.append(resolver.problem("search results", "link", ref))
    problems += [f"search: {p}" for p in page.failed + page.remote + page.errors]
    page.close()
    assert all(r.startswith(base) for r in results), results[:5]
    assert not [p for p in problems if p], [p for p in problems if p][:20]


# ------------------------------------------------------------------------------- the checks above can fail

BROKEN_PAGE = """<!doctype html><html lang="en"><head><title>broken</title>
<link rel="stylesheet" href="/_static/site.css">
<link rel="stylesheet" href="style.css">
<script src="app.js"></script></head><body><main>
<a href="page.html#here">fine</a> <a href="https://example.org/">another site, fine</a>
<a href="missing.html">missing page</a> <a href="page.html#nowhere">missing anchor</a>
<img src="https://example.org/x.png" alt="remote"> <img src="../outside.png" alt="climbs out">
</main></body></html>"""


def test_the_checks_find_each_fault_on_a_broken_site(browser, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(BROKEN_PAGE, encoding="utf-8")
    (site / "page.html").write_text('<!doctype html><html lang="en"><head><title>p</title></head><body>'
                                    '<p id="here">here</p></body></html>', encoding="utf-8")
    (site / "style.css").write_text("body { background: url(/_static/bg.png); } p { background: url(ok.png); }")
    (site / "ok.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    # a script that builds an address from the root of the host, as a sub-path bug in a theme would
    (site / "app.js").write_text("addEventListener('DOMContentLoaded', () => { const a = document.createElement('a');"
                                 " a.href = '/search.html'; a.textContent = 'search'; document.body.append(a); });")
    with serve_under(site, "/course/") as (base, answered):
        resolver = Resolver(base)
        static, _ = static_problems(site, resolver)
        page = subpath_page(browser, base)
        dynamic = visit(page, resolver, base + "index.html")
        page.close()
    static_text, dynamic_text = "\n".join(static), "\n".join(dynamic)
    for text in (static_text, dynamic_text):
        assert "/_static/site.css leaves the sub-path /course/" in text
        assert "missing.html answers 404" in text
        assert "no element with id 'nowhere'" in text
        assert "https://example.org/x.png is not served by the book" in text
        assert "/outside.png leaves the sub-path" in text
        assert "page.html#here" not in text                                # the good anchor
        assert not re.search(r"https://example\.org/(\s|$)", text, flags=re.M)   # a link to another site is fine
    assert "style.css: asset http" in static_text and "/_static/bg.png leaves the sub-path" in static_text
    assert "ok.png" not in static_text
    assert "/search.html leaves the sub-path" in dynamic_text            # made by the page's script
    assert "request outside the book's sub-path" in dynamic_text         # the browser asked outside it
    assert ("/course/missing.html", 404) in answered
