"""Figures of the chapter "Private learning"."""

from __future__ import annotations

import functools
import math

import matplotlib.pyplot as plt
import numpy as np
from scipy import special

from .._validation import as_rng, check_positive_int, check_real, check_real_array
from ..accounting import dpsgd_epsilon, dpsgd_noise_multiplier
from ..learning import (dp_logistic_regression, dpsgd_epsilon_by_composition, load_fair_features,
                        logistic_regression)

__all__ = [
    "fair_split",
    "minimiser_shift",
    "plot_minimiser_shift",
    "plot_dpsgd_step",
    "plot_subsampled_gaussian",
    "accuracy_versus_epsilon",
    "plot_accuracy_versus_epsilon",
    "accountants_versus_steps",
    "plot_accountants_versus_steps",
    "sample_size_experiment",
    "plot_sample_size",
    "plot_dpsgd_training",
    "dpsgd_widget",
]

METHODS = ("output", "objective", "dpsgd")
#: What is proved about each column of :func:`accuracy_versus_epsilon` (shown in the legend and the chapter's
#: table). Output perturbation: the Newton tolerance is charged to the sensitivity, so the released point is
#: covered. Objective perturbation: the theorem covers only the exact perturbed minimiser, and dpcourse
#: returns a Newton approximation of it. DP-SGD: the accountant's bound for the mechanism with real-valued
#: Gaussian noise (the implementation draws float Gaussians; see the chapter's remark).
GUARANTEE = {
    "output": "proven (replace-one)",
    "objective": "NOT proven: approximate minimiser",
    "dpsgd": "proven (add/remove at eps/2, so replace-one)",
}


def fair_split(n_train=5000, *, seed=0):
    """The Redbook data split at random (seeded) into ``n_train`` training rows and the rest for testing."""
    X, y, _ = load_fair_features()
    perm = np.random.default_rng(seed).permutation(y.size)
    tr, te = perm[:n_train], perm[n_train:]
    return X[tr], y[tr], X[te], y[te]


def minimiser_shift(n=20, regularization=0.5, *, seed=0):
    """The worst of a grid of replace-one neighbours of a small one-feature logistic regression.

    ``n`` respondents of the Redbook survey drawn at random (seeded), with one feature, the rating of the
    marriage mapped to [0, 1], and the label "had an affair"; no intercept. Every respondent is replaced in
    turn by each rating 0, 0.25, ..., 1 with each label, and the replacement that moves the regularised
    minimiser furthest is kept. Returns ``(x, y, x2, y2, w, w2)``: the two datasets (features of shape
    ``(n, 1)``, labels 0/1) and their minimisers (floats); ``|w - w2|`` is at most ``2/(n lambda)``
    (theorem ``learn-thm-output``).
    """
    n = check_positive_int(n, "n", minimum=2)
    lam = check_real(regularization, "regularization", low=0.0, low_open=True)
    if n > 200:
        raise ValueError(f"n must be at most 200 for this figure (a search over 10 n refits), got {n}")
    X, y, _ = load_fair_features()
    rows = np.random.default_rng(seed).choice(y.size, n, replace=False)
    x, yy = X[rows, :1] * 3.0, y[rows]  # column 0 is the rating mapped to [0, 1], divided by 3
    w = float(logistic_regression(x, yy, regularization=lam)[0])
    best = (-1.0, None)
    for i in range(n):
        for value in np.linspace(0.0, 1.0, 5):
            for label in (0, 1):
                x2, y2 = x.copy(), yy.copy()
                x2[i, 0], y2[i] = value, label
                w2 = float(logistic_regression(x2, y2, regularization=lam)[0])
                if abs(w2 - w) > best[0]:
                    best = (abs(w2 - w), (x2, y2, w2))
    x2, y2, w2 = best[1]
    return x, yy, x2, y2, w, w2


def plot_minimiser_shift(n=20, regularization=0.5, *, epsilon=1.0, delta=1e-5, seed=0):
    """Replacing one example moves the minimiser of a regularised objective a little, and output perturbation
    hides that move in noise.

    Top: the regularised logistic objective ``J`` on ``n`` respondents (one feature, see
    :func:`minimiser_shift`) and on the neighbour that moves its minimiser most; the grey band is where
    theorem ``learn-thm-output`` allows the neighbour's minimiser to be, within ``2/(n lambda)`` of the first.
    Bottom: the released weight, the minimiser plus Gaussian noise calibrated to (epsilon, delta) for the
    sensitivity ``2/(n lambda)`` (:func:`dpcourse.analytic_gaussian_sigma`, theorem
    ``thm-gaussian-analytic``), on each dataset.
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    from ..gaussian import analytic_gaussian_sigma

    eps = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    x, y, x2, y2, w, w2 = minimiser_shift(n, regularization, seed=seed)
    lam = float(regularization)
    n = y.size
    bound = 2.0 / (n * lam)
    sigma = analytic_gaussian_sigma(eps, delta, l2_sensitivity=bound)
    grid = np.linspace(w - max(3.5 * sigma, 4 * bound), w + max(3.5 * sigma, 4 * bound), 600)

    def objective(xs, ys):
        s = 2.0 * ys - 1.0
        return np.mean(np.logaddexp(0.0, -s[None, :] * grid[:, None] * xs[None, :, 0]), axis=1) + lam / 2 * grid**2

    fig, (ax, bx) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ax.axvspan(w - bound, w + bound, color="0.88", label=rf"within $2/(n\lambda)$ = {bound:.3g} of $w^*(D)$")
    ax.plot(grid, objective(x, y), color="tab:blue", label=r"$J_D$")
    ax.plot(grid, objective(x2, y2), color="tab:orange", label=r"$J_{D'}$ (one example replaced)")
    for value, colour in ((w, "tab:blue"), (w2, "tab:orange")):
        ax.axvline(value, color=colour, ls=":", lw=1.2)
    ax.set_ylabel("objective")
    ax.set_title(f"the minimiser moves by {abs(w2 - w):.3f} ({n} respondents, λ = {lam:g})", fontsize=10)
    ax.set_ylim(top=ax.get_ylim()[1] * 1.25)  # room for the legend above the bowl's bottom
    ax.legend(fontsize=8, loc="upper center")
    bx.plot(grid, stats.norm.pdf(grid, w, sigma), color="tab:blue", label=r"release on $D$")
    bx.plot(grid, stats.norm.pdf(grid, w2, sigma), color="tab:orange", label=r"release on $D'$")
    bx.set_xlabel("weight w")
    bx.set_ylabel("density")
    bx.set_title(f"released: minimiser + Gaussian noise of σ = {sigma:.3g}", fontsize=10)
    bx.legend(fontsize=8, loc="upper left", title=f"ε = {eps:g}, δ = {delta:g}", title_fontsize=8)
    fig.tight_layout()
    return fig


def plot_dpsgd_step(clip_norm=1.0, noise_multiplier=1.0, *, batch=12, seed=6):
    """One step of DP-SGD: clip each example's gradient to length C, add them up, add Gaussian noise of
    standard deviation σC.

    Illustrative gradients of a model with two parameters (``batch`` of them, seeded, a few much longer
    than the rest). Left: each gradient (grey) and its clipped version ``g min(1, C/||g||)`` (blue), inside
    the circle of radius C. Right: the sum of the clipped gradients (blue), the circles of radius σC and 2σC
    around its tip, and one noisy sum drawn with the seed (red). Clipping bounds what any one example can
    add to the sum by C, whatever its gradient; the noise is calibrated to that bound (theorem
    ``learn-thm-dpsgd``).
    """
    C = check_real(clip_norm, "clip_norm", low=0.0, low_open=True)
    sig = check_real(noise_multiplier, "noise_multiplier", low=0.0, low_open=True, high=100.0)
    b = check_positive_int(batch, "batch", minimum=2)
    if b > 50:
        raise ValueError(f"batch must be at most 50 for this figure, got {b}")
    gen = as_rng(seed)
    g = (np.array([0.5, 0.25]) + 0.35 * gen.normal(size=(b, 2))) * C * np.exp(0.7 * gen.normal(size=(b, 1)))
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    clipped = g * np.minimum(1.0, C / np.maximum(norms, 1e-300))
    total = clipped.sum(axis=0)
    noisy = total + gen.normal(0.0, sig * C, size=2)
    angle = np.linspace(0, 2 * np.pi, 200)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 4.6))
    zeros = np.zeros(b)
    ax.quiver(zeros, zeros, g[:, 0], g[:, 1], angles="xy", scale_units="xy", scale=1, color="0.65", width=0.006,
              label="gradient of each example")
    ax.quiver(zeros, zeros, clipped[:, 0], clipped[:, 1], angles="xy", scale_units="xy", scale=1,
              color="tab:blue", width=0.008, label="clipped to length C")
    ax.plot(C * np.cos(angle), C * np.sin(angle), color="tab:blue", lw=1, ls="--")
    reach = 1.1 * float(max(np.abs(g).max(), C))
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-reach, reach)
    ax.set_aspect("equal")
    ax.set_title(f"{b} examples, C = {C:g}: {int((norms[:, 0] > C).sum())} clipped", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    bx.quiver([0], [0], [total[0]], [total[1]], angles="xy", scale_units="xy", scale=1, color="tab:blue",
              width=0.008, label="sum of clipped gradients")
    for r, ls in ((sig * C, "-"), (2 * sig * C, "--")):
        bx.plot(total[0] + r * np.cos(angle), total[1] + r * np.sin(angle), color="tab:red", lw=1, ls=ls)
    bx.quiver([0], [0], [noisy[0]], [noisy[1]], angles="xy", scale_units="xy", scale=1, color="tab:red",
              width=0.008, label=f"+ noise N(0, (σC)²), σ = {sig:g}")
    pts = np.vstack([np.zeros(2), total, noisy, total + 2.2 * sig * C, total - 2.2 * sig * C])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    bx.set_xlim(lo[0] - 0.5, hi[0] + 0.5)
    bx.set_ylim(lo[1] - 0.5, hi[1] + 0.5)
    bx.set_aspect("equal")
    bx.set_title("released: the sum plus noise", fontsize=10)
    bx.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def plot_subsampled_gaussian(sampling_rate=0.05, noise_multiplier=1.0, *, delta=1e-5):
    """Sampling the batch hides each example: with rate q, the step's output barely moves when one example is
    added, and its privacy loss is small wherever outputs are likely.

    One step of DP-SGD along the direction of the added example's clipped gradient, in units of C (theorem
    ``learn-thm-dpsgd``): without the example the output is N(0, σ²); with it, N(1, σ²) if it is always in the
    batch (q = 1, dashed) but the mixture (1 - q) N(0, σ²) + q N(1, σ²) if each example enters with
    probability q. Left: the densities. Right: the privacy loss, the log of the ratio of the two densities,
    at each output. The legend gives the ε of one step at ``delta`` for each (:func:`dpcourse.dpsgd_epsilon`).
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of importing this module

    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0, high_open=True)
    sig = check_real(noise_multiplier, "noise_multiplier", low=0.1, high=100.0)
    grid = np.linspace(-3.5 * sig, 1 + 3.5 * sig, 600)
    absent, present = stats.norm.pdf(grid, 0.0, sig), stats.norm.pdf(grid, 1.0, sig)
    mixture = (1 - q) * absent + q * present
    eps_q = dpsgd_epsilon(q, noise_multiplier=sig, steps=1, delta=delta)
    eps_1 = dpsgd_epsilon(1.0, noise_multiplier=sig, steps=1, delta=delta)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 3.9))
    ax.plot(grid, absent, color="tab:orange", label="without the example")
    ax.plot(grid, mixture, color="tab:blue", label=f"with it, batch sampled at q = {q:g}")
    ax.plot(grid, present, color="tab:blue", ls="--", lw=1, label="with it, always in the batch")
    ax.set_xlabel("output along the added gradient (units of C)")
    ax.set_ylabel("density")
    ax.set_title(f"σ = {sig:g}", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    loss_full = (grid - 0.5) / sig**2
    loss_q = np.log1p(q * np.expm1(loss_full))
    bx.plot(grid, loss_q, color="tab:blue", label=f"q = {q:g}: one step has ε = {eps_q:.2f}")
    bx.plot(grid, loss_full, color="tab:blue", ls="--", lw=1, label=f"q = 1: one step has ε = {eps_1:.2f}")
    bx.axhline(0, color="0.6", lw=0.8)
    bx.fill_between(grid, bx.get_ylim()[0], bx.get_ylim()[1], where=absent > 0.05 * absent.max(), color="0.92",
                    zorder=0, label="likely outputs")
    bx.set_xlabel("output along the added gradient (units of C)")
    bx.set_ylabel("privacy loss")
    bx.set_title(f"log of the density ratio (ε at δ = {delta:g})", fontsize=10)
    bx.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def _accuracy(w, X, y):
    return float(np.mean((X @ w > 0) == (y == 1)))


def accuracy_versus_epsilon(epsilons=(0.5, 1.0, 2.0, 8.0), *, delta=1e-5, runs=3, regularization=None, seed=0):
    """Test accuracy on the Redbook data of the three methods at each epsilon (mean over ``runs`` seeds).

    Each column is run at parameters meant for (epsilon, delta) under **replace-one**; which of them carry a
    proven guarantee is recorded in :data:`GUARANTEE`. Output perturbation: proven directly (theorem
    ``learn-thm-output``, the Newton tolerance charged to the sensitivity). Objective perturbation: run with
    the constants of theorem ``learn-thm-objective``, which is proved for the *exact* perturbed minimiser
    only; the returned Newton approximation carries **no proven guarantee**. DP-SGD: run at
    (epsilon/2, delta/(1 + e^(epsilon/2))) under add/remove (expected batch 256 of the public training size
    5,000, 10 epochs = 195 steps), which gives (epsilon, delta) under replace-one by group privacy with k = 2
    (proven for real-valued Gaussian noise; the noise is a float Gaussian).

    Returns ``(table, baseline, base_rate)``: ``table[method]`` is an array over ``epsilons``; ``baseline`` is
    the non-private model's accuracy and ``base_rate`` that of always predicting "no affair". The
    regularisation per method (default: output 1e-3, objective 1e-3, dpsgd 1e-4) is fixed in advance, not
    tuned on the test set.
    """
    lam = {"output": 1e-3, "objective": 1e-3, "dpsgd": 1e-4} if regularization is None else dict(regularization)
    Xtr, ytr, Xte, yte = fair_split(seed=seed)
    gen = np.random.default_rng(seed)
    n_public = 5000  # the training-set size is fixed by the split before any data is seen
    q = 256 / n_public
    dpsgd_kw = dict(sampling_rate=q, steps=int(round(10 / q)), expected_batch_size=256.0)  # 10 epochs
    table = {m: np.zeros(len(epsilons)) for m in METHODS}
    for j, eps in enumerate(epsilons):
        for m in METHODS:
            if m == "dpsgd":
                # same relation for all three: (eps/2, delta/(1+e^(eps/2))) under add/remove implies
                # (eps, delta) under replace-one (group privacy, k = 2)
                e_m, d_m, kw = eps / 2, delta / (1 + math.exp(eps / 2)), dpsgd_kw
            else:
                e_m, d_m, kw = eps, delta, {}
            table[m][j] = np.mean([_accuracy(dp_logistic_regression(Xtr, ytr, e_m, d_m, method=m,
                                                                    regularization=lam[m], rng=gen, **kw),
                                             Xte, yte)
                                   for _ in range(runs)])
    baseline = _accuracy(logistic_regression(Xtr, ytr), Xte, yte)
    return table, baseline, float(1 - yte.mean())


def plot_accuracy_versus_epsilon(table, baseline, base_rate, epsilons=(0.5, 1.0, 2.0, 8.0)):
    """Test accuracy of output perturbation, objective perturbation and DP-SGD against epsilon, with the
    non-private model and the always-"no" base rate as horizontal lines."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for m, marker in zip(METHODS, "osd"):
        ax.semilogx(epsilons, table[m], marker + "-", label=f"{m}: {GUARANTEE[m]}")
    ax.axhline(baseline, color="black", ls="--", label="non-private")
    ax.axhline(base_rate, color="grey", ls=":", label="always 'no affair'")
    ax.minorticks_off()
    ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
    ax.set_xlabel("epsilon under replace-one (delta = 1e-5)")
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def accountants_versus_steps(sampling_rate, noise_multiplier, steps, delta=1e-5):
    """Epsilon of DP-SGD after each number of ``steps`` by basic and advanced composition of amplified steps,
    by RDP and by the PLD method: ``{name: array}``."""
    steps = [check_positive_int(k, "steps") for k in steps]
    out = {
        "basic": [dpsgd_epsilon_by_composition(sampling_rate, noise_multiplier, k, delta) for k in steps],
        "advanced": [dpsgd_epsilon_by_composition(sampling_rate, noise_multiplier, k, delta, method="advanced")
                     for k in steps],
        "rdp": [dpsgd_epsilon(sampling_rate, noise_multiplier=noise_multiplier, steps=k, delta=delta, method="rdp") for k in steps],
        "pld": [dpsgd_epsilon(sampling_rate, noise_multiplier=noise_multiplier, steps=k, delta=delta) for k in steps],
    }
    return {k: np.array(v) for k, v in out.items()}


def plot_accountants_versus_steps(table, steps, *, title=""):
    """Epsilon of DP-SGD against the number of steps (log-log) for four ways of accounting."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for name, style in zip(("basic", "advanced", "rdp", "pld"), ("o:", "s:", "^-", "d-")):
        ax.loglog(steps, table[name], style, label=name)
    ax.set_xlabel("steps")
    ax.set_ylabel("epsilon at delta = 1e-5")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _synthetic(n, d, gen, norm_w=4.0):
    """Rows uniform on the unit sphere of R^d, labels from a logistic model with ||w*|| = norm_w."""
    w_star = np.zeros(d)
    w_star[0] = norm_w
    X = gen.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (gen.random(n) < special.expit(X @ w_star)).astype(int)
    return X, y


def sample_size_experiment(ns, ds, *, epsilon=1.0, delta=1e-5, sampling_rate=0.05, steps=100, runs=3,
                           n_test=20000, seed=0):
    """Excess test logistic loss of DP-SGD over the non-private minimiser, against n, for each d.

    Synthetic data (rows on the unit sphere, a logistic model with ||w*|| = 4 along the first axis). For
    each (d, n) and each of ``runs`` datasets: the test loss of DP-SGD (fixed sampling rate and number of
    steps, so one noise multiplier serves every n) minus the test loss of the non-private minimiser on the
    same training set, on ``n_test`` fresh test points. Returns ``excess[d_index, n_index]`` (mean over runs).
    """
    gen = as_rng(seed)
    excess = np.zeros((len(ds), len(ns)))
    for i, d in enumerate(ds):
        Xte, yte = _synthetic(n_test, d, gen)
        s = 2 * yte - 1
        loss = lambda w: float(np.mean(np.logaddexp(0.0, -s * (Xte @ w))))  # noqa: E731
        for j, n in enumerate(ns):
            vals = []
            for _ in range(runs):
                X, y = _synthetic(n, d, gen)
                w_np = logistic_regression(X, y, regularization=1e-4)
                w_dp = dp_logistic_regression(X, y, epsilon, delta, method="dpsgd", regularization=1e-4,
                                              sampling_rate=sampling_rate, steps=steps,
                                              expected_batch_size=sampling_rate * n,  # n is a design choice here
                                              clip_norm=1.0, learning_rate=2.0, rng=gen)
                vals.append(loss(w_dp) - loss(w_np))
            excess[i, j] = np.mean(vals)
    return excess


def plot_sample_size(excess, ns, ds, *, epsilon=1.0, delta=1e-5):
    """Excess test loss of DP-SGD against n (log-log), one colour per d; dashed: the private-ERM rate
    alpha(n) = sqrt(d log(1/delta)) / (epsilon n) of Bassily, Smith and Thakurta (2014) for the same d
    (constant 1, logarithmic factors dropped)."""
    ns = np.asarray(ns, dtype=float)
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, d in enumerate(ds):
        ax.loglog(ns, np.maximum(excess[i], 1e-4), "o-", color=f"C{i}", label=f"d = {d}: DP-SGD")
        ax.loglog(ns, math.sqrt(d * math.log(1 / delta)) / (epsilon * ns), "--", color=f"C{i}", lw=1,
                  label=f"d = {d}: BST14 rate")
    ax.minorticks_off()
    ax.set_xticks(ns, [f"{v:g}" for v in ns])
    ax.set_xlabel("training set size n")
    ax.set_ylabel("excess test logistic loss")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


@functools.lru_cache(maxsize=4)
def _split_and_baseline(seed):
    """:func:`fair_split` and the non-private model's test accuracy: the same in every state of the live figure,
    so computed once (read-only arrays)."""
    Xtr, ytr, Xte, yte = fair_split(seed=seed)
    base = _accuracy(logistic_regression(Xtr, ytr), Xte, yte)
    for a in (Xtr, ytr, Xte, yte):
        a.flags.writeable = False
    return Xtr, ytr, Xte, yte, base


def plot_dpsgd_training(epsilon=1.0, clip_norm=0.5, batch_size=256, *, epochs=10, seed=0):
    """Test accuracy of DP-SGD on the Redbook data after each epoch, for one epsilon, clipping norm and
    expected batch size, against the non-private model (delta = 1e-5, learning rate 4/clip_norm)."""
    eps = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    epochs = check_positive_int(epochs, "epochs")
    C = check_real(clip_norm, "clip_norm", low=0.0, low_open=True)
    b = check_positive_int(batch_size, "batch_size")
    Xtr, ytr, Xte, yte, base = _split_and_baseline(0)
    n = ytr.size
    q = min(1.0, b / n)
    steps = max(1, int(round(epochs / q)))
    sigma = dpsgd_noise_multiplier(q, steps=steps, epsilon=eps, delta=1e-5)
    gen = np.random.default_rng(seed)
    s = 2.0 * ytr - 1.0
    w = np.zeros(Xtr.shape[1])
    lr = 4.0 / C
    checkpoints = {max(1, int(round(e * steps / epochs))) for e in range(1, epochs + 1)}  # end of each epoch
    acc = []
    for t in range(1, steps + 1):  # the loop of dp_logistic_regression, with the accuracy recorded on the way
        mask = gen.random(n) < q
        Xb, sb = Xtr[mask], s[mask]
        coef = -sb * special.expit(-sb * (Xb @ w))
        norms = np.abs(coef) * np.linalg.norm(Xb, axis=1)
        g = (coef * np.minimum(1.0, C / np.maximum(norms, 1e-300))) @ Xb + gen.normal(0.0, sigma * C, size=w.size)
        w -= lr * (g / (q * n) + 1e-4 * w)
        if t in checkpoints:
            acc.append(_accuracy(w, Xte, yte))
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.plot(np.arange(1, len(acc) + 1), acc, "o-", label="DP-SGD")
    ax.axhline(base, color="black", ls="--", label="non-private")
    ax.axhline(1 - yte.mean(), color="grey", ls=":", label="always 'no affair'")
    ax.set_ylim(0.6, 0.76)
    ax.set_xlabel("epoch")
    ax.set_ylabel("test accuracy")
    ax.set_title(f"epsilon = {eps:g}, C = {C:g}, batch ~ {b}: sigma = {sigma:.2f}, {steps} steps", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def dpsgd_widget():
    """Sliders for epsilon, the clipping norm and the expected batch size, redrawing :func:`plot_dpsgd_training`.

    A :func:`dpcourse.plots.explorer.explorer` with 4 x 3 x 2 = 24 settings.
    """
    from .explorer import explorer

    return explorer(plot_dpsgd_training,
                    {"epsilon": ("epsilon", (0.5, 1.0, 2.0, 8.0), 1.0),
                     "clip_norm": ("clipping norm C", (0.1, 0.5, 2.0), 0.5),
                     "batch_size": ("expected batch size", (64, 256), 256)},
                    alt="Test accuracy of DP-SGD per epoch on the Redbook survey against the non-private model",
                    epochs=10, seed=0)
