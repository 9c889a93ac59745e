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
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
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
</style>
"""


def toc_documents(root: Path = ROOT) -> list[str]:
    """The documents of the book in reading order: the root, then every file of every part."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    docs = [toc["root"]]
    for part in toc.get("parts", []):
        docs += [entry["file"] for entry in part.get("chapters", [])]
    return docs


def _relocate(article: str, doc: str) -> str:
    """Rewrite relative URLs of a page so that they work from the print page in chapters/."""
    depth = doc.count("/")
    if depth == 1:
        return article
    # a root-level page: its relative links are one level up from chapters/
    return re.sub(r'(src|href)="(?!(?:https?:|data:|#|\.\./|mailto:))', r'\1="../', article)


def combined_page(html_dir: Path, docs: list[str]) -> Path:
    """Write chapters/_book_print.html: the first chapter's page with every document's article in it."""
    pages = {doc: (html_dir / f"{doc}.html").read_text(encoding="utf-8") for doc in docs}
    template_doc = next(d for d in docs if d.count("/") == 1)
    template = pages[template_doc]
    parts = []
    for doc in docs:
        match = ARTICLE.search(pages[doc])
        if match is None:
            raise RuntimeError(f"{doc}.html has no <article class=\"bd-article\">")
        parts.append(f'<section class="dpcourse-print-doc" data-doc="{doc}">{_relocate(match.group(1), doc)}</section>')
    body = '<article class="bd-article">' + "\n".join(parts) + "</article>"
    page = ARTICLE.sub(lambda _: body, template, count=1)
    page = page.replace("</head>", PRINT_CSS + "</head>", 1)
    out = html_dir / "chapters" / "_book_print.html"
    out.write_text(page, encoding="utf-8")
    return out


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


def print_pdf(html_dir: Path, out_pdf: Path, *, chromium: str | None = None) -> dict:
    """Build the print page, check it in the browser, print it to ``out_pdf``; return the checks."""
    from playwright.sync_api import sync_playwright

    docs = toc_documents()
    page_path = combined_page(html_dir, docs)
    chromium = chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("Chromium is needed: apt-get install -y chromium")
    try:
        remote = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
            page = browser.new_page(viewport={"width": 1100, "height": 1400})

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
            checks["remote_requests"] = remote
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
            if problems:
                browser.close()
                raise RuntimeError("the print page is not ready: " + "; ".join(problems))
            page.pdf(path=str(out_pdf), format="A4", print_background=True,
                     margin={"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"})
            browser.close()
    finally:
        page_path.unlink(missing_ok=True)
    data = out_pdf.read_bytes()
    checks["pdf_pages"] = len(re.findall(rb"/Type\s*/Page[^s]", data))
    checks["pdf_bytes"] = len(data)
    return checks


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
    print(f"wrote {out} in {time.perf_counter() - t0:.1f} s: {checks['pdf_pages']} pages, "
          f"{checks['pdf_bytes'] / 1e6:.1f} MB; {checks['docs']} documents, {checks['math']} formulas, "
          f"{checks['images']} images, {checks['solutions']} solutions shown")
    if args.json:
        print(json.dumps(checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
