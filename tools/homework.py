"""Homework from the chapters' exercises: a course folder, per-student copies, sandboxed grading, exports.

    python tools/homework.py init COURSE                    # settings, a new secret, an empty roster.csv
    python tools/homework.py generate COURSE [--only hw05]  # handout/<id>/hwNN.ipynb and teacher/hwNN.ipynb
    python tools/homework.py grade COURSE hw05 [--force]    # every roster student: a row, feedback, exports
    python tools/homework.py answer COURSE hw05 STUDENT_ID  # a student's numbers and expected answers (disputes)
    python tools/homework.py final COURSE                   # every assignment's totals: gradebook/final.csv

Every path is inside COURSE (its ``homework.toml`` names them, relative). Grading runs each submission in a
bubblewrap sandbox (``apt-get install -y bubblewrap``) and the hidden tests in this process; see the book's
page "Teaching with this book" for a whole term, from roster to final grades.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from grader import course as hw  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    i = sub.add_parser("init", help="make a course folder")
    i.add_argument("course", type=Path)
    g = sub.add_parser("generate", help="write every student's copy and the teacher's copies")
    g.add_argument("course", type=Path)
    g.add_argument("--only", nargs="*", help="assignment ids, e.g. hw05 hw14 (default: all)")
    r = sub.add_parser("grade", help="grade one assignment for the whole roster")
    r.add_argument("course", type=Path)
    r.add_argument("assignment")
    r.add_argument("--force", action="store_true", help="re-grade submissions that did not change too")
    r.add_argument("--jobs", type=int, help="submissions graded at once (default: the course's setting)")
    r.add_argument("--student", nargs="*", help="grade these students again (after a dispute or an extension)")
    f = sub.add_parser("final", help="every assignment's totals side by side: gradebook/final.csv")
    f.add_argument("course", type=Path)
    a = sub.add_parser("answer", help="a student's numbers and expected answers (needs the secret)")
    a.add_argument("course", type=Path)
    a.add_argument("assignment")
    a.add_argument("student_id")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        if args.command == "init":
            root = hw.init_course(args.course)
            print(f"course folder {root}: fill in roster.csv, keep secret.key to yourself")
            return 0
        course = hw.load_course(args.course)
        if args.command == "generate":
            counts = hw.generate(course, args.only)
            print(f"{len(counts)} assignment(s) for {len(course.roster)} student(s) written to {course.handout}, "
                  f"teacher copies in {course.teacher}, in {time.perf_counter() - start:.1f} s")
        elif args.command == "grade":
            rows = hw.grade(course, args.assignment, force=args.force, jobs=args.jobs, students=args.student,
                            progress=lambda row: print(f"  {row['student']}: {row['status']}", flush=True))
            by = {}
            for row in rows:
                by[row["status"]] = by.get(row["status"], 0) + 1
            print(f"{args.assignment}: " + ", ".join(f"{n} {s}" for s, n in sorted(by.items()))
                  + f"; gradebook in {course.gradebook}, in {time.perf_counter() - start:.1f} s")
        elif args.command == "final":
            print(f"written {hw.final_grades(course)}")
        else:
            print(hw.answer_report(course, args.assignment, args.student_id))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
