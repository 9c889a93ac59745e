"""Checkers for the exercises of the chapter "Testing a privacy claim"."""

from __future__ import annotations

import math

import numpy as np

from ..audit import audit_epsilon
from . import CheckResult, call_student

__all__ = ["check_clamped_mean", "smallest_unbiased_sd"]

_N = 10
_LOWER, _UPPER = 0.0, 1.0
_DRAWS = 5_000
_CONFIDENCE = 0.999
# Replace-one neighbours of size 10 for bounds [0, 1]: inside the bounds, and with one record far outside.
_INSIDE_HINT = ("even between records inside the bounds, one record moves your release more than the noise "
                "covers: how far can one record inside [lower, upper] move a mean of n values?")
_OUTSIDE_HINT = ("a record outside [lower, upper] moves your release more than the noise covers: the sensitivity "
                 "you assumed only holds for some records")
# The first pair realises the full sensitivity (upper - lower) / n of the clamped mean: one record moves
# from lower to upper. (A pair that moves a record by half the range would let half the noise pass.)
_X_LOW = np.r_[np.full(_N - 1, 0.5), _LOWER]
_X_HIGH = np.r_[np.full(_N - 1, 0.5), _UPPER]
_PAIRS = [
    ("two datasets inside [0, 1] differing in one record, 0 in one and 1 in the other",
     _X_LOW, _X_HIGH, _INSIDE_HINT),
    ("a dataset inside [0, 1] and its neighbour with one record far above",
     np.full(_N, 0.5), np.r_[np.full(_N - 1, 0.5), 50.0], _OUTSIDE_HINT),
    ("a dataset inside [0, 1] and its neighbour with one record far below",
     np.full(_N, 0.5), np.r_[np.full(_N - 1, 0.5), -50.0], _OUTSIDE_HINT),
]
_SD_DRAWS = 4000
# Sampling margin of the noise lower bound: the pooled sample sd of 2 x 4000 draws of Laplace-like noise has a
# relative standard error of about 1.3 %; 10 % keeps a correct answer (sd 1.43-1.66 times the bound) far away.
_SD_MARGIN = 0.9


def smallest_unbiased_sd(sensitivity: float, epsilon: float) -> float:
    """Smallest standard deviation of an epsilon-DP release whose mean moves by ``sensitivity`` between neighbours.

    If M is epsilon-DP and E[M(x')] - E[M(x)] = Delta, the Chapman-Robbins inequality gives
    Var[M(x)] >= Delta^2 / chi^2(M(x') || M(x)), and a likelihood ratio confined to [e^-epsilon, e^epsilon]
    with mean 1 has chi^2 at most (e^epsilon - 1)(1 - e^-epsilon) = 4 sinh^2(epsilon / 2). So the standard
    deviation is at least Delta / (2 sinh(epsilon / 2)), on each dataset of the pair. Laplace noise,
    sd sqrt(2) Delta / epsilon, is 1.43 times this bound at epsilon = 0.5 and 1.66 times at epsilon = 2.

    >>> round(smallest_unbiased_sd(0.1, 0.5), 4)
    0.1979
    """
    return sensitivity / (2.0 * math.sinh(epsilon / 2.0))



def check_clamped_mean(student_fn, *, seed: int = 2026) -> CheckResult:
    """Audit a student's ``student_fn(x, lower, upper, epsilon, rng) -> float``, meant to be an epsilon-DP mean.

    The mechanism must be epsilon-DP under replace-one for any data (records outside ``[lower, upper]``
    included), centred on the clamped mean, and neither much noisier than needed nor less noisy than
    possible. The checker audits it with :func:`dpcourse.audit_epsilon` at confidence 0.999 on three pairs
    of neighbours, at epsilon 0.5 and 2; the first pair moves one record from ``lower`` to ``upper`` and so
    realises the largest change of the clamped mean. On that pair it then measures the release: its mean
    must follow the clamped mean, and its standard deviation must lie between 0.9 times the smallest that
    any such epsilon-DP release can have (:func:`smallest_unbiased_sd`) and twice that of Laplace noise
    calibrated to that largest change. The message names what is wrong, never the fix.
    """
    rng = np.random.default_rng(seed)
    _, failure = call_student(student_fn, (np.full(_N, 0.5), _LOWER, _UPPER, 0.5, rng),
                              "on x = ten records equal to 0.5, lower = 0, upper = 1, epsilon = 0.5")
    if failure is not None:
        return failure
    for eps in (0.5, 2.0):

        def mech(x, gen, eps=eps):
            return student_fn(x.copy(), _LOWER, _UPPER, eps, gen)

        for what, x, x_prime, hint in _PAIRS:
            try:
                res = audit_epsilon(mech, x, x_prime, _DRAWS, rng=rng, confidence=_CONFIDENCE)
            except Exception as exc:  # the student's code may raise anything; report it as feedback
                return CheckResult(False, f"auditing your function raised {type(exc).__name__}: {exc}. It must "
                                          "return one float per call, given (x, lower, upper, epsilon, rng)")
            if res.refutes(eps):
                return CheckResult(False, f"at epsilon = {eps} the audit on {what} found epsilon >= "
                                          f"{res.lower_bound:.2f} > {eps} (event {res.event}): {hint}")
        sens = (_UPPER - _LOWER) / _N
        ideal_sd = math.sqrt(2) * sens / eps
        variances = []
        for x in (_X_LOW, _X_HIGH):
            outs = np.array([student_fn(x.copy(), _LOWER, _UPPER, eps, rng) for _ in range(_SD_DRAWS)], float)
            target = float(np.clip(x, _LOWER, _UPPER).mean())
            tolerance = 6 * max(float(np.std(outs)), ideal_sd) / math.sqrt(outs.size)  # a 6-sigma z-test
            if not abs(float(np.mean(outs)) - target) <= tolerance + 1e-9:
                return CheckResult(False, f"on nine records equal to 0.5 and one equal to {x[-1]:g} your release "
                                          f"averages {np.mean(outs):.3f} at epsilon = {eps}; a noisy mean should "
                                          "be centred on the true mean")
            variances.append(float(np.var(outs)))
        sd = math.sqrt(sum(variances) / len(variances))
        if sd > 2 * ideal_sd:
            return CheckResult(False, f"your release is private in the audit, but at epsilon = {eps} its standard "
                                      f"deviation is {sd:.3g}, more than twice what the sensitivity of a "
                                      "clamped mean of 10 records requires")
        if sd < _SD_MARGIN * smallest_unbiased_sd(sens, eps):
            return CheckResult(False, f"at epsilon = {eps} the standard deviation of your release is {sd:.3g}: "
                                      "less noise than any epsilon-DP mean of 10 records in [0, 1] can have "
                                      "(the audit did not catch it, the noise bound does): which change of one "
                                      "record does your noise cover?")
    return CheckResult(True, "no audit refuted your claim, and the noise is no larger than it needs to be.")
