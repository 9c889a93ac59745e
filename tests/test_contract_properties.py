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
_tool = importlib.util.spec_from_file_location(
    "bad_input_sweep", os.path.join(os.path.dirname(__file__), os.pardir, "tools", "bad_input_sweep.py"))
sweep = importlib.util.module_from_spec(_tool)
_tool.loader.exec_module(sweep)

SETTINGS = dict(deadline=None, derandomize=True, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
IDS = [s.name for s in contract.SPECS]


def test_every_exported_callable_has_a_contract():
    # Every public callable of dpcourse, from every module, has an entry (a new function anywhere fails this).
    exported = set(contract.exported_callables())
    covered = {s.name.split(".")[0] for s in contract.SPECS} | contract.NOT_CALLABLES
    assert exported - covered == set()
    assert set(contract.exported_callables(contract.COVERED_MODULES)) == exported
    assert all(hasattr(dpcourse, s.name.split(".")[0]) for s in contract.SPECS)


def test_the_coverage_check_sees_a_missing_function(monkeypatch):
    monkeypatch.setattr(dpcourse, "brand_new_release", lambda x: x, raising=False)
    assert "brand_new_release" in contract.exported_callables()


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


def test_bad_input_sweep_one_value_per_class_and_callable():
    # tools/bad_input_sweep.py on a seeded subset: for every callable and every class of value (NaN, +-inf, bool,
    # string, None, negative, zero, 5e-324, 1e308, 10**12 / 2**64, wrong shape ...), one listed invalid value (of
    # one of its arguments, drawn with a fixed seed) must get a named error and one extreme valid value a right
    # answer or a named refusal; nothing may leak another exception or hang. (Every argument gets random invalid
    # values in test_invalid_arguments_get_a_named_error; the tool calls every listed value.) The time limit here
    # (10 s) only catches a real hang (a loop of 10**12 rounds) on a loaded machine; the tool itself runs the full
    # table with a 1 s limit. Entries of KNOWN_ISSUES (in modules another change is fixing) are counted apart.
    calls = sweep.plan(contract, per_class=1, seed=0)
    assert {c[0].name for c in calls} == {s.name for s in contract.SPECS}
    bad, edge, per_class, notes = sweep.run(contract, calls, limit=10.0)
    assert sweep.passed(bad, edge), "\n".join(notes)
    assert {"NaN", "+-inf", "bool", "string", "None", "negative", "zero", "tiny (5e-324)", "huge (1e308)",
            "huge size (10**12, 2**64)", "wrong shape / length / element type"} <= set(per_class)


def test_the_sweep_counts_each_kind_of_fault():
    # The classifier itself: a silent acceptance, an unnamed error, a leaked error and a hang are each seen.
    def fn(x):
        if x == "loop":
            while True:
                pass
        if x == "leak":
            return 1 / 0
        if x == "unnamed":
            raise ValueError("bad value")
        if x == "named":
            raise ValueError("x is bad")
        return math.nan if x == "nan" else 1.0

    kind = contract.Kind(1.0, st.just(1.0), ["accept", "unnamed", "leak", "loop", "named"], ["nan", "ok"])
    spec = contract.Spec("fake", fn, [contract.Arg("x", kind)])
    bad, edge, _, notes = sweep.run(contract, sweep.plan(contract, specs=[spec]), limit=0.2)
    assert bad == {"silent acceptance": 1, "unnamed error": 1, "leaked error": 1, "hang": 1, "named error": 1}
    assert edge == {"silent wrong output": 1, "right answer": 1}
    assert not sweep.passed(bad, edge) and len(notes) == 5


def test_nan_check_itself_sees_nan():
    # the helper that the properties rely on
    spec = contract.SPECS[0]
    assert contract.output_problem(spec, (1.0, np.array([0.0, math.nan]))) == "NaN in the output"
    assert contract.output_problem(spec, {"a": 1.0}) is None
