"""Continual counting at full size: error against T (naive, tree, factorization) and the counter's speed.

Part 1, errors: for T = 2^4 .. 2^16, the largest RMSE over t <= T of each counter, exact (from the
variance functions) and measured (seeded runs over a stream with an event every third step), next to the
proved bounds: sqrt(2) T / eps (fresh), sqrt(2 T) / eps (increments), sqrt(2 L) L / eps (Laplace tree),
L / sqrt(2 rho) (Gaussian tree), S(T) / sqrt(2 rho) times the lattice factor (factorization), at eps = 1 and
rho = eps^2 / 2.

Part 2, speed: 10^6 events through one TreeCounter, one ``step`` call per event and one ``feed`` call, against
two baselines measured in the same run: drawing the 10^6 noise values alone, and a bare Python loop that
appends ``count + noise`` (the least a per-event Python call can cost).

Part 3, timing side channel (issue 35, item 1): the run time of ``factorization_counts`` and of its exact product
Q x alone, on two neighbouring streams, all zero and one event at the very end, at T = 2^16 and 2^18. Before the
fix the exact Q x wrote the stream as a Decimal without its leading zeros, so its cost followed the position of
the last event (at 2^18: 143 ms against 354-452 ms); the ratio should now be 1 up to the noise of the machine.
Each time is the minimum over ``--repeats`` alternating calls (CPU seconds of this process).

Usage: ``python benchmarks/bench_continual.py [--runs 40] [--steps 1000000] [--repeats 5] [--parts 123]``
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

import numpy as np

import dpcourse
from dpcourse.continual import _factorization_steps, _integer_factor, factorization_lattice


def errors(runs: int, eps: float = 1.0) -> None:
    rho = eps * eps / 2
    print(f"Part 1: largest RMSE over t <= T, exact / bound, and measured MSE / exact MSE pooled over all t "
          f"({runs} runs); eps = {eps}, rho = {rho}")
    print(f"{'T':>6} | {'fresh':>26} | {'increments':>22} | {'tree Laplace':>22} | {'tree Gauss':>22} | "
          f"{'factorization':>22}")
    gen = np.random.default_rng(2026)
    for k in range(4, 17, 2):
        T = 2**k
        t = np.arange(1, T + 1)
        x = (t % 3 == 0).astype(np.int64)
        c = np.cumsum(x)
        L = T.bit_length()
        S = dpcourse.factorization_sensitivity(T) ** 2
        lattice = factorization_lattice(T, rho)[2] / (math.sqrt(S) / math.sqrt(2 * rho))
        rows = [
            (dpcourse.naive_variance(t, T, eps), dpcourse.naive_counts(x, eps, runs=runs, rng=gen),
             math.sqrt(2) * T / eps),
            (dpcourse.naive_variance(t, T, eps, method="increments"),
             dpcourse.naive_counts(x, eps, method="increments", runs=runs, rng=gen), math.sqrt(2 * T) / eps),
            (dpcourse.tree_variance(t, T, eps), dpcourse.tree_counts(x, eps, runs=runs, rng=gen),
             math.sqrt(2 * L) * L / eps),
            (dpcourse.tree_variance(t, T, rho=rho), dpcourse.tree_counts(x, rho=rho, runs=runs, rng=gen),
             L / math.sqrt(2 * rho)),
            (dpcourse.factorization_variance(t, T, rho), dpcourse.factorization_counts(x, rho, runs=runs, rng=gen),
             S / math.sqrt(2 * rho) * lattice),
        ]
        cells = []
        for var, y, bound in rows:
            pooled = np.mean((y - c) ** 2) / np.mean(var)
            cells.append(f"{math.sqrt(var.max()):8.2f} / {bound:8.2f} / {pooled:5.3f}")
        print(f"{T:>6} | " + " | ".join(cells))
    print("(the pooled ratio's run-to-run spread is a few percent: 40 runs of T correlated answers)")


def speed(steps: int) -> None:
    print(f"\nPart 2: {steps:,} events through one TreeCounter (eps = 1); CPU seconds of this process "
          "(time.process_time, less sensitive than wall time to other jobs on the machine)")
    x = (np.random.default_rng(1).random(steps) < 0.25).astype(np.int64)
    values = x.tolist()
    levels = steps.bit_length()

    t0 = time.process_time()
    noise = dpcourse.discrete_laplace(Fraction(levels), size=steps, rng=1).tolist()
    t_noise = time.process_time() - t0

    t0 = time.process_time()
    out, count = [], 0
    for v, z in zip(values, noise):
        count += v
        out.append(count + z)
    t_loop = time.process_time() - t0

    counter = dpcourse.TreeCounter(steps, 1.0, rng=1)
    step = counter.step
    t0 = time.process_time()
    answers = [step(v) for v in values]
    t_step = time.process_time() - t0

    counter = dpcourse.TreeCounter(steps, 1.0, rng=1)
    t0 = time.process_time()
    fed = counter.feed(x)
    t_feed = time.process_time() - t0
    assert fed.tolist() == answers

    print(f"  noise alone (exact discrete Laplace, one vectorized draw): {t_noise:6.3f} s")
    print(f"  bare Python loop (count + noise, append):                  {t_loop:6.3f} s")
    print(f"  TreeCounter.step, one call per event:                      {t_step:6.3f} s "
          f"= {t_step / (t_noise + t_loop):.2f} x (noise + bare loop), {t_step / steps * 1e6:.2f} us per event")
    print(f"  TreeCounter.feed, one call:                                {t_feed:6.3f} s "
          f"= {t_feed / t_noise:.2f} x noise alone; same answers as step: True")


def neighbours_timing(repeats: int) -> None:
    print(f"\nPart 3: run time on neighbouring streams (all zero / one event at the end), minimum CPU seconds over "
          f"{repeats} alternating calls; rho = 0.5")
    print(f"{'T':>8} | {'what':<22} | {'all zero':>9} | {'last = 1':>9} | {'ratio':>6}")
    for T in (2**16, 2**18):
        zero = np.zeros(T, dtype=np.int64)
        last = zero.copy()
        last[-1] = 1
        exponent = factorization_lattice(T, 0.5)[0]
        _integer_factor(T)                                   # the public factor, cached: not part of the comparison
        calls = [("Q x (exact product)", lambda x: _factorization_steps(x, exponent)),
                 ("factorization_counts", lambda x: dpcourse.factorization_counts(x, 0.5, rng=1))]
        for name, call in calls:
            best = {"zero": math.inf, "last": math.inf}
            for _ in range(repeats):
                for key, x in (("zero", zero), ("last", last)):
                    t0 = time.process_time()
                    call(x)
                    best[key] = min(best[key], time.process_time() - t0)
            print(f"{T:>8} | {name:<22} | {best['zero']:9.3f} | {best['last']:9.3f} | "
                  f"{best['last'] / best['zero']:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--steps", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--parts", default="123", help="which parts to run, e.g. 3")
    args = parser.parse_args()
    if "1" in args.parts:
        errors(args.runs)
    if "2" in args.parts:
        speed(args.steps)
    if "3" in args.parts:
        neighbours_timing(args.repeats)


if __name__ == "__main__":
    main()
