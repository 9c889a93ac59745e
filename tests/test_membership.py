"""dpcourse.membership: LiRA scores, the DP bound on an attack, the canary audit (chapter 22)."""

import math

import numpy as np
import pytest
from scipy import stats

import dpcourse
from dpcourse import membership as mia
from dpcourse.exercises import membership as ex
from dpcourse.learning import logistic_regression


# ----------------------------------------------------------------------------------------------------------
# exact values


def test_inclusion_masks_balanced():
    m = mia.inclusion_masks(7, 10, rng=3)
    assert m.shape == (10, 7) and m.dtype == bool
    assert (m.sum(axis=0) == 5).all()
    assert not np.array_equal(m, mia.inclusion_masks(7, 10, rng=4))


def test_logit_confidence_is_the_margin():
    W = np.array([[1.0, -2.0], [0.5, 0.0]])
    X = np.array([[1.0, 1.0], [2.0, -1.0], [0.0, 3.0]])
    got = mia.logit_confidence(W, X, [1, 0, 1])
    assert got.tolist() == [[-1.0, -4.0, -6.0], [0.5, -1.0, 0.0]]
    p = 1.0 / (1.0 + np.exp(-(W @ X.T) * np.array([1, -1, 1])))
    np.testing.assert_allclose(got, np.log(p / (1 - p)), rtol=1e-12)


def _lira_direct(phi, masks, online):
    """LiRA by its definition: for each target j and record i, Gaussians fitted to the other models."""
    k, n = phi.shape
    out = np.empty_like(phi)
    for j in range(k):
        for i in range(n):
            others = np.arange(k) != j
            vin = phi[others & masks[:, i], i]
            vout = phi[others & ~masks[:, i], i]
            lo = stats.norm.logcdf(phi[j, i], vout.mean(), vout.std(ddof=1))
            li = stats.norm.logpdf(phi[j, i], vin.mean(), vin.std(ddof=1))
            out[j, i] = li - stats.norm.logpdf(phi[j, i], vout.mean(), vout.std(ddof=1)) if online else lo
    return out


@pytest.mark.parametrize("online", [True, False])
def test_lira_scores_equal_the_leave_one_out_definition(online):
    gen = np.random.default_rng(5)
    masks = mia.inclusion_masks(6, 10, rng=6)
    phi = gen.normal(size=(10, 6)) + 2.0 * masks
    np.testing.assert_allclose(mia.lira_scores(phi, masks, online=online), _lira_direct(phi, masks, online),
                               rtol=1e-9, atol=1e-9)


def test_lira_fixed_variance_pools_each_side():
    masks = mia.inclusion_masks(4, 8, rng=1)
    phi = np.random.default_rng(2).normal(size=(8, 4))
    a = mia.lira_scores(phi, masks, online=False, fixed_variance=True)
    b = mia.lira_scores(phi, masks, online=False)
    assert a.shape == b.shape and not np.allclose(a, b)
    # by the definition: target j's "out" variance is the mean over the records of the leave-j-out variances
    for j in range(8):
        others = np.arange(8) != j
        fits = [(phi[others & ~masks[:, i], i].mean(), phi[others & ~masks[:, i], i].var(ddof=1)) for i in range(4)]
        pooled = np.sqrt(np.mean([v for _, v in fits]))
        want = [stats.norm.logcdf(phi[j, i], mu, pooled) for i, (mu, _) in enumerate(fits)]
        np.testing.assert_allclose(a[j], want, rtol=1e-10)


def test_roc_points_and_tprs():
    fpr, tpr = mia.roc_points([3.0, 2.0], [1.0, 2.5])
    assert fpr.tolist() == [0.0, 0.0, 0.5, 0.5, 1.0] and tpr.tolist() == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert mia.attack_tprs([5.0, 6.0, 0.5], [0.0, 1.0, 2.0, 3.0], (0.25,)) == {0.25: 2 / 3}


def test_dp_tpr_bound_exact():
    assert mia.dp_tpr_bound(0.01, 1.0, 1e-5) == pytest.approx(math.e * 0.01 + 1e-5, rel=1e-14)
    assert mia.dp_tpr_bound(0.9, 1.0, 0.0) == pytest.approx(1 - math.exp(-1) * 0.1, rel=1e-14)
    assert mia.dp_tpr_bound(0.5, 20.0, 0.0) == pytest.approx(1 - math.exp(-20) * 0.5, rel=1e-14)
    assert mia.dp_tpr_bound(0.5, 20.0, 0.6) == 1.0
    np.testing.assert_allclose(mia.dp_tpr_bound(np.array([0.0, 1.0]), 2.0, 0.01), [0.01, 1.0])


def test_dp_tpr_bound_holds_for_the_exact_gaussian_tradeoff():
    """The Gaussian mechanism's most powerful test (Neyman-Pearson) has TPR Phi(Phi^-1(a) + mu) at FPR a; with
    its exact delta(epsilon) the bound must sit above it at every a, and touch it somewhere."""
    sigma = 2.0
    mu = 1.0 / sigma
    a = np.concatenate([np.logspace(-9, -1, 200), np.linspace(0.1, 1.0, 200)])
    tpr = stats.norm.cdf(stats.norm.ppf(a) + mu)
    for eps in (0.2, 1.0, 2.0):
        delta = dpcourse.gaussian_delta(eps, sigma)
        bound = mia.dp_tpr_bound(a, eps, delta)
        assert (bound >= tpr - 1e-12).all()
        assert (bound - tpr).min() < 1e-3


# ----------------------------------------------------------------------------------------------------------
# the attack finds members of an overfit model


def test_lira_finds_members_of_an_overfit_model():
    X_all, y_all = mia.fair_onehot_features()
    assert X_all.shape == (6366, 47)
    np.testing.assert_allclose(np.linalg.norm(X_all, axis=1), 1.0)
    pool = np.random.default_rng(2026).choice(X_all.shape[0], 100, replace=False)
    X, y = X_all[pool], y_all[pool]
    masks = mia.inclusion_masks(100, 32, rng=1)
    W = mia.train_models(lambda Xs, ys, g: logistic_regression(Xs, ys, regularization=1e-3), X, y, masks, rng=2)
    s = mia.lira_scores(mia.logit_confidence(W, X, y), masks)
    mem, non = s[masks], s[~masks]
    # With no signal the scores of members and non-members are exchangeable: the number of the 1600 members
    # above the threshold that 16 of 1600 non-members exceed is then at most ~ Bin(1600, 17/1601); P[>= 60]
    # is below 1e-6 (a Chernoff bound). A seeded run of the attack on the overfit model finds far more.
    assert stats.binom.sf(59, 1600, 17 / 1601) < 1e-6
    assert mia.attack_tprs(mem, non, (0.01,))[0.01] * mem.size >= 60


# ----------------------------------------------------------------------------------------------------------
# the canary audit: valid on correct DP-SGD, refutes a wrong claim

K, N_AUD = 5, 40


def _audit_data():
    X_all, y_all = mia.fair_onehot_features()
    rows = np.random.default_rng(7).choice(X_all.shape[0], N_AUD, replace=False)
    X = np.column_stack([X_all[rows], np.zeros(N_AUD)])
    canary = np.zeros(X.shape[1])
    canary[-1] = 1.0
    return X, y_all[rows], canary


def _dpsgd(eps):
    return lambda Xs, ys, g: dpcourse.dp_logistic_regression(
        Xs, ys, eps, 1e-5, sampling_rate=1.0, steps=K, expected_batch_size=N_AUD, clip_norm=0.1,
        regularization=1e-3, learning_rate=4.0, rng=g)


def test_audit_never_exceeds_the_accountant_on_correct_dpsgd():
    X, y, canary = _audit_data()
    eps = 1.0
    sigma = dpcourse.dpsgd_noise_multiplier(1.0, steps=K, epsilon=eps, delta=1e-5)
    accountant = dpcourse.dpsgd_epsilon(1.0, noise_multiplier=sigma, steps=K, delta=1e-5)
    # 200 bounding runs per side: the largest bound this audit can report (2.59) is above twice the
    # accountant's epsilon, so the test can fail (with 50 bounding runs the ceiling was 1.09).
    assert ex._max_audit_epsilon(200, 1 - 1e-6) > 2 * accountant
    res = mia.canary_audit(_dpsgd(eps), X, y, canary, 1, 400, delta=1e-5, confidence=1 - 1e-6, rng=3)
    assert accountant <= eps
    assert res.lower_bound <= accountant  # fails with probability <= 1e-6 (theorem mia-thm-audit)


@pytest.mark.parametrize("y, canary_y, coding", [([0, 1, 1], 1, {0.0, 1.0}), ([0, 1, 1], -1, {0.0, 1.0}),
                                                  ([-1, 1, 1], 0, {-1.0, 1.0}), ([-1, 1, 1], 1, {-1.0, 1.0})])
def test_canary_audit_passes_labels_in_the_callers_coding(y, canary_y, coding):
    """train sees the labels as train_models passes them: a 0/1 trainer must never get -1 (it maps it to -3)."""
    seen = set()

    def train(Xs, ys, g):
        seen.update(np.unique(ys).tolist())
        return g.normal(size=Xs.shape[1])

    mia.canary_audit(train, np.eye(3), y, [0.0, 0.0, 1.0], canary_y, 100, delta=1e-5, rng=0)
    assert seen == coding


def test_audit_refutes_a_miscalibrated_training():
    """Training run at epsilon 16 while epsilon 1 is claimed (a wrong noise multiplier) is caught."""
    X, y, canary = _audit_data()
    res = mia.canary_audit(_dpsgd(16.0), X, y, canary, 1, 100, delta=1e-5, confidence=0.95, rng=3)
    assert res.lower_bound > 1.0 and res.refutes(1.0)


# ----------------------------------------------------------------------------------------------------------
# checkers


def test_checkers():
    assert ex.check_max_audit_epsilon(ex._max_audit_epsilon(100, 0.95)).passed
    a = 0.05 ** (1 / 100)
    r = ex.check_max_audit_epsilon(math.log(a / (1 - a)))
    assert not r.passed and "half" in r.message
    r = ex.check_max_audit_epsilon(-math.log(1 - 0.025 ** (1 / 100)))
    assert not r.passed and "from below" in r.message
    assert not ex.check_max_audit_epsilon(ex._max_audit_epsilon(100, 0.95) * 1.002).passed
    assert not ex.check_max_audit_epsilon("3.3").passed

    def right(phi, mi, si, mo, so):
        return stats.norm.logpdf(phi, mi, si) - stats.norm.logpdf(phi, mo, so)

    def upside_down(phi, mi, si, mo, so):
        return -right(phi, mi, si, mo, so)

    assert ex.check_lira_online(right).passed
    r = ex.check_lira_online(upside_down)
    assert not r.passed and "upside down" in r.message


# ----------------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("call, err", [
    (lambda: mia.inclusion_masks(5, 3), ValueError),
    (lambda: mia.inclusion_masks(5, 1), ValueError),
    (lambda: mia.inclusion_masks(5, 2 * mia.MAX_MODELS), ValueError),
    (lambda: mia.inclusion_masks(0, 4), ValueError),
    (lambda: mia.inclusion_masks(True, 4), TypeError),
    (lambda: mia.lira_scores(np.zeros((4, 3)), np.ones((4, 3), dtype=bool)), ValueError),
    (lambda: mia.lira_scores(np.zeros((8, 3)), np.ones((8, 2), dtype=bool)), ValueError),
    (lambda: mia.lira_scores(np.full((8, 2), np.nan), mia.inclusion_masks(2, 8, rng=0)), ValueError),
    (lambda: mia.lira_scores(np.zeros((8, 2)), mia.inclusion_masks(2, 8, rng=0), online="yes"), TypeError),
    (lambda: mia.logit_confidence(np.zeros((2, 3)), np.zeros((4, 2)), [0, 1, 0, 1]), ValueError),
    (lambda: mia.logit_confidence(np.zeros((2, 2)), np.zeros((2, 2)), [0, 2]), ValueError),
    (lambda: mia.logit_confidence(np.zeros((2, 2)), np.zeros((2, 2)), [True, False]), TypeError),
    (lambda: mia.dp_tpr_bound(1.5, 1.0), ValueError),
    (lambda: mia.dp_tpr_bound(0.1, float("nan")), ValueError),
    (lambda: mia.dp_tpr_bound(0.1, 0.0), ValueError),
    (lambda: mia.dp_tpr_bound(0.1, 1.0, 1.0), ValueError),
    (lambda: mia.train_models(lambda X, y, g: np.zeros(5), np.zeros((3, 2)), [0, 1, 0],
                              np.ones((2, 3), dtype=bool)), ValueError),
    (lambda: mia.train_models(lambda X, y, g: np.zeros(2), np.zeros((3, 2)), [0, 1, 0],
                              np.ones((2, 2), dtype=bool)), ValueError),
    (lambda: mia.canary_audit(lambda X, y, g: np.zeros(2), np.zeros((3, 2)), [0, 1, 0], [1.0, 0.0], 1, 99,
                              delta=1e-5), ValueError),
    (lambda: mia.canary_audit(lambda X, y, g: np.zeros(2), np.zeros((3, 2)), [0, 1, 0], [1.0], 1, 100,
                              delta=1e-5), ValueError),
    (lambda: mia.canary_audit(lambda X, y, g: np.zeros(2), np.zeros((3, 2)), [0, 1, 0], [1.0, 0.0], 1, 100,
                              delta=1.0), ValueError),
    (lambda: mia.canary_audit("train", np.zeros((3, 2)), [0, 1, 0], [1.0, 0.0], 1, 100, delta=1e-5), TypeError),
])
def test_bad_input(call, err):
    with pytest.raises(err):
        call()


# ----------------------------------------------------------------------------------------------------------
# the mechanism's own curve (issue 35, item 7) and the audit's arguments reaching their use


def test_gdp_tpr_bound_is_the_neyman_pearson_power_between_two_gaussians():
    """1 - G_mu(a) is the power at level a of the most powerful test between N(0, 1) and N(mu, 1): reject when
    y > z_{1-a}, power P[N(mu, 1) > z_{1-a}] (closed form with scipy's isf/sf, not the code's ndtri)."""
    a = np.sort(np.concatenate([[0.0, 1e-300, 1e-12], np.logspace(-6, -0.01, 40), [0.5, 1.0]]))
    for mu in (1e-9, 0.268, 1.0, 2.905, 8.0):
        want = stats.norm.sf(stats.norm.isf(a) - mu)
        got = mia.gdp_tpr_bound(a, mu)
        np.testing.assert_allclose(got, np.maximum(want, a), rtol=1e-9, atol=0)
        assert (got >= a).all() and (np.diff(got) >= 0).all()
    assert mia.gdp_tpr_bound(0.01, 1.0) == pytest.approx(stats.norm.sf(stats.norm.isf(0.01) - 1.0), rel=1e-12)
    assert mia.gdp_tpr_bound(1e-300, 3.0) > 1e-300          # no cancellation to 0 at a tiny FPR


def test_full_batch_dpsgd_is_sqrt_k_over_sigma_gdp_and_the_curve_is_below_the_eps_delta_bound():
    """The chapter's numbers: with the accountant's sigma for 50 full-batch steps at (eps, 1e-5), mu = sqrt(50)/sigma
    is 0.268, 0.925, 2.905 (the accountant's epsilon is exactly mu's profile at 1e-5), and its TPR cap at FPR 1e-2
    is 0.0198, 0.0805, 0.719 against the (eps, delta) bound's 0.0272, 0.5460, 1.0. The curve is below every
    (eps, delta(eps)) line of its own profile and touches one of them."""
    for eps, mu_want, cap, cap_ed in ((1.0, 0.268, 0.0198, 0.0272), (4.0, 0.925, 0.0805, 0.5460),
                                      (16.0, 2.905, 0.719, 1.0)):
        sigma = dpcourse.dpsgd_noise_multiplier(1.0, steps=50, epsilon=eps, delta=1e-5)
        mu = dpcourse.gdp_mu(dpcourse.ComposedEvent(dpcourse.GaussianEvent(sigma), 50))
        assert mu == pytest.approx(math.sqrt(50) / sigma, rel=1e-12) and round(mu, 3) == mu_want
        assert dpcourse.dpsgd_epsilon(1.0, noise_multiplier=sigma, steps=50, delta=1e-5) == pytest.approx(dpcourse.gaussian_epsilon(1e-5, mu),
                                                                              rel=1e-9)
        assert round(mia.gdp_tpr_bound(0.01, mu), 4 if cap < 0.1 else 3) == cap
        assert round(mia.dp_tpr_bound(0.01, eps, 1e-5), 4) == cap_ed
        a = np.logspace(-6, 0, 200)
        for e in (0.5 * eps, eps, 2.0 * eps):
            line = mia.dp_tpr_bound(a, e, dpcourse.gaussian_delta(e, mu))
            assert (mia.gdp_tpr_bound(a, mu) <= line + 1e-12).all()
        assert (mia.dp_tpr_bound(a, eps, dpcourse.gaussian_delta(eps, mu)) - mia.gdp_tpr_bound(a, mu)).min() < 1e-3


def _det_train(Xs, ys, gen):
    """Deterministic 'training': the column sums. With the canary (the only row with a 1 in the last column)
    the canary's confidence is exactly 1, without it 0: a perfectly separable audit."""
    return Xs.sum(axis=0)


@pytest.mark.parametrize("confidence, delta", [(0.95, 0.0), (0.99, 0.0), (0.95, 0.1), (1 - 1e-6, 1e-3)])
def test_canary_audit_bound_is_the_clopper_pearson_closed_form(confidence, delta):
    """On a perfectly separable canary every bounding run lands in the event on one side and none on the other,
    so the bound is ln((a^(1/r) - delta) / (1 - a^(1/r))) with a = (1 - confidence)/2 and r = runs/2 bounding runs
    (Clopper-Pearson at k = r and k = 0, closed forms). Fails if confidence or delta does not reach the audit."""
    X, y, canary = _audit_data()
    runs = 120
    res = mia.canary_audit(_det_train, X, y, canary, 1, runs, delta=delta, confidence=confidence, rng=0)
    r, a = runs - runs // 2, (1 - confidence) / 2
    assert (res.count_p, res.count_q, res.n_bound) == (r, 0, r)
    assert res.p_lower == pytest.approx(stats.beta.ppf(a, r, 1), rel=1e-9) == pytest.approx(a ** (1 / r), rel=1e-9)
    assert res.q_upper == pytest.approx(1 - a ** (1 / r), rel=1e-9)
    assert res.lower_bound == pytest.approx(math.log((a ** (1 / r) - delta) / (1 - a ** (1 / r))), rel=1e-9)


def test_the_gdp_curve_survives_an_audit_of_correct_dpsgd_and_fails_on_the_miscalibrated_one():
    """The audit's Clopper-Pearson pair (p_lower, q_upper) must satisfy p_lower <= 1 - G_mu(q_upper) with probability
    >= confidence when training is mu-GDP (G_mu symmetric, non-increasing): it does on correct full-batch DP-SGD at
    mu = sqrt(K)/sigma, and the run trained at epsilon 16 breaks the curve of the claimed epsilon 1."""
    X, y, canary = _audit_data()
    sigma = dpcourse.dpsgd_noise_multiplier(1.0, steps=K, epsilon=1.0, delta=1e-5)
    mu = math.sqrt(K) / sigma
    ok = mia.canary_audit(_dpsgd(1.0), X, y, canary, 1, 200, delta=1e-5, confidence=1 - 1e-6, rng=3)
    assert ok.p_lower <= mia.gdp_tpr_bound(ok.q_upper, mu)
    bad = mia.canary_audit(_dpsgd(16.0), X, y, canary, 1, 100, delta=1e-5, confidence=0.95, rng=3)
    assert bad.p_lower > mia.gdp_tpr_bound(bad.q_upper, mu)


# --- Trust II: TPR caps computed without cancellation and never below the true value --------------------------

def _mp_dp_cap(a, eps, delta):
    import mpmath
    with mpmath.workdps(60):
        a, eps, delta = mpmath.mpf(a), mpmath.mpf(eps), mpmath.mpf(delta)
        return min(mpmath.mpf(1), mpmath.e**eps * a + delta, 1 - mpmath.e**(-eps) * (1 - delta - a))


def _mp_gdp_cap(a, mu):
    import mpmath
    with mpmath.workdps(60):
        a = mpmath.mpf(a)
        x = -mpmath.sqrt(2 * mpmath.log(1 / a)) if a < 0.5 else mpmath.mpf(0)
        for _ in range(200):                    # Newton on log Phi(x) = log a: Phi^{-1}(a) to 50 digits
            step = (mpmath.log(mpmath.ncdf(x)) - mpmath.log(a)) * mpmath.ncdf(x) / mpmath.npdf(x)
            x -= step
            if abs(step) < mpmath.mpf(10) ** -50:
                break
        return mpmath.ncdf(x + mpmath.mpf(mu))


def test_dp_tpr_bound_no_cancellation_and_never_below_truth():
    from dpcourse.membership import dp_tpr_bound
    named = [(1e-20, 1.0, 0.0), (0.0, 1.0, 1e-17), (0.0, 800.0, 1e-5), (0.01, 1.0, 1e-5), (1e-300, 0.5, 0.0)]
    rng = np.random.default_rng(35)
    pts = named + [(float(10 ** rng.uniform(-30, 0)), float(10 ** rng.uniform(-6, 2.5)),
                    float(rng.choice([0.0, 10 ** rng.uniform(-20, -1)]))) for _ in range(400)]
    for a, eps, delta in pts:
        got, true = dp_tpr_bound(a, eps, delta), _mp_dp_cap(a, eps, delta)
        assert got >= true, (a, eps, delta, got, float(true))
        assert got <= true * (1 + 1e-12) + 1e-300, (a, eps, delta, got, float(true))
        assert got >= min(1.0, a + delta)


def test_gdp_tpr_bound_never_below_truth():
    from dpcourse.membership import gdp_tpr_bound
    rng = np.random.default_rng(36)
    for _ in range(600):
        a, mu = float(10 ** rng.uniform(-200, -0.001)), float(10 ** rng.uniform(-3, 1.3))
        got, true = gdp_tpr_bound(a, mu), _mp_gdp_cap(a, mu)
        assert got >= true, (a, mu, got, float(true))
        assert got <= true * (1 + 1e-9) or got == 1.0, (a, mu, got, float(true))


# --- fresh hostile read (issue 35 closure): subnormal caps, arguments named, the shadow design's boundaries ---------

@pytest.mark.parametrize("a", [5e-324, 1e-323, 2.5e-323, 1e-320, 3.3e-315, 1e-310, 2.2e-308])
def test_tpr_caps_never_below_truth_at_a_subnormal_fpr(a):
    """Below the normal range a relative margin rounds away, and scipy's ndtr flushes to 0 below x = -37.9: the old
    gdp_tpr_bound(5e-324, 0.3) was 5e-324 (the cap is 4.9e-319) and dp_tpr_bound(5e-324, 0.4) was 5e-324 (7.4e-324).
    Checked against 60-digit arithmetic; exact zeros stay 0 (TPR 0 at FPR 0 for pure DP and for GDP)."""
    for eps in (1e-3, 0.1, 0.4, 0.7, 3.0):
        assert mia.dp_tpr_bound(a, eps, 0.0) >= _mp_dp_cap(a, eps, 0.0), (a, eps)
    for mu in (1e-9, 1e-6, 1e-3, 0.05, 0.3, 1.0):
        got = mia.gdp_tpr_bound(a, mu)
        assert got >= _mp_gdp_cap(a, mu), (a, mu)
        assert got <= _mp_gdp_cap(a, mu) * (1 + 1e-9) + 1e-318, (a, mu)   # pessimistic by at most 1e-318
    assert mia.dp_tpr_bound(0.0, 1.0, 0.0) == 0.0 and mia.gdp_tpr_bound(0.0, 1.0) == 0.0


@pytest.mark.parametrize("canary_y, err", [(True, TypeError), (2, ValueError), (float("nan"), ValueError)])
def test_canary_audit_names_canary_y_when_it_is_the_bad_argument(canary_y, err):
    with pytest.raises(err, match="canary_y"):
        mia.canary_audit(lambda X, y, g: np.zeros(2), np.zeros((3, 2)), [0, 1, 0], [1.0, 0.0], canary_y, 100,
                         delta=1e-5)


def test_train_models_refuses_labels_of_another_length_by_name():
    with pytest.raises(ValueError, match="y must have one label per row"):
        mia.train_models(lambda X, y, g: np.zeros(2), np.zeros((3, 2)), [0, 1], np.ones((2, 3), dtype=bool))


def test_lira_needs_three_models_on_each_side_of_every_record():
    """With two "in" (or "out") models the leave-one-out fit of the target's own side has one sample, whose variance
    is 0/0: refused, not NaN scores. Three on each side are answered, with finite scores."""
    phi = np.random.default_rng(0).normal(size=(8, 2))
    for n_in in (2, 6):                            # record 1 in 2 models (6 out), then in 6 (2 out)
        masks = np.zeros((8, 2), dtype=bool)
        masks[:4, 0] = True
        masks[:n_in, 1] = True
        with pytest.raises(ValueError, match="at least 3"):
            mia.lira_scores(phi, masks)
    masks[:, 1] = np.arange(8) < 3
    for online in (True, False):
        assert np.isfinite(mia.lira_scores(phi, masks, online=online)).all()


def test_train_models_gives_every_model_its_own_generator():
    """An int seed must not be handed to every model (identical noise in all shadow models or audit runs): the
    models' draws differ pairwise, and the call is reproducible."""
    masks = np.ones((6, 3), dtype=bool)

    def noise(Xs, ys, g):
        return g.normal(size=2)

    W = mia.train_models(noise, np.zeros((3, 2)), [0, 1, 0], masks, rng=5)
    assert len({tuple(w) for w in W}) == 6
    np.testing.assert_array_equal(W, mia.train_models(noise, np.zeros((3, 2)), [0, 1, 0], masks, rng=5))


# ----------------------------------------------------------------------------------------------------------
# the chapter's first figure (issue 37): one record's confidences in and out, a typical and the most exposed


def test_lira_idea_summary_fits_each_record_by_hand():
    from dpcourse.plots.membership import lira_idea_summary

    phi = np.array([[2.0, 0.1, 5.0], [2.2, 0.0, 5.2], [0.0, 0.2, 4.8], [0.2, 0.1, 5.1], [0.1, 0.3, 5.0]])
    masks = np.array([[True, True, False], [True, False, True], [False, True, True], [False, False, False],
                      [False, True, False]])
    s = lira_idea_summary(phi, masks)
    # record 0: in (2.0, 2.2), out (0.0, 0.2, 0.1); record 1: in (0.1, 0.2, 0.3), out (0.0, 0.1);
    # record 2: in (5.2, 4.8), out (5.0, 5.1, 5.0)
    e = s["exposed"]
    assert e["record"] == 0
    assert e["mean_in"] == pytest.approx(2.1) and e["mean_out"] == pytest.approx(0.1)
    assert e["sd_in"] == pytest.approx(math.sqrt(0.02)) and e["sd_out"] == pytest.approx(0.1)
    assert e["separation"] == pytest.approx(2.0 / math.sqrt((0.02 + 0.01) / 2))
    sep1 = (0.2 - 0.05) / math.sqrt((0.01 + 0.005) / 2)
    sep2 = (5.0 - 5.1 / 3 - 10.0 / 3) / math.sqrt((0.08 + np.var([5.0, 5.1, 5.0], ddof=1)) / 2)
    assert sep2 < sep1 < e["separation"]
    assert s["typical"]["record"] == 1 and s["typical"]["separation"] == pytest.approx(sep1)
    with pytest.raises(ValueError, match="masks"):
        lira_idea_summary(phi, masks[:, :2])
    with pytest.raises(ValueError, match="at least 2"):
        lira_idea_summary(phi, np.ones_like(masks))


def test_lira_idea_figure_draws_the_two_records_it_names():
    import io

    import matplotlib.pyplot as plt
    from IPython.core.pylabtools import print_figure
    from PIL import Image

    from dpcourse.plots.membership import lira_idea_summary, plot_lira_idea
    try:  # the book's figure style, which stamps the legend check (the checkout's conftest.py installs it too)
        from booktools.static_figures import install_static_style
    except ModuleNotFoundError:  # a copy of dpcourse/ and tests/ alone: the figure is checked, its legends are not
        install_static_style = None

    rng = np.random.default_rng(7)
    masks = mia.inclusion_masks(9, 16, rng=3)
    phi = rng.normal(size=masks.shape) + 3.0 * masks * (np.arange(9) == 4)   # record 4 moves by 3 when in
    s = lira_idea_summary(phi, masks)
    assert s["exposed"]["record"] == 4
    fig = plot_lira_idea(phi, masks)
    for ax, fit in zip(fig.axes, (s["typical"], s["exposed"])):
        i = fit["record"]
        outside, inside = ax.containers            # out first, then in
        for bars, values in ((outside, phi[~masks[:, i], i]), (inside, phi[masks[:, i], i])):
            heights = np.array([b.get_height() for b in bars])
            widths = np.array([b.get_width() for b in bars])
            assert np.sum(heights * widths) == pytest.approx(1.0)   # a density of exactly these values
            edges = [b.get_x() for b in bars] + [bars[-1].get_x() + widths[-1]]
            counts, _ = np.histogram(values, bins=edges)
            np.testing.assert_allclose(heights, counts / (values.size * widths))
        assert f"in {fit['mean_in']:.1f} ± {fit['sd_in']:.1f}, out {fit['mean_out']:.1f}" in ax.get_title()
    if install_static_style is not None:
        install_static_style()
        image = Image.open(io.BytesIO(print_figure(fig, "png", bbox_inches="tight")))
        assert image.text["dpcourse:legends-over-data"] == "0"
    plt.close(fig)


# --- round 3 hostile read (issue 35 closure) -------------------------------------------------------------------------

@pytest.mark.parametrize("fixed_variance", [False, True])
@pytest.mark.parametrize("online", [True, False])
def test_lira_scores_are_unchanged_by_a_shift_and_one_scale_of_the_confidences(online, fixed_variance):
    """Both scores depend on a record's confidences only through (phi - mu) / s: shifting a record's column, or scaling
    every confidence by one factor, leaves them unchanged. The running sums of raw squares cancelled (a record whose
    confidences are 1e4 apart from their spread 1e-3 got scores off by 8) and overflowed (entries near 1e200 gave NaN
    scores; entries near 1e307 overflow the column means too). Reference: the scores of z itself, where nothing
    cancels (to 1e-6: storing 3e4 + 1e-3 z rounds z by about 4e-9 already)."""
    masks = mia.inclusion_masks(4, 16, rng=0)
    z = np.random.default_rng(1).normal(size=masks.shape) + 1.5 * masks
    ref = mia.lira_scores(z, masks, online=online, fixed_variance=fixed_variance)
    shifts = np.array([1e4, -3e4, 2e4, 5e3])
    for phi in (shifts + 1e-3 * z, 1e200 * z, 1e307 * z, 2e300 + 1e300 * z, 1e-7 * z, 1e-200 * z,
                shifts * 1e-9 + 1e-12 * z):
        got = mia.lira_scores(phi, masks, online=online, fixed_variance=fixed_variance)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)


def test_lira_idea_summary_typical_is_the_lower_median_of_an_even_number_of_records():
    """Four records with separations ordered 3 < 0 < 2 < 1: the lower median is record 0 (the upper one is 2)."""
    from dpcourse.plots.membership import lira_idea_summary

    masks = np.array([[True] * 4, [True] * 4, [False] * 4, [False] * 4])
    phi = np.array([[1.0, 4.0, 2.0, 0.5], [1.2, 4.2, 2.2, 0.7], [0.0, 0.0, 0.0, 0.0], [0.2, 0.2, 0.2, 0.2]])
    s = lira_idea_summary(phi, masks)
    # every record has both standard deviations sqrt(0.02); separations (1.1, 4.1, 2.1, 0.6) / sqrt(0.02)
    assert s["exposed"]["record"] == 1 and s["typical"]["record"] == 0
    assert s["typical"]["separation"] == pytest.approx(1.0 / math.sqrt(0.02))


def test_the_canary_weight_of_the_final_model_is_as_distinguishable_as_every_noisy_step():
    """The chapter's audit reads only the final model, and that loses nothing: the canary's column is 0 for every
    other record, so its weight moves only by the canary's clipped gradient (C at each step while its confidence stays
    below 2.2) and that coordinate's noise. With the weight decay a = 1 - lr lambda, the final weight is N(0, s^2)
    without the canary and N(m, s^2) with it, m = (lr C / b) sum_j a^j and s = (lr sigma C / b) sqrt(sum_j a^2j): KS at
    1e-6 on each side, and m / s is sqrt(K) / sigma, the mu of all K noisy steps, to 0.1%."""
    X, y, canary = _audit_data()
    lr, lam, C, eps = 4.0, 1e-3, 0.1, 1.0
    sigma = dpcourse.dpsgd_noise_multiplier(1.0, steps=K, epsilon=eps, delta=1e-5)
    a = (1 - lr * lam) ** np.arange(K)
    m, s = lr * C / N_AUD * a.sum(), lr * sigma * C / N_AUD * math.sqrt((a * a).sum())
    assert m / s == pytest.approx(math.sqrt(K) / sigma, rel=1e-3)
    runs = 1500
    w0 = mia.train_models(_dpsgd(eps), X, y, np.ones((runs, N_AUD), dtype=bool), rng=11)[:, -1]
    X1, y1 = np.vstack([X, canary]), np.append(y, 1)
    w1 = mia.train_models(_dpsgd(eps), X1, y1, np.ones((runs, N_AUD + 1), dtype=bool), rng=12)[:, -1]
    assert stats.kstest(w0 / s, "norm").pvalue > 1e-6
    assert stats.kstest((w1 - m) / s, "norm").pvalue > 1e-6


def test_named_results():
    """Issue 38: roc_points returns a RocCurve and fair_onehot_features a OneHotFeatures (NamedTuples: unpacking
    and indexing keep working)."""
    roc = mia.roc_points([3.0, 2.0], [1.0, 2.5])
    assert isinstance(roc, mia.RocCurve) and roc.fpr is roc[0] and roc.tpr is roc[1]
    data = mia.fair_onehot_features()
    assert isinstance(data, mia.OneHotFeatures) and data.X.shape == (6366, 47) and data.y is data[1]


# --- round 4 hostile read (issue 35 closure) -------------------------------------------------------------------------

def test_lira_scores_see_small_confidences():
    """An absolute variance floor (1e-12) made every record's two Gaussians the same width once the confidences were
    small: all of them times 1e-7 moved the scores by 9, times 1e-200 every score was equal and no member was found."""
    masks = mia.inclusion_masks(6, 32, rng=2)
    z = np.random.default_rng(3).normal(size=masks.shape) + 3.0 * masks
    ref = mia.lira_scores(z, masks)
    assert mia.attack_tprs(ref[masks], ref[~masks], (0.05,))[0.05] > 0.5
    for scale in (1e-7, 1e-200):
        got = mia.lira_scores(scale * z, masks)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-6)


@pytest.mark.parametrize("fprs, err", [(0.01, TypeError), ("0.01", TypeError), (None, TypeError),
                                       ([[0.01]], TypeError), ([True], TypeError), ([1.5], ValueError),
                                       ([float("nan")], ValueError)])
def test_attack_tprs_names_fprs(fprs, err):
    """A single rate (not a sequence) raised a bare "'float' object is not iterable"."""
    with pytest.raises(err, match="fprs"):
        mia.attack_tprs([1.0, 2.0], [0.0, 0.5], fprs)


def test_max_audit_checker_takes_what_a_perfectly_separating_audit_reports():
    """The checker's truth against the audit itself (not against its own formula): a mechanism that separates the two
    sides with certainty, audited with 100 bounding runs per side at 95% and delta 0, reports the largest bound."""
    def separated(x, rng, size=None):
        return np.full(size, float(x))

    res = dpcourse.audit_epsilon(separated, 0.0, 1.0, 200, rng=0, confidence=0.95)
    assert (res.count_p, res.count_q, res.n_bound) == (100, 0, 100)
    assert res.lower_bound == pytest.approx(3.2813, abs=1e-4)
    assert ex.check_max_audit_epsilon(res.lower_bound).passed
