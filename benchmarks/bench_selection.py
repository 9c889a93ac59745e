"""Speed of the vectorized selection samplers against per-draw Python loops, 20 000 draws of 50 candidates.

Target: drawing many indices is one vectorized call, at least 20x faster than a loop of single draws
for the exponential mechanism, and at least 10x for permute-and-flip (the loop stops at the first heads,
after a few coins; the vectorized version flips a coin for every candidate of every run).
Baselines timed in the same run: a loop calling ``Generator.choice(m, p=p)`` once per draw (exponential
mechanism) and a loop running permute-and-flip literally (one shuffle, then coins until heads) per
draw. Best of several repeats; run with ``python benchmarks/bench_selection.py``.
"""

import timeit

import numpy as np

import dpcourse

N = 20_000
M = 50
REPEATS = 3


def main():
    u = np.random.default_rng(0).normal(0, 5, size=M)
    eps, sens = 1.0, 1.0
    p_em = dpcourse.exponential_probabilities(u, sens, eps)
    p_coin = np.exp(eps * (u - u.max()) / (2 * sens))
    gen = np.random.default_rng(1)

    def em_loop():
        return [gen.choice(M, p=p_em) for _ in range(N)]

    def pf_loop():
        out = []
        for _ in range(N):
            for r in gen.permutation(M):
                if gen.random() < p_coin[r]:
                    out.append(r)
                    break
        return out

    timings = {
        "exponential_mechanism(size=N)": lambda: dpcourse.exponential_mechanism(u, sens, eps, rng=gen, size=N),
        "loop of N Generator.choice": em_loop,
        "permute_and_flip(size=N)": lambda: dpcourse.permute_and_flip(u, sens, eps, rng=gen, size=N),
        "loop of N literal permute-and-flip": pf_loop,
        "report_noisy_max(size=N), Laplace": lambda: dpcourse.report_noisy_max(u, sens, eps, rng=gen, size=N),
    }
    best = {name: min(timeit.repeat(f, number=1, repeat=REPEATS)) for name, f in timings.items()}
    for name, t in best.items():
        print(f"{name:<38}: {t * 1e3:9.1f} ms (best of {REPEATS}, N = {N}, m = {M})")
    print(f"speed-up exponential mechanism vs loop : {best['loop of N Generator.choice'] / best['exponential_mechanism(size=N)']:9.0f}x"
          "  (target >= 20x)")
    print(f"speed-up permute-and-flip vs loop      : {best['loop of N literal permute-and-flip'] / best['permute_and_flip(size=N)']:9.0f}x"
          "  (target >= 10x)")


if __name__ == "__main__":
    main()
