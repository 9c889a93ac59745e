"""Figures of the chapter "What differential privacy promises"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_positive_int, check_probability, check_real
from ..divergences import hockey_stick, privacy_loss
from ..rr import rr_count_distribution

__all__ = ["plot_exp_vs_linear", "plot_neighbour_distributions", "plot_rr_count", "rr_count_widget"]


def plot_exp_vs_linear(eps_min=1e-4, eps_max=1.0):
    """Plot e^eps and 1 + eps for eps in [eps_min, eps_max] (log axis), with their relative gap."""
    lo = check_real(eps_min, "eps_min", low=0.0, low_open=True)
    hi = check_real(eps_max, "eps_max", low=lo, low_open=True)
    eps = np.geomspace(lo, hi, 400)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    ax1.plot(eps, np.exp(eps), label=r"$e^\varepsilon$")
    ax1.plot(eps, 1 + eps, "--", label=r"$1+\varepsilon$")
    ax1.set_xscale("log")
    ax1.set_xlabel(r"$\varepsilon$")
    ax1.set_ylabel("largest allowed ratio")
    ax1.legend()
    ax1.set_title("Multiplicative slack")
    gap = np.expm1(eps) / eps - 1.0  # (e^eps - 1 - eps) / eps, computed without cancellation
    ax2.loglog(eps, gap, label=r"$(e^\varepsilon-1-\varepsilon)/\varepsilon$")
    ax2.loglog(eps, eps / 2, ":", label=r"$\varepsilon/2$")
    ax2.set_xlabel(r"$\varepsilon$")
    ax2.set_ylabel("relative gap")
    ax2.legend()
    ax2.set_title(r"$e^\varepsilon$ exceeds $1+\varepsilon$ by about $\varepsilon^2/2$")
    fig.tight_layout()
    return fig


def plot_neighbour_distributions(p, q, *, labels=None, names=("x", "x'"), axes=None):
    """Bar chart of two output distributions, and the privacy loss ln(p/q) of each outcome.

    The dashed lines mark +-privacy_loss(p, q): the mechanism's epsilon for this pair. ``axes`` is an
    optional pair of matplotlib Axes to draw into (a new figure otherwise).
    """
    eps = privacy_loss(p, q)
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    outcomes = np.arange(p.size)
    labels = [str(o) for o in outcomes] if labels is None else list(labels)
    if axes is None:
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    else:
        ax1, ax2 = axes
        fig = ax1.figure
    w = 0.4
    ax1.bar(outcomes - w / 2, p, w, label=f"M({names[0]})")
    ax1.bar(outcomes + w / 2, q, w, label=f"M({names[1]})")
    ax1.set_xticks(outcomes, labels)
    ax1.set_xlabel("outcome")
    ax1.set_ylabel("probability")
    ax1.legend()
    both = (p > 0) & (q > 0)
    loss = np.full(p.shape, np.nan)
    loss[both] = np.log(p[both] / q[both])
    ax2.bar(outcomes[both], loss[both], color="tab:purple")
    for o in outcomes[~both & ((p > 0) | (q > 0))]:
        ax2.annotate("inf", (o, 0), ha="center", va="bottom", color="tab:red")
    if np.isfinite(eps):
        ax2.axhline(eps, ls="--", color="k", lw=1)
        ax2.axhline(-eps, ls="--", color="k", lw=1)
    ax2.axhline(0, color="grey", lw=0.5)
    ax2.set_xticks(outcomes, labels)
    ax2.set_xlabel("outcome")
    ax2.set_ylabel(r"privacy loss $\ln(p/q)$")
    ax2.set_title(f"privacy loss = {eps:.3f}")
    fig.tight_layout()
    return fig


def plot_rr_count(n=5, truth_prob=0.75):
    """Randomized-response count on x = (1, 0, ..., 0) and its replace-one neighbour (0, ..., 0).

    Three panels: the two output distributions, the privacy loss of each outcome, and the hockey-stick
    divergence delta(eps) of the pair against eps, which reaches 0 exactly at the pair's privacy loss.
    """
    n = check_positive_int(n, "n")
    t = check_probability(truth_prob, "truth_prob", open_low=True, open_high=True)
    x = np.zeros(n)
    x[0] = 1
    p = rr_count_distribution(x, t)
    q = rr_count_distribution(np.zeros(n), t)
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    plot_neighbour_distributions(p, q, names=("x", "x'"), axes=axes[:2])
    eps_pair = privacy_loss(p, q)
    ax = axes[2]
    grid = np.linspace(0, 1.5 * max(eps_pair, 0.1), 300)
    ax.plot(grid, np.maximum(hockey_stick(p, q, grid), hockey_stick(q, p, grid)))
    ax.axvline(eps_pair, ls="--", color="k", lw=1)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"smallest $\delta$")
    ax.set_title(r"$\delta(\varepsilon)$ of the pair")
    fig.suptitle(f"randomized-response count, n = {n}, truth probability {t:.2f}")
    fig.tight_layout()
    return fig


def rr_count_widget():
    """Sliders for n and the truth probability, redrawing :func:`plot_rr_count`."""
    import ipywidgets as widgets

    def show(n, truth_prob):
        plot_rr_count(n, truth_prob)
        plt.show()

    return widgets.interactive(
        show,
        n=widgets.IntSlider(value=5, min=1, max=30, description="n"),
        truth_prob=widgets.FloatSlider(value=0.75, min=0.51, max=0.99, step=0.01, description="truth prob."),
    )
