"""Figures of the chapter "Medians and quantiles" (private medians beyond global sensitivity)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import as_rng, check_delta, check_epsilon, check_positive_int, check_real, check_real_array
from ..laplace import dp_mean
from ..quantiles import (dp_median, dp_quantile_probabilities, propose_test_release, sample_and_aggregate,
                         smooth_median)

__all__ = [
    "penguin_body_mass",
    "METHODS",
    "method_errors",
    "error_table",
    "plot_method_errors",
    "plot_errors_for_epsilon",
    "quantile_errors_widget",
    "plot_median_distribution",
]

#: Public bounds on a penguin's body mass in grams (as in the chapter on histograms), and the PTR proposal.
MASS_BOUNDS = (2000.0, 7000.0)
PTR_BOUND = 400.0
METHODS = ("exponential mechanism", "smooth sensitivity", "propose-test-release", "sample-and-aggregate",
           "dp_mean (clamped)")


def penguin_body_mass() -> np.ndarray:
    """The 342 body masses (g) of the Palmer penguins with a recorded mass (two are missing and dropped)."""
    from ..data import load_penguins

    mass = load_penguins()["body_mass_g"]
    return mass[np.isfinite(mass)]


def _lower_median(v: np.ndarray) -> float:
    s = np.sort(v)
    return float(s[(s.size + 1) // 2 - 1])


def method_errors(values, lower, upper, ns, epsilons, *, runs=100, delta=1e-6, ptr_bound=PTR_BOUND,
                  resolution=2**12, rng=None):
    """Median absolute error of each private median (and of ``dp_mean``) against n and epsilon.

    For each n a subsample of ``values`` of that size is drawn once (without replacement); each method is
    run ``runs`` times on it; every release is clipped to ``[lower, upper]`` (post-processing). The four median methods are compared with the subsample's median (the lower
    median), ``dp_mean`` with its mean. A "bottom" answer of propose-test-release counts as an error of
    ``upper - lower`` (the whole range), and its frequency is returned too. Sample-and-aggregate uses
    ``k = max(5, n // 10)`` blocks, the median of each block and :func:`dpcourse.dp_median` to aggregate.

    Returns
    -------
    dict
        ``"n"``, ``"epsilon"``, one array of shape (len(epsilons), len(ns)) per name of :data:`METHODS`,
        and ``"ptr_bottom"`` (fraction of bottom answers) of the same shape.
    """
    x = check_real_array(values, "values", ndim=1)
    lo, hi = check_real(lower, "lower"), check_real(upper, "upper")
    ns = [check_positive_int(n, "n") for n in ns]
    eps_list = [check_epsilon(e) for e in epsilons]
    runs = check_positive_int(runs, "runs")
    dlt = check_delta(delta, allow_zero=False)
    gen = as_rng(rng)
    out = {m: np.zeros((len(eps_list), len(ns))) for m in METHODS}
    out["ptr_bottom"] = np.zeros((len(eps_list), len(ns)))
    for j, n in enumerate(ns):
        sub = gen.choice(x, size=n, replace=False)
        med, mean = _lower_median(sub), float(np.mean(np.clip(sub, lo, hi)))
        k = max(5, n // 10)
        for i, eps in enumerate(eps_list):
            em = dp_median(sub, lo, hi, eps, rng=gen, size=runs, resolution=resolution)
            sm = np.clip([smooth_median(sub, lo, hi, eps, dlt, rng=gen) for _ in range(runs)], lo, hi)
            ptr = [propose_test_release(sub, lo, hi, ptr_bound, eps, dlt, rng=gen) for _ in range(runs)]
            bottom = np.array([r is None for r in ptr])
            released = np.clip([med if r is None else r for r in ptr], lo, hi)
            ptr_err = np.where(bottom, hi - lo, np.abs(released - med))
            sa = np.array([sample_and_aggregate(sub, np.median, k, lo, hi, eps, rng=gen, resolution=resolution)
                           for _ in range(runs)])
            dm = np.clip([dp_mean(sub, lo, hi, eps, rng=gen) for _ in range(runs)], lo, hi)
            out["exponential mechanism"][i, j] = np.median(np.abs(em - med))
            out["smooth sensitivity"][i, j] = np.median(np.abs(sm - med))
            out["propose-test-release"][i, j] = np.median(ptr_err)
            out["ptr_bottom"][i, j] = bottom.mean()
            out["sample-and-aggregate"][i, j] = np.median(np.abs(sa - med))
            out["dp_mean (clamped)"][i, j] = np.median(np.abs(dm - mean))
    out["n"] = np.array(ns)
    out["epsilon"] = np.array(eps_list)
    return out


def error_table(result) -> str:
    """The result of :func:`method_errors` as a plain-text table (one row per epsilon and n)."""
    short = ["EM", "smooth", "PTR", "S&A", "dp_mean"]
    head = f"{'epsilon':>7} {'n':>5} " + " ".join(f"{s:>8}" for s in short) + f" {'PTR bottom':>10}"
    lines = [head]
    for i, eps in enumerate(result["epsilon"]):
        for j, n in enumerate(result["n"]):
            cells = " ".join(f"{result[m][i, j]:8.1f}" for m in METHODS)
            lines.append(f"{eps:7g} {n:5d} {cells} {result['ptr_bottom'][i, j]:10.0%}")
    return "\n".join(lines)


def plot_method_errors(result, *, row=0):
    """Median absolute error (g) of each private median and of dp_mean against n, for one epsilon (log scale).

    ``result`` comes from :func:`method_errors`; ``row`` selects the epsilon.
    """
    fig, ax = plt.subplots(figsize=(9, 3.8))
    styles = ["o-", "s-", "^-", "v-", "k--"]
    for m, style in zip(METHODS, styles):
        ax.semilogy(result["n"], np.maximum(result[m][row], 0.1), style, label=m)
    ax.set_xlabel("number of penguins n")
    ax.set_ylabel("median |error| (g)")
    ax.set_title(f"Private median of penguin body mass in [2000, 7000] g, epsilon = {result['epsilon'][row]:g}",
                 fontsize=10)
    # beside the axes, not inside: inside it covered the propose-test-release line
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    return fig


def plot_errors_for_epsilon(epsilon=1.0, *, runs=40, seed=0):
    """Median absolute error of four private medians and of dp_mean against n on the penguins, for one epsilon.

    Subsamples of n = 20, 40, 80, 160, 342 penguins; delta = 1e-6 for smooth sensitivity and PTR (proposed
    bound 400 g); a PTR refusal counts as an error of 5000 g.
    """
    eps = check_epsilon(epsilon)
    res = method_errors(penguin_body_mass(), *MASS_BOUNDS, [20, 40, 80, 160, 342], [eps], runs=runs, rng=seed)
    return plot_method_errors(res)


def quantile_errors_widget():
    """A slider for epsilon redrawing :func:`plot_errors_for_epsilon` (an :func:`~dpcourse.plots.explorer.explorer`)."""
    from .explorer import explorer

    return explorer(plot_errors_for_epsilon, {"epsilon": ("epsilon", (0.1, 0.3, 1.0, 3.0, 10.0), 1.0)},
                    alt="Error of private medians and of dp_mean against n on penguin body masses",
                    runs=40, seed=0)


def plot_median_distribution(values, lower, upper, epsilons, *, resolution=2**10):
    """Output distribution of the exponential-mechanism median (probability per grid point) over the data's histogram.

    One curve per epsilon, from the exact probabilities :func:`dpcourse.dp_quantile_probabilities`; the
    true median is the dotted line.
    """
    x = check_real_array(values, "values", ndim=1)
    grid = np.linspace(lower, upper, resolution + 1)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax2 = ax.twinx()
    ax2.hist(x, bins=40, range=(lower, upper), color="0.85")
    ax2.set_yticks([])
    for eps in epsilons:
        starts, p = dp_quantile_probabilities(x, 0.5, lower, upper, eps, resolution=resolution)
        cnt = np.diff(starts)
        per_point = np.repeat(np.where(cnt > 0, p / np.maximum(cnt, 1), 0.0), cnt)
        ax.plot(grid, per_point, label=f"epsilon = {eps:g}")
    ax.axvline(_lower_median(x), color="k", ls=":", lw=1)
    ax.set_zorder(ax2.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.set_xlabel("output (g)")
    ax.set_ylabel("probability of each grid point")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
