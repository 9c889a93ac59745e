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
    """One hidden test of a question: ``run(answer, params, rng) -> CheckResult``, worth ``points``.

    ``params`` are the student's numbers (the question's variant, ``{}`` if it has none). ``rng`` is the
    grader's :class:`numpy.random.Generator` (seeded from a teacher secret and fresh entropy): a coding
    question's checker draws its cases from it (sizes, parameters, data, and the seeds of the generators it
    hands to the student's function), so that no table of the book's cases passes; ``rng=None`` runs the
    book's fixed cases, as the chapter's self-check does. Numeric questions ignore it.

    A ``gate`` test guards privacy: if it fails, the whole question scores 0 (a release that is not private
    earns nothing for being accurate).
    """

    name: str
    points: float
    run: Callable[[Any, dict, "np.random.Generator | None"], CheckResult]
    gate: bool = False


@dataclass(frozen=True)
class Question:
    """A gradable question: the ``name`` the student defines (a function or a number) and its hidden tests."""

    label: str
    kind: str                      # "code" (a function) or "number"
    name: str
    tests: tuple[HiddenTest, ...]
    variant: Callable[[np.random.Generator], dict] | None = None
    checker: Callable | None = None        # a coding question's in-book checker (its module holds the Forbidden sets)
    expected: Callable[[dict], Any] | None = None   # a numeric question's answer for given numbers (teacher tools)

    @property
    def points(self) -> float:
        return float(sum(t.points for t in self.tests))


def _code(label, name, checker, *extra, points=3.0) -> Question:
    """A coding question graded by its in-book checker (a gate: it tests privacy) and any extra hidden tests.

    The checker is called as ``checker(fn, rng=rng)`` with the grader's generator (its cases drawn from it),
    and as ``checker(fn)`` (the book's cases) when ``rng`` is None.
    """
    def run(fn, _params, rng=None):
        return checker(fn) if rng is None else checker(fn, rng=rng)

    return Question(label, "code", name, (HiddenTest("the chapter's tests of this function", points, run,
                                                     gate=True),) + extra, checker=checker)


def _number(label, name, run, variant=None, points=2.0, expected=None) -> Question:
    """A numeric question: ``run(answer, params)`` judges the answer for the student's numbers ``params``.

    The hidden test takes the grader's ``rng`` like every other and ignores it: the numbers come from the variant.
    """
    def judge(answer, params, rng=None):
        return run(answer, params)

    return Question(label, "number", name, (HiddenTest("your value for your numbers" if variant else "your value",
                                                       points, judge),), variant, expected=expected)


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

def refuses_bad_epsilon(make_args) -> Callable[[Any, dict, Any], CheckResult]:
    """A hidden test: ``fn(*make_args(epsilon, rng))`` must raise ValueError or TypeError for epsilon 0, -1, NaN, inf.

    Fail closed on a bad public parameter (the course's rule): a release at epsilon <= 0 or NaN has no
    guarantee, and returning numbers for it would hide the caller's mistake. ``make_args`` draws the other
    arguments from the grader's ``rng`` (fixed ones when it is None).
    """
    def run(fn, _params, rng=None):
        if not callable(fn):
            return CheckResult(False, "pass the function itself (its name, without parentheses)")
        for eps in (0.0, -1.0, float("nan"), float("inf")):
            try:
                with np.errstate(all="ignore"):
                    fn(*make_args(eps, rng))
            except (ValueError, TypeError):
                continue
            except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
                return CheckResult(False, f"with epsilon={eps} your function raised {type(exc).__name__}; a bad "
                                          "public parameter should raise ValueError")
            return CheckResult(False, f"with epsilon={eps} your function returned a release; refuse an epsilon "
                                      "that is not a positive finite number with ValueError")
        return CheckResult(True, "epsilon = 0, -1, NaN and inf are refused.")
    return run


def _histogram_args(epsilon, rng=None):
    """Arguments of ``my_dp_histogram`` around a bad epsilon: fixed, or a small histogram drawn from ``rng``."""
    if rng is None:
        return (np.array([1, 1, 2, 3, 7, 7, 7]), np.array([3, 1, 2, 7]), epsilon, "replace_one",
                np.random.default_rng(5))
    categories = rng.choice(1000, size=int(rng.integers(3, 9)), replace=False)
    data = rng.choice(categories, size=int(rng.integers(5, 30)))
    return (data, categories, epsilon, str(rng.choice(["add_remove", "replace_one"])),
            np.random.default_rng(int(rng.integers(2**63))))


# ---------------------------------------------------------------------------------------------------------
# Numeric questions with per-student numbers.

# hw01, hw03, hw05 (ex-hist-argmax) and hw06 (ex-sel-pumpkin): pools built as hw13-hw24's are (``_numeric``,
# ``_answer_pool`` below): the book's numbers left out, and every variant whose answer lies within two tolerances
# of the book's answer or of a slip (a whole-number answer: equal to it); one variant per answer, so a classmate's
# answer or the book's printed one never passes (tests/test_homework_questions_01_12.py checks every pool
# member). The candidates (the book's numbers in brackets):
# ex-promise-mixture: class size n and the probability of publishing the true count (n = 10, 1/2).
def _mixture_candidates():
    return [{"n": n, "truth_probability": round(0.3 + 0.025 * i, 3)} for n in range(5, 81) for i in range(17)]


# ex-laplace-sample-size: k queries, accuracy alpha, failure probability beta, epsilon (10, 0.01, 0.05, 1).
def _sample_size_candidates():
    return [{"k": k, "alpha": a, "beta": b, "epsilon": e} for k in range(5, 31) for a in (0.005, 0.01, 0.02, 0.05)
            for b in (0.01, 0.02, 0.05, 0.1) for e in (0.25, 0.5, 1.0, 2.0)]


# ex-hist-argmax: k grades, epsilon, and the failure probability beta (6, 1, 0.05).
def _argmax_candidates():
    return [{"k": k, "epsilon": e, "beta": b} for k in range(3, 41)
            for e in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0) for b in (0.01, 0.02, 0.05, 0.1)]


def _argmax_question(k, epsilon, beta) -> dict:
    """check_number's arguments for the gap 2 s with s = b ln(k/beta), b = 2/epsilon (replace-one, sensitivity 2)."""
    s = laplace_max_error_bound(k, 2.0 / epsilon, beta)
    slips = [(s, "a gap larger than the largest error is not enough: both counts may err, in opposite directions"),
             (2 * laplace_max_error_bound(k, 1.0 / epsilon, beta), "under replace-one the histogram's sensitivity "
                                                                   "is not that of add/remove"),
             (2 * 2.0 / epsilon * math.log(1 / beta), "the error bound must hold for all k counts at once")]
    return dict(truth=2 * s, what="the gap", low=0.0, low_open=True, slips=slips)


def _check_argmax_gap(answer, k, epsilon, beta):
    return check_number(answer, **_argmax_question(k, epsilon, beta))


# ex-sel-pumpkin: bids of $1 and of $2, and the probability of picking $1 (90, 10, 0.99); only numbers whose
# answer typed to three significant digits is accepted (within 0.15 %, the checker: 0.2 %).
def _pumpkin_candidates():
    return [{"bids_of_1": b1, "bids_of_2": b2, "probability": pr} for b1 in range(50, 151) for b2 in range(5, 46)
            for pr in (0.9, 0.95, 0.98, 0.99)]


def _typed_to_three_digits(truth):
    return abs(float(f"{truth:.3g}") / truth - 1) < 1.5e-3


# ---------------------------------------------------------------------------------------------------------
# hw13-hw24: a numeric question is the chapter's checker called with the student's numbers (``numbers(p)``: the
# checker's keyword arguments from the variant, whose keys are the names the exercise's text uses). The variant
# is drawn uniformly from a pool built once, on first use, from candidate numbers: the book's own numbers are
# left out, and so is every candidate whose answer lies within two of the checker's tolerances of the book's
# answer or of a slip the checker names; then one candidate per answer (in the order of the answers, a candidate is kept if its
# answer is more than 1.5 tolerances from the last one kept). No variant accepts another's answer, so two
# students share an answer with probability 1 / len(pool), and every pool holds more than 200
# (tests/test_homework_questions_13_24.py checks every member).

def _answer_pool(candidates, question, book, keep=None) -> tuple:
    """The variants of a numeric question, sorted by answer: see the comment above."""
    from ..exercises import DEFAULT_REL_TOL

    book_q = question(book)
    tol, integer = book_q.get("rel_tol", DEFAULT_REL_TOL), book_q.get("integer", False)

    def apart(a, b, gap):
        return a != b if integer else abs(a - b) > gap * tol * max(abs(a), abs(b))

    rows = []
    for c in candidates:
        q = question(c)
        if c != book and apart(q["truth"], book_q["truth"], 2.0) and (keep is None or keep(q["truth"])) and \
                all(apart(q["truth"], slip[0], 2.0) for slip in q["slips"]):
            rows.append((q["truth"], c))
    rows.sort(key=lambda row: row[0])
    kept, last = [], None
    for truth, c in rows:
        if last is None or apart(truth, last, 1.5):
            kept.append(c)
            last = truth
    return tuple(kept)


def _numeric(label, name, checker, question, numbers, candidates, book, keep=None) -> Question:
    """A numeric question of hw13-hw24 (see the comment above). ``question(**numbers(p))`` is the checker's
    ``check_number`` arguments (its truth and slips) for the numbers ``p``; the variant function carries its
    pool (``.pool()``), the book's numbers (``.book``) and the checker's arguments for given numbers
    (``.question(p)``), for the tests."""
    import functools

    pool = functools.lru_cache(maxsize=None)(
        lambda: _answer_pool(candidates(), lambda p: question(**numbers(p)), book, keep))

    def run(answer, p):
        return checker(answer, **numbers(p))

    def variant(rng):
        return dict(_pick(rng, pool()))

    def expected(p):
        q = question(**numbers(p))
        return int(q["truth"]) if q.get("integer") else float(q["truth"])

    variant.pool, variant.book, variant.question = pool, book, lambda p: question(**numbers(p))  # type: ignore[attr-defined]
    return _number(label, name, run, variant, expected=expected)


def _interval_numbers(p):
    return dict(x=[float(p["x1"]), float(p["x2"]), float(p["x3"])], lower=float(p["lower"]),
                upper=float(p["upper"]), resolution=int(p["upper"] - p["lower"]), epsilon=p["epsilon"])


def _interval_candidates():
    """Three whole values strictly inside [0, upper], the grid 0, 1, ..., upper (6 to 10 steps), epsilon 0.5 to 3."""
    import itertools

    return [{"x1": a, "x2": b, "x3": c, "lower": 0, "upper": upper, "epsilon": eps} for upper in range(6, 11)
            for a, b, c in itertools.combinations(range(1, upper), 3) for eps in (0.5, 1.0, 1.5, 2.0, 2.5, 3.0)]


def _rank_candidates():
    return [{"K": 2 ** j, "epsilon": eps, "beta": beta} for j in range(6, 17)
            for eps in (0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 0.8, 1.0, 1.25, 1.5, 2.0)
            for beta in (0.001, 0.005, 0.01, 0.02, 0.05, 0.1)]


def _sensitivity_candidates():
    return [{"n": n, "lambda": lam} for n in range(500, 20_001, 250)
            for lam in (1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2)]


def _crossover_candidates():
    return [{"epsilon": round(0.5 + 0.01 * i, 2)} for i in range(451)]     # 0.5 to 5, one per answer d


def _sum_scale_candidates():
    """Delays clamped to [lower, upper] minutes with |lower| < upper, as in the book."""
    return [{"epsilon": eps, "m": m, "c": c, "lower": lo, "upper": hi}
            for eps in (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0) for m in range(2, 7) for c in range(2, 6)
            for lo in (-10, -15, -20, -30, -45, -60, -90) for hi in range(100, 501, 20)]


def _user_level_candidates():
    return [{"epsilon": eps, "max_events": k}
            for eps in (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.5)
            for k in range(2, 101) if k * eps <= 10]


def _unit_candidates():
    return [{"epsilon": eps, "events_per_day": k, "days": days}
            for eps in (0.01, 0.02, 0.025, 0.03, 0.04, 0.05, 0.1) for k in range(2, 51)
            for days in (7, 14, 28, 30, 31, 60, 90) if eps * k * days <= 100]


def _tree_candidates():
    """Horizons of 20 to 2,000 steps, a step t in the second half of each, one t per number of 1 bits."""
    out = []
    for horizon in (20, 24, 30, 40, 50, 60, 64, 90, 100, 120, 128, 180, 200, 250, 256, 300, 365, 500, 512, 600,
                    720, 1000, 1024, 1500, 2000):
        steps = {}
        for t in range(horizon, (horizon + 1) // 2 - 1, -1):
            steps.setdefault(bin(t).count("1"), t)
        out += [{"T": horizon, "t": t, "epsilon": eps} for t in steps.values()
                for eps in (0.5, 0.6, 0.75, 0.8, 1.0, 1.2, 1.25, 1.5, 1.6, 2.0, 2.5, 3.0, 4.0, 5.0)]
    return out


def _packing_candidates():
    """For each m, the k = ceil(e^(epsilon m)) for which the two relations' m differ (the slip shows), with the
    epsilon whose k is nearest to 1,000 first (the one kept for that answer), k from 5 to 10^6."""
    out = []
    for m in range(2, 300):
        ranked = []
        for eps in (0.02, 0.025, 0.03, 0.04, 0.05, 0.06, 0.075, 0.08, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5,
                    0.75, 1.0):
            k = math.ceil(math.exp(eps * m))
            if 5 <= k <= 10**6 and k != math.exp(eps * m):
                ranked.append((abs(math.log(k / 1000)), {"k": k, "epsilon": eps}))
        out += [c for _, c in sorted(ranked, key=lambda r: r[0])]
    return out


def _gdp_candidates():
    return [{"rho": float(f"{rho:.2g}"), "delta": delta} for rho in np.geomspace(0.003, 1.0, 50)
            for delta in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9)]


def _audit_candidates():
    return [{"r": r, "confidence": conf} for r in range(10, 1001) for conf in (0.9, 0.95, 0.99)]


def _halfwidth_candidates():
    """n from 30 to 1,200, epsilon 0.1 to 1, bounds width and variance from three pairs in turn."""
    pairs = ((4000.0, 360000.0), (5000.0, 490000.0), (6000.0, 640000.0))
    return [{"n": n, "epsilon": eps, "width": pairs[(n // 10 + i) % 3][0], "variance": pairs[(n // 10 + i) % 3][1]}
            for n in range(30, 1201, 10) for i, eps in enumerate((0.1, 0.2, 0.3, 0.5, 0.75, 1.0))]


def _mst_candidates():
    return [{"d": d, "rho": rho} for d in range(3, 41)
            for rho in (0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 0.8, 1.0, 1.2, 1.5, 2.0)]


def _same(p):
    return dict(p)


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
    "hw01": (_numeric("ex-promise-mixture", "my_epsilon", ex_promise.check_mixture_epsilon,
                      ex_promise._mixture_question, _same, _mixture_candidates, {"n": 10, "truth_probability": 0.5}),
             _code("ex-promise-hockey", "my_hockey_stick", ex_promise.check_hockey_stick)),
    "hw02": (_code("ex-rr-estimator", "my_rr_estimate", ex_rr.check_rr_estimator),),
    "hw03": (_code("ex-laplace-inverse-cdf", "my_inverse_cdf", ex_laplace.check_inverse_cdf_sampler),
             _numeric("ex-laplace-sample-size", "my_n", ex_laplace.check_sample_size, ex_laplace._sample_size_question,
                      _same, _sample_size_candidates, {"k": 10, "alpha": 0.01, "beta": 0.05, "epsilon": 1.0})),
    "hw04": (_code("ex-cb-plan", "my_plan_epsilon", ex_composition_basics.check_plan_epsilon),),
    "hw05": (_code("ex-hist-implement", "my_dp_histogram", ex_histogram.check_my_dp_histogram,
                   HiddenTest("a bad epsilon is refused", 1.0, refuses_bad_epsilon(_histogram_args))),
             _numeric("ex-hist-argmax", "my_gap", _check_argmax_gap, _argmax_question, _same, _argmax_candidates,
                      {"k": 6, "epsilon": 1.0, "beta": 0.05})),
    "hw06": (_code("ex-sel-em-code", "my_em_probabilities", ex_selection.check_em_probabilities),
             _numeric("ex-sel-pumpkin", "my_epsilon", ex_selection.check_pumpkin_epsilon,
                      ex_selection._pumpkin_question, _same, _pumpkin_candidates,
                      {"bids_of_1": 90, "bids_of_2": 10, "probability": 0.99}, keep=_typed_to_three_digits)),
    "hw07": (_code("ex-approx-group-code", "my_group_delta", ex_gaussian.check_group_delta),),
    "hw08": (_code("ex-gaussian-analytic-code", "my_analytic_sigma", ex_gaussian.check_analytic_sigma),),
    "hw09": (_code("ex-comp-optimal-delta", "my_optimal_delta", ex_composition.check_optimal_delta),),
    "hw10": (_code("ex-audit-fix-mean", "my_dp_mean", ex_audit.check_clamped_mean),),
    "hw11": (_code("ex-noise-bernoulli", "my_bernoulli_exp", ex_noise.check_bernoulli_exp),
             _code("ex-noise-lattice-scale", "my_lattice_scale", ex_noise.check_lattice_scale)),
    "hw12": (_code("ex-many-svt-scales", "my_svt_scales", ex_queries.check_svt_scales),),
    "hw13": (_code("ex-release-sample-size", "my_sample_size", ex_queries.check_sample_size),),
    "hw14": (_numeric("ex-quant-interval", "my_probability", ex_quantiles.check_interval_probability,
                      ex_quantiles._interval_question, _interval_numbers, _interval_candidates,
                      {"x1": 2, "x2": 5, "x3": 6, "lower": 0, "upper": 8, "epsilon": 2.0},
                      keep=lambda truth: 0.05 <= truth <= 0.95),
             _code("ex-quant-ls", "my_local_sensitivity", ex_quantiles.check_local_sensitivity),
             _numeric("ex-quant-rank", "my_t", ex_quantiles.check_rank_bound, ex_quantiles._rank_question,
                      lambda p: dict(epsilon=p["epsilon"], beta=p["beta"], resolution=p["K"]), _rank_candidates,
                      {"K": 1024, "epsilon": 0.5, "beta": 0.01})),
    "hw15": (_numeric("learn-ex-sensitivity", "my_sensitivity", ex_learning.check_output_sensitivity,
                      ex_learning._output_sensitivity_question,
                      lambda p: dict(n=p["n"], regularization=p["lambda"]), _sensitivity_candidates,
                      {"n": 5000, "lambda": 1e-3}),
             _code("learn-ex-amplification", "my_amplification", ex_learning.check_amplification)),
    "hw16": (_numeric("ex-ldp-crossover", "my_d", ex_local_dp.check_crossover_domain, ex_local_dp._crossover_question,
                      _same, _crossover_candidates, {"epsilon": 2.0}),
             _code("ex-ldp-oue-estimator", "my_oue_estimate", ex_local_dp.check_oue_estimator)),
    "hw17": (_numeric("scale-ex-sum-scale", "my_scale", ex_scale.check_sum_scale, ex_scale._sum_scale_question,
                      _same, _sum_scale_candidates, {"epsilon": 1.0, "m": 4, "c": 2, "lower": -60, "upper": 240}),
             _numeric("scale-ex-user-level", "my_epsilon", ex_scale.check_user_level_epsilon,
                      ex_scale._user_level_question, _same, _user_level_candidates,
                      {"epsilon": 0.1, "max_events": 20}),
             _code("scale-ex-keep-sequence", "my_keep", ex_scale.check_keep_sequence)),
    "hw18": (_code("world-ex-posterior", "my_posterior_bound", ex_deid.check_posterior_bound),
             _numeric("world-ex-unit", "my_epsilon", ex_deid.check_user_epsilon, ex_deid._user_epsilon_question,
                      _same, _unit_candidates, {"epsilon": 0.05, "events_per_day": 20, "days": 30})),
    "hw19": (_numeric("cr-ex-tree-variance", "my_variance", ex_continual.check_tree_variance,
                      ex_continual._tree_variance_question,
                      lambda p: dict(horizon=p["T"], t=p["t"], epsilon=p["epsilon"]), _tree_candidates,
                      {"T": 1000, "t": 1000, "epsilon": 1.0}),
             _code("cr-ex-node-scale", "my_node_scale", ex_continual.check_node_scale)),
    "hw20": (_numeric("lb-ex-packing-error", "my_error", ex_lower_bounds.check_packing_error,
                      ex_lower_bounds._packing_error_question,
                      lambda p: dict(k=p["k"], epsilon=p["epsilon"], relation="replace_one"), _packing_candidates,
                      {"k": 21, "epsilon": 0.25}),
             _code("lb-ex-packing-code", "my_packing_probability", ex_lower_bounds.check_packing_probability)),
    "hw21": (_numeric("fdp-ex-wikimedia", "my_epsilon", ex_fdp.check_gdp_epsilon, ex_fdp._gdp_question, _same,
                      _gdp_candidates, {"rho": 0.015, "delta": 1e-7}),
             _code("fdp-ex-laplace-code", "my_laplace_tradeoff", ex_fdp.check_laplace_tradeoff)),
    "hw22": (_numeric("mia-ex-max-audit", "my_epsilon", ex_membership.check_max_audit_epsilon,
                      ex_membership._audit_question, lambda p: dict(n_bound=p["r"], confidence=p["confidence"]),
                      _audit_candidates, {"r": 100, "confidence": 0.95}),
             _code("mia-ex-lira-online", "my_lira_online", ex_membership.check_lira_online)),
    "hw23": (_numeric("inf-ex-halfwidth", "my_halfwidth", ex_inference.check_mean_halfwidth,
                      ex_inference._halfwidth_question, _same, _halfwidth_candidates,
                      {"n": 400, "epsilon": 0.5, "width": 5000.0, "variance": 640000.0}),
             _code("inf-ex-proportion", "my_proportion_interval", ex_inference.check_proportion_interval)),
    "hw24": (_numeric("syn-ex-sigma", "my_sigma", ex_synthetic.check_one_way_sigma, ex_synthetic._sigma_question,
                      _same, _mst_candidates, {"d": 7, "rho": 0.3}),
             _numeric("syn-ex-selection", "my_epsilon", ex_synthetic.check_selection_epsilon,
                      ex_synthetic._selection_question, _same, _mst_candidates, {"d": 7, "rho": 0.3}),
             _code("syn-ex-chain", "my_chain_joint", ex_synthetic.check_chain_joint)),
}


def questions(assignment: str) -> tuple[Question, ...]:
    """The gradable questions of ``assignment`` (``"hw01"`` ... ``"hw24"``), in the chapter's order."""
    if assignment not in _QUESTIONS:
        raise ValueError(f"assignment must be one of {sorted(_QUESTIONS)}, got {assignment!r}")
    return _QUESTIONS[assignment]
