"""Checkers for the exercises of the chapter "Private learning"."""

from __future__ import annotations

import functools
import math

from ..accounting import (GaussianEvent, PoissonSampledEvent, PrivacyAccountant, max_compositions,
                          subsampling_amplification)
from . import CheckResult, Forbidden, call_student, check_number, not_yet

__all__ = ["check_output_sensitivity", "check_amplification", "check_max_steps"]


def check_output_sensitivity(answer, n=5000, regularization=1e-3) -> CheckResult:
    """Check the L2 sensitivity of the regularised logistic-regression minimiser (theorem
    ``learn-thm-output``) for ``n`` examples of norm <= 1 and the given lambda, under replace-one.

    The defaults are the book's numbers; a homework variant passes its own."""
    return check_number(answer, **_output_sensitivity_question(n, regularization))


def _output_sensitivity_question(n=5000, regularization=1e-3) -> dict:
    """check_number's arguments for :func:`check_output_sensitivity` with these numbers."""
    truth = 2.0 / (n * regularization)
    slips = [(1.0 / (n * regularization), "that is the bound for a change in one direction only: both the removed "
                                          "and the added example move the gradient"),
             (2.0 / regularization, "the loss is an average over the n examples"),
             (2.0 / (n * regularization ** 2), "strong convexity enters once, not squared")]
    return dict(truth=truth, what="the sensitivity", low=0.0, low_open=True, slips=slips)


_AMP_FORBIDDEN = Forbidden(subsampling_amplification)
_AMP_CASES = [(1.0, 0.01), (0.1, 0.5), (3.0, 0.001), (2.0, 1.0), (0.5, 0.2)]


def _amp_cases(rng):
    """The book's five cases, or six drawn from the grader's ``rng`` (to 3 digits): epsilon over 0.01..10 and q
    over 1e-4..1 on log scales, and one case with q = 1 (no sampling: no amplification)."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return _AMP_CASES
    cases = [(rounded(log_uniform(rng, 0.01, 10.0)), rounded(log_uniform(rng, 1e-4, 1.0))) for _ in range(5)]
    cases.insert(int(rng.integers(6)), (rounded(log_uniform(rng, 0.01, 10.0)), 1.0))
    return cases


def check_amplification(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(epsilon, q) -> epsilon'``: the pure-DP guarantee of an epsilon-DP mechanism run on a
    Poisson sample with rate q (theorem ``learn-thm-amplification``), without calling
    :func:`dpcourse.subsampling_amplification`. On the book's cases, or (``rng``, a numpy Generator: the
    homework grader's) on cases drawn from it."""
    from ._draws import shown

    for eps, q in _amp_cases(rng):
        where = shown(f"on epsilon={eps}, q={q}")
        got, failure = call_student(student_fn, (eps, q), where, forbidden=_AMP_FORBIDDEN)
        if failure is not None:
            return failure
        truth = subsampling_amplification(eps, 0.0, q)[0]
        if not math.isfinite(got):
            return CheckResult(False, f"your function returned {got} {where}; an epsilon is a finite number")
        if math.isclose(got, truth, rel_tol=1e-9):
            continue
        if math.isclose(got, q * eps, rel_tol=1e-9) and q < 1:
            return CheckResult(False, f"{where}: q times epsilon is what the amplification looks like for small "
                                      "epsilon, but it is not a valid bound for every epsilon; go back to the "
                                      "proof's ratio of the two mixtures")
        if math.isclose(got, q * math.expm1(eps), rel_tol=1e-9) and q < 1:
            return CheckResult(False, f"{where}: this is a valid bound but not the one of the theorem: the proof "
                                      "ends with a logarithm")
        return not_yet(f"epsilon' {where}", "within 1e-9 (relative) of the theorem's value")
    return CheckResult(True, "your amplified epsilon matches the theorem on every case tried.")


#: check_max_steps handles settings whose answer is below this many steps (a cap, not a wait: each PLD
#: query grows with the number of steps, and a search up to 10**6 steps would take many minutes).
MAX_CHECKED_STEPS = 20_000


@functools.lru_cache(maxsize=8)
def _max_steps(q, sigma, epsilon, delta):
    event = PoissonSampledEvent(q, GaussianEvent(sigma))
    if PrivacyAccountant().compose(event, MAX_CHECKED_STEPS).epsilon(delta, "pld") <= epsilon:
        raise ValueError(f"check_max_steps handles settings whose answer is below MAX_CHECKED_STEPS = "
                         f"{MAX_CHECKED_STEPS} steps; sampling_rate={q!r}, noise_multiplier={sigma!r}, "
                         f"epsilon={epsilon!r}, delta={delta!r} allow more")
    return max_compositions(event, epsilon, delta, "pld", k_max=MAX_CHECKED_STEPS)


def check_max_steps(answer, sampling_rate=0.01, noise_multiplier=1.0, epsilon=2.0, delta=1e-5) -> CheckResult:
    """Check the largest number of DP-SGD steps that stays within (epsilon, delta) by the PLD method
    (for settings whose answer is below ``MAX_CHECKED_STEPS`` = 20,000 steps; others are refused)."""
    truth = _max_steps(sampling_rate, noise_multiplier, epsilon, delta)
    return check_number(answer, truth, what="the number of steps", low=0, integer=True)
