"""Run the notebooks and the numeric tests at every numpy SIMD level this host has, and with jittered numpy.

numpy picks, at run time, code for its vectorized functions by the CPU's instruction sets (on x86-64: the
X86_V2 baseline, X86_V3 = AVX2, X86_V4 and AVX512_ICL/SPR = AVX-512; on aarch64: NEON and its extensions).
The last bits of ``exp``, ``log``, ``tanh`` and their kin differ between these levels, and the book must show
the same numbers on every computer. ``NPY_DISABLE_CPU_FEATURES`` switches levels off at run time, so a host
can test every level below its own: this script runs the selected tests once per level, from the level
just below the host's top down to the baseline (the top level is the plain ``pytest`` run of ``.ci/run``).

A host cannot switch on a level it lacks. To check the book on the levels above the host's (a student's
AVX-512 laptop, Apple silicon) it also runs the chapters with ``tools/ulp_jitter`` (every numpy
transcendental result moved by one unit in the last place, one way and then the other): a stored output
that passes there does not depend on those last bits at all. (The unit tests are not jittered: several
compare a float computation with a tolerance chosen for real implementations, which a systematic one-ulp
shift of every call can exceed without any CPU ever doing so.)

Usage (from the repository root, in the project's environment)::

    python tools/simd_levels.py                  # every lower level, then both jitters (chapters)
    python tools/simd_levels.py --list           # the levels this host has and the runs it would make
    python tools/simd_levels.py --no-jitter      # the levels only

Exit status 0 only if every run passed. The runs use ``pytest -n 2 --dist loadfile`` like the README's
test command, on ``chapters/`` and on the unit tests that compute (not the browser, PDF, homework-grading
and set-up tests, which check the build and the tools rather than numbers).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JITTER = os.path.join(ROOT, "tools", "ulp_jitter")

# Tests that check the build, the browser, the PDF, grading or the set-up, not computed numbers.
NOT_NUMERIC = ("tests/test_book_browser.py", "tests/test_pdf.py", "tests/test_homework.py",
               "tests/test_local_setup.py", "tests/test_readme_links.py", "tests/test_notebook_format.py",
               "tests/test_import_cost.py")


def host_levels() -> tuple[list[str], list[str]]:
    """(baseline, dispatch levels this host has, lowest first), as ``numpy.show_runtime`` reports them."""
    from numpy._core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__, __cpu_features__

    return list(__cpu_baseline__), [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]


def runs(jitter: bool) -> list[tuple[str, dict]]:
    """(label, extra environment) for each run: every level below the top, then the two jitters."""
    baseline, found = host_levels()
    out = []
    for k in range(len(found) - 1, -1, -1):       # switch off found[k:], keep found[:k]
        top = found[k - 1] if k > 0 else "baseline " + "+".join(baseline)
        out.append((f"level {top} (off: {' '.join(found[k:])})", {"NPY_DISABLE_CPU_FEATURES": " ".join(found[k:])}))
    if jitter:
        path = os.pathsep.join(p for p in (JITTER, os.environ.get("PYTHONPATH", "")) if p)
        for direction in ("1", "-1"):
            out.append((f"chapters with numpy transcendentals moved one ulp ({direction})",
                        {"DPCOURSE_ULP_JITTER": direction, "PYTHONPATH": path, "_ONLY_CHAPTERS": "1"}))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print the levels and the runs, run nothing")
    parser.add_argument("--no-jitter", action="store_true", help="only the dispatch levels")
    parser.add_argument("paths", nargs="*", default=["chapters", "tests", "dpcourse"], help="what to test")
    args = parser.parse_args(argv)
    baseline, found = host_levels()
    print(f"numpy SIMD: baseline {baseline}, dispatch levels found on this host {found}", flush=True)
    plan = runs(not args.no_jitter)
    if args.list:
        for label, env in plan:
            print(f"  {label}: {env}")
        return 0
    ignore = [f"--ignore={p}" for p in NOT_NUMERIC]
    failed = []
    for label, extra in plan:
        start = time.time()
        print(f"== {label}", flush=True)
        cmd = [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadfile", "-q", "--no-header", *ignore,
               *args.paths]
        if extra.get("_ONLY_CHAPTERS"):
            cmd = [c for c in cmd if c not in args.paths] + [p for p in args.paths if p.startswith("chapters")]
        env = dict(os.environ, **{k: v for k, v in extra.items() if not k.startswith("_")})
        result = subprocess.run(cmd, cwd=ROOT, env=env)
        print(f"== {label}: {'passed' if result.returncode == 0 else 'FAILED'} in {time.time() - start:.0f} s",
              flush=True)
        if result.returncode != 0:
            failed.append(label)
    if failed:
        print("failed runs: " + "; ".join(failed))
        return 1
    print(f"all {len(plan)} runs passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
