"""Benchmark of dpcourse.dp_quantile (interval exponential mechanism) against numpy.quantile, same run.

Prints the time of one private median on n values (default grid 2**20), of 1000 releases in one call
(``size=1000``), the baseline ``np.quantile`` on the same data, and the ratios; also
``smooth_sensitivity`` and ``distance_to_instability`` at n = 10**5. Usage: ``python benchmarks/bench_quantiles.py``.
"""

from __future__ import annotations

import time

import numpy as np

import dpcourse as dp


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    gen = np.random.default_rng(0)
    for n in (10**4, 10**5, 10**6):
        x = gen.normal(size=n)
        base = best_of(lambda: np.quantile(x, 0.5))
        one = best_of(lambda: dp.dp_quantile(x, 0.5, -10.0, 10.0, 1.0, rng=1))
        many = best_of(lambda: dp.dp_quantile(x, 0.5, -10.0, 10.0, 1.0, rng=1, size=1000))
        print(f"n = {n:>9,}: np.quantile {base * 1e3:7.2f} ms | dp_quantile {one * 1e3:7.2f} ms "
              f"(ratio {one / base:5.1f}) | size=1000 {many * 1e3:7.2f} ms (ratio {many / base:5.1f})")
    x = gen.normal(size=10**5)
    base = best_of(lambda: np.quantile(x, 0.5))
    ss = best_of(lambda: dp.smooth_sensitivity(x, -10.0, 10.0, 0.05), repeat=3)
    dti = best_of(lambda: dp.distance_to_instability(x, -10.0, 10.0, 0.01), repeat=3)
    print(f"n = 100,000: smooth_sensitivity(beta=0.05) {ss * 1e3:.1f} ms (ratio {ss / base:.1f}), "
          f"distance_to_instability {dti * 1e3:.1f} ms (ratio {dti / base:.1f})")


if __name__ == "__main__":
    main()
