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


# ---------------------------------------------------------------------------------------------------------
# Portable outputs: a stored number shows only digits that every CPU computes alike.

FLOAT_TOKEN = re.compile(r"(?<![\w.])[-+]?\d*\.\d+(?:[eE][-+]?\d+)?")
LONG_DIGITS = 10

# Cells whose stored output holds a float with 10 or more significant digits, each with the reason its
# digits are the same on every computer. A new entry needs such a reason: digits that come from numpy's
# vectorized exp, log, power, tanh, ... differ between CPUs in the last bits (CONTRIBUTING, "Portable
# outputs"); print fewer digits instead, or compute the number exactly. (.ci/run checks the whole book
# with numpy's transcendentals moved by one ulp: tools/simd_levels.py.)
LONG_FLOATS_ALLOWED = {
    ("02_randomized_response", 4): "1 / (1 + e^-eps) with math.exp: the C library, the same at every numpy level",
    ("10_testing", 16): "the naive sampler's outputs, built on math.log (the C library), as numpy's own sampler",
    ("11_noise_on_a_computer", 0): "float additions of exact doubles: the rounding the chapter shows",
    ("11_noise_on_a_computer", 13): "powers of two and their sums, exact in binary",
    ("11_noise_on_a_computer", 22): "10 digits of sums whose float error is below 1e-14 (far from a rounding tie)",
    ("11_noise_on_a_computer", 23): "float additions of exact doubles: the rounding the chapter shows",
    ("15_private_learning", 11): "10 digits of values whose float error is below 1e-14 (far from a rounding tie)",
    ("16_local_dp", 3): "exact fractions rounded once to a float, and math.exp",
    ("16_local_dp", 5): "the collision probability of an exact hash family: a fraction rounded once",
    ("16_local_dp", 10): "math.log of exact rational probabilities: the C library, the same at every numpy level",
    ("19_continual_release", 7): "dyadic rationals (multiples of 2**-11), exact in binary",
}


def _significant_digits(token: str) -> int:
    mantissa = re.split("[eE]", token.lstrip("+-"))[0].replace(".", "")
    return len(mantissa.strip("0"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_show_no_long_float_without_a_reason(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                       for o in cell.get("outputs", []))
        longs = [t for t in FLOAT_TOKEN.findall(text) if _significant_digits(t) >= LONG_DIGITS]
        if longs and (path.stem, i) not in LONG_FLOATS_ALLOWED:
            found.append(f"code cell {i}: {longs[:3]}")
    assert not found, (f"{path.name} prints floats with {LONG_DIGITS}+ significant digits (may differ between "
                       f"CPUs): {found}; print fewer digits, or add the cell to LONG_FLOATS_ALLOWED with the "
                       f"reason its digits are portable")


def test_every_allowed_long_float_is_still_there():
    # a stale entry would let a later long float in that cell through unexamined
    for (stem, i), _reason in LONG_FLOATS_ALLOWED.items():
        nb = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))
        cell = [c for c in nb["cells"] if c["cell_type"] == "code"][i]
        text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                       for o in cell.get("outputs", []))
        assert any(_significant_digits(t) >= LONG_DIGITS for t in FLOAT_TOKEN.findall(text)), (stem, i)


def test_the_long_float_rule_can_fail():
    assert _significant_digits("0.7310585786300049") == 16 and _significant_digits("1.0000000000") == 1
    assert _significant_digits("2.62e-16") == 3 and _significant_digits("-0.000123456789") == 9
    assert FLOAT_TOKEN.findall("d = 2.62e-16; p 0.7310585786300049 (x1.5)") == ["2.62e-16", "0.7310585786300049"]
