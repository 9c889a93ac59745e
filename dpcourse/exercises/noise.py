"""Checkers for the exercises of the chapter "Noise on a real computer"."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import stats

from .. import _sampling
from .._sampling import _check_release_scale, _check_terms, _round_up
from ..lattice import laplace_lattice
from . import CheckResult, call_many, call_student
from ._draws import check_rng, log_uniform, shown
from . import Forbidden

__all__ = ["IntegersOnly", "check_bernoulli_exp", "check_lattice_scale"]

# (numerator, denominator) of gamma in [0, 1]: the ends, a half, a fraction with a large denominator
_CASES = ((0, 1), (1, 1), (1, 2), (7, 10), (123456789, 1000000007))
_DRAWS = 20_000
_ALPHA = 1e-6


class IntegersOnly:
    """A random generator that offers only ``integers`` (the one draw an exact sampler may use).

    Wraps a :class:`numpy.random.Generator`; any other method (``random``, ``uniform``, ``exponential``...)
    raises an AttributeError that says why.
    """

    def __init__(self, seed):
        self._gen = np.random.default_rng(seed)
        self.calls = 0

    def integers(self, low, high=None, size=None, **kwargs):
        """Uniform integers, as :meth:`numpy.random.Generator.integers`."""
        self.calls += 1
        return self._gen.integers(low, high, size=size, **kwargs)

    def __getattr__(self, name):
        raise AttributeError(f"rng.{name} is not available here: an exact sampler draws only uniform integers "
                             f"with rng.integers(low, high)")


def _bernoulli_cases(rng, seed) -> list:
    """``(num, den, seed of the rng handed to the student)`` per fraction: the book's, or six drawn from ``rng``.

    Drawn: gamma = 0 and gamma = 1 (with random denominators), three gamma in [1/4, 1) with a small, a
    medium and a large denominator (up to 1e12), and one small gamma, log-uniform in [1e-3, 1/4), with a
    denominator in [1e6, 1e9] (so a function that returns True below some gamma is tried there: at gamma =
    1e-3, 20 000 runs all True have probability exp(-20), about 2e-9, far below the level 1e-6 / 6 of each
    test). From gamma = 1/4 on, 20 000 runs see a 10 % error in gamma at level 1e-6 / 6 with probability
    about 0.9 or more, and the case gamma = 1 always does (ten standard deviations).
    """
    if rng is None:
        return [(num, den, seed + num % 1000 + den % 1000) for num, den in _CASES]

    def fraction(lo, hi):
        den = int(rng.integers(lo, hi + 1))
        return int(rng.integers(-(-den // 4), den)), den

    def small():
        den = int(rng.integers(10**6, 10**9 + 1))
        return max(1, int(log_uniform(rng, 1e-3, 0.25) * den)), den

    fractions = [(0, int(rng.integers(1, 10**6))), (lambda d: (d, d))(int(rng.integers(1, 10**6))),
                 fraction(2, 20), fraction(100, 10**6), fraction(10**9, 10**12), small()]
    return [(num, den, int(rng.integers(2**63))) for num, den in fractions]


_REPEATED = 200    # calls repeated with the same seed, and with another, for the reproducibility test


def _plain(seed, book: bool):
    return IntegersOnly(seed) if book else np.random.default_rng(seed)


# The library's exact Bernoulli(exp(-gamma)) samplers, vectorized and one trial at a time: the exercise asks for one.
_BERNOULLI_FORBIDDEN = Forbidden(*(getattr(_sampling, name) for name in (
    "_bern_exp_fraction1", "_bern_exp_fraction", "_bern_exp1", "_bern_exp", "_bern_exp_minus_one1",
    "_bern_exp_minus_one", "_bern_ratio1", "_bern_ratio")))


def check_bernoulli_exp(student_fn, *, seed: int = 2026, rng=None) -> CheckResult:
    """Check ``student_fn(num, den, rng)``: one exact Bernoulli(exp(-num/den)) trial, for 0 <= num <= den.

    The checker runs the function 20 000 times on each fraction and applies an exact two-sided binomial test,
    so a correct sampler almost never fails and one whose probability is off by a few percent does. Then the
    trials must come from the rng argument: the function must draw from it (except at gamma = 0), the same seed
    gives the same trials, another seed others. The message names the failing fraction and what the frequency
    suggests, never the algorithm.

    With ``rng=None`` (the book's self-check) the fractions are the book's five, each binomial test at level
    1e-6, and the rng offers only ``rng.integers`` (:class:`IntegersOnly`). With a
    :class:`numpy.random.Generator` ``rng`` (the grader's) the six fractions (gamma = 0, gamma = 1, three in
    [1/4, 1), one in [1e-3, 1/4)) and the seeds are drawn from it, each binomial test at level 1e-6 / 6 (1e-6
    overall), and the student gets plain ``numpy.random.default_rng(seed)`` generators.

    What the grader tests is the distribution of the trials (the binomial tests), that they are reproducible
    from ``rng``, and that ``rng`` is used. It cannot tell an exact sampler from a floating-point one
    (``rng.random() < exp(-gamma)``, the chapter's algorithm with ``rng.random()`` trials) whose probability is
    off by about 1e-16: no test on 20 000 trials sees that, and no replay of the generator's states separates the
    two without refusing honest exact samplers that draw 63- or 64-bit words. Whether the sampler is exact (the
    lemma ``lem-bernoulli-exp``: integer draws and exact comparisons only) is for the teacher to read in the code.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself (its name, without parentheses)")
    book = check_rng(rng) is None
    cases = _bernoulli_cases(rng, seed)
    alpha = _ALPHA if book else _ALPHA / len(cases)
    trials = {}
    num, den, case_seed = cases[0]   # one watched call first: the library's own samplers are refused by name
    _, failure = call_student(lambda *a: int(bool(student_fn(*a))), (num, den, _plain(case_seed, book)),
                              f"on num={num}, den={den}", forbidden=_BERNOULLI_FORBIDDEN)
    if failure is not None:
        return failure
    for num, den, case_seed in cases:
        gen = _plain(case_seed, book)
        start = None if book else gen.bit_generator.state
        target = math.exp(-num / den)
        on = shown(f"on num={num}, den={den}")
        hits, outs = 0, []
        try:   # one batch of calls (one round trip when graded)
            results, _ = call_many(student_fn, [(num, den, gen)] * _DRAWS)
        except AttributeError as exc:
            if book:
                return CheckResult(False, str(exc))
            return CheckResult(False, f"your function raised AttributeError: {exc} ({on})")
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
            return CheckResult(False, f"your function raised {type(exc).__name__}: {exc} ({on})")
        for i, out in enumerate(results):
            if isinstance(out, (bool, np.bool_)) or (isinstance(out, numbers.Integral) and int(out) in (0, 1)):
                hits += int(out)
            else:
                return CheckResult(False, f"return True or False (or 1 or 0), got {out!r} {on}")
            if i < _REPEATED:
                outs.append(bool(out))
        drew = gen.calls > 0 if book else gen.bit_generator.state != start
        if not drew and num not in (0,):
            return CheckResult(False, f"{on} your function never drew a random integer")
        p_value = stats.binomtest(hits, _DRAWS, target).pvalue
        if p_value < alpha:
            freq = hits / _DRAWS
            hint = ""
            if abs(freq - (1 - target)) < 0.02:
                hint = " It looks like 1 - exp(-gamma): check which parity of the counter you return."
            elif num > 0 and abs(freq - math.exp(-2 * num / den)) < 0.02:
                hint = " It looks like exp(-2 gamma)."
            elif num > 0 and abs(freq - (1 - num / den)) < 0.02:
                hint = " It looks like 1 - gamma: only the first trial seems to count."
            return CheckResult(False, shown(f"with gamma = {num}/{den}") + f" your function returned True in {freq:.4f} of "
                                      f"{_DRAWS} runs, which is not plausible for the target probability "
                                      f"(binomial test p = {p_value:.1e}).{hint}")
        trials[(num, den, case_seed)] = outs
    # reproducibility, on the fraction whose trials vary most (the book's 7/10, or a drawn gamma in [1/4, 1])
    num, den, case_seed = min(cases, key=lambda c: abs(math.exp(-c[0] / c[1]) - 0.5))
    for other_seed, same in ((case_seed, True), (case_seed + 1, False)):
        gen = _plain(other_seed, book)
        try:
            again = [bool(out) for out in call_many(student_fn, [(num, den, gen)] * _REPEATED)[0]]
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
            return CheckResult(False, f"your function raised {type(exc).__name__}: {exc} (" +
                               shown(f"on num={num}, den={den}") + ")")
        if same and again != trials[(num, den, case_seed)]:
            return CheckResult(False, "two runs with identically seeded rng gave different trials: draw every random "
                                      "number from the rng argument (never from np.random, the random module or a "
                                      "generator of your own)")
        if not same and again == trials[(num, den, case_seed)]:
            return CheckResult(False, "different rng seeds gave the same trials: your randomness does not come from "
                                      "the rng argument")
    how = "using integer draws only" if book else "drawn from the rng it is given"
    return CheckResult(True, f"on {len(cases)} fractions, {_DRAWS} runs each, the frequencies agree with "
                             f"exp(-gamma) at significance 1e-6{'' if book else ' overall'}, {how}.")


# The exercise asks for the scale theorem thm-lattice-laplace gives: laplace_lattice (and its private helpers, the
# lattice exponent, and the dyadic round-up and scale checks of dpcourse._sampling, which Forbidden does not follow
# across modules) computes it, so it is forbidden; an honest answer needs no library code.
_LATTICE_FORBIDDEN = Forbidden(laplace_lattice, _round_up, _check_release_scale, _check_terms)

_LATTICE_CASES = ((1.0, 1.0, 0.25, 1), (1.0, 0.5, 0.125, 3), (3.0, 2.0, 1.0, 1), (2.5, 1.0, 0.5, 2), (1.0, 1.0, 2.0, 1))


def _lattice_cases(rng) -> tuple:
    """``(sensitivity, epsilon, spacing, dim)`` per case: the book's five, or five drawn from ``rng``.

    Drawn with the book's roles: a sensitivity that is a whole number of steps, several coordinates with a fine
    lattice, a step coarser than the sensitivity, and two generic cases with dim > 1 (the slip that charges
    one coordinate only shows there). Sensitivities and epsilons in hundredths, spacings powers of two; the
    charged steps are at least as many as epsilon, so the dyadic round-up of the noise is below 2**-58.
    """
    if rng is None:
        return _LATTICE_CASES

    def hundredths(lo, hi):
        return round(float(rng.uniform(lo, hi)), 2)

    def spacing(lo, hi):
        return 2.0 ** int(rng.integers(lo, hi + 1))

    g = spacing(-4, 0)
    cases = [(g * int(rng.integers(2, 21)), hundredths(0.2, 2.0), g, 1),
             (hundredths(0.5, 5.0), hundredths(0.1, 1.0), spacing(-6, -1), int(rng.integers(2, 6))),
             (hundredths(0.1, 0.9), hundredths(0.3, 1.0), spacing(0, 2), 1),
             (hundredths(1.0, 10.0), hundredths(0.5, 3.0), spacing(-3, 0), int(rng.integers(2, 5))),
             (hundredths(0.2, 3.0), hundredths(0.2, 2.0), spacing(-5, -1), int(rng.integers(2, 7)))]
    return tuple(cases)


def check_lattice_scale(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(sensitivity, epsilon, spacing, dim)``: the Laplace noise scale of a lattice release.

    The answer is the effective scale, in the units of the value, of theorem ``thm-lattice-laplace``
    (up to the dyadic round-up of :func:`dpcourse.laplace_lattice`, below 1e-9 relative here), on the book's
    five cases with ``rng=None`` or on five of the same kinds drawn from a :class:`numpy.random.Generator`.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself (its name, without parentheses)")
    cases = _lattice_cases(check_rng(rng))
    for sens, eps, g, d in cases:
        got, failure = call_student(student_fn, (sens, eps, g, d),
                                    f"on sensitivity={sens}, epsilon={eps}, spacing={g}, dim={d}",
                                    forbidden=_LATTICE_FORBIDDEN)
        if failure is not None:
            return failure
        want = laplace_lattice(sens, eps, dim=d, spacing=g).noise_scale
        if math.isclose(got, want, rel_tol=1e-9):
            continue
        ctx = shown(f"on sensitivity={sens}, epsilon={eps}, spacing={g}, dim={d}") + f" you return {got:.6g}"
        if math.isclose(got, sens / eps, rel_tol=1e-9):
            return CheckResult(False, f"{ctx}, the scale for exact reals: the rounding must be charged")
        if math.isclose(got, want / g, rel_tol=1e-9):
            return CheckResult(False, f"{ctx}: that is in lattice steps; convert to the units of the value")
        if math.isclose(got, g * (math.floor(sens / g) + 1) / eps, rel_tol=1e-9):
            return CheckResult(False, f"{ctx}: right for one coordinate; with dim coordinates each may round "
                                      "the wrong way")
        if math.isclose(got, g * (sens / g + d / 2) / eps, rel_tol=1e-9) or \
                math.isclose(got, g * (math.ceil(sens / g) + d / 2) / eps, rel_tol=1e-9):
            return CheckResult(False, f"{ctx}: half a step per coordinate is not enough (look at ties)")
        return CheckResult(False, f"{ctx}, which is not the scale the theorem requires")
    return CheckResult(True, f"your scale matches the lattice release on {len(cases)} cases.")
