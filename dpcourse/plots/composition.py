"""Figures of the chapter "Composition and privacy accounting"."""

from __future__ import annotations

import functools
import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import (as_rng, check_delta, check_epsilon, check_positive_int, check_real, check_sensitivity,
                           check_size)
from ..accounting import PrivacyAccountant, PureDPEvent
from ..composition import (_conversion_term, advanced_composition, advanced_composition_crossover,
                           gaussian_composition_epsilon, optimal_composition_epsilon, rdp_gaussian, rdp_to_epsilon,
                           zcdp_epsilon)
from ..rr import rr_truth_probability

__all__ = ["loss_walk_summary", "plot_loss_walk", "rdp_conversion_curves", "plot_rdp_conversion", "pure_dp_totals",
           "plot_composition_methods", "plot_advanced_crossover", "plot_accountant_comparison", "composition_widget"]

#: Largest number of steps :func:`plot_loss_walk` draws (its paths hold ``n_paths * k`` steps).
LOSS_WALK_MAX_K = 10_000
#: Largest number of sample paths :func:`plot_loss_walk` draws.
LOSS_WALK_MAX_PATHS = 200

_STYLE = {
    "basic": dict(color="tab:gray", ls="-"),
    "advanced": dict(color="tab:red", ls="--"),
    "zCDP form": dict(color="tab:orange", ls=":"),
    "rdp": dict(color="tab:green", ls="-."),
    "optimal": dict(color="tab:blue", ls="-"),
    "gaussian_exact": dict(color="tab:purple", ls="-"),
}


def loss_walk_summary(epsilon, k, delta) -> dict:
    """The total privacy loss of k randomized responses at ``epsilon``, and the bounds that cover it at ``delta``.

    Each step reports a bit truthfully with probability ``s = e^epsilon / (1 + e^epsilon)`` (theorem
    ``thm-comp-optimal``: the worst case among epsilon-DP mechanisms). On the side of x its privacy loss is
    ``+epsilon`` with probability s and ``-epsilon`` otherwise, so the total after k steps is
    ``(k - 2j) epsilon`` with j ~ Binomial(k, 1 - s): a random walk. Returns a dict with

    * ``losses``, ``probabilities``: the k + 1 values of the total loss (decreasing) and their probabilities;
    * ``mean`` = ``k epsilon tanh(epsilon / 2)``, ``sd`` = ``epsilon sqrt(k (1 - tanh(epsilon / 2)^2))``;
    * ``worst_probability`` = ``s^k``, the probability of the largest loss ``k epsilon``;
    * ``basic`` = ``k epsilon`` (theorem ``thm-comp-basic``), ``advanced`` (theorem ``thm-comp-advanced`` with
      delta' = ``delta``) and ``optimal`` (theorem ``thm-comp-optimal``), the totals at ``delta``.
    """
    from scipy import stats

    eps = check_epsilon(epsilon)
    k = check_size(k, "k", cap=LOSS_WALK_MAX_K)
    d = check_delta(delta, allow_zero=False)
    s = rr_truth_probability(eps)
    j = np.arange(k + 1)
    t = math.tanh(eps / 2)
    return {"losses": (k - 2 * j) * eps, "probabilities": stats.binom.pmf(j, k, 1 - s),
            "mean": k * eps * t, "sd": eps * math.sqrt(k * (1 - t * t)), "worst_probability": s**k,
            "basic": k * eps, "advanced": advanced_composition(eps, k, d),
            "optimal": optimal_composition_epsilon(eps, k, d)}


def plot_loss_walk(epsilon=0.1, k=100, delta=1e-5, *, n_paths=30, rng=None):
    """The privacy loss of k releases is a random walk: it drifts up slowly and spreads like the square root of k,
    far below the worst case k epsilon.

    Each step is randomized response at ``epsilon``, the worst case among epsilon-DP mechanisms
    (:func:`loss_walk_summary`). Left: ``n_paths`` simulated running totals of the privacy loss (seeded by
    ``rng``), the band mean +- 2 standard deviations, and, against the number of steps, the worst case
    (basic composition, theorem ``thm-comp-basic``), the advanced-composition bound (theorem
    ``thm-comp-advanced``) and the exact optimum (theorem ``thm-comp-optimal``) at ``delta``. Right: the
    exact distribution of the total after k steps on a log scale, with the same three totals marked.
    """
    eps = check_epsilon(epsilon)
    k = check_size(k, "k", cap=LOSS_WALK_MAX_K)
    d = check_delta(delta, allow_zero=False)
    n_paths = check_size(n_paths, "n_paths", cap=LOSS_WALK_MAX_PATHS)
    gen = as_rng(rng)
    summary = loss_walk_summary(eps, k, d)
    s = rr_truth_probability(eps)
    steps = np.where(gen.random((n_paths, k)) < s, eps, -eps)
    paths = np.concatenate([np.zeros((n_paths, 1)), np.cumsum(steps, axis=1)], axis=1)
    i = np.arange(k + 1)
    t = math.tanh(eps / 2)
    mean, sd = i * eps * t, eps * np.sqrt(i * (1 - t * t))
    grid = np.unique(np.linspace(1, k, min(k, 60)).astype(int))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [3, 2.4]})
    ax1.plot(i, paths.T, color="tab:blue", lw=0.6, alpha=0.35)
    ax1.fill_between(i, mean - 2 * sd, mean + 2 * sd, color="tab:blue", alpha=0.15)
    ax1.plot(i, i * eps, lw=1.8, **_STYLE["basic"])
    ax1.plot(grid, [advanced_composition(eps, int(g), d) for g in grid], lw=1.8, **_STYLE["advanced"])
    ax1.plot(grid, [optimal_composition_epsilon(eps, int(g), d) for g in grid], lw=1.8, **_STYLE["optimal"])
    # labels at the right end of each curve (no legend over the data)
    ends = [(summary["basic"], "worst case", "basic"), (summary["advanced"], "advanced", "advanced"),
            (summary["optimal"], "optimal", "optimal"), (mean[-1], "typical", None)]
    for y, label, name in ends:
        ax1.annotate(label, (k, y), xytext=(5, 0), textcoords="offset points", va="center", fontsize=8,
                     color=_STYLE[name]["color"] if name else "tab:blue")
    ax1.set_xlim(0, 1.4 * k)
    ax1.set_xticks([t for t in ax1.get_xticks() if 0 <= t <= k])
    ax1.set_xlabel("number of releases so far")
    ax1.set_ylabel("total privacy loss")
    ax1.set_title(f"running total of the loss (ε = {eps:g}, δ = {d:.0e})")
    probs = summary["probabilities"]
    keep = probs > 0
    ax2.plot(summary["losses"][keep], probs[keep], "o", ms=2.5, color="k")
    ax2.set_yscale("log")
    low = max(float(np.min(probs[keep])), 1e-60) / 10
    ax2.set_ylim(low, 1.0)
    for name in ("optimal", "advanced", "basic"):
        ax2.axvline(summary[name], lw=1.5, **_STYLE[name])
    ax2.annotate(f"P[loss = kε] = {summary['worst_probability']:.0e}",
                 (summary["basic"], summary["worst_probability"]),
                 xytext=(-40, 0), textcoords="offset points", ha="right", va="center", fontsize=8,
                 arrowprops={"arrowstyle": "->", "lw": 0.8})
    ax2.set_xlabel(f"total privacy loss after k = {k} releases")
    ax2.set_ylabel("probability (log scale)")
    ax2.set_title("its exact law after k releases")
    fig.tight_layout()
    return fig


def rdp_conversion_curves(sigma=10.0, k=100, delta=1e-5, *, l2_sensitivity=1.0, alphas=None) -> dict:
    """The Renyi accountant's two steps for k Gaussian releases, as curves over the order alpha.

    With ``mu = l2_sensitivity / sigma`` each release has the Renyi curve ``alpha mu^2 / 2`` (lemma
    ``lem-comp-rdp``); the k curves add up to ``r(alpha) = k alpha mu^2 / 2``. Converting at order alpha
    gives ``epsilon(alpha) = r(alpha) + c(alpha)`` with the conversion term
    ``c(alpha) = ln(1 - 1/alpha) - (ln delta + ln alpha) / (alpha - 1)`` of the improved conversion.
    Returns a dict with ``alphas``, ``one`` (one release's curve), ``total`` (r), ``conversion`` (c),
    ``epsilon`` (r + c), ``best_alpha`` and ``best_epsilon`` (:func:`dpcourse.rdp_to_epsilon`), and ``exact``
    (theorem ``thm-comp-gaussian-exact``, :func:`dpcourse.gaussian_composition_epsilon`).
    """
    s = check_real(sigma, "sigma", low=0.0, low_open=True)
    k = check_size(k, "k")
    d = check_delta(delta, allow_zero=False)
    sens = check_sensitivity(l2_sensitivity, "l2_sensitivity")
    mu = sens / s
    if not (math.isfinite(mu) and mu > 0.0):
        raise ValueError(f"l2_sensitivity / sigma must be a positive finite number, got {sens!r} / {s!r}")
    best_eps, best_alpha = rdp_to_epsilon(lambda a: k * rdp_gaussian(a, mu), d)
    if alphas is None:
        alphas = 1 + np.geomspace(0.05, 4 * max(best_alpha - 1, 0.05), 300)
    a = np.asarray(alphas, dtype=float)
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 1):
        raise ValueError("alphas must be a non-empty 1-d array of finite orders > 1")
    one = rdp_gaussian(a, mu)
    total = k * one
    conversion = _conversion_term(a, d, "improved")
    return {"alphas": a, "one": one, "total": total, "conversion": conversion, "epsilon": total + conversion,
            "best_alpha": best_alpha, "best_epsilon": best_eps,
            "exact": gaussian_composition_epsilon(s, k, d, l2_sensitivity=sens)}


def plot_rdp_conversion(sigma=10.0, k=100, delta=1e-5, *, l2_sensitivity=1.0):
    """The Renyi accountant in two steps: add up the curves of the k releases, then convert the sum to (epsilon,
    delta) at the best order alpha.

    Left: the Renyi curve of one Gaussian release with noise ``sigma`` (a line of slope mu^2 / 2,
    mu = ``l2_sensitivity / sigma``) and the curves of 10, half of k and all k releases, which add up (lemma
    ``lem-comp-rdp``). Right: at each order alpha the summed curve r(alpha), the conversion term, which
    falls with alpha, and their sum epsilon(alpha); its minimum is the accountant's answer, next to the exact
    composition of theorem ``thm-comp-gaussian-exact`` (:func:`rdp_conversion_curves`).
    """
    c = rdp_conversion_curves(sigma, k, delta, l2_sensitivity=l2_sensitivity)
    k = check_size(k, "k")
    a = c["alphas"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.0))
    counts = sorted({1, min(10, k), max(1, k // 2), k})
    for m, shade in zip(counts, np.linspace(0.35, 1.0, len(counts))):
        ax1.plot(a, m * c["one"], color=plt.cm.Greens(shade), lw=1.8,
                 label=f"{m} release{'s' if m > 1 else ''}" + (" (the sum)" if m == k and k > 1 else ""))
    ax1.set_xlabel(r"order $\alpha$")
    ax1.set_ylabel(r"Rényi divergence $r(\alpha)$")
    ax1.set_title("step 1: the curves add up")
    ax1.legend(fontsize=8, loc="upper left")
    ax2.plot(a, c["total"], lw=1.5, **_STYLE["rdp"], label=r"summed curve $r(\alpha)$")
    ax2.plot(a, c["conversion"], color="tab:gray", ls="--", lw=1.5, label="conversion term")
    ax2.plot(a, c["epsilon"], color="k", lw=2.0, label=r"$\varepsilon(\alpha)$: their sum")
    ax2.plot([c["best_alpha"]], [c["best_epsilon"]], "o", color="tab:green", ms=7,
             label=f"best: ε = {c['best_epsilon']:.3g} at α = {c['best_alpha']:.3g}")
    ax2.axhline(c["exact"], lw=1.2, label=f"exact composition: ε = {c['exact']:.3g}", **_STYLE["gaussian_exact"])
    ax2.set_ylim(0, 3 * c["best_epsilon"])
    ax2.set_xlabel(r"order $\alpha$")
    ax2.set_ylabel(r"$\varepsilon$ at $\delta$ = " + f"{check_delta(delta, allow_zero=False):.0e}")
    ax2.set_title("step 2: convert at the best order")
    ax2.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def pure_dp_totals(epsilon, k, delta) -> dict:
    """Total epsilon at ``delta`` of k epsilon-DP mechanisms by each method (the accountant's numbers).

    Keys: ``basic``, ``advanced``, ``zCDP form`` (``k eps^2/2 + eps sqrt(2k ln(1/delta))``), ``rdp``, ``optimal``.
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    d = check_delta(delta, allow_zero=False)
    res = PrivacyAccountant().compose(PureDPEvent(eps), k).compare(d)
    return {"basic": res["basic"].epsilon, "advanced": res["advanced"].epsilon,
            "zCDP form": zcdp_epsilon(k * eps * eps / 2, d), "rdp": res["rdp"].epsilon,
            "optimal": res["optimal"].epsilon}


@functools.lru_cache(maxsize=4096)
def _cached_totals(epsilon, k, delta):
    """:func:`pure_dp_totals` as a tuple of items, once per (epsilon, k, delta): the live figure's states share
    most of their curves' points."""
    return tuple(pure_dp_totals(epsilon, k, delta).items())


def plot_composition_methods(epsilon=0.1, delta=1e-5, k=100):
    """Total epsilon of k epsilon-DP mechanisms at ``delta``: each method against k (left), and at this k (right)."""
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    d = check_delta(delta, allow_zero=False)
    ks = np.unique(np.geomspace(1, max(10 * k, 100), 40).astype(int))
    curves = {name: [] for name in _STYLE if name != "gaussian_exact"}
    for kk in ks:
        for name, v in _cached_totals(eps, int(kk), d):
            curves[name].append(v)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [3, 2]})
    for name, ys in curves.items():
        ax1.plot(ks, ys, label=name, lw=1.8, **_STYLE[name])
    ax1.axvline(k, color="k", lw=0.7)
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("number of mechanisms k")
    ax1.set_ylabel(r"total $\varepsilon$")
    ax1.set_title(rf"$\varepsilon = {eps:g}$ each, $\delta = {d:.0e}$")
    ax1.legend(fontsize=8)
    here = dict(_cached_totals(eps, k, d))
    names = list(here)
    ax2.barh(names, [here[n] for n in names], color=[_STYLE[n]["color"] for n in names])
    for i, n in enumerate(names):
        ax2.annotate(f"{here[n]:.3g}", (here[n], i), xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
    ax2.set_xlabel(r"total $\varepsilon$")
    ax2.set_title(f"k = {k}")
    ax2.set_xlim(0, 1.2 * max(here.values()))
    fig.tight_layout()
    return fig


def plot_advanced_crossover(delta_prime=1e-5, ks=(100, 1000, 10_000)):
    """Where advanced composition beats basic composition.

    Left: the ratio advanced / basic against the per-mechanism epsilon, for several k (below 1: advanced
    wins). Right: the crossover epsilon against k, computed by root finding (dots) and by the closed form
    of :func:`dpcourse.composition.advanced_composition_crossover` (line), with ln 2 and 1/sqrt(k).
    """
    from scipy import optimize

    dp = check_delta(delta_prime, "delta_prime", allow_zero=False)
    ks = [check_positive_int(k, "k") for k in ks]
    eps = np.geomspace(1e-3, 1.5, 300)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    for k in ks:
        ratio = [advanced_composition(e, k, dp) / (k * e) for e in eps]
        ax1.plot(eps, ratio, label=f"k = {k}")
    ax1.axhline(1, color="k", lw=0.7)
    ax1.axvline(math.log(2), color="grey", ls=":", lw=1)
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel(r"per-mechanism $\varepsilon$")
    ax1.set_ylabel("advanced / basic")
    ax1.legend(fontsize=8)
    ax1.set_title(rf"ratio of the bounds, $\delta' = {dp:.0e}$")
    grid = np.unique(np.geomspace(10, 1e6, 60).astype(int))
    closed = np.array([advanced_composition_crossover(int(k), dp) for k in grid])
    ax2.plot(grid, closed, label="closed form")
    num_k = grid[closed > 0][::6]
    num = [optimize.brentq(lambda e, k=int(k): advanced_composition(e, k, dp) - k * e, 1e-9, math.log(2))
           for k in num_k]
    ax2.plot(num_k, num, "o", ms=4, label="root of advanced = basic")
    ax2.axhline(math.log(2), color="grey", ls=":", label=r"$\ln 2$")
    ax2.plot(grid, 1 / np.sqrt(grid), "k--", lw=0.8, label=r"$1/\sqrt{k}$")
    ax2.set_xscale("log")
    ax2.set_xlabel("k")
    ax2.set_ylabel(r"crossover $\varepsilon$")
    ax2.set_ylim(0, 0.8)
    ax2.legend(fontsize=8)
    ax2.set_title("advanced wins below the curve")
    fig.tight_layout()
    return fig


def plot_accountant_comparison(results, *, title=None, ax=None):
    """The total epsilon of one record of releases by each accounting method, as bars; a method that does not
    apply is marked n/a.

    ``results`` is the dict of :meth:`dpcourse.PrivacyAccountant.compare` (theorems ``thm-comp-basic``,
    ``thm-comp-advanced``, ``thm-comp-optimal``, ``thm-comp-gaussian-exact`` and lemma ``lem-comp-rdp``).
    """
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 3))
    else:
        fig = ax.figure
    names = list(results)
    vals = [results[n].epsilon for n in names]
    finite = [v for v in vals if math.isfinite(v)]
    top = 1.25 * max(finite) if finite else 1.0
    ax.barh(names, [v if math.isfinite(v) else 0 for v in vals], color=[_STYLE[n]["color"] if n in _STYLE else "k"
                                                                       for n in names])
    for i, v in enumerate(vals):
        ax.annotate(f"{v:.3g}" if math.isfinite(v) else "n/a", (v if math.isfinite(v) else 0, i), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=8)
    ax.set_xlim(0, top)
    ax.set_xlabel(rf"total $\varepsilon$ at $\delta = {results[names[0]].delta:.0e}$")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def composition_widget():
    """Live figure: epsilon, delta and k, redrawing :func:`plot_composition_methods` (an explorer)."""
    from .explorer import explorer

    return explorer(plot_composition_methods,
                    {"epsilon": ("ε each", (0.001, 0.01, 0.1, 1.0), 0.1),
                     "delta": ("δ", (1e-10, 1e-5), 1e-5),
                     "k": ("k", (1, 10, 100, 1000), 100)},
                    alt="Total epsilon of k compositions by each accounting method")


