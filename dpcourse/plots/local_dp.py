"""Figures of the chapter "Local frequency estimation"."""

from __future__ import annotations

import functools
import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_epsilon, check_positive_int, check_real_array
from ..local_dp import (
    krr,
    oracle_probabilities,
    krr_estimate,
    krr_variance,
    local_hashing,
    local_hashing_estimate,
    local_hashing_variance,
    shuffle_amplification_epsilon,
    unary_encoding,
    unary_encoding_estimate,
    unary_encoding_variance,
)

__all__ = ["plot_report_probabilities", "plot_frequency_estimates", "exact_standard_errors",
           "simulated_standard_errors", "plot_oracle_variance", "plot_shuffle_epsilon", "plot_local_frequency",
           "local_dp_widget"]

ORACLE_NAMES = ("k-RR", "SUE", "OUE", "OLH")


def plot_report_probabilities(domain_size=8, epsilon=1.0, values=(2, 5)):
    """What two users with different values send: no report is more than e^ε times likelier for one than for
    the other.

    Left, k-ary randomized response (definition ``def-ldp-krr``): the probability of each report for a
    user holding ``values[0]`` and one holding ``values[1]``, out of ``domain_size`` values. Right, optimized
    unary encoding (definition ``def-ldp-ue``): the probability that each bit of the report is 1. The
    probabilities are those the samplers use (:func:`dpcourse.oracle_probabilities`).
    """
    d = check_positive_int(domain_size, "domain_size", minimum=2)
    eps = check_epsilon(epsilon)
    if d > 64:
        raise ValueError(f"domain_size must be at most 64 for this figure (one bar per value), got {d}")
    vs = [check_positive_int(v, "values", minimum=0) for v in values]
    if len(vs) != 2 or vs[0] == vs[1] or max(vs) >= d:
        raise ValueError(f"values must be two different values in 0..{d - 1}, got {values!r}")
    krr_pr, oue_pr = oracle_probabilities("krr", d, eps), oracle_probabilities("oue", d, eps)
    ys = np.arange(d)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 3.8), sharey=True)
    for k, (v, colour) in enumerate(zip(vs, ("tab:blue", "tab:orange"))):
        shift = (k - 0.5) * 0.38
        krr_row = [float(krr_pr["p"] if y == v else krr_pr["q"]) for y in ys]
        oue_row = [float(oue_pr["p"] if y == v else oue_pr["q"]) for y in ys]
        ax.bar(ys + shift, krr_row, width=0.38, color=colour, label=f"user holding {v}")
        bx.bar(ys + shift, oue_row, width=0.38, color=colour, label=f"user holding {v}")
    ax.set_xticks(ys)
    bx.set_xticks(ys)
    ax.set_xlabel("report y")
    ax.set_ylabel("probability")
    ax.set_title(f"k-RR, d = {d}, ε = {eps:g}: true value sent with p = {float(krr_pr['p']):.2f}", fontsize=10)
    bx.set_xlabel("bit j of the report")
    bx.set_ylabel("probability that bit j is 1")
    bx.yaxis.set_tick_params(labelleft=True)
    bx.set_title(f"unary encoding (OUE): own bit 1/2, others {float(oue_pr['q']):.2f}", fontsize=10)
    for axis in (ax, bx):
        axis.set_ylim(0, 0.62)
        axis.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def plot_frequency_estimates(labels, counts, estimates, *, top=15, xlabel="value"):
    """True counts of the most frequent values and their estimates from local reports, one marker per
    randomizer.

    ``labels`` and ``counts`` give each value's name and true count; ``estimates`` maps a randomizer's name
    (at most 4) to its estimated counts, aligned with ``labels``. The ``top`` most frequent values are drawn
    (bars: true counts; markers: estimates); each legend entry gives the randomizer's root mean squared error
    over **all** values, not only those drawn.
    """
    names = np.asarray(labels)
    truth = check_real_array(counts, "counts", ndim=1)
    if names.shape != truth.shape:
        raise ValueError(f"labels and counts must have the same length, got {names.shape} and {truth.shape}")
    if not isinstance(estimates, dict) or not 1 <= len(estimates) <= 4:
        raise ValueError("estimates must be a dict of 1 to 4 name -> estimated counts")
    k = check_positive_int(top, "top")
    order = np.argsort(-truth, kind="stable")[:k]
    fig, ax = plt.subplots(figsize=(10, 3.8))
    xs = np.arange(order.size)
    ax.bar(xs, truth[order], color="0.8", label="true count")
    for (name, est), marker in zip(estimates.items(), "osD^"):
        e = check_real_array(est, "estimates", ndim=1)
        if e.shape != truth.shape:
            raise ValueError(f"the estimates {name!r} must have {truth.size} counts, got shape {e.shape}")
        rmse = float(np.sqrt(np.mean((e - truth) ** 2)))
        ax.plot(xs, e[order], marker, ms=5, label=f"{name} (RMSE {rmse:,.0f})")
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xticks(xs, [str(v) for v in names[order]], rotation=0, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    ax.set_ylim(top=1.3 * max(float(truth[order].max()), ax.get_ylim()[1] / 1.05))  # room for the legend above
    ax.legend(fontsize=8, loc="upper right", ncol=3)
    fig.tight_layout()
    return fig


def exact_standard_errors(n, domain_sizes, epsilon) -> dict:
    """Exact standard deviation of each oracle's count estimate (a value nobody holds) for each d.

    From :func:`dpcourse.local_dp.krr_variance`, :func:`~dpcourse.local_dp.unary_encoding_variance` (SUE and
    OUE) and :func:`~dpcourse.local_dp.local_hashing_variance` (theorem ``thm-ldp-variance``).
    Returns ``{name: array of standard deviations}`` keyed by :data:`ORACLE_NAMES`.
    """
    n = check_positive_int(n, "n")
    ds = [check_positive_int(int(d), "domain_sizes", minimum=2) for d in np.atleast_1d(domain_sizes)]
    eps = check_epsilon(epsilon)
    return {
        "k-RR": np.sqrt([krr_variance(n, d, eps) for d in ds]),
        "SUE": np.sqrt([unary_encoding_variance(n, d, eps, optimized=False) for d in ds]),
        "OUE": np.sqrt([unary_encoding_variance(n, d, eps) for d in ds]),
        "OLH": np.sqrt([local_hashing_variance(n, d, eps) for d in ds]),
    }


def simulated_standard_errors(n, domain_size, epsilon, *, runs=200, rng=0) -> dict:
    """Root mean squared error of each oracle's estimate of the empty values, over ``runs`` seeded runs.

    Every user holds value 0; the error is measured on the values 1..d-1 (true count 0), pooled, so it
    estimates the square root of the variance formula of theorem ``thm-ldp-variance`` at count 0.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(domain_size, "domain_size", minimum=2)
    eps = check_epsilon(epsilon)
    runs = check_positive_int(runs, "runs")
    gen = np.random.default_rng(rng)
    vals = np.zeros(n * runs, dtype=np.int64)
    out = {}
    for name in ORACLE_NAMES:
        if name == "k-RR":
            rep = krr(vals, d, eps, rng=gen).reshape(runs, n)
            est = np.array([krr_estimate(r, d, eps) for r in rep])
        elif name in ("SUE", "OUE"):
            opt = name == "OUE"
            rep = unary_encoding(vals, d, eps, optimized=opt, rng=gen).reshape(runs, n, -1)
            est = np.array([unary_encoding_estimate(r, d, eps, optimized=opt) for r in rep])
        else:
            rep = local_hashing(vals, d, eps, rng=gen).reshape(runs, n, 3)
            est = np.array([local_hashing_estimate(r, d, eps) for r in rep])
        out[name] = float(np.sqrt(np.mean(est[:, 1:] ** 2)))
    return out


def plot_oracle_variance(epsilon=1.0, n=10_000, *, simulate=(), runs=100, seed=0):
    """Standard error of the count estimates of k-RR, SUE, OUE and OLH against the domain size d (exact
    formulas as lines, seeded simulations as markers), with the crossover d = 3e^eps + 2 marked."""
    eps = check_epsilon(epsilon)
    n = check_positive_int(n, "n")
    ds = np.unique(np.geomspace(2, 4096, 40).astype(int))
    exact = exact_standard_errors(n, ds, eps)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    colors = dict(zip(ORACLE_NAMES, ("C0", "C1", "C2", "C3")))
    styles = {"k-RR": "-", "SUE": ":", "OUE": "-", "OLH": "--"}
    for name in ORACLE_NAMES:
        ax.plot(ds, exact[name], styles[name], color=colors[name], label=f"{name} (exact)")
    for d in np.atleast_1d(simulate).astype(int) if len(simulate) else []:
        sim = simulated_standard_errors(n, int(d), eps, runs=runs, rng=seed + int(d))
        for name in ORACLE_NAMES:
            ax.plot([d], [sim[name]], "o", color=colors[name], markersize=5)
    cross = 3 * math.exp(eps) + 2
    ax.axvline(cross, color="0.5", lw=0.8)
    ax.text(cross, ax.get_ylim()[1], f" d = 3e^ε+2 ≈ {cross:.1f}", va="top", fontsize=8, color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("domain size d")
    ax.set_ylabel("standard error of a count")
    ax.set_title(f"n = {n:,} users, ε = {eps:g}" + (" (dots: simulation)" if len(simulate) else ""))
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_shuffle_epsilon(epsilons_local=(0.5, 1.0, 2.0, 4.0, 6.0), ns=(1_000, 10_000, 100_000, 1_000_000), *,
                         delta=1e-6):
    """Central epsilon after shuffling the reports of n users (Feldman-McMillan-Talwar numerical bound, solid;
    their closed form, dashed) against n, one line per local epsilon."""
    e_loc = check_real_array(epsilons_local, "epsilons_local", ndim=1)
    ns = [check_positive_int(int(n), "ns") for n in ns]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for i, e0 in enumerate(e_loc):
        num = [shuffle_amplification_epsilon(e0, n, delta) for n in ns]
        closed = [shuffle_amplification_epsilon(e0, n, delta, method="closed_form") for n in ns]
        ax.plot(ns, num, "o-", color=f"C{i}", label=f"ε_local = {e0:g}")
        ax.plot(ns, closed, "--", color=f"C{i}", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of users n")
    ax.set_ylabel(f"central ε at δ = {delta:g}")
    ax.set_title("Amplification by shuffling (solid: numerical bound, dashed: closed form)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


@functools.lru_cache(maxsize=1024)
def _cached_shuffle_epsilon(epsilon, n, delta):
    """:func:`~dpcourse.local_dp.shuffle_amplification_epsilon`, once per (epsilon, n, delta) (the live
    figure's states share points of their curves)."""
    return shuffle_amplification_epsilon(epsilon, n, delta)


def plot_local_frequency(epsilon=1.0, n=100_000, *, delta=1e-6):
    """Left: exact standard error of each oracle's count against d for n users at local ε. Right: the central
    ε of the same n reports once shuffled (numerical bound), against n up to the chosen one."""
    eps = check_epsilon(epsilon)
    n = check_positive_int(n, "n")
    ds = np.unique(np.geomspace(2, 4096, 30).astype(int))
    exact = exact_standard_errors(n, ds, eps)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9.6, 3.8))
    for i, name in enumerate(ORACLE_NAMES):
        ax.plot(ds, exact[name] / n, ("-", ":", "-", "--")[i], color=f"C{i}", label=name)
    ax.axvline(3 * math.exp(eps) + 2, color="0.5", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("domain size d")
    ax.set_ylabel("standard error of a frequency")
    ax.set_title(f"n = {n:,}, ε_local = {eps:g}")
    ax.legend(fontsize=8)
    ns = np.unique(np.geomspace(100, n, 6).astype(int))
    central = [_cached_shuffle_epsilon(eps, int(m), delta) for m in ns]
    bx.plot(ns, central, "o-", color="C4")
    bx.axhline(eps, color="0.5", lw=0.8, ls=":")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("number of users shuffled")
    bx.set_ylabel(f"central ε (δ = {delta:g})")
    bx.set_title(f"shuffled: ε = {central[-1]:.3g} at n = {n:,}")
    fig.tight_layout()
    return fig


def local_dp_widget():
    """Sliders for the local epsilon and the number of users, redrawing :func:`plot_local_frequency`.

    A :func:`dpcourse.plots.explorer.explorer` with 5 x 3 = 15 settings, each drawn at build time.
    """
    from .explorer import explorer

    return explorer(plot_local_frequency,
                    {"epsilon": ("ε local", (0.5, 1.0, 2.0, 4.0, 6.0), 1.0),
                     "n": ("users n", (10_000, 100_000, 1_000_000), 100_000)},
                    alt="Standard error of k-RR, SUE, OUE and OLH against the domain size, and the central epsilon "
                        "after shuffling against the number of users",
                    delta=1e-6)
