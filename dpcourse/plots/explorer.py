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

import contextlib
import hashlib
import html
import importlib
import inspect
import itertools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["Control", "Explorer", "explorer", "render_states", "draw_state", "page_sizes", "MAX_STATES",
           "book_style", "install_static_style", "legends_over_data", "free_legends"]

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
              "ytick.labelsize": 14, "legend.fontsize": 14, "figure.titlesize": 14,
              # titles at a fixed height above the axes: the automatic one measures the axis's ticks at every
              # draw (a third of a log-axis state's time), only to lift the title over top tick labels, which
              # no figure of the book has
              "axes.titley": 1.0}
MIN_FONT_PT = 14.0
COLUMN_PX = 720
PHONE_MIN_TEXT_PX = 9


def min_font_pt(width_px: float) -> float:
    """The smallest font (in pt at 72 dpi, i.e. px) of a live figure ``width_px`` wide."""
    return MIN_FONT_PT * max(1.0, width_px / COLUMN_PX)


HEIGHT_FACTOR = 1.2


def _thin_fixed_labels(ax, size_pt, dpi):
    """Show every k-th label of a list of fixed x tick labels (the smallest k), so that neighbours do not overlap.

    Each label is measured (its widest line, at ``size_pt``) and two shown neighbours need half their widths
    and a gap of 0.8 em between their ticks, at the axes' width when drawn at ``dpi``. The full list is kept
    on the axis, so that :func:`_rethin_fixed_labels` can thin it again once the layout has set that width.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.ticker import FixedLocator

    axis = ax.xaxis
    if not isinstance(axis.get_major_locator(), FixedLocator):
        return
    locs, formatter = list(axis.get_major_locator().locs), axis.get_major_formatter()
    labels = [str(formatter(v, i)) for i, v in enumerate(locs)]
    if len(labels) < 2 or ax.get_xscale() != "linear":
        return
    renderer, prop = ax.figure.canvas.get_renderer(), FontProperties(size=size_pt)
    widths = [max((renderer.get_text_width_height_descent(line, prop, ismath="$" in line)[0]
                   for line in label.split("\n") if line.strip()), default=0.0) * dpi / renderer.dpi
              for label in labels]
    axis._dpcourse_fixed_labels = (locs, labels, widths, 0.8 * size_pt * dpi / 72, dpi, 1)
    _apply_label_step(ax)


def _apply_label_step(ax) -> bool:
    """Thin the fixed labels kept by :func:`_thin_fixed_labels` for the axes' current width; True if that
    changed which labels are shown."""
    from matplotlib.ticker import FixedFormatter

    axis = ax.xaxis
    locs, labels, widths, gap, dpi, shown = axis._dpcourse_fixed_labels
    lo, hi = ax.get_xlim()
    if hi == lo:
        return False
    px_per_unit = ax.get_position().width * ax.figure.get_figwidth() * dpi / abs(hi - lo)

    def fits(step):
        return all(abs(locs[i + step] - locs[i]) * px_per_unit >= (widths[i] + widths[i + step]) / 2 + gap
                   for i in range(0, len(labels) - step, step))

    step = next((k for k in range(1, len(labels)) if fits(k)), len(labels))
    if step == shown:
        return False
    axis._dpcourse_fixed_labels = (locs, labels, widths, gap, dpi, step)
    axis.set_major_formatter(FixedFormatter([lab if i % step == 0 else "" for i, lab in enumerate(labels)]))
    return True


def _thin_at_layout(fig, engine, start: dict) -> None:
    """Thin the fixed labels of ``fig`` (if :func:`book_style` thinned any) at the widths its layout engine
    gives its axes; the subplot parameters are then put back to ``start``, where the drawing's own layout
    begins (so a state whose labels stay as they were is drawn exactly as without this step)."""
    if engine is None or not any(hasattr(ax.xaxis, "_dpcourse_fixed_labels") for ax in fig.axes):
        return
    engine.execute(fig)
    _rethin_fixed_labels(fig)
    fig.subplots_adjust(**start)


def _rethin_fixed_labels(fig) -> bool:
    """Thin again, at the width the layout gave each axes, the fixed labels that :func:`book_style` measured
    before the layout (a live state is styled at the default margins, where its axes are narrower): True if
    a label was shown or hidden."""
    changed = False
    for ax in fig.axes:
        if hasattr(ax.xaxis, "_dpcourse_fixed_labels"):
            changed |= _apply_label_step(ax)
    return changed


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
    """The visible texts of ``fig`` other than tick labels (an axis contributes its label and offset text).

    Tick labels are left out: ``book_style`` sizes them with ``set_tick_params`` (which also covers
    ticks made later), and walking an axis's children would make every tick of a log axis, the
    dearest step of a state.
    """
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    found, stack = [], [fig]
    while stack:
        artist = stack.pop()
        children = [artist.label, artist.offsetText] if isinstance(artist, Axis) else artist.get_children()
        for child in children:
            if isinstance(child, Text) and child.get_visible() and child.get_text().strip():
                found.append(child)
            stack.append(child)
    return found


def _save_png(rgba, out_file):
    """Save a rendered figure as a palette PNG (256 colours: about a third of the bytes of an RGB PNG)."""
    from PIL import Image

    image = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))
    image.quantize(256, method=Image.Quantize.FASTOCTREE).save(out_file, format="PNG", compress_level=6)


def book_style(fig, dpi: float) -> float:
    """Put a drawn-but-not-rendered figure in the book's style for a ``dpi`` rendering; return the font floor (pt).

    The figure gets a little taller (larger text needs more height), every tick label and every text
    smaller than :func:`min_font_pt` is enlarged to it, long fixed tick-label lists are thinned and long
    titles wrapped. Used for the live figures' states (:func:`draw_state`) and for the static figures of
    the notebooks (:func:`install_static_style`), so both have the same smallest text on the page.
    """
    floor = min_font_pt(fig.get_figwidth() * dpi)
    fig.set_figheight(fig.get_figheight() * HEIGHT_FACTOR)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_tick_params(which="both", labelsize=max(floor, LIVE_STYLE["xtick.labelsize"]))
        _thin_fixed_labels(ax, max(floor, LIVE_STYLE["xtick.labelsize"]), dpi)
    for text in _texts(fig):
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)
    for text in [fig._suptitle, *(ax.title for ax in fig.axes)]:
        if text is not None:
            _wrap(text, fig, dpi)
    return floor


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


# Process-wide caches for drawing states (see ``_shared_text_caches``), emptied when they hold this many entries.
_TEXT_CACHE_CAP = 50_000
_MATH_PARSES: dict = {}
_FONT_TABLES: dict = {}
# the rcParams a font lookup depends on besides the font properties (those of matplotlib's own findfont cache)
_FONT_RC = tuple(f"font.{k}" for k in ("family", "style", "variant", "weight", "stretch", "size", "serif",
                                        "sans-serif", "cursive", "fantasy", "monospace"))
_TEXT_METRICS: dict = {}


def _cached(cache, key, compute):
    try:
        return cache[key]
    except KeyError:
        if len(cache) >= _TEXT_CACHE_CAP:
            cache.clear()
        value = cache[key] = compute()
        return value


def _clone_artist(artist):
    """A shallow copy of an artist with its own callback registry and sticky edges (what a copy may change)."""
    from matplotlib import cbook

    clone = object.__new__(type(artist))
    clone.__dict__ = artist.__dict__.copy()
    clone._callbacks = cbook.CallbackRegistry(signals=["pchanged"])
    if artist._sticky_edges is not None:
        clone._sticky_edges = type(artist._sticky_edges)(list(artist._sticky_edges.x), list(artist._sticky_edges.y))
    return clone


_TICK_PARTS = ("tick1line", "tick2line", "gridline", "label1", "label2")


def _clone_tick(tick):
    """A new tick with the properties of ``tick`` (as ``Axis._get_tick`` and ``_copy_tick_props`` make it)."""
    from matplotlib.markers import MarkerStyle
    from matplotlib.text import Text

    clone = _clone_artist(tick)
    for name in _TICK_PARTS:
        part = getattr(tick, name)
        copy = _clone_artist(part)
        if isinstance(part, Text):
            copy._fontproperties = part._fontproperties.copy()
        else:
            copy._marker = MarkerStyle(part._marker)
        setattr(clone, name, copy)
    return clone


def _clonable(tick) -> bool:
    from matplotlib.axis import XTick, YTick

    return (type(tick) in (XTick, YTick) and tick.label1._bbox_patch is None and tick.label2._bbox_patch is None
            and tick.get_path_effects() == [] and all(getattr(tick, n).get_path_effects() == [] for n in _TICK_PARTS))


@contextlib.contextmanager
def _shared_text_caches():
    """While drawing states and printing static figures: share matplotlib's text caches between figures, copy
    ticks and markers cheaply (the same pixels: ``tests/test_explorer.py``).

    Matplotlib keys its mathtext parses (an LRU cache of 50) and its text metrics on the renderer, and
    every state is a new figure with a new renderer: the same tick labels (``$10^{-3}$`` ...) were
    parsed and measured again in each state, about a quarter of a state's drawing time. Here both are kept
    per process for the Agg renderer, keyed by everything the result depends on (text, font properties,
    dpi, antialiasing and hinting flags), so a result is reused only where it would be computed the same.

    A tick copies its markers from the axis's first tick, and ``MarkerStyle(other)`` deep-copies the
    other style's attributes (its bound method drags a second copy along): for a style without a user
    transform (the only attribute a copy may change in place), a shallow copy of the attributes with the
    marker function bound to the new style is the same style, for a small fraction of the time.

    An axis makes each new tick from its tick parameters and then copies the properties of its first tick
    onto it (a third of the drawing time of a log axis, with its many minor ticks): here a plain x or y
    tick is copied from the first tick directly (its artists shallow-copied, with their own font
    properties, markers and callbacks); position and label are set by the axis afterwards, as before.

    One drawing of a figure updates each axis's ticks several times (for its own drawing, for the tight
    layout, for the position of its neighbours' labels): an update is remembered, keyed by everything the
    ticks and their labels depend on (view interval, scale, smallest positive value, the axes' size in
    pixels, locators, formatters and tick parameters), until the state is drawn.

    To lay out a text, matplotlib looks up its font file from its font properties and reads the font's
    line metrics (its ``OS/2``, ``hhea`` and ``head`` tables) again for every text at every layout (the 488
    states of the book: 124.8 CPU-s with that, 120.8 without): here the tables of a font are read once,
    keyed by what the lookup depends on (the font properties other than the size, and the font
    ``rcParams`` that matplotlib's own font lookup is keyed by).
    """
    from matplotlib.axis import Axis
    import matplotlib as mpl
    from matplotlib import markers
    from matplotlib import text as mtext
    from matplotlib.backends.backend_agg import RendererAgg, get_hinting_flag
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    parse_cached = MathTextParser.__dict__["_parse_cached"]
    metrics_function = mtext._get_text_metrics_function
    set_marker = markers.MarkerStyle._set_marker
    get_major_ticks, get_minor_ticks = Axis.get_major_ticks, Axis.get_minor_ticks
    update_ticks = Axis._update_ticks
    updated: dict = {}
    manager, get_font = mtext.fontManager, mtext.get_font

    class SharedTables:
        """What ``Text._get_layout`` asks of ``get_font(fontManager._find_fonts_by_props(prop))``: sfnt tables."""

        def __init__(self, prop):
            self.prop = prop

        def get_sfnt_table(self, name):
            prop = self.prop
            key = (tuple(prop.get_family()), prop.get_slant(), prop.get_variant(), prop.get_weight(),
                   prop.get_stretch(), prop.get_file(), prop.get_math_fontfamily(),
                   tuple(tuple(v) if isinstance(v := mpl.rcParams[k], list) else v for k in _FONT_RC),
                   os.getenv("MPL_IGNORE_SYSTEM_FONTS"), name)
            return _cached(_FONT_TABLES, key,
                           lambda: get_font(manager._find_fonts_by_props(prop)).get_sfnt_table(name))

    class SharedManager:
        def __getattr__(self, name):
            return getattr(manager, name)

        def _find_fonts_by_props(self, prop, *args, **kwargs):
            if args or kwargs or not isinstance(prop, FontProperties):
                return manager._find_fonts_by_props(prop, *args, **kwargs)
            return SharedTables(prop)

    def shared_get_font(font_filepaths, *args, **kwargs):
        if isinstance(font_filepaths, SharedTables):
            return font_filepaths
        return get_font(font_filepaths, *args, **kwargs)

    def remembered_update_ticks(self):
        key = (id(self), tuple(self.get_view_interval()), self.get_scale(), self.get_minpos(),
               tuple(self.axes.bbox.bounds), id(self.major.locator), id(self.minor.locator),
               id(self.major.formatter), id(self.minor.formatter), repr(self._major_tick_kw),
               repr(self._minor_tick_kw))
        hit = updated.get(key)
        if hit is None or hit[0] is not self:
            hit = updated[key] = (self, update_ticks(self))
        return list(hit[1])

    def shared_parse(self, s, dpi, prop, antialiased, load_glyph_flags):
        return _cached(_MATH_PARSES, (self._output_type, s, dpi, prop, antialiased, load_glyph_flags),
                       lambda: parse_cached.__wrapped__(self, s, dpi, prop, antialiased, load_glyph_flags))

    def shared_metrics_function(renderer):
        if type(renderer) is not RendererAgg:
            return metrics_function(renderer)

        def metrics(text, fontprop, ismath, dpi):
            return _cached(_TEXT_METRICS, (text, fontprop, ismath, dpi, renderer.dpi, get_hinting_flag(),
                                           mpl.rcParams["text.hinting_factor"]),
                           lambda: renderer.get_text_width_height_descent(text, fontprop, ismath))

        return metrics

    def cheap_set_marker(self, marker):
        if type(marker) is not markers.MarkerStyle or marker._user_transform is not None:
            return set_marker(self, marker)
        self.__dict__ = dict(marker.__dict__)
        if marker._marker_function is not None:
            self._marker_function = getattr(self, marker._marker_function.__name__)

    def grow(ticks, numticks, original):
        while ticks and len(ticks) < numticks and _clonable(ticks[0]):
            ticks.append(_clone_tick(ticks[0]))
        return original

    def cloning_major_ticks(self, numticks=None):
        numticks = len(self.get_majorticklocs()) if numticks is None else numticks
        return grow(self.majorTicks, numticks, get_major_ticks)(self, numticks)

    def cloning_minor_ticks(self, numticks=None):
        numticks = len(self.get_minorticklocs()) if numticks is None else numticks
        return grow(self.minorTicks, numticks, get_minor_ticks)(self, numticks)

    Axis.get_major_ticks, Axis.get_minor_ticks = cloning_major_ticks, cloning_minor_ticks
    Axis._update_ticks = remembered_update_ticks
    MathTextParser._parse_cached = shared_parse
    mtext._get_text_metrics_function = shared_metrics_function
    markers.MarkerStyle._set_marker = cheap_set_marker
    mtext.fontManager, mtext.get_font = SharedManager(), shared_get_font
    try:
        yield
    finally:
        mtext.fontManager, mtext.get_font = manager, get_font
        MathTextParser._parse_cached = parse_cached
        mtext._get_text_metrics_function = metrics_function
        markers.MarkerStyle._set_marker = set_marker
        Axis.get_major_ticks, Axis.get_minor_ticks = get_major_ticks, get_minor_ticks
        Axis._update_ticks = update_ticks
        updated.clear()


def draw_state(ex: "Explorer", params: dict, out_file, *, dpi: int = 72, layout: dict | None = None,
               report: dict | None = None) -> float:
    """Draw one state of ``ex`` in the book's live-figure style; save it as PNG; return its smallest text in px.

    ``report["legends_over_data"]`` (if ``report`` is a dict) is how many of its legends cover data, a
    text or the edge of the figure (:func:`legends_over_data`): the check of :func:`legends_below`.

    The plotting function runs unchanged; its ``tight_layout`` calls are deferred to the save (one layout
    pass, after the fonts are final), every text smaller than :func:`min_font_pt` is enlarged, and every
    legend goes below its axes (:func:`legends_below`: where a slider cannot move data under it).

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
        with plt.rc_context(LIVE_STYLE), _shared_text_caches():
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


def _short(x: float) -> str:
    """A number as a reader would say it: 3 significant digits (what the figure's ticks let one read)."""
    if not np.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "undefined")
    return f"{x:.3g}".replace("-", "−")


_TEX_WORDS = {r"\varepsilon": "ε", r"\epsilon": "ε", r"\delta": "δ", r"\Delta": "Δ", r"\mu": "μ",
              r"\sigma": "σ", r"\alpha": "α", r"\beta": "β", r"\rho": "ρ", r"\lambda": "λ", r"\pi": "π",
              r"\theta": "θ", r"\pm": "±", r"\le": "≤", r"\ge": "≥", r"\leq": "≤", r"\geq": "≥",
              r"\times": "×", r"\cdot": "·", r"\infty": "∞", r"\approx": "≈", r"\ln": "ln", r"\log": "log",
              r"\exp": "exp", r"\Pr": "Pr", r"\ell": "ℓ", r"\sqrt": "√", r"\to": "→", r"\mid": "|"}


def _plain(text: str) -> str:
    """A figure's text as a screen reader should say it: mathtext to Unicode, one line."""
    if "$" in text:
        for tex, uni in sorted(_TEX_WORDS.items(), key=lambda kv: -len(kv[0])):
            text = re.sub(re.escape(tex) + r"(?![A-Za-z])", uni, text)
        text = re.sub(r"\\(?:mathrm|mathcal|mathbf|text|operatorname)\{([^}]*)\}", r"\1", text)
        text = text.replace("$", "").replace("{", "").replace("}", "").replace("\\", "")
    return " ".join(text.split())


def describe_figure(fig) -> str:
    """A text alternative of a drawn figure: per panel its title and axes, each labelled curve's range, the
    bars' heights and the panel's own texts (where figures write their key numbers).

    Written for a reader who cannot see the image (the live figures' ``alt`` text changes with each slider
    setting); numbers are rounded to 3 significant digits, as one reads them off a plot.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1, 2], [0.5, 0.25, 0.125], label="density")
    >>> _ = ax.set(title="Noise", xlabel="x", ylabel="p")
    >>> describe_figure(fig)
    'Noise (x against p): density from 0.5 at x = 0 to 0.125 at x = 2.'
    >>> plt.close(fig)
    """
    from matplotlib.container import BarContainer

    panels = []
    for ax in fig.get_axes():
        if not ax.get_visible() or not (ax.lines or ax.patches or ax.collections or ax.texts or ax.images):
            continue
        parts = []
        head = _plain(ax.get_title()) or "panel"
        xl, yl = _plain(ax.get_xlabel()), _plain(ax.get_ylabel())
        if xl or yl:
            head += f" ({xl or 'x'} against {yl or 'y'})"
        for line in ax.get_lines():
            label = _plain(str(line.get_label()))
            if label.startswith("_"):
                continue
            x, y = (np.asarray(v, dtype=float) for v in line.get_data())
            ok = np.isfinite(x) & np.isfinite(y)
            if not ok.any():
                continue
            x, y = x[ok], y[ok]
            if np.ptp(y) == 0:
                parts.append(f"{label} at {_short(y[0])}")
            else:
                parts.append(f"{label} from {_short(y[0])} at {xl or 'x'} = {_short(x[0])} to {_short(y[-1])} at "
                             f"{xl or 'x'} = {_short(x[-1])}" + (f", largest {_short(y.max())}"
                                                                if y.max() > max(y[0], y[-1]) else ""))
        for container in ax.containers:
            if isinstance(container, BarContainer) and len(container):
                heights = np.array([b.get_height() for b in container], dtype=float)
                label = str(container.get_label())
                name = label if not label.startswith("_") else "bars"
                parts.append(f"{name}: {len(heights)} bars, heights {_short(np.nanmin(heights))} to "
                             f"{_short(np.nanmax(heights))}")
        parts += [_plain(t.get_text()) for t in ax.texts if t.get_visible() and t.get_text().strip()]
        panels.append(head + (": " + "; ".join(parts) if parts else "") + ".")
    return " ".join(panels)


def _state_legends_over_data(fig, drawn) -> int:
    """How many legends of a drawn state cover data, a text or the figure's edge (:func:`legends_over_data`,
    given the texts that were drawn). A live figure's legends are below their axes (:func:`legends_below`), so
    this counts the states where that placement failed."""
    if not any(ax.get_legend() is not None for ax in fig.axes):
        return 0
    return len(legends_over_data(fig, fig.canvas.get_renderer(), drawn))


def _densify(xy, step=2.0):
    """The points of a polyline every ``step`` px or closer (so that a segment through a box is seen)."""
    seg = np.diff(xy, axis=0)
    k = np.clip(np.ceil(np.hypot(seg[:, 0], seg[:, 1]) / step).astype(int), 1, 1000)
    idx = np.repeat(np.arange(len(seg)), k)
    t = (np.arange(k.sum()) - np.repeat(np.cumsum(k) - k, k)) / np.repeat(k, k)
    return np.vstack([xy[idx] + seg[idx] * t[:, None], xy[-1:]])


def _finite(xy):
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    return xy[np.isfinite(xy).all(axis=1)]


def _data_marks(ax, renderer):
    """What a legend of ``ax`` must not cover, in display px: points (N x 2) and boxes (bars, patches, texts).

    Lines (every point of every segment, sampled every 2 px), markers and scatter points, the outlines of
    filled areas and of line collections (error bars, vlines), inside the axes; bars and other patches
    (their extent) and annotation texts.
    """
    from matplotlib.collections import PathCollection

    clip = ax.get_window_extent(renderer)
    points = [np.empty((0, 2))]
    for line in ax.lines:
        if line.get_visible():
            xy = _finite(line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float)))
            if len(xy) > 1 and line.get_linestyle() not in ("None", "", " ", "none"):
                xy = _densify(xy)
            points.append(xy)
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection) and len(coll.get_offsets()):
            points.append(_finite(coll.get_offset_transform().transform(coll.get_offsets())))
            continue
        transform = coll.get_transform()
        for path in coll.get_paths():
            xy = _finite(transform.transform(path.vertices))
            if len(xy) > 1:
                points.append(_densify(xy))
    pts = np.vstack(points)
    pts = pts[(pts[:, 0] >= clip.x0) & (pts[:, 0] <= clip.x1) & (pts[:, 1] >= clip.y0) & (pts[:, 1] <= clip.y1)]
    boxes = []
    for artist in [*ax.patches, *ax.texts]:
        if artist.get_visible():
            extent = artist.get_window_extent(renderer)
            if extent.width >= 0.5 and extent.height >= 0.5 and extent.overlaps(clip):
                boxes.append(extent)
    return pts, boxes


def _covers(box, marks) -> bool:
    pts, boxes = marks
    inside = (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
    return bool(inside.any()) or any(b.overlaps(box) for b in boxes)


def legends_over_data(fig, renderer, texts=None) -> list[int]:
    """The indices (in ``fig.axes``) of the axes whose legend covers some of their data, in a drawn figure.

    Data: see ``_data_marks``; the tick labels and labels of the axes count as data too (a legend placed
    below its axes must not run into them), and so does every other axes of the figure, with its ticks and
    labels (a legend pushed out of its axes must not land on the next plot; a twin or an inset, which share
    the axes' area, are left out). With ``texts`` (the texts drawn, as :func:`draw_state` records them for a
    live state), a legend must run into none of them but its own, and must not be cut by the edge of the
    figure (a static figure is printed with ``bbox_inches="tight"``: its edge grows instead).
    """
    found = []
    areas = [other.get_window_extent(renderer) for other in fig.axes]
    for index, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer).padded(-1)
        others = [other for other, area in zip(fig.axes, areas)
                  if other.get_visible() and not area.overlaps(areas[index])]
        if box.overlaps(areas[index]) and _covers(box, _data_marks(ax, renderer)):
            found.append(index)
        elif any((extent := other.get_tightbbox(renderer)) is not None and extent.overlaps(box) for other in others):
            found.append(index)  # on another plot (its area, ticks or labels)
        elif texts is None and any(axis.get_visible() and (extent := axis.get_tightbbox(renderer)) is not None
                                   and extent.width > 0 and extent.overlaps(box) for axis in (ax.xaxis, ax.yaxis)):
            found.append(index)
        elif texts is not None and any(text.get_window_extent(renderer).overlaps(box) for text in texts
                                       if text not in legend.texts and text is not legend.get_title()):
            found.append(index)
        elif texts is not None and (box.x0 < 0 or box.y0 < 0 or box.x1 > fig.bbox.width
                                    or box.y1 > fig.bbox.height):
            found.append(index)  # cut by the edge of the figure
    return found


# where a legend that covers data is tried next, in this order (inside the axes), before going below it
LEGEND_PLACES = ("upper right", "upper left", "lower right", "lower left", "center right", "center left",
                 "upper center", "lower center")


def free_legends(fig, renderer) -> int:
    """Move every legend that covers data (in a drawn figure) to a corner of its axes where it covers none;
    if there is no such corner, raise the top of the y axis to make room above the data for it in the
    upper right corner. Returns how many were moved."""
    from matplotlib.transforms import Bbox

    moved = 0
    for index in legends_over_data(fig, renderer):
        ax = fig.axes[index]
        legend = ax.get_legend()
        box, clip = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        marks = _data_marks(ax, renderer)
        pad = legend.borderaxespad * legend.prop.get_size_in_points() * fig.dpi / 72
        for place in LEGEND_PLACES:
            fx = 0.0 if "left" in place else 1.0 if "right" in place else 0.5
            fy = 0.0 if "lower" in place else 1.0 if "upper" in place else 0.5
            x0 = clip.x0 + pad + fx * (clip.width - 2 * pad - box.width)
            y0 = clip.y0 + pad + fy * (clip.height - 2 * pad - box.height)
            if not _covers(Bbox.from_bounds(x0, y0, box.width, box.height).padded(-1), marks):
                legend.set_bbox_to_anchor(None)
                legend.set_loc(place)
                break
        else:  # no free corner: raise the top of the y axis until the data stays below the legend
            lo, hi = ax.get_ylim()
            room = clip.height / max(clip.height - box.height - 3 * pad, 0.3 * clip.height)
            ax.set_ylim(lo, lo * (hi / lo) ** room if ax.get_yscale() == "log" else lo + (hi - lo) * room)
            legend.set_bbox_to_anchor(None)
            legend.set_loc("upper right")
        moved += 1
    return moved


def _legend_columns(legend, widths_pt, width_pt: float, size: float) -> int:
    """The most columns (up to one per entry) in which the legend's entries (labels ``widths_pt`` wide)
    fit ``width_pt``."""
    entry = [(legend.handlelength + legend.handletextpad) * size + w for w in widths_pt]
    for ncols in range(len(entry), 1, -1):
        rows = -(-len(entry) // ncols)
        columns = [max(entry[c * rows:(c + 1) * rows], default=0) for c in range(ncols)]
        if sum(columns) + (ncols - 1) * legend.columnspacing * size + 2 * legend.borderpad * size <= width_pt:
            return ncols
    return 1


def legends_below(fig, floor: float, indices=None) -> None:
    """Put the legend of every axes of ``fig`` (or of the axes ``indices``) below it, under its x tick labels and
    x label, in as many columns as fit under the axes: a legend there covers no data in any state, so a slider
    cannot move data under it. Called before the figure is drawn: the drop below the axes is computed from
    the font sizes (in points), so no extra draw is needed; the figure grows by the legend's height.
    ``floor`` is the smallest font (pt) of the figure.

    A legend made by ``ax.legend(...)`` while :func:`draw_state` runs remembers its call
    (``_dpcourse_call``); it is made again with more columns when they fit.
    """
    from matplotlib.transforms import ScaledTranslation

    grown: dict = {}
    for ax in fig.axes if indices is None else [fig.axes[i] for i in indices]:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        # the legend is centred under the axes and at most about as wide as they will be (3/4 of their cell
        # of the figure's grid): a wider one would stick out on both sides, and the tight layout, which makes
        # room for it there, would give the state a layout that depends on where its axes were before
        spec = ax.get_subplotspec()
        share = len(spec.colspan) / spec.get_gridspec().ncols if spec is not None else ax.get_position().width
        call = getattr(legend, "_dpcourse_call", None)
        if call is not None and len(legend.texts) > 1:
            size = max(legend.prop.get_size_in_points(), floor)
            renderer, scale = fig.canvas.get_renderer(), 72 / fig.dpi
            widths = [t.get_window_extent(renderer).width * scale * size / t.get_fontsize() for t in legend.texts]
            ncols = _legend_columns(legend, widths, 0.75 * share * fig.get_figwidth() * 72, size)
            if ncols != legend._ncols:
                args, kwargs = call
                kwargs = {k: v for k, v in kwargs.items() if k not in ("ncol", "ncols")}  # ncol beats ncols=1
                legend = ax.legend(*args, **kwargs, ncols=ncols)
                for text in [*legend.texts, legend.get_title()]:
                    if text.get_fontsize() < floor:
                        text.set_fontsize(floor)
        axis = ax.xaxis
        drop = 0.0
        if axis.get_visible() and axis.get_ticks_position() in ("bottom", "default") and axis.get_ticklabels():
            tick = axis.get_major_ticks()[0] if axis.get_major_ticks() else None
            size = tick.label1.get_fontsize() if tick is not None else floor
            drop += (tick.get_tick_padding() + tick.get_pad() if tick is not None else 7) + 1.3 * size
        if axis.get_visible() and axis.label.get_visible() and axis.label.get_text().strip():
            lines = axis.label.get_text().count("\n") + 1
            drop += axis.labelpad + 1.2 * axis.label.get_fontsize() * lines
        legend.set_loc("upper center")
        legend.set_bbox_to_anchor((0.5, 0.0), transform=ax.transAxes + ScaledTranslation(0, -drop / 72,
                                                                                          fig.dpi_scale_trans))
        # the figure grows by the legend's height, so that the axes keep theirs (per row of the grid: the
        # tallest legend of the row)
        size = max(legend.prop.get_size_in_points(), floor)
        rows = -(-len(legend.texts) // max(legend._ncols, 1)) + (1 if legend.get_title().get_text() else 0)
        height = (rows * (1.2 + legend.labelspacing) + 2 * legend.borderpad + legend.borderaxespad) * size
        row = spec.rowspan.stop if spec is not None else ax.get_position().y0
        grown[row] = max(grown.get(row, 0.0), height)
    if grown:
        fig.set_figheight(fig.get_figheight() + sum(grown.values()) / 72)


STATIC_DPI = 72
HOOK = "dpcourse.plots.explorer:_static_figure_hook"


def _drawn_texts(fig):
    """The visible texts of a drawn figure, tick labels of the drawn ticks included."""
    texts = _texts(fig)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_visible():
                for tick in axis._update_ticks():
                    texts += [lab for lab in (tick.label1, tick.label2) if lab.get_visible() and lab.get_text().strip()]
    return texts


def _static_figure_hook(fig):
    """``figure.hooks`` entry: a figure printed as PNG (how Jupyter shows it) is first put in the book style.

    Its PNG then carries, as text chunks, what it was drawn with: ``dpcourse:min-text-px`` (its smallest
    text, px in the image) and ``dpcourse:legends-over-data`` (how many legends cover data, see
    :func:`legends_over_data`); the book build reads them (``_ext/course_html.py``) and the browser test
    checks the text size as shown and that no legend covers data.
    """
    from matplotlib import cbook

    canvas = fig.canvas
    original = canvas.print_figure

    def print_figure(filename, *args, **kwargs):
        if kwargs.get("format") != "png":
            return original(filename, *args, **kwargs)
        with _shared_text_caches():  # the same pixels in about 60% of the time (see there)
            return styled_print(filename, *args, **kwargs)

    def styled_print(filename, *args, **kwargs):
        dpi = kwargs.get("dpi")
        dpi = fig.dpi if not isinstance(dpi, (int, float)) else dpi
        if not getattr(fig, "_dpcourse_styled", False):
            fig._dpcourse_styled = True
            floor = book_style(fig, dpi)
            if fig.get_layout_engine() is None:
                fig.set_layout_engine("tight")
            if any(ax.get_legend() is not None for ax in fig.axes):
                with cbook._setattr_cm(fig, dpi=dpi):
                    canvas.draw()  # where the legends land, at the size printed
                    if free_legends(fig, canvas.get_renderer()):
                        canvas.draw()
                        # the last resort: below the axes (beside them, a legend can land on the next plot)
                        stuck = legends_over_data(fig, canvas.get_renderer())
                        if stuck:
                            legends_below(fig, floor, stuck)
        report = dict(kwargs.pop("metadata", None) or {})

        def measure(event):  # the last draw is the one saved; imsave reads ``report`` after it
            texts = _drawn_texts(fig)
            report["dpcourse:min-text-px"] = f"{min(t.get_fontsize() for t in texts) * fig.dpi / 72:.2f}" \
                if texts else "0"
            report["dpcourse:legends-over-data"] = str(len(legends_over_data(fig, event.renderer)))

        cid = canvas.mpl_connect("draw_event", measure)
        try:
            return original(filename, *args, metadata=report, **kwargs)
        finally:
            canvas.mpl_disconnect(cid)

    canvas.print_figure = print_figure


def install_static_style():
    """Draw the figures made from now on in the book's style (done by ``import dpcourse.plots``).

    The static figures of the notebooks then have the live figures' fonts (``LIVE_STYLE``, at
    ``STATIC_DPI``) and, when printed as PNG, the font floor of :func:`book_style`, so their smallest
    text is at least 11 px in the book's column on a desktop and 9 px on a phone (where an image keeps
    the width at which that holds, and scrolls sideways).
    """
    import matplotlib as mpl

    mpl.rcParams.update({**LIVE_STYLE, "figure.dpi": STATIC_DPI})
    if HOOK not in mpl.rcParams["figure.hooks"]:
        mpl.rcParams["figure.hooks"] = [*mpl.rcParams["figure.hooks"], HOOK]


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
