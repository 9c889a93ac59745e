"""Figures of the chapter "Lower bounds: why the noise cannot be smaller"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_epsilon, check_positive_int
from ..lower_bounds import packing_error_bound, tracing_trial

__all__ = ["tracing_roc", "plot_tracing_roc", "plot_packing", "tracing_widget"]


def tracing_roc(members, outsiders):
    """The ROC curve of the test "score > threshold": (FPR, TPR) arrays over every outsider score as threshold."""
    mem = np.sort(np.asarray(members, dtype=np.float64))
    out = np.sort(np.asarray(outsiders, dtype=np.float64))
    thresholds = out[::-1]
    fpr = np.arange(1, out.size + 1) / out.size        # outsiders with score >= threshold
    tpr = (mem.size - np.searchsorted(mem, thresholds, side="left")) / mem.size
    return fpr, tpr


def plot_tracing_roc(n=100, epsilon=1.0, *, d=1000, delta=1e-5, n_outsiders=500, seed=2026):
    """ROC of the tracing attack on a Gaussian release of d means of n people, with the DP cap TPR <= e^ε FPR + δ.

    One :func:`dpcourse.lower_bounds.tracing_trial` per call (release ``"gaussian"`` at (ε, δ)), plus the
    exact means for comparison; log-scaled FPR, so the low-FPR region where tracing matters is visible.
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    grid = np.logspace(-3, 0, 200)
    for kind, style in (("exact", "C3"), ("gaussian", "C0")):
        out = tracing_trial(n, d, release=kind, epsilon=eps, delta=delta, n_outsiders=n_outsiders, rng=seed)
        fpr, tpr = tracing_roc(out["members"], out["outsiders"])
        label = ("exact means" if kind == "exact" else
                 f"Gaussian, ε = {eps:g}: mean |error| {out['mean_abs_error']:.3f}")
        ax.step(fpr, tpr, where="post", color=style, label=label)
    ax.plot(grid, np.minimum(1.0, math.exp(min(eps, 700.0)) * grid + delta), "k--", lw=1,
            label=f"any ({eps:g}, {delta:g})-DP release: e^ε FPR + δ")
    ax.plot(grid, grid, color="0.6", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlim(1.0 / n_outsiders, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("false-positive rate (outsiders flagged)")
    ax.set_ylabel("true-positive rate (members flagged)")
    ax.set_title(f"Tracing the means of d = {d} attributes of n = {n} people")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def plot_packing(ks, epsilon, measured_median, measured_max, *, relation="add_remove"):
    """The packing lower bound on the median largest error against measured errors of a Laplace histogram."""
    eps = check_epsilon(epsilon)
    ks = np.asarray(ks)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    bound = [packing_error_bound(int(k), eps, relation=relation) for k in ks]
    ax.plot(ks, bound, "k-o", label="packing: some dataset has this error w.p. ≥ 1/2")
    ax.plot(ks, measured_median, "C0-s", label="geometric (Laplace) histogram: median largest error")
    ax.plot(ks, np.log(2 * ks) / eps, "C0:", label="its guarantee ln(2k)/ε at β = 1/2")
    ax.plot(ks, measured_max, "C1-^", label="its largest error in the runs")
    ax.set_xscale("log")
    ax.set_xlabel("number of bins k")
    ax.set_ylabel("largest count error")
    ax.set_title(f"Histograms at ε = {eps:g}: lower bound and the Laplace mechanism")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def tracing_widget():
    """Sliders for n and ε, redrawing :func:`plot_tracing_roc` (4 x 4 = 16 settings, each drawn at build time)."""
    from .explorer import explorer

    return explorer(plot_tracing_roc,
                    {"n": ("people n", (25, 100, 400, 1600), 100),
                     "epsilon": ("ε", (1.0, 4.0, 16.0, 64.0), 1.0)},
                    alt="ROC curves of the tracing attack on exact means and on a Gaussian release of 1000 "
                        "attribute means, with the cap e^ε FPR + δ that every (ε, δ)-DP release obeys",
                    d=1000, delta=1e-5)
