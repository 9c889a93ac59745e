"""The one-draw paths of the secure samplers and the vectorized exact clamped sum (issue 24, "fast per call").

A release of one value draws its noise with ``_dlap1`` / ``_dgauss1`` (Python integers), the n = 1 case of
the vectorized samplers step by step, asking its uniform integers of ``_release_uniforms``: exact uniforms on
{0, ..., k-1} by rejection from the raw words of the bit generator (64 bits, 32 for MT19937; lemma
``noise-lem-word-uniform`` of the noise chapter). Tested here, for every bit generator:

* the source reads the raw bits exactly as the lemma says (b = bitlength(k - 1) bits, lowest first,
  accepted if below k), and its uniforms and the scalar releases have their exact laws (chi-square at
  alpha = 1e-6); nothing is carried from one release to the next;
* given ``Generator.integers`` as their source, the one-draw functions make the very draws of the
  vectorized samplers for n = 1, on every branch (int64 and exact-integer Bernoulli trials, the 62-bit lazy
  comparison, the minus-zero rejection): they are the same algorithm, and ``_dgauss_vector`` relies on it
  for its rounds with one sample left;
* a scalar release equals the release of an array of one value (both are one-draw paths).

``dp_mean``'s clamped sum must be ``math.fsum``'s, the correctly rounded exact sum.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import dpcourse
from dpcourse import _sampling, discrete, lattice
from dpcourse.laplace import _clamped_sum

from exact_references import lemma_uniforms

BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
WORD_BITS = {"MT19937": 32}          # bits per random_raw() word; 64 for the other four
ALPHA = 1e-6


def _pair(name, seed):
    return tuple(np.random.Generator(getattr(np.random, name)(seed)) for _ in range(2))


def _same_state(g, h):
    return g.integers(0, 2**62, size=4).tolist() == h.integers(0, 2**62, size=4).tolist()


def _lemma_uniforms(words, width, ks):
    """The uniforms of lemma noise-lem-word-uniform, computed from the words' binary digits as strings."""
    return lemma_uniforms(words, width, ks)


# ranges: powers of two (no rejection), 1 (no bits), just above a power of two (most rejections), wide ones
SOURCE_RANGES = [2, 3, 5, 8, 1, 6, 7, 1000, 1024, 1025, 2**31 + 1, 2**32, 3 * 2**40, 2**62, 2**62 - 1, 17, 4, 2]


@pytest.mark.parametrize("name", BIT_GENERATORS)
def test_release_uniforms_read_the_raw_bits_as_the_lemma_says(name):
    width = WORD_BITS.get(name, 64)
    for seed in range(10):
        g, h = _pair(name, seed)
        ks = SOURCE_RANGES * 3
        draw = _sampling._release_uniforms(g)
        got = [draw(k) for k in ks]
        expected, used = _lemma_uniforms(h.bit_generator.random_raw(2000).tolist(), width, ks)
        assert got == expected, (name, seed)
        h = _pair(name, seed)[1]
        h.bit_generator.random_raw(used)
        assert _same_state(g, h)                  # and it drew no word more than it needed


@pytest.mark.parametrize("name", BIT_GENERATORS)
def test_release_uniforms_are_uniform(name):
    from scipy import stats
    draw = _sampling._release_uniforms(np.random.Generator(getattr(np.random, name)(24)))
    for k, n in ((3, 3000), (5, 3000), (6, 3000), (12, 6000), (100, 20000)):
        counts = np.bincount([draw(k) for _ in range(n)], minlength=k)
        assert counts.size == k and stats.chisquare(counts).pvalue > ALPHA, (name, k)
    # wide ranges, by their top digits in base 2**40: uniform on {0, 1, 2}, and on {0, 1, 2, 3} below 2**62
    for k, unit in ((3 * 2**40, 2**40), (2**62, 2**60)):
        counts = np.bincount([draw(k) // unit for _ in range(3000)])
        assert counts.size == k // unit and stats.chisquare(counts).pvalue > ALPHA, (name, k)


def test_release_uniforms_refuse_an_empty_range(monkeypatch):
    # gen.integers(0) raises; the word source must too, not reject forever. A scripted 64-bit bit generator
    # with 8 words (the loop would run out of them) stands in for numpy's.
    class Words:
        def __init__(self):
            self.words = [2**64 - 1] * 8

        def random_raw(self):
            return self.words.pop()

    monkeypatch.setitem(_sampling._WORD_BITS, Words, 64)
    for k in (0, -1, -(2**70)):
        gen = type("G", (), {"bit_generator": Words()})()
        with pytest.raises(ValueError, match="k >= 1"):
            _sampling._release_uniforms(gen)(k)
    with pytest.raises(ValueError):
        np.random.default_rng(0).integers(0)


@pytest.mark.parametrize("name", BIT_GENERATORS)
def test_scalar_releases_have_their_exact_laws(name, chi2_pvalue):
    # One release at a time (the path under test), 20 000 of each; the pmfs are the exact ones.
    g = np.random.Generator(getattr(np.random, name)(2024))
    x = np.array([discrete.discrete_laplace(2.5, rng=g) for _ in range(20000)])
    assert chi2_pvalue(x, lambda k: discrete.discrete_laplace_pmf(k, 2.5)) > ALPHA
    assert chi2_pvalue(x, lambda k: discrete.discrete_laplace_pmf(k, 2.75)) < ALPHA     # the test has power
    y = np.array([discrete.discrete_gaussian(3, rng=g) for _ in range(20000)])
    assert chi2_pvalue(y, lambda k: discrete.discrete_gaussian_pmf(k, 3)) > ALPHA
    assert chi2_pvalue(y, lambda k: discrete.discrete_gaussian_pmf(k, 3.3)) < ALPHA
    z = np.array([discrete.geometric_mechanism(-4, 2, 1.5, rng=g) for _ in range(10000)])  # scale 4/3
    assert chi2_pvalue(z + 4, lambda k: discrete.discrete_laplace_pmf(k, Fraction(4, 3))) > ALPHA


@pytest.mark.parametrize("name", ["MT19937", "PCG64"])
def test_scalar_discrete_gaussian_on_the_exact_integer_path_has_its_law(name, chi2_pvalue):
    # sigma = 100.3 is 7058...·2**-46 exactly: sigma^2 has terms beyond 64 bits, so the acceptance test
    # draws 62-bit uniforms (two raw words of MT19937 each)
    g = np.random.Generator(getattr(np.random, name)(7))
    y = np.array([discrete.discrete_gaussian(100.3, rng=g) for _ in range(20000)])
    assert chi2_pvalue(y, lambda k: discrete.discrete_gaussian_pmf(k, 100.3)) > ALPHA


def test_a_release_carries_no_bits_to_the_next():
    # Its source lives for one release: what a release returns depends on the generator's state only, not
    # on the releases made before with another generator (leftover bits are discarded).
    for name in BIT_GENERATORS:
        for seed in range(10):
            g, h = _pair(name, seed)
            other = np.random.Generator(getattr(np.random, name)(seed + 100))
            a = [discrete.discrete_laplace(2.5, rng=g), discrete.discrete_gaussian(3, rng=g)]
            b = [discrete.discrete_laplace(2.5, rng=h)]
            discrete.discrete_laplace(Fraction(7, 3), rng=other)
            b.append(discrete.discrete_gaussian(3, rng=h))
            assert a == b and _same_state(g, h)


def test_other_bit_generators_draw_with_integers():
    # A bit generator that is not one of numpy's five by exact type gets Generator.integers: the release is
    # then the vectorized sampler's draw for n = 1.
    class Sub(np.random.PCG64):
        pass

    t, s = _sampling._scale_terms(2.5)
    for seed in range(10):
        g = np.random.Generator(Sub(seed))
        h = np.random.Generator(np.random.PCG64(seed))
        assert discrete.discrete_laplace(2.5, rng=g) == int(_sampling._dlap_vector(t, s, 1, h)[0])
        assert _same_state(g, h)


@pytest.mark.parametrize("name", BIT_GENERATORS)
def test_draws_of_one_value_and_of_size_zero_consume_nothing(name):
    # The one-draw paths skip these calls of the vectorized code; that is only right if they draw nothing.
    g, h = _pair(name, 7)
    g.integers(0, 1)
    g.integers(0, 1, size=3)
    g.integers(0, 2, size=0)
    g.integers(0, 2**62, size=0)
    assert _same_state(g, h)


def test_one_draw_exponential_coins_have_their_law():
    # Bernoulli(exp(-1/2)) and Bernoulli(exp(-1)), 20000 trials each, two-sided binomial test at alpha = 1e-6,
    # with either source of uniforms.
    from scipy import stats
    gen = np.random.default_rng(11)
    for draw in (gen.integers, _sampling._release_uniforms(gen)):
        heads = sum(_sampling._bern_exp_fraction1(1, 2, False, draw) for _ in range(20000))
        assert stats.binomtest(heads, 20000, math.exp(-0.5)).pvalue > ALPHA
        heads = sum(_sampling._bern_exp_minus_one1(draw) for _ in range(20000))
        assert stats.binomtest(heads, 20000, math.exp(-1.0)).pvalue > ALPHA


# (t, s): small and large scales, t beyond 2**31 (64-bit draws), den * k beyond int64 (the split trial).
DLAP_TERMS = [(1, 1), (1, 3), (5, 2), (7, 3), (1048577, 1), (3, 10**6), (2**61 + 1, 3), (2**62 - 1, 2**61 + 5)]


@pytest.mark.parametrize("name", BIT_GENERATORS)
@pytest.mark.parametrize("t,s", DLAP_TERMS)
def test_one_draw_discrete_laplace_with_integers_is_the_vectorized_draw(name, t, s):
    for seed in range(20):
        g, h = _pair(name, seed)
        assert _sampling._dlap1(t, s, g.integers) == int(_sampling._dlap_vector(t, s, 1, h)[0]), (seed, t, s)
        assert _same_state(g, h)


# sigma^2 = a/b: the int64 path (small a), the exact-integer path (a >= 2**31 or a huge denominator), and
# sigma^2 < 1 where a sample with |y| = 0 or 1 mixes both.
DGAUSS_VARIANCES = [Fraction(1, 4), Fraction(1), Fraction(9), Fraction(729, 100), Fraction(10**8),
                    Fraction(2**40 + 1, 3), Fraction(3**30, 2**45), Fraction(12345678901234567, 10**6)]


@pytest.mark.parametrize("name", BIT_GENERATORS)
@pytest.mark.parametrize("var", DGAUSS_VARIANCES)
def test_one_draw_discrete_gaussian_with_integers_is_the_vectorized_draw(name, var):
    for seed in range(15):
        g, h = _pair(name, seed)
        one = _sampling._dgauss1(var.numerator, var.denominator, g.integers)
        assert one == int(_sampling._dgauss_vector(var, 1, h)[0]), (seed, var)
        assert _same_state(g, h)


def test_lazy_bernoulli_ties_are_resolved_as_vectorized():
    # A tie of the 62-bit comparison has probability 2**-62: force it with a generator whose draws repeat.
    class Fixed:
        def __init__(self, values):
            self.values = list(values)

        def __call__(self, *args, size=None):
            v = self.values.pop(0)
            return np.full(size, v, dtype=np.int64) if size is not None else np.int64(v)

    den = 3 * 2**62 + 1
    num = 2**62
    head = (num << 62) // den
    rest = (num << 62) - head * den
    head2 = (rest << 62) // den
    for second in (head2 - 1, head2, head2 + 1):
        draws = [head, second] + ([0] if second == head2 else [])
        one = _sampling._bern_ratio1(num, den, True, Fixed(draws))
        gen = type("G", (), {"integers": Fixed(draws)})()
        assert one == bool(_sampling._bern_ratio(np.array([num], dtype=object), den, gen)[0])


@pytest.mark.parametrize("name", BIT_GENERATORS)
def test_scalar_releases_equal_the_array_releases(name):
    # An array of one value takes the one-draw path too (one rule for a single draw).
    # value, sensitivity, epsilon: ties of the rounding, tiny and huge values (clamped at 2**61 steps).
    cases = [(3.0, 1.0, 1.0), (0.5 * 2.0**-20, 1.0, 1.0), (1.5 * 2.0**-20, 1.0, 1.0), (-2.5 * 2.0**-20, 1.0, 1.0),
             (1e300, 1.0, 1.0), (2.0**42, 1.0, 1.0), (-1e300, 1e-3, 2.0), (5e-324, 1e-280, 0.5), (-0.0, 2.0, 0.1),
             (7.0, 1e6, 1e-3)]
    for seed in range(5):
        for value, sens, eps in cases:
            g, h = _pair(name, seed)
            one = dpcourse.laplace_mechanism(value, sens, eps, rng=g)
            arr = dpcourse.laplace_mechanism(np.array([value]), sens, eps, rng=h)[0]
            assert one == arr and type(one) is float
            assert _same_state(g, h)
            g, h = _pair(name, seed)
            one = dpcourse.gaussian_mechanism(value, sens, eps, 1e-6, rng=g)
            assert one == dpcourse.gaussian_mechanism(np.array([value]), sens, eps, 1e-6, rng=h)[0]
            assert _same_state(g, h)


def test_release_of_one_value_rounds_and_clamps_like_the_array_path():
    for exponent in (-20, -1, 0, 3, 40, -1070, 1000):
        for x in (0.5, 1.5, 2.5, -0.5, -3.5, 1e308, -1e308, 2.0**70, 2.0**62, -(2.0**62), 5e-324, 0.0, 123.456):
            for noise in (0, 1, -1, 2**40, -(2**61)):
                with np.errstate(over="ignore"):   # a result beyond the float range is inf on both paths
                    expected = float(lattice.lattice_release(np.asarray(x), exponent, np.asarray(noise)))
                    assert lattice._release1(x, exponent, noise) == expected, (x, exponent, noise)
    with pytest.raises(OverflowError):   # 2**61 steps plus 2**62 - 1 of noise leave int64: refused, not wrapped
        lattice._release1(1e300, 0, 2**63 - 2**61)


def test_geometric_scalar_int_is_clamped_like_an_array():
    for value in (2**61 + 1, 2**70, -(2**80), 2**64 - 1):
        a = discrete.geometric_mechanism(value, 1, 40.0, rng=3)
        b = discrete.geometric_mechanism([value], 1, 40.0, rng=3)[0]
        assert a == b and abs(a) <= 2**61 + 2


def test_cached_parameters_keep_bool_and_type_refusals():
    discrete.discrete_laplace(1, rng=0)
    discrete.discrete_gaussian(1, rng=0)
    with pytest.raises(TypeError):
        discrete.discrete_laplace(True, rng=0)
    with pytest.raises(TypeError):
        discrete.discrete_gaussian(True, rng=0)
    dpcourse.laplace_lattice(1, 1)
    with pytest.raises(TypeError):
        dpcourse.laplace_lattice(True, 1)
    assert dpcourse.laplace_lattice(1, 2) == dpcourse.laplace_lattice(1.0, 2.0)
    # gaussian_mechanism caches the checked lattice of a scalar release for plain ints and floats
    assert dpcourse.gaussian_mechanism(3.0, 1, 1, 1e-5, rng=0) == dpcourse.gaussian_mechanism(3.0, 1.0, 1.0, 1e-5, rng=0)
    for bad, exc, word in (((True, 1, 1e-5), TypeError, "l2_sensitivity"), ((1, 1, 0), ValueError, "delta = 0"),
                           ((1, 1, 0.0), ValueError, "delta = 0"), ((1, True, 1e-5), TypeError, "epsilon"),
                           ((1, 1, 1), ValueError, "delta"), ((1, np.float64("nan"), 1e-5), ValueError, "epsilon")):
        for _ in range(2):                                           # a refusal is never cached as a lattice
            with pytest.raises(exc, match=word):
                dpcourse.gaussian_mechanism(3.0, *bad, rng=0)


# ---- the exact clamped sum of dp_mean


def _fsum(x, lo, hi):
    return math.fsum(np.clip(x, lo, hi).tolist())


def test_clamped_sum_is_fsum_on_mixed_magnitudes():
    rng = np.random.default_rng(24)
    for _ in range(300):
        n = int(rng.integers(1, 2000))
        x = rng.normal(0, 10, n) * 10.0 ** rng.integers(-40, 40, n)
        x[rng.integers(0, n, 3)] = 5e-324
        lo, hi = sorted(rng.normal(0, 10, 2) * 10.0 ** rng.integers(-8, 8, 2))
        if lo < hi:
            assert _clamped_sum(x, lo, hi) == _fsum(x, lo, hi)


def test_clamped_sum_is_fsum_across_blocks_and_at_the_extremes():
    rng = np.random.default_rng(5)
    x = rng.normal(5, 3, 200_003)
    assert _clamped_sum(x, 0.0, 10.0) == _fsum(x, 0.0, 10.0)
    assert _clamped_sum(x, -1e-300, 1e-300) == _fsum(x, -1e-300, 1e-300)    # every value clamped, tiny
    assert _clamped_sum(x * 1e300, -2.0**999, 2.0**999) == _fsum(x * 1e300, -2.0**999, 2.0**999)
    assert _clamped_sum(np.full(2**16 - 1, 15.999), -16.0, 16.0) == _fsum(np.full(2**16 - 1, 15.999), -16, 16)
    y = np.concatenate([x, -x])                                                   # exact cancellation: S = 0
    assert _clamped_sum(y, -20.0, 20.0) == 0.0


def test_clamped_sum_decides_ties_with_the_error_bound():
    # sum = 2**53 + 1 + 2**-60: the float sum of the remainders (1 + 2**-60 -> 1) lands on the tie
    # 2**53 + 1, which rounds to even (2**53); the exact sum rounds up to 2**53 + 2.
    x = np.array([2.0**53, 1.0, 2.0**-60])
    assert _fsum(x, 0.0, 2.0**53) == 2.0**53 + 2
    assert _clamped_sum(x, 0.0, 2.0**53) == 2.0**53 + 2


def test_clamped_sum_of_a_zero_sum_is_fsums_positive_zero():
    # an exact zero sum with n > 1 and tiny bounds: the error interval (-err, err) rounds to [-0.0, 0.0],
    # whose lower end is -0.0; fsum gives +0.0
    for x in ([-0.0, -0.0, -0.0], [1e-300, -1e-300], [-0.0], [-0.0, 1.0]):
        for lo, hi in ((-1e-300, 1e-300), (-2.0, 2.0)):
            assert _clamped_sum(np.array(x), lo, hi).hex() == _fsum(x, lo, hi).hex()


def test_dp_mean_releases_when_the_clamped_sum_overflows():
    # the exact sum of [hi, hi, hi] is beyond the float range, that of its neighbour [lo, lo, lo] is not: both
    # are released (fsum raised OverflowError for the first one), and the mean is the exact one rounded once
    big = float(np.finfo(np.float64).max) / 3
    lo, hi = big - 2.0**999, big + 2.0**999
    for x in ([lo, lo, lo], [hi, hi, lo], [hi, hi, hi]):
        assert math.isfinite(dpcourse.dp_mean(x, lo, hi, 1.0, rng=1))
        assert math.isfinite(dpcourse.dp_mean(x, lo, hi, 1.0, rng=1, secure=False))
    from dpcourse.laplace import _clamped_mean_query
    value, _ = _clamped_mean_query(np.array([hi, hi, lo]), lo, hi)
    assert value == float((2 * Fraction(hi) + Fraction(lo)) / 3)
