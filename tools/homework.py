"""Homework from the chapters' exercises, with nbgrader: generate the assignments, grade a folder of submissions.

    python tools/homework.py generate --out _homework               # every assignment (or: --only hw05 hw14)
    python tools/homework.py grade SUBMISSIONS --out _gradebook     # SUBMISSIONS/<student id>/hw05.ipynb ...
    python tools/homework.py numbers hw05 STUDENT_ID                 # one student's numbers (for the teacher)

``generate`` writes ``student/hwNN.ipynb`` (to hand out: the chapter's exercises, a cell printing the
student's own numbers, answer cells; no solution, no hidden test), ``teacher/hwNN.ipynb`` (with the chapter's
solutions), ``autograder/hwNN.json`` (questions, points, hidden tests' names) and ``course/``, nbgrader's
course folder. ``grade`` autogrades each submission in its own kernel with a time limit per cell and an
output limit, and writes ``grades.csv`` (points per question), ``feedback/<student id>/hwNN.md``,
``gradebook.json``, and nbgrader's SQLite gradebook and HTML feedback under ``course/``. Nothing generated
is committed. See ``dpcourse/homework/`` and the book's pages "Teaching with this book" and "Homework".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dpcourse.homework import my_numbers
from dpcourse.homework.autograde import generate, grade


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="write the assignments")
    g.add_argument("--out", type=Path, default=Path("_homework"))
    g.add_argument("--only", nargs="*", help="assignment ids, e.g. hw05 hw14 (default: all)")
    r = sub.add_parser("grade", help="grade a folder SUBMISSIONS/<student id>/<assignment>.ipynb")
    r.add_argument("submissions", type=Path)
    r.add_argument("--out", type=Path, default=Path("_gradebook"))
    r.add_argument("--assignment", help="grade every notebook as this assignment (default: from the file name)")
    r.add_argument("--cell-timeout", type=float, default=30.0, help="seconds per notebook cell (default 30)")
    r.add_argument("--max-chars", type=int, default=20_000, help="characters of printed output kept per cell")
    n = sub.add_parser("numbers", help="print a student's numbers for an assignment")
    n.add_argument("assignment")
    n.add_argument("student_id")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.command == "generate":
        manifests = generate(args.out, args.only)
        for m in manifests:
            tests = sum(len(q["tests"]) for q in m["questions"])
            print(f"{m['assignment']}: {len(m['questions'])} graded question(s) with {tests} hidden test(s), "
                  f"{m['points_auto']:g} points; {len(m['written'])} written answer(s)")
        print(f"{len(manifests)} assignments written to {args.out} in {time.perf_counter() - start:.1f} s")
    elif args.command == "grade":
        results = grade(args.submissions, args.out, assignment=args.assignment, cell_timeout=args.cell_timeout,
                        max_chars=args.max_chars)
        for res in results:
            got = sum(q["points"] for q in res["questions"].values())
            top = sum(q["max"] for q in res["questions"].values())
            print(f"{res['student']} {res['assignment']}: {got:g} / {top:g}")
        print(f"{len(results)} submission(s) graded into {args.out} in {time.perf_counter() - start:.1f} s")
    else:
        my_numbers(args.assignment, args.student_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
