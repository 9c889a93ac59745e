"""Checkers for the exercises of the chapter "Noise on a real computer"."""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import stats

from ..discrete import laplace_lattice
from . import CheckResult

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


def check_bernoulli_exp(student_fn, *, seed: int = 2026) -> CheckResult:
    """Check ``student_fn(num, den, rng)``: one exact Bernoulli(exp(-num/den)) trial, for 0 <= num <= den.

    ``rng`` offers only ``rng.integers`` (:class:`IntegersOnly`). The checker runs the function 20 000
    times on each of a few fractions and applies an exact two-sided binomial test at significance 1e-6,
    so a correct sampler never fails and one whose probability is off by a few percent does. The
    message names the failing fraction and what the frequency suggests, never the algorithm.
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself (its name, without parentheses)")
    for num, den in _CASES:
        rng = IntegersOnly(seed + num % 1000 + den % 1000)
        target = math.exp(-num / den)
        hits = 0
        for _ in range(_DRAWS):
            try:
                out = student_fn(num, den, rng)
            except AttributeError as exc:
                return CheckResult(False, str(exc))
            except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
                return CheckResult(False, f"your function raised {type(exc).__name__}: {exc} (on num={num}, "
                                          f"den={den})")
            if isinstance(out, (bool, np.bool_)) or (isinstance(out, numbers.Integral) and int(out) in (0, 1)):
                hits += int(out)
            else:
                return CheckResult(False, f"return True or False (or 1 or 0), got {out!r} on num={num}, den={den}")
        if rng.calls == 0 and num not in (0,):
            return CheckResult(False, f"on num={num}, den={den} your function never drew a random integer")
        p_value = stats.binomtest(hits, _DRAWS, target).pvalue
        if p_value < _ALPHA:
            freq = hits / _DRAWS
            hint = ""
            if abs(freq - (1 - target)) < 0.02:
                hint = " It looks like 1 - exp(-gamma): check which parity of the counter you return."
            elif num > 0 and abs(freq - math.exp(-2 * num / den)) < 0.02:
                hint = " It looks like exp(-2 gamma)."
            elif num > 0 and abs(freq - (1 - num / den)) < 0.02:
                hint = " It looks like 1 - gamma: only the first trial seems to count."
            return CheckResult(False, f"with gamma = {num}/{den} your function returned True in {freq:.4f} of "
                                      f"{_DRAWS} runs, which is not plausible for the target probability "
                                      f"(binomial test p = {p_value:.1e}).{hint}")
    return CheckResult(True, f"on {len(_CASES)} fractions, {_DRAWS} runs each, the frequencies agree with "
                             "exp(-gamma) at significance 1e-6, using integer draws only.")


def check_lattice_scale(student_fn) -> CheckResult:
    """Check ``student_fn(sensitivity, epsilon, spacing, dim)``: the Laplace noise scale of a lattice release.

    The answer is the effective scale, in the units of the value, of theorem ``thm-lattice-laplace``
    (up to the dyadic round-up of :func:`dpcourse.laplace_lattice`, below 1e-9 relative here).
    """
    if not callable(student_fn):
        return CheckResult(False, "pass the function itself (its name, without parentheses)")
    cases = ((1.0, 1.0, 0.25, 1), (1.0, 0.5, 0.125, 3), (3.0, 2.0, 1.0, 1), (2.5, 1.0, 0.5, 2),
             (1.0, 1.0, 2.0, 1))
    for sens, eps, g, d in cases:
        try:
            got = float(student_fn(sens, eps, g, d))
        except Exception as exc:  # noqa: BLE001
            return CheckResult(False, f"your function raised {type(exc).__name__}: {exc} (on sensitivity={sens}, "
                                      f"epsilon={eps}, spacing={g}, dim={d})")
        want = laplace_lattice(sens, eps, dim=d, spacing=g).noise_scale
        if math.isclose(got, want, rel_tol=1e-9):
            continue
        ctx = f"on sensitivity={sens}, epsilon={eps}, spacing={g}, dim={d} you return {got:.6g}"
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
