"""Every public function and method of the library modules carries full type hints (issue 38).

mypy (configured in pyproject.toml, run by .ci/run) checks that the hints are consistent; this test checks that
they are there, which mypy does not do for a function with no hints at all.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The package's figure, exercise and homework helpers are the book's, not the library's API.
NOT_LIBRARY = ("plots", "exercises", "homework", "data")


def library_modules() -> list[Path]:
    return sorted(p for p in (ROOT / "dpcourse").rglob("*.py")
                  if not set(p.relative_to(ROOT / "dpcourse").parts[:-1]) & set(NOT_LIBRARY))


def unannotated(source: str) -> list[str]:
    """The public functions (and public methods of public classes) of ``source`` that lack a hint."""
    out = []

    def check(fn, prefix=""):
        args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
        args = [a for a in args if a.arg not in ("self", "cls")]
        args += [a for a in (fn.args.vararg, fn.args.kwarg) if a is not None]
        missing = [a.arg for a in args if a.annotation is None]
        if fn.returns is None and fn.name != "__init__":
            missing.append("return")
        if missing:
            out.append(f"{prefix}{fn.name}: {', '.join(missing)}")

    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            check(node)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and (not item.name.startswith("_") or item.name == "__init__"):
                    check(item, f"{node.name}.")
    return out


@pytest.mark.parametrize("path", library_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_public_functions_are_annotated(path):
    assert unannotated(path.read_text()) == []


def test_the_check_can_fail():
    src = "def f(x, y: int) -> int: ...\ndef g(x: int): ...\ndef _h(x): ...\nclass A:\n    def m(self, z): ..."
    assert unannotated(src) == ["f: x", "g: return", "A.m: z, return"]
