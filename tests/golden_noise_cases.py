"""Seeded outputs of the secure samplers, pinned: the cases, and how each one's output is encoded.

A case makes only releases of one value (the one-draw paths) or only vectorized releases, from a fresh
seeded generator, so a change of one kind of stream leaves the other kind's cases alone.
``tests/data/golden_noise.json`` holds their outputs: the vectorized cases as computed by the code of commit
da9b8b9 (before the per-call fast paths of issue 24; a mixed case was split in two, its vectorized half computed
by the code of fd5bd80, which reproduced every da9b8b9 output), the one-value cases since those releases draw
their uniforms from the bit generator's raw words. ``tests/test_golden_noise.py`` recomputes them and
requires equality bit for bit, because the stored notebook outputs of the chapters depend on the random
streams. Regenerate the file only for a change that is *meant* to alter the streams:
``python tests/golden_noise_cases.py > tests/data/golden_noise.json``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

import dpcourse
from dpcourse import discrete

BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
SEEDS = tuple(range(12))


def _enc(out):
    """Exact, JSON-friendly encoding: ints as ints, floats as hex strings, arrays as nested lists."""
    if isinstance(out, (list, tuple)):
        return [_enc(o) for o in out]
    if isinstance(out, np.ndarray):
        return _enc(out.tolist())
    if isinstance(out, (bool, np.bool_)):
        return bool(out)
    if isinstance(out, (int, np.integer)):
        return int(out)
    return float(out).hex()


def _then(gen, *outs):
    """The outputs, followed by the generator's next raw-ish draw: pins the state the call left behind."""
    return list(outs) + [int(gen.integers(0, 2**62))]


def _mixed_data(seed, n):
    g = np.random.default_rng(1000 + seed)
    x = g.normal(3.0, 4.0, size=n)
    x[::7] *= 1e-12                    # tiny values: many exponents in the exact sum
    x[1::11] = 5e-324 * (1 + seed)     # subnormals
    x[2::13] = -50.0                   # clamped below
    return x


def cases():
    """(name, thunk) pairs; each thunk returns the output to pin."""
    out = []

    def add(name, fn):
        out.append((name, fn))

    dlap_scales = (0.3, 1, 2.5, Fraction(7, 3), 1e-3, 1000.5, 2**20 + 1, Fraction(2**61 + 1, 3), 2.0**40, 0.1)
    for scale in dlap_scales:
        for seed in SEEDS:
            def f(scale=scale, seed=seed):
                g = np.random.default_rng(seed)
                a = discrete.discrete_laplace(scale, rng=g)
                b = discrete.discrete_laplace(scale, rng=g)
                d = discrete.discrete_laplace(scale, size=1, rng=g)
                return _then(g, a, b, d)
            add(f"discrete_laplace({scale!r}) seed {seed}", f)

            def f(scale=scale, seed=seed):
                g = np.random.default_rng(seed)
                return _then(g, discrete.discrete_laplace(scale, size=4, rng=g))
            add(f"discrete_laplace({scale!r}, size=4) seed {seed}", f)
    sigmas = (0.5, 1, 3, 2.7, Fraction(5, 2), 100.3, 1e4, Fraction(10**9, 7), 2.0**-20, 1234567.25)
    for sigma in sigmas:
        for seed in SEEDS:
            def f(sigma=sigma, seed=seed):
                g = np.random.default_rng(seed)
                a = discrete.discrete_gaussian(sigma, rng=g)
                b = discrete.discrete_gaussian(sigma, rng=g)
                return _then(g, a, b)
            add(f"discrete_gaussian({sigma!r}) seed {seed}", f)

            def f(sigma=sigma, seed=seed):
                g = np.random.default_rng(seed)
                return _then(g, discrete.discrete_gaussian(sigma, size=(2, 2), rng=g))
            add(f"discrete_gaussian({sigma!r}, size=(2, 2)) seed {seed}", f)
    geo = ((10, 1, 1.0), (0, 2, 0.5), (-7, 1, 0.1), (2**64, 3, 2.0), ([3, 4, 5], 1, 1.0), (5, 1, 1e-9), (1, 1, 40.0))
    for value, sens, eps in geo:
        for seed in SEEDS:
            def f(value=value, sens=sens, eps=eps, seed=seed):
                g = np.random.default_rng(seed)
                a = discrete.geometric_mechanism(value, sens, eps, rng=g)
                b = discrete.geometric_mechanism(value, sens, eps, rng=g)
                return _then(g, a, b)
            add(f"geometric_mechanism({value!r}, {sens}, {eps}) seed {seed}", f)
    lap = ((3.0, 1, 1), (42, 1, 0.5), (0.0, 1e-6, 3.0), (-1e300, 1e290, 0.7), (1e-300, 1.0, 1e-7), (2.5, 7.0, 1e4),
           ([1.0, 2.0, 3.0], 2.0, 1.0), (np.linspace(-5, 5, 12).reshape(3, 4), 1.0, 0.3))
    for value, sens, eps in lap:
        for seed in SEEDS:
            def f(value=value, sens=sens, eps=eps, seed=seed):
                g = np.random.default_rng(seed)
                a = dpcourse.laplace_mechanism(value, sens, eps, rng=g)
                b = dpcourse.laplace_mechanism(value, sens, eps, rng=g)
                return _then(g, a, b)
            add(f"laplace_mechanism({np.asarray(value).tolist()!r}, {sens}, {eps}) seed {seed}", f)
    gau = ((3.0, 1, 1, 1e-5), (42, 2.0, 0.5, 1e-6), (0.0, 1e-6, 3.0, 1e-9), (1e200, 1e190, 0.2, 1e-3),
           ([1.0, 2.0, 3.0], 2.0, 1.0, 1e-5), (2.5, 1.0, 50.0, 0.1))
    for value, sens, eps, delta in gau:
        for seed in SEEDS:
            def f(value=value, sens=sens, eps=eps, delta=delta, seed=seed):
                g = np.random.default_rng(seed)
                a = dpcourse.gaussian_mechanism(value, sens, eps, delta, rng=g)
                b = dpcourse.gaussian_mechanism(value, sens, eps, delta, rng=g)
                return _then(g, a, b)
            add(f"gaussian_mechanism({value!r}, {sens}, {eps}, {delta}) seed {seed}", f)
    for n in (1, 2, 7, 100, 5000):
        for lo, hi, eps in ((0.0, 10.0, 1.0), (-20.0, 20.0, 0.25), (-1e-10, 1e-10, 2.0), (-2.0**999, 2.0**999, 1.0)):
            for seed in SEEDS[:4]:
                def f(n=n, lo=lo, hi=hi, eps=eps, seed=seed):
                    x = _mixed_data(seed, n)
                    g = np.random.default_rng(seed)
                    a = dpcourse.dp_mean(x, lo, hi, eps, rng=g)
                    c = dpcourse.dp_mean(x * 1e250, lo, hi, eps, rng=g)
                    return _then(g, a, c)
                add(f"dp_mean(n={n}, {lo}, {hi}, {eps}) seed {seed}", f)

                def f(n=n, lo=lo, hi=hi, eps=eps, seed=seed):
                    g = np.random.default_rng(seed)
                    return _then(g, dpcourse.dp_mean(_mixed_data(seed, n), lo, hi, eps, rng=g, size=3))
                add(f"dp_mean(n={n}, {lo}, {hi}, {eps}, size=3) seed {seed}", f)
    for name in BIT_GENERATORS:
        for seed in SEEDS[:4]:
            def f(name=name, seed=seed):
                g = np.random.Generator(getattr(np.random, name)(seed))
                return _then(g, dpcourse.laplace_mechanism(3.0, 1, 1, rng=g),
                             dpcourse.gaussian_mechanism(3.0, 1, 1, 1e-5, rng=g),
                             discrete.discrete_laplace(2.5, rng=g), discrete.discrete_gaussian(3, rng=g),
                             discrete.geometric_mechanism(5, 1, 0.5, rng=g), dpcourse.dp_mean([1.0, 2.0], 0, 4, 1, rng=g),
                             discrete.discrete_laplace(Fraction(2**61 + 1, 3), rng=g))
            add(f"{name} seed {seed}", f)
    return out


def compute():
    return {name: _enc(fn()) for name, fn in cases()}


if __name__ == "__main__":
    print(json.dumps(compute(), indent=0, sort_keys=True))
