"""DP-SGD: speed of one epoch, and the accountant against Google's dp_accounting on the full grid.

Part 1 (``--part epoch``): one epoch of ``dpcourse.dp_logistic_regression(method="dpsgd")`` on n = 20,000,
d = 20 (expected batch 256, so about 78 steps; the noise multiplier is calibrated once beforehand and
cached, so the timing is the training loop: Poisson sampling, vectorized per-example gradients and
clipping, noise, update). Baseline in the same run: the same loop without clipping and noise (a plain
minibatch SGD epoch on the same Poisson batches). Prints the median of 7 runs of each and their ratio.

Part 2 (``--part grid``): ``dpcourse.dpsgd_epsilon`` (methods "pld" and "rdp") against dp_accounting 0.6.0's
PLD accountant (add/remove, its default grid 1e-4, connect-the-dots) over
q in {0.004, 0.01, 0.05, 0.1}, sigma in {0.8, 1, 1.5, 2, 3, 5}, steps in {1, 10, 100, 1000, 5000, 15000},
delta = 1e-5; at q = 1 the reference is the exact Gaussian composition (dp_accounting needed more than
4 GB of memory and minutes per setting there) and our FFT path is timed instead of the closed form.
``--q`` restricts the grid to some sampling rates. Prints the worst relative differences, whether ours is
ever below the reference by more than 1%, whether RDP is ever below PLD, and the total time of each
accountant. Takes several minutes (measured 2026-11-25, tilted-FFT PLD: the 144 settings with q < 1 agree
within [-0.14%, +0.09%]; RDP above PLD in all of them).

Part 3 (``--part smallq``): where users calibrate for long training, q = 0.001, 10^5 steps,
delta in {1e-5, 1e-9}, sigma in {0.5, 0.6, 0.65, 0.75, 0.8, 1.0}: ``dpsgd_epsilon`` ("pld" and "rdp")
against dp_accounting 0.6.0's PLD accountant (add/remove, grid 1e-4). Prints each epsilon, the ratio
ours / reference, whether ours is monotone in sigma, and the calibrated sigma of
``dpsgd_noise_multiplier(0.001, 10**5, 8.0, 1e-9)`` with its epsilon and that of sigma (1 - 1e-3).
The reference values stored in ``tests/test_subsampling.py`` (``SMALL_Q_REFERENCE``) are the ones this
part prints (recompute them with it after upgrading dp_accounting). Takes about two minutes.

Part 4 (``--part delta``): the accountant's answer the other way round, ``PrivacyAccountant.delta(epsilon,
method)`` for a Poisson-sampled Gaussian, against dp_accounting 0.6.0's ``get_delta`` (PLD on its 1e-4 grid; RDP
at the same integer orders up to 256), with the time of each. ``tests/test_subsampling.py`` checks 1% (PLD) and
1e-9 (RDP) on three of these settings.

Facts that the docstrings of ``dpcourse.subsampled_gaussian`` used to hold, measured by this script:

* ``dpsgd_epsilon(method="pld")`` against dp_accounting's PLD (grid 1e-4): within [-0.14%, +0.09%] on the grid of
  part 2 (q from 0.004 to 0.1, sigma from 0.8 to 5, up to 15,000 steps, delta = 1e-5) and within
  [-0.014%, +0.002%] at q = 0.001, 10^5 steps, sigma from 0.5 to 1, delta 1e-5 and 1e-9 (part 3); a grid spacing
  of 1e-3 instead gives epsilon 2% above the converged value at q = 0.001, 10^5 steps.
* ``method="rdp"`` is above the PLD's epsilon in all 156 settings of part 2, by 6% to 89% from 1,000 steps on and
  by up to 17 times for a single step.
* ``dpsgd_noise_multiplier``: about 15 queries of ``dpsgd_epsilon``; with "pld" each costs in proportion to the loss
  grid, which grows like 1/sigma^2 (1.2e5 points at sigma = 0.095), hence ``MIN_NOISE_MULTIPLIER = 0.125``: q = 1e-6,
  10 steps, epsilon = 1, delta = 1e-5 needs sigma = 0.095 and took 6 s on an idle core, 19 s on a shared one. A
  target no sigma up to 1e6 reaches is refused after one query at 1e6 (0.05 s at q = 0.5 and 10**6 steps, where
  doubling sigma up to the cap took 20 queries and 20 s; up to about 1.5 s at q <= 1e-4 and 10**6 steps).
* Method "pld" at its cap ``PLD_MAX_RUNS`` = 10**6 subsampled runs: about 5 s per query on 2 cores.

Run with ``python benchmarks/bench_dpsgd.py`` (all parts) or ``--part epoch`` / ``grid`` / ``smallq`` / ``delta``.
"""

import argparse
import itertools
import math
import time

import numpy as np
from scipy import special

from dpcourse import dp_logistic_regression, dpsgd_epsilon, dpsgd_noise_multiplier, gaussian_epsilon
from dpcourse import GaussianEvent, PoissonSampledEvent, PrivacyAccountant
from dpcourse.subsampled_gaussian import _INTEGER_ORDERS, _pld_epsilon


def plain_epoch(X, y, q, lr, gen):
    """Non-private minibatch SGD epoch on Poisson batches (the baseline)."""
    n, d = X.shape
    s = 2.0 * y - 1.0
    w = np.zeros(d)
    for _ in range(int(round(1 / q))):
        mask = gen.random(n) < q
        Xb, sb = X[mask], s[mask]
        coef = -sb * special.expit(-sb * (Xb @ w))
        w -= lr * ((coef @ Xb) / (q * n) + 1e-4 * w)
    return w


def part_epoch():
    gen = np.random.default_rng(0)
    n, d = 20_000, 20
    X = gen.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (gen.random(n) < special.expit(3 * X[:, 0])).astype(int)
    q = 256 / n
    dpsgd_noise_multiplier(q, steps=int(round(1 / q)), epsilon=1.0, delta=1e-5)  # calibrate once (cached)
    t_dp, t_plain = [], []
    for r in range(7):
        t0 = time.perf_counter()
        dp_logistic_regression(X, y, 1.0, 1e-5, method="dpsgd", sampling_rate=q, steps=int(round(1 / q)),
                               expected_batch_size=256.0, regularization=1e-4, rng=r)
        t_dp.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        plain_epoch(X, y, q, 8.0, np.random.default_rng(r))
        t_plain.append(time.perf_counter() - t0)
    dp, plain = float(np.median(t_dp)), float(np.median(t_plain))
    print(f"one epoch, n = {n}, d = {d}, expected batch 256 ({int(round(1 / q))} steps)")
    print(f"  DP-SGD (clipping + noise): {dp * 1e3:8.1f} ms   (target < 500 ms)")
    print(f"  non-private SGD epoch:     {plain * 1e3:8.1f} ms")
    print(f"  ratio DP / non-private:    {dp / plain:8.2f}")


def part_grid(qs=(0.004, 0.01, 0.05, 0.1, 1.0)):
    import dp_accounting as dpa

    sigmas = (0.8, 1.0, 1.5, 2.0, 3.0, 5.0)
    steps = (1, 10, 100, 1000, 5000, 15000)
    t_ref = t_pld = t_rdp = 0.0
    worst_hi = worst_lo = 0.0
    below_1pct, rdp_below = [], []
    rows = 0
    for q, s, k in itertools.product(qs, sigmas, steps):
        t0 = time.perf_counter()
        if q < 1:
            acc = dpa.pld.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=1e-4)
            acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k)
            ref = acc.get_epsilon(1e-5)
        else:  # exact in closed form; dp_accounting needs > 4 GB and minutes at 15,000 steps here
            ref = gaussian_epsilon(1e-5, math.sqrt(k) / s)
        t_ref += time.perf_counter() - t0
        t0 = time.perf_counter()
        if q < 1:
            ours = dpsgd_epsilon(q, noise_multiplier=s, steps=k, delta=1e-5)
        else:  # dpsgd_epsilon answers q = 1 in closed form: time the FFT path instead
            ours = max(_pld_epsilon(1.0, s, k, 1e-5, d) for d in ("remove", "add"))
        t_pld += time.perf_counter() - t0
        t0 = time.perf_counter()
        rdp = dpsgd_epsilon(q, noise_multiplier=s, steps=k, delta=1e-5, method="rdp")
        t_rdp += time.perf_counter() - t0
        rows += 1
        if ref > 0:
            rel = ours / ref - 1
            worst_hi, worst_lo = max(worst_hi, rel), min(worst_lo, rel)
            if rel < -0.01:
                below_1pct.append((q, s, k, ours, ref))
        if rdp < ours:
            rdp_below.append((q, s, k, rdp, ours))
        print(f"q={q:<6} sigma={s:<4} steps={k:<6} reference {ref:12.6f}  pld {ours:12.6f}  rdp {rdp:12.6f}",
              flush=True)
    print(f"\n{rows} settings; relative difference pld / reference - 1 in [{worst_lo:.2e}, {worst_hi:.2e}]")
    print(f"settings where pld is below the reference by more than 1%: {len(below_1pct)} {below_1pct}")
    print(f"settings where rdp < pld: {len(rdp_below)} {rdp_below}")
    print(f"time: reference {t_ref:.1f} s, dpcourse pld {t_pld:.1f} s (ratio {t_pld / t_ref:.2f}), "
          f"dpcourse rdp {t_rdp:.1f} s")


SMALL_Q_SIGMAS = (0.5, 0.6, 0.65, 0.75, 0.8, 1.0)


def part_smallq(q=0.001, k=10**5):
    import dp_accounting as dpa

    for delta in (1e-5, 1e-9):
        print(f"q = {q}, steps = {k}, delta = {delta:g}")
        print("  sigma   dp_accounting        pld   pld/ref          rdp   rdp/pld   time ref / pld (s)")
        previous = math.inf
        monotone = True
        for s in SMALL_Q_SIGMAS:
            t0 = time.perf_counter()
            acc = dpa.pld.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=1e-4)
            acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k)
            ref = acc.get_epsilon(delta)
            t_ref = time.perf_counter() - t0
            t0 = time.perf_counter()
            ours = dpsgd_epsilon(q, noise_multiplier=s, steps=k, delta=delta)
            t_pld = time.perf_counter() - t0
            rdp = dpsgd_epsilon(q, noise_multiplier=s, steps=k, delta=delta, method="rdp")
            monotone &= ours <= previous
            previous = ours
            print(f"  {s:5.2f}  {ref:14.6f} {ours:10.6f}  {ours / ref:8.5f} {rdp:12.6f}  {rdp / ours:8.4f}"
                  f"   {t_ref:5.1f} / {t_pld:4.1f}", flush=True)
        print(f"  pld non-increasing in sigma on this grid: {monotone}")
    t0 = time.perf_counter()
    sigma = dpsgd_noise_multiplier(q, steps=k, epsilon=8.0, delta=1e-9)
    t_cal = time.perf_counter() - t0
    print(f"dpsgd_noise_multiplier({q}, {k}, 8.0, 1e-9) = {sigma:.5f} ({t_cal:.0f} s): epsilon "
          f"{dpsgd_epsilon(q, noise_multiplier=sigma, steps=k, delta=1e-9):.5f}, at sigma (1 - 1e-3) {dpsgd_epsilon(q, noise_multiplier=sigma * (1 - 1e-3), steps=k, delta=1e-9):.5f}")


def part_delta():
    import dp_accounting as dpa

    print("delta at epsilon: dpcourse against dp_accounting 0.6.0 (PLD grid 1e-4; RDP at integer orders <= 256)")
    orders = [a for a in _INTEGER_ORDERS if a <= 256]
    for q, sigma, k, eps in [(0.01, 1.0, 1000, 1.5), (0.05, 0.8, 300, 3.0), (0.1, 2.0, 100, 0.5),
                             (0.001, 0.6, 10_000, 1.0), (0.004, 1.0, 15_000, 2.0)]:
        ours = PrivacyAccountant().compose(PoissonSampledEvent(q, GaussianEvent(sigma)), k)
        event = dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma))
        row = []
        for name, ref in (("pld", dpa.pld.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)),
                          ("rdp", dpa.rdp.RdpAccountant(orders=orders))):
            t0 = time.perf_counter()
            mine = ours.delta(eps, name)
            t1 = time.perf_counter()
            theirs = ref.compose(event, k).get_delta(eps)
            t2 = time.perf_counter()
            row.append(f"{name} {mine:.4e} vs {theirs:.4e} (ratio {mine / theirs:.5f}; {t1 - t0:.2f} s vs {t2 - t1:.2f} s)")
        print(f"q={q:g} sigma={sigma:g} k={k} eps={eps:g}: " + "; ".join(row))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("epoch", "grid", "smallq", "delta", "both"), default="both")
    parser.add_argument("--q", type=float, nargs="+", default=[0.004, 0.01, 0.05, 0.1, 1.0])
    args = parser.parse_args()
    if args.part in ("epoch", "both"):
        part_epoch()
    if args.part in ("grid", "both"):
        part_grid(tuple(args.q))
    if args.part in ("smallq", "both"):
        part_smallq()
    if args.part in ("delta", "both"):
        part_delta()


if __name__ == "__main__":
    main()
