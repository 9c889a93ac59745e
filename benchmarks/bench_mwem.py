"""Speed of MWEM: 20 iterations, 1 000 counting queries, a 4 096-cell domain.

Target: ``dpcourse.mwem`` under 2 s (it is about 40 matrix-vector products of size 1000 x 4096 plus 20
exponential-mechanism draws and 20 exact Laplace releases). Baseline timed in the same run: the same
algorithm written with a Python loop over the cells for the multiplicative update and for the query
answers (what a literal transcription of the pseudocode does), on the same inputs. Also printed: one
call of ``laplace_per_query`` (one noisy answer per query) for scale. Best of several repeats; run with
``python benchmarks/bench_mwem.py``.
"""

import math
import time
import timeit

import numpy as np

import dpcourse
from dpcourse.queries import laplace_per_query

CELLS = 4096
K = 1000
T = 20
REPEATS = 3


def literal_mwem(h, q, epsilon, iterations, rng):
    """MWEM with the answers and the update written cell by cell (the baseline; same privacy calls)."""
    n = float(h.sum())
    true = q @ h
    a = [n / len(h)] * len(h)
    avg = [0.0] * len(h)
    rows = [np.flatnonzero(r) for r in q]
    for _ in range(iterations):
        est = np.array([sum(a[j] for j in cols) for cols in rows])
        i = dpcourse.exponential_mechanism(np.abs(est - true), 1.0, epsilon / (2 * iterations), rng=rng)
        m = dpcourse.laplace_mechanism(true[i], 1.0, epsilon / (2 * iterations), rng=rng)
        for j in rows[i]:
            a[j] *= math.exp((m - est[i]) / (2 * n))
        total = sum(a)
        a = [v * n / total for v in a]
        avg = [s + v for s, v in zip(avg, a)]
    return np.array(avg) / iterations


def main():
    rng = np.random.default_rng(0)
    h = rng.poisson(5.0, size=CELLS).astype(float)
    q = rng.integers(0, 2, size=(K, CELLS))
    gen = np.random.default_rng(1)
    best_mwem = min(timeit.repeat(lambda: dpcourse.mwem(h, q, 1.0, iterations=T, rng=gen), number=1,
                                  repeat=REPEATS))
    start = time.perf_counter()
    literal_mwem(h, q, 1.0, T, gen)
    literal = time.perf_counter() - start
    best_lap = min(timeit.repeat(lambda: laplace_per_query(h, q, 1.0, rng=gen), number=1, repeat=REPEATS))
    print(f"dpcourse.mwem (T={T}, k={K}, |X|={CELLS}) : {best_mwem:8.3f} s (best of {REPEATS}; target < 2 s)")
    print(f"literal cell-by-cell MWEM (one run)        : {literal:8.3f} s")
    print(f"laplace_per_query (same queries)           : {best_lap:8.3f} s")
    print(f"speed-up of mwem over the literal version  : {literal / best_mwem:8.1f}x")


if __name__ == "__main__":
    main()
