"""The source of a reference solution of every coding question, keyed by the question's label.

Each is honest work a student could hand in: one answer cell that defines the function the question names,
run after the notebook's setup cell (``import math``, ``import numpy as np``, ``import dpcourse``). It calls
only what its question allows (never the library code of the checker's ``Forbidden`` sets), draws every random
number of a private release from the ``rng`` it is given, with the library's exact samplers (or, for the exact
Bernoulli sampler, with ``rng.integers`` only), and refuses a bad public parameter with ValueError.
``tests/test_reference_solutions.py`` runs each through its question's hidden tests, in-process and in the
grader's sandbox, where the forbidden code is switched off.
"""

REFERENCE_CODE = {
    # hw01 -- the hockey-stick divergence: the positive parts of p - e^eps q, summed.
    "ex-promise-hockey": '''\
def my_hockey_stick(p, q, epsilon):
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if p.shape != q.shape or not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError("p and q must have the same shape, and epsilon must be a finite number >= 0")
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())
''',

    # hw02 -- the unbiased randomized-response estimator: E[mean of reports] = (1 - t) + (2t - 1) mu.
    "ex-rr-estimator": '''\
def my_rr_estimate(responses, epsilon):
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError("epsilon must be a positive finite number")
    t = math.exp(epsilon) / (1 + math.exp(epsilon))   # probability of reporting the true bit
    return (float(np.mean(responses)) - (1 - t)) / (2 * t - 1)
''',

    # hw03 -- the inverse CDF of Lap(b): b ln(2u) below the median, -b ln(2 - 2u) above it.
    "ex-laplace-inverse-cdf": '''\
def my_inverse_cdf(u, scale):
    u = np.asarray(u, dtype=float)
    below = scale * np.log(2 * np.minimum(u, 0.5))          # u < 1/2: F(z) = e^(z/b) / 2
    above = -scale * np.log(2 - 2 * np.maximum(u, 0.5))     # u >= 1/2: F(z) = 1 - e^(-z/b) / 2
    return np.where(u < 0.5, below, above)
''',

    # hw04 -- a record lies in one part: the whole-dataset releases plus the releases on its part add up.
    "ex-cb-plan": '''\
def my_plan_epsilon(epsilons, parts):
    if len(epsilons) != len(parts):
        raise ValueError("one part per release")
    whole, per_part = 0.0, {}
    for e, p in zip(epsilons, parts):
        if not (math.isfinite(e) and e > 0):
            raise ValueError("every epsilon must be a positive finite number")
        if p is None:
            whole += e
        else:
            per_part[p] = per_part.get(p, 0.0) + e
    return whole + max(per_part.values(), default=0.0)
''',

    # hw05 -- counts by hand, then the library's exact Laplace sampler at the histogram's sensitivity.
    "ex-hist-implement": '''\
def my_dp_histogram(data, categories, epsilon, relation, rng):
    if relation not in ("add_remove", "replace_one"):
        raise ValueError("relation must be 'add_remove' or 'replace_one'")
    data, categories = np.asarray(data), np.asarray(categories)
    if not np.isin(data, categories).all():
        raise ValueError("a record is not one of the categories")
    order = np.argsort(categories)
    counts = np.bincount(order[np.searchsorted(categories[order], data)], minlength=len(categories)).astype(float)
    sensitivity = 1.0 if relation == "add_remove" else 2.0   # one count moves by 1, or two counts by 1 each
    return dpcourse.laplace_mechanism(counts, sensitivity, epsilon, rng=rng)
''',

    # hw06 -- the exponential mechanism, with the largest utility subtracted so that nothing overflows.
    "ex-sel-em-code": '''\
def my_em_probabilities(utilities, sensitivity, epsilon):
    if not (math.isfinite(epsilon) and epsilon > 0 and math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError("epsilon and the sensitivity must be positive finite numbers")
    u = np.asarray(utilities, dtype=float)
    w = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    return w / w.sum()
''',

    # hw07 -- the chain argument: delta (1 + e^eps + ... + e^((k-1) eps)).
    "ex-approx-group-code": '''\
def my_group_delta(epsilon, delta, k):
    if not (math.isfinite(epsilon) and epsilon >= 0 and 0 <= delta <= 1 and int(k) == k and k >= 1):
        raise ValueError("epsilon >= 0, delta in [0, 1] and a whole k >= 1 are needed")
    return delta * math.fsum(math.exp(j * epsilon) for j in range(int(k)))
''',

    # hw08 -- bisection (on a log scale) of the exact delta, which decreases in sigma; only gaussian_delta used.
    "ex-gaussian-analytic-code": '''\
def my_analytic_sigma(epsilon, delta):
    if not (math.isfinite(epsilon) and epsilon > 0 and 0 < delta < 1):
        raise ValueError("epsilon must be positive and finite, delta in (0, 1)")

    def private(sigma):   # is the Gaussian mechanism with this sigma (epsilon, delta)-DP?
        return dpcourse.gaussian_delta(epsilon, 1.0 / sigma) <= delta

    lo = hi = 1.0
    while private(lo):        # lo: a sigma that is too small
        lo /= 2
    while not private(hi):    # hi: a sigma that is enough
        hi *= 2
    while hi / lo - 1 > 1e-13:
        mid = math.sqrt(lo * hi)
        if not lo < mid < hi:
            break
        lo, hi = (lo, mid) if private(mid) else (mid, hi)
    return hi
''',

    # hw09 -- Kairouz-Oh-Viswanath in logarithms: P(j flips) = C(k, j) e^((k-j) eps) / (1 + e^eps)^k.
    "ex-comp-optimal-delta": '''\
def my_optimal_delta(epsilon, k, epsilon_total):
    from scipy.special import gammaln, logsumexp

    if not (math.isfinite(epsilon) and epsilon > 0 and int(k) == k and k >= 1 and math.isfinite(epsilon_total)
            and epsilon_total >= 0):
        raise ValueError("epsilon > 0, a whole k >= 1 and a finite epsilon_total >= 0 are needed")
    k = int(k)
    j = np.arange(k + 1)
    loss = (k - 2 * j) * epsilon                     # the privacy loss of an outcome with j flipped coordinates
    keep = loss > epsilon_total
    if not keep.any():
        return 0.0
    log_binom = gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1)
    log_p = log_binom + (k - j) * epsilon - k * np.logaddexp(0.0, epsilon)
    terms = log_p[keep] + np.log(-np.expm1(epsilon_total - loss[keep]))   # P(j) (1 - e^(eps_total - loss))
    return float(np.exp(logsumexp(terms)))
''',

    # hw10 -- clamp, then the library's exact Laplace sampler at the clamped mean's sensitivity (u - l) / n.
    "ex-audit-fix-mean": '''\
def my_dp_mean(x, lower, upper, epsilon, rng):
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise ValueError("the bounds must be finite with lower < upper")
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("x must be a non-empty 1-d array")
    clamped = np.clip(np.nan_to_num(x, nan=lower), lower, upper)   # any record, even NaN or inf, moves it by <= u - l
    clamped_mean = float(clamped.mean())
    return dpcourse.laplace_mechanism(clamped_mean, (upper - lower) / x.size, epsilon, rng=rng)
''',

    # hw11 -- Bernoulli(exp(-num/den)) with integer draws only: count the successes of Bernoulli(gamma / k).
    "ex-noise-bernoulli": '''\
def my_bernoulli_exp(num, den, rng):
    if not (int(num) == num and int(den) == den and 0 <= num <= den and den >= 1):
        raise ValueError("num and den must be whole numbers with 0 <= num <= den, den >= 1")
    num, den = int(num), int(den)
    k = 1
    while rng.integers(0, den * k) < num:   # a Bernoulli(gamma / k) trial, exactly
        k += 1
    return k % 2 == 1
''',

    # hw11 -- theorem thm-lattice-laplace: floor(Delta / g) + dim lattice steps over epsilon, in the value's units.
    "ex-noise-lattice-scale": '''\
def my_lattice_scale(sensitivity, epsilon, spacing, dim):
    if not (math.isfinite(sensitivity) and sensitivity > 0 and math.isfinite(epsilon) and epsilon > 0
            and spacing > 0 and math.frexp(spacing)[0] == 0.5 and int(dim) == dim and dim >= 1):
        raise ValueError("positive sensitivity and epsilon, a power-of-two spacing and a whole dim >= 1 are needed")
    steps = math.floor(sensitivity / spacing) + int(dim)
    return spacing * steps / epsilon
''',

    # hw12 -- Lyu-Su-Li Algorithm 1 with eps1 = eps2 = eps / 2.
    "ex-many-svt-scales": '''\
def my_svt_scales(epsilon, c, sensitivity):
    if not (math.isfinite(epsilon) and epsilon > 0 and sensitivity > 0 and int(c) == c and c >= 1):
        raise ValueError("positive epsilon and sensitivity and a whole c >= 1 are needed")
    eps1 = eps2 = epsilon / 2
    return sensitivity / eps1, 2 * c * sensitivity / eps2
''',

    # hw13 -- the lemma needs m > ln(2k) / (2 alpha^2), strictly.
    "ex-release-sample-size": '''\
def my_sample_size(n_queries, alpha):
    if not (int(n_queries) == n_queries and n_queries >= 1 and 0 < alpha <= 1):
        raise ValueError("a whole n_queries >= 1 and alpha in (0, 1] are needed")
    return math.floor(math.log(2 * int(n_queries)) / (2 * alpha * alpha)) + 1
''',

    # hw14 -- the clamped, sorted values with the bounds as x_(0) and x_(n+1); the lower median's two gaps.
    "ex-quant-ls": '''\
def my_local_sensitivity(x, lower, upper):
    if not lower < upper:
        raise ValueError("lower < upper is needed")
    z = np.r_[lower, np.sort(np.clip(np.asarray(x, dtype=float), lower, upper)), upper]
    m = (len(x) + 1) // 2
    return float(max(z[m] - z[m - 1], z[m + 1] - z[m]))
''',

    # hw15 -- amplification by Poisson sampling: ln(1 + q (e^eps - 1)).
    "learn-ex-amplification": '''\
def my_amplification(epsilon, q):
    if not (math.isfinite(epsilon) and epsilon >= 0 and 0 <= q <= 1):
        raise ValueError("epsilon >= 0 finite and q in [0, 1] are needed")
    return math.log1p(q * math.expm1(epsilon))
''',

    # hw16 -- OUE: p = 1/2 for the user's own bit, q = 1 / (e^eps + 1) for every other bit.
    "ex-ldp-oue-estimator": '''\
def my_oue_estimate(ones, n, epsilon):
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError("epsilon must be a positive finite number")
    q = 1 / (math.exp(epsilon) + 1)
    return (np.asarray(ones, dtype=float) - n * q) / (0.5 - q)
''',

    # hw17 -- the largest sequence meeting both (epsilon, delta) constraints, built step by step.
    "scale-ex-keep-sequence": '''\
def my_keep(n_max, epsilon, delta):
    if not (int(n_max) == n_max and n_max >= 0 and math.isfinite(epsilon) and epsilon > 0 and 0 < delta < 1):
        raise ValueError("a whole n_max >= 0, a positive finite epsilon and delta in (0, 1) are needed")
    p = [0.0]
    for _ in range(int(n_max)):
        q = p[-1]
        p.append(min(math.exp(epsilon) * q + delta,                   # p(n) <= e^eps p(n-1) + delta
                     1 - math.exp(-epsilon) * (1 - q - delta),        # 1 - p(n-1) <= e^eps (1 - p(n)) + delta
                     1.0))
    return np.array(p)
''',

    # hw18 -- an epsilon-DP release multiplies the odds by at most e^epsilon.
    "world-ex-posterior": '''\
def my_posterior_bound(prior, epsilon):
    if not (0 <= prior <= 1 and math.isfinite(epsilon) and epsilon > 0):
        raise ValueError("prior in [0, 1] and a positive finite epsilon are needed")
    if prior == 0 or prior == 1:
        return float(prior)
    log_odds = math.log(prior) - math.log1p(-prior) + epsilon
    return 1 / (1 + math.exp(-log_odds)) if log_odds > -700 else math.exp(log_odds)
''',

    # hw19 -- one event changes one node of every level: a tree over T steps has T.bit_length() levels.
    "cr-ex-node-scale": '''\
def my_node_scale(horizon, epsilon):
    if not (int(horizon) == horizon and horizon >= 1 and math.isfinite(epsilon) and epsilon > 0):
        raise ValueError("a whole horizon >= 1 and a positive finite epsilon are needed")
    return int(horizon).bit_length() / epsilon
''',

    # hw20 -- K other datasets (k under add/remove, k - 1 under replace-one): K / (K + e^(eps m)).
    "lb-ex-packing-code": '''\
def my_packing_probability(k, epsilon, m, relation):
    if relation not in ("add_remove", "replace_one"):
        raise ValueError("relation must be 'add_remove' or 'replace_one'")
    if not (int(k) == k and k >= 1 and int(m) == m and m >= 1 and math.isfinite(epsilon) and epsilon > 0):
        raise ValueError("whole k, m >= 1 and a positive finite epsilon are needed")
    others = int(k) if relation == "add_remove" else int(k) - 1
    if others == 0:
        return 0.0
    x = epsilon * m - math.log(others)        # K / (K + e^(eps m)) = 1 / (1 + e^x), without overflow
    return 1 / (1 + math.exp(x)) if x < 700 else math.exp(-x)
''',

    # hw21 -- the Laplace trade-off curve: a line to the knee e^-eps / 2, the hyperbola to 1/2, a line after.
    "fdp-ex-laplace-code": '''\
def my_laplace_tradeoff(alpha, epsilon):
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError("epsilon must be a positive finite number")
    a = np.asarray(alpha, dtype=float)
    knee = math.exp(-epsilon) / 2
    with np.errstate(divide="ignore"):
        middle = math.exp(-epsilon) / (4 * a)
    return np.where(a < knee, 1 - math.exp(epsilon) * a, np.where(a <= 0.5, middle, math.exp(-epsilon) * (1 - a)))
''',

    # hw22 -- LiRA online: the log ratio of the two Gaussian densities, normalising terms included.
    "mia-ex-lira-online": '''\
def my_lira_online(phi, mu_in, sd_in, mu_out, sd_out):
    if not (sd_in > 0 and sd_out > 0):
        raise ValueError("standard deviations must be positive")
    phi = np.asarray(phi, dtype=float)

    def log_density(mu, sd):
        return -0.5 * ((phi - mu) / sd) ** 2 - math.log(sd) - 0.5 * math.log(2 * math.pi)

    return log_density(mu_in, sd_in) - log_density(mu_out, sd_out)
''',

    # hw23 -- centred on the noisy proportion; half-width from the exact law of normal plus Laplace (allowed).
    "inf-ex-proportion": '''\
def my_proportion_interval(noisy_count, n, epsilon):
    if not (int(n) == n and n >= 1 and math.isfinite(epsilon) and epsilon > 0 and math.isfinite(noisy_count)):
        raise ValueError("a whole n >= 1, a positive finite epsilon and a finite count are needed")
    p = noisy_count / n
    pc = min(max(p, 0.0), 1.0)                  # a noisy proportion may leave [0, 1]
    sigma = math.sqrt(pc * (1 - pc) / n)
    half = dpcourse.noise_aware_halfwidth(sigma, 1 / (n * epsilon))
    return p - half, p + half
''',

    # hw24 -- the tree model of the chain: q12 q23 / p2, with 0/0 = 0.
    "syn-ex-chain": '''\
def my_chain_joint(q12, q23):
    q12, q23 = np.asarray(q12, dtype=float), np.asarray(q23, dtype=float)
    if q12.shape[1] != q23.shape[0]:
        raise ValueError("the tables must share attribute 2")
    p2 = q12.sum(axis=0)
    inv = np.divide(1.0, p2, out=np.zeros_like(p2), where=p2 > 0)
    return q12[:, :, None] * inv[None, :, None] * q23[None, :, :]
''',
}
