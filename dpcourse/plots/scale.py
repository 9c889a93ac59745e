"""Figures of the chapter "From the course to production" (DP at scale)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .._validation import as_rng, check_delta, check_epsilon, check_positive_int
from ..contribution_bounding import _bound_mask, bound_contributions
from ..data import load_flights
from ..group_by import group_by_noise_scales
from ..partition_selection import partition_selection_probability

__all__ = [
    "plot_bounding_by_hand",
    "bounding_tradeoff",
    "plot_bounding_tradeoff",
    "plot_keep_probability",
    "plot_flights_selection",
    "flights_selection_widget",
    "plot_engine_noise",
]


def _codes(flights):
    uid = np.unique(flights["tailnum"], return_inverse=True)[1].ravel()
    dests, kid = np.unique(flights["dest"], return_inverse=True)
    return uid, kid.ravel(), dests


def plot_bounding_by_hand(tailnum=None, *, max_partitions=4, max_per_partition=2, seed=0):
    """One aircraft's flights per destination, before and after contribution bounding.

    Left: the flights of the aircraft ``tailnum`` (by default the one with the most flights) per destination,
    busiest first; adding or removing the aircraft moves the per-destination counts by its number of flights
    in all. Right: the same aircraft's flights after :func:`dpcourse.bound_contributions` on the whole data
    (``max_partitions`` = m destinations per aircraft, ``max_per_partition`` = c flights per destination,
    seeded with ``seed``): whatever aircraft is added or removed, the counts move by at most m c in all
    (lemma ``scale-lem-bounding``). The titles state both totals.
    """
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    flights = load_flights()
    tails, per_tail = np.unique(flights["tailnum"], return_counts=True)
    if tailnum is None:
        tail = str(tails[np.argmax(per_tail)])
    else:
        tail = str(tailnum)
        if tail not in set(tails.tolist()):
            raise ValueError("tailnum must be an aircraft of the flights data (a tail number such as those of "
                             "load_flights()['tailnum'])")
    u_b, k_b, _ = bound_contributions(flights["tailnum"], flights["dest"], max_partitions=m, max_per_partition=c,
                                      rng=seed)
    dests, before = np.unique(flights["dest"][flights["tailnum"] == tail], return_counts=True)
    order = np.lexsort((dests, -before))
    dests, before = dests[order], before[order]
    kept_dests = k_b[u_b == tail]
    after = np.array([np.sum(kept_dests == d) for d in dests])
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6), sharey=True)
    y = np.arange(dests.size)
    left.barh(y, before, color="C0", alpha=0.8)
    for yi, w in zip(y, before):
        left.text(w, yi, f" {w}", va="center")
    left.set_title(f"{tail}: {before.sum()} flights\nmoves the counts by {before.sum()}")
    left.set_xlim(0, before.max() * 1.3 + 1)
    left.set_xlabel("flights")
    right.barh(y, after, color="C1", alpha=0.8)
    for yi, w in zip(y, after):
        right.text(w, yi, f" {w}", va="center", color="black" if w else "grey")
    right.set_title(f"bounded, m = {m}, c = {c}: {after.sum()} flights\nany aircraft moves them by \u2264 {m * c}")
    right.set_xlim(0, c * 1.4 + 0.5)
    right.set_xticks(range(0, c + 1))
    right.set_xlabel("flights kept")
    left.set_yticks(y, dests)
    left.invert_yaxis()
    left.set_ylabel("destination")
    fig.tight_layout()
    return fig


def bounding_tradeoff(max_partitions_values, *, epsilon=1.0, max_per_partition=1, rng=None):
    """Bias and noise of a per-destination flight count, for each max_partitions m (public destinations).

    For each m: bound the flights (:func:`dpcourse.bound_contributions`, aircraft = user, destination =
    key, ``max_per_partition`` flights per aircraft and destination), take the exact bounded count per
    destination, and compare with the true count. Noise: the standard deviation of the count's discrete
    Laplace noise at ``epsilon`` (all of it for the count: public destinations, one metric).

    Returns
    -------
    dict
        ``m``, and per m the medians over destinations of ``bias`` = (true - bounded) / true, ``noise``
        = noise std / true and ``total`` = sqrt(bias^2 + noise^2) (relative root-mean-square error).
    """
    eps = check_epsilon(epsilon)
    c = check_positive_int(max_per_partition, "max_per_partition")
    ms = [check_positive_int(m, "max_partitions") for m in max_partitions_values]
    gen = as_rng(rng)
    uid, kid, dests = _codes(load_flights())
    true = np.bincount(kid, minlength=dests.size).astype(float)
    out = {"m": np.array(ms), "bias": [], "noise": [], "total": []}
    for m in ms:
        kept = np.bincount(kid[_bound_mask(uid, kid, m, c, gen)], minlength=dests.size)
        std = group_by_noise_scales(eps, metrics=("count",), max_partitions=m, max_per_partition=c,
                                    public_partitions=True)["count_std"]
        bias = (true - kept) / true
        noise = std / true
        out["bias"].append(np.median(bias))
        out["noise"].append(np.median(noise))
        out["total"].append(np.median(np.sqrt(bias**2 + noise**2)))
    return {k: np.asarray(v) for k, v in out.items()}


def plot_bounding_tradeoff(max_partitions_values=(1, 2, 4, 8, 16, 32), *, epsilon=1.0,
                           max_per_partition_values=(1, 4, 16), seed=0):
    """Contribution bounding trades bias for noise: median relative error of per-destination flight counts.

    Dotted: bias (flights of busy aircraft dropped by bounding); dashed: the count's noise std; solid: both
    together. Small bounds drop many flights; large bounds multiply the noise; the total is smallest between.
    """
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for i, c in enumerate(max_per_partition_values):
        res = bounding_tradeoff(max_partitions_values, epsilon=epsilon, max_per_partition=c, rng=seed)
        ax.plot(res["m"], res["bias"], ":", color=f"C{i}")
        ax.plot(res["m"], res["noise"], "--", color=f"C{i}")
        ax.plot(res["m"], res["total"], "o-", color=f"C{i}", lw=2, label=f"total, {c} flight(s) per pair")
    ax.plot([], [], "k:", label="bias (dropped flights)")
    ax.plot([], [], "k--", label="noise std")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 3)
    ax.set_xlabel("max_partitions m (destinations kept per aircraft)")
    ax.set_ylabel("median relative error over destinations")
    ax.set_title(f"Flight counts per destination, ε = {epsilon:g} for the count")
    ax.legend(fontsize=8, loc="lower left", ncol=2)
    fig.tight_layout()
    return fig


def plot_keep_probability(epsilons=(0.5, 1.0, 2.0), *, delta=1e-5, max_partitions=(1, 4), n_max=80):
    """Optimal keep probability of a partition against its number of users, for several ε and max_partitions.

    Solid: one partition per user; dashed: each user in up to 4 partitions (each decision gets ε/4).
    """
    dlt = check_delta(delta, allow_zero=False)
    n = np.arange(check_positive_int(n_max, "n_max") + 1)
    fig, ax = plt.subplots(figsize=(6.4, 4))
    styles = ["-", "--", ":", "-."]
    for j, m in enumerate(max_partitions):
        for i, eps in enumerate(epsilons):
            p = partition_selection_probability(n, eps, dlt, max_partitions=m)
            ax.plot(n, p, styles[j % 4], color=f"C{i}", label=f"ε = {eps:g}, m = {m}")
    ax.set_xlabel("number of distinct users in the partition")
    ax.set_ylabel("probability of keeping the partition")
    ax.set_title(f"Optimal partition selection, δ = {dlt:g}")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


def plot_flights_selection(epsilon=1.0, max_partitions=4, *, delta=1e-6, max_per_partition=2, seed=0):
    """Which destinations survive partition selection: keep probability against aircraft per destination.

    The flights are bounded to ``max_partitions`` destinations per aircraft (seeded), each destination's
    number of aircraft n is counted, and the curve is the keep probability of :func:`dpcourse.dp_group_by`
    (a third of ε for selection). The title gives the expected number of destinations released.
    """
    eps = check_epsilon(epsilon)
    m = check_positive_int(max_partitions, "max_partitions")
    dlt = check_delta(delta, allow_zero=False)
    uid, kid, dests = _codes(load_flights())
    mask = _bound_mask(uid, kid, m, check_positive_int(max_per_partition, "max_per_partition"), as_rng(seed))
    pairs = np.unique(kid[mask] * (uid.max() + 1) + uid[mask])
    users = np.bincount(pairs // (uid.max() + 1), minlength=dests.size)
    grid = np.arange(0, max(400, users.max()) + 1)
    p_grid = partition_selection_probability(grid, eps / 3, dlt, max_partitions=m)
    p = partition_selection_probability(users, eps / 3, dlt, max_partitions=m)
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.plot(grid[1:], p_grid[1:], color="C0", label="keep probability p(n)")
    ax.plot(np.maximum(users, 1), p, "o", color="C1", alpha=0.6, label="a destination (after bounding)")
    ax.set_xscale("log")
    ax.set_xlabel("aircraft flying to the destination, n (log scale)")
    ax.set_ylabel("probability of release")
    ax.set_title(f"ε = {eps:g} (selection ε/3), m = {m}: {p.sum():.1f} of {dests.size} destinations "
                 f"expected")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def flights_selection_widget():
    """Controls for ε and max_partitions, redrawing :func:`plot_flights_selection` (20 settings).

    A :func:`dpcourse.plots.explorer.explorer`: live in Jupyter, and in the static book every setting is
    drawn at build time by the same function.
    """
    from .explorer import explorer

    return explorer(plot_flights_selection,
                    {"epsilon": ("ε", (0.3, 1.0, 3.0, 10.0), 1.0),
                     "max_partitions": ("max_partitions", (1, 2, 4, 8, 16), 4)},
                    alt="Keep probability against the number of aircraft per destination, with the destinations "
                        "of the flights data",
                    delta=1e-6, max_per_partition=2, seed=0)


def plot_engine_noise(samples: dict, scale: float, *, title: str = "") -> Figure:
    """Empirical CDFs of the noise each engine added, against the Laplace CDF of the stated scale.

    ``samples`` maps an engine's name to its noise draws (released minus exact value); ``scale`` is the
    Laplace scale b all of them claim.
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    fig, ax = plt.subplots(figsize=(6.4, 4))
    x = np.linspace(-6 * scale, 6 * scale, 400)
    ax.plot(x, stats.laplace(scale=scale).cdf(x), "k-", lw=3, alpha=0.3, label=f"Laplace, b = {scale:g}")
    for i, (name, s) in enumerate(samples.items()):
        s = np.sort(np.asarray(s, dtype=float))
        ax.step(s, np.arange(1, s.size + 1) / s.size, where="post", color=f"C{i}", lw=1, label=name)
    ax.set_xlim(-6 * scale, 6 * scale)
    ax.set_xlabel("noise = released value - exact value")
    ax.set_ylabel("empirical CDF")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
