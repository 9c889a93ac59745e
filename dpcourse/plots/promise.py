"""Figures of the chapter "What differential privacy promises"."""

from __future__ import annotations

import math
from itertools import combinations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_delta, check_distribution, check_epsilon, check_positive_int, check_real
from ..divergences import hockey_stick, privacy_loss
from ..rr import rr_count_distribution, rr_truth_probability

__all__ = ["plot_exp_vs_linear", "plot_neighbour_distributions", "plot_rr_count", "rr_count_widget",
           "tradeoff_points", "plot_testing_tradeoff"]


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


def plot_rr_count(n=5, epsilon=math.log(3)):
    """Randomized-response count at epsilon on x = (1, 0, ..., 0) and its replace-one neighbour (0, ..., 0).

    Each person reports their bit with probability ``e^epsilon / (1 + e^epsilon)`` (theorem
    ``thm-rr-count-epsilon``). Three panels: the two output distributions, the privacy loss of each
    outcome, and the hockey-stick divergence delta(eps) of the pair against eps, which reaches 0 exactly
    at the pair's worst-case privacy loss (equal to ``epsilon``).
    """
    n = check_positive_int(n, "n")
    eps_rr = check_epsilon(epsilon)
    t = rr_truth_probability(eps_rr)
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
    fig.suptitle(f"randomized-response count, n = {n}, epsilon = {eps_rr:.2f} (truth probability {t:.2f})")
    fig.tight_layout()
    return fig


def rr_count_widget():
    """Sliders for n and epsilon, redrawing :func:`plot_rr_count`.

    A :func:`dpcourse.plots.explorer.explorer`: live in Jupyter, and in the static book every setting is
    drawn at build time by the same function.
    """
    from .explorer import explorer

    return explorer(plot_rr_count,
                    {"n": ("n", (1, 2, 5, 10, 20, 30), 5),
                     "epsilon": ("epsilon", (0.25, 0.5, 1.1, 2.0, 3.0), 1.1)},
                    alt="Randomized-response count on two neighbouring classes: distributions, privacy loss "
                        "and hockey-stick divergence")


def tradeoff_points(p, q):
    """(false-positive rate, false-negative rate) of every deterministic test between two distributions.

    H0: the output comes from ``p`` (dataset x); H1: from ``q`` (its neighbour x'). A deterministic test
    rejects H0 on an event S of the (at most 16) outcomes; its errors are ``FPR = p(S)`` and
    ``FNR = 1 - q(S)``. Returns an array of shape (2^m, 2), one row per event S (theorem
    ``thm-testing-tradeoff``).
    """
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    m = p.size
    if m > 16:
        raise ValueError(f"p and q must have at most 16 outcomes (2^m events are enumerated), got {m}")
    rows = [(p[list(S)].sum(), 1.0 - q[list(S)].sum()) for r in range(m + 1) for S in combinations(range(m), r)]
    return np.array(rows)


def plot_testing_tradeoff(p, q, epsilon, delta=0.0):
    """The errors of every test between p and q, inside the region that (epsilon, delta)-DP allows.

    Points: (FPR, FNR) of every event (:func:`tradeoff_points`). Lines: FPR + e^eps FNR = 1 - delta and
    FNR + e^eps FPR = 1 - delta; (epsilon, delta)-DP puts every test on or above both
    (theorem ``thm-testing-tradeoff``).
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    pts = tradeoff_points(p, q)
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    a = np.linspace(0, 1, 400)
    bound = np.maximum.reduce([(1 - d - a) * math.exp(-eps), 1 - d - math.exp(eps) * a, np.zeros_like(a)])
    ax.fill_between(a, 0, bound, color="C3", alpha=0.15, label="excluded by the theorem")
    ax.plot(a, bound, color="C3")
    ax.plot(a, 1 - a, color="0.6", ls=":", label="random guessing")
    ax.scatter(pts[:, 0], pts[:, 1], s=12, color="C0", label="one test (event S)", zorder=3)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("false-positive rate  P[reject | x]")
    ax.set_ylabel("false-negative rate  P[accept | x']")
    ax.set_title(f"tests between two neighbours, ε = {eps:.3g}, δ = {d:g}")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
