"""The figures that explain the chapter "Private query release" state what they draw (dpcourse.plots.query_release)."""

import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from booktools.legends import legends_over_data  # noqa: E402

import dpcourse  # noqa: E402
from dpcourse import query_release as Q  # noqa: E402
from dpcourse.plots import query_release as R  # noqa: E402

HIST = np.array([30.0, 10.0, 0.0, 20.0])
QUERIES = Q.product_queries((2, 2))          # 9 queries on 4 cells


def test_small_database_titles_state_the_sampled_errors():
    """Each panel's title counts the queries outside the band and states the worst error of the sample it drew."""
    fig = R.plot_small_database(HIST, QUERIES, (3, 40), alpha=0.1, rng=7)
    gen = np.random.default_rng(7)               # the same draws, computed independently
    truth = QUERIES @ HIST / HIST.sum()
    for ax, m in zip(fig.axes, (3, 40)):
        shares = QUERIES @ gen.multinomial(m, HIST / HIST.sum()) / m
        outside = int(np.sum(np.abs(shares - truth) > 0.1))
        assert ax.get_title().startswith(f"m = {m}: {outside} of 9 answers outside the band of ±0.1")
        assert ax.get_title().endswith(f"worst error {np.max(np.abs(shares - truth)):.2f}")
        (points,) = [line for line in ax.lines if line.get_linestyle() == "None"]
        assert np.allclose(points.get_xdata(), truth) and np.allclose(points.get_ydata(), shares)
    plt.close(fig)


def test_small_database_at_the_lemmas_size_has_no_query_outside_on_the_survey():
    """At the lemma's m (416 for the 2025 product queries and alpha = 0.1) the seeded sample is within 0.1 on
    every query; at m = 50 dozens of queries are not (the picture of the chapter)."""
    h, pool = Q.affairs_histogram(), Q.product_queries(Q.AFFAIRS_SHAPE)
    m = Q.smalldb_sample_size(len(pool), 0.1)
    assert m == 416
    fig = R.plot_small_database(h, pool, (50, m), alpha=0.1, rng=2026)
    small, lemma = (int(re.search(r": (\d+) of", ax.get_title())[1]) for ax in fig.axes)
    assert small > 10 and lemma == 0
    plt.close(fig)


def test_small_database_refuses_bad_parameters():
    with pytest.raises(ValueError, match="alpha"):
        R.plot_small_database(HIST, QUERIES, (3,), alpha=0.0)
    with pytest.raises(ValueError, match="sizes"):
        R.plot_small_database(HIST, QUERIES, (0,))
    with pytest.raises(ValueError, match="histogram"):
        R.plot_small_database([-1.0, 2.0, 3.0, 4.0], QUERIES, (3,))
    with pytest.raises(ValueError):
        R.plot_small_database(HIST, QUERIES[:, :3], (3,))          # a query with the wrong number of cells
    with pytest.raises(TypeError):
        R.plot_small_database(HIST, QUERIES, (True,))


def test_mwem_rounds_draws_the_runs_of_dpcourse_mwem():
    """Bars are the data's shares; the right panel starts at the uniform histogram's error and ends at the error
    of dpcourse.mwem run with the same parameters; the title states both."""
    fig = R.plot_mwem_rounds(HIST, QUERIES, 5.0, (1, 3), passes=2, cell_labels="abcd", seed=11)
    left, right = fig.axes
    assert [p.get_height() for p in left.patches] == pytest.approx(HIST / HIST.sum())
    assert [t.get_text() for t in left.get_xticklabels()] == list("abcd")
    start = np.max(np.abs(QUERIES @ (np.full(4, 15.0) - HIST))) / 60
    last = Q.max_query_error(QUERIES, HIST, dpcourse.mwem(HIST, QUERIES, 5.0, iterations=3, passes=2, output="last",
                                                          rng=11)) / 60
    (curve,) = right.lines
    assert list(curve.get_xdata()) == [0, 1, 2, 3]
    assert curve.get_ydata()[0] == pytest.approx(start) and curve.get_ydata()[-1] == pytest.approx(last)
    assert right.get_title() == f"worst query: {start:.2f} at the start, {last:.2f} after 3 rounds"
    after3 = [line for line in left.lines if line.get_label() == "after 3 rounds"][0]
    assert after3.get_ydata() == pytest.approx(
        dpcourse.mwem(HIST, QUERIES, 5.0, iterations=3, passes=2, output="last", rng=11) / 60)
    fig.canvas.draw()
    assert legends_over_data(fig, fig.canvas.get_renderer()) == []
    plt.close(fig)


def test_mwem_rounds_refuses_bad_parameters():
    with pytest.raises(ValueError, match="cell_labels"):
        R.plot_mwem_rounds(HIST, QUERIES, 1.0, (1,), cell_labels="abc")
    with pytest.raises(ValueError, match="epsilon"):
        R.plot_mwem_rounds(HIST, QUERIES, 0.0, (1,))
    with pytest.raises(ValueError, match="rounds"):
        R.plot_mwem_rounds(HIST, QUERIES, 1.0, (0, 2))
    with pytest.raises(ValueError, match="rounds"):
        R.plot_mwem_rounds(HIST, QUERIES, 1.0, (R.MAX_PICTURE_ROUNDS + 1,))
    with pytest.raises(ValueError, match="passes"):
        R.plot_mwem_rounds(HIST, QUERIES, 1.0, (1,), passes=-1)
