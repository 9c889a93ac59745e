"""Exact discrete samplers, the geometric mechanism and the secure lattice releases (dpcourse.discrete)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcourse
from dpcourse import (discrete_gaussian, discrete_gaussian_delta, discrete_gaussian_pmf, discrete_laplace,
                      discrete_laplace_pmf, gaussian_lattice, geometric_mechanism, laplace_lattice)
from dpcourse import _sampling as ks
from dpcourse import lattice as lt

ALPHA = 1e-6
N = 200_000


# ---------------------------------------------------------------- exact Bernoulli trials


class _Scripted:
    """A stand-in Generator whose ``integers`` returns scripted values (to reach rare branches exactly)."""

    def __init__(self, values):
        self.values = list(values)

    def integers(self, low, high, size=None):
        out = np.array([self.values.pop(0) for _ in range(size)], dtype=np.int64)
        assert ((out >= low) & (out < high)).all()
        return out


@pytest.mark.parametrize("num, den", [(1, 3), (2, 3), (5, 7), (7, 7), (0, 4), (3, 2**70 + 1), (2**69, 2**70 + 1)])
def test_bern_exp_fraction_frequency(num, den):
    gen = np.random.default_rng(num + den % 1000)
    nums = np.full(N, num, dtype=object if den > 2**62 else np.int64)
    hits = int(ks._bern_exp_fraction(nums, den, gen).sum())
    p = math.exp(-num / den)
    assert stats.binomtest(hits, N, p).pvalue > ALPHA
    # power: exp(-1.1 gamma) is rejected when gamma is not tiny
    if num / den > 0.3:
        assert stats.binomtest(hits, N, math.exp(-1.1 * num / den)).pvalue < ALPHA


def test_bern_exp_with_integer_part_frequency():
    gen = np.random.default_rng(3)
    whole = np.full(N, 2, dtype=np.int64)
    num = np.full(N, 1, dtype=np.int64)
    hits = int(ks._bern_exp(whole, num, 4, gen).sum())     # exp(-2.25)
    assert stats.binomtest(hits, N, math.exp(-2.25)).pvalue > ALPHA
    assert stats.binomtest(hits, N, math.exp(-2.0)).pvalue < ALPHA


def test_bern_ratio_lazy_path_is_exact_on_ties():
    # den > int64: the first 62-bit block is compared with floor(num 2**62 / den); a tie recurses on the
    # remainder. num/den = 1/3 with den = 3 * 2**63: head = floor(2**62 / 3).
    den = 3 * 2**63
    num = np.array([2**63], dtype=object)
    head = (2**63 * 2**62) // den
    assert ks._bern_ratio(num, den, _Scripted([head - 1]))[0]          # below the head: success
    assert not ks._bern_ratio(num, den, _Scripted([head + 1]))[0]      # above: failure
    # a tie: the remainder 2**125 - head * den over den decides with the next block
    rem = 2**63 * 2**62 - head * den
    head2 = (rem * 2**62) // den
    assert ks._bern_ratio(num, den, _Scripted([head, head2 - 1]))[0]
    assert not ks._bern_ratio(num, den, _Scripted([head, head2 + 1]))[0]


def test_geometric_exp_minus_one(chi2_pvalue):
    v = ks._geometric_exp_minus_one(N, np.random.default_rng(4))
    pmf = lambda k: np.where(k >= 0, (1 - math.exp(-1)) * np.exp(-np.maximum(k, 0)), 0.0)  # noqa: E731
    assert chi2_pvalue(v, pmf) > ALPHA
    assert chi2_pvalue(v, lambda k: np.where(k >= 0, (1 - math.exp(-1.1)) * np.exp(-1.1 * np.maximum(k, 0)),
                                             0.0)) < ALPHA


# ---------------------------------------------------------------- discrete Laplace


@pytest.mark.parametrize("scale", [1, 0.5, 2.5, Fraction(7, 3), 0.1, 12])
def test_discrete_laplace_matches_its_pmf(scale, chi2_pvalue):
    x = discrete_laplace(scale, size=N, rng=11)
    assert x.dtype == np.int64
    assert chi2_pvalue(x, lambda k: discrete_laplace_pmf(k, scale)) > ALPHA
    if float(scale) >= 0.5:  # power: a sampler with the scale 10% off is rejected
        for wrong in (1.1 * float(scale), float(scale) / 1.1):
            assert chi2_pvalue(x, lambda k: discrete_laplace_pmf(k, wrong)) < ALPHA


def test_discrete_laplace_large_scale_by_moments():
    b = 10_000
    x = discrete_laplace(b, size=N, rng=12)
    p = math.exp(-1 / b)
    var = 2 * p / (1 - p) ** 2
    # |x| is geometric-like; its mean is 2p/(1-p^2); test the mean of |x| with a 5.3-sigma CLT bound
    m = 2 * p / (1 - p * p)
    sd = math.sqrt(var - m * m)
    assert abs(np.abs(x).mean() - m) < 5.3 * sd / math.sqrt(N)
    assert abs(np.abs(x).mean() - 1.1 * m) > 5.3 * sd / math.sqrt(N)


def test_discrete_laplace_pmf_is_normalised_and_exact():
    assert discrete_laplace_pmf(0, 1.0) == pytest.approx(math.tanh(0.5), rel=1e-15)
    ks = np.arange(-400, 401)
    assert discrete_laplace_pmf(ks, 4.0).sum() == pytest.approx(1.0, rel=1e-12)
    # ratio of neighbours is exactly e^{-1/scale}
    assert discrete_laplace_pmf(3, 2.0) / discrete_laplace_pmf(2, 2.0) == pytest.approx(math.exp(-0.5), rel=1e-14)


def test_float_scale_is_taken_at_its_exact_value():
    assert ks._as_fraction(0.1, "scale") == Fraction(3602879701896397, 2**55)
    assert ks._as_fraction(np.float64(2.5), "scale") == Fraction(5, 2)


def test_samplers_are_seeded_and_fresh():
    np.testing.assert_array_equal(discrete_laplace(3, size=50, rng=1), discrete_laplace(3, size=50, rng=1))
    assert not np.array_equal(discrete_laplace(3, size=50), discrete_laplace(3, size=50))
    assert not np.array_equal(discrete_gaussian(3, size=50), discrete_gaussian(3, size=50))
    assert isinstance(discrete_laplace(3, rng=0), int)
    assert discrete_laplace(3, size=(2, 3), rng=0).shape == (2, 3)
    assert discrete_laplace(3, size=0, rng=0).shape == (0,)


# ---------------------------------------------------------------- discrete Gaussian


@pytest.mark.parametrize("sigma", [1, 3, Fraction(5, 2), 3.7, 0.6, 20])
def test_discrete_gaussian_matches_its_pmf(sigma, chi2_pvalue):
    x = discrete_gaussian(sigma, size=N, rng=21)
    assert chi2_pvalue(x, lambda k: discrete_gaussian_pmf(k, sigma)) > ALPHA
    for wrong in (1.1 * float(sigma), float(sigma) / 1.1):
        assert chi2_pvalue(x, lambda k: discrete_gaussian_pmf(k, wrong)) < ALPHA


def test_discrete_gaussian_object_path_matches_pmf(chi2_pvalue):
    # sigma^2 = A/B with A >= 2**31 forces the exact Python-integer path of the acceptance test
    sigma = Fraction(2**17 + 1, 2**13)     # about 16
    x = discrete_gaussian(sigma, size=50_000, rng=22)
    assert chi2_pvalue(x, lambda k: discrete_gaussian_pmf(k, sigma)) > ALPHA
    assert chi2_pvalue(x, lambda k: discrete_gaussian_pmf(k, 1.1 * float(sigma))) < ALPHA


def test_discrete_gaussian_pmf_and_variance():
    for s in (0.5, 1.0, 3.0, 70.0):
        ks = np.arange(-int(40 * s) - 2, int(40 * s) + 3)
        p = discrete_gaussian_pmf(ks, s)
        assert p.sum() == pytest.approx(1.0, rel=1e-12)
        # the variance is below sigma^2; the gap is about e^{-2 pi^2 sigma^2}, visible in floats for sigma < 2
        var = (p * ks**2).sum()
        assert var < s * s if s < 2 else var <= s * s * (1 + 1e-12)


def test_discrete_gaussian_delta_against_brute_force():
    eps, s = 0.8, 2.0
    ks = np.arange(-200, 201)
    for sens in (1, 2, 3):
        brute = max(float(np.maximum(0, discrete_gaussian_pmf(ks, s)
                                     - math.exp(eps) * discrete_gaussian_pmf(ks - m, s)).sum())
                    for m in range(1, sens + 1))
        assert discrete_gaussian_delta(eps, s, sens) == pytest.approx(brute, rel=1e-10)
    # close to the continuous Gaussian's delta for sigma >= 2 (but not always below it: at sigma = 2 it is
    # 0.0176 against 0.0169, which is why the secure Gaussian is calibrated by zCDP, not by the analytic sigma)
    for s in (2.0, 5.0):
        assert discrete_gaussian_delta(eps, s, 1) == pytest.approx(dpcourse.gaussian_delta(eps, 1.0 / s), rel=0.05)
    assert discrete_gaussian_delta(eps, 2.0, 1) > dpcourse.gaussian_delta(eps, 0.5)


# ---------------------------------------------------------------- geometric mechanism


def test_geometric_mechanism_noise_and_types(chi2_pvalue):
    out = geometric_mechanism(7, 2, 0.9, size=N, rng=31)
    assert out.dtype == np.int64
    assert chi2_pvalue(out - 7, lambda k: discrete_laplace_pmf(k, 2 / 0.9)) > ALPHA
    assert chi2_pvalue(out - 7, lambda k: discrete_laplace_pmf(k, 1 / 0.9)) < ALPHA  # ignoring sensitivity
    assert isinstance(geometric_mechanism(7, 1, 1.0, rng=0), int)
    assert geometric_mechanism(np.arange(4), 1, 1.0, rng=0).shape == (4,)


def test_geometric_mechanism_exact_privacy_loss():
    # outputs of neighbours 0 and Delta: the log pmf ratio is at most eps, attained, for every output
    eps, sens = 0.7, 3
    ys = np.arange(-60, 61)
    b = sens / eps
    loss = np.log(discrete_laplace_pmf(ys, b) / discrete_laplace_pmf(ys - sens, b))
    assert np.abs(loss).max() == pytest.approx(eps, rel=1e-12)


def test_geometric_mechanism_rounds_scale_up_only():
    # eps = 1e-5 has a 69-bit denominator; the scale is rounded up (more noise), never down
    scale = ks._round_up(Fraction(1) / Fraction(1e-5))
    assert scale >= Fraction(1) / Fraction(1e-5)
    assert scale - Fraction(1) / Fraction(1e-5) < Fraction(1, 2**40)
    assert geometric_mechanism(0, 1, 1e-5, size=3, rng=0).shape == (3,)


# ---------------------------------------------------------------- lattice releases


def test_rounding_lemma_on_random_pairs():
    # lemma lem-lattice-rounding: l1 distance of rounded points <= floor(D / g) + dim, g a power of two
    gen = np.random.default_rng(41)
    for g in (0.5, 0.25, 1.0):
        for dim in (1, 3):
            x = gen.uniform(-5, 5, size=(20_000, dim))
            step = gen.uniform(-1, 1, size=(20_000, dim))
            step /= np.abs(step).sum(axis=1, keepdims=True)
            radius = gen.uniform(0, 2, size=(20_000, 1))
            y = x + step * radius
            d_true = np.abs(y - x).sum(axis=1)
            d_round = np.abs(np.rint(y / g) - np.rint(x / g)).sum(axis=1)
            assert (d_round <= np.floor(d_true / g + 1e-12) + dim).all()
            # and the "+ dim" is needed: some pair uses more than floor(D / g) steps
            assert (d_round > np.floor(d_true / g + 1e-12)).any()


@pytest.mark.parametrize("sens, eps, dim, spacing", [(1.0, 1.0, 1, 0.5), (0.75, 0.3, 1, 0.25), (2.0, 1.5, 3, 0.5),
                                                     (1.0, 1.0, 1, None), (3.0, 0.1, 100, None)])
def test_laplace_lattice_charges_the_rounding(sens, eps, dim, spacing):
    lat = laplace_lattice(sens, eps, dim=dim, spacing=spacing)
    g = Fraction(lat.spacing)
    assert lat.spacing == 2.0**lat.exponent
    steps = math.floor(Fraction(sens) / g) + dim           # independent computation of the charge
    assert lat.lattice_sensitivity == steps
    assert lat.lattice_scale >= Fraction(steps) / Fraction(eps)  # epsilon holds exactly
    assert lat.lattice_scale <= Fraction(steps) / Fraction(eps) * (1 + Fraction(1, 2**30))
    assert lat.noise_scale >= sens / eps


def test_secure_laplace_worst_pair_exact_loss():
    # forced coarse lattice: neighbours at distance exactly Delta, placed to maximise the rounded distance
    sens, eps, g = 0.75, 1.0, 0.5
    lat = laplace_lattice(sens, eps, spacing=g)
    xs = np.linspace(-3, 3, 6001)
    worst = np.abs(np.rint((xs + sens) / g) - np.rint(xs / g)).max()
    assert worst == lat.lattice_sensitivity                 # the charge is attained, not loose
    # the exact log-ratio of the output pmfs at the worst shift is worst / t <= eps
    t = float(lat.lattice_scale)
    ys = np.arange(-50, 51)
    loss = np.log(discrete_laplace_pmf(ys, t) / discrete_laplace_pmf(ys - int(worst), t))
    assert np.abs(loss).max() <= eps + 1e-12


def test_secure_laplace_noise_distribution(chi2_pvalue):
    # value 0.3, forced lattice: output / g - round(0.3 / g) is discrete Laplace with the charged scale
    value, sens, eps = 0.3, 1.0, 1.0
    lat = laplace_lattice(sens, eps, dim=1)
    out = dpcourse.laplace_mechanism(np.full(1, value), sens, eps, rng=51)
    assert out.dtype == np.float64
    big = dpcourse.laplace_mechanism(np.full(N, value), sens, eps, rng=52)
    lat_n = laplace_lattice(sens, eps, dim=N)
    steps = big / lat_n.spacing
    assert (steps == np.rint(steps)).all()                  # every output is a multiple of the spacing
    noise = steps - np.rint(value / lat_n.spacing)
    # noise in units of the effective scale is Laplace(1): KS (the lattice is 2**-20 of a scale or finer)
    assert stats.kstest(noise * lat_n.spacing / lat_n.noise_scale, stats.laplace().cdf).pvalue > ALPHA
    assert stats.kstest(noise * lat_n.spacing / (1.1 * lat_n.noise_scale), stats.laplace().cdf).pvalue < ALPHA
    assert lat.noise_scale == pytest.approx(sens / eps, rel=2e-6)


def test_secure_laplace_neighbours_share_one_lattice_with_full_support():
    # the observable contract: outputs of neighbours lie on the same lattice and none is impossible
    a = dpcourse.laplace_mechanism(np.zeros(20_000), 1.0, 1.0, rng=61)
    b = dpcourse.laplace_mechanism(np.ones(20_000), 1.0, 1.0, rng=62)
    g = laplace_lattice(1.0, 1.0, dim=20_000).spacing
    for out in (a, b):
        assert (out / g == np.rint(out / g)).all()
    # every output of either input is reachable from the other, with a log pmf ratio of at most eps:
    # in lattice steps the ratio is (|y - r1| - |y - r0|) / t, finite for every integer y
    lat = laplace_lattice(1.0, 1.0, dim=20_000)
    t = float(lat.lattice_scale)
    r0, r1 = 0.0, np.rint(1.0 / g)
    for out in (a, b):
        steps = out / g
        loss = (np.abs(steps - r1) - np.abs(steps - r0)) / t
        assert np.abs(loss).max() <= 1.0 + 1e-12


def test_secure_dp_mean_and_histogram_types():
    m = dpcourse.dp_mean([1.0, 2.0, 3.0], 0.0, 4.0, 1.0, rng=0)
    lat = laplace_lattice(4.0 / 3, 1.0)
    assert m / lat.spacing == round(m / lat.spacing)
    h = dpcourse.dp_histogram([0, 1, 1], 1.0, relation="replace_one", categories=[0, 1, 2], rng=0)
    assert h.dtype == np.int64


def test_secure_and_textbook_paths_differ_in_kind():
    textbook = dpcourse.laplace_mechanism(np.zeros(1000), 1.0, 1.0, rng=0, secure=False)
    g = laplace_lattice(1.0, 1.0, dim=1000).spacing
    assert (textbook / g != np.rint(textbook / g)).mean() > 0.99   # float noise is off the lattice


# ---------------------------------------------------------------- secure Gaussian


def test_gaussian_lattice_privacy_by_two_routes():
    eps, delta = 1.0, 1e-5
    lat = gaussian_lattice(1.0, eps, delta)
    assert lt._zcdp_epsilon(lat.rho, delta) <= eps
    # independent check of the zCDP conversion: the continuous Gaussian with mu = sqrt(2 rho) is
    # rho-zCDP, so its exact delta at eps can be no larger than the converted delta
    assert dpcourse.gaussian_delta(eps, math.sqrt(2 * lat.rho)) <= delta
    # charged sensitivity: l2 sensitivity / g + sqrt(dim)
    assert lat.lattice_sensitivity >= 1.0 / lat.spacing + 1
    # the price of the zCDP route against the analytic sigma, stated in the docstring
    ratio = lat.noise_sigma / dpcourse.analytic_gaussian_sigma(eps, delta, 1.0)
    assert 1.0 < ratio < 1.2


def test_secure_gaussian_exact_delta_on_a_coarse_lattice():
    # spacing 1 and integer sensitivity 1: the lattice sensitivity is 1 + 1 = 2 steps; the exact delta of
    # the discrete Gaussian with the chosen variance at shift <= 2 is below the target
    eps, delta = 1.0, 1e-5
    lat = gaussian_lattice(1.0, eps, delta, spacing=1.0)
    assert lat.lattice_sensitivity == pytest.approx(2.0)
    exact = discrete_gaussian_delta(eps, math.sqrt(lat.lattice_variance), 2)
    assert exact <= delta
    # and too little variance would break it: a quarter of the variance fails
    assert discrete_gaussian_delta(eps, math.sqrt(lat.lattice_variance / 4), 2) > delta


def test_secure_gaussian_noise_distribution():
    n = 100_000
    out = dpcourse.gaussian_mechanism(np.full(n, 2.0), 1.0, 1.0, 1e-5, rng=71)
    lat = gaussian_lattice(1.0, 1.0, 1e-5, dim=n)
    assert (out / lat.spacing == np.rint(out / lat.spacing)).all()
    noise = out - 2.0
    assert stats.kstest(noise / lat.noise_sigma, "norm").pvalue > ALPHA
    assert stats.kstest(noise / (1.1 * lat.noise_sigma), "norm").pvalue < ALPHA


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("call, exc, word", [
    (lambda: discrete_laplace(0), ValueError, "scale"),
    (lambda: discrete_laplace(-1.5), ValueError, "scale"),
    (lambda: discrete_laplace(float("nan")), ValueError, "scale"),
    (lambda: discrete_laplace(float("inf")), ValueError, "scale"),
    (lambda: discrete_laplace(True), TypeError, "scale"),
    (lambda: discrete_laplace("2"), TypeError, "scale"),
    (lambda: discrete_laplace(1e-30), ValueError, "scale"),
    (lambda: discrete_laplace(1.0, size=-1), ValueError, "size"),
    (lambda: discrete_laplace(1.0, size=2.5), TypeError, "size"),
    (lambda: discrete_gaussian(0.0), ValueError, "sigma"),
    (lambda: discrete_gaussian(np.array(True, dtype=object)), TypeError, "sigma"),
    (lambda: geometric_mechanism(1.5, 1, 1.0), TypeError, "value"),
    (lambda: geometric_mechanism(True, 1, 1.0), TypeError, "value"),
    (lambda: geometric_mechanism(1, 1.5, 1.0), TypeError, "sensitivity"),
    (lambda: geometric_mechanism(1, 1, float("nan")), ValueError, "epsilon"),
    (lambda: geometric_mechanism([1, 2], 1, 1.0, size=3), ValueError, "size"),
    (lambda: dpcourse.laplace_mechanism(1.0, 1.0, 1.0, secure=1), TypeError, "secure"),
    (lambda: dpcourse.laplace_mechanism(1.0, 1e-300, 1e10), ValueError, "too fine"),
    (lambda: dpcourse.gaussian_mechanism(1.0, 1.0, 1.0, 1e-5, secure="yes"), TypeError, "secure"),
    (lambda: dpcourse.dp_histogram([1], 1.0, relation="add_remove", categories=[1], secure=None), TypeError, "secure"),
    (lambda: laplace_lattice(1.0, 1.0, spacing=0.3), ValueError, "power of two"),
    (lambda: discrete_gaussian_delta(-1.0, 1.0), ValueError, "epsilon"),
    (lambda: discrete_gaussian_delta(1.0, 1.0, 0), ValueError, "sensitivity"),
])
def test_bad_input_is_refused_by_name(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


# ---------------------------------------------------------------- values of any size (issue 21)


@pytest.mark.parametrize("value, clamped", [
    (2**64 - 1, 2**61), (2**64, 2**61), (10**400, 2**61), (-(2**63) - 1, -(2**61)), (-(10**400), -(2**61)),
])
def test_geometric_mechanism_clamps_python_ints_of_any_size(value, clamped):
    # 2**64 - 1 (stored as uint64) and 2**64 (a Python object) are neighbours: both are released, and
    # exactly as the clamped value is (same seed, same noise), never refused with a TypeError.
    got = dpcourse.geometric_mechanism(value, 1, 0.5, rng=11, size=50)
    assert np.array_equal(got, dpcourse.geometric_mechanism(clamped, 1, 0.5, rng=11, size=50))
    mixed = dpcourse.geometric_mechanism([value, 3], 1, 0.5, rng=12)
    assert np.array_equal(mixed, dpcourse.geometric_mechanism([clamped, 3], 1, 0.5, rng=12))


def test_geometric_mechanism_object_arrays_must_hold_integers():
    for bad in ([2**64, 1.5], [2**64, True], [2**64, "7"]):
        with pytest.raises(TypeError, match="value must hold integers only"):
            dpcourse.geometric_mechanism(bad, 1, 1.0, rng=0)


# ---------------------------------------------------------------- the module split (issue 38)


def test_lattice_release_refuses_broken_arguments_without_quoting_values():
    # Public since it is in __all__: a NaN value used to come back as -2**63 steps (a cast of NaN), float noise was
    # truncated silently, and noise of another shape was broadcast.
    with pytest.raises(ValueError, match="values must be finite") as err:
        lt.lattice_release([1.0, 7.123456, math.nan], -2, [0, 0, 0])
    assert "7.123456" not in str(err.value)
    with pytest.raises(ValueError, match="values must be finite"):
        lt.lattice_release(np.array([math.inf]), 0, np.array([1]))
    with pytest.raises(TypeError, match="noise must hold integers"):
        lt.lattice_release([1.0], -2, [0.5])
    with pytest.raises(TypeError, match="noise must hold integers"):
        lt.lattice_release([1.0], -2, [True])
    with pytest.raises(ValueError, match="noise must have the shape of values"):
        lt.lattice_release([1.0, 2.0], -2, [1])
    for exponent, exc in ((True, TypeError), (1.0, TypeError), (-1075, ValueError), (1024, ValueError)):
        with pytest.raises(exc, match="exponent"):
            lt.lattice_release([1.0], exponent, [0])
    with pytest.raises(TypeError, match="values must be real"):
        lt.lattice_release(["1.0"], 0, [0])
    # valid arguments are released as before: the ends of the exponent range, int values, 0-d arrays
    assert lt.lattice_release([0.3, 1.3], -2, [0, 1]).tolist() == [0.25, 1.5]
    assert lt.lattice_release(np.asarray(3), 0, np.asarray(-1, dtype=np.int64)) == 2.0
    assert lt.lattice_release([5e-324], -1074, [1]).tolist() == [1e-323]
    assert lt.lattice_release([2.0**1023], 1023, [-1]).tolist() == [0.0]


def test_every_moved_name_is_still_importable_from_discrete():
    # dpcourse.discrete keeps every name other modules, tests and the chapters import from it, as the same object.
    from dpcourse import discrete as dm
    for name in ("_dlap", "_dlap1", "_dlap_vector", "_dgauss1", "_dgauss_vector", "_dgauss_from_variance", "_round_up",
                 "_check_terms", "_release_uniforms", "_WORD_BITS", "_bern_ratio", "_bern_ratio1", "_bern_exp",
                 "_bern_exp1", "_bern_exp_fraction", "_bern_exp_fraction1", "_bern_exp_minus_one1", "_scale_terms",
                 "_shape", "_as_fraction", "_checked_sum", "_geometric_exp_minus_one", "SCALE_LIMIT", "VALUE_LIMIT"):
        assert getattr(dm, name) is getattr(ks, name), name
    for name in ("LaplaceLattice", "GaussianLattice", "laplace_lattice", "gaussian_lattice", "lattice_release",
                 "_laplace_lattice", "_lattice_steps", "_power_of_two_at_most", "_zcdp_epsilon", "_zcdp_rho_for",
                 "_release1"):
        assert getattr(dm, name) is getattr(lt, name), name
    assert dpcourse.laplace_lattice is lt.laplace_lattice and dpcourse.discrete_laplace is dm.discrete_laplace
    assert set(lt.__all__) <= set(dm.__all__)
    # the secure helpers are private now (issue 38, item 5): no public name without an underscore left behind
    assert not [n for n in vars(lt) if n.startswith(("secure_", "plain_scalar"))]
    assert not [n for n in vars(dm) if n.startswith(("secure_", "plain_scalar"))]


@pytest.mark.parametrize("name", ["discrete_laplace", "discrete_laplace_pmf", "discrete_gaussian",
                                  "discrete_gaussian_pmf", "discrete_gaussian_delta", "geometric_mechanism",
                                  "laplace_lattice", "gaussian_lattice", "lattice_release", "LaplaceLattice",
                                  "GaussianLattice"])
def test_public_docstrings_follow_the_rule(name):
    from test_docstrings import problems
    from dpcourse import discrete as dm
    assert problems(getattr(dm, name)) == [], name
