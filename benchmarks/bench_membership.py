"""Full-size runs of the chapter "Membership inference and auditing private training", with their cost.

1. LiRA (online and offline) with 256 models on a pool of 100 Redbook respondents (one-hot, 47 columns):
   non-private logistic regression and DP-SGD at epsilon 1, 4, 16; TPR at FPR 1e-3 and 1e-2, the bound of the
   (epsilon, delta) pair and the training's own curve (full-batch DP-SGD is mu-GDP, mu = sqrt(50) / sigma).
2. Canary audits of DP-SGD (full batch, 50 steps) with 1,000 runs per side: correct code at epsilon 1 and 4,
   and the "noise added once" bug at a claimed epsilon 1, each beside the accountant's epsilon.
3. The chapter's 200-run audits (DP-SGD at epsilon 4, the bug) repeated over ten seeds.

Times: the audit against its baseline, the same number of DP-SGD trainings alone (``train_models``), timed in
the same run, so the ratio says what the audit's statistics add to the trainings. Run with
``python benchmarks/bench_membership.py`` (about a minute on the course's 2-core machine).
"""

import time

import numpy as np

import dpcourse
from dpcourse import membership as mia
from dpcourse.learning import _clipped_gradient_sum, logistic_regression

SEED = 2026
N_POOL, N_MODELS, LAM = 100, 256, 1e-3
N_AUD, K_AUD, C_AUD, LR_AUD, DELTA, RUNS = 50, 50, 0.1, 4.0, 1e-5, 1000


def lira_table():
    X_all, y_all = mia.fair_onehot_features()
    pool = np.random.default_rng(SEED).choice(X_all.shape[0], N_POOL, replace=False)
    X, y = X_all[pool], y_all[pool]
    masks = mia.inclusion_masks(N_POOL, N_MODELS, rng=SEED + 1)
    trainers = {"non-private": (lambda Xs, ys, g: logistic_regression(Xs, ys, regularization=LAM), 0.0)}
    for eps in (1.0, 4.0, 16.0):
        trainers[f"eps = {eps:g}"] = (
            lambda Xs, ys, g, e=eps: dpcourse.dp_logistic_regression(
                Xs, ys, e, DELTA, sampling_rate=1.0, steps=50, expected_batch_size=N_POOL / 2, clip_norm=0.5,
                regularization=LAM, learning_rate=8.0, rng=g), eps)
    print(f"LiRA, {N_MODELS} models (each target scored with the other {N_MODELS - 1}), pool {N_POOL}")
    for name, (train, eps) in trainers.items():
        t0 = time.perf_counter()
        W = mia.train_models(train, X, y, masks, rng=SEED + 2)
        t_train = time.perf_counter() - t0
        phi = mia.logit_confidence(W, X, y)
        t0 = time.perf_counter()
        rows = []
        for online in (True, False):
            s = mia.lira_scores(phi, masks, online=online)
            t = mia.attack_tprs(s[masks], s[~masks])
            rows.append(f"{'online' if online else 'offline'} {t[1e-3]:.4f} / {t[1e-2]:.4f}")
        t_score = time.perf_counter() - t0
        bound = ""
        if eps > 0:
            sigma = dpcourse.dpsgd_noise_multiplier(1.0, steps=50, epsilon=eps, delta=DELTA)
            mu = dpcourse.gdp_mu(dpcourse.ComposedEvent(dpcourse.GaussianEvent(sigma), 50))
            bound = (f"; caps: (eps, delta) {mia.dp_tpr_bound(1e-3, eps, DELTA):.4f} / "
                     f"{mia.dp_tpr_bound(1e-2, eps, DELTA):.4f}, own curve (mu = {mu:.3f}) "
                     f"{mia.gdp_tpr_bound(1e-3, mu):.4f} / {mia.gdp_tpr_bound(1e-2, mu):.4f}")
        print(f"  {name:12s} TPR at FPR 1e-3 / 1e-2: {', '.join(rows)}{bound}   "
              f"(train {t_train:.2f} s, score {t_score * 1e3:.0f} ms)")


def noise_once(eps):
    """The bug of the chapter: DP-SGD's noise added once at the end (broken on purpose)."""
    sigma = dpcourse.dpsgd_noise_multiplier(1.0, steps=K_AUD, epsilon=eps, delta=DELTA)

    def train(Xs, ys, gen):
        yv = 2.0 * ys - 1.0
        w = np.zeros(Xs.shape[1])
        for _ in range(K_AUD):
            w -= LR_AUD * (_clipped_gradient_sum(Xs, yv, w, C_AUD) / N_AUD + LAM * w)
        return w - LR_AUD * gen.normal(0.0, sigma * C_AUD, Xs.shape[1]) / N_AUD
    return train


def _audit_setup():
    """The chapter's audit data: 50 respondents, a column of zeros, and the canary that is 1 there."""
    X_all, y_all = mia.fair_onehot_features()
    rows = np.random.default_rng(SEED + 3).choice(X_all.shape[0], N_AUD, replace=False)
    X = np.column_stack([X_all[rows], np.zeros(N_AUD)])
    y = y_all[rows]
    canary = np.zeros(X.shape[1])
    canary[-1] = 1.0
    return X, y, canary


def audits():
    X, y, canary = _audit_setup()

    def dpsgd(eps):
        return lambda Xs, ys, g: dpcourse.dp_logistic_regression(
            Xs, ys, eps, DELTA, sampling_rate=1.0, steps=K_AUD, expected_batch_size=N_AUD, clip_norm=C_AUD,
            regularization=LAM, learning_rate=LR_AUD, rng=g)

    print(f"\nCanary audits, {RUNS} runs per side, DP-SGD full batch, {K_AUD} steps, 95% confidence")
    for name, train, eps in (("DP-SGD", dpsgd(1.0), 1.0), ("DP-SGD", dpsgd(4.0), 4.0),
                             ("noise once (bug)", noise_once(1.0), 1.0)):
        sigma = dpcourse.dpsgd_noise_multiplier(1.0, steps=K_AUD, epsilon=eps, delta=DELTA)
        accountant = dpcourse.dpsgd_epsilon(1.0, noise_multiplier=sigma, steps=K_AUD, delta=DELTA)
        t0 = time.perf_counter()
        res = mia.canary_audit(train, X, y, canary, 1, RUNS, delta=DELTA, rng=SEED + 4)
        t_audit = time.perf_counter() - t0
        t0 = time.perf_counter()
        mia.train_models(train, X, y, np.ones((2 * RUNS, N_AUD), dtype=bool), rng=SEED + 5)
        t_base = time.perf_counter() - t0
        print(f"  {name:17s} claimed epsilon {eps:g}: accountant {accountant:.3f}, audit lower bound "
              f"{res.lower_bound:.3f}, refuted {res.refutes(eps)}   (audit {t_audit:.2f} s; {2 * RUNS} trainings "
              f"alone {t_base:.2f} s; ratio {t_audit / t_base:.2f})")


def audit_spread(seeds=10, runs=200):
    """The chapter's audits (200 runs per side) repeated with ten seeds: one audit is one random draw."""
    X, y, canary = _audit_setup()
    print(f"\nThe chapter's audits ({runs} runs per side) with seeds {SEED + 4} ... {SEED + 3 + seeds}")
    for name, train, eps in (("DP-SGD eps 4", lambda Xs, ys, g: dpcourse.dp_logistic_regression(
            Xs, ys, 4.0, DELTA, sampling_rate=1.0, steps=K_AUD, expected_batch_size=N_AUD, clip_norm=C_AUD,
            regularization=LAM, learning_rate=LR_AUD, rng=g), 4.0), ("noise once, claim 1", noise_once(1.0), 1.0)):
        bounds = np.array([mia.canary_audit(train, X, y, canary, 1, runs, delta=DELTA, rng=SEED + 4 + k).lower_bound
                           for k in range(seeds)])
        print(f"  {name:20s} lower bounds {np.round(bounds, 3).tolist()}; above the claimed {eps:g}: "
              f"{int((bounds > eps).sum())} of {seeds}")


if __name__ == "__main__":
    lira_table()
    audits()
    audit_spread()
