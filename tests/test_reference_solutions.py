"""The reference solutions of the homework's coding questions (grader/reference_solutions.py, issue 36).

Each must pass every hidden test of its question, on the book's cases (``rng=None``) and on cases drawn from
grader generators, without the library code its question forbids: in-process (the checkers' own guard refuses
a forbidden call) and, for three assignments, in the grader's sandbox, where that code is switched off at the
source. Each answer cell runs after the notebook's setup cell, as in a student's notebook.
"""

from __future__ import annotations

import ast
import math
import os
import sys

import numpy as np
import pytest

import dpcourse

# The grader is a folder of the repository, not an installed package: import it from the repository's root.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from dpcourse.homework import ASSIGNMENTS, questions
from grader.reference_solutions import REFERENCE_CODE  # noqa: E402
from grader.sandbox import bwrap_available  # noqa: E402

SETUP = "import math\nimport numpy as np\nimport dpcourse\n"
GRADER_SEEDS = (20260913, 4242)   # two grader generators, besides the book's cases (rng=None)

CODE_QUESTIONS = [(hw, q) for hw in ASSIGNMENTS for q in questions(hw) if q.kind == "code"]


def _function(q):
    """The function the reference cell of ``q`` defines, run after the notebook's setup (np, math, dpcourse)."""
    namespace = {"np": np, "math": math, "dpcourse": dpcourse}
    exec(compile(REFERENCE_CODE[q.label], f"<reference {q.label}>", "exec"), namespace)
    return namespace[q.name]


def test_every_coding_question_has_a_reference_and_nothing_else():
    labels = [q.label for _, q in CODE_QUESTIONS]
    assert len(labels) >= 24 and len(set(labels)) == len(labels)
    assert sorted(REFERENCE_CODE) == sorted(labels)
    for _, q in CODE_QUESTIONS:
        assert callable(_function(q)), q.label


@pytest.mark.parametrize("label", sorted(REFERENCE_CODE))
def test_no_float_sampler_and_no_global_randomness(label):
    """A release draws from the ``rng`` argument with the library's exact samplers: the source never calls a
    float sampler (``rng.laplace``, ``rng.random``...) nor reaches ``np.random``."""
    float_samplers = {"laplace", "normal", "random", "uniform", "exponential", "standard_exponential",
                      "standard_normal", "gumbel", "choice", "permutation", "shuffle"}
    for node in ast.walk(ast.parse(REFERENCE_CODE[label])):
        if isinstance(node, ast.Attribute):
            assert node.attr not in float_samplers, f"{label} uses .{node.attr}"
        if isinstance(node, ast.Name):
            assert node.id != "random", f"{label} uses the random module"


@pytest.mark.parametrize("hw,q", CODE_QUESTIONS, ids=[f"{hw}-{q.label}" for hw, q in CODE_QUESTIONS])
def test_reference_passes_every_hidden_test(hw, q):
    fn = _function(q)
    for rng_seed in (None, *GRADER_SEEDS):
        for t in q.tests:
            rng = None if rng_seed is None else np.random.default_rng(rng_seed)
            verdict = t.run(fn, {}, rng)
            assert verdict.passed, f"{hw} {q.label}, rng seed {rng_seed}, {t.name}: {verdict.message}"


def test_a_wrong_answer_fails_the_same_hidden_tests():
    """The harness above can fail: a reference with one slip (the factor 2 of the exponential mechanism's
    exponent dropped) fails its question's hidden test."""
    (q,) = [q for _, q in CODE_QUESTIONS if q.label == "ex-sel-em-code"]
    namespace = {"np": np, "math": math, "dpcourse": dpcourse}
    exec(REFERENCE_CODE[q.label].replace("(2 * sensitivity)", "sensitivity"), namespace)
    assert not q.tests[0].run(namespace[q.name], {}, np.random.default_rng(GRADER_SEEDS[0])).passed


# Three assignments whose solutions call library code next to the forbidden code (what the sandbox's stubs must
# leave usable): hw05 (laplace_mechanism with the student's generator across the wire; dp_histogram forbidden),
# hw08 (gaussian_delta allowed, analytic_gaussian_sigma forbidden), hw23 (noise_aware_halfwidth allowed,
# proportion_interval forbidden). Each case: a forbidden function and its arguments, called from the sandbox.
SANDBOX_ASSIGNMENTS = {
    "hw05": ("dpcourse.dp_histogram", "([1, 2], [1, 2], 1.0, 'add_remove', 0)"),
    "hw08": ("dpcourse.analytic_gaussian_sigma", "(1.0, 1e-5)"),
    "hw23": ("dpcourse.inference.proportion_interval", "(30.0, 100, 1.0)"),
    "hw10": ("dpcourse.dp_mean", "([0.5, 0.5], 0.0, 1.0, 1.0, rng=0)"),   # laplace_mechanism allowed
    "hw13": ("dpcourse.queries.smalldb_sample_size", "(10, 0.1)"),
}


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap not installed (apt-get install -y bubblewrap)")
def test_sandbox_references_pass_with_the_forbidden_code_switched_off(tmp_path):
    """In the grader's sandbox (forbidden code stubbed out of its copy of dpcourse) the references of three
    assignments pass every hidden test with the book's cases and a grader generator; a cell that calls the
    forbidden function there raises, so the stubs are live."""
    from grader.course import _forbidden_sets
    from grader.sandbox import RemoteFunction, Sandbox, stage_package

    for hw, (forbidden, args) in SANDBOX_ASSIGNMENTS.items():
        code = [q for q in questions(hw) if q.kind == "code"]
        stage = stage_package(tmp_path / hw, _forbidden_sets(hw))
        probe = f"import dpcourse.inference\ndef _forbidden_probe():\n    return {forbidden}{args}\n"
        cells = [SETUP] + [REFERENCE_CODE[q.label] for q in code] + [probe]
        with Sandbox(stage, cells) as sandbox:
            with pytest.raises(RuntimeError, match="switched off"):
                RemoteFunction(sandbox, "_forbidden_probe")()
            for q in code:
                for rng_seed in (None, GRADER_SEEDS[1]):
                    for t in q.tests:
                        rng = None if rng_seed is None else np.random.default_rng(rng_seed)
                        verdict = t.run(RemoteFunction(sandbox, q.name), {}, rng)
                        assert verdict.passed, f"{hw} {q.label} in the sandbox, rng seed {rng_seed}, {t.name}: " \
                                               f"{verdict.message}"
