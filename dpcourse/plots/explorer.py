"""Interactive figures that stay live in the static book: one definition, two renderings.

A chapter's experiment is a dpcourse plotting function and a few controls, each with a short list of
values. :func:`explorer` returns an :class:`Explorer`, which a notebook cell displays:

* In a live kernel (Jupyter, Binder, Colab) it is an ipywidgets form whose sliders call the plotting
  function again on every change.
* In the rendered book it is a placeholder (``text/html`` with the explorer's JSON spec). At build
  time the book's Sphinx extension (``_ext/course_html.py``) calls :func:`render_states`, which draws
  the figure of *every* combination of control values with the same plotting function and writes
  them as PNG files; a small script in ``_static/course.js`` shows the one that matches the sliders.

So a figure and its controls never disagree, the numbers on the page come from ``dpcourse`` and not
from a second implementation in JavaScript, and no kernel, server or network is needed to move a
slider on the published page. Keep the grid small (the product of the value counts is the number of
figures drawn at build time; at most ``MAX_STATES``).
"""

from __future__ import annotations

import hashlib
import html
import importlib
import inspect
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Control", "Explorer", "explorer", "render_states", "draw_state", "page_sizes", "MAX_STATES"]

MAX_STATES = 64
SPEC_CLASS = "dpcourse-explorer"


@dataclass(frozen=True)
class Control:
    """One control: a label, the values it offers (in slider order) and the value shown first."""

    label: str
    values: tuple
    value: object

    def __post_init__(self):
        if not self.values:
            raise ValueError(f"control {self.label!r} needs at least one value")
        if self.value not in self.values:
            raise ValueError(f"control {self.label!r}: the first value {self.value!r} is not among {self.values!r}")


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"explorer arguments must be numbers, strings, lists or arrays, got {type(value).__name__}")


@dataclass
class Explorer:
    """An interactive figure: see the module docstring. Build it with :func:`explorer`."""

    plot: str                                   # "package.module:function", returns a matplotlib Figure
    controls: dict[str, Control]
    fixed: dict = field(default_factory=dict)
    alt: str = ""

    def function(self):
        module, name = self.plot.split(":")
        return getattr(importlib.import_module(module), name)

    def spec(self) -> dict:
        return {
            "plot": self.plot,
            "fixed": _jsonable(self.fixed),
            "controls": [{"name": n, "label": c.label, "values": _jsonable(list(c.values)),
                          "value": _jsonable(c.value)} for n, c in self.controls.items()],
            "alt": self.alt,
        }

    def draw(self, **params):
        """The figure for one combination of control values (the other values at their first setting)."""
        values = {n: c.value for n, c in self.controls.items()}
        values.update(params)
        return self.function()(**self.fixed, **values)

    def widget(self):
        """The live form: one selection slider per control, redrawing the figure on every change."""
        import ipywidgets as widgets
        import matplotlib.pyplot as plt

        def show(**params):
            self.draw(**params)
            plt.show()

        sliders = {name: widgets.SelectionSlider(options=list(c.values), value=c.value, description=c.label,
                                                 continuous_update=False, style={"description_width": "initial"})
                   for name, c in self.controls.items()}
        return widgets.interactive(show, **sliders)

    def placeholder_html(self) -> str:
        spec = html.escape(json.dumps(self.spec(), sort_keys=True), quote=True)
        return (f'<div class="{SPEC_CLASS}" data-spec="{spec}"><p>Interactive figure '
                f'({", ".join(c.label for c in self.controls.values())}): drawn for every setting when the '
                f'book is built.</p></div>')

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = self.widget()._repr_mimebundle_(include=include, exclude=exclude) or {}
        bundle = dict(bundle)
        bundle["text/html"] = self.placeholder_html()
        return bundle


def explorer(plot, controls: dict, *, alt: str = "", **fixed) -> Explorer:
    """An interactive figure of ``plot`` (a module-level function of ``dpcourse`` returning a Figure).

    Parameters
    ----------
    plot : callable
        Draws and returns a matplotlib Figure from keyword arguments.
    controls : dict
        ``name -> (label, values, first value)``: the arguments the reader moves.
    alt : str
        Text alternative of the figure (the control values are appended to it).
    **fixed
        Arguments that do not move (numbers, strings, lists or arrays).

    Examples
    --------
    >>> from dpcourse.plots.promise import plot_rr_count
    >>> ex = explorer(plot_rr_count, {"n": ("n", (5, 10), 5), "epsilon": ("ε", (0.5, 1.1), 1.1)})
    >>> sorted(ex.spec()), len(list(itertools.product(*[c.values for c in ex.controls.values()])))
    (['alt', 'controls', 'fixed', 'plot'], 4)
    """
    if not inspect.isfunction(plot) or getattr(importlib.import_module(plot.__module__), plot.__name__, None) is not plot:
        raise TypeError(f"plot must be a module-level function (it is imported again by name at build time), "
                        f"got {getattr(plot, '__qualname__', type(plot).__name__)}")
    parsed = {}
    for name, item in controls.items():
        if not (isinstance(item, tuple) and len(item) == 3):
            raise TypeError(f"control {name!r} must be (label, values, first value), got {item!r}")
        label, values, value = item
        parsed[name] = Control(str(label), tuple(values), value)
    n_states = int(np.prod([len(c.values) for c in parsed.values()]))
    if n_states > MAX_STATES:
        raise ValueError(f"the controls give {n_states} figures to draw at build time; at most {MAX_STATES}")
    return Explorer(f"{plot.__module__}:{plot.__name__}", parsed, {k: _jsonable(v) for k, v in fixed.items()}, alt)


def spec_key(spec: dict) -> str:
    """A stable name for the rendered states: the spec and the source of every module of dpcourse.

    Any change of the package (a plotting function, or a mechanism it draws) gives new names, so a
    cache of rendered states keyed by this name is never stale.
    """
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode())
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# The style of a live figure in the book. An image is shown at most as wide as the text column (about
# 720 px on a 1280 px screen), so its smallest text must be about 11/720 of the image width or more to
# be 11 px or more on the screen: every text of a state is drawn at least ``min_font_pt`` (14 pt at
# 72 dpi, more for figures wider than the column). On a phone the image keeps a minimum width at which
# that text is 9 px (``phone_min_width``) and its box scrolls sideways (see _static/course.css).
LIVE_STYLE = {"font.size": 14, "axes.titlesize": 14, "axes.labelsize": 14, "xtick.labelsize": 14,
              "ytick.labelsize": 14, "legend.fontsize": 14, "figure.titlesize": 14}
MIN_FONT_PT = 14.0
COLUMN_PX = 720
PHONE_MIN_TEXT_PX = 9


def min_font_pt(width_px: float) -> float:
    """The smallest font (in pt at 72 dpi, i.e. px) of a live figure ``width_px`` wide."""
    return MIN_FONT_PT * max(1.0, width_px / COLUMN_PX)


HEIGHT_FACTOR = 1.2


def _thin_fixed_labels(ax, font_px, dpi):
    """Show every k-th label of a long list of fixed x tick labels, so that neighbours do not overlap."""
    from matplotlib.ticker import FixedFormatter, FixedLocator

    axis = ax.xaxis
    if not isinstance(axis.get_major_locator(), FixedLocator):
        return
    locs, formatter = list(axis.get_major_locator().locs), axis.get_major_formatter()
    labels = [formatter(v, i) for i, v in enumerate(locs)]
    width_px = ax.get_position().width * ax.figure.get_figwidth() * dpi
    longest = max((len(str(label)) for label in labels), default=1)
    fits = max(1, int(width_px // (font_px * (0.62 * longest + 0.8))))
    if len(labels) > fits:
        step = -(-len(labels) // fits)
        axis.set_major_formatter(FixedFormatter([lab if i % step == 0 else "" for i, lab in enumerate(labels)]))


def _wrap(text, fig, dpi):
    """Break a title that is wider than its axes (or the figure) into lines."""
    import textwrap

    content = text.get_text()
    if not content or "$" in content or "\n" in content:
        return
    ax = next((a for a in fig.axes if a.title is text), None)
    width_px = (ax.get_position().width if ax is not None else 0.96) * fig.get_figwidth() * dpi
    chars = max(12, int(width_px / (0.58 * text.get_fontsize() * dpi / 72)))
    if len(content) > chars:
        text.set_text(textwrap.fill(content, chars))


def _texts(fig):
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def _save_png(rgba, out_file):
    """Save a rendered figure as a palette PNG (256 colours: about a third of the bytes of an RGB PNG)."""
    from PIL import Image

    image = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))
    image.quantize(256, method=Image.Quantize.FASTOCTREE).save(out_file, format="PNG", compress_level=6)


def draw_state(ex: "Explorer", params: dict, out_file, *, dpi: int = 72) -> float:
    """Draw one state of ``ex`` in the book's live-figure style; save it as PNG; return its smallest text in px.

    The plotting function runs unchanged; its ``tight_layout`` calls are deferred to the save (one layout
    pass, after the fonts are final), and every text smaller than :func:`min_font_pt` is enlarged.
    """
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    original = Figure.tight_layout

    def deferred(self, *, pad=1.08, h_pad=None, w_pad=None, rect=None):
        self.set_layout_engine("tight", pad=pad, h_pad=h_pad, w_pad=w_pad, rect=rect)

    Figure.tight_layout = deferred
    try:
        with plt.rc_context(LIVE_STYLE):
            fig = ex.draw(**params)
            floor = min_font_pt(fig.get_figwidth() * dpi)
            fig.set_figheight(fig.get_figheight() * HEIGHT_FACTOR)  # larger text needs a little more height
            for ax in fig.axes:
                for axis in (ax.xaxis, ax.yaxis):
                    axis.set_tick_params(which="both", labelsize=max(floor, LIVE_STYLE["xtick.labelsize"]))
                _thin_fixed_labels(ax, floor, dpi)
            for text in _texts(fig):
                if text.get_fontsize() < floor:
                    text.set_fontsize(floor)
            for text in [fig._suptitle, *(ax.title for ax in fig.axes)]:
                if text is not None:
                    _wrap(text, fig, dpi)
            if fig.get_layout_engine() is None:
                fig.set_layout_engine("tight")
            fig.set_dpi(dpi)
            fig.canvas.draw()  # runs the layout engine, then renders
            _save_png(np.asarray(fig.canvas.buffer_rgba()), out_file)
            smallest = min((t.get_fontsize() for t in _texts(fig)), default=floor) * dpi / 72
    finally:
        Figure.tight_layout = original
        plt.close("all")
    return smallest


def render_states(spec: dict, out_dir, *, dpi: int = 72) -> list[str]:
    """Draw the figure of every combination of control values; write ``0.png, 1.png, ...`` in ``out_dir``.

    The order is row-major over the controls in the spec's order (the last control varies fastest).
    Returns the file names. Files already present are kept (the caller keys ``out_dir`` by
    :func:`spec_key`, so a changed spec or plotting module gets a fresh folder). ``sizes.json`` in
    ``out_dir`` records, for the page, the largest image width and the smallest text (px) of the states.
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
    for i, combo in enumerate(itertools.product(*grids)):
        name = f"{i}.png"
        names.append(name)
        if (out / name).exists() and name in sizes:
            continue
        tmp = out / f".{name}.{os.getpid()}"  # two builds may share the cache: each writes its own file
        smallest = draw_state(ex, dict(zip(ex.controls, combo)), tmp, dpi=dpi)
        with open(tmp, "rb") as f:
            f.seek(16)
            width = int.from_bytes(f.read(4), "big")  # the PNG header's width
        sizes[name] = [width, smallest]
        tmp.replace(out / name)  # atomic: a reader sees the old file, the new one, or none
    tmp = out / f".sizes.json.{os.getpid()}"
    tmp.write_text(json.dumps(sizes, sort_keys=True))
    tmp.replace(sizes_file)
    return names


def page_sizes(out_dir) -> dict:
    """Largest width (px), smallest text (px) of the states in ``out_dir``, and the phone minimum width."""
    sizes = json.loads((Path(out_dir) / "sizes.json").read_text()).values()
    width = max(w for w, _ in sizes)
    text = min(t for _, t in sizes)
    return {"width": width, "min_text_px": text,
            "phone_min_width": min(width, int(-(-width * PHONE_MIN_TEXT_PX // text)))}
