"""No checker reveals its answer (issue 21, item 13).

``help(check_x)`` shows a checker's docstring and signature, and a notebook shows its repr and messages: none
of them may hold the answer, as a number or as the formula that gives it. For every checker in
``dpcourse.exercises`` this lists what would give the answer away: the expected value computed with the
checker's own reference where that is cheap, and the formula's usual written forms.
"""

import importlib
import inspect
import math
import pkgutil

import pytest

import dpcourse.exercises as exercises
from dpcourse import counting_queries_sample_size, quantile_rank_error_bound
from dpcourse import gaussian_epsilon
from dpcourse import lower_bounds
from dpcourse.exercises import local_dp, quantiles, scale
from dpcourse.exercises import membership as membership_ex
from dpcourse.exercises import continual as continual_ex
from dpcourse.exercises import inference as inference_ex
from dpcourse.exercises import synthetic as synthetic_ex

_BOUND = counting_queries_sample_size(10, 0.01, 0.05, 1.0)   # the chapter-03 question

#: checker -> (expected numbers, formula fragments). Numbers are searched in several roundings.
ANSWERS = {
    "audit.check_clamped_mean": ([], ["(upper - lower) / n", "(upper - lower)/n", "(u - l) / n"]),
    "continual.check_node_scale": ([], ["bit_length", "floor(log2", "L / epsilon", "levels / epsilon"]),
    "continual.check_tree_variance": ([continual_ex._tree_variance_truth(*continual_ex.TREE_VARIANCE_QUESTION)],
                                      ["popcount", "bin(t)", "sinh"]),
    "composition.check_optimal_delta": ([], ["binom", "C(k, j)", "(1 + e^eps)^k"]),
    "composition_basics.check_plan_epsilon": ([], ["max over parts", "sum of the maxima"]),
    "deidentification.check_posterior_bound": ([], ["odds", "e^epsilon p /", "e^epsilon * p"]),
    "deidentification.check_user_epsilon": ([0.05 * 20 * 30], ["0.05 x 20 x 30", "20 x 30", "20 * 30"]),
    "fdp.check_gdp_epsilon": ([gaussian_epsilon(1e-7, math.sqrt(0.03))], ["sqrt(2 rho)", "sqrt(2 * rho)", "sqrt(0.03)"]),
    "fdp.check_laplace_tradeoff": ([], ["/ (4 alpha)", "/(4 alpha)", "4 * alpha", "(4 * a", "e^-epsilon / 4"]),
    "gaussian.check_analytic_sigma": ([], ["Phi(", "Balle"]),
    "gaussian.check_group_delta": ([], ["e^{(k-1)", "(1 + e^eps", "sum_i e^(i"]),
    "histogram.check_my_dp_histogram": ([], ["2 / epsilon", "2/epsilon", "1 / epsilon", "sensitivity 2",
                                             "sensitivity 1 "]),
    "laplace.check_inverse_cdf_sampler": ([], ["ln(2u", "log(2u", "ln(2 u", "ln(1 - 2", "log(1 - 2", "b ln",
                                               "scale * ln", "sign(u"]),
    "laplace.check_sample_size": ([_BOUND, math.ceil(_BOUND)], ["ln(k/beta)", "ln(k / beta)", "log(k/beta)",
                                                                "k ln", "alpha epsilon)"]),
    "inference.check_mean_halfwidth": ([inference_ex._halfwidth_truth(*inference_ex.HALFWIDTH_QUESTION)],
                                       ["ln(20)", "ln 20", "Laplace(b)"]),
    "inference.check_proportion_interval": ([], ["noise_aware_halfwidth(sqrt", "p (1 - p) / n)"]),
    "synthetic.check_one_way_sigma": ([synthetic_ex._sigma_truth(*synthetic_ex.BUDGET_QUESTION)],
                                      ["sqrt(d / (2", "sqrt(7 / (2", "d / (2 rho"]),
    "synthetic.check_selection_epsilon": ([synthetic_ex._select_truth(*synthetic_ex.BUDGET_QUESTION)],
                                          ["sqrt(8", "8 rho", "/ (d - 1)"]),
    "synthetic.check_chain_joint": ([], ["q12 * q23 /", "q12[:, :, None] * q23", "/ p2"]),
    "learning.check_amplification": ([], ["log(1 + q", "ln(1 + q", "e^epsilon - 1"]),
    "learning.check_max_steps": ([1201], []),  # _max_steps(0.01, 1.0, 2.0, 1e-5): 7 s to compute, so typed
    "learning.check_output_sensitivity": ([2.0 / (5000 * 1e-3)], ["2 / (n", "2/(n", "n lambda)"]),
    "local_dp.check_crossover_domain": ([local_dp._crossover(2.0)], ["e^eps + 2", "3 e^eps", "3e^eps"]),
    "local_dp.check_oue_estimator": ([], ["(ones - n q)", "/ (p - q)", "/(p - q)"]),
    "lower_bounds.check_packing_error": ([lower_bounds.packing_error_bound(21, 0.25, relation="replace_one")],
                                         ["ln(k - 1)", "ln(20)", "ln 20", "floor(ln"]),
    "lower_bounds.check_packing_probability": ([], ["K / (K + e", "k / (k + e", "(k - 1) / (k - 1 +"]),
    "membership.check_lira_online": ([], ["logpdf(phi, mu_in", "log(sd_out / sd_in)", "log(sd_out/sd_in)"]),
    "membership.check_max_audit_epsilon": ([membership_ex._max_audit_epsilon(100, 0.95)],
                                           ["alpha ** (1", "alpha^(1/n)", "(1 - alpha)"]),
    "noise.check_bernoulli_exp": ([], ["von Neumann", "factorial", "1/k"]),
    "noise.check_lattice_scale": ([], ["floor(sensitivity / g) + dim", "floor(sensitivity/spacing)"]),
    "promise.check_hockey_stick": ([], ["max(p - e^eps q", "max(0, p", "sum(max"]),
    "promise.check_mixture_epsilon": ([math.log(12)], ["ln 12", "ln(12)", "ln(n + 2)", "log(n + 2)", "ln(n+2)"]),
    "queries.check_sample_size": ([], ["ln(2k)", "ln(2 k)", "log(2k)", "alpha^2", "2 alpha"]),
    "queries.check_svt_scales": ([], ["2c /", "2 c /", "4c /", "4 c /", "c Delta"]),
    "quantiles.check_interval_probability": ([quantiles._interval_truth()], []),
    "quantiles.check_local_sensitivity": ([], ["max(x_(m)", "x_(m+1) - x_(m)"]),
    "quantiles.check_rank_bound": ([quantile_rank_error_bound(0.5, 0.01, resolution=2**10)],
                                   ["ln((K + 1)", "ln(1025", "ln(102500", "4 ln"]),
    "randomized_response.check_rr_estimator": ([], ["(e^eps + 1)", "2p - 1", "(mean - 1 + p)"]),
    "scale.check_keep_sequence": ([], ["min(e^eps p[n-1] + delta, 1 -", "1 - e^-eps (1 - p[n-1] - delta)"]),
    "scale.check_sum_scale": ([], ["largest absolute value", "m c max", "3 m c"]),
    "scale.check_user_level_epsilon": ([20 * 0.1], ["20 x 0.1", "20 * 0.1"]),
    "selection.check_em_probabilities": ([], ["subtract the max", "u - max(u)", "logsumexp"]),
    "selection.check_pumpkin_epsilon": ([math.log(99) / 20], ["ln(99)", "ln 99", "1/99", "ln(100)", "log(99)"]),
}


def _checkers():
    out = {}
    for info in pkgutil.iter_modules(exercises.__path__):
        if info.name.startswith("_"):     # a private helper module (_draws: the grader's draws), not checkers
            continue
        module = importlib.import_module(f"dpcourse.exercises.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("check_") and fn.__module__ == module.__name__:
                out[f"{info.name}.{name}"] = fn
    return out


CHECKERS = _checkers()


def _number_forms(value):
    """The ways a number is usually written: 3 to 6 significant digits and the repr; short integers are
    skipped (a "30" or a "2" occurs in any text), longer ones kept."""
    forms = {f"{value:.{d}g}" for d in range(3, 7)} | {repr(float(value))}
    if float(value).is_integer():
        forms |= {str(int(value))}
    return {f for f in forms if "." in f or len(f) >= 3}


def test_every_checker_is_listed():
    # a new checker must say what would give its answer away
    assert set(CHECKERS) == set(ANSWERS)


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_help_and_repr_do_not_reveal_the_answer(name):
    fn = CHECKERS[name]
    numbers, formulas = ANSWERS[name]
    text = "\n".join([inspect.getdoc(fn) or "", repr(fn), str(inspect.signature(fn))])
    for value in numbers:
        for form in _number_forms(value):
            assert form not in text, (name, form)
    for formula in formulas:
        assert formula.lower() not in text.lower(), (name, formula)


NUMERIC = {  # checker of one numeric answer -> the answer
    "laplace.check_sample_size": (lambda a: CHECKERS["laplace.check_sample_size"](a, 10, 0.01, 0.05, 1.0),
                                  math.ceil(_BOUND)),
    "promise.check_mixture_epsilon": (lambda a: CHECKERS["promise.check_mixture_epsilon"](a, n=10), math.log(12)),
    "quantiles.check_rank_bound": (CHECKERS["quantiles.check_rank_bound"], ANSWERS["quantiles.check_rank_bound"][0][0]),
    "quantiles.check_interval_probability": (CHECKERS["quantiles.check_interval_probability"],
                                             quantiles._interval_truth()),
    "selection.check_pumpkin_epsilon": (CHECKERS["selection.check_pumpkin_epsilon"], math.log(99) / 20),
    "scale.check_user_level_epsilon": (CHECKERS["scale.check_user_level_epsilon"], 2.0),
    "deidentification.check_user_epsilon": (CHECKERS["deidentification.check_user_epsilon"], 30.0),
    "learning.check_output_sensitivity": (CHECKERS["learning.check_output_sensitivity"], 0.4),
    "local_dp.check_crossover_domain": (CHECKERS["local_dp.check_crossover_domain"], local_dp._crossover(2.0)),
    "lower_bounds.check_packing_error": (CHECKERS["lower_bounds.check_packing_error"], 5.5),
    "fdp.check_gdp_epsilon": (CHECKERS["fdp.check_gdp_epsilon"], gaussian_epsilon(1e-7, math.sqrt(0.03))),
    "inference.check_mean_halfwidth": (CHECKERS["inference.check_mean_halfwidth"],
                                       inference_ex._halfwidth_truth(*inference_ex.HALFWIDTH_QUESTION)),
    "synthetic.check_one_way_sigma": (CHECKERS["synthetic.check_one_way_sigma"],
                                      synthetic_ex._sigma_truth(*synthetic_ex.BUDGET_QUESTION)),
    "synthetic.check_selection_epsilon": (CHECKERS["synthetic.check_selection_epsilon"],
                                          synthetic_ex._select_truth(*synthetic_ex.BUDGET_QUESTION)),
    "continual.check_tree_variance": (CHECKERS["continual.check_tree_variance"],
                                      continual_ex._tree_variance_truth(*continual_ex.TREE_VARIANCE_QUESTION)),
}


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_wrong_answers_get_messages_without_the_answer(name):
    check, truth = NUMERIC[name]
    assert check(truth)  # the listed answer is the checker's own
    for wrong in (truth * 7, truth / 7, truth + 1, truth * 0.97, "x", float("nan")):
        res = check(wrong)
        assert not res
        for form in _number_forms(truth):
            assert form not in res.message and form not in repr(res), (name, wrong, form, res.message)


def test_sum_scale_answer_is_hidden_too():
    # scale.check_sum_scale's answer, computed from the question as the checker states it
    eps, m, c, (lo, hi) = scale.SUM_SCALE_QUESTION
    truth = m * c * max(abs(lo), abs(hi)) / (eps / 3)
    assert scale.check_sum_scale(truth)
    text = inspect.getdoc(scale.check_sum_scale)
    assert not any(form in text for form in _number_forms(truth))
    for wrong in (truth * 7, truth / 3, truth * 3):
        assert not any(form in scale.check_sum_scale(wrong).message for form in _number_forms(truth))

