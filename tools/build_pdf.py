"""Print the whole book to one PDF, offline, from the built HTML.

Usage (after the HTML build; both commands are offline)::

    jupyter-book build -W -n --keep-going .
    python tools/build_pdf.py            # writes _build/html/dpcourse.pdf, linked from the introduction

Why this route: Sphinx's LaTeX and single-page builders do not render the proof and exercise boxes of
sphinx-proof and sphinx-exercise, and LaTeX would add a large TeX installation to every machine. The
HTML pages already have typeset math (the book's own MathJax), figures and the theme's print style, so
this script joins the articles of all pages in table-of-contents order into print pages, opens them in
headless Chromium (Debian's, driven by Playwright, every request outside the book refused), waits for
MathJax, opens every collapsed solution, checks each page, prints it, and joins the printed parts into
one PDF with pypdf. The parts (about 80 printed pages each, two Chromium processes at once) exist for
speed only: Chromium's printing time grows faster than the page count (the whole book as one page: 153 s
on a loaded machine; in 8 parts: 85 s). Interactive widgets are left out of the PDF (each chapter prints
the same figure from its non-interactive call).

The print page is a book, not a pile of pages: a title page, a table of contents of chapters and their
sections, then the documents. Every ``id`` gets its document's prefix (``chapters-06_selection--...``),
so ids that repeat across pages stay unique, and every link between pages of the book becomes a link
inside the PDF (also between parts: :func:`link_across`, :func:`finish_pdf`); links to pages that are not
printed (search, index) become plain text; external links stay. pypdf writes the outline (bookmarks) from
the headings and the title metadata, and :func:`pdf_report` reads back pages, outline, titles and links
(the test in tests/test_book_browser.py uses it).
Display formulas wider than the printed column are set in a smaller size until they fit.
"""

from __future__ import annotations

import argparse
import html as htmllib
import json
import posixpath
import re
import os
import shutil
import sys
import tempfile
import unicodedata
import time
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
ARTICLE = re.compile(r'<article class="bd-article">(.*?)</article>', re.S)
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PRINT_CSS = """
<style>
  .toggle-button, .headerbtn, .header-article, .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary,
  .prev-next-area, .bd-footer, .bd-footer-content, .jupyter-widgets, .widget-subarea, .cell_output .widget,
  #pst-back-to-top, .toggle-details__summary { display: none !important; }
  .dpcourse-print-doc { break-before: page; }
  .dpcourse-print-doc:first-of-type { break-before: auto; }
  details { display: block; }
  details > * { display: block !important; }
  .bd-main .bd-content .bd-article-container { max-width: 100%; }
  mjx-container[display="true"] { overflow: visible !important; max-width: 100% !important; }
  pre, .highlight pre, .cell_output pre { white-space: pre-wrap !important; overflow-wrap: anywhere;
    overflow: visible !important; }
  .cell_output img { max-width: 100%; height: auto; }
  div.cell, div.proof, div.admonition, figure { break-inside: avoid-page; }
  a.headerlink, .dpcourse-explorer-live { display: none !important; }
  /* The theme prints the template page's own title and contents (#jb-print-docs-body) above the article and
     hides the first h1 of each section: here every document's title must print and no page's header. */
  #jb-print-docs-body { display: none !important; }
  .bd-main .bd-content .bd-article h1:first-of-type { display: block !important; }
  .dpcourse-print-front { break-after: page; }
  .dpcourse-print-title { text-align: center; padding-top: 30vh; }
  .dpcourse-print-title .book-title { font-size: 2.4em; font-weight: 700; line-height: 1.2; }
  .dpcourse-print-title .book-author { font-size: 1.3em; margin-top: 2em; }
  .dpcourse-print-toc ol { list-style: none; padding-left: 0; }
  .dpcourse-print-toc ol ol { padding-left: 1.6em; font-size: 0.92em; }
  .dpcourse-print-toc li { margin: 0.15em 0; }
  table { font-size: 0.85em; }
  /* Chromium prints a blurred shadow as a page-wide raster mask: 1,150 of them were 12.9 of 17.8 MB. The
     theme's shadows are !important on class selectors: :not(#id) outranks them (id specificity). */
  :not(#dpcourse-none), :not(#dpcourse-none)::before, :not(#dpcourse-none)::after {
    box-shadow: none !important; text-shadow: none !important; }
</style>
"""


def toc_documents(root: Path = ROOT) -> list[str]:
    """The documents of the book in reading order: the root, then every file of every part."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    docs = [toc["root"]]
    for part in toc.get("parts", []):
        docs += [entry["file"] for entry in part.get("chapters", [])]
    return docs


PRINT_PAGE = "chapters/_book_print.html"   # part i is printed from chapters/_book_print_i.html
CHUNK_BYTES = 400_000   # HTML per print page: about 80 printed pages (3-4 chapters)
CROSS_LINK = "https://dpcourse-print.invalid/#"
ANY_ID = re.compile(r'\sid="([^"]+)"')
HASH_LINK = re.compile(r'(<a\b[^>]*?\shref=")#([^"]+)"')
ID_ATTR = re.compile(r'(\s(?:id|aria-labelledby|aria-describedby|for)=")([^"]+)"')
LINK = re.compile(r'<a\b([^>]*?)\shref="([^"]*)"')
SRC = re.compile(r'(\ssrc=")([^"]+)"')
EXTERNAL = ("http:", "https:", "mailto:")
SECTION_HEADING = re.compile(r'<section\b[^>]*?\sid="([^"]+)"[^>]*>\s*<h([12])\b[^>]*>(.*?)</h\2>', re.S)


def slug(doc: str) -> str:
    """The prefix of the ids of one document in the print page."""
    return doc.replace("/", "-")


def _relative_to_print_page(url: str, doc: str) -> str:
    """A URL relative to ``doc``'s page, made relative to the print page (``chapters/``)."""
    if url.startswith(EXTERNAL + ("data:", "#", "/", "file:")):
        return url
    path = posixpath.normpath(posixpath.join(posixpath.dirname(doc), url))
    return posixpath.relpath(path, posixpath.dirname(PRINT_PAGE))


def rewrite_links(article: str, doc: str, docs: set[str]) -> tuple[str, Counter]:
    """Prefix the ids of ``doc``; turn links to printed documents into links inside the print page.

    A link to a page of the book that is printed becomes ``#<document>--<anchor>`` (or ``#<document>``);
    a link to a page that is not printed (search, general index, a notebook's source) loses its ``href``
    and prints as text; external links are kept. Returns the article and a count of each kind of link.
    """
    prefix = slug(doc)
    counts = Counter()
    article = ID_ATTR.sub(lambda m: f'{m.group(1)}{prefix}--{" ".join(m.group(2).split())}"', article)

    def link(m):
        attrs, url = m.group(1), htmllib.unescape(m.group(2))
        if url.startswith(EXTERNAL):
            counts["external"] += 1
            return m.group(0)
        if url.startswith("#"):
            counts["internal"] += 1
            return f'<a{attrs} href="#{prefix}--{url[1:]}"' if url != "#" else f"<a{attrs}"
        path, _, anchor = url.partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(doc), path))
        if target.endswith(".html") and target[:-5] in docs:
            counts["internal"] += 1
            where = slug(target[:-5]) + (f"--{anchor}" if anchor else "")
            return f'<a{attrs} href="#{where}"'
        counts["dropped"] += 1
        return f"<a{attrs}"

    article = LINK.sub(link, article)
    article = SRC.sub(lambda m: f'{m.group(1)}{_relative_to_print_page(m.group(2), doc)}"', article)
    article = article.replace(' loading="lazy"', "")  # the print page needs every image before printing
    return article, counts


def _heading_text(fragment: str) -> str:
    text = re.sub(r"<[^>]+>", "", re.sub(r'<a class="headerlink".*?</a>', "", fragment, flags=re.S))
    return " ".join(htmllib.unescape(text).split())


def front_matter(config: dict, contents: list[tuple[str, str, list[tuple[str, str]]]]) -> str:
    """Title page and table of contents: ``contents`` is (anchor, chapter title, [(anchor, section title)])."""
    title = htmllib.escape(config.get("title", "Book"))
    author = htmllib.escape(config.get("author", ""))
    rows = []
    for anchor, name, sections in contents:
        inner = "".join(f'<li><a class="reference internal" href="#{a}">{htmllib.escape(t)}</a></li>'
                        for a, t in sections)
        rows.append(f'<li><a class="reference internal" href="#{anchor}">{htmllib.escape(name)}</a>'
                    + (f"<ol>{inner}</ol>" if inner else "") + "</li>")
    return (f'<section class="dpcourse-print-front dpcourse-print-title"><p class="book-title">{title}</p>'
            f'<p class="book-author">{author}</p><p>{htmllib.escape(str(config.get("copyright", "")))}</p></section>'
            f'<section class="dpcourse-print-front dpcourse-print-toc" id="dpcourse-print-contents">'
            f'<h1>Contents</h1><ol>{"".join(rows)}</ol></section>')


def book_config(root: Path = ROOT) -> dict:
    return yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))


def print_parts(html_dir: Path, docs: list[str], config: dict) -> tuple[str, list[str], Counter, list, str]:
    """The front matter (title page, contents), each document's print section, link counts, contents, template."""
    pages = {doc: (html_dir / f"{doc}.html").read_text(encoding="utf-8") for doc in docs}
    template = pages[next(d for d in docs if d.count("/") == 1)]
    parts, contents, counts = [], [], Counter()
    printed = set(docs)
    for doc in docs:
        match = ARTICLE.search(pages[doc])
        if match is None:
            raise RuntimeError(f"{doc}.html has no <article class=\"bd-article\">")
        article, found = rewrite_links(match.group(1), doc, printed)
        counts.update(found)
        headings = SECTION_HEADING.findall(article)
        title = next((_heading_text(t) for _, level, t in headings if level == "1"), doc)
        sections = [(a, _heading_text(t)) for a, level, t in headings if level == "2"]
        first = next((a for a, level, _ in headings if level == "1"), slug(doc))
        contents.append((first, title, sections))
        parts.append(f'<section class="dpcourse-print-doc" id="{slug(doc)}" data-doc="{doc}">{article}</section>')
    return front_matter(config, contents), parts, counts, contents, template


def print_page(template: str, body: str, config: dict) -> str:
    """A print page: the theme's page with ``body`` as its article, the book's title and the print style."""
    page = ARTICLE.sub(lambda _: f'<article class="bd-article">{body}</article>', template, count=1)
    page = re.sub(r"<title>.*?</title>", f"<title>{htmllib.escape(config.get('title', ''))}</title>", page,
                  count=1, flags=re.S)
    return page.replace("</head>", PRINT_CSS + "</head>", 1)


def chunk_documents(parts: list[str], budget: int = CHUNK_BYTES) -> list[list[int]]:
    """Consecutive documents grouped into print pages of at most ``budget`` bytes of HTML (at least one each).

    Chromium's printing time grows faster than the page count (measured: 10 chapters printed as two pages of
    five took 0.6 of the time of one page of ten), so the book is printed in parts and the PDFs are joined.
    """
    groups, size = [[]], 0
    for i, part in enumerate(parts):
        if groups[-1] and size + len(part) > budget:
            groups.append([])
            size = 0
        groups[-1].append(i)
        size += len(part)
    return groups


def link_across(bodies: list[str]) -> tuple[list[str], int]:
    """Point each link to an id of another print page at ``CROSS_LINK`` + id (joined into one PDF link later).

    Chromium makes an internal PDF link only when the target is on the same page; a link to an id printed
    in another part is written as an external link to the reserved address :data:`CROSS_LINK` (``.invalid``
    can never resolve), which :func:`finish_pdf` turns into a link to that id's destination in the joined PDF.
    Returns the bodies and the number of links rewritten.
    """
    ids = [set(ANY_ID.findall(body)) for body in bodies]
    every = set().union(*ids) if ids else set()
    out, wanted = [], set()
    for body, own in zip(bodies, ids):
        def point(m, own=own):
            if m.group(2) in own or m.group(2) not in every:
                return m.group(0)
            wanted.add(m.group(2))
            return f'{m.group(1)}{CROSS_LINK}{m.group(2)}"'
        out.append(HASH_LINK.sub(point, body))
    # Chromium writes a destination only for an id that a link of the same page targets: each part gets
    # hidden links to its ids that other parts link to (hidden: they make no link of their own in the PDF).
    for i, own in enumerate(ids):
        targets = sorted(own & wanted)
        if targets:
            out[i] += ('<div class="dpcourse-print-targets" style="display: none">'
                       + "".join(f'<a href="#{t}"></a>' for t in targets) + "</div>")
    crossing = sum(body.count(f'href="{CROSS_LINK}') for body in out)
    return out, crossing


CHECK_JS = """() => {
  const text = document.body.innerText;
  const imgs = [...document.querySelectorAll('article img')];
  return {
    math: document.querySelectorAll('mjx-container').length,
    rawTex: ['\\\\(', '\\\\[', '$$'].filter(s => text.includes(s)),
    images: imgs.length,
    brokenImages: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(-60)),
    solutions: document.querySelectorAll('.solution').length,
    hiddenSolutions: [...document.querySelectorAll('.solution')].filter(s => s.offsetHeight === 0).length,
    docs: document.querySelectorAll('.dpcourse-print-doc').length,
  };
}"""


# Set each display formula wider than its box in a smaller size, so that none is cut at the page edge.
# Measured in the print layout (print media, the printed column's width).
FIT_MATH_JS = """() => {
  const boxes = [...document.querySelectorAll('mjx-container[display="true"]')].filter(b => b.offsetWidth > 0);
  const ratios = boxes.map(b => {
    const math = b.querySelector('mjx-math');
    const w = math ? math.getBoundingClientRect().width : 0;
    return w > b.clientWidth + 0.5 ? b.clientWidth / w : 1;
  });
  boxes.forEach((b, i) => { if (ratios[i] < 1) b.style.fontSize = `${Math.floor(ratios[i] * 980) / 10}%`; });
  const still = boxes.filter(b => {
    const math = b.querySelector('mjx-math');
    return math && math.getBoundingClientRect().width > b.clientWidth + 1;
  }).map(b => b.textContent.slice(0, 40));
  const pres = [...document.querySelectorAll('article pre')].filter(p => p.offsetWidth > 0 && p.scrollWidth > p.clientWidth + 1);
  return {scaled: ratios.filter(r => r < 1).length, smallest: Math.min(1, ...ratios), stillWide: still,
          widePre: pres.length};
}"""
PRINT_WIDTH_PX = round((210 - 2 * 14) / 25.4 * 96)  # A4 minus the side margins, in CSS px


def _check_page(browser, page_path: Path, out_pdf: Path) -> dict:
    """Open one print page, wait for MathJax, open every solution, check it, print it; return the checks."""
    remote = []
    page = browser.new_page(viewport={"width": PRINT_WIDTH_PX, "height": 1400})
    try:
        page.emulate_media(media="print")

        def guard(route):
            url = route.request.url
            if url.startswith(("file:", "data:", "blob:", "about:")):
                route.continue_()
            else:
                remote.append(url)
                route.abort()

        page.route("**/*", guard)
        page.goto(page_path.as_uri(), wait_until="load", timeout=120_000)
        page.wait_for_function("() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise",
                               timeout=120_000)
        page.evaluate("() => window.MathJax.startup.promise")
        # open every collapsed solution (sphinx-togglebutton) and every <details>
        page.evaluate("""() => {
          document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
          document.querySelectorAll('details').forEach(d => d.open = true);
        }""")
        page.evaluate("() => window.MathJax.typesetPromise ? window.MathJax.typesetPromise() : null")
        checks = page.evaluate(CHECK_JS)
        checks["formulas"] = page.evaluate(FIT_MATH_JS)
        checks["remote_requests"] = remote
        if not _problems(checks):
            page.pdf(path=str(out_pdf), format="A4", print_background=True,
                     margin={"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"})
    finally:
        page.close()
    return checks


def _problems(checks: dict) -> list[str]:
    problems = []
    if checks["rawTex"]:
        problems.append(f"raw TeX left: {checks['rawTex']}")
    if checks["brokenImages"]:
        problems.append(f"images not loaded: {checks['brokenImages'][:3]}")
    if checks["hiddenSolutions"]:
        problems.append(f"{checks['hiddenSolutions']} solutions still hidden")
    if checks["remote_requests"]:
        problems.append(f"requests outside the book: {checks['remote_requests'][:3]}")
    if checks["formulas"]["stillWide"] or checks["formulas"]["widePre"]:
        problems.append(f"cut at the page edge: formulas {checks['formulas']['stillWide'][:3]}, "
                        f"{checks['formulas']['widePre']} code blocks")
    return problems


def _print_in_own_browser(jobs: list[tuple[str, str]], chromium: str) -> list[dict]:
    """A worker process: its own Chromium prints its share of the print pages."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
        try:
            return [_check_page(browser, Path(page), Path(pdf)) for page, pdf in jobs]
        finally:
            browser.close()


def _shares(sizes: list[int], workers: int) -> list[list[int]]:
    """Indices of jobs per worker, largest first to the least loaded (balanced printing time)."""
    shares, loads = [[] for _ in range(workers)], [0] * workers
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        w = loads.index(min(loads))
        shares[w].append(i)
        loads[w] += sizes[i]
    return [share for share in shares if share]


def print_pdf(html_dir: Path, out_pdf: Path, *, chromium: str | None = None, docs: list[str] | None = None,
              browser=None, chunk_bytes: int = CHUNK_BYTES, workers: int | None = None) -> dict:
    """Build the print pages, check them in the browser, print them, join them into ``out_pdf``; return the checks.

    The documents are printed in parts of about ``chunk_bytes`` of HTML (:func:`chunk_documents`), by
    ``workers`` Chromium processes at once (default: one per CPU, at most two; one when ``browser`` is given:
    a Playwright Chromium already running, as the browser tests pass theirs). Links between parts are joined
    in the PDF (:func:`link_across`, :func:`finish_pdf`).
    """
    from concurrent.futures import ProcessPoolExecutor

    docs = docs or toc_documents()
    config = book_config()
    front, parts, link_counts, contents, template = print_parts(html_dir, docs, config)
    groups = chunk_documents(parts, chunk_bytes)
    bodies, crossing = link_across([(front if g == 0 else "") + "\n".join(parts[i] for i in group)
                                    for g, group in enumerate(groups)])
    chromium = chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None and browser is None:
        raise RuntimeError("Chromium is needed: apt-get install -y chromium")
    tmp = Path(tempfile.mkdtemp(prefix="dpcourse-pdf-"))
    pages = [html_dir / PRINT_PAGE.replace(".html", f"_{g}.html") for g in range(len(groups))]
    pdfs = [tmp / f"part{g}.pdf" for g in range(len(groups))]
    try:
        for page, body in zip(pages, bodies):
            page.write_text(print_page(template, body, config), encoding="utf-8")
        jobs = [(str(page), str(pdf)) for page, pdf in zip(pages, pdfs)]
        if browser is not None:
            results = [_check_page(browser, Path(page), Path(pdf)) for page, pdf in jobs]
        else:
            n = workers or max(1, min(2, os.cpu_count() or 1))
            shares = _shares([len(b) for b in bodies], n)
            results = [None] * len(jobs)
            with ProcessPoolExecutor(max_workers=len(shares)) as pool:
                futures = [(share, pool.submit(_print_in_own_browser, [jobs[i] for i in share], chromium))
                           for share in shares]
                for share, future in futures:
                    for i, result in zip(share, future.result()):
                        results[i] = result
        checks = _merge_checks(results)
        checks["html_links"] = dict(link_counts)
        checks["parts"] = len(groups)
        checks["links_across_parts"] = crossing
        problems = _problems(checks)
        if checks["docs"] != len(docs):
            problems.append(f"{checks['docs']} documents in the print pages, {len(docs)} in the table of contents")
        if problems:
            raise RuntimeError("the print page is not ready: " + "; ".join(problems))
        finish_pdf(pdfs, out_pdf, contents, title=config.get("title", ""), author=config.get("author", ""))
    finally:
        for page in pages:
            page.unlink(missing_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
    checks.update(pdf_report(out_pdf))
    checks["pdf_bytes"] = out_pdf.stat().st_size
    return checks


def _merge_checks(results: list[dict]) -> dict:
    """The checks of all print pages as one: counts added, lists joined, the smallest scale kept."""
    out = {key: sum(r[key] for r in results) for key in ("math", "images", "solutions", "hiddenSolutions", "docs")}
    out["rawTex"] = sorted({t for r in results for t in r["rawTex"]})
    out["brokenImages"] = [i for r in results for i in r["brokenImages"]]
    out["remote_requests"] = [u for r in results for u in r["remote_requests"]]
    out["formulas"] = {"scaled": sum(r["formulas"]["scaled"] for r in results),
                       "smallest": min(r["formulas"]["smallest"] for r in results),
                       "stillWide": [w for r in results for w in r["formulas"]["stillWide"]],
                       "widePre": sum(r["formulas"]["widePre"] for r in results)}
    return out


def finish_pdf(parts: list[Path], pdf: Path, contents: list, *, title: str, author: str) -> None:
    """Join the printed parts into ``pdf``; make every book link a link to its page; add outline and metadata.

    Chromium writes a named destination for each linked id and links to it by name. Every link is turned into
    a link to the destination's page and position (an explicit destination, which every viewer follows): a
    link to a name printed in the same part, and a link to :data:`CROSS_LINK` + id (an id of another part).
    A link whose id has no destination anywhere is an error. The outline (bookmarks: Contents, then each
    document and its sections) goes to the destinations of the headings' ids (the ones the contents link to).
    """
    import logging

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, Fit, FloatObject, NameObject, NullObject, NumberObject

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    writer = PdfWriter()
    places = {}            # "/id" -> (page index in the joined PDF, top)
    for part in parts:
        reader = PdfReader(str(part))
        offset = len(writer.pages)
        named = reader.named_destinations
        for name, dest in named.items():
            places.setdefault(name, (offset + reader.get_destination_page_number(dest), dest.top))
        raw = reader.trailer["/Root"].get("/Dests")
        raw = raw.get_object() if raw is not None else {}
        for page in reader.pages:         # a link by name: to the same destination, explicitly (this part's pages)
            for annot in page.get("/Annots") or []:
                annot = annot.get_object()
                dest = annot.get("/Dest")
                if annot.get("/Subtype") == "/Link" and isinstance(dest, str):
                    if dest not in raw:
                        raise RuntimeError(f"a link to {dest} has no destination in its part of the PDF")
                    annot[NameObject("/Dest")] = raw[dest]
        writer.append(reader, import_outline=False)

    def place(anchor):
        if "/" + anchor not in places:
            raise RuntimeError(f"no destination for #{anchor} in the PDF")
        return places["/" + anchor]

    for page in writer.pages:             # links between parts
        for annot in page.get("/Annots") or []:
            annot = annot.get_object()
            action = annot.get("/A")
            uri = str(action.get_object().get("/URI", "")) if action is not None else ""
            if annot.get("/Subtype") == "/Link" and uri.startswith(CROSS_LINK):
                index, top = place(uri[len(CROSS_LINK):])
                del annot[NameObject("/A")]
                annot[NameObject("/Dest")] = ArrayObject([writer.pages[index].indirect_reference, NameObject("/XYZ"),
                                                          NumberObject(0), FloatObject(top) if top is not None else NullObject(),
                                                          NullObject()])
    writer.add_outline_item(title="Contents", page_number=1, fit=Fit.fit())  # the page after the title page
    for anchor, name, sections in contents:
        index, top = place(anchor)
        parent = writer.add_outline_item(title=name, page_number=index, fit=Fit.xyz(left=0, top=top))
        for sub_anchor, sub_name in sections:
            index, top = place(sub_anchor)
            writer.add_outline_item(title=sub_name, page_number=index, parent=parent, fit=Fit.xyz(left=0, top=top))
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({"/Title": title, "/Author": author})
    tmp = pdf.with_suffix(".tmp.pdf")
    with open(tmp, "wb") as f:
        writer.write(f)
    tmp.replace(pdf)


def _outline_stats(items, depth=1) -> tuple[int, int, list[str]]:
    count, deepest, titles = 0, 0, []
    for item in items:
        if isinstance(item, list):
            c, d, t = _outline_stats(item, depth + 1)
            count, deepest, titles = count + c, max(deepest, d), titles + t
        else:
            count, deepest = count + 1, max(deepest, depth)
            titles.append(item.title)
    return count, deepest, titles


def _letters(text: str) -> str:
    """Letters and digits only, ligatures (the PDF's "ﬀ") split: for comparing a title with a page's text."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


def pdf_report(pdf: Path) -> dict:
    """Pages, title, outline (entries, depth) and links of a PDF, read back with pypdf.

    ``titles_not_shown``: the top-level bookmarks (Contents, each document) whose page does not show their title;
    ``first_page``: the text of the title page. Links: ``external`` (a URI other than file:), ``file`` (a file: URI: dead on any other machine),
    ``internal`` (a destination in the document) and ``broken`` (an internal destination that names
    nothing in the document, or points to no page).
    """
    from pypdf import PdfReader
    from pypdf.generic import ArrayObject

    reader = PdfReader(str(pdf))
    named = reader.named_destinations
    page_ids = {page.indirect_reference.idnum for page in reader.pages}
    links = Counter()
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            annot = annot.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            action = action.get_object() if action is not None else {}
            uri = action.get("/URI")
            if uri is not None:
                uri = str(uri)
                links["broken" if uri.startswith(CROSS_LINK) else "file" if uri.startswith("file:") else "external"] += 1
                continue
            dest = annot.get("/Dest", action.get("/D"))
            if dest is None:
                links["broken"] += 1
                continue
            dest = dest.get_object() if hasattr(dest, "get_object") else dest
            if not isinstance(dest, ArrayObject):
                dest = named.get(str(dest))
                ok = dest is not None and dest.page is not None
            else:
                ok = hasattr(dest[0], "idnum") and dest[0].idnum in page_ids
            links["internal" if ok else "broken"] += 1
    entries, depth, titles = _outline_stats(reader.outline)
    missing = []           # a chapter bookmark whose page does not show the chapter's title
    for item in reader.outline:
        if not isinstance(item, list):
            page_text = _letters(reader.pages[reader.get_destination_page_number(item)].extract_text())
            if _letters(item.title) not in page_text:
                missing.append(item.title)
    return {"pdf_pages": len(reader.pages), "title": (reader.metadata or {}).get("/Title"),
            "outline_entries": entries, "outline_depth": depth, "outline_titles": titles, "titles_not_shown": missing,
            "first_page": " ".join(reader.pages[0].extract_text().split())[:200],
            "links": {k: links.get(k, 0) for k in ("internal", "external", "file", "broken")}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", default=str(ROOT / "_build" / "html"), help="the built HTML folder")
    parser.add_argument("--out", default=None, help="the PDF to write (default: HTML folder/dpcourse.pdf)")
    parser.add_argument("--json", action="store_true", help="also print the checks as one JSON line (for tests)")
    args = parser.parse_args(argv)
    html_dir = Path(args.html)
    if not (html_dir / "intro.html").exists():
        print(f"no built book in {html_dir}: run `jupyter-book build -W -n --keep-going .` first", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else html_dir / "dpcourse.pdf"
    t0 = time.perf_counter()
    checks = print_pdf(html_dir, out)
    links = checks["links"]
    print(f"wrote {out} in {time.perf_counter() - t0:.1f} s: {checks['pdf_pages']} pages, "
          f"{checks['pdf_bytes'] / 1e6:.1f} MB; {checks['docs']} documents, {checks['math']} formulas "
          f"({checks['formulas']['scaled']} scaled to fit, smallest {checks['formulas']['smallest']:.0%}), "
          f"{checks['images']} images, {checks['solutions']} solutions shown; outline {checks['outline_entries']} "
          f"entries, depth {checks['outline_depth']}; links: {links['internal']} internal, {links['external']} "
          f"external, {links['file']} file:, {links['broken']} broken; title {checks['title']!r}")
    if args.json:
        print(json.dumps(checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
