"""Figures of the chapters "Approximate differential privacy" and "The Gaussian mechanism"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_delta, check_epsilon, check_positive_int, check_real, check_sensitivity
from ..lattice import gaussian_lattice
from ..gaussian import (_classic_sigma_formula, analytic_gaussian_sigma, gaussian_delta, gaussian_epsilon,
                        gaussian_loss_tail)

__all__ = [
    "plot_density_ratio",
    "plot_hockey_stick_region",
    "plot_privacy_profiles",
    "plot_round_noise",
    "plot_noisy_counts",
    "plot_loss_tail",
    "loss_tail_widget",
    "plot_calibration",
    "calibration_widget",
    "plot_sigma_ratio",
    "plot_high_dim_error",
]


def plot_density_ratio(mu=1.0, epsilon=1.0):
    """Gaussian noise on two neighbouring answers: the two densities almost coincide, yet their ratio grows without bound.

    The horizontal axis is the output in standard deviations of the noise, counted from the answer on ``x'``
    (density ``q``, N(0, 1)); the answer on ``x`` is ``mu`` standard deviations larger (density ``p``,
    N(mu, 1)). Left: the two densities. Right: their ratio ``p/q = exp(mu z - mu^2/2)`` on a log axis, a
    straight line, against the dashed band ``e^-epsilon .. e^epsilon`` that epsilon-DP would need; right of
    ``z = mu/2 + epsilon/mu`` (dotted) the ratio exceeds ``e^epsilon``, so no epsilon holds for every output
    (the picture behind lemma ``lem-approx-hockey`` and theorem ``thm-gaussian-profile``).
    """
    m = check_real(mu, "mu", low=0.0, low_open=True, high=10.0)
    eps = check_real(epsilon, "epsilon", low=0.0, high=10.0)
    grid = np.linspace(-4.0, m + 6.0, 600)
    q = np.exp(-grid ** 2 / 2) / np.sqrt(2 * np.pi)
    p = np.exp(-(grid - m) ** 2 / 2) / np.sqrt(2 * np.pi)
    ratio = np.exp(m * grid - m * m / 2)
    border = m / 2 + eps / m
    xlabel = "output $z$ (in noise standard deviations)"
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    left.plot(grid, q, color="tab:orange", lw=1.5, label=r"$q$: density on $x'$")
    left.plot(grid, p, color="tab:blue", lw=1.5, label=r"$p$: density on $x$")
    left.set_ylim(0, 1.45 * float(np.max(p)))
    left.set_xlabel(xlabel)
    left.set_ylabel("density")
    left.set_title(rf"densities on two neighbours, $\mu$ = {m:g} apart")
    left.legend(fontsize=8, loc="upper left")
    right.semilogy(grid, ratio, color="k", lw=1.5, label=r"ratio $p/q = e^{\mu z - \mu^2/2}$")
    right.axhline(np.exp(eps), color="tab:red", ls="--", lw=1, label=rf"$e^{{\pm\varepsilon}}$, $\varepsilon$ = {eps:g}")
    right.axhline(np.exp(-eps), color="tab:red", ls="--", lw=1)
    right.axvline(border, color="grey", ls=":", lw=1, label=r"right of it, $p/q > e^{\varepsilon}$")
    right.set_xlim(grid[0], grid[-1])
    right.set_ylim(float(ratio[0]) / 3, float(ratio[-1]) * 3)
    right.set_xlabel(xlabel)
    right.set_ylabel("p / q (log scale)")
    right.set_title("their ratio: a line without bound")
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)  # below: the lines cross
    fig.tight_layout()
    return fig


def plot_hockey_stick_region(mu=1.0, epsilon=1.0):
    """Outputs of Gaussian noise on two neighbouring datasets: δ is the red area where p rises above e^ε q.

    The horizontal axis is the output in standard deviations of the noise, counted from the answer on
    ``x'``: its density ``q`` is N(0, 1), and the density ``p`` on ``x``, whose answer is ``mu`` standard
    deviations larger, is N(mu, 1). The dashed curve is ``e^epsilon q``. On the outputs right of
    ``mu/2 + epsilon/mu`` (dotted) the density ratio ``p/q`` exceeds ``e^epsilon``; the red area between ``p`` and
    ``e^epsilon q`` there, ``int (p - e^epsilon q)_+``, is the smallest delta for this pair (lemma
    ``lem-approx-hockey``), labelled with :func:`dpcourse.gaussian_delta` ``(epsilon, mu)`` (theorem
    ``thm-gaussian-profile``).
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    m = check_real(mu, "mu", low=0.0, low_open=True, high=10.0)
    eps = check_real(epsilon, "epsilon", low=0.0, high=10.0)
    border = m / 2 + eps / m
    grid = np.linspace(-3.5, max(m + 4.0, border + 2.5), 800)
    p, q = stats.norm.pdf(grid, m, 1.0), stats.norm.pdf(grid, 0.0, 1.0)
    scaled = np.exp(eps) * q
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(grid, q, color="tab:orange", lw=1.5, label=r"$q$: density on $x'$")
    ax.plot(grid, p, color="tab:blue", lw=1.5, label=r"$p$: density on $x$")
    ax.plot(grid, scaled, color="tab:orange", lw=1.2, ls="--", label=r"$e^{\varepsilon} q$")
    over = grid >= border
    ax.fill_between(grid[over], scaled[over], p[over], where=p[over] > scaled[over], color="tab:red", alpha=0.45,
                    label=rf"$\delta$ = red area = {gaussian_delta(eps, m):.3g}")
    top = 1.08 * float(np.max(np.r_[p, scaled]))
    ax.vlines(border, 0, top, color="grey", ls=":", lw=1)
    ax.annotate(r"here $p > e^{\varepsilon} q$ $\rightarrow$", (border, 0.92 * top), xytext=(4, 0),
                textcoords="offset points", fontsize=9, color="dimgrey")
    ax.set_ylim(0, 1.12 * top)
    ax.set_xlabel("output, in standard deviations of the noise (0 = the answer on $x'$)")
    ax.set_ylabel("density")
    ax.set_title(rf"two neighbours $\mu$ = {m:g} standard deviations apart, $\varepsilon$ = {eps:g}")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))  # beside the axes, off the curves
    fig.tight_layout()
    return fig


def plot_privacy_profiles(sigmas, *, sensitivity=1.0, n=None, eps_max=3.0):
    """Privacy profiles δ(ε) of Gaussian noise at several noise levels, with the line δ = 1/n for n people.

    One curve per noise standard deviation ``sigma`` in ``sigmas``: ``gaussian_delta(eps, sensitivity /
    sigma)`` (theorem ``thm-gaussian-profile``) for ``0 <= eps <= eps_max``, on a log scale. With ``n``,
    the dashed line ``1/n`` marks the delta at which publishing one random person's record in full is
    allowed (theorem ``thm-approx-random-record``): a useful delta lies far below it.
    """
    sens = check_sensitivity(sensitivity)
    hi = check_real(eps_max, "eps_max", low=0.0, low_open=True, high=100.0)
    ss = [check_real(s, "sigma", low=0.0, low_open=True) for s in np.atleast_1d(np.asarray(sigmas, dtype=float))]
    if not ss or len(ss) > 8:
        raise ValueError(f"sigmas must hold 1 to 8 noise levels, got {len(ss)}")
    people = None if n is None else check_positive_int(n, "n", minimum=2)
    grid = np.linspace(0.0, hi, 200)
    floor = 1e-12
    fig, ax = plt.subplots(figsize=(8, 4))
    for s in ss:
        ax.semilogy(grid, [max(gaussian_delta(e, sens / s), floor / 10) for e in grid], label=f"σ = {s:g}")
    if people is not None:
        ax.axhline(1 / people, color="k", ls="--", lw=1, label=f"δ = 1/n\n(n = {people})")
    ax.set_ylim(floor, 1.5)
    ax.set_xlim(0, hi)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"smallest $\delta$")
    ax.set_title(f"privacy profiles of Gaussian noise, Δ = {sens:g}")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))  # beside the axes: the curves fill them
    fig.tight_layout()
    return fig


def plot_round_noise(shift=(1.0, 1.0), sigma=1.0):
    """Gaussian noise is round: two neighbouring answers differ only along the line joining them, by
    their ℓ2 distance.

    Left: a query with two coordinates (say two counts that one person moves by ``shift``) answered
    ``(0, 0)`` on ``x'`` and ``shift`` on ``x``, with the circles inside which N(0, sigma^2 I) noise lands
    with probability 39 % and 86 % (radii sigma and 2 sigma) around each answer. The noise across the
    dotted line through the two answers has the same distribution on both datasets; along it, the answers
    are ``||shift||_2`` apart. Right: the two output densities along that line, in units of sigma: N(0, 1)
    and N(mu, 1) with ``mu = ||shift||_2 / sigma``, which is why only that ratio decides the privacy
    (lemma ``lem-gaussian-loss``).
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    v = np.asarray(shift, dtype=float)
    if v.shape != (2,) or not np.all(np.isfinite(v)) or not np.any(v != 0):
        raise ValueError(f"shift must be two finite numbers, not both 0, got {shift!r}")
    s = check_real(sigma, "sigma", low=0.0, low_open=True)
    l2, l1 = float(np.hypot(*v)), float(np.abs(v).sum())
    mu = l2 / s
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [1, 1.3]})
    angle = np.linspace(0, 2 * np.pi, 200)
    for centre, colour, name in [((0.0, 0.0), "tab:orange", "$x'$"), (tuple(v), "tab:blue", "$x$")]:
        for r, ls in [(s, "-"), (2 * s, "--")]:
            ax1.plot(centre[0] + r * np.cos(angle), centre[1] + r * np.sin(angle), color=colour, ls=ls, lw=1)
        ax1.plot(*centre, "o", color=colour)
        ax1.annotate(f"answer on {name}", centre, xytext=(6, -12), textcoords="offset points", fontsize=9,
                     color=colour)
    unit = v / l2
    ends = np.outer([-3.2 * s, l2 + 3.2 * s], unit)
    ax1.plot(ends[:, 0], ends[:, 1], ":", color="grey", lw=1)
    ax1.annotate("", xy=tuple(v), xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": "k", "lw": 1.2})
    ax1.set_aspect("equal")
    ax1.set_xlabel("first answer")
    ax1.set_ylabel("second answer")
    ax1.set_title(f"ℓ2 distance {l2:.3g} (ℓ1: {l1:.3g})")
    grid = np.linspace(-3.5, mu + 3.5, 500)
    ax2.plot(grid, stats.norm.pdf(grid), color="tab:orange", label="on $x'$")
    ax2.plot(grid, stats.norm.pdf(grid, mu), color="tab:blue", label="on $x$")
    ax2.annotate("", xy=(mu, 0.42), xytext=(0, 0.42), arrowprops={"arrowstyle": "<->", "color": "k", "lw": 1})
    ax2.text(mu / 2, 0.44, rf"$\mu = \Delta_2/\sigma$ = {mu:.3g}", ha="center", fontsize=9)
    ax2.set_ylim(0, 0.52)
    ax2.set_xlabel("output along the line, in units of σ")
    ax2.set_ylabel("density")
    ax2.set_title("along the dotted line")
    ax2.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def plot_noisy_counts(thresholds, exact, releases, *, xlabel="threshold", ylabel="count"):
    """Many counts released at once: the exact counts and, for each mechanism, its noisy release of them.

    ``exact`` and each array in the dict ``releases`` (name -> noisy counts, at most 4) are aligned with
    ``thresholds``; the exact counts are drawn as a line and each release as markers, with its root mean
    squared error in the legend.
    """
    x = np.asarray(thresholds, dtype=float)
    truth = np.asarray(exact, dtype=float)
    if x.ndim != 1 or truth.shape != x.shape or x.size == 0:
        raise ValueError(f"thresholds and exact must be 1-d arrays of the same length, got {x.shape}, {truth.shape}")
    if not isinstance(releases, dict) or not 1 <= len(releases) <= 4:
        raise ValueError("releases must be a dict of 1 to 4 name -> noisy counts")
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(x, truth, color="k", lw=1.5, label="exact counts")
    for (name, noisy), marker in zip(releases.items(), "os^v"):
        y = np.asarray(noisy, dtype=float)
        if y.shape != x.shape:
            raise ValueError(f"the release {name!r} must have {x.size} counts, got shape {y.shape}")
        rmse = float(np.sqrt(np.mean((y - truth) ** 2)))
        ax.plot(x, y, marker, ms=4, alpha=0.75, label=f"{name} (RMSE {rmse:.0f})")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def plot_loss_tail(mu=1.0, epsilon=1.0):
    """The Gaussian privacy loss L ~ N(mu^2/2, mu^2) and the two deltas it defines.

    Left: the density of L, the tail ``P[L > epsilon]`` shaded, and the weight ``(1 - e^{epsilon - L})_+``
    whose expectation is the exact delta (lemma ``lem-approx-loss-delta``). Right: the exact delta(eps)
    and the tail bound ``P[L > eps]`` against eps, with the chosen epsilon marked.
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    m = check_real(mu, "mu", low=0.0, low_open=True)
    eps = check_real(epsilon, "epsilon", low=0.0)
    mean, sd = m * m / 2, m
    grid = np.linspace(mean - 4.5 * sd, mean + 4.5 * sd, 600)
    dens = stats.norm.pdf(grid, mean, sd)
    weight = np.clip(-np.expm1(eps - grid), 0.0, None)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    ax1.plot(grid, dens, color="k", lw=1, label="density of $L$")
    tail = grid > eps
    ax1.fill_between(grid[tail], dens[tail], color="tab:orange", alpha=0.35,
                     label=rf"$P[L>\varepsilon]$ = {gaussian_loss_tail(eps, m):.3g}")
    ax1.fill_between(grid, dens * weight, color="tab:blue", alpha=0.55,
                     label=rf"$E[(1-e^{{\varepsilon-L}})_+]$ = {gaussian_delta(eps, m):.3g}")
    ax1.vlines(eps, 0, 1.05 * float(np.max(dens)), ls="--", color="grey", lw=1)  # ends at the data: room for the legend
    ax1.set_xlabel("privacy loss $L$")
    ax1.set_ylabel("density")
    ax1.set_title(rf"$\mu$ = {m:g}, $\varepsilon$ = {eps:g}")
    ax1.legend(fontsize=8, loc="upper left")
    e_grid = np.linspace(0, max(3 * eps, mean + 3 * sd, 1.0), 300)
    ax2.semilogy(e_grid, [gaussian_loss_tail(e, m) for e in e_grid], color="tab:orange", label=r"$P[L>\varepsilon]$")
    ax2.semilogy(e_grid, [max(gaussian_delta(e, m), 1e-300) for e in e_grid], color="tab:blue",
                 label=r"exact $\delta(\varepsilon)$")
    ax2.axvline(eps, ls="--", color="grey", lw=1)
    ax2.set_ylim(max(1e-12, gaussian_delta(e_grid[-1], m) / 2), 1.2)
    ax2.set_xlabel(r"$\varepsilon$")
    ax2.set_ylabel(r"$\delta$")
    ax2.set_title("tail bound vs exact privacy profile")
    ax2.legend()
    fig.tight_layout()
    return fig


def loss_tail_widget():
    """Live figure: mu and epsilon, redrawing :func:`plot_loss_tail` (an explorer)."""
    from .explorer import explorer

    return explorer(plot_loss_tail,
                    {"mu": ("mu = Δ/σ", (0.25, 0.5, 1.0, 2.0, 4.0), 1.0),
                     "epsilon": ("ε", (0.0, 1.0, 2.0, 4.0), 1.0)},
                    alt="The Gaussian privacy loss distribution and the two deltas it defines")


def plot_calibration(epsilon=0.5, delta=1e-5, l2_sensitivity=1.0):
    """Classic vs analytic Gaussian calibration at (epsilon, delta).

    Left: the exact privacy profile delta(eps') of the Gaussian mechanism with the classic sigma
    (``sqrt(2 ln(1.25/delta)) Delta / epsilon``, drawn even for epsilon >= 1, where its theorem does not
    apply and, for large epsilon, it fails) and with the analytic sigma; the target point (epsilon, delta) is marked: a curve above
    it is not (epsilon, delta)-DP. Right: both sigmas against epsilon at this delta (log-log), with the
    large-epsilon scale ``Delta / sqrt(2 epsilon)``.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    sens = check_sensitivity(l2_sensitivity, "l2_sensitivity")
    s_classic = _classic_sigma_formula(eps, d, sens)
    s_analytic = analytic_gaussian_sigma(eps, d, sens)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
    e_hi = 1.15 * max(gaussian_epsilon(d * 1e-4, sens / s_analytic), eps)  # where the analytic curve leaves the plot
    e_grid = np.linspace(0, e_hi, 300)
    valid = "" if eps < 1 else " (unproven for ε ≥ 1)"
    for s, name, style in [(s_classic, "classic" + valid, "--"), (s_analytic, "analytic", "-")]:
        prof = [max(gaussian_delta(e, sens / s), 1e-300) for e in e_grid]
        ax1.semilogy(e_grid, prof, style, label=f"{name}: σ = {s:.3g}")
    ax1.plot([eps], [d], "k*", ms=10, label=r"target $(\varepsilon, \delta)$")
    ax1.set_ylim(d / 1e4, 1.2)
    ax1.set_xlabel(r"$\varepsilon'$")
    ax1.set_ylabel(r"exact $\delta(\varepsilon')$")
    ax1.set_title(f"privacy profiles, Δ₂ = {sens:g}")
    ax1.legend(fontsize=8)
    grid = np.geomspace(min(0.01, eps / 2), max(100.0, 2 * eps), 120)
    classic = [_classic_sigma_formula(e, d, sens) for e in grid]
    ax2.loglog(grid, classic, "--", label="classic formula (proof: ε ≤ 1)")
    ax2.loglog(grid, [analytic_gaussian_sigma(e, d, sens) for e in grid], label="analytic (smallest σ)")
    ax2.loglog(grid, sens / np.sqrt(2 * grid), ":", color="grey", label=r"$\Delta_2/\sqrt{2\varepsilon}$")
    # the mark at ε = 1 spans the curves (not the whole axes), so that a legend can sit above it
    ax2.vlines(1.0, min(float(np.min(classic)), sens / np.sqrt(2 * grid[-1])), float(np.max(classic)), color="grey",
               lw=0.5)
    ax2.plot([eps], [s_analytic], "k*", ms=10)
    ax2.set_xlabel(r"$\varepsilon$")
    ax2.set_ylabel(r"$\sigma$")
    ax2.set_title(f"σ needed for δ = {d:.0e}")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def calibration_widget():
    """Live figure: epsilon and delta, redrawing :func:`plot_calibration` (an explorer)."""
    from .explorer import explorer

    return explorer(plot_calibration,
                    {"epsilon": ("ε", (0.01, 0.1, 0.5, 1.0, 10.0), 0.5),
                     "delta": ("δ", (1e-12, 1e-5, 1e-3, 1e-1), 1e-5)},
                    alt="Privacy profiles of the classic and the analytic Gaussian calibration")


def plot_sigma_ratio(deltas=(1e-3, 1e-6, 1e-9), eps_min=0.01, eps_max=0.99):
    """Ratio analytic sigma / classic sigma against epsilon in [eps_min, eps_max] (< 1), one curve per delta."""
    lo = check_epsilon(eps_min, "eps_min")
    hi = check_real(eps_max, "eps_max", low=lo, low_open=True, high=1.0, high_open=True)
    ds = [check_delta(d, allow_zero=False) for d in deltas]
    grid = np.geomspace(lo, hi, 80)
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for d in ds:
        ax.semilogx(grid, [analytic_gaussian_sigma(e, d) / _classic_sigma_formula(e, d, 1.0) for e in grid],
                    label=f"δ = {d:.0e}")
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel("analytic σ / classic σ")
    ax.set_title("how much less noise the exact calibration needs")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_high_dim_error(ks, epsilon, delta, *, laplace_rmse=None, gaussian_rmse=None):
    """Per-coordinate RMSE of Laplace (l1 sensitivity k) vs Gaussian (l2 sensitivity sqrt(k)) for k counts.

    Theory lines: Laplace ``sqrt(2) k / epsilon``, Gaussian ``analytic_gaussian_sigma(epsilon, delta,
    sqrt(k))`` (the textbook sampler, ``secure=False``) and, dashed, the noise of the default exact lattice
    sampler (``gaussian_lattice(sqrt(k), epsilon, delta, dim=k).noise_sigma``); optional measured values
    (arrays aligned with ``ks``) are drawn as markers.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    ks = np.asarray(ks, dtype=float)
    grid = np.geomspace(ks.min(), ks.max(), 100)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.loglog(grid, np.sqrt(2) * grid / eps, color="tab:red", label=r"Laplace, $\sqrt{2}\,k/\varepsilon$")
    ax.loglog(grid, [analytic_gaussian_sigma(eps, d, np.sqrt(k)) for k in grid], color="tab:blue",
              label=r"Gaussian, analytic $\sigma(\varepsilon,\delta)\sqrt{k}$")
    ax.loglog(grid, [gaussian_lattice(np.sqrt(k), eps, d, dim=int(round(k))).noise_sigma for k in grid],
              color="tab:blue", linestyle="--", label="Gaussian, exact lattice sampler")
    if laplace_rmse is not None:
        ax.loglog(ks, laplace_rmse, "o", color="tab:red", label="Laplace, simulated")
    if gaussian_rmse is not None:
        ax.loglog(ks, gaussian_rmse, "s", color="tab:blue", label="Gaussian, simulated")
    ax.set_xlabel("number of counts $k$")
    ax.set_ylabel("RMSE per count")
    ax.set_title(f"k counting queries, ε = {eps:g}, δ = {d:.0e}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
