"""Small fixes to the HTML of the course book (a local Sphinx extension, loaded from _config.yml).

* Scripts: every page lists each script once; the ipywidgets manager (``widgets/embed.js``, 1.9 MB) is
  loaded only on pages that carry saved widget state, and deferred; sphinx-thebe's scripts are
  dropped (the book offers Binder and Colab launch buttons, not Thebe cells, and Thebe's inline
  config was emitted twice, a "THEBE_JS_URL has already been declared" error).
* MathJax is loaded as components (TeX input, CHTML output, assistive MathML: about 0.76 MB) instead of
  the combined ``tex-chtml.js`` (1.16 MB, with the context menu).
* The search index and Sphinx's search tools load on the search page only (the theme loaded them on every
  page for a search-as-you-type box that is switched off).
* ``default_mode`` is set for the pydata theme, which otherwise logs "Got invalid theme mode".
* Bibliography: author-year labels ([Dwork & Roth 2014], as the citations in the text read) instead of
  alpha labels ([DR14]), and under every entry the links back to each place that cites it.
* Live figures: every ``dpcourse.plots.explorer`` placeholder of a page is replaced by sliders and an
  image; the figure of every slider setting is drawn at build time by the same dpcourse plotting
  function (``booktools.states.render_states``, the book's build tooling beside this folder) into
  ``_static/explorers/<key>/``, and ``course.js`` swaps the image.
  Pages whose widgets are all explorers no longer load the 1.9 MB ipywidgets manager.
* Figures: a notebook figure drawn by a ``dpcourse.plots`` function gets a numbered caption and an alt
  text from the first sentence of that function's docstring (instead of the image's hash path).
* Index: every titled definition, theorem, lemma and corollary is an entry of the general index, under
  its title and under its kind ("theorem; Laplace mechanism is private"), so the index is a glossary.
* ``course.css`` lets long formulas scroll instead of being cut off; ``course.js`` makes the visible
  sidebar buttons work (pydata-sphinx-theme 0.17.1 and sphinx-book-theme 1.3.0 both bind their
  handlers to the *first* ``.primary-toggle`` / ``.secondary-toggle``, which is a hidden one).
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import shutil
import sys
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle

# booktools/ (the book's build tooling, not part of the dpcourse package) is imported from the checkout
ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.append(ROOT)

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _name(script) -> str:
    return getattr(script, "filename", None) or str(script)


def _attrs(script) -> dict:
    return getattr(script, "attributes", {}) or {}


def _body(script) -> str:
    return _attrs(script).get("body", "") or ""


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PLACEHOLDER = re.compile(r'<div class="dpcourse-explorer" data-spec="([^"]*)">.*?</div>', re.S)


def _render_spec(spec_json: str, cache_root: str) -> tuple[str, list[str], dict]:
    from booktools.states import page_sizes, render_states, spec_key, state_descriptions

    spec = json.loads(spec_json)
    key = spec_key(spec)
    names = render_states(spec, os.path.join(cache_root, key))
    sizes = page_sizes(os.path.join(cache_root, key))
    sizes["descriptions"] = state_descriptions(os.path.join(cache_root, key))
    return key, names, sizes


class _Renderer:
    """Draws explorer states in worker processes, as soon as a document that has them is read.

    Rendered states are cached in ``<source>/_build/.explorers/<key>/`` (``key`` covers the spec and
    every source file of dpcourse and booktools, so the cache cannot go stale) and copied into the HTML output.
    """

    def __init__(self):
        self.pool, self.jobs = None, {}

    def cache_root(self, app) -> str:
        return os.path.join(app.srcdir, "_build", ".explorers")

    def submit(self, app, spec_json: str):
        if spec_json not in self.jobs:
            if self.pool is None:
                self.pool = ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
            self.jobs[spec_json] = self.pool.submit(_render_spec, spec_json, self.cache_root(app))
        return self.jobs[spec_json]

    def close(self, app, exception):
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        self.pool, self.jobs = None, {}


RENDERER = _Renderer()


def _schedule_figures(app, doctree):
    from docutils import nodes

    for node in doctree.findall(nodes.raw):
        text = node.astext()
        if "dpcourse-explorer" in text:
            for match in PLACEHOLDER.finditer(text):
                RENDERER.submit(app, html.unescape(match.group(1)))


def _format_value(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _explorer_html(spec: dict, base: str, key: str, sizes: dict) -> str:
    controls = spec["controls"]
    shape = [len(c["values"]) for c in controls]
    start = [c["values"].index(c["value"]) for c in controls]
    flat = 0
    for size, i in zip(shape, start):
        flat = flat * size + i
    alt_base = spec.get("alt") or "figure"
    setting = ", ".join(f'{c["label"]} = {_format_value(c["value"])}' for c in controls)
    rows = []
    for c, i in zip(controls, start):
        labels = json.dumps([_format_value(v) for v in c["values"]])
        rows.append(
            f'<label class="dpcourse-explorer-control"><span class="dpcourse-explorer-label">'
            f'{html.escape(c["label"])}</span>'
            f'<input type="range" min="0" max="{len(c["values"]) - 1}" step="1" value="{i}" '
            f'data-labels="{html.escape(labels, quote=True)}" data-name="{html.escape(c["label"], quote=True)}" '
            f'aria-label="{html.escape(c["label"], quote=True)}">'
            f'<output>{html.escape(_format_value(c["value"]))}</output></label>')
    descriptions = sizes.get("descriptions") or []
    said = descriptions[flat] if flat < len(descriptions) else ""
    alt = alt_base + " (" + setting + ")" + (": " + said if said else "")
    return (f'<div class="dpcourse-explorer-live" data-base="{base}{key}/" data-shape="{json.dumps(shape)}" '
            f'data-alt="{html.escape(alt_base, quote=True)}" '
            f'data-descriptions="{html.escape(json.dumps(descriptions, ensure_ascii=False), quote=True)}">'
            f'<div class="dpcourse-explorer-controls">{"".join(rows)}</div>'
            # on a narrow screen the image keeps the width at which its smallest text is 9 px, and scrolls
            f'<div class="dpcourse-explorer-scroll" tabindex="0" style="--phone-min-width: {sizes["phone_min_width"]}px">'
            f'<img class="dpcourse-explorer-figure" src="{base}{key}/{flat}.png" width="{sizes["width"]}" '
            f'data-min-text-px="{sizes["min_text_px"]:g}" '
            f'data-states-with-legend-over-data="{sizes["states_with_legend_over_data"]}" '
            f'alt="{html.escape(alt, quote=True)}"></div>'
            # what the figure shows now, said again to a screen reader when a slider moves
            f'<p class="dpcourse-explorer-said visually-hidden" aria-live="polite"></p></div>')


def _live_figures(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if not body or "dpcourse-explorer" not in body:
        return
    specs = [html.unescape(m.group(1)) for m in PLACEHOLDER.finditer(body)]
    keys = []
    for spec_json in specs:
        key, names, sizes = RENDERER.submit(app, spec_json).result()
        target = os.path.join(app.outdir, "_static", "explorers", key)
        os.makedirs(target, exist_ok=True)
        for name in names:
            shutil.copyfile(os.path.join(RENDERER.cache_root(app), key, name), os.path.join(target, name))
        keys.append((key, sizes))
    base = context["pathto"]("_static/explorers/", 1)
    found = iter(zip(specs, keys))

    def replace(_match):
        spec_json, (key, sizes) = next(found)
        return _explorer_html(json.loads(spec_json), base, key, sizes)

    context["body"] = PLACEHOLDER.sub(replace, body)


SD_CLASS = re.compile(r'class="[^"]*\bsd-')


def _drop_unused_design(app, pagename, templatename, context, doctree):
    """sphinx-design's stylesheet (55 KB) and tab script only on pages that use its components."""
    if SD_CLASS.search(context.get("body") or ""):
        return
    if context.get("css_files"):
        context["css_files"] = [c for c in context["css_files"] if "sphinx-design" not in (_name(c) or "")]
    if context.get("script_files"):
        context["script_files"] = [s for s in context["script_files"] if "design-tabs" not in (_name(s) or "")]


def _lazy_images(app, pagename, templatename, context, doctree):
    """Images load when they come near the screen (``loading="lazy"``), not all with the page."""
    body = context.get("body")
    if body and "<img" in body:
        # not a live figure's image: its slider swaps it at once, and a test awaits its decode()
        context["body"] = re.sub(r'<img\b(?![^>]*\bloading=)(?! class="dpcourse-explorer-figure")',
                                 '<img loading="lazy"', body)


def _smaller_images(outdir: Path) -> None:
    """Notebook figures as palette PNGs (256 colours) where that is smaller: about a third of the bytes."""
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    for path in (outdir / "_images").glob("*.png"):
        if path.stat().st_size < 20_000:
            continue
        with Image.open(path) as image:
            image.load()
            mode = "RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB"
            small = image.convert(mode).quantize(256, method=Image.Quantize.FASTOCTREE)
            info = PngInfo()  # keep the text chunks (the figure's smallest text, see _static_figure_sizes)
            for key, value in getattr(image, "text", {}).items():
                info.add_text(key, value)
        tmp = path.with_name(path.name + ".tmp")
        small.save(tmp, format="PNG", compress_level=6, pnginfo=info)
        if tmp.stat().st_size < path.stat().st_size:
            tmp.replace(path)
        else:
            tmp.unlink()


NOTEBOOK_IMAGE = re.compile(r'<img\b(?![^>]*dpcourse-explorer-figure)[^>]*\bsrc="([^"]*_images/[^"/]+\.png)"[^>]*>')


def _static_figure_sizes(app, exception):
    """Notebook figures: record what each was drawn with, and keep its text readable on a phone.

    A figure drawn in the book's style (``booktools.static_figures.static_figure_hook``) carries its
    smallest text (px in the image) and the number of legends over data in its PNG. Its ``<img>`` gets
    them as ``data-min-text-px`` / ``data-legends-over-data`` (the browser test measures the text as
    shown), and a box that scrolls sideways on a narrow screen, in which the image keeps the width at
    which that text is 9 px (as the live figures do). A figure without them (a notebook not executed
    since) is left as it is, and the browser test names it.
    """
    if exception is not None or app.builder.format != "html":
        return
    from PIL import Image

    outdir = Path(app.outdir)
    found = {}
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if "_images/" not in text:
            continue

        def annotate(match):
            name = match.group(1).rsplit("/", 1)[-1]
            if name not in found:
                try:
                    with Image.open(outdir / "_images" / name) as image:
                        found[name] = (image.width, dict(getattr(image, "text", {})))
                except OSError:
                    found[name] = (0, {})
            width, info = found[name]
            tag = match.group(0)
            try:
                px = float(info["dpcourse:min-text-px"])
            except (KeyError, ValueError):
                return tag
            phone = min(width, int(-(-width * 9 // px))) if px > 0 else width
            tag = tag.replace("<img ", f'<img data-min-text-px="{px:g}" '
                                       f'data-legends-over-data="{int(info.get("dpcourse:legends-over-data", "0"))}" ', 1)
            return (f'<div class="dpcourse-figure-scroll" tabindex="0" style="--phone-min-width: {phone}px">'
                    f'{tag}</div>')

        new = NOTEBOOK_IMAGE.sub(annotate, text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def _tidy_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    # saved widget state is only worth its 1.9 MB manager where a widget view is still rendered
    has_widgets = WIDGET_VIEW in (context.get("body") or "")
    seen, kept = set(), []
    for script in scripts:
        name, body = _name(script), _body(script)
        key = (name, body)
        if key in seen:
            continue
        seen.add(key)
        if "sphinx-thebe" in (name or "") or "THEBE_JS_URL" in body or "thebe" in (_attrs(script).get("type") or ""):
            continue
        if _attrs(script).get("type") == WIDGET_STATE and not has_widgets:
            continue
        if (name or "").split("?")[0].endswith("widgets/embed.js"):
            if not has_widgets:
                continue
            script = type(script)(script.filename, priority=script.priority, **{**_attrs(script), "defer": "defer"})
        kept.append(script)
    context["script_files"] = kept


class AuthorYearLabels(BaseLabelStyle):
    """Labels "Dwork & Roth 2014", "Dwork et al. 2006a": the same author-year form as the citations."""

    def format_labels(self, sorted_entries):
        labels = [self.format_label(entry) for entry in sorted_entries]
        count, seen = Counter(labels), Counter()
        for label in labels:
            if count[label] == 1:
                yield label
            else:
                yield label + chr(ord("a") + seen[label])
                seen[label] += 1

    def format_label(self, entry):
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(p.last_names) for p in people]
        if not names:
            who = entry.fields.get("organization") or entry.fields.get("publisher") or entry.key
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} & {names[1]}"
        else:
            who = f"{names[0]} et al."
        who = who.replace("{", "").replace("}", "")
        return f"{who} {entry.fields.get('year', 'n.d.')}"


class AuthorYearStyle(UnsrtStyle):
    default_label_style = AuthorYearLabels
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.formatting", "course_author_year", AuthorYearStyle)


def _cited_in(app, pagename, templatename, context, doctree):
    """Under each bibliography entry, link back to every place in the book that cites it."""
    body = context.get("body")
    if not body or 'role="doc-biblioentry"' not in body:
        return
    domain = app.env.get_domain("cite")
    by_key = defaultdict(list)
    for ref in domain.citation_refs:
        for target in ref.targets:
            by_key[target.key].append(ref)
    titles = app.env.titles
    for citation in domain.citations:
        refs = sorted(by_key.get(citation.key, []), key=lambda r: (r.docname, r.line))
        if not refs:
            continue
        links = []
        for i, ref in enumerate(refs):
            uri = app.builder.get_relative_uri(pagename, ref.docname) + "#" + ref.citation_ref_id
            title = titles[ref.docname].astext() if ref.docname in titles else ref.docname
            show = title if i == 0 or refs[i - 1].docname != ref.docname else "↩"
            links.append(f'<a class="reference internal" href="{uri}">{html.escape(show)}</a>')
        anchor = f'<div class="citation" id="{citation.citation_id}" role="doc-biblioentry">'
        start = body.find(anchor)
        if start < 0:
            continue
        end = body.find("</div>", start)
        note = '<p class="cited-in">Cited in: ' + ", ".join(links) + "</p>"
        body = body[:end] + note + body[end:]
    # docutils marks entries with the deprecated DPUB role doc-biblioentry inside a role="list" that also holds
    # bare anchors (axe-core: aria-deprecated-role, aria-required-children): plain blocks read as well
    body = body.replace(' role="doc-biblioentry"', "").replace('<div role="list" class="citation-list">',
                                                               '<div class="citation-list">')
    context["body"] = body


PLOTS_IMPORT = re.compile(r"from\s+dpcourse\.plots\s+import\s+(\w+)\s+as\s+(\w+)|"
                          r"import\s+dpcourse\.plots\.(\w+)\s+as\s+(\w+)")


def _clean_doc(text: str) -> str:
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    text = text.replace("``", "")
    return " ".join(text.split())


@functools.lru_cache(maxsize=None)
def _plot_docstrings(module: str) -> dict:
    """The docstrings of the module-level functions of ``dpcourse.plots.<module>``, read from its source (the
    build process does not import the plotting modules, and with them matplotlib: the states are drawn in
    worker processes)."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(f"dpcourse.plots.{module}")
    if spec is None or not spec.origin:
        return {}
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    return {node.name: ast.get_docstring(node) or "" for node in tree.body if isinstance(node, ast.FunctionDef)}


def _plot_caption(module_name: dict, source: str) -> str | None:
    """First sentence of the docstring of the dpcourse plotting function called in ``source``."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id in module_name:
            doc = _plot_docstrings(module_name[node.func.value.id]).get(node.func.attr, "").strip()
            if node.func.attr.startswith("plot") and doc:
                first = _clean_doc(doc.split("\n\n")[0])
                return first if first.endswith(".") else first + "."
    return None


def _figure_captions(app, doctree):
    from docutils import nodes

    cells = [n for n in doctree.findall(nodes.container) if "cell" in n.get("classes", [])]
    if not cells:
        return
    aliases = {}
    for cell in cells:
        for block in cell.findall(nodes.literal_block):
            for m in PLOTS_IMPORT.finditer(block.astext()):
                module, alias = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
                aliases[alias] = module
    if not aliases:
        return
    count = 0
    for cell in cells:
        images = list(cell.findall(nodes.image))
        if len(images) != 1 or isinstance(images[0].parent, nodes.figure):
            continue
        sources = [b.astext() for b in cell.findall(nodes.literal_block)]
        caption = _plot_caption(aliases, sources[0]) if sources else None
        if caption is None:
            continue
        count += 1
        image = images[0]
        image["alt"] = "Figure: " + caption
        figure = nodes.figure(ids=[f"fig-{app.env.docname.replace('/', '-')}-{count}"])
        image.replace_self(figure)
        figure += image
        figure += nodes.caption(text=caption)


INDEXED_KINDS = {"definition", "theorem", "lemma", "corollary", "proposition", "algorithm"}


def _index_proofs(app, doctree):
    """Add a general-index entry for each titled sphinx-proof box of the document."""
    from sphinx import addnodes

    for node in list(doctree.findall(lambda n: n.__class__.__name__.endswith("_node")
                                     and n.__class__.__module__.startswith("sphinx_proof"))):
        kind, title = node.get("realtype"), (node.get("title") or "").strip()
        ids = node.get("ids") or []
        if kind not in INDEXED_KINDS or not title or not ids:
            continue
        title = title.replace("$", "").strip().removeprefix("(").removesuffix(")").strip()
        if not title:
            continue
        entries = [("single", title, ids[0], "", None), ("single", f"{kind}; {title}", ids[0], "", None)]
        node.parent.insert(node.parent.index(node), addnodes.index(entries=entries, inline=False))
        # the index domain collected this document's entries before this event: add ours to them
        app.env.get_domain("index").entries.setdefault(app.env.docname, []).extend(entries)


FONTAWESOME_JS = re.compile(r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>')


SEARCH_SCRIPTS = re.compile(r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)">'
                            r'</script>')


def _drop_search_scripts(app, exception):
    """Keep Sphinx's search index (134 KB and growing) and search tools on the search page only.

    pydata-sphinx-theme's layout loads them on every page for its search-as-you-type box, which this
    book leaves off (``search_as_you_type`` is False), so on other pages they were dead weight; the
    search box still submits to ``search.html``, which loads them itself (tested offline).
    """
    if exception is not None or app.builder.format != "html":
        return
    if str(app.config.html_theme_options.get("search_as_you_type", False)).lower() == "true":
        return
    for path in Path(app.outdir).rglob("*.html"):
        if path.name == "search.html":
            continue
        text = path.read_text(encoding="utf-8")
        new = SEARCH_SCRIPTS.sub("", text)
        if new != text:
            path.write_text(new, encoding="utf-8")


def _drop_fontawesome_js(app, exception):
    """Remove the theme's fontawesome.js (1.5 MB, written by a template macro into every page).

    The theme's stylesheet already draws the same icons from Font Awesome's web fonts, so the pages
    lose nothing but weight (tested in tests/test_book_browser.py).
    """
    if exception is not None or app.builder.format != "html":
        return
    for path in Path(app.outdir).rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        new = FONTAWESOME_JS.sub("", text)
        if new != text:
            path.write_text(new, encoding="utf-8")


# What the pages load of MathJax (measured: every page opened in Chromium) and what autoload may fetch.
MATHJAX_KEEP = ("startup.js", "core.js", "loader.js", "input/tex.js", "input/tex/", "output/chtml.js",
                "output/chtml/fonts/tex.js", "output/chtml/fonts/woff-v2/", "a11y/assistive-mml.js")


def _prune_output(app, exception):
    """Delete from the HTML output the files no page loads (41 of 56 MB before: the HTML stays < 30 MB).

    * MathJax: sphinx-mathjax-offline copies the whole distribution (24 MB, SVG output, speech rule
      engine, combined bundles); the pages load only the components in MATHJAX_KEEP (about 2 MB).
    * fontawesome.js (removed from every page by ``_drop_fontawesome_js``) and the source maps.
    * the ipywidgets manager when no page embeds a widget view (``_tidy_scripts`` loads it only there).
    """
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    mathjax = static / "mathjax"
    if mathjax.is_dir():
        for path in sorted(mathjax.rglob("*"), reverse=True):
            rel = path.relative_to(mathjax).as_posix()
            if path.is_file() and not rel.startswith(MATHJAX_KEEP):
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    for path in [*static.rglob("*.js.map"), *static.rglob("*.css.map"), static / "scripts" / "fontawesome.js"]:
        path.unlink(missing_ok=True)
    _smaller_images(Path(app.outdir))
    pages = list(Path(app.outdir).rglob("*.html"))
    if not any("widgets/embed.js" in page.read_text(encoding="utf-8") for page in pages):
        (static / "widgets" / "embed.js").unlink(missing_ok=True)


def _repository_settings(app, docname, source):
    """Write ``repository.url``/``repository.branch`` of _config.yml where a page says ``{{ repository_url }}``.

    The one setting that the launch buttons also read (also inside code blocks, where MyST substitutions
    are not applied).
    """
    options = app.config.html_theme_options or {}
    url = str(options.get("repository_url", "")).rstrip("/")
    branch = str(options.get("repository_branch", "") or "main")
    source[0] = source[0].replace("{{ repository_url }}", url).replace("{{ repository_branch }}", branch)


def _theme_mode(app, config):
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context
    _mathjax_components(config)


# The parts of MathJax 3.2.2 the book needs, loaded by MathJax's own loader from the copy that
# sphinx-mathjax-offline ships: the TeX input with its default packages (base, ams, newcommand,
# noundefined, require, autoload, configmacros; autoload fetches any other package on first use), the
# CHTML output with its TeX font, and assistive MathML for screen readers. The combined tex-chtml.js
# also bundles the context menu: 1.16 MB against about 0.76 MB for these files.
MATHJAX_COMPONENTS = ["input/tex", "output/chtml", "a11y/assistive-mml"]


def _mathjax_components(config):
    config.mathjax_path = "mathjax/startup.js"
    mj = dict(config.mathjax3_config or {})
    loader = dict(mj.get("loader", {}))
    loader["load"] = list(dict.fromkeys(list(loader.get("load", [])) + MATHJAX_COMPONENTS))
    mj["loader"] = loader
    config.mathjax3_config = mj


def setup(app):
    app.connect("config-inited", _theme_mode)
    app.connect("source-read", _repository_settings)
    app.connect("doctree-read", _schedule_figures)
    app.connect("html-page-context", _live_figures, priority=800)
    app.connect("build-finished", RENDERER.close)
    app.connect("build-finished", _drop_fontawesome_js)
    app.connect("build-finished", _drop_search_scripts)
    app.connect("build-finished", _static_figure_sizes, priority=850)
    app.connect("build-finished", _prune_output, priority=900)
    app.connect("html-page-context", _tidy_scripts, priority=900)
    app.connect("html-page-context", _cited_in)
    app.connect("html-page-context", _lazy_images, priority=850)
    app.connect("html-page-context", _drop_unused_design, priority=950)
    app.connect("doctree-read", _index_proofs)
    app.connect("doctree-read", _figure_captions)
    # course.css: Jupyter Book links every .css file of _static itself (adding it here linked it twice)
    app.add_js_file("course.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
