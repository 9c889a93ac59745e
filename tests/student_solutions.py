"""Honest student solutions of the coding exercises whose checkers forbid calling the library function.

Written from the chapters' statements, independently of dpcourse's code, so a checker test can show that a
right answer written by hand passes while a call to the forbidden function is refused.
"""

import math

import numpy as np
from scipy import optimize, special

from dpcourse import gaussian_delta


def group_delta(epsilon, delta, k):
    """delta_k = delta (1 + e^eps + ... + e^{(k-1) eps}), the chain argument of thm-approx-group."""
    return delta * sum(math.exp(i * epsilon) for i in range(k))


def analytic_sigma(epsilon, delta):
    """The smallest sigma (l2 sensitivity 1) whose exact delta (gaussian_delta, allowed) is the target."""
    return optimize.brentq(lambda s: gaussian_delta(epsilon, 1.0 / s) - delta, 1e-3, 1e4, xtol=1e-13, rtol=1e-13)


def optimal_delta(epsilon, k, epsilon_total):
    """Kairouz-Oh-Viswanath: sum_j C(k,j) (e^{(k-j)eps} - e^{eps_total + j eps})_+ / (1 + e^eps)^k, in logs."""
    j = np.arange(k + 1)
    log_c = special.gammaln(k + 1) - special.gammaln(j + 1) - special.gammaln(k - j + 1)
    x = epsilon_total + j * epsilon - (k - j) * epsilon  # log of the ratio of the two exponentials
    keep = x < 0
    log_terms = log_c[keep] + (k - j[keep]) * epsilon + np.log(-np.expm1(x[keep])) - k * np.logaddexp(0.0, epsilon)
    return float(np.exp(special.logsumexp(log_terms))) if keep.any() else 0.0


def _counts_by_hand(data, categories):
    """The exact count of each category, in the order given; a record outside the categories raises."""
    categories = np.asarray(categories)
    order = np.argsort(categories)
    pos = np.searchsorted(categories[order], data)
    pos = np.minimum(pos, categories.size - 1)
    if not np.array_equal(categories[order][pos], np.asarray(data)):
        raise ValueError("a record is outside the declared categories")
    return np.bincount(order[pos], minlength=categories.size).astype(float)


def float_laplace_histogram(source):
    """A plausible but insecure answer to the histogram-by-hand exercise of chapter 04 (issue 21, item 12).

    Right counts, right order, right scale (sensitivity 1 under add/remove, 2 under replace-one, over
    epsilon), but the noise comes from numpy's floating-point Laplace sampler, which the course shows to
    leak: ``source`` is "global" (``np.random.laplace``, the rng ignored), "rng" (``rng.laplace``), "fresh"
    (an unseeded generator of its own), "fixed" (a generator of its own with a fixed seed) or "inverse_cdf"
    (the textbook inverse CDF applied to ``rng.random()``).
    """
    def my_dp_histogram(data, categories, epsilon, relation, rng):
        counts = _counts_by_hand(data, categories)
        scale = (1.0 if relation == "add_remove" else 2.0) / epsilon
        if source == "global":
            noise = np.random.laplace(0.0, scale, size=counts.size)
        elif source == "rng":
            noise = rng.laplace(0.0, scale, size=counts.size)
        elif source == "fresh":
            noise = np.random.default_rng().laplace(0.0, scale, size=counts.size)
        elif source == "fixed":
            noise = np.random.default_rng(12345).laplace(0.0, scale, size=counts.size)
        else:
            u = rng.random(counts.size) - 0.5
            noise = -scale * np.sign(u) * np.log1p(-2 * np.abs(u))
        return counts + noise
    return my_dp_histogram


def shared_noise_histogram(kind):
    """A secure-looking but non-private answer to the histogram-by-hand exercise: the noise is not fresh in
    every category. ``kind`` is "tiled" (one noise vector for half the categories, used twice: the difference of
    two outputs is an exact difference of counts), "present_only" (noise only for categories seen in the data,
    an exact 0 for the others: an empty category is told apart from one with a record) or "one_draw" (a single
    noise value drawn from rng and added to every count).
    """
    from dpcourse import laplace_mechanism

    def my_dp_histogram(data, categories, epsilon, relation, rng):
        counts = _counts_by_hand(data, categories)
        sens = 1.0 if relation == "add_remove" else 2.0
        if kind == "tiled":
            half = laplace_mechanism(np.zeros(counts.size - counts.size // 2), sens, epsilon, rng=rng)
            return counts + np.concatenate([half, half])[:counts.size]
        if kind == "present_only":
            noisy = laplace_mechanism(counts[counts > 0], sens, epsilon, rng=rng)
            out = np.zeros(counts.size)
            out[counts > 0] = noisy
            return out
        return counts + laplace_mechanism(0.0, sens, epsilon, rng=rng)
    return my_dp_histogram
