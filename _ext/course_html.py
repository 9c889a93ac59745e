"""Small fixes to the HTML of the course book (a local Sphinx extension, loaded from _config.yml).

* Scripts: every page lists each script once; the ipywidgets manager (``widgets/embed.js``, 1.9 MB) is
  loaded only on pages that carry saved widget state, and deferred; sphinx-thebe's scripts are
  dropped (the book offers Binder and Colab launch buttons, not Thebe cells, and Thebe's inline
  config was emitted twice, a "THEBE_JS_URL has already been declared" error).
* ``default_mode`` is set for the pydata theme, which otherwise logs "Got invalid theme mode".
* ``course.css`` lets long formulas scroll instead of being cut off; ``course.js`` makes the visible
  sidebar buttons work (pydata-sphinx-theme 0.17.1 and sphinx-book-theme 1.3.0 both bind their
  handlers to the *first* ``.primary-toggle`` / ``.secondary-toggle``, which is a hidden one).
"""

from __future__ import annotations

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


def _theme_mode(app, config):
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context


def setup(app):
    app.connect("config-inited", _theme_mode)
    app.connect("html-page-context", _tidy_scripts, priority=900)
    app.add_css_file("course.css")
    app.add_js_file("course.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
