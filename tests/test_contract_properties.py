"""Property-based tests of the validation contract of every public callable (Hypothesis).

For each entry of ``tests/api_contract.py``: (1) random valid arguments never give NaN or an output outside
its range; (2) a random invalid value of any one argument (the others valid) raises TypeError or
ValueError, and the message names that argument. Derandomized, so a run is reproducible and cannot flake.
"""

import importlib.util
import math
import os
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpcourse

_spec = importlib.util.spec_from_file_location("api_contract", os.path.join(os.path.dirname(__file__), "api_contract.py"))
contract = importlib.util.module_from_spec(_spec)
sys.modules["api_contract"] = contract  # dataclasses look their module up there
_spec.loader.exec_module(contract)

SETTINGS = dict(deadline=None, derandomize=True, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
IDS = [s.name for s in contract.SPECS]


def test_every_exported_callable_has_a_contract():
    # Every callable that dpcourse exports from the covered modules has an entry (a new function there fails this).
    exported = set(contract.exported_callables(contract.COVERED_MODULES))
    covered = {s.name.split(".")[0] for s in contract.SPECS} | contract.NOT_CALLABLES
    assert exported - covered == set()
    assert all(hasattr(dpcourse, s.name.split(".")[0]) for s in contract.SPECS)


def _valid_values(data, spec):
    return {a.name: data.draw(a.kind.valid, label=a.name) for a in spec.args}


@pytest.mark.parametrize("spec", contract.SPECS, ids=IDS)
def test_valid_arguments_never_give_nan(spec):
    @settings(max_examples=spec.max_examples, **SETTINGS)
    @given(data=st.data())
    def run(data):
        values = _valid_values(data, spec)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # an overflow or 0/0 on the way is a bug too
            result = contract.call(spec, values)
        assert contract.output_problem(spec, result) is None, (values, result)

    run()


@pytest.mark.parametrize("spec", contract.SPECS, ids=IDS)
def test_invalid_arguments_get_a_named_error(spec):
    @settings(max_examples=max(spec.max_examples, 2 * len(spec.args)), **SETTINGS)
    @given(data=st.data())
    def run(data):
        values = _valid_values(data, spec)
        arg = data.draw(st.sampled_from(spec.args), label="argument")
        choices = st.sampled_from(arg.kind.bad)
        if arg.kind.bad_st is not None:
            choices = st.one_of(choices, arg.kind.bad_st)
        values[arg.name] = data.draw(choices, label="bad value")
        with pytest.raises((TypeError, ValueError)) as info:
            contract.call(spec, values)
        assert arg.name in str(info.value), f"{spec.name}: the message {str(info.value)!r} does not name {arg.name}"

    run()


def test_the_listed_bad_values_are_all_refused_one_by_one():
    # Hypothesis samples the lists above; here every listed bad value is tried once with default arguments.
    misses = []
    for spec in contract.SPECS:
        for arg in spec.args:
            for bad in arg.kind.bad:
                values = contract.defaults(spec)
                values[arg.name] = bad
                try:
                    contract.call(spec, values)
                except (TypeError, ValueError) as exc:
                    if arg.name not in str(exc):
                        misses.append(f"{spec.name}({arg.name}={bad!r}): unnamed: {exc}")
                else:
                    misses.append(f"{spec.name}({arg.name}={bad!r}): accepted")
    assert not misses, "\n".join(misses)


def test_extreme_valid_values_give_a_right_answer_or_a_named_refusal():
    problems = []
    for spec in contract.SPECS:
        for arg in spec.args:
            for edge in arg.kind.edge:
                values = contract.defaults(spec)
                values[arg.name] = edge
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        result = contract.call(spec, values)
                except (TypeError, ValueError) as exc:
                    if arg.name not in str(exc) and (spec.name, arg.name) not in contract.KNOWN_ISSUES:
                        problems.append(f"{spec.name}({arg.name}={edge!r}): unnamed refusal: {exc}")
                    continue
                why = contract.output_problem(spec, result)
                if why:
                    problems.append(f"{spec.name}({arg.name}={edge!r}): {why}")
    assert not problems, "\n".join(problems)


def test_nan_check_itself_sees_nan():
    # the helper that the properties rely on
    spec = contract.SPECS[0]
    assert contract.output_problem(spec, (1.0, np.array([0.0, math.nan]))) == "NaN in the output"
    assert contract.output_problem(spec, {"a": 1.0}) is None
