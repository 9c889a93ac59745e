"""Every chapter notebook obeys the rules that make the book a test suite.

nbval compares only cells that were executed and saved; a cell saved unexecuted, an output-ignore tag
on a non-widget cell, or randomness from the global NumPy state would silently weaken the suite. This
test reads the stored notebooks and refuses such cells.
"""

import json
import re
from pathlib import Path

import pytest

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"
NOTEBOOKS = sorted(p for p in CHAPTERS.glob("*.ipynb"))
TOC = (CHAPTERS.parent / "_toc.yml").read_text(encoding="utf-8")

GLOBAL_RNG = re.compile(r"np\.random\.(seed|rand|randn|randint|laplace|normal|uniform|choice|exponential|binomial|random)\(")
UNSTABLE = re.compile(r"0x[0-9a-fA-F]{6,}|/root/|/tmp/|/work/|/home/")


def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebooks in chapters/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_policy(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert f"chapters/{path.stem}" in TOC, f"{path.name} is not in _toc.yml"
    cells = code_cells(nb)
    assert cells
    counts = []
    for i, cell in enumerate(cells):
        src = "".join(cell["source"])
        tags = cell.get("metadata", {}).get("tags", [])
        where = f"{path.name}, code cell {i}: {src.splitlines()[0][:60]!r}"
        assert cell["execution_count"] is not None, f"{where} was saved without being executed"
        counts.append(cell["execution_count"])
        assert not GLOBAL_RNG.search(src), f"{where} uses the global np.random state"
        if "nbval-ignore-output" in tags or "NBVAL_IGNORE_OUTPUT" in src or "nbval-skip" in tags or "NBVAL_SKIP" in src:
            assert "nbval-skip" not in tags and "NBVAL_SKIP" not in src, f"{where} is skipped by nbval"
            assert "widget" in src or "interact" in src, f"{where} ignores its output but is not a widget cell"
        for out in cell.get("outputs", []):
            if out["output_type"] == "error":
                assert "raises-exception" in tags, f"{where} stores an error but is not tagged raises-exception"
            text = ("".join(out.get("text", [])) + "".join(out.get("data", {}).get("text/plain", []))
                    + "".join(out.get("traceback", [])))
            assert not UNSTABLE.search(text), f"{where} prints an address or a machine path"
            assert not (out["output_type"] == "execute_result" and re.search(r"<matplotlib\.|Line2D|Text\(", text)), \
                f"{where} leaves a matplotlib object as its last expression"
    assert counts == list(range(1, len(counts) + 1)), f"{path.name} was not executed top to bottom in one kernel"


GOALS = re.compile(r"```\{admonition\} Learning goals\n:class: tip\n\n?After this chapter you can:?\n((?:- .+\n){3,6})```")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_learning_goals_at_the_top(path):
    """Each chapter opens with 3-6 learning goals (the block of CONVENTIONS' chapter template), in the
    opening prose: somewhere before the first `## ` section heading."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    before_first_section = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        src = "".join(cell["source"])
        head, sep, _ = src.partition("\n## ")
        before_first_section.append(head)
        if sep:
            break
    text = "\n".join(before_first_section)
    found = GOALS.findall(text + "\n")
    assert len(found) == 1, f"{path.name}: no learning-goals block (3-6 goals) before the first section"
