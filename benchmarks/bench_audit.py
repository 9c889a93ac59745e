"""Speed of dpcourse.audit_epsilon with 10**6 draws per input, against just drawing those 2 x 10**6 samples.

Target: the whole audit (draws, sorting, all thresholds evaluated at once with ``searchsorted``, two
Clopper-Pearson bounds) in under 5 s on the course's 2-core machine. The baseline, timed in the same
run, is numpy's ``Generator.laplace`` drawing the same 2 x 10**6 samples; the ratio says how much the
statistics cost on top of the sampling. Best of several repeats; run with
``python benchmarks/bench_audit.py``.
"""

import timeit

import numpy as np

import dpcourse

N = 1_000_000
REPEATS = 5


def laplace_count(x, rng, size=None):
    """A sensitivity-1 count released with Laplace noise of scale 1 (epsilon = 1), vectorized over draws."""
    return dpcourse.laplace_mechanism(np.full(size, x), 1.0, 1.0, rng=rng)


def main():
    gen_numpy = np.random.default_rng(1)
    gen_audit = np.random.default_rng(1)

    def draw_only():
        gen_numpy.laplace(0.0, 1.0, size=N)
        gen_numpy.laplace(1.0, 1.0, size=N)

    results = []

    def audit():
        results.append(dpcourse.audit_epsilon(laplace_count, 0.0, 1.0, N, rng=gen_audit))

    base_best = min(timeit.repeat(draw_only, number=1, repeat=REPEATS))
    audit_best = min(timeit.repeat(audit, number=1, repeat=REPEATS))
    print(f"numpy: draw 2 x 10^6 Laplace samples      : {base_best * 1e3:8.1f} ms (best of {REPEATS})")
    print(f"dpcourse.audit_epsilon, 10^6 per input    : {audit_best * 1e3:8.1f} ms (best of {REPEATS})"
          f"  (target < 5000 ms)")
    print(f"ratio audit / drawing alone               : {audit_best / base_best:8.1f}")
    print(f"lower bounds found (true epsilon = 1)     : "
          f"{', '.join(f'{r.lower_bound:.4f}' for r in results)}")


if __name__ == "__main__":
    main()
