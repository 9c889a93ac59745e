"""Figures of the chapter "Testing a privacy claim"."""

from __future__ import annotations

import functools
import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import (as_rng, check_callable, check_epsilon, check_positive_int, check_probability, check_real,
                           check_real_array)
from ..audit import MIN_SAMPLES, audit_epsilon, clopper_pearson
from ..laplace import laplace_mechanism

__all__ = ["attack_event_summary", "plot_attack_event", "audit_lower_bounds", "plot_audit_runs", "plot_threshold_search",
           "audit_widget"]


def _laplace_count(true_epsilon):
    """A count of sensitivity 1 released with Laplace noise of scale 1 / true_epsilon, vectorized over draws."""

    def mech(x, rng, size=None):
        return laplace_mechanism(np.full(size, float(x)), 1.0, true_epsilon, rng=rng)

    return mech


def attack_event_summary(outputs_x, outputs_x_prime, threshold) -> dict:
    """How often the attack "say x when the output is below ``threshold``" fires on each of two samples.

    ``outputs_x`` and ``outputs_x_prime`` are outputs of one mechanism on two neighbouring inputs. Returns a
    dict with ``p`` and ``q``, the fractions of each sample strictly below ``threshold``, and ``log_ratio`` =
    ``ln(p / q)`` (``inf`` if ``q = 0 < p``, ``-inf`` if ``p = 0``). For exact probabilities instead of
    fractions, an epsilon-DP mechanism has ``ln(p / q) <= epsilon`` (definition ``def-pure-dp``), so the
    log-ratio is a lower bound on epsilon (definition ``def-audit-pair-epsilon``); from samples it is only an
    estimate, which :func:`dpcourse.audit_epsilon` turns into a valid bound (theorem ``thm-audit-validity``).

    Examples
    --------
    >>> s = attack_event_summary([0.0, 1.0, 2.0, 3.0], [2.0, 3.0, 4.0, 5.0], 2.5)
    >>> s["p"], s["q"], round(s["log_ratio"], 4)
    (0.75, 0.25, 1.0986)
    """
    a = check_real_array(outputs_x, "outputs_x", ndim=1)
    b = check_real_array(outputs_x_prime, "outputs_x_prime", ndim=1)
    t = check_real(threshold, "threshold")
    p, q = float(np.mean(a < t)), float(np.mean(b < t))
    if p == 0.0:
        ratio = -math.inf
    elif q == 0.0:
        ratio = math.inf
    else:
        ratio = math.log(p / q)   # the C library's log: the same digits on every CPU
    return {"p": p, "q": q, "log_ratio": ratio}


def plot_attack_event(outputs_x, outputs_x_prime, threshold, *, claimed_epsilon=None, names=("x", "x'")):
    """An attack read as a lower bound on ε: outputs of one mechanism on two neighbouring inputs, and the event
    "the output is below a threshold", which happens in a fraction p̂ of the runs on one and q̂ on the other.

    Histograms of the two samples, with the part below ``threshold`` shaded; the title gives p̂, q̂ and
    ``ln(p̂ / q̂)`` (:func:`attack_event_summary`), which an epsilon-DP mechanism keeps at most epsilon for exact
    probabilities (definition ``def-pure-dp``). With ``claimed_epsilon`` the title says whether the estimate
    is above the claim. ``names`` labels the two inputs.
    """
    summary = attack_event_summary(outputs_x, outputs_x_prime, threshold)
    a = np.asarray(outputs_x, dtype=float)
    b = np.asarray(outputs_x_prime, dtype=float)
    t = float(threshold)
    claim = None if claimed_epsilon is None else check_epsilon(claimed_epsilon, "claimed_epsilon")
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and all(isinstance(n, str) for n in names)):
        raise TypeError(f"names must be two strings, got {names!r}")
    both = np.r_[a, b]
    lo, hi = (float(v) for v in np.quantile(both, [0.002, 0.998]))
    lo, hi = min(lo, t), max(hi, t)
    if hi <= lo:
        hi = lo + 1.0
    # the threshold is a bin edge, so the shaded bins are exactly the event
    left = max(2, int(round(60 * (t - lo) / (hi - lo))))
    edges = np.unique(np.r_[np.linspace(lo, t, left), np.linspace(t, hi, max(2, 62 - left))])
    width = np.diff(edges)
    fig, ax = plt.subplots(figsize=(9, 4))
    for sample, colour, name, frac in [(a, "tab:blue", names[0], summary["p"]),
                                       (b, "tab:orange", names[1], summary["q"])]:
        counts, _ = np.histogram(sample, bins=edges)
        density = counts / sample.size / width
        ax.stairs(density, edges, color=colour, lw=1.6, label=f"outputs on {name}")
        inside = edges[1:] <= t
        ax.stairs(np.where(inside, density, 0.0), edges, fill=True, color=colour, alpha=0.35,
                  label=f"below {t:g}: {frac:.1%} of the runs on {name}")
    ax.axvline(t, color="k", ls="--", lw=1)
    ax.text(0.02, 0.95, f"attack: answer '{names[0]}'\nwhen the output is\nleft of the dashed line", transform=ax.transAxes,
            ha="left", va="top", fontsize=9)
    ratio = summary["log_ratio"]
    ratio_txt = "∞" if ratio == math.inf else ("-∞" if ratio == -math.inf else f"{ratio:.2f}")
    title = rf"$\hat p$ = {summary['p']:.3f}, $\hat q$ = {summary['q']:.3f}, $\ln(\hat p/\hat q)$ = {ratio_txt}"
    if claim is not None:
        title += f" {'>' if ratio > claim else '<='} claimed ε = {claim:g}"
    ax.set_title(title)
    ax.set_xlabel("output")
    ax.set_ylabel("density of the outputs")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def audit_lower_bounds(true_epsilon=1.0, n_samples=2000, runs=100, *, confidence=0.95, seed=0):
    """Lower bounds of ``runs`` independent audits of a Laplace count whose true epsilon is ``true_epsilon``.

    Each run audits the neighbouring counts 0 and 1 with :func:`dpcourse.audit_epsilon` and its own
    generator (spawned from ``seed``). Returns a float array of shape ``(runs,)``.
    """
    eps = check_epsilon(true_epsilon, "true_epsilon")
    n = check_positive_int(n_samples, "n_samples", minimum=MIN_SAMPLES)
    runs = check_positive_int(runs, "runs")
    conf = check_probability(confidence, "confidence", low_open=True, high_open=True)
    seeds = np.random.SeedSequence(check_positive_int(seed, "seed", minimum=0)).spawn(runs)
    mech = _laplace_count(eps)
    return np.array([audit_epsilon(mech, 0.0, 1.0, n, rng=np.random.default_rng(s), confidence=conf).lower_bound
                     for s in seeds])


@functools.lru_cache(maxsize=32)
def _cached_lower_bounds(true_epsilon, n_samples, runs, confidence, seed):
    """:func:`audit_lower_bounds`, once per setting (seeded, so the same numbers): the live figure's claim
    slider only moves the claimed line. Read-only."""
    lbs = audit_lower_bounds(true_epsilon, n_samples, runs, confidence=confidence, seed=seed)
    lbs.flags.writeable = False
    return lbs


def plot_audit_runs(true_epsilon=1.3, claimed_epsilon=1.0, n_samples=20_000, runs=100, *, confidence=0.95, seed=0):
    """Histogram of the audit's lower bounds over independent runs, against the claim and the truth.

    A mechanism with true epsilon ``true_epsilon`` (a Laplace count) is audited ``runs`` times with
    ``n_samples`` draws per input; the title gives the fraction of runs whose lower bound exceeds
    ``claimed_epsilon``, i.e. that refute the claim. When the claim is right (claimed >= true), that
    fraction is at most ``1 - confidence`` (theorem ``thm-audit-validity``).
    """
    claim = check_epsilon(claimed_epsilon, "claimed_epsilon")
    lbs = _cached_lower_bounds(true_epsilon, n_samples, runs, confidence, seed)
    eps = float(true_epsilon)
    fig, ax = plt.subplots(figsize=(8, 3.6))
    bottom = 0.85 * min(eps, claim, float(lbs.min()))
    top = 1.1 * max(eps, claim, float(lbs.max()))
    ax.hist(lbs, bins=np.linspace(bottom, top, 50), color="tab:blue", alpha=0.8, label="lower bounds")
    ax.axvline(eps, color="k", lw=2, label=f"true epsilon = {eps:g}")
    ax.axvline(claim, color="tab:red", ls="--", lw=2, label=f"claimed epsilon = {claim:g}")
    ax.set_xlabel("lower bound on epsilon reported by the audit")
    ax.set_ylabel("runs")
    refuted = float(np.mean(lbs > claim))
    ax.set_title(f"{runs} audits with {n_samples:,} draws per input: claim refuted in {refuted:.0%} of runs, "
                 f"median bound {np.median(lbs):.3f}", fontsize=10)
    ax.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    return fig


def plot_threshold_search(mechanism, x, x_prime, n_samples=20_000, *, epsilon=None, confidence=0.95, rng=None,
                          n_thresholds=200):
    """What the auditor sees on a real-valued mechanism: the two output samples, and every threshold event.

    Left: histograms of ``n_samples`` outputs of ``mechanism(x, rng, size=n)`` and of ``x_prime``. Right:
    for thresholds tau on a grid, the plug-in log-ratio ``ln(P[M(x) < tau] / P[M(x') < tau])`` and the
    Clopper-Pearson lower bound ``ln(p_lower / q_upper)`` of each event, computed on the same draws (so
    pointwise only: the auditor selects on one half and bounds on the other). ``epsilon`` draws the claim.
    The mechanism must accept ``size`` (see :func:`dpcourse.audit_epsilon`).
    """
    mechanism = check_callable(mechanism, "mechanism")
    n = check_positive_int(n_samples, "n_samples", minimum=MIN_SAMPLES)
    conf = check_probability(confidence, "confidence", low_open=True, high_open=True)
    k = check_positive_int(n_thresholds, "n_thresholds", minimum=2)
    gen = as_rng(rng)
    a = np.sort(np.asarray(mechanism(x, gen, size=n), dtype=float))
    b = np.sort(np.asarray(mechanism(x_prime, gen, size=n), dtype=float))
    lo, hi = np.quantile(np.r_[a, b], [0.002, 0.998])
    taus = np.linspace(lo, hi, k)
    ka, kb = np.searchsorted(a, taus, "left"), np.searchsorted(b, taus, "left")
    alpha = (1 - conf) / 2
    with np.errstate(divide="ignore"):
        plug_in = np.log(ka / n) - np.log(kb / n)
        p_lower, _ = clopper_pearson(ka, n, alpha)
        _, q_upper = clopper_pearson(kb, n, alpha)
        bound = np.log(p_lower) - np.log(q_upper)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.6))
    bins = np.linspace(lo, hi, 60)
    ax1.hist(a, bins=bins, alpha=0.6, label="M(x)")
    ax1.hist(b, bins=bins, alpha=0.6, label="M(x')")
    ax1.set_xlabel("output o")
    ax1.set_ylabel("draws")
    ax1.legend()
    ax2.plot(taus, plug_in, label=r"plug-in $\ln(\hat p/\hat q)$")
    ax2.plot(taus, bound, label=r"CP lower bound $\ln(\underline{p}/\overline{q})$")
    if epsilon is not None:
        ax2.axhline(check_epsilon(epsilon), color="k", ls="--", lw=1, label=f"claimed epsilon = {float(epsilon):g}")
    ax2.set_ylim(bottom=min(-0.1, float(np.nanmin(bound[np.isfinite(bound)], initial=0.0))))
    ax2.set_xlabel(r"threshold $\tau$ of the event $\{o < \tau\}$")
    ax2.set_ylabel("log-ratio")
    ax2.legend(fontsize=8)
    ax2.set_title(f"{n:,} draws per input, pointwise confidence {conf:g}", fontsize=10)
    fig.tight_layout()
    return fig


def audit_widget():
    """Live figure: the true and the claimed epsilon and the number of draws, redrawing :func:`plot_audit_runs`.

    A :func:`dpcourse.plots.explorer.explorer` (ipywidgets in a live kernel; every setting drawn at
    build time in the book), with 60 seeded audit runs per setting.
    """
    from .explorer import explorer

    return explorer(plot_audit_runs,
                    {"true_epsilon": ("true eps", (0.6, 1.3, 2.0), 1.3),
                     "claimed_epsilon": ("claimed eps", (0.8, 1.0), 1.0),
                     "n_samples": ("draws", (1_000, 10_000), 10_000)},
                    alt="Lower bounds of 60 independent audits against the claimed and the true epsilon",
                    runs=60)


