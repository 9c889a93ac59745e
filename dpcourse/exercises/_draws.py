"""Helpers of the checkers whose cases the homework grader draws from its own generator.

A coding checker takes ``rng=None`` (the book's self-check: the public, fixed cases) or a
:class:`numpy.random.Generator` (the grader's, seeded from a teacher secret and fresh entropy): then it
draws its cases from ``rng``, so that a function that knows only the public cases (a lookup table, a
special case for "exactly these sizes") fails. Everything a checker hands to the student's function is
plain data (numbers, lists, numpy arrays of numbers).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["check_rng", "log_uniform", "rounded", "shown"]


def check_rng(rng) -> np.random.Generator | None:
    """``rng`` itself if it is None or a numpy Generator; a TypeError otherwise (a seed is not accepted: the
    grader hands its Generator, and the book's self-check passes nothing)."""
    if rng is None or isinstance(rng, np.random.Generator):
        return rng
    raise TypeError(f"rng must be None (the book's cases) or a numpy.random.Generator (the grader's), "
                    f"got {type(rng).__name__}")


def log_uniform(rng: np.random.Generator, low: float, high: float) -> float:
    """A number spread evenly on a log scale between ``low`` and ``high`` (both > 0)."""
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


def rounded(x: float, digits: int = 3) -> float:
    """``x`` to ``digits`` significant digits, so that a case reads as a person would type it."""
    return float(f"{x:.{digits}g}")


def shown(context: str) -> str:
    """``context`` (the inputs of a call, quoted in a message), or words that name no input when the grader
    asks for its cases to stay hidden (``dpcourse.exercises.SHOW_INPUTS`` set to False)."""
    from .. import exercises

    return context if getattr(exercises, "SHOW_INPUTS", True) else "on one of the grader's cases"
