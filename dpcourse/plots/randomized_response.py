"""Figures of the chapter "Randomized response: privacy without a trusted curator"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import as_rng, check_epsilon, check_positive_int, check_probability, check_real_array
from ..laplace import laplace_mechanism
from ..rr import randomized_response, rr_estimate_mean, rr_standard_error, rr_truth_probability

__all__ = ["plot_coin_tree", "expected_report_rate", "plot_report_rate", "population_bits", "simulate_estimates",
           "rmse_vs_n", "plot_error_vs_n", "plot_rr_vs_central", "rr_vs_central_explorer", "rr_vs_central_widget"]

_CHUNK = 2_000_000  # largest number of reports drawn at once (keeps memory small for large n * reps)


def plot_coin_tree(epsilon=1.0):
    """The coin of randomized response as a tree: each true answer is kept with probability p and flipped otherwise.

    Two trees, one for a person whose true answer is 1 ("yes") and one for 0, with the truth probability
    ``p = e^epsilon / (1 + e^epsilon)`` of definition ``def-rr`` on the branches. On the right, the
    probability of each report in the two trees and their ratio, ``e^epsilon`` or ``e^-epsilon``
    (theorem ``thm-rr-privacy``).
    """
    eps = check_epsilon(epsilon)
    p = rr_truth_probability(eps)
    fig, ax = plt.subplots(figsize=(9, 4.4))
    ax.set_xlim(0, 8.8)
    ax.set_ylim(0, 4.4)
    ax.axis("off")
    box = {"boxstyle": "round,pad=0.35", "fc": "white", "ec": "0.4"}
    for top, truth in ((3.4, 1), (1.0, 0)):
        ax.text(0.9, top, f"true answer\n{'yes (1)' if truth else 'no (0)'}", ha="center", va="center",
                bbox={**box, "fc": "C0" if truth else "C1", "alpha": 0.25})
        for dy, keep in ((0.55, True), (-0.55, False)):
            report = truth if keep else 1 - truth
            prob = p if keep else 1 - p
            ax.annotate("", xy=(3.85, top + dy), xytext=(1.75, top), arrowprops={"arrowstyle": "->", "color": "0.3"})
            ax.text(2.45, top + (0.5 if dy > 0 else -0.5), f"{'keep' if keep else 'flip'}: "
                    f"{'p' if keep else '1 - p'} = {prob:.2f}", ha="center", va="center", fontsize=10)
            ax.text(4.6, top + dy, f"report {report}", ha="center", va="center", bbox=box)
    yes_ratio = p / (1 - p)
    ax.text(7.1, 2.2,
            f"P[report 1 | yes] = {p:.2f}\nP[report 1 | no]  = {1 - p:.2f}\n"
            f"ratio = {yes_ratio:.2f} = $e^{{\\varepsilon}}$\n\n"
            f"P[report 0 | yes] = {1 - p:.2f}\nP[report 0 | no]  = {p:.2f}\n"
            f"ratio = {1 / yes_ratio:.2f} = $e^{{-\\varepsilon}}$",
            ha="center", va="center", bbox={**box, "fc": "0.95"})
    ax.set_title(f"randomized response at ε = {eps:g}: truth probability p = {p:.2f}")
    fig.tight_layout()
    return fig


def expected_report_rate(mean, epsilon):
    """The expected fraction of reported 1s when a fraction ``mean`` of the bits are 1, at ``epsilon``.

    A bit is reported as 1 with probability p if it is 1 and 1 - p if it is 0 (definition ``def-rr``), so
    the expected fraction is ``(1 - p) + (2p - 1) * mean``, a straight line from 1 - p to p: the line that
    the unbiased estimator of theorem ``thm-rr-estimator`` reads backwards. ``mean`` may be an array.
    """
    m = check_real_array(mean, "mean")
    if np.any((m < 0) | (m > 1)):
        raise ValueError("mean must lie in [0, 1] (a fraction of people)")
    p = rr_truth_probability(check_epsilon(epsilon))
    out = (1 - p) + (2 * p - 1) * m
    return float(out) if np.ndim(mean) == 0 else out


def plot_report_rate(epsilons=(0.5, 1.0, 2.0), true_rate=0.25):
    """The expected fraction of "yes" reports against the true rate, one line per epsilon: a line that can be
    read backwards.

    Each line is :func:`expected_report_rate` on [0, 1]; the dotted diagonal is the answer without noise.
    For the second epsilon, the true rate ``true_rate`` is followed up to its expected report rate and
    back: the estimator of theorem ``thm-rr-estimator`` undoes the line's flattening towards 1/2.
    """
    eps_list = [check_epsilon(e) for e in np.atleast_1d(np.asarray(epsilons, dtype=object))]
    if not 1 <= len(eps_list) <= 6:
        raise ValueError(f"epsilons must hold 1 to 6 values, got {len(eps_list)}")
    mu = check_probability(true_rate, "true_rate")
    grid = np.linspace(0, 1, 101)
    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    ax.plot(grid, grid, ":", color="0.5", label="no noise (report = truth)")
    for k, eps in enumerate(eps_list):
        ax.plot(grid, expected_report_rate(grid, eps), color=f"C{k}", label=f"ε = {eps:g}")
    ax.axhline(0.5, color="0.8", lw=0.8)
    eps_mark = eps_list[1] if len(eps_list) > 1 else eps_list[0]
    k_mark = 1 if len(eps_list) > 1 else 0
    rate = expected_report_rate(mu, eps_mark)
    ax.annotate("", xy=(0, rate), xytext=(mu, rate),
                arrowprops={"arrowstyle": "->", "color": f"C{k_mark}", "ls": "--"})
    ax.plot([mu, mu], [0, rate], "--", color=f"C{k_mark}", lw=1)
    ax.plot([mu], [rate], "o", color=f"C{k_mark}")
    ax.annotate(f"true rate {mu:.2f} → expected\nreport rate {rate:.2f} (ε = {eps_mark:g})", (mu, rate),
                xytext=(12, -34), textcoords="offset points", fontsize=10)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("true rate μ (fraction of 1s)")
    ax.set_ylabel("expected fraction of reported 1s")
    ax.set_title("a known line, pulled towards 1/2")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def _rr_theory(n, eps):
    """:func:`~dpcourse.rr_standard_error` on a real-valued grid of n (for smooth theory lines)."""
    return 1.0 / (2.0 * np.sqrt(n) * math.sinh(eps / 2.0))


def _central_theory(n, eps):
    """Standard deviation sqrt(2)/(n eps) of Laplace noise of scale 1/(n eps): the central mean of n bits."""
    return math.sqrt(2.0) / (np.asarray(n, dtype=float) * eps)


def population_bits(n, mean):
    """The n bits with ``round(mean * n)`` ones first, then zeros: a population whose mean is known exactly."""
    n = check_positive_int(n, "n")
    m = check_probability(mean, "mean")
    ones = int(round(m * n))
    bits = np.zeros(n, dtype=np.int64)
    bits[:ones] = 1
    return bits


def simulate_estimates(bits, epsilon, reps, *, rng=None):
    """Estimates of ``mean(bits)`` from ``reps`` independent runs of two epsilon-DP mechanisms.

    Returns ``(rr, central)``: ``rr[j]`` is :func:`~dpcourse.rr_estimate_mean` of a fresh
    :func:`~dpcourse.randomized_response` of every bit (local model), ``central[j]`` is the exact mean
    released by :func:`~dpcourse.laplace_mechanism` with sensitivity ``1/n`` (the mean of n bits under
    replace-one; central model).
    """
    eps = check_epsilon(epsilon)
    reps = check_positive_int(reps, "reps")
    bits = np.asarray(bits)
    n = bits.size
    gen = as_rng(rng)
    per_chunk = max(1, _CHUNK // n)
    rr = np.empty(reps)
    for start in range(0, reps, per_chunk):
        stop = min(reps, start + per_chunk)
        reports = randomized_response(np.broadcast_to(bits[:, None], (n, stop - start)), eps, rng=gen)
        rr[start:stop] = rr_estimate_mean(reports, eps)
    central = laplace_mechanism(np.full(reps, bits.mean()), 1.0 / n, eps, rng=gen)
    return rr, central


def rmse_vs_n(ns, epsilon, *, mean=0.25, reps=200, rng=None):
    """Root-mean-square error of the local (RR) and central (Laplace) mean for each population size in ``ns``.

    For each n the population is :func:`population_bits` ``(n, mean)``. Returns a dict of arrays: ``n``,
    ``rr`` and ``central`` (measured RMSE over ``reps`` runs), ``rr_theory`` (:func:`~dpcourse.rr_standard_error`)
    and ``central_theory`` (``sqrt(2) / (n epsilon)``, the standard deviation of Laplace noise of scale
    ``1/(n epsilon)``).
    """
    ns = check_real_array(ns, "ns", ndim=1).astype(np.int64)
    eps = check_epsilon(epsilon)
    gen = as_rng(rng)
    out = {"n": ns, "rr": np.empty(ns.size), "central": np.empty(ns.size)}
    for i, n in enumerate(ns):
        bits = population_bits(int(n), mean)
        rr, central = simulate_estimates(bits, eps, reps, rng=gen)
        out["rr"][i] = np.sqrt(np.mean((rr - bits.mean()) ** 2))
        out["central"][i] = np.sqrt(np.mean((central - bits.mean()) ** 2))
    out["rr_theory"] = np.array([rr_standard_error(int(n), eps) for n in ns])
    out["central_theory"] = _central_theory(ns, eps)
    return out


def plot_error_vs_n(epsilon=1.0, *, mean=0.25, ns=None, reps=200, rng=0, ax=None):
    """Log-log plot of the RMSE of the local (RR) and central (Laplace) mean against n, with theory lines."""
    eps = check_epsilon(epsilon)
    ns = np.unique(np.geomspace(100, 100_000, 7).round().astype(int)) if ns is None else ns
    res = rmse_vs_n(ns, eps, mean=mean, reps=reps, rng=rng)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
    else:
        fig = ax.figure
    grid = np.geomspace(res["n"].min(), res["n"].max(), 200)
    ax.loglog(grid, _rr_theory(grid, eps), color="tab:blue",
              label=r"RR theory $1/(2\sqrt{n}\,\sinh(\varepsilon/2))$")
    ax.loglog(res["n"], res["rr"], "o", color="tab:blue", label="RR measured")
    ax.loglog(grid, _central_theory(grid, eps), color="tab:orange", label=r"Laplace theory $\sqrt{2}/(n\varepsilon)$")
    ax.loglog(res["n"], res["central"], "s", color="tab:orange", label="Laplace measured")
    ax.set_xlabel("number of people n")
    ax.set_ylabel("RMSE of the estimated mean")
    ax.set_title(f"local vs central mean of bits, $\\varepsilon$ = {eps:g}, {reps} runs per n")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_rr_vs_central(n=1000, epsilon=1.0, *, mean=0.25, reps=1000, rng=0):
    """Histograms of the RR and central-Laplace estimates at one (n, epsilon), and where n sits on the error curves.

    Left: the estimates of ``reps`` runs of each mechanism on :func:`population_bits` ``(n, mean)``, the
    true mean (dashed) and the normal density with the exact RR standard error; a Laplace histogram taller than
    three times the RR peak is cut there, and its legend entry says so. Right: the theoretical
    RMSE of both against n, with the chosen n marked.
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    bits = population_bits(n, mean)
    rr, central = simulate_estimates(bits, eps, reps, rng=rng)
    se = rr_standard_error(n, eps)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    lo, hi = min(rr.min(), central.min()), max(rr.max(), central.max())
    # RR estimates lie on a lattice of spacing 1 / (n tanh(eps/2)): align its bins to it to avoid aliasing.
    spacing = 1.0 / (n * math.tanh(eps / 2))
    step = spacing * max(1, math.ceil((rr.max() - rr.min()) / (40 * spacing)))
    rr_bins = np.arange(rr.min() - spacing / 2, rr.max() + step, step)
    ax1.hist(rr, bins=rr_bins, density=True, alpha=0.6, label="randomized response (local)")
    heights, edges = np.histogram(central, bins=40, density=True)
    rr_peak = 1.0 / (se * math.sqrt(2 * math.pi))
    cut = heights.max() > 3 * rr_peak  # keep the RR histogram readable; the legend says the Laplace one is cut
    ax1.hist(central, bins=edges, density=True, alpha=0.6,
             label="Laplace (central, cut off)" if cut else "Laplace (central)")
    if cut:
        ax1.set_ylim(0, 3 * rr_peak)
    z = np.linspace(lo, hi, 300)
    ax1.plot(z, np.exp(-0.5 * ((z - bits.mean()) / se) ** 2) / (se * math.sqrt(2 * math.pi)), "k:", lw=1,
             label="normal, RR standard error")
    ax1.axvline(bits.mean(), ls="--", color="k", lw=1)
    ax1.set_xlabel("estimated mean")
    ax1.set_ylabel("density")
    ax1.set_title(f"n = {n}, $\\varepsilon$ = {eps:g}: RR sd {rr.std():.3g}, Laplace sd {central.std():.3g}")
    ax1.legend(fontsize=8)
    grid = np.geomspace(10, 1e6, 200)
    ax2.loglog(grid, _rr_theory(grid, eps), label="RR (local)")
    ax2.loglog(grid, _central_theory(grid, eps), label="Laplace (central)")
    ax2.axvline(n, ls="--", color="k", lw=1)
    ax2.set_xlabel("number of people n")
    ax2.set_ylabel("RMSE (theory)")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def rr_vs_central_explorer(mean=0.25):
    """Sliders for epsilon and n, redrawing :func:`plot_rr_vs_central` (500 runs per setting, for speed);
    an explorer: live in Jupyter, every setting drawn at build time in the static book."""
    from .explorer import explorer

    return explorer(plot_rr_vs_central,
                    {"epsilon": ("epsilon", (0.25, 0.5, 1.0, 2.0, 4.0), 1.0),
                     "n": ("n", (100, 1000, 10_000), 1000)},
                    alt="Estimates of randomized response and of the central Laplace mechanism, and their errors",
                    mean=mean, reps=500, rng=0)


def rr_vs_central_widget(mean=0.25):
    """The live ipywidgets form of :func:`rr_vs_central_explorer`."""
    return rr_vs_central_explorer(mean).widget()

