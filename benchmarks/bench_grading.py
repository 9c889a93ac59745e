"""Grading a class: wall time and CPU-seconds to grade one assignment for 60 students on this machine.

    python benchmarks/bench_grading.py [--assignment hw05] [--students 60] [--jobs 2]

Makes a course folder in a temporary directory with a roster of N students, generates their copies, fills
them in (two in three with the reference answers, one in six with a wrong number, one in six with a cell
that kills its own process), grades them all in sandboxes, then grades again with nothing changed
(incremental: nothing re-run). Prints the statuses, the points, the times, and the ratio to the target of
issue 36 (600 s for 60 students on 2 cores).
"""

from __future__ import annotations

import argparse
import csv
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from grader import course as hw  # noqa: E402
from grader.reference import reference_cells  # noqa: E402

TARGET_SECONDS = 600.0


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--assignment", default="hw05")
    ap.add_argument("--students", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dpcourse-bench-grading-") as tmp:
        root = Path(tmp) / "course"
        hw.init_course(root)
        with open(root / "roster.csv", "a", newline="") as fh:
            csv.writer(fh).writerows([(f"s{i:03d}", f"Student {i}", f"s{i:03d}@uni.edu", str(9000 + i))
                                      for i in range(args.students)])
        course = hw.load_course(root)
        sub = course.submissions
        for i, student in enumerate(course.roster):
            nb, _ = hw.build_copy(args.assignment, secret=course.secret, student=student)
            answers = reference_cells(args.assignment, course.secret, student.student_id)
            kind = "honest" if i % 6 < 4 else ("wrong" if i % 6 == 4 else "crash")
            for cell in nb.cells:
                label = cell.metadata.get("dpcourse", {}).get("answer")
                if label in answers:
                    cell.source = answers[label]
                    if kind == "wrong" and "= " in cell.source and not cell.source.startswith("def "):
                        cell.source = cell.source.split("=")[0] + "= 1.0\n"
            if kind == "crash":
                nb.cells.append(nbformat.v4.new_code_cell("import os\nos._exit(3)"))
            d = sub / student.student_id
            d.mkdir(parents=True)
            nbformat.write(nb, d / f"{args.assignment}.ipynb")
        t0, c0 = time.perf_counter(), _cpu()
        rows = hw.grade(course, args.assignment, jobs=args.jobs)
        t1, c1 = time.perf_counter(), _cpu()
        again = hw.grade(course, args.assignment, jobs=args.jobs)
        t2 = time.perf_counter()
        by = {}
        for r in rows:
            by[r["status"]] = by.get(r["status"], 0) + 1
        full = sum(1 for r in rows if r["questions"] and all(q["points"] == q["max"] for q in r["questions"].values()))
        print(f"{args.assignment}, {args.students} students, {args.jobs} at a time: {by}; full marks: {full}")
        print(f"grading: {t1 - t0:.1f} s wall, {c1 - c0:.1f} CPU-s (grader and sandboxes); "
              f"{(t1 - t0) / args.students:.2f} s per submission")
        print(f"re-grading with nothing changed: {t2 - t1:.1f} s ({sum(r == s for r, s in zip(rows, again))} rows kept)")
        print(f"ratio to the target (600 s for 60 students): {(t1 - t0) * 60 / args.students / TARGET_SECONDS:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
