"""Figures (and one goodness-of-fit helper) of the chapter "Noise on a real computer"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import (check_delta, check_epsilon, check_positive_int, check_real, check_real_array,
                           check_sensitivity)
from ..discrete import discrete_gaussian_delta, discrete_laplace_pmf
from ..lattice import laplace_lattice
from ..float_attack import textbook_reachable
from ..gaussian import gaussian_delta
from ..optimal_noise import l2_error_comparison

__all__ = [
    "pmf_chi_square",
    "plot_reachable_window",
    "plot_geometric_neighbours",
    "plot_noisy_histogram",
    "plot_pmf_check",
    "plot_lattice_cost",
    "plot_lattice_release",
    "lattice_widget",
    "plot_discrete_gaussian_delta",
    "plot_noise_dimension",
]


def pmf_chi_square(samples, pmf, *, min_expected=5.0):
    """Pearson chi-square test of integer ``samples`` against an exact pmf on Z.

    The support is cut to the central run of integers k whose expected count ``n pmf(k)`` is at least
    ``min_expected``; everything left of it is pooled into one cell, everything right into another, so
    every cell's expectation is at least about ``min_expected`` and the probabilities sum to 1 exactly.

    Parameters
    ----------
    samples : array_like of ints
    pmf : callable
        ``pmf(k)`` for an int64 array k, the exact probabilities.

    Returns
    -------
    (statistic, degrees_of_freedom, p_value)

    Examples
    --------
    >>> from dpcourse import discrete_laplace, discrete_laplace_pmf
    >>> x = discrete_laplace(2, size=20_000, rng=0)
    >>> chi2, dof, p = pmf_chi_square(x, lambda k: discrete_laplace_pmf(k, 2))
    >>> p > 1e-6
    True
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    x = np.asarray(samples)
    if x.dtype.kind not in "iu" or x.ndim != 1 or x.size < 100:
        raise ValueError("samples must be a 1-d array of at least 100 integers")
    n = x.size
    centre = int(np.median(x))
    lo = hi = centre
    while n * float(pmf(np.array([lo - 1]))[0]) >= min_expected:
        lo -= 1
    while n * float(pmf(np.array([hi + 1]))[0]) >= min_expected:
        hi += 1
    k = np.arange(lo, hi + 1)
    p_mid = np.asarray(pmf(k), dtype=float)
    # tails: the pmf is summed far enough that what is left is below 1e-15 of a cell
    left = np.arange(lo - 1, lo - 1 - 100 * (hi - lo + 10), -1)
    right = np.arange(hi + 1, hi + 1 + 100 * (hi - lo + 10))
    probs = np.r_[np.asarray(pmf(left)).sum(), p_mid, np.asarray(pmf(right)).sum()]
    inside = x[(x >= lo) & (x <= hi)]
    observed = np.r_[(x < lo).sum(), np.bincount(inside - lo, minlength=k.size), (x > hi).sum()]
    expected = n * probs / probs.sum()
    keep = expected > 0
    statistic = float(((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum())
    dof = int(keep.sum()) - 1
    return statistic, dof, float(stats.chi2.sf(statistic, dof))


def plot_reachable_window(value=0.0, neighbour=1.0, start=0.3, n_doubles=60, *, sensitivity=1.0, epsilon=1.0):
    """Which of ``n_doubles`` consecutive doubles from ``start`` the textbook sampler can output from each input.

    One row per input (``value`` and ``neighbour``), a mark at every double reachable from that input
    (exact, :func:`dpcourse.float_attack.textbook_reachable`); doubles reachable from one input only are
    the outputs that reveal it. Returns the figure and the two boolean arrays.
    """
    a = check_real(value, "value")
    b = check_real(neighbour, "neighbour")
    x0 = check_real(start, "start")
    m = check_positive_int(n_doubles, "n_doubles")
    grid = np.empty(m)
    grid[0] = x0
    for i in range(1, m):
        grid[i] = np.nextafter(grid[i - 1], np.inf)
    from_a = textbook_reachable(grid, a, sensitivity, epsilon)
    from_b = textbook_reachable(grid, b, sensitivity, epsilon)
    fig, ax = plt.subplots(figsize=(9, 2.4))
    idx = np.arange(m)
    ax.plot(idx[from_a], np.ones(from_a.sum()), "|", ms=18, mew=2, color="C0")
    ax.plot(idx[from_b], np.zeros(from_b.sum()), "|", ms=18, mew=2, color="C1")
    ax.set_yticks([0, 1], [f"possible from {b:g}", f"possible from {a:g}"])
    ax.set_ylim(-0.6, 1.6)
    ax.set_xlim(-1, m)
    ax.set_xlabel(f"consecutive doubles from {x0!r} (index)")
    ax.set_title("outputs the textbook Laplace sampler can produce, input by input")
    fig.tight_layout()
    return fig, from_a, from_b


def _integer(value, name):
    """``value`` as a Python int: a real number that is a whole number (a count), within +-2**52."""
    v = check_real(value, name, low=-2.0**52, high=2.0**52)
    if v != math.floor(v):
        raise ValueError(f"{name} must be a whole number (a count), got {value!r}")
    return int(v)


def plot_geometric_neighbours(value=42, neighbour=43, epsilon=1.0, sensitivity=1, *, width=6):
    """The geometric mechanism on two neighbouring counts: every integer is a possible output of both, and their
    probabilities differ by a factor of at most e^ε.

    Top: the exact probabilities of the outputs ``value + K`` and ``neighbour + K`` with K discrete Laplace
    of scale ``sensitivity / epsilon`` (:func:`dpcourse.discrete_laplace_pmf`), for the integers within
    ``width`` noise scales of the two counts. Bottom: the privacy loss ``ln(P[value + K = y] / P[neighbour
    + K = y])`` of each output y, which stays between -epsilon and +epsilon (dashed) and reaches them on
    either side of the two counts (theorem ``thm-geometric-privacy``).
    """
    a = _integer(value, "value")
    b = _integer(neighbour, "neighbour")
    eps = check_epsilon(epsilon)
    sens = check_positive_int(sensitivity, "sensitivity")
    if abs(a - b) > sens:
        raise ValueError(f"|value - neighbour| = {abs(a - b)} exceeds the sensitivity {sens}: not neighbours")
    w = check_real(width, "width", low=1.0, high=50.0)
    scale = sens / eps
    reach = math.ceil(w * scale)
    if reach > 2000:
        raise ValueError("the noise scale is too large to draw every integer; use a larger epsilon or width")
    k = np.arange(min(a, b) - reach, max(a, b) + reach + 1)
    pa = discrete_laplace_pmf(k - a, scale)
    pb = discrete_laplace_pmf(k - b, scale)
    loss = (np.abs(k - b) - np.abs(k - a)) / scale          # exact: the normalising constants cancel
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    top.vlines(k - 0.15, 0, pa, lw=3, color="C0", label=f"count {a}")
    top.vlines(k + 0.15, 0, pb, lw=3, color="C1", label=f"count {b}")
    top.set_ylabel("probability")
    top.set_title(f"geometric mechanism, ε = {eps:g}: integer noise of scale {scale:g}")
    top.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    bottom.plot(k, loss, "o", ms=3, color="k")
    for s in (eps, -eps):
        bottom.axhline(s, color="grey", ls="--", lw=0.8)
    bottom.set_ylim(-1.6 * eps, 1.6 * eps)
    bottom.set_ylabel("privacy loss")
    bottom.set_xlabel("released value")
    fig.tight_layout()
    return fig


def _noise_half_width(scale, coverage):
    """The smallest integer h with P[|K| <= h] >= coverage for K ~ DLap(scale): 2 p^(h+1) / (1 + p) <= 1 - coverage."""
    p = math.exp(-1.0 / scale)
    h = 0
    while 2 * p ** (h + 1) / (1 + p) > 1 - coverage:
        h += 1
    return h


def plot_noisy_histogram(categories, exact, released, scale, *, coverage=0.95):
    """Exact and released counts of each category, with whiskers where a release lands at least 95 % of the time.

    Bars: the ``exact`` counts. Dots: the ``released`` counts (for instance :func:`dpcourse.dp_histogram`).
    Whiskers: ``exact +- h``, where ``h`` is the smallest integer with ``P[|K| <= h] >= coverage`` for K
    discrete Laplace of scale ``scale`` (definition ``def-discrete-laplace``; computed exactly from
    ``P[|K| > h] = 2 p^(h+1) / (1 + p)``, ``p = e^(-1/scale)``): a release outside them happens with
    probability at most ``1 - coverage`` per category.
    """
    names = [str(c) for c in categories]
    ex = check_real_array(exact, "exact", ndim=1)
    rel = check_real_array(released, "released", ndim=1)
    if not 1 <= len(names) <= 40 or ex.size != len(names) or rel.size != len(names):
        raise ValueError(f"categories, exact and released must have the same length, 1 to 40, got "
                         f"{len(names)}, {ex.size} and {rel.size}")
    b = check_real(scale, "scale", low=0.0, low_open=True, high=1e6)
    cov = check_real(coverage, "coverage", low=0.5, high=1.0, high_open=True)
    h = _noise_half_width(b, cov)
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.bar(x, ex, width=0.55, color="0.8", label="exact count")
    ax.errorbar(x, ex, yerr=h, fmt="none", ecolor="0.3", capsize=8, lw=1,
                label=f"exact ± {h}: at least {cov:.0%}\nof releases land here")
    ax.plot(x, rel, "o", color="C0", ms=8, label="released count")
    ax.set_xticks(x, names)
    ax.set_ylabel("count")
    ax.set_title(f"discrete Laplace noise of scale {b:g}")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def plot_pmf_check(samples, pmf, *, title="", ax=None):
    """Empirical frequencies of integer ``samples`` against the exact ``pmf`` (log scale), with the chi-square p."""
    x = np.asarray(samples)
    chi2, dof, p = pmf_chi_square(x, pmf)
    k, counts = np.unique(x, return_counts=True)
    if ax is None:
        fig, ax = plt.subplots(figsize=(5, 3.2))
    else:
        fig = ax.figure
    grid = np.arange(k.min(), k.max() + 1)
    ax.semilogy(grid, pmf(grid), "-", color="k", lw=1, label="exact pmf")
    ax.semilogy(k, counts / x.size, ".", ms=4, label="frequency")
    ax.set_title(f"{title}\nchi2 = {chi2:.1f} on {dof} dof, p = {p:.2f}", fontsize=9)
    ax.set_xlabel("k")
    ax.legend(fontsize=8)
    return fig


def plot_lattice_cost(sensitivity=1.0, epsilon=1.0, *, exponents=range(-12, 3), dims=(1, 10, 100)):
    """Noise scale of the lattice release relative to ``sensitivity / epsilon``, against the spacing g = 2^k.

    For each ``dim`` the ratio is ``laplace_lattice(sensitivity, epsilon, dim=dim, spacing=g).noise_scale``
    divided by ``sensitivity / epsilon``: ``g (floor(Delta/g) + dim) / Delta`` up to the dyadic round-up
    (theorem ``thm-lattice-laplace``), which tends to 1 as g shrinks. The default spacing of
    :func:`dpcourse.laplace_mechanism` (about 2^-20 Delta / dim) is marked.
    """
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    ks = np.array(list(exponents))
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for i, d in enumerate(dims):
        ratio = [laplace_lattice(sens, eps, dim=d, spacing=2.0 ** int(k)).noise_scale / (sens / eps) for k in ks]
        ax.semilogy(ks, ratio, "o-", ms=3, color=f"C{i}", label=f"dim = {d}")
        k_default = laplace_lattice(sens, eps, dim=d).exponent
        if ks.min() <= k_default <= ks.max():
            ax.axvline(k_default, color=f"C{i}", ls=":", lw=1, label=f"default g for dim = {d}")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel(r"$\log_2$ of the lattice spacing g")
    ax.set_ylabel(r"noise scale / $(\Delta/\varepsilon)$")
    ax.set_title(f"cost of charging the rounding (sensitivity {sens:g}, epsilon {eps:g})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_lattice_release(x=0.3, x_prime=1.3, sensitivity=1.0, epsilon=1.0, exponent=-2, *, width=4.0):
    """Output distributions of the lattice release on x and x' (spacing 2^exponent) and their privacy loss.

    Top: the exact probabilities of every lattice output in ``[x - width, x' + width]`` under both
    inputs (each a shifted discrete Laplace of scale ``lattice_scale``, :func:`dpcourse.laplace_lattice`
    with the forced spacing). Bottom: the privacy loss at each output, within +-epsilon
    (theorem ``thm-lattice-laplace``). The title gives the lattice sensitivity and the noise scale.
    """
    a = check_real(x, "x")
    b = check_real(x_prime, "x_prime")
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    if abs(a - b) > sens:
        raise ValueError(f"|x - x'| = {abs(a - b):g} exceeds the sensitivity {sens:g}: not neighbours")
    lat = laplace_lattice(sens, eps, spacing=2.0 ** int(exponent))
    g = lat.spacing
    ra, rb = round(a / g), round(b / g)
    k = np.arange(math.floor(min(a, b) / g - width * lat.noise_scale / g),
                  math.ceil(max(a, b) / g + width * lat.noise_scale / g) + 1)
    if k.size > 4000:
        raise ValueError("the lattice is too fine to draw every point; use a larger exponent")
    pa = discrete_laplace_pmf(k - ra, lat.lattice_scale)
    pb = discrete_laplace_pmf(k - rb, lat.lattice_scale)
    loss = (np.abs(k - rb) - np.abs(k - ra)) / float(lat.lattice_scale)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    top.vlines(k * g - g / 8, 0, pa, lw=2, label=f"output of x = {a:g}")
    top.vlines(k * g + g / 8, 0, pb, lw=2, color="C1", label=f"output of x' = {b:g}")
    top.set_ylabel("probability")
    top.legend(fontsize=8)
    top.set_title(f"g = 2^{lat.exponent}: rounded to {ra * g:g} and {rb * g:g}; charged sensitivity "
                  f"{lat.lattice_sensitivity} steps, noise scale {lat.noise_scale:.3g} "
                  f"(vs {sens / eps:.3g})", fontsize=9)
    bottom.plot(k * g, loss, ".", ms=4)
    for s in (eps, -eps):
        bottom.axhline(s, color="k", ls="--", lw=0.8)
    bottom.set_ylabel("privacy loss")
    bottom.set_xlabel("output")
    fig.tight_layout()
    return fig


def lattice_widget():
    """Sliders for epsilon and the lattice exponent, redrawing :func:`plot_lattice_release`.

    A :func:`dpcourse.plots.explorer.explorer`: live in Jupyter, and in the static book every setting
    is drawn at build time by the same function.
    """
    from .explorer import explorer

    return explorer(plot_lattice_release,
                    {"epsilon": ("epsilon", (0.25, 0.5, 1.0, 1.5, 2.0, 3.0), 1.0),
                     "exponent": ("log2 g", (-5, -4, -3, -2, -1, 0, 1), -2)},
                    alt="Output distributions of the lattice release on neighbouring inputs and their privacy loss",
                    x=0.3, x_prime=1.3, sensitivity=1.0)


def plot_discrete_gaussian_delta(sigma=2.0, sensitivity=1, *, epsilons=None):
    """delta(epsilon) of the discrete Gaussian (exact sum) and of the continuous Gaussian, same sigma."""
    s = check_sensitivity(sigma, "sigma")
    eps_grid = np.linspace(0.0, 3.0, 61) if epsilons is None else check_real_array(epsilons, "epsilons")
    disc = [discrete_gaussian_delta(e, s, sensitivity) for e in eps_grid]
    cont = [gaussian_delta(e, sensitivity / s) for e in eps_grid]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.semilogy(eps_grid, cont, label="continuous Gaussian")
    ax.semilogy(eps_grid, disc, "--", label="discrete Gaussian (exact sum)")
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.set_title(f"sigma = {s:g}, sensitivity {sensitivity}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_noise_dimension(epsilon=1.0, delta=1e-6, *, dims=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)):
    """RMS l2 error of Laplace, l2 K-norm and Gaussian noise against the dimension, for both sensitivity balls."""
    eps = check_epsilon(epsilon)
    dl = check_delta(delta, allow_zero=False)
    dims = np.array(list(dims))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, ball in zip(axes, ("l2", "l1")):
        rows = [l2_error_comparison(int(d), eps, dl, sensitivity_ball=ball) for d in dims]
        for key, label, colour in (("laplace", "Laplace (l1 sensitivity), eps-DP", "C0"),
                                   ("knorm", "K-norm, l2 ball, eps-DP", "C1"),
                                   ("gaussian", f"Gaussian, (eps, {dl:g})-DP", "C2")):
            if ball == "l1" and key == "knorm":
                continue
            ax.loglog(dims, [r[key] for r in rows], "o-", ms=3, color=colour, label=label)
        ax.set_title(f"sensitivity set: unit {ball} ball")
        ax.set_xlabel("dimension d")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("RMS l2 error")
    fig.tight_layout()
    return fig
