"""dpcourse.plots.explorer: one definition of an interactive figure, live in Jupyter and in the static book."""

import json

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpcourse.plots.explorer import (COLUMN_PX, MAX_STATES, draw_state, explorer, min_font_pt,  # noqa: E402
                                     page_sizes, render_states, spec_key)
from dpcourse.plots.promise import plot_rr_count  # noqa: E402

CONTROLS = {"n": ("n", (2, 5), 5), "epsilon": ("ε", (0.5, 1.1), 1.1)}


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


def test_render_states_draws_every_combination_with_the_same_function(tmp_path):
    ex = explorer(plot_rr_count, CONTROLS)
    names = render_states(ex.spec(), tmp_path)
    assert names == ["0.png", "1.png", "2.png", "3.png"]          # row-major: (2,0.5) (2,1.1) (5,0.5) (5,1.1)
    blobs = [(tmp_path / n).read_bytes() for n in names]
    assert all(b.startswith(b"\x89PNG") for b in blobs)
    assert len(set(blobs)) == 4                                    # every setting draws a different figure
    # state 3 is the figure of (n=5, epsilon=1.1), drawn by the plotting function itself (in the book's style)
    direct = tmp_path / "direct.png"
    draw_state(ex, {"n": 5, "epsilon": 1.1}, direct)
    assert direct.read_bytes() == blobs[3]


def test_live_figure_text_is_large_enough_for_the_column_and_a_phone(tmp_path):
    # plot_rr_count sets 8-pt legends: every text of a state is enlarged to the live-figure minimum
    ex = explorer(plot_rr_count, CONTROLS)
    render_states(ex.spec(), tmp_path)
    sizes = page_sizes(tmp_path)
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
