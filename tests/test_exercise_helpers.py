"""The shared rules of the exercise checkers (dpcourse.exercises): validity first, stated precision,
no direction hints to bisect on, forbidden library functions detected."""

import math

import numpy as np
import pytest

import dpcourse
from dpcourse import selection
from dpcourse.exercises import DEFAULT_REL_TOL, call_student, check_number

TRUTH = math.log(12)


@pytest.mark.parametrize("answer, word", [("2.4849", "string"), (b"2", "string"), (True, "bool"), (None, "NoneType"),
                                          ([2.48], "list"), (float("nan"), "finite"), (float("inf"), "finite"),
                                          (-1.0, "must lie in"), (0.0, "must lie in")])
def test_invalid_answers_are_refused_before_any_feedback(answer, word):
    res = check_number(answer, TRUTH, what="epsilon", low=0.0, low_open=True,
                       slips=[(-1.0, "slip hint"), (0.0, "slip hint")])
    assert not res and "not a valid answer" in res.message and word in res.message


def test_stated_precision_accepts_four_significant_digits():
    assert check_number(2.4849, TRUTH, what="epsilon")          # ln 12 typed as 2.4849
    assert check_number(np.float32(TRUTH), TRUTH, what="epsilon")
    assert not check_number(TRUTH * (1 + 3 * DEFAULT_REL_TOL), TRUTH, what="epsilon")
    assert "0.1%" in check_number(TRUTH, TRUTH, what="epsilon").message


def test_messages_give_no_direction_so_bisection_cannot_work():
    below = check_number(TRUTH * 0.9, TRUTH, what="epsilon").message
    above = check_number(TRUTH * 1.1, TRUTH, what="epsilon").message
    assert below == above
    for word in ("small", "large", "big", "low", "high", "increase", "decrease"):
        assert word not in below.lower()
    # every wrong value that is not a named slip gets the same message, whatever side it is on
    messages = {check_number(v, TRUTH, what="epsilon").message for v in np.geomspace(0.01, 100, 50)
                if abs(v - TRUTH) > TRUTH * DEFAULT_REL_TOL}
    assert len(messages) == 1


def test_slips_are_named_and_integers_exact():
    res = check_number(TRUTH / 2, TRUTH, what="epsilon", slips=[(TRUTH / 2, "check the factor 2 of the exponent")])
    assert not res and "factor 2" in res.message
    assert check_number(5299, 5299, what="n", integer=True) and check_number(5299.0, 5299, what="n", integer=True)
    assert not check_number(5298, 5299, what="n", integer=True)
    assert "whole number" in check_number(5298.5, 5299, what="n", integer=True).message


def _probabilities_via_global(u, sensitivity, epsilon):
    return dpcourse.exponential_probabilities(u, sensitivity, epsilon)


ep = dpcourse.exponential_probabilities


def _probabilities_via_alias(u, sensitivity, epsilon):
    return ep(u, sensitivity, epsilon)


def _probabilities_own(u, sensitivity, epsilon):
    w = np.exp(epsilon * (np.asarray(u) - np.max(u)) / (2 * sensitivity))
    return w / w.sum()


FORBIDDEN = [(dpcourse, "exponential_probabilities"), (selection, "exponential_probabilities")]


@pytest.mark.parametrize("fn", [_probabilities_via_global, _probabilities_via_alias,
                                lambda u, s, e: selection.exponential_probabilities(u, s, e)])
def test_forbidden_function_is_detected(fn):
    out, failure = call_student(fn, (np.array([1.0, 2.0]), 1.0, 1.0), "on a test case", shape=(2,),
                                forbidden=FORBIDDEN)
    assert out is None and "exponential_probabilities" in failure.message
    assert dpcourse.exponential_probabilities is ep  # the library is never replaced


def test_own_implementation_is_not_flagged():
    out, failure = call_student(_probabilities_own, (np.array([1.0, 2.0]), 1.0, 1.0), "case", shape=(2,),
                                forbidden=FORBIDDEN)
    assert failure is None
    np.testing.assert_allclose(out, dpcourse.exponential_probabilities([1.0, 2.0], 1.0, 1.0))


# ------------------------------------------------ the numeric checkers of the chapters follow the same rules

from dpcourse.exercises.laplace import check_sample_size  # noqa: E402
from dpcourse.exercises.promise import check_mixture_epsilon  # noqa: E402
from dpcourse.exercises.selection import check_em_probabilities, check_pumpkin_epsilon  # noqa: E402

SAMPLE_BOUND = 10 * math.log(10 / 0.05) / (0.01 * 1.0)  # 5298.3, the corollary's bound, by hand
CHAPTER_CHECKERS = {  # name: (checker of one answer, exact answer, answers that are named slips)
    "mixture": (lambda a: check_mixture_epsilon(a, n=10), math.log(12),
                [math.log10(12), math.log2(12), math.log(11), math.log(2)]),
    "sample_size": (lambda a: check_sample_size(a, k=10, alpha=0.01, beta=0.05, epsilon=1.0), math.ceil(SAMPLE_BOUND),
                    [5298, 5298.3, SAMPLE_BOUND, 5300, SAMPLE_BOUND / 10, math.log(200) / 0.01, 10 * math.log(20) / 0.01,
                     SAMPLE_BOUND * math.log10(math.e), SAMPLE_BOUND / math.log(2)]),
    "pumpkin": (check_pumpkin_epsilon, math.log(99) / 20,
                [math.log(100) / 20, math.log(99) / 40, math.log(99) / 80]),
}


@pytest.mark.parametrize("name", CHAPTER_CHECKERS)
@pytest.mark.parametrize("answer", ["0.3", "2.4849", float("nan"), float("inf"), -float("inf"), -1.0, True, None])
def test_chapter_checkers_refuse_invalid_answers_first(name, answer):
    check = CHAPTER_CHECKERS[name][0]
    res = check(answer)
    assert not res and res.message.startswith("not a valid answer"), res.message


@pytest.mark.parametrize("name", CHAPTER_CHECKERS)
def test_chapter_checkers_give_no_direction(name):
    check, truth, slips = CHAPTER_CHECKERS[name]
    grid = [v for v in np.geomspace(truth / 50, truth * 50, 400)
            if abs(v / truth - 1) > 3e-3 and all(abs(v / s - 1) > 2e-3 for s in slips) and abs(v - 5298) > 1]
    if name == "sample_size":  # a whole number is asked: a fraction gets its own message (tested below)
        grid = [float(round(v)) for v in grid]
    results = [check(v) for v in grid]
    assert not any(results)
    messages = {r.message for r in results}
    assert len(messages) == 1, messages  # the same words below and above the answer: nothing to bisect on
    (message,) = messages
    for word in ("small", "large", "big", "low", "high", "increase", "decrease", "works", f"{truth:.3g}"):
        assert word not in message.lower()


@pytest.mark.parametrize("name", CHAPTER_CHECKERS)
def test_chapter_checkers_name_each_slip_without_the_answer(name):
    check, truth, slips = CHAPTER_CHECKERS[name]
    generic = check(truth * 7).message
    for s in slips:
        res = check(s)
        assert not res and res.message != generic, (s, res.message)
        assert f"{truth:.3g}" not in res.message and f"{truth:.4g}" not in res.message


def test_chapter_checkers_accept_the_stated_precision():
    assert check_mixture_epsilon(2.4849, n=10)        # ln 12 to five significant digits (the case)
    assert check_mixture_epsilon(2.486, n=10)         # 0.05% off
    assert not check_mixture_epsilon(2.49, n=10)      # 0.2% off: outside the stated 0.1%
    assert check_pumpkin_epsilon(0.23) and check_pumpkin_epsilon(0.2298)   # three and four significant digits
    assert "1/99" in check_pumpkin_epsilon(0.2303).message                # ln(100)/20 to four digits: the slip
    assert check_sample_size(5299, k=10, alpha=0.01, beta=0.05, epsilon=1.0)       # the smallest whole n
    assert check_sample_size(5299.0, k=10, alpha=0.01, beta=0.05, epsilon=1.0)
    for above in (5300, 5303):  # meet the bound but are not the smallest: named
        res = check_sample_size(above, k=10, alpha=0.01, beta=0.05, epsilon=1.0)
        assert not res and "smallest whole number" in res.message
    res = check_sample_size(5298, k=10, alpha=0.01, beta=0.05, epsilon=1.0)        # rounded down: named
    assert not res and "safe direction" in res.message and "falls short" in res.message
    for fraction in (5298.3, SAMPLE_BOUND, SAMPLE_BOUND * (1 - 1e-6), 5299.5):  # not a sample size: named
        res = check_sample_size(fraction, k=10, alpha=0.01, beta=0.05, epsilon=1.0)
        assert not res and res.message == "the sample size is a whole number: round in the safe direction"


def test_sample_size_solution_and_checker_agree():
    # the number the chapter's solution gives as the answer is the one its checker accepts (issue 21, item 11)
    import json
    import os
    import re
    path = os.path.join(os.path.dirname(__file__), os.pardir, "chapters", "03_laplace.ipynb")
    cells = ["".join(c["source"]) for c in json.load(open(path, encoding="utf-8"))["cells"]]
    (sol,) = [c.split("```{solution} ex-laplace-sample-size")[1].split("```")[0] for c in cells
              if "```{solution} ex-laplace-sample-size" in c]
    stated = re.findall(r"the answer is n = (\d+)", sol)
    assert len(stated) == 1, sol
    assert check_sample_size(int(stated[0]), k=10, alpha=0.01, beta=0.05, epsilon=1.0)
    for shown in re.findall(r"\d+\.\d+", sol):  # any decimal the solution prints is refused, with the reason
        assert "whole number" in check_sample_size(float(shown), k=10, alpha=0.01, beta=0.05, epsilon=1.0).message


def test_em_checker_detects_the_forbidden_function():
    res = check_em_probabilities(lambda u, s, e: dpcourse.exponential_probabilities(u, s, e))
    assert not res and "exponential_probabilities" in res.message and "yourself" in res.message
    res = check_em_probabilities(lambda u, s, e: selection.exponential_probabilities(u, s, e))
    assert not res and "exponential_probabilities" in res.message and "yourself" in res.message
    assert check_em_probabilities(_probabilities_own)


def test_the_forbidden_function_itself_passed_as_the_answer_is_refused():
    out, failure = call_student(dpcourse.exponential_probabilities, (np.array([1.0, 2.0]), 1.0, 1.0), "case",
                                shape=(2,), forbidden=FORBIDDEN)
    assert out is None and "exponential_probabilities" in failure.message
    res = check_em_probabilities(dpcourse.exponential_probabilities)
    assert not res and "exponential_probabilities" in res.message and "yourself" in res.message

