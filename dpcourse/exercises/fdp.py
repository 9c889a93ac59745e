"""Checkers for the exercises of the chapter "The hypothesis-testing view: trade-off functions, f-DP and Gaussian DP"."""

from __future__ import annotations

import math

import numpy as np

from ..fdp import tradeoff_epsilon_delta, tradeoff_laplace
from ..gaussian import gaussian_epsilon
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_gdp_epsilon", "check_laplace_tradeoff"]

#: The deployment of the exercise: Wikimedia's daily release, rho-zCDP read as a Gaussian mechanism.
WIKIMEDIA_RHO, WIKIMEDIA_DELTA = 0.015, 1e-7


def check_gdp_epsilon(answer, rho=WIKIMEDIA_RHO, delta=WIKIMEDIA_DELTA) -> CheckResult:
    """Check the exact epsilon at ``delta`` of a Gaussian mechanism that is ``rho``-zCDP (the defaults: the
    book's Wikimedia numbers; a homework variant passes its own).

    The truth is the Gaussian privacy profile inverted at ``delta`` (theorem ``fdp-thm-gdp-to-dp``), for the
    mu that the Gaussian mechanism with this rho has. Recognised slips: rho used as mu, the square root of
    rho used as mu (a factor 2 lost), and the general zCDP-to-DP bound (valid, but not the exact epsilon of a
    Gaussian mechanism).
    """
    return check_number(answer, **_gdp_question(rho, delta))


def _gdp_question(rho=WIKIMEDIA_RHO, delta=WIKIMEDIA_DELTA) -> dict:
    """check_number's arguments for :func:`check_gdp_epsilon` with these numbers."""
    r, d = float(rho), float(delta)
    truth = gaussian_epsilon(d, math.sqrt(2 * r))
    slips = [(gaussian_epsilon(d, r), "that treats rho as mu: rho-zCDP of a Gaussian mechanism is mu^2 / 2 = rho"),
             (gaussian_epsilon(d, math.sqrt(r)), "that mu is too small by a factor sqrt 2: rho = mu^2 / 2"),
             (r + 2 * math.sqrt(r * math.log(1 / d)), "that is the general zCDP-to-(epsilon, delta) bound: valid for "
                                                      "any rho-zCDP mechanism, but a Gaussian one is tighter")]
    return dict(truth=truth, what="epsilon", low=0.0, low_open=True, slips=slips)


# The curve is computed in tradeoff_laplace's own body (tradeoff_curve of a Laplace event goes through it); its
# helpers are shared with f_(epsilon, delta), which the exercise may use for the outer pieces.
_LAPLACE_FORBIDDEN = Forbidden(tradeoff_laplace, allow=(tradeoff_epsilon_delta,))
_ALPHAS = np.concatenate([[0.0], np.geomspace(1e-6, 1e-1, 20), np.linspace(0.1, 1.0, 37)])


def _tradeoff_cases(rng):
    """``[(epsilon, alphas)]``: the book's three epsilons on one grid, or three drawn from the grader's ``rng``
    (over 0.05..5 on a log scale, to 3 digits), each on its own 60 alphas: 0 and 1, 15 spread on a log
    scale over 1e-6..0.1, 5 between the knee e^-epsilon / 2 and e^-epsilon (where a knee in the wrong place
    shows), 5 around 1/2 and 33 uniform on (0, 1), sorted."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return [(eps, _ALPHAS) for eps in (0.3, 1.0, 2.5)]
    cases = []
    for _ in range(3):
        eps = rounded(log_uniform(rng, 0.05, 5.0))
        knee = math.exp(-eps)
        alphas = np.concatenate([[0.0, 1.0], np.exp(rng.uniform(math.log(1e-6), math.log(0.1), 15)),
                                 rng.uniform(knee / 2, knee, 5), rng.uniform(0.45, 0.55, 5), rng.uniform(0, 1, 33)])
        cases.append((eps, np.sort(alphas)))
    return cases


def check_laplace_tradeoff(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(alpha, epsilon) -> beta`` (numpy arrays) for the Laplace mechanism's trade-off curve.

    The reference is :func:`dpcourse.fdp.tradeoff_laplace` (theorem ``fdp-thm-laplace-curve``), forbidden
    inside the student's function; agreement to 1e-9 on a grid of alpha in [0, 1], at several epsilons (the
    book's, or with ``rng`` -- a numpy Generator: the homework grader's -- epsilons and alphas drawn from it).
    Recognised slips: the pure-DP curve f_{epsilon, 0} (correct only outside the middle piece), a middle
    piece with the wrong constant, and the knee at e^-epsilon instead of half of it.
    """
    from ._draws import shown

    for eps, alphas in _tradeoff_cases(rng):
        where = shown(f"on epsilon={eps}")
        got, err = call_student(student_fn, (alphas.copy(), eps), where, shape=alphas.shape,
                                forbidden=_LAPLACE_FORBIDDEN)
        if err is not None:
            return err
        want = tradeoff_laplace(alphas, eps)
        if np.allclose(got, want, rtol=1e-9, atol=1e-12):
            continue
        knee = math.exp(-eps)
        with np.errstate(divide="ignore"):
            wrong_const = np.where(alphas < knee / 2, 1 - math.exp(eps) * alphas,
                                   np.where(alphas <= 0.5, knee / (2 * alphas), knee * (1 - alphas)))
        slips = [(tradeoff_epsilon_delta(alphas, eps), "that is the curve of randomized response, f_(epsilon, 0): "
                                                       "the Laplace curve agrees with it only near alpha = 0 and "
                                                       "beyond alpha = 1/2; work out the middle piece from the "
                                                       "threshold tests between 0 and epsilon"),
                 (wrong_const, "the middle piece has the wrong constant: multiply the two tail probabilities "
                               "P(X > t) and Q(X <= t) for t between 0 and epsilon"),
                 (np.where(alphas < knee, 1 - math.exp(eps) * alphas, want),
                  "the first piece ends too late: the test 'reject when X > t' has alpha = e^-t / 2 at t = epsilon")]
        for value, hint in slips:
            if np.allclose(got, np.clip(value, 0, 1), rtol=1e-9, atol=1e-12) or np.allclose(got, value, rtol=1e-9,
                                                                                            atol=1e-12):
                return CheckResult(False, f"{where}: {hint}")
        return CheckResult(False, f"{where}: not the Laplace trade-off curve yet (largest difference "
                                  f"{np.max(np.abs(got - want)):.3g}); check it is 1 at alpha = 0 and 0 at alpha = 1")
    return CheckResult(True, "your curve agrees with the reference on every epsilon tried.")
