"""Figures of the chapters "Too many answers" and "Private query release"."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import numpy.typing as npt

from .._validation import (as_rng, check_binary_array, check_epsilon, check_positive_int, check_real, check_real_array,
                           check_sensitivity)
from ..laplace import laplace_mechanism
from ..attacks import penguin_sex_bits, random_subset_queries, reconstruction_attack, tpr_at_fpr, tracing_experiment
from ..query_release import AFFAIRS_SHAPE, affairs_histogram, error_versus_queries, product_queries
from ..svt import above_threshold

__all__ = [
    "plot_recovered_bits",
    "reconstruction_curve",
    "plot_reconstruction",
    "reconstruction_widget",
    "plot_tracing_roc",
    "sparse_vector_trace",
    "plot_sparse_vector_run",
    "svt_versus_laplace",
    "plot_svt_versus_laplace",
    "plot_error_versus_queries",
    "crossover_k",
    "plot_release_errors",
    "query_release_widget",
]


_RUNS: dict = {}  # (secret, m, bounds, generator state) -> what _uniform_noise_run returned and the state after


def _uniform_noise_run(secret, m, bounds, gen):
    """One run of :func:`reconstruction_curve` before its Laplace release: the queries, their exact answers
    and the fraction of bits recovered at each noise bound.

    None of it depends on epsilon, so the live figure's states that differ only in epsilon share it: for a
    PCG64 generator the result is kept, keyed by the inputs and the generator's state, and a later call
    from the same state gets it and the state the generator had after it (the same draws, computed once).
    """
    def run():
        a = random_subset_queries(m, secret.size, rng=gen)
        exact = a @ secret
        return a, exact, np.array([np.mean(reconstruction_attack(a, exact + gen.uniform(-e, e, size=m)) == secret)
                                   for e in bounds])

    if type(gen.bit_generator) is not np.random.PCG64:
        return run()
    key = (secret.dtype.str, secret.tobytes(), m, bounds.tobytes(), json.dumps(gen.bit_generator.state, sort_keys=True))
    if key not in _RUNS:
        if len(_RUNS) >= 64:
            _RUNS.clear()
        result = run()
        for x in result:
            x.flags.writeable = False
        _RUNS[key] = result, gen.bit_generator.state
    result, gen.bit_generator.state = _RUNS[key]
    return result


def plot_recovered_bits(secret, guesses):
    """The secret column, one square per record, and what an attacker recovers from each release: a red square is a
    bit recovered wrongly.

    ``secret`` is a 0/1 vector (for instance :func:`dpcourse.attacks.penguin_sex_bits`); ``guesses`` maps a label
    (which release the attacker saw) to a 0/1 vector of the same length, e.g. the output of
    :func:`dpcourse.reconstruction_attack`. Each row after the first is labelled with the fraction of bits it
    gets right.
    """
    s = check_binary_array(secret, "secret", ndim=1)
    if not isinstance(guesses, dict) or not guesses:
        raise TypeError(f"guesses must be a non-empty dict label -> 0/1 vector, got {type(guesses).__name__}")
    rows, labels = [s.astype(int)], [f"secret ({s.size} records)"]
    for label, guess in guesses.items():
        g = check_binary_array(guess, f"guesses[{label!r}]", ndim=1)
        if g.size != s.size:
            raise ValueError(f"guesses[{label!r}] must have {s.size} entries like secret, got {g.size}")
        rows.append(np.where(g == s, s, 2).astype(int))
        labels.append(f"{label}: {np.mean(g == s):.0%} right")
    from matplotlib.colors import ListedColormap

    cmap = ListedColormap(["#d9d9d9", "#2b5c8a", "#d62728"])
    fig, axes = plt.subplots(len(rows), 1, figsize=(10, 0.75 * len(rows) + 0.9), squeeze=False)
    for ax, row, label in zip(axes[:, 0], rows, labels):
        ax.imshow(np.array([row]), cmap=cmap, vmin=0, vmax=2, aspect="auto", interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(label, loc="left", fontsize=10)
    axes[-1, 0].set_xlabel("one column per record: dark = 1, light = 0, red = recovered wrongly", fontsize=9)
    fig.tight_layout()
    return fig


def reconstruction_curve(n, m, noise_bounds, *, epsilon=1.0, runs=3, rng=None):
    """Fraction of secret bits recovered by :func:`dpcourse.reconstruction_attack`, averaged over ``runs``.

    The secret is :func:`dpcourse.attacks.penguin_sex_bits` (n penguins), the queries are m random
    subsets. For each E in ``noise_bounds`` every answer gets independent noise uniform on [-E, E];
    the last entry of the result is the same attack against the answers released with
    :func:`dpcourse.laplace_mechanism` at a total ``epsilon`` (l1 sensitivity: the largest column sum).

    Returns
    -------
    (recovered, recovered_dp) : (numpy.ndarray, float)
    """
    n = check_positive_int(n, "n")
    m = check_positive_int(m, "m")
    bounds = check_real_array(noise_bounds, "noise_bounds", ndim=1)
    eps = check_epsilon(epsilon)
    runs = check_positive_int(runs, "runs")
    gen = as_rng(rng)
    secret = penguin_sex_bits(n, rng=gen)
    rec = np.zeros(bounds.size)
    rec_dp = 0.0
    for _ in range(runs):
        a, exact, rec_run = _uniform_noise_run(secret, m, bounds, gen)
        rec += rec_run / runs
        released = laplace_mechanism(exact, float(a.sum(axis=0).max()), eps, rng=gen)
        rec_dp += np.mean(reconstruction_attack(a, released) == secret) / runs
    return rec, float(rec_dp)


def plot_reconstruction(n=128, m=512, *, epsilon=1.0, noise_bounds=None, runs=3, rng=None):
    """Fraction of secret bits recovered against the noise bound E per answer (log scale), with sqrt(n) and DP marked."""
    n = check_positive_int(n, "n")
    if noise_bounds is None:
        noise_bounds = np.geomspace(0.5, 4 * math.sqrt(n), 9)
    bounds = check_real_array(noise_bounds, "noise_bounds", ndim=1)
    rec, rec_dp = reconstruction_curve(n, m, bounds, epsilon=epsilon, runs=runs, rng=rng)
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    ax.semilogx(bounds, rec, "o-", label="noise uniform on [-E, E]")
    ax.axvline(math.sqrt(n), color="grey", ls="--", label=r"$E = \sqrt{n}$")
    ax.axhline(rec_dp, color="C3", ls=":", label=f"Laplace, total epsilon = {epsilon:g}")
    ax.axhline(0.5, color="black", lw=0.6)
    ax.set_xlabel("noise bound E per answer")
    ax.set_ylabel("fraction of bits recovered")
    ax.set_ylim(0.4, 1.02)
    ax.set_title(f"LP reconstruction of n = {n} secret bits from m = {m} subset sums")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    return fig


def reconstruction_widget():
    """Sliders for the number of queries and the total epsilon, redrawing :func:`plot_reconstruction` (n = 64).

    A :func:`dpcourse.plots.explorer.explorer`: live in Jupyter, and in the static book every setting
    is drawn at build time by the same function.
    """
    from .explorer import explorer

    return explorer(plot_reconstruction,
                    {"m": ("queries m", (64, 128, 256, 512), 256),
                     "epsilon": ("total epsilon", (0.1, 1.0, 10.0, 100.0), 1.0)},
                    alt="Fraction of 64 secret bits recovered against the noise bound, and under Laplace noise",
                    n=64, noise_bounds=[0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0], runs=1, rng=0)


def plot_tracing_roc(n=100, d=5000, *, epsilons=(10.0, 1.0), rng=None):
    """ROC curves (log-scale false-positive rate) of the tracing attack on exact and on DP means."""
    gen = as_rng(rng)
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    fprs = np.geomspace(1e-3, 1.0, 60)
    for label, eps in [("exact means", None)] + [(f"Laplace, epsilon = {e:g}", e) for e in epsilons]:
        mem, non = tracing_experiment(n, d, epsilon=eps, n_tested=n, rng=gen)
        tpr = [tpr_at_fpr(mem, non, f) for f in fprs]
        ax.semilogx(fprs, tpr, label=label)
    ax.semilogx(fprs, fprs, "k:", label="guessing")
    ax.set_xlabel("false-positive rate (non-members flagged)")
    ax.set_ylabel("true-positive rate (members flagged)")
    ax.set_title(f"Tracing {n} people from the means of d = {d} attributes")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def sparse_vector_trace(values: npt.ArrayLike, threshold: float, epsilon: float, c: int = 1, *,
                        sensitivity: float = 1.0, rng: int | np.random.Generator | None = None) -> dict:
    """One run of the sparse vector technique with its noise in view: the noisy threshold, each noisy answer, and
    the answers "above" and "below".

    The algorithm of definition ``def-svt`` (:func:`dpcourse.sparse_vector` releases only its indices): with
    ``epsilon_1 = epsilon_2 = epsilon / 2``, the threshold gets noise rho of scale ``sensitivity / epsilon_1``
    once, each query noise nu_i of scale ``2 c sensitivity / epsilon_2``, both drawn by
    :func:`dpcourse.laplace_mechanism`'s exact sampler; query i is "above" if ``values[i] + nu_i >= threshold +
    rho``, and the run stops after the c-th "above". For a picture: the noise it shows is what a release hides.

    Returns
    -------
    dict
        ``noisy_threshold`` (float), ``noisy_values`` (float array, NaN for the queries after the stop) and
        ``answers`` (int8 array: 1 "above", 0 "below", -1 not asked).
    """
    q = check_real_array(values, "values", ndim=1)
    t = check_real(threshold, "threshold")
    eps = check_epsilon(epsilon)
    c = check_positive_int(c, "c")
    sens = check_sensitivity(sensitivity)
    gen = as_rng(rng)
    noisy_t = float(laplace_mechanism(t, sens, eps / 2, rng=gen))
    noisy = np.asarray(laplace_mechanism(q, 2 * c * sens, eps / 2, rng=gen), dtype=float).reshape(q.shape)
    above = noisy >= noisy_t
    asked = (np.cumsum(above) - above) < c          # fewer than c "above" answers before query i
    answers = np.where(asked, above.astype(np.int8), np.int8(-1)).astype(np.int8)
    return {"noisy_threshold": noisy_t, "noisy_values": np.where(asked, noisy, np.nan), "answers": answers}


def plot_sparse_vector_run(values, threshold, epsilon, c=1, *, sensitivity=1.0, rng=None):
    """One run of sparse vector: each query's true and noisy answer against a threshold that is made noisy once, and
    the stop after the c-th answer "above".

    Drawn from :func:`sparse_vector_trace`: open circles are the true answers ``values``, filled markers the noisy
    answers (red "above", blue "below"), the dashed line the public ``threshold`` and the solid line the noisy
    threshold, drawn once for the whole run. Queries after the stop are not asked (grey).
    """
    tr = sparse_vector_trace(values, threshold, epsilon, c, sensitivity=sensitivity, rng=rng)
    q = np.asarray(values, dtype=float)
    i = np.arange(1, q.size + 1)
    ans = tr["answers"]
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.axhline(float(threshold), color="k", ls="--", lw=1, label=f"threshold T = {float(threshold):g}")
    ax.axhline(tr["noisy_threshold"], color="k", lw=1.6, label="noisy threshold T + ρ (drawn once)")
    ax.plot(i, q, "o", mfc="none", color="grey", label="true answer")
    asked = ans >= 0
    ax.vlines(i[asked], q[asked], tr["noisy_values"][asked], color="grey", lw=0.8)
    ax.plot(i[ans == 0], tr["noisy_values"][ans == 0], "o", color="tab:blue", label="noisy answer: below")
    ax.plot(i[ans == 1], tr["noisy_values"][ans == 1], "*", ms=13, color="tab:red", label="noisy answer: above")
    if (ans == -1).any():
        stop = int(np.argmax(ans == -1)) + 0.5
        ax.axvspan(stop, q.size + 0.7, color="grey", alpha=0.15, label="not asked: the run has stopped")
    ax.set_xlim(0.3, q.size + 0.7)
    ax.set_xticks(i if q.size <= 30 else np.unique(np.linspace(1, q.size, 10).astype(int)))
    ax.set_xlabel("query i, in the order asked")
    ax.set_ylabel("answer")
    found = (i[ans == 1]).tolist()
    ax.set_title(f"sparse vector, ε = {float(epsilon):g}, c = {int(c)}: 'above' at queries {found}", fontsize=10)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def svt_versus_laplace(ks, epsilon, *, gap=None, runs=1000, rng=None):
    """How often the one query above the threshold is found, by AboveThreshold and by Laplace on every query.

    k - 1 queries lie ``gap`` below the threshold T = 0 and the last one ``gap`` above (default gap
    20 / epsilon). AboveThreshold (:func:`dpcourse.above_threshold`, epsilon) succeeds if it returns the
    last index; the baseline releases all k answers with :func:`dpcourse.laplace_mechanism` (l1
    sensitivity k under the worst case where one record moves every query, epsilon in total) and
    succeeds if exactly the last noisy answer is >= T. Returns two arrays of success rates.
    """
    eps = check_epsilon(epsilon)
    runs = check_positive_int(runs, "runs")
    g = 20.0 / eps if gap is None else float(gap)
    gen = as_rng(rng)
    svt, lap = [], []
    for k in [check_positive_int(k, "k") for k in ks]:
        values = np.r_[np.full(k - 1, -g), g]
        svt.append(np.mean(above_threshold(values, 0.0, eps, rng=gen, size=runs) == k - 1))
        # runs independent releases of the k answers (one call; each row is one release of sensitivity k)
        noisy = laplace_mechanism(np.tile(values, (runs, 1)), float(k), eps, rng=gen)
        above = noisy >= 0.0
        lap.append(np.mean(above[:, -1] & (above.sum(axis=1) == 1)))
    return np.array(svt), np.array(lap)


def plot_svt_versus_laplace(ks=(1, 3, 10, 30, 100, 300, 1000), epsilon=1.0, *, runs=1000, rng=None):
    """Success rate of AboveThreshold and of Laplace-on-every-query against the number of queries k."""
    ks = [int(k) for k in ks]
    svt, lap = svt_versus_laplace(ks, epsilon, runs=runs, rng=rng)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.semilogx(ks, svt, "o-", label="AboveThreshold (sparse vector)")
    ax.semilogx(ks, lap, "s--", label="Laplace on every query")
    ax.set_xlabel("number of queries k")
    ax.set_ylabel("P[the right query is reported]")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"One query {20 / epsilon:g} above T, the others {20 / epsilon:g} below; epsilon = {epsilon:g}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def crossover_k(result: Mapping[str, npt.ArrayLike], method: str = "laplace") -> int:
    """The first k of ``result`` (from :func:`dpcourse.query_release.error_versus_queries`) from which MWEM's
    error stays below ``method``'s error for every larger k of the grid; -1 if there is none."""
    k = np.asarray(result["k"])
    better = np.asarray(result["mwem"]) < np.asarray(result[method])
    for i in range(k.size):
        if better[i:].all():
            return int(k[i])
    return -1


def plot_error_versus_queries(result, *, epsilon=None):
    """Max normalised error against the number of queries k (log-log): Laplace, Gaussian and MWEM; crossovers marked.

    ``result`` is what :func:`dpcourse.query_release.error_versus_queries` returns (or any mapping with its keys).
    """
    fig, ax = plt.subplots(figsize=(7, 3.8))
    k = result["k"]
    for key, style, label in [("laplace", "o-", "Laplace per query"), ("gaussian", "s-", "Gaussian per query"),
                              ("mwem", "^-", "MWEM")]:
        ax.loglog(k, result[key], style, label=label)
    for method, colour in [("laplace", "C0"), ("gaussian", "C1")]:
        kc = crossover_k(result, method)
        if kc > 0:
            ax.axvline(kc, color=colour, ls=":", lw=1)
    ax.set_xlabel("number of queries k")
    ax.set_ylabel("max |error| / n")
    title = "Answering k counting queries on the affairs survey (64 cells)"
    ax.set_title(title if epsilon is None else f"{title}, epsilon = {epsilon:g}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_release_errors(epsilon=1.0, k_max=1000, *, runs=1, seed=0):
    """:func:`plot_error_versus_queries` on the affairs survey: the first k of the 2025 product queries in a
    random order (from ``seed``), k on a grid of 8 values from 10 to ``k_max``; MWEM with T = 10, 5 passes,
    last histogram."""
    eps = check_epsilon(epsilon)
    pool = product_queries(AFFAIRS_SHAPE)
    k_max = check_positive_int(k_max, "k_max", minimum=10)
    if k_max > len(pool):
        raise ValueError(f"k_max must be at most {len(pool)}, got {k_max}")
    order = np.random.default_rng(check_positive_int(seed, "seed", minimum=0)).permutation(len(pool))
    ks = np.unique(np.geomspace(10, k_max, 8).astype(int))
    res = error_versus_queries(affairs_histogram(), pool[order], ks, eps, iterations=10, passes=5, output="last",
                               runs=runs, rng=seed)
    return plot_error_versus_queries(res, epsilon=eps)


def query_release_widget():
    """Sliders for epsilon and the largest k, redrawing :func:`plot_release_errors` (one run per k).

    A :func:`dpcourse.plots.explorer.explorer`: live in Jupyter, and in the static book every setting
    is drawn at build time by the same function.
    """
    from .explorer import explorer

    return explorer(plot_release_errors,
                    {"epsilon": ("epsilon", (0.1, 0.3, 1.0, 3.0, 10.0), 1.0),
                     "k_max": ("largest k", (100, 300, 1000, 2025), 1000)},
                    alt="Max error against the number of queries for Laplace, Gaussian and MWEM on the affairs survey",
                    runs=1, seed=0)
