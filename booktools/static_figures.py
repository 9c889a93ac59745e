"""The static figures of the notebooks in the book's style: a ``figure.hooks`` entry, opted in by the book's processes.

Importing ``dpcourse`` changes no matplotlib setting. The processes that make the book's figures opt in:

* the kernels that execute the chapters (``tools/execute_notebooks.py``, which stores their outputs, and strict
  nbval, which compares them: ``conftest.py`` at the top of the checkout) run with :func:`kernel_environment`:
  ``MATPLOTLIBRC`` names ``booktools/matplotlibrc`` (``LIVE_STYLE``, ``figure.dpi`` and this hook) and
  ``PYTHONPATH`` has the checkout, so the hook can be imported;
* a Python process calls :func:`install_static_style` (the test process does, in ``conftest.py``).

To see the book's figures in JupyterLab, start it with ``MATPLOTLIBRC=booktools/matplotlibrc`` and
``PYTHONPATH=.`` from the top of the checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

from .legends import free_legends, legends_below, legends_over_data
from .style import LIVE_STYLE, STATIC_DPI, _texts, book_style
from .text_caches import shared_text_caches

__all__ = ["HOOK", "RC_FILE", "static_figure_hook", "install_static_style", "kernel_environment"]

HOOK = "booktools.static_figures:static_figure_hook"
RC_FILE = Path(__file__).resolve().with_name("matplotlibrc")
ROOT = Path(__file__).resolve().parent.parent


def _drawn_texts(fig):
    """The visible texts of a drawn figure, tick labels of the drawn ticks included."""
    texts = _texts(fig)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_visible():
                for tick in axis._update_ticks():
                    texts += [lab for lab in (tick.label1, tick.label2) if lab.get_visible() and lab.get_text().strip()]
    return texts


def static_figure_hook(fig) -> None:
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
        with shared_text_caches():  # the same pixels in about 60% of the time (see there)
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


def install_static_style() -> None:
    """Draw the figures this process makes from now on in the book's style (the opt-in of a Python process).

    The static figures of the notebooks then have the live figures' fonts (``LIVE_STYLE``, at
    ``STATIC_DPI``) and, when printed as PNG, the font floor of :func:`book_style`, so their smallest
    text is at least 11 px in the book's column on a desktop and 9 px on a phone (where an image keeps
    the width at which that holds, and scrolls sideways).
    """
    import matplotlib as mpl

    mpl.rcParams.update({**LIVE_STYLE, "figure.dpi": STATIC_DPI})
    if HOOK not in mpl.rcParams["figure.hooks"]:
        mpl.rcParams["figure.hooks"] = [*mpl.rcParams["figure.hooks"], HOOK]


def kernel_environment(env=None) -> dict:
    """``env`` (default ``os.environ``) with the book's figure style for a kernel started with it.

    ``MATPLOTLIBRC`` names ``booktools/matplotlibrc`` (the settings of :func:`install_static_style`) and
    ``PYTHONPATH`` starts with the checkout, where the hook (``HOOK``) is imported from. The other variables are
    kept (``PYTHONPATH`` too, after the checkout: ``tools/ulp_jitter`` puts its ``sitecustomize`` there).
    """
    env = dict(os.environ if env is None else env)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(ROOT)]
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *paths])
    env["MATPLOTLIBRC"] = str(RC_FILE)
    return env
