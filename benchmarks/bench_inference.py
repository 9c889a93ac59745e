"""Coverage and width of the chapter's private confidence intervals on the full grid (chapter
"Private statistical inference"): n in {100, 1000, 10**4}, epsilon in {0.1, 1}, for the mean, the
proportion, the difference of means and the median, noise-aware vs naive vs non-private.

Prints, per cell, the coverage with its Monte-Carlo standard error and the mean width relative to the
non-private interval's, and whether the noise-aware coverage lies in [94%, 97%] (at 3 standard errors).
Also times one call of each interval function against the non-private textbook interval (numpy) in the
same run. Usage: ``python benchmarks/bench_inference.py [reps] [quantile_reps]`` (defaults 10000 and 3000).
The last column says whether the noise-aware coverage is more than 3 standard errors below 95% (a real
under-coverage, not Monte-Carlo noise).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import dpcourse as dp
from dpcourse.inference import coverage_grid

NS, EPSILONS = (100, 1000, 10**4), (0.1, 1.0)


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    q_reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    for kind in ("mean", "proportion", "difference", "quantile"):
        r = q_reps if kind == "quantile" else reps
        t = time.perf_counter()
        grid = coverage_grid(kind, NS, EPSILONS, reps=r, rng=2026)
        print(f"\n{kind}: {r} repetitions per cell ({time.perf_counter() - t:.1f} s)")
        print("      n    eps  noise-aware (se)   naive (se)      non-private  width aware/np  naive/np  in [94,97]  below 95")
        for (n, eps), res in grid.items():
            a, nv, npv = res["noise_aware"], res["naive"], res["non_private"]
            ok = a[0] + 3 * a[1] >= 0.94 and a[0] - 3 * a[1] <= 0.97
            under = a[0] + 3 * a[1] < 0.95
            print(f"{n:7d} {eps:5.1f}  {a[0]:.4f} ({a[1]:.4f})  {nv[0]:.4f} ({nv[1]:.4f})  {npv[0]:.4f}"
                  f"       {a[2] / npv[2]:8.2f}      {nv[2] / npv[2]:6.2f}    {'yes' if ok else 'NO':>5s}       {'YES' if under else 'no'}")
    x = np.random.default_rng(0).normal(4200, 800, 10**4)
    base = min(_timed(lambda: (x.mean(), x.std(ddof=1))) for _ in range(5))
    one = min(_timed(lambda: dp.mean_interval(x, 2000.0, 7000.0, 1.0, rng=1)) for _ in range(5))
    print(f"\nmean_interval at n = 10**4: {one * 1e3:.2f} ms; numpy mean and sd: {base * 1e3:.3f} ms; "
          f"ratio {one / base:.0f}")


def _timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
