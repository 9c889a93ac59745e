"""Figures of the chapter "Private statistical inference"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import log_ndtr, ndtri

from .._validation import check_choice, check_epsilon, check_positive_int, check_real
from ..inference import _laplace_normal_tail, course_populations, interval_coverage, noise_aware_halfwidth

__all__ = ["plot_error_law", "plot_interval_coverage", "plot_coverage_grid", "interval_widget"]

_COLOURS = {"noise_aware": "tab:blue", "naive": "tab:orange", "non_private": "tab:grey"}
_LABELS = {"noise_aware": "noise-aware", "naive": "naive", "non_private": "non-private"}


def _error_law_density(x, sigma, b):
    """The density of ``S + L`` at ``x``, ``S ~ N(0, sigma^2)`` and ``L ~ Laplace(b)`` independent (sigma, b > 0).

    ``(1/(2b)) e^{sigma^2/(2b^2)} [e^{-x/b} Phi(x/sigma - sigma/b) + e^{x/b} Phi(-x/sigma - sigma/b)]``, the
    derivative of the tail of theorem ``inf-thm-convolution``, evaluated in log space.
    """
    x = np.asarray(x, dtype=float)
    half = sigma * sigma / (2.0 * b * b)
    return (np.exp(half - x / b + log_ndtr(x / sigma - sigma / b))
            + np.exp(half + x / b + log_ndtr(-x / sigma - sigma / b))) / (2.0 * b)


def plot_error_law(sigma=1.0, b=1.0, *, level=0.95):
    """Why the naive interval misses: the error of a private mean is sampling error plus Laplace noise.

    The density of the sampling error alone (normal, standard deviation ``sigma``, dashed) and of the error
    of the release (normal plus Laplace of scale ``b``, theorem ``inf-thm-convolution``, solid). The naive
    half-width ``z sigma`` (orange) is right for the first and too short for the second: the orange tails
    are the probability that the naive interval misses. The noise-aware half-width (blue) leaves
    ``1 - level`` in the tails of the second. The legend states both miss probabilities, computed exactly.
    """
    s = check_real(sigma, "sigma", low=0.0, low_open=True)
    bb = check_real(b, "b", low=0.0, low_open=True)
    lev = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    z = float(-ndtri((1.0 - lev) / 2.0))
    naive, aware = z * s, noise_aware_halfwidth(s, bb, lev)
    miss_naive = float(_laplace_normal_tail(naive, s, bb))
    miss_aware = float(_laplace_normal_tail(aware, s, bb))
    reach = 1.35 * aware
    x = np.linspace(-reach, reach, 801)
    both = _error_law_density(x, s, bb)
    alone = np.exp(-0.5 * (x / s) ** 2) / (s * np.sqrt(2.0 * np.pi))
    fig, ax = plt.subplots(figsize=(9, 4.8))
    ax.plot(x, alone, "--", color="tab:grey", label="sampling error alone")
    ax.plot(x, both, color="k", label=f"sampling error + privacy noise (Laplace, b = {bb:g})")
    tails = np.abs(x) > naive
    ax.fill_between(x, 0, both, where=tails, color="tab:orange", alpha=0.35, lw=0)
    for sign in (-1, 1):
        ax.axvline(sign * naive, color="tab:orange", lw=2,
                   label=f"naive ±{naive:.2f}: misses {miss_naive:.1%}" if sign > 0 else None)
        ax.axvline(sign * aware, color="tab:blue", lw=2,
                   label=f"noise-aware ±{aware:.2f}: misses {miss_aware:.1%}" if sign > 0 else None)
    ax.set_xlim(-reach, reach)
    ax.set_ylim(0, 1.1 * float(alone.max()))
    ax.set_xlabel("error of the released mean (estimate minus target)")
    ax.set_ylabel("density")
    ax.set_title(f"a {lev:.0%} interval must hold {lev:.0%} of the solid curve")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=9, frameon=False)
    fig.tight_layout()
    return fig


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
