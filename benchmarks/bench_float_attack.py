"""Mironov's attack on dpcourse.laplace_mechanism at full size: 10**6 draws per input, before and after.

For the count pair 0, 1 (sensitivity 1, epsilon 1) the script prints, for the textbook float sampler
(``secure=False``) and for the lattice release (``secure=True``, the default):

* the fraction of the 10**6 outputs of input 0 that are impossible from input 1, decided exactly
  (:func:`dpcourse.float_attack.textbook_reachable`, :func:`dpcourse.float_attack.lattice_reachable`);
* the epsilon that :func:`dpcourse.audit_epsilon` certifies with 10**6 draws per input, on the event
  "impossible from input 1" and on threshold events;
* the time of each step as a ratio to numpy's ``Generator.laplace`` drawing the same 10**6 values in the
  same run.

Issue 9 expects about 82% impossible outputs and a certified epsilon far above 1 before, and 0% and no
refutation of epsilon = 1 after. Run with ``python benchmarks/bench_float_attack.py`` (about two
minutes on two cores; the exact reachability check evaluates the C library's log 53 times per output).
"""

import time

import numpy as np

import dpcourse
from dpcourse import float_attack

N = 1_000_000
SEED = 2026


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def main():
    _, base = timed(lambda: np.random.default_rng(SEED).laplace(0.0, 1.0, size=N))
    print(f"baseline: numpy Generator.laplace, {N:,} draws: {base:.3f} s")
    for secure in (False, True):
        label = "secure=True (lattice)" if secure else "secure=False (textbook)"
        rng = np.random.default_rng(SEED)
        out0, t_draw = timed(lambda: dpcourse.laplace_mechanism(np.zeros(N), 1.0, 1.0, rng=rng, secure=secure))
        if secure:
            spacing = dpcourse.laplace_lattice(1.0, 1.0, dim=N).spacing
            possible, t_check = timed(lambda: float_attack.lattice_reachable(out0, spacing))
        else:
            possible, t_check = timed(lambda: float_attack.textbook_reachable(out0, 1.0, 1.0, 1.0))
        print(f"\n{label}")
        print(f"  outputs of input 0 impossible from input 1: {1 - possible.mean():.2%} of {N:,} "
              f"(draw {t_draw / base:.1f}x baseline, exact check {t_check / base:.0f}x)")
        mech = float_attack.impossible_output_mechanism(1.0, 1.0, 1.0, secure=secure)
        res, t_audit = timed(lambda: dpcourse.audit_epsilon(mech, 0, 1, N, rng=SEED))
        print(f"  audit, event 'impossible from 1': eps >= {res.lower_bound:.3f} "
              f"(refutes eps = 1: {res.refutes(1.0)}; {t_audit / base:.0f}x baseline)")

        def count(c, rng, size=None, secure=secure):
            return dpcourse.laplace_mechanism(np.full(size, float(c)), 1.0, 1.0, rng=rng, secure=secure)

        res, t_audit = timed(lambda: dpcourse.audit_epsilon(count, 0, 1, N, rng=SEED))
        print(f"  audit, threshold events:          eps >= {res.lower_bound:.3f} "
              f"(refutes eps = 1: {res.refutes(1.0)}; {t_audit / base:.0f}x baseline)")


if __name__ == "__main__":
    main()
