"""Checkers for the exercises of the chapter "Sensitivity and the Laplace mechanism"."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import stats

from ..laplace import counting_queries_sample_size
from . import CheckResult, call_student, match_slip, not_yet, parse_number
from ._draws import check_rng, shown

__all__ = ["check_inverse_cdf_sampler", "check_sample_size"]

# Uniforms chosen to expose the usual slips: both halves, the median, and values near 0 and 1.
_U = np.array([1e-9, 0.001, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.999, 1 - 1e-9])
_SCALES = (1.0, 2.5)


def _u_and_scales(rng):
    """``(u, scales)``: the book's, or drawn from ``rng`` with the same roles.

    Drawn: eleven increasing u with 1/2 in the middle, on each side one within 1e-6..1e-10 of the end, one
    within 1e-2..1e-4 and three more spread over the half; and two scales, log-uniform in [0.1, 10].
    """
    if rng is None:
        return _U, _SCALES
    near = [10.0 ** -rng.uniform(6, 10), 10.0 ** -rng.uniform(2, 4), *rng.uniform(0.02, 0.49, size=3)]
    low = np.sort(np.array(near))
    high = np.sort(1.0 - np.array([10.0 ** -rng.uniform(6, 10), 10.0 ** -rng.uniform(2, 4),
                                   *rng.uniform(0.02, 0.49, size=3)]))
    u = np.concatenate([low, [0.5], high])
    scales = tuple(round(float(10.0 ** rng.uniform(-1, 1)), 3) for _ in range(2))
    return u, scales


def check_inverse_cdf_sampler(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(u, scale)``: the inverse CDF of Laplace(0, scale), applied to an array ``u`` in (0, 1).

    A correct function turns uniform draws into Laplace draws (inverse-transform sampling). With ``rng=None``
    the checker uses the book's eleven values of u and two scales; with a :class:`numpy.random.Generator` it
    draws others of the same kinds (values near 0, 1/2 and 1). The message names the first failing input and
    what looks wrong, never the formula.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself, e.g. check_inverse_cdf_sampler(my_inverse_cdf)")
    u, scales = _u_and_scales(check_rng(rng))
    for b in scales:
        got, failure = call_student(student_fn, (u.copy(), b),
                                    f"on an array u with scale={b}; use numpy functions such as np.where, not if/else",
                                    shape=u.shape)
        if failure is not None:
            return failure
        want = stats.laplace.ppf(u, scale=b)
        if np.allclose(got, want, rtol=1e-7, atol=1e-9):
            continue
        if np.isnan(got).any():
            i = int(np.argmax(np.isnan(got)))
            return CheckResult(False, "NaN " + shown(f"at u = {u[i]:g}, scale = {b}") + ": is a logarithm taking a negative argument "
                                      "on one side of the median?")
        if np.allclose(got, -want, rtol=1e-7, atol=1e-9):
            return CheckResult(False, "your values are mirrored: small u must give large negative values")
        if abs(got[5]) > 1e-9:
            return CheckResult(False, f"at u = 0.5 you return {got[5]:.4g}; the median of Laplace(0, b) is 0")
        if np.any(np.diff(got) <= 0):
            return CheckResult(False, shown(f"with scale={b}") + " your function is not increasing in u; an inverse CDF must be")
        ratio = got[[0, 1, 2, 8, 9, 10]] / want[[0, 1, 2, 8, 9, 10]]
        if np.allclose(ratio, ratio[0], rtol=1e-7) and not math.isclose(ratio[0], 1.0, rel_tol=1e-7):
            return CheckResult(False, "right shape, wrong scale: " + shown(f"with scale={b}") + " your values are a constant multiple "
                                      "of the right ones; check where the scale enters")
        good = np.isclose(got, want, rtol=1e-7, atol=1e-9)
        if good[u < 0.5].all() != good[u > 0.5].all():
            side = "below" if not good[u < 0.5].all() else "above"
            return CheckResult(False, f"your values are right on one side but wrong for u {side} 1/2 (" + shown(f"scale={b}") + ")")
        i = int(np.argmin(good))
        return CheckResult(False, shown(f"at u = {u[i]:g}, scale = {b}") + f" your value {got[i]:.6g} is off; solve F(z) = u "
                                  "separately for z < 0 and z >= 0")
    return CheckResult(True, f"your inverse CDF matches on {len(u)} values of u and {len(scales)} scales.")


def _sample_size_question(k, alpha, beta, epsilon) -> dict:
    """The answer of :func:`check_sample_size` for these numbers (``integer``: a whole number, judged exactly) and
    the whole numbers its slips lead to (the unsafe rounding, and each named slip rounded up): the homework's
    pool keeps only numbers for which none of them is the answer."""
    bound = counting_queries_sample_size(k, alpha, beta, epsilon)
    truth = math.ceil(bound)
    named = (bound / k, math.log(k / beta) / (alpha * epsilon), k * math.log(1 / beta) / (alpha * epsilon),
             bound * math.log10(math.e), bound / math.log(2))
    slips = [(truth - 1, "rounded down")] + [(math.ceil(s), "a named slip") for s in named]
    return dict(truth=truth, integer=True, slips=slips)


def check_sample_size(answer, k, alpha, beta, epsilon) -> CheckResult:
    """Check the number of records asked by exercise ``ex-laplace-sample-size``.

    The answer is a whole number: the smallest n that meets the condition of corollary
    ``cor-laplace-counting`` for these ``k``, ``alpha``, ``beta`` and ``epsilon`` (with probability at
    least ``1 - beta`` all k answers within ``alpha``, replace-one, n public). Invalid answers come first.
    A number with a fractional part is refused with a message that says why; the usual slips (rounding in
    the unsafe direction, a missing factor k, no union bound, another logarithm) are named; any other
    value gets the same message whichever side it is on.
    """
    a, refusal = parse_number(answer, what="n", low=0.0, low_open=True)
    if refusal is not None:
        return refusal
    bound = counting_queries_sample_size(k, alpha, beta, epsilon)
    truth = math.ceil(bound)  # the smallest whole n with n >= bound
    if a == truth:
        return CheckResult(True, "that is the smallest whole number of records that meets the corollary.")
    slips = ((bound / k, "the noise scale comes from the sensitivity of the whole vector of k answers, not of one "
                         "answer"),
             (math.log(k / beta) / (alpha * epsilon), "the noise scale comes from the sensitivity of the whole "
                                                      "vector of k answers, not of one answer"),
             (k * math.log(1 / beta) / (alpha * epsilon), "the failure probability must cover all k answers at once: "
                                                          "apply the union bound"),
             (bound * math.log10(math.e), "use the natural logarithm"),
             (bound / math.log(2), "use the natural logarithm"))
    slip = match_slip(a, bound, slips, 1e-3)
    if slip is not None:
        return slip
    if a != math.floor(a):
        return CheckResult(False, "the sample size is a whole number: round in the safe direction")
    if truth - 1 <= a < truth:  # the bound rounded down or to the nearest
        return CheckResult(False, "this n falls short of the bound: the corollary needs n at least the bound, so "
                                  "round in the safe direction, never to the nearest")
    if truth < a <= bound * (1 + 1e-3):
        return CheckResult(False, "this n meets the bound, but the question asks for the smallest whole number "
                                  "that does")
    return not_yet("n", "the whole number the corollary asks for")
