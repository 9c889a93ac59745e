"""Figures of the chapter "Private selection"."""

from __future__ import annotations

import functools
import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import as_rng, check_epsilon, check_positive_int, check_real, check_real_array, check_sensitivity
from ..laplace import laplace_mechanism
from ..selection import (
    exponential_accuracy_gap,
    exponential_mechanism,
    exponential_probabilities,
    noisy_max_probabilities,
    permute_and_flip_probabilities,
    report_noisy_max,
)

__all__ = [
    "plot_noisy_max_idea",
    "gap_scores",
    "plot_selection_distributions",
    "selection_widget",
    "plot_em_accuracy_tail",
    "plot_expected_utility",
    "plot_pricing",
]

_MECHS = ("report noisy max (Laplace)", "exponential mechanism", "permute-and-flip")


def _noisy_runs(scores, sensitivity, epsilon, n_runs, monotone, rng):
    """``n_runs`` rows of noisy scores ``scores + Lap(b)`` (``b = k Delta / epsilon``, k = 1 if ``monotone``
    else 2, as theorem ``thm-sel-rnm-privacy`` asks) and the index of each row's largest (the first of
    ties): what report noisy max computes before it publishes only that index."""
    k = 1 if monotone else 2
    noisy = laplace_mechanism(np.broadcast_to(scores, (n_runs, scores.size)), k * sensitivity, epsilon, rng=rng)
    return noisy, np.argmax(noisy, axis=1)


def plot_noisy_max_idea(scores, neighbour_scores, epsilon, *, sensitivity=1.0, monotone=True, labels=None,
                        names=("x", "x'"), n_runs=4, rng=None):
    """Report noisy max: add fresh noise to every score and publish only the name of the largest; on two
    neighbouring datasets each name is about as likely.

    Left: ``n_runs`` seeded runs on ``scores``: the noisy score of each candidate (bars; the true scores
    dashed) and the winner of each run (outlined, named above). The noise is Laplace of scale
    ``k sensitivity / epsilon``, k = 1 for ``monotone`` scores and 2 otherwise (theorem
    ``thm-sel-rnm-privacy``). Right: the exact probability that each candidate is published on ``scores``
    and on ``neighbour_scores`` (:func:`dpcourse.noisy_max_probabilities`), whose ratio the theorem keeps
    within ``e^epsilon``.
    """
    c = check_real_array(scores, "scores", ndim=1)
    c2 = check_real_array(neighbour_scores, "neighbour_scores", ndim=1)
    if c.size < 2 or c2.size != c.size:
        raise ValueError(f"scores and neighbour_scores must have the same length, at least 2; got {c.size} "
                         f"and {c2.size}")
    eps = check_epsilon(epsilon)
    delta = check_sensitivity(sensitivity)
    runs = check_positive_int(n_runs, "n_runs")
    if runs > 12:
        raise ValueError(f"n_runs must be at most 12 (one group of bars per run), got {runs}")
    m = c.size
    names_ = [str(v) for v in labels] if labels is not None else [str(i) for i in range(m)]
    if len(names_) != m:
        raise ValueError(f"labels must name each of the {m} candidates, got {len(names_)} labels")
    noisy, winners = _noisy_runs(c, delta, eps, runs, bool(monotone), as_rng(rng))
    p = noisy_max_probabilities(c, delta, eps, monotone=bool(monotone))
    p2 = noisy_max_probabilities(c2, delta, eps, monotone=bool(monotone))
    colours = [f"C{i % 10}" for i in range(m)]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [1.4, 1]})
    w = 0.8 / m
    for i in range(m):
        ax1.axhline(c[i], ls="--", lw=1, color=colours[i])
        x = np.arange(runs) + (i - (m - 1) / 2) * w
        ax1.bar(x, noisy[:, i], w, color=colours[i], label=names_[i])
    top = noisy.max() + 0.15 * (noisy.max() - min(noisy.min(), 0) + 1)
    for r, win in enumerate(winners):
        x = r + (win - (m - 1) / 2) * w
        ax1.bar([x], [noisy[r, win]], w, fill=False, edgecolor="k", lw=2.5)
        ax1.annotate(f"→ {names_[win]}", (r, top), ha="center", va="bottom")
    ax1.set_xticks(np.arange(runs), [f"run {r + 1}" for r in range(runs)])
    ax1.set_ylim(min(noisy.min(), 0) - 0.5, top + 0.12 * (top - min(noisy.min(), 0)) + 0.5)
    ax1.set_ylabel("score + noise")
    ax1.set_title(f"noisy scores on {names[0]}, {runs} runs\n(true scores dashed; winners outlined)")
    ax1.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=m)
    pos = np.arange(m)
    ax2.bar(pos - 0.2, p, 0.4, color="0.75", edgecolor="k", label=names[0])
    ax2.bar(pos + 0.2, p2, 0.4, color="0.3", edgecolor="k", label=names[1])
    ax2.set_xticks(pos, names_)
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("probability of being published")
    ratio = float(np.max(np.maximum(p / p2, p2 / p)))
    ax2.set_title(f"chance of each name at ε = {eps:g}\nlargest ratio {ratio:.2f} ≤ $e^ε$ = {math.exp(eps):.2f}")
    ax2.legend(loc="upper left")
    fig.tight_layout()
    return fig


def gap_scores(gap, n_candidates=5):
    """Scores of the widget: candidate 0 scores ``gap``, the others 0."""
    g = check_real(gap, "gap", low=0.0)
    m = check_positive_int(n_candidates, "n_candidates", minimum=2)
    s = np.zeros(m)
    s[0] = g
    return s


def _three_distributions(scores, sensitivity, epsilon):
    return (noisy_max_probabilities(scores, sensitivity, epsilon),
            exponential_probabilities(scores, sensitivity, epsilon),
            permute_and_flip_probabilities(scores, sensitivity, epsilon))


@functools.lru_cache(maxsize=64)
def _best_candidate_curve(gap, n_candidates, sensitivity):
    """P[best candidate] of the three mechanisms on an epsilon grid (the right panel, the same for every
    epsilon of the sliders: computed once per score vector). Returns ``(grid, best)``, read-only."""
    s = gap_scores(gap, n_candidates)
    grid = np.geomspace(0.02, 5.0, 25)
    best = np.array([[d[0] for d in _three_distributions(s, sensitivity, e)] for e in grid])
    grid.flags.writeable = best.flags.writeable = False
    return grid, best


def plot_selection_distributions(epsilon=1.0, gap=2.0, *, n_candidates=5, sensitivity=1.0):
    """The exact output distributions of the three epsilon-DP selection mechanisms.

    Scores from :func:`gap_scores` (one candidate ``gap`` above the others; each score has
    sensitivity ``sensitivity``, not assumed monotone). Left: the probability of each candidate under
    report noisy max with Laplace noise, the exponential mechanism and permute-and-flip. Right: the
    probability of choosing the best candidate as epsilon varies, with the current epsilon marked.
    """
    eps = check_epsilon(epsilon)
    delta = check_sensitivity(sensitivity)
    s = gap_scores(gap, n_candidates)
    m = s.size
    dists = _three_distributions(s, delta, eps)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    w = 0.27
    x = np.arange(m)
    for k, (name, p) in enumerate(zip(_MECHS, dists)):
        ax1.bar(x + (k - 1) * w, p, w, label=f"{name}: E[score] = {p @ s:.2f}")
    ax1.set_xticks(x, ["best"] + [str(i) for i in range(1, m)])
    ax1.set_xlabel("candidate")
    ax1.set_ylabel("probability of release")
    ax1.set_ylim(0, 1)
    ax1.set_title(f"scores: best = {s[0]:g}, others 0; $\\varepsilon$ = {eps:g}")
    ax1.legend(fontsize=8)
    grid, best = _best_candidate_curve(float(s[0]), m, delta)
    for k, name in enumerate(_MECHS):
        ax2.plot(grid, best[:, k], label=name)
    ax2.axvline(eps, ls="--", color="k", lw=1)
    ax2.axhline(1 / m, ls=":", color="grey", lw=1)
    ax2.set_xscale("log")
    ax2.set_xlabel(r"$\varepsilon$")
    ax2.set_ylabel("P[best candidate]")
    ax2.set_ylim(0, 1.02)
    ax2.set_title("probability of picking the best")
    fig.tight_layout()
    return fig


def selection_widget():
    """Sliders for epsilon, the score gap and the number of candidates, redrawing
    :func:`plot_selection_distributions`; an explorer: live in Jupyter, every setting drawn at build time
    in the static book."""
    from .explorer import explorer

    return explorer(plot_selection_distributions,
                    {"epsilon": ("epsilon", (0.1, 0.3, 1.0, 3.0), 1.0),
                     "gap": ("score gap", (0.0, 2.0, 5.0), 2.0),
                     "n_candidates": ("candidates", (2, 5), 5)},
                    alt="Output distributions of report noisy max, the exponential mechanism and permute-and-flip")


def plot_em_accuracy_tail(utilities, sensitivity, epsilon, *, n_samples=100_000, rng=None, t_max=6.0):
    """Tail of the exponential mechanism's utility loss against the bound e^{-t}.

    For t in [0, t_max], the probability that the released candidate has utility at most
    ``OPT - exponential_accuracy_gap(|R|, sensitivity, epsilon, t)``: estimated from ``n_samples``
    seeded draws of :func:`exponential_mechanism`, computed exactly from
    :func:`exponential_probabilities`, and bounded by e^{-t} (theorem ``thm-sel-em-accuracy``).
    Returns the Figure.
    """
    u = check_real_array(utilities, "utilities", ndim=1)
    n = check_positive_int(n_samples, "n_samples")
    t_hi = check_real(t_max, "t_max", low=0.0, low_open=True)
    t = np.linspace(0.0, t_hi, 121)
    threshold = u.max() - exponential_accuracy_gap(u.size, sensitivity, epsilon, t)
    draws = u[exponential_mechanism(u, sensitivity, epsilon, rng=as_rng(rng), size=n)]
    p = exponential_probabilities(u, sensitivity, epsilon)
    order = np.sort(draws)
    empirical = np.searchsorted(order, threshold, side="right") / n
    exact = (p[None, :] * (u[None, :] <= threshold[:, None])).sum(axis=1)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.semilogy(t, np.exp(-t), "k--", label=r"bound $e^{-t}$")
    ax.semilogy(t, exact, label="exact")
    ax.semilogy(t, np.where(empirical > 0, empirical, np.nan), ".", ms=3, label=f"{n} seeded draws")
    ax.set_xlabel("t")
    ax.set_ylabel(r"P[u(output) $\leq$ OPT $-$ gap(t)]")
    ax.set_ylim(max(0.3 / n, 1e-8), 1.5)
    ax.set_title(f"exponential mechanism, |R| = {u.size}, $\\varepsilon$ = {epsilon:g}")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_expected_utility(utilities, sensitivity, epsilons, *, n_samples=20_000, rng=None):
    """Expected utility loss ``OPT - E[u(output)]`` of the selection mechanisms against epsilon.

    Exact curves for the exponential mechanism, permute-and-flip and report noisy max with Laplace
    noise; seeded simulations (``n_samples`` runs per epsilon) of report noisy max with exponential
    noise (markers on the permute-and-flip curve) and with Gumbel noise (markers on the exponential
    mechanism's curve). Returns the Figure.
    """
    u = check_real_array(utilities, "utilities", ndim=1)
    eps = check_real_array(epsilons, "epsilons", ndim=1)
    for e in eps:
        check_epsilon(e, "epsilons")
    n = check_positive_int(n_samples, "n_samples")
    gen = as_rng(rng)
    opt = u.max()
    exact = {
        "exponential mechanism": [opt - exponential_probabilities(u, sensitivity, e) @ u for e in eps],
        "permute-and-flip": [opt - permute_and_flip_probabilities(u, sensitivity, e) @ u for e in eps],
        "report noisy max (Laplace)": [opt - noisy_max_probabilities(u, sensitivity, e) @ u for e in eps],
    }
    sims = {
        "noisy max, Gumbel noise (simulated)": [opt - u[report_noisy_max(u, sensitivity, e, noise="gumbel", rng=gen, size=n)].mean() for e in eps],
        "noisy max, exponential noise (simulated)": [opt - u[report_noisy_max(u, sensitivity, e, noise="exponential", rng=gen, size=n)].mean() for e in eps],
    }
    fig, ax = plt.subplots(figsize=(7, 4))
    colours = {"exponential mechanism": "tab:orange", "permute-and-flip": "tab:green",
               "report noisy max (Laplace)": "tab:blue"}
    for name, vals in exact.items():
        ax.plot(eps, vals, color=colours[name], label=f"{name} (exact)")
    ax.plot(eps, sims["noisy max, Gumbel noise (simulated)"], "o", mfc="none", color="tab:orange",
            label="noisy max, Gumbel noise (simulated)")
    ax.plot(eps, sims["noisy max, exponential noise (simulated)"], "x", color="tab:green",
            label="noisy max, exponential noise (simulated)")
    ax.set_xscale("log")
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel("OPT $-$ E[utility]")
    ax.set_title(f"expected utility loss, |R| = {u.size}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_pricing(bids, prices, epsilon, *, sensitivity=None):
    """Revenue ``p * #{bids >= p}`` on a price grid, and the exponential mechanism's distribution over it.

    ``sensitivity`` defaults to ``max(prices)``: one bidder changes the revenue at price p by at most p.
    Returns the Figure.
    """
    b = check_real_array(bids, "bids", ndim=1)
    p = check_real_array(prices, "prices", ndim=1)
    delta = float(p.max()) if sensitivity is None else check_sensitivity(sensitivity)
    revenue = p * (b[None, :] >= p[:, None]).sum(axis=1)
    probs = exponential_probabilities(revenue, delta, epsilon)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.6))
    ax1.plot(p, revenue, drawstyle="steps-post")
    ax1.set_xlabel("price ($)")
    ax1.set_ylabel("revenue ($)")
    ax1.set_title(f"{b.size} bids")
    ax2.plot(p, probs)
    ax2.set_xlabel("price ($)")
    ax2.set_ylabel("probability")
    ax2.set_title(rf"exponential mechanism, $\Delta u$ = {delta:g}, $\varepsilon$ = {epsilon:g}")
    fig.tight_layout()
    return fig
