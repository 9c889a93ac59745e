"""Figures of the chapter "Private query release" that explain its ideas (the comparison of the releases
against the number of queries is drawn by :mod:`dpcourse.plots.queries`)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import as_rng, check_epsilon, check_real, check_real_array, check_size
from ..query_release import answer_queries, max_query_error, mwem

__all__ = [
    "plot_small_database",
    "plot_mwem_rounds",
]

#: At most this many records in a sampled small database, and this many MWEM rounds in a picture.
MAX_PICTURE_RECORDS = 100_000
MAX_PICTURE_ROUNDS = 100


def _records(histogram, queries):
    """The validated histogram, its queries' exact answers and n (public)."""
    exact = answer_queries(histogram, queries)   # validates both: finite counts, 0/1 queries, one column per cell
    h = check_real_array(histogram, "histogram", ndim=1)
    if (h < 0).any() or h.sum() <= 0:
        raise ValueError("histogram must hold counts >= 0 with a positive total (the number of records n)")
    return h, exact, float(h.sum())


def plot_small_database(histogram, queries, sizes=(50, 400), *, alpha=0.1, rng=None):
    """A small database answers every query: m records drawn from the data answer all its counting queries
    nearly as the data does.

    One panel per m in ``sizes``: a sample of m records drawn with replacement from the data of
    ``histogram`` (n records), and each query of ``queries`` as a point, its answer on the data (share of the
    n records) against its answer on the sample (share of the m records). The band is the diagonal plus or
    minus ``alpha`` (shaded); each panel's title states how many of the k queries lie outside the band and the
    largest error (lemma ``lem-smalldb-sampling``: for m > ln(2k) / (2 alpha^2) some sample has none).
    """
    h, exact, n = _records(histogram, queries)
    q = np.asarray(queries, dtype=np.float64)
    sizes = [check_size(m, "sizes entry", cap=MAX_PICTURE_RECORDS) for m in np.atleast_1d(sizes).tolist()]
    a = check_real(alpha, "alpha", low=0.0, low_open=True, high=1.0)
    gen = as_rng(rng)
    truth = exact / n
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 4.0), squeeze=False)
    for ax, m in zip(axes[0], sizes):
        sample = gen.multinomial(m, h / n)
        shares = q @ sample / m
        outside = int(np.sum(np.abs(shares - truth) > a))
        worst = float(np.max(np.abs(shares - truth)))
        ax.fill_between([0, 1], [-a, 1 - a], [a, 1 + a], color="tab:green", alpha=0.15, lw=0)
        ax.plot([0, 1], [0, 1], color="tab:green", lw=1)
        ax.plot(truth, shares, ".", ms=3, color="tab:blue", alpha=0.5)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(f"answer on the data ({n:.0f} records)")
        ax.set_ylabel(f"answer on the sample ({m} records)")
        ax.set_title(f"m = {m}: {outside} of {q.shape[0]} answers outside the band of ±{a:g}, "
                     f"worst error {worst:.2f}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_mwem_rounds(histogram, queries, epsilon, rounds=(1, 3, 10), *, passes=0, cell_labels=None, seed=0):
    """How MWEM learns the data: its synthetic histogram, from uniform to close to the data as the rounds
    add up.

    Left: the data's histogram (bars, shares of the n records per cell), MWEM's starting point (the uniform
    histogram, dashed) and the synthetic histogram :func:`dpcourse.mwem` returns (its last histogram) after
    T rounds for each T in ``rounds``. Right: the largest error over the queries, divided by n, of the
    uniform start and of MWEM after 1, 2, ..., max(rounds) rounds. Each T is a separate run with the whole
    budget ``epsilon`` (so a larger T spends less on each round), drawn from ``seed``, with ``passes`` extra
    sweeps over the past measurements after each round (free in epsilon: post-processing).
    """
    h, _, n = _records(histogram, queries)
    eps = check_epsilon(epsilon)
    rounds = sorted({check_size(t, "rounds entry", cap=MAX_PICTURE_ROUNDS) for t in np.atleast_1d(rounds).tolist()})
    seed = check_size(seed, "seed", minimum=0, cap=2**63 - 1)
    passes = check_size(passes, "passes", minimum=0, cap=MAX_PICTURE_ROUNDS)
    labels = [str(j) for j in range(h.size)] if cell_labels is None else [str(c) for c in cell_labels]
    if len(labels) != h.size:
        raise ValueError(f"cell_labels must have one label per cell ({h.size}), got {len(labels)}")
    uniform = np.full(h.size, n / h.size)
    runs = {t: mwem(h, queries, eps, iterations=t, passes=passes, output="last", rng=seed)
            for t in range(1, rounds[-1] + 1)}
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.0), gridspec_kw={"width_ratios": [1.6, 1]})
    cells = np.arange(h.size)
    left.bar(cells, h / n, color="0.8", label="the data")
    left.plot(cells, uniform / n, "k--", lw=1, label="start: uniform")
    for i, t in enumerate(rounds):
        left.plot(cells, runs[t] / n, "o-", ms=5, lw=1, color=f"C{i}", label=f"after {t} round{'s' * (t > 1)}")
    left.set_xticks(cells, labels, fontsize=8)
    left.set_ylim(0, 1.7 * max(np.max(h / n), *(np.max(runs[t] / n) for t in rounds)))   # room for the legend
    left.set_ylabel("share of the records")
    left.set_title("the synthetic histogram moves towards the data", fontsize=10)
    left.legend(fontsize=8, loc="upper center", ncol=2)
    ts = np.arange(0, rounds[-1] + 1)
    errors = [max_query_error(queries, h, uniform) / n] + [max_query_error(queries, h, runs[t]) / n for t in ts[1:]]
    right.plot(ts, errors, "o-", color="k")
    right.set_ylim(0, max(errors) * 1.1)
    right.set_xlabel("rounds T")
    right.set_ylabel("largest error / n")
    right.set_title(f"worst query: {errors[0]:.2f} at the start, {errors[-1]:.2f} after {ts[-1]} rounds", fontsize=10)
    fig.tight_layout()
    return fig
