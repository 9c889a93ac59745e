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
    assert dpcourse.exponential_probabilities is ep  # restored after the call


def test_own_implementation_is_not_flagged():
    out, failure = call_student(_probabilities_own, (np.array([1.0, 2.0]), 1.0, 1.0), "case", shape=(2,),
                                forbidden=FORBIDDEN)
    assert failure is None
    np.testing.assert_allclose(out, dpcourse.exponential_probabilities([1.0, 2.0], 1.0, 1.0))
