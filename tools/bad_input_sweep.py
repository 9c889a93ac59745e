"""Bad-input sweep: every listed invalid value of every argument of every public callable, and every extreme
valid value, called one at a time (the other arguments at valid defaults). The table of callables, kinds and
values is ``tests/api_contract.py`` (shared with the Hypothesis tests).

Each invalid call is counted as

* a **named error**: ``TypeError``/``ValueError`` whose message names the argument (the contract);
* an **unnamed error**: ``TypeError``/``ValueError`` that does not name it;
* a **leaked error**: any other exception (``ZeroDivisionError``, ``OverflowError``, ``KeyError``, ...);
* a **silent acceptance**: it returned a value.

Each extreme valid call is a right answer, a named refusal (for example a value too large for the exact
sampler, said so by name), a **silent wrong output** (NaN, or a value outside its range: a negative epsilon,
a delta above 1), or an unnamed refusal / leaked error.

Usage: ``python tools/bad_input_sweep.py [-v]`` (``-v`` lists every call that is not as it should be).
Exit status 0 only if every invalid call got a named error and no extreme call gave a wrong output.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import warnings
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_contract():
    spec = importlib.util.spec_from_file_location("api_contract", os.path.join(ROOT, "tests", "api_contract.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["api_contract"] = module
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    contract = _load_contract()

    bad, edge = Counter(), Counter()
    notes = []
    callables = set()
    for spec in contract.SPECS:
        callables.add(spec.name)
        for arg in spec.args:
            known = (spec.name, arg.name) in contract.KNOWN_ISSUES
            for value in arg.kind.bad:
                values = contract.defaults(spec)
                values[arg.name] = value
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        contract.call(spec, values)
                except (TypeError, ValueError) as exc:
                    if arg.name in str(exc):
                        bad["named error"] += 1
                    else:
                        bad["unnamed error"] += 1
                        notes.append(f"unnamed   {spec.name}({arg.name}={value!r}): {type(exc).__name__}: {exc}")
                except Exception as exc:  # noqa: BLE001 - counting what leaks is the point
                    bad["leaked error"] += 1
                    notes.append(f"leaked    {spec.name}({arg.name}={value!r}): {type(exc).__name__}: {exc}")
                else:
                    bad["silent acceptance"] += 1
                    notes.append(f"accepted  {spec.name}({arg.name}={value!r})")
            for value in arg.kind.edge:
                values = contract.defaults(spec)
                values[arg.name] = value
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        result = contract.call(spec, values)
                except (TypeError, ValueError) as exc:
                    if arg.name in str(exc):
                        edge["named refusal"] += 1
                    else:
                        edge["known issue (not owned here)" if known else "unnamed refusal"] += 1
                        notes.append(f"{'known' if known else 'unnamed'}     {spec.name}({arg.name}={value!r}): {exc}")
                except Exception as exc:  # noqa: BLE001
                    edge["leaked error"] += 1
                    notes.append(f"leaked    {spec.name}({arg.name}={value!r}): {type(exc).__name__}: {exc}")
                else:
                    why = contract.output_problem(spec, result)
                    if why:
                        edge["silent wrong output"] += 1
                        notes.append(f"wrong     {spec.name}({arg.name}={value!r}): {why}")
                    else:
                        edge["right answer"] += 1

    n_bad, n_edge = sum(bad.values()), sum(edge.values())
    uncovered = sorted(set(contract.exported_callables()) - {n.split(".")[0] for n in callables} - contract.NOT_CALLABLES)
    if args.verbose or notes:
        for line in notes:
            print(line)
    print(f"callables swept: {len(callables)} (classes and methods included)")
    print(f"invalid-input calls: {n_bad}: named errors {bad['named error']} ({100 * bad['named error'] / n_bad:.1f}%), "
          f"unnamed errors {bad['unnamed error']}, leaked errors {bad['leaked error']}, "
          f"silent acceptances {bad['silent acceptance']}")
    print(f"extreme valid calls: {n_edge}: right answers {edge['right answer']}, named refusals {edge['named refusal']}, "
          f"silent wrong outputs {edge['silent wrong output']}, unnamed refusals {edge['unnamed refusal']}, "
          f"leaked errors {edge['leaked error']}, known issues in modules not owned here "
          f"{edge['known issue (not owned here)']}")
    if uncovered:
        print(f"exported callables without a contract entry yet ({len(uncovered)}): {', '.join(uncovered)}")
    ok = bad["named error"] == n_bad and edge["silent wrong output"] == 0 and edge["leaked error"] == 0 \
        and edge["unnamed refusal"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
