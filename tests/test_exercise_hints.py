"""Checker hints (issue 35, item 16): the precision a message states is the one applied, an answer within it is
right even next to a slip's value, and a hint names the slip made, never another one and never a right answer.

Kept apart from ``test_exercise_helpers.py`` (which reads a chapter) so that the mutation script, which copies
only the package and the tests, can run it.
"""

import functools
import importlib
import inspect
import math
import pkgutil

import pytest

import dpcourse.exercises as exercises
from dpcourse.exercises import DEFAULT_REL_TOL, check_number
from dpcourse.exercises.continual import check_tree_variance
from dpcourse.exercises.lower_bounds import check_packing_error


@pytest.mark.parametrize("rel_tol, words", [(1e-3, "within 0.1%"), (2e-3, "within 0.2%"), (5e-3, "within 0.5%"),
                                            (5e-4, "within 0.05%")])
def test_the_precision_stated_is_the_one_applied(rel_tol, words):
    assert words in check_number(1.0, 1.0, what="x", rel_tol=rel_tol).message
    assert check_number(1.0 + 0.98 * rel_tol, 1.0, what="x", rel_tol=rel_tol)
    res = check_number(1.0 + 1.02 * rel_tol, 1.0, what="x", rel_tol=rel_tol)
    assert not res and words in res.message


def test_an_answer_within_the_precision_is_right_even_next_to_a_slip():
    # a slip 0.08% above the truth, a precision of 0.05%: the two windows overlap, the precision wins
    slips = [(1.0008, "the slip")]
    assert check_number(1.00042, 1.0, what="x", rel_tol=5e-4, slips=slips)
    assert check_number(1.00058, 1.0, what="x", rel_tol=5e-4, slips=slips).message == "the slip"
    # outside the precision but nearer the truth than the slip: no hint (it would blame a slip not made)
    res = check_number(0.9985, 1.0, what="x", slips=[(1.003, "the slip", 5e-3)])
    assert not res and res.message == check_number(0.9, 1.0, what="x").message


def test_two_slips_that_give_one_value_are_both_named():
    res = check_number(2.0, 1.0, what="x", slips=[(2.0, "first slip"), (2.0, "second slip"), (3.0, "third slip")])
    assert not res and "(1) first slip" in res.message and "(2) second slip" in res.message
    assert "third" not in res.message
    assert check_number(2.0, 1.0, what="x", slips=[(2.0, "same"), (2.0, "same")]).message == "same"


def test_tree_variance_checker_applies_the_precision_it_states():
    # T = 1000, t = 1000, epsilon = 1: six nodes (t has six 1 bits) of discrete Laplace noise of scale b = 10 (ten
    # levels): 6 / (2 sinh^2(1/20)) = 1199.0005; the continuous Laplace slip is 6 * 2 b^2 = 1200
    truth = 6 / (2 * math.sinh(1 / 20) ** 2)
    assert truth == pytest.approx(1199.0005, abs=1e-4)
    for right in (1199.0, 1199.5, truth * (1 + 4.9e-4), truth * (1 - 4.9e-4)):   # within the stated 0.05%
        assert check_tree_variance(right), right
    res = check_tree_variance(1198.0)
    assert not res and "within 0.05%" in res.message and "0.1%" not in res.message
    for slip in (1200.0, 1199.7):   # outside the precision, nearer the continuous variance than the truth
        res = check_tree_variance(slip)
        assert not res and "continuous Laplace" in res.message, slip


def test_packing_error_names_the_rounding_slip():
    # k = 21 bins under replace-one, epsilon = 0.25: K = 20 other datasets, ln(20) / 0.25 = 11.98, so m = 11 and
    # t = 5.5. Rounding m up (12) gives 6.0, as does the count of the other relation (ln(21) / 0.25 = 12.18, m = 12)
    assert math.floor(math.log(20) / 0.25) == 11 and math.ceil(math.log(20) / 0.25) == 12
    assert math.floor(math.log(21) / 0.25) == 12
    assert check_packing_error(5.5)
    res = check_packing_error(6.0)
    assert not res and "other neighbouring relation" in res.message and "rounded the wrong way" in res.message
    res = check_packing_error(round(math.log(20) / 0.25 / 2, 2))    # 5.99: m left unrounded
    assert not res and "whole number" in res.message and "relation" not in res.message
    res = check_packing_error(11.0)                               # the halving forgotten
    assert not res and "half" in res.message and "relation" not in res.message and "rounded" not in res.message
    for res in (check_packing_error(v) for v in (6.0, 5.99, 11.0)):
        assert "5.5" not in res.message


def _numeric_checkers():
    """Every checker of one numeric answer whose question has defaults (the slow check_max_steps excepted)."""
    out = {}
    for info in pkgutil.iter_modules(exercises.__path__):
        module = importlib.import_module(f"dpcourse.exercises.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            params = list(inspect.signature(fn).parameters.values())
            if name.startswith("check_") and fn.__module__ == module.__name__ and params[0].name == "answer" \
                    and name != "check_max_steps":
                if all(p.default is not p.empty for p in params[1:]):
                    out[f"{info.name}.{name}"] = (module, fn)
                elif name == "check_mixture_epsilon":
                    out[f"{info.name}.{name}"] = (module, functools.partial(fn, n=10))
    return out


NUMERIC_CHECKERS = _numeric_checkers()


def test_the_numeric_checkers_are_found():
    assert len(NUMERIC_CHECKERS) >= 15 and "continual.check_tree_variance" in NUMERIC_CHECKERS
    assert "lower_bounds.check_packing_error" in NUMERIC_CHECKERS


@pytest.mark.parametrize("name", sorted(NUMERIC_CHECKERS))
def test_every_named_slip_gets_its_hint_and_is_never_right(name, monkeypatch):
    module, check = NUMERIC_CHECKERS[name]
    calls = []

    def recording(answer, truth, **kwargs):
        calls.append((truth, kwargs))
        return check_number(answer, truth, **kwargs)

    monkeypatch.setattr(module, "check_number", recording)
    check(1.2345)
    (truth, kwargs), = calls
    rel_tol = kwargs.get("rel_tol", DEFAULT_REL_TOL)
    for value, hint, *_ in kwargs.get("slips", ()):
        if not math.isfinite(value):
            continue
        # a slip inside the precision would be accepted as right, and its hint could never be seen
        assert abs(value - truth) > rel_tol * abs(truth), (name, value, truth)
        res = check(value)
        assert not res and hint in res.message, (name, value, res.message)
