"""Cost of the README's commands from a fresh clone: build (book + PDF), tests, HTML size.

Clones the committed HEAD of this repository into a temporary folder (so no figure cache, no Sphinx
environment), runs the README's build command there, step by step, and prints for each step the wall
time and the CPU-seconds of the processes it started (user + system, from ``resource.getrusage`` of the
children: on a machine shared with other jobs the wall time grows, the CPU-seconds much less), then the
size of the HTML folder and of its heaviest chapter page (first load, from bench_pages.py). With
``--pytest`` it also runs ``pytest -n 2 --dist loadfile --durations=25`` in a second fresh clone (no figure
cache, as a newcomer runs it) and prints the slowest items.

Targets (issue 34), on 2 idle cores: build + PDF < 180 s, tests < 420 s (7 minutes), heaviest page < 2 MB
stored (the 30 MB total of issue 23 was dropped). Each line prints the ratio to its target; the HTML folder's
size is printed for information.

    python benchmarks/bench_build.py [--pytest] [--keep]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_cpu(proc: subprocess.Popen, seen: dict) -> None:
    """Record the CPU-seconds of every live descendant of ``proc`` (the last value seen of each)."""
    try:
        for child in psutil.Process(proc.pid).children(recursive=True):
            try:
                times = child.cpu_times()
                seen[child.pid] = times.user + times.system
            except psutil.Error:
                pass
    except psutil.Error:
        pass


def step(name: str, cmd: list[str], cwd: Path, target: float | None = None, keep: bool = False):
    """Run one command; its wall time and CPU-seconds.

    CPU-seconds: those of the processes reaped by this one (getrusage), or, if larger, the sum over the
    command's descendants polled every 0.2 s (Chromium is started by Playwright's driver, which does not
    reap it, so getrusage misses the browser's time).
    """
    cpu0, t0 = children_cpu(), time.perf_counter()
    seen: dict = {}
    with subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        while proc.poll() is None:
            _tree_cpu(proc, seen)
            time.sleep(0.2)
        out, err = proc.communicate()
    proc.stdout, proc.stderr = out, err
    wall = time.perf_counter() - t0
    cpu = max(children_cpu() - cpu0, sum(seen.values()))
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        if not keep:
            raise SystemExit(f"{name} failed")
        print(f"{name} FAILED (exit {proc.returncode}); its time:")
    ratio = f"  ({wall / target:.2f} of the {target:.0f} s target)" if target else ""
    print(f"{name:34s} {wall:7.1f} s wall {cpu:7.1f} CPU-s{ratio}", flush=True)
    return (wall, cpu, proc) if keep else (wall, cpu)


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pytest", action="store_true", help="also run pytest -n 2 --dist loadfile in the clone")
    parser.add_argument("--keep", action="store_true", help="keep the clone (its _build/html for bench_pages.py)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dpcourse-bench-build-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    print(f"fresh clone of HEAD in {clone}")
    total = [0.0, 0.0]
    for name, cmd in [("jupyter-book build -W -n --keep-going",
                       [str(BIN / "jupyter-book"), "build", "-W", "-n", "--keep-going", "."]),
                      ("python tools/build_pdf.py", [sys.executable, "tools/build_pdf.py"])]:
        wall, cpu = step(name, cmd, clone)
        total[0] += wall
        total[1] += cpu
    print(f"{'README build command (book + PDF)':34s} {total[0]:7.1f} s wall {total[1]:7.1f} CPU-s  "
          f"({total[0] / 180:.2f} of the 180 s target; CPU-s / 2 cores = {total[1] / 2:.0f} s)")
    html = clone / "_build" / "html"
    pdf = html / "dpcourse.pdf"
    size = folder_mb(html)
    print(f"HTML folder {size:.1f} MB (no target), of which the PDF "
          f"{pdf.stat().st_size / 1e6:.1f} MB and the live-figure states "
          f"{folder_mb(html / '_static' / 'explorers'):.1f} MB")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_pages import measure

    rows = measure(html)
    name, weight = max(((r[0], r[1]) for r in rows), key=lambda r: r[1])
    print(f"heaviest page {name}: {weight / 1e6:.2f} MB stored at first load ({weight / 2e6:.2f} of the 2 MB target)")
    if args.pytest:
        # in a second fresh clone: the build above left its figure cache in the first one
        clean = work / "clone-for-pytest"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clean)], check=True)
        _, _, proc = step("pytest -n 2 --dist loadfile (fresh clone)",
                          [str(BIN / "pytest"), "-n", "2", "--dist", "loadfile", "-q", "--durations=25"], clean, 420,
                          keep=True)
        tail = proc.stdout[proc.stdout.find("slowest 25 durations"):]
        print("  " + "\n  ".join(tail.splitlines()[:28]))
    if args.keep:
        print(f"kept {clone}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
