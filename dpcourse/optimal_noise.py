"""Which noise is best? The geometric mechanism's universal optimality, and noise shapes in high dimension.

* Counts (Ghosh, Roughgarden & Sundararajan 2009): for a count on {0, ..., n}, every prior and every loss
  that grows with the distance |output - truth|, the best epsilon-DP mechanism is the range-restricted
  geometric mechanism followed by a remapping of its output. :func:`optimal_count_mechanism` finds the best
  mechanism by linear programming over all epsilon-DP mechanisms; :func:`geometric_remap_loss` computes the
  loss of the geometric mechanism followed by the best remapping (theorem ``thm-geometric-optimal`` of the
  chapter "Noise on a real computer"); the chapter and the tests check that they agree.
* Vectors: the K-norm mechanism (Hardt & Talwar 2010) for the l2 ball, :func:`knorm_l2_noise`, and the
  expected l2 error of Laplace, K-norm and Gaussian noise, :func:`l2_error_comparison`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (as_rng, check_delta, check_epsilon, check_flag, check_positive_int, check_real,
                          check_real_array, check_sensitivity, check_size, MAX_SIZE)
from .gaussian import analytic_gaussian_sigma

__all__ = [
    "CountMechanism",
    "truncated_geometric_matrix",
    "count_loss_matrix",
    "mechanism_loss",
    "is_count_dp",
    "optimal_count_mechanism",
    "geometric_remap_loss",
    "knorm_l2_noise",
    "l2_error_comparison",
]

_LOSSES = ("absolute", "squared", "zero_one")


class CountMechanism(NamedTuple):
    """A mechanism on {0..n} as a row-stochastic matrix ``matrix[x, r] = P[M(x) = r]`` and its expected loss."""

    matrix: np.ndarray
    expected_loss: float


#: Largest count of :func:`optimal_count_mechanism` (its linear program has (n+1)^2 variables).
LP_MAX_N = 30
#: Largest epsilon of :func:`optimal_count_mechanism`: the constraints carry the coefficient e^epsilon, and beyond
#: e^20 (about 5e8) HiGHS reports the program unbounded or fails at its tolerances.
LP_MAX_EPSILON = 20.0


def _check_n(n: int, cap: int = 60) -> int:
    n = check_positive_int(n, "n")
    if n > cap:
        raise ValueError(f"n must be at most {cap} (the computation has (n+1)^2 unknowns or more), got {n}")
    return n


def _check_prior(prior: ArrayLike | None, n: int) -> np.ndarray:
    if prior is None:
        return np.full(n + 1, 1.0 / (n + 1))
    p = check_real_array(prior, "prior", ndim=1)
    if p.size != n + 1:
        raise ValueError(f"prior must have n + 1 = {n + 1} entries, got {p.size}")
    if (p < 0).any() or not math.isclose(float(p.sum()), 1.0, abs_tol=1e-9):
        raise ValueError(f"prior must be non-negative and sum to 1, got sum {float(p.sum())!r}")
    return p


def count_loss_matrix(n: int, loss: str | ArrayLike = "absolute", *, require_monotone: bool = True) -> np.ndarray:
    """``L[x, r]``: the loss of answering r when the true count is x, for x, r in {0..n}.

    ``loss`` is ``"absolute"`` (|r - x|), ``"squared"`` ((r - x)^2), ``"zero_one"`` (r != x), or an
    array of shape (n + 1, n + 1) of the reader's choice. Theorem ``thm-geometric-optimal`` needs, for each
    x, a loss that is non-decreasing in |r - x| (and may depend on x); an array is checked for that
    unless ``require_monotone=False`` (used to show that the theorem fails without it).

    Examples
    --------
    >>> count_loss_matrix(2).tolist()
    [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    """
    n = _check_n(n)
    x = np.arange(n + 1)
    d = np.abs(x[None, :] - x[:, None]).astype(float)
    if isinstance(loss, str):
        if loss not in _LOSSES:
            raise ValueError(f"loss must be one of {_LOSSES} or an (n+1) x (n+1) array, got {loss!r}")
        return {"absolute": d, "squared": d * d, "zero_one": (d > 0).astype(float)}[loss]
    L = check_real_array(loss, "loss", ndim=2)
    if L.shape != (n + 1, n + 1):
        raise ValueError(f"loss must have shape ({n + 1}, {n + 1}), got {L.shape}")
    if (L < 0).any():
        raise ValueError("loss must be non-negative")
    if not require_monotone:
        return L
    for xi in range(n + 1):
        for r in range(n + 1):
            for s in range(n + 1):
                if d[xi, r] < d[xi, s] and L[xi, r] > L[xi, s] + 1e-12:
                    raise ValueError(f"loss must be non-decreasing in |r - x| for each x: loss[{xi}, {r}] = "
                                     f"{L[xi, r]!r} > loss[{xi}, {s}] = {L[xi, s]!r}")
    return L


def truncated_geometric_matrix(n: int, epsilon: float) -> np.ndarray:
    """The range-restricted geometric mechanism on {0..n}: ``G[x, z] = P[clamp(x + K, 0, n) = z]``.

    K is discrete Laplace with ``P(K = k) proportional to alpha^|k|``, ``alpha = e^-epsilon`` (the
    geometric mechanism of sensitivity 1, theorem ``thm-geometric-privacy``); clamping to {0..n} is
    post-processing. ``G[x, z] = (1 - alpha)/(1 + alpha) alpha^|z - x|`` inside, and
    ``alpha^x / (1 + alpha)``, ``alpha^(n - x) / (1 + alpha)`` at z = 0 and z = n.

    Examples
    --------
    >>> G = truncated_geometric_matrix(3, 1.0)
    >>> np.allclose(G.sum(axis=1), 1.0)
    True
    """
    n = _check_n(n)
    eps = check_epsilon(epsilon)
    a = math.exp(-eps)
    x = np.arange(n + 1)
    G = (1 - a) / (1 + a) * a ** np.abs(x[None, :] - x[:, None]).astype(float)
    G[:, 0] = a ** x / (1 + a)
    G[:, n] = a ** (n - x) / (1 + a)
    return G


def mechanism_loss(matrix: ArrayLike, prior: ArrayLike, loss: ArrayLike) -> float:
    """Expected loss ``sum_x prior[x] sum_r matrix[x, r] loss[x, r]``."""
    M = np.asarray(matrix, dtype=float)
    return float(np.sum(np.asarray(prior)[:, None] * M * np.asarray(loss)))


def is_count_dp(matrix: ArrayLike, epsilon: float, *, tol: float = 1e-9) -> bool:
    """Is the mechanism ``matrix[x, r]`` epsilon-DP for neighbouring counts x, x + 1?

    Checks ``matrix[x, r] <= e^eps matrix[x+1, r] + tol`` and the reverse for every x and r (counts of
    neighbouring datasets differ by at most 1 under both relations). ``tol`` is an *absolute* slack for
    the rounding of a linear-program solution: an output of probability below ``tol`` under one count
    and 0 under its neighbour (an impossible output, infinite privacy loss) passes the default check;
    ``tol=0`` checks the inequalities exactly as computed in floating point.

    Examples
    --------
    >>> is_count_dp(truncated_geometric_matrix(4, 0.5), 0.5)
    True
    >>> is_count_dp(np.eye(5), 0.5)   # no noise
    False
    >>> leaky = np.array([[1 - 1e-10, 1e-10], [1.0, 0.0]])   # output 1 is impossible from count 1
    >>> is_count_dp(leaky, 0.5), is_count_dp(leaky, 0.5, tol=0.0)
    (True, False)
    """
    M = check_real_array(matrix, "matrix", ndim=2)
    e = math.exp(check_epsilon(epsilon))
    a, b = M[:-1], M[1:]
    return bool(np.all(a <= e * b + tol) and np.all(b <= e * a + tol))


def optimal_count_mechanism(n: int, epsilon: float, *, prior: ArrayLike | None = None,
                            loss: str | ArrayLike = "absolute", require_monotone: bool = True) -> CountMechanism:
    """The epsilon-DP mechanism on {0..n} with the smallest expected loss, by linear programming.

    Variables ``P[x, r] >= 0`` (x, r in {0..n}); constraints: rows sum to 1 and
    ``P[x, r] <= e^eps P[x', r]`` for |x - x'| = 1 (epsilon-DP for a count, whose neighbouring datasets'
    counts differ by at most 1 under add/remove and replace-one); objective: the expected loss
    ``sum_x prior[x] sum_r P[x, r] loss[x, r]``. Solved with ``scipy.optimize.linprog`` (HiGHS) at tight
    tolerances. Theorem ``thm-geometric-optimal``: the optimum equals :func:`geometric_remap_loss`.

    Parameters
    ----------
    n : int
        Largest count, 1 <= n <= 30 (``LP_MAX_N``).
    epsilon : float
        In (0, 20] (``LP_MAX_EPSILON``: beyond it the solver fails on the coefficient e^epsilon).
    prior : array_like, optional
        Prior on the true count, n + 1 non-negative entries summing to 1 (default uniform).
    loss : str or array_like
        See :func:`count_loss_matrix`.
    require_monotone : bool
        Refuse a loss that is not non-decreasing in |r - x| (default); False allows any non-negative loss.

    Examples
    --------
    >>> best = optimal_count_mechanism(4, 1.0)
    >>> abs(best.expected_loss - geometric_remap_loss(4, 1.0).expected_loss) < 1e-9
    True
    """
    from scipy.optimize import linprog

    n = _check_n(n, LP_MAX_N)
    eps = check_real(epsilon, "epsilon", low=0.0, low_open=True, high=LP_MAX_EPSILON)
    p = _check_prior(prior, n)
    L = count_loss_matrix(n, loss, require_monotone=check_flag(require_monotone, "require_monotone"))
    m = n + 1
    e = math.exp(eps)
    idx = np.arange(m * m).reshape(m, m)
    rows = []
    for x in range(n):
        for r in range(m):
            for u, v in ((x, x + 1), (x + 1, x)):     # P[u, r] - e^eps P[v, r] <= 0
                row = np.zeros(m * m)
                row[idx[u, r]] = 1.0
                row[idx[v, r]] = -e
                rows.append(row)
    a_eq = np.zeros((m, m * m))
    for x in range(m):
        a_eq[x, idx[x]] = 1.0
    res = linprog((p[:, None] * L).ravel(), A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=a_eq,
                  b_eq=np.ones(m), bounds=(0, None), method="highs",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise RuntimeError(f"the linear program did not solve: {res.message}")
    P = np.clip(res.x.reshape(m, m), 0.0, None)
    P /= P.sum(axis=1, keepdims=True)
    return CountMechanism(P, mechanism_loss(P, p, L))


def geometric_remap_loss(n: int, epsilon: float, *, prior: ArrayLike | None = None, loss: str | ArrayLike = "absolute",
                         require_monotone: bool = True) -> CountMechanism:
    """The range-restricted geometric mechanism followed by the best remapping of its output.

    The reader sees z ~ G[x, :] (:func:`truncated_geometric_matrix`) and answers the r minimising the
    posterior expected loss ``sum_x prior[x] G[x, z] loss[x, r]`` (a deterministic remapping is optimal
    because the expected loss is linear in the remapping's probabilities). Post-processing keeps
    epsilon-DP (theorem ``thm-post-processing``); the result is the composed mechanism and its loss.
    Theorem ``thm-geometric-optimal`` (Ghosh, Roughgarden & Sundararajan 2009): for losses non-decreasing
    in |r - x|, no epsilon-DP mechanism does better.

    Examples
    --------
    >>> geo = geometric_remap_loss(3, 1.0, loss="zero_one")
    >>> is_count_dp(geo.matrix, 1.0)
    True
    """
    n = _check_n(n)
    eps = check_epsilon(epsilon)
    p = _check_prior(prior, n)
    L = count_loss_matrix(n, loss, require_monotone=check_flag(require_monotone, "require_monotone"))
    G = truncated_geometric_matrix(n, eps)
    cost = (p[:, None] * G).T @ L                 # cost[z, r] = sum_x prior[x] G[x, z] L[x, r]
    best_r = np.argmin(cost, axis=1)
    T = np.zeros((n + 1, n + 1))
    T[np.arange(n + 1), best_r] = 1.0
    M = G @ T
    return CountMechanism(M, mechanism_loss(M, p, L))


def _uniform_in_l2_ball(d: int, n: int, gen: np.random.Generator) -> np.ndarray:
    z = gen.standard_normal((n, d))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    return z * gen.random(n)[:, None] ** (1.0 / d)


def knorm_l2_noise(dim: int, l2_sensitivity: float, epsilon: float, *, size: int | None = None,
                   rng: np.random.Generator | int | None = None, secure: bool | None = None) -> np.ndarray:
    """Noise of the K-norm mechanism for the l2 ball (Hardt & Talwar 2010): density prop. to exp(-eps ||z||_2 / Delta).

    Adding it to a query whose l2 sensitivity is at most ``l2_sensitivity`` is epsilon-DP in exact real
    arithmetic (theorem ``thm-knorm-privacy``): the density ratio at any point is
    ``exp(eps (||z - m||_2 - ||z||_2) / Delta) <= exp(eps ||m||_2 / Delta)`` by the triangle inequality.
    Sampler (Hardt & Talwar): a radius ``R ~ Gamma(dim + 1, Delta / eps)`` times a point uniform in the
    unit ball (so ||Z||_2 ~ Gamma(dim, Delta / eps), E||Z||_2 = dim Delta / eps).

    **This is a continuous floating-point sampler, for teaching the shape of the noise; it is not
    floating-point safe** (its outputs have the flaws of the chapter "Noise on a real computer"). To make
    that impossible to miss, ``secure=False`` must be passed explicitly; anything else raises.

    Parameters
    ----------
    dim : int
        Dimension d, 1 <= d <= ``MAX_SIZE`` (:data:`dpcourse._validation.MAX_SIZE`).
    l2_sensitivity : float
        Delta > 0.
    epsilon : float
        > 0, with (dim + 1) Delta / epsilon below 1e300 (larger scales could overflow to inf; refused by name).
    size : None or int
        Number of noise vectors; None for one vector of shape (dim,), else shape (size, dim), with
        ``size * dim <= MAX_SIZE``.
    rng : None, int or numpy.random.Generator
    secure : bool
        Must be ``False``.

    Examples
    --------
    >>> knorm_l2_noise(3, 1.0, 1.0, size=2, rng=0, secure=False).shape
    (2, 3)
    >>> knorm_l2_noise(3, 1.0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: knorm_l2_noise is a float sampler for teaching (not floating-point safe): pass secure=False to acknowledge it; see the chapter "Noise on a real computer" for secure releases
    """
    if secure is None or check_flag(secure, "secure"):
        raise ValueError("knorm_l2_noise is a float sampler for teaching (not floating-point safe): pass "
                         "secure=False to acknowledge it; see the chapter \"Noise on a real computer\" for "
                         "secure releases")
    d = check_size(dim, "dim")
    sens, eps = check_sensitivity(l2_sensitivity, "l2_sensitivity"), check_epsilon(epsilon)
    scale = sens / eps
    if not (0.0 < scale and scale * (d + 1) < 1e300):   # E||Z|| = dim * scale; beyond, the noise could be +-inf
        raise ValueError(f"(dim + 1) * l2_sensitivity / epsilon must lie in (0, 1e300) for finite noise, got "
                         f"dim={d}, l2_sensitivity={l2_sensitivity!r}, epsilon={epsilon!r}")
    n = 1 if size is None else check_size(size, cap=MAX_SIZE // d)
    gen = as_rng(rng)
    radius = gen.gamma(d + 1, scale, size=n)
    out = radius[:, None] * _uniform_in_l2_ball(d, n, gen)
    return out[0] if size is None else out


def l2_error_comparison(dim: int, epsilon: float, delta: float, *, sensitivity_ball: str = "l2",
                        sensitivity: float = 1.0) -> dict[str, float]:
    """Root-mean-square l2 error of three noises for a d-dimensional query, by formula.

    The query's sensitivity set is the l2 ball (``sensitivity_ball="l2"``: l2 sensitivity Delta, hence l1
    sensitivity up to sqrt(d) Delta) or the l1 ball (``"l1"``: l1 and l2 sensitivity both Delta).

    * ``"laplace"``: per-coordinate Laplace of scale Delta_1 / eps, epsilon-DP; RMS error sqrt(2 d) Delta_1 / eps.
    * ``"knorm"``: the l2-ball K-norm mechanism (:func:`knorm_l2_noise`), epsilon-DP, valid when the
      sensitivity set lies in the l2 ball of radius Delta_2; RMS error sqrt(d (d + 1)) Delta_2 / eps.
    * ``"gaussian"``: analytic Gaussian, (epsilon, delta)-DP; RMS error sqrt(d) sigma.

    Returns a dict with those keys and ``"l1_sensitivity"``, ``"l2_sensitivity"``.

    Examples
    --------
    >>> r = l2_error_comparison(1, 1.0, 1e-6)
    >>> round(r["laplace"], 6), round(r["knorm"], 6)   # in one dimension both are Laplace noise
    (1.414214, 1.414214)
    """
    d = check_positive_int(dim, "dim")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta, allow_zero=False)
    sens = check_sensitivity(sensitivity)
    if sensitivity_ball not in ("l1", "l2"):
        raise ValueError(f"sensitivity_ball must be 'l1' or 'l2', got {sensitivity_ball!r}")
    d1, d2 = (sens * math.sqrt(d), sens) if sensitivity_ball == "l2" else (sens, sens)
    return {
        "l1_sensitivity": d1,
        "l2_sensitivity": d2,
        "laplace": math.sqrt(2 * d) * d1 / eps,
        "knorm": math.sqrt(d * (d + 1)) * d2 / eps,
        "gaussian": math.sqrt(d) * analytic_gaussian_sigma(eps, dl, d2),
    }
