"""Print the whole book to one PDF, offline, from the built HTML.

Usage (after the HTML build; both commands are offline)::

    jupyter-book build -W -n --keep-going .
    python tools/build_pdf.py            # writes _build/html/dpcourse.pdf, linked from the introduction

Why this route: Sphinx's LaTeX and single-page builders do not render the proof and exercise boxes of
sphinx-proof and sphinx-exercise, and LaTeX would add a large TeX installation to every machine. The
HTML pages already have typeset math (the book's own MathJax), figures and the theme's print style, so
this script joins the articles of all pages in table-of-contents order into one print page, opens it in
headless Chromium (Debian's, driven by Playwright, every request outside the book refused), waits for
MathJax, opens every collapsed solution, checks the page, and prints it. Interactive widgets are left
out of the PDF (each chapter prints the same figure from its non-interactive call).

The print page is a book, not a pile of pages: a title page, a table of contents of chapters and their
sections, then the documents. Every ``id`` gets its document's prefix (``chapters-06_selection--...``),
so ids that repeat across pages stay unique, and every link between pages of the book becomes a link
inside the PDF; links to pages that are not printed (search, index) become plain text; external links
stay. Chromium writes the outline (bookmarks) from the headings; pypdf sets the title metadata, and
:func:`pdf_report` reads back pages, outline, and links (the test in tests/test_book_browser.py uses it).
Display formulas wider than the printed column are set in a smaller size until they fit.
"""

from __future__ import annotations

import argparse
import html as htmllib
import json
import posixpath
import re
import shutil
import sys
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


PRINT_PAGE = "chapters/_book_print.html"
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


def combined_page(html_dir: Path, docs: list[str], config: dict | None = None) -> tuple[Path, Counter, list]:
    """Write chapters/_book_print.html: title page, contents, and every document's article, linked inside."""
    config = config if config is not None else book_config()
    pages = {doc: (html_dir / f"{doc}.html").read_text(encoding="utf-8") for doc in docs}
    template_doc = next(d for d in docs if d.count("/") == 1)
    template = pages[template_doc]
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
    body = ('<article class="bd-article">' + front_matter(config, contents) + "\n".join(parts) + "</article>")
    page = ARTICLE.sub(lambda _: body, template, count=1)
    page = re.sub(r"<title>.*?</title>", f"<title>{htmllib.escape(config.get('title', ''))}</title>", page,
                  count=1, flags=re.S)
    page = page.replace("</head>", PRINT_CSS + "</head>", 1)
    out = html_dir / PRINT_PAGE
    out.write_text(page, encoding="utf-8")
    return out, counts, contents


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


def print_pdf(html_dir: Path, out_pdf: Path, *, chromium: str | None = None, docs: list[str] | None = None,
              browser=None) -> dict:
    """Build the print page, check it in the browser, print it to ``out_pdf``; return the checks.

    ``browser``: a Playwright Chromium already running (the browser tests pass theirs); else one is started.
    """
    from contextlib import nullcontext

    from playwright.sync_api import sync_playwright

    docs = docs or toc_documents()
    config = book_config()
    page_path, link_counts, contents = combined_page(html_dir, docs, config)
    chromium = chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None and browser is None:
        raise RuntimeError("Chromium is needed: apt-get install -y chromium")
    own = browser is None
    try:
        remote = []
        with sync_playwright() if own else nullcontext() as pw:
            if own:
                browser = pw.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            page = browser.new_page(viewport={"width": PRINT_WIDTH_PX, "height": 1400})
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
            checks["html_links"] = dict(link_counts)
            problems = []
            if checks["docs"] != len(docs):
                problems.append(f"{checks['docs']} documents in the print page, {len(docs)} in the table of contents")
            if checks["rawTex"]:
                problems.append(f"raw TeX left: {checks['rawTex']}")
            if checks["brokenImages"]:
                problems.append(f"images not loaded: {checks['brokenImages'][:3]}")
            if checks["hiddenSolutions"]:
                problems.append(f"{checks['hiddenSolutions']} solutions still hidden")
            if remote:
                problems.append(f"requests outside the book: {remote[:3]}")
            if checks["formulas"]["stillWide"] or checks["formulas"]["widePre"]:
                problems.append(f"cut at the page edge: formulas {checks['formulas']['stillWide'][:3]}, "
                                f"{checks['formulas']['widePre']} code blocks")
            if problems:
                page.close()
                if own:
                    browser.close()
                raise RuntimeError("the print page is not ready: " + "; ".join(problems))
            page.pdf(path=str(out_pdf), format="A4", print_background=True,
                     margin={"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"})
            page.close()
            if own:
                browser.close()
    finally:
        page_path.unlink(missing_ok=True)
    finish_pdf(out_pdf, contents, title=config.get("title", ""), author=config.get("author", ""))
    checks.update(pdf_report(out_pdf))
    checks["pdf_bytes"] = out_pdf.stat().st_size
    return checks


def finish_pdf(pdf: Path, contents: list, *, title: str, author: str) -> None:
    """Add the outline (bookmarks: Contents, then each document and its sections) and the book's metadata.

    Each bookmark goes to the named destination that Chromium wrote for the heading's id (the same one
    the table of contents links to); a heading without one is an error.
    """
    import logging

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import Fit

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    reader = PdfReader(str(pdf))
    named = reader.named_destinations
    writer = PdfWriter(clone_from=reader)

    def place(anchor):
        dest = named.get("/" + anchor)
        if dest is None:
            raise RuntimeError(f"no destination for the heading #{anchor} in the PDF")
        return reader.get_destination_page_number(dest), Fit.xyz(left=0, top=dest.top)

    writer.add_outline_item(title="Contents", page_number=1, fit=Fit.fit())  # the page after the title page
    for anchor, name, sections in contents:
        index, fit = place(anchor)
        parent = writer.add_outline_item(title=name, page_number=index, fit=fit)
        for sub_anchor, sub_name in sections:
            index, fit = place(sub_anchor)
            writer.add_outline_item(title=sub_name, page_number=index, parent=parent, fit=fit)
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


def pdf_report(pdf: Path) -> dict:
    """Pages, title, outline (entries, depth) and links of a PDF, read back with pypdf.

    Links: ``external`` (a URI other than file:), ``file`` (a file: URI: dead on any other machine),
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
                links["file" if str(uri).startswith("file:") else "external"] += 1
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
    return {"pdf_pages": len(reader.pages), "title": (reader.metadata or {}).get("/Title"),
            "outline_entries": entries, "outline_depth": depth, "outline_titles": titles,
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
