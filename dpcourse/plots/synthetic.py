"""Figures of the chapter "Synthetic data from noisy marginals"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["plot_measured_tree", "plot_marginal_errors", "errors_widget"]

_METHODS = (("mst", "MST", "tab:blue"), ("independent", "independent", "tab:orange"), ("mwem", "MWEM", "tab:green"))


def _dependence(records, domain, i, j):
    """``||M_ij / n - p_i (x) p_j||_1`` of the real records: the pair's distance from independence (not released)."""
    from ..synthetic import marginal

    n = max(len(records), 1)
    joint = marginal(records, domain, (i, j)) / n
    return float(np.abs(joint - np.outer(joint.sum(axis=1), joint.sum(axis=0))).sum())


def plot_measured_tree(records, domain, edges, names, *, synthetic=None, pair=None, labels=None):
    """The idea of MST: measure the pairs of attributes that depend most on each other, in a tree.

    Left: the attributes on a circle, every pair joined by a grey line as thick as the pair's dependence in
    the real data (the l1 distance of its two-way table from the product of its one-way tables; not
    released), and the pairs of the tree ``edges`` that MST chose privately and measured in blue. Right
    (when ``synthetic`` records and a ``pair = (a, c)`` are given): the share of records with the last value
    of attribute ``c`` for each value of attribute ``a``, in the real and in the synthetic records.
    ``labels`` maps an attribute's name to its value labels (as :func:`dpcourse.synthetic.affairs_categorical`
    returns them).
    """
    from ..synthetic import marginal

    dom = tuple(int(k) for k in domain)
    d = len(dom)
    chosen = {tuple(sorted(e)) for e in edges}
    scores = {(i, j): _dependence(records, dom, i, j) for i in range(d) for j in range(i + 1, d)}
    top = max(scores.values()) or 1.0
    angle = np.pi / 2 - 2 * np.pi * np.arange(d) / d
    xy = np.column_stack([np.cos(angle), np.sin(angle)])
    right = synthetic is not None and pair is not None
    fig, axes = plt.subplots(1, 2 if right else 1, figsize=(11, 4.8) if right else (5.6, 4.8),
                             gridspec_kw={"width_ratios": [1.1, 1]} if right else None)
    ax = axes[0] if right else axes
    for (i, j), sc in sorted(scores.items(), key=lambda t: (t[0] in chosen, t[1])):
        on = (i, j) in chosen
        ax.plot(xy[[i, j], 0], xy[[i, j], 1], color="tab:blue" if on else "0.75", lw=1 + 9 * sc / top,
                alpha=1.0 if on else 0.8, solid_capstyle="round", zorder=2 if on else 1)
    ax.scatter(xy[:, 0], xy[:, 1], s=60, color="k", zorder=3)
    for k in range(d):
        ha = "center" if abs(xy[k, 0]) < 0.2 else ("left" if xy[k, 0] > 0 else "right")
        ax.text(1.14 * xy[k, 0], 1.14 * xy[k, 1], names[k], ha=ha, va="center", fontsize=10)
    ax.set_xlim(-1.9, 1.9)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"blue: the {len(chosen)} pairs measured (of {len(scores)});\n"
                 "thickness: how far a pair is from independent", fontsize=10)
    if right:
        a, c = pair
        bx = axes[1]
        real = marginal(records, dom, (a, c)).astype(float)
        synth = marginal(np.asarray(synthetic), dom, (a, c)).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            shares = [t[:, -1] / t.sum(axis=1) for t in (real, synth)]
        x = np.arange(dom[a])
        for off, sh, colour, lab in ((-0.2, shares[0], "0.45", "real"), (0.2, shares[1], "tab:blue", "synthetic")):
            bx.bar(x + off, np.nan_to_num(sh), width=0.38, color=colour, label=lab)
        ticks = labels[names[a]] if labels else [str(v) for v in x]
        last = labels[names[c]][-1] if labels else str(dom[c] - 1)
        bx.set_xticks(x, ticks)
        bx.set_xlabel(names[a])
        bx.set_ylabel(f"share with {names[c]} = {last}")
        bx.set_ylim(0, 1.25)
        bx.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        bx.legend(loc="upper left", ncol=2, frameon=False)
        measured = "measured" if tuple(sorted(pair)) in chosen else "not measured"
        bx.set_title(f"{names[c]} by {names[a]} (a pair MST {measured})", fontsize=10)
    fig.tight_layout()
    return fig


def plot_marginal_errors(epsilons, two_way, three_way, epsilon=None):
    """Left: mean l1 error over all two-way (solid) and three-way (dashed) marginals against epsilon, for MST,
    independent marginals and MWEM. Right: the three-way errors of each marginal at ``epsilon``, sorted.

    ``two_way`` and ``three_way`` are nested lists ``[method][epsilon index][marginal]`` in the order MST,
    independent, MWEM (precomputed by :func:`dpcourse.synthetic.compare_methods`: drawing is cheap).
    """
    eps = np.asarray(epsilons, dtype=float)
    two, three = np.asarray(two_way, dtype=float), np.asarray(three_way, dtype=float)
    i = int(np.argmin(np.abs(eps - (eps[-1] if epsilon is None else float(epsilon)))))
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4.2))
    for m, (_, label, colour) in enumerate(_METHODS):
        ax.plot(eps, two[m].mean(axis=1), "-o", color=colour, label=f"{label}, 2-way")
        ax.plot(eps, three[m].mean(axis=1), "--s", color=colour, label=f"{label}, 3-way", alpha=0.8)
        bx.plot(np.sort(three[m, i])[::-1], "-o", color=colour, label=label, ms=3)
    ax.axvline(eps[i], color="k", lw=0.8)
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    ax.set_xlabel("ε (δ = 1e-6)")
    ax.set_ylabel("mean l1 error of a marginal")
    ax.set_ylim(0, max(1.0, float(three.mean(axis=2).max())) * 1.35)
    ax.legend(fontsize=7, ncol=3, loc="upper right", frameon=False)
    bx.set_xlabel("three-way marginal (sorted by error)")
    bx.set_ylabel("l1 error")
    bx.set_ylim(0, 2)
    bx.set_title(f"ε = {eps[i]:g}: each of the {three.shape[2]} three-way marginals")
    bx.legend(frameon=False)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.13, top=0.91, wspace=0.22)   # fixed: cheaper than tight_layout
    return fig


def errors_widget(epsilons, two_way, three_way):
    """An ε slider over :func:`plot_marginal_errors` (one state per precomputed epsilon, at most 16)."""
    from .explorer import explorer

    eps = [float(e) for e in epsilons]
    return explorer(plot_marginal_errors, {"epsilon": ("ε", tuple(eps), eps[len(eps) // 2])},
                    alt="Mean error of MST, independent marginals and MWEM on the two- and three-way marginals of "
                        "the affairs survey against epsilon, and each three-way marginal's error at one epsilon",
                    epsilons=eps, two_way=np.asarray(two_way).tolist(), three_way=np.asarray(three_way).tolist())
