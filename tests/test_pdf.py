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


def test_parts_group_consecutive_documents_within_the_budget():
    parts = ["a" * 50, "b" * 30, "c" * 30, "d" * 200, "e" * 10]
    assert build_pdf.chunk_documents(parts, 80) == [[0, 1], [2], [3], [4]]
    assert build_pdf.chunk_documents(parts, 10**6) == [[0, 1, 2, 3, 4]]
    assert build_pdf.chunk_documents(parts, 1) == [[0], [1], [2], [3], [4]]


def test_links_between_parts_are_marked_and_their_targets_get_a_destination():
    bodies = ['<section id="a"><a href="#a">self</a> <a href="#b--x">to b</a> <a href="#gone">none</a></section>',
              '<section id="b"><p id="b--x">x</p><a href="#a">back</a></section>']
    out, crossing = build_pdf.link_across(bodies)
    assert crossing == 2
    assert 'href="#a">self' in out[0] and 'href="#gone"' in out[0]      # same part, or no target: unchanged
    assert f'href="{build_pdf.CROSS_LINK}b--x">to b' in out[0] and f'href="{build_pdf.CROSS_LINK}a">back' in out[1]
    # each part links (hidden) to its ids that the other part targets, so that Chromium writes their destinations
    assert out[0].endswith('<a href="#a"></a></div>') and out[1].endswith('<a href="#b--x"></a></div>')
    assert 'display: none' in out[1] and '<a href="#b"></a>' not in out[1]


def test_print_work_is_shared_largest_first():
    assert build_pdf._shares([5, 1, 4, 2], 2) == [[0, 1], [2, 3]]   # loads 6 and 6
    assert build_pdf._shares([3], 2) == [[0]]
