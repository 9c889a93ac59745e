"""Coding-exercise checkers of chapters 01-04 refuse a function that calls the library function the
exercise asks the student to write (through a global name or through the ``dpcourse`` module)."""

import math

import numpy as np
import pytest

import dpcourse
from dpcourse import exact_histogram, laplace_mechanism
from dpcourse.exercises.histogram import check_my_dp_histogram
from dpcourse.exercises.promise import check_hockey_stick
from dpcourse.exercises.randomized_response import check_rr_estimator
from dpcourse.histogram import dp_histogram, histogram_sensitivity
from dpcourse.divergences import hockey_stick
from dpcourse.rr import rr_estimate_mean


@pytest.mark.parametrize("fn", [
    lambda p, q, e: hockey_stick(p, q, e),
    lambda p, q, e: dpcourse.hockey_stick(p, q, e),
])
def test_hockey_stick_checker_refuses_the_library(fn):
    result = check_hockey_stick(fn)
    assert not result.passed and "hockey_stick" in result.message and "yourself" in result.message


@pytest.mark.parametrize("fn", [
    lambda r, e: rr_estimate_mean(r, e),
    lambda r, e: dpcourse.rr_estimate_mean(r, e),
])
def test_rr_estimator_checker_refuses_the_library(fn):
    result = check_rr_estimator(fn)
    assert not result.passed and "rr_estimate_mean" in result.message


@pytest.mark.parametrize("fn", [
    lambda d, c, e, r, g: dp_histogram(d, e, relation=r, categories=c, rng=g, secure=False),
    lambda d, c, e, r, g: dpcourse.dp_histogram(d, e, relation=r, categories=c, rng=g, secure=False),
    lambda d, c, e, r, g: laplace_mechanism(exact_histogram(d, categories=c), histogram_sensitivity(r), e, rng=g),
    lambda d, c, e, r, g: laplace_mechanism(exact_histogram(d, categories=c), dpcourse.histogram_sensitivity(r), e,
                                            rng=g),
])
def test_histogram_checker_refuses_the_library(fn):
    result = check_my_dp_histogram(fn)
    assert not result.passed and "yourself" in result.message, result.message


def test_the_hand_written_versions_still_pass():
    assert check_hockey_stick(lambda p, q, e: np.maximum(p - np.exp(e) * q, 0).sum()).passed

    def estimate(r, e):
        t = math.exp(e) / (1 + math.exp(e))
        return (np.mean(r) - (1 - t)) / (2 * t - 1)

    assert check_rr_estimator(estimate).passed

    def histogram(d, c, e, r, g):
        if not np.isin(d, c).all():
            raise ValueError("record outside the categories")
        return laplace_mechanism(exact_histogram(d, categories=c), 1.0 if r == "add_remove" else 2.0, e, rng=g)

    assert check_my_dp_histogram(histogram).passed


def test_the_library_is_restored_after_a_check():
    check_hockey_stick(lambda p, q, e: dpcourse.hockey_stick(p, q, e))
    assert dpcourse.hockey_stick([0.5, 0.5], [0.25, 0.75], 0.0) == pytest.approx(0.25)
    assert dpcourse.histogram_sensitivity("replace_one") == 2
