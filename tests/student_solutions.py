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
