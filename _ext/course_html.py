"""Small fixes to the HTML of the course book (a local Sphinx extension, loaded from _config.yml).

* Scripts: every page lists each script once; the ipywidgets manager (``widgets/embed.js``, 1.9 MB) is
  loaded only on pages that carry saved widget state, and deferred; sphinx-thebe's scripts are
  dropped (the book offers Binder and Colab launch buttons, not Thebe cells, and Thebe's inline
  config was emitted twice, a "THEBE_JS_URL has already been declared" error).
* ``default_mode`` is set for the pydata theme, which otherwise logs "Got invalid theme mode".
* Bibliography: author-year labels ([Dwork & Roth 2014], as the citations in the text read) instead of
  alpha labels ([DR14]), and under every entry the links back to each place that cites it.
* Index: every titled definition, theorem, lemma and corollary is an entry of the general index, under
  its title and under its kind ("theorem; Laplace mechanism is private"), so the index is a glossary.
* ``course.css`` lets long formulas scroll instead of being cut off; ``course.js`` makes the visible
  sidebar buttons work (pydata-sphinx-theme 0.17.1 and sphinx-book-theme 1.3.0 both bind their
  handlers to the *first* ``.primary-toggle`` / ``.secondary-toggle``, which is a hidden one).
"""

from __future__ import annotations

import html
from collections import Counter, defaultdict

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _name(script) -> str:
    return getattr(script, "filename", None) or str(script)


def _attrs(script) -> dict:
    return getattr(script, "attributes", {}) or {}


def _body(script) -> str:
    return _attrs(script).get("body", "") or ""


def _tidy_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    has_widgets = any(_attrs(s).get("type") == WIDGET_STATE for s in scripts)
    seen, kept = set(), []
    for script in scripts:
        name, body = _name(script), _body(script)
        key = (name, body)
        if key in seen:
            continue
        seen.add(key)
        if "sphinx-thebe" in (name or "") or "THEBE_JS_URL" in body or "thebe" in (_attrs(script).get("type") or ""):
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
    context["body"] = body


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


def _theme_mode(app, config):
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context


def setup(app):
    app.connect("config-inited", _theme_mode)
    app.connect("html-page-context", _tidy_scripts, priority=900)
    app.connect("html-page-context", _cited_in)
    app.connect("doctree-read", _index_proofs)
    app.add_css_file("course.css")
    app.add_js_file("course.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
