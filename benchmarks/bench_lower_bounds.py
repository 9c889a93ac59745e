"""Full-size experiments of the chapter "Lower bounds" (the notebook runs smaller seeded versions).

1. Packing: the geometric histogram (add/remove, ε = 1) on k = 2 ... 2^13 bins, 2000 runs per k: median and
   99th percentile of the largest count error, against the packing bound of corollary ``lb-cor-packing`` at
   β = 1/2 and β = 0.01 (``dpcourse.lower_bounds.packing_error_bound``); the ratio median / bound.
2. Tracing: TPR at FPR 1e-2 and 1e-3 of the tracing attack (``dpcourse.lower_bounds.tracing_trial``, 5000
   outsiders) on d = 4000 means released exactly, rounded to 0.05, and by the Gaussian mechanism at (1, 1e-5),
   for n = 50 ... 3200; and the people the analytic Gaussian needs for the rounded release's error.

3. Fingerprinting: the range of n that corollary ``lb-cor-fingerprinting-alpha`` proves impossible
   (``dpcourse.lower_bounds.fingerprinting_sample_bound``) against the n the analytic Gaussian needs, at
   δ = 1e-6, α = 0.01, for ε from 0.1 to 4 and d from 10^3 to 10^6 (arithmetic only).

Prints numbers only; no timing is asserted. Run with ``python benchmarks/bench_lower_bounds.py`` (about 5 minutes with k up to 2^16 on 2 busy cores, measured; less with k up to 2^13).
"""

import math
import time

import numpy as np

import dpcourse
from dpcourse import lower_bounds as lb

SEED = 2026


def packing(runs=2000, eps=1.0):
    print(f"1. packing, geometric histogram at epsilon = {eps}, {runs} runs per k")
    for k in [2**j for j in range(1, 14, 3)]:
        noise = dpcourse.geometric_mechanism(np.zeros((runs, k), dtype=np.int64), 1, eps, rng=SEED)
        largest = np.abs(noise).max(axis=1)
        med, q99 = np.median(largest), np.quantile(largest, 0.99)
        b50 = lb.packing_error_bound(k, eps, relation="add_remove")
        b01 = lb.packing_error_bound(k, eps, relation="add_remove", beta=0.01)
        ratio = med / b50 if b50 > 0 else float("inf")
        print(f"   k = {k:>6}: median largest error {med:5.1f} (bound at beta 1/2: {b50:4.1f}, ratio {ratio:4.2f}); "
              f"99th percentile {q99:5.1f} (bound at beta 0.01: {b01:4.1f})")


def tracing(d=4000, outsiders=5000):
    print(f"2. tracing d = {d} means, {outsiders} outsiders; cap of any (1, 1e-5)-DP release at FPR 1e-2: "
          f"{math.e * 1e-2 + 1e-5:.4f}, at 1e-3: {math.e * 1e-3 + 1e-5:.5f}")
    print(f"   the analytic Gaussian needs n = {lb.gaussian_means_sample_size(d, 1.0, 1e-5, 0.0125):,.0f} for error 0.0125")
    for n in (50, 200, 800, 3200):
        parts = []
        for release, kw in (("exact", {}), ("rounded", {"step": 0.05}), ("gaussian", {"epsilon": 1.0, "delta": 1e-5})):
            out = lb.tracing_trial(n, d, release=release, n_outsiders=outsiders, rng=SEED, **kw)
            t2 = dpcourse.tpr_at_fpr(out["members"], out["outsiders"], 1e-2)
            t3 = dpcourse.tpr_at_fpr(out["members"], out["outsiders"], 1e-3)
            parts.append(f"{release} (error {out['mean_abs_error']:.4f}) {t2:.3f}/{t3:.3f}")
        print(f"   n = {n:>4}: TPR at FPR 1e-2/1e-3: " + "; ".join(parts))


def fingerprinting(delta=1e-6, alpha=0.01):
    print(f"3. fingerprinting bound against the Gaussian mechanism, delta = {delta:g}, alpha = {alpha}")
    for eps in (0.1, 0.5, 1.0, 2.0, 4.0):
        for d in (10**3, 10**4, 10**5, 10**6):
            low, high = lb.fingerprinting_sample_bound(d, eps, delta, alpha)
            gauss = lb.gaussian_means_sample_size(d, eps, delta, alpha)
            ratio = gauss / (high + 1) if high else float("inf")
            print(f"   epsilon = {eps:3}, d = {d:>9,}: impossible for n in [{low}, {high:,}]; Gaussian needs "
                  f"{gauss:,.0f} ({ratio:.0f} times more)")


if __name__ == "__main__":
    start = time.perf_counter()
    fingerprinting()
    packing()
    tracing()
    print(f"total {time.perf_counter() - start:.1f} s")
