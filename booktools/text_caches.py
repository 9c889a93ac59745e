"""Faster drawing of many figures: matplotlib's text caches shared between figures, ticks copied cheaply.

:func:`shared_text_caches` patches private matplotlib internals for as long as it is entered (the states of the
live figures, and each static figure as it is printed): the same pixels (``tests/test_explorer.py``) in less time.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["shared_text_caches"]

# Process-wide caches for drawing states (see ``shared_text_caches``), emptied when they hold this many entries.
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
def shared_text_caches():
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
