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

__all__ = ["Control", "Explorer", "explorer", "render_states", "MAX_STATES"]

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


def render_states(spec: dict, out_dir, *, dpi: int = 72) -> list[str]:
    """Draw the figure of every combination of control values; write ``0.png, 1.png, ...`` in ``out_dir``.

    The order is row-major over the controls in the spec's order (the last control varies fastest).
    Returns the file names. Files already present are kept (the caller keys ``out_dir`` by
    :func:`spec_key`, so a changed spec or plotting module gets a fresh folder).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ex = Explorer(spec["plot"], {c["name"]: Control(c["label"], tuple(c["values"]), c["value"])
                                 for c in spec["controls"]}, spec["fixed"], spec.get("alt", ""))
    names = []
    grids = [c.values for c in ex.controls.values()]
    for i, combo in enumerate(itertools.product(*grids)):
        name = f"{i}.png"
        names.append(name)
        if (out / name).exists():
            continue
        fig = ex.draw(**dict(zip(ex.controls, combo)))
        tmp = out / f".{name}.{os.getpid()}"  # two builds may share the cache: each writes its own file
        fig.savefig(tmp, dpi=dpi, format="png")
        plt.close(fig)
        tmp.replace(out / name)  # atomic: a reader sees the old file, the new one, or none
    return names
