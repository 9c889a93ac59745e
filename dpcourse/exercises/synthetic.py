"""Checkers for the exercises of the chapter "Synthetic data from noisy marginals"."""

from __future__ import annotations

import math

import numpy as np

from .. import synthetic
from . import CheckResult, Forbidden, call_student, check_number

__all__ = ["check_one_way_sigma", "check_selection_epsilon", "check_chain_joint"]

#: The budget questions: d attributes, total rho (add/remove one record, MST's equal three-way split).
BUDGET_QUESTION = (7, 0.3)


def _sigma_truth(d, rho):
    return math.sqrt(d / (2 * rho / 3))


def _select_truth(d, rho):
    return math.sqrt(8 * (rho / 3) / (d - 1))


def check_one_way_sigma(answer, *, d=None, rho=None) -> CheckResult:
    """Check the noise scale sigma of each one-way count in MST with d = 7 attributes and rho = 0.3 in total
    (add/remove one record, a third of rho for the one-way step, the continuous-Gaussian formula; ``d`` and
    ``rho`` replace the book's numbers in a homework variant).
    Recognised slips: the sensitivity of one marginal instead of all d together, the whole rho used, the
    replace-one sensitivity, the variance given instead of sigma. Precision: 0.1%.
    """
    return check_number(answer, **_sigma_question(d, rho))


def _sigma_question(d=None, rho=None) -> dict:
    """check_number's arguments for :func:`check_one_way_sigma` with these numbers."""
    d, rho = (BUDGET_QUESTION[0] if d is None else d), (BUDGET_QUESTION[1] if rho is None else rho)
    r1 = rho / 3
    slips = [(math.sqrt(1 / (2 * r1)), "the d one-way marginals are released together: their joint l2 "
                                       "sensitivity counts one changed cell in each of them"),
             (math.sqrt(d / (2 * rho)), "the one-way step gets only its share of rho"),
             (math.sqrt(2 * d / (2 * r1)), "under add/remove one record a marginal changes in one cell, not two"),
             (d / (2 * r1), "that is the variance; give the standard deviation")]
    return dict(truth=_sigma_truth(d, rho), what="sigma", low=0.0, low_open=True, slips=slips)


def check_selection_epsilon(answer, *, d=None, rho=None) -> CheckResult:
    """Check the epsilon of each exponential-mechanism round of MST's selection with d = 7 attributes and
    rho = 0.3 in total (a third of rho for the selection, add/remove one record; ``d`` and ``rho`` replace
    the book's numbers in a homework variant). Recognised slips: the pure-DP conversion epsilon^2 / 2
    instead of the bounded-range epsilon^2 / 8, the rounds forgotten, d rounds instead of d - 1, the whole
    rho used. Precision: 0.1%.
    """
    return check_number(answer, **_selection_question(d, rho))


def _selection_question(d=None, rho=None) -> dict:
    """check_number's arguments for :func:`check_selection_epsilon` with these numbers."""
    d, rho = (BUDGET_QUESTION[0] if d is None else d), (BUDGET_QUESTION[1] if rho is None else rho)
    rs = rho / 3
    slips = [(math.sqrt(2 * rs / (d - 1)), "that conversion (epsilon^2 / 2) is valid but loose for the "
                                           "exponential mechanism: use the bounded-range one"),
             (math.sqrt(8 * rs), "the selection budget is shared by all the rounds"),
             (math.sqrt(8 * rs / d), "count the rounds: how many edges has a spanning tree on d vertices?"),
             (math.sqrt(8 * rho / (d - 1)), "the selection gets only its share of rho")]
    return dict(truth=_select_truth(d, rho), what="epsilon per round", low=0.0, low_open=True, slips=slips)


# tree_joint with its module's helpers, among them those that order the tree and orient each pair's table.
_JOINT_FORBIDDEN = Forbidden(synthetic.tree_joint)


def _chain_cases(rng=None):
    """The book's three chains (seed 24), or three drawn from the grader's ``rng`` with 2 to 5 values per
    attribute: P(x2) and the two conditionals from flat Dirichlet draws, and in one of the three chains a
    value of x2 with probability 0 (where 0/0 = 0 must be handled)."""
    from ._draws import check_rng

    if check_rng(rng) is None:
        gen, shapes, zero = np.random.default_rng(24), ((2, 3, 2), (3, 2, 4), (2, 2, 2)), 2
    else:
        gen, shapes, zero = rng, [tuple(int(k) for k in rng.integers(2, 6, 3)) for _ in range(3)], int(rng.integers(3))
    cases = []
    for i, shape in enumerate(shapes):
        p2 = gen.dirichlet(np.ones(shape[1]))
        c1 = gen.dirichlet(np.ones(shape[0]), size=shape[1])         # P(x1 | x2)
        c3 = gen.dirichlet(np.ones(shape[2]), size=shape[1])         # P(x3 | x2)
        q12, q23 = (p2[:, None] * c1).T, p2[:, None] * c3
        if i == zero:
            gone = 1 if rng is None else int(gen.integers(shape[1]))
            q12[:, gone], q23[gone, :] = 0.0, 0.0                    # a value of x2 with probability 0
            q12 /= q12.sum()
            q23 = q23 / q23.sum(axis=1, keepdims=True).clip(1e-300) * q12.sum(axis=0)[:, None]
        cases.append((q12, q23))
    return cases


def check_chain_joint(student_fn, *, rng=None) -> CheckResult:
    """Check ``student_fn(q12, q23) -> P`` of shape (k1, k2, k3): the tree model of the chain 1 - 2 - 3 built
    from consistent two-way distributions (``q12.sum(axis=0) == q23.sum(axis=1)``), with 0/0 = 0.

    Compared with :func:`dpcourse.synthetic.tree_joint` to 1e-9 on three chains, one with a value of
    attribute 2 of probability 0 (the book's, or with ``rng`` -- a numpy Generator: the homework grader's --
    chains drawn from it). Recognised slips: the product of the two tables not divided by the shared
    one-way distribution, the independent product of the one-way distributions, a division by zero.
    """
    from ._draws import shown

    for q12, q23 in _chain_cases(rng):
        shape = (q12.shape[0], q12.shape[1], q23.shape[1])
        where = shown(f"on tables of shapes {q12.shape} and {q23.shape}")
        got, err = call_student(student_fn, (q12.copy(), q23.copy()), where, shape=shape,
                                forbidden=_JOINT_FORBIDDEN)
        if err is not None:
            return err
        p = {0: q12.sum(axis=1), 1: q12.sum(axis=0), 2: q23.sum(axis=0)}
        want = synthetic.tree_joint(p, {(0, 1): q12, (1, 2): q23}, [(0, 1), (1, 2)], shape)
        if np.allclose(got, want, atol=1e-9, rtol=0):
            continue
        if not np.isfinite(got).all():
            return CheckResult(False, f"{where}: your table holds NaN or inf: where the shared value has "
                                      "probability 0, the joint probability is 0")
        if np.allclose(got, q12[:, :, None] * q23[None, :, :], atol=1e-9, rtol=0):
            return CheckResult(False, f"{where}: the shared attribute is counted twice: divide by its distribution")
        indep = p[0][:, None, None] * p[1][None, :, None] * p[2][None, None, :]
        if np.allclose(got, indep, atol=1e-9, rtol=0):
            return CheckResult(False, f"{where}: that is the independent model: use the two-way tables")
        return CheckResult(False, f"{where}: not the tree model yet (total probability {float(np.sum(got)):.4g}; "
                                  "check that every two-way marginal of your table equals its input)")
    return CheckResult(True, "your joint agrees with the tree model on every chain tried.")
