"""dpcourse.lower_bounds: exact values, the theorems checked independently, statistical tests, bad input."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

import dpcourse
from dpcourse import lower_bounds as lb
from dpcourse.exercises import lower_bounds as ex
from dpcourse.plots import lower_bounds as figs

ALPHA = 1e-6


# ---------------------------------------------------------------------------------------------------
# Packing


def test_packing_probability_exact_values():
    e = math.e
    assert lb.packing_failure_probability(1, 1.0, 1, relation="add_remove") == pytest.approx(1 / (1 + e), rel=1e-14)
    assert lb.packing_failure_probability(8, math.log(8), 1, relation="add_remove") == pytest.approx(0.5, rel=1e-14)
    # replace-one compares the centre dataset with k - 1 others
    assert lb.packing_failure_probability(8, 0.5, 3, relation="replace_one") == pytest.approx(
        7 / (7 + math.exp(1.5)), rel=1e-14)
    assert lb.packing_failure_probability(2, 0.1, 20, relation="replace_one") == pytest.approx(
        1 / (1 + math.exp(2.0)), rel=1e-14)
    assert lb.packing_failure_probability(10, 1000.0, 5, relation="add_remove") == 0.0  # no overflow, no round-up
    assert lb.packing_failure_probability(10, 100.0, 5, relation="add_remove") == pytest.approx(
        10 * math.exp(-500.0), rel=1e-12)


def test_packing_error_bound_exact_values():
    assert lb.packing_error_bound(1000, 1.0, relation="add_remove") == 3.0      # floor(6.91) / 2
    assert lb.packing_error_bound(21, 0.25, relation="replace_one") == 5.5      # floor(ln 20 / 0.25) = 11
    assert lb.packing_error_bound(21, 0.25, relation="add_remove") == 6.0       # floor(ln 21 / 0.25) = 12
    assert lb.packing_error_bound(2, 1.0, relation="add_remove") == 0.0         # floor(ln 2) = 0
    assert lb.packing_error_bound(8, math.log(8), relation="add_remove") == 0.5  # m = 1 exactly at the edge
    assert lb.packing_error_bound(1, 0.1, relation="add_remove", beta=1 / (1 + math.e)) == 5.0
    assert lb.packing_error_bound(100, 0.5, relation="add_remove", beta=0.05) == 7.5  # floor(ln 1900 / 0.5) = 15


@pytest.mark.parametrize("k,eps,rel,beta", [(50, 0.3, "add_remove", 0.5), (50, 0.3, "replace_one", 0.2),
                                            (3, 0.05, "replace_one", 0.5), (10**6, 2.0, "add_remove", 0.9)])
def test_packing_error_bound_is_the_largest_certified_m(k, eps, rel, beta):
    t = lb.packing_error_bound(k, eps, relation=rel, beta=beta)
    m = int(round(2 * t))
    if m > 0:
        assert lb.packing_failure_probability(k, eps, m, relation=rel) >= beta * (1 - 1e-12)
    assert lb.packing_failure_probability(k, eps, m + 1, relation=rel) < beta


@pytest.mark.parametrize("eps", [0.1, 0.7, 2.0])
@pytest.mark.parametrize("k", [1, 5, 200])
def test_geometric_histogram_respects_the_packing_bound(k, eps):
    # The geometric histogram (add/remove, scale 1/eps) is eps-DP, so on the proof's datasets its failure
    # probability, computed exactly from the discrete Laplace tail, is at least the theorem's bound.
    r = math.exp(-eps)
    for m in range(1, 40):
        j = math.ceil(m / 2)                                    # |K| >= m/2 for an integer K
        tail = 2 * r**j / (1 + r)                               # Pr[|K| >= j], j >= 1
        fail = 1 - (1 - tail) ** k
        assert fail >= lb.packing_failure_probability(k, eps, m, relation="add_remove") - 1e-12


def test_packing_bound_is_attained_for_one_count():
    # Randomized response between the two datasets of the proof (k = 1, m = 1): output h(D) with probability
    # e^eps / (1 + e^eps), the other histogram otherwise. It is eps-DP, and its failure probability equals the bound.
    for eps in (0.1, 1.0, 3.0):
        fail = 1 / (1 + math.exp(eps))
        assert fail == pytest.approx(lb.packing_failure_probability(1, eps, 1, relation="add_remove"), rel=1e-13)


# ---------------------------------------------------------------------------------------------------
# Reconstruction as a lower bound


def test_bit_guessing_bound_is_attained():
    # Reveal the bit with probability delta, else randomized response at eps: an (eps, delta)-DP mechanism whose
    # best guess is right with probability delta + (1 - delta) e^eps / (1 + e^eps), exactly the bound.
    for eps, delta in [(1.0, 0.0), (0.5, 1e-3), (3.0, 0.2)]:
        t = dpcourse.rr_truth_probability(eps)
        assert lb.bit_guessing_bound(eps, delta) == pytest.approx(delta + (1 - delta) * t, rel=1e-13)
    assert lb.bit_guessing_bound(1.0, 0.0) == pytest.approx(math.e / (1 + math.e), rel=1e-15)
    assert lb.bit_guessing_bound(800.0, 0.1) == 1.0


def test_bit_guessing_bound_holds_for_randomized_response_on_random_bits():
    eps, n = 1.0, 400_000
    gen = np.random.default_rng(5)
    bits = gen.integers(0, 2, n)
    guesses = dpcourse.randomized_response(bits, eps, rng=gen)
    right = int(np.sum(guesses == bits))
    # one-sided binomial test at 1e-6 that the success rate is not above the bound
    assert stats.binom.sf(right - 1, n, lb.bit_guessing_bound(eps, 0.0)) > ALPHA


def test_subset_sum_error_bound_values():
    n, eps, delta, beta = 1000, 1.0, 1e-6, 0.05
    assert lb.subset_sum_error_bound(n, eps, delta, beta) == pytest.approx(
        n / 4 * ((1 - delta) / (1 + math.e) - beta), rel=1e-13)
    assert lb.subset_sum_error_bound(1000, 5.0, 0.0, 0.05) == 0.0  # (1/(1+e^5) < 0.05): nothing certified


# ---------------------------------------------------------------------------------------------------
# Fingerprinting


def test_fingerprinting_code_distribution():
    p, x = lb.fingerprinting_code(200, 10_000, rng=11)
    assert p.shape == (10_000,) and x.shape == (200, 10_000) and x.dtype == np.int8
    assert stats.kstest(p, "uniform").pvalue > ALPHA
    # column sums are Binomial(200, p_j): their standardised squares sum to about chi-square(d)
    z = (x.sum(axis=0) - 200 * p) / np.sqrt(200 * p * (1 - p))
    assert stats.chi2.sf(np.sum(z**2), z.size) > ALPHA and stats.chi2.cdf(np.sum(z**2), z.size) > ALPHA
    assert np.array_equal(lb.fingerprinting_code(5, 7, rng=3)[1], lb.fingerprinting_code(5, 7, rng=3)[1])


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_fingerprinting_lemma_exactly_for_small_n(seed):
    # n = 2: every f on {-1, 1}^2 with values in [-1, 1]; both sides computed by quadrature over p.
    gen = np.random.default_rng(seed)
    table = {x: gen.uniform(-1, 1) for x in [(-1, -1), (-1, 1), (1, -1), (1, 1)]}

    def weight(x, p):
        return math.prod((1 + xi * p) / 2 for xi in x)

    left = integrate.quad(lambda p: 0.5 * sum(weight(x, p) * f * sum(xi - p for xi in x) for x, f in table.items()),
                          -1, 1)[0]
    gap = integrate.quad(lambda p: 0.5 * sum(weight(x, p) * abs(f - p) for x, f in table.items()), -1, 1,
                         limit=200)[0]
    assert left >= 2 / 3 - 2 * gap - 1e-9
    # the sample-mean form: 2/3 - 2 E|f - x̄| (x̄ = (x_1 + x_2)/2), used by the corollary's padding
    gap_mean = integrate.quad(lambda p: 0.5 * sum(weight(x, p) * abs(f - sum(x) / 2) for x, f in table.items()),
                              -1, 1)[0]
    assert left >= 2 / 3 - 2 * gap_mean - 1e-9
    # the identity of the proof: the left side equals 2 E[p f(x)]
    pf = integrate.quad(lambda p: 0.5 * sum(weight(x, p) * p * f for x, f in table.items()), -1, 1)[0]
    assert left == pytest.approx(2 * pf, abs=1e-12)


def _excluded(n, d, eps, delta, alpha):
    """Brute force of corollary lb-cor-fingerprinting-alpha: is n ruled out by some n0?"""
    c = math.sqrt(1.5 * d) * 2 / (math.exp(eps) - math.exp(-eps))       # sqrt(3d/2) / sinh(eps)
    for n0 in range(1, n + 1):
        a = 2 * alpha * n / n0                                           # error of the padded release (±1)
        if n0 < (2 / 3 - 2 * a - 4 * delta * n0) * c:                   # theorem lb-thm-fingerprinting violated
            return True
    return False


@pytest.mark.parametrize("d,eps,delta,alpha", [(10_000, 0.1, 1e-6, 0.05), (100_000, 0.5, 1e-6, 0.01),
                                               (5_000, 0.1, 0.0, 0.02), (10**5, 0.1, 1e-3, 0.01),
                                               (10**4, 1.0, 1e-6, 0.01)])
def test_fingerprinting_sample_bound_against_brute_force(d, eps, delta, alpha):
    low, high = lb.fingerprinting_sample_bound(d, eps, delta, alpha)
    assert 0 < low <= high
    assert all(_excluded(n, d, eps, delta, alpha) for n in range(low, high + 1))
    assert not _excluded(high + 1, d, eps, delta, alpha)
    assert not _excluded(low - 1, d, eps, delta, alpha) if low > 1 else True


def test_fingerprinting_sample_bound_properties():
    assert lb.fingerprinting_sample_bound(100, 5.0, 1e-6, 0.01) == (0, 0)
    assert lb.fingerprinting_sample_bound(10_000, 0.1, 1e-6, 1 / 6) == (0, 0)   # 4 alpha n / n0 >= 2/3: nothing
    assert lb.fingerprinting_sample_bound(10_000, 0.1, 0.2, 0.01) == (0, 0)    # 4 delta n0 >= 2/3 for every n0
    highs = [lb.fingerprinting_sample_bound(10**5, 0.1, 1e-6, a)[1] for a in (0.02, 0.01, 0.005)]
    assert highs[0] < highs[1] < highs[2]
    assert highs[2] == pytest.approx(2 * highs[1], rel=0.01)    # n grows like 1/alpha
    assert lb.fingerprinting_sample_bound(10_000, 0.1, 1e-6, 0.01) == (1, 3379)
    # about C / (36 alpha) for small alpha and delta (best n0 = C/3), C = sqrt(3d/2) / sinh(eps)
    c = math.sqrt(1.5 * 10**6) / math.sinh(0.1)
    assert lb.fingerprinting_sample_bound(10**6, 0.1, 0.0, 1e-4)[1] == pytest.approx(c / 36 / 1e-4, rel=1e-3)
    # the numbers of exercise lb-ex-where-delta
    assert lb.fingerprinting_sample_bound(10**5, 0.1, 1e-6, 0.01) == (1, 10576)
    assert lb.fingerprinting_sample_bound(10**5, 0.1, 1e-3, 0.01) == (1, 652)
    assert lb.fingerprinting_sample_bound(10**5, 0.1, 1e-2, 0.01) == (1, 68)


def test_gaussian_means_sample_size_gives_error_alpha():
    d, eps, delta, alpha = 10_000, 1.0, 1e-5, 0.01
    n = lb.gaussian_means_sample_size(d, eps, delta, alpha)
    sigma = dpcourse.analytic_gaussian_sigma(eps, delta, math.sqrt(d) / n)
    assert sigma * math.sqrt(2 / math.pi) == pytest.approx(alpha, rel=1e-9)


def test_tracing_trial_releases():
    out = lb.tracing_trial(60, 500, rng=1, n_outsiders=200)
    assert out["mean_abs_error"] == 0.0 and out["members"].shape == (60,) and out["outsiders"].shape == (200,)
    out = lb.tracing_trial(60, 500, release="rounded", step=0.1, rng=1, n_outsiders=200)
    assert 0 < out["max_abs_error"] <= 0.05 + 1e-12


def test_tracing_trial_gaussian_noise_is_calibrated_to_sqrt_d_over_n():
    # the released means' l2 sensitivity is sqrt(d)/n: the secure release adds at least the analytic sigma for it
    n, d, eps, delta = 50, 20_000, 1.0, 1e-5
    out = lb.tracing_trial(n, d, release="gaussian", epsilon=eps, delta=delta, rng=7, n_outsiders=10)
    sigma = dpcourse.analytic_gaussian_sigma(eps, delta, math.sqrt(d) / n)
    mean_abs, sd_abs = sigma * math.sqrt(2 / math.pi), sigma * math.sqrt(1 - 2 / math.pi)
    z = stats.norm.isf(ALPHA)
    assert out["mean_abs_error"] >= mean_abs - z * sd_abs / math.sqrt(d)


def test_tracing_succeeds_on_exact_means_and_not_on_private_ones():
    exact = lb.tracing_trial(50, 2000, rng=3, n_outsiders=500)
    assert dpcourse.tpr_at_fpr(exact["members"], exact["outsiders"], 0.01) > 0.9
    private = lb.tracing_trial(50, 2000, release="gaussian", epsilon=1.0, delta=1e-5, rng=3, n_outsiders=500)
    assert dpcourse.tpr_at_fpr(private["members"], private["outsiders"], 0.01) < 0.1


# ---------------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize("call", [
    lambda: lb.packing_failure_probability(0, 1.0, 1, relation="add_remove"),
    lambda: lb.packing_failure_probability(1, 1.0, 1, relation="replace_one"),
    lambda: lb.packing_failure_probability(3, 0.0, 1, relation="add_remove"),
    lambda: lb.packing_failure_probability(3, float("nan"), 1, relation="add_remove"),
    lambda: lb.packing_failure_probability(3, 1.0, 0, relation="add_remove"),
    lambda: lb.packing_failure_probability(3, 1.0, 1, relation="bounded"),
    lambda: lb.packing_error_bound(3, 1.0, relation="add_remove", beta=0.0),
    lambda: lb.packing_error_bound(3, 1.0, relation="add_remove", beta=1.0),
    lambda: lb.packing_error_bound(True, 1.0, relation="add_remove"),
    lambda: lb.bit_guessing_bound(1.0, 1.0),
    lambda: lb.bit_guessing_bound(-1.0, 0.0),
    lambda: lb.subset_sum_error_bound(0, 1.0, 0.0, 0.1),
    lambda: lb.subset_sum_error_bound(10, 1.0, 0.0, 1.5),
    lambda: lb.fingerprinting_code(0, 3),
    lambda: lb.fingerprinting_code(10**5, 10**4),
    lambda: lb.fingerprinting_sample_bound(100, 1.0, 1e-6, 0.0),
    lambda: lb.fingerprinting_sample_bound(100, 1.0, 1e-6, float("inf")),
    lambda: lb.gaussian_means_sample_size(100, 1.0, 0.0, 0.1),
    lambda: lb.tracing_trial(10, 10, release="laplace"),
    lambda: lb.tracing_trial(10, 10, release="gaussian", epsilon=1.0),
    lambda: lb.tracing_trial(10, 10, release="gaussian", epsilon=1.0, delta=0.0),
    lambda: lb.tracing_trial(10, 10, release="rounded"),
    lambda: lb.tracing_trial(10, 10, release="rounded", step=0.0),
    lambda: lb.tracing_trial(10**4, 10**4, n_outsiders=10**4),
])
def test_bad_public_parameters_are_refused(call):
    with pytest.raises((ValueError, TypeError)):
        call()


def test_refusals_name_the_argument():
    with pytest.raises(ValueError, match="beta"):
        lb.packing_error_bound(3, 1.0, relation="add_remove", beta=0.0)
    with pytest.raises(ValueError, match="FINGERPRINT_MAX_CELLS"):
        lb.fingerprinting_code(10**5, 10**4)


# ---------------------------------------------------------------------------------------------------
# Exercises and figures


def test_check_packing_error():
    assert ex.check_packing_error(5.5)
    for slip in (6.0, 11.0, math.log(20) / 0.25 / 2):
        res = ex.check_packing_error(slip)
        assert not res and "5.5" not in res.message
    assert not ex.check_packing_error("5.5") and not ex.check_packing_error(float("nan"))


def test_check_packing_probability():
    def right(k, epsilon, m, relation):
        big = k if relation == "add_remove" else k - 1
        return big / (big + math.exp(epsilon * m))

    def wrong_count(k, epsilon, m, relation):
        return k / (k + math.exp(epsilon * m))

    def wrong_sign(k, epsilon, m, relation):
        big = k if relation == "add_remove" else k - 1
        return big / (big + math.exp(-epsilon * m))

    assert ex.check_packing_probability(right)
    assert "relation" in ex.check_packing_probability(wrong_count).message
    assert "smaller" in ex.check_packing_probability(wrong_sign).message
    assert not ex.check_packing_probability(lambda k, e, m, r: lb.packing_failure_probability(k, e, m, relation=r))


def test_tracing_roc_and_figures():
    fpr, tpr = figs.tracing_roc([2.5, 3.5, 0.5], [0.0, 1.0, 2.0, 3.0])
    assert fpr.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert tpr.tolist() == pytest.approx([1 / 3, 2 / 3, 2 / 3, 1.0])
    import matplotlib.pyplot as plt

    fig = figs.plot_tracing_roc(10, 4.0, d=50, n_outsiders=20)
    assert len(fig.axes) == 1
    plt.close(fig)
    fig = figs.plot_packing([2, 20], 1.0, [1.0, 3.0], [4.0, 6.0])
    plt.close(fig)
    assert len(list(figs.tracing_widget().controls)) == 2


def test_extreme_public_parameters_give_capped_true_answers():
    low, high = lb.fingerprinting_sample_bound(10**12, 5e-324, 0.0, 5e-324)
    assert 0 < low and high == lb.FINGERPRINT_MAX_N
    assert lb.fingerprinting_sample_bound(10**12, 1e300, 1e-6, 0.01) == (0, 0)
    assert lb.fingerprinting_sample_bound(10**4, 0.1, 5e-324, 0.01) == lb.fingerprinting_sample_bound(10**4, 0.1, 0.0, 0.01)
    t = lb.packing_error_bound(2**62, 5e-324, relation="add_remove")
    assert math.isfinite(t) and t <= math.log(2**62) / 5e-324 / 2
    assert lb.packing_error_bound(2, 1e300, relation="add_remove", beta=1 - 2**-53) == 0.0
