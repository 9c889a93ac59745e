"""Figures of the chapter "Differential privacy in the world"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_epsilon, check_probability
from ..deidentification import equivalence_classes, posterior_bound

__all__ = ["plot_uniqueness", "plot_posterior_bound", "posterior_widget"]


def plot_uniqueness(table, column_sets, labels):
    """The share of respondents who are unique, and in classes of fewer than 5, as quasi-identifiers are added.

    Parameters
    ----------
    table : dict of 1-d arrays
    column_sets : list of lists of column names, growing
    labels : list of str, one short label per set
    """
    unique, small = [], []
    for cols in column_sets:
        _, sizes = equivalence_classes(table, cols)
        unique.append(np.mean(sizes == 1))
        small.append(np.mean(sizes < 5))
    x = np.arange(len(column_sets))
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    ax.bar(x - 0.2, small, width=0.4, label="in a class of fewer than 5", color="tab:orange")
    ax.bar(x + 0.2, unique, width=0.4, label="unique (class of 1)", color="tab:red")
    ax.set_xticks(x, labels, rotation=20, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of the 601 respondents")
    ax.set_title("Each added attribute splits the classes")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def plot_posterior_bound(epsilon=1.0, prior=0.1):
    """The most an epsilon-DP release can raise an attacker's belief: posterior bound against the prior.

    The curve is ``posterior_bound(p, epsilon)`` for every prior p (theorem ``world-thm-posterior``); the dot
    marks the chosen prior (its bound in the legend) and the dashed line is "learned nothing" (posterior = prior).
    """
    eps = check_epsilon(epsilon)
    p0 = check_probability(prior, "prior")
    p = np.linspace(0.0, 1.0, 401)
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    ax.plot(p, p, "--", color="grey", label="posterior = prior")
    ax.plot(p, posterior_bound(p, eps), color="tab:blue", label=f"largest posterior, ε = {eps:g}")
    post = posterior_bound(p0, eps)
    ax.plot([p0], [post], "o", color="tab:red", label=f"prior {p0:g} → at most {post:.3f}")
    ax.set_xlabel("prior probability of the secret")
    ax.set_ylabel("posterior probability (upper bound)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16))   # below the axes: the curves fill the square
    fig.tight_layout()
    return fig


def posterior_widget():
    """Controls for epsilon and the prior, redrawing :func:`plot_posterior_bound` (6 x 4 = 24 states)."""
    from .explorer import explorer

    return explorer(plot_posterior_bound,
                    {"epsilon": ("ε", (0.1, 0.5, 1.0, 2.0, 4.0, 8.0), 1.0),
                     "prior": ("prior", (0.01, 0.1, 0.5, 0.9), 0.1)},
                    alt="Largest posterior probability of a secret after an epsilon-DP release, against the prior")
