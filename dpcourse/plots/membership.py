"""Figures of the chapter "Membership inference and auditing private training"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_real_array
from ..membership import dp_tpr_bound, gdp_tpr_bound
from ..queries import tpr_at_fpr
from .explorer import STATIC_DPI

__all__ = ["FPR_GRID", "roc_on_grid", "plot_attack_roc", "membership_widget"]

#: False-positive rates at which a ROC is kept for the figures (log-spaced, 1e-3 to 1).
FPR_GRID = np.round(np.logspace(-3, 0, 31), 6)


def roc_on_grid(member_scores, nonmember_scores, grid=FPR_GRID) -> np.ndarray:
    """TPR of the attack at each false-positive rate of ``grid`` (:func:`dpcourse.queries.tpr_at_fpr`)."""
    return np.array([tpr_at_fpr(member_scores, nonmember_scores, f) for f in grid])


def plot_attack_roc(fpr_grid, tprs, labels, epsilons, *, model, fpr, delta=1e-5, mus=None):
    """Log-log ROC of the attack on one model beside the DP bounds (theorem ``mia-thm-tpr-bound``).

    ``tprs[i]`` is the ROC of model ``labels[i]`` on ``fpr_grid``, trained with ``epsilons[i]`` (0 for a
    non-private model, which has no bound). ``model`` picks the label shown in colour (the others are grey),
    ``fpr`` the false-positive rate marked with the measured TPR and the bound's value. ``mus[i]`` (optional, 0
    for none) is the GDP parameter of model i's training: its own curve 1 - G_mu (:func:`gdp_tpr_bound`) is drawn
    beside the bound the (epsilon, delta) pair alone gives.
    """
    grid = check_real_array(fpr_grid, "fpr_grid", ndim=1)
    labels = list(labels)
    k = labels.index(model)
    fig, ax = plt.subplots(figsize=(6.4, 4.6), dpi=STATIC_DPI)  # the book's static dpi, whatever the backend set
    ax.plot(grid, grid, color="0.6", lw=1, ls=":", label="chance (TPR = FPR)")
    others = [i for i in range(len(labels)) if i != k]
    for i in others:
        ax.plot(grid, np.maximum(tprs[i], 1e-4), color="0.8", lw=1, label="the other models" if i == others[0] else None)
    ax.plot(grid, np.maximum(tprs[k], 1e-4), color="C0", lw=2, label=f"LiRA on {model}")
    eps = float(epsilons[k])
    tpr = tpr_at_fpr_from_grid(grid, tprs[k], fpr)
    title = f"{model}: TPR {tpr:.3f} at FPR {fpr:g}"
    if eps > 0:
        ax.plot(grid, dp_tpr_bound(grid, eps, delta), color="C3", ls="--", label=f"(ε, δ) bound, ε = {eps:g}")
        title += f" (bound {dp_tpr_bound(fpr, eps, delta):.3f}"
        mu = 0.0 if mus is None else float(mus[k])
        if mu > 0:
            ax.plot(grid, gdp_tpr_bound(grid, mu), color="C1", ls="-.", label=f"its own curve, μ = {mu:.3f}")
            title += f", own curve {gdp_tpr_bound(fpr, mu):.3f}"
        title += ")"
    ax.plot([fpr], [max(tpr, 1e-4)], "o", color="C0")
    ax.set(xscale="log", yscale="log", xlim=(1e-3, 1), ylim=(1e-4, 1.05), xlabel="false-positive rate",
           ylabel="true-positive rate", title=title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def tpr_at_fpr_from_grid(grid, tprs, fpr) -> float:
    """The stored TPR at the grid point nearest ``fpr`` (the figures are drawn from precomputed ROCs)."""
    return float(np.asarray(tprs)[int(np.argmin(np.abs(np.log(grid) - np.log(fpr))))])


def membership_widget(fpr_grid, tprs, labels, epsilons, mus=None):
    """Sliders for the model (non-private or an epsilon) and the marked FPR: at most 4 x 3 = 12 figures.

    The expensive part (training shadow models, scoring) is done once by the chapter; each state only
    draws the stored ROCs.
    """
    from .explorer import explorer

    labels = list(labels)
    extra = {} if mus is None else {"mus": [float(m) for m in mus]}
    return explorer(plot_attack_roc,
                    {"model": ("model", tuple(labels), labels[0]),
                     "fpr": ("FPR", (0.001, 0.01, 0.1), 0.01)},
                    alt="ROC of the likelihood-ratio attack on a logistic regression, log-log, with the DP bounds on "
                        "any attack's true-positive rate: the (epsilon, delta) one and the training's own GDP curve",
                    fpr_grid=np.asarray(fpr_grid), tprs=[list(map(float, t)) for t in tprs], labels=labels,
                    epsilons=[float(e) for e in epsilons], **extra)
