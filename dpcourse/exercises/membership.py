"""Checkers for the exercises of the chapter "Membership inference and auditing private training"."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .. import membership
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_max_audit_epsilon", "check_lira_online"]


def _max_audit_epsilon(n_bound: int, confidence: float) -> float:
    """Largest lower bound the Clopper-Pearson audit can return with n_bound bounding runs per side, delta = 0:
    every "in" run above the threshold and no "out" run, each bound at level (1 - confidence) / 2."""
    alpha = (1.0 - confidence) / 2.0
    p_lower = alpha ** (1.0 / n_bound)          # lower CP bound for n_bound successes of n_bound
    q_upper = 1.0 - alpha ** (1.0 / n_bound)    # upper CP bound for 0 successes of n_bound
    return math.log(p_lower / q_upper)


def check_max_audit_epsilon(answer, n_bound=100, confidence=0.95) -> CheckResult:
    """Check the largest epsilon lower bound a canary audit with ``n_bound`` bounding runs per side can give.

    Truth from the Clopper-Pearson bounds of theorem ``mia-thm-audit`` (k = n and k = 0 have closed forms).
    The defaults are the book's numbers; a homework variant passes its own.
    Recognised slips: the whole error budget 1 - confidence given to each bound (no Bonferroni split), the
    canary side's probability taken as 1 instead of its lower bound, and the "rule of three" 3/n in place of
    the exact upper bound.
    """
    return check_number(answer, **_audit_question(n_bound, confidence))


def _audit_question(n_bound=100, confidence=0.95) -> dict:
    """check_number's arguments for :func:`check_max_audit_epsilon` with these numbers."""
    n = int(n_bound)
    conf = float(confidence)
    truth = _max_audit_epsilon(n, conf)
    a_full = 1.0 - conf
    slips = [(math.log(a_full ** (1 / n) / (1 - a_full ** (1 / n))),
              "each of the two bounds may use only half of the error budget (a union bound over the two)"),
             (math.log(1.0 / (1.0 - (a_full / 2) ** (1 / n))),
              "the canary side's probability is bounded from below too: all runs in the test does not make it 1"),
             (math.log((1 - 3 / n) / (3 / n)), "3/n is an approximation of the upper bound at 0 successes, and "
                                               "at a different level: use the exact Clopper-Pearson bound")]
    return dict(truth=truth, what="the largest lower bound", low=0.0, slips=slips)


_LIRA_FORBIDDEN = Forbidden(membership.lira_scores)
_CASES = [(1.0, 2.0, 0.5, 1.0), (-0.5, 3.0, 0.2, 0.7), (2.0, 1.5, 1.5, 1.5)]


def _lira_cases(rng):
    """``[(phi, mu_in, mu_out, sd_in, sd_out)]``: the book's three on 11 confidences, or three drawn from the
    grader's ``rng``: means over -3..3 and standard deviations over 0.2..3 on a log scale (to 3 digits), on
    5 to 30 confidences uniform over -6..8."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        phi = np.linspace(-4.0, 6.0, 11)
        return [(phi, *case) for case in _CASES]
    return [(np.sort(rng.uniform(-6.0, 8.0, int(rng.integers(5, 31)))), rounded(rng.uniform(-3, 3)),
             rounded(rng.uniform(-3, 3)), rounded(log_uniform(rng, 0.2, 3.0)), rounded(log_uniform(rng, 0.2, 3.0)))
            for _ in range(3)]


def check_lira_online(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(phi, mu_in, sd_in, mu_out, sd_out) -> online LiRA scores`` (arrays, elementwise).

    Must equal the log likelihood ratio used by :func:`dpcourse.membership.lira_scores` (online) to 1e-9, on
    the book's cases or (``rng``, a numpy Generator: the homework grader's) on cases drawn from it.
    Recognised slips: the ratio upside down, variances used as standard deviations, the normalising terms
    log(sd) dropped (which matters when the two standard deviations differ).
    """
    from ._draws import shown

    for phi, mu_in, mu_out, sd_in, sd_out in _lira_cases(rng):
        where = shown(f"on mu_in={mu_in}, mu_out={mu_out}, sd_in={sd_in}, sd_out={sd_out}")
        got, err = call_student(student_fn, (phi.copy(), mu_in, sd_in, mu_out, sd_out), where, shape=phi.shape,
                                forbidden=_LIRA_FORBIDDEN)
        if err is not None:
            return err
        want = stats.norm.logpdf(phi, mu_in, sd_in) - stats.norm.logpdf(phi, mu_out, sd_out)
        if np.allclose(got, want, rtol=1e-9, atol=1e-9):
            continue
        slips = [(-want, "the ratio is upside down: a member's confidence should be likely under the 'in' Gaussian"),
                 (stats.norm.logpdf(phi, mu_in, sd_in ** 2) - stats.norm.logpdf(phi, mu_out, sd_out ** 2),
                  "a variance was used where the Gaussian takes a standard deviation"),
                 (-(phi - mu_in) ** 2 / (2 * sd_in ** 2) + (phi - mu_out) ** 2 / (2 * sd_out ** 2),
                  "the densities' normalising factors 1/sd are missing")]
        for value, hint in slips:
            if np.allclose(got, value, rtol=1e-9, atol=1e-9):
                return CheckResult(False, f"{where}: {hint}")
        return CheckResult(False, f"{where}: the scores are not the Gaussian log likelihood ratio yet.")
    return CheckResult(True, "your scores agree with LiRA's online score on every case tried.")
