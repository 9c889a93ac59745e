"""Old page addresses keep working after the chapters were renumbered (a local Sphinx extension).

Until the chapter files were renamed so that a file's number is the number the book shows, seven of them
carried other numbers (``chapters/07_gaussian`` was shown as Chapter 8). Links to the old addresses, in
bookmarks, slides or homework sheets, land on a small page that forwards to the chapter's new address.
``OLD_TO_NEW`` is the only list of them; ``tests/test_book_browser.py`` checks every forwarding page.
"""

from __future__ import annotations

import html
from pathlib import Path

OLD_TO_NEW = {
    "03b_composition_basics": "04_composition_basics", "04_histograms": "05_histograms",
    "05_selection": "06_selection", "06_approximate_dp": "07_approximate_dp", "07_gaussian": "08_gaussian",
    "08_composition": "09_composition", "09_testing": "10_testing",
    "10_noise_on_a_computer": "11_noise_on_a_computer", "11_many_queries": "12_many_queries",
    "12_query_release": "13_query_release", "13_quantiles": "14_quantiles",
    "14_private_learning": "15_private_learning", "15_local_dp": "16_local_dp",
    "16_dp_at_scale": "17_dp_at_scale", "17_dp_in_the_world": "18_dp_in_the_world",
}

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Moved: {title}</title>
<meta name="robots" content="noindex">
<link rel="canonical" href="{target}">
<meta http-equiv="refresh" content="0; url={target}">
</head><body><p>This chapter has moved to <a href="{target}">{target}</a>.</p></body></html>
"""


def _forwarding_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / "chapters"
    for old, new in OLD_TO_NEW.items():
        if f"chapters/{old}" in app.env.found_docs or not (out / f"{new}.html").exists():
            continue  # never replace a page the book still has, never forward to a missing one
        target = html.escape(f"{new}.html")
        (out / f"{old}.html").write_text(_PAGE.format(title=html.escape(new), target=target), encoding="utf-8")


def setup(app):
    app.connect("build-finished", _forwarding_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
