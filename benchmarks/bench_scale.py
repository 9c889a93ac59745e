"""Speed of contribution bounding, and run time of one user-level DP group-by on three engines.

Part 1 (target: ``dpcourse.bound_contributions`` on 10**6 rows in < 1 s). Baseline timed in the same run:
a plain numpy group-by of the same rows (``np.unique`` of the (user, key) pairs with counts, the
sort that any grouping needs); the printed ratio is bounding time / baseline time. Best of 3 repeats.

Part 2: the same release (count and clamped sum per key, private partition selection, epsilon = 1,
delta = 1e-6, max_partitions = 4, max_per_partition = 2) on ``dpcourse.synthetic_events`` data of
10**4 to 10**6 rows, run by

* ``dpcourse.dp_group_by`` (numpy, one process);
* ``pipeline_dp`` with its ``LocalBackend`` (Python iterators, one process);
* ``pipeline_dp`` on Apache Beam's ``DirectRunner`` (the local test runner of Beam).

Each time includes building the input (Python tuples for PipelineDP) and, for Beam, starting the
pipeline; one run per cell (the Beam runs are long). The table is written to
``benchmarks/scale_runtime.csv`` with the date, the machine (CPU count, platform) and the
versions, and the chapter "From the course to production" displays that file.
Run with ``python benchmarks/bench_scale.py`` (about 5 minutes on 2 cores; ``--quick`` stops at 10**5).

Part 3 (issue 21, exact keep coins): the keep decision of partition selection on 10**6 keys, the exact
integer coin on certified thresholds (``_keep_decisions``) against the float coin it replaced
(``rng.random(n) < p`` with the float closed form), timed in the same run (best of 3; first call with the
threshold sequence not yet cached, then cached), and ``select_partitions`` / ``dp_group_by`` end to end on
10**6 rows. ``--coin`` runs part 3 only.

Timings that used to sit in the docstrings of ``dpcourse.partition_selection`` (measured on the course's
2-core machine; they set the cap ``SELECTION_MAX_STEPS`` = 2**20): one step of the certified threshold
sequence T(n) costs 3-6 microseconds of integer arithmetic, so a sequence at the cap takes 3-6 s (epsilon =
0.01, delta = 1e-12 split over 150 partitions needs 6.6e5 steps); ``achieved_selection_delta`` answers in
milliseconds even at max_partitions = 2**64 (its fixed-point composition above m = 1000).
"""

from __future__ import annotations

import csv
import datetime
import os
import pathlib
import platform
import sys
import time
import timeit

import numpy as np

from dpcourse.contribution_bounding import bound_contributions
from dpcourse.data import synthetic_events
from dpcourse.group_by import dp_group_by
from dpcourse.pipeline_dp_adaptor import pipeline_dp_group_by, quiet_beam_import

OUT = pathlib.Path(__file__).parent / "scale_runtime.csv"  # committed (benchmarks/results/ is git-ignored)
PARAMS = dict(max_partitions=4, max_per_partition=2)


def bounding():
    d = synthetic_events(10**6, rng=0)
    u, k, v = d["user_id"], d["key"], d["value"]
    t_bound = min(timeit.repeat(lambda: bound_contributions(u, k, v, rng=1, **PARAMS), number=1, repeat=3))
    t_base = min(timeit.repeat(lambda: np.unique(np.stack([u, k]), axis=1, return_counts=True), number=1,
                               repeat=3))
    t_base_1d = min(timeit.repeat(lambda: np.unique(u * 1000 + k, return_counts=True), number=1, repeat=3))
    print(f"bound_contributions, 10^6 rows: {t_bound:.3f} s (target < 1 s)")
    print(f"numpy group-by baseline (np.unique of (user, key) columns): {t_base:.3f} s "
          f"-> ratio {t_bound / t_base:.2f}")
    print(f"numpy group-by baseline (np.unique of one int64 pair code): {t_base_1d:.3f} s "
          f"-> ratio {t_bound / t_base_1d:.2f}")


def runtime_table(sizes):
    apache_beam, pipeline_dp = quiet_beam_import()

    rows = []
    for n in sizes:
        d = synthetic_events(n, rng=n)
        args = (d["user_id"], d["key"], d["value"], 1.0, 1e-6)
        engines = {
            "dpcourse.dp_group_by": lambda: dp_group_by(*args, lower=0.0, upper=50.0, rng=1, **PARAMS),
            "pipeline_dp LocalBackend": lambda: pipeline_dp_group_by(*args, lower=0.0, upper=50.0, **PARAMS),
            "pipeline_dp on Beam DirectRunner": lambda: pipeline_dp_group_by(*args, lower=0.0, upper=50.0,
                                                                              backend="beam", **PARAMS),
        }
        for name, run in engines.items():
            t0 = time.perf_counter()
            out = run()
            dt = time.perf_counter() - t0
            rows.append({"rows": n, "engine": name, "seconds": round(dt, 3), "released_keys": len(out["keys"])})
            print(f"{n:>9,} rows  {name:<34} {dt:8.3f} s  ({len(out['keys'])} keys released)", flush=True)
    base = {r["rows"]: r["seconds"] for r in rows if r["engine"] == "dpcourse.dp_group_by"}
    for r in rows:
        r["ratio_to_dpcourse"] = round(r["seconds"] / base[r["rows"]], 1)
    machine = (f"{os.cpu_count()} CPUs, {platform.machine()}, {platform.system()}, Python "
               f"{platform.python_version()}, numpy {np.__version__}, pipeline-dp {pipeline_dp.__version__}, "
               f"apache-beam {apache_beam.__version__}")
    with OUT.open("w", newline="") as fh:
        fh.write(f"# measured {datetime.date.today().isoformat()} by benchmarks/bench_scale.py on: {machine}\n")
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote benchmarks/{OUT.name}")


def selection_coin():
    from dpcourse.partition_selection import (_SEQUENCES, _keep_decisions, _keep_probability,
                                              _per_partition_parameters, select_partitions)

    gen = np.random.default_rng(3)
    counts = np.minimum(gen.zipf(1.6, 10**6), 10**4).astype(np.int64)   # users per key, heavy-tailed
    for eps, delta, m in [(1.0 / 3, 1e-6, 4), (15.0, 1e-12, 1), (0.01, 1e-9, 1)]:
        params = _per_partition_parameters(eps, delta, m)

        def exact():
            return _keep_decisions(counts, params, delta, m, np.random.default_rng(1))

        def old_float():
            return np.random.default_rng(1).random(counts.size) < _keep_probability(counts, *params)

        _SEQUENCES.clear()
        t0 = time.perf_counter()
        exact()
        t_first = time.perf_counter() - t0
        t_new = min(timeit.repeat(exact, number=1, repeat=3))
        t_old = min(timeit.repeat(old_float, number=1, repeat=3))
        print(f"keep coins for 10^6 keys (eps1 = {eps / m:.3g}, delta = {delta:g}, m = {m}): exact {t_new * 1e3:.1f} ms "
              f"(first call {t_first * 1e3:.1f} ms), float coin {t_old * 1e3:.1f} ms -> ratio {t_new / t_old:.2f}")
    d = synthetic_events(10**6, rng=0)
    u, k, v = bound_contributions(d["user_id"], d["key"], d["value"], rng=1, **PARAMS)
    t_sel = min(timeit.repeat(lambda: select_partitions(u, k, 1.0, 1e-6, max_partitions=4, rng=1), number=1,
                              repeat=3))
    t_gb = min(timeit.repeat(lambda: dp_group_by(d["user_id"], d["key"], d["value"], 1.0, 1e-6, lower=0.0,
                                                 upper=50.0, rng=1, **PARAMS), number=1, repeat=3))
    print(f"select_partitions, 10^6 bounded rows: {t_sel:.3f} s; dp_group_by, 10^6 rows: {t_gb:.3f} s")


def main():
    if "--coin" in sys.argv:
        selection_coin()
        return
    bounding()
    selection_coin()
    quick = "--quick" in sys.argv
    runtime_table([10**4, 10**5] if quick else [10**4, 10**5, 10**6])


if __name__ == "__main__":
    main()
