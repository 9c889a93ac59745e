"""Checkers for the exercises of the chapter "Differential privacy in the world"."""

from __future__ import annotations

import math

from ..deidentification import posterior_bound
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_posterior_bound", "check_user_epsilon"]

_FORBIDDEN = Forbidden(posterior_bound)

# (prior, epsilon): rare and common secrets, small and large epsilon
_POSTERIOR_CASES = [(0.5, 1.0), (0.01, 0.1), (0.01, 4.0), (0.3, 8.0), (0.9, 0.5), (1e-6, 10.0)]


def _posterior_cases(rng):
    """The book's six cases, or six drawn from the grader's ``rng`` (to 3 digits): priors spread evenly in
    log-odds between 1e-6 and 0.99, epsilon over 0.05..10 on a log scale, one of them a rare secret
    (prior <= 1e-3) with a large epsilon (>= 4), where the odds change most."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return _POSTERIOR_CASES
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    cases = []
    for _ in range(5):
        z = rng.uniform(logit(1e-6), logit(0.99))
        cases.append((rounded(1 / (1 + math.exp(-z))), rounded(log_uniform(rng, 0.05, 10.0))))
    cases.insert(int(rng.integers(6)), (rounded(log_uniform(rng, 1e-6, 1e-3)), rounded(rng.uniform(4.0, 10.0))))
    return cases


def check_posterior_bound(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(prior, epsilon) -> float``: the largest posterior after an epsilon-DP release.

    On the book's cases, or (``rng``, a numpy Generator: the homework grader's) on cases drawn from it. The
    function must be written, not borrowed: a function that uses ``dpcourse.posterior_bound`` is refused.
    The messages name the usual slips (a posterior that can exceed 1; a halved epsilon) without giving the
    formula.
    """
    from ._draws import shown

    for prior, eps in _posterior_cases(rng):
        where = shown(f"on prior={prior}, epsilon={eps}")
        got, failure = call_student(student_fn, (prior, eps), where, forbidden=_FORBIDDEN)
        if failure is not None:
            return failure
        want = posterior_bound(prior, eps)
        if math.isclose(got, want, rel_tol=1e-6):
            continue
        if not 0.0 <= got <= 1.0:
            return CheckResult(False, f"a posterior is a probability, in [0, 1]; got {got} {where}. "
                                      "Theorem world-thm-posterior bounds a ratio of odds, not of probabilities")
        if math.isclose(got, min(1.0, math.exp(eps) * prior), rel_tol=1e-9):
            return CheckResult(False, f"off {where}: e^epsilon multiplies the odds p/(1-p), not the probability")
        if math.isclose(got, posterior_bound(prior, eps / 2), rel_tol=1e-9):
            return CheckResult(False, f"off {where}: the odds grow by e^epsilon, the whole epsilon")
        return CheckResult(False, f"not yet right {where} (a relative precision of 1e-6 is asked)")
    return CheckResult(True, "your bound matches theorem world-thm-posterior on every case tried.")


def _days_phrase(days) -> str:
    return "the month composes 30 daily releases" if days == 30 else f"the {days} days compose {days} daily releases"


def check_user_epsilon(answer, *, epsilon=0.05, events_per_day=20, days=30) -> CheckResult:
    """Exercise world-ex-unit: a user contributes up to 20 events a day, each event's release is 0.05-DP
    (pure, event level, add/remove); the releases run for 30 days. The user-level epsilon over the month.

    ``epsilon``, ``events_per_day``, ``days``: the book's numbers, or a homework variant's."""
    return check_number(answer, **_user_epsilon_question(epsilon, events_per_day, days))


def _user_epsilon_question(epsilon=0.05, events_per_day=20, days=30) -> dict:
    """check_number's arguments for :func:`check_user_epsilon` with these numbers."""
    k = events_per_day
    return dict(truth=epsilon * k * days, what=f"the user-level epsilon over {days} days", low=0.0, low_open=True,
                slips=[(epsilon * days, f"that protects one event a day; a user can contribute up to {k}"),
                       (epsilon * k, f"that is one day; {_days_phrase(days)}"),
                       (epsilon * k * k * days, "group privacy multiplies epsilon by the group size k, "
                                                "not by k^2 (k^2 is the zCDP rule for rho)")])
