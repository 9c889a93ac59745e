"""The gradable questions of each assignment: variants and hidden tests, defined once.

A question is keyed by the label of its ``{exercise}`` block in the chapter. Exercises that are not listed
here (proofs, explanations) appear in the student copy with a written-answer cell for the teacher to grade.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..exercises import CheckResult, check_number
from ..exercises import audit as ex_audit
from ..exercises import composition as ex_composition
from ..exercises import composition_basics as ex_composition_basics
from ..exercises import continual as ex_continual
from ..exercises import deidentification as ex_deid
from ..exercises import fdp as ex_fdp
from ..exercises import gaussian as ex_gaussian
from ..exercises import histogram as ex_histogram
from ..exercises import inference as ex_inference
from ..exercises import synthetic as ex_synthetic
from ..exercises import laplace as ex_laplace
from ..exercises import learning as ex_learning
from ..exercises import local_dp as ex_local_dp
from ..exercises import lower_bounds as ex_lower_bounds
from ..exercises import membership as ex_membership
from ..exercises import noise as ex_noise
from ..exercises import promise as ex_promise
from ..exercises import quantiles as ex_quantiles
from ..exercises import queries as ex_queries
from ..exercises import randomized_response as ex_rr
from ..exercises import scale as ex_scale
from ..exercises import selection as ex_selection
from ..laplace import laplace_max_error_bound

__all__ = ["ASSIGNMENTS", "HiddenTest", "Question", "questions"]


@dataclass(frozen=True)
class HiddenTest:
    """One hidden test of a question: ``run(answer, params) -> CheckResult``, worth ``points``.

    A ``gate`` test guards privacy: if it fails, the whole question scores 0 (a release that is not private
    earns nothing for being accurate).
    """

    name: str
    points: float
    run: Callable[[Any, dict], CheckResult]
    gate: bool = False


@dataclass(frozen=True)
class Question:
    """A gradable question: the ``name`` the student defines (a function or a number) and its hidden tests."""

    label: str
    kind: str                      # "code" (a function) or "number"
    name: str
    tests: tuple[HiddenTest, ...]
    variant: Callable[[np.random.Generator], dict] | None = None

    @property
    def points(self) -> float:
        return float(sum(t.points for t in self.tests))


def _code(label, name, checker, *extra, points=3.0) -> Question:
    """A coding question graded by its in-book checker (a gate: it tests privacy) and any extra hidden tests."""
    return Question(label, "code", name, (HiddenTest("the chapter's tests of this function", points,
                                                     lambda fn, _p: checker(fn), gate=True),) + extra)


def _number(label, name, run, variant=None, points=2.0) -> Question:
    return Question(label, "number", name, (HiddenTest("your value for your numbers" if variant else "your value",
                                                       points, run),), variant)


@contextlib.contextmanager
def _exercise_numbers(module, attribute, value):
    """Give an in-book checker that reads a module constant (the book's numbers) this student's numbers."""
    saved = getattr(module, attribute)
    setattr(module, attribute, value)
    try:
        yield
    finally:
        setattr(module, attribute, saved)


def _pick(rng, values):
    return values[int(rng.integers(len(values)))]


# ---------------------------------------------------------------------------------------------------------
# Hidden tests beyond the in-book checkers. (The checkers already test privacy: the noise scale for each
# neighbouring relation, and for a release the secure sampler drawn from rng; they are reused, not repeated.)

def refuses_bad_epsilon(make_args) -> Callable[[Any, dict], CheckResult]:
    """A hidden test: ``fn(*make_args(epsilon))`` must raise ValueError or TypeError for epsilon 0, -1, NaN, inf.

    Fail closed on a bad public parameter (the course's rule): a release at epsilon <= 0 or NaN has no
    guarantee, and returning numbers for it would hide the caller's mistake.
    """
    def run(fn, _params):
        if not callable(fn):
            return CheckResult(False, "pass the function itself (its name, without parentheses)")
        for eps in (0.0, -1.0, float("nan"), float("inf")):
            try:
                with np.errstate(all="ignore"):
                    fn(*make_args(eps))
            except (ValueError, TypeError):
                continue
            except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
                return CheckResult(False, f"with epsilon={eps} your function raised {type(exc).__name__}; a bad "
                                          "public parameter should raise ValueError")
            return CheckResult(False, f"with epsilon={eps} your function returned a release; refuse an epsilon "
                                      "that is not a positive finite number with ValueError")
        return CheckResult(True, "epsilon = 0, -1, NaN and inf are refused.")
    return run


def _histogram_args(epsilon):
    return (np.array([1, 1, 2, 3, 7, 7, 7]), np.array([3, 1, 2, 7]), epsilon, "replace_one",
            np.random.default_rng(5))


# ---------------------------------------------------------------------------------------------------------
# Numeric questions with per-student numbers.

def _mixture_variant(rng):
    return {"n": int(rng.integers(8, 61))}


def _sample_size_variant(rng):
    return {"k": int(rng.integers(5, 31)), "alpha": _pick(rng, (0.01, 0.02, 0.05)),
            "beta": _pick(rng, (0.01, 0.05, 0.1)), "epsilon": _pick(rng, (0.5, 1.0, 2.0))}


def _argmax_variant(rng):
    return {"k": int(rng.integers(4, 13)), "epsilon": _pick(rng, (0.5, 1.0, 2.0)), "beta": 0.05}


def _check_argmax_gap(answer, p):
    """The gap 2 s with s = b ln(k/beta), b = 2/epsilon (replace-one histogram, sensitivity 2)."""
    k, eps, beta = p["k"], p["epsilon"], p["beta"]
    s = laplace_max_error_bound(k, 2.0 / eps, beta)
    slips = [(s, "a gap larger than the largest error is not enough: both counts may err, in opposite directions"),
             (2 * laplace_max_error_bound(k, 1.0 / eps, beta), "under replace-one the histogram's sensitivity "
                                                               "is not that of add/remove"),
             (2 * 2.0 / eps * math.log(1 / beta), "the error bound must hold for all k counts at once")]
    return check_number(answer, 2 * s, what="the gap", low=0.0, low_open=True, slips=slips)


def _interval_variant(rng):
    return {"epsilon": _pick(rng, (0.5, 1.0, 1.5, 2.0, 3.0))}


def _check_interval(answer, p):
    numbers = dict(ex_quantiles.INTERVAL_EXERCISE, epsilon=p["epsilon"])
    with _exercise_numbers(ex_quantiles, "INTERVAL_EXERCISE", numbers):
        return ex_quantiles.check_interval_probability(answer)


def _rank_variant(rng):
    return {"epsilon": _pick(rng, (0.25, 0.5, 1.0, 2.0)), "beta": _pick(rng, (0.01, 0.05)),
            "K": 2 ** int(rng.integers(8, 13))}


def _check_rank(answer, p):
    with _exercise_numbers(ex_quantiles, "RANK_EXERCISE", (p["epsilon"], p["beta"], p["K"])):
        return ex_quantiles.check_rank_bound(answer)


def _output_sensitivity_variant(rng):
    return {"n": int(_pick(rng, (1000, 2000, 4000, 5000, 8000, 10000))),
            "regularization": _pick(rng, (1e-3, 2e-3, 5e-3, 1e-2))}


def _audit_runs_variant(rng):
    return {"n_bound": _pick(rng, (50, 100, 200, 500))}


def _tree_variance_variant(rng):
    horizon = int(_pick(rng, (500, 1000, 2000, 3000, 5000)))
    return {"horizon": horizon, "t": int(rng.integers(horizon // 2, horizon + 1)),
            "epsilon": _pick(rng, (0.5, 1.0, 2.0))}


def _crossover_variant(rng):
    return {"epsilon": _pick(rng, (1.0, 1.5, 2.0, 2.5, 3.0))}


ASSIGNMENTS = {
    "hw01": "01_promise", "hw02": "02_randomized_response", "hw03": "03_laplace",
    "hw04": "04_composition_basics", "hw05": "05_histograms", "hw06": "06_selection",
    "hw07": "07_approximate_dp", "hw08": "08_gaussian", "hw09": "09_composition", "hw10": "10_testing",
    "hw11": "11_noise_on_a_computer", "hw12": "12_many_queries", "hw13": "13_query_release",
    "hw14": "14_quantiles", "hw15": "15_private_learning", "hw16": "16_local_dp", "hw17": "17_dp_at_scale",
    "hw18": "18_dp_in_the_world",
    "hw19": "19_continual_release",
    "hw20": "20_lower_bounds",
    "hw21": "21_hypothesis_testing",
    "hw22": "22_membership_inference",
    "hw23": "23_private_inference",
    "hw24": "24_synthetic_data",
}

_QUESTIONS = {
    "hw01": (_number("ex-promise-mixture", "my_epsilon",
                     lambda a, p: ex_promise.check_mixture_epsilon(a, p["n"]), _mixture_variant),
             _code("ex-promise-hockey", "my_hockey_stick", ex_promise.check_hockey_stick)),
    "hw02": (_code("ex-rr-estimator", "my_rr_estimate", ex_rr.check_rr_estimator),),
    "hw03": (_code("ex-laplace-inverse-cdf", "my_inverse_cdf", ex_laplace.check_inverse_cdf_sampler),
             _number("ex-laplace-sample-size", "my_n", lambda a, p: ex_laplace.check_sample_size(a, **p),
                     _sample_size_variant)),
    "hw04": (_code("ex-cb-plan", "my_plan_epsilon", ex_composition_basics.check_plan_epsilon),),
    "hw05": (_code("ex-hist-implement", "my_dp_histogram", ex_histogram.check_my_dp_histogram,
                   HiddenTest("a bad epsilon is refused", 1.0, refuses_bad_epsilon(_histogram_args))),
             _number("ex-hist-argmax", "my_gap", _check_argmax_gap, _argmax_variant)),
    "hw06": (_code("ex-sel-em-code", "my_em_probabilities", ex_selection.check_em_probabilities),
             _number("ex-sel-pumpkin", "my_epsilon", lambda a, p: ex_selection.check_pumpkin_epsilon(a))),
    "hw07": (_code("ex-approx-group-code", "my_group_delta", ex_gaussian.check_group_delta),),
    "hw08": (_code("ex-gaussian-analytic-code", "my_analytic_sigma", ex_gaussian.check_analytic_sigma),),
    "hw09": (_code("ex-comp-optimal-delta", "my_optimal_delta", ex_composition.check_optimal_delta),),
    "hw10": (_code("ex-audit-fix-mean", "my_dp_mean", ex_audit.check_clamped_mean),),
    "hw11": (_code("ex-noise-bernoulli", "my_bernoulli_exp", ex_noise.check_bernoulli_exp),
             _code("ex-noise-lattice-scale", "my_lattice_scale", ex_noise.check_lattice_scale)),
    "hw12": (_code("ex-many-svt-scales", "my_svt_scales", ex_queries.check_svt_scales),),
    "hw13": (_code("ex-release-sample-size", "my_sample_size", ex_queries.check_sample_size),),
    "hw14": (_number("ex-quant-interval", "my_probability", _check_interval, _interval_variant),
             _code("ex-quant-ls", "my_local_sensitivity", ex_quantiles.check_local_sensitivity),
             _number("ex-quant-rank", "my_t", _check_rank, _rank_variant)),
    "hw15": (_number("learn-ex-sensitivity", "my_sensitivity",
                     lambda a, p: ex_learning.check_output_sensitivity(a, **p), _output_sensitivity_variant),
             _code("learn-ex-amplification", "my_amplification", ex_learning.check_amplification)),
    "hw16": (_number("ex-ldp-crossover", "my_d", lambda a, p: ex_local_dp.check_crossover_domain(a, **p),
                     _crossover_variant),
             _code("ex-ldp-oue-estimator", "my_oue_estimate", ex_local_dp.check_oue_estimator)),
    "hw17": (_number("scale-ex-sum-scale", "my_scale", lambda a, p: ex_scale.check_sum_scale(a)),
             _number("scale-ex-user-level", "my_epsilon", lambda a, p: ex_scale.check_user_level_epsilon(a)),
             _code("scale-ex-keep-sequence", "my_keep", ex_scale.check_keep_sequence)),
    "hw18": (_code("world-ex-posterior", "my_posterior_bound", ex_deid.check_posterior_bound),
             _number("world-ex-unit", "my_epsilon", lambda a, p: ex_deid.check_user_epsilon(a))),
    "hw19": (_number("cr-ex-tree-variance", "my_variance", lambda a, p: ex_continual.check_tree_variance(a, **p),
                     _tree_variance_variant),
             _code("cr-ex-node-scale", "my_node_scale", ex_continual.check_node_scale)),
    "hw20": (_number("lb-ex-packing-error", "my_error", lambda a, p: ex_lower_bounds.check_packing_error(a)),
             _code("lb-ex-packing-code", "my_packing_probability", ex_lower_bounds.check_packing_probability)),
    "hw21": (_number("fdp-ex-wikimedia", "my_epsilon", lambda a, p: ex_fdp.check_gdp_epsilon(a)),
             _code("fdp-ex-laplace-code", "my_laplace_tradeoff", ex_fdp.check_laplace_tradeoff)),
    "hw22": (_number("mia-ex-max-audit", "my_epsilon", lambda a, p: ex_membership.check_max_audit_epsilon(a, **p),
                     _audit_runs_variant),
             _code("mia-ex-lira-online", "my_lira_online", ex_membership.check_lira_online)),
    "hw23": (_number("inf-ex-halfwidth", "my_halfwidth", lambda a, p: ex_inference.check_mean_halfwidth(a)),
             _code("inf-ex-proportion", "my_proportion_interval", ex_inference.check_proportion_interval)),
    "hw24": (_number("syn-ex-sigma", "my_sigma", lambda a, p: ex_synthetic.check_one_way_sigma(a)),
             _number("syn-ex-selection", "my_epsilon", lambda a, p: ex_synthetic.check_selection_epsilon(a)),
             _code("syn-ex-chain", "my_chain_joint", ex_synthetic.check_chain_joint)),
}


def questions(assignment: str) -> tuple[Question, ...]:
    """The gradable questions of ``assignment`` (``"hw01"`` ... ``"hw24"``), in the chapter's order."""
    if assignment not in _QUESTIONS:
        raise ValueError(f"assignment must be one of {sorted(_QUESTIONS)}, got {assignment!r}")
    return _QUESTIONS[assignment]
