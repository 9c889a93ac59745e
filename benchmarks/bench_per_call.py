"""Per-call cost of the secure (exact) releases, and dp_mean at n = 10**6, against baselines in the same run.

Issue 24, "fast per call". Goals: one scalar secure ``laplace_mechanism``, ``gaussian_mechanism``,
``discrete_laplace``, ``discrete_gaussian`` or ``geometric_mechanism`` call under 20 us; ``dp_mean`` at 10**6
values within 3x of numpy's ``np.clip(x, lo, hi).mean()``. Baselines timed in the same process: numpy's
float samplers and one scalar ``Generator.integers`` call (the unit an exact sampler pays per integer draw:
the one-draw paths keep the random stream of the vectorized samplers, so they make the same number of such
calls, printed per release); diffprivlib and OpenDP when they import (not in the course's requirements).
Best of several repeats; run with ``python benchmarks/bench_per_call.py``.
"""

import timeit

import numpy as np

import dpcourse
from dpcourse import discrete

CALLS = 2000
REPEATS = 7
N = 1_000_000


class CountingGenerator(np.random.Generator):
    """A Generator that counts its ``integers`` calls (the exact samplers use no other method)."""

    calls = 0

    def integers(self, *args, **kwargs):
        CountingGenerator.calls += 1
        return super().integers(*args, **kwargs)


def per_call(fn, calls=CALLS):
    return min(timeit.repeat(fn, number=calls, repeat=REPEATS)) / calls * 1e6


def draws_per_release(release, n=4000):
    gen = CountingGenerator(np.random.PCG64(0))
    CountingGenerator.calls = 0
    for _ in range(n):
        release(gen)
    return CountingGenerator.calls / n


def baselines(gen):
    out = [("numpy Generator.laplace(3.0, 1.0)", per_call(lambda: gen.laplace(3.0, 1.0))),
           ("numpy Generator.normal(3.0, 4.0)", per_call(lambda: gen.normal(3.0, 4.0))),
           ("numpy Generator.integers(1000), one call", per_call(lambda: gen.integers(1000)))]
    try:
        from diffprivlib.mechanisms import Laplace
        mech = Laplace(epsilon=1.0, sensitivity=1.0, random_state=0)
        out.append(("diffprivlib Laplace.randomise(3.0)", per_call(lambda: mech.randomise(3.0))))
    except Exception as exc:   # not installed, or an incompatible scikit-learn
        print(f"(diffprivlib not measured: {type(exc).__name__})")
    try:
        import opendp.prelude as dp
        dp.enable_features("contrib")
        meas = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
        out.append(("OpenDP make_laplace(scale 1.0)(3.0)", per_call(lambda: meas(3.0), 200)))
    except Exception as exc:
        print(f"(OpenDP not measured: {type(exc).__name__})")
    return out


RELEASES = [
    ("laplace_mechanism(3.0, 1, 1)", lambda g: dpcourse.laplace_mechanism(3.0, 1, 1, rng=g)),
    ("gaussian_mechanism(3.0, 1, 1, 1e-5)", lambda g: dpcourse.gaussian_mechanism(3.0, 1, 1, 1e-5, rng=g)),
    ("discrete_laplace(2.5)", lambda g: discrete.discrete_laplace(2.5, rng=g)),
    ("discrete_gaussian(3)", lambda g: discrete.discrete_gaussian(3, rng=g)),
    ("discrete_gaussian(100.3)", lambda g: discrete.discrete_gaussian(100.3, rng=g)),
    ("geometric_mechanism(5, 1, 0.5)", lambda g: discrete.geometric_mechanism(5, 1, 0.5, rng=g)),
]


def main():
    gen = np.random.default_rng(1)
    base = baselines(gen)
    unit = dict(base)["numpy Generator.integers(1000), one call"]
    print("baselines (us per call)")
    for name, us in base:
        print(f"  {name:42s} {us:8.2f}")
    print("secure releases, scalar, rng = a Generator (us per call; goal < 20)")
    print(f"  {'':38s} {'us':>8s} {'integers calls':>15s} {'us / (calls x integers)':>24s}")
    for name, release in RELEASES:
        us = per_call(lambda: release(gen))
        draws = draws_per_release(release)
        print(f"  {name:38s} {us:8.2f} {draws:15.2f} {us / (draws * unit):24.2f}")

    x = np.random.default_rng(0).normal(5.0, 3.0, N)
    reps = 20
    numpy_ms = min(timeit.repeat(lambda: np.clip(x, 0.0, 10.0).mean(), number=reps, repeat=REPEATS)) / reps * 1e3
    dp_ms = min(timeit.repeat(lambda: dpcourse.dp_mean(x, 0.0, 10.0, 1.0, rng=gen), number=reps,
                              repeat=REPEATS)) / reps * 1e3
    print(f"dp_mean, n = 10^6, [0, 10], normal(5, 3) data")
    print(f"  numpy np.clip(x, 0, 10).mean()            {numpy_ms:8.2f} ms")
    print(f"  dpcourse.dp_mean (secure, exact sum)       {dp_ms:8.2f} ms")
    print(f"  ratio dp_mean / numpy                      {dp_ms / numpy_ms:8.2f}  (goal <= 3)")


if __name__ == "__main__":
    main()
