"""Speed of the Gaussian calibration and mechanism, each against a baseline timed in the same run.

1. ``dpcourse.analytic_gaussian_sigma`` (a root search over the exact privacy profile) against evaluating
   the classic closed-form formula once: the price of the exact calibration, per call.
2. ``dpcourse.gaussian_mechanism`` on 10**6 values (validation, analytic calibration, one vectorized draw)
   against numpy's ``Generator.normal`` drawing and adding the same noise with a known sigma. Target: a
   ratio close to 1, i.e. calibration and validation are negligible next to sampling.

Best of several repeats; run with ``python benchmarks/bench_gaussian.py``.
"""

import math
import timeit

import numpy as np

import dpcourse

N = 1_000_000
REPEATS = 7
CALLS = 200


def main():
    grid = [(e, d) for e in (0.05, 0.5, 3.0, 50.0) for d in (1e-9, 1e-5, 1e-2)]

    def classic():
        for e, d in grid:
            math.sqrt(2 * math.log(1.25 / d)) / e

    def analytic():
        for e, d in grid:
            dpcourse.analytic_gaussian_sigma(e, d)

    n_calls = CALLS * len(grid)
    t_classic = min(timeit.repeat(classic, number=CALLS, repeat=REPEATS)) / n_calls
    t_analytic = min(timeit.repeat(analytic, number=CALLS // 10, repeat=REPEATS)) / (n_calls // 10)
    print(f"classic formula, per call           : {t_classic * 1e6:9.2f} us")
    print(f"analytic_gaussian_sigma, per call   : {t_analytic * 1e6:9.2f} us   ratio {t_analytic / t_classic:7.0f}x")

    values = np.arange(N, dtype=float)
    sigma = dpcourse.analytic_gaussian_sigma(1.0, 1e-6, 3.0)
    gen_a, gen_b = np.random.default_rng(1), np.random.default_rng(1)

    def numpy_only():
        values + gen_a.normal(0.0, sigma, size=N)

    def mechanism():
        dpcourse.gaussian_mechanism(values, 3.0, 1.0, 1e-6, rng=gen_b)

    t_np = min(timeit.repeat(numpy_only, number=1, repeat=REPEATS))
    t_mech = min(timeit.repeat(mechanism, number=1, repeat=REPEATS))
    print(f"numpy normal + add, 10^6 values     : {t_np * 1e3:9.2f} ms")
    print(f"gaussian_mechanism, 10^6 values     : {t_mech * 1e3:9.2f} ms   ratio {t_mech / t_np:7.2f}x")


if __name__ == "__main__":
    main()
