"""Private selection: exact distributions, samplers against them, privacy on neighbours, bad input."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpcourse import (
    exponential_accuracy_gap,
    exponential_mechanism,
    exponential_probabilities,
    noisy_max_probabilities,
    permute_and_flip,
    permute_and_flip_probabilities,
    privacy_loss,
    report_noisy_max,
)
from dpcourse.exercises.selection import check_em_probabilities, check_pumpkin_epsilon

ALPHA = 1e-6
FRUIT = np.array([1.0, 4.0, 3.0])


# ---------------------------------------------------------------- exact probabilities by hand


def test_exponential_probabilities_by_hand():
    # pumpkins: revenues 3 ($1) and 2 ($2), sensitivity 2, epsilon 0.2: weights e^0.15, e^0.1
    p = exponential_probabilities([3.0, 2.0], 2.0, 0.2)
    assert p[0] == pytest.approx(1 / (1 + math.exp(-0.05)), rel=1e-14)
    # 100 bidders: revenues 100 and 20
    assert exponential_probabilities([100.0, 20.0], 2.0, 0.2)[1] == pytest.approx(1 / (1 + math.exp(4.0)), rel=1e-13)
    # monotone: weights exp(eps u / sensitivity)
    assert exponential_probabilities([1.0, 0.0], 1.0, 1.0, monotone=True)[0] == pytest.approx(1 / (1 + math.exp(-1)))
    assert exponential_probabilities([7.0], 1.0, 1.0).tolist() == [1.0]


def test_exponential_probabilities_any_magnitude():
    p = exponential_probabilities([1e6, -1e6, 1e6 - 2.0], 1.0, 1.0)
    assert np.isfinite(p).all()
    assert p.tolist() == pytest.approx([1 / (1 + math.exp(-1)), 0.0, math.exp(-1) / (1 + math.exp(-1))], rel=1e-14)
    # shifting every utility changes nothing
    u = np.array([0.3, -1.2, 2.0, 0.0])
    assert exponential_probabilities(u + 1e9, 0.5, 2.0) == pytest.approx(exponential_probabilities(u, 0.5, 2.0), rel=1e-6)
    # spreads that overflow and infinite coefficients are handled
    assert exponential_probabilities([1e308, -1e308], 1.0, 1.0).tolist() == [1.0, 0.0]
    assert exponential_probabilities([1.0, 1.0, 0.0], 1e-300, 1e300).tolist() == [0.5, 0.5, 0.0]


@pytest.mark.parametrize("dist", [stats.laplace, stats.expon, stats.gumbel_r])
def test_shifted_tail_lemma(dist):
    # lemma lem-sel-laplace-tail: P[N > n] <= e^{k/b} P[N > n + k] for k >= 0, for all three noises
    b = 0.7
    n = np.linspace(-20, 20, 401)[:, None]
    k = np.array([0.0, 0.1, 1.0, 3.0])[None, :]
    log_lhs = dist.logsf(n, scale=b)
    log_rhs = k / b + dist.logsf(n + k, scale=b)
    assert np.all(log_lhs <= log_rhs + 1e-12)
    if dist is stats.laplace:  # tight on the right tail: equality for n >= 0
        assert np.allclose(log_lhs[n[:, 0] >= 0], log_rhs[n[:, 0] >= 0], rtol=0, atol=1e-12)


def test_noisy_max_two_candidates_closed_form():
    # N1 - N2 for i.i.d. Lap(b) has P[> t] = e^{-t/b} (2 + t/b) / 4 for t >= 0
    for gap, eps, mono in [(3.0, 1.0, False), (0.5, 2.0, True), (10.0, 0.3, False)]:
        b = (1 if mono else 2) / eps
        p = noisy_max_probabilities([gap, 0.0], 1.0, eps, monotone=mono, secure=False)
        assert p[1] == pytest.approx(math.exp(-gap / b) * (2 + gap / b) / 4, rel=1e-10)


def test_gumbel_integral_is_the_exponential_mechanism():
    # the Gumbel-max fact, checked by integrating the noisy-max probabilities numerically
    for u in ([1.0, 4.0, 3.0], [0.0, -5.0, 2.0, 2.0, 1.5]):
        for mono in (False, True):
            got = noisy_max_probabilities(u, 1.0, 0.7, noise="gumbel", monotone=mono)
            assert got == pytest.approx(exponential_probabilities(u, 1.0, 0.7, monotone=mono), rel=1e-9)


def _pf_brute_force(u, sensitivity, epsilon):
    u = np.asarray(u, float)
    p = np.exp(epsilon * (u - u.max()) / (2 * sensitivity))
    out = np.zeros(u.size)
    perms = list(itertools.permutations(range(u.size)))
    for perm in perms:
        alive = 1.0
        for r in perm:
            out[r] += alive * p[r] / len(perms)
            alive *= 1 - p[r]
    return out


@pytest.mark.parametrize("u", [[0.0, -2.0], [1.0, 4.0, 3.0], [0.0, 0.0, -1.0, 3.0], [2.0, -1.0, 0.5, 0.5, 1.0]])
def test_permute_and_flip_probabilities_enumeration(u):
    assert permute_and_flip_probabilities(u, 1.0, 1.0) == pytest.approx(_pf_brute_force(u, 1.0, 1.0), rel=1e-12)
    # permute-and-flip is report noisy max with exponential noise (Ding et al. 2021), checked by integration
    assert noisy_max_probabilities(u, 1.0, 1.0, noise="exponential") == pytest.approx(
        permute_and_flip_probabilities(u, 1.0, 1.0), rel=1e-9)


def test_permute_and_flip_two_candidates_and_dominance():
    # the worse of two candidates wins with probability p / 2 (exponential mechanism: p / (1 + p))
    p = math.exp(-1.0)
    assert permute_and_flip_probabilities([0.0, -2.0], 1.0, 1.0)[1] == pytest.approx(p / 2, rel=1e-14)
    rng = np.random.default_rng(5)
    for _ in range(200):
        u = rng.normal(0, 3, size=rng.integers(2, 9))
        eps = rng.uniform(0.05, 3)
        pf = permute_and_flip_probabilities(u, 1.0, eps)
        assert pf.sum() == pytest.approx(1.0, abs=1e-12)
        assert pf @ u >= exponential_probabilities(u, 1.0, eps) @ u - 1e-12


def test_permute_and_flip_probabilities_many_candidates():
    u = np.linspace(0, -30, 200)
    p = permute_and_flip_probabilities(u, 1.0, 1.0)
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(p) <= 0)  # lower utility, lower probability


def test_accuracy_gap():
    assert exponential_accuracy_gap(4, 1.0, 2.0, 0.0) == pytest.approx(math.log(4))
    assert exponential_accuracy_gap(10, 2.0, 0.5, 1.0) == pytest.approx(8 * (math.log(10) + 1))
    assert exponential_accuracy_gap(10, 2.0, 0.5, 1.0, monotone=True) == pytest.approx(4 * (math.log(10) + 1))
    assert exponential_accuracy_gap(3, 1, 1, [0.0, 2.0]).tolist() == pytest.approx([2 * math.log(3), 2 * math.log(3) + 4])


def test_accuracy_theorem_holds_exactly():
    # P[u(out) <= OPT - gap(t)] <= e^{-t}, from the exact probabilities, on random utilities
    rng = np.random.default_rng(11)
    for _ in range(100):
        u = rng.normal(0, 20, size=rng.integers(2, 40))
        eps, t = rng.uniform(0.1, 2), rng.uniform(0, 5)
        p = exponential_probabilities(u, 1.0, eps)
        tail = p[u <= u.max() - exponential_accuracy_gap(u.size, 1.0, eps, t)].sum()
        assert tail <= math.exp(-t) + 1e-15


# ---------------------------------------------------------------- samplers against exact distributions


def _chisq_pvalue(samples, probs):
    counts = np.bincount(samples, minlength=probs.size)
    keep = probs > 0
    assert counts[~keep].sum() == 0
    return stats.chisquare(counts[keep], probs[keep] * samples.size).pvalue


U = np.array([1.0, 4.0, 3.0, 0.0, 3.5])
N = 200_000


def test_exponential_mechanism_sampler():
    s = exponential_mechanism(U, 1.0, 1.0, rng=1, size=N)
    assert s.dtype == np.int64 and s.shape == (N,)
    assert _chisq_pvalue(s, exponential_probabilities(U, 1.0, 1.0)) > ALPHA
    # a sampler with epsilon 10% too large is caught
    assert _chisq_pvalue(s, exponential_probabilities(U, 1.0, 1.1)) < ALPHA


@pytest.mark.parametrize("noise, exact", [
    ("laplace", lambda u, eps: noisy_max_probabilities(u, 1.0, eps)),
    ("gumbel", lambda u, eps: exponential_probabilities(u, 1.0, eps)),
    ("exponential", lambda u, eps: permute_and_flip_probabilities(u, 1.0, eps)),
])
def test_report_noisy_max_sampler(noise, exact):
    s = report_noisy_max(U, 1.0, 1.0, noise=noise, rng=2, size=N)
    assert _chisq_pvalue(s, exact(U, 1.0)) > ALPHA
    assert _chisq_pvalue(s, exact(U, 1.1)) < ALPHA


def test_report_noisy_max_monotone_uses_half_the_noise():
    s = report_noisy_max(U, 1.0, 1.0, monotone=True, rng=3, size=N)
    assert _chisq_pvalue(s, noisy_max_probabilities(U, 1.0, 2.0)) > ALPHA
    assert _chisq_pvalue(s, noisy_max_probabilities(U, 1.0, 1.0)) < ALPHA


def test_permute_and_flip_sampler():
    s = permute_and_flip(U, 1.0, 1.0, rng=4, size=N)
    assert _chisq_pvalue(s, permute_and_flip_probabilities(U, 1.0, 1.0)) > ALPHA
    assert _chisq_pvalue(s, permute_and_flip_probabilities(U, 1.0, 1.1)) < ALPHA
    # the literal algorithm with coins exp(eps (u - u*) / sensitivity) under monotone=True
    s = permute_and_flip(U, 1.0, 1.0, monotone=True, rng=5, size=N)
    assert _chisq_pvalue(s, permute_and_flip_probabilities(U, 1.0, 2.0)) > ALPHA


def test_scalar_calls_and_ties():
    for f in (exponential_mechanism, report_noisy_max, permute_and_flip):
        out = f(FRUIT, 1.0, 1.0, rng=0)
        assert isinstance(out, int) and 0 <= out < 3
        assert f([5.0], 1.0, 1.0, rng=0) == 0
        # seeded calls repeat
        assert np.array_equal(f(FRUIT, 1.0, 1.0, rng=7, size=50), f(FRUIT, 1.0, 1.0, rng=7, size=50))
    # a far-ahead candidate always wins; huge utilities work
    assert set(report_noisy_max([0.0, 1e6, -1e6], 1.0, 1.0, rng=0, size=1000).tolist()) == {1}
    assert set(permute_and_flip([0.0, 1e6, -1e6], 1.0, 1.0, rng=0, size=1000).tolist()) == {1}
    assert set(exponential_mechanism([0.0, 1e6, -1e6], 1.0, 1.0, rng=0, size=1000).tolist()) == {1}
    # two tied best candidates win equally often
    s = report_noisy_max([2.0, 2.0, -50.0], 1.0, 1.0, rng=1, size=N)
    assert stats.binomtest(int((s == 0).sum()), N, 0.5).pvalue > ALPHA and (s == 2).sum() == 0


# ---------------------------------------------------------------- privacy on neighbours


# General neighbours: the candidate's score drops by 1, all others rise by 1 (m = 10).
GEN_X, GEN_X2 = np.zeros(10), np.r_[-1.0, np.ones(9)]
# Monotone neighbours (one added person belongs to every count but the first).
MONO_X, MONO_X2 = np.zeros(10), np.r_[0.0, np.ones(9)]


def test_rnm_exact_privacy_loss():
    eps = 1.0
    general = privacy_loss(noisy_max_probabilities(GEN_X, 1.0, eps), noisy_max_probabilities(GEN_X2, 1.0, eps))
    assert 0.99 * eps < general <= eps + 1e-9
    mono = privacy_loss(noisy_max_probabilities(MONO_X, 1.0, eps, monotone=True),
                        noisy_max_probabilities(MONO_X2, 1.0, eps, monotone=True))
    assert 0.99 * eps < mono <= eps + 1e-9
    # the monotone noise on non-monotone neighbours: almost 2 epsilon
    misuse = privacy_loss(noisy_max_probabilities(GEN_X, 1.0, eps, monotone=True),
                          noisy_max_probabilities(GEN_X2, 1.0, eps, monotone=True))
    assert 1.99 * eps < misuse <= 2 * eps + 1e-9
    # fruit: a child who likes orange and banana joins (add/remove, monotone)
    fruit = privacy_loss(noisy_max_probabilities(FRUIT, 1.0, eps, monotone=True),
                         noisy_max_probabilities(FRUIT + [0, 1, 1], 1.0, eps, monotone=True))
    assert fruit <= eps + 1e-9


def _measured_loss(sampler, x, x2, n, seed):
    a = np.bincount(sampler(x, rng=seed, size=n), minlength=x.size) / n
    b = np.bincount(sampler(x2, rng=seed + 1, size=n), minlength=x.size) / n
    both = (a > 0) & (b > 0)
    loss = np.abs(np.log(a[both] / b[both]))
    se = np.sqrt((1 - a[both]) / (n * a[both]) + (1 - b[both]) / (n * b[both]))  # delta method
    i = int(np.argmax(loss))
    return float(loss[i]), float(se[i])


@pytest.mark.parametrize("x, x2, monotone", [(GEN_X, GEN_X2, False), (MONO_X, MONO_X2, True)])
@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_rnm_measured_privacy(x, x2, monotone, noise):
    eps = 1.0

    def sampler(s, rng, size):
        return report_noisy_max(s, 1.0, eps, monotone=monotone, noise=noise, rng=rng, size=size)

    loss, se = _measured_loss(sampler, x, x2, 400_000, seed=10)
    assert loss <= eps + 5 * se  # no more than the claim, beyond sampling error (5 standard errors)
    assert loss >= 0.9 * eps - 5 * se  # and the worst case comes close to it


def test_permute_and_flip_measured_privacy():
    loss, se = _measured_loss(lambda s, rng, size: permute_and_flip(s, 1.0, 1.0, rng=rng, size=size),
                              np.zeros(2), np.array([-1.0, 1.0]), 400_000, seed=20)
    assert abs(loss - 1.0) <= 5 * se  # the exact loss of this pair is exactly epsilon


def test_exponential_mechanism_exact_privacy():
    eps = 0.8
    rng = np.random.default_rng(8)
    worst = 0.0
    for _ in range(300):
        u = rng.normal(0, 5, size=rng.integers(2, 12))
        d = rng.uniform(-1, 1, size=u.size)
        loss = privacy_loss(exponential_probabilities(u, 1.0, eps), exponential_probabilities(u + d, 1.0, eps))
        worst = max(worst, loss)
        assert loss <= eps + 1e-12
        dm = np.abs(d)  # monotone neighbours with the monotone weights
        assert privacy_loss(exponential_probabilities(u, 1.0, eps, monotone=True),
                            exponential_probabilities(u + dm, 1.0, eps, monotone=True)) <= eps + 1e-12
    assert worst < eps
    # attained (to machine precision) when the released candidate is hopeless and all others move
    u, u2 = np.array([0.0, 200.0]), np.array([-1.0, 201.0])
    assert privacy_loss(exponential_probabilities(u, 1.0, eps), exponential_probabilities(u2, 1.0, eps)) == pytest.approx(eps, rel=1e-12)
    assert privacy_loss(exponential_probabilities(u, 1.0, eps, monotone=True),
                        exponential_probabilities(u + [0, 1], 1.0, eps, monotone=True)) == pytest.approx(eps, rel=1e-12)
    # the weights exp(eps u / sensitivity) on general neighbours reach 2 epsilon
    assert privacy_loss(exponential_probabilities(u, 1.0, eps, monotone=True),
                        exponential_probabilities(u2, 1.0, eps, monotone=True)) == pytest.approx(2 * eps, rel=1e-12)


def test_permute_and_flip_exact_privacy():
    eps = 1.0
    rng = np.random.default_rng(9)
    for _ in range(300):
        u = rng.normal(0, 3, size=rng.integers(2, 7))
        d = rng.uniform(-1, 1, size=u.size)
        assert privacy_loss(permute_and_flip_probabilities(u, 1.0, eps),
                            permute_and_flip_probabilities(u + d, 1.0, eps)) <= eps + 1e-12
        assert privacy_loss(permute_and_flip_probabilities(u, 1.0, eps, monotone=True),
                            permute_and_flip_probabilities(u + np.abs(d), 1.0, eps, monotone=True)) <= eps + 1e-12
    assert privacy_loss(permute_and_flip_probabilities([0.0, 0.0], 1.0, eps),
                        permute_and_flip_probabilities([-1.0, 1.0], 1.0, eps)) == pytest.approx(eps, rel=1e-12)


# ---------------------------------------------------------------- validation

ALL = [exponential_probabilities, exponential_mechanism, report_noisy_max, noisy_max_probabilities,
       permute_and_flip, permute_and_flip_probabilities]
SAMPLERS = [exponential_mechanism, report_noisy_max, permute_and_flip]


@pytest.mark.parametrize("f", ALL)
@pytest.mark.parametrize("scores, exc, match", [
    ([1.0, np.nan], ValueError, "finite everywhere"),
    ([np.inf, 1.0], ValueError, "finite everywhere"),
    ([1.0, -np.inf], ValueError, "finite everywhere"),
    ([True, False], TypeError, "booleans"),
    ([], ValueError, "not be empty"),
    ([[1.0, 2.0]], ValueError, "1 dimension"),
    ("abc", TypeError, "numeric"),
    ([1 + 2j, 0], TypeError, "dtype complex"),
])
def test_bad_scores(f, scores, exc, match):
    with pytest.raises(exc, match=r"(scores|utilities) must .*" + match):
        f(scores, 1.0, 1.0)


@pytest.mark.parametrize("f", ALL)
@pytest.mark.parametrize("kw, exc, match", [
    ({"epsilon": 0.0}, ValueError, r"epsilon must lie in \(0\.0, \+inf\)"),
    ({"epsilon": -1.0}, ValueError, "epsilon must lie"),
    ({"epsilon": math.nan}, ValueError, "epsilon must be a real number, got NaN"),
    ({"epsilon": math.inf}, ValueError, "epsilon must be finite"),
    ({"epsilon": True}, TypeError, "epsilon must be a real number, got the bool"),
    ({"sensitivity": 0.0}, ValueError, "sensitivity must lie in"),
    ({"sensitivity": -2.0}, ValueError, "sensitivity must lie in"),
    ({"sensitivity": math.nan}, ValueError, "sensitivity must be a real number, got NaN"),
    ({"sensitivity": "1"}, TypeError, "sensitivity must be a real number"),
    ({"monotone": 1}, TypeError, "monotone must be True or False"),
    ({"monotone": "yes"}, TypeError, "monotone must be True or False"),
])
def test_bad_parameters(f, kw, exc, match):
    args = {"sensitivity": 1.0, "epsilon": 1.0, **kw}
    monotone = args.pop("monotone", False)
    with pytest.raises(exc, match=match):
        f(FRUIT, args["sensitivity"], args["epsilon"], monotone=monotone)


@pytest.mark.parametrize("f", SAMPLERS)
@pytest.mark.parametrize("size, exc, match", [
    (0, ValueError, "size must be an integer >= 1, got 0"),
    (-3, ValueError, "size must be an integer >= 1"),
    (2.5, TypeError, "size must be an integer"),
    (True, TypeError, "size must be an integer >= 1, got the bool"),
    ((2, 3), TypeError, "size must be an integer"),
])
def test_bad_size(f, size, exc, match):
    with pytest.raises(exc, match=match):
        f(FRUIT, 1.0, 1.0, rng=0, size=size)


@pytest.mark.parametrize("f", SAMPLERS)
def test_bad_rng(f):
    with pytest.raises(TypeError, match="rng"):
        f(FRUIT, 1.0, 1.0, rng=1.5)


@pytest.mark.parametrize("f", [report_noisy_max, noisy_max_probabilities])
def test_bad_noise(f):
    with pytest.raises(ValueError, match=r"noise must be one of \('laplace', 'exponential', 'gumbel'\), got 'normal'"):
        f(FRUIT, 1.0, 1.0, noise="normal")
    with pytest.raises(TypeError, match="noise must be one of"):
        f(FRUIT, 1.0, 1.0, noise=None)


def test_bad_accuracy_gap_arguments():
    with pytest.raises(ValueError, match=r"t must lie in \[0\.0, \+inf\)"):
        exponential_accuracy_gap(3, 1.0, 1.0, -0.5)
    with pytest.raises(ValueError, match="t must lie in"):
        exponential_accuracy_gap(3, 1.0, 1.0, [1.0, -0.5])
    with pytest.raises(ValueError, match="t must be finite everywhere"):
        exponential_accuracy_gap(3, 1.0, 1.0, [1.0, np.nan])
    with pytest.raises(ValueError, match="n_candidates must be an integer >= 1"):
        exponential_accuracy_gap(0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        exponential_accuracy_gap(3, 1.0, 0.0, 1.0)


# ---------------------------------------------------------------- checkers


def test_check_em_probabilities():
    assert not check_em_probabilities(lambda u, s, e: exponential_probabilities(u, s, e)).passed  # forbidden

    def own(u, s, e):
        w = np.exp(e * (u - u.max()) / (2 * s))
        return w / w.sum()

    assert check_em_probabilities(own).passed

    def naive(u, s, e):  # exponentiates without subtracting the maximum
        w = np.exp(e * u / (2 * s))
        return w / w.sum()

    res = check_em_probabilities(naive)
    assert not res.passed and "overflows" in res.message and "1000000.0" in res.message

    def no_two(u, s, e):
        w = np.exp(e * (u - u.max()) / s)
        return w / w.sum()

    res = check_em_probabilities(no_two)
    assert not res.passed and "2 * epsilon-DP" in res.message

    res = check_em_probabilities(lambda u, s, e: np.exp(e * (u - u.max()) / (2 * s)))
    assert not res.passed and "normalise" in res.message
    assert "raised ZeroDivisionError" in check_em_probabilities(lambda u, s, e: 1 / 0).message
    assert not check_em_probabilities("not a function").passed
    # the message never contains the expected probabilities (case 2: 0.512497..., 0.487502...)
    for wrong in (lambda u, s, e: np.full(len(u), 1 / len(u)), lambda u, s, e: np.ones(len(u)), no_two):
        msg = check_em_probabilities(wrong).message
        assert "utilities=[3.0, 2.0]" in msg or "utilities=[0.0, 0.0]" in msg
        assert "0.512" not in msg and "0.487" not in msg and "0.5125" not in msg


def test_check_pumpkin_epsilon():
    truth = math.log(99) / 20
    assert check_pumpkin_epsilon(truth).passed
    assert "(2 * sensitivity)" in check_pumpkin_epsilon(truth / 2).message
    assert "both the 2" in check_pumpkin_epsilon(truth / 4).message
    assert "1/99" in check_pumpkin_epsilon(math.log(100) / 20).message
    assert check_pumpkin_epsilon(1.0).message == check_pumpkin_epsilon(0.01).message  # no direction
    assert not check_pumpkin_epsilon(1.0).passed
    assert not check_pumpkin_epsilon(True).passed and not check_pumpkin_epsilon(-1.0).passed
    # no message reveals the answer ln(99)/20 = 0.2298
    for a in (truth / 2, truth / 4, math.log(100) / 20, 1.0, 0.01, 0.2):
        assert "0.229" not in check_pumpkin_epsilon(a).message and "0.23" not in check_pumpkin_epsilon(a).message


def test_flag_and_choice_checks():
    from dpcourse._validation import check_choice, check_flag

    assert check_flag(np.bool_(True), "monotone") is True and check_flag(False, "monotone") is False
    for bad in (1, 0, "yes", None, np.array([True])):
        with pytest.raises(TypeError, match="monotone must be True or False"):
            check_flag(bad, "monotone")
    assert check_choice("gumbel", "noise", ("laplace", "gumbel")) == "gumbel"
    with pytest.raises(ValueError, match="noise must be one of"):
        check_choice("Gumbel", "noise", ("laplace", "gumbel"))
    with pytest.raises(TypeError, match="noise must be one of"):
        check_choice(3, "noise", ("laplace", "gumbel"))


def test_plots_return_figures():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import selection as figs

    for fig in (figs.plot_selection_distributions(0.5, 1.0, n_candidates=3),
                figs.plot_em_accuracy_tail([3.0, 1.0, 0.0], 1.0, 1.0, n_samples=1000, rng=0),
                figs.plot_expected_utility([3.0, 1.0, 0.0], 1.0, [0.5, 1.0], n_samples=500, rng=0),
                figs.plot_pricing([1.0, 1.0, 2.0], [1.0, 2.0], 0.2)):
        assert isinstance(fig, plt.Figure)
        plt.close(fig)
    with pytest.raises(ValueError, match="gap must lie in"):
        figs.gap_scores(-1.0)
    with pytest.raises(ValueError, match="n_candidates must be an integer >= 2"):
        figs.gap_scores(1.0, 1)


def test_noisy_max_idea_runs_and_figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots import selection as figs

    scores = np.array([1.0, 3.0, 3.0])
    # each run's winner is the first index of its largest noisy score, and the noise has the scale of
    # thm-sel-rnm-privacy: Delta/eps for monotone scores, 2 Delta/eps otherwise (mean |Z| = scale)
    for monotone, scale in ((True, 0.5), (False, 1.0)):
        noisy, winners = figs._noisy_runs(scores, 1.0, 2.0, 20_000, monotone, np.random.default_rng(3))
        assert noisy.shape == (20_000, 3)
        assert np.array_equal(winners, np.argmax(noisy, axis=1))
        mean_abs = np.abs(noisy - scores).mean()
        assert abs(mean_abs - scale) < 6 * scale / math.sqrt(60_000), (monotone, mean_abs)
    fig = figs.plot_noisy_max_idea(scores, [1.0, 3.0, 4.0], 1.0, labels=["a", "b", "c"], rng=0)
    assert isinstance(fig, plt.Figure) and len(fig.axes) == 2
    heights = [p.get_height() for p in fig.axes[1].patches]
    assert np.allclose(heights[:3], noisy_max_probabilities(scores, 1.0, 1.0, monotone=True))
    assert np.allclose(heights[3:], noisy_max_probabilities([1.0, 3.0, 4.0], 1.0, 1.0, monotone=True))
    plt.close(fig)
    with pytest.raises(ValueError, match="same length"):
        figs.plot_noisy_max_idea(scores, [1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="labels must name"):
        figs.plot_noisy_max_idea(scores, scores, 1.0, labels=["a"])


# ---------------------------------------------------------------- the single-draw path (size=None)


@pytest.mark.parametrize("f, kw, exact", [
    (exponential_mechanism, {}, exponential_probabilities),
    (report_noisy_max, {"noise": "laplace"}, noisy_max_probabilities),
    (report_noisy_max, {"noise": "gumbel"}, exponential_probabilities),
    (report_noisy_max, {"noise": "exponential"}, permute_and_flip_probabilities),
    (permute_and_flip, {}, permute_and_flip_probabilities),
])
def test_single_draws_follow_the_exact_distribution(f, kw, exact):
    # A release is usually one call without size: that path has its own code, so 20,000 independent single
    # draws (one shared Generator) must follow the exact probabilities. An unnoised argmax fails at once,
    # and so does a sampler whose epsilon is 10% off in either direction.
    # The float samplers (secure=False) are checked so; the secure ones (default, slower per call) draw
    # exactly what a size=1 call draws from the same generator state, whose law the vectorized tests check.
    gen = np.random.default_rng(11)
    s = np.array([f(U, 1.0, 1.0, rng=gen, secure=False, **kw) for _ in range(20_000)])
    assert all(isinstance(v, int) for v in s[:5].tolist())
    law = (lambda *a: exact(*a, secure=False)) if exact is noisy_max_probabilities else exact
    assert _chisq_pvalue(s, law(U, 1.0, 1.0)) > ALPHA
    assert _chisq_pvalue(s, law(U, 1.0, 1.1)) < ALPHA
    assert _chisq_pvalue(s, law(U, 1.0, 0.9)) < ALPHA
    single = [f(U, 1.0, 1.0, rng=seed, **kw) for seed in range(300)]
    assert all(isinstance(v, int) for v in single)
    assert single == [int(f(U, 1.0, 1.0, rng=seed, size=1, **kw)[0]) for seed in range(300)]


@pytest.mark.parametrize("f", [exponential_mechanism, report_noisy_max, permute_and_flip])
def test_unseeded_calls_are_fresh(f):
    # rng=None must draw fresh OS entropy: two runs of 200 unseeded releases agree only if the randomness
    # repeats (probability about 0.6**200 for these near-tied scores).
    u = [1.0, 1.0, 1.0]
    first = [f(u, 1.0, 1.0) for _ in range(200)]
    second = [f(u, 1.0, 1.0) for _ in range(200)]
    assert first != second
    assert not np.array_equal(f(u, 1.0, 1.0, size=200), f(u, 1.0, 1.0, size=200))


def test_float_samplers_follow_their_laws():
    # secure=False keeps the float samplers for the lessons: they must still be the mechanisms they claim
    s = report_noisy_max(U, 1.0, 1.0, rng=21, size=N, secure=False)
    assert _chisq_pvalue(s, noisy_max_probabilities(U, 1.0, 1.0, secure=False)) > ALPHA
    assert _chisq_pvalue(s, noisy_max_probabilities(U, 1.0, 2.0, secure=False)) < ALPHA
    s = permute_and_flip(U, 1.0, 1.0, rng=22, size=N, secure=False)
    assert _chisq_pvalue(s, permute_and_flip_probabilities(U, 1.0, 1.0)) > ALPHA
    assert _chisq_pvalue(s, permute_and_flip_probabilities(U, 1.0, 0.5)) < ALPHA
