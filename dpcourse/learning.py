"""Private logistic regression: output perturbation, objective perturbation and DP-SGD.

All three train the L2-regularised logistic regression

    J(w) = (1/n) sum_i log(1 + exp(-y_i w.x_i)) + (lambda / 2) ||w||^2,      y_i in {-1, +1},

and release weights. They differ in where the noise enters (chapter "Private learning"):

* ``"output"``: minimise J exactly, add noise to the minimiser (Chaudhuri, Monteleoni & Sarwate 2011,
  Algorithm 1). Needs ||x_i|| <= 1 and lambda > 0. Guarantee under **replace-one** (theorem
  ``learn-thm-output``): L2 sensitivity of the minimiser 2/(n lambda).
* ``"objective"``: add a random linear term to J and minimise (their Algorithm 2). Needs ||x_i|| <= 1 and
  lambda > 0. The exact perturbed minimiser is pure epsilon-DP under **replace-one** (theorem
  ``learn-thm-objective``); the returned Newton approximation of it carries no proven guarantee.
* ``"dpsgd"``: noisy gradient descent on Poisson samples with per-example clipping (Abadi et al. 2016).
  Any features (clipping bounds each contribution). (epsilon, delta)-DP under **add/remove one**
  (theorem ``learn-thm-dpsgd``), the noise calibrated by :func:`dpcourse.accounting.dpsgd_noise_multiplier`;
  sampling rate, steps and normaliser are public arguments, never derived from the private n.

Per-example gradients are one matrix product (no Python loop over examples).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._validation import (as_rng, check_choice, check_delta, check_epsilon, check_positive_int, check_real,
                          check_real_array)
from .accounting import dpsgd_noise_multiplier
from .exact_uniform import bernoulli, dyadic_bounds
from .gaussian import gaussian_mechanism

__all__ = ["logistic_regression", "dp_logistic_regression", "logistic_loss", "load_fair_features", "FairFeatures"]

#: Ranges of DP-SGD's public parameters in :func:`dp_logistic_regression`. With them (and
#: learning_rate * regularization <= 1, steps <= 10**6) every iterate stays far below the float range for
#: any finite data, so the weights are finite for every dataset: no data can make the release fail or NaN.
MIN_CLIP_NORM, MAX_CLIP_NORM = 1e-12, 1e6
MIN_EXPECTED_BATCH, MAX_EXPECTED_BATCH = 1e-3, 1e12
MAX_LEARNING_RATE = 1e6

#: Newton's method stops when ||grad J|| <= GRAD_TOL; output perturbation charges the remaining distance
#: ||w - w*|| <= GRAD_TOL / lambda (strong convexity) to the sensitivity, on both neighbours.
GRAD_TOL = 1e-8


def _check_xy(X, y, *, unit_ball, min_rows=2):
    # min_rows = 0 for DP-SGD: under add/remove one, a table of 0 or 1 rows neighbours one of 1 or 2 rows,
    # so it is answered (the message never quotes the private number of rows either).
    X = check_real_array(X, "X", ndim=2, allow_empty=min_rows == 0)
    if X.shape[0] < min_rows:
        raise ValueError(f"X must have at least {min_rows} rows (examples) for this method")
    raw = np.asarray(y)
    if raw.dtype == bool:
        raise TypeError("y must hold labels 0/1 or -1/+1, got booleans (use .astype(int))")
    yv = check_real_array(y, "y", ndim=1, allow_empty=min_rows == 0)
    if yv.shape[0] != X.shape[0]:
        raise ValueError("y must have one label per row of X (their lengths differ)")
    values = set(np.unique(yv).tolist())
    if values <= {0.0, 1.0}:
        yv = 2.0 * yv - 1.0
    elif not values <= {-1.0, 1.0}:
        raise ValueError("y must hold labels in {0, 1} or in {-1, +1} (the same coding for every row): "
                         "recode the labels before the call")
    if unit_ball:
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        if np.any(norms > 1.0 + 1e-12):
            raise ValueError("every row of X must have Euclidean norm <= 1 for this method (the sensitivity "
                             "assumes it): rescale the rows by a public bound, or clip each row to norm 1, "
                             "before the call")
    return X, yv


def _check_lambda(regularization):
    lam = check_real(regularization, "regularization", low=0.0, low_open=True)
    return lam


def logistic_loss(w: ArrayLike, X: ArrayLike, y: ArrayLike) -> float:
    """Average logistic loss (1/n) sum log(1 + exp(-y_i w.x_i)), labels 0/1 or -1/+1 (not private).

    Parameters
    ----------
    w : array_like of shape (d,)
        Weights.
    X : array_like of shape (n, d), n >= 2
        Features.
    y : array_like of shape (n,)
        Labels in {0, 1} or {-1, +1}.

    Returns
    -------
    float

    Examples
    --------
    >>> round(logistic_loss([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], [1, 0]), 6)   # log 2
    0.693147
    """
    Xv, yv = _check_xy(X, y, unit_ball=False)
    wv = check_real_array(w, "w", ndim=1)
    if wv.shape[0] != Xv.shape[1]:
        raise ValueError(f"w must have {Xv.shape[1]} entries (one per column of X), got {wv.shape[0]}")
    return float(np.mean(np.logaddexp(0.0, -yv * (Xv @ wv))))


def _norm(v: np.ndarray) -> float:
    """Euclidean norm of a finite vector; where the plain one overflows (entries above ~1e154), scaled by the
    largest entry first (np.linalg.norm(b) was inf for a huge noise b, which made Newton stop at once at w = 0)."""
    with np.errstate(over="ignore"):
        r = float(np.linalg.norm(v))
    if math.isinf(r):
        top = float(np.max(np.abs(v)))
        with np.errstate(over="ignore", invalid="ignore"):
            r = top * float(np.linalg.norm(v / top))
    return r


def _newton(X, yv, lam, linear=None, max_iter=100):
    """Minimise (1/n) sum log(1+exp(-y w.x)) + lam/2 ||w||^2 + linear.w by Newton's method with
    backtracking, until ||grad|| <= GRAD_TOL (1 + ||linear||); without a linear term (the case output
    perturbation relies on) exactly GRAD_TOL. Raises if it does not get there (never returns a point whose
    distance to the minimiser is not controlled)."""
    n, d = X.shape
    b = np.zeros(d) if linear is None else linear
    w = np.zeros(d)
    tol = GRAD_TOL * (1.0 + _norm(b))  # the linear term's size sets the float precision

    def obj(w):
        return float(np.mean(np.logaddexp(0.0, -yv * (X @ w))) + 0.5 * lam * (w @ w) + b @ w)

    f = obj(w)
    for _ in range(max_iter):
        m = yv * (X @ w)
        s = special.expit(-m)  # -l'(m)
        grad = -(X.T @ (s * yv)) / n + lam * w + b
        gnorm = _norm(grad)
        if gnorm <= tol:
            return w
        hdiag = s * (1.0 - s)
        H = (X.T * hdiag) @ X / n + lam * np.eye(d)
        step = np.linalg.solve(H, grad)
        t = 1.0
        while True:
            w_new = w - t * step
            f_new = obj(w_new)
            if f_new <= f - 1e-4 * t * float(grad @ step) or t < 1e-10:
                break
            t *= 0.5
        if t < 1e-10:  # no decrease possible in floating point: accept only if already near the optimum
            if gnorm <= 1e3 * tol and linear is not None:
                return w
            break
        w, f = w_new, f_new
    raise RuntimeError(f"Newton's method did not reach ||grad|| <= {tol:.3g} (last {gnorm:.3g}); "
                       "increase regularization or rescale the features")


def logistic_regression(X: ArrayLike, y: ArrayLike, *, regularization: float = 1e-6) -> np.ndarray:
    """Non-private L2-regularised logistic regression (the baseline): the minimiser of J(w), by Newton.

    Parameters
    ----------
    X : array of shape (n, d)
        Features (add a column of ones for an intercept).
    y : array of shape (n,)
        Labels in {0, 1} or {-1, +1}.
    regularization : float
        lambda > 0 (a tiny default keeps the problem strongly convex on separable data).

    Returns
    -------
    numpy.ndarray of shape (d,)
        The weights (not private).

    Examples
    --------
    >>> X = np.array([[1.0, 0.5], [1.0, -0.5], [1.0, 0.4], [1.0, -0.3]])
    >>> w = logistic_regression(X, [1, 0, 0, 1], regularization=0.1)
    >>> bool(abs(w[1]) < 1)
    True
    """
    X, yv = _check_xy(X, y, unit_ball=False)
    return _newton(X, yv, _check_lambda(regularization))


def _gamma_norm_noise(d, beta, gen):
    """Noise b with density proportional to exp(-beta ||b||) on R^d: ||b|| ~ Gamma(d, 1/beta), uniform
    direction (Chaudhuri, Monteleoni & Sarwate 2011). Float sampler: no exact sampler exists in dpcourse."""
    if not (beta > 0 and math.isfinite(1.0 / beta)):  # beta underflowed: the noise is infinite (callers refuse)
        return np.full(d, np.inf)
    direction = gen.standard_normal(d)
    direction /= np.linalg.norm(direction)
    return gen.gamma(shape=d, scale=1.0 / beta) * direction


def _output(X, yv, eps, delta, lam, gen):
    n, d = X.shape
    w = _newton(X, yv, lam)
    # theorem learn-thm-output: ||w*(D) - w*(D')|| <= 2/(n lam); Newton stops within GRAD_TOL/lam of w*
    sensitivity = 2.0 / (n * lam) + 2.0 * GRAD_TOL / lam
    if not math.isfinite(sensitivity):
        raise ValueError(f"regularization={lam!r} is too small for output perturbation: the sensitivity "
                         f"2/(n regularization) overflows; use a larger regularization")
    if delta > 0:
        return gaussian_mechanism(w, sensitivity, eps, delta, rng=gen)  # exact lattice sampler
    out = w + _gamma_norm_noise(d, eps / sensitivity, gen)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"epsilon={eps!r} is too small for output perturbation at regularization={lam!r}: "
                         f"the noise overflows")
    return out


def _objective(X, yv, eps, lam, gen):
    n, d = X.shape
    c = 0.25  # logistic loss: |l'| <= 1 and l'' <= 1/4
    # Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 2 (theorem learn-thm-objective)
    # n^2 lambda^2 underflows to 0 for lambda below ~1e-162 / n (a ZeroDivisionError was raised): the log term is
    # then infinite, and the algorithm takes its second branch, as it does for any lambda that small
    nl2 = n * n * lam * lam
    eps_p = eps - math.log(1.0 + 2.0 * c / (n * lam) + c * c / nl2) if nl2 > 0 else -math.inf
    extra = 0.0
    if eps_p <= 0:
        denom = n * math.expm1(eps / 4.0)
        extra = c / denom - lam if denom > 0 else math.inf
        eps_p = eps / 2.0
    b = _gamma_norm_noise(d, eps_p / 2.0, gen)
    if not (np.all(np.isfinite(b)) and math.isfinite(_norm(b)) and math.isfinite(extra)):
        raise ValueError(f"epsilon={eps!r} is too small for objective perturbation here: the noise overflows")
    return _newton(X, yv, lam + extra, linear=b / n)


def _clipped_gradient_sum(Xb, yb, w, clip_norm):
    """Sum over the rows of the per-example logistic gradients, each clipped to norm <= clip_norm.

    A row of any finite size is clipped, never turned into NaN: when a squared row norm overflows, the
    row is divided by its largest |entry| t first (x = t u), and the clipped gradient
    ``coef x min(1, C / (|coef| ||x||))`` is computed as ``coef u min(t, C / (|coef| ||u||))``.
    """
    with np.errstate(over="ignore"):
        sq = np.einsum("ij,ij->i", Xb, Xb)
    if np.isfinite(sq).all():
        coef = -yb * special.expit(-yb * (Xb @ w))  # d/dm log(1+e^-m) times y: per-example gradient = coef x
        norms = np.abs(coef) * np.sqrt(sq)
        scale = np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))  # clip each gradient to norm <= C
        return (coef * scale) @ Xb
    top = np.max(np.abs(Xb), axis=1)
    t = np.where(top > 0, top, 1.0)
    U = Xb / t[:, None]
    with np.errstate(over="ignore"):
        coef = -yb * special.expit(-yb * (t * (U @ w)))  # the margin may be +-inf, never NaN
    row = np.minimum(t, clip_norm / np.maximum(np.abs(coef) * np.sqrt(np.einsum("ij,ij->i", U, U)), 1e-300))
    return (coef * row) @ U


def _dpsgd(X, yv, eps, delta, lam, gen, *, clip_norm, sampling_rate, steps, expected_batch_size, learning_rate):
    n, d = X.shape
    q = sampling_rate
    sigma = dpsgd_noise_multiplier(q, steps=steps, epsilon=eps, delta=delta)  # q, steps, eps, delta: all public, none from n
    expected = expected_batch_size  # public normaliser given by the caller, never computed from the private n
    q_exact = Fraction(q)
    q_bounds = lambda prec: dyadic_bounds(q_exact, prec)  # noqa: E731 (the float q is an exact dyadic)
    w = np.zeros(d)
    for _ in range(steps):
        mask = bernoulli(gen, n, q_bounds)  # Poisson sampling: each record kept with probability exactly q
        Xb, yb = X[mask], yv[mask]
        g = _clipped_gradient_sum(Xb, yb, w, clip_norm)
        g += gen.normal(0.0, sigma * clip_norm, size=d)  # float Gaussian: see the chapter's remark
        w -= learning_rate * (g / expected + lam * w)
    return w


def dp_logistic_regression(X: ArrayLike, y: ArrayLike, epsilon: float, delta: float, *, method: str = "dpsgd",
                           regularization: float = 1e-3, clip_norm: float = 0.5, sampling_rate: float | None = None,
                           steps: int | None = None, expected_batch_size: float | None = None,
                           learning_rate: float = 8.0, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Differentially private L2-regularised logistic regression; returns the released weights.

    Guarantees (chapter "Private learning"), for finite features:

    * ``"output"`` (Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 1; theorem ``learn-thm-output``): (epsilon,
      delta)-DP under **replace-one** for rows of norm <= 1 (sensitivity 2/(n lambda) + 2e-8/lambda, Newton's
      slack on each neighbour), with :func:`dpcourse.gaussian_mechanism`'s exact noise if delta > 0, else float
      noise ~ exp(-eps ||b|| / sens).
    * ``"objective"`` (their Algorithm 2 with c = 1/4; theorem ``learn-thm-objective``): the *exact* minimiser
      of the perturbed objective is epsilon-DP under **replace-one** for rows of norm <= 1; for the returned
      Newton approximation of it (||grad|| <= 1e-8) **no guarantee is claimed**.
    * ``"dpsgd"`` (theorem ``learn-thm-dpsgd``): (epsilon, delta)-DP under **add/remove one**, delta > 0:
      Poisson sampling, per-example clipping to ``clip_norm``, float Gaussian noise ``sigma * clip_norm`` (sigma
      from :func:`dpcourse.accounting.dpsgd_noise_multiplier`), the noisy sum over ``expected_batch_size``.

    Parameters
    ----------
    X, y : array_like, shapes (n, d) and (n,)
        Features (rows of norm <= 1 for "output" and "objective") and labels in {0, 1} or {-1, +1}.
    epsilon, delta : float
        epsilon > 0; delta in [0, 1), > 0 for "dpsgd", unused by "objective".
    method : {"dpsgd", "output", "objective"}
    regularization : float
        lambda > 0 of J(w).
    clip_norm : float
        Per-example gradient clipping norm C in [1e-12, 1e6] (dpsgd only).
    sampling_rate, steps, expected_batch_size : float, int, float
        DP-SGD's Poisson rate in (0, 1], steps in [1, 10**6], normaliser in [1e-3, 1e12] (e.g. the rate times a
        public n): public, required for "dpsgd", never derived from the private n.
    learning_rate : float
        Step size in (0, 1e6] with ``learning_rate * regularization <= 1`` (dpsgd only).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of shape (d,)
        The released weights.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(500, 3)) / 3
    >>> X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    >>> y = (X[:, 0] > 0).astype(int)
    >>> dp_logistic_regression(X, y, 1.0, 1e-5, method="output", regularization=0.01, rng=1).shape
    (3,)
    """
    method = check_choice(method, "method", ("dpsgd", "output", "objective"))
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    lam = _check_lambda(regularization)
    X, yv = _check_xy(X, y, unit_ball=method != "dpsgd", min_rows=0 if method == "dpsgd" else 2)
    gen = as_rng(rng)
    if method == "output":
        return _output(X, yv, eps, d, lam, gen)
    if method == "objective":
        return _objective(X, yv, eps, lam, gen)
    if d == 0:
        raise ValueError("delta must be > 0 for method='dpsgd' (a Gaussian mechanism is never (epsilon, 0)-DP)")
    C = check_real(clip_norm, "clip_norm", low=MIN_CLIP_NORM, high=MAX_CLIP_NORM)
    for name, value in (("sampling_rate", sampling_rate), ("steps", steps),
                        ("expected_batch_size", expected_batch_size)):
        if value is None:
            raise ValueError(f"{name} is required for method='dpsgd': it must be public and is never derived "
                             f"from the private dataset size n")
    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0)
    k = check_positive_int(steps, "steps")
    if k > 10**6:
        raise ValueError(f"steps must be <= 1e6, got {k!r}")
    b = check_real(expected_batch_size, "expected_batch_size", low=MIN_EXPECTED_BATCH, high=MAX_EXPECTED_BATCH)
    lr = check_real(learning_rate, "learning_rate", low=0.0, low_open=True, high=MAX_LEARNING_RATE)
    if lr * lam > 1.0:
        raise ValueError(f"learning_rate * regularization must be <= 1 (the weight decay factor 1 - learning_rate * "
                         f"regularization must stay in [0, 1)), got {lr!r} * {lam!r} = {lr * lam!r}")
    return _dpsgd(X, yv, eps, d, lam, gen, clip_norm=C, sampling_rate=q, steps=k, expected_batch_size=b,
                  learning_rate=lr)


#: Public bounds of the Fair (1978) Redbook survey columns used as features (from the questionnaire's
#: coding for the 1-5, 1-4, 9-20 and 1-6 scales; generous round bounds for age, years married, children),
#: chosen without looking at the data's extremes.
FAIR_BOUNDS = {
    "rate_marriage": (1.0, 5.0), "age": (16.0, 60.0), "yrs_married": (0.0, 40.0), "children": (0.0, 10.0),
    "religious": (1.0, 4.0), "educ": (9.0, 20.0), "occupation": (1.0, 6.0), "occupation_husb": (1.0, 6.0),
}


class FairFeatures(NamedTuple):
    """The Redbook affairs survey as a learning problem (:func:`load_fair_features`)."""

    X: np.ndarray
    y: np.ndarray
    names: list[str]


def load_fair_features() -> FairFeatures:
    """The Redbook affairs survey (Fair 1978; 6,366 women) as a learning problem: ``(X, y, names)``.

    ``X`` holds the eight answer columns, each mapped to [0, 1] by the public bounds :data:`FAIR_BOUNDS` (values
    outside are clamped), then a constant 1 (the intercept), all divided by 3 = sqrt(9): every row has Euclidean
    norm <= 1, as output and objective perturbation require.

    Returns
    -------
    FairFeatures
        ``X`` (6366, 9); ``y``, 1 if the respondent reported any time in extramarital affairs (the sensitive
        label), else 0; ``names``, the columns' names.

    Examples
    --------
    >>> X, y, names = load_fair_features()
    >>> X.shape, names[-1]
    ((6366, 9), 'intercept')
    """
    from .data import read_csv

    table = read_csv("fair_redbook.csv")
    cols = []
    for name, (lo, hi) in FAIR_BOUNDS.items():
        cols.append((np.clip(table[name], lo, hi) - lo) / (hi - lo))
    cols.append(np.ones(table["any_affair"].shape[0]))
    X = np.column_stack(cols) / 3.0
    return FairFeatures(X, table["any_affair"].astype(int), list(FAIR_BOUNDS) + ["intercept"])


def dpsgd_epsilon_by_composition(sampling_rate: float, noise_multiplier: float, steps: int, delta: float, *,
                                 method: str = "basic") -> float:
    """Epsilon of DP-SGD by the generic route: per-step Gaussian guarantee, amplification, composition.

    Each step is a Gaussian mechanism, (eps_0, delta_0)-DP by its exact profile, amplified by Poisson sampling to
    (log(1 + q(e^eps_0 - 1)), q delta_0) (theorem ``learn-thm-amplification``), then composed over the steps,
    under add/remove one. Not tight by design: the chapter compares it with :func:`dpcourse.dpsgd_epsilon`.

    Parameters
    ----------
    sampling_rate : float
        Poisson rate q in (0, 1].
    noise_multiplier : float
        sigma > 0.
    steps : int
        k >= 1.
    delta : float
        delta in (0, 1).
    method : {"basic", "advanced"}
        ``"basic"``: k eps_1 with k q delta_0 = delta; ``"advanced"``: advanced composition of the k steps,
        half of delta for the steps (k q delta_0 = delta/2) and half for the composition.

    Returns
    -------
    float
        epsilon.

    Examples
    --------
    >>> round(dpsgd_epsilon_by_composition(1.0, 1.0, 1, 1e-5), 4)
    4.3772
    """
    from .accounting import subsampling_amplification
    from .composition import advanced_composition
    from .gaussian import gaussian_epsilon

    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.0, low_open=True)
    k = check_positive_int(steps, "steps")
    d = check_delta(delta)
    if d == 0:
        raise ValueError("delta must be > 0 (a Gaussian mechanism is never (epsilon, 0)-DP)")
    method = check_choice(method, "method", ("basic", "advanced"))
    share = d if method == "basic" else d / 2
    d0 = min(share / (k * q), 0.5)
    eps0 = gaussian_epsilon(d0, 1.0 / sigma)
    eps1, _ = subsampling_amplification(max(eps0, 1e-300), d0, q)
    if method == "basic":
        return k * eps1
    return advanced_composition(eps1, k, d / 2)


__all__ += ["dpsgd_epsilon_by_composition"]
