"""Homework questions of hw13-hw24 (issue 36): hidden tests a grader can defend.

Coding questions: each checker takes ``rng=None`` (the book's cases: the verdicts and messages are those of the
book, pinned below) or the grader's numpy Generator, from which it draws its cases. An honest function passes
under every grader rng tried; each recognised slip, a call of the forbidden library function, and a lookup table
of the book's cases fail; what the checker hands the student is plain data, drawn afresh for each rng and the
same for the same seed.

Numeric questions: each variant is drawn uniformly from a pool of more than 200 members whose answers are
pairwise further apart than the checker's tolerance, so two students share an answer with probability
1 / len(pool) < 0.005. For every member (every one for the cheap questions, a seeded sample of 60 and both ends
for the four expensive ones) the answer computed here independently (closed forms, or a root of the exact
profile) passes, every slip computed here fails, and the book's worked answer fails; the book's own numbers are
never in a pool.
"""

import hashlib
import math

import numpy as np
import pytest
import scipy.special
from scipy import optimize, stats

import dpcourse
from dpcourse import exercises
from dpcourse.exercises import DEFAULT_REL_TOL, check_number
from dpcourse.exercises import continual as ex_continual
from dpcourse.exercises import deidentification as ex_deid
from dpcourse.exercises import fdp as ex_fdp
from dpcourse.exercises import inference as ex_inference
from dpcourse.exercises import learning as ex_learning
from dpcourse.exercises import local_dp as ex_local_dp
from dpcourse.exercises import lower_bounds as ex_lower_bounds
from dpcourse.exercises import membership as ex_membership
from dpcourse.exercises import quantiles as ex_quantiles
from dpcourse.exercises import queries as ex_queries
from dpcourse.exercises import scale as ex_scale
from dpcourse.exercises import synthetic as ex_synthetic
from dpcourse.fdp import tradeoff_epsilon_delta
from dpcourse.homework import questions
from dpcourse.inference import noise_aware_halfwidth

Z95 = 1.959963984540054

# ------------------------------------------------------------------------------------------------------------
# Students' functions: the honest one (the chapter's solution), the slips each checker names, a call of the
# forbidden library code.

# hw13 ---------------------------------------------------------------------------------------------------
def size_honest(n_queries, alpha):
    return math.floor(math.log(2 * n_queries) / (2 * alpha**2)) + 1


def size_weak(n_queries, alpha):          # the scaffold: the notes' constant, four times too large
    return math.ceil(2 * math.log(2 * n_queries) / alpha**2)


def size_one_tail(n_queries, alpha):
    return math.floor(math.log(n_queries) / (2 * alpha**2)) + 1


def size_rounding(n_queries, alpha):
    return math.floor(math.log(2 * n_queries) / (2 * alpha**2))


def size_real(n_queries, alpha):
    return math.log(2 * n_queries) / (2 * alpha**2)


# hw14 ---------------------------------------------------------------------------------------------------
def ls_honest(x, lower, upper):
    z = np.r_[lower, np.sort(np.clip(x, lower, upper)), upper]
    m = (len(x) + 1) // 2
    return max(z[m] - z[m - 1], z[m + 1] - z[m])


def ls_scaffold(x, lower, upper):
    z = np.sort(x)
    return float(z[-1] - z[0])


def ls_no_clamp(x, lower, upper):
    z = np.r_[lower, np.sort(x), upper]
    m = (len(x) + 1) // 2
    return max(z[m] - z[m - 1], z[m + 1] - z[m])


def ls_unsorted(x, lower, upper):
    z = np.r_[lower, np.clip(x, lower, upper), upper]
    m = (len(x) + 1) // 2
    return max(z[m] - z[m - 1], z[m + 1] - z[m])


def ls_upper_median(x, lower, upper):
    z = np.r_[lower, np.sort(np.clip(x, lower, upper)), upper]
    m = len(x) // 2 + 1
    return max(z[m] - z[m - 1], z[m + 1] - z[m])


def ls_library(x, lower, upper):
    return dpcourse.local_sensitivity(x, lower, upper)


# hw15 ---------------------------------------------------------------------------------------------------
def amp_honest(epsilon, q):
    return math.log1p(q * math.expm1(epsilon))


def amp_linear(epsilon, q):
    return q * epsilon


def amp_no_log(epsilon, q):
    return q * math.expm1(epsilon)


def amp_library(epsilon, q):
    return dpcourse.subsampling_amplification(epsilon, 0.0, q)[0]


# hw16 ---------------------------------------------------------------------------------------------------
def oue_honest(ones, n, epsilon):
    q = 1 / (math.exp(epsilon) + 1)
    return (ones - n * q) / (0.5 - q)


def oue_sue(ones, n, epsilon):
    e = math.exp(epsilon / 2)
    p, q = e / (e + 1), 1 / (e + 1)
    return (ones - n * q) / (p - q)


def oue_swapped(ones, n, epsilon):
    q = 1 / (math.exp(epsilon) + 1)
    return (ones - n * 0.5) / (q - 0.5)


def oue_uncentred(ones, n, epsilon):
    q = 1 / (math.exp(epsilon) + 1)
    return ones / (0.5 - q)


def oue_scaffold(ones, n, epsilon):
    return ones / n


# hw17 ---------------------------------------------------------------------------------------------------
def keep_honest(n_max, epsilon, delta):
    p = [0.0]
    for _ in range(n_max):
        q = p[-1]
        p.append(min(math.exp(epsilon) * q + delta, 1 - math.exp(-epsilon) * (1 - q - delta), 1.0))
    return np.array(p)


def keep_one_constraint(n_max, epsilon, delta):     # the scaffold: not private
    p = [0.0]
    for _ in range(n_max):
        p.append(min(math.exp(epsilon) * p[-1] + delta, 1.0))
    return np.array(p)


def keep_capped(n_max, epsilon, delta):             # private, not optimal
    return np.minimum(keep_honest(n_max, epsilon, delta), 0.5)


def keep_library(n_max, epsilon, delta):
    return dpcourse.partition_selection_probability(np.arange(n_max + 1), epsilon, delta)


# hw18 ---------------------------------------------------------------------------------------------------
def posterior_honest(prior, epsilon):
    return float(scipy.special.expit(scipy.special.logit(prior) + epsilon))


def posterior_probability(prior, epsilon):
    return min(1.0, math.exp(epsilon) * prior)


def posterior_half(prior, epsilon):
    return posterior_honest(prior, epsilon / 2)


def posterior_scaffold(prior, epsilon):
    return prior


def posterior_library(prior, epsilon):
    return dpcourse.posterior_bound(prior, epsilon)


# hw19 ---------------------------------------------------------------------------------------------------
def node_honest(horizon, epsilon):
    return horizon.bit_length() / epsilon


def node_log2(horizon, epsilon):
    return math.log2(horizon) / epsilon


def node_ceil(horizon, epsilon):
    return math.ceil(math.log2(horizon)) / epsilon


def node_single(horizon, epsilon):
    return 1 / epsilon


def node_naive(horizon, epsilon):
    return horizon / epsilon


def node_library(horizon, epsilon):
    return dpcourse.tree_levels(horizon) / epsilon


# hw20 ---------------------------------------------------------------------------------------------------
def packing_honest(k, epsilon, m, relation):
    K = k if relation == "add_remove" else k - 1
    return K / (K + math.exp(epsilon * m))


def packing_relation(k, epsilon, m, relation):
    K = k - 1 if relation == "add_remove" else k
    return K / (K + math.exp(epsilon * m))


def packing_sign(k, epsilon, m, relation):
    K = k if relation == "add_remove" else k - 1
    return K / (K + math.exp(-epsilon * m))


def packing_upside(k, epsilon, m, relation):
    K = k if relation == "add_remove" else k - 1
    return math.exp(epsilon * m) / (K + math.exp(epsilon * m))


def packing_scaffold(k, epsilon, m, relation):
    return k / (k + math.exp(epsilon * m))


# hw21 ---------------------------------------------------------------------------------------------------
def tradeoff_honest(alpha, epsilon):
    alpha = np.asarray(alpha, dtype=float)
    knee = math.exp(-epsilon) / 2
    with np.errstate(divide="ignore"):
        middle = math.exp(-epsilon) / (4 * alpha)
    return np.where(alpha < knee, 1 - math.exp(epsilon) * alpha,
                    np.where(alpha <= 0.5, middle, math.exp(-epsilon) * (1 - alpha)))


def tradeoff_pure(alpha, epsilon):
    return tradeoff_epsilon_delta(np.asarray(alpha, dtype=float), epsilon)


def tradeoff_const(alpha, epsilon):
    alpha = np.asarray(alpha, dtype=float)
    knee = math.exp(-epsilon)
    with np.errstate(divide="ignore"):
        return np.where(alpha < knee / 2, 1 - math.exp(epsilon) * alpha,
                        np.where(alpha <= 0.5, knee / (2 * alpha), knee * (1 - alpha)))


def tradeoff_knee(alpha, epsilon):
    alpha = np.asarray(alpha, dtype=float)
    return np.where(alpha < math.exp(-epsilon), 1 - math.exp(epsilon) * alpha, tradeoff_honest(alpha, epsilon))


def tradeoff_scaffold(alpha, epsilon):
    return 1 - np.asarray(alpha, dtype=float)


# hw22 ---------------------------------------------------------------------------------------------------
def lira_honest(phi, mu_in, sd_in, mu_out, sd_out):
    return stats.norm.logpdf(phi, mu_in, sd_in) - stats.norm.logpdf(phi, mu_out, sd_out)


def lira_upside(phi, mu_in, sd_in, mu_out, sd_out):
    return -lira_honest(phi, mu_in, sd_in, mu_out, sd_out)


def lira_variance(phi, mu_in, sd_in, mu_out, sd_out):
    return stats.norm.logpdf(phi, mu_in, sd_in**2) - stats.norm.logpdf(phi, mu_out, sd_out**2)


def lira_unnormalised(phi, mu_in, sd_in, mu_out, sd_out):
    return -(phi - mu_in) ** 2 / (2 * sd_in**2) + (phi - mu_out) ** 2 / (2 * sd_out**2)


def lira_scaffold(phi, mu_in, sd_in, mu_out, sd_out):
    return phi - mu_out


# hw23 ---------------------------------------------------------------------------------------------------
def prop_honest(noisy_count, n, epsilon):
    p = noisy_count / n
    pc = min(max(p, 0.0), 1.0)
    sigma = math.sqrt(pc * (1 - pc) / n)
    h = noise_aware_halfwidth(sigma, 1 / (n * epsilon))
    return p - h, p + h


def prop_no_noise(noisy_count, n, epsilon):
    p = noisy_count / n
    pc = min(max(p, 0.0), 1.0)
    h = 1.959963984540054 * math.sqrt(pc * (1 - pc) / n)
    return p - h, p + h


def prop_undivided(noisy_count, n, epsilon):
    p = noisy_count / n
    pc = min(max(p, 0.0), 1.0)
    h = noise_aware_halfwidth(math.sqrt(pc * (1 - pc) / n), 1 / epsilon)
    return p - h, p + h


def prop_normal(noisy_count, n, epsilon):
    p = noisy_count / n
    pc = min(max(p, 0.0), 1.0)
    h = 1.959963984540054 * math.sqrt(pc * (1 - pc) / n + 2 / (n * epsilon) ** 2)
    return p - h, p + h


def prop_unclipped(noisy_count, n, epsilon):
    p = noisy_count / n
    h = noise_aware_halfwidth(math.sqrt(abs(p * (1 - p)) / n), 1 / (n * epsilon))
    return p - h, p + h


def prop_scaffold(noisy_count, n, epsilon):
    p = noisy_count / n
    return p - 0.05, p + 0.05


# hw24 ---------------------------------------------------------------------------------------------------
def chain_honest(q12, q23):
    p2 = q12.sum(axis=0)
    inv = np.divide(1, p2, out=np.zeros_like(p2), where=p2 > 0)
    return q12[:, :, None] * q23[None, :, :] * inv[None, :, None]


def chain_product(q12, q23):
    return q12[:, :, None] * q23[None, :, :]


def chain_independent(q12, q23):
    p1, p2, p3 = q12.sum(axis=1), q12.sum(axis=0), q23.sum(axis=0)
    return p1[:, None, None] * p2[None, :, None] * p3[None, None, :]


def chain_nan(q12, q23):
    with np.errstate(all="ignore"):
        return q12[:, :, None] * q23[None, :, :] / q12.sum(axis=0)[None, :, None]


def oue_library(ones, n, epsilon):
    return dpcourse.local_dp.unary_encoding_estimate(np.zeros((n, 1), dtype=np.uint8), len(ones), epsilon)


def packing_library(k, epsilon, m, relation):
    return dpcourse.lower_bounds.packing_failure_probability(k, epsilon, m, relation=relation)


def tradeoff_library(alpha, epsilon):
    return dpcourse.fdp.tradeoff_laplace(alpha, epsilon)


def lira_library(phi, mu_in, sd_in, mu_out, sd_out):
    return dpcourse.membership.lira_scores(phi, None) + 0 * mu_in


def prop_library(noisy_count, n, epsilon):
    return dpcourse.proportion_interval(np.zeros(n), epsilon)


def chain_library(q12, q23):
    p = {0: q12.sum(axis=1), 1: q12.sum(axis=0), 2: q23.sum(axis=0)}
    return dpcourse.synthetic.tree_joint(p, {(0, 1): q12, (1, 2): q23}, [(0, 1), (1, 2)],
                                         (q12.shape[0], q12.shape[1], q23.shape[1]))


# label -> (assignment, checker, honest, slips, library call or None)
CODE = {
    "ex-release-sample-size": ("hw13", ex_queries.check_sample_size, size_honest,
                               [size_weak, size_one_tail, size_rounding, size_real], None),
    "ex-quant-ls": ("hw14", ex_quantiles.check_local_sensitivity, ls_honest,
                    [ls_scaffold, ls_no_clamp, ls_unsorted, ls_upper_median], ls_library),
    "learn-ex-amplification": ("hw15", ex_learning.check_amplification, amp_honest, [amp_linear, amp_no_log],
                               amp_library),
    "ex-ldp-oue-estimator": ("hw16", ex_local_dp.check_oue_estimator, oue_honest,
                             [oue_scaffold, oue_sue, oue_swapped, oue_uncentred], oue_library),
    "scale-ex-keep-sequence": ("hw17", ex_scale.check_keep_sequence, keep_honest,
                               [keep_one_constraint, keep_capped], keep_library),
    "world-ex-posterior": ("hw18", ex_deid.check_posterior_bound, posterior_honest,
                           [posterior_scaffold, posterior_probability, posterior_half], posterior_library),
    "cr-ex-node-scale": ("hw19", ex_continual.check_node_scale, node_honest,
                         [node_log2, node_ceil, node_single, node_naive], node_library),
    "lb-ex-packing-code": ("hw20", ex_lower_bounds.check_packing_probability, packing_honest,
                           [packing_scaffold, packing_relation, packing_sign, packing_upside], packing_library),
    "fdp-ex-laplace-code": ("hw21", ex_fdp.check_laplace_tradeoff, tradeoff_honest,
                            [tradeoff_scaffold, tradeoff_pure, tradeoff_const, tradeoff_knee], tradeoff_library),
    "mia-ex-lira-online": ("hw22", ex_membership.check_lira_online, lira_honest,
                           [lira_scaffold, lira_upside, lira_variance, lira_unnormalised], lira_library),
    "inf-ex-proportion": ("hw23", ex_inference.check_proportion_interval, prop_honest,
                          [prop_scaffold, prop_no_noise, prop_undivided, prop_normal, prop_unclipped], prop_library),
    "syn-ex-chain": ("hw24", ex_synthetic.check_chain_joint, chain_honest,
                     [chain_product, chain_independent, chain_nan], chain_library),
}


def _question(assignment, label):
    return next(q for q in questions(assignment) if q.label == label)


def _grader_rng(seed):
    """A generator as the grader builds one: a plain PCG64 Generator from a large seed."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(f"grader {seed}".encode()).digest()[:16], "little"))


def test_every_gradable_question_of_hw13_to_hw24_is_tested_here():
    graded = {(hw, q.label) for hw in (f"hw{i}" for i in range(13, 25)) for q in questions(hw)}
    assert graded == {(hw, label) for label, (hw, *_) in CODE.items()} | {(hw, label) for hw, label in NUMERIC}


# ------------------------------------------------------------------------------------------------------------
# rng=None: the book's cases, verdicts and messages as before this change (sha256 of each message, computed on
# the code before it; the chapters print these messages, and their stored outputs must not change).

GOLDEN = {
    "queries.check_sample_size:size_honest": (True, "b8502ed84b2e"),
    "queries.check_sample_size:size_weak": (False, "500b1a335b57"),
    "queries.check_sample_size:size_one_tail": (False, "6309fcc4dc6b"),
    "queries.check_sample_size:size_rounding": (False, "6309fcc4dc6b"),
    "queries.check_sample_size:size_real": (False, "94ce8bb6814d"),
    "quantiles.check_local_sensitivity:ls_honest": (True, "10b92ac6e0e3"),
    "quantiles.check_local_sensitivity:ls_scaffold": (False, "8a9dd8a72c6e"),
    "quantiles.check_local_sensitivity:ls_no_clamp": (False, "dbad21bef142"),
    "quantiles.check_local_sensitivity:ls_unsorted": (False, "be2557c609b7"),
    "quantiles.check_local_sensitivity:ls_upper_median": (False, "be2557c609b7"),
    "quantiles.check_local_sensitivity:ls_library": (False, "bb4210c83aae"),
    "learning.check_amplification:amp_honest": (True, "6e98c78a2ef7"),
    "learning.check_amplification:amp_linear": (False, "2724e84e0428"),
    "learning.check_amplification:amp_no_log": (False, "e8d87d7504b6"),
    "learning.check_amplification:amp_library": (False, "57b22fb4d400"),
    "local_dp.check_oue_estimator:oue_honest": (True, "5a6cfc6a999a"),
    "local_dp.check_oue_estimator:oue_sue": (False, "f96e6a6fc56f"),
    "local_dp.check_oue_estimator:oue_swapped": (False, "66fd00958664"),
    "local_dp.check_oue_estimator:oue_uncentred": (False, "1486f592b814"),
    "local_dp.check_oue_estimator:oue_scaffold": (False, "8ac961836cef"),
    "scale.check_keep_sequence:keep_honest": (True, "cf327463f5bf"),
    "scale.check_keep_sequence:keep_one_constraint": (False, "cf69d8966c7d"),
    "scale.check_keep_sequence:keep_capped": (False, "51c6efa637fc"),
    "scale.check_keep_sequence:keep_library": (False, "9b1ca710d865"),
    "deidentification.check_posterior_bound:posterior_honest": (True, "53ae1994b094"),
    "deidentification.check_posterior_bound:posterior_probability": (False, "a3b375979178"),
    "deidentification.check_posterior_bound:posterior_half": (False, "d6e4ab9b6c9f"),
    "deidentification.check_posterior_bound:posterior_scaffold": (False, "842a8f5a83da"),
    "deidentification.check_posterior_bound:posterior_library": (False, "347c65afd1fa"),
    "continual.check_node_scale:node_honest": (True, "59af4a5e1867"),
    "continual.check_node_scale:node_log2": (False, "c9326ef505a4"),
    "continual.check_node_scale:node_ceil": (False, "336953bf0523"),
    "continual.check_node_scale:node_single": (False, "330375792f83"),
    "continual.check_node_scale:node_naive": (False, "3fd63a3e6b23"),
    "continual.check_node_scale:node_library": (False, "6130005a0faf"),
    "lower_bounds.check_packing_probability:packing_honest": (True, "da0d1261a1cf"),
    "lower_bounds.check_packing_probability:packing_relation": (False, "8f526c4544c8"),
    "lower_bounds.check_packing_probability:packing_sign": (False, "a6c2d9121734"),
    "lower_bounds.check_packing_probability:packing_upside": (False, "a6c2d9121734"),
    "lower_bounds.check_packing_probability:packing_scaffold": (False, "2afef7557403"),
    "fdp.check_laplace_tradeoff:tradeoff_honest": (True, "e722bfa5277c"),
    "fdp.check_laplace_tradeoff:tradeoff_pure": (False, "e0f1df62b91e"),
    "fdp.check_laplace_tradeoff:tradeoff_const": (False, "e1d67a2259f2"),
    "fdp.check_laplace_tradeoff:tradeoff_knee": (False, "10b5a6fc3357"),
    "fdp.check_laplace_tradeoff:tradeoff_scaffold": (False, "44b5782062fc"),
    "membership.check_lira_online:lira_honest": (True, "7bb2daf9340e"),
    "membership.check_lira_online:lira_upside": (False, "7ff80cc626dd"),
    "membership.check_lira_online:lira_variance": (False, "9bcf94882e3e"),
    "membership.check_lira_online:lira_unnormalised": (False, "6b4fc3859427"),
    "membership.check_lira_online:lira_scaffold": (False, "fb373d03b987"),
    "inference.check_proportion_interval:prop_honest": (True, "e031f3f83d41"),
    "inference.check_proportion_interval:prop_no_noise": (False, "099276af4db9"),
    "inference.check_proportion_interval:prop_undivided": (False, "1a53e5675533"),
    "inference.check_proportion_interval:prop_normal": (False, "1346597a5bba"),
    "inference.check_proportion_interval:prop_unclipped": (True, "e031f3f83d41"),
    "inference.check_proportion_interval:prop_scaffold": (False, "cd932933fc21"),
    "synthetic.check_chain_joint:chain_honest": (True, "fab3bbbb69d5"),
    "synthetic.check_chain_joint:chain_product": (False, "9c97d46764b8"),
    "synthetic.check_chain_joint:chain_independent": (False, "d4e5b97b695a"),
    "synthetic.check_chain_joint:chain_nan": (False, "7d8367feab27"),
    "quantiles.check_interval_probability:0.514": (True, "53fc24269d73"),
    "quantiles.check_interval_probability:0.5142": (True, "53fc24269d73"),
    "quantiles.check_interval_probability:0.5": (False, "7f4b854d07ba"),
    "quantiles.check_interval_probability:0.3": (False, "7f4b854d07ba"),
    "quantiles.check_interval_probability:0.6": (False, "7f4b854d07ba"),
    "quantiles.check_interval_probability:1.5": (False, "1fcb25e2702e"),
    "quantiles.check_interval_probability:'0.5'": (False, "183277f76b7f"),
    "quantiles.check_interval_probability:nan": (False, "8d7361d0c8b6"),
    "quantiles.check_rank_bound:46.13": (True, "10797c4c986c"),
    "quantiles.check_rank_bound:46.1": (False, "e89eedd24052"),
    "quantiles.check_rank_bound:23.06": (False, "d79049dab909"),
    "quantiles.check_rank_bound:9.21": (False, "e89eedd24052"),
    "quantiles.check_rank_bound:27.7": (False, "e89eedd24052"),
    "quantiles.check_rank_bound:40.0": (False, "e89eedd24052"),
    "quantiles.check_rank_bound:-1.0": (False, "91fd649396c8"),
    "learning.check_output_sensitivity:0.4": (True, "46c0d293aac0"),
    "learning.check_output_sensitivity:0.2": (False, "1127f54cba19"),
    "learning.check_output_sensitivity:2000.0": (False, "a761655f9aa9"),
    "learning.check_output_sensitivity:400.0": (False, "eebac9bf06f2"),
    "learning.check_output_sensitivity:0.5": (False, "d1ad9c2875f8"),
    "learning.check_output_sensitivity:0.0": (False, "dbf2276ad096"),
    "local_dp.check_crossover_domain:25": (True, "78fcbaf2e997"),
    "local_dp.check_crossover_domain:24": (False, "8b867c3151d3"),
    "local_dp.check_crossover_domain:10": (False, "237a9a71bd12"),
    "local_dp.check_crossover_domain:2": (False, "89aa47f487e7"),
    "local_dp.check_crossover_domain:26": (False, "89aa47f487e7"),
    "local_dp.check_crossover_domain:24.5": (False, "56d1f1d82aea"),
    "local_dp.check_crossover_domain:1": (False, "41fd68e3dfad"),
    "scale.check_sum_scale:5760.0": (True, "b8166e298077"),
    "scale.check_sum_scale:1920.0": (False, "69336c08cc1d"),
    "scale.check_sum_scale:3840.0": (False, "7a2e31e1e48f"),
    "scale.check_sum_scale:7200.0": (False, "aa34e6cd97ae"),
    "scale.check_sum_scale:1440.0": (False, "d2aba8e83828"),
    "scale.check_sum_scale:2880.0": (False, "bde074fb6171"),
    "scale.check_sum_scale:100.0": (False, "0846741bfa35"),
    "scale.check_user_level_epsilon:2.0": (True, "822a0785b29e"),
    "scale.check_user_level_epsilon:0.1": (False, "5555de6a79dd"),
    "scale.check_user_level_epsilon:0.4472": (False, "a6127ab6ea6f"),
    "scale.check_user_level_epsilon:1.0": (False, "db50390e3eb8"),
    "scale.check_user_level_epsilon:True": (False, "4df0cc08bd24"),
    "deidentification.check_user_epsilon:30.0": (True, "9f50c8722f8e"),
    "deidentification.check_user_epsilon:1.5": (False, "2e09882936f2"),
    "deidentification.check_user_epsilon:1.0": (False, "e7dd23d40037"),
    "deidentification.check_user_epsilon:600.0": (False, "7c51438b3eec"),
    "deidentification.check_user_epsilon:29.0": (False, "836ac4d49c34"),
    "continual.check_tree_variance:1199.0": (True, "c2dc79f11663"),
    "continual.check_tree_variance:1199.000833": (True, "c2dc79f11663"),
    "continual.check_tree_variance:1200.0": (False, "6f8c26b3c11d"),
    "continual.check_tree_variance:1191.9": (False, "62e8a08e617f"),
    "continual.check_tree_variance:1998.3": (False, "1d437b726a0b"),
    "continual.check_tree_variance:199.83": (False, "af054b07171b"),
    "continual.check_tree_variance:12.0": (False, "de65abbe6552"),
    "continual.check_tree_variance:1000.0": (False, "b0748d0b31ff"),
    "lower_bounds.check_packing_error:5.5": (True, "02000c48021a"),
    "lower_bounds.check_packing_error:6.0": (False, "43f27983abb6"),
    "lower_bounds.check_packing_error:11.0": (False, "cdf097316026"),
    "lower_bounds.check_packing_error:5.99": (False, "ed06e0a5679a"),
    "lower_bounds.check_packing_error:5.0": (False, "a588da8d4820"),
    "lower_bounds.check_packing_error:0.0": (False, "a588da8d4820"),
    "fdp.check_gdp_epsilon:0.5": (False, "1f42697de3fc"),
    "fdp.check_gdp_epsilon:1.0": (False, "1f42697de3fc"),
    "fdp.check_gdp_epsilon:0.7": (False, "1f42697de3fc"),
    "fdp.check_gdp_epsilon:0.3": (False, "1f42697de3fc"),
    "fdp.check_gdp_epsilon:0.1": (False, "1f42697de3fc"),
    "membership.check_max_audit_epsilon:3.3": (False, "1b6b1f09eb8a"),
    "membership.check_max_audit_epsilon:3.2996": (False, "1b6b1f09eb8a"),
    "membership.check_max_audit_epsilon:3.0": (False, "1b6b1f09eb8a"),
    "membership.check_max_audit_epsilon:4.0": (False, "1b6b1f09eb8a"),
    "membership.check_max_audit_epsilon:3.49": (False, "adf18ed77c2e"),
    "inference.check_mean_halfwidth:78.4": (False, "18b82ab839f1"),
    "inference.check_mean_halfwidth:100.0": (False, "487c775c5d78"),
    "inference.check_mean_halfwidth:120.0": (False, "487c775c5d78"),
    "inference.check_mean_halfwidth:150.0": (False, "487c775c5d78"),
    "inference.check_mean_halfwidth:90.0": (False, "487c775c5d78"),
    "synthetic.check_one_way_sigma:5.916": (True, "5fc2119eb5bb"),
    "synthetic.check_one_way_sigma:1.58": (False, "c500f7e90bcf"),
    "synthetic.check_one_way_sigma:3.416": (False, "ca1a052d3aba"),
    "synthetic.check_one_way_sigma:8.367": (False, "1f1479711f85"),
    "synthetic.check_one_way_sigma:35.0": (False, "262596c14821"),
    "synthetic.check_selection_epsilon:0.3651": (True, "10a042c67182"),
    "synthetic.check_selection_epsilon:0.1826": (False, "41e8c840cba9"),
    "synthetic.check_selection_epsilon:0.8944": (False, "2987901a2880"),
    "synthetic.check_selection_epsilon:0.338": (False, "4d5ed2e174ce"),
    "synthetic.check_selection_epsilon:0.632": (False, "3e2b8f2c6146"),
}

_GOLDEN_NUMBERS = {
    "quantiles.check_interval_probability": (ex_quantiles.check_interval_probability,
                                             [0.514, 0.5142, 0.5, 0.3, 0.6, 1.5, "0.5", float("nan")]),
    "quantiles.check_rank_bound": (ex_quantiles.check_rank_bound, [46.13, 46.1, 23.06, 9.21, 27.7, 40.0, -1.0]),
    "learning.check_output_sensitivity": (ex_learning.check_output_sensitivity, [0.4, 0.2, 2000.0, 400.0, 0.5, 0.0]),
    "local_dp.check_crossover_domain": (ex_local_dp.check_crossover_domain, [25, 24, 10, 2, 26, 24.5, 1]),
    "scale.check_sum_scale": (ex_scale.check_sum_scale, [5760.0, 1920.0, 3840.0, 7200.0, 1440.0, 2880.0, 100.0]),
    "scale.check_user_level_epsilon": (ex_scale.check_user_level_epsilon, [2.0, 0.1, 0.4472, 1.0, True]),
    "deidentification.check_user_epsilon": (ex_deid.check_user_epsilon, [30.0, 1.5, 1.0, 600.0, 29.0]),
    "continual.check_tree_variance": (ex_continual.check_tree_variance,
                                      [1199.0, 1199.000833, 1200.0, 1191.9, 1998.3, 199.83, 12.0, 1000.0]),
    "lower_bounds.check_packing_error": (ex_lower_bounds.check_packing_error, [5.5, 6.0, 11.0, 5.99, 5.0, 0.0]),
    "fdp.check_gdp_epsilon": (ex_fdp.check_gdp_epsilon, [0.5, 1.0, 0.7, 0.3, 0.1]),
    "membership.check_max_audit_epsilon": (ex_membership.check_max_audit_epsilon, [3.3, 3.2996, 3.0, 4.0, 3.49]),
    "inference.check_mean_halfwidth": (ex_inference.check_mean_halfwidth, [78.4, 100.0, 120.0, 150.0, 90.0]),
    "synthetic.check_one_way_sigma": (ex_synthetic.check_one_way_sigma, [5.916, 1.58, 3.416, 8.367, 35.0]),
    "synthetic.check_selection_epsilon": (ex_synthetic.check_selection_epsilon,
                                          [0.3651, 0.1826, 0.8944, 0.338, 0.632]),
}


def _digest(result):
    return result.passed, hashlib.sha256(result.message.encode()).hexdigest()[:12]


def test_rng_none_keeps_the_book_verdicts_and_messages():
    seen = {}
    for label, (_, checker, honest, slips, library) in CODE.items():
        module = checker.__module__.rsplit(".", 1)[1]
        for fn in [honest, *slips] + ([library] if library is not None else []):
            key = f"{module}.{checker.__name__}:{fn.__name__}"
            if key in GOLDEN:
                seen[key] = _digest(checker(fn))
                assert _digest(checker(fn, rng=None)) == seen[key]
    for name, (checker, answers) in _GOLDEN_NUMBERS.items():
        for answer in answers:
            seen[f"{name}:{answer!r}"] = _digest(checker(answer))
    assert seen == GOLDEN


# ------------------------------------------------------------------------------------------------------------
# Coding questions under the grader's generator.

@pytest.mark.parametrize("label", sorted(CODE))
def test_honest_passes_and_every_slip_fails_under_grader_rngs(label):
    hw, checker, honest, slips, library = CODE[label]
    run = _question(hw, label).tests[0].run
    assert _question(hw, label).tests[0].gate
    for seed in range(6):
        verdict = run(honest, {}, _grader_rng(seed))
        assert verdict.passed, (seed, verdict.message)
    for slip in slips:
        for seed in range(6):
            assert not run(slip, {}, _grader_rng(100 + seed)).passed, (slip.__name__, seed)
    if library is not None:
        verdict = run(library, {}, _grader_rng(7))
        assert not verdict.passed and "asks you to write yourself" in verdict.message


def _key(args):
    def one(a):
        if isinstance(a, np.ndarray):
            return ("array", a.shape, a.tobytes())
        if isinstance(a, (list, tuple)):
            return tuple(one(x) for x in a)
        return a
    return tuple(one(a) for a in args)


def _recording(fn, calls):
    def spy(*args):
        calls.append(args)
        return fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    return spy


def _plain(a):
    if isinstance(a, (bool, int, float, str)) or a is None:
        return True
    if isinstance(a, (list, tuple)):
        return all(_plain(x) for x in a)
    if isinstance(a, dict):
        return all(_plain(k) and _plain(v) for k, v in a.items())
    return type(a) is np.ndarray and a.dtype.kind in "biuf"


@pytest.mark.parametrize("label", sorted(CODE))
def test_a_lookup_table_of_the_book_cases_fails_under_grader_rngs(label):
    hw, checker, honest, slips, _ = CODE[label]
    public = []
    assert checker(_recording(honest, public)).passed
    table = {_key(args): honest(*args) for args in public}

    def lookup(*args):   # the book's answers where it knows them, its author's wrong code elsewhere
        key = _key(args)
        return table[key] if key in table else slips[0](*args)

    assert checker(lookup).passed     # the book's self-check cannot tell
    run = _question(hw, label).tests[0].run
    for seed in range(5):
        assert not run(lookup, {}, _grader_rng(200 + seed)).passed, seed


@pytest.mark.parametrize("label", sorted(CODE))
def test_grader_cases_are_plain_data_drawn_afresh_and_reproducible(label):
    hw, checker, honest, _, _ = CODE[label]
    public, first, again, other = [], [], [], []
    checker(_recording(honest, public))
    assert checker(_recording(honest, first), rng=_grader_rng(1)).passed
    checker(_recording(honest, again), rng=_grader_rng(1))
    checker(_recording(honest, other), rng=_grader_rng(2))
    assert [_key(a) for a in first] == [_key(a) for a in again]           # the same seed: the same cases
    assert [_key(a) for a in first] != [_key(a) for a in other]           # another seed: other cases
    assert not {_key(a) for a in first} <= {_key(a) for a in public}      # not the book's cases
    assert all(_plain(a) for args in first + other for a in args)
    with pytest.raises(TypeError, match="rng"):
        checker(honest, rng=12345)


@pytest.mark.parametrize("label", sorted(CODE))
def test_hidden_inputs_are_not_named_when_the_grader_hides_them(label, monkeypatch):
    if not hasattr(exercises, "SHOW_INPUTS"):
        pytest.skip("dpcourse.exercises has no SHOW_INPUTS switch")
    hw, checker, _, slips, _ = CODE[label]
    monkeypatch.setattr(exercises, "SHOW_INPUTS", False)
    verdict = checker(slips[0], rng=_grader_rng(3))
    assert not verdict.passed and "the grader's cases" in verdict.message


def test_the_unclipped_proportion_passes_the_book_but_not_the_grader():
    """The book's four releases all lie inside [0, n]; the grader always draws one outside."""
    assert ex_inference.check_proportion_interval(prop_unclipped).passed
    for seed in range(10):
        assert not ex_inference.check_proportion_interval(prop_unclipped, rng=_grader_rng(seed)).passed


# ------------------------------------------------------------------------------------------------------------
# Numeric questions: the answer and the slips for given numbers, computed here without the checkers.

def _interval(p):
    """P(interval 1) = c1 / ((c0 + c3) e^(-eps/2) + c1 + c2): c_i grid points per interval, utilities -1.5, -0.5."""
    c0, c1 = p["x1"] - p["lower"] + 1, p["x2"] - p["x1"]
    c2, c3, e = p["x3"] - p["x2"], p["upper"] - p["x3"], p["epsilon"]
    return (c1 / ((c0 + c3) * math.exp(-e / 2) + c1 + c2),
            [c1 / ((c0 + c3) * math.exp(-e) + c1 + c2), 1 / (2 * math.exp(-e / 2) + 2)])


def _rank(p):
    e, b, K = p["epsilon"], p["beta"], p["K"]
    t = 2 / e * math.log((K + 1) / b)
    return t, [t / 2, 2 / e * math.log(1 / b), 2 / e * math.log(K + 1)]


def _sensitivity(p):
    n, lam = p["n"], p["lambda"]
    return 2 / (n * lam), [1 / (n * lam), 2 / lam, 2 / (n * lam**2)]


def _crossover(p):
    """OUE's variance 4 e^eps / (e^eps - 1)^2 is below k-RR's (d - 2 + e^eps) / (e^eps - 1)^2 iff d > 3 e^eps + 2."""
    e = math.exp(p["epsilon"])
    return math.floor(3 * e + 2) + 1, [math.ceil(e + 2), math.floor(3 * e + 2)]


def _sum_scale(p):
    e, m, c, lo, hi = p["epsilon"], p["m"], p["c"], p["lower"], p["upper"]
    big, small = max(abs(lo), abs(hi)), min(abs(lo), abs(hi))
    return 3 * m * c * big / e, [m * c * big / e, 2 * m * c * big / e, 3 * m * c * (hi - lo) / e,
                                 3 * m * c * small / e, 3 * c * big / e, 3 * m * big / e]


def _user_level(p):
    e, k = p["epsilon"], p["max_events"]
    return k * e, [e, math.sqrt(k) * e]


def _unit(p):
    e, k, days = p["epsilon"], p["events_per_day"], p["days"]
    return e * k * days, [e * days, e * k, e * k * k * days]


def _tree(p):
    """popcount(t) nodes of discrete Laplace noise of scale L / epsilon, variance 1 / (2 sinh^2(epsilon / 2L))."""
    T, t, e = p["T"], p["t"], p["epsilon"]
    L, used = T.bit_length(), bin(t).count("1")
    node = 0.5 / math.sinh(e / (2 * L)) ** 2
    return used * node, [used * 2 * (math.log2(T) / e) ** 2, L * node, node, used * 2 / e**2, used * 2 * (L / e) ** 2]


def _packing(p):
    k, e = p["k"], p["epsilon"]
    real = math.log(k - 1) / e
    return math.floor(real) / 2, [math.floor(math.log(k) / e) / 2, math.floor(real), real / 2, math.ceil(real) / 2]


def _gaussian_epsilon(delta, mu):
    """The root in epsilon of Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta (the Gaussian profile)."""
    def excess(eps):
        return scipy.special.ndtr(-eps / mu + mu / 2) - math.exp(eps + scipy.special.log_ndtr(-eps / mu - mu / 2)) \
            - delta
    return optimize.brentq(excess, 0.0, 200.0, xtol=1e-14, rtol=1e-13) if excess(0.0) > 0 else 0.0


def _gdp(p):
    r, d = p["rho"], p["delta"]
    return _gaussian_epsilon(d, math.sqrt(2 * r)), [_gaussian_epsilon(d, r), _gaussian_epsilon(d, math.sqrt(r)),
                                                    r + 2 * math.sqrt(r * math.log(1 / d))]


def _audit(p):
    r, alpha = p["r"], 1 - p["confidence"]
    a, whole = (alpha / 2) ** (1 / r), alpha ** (1 / r)
    return math.log(a / (1 - a)), [math.log(whole / (1 - whole)), math.log(1 / (1 - a)), math.log((r - 3) / 3)]


def _normal_laplace_halfwidth(sigma, b):
    """The h with P(|S + L| <= h) = 0.95, S ~ N(0, sigma^2), L ~ Laplace(b), from the closed-form law of S + L."""
    k = sigma / b

    def cdf(x):
        return (scipy.special.ndtr(x / sigma) - 0.5 * math.exp(k * k / 2 - x / b) * scipy.special.ndtr(x / sigma - k)
                + 0.5 * math.exp(k * k / 2 + x / b) * scipy.special.ndtr(-x / sigma - k))
    return optimize.brentq(lambda h: 2 * cdf(h) - 1 - 0.95, 0.0, 10 * (sigma + b), xtol=1e-12, rtol=1e-13)


def _halfwidth(p):
    n, e, width, var = p["n"], p["epsilon"], p["width"], p["variance"]
    sigma, b = math.sqrt(var / n), width / (n * 0.8 * e)
    return _normal_laplace_halfwidth(sigma, b), [Z95 * sigma, _normal_laplace_halfwidth(sigma, width / (n * e)),
                                                 Z95 * sigma + b * math.log(20), Z95 * math.sqrt(sigma**2 + 2 * b**2)]


def _sigma(p):
    d, r1 = p["d"], p["rho"] / 3
    return math.sqrt(d / (2 * r1)), [math.sqrt(1 / (2 * r1)), math.sqrt(d / (2 * p["rho"])), math.sqrt(d / r1),
                                     d / (2 * r1)]


def _selection(p):
    d, rs = p["d"], p["rho"] / 3
    return math.sqrt(8 * rs / (d - 1)), [math.sqrt(2 * rs / (d - 1)), math.sqrt(8 * rs), math.sqrt(8 * rs / d),
                                         math.sqrt(8 * p["rho"] / (d - 1))]


# (hw, label) -> (answer and slips, the book's numbers with the names of the exercise's text, expensive)
NUMERIC = {
    ("hw14", "ex-quant-interval"): (_interval, {"x1": 2, "x2": 5, "x3": 6, "lower": 0, "upper": 8, "epsilon": 2.0},
                                    True),
    ("hw14", "ex-quant-rank"): (_rank, {"K": 1024, "epsilon": 0.5, "beta": 0.01}, False),
    ("hw15", "learn-ex-sensitivity"): (_sensitivity, {"n": 5000, "lambda": 1e-3}, False),
    ("hw16", "ex-ldp-crossover"): (_crossover, {"epsilon": 2.0}, False),
    ("hw17", "scale-ex-sum-scale"): (_sum_scale, {"epsilon": 1.0, "m": 4, "c": 2, "lower": -60, "upper": 240}, False),
    ("hw17", "scale-ex-user-level"): (_user_level, {"epsilon": 0.1, "max_events": 20}, False),
    ("hw18", "world-ex-unit"): (_unit, {"epsilon": 0.05, "events_per_day": 20, "days": 30}, False),
    ("hw19", "cr-ex-tree-variance"): (_tree, {"T": 1000, "t": 1000, "epsilon": 1.0}, False),
    ("hw20", "lb-ex-packing-error"): (_packing, {"k": 21, "epsilon": 0.25}, True),
    ("hw21", "fdp-ex-wikimedia"): (_gdp, {"rho": 0.015, "delta": 1e-7}, True),
    ("hw22", "mia-ex-max-audit"): (_audit, {"r": 100, "confidence": 0.95}, False),
    ("hw23", "inf-ex-halfwidth"): (_halfwidth, {"n": 400, "epsilon": 0.5, "width": 5000.0, "variance": 640000.0},
                                   True),
    ("hw24", "syn-ex-sigma"): (_sigma, {"d": 7, "rho": 0.3}, False),
    ("hw24", "syn-ex-selection"): (_selection, {"d": 7, "rho": 0.3}, False),
}


def test_the_independent_answers_are_the_books():
    """The formulas above give the answers the chapters' solutions state for the book's numbers."""
    book = {label: formula(numbers)[0] for (_, label), (formula, numbers, _) in NUMERIC.items()}
    assert book["ex-quant-interval"] == pytest.approx(3 * math.exp(-0.5) / (5 * math.exp(-1.5) + 4 * math.exp(-0.5)))
    assert book["ex-quant-rank"] == pytest.approx(4 * math.log(102500))
    assert book["learn-ex-sensitivity"] == pytest.approx(0.4)
    assert book["ex-ldp-crossover"] == 25
    assert book["scale-ex-sum-scale"] == pytest.approx(5760)
    assert book["scale-ex-user-level"] == pytest.approx(2.0)
    assert book["world-ex-unit"] == pytest.approx(30.0)
    assert book["cr-ex-tree-variance"] == pytest.approx(dpcourse.tree_variance(1000, 1000, 1.0), rel=1e-12)
    assert book["lb-ex-packing-error"] == 5.5
    assert book["fdp-ex-wikimedia"] == pytest.approx(dpcourse.gaussian_epsilon(1e-7, math.sqrt(0.03)), rel=1e-9)
    assert book["mia-ex-max-audit"] == pytest.approx(math.log(0.025 ** 0.01 / (1 - 0.025 ** 0.01)))
    assert book["inf-ex-halfwidth"] == pytest.approx(noise_aware_halfwidth(40.0, 5000 / (400 * 0.8 * 0.5)), rel=1e-9)
    assert book["syn-ex-sigma"] == pytest.approx(math.sqrt(7 / 0.2))
    assert book["syn-ex-selection"] == pytest.approx(math.sqrt(8 * 0.1 / 6))


def _members(pool, expensive):
    if not expensive:
        return list(pool)
    pick = np.random.default_rng(36).choice(len(pool), size=60, replace=False)
    return [pool[0], pool[-1]] + [pool[i] for i in sorted(pick)]


@pytest.mark.parametrize("hw,label", sorted(NUMERIC))
def test_numeric_pool_answers_slips_and_the_books_answer(hw, label):
    formula, book, expensive = NUMERIC[(hw, label)]
    q = _question(hw, label)
    variant, run = q.variant, q.tests[0].run
    pool = variant.pool()
    assert variant.book == book and book not in pool
    assert all(set(p) == set(book) for p in pool)            # the keys are the names the text uses
    book_answer = formula(book)[0]
    tol = variant.question(book).get("rel_tol", DEFAULT_REL_TOL)
    for p in _members(pool, expensive):
        numbers = variant.question(p)                       # what the checker is called with
        truth, slips = formula(p)
        assert numbers["truth"] == pytest.approx(truth, rel=1e-9), p
        assert q.expected(p) == pytest.approx(truth, rel=1e-9)
        assert check_number(truth, **numbers).passed, p
        for slip in slips:
            assert not check_number(slip, **numbers).passed, (p, slip)
            if numbers.get("integer"):
                assert slip != truth, (p, slip)
            else:                                               # a slip typed to 4 digits still fails
                assert abs(slip - truth) > 2 * tol * abs(truth), (p, slip)
        assert not check_number(book_answer, **numbers).passed, p     # copying the book's answer fails
    # no two members accept each other's answer: two students share an answer with probability 1 / len(pool)
    answers = sorted(formula(p)[0] for p in pool)
    if variant.question(book).get("integer"):
        assert len(set(answers)) == len(answers)
    else:
        assert all(b - a > tol * b for a, b in zip(answers, answers[1:]))
    assert 1 / len(pool) <= 0.005
    # the hidden test itself: the student's answer for their numbers passes, a classmate's does not
    for i in np.random.default_rng(13).choice(len(pool), size=4, replace=False):
        mine, classmate = pool[i], pool[(i + 1) % len(pool)]
        assert run(formula(mine)[0], mine, _grader_rng(0)).passed
        assert not run(formula(classmate)[0], mine, _grader_rng(0)).passed


@pytest.mark.parametrize("hw,label", sorted(NUMERIC))
def test_a_variant_is_a_uniform_draw_from_the_pool(hw, label):
    variant = _question(hw, label).variant
    pool = variant.pool()
    for seed in range(30):
        drawn = variant(np.random.default_rng(seed))
        assert drawn == pool[int(np.random.default_rng(seed).integers(len(pool)))]
        assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in drawn.values())


def test_collisions_among_20000_students():
    """The smallest pool, drawn for 20,000 ids as the grader derives seeds: sum p^2 estimated below 0.005."""
    sizes = {(hw, label): len(_question(hw, label).variant.pool()) for hw, label in NUMERIC}
    hw, label = min(sizes, key=sizes.get)
    variant, book = _question(hw, label).variant, NUMERIC[(hw, label)][1]
    counts = {}
    for i in range(20_000):
        seed = int.from_bytes(hashlib.sha256(f"{hw}\x00{label}\x00s{i}".encode()).digest()[:16], "little")
        drawn = variant(np.random.default_rng(seed))
        assert drawn != book
        key = tuple(sorted(drawn.items()))
        counts[key] = counts.get(key, 0) + 1
    n = 20_000
    collision = sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))
    assert collision <= 0.005
    assert collision == pytest.approx(1 / sizes[(hw, label)], rel=0.1)
