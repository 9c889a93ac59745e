"""Figures of the chapter "Histograms and vector-valued queries"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import as_rng, check_epsilon, check_positive_int, check_probability, check_relation
from ..histogram import dp_histogram, exact_histogram, histogram_sensitivity
from ..laplace import laplace_max_error_bound, laplace_max_error_quantile, laplace_mechanism

__all__ = ["one_record_changes", "plot_one_record", "plot_noisy_histogram", "histogram_explorer",
           "histogram_widget", "max_error_quantiles", "plot_max_error_vs_k"]


def one_record_changes(categories, *, added, removed):
    """How much one record moves a histogram, and how much it moves k overlapping counts (lemma
    ``lem-hist-sensitivity``).

    ``categories`` are the public categories ``c_1, ..., c_k`` in their order. Returns a dict of three
    integer arrays of length k, the change of each count:

    * ``"add"``: the histogram, when a record of category ``added`` is added (add/remove neighbours);
    * ``"replace"``: the histogram, when a record of category ``removed`` is replaced by one of category
      ``added`` (replace-one neighbours);
    * ``"overlapping"``: the k counts "category ``c_1``, ..., or ``c_j``" (for grades: "B or better"),
      when the record of category ``added`` is added. Each is a counting query, but they overlap, so one
      record can move up to all k of them.

    The l1 change is the sum of the absolute values: 1, 2 (0 if ``added == removed``), and the number of
    overlapping counts that include ``added``.

    Examples
    --------
    >>> ch = one_record_changes(list("ABC"), added="A", removed="C")
    >>> ch["add"].tolist(), ch["replace"].tolist(), ch["overlapping"].tolist()
    ([1, 0, 0], [1, 0, -1], [1, 1, 1])
    """
    cats = list(categories)
    if len(cats) < 2 or len(set(cats)) != len(cats):
        raise ValueError(f"categories must hold at least 2 distinct labels, got {categories!r}")
    for name, value in (("added", added), ("removed", removed)):
        if value not in cats:
            raise ValueError(f"{name} must be one of the categories {cats!r}, got {value!r}")
    k, i, j = len(cats), cats.index(added), cats.index(removed)
    add = np.zeros(k, dtype=np.int64)
    add[i] = 1
    replace = add.copy()
    replace[j] -= 1
    overlapping = (np.arange(k) >= i).astype(np.int64)
    return {"add": add, "replace": replace, "overlapping": overlapping}


def plot_one_record(data, categories, *, added, removed):
    """One person moves one bin of a histogram (two if a record is replaced), but up to all k of k overlapping counts.

    Three panels on the counts of ``data`` (grey bars): a record of category ``added`` is added (a red
    block, +1: one bin moves, l1 change 1); a record of category ``removed`` is replaced by one of category
    ``added`` (a hatched block taken away, -1, and a red one added: l1 change 2); and the k overlapping
    counts "``c_1`` to ``c_j``" (cumulative counts, "B or better") when the same record is added: every
    count that includes ``added`` moves (:func:`one_record_changes`). The first two are lemma
    ``lem-hist-sensitivity``; the third is why k unrelated counting queries need noise of scale k/epsilon.
    """
    cats = list(categories)
    changes = one_record_changes(cats, added=added, removed=removed)
    counts = exact_histogram(data, categories=cats)
    overlapping = np.cumsum(counts)
    k = len(cats)
    pos = np.arange(k)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.0))
    names = [str(c) for c in cats]
    panels = [
        (axes[0], counts, changes["add"], names, f"histogram, add one {added}"),
        (axes[1], counts, changes["replace"], names, f"histogram, one {removed} becomes {added}"),
        (axes[2], overlapping, changes["overlapping"], names, f"{k} overlapping counts, add one {added}"),
    ]
    for ax, base, change, ticks, title in panels:
        ax.bar(pos, base, 0.7, color="lightgrey", edgecolor="grey")
        up, down = change > 0, change < 0
        if up.any():
            ax.bar(pos[up], np.ones(up.sum()), 0.7, bottom=base[up], color="tab:red")
        if down.any():
            ax.bar(pos[down], np.ones(down.sum()), 0.7, bottom=base[down] - 1, color="white", edgecolor="tab:blue",
                   hatch="//")
        for p in pos[change != 0]:
            ax.annotate(f"{change[p]:+d}".replace("-", "−"), (p, base[p] + max(change[p], 0)), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom")
        ax.set_xticks(pos, ticks)
        ax.set_ylim(0, max(base.max(), 1) * 1.45 + 2)
        ax.set_ylabel("count")
        ax.set_title(f"{title}: ℓ1 change {int(np.abs(change).sum())}")
    axes[0].set_xlabel("category")
    axes[1].set_xlabel("category")
    axes[2].set_xlabel(f"c: records in the categories {names[0]} to c")
    fig.tight_layout()
    return fig


def plot_noisy_histogram(data, categories, epsilon, relation, *, beta=0.05, rng=None, ax=None, title=None):
    """Exact counts (bars) and one :func:`dpcourse.dp_histogram` release (points) of ``data``.

    The error bars have half-width ``(Delta/epsilon) ln(k/beta)``: for continuous Laplace noise, with
    probability at least ``1 - beta`` *every* noisy count lies within it of its bar (corollary
    ``cor-hist-max-error``); for the integer (geometric) noise of the default ``dp_histogram`` the
    probability is close to ``1 - beta`` but can be slightly below it (the chapter computes it exactly).
    """
    eps = check_epsilon(epsilon)
    relation = check_relation(relation)
    beta = check_probability(beta, "beta", low_open=True, high_open=True)
    counts = exact_histogram(data, categories=categories)
    noisy = dp_histogram(data, eps, relation=relation, categories=categories, rng=rng)
    k = counts.size
    half = laplace_max_error_bound(k, histogram_sensitivity(relation) / eps, beta)
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(5.0, 0.6 * k + 2), 3.8))
    else:
        fig = ax.figure
    pos = np.arange(k)
    ax.bar(pos, counts, color="lightgrey", edgecolor="grey", label="exact count")
    ax.errorbar(pos, noisy, yerr=half, fmt="o", color="tab:red", capsize=3,
                label=rf"noisy count $\pm$ {half:.1f} (all bins, prob. $\approx$ {1 - beta:g})")
    ax.set_xticks(pos, [str(c) for c in categories])
    ax.set_ylabel("count")
    ax.set_title(title or f"dp_histogram, eps = {eps:g}, {relation}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def histogram_explorer(data, categories, *, title=None):
    """Sliders for epsilon, the relation and a seed, redrawing :func:`plot_noisy_histogram` (an explorer:
    live in Jupyter, every setting drawn at build time in the static book)."""
    from .explorer import explorer

    return explorer(plot_noisy_histogram,
                    {"epsilon": ("epsilon", (0.1, 0.3, 1.0, 3.0), 0.3),
                     "relation": ("relation", ("add_remove", "replace_one"), "add_remove"),
                     "rng": ("seed", (0, 1, 2, 3), 0)},
                    alt="Exact and noisy histogram counts with error bars",
                    data=list(np.asarray(data).tolist()), categories=list(categories), title=title)


def histogram_widget(data, categories, *, title=None):
    """The live ipywidgets form of :func:`histogram_explorer`."""
    return histogram_explorer(data, categories, title=title).widget()


def max_error_quantiles(ks, epsilon, relation, *, beta=0.05, n_trials=500, rng=None):
    """Simulated ``1 - beta`` quantile of the largest error of a Laplace histogram with k bins, per k.

    For each k, ``n_trials`` noise vectors are drawn with :func:`dpcourse.laplace_mechanism` (scale
    Delta/epsilon for ``relation``) and the empirical ``1 - beta`` quantile of ``max_i |Z_i|`` is returned,
    as an array of the same length as ``ks``.
    """
    eps = check_epsilon(epsilon)
    delta = histogram_sensitivity(relation)
    beta = check_probability(beta, "beta", low_open=True, high_open=True)
    n_trials = check_positive_int(n_trials, "n_trials")
    gen = as_rng(rng)
    out = []
    for k in ks:
        k = check_positive_int(k, "k")
        noise = laplace_mechanism(np.zeros((n_trials, k)), delta, eps, rng=gen)
        out.append(np.quantile(np.abs(noise).max(axis=1), 1 - beta))
    return np.array(out)


def plot_max_error_vs_k(ks, simulated, epsilon, relation, *, beta=0.05):
    """Simulated ``1 - beta`` quantile of the largest error (from :func:`max_error_quantiles`) against k.

    Beside it: the bound ``(Delta/epsilon) ln(k/beta)`` of corollary ``cor-hist-max-error`` and the exact
    quantile (:func:`dpcourse.laplace_max_error_quantile`). The x axis is logarithmic, so a straight line
    means growth like ln k.
    """
    eps = check_epsilon(epsilon)
    b = histogram_sensitivity(relation) / eps
    beta = check_probability(beta, "beta", low_open=True, high_open=True)
    ks = np.asarray(ks, dtype=float)
    fine = np.unique(np.round(np.geomspace(ks.min(), ks.max(), 200)).astype(int))  # k is a whole number
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.semilogx(fine, [laplace_max_error_bound(int(k), b, beta) for k in fine], "--", color="tab:red",
                label=r"bound $b\,\ln(k/\beta)$")
    ax.semilogx(fine, [laplace_max_error_quantile(int(k), b, beta) for k in fine], "k:", label="exact quantile")
    ax.semilogx(ks, simulated, "o", label="simulated")
    ax.set_xlabel("number of bins k")
    ax.set_ylabel(f"{1 - beta:g}-quantile of max error")
    ax.set_title(f"largest error over k bins, eps = {eps:g}, {relation} (b = {b:g})")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
