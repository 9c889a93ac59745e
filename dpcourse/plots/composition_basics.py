"""Figures of the chapter "Composing private releases"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import as_rng, check_epsilon, check_positive_int
from ..composition import basic_composition
from ..composition_basics import laplace_privacy_loss
from ..laplace import laplace_mechanism

__all__ = ["composed_laplace_losses", "plot_composition_loss", "composition_loss_widget"]


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
    return laplace_privacy_loss(y, np.zeros(k), np.ones(k), 1.0 / eps)


def plot_composition_loss(epsilon, k, *, n_samples=100_000, rng=None):
    """The distribution of the total privacy loss of k epsilon-DP Laplace releases, against k epsilon.

    Left: histogram of the draws of :func:`composed_laplace_losses`, with the basic-composition bound
    ``+-k epsilon`` (theorem ``thm-basic-composition``) and the mean ``k (epsilon + e^-epsilon - 1)``.
    Right: the empirical ``P[L >= t]`` on a log axis; it ends at ``t = k epsilon`` with the atom
    ``P[L = k epsilon] = 2^-k`` (every release on the far side of f(x) from f(x')).
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(k, "k")
    losses = composed_laplace_losses(eps, k, n_samples=n_samples, rng=rng)
    bound, _ = basic_composition(eps, k)
    mean = k * (eps + np.expm1(-eps))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    heights, _, _ = left.hist(losses, bins=80, range=(-bound * 1.05, bound * 1.05), density=True, color="C0",
                              alpha=0.7)
    top = 1.05 * float(np.max(heights))  # the marks end at the data, so that a legend can sit above them
    left.vlines([-bound, bound], 0, top, color="C3", ls="--")
    left.vlines([mean], 0, top, color="k", ls=":", label=f"mean k(ε + e^-ε - 1) = {mean:.3g}")
    left.plot([], [], color="C3", ls="--", label=f"basic composition ±kε = ±{bound:.3g}")
    left.set_xlabel("total privacy loss L")
    left.set_title(f"k = {k} Laplace releases, ε = {eps:g} each")
    left.legend(fontsize=8, loc="upper left")
    t = np.linspace(-bound, bound, 400)
    sorted_losses = np.sort(losses)
    surv = 1.0 - np.searchsorted(sorted_losses, t, side="left") / losses.size
    right.semilogy(t, np.where(surv > 0, surv, np.nan), label="empirical P[L ≥ t]")
    right.axvline(bound, color="C3", ls="--", label="kε")
    right.axhline(0.5**k, color="C2", ls=":", label=f"2^-k = {0.5 ** k:.2g}")
    right.set_xlabel("t")
    right.set_title("tail of the total privacy loss")
    right.legend(fontsize=8, loc="lower left")
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
