"""Interactive figures that stay live in the static book: one definition, two renderings.

A chapter's experiment is a dpcourse plotting function and a few controls, each with a short list of
values. :func:`explorer` returns an :class:`Explorer`, which a notebook cell displays:

* In a live kernel (Jupyter, Binder, Colab) it is an ipywidgets form whose sliders call the plotting
  function again on every change.
* In the rendered book it is a placeholder (``text/html`` with the explorer's JSON spec). At build
  time the book's Sphinx extension (``_ext/course_html.py``) draws the figure of *every* combination of
  control values with the same plotting function (``booktools/states.py`` in the course repository, the
  book's build tooling, which is not part of this package) and writes them as PNG files; a small script in
  ``_static/course.js`` shows the one that matches the sliders.

So a figure and its controls never disagree, the numbers on the page come from ``dpcourse`` and not
from a second implementation in JavaScript, and no kernel, server or network is needed to move a
slider on the published page. Keep the grid small (the product of the value counts is the number of
figures drawn at build time; at most ``MAX_STATES``).

Importing this module (or ``dpcourse.plots``) changes no matplotlib setting: the book's figure style is
opted in by the processes that draw the book's figures (``booktools/static_figures.py``).
"""

from __future__ import annotations

import html
import importlib
import inspect
import itertools  # noqa: F401  (the example of :func:`explorer`)
import json
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Control", "Explorer", "explorer", "MAX_STATES", "STATIC_DPI"]

MAX_STATES = 64
SPEC_CLASS = "dpcourse-explorer"
#: The dpi of the book's static figures (``booktools.style.STATIC_DPI``, the same number).
STATIC_DPI = 72


@dataclass(frozen=True)
class Control:
    """One control: a label, the values it offers (in slider order) and the value shown first."""

    label: str
    values: tuple
    value: object

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"control {self.label!r} needs at least one value")
        if self.value not in self.values:
            raise ValueError(f"control {self.label!r}: the first value {self.value!r} is not among {self.values!r}")


def _jsonable(value: Any) -> Any:
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

    def function(self) -> Callable[..., Figure]:
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

    def draw(self, **params: Any) -> Figure:
        """The figure for one combination of control values (the other values at their first setting)."""
        values = {n: c.value for n, c in self.controls.items()}
        values.update(params)
        return self.function()(**self.fixed, **values)

    def widget(self) -> Any:
        """The live form: one selection slider per control, redrawing the figure on every change."""
        import ipywidgets as widgets
        import matplotlib.pyplot as plt

        def show(**params: Any) -> None:
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

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        bundle = self.widget()._repr_mimebundle_(include=include, exclude=exclude) or {}
        bundle = dict(bundle)
        bundle["text/html"] = self.placeholder_html()
        return bundle


def explorer(plot: Callable[..., Figure], controls: dict[str, tuple], *, alt: str = "", **fixed: Any) -> Explorer:
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


# Names that moved to the book's build tooling (issue 38): (module, name there).
_MOVED = {
    **{n: ("booktools.states", n) for n in ("render_states", "draw_state", "page_sizes", "state_descriptions",
                                              "spec_key")},
    **{n: ("booktools.style", n) for n in ("book_style", "min_font_pt", "LIVE_STYLE", "MIN_FONT_PT", "COLUMN_PX",
                                             "PHONE_MIN_TEXT_PX", "HEIGHT_FACTOR")},
    **{n: ("booktools.legends", n) for n in ("legends_over_data", "free_legends", "legends_below")},
    **{n: ("booktools.static_figures", n) for n in ("install_static_style", "HOOK")},
    "describe_figure": ("booktools.describe", "describe_figure"),
    "_static_figure_hook": ("booktools.static_figures", "static_figure_hook"),
    "_shared_text_caches": ("booktools.text_caches", "shared_text_caches"),
}


def __getattr__(name: str) -> Any:
    """A name that moved to ``booktools`` (the course repository's build tooling): found there, with a warning."""
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, new = _MOVED[name]
    try:
        found = getattr(importlib.import_module(module), new)
    except ImportError:
        raise AttributeError(f"{__name__}.{name} is the book's build tooling: it is {module}.{new} in the course "
                             f"repository, not part of the dpcourse package") from None
    warnings.warn(f"{__name__}.{name} moved to {module}.{new} (the book's build tooling)", DeprecationWarning,
                  stacklevel=2)
    return found
