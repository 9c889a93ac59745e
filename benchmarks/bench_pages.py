"""Reader-side numbers of the rendered book: page weight and how fast a live figure follows its slider.

For every chapter page, in headless Chromium (Debian's, driven by Playwright, offline):

* first-load weight: the bytes of every file the page requests until it is loaded and MathJax has
  typeset it (the figures of slider settings not yet shown are not loaded, so not counted), as stored
  and as a static host that compresses text with gzip would send them (level 6; images and fonts
  counted as stored);
* for every slider of every live figure (dpcourse.plots.explorer): the time from moving the slider to
  the new figure being decoded and shown, median over a few moves.

Targets (issue 12): < 2 MB per page without widget states; < 300 ms from slider to figure for
precomputed figures. Run after a build:

    jupyter-book build -W -n --keep-going . && python benchmarks/bench_pages.py [--html _build/html]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "_ext"))
from old_addresses import OLD_TO_NEW  # noqa: E402
TEXT = {".html", ".js", ".css", ".svg", ".json", ".txt"}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]

MOVE_JS = """async ([boxIndex, inputIndex, value]) => {
  const box = document.querySelectorAll('.dpcourse-explorer-live')[boxIndex];
  const input = box.querySelectorAll('input[type=range]')[inputIndex];
  const img = box.querySelector('img.dpcourse-explorer-figure');
  const before = img.src;
  const t0 = performance.now();
  input.value = String(value);
  input.dispatchEvent(new Event('input', {bubbles: true}));
  if (img.src === before) return {changed: false, ms: 0};
  await img.decode();
  return {changed: true, ms: performance.now() - t0};
}"""


def measure(html_dir: Path):
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=ARGS)
        # not the small pages that forward an old address to a renumbered chapter (they navigate away at once)
        for page_path in sorted(p for p in (html_dir / "chapters").glob("*.html")
                                if not p.name.startswith("_") and p.stem not in OLD_TO_NEW):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            files = []
            page.on("request", lambda r: files.append(r.url) if r.url.startswith("file:") else None)
            page.goto(page_path.as_uri(), wait_until="load")
            page.evaluate("() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : null")
            paths = [Path(unquote(urlparse(u).path)) for u in set(files)]
            paths = [p for p in paths if p.is_file()]
            weight = sum(p.stat().st_size for p in paths)
            sent = sum(len(gzip.compress(p.read_bytes(), 6)) if p.suffix in TEXT else p.stat().st_size for p in paths)
            times = []
            boxes = page.evaluate("() => [...document.querySelectorAll('.dpcourse-explorer-live')].map("
                                  "b => [...b.querySelectorAll('input[type=range]')].map(i => Number(i.max)))")
            for b, maxima in enumerate(boxes):
                for i, top in enumerate(maxima):
                    for value in sorted({0, top, top // 2}):
                        res = page.evaluate(MOVE_JS, [b, i, value])
                        if res["changed"]:
                            times.append(res["ms"])
            covered = page.evaluate("() => [...document.querySelectorAll('img.dpcourse-explorer-figure')].reduce("
                                    "(s, i) => s + Number(i.dataset.statesWithLegendOverData || 0), 0)")
            rows.append((page_path.name, weight, sent, len(boxes), times, covered))
            page.close()
        browser.close()
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--html", default=str(ROOT / "_build" / "html"))
    args = parser.parse_args()
    rows = measure(Path(args.html))
    print(f"{'page':34s} {'stored':>9s} {'gzipped':>9s} {'live figs':>9s} {'slider->figure (median, max)':>30s} "
          f"{'states w/ legend over data':>27s}")
    for name, weight, sent, boxes, times, covered in rows:
        lat = f"{statistics.median(times):6.1f} ms, {max(times):6.1f} ms" if times else "-"
        print(f"{name:34s} {weight / 1e6:6.2f} MB {sent / 1e6:6.2f} MB {boxes:9d} {lat:>30s} {covered:27d}")
    print(f"live-figure states with a legend over data: {sum(r[5] for r in rows)} (goal 0)")
    heaviest = max(r[1] for r in rows)
    heaviest_sent = max(r[2] for r in rows)
    all_times = [t for r in rows for t in r[4]]
    print(f"heaviest page {heaviest / 1e6:.2f} MB stored, {heaviest_sent / 1e6:.2f} MB gzipped (target < 2 MB); "
          f"slider to figure: median "
          f"{statistics.median(all_times) if all_times else float('nan'):.1f} ms, max "
          f"{max(all_times) if all_times else float('nan'):.1f} ms over {len(all_times)} moves (target < 300 ms)")


if __name__ == "__main__":
    main()
