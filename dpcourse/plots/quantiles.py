"""Figures of the chapter "Medians and quantiles" (private medians beyond global sensitivity)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import (as_rng, check_bounds, check_delta, check_epsilon, check_positive_int, check_real,
                           check_real_array)
from ..laplace import dp_mean
from ..quantiles import (dp_median, dp_quantile_probabilities, local_sensitivity, propose_test_release,
                         sample_and_aggregate, smooth_median)

__all__ = [
    "penguin_body_mass",
    "METHODS",
    "method_errors",
    "error_table",
    "plot_method_errors",
    "plot_errors_for_epsilon",
    "quantile_errors_widget",
    "plot_median_distribution",
    "plot_median_sensitivity",
    "plot_interval_mechanism",
    "plot_local_sensitivity_leak",
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


def _dots(ax, values, y0, step, **style):
    """Values as dots on a line at height ``y0``, equal values stacked ``step`` apart (a dot plot)."""
    seen: dict = {}
    for v in values:
        k = seen.get(float(v), 0)
        seen[float(v)] = k + 1
        ax.plot(v, y0 + k * step, "o", **style)


def plot_median_sensitivity(values, lower, upper, *, window=150.0, unit=""):
    """Why the median defeats the Laplace mechanism: in the worst case one value moves it across the whole
    range, on real data by little.

    Left: the worst case of lemma ``lem-quant-median-gs`` with n = 5: x holds three values at ``lower`` and
    two at ``upper``, its neighbour x' has one ``lower`` replaced by ``upper``, and the (lower) median jumps
    from ``lower`` to ``upper``. Right: the sorted ``values`` (clamped to the bounds) within ``window`` of their
    median, equal values stacked; the median and its two neighbours in sorted order are marked: replacing one
    value moves the median at most to one of them, by the local sensitivity
    (:func:`dpcourse.local_sensitivity`), which the title states (in ``unit``).
    """
    lo, hi = check_bounds(lower, upper)
    x = np.sort(np.clip(check_real_array(values, "values", ndim=1), lo, hi))
    w = check_real(window, "window", low=0.0, low_open=True)
    unit = f" {unit}" if str(unit) else ""
    n = x.size
    m = (n + 1) // 2
    z = np.concatenate([[lo], x, [hi]])          # z[j] is the j-th smallest value; z[0] = lower, z[n + 1] = upper
    ls = local_sensitivity(x, lo, hi)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 3.8), gridspec_kw={"width_ratios": [1, 1.2]})
    rows = [("x", np.array([lo, lo, lo, hi, hi]), 1.0), ("x'", np.array([lo, lo, hi, hi, hi]), 0.0)]
    for name, v, y in rows:
        _dots(left, v, y, 0.18, ms=9, color="tab:blue")
        med = _lower_median(v)
        left.plot(med, y - 0.22, "^", color="tab:red", ms=11)
        left.annotate(f"median {med:g}", (med, y - 0.3), ha="center", va="top", color="tab:red")
        left.annotate(name, (lo - 0.08 * (hi - lo), y), ha="right", va="center")
    left.annotate("", xy=(hi, 0.12), xytext=(lo, 0.88), arrowprops={"arrowstyle": "->", "color": "0.4"})
    left.set_xlim(lo - 0.2 * (hi - lo), hi + 0.15 * (hi - lo))
    left.set_ylim(-0.75, 1.75)
    left.set_yticks([])
    left.set_xlabel(f"value{' (' + unit.strip() + ')' if unit else ''}")
    left.set_title(f"worst case: one value changes, the median jumps by {hi - lo:g}{unit}", fontsize=10)
    near = x[np.abs(x - z[m]) <= w]
    _dots(right, near, 0.0, 1.0, ms=7, color="0.55")
    right.axvline(z[m], color="tab:red", lw=3, label="median", zorder=2)
    for j, label in ((m - 1, "its neighbours in sorted order"), (m + 1, None)):   # dashed on top: one may be equal
        if abs(z[j] - z[m]) <= w:
            right.axvline(z[j], color="tab:orange", ls="--", lw=1.5, label=label, zorder=3)
    right.set_xlim(z[m] - w * 1.05, z[m] + w * 1.05)
    right.set_ylim(-1, None)
    right.set_yticks([])
    right.set_xlabel(f"value{' (' + unit.strip() + ')' if unit else ''}, equal values stacked")
    right.set_title(f"{n} real values: replacing one moves the median by at most {ls:g}{unit}", fontsize=10)
    right.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def plot_interval_mechanism(values, lower, upper, epsilon, *, q=0.5, resolution=100):
    """The exponential mechanism for a quantile: the data cut the range into intervals, each scored by how far
    its rank is from the target rank.

    A few ``values`` (dotted lines) cut ``[lower, upper]`` into n + 1 intervals; every point of the public
    grid of ``resolution + 1`` points in interval i has the score ``-|i - q n|`` (written above it), and the
    mechanism outputs a grid point with probability proportional to ``exp(epsilon * score / 2)``
    (definition ``def-quant-interval-em``): the bars are these exact probabilities per grid point
    (:func:`dpcourse.dp_quantile_probabilities`). Each interval's total probability, the sum over its grid
    points, is printed under it in percent.
    """
    lo, hi = check_bounds(lower, upper)
    x = np.sort(np.clip(check_real_array(values, "values", ndim=1), lo, hi))
    if x.size > 20:
        raise ValueError(f"values must hold at most 20 values (a picture of each interval), got {x.size}")
    eps = check_epsilon(epsilon)
    qq = check_real(q, "q", low=0.0, high=1.0)
    res = check_positive_int(resolution, "resolution", minimum=2)
    if res > 10_000:
        raise ValueError(f"resolution must be at most 10000 for a picture, got {res}")
    starts, p = dp_quantile_probabilities(x, qq, lo, hi, eps, resolution=res)
    cnt = np.diff(starts)
    grid = np.linspace(lo, hi, res + 1)
    per_point = np.repeat(np.where(cnt > 0, p / np.maximum(cnt, 1), 0.0), cnt)
    fig, ax = plt.subplots(figsize=(10, 4.2))
    ax.fill_between(grid, per_point, step="mid", color="tab:blue", alpha=0.6, lw=0)
    top = per_point.max()
    edges = np.concatenate([[lo], x, [hi]])
    for v in x:
        ax.axvline(v, color="k", ls=":", lw=1)
    shown = 0
    for i in range(x.size + 1):
        if cnt[i] == 0:
            continue
        mid = (grid[starts[i]] + grid[starts[i + 1] - 1]) / 2
        level = shown % 2                 # neighbours alternate between two rows, so narrow intervals stay legible
        shown += 1
        ax.annotate(f"{0.0 - abs(i - qq * x.size):g}", (mid, top * (1.06 + 0.14 * level)), ha="center", va="bottom")
        ax.annotate(f"{100 * p[i]:.0f}%", (mid, -top * (0.04 + 0.14 * level)), ha="center", va="top",
                    color="tab:blue")
    ax.set_ylim(-top * 0.36, top * 1.42)
    ax.set_xlim(edges[0] - (hi - lo) * 0.01, edges[-1] + (hi - lo) * 0.01)
    ax.set_xlabel("output (dotted: the data; above: each interval's score; below: its probability)")
    ax.set_yticks([t for t in ax.get_yticks() if 0 <= t <= top])
    ax.set_ylabel("probability of a grid point")
    ax.set_title(f"{x.size} values, target rank {qq * x.size:g}, epsilon = {eps:g}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_local_sensitivity_leak(x, x_neighbour, lower, upper, epsilon, output, *, names=("x", "x'")):
    """Noise scaled to the local sensitivity leaks: two neighbours get noise of very different widths, so one
    output can point to one of them.

    The densities of the median plus Laplace noise of scale LS/epsilon (:func:`dpcourse.local_sensitivity`)
    on the dataset ``x`` and on its neighbour ``x_neighbour`` (log scale), with ``output`` marked; the title
    states the log of the ratio of the two densities there, the privacy loss of that output, to compare
    with ``epsilon``. Both local sensitivities must be positive (a zero one is a point mass: an infinite loss).
    ``names`` labels the two datasets in the legend.
    """
    lo, hi = check_bounds(lower, upper)
    eps = check_epsilon(epsilon)
    out = check_real(output, "output")
    data = [np.clip(check_real_array(v, name, ndim=1), lo, hi) for v, name in ((x, "x"), (x_neighbour, "x_neighbour"))]
    if data[0].size != data[1].size:
        raise ValueError("x and x_neighbour must have the same size (replace-one neighbours)")
    scales = [local_sensitivity(v, lo, hi) / eps for v in data]
    if min(scales) <= 0:
        raise ValueError("both local sensitivities must be positive: a zero one releases the median exactly")
    meds = [_lower_median(v) for v in data]
    t = np.linspace(lo, hi, 1001)
    fig, ax = plt.subplots(figsize=(8, 3.8))
    logd = []
    names = [str(v) for v in names]
    if len(names) != 2:
        raise ValueError(f"names must hold two labels, got {len(names)}")
    for (name, med, b, style) in zip(names, meds, scales, ("-", "--")):
        ax.semilogy(t, np.exp(-np.abs(t - med) / b) / (2 * b), style, label=f"{name}: median {med:g}, LS = {b * eps:g}")
        logd.append(-np.log(2 * b) - abs(out - med) / b)
    ax.axvline(out, color="tab:red", lw=1)
    loss = abs(logd[1] - logd[0])
    ax.set_ylim(1e-6, None)
    ax.set_xlabel("released value")
    ax.set_ylabel("density (log scale)")
    ax.set_title(f"privacy loss at output {out:g}: {loss:.2f}, above epsilon = {eps:g}", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
