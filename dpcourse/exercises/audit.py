"""Checkers for the exercises of the chapter "Testing a privacy claim"."""

from __future__ import annotations

import math

import numpy as np

from ..audit import audit_epsilon
from . import CheckResult, call_student

__all__ = ["check_clamped_mean"]

_N = 10
_LOWER, _UPPER = 0.0, 1.0
_DRAWS = 5_000
_CONFIDENCE = 0.999
# Replace-one neighbours of size 10 for bounds [0, 1]: inside the bounds, and with one record far outside.
_INSIDE_HINT = ("even between records inside the bounds, one record moves your release more than the noise "
                "covers: how far can one record inside [lower, upper] move a mean of n values?")
_OUTSIDE_HINT = ("a record outside [lower, upper] moves your release more than the noise covers: the sensitivity "
                 "you assumed only holds for some records")
_PAIRS = [
    ("two datasets inside [0, 1] differing in one record",
     np.full(_N, 0.5), np.r_[np.full(_N - 1, 0.5), 1.0], _INSIDE_HINT),
    ("a dataset inside [0, 1] and its neighbour with one record far above",
     np.full(_N, 0.5), np.r_[np.full(_N - 1, 0.5), 50.0], _OUTSIDE_HINT),
    ("a dataset inside [0, 1] and its neighbour with one record far below",
     np.full(_N, 0.5), np.r_[np.full(_N - 1, 0.5), -50.0], _OUTSIDE_HINT),
]


def check_clamped_mean(student_fn, *, seed: int = 2026) -> CheckResult:
    """Audit a student's ``student_fn(x, lower, upper, epsilon, rng) -> float``, meant to be an epsilon-DP mean.

    The mechanism must be epsilon-DP under replace-one for any data (records outside ``[lower, upper]``
    included), and not much noisier than needed: its standard deviation on a dataset of 10 records may be
    at most twice that of Laplace noise calibrated to the sensitivity ``(upper - lower) / n``. The checker
    audits it with :func:`dpcourse.audit_epsilon` at confidence 0.999 on three pairs of neighbours, at
    epsilon 0.5 and 2. The message names the pair that exposes a problem, never the fix.
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
        outs = np.array([student_fn(np.full(_N, 0.5), _LOWER, _UPPER, eps, rng) for _ in range(4000)])
        ideal_sd = math.sqrt(2) * (_UPPER - _LOWER) / (_N * eps)
        sd = float(np.std(outs))
        if sd > 2 * ideal_sd:
            return CheckResult(False, f"your release is private in the audit, but at epsilon = {eps} its standard "
                                      f"deviation is {sd:.3g}, more than twice what the sensitivity of a "
                                      "clamped mean of 10 records requires")
        if abs(float(np.mean(outs)) - 0.5) > 6 * ideal_sd / math.sqrt(outs.size) + 1e-9:
            return CheckResult(False, f"on ten records equal to 0.5 your release averages {np.mean(outs):.3f}; "
                                      "a noisy mean should be centred on the true mean")
    return CheckResult(True, "no audit refuted your claim, and the noise is no larger than it needs to be.")
