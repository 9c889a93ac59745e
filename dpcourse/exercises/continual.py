"""Checkers for the exercises of the chapter "Continual release: counting over a stream"."""

from __future__ import annotations

import math

from ..continual import TreeCounter, tree_levels, tree_node_variance, tree_variance
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_tree_variance", "check_node_scale"]

#: The book's numbers for the variance question: (horizon T, step t, epsilon).
TREE_VARIANCE_QUESTION = (1000, 1000, 1.0)


def _tree_variance_truth(T: int, t: int, eps: float) -> float:
    return float(tree_variance(t, T, eps))


def check_tree_variance(answer, horizon=None, t=None, epsilon=None) -> CheckResult:
    """Check the exact variance of the pure-DP tree counter's answer at step t (theorem ``cr-thm-tree-variance``).

    The question's numbers default to the book's (:data:`TREE_VARIANCE_QUESTION`); a homework variant passes
    its own. Recognised slips: a node scale from the real logarithm of the horizon instead of the number of
    levels; every level's node counted instead of the nodes the answer uses; the variance of the continuous
    Laplace distribution instead of the discrete one the counter draws. Precision asked: 0.05 %, stated as such in the messages; an answer within
    it is right, and a slip is named only outside it, for an answer nearer the slip's value than the truth.
    """
    return check_number(answer, **_tree_variance_question(horizon, t, epsilon))


def _tree_variance_question(horizon=None, t=None, epsilon=None) -> dict:
    """check_number's arguments for :func:`check_tree_variance` with these numbers."""
    T0, t0, e0 = TREE_VARIANCE_QUESTION
    T = T0 if horizon is None else int(horizon)
    t = t0 if t is None else int(t)
    eps = e0 if epsilon is None else float(epsilon)
    truth = _tree_variance_truth(T, t, eps)
    L = tree_levels(T)
    used = bin(t).count("1")
    per_node = truth / used
    slips = [(used * 2 * (math.log2(T) / eps) ** 2, "the noise scale of a node counts the tree's levels, a whole "
                                                    "number, not a real logarithm"),
             (L * per_node, "the answer at t does not use a node of every level: only the nodes of the binary "
                            "expansion of t"),
             (per_node, "one node is not enough: the interval 1..t is cut into several nodes"),
             (used * 2 * (1 / eps) ** 2, "each node's noise must cover every level an event touches"),
             (used * 2 * (L / eps) ** 2, "that is the variance of the continuous Laplace distribution; the counter's "
                                         "noise is discrete Laplace, whose variance is slightly smaller")]
    return dict(truth=truth, what="the variance", low=0.0, low_open=True, slips=slips, rel_tol=5e-4)


_SCALE_CASES = (1000, 8, 1024, 7, 9, 3, 2, 1, 2**16, 2**16 - 1, 10**6)
# The functions that hold the answer, with their module's helpers, among them the one that computes a node's
# noise parameter from the levels (TreeCounter, tree_node_variance, tree_counts and the variances go through it).
_SCALE_FORBIDDEN = Forbidden(tree_levels, TreeCounter, tree_node_variance)


def _scale_cases(rng):
    """``[(horizon, epsilon)]``: the book's horizons at epsilon 1 and 0.5, or twelve drawn from the grader's
    ``rng``: two epsilons over 0.1..3 (to 3 digits), each with an exact power of two 2^j, its two
    neighbours 2^j' - 1 and 2^j'' + 1 (j from 1 to 24: where a real or rounded-up logarithm goes wrong) and
    three horizons spread on a log scale over 2..10^7."""
    from ._draws import check_rng, log_uniform, rounded

    if check_rng(rng) is None:
        return [(T, eps) for eps in (1.0, 0.5) for T in _SCALE_CASES]
    cases = []
    for _ in range(2):
        eps = rounded(rng.uniform(0.1, 3.0))
        horizons = [2 ** int(rng.integers(1, 25)), 2 ** int(rng.integers(2, 25)) - 1, 2 ** int(rng.integers(1, 25)) + 1]
        horizons += [int(round(log_uniform(rng, 2.0, 1e7))) for _ in range(3)]
        cases += [(T, eps) for T in rng.permutation(horizons).tolist()]
    return cases


def check_node_scale(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(horizon, epsilon) -> the Laplace scale of one tree node`` for pure epsilon-DP.

    The truth is the scale the course's :class:`dpcourse.TreeCounter` uses (theorem ``cr-thm-tree-privacy``), on
    horizons that include powers of two and their neighbours (the book's, or with ``rng`` -- a numpy
    Generator: the homework grader's -- horizons and epsilons drawn from it). Recognised slips: a real
    logarithm, a logarithm rounded the wrong way at powers of two, the scale of a single count, the scale of
    the naive answer. ``tree_levels``, ``TreeCounter``, ``tree_node_variance`` and the helper that computes a
    node's noise parameter are forbidden (they hold the answer), however they are reached.
    """
    from ._draws import shown

    for T, eps in _scale_cases(rng):
        where = shown(f"on horizon={T}, epsilon={eps}")
        got, err = call_student(student_fn, (T, eps), where, forbidden=_SCALE_FORBIDDEN)
        if err is not None:
            return err
        want = tree_levels(T) / eps
        if math.isclose(got, want, rel_tol=1e-9):
            continue
        power_of_two = T & (T - 1) == 0     # there log2(T) is whole, and equals the ceil slip below
        slips = [(math.nan if power_of_two else math.log2(T) / eps,
                  "the number of levels is a whole number (a real logarithm is too small at most horizons)"),
                 (math.ceil(math.log2(T)) / eps, "count the levels again at a power of two: a tree over 8 steps "
                                                 "has nodes of lengths 1, 2, 4 and 8"),
                 (1 / eps, "one event changes a node of every level, not a single node"),
                 (T / eps, "that is the scale of the naive answer; the tree's nodes need much less")]
        for value, hint in slips:
            if T > 1 and math.isclose(got, value, rel_tol=1e-9):
                return CheckResult(False, f"{where}: {hint}")
        return CheckResult(False, f"{where}: the scale is not yet right (it must make the vector of all node "
                                  "sums epsilon-DP when one event changes).")
    return CheckResult(True, "your scale agrees with the tree counter's on every horizon tried.")
