"""Synthetic data from noisy marginals at full size (chapter "Synthetic data from noisy marginals").

1. Errors on all 2- and 3-way marginals of the affairs survey (7 attributes, 601 records) against epsilon
   (delta = 1e-6, replace one record) for MST, independent marginals and MWEM (two variants: 15 rounds with
   2 passes and the last histogram, as in the chapter; 30 rounds and the paper's average), mean and
   standard deviation over seeds.
2. A logistic regression trained on synthetic records (from 400 training respondents) and tested on the
   201 others, predicting children and any_affair, against the real-data fit and the majority class, over
   seeds and random splits.
3. Time to synthesize: MST and the independent baseline on the survey and on the survey's records
   resampled to 10**4, 10**5 and 10**6 rows, with the ratio of MST's time to the baseline's in the same run.

Usage: ``python benchmarks/bench_synthetic.py [seeds]`` (default 5).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import dpcourse as dp
from dpcourse import synthetic as syn
from dpcourse.queries import mwem

EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
DELTA = 1e-6


def errors(records, domain, seeds):
    hist = syn.marginal(records, domain, tuple(range(len(domain)))).ravel().astype(float)
    queries = syn.marginal_queries(domain)
    print("1. mean l1 error over all 2-way | 3-way marginals (mean +- sd over seeds)")
    print(f"{'eps':>5s} {'rho':>7s} | {'MST':>13s} {'indep':>13s} {'MWEM last':>13s} {'MWEM avg':>13s} |"
          f" {'MST':>13s} {'indep':>13s} {'MWEM last':>13s} {'MWEM avg':>13s}")
    for eps in EPSILONS:
        rho = syn.rho_for_epsilon(eps, DELTA)
        out = {k: {2: [], 3: []} for k in ("mst", "ind", "mwem_last", "mwem_avg")}
        for s in range(seeds):
            gen = np.random.default_rng(1000 + s)
            syns = {"mst": (dp.mst_synthesize(records, domain, rho, relation="replace_one", rng=gen).records, False),
                    "ind": (dp.independent_synthesize(records, domain, rho, relation="replace_one", rng=gen).records,
                            False),
                    "mwem_last": (mwem(hist, queries, eps, iterations=15, passes=2, output="last", rng=gen)
                                  .reshape(domain), True),
                    "mwem_avg": (mwem(hist, queries, eps, iterations=30, rng=gen).reshape(domain), True)}
            for k, (y, is_hist) in syns.items():
                for order in (2, 3):
                    out[k][order].append(dp.marginal_errors(records, y, domain, order,
                                                            synthetic_is_histogram=is_hist).mean())
        cell = lambda v: f"{np.mean(v):.3f}+-{np.std(v):.3f}"
        print(f"{eps:5g} {rho:7.4f} | " + " ".join(f"{cell(out[k][2]):>13s}" for k in out) + " | "
              + " ".join(f"{cell(out[k][3]):>13s}" for k in out))


def classifier(records, domain, seeds):
    print("\n2. accuracy on 201 held-out real records (mean +- sd over seeds, each with its own split)")
    for target, name in ((4, "children"), (0, "any_affair")):
        real, major = [], []
        acc = {(m, e): [] for m in ("MST", "independent") for e in (1.0, 4.0, 16.0)}
        for s in range(seeds):
            perm = np.random.default_rng(s).permutation(len(records))
            train, test = records[perm[:400]], records[perm[400:]]
            real.append(syn.classifier_accuracy(train, test, domain, target))
            major.append(max(np.mean(test[:, target]), 1 - np.mean(test[:, target])))
            for (m, e) in acc:
                fn = dp.mst_synthesize if m == "MST" else dp.independent_synthesize
                rel = fn(train, domain, syn.rho_for_epsilon(e, DELTA), rng=100 + s)
                acc[(m, e)].append(syn.classifier_accuracy(rel.records, test, domain, target))
        print(f"  {name}: real data {np.mean(real):.3f}+-{np.std(real):.3f}, majority {np.mean(major):.3f}; "
              + "; ".join(f"{m} eps={e:g} {np.mean(v):.3f}+-{np.std(v):.3f}" for (m, e), v in acc.items()))


def timing(records, domain):
    print("\n3. time to synthesize (rho = 1, add/remove; best of 3), MST vs the independent baseline")
    gen = np.random.default_rng(7)
    for n in (len(records), 10**4, 10**5, 10**6):
        x = records if n == len(records) else records[gen.integers(0, len(records), n)]
        t = {}
        for name, fn in (("mst", dp.mst_synthesize), ("independent", dp.independent_synthesize)):
            best = np.inf
            for r in range(3):
                start = time.perf_counter()
                fn(x, domain, 1.0, rng=r)
                best = min(best, time.perf_counter() - start)
            t[name] = best
        print(f"  n = {n:>8d}: MST {t['mst']:.3f} s, independent {t['independent']:.3f} s, "
              f"ratio {t['mst'] / t['independent']:.1f}")


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    records, domain, _ = syn.affairs_categorical()
    errors(records, domain, seeds)
    classifier(records, domain, seeds)
    timing(records, domain)


if __name__ == "__main__":
    main()
