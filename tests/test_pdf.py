"""tools/build_pdf.py without a browser: the link rewriting of the print page (cheap).

The printed PDF itself (outline, links read back with pypdf, title) is checked on a short book in
tests/test_book_browser.py, which has the built HTML.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import build_pdf  # noqa: E402

DOCS = {"intro", "chapters/01_promise", "chapters/02_randomized_response"}


def test_links_between_printed_pages_point_inside_the_print_page():
    article = ('<section id="sec"><h2>S</h2><a href="#sec">here</a> <a href="02_randomized_response.html#rr">rr</a> '
               '<a href="../intro.html">intro</a> <a href="../genindex.html">index</a> '
               '<a href="https://doi.org/x">doi</a> <img src="../_images/a.png"></section>')
    out, counts = build_pdf.rewrite_links(article, "chapters/01_promise", DOCS)
    assert 'id="chapters-01_promise--sec"' in out and 'href="#chapters-01_promise--sec"' in out
    assert 'href="#chapters-02_randomized_response--rr"' in out and 'href="#intro"' in out
    assert "genindex" not in out and '<a>index</a>' in out          # a page that is not printed: plain text
    assert 'href="https://doi.org/x"' in out and 'src="../_images/a.png"' in out
    assert counts == {"internal": 3, "external": 1, "dropped": 1}


def test_a_root_page_keeps_its_images_from_the_print_page_in_chapters():
    out, _ = build_pdf.rewrite_links('<img src="_images/b.png"><a href="chapters/01_promise.html#x">x</a>', "intro", DOCS)
    assert 'src="../_images/b.png"' in out and 'href="#chapters-01_promise--x"' in out


def test_contents_lists_chapters_and_sections_with_internal_links():
    html = build_pdf.front_matter({"title": "T & co", "author": "A"},
                                  [("intro--t", "T", [("intro--s", "S")]), ("chapters-01_promise--p", "1. P", [])])
    assert "T &amp; co" in html and 'href="#intro--s"' in html and 'href="#chapters-01_promise--p"' in html
    assert html.count("<li>") == 3
