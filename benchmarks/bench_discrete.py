"""Speed of the exact samplers of dpcourse.discrete against baselines measured in the same run.

Targets (issue 9): ``discrete_laplace`` and ``discrete_gaussian`` at most 1 microsecond a sample on
10**6 samples; the secure ``laplace_mechanism`` on 10**6 values at most 60x numpy's float
``Generator.laplace``; ``secure=False`` at most 1.5x (see also bench_laplace.py). Baselines: numpy's
float samplers (not exact, the speed to beat) and a Python loop of the literal algorithm of Canonne,
Kamath & Steinke (2020), one sample at a time with Python's exact ``random.randrange`` draws, timed on fewer samples and
reported per sample. Run with ``python benchmarks/bench_discrete.py``.
"""

import math
import random
import timeit
from fractions import Fraction

import numpy as np

import dpcourse

N = 1_000_000
LOOP_N = 20_000
REPEATS = 5


def best(fn, repeats=REPEATS):
    return min(timeit.repeat(fn, number=1, repeat=repeats))


# ---------------------------------------------------------------- the literal algorithms, one sample at a time


def _bern(num, den, gen):
    return gen.randrange(den) < num


def _bern_exp(gamma: Fraction, gen) -> bool:
    while gamma > 1:
        if not _bern_exp(Fraction(1), gen):
            return False
        gamma -= 1
    k = 1
    while _bern(gamma.numerator, gamma.denominator * k, gen):
        k += 1
    return k % 2 == 1


def literal_dlap(scale: Fraction, gen) -> int:
    t, s = scale.numerator, scale.denominator
    while True:
        u = gen.randrange(t)
        if not _bern_exp(Fraction(u, t), gen):
            continue
        v = 0
        while _bern_exp(Fraction(1), gen):
            v += 1
        y = (u + t * v) // s
        b = gen.randrange(2)
        if b == 1 and y == 0:
            continue
        return -y if b else y


def literal_dgauss(sigma: Fraction, gen) -> int:
    var = sigma * sigma
    t = math.isqrt(var.numerator // var.denominator) + 1
    while True:
        y = literal_dlap(Fraction(t), gen)
        if _bern_exp((abs(y) - var / t) ** 2 / (2 * var), gen):
            return y


def main():
    gen = np.random.default_rng(1)
    numpy_lap = best(lambda: gen.laplace(0.0, 1.0, size=N))
    numpy_norm = best(lambda: gen.normal(0.0, 1.0, size=N))
    print(f"baseline numpy Generator.laplace, 10^6 : {numpy_lap * 1e3:8.1f} ms ({numpy_lap / N * 1e9:5.1f} ns/sample)")
    print(f"baseline numpy Generator.normal,  10^6 : {numpy_norm * 1e3:8.1f} ms ({numpy_norm / N * 1e9:5.1f} ns/sample)")
    print()
    print("sampler               param        us/sample   x numpy   x literal loop   (target <= 1 us/sample)")
    for name, fn, literal, params, base in [
        ("discrete_laplace", dpcourse.discrete_laplace, literal_dlap, [1, 10, 0.1, 1000], numpy_lap),
        ("discrete_gaussian", dpcourse.discrete_gaussian, literal_dgauss, [1, 10, 3.7, 1000], numpy_norm),
    ]:
        for p in params:
            t = best(lambda: fn(p, size=N, rng=gen))
            py = random.Random(1)
            t_loop = best(lambda: [literal(Fraction(p), py) for _ in range(LOOP_N)], repeats=1) / LOOP_N
            print(f"{name:20s} {p!s:>8s}    {t / N * 1e6:9.3f}   {t / base:7.1f}   {t_loop / (t / N):10.0f}")
    print()
    values = np.random.default_rng(0).normal(size=N)
    secure = best(lambda: dpcourse.laplace_mechanism(values, 1.0, 0.5, rng=gen))
    textbook = best(lambda: dpcourse.laplace_mechanism(values, 1.0, 0.5, rng=gen, secure=False))
    numpy_lap2 = best(lambda: gen.laplace(0.0, 2.0, size=N))
    print(f"laplace_mechanism secure, 10^6 values    : {secure * 1e3:8.1f} ms, {secure / numpy_lap2:6.1f}x numpy "
          f"(target <= 60)")
    print(f"laplace_mechanism secure=False, 10^6     : {textbook * 1e3:8.1f} ms, {textbook / numpy_lap2:6.2f}x numpy "
          f"(target <= 1.5)")
    g_secure = best(lambda: dpcourse.gaussian_mechanism(values, 1.0, 1.0, 1e-6, rng=gen))
    g_textbook = best(lambda: dpcourse.gaussian_mechanism(values, 1.0, 1.0, 1e-6, rng=gen, secure=False))
    print(f"gaussian_mechanism secure, 10^6 values   : {g_secure * 1e3:8.1f} ms, {g_secure / numpy_norm:6.1f}x numpy")
    print(f"gaussian_mechanism secure=False, 10^6    : {g_textbook * 1e3:8.1f} ms, {g_textbook / numpy_norm:6.2f}x numpy")


if __name__ == "__main__":
    main()
