"""The states of a live figure, drawn for the book's build (called by ``_ext/course_html.py``).

A chapter declares a live figure with :func:`dpcourse.plots.explorer.explorer`; the rendered book shows its
placeholder (``text/html`` with the explorer's JSON spec). At build time the Sphinx extension calls
:func:`render_states`, which draws the figure of *every* combination of control values with the same plotting
function and writes them as PNG files; ``_static/course.js`` shows the one that matches the sliders.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path

import numpy as np

from dpcourse.plots.explorer import Control, Explorer

from .describe import describe_figure
from .legends import legends_below, legends_over_data
from .style import LIVE_STYLE, PHONE_MIN_TEXT_PX, STATIC_DPI, _rethin_fixed_labels, _thin_at_layout, book_style
from .text_caches import shared_text_caches

__all__ = ["draw_state", "render_states", "page_sizes", "state_descriptions", "spec_key"]


def spec_key(spec: dict) -> str:
    """A stable name for the rendered states: the spec and the source of every module of ``dpcourse`` and of
    this package.

    Any change of a plotting function, of a mechanism it draws or of the way states are drawn gives new names,
    so a cache of rendered states keyed by this name is never stale.
    """
    import dpcourse

    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode())
    for package in (Path(dpcourse.__file__).resolve().parent, Path(__file__).resolve().parent):
        for path in sorted(package.rglob("*.py")):
            digest.update(path.relative_to(package.parent).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _save_png(rgba, out_file):
    """Save a rendered figure as a palette PNG (256 colours: about a third of the bytes of an RGB PNG)."""
    from PIL import Image

    image = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))
    image.quantize(256, method=Image.Quantize.FASTOCTREE).save(out_file, format="PNG", compress_level=6)


SUBPLOT_PARAMS = ("left", "bottom", "right", "top", "wspace", "hspace")


def _fits(fig, texts, renderer) -> bool:
    """True when every drawn text is inside the figure and runs into no axes other than its own (or its twin)."""
    width, height = fig.bbox.width, fig.bbox.height
    axes = [(ax, ax.get_window_extent(renderer), ax.get_position().bounds) for ax in fig.axes if ax.get_visible()]
    for text in texts:
        box = text.get_window_extent(renderer)
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            return False
        own = text.axes
        own_bounds = own.get_position().bounds if own is not None else None
        inner = box.padded(-1)
        for ax, ax_box, bounds in axes:
            if ax is own or bounds == own_bounds:
                continue
            if inner.overlaps(ax_box):
                return False
    for ax, *_ in axes:  # a legend placed below its axes (legends_below) must stay inside the figure too
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            box = legend.get_window_extent(renderer)
            if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
                return False
    return True


def draw_state(ex: Explorer, params: dict, out_file, *, dpi: int = 72, layout: dict | None = None,
               report: dict | None = None) -> float:
    """Draw one state of ``ex`` in the book's live-figure style; save it as PNG; return its smallest text in px.

    ``report["legends_over_data"]`` (if ``report`` is a dict) is how many of its legends cover data, a
    text or the edge of the figure (:func:`booktools.legends.legends_over_data`): the check of
    :func:`booktools.legends.legends_below`.

    The plotting function runs unchanged; its ``tight_layout`` calls are deferred to the save (one layout
    pass, after the fonts are final), every text smaller than :func:`booktools.style.min_font_pt` is
    enlarged, and every legend goes below its axes (``legends_below``: where a slider cannot move data under
    it).

    ``layout`` (a dict that :func:`render_states` shares between the states of one explorer) saves the
    layout pass, about a third of a state's time: the first state's tight-layout subplot parameters are
    kept in it and the next states are drawn with them (so the axes also stay put when a slider moves).
    A state drawn that way whose texts leave the figure or run into another axes is laid out again with
    its own tight layout, and so are all the states after it.
    """
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import TightLayoutEngine
    from matplotlib.text import Text

    original, original_text_draw, original_legend = Figure.tight_layout, Text.draw, Axes.legend
    drawn = []

    def remembered_legend(self, *args, **kwargs):  # legends_below may make it again in more columns
        legend = original_legend(self, *args, **kwargs)
        legend._dpcourse_call = (args, kwargs)
        return legend

    def deferred(self, *, pad=1.08, h_pad=None, w_pad=None, rect=None):
        self.set_layout_engine("tight", pad=pad, h_pad=h_pad, w_pad=w_pad, rect=rect)

    def recording_draw(self, renderer):  # the texts that are drawn (not ticks outside the view)
        original_text_draw(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)

    Figure.tight_layout, Text.draw, Axes.legend = deferred, recording_draw, remembered_legend
    try:
        # the book's style and static dpi, whatever this process's own settings (a state looks the same drawn
        # by the build or by a test)
        with plt.rc_context({**LIVE_STYLE, "figure.dpi": STATIC_DPI}), shared_text_caches():
            fig = ex.draw(**params)
            floor = book_style(fig, dpi)
            legends_below(fig, floor)
            if fig.get_layout_engine() is None:
                fig.set_layout_engine("tight")
            fig.set_dpi(dpi)
            engine = fig.get_layout_engine()
            tight = isinstance(engine, TightLayoutEngine)
            reuse = tight and layout is not None and layout.get("params") is not None
            own = {k: getattr(fig.subplotpars, k) for k in SUBPLOT_PARAMS}  # where its own layout starts
            if reuse:
                fig.set_layout_engine("none")
                fig.subplots_adjust(**layout["params"])
                _rethin_fixed_labels(fig)  # at the widths of the kept layout
            else:
                _thin_at_layout(fig, engine, own)
            fig.canvas.draw()  # runs the layout engine (if any), then renders
            renderer = fig.canvas.get_renderer()
            if reuse and not _fits(fig, drawn, renderer):
                # this state needs its own layout: it gets it, and so do the states after it (a layout
                # that failed once is not trusted again: the cost stays at most one extra draw)
                drawn.clear()
                fig.subplots_adjust(**own)  # the tight layout depends on where it starts: as for a fresh state
                fig.set_layout_engine(engine)
                _thin_at_layout(fig, engine, own)
                fig.canvas.draw()
                layout["params"] = None
                layout["redone"] = layout.get("redone", 0) + 1
            elif tight and layout is not None and "params" not in layout:
                # the first state: its layout is kept unless it already fails the check (then none is reused)
                layout["params"] = ({k: getattr(fig.subplotpars, k) for k in SUBPLOT_PARAMS}
                                    if _fits(fig, drawn, renderer) else None)
            if report is not None:
                report["legends_over_data"] = _state_legends_over_data(fig, drawn)
                report["description"] = describe_figure(fig)
            _save_png(np.asarray(fig.canvas.buffer_rgba()), out_file)
            smallest = min((t.get_fontsize() for t in drawn), default=floor) * dpi / 72
    finally:
        Figure.tight_layout, Text.draw, Axes.legend = original, original_text_draw, original_legend
        plt.close("all")
    return smallest


def _state_legends_over_data(fig, drawn) -> int:
    """How many legends of a drawn state cover data, a text or the figure's edge (:func:`legends_over_data`,
    given the texts that were drawn). A live figure's legends are below their axes (:func:`legends_below`), so
    this counts the states where that placement failed."""
    if not any(ax.get_legend() is not None for ax in fig.axes):
        return 0
    return len(legends_over_data(fig, fig.canvas.get_renderer(), drawn))


def render_states(spec: dict, out_dir, *, dpi: int = 72) -> list[str]:
    """Draw the figure of every combination of control values; write ``0.png, 1.png, ...`` in ``out_dir``.

    The order is row-major over the controls in the spec's order (the last control varies fastest).
    Returns the file names. Files already present are kept (the caller keys ``out_dir`` by
    :func:`spec_key`, so a changed spec or plotting module gets a fresh folder). ``sizes.json`` in
    ``out_dir`` records, per state, its image width, its smallest text (px), how many legends cover data,
    and its text alternative (:func:`describe_figure`).
    """
    import matplotlib

    matplotlib.use("Agg")

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ex = Explorer(spec["plot"], {c["name"]: Control(c["label"], tuple(c["values"]), c["value"])
                                 for c in spec["controls"]}, spec["fixed"], spec.get("alt", ""))
    names = []
    sizes_file = out / "sizes.json"
    sizes = json.loads(sizes_file.read_text()) if sizes_file.exists() else {}
    grids = [c.values for c in ex.controls.values()]
    layout: dict = {}  # the first drawn state's layout, reused by the others (see draw_state)
    for i, combo in enumerate(itertools.product(*grids)):
        name = f"{i}.png"
        names.append(name)
        if (out / name).exists() and name in sizes and len(sizes[name]) > 3:
            continue
        tmp = out / f".{name}.{os.getpid()}"  # two builds may share the cache: each writes its own file
        report: dict = {}
        smallest = draw_state(ex, dict(zip(ex.controls, combo)), tmp, dpi=dpi, layout=layout, report=report)
        with open(tmp, "rb") as f:
            f.seek(16)
            width = int.from_bytes(f.read(4), "big")  # the PNG header's width
        sizes[name] = [width, smallest, report["legends_over_data"], report["description"]]
        tmp.replace(out / name)  # atomic: a reader sees the old file, the new one, or none
    tmp = out / f".sizes.json.{os.getpid()}"
    tmp.write_text(json.dumps(sizes, sort_keys=True))
    tmp.replace(sizes_file)
    return names


def page_sizes(out_dir) -> dict:
    """Largest width (px), smallest text (px) of the states in ``out_dir``, the phone minimum width, and the
    number of states with a legend over data."""
    sizes = json.loads((Path(out_dir) / "sizes.json").read_text()).values()
    width = max(w for w, *_ in sizes)
    text = min(t for _, t, *_ in sizes)
    return {"width": width, "min_text_px": text,
            "phone_min_width": min(width, int(-(-width * PHONE_MIN_TEXT_PX // text))),
            "states_with_legend_over_data": sum(1 for entry in sizes if len(entry) > 2 and entry[2])}


def state_descriptions(out_dir) -> list[str]:
    """The text alternative of each state in ``out_dir``, in the order of the states' files (0.png, 1.png, ...)."""
    sizes = json.loads((Path(out_dir) / "sizes.json").read_text())
    return [sizes[f"{i}.png"][3] if len(sizes[f"{i}.png"]) > 3 else "" for i in range(len(sizes))]
