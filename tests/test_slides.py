"""The lecture decks (tools/slides.py) render in a real browser, fit their slides, and stay offline.

A few decks are built into a temporary folder (never into _build/html) and opened in headless Chromium at
1280x720 with every request that would leave the machine refused and recorded. :func:`slides.check_deck`
shows every slide and reports an element outside the 1280x720 slide, a formula, code block or table wider
than its box, an image that did not load, raw TeX, an empty slide, a failed local file, a script error, and
each refused request; the tests assert that none is reported. ``test_check_catches_*`` shows on a deck
with a planted overflow, a remote image and a missing file that the same check reports each of them.
"""

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import slides  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DECKS = ["03", "09", "21"]   # many statements (09: nine lemmas; 21: ten theorems), figures, a live figure each

_missing = [why for why, ok in [("chromium is not installed (apt-get install -y chromium)", CHROMIUM),
                                ("reveal.js is not installed (npm ci)", (slides.REVEAL / "package.json").exists())]
            if not ok]
if _missing:
    if os.environ.get("CI"):
        pytest.fail("; ".join(_missing), pytrace=False)
    pytestmark = pytest.mark.skip(reason="; ".join(_missing))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("slides")
    report = slides.build(DECKS, out, pdf=False, workers=1)
    return out, report


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=slides.build_pdf.BROWSER_ARGS)
        yield chromium
        chromium.close()


def test_every_chapter_has_a_deck_plan():
    """Every chapter gives a title, learning goals, statements, figures, its live figure and a summary."""
    book = slides.read_book()
    for nb in slides.chapters():
        chosen, specs = slides.chapter_slides(nb, book)
        kinds = [s.kind for s in chosen]
        assert kinds[0] == "title" and "goals" in kinds, nb.name
        assert kinds.count("statement") >= 2 and kinds.count("figure") >= 1, (nb.name, kinds)
        assert len(specs) == 1 and kinds.count("explorer") == 1, nb.name
        assert kinds[-1] == "text" and chosen[-1].section == "Summary", nb.name


@pytest.mark.parametrize("number", DECKS)
def test_deck_renders_fits_and_stays_offline(built, browser, number):
    out, report = built
    deck = next(out.glob(f"{number}_*.html"))
    checks = slides.check_deck(browser, deck)
    assert checks["problems"] == [], checks["problems"]
    assert checks["remote_requests"] == [] and checks["failed"] == []
    assert checks["slides"] == report["decks"][deck.stem]["slides"] >= 10
    per = checks["per_slide"]
    assert sum(s["math"] for s in per) > 20           # typeset by the local MathJax
    assert sum(s["images"] for s in per) >= 3         # figures and the live figure's state
    assert checks["sliders"] >= 1
    assert min(s["fit"] for s in per) >= 0.6          # no slide set in tiny type to make it fit


def test_live_figure_moves_to_a_precomputed_state(built, browser):
    out, _ = built
    deck = next(out.glob("03_*.html"))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    remote, failed = [], []
    slides._guard(page, remote, failed)
    try:
        page.goto(deck.as_uri(), wait_until="load")
        page.wait_for_function("() => document.body.dataset.deckReady === '1'")
        index = page.evaluate("() => [...document.querySelectorAll('.reveal .slides > section')]"
                              ".findIndex(s => s.querySelector('.dpcourse-explorer-live'))")
        page.evaluate(f"() => Reveal.slide({index})")
        img = page.locator(".present img.dpcourse-explorer-figure")
        before = img.get_attribute("src")
        slider = page.locator(".present .dpcourse-explorer-live input[type=range]").first
        slider.evaluate("(el) => { el.value = String((Number(el.value) + 1) % (Number(el.max) + 1));"
                        " el.dispatchEvent(new Event('input')); }")
        page.wait_for_function("() => { const i = document.querySelector('.present img.dpcourse-explorer-figure');"
                               " return i.complete && i.naturalWidth > 0; }")
        after = img.get_attribute("src")
    finally:
        page.close()
    assert after != before and after.endswith(".png")
    assert (deck.parent / after).is_file()
    assert remote == [] and failed == []


def test_handout_has_one_page_per_slide(built, browser, tmp_path):
    out, report = built
    deck = next(out.glob("09_*.html"))
    result = slides.print_handout(browser, deck, tmp_path / "09.pdf")
    assert result["pages"] == report["decks"][deck.stem]["slides"]
    assert slides.build_pdf.pdf_report(tmp_path / "09.pdf")["title"]


def test_teacher_slides_are_merged_and_dropped(tmp_path, monkeypatch):
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "03_mine.md").write_text("---\nafter: thm-laplace-privacy\ndrop: [figure-1, Accuracy]\n---\n"
                                      "# My question\n\nWhy $\\varepsilon$?\n\n---\n# Second\n\nSee "
                                      "{prf:ref}`thm-laplace-privacy`.\n", encoding="utf-8")
    monkeypatch.setattr(slides, "EXTRA", extra)
    book = slides.read_book()
    nb = slides.chapters(["03"])[0]
    chosen, _ = slides.chapter_slides(nb, book)
    merged = slides.merge(chosen, slides.teacher_extras("03", book))
    labels = [s.label for s in merged]
    at = labels.index("thm-laplace-privacy")
    assert [s.title for s in merged[at + 1:at + 3]] == ["My question", "Second"]
    assert "Privacy of the Laplace mechanism" in merged[at + 2].body
    assert "figure-1" not in labels and not any(s.section == "Accuracy" for s in merged)
    assert "figure-1" in [s.label for s in chosen]
    (extra / "03_mine.md").write_text("---\nafter: no-such-label\n---\n# X\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no-such-label"):
        slides.merge(chosen, slides.teacher_extras("03", book))


def test_check_catches_overflow_remote_request_and_missing_file(tmp_path, monkeypatch, browser):
    """The check can fail: a slide too long to fit even in small type, an image from the internet and a
    local image that does not exist are each reported."""
    extra = tmp_path / "extra"
    extra.mkdir()
    long_text = "\n\n".join(f"Paragraph {i}: " + "the noise hides one record " * 12 for i in range(40))
    (extra / "04_bad.md").write_text(
        f"# Far too long\n\n{long_text}\n\n---\n# Remote\n\n![remote](https://example.org/remote.png)\n\n"
        "---\n# Missing\n\n<img src=\"04_composition_basics/nothing-here.png\" alt=\"x\">\n", encoding="utf-8")
    monkeypatch.setattr(slides, "EXTRA", extra)
    out = tmp_path / "out"
    slides.build(["04"], out, pdf=False, workers=1)
    checks = slides.check_deck(browser, next(out.glob("04_*.html")))
    problems = "\n".join(checks["problems"])
    assert "(Far too long): " in problems and "outside the slide" in problems
    assert "request leaving the machine: https://example.org/remote.png" in problems
    assert "nothing-here.png" in problems
    with pytest.raises(RuntimeError, match="not ready"):
        slides.print_handout(browser, next(out.glob("04_*.html")), tmp_path / "bad.pdf")


def test_assets_are_local_and_pinned(built):
    out, _ = built
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/reveal.js"]["version"] == slides.REVEAL_VERSION
    assert (out / "assets" / "reveal" / "reveal.js").is_file()
    assert (out / "assets" / "mathjax" / "startup.js").is_file()
    for deck in out.glob("*.html"):
        page = deck.read_text(encoding="utf-8")
        assert "https://" not in page.split("<body>")[0], deck.name   # nothing loaded from a CDN
