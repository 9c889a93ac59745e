"""Figures of the chapter "Continual release: counting over a stream"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_epsilon, check_positive_int
from ..continual import (factorization_counts, factorization_variance, naive_counts, naive_variance, tree_counts,
                         tree_variance)

__all__ = ["exact_errors", "plot_errors_vs_horizon", "plot_continual", "continual_widget"]


def exact_errors(horizon, epsilon) -> dict:
    """Root-mean-square error of every answer t = 1..T of each mechanism, from the exact variances.

    Pure epsilon-DP: naive fresh noise, naive noisy increments, the Laplace tree. rho-zCDP with rho = epsilon^2 / 2
    (what epsilon-DP implies, the common currency of the comparison): the Gaussian tree and the square-root
    factorization. Returns a dict name -> array of length T.
    """
    T = check_positive_int(horizon, "horizon")
    eps = check_epsilon(epsilon)
    rho = eps * eps / 2
    t = np.arange(1, T + 1)
    return {"naive: fresh noise": np.sqrt(naive_variance(t, T, eps)),
            "naive: noisy increments": np.sqrt(naive_variance(t, T, eps, method="increments")),
            "tree, Laplace (ε-DP)": np.sqrt(tree_variance(t, T, eps)),
            "tree, Gaussian (ρ = ε²/2)": np.sqrt(tree_variance(t, T, rho=rho)),
            "factorization, Gaussian (ρ = ε²/2)": np.sqrt(factorization_variance(t, T, rho))}


STYLES = {"naive: fresh noise": ("tab:gray", ":"), "naive: noisy increments": ("tab:orange", "--"),
          "tree, Laplace (ε-DP)": ("tab:blue", "-"), "tree, Gaussian (ρ = ε²/2)": ("tab:green", "-"),
          "factorization, Gaussian (ρ = ε²/2)": ("tab:red", "-")}


def plot_errors_vs_horizon(epsilon=1.0, log2_horizons=tuple(range(4, 17, 2))):
    """Largest RMSE over t = 1..T of each mechanism against T (exact), with the proved bounds dashed."""
    eps = check_epsilon(epsilon)
    Ts = [2**int(k) for k in log2_horizons]
    worst = {name: [] for name in STYLES}
    for T in Ts:
        for name, rmse in exact_errors(T, eps).items():
            worst[name].append(rmse.max())
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    for name, values in worst.items():
        color, ls = STYLES[name]
        ax.plot(Ts, values, ls, color=color, marker="o", ms=3, label=name)
    L = np.array([T.bit_length() for T in Ts], dtype=float)
    ax.plot(Ts, math.sqrt(2) * L**1.5 / eps, color="black", lw=0.8, ls=(0, (4, 3)),
            label="bound √2 L^1.5/ε (tree, Laplace)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("horizon T")
    ax.set_ylabel("largest RMSE over t ≤ T")
    ax.set_title(f"Error of a running count, ε = {eps:g}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.subplots_adjust(left=0.09, right=0.62, bottom=0.13, top=0.92)
    return fig


def plot_continual(horizon=2**12, epsilon=1.0, seed=0):
    """Left: exact RMSE of every answer t (five mechanisms). Right: one seeded run of each on a stream with
    one event in three, the error (private count minus true count) against t."""
    T = check_positive_int(horizon, "horizon")
    eps = check_epsilon(epsilon)
    t = np.arange(1, T + 1)
    stream = (t % 3 == 0).astype(np.int64)
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(11, 4))
    shown = slice(None, None, max(1, T // 1024))     # at most about 1,024 points per line (the figure stays cheap)
    for name, rmse in exact_errors(T, eps).items():
        color, ls = STYLES[name]
        ax0.plot(t[shown], rmse[shown], ls, color=color, lw=1, label=name)
    ax0.set_yscale("log")
    ax0.set_xlabel("step t")
    ax0.set_ylabel("RMSE of the answer at t (exact)")
    ax0.set_title(f"T = {T}, ε = {eps:g}" + (f" (every {T // 1024}th t shown)" if T > 1024 else ""))
    ax0.legend(fontsize=7)
    gen = np.random.default_rng(seed)
    truth = np.cumsum(stream)
    runs = {"naive: noisy increments": naive_counts(stream, eps, method="increments", rng=gen),
            "tree, Laplace (ε-DP)": tree_counts(stream, eps, rng=gen),
            "tree, Gaussian (ρ = ε²/2)": tree_counts(stream, rho=eps * eps / 2, rng=gen),
            "factorization, Gaussian (ρ = ε²/2)": factorization_counts(stream, eps * eps / 2, rng=gen)}
    for name, y in runs.items():
        color, _ = STYLES[name]
        ax1.plot(t[shown], (y - truth)[shown], color=color, lw=0.7, label=name)
    ax1.axhline(0, color="black", lw=0.5)
    ax1.set_xlabel("step t")
    ax1.set_ylabel("private count − true count")
    ax1.set_title("one run of each (seeded)")
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.13, top=0.92, wspace=0.25)
    return fig


def continual_widget():
    """Sliders for the horizon and epsilon, redrawing :func:`plot_continual`: 4 x 4 = 16 settings."""
    from .explorer import explorer

    return explorer(plot_continual,
                    {"horizon": ("horizon T", (2**8, 2**10, 2**12, 2**14), 2**12),
                     "epsilon": ("ε", (0.25, 0.5, 1.0, 2.0), 1.0)},
                    alt="Exact RMSE of every answer of the naive, tree and factorization counters, and one run of "
                        "each, for the chosen horizon and epsilon",
                    seed=0)
