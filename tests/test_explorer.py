"""dpcourse.plots.explorer: one definition of an interactive figure, live in Jupyter and in the static book; and
booktools, the build tooling that draws its states and puts the notebooks' static figures in the book's style."""

import json

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import booktools.states as states_module  # noqa: E402
from booktools.legends import legends_over_data  # noqa: E402
from booktools.states import draw_state, page_sizes, render_states, spec_key  # noqa: E402
from booktools.static_figures import install_static_style  # noqa: E402
from booktools.style import COLUMN_PX, book_style, min_font_pt  # noqa: E402
from booktools.text_caches import shared_text_caches  # noqa: E402
from dpcourse.plots.explorer import MAX_STATES, explorer  # noqa: E402
from dpcourse.plots.promise import plot_rr_count  # noqa: E402

CONTROLS = {"n": ("n", (2, 5), 5), "epsilon": ("ε", (0.5, 1.1), 1.1)}


@pytest.fixture
def static_style():
    """The book's figure style in this process (booktools' opt-in for a Python process), undone afterwards."""
    with matplotlib.rc_context():
        install_static_style()
        yield


def test_spec_is_json_and_names_the_plotting_function():
    ex = explorer(plot_rr_count, CONTROLS, alt="rr count")
    spec = json.loads(json.dumps(ex.spec()))
    assert spec["plot"] == "dpcourse.plots.promise:plot_rr_count"
    assert [c["name"] for c in spec["controls"]] == ["n", "epsilon"]
    assert spec["controls"][1]["values"] == [0.5, 1.1] and spec["controls"][1]["value"] == 1.1
    assert ex.function() is plot_rr_count


def test_both_renderings_in_one_bundle():
    pytest.importorskip("ipywidgets")
    bundle = explorer(plot_rr_count, CONTROLS)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle      # live kernel: sliders that recompute
    assert 'class="dpcourse-explorer" data-spec="' in bundle["text/html"]  # book: states drawn at build


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The four states of CONTROLS, rendered once for the tests below."""
    out = tmp_path_factory.mktemp("states")
    return out, render_states(explorer(plot_rr_count, CONTROLS).spec(), out)


def test_render_states_draws_every_combination_with_the_same_function(rendered, tmp_path):
    ex = explorer(plot_rr_count, CONTROLS)
    out, names = rendered
    assert names == ["0.png", "1.png", "2.png", "3.png"]          # row-major: (2,0.5) (2,1.1) (5,0.5) (5,1.1)
    blobs = [(out / n).read_bytes() for n in names]
    assert all(b.startswith(b"\x89PNG") for b in blobs)
    assert len(set(blobs)) == 4                                    # every setting draws a different figure
    # state 3 is the figure of (n=5, epsilon=1.1), drawn by the plotting function itself (in the book's style,
    # with the layout of state 0, which render_states reuses)
    layout = {}
    draw_state(ex, {"n": 2, "epsilon": 0.5}, tmp_path / "first.png", layout=layout)
    direct = tmp_path / "direct.png"
    draw_state(ex, {"n": 5, "epsilon": 1.1}, direct, layout=layout)
    assert (tmp_path / "first.png").read_bytes() == blobs[0] and direct.read_bytes() == blobs[3]


def test_live_figure_text_is_large_enough_for_the_column_and_a_phone(rendered):
    # plot_rr_count sets 8-pt legends: every text of a state is enlarged to the live-figure minimum
    sizes = page_sizes(rendered[0])
    assert sizes["min_text_px"] >= min_font_pt(sizes["width"]) >= 14
    # shown at most COLUMN_PX wide on a desktop, and at least phone_min_width on a phone
    assert sizes["min_text_px"] * min(1, COLUMN_PX / sizes["width"]) >= 11
    assert sizes["min_text_px"] * sizes["phone_min_width"] / sizes["width"] >= 9


def test_spec_key_changes_with_the_spec():
    a = explorer(plot_rr_count, CONTROLS).spec()
    b = explorer(plot_rr_count, {**CONTROLS, "n": ("n", (2, 5, 8), 5)}).spec()
    assert spec_key(a) == spec_key(json.loads(json.dumps(a))) != spec_key(b)


@pytest.mark.parametrize("controls, fixed, exc, word", [
    ({"n": ("n", (2, 5), 3)}, {}, ValueError, "first value"),
    ({"n": ("n", (), None)}, {}, ValueError, "at least one"),
    ({"n": [2, 5]}, {}, TypeError, "label, values"),
    ({"n": ("n", tuple(range(1, 9)), 2), "epsilon": ("ε", tuple(np.linspace(0.1, 1, 9)), 0.1)}, {}, ValueError,
     str(MAX_STATES)),
    (CONTROLS, {"axes": object()}, TypeError, "numbers, strings"),
])
def test_bad_definitions_are_refused(controls, fixed, exc, word):
    with pytest.raises(exc, match=word):
        explorer(plot_rr_count, controls, **fixed)


@pytest.mark.parametrize("plot", [print, lambda n, epsilon: None])
def test_plot_must_be_a_module_level_function(plot):
    with pytest.raises(TypeError, match="module-level function"):
        explorer(plot, CONTROLS)


def test_a_reused_layout_that_does_not_fit_is_laid_out_again(tmp_path):
    # no margins at all: the tick labels would leave the figure, so the state gets its own tight layout
    ex = explorer(plot_rr_count, CONTROLS)
    layout = {"params": {"left": 0.0, "bottom": 0.0, "right": 1.0, "top": 1.0, "wspace": 0.0, "hspace": 0.0}}
    draw_state(ex, {"n": 5}, tmp_path / "a.png", layout=layout)
    draw_state(ex, {"n": 5}, tmp_path / "b.png")
    assert layout == {"params": None, "redone": 1}
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    # the states after it get their own layout too (no second redraw)
    draw_state(ex, {"n": 2}, tmp_path / "c.png", layout=layout)
    draw_state(ex, {"n": 2}, tmp_path / "d.png")
    assert layout == {"params": None, "redone": 1}
    assert (tmp_path / "c.png").read_bytes() == (tmp_path / "d.png").read_bytes()


def _busy_figure_pixels(fast):
    """A figure with log axes (many minor ticks), math text, markers and a tick changed after its copy was made."""
    import contextlib

    import matplotlib.pyplot as plt

    with shared_text_caches() if fast else contextlib.nullcontext():
        fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3), dpi=72)
        a.loglog(np.geomspace(1, 1e3, 30), np.geomspace(1e-2, 1, 30), "o-", label=r"$\varepsilon = 10^x$")
        a.set_title(r"$\delta(\varepsilon)$")
        a.legend()
        b.plot([0, 1], [0, 1], marker="s")
        b.set_xticks([0, 0.5, 1], ["a", "b", "c"])
        # texts of two lines in fonts whose line metrics differ from the default font's (and from each other's)
        b.set_xlabel("x\nlabel", family="cmr10")
        b.text(0.1, 0.8, "two\nlines", family="STIXGeneral")
        fig.canvas.draw()
        # one tick changed after the others were copied from the first: nothing may be shared between them
        a.xaxis.get_major_ticks()[0].label1.set_fontsize(30)
        a.yaxis.get_minor_ticks()[0].tick1line.set_markeredgewidth(4)
        b.tick_params(axis="x", labelsize=20, colors="red")
        b.set_ylim(-1, 3)                         # new limits: the ticks of the first drawing are not reused
        fig.canvas.draw()
        pixels = np.asarray(fig.canvas.buffer_rgba()).copy()
        plt.close(fig)
    return pixels


def test_fast_drawing_of_states_draws_the_same_pixels_as_matplotlib():
    # the shared text caches and the copied ticks of draw_state change the cost of a state, never its pixels;
    # drawn twice in fast mode, so that the second drawing uses the caches filled by the first
    plain = _busy_figure_pixels(fast=False)
    assert (plain == _busy_figure_pixels(fast=True)).all() and (plain == _busy_figure_pixels(fast=True)).all()


def test_shared_font_tables_are_those_of_the_font_each_text_asks_for():
    # the tables read once per font while drawing states: keyed by the font properties other than the size and by
    # the font rcParams, so a text in another font, or the same family name after a change of rcParams, gets its
    # own font's tables (DejaVu Sans, cmr10 and STIX have different line metrics)
    import matplotlib as mpl
    from matplotlib import text as mtext
    from matplotlib.font_manager import FontProperties, fontManager, get_font

    def tables(prop):
        font = mtext.get_font(mtext.fontManager._find_fonts_by_props(prop))
        return [font.get_sfnt_table(name) for name in ("OS/2", "hhea", "head")]

    props = [FontProperties(family=["sans-serif"], size=9), FontProperties(family=["cmr10"], size=12),
             FontProperties(family=["STIXGeneral"], size=9), FontProperties(family=["sans-serif"], size=20)]
    with shared_text_caches():
        for rc in ({}, {"font.sans-serif": ["STIXGeneral"]}, {}):
            with mpl.rc_context(rc):
                expected = [[get_font(fontManager._find_fonts_by_props(p)).get_sfnt_table(name)
                             for name in ("OS/2", "hhea", "head")] for p in props]
                assert [tables(p) for p in props] == expected
    assert mtext.get_font is get_font and mtext.fontManager is fontManager   # both put back


def test_legends_over_data_sees_a_legend_on_a_line_and_not_one_beside_it():
    import matplotlib.pyplot as plt


    fig, (ax1, ax2) = plt.subplots(1, 2)
    ax1.plot([0, 1], [0, 1], label="diagonal")
    ax1.legend(loc="center")                      # the diagonal runs through the centre
    ax2.plot([0, 1], [0, 0.1], label="low")
    ax2.legend(loc="upper left")                  # the line stays near the bottom
    fig.canvas.draw()
    assert legends_over_data(fig, fig.canvas.get_renderer()) == [0]
    plt.close(fig)


def _shown_tick_labels(ax):
    renderer = ax.figure.canvas.get_renderer()
    return [(t.get_text(), t.get_window_extent(renderer)) for t in ax.get_xticklabels() if t.get_text().strip()]


def test_fixed_tick_labels_are_thinned_by_their_measured_widest_line_and_never_overlap():
    import matplotlib.pyplot as plt


    # chapter 23's coverage panel: three two-line labels in a third of the figure; measured by the whole string
    # (12 characters for "non-\nprivate") the middle one was dropped, measured by its widest line all three fit
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4.6), gridspec_kw={"width_ratios": [2.0, 1]})
    bx.bar(range(3), [0.9, 0.5, 0.95])
    bx.set_xticks(range(3), ["non-\nprivate", "naive", "noise-\naware"])
    fig.tight_layout()      # as the plotting function does, before Jupyter prints the figure in the book style
    book_style(fig, 72)
    fig.set_dpi(72)
    fig.tight_layout()
    fig.canvas.draw()
    shown = _shown_tick_labels(bx)
    assert [text for text, _ in shown] == ["non-\nprivate", "naive", "noise-\naware"]
    assert not any(a.overlaps(b) for (_, a), (_, b) in zip(shown, shown[1:]))
    plt.close(fig)
    # thirty long labels on a narrow axis: thinned to every k-th, and the ones left do not touch
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.plot(range(30), range(30))
    ax.set_xticks(range(30), [f"label {i}" for i in range(30)])
    fig.tight_layout()
    book_style(fig, 72)
    fig.set_dpi(72)
    fig.tight_layout()
    fig.canvas.draw()
    shown = _shown_tick_labels(ax)
    assert 2 <= len(shown) <= 10 and shown[0][0] == "label 0"
    assert not any(a.overlaps(b) for (_, a), (_, b) in zip(shown, shown[1:]))
    plt.close(fig)


def test_a_live_state_thins_fixed_labels_at_the_width_its_layout_gives(tmp_path, monkeypatch):
    # a live state is styled before its layout, at the default margins, where chapter 23's coverage panel is
    # narrower than it is drawn: 'naive' was dropped there. The labels are thinned again at the laid-out width,
    # in a fresh state and in one drawn with the first state's layout; the ones shown do not touch
    import matplotlib.pyplot as plt

    from dpcourse.plots.inference import plot_interval_coverage

    seen = []

    def spy_save(rgba, out_file):       # the state's figure is the current one when its PNG is saved
        seen.append(_shown_tick_labels(plt.gcf().axes[-1]))

    monkeypatch.setattr(states_module, "_save_png", spy_save)
    ex = explorer(plot_interval_coverage, {"n": ("n", (100, 1000), 100), "epsilon": ("ε", (0.1, 0.3), 0.1)})
    layout: dict = {}
    for i, params in enumerate(({"n": 100, "epsilon": 0.1}, {"n": 1000, "epsilon": 0.3})):
        draw_state(ex, params, tmp_path / f"{i}.png", layout=layout)
    assert layout["params"] is not None          # the second state was drawn with the first one's layout
    assert len(seen) == 2                        # both states were saved through the spy
    for shown in seen:
        assert [text for text, _ in shown] == ["non-\nprivate", "naive", "noise-\naware"]
        assert not any(a.overlaps(b) for (_, a), (_, b) in zip(shown, shown[1:]))


def test_a_legend_on_the_next_plot_counts_and_one_sharing_its_axes_with_a_twin_does_not():
    import matplotlib.pyplot as plt


    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 4), dpi=72)
    ax1.plot([0, 1], [0, 1], label="a label long enough to reach the next plot")
    ax1.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))     # beside ax1: on ax2's tick labels and data
    ax2.plot([0, 1], [1, 0])
    fig.canvas.draw()
    assert legends_over_data(fig, fig.canvas.get_renderer()) == [0]
    assert legends_over_data(fig, fig.canvas.get_renderer(), list(ax1.texts)) == [0]
    ax1.get_legend().set_bbox_to_anchor(None)
    ax1.get_legend().set_loc("lower right")                       # inside ax1, under the diagonal: clear
    ax1.get_legend().get_texts()[0].set_text("short")
    fig.canvas.draw()
    assert legends_over_data(fig, fig.canvas.get_renderer()) == []
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4), dpi=72)
    ax.plot([0, 1], [0, 1], label="left axis")
    ax.twinx().plot([0, 1], [5, 9], color="k")                  # a twin shares the area: not another plot
    ax.legend(loc="lower right")
    fig.canvas.draw()
    assert legends_over_data(fig, fig.canvas.get_renderer()) == []
    plt.close(fig)


def test_a_static_legend_with_no_free_place_inside_goes_below_its_axes_not_onto_the_next_plot(static_style):
    import io

    import matplotlib.pyplot as plt
    from IPython.core.pylabtools import print_figure
    from PIL import Image


    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    # bars far taller than the y axis at both sides and in the middle (a histogram cut at the top, as in
    # chapter 2): no corner is free, and raising the top of the y axis frees none
    for x in (0.04, 0.5, 0.96):
        ax1.bar([x], [1000.0], width=0.08, label=f"bar at {x}")
    ax1.set_xlim(0, 1)
    ax1.set_ylim(0, 1)
    ax1.legend()
    ax2.plot([0, 1], [0, 1])
    ax2.set_ylabel("the next plot")
    image = Image.open(io.BytesIO(print_figure(fig, "png", bbox_inches="tight")))
    renderer = fig.canvas.get_renderer()
    legend, area = ax1.get_legend().get_window_extent(renderer), ax1.get_window_extent(renderer)
    assert legend.y1 < area.y0 and legend.x1 < ax2.get_tightbbox(renderer).x0      # below ax1, clear of ax2
    assert image.text["dpcourse:legends-over-data"] == "0"
    plt.close(fig)


def test_a_static_figure_png_records_its_smallest_text_and_legends_over_data(static_style):
    import io

    import matplotlib.pyplot as plt
    from IPython.core.pylabtools import print_figure  # how Jupyter's inline backend shows a figure
    from PIL import Image


    fig, ax = plt.subplots(figsize=(10, 3))
    ax.plot([0, 1], [0, 1], label="diagonal")
    ax.legend(loc="center", fontsize=6)
    ax.set_title("six-point text is enlarged", fontsize=6)
    image = Image.open(io.BytesIO(print_figure(fig, "png", bbox_inches="tight")))
    plt.close(fig)
    px = float(image.text["dpcourse:min-text-px"])
    # the legend sat on the diagonal: it was moved to a free corner (upper left or lower right) before printing
    assert ax.get_legend()._loc in (2, 4) and image.text["dpcourse:legends-over-data"] == "0"
    assert px == pytest.approx(min_font_pt(10 * 72), abs=0.01)
    assert px * min(1, COLUMN_PX / image.width) >= 11


def test_each_state_records_how_many_legends_cover_data(tmp_path, monkeypatch):
    """draw_state reports the legends over data of a state; render_states keeps it per state, page_sizes counts
    the states (the build puts the count on the page; the browser test and bench_pages read it)."""
    from dpcourse.plots.deidentification import plot_posterior_bound
    from dpcourse.plots.laplace import plot_neighbour_densities

    # chapter 3's densities: the plot puts its legend on the two curves; a live state has it below the axes
    densities = explorer(plot_neighbour_densities, {"epsilon": ("epsilon", (1.0,), 1.0)})
    moved, kept = {}, {}
    draw_state(densities, {"epsilon": 1.0}, tmp_path / "h.png", report=moved)
    assert moved["legends_over_data"] == 0 and moved["description"]
    # the report can see it: with the legend left where the plot put it, the same state reports it
    monkeypatch.setattr(states_module, "legends_below", lambda fig, floor: None)
    draw_state(densities, {"epsilon": 1.0}, tmp_path / "k.png", report=kept)
    assert kept["legends_over_data"] == 1
    monkeypatch.undo()
    spec = explorer(plot_posterior_bound, {"prior": ("prior", (0.01, 0.9), 0.01)}).spec()
    render_states(spec, tmp_path / "states")
    assert page_sizes(tmp_path / "states")["states_with_legend_over_data"] == 0


def plot_legend_on_data(entries=2, label="line", ncol=1, xlabel="x"):
    """A plot whose legend sits on its data (a test figure for legends_below)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    for k in range(entries):
        ax.plot([0, 1], [0, 1 + 0.01 * k], label=f"{label} {k}")
    ax.set_xlabel(xlabel)
    if entries:
        ax.legend(loc="center", ncol=ncol, fontsize=6)
    return fig


def _drawn_legend_state(tmp_path, **params):
    """Draw one state of plot_legend_on_data; return its figure (kept open), its report and the legend."""
    import matplotlib.pyplot as plt

    kept = {}
    original_close = plt.close
    ex = explorer(plot_legend_on_data, {"entries": ("entries", (params["entries"],), params["entries"])},
                  **{k: v for k, v in params.items() if k != "entries"})
    report = {}
    try:
        plt.close = lambda *a: kept.setdefault("fig", plt.gcf())
        draw_state(ex, {}, tmp_path / "s.png", report=report)
    finally:
        plt.close = original_close
    fig = kept["fig"]
    return fig, report, fig.axes[0].get_legend()


def test_a_live_state_puts_its_legend_below_the_axes_under_the_labels_and_inside_the_figure(tmp_path):
    import matplotlib.pyplot as plt

    fig, report, legend = _drawn_legend_state(tmp_path, entries=2)
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    box = legend.get_window_extent(renderer)
    lowest = min(t.get_window_extent(renderer).y0 for t in [ax.xaxis.label, *ax.get_xticklabels()]
                 if t.get_text())
    assert report["legends_over_data"] == 0 and report["description"]
    assert box.y1 < lowest and box.y0 >= 0 and box.x0 >= 0 and box.x1 <= fig.bbox.width
    # two short labels side by side (they fit the width), in the book's smallest font, not the plot's 6 pt
    assert legend._ncols == 2 and min(t.get_fontsize() for t in legend.texts) >= min_font_pt(6 * 72)
    # the figure grew by the legend's height: the axes keep most of the height they had without a legend
    plain, _, _ = _drawn_legend_state(tmp_path, entries=0)
    assert ax.get_window_extent(renderer).height >= 0.85 * plain.axes[0].get_window_extent(
        plain.canvas.get_renderer()).height
    plt.close("all")


def test_a_legend_too_wide_for_columns_gets_fewer_even_where_the_plot_asked_for_more(tmp_path):
    import matplotlib.pyplot as plt

    fig, report, legend = _drawn_legend_state(tmp_path, entries=4, label="a rather long label for a line",
                                              ncol=4)
    assert report["legends_over_data"] == 0 and legend._ncols == 1
    box = legend.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y0 >= 0
    plt.close("all")


def test_legends_over_data_counts_a_legend_on_the_tick_labels_or_cut_by_the_figure_edge():
    import matplotlib.pyplot as plt


    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 5), dpi=72)
    ax1.plot([0, 1], [0, 1], label="on the tick labels")
    ax1.set_xlabel("x")
    ax1.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0))     # just below the axes: over the tick labels
    ax2.plot([0, 1], [0, 1], label="cut by the edge")
    ax2.legend(loc="upper left", bbox_to_anchor=(0.9, -0.4))      # below the axes, past the right edge
    fig.subplots_adjust(bottom=0.5)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert legends_over_data(fig, renderer) == [0]    # a static figure's edge grows (bbox_inches="tight")
    drawn = [*ax1.get_xticklabels(), ax1.xaxis.label, *ax2.get_xticklabels()]
    assert legends_over_data(fig, renderer, drawn) == [0, 1]
    ax1.get_legend().set_bbox_to_anchor((0.5, -0.5))               # below the x label now: clear
    ax2.get_legend().set_bbox_to_anchor((0.0, -0.4))
    fig.canvas.draw()
    assert legends_over_data(fig, renderer) == [] and legends_over_data(fig, renderer, drawn) == []
    plt.close(fig)


def test_the_kernels_matplotlibrc_holds_the_settings_of_install_static_style():
    # the chapters' kernels get the style from booktools/matplotlibrc (kernel_environment), a test process from
    # install_static_style: the same settings
    from booktools.static_figures import HOOK, RC_FILE
    from booktools.style import LIVE_STYLE, STATIC_DPI

    rc = dict(matplotlib.rc_params_from_file(str(RC_FILE), use_default_template=False))
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        install_static_style()
        installed = {k: matplotlib.rcParams[k] for k in rc}
    assert rc == installed and set(rc) == {*LIVE_STYLE, "figure.dpi", "figure.hooks"}
    assert rc["figure.hooks"] == [HOOK] and rc["figure.dpi"] == STATIC_DPI


def test_the_static_dpi_of_the_build_is_the_one_dpcourse_figures_use():
    from booktools.style import STATIC_DPI
    from dpcourse.plots.explorer import STATIC_DPI as PACKAGE_STATIC_DPI

    assert STATIC_DPI == PACKAGE_STATIC_DPI


def _fresh_figure_settings(env, cwd) -> str:
    import subprocess
    import sys

    code = ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nfig = plt.figure()\n"
            "print(fig.dpi, matplotlib.rcParams['font.size'], 'print_figure' in vars(fig.canvas))")
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_process_started_with_the_kernel_environment_draws_in_the_book_style(tmp_path):
    # how tools/execute_notebooks.py and strict nbval (conftest.py) start the chapters' kernels: the fonts, the
    # dpi and the hook that prints a figure in the book style (it replaces the canvas's print_figure)
    import os

    from booktools.static_figures import kernel_environment

    plain = {k: v for k, v in os.environ.items() if k not in ("MATPLOTLIBRC", "PYTHONPATH")}
    plain["MPLCONFIGDIR"] = str(tmp_path)                                         # no user matplotlibrc
    assert _fresh_figure_settings(kernel_environment(plain), tmp_path) == "72.0 14.0 True"
    assert _fresh_figure_settings(plain, tmp_path) == "100.0 10.0 False"      # not without it
    env = kernel_environment({**plain, "PYTHONPATH": "/elsewhere"})
    assert env["PYTHONPATH"].split(os.pathsep)[1:] == ["/elsewhere"]             # kept (tools/ulp_jitter)


def test_the_cache_key_of_the_states_covers_dpcourse_and_booktools(monkeypatch):
    from pathlib import Path

    spec = explorer(plot_rr_count, CONTROLS).spec()
    key = spec_key(spec)
    original = Path.read_bytes
    for package, name in (("dpcourse", "laplace.py"), ("booktools", "legends.py")):
        def changed(self, package=package, name=name):
            return original(self) + (b"#" if (self.parent.name, self.name) == (package, name) else b"")

        monkeypatch.setattr(Path, "read_bytes", changed)
        assert spec_key(spec) != key
        monkeypatch.undo()
    assert spec_key(spec) == key


def test_the_examples_of_booktools_run():
    import doctest

    import booktools.describe

    result = doctest.testmod(booktools.describe)
    assert result.attempted >= 1 and result.failed == 0


def test_a_name_that_moved_to_booktools_is_found_there_with_a_warning():
    import dpcourse.plots.explorer as package_module

    with pytest.warns(DeprecationWarning, match="booktools.legends.legends_over_data"):
        assert package_module.legends_over_data is legends_over_data
    with pytest.raises(AttributeError, match="no attribute"):
        package_module.no_such_name  # noqa: B018
