"""Figures of the chapter "Differential privacy in the world"."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_epsilon, check_positive_int, check_probability, check_real_array
from ..approx_dp import group_privacy
from ..composition import basic_composition
from ..deidentification import equivalence_classes, posterior_bound

__all__ = ["plot_uniqueness", "plot_attack_posteriors", "plot_posterior_bound", "posterior_widget",
           "plot_units_of_privacy"]


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


def plot_attack_posteriors(posteriors, prior, epsilon):
    """What the attacker believes after each of many epsilon-DP releases: never more than the bound.

    A histogram of ``posteriors``, the attacker's exact posterior probability of the secret after each
    release (the homogeneity attack of the chapter, run against an epsilon-DP histogram), with the prior
    (dashed, "prior"), the bound ``posterior_bound(prior, epsilon)`` of theorem ``world-thm-posterior`` (solid,
    "bound") and the certainty a homogeneous class of a k-anonymous table gives (dotted, at 1). The title states
    the largest posterior seen and the bound, to three digits.
    """
    post = check_real_array(posteriors, "posteriors", ndim=1)
    if np.any((post < 0) | (post > 1)):
        raise ValueError("posteriors must be probabilities, in [0, 1]")
    p0 = check_probability(prior, "prior")
    eps = check_epsilon(epsilon)
    bound = float(posterior_bound(p0, eps))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    weights = np.full(post.size, 1.0 / post.size)
    ax.hist(post, bins=np.linspace(0.0, 1.0, 51), weights=weights, color="tab:blue", alpha=0.8, rwidth=0.9)
    top = ax.get_ylim()[1]
    ax.axvline(p0, color="grey", ls="--")
    ax.axvline(bound, color="tab:red")
    ax.axvline(1.0, color="black", ls=":")
    ax.text(p0 + 0.01, top * 1.05, "prior", va="bottom", color="grey")
    ax.text(bound + 0.01, top * 1.05, "bound", va="bottom", color="tab:red")
    ax.text(0.99, top * 1.05, "k-anonymous:\ncertain", ha="right", va="bottom")
    ax.set_ylim(0, top * 1.35)
    ax.set_xlim(0, 1.02)
    ax.set_xlabel("attacker's posterior after one release")
    ax.set_ylabel(f"share of {post.size:,} releases")
    ax.set_title(f"largest posterior {post.max():.3f}, bound {bound:.3f} (\u03b5 = {eps:g})")
    fig.tight_layout()
    return fig


def plot_units_of_privacy(epsilon=0.1, events_per_day=24, days=365, *, prior=0.01, days_shown=7):
    """What one epsilon protects: one event, one user-day, or one user over all the days.

    Left: a user's events, ``events_per_day`` a day (one dot each), for the first ``days_shown`` days, with one
    event, one user-day and the whole period outlined. Right: the epsilon each unit gets (log scale) from an
    event-level ``epsilon``: ``group_privacy`` over the events of a day (theorem ``thm-approx-group``), then
    ``basic_composition`` over ``days`` days (theorem ``thm-comp-basic``); each bar is labelled with the most a
    secret of prior ``prior`` can become (theorem ``world-thm-posterior``).
    """
    from matplotlib.patches import Rectangle

    eps = check_epsilon(epsilon)
    k = check_positive_int(events_per_day, "events_per_day")
    t = check_positive_int(days, "days")
    p0 = check_probability(prior, "prior", low_open=True, high_open=True)
    shown = check_positive_int(days_shown, "days_shown")
    if k > 60 or shown > 14 or shown > t:
        raise ValueError("events_per_day must be at most 60 and days_shown at most 14 and at most days, so that "
                         f"every event can be drawn; got events_per_day={k}, days_shown={shown}, days={t}")
    eps_day = group_privacy(eps, 0.0, k)[0]
    eps_all = basic_composition(eps_day, t)[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.4), gridspec_kw={"width_ratios": [1, 1.1]})
    xs, ys = np.meshgrid(np.arange(1, k + 1), np.arange(1, shown + 1))
    left.plot(xs.ravel(), ys.ravel(), "o", ms=3, color="tab:blue", alpha=0.6)
    day = min(3, shown)
    left.add_patch(Rectangle((0.4, day - 0.4), k + 0.2, 0.8, fill=False, ec="tab:orange", lw=2))
    left.add_patch(Rectangle((0.1, 0.4), k + 0.8, shown + 0.2, fill=False, ec="tab:green", lw=2, ls="--"))
    left.plot([k], [1], "o", ms=10, mfc="none", mec="tab:red", mew=2)
    left.text(k + 1.6, 1, "one event", va="center", color="tab:red")
    left.text(k + 1.6, day, "one user-day", va="center", color="tab:orange")
    left.text(k + 1.6, (day + 1 + shown) / 2, f"the user,\n{t} days", va="center", color="tab:green")
    left.set_xlim(-0.2, k * 1.75 + 2)
    left.set_ylim(shown + 0.7, 0.3)
    left.set_xticks([1, k])
    left.set_xlabel("events of the day")
    left.set_ylabel("day")
    left.set_yticks(range(1, shown + 1))
    left.set_title(f"one user: {k} events a day,\nthe first {shown} of {t} days")
    for side in ("top", "right"):
        left.spines[side].set_visible(False)
    units = [("one event", eps, "tab:red"), ("one user-day", eps_day, "tab:orange"),
             (f"the user, {t} days", eps_all, "tab:green")]
    for i, (name, e, color) in enumerate(units):
        right.barh(i, e, color=color, alpha=0.7)
        post = float(posterior_bound(p0, e))
        right.text(e * 1.3, i, f"\u03b5 = {e:g} \u2192 {post:.1%}", va="center")
    right.set_yticks(range(len(units)), [u[0] for u in units])
    right.invert_yaxis()
    right.set_xscale("log")
    right.set_xlim(eps / 3, eps_all * 1e4)
    right.set_xlabel("\u03b5 for that unit (log scale)")
    right.set_title(f"\u03b5 per unit \u2192 the most a {p0:.0%}\nsecret can become")
    fig.tight_layout()
    return fig
