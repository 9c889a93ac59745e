"""Speed of the vectorized selection samplers against per-draw Python loops, 20 000 draws of 50 candidates.

Target: drawing many indices is one vectorized call, at least 20x faster than a loop of single draws
for the exponential mechanism, and at least 10x for permute-and-flip (the loop stops at the first heads,
after a few coins; the vectorized version flips a coin for every candidate of every run).
Baselines timed in the same run: a loop calling ``Generator.choice(m, p=p)`` once per draw (exponential
mechanism) and a loop running permute-and-flip literally (one shuffle, then coins until heads) per
draw. Best of several repeats; run with ``python benchmarks/bench_selection.py``.

Second part (issue 24): each secure (exact, default) selection against its float version (``secure=False``)
at 10**3 candidates and 10**4 draws, goal secure/float <= 20x; and the reachability check, exactly (no
sampling, ``dpcourse.selection_support``): over neighbouring pairs of utilities ``[0, -g]`` and ``[0, -g-1]``
(g on a grid from 0 to 2000), how many candidates are possible under one input and impossible under the
other, secure (goal 0) and float; for randomized response, whether a flip is possible at each epsilon.
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



def secure_versus_float(m=1000, n=10_000, repeats=3):
    u = np.random.default_rng(0).normal(0, 5, size=m)
    rows = {}
    for f in (dpcourse.exponential_mechanism, dpcourse.permute_and_flip, dpcourse.report_noisy_max):
        t = {}
        for secure in (True, False):
            gen = np.random.default_rng(2)
            t[secure] = min(timeit.repeat(lambda: f(u, 1.0, 1.0, rng=gen, size=n, secure=secure), number=1,
                                          repeat=repeats))
        rows[f.__name__] = t
        print(f"{f.__name__:<22} m = {m}, {n} draws: secure {t[True] * 1e3:8.1f} ms, float {t[False] * 1e3:8.1f} ms,"
              f" ratio {t[True] / t[False]:5.1f}x (goal <= 20x)")
    bits = np.arange(10**6) % 2
    t = {s: min(timeit.repeat(lambda: dpcourse.randomized_response(bits, 1.0, rng=3, secure=s), number=1,
                              repeat=repeats)) for s in (True, False)}
    print(f"{'randomized_response':<22} 10^6 bits: secure {t[True] * 1e3:8.1f} ms, float {t[False] * 1e3:8.1f} ms, "
          f"ratio {t[True] / t[False]:5.1f}x")
    return rows


def reachability():
    grid = np.arange(0.0, 2000.0, 0.5)
    for mech in ("exponential", "permute_and_flip", "noisy_max"):
        counts = {}
        for secure in (True, False):
            c = 0
            for g in grid:
                a = dpcourse.selection_support([0.0, -g], 1.0, 1.0, mechanism=mech, secure=secure)
                b = dpcourse.selection_support([0.0, -g - 1.0], 1.0, 1.0, mechanism=mech, secure=secure)
                c += int((a != b).sum())
            counts[secure] = c
        print(f"reachability {mech:<17}: {counts[True]} outputs possible under one input and impossible under its "
              f"neighbour (secure: full support by theorem sel-thm-secure-selection, which selection_support "
              f"returns, not a measurement), {counts[False]} (float, computed), over {grid.size} pairs")
    from fractions import Fraction
    from dpcourse.exact_uniform import logistic_bounds
    eps = [0.5, 1.0, 10.0, 37.0, 38.0, 40.0, 100.0, 700.0]
    secure_flip = sum(logistic_bounds(Fraction(e), 4096)[1] < 1 << 4096 for e in eps)
    float_flip = sum(dpcourse.rr_truth_probability(e) < 1.0 for e in eps)
    print(f"reachability randomized_response: a flip is possible at {secure_flip} of {len(eps)} epsilons (secure; "
          f"reports impossible under a neighbour: {2 * (len(eps) - secure_flip)}), at {float_flip} (float: "
          f"{2 * (len(eps) - float_flip)} impossible reports)")


if __name__ == "__main__":
    main()
    secure_versus_float()
    reachability()
