"""Checkers for the exercises of the chapter "Testing a privacy claim"."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..audit import audit_epsilon
from ..laplace import dp_mean, laplace_mechanism
from . import CheckResult, Forbidden, call_many, call_student
from ._draws import check_rng, shown

__all__ = ["check_clamped_mean", "smallest_unbiased_sd"]

# The exercise asks for the clamped mean itself: the library's dp_mean (and its private helpers) is forbidden; its
# Laplace mechanism, which an honest solution calls on the clamped mean, is allowed.
_FORBIDDEN = Forbidden(dp_mean, allow=(laplace_mechanism,))

_N = 10
_LOWER, _UPPER = 0.0, 1.0
_DRAWS = 5_000
_CONFIDENCE = 0.999
# Replace-one neighbours (the book's: size 10, bounds [0, 1]): inside the bounds, and with one record far outside.
_INSIDE_HINT = ("even between records inside the bounds, one record moves your release more than the noise "
                "covers: how far can one record inside [lower, upper] move a mean of n values?")
_OUTSIDE_HINT = ("a record outside [lower, upper] moves your release more than the noise covers: the sensitivity "
                 "you assumed only holds for some records")
# The first pair (see _pairs) realises the full sensitivity (upper - lower) / n of the clamped mean: one record
# moves from lower to upper. (A pair that moves a record by half the range would let half the noise pass.)
_SD_DRAWS = 4000
# Sampling margin of the noise lower bound: the pooled sample sd of 2 x 4000 draws of Laplace-like noise has a
# relative standard error of about 1.3 %; 10 % keeps a correct answer (sd 1.43-1.66 times the bound) far away.
_SD_MARGIN = 0.9
# The grader's run (rng given): its audits must together refute an honest release with probability at most 1e-6
# (a false refusal scores the question 0). Each of its 8 audits (2 epsilons x 4 pairs) runs at confidence
# 1 - 0.95e-6 / 8 (Bonferroni); the 6-sigma z-tests of the mean (2e-9 each, 4 datasets x 2 epsilons) and the
# noise bounds (an honest sd is 1.4-1.8 times the lower bound, 0.5 times the upper) take the rest. At that level
# 10 000 draws per input still refute half the noise at every epsilon from 0.3 on (measured: 40 of 40 audits
# of the pair lower/upper at epsilon 0.3, 0.8, 1, 1.5 and 2.5).
_GRADER_FALSE_REFUSAL = 0.95e-6
_GRADER_DRAWS = 10_000


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



@dataclass(frozen=True)
class _Setup:
    """The numbers of one run of :func:`check_clamped_mean`: sizes, bounds, epsilons, pairs and seeds."""

    n: int
    lower: float
    upper: float
    epsilons: tuple
    pairs: list          # (what, x, x_prime, hint)
    low_high: tuple      # the pair that moves one record from lower to upper
    seeds: tuple         # the student's generator, and two seeds of the reproducibility check
    sd_pairs: tuple = ()     # the pairs on which the mean and the noise are measured (default: low_high)
    draws: int = _DRAWS      # draws per input of each audit
    confidence: float = _CONFIDENCE   # of each audit


def _inputs_shown() -> bool:
    """Whether messages may quote the case's numbers (not when the grader hides its cases: SHOW_INPUTS)."""
    return shown("") == ""


def _pairs(n, lower, upper, middle, above, below):
    """The three pairs of neighbours (with words for them that quote the bounds, or not) and the lower/upper pair."""
    rest = np.full(n - 1, middle)
    x_low, x_high = np.r_[rest, lower], np.r_[rest, upper]
    inside = f"[{lower:g}, {upper:g}]"
    pairs = [((f"two datasets inside {inside} differing in one record, {lower:g} in one and {upper:g} in the other",
               "two datasets inside the bounds differing in one record, at lower in one and at upper in the other"),
              x_low, x_high, _INSIDE_HINT),
             ((f"a dataset inside {inside} and its neighbour with one record far above",
               "a dataset inside the bounds and its neighbour with one record far above"),
              np.full(n, middle), np.r_[rest, above], _OUTSIDE_HINT),
             ((f"a dataset inside {inside} and its neighbour with one record far below",
               "a dataset inside the bounds and its neighbour with one record far below"),
              np.full(n, middle), np.r_[rest, below], _OUTSIDE_HINT)]
    return pairs, (x_low, x_high)


def _setup(rng, seed) -> _Setup:
    """The book's setup (n = 10 in [0, 1], epsilon 0.5 and 2, the checker's generator seeded with ``seed``),
    or one drawn from ``rng``.

    Drawn: n from 5 to 40 (at n >= 3 a release with the noise of an unclamped range, n times too much, is
    refused as more than twice the needed noise), bounds [lower, upper] with lower in [-20, 20] and a width
    from 0.3 to 30, the other records at a point inside, the far records 20 to 100 widths outside (the
    unclamped mean then moves by at least 6 noise scales, which the audit sees), a fourth pair of varied
    records (drawn around the bounds, a few outside) with one record at lower or at upper, one epsilon in
    [0.3, 2.5] and epsilon = 1 exactly, and the seeds of the generators handed to the student. The audits
    then run at the confidence and with the draws of ``_GRADER_FALSE_REFUSAL`` and ``_GRADER_DRAWS``.
    """
    if rng is None:
        pairs, low_high = _pairs(_N, _LOWER, _UPPER, 0.5, 50.0, -50.0)
        return _Setup(_N, _LOWER, _UPPER, (0.5, 2.0), pairs, low_high, (seed, seed + 1, seed + 2), sd_pairs=(low_high,))
    n = int(rng.integers(5, 41))
    lower = round(float(rng.uniform(-20, 20)), 1)
    width = round(float(10 ** rng.uniform(math.log10(0.3), math.log10(30))), 1)
    upper = round(lower + width, 1)
    middle = round(lower + width * float(rng.uniform(0.2, 0.8)), 2)
    above = round(upper + width * float(rng.uniform(20, 100)), 1)
    below = round(lower - width * float(rng.uniform(20, 100)), 1)
    epsilons = (round(float(rng.uniform(0.3, 2.5)), 2), 1.0)
    pairs, low_high = _pairs(n, lower, upper, middle, above, below)
    # Varied records (a few outside the bounds, clamped), one of them moved from lower to upper: a release that
    # behaves differently on data unlike the book's (n - 1 equal records) is audited and measured there too.
    rest = np.round(rng.uniform(lower - 0.5 * width, upper + 0.5 * width, size=n - 1), 2)
    generic = (np.r_[rest, lower], np.r_[rest, upper])
    pairs.append(((f"two datasets of {n} varied records differing in one record, {lower:g} in one and {upper:g} "
                   "in the other", "two datasets of varied records differing in one record, at lower in one and "
                   "at upper in the other"), generic[0], generic[1], _INSIDE_HINT))
    audits = len(epsilons) * len(pairs)
    return _Setup(n, lower, upper, epsilons, pairs, low_high, tuple(int(s) for s in rng.integers(2**63, size=3)),
                  sd_pairs=(low_high, generic), draws=_GRADER_DRAWS,
                  confidence=1.0 - _GRADER_FALSE_REFUSAL / audits)


def _releases(student_fn, setup, x, eps, seed, count=10):
    """``count`` releases of the student's function on x, drawn in turn from one generator seeded with ``seed``."""
    gen = np.random.default_rng(seed)
    outs, _ = call_many(student_fn, [(x.copy(), setup.lower, setup.upper, eps, gen) for _ in range(count)])
    return np.array(outs, float)


def check_clamped_mean(student_fn, *, seed: int = 2026, rng=None) -> CheckResult:
    """Audit a student's ``student_fn(x, lower, upper, epsilon, rng) -> float``, meant to be an epsilon-DP mean.

    The mechanism must be epsilon-DP under replace-one for any data (records outside ``[lower, upper]``
    included), centred on the clamped mean, and neither much noisier than needed nor less noisy than
    possible. The checker audits it with :func:`dpcourse.audit_epsilon` at confidence 0.999 on three pairs
    of neighbours, at epsilon 0.5 and 2 (the grader's run: four pairs, two epsilons, and a confidence that
    keeps the chance of refusing an honest release below 1e-6 over all audits); the first pair moves one
    record from ``lower`` to ``upper`` and so
    realises the largest change of the clamped mean. On that pair (and on the grader's pair of varied records)
    it then measures the release: its mean
    must follow the clamped mean, and its standard deviation must lie between 0.9 times the smallest that
    any such epsilon-DP release can have (:func:`smallest_unbiased_sd`) and twice that of Laplace noise
    calibrated to that largest change. Last, the release must come from the ``rng`` argument: the same seed
    gives the same releases, another seed others. The message names what is wrong, never the fix.

    With ``rng=None`` the data are the book's (ten records in [0, 1]) and the generator handed to the student
    is seeded with ``seed``; with a :class:`numpy.random.Generator` ``rng`` the size, bounds, data, the two
    epsilons and every seed are drawn from it. The generators handed to the student are plain
    ``numpy.random.default_rng(seed)``.
    """
    setup = _setup(check_rng(rng), seed)
    n, lower, upper = setup.n, setup.lower, setup.upper
    numbers = _inputs_shown()
    gen = np.random.default_rng(setup.seeds[0])
    x_first = setup.pairs[1][1]
    _, failure = call_student(student_fn, (x_first.copy(), lower, upper, setup.epsilons[0], gen),
                              f"on x = {n} records equal to {x_first[0]:g}, lower = {lower:g}, upper = {upper:g}, "
                              f"epsilon = {setup.epsilons[0]}" if rng is not None else
                              "on x = ten records equal to 0.5, lower = 0, upper = 1, epsilon = 0.5",
                              forbidden=_FORBIDDEN)
    if failure is not None:
        return failure
    for eps in setup.epsilons:

        def mech(x, g, eps=eps, size=None):   # with size: one batch of calls (one round trip when graded)
            if size is None:
                return student_fn(x.copy(), lower, upper, eps, g)
            outs, _ = call_many(student_fn, [(x.copy(), lower, upper, eps, g) for _ in range(size)])
            return np.array(outs, float)

        at = f"at epsilon = {eps}" if numbers else "at one of the two epsilons"
        for (what, words), x, x_prime, hint in setup.pairs:
            try:
                res = audit_epsilon(mech, x, x_prime, setup.draws, rng=gen, confidence=setup.confidence)
            except Exception as exc:  # the student's code may raise anything; report it as feedback
                return CheckResult(False, f"auditing your function raised {type(exc).__name__}: {exc}. It must "
                                          "return one float per call, given (x, lower, upper, epsilon, rng)")
            if res.refutes(eps):
                found = f"epsilon >= {res.lower_bound:.2f} > {eps} (event {res.event})" if numbers else \
                    "an epsilon above the one claimed"
                return CheckResult(False, f"{at} the audit on {what if numbers else words} found {found}: {hint}")
        sens = (upper - lower) / n
        ideal_sd = math.sqrt(2) * sens / eps
        for pair in setup.sd_pairs:   # each pair on its own: a release may add less noise on one kind of data
            variances = []
            for x in pair:
                outs = np.array(call_many(student_fn, [(x.copy(), lower, upper, eps, gen)
                                                       for _ in range(_SD_DRAWS)])[0], float)
                target = float(np.clip(x, lower, upper).mean())
                tolerance = 6 * max(float(np.std(outs)), ideal_sd) / math.sqrt(outs.size)  # a 6-sigma z-test
                if not abs(float(np.mean(outs)) - target) <= tolerance + 1e-9 * max(1.0, abs(target)):
                    if not numbers:
                        return CheckResult(False, "on one of the grader's cases your release does not average the "
                                                  "clamped mean; a noisy mean should be centred on the true mean")
                    others = "nine" if n == 10 else str(n - 1)
                    data = f"{others} records equal to {x[0]:g} and one equal to {x[-1]:g}" if pair is \
                        setup.low_high else f"{n} varied records (clamped mean {target:.3g})"
                    return CheckResult(False, f"on {data} your release averages {np.mean(outs):.3f} at epsilon = "
                                              f"{eps}; a noisy mean should be centred on the true mean")
                variances.append(float(np.var(outs)))
            sd = math.sqrt(sum(variances) / len(variances))
            if sd > 2 * ideal_sd:
                value = f" is {sd:.3g}," if numbers else " is"
                return CheckResult(False, f"your release is private in the audit, but {at} its standard deviation"
                                          f"{value} more than twice what the sensitivity of a clamped mean of "
                                          f"{n if numbers else 'n'} records requires")
            if sd < _SD_MARGIN * smallest_unbiased_sd(sens, eps):
                data = f"{n} records in [{lower:g}, {upper:g}]" if numbers else "n records in [lower, upper]"
                value = f" is {sd:.3g}" if numbers else ""
                return CheckResult(False, f"{at} the standard deviation of your release{value}: less noise than "
                                          f"any epsilon-DP mean of {data} can have (the audit did not catch it, the "
                                          "noise bound does): which change of one record does your noise cover?")
    x, eps = setup.low_high[1], setup.epsilons[0]
    first = _releases(student_fn, setup, x, eps, setup.seeds[1])
    if not np.array_equal(first, _releases(student_fn, setup, x, eps, setup.seeds[1])):
        return CheckResult(False, "two runs with identically seeded rng gave different releases: draw every random "
                                  "number from the rng argument (never from np.random or a generator of your own), "
                                  "so that a release can be reproduced and audited")
    if np.array_equal(first, _releases(student_fn, setup, x, eps, setup.seeds[2])):
        return CheckResult(False, "different rng seeds gave the same releases: your noise does not come from the rng "
                                  "argument")
    return CheckResult(True, "no audit refuted your claim, and the noise is no larger than it needs to be.")
