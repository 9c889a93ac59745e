"""Every mutant of ``tools/mutation_test.py`` still finds its target and names test files that exist.

A mutant whose text moved (a module split, a refactor) stops the whole mutation run at its start; this catches it at
test time instead (issue 38 moved 87 and left two stale until a run found them).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutation_test", ROOT / "tools" / "mutation_test.py")
mutation_test = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutation_test", mutation_test)  # its dataclass looks its module up
_spec.loader.exec_module(mutation_test)


def test_mutant_names_are_unique():
    names = [m.name for m in mutation_test.MUTANTS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("m", mutation_test.MUTANTS, ids=lambda m: m.name)
def test_mutant_applies_and_its_tests_exist(m):
    text = (ROOT / m.path).read_text()
    mutated = mutation_test._apply(text, m)   # raises ValueError when the text is gone or ambiguous
    assert mutated != text
    assert m.tests and all((ROOT / t.split("::")[0]).is_file() for t in m.tests), m.tests


def test_a_stale_mutant_is_caught():
    stale = mutation_test.Mutant("stale", "scale", "dpcourse/laplace.py", "this text is not in the file", "x",
                                 ("tests/test_laplace.py",))
    with pytest.raises(ValueError, match="not found"):
        mutation_test._apply((ROOT / stale.path).read_text(), stale)
