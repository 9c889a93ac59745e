"""A lecture deck for every chapter, built from the chapter's own cells (reveal.js, offline), and its PDF handout.

Usage (offline; needs ``npm ci`` for reveal.js and Debian's ``chromium`` for the PDF handouts)::

    python tools/slides.py                     # every chapter: _build/html/slides/NN_name.html and .pdf
    python tools/slides.py 03 09               # only chapters 03 and 09
    python tools/slides.py --no-pdf            # the HTML decks only

Nothing is written twice: a deck is read from the stored notebook every time it is built. What goes into it
is chosen from the chapter's existing structure, so that no chapter needs editing:

* a title slide (the chapter's title) and its learning goals (the ``Learning goals`` admonition);
* every ``prf:definition``, ``prf:theorem``, ``prf:lemma``, ``prf:corollary`` and ``prf:proposition``, one
  slide each, titled by its kind and title (proofs stay in the book);
* every figure that a code cell stored (``image/png``), captioned like the book (the first sentence of the
  docstring of the ``dpcourse.plots`` function that drew it);
* the chapter's live figure (a ``dpcourse.plots.explorer`` placeholder): its sliders and the same states
  the book shows, drawn by ``booktools.states`` into the build's cache ``_build/.explorers/`` (shared
  with the book build, so a state drawn by either is drawn once);
* the summary, split into slides by paragraph.

Sections whose heading starts with "Deeper" and the exercises, self-check and references sections are left
out. Cell tags change the choice: ``slide`` puts the whole cell on a slide of its own (also in a left-out
section; for a code cell: its source and outputs), ``no-slide`` leaves a cell out.

A teacher adds slides without forking a chapter: ``slides/extra/NN_anything.md`` (NN is the chapter's number;
files starting with ``_`` are ignored) holds slides separated by lines ``---``, written in the same MyST as the
chapters (``$math$``, ``{prf:ref}``, ``{cite}``, directives, images beside the file). Its optional front matter
says where they go and which chosen slides to drop (see ``slides/extra/_template.md``).

reveal.js (npm, pinned in package-lock.json) and MathJax (the book's copy from sphinx-mathjax-offline) are
copied to ``slides/assets/`` of the output, so a deck opens from the file system or any static host with
nothing fetched. The PDF handout (one slide per page) is printed with headless Chromium through Playwright, like
``tools/build_pdf.py`` (whose browser flags, worker split and PDF report this script reuses), after
:func:`check_deck` found every slide rendered, inside its 1280x720 box, and no request leaving the machine.
"""

from __future__ import annotations

import argparse
import html as htmllib
import json
import re
import shutil
import string
import sys
import time
from base64 import b64decode
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "_ext", ROOT / "tools"):
    if str(_path) not in sys.path:
        sys.path.append(str(_path))

import build_pdf  # noqa: E402  (tools/build_pdf.py: browser flags, worker split, PDF report)

CHAPTERS = ROOT / "chapters"
SLIDES = ROOT / "slides"
EXTRA = SLIDES / "extra"
OUT = ROOT / "_build" / "html" / "slides"
EXPLORER_CACHE = ROOT / "_build" / ".explorers"
REVEAL = ROOT / "node_modules" / "reveal.js"
REVEAL_VERSION = "6.0.2"

STATEMENTS = {"prf:definition": "Definition", "prf:theorem": "Theorem", "prf:lemma": "Lemma",
              "prf:corollary": "Corollary", "prf:proposition": "Proposition"}
LEFT_OUT_SECTIONS = re.compile(r"^(Deeper\b|Exercises\b|Self-check\b|References\b)", re.I)
FENCE = re.compile(r"^(`{3,}|:{3,})\{([\w:-]+)\}[ \t]*(.*)$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
EXPLORER = re.compile(r'<div class="dpcourse-explorer" data-spec="([^"]*)">')
SUMMARY_CHARS = 900   # a summary slide holds about this much source text (then fitted by deck.js)


# ---------------------------------------------------------------------------------------------------------
# MyST, as far as a slide needs it

@dataclass
class Directive:
    name: str
    argument: str
    options: dict
    body: str


def split_directives(text: str) -> list:
    """``text`` as a list of markdown strings and :class:`Directive` blocks (MyST fences ```` ```{name} ```` and
    ``:::{name}``, closed by the same fence; nested fences must be longer or of the other kind, as in MyST)."""
    lines, out, plain, i = text.split("\n"), [], [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            plain.append(lines[i])
            i += 1
            continue
        fence, name, argument = m.group(1), m.group(2), m.group(3).strip()
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        body = lines[i + 1:j]
        options = {}
        while body and re.match(r"^:[\w-]+:", body[0]):
            key, _, value = body.pop(0)[1:].partition(":")
            options[key] = value.strip()
        if plain:
            out.append("\n".join(plain))
            plain = []
        out.append(Directive(name, argument, options, "\n".join(body).strip("\n")))
        i = j + 1
    if plain:
        out.append("\n".join(plain))
    return out


@lru_cache(maxsize=None)
def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    def math(content, options):
        content = htmllib.escape(content)
        return (f'<div class="deck-math">\\[{content}\\]</div>' if options.get("display_mode")
                else f"\\({content}\\)")

    md = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
    dollarmath_plugin(md, renderer=math, allow_labels=True)
    amsmath_plugin(md)
    return md


@dataclass
class Book:
    """What the roles of one chapter's MyST point to: labels, documents and references of the whole book."""
    labels: dict = field(default_factory=dict)     # label -> (kind, title)
    titles: dict = field(default_factory=dict)     # document (e.g. "03_laplace") -> its title
    cites: dict = field(default_factory=dict)      # bibtex key -> "Author Year"

    def role(self, name: str, text: str) -> str:
        shown, _, target = text.partition(" <")
        target = target.rstrip(">") if target else None
        if name == "cite":
            return "[" + "; ".join(self.cites.get(k.strip(), k.strip()) for k in text.split(",")) + "]"
        if name in ("prf:ref", "ref", "numref"):
            if target:
                return htmllib.escape(shown)
            kind, title = self.labels.get(text, ("", text))
            return htmllib.escape(f"{kind} ({title})" if kind and title else title or kind or text)
        if name == "doc":
            if target:
                return f"<em>{htmllib.escape(shown)}</em>"
            return f"<em>{htmllib.escape(self.titles.get(Path(text).name, text))}</em>"
        return htmllib.escape(shown)   # term, eq, and any other role: its text

    def render(self, text: str) -> str:
        """HTML of MyST markdown: roles resolved to text, math left to MathJax, directives as boxes."""
        parts = []
        for block in split_directives(text):
            if isinstance(block, Directive):
                parts.append(self.box(block))
            else:
                parts.append(_markdown().render(ROLE.sub(lambda m: self.role(m.group(1), m.group(2)), block)))
        return "".join(parts)

    def box(self, d: Directive) -> str:
        if d.name in ("quiz", "quiz-answers", "solution", "exercise", "exercise-start", "solution-start"):
            return ""
        if d.name == "math":
            return f'<div class="deck-math">\\[{htmllib.escape(d.body)}\\]</div>'
        kind = STATEMENTS.get(d.name) or ("Proof" if d.name == "prf:proof" else d.argument or d.name.title())
        title = f"{kind}: {d.argument}" if d.name in STATEMENTS and d.argument else kind
        cls = d.name.replace(":", "-") if d.name.startswith("prf:") else "admonition"
        return (f'<div class="deck-box {cls}"><p class="deck-box-title">{self.inline(title)}</p>'
                f"{self.render(d.body)}</div>")

    def inline(self, text: str) -> str:
        html = self.render(text).strip()
        return html[3:-4] if html.startswith("<p>") and html.endswith("</p>") else html


def _cell_source(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def read_book() -> Book:
    """Labels (``:label:`` of every directive, MyST targets ``(label)=``) and titles of every chapter, and
    author-year names of every reference (references.bib)."""
    book = Book()
    for nb in sorted(CHAPTERS.glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "markdown":
                continue
            text = _cell_source(cell)
            if nb.stem not in book.titles:
                m = re.search(r"^# (.+)$", text, re.M)
                if m:
                    book.titles[nb.stem] = m.group(1).strip()
            for block in split_directives(text):
                if isinstance(block, Directive) and "label" in block.options:
                    kind = STATEMENTS.get(block.name, "Exercise" if "exercise" in block.name else "")
                    book.labels[block.options["label"]] = (kind, block.argument)
    try:
        from pybtex.database import parse_file

        for key, entry in parse_file(str(ROOT / "references.bib")).entries.items():
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
            who = names[0] + (" et al." if len(names) > 2 else f" & {names[1]}" if len(names) == 2 else "") \
                if names else key
            book.cites[key] = f"{who} {entry.fields.get('year', '')}".strip()
    except Exception:  # noqa: BLE001 - a reference without a year or author keeps its key
        pass
    return book


# ---------------------------------------------------------------------------------------------------------
# choosing the slides

@dataclass
class Slide:
    kind: str                 # title, goals, statement, figure, explorer, text, cell, extra
    title: str                # plain text
    body: str                 # HTML
    section: str = ""         # the chapter's section (plain text)
    label: str = ""           # a directive's label, for teachers' "after:" and "drop:"
    images: dict = field(default_factory=dict)   # file name in the deck folder -> bytes


def _plain(book: Book, text: str) -> str:
    return re.sub(r"<[^>]+>", "", htmllib.unescape(book.inline(text)))


def _tags(cell) -> set:
    return set(cell.get("metadata", {}).get("tags", []))


def chapter_slides(nb_path: Path, book: Book) -> tuple[list[Slide], list[str]]:
    """The slides chosen from one chapter (see the module docstring) and the explorer specs they show."""
    from course_html import PLOTS_IMPORT, _plot_caption

    cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
    aliases = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            for m in PLOTS_IMPORT.finditer(_cell_source(cell)):
                module, alias = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
                aliases[alias] = module
    title = book.titles.get(nb_path.stem, nb_path.stem)
    number = nb_path.stem.split("_")[0]
    slides = [Slide("title", title, f'<p class="deck-kicker">Chapter {int(number)}</p><h1>{htmllib.escape(title)}</h1>'
                    f'<p class="deck-source">{htmllib.escape(_book_title())}</p>')]
    h2 = h3 = ""
    summary, specs, figures = [], [], 0
    for cell in cells:
        tags, text = _tags(cell), _cell_source(cell)
        section = h3 or h2
        left_out = bool(LEFT_OUT_SECTIONS.match(h2) or LEFT_OUT_SECTIONS.match(h3))
        if cell["cell_type"] == "markdown":
            blocks = split_directives(text)
            if "slide" in tags:
                slides.append(_cell_slide(book, cell, section, blocks))
            for block in blocks:
                if isinstance(block, str):
                    for line in block.split("\n"):
                        m = HEADING.match(line)
                        if m and len(m.group(1)) == 2:
                            h2, h3 = _plain(book, m.group(2)), ""
                        elif m and len(m.group(1)) == 3:
                            h3 = _plain(book, m.group(2))
                    if h2.lower() == "summary" and "no-slide" not in tags and "slide" not in tags:
                        summary.append(re.sub(r"^## .*$", "", block, flags=re.M))
                    continue
                section = h3 or h2
                left_out = bool(LEFT_OUT_SECTIONS.match(h2) or LEFT_OUT_SECTIONS.match(h3))
                if tags & {"slide", "no-slide"} or left_out:
                    continue
                if block.name in STATEMENTS:
                    kind = STATEMENTS[block.name]
                    shown = f"{kind}: {_plain(book, block.argument)}" if block.argument else kind
                    slides.append(Slide("statement", shown, f'<div class="deck-box {block.name.replace(":", "-")}">'
                                        f"{book.render(block.body)}</div>", section, block.options.get("label", "")))
                elif block.name == "admonition" and block.argument.lower().startswith("learning goals"):
                    slides.append(Slide("goals", block.argument, book.render(block.body), "", "learning-goals"))
            continue
        if cell["cell_type"] != "code" or "no-slide" in tags:
            continue
        if "slide" in tags:
            slides.append(_code_slide(cell, section))
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            page = "".join(data.get("text/html", "")) if isinstance(data.get("text/html"), list) \
                else data.get("text/html", "")
            m = EXPLORER.search(page or "")
            if m and not specs:
                specs.append(htmllib.unescape(m.group(1)))
                slides.append(Slide("explorer", section or "Try it", "", section, "explorer"))
            elif "image/png" in data and not left_out:
                figures += 1
                name = f"fig{figures}.png"
                caption = _plot_caption(aliases, text) or ""
                slides.append(Slide("figure", section, caption, section, f"figure-{figures}",
                                    {name: b64decode(data["image/png"])}))
    chunks, size = [[]], 0
    for paragraph in (p.strip() for p in "\n\n".join(summary).split("\n\n")):
        if not paragraph:
            continue
        if chunks[-1] and size + len(paragraph) > SUMMARY_CHARS:
            chunks.append([])
            size = 0
        chunks[-1].append(paragraph)
        size += len(paragraph)
    for i, chunk in enumerate(c for c in chunks if c):
        slides.append(Slide("text", "Summary" + (f" ({i + 1})" if len(chunks) > 1 else ""),
                            book.render("\n\n".join(chunk)), "Summary", f"summary-{i + 1}"))
    return slides, specs


def _cell_slide(book: Book, cell, section: str, blocks: list) -> Slide:
    text = _cell_source(cell)
    m = next((HEADING.match(line) for line in text.split("\n") if HEADING.match(line)), None)
    title = _plain(book, m.group(2)) if m else section
    body = re.sub(r"^#{1,6}\s.*$", "", text, count=1, flags=re.M) if m else text
    return Slide("cell", title, book.render(body), section, cell.get("id", ""))


def _code_slide(cell, section: str) -> Slide:
    parts = [f'<pre><code class="language-python">{htmllib.escape(_cell_source(cell))}</code></pre>']
    images = {}
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(f'<pre class="deck-output"><code>{htmllib.escape("".join(output["text"]))}</code></pre>')
        elif "image/png" in output.get("data", {}):
            name = f"cell-{cell.get('id', len(images))}-{len(images)}.png"
            images[name] = b64decode(output["data"]["image/png"])
            parts.append(f'<div class="deck-figure"><img src="@@/{name}" alt="output of the cell"></div>')
        elif "text/plain" in output.get("data", {}):
            parts.append(f'<pre class="deck-output"><code>{htmllib.escape("".join(output["data"]["text/plain"]))}'
                         "</code></pre>")
    return Slide("cell", section, "".join(parts), section, cell.get("id", ""), images)


@lru_cache(maxsize=None)
def _book_title() -> str:
    return build_pdf.book_config().get("title", "")


# ---------------------------------------------------------------------------------------------------------
# teachers' own slides

def teacher_extras(number: str, book: Book) -> list[tuple[dict, list[Slide], Path]]:
    """Each ``slides/extra/NN_*.md`` of chapter ``number``: its front matter, its slides and its path."""
    import yaml

    found = []
    for path in sorted(EXTRA.glob(f"{number}_*.md")):
        text = path.read_text(encoding="utf-8")
        meta = {}
        m = re.match(r"^---\n(.*?)\n---\n", text, re.S)
        if m:
            loaded = yaml.safe_load(m.group(1))
            if isinstance(loaded, dict):
                meta, text = loaded, text[m.end():]
        slides = []
        for chunk in re.split(r"^---\s*$", text, flags=re.M):
            if not chunk.strip():
                continue
            head = HEADING.search(chunk.strip().split("\n")[0])
            title = _plain(book, head.group(2)) if head else ""
            body = chunk.strip().split("\n", 1)[1] if head and "\n" in chunk.strip() else ("" if head else chunk)
            images = {}

            def local_image(match, images=images):
                src = match.group(2)
                if re.match(r"^[a-z]+:", src) or not (path.parent / src).is_file():
                    return match.group(0)
                name = f"extra-{path.stem}-{Path(src).name}"
                images[name] = (path.parent / src).read_bytes()
                return f"{match.group(1)}@@/{name})"

            body = re.sub(r"(!\[[^\]]*\]\()([^)\s]+)\)", local_image, body)
            slides.append(Slide("extra", title, book.render(body), "", "", images))
        found.append((meta, slides, path))
    return found


def merge(slides: list[Slide], extras: list) -> list[Slide]:
    """The chapter's slides with the teacher's: ``drop`` removes chosen slides (by label such as
    ``thm-laplace-privacy``, ``figure-2``, ``explorer``, ``summary-1``, or by section title); ``after`` places a
    file's slides after the last slide of that label or section (default: before the summary)."""
    drop = {str(d).lower() for meta, _, _ in extras for d in (meta.get("drop") or [])}
    slides = [s for s in slides if s.kind == "title" or not ({s.label.lower(), s.section.lower()} & drop)]
    for meta, extra, path in extras:
        after = str(meta.get("after", "")).lower()
        if after:
            places = [i for i, s in enumerate(slides) if after in (s.label.lower(), s.section.lower())]
            if not places:
                raise ValueError(f"{path.name}: after: {meta['after']!r} names no slide of the chapter")
            at = places[-1] + 1
        else:
            at = next((i for i, s in enumerate(slides) if s.section == "Summary"), len(slides))
        slides[at:at] = extra
    return slides


# ---------------------------------------------------------------------------------------------------------
# writing the decks

def _slide_html(slide: Slide, stem: str, explorers: dict) -> str:
    kicker = f'<p class="deck-kicker">{htmllib.escape(slide.section)}</p>' if slide.section and \
        not slide.title.startswith(slide.section) else ""
    heading = f"<h2>{htmllib.escape(slide.title)}</h2>" if slide.title else ""
    extra = ' class="deck-extra"' if slide.kind == "extra" else ""
    if slide.kind == "title":
        return f'<section class="deck-title"><div class="deck-body">{slide.body}</div></section>'
    if slide.kind == "figure":
        (name,) = slide.images
        caption = htmllib.escape(slide.body)
        return (f'<section><div class="deck-body deck-fill">{kicker}{heading}<div class="deck-figure">'
                f'<img src="{stem}/{name}" alt="{("Figure: " + caption) if caption else "Figure"}"></div>'
                f'<p class="deck-caption">{caption}</p></div></section>')
    if slide.kind == "explorer":
        return f'<section><div class="deck-body deck-fill">{kicker}{heading}{explorers[stem]}</div></section>'
    body = slide.body.replace('src="@@/', f'src="{stem}/').replace("](@@/", f"]({stem}/")
    return f"<section{extra}><div class=\"deck-body\">{kicker}{heading}{body}</div></section>"


def copy_assets(out: Path) -> None:
    """reveal.js (node_modules, from ``npm ci``), the book's MathJax, course.js and the deck's own files."""
    assets = out / "assets"
    package = json.loads((REVEAL / "package.json").read_text()) if (REVEAL / "package.json").exists() else {}
    if package.get("version") != REVEAL_VERSION:
        raise RuntimeError(f"reveal.js {REVEAL_VERSION} is needed in node_modules: run `npm ci`")
    (assets / "reveal" / "theme").mkdir(parents=True, exist_ok=True)
    for name in ("reveal.js", "reveal.css", "theme/white.css"):
        shutil.copyfile(REVEAL / "dist" / name, assets / "reveal" / name)
    shutil.copyfile(REVEAL / "LICENSE", assets / "reveal" / "LICENSE")
    mathjax = _mathjax_source()
    target = assets / "mathjax"
    if not (target / "startup.js").exists():
        # the components the book loads (and what they load: core, TeX extensions by autoload, CHTML fonts);
        # not the combined bundles nor the speech rule engine (3.9 MB) that the book does not load either
        shutil.copytree(mathjax, target, dirs_exist_ok=True,
                        ignore=lambda d, names: [n for n in names if n == "sre" or (
                            Path(d) == mathjax and n.endswith(".js") and n not in ("startup.js", "core.js", "loader.js"))])
    shutil.copyfile(ROOT / "_static" / "course.js", assets / "course.js")
    for name in ("deck.css", "deck.js"):
        shutil.copyfile(SLIDES / name, assets / name)


def _mathjax_source() -> Path:
    built = ROOT / "_build" / "html" / "_static" / "mathjax"
    if (built / "startup.js").exists():
        return built
    import importlib.util

    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("MathJax not found: install requirements.txt (sphinx-mathjax-offline)")
    return Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax"


def _render_explorer(spec_json: str):
    from course_html import _render_spec

    return _render_spec(spec_json, str(EXPLORER_CACHE))


def chapters(selected: list[str] | None = None) -> list[Path]:
    found = sorted(CHAPTERS.glob("[0-9][0-9]_*.ipynb"))
    if selected:
        found = [p for p in found if any(p.stem.startswith(s) for s in selected)]
    return found


def build(selected: list[str] | None = None, out: Path = OUT, *, pdf: bool = True, workers: int = 2) -> dict:
    """Write the decks of the selected chapters (all by default) into ``out``; return what was built."""
    from course_html import _explorer_html

    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(out)
    book = read_book()
    template = string.Template((SLIDES / "template.html").read_text(encoding="utf-8"))
    decks, all_specs = {}, {}
    for nb in chapters(selected):
        slides, specs = chapter_slides(nb, book)
        slides = merge(slides, teacher_extras(nb.stem.split("_")[0], book))
        decks[nb.stem] = slides
        all_specs[nb.stem] = specs
    with ProcessPoolExecutor(max_workers=workers) as pool:   # live-figure states, from the shared cache
        jobs = {stem: pool.submit(_render_explorer, specs[0]) for stem, specs in all_specs.items() if specs}
        rendered = {stem: job.result() for stem, job in jobs.items()}
    report = {"decks": {}}
    for stem, slides in decks.items():
        folder = out / stem
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        explorers = {}
        if stem in rendered:
            key, names, sizes = rendered[stem]
            (folder / "explorer").mkdir()
            for name in names:
                shutil.copyfile(EXPLORER_CACHE / key / name, folder / "explorer" / name)
            explorers[stem] = _explorer_html(json.loads(all_specs[stem][0]), f"{stem}/", "explorer", sizes)
        for slide in slides:
            for name, data in slide.images.items():
                (folder / name).write_bytes(data)
        page = template.substitute(title=htmllib.escape(slides[0].title),
                                   slides="\n".join(_slide_html(s, stem, explorers) for s in slides))
        (out / f"{stem}.html").write_text(page, encoding="utf-8")
        report["decks"][stem] = {"slides": len(slides),
                                 "kinds": {k: sum(s.kind == k for s in slides) for k in dict.fromkeys(s.kind for s in slides)}}
    report["html_seconds"] = time.perf_counter() - t0
    if pdf:
        t1 = time.perf_counter()
        report["pdf"] = print_handouts(out, list(decks), workers=workers)
        report["pdf_seconds"] = time.perf_counter() - t1
    report["seconds"] = time.perf_counter() - t0
    report["bytes"] = {"assets": _size(out / "assets"),
                       "decks": sum(_size(out / s) + (out / f"{s}.html").stat().st_size for s in decks),
                       "pdfs": sum((out / f"{s}.pdf").stat().st_size for s in decks if (out / f"{s}.pdf").exists())}
    return report


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ---------------------------------------------------------------------------------------------------------
# checking in the browser, printing the handouts

CHECK_SLIDE_JS = """() => {
  const frame = document.querySelector('.reveal .slides').getBoundingClientRect();
  const slide = Reveal.getCurrentSlide();
  const out = [];
  const scale = Reveal.getScale();
  for (const el of [slide, ...slide.querySelectorAll('*')]) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;   // draws nothing (MathJax's stretchy-glyph extenders)
    if (el.closest('.visually-hidden, mjx-assistive-mml')) continue;
    if (r.left < frame.left - 1 || r.top < frame.top - 1 || r.right > frame.right + 1 || r.bottom > frame.bottom + 1) {
      out.push(`${el.tagName.toLowerCase()}.${el.className || ''} outside the slide by `
        + Math.round(Math.max(frame.left - r.left, frame.top - r.top, r.right - frame.right, r.bottom - frame.bottom) / scale) + ' px');
      break;
    }
  }
  for (const el of slide.querySelectorAll('mjx-container[display="true"], pre, table')) {
    if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName.toLowerCase()} wider than its box`);
  }
  const imgs = [...slide.querySelectorAll('img')];
  const text = slide.innerText;
  return {overflow: out, images: imgs.length,
          broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
          rawTex: ['\\\\(', '\\\\[', '$$'].filter(s => text.includes(s)),
          math: slide.querySelectorAll('mjx-container').length, fit: Number(slide.dataset.fit || 1),
          empty: text.trim().length === 0 && imgs.length === 0, title: (slide.querySelector('h1, h2') || {}).textContent || ''};
}"""


def _guard(page, remote: list, failed: list) -> None:
    """Refuse every request that would leave the machine (recorded in ``remote``); record local files that
    failed to load in ``failed``."""
    def route(r):
        if r.request.url.startswith(("file:", "data:", "blob:", "about:")):
            r.continue_()
        else:
            remote.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("requestfailed", lambda req: None if req.url in remote else failed.append(req.url))


def check_deck(browser, deck: Path) -> dict:
    """Open ``deck`` at 1280x720, show every slide, and report per slide what does not render or fit, and every
    request that tried to leave the machine (refused) or failed, and every script error."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    remote, failed, errors = [], [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _guard(page, remote, failed)
    try:
        page.goto(deck.as_uri(), wait_until="load", timeout=120_000)
        page.wait_for_function("() => document.body.dataset.deckReady === '1'", timeout=120_000)
        total = page.evaluate("() => Reveal.getTotalSlides()")
        slides = []
        for i in range(total):
            page.evaluate(f"() => Reveal.slide({i})")
            page.wait_for_function(f"() => Reveal.getIndices().h === {i}")
            page.evaluate("() => document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => r())))")
            slides.append(page.evaluate(CHECK_SLIDE_JS))
        sliders = page.evaluate("() => document.querySelectorAll('.dpcourse-explorer-live input[type=range]').length")
    finally:
        page.close()
    problems = [f"slide {i + 1} ({s['title'][:40]}): {p}" for i, s in enumerate(slides) for p in
                s["overflow"] + [f"image not loaded {b}" for b in s["broken"]]
                + [f"raw TeX {t}" for t in s["rawTex"]] + (["empty"] if s["empty"] else [])]
    problems += [f"request leaving the machine: {u}" for u in remote] + [f"failed to load: {u}" for u in failed]
    problems += [f"script error: {e}" for e in errors]
    return {"slides": total, "per_slide": slides, "remote_requests": remote, "failed": failed, "errors": errors,
            "sliders": sliders, "problems": problems}


def print_handout(browser, deck: Path, pdf: Path) -> dict:
    """Check ``deck`` (:func:`check_deck`), then print it one slide per page (reveal.js's print view)."""
    checks = check_deck(browser, deck)
    if checks["problems"]:
        raise RuntimeError(f"{deck.name} is not ready: " + "; ".join(checks["problems"][:5]))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    remote, failed = [], []
    _guard(page, remote, failed)
    try:
        page.goto(deck.as_uri() + "?print-pdf", wait_until="load", timeout=120_000)
        page.wait_for_function("() => document.body.dataset.deckReady === '1'", timeout=120_000)
        page.pdf(path=str(pdf), width="1280px", height="720px", print_background=True,
                 margin={"top": "0", "bottom": "0", "left": "0", "right": "0"})
    finally:
        page.close()
    if remote or failed:
        raise RuntimeError(f"{deck.name} print view: requests leaving the machine {remote}, failed {failed}")
    report = build_pdf.pdf_report(pdf)
    if report["pdf_pages"] != checks["slides"]:
        raise RuntimeError(f"{pdf.name}: {report['pdf_pages']} pages for {checks['slides']} slides")
    return {"slides": checks["slides"], "pages": report["pdf_pages"], "bytes": pdf.stat().st_size,
            "smallest_fit": min(s["fit"] for s in checks["per_slide"])}


def _handouts_in_own_browser(jobs: list[tuple[str, str]], chromium: str) -> list[dict]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=build_pdf.BROWSER_ARGS)
        try:
            return [print_handout(browser, Path(deck), Path(pdf)) for deck, pdf in jobs]
        finally:
            browser.close()


def print_handouts(out: Path, stems: list[str], *, workers: int = 2) -> dict:
    """The PDF handout of every deck, by ``workers`` Chromium processes (split as tools/build_pdf.py splits)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("Chromium is needed for the PDF handouts: apt-get install -y chromium (or --no-pdf)")
    jobs = [(str(out / f"{s}.html"), str(out / f"{s}.pdf")) for s in stems]
    shares = build_pdf._shares([(out / f"{s}.html").stat().st_size for s in stems], max(1, workers))
    results = {}
    with ProcessPoolExecutor(max_workers=len(shares)) as pool:
        futures = [(share, pool.submit(_handouts_in_own_browser, [jobs[i] for i in share], chromium))
                   for share in shares]
        for share, future in futures:
            for i, result in zip(share, future.result()):
                results[stems[i]] = result
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers or names (default: all)")
    parser.add_argument("--out", default=str(OUT), help="output folder (default: _build/html/slides)")
    parser.add_argument("--no-pdf", action="store_true", help="HTML decks only, no PDF handouts")
    parser.add_argument("--workers", type=int, default=2, help="processes for live figures and printing")
    parser.add_argument("--json", action="store_true", help="also print the report as one JSON line")
    args = parser.parse_args(argv)
    report = build(args.chapters or None, Path(args.out), pdf=not args.no_pdf, workers=args.workers)
    slides = sum(d["slides"] for d in report["decks"].values())
    sizes = report["bytes"]
    print(f"wrote {len(report['decks'])} decks ({slides} slides) to {args.out} in {report['seconds']:.1f} s "
          f"(HTML {report['html_seconds']:.1f} s" + (f", PDF {report['pdf_seconds']:.1f} s" if "pdf" in report else "")
          + f"); decks {sizes['decks'] / 1e6:.1f} MB, shared assets {sizes['assets'] / 1e6:.1f} MB, "
          f"PDFs {sizes['pdfs'] / 1e6:.1f} MB")
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
