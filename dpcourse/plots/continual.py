"""Figures of the chapter "Continual release: counting over a stream"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_binary_array, check_choice, check_epsilon, check_positive_int
from ..continual import (factorization_counts, factorization_variance, naive_counts, naive_variance, tree_counts,
                         tree_levels, tree_variance)

__all__ = ["plot_running_count", "tree_nodes", "plot_dyadic_tree", "exact_errors", "plot_errors_vs_horizon",
           "plot_continual", "continual_widget"]

def _seed(seed) -> int:
    """A figure's ``seed``: an int >= 0 (refused by the name ``seed``, not by numpy's words)."""
    return check_positive_int(seed, "seed", minimum=0)


def _gaussian(epsilon: float, fn, *args):
    """``fn(*args, rho)`` at the Gaussian counters' rho = epsilon**2 / 2; where they refuse that rho, the refusal
    names ``epsilon`` (the argument the caller gave), not rho."""
    rho = epsilon * epsilon / 2
    try:
        return fn(*args, rho)
    except ValueError as err:
        raise ValueError(f"epsilon={epsilon!r} is out of range for the Gaussian counters of this figure, which run at "
                         f"rho = epsilon**2 / 2: {err}") from None


_RUN_LABELS = {"fresh": "fresh noise on every answer", "increments": "noise on every event, summed",
               "tree": "binary tree counter"}


def plot_running_count(stream, epsilon=1.0, *, methods=("fresh", "increments"), errors=False, seed=0):
    """The true running count of a stream and one private run of each counter, answer after answer.

    One panel per entry of ``methods``: ``"fresh"`` (every count with its own discrete Laplace noise of scale
    T/epsilon), ``"increments"`` (noise of scale 1/epsilon on every event, then running sums; both theorem
    ``cr-thm-naive``) and ``"tree"`` (the Laplace tree counter, theorem ``cr-thm-tree-privacy``), each epsilon-DP
    under event-level neighbours, the runs drawn in the order of ``methods`` from one generator seeded with
    ``seed``. With ``errors=False`` the true count is drawn in black and the private answers in colour; with
    ``errors=True`` the error of each answer (private minus true) is drawn inside the band of plus or minus two
    exact standard deviations (``naive_variance``, ``tree_variance``). Each title gives the largest exact standard
    deviation of an answer.
    """
    x = check_binary_array(stream, "stream", ndim=1)
    eps = check_epsilon(epsilon)
    chosen = tuple(check_choice(m, "methods", tuple(_RUN_LABELS)) for m in
                   ((methods,) if isinstance(methods, str) else tuple(methods)))
    if not 1 <= len(chosen) <= 3 or len(set(chosen)) != len(chosen):
        raise ValueError(f"methods must name 1 to 3 different counters among {tuple(_RUN_LABELS)}, got {chosen!r}")
    if not isinstance(errors, (bool, np.bool_)):
        raise TypeError(f"errors must be True or False, got {errors!r}")
    T = x.size
    t = np.arange(1, T + 1)
    truth = np.cumsum(x)
    gen = np.random.default_rng(_seed(seed))
    fig, axes = plt.subplots(1, len(chosen), figsize=(4.6 * len(chosen) + 0.8, 3.9), squeeze=False, sharey=bool(errors))
    colors = {"fresh": "tab:gray", "increments": "tab:orange", "tree": "tab:blue"}
    for ax, method in zip(axes[0], chosen):
        if method == "tree":
            y = tree_counts(x, eps, rng=gen)
            sd = np.sqrt(tree_variance(t, T, eps))
        else:
            y = naive_counts(x, eps, method=method, rng=gen)
            sd = np.sqrt(naive_variance(t, T, eps, method=method))
        if errors:
            ax.fill_between(t, -2 * sd, 2 * sd, color=colors[method], alpha=0.2, lw=0)
            ax.plot(t, y - truth, color=colors[method], lw=0.7)
            ax.axhline(0, color="black", lw=0.8)
            ax.set_title(f"{_RUN_LABELS[method]}: largest sd {sd.max():,.1f}\nshaded: ± 2 sd of each answer (exact)",
                         fontsize=10)
        else:
            ax.plot(t, y, color=colors[method], lw=0.7, label="private answers")
            ax.plot(t, truth, color="black", lw=1.4, label="true count")
            ax.set_title(f"{_RUN_LABELS[method]}\nlargest sd of an answer: {sd.max():,.1f}", fontsize=10)
            ax.legend(fontsize=8, loc="upper left")
        ax.set_xlabel("step t (events so far)")
    axes[0][0].set_ylabel("private − true count" if errors else "running count")
    fig.tight_layout()
    return fig


def tree_nodes(horizon, t):
    """The nodes of the binary tree counter that answer step t: ``[(level, start, end), ...]``, largest first.

    The node of level j covers the steps ``start + 1 .. end`` with ``end - start = 2**j``; one node per 1 bit of
    ``t`` (definition ``cr-def-tree``), so there are popcount(t) of them and they cover 1..t exactly.

    >>> tree_nodes(16, 13)
    [(3, 0, 8), (2, 8, 12), (0, 12, 13)]
    """
    T = check_positive_int(horizon, "horizon")
    step = check_positive_int(t, "t")
    if step > T:
        raise ValueError(f"t must be at most the horizon {T}, got {step}")
    nodes, start = [], 0
    for j in range(step.bit_length() - 1, -1, -1):
        if step >> j & 1:
            nodes.append((j, start, start + 2**j))
            start += 2**j
    return nodes


def plot_dyadic_tree(horizon=16, t=13, event=5):
    """The binary tree over T steps: the answer at step t adds one node per 1 bit of t, and one event lies in at
    most one released node per level.

    Level j holds the nodes of 2**j steps, ``((k - 1) 2**j, k 2**j]``; only the nodes with odd k are released
    (solid boxes, definition ``cr-def-tree``), the others are never needed (dashed). The nodes of :func:`tree_nodes`
    answering ``t`` are filled blue; the released nodes that contain the step ``event`` are outlined in red (at most
    L = floor(log2 T) + 1 of them, lemma ``cr-lem-tree-sensitivity``). At most 64 steps, so that every box can be
    drawn.
    """
    from matplotlib.patches import Patch, Rectangle

    T = check_positive_int(horizon, "horizon")
    if T > 64:
        raise ValueError(f"horizon must be at most 64 so that every node can be drawn, got {T}")
    answer = tree_nodes(T, t)
    s = check_positive_int(event, "event")
    if s > T:
        raise ValueError(f"event must be a step between 1 and the horizon {T}, got {s}")
    L = tree_levels(T)
    step_t = answer[-1][2]
    answering = {(j, a) for j, a, _ in answer}
    fig, ax = plt.subplots(figsize=(9.5, 1.0 + 0.62 * L))
    hits = 0
    for j in range(L):
        width = 2**j
        for k in range(1, T // width + 1):
            a = (k - 1) * width
            released = k % 2 == 1
            has_event = a < s <= a + width
            fill = "tab:blue" if (j, a) in answering else ("0.93" if released else "none")
            edge = "tab:red" if released and has_event else ("0.25" if released else "0.6")
            hits += released and has_event
            ax.add_patch(Rectangle((a + 0.08, j + 0.1), width - 0.16, 0.8, facecolor=fill,
                                   alpha=0.75 if fill == "tab:blue" else 1.0, edgecolor=edge,
                                   lw=2.4 if edge == "tab:red" else 1.0, ls="-" if released else "--"))
            if released and width >= 4:
                ax.text(a + width / 2, j + 0.5, f"({a}, {a + width}]", ha="center", va="center", fontsize=8,
                        color="white" if (j, a) in answering else "black")
    ax.axvline(step_t, color="tab:blue", ls=":", lw=1.2)
    ax.set_xlim(0, T)
    ax.set_ylim(-0.05, L + 0.05)
    ax.set_xticks(np.arange(T) + 0.5, [str(v) for v in range(1, T + 1)], fontsize=8)
    ax.set_yticks(np.arange(L) + 0.5, [f"level {j}: {2**j} step{'s' if j else ''}" for j in range(L)], fontsize=8)
    ax.set_xlabel("step")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_title(f"T = {T}, L = {L} levels: the answer at t = {step_t} = {step_t:b}₂ adds {len(answer)} nodes; "
                 f"event {s} lies in {hits} released nodes", fontsize=10)
    handles = [Patch(facecolor="0.93", edgecolor="0.25", label="released node (its noisy sum)"),
               Patch(facecolor="none", edgecolor="0.6", ls="--", label="never released"),
               Patch(facecolor="tab:blue", alpha=0.75, edgecolor="0.25", label=f"nodes that answer t = {step_t}"),
               Patch(facecolor="none", edgecolor="tab:red", lw=2.4, label=f"released nodes holding event {s}")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def exact_errors(horizon, epsilon) -> dict:
    """Root-mean-square error of every answer t = 1..T of each mechanism, from the exact variances.

    Pure epsilon-DP: naive fresh noise, naive noisy increments, the Laplace tree. rho-zCDP with rho = epsilon^2 / 2
    (what epsilon-DP implies, the common currency of the comparison): the Gaussian tree and the square-root
    factorization. Returns a dict name -> array of length T.
    """
    T = check_positive_int(horizon, "horizon")
    eps = check_epsilon(epsilon)
    t = np.arange(1, T + 1)
    return {"naive: fresh noise": np.sqrt(naive_variance(t, T, eps)),
            "naive: noisy increments": np.sqrt(naive_variance(t, T, eps, method="increments")),
            "tree, Laplace (ε-DP)": np.sqrt(tree_variance(t, T, eps)),
            "tree, Gaussian (ρ = ε²/2)": np.sqrt(_gaussian(eps, lambda r: tree_variance(t, T, rho=r))),
            "factorization, Gaussian (ρ = ε²/2)": np.sqrt(_gaussian(eps, factorization_variance, t, T))}


STYLES = {"naive: fresh noise": ("tab:gray", ":"), "naive: noisy increments": ("tab:orange", "--"),
          "tree, Laplace (ε-DP)": ("tab:blue", "-"), "tree, Gaussian (ρ = ε²/2)": ("tab:green", "-"),
          "factorization, Gaussian (ρ = ε²/2)": ("tab:red", "-")}


def plot_errors_vs_horizon(epsilon=1.0, log2_horizons=tuple(range(4, 17, 2))):
    """Largest RMSE over t = 1..T of each mechanism against T (exact), with the proved bounds dashed."""
    eps = check_epsilon(epsilon)
    Ts = [2**check_positive_int(k, "log2_horizons") for k in log2_horizons]
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
    gen = np.random.default_rng(_seed(seed))
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
    truth = np.cumsum(stream)
    runs = {"naive: noisy increments": naive_counts(stream, eps, method="increments", rng=gen),
            "tree, Laplace (ε-DP)": tree_counts(stream, eps, rng=gen),
            "tree, Gaussian (ρ = ε²/2)": _gaussian(eps, lambda r: tree_counts(stream, rho=r, rng=gen)),
            "factorization, Gaussian (ρ = ε²/2)": _gaussian(eps, lambda r: factorization_counts(stream, r, rng=gen))}
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
