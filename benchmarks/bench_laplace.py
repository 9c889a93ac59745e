"""Speed of dpcourse.laplace_mechanism against numpy's Generator.laplace on 10**6 values.

Target: at most 1.5x numpy (the validation of the input and the addition of the values are the only
extra work). Both are timed in the same run, best of several repeats; run with
``python benchmarks/bench_laplace.py``.
"""

import timeit

import numpy as np

import dpcourse

N = 1_000_000
REPEATS = 15


def main():
    values = np.random.default_rng(0).normal(size=N)
    gen_numpy = np.random.default_rng(1)
    gen_dp = np.random.default_rng(1)
    numpy_best = min(timeit.repeat(lambda: gen_numpy.laplace(0.0, 2.0, size=N), number=1, repeat=REPEATS))
    dp_best = min(timeit.repeat(lambda: dpcourse.laplace_mechanism(values, 1.0, 0.5, rng=gen_dp),
                                number=1, repeat=REPEATS))
    print(f"numpy Generator.laplace, 10^6 values : {numpy_best * 1e3:7.2f} ms (best of {REPEATS})")
    print(f"dpcourse.laplace_mechanism, 10^6     : {dp_best * 1e3:7.2f} ms (best of {REPEATS})")
    print(f"ratio dpcourse / numpy               : {dp_best / numpy_best:7.3f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
