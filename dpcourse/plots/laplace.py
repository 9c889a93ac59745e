"""Figures of the chapter "Sensitivity and the Laplace mechanism"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import (
    as_rng,
    check_bounds,
    check_epsilon,
    check_label_column,
    check_positive_int,
    check_real,
    check_real_array,
    check_sensitivity,
    check_size,
)
from ..laplace import dp_mean, laplace_max_error_tail, laplace_mechanism, laplace_tail

__all__ = [
    "plot_sensitivity_by_hand",
    "plot_laplace_panel",
    "plot_laplace_density",
    "plot_laplace_sampling",
    "plot_laplace_tail",
    "plot_neighbour_densities",
    "neighbour_densities_explorer",
    "neighbour_densities_widget",
    "plot_tails",
    "mean_rmse",
    "plot_mean_rmse",
]


def plot_sensitivity_by_hand(masses, species, index, new_mass, new_species, *, target="Gentoo", lower=2000.0,
                             upper=7000.0, unit="g"):
    """Sensitivity by hand: replace one of a few penguins and see how far a count and a mean move.

    Left: the records of a dataset x (top row) and of its neighbour x', the same records with the one at
    ``index`` replaced by (``new_mass``, ``new_species``) (bottom row). Filled markers satisfy the predicate
    ``species == target``; each row states its count, which one replacement moves by at most 1 (lemma
    ``lem-counting-sensitivity``). Right: the same records by mass, with the public bounds ``[lower, upper]``
    dashed and each row's clamped mean marked. The bracket under x' spans every mean that replacing that record
    by any value in the bounds can give: its width ``(upper - lower) / n`` is the sensitivity of the clamped
    mean (theorem ``thm-laplace-mean``).
    """
    x = check_real_array(masses, "masses", ndim=1)
    labels = [str(v) for v in check_label_column(species, "species")]
    if len(labels) != x.size:
        raise ValueError(f"species must have one label per mass ({x.size}), got {len(labels)}")
    n = x.size
    if n > 12:
        raise ValueError(f"masses must hold at most 12 records (a picture drawn by hand), got {n}")
    i = check_positive_int(index, "index", minimum=0)
    if i >= n:
        raise ValueError(f"index must lie in [0, {n - 1}], got {i}")
    new_x = check_real(new_mass, "new_mass")
    new_label = str(check_label_column([new_species], "new_species")[0])
    target = str(check_label_column([target], "target")[0])
    lo, hi = check_bounds(lower, upper)
    x2 = x.copy()
    x2[i] = new_x
    labels2 = labels.copy()
    labels2[i] = new_label
    rows = [("x", x, labels, 1.0), ("x'", x2, labels2, 0.0)]
    counts = [sum(lab == target for lab in labs) for _, _, labs, _ in rows]
    means = [float(np.clip(v, lo, hi).mean()) for _, v, _, _ in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.4), gridspec_kw={"width_ratios": [1, 1]})

    def marker(hit):
        return {"mfc": "tab:green" if hit else "white", "mec": "tab:green" if hit else "grey", "mew": 2}

    step = 1.5  # room for a species name under each marker
    for name, vals, labs, y in rows:
        for j, (v, lab) in enumerate(zip(vals, labs)):
            left.plot(j * step, y, "o", ms=16, **marker(lab == target))
            left.annotate(lab, (j * step, y), xytext=(0, -16), textcoords="offset points", ha="center", va="top")
            right.plot(v, y, "o", ms=10, **marker(lab == target))
        left.annotate(name, (-1.0, y), ha="right", va="center")
        left.annotate(f"{counts[int(y == 0)]} {target}", ((n - 1) * step + 0.8, y), ha="left", va="center")
    left.annotate("", xy=(i * step - 0.55, 0.1), xytext=(i * step - 0.55, 0.9),
                  arrowprops={"arrowstyle": "->", "color": "tab:red", "lw": 2})
    left.set_xlim(-1.8, (n - 1) * step + 3.2)
    left.set_ylim(-0.75, 1.35)
    left.set_axis_off()
    left.set_title(f"count of {target}: moves by {abs(counts[1] - counts[0])}, never more")

    rest = float(np.clip(np.delete(x, i), lo, hi).sum())
    span = ((rest + lo) / n, (rest + hi) / n)
    for (name, _, _, y), mean in zip(rows, means):
        right.plot(mean, y + 0.3, "v", color="k", ms=10)
        right.annotate(f"mean {mean:.0f}", (mean, y + 0.42), ha="center", va="bottom")
        right.annotate(name, (lo - 0.04 * (hi - lo), y), ha="right", va="center")
    right.annotate("", xy=(x2[i], 0.12), xytext=(x[i], 0.88),
                   arrowprops={"arrowstyle": "->", "color": "tab:red", "lw": 1.5})
    right.plot(span, (-0.45, -0.45), color="tab:red", lw=2, marker="|", ms=12)
    right.annotate(f"means x' can have: (u - l)/n = {(hi - lo) / n:.0f} {unit} wide",
                   ((span[0] + span[1]) / 2, -0.6), ha="center", va="top", color="tab:red")
    for b in (lo, hi):
        right.axvline(b, color="grey", ls="--", lw=1)
    right.set_xlim(lo - 0.12 * (hi - lo), hi + 0.05 * (hi - lo))
    right.set_ylim(-1.15, 1.85)
    right.set_yticks([])
    right.set_xlabel(f"body mass ({unit}); dashed: the bounds {lo:g} and {hi:g}")
    right.set_title(f"mean: moves by {abs(means[1] - means[0]):.0f} {unit} here, at most {(hi - lo) / n:.0f} {unit}")
    fig.tight_layout()
    return fig


def _laplace_draws(b, n_draws, gen):
    """``n_draws`` draws of the noise :func:`dpcourse.laplace_mechanism` adds at scale b (applied to 0)."""
    return laplace_mechanism(np.zeros(n_draws), b, 1.0, rng=gen)


def _draw_density(ax, dist, b, draws):
    z = np.linspace(-6 * b, 6 * b, 601)
    ax.hist(draws, bins=np.linspace(-6 * b, 6 * b, 61), density=True, alpha=0.6, label=f"{draws.size} draws")
    ax.plot(z, dist.pdf(z), "k", lw=1, label=r"density $\frac{1}{2b}e^{-|z|/b}$")
    ax.set_xlabel("noise z")
    ax.legend(fontsize="small")


def _draw_cdf(ax, dist, b):
    z = np.linspace(-6 * b, 6 * b, 601)
    ax.plot(z, dist.cdf(z))
    ax.set_title("CDF F(z)")
    ax.set_xlabel("z")


def _draw_inverse_cdf(ax, dist):
    u = np.linspace(1e-4, 1 - 1e-4, 600)
    ax.plot(u, dist.ppf(u))
    ax.set_title(r"inverse CDF $F^{-1}(u)$")
    ax.set_xlabel("u")


def _draw_inverse_transform(ax, dist, b, uniforms):
    z = np.linspace(-6 * b, 6 * b, 601)
    ax.plot(z, dist.cdf(z), color="tab:blue")
    for ui in uniforms:
        zi = dist.ppf(ui)
        ax.plot([z[0], zi, zi], [ui, ui, 0.0], color="tab:orange", lw=0.8)
    ax.plot(np.full(uniforms.size, z[0]), uniforms, "o", color="tab:orange", ms=4, label="uniforms U")
    ax.plot(dist.ppf(uniforms), np.zeros(uniforms.size), "x", color="tab:red", label=r"$F^{-1}(U)$")
    ax.set_title("inverse-transform sampling")
    ax.set_xlabel("z")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0.0, 0.9))


def _draw_tail(ax, b, draws):
    from scipy import stats

    t = np.linspace(0, 6 * b, 300)
    ax.semilogy(t, stats.expon(scale=b).pdf(t), label=r"density of $|Z|$: $e^{-t/b}/b$")
    ax.semilogy(t, laplace_tail(t, b), "--", label=r"$P(|Z|\geq t)=e^{-t/b}$")
    emp = 1.0 - np.searchsorted(np.sort(np.abs(draws)), t, side="left") / draws.size
    ax.semilogy(t[emp > 0], emp[emp > 0], ":", color="k", label=f"empirical, {draws.size} draws")
    ax.set_xlabel("t")
    ax.legend(fontsize="small")


def plot_laplace_panel(scale=1.0, *, n_draws=20_000, rng=None):
    """The Laplace(0, b) distribution in six panels (3 x 2).

    Density; CDF; inverse CDF; histogram of ``n_draws`` draws of :func:`dpcourse.laplace_mechanism`
    applied to 0 (sensitivity b, epsilon 1) against the density; inverse-transform sampling (uniforms on
    the vertical axis mapped through the CDF to the horizontal axis); the exponential law of |Z| and its
    survivor function ``exp(-t/b)``, the Laplace tail (lemma ``lem-laplace-tail``), with the empirical
    survivor function of the draws. The chapter shows these one idea at a time:
    :func:`plot_laplace_density`, :func:`plot_laplace_sampling` and :func:`plot_laplace_tail`.
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    b = check_sensitivity(scale, "scale")
    n_draws = check_positive_int(n_draws, "n_draws")
    gen = as_rng(rng)
    dist = stats.laplace(scale=b)
    z = np.linspace(-6 * b, 6 * b, 601)
    draws = _laplace_draws(b, n_draws, gen)
    fig, axes = plt.subplots(3, 2, figsize=(10, 10))
    (a_pdf, a_cdf), (a_inv, a_hist), (a_its, a_tail) = axes

    a_pdf.plot(z, dist.pdf(z))
    a_pdf.set_title(r"density $\frac{1}{2b}e^{-|z|/b}$")
    a_pdf.set_xlabel("z")
    _draw_cdf(a_cdf, dist, b)
    _draw_inverse_cdf(a_inv, dist)
    _draw_density(a_hist, dist, b, draws)
    a_hist.set_title("histogram of laplace_mechanism(0, b, 1)")
    _draw_inverse_transform(a_its, dist, b, gen.uniform(size=12))
    _draw_tail(a_tail, b, draws)
    a_tail.set_title("the tail: |Z| is exponential")
    fig.suptitle(f"Laplace(0, b = {b:g})")
    fig.tight_layout()
    return fig


def plot_laplace_density(scale=1.0, *, n_draws=20_000, rng=None):
    """The Laplace density of scale b, with a histogram of the noise the Laplace mechanism adds.

    The density ``exp(-|z|/b) / (2b)`` (definition ``def-laplace``) and a histogram of ``n_draws`` draws of
    :func:`dpcourse.laplace_mechanism` applied to 0 with sensitivity b and epsilon 1, so that the noise has
    scale b. The dotted lines at +-b mark the mean distance of the noise from 0.
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    b = check_sensitivity(scale, "scale")
    n_draws = check_positive_int(n_draws, "n_draws")
    dist = stats.laplace(scale=b)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    _draw_density(ax, dist, b, _laplace_draws(b, n_draws, as_rng(rng)))
    for s in (-b, b):
        ax.axvline(s, color="grey", ls=":", lw=1)
    ax.set_title(f"Laplace noise of scale b = {b:g}: a peak at 0, tails falling like $e^{{-|z|/b}}$")
    fig.tight_layout()
    return fig


def plot_laplace_sampling(scale=1.0, *, n_uniforms=12, rng=None):
    """How uniform numbers become Laplace noise: the CDF, its inverse, and inverse-transform sampling.

    Left: the CDF F of Laplace(0, b). Middle: its inverse. Right: ``n_uniforms`` uniform numbers U on the
    vertical axis, carried across to the CDF and down to ``F^{-1}(U)``, a Laplace draw (the textbook
    sampler; :func:`dpcourse.laplace_mechanism` samples exactly instead).
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    b = check_sensitivity(scale, "scale")
    n_uniforms = check_size(n_uniforms, "n_uniforms", cap=1000)
    dist = stats.laplace(scale=b)
    fig, (a_cdf, a_inv, a_its) = plt.subplots(1, 3, figsize=(13, 3.6))
    _draw_cdf(a_cdf, dist, b)
    _draw_inverse_cdf(a_inv, dist)
    _draw_inverse_transform(a_its, dist, b, as_rng(rng).uniform(size=n_uniforms))
    fig.tight_layout()
    return fig


def plot_laplace_tail(scale=1.0, *, n_draws=20_000, rng=None):
    """The tail of Laplace noise: the chance that its size exceeds t is e^(-t/b), a straight line on a log axis.

    The density of |Z| and its survivor function ``P(|Z| >= t) = exp(-t/b)`` (lemma ``lem-laplace-tail``),
    with the empirical survivor function of ``n_draws`` draws of :func:`dpcourse.laplace_mechanism`.
    """
    b = check_sensitivity(scale, "scale")
    n_draws = check_positive_int(n_draws, "n_draws")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    _draw_tail(ax, b, _laplace_draws(b, n_draws, as_rng(rng)))
    ax.set_title(rf"$|Z|$ is exponential: $P(|Z| \geq t) = e^{{-t/b}}$, b = {b:g}")
    fig.tight_layout()
    return fig


def plot_neighbour_densities(fx=0.0, fx_prime=1.0, sensitivity=1.0, epsilon=1.0, z=1.3):
    """Output densities of the Laplace mechanism on f(x) and f(x'), and their log ratio.

    Left: the two densities, with the point ``z`` marked and the ratio of the densities there in the
    title. Right: ``ln(p_x(z) / p_x'(z))`` against z, with the lines +-epsilon * |f(x) - f(x')| / sensitivity
    that theorem ``thm-laplace-privacy`` proves it never crosses.
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    a = check_real(fx, "fx")
    a2 = check_real(fx_prime, "fx_prime")
    d = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    z0 = check_real(z, "z")
    b = d / eps
    lo, hi = min(a, a2, z0) - 5 * b, max(a, a2, z0) + 5 * b
    grid = np.linspace(lo, hi, 801)
    px, py = stats.laplace(a, b), stats.laplace(a2, b)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    ax1.plot(grid, px.pdf(grid), label=f"M(x): centre f(x) = {a:g}")
    ax1.plot(grid, py.pdf(grid), label=f"M(x'): centre f(x') = {a2:g}")
    # the mark at z ends at the curves, so that the legend can sit above it
    ax1.vlines(z0, 0, 1.05 * float(max(px.pdf(a), py.pdf(a2))), color="grey", ls=":", lw=1)
    ratio = float(np.exp(px.logpdf(z0) - py.logpdf(z0)))
    ax1.set_title(f"ratio of densities at z = {z0:g}: {ratio:.3f}  (e^eps = {np.exp(eps):.3f})")
    ax1.set_xlabel("output z")
    ax1.legend(fontsize="small")
    loss = px.logpdf(grid) - py.logpdf(grid)
    bound = eps * abs(a - a2) / d
    ax2.plot(grid, loss, color="tab:purple")
    for s in (bound, -bound):
        ax2.axhline(s, ls="--", color="k", lw=1)
    ax2.axvline(z0, color="grey", ls=":", lw=1)
    ax2.set_xlabel("output z")
    ax2.set_ylabel(r"$\ln(p_x(z)/p_{x'}(z))$")
    ax2.set_title(rf"privacy loss, within $\pm${bound:.3g}")
    fig.tight_layout()
    return fig


def neighbour_densities_explorer():
    """Sliders for epsilon, the sensitivity, f(x') and the point z, redrawing :func:`plot_neighbour_densities`
    (an explorer: live in Jupyter, every setting drawn at build time in the static book)."""
    from .explorer import explorer

    return explorer(plot_neighbour_densities,
                    {"epsilon": ("epsilon", (0.5, 1.0, 2.0), 1.0),
                     "sensitivity": ("sensitivity", (1.0, 2.0), 1.0),
                     "fx_prime": ("f(x')", (-1.0, 0.5, 1.0, 2.0), 1.0),
                     "z": ("z", (-0.5, 1.3), 1.3)},
                    alt="Laplace output densities on two neighbours and their log ratio",
                    fx=0.0)


def neighbour_densities_widget():
    """The live ipywidgets form of :func:`neighbour_densities_explorer`."""
    return neighbour_densities_explorer().widget()


def plot_tails(scale=1.0, k=20, *, n_trials=100_000, rng=None):
    """Empirical tails of Laplace noise beside their exact values and the union bound.

    Left: ``P(|Z| >= t b)`` for one Laplace(0, b) draw against the exact ``e^-t`` (lemma
    ``lem-laplace-tail``). Right: ``P(max_i |Z_i| >= s)`` over k independent coordinates against its
    exact value and the union bound ``k e^(-s/b)`` (theorem ``thm-laplace-max-error``).
    The noise comes from :func:`dpcourse.laplace_mechanism` applied to an array of zeros.
    """
    b = check_sensitivity(scale, "scale")
    k = check_positive_int(k, "k")
    n_trials = check_positive_int(n_trials, "n_trials")
    gen = as_rng(rng)
    one = np.abs(laplace_mechanism(np.zeros(n_trials), b, 1.0, rng=gen))
    many = np.abs(laplace_mechanism(np.zeros((max(n_trials // k, 1), k)), b, 1.0, rng=gen)).max(axis=1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    t = np.linspace(0, 10, 200)
    emp1 = 1.0 - np.searchsorted(np.sort(one), t * b, side="left") / one.size
    ax1.semilogy(t, np.exp(-t), "k--", label=r"exact $e^{-t}$")
    ax1.semilogy(t[emp1 > 0], emp1[emp1 > 0], label=f"empirical, {one.size} draws")
    ax1.set_xlabel("t")
    ax1.set_ylabel(r"$P(|Z| \geq t\,b)$")
    ax1.set_title("one coordinate")
    ax1.legend(fontsize="small")
    s = np.linspace(0, (np.log(k) + 8) * b, 200)
    emp = 1.0 - np.searchsorted(np.sort(many), s, side="left") / many.size
    ax2.semilogy(s, np.minimum(k * laplace_tail(s, b), 1.0), ":", color="tab:red", label=r"union bound $k e^{-s/b}$")
    ax2.semilogy(s, laplace_max_error_tail(s, k, b), "k--", label="exact")
    ax2.semilogy(s[emp > 0], emp[emp > 0], label=f"empirical, {many.size} trials")
    ax2.set_xlabel("s")
    ax2.set_ylabel(r"$P(\max_i |Z_i| \geq s)$")
    ax2.set_title(f"largest of k = {k} coordinates (b = {b:g})")
    ax2.legend(fontsize="small")
    fig.tight_layout()
    return fig


def mean_rmse(population, lower, upper, ns, epsilons, *, n_trials=200, rng=None):
    """Root-mean-square error of :func:`dpcourse.dp_mean` as an estimate of a population mean.

    For each sample size n and each epsilon, draws ``n_trials`` samples of n values with replacement from
    ``population``, releases ``dp_mean(sample, lower, upper, epsilon)``, and measures the RMSE against the
    population mean. Returns ``(rmse, sampling_se)``: an array of shape (len(epsilons), len(ns)) and the
    standard error ``sigma / sqrt(n)`` of the (non-private) sample mean for each n.
    """
    pop = check_real_array(population, "population", ndim=1)
    lo, hi = check_bounds(lower, upper)
    n_list = [check_positive_int(n, "n") for n in ns]
    eps_list = [check_epsilon(e) for e in epsilons]
    n_trials = check_positive_int(n_trials, "n_trials")
    gen = as_rng(rng)
    truth = pop.mean()
    rmse = np.empty((len(eps_list), len(n_list)))
    for j, n in enumerate(n_list):
        samples = gen.choice(pop, size=(n_trials, n), replace=True)
        for i, eps in enumerate(eps_list):
            releases = np.array([dp_mean(s, lo, hi, eps, rng=gen) for s in samples])
            rmse[i, j] = np.sqrt(np.mean((releases - truth) ** 2))
    se = pop.std() / np.sqrt(np.asarray(n_list, dtype=float))
    return rmse, se


def plot_mean_rmse(ns, epsilons, rmse, sampling_se, *, lower, upper, unit=""):
    """Log-log plot of the RMSE table from :func:`mean_rmse`, one line per epsilon.

    Dotted lines: the Laplace noise alone, ``sqrt(2) (upper - lower) / (n epsilon)``; dashed black: the
    sampling standard error ``sigma / sqrt(n)`` that even an exact mean has. The y axis spans the drawn
    values (a factor 2 either side), so no decade is left empty; the legend sits below the axes, off the lines.
    """
    lo, hi = check_bounds(lower, upper)
    ns = np.asarray(ns, dtype=float)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = [np.asarray(sampling_se, dtype=float)]
    for eps, row in zip(epsilons, rmse):
        noise = np.sqrt(2) * (hi - lo) / (ns * eps)
        line, = ax.loglog(ns, row, "o-", label=f"RMSE, ε = {eps:g}")
        ax.loglog(ns, noise, ":", color=line.get_color())
        drawn += [np.asarray(row, dtype=float), noise]
    ax.loglog(ns, sampling_se, "k--", label=r"sampling s.e. $\sigma/\sqrt{n}$")
    values = np.concatenate([np.ravel(v) for v in drawn])
    values = values[np.isfinite(values) & (values > 0)]
    if values.size:  # the y axis spans the drawn values, a factor 2 either side, and no more
        ax.set_ylim(values.min() / 2, values.max() * 2)
    ax.set_xlabel("sample size n")
    ax.set_ylabel(f"RMSE {unit}".strip())
    ax.set_title("error of the private mean (dotted: noise alone)")
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)  # below: off the lines
    fig.tight_layout()
    return fig
