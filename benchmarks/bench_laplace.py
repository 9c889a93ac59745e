"""Speed of dpcourse.laplace_mechanism against numpy's Generator.laplace on 10**6 values.

Targets: the textbook path (``secure=False``) at most 1.5x numpy (the validation of the input and the
addition of the values are the only extra work); the default exact lattice path (``secure=True``) at
most 60x numpy. Both are timed in the same run, best of several repeats; run with
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
    dp_best = min(timeit.repeat(lambda: dpcourse.laplace_mechanism(values, 1.0, 0.5, rng=gen_dp, secure=False),
                                number=1, repeat=REPEATS))
    secure_best = min(timeit.repeat(lambda: dpcourse.laplace_mechanism(values, 1.0, 0.5, rng=gen_dp),
                                    number=1, repeat=5))
    print(f"numpy Generator.laplace, 10^6 values        : {numpy_best * 1e3:7.2f} ms (best of {REPEATS})")
    print(f"laplace_mechanism secure=False, 10^6        : {dp_best * 1e3:7.2f} ms (best of {REPEATS})")
    print(f"laplace_mechanism secure=True (default)     : {secure_best * 1e3:7.2f} ms (best of 5)")
    print(f"ratio secure=False / numpy                  : {dp_best / numpy_best:7.3f}  (target <= 1.5)")
    print(f"ratio secure=True / numpy                   : {secure_best / numpy_best:7.3f}  (target <= 60)")


if __name__ == "__main__":
    main()
