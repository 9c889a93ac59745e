"""Figures of the chapter "Private statistical inference"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_choice, check_epsilon, check_positive_int
from ..inference import course_populations, interval_coverage

__all__ = ["plot_interval_coverage", "plot_coverage_grid", "interval_widget"]

_COLOURS = {"noise_aware": "tab:blue", "naive": "tab:orange", "non_private": "tab:grey"}
_LABELS = {"noise_aware": "noise-aware", "naive": "naive", "non_private": "non-private"}


def plot_interval_coverage(n=1000, epsilon=0.1, *, kind="mean", shown=30, reps=200, rng=0):
    """Left: ``shown`` simulated 95% intervals of each method around the target (misses in red).
    Right: the coverage of each method over ``reps`` repetitions (sampling and privacy noise), with
    +-2 Monte-Carlo standard errors, and the band [94%, 97%]. Populations: :func:`dpcourse.inference.course_populations`.
    """
    n = check_positive_int(n, "n", minimum=2)
    eps = check_epsilon(epsilon)
    kind = check_choice(kind, "kind", ("mean", "proportion", "difference"))
    shown = check_positive_int(shown, "shown")
    out = interval_coverage(kind, n=n, epsilon=eps, reps=max(reps, shown), rng=rng, keep_intervals=True,
                            **course_populations()[kind])
    truth = out["truth"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4.6), gridspec_kw={"width_ratios": [2.0, 1]})
    methods = ("non_private", "naive", "noise_aware")
    centres = []
    for j, meth in enumerate(methods):
        lows, highs = out["intervals"][meth]
        for i in range(shown):
            y = i + j * (shown + 4)
            miss = not lows[i] <= truth <= highs[i]
            ax.plot([lows[i], highs[i]], [y, y], color="tab:red" if miss else _COLOURS[meth], lw=1.6)
        centres.append(j * (shown + 4) + shown / 2)
    ax.set_yticks(centres, ["non-\nprivate", "naive", "noise-\naware"])
    ax.axvline(truth, color="k", lw=1)
    ax.set_xlabel({"mean": "mean body mass (g)", "proportion": "share reporting an affair",
                   "difference": "male minus female body mass (g)"}[kind])
    ax.set_title(f"n = {n}, ε = {eps:g}: {shown} intervals (red: misses)")
    covs = [out[m][0] for m in methods]
    errs = [2 * out[m][1] for m in methods]
    bx.axhspan(0.94, 0.97, color="tab:green", alpha=0.25)
    bx.bar(range(3), covs, yerr=errs, color=[_COLOURS[m] for m in methods], capsize=4)
    bx.set_xticks(range(3), ["non-\nprivate", "naive", "noise-\naware"])
    bx.set_ylim(0, 1.15)
    bx.set_yticks([0, 0.5, 0.95])
    bx.set_title(f"coverage, {max(reps, shown)} runs")
    # the percentages sit inside the bars, at their foot (black reads on all three colours): never on the band
    for i, c in enumerate(covs):
        bx.text(i, 0.03 if c >= 0.2 else c + errs[i] + 0.03, f"{c:.0%}", ha="center", va="bottom")
    fig.tight_layout()
    return fig


def plot_coverage_grid(grid, *, title=""):
    """Coverage (with 2 standard errors) of each method on an ``{(n, epsilon): result}`` grid of
    :func:`dpcourse.inference.coverage_grid`, one group of bars per cell, with the band [94%, 97%]."""
    cells = list(grid)
    fig, ax = plt.subplots(figsize=(10, 4.2))
    ax.axhspan(0.94, 0.97, color="tab:green", alpha=0.25)
    for j, meth in enumerate(("noise_aware", "naive", "non_private")):
        x = np.arange(len(cells)) + (j - 1) * 0.27
        ax.bar(x, [grid[c][meth][0] for c in cells], width=0.25, yerr=[2 * grid[c][meth][1] for c in cells],
               color=_COLOURS[meth], label=_LABELS[meth], capsize=2)
    ax.set_xticks(range(len(cells)), [f"{n}\n{e:g}" for n, e in cells])
    ax.set_xlabel("n (top) and ε (bottom)")
    ax.set_ylim(0, 1.3)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 0.95])
    ax.set_ylabel("coverage")
    ax.set_title(title)
    ax.legend(loc="upper center", ncol=3, frameon=False)
    fig.tight_layout()
    return fig


def interval_widget():
    """Sliders for n and epsilon redrawing :func:`plot_interval_coverage` (mean body mass): an
    :func:`dpcourse.plots.explorer.explorer` with 3 x 4 = 12 settings, each drawn at build time."""
    from .explorer import explorer

    return explorer(plot_interval_coverage,
                    {"n": ("n", (100, 1000, 10_000), 1000), "epsilon": ("ε", (0.1, 0.3, 1.0, 3.0), 0.1)},
                    alt="Thirty simulated 95% intervals for the mean body mass (non-private, naive, noise-aware) "
                        "around the clamped population mean, and the coverage of each method")
