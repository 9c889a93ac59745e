"""The inventory of random functions (dpcourse/inventory.py) lists every function of the package with ``rng``."""

import importlib.util
import os
import sys

import dpcourse.inventory as inv

if "test_bit_generators" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("test_bit_generators",
                                                   os.path.join(os.path.dirname(__file__), "test_bit_generators.py"))
    sys.modules["test_bit_generators"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["test_bit_generators"])
rng_functions = sys.modules["test_bit_generators"].rng_functions


def test_every_rng_function_has_an_inventory_entry():
    found = rng_functions()
    assert "selection.exponential_mechanism" in found  # the introspection itself works
    missing = sorted(found - set(inv.INVENTORY))
    stale = sorted(set(inv.INVENTORY) - found)
    assert not missing and not stale, (missing, stale)


def test_every_entry_is_complete():
    for name, kind, sampler, exact, note in inv.inventory_rows():
        assert kind in ("release", "simulation", "audit"), name
        assert sampler and isinstance(exact, bool), name
        if not exact:
            assert note, f"{name} is not exact by default and does not say why"


def test_rows_are_named_tuples():
    # Issue 38: each row names its fields; unpacking and indexing work as on the plain tuples before.
    rows = inv.inventory_rows("release")
    row = rows[0]
    assert isinstance(row, inv.InventoryRow) and row._fields == ("name", "kind", "sampler", "exact", "note")
    assert row.kind == row[1] == "release" and tuple(row) == (row.name, row.kind, row.sampler, row.exact, row.note)
    assert [r.name for r in rows] == sorted(n for n, e in inv.INVENTORY.items() if e.kind == "release")
