"""Figures of the chapter "Composing private releases"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import (
    as_rng,
    check_epsilon,
    check_label_column,
    check_labels,
    check_positive_int,
    check_real,
    check_real_array,
    check_size,
)
from ..composition import basic_composition
from ..composition_basics import laplace_privacy_loss
from ..laplace import laplace_mechanism

__all__ = ["averaging_attack", "plot_averaging_attack", "plot_partition", "composed_laplace_losses", "loss_atoms",
           "plot_composition_loss", "composition_loss_widget"]


def averaging_attack(count, epsilon, k, *, n_analysts=10_000, rng=None):
    """The averaging attack: each of ``n_analysts`` analysts receives k fresh releases of one count and averages them.

    Every release is :func:`dpcourse.laplace_mechanism` with sensitivity 1 and ``epsilon``, so each one alone is
    epsilon-DP under add/remove. The count is ``count`` on a dataset x and ``count + 1`` on its neighbour x'
    with one more record. Returns ``(on_x, on_x_prime)``, the ``n_analysts`` averages on each dataset: their
    spread ``sqrt(2) / (epsilon sqrt(k))`` shrinks with k while the two centres stay 1 apart, so the k releases
    together tell x from x' ever better, as theorem ``thm-basic-composition`` allows (k epsilon).
    """
    c = check_real(count, "count")
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    n_analysts = check_positive_int(n_analysts, "n_analysts")
    check_size(n_analysts * k, "n_analysts * k")
    gen = as_rng(rng)
    on_x = laplace_mechanism(np.full((n_analysts, k), c), 1.0, eps, rng=gen).mean(axis=1)
    on_x_prime = laplace_mechanism(np.full((n_analysts, k), c + 1.0), 1.0, eps, rng=gen).mean(axis=1)
    return on_x, on_x_prime


def plot_averaging_attack(count, epsilon, ks=(1, 10, 100), *, n_analysts=10_000, rng=None):
    """The averaging attack: averages of k noisy releases of one count, on a dataset and on its neighbour,
    drift apart as k grows.

    One panel per k in ``ks``: histograms of the averages of :func:`averaging_attack` on x (count ``count``) and
    on x' (one more record). An analyst who guesses "x" when the average is below ``count + 1/2`` (dashed) is
    right as often as the title says; the title also gives the most any test can achieve against a
    (k epsilon)-DP release with even prior odds, ``e^(k eps) / (1 + e^(k eps))`` (theorems
    ``thm-posterior-odds`` and ``thm-basic-composition``).
    """
    c = check_real(count, "count")
    eps = check_epsilon(epsilon)
    ks = [check_positive_int(k, "k") for k in ks]
    if not 1 <= len(ks) <= 6:
        raise ValueError(f"ks must hold 1 to 6 numbers of releases, got {len(ks)}")
    gen = as_rng(rng)
    fig, axes = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.6), squeeze=False)
    for ax, k in zip(axes[0], ks):
        on_x, on_x_prime = averaging_attack(c, eps, k, n_analysts=n_analysts, rng=gen)
        sd = np.sqrt(2.0) / (eps * np.sqrt(k))
        half = max(4.0 * sd, 2.5)
        bins = np.linspace(c + 0.5 - half, c + 0.5 + half, 61)
        ax.hist(on_x, bins=bins, density=True, alpha=0.55, color="C0", label=f"on x: count {c:g}")
        ax.hist(on_x_prime, bins=bins, density=True, alpha=0.55, color="C1", label=f"on x': count {c + 1:g}")
        ax.axvline(c + 0.5, color="k", ls="--", lw=1)
        right = 0.5 * (np.mean(on_x < c + 0.5) + np.mean(on_x_prime >= c + 0.5))
        bound = 1.0 / (1.0 + math.exp(-k * eps))
        ax.set_title(f"k = {k}: the guess is right {right:.0%}\n(k\u03b5 = {k * eps:g} allows {bound:.0%})",
                     fontsize=10)
        ax.set_xlabel(f"average of {k} release{'s' if k > 1 else ''}")
        ax.set_yticks([])
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.suptitle(f"each release is {eps:g}-DP; the average of k of them tells x from x' apart", fontsize=11)
    fig.tight_layout()
    return fig


def plot_partition(part_names, part_sizes, added, *, questions=("Gentoo?", "over 4 kg?", "female?"), epsilon=1.0):
    """A public partition against overlapping questions: where one added record lands, and what the releases cost.

    Left: the records split by a public partition (one block per part, wider for a larger part of
    ``part_sizes``), each part released as its own count with epsilon-DP noise. The added record lands in
    the part ``added`` only, so only that count changes and the releases together cost the largest epsilon
    (theorem ``thm-parallel-composition``). Right: ``questions``, counts of sets that overlap; a record in all
    of them changes every count, and the epsilons add up (theorem ``thm-basic-composition``).
    """
    names = [str(v) for v in check_labels(part_names, "part_names")]
    sizes = check_real_array(part_sizes, "part_sizes", ndim=1)
    if sizes.size != len(names) or np.any(sizes <= 0):
        raise ValueError(f"part_sizes must hold one positive size per part ({len(names)}), got {sizes.size} values "
                         f"or a size <= 0")
    added = str(check_label_column([added], "added")[0])
    if added not in names:
        raise ValueError(f"added must name one of the parts {names}, got {added!r}")
    qs = [str(v) for v in check_labels(questions, "questions")]
    if not 2 <= len(qs) <= 3:
        raise ValueError(f"questions must hold 2 or 3 questions, got {len(qs)}")
    eps = check_epsilon(epsilon)
    from matplotlib.patches import Circle, Rectangle

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.4), gridspec_kw={"width_ratios": [3, 2]})
    widths = 0.5 * sizes / sizes.sum() + 0.5 / sizes.size  # wider for a larger part, room for every name
    start = 0.0
    for name, w in zip(names, widths):
        hit = name == added
        left.add_patch(Rectangle((start, 0.0), w, 1.0, facecolor="tab:orange" if hit else "tab:blue",
                                 alpha=0.35 if hit else 0.2, edgecolor="k"))
        left.text(start + w / 2, 0.64, name, ha="center", va="center")
        left.text(start + w / 2, 0.36, f"{sizes[names.index(name)]:g}", ha="center", va="center")
        left.text(start + w / 2, -0.08, "moves" if hit else "same", ha="center", va="top",
                  color="tab:red" if hit else "grey")
        if hit:
            centre = start + w / 2
        start += w
    left.plot(centre, 1.32, marker="*", ms=18, color="tab:red")
    left.annotate(f"one more {added}", (centre, 1.32), xytext=(-14, 0), textcoords="offset points", va="center",
                  ha="right", color="tab:red")
    left.annotate("", xy=(centre, 1.0), xytext=(centre, 1.25), arrowprops={"arrowstyle": "->", "color": "tab:red"})
    left.set_xlim(-0.02, 1.02)
    left.set_ylim(-0.5, 1.5)
    left.set_axis_off()
    left.set_title(f"public partition: max({', '.join(f'{eps:g}' for _ in names)}) = {eps:g}")
    left.text(0.5, -0.32, f"each count + noise, {eps:g}-DP under add/remove", ha="center", va="top")

    centres = [(-0.45, 0.3), (0.45, 0.3), (0.0, -0.45)][:len(qs)]
    for (cx, cy), q, color in zip(centres, qs, ("tab:blue", "tab:green", "tab:purple")):
        right.add_patch(Circle((cx, cy), 0.8, facecolor=color, alpha=0.15, edgecolor=color))
        right.text(cx + (0.55 if cx > 0 else -0.55 if cx < 0 else 0.0), cy + (0.55 if cy > 0 else -0.6), q,
                   ha="center", va="center")
    mid = np.mean(np.array(centres), axis=0)
    right.plot(*mid, marker="*", ms=18, color="tab:red")
    right.annotate("the added record\nis in all of them", mid, xytext=(0, -26), textcoords="offset points", ha="center",
                   va="top", color="tab:red")
    right.set_xlim(-1.45, 1.45)
    right.set_ylim(-1.45, 1.35)
    right.set_aspect("equal")
    right.set_axis_off()
    right.set_title(f"overlapping sets: {' + '.join(f'{eps:g}' for _ in qs)} = {len(qs) * eps:g}")
    fig.tight_layout()
    return fig


def composed_laplace_losses(epsilon, k, *, n_samples=100_000, rng=None) -> np.ndarray:
    """Draws of the total privacy loss of k Laplace releases of a count, each epsilon-DP.

    The count is 0 on x and 1 on its neighbour x' (sensitivity 1); each release adds Lap(1/epsilon)
    noise with :func:`dpcourse.laplace_mechanism`. Returns ``n_samples`` draws of the privacy-loss
    random variable ``L = sum_j l_j(Y_j)`` with ``Y ~ M(x)`` (:func:`dpcourse.laplace_privacy_loss`).
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    n_samples = check_positive_int(n_samples, "n_samples")
    y = laplace_mechanism(np.zeros((n_samples, k)), 1.0, eps, rng=as_rng(rng))
    return laplace_privacy_loss(y, np.zeros(k), np.ones(k), 1.0 / eps)  # type: ignore[return-value]


def loss_atoms(epsilon, k):
    """The values the total privacy loss of k Laplace releases takes with positive probability, and those probabilities.

    With the count 0 on x and 1 on x' and Lap(1/epsilon) noise, one release has loss exactly ``+epsilon`` when its
    output is at most 0 (probability 1/2 on x), exactly ``-epsilon`` when it is at least 1 (probability
    ``e^-epsilon / 2``), and a value strictly between otherwise. So the total L is exactly ``(2a - k) epsilon`` when
    ``a`` releases are at ``+epsilon`` and the other ``k - a`` at ``-epsilon``, with the binomial probability
    ``C(k, a) (1/2)^a (e^-epsilon / 2)^(k - a)``; every other value of L has probability 0. Returns
    ``(values, probabilities)`` for ``a = 0, ..., k``; the largest value is the bound ``k epsilon`` of theorem
    ``thm-basic-composition``, with probability ``2^-k``.
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    a = np.arange(k + 1)
    probs = np.array([math.comb(k, int(j)) * 0.5 ** int(j) * (0.5 * math.exp(-eps)) ** (k - int(j)) for j in a])
    return (2 * a - k) * eps, probs


def plot_composition_loss(epsilon, k, *, n_samples=100_000, rng=None):
    """The distribution of the total privacy loss of k epsilon-DP Laplace releases, against k epsilon.

    Left, on a probability axis: stems at the values that L takes with positive probability (every output
    beyond one of the two answers), at their exact probabilities (:func:`loss_atoms`), and bars giving the
    share of the other draws of :func:`composed_laplace_losses` in each bin; with the basic-composition bound
    ``+-k epsilon`` (theorem ``thm-basic-composition``) and the mean ``k (epsilon + e^-epsilon - 1)``.
    Right: the empirical ``P[L >= t]`` on a log axis; it ends at ``t = k epsilon`` with the atom
    ``P[L = k epsilon] = 2^-k`` (every release on the far side of f(x) from f(x')).
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    losses = composed_laplace_losses(eps, k, n_samples=n_samples, rng=rng)
    bound, _ = basic_composition(eps, k)
    mean = k * (eps + np.expm1(-eps))
    values, probs = loss_atoms(eps, k)
    at_atom = np.abs(losses[:, None] - values[None, :]).min(axis=1) <= 1e-9 * max(1.0, bound)
    bins = min(60, 8 * k)
    edges = np.linspace(-bound, bound, bins + 1)
    spread, _ = np.histogram(losses[~at_atom], bins=edges)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    left.bar(edges[:-1], spread / losses.size, width=np.diff(edges), align="edge", color="C0", alpha=0.45,
             label=f"P[L in a bin of width {edges[1] - edges[0]:.2g}]")
    stems = left.stem(values, probs, linefmt="C0-", markerfmt="C0o", basefmt=" ",
                      label="P[L = value] (exact)")
    stems.markerline.set_markersize(5)
    top = 1.05 * float(max(np.max(probs), np.max(spread) / losses.size))
    left.vlines([-bound, bound], 0, top, color="C3", ls="--")
    left.vlines([mean], 0, top, color="k", ls=":", label=f"mean = {mean:.3g}")
    left.plot([], [], color="C3", ls="--", label=f"±kε = ±{bound:.3g}")
    left.set_xlabel("total privacy loss L")
    left.set_ylabel("probability")
    left.set_title(f"k = {k} release{'s' if k > 1 else ''}, ε = {eps:g} each")
    left.set_ylim(0, 1.08 * top)
    left.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2)  # below the axes, off the data
    t = np.linspace(-bound, bound, 400)
    sorted_losses = np.sort(losses)
    surv = 1.0 - np.searchsorted(sorted_losses, t, side="left") / losses.size
    right.semilogy(t, np.where(surv > 0, surv, np.nan), label="empirical P[L ≥ t]")
    right.axvline(bound, color="C3", ls="--", label="kε")
    right.axhline(0.5**k, color="C2", ls=":", label=f"2^-k = {0.5 ** k:.2g}")
    right.set_xlabel("t")
    right.set_title("tail of the total privacy loss")
    right.legend(fontsize=8, loc="center left")  # the line 2^-k runs along the bottom
    fig.tight_layout()
    return fig


def composition_loss_widget():
    """Sliders for epsilon and k, redrawing :func:`plot_composition_loss` (20 000 draws, seed 0).

    A :func:`dpcourse.plots.explorer.explorer`: live in Jupyter, and in the static book every setting is
    drawn at build time by the same function.
    """
    from .explorer import explorer

    return explorer(plot_composition_loss,
                    {"epsilon": ("epsilon", (0.1, 0.5, 2.0), 0.5),
                     "k": ("k", (1, 4, 16, 32), 4)},
                    alt="Distribution and tail of the total privacy loss of k Laplace releases against k epsilon",
                    n_samples=20_000, rng=0)
