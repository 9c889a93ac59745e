"""Figures of the chapter "What differential privacy promises"."""

from __future__ import annotations

import math
from itertools import combinations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_delta, check_distribution, check_epsilon, check_positive_int, check_real
from ..divergences import hockey_stick, privacy_loss
from ..rr import rr_count_distribution, rr_truth_probability

__all__ = ["count_posteriors", "plot_two_worlds", "plot_attack_defeated", "plot_exp_vs_linear",
           "plot_neighbour_distributions", "plot_rr_count", "rr_count_widget", "tradeoff_points",
           "plot_testing_tradeoff"]


def _check_bits(bits, name):
    """A non-empty list of 0/1 records (the known part of a small gradebook), as ints."""
    arr = np.asarray(bits)
    if arr.dtype == bool or arr.ndim != 1 or arr.size == 0 or arr.size > 60:
        raise ValueError(f"{name} must be a list of 1 to 60 bits (0 or 1), got {bits!r}")
    if not np.issubdtype(arr.dtype, np.number) or not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must hold only the bits 0 and 1, got {bits!r}")
    return [int(b) for b in arr]


def count_posteriors(others, epsilon, prior=0.5):
    """What an attacker believes about one person after seeing the randomized-response count of a class.

    The attacker knows every record of the class (``others``) except one person's bit, which is 1 with
    prior probability ``prior``. The teacher publishes the number of 1s among the reports of randomized
    response at ``epsilon`` (truth probability ``e^epsilon / (1 + e^epsilon)``). By Bayes' rule, after
    seeing the count c the attacker's probability that the bit is 1 is
    ``prior P[c | 1] / (prior P[c | 1] + (1 - prior) P[c | 0])``; theorem ``thm-posterior-odds`` keeps it
    within the odds ``prior / (1 - prior)`` times ``e^-epsilon`` and ``e^epsilon``.

    Returns ``(posterior, probability)``: arrays indexed by the count 0..len(others) + 1, the posterior
    probability that the bit is 1 and the probability that the count is published (under the prior).
    """
    known = _check_bits(others, "others")
    eps = check_epsilon(epsilon)
    pi = check_real(prior, "prior", low=0.0, high=1.0, low_open=True, high_open=True)
    t = rr_truth_probability(eps)
    with_one = rr_count_distribution(known + [1], t)
    with_zero = rr_count_distribution(known + [0], t)
    probability = pi * with_one + (1 - pi) * with_zero
    return pi * with_one / probability, probability


def plot_two_worlds(others=(1, 1, 0, 0, 0), epsilon=1.0):
    """The published count of A's in two classes that differ only in Dana's grade: exact, and randomized.

    Left: the exact count, one number in each world, so the number gives Dana's grade away. Middle: the
    count of randomized-response reports at ``epsilon`` in the world where Dana got an A (``others`` plus
    a 1) and where she did not (``others`` plus a 0). Right: the ratio of the two probabilities of each
    count, which definition ``def-pure-dp`` keeps between ``e^-epsilon`` and ``e^epsilon`` (dashed).
    """
    known = _check_bits(others, "others")
    eps = check_epsilon(epsilon)
    t = rr_truth_probability(eps)
    with_a = rr_count_distribution(known + [1], t)
    without = rr_count_distribution(known + [0], t)
    counts = np.arange(with_a.size)
    fig, (ax0, ax1, ax2) = plt.subplots(1, 3, figsize=(13, 3.8))
    w = 0.4
    exact = sum(known)
    ax0.bar([exact + 1 - w / 2], [1.0], w, color="C0", label="Dana got an A")
    ax0.bar([exact + w / 2], [1.0], w, color="C1", label="Dana did not")
    ax0.set_title("exact count: the worlds never overlap")
    ax1.bar(counts - w / 2, with_a, w, color="C0", label="Dana got an A")
    ax1.bar(counts + w / 2, without, w, color="C1", label="Dana did not")
    ax1.set_title(f"noisy count at ε = {eps:g}: they almost coincide")
    for ax in (ax0, ax1):
        ax.set_xticks(counts)
        ax.set_xlim(-0.6, counts[-1] + 0.6)
        ax.set_ylim(0, 1.45)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.set_xlabel("published count")
        ax.set_ylabel("probability")
        ax.legend(loc="upper left")
    ratio = with_a / without
    ax2.bar(counts, ratio, 0.6, color="tab:purple")
    for r in (math.exp(eps), math.exp(-eps)):
        ax2.axhline(r, ls="--", color="k", lw=1)
    ax2.axhline(1.0, color="grey", lw=0.5)
    ax2.set_yscale("log")
    ax2.set_ylim(math.exp(-eps) / 1.6, math.exp(eps) * 1.6)
    marks = [math.exp(-eps), 1.0, math.exp(eps)]
    ax2.set_yticks(marks, [f"{m:.2f}" for m in marks])
    ax2.minorticks_off()
    ax2.set_xticks(counts)
    ax2.set_xlabel("published count")
    ax2.set_ylabel("ratio of the probabilities")
    ax2.set_title("A : not A, within $e^{-ε}$ and $e^{ε}$")
    fig.tight_layout()
    return fig


def plot_attack_defeated(others=(1, 1, 0, 0, 0), epsilon=1.0, prior=0.5):
    """What the attacker believes about Dana's grade after seeing the count: certain from the exact count,
    unsure from the noisy one.

    The attacker knows the other grades (``others``) and starts with the belief ``prior`` that Dana got
    an A. Red crosses: the belief after the exact count (0 or 1: the attack works). Bars: the belief
    after each possible randomized-response count at ``epsilon`` (:func:`count_posteriors`), labelled
    with how often that count is published. Shaded: the range that theorem ``thm-posterior-odds``
    allows, odds moved by at most ``e^epsilon``.
    """
    known = _check_bits(others, "others")
    eps = check_epsilon(epsilon)
    pi = check_real(prior, "prior", low=0.0, high=1.0, low_open=True, high_open=True)
    posterior, probability = count_posteriors(known, eps, pi)
    odds = pi / (1 - pi)
    low, high = odds * math.exp(-eps), odds * math.exp(eps)
    counts = np.arange(posterior.size)
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    ax.axhspan(low / (1 + low), high / (1 + high), color="C2", alpha=0.15,
               label=f"allowed at ε = {eps:g}: {low / (1 + low):.2f} to {high / (1 + high):.2f}")
    ax.bar(counts, posterior, 0.6, color="C0", label="after a noisy count")
    for c, (b, pr) in enumerate(zip(posterior, probability)):
        ax.annotate(f"{100 * pr:.0f}%", (c, b), xytext=(0, 3), textcoords="offset points", ha="center",
                    va="bottom", fontsize=9)
    exact = sum(known)
    ax.plot([exact, exact + 1], [0.0, 1.0], "x", color="C3", ms=10, mew=2.5,
            label="after an exact count")
    ax.axhline(pi, ls=":", color="k", lw=1, label=f"before: {pi:g}")
    ax.set_xticks(counts)
    ax.set_xlim(-0.6, counts[-1] + 0.6)
    ax.set_ylim(-0.03, 1.6)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_xlabel("published count (label: how often it is published)")
    ax.set_ylabel("P[Dana got an A | count]")
    ax.set_title("the attacker's belief after seeing the count")
    ax.legend(loc="upper left", ncol=2)
    fig.tight_layout()
    return fig


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


def plot_rr_count(n=5, epsilon=math.log(3), *, show_delta=False):
    """Randomized-response count at epsilon on x = (1, 0, ..., 0) and its replace-one neighbour (0, ..., 0).

    Each person reports their bit with probability ``e^epsilon / (1 + e^epsilon)`` (theorem
    ``thm-rr-count-epsilon``). Two panels: the two output distributions and the privacy loss of each
    outcome. With ``show_delta``, a third: the hockey-stick divergence delta(eps) of the pair against
    eps (lemma ``lem-hockey-stick``), which reaches 0 exactly at the pair's worst-case privacy loss (equal
    to ``epsilon``).
    """
    n = check_positive_int(n, "n")
    eps_rr = check_epsilon(epsilon)
    t = rr_truth_probability(eps_rr)
    x = np.zeros(n)
    x[0] = 1
    p = rr_count_distribution(x, t)
    q = rr_count_distribution(np.zeros(n), t)
    if not isinstance(show_delta, bool):
        raise TypeError(f"show_delta must be True or False, got {show_delta!r}")
    fig, axes = plt.subplots(1, 3 if show_delta else 2, figsize=(13 if show_delta else 10, 3.6))
    plot_neighbour_distributions(p, q, names=("x", "x'"), axes=axes[:2])
    fig.suptitle(f"randomized-response count, n = {n}, epsilon = {eps_rr:.2f} (truth probability {t:.2f})")
    if not show_delta:
        fig.tight_layout()
        return fig
    eps_pair = privacy_loss(p, q)
    ax = axes[2]
    grid = np.linspace(0, 1.5 * max(eps_pair, 0.1), 300)
    ax.plot(grid, np.maximum(hockey_stick(p, q, grid), hockey_stick(q, p, grid)))
    ax.axvline(eps_pair, ls="--", color="k", lw=1)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"smallest $\delta$")
    ax.set_title(r"$\delta(\varepsilon)$ of the pair")
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
                    alt="Randomized-response count on two neighbouring classes: the two distributions of the "
                        "count and the privacy loss of each count")


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
