"""Figures of the chapter "Composition and privacy accounting"."""

from __future__ import annotations

import functools
import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_delta, check_epsilon, check_positive_int
from ..accounting import PrivacyAccountant, PureDPEvent
from ..composition import advanced_composition, advanced_composition_crossover, zcdp_epsilon

__all__ = ["pure_dp_totals", "plot_composition_methods", "plot_advanced_crossover", "plot_accountant_comparison",
           "composition_widget"]

_STYLE = {
    "basic": dict(color="tab:gray", ls="-"),
    "advanced": dict(color="tab:red", ls="--"),
    "zCDP form": dict(color="tab:orange", ls=":"),
    "rdp": dict(color="tab:green", ls="-."),
    "optimal": dict(color="tab:blue", ls="-"),
    "gaussian_exact": dict(color="tab:purple", ls="-"),
}


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
    """Horizontal bars of a :meth:`PrivacyAccountant.compare` result; methods that do not apply are listed as n/a."""
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


