"""Speed of the local frequency oracles of dpcourse.local_dp, against numpy drawing the same number of variates.

Targets of issue 17: 10**5 users over a 1,024-value domain in < 2 s for each oracle, and 10**6 users for
k-RR and OLH in < 2 s. Each randomizer is timed (best of a few repeats) beside a baseline measured in the
same run: ``Generator.random`` drawing as many float variates as the oracle needs coins (k-RR: 2 per user,
a coin and an other value; unary encoding: d per user; OLH: 4 per user, a, b, a coin and an other value).
The estimators are timed too (OLH's counts the support of every one of the d values: O(n d) work).
Last, the coins' 64-bit words under each numpy bit generator, against the raw words they replaced.
Run with ``python benchmarks/bench_local_dp.py``.
"""

import timeit

import numpy as np

import dpcourse

EPS = 1.0
D = 1024
REPEATS = 3


def best(fn, repeat=REPEATS):
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def main():
    rows = []
    for n in (100_000, 1_000_000):
        values = np.random.default_rng(0).integers(0, D, n)
        gen_base = np.random.default_rng(1)
        gen = np.random.default_rng(2)
        cases = [("k-RR", dpcourse.krr, {}, 2), ("OLH", dpcourse.local_hashing, {}, 4)]
        if n == 100_000:
            cases += [("OUE", dpcourse.unary_encoding, {}, D),
                      ("SUE", dpcourse.unary_encoding, {"optimized": False}, D)]
        for name, fn, kw, per_user in cases:
            t_oracle = best(lambda: fn(values, D, EPS, rng=gen, **kw))
            t_numpy = best(lambda: gen_base.random(n * per_user))
            reports = fn(values, D, EPS, rng=gen, **kw)
            if name == "k-RR":
                t_est = best(lambda: dpcourse.krr_estimate(reports, D, EPS))
            elif name == "OLH":
                t_est = best(lambda: dpcourse.local_hashing_estimate(reports, D, EPS), repeat=1)
            else:
                t_est = best(lambda: dpcourse.unary_encoding_estimate(reports, D, EPS, optimized=not kw))
            rows.append((name, n, t_oracle, t_numpy, t_est))
    print(f"d = {D}, epsilon = {EPS}; times are the best of {REPEATS} (OLH estimate: 1 run)")
    print(f"{'oracle':6s} {'users':>9s} {'randomize':>11s} {'numpy same #':>13s} {'ratio':>6s} {'estimate':>10s}")
    for name, n, t_o, t_n, t_e in rows:
        print(f"{name:6s} {n:9,d} {t_o * 1e3:9.1f}ms {t_n * 1e3:11.1f}ms {t_o / t_n:6.2f} {t_e * 1e3:8.1f}ms")


def coin_words(size=4_000_000):
    """The coins' 64-bit words: Generator.integers(0, 2**64, uint64) (exact for every bit generator) against the
    bit generator's random_raw (what the coins used before issue 21: 32-bit words under MT19937)."""
    print(f"\n64-bit coin words, {size:,} draws (best of {REPEATS}); ratio = integers / random_raw")
    for bit_generator in (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64):
        gen = np.random.Generator(bit_generator(0))
        t_int = best(lambda: gen.integers(0, 2**64, size=size, dtype=np.uint64))
        t_raw = best(lambda: gen.bit_generator.random_raw(size))
        t_krr = best(lambda: dpcourse.krr(np.zeros(size // 4, dtype=np.int64), D, EPS, rng=gen))
        print(f"{bit_generator.__name__:10s} integers {t_int * 1e3:7.1f}ms  random_raw {t_raw * 1e3:7.1f}ms  "
              f"ratio {t_int / t_raw:5.2f}   k-RR of {size // 4:,} users {t_krr * 1e3:7.1f}ms")


if __name__ == "__main__":
    main()
    coin_words()
