"""Figures of the chapter "The hypothesis-testing view: trade-off functions, f-DP and Gaussian DP"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_delta, check_positive_int, check_real, check_real_array
from ..accounting import dpsgd_epsilon
from ..fdp import clt_mu_poisson_gaussian, tradeoff_curve, tradeoff_epsilon_delta, tradeoff_gaussian, tradeoff_laplace
from ..gaussian import gaussian_epsilon

__all__ = ["threshold_test_errors", "plot_tradeoff_idea", "plot_attack_caps", "plot_tradeoff_composition",
           "plot_mechanism_curves", "clt_gap_table", "plot_clt_gap", "fdp_widget"]


def threshold_test_errors(mu, threshold) -> tuple:
    """The two errors of the test "say *present* when the output exceeds ``threshold``" between N(0, 1) and N(mu, 1).

    The output is N(0, 1) when the record is absent and N(mu, 1) when it is present (a Gaussian mechanism
    with ``mu = sensitivity / sigma``, in units of sigma). Returns ``(alpha, beta)``: the false-positive rate
    ``alpha = P[N(0, 1) > t] = Phi(-t)`` and the miss rate ``beta = P[N(mu, 1) <= t] = Phi(t - mu)``. Over all
    thresholds these pairs trace the trade-off curve ``G_mu`` (theorem ``fdp-thm-gaussian-curve``): every
    threshold test is a best test here.

    Examples
    --------
    >>> a, b = threshold_test_errors(1.0, 1.0)
    >>> round(a, 4), b
    (0.1587, 0.5)
    """
    from scipy import special

    m = check_real(mu, "mu", low=0.0, low_open=True)
    t = check_real(threshold, "threshold")
    return float(special.ndtr(-t)), float(special.ndtr(t - m))


def plot_tradeoff_idea(mu=1.0, threshold=1.0):
    """A membership test as a threshold, and the curve of all the best tests: left, the output without the
    record, N(0, 1), and with it, N(μ, 1), with the false positives α and the misses β of the test "say
    present when the output exceeds t"; right, every threshold's pair (α, β), which traces the trade-off curve G_μ.

    The marked point is the test at ``threshold``; the grey points are the tests at other thresholds, all on
    the curve (:func:`threshold_test_errors`, theorem ``fdp-thm-gaussian-curve``). The grey line is the blind
    guess, β = 1 − α."""
    m = check_real(mu, "mu", low=0.0, low_open=True)
    t = check_real(threshold, "threshold")
    alpha, beta = threshold_test_errors(m, t)
    y = np.linspace(-3.5, m + 3.5, 600)
    p0 = np.exp(-0.5 * y ** 2) / math.sqrt(2 * math.pi)
    p1 = np.exp(-0.5 * (y - m) ** 2) / math.sqrt(2 * math.pi)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9.6, 3.9))
    ax.plot(y, p0, color="C0", label="absent: N(0, 1)")
    ax.plot(y, p1, color="C3", label=f"present: N({m:g}, 1)")
    ax.fill_between(y, 0, p0, where=y > t, color="C0", alpha=0.35, label=f"false positives α = {alpha:.2f}")
    ax.fill_between(y, 0, p1, where=y <= t, facecolor="none", edgecolor="C3", hatch="///", lw=0.0,
                    label=f"misses β = {beta:.2f}")
    ax.plot([t, t], [0.0, 0.48], color="black", lw=1.2)
    ax.set_ylim(0, 0.5)
    ax.set_xlabel("the output the attacker sees")
    ax.set_ylabel("density")
    ax.set_title(f"one test: threshold t = {t:g}")
    ax.legend(fontsize=8, loc="upper left", ncols=2)
    a = np.linspace(0.0, 1.0, 401)
    bx.plot(a, tradeoff_gaussian(a, m), color="C2", label=f"the curve G_{m:g}")
    others = np.array([threshold_test_errors(m, s) for s in np.linspace(-1.5, m + 1.5, 9)])
    bx.plot(others[:, 0], others[:, 1], "o", color="0.6", ms=4, label="other thresholds")
    bx.plot([alpha], [beta], "o", color="black", ms=7, label=f"t = {t:g}")
    bx.plot([0, 1], [1, 0], "--", color="0.6", lw=0.8, label="blind guess")
    bx.set_xlim(0, 1)
    bx.set_ylim(0, 1.6)
    bx.set_yticks([0, 0.25, 0.5, 0.75, 1])
    bx.set_xlabel("false-positive rate α")
    bx.set_ylabel("smallest miss rate β")
    bx.set_title("every threshold: one curve")
    bx.legend(fontsize=8, loc="upper right", ncols=2)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.91, wspace=0.25)
    return fig


def plot_attack_caps(events, epsilon, delta, mu_clt, *, fpr=0.01):
    """The largest true-positive rate of any membership test on one training run, at each false-positive rate
    (log axes): by its (ε, δ) pair alone, by its whole privacy profile, and by the central limit theorem's μ
    (an approximation, not a bound).

    ``events`` is what :func:`dpcourse.fdp.tradeoff_curve` takes (the run's accountant); the profile's line is
    ``1 - tradeoff_curve(events, alpha)`` (theorem ``fdp-thm-profile-envelope``), the pair's ``1 - f_{ε, δ}``
    (theorem ``fdp-thm-dp-as-tradeoff``), the CLT's ``1 - G_{mu_clt}`` (theorem ``fdp-thm-clt-sampled``). The title
    states the three values at ``fpr``."""
    eps = check_real(epsilon, "epsilon", low=0.0)
    d = check_delta(delta, allow_zero=True)
    m = check_real(mu_clt, "mu_clt", low=0.0, low_open=True)
    f = check_real(fpr, "fpr", low=0.0, high=1.0, low_open=True)
    a = np.union1d(np.geomspace(1e-4, 1.0, 241), [f])
    pair = 1.0 - tradeoff_epsilon_delta(a, eps, d)
    profile = 1.0 - tradeoff_curve(events, a)
    clt = 1.0 - tradeoff_gaussian(a, m)
    i = int(np.searchsorted(a, f))
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ax.plot(a, a, ":", color="0.6", lw=1, label="blind guess")
    ax.plot(a, pair, "--", color="C1", label=f"pair ({eps:.2f}, {d:g})")
    ax.plot(a, profile, color="C0", lw=2, label="whole profile")
    ax.plot(a, clt, "-.", color="C3", label=f"CLT, μ = {m:.3f}")
    ax.axvline(f, color="0.8", lw=0.8)
    ax.set(xscale="log", yscale="log", xlim=(1e-4, 1.0), ylim=(1e-4, 1.05), xlabel="false-positive rate",
           ylabel="largest true-positive rate")
    ax.set_title(f"at FPR {f:g}: TPR ≤ {pair[i]:.4f} (pair), ≤ {profile[i]:.4f} (profile);\n"
                 f"the CLT says {clt[i]:.4f}, not a bound", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def plot_tradeoff_composition(mu=1.0, k=1, *, delta=1e-5):
    """Left: trade-off curves of k runs of a Gaussian mechanism with ``mu`` each (G_{mu sqrt k}), of one run,
    and of the (epsilon, delta) guarantee read off the composition at ``delta`` (f_{epsilon, delta}, dashed).
    Right: the attacker's best true-positive rate 1 - f(alpha) against the false-positive rate, log axes."""
    m = check_real(mu, "mu", low=0.0, low_open=True)
    k = check_positive_int(k, "k")
    d = check_delta(delta, allow_zero=False)
    mu_k = m * math.sqrt(k)
    eps = gaussian_epsilon(d, mu_k)
    a = np.concatenate([[0.0], np.geomspace(1e-6, 1.0, 400)])
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9.6, 3.9))
    curves = [(tradeoff_gaussian(a, m), f"one run: G_{m:g}", "C0", ":"),
              (tradeoff_gaussian(a, mu_k), f"{k} run{'' if k == 1 else 's'}: G_{mu_k:.3g}", "C3", "-"),
              (tradeoff_epsilon_delta(a, eps, d), f"f_(ε={eps:.2f}, δ={d:g})", "C2", "--")]
    for beta, label, color, ls in curves:
        ax.plot(a, beta, ls, color=color, label=label)
        bx.plot(a[1:], 1.0 - beta[1:], ls, color=color, label=label)
    ax.plot([0, 1], [1, 0], color="0.6", lw=0.8, label="random guess")
    bx.plot(a[1:], a[1:], color="0.6", lw=0.8)
    ax.set_xlabel("type I error α (false-positive rate)")
    ax.set_ylabel("smallest type II error β")
    ax.set_title(f"μ = {m:g} per run, k = {k}")
    ax.legend(fontsize=8)
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_ylim(1e-6, 1.05)
    bx.set_xlabel("false-positive rate α")
    bx.set_ylabel("largest true-positive rate 1 − β")
    bx.set_title(f"attacker at α = 0.1%: TPR ≤ {1 - tradeoff_gaussian(1e-3, mu_k):.3f}")
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.17, top=0.91, wspace=0.32)  # fixed: tight_layout's log
    return fig                                                                     # ticks cost ~80% of a state


def plot_mechanism_curves(epsilon=1.0):
    """The exact trade-off curves of randomized response (f_{epsilon, 0}), Laplace and the Gaussian mechanism
    whose (epsilon, delta = 1e-5) guarantee is the same epsilon, at one epsilon."""
    eps = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    a = np.linspace(0.0, 1.0, 501)
    from ..fdp import gdp_mu_for_dp
    mu = gdp_mu_for_dp(eps, 1e-5)
    fig, ax = plt.subplots(figsize=(4.8, 4.4))
    ax.plot(a, tradeoff_epsilon_delta(a, eps), color="C1", label=f"randomized response = f_({eps:g}, 0)")
    ax.plot(a, tradeoff_laplace(a, eps), "--", color="C0", label=f"Laplace, ε = {eps:g}")
    ax.plot(a, tradeoff_gaussian(a, mu), "-.", color="C3", label=f"Gaussian, ({eps:g}, 1e-5): μ = {mu:.3f}")
    ax.plot([0, 1], [1, 0], color="0.6", lw=0.8)
    ax.set_xlabel("type I error α")
    ax.set_ylabel("type II error β")
    ax.legend(fontsize=8)
    ax.set_aspect("equal")
    fig.tight_layout()
    return fig


def clt_gap_table(sampling_rates, noise_multipliers, steps, delta=1e-5):
    """Epsilon at ``delta`` of DP-SGD by the PLD accountant and by the CLT's mu, on a grid.

    Returns a list of dicts with keys ``q, sigma, steps, mu_clt, eps_pld, eps_clt, ratio`` (ratio =
    eps_clt / eps_pld: below 1 where the CLT under-reports)."""
    qs = check_real_array(sampling_rates, "sampling_rates", ndim=1)
    sigmas = check_real_array(noise_multipliers, "noise_multipliers", ndim=1)
    d = check_delta(delta, allow_zero=False)
    rows = []
    for q in qs:
        for s in sigmas:
            for t in steps:
                t = check_positive_int(t, "steps")
                mu = clt_mu_poisson_gaussian(float(q), float(s), t)
                e_pld = dpsgd_epsilon(float(q), noise_multiplier=float(s), steps=t, delta=d)
                e_clt = gaussian_epsilon(d, mu)
                rows.append({"q": float(q), "sigma": float(s), "steps": t, "mu_clt": mu, "eps_pld": e_pld,
                             "eps_clt": e_clt, "ratio": e_clt / e_pld if e_pld > 0 else math.nan})
    return rows


def plot_clt_gap(rows):
    """eps_clt / eps_pld against the number of steps, one line per (q, sigma), from :func:`clt_gap_table`."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    keys = sorted({(r["q"], r["sigma"]) for r in rows})
    for i, (q, s) in enumerate(keys):
        sub = sorted((r["steps"], r["ratio"]) for r in rows if r["q"] == q and r["sigma"] == s)
        ax.plot([x for x, _ in sub], [y for _, y in sub], "o-", color=f"C{i}", label=f"q = {q:g}, σ = {s:g}")
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("steps T")
    ax.set_ylabel("ε by the CLT / ε by the PLD")
    ax.set_title("below 1: the CLT under-reports ε (δ = 1e-5)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def fdp_widget():
    """Sliders for mu per run and the number of runs k, redrawing :func:`plot_tradeoff_composition`.

    A :func:`dpcourse.plots.explorer.explorer` with 4 x 4 = 16 settings (closed forms: each is cheap)."""
    from .explorer import explorer

    return explorer(plot_tradeoff_composition,
                    {"mu": ("μ per run", (0.25, 0.5, 1.0, 2.0), 0.5),
                     "k": ("runs k", (1, 4, 16, 64), 4)},
                    alt="Trade-off curves of k composed Gaussian mechanisms against the (epsilon, delta) curve, "
                        "and the attacker's largest true-positive rate against the false-positive rate",
                    delta=1e-5)
