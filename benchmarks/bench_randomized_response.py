"""Speed of dpcourse.randomized_response on 10**6 bits, against numpy alone and against a Python loop.

Target: randomizing a million bits is one vectorized call, within a small factor (validation of the
input included) of the bare numpy operations it is made of (one uniform draw per bit and an xor), and
far faster than looping over people in Python. All three are timed in the same run, best of several
repeats; run with ``python benchmarks/bench_randomized_response.py``.
"""

import math
import random
import timeit

import numpy as np

import dpcourse

N = 1_000_000
EPS = 1.0
REPEATS = 5


def main():
    bits = (np.arange(N) % 4 == 0).astype(np.int64)
    t = math.exp(EPS) / (1 + math.exp(EPS))
    gen_numpy = np.random.default_rng(1)
    gen_dp = np.random.default_rng(1)
    py_rng = random.Random(1)
    bit_list = bits.tolist()

    def numpy_only():
        np.bitwise_xor(bits, (gen_numpy.random(N) >= t).astype(np.int64))

    def dpcourse_call():
        dpcourse.randomized_response(bits, EPS, rng=gen_dp)

    def python_loop():
        [b if py_rng.random() < t else 1 - b for b in bit_list]

    base = min(timeit.repeat(numpy_only, number=1, repeat=REPEATS))
    ours = min(timeit.repeat(dpcourse_call, number=1, repeat=REPEATS))
    loop = min(timeit.repeat(python_loop, number=1, repeat=2))
    print(f"numpy alone (draw + xor), 10^6 bits   : {base * 1e3:8.1f} ms (best of {REPEATS})")
    print(f"dpcourse.randomized_response, 10^6 bits: {ours * 1e3:8.1f} ms (best of {REPEATS})")
    print(f"Python loop over people, 10^6 bits    : {loop * 1e3:8.1f} ms (best of 2)")
    print(f"ratio dpcourse / numpy alone: {ours / base:.2f}; Python loop / dpcourse: {loop / ours:.0f}")


if __name__ == "__main__":
    main()
