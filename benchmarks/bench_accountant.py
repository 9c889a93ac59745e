"""Speed of the privacy accountant on many distinct Gaussian events, against the old per-event algorithm.

``PrivacyAccountant.epsilon`` with 10**5 distinct Gaussian events (every sigma different), methods 'basic'
and 'rdp'. The accountant groups equal events, inverts the Gaussian profile for all distinct mu in one
vectorized Newton iteration ('basic') and adds the Gaussian RDP curves in closed form, alpha/2 sum n mu^2
('rdp'). The baseline, timed in the same run, is the algorithm the accountant used before (issue 10): one
scalar root search ``gaussian_epsilon`` per distinct event for 'basic', and an RDP curve that sums one
``rdp_gaussian`` call per event at every order the conversion looks at for 'rdp'. The baseline is linear in
the number of distinct events; it is timed on ``--baseline-events`` events (default 10**4, so the run takes
about a minute) and extrapolated linearly to 10**5, which the output says; ``--baseline-events 100000``
times it in full.

Each timing includes flattening the events (the accountant is built fresh for every query). Results agree
to 1e-9 relative. Run with ``python benchmarks/bench_accountant.py``.
"""

import argparse
import math
import time
from collections import Counter

import numpy as np

import dpcourse
from dpcourse import GaussianEvent, PrivacyAccountant, gaussian_epsilon, rdp_gaussian, rdp_to_epsilon

DELTA = 1e-5


def _events(n, seed=0):
    sigmas = np.random.default_rng(seed).uniform(20.0, 100.0, n)
    return [GaussianEvent(float(s)) for s in sigmas]


def old_basic(events, delta):
    """The per-event algorithm: flatten into a Counter, one scalar root search per distinct event."""
    counts = Counter(events)
    runs = sum(counts.values())
    d0 = delta / runs
    return sum(n * gaussian_epsilon(d0, e.mu) for e, n in counts.items())


def old_rdp(events, delta):
    """The per-event algorithm: the RDP curve is a Python sum of one rdp_gaussian term per distinct event."""
    counts = Counter(events)
    terms = [(e.mu, n) for e, n in counts.items()]
    return rdp_to_epsilon(lambda a: sum(n * rdp_gaussian(a, mu) for mu, n in terms), delta)[0]


def new(events, delta, method):
    return PrivacyAccountant(events).epsilon(delta, method)


def _best(fn, repeats):
    """Best wall-clock time and best CPU time of the process over ``repeats`` runs (the machine may be shared:
    the CPU time is what the computation costs, the wall time what a user waits on an idle machine at best)."""
    best, best_cpu, value = math.inf, math.inf, None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        value = fn()
        best, best_cpu = min(best, time.perf_counter() - t0), min(best_cpu, time.process_time() - c0)
    return best, best_cpu, value


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--baseline-events", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    big, small = _events(args.events), _events(args.baseline_events)
    scale = args.events / args.baseline_events
    print(f"dpcourse {dpcourse.__version__}: {args.events} distinct Gaussian events, delta = {DELTA:g}")
    print("times: best wall clock / CPU time of this process (seconds)")
    for method, old in (("basic", old_basic), ("rdp", old_rdp)):
        t_new_small, c_new_small, v_new_small = _best(lambda: new(small, DELTA, method), args.repeats)
        t_old_small, c_old_small, v_old_small = _best(lambda: old(small, DELTA), 1)
        t_new_big, c_new_big, v_new_big = _best(lambda: new(big, DELTA, method), args.repeats)
        rel = abs(v_new_small - v_old_small) / v_old_small
        print(f"{method:5s} new, {len(big):7d} events : {t_new_big:8.3f} / {c_new_big:8.3f}   epsilon = {v_new_big:.6g}")
        print(f"{method:5s} new, {len(small):7d} events : {t_new_small:8.3f} / {c_new_small:8.3f}   "
              f"epsilon = {v_new_small:.6g}")
        print(f"{method:5s} old, {len(small):7d} events : {t_old_small:8.3f} / {c_old_small:8.3f}   "
              f"epsilon = {v_old_small:.6g}   (agree to {rel:.1e} relative)   "
              f"CPU speed-up at equal size {c_old_small / c_new_small:5.0f}x")
        if scale != 1:
            print(f"{method:5s} old, {len(big):7d} events : {t_old_small * scale:8.1f} / {c_old_small * scale:8.1f}   "
                  f"(extrapolated linearly)   CPU speed-up {c_old_small * scale / c_new_big:5.0f}x")


if __name__ == "__main__":
    main()
