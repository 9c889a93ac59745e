"""Figures of the chapter "Synthetic data from noisy marginals"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["plot_marginal_errors", "errors_widget"]

_METHODS = (("mst", "MST", "tab:blue"), ("independent", "independent", "tab:orange"), ("mwem", "MWEM", "tab:green"))


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
