"""Figures of the chapter "Lower bounds: why the noise cannot be smaller"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_delta, check_epsilon, check_positive_int, check_relation
from ..discrete import discrete_laplace_pmf
from ..lower_bounds import packing_error_bound, tracing_trial

__all__ = ["packing_masses", "plot_packing_balls", "plot_tracing_scores", "tracing_roc", "plot_tracing_roc",
           "geometric_median_guarantee", "plot_packing", "tracing_widget"]


def packing_masses(epsilon=1.0, m=4):
    """Exact probabilities behind the packing picture: two bins, three datasets, the geometric histogram.

    The centre dataset D0 has counts (0, 0) (relative to a common base), D1 adds m records to bin 1 and D2 adds m
    to bin 2 (add/remove, theorem ``lb-thm-packing`` with k = 2). The mechanism adds independent discrete Laplace
    noise of scale 1/epsilon to each count (``dpcourse.dp_histogram``), epsilon-DP under add/remove. ``B_j`` is the
    open ball ``{y : max_i |y_i - h(D_j)_i| < m/2}`` around D_j's true counts. Returns a dict with ``own`` (the
    probability that M(D_j) lands in B_j: the same for every j) and ``centre_in`` (the probabilities that M(D0)
    lands in B0, B1, B2). Group privacy over m records gives ``own <= e^(epsilon m) centre_in[j]``.

    >>> r = packing_masses(1.0, 4)
    >>> bool(r["own"] <= math.exp(4) * r["centre_in"][1])
    True
    """
    eps = check_epsilon(epsilon)
    mm = check_positive_int(m, "m")
    if mm > 40:
        raise ValueError(f"m must be at most 40 (records added to a bin in the picture), got {mm}")
    inner = (mm - 1) // 2                     # |z| < m/2 for an integer z: |z| <= (m - 1) // 2
    near = np.arange(-inner, inner + 1)
    p_near = float(discrete_laplace_pmf(near, 1.0 / eps).sum())
    p_far = float(discrete_laplace_pmf(near + mm, 1.0 / eps).sum())     # the centre's noise lands near m
    return {"own": p_near * p_near, "centre_in": (p_near * p_near, p_far * p_near, p_near * p_far)}


def plot_packing_balls(epsilon=1.0, m=4):
    """Packing in two bins: an output near one dataset's counts is also possible, if less likely, from its neighbours'.

    The three datasets of :func:`packing_masses` (D0 in the centre; D1, D2 with m records added to one bin) and
    the disjoint squares ``B_j`` of half-width m/2 around their true counts. Shading: the exact probability of each
    output of the geometric histogram run on D0 (log scale). The labels give ``Pr[M(D_j) in B_j]`` and
    ``Pr[M(D0) in B_j]``: group privacy over the m records keeps their ratio below ``e^(epsilon m)`` (theorem
    ``lb-thm-packing``), so the centre dataset must leave some probability in every other square.
    """
    from matplotlib.colors import LogNorm
    from matplotlib.patches import Rectangle

    eps = check_epsilon(epsilon)
    masses = packing_masses(eps, m)
    mm = int(m)
    lo, hi = -mm, 2 * mm
    grid = np.arange(lo, hi + 1)
    pmf = discrete_laplace_pmf(grid, 1.0 / eps)
    joint = np.outer(pmf, pmf)                 # rows: bin 2, columns: bin 1
    fig, ax = plt.subplots(figsize=(7.8, 5.6))
    image = ax.imshow(joint, origin="lower", extent=(lo - 0.5, hi + 0.5, lo - 0.5, hi + 0.5), cmap="Blues",
                      norm=LogNorm(vmin=max(joint.min(), 1e-12), vmax=joint.max()))
    fig.colorbar(image, ax=ax, shrink=0.8, label="probability of each output, dataset D0")
    centres = [(0, 0), (mm, 0), (0, mm)]
    colors = ["black", "tab:red", "tab:green"]
    for j, ((cx, cy), color) in enumerate(zip(centres, colors)):
        ax.add_patch(Rectangle((cx - mm / 2, cy - mm / 2), mm, mm, fill=False, ec=color, lw=2.2))
        ax.plot(cx, cy, "o", color=color, ms=6)
        ax.text(cx + 0.25, cy + 0.2, f"D{j}", color=color, fontsize=10, fontweight="bold",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
        ax.text(cx - mm / 2 + 0.15, cy + mm / 2 - 0.15, f"B{j}", color=color, fontsize=10, va="top",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    ax.set_xlim(lo - 0.5, hi + 0.5)
    ax.set_ylim(lo - 0.5, hi + 0.5)
    ticks = np.arange(lo, hi + 1, max(1, mm // 2))
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xlabel("released count of bin 1 (minus the base)")
    ax.set_ylabel("released count of bin 2 (minus the base)")
    ratio = masses["own"] / masses["centre_in"][1]
    ax.set_title(f"D1, D2: D0 plus {mm} records in bin 1, bin 2 (ε = {eps:g})\n"
                 f"Pr[M(D1) in B1] = {masses['own']:.3f}, Pr[M(D0) in B1] = {masses['centre_in'][1]:.4f}\n"
                 f"ratio {ratio:.1f} ≤ e^(εm) = {math.exp(eps * mm):.1f}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_tracing_scores(n=100, d=4000, *, epsilon=1.0, delta=1e-5, n_outsiders=1000, seed=2026):
    """The tracing score of members and outsiders: accurate means point at the people in them, private ones do not.

    Two :func:`dpcourse.lower_bounds.tracing_trial` runs, seeded with ``seed``: the exact means of d attributes of
    n people, and the Gaussian mechanism's (epsilon, delta)-DP release of them (replace-one). Each panel is a
    histogram of the score ``<released means - biases, person - biases>`` (``dpcourse.tracing_scores``) of the n
    members and of ``n_outsiders`` fresh people; the title gives the release's mean absolute error and the share
    of members scoring above every outsider but the top 1%.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.9))
    for ax, kind in zip(axes, ("exact", "gaussian")):
        out = tracing_trial(n, d, release=kind, epsilon=eps, delta=dlt, n_outsiders=n_outsiders, rng=seed)
        mem, non = out["members"], out["outsiders"]
        both = np.concatenate([mem, non])
        bins = np.linspace(both.min(), both.max(), 41)
        ax.hist(non, bins=bins, color="0.55", alpha=0.7, density=True, label=f"{non.size} outsiders")
        ax.hist(mem, bins=bins, color="C3" if kind == "exact" else "C0", alpha=0.7, density=True,
                label=f"{mem.size} members")
        cut = np.quantile(non, 0.99)
        ax.axvline(cut, color="black", ls="--", lw=1, label="top 1% of outsiders")
        caught = float(np.mean(mem > cut))
        name = "exact means" if kind == "exact" else f"Gaussian, ({eps:g}, {dlt:g})-DP"
        ax.set_title(f"{name}: mean |error| {out['mean_abs_error']:.4f}\nmembers above the line: {caught:.0%}",
                     fontsize=10)
        ax.set_xlabel("tracing score")
        ax.set_yticks([])
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def tracing_roc(members, outsiders):
    """The ROC curve of the test "score > threshold": (FPR, TPR) arrays over every outsider score as threshold."""
    mem = np.sort(np.asarray(members, dtype=np.float64))
    out = np.sort(np.asarray(outsiders, dtype=np.float64))
    thresholds = out[::-1]
    fpr = np.arange(1, out.size + 1) / out.size        # outsiders with score >= threshold
    tpr = (mem.size - np.searchsorted(mem, thresholds, side="left")) / mem.size
    return fpr, tpr


def plot_tracing_roc(n=100, epsilon=1.0, *, d=1000, delta=1e-5, n_outsiders=500, seed=2026):
    """ROC of the tracing attack on a Gaussian release of d means of n people, with the DP cap TPR <= e^ε FPR + δ.

    One :func:`dpcourse.lower_bounds.tracing_trial` per call (release ``"gaussian"`` at (ε, δ)), plus the
    exact means for comparison; log-scaled FPR, so the low-FPR region where tracing matters is visible.
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    grid = np.logspace(-3, 0, 200)
    for kind, style in (("exact", "C3"), ("gaussian", "C0")):
        out = tracing_trial(n, d, release=kind, epsilon=eps, delta=delta, n_outsiders=n_outsiders, rng=seed)
        fpr, tpr = tracing_roc(out["members"], out["outsiders"])
        label = ("exact means" if kind == "exact" else
                 f"Gaussian, ε = {eps:g}: mean |error| {out['mean_abs_error']:.3f}")
        ax.step(fpr, tpr, where="post", color=style, label=label)
    ax.plot(grid, np.minimum(1.0, math.exp(min(eps, 700.0)) * grid + delta), "k--", lw=1,
            label=f"any ({eps:g}, {delta:g})-DP release: e^ε FPR + δ")
    ax.plot(grid, grid, color="0.6", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlim(1.0 / n_outsiders, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel("false-positive rate (outsiders flagged)")
    ax.set_ylabel("true-positive rate (members flagged)")
    ax.set_title(f"Tracing the means of d = {d} attributes of n = {n} people")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def geometric_median_guarantee(k, epsilon, *, relation="add_remove") -> float:
    """A bound the median largest error of the geometric histogram (``dpcourse.dp_histogram``) stays below.

    Its noise is two-sided geometric of scale Δ/ε (Δ = 1 under add/remove, 2 under replace-one), so with
    a = e^(-ε/Δ), ``Pr[|Z| >= j] = 2 a^j / (1 + a)`` for every integer j >= 1, and the union bound over the k bins
    makes ``Pr[max |Z| >= j] <= 1/2`` for every integer j >= t = (Δ/ε) ln(4k / (1 + a)): the median is an integer
    below t. The Laplace union bound (Δ/ε) ln(2k) (corollary ``cor-hist-max-error``, continuous noise) does not hold
    for this integer noise: at k = 10, ε = 1 the median largest error is 3 > ln 20 = 2.996.

    Parameters
    ----------
    k : int
        Number of bins, >= 1.
    epsilon : float
        ε > 0 of the histogram.
    relation : {"add_remove", "replace_one"}
        The neighbouring relation the histogram was calibrated to (it sets Δ).

    Returns
    -------
    float
        t; the median of the largest count error is an integer strictly below it.

    Examples
    --------
    >>> round(geometric_median_guarantee(10, 1.0), 4)   # the median largest error, 3, is below; ln 20 is not above it
    3.3756
    """
    kk = check_positive_int(k, "k")
    eps = check_epsilon(epsilon)
    scale = 2.0 if check_relation(relation) == "replace_one" else 1.0
    return scale / eps * (math.log(4 * kk) - math.log1p(math.exp(-eps / scale)))


def plot_packing(ks, epsilon, measured_median, measured_max, *, relation="add_remove"):
    """The packing lower bound on the median largest error against measured errors of the geometric histogram.

    The dotted line is the geometric histogram's own guarantee at β = 1/2, :func:`geometric_median_guarantee`
    (not the continuous Laplace union bound ln(2k)/ε, which its integer noise can exceed).
    """
    eps = check_epsilon(epsilon)
    ks = np.asarray(ks)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    bound = [packing_error_bound(int(k), eps, relation=relation) for k in ks]
    ax.plot(ks, bound, "k-o", label="packing: some dataset has this error w.p. ≥ 1/2")
    ax.plot(ks, measured_median, "C0-s", label="geometric (Laplace) histogram: median largest error")
    guarantee = [geometric_median_guarantee(int(k), eps, relation=relation) for k in ks]
    formula = ("ln(4k/(1 + e^(−ε)))/ε" if check_relation(relation) == "add_remove" else
               "(2/ε) ln(4k/(1 + e^(−ε/2)))")
    ax.plot(ks, guarantee, "C0:", label=f"its guarantee at β = 1/2: {formula}")
    ax.plot(ks, measured_max, "C1-^", label="its largest error in the runs")
    ax.set_xscale("log")
    ax.set_xlabel("number of bins k")
    ax.set_ylabel("largest count error")
    ax.set_title(f"Histograms at ε = {eps:g}: lower bound and the Laplace mechanism")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def tracing_widget():
    """Sliders for n and ε, redrawing :func:`plot_tracing_roc` (4 x 4 = 16 settings, each drawn at build time)."""
    from .explorer import explorer

    return explorer(plot_tracing_roc,
                    {"n": ("people n", (25, 100, 400, 1600), 100),
                     "epsilon": ("ε", (1.0, 4.0, 16.0, 64.0), 1.0)},
                    alt="ROC curves of the tracing attack on exact means and on a Gaussian release of 1000 "
                        "attribute means, with the cap e^ε FPR + δ that every (ε, δ)-DP release obeys",
                    d=1000, delta=1e-5)
