"""Mutation testing of the privacy-critical lines of dpcourse: is every one-token slip caught by a test?

Each mutant is one textual change to one file (a scale, a factor 2, a delta split, a clamp, a fresh rng,
a single-draw path, the accountant's grouping, a conversion, ...). The script copies ``dpcourse/``,
``tests/`` and ``pyproject.toml`` of this checkout to a scratch directory (the working tree is never
touched), checks that the unmutated copy passes the selected tests, then for each mutant applies the
change, runs the mutant's unit tests (``pytest -p no:xdist -x -q``, never the notebooks) and reports it
*killed* (a test failed) or *survived* (every test passed: a hole in the test suite).

Usage (from the repository root, inside the project's venv)::

    python tools/mutation_test.py                 # every mutant
    python tools/mutation_test.py --list          # names and classes only
    python tools/mutation_test.py -k accountant   # mutants whose name or class contains a word
    python tools/mutation_test.py --jobs 2        # two mutants at a time (two scratch copies)

Exit status 0 only if every mutant selected was killed. Adding a mutant: append a ``Mutant`` to
``MUTANTS`` (``old`` must occur exactly once in the file, or give ``occurrence``; the script refuses
an ambiguous or missing ``old``, and a mutant that does not compile, so a stale entry is noticed).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Mutant:
    name: str          # unique, short
    cls: str           # the class of slip: scale, factor-2, delta-split, clamp, fresh-rng, ...
    path: str          # file, relative to the repository root
    old: str           # exact text to replace
    new: str           # replacement
    tests: tuple       # test files (relative paths) that must kill it
    occurrence: int | None = None  # which occurrence of ``old`` (0-based) when it is not unique


T_VAL = ("tests/test_validation.py",)
T_SEL = ("tests/test_selection.py",)
T_XSEL = ("tests/test_exact_selection.py",)
T_ACC = ("tests/test_accounting.py",)
T_COMP = ("tests/test_composition.py",)
T_RR = ("tests/test_randomized_response.py",)
T_SENS = ("tests/test_sensitivity.py",)
T_AUD = ("tests/test_audit.py",)
T_DIV = ("tests/test_divergences.py",)
T_GAU = ("tests/test_gaussian.py", "tests/test_gaussian_profile.py")
T_LAP = ("tests/test_laplace.py", "tests/test_textbook_samplers.py")
T_HIST = ("tests/test_histogram.py",)
T_DISC = ("tests/test_discrete.py",)
T_QRY = ("tests/test_queries.py",)
T_LDP = ("tests/test_local_dp.py",)
T_EXT = ("tests/test_extreme_magnitudes.py",)
T_MSG = ("tests/test_private_error_messages.py",)
T_FAST = ("tests/test_fast_paths.py", "tests/test_golden_noise.py")

V, SEL, ACC, COMP = "dpcourse/_validation.py", "dpcourse/selection.py", "dpcourse/accounting.py", "dpcourse/composition.py"
RR, SENS, AUD, DIV = "dpcourse/rr.py", "dpcourse/sensitivity.py", "dpcourse/audit.py", "dpcourse/divergences.py"
GAU, LAP, HIST, DISC = "dpcourse/gaussian.py", "dpcourse/laplace.py", "dpcourse/histogram.py", "dpcourse/discrete.py"
APX = "dpcourse/approx_dp.py"
QRY = "dpcourse/queries.py"
QNT = "dpcourse/quantiles.py"
T_QNT = ("tests/test_quantiles.py",)

MUTANTS = [
    # ---- validation and fresh randomness
    Mutant("as_rng_none_seeds_0", "fresh-rng", V, "        return np.random.default_rng()\n",
           "        return np.random.default_rng(0)\n", T_VAL + T_SEL),
    Mutant("check_real_accepts_nan", "validation", V, "    if np.isnan(x):\n", "    if False:\n", T_VAL),
    Mutant("check_real_huge_int_bare_overflow", "validation", V, "    except OverflowError:  # an int",
           "    except ZeroDivisionError:  # an int", T_VAL),
    Mutant("check_real_accepts_low_end", "validation", V, "(x < low or (low_open and x == low))", "(x < low)", T_VAL),
    Mutant("check_delta_accepts_one", "validation", V, "high=1.0, high_open=True)", "high=1.0, high_open=False)",
           T_VAL),
    Mutant("check_real_array_accepts_inf", "validation", V, "    if not finite.all():\n", "    if False:\n", T_VAL),
    Mutant("check_real_object_0d_bool", "validation", V, 'if value.dtype.kind not in "iuf":  # bool',
           'if value.dtype.kind not in "iufbO":  # bool', T_VAL),
    # ---- selection: factor 2, scales, single-draw paths, random order, coins, stability
    Mutant("selection_factor_2_dropped", "factor-2", SEL, 'k = 1.0 if check_flag(monotone, "monotone") else 2.0',
           'k = 1.0 if check_flag(monotone, "monotone") else 1.0', T_SEL, occurrence=0),
    Mutant("accuracy_gap_factor_2_dropped", "factor-2", SEL,
           'k = 1.0 if check_flag(monotone, "monotone") else 2.0',
           'k = 1.0 if check_flag(monotone, "monotone") else 1.0', T_SEL, occurrence=1),
    Mutant("em_single_draw_is_argmax", "single-draw", SEL,
           "return int(out) if size is None else out.astype(np.int64)",
           "return int(np.argmax(p)) if size is None else out.astype(np.int64)", T_SEL),
    Mutant("rnm_single_draw_is_argmax", "single-draw", SEL,
           "return int(np.argmax(logits + _draw_noise(gen, noise, m)))", "return int(np.argmax(logits))", T_SEL),
    Mutant("pf_single_draw_is_argmax", "single-draw", SEL, "return int(out[0]) if size is None else out",
           "return int(np.argmax(p)) if size is None else out", T_SEL, occurrence=1),
    Mutant("rnm_noise_halved", "scale", SEL, "np.argmax(logits + _draw_noise(gen, noise, (stop - start, m)), axis=1)",
           "np.argmax(logits + 0.5 * _draw_noise(gen, noise, (stop - start, m)), axis=1)", T_SEL),
    Mutant("pf_coin_too_likely", "scale", SEL, "heads = gen.random((k, m)) < p", "heads = gen.random((k, m)) < np.sqrt(p)",
           T_SEL),
    Mutant("pf_fixed_order", "fresh-rng", SEL, "arrival = gen.random((k, m))",
           "arrival = np.tile(np.arange(m, dtype=float) / m, (k, 1))", T_SEL),
    Mutant("em_probabilities_scale", "scale", SEL, "    coef = eps / (k * delta)\n", "    coef = 1.1 * eps / (k * delta)\n",
           T_SEL),
    Mutant("em_not_max_subtracted", "stability", SEL, "diff = u - u.max()", "diff = u - u.min()", T_SEL),
    # ---- composition theorems and conversions
    Mutant("basic_delta_not_multiplied", "delta-split", COMP, "    return k * eps, k * d\n", "    return k * eps, d\n",
           T_COMP),
    Mutant("advanced_sqrt_factor_2", "factor-2", COMP, "eps * math.sqrt(2.0 * k * -math.log(dp))",
           "eps * math.sqrt(k * -math.log(dp))", T_COMP),
    Mutant("advanced_drift_halved", "factor-2", COMP, "drift = k * eps * math.expm1(eps)",
           "drift = k * eps * math.expm1(eps) / 2", T_COMP),
    Mutant("optimal_rr_pair_half_eps", "scale", COMP, "    log_q = log_p - eps  #", "    log_q = log_p - 0.5 * eps  #",
           T_COMP),
    Mutant("optimal_rounding_guard_off", "clamp", COMP, "        if _delta_of_atoms(loss, logp, e) <= delta:\n",
           "        if True:\n", T_COMP),
    Mutant("zcdp_factor_2", "factor-2", COMP, "return r + 2.0 * math.sqrt(r * -math.log(d))",
           "return r + math.sqrt(r * -math.log(d))", T_COMP),
    Mutant("rdp_gaussian_halved", "factor-2", COMP, "return _out(a * m * m / 2.0, alpha)",
           "return _out(a * m * m / 4.0, alpha)", T_COMP + T_ACC),
    Mutant("mironov_conversion_alpha", "conversion", COMP, "return -math.log(delta) / (a - 1)",
           "return -math.log(delta) / a", T_COMP),
    Mutant("improved_conversion_log_alpha", "conversion", COMP, "(math.log(delta) + np.log(a)) / (a - 1)",
           "(math.log(delta) + 2 * np.log(a)) / (a - 1)", T_COMP),
    Mutant("pure_dp_rdp_is_laplace", "conversion", COMP, "return _pure_dp_curve(alpha, epsilon, _rr_log_moment)",
           "return _pure_dp_curve(alpha, epsilon, _laplace_log_moment)", T_COMP + T_ACC),
    Mutant("gaussian_composition_no_sqrt_k", "scale", COMP, "mu = math.sqrt(k) * sens / s", "mu = sens / s", T_COMP),
    Mutant("optimal_k_cap_off", "validation", COMP, "    if k + 1 > MAX_ATOMS:\n", "    if False:\n", T_COMP),
    Mutant("group_privacy_delta_linear", "delta-split", APX, "return k * eps, float(d * np.exp(log_ratio))",
           "return k * eps, float(d * k)", T_GAU),
    # ---- the accountant: grouping, delta splits, slack, caching
    Mutant("accountant_optimal_merges_groups", "accountant-grouping", ACC, "        groups[e.epsilon] += n\n",
           "        groups[e.epsilon] = n\n", T_ACC),
    Mutant("accountant_advanced_delta_not_split", "delta-split", ACC, "gaussian_epsilon((delta - dp) / k, mu)",
           "gaussian_epsilon(delta - dp, mu)", T_ACC),
    Mutant("accountant_basic_delta_not_split", "delta-split", ACC, "    d0 = delta / runs\n", "    d0 = delta\n", T_ACC),
    Mutant("accountant_rdp_pure_counts_ignored", "accountant-grouping", ACC,
           "terms = [(f, eps, n) for (f, eps), n in groups.items()]",
           "terms = [(f, eps, 1) for (f, eps), n in groups.items()]", T_ACC),
    Mutant("accountant_rdp_gaussian_counts_ignored", "accountant-grouping", ACC,
           "math.fsum(n * (e.l2_sensitivity / e.sigma) ** 2 for e, n in gauss)",
           "math.fsum((e.l2_sensitivity / e.sigma) ** 2 for e, n in gauss)", T_ACC),
    Mutant("accountant_pure_gets_laplace_curve", "conversion", ACC,
           "(rdp_laplace if isinstance(e, LaplaceEvent) else rdp_pure_dp, e.epsilon)",
           "(rdp_laplace, e.epsilon)", T_ACC),
    Mutant("accountant_exact_counts_ignored", "accountant-grouping", ACC,
           "mu = math.sqrt(sum(n * e.mu ** 2 for e, n in gauss))", "mu = math.sqrt(sum(e.mu ** 2 for e, n in gauss))",
           T_ACC),
    Mutant("accountant_basic_group_counts_ignored", "accountant-grouping", ACC,
           "np.bincount(inverse, weights=n, minlength=mus.size)", "np.bincount(inverse, minlength=mus.size)", T_ACC),
    Mutant("accountant_flatten_ignores_k", "accountant-grouping", ACC, "_flatten(event.event, times * event.k, counts)",
           "_flatten(event.event, times, counts)", T_ACC),
    Mutant("accountant_stale_cache", "accountant-grouping", ACC, "        self._cache = None\n        return self\n",
           "        return self\n", T_ACC),
    Mutant("max_compositions_1pct_slack", "clamp", ACC, "<= eps * (1 + 1e-12)", "<= eps * (1 + 1e-2)", T_ACC),
    Mutant("gaussian_event_mu_inverted", "scale", ACC, "        return self.l2_sensitivity / self.sigma\n",
           "        return self.sigma / self.l2_sensitivity\n", T_ACC),
    # ---- randomized response
    Mutant("rr_truth_probability_factor_2", "factor-2", RR, "return 1.0 / (1.0 + math.exp(-eps))",
           "return 1.0 / (1.0 + math.exp(-2 * eps))", T_RR),
    Mutant("rr_never_flips", "scale", RR, "keep = bernoulli(gen, x.shape, lambda prec: logistic_bounds(eps, prec))",
           "keep = np.ones(x.shape, dtype=bool)", T_RR),
    Mutant("rr_epsilon_one_sided", "factor-2", RR, "return math.log1p(2.0 * g) - math.log1p(-2.0 * g)",
           "return math.log1p(2.0 * g)", T_RR),
    Mutant("rr_estimator_slope", "scale", RR, "est = (y.mean(axis=0) - flip_prob) / _keep_minus_flip(eps)",
           "est = (y.mean(axis=0) - flip_prob) / _keep_minus_flip(2 * eps)", T_RR),
    Mutant("rr_sample_size_union_bound", "factor-2", RR, "log_term = math.log(2.0 * k) - math.log(b)",
           "log_term = math.log(k) - math.log(b)", T_RR),
    Mutant("rr_standard_error_exponent", "factor-2", RR, "return math.exp(-eps / 2.0) / (math.sqrt(n)",
           "return math.exp(-eps) / (math.sqrt(n)", T_RR),
    # ---- sensitivity by brute force
    Mutant("sensitivity_add_remove_no_insertions", "neighbours", SENS, "                    yield idx[:i] + (j,) + idx[i:]\n",
           "                    yield idx\n", T_SENS),
    Mutant("sensitivity_add_remove_no_removals", "neighbours", SENS, "                yield idx[:i] + idx[i + 1:]\n",
           "                yield idx\n", T_SENS),
    # ---- auditor
    Mutant("audit_no_bonferroni", "delta-split", AUD, "alpha = (1.0 - conf) / 2.0", "alpha = 1.0 - conf", T_AUD),
    Mutant("audit_reuses_selection_draws", "fresh-rng", AUD,
           "num, den = (a[n_select:], b[n_select:]) if d == 0 else (b[n_select:], a[n_select:])",
           "num, den = (a[:n_bound], b[:n_bound]) if d == 0 else (b[:n_bound], a[:n_bound])", T_AUD),
    Mutant("audit_cp_lower_doubled_alpha", "conversion", AUD,
           "stats.beta.ppf(alpha, np.maximum(kf, 1.0), n - kf + 1)",
           "stats.beta.ppf(2 * alpha, np.maximum(kf, 1.0), n - kf + 1)", T_AUD),
    Mutant("audit_ignores_delta", "delta-split", AUD, "    num = p - delta\n", "    num = p\n", T_AUD),
    # ---- divergences
    Mutant("privacy_loss_one_direction", "conversion", DIV, "np.abs(np.log(p[both]) - np.log(q[both]))",
           "(np.log(p[both]) - np.log(q[both]))", T_DIV),
    Mutant("hockey_stick_half_eps", "factor-2", DIV, "np.exp(eps)[..., None] * q", "np.exp(eps / 2)[..., None] * q",
           T_DIV),
    Mutant("mechanism_epsilon_last_pair_only", "accountant-grouping", DIV,
           "        worst = max(worst, privacy_loss(p, q))\n", "        worst = privacy_loss(p, q)\n", T_DIV),
    # ---- Gaussian profile and calibrations (gaussian_mechanism's textbook path too)
    Mutant("gaussian_delta_factor_2", "factor-2", GAU, "    a = m / 2 - eps / m\n    b = -m / 2 - eps / m\n    if a < 0:",
           "    a = m / 2 - eps / (2 * m)\n    b = -m / 2 - eps / (2 * m)\n    if a < 0:", T_GAU),
    Mutant("gaussian_classic_sigma_factor_2", "factor-2", GAU, "np.sqrt(2.0 * np.log(1.25 / delta))",
           "np.sqrt(np.log(1.25 / delta))", T_GAU),
    Mutant("analytic_sigma_scale", "scale", GAU, "    root = sens / float(np.exp(t))\n",
           "    root = 0.9 * sens / float(np.exp(t))\n", T_GAU),
    Mutant("gaussian_mechanism_textbook_scale", "scale", GAU, "out = gen.normal(0.0, sigma, size=x.shape)",
           "out = gen.normal(0.0, 0.9 * sigma, size=x.shape)", T_GAU + ("tests/test_textbook_samplers.py",)),
    Mutant("gaussian_epsilon_vector_zero_branch", "clamp", GAU,
           "    zero = delta >= _gaussian_delta_array(np.zeros_like(mu), mu)\n",
           "    zero = delta >= 0.5 * _gaussian_delta_array(np.zeros_like(mu), mu)\n", T_GAU + T_ACC),
    Mutant("gaussian_epsilon_vector_no_guard", "clamp", GAU,
           "    bad = bad[_gaussian_delta_array(x[bad], mu[bad]) > delta]\n", "    bad = bad[:0]\n    x = x * (1 - 1e-9)\n",
           T_GAU + T_ACC),
    # ---- Laplace mechanism, clamped mean, histogram
    Mutant("laplace_textbook_scale", "scale", LAP, "out = gen.laplace(0.0, sens / eps, size=x.shape)",
           "out = gen.laplace(0.0, sens / (2 * eps), size=x.shape)", T_LAP),
    Mutant("dp_mean_no_clamp", "clamp", LAP, "np.clip(part, lo, hi, out=cc)", "np.copyto(cc, part)", T_LAP),
    Mutant("dp_mean_sensitivity_halved", "scale", LAP, "bound = (Fraction(hi) - Fraction(lo)) / n",
           "bound = (Fraction(hi) - Fraction(lo)) / (2 * n)", T_LAP),
    Mutant("dp_mean_size_draws_half_scale", "scale", DISC, "    lat = laplace_lattice(sensitivity, epsilon, dim=1)\n",
           "    lat = laplace_lattice(sensitivity / 2, epsilon, dim=1)\n", T_LAP),
    Mutant("dp_mean_size_textbook_half_scale", "scale", LAP, "    return value + gen.laplace(0.0, sensitivity / eps, size=shape)",
           "    return value + gen.laplace(0.0, sensitivity / eps / 2, size=shape)", T_LAP),
    Mutant("dp_histogram_size_one_noise_for_all_rows", "fresh-rng", HIST,
           "        counts = np.broadcast_to(counts, _shape(size) + counts.shape).copy()",
           "        return np.broadcast_to(geometric_mechanism(counts, int(delta), eps, rng=rng) if safe else "
           "laplace_mechanism(counts, delta, eps, rng=rng, secure=False), _shape(size) + counts.shape)", T_HIST),
    Mutant("histogram_replace_one_factor_2", "factor-2", HIST, 'return 1.0 if check_relation(relation) == "add_remove" else 2.0',
           'return 1.0 if check_relation(relation) == "add_remove" else 1.0', T_HIST),
    # ---- exact discrete samplers (dpcourse/discrete.py)
    Mutant("bern_exp_loop_parity", "discrete-sampler", DISC, "result[active[~cont]] = (k % 2 == 1)",
           "result[active[~cont]] = (k % 2 == 0)", T_DISC),
    Mutant("dlap_minus_zero_kept", "discrete-sampler", DISC, "minus_zero = negative & (y == 0)",
           "minus_zero = negative & (y < 0)", T_DISC),
    Mutant("dlap_sign_bit_biased", "discrete-sampler", DISC, "negative = gen.integers(0, 2, size=idx.size) == 1",
           "negative = gen.integers(0, 3, size=idx.size) == 1", T_DISC),
    Mutant("dlap_scale_off", "scale", DISC, "y = _affine_floor(u, _geometric_exp_minus_one(idx.size, gen), t, s)",
           "y = _affine_floor(u, _geometric_exp_minus_one(idx.size, gen), t, s + 1)", T_DISC),
    Mutant("laplace_lattice_rounding_not_charged", "discrete-sampler", DISC,
           "steps = math.floor(Fraction(sens) / g) + d", "steps = math.floor(Fraction(sens) / g)", T_DISC),
    Mutant("gaussian_lattice_rounding_not_charged", "discrete-sampler", DISC,
           "steps = math.nextafter(math.nextafter(sens / g + math.sqrt(d), math.inf), math.inf)",
           "steps = math.nextafter(math.nextafter(sens / g, math.inf), math.inf)", T_DISC),
    Mutant("geometric_scale_halved", "scale", DISC, "_round_up(Fraction(delta) / Fraction(eps))",
           "_round_up(Fraction(delta) / Fraction(2 * eps))", T_DISC),
    Mutant("dgauss_variance_halved", "scale", DISC, "    den = 2 * a * t * t * b\n", "    den = a * t * t * b\n", T_DISC,
           occurrence=1),
    Mutant("dp_mean_float_error_not_charged", "discrete-sampler", LAP,
           "+ Fraction(max(abs(lo), abs(hi))) / 2**51", "+ 0", ("tests/test_discrete_review.py",)),
    Mutant("values_cast_before_clamp", "discrete-sampler", DISC,
           "        arr = np.minimum(arr, np.uint64(VALUE_LIMIT))\n", "        pass\n", ("tests/test_discrete_review.py",)),
    Mutant("lattice_sum_unchecked", "discrete-sampler", DISC,
           "    steps = _checked_sum(_lattice_steps(values, exponent), np.asarray(noise, dtype=np.int64))",
           "    steps = _lattice_steps(values, exponent) + np.asarray(noise, dtype=np.int64)",
           ("tests/test_discrete_review.py",)),
    # ---- many queries: sparse vector, SmallDB, MWEM, per-query baselines (dpcourse/queries.py)
    Mutant("svt_query_noise_halved", "factor-2", QRY, "b_nu = _round_up(Fraction(2 * c * steps) / eps2)",
           "b_nu = _round_up(Fraction(c * steps) / eps2)", T_QRY),
    Mutant("svt_query_noise_not_scaled_with_c", "scale", QRY, "b_nu = _round_up(Fraction(2 * c * steps) / eps2)",
           "b_nu = _round_up(Fraction(2 * steps) / eps2)", T_QRY),
    Mutant("svt_threshold_noise_halved", "scale", QRY, "b_rho = _round_up(Fraction(steps) / eps1)",
           "b_rho = _round_up(Fraction(steps) / (2 * eps1))", T_QRY),
    Mutant("svt_lattice_rounding_not_charged", "discrete-sampler", QRY,
           "return e, math.floor(Fraction(sensitivity) / g) + 1", "return e, math.floor(Fraction(sensitivity) / g)",
           T_QRY),
    Mutant("svt_threshold_noise_per_query", "fresh-rng", QRY,
           "return (q_steps[None, :] + nu) >= (t_steps + rho)[:, None]",
           "return (q_steps[None, :] + nu) >= t_steps + np.stack([np.roll(rho, j) for j in range(nu.shape[1])], axis=1)",
           T_QRY),
    Mutant("smalldb_utility_sensitivity_halved", "scale", QRY, "i = exponential_mechanism(utilities, 1.0, eps, rng=rng)",
           "i = exponential_mechanism(utilities, 0.5, eps, rng=rng)", T_QRY),
    Mutant("smalldb_candidates_not_scaled_to_n", "scale", QRY, "(n / m) * (cands @ q.T)", "(cands @ q.T)", T_QRY),
    Mutant("mwem_budget_not_split", "factor-2", QRY, "eps_round = eps / (2 * T)", "eps_round = eps / T", T_QRY),
    Mutant("mwem_measurement_sensitivity_halved", "scale", QRY,
           "measured = laplace_mechanism(true[i], 1.0, eps_round, rng=gen)",
           "measured = laplace_mechanism(true[i], 0.5, eps_round, rng=gen)", T_QRY),
    Mutant("mwem_selection_declared_monotone", "factor-2", QRY,
           "i = exponential_mechanism(np.abs(est - true), 1.0, eps_round, rng=gen)",
           "i = exponential_mechanism(np.abs(est - true), 1.0, eps_round, monotone=True, rng=gen)", T_QRY),
    Mutant("laplace_per_query_add_remove_sensitivity", "scale", QRY,
           "hamming = col[:, None] + col[None, :] - 2.0 * gram", "hamming = col[:, None] + 0.0 * gram", T_QRY),
    Mutant("gaussian_per_query_sensitivity_halved", "scale", QRY,
           "return gaussian_mechanism(q @ h, math.sqrt(s), eps, d, rng=rng)",
           "return gaussian_mechanism(q @ h, math.sqrt(s / 2), eps, d, rng=rng)", T_QRY),
    # ---- deidentification (issue 17): the exact attack on a DP histogram, the posterior bound, RAPPOR, k-anonymity
    Mutant("deid_attack_ignores_sensitivity", "scale", "dpcourse/deidentification.py",
           "llr = (eps / delta_f) * (", "llr = eps * (", ("tests/test_deidentification.py",)),
    Mutant("deid_attack_accepts_non_neighbours", "clamp", "dpcourse/deidentification.py",
           "if dist > delta_f:", "if dist > 2 * delta_f:", ("tests/test_deidentification.py",)),
    Mutant("deid_posterior_bound_half_epsilon", "factor-2", "dpcourse/deidentification.py",
           "special.expit(special.logit(p) + eps)", "special.expit(special.logit(p) + eps / 2)",
           ("tests/test_deidentification.py",)),
    Mutant("deid_rappor_eps_inf_one_bit", "factor-2", "dpcourse/deidentification.py",
           "2.0 * h * (log1m_half - log_half)", "h * (log1m_half - log_half)", ("tests/test_deidentification.py",)),
    Mutant("deid_rappor_q_star_weights_swapped", "distribution", "dpcourse/deidentification.py",
           "log_q_star = np.logaddexp(log1m_half + lq, log_half + lp)",
           "log_q_star = np.logaddexp(log_half + lq, log1m_half + lp)", ("tests/test_deidentification.py",)),
    Mutant("deid_k_anonymity_largest_class", "clamp", "dpcourse/deidentification.py",
           "return int(sizes.min())", "return int(sizes.max())", ("tests/test_deidentification.py",)),
    Mutant("deid_linkage_counts_ambiguous_matches", "clamp", "dpcourse/deidentification.py",
           '"rate": float(np.mean(match_counts == 1))', '"rate": float(np.mean(match_counts >= 1))',
           ("tests/test_deidentification.py",)),
    # ---- quantiles (issue 14): interval exponential mechanism, smooth sensitivity, PTR, sample-and-aggregate
    Mutant("quantiles_em_factor_2_dropped", "factor-2", QNT, "(eps / 2.0) * utility", "eps * utility", T_QNT),
    Mutant("quantiles_em_no_clamp", "clamp", QNT, "data = np.sort(np.clip(values, lo, hi))", "data = np.sort(values)",
           T_QNT),
    Mutant("quantiles_em_single_draw_is_mode", "single-draw", QNT, "return float(out[0]) if size is None else out",
           "return float(grid[pos[int(np.argmax(p))]]) if size is None else out", T_QNT),
    Mutant("quantiles_em_coarse_quantisation", "discrete-sampler", QNT, "weights = np.floor(p * 2.0**62)",
           "weights = np.floor(p * 2.0**8)", T_QNT),
    Mutant("quantiles_em_first_point_of_interval", "distribution", QNT,
           "k = start + gen.integers(0, pos[interval + 1] - start, dtype=np.int64)",
           "k = start + 0 * gen.integers(0, pos[interval + 1] - start, dtype=np.int64)", T_QNT),
    Mutant("quantiles_smooth_alpha_factor_2_dropped", "factor-2", QNT, "alpha = (eps / 2.0) / (1.0 + 2.0**-10)",
           "alpha = eps / (1.0 + 2.0**-10)", T_QNT),
    Mutant("quantiles_smooth_beta_too_large", "scale", QNT, "math.log1p(eps / (2.0 * math.log(2.0 / dlt)))",
           "(eps / math.log(2.0 / dlt))", T_QNT),
    Mutant("quantiles_smooth_no_floor", "scale", QNT, "1024.0 * g)", "0.0 * g)", T_QNT),
    Mutant("quantiles_smooth_decay_halved", "scale", QNT, "np.exp(-beta * np.maximum(k, 0))",
           "np.exp(-0.5 * beta * np.maximum(k, 0))", T_QNT),
    Mutant("quantiles_smooth_window_too_narrow", "scale", QNT, "j_idx = np.arange(m, min(n + 1, m + d_max) + 1)",
           "j_idx = np.arange(m, min(n + 1, m + 1) + 1)", T_QNT),
    Mutant("quantiles_ptr_test_without_noise", "single-draw", QNT, "if d + noise <= t:", "if d <= t:", T_QNT),
    Mutant("quantiles_ptr_test_noise_halved", "scale", QNT, "discrete_laplace(_round_up(Fraction(2.0 / eps)), rng=gen)",
           "discrete_laplace(_round_up(Fraction(1.0 / eps)), rng=gen)", T_QNT),
    Mutant("quantiles_ptr_release_budget_not_split", "factor-2", QNT,
           "laplace_mechanism(float(z[m]), b, eps / 2.0, rng=gen)", "laplace_mechanism(float(z[m]), b, eps, rng=gen)",
           T_QNT),
    Mutant("quantiles_ptr_threshold_one_less", "delta-split", QNT,
           "    while (t + 1) * r_log - math.log1p(math.exp(r_log)) > math.log(dlt):   # guard against rounding\n"
           "        t += 1\n", "    t -= 1\n", T_QNT),
    Mutant("quantiles_ptr_distance_ignores_median_side", "scale", QNT, "j = np.maximum(j, m)", "j = j", T_QNT),
    Mutant("quantiles_ptr_distance_non_strict", "scale", QNT, 'j = np.searchsorted(z, z[i] + b, side="right")',
           'j = np.searchsorted(z, z[i] + b, side="left")', T_QNT),
    Mutant("quantiles_sa_fixed_partition", "fresh-rng", QNT, "order = gen.permutation(n)", "order = np.arange(n)",
           T_QNT),
    Mutant("quantiles_sa_mean_budget_doubled", "scale", QNT, "return dp_mean(outputs, lo, hi, eps, rng=gen)",
           "return dp_mean(outputs, lo, hi, 2 * eps, rng=gen)", T_QNT),
    Mutant("quantiles_em_weight_floor_dropped", "discrete-sampler", QNT, "return weights + (counts > 0)",
           "return weights", T_QNT),
    # ---- scale (issue 16): bounding, partition selection, the user-level group-by
    Mutant("scale_selection_full_epsilon", "budget-split", "dpcourse/scale.py",
           "_per_partition_parameters(eps / (len(names) + 1), dlt, m)", "_per_partition_parameters(eps, dlt, m)",
           ("tests/test_scale.py",)),
    Mutant("scale_delta_not_split_over_partitions", "delta-split", "dpcourse/scale.py",
           "-math.expm1(math.log1p(-delta) / m)", "-math.expm1(math.log1p(-delta))", ("tests/test_scale.py",)),
    Mutant("scale_epsilon_not_split_over_partitions", "budget-split", "dpcourse/scale.py",
           "return eps / m, -math.expm1", "return eps, -math.expm1", ("tests/test_scale.py",)),
    Mutant("scale_keep_second_regime_wrong", "distribution", "dpcourse/scale.py",
           "high = p1 - (1.0 - p1 + delta / em1)", "high = p1 - (1.0 - p1)", ("tests/test_scale.py",)),
    Mutant("scale_count_sensitivity_ignores_m", "scale", "dpcourse/scale.py",
           "geometric_mechanism(exact, m * c,", "geometric_mechanism(exact, c,", ("tests/test_scale.py",)),
    Mutant("scale_sum_sensitivity_ignores_c", "scale", "dpcourse/scale.py",
           "        sens = m * c * max(abs(lo), abs(hi))\n        out[", "        sens = m * max(abs(lo), abs(hi))\n        out[",
           ("tests/test_scale.py",)),
    Mutant("scale_sum_not_clamped", "clamp", "dpcourse/scale.py", "weights=np.clip(vals, lo, hi)", "weights=vals",
           ("tests/test_scale.py",)),
    Mutant("scale_bounding_keeps_c_plus_one_rows", "clamp", "dpcourse/scale.py",
           "keep_row = (np.arange(n) - first) < c", "keep_row = (np.arange(n) - first) <= c", ("tests/test_scale.py",)),
    Mutant("scale_bounding_keeps_m_plus_one_keys", "clamp", "dpcourse/scale.py",
           "_rank_in_runs(pair_user[order2]) < m", "_rank_in_runs(pair_user[order2]) <= m", ("tests/test_scale.py",)),
    Mutant("scale_bounding_rows_not_uniform", "fresh-rng", "dpcourse/scale.py",
           "* n + gen.permutation(n))", "* n + np.arange(n))", ("tests/test_scale.py",)),
    Mutant("scale_bounding_keys_not_uniform", "fresh-rng", "dpcourse/scale.py",
           "np.lexsort((gen.permutation(n_pairs), pair_user))", "np.lexsort((np.arange(n_pairs), pair_user))",
           ("tests/test_scale.py",)),
    Mutant("scale_select_accepts_unbounded_users", "validation", "dpcourse/scale.py",
           "if per_user.max() > m:", "if per_user.max() > m + 1:", ("tests/test_scale.py",)),
    # ---- local_dp (issue 17): exact coins, the three oracles, their estimators and the shuffle bound
    Mutant("ldp_coin_margin_rounds_toward_leak", "clamp", "dpcourse/local_dp.py",
           "_MARGIN = Fraction(1) + Fraction(1, 2**50)", "_MARGIN = Fraction(1) - Fraction(1, 2**50)", T_LDP),
    Mutant("ldp_oue_own_bit_prob", "scale", "dpcourse/local_dp.py", "return _TWO64 // 2, t_zero",
           "return _TWO64 // 4 * 3, t_zero", T_LDP),
    Mutant("ldp_sue_full_epsilon_per_bit", "factor-2", "dpcourse/local_dp.py",
           "t_flip = _threshold_up(_rr_flip_prob(epsilon / 2.0, 2))", "t_flip = _threshold_up(_rr_flip_prob(epsilon, 2))",
           T_LDP),
    Mutant("ldp_krr_other_value_not_uniform", "single-draw", "dpcourse/local_dp.py", "other += other >= v",
           "other += other > v", T_LDP),
    Mutant("ldp_ue_own_bit_noise_coin", "scale", "dpcourse/local_dp.py",
           "bits[np.arange(vb.size), vb] = _coin(gen, t_one, vb.shape)",
           "bits[np.arange(vb.size), vb] = _coin(gen, t_zero, vb.shape)", T_LDP),
    Mutant("ldp_olh_g_off_by_one", "scale", "dpcourse/local_dp.py", "return min(int(round(math.exp(epsilon))) + 1, HASH_PRIME)",
           "return min(int(round(math.exp(epsilon))), HASH_PRIME)", T_LDP),
    Mutant("ldp_olh_estimator_ideal_q", "scale", "dpcourse/local_dp.py", 'q_star = pr["q_support"]', 'q_star = pr["q"]',
           T_LDP),
    Mutant("ldp_olh_hash_without_offset", "fresh-rng", "dpcourse/local_dp.py",
           "hashed = (a * v + b) % HASH_PRIME % g", "hashed = (a * v) % HASH_PRIME % g", T_LDP),
    Mutant("ldp_shuffle_clone_rate", "scale", "dpcourse/local_dp.py", "    p = math.exp(-eps0)\n    mean",
           "    p = math.exp(-eps0 / 2)\n    mean", T_LDP),
    # ---- private learning (issue 15)
    Mutant("learn_output_sensitivity_half", "factor-2", "dpcourse/learning.py",
           "sensitivity = 2.0 / (n * lam) + 2.0 * GRAD_TOL / lam", "sensitivity = 1.0 / (n * lam) + 2.0 * GRAD_TOL / lam",
           ("tests/test_learning.py",)),
    Mutant("learn_output_no_unit_ball_check", "clamp", "dpcourse/learning.py", 'unit_ball=method != "dpsgd"',
           "unit_ball=False", ("tests/test_learning.py",)),
    Mutant("learn_objective_beta_factor", "factor-2", "dpcourse/learning.py", "_gamma_norm_noise(d, eps_p / 2.0, gen)",
           "_gamma_norm_noise(d, eps_p, gen)", ("tests/test_learning.py",)),
    Mutant("learn_objective_curvature_constant", "scale", "dpcourse/learning.py", "c = 0.25  # logistic loss",
           "c = 0.125  # logistic loss", ("tests/test_learning.py",)),
    Mutant("learn_dpsgd_no_clipping", "clamp", "dpcourse/learning.py", "scale = np.minimum(1.0, clip_norm",
           "scale = np.maximum(1.0, clip_norm", ("tests/test_learning.py",)),
    Mutant("learn_dpsgd_noise_without_clip_norm", "scale", "dpcourse/learning.py",
           "gen.normal(0.0, sigma * clip_norm, size=d)", "gen.normal(0.0, sigma, size=d)", ("tests/test_learning.py",)),
    Mutant("learn_dpsgd_sampling_rate", "scale", "dpcourse/learning.py", "q_exact = Fraction(q)",
           "q_exact = 2 * Fraction(q)", ("tests/test_learning.py",)),
    Mutant("learn_dpsgd_normaliser", "scale", "dpcourse/learning.py", "expected = expected_batch_size", "expected = q * n",
           ("tests/test_learning.py",)),
    Mutant("learn_pld_one_direction", "delta-split", "dpcourse/accounting.py",
           'for d in ("remove", "add"))\n    if delta < 1e-9', 'for d in ("add",))\n    if delta < 1e-9',
           ("tests/test_subsampling.py",)),
    Mutant("learn_pld_split_wrong_side", "scale", "dpcourse/accounting.py", "w[1:] += up\n    w[:-1] += pm - up",
           "w[:-1] += up\n    w[1:] += pm - up", ("tests/test_subsampling.py",)),
    Mutant("learn_rdp_binomial_exponent", "factor-2", "dpcourse/accounting.py",
           "(j * j - j) / (2.0 * sigma * sigma)", "(j * j - j) / (4.0 * sigma * sigma)", ("tests/test_subsampling.py",)),
    Mutant("learn_rdp_logsumexp_top_twice", "scale", "dpcourse/accounting.py", "        scaled[top] = 0.0\n", "",
           ("tests/test_subsampling.py",)),
    Mutant("learn_rdp_logsumexp_top_only", "scale", "dpcourse/accounting.py",
           "math.log1p(float(scaled.sum()))", "math.log1p(0.0 * float(scaled.sum()))", ("tests/test_subsampling.py",)),
    Mutant("learn_amplification_linear", "scale", "dpcourse/accounting.py",
           "return math.log1p(q * math.expm1(eps)), q * d", "return q * eps, q * d", ("tests/test_subsampling.py",)),
    Mutant("learn_calibration_returns_lower_end", "clamp", "dpcourse/accounting.py",
           "lo, hi = (lo, mid) if eps_of(mid) <= eps else (mid, hi)\n    return hi",
           "lo, hi = (lo, mid) if eps_of(mid) <= eps else (mid, hi)\n    return lo", ("tests/test_subsampling.py",)),
    Mutant("learn_dpsgd_steps_from_n", "scale", "dpcourse/learning.py", "    for _ in range(steps):",
           "    for _ in range(max(steps, n // 10)):", ("tests/test_learning.py",)),
    Mutant("quantiles_sa_only_some_exceptions_caught", "clamp", QNT, "        except Exception:  # any failure",
           "        except (TypeError, ValueError):  # any failure", T_QNT),
    # ---- scale (issue 21, item 4): the exact keep coins of partition selection
    Mutant("scale_coin_threshold_off_by_one", "exact-coin", "dpcourse/scale.py",
           "up = ((a * t) >> _EXP_BITS) + d ", "up = ((a * t) >> _EXP_BITS) + d + 1 ", ("tests/test_scale.py",)),
    Mutant("scale_coin_rounding_flipped", "exact-coin", "dpcourse/scale.py",
           "down = big - (-(-(r << _EXP_BITS) // a))", "down = big - ((r << _EXP_BITS) // a)", ("tests/test_scale.py",)),
    Mutant("scale_coin_float_comparison", "exact-coin", "dpcourse/scale.py",
           "return _integer_coin(gen, table[idx], full[idx])",
           "return gen.random(idx.size) < np.array([float(Fraction(seq[i], big)) for i in idx])",
           ("tests/test_scale.py",)),
    Mutant("scale_coin_less_or_equal", "exact-coin", "dpcourse/scale.py",
           "below |= ~decided & (u[:, j] < words[:, j])", "below |= ~decided & (u[:, j] <= words[:, j])",
           ("tests/test_scale.py",)),
    Mutant("scale_coin_no_epsilon_margin", "exact-coin", "dpcourse/scale.py",
           "a = _exp_lower(min(Fraction(eps1) * _EPS_MARGIN,", "a = _exp_lower(min(Fraction(eps1) * 1,",
           ("tests/test_scale.py",)),
    Mutant("scale_coin_delta_fallback_not_split", "exact-coin", "dpcourse/scale.py",
           "return a, int(Fraction(delta) * big / m), k", "return a, int(Fraction(delta) * big), k",
           ("tests/test_scale.py",)),
    # ---- local_dp (issue 21, item 1): the exact 64-bit coins of the local oracles
    Mutant("ldp_coin_less_or_equal", "exact-coin", "dpcourse/local_dp.py",
           "return raw < np.uint64(threshold)", "return raw <= np.uint64(threshold)", T_LDP),
    Mutant("ldp_coin_threshold_minus_one", "exact-coin", "dpcourse/local_dp.py",
           "return raw < np.uint64(threshold)", "return raw < np.uint64(threshold - 1)", T_LDP),
    Mutant("ldp_coin_float_comparison", "exact-coin", "dpcourse/local_dp.py",
           "    raw = gen.integers(0, _TWO64, size=shape, dtype=np.uint64)\n    return raw < np.uint64(threshold)\n",
           "    return gen.random(shape) < threshold / 2**64\n", T_LDP),
    Mutant("ldp_coin_raw_32bit_words", "exact-coin", "dpcourse/local_dp.py",
           "raw = gen.integers(0, _TWO64, size=shape, dtype=np.uint64)", "raw = gen.bit_generator.random_raw(shape)",
           ("tests/test_bit_generators.py",)),
    # a hostile review found a coin without its 2**-50 safety margin passing the suite (289 of 932 cases above e^eps)
    Mutant("ldp_coin_margin_removed", "exact-coin", "dpcourse/local_dp.py",
           "_MARGIN = Fraction(1) + Fraction(1, 2**50)", "_MARGIN = Fraction(1)", T_LDP),
    # the PLD accountant (issue 21): the tail and truncation mass it charges, and the tilt of its FFT
    Mutant("learn_pld_tail_mass_not_charged", "delta-split", "dpcourse/accounting.py",
           "p_inf_k = -math.expm1(k * math.log1p(-p_inf)) if p_inf < 1 else 1.0", "p_inf_k = 0.0",
           ("tests/test_subsampling.py",)),
    Mutant("learn_pld_step_drops_mass_above_grid", "clamp", "dpcourse/accounting.py",
           "    w[0] += float(below)\n    return i0, w, float(above)", "    w[0] += float(below)\n    return i0, w, 0.0",
           ("tests/test_subsampling.py",)),
    Mutant("learn_pld_step_drops_mass_below_grid", "clamp", "dpcourse/accounting.py",
           "    w[0] += float(below)\n", "    w[0] += 0.0\n", ("tests/test_subsampling.py",)),
    Mutant("learn_pld_fft_without_tilt", "scale", "dpcourse/accounting.py", "        lt = float(lam[i_t])\n",
           "        lt = 0.0\n", ("tests/test_subsampling.py",)),
    # ---- issue 21, items 2 and 3: no refusal of a finite value for its size, no private data in messages
    Mutant("svt_lattice_steps_not_clamped", "clamp", DISC,
           "    return np.rint(np.clip(scaled, -float(VALUE_LIMIT), float(VALUE_LIMIT))).astype(np.int64)\n",
           "    return np.rint(scaled).astype(np.int64)\n", T_QRY + T_EXT),
    Mutant("svt_refuses_values_beyond_2_40", "clamp", QRY, "    q_steps = _lattice_steps(q, e)",
           "    q_steps = _lattice_steps(q, e) if np.abs(q).max() < 2.0**40 * sens else "
           "_threshold_steps(np.inf, e, sens)",
           T_EXT),
    Mutant("svt_comparison_int64_wraps", "clamp", QRY,
           "    if max(int(np.abs(nu).max(initial=0)), int(np.abs(rho).max(initial=0))) < _SVT_EXACT_NOISE:\n",
           "    if True:\n", T_QRY),
    Mutant("geometric_python_int_not_clamped", "clamp", DISC,
           "return np.array([min(max(int(v), -VALUE_LIMIT), VALUE_LIMIT) for v in flat],",
           "return np.array([int(v) for v in flat],", T_DISC + T_EXT),
    Mutant("geometric_int_list_read_as_float", "clamp", DISC,
           "        arr = np.asarray(value, dtype=object)\n", "        pass\n", T_DISC),
    Mutant("dpsgd_huge_row_gives_nan", "clamp", "dpcourse/learning.py", "    if np.isfinite(sq).all():\n",
           "    if True:\n", T_EXT),
    Mutant("smalldb_public_n_not_capped", "clamp", QRY, "    if not n <= 2.0**53:", "    if False:", T_EXT),
    Mutant("msg_logreg_quotes_row_norm", "private-message", "dpcourse/learning.py",
           '"assumes it): rescale the rows by a public bound, or clip each row to norm 1, "',
           'f"assumes it; norm {norms.max():.6g}): rescale the rows by a public bound, or clip each row to norm 1, "',
           T_MSG),
    Mutant("msg_partitions_quotes_user_maximum", "private-message", "dpcourse/scale.py",
           'f"every user must contribute to at most max_partitions={m} partitions: bound the "',
           'f"every user must contribute to at most max_partitions={m} partitions, not {int(per_user.max())}: "',
           T_MSG),
    Mutant("msg_real_array_quotes_index", "private-message", V,
           'raise ValueError(f"{name} must be finite everywhere (no NaN or +-inf entry): remove or impute such "',
           'raise ValueError(f"{name} must be finite everywhere (at {int(np.argmin(finite))}): remove or impute such "',
           T_MSG),
    Mutant("msg_histogram_quotes_count", "private-message", QRY, 'raise ValueError(f"{name} must hold counts >= 0")',
           'raise ValueError(f"{name} must hold counts >= 0, got {h.min()}")', T_MSG),
    Mutant("histogram_bins_refuse_instead_of_clamp", "clamp", HIST,
           "        values = np.clip(values, edges[0], edges[-1])\n",
           "        assert ((values >= edges[0]) & (values <= edges[-1])).all(), \"data outside the bins\"\n", T_HIST),
    Mutant("real_array_refuses_object_ints", "clamp", V, "        arr = _object_reals_as_float(arr, name)\n",
           "        pass\n", ("tests/test_neighbour_refusals.py",)),
    Mutant("real_array_huge_int_not_clamped", "clamp", V, "            return top if v > 0 else -top\n",
           "            raise\n", ("tests/test_neighbour_refusals.py",)),
    Mutant("quantile_refuses_empty_x", "clamp", QNT, 'values = check_real_array(x, "x", ndim=1, allow_empty=True)',
           'values = check_real_array(x, "x", ndim=1)', ("tests/test_neighbour_refusals.py",)),
    Mutant("partition_keys_keep_column_dtype", "side-channel", "dpcourse/scale.py",
           "    return _released_keys(key_values[_keep_decisions(counts, _per_partition_parameters(eps, dlt, m), dlt, m, gen)])",
           "    return key_values[_keep_decisions(counts, _per_partition_parameters(eps, dlt, m), dlt, m, gen)]",
           ("tests/test_neighbour_refusals.py",)),
    Mutant("group_by_refuses_empty_table", "clamp", "dpcourse/scale.py",
           "    if allow_empty and _empty_1d(user_ids) and _empty_1d(keys)", "    if False and _empty_1d(user_ids)",
           ("tests/test_neighbour_refusals.py",)),
    Mutant("label_column_refuses_big_ints", "clamp", "dpcourse/scale.py",
           "        if arr is not None and arr.dtype == object and arr.ndim == 1 and arr.size:",
           "        if False:", ("tests/test_neighbour_refusals.py",)),
    Mutant("pld_loss_range_without_log1p", "rounding", ACC,
           "l_top = math.log1p(q * math.expm1(min(mu * (zt + mu) - mu * mu / 2, 700.0)))",
           "l_top = math.log(1 - q + q * math.exp(min(mu * (zt + mu) - mu * mu / 2, 700.0)))",
           ("tests/test_subsampling.py",)),
    Mutant("pld_fft_roundoff_not_propagated", "delta-split", ACC,
           "floor = max(-float(comp_t.min()), 2.0 ** -52 * float(comp_t.max()), propagated)",
           "floor = max(-float(comp_t.min()), 2.0 ** -52 * float(comp_t.max()))", ("tests/test_subsampling.py",)),
    Mutant("selection_sequence_built_to_the_count", "side-channel", "dpcourse/scale.py",
           "    else:\n        n_max = None\n    try:\n        seq = _threshold_sequence(a, d, k, n_max)",
           "    try:\n        seq = _threshold_sequence(a, d, k, n_max)", ("tests/test_scale.py",)),
    Mutant("selection_cap_checked_after_empty_table", "side-channel", "dpcourse/scale.py",
           "    _selection_sequence(*_per_partition_parameters(eps, dlt, m), dlt, m)   # refused or not, whatever the data\n",
           "", ("tests/test_scale.py",)),
    Mutant("membership_bound_without_delta", "delta-split", "dpcourse/membership.py",
           "tradeoff_epsilon_delta(f, eps, d)", "tradeoff_epsilon_delta(f, eps, 0.0)", ("tests/test_membership.py",)),
    Mutant("membership_bound_not_complemented", "factor", "dpcourse/membership.py",
           "bound = 1.0 - np.asarray(", "bound = np.asarray(", ("tests/test_membership.py",)),
    Mutant("membership_lira_not_leave_one_out", "estimator", "dpcourse/membership.py",
           "mu = (s1 - w * phi) / c_loo", "mu = s1 / c", ("tests/test_membership.py",)),
    Mutant("membership_audit_canary_never_inserted", "neighbour", "dpcourse/membership.py",
           "(X1, y1) if with_canary else (X, yt)", "(X, yt) if with_canary else (X, yt)",
           ("tests/test_membership.py",)),
    Mutant("membership_audit_labels_recoded", "neighbour", "dpcourse/membership.py",
           "if zero_one else (yv, cy)", "if not zero_one else (yv, cy)", ("tests/test_membership.py",)),
    Mutant("membership_fixed_variance_pooled_over_models", "estimator", "dpcourse/membership.py",
           "var.mean(axis=1, keepdims=True)", "var.mean(axis=0, keepdims=True)", ("tests/test_membership.py",)),
    # ---- the one-draw paths of the secure samplers and the exact clamped sum (issue 24, fast per call)
    Mutant("dlap1_minus_zero_kept", "discrete-sampler", DISC, "            if y == 0:\n                continue",
           "            if y < 0:\n                continue", T_FAST),
    Mutant("bern_exp_fraction1_parity", "discrete-sampler", DISC, "        if not cont:\n            return k % 2 == 1",
           "        if not cont:\n            return k % 2 == 0", T_FAST),
    Mutant("bern_exp_fraction1_off_by_one", "discrete-sampler", DISC, "cont = int(integers(den * k)) < num",
           "cont = int(integers(den * k)) <= num", T_FAST),
    Mutant("bern_exp_minus_one1_parity", "discrete-sampler", DISC,
           "    while int(integers(k)) == 0:\n        k += 1\n    return k % 2 == 1",
           "    while int(integers(k)) == 0:\n        k += 1\n    return k % 2 == 0", T_FAST),
    Mutant("bern_ratio1_tie_taken_as_success", "discrete-sampler", DISC,
           "        if u != head:\n            return u < head", "        if True:\n            return u <= head", T_FAST),
    Mutant("dgauss1_variance_halved", "scale", DISC, "    den = 2 * a * t * t * b\n", "    den = a * t * t * b\n",
           T_FAST, occurrence=0),
    Mutant("dgauss1_acceptance_shifted", "discrete-sampler", DISC, "        u = ay * tb - a\n        sq = u * u\n        whole",
           "        u = ay * tb - a + 1\n        sq = u * u\n        whole", T_FAST),
    Mutant("release1_not_clamped", "clamp", DISC,
           "steps = round(min(max(math.ldexp(x, -exponent), -_VALUE_LIMIT_F), _VALUE_LIMIT_F))",
           "steps = round(math.ldexp(x, -exponent))", T_FAST),
    Mutant("release1_sum_unchecked", "clamp", DISC, "float(_checked_int_sum(steps, noise))", "float(steps + noise)",
           T_FAST),
    Mutant("geometric_scalar_int_not_clamped", "clamp", DISC,
           "values = np.asarray(min(max(value, -VALUE_LIMIT), VALUE_LIMIT), dtype=np.int64)",
           "values = np.asarray(value, dtype=np.int64)", T_FAST + T_EXT),
    # raw-word uniforms of the one-draw paths (_release_uniforms, lemma noise-lem-word-uniform)
    Mutant("raw_uniform_mt19937_as_64_bits", "word-width", DISC, "np.random.MT19937: 32}", "np.random.MT19937: 64}",
           T_FAST),
    Mutant("raw_uniform_bits_of_k", "word-width", DISC, "        b = (k - 1).bit_length()\n",
           "        b = k.bit_length()\n", T_FAST),
    Mutant("raw_uniform_accepts_k", "word-width", DISC, "            if u < k:\n                return u",
           "            if u <= k:\n                return u", T_FAST),
    Mutant("raw_uniform_one_bit_short", "word-width", DISC, "        b = (k - 1).bit_length()\n",
           "        b = max(0, (k - 1).bit_length() - 1)\n", T_FAST),
    Mutant("raw_uniform_word_not_shifted", "word-width", DISC, "buf |= raw() << have", "buf |= raw()", T_FAST),
    Mutant("raw_uniform_bit_read_twice", "fresh-rng", DISC, "            buf >>= b\n",
           "            buf >>= max(b - 1, 0)\n", T_FAST),
    Mutant("clamped_sum_error_bound_dropped", "rounding", LAP, "low, high = (mid - err) / _UNIT, (mid + err) / _UNIT",
           "low, high = mid / _UNIT, mid / _UNIT", T_FAST),
    Mutant("clamped_sum_split_too_fine", "rounding", LAP, "    m = e + n.bit_length() + 1\n", "    m = e + 1\n", T_FAST),
    Mutant("clamped_sum_zero_sum_negative", "rounding", LAP, "            return low + 0.0", "            return low",
           T_FAST),
    Mutant("clamped_mean_overflow_raises", "clamp", LAP, "    except OverflowError:\n        # The exact clamped sum",
           "    except ZeroDivisionError:\n        # The exact clamped sum", T_FAST),
    Mutant("check_real_fast_accepts_low_end", "validation", V, "(v == low and not low_open)", "(v == low)", T_VAL),
    Mutant("check_real_fast_accepts_high_end", "validation", V, "(v == high and not high_open)", "(v == high)", T_VAL),
    Mutant("check_real_fast_accepts_bool", "validation", V, "(type(value) is int and -2**53",
           "(isinstance(value, int) and -2**53", T_VAL),
    Mutant("check_real_fast_accepts_inf", "validation", V,
           "(type(value) is float and -_FLOAT_MAX <= value <= _FLOAT_MAX)", "(type(value) is float)", T_VAL),
    # ---- lower bounds (chapter 20): the constants a reader relies on
    Mutant("lb_packing_replace_one_counts_k", "constant", "dpcourse/lower_bounds.py",
           'return k if relation == "add_remove" else k - 1', "return k", ("tests/test_lower_bounds.py",)),
    Mutant("lb_packing_error_not_halved", "factor-2", "dpcourse/lower_bounds.py", "    return m / 2.0\n",
           "    return float(m)\n", ("tests/test_lower_bounds.py",)),
    Mutant("lb_packing_probability_rounds_up", "rounding", "dpcourse/lower_bounds.py",
           "    if x > 0:\n        return float(math.exp(-x)", "    if x > 700:\n        return float(math.exp(-700.0)",
           ("tests/test_lower_bounds.py",)),
    Mutant("lb_guessing_without_delta", "delta-split", "dpcourse/lower_bounds.py", "(math.exp(eps) + dlt) /",
           "(math.exp(eps)) /", ("tests/test_lower_bounds.py",)),
    Mutant("lb_fingerprint_delta_term_dropped", "delta-split", "dpcourse/lower_bounds.py",
           "    slack = 2.0 / 3.0 - 4.0 * dlt * n0 - n0 / c\n", "    slack = 2.0 / 3.0 - n0 / c\n",
           ("tests/test_lower_bounds.py",)),
    Mutant("lb_fingerprint_sinh_as_epsilon", "constant", "dpcourse/lower_bounds.py",
           "math.sqrt(1.5 * d) / math.sinh(eps)", "math.sqrt(1.5 * d) / eps", ("tests/test_lower_bounds.py",)),
    Mutant("lb_fingerprint_padding_factor", "factor-2", "dpcourse/lower_bounds.py",
           "n0 * slack / (4.0 * a)", "n0 * slack / (2.0 * a)", ("tests/test_lower_bounds.py",)),
    Mutant("lb_tracing_release_sensitivity_without_sqrt_d", "scale", "dpcourse/lower_bounds.py",
           "gaussian_mechanism(means, math.sqrt(d) / n, eps, dlt, rng=gen)",
           "gaussian_mechanism(means, 1.0 / n, eps, dlt, rng=gen)", ("tests/test_lower_bounds.py",)),
    # ---- trade-off functions, f-DP and GDP (chapter 21): the curves an attacker's TPR bound is read from
    Mutant("fdp_gaussian_curve_mu_halved", "scale", "dpcourse/fdp.py", "special.ndtr(-special.ndtri(a) - m)",
           "special.ndtr(-special.ndtri(a) - m / 2)", ("tests/test_fdp.py",)),
    Mutant("fdp_laplace_knee_not_halved", "factor-2", "dpcourse/fdp.py", "    knee = 0.5 * math.exp(-eps)\n",
           "    knee = math.exp(-eps)\n", ("tests/test_fdp.py",)),
    Mutant("fdp_laplace_middle_factor_2", "factor-2", "dpcourse/fdp.py", "math.exp(-eps) / (4.0 * a)",
           "math.exp(-eps) / (2.0 * a)", ("tests/test_fdp.py",)),
    Mutant("fdp_eps_delta_second_branch_dropped", "delta-split", "dpcourse/fdp.py",
           "np.maximum(np.maximum(first, math.exp(-eps) * (1.0 - d - a)), 0.0)", "np.maximum(first, 0.0)",
           ("tests/test_fdp.py",)),
    Mutant("fdp_gdp_mu_added_linearly", "composition", "dpcourse/fdp.py", "total.append(n * e.mu ** 2)",
           "total.append(n * e.mu)", ("tests/test_fdp.py",)),
    Mutant("fdp_clt_without_expm1", "scale", "dpcourse/fdp.py", "math.expm1(e.event.mu ** 2)", "e.event.mu ** 2",
           ("tests/test_fdp.py",)),
    Mutant("fdp_clt_rate_not_squared", "scale", "dpcourse/fdp.py", "n * e.sampling_rate ** 2 *", "n * e.sampling_rate *",
           ("tests/test_fdp.py",)),
    Mutant("fdp_gdp_mu_for_dp_uncertified", "rounding", "dpcourse/fdp.py",
           "    while float(_gaussian_delta_array(np.array(eps), np.array(mu))) > d:", "    while False:",
           ("tests/test_fdp.py",)),
    Mutant("fdp_profile_envelope_min", "delta-split", "dpcourse/fdp.py",
           "beta = np.maximum(beta, _f_eps_delta(a, float(e), float(dj)))",
           "beta = np.minimum(beta, _f_eps_delta(a, float(e), float(dj)))", ("tests/test_fdp.py",)),
    Mutant("fdp_envelope_grid_stops_at_half", "rounding", "dpcourse/fdp.py",
           "np.linspace(0.15, 0.95, 9), [0.99]]", "np.linspace(0.15, 0.5, 9), [0.5]]", ("tests/test_fdp.py",)),
    # ---- private inference (chapter 23): budget split, the noise scales the intervals assume, the ranks
    Mutant("infer_mean_split_not_applied", "delta-split", "dpcourse/inference.py",
           "    eps1, eps2 = MEAN_SPLIT * eps, (1.0 - MEAN_SPLIT) * eps\n",
           "    eps1, eps2 = eps, (1.0 - MEAN_SPLIT) * eps\n", ("tests/test_inference.py",)),
    Mutant("infer_interval_assumes_full_epsilon_noise", "scale", "dpcourse/inference.py",
           "    return m_t, v_t, s1 / eps1, s2 / eps2, (eps1, eps2)\n",
           "    return m_t, v_t, s1 / eps, s2 / eps2, (eps1, eps2)\n", ("tests/test_inference.py",)),
    Mutant("infer_second_moment_bound_not_squared", "scale", "dpcourse/inference.py",
           "    return mid, math.nextafter(half * half, math.inf)\n", "    return mid, math.nextafter(half, math.inf)\n",
           ("tests/test_inference.py",)),
    Mutant("infer_proportion_sensitivity_halved", "scale", "dpcourse/inference.py",
           "    return laplace_mechanism(counts, 1.0, eps, rng=gen) / n, 1.0 / (n * eps)\n",
           "    return laplace_mechanism(counts, 0.5, eps, rng=gen) / n, 1.0 / (n * eps)\n", ("tests/test_inference.py",)),
    Mutant("infer_quantile_full_epsilon_each_end", "delta-split", "dpcourse/inference.py", "    eps_each = eps / 2.0\n",
           "    eps_each = eps\n", ("tests/test_inference.py",)),
    Mutant("infer_quantile_rank_noise_halved", "scale", "dpcourse/inference.py",
           "    b = 2.0 / eps_each if eps_each > 0.0 else math.inf",
           "    b = 1.0 / eps_each if eps_each > 0.0 else math.inf", ("tests/test_inference.py",)),
    Mutant("infer_halfwidth_ignores_noise", "scale", "dpcourse/inference.py",
           "    return noise_aware_halfwidth(sigma, b, level)\n", "    return _z(level) * np.asarray(sigma, float)\n",
           ("tests/test_inference.py",)),
    Mutant("infer_convolution_tail_sign", "constant", "dpcourse/inference.py",
           "        both = np.clip(2.0 * np.exp(log_ndtr(-c / s)) + (a - d), 0.0, 1.0)\n",
           "        both = np.clip(2.0 * np.exp(log_ndtr(-c / s)) + (a + d), 0.0, 1.0)\n", ("tests/test_inference.py",)),
    Mutant("infer_mean_variance_noise_ignored", "scale", "dpcourse/inference.py",
           "np.clip(var_t[:, None] + b_moment * _LAPLACE_NODES[None, :], 0.0, h2)",
           "np.clip(var_t[:, None] + 0.0 * _LAPLACE_NODES[None, :], 0.0, h2)", ("tests/test_inference.py",)),
    # ---- continual release (chapter 19): the tree's node scale and level count, the factorization's sensitivity
    Mutant("cr_tree_scale_one_level_short", "scale", "dpcourse/continual.py",
           "return _round_up(Fraction(levels) / Fraction(value))",
           "return _round_up(Fraction(levels - 1) / Fraction(value))", ("tests/test_continual.py",)),
    Mutant("cr_tree_scale_without_log_factor", "scale", "dpcourse/continual.py",
           "return _round_up(Fraction(levels) / Fraction(value))",
           "return _round_up(Fraction(1) / Fraction(value))", ("tests/test_continual.py",)),
    Mutant("cr_tree_gaussian_variance_halved", "scale", "dpcourse/continual.py",
           "return _round_up(Fraction(levels) / (2 * Fraction(value)))",
           "return _round_up(Fraction(levels) / (4 * Fraction(value)))", ("tests/test_continual.py",)),
    Mutant("cr_tree_level_count_log2", "scale", "dpcourse/continual.py",
           "        self.levels = self.horizon.bit_length()\n",
           "        self.levels = max(1, self.horizon.bit_length() - 1)\n", ("tests/test_continual.py",)),
    Mutant("cr_tree_feed_reuses_noise", "fresh-rng", "dpcourse/continual.py",
           "            self._pos += take\n", "            self._pos += 0\n", ("tests/test_continual.py",)),
    Mutant("cr_tree_merged_noise_kept", "estimator", "dpcourse/continual.py",
           "z_sum = self._noise_sum + z - sum(noisy[:i])", "z_sum = self._noise_sum + z", ("tests/test_continual.py",)),
    Mutant("cr_fact_sensitivity_last_column", "scale", "dpcourse/continual.py",
           "    return math.sqrt(math.fsum(c * c))", "    return math.sqrt(math.fsum(c[:1] * c[:1]))",
           ("tests/test_continual.py",)),
    Mutant("cr_fact_lattice_rounding_not_charged", "scale", "dpcourse/continual.py",
           "steps = Fraction(math.isqrt(n - 1) + 1, 1 << shift) + (math.isqrt(T - 1) + 1)",
           "steps = Fraction(math.isqrt(n - 1) + 1, 1 << shift)", ("tests/test_continual.py",)),
    Mutant("cr_fact_column_norm_cross_term", "scale", "dpcourse/continual.py",
           "(int(np.sum(hi * lo)) << 21)", "(int(np.sum(hi * lo)) << 20)", ("tests/test_continual.py",)),
    Mutant("cr_fact_variance_halved", "factor-2", "dpcourse/continual.py",
           "variance = math.ceil(steps * steps / (2 * Fraction(r)))",
           "variance = math.ceil(steps * steps / (4 * Fraction(r)))", ("tests/test_continual.py",)),
    Mutant("cr_fact_lattice_not_rounded", "clamp", "dpcourse/continual.py",
           "return (w + (1 << (shift - 1))) >> shift if shift else w", "return w >> (shift + 1)",
           ("tests/test_continual.py",)),
    Mutant("cr_naive_fresh_scale_one", "scale", "dpcourse/continual.py",
           "discrete_laplace(_naive_scale(T, eps), size=shape, rng=gen)",
           "discrete_laplace(_naive_scale(1, eps), size=shape, rng=gen)", ("tests/test_continual.py",)),
    # ---- exact selection and coins (issue 24): dpcourse/exact_uniform.py, the secure paths of selection and rr
    Mutant("sel_secure_factor_2_dropped", "factor-2", SEL, 'k = 1 if check_flag(monotone, "monotone") else 2\n',
           'k = 1 if check_flag(monotone, "monotone") else 1\n', T_SEL + T_XSEL, occurrence=0),
    Mutant("sel_secure_gap_cap_tiny", "clamp", SEL, "    cap = GAP_CAP * den\n", "    cap = 2 * den\n",
           T_XSEL),
    Mutant("sel_secure_em_single_draw_is_argmax", "single-draw", SEL, "    return int(out) if size is None else out\n",
           "    return 0 if size is None else out\n", T_SEL),
    Mutant("sel_secure_rnm_single_draw_is_argmax", "single-draw", SEL,
           "return int(out[0]) if size is None else out", "return int(np.argmax(lattice)) if size is None else out",
           T_SEL, occurrence=0),
    Mutant("sel_secure_rnm_lattice_steps_halved", "scale", SEL, "d_steps = math.ceil(frac_delta / g)",
           "d_steps = math.ceil(frac_delta / g) // 2", T_XSEL),
    Mutant("sel_secure_rnm_factor_2_dropped", "factor-2", SEL,
           "scale = _round_up(Fraction(k * d_steps) / Fraction(eps))",
           "scale = _round_up(Fraction(d_steps) / Fraction(eps))", T_XSEL),
    Mutant("sel_secure_rnm_no_noise", "scale", SEL,
           "out[start:start + k] = np.argmax(lattice + z, axis=1)",
           "out[start:start + k] = np.argmax(lattice + 0 * z, axis=1)", T_XSEL),
    Mutant("sel_secure_rnm_int64_wrap", "overflow", SEL, "if int(z.min()) < -(1 << 62):", "if False:", T_XSEL),
    Mutant("sel_exact_cdf_lower_bound_wrong_rest", "exactness", "dpcourse/exact_uniform.py", "den_lo = c_lo + r_hi",
           "den_lo = c_lo + r_lo", T_XSEL),
    Mutant("sel_exact_cdf53_lower_rounded_up", "exactness", "dpcourse/exact_uniform.py",
           "b_lo = cl / (cl + rh) * (1.0 - 8 * _U)", "b_lo = cl / (cl + rh) * (1.0 + 8 * _U)", T_XSEL),
    Mutant("sel_exact_straddle_counted_heads", "exactness", "dpcourse/exact_uniform.py", "heads = k + 1 <= lo53",
           "heads = k <= lo53", T_XSEL),
    Mutant("sel_exact_refine_without_fresh_bits", "fresh-rng", "dpcourse/exact_uniform.py",
           "u = (u << (prec - have)) | _fresh_bits(gen, prec - have)", "u = (u << (prec - have))", T_XSEL),
    Mutant("sel_exact_table_width_ignored", "exactness", "dpcourse/exact_uniform.py",
           "lo = lo * ((1.0 - 2.0**-45) * (1.0 - 16 * _U))", "lo = lo * (1.0 - 16 * _U)", T_XSEL),
    Mutant("sel_exact_rr_coin_doubled_eps", "factor-2", RR,
           "keep = bernoulli(gen, x.shape, lambda prec: logistic_bounds(eps, prec))",
           "keep = bernoulli(gen, x.shape, lambda prec: logistic_bounds(2 * eps, prec))", T_RR + T_XSEL),
    # ---- synthetic data (chapter 24): sensitivities, the budget split, sigma rounding, selection, clamp
    Mutant("syn_replace_factor_ignored", "factor-2", "dpcourse/synthetic.py", 'factor = 2.0 if rel == "replace_one" else 1.0',
           "factor = 1.0", ("tests/test_synthetic.py",)),
    Mutant("syn_one_way_l2_without_d", "scale", "dpcourse/synthetic.py", "l2_one, l2_two = math.sqrt(factor * d),",
           "l2_one, l2_two = math.sqrt(factor),", ("tests/test_synthetic.py",)),
    Mutant("syn_two_way_l2_without_pairs", "scale", "dpcourse/synthetic.py", "math.sqrt(factor * (d - 1))\n",
           "math.sqrt(factor)\n", ("tests/test_synthetic.py",)),
    Mutant("syn_sigma_rounded_down", "scale", "dpcourse/synthetic.py", "Fraction(math.floor(sigma * SIGMA_GRID) + 1, SIGMA_GRID)",
           "Fraction(math.floor(sigma * SIGMA_GRID), SIGMA_GRID)", ("tests/test_synthetic.py",)),
    Mutant("syn_selection_rounds_forgotten", "delta-split", "dpcourse/synthetic.py", "eps_sel = math.sqrt(8.0 * r_sel / (d - 1))",
           "eps_sel = math.sqrt(8.0 * r_sel)", ("tests/test_synthetic.py",)),
    Mutant("syn_split_not_applied", "delta-split", "dpcourse/synthetic.py", "r1, r_sel, r2 = (share * r for share in MST_SPLIT)",
           "r1, r_sel, r2 = (r for share in MST_SPLIT)", ("tests/test_synthetic.py",)),
    Mutant("syn_score_sensitivity_one", "factor-2", "dpcourse/synthetic.py", "[score[e] for e in cands], budget.utility_sensitivity,",
           "[score[e] for e in cands], 1.0,", ("tests/test_synthetic.py",)),
    Mutant("syn_two_way_measured_with_one_way_sigma", "scale", "dpcourse/synthetic.py",
           "_measure(marginal(x, dom, e), budget.sigma_two_way, gen)",
           "_measure(marginal(x, dom, e), budget.sigma_one_way, gen)", ("tests/test_synthetic.py",)),
    Mutant("syn_clamp_removed", "clamp", "dpcourse/synthetic.py", "return np.clip(arr.astype(np.int64, copy=False), 0, hi)",
           "return arr.astype(np.int64, copy=False)", ("tests/test_synthetic.py",)),
    Mutant("syn_score_uses_true_n", "scale", "dpcourse/synthetic.py",
           "_selection_score(marginal(x, dom, e), n0 * np.outer(", "_selection_score(marginal(x, dom, e), len(x) * np.outer(",
           ("tests/test_synthetic.py",)),
    Mutant("syn_score_float_sum", "scale", "dpcourse/synthetic.py", "    return steps / SCORE_GRID\n",
           "    return float(np.abs(counts - model).sum())\n", ("tests/test_synthetic.py",)),
]


def _apply(text: str, m: Mutant) -> str:
    count = text.count(m.old)
    if count == 0:
        raise ValueError(f"mutant {m.name}: text not found in {m.path}: {m.old!r}")
    if m.occurrence is None:
        if count != 1:
            raise ValueError(f"mutant {m.name}: text occurs {count} times in {m.path}; give occurrence=")
        return text.replace(m.old, m.new, 1)
    start = -1
    for _ in range(m.occurrence + 1):
        start = text.find(m.old, start + 1)
        if start < 0:
            raise ValueError(f"mutant {m.name}: occurrence {m.occurrence} of {m.old!r} not found in {m.path}")
    return text[:start] + m.new + text[start + len(m.old):]


def _scratch_copy() -> str:
    tmp = tempfile.mkdtemp(prefix="dpcourse-mutants-")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    shutil.copytree(os.path.join(ROOT, "dpcourse"), os.path.join(tmp, "dpcourse"), ignore=ignore)
    shutil.copytree(os.path.join(ROOT, "tests"), os.path.join(tmp, "tests"), ignore=ignore)
    shutil.copy2(os.path.join(ROOT, "pyproject.toml"), tmp)
    return tmp


def _env(scratch: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = scratch + os.pathsep + env.get("PYTHONPATH", "")  # the copy, not the editable install
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["MPLBACKEND"] = "Agg"
    return env


def _pytest(scratch: str, tests, timeout: float) -> tuple[int, str]:
    cmd = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-x", "-q",
           "-o", "addopts=--import-mode=importlib", "--no-header", "-W", "ignore::pytest.PytestUnraisableExceptionWarning",
           *tests]
    try:
        proc = subprocess.run(cmd, cwd=scratch, env=_env(scratch), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "timeout"
    tail = (proc.stdout.strip().splitlines() or [""])[-1]
    return proc.returncode, tail


def _check_copy_is_used(scratch: str) -> None:
    out = subprocess.run([sys.executable, "-c", "import dpcourse; print(dpcourse.__file__)"], cwd=scratch,
                         env=_env(scratch), capture_output=True, text=True, check=True).stdout.strip()
    if not out.startswith(scratch):
        raise RuntimeError(f"the scratch copy is not the package imported (got {out}); refusing to go on")


def _run_mutant(scratch: str, m: Mutant, timeout: float) -> tuple[str, str, float]:
    path = os.path.join(scratch, m.path)
    with open(path, encoding="utf-8") as fh:
        original = fh.read()
    mutated = _apply(original, m)
    try:
        compile(mutated, path, "exec")
    except SyntaxError as exc:
        return "invalid", f"does not compile: {exc}", 0.0
    t0 = time.perf_counter()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(mutated)
    try:
        code, tail = _pytest(scratch, m.tests, timeout)
    finally:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(original)
    status = "survived" if code == 0 else ("timeout" if code == -1 else "killed")
    return status, tail, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", default="", help="only mutants whose name or class contains this word")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once (one scratch copy each)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant before it counts as a timeout")
    args = ap.parse_args(argv)

    names = [m.name for m in MUTANTS]
    if len(set(names)) != len(names):
        raise SystemExit("duplicate mutant names")
    selected = [m for m in MUTANTS if args.k in m.name or args.k in m.cls]
    present = [m for m in selected if os.path.exists(os.path.join(ROOT, m.path))]
    if args.list:
        for m in selected:
            print(f"{m.cls:22s} {m.name:42s} {m.path}")
        print(f"{len(selected)} mutants in {len({m.cls for m in selected})} classes")
        return 0
    for m in present:  # refuse stale entries before spending any time
        with open(os.path.join(ROOT, m.path), encoding="utf-8") as fh:
            _apply(fh.read(), m)

    jobs = max(1, args.jobs)
    scratches = [_scratch_copy() for _ in range(jobs)]
    try:
        _check_copy_is_used(scratches[0])
        baseline = sorted({t for m in present for t in m.tests})
        code, tail = _pytest(scratches[0], baseline, args.timeout)
        print(f"baseline (unmutated copy, {len(baseline)} test files): {tail}")
        if code != 0:
            print("the unmutated copy fails its tests: fix that first")
            return 2
        results = {}
        free = list(scratches)

        def work(m):
            scratch = free.pop()
            try:
                return m, _run_mutant(scratch, m, args.timeout)
            finally:
                free.append(scratch)

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for m, (status, tail, secs) in pool.map(work, present):
                results[m.name] = status
                print(f"{status:9s} {m.cls:20s} {m.name:42s} {secs:5.1f}s  {tail}", flush=True)
    finally:
        for s in scratches:
            shutil.rmtree(s, ignore_errors=True)
    killed = sum(s == "killed" for s in results.values())
    survivors = [n for n, s in results.items() if s != "killed"]
    print(f"SUMMARY: {killed}/{len(results)} mutants killed, {len(survivors)} not killed"
          + (f": {', '.join(survivors)}" if survivors else "")
          + (f" ({len(selected) - len(present)} skipped: file missing)" if len(present) < len(selected) else ""))
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
