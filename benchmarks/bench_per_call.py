"""Per-call cost of the secure (exact) releases, and dp_mean at n = 10**6, against baselines in the same run.

Issue 24, "fast per call". Goals: one scalar secure ``laplace_mechanism``, ``gaussian_mechanism``,
``discrete_laplace``, ``discrete_gaussian`` or ``geometric_mechanism`` call under 20 us; ``dp_mean`` at 10**6
values within 3x of numpy's ``np.clip(x, lo, hi).mean()``. Baselines timed in the same process: numpy's
float samplers, one scalar ``Generator.integers`` call and one ``bit_generator.random_raw()`` call (the
units an exact sampler pays per uniform integer: a release of one value draws its uniforms from raw words,
``dpcourse.discrete._release_uniforms``, and the same release with ``Generator.integers`` as its source,
as before that change, is timed beside it: a PCG64 subclass falls back to it); diffprivlib and OpenDP when
they import (not in the course's requirements). Per release it prints the uniform integers asked for and the raw 64-bit words
drawn. Best of several repeats on an idle core (check ``uptime``); run with
``python benchmarks/bench_per_call.py``.
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


class PCG64Subclass(np.random.PCG64):
    """Not one of numpy's five bit generators by exact type: the one-draw paths use ``Generator.integers``."""


def integers_generator(seed):
    """A Generator whose releases of one value draw with ``Generator.integers`` (the source before raw words)."""
    return CountingGenerator(PCG64Subclass(seed))


def per_call(fn, calls=CALLS):
    return min(timeit.repeat(fn, number=calls, repeat=REPEATS)) / calls * 1e6


def draws_per_release(release, n=4000):
    """Mean number of uniform integers a release asks for (the same algorithm with either source)."""
    gen = integers_generator(0)
    CountingGenerator.calls = 0
    for _ in range(n):
        release(gen)
    return CountingGenerator.calls / n


def words_per_release(release, n=4000):
    """Mean number of raw 64-bit words a release draws, read off Philox's counter (4 words per step)."""
    bg = np.random.Philox(0)
    gen = np.random.Generator(bg)

    def position(state):
        counter = state["state"]["counter"]
        return 4 * (int(counter[0]) + (int(counter[1]) << 64)) + state["buffer_pos"]

    start = position(bg.state)
    for _ in range(n):
        release(gen)
    return (position(bg.state) - start) / n


def baselines(gen):
    out = [("numpy Generator.laplace(3.0, 1.0)", per_call(lambda: gen.laplace(3.0, 1.0))),
           ("numpy Generator.normal(3.0, 4.0)", per_call(lambda: gen.normal(3.0, 4.0))),
           ("numpy Generator.integers(1000), one call", per_call(lambda: gen.integers(1000))),
           ("numpy bit_generator.random_raw(), one call", per_call(gen.bit_generator.random_raw))]
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
    print("secure releases, scalar (us per call; goal < 20): uniforms from raw words (now) and from")
    print("Generator.integers (before); uniform integers asked for and raw words drawn per release")
    print(f"  {'':38s} {'raw words':>10s} {'integers':>9s} {'before/now':>10s} {'uniforms':>9s} {'words':>7s}")
    before = np.random.Generator(PCG64Subclass(1))
    for name, release in RELEASES:
        us = per_call(lambda: release(gen))
        us_before = per_call(lambda: release(before))
        print(f"  {name:38s} {us:10.2f} {us_before:9.2f} {us_before / us:10.2f} {draws_per_release(release):9.2f} "
              f"{words_per_release(release):7.2f}")
    print(f"  (one Generator.integers call: {unit:.2f} us)")

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
