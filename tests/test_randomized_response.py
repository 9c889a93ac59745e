"""Randomized response: exact values, the sampler's distribution, empirical privacy, unbiasedness, bad input."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from dpcourse import (  # noqa: E402
    randomized_response,
    rr_count_distribution,
    rr_epsilon,
    rr_estimate_mean,
    rr_sample_size,
    rr_standard_error,
    rr_truth_probability,
)
from dpcourse._validation import check_binary_array  # noqa: E402
from dpcourse.data import load_affairs  # noqa: E402
from dpcourse.exercises.randomized_response import check_rr_estimator  # noqa: E402
from dpcourse.plots import randomized_response as figs  # noqa: E402

ALPHA = 1e-6  # significance of every statistical test


# ---------------------------------------------------------------- exact values and laws

def test_epsilon_and_truth_probability_by_hand():
    assert rr_epsilon(0.25) == pytest.approx(math.log(3), rel=1e-15)  # truth probability 3/4
    assert rr_epsilon(0.4) == pytest.approx(math.log(9), rel=1e-15)   # 0.9 / 0.1
    assert rr_truth_probability(math.log(3)) == pytest.approx(0.75, rel=1e-15)
    assert rr_truth_probability(1e-12) == pytest.approx(0.5 + 1e-12 / 4, rel=1e-15)
    assert rr_truth_probability(800.0) == 1.0  # no overflow


@pytest.mark.parametrize("gamma", [1e-9, 1e-4, 0.01, 0.1, 0.2, 0.25, 0.3, 0.45, 0.499])
def test_epsilon_gamma_bounds_and_inverse(gamma):
    eps = rr_epsilon(gamma)
    assert 4 * gamma <= eps * (1 + 1e-15)
    assert eps <= 4 * gamma / (1 - 4 * gamma**2) * (1 + 1e-15)
    if gamma <= 0.25:
        assert eps <= 16 * gamma / 3 * (1 + 1e-15)
    assert rr_truth_probability(eps) == pytest.approx(0.5 + gamma, rel=1e-12)
    # the converse bounds of lemma lem-rr-gamma: eps/4 - eps^3/48 <= gamma <= eps/4
    assert eps / 4 - eps**3 / 48 <= gamma * (1 + 1e-12) and gamma <= eps / 4 * (1 + 1e-12)


def test_tiny_gamma_is_accurate():
    # log((0.5+g)/(0.5-g)) computed naively loses all digits at g = 1e-17; log1p does not.
    assert rr_epsilon(1e-17) == pytest.approx(4e-17, rel=1e-12)


def test_estimate_by_hand():
    eps = math.log(3)  # t = 3/4, 2 gamma = 1/2, flip probability 1/4
    assert rr_estimate_mean([1, 1, 0, 1], eps) == pytest.approx(1.0, abs=1e-15)
    assert rr_estimate_mean([0, 0, 0, 1], eps) == pytest.approx(0.0, abs=1e-15)
    assert rr_estimate_mean([1, 0], eps) == pytest.approx(0.5, abs=1e-15)
    assert rr_estimate_mean([0, 0], eps) == pytest.approx(-0.5, abs=1e-15)  # not clipped
    assert rr_estimate_mean(np.array([1.0, 1.0]), eps) == pytest.approx(1.5, abs=1e-15)
    cols = rr_estimate_mean([[1, 0], [0, 1], [0, 0], [1, 0]], eps)
    assert cols.shape == (2,)
    assert cols.tolist() == pytest.approx([0.5, 0.0], abs=1e-15)
    assert isinstance(rr_estimate_mean([1, 0], eps), float)


def test_standard_error_by_hand():
    # eps = 2 ln 3: gamma = tanh(ln 3)/2 = 0.4, sd = sqrt(1/4 - 0.16) / (0.8 sqrt(100)) = 0.3 / 8
    assert rr_standard_error(100, 2 * math.log(3)) == pytest.approx(0.0375, rel=1e-14)
    for n, eps in [(1, 0.1), (601, 1.0), (10**6, 3.0)]:
        gamma = (rr_truth_probability(eps) - 0.5)
        assert rr_standard_error(n, eps) == pytest.approx(math.sqrt(0.25 - gamma**2) / (2 * gamma * math.sqrt(n)))
        assert rr_standard_error(n, eps) <= 1 / (eps * math.sqrt(n))


def test_sample_size_is_the_smallest_n_meeting_the_hoeffding_bound():
    for alpha, beta, eps, k in [(0.05, 0.05, 1.0, 1), (0.1, 0.01, 0.5, 3), (0.02, 0.1, 2.0, 10), (0.5, 0.5, 8.0, 2)]:
        n = rr_sample_size(alpha, beta, eps, k=k)

        def failure(m):
            return k * 2 * math.exp(-2 * math.tanh(eps / (2 * k)) ** 2 * alpha**2 * m)

        assert failure(n) <= beta < failure(n - 1)
        if eps <= 2 * k:  # the simplified bound of theorem thm-rr-k-queries
            assert n <= 3.5 * k**2 * math.log(2 * k / beta) / (eps**2 * alpha**2)
    assert rr_sample_size(0.05, 0.05, 1.0, k=4) > 4 * rr_sample_size(0.05, 0.05, 1.0, k=2) / 1.01 > 0


def test_count_distribution_unchanged():
    assert rr_count_distribution([1, 0], 0.75).tolist() == pytest.approx([3 / 16, 10 / 16, 3 / 16])
    assert rr_count_distribution([], 0.6).tolist() == [1.0]


# ---------------------------------------------------------------- the sampler

def test_output_type_shape_and_vectorization():
    out = randomized_response(np.ones(10**6), 1.0, rng=0)
    assert out.dtype == np.int64 and out.shape == (10**6,)
    assert set(np.unique(out).tolist()) == {0, 1}
    assert randomized_response(np.zeros((3, 4)), 0.5, rng=1).shape == (3, 4)
    assert randomized_response([], 1.0, rng=1).shape == (0,)
    # seeded: same seed, same reports; a Generator is advanced
    assert np.array_equal(randomized_response([1, 0] * 50, 1.0, rng=7), randomized_response([1, 0] * 50, 1.0, rng=7))
    gen = np.random.default_rng(3)
    assert not np.array_equal(randomized_response(np.ones(100), 1.0, rng=gen), randomized_response(np.ones(100), 1.0, rng=gen))


N_SAMPLER = 400_000  # a truth probability off by 0.01 is about 14 standard errors away: it fails


def _binom_p(reports, p):
    return stats.binomtest(int(reports.sum()), reports.size, p).pvalue


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_sampler_is_bernoulli_with_the_exact_probability(eps):
    t = rr_truth_probability(eps)
    rng = np.random.default_rng(100 + int(10 * eps))
    assert _binom_p(randomized_response(np.ones(N_SAMPLER), eps, rng=rng), t) > ALPHA
    assert _binom_p(randomized_response(np.zeros(N_SAMPLER), eps, rng=rng), 1 - t) > ALPHA
    # float input 1.0/0.0 is the same bit
    mixed = randomized_response(np.tile([1.0, 0.0], N_SAMPLER // 2), eps, rng=rng)
    assert _binom_p(mixed[0::2], t) > ALPHA and _binom_p(mixed[1::2], 1 - t) > ALPHA


def test_the_binomial_test_has_power_against_a_one_percent_error():
    # The same test applied to a sampler whose truth probability is off by 0.01 fails decisively.
    t = rr_truth_probability(1.0)
    rng = np.random.default_rng(5)
    wrong = (rng.random(N_SAMPLER) < t + 0.01).astype(int)
    assert _binom_p(wrong, t) < ALPHA
    wrong = (rng.random(N_SAMPLER) < t - 0.01).astype(int)
    assert _binom_p(wrong, t) < ALPHA


def test_entries_are_randomized_independently():
    # The reports of two entries of the same row are independent: chi-square test on the 2x2 table.
    eps = 1.0
    reports = randomized_response(np.tile([1, 0], (200_000, 1)), eps, rng=11)
    table = np.array([[np.sum((reports[:, 0] == a) & (reports[:, 1] == b)) for b in (0, 1)] for a in (0, 1)])
    t = rr_truth_probability(eps)
    expected = reports.shape[0] * np.outer([1 - t, t], [t, 1 - t])
    assert stats.chisquare(table.ravel(), expected.ravel()).pvalue > ALPHA


# ---------------------------------------------------------------- empirical privacy on neighbours

def _clopper_pearson(k, n, level):
    lo = stats.beta.ppf(level / 2, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - level / 2, k + 1, n - k) if k < n else 1.0
    return lo, hi


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_privacy_loss_on_neighbouring_bits_matches_the_claim(eps):
    # Neighbours in the local model: the input bit 1 against the input bit 0. For each report value the
    # log ratio of its probabilities is bounded by a confidence interval built from Clopper-Pearson
    # intervals (total level 1e-6). The claim must lie inside (the loss does not exceed it beyond sampling
    # error, and comes close to it), and the interval is tight.
    n = 1_000_000
    rng = np.random.default_rng(int(1000 * eps))
    k1 = int(randomized_response(np.ones(n), eps, rng=rng).sum())
    k0 = int(randomized_response(np.zeros(n), eps, rng=rng).sum())
    lo1, hi1 = _clopper_pearson(k1, n, ALPHA / 2)
    lo0, hi0 = _clopper_pearson(k0, n, ALPHA / 2)
    loss_report_1 = (math.log(lo1 / hi0), math.log(hi1 / lo0))  # ln P(1|1)/P(1|0)
    loss_report_0 = (math.log((1 - hi0) / (1 - lo1)), math.log((1 - lo0) / (1 - hi1)))  # ln P(0|0)/P(0|1)
    for lo, hi in (loss_report_1, loss_report_0):
        assert lo <= eps <= hi
        assert hi - lo < 0.03 * max(eps, 1.0)  # so an epsilon off by 0.03 (by 3% when eps >= 1) is caught
    # the measured loss of the pair: the larger of the two log ratios
    measured = max(math.log(k1 / k0), math.log((n - k0) / (n - k1)))
    assert measured <= max(loss_report_1[1], loss_report_0[1])


def test_exact_privacy_of_the_report_vector():
    # The report vector of n people, as exact distributions over {0,1}^n: replace-one neighbours
    # differ by exactly eps, and k answers at eps/k compose to eps when all answers differ.
    from itertools import product

    from dpcourse import privacy_loss

    eps = 0.7
    t = rr_truth_probability(eps)
    outcomes = np.array(list(product((0, 1), repeat=3)))

    def dist(x):
        return np.prod(np.where(outcomes == np.asarray(x), t, 1 - t), axis=1)

    assert privacy_loss(dist([1, 0, 1]), dist([0, 0, 1])) == pytest.approx(eps, rel=1e-12)
    assert privacy_loss(dist([1, 1, 1]), dist([0, 0, 0])) == pytest.approx(3 * eps, rel=1e-12)


# ---------------------------------------------------------------- the estimator

@pytest.mark.parametrize("mean, eps", [(0.3, 0.5), (0.02, 1.0), (0.9, 4.0)])
def test_estimator_is_unbiased_with_the_exact_standard_error(mean, eps):
    n, reps = 500, 4000
    bits = np.zeros(n, dtype=int)
    bits[: int(mean * n)] = 1
    est = rr_estimate_mean(randomized_response(np.broadcast_to(bits[:, None], (n, reps)), eps, rng=42), eps)
    se = rr_standard_error(n, eps)
    z_crit = stats.norm.isf(ALPHA / 2)
    assert abs(est.mean() - bits.mean()) <= z_crit * se / math.sqrt(reps)  # CLT bound on the average
    # sample variance against the exact variance (chi-square, the estimates being nearly normal)
    stat = (reps - 1) * est.var(ddof=1) / se**2
    assert stats.chi2.ppf(ALPHA / 2, reps - 1) <= stat <= stats.chi2.isf(ALPHA / 2, reps - 1)


def test_unbiasedness_test_has_power():
    # The raw fraction of reported 1s, or an estimator using the truth probability (1 + eps)/2, fail it.
    n, reps, eps, mean = 500, 4000, 0.5, 0.3
    bits = np.zeros(n, dtype=int)
    bits[: int(mean * n)] = 1
    reports = randomized_response(np.broadcast_to(bits[:, None], (n, reps)), eps, rng=42)
    bound = stats.norm.isf(ALPHA / 2) * rr_standard_error(n, eps) / math.sqrt(reps)
    assert abs(reports.mean(axis=0).mean() - mean) > bound
    t_wrong = (1 + eps) / 2
    wrong = (reports.mean(axis=0) - (1 - t_wrong)) / (2 * t_wrong - 1)
    assert abs(wrong.mean() - mean) > bound


# ---------------------------------------------------------------- validation

BAD_BITS = [
    ([0, 1, 2], ValueError, "only 0 and 1"),
    ([0, -1], ValueError, "only 0 and 1"),
    ([0.5, 1], ValueError, "only 0 and 1"),
    ([0, np.nan], ValueError, "finite"),
    ([1, np.inf], ValueError, "finite"),
    (np.array([True, False]), TypeError, "booleans"),
    ([True, False], TypeError, "booleans"),
    ("0101", TypeError, "numeric"),
    (["0", "1"], TypeError, "real numbers"),
    ([1 + 0j], TypeError, "real numbers"),
    # an object array of real numbers is read as numbers (a neighbour holding a Python int beyond 64 bits must
    # not be refused where the other is released: 6ff93da); one holding anything else is refused
    (np.array([0, "1"], dtype=object), TypeError, "real numbers"),
]

BAD_EPS = [
    (0.0, ValueError, "epsilon must lie in"),
    (-1.0, ValueError, "epsilon must lie in"),
    (np.nan, ValueError, "NaN"),
    (np.inf, ValueError, "finite"),
    (True, TypeError, "bool"),
    ("1", TypeError, "real number"),
    (None, TypeError, "real number"),
]


@pytest.mark.parametrize("bits, exc, match", BAD_BITS)
def test_randomized_response_rejects_bad_bits(bits, exc, match):
    with pytest.raises(exc, match=match):
        randomized_response(bits, 1.0, rng=0)


@pytest.mark.parametrize("bits, exc, match", BAD_BITS)
def test_estimator_rejects_bad_responses(bits, exc, match):
    with pytest.raises(exc, match=match.replace("bits", "responses")):
        rr_estimate_mean(bits, 1.0)


@pytest.mark.parametrize("eps, exc, match", BAD_EPS)
def test_bad_epsilon_everywhere(eps, exc, match):
    for call in (lambda: randomized_response([0, 1], eps), lambda: rr_estimate_mean([0, 1], eps),
                 lambda: rr_truth_probability(eps), lambda: rr_standard_error(10, eps),
                 lambda: rr_sample_size(0.1, 0.1, eps)):
        with pytest.raises(exc, match=match):
            call()


def test_other_arguments_are_validated():
    with pytest.raises(ValueError, match="responses must not be empty"):
        rr_estimate_mean([], 1.0)
    with pytest.raises(ValueError, match="scalar"):
        rr_estimate_mean(1, 1.0)
    for bad_rng, exc in [(1.5, TypeError), (-1, ValueError), (True, TypeError), (np.random.RandomState(0), TypeError)]:
        with pytest.raises(exc, match="rng"):
            randomized_response([0, 1], 1.0, rng=bad_rng)
    for gamma, exc in [(0.0, ValueError), (0.5, ValueError), (-0.1, ValueError), (np.nan, ValueError), (True, TypeError)]:
        with pytest.raises(exc, match="gamma"):
            rr_epsilon(gamma)
    for n, exc in [(0, ValueError), (2.5, TypeError), (True, TypeError)]:
        with pytest.raises(exc, match="n must be an integer"):
            rr_standard_error(n, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        rr_sample_size(0.0, 0.1, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        rr_sample_size(1.5, 0.1, 1.0)
    for beta in (0.0, 1.0, np.nan):
        with pytest.raises(ValueError, match="beta"):
            rr_sample_size(0.1, beta, 1.0)
    with pytest.raises(ValueError, match="k must be an integer"):
        rr_sample_size(0.1, 0.1, 1.0, k=0)
    with pytest.raises(ValueError, match="only 0 and 1"):
        rr_count_distribution([0, 2], 0.7)


def test_check_binary_array():
    assert check_binary_array([0, 1.0, 1]).tolist() == [0, 1, 1]
    assert check_binary_array([0, 1]).dtype == np.int64
    with pytest.raises(ValueError, match=r"x must contain only 0 and 1"):
        check_binary_array([[0, 1], [3, 0]], "x")
    with pytest.raises(ValueError, match="1 dimension"):
        check_binary_array([[0, 1]], ndim=1)


# ---------------------------------------------------------------- data, figures, checker

def test_affairs_data():
    d = load_affairs()
    assert set(d) == {"any_affair", "affairs", "gender", "age", "rating"}
    assert all(v.shape == (601,) for v in d.values())
    assert d["any_affair"].sum() == 150
    assert np.array_equal(d["any_affair"], (d["affairs"] > 0).astype(float))
    assert set(np.unique(d["affairs"]).tolist()) == {0, 1, 2, 3, 7, 12}
    assert set(np.unique(d["gender"]).tolist()) == {"female", "male"}
    assert set(np.unique(d["rating"]).tolist()) == {1, 2, 3, 4, 5}


def test_figures_and_widget():
    res = figs.rmse_vs_n([100, 1000], 1.0, reps=300, rng=0)
    assert res["rr"] == pytest.approx(res["rr_theory"], rel=0.25)
    assert res["central"] == pytest.approx(res["central_theory"], rel=0.25)
    assert figs._rr_theory(np.array([601.0]), 1.3)[0] == pytest.approx(rr_standard_error(601, 1.3), rel=1e-14)
    assert figs.population_bits(10, 0.25).tolist() == [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]  # round(2.5) = 2
    rr, central = figs.simulate_estimates(figs.population_bits(2_000_001, 0.5), 1.0, 2, rng=1)  # chunked path
    assert rr.shape == central.shape == (2,)
    for fig in (figs.plot_error_vs_n(1.0, ns=[100, 1000], reps=20), figs.plot_rr_vs_central(300, 2.0, reps=200)):
        assert isinstance(fig, matplotlib.figure.Figure)
        plt.close(fig)
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_rr_vs_central(100, 0.0)
    w = figs.rr_vs_central_widget()
    assert {c.description for c in w.children[:2]} == {"epsilon", "n"}
    plt.close("all")


def test_report_rate_line_by_hand_and_read_backwards():
    # at eps = ln 3 the truth probability is 3/4: a fraction 1/4 + mu/2 of reports are 1
    assert figs.expected_report_rate(0.25, math.log(3)) == pytest.approx(0.375, rel=1e-12)
    np.testing.assert_allclose(figs.expected_report_rate(np.array([0.0, 0.5, 1.0]), math.log(3)),
                               [0.25, 0.5, 0.75], rtol=1e-12)
    # the estimator of thm-rr-estimator reads the line backwards: 3 reported 1s of 8 give back mu = 1/4
    assert rr_estimate_mean(np.array([1, 1, 1, 0, 0, 0, 0, 0]), math.log(3)) == pytest.approx(0.25, rel=1e-12)
    # and the line is what the sampler produces: the fraction of reported 1s, by an exact binomial test
    bits = figs.population_bits(200_000, 0.3)
    ones = int(randomized_response(bits, 1.0, rng=11).sum())
    assert stats.binomtest(ones, bits.size, figs.expected_report_rate(0.3, 1.0)).pvalue > ALPHA
    # ... and a line through the wrong truth probability (1 - p instead of p) is rejected by the same test
    assert stats.binomtest(ones, bits.size, 0.3 * (1 - rr_truth_probability(1.0)) + 0.7 * rr_truth_probability(1.0)
                           ).pvalue < ALPHA
    with pytest.raises(ValueError, match="mean"):
        figs.expected_report_rate(1.5, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        figs.expected_report_rate(0.5, 0.0)


def test_coin_tree_and_report_rate_figures():
    fig = figs.plot_coin_tree(math.log(3))
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "p = 0.75" in texts and "1 - p = 0.25" in texts and "ratio = 3.00" in texts and "ratio = 0.33" in texts
    fig = figs.plot_report_rate([0.5, 1.0, 2.0], true_rate=0.25)
    lines = fig.axes[0].get_lines()
    x, y = lines[2].get_data()     # the line at eps = 1 (after the no-noise diagonal and eps = 0.5)
    np.testing.assert_allclose(y, figs.expected_report_rate(x, 1.0), rtol=1e-12)
    plt.close("all")
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_coin_tree(0.0)
    with pytest.raises(ValueError, match="true_rate"):
        figs.plot_report_rate([1.0], true_rate=1.5)
    with pytest.raises(ValueError, match="epsilons"):
        figs.plot_report_rate([], true_rate=0.5)
    with pytest.raises(ValueError, match="epsilon"):
        figs.plot_report_rate([1.0, -1.0])


def _reference(responses, epsilon):
    t = math.exp(epsilon) / (1 + math.exp(epsilon))
    return (np.mean(responses) - (1 - t)) / (2 * t - 1)


def test_checker_accepts_the_reference():
    assert check_rr_estimator(_reference).passed


@pytest.mark.parametrize(
    "student, hint",
    [
        (lambda r, e: np.mean(r), "true mean is 0.3"),
        (lambda r, e: np.mean(r), "fraction of reported 1s as it is"),
        (lambda r, e: min(1.0, max(0.0, _reference(r, e))), "never leave [0, 1]"),
        (lambda r, e: _reference(r, e / 2), "biased"),
        (lambda r, e: _reference(r, 1.0), "right at epsilon = 1.0"),
        (lambda r, e: _reference(np.random.default_rng(0).permutation(r)[: len(r) // 2], e), "standard deviation"),
        (lambda r, e: 1 / 0, "ZeroDivisionError"),
        (lambda r, e: [0.1, 0.2], "one number"),
        (lambda r, e: float("nan"), "finite"),
        (3, "pass the function itself"),
    ],
)
def test_checker_explains_typical_mistakes(student, hint):
    res = check_rr_estimator(student)
    assert not res.passed
    assert hint in res.message
    # never the formula
    assert "tanh" not in res.message and "e^eps" not in res.message and "exp(" not in res.message


# ---------------------------------------------------------------- extreme but valid arguments (issue 10)


def test_large_epsilon_never_overflows():
    # The math: flip probability e^-eps/(1+e^-eps) -> 0, standard error e^{-eps/2}/(sqrt(n)(1-e^-eps)) -> 0.
    assert rr_estimate_mean([1, 0, 1, 1], 1000.0) == 0.75
    assert rr_standard_error(10, 2000.0) == 0.0
    assert rr_standard_error(1, 800.0) == pytest.approx(math.exp(-400.0), rel=1e-12)
    assert rr_truth_probability(1e300) == 1.0
    assert randomized_response([0, 1, 1], 1e300, rng=0).tolist() == [0, 1, 1]
    assert rr_epsilon(0.5 - 2.0**-54) == pytest.approx(math.log(2.0**54), rel=1e-12)  # (1 - 2^-54)/2^-54


def test_standard_error_matches_the_sinh_form_where_that_is_finite():
    for n in (1, 7, 1000):
        for eps in (1e-8, 0.01, 1.0, 5.0, 50.0, 700.0):
            assert rr_standard_error(n, eps) == pytest.approx(1 / (2 * math.sqrt(n) * math.sinh(eps / 2)), rel=1e-12)


def test_sample_size_for_tiny_accuracy_or_beta_is_an_exact_integer():
    # Once a ZeroDivisionError (alpha^2 underflows) or an OverflowError (ln(2k/beta) with beta = 5e-324).
    n = rr_sample_size(1e-200, 0.05, 1.0)
    assert isinstance(n, int)
    slope = math.tanh(0.5)
    # compare in log space: n = ln(40) / (2 tanh(1/2)^2 1e-400)
    assert math.log10(n) == pytest.approx(math.log10(math.log(40.0) / (2 * slope**2)) + 400, rel=1e-14)
    assert rr_sample_size(0.1, 5e-324, 1.0) == math.ceil((math.log(2.0) - math.log(5e-324)) / (2 * slope**2 * 0.01))
    # epsilon so small that epsilon / 2k underflows: n grows like 1/eps^2 and is still an exact integer
    n = rr_sample_size(0.5, 0.5, 5e-324, k=3)
    assert isinstance(n, int) and math.log10(n) > 640
    # the float path and the exact path agree where both work
    assert rr_sample_size(0.01, 1e-10, 1e-6, k=10) == pytest.approx(math.log(2e11) / (2 * math.tanh(5e-8) ** 2 * 1e-4),
                                                                     rel=1e-12)
