"""Membership inference on trained models and canary audits of private training.

Chapter "Membership inference and auditing private training":

* **LiRA** (Carlini et al. 2022): train shadow models on random halves of a public pool, record each
  pool record's logit-confidence under the models that saw it ("in") and the models that did not ("out"),
  fit one Gaussian to each, and score a target model's confidence on the record by the likelihood ratio
  (online) or by the one-sided tail of the "out" Gaussian (offline). :func:`lira_scores` does this for
  every model of the pool at once, each in turn the target and the others its shadows (leave-one-out),
  vectorized over models and records.
* **The DP bound** on any attack (theorem ``mia-thm-tpr-bound``): one minus a trade-off function the training
  algorithm is known to satisfy, under add/remove one. :func:`dp_tpr_bound` uses the one an (epsilon, delta)
  pair gives (:func:`dpcourse.fdp.tradeoff_epsilon_delta`); :func:`gdp_tpr_bound` the Gaussian curve
  G_mu (:func:`dpcourse.fdp.tradeoff_gaussian`) of a mu-GDP algorithm, such as full-batch DP-SGD, which is the
  mechanism's own curve and far below the first at large epsilon.
* **A canary audit** (theorem ``mia-thm-audit``): :func:`canary_audit` trains many models with and
  without one inserted record and gives a lower bound on epsilon with :func:`dpcourse.audit.audit_epsilon`
  (Clopper-Pearson, theorem ``thm-audit-validity``), to set beside the accountant's epsilon.

Nothing here is private: these are attacks and tests. Errors name public arguments only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import special  # loaded by .fdp anyway (scipy.stats is the slow import, kept inside lira_scores)

from ._validation import (as_rng, check_callable, check_delta, check_epsilon, check_flag,
                          check_positive_int, check_probability, check_real_array)
from .audit import AuditResult, audit_epsilon
from .gaussian import _check_mu
from .attacks import tpr_at_fpr

__all__ = ["fair_onehot_features", "inclusion_masks", "train_models", "logit_confidence", "lira_scores", "roc_points", "attack_tprs",
           "dp_tpr_bound", "gdp_tpr_bound", "canary_audit", "MAX_MODELS", "OneHotFeatures", "RocCurve"]

#: Cap on the number of models trained or scored in one call (shadow models, audit runs per side).
MAX_MODELS = 100_000


class OneHotFeatures(NamedTuple):
    """The one-hot encoded affairs survey of :func:`fair_onehot_features`."""

    X: np.ndarray
    y: np.ndarray


class RocCurve(NamedTuple):
    """An ROC curve (:func:`roc_points`): false- and true-positive rates, from (0, 0) to (1, 1)."""

    fpr: np.ndarray
    tpr: np.ndarray


def _labels_pm(y, n, name="y"):
    raw = np.asarray(y)
    if raw.dtype == bool:
        raise TypeError(f"{name} must hold labels 0/1 or -1/+1, got booleans (use .astype(int))")
    yv = check_real_array(y, name, ndim=1)
    if yv.shape[0] != n:
        raise ValueError(f"{name} must have one label per row of X (their lengths differ)")
    values = set(np.unique(yv).tolist())
    if values <= {0.0, 1.0}:
        return 2.0 * yv - 1.0
    if values <= {-1.0, 1.0}:
        return yv
    raise ValueError(f"{name} must hold labels in {{0, 1}} or in {{-1, +1}}")


def fair_onehot_features() -> OneHotFeatures:
    """The Redbook affairs survey (Fair 1978) one-hot encoded: ``(X, y)`` with 47 columns.

    Each of the eight answer columns of :func:`dpcourse.learning.load_fair_features` becomes one indicator
    per answer level (5 + 6 + 7 + 6 + 4 + 6 + 6 + 6 = 46), plus a constant 1, all divided by 3: every row
    has exactly 9 ones / 3, Euclidean norm 1. Many columns and few rows make an unregularised logistic
    regression overfit, which is what an attack needs.

    Returns
    -------
    OneHotFeatures
        ``X`` of shape (6366, 47); ``y`` = 1 for any time in extramarital affairs, else 0.

    Examples
    --------
    >>> X, y = fair_onehot_features()
    >>> X.shape, round(float(np.linalg.norm(X[0])), 12)
    ((6366, 47), 1.0)
    """
    from .data import read_csv
    from .learning import FAIR_BOUNDS

    table = read_csv("fair_redbook.csv")
    cols = [(table[name] == level).astype(float) for name in FAIR_BOUNDS for level in np.unique(table[name])]
    cols.append(np.ones(table["any_affair"].shape[0]))
    return OneHotFeatures(np.column_stack(cols) / 3.0, table["any_affair"].astype(int))


def inclusion_masks(n_records: int, n_models: int, *, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Which pool record each shadow model trains on: a boolean array of shape (n_models, n_records).

    Every record is in exactly half of the models (Carlini et al.'s balanced design), the half drawn
    uniformly at random for each record independently, so each model sees about half of the pool. Not a
    release: the design of an attack on public data (the shadow models of theorem ``mia-thm-audit``'s
    add/remove-one neighbours).

    Parameters
    ----------
    n_records : int
        Size of the pool, >= 1.
    n_models : int
        Number of models, even, in [2, MAX_MODELS]; ``n_records * n_models`` at most 1e8.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of bool, shape (n_models, n_records)

    Examples
    --------
    >>> m = inclusion_masks(5, 4, rng=0)
    >>> m.shape, m.sum(axis=0).tolist()
    ((4, 5), [2, 2, 2, 2, 2])
    """
    n = check_positive_int(n_records, "n_records")
    k = check_positive_int(n_models, "n_models", minimum=2)
    if k % 2 or k > MAX_MODELS:
        raise ValueError(f"n_models must be even and at most {MAX_MODELS}, got {k}")
    if n * k > 10**8:
        raise ValueError(f"n_records * n_models must be at most 1e8, got {n} * {k}")
    gen = as_rng(rng)
    ranks = np.argsort(gen.random((k, n)), axis=0)
    return ranks < k // 2


def train_models(train: Callable[[np.ndarray, np.ndarray, np.random.Generator], ArrayLike], X: ArrayLike,
                 y: ArrayLike, masks: ArrayLike, *, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Train one model per row of ``masks`` on the records it selects; returns the weights, (n_models, d).

    Not a release itself: the models are as private as ``train`` is (e.g. :func:`dpcourse.dp_logistic_regression`,
    whose guarantee, theorem ``learn-thm-dpsgd``, is under add/remove one); each call gets its own generator
    spawned from ``rng``, so the models are independent.

    Parameters
    ----------
    train : callable
        ``train(X_subset, y_subset, rng)`` returns a weight vector of length d.
    X : array_like of shape (n, d)
        The pool's features.
    y : array_like of shape (n,)
        The pool's labels, passed to ``train`` as they are.
    masks : bool array of shape (n_models, n)
        Which records each model trains on (:func:`inclusion_masks`); at most ``MAX_MODELS`` rows.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of shape (n_models, d)

    Examples
    --------
    >>> fit = lambda X, y, rng: np.full(2, float(len(y)))
    >>> train_models(fit, np.ones((3, 2)), [0, 1, 1], np.array([[True, False, True], [True, True, True]])).tolist()
    [[2.0, 2.0], [3.0, 3.0]]
    """
    train = check_callable(train, "train")
    X = check_real_array(X, "X", ndim=2)
    masks = np.asarray(masks)
    if masks.dtype != bool or masks.ndim != 2 or masks.shape[1] != X.shape[0]:
        raise ValueError(f"masks must be a boolean array of shape (n_models, {X.shape[0]})")
    if masks.shape[0] > MAX_MODELS:
        raise ValueError(f"at most {MAX_MODELS} models per call, got {masks.shape[0]}")
    yv = np.asarray(y)
    if yv.ndim == 0 or yv.shape[0] != X.shape[0]:
        raise ValueError("y must have one label per row of X (their lengths differ)")
    gens = as_rng(rng).spawn(masks.shape[0])
    W = np.empty((masks.shape[0], X.shape[1]))
    for j, (m, g) in enumerate(zip(masks, gens)):
        w = np.asarray(train(X[m], yv[m], g), dtype=float)
        if w.shape != (X.shape[1],):
            raise ValueError(f"train must return a weight vector of shape ({X.shape[1]},), got {w.shape}")
        W[j] = w
    return W


def logit_confidence(W: ArrayLike, X: ArrayLike, y: ArrayLike) -> np.ndarray:
    """Logit-scaled confidence of each model in each record's true label, shape (n_models, n_records).

    For logistic regression the model's probability of label y in {-1, +1} is sigmoid(y w.x), so the
    logit log(p / (1 - p)) of that probability is exactly the margin ``y w.x``: the statistic LiRA fits
    with a Gaussian (Carlini et al. 2022, Section IV).

    Parameters
    ----------
    W : array_like of shape (n_models, d)
        The models' weights.
    X : array_like of shape (n_records, d)
        The records' features.
    y : array_like of shape (n_records,)
        Labels 0/1 or -1/+1.

    Returns
    -------
    numpy.ndarray of shape (n_models, n_records)

    Examples
    --------
    >>> logit_confidence(np.array([[1.0, -1.0]]), np.array([[2.0, 0.5], [1.0, 1.0]]), [1, 0]).tolist()
    [[1.5, -0.0]]
    """
    X = check_real_array(X, "X", ndim=2)
    W = check_real_array(W, "W", ndim=2)
    if W.shape[1] != X.shape[1]:
        raise ValueError(f"W must have {X.shape[1]} columns (one per column of X), got {W.shape[1]}")
    yv = _labels_pm(y, X.shape[0])
    return (W @ X.T) * yv


def lira_scores(confidences: ArrayLike, masks: ArrayLike, *, online: bool = True,
                fixed_variance: bool = False) -> np.ndarray:
    """LiRA membership scores of every (model, record) pair, each model the target and the others its shadows.

    For target model j and record i, the Gaussians N(mu_in, s_in^2) and N(mu_out, s_out^2) are fitted to
    the confidences of record i under the *other* models that did and did not train on it (leave-one-out;
    computed for all j at once from running sums). The score is

    * online: ``log N(phi; mu_in, s_in^2) - log N(phi; mu_out, s_out^2)``, the log likelihood ratio;
    * offline: ``log P[Z <= phi]`` with Z ~ N(mu_out, s_out^2), needing no "in" models;

    where phi is model j's confidence on record i. A larger score means "member". With
    ``fixed_variance`` one standard deviation per side, pooled over all records, replaces the per-record
    ones (Carlini et al.'s choice when there are few shadow models).

    Parameters
    ----------
    confidences : array of shape (n_models, n_records)
        From :func:`logit_confidence`.
    masks : bool array of the same shape
        From :func:`inclusion_masks`; each record must be in at least 3 and out of at least 3 models.
    online : bool, default True
        The likelihood ratio (True) or the offline one-sided score (False).
    fixed_variance : bool, default False
        One pooled standard deviation per side instead of one per record.

    Returns
    -------
    numpy.ndarray of shape (n_models, n_records)
        Members are ``scores[masks]``, non-members ``scores[~masks]``.

    Examples
    --------
    >>> phi = np.array([[1.0], [0.9], [1.1], [1.2], [0.0], [0.1], [-0.1], [0.2]])
    >>> masks = np.array([[True]] * 4 + [[False]] * 4)
    >>> s = lira_scores(phi, masks)
    >>> bool(s[masks].min() > s[~masks].max())
    True
    """
    from scipy import stats  # here, not at the top: it costs about 0.9 s of `import dpcourse`

    phi = check_real_array(confidences, "confidences", ndim=2)
    masks = np.asarray(masks)
    if masks.dtype != bool or masks.shape != phi.shape:
        raise ValueError(f"masks must be a boolean array of the shape of confidences {phi.shape}")
    online = check_flag(online, "online")
    fixed_variance = check_flag(fixed_variance, "fixed_variance")
    n_in = masks.sum(axis=0)
    if n_in.min() < 3 or (masks.shape[0] - n_in).min() < 3:
        raise ValueError("every record must be in at least 3 and out of at least 3 models "
                         "(use inclusion_masks with n_models >= 8)")
    # Both scores are unchanged by a shift of one record's confidences and by one scale for all of them, so the
    # running sums below are taken on centred columns: raw sums of squares cancel (confidences 1e4 apart from their
    # spread 1e-3 gave scores off by 8) and overflow (entries near 1e200 gave NaN scores). One power of two, exact,
    # brings the largest entry below 2**500 first (the mean itself would overflow near 1e308).
    _, top = np.frexp(np.max(np.abs(phi)))
    phi = np.ldexp(phi, -max(int(top) - 500, 0))
    phi = phi - phi.mean(axis=0)
    # A second power of two brings the largest centred entry into [1/2, 1), so the variance floor below is relative to
    # the confidences' spread: an absolute floor made every record look constant when the confidences were small
    # (all of them times 1e-7 changed scores by 9; times 1e-200, every score was equal and the attack found nobody).
    _, spread = np.frexp(np.max(np.abs(phi)))
    phi = np.ldexp(phi, -int(spread))

    def fit(side):
        w = side.astype(float)
        s1, s2, c = (w * phi).sum(0), (w * phi * phi).sum(0), w.sum(0)
        c_loo = c - w                                   # leave model j out: shape (n_models, n_records)
        mu = (s1 - w * phi) / c_loo
        var = ((s2 - w * phi * phi) - c_loo * mu * mu) / (c_loo - 1)
        var = np.maximum(var, 0.0)
        if fixed_variance:
            var = np.broadcast_to(var.mean(axis=1, keepdims=True), var.shape)
        return mu, np.sqrt(np.maximum(var, 1e-12))     # a floor keeps a constant column finite

    mu_out, sd_out = fit(~masks)
    if not online:
        return stats.norm.logcdf((phi - mu_out) / sd_out)
    mu_in, sd_in = fit(masks)
    return stats.norm.logpdf(phi, mu_in, sd_in) - stats.norm.logpdf(phi, mu_out, sd_out)


def roc_points(member_scores: ArrayLike, nonmember_scores: ArrayLike) -> RocCurve:
    """The ROC curve of the tests "score > t" over all thresholds t: arrays (fpr, tpr), from (0, 0) to (1, 1).

    Parameters
    ----------
    member_scores, nonmember_scores : array_like of shape (m,)
        The attack's scores on members and on non-members.

    Returns
    -------
    RocCurve
        ``(fpr, tpr)``, two arrays of equal length.

    Examples
    --------
    >>> fpr, tpr = roc_points([3.0, 2.0], [1.0, 2.5])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    mem = check_real_array(member_scores, "member_scores", ndim=1)
    non = check_real_array(nonmember_scores, "nonmember_scores", ndim=1)
    t = np.unique(np.concatenate([mem, non]))[::-1]
    ms, ns = np.sort(mem), np.sort(non)
    tpr = (mem.size - np.searchsorted(ms, t, side="left")) / mem.size    # P[score >= t]
    fpr = (non.size - np.searchsorted(ns, t, side="left")) / non.size
    return RocCurve(np.concatenate([[0.0], fpr]), np.concatenate([[0.0], tpr]))


def attack_tprs(member_scores: ArrayLike, nonmember_scores: ArrayLike,
                fprs: Sequence[float] = (1e-3, 1e-2)) -> dict[float, float]:
    """``{fpr: TPR at that FPR}`` with :func:`dpcourse.attacks.tpr_at_fpr` (test "score > tau").

    Parameters
    ----------
    member_scores, nonmember_scores : array_like of shape (m,)
        The attack's scores on members and on non-members.
    fprs : sequence of float
        False-positive rates in [0, 1].

    Returns
    -------
    dict
        ``{fpr: tpr}``.

    Examples
    --------
    >>> attack_tprs([3.0, 2.0], [1.0, 2.5], fprs=[0.5])
    {0.5: 1.0}
    """
    if isinstance(fprs, (str, bytes)) or not isinstance(fprs, (Sequence, np.ndarray)) or np.ndim(fprs) != 1:
        raise TypeError(f"fprs must be a sequence of false-positive rates in [0, 1], got {type(fprs).__name__}")
    rates = [check_probability(f, "fprs") for f in fprs]
    return {float(f): tpr_at_fpr(member_scores, nonmember_scores, f) for f in rates}


#: Relative amount :func:`dp_tpr_bound` rounds its cap up by (a few ulp of exp and four float operations).
TPR_BOUND_MARGIN = 1e-14
#: Relative amount :func:`gdp_tpr_bound` rounds its cap up by (measured error of ndtr(ndtri(a) + mu) below 1e-12).
GDP_BOUND_MARGIN = 4e-12
#: The smallest normal float. Below it a float is a multiple of 2**-1074 and a relative margin no longer moves it:
#: a cap there is rounded up by an absolute amount instead.
_TINY = float(np.finfo(float).tiny)


def dp_tpr_bound(fpr: ArrayLike, epsilon: float, delta: float = 0.0) -> float | np.ndarray:
    """Largest TPR any membership test can have at false-positive rate ``fpr`` against (epsilon, delta)-DP training.

    ``1 - f_{epsilon, delta}(fpr) = min(1, e^eps fpr + delta, 1 - e^-eps (1 - delta - fpr))`` (theorem
    ``mia-thm-tpr-bound``), with the trade-off function :func:`dpcourse.fdp.tradeoff_epsilon_delta` of the
    chapter on hypothesis testing (theorem ``fdp-thm-dp-as-tradeoff``), for the membership game under
    add/remove one.

    Parameters
    ----------
    fpr : float or array_like
        False-positive rates in [0, 1] (vectorized).
    epsilon : float
        epsilon > 0 of the training's claim.
    delta : float, default 0.0
        delta in [0, 1).

    Returns
    -------
    float or numpy.ndarray
        The TPR caps, rounded up (never optimistic), of the shape of ``fpr``.

    Examples
    --------
    >>> round(float(dp_tpr_bound(0.01, 1.0)), 6)
    0.027183
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    f = check_real_array(fpr, "fpr")
    if np.any(f < 0) or np.any(f > 1):
        raise ValueError("fpr must lie in [0, 1]")
    # min(1, e^eps fpr + delta, 1 - e^-eps (1 - delta - fpr)) with the last term written as the sum of
    # non-negative terms (1 - e^-eps) + e^-eps (delta + fpr): no cancellation (1 - f_{eps,delta}(fpr) does cancel,
    # to 0 at fpr = 1e-20). Then rounded up by a relative TPR_BOUND_MARGIN (covers the few ulp of exp and the
    # arithmetic) and never below min(1, fpr + delta), so a cap is never optimistic.
    with np.errstate(over="ignore", invalid="ignore"):
        line = np.where(f > 0, np.exp(eps) * f, 0.0) + d
        tangent = -np.expm1(-eps) + np.exp(-eps) * (d + f)
        bound = np.minimum(line, tangent) * (1.0 + TPR_BOUND_MARGIN)
    # a subnormal cap (fpr below 2.2e-308) is rounded to a multiple of 5e-324 that the relative margin cannot move:
    # one more float up (e^0.4 * 5e-324 rounds to 5e-324, below its value 7.4e-324)
    bound = np.where((bound > 0) & (bound < _TINY), np.nextafter(bound, np.inf), bound)
    bound = np.minimum(1.0, np.maximum(bound, f + d))
    return float(bound) if bound.ndim == 0 else bound


def gdp_tpr_bound(fpr: ArrayLike, mu: float) -> float | np.ndarray:
    """Largest TPR any membership test can have at false-positive rate ``fpr`` against mu-GDP training.

    ``1 - G_mu(fpr) = Phi(Phi^{-1}(fpr) + mu)`` (theorem ``mia-thm-tpr-bound`` with f = G_mu), G_mu the trade-off
    function :func:`dpcourse.fdp.tradeoff_gaussian` (theorem ``fdp-thm-gaussian-curve``), for the membership game
    under add/remove one. This is the training algorithm's own curve when it is a composition of Gaussian
    mechanisms: full-batch DP-SGD (sampling rate 1) for k steps with noise multiplier sigma adds N(0, (sigma C)^2)
    to a sum of gradients clipped to C, k times, so it is mu-GDP with ``mu = sqrt(k) / sigma`` (theorem
    ``fdp-thm-gdp-composition``; ``dpcourse.gdp_mu(ComposedEvent(GaussianEvent(sigma), k))``). Its
    sequence of noisy steps is exactly G_mu on a record whose clipped gradient has norm C at every step (the final
    weights alone, a post-processing of it, can be harder to test). No (epsilon, delta) pair says as much:
    :func:`dp_tpr_bound` at the (epsilon, delta) this mu implies is 1 - f_{epsilon, delta}, a tangent line
    above the curve.

    Parameters
    ----------
    fpr : float or array_like
        False-positive rates in [0, 1] (vectorized).
    mu : float
        mu > 0, finite.

    Returns
    -------
    float or numpy.ndarray
        The TPR caps, rounded up (never optimistic), of the shape of ``fpr``.

    Examples
    --------
    >>> round(float(gdp_tpr_bound(0.01, 1.0)), 6)  # Phi(-2.326348 + 1)
    0.092362
    >>> round(float(gdp_tpr_bound(0.01, 50 ** 0.5 / 26.39)), 4), round(float(dp_tpr_bound(0.01, 1.0, 1e-5)), 4)
    (0.0198, 0.0272)
    """
    m = _check_mu(mu)
    f = check_real_array(fpr, "fpr")
    if np.any(f < 0) or np.any(f > 1):
        raise ValueError("fpr must lie in [0, 1]")
    # 1 - G_mu(a) = Phi(Phi^{-1}(a) + mu), evaluated in that form: 1 - tradeoff_gaussian(a, mu) cancels to 0 for a
    # tiny a. Never below a itself (G_mu(a) <= 1 - a), which rounding could otherwise break for a tiny mu.
    with np.errstate(divide="ignore"):
        bound = np.maximum(special.ndtr(special.ndtri(f) + m), f)   # ndtri(0) = -inf -> 0, ndtri(1) = inf -> 1
        # ndtr flushes to 0 below x = -37.9 and is inexact below the normal range (gdp_tpr_bound(5e-324, 0.3) was
        # 5e-324 where the cap is 4.9e-319): there take exp(log_ndtr), within 3e-13 relative of Phi(x)
        tail = (bound < _TINY) & (f > 0)
        if np.any(tail):
            bound = np.where(tail, np.maximum(np.exp(special.log_ndtr(special.ndtri(f) + m)), f), bound)
    # ndtr/ndtri are accurate to a few ulp but not rounded up; the error of ndtri is magnified by |x| in the tail
    # (up to ~4e-13 relative measured): round up by GDP_BOUND_MARGIN relative so the cap is never optimistic.
    bound = np.minimum(1.0, bound * (1.0 + GDP_BOUND_MARGIN))
    # below the normal range the relative margin rounds away: add it as an absolute one, GDP_BOUND_MARGIN * _TINY
    bound = np.where((bound > 0) & (bound < _TINY), bound + GDP_BOUND_MARGIN * _TINY, bound)
    return float(bound) if bound.ndim == 0 else bound


def canary_audit(train: Callable[[np.ndarray, np.ndarray, np.random.Generator], ArrayLike], X: ArrayLike,
                 y: ArrayLike, canary_x: ArrayLike, canary_y: float, runs: int, *, delta: float,
                 confidence: float = 0.95, rng: np.random.Generator | int | None = None) -> AuditResult:
    """Audit a training algorithm with one canary: a lower bound on its epsilon (theorem ``mia-thm-audit``).

    The neighbouring datasets are D = (X, y) and D' = D plus the record (canary_x, canary_y) (add/remove
    one). The mechanism audited is "train on the dataset, output the model's logit-confidence on the
    canary" (a post-processing of the trained model, so it is (epsilon, delta)-DP if training is). It is run
    ``runs`` times on each dataset, and :func:`dpcourse.audit.audit_epsilon` selects a threshold test on half
    the runs and bounds its two error rates with Clopper-Pearson on the other half: with probability at least
    ``confidence`` the returned ``lower_bound`` is at most the training's true epsilon at this delta.

    Parameters
    ----------
    train : callable
        ``train(X, y, rng) -> weights`` (as for :func:`train_models`). It receives the labels in the coding
        of ``y`` (0/1 or -1/+1), the canary's label recoded to match.
    X, y : arrays
        The dataset without the canary.
    canary_x : array of shape (d,)
        The inserted record's features.
    canary_y : float
        Its label, 0/1 or -1/+1, whatever the coding of ``y``.
    runs : int
        Training runs per dataset, in [100, MAX_MODELS].
    delta : float
        The delta of the claim being audited, in [0, 1).
    confidence : float
        In (0, 1).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    dpcourse.audit.AuditResult

    Examples
    --------
    >>> noisy = lambda X, y, rng: rng.normal(size=X.shape[1])          # ignores the data: epsilon 0
    >>> r = canary_audit(noisy, np.zeros((4, 2)), [0, 1, 0, 1], np.ones(2), 1, 100, delta=0.0, rng=0)
    >>> r.lower_bound
    0.0
    """
    train = check_callable(train, "train")
    X = check_real_array(X, "X", ndim=2)
    yv = _labels_pm(y, X.shape[0])
    cx = check_real_array(canary_x, "canary_x", ndim=1)
    if cx.shape[0] != X.shape[1]:
        raise ValueError(f"canary_x must have {X.shape[1]} entries (one per column of X), got {cx.shape[0]}")
    cy = float(_labels_pm(np.array([canary_y]), 1, "canary_y")[0])
    r = check_positive_int(runs, "runs", minimum=100)
    if r > MAX_MODELS:
        raise ValueError(f"runs must be at most {MAX_MODELS}, got {r}")
    d = check_delta(delta)
    conf = check_probability(confidence, "confidence", low_open=True, high_open=True)
    # train gets the labels in the caller's coding (0/1 or -1/+1), as train_models passes them; the canary's
    # label is recoded to match (a trainer that maps 0/1 to -1/+1 would turn -1 into -3 otherwise).
    zero_one = set(np.unique(check_real_array(y, "y", ndim=1)).tolist()) <= {0.0, 1.0}
    yt, ct = ((yv + 1.0) / 2.0, (cy + 1.0) / 2.0) if zero_one else (yv, cy)
    X1, y1 = np.vstack([X, cx]), np.append(yt, ct)

    def mechanism(with_canary, gen, size=None):
        Xs, ys = (X1, y1) if with_canary else (X, yt)
        masks = np.ones((size, Xs.shape[0]), dtype=bool)
        W = train_models(train, Xs, ys, masks, rng=gen)
        return cy * (W @ cx)

    return audit_epsilon(mechanism, False, True, r, rng=rng, confidence=conf, delta=d)
