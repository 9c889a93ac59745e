"""Composition bounds: hand-computed values, the exact optimum against brute force, laws, and bad input."""

import math
from functools import reduce

import numpy as np
import pytest
from scipy import integrate, optimize

from dpcourse import (advanced_composition, advanced_composition_crossover, basic_composition,
                      gaussian_composition_epsilon, gaussian_epsilon, hockey_stick, optimal_composition_delta,
                      optimal_composition_epsilon, rdp_gaussian, rdp_laplace, rdp_pure_dp, rdp_to_epsilon,
                      zcdp_epsilon)


def rr_pair(eps):
    p = np.array([math.exp(eps), 1.0]) / (1 + math.exp(eps))
    return p, p[::-1].copy()


def product(dist, k):
    return reduce(np.kron, [dist] * k)


# ---------------------------------------------------------------- basic and advanced composition

def test_basic_by_hand():
    assert basic_composition(0.25, 4) == (1.0, 0.0)
    assert basic_composition(0.5, 3, 1e-6) == pytest.approx((1.5, 3e-6), rel=1e-15, abs=0)


def test_advanced_by_hand():
    # eps = 0.5, k = 10, delta' = e^-2: sqrt(2 * 10 * 2) = sqrt(40); drift 10 * 0.5 * (e^0.5 - 1).
    assert advanced_composition(0.5, 10, math.exp(-2)) == pytest.approx(0.5 * math.sqrt(40) + 5 * (math.e ** 0.5 - 1),
                                                                         rel=1e-14)
    # a second case with round numbers: eps = 0.01, k = 10000, delta' = e^-8: 0.01 * sqrt(160000) = 4
    assert advanced_composition(0.01, 10_000, math.exp(-8)) == pytest.approx(4 + 100 * math.expm1(0.01), rel=1e-13)


def test_crossover_closed_form_is_the_root():
    for k, dp in [(100, 1e-5), (1000, 1e-6), (10 ** 5, 1e-9), (50, 0.1)]:
        e_star = advanced_composition_crossover(k, dp)
        assert 0 < e_star < math.log(2)
        root = optimize.brentq(lambda e: advanced_composition(e, k, dp) - k * e, 1e-12, math.log(2), xtol=1e-15)
        assert e_star == pytest.approx(root, rel=1e-10)
        assert advanced_composition(0.99 * e_star, k, dp) < k * 0.99 * e_star
        assert advanced_composition(1.01 * e_star, k, dp) > k * 1.01 * e_star


def test_advanced_never_beats_basic_when_k_small_or_eps_large():
    assert advanced_composition_crossover(23, 1e-5) == 0.0  # k <= 2 ln(1e5) = 23.03
    for k in [1, 10, 23, 1000, 10 ** 6]:
        for eps in [math.log(2), 1.0, 2.0]:
            assert advanced_composition(eps, k, 1e-5) >= k * eps


# ---------------------------------------------------------------- optimal composition

@pytest.mark.parametrize("eps", [0.1, 0.7, 2.0])
@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.05])
def test_optimal_k1_is_the_single_mechanism(eps, delta):
    got = optimal_composition_epsilon(eps, 1, delta)
    assert got <= eps
    # the randomized-response pair inverted by hand: (e^eps - e^e') / (1 + e^eps) = delta
    # (clipped at 0 when delta exceeds the total variation distance)
    assert got == pytest.approx(max(0.0, math.log(math.exp(eps) - delta * (1 + math.exp(eps)))), rel=1e-12)
    p, q = rr_pair(eps)
    if got > 0:
        assert hockey_stick(p, q, got) == pytest.approx(delta, rel=1e-9, abs=0)
    else:
        assert hockey_stick(p, q, 0.0) <= delta


@pytest.mark.parametrize("eps, k", [(0.3, 1), (0.3, 2), (0.5, 5), (1.0, 7), (0.05, 9), (2.0, 4)])
def test_optimal_delta_is_the_hockey_stick_of_the_products(eps, k):
    p, q = rr_pair(eps)
    pk, qk = product(p, k), product(q, k)
    grid = np.linspace(0, k * eps * 1.1, 37)
    want = hockey_stick(pk, qk, grid)
    got = np.array([optimal_composition_delta(eps, k, e) for e in grid])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)
    assert np.array_equal(want, hockey_stick(qk, pk, grid)) or np.allclose(want, hockey_stick(qk, pk, grid), atol=1e-15)


def test_optimal_matches_kov_formula_at_grid_points():
    # delta_i = sum_{l < i} C(k, l) (e^{(k-l) eps} - e^{(k-2i+l) eps}) / (1 + e^eps)^k at eps' = (k - 2i) eps.
    eps, k = 0.4, 12
    for i in range(0, k // 2 + 1):
        kov = sum(math.comb(k, l) * (math.exp((k - l) * eps) - math.exp((k - 2 * i + l) * eps))
                  for l in range(i)) / (1 + math.exp(eps)) ** k
        assert optimal_composition_delta(eps, k, (k - 2 * i) * eps) == pytest.approx(kov, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("eps, k", [(0.5, 5), (0.1, 50), (1.0, 3), (0.01, 1000), (0.2, 2000)])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2])
def test_optimal_epsilon_inverts_delta(eps, k, delta):
    e = optimal_composition_epsilon(eps, k, delta)
    if e > 0:
        d_at = optimal_composition_delta(eps, k, e)
        assert d_at <= delta  # fail closed: the returned eps' is never optimistic, even by rounding
        # equal to the target, or e' is within a few ulps of the exact answer (near a loss atom one ulp of e'
        # moves delta by more than 1e-8 relative)
        assert d_at == pytest.approx(delta, rel=1e-8, abs=0) or optimal_composition_delta(eps, k, e - 8 * np.spacing(e)) > delta
        assert optimal_composition_delta(eps, k, e * (1 - 1e-7)) > delta
    else:
        assert optimal_composition_delta(eps, k, 0.0) <= delta


def test_optimal_epsilon_is_never_optimistic():
    # the returned eps' must be private at delta as computed, including next to a loss atom (k eps, tiny delta)
    for eps in [0.01, 0.3, 1.0, 2.0, 5.0]:
        for k in [1, 2, 3, 10, 100]:
            for delta in [1e-15, 1e-12, 1e-10, 1e-6, 1e-3, 0.1]:
                e = optimal_composition_epsilon(eps, k, delta)
                assert optimal_composition_delta(eps, k, e) <= delta
    from dpcourse import PrivacyAccountant, PureDPEvent

    # heterogeneous events through the accountant (the library's own log-space delta: a brute-force
    # p - e^eps' q loses ~1e-7 relative to cancellation this close to a loss atom)
    from dpcourse.composition import _delta_of_atoms, _product_atoms

    acc = PrivacyAccountant([PureDPEvent(1.0), PureDPEvent(1.0), PureDPEvent(0.5)])
    loss, logp = _product_atoms([(0.5, 1), (1.0, 2)])
    for delta in [1e-14, 1e-10, 1e-4]:
        assert _delta_of_atoms(loss, logp, acc.epsilon(delta, "optimal")) <= delta


def test_optimal_epsilon_small_k_by_brute_force_search():
    # independent of the closed-form inversion: bisection on the brute-force hockey-stick of the products
    eps, k, delta = 0.6, 6, 1e-3
    pk, qk = (product(d, k) for d in rr_pair(eps))
    root = optimize.brentq(lambda e: hockey_stick(pk, qk, e) - delta, 0, k * eps, xtol=1e-14)
    assert optimal_composition_epsilon(eps, k, delta) == pytest.approx(root, rel=1e-10)


def test_optimal_is_below_every_other_bound_on_a_grid():
    for eps in [0.001, 0.01, 0.1, 0.5, 1.0, 3.0]:
        for k in [1, 2, 10, 100, 1000]:
            for delta in [1e-9, 1e-5, 1e-2]:
                opt = optimal_composition_epsilon(eps, k, delta)
                assert opt <= k * eps * (1 + 1e-12)
                assert opt <= advanced_composition(eps, k, delta) * (1 + 1e-12)
                assert opt <= zcdp_epsilon(k * eps * eps / 2, delta) * (1 + 1e-12)
                rdp = rdp_to_epsilon(lambda a: k * rdp_pure_dp(a, eps), delta)[0]
                assert opt <= rdp * (1 + 1e-9)


def test_optimal_large_k_against_normal_approximation():
    # For small eps the loss is ~ N(k eps tanh(eps/2), k eps^2): the exact answer is close to the Gaussian profile
    # with mu = sqrt(k) eps (central limit theorem), within a few percent.
    eps, k, delta = 0.01, 5000, 1e-5
    exact = optimal_composition_epsilon(eps, k, delta)
    assert exact == pytest.approx(gaussian_epsilon(delta, math.sqrt(k) * eps), rel=0.03)


def test_monotonicity_of_optimal():
    ks = [1, 2, 3, 5, 10, 30, 100, 300]
    vals = [optimal_composition_epsilon(0.2, k, 1e-5) for k in ks]
    assert all(a < b for a, b in zip(vals, vals[1:]))
    ds = [1e-12, 1e-8, 1e-5, 1e-3, 0.1]
    vals = [optimal_composition_epsilon(0.2, 50, d) for d in ds]
    assert all(a > b for a, b in zip(vals, vals[1:]))
    es = [0.01, 0.05, 0.1, 0.5, 1.0]
    vals = [optimal_composition_epsilon(e, 50, 1e-5) for e in es]
    assert all(a < b for a, b in zip(vals, vals[1:]))


# ---------------------------------------------------------------- Gaussian, RDP, zCDP

@pytest.mark.parametrize("sigma, k, delta, sens", [(10.0, 100, 1e-5, 1.0), (2.0, 1, 1e-6, 1.0), (3.0, 7, 1e-3, 2.5)])
def test_gaussian_composition_is_one_gaussian(sigma, k, delta, sens):
    got = gaussian_composition_epsilon(sigma, k, delta, l2_sensitivity=sens)
    assert got == gaussian_epsilon(delta, math.sqrt(k) * sens / sigma)


def test_gaussian_composition_monotone():
    sig = [gaussian_composition_epsilon(s, 50, 1e-5) for s in [1, 2, 5, 10, 50]]
    assert all(a > b for a, b in zip(sig, sig[1:]))  # more noise, less epsilon
    ks = [gaussian_composition_epsilon(5.0, k, 1e-5) for k in [1, 2, 10, 100, 1000]]
    assert all(a < b for a, b in zip(ks, ks[1:]))
    ds = [gaussian_composition_epsilon(5.0, 100, d) for d in [1e-10, 1e-6, 1e-3, 1e-1]]
    assert all(a > b for a, b in zip(ds, ds[1:]))


def test_rdp_gaussian_mironov_conversion_is_the_zcdp_formula():
    for mu, k, delta in [(1.0, 1, 1e-5), (0.1, 100, 1e-6), (0.5, 30, 1e-3)]:
        rho = k * mu * mu / 2
        eps, alpha = rdp_to_epsilon(lambda a: k * rdp_gaussian(a, mu), delta, conversion="mironov")
        assert eps == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)), rel=1e-9)
        assert alpha == pytest.approx(1 + math.sqrt(math.log(1 / delta) / rho), rel=1e-4)
        assert eps == pytest.approx(zcdp_epsilon(rho, delta), rel=1e-9)
        improved = rdp_to_epsilon(lambda a: k * rdp_gaussian(a, mu), delta)[0]
        exact = gaussian_composition_epsilon(1 / mu, k, delta)
        assert exact < improved < eps  # every conversion is a valid bound; the improved one is tighter


def test_rdp_curves_against_direct_integrals():
    for a in [1.5, 2.0, 7.0]:
        # Laplace with scale 1 and shift eps: D_a = 1/(a-1) ln int p^a q^(1-a)
        eps = 0.8
        f = lambda x: 0.5 * math.exp(-a * abs(x - eps) - (1 - a) * abs(x))  # noqa: E731
        integral = sum(integrate.quad(f, lo, hi, epsabs=1e-14, epsrel=1e-13)[0]
                       for lo, hi in [(-np.inf, 0), (0, eps), (eps, np.inf)])
        assert rdp_laplace(a, eps) == pytest.approx(math.log(integral) / (a - 1), rel=1e-9)
        p, q = rr_pair(eps)
        direct = math.log(np.sum(p ** a * q ** (1 - a))) / (a - 1)
        assert rdp_pure_dp(a, eps) == pytest.approx(direct, rel=1e-12)
        assert rdp_pure_dp(a, eps) <= min(eps, a * eps * eps / 2)
        assert rdp_laplace(a, eps) <= rdp_pure_dp(a, eps)  # Laplace is an eps-DP mechanism
    assert rdp_gaussian(np.array([2.0, 3.0]), 2.0).tolist() == [4.0, 6.0]


def test_zcdp_by_hand():
    # rho = 2, delta = e^-8: 2 + 2 sqrt(16) = 10
    assert zcdp_epsilon(2.0, math.exp(-8)) == pytest.approx(10.0, rel=1e-14)


def test_zcdp_form_of_advanced_composition():
    # k eps^2/2 + eps sqrt(2k ln 1/delta) is the zCDP route, and the "+k eps^2" form is looser than it
    eps, k, d = 0.05, 400, 1e-6
    z = zcdp_epsilon(k * eps ** 2 / 2, d)
    assert z == pytest.approx(k * eps ** 2 / 2 + eps * math.sqrt(2 * k * math.log(1 / d)), rel=1e-13)
    assert z < k * eps ** 2 + eps * math.sqrt(2 * k * math.log(1 / d)) < advanced_composition(eps, k, d)


def test_dropping_the_drift_term_gives_a_false_bound():
    # eps sqrt(2k ln 1/delta) alone claims less than the exact optimum: it is not a valid bound
    eps, k, d = 0.5, 100, 1e-5
    assert eps * math.sqrt(2 * k * math.log(1 / d)) < optimal_composition_epsilon(eps, k, d)


# ---------------------------------------------------------------- validation

BAD_EPS = [(0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError), (True, TypeError),
           ("0.1", TypeError)]
BAD_K = [(0, ValueError), (-3, ValueError), (2.5, TypeError), (3.0, TypeError), (True, TypeError), (None, TypeError)]
BAD_DELTA = [(0.0, ValueError), (1.0, ValueError), (-1e-5, ValueError), (1.5, ValueError), (math.nan, ValueError),
             (math.inf, ValueError), (False, TypeError)]

FUNCS_EPS_K_DELTA = [advanced_composition, optimal_composition_epsilon]


@pytest.mark.parametrize("fn", FUNCS_EPS_K_DELTA + [optimal_composition_delta, basic_composition])
@pytest.mark.parametrize("bad, exc", BAD_EPS)
def test_bad_epsilon(fn, bad, exc):
    with pytest.raises(exc, match="epsilon"):
        fn(bad, 10, 1e-5) if fn is not basic_composition else fn(bad, 10)


@pytest.mark.parametrize("fn", FUNCS_EPS_K_DELTA + [optimal_composition_delta, basic_composition])
@pytest.mark.parametrize("bad, exc", BAD_K)
def test_bad_k(fn, bad, exc):
    with pytest.raises(exc, match="k must be an integer"):
        fn(0.1, bad, 1e-5)
    with pytest.raises(exc, match="k must be an integer"):
        gaussian_composition_epsilon(1.0, bad, 1e-5)
    with pytest.raises(exc, match="k must be an integer"):
        advanced_composition_crossover(bad, 1e-5)


@pytest.mark.parametrize("bad, exc", BAD_DELTA)
def test_bad_delta(bad, exc):
    for call in [lambda: advanced_composition(0.1, 10, bad), lambda: optimal_composition_epsilon(0.1, 10, bad),
                 lambda: gaussian_composition_epsilon(1.0, 10, bad), lambda: zcdp_epsilon(1.0, bad),
                 lambda: advanced_composition_crossover(10, bad),
                 lambda: rdp_to_epsilon(lambda a: rdp_gaussian(a, 1.0), bad)]:
        with pytest.raises(exc, match="delta"):
            call()


@pytest.mark.parametrize("bad, exc", BAD_EPS)
def test_bad_sigma_and_sensitivity(bad, exc):
    with pytest.raises(exc, match="sigma"):
        gaussian_composition_epsilon(bad, 10, 1e-5)
    with pytest.raises(exc, match="l2_sensitivity"):
        gaussian_composition_epsilon(1.0, 10, 1e-5, l2_sensitivity=bad)


def test_bad_basic_delta_and_other_arguments():
    with pytest.raises(ValueError, match="delta"):
        basic_composition(0.1, 3, 1.0)
    with pytest.raises(ValueError, match="epsilon_total"):
        optimal_composition_delta(0.1, 3, -0.5)
    with pytest.raises(ValueError, match="epsilon_total"):
        optimal_composition_delta(0.1, 3, math.nan)
    with pytest.raises(ValueError, match="rho"):
        zcdp_epsilon(0.0, 1e-5)
    with pytest.raises(ValueError, match="alpha"):
        rdp_gaussian(1.0, 1.0)
    with pytest.raises(ValueError, match="alpha"):
        rdp_laplace(np.array([2.0, math.nan]), 1.0)
    with pytest.raises(TypeError, match="alpha"):
        rdp_pure_dp(True, 1.0)
    with pytest.raises(ValueError, match="mu"):
        rdp_gaussian(2.0, -1.0)
    with pytest.raises(ValueError, match="conversion"):
        rdp_to_epsilon(lambda a: rdp_gaussian(a, 1.0), 1e-5, conversion="magic")
    with pytest.raises(TypeError, match="rdp_curve"):
        rdp_to_epsilon(3.0, 1e-5)
    with pytest.raises(ValueError, match="rdp_curve"):
        rdp_to_epsilon(lambda a: np.full_like(a, np.nan), 1e-5)


def test_no_overflow_for_large_k():
    e = optimal_composition_epsilon(1.0, 3000, 1e-12)
    assert math.isfinite(e) and 0 < e < 3000


def test_huge_epsilon_gives_finite_or_infinite_bounds_never_an_error():
    assert advanced_composition(1000.0, 3, 1e-5) == math.inf
    assert optimal_composition_epsilon(1000.0, 3, 1e-5) == pytest.approx(3000.0 + math.log1p(-1e-5), rel=1e-12)
    assert rdp_pure_dp(2.0, 1000.0) == pytest.approx(1000.0, rel=1e-3)
    assert rdp_laplace(2.0, 1000.0) == pytest.approx(1000.0, rel=1e-2)


# ---------------------------------------------------------------- figures and widget

def test_pure_dp_totals_are_the_library_numbers():
    from dpcourse.plots.composition import pure_dp_totals

    t = pure_dp_totals(0.1, 100, 1e-5)
    assert t["basic"] == pytest.approx(10.0, rel=1e-14)
    assert t["advanced"] == advanced_composition(0.1, 100, 1e-5)
    assert t["zCDP form"] == zcdp_epsilon(100 * 0.1 ** 2 / 2, 1e-5)
    assert t["optimal"] == optimal_composition_epsilon(0.1, 100, 1e-5)
    assert t["optimal"] < t["rdp"] < t["zCDP form"] < t["advanced"] < t["basic"]
    with pytest.raises(ValueError, match="delta"):
        pure_dp_totals(0.1, 100, 0.0)


def test_composition_figures_and_widget_build():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse import PrivacyAccountant, GaussianEvent
    from dpcourse.plots import composition as figs

    res = PrivacyAccountant().compose(GaussianEvent(10.0), 100).compare(1e-5)
    for fig in [figs.plot_composition_methods(0.5, 1e-6, 20), figs.plot_advanced_crossover(1e-5, ks=(100,)),
                figs.plot_accountant_comparison(res, title="t"), figs.plot_loss_walk(0.1, 100, 1e-5, rng=0),
                figs.plot_loss_walk(1.0, 1, 1e-5, n_paths=1, rng=0), figs.plot_rdp_conversion(10.0, 100, 1e-5),
                figs.plot_rdp_conversion(2.0, 1, 1e-3)]:
        assert isinstance(fig, matplotlib.figure.Figure)
        plt.close(fig)
    pytest.importorskip("ipywidgets")
    w = figs.composition_widget()
    assert len(w.widget().children) >= 4  # live kernel: three sliders and the output area
    assert w.draw(epsilon=1.0, k=10).axes  # any setting is drawn by plot_composition_methods
    plt.close("all")


def test_loss_walk_summary_is_the_exact_law_of_k_randomized_responses():
    """Against brute force: every sign pattern of k randomized responses, its probability and its total loss."""
    import itertools

    from dpcourse.plots.composition import loss_walk_summary

    for eps, k in [(0.3, 1), (0.7, 5), (1.5, 8)]:
        s = math.exp(eps) / (1 + math.exp(eps))
        law = {}
        for signs in itertools.product([1, -1], repeat=k):
            total = round(eps * sum(signs), 12)
            law[total] = law.get(total, 0.0) + math.prod(s if x > 0 else 1 - s for x in signs)
        w = loss_walk_summary(eps, k, 1e-5)
        got = {round(v, 12): p for v, p in zip(w["losses"], w["probabilities"])}
        assert got.keys() == law.keys()
        assert all(got[v] == pytest.approx(law[v], rel=1e-12, abs=1e-300) for v in law)
        mean = sum(v * p for v, p in law.items())
        var = sum((v - mean) ** 2 * p for v, p in law.items())
        assert w["mean"] == pytest.approx(mean, rel=1e-12)
        assert w["sd"] == pytest.approx(math.sqrt(var), rel=1e-12)
        assert w["worst_probability"] == pytest.approx(law[round(k * eps, 12)], rel=1e-12)
        assert w["basic"] == pytest.approx(k * eps, rel=1e-15)
        assert w["advanced"] == advanced_composition(eps, k, 1e-5)
        assert w["optimal"] == optimal_composition_epsilon(eps, k, 1e-5)
    w = loss_walk_summary(0.1, 100, 1e-5)
    assert w["optimal"] < w["advanced"] < w["basic"]
    assert w["mean"] <= 100 * 0.1**2 / 2  # the mean loss of an eps-DP step is at most eps^2 / 2


def test_loss_walk_refuses_bad_public_parameters():
    from dpcourse.plots.composition import LOSS_WALK_MAX_K, LOSS_WALK_MAX_PATHS, loss_walk_summary, plot_loss_walk

    for kwargs, name in [({"epsilon": float("nan")}, "epsilon"), ({"epsilon": 0.0}, "epsilon"), ({"k": 0}, "k"),
                         ({"k": 2.5}, "k"), ({"k": LOSS_WALK_MAX_K + 1}, "k"), ({"delta": 0.0}, "delta"),
                         ({"delta": 1.0}, "delta")]:
        args = {"epsilon": 0.1, "k": 10, "delta": 1e-5, **kwargs}
        with pytest.raises((ValueError, TypeError), match=name):
            loss_walk_summary(**args)
        with pytest.raises((ValueError, TypeError), match=name):
            plot_loss_walk(**args, rng=0)
    with pytest.raises(ValueError, match="n_paths"):
        plot_loss_walk(0.1, 10, 1e-5, n_paths=LOSS_WALK_MAX_PATHS + 1, rng=0)
    with pytest.raises(TypeError, match="rng"):
        plot_loss_walk(0.1, 10, 1e-5, rng=True)


def test_loss_walk_figure_draws_the_seeded_paths_and_the_bounds():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpcourse.plots.composition import plot_loss_walk

    def lines(fig):
        return [np.asarray(line.get_ydata(), dtype=float) for line in fig.axes[0].lines]

    a, b = plot_loss_walk(0.2, 30, 1e-6, n_paths=4, rng=7), plot_loss_walk(0.2, 30, 1e-6, n_paths=4, rng=7)
    la, lb = lines(a), lines(b)
    assert len(la) == 4 + 3 and all(np.array_equal(x, y) for x, y in zip(la, lb))
    steps = np.diff(np.array(la[:4]), axis=1)
    assert np.allclose(np.abs(steps), 0.2, rtol=0, atol=1e-12)  # each step moves the loss by exactly +-epsilon
    assert np.allclose(la[4], 0.2 * np.arange(31), rtol=1e-12)  # the worst case k epsilon
    grid = np.asarray(a.axes[0].lines[5].get_xdata(), dtype=int)
    assert np.allclose(la[5], [advanced_composition(0.2, int(g), 1e-6) for g in grid], rtol=1e-12)
    assert np.allclose(la[6], [optimal_composition_epsilon(0.2, int(g), 1e-6) for g in grid], rtol=1e-12)
    plt.close("all")


def test_rdp_conversion_curves_are_the_accountants_steps():
    from dpcourse import GaussianEvent, PrivacyAccountant
    from dpcourse.plots.composition import rdp_conversion_curves

    for sigma, k, delta, sens in [(10.0, 100, 1e-5, 1.0), (3.0, 7, 1e-3, 2.0)]:
        c = rdp_conversion_curves(sigma, k, delta, l2_sensitivity=sens)
        a, mu = c["alphas"], sens / sigma
        assert np.allclose(c["one"], a * mu**2 / 2, rtol=1e-14)
        assert np.allclose(c["total"], k * a * mu**2 / 2, rtol=1e-14)
        conversion = np.log(1 - 1 / a) - (math.log(delta) + np.log(a)) / (a - 1)
        assert np.allclose(c["conversion"], conversion, rtol=1e-12)
        assert np.allclose(c["epsilon"], c["total"] + conversion, rtol=1e-12)
        # the accountant's answer is the minimum of the plotted curve (a valid epsilon at every order)
        assert c["best_epsilon"] <= c["epsilon"].min() + 1e-9
        fine = np.linspace(1.0 + 1e-3, 4 * c["best_alpha"], 200_001)
        fine_eps = k * fine * mu**2 / 2 + np.log(1 - 1 / fine) - (math.log(delta) + np.log(fine)) / (fine - 1)
        assert c["best_epsilon"] == pytest.approx(fine_eps.min(), rel=1e-6)
        assert c["exact"] == gaussian_epsilon(delta, math.sqrt(k) * mu)
        assert c["exact"] < c["best_epsilon"]
    acc = PrivacyAccountant().compose(GaussianEvent(10.0), 100).epsilon(1e-5, "rdp")
    assert rdp_conversion_curves(10.0, 100, 1e-5)["best_epsilon"] == pytest.approx(acc, rel=1e-9)
    for kwargs, name in [({"sigma": 0.0}, "sigma"), ({"sigma": float("nan")}, "sigma"), ({"k": 0}, "k"),
                         ({"delta": 0.0}, "delta"), ({"l2_sensitivity": -1.0}, "l2_sensitivity"),
                         ({"alphas": [1.0, 2.0]}, "alphas"), ({"alphas": [float("nan")]}, "alphas")]:
        with pytest.raises((ValueError, TypeError), match=name):
            rdp_conversion_curves(**{"sigma": 10.0, "k": 10, "delta": 1e-5, **kwargs})


# ---------------------------------------------------------------- conversions against an independent grid search


@pytest.mark.parametrize("curve", [
    lambda a: 20 * rdp_pure_dp(a, 0.1),
    lambda a: 5 * rdp_laplace(a, 0.5) + 3 * rdp_gaussian(a, 0.3),
])
@pytest.mark.parametrize("delta", [1e-3, 1e-8])
def test_conversions_are_the_minimum_over_orders(curve, delta):
    # Each conversion minimises its own formula over alpha; a dense grid, with the formulas written out here,
    # finds the same minimum (to the grid's resolution) and never a smaller one.
    a = 1.0 + np.geomspace(1e-4, 1e6, 40_001)  # the range the conversion searches
    r = curve(a)
    formulas = {
        "mironov": r + math.log(1 / delta) / (a - 1),  # Mironov 2017, Proposition 3
        "improved": r + np.log((a - 1) / a) - (math.log(delta) + np.log(a)) / (a - 1),  # CKS 2020, Prop. 12
    }
    for conversion, values in formulas.items():
        eps, alpha = rdp_to_epsilon(curve, delta, conversion=conversion)
        assert values.min() * (1 - 1e-6) <= eps <= values.min() * (1 + 1e-12)
        # and the order returned attains the epsilon returned
        r_alpha = float(curve(np.array([alpha]))[0])
        at = r_alpha + (math.log(1 / delta) / (alpha - 1) if conversion == "mironov"
                        else math.log((alpha - 1) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1))
        assert at == pytest.approx(eps, rel=1e-12)


def test_mironov_is_never_below_the_improved_conversion():
    for mu, k in [(0.2, 10), (1.0, 1), (0.05, 1000)]:
        for delta in [1e-2, 1e-6, 1e-12]:
            curve = lambda a: k * rdp_gaussian(a, mu)  # noqa: E731
            assert rdp_to_epsilon(curve, delta)[0] < rdp_to_epsilon(curve, delta, conversion="mironov")[0]


# ---------------------------------------------------------------- the bad inputs of issue 10


@pytest.mark.parametrize("bad", ["2", b"2", ["2"], np.array("2.0"), True, np.array([True]), None, 2 + 0j])
def test_orders_must_be_numbers(bad):
    # rdp_gaussian('2', 1.0) once returned 1.0
    for f in (rdp_gaussian, rdp_laplace, rdp_pure_dp):
        with pytest.raises(TypeError, match="alpha must be a real number"):
            f(bad, 1.0)


def test_negative_or_malformed_rdp_curves_are_refused():
    with pytest.raises(ValueError, match="rdp_curve must be >= 0"):
        rdp_to_epsilon(lambda a: -0.1 * a, 1e-5)  # once gave epsilon 0
    with pytest.raises(TypeError, match="rdp_curve must return real numbers"):
        rdp_to_epsilon(lambda a: np.full(a.shape, "x"), 1e-5)
    with pytest.raises(ValueError, match="one number per order"):
        rdp_to_epsilon(lambda a: 1.0, 1e-5)
    with pytest.raises(ValueError, match="finite"):
        rdp_to_epsilon(lambda a: a * np.nan, 1e-5)


def test_optimal_composition_caps_k_and_refuses_overflow():
    for f in (optimal_composition_epsilon, lambda e, k, d: optimal_composition_delta(e, k, 1.0)):
        with pytest.raises(ValueError, match="k must be at most"):
            f(0.5, 2**63 - 1, 1e-5)  # once returned 0.0
        with pytest.raises(ValueError, match="k must be at most"):
            f(0.5, 10**8, 1e-5)  # once exhausted memory
        with pytest.raises(ValueError, match="k \\* epsilon must be finite"):
            f(1e307, 100, 1e-5)  # once returned 256.0
    # the largest k allowed still works, and a huge epsilon that does not overflow gives about k epsilon
    assert optimal_composition_epsilon(1e-3, 1_999_999, 1e-5) > 0
    assert optimal_composition_epsilon(1e300, 3, 1e-5) == pytest.approx(3e300, rel=1e-12)


def test_renyi_curves_near_zero_epsilon_are_accurate_and_never_negative():
    # rdp_laplace(2, 1e-300) was negative; for small epsilon both curves are about alpha eps^2 / 2.
    for f in (rdp_laplace, rdp_pure_dp):
        assert f(2.0, 1e-300) == 0.0  # the true value, 1e-600, underflows
        for alpha in (1.001, 2.0, 50.0):
            for eps in (1e-150, 1e-8, 1e-4):
                assert f(alpha, eps) == pytest.approx(alpha * eps * eps / 2, rel=1e-3)
        grid = f(1.0 + np.geomspace(1e-4, 1e6, 200), 1e-9)
        assert np.all(grid >= 0)


def test_renyi_curves_against_exact_decimal_arithmetic():
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = 60, 10**6, -10**6

        def laplace(a, e):
            a, e = Decimal(a), Decimal(e)
            return float((a / (2 * a - 1) * ((a - 1) * e).exp() + (a - 1) / (2 * a - 1) * (-a * e).exp()).ln() / (a - 1))

        def rr(a, e):
            a, e = Decimal(a), Decimal(e)
            return float((((a * e).exp() + ((1 - a) * e).exp()) / (1 + e.exp())).ln() / (a - 1))

        for a in (1.01, 1.5, 2.0, 10.0, 1e4):
            for e in (1e-12, 1e-5, 0.01, 0.3, 0.9, 2.0, 30.0):
                assert rdp_laplace(a, e) == pytest.approx(laplace(a, e), rel=1e-12)
                assert rdp_pure_dp(a, e) == pytest.approx(rr(a, e), rel=1e-10)


def test_gaussian_composition_names_its_arguments_on_overflow():
    with pytest.raises(ValueError, match="l2_sensitivity / sigma"):
        gaussian_composition_epsilon(1e-300, 10**6, 1e-5, l2_sensitivity=1e10)


def test_rdp_to_epsilon_returns_named_fields():
    """Issue 38: a NamedTuple ``(epsilon, alpha)``; unpacking and indexing keep working."""
    res = rdp_to_epsilon(lambda a: rdp_gaussian(a, 1.0), 1e-5)
    assert res._fields == ("epsilon", "alpha") and (res.epsilon, res.alpha) == tuple(res) == (res[0], res[1])
    assert res.alpha > 1.0 and res.epsilon < zcdp_epsilon(0.5, 1e-5)
