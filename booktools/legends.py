"""Legends that cover data: found in a drawn figure, moved to a free corner, or put below their axes."""

from __future__ import annotations

import numpy as np

__all__ = ["legends_over_data", "free_legends", "legends_below", "LEGEND_PLACES"]


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
