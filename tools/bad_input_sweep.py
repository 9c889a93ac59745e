"""Bad-input sweep: every listed invalid value of every argument of every public callable, and every extreme
valid value, called one at a time (the other arguments at valid defaults). The table of callables, kinds and
values is ``tests/api_contract.py`` (shared with the Hypothesis tests in ``tests/test_contract_properties.py``).

Each invalid call is counted as

* a **named error**: ``TypeError``/``ValueError`` whose message names the argument (the contract);
* an **unnamed error**: ``TypeError``/``ValueError`` that does not name it;
* a **leaked error**: any other exception (``ZeroDivisionError``, ``OverflowError``, ``MemoryError``, ...);
* a **silent acceptance**: it returned a value;
* a **hang**: it ran longer than the time limit (1 s by default; a ``SIGALRM`` timer interrupts it, and a
  call that returns late is counted as a hang too). A few valid computations that take about a second at
  their documented cap have a longer limit in their table entry (``Spec.seconds``: optimal composition at
  k = 2e6 - 1, quantiles at resolution 2**22, the noise calibration of DP-SGD, the numerical shuffle bound);
  a refusal never does. The sweep also caps its own address space (4 GiB more
  than at the start), so that a call trying to allocate terabytes fails at once instead of taking the machine.

Each extreme valid call is a right answer, a named refusal (for example a value too large for the exact
sampler, said so by name), a **silent wrong output** (NaN, or a value outside its range: a negative epsilon,
a delta above 1), an unnamed refusal, a leaked error, or a hang.

Every value is also put in a *class* (NaN, +-inf, bool, string, None, negative, zero, 5e-324, 1e308, huge
size 10**12 / 2**64, wrong shape or length, other type, out of range) and the counts are printed per class.

Usage: ``python tools/bad_input_sweep.py [-v] [--per-class N] [--seed S] [--timeout T]``. By default every
listed value is called (the full table: about 8,500 calls, 30-60 s on a shared 2-core machine);
``--per-class N`` calls at most N seeded-random values of each class for each callable, over all its
arguments (the pytest test, ``tests/test_contract_properties.py``, runs ``N = 1``: about 1,700 calls).
Exit status 0 only if every invalid call got a named error, and no extreme call gave a wrong output, an
unnamed refusal, a leaked error or a hang.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import os
import random
import signal
import sys
import time
import warnings
from collections import Counter, defaultdict
from fractions import Fraction

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_LIMIT = 1.0       # seconds: a call that runs longer is a hang
MEMORY_HEADROOM = 4 << 30  # bytes of address space the sweep may add to what it had at the start

BAD_OUTCOMES = ("named error", "unnamed error", "leaked error", "silent acceptance", "hang")
EDGE_OUTCOMES = ("right answer", "named refusal", "silent wrong output", "unnamed refusal", "leaked error", "hang")


def load_contract():
    """The table ``tests/api_contract.py`` as a module (registered as ``api_contract`` for its dataclasses)."""
    if "api_contract" in sys.modules:
        return sys.modules["api_contract"]
    spec = importlib.util.spec_from_file_location("api_contract", os.path.join(ROOT, "tests", "api_contract.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["api_contract"] = module
    spec.loader.exec_module(module)
    return module


class Hang(BaseException):
    """Raised by the timer inside a call that runs too long (a BaseException: ``except Exception`` misses it)."""


def _on_alarm(signum, frame):
    raise Hang


@contextlib.contextmanager
def memory_cap(headroom=MEMORY_HEADROOM):
    """Limit the address space to its current size plus ``headroom`` (restored on exit); no-op if unsupported."""
    try:
        import resource
        with open("/proc/self/statm") as f:
            current = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        old = resource.getrlimit(resource.RLIMIT_AS)
        limit = current + headroom
        if old[1] != resource.RLIM_INFINITY:
            limit = min(limit, old[1])
        resource.setrlimit(resource.RLIMIT_AS, (limit, old[1]))
    except (ImportError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old)


def timed_call(contract, spec, values, limit=TIME_LIMIT):
    """``(result, exception, seconds)`` of one call, interrupted after ``limit`` seconds (exception ``Hang``)."""
    old = signal.signal(signal.SIGALRM, _on_alarm)
    start = time.perf_counter()
    result = exc = None
    try:
        signal.setitimer(signal.ITIMER_REAL, limit)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = contract.call(spec, values)
    except Hang as e:
        exc = e
    except Exception as e:  # noqa: BLE001 - classifying what comes out is the point
        exc = e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return result, exc, time.perf_counter() - start


def value_class(value) -> str:
    """The class of a test value (for counting per class)."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype == bool):
        return "bool"
    if value is None:
        return "None"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v = int(value)
        if abs(v) >= 10**12:
            return "huge size (10**12, 2**64)" if v > 0 else "negative"
        return "negative" if v < 0 else "zero" if v == 0 else "out of range / other"
    if isinstance(value, (float, np.floating, Fraction)):
        v = float(value)
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "+-inf"
        if v == 0.0:
            return "zero"
        if 0 < abs(v) < 1e-300:
            return "tiny (5e-324)"
        if abs(v) >= 1e300:
            return "huge (1e308)"
        return "negative" if v < 0 else "out of range / other"
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")   # a complex entry is a wrong element type, not a number
                arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError, np.exceptions.ComplexWarning):
            return "wrong shape / length / element type"
        if arr.size and np.isnan(arr).any():
            return "NaN"
        if arr.size and np.isinf(arr).any():
            return "+-inf"
        return "wrong shape / length / element type"
    if callable(value):
        return "wrong callable"
    return "other type"


def plan(contract, per_class=None, seed=0, specs=None):
    """The calls to make: ``(spec, arg, value, "bad" or "edge")``.

    With ``per_class=N``, a seeded subset: for each callable, at most N invalid and N extreme valid values of
    each class, drawn over all its arguments (every callable and every class it has is still tried).
    """
    rnd = random.Random(seed)
    calls = []
    for spec in contract.SPECS if specs is None else specs:
        all_calls = [(spec, arg, v, what) for arg in spec.args
                     for what, values in (("bad", arg.kind.bad), ("edge", arg.kind.edge)) for v in values]
        if per_class is None:
            calls += all_calls
            continue
        by_class = defaultdict(list)
        for call in all_calls:
            by_class[call[3], value_class(call[2])].append(call)
        for _, group in sorted(by_class.items()):
            calls += rnd.sample(group, min(per_class, len(group)))
    return calls


def run(contract, calls, limit=TIME_LIMIT):
    """Make the calls; return ``(bad, edge, per_class, notes)``: outcome counters and one line per problem."""
    bad, edge, per_class = Counter(), Counter(), defaultdict(Counter)
    notes = []
    with memory_cap():
        for spec, arg, value, what in calls:
            values = contract.defaults(spec)
            values[arg.name] = value
            lim = max(limit, spec.seconds) if what == "edge" else limit   # a refusal gets no extra time
            result, exc, seconds = timed_call(contract, spec, values, lim)
            where = f"{spec.name}({arg.name}={value!r})"
            if isinstance(exc, Hang) or seconds > lim:
                outcome = "hang"
                notes.append(f"hang      {where}: over {lim} s")
            elif isinstance(exc, (TypeError, ValueError)):
                named = arg.name in str(exc)
                outcome = ("named error" if named else "unnamed error") if what == "bad" else \
                    ("named refusal" if named else "unnamed refusal")
                if not named:
                    notes.append(f"unnamed   {where}: {type(exc).__name__}: {exc}")
            elif exc is not None:
                outcome = "leaked error"
                notes.append(f"leaked    {where}: {type(exc).__name__}: {exc}")
            elif what == "bad":
                outcome = "silent acceptance"
                notes.append(f"accepted  {where}")
            else:
                why = contract.output_problem(spec, result)
                outcome = "silent wrong output" if why else "right answer"
                if why:
                    notes.append(f"wrong     {where}: {why}")
            if (spec.name, arg.name) in contract.KNOWN_ISSUES and outcome not in ("named error", "named refusal",
                                                                                     "right answer"):
                notes[-1] = "known " + notes[-1][6:] + f"  [known issue: {contract.KNOWN_ISSUES[spec.name, arg.name]}]"
                outcome = "known issue (owner fixing)"
            (bad if what == "bad" else edge)[outcome] += 1
            per_class[value_class(value)][outcome] += 1
    return bad, edge, per_class, notes


def passed(bad, edge) -> bool:
    """The sweep's verdict: every invalid call named, every extreme call right or a named refusal."""
    ok_edge = edge["right answer"] + edge["named refusal"] + edge["known issue (owner fixing)"]
    return bad["named error"] + bad["known issue (owner fixing)"] == sum(bad.values()) and ok_edge == sum(edge.values())


def report(contract, calls, bad, edge, per_class) -> str:
    n_bad, n_edge = sum(bad.values()), sum(edge.values())
    lines = [f"callables swept: {len({c[0].name for c in calls})} (classes and methods included)",
             f"invalid-input calls: {n_bad}: named errors {bad['named error']} "
             f"({100 * bad['named error'] / max(n_bad, 1):.1f}%), unnamed errors {bad['unnamed error']}, "
             f"leaked errors {bad['leaked error']}, silent acceptances {bad['silent acceptance']}, hangs {bad['hang']}",
             f"extreme valid calls: {n_edge}: right answers {edge['right answer']}, named refusals "
             f"{edge['named refusal']}, silent wrong outputs {edge['silent wrong output']}, unnamed refusals "
             f"{edge['unnamed refusal']}, leaked errors {edge['leaked error']}, hangs {edge['hang']}",
             f"known issues listed in tests/api_contract.py KNOWN_ISSUES (modules another change is fixing): "
             f"{bad['known issue (owner fixing)'] + edge['known issue (owner fixing)']}",
             "per class of value (all calls):"]
    for cls, counts in sorted(per_class.items()):
        lines.append(f"  {cls:40s} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    uncovered = sorted(set(contract.exported_callables()) - {c[0].name.split(".")[0] for c in calls}
                       - contract.NOT_CALLABLES)
    if uncovered:
        lines.append(f"exported callables without a contract entry ({len(uncovered)}): {', '.join(uncovered)}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="also list the calls that are as they should be")
    ap.add_argument("--per-class", type=int, default=None, help="at most N values per class and argument")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=TIME_LIMIT, help="seconds after which a call is a hang")
    args = ap.parse_args(argv)
    contract = load_contract()
    calls = plan(contract, args.per_class, args.seed)
    start = time.perf_counter()
    bad, edge, per_class, notes = run(contract, calls, args.timeout)
    for line in notes:
        print(line)
    print(report(contract, calls, bad, edge, per_class))
    if args.verbose:
        print(f"{len(calls)} calls in {time.perf_counter() - start:.1f} s")
    return 0 if passed(bad, edge) else 1


if __name__ == "__main__":
    sys.exit(main())
