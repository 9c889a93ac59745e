"""Figures of the chapter "Membership inference and auditing private training"."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_real_array
from ..membership import dp_tpr_bound, gdp_tpr_bound
from ..attacks import tpr_at_fpr
from .explorer import STATIC_DPI

__all__ = ["FPR_GRID", "lira_idea_summary", "plot_lira_idea", "roc_on_grid", "plot_attack_roc", "membership_widget"]

#: False-positive rates at which a ROC is kept for the figures (log-spaced, 1e-3 to 1).
FPR_GRID = np.round(np.logspace(-3, 0, 31), 6)


def _record_fit(phi, masks, i):
    inside, outside = phi[masks[:, i], i], phi[~masks[:, i], i]
    m_in, m_out = float(inside.mean()), float(outside.mean())
    s_in, s_out = float(inside.std(ddof=1)), float(outside.std(ddof=1))
    spread = max(math.sqrt((s_in ** 2 + s_out ** 2) / 2), 1e-12)  # a floor for a constant column, as in lira_scores
    return {"record": int(i), "mean_in": m_in, "sd_in": s_in, "mean_out": m_out, "sd_out": s_out,
            "separation": (m_in - m_out) / spread}


def lira_idea_summary(confidences, masks) -> dict:
    """How far one record's confidence moves when it is trained on: a typical record and the most exposed one.

    ``confidences[j, i]`` is model j's confidence on record i (:func:`dpcourse.membership.logit_confidence`),
    ``masks[j, i]`` whether model j trained on record i (:func:`dpcourse.membership.inclusion_masks`). For each
    record the confidences under the models that trained on it ("in") and under the others ("out") have means
    and standard deviations; the record's *separation* is the difference of the means over the root mean square
    of the two standard deviations. Returns ``{"typical": fit, "exposed": fit}`` for the record of median
    separation (the lower median) and for the record of the largest, each fit a dict with keys ``record,
    mean_in, sd_in, mean_out, sd_out, separation``. LiRA (definition ``mia-def-lira``) fits exactly these
    Gaussians, per record, from shadow models.

    Examples
    --------
    >>> phi = np.array([[2.0, 0.1], [2.2, 0.0], [0.0, 0.2], [0.2, 0.1]])
    >>> masks = np.array([[True, True], [True, False], [False, True], [False, False]])
    >>> s = lira_idea_summary(phi, masks)
    >>> s["exposed"]["record"], round(s["exposed"]["separation"], 1), s["typical"]["record"]
    (0, 14.1, 1)
    """
    phi = check_real_array(confidences, "confidences", ndim=2)
    masks = np.asarray(masks)
    if masks.dtype != bool or masks.shape != phi.shape:
        raise ValueError(f"masks must be a boolean array of the shape of confidences {phi.shape}")
    n_in = masks.sum(axis=0)
    if n_in.min() < 2 or (masks.shape[0] - n_in).min() < 2:
        raise ValueError("every record must be in at least 2 and out of at least 2 models (use inclusion_masks)")
    fits = [_record_fit(phi, masks, i) for i in range(phi.shape[1])]
    order = sorted(range(len(fits)), key=lambda i: (fits[i]["separation"], i))
    return {"typical": fits[order[(len(order) - 1) // 2]], "exposed": fits[order[-1]]}


def plot_lira_idea(confidences, masks):
    """One respondent's confidence under the models that trained on her and under those that did not, for a
    typical respondent and for the most exposed one, with the Gaussians fitted to each side.

    The records are those of :func:`lira_idea_summary`. Where the two Gaussians overlap much, no threshold on the
    confidence separates the models that trained on the record from the others (a test tells them apart only
    weakly); where they are apart, a likelihood-ratio test (LiRA,
    definition ``mia-def-lira``) can say "member" with few false positives. The titles state the means and
    standard deviations."""
    phi = check_real_array(confidences, "confidences", ndim=2)
    masks = np.asarray(masks)
    summary = lira_idea_summary(phi, masks)
    fig, axes = plt.subplots(1, 2, figsize=(9.6, 3.9), dpi=STATIC_DPI)
    for ax, (kind, fit) in zip(axes, (("a typical respondent", summary["typical"]),
                                      ("the most exposed respondent", summary["exposed"]))):
        i = fit["record"]
        inside, outside = phi[masks[:, i], i], phi[~masks[:, i], i]
        lo = min(inside.min(), outside.min())
        hi = max(inside.max(), outside.max())
        pad = 0.15 * (hi - lo) + 1e-9
        bins = np.linspace(lo - pad, hi + pad, 25)
        ax.hist(outside, bins=bins, density=True, color="C1", alpha=0.45, label="models without her (out)")
        ax.hist(inside, bins=bins, density=True, color="C0", alpha=0.45, label="models trained on her (in)")
        grid = np.linspace(bins[0], bins[-1], 400)
        for m, s, color in ((fit["mean_out"], fit["sd_out"], "C1"), (fit["mean_in"], fit["sd_in"], "C0")):
            s = max(s, 1e-12)
            ax.plot(grid, np.exp(-0.5 * ((grid - m) / s) ** 2) / (s * math.sqrt(2 * math.pi)), color=color, lw=2)
        top = ax.get_ylim()[1]
        ax.set_ylim(0, top * 1.45)
        ax.set_xlabel("confidence φ on her true answer")
        ax.set_ylabel("density")
        ax.set_title(f"{kind}\nin {fit['mean_in']:.1f} ± {fit['sd_in']:.1f}, out {fit['mean_out']:.1f} ± "
                     f"{fit['sd_out']:.1f}", fontsize=10)
        ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def roc_on_grid(member_scores, nonmember_scores, grid=FPR_GRID) -> np.ndarray:
    """TPR of the attack at each false-positive rate of ``grid`` (:func:`dpcourse.attacks.tpr_at_fpr`)."""
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
