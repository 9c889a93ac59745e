"""Checkers for the exercises of the chapter "Private statistical inference"."""

from __future__ import annotations

import math

import numpy as np

from .. import inference
from ..inference import MEAN_SPLIT, noise_aware_halfwidth
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_mean_halfwidth", "check_proportion_interval"]

#: The question of the half-width exercise: n, epsilon, width of the bounds, released variance (g^2).
HALFWIDTH_QUESTION = (400, 0.5, 5000.0, 640000.0)


def _halfwidth_truth(n, epsilon, width, variance):
    b = width / (n * MEAN_SPLIT * epsilon)
    return noise_aware_halfwidth(math.sqrt(variance / n), b)


def check_mean_halfwidth(answer, *, n=None, epsilon=None, width=None, variance=None) -> CheckResult:
    """Check the 95% noise-aware half-width of the mean interval of the exercise (bounds 5,000 g apart,
    n = 400, epsilon = 0.5 with the chapter's split, released variance 640,000 g^2; normal sampling error,
    no t correction). ``n``, ``epsilon``, ``width``, ``variance`` replace the book's numbers (a homework
    variant). Recognised slips: the privacy noise ignored, the whole epsilon given to the mean, the
    two parts' half-widths added, the Laplace noise treated as normal. Precision: 0.5%.
    """
    return check_number(answer, **_halfwidth_question(n, epsilon, width, variance))


def _halfwidth_question(n=None, epsilon=None, width=None, variance=None) -> dict:
    """check_number's arguments for :func:`check_mean_halfwidth` with these numbers."""
    n, eps, width, var = (given if given is not None else book
                          for given, book in zip((n, epsilon, width, variance), HALFWIDTH_QUESTION))
    truth = _halfwidth_truth(n, eps, width, var)
    sigma = math.sqrt(var / n)
    b = width / (n * MEAN_SPLIT * eps)
    z = 1.959963984540054
    slips = [(z * sigma, "that interval ignores the privacy noise: add the Laplace noise of the released mean"),
             (noise_aware_halfwidth(sigma, width / (n * eps)), "the mean gets only part of epsilon (the rest "
                                                                "pays for the variance): its noise is larger"),
             (z * sigma + b * math.log(20), "adding the two parts' half-widths over-covers: find the quantile of "
                                             "the sum itself"),
             (z * math.sqrt(sigma**2 + 2 * b**2), "the sum of normal and Laplace noise is not normal: its tails "
                                                  "are heavier; use the exact law of the sum")]
    return dict(truth=truth, what="the half-width (g)", low=0.0, low_open=True, rel_tol=5e-3, slips=slips)


# proportion_interval with its module's helpers, but for noise_aware_halfwidth, which the exercise allows.
_PROPORTION_FORBIDDEN = Forbidden(inference.proportion_interval, allow=(noise_aware_halfwidth,))
_CASES = [(130.4, 400, 0.5), (61.0, 100, 1.0), (2480.7, 10000, 0.1), (3.2, 50, 0.2)]


def _proportion_cases(rng):
    """The book's four releases, or five drawn from the grader's ``rng``: n over 30..20,000 on a log scale,
    epsilon over 0.05..2 (to 3 digits), a true proportion over 0.02..0.98 and the count released with
    Laplace noise of scale 1/epsilon (to one decimal); one of them a count pushed by the noise outside
    [0, n], where the sampling variance must come from the clipped proportion."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return _CASES
    cases = []
    for _ in range(5):
        n, eps = int(round(log_uniform(rng, 30, 20_000))), rounded(log_uniform(rng, 0.05, 2.0))
        count = n * rng.uniform(0.02, 0.98) + rng.laplace(0.0, 1.0 / eps)
        cases.append((float(round(count, 1)), n, eps))
    n, eps = int(rng.integers(30, 200)), rounded(log_uniform(rng, 0.05, 2.0))
    past = float(round(rng.uniform(0.5, 5.0) / eps, 1))
    cases.insert(int(rng.integers(6)), (-past if rng.random() < 0.5 else n + past, n, eps))
    return cases


def check_proportion_interval(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(noisy_count, n, epsilon) -> (low, high)``: the 95% noise-aware interval for a
    proportion from a count released with Laplace noise of scale 1/epsilon (sensitivity 1, n public).

    It must equal, to 1e-6 relative on several releases (the book's, or with ``rng`` -- a numpy Generator:
    the homework grader's -- releases drawn from it), the interval the exercise asks for: centred on the
    noisy proportion ``p = noisy_count / n``, with the half-width ``noise_aware_halfwidth(sigma, 1 / (n epsilon))``,
    the 95% quantile of ``|S + L|`` under the exact law of normal plus Laplace (theorem
    ``inf-thm-convolution``) with ``S ~ N(0, sigma^2)``, ``sigma^2 = pc (1 - pc) / n`` from the estimate clipped
    to [0, 1], and ``L ~ Laplace(1 / (n epsilon))`` (the variances are not added). It is not
    :func:`dpcourse.proportion_interval`, which inverts the exact law of the noisy count. Recognised slips: the
    noise ignored, the noise scale not divided by n, the Laplace noise treated as normal (variances added), the
    sampling variance computed from an estimate outside [0, 1].
    """
    from ._draws import shown

    for count, n, eps in _proportion_cases(rng):
        where = shown(f"on noisy_count={count}, n={n}, epsilon={eps}")
        got, err = call_student(student_fn, (count, n, eps), where, shape=(2,),
                                forbidden=_PROPORTION_FORBIDDEN)
        if err is not None:
            return err
        p = count / n
        pc = min(max(p, 0.0), 1.0)
        sigma = math.sqrt(pc * (1 - pc) / n)
        want = p + np.array([-1, 1]) * noise_aware_halfwidth(sigma, 1 / (n * eps))
        if np.allclose(got, want, rtol=1e-6, atol=1e-9):
            continue
        z = 1.959963984540054
        slips = [(p + np.array([-1, 1]) * z * sigma, "the interval ignores the Laplace noise of the count"),
                 (p + np.array([-1, 1]) * noise_aware_halfwidth(sigma, 1 / eps),
                  "the noise is on the count: on the proportion its scale is divided by n"),
                 (p + np.array([-1, 1]) * z * math.sqrt(sigma**2 + 2 / (n * eps) ** 2),
                  "Laplace noise is not normal: use the exact law of the sum (dpcourse.noise_aware_halfwidth)"),
                 (p + np.array([-1, 1]) * noise_aware_halfwidth(math.sqrt(abs(p * (1 - p)) / n), 1 / (n * eps)),
                  "a noisy proportion can fall outside [0, 1]: clip it before computing p (1 - p)")]
        for value, hint in slips:
            if np.allclose(got, value, rtol=1e-4, atol=1e-9):   # 1.96 for z is the same slip
                return CheckResult(False, f"{where}: {hint}")
        # No distance to the reference: with it, an interval (p, p) would reveal the half-width.
        return CheckResult(False, f"{where}: not the noise-aware interval yet (centre it on the noisy proportion "
                                  f"and take the half-width from the law of sampling error plus Laplace noise).")
    return CheckResult(True, "your interval agrees with the reference on every release tried.")
