"""The book's figure style: fonts large enough for the text column and a phone, thinned tick labels, wrapped titles.

Used for the live figures' states (:func:`booktools.states.draw_state`) and for the static figures of the notebooks
(:func:`booktools.static_figures.static_figure_hook`), so both have the same smallest text on the page.
"""

from __future__ import annotations

__all__ = ["LIVE_STYLE", "STATIC_DPI", "MIN_FONT_PT", "COLUMN_PX", "PHONE_MIN_TEXT_PX", "HEIGHT_FACTOR",
           "min_font_pt", "book_style"]

#: The dpi of the notebooks' static figures (the same number as ``dpcourse.plots.explorer.STATIC_DPI``).
STATIC_DPI = 72

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


def book_style(fig, dpi: float) -> float:
    """Put a drawn-but-not-rendered figure in the book's style for a ``dpi`` rendering; return the font floor (pt).

    The figure gets a little taller (larger text needs more height), every tick label and every text
    smaller than :func:`min_font_pt` is enlarged to it, long fixed tick-label lists are thinned and long
    titles wrapped. Used for the live figures' states (:func:`booktools.states.draw_state`) and for the static
    figures of the notebooks (:func:`booktools.static_figures.static_figure_hook`), so both have the same
    smallest text on the page.
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
