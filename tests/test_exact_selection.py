"""Exact (secure) selection and coins: laws (chi-square at 1e-6) under all five bit generators, the refinement
of undecided 53-bit draws, the charged epsilon of report noisy max on its lattice, and reachability."""

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcourse as dp
from dpcourse import exact_uniform as xu
from dpcourse import selection as sel

from exact_references import selection_lattice

ALPHA = 1e-6
BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64]
U = np.array([0.0, 1.0, 3.0, 2.5, -4.0])


def chi2_p(counts, probs):
    counts = np.asarray(counts, dtype=float)
    expected = counts.sum() * np.asarray(probs)
    keep = expected > 0
    assert counts[~keep].sum() == 0
    return stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() / expected[keep].sum()).pvalue


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=lambda b: b.__name__)
def test_secure_selection_laws_every_bit_generator(bit_generator):
    n = 20_000
    cases = [(dp.exponential_mechanism, dp.exponential_probabilities(U, 1.0, 1.0)),
             (dp.permute_and_flip, dp.permute_and_flip_probabilities(U, 1.0, 1.0)),
             (dp.report_noisy_max, dp.noisy_max_probabilities(U, 1.0, 1.0))]
    for i, (draw, law) in enumerate(cases):
        idx = draw(U, 1.0, 1.0, size=n, rng=np.random.Generator(bit_generator(40 + i)))
        assert chi2_p(np.bincount(idx, minlength=U.size), law) > ALPHA, draw.__name__


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=lambda b: b.__name__)
def test_secure_randomized_response_law_every_bit_generator(bit_generator):
    n, eps = 200_000, 0.7
    flips = dp.randomized_response(np.ones(n, dtype=np.int64), eps, rng=np.random.Generator(bit_generator(5)))
    t = dp.rr_truth_probability(eps)
    kept = int(flips.sum())
    assert chi2_p([kept, n - kept], [t, 1 - t]) > ALPHA


def test_secure_noisy_max_monotone_and_non_dyadic_sensitivity():
    n = 40_000
    for mono, sens in [(True, 1.0), (False, 0.3)]:
        idx = dp.report_noisy_max(U * sens, sens, 1.0, monotone=mono, size=n, rng=7)
        law = dp.noisy_max_probabilities(U * sens, sens, 1.0, monotone=mono)
        assert chi2_p(np.bincount(idx, minlength=U.size), law) > ALPHA


def test_refinement_of_an_undecided_draw_is_exact():
    # every draw starts at the 53-bit prefix k0 that straddles p: P(U < p | k0) = 2**53 p - k0 exactly
    gen = np.random.default_rng(3)
    n = 4000
    third = Fraction(1, 3)
    k0 = (1 << 53) // 3
    heads = xu.below(np.full((n, 1), k0, dtype=np.int64), np.array([k0]), np.array([k0 + 1]),
                     lambda j: (lambda prec: tuple([b] for b in xu.dyadic_bounds(third, prec))), gen)
    frac = float(third * (1 << 53) - k0)  # 2/3
    assert chi2_p([heads.sum(), n - heads.sum()], [frac, 1 - frac]) > ALPHA
    # a weight exp(-1): the fractional part of 2**53 e^-1, to 40 digits (a local context: a global one would
    # leak into the samplers' decimal arithmetic in later tests and hide a dependence on it)
    ctx = decimal.Context(prec=60)
    scaled = ctx.multiply(ctx.exp(decimal.Decimal(-1)), 1 << 53)
    k1 = int(scaled)
    p1 = float(scaled - k1)
    bounds = lambda prec: xu.exp_neg_bounds([(1, 1)], prec)  # noqa: E731
    heads = xu.below(np.full((n, 1), k1, dtype=np.int64), np.array([k1]), np.array([k1 + 1]), lambda j: bounds, gen)
    assert chi2_p([heads.sum(), n - heads.sum()], [p1, 1 - p1]) > ALPHA


def test_exp_bounds_are_valid_and_positive_far_out():
    ctx = decimal.Context(prec=400)
    for x in [Fraction(1, 3), Fraction(7), Fraction(745), Fraction(800), Fraction(40, 7)]:
        true = ctx.multiply(ctx.exp(ctx.divide(-x.numerator, x.denominator)), 1 << 1200)
        lo, hi = xu.exp_neg_bounds([(x.numerator, x.denominator)], 1200)
        assert lo[0] <= true <= hi[0] and hi[0] - lo[0] <= 2 and lo[0] > 0  # e^-800 > 0: not underflowed
    lo, hi = xu.exp_neg_bounds([(800, 1)], 53)
    assert lo == [0] and hi == [1]


def test_seeded_outputs_equal_the_float_code():
    u = np.random.default_rng(0).normal(0, 3, 40)
    for f in (dp.exponential_mechanism, dp.permute_and_flip):
        assert np.array_equal(f(u, 1.0, 1.0, rng=9, size=2000), f(u, 1.0, 1.0, rng=9, size=2000, secure=False))
    bits = np.arange(5000) % 2
    assert np.array_equal(dp.randomized_response(bits, 1.3, rng=2), dp.randomized_response(bits, 1.3, rng=2,
                                                                                          secure=False))


def test_noisy_max_lattice_charges_epsilon_honestly():
    # exact privacy loss of the secure law on neighbours (every score moved by at most the sensitivity)
    for sens, mono, shift in [(1.0, False, [1, -1, 1, -1, 0]), (0.3, False, [0.3, -0.3, 0.3, 0.0, -0.3]),
                              (1.0, True, [1, 1, 0, 1, 1])]:
        x = U * 2 * sens
        x2 = x + np.array(shift, dtype=float)
        for eps in (0.5, 2.0):
            p = dp.noisy_max_probabilities(x, sens, eps, monotone=mono)
            q = dp.noisy_max_probabilities(x2, sens, eps, monotone=mono)
            assert np.max(np.abs(np.log(p) - np.log(q))) <= eps * (1 + 1e-9)


def test_secure_law_differs_from_the_continuous_one_by_a_computed_amount():
    p = dp.noisy_max_probabilities(U, 1.0, 1.0)
    q = dp.noisy_max_probabilities(U, 1.0, 1.0, secure=False)
    tv = 0.5 * np.abs(p - q).sum()
    assert 0 < tv < 0.01  # lattice 2**-5 and discrete noise: close, not equal


def test_reachability_secure_zero_float_not():
    # outputs possible under one input and impossible under its neighbour, exactly (no sampling)
    counts = {}
    for secure in (True, False):
        for mech in ("exponential", "permute_and_flip", "noisy_max"):
            c = 0
            for g in np.concatenate((np.arange(0.0, 2000.0, 50.0), np.arange(70.0, 75.0, 0.5),
                                     np.arange(142.0, 146.0, 0.5), np.arange(1486.0, 1494.0, 0.5))):
                a = dp.selection_support([0.0, -g], 1.0, 1.0, mechanism=mech, secure=secure)
                b = dp.selection_support([0.0, -g - 1.0], 1.0, 1.0, mechanism=mech, secure=secure)
                c += int((a & ~b).sum() + (b & ~a).sum())
            counts[mech, secure] = c
    assert all(counts[m, True] == 0 for m in ("exponential", "permute_and_flip", "noisy_max"))
    assert all(counts[m, False] > 0 for m in ("exponential", "permute_and_flip", "noisy_max"))
    # randomized response: a flip is possible at every epsilon (t < 1 exactly), so both reports stay possible
    for eps in (1.0, 40.0, 700.0):
        lo, hi = xu.logistic_bounds(Fraction(eps), 53)
        assert hi < 1 << 53 or xu.logistic_bounds(Fraction(eps), 2048)[1] < 1 << 2048
    assert dp.rr_truth_probability(40.0) == 1.0  # the float coin never flips there


def test_secure_flag_and_bit_generator_refused():
    with pytest.raises(TypeError, match="secure"):
        dp.exponential_mechanism(U, 1.0, 1.0, secure=1)
    with pytest.raises(TypeError, match="secure"):
        dp.randomized_response([1, 0], 1.0, secure="yes")

    with pytest.raises(TypeError, match="bit generator"):
        xu.check_bit_generator(type("G", (), {"bit_generator": object()})())


def test_gap_cap_keeps_far_candidates_possible():
    gaps = sel._exact_gaps([0.0, -1e300], 1.0, 1.0, False, "u")
    assert Fraction(*gaps[1]) == sel.GAP_CAP


def test_float_table_bounds_bracket_exp():
    rng = np.random.default_rng(4)
    xs = [(int(a), int(b)) for a, b in zip(rng.integers(0, 2**40, 300), rng.integers(1, 2**30, 300))]
    xs += [(0, 1), (43, 1), (43 * 2**45 - 1, 2**45), (1, 3), (2**50, 3)]
    lo, hi = xu.exp_neg_float_bounds(xs)
    lo200, hi200 = xu.exp_neg_bounds(xs, 200)
    for a, b, L, H in zip(lo.tolist(), hi.tolist(), lo200, hi200):
        assert Fraction(a) <= Fraction(L, 2**200) and Fraction(b) >= Fraction(H, 2**200)
        assert Fraction(b) - Fraction(a) <= Fraction(H, 2**200) * 2**-40 + Fraction(1, 2**60)


def _independent_two_candidate_law(scores, sens, eps, monotone):
    """P(candidate 0 wins) of the secure report noisy max with two candidates, computed from the scores alone:
    lattice 2**(floor(log2 sens) - 5), D = ceil(sens / g) steps, discrete Laplace of scale k D / eps, ties to 0."""
    n, steps = selection_lattice(scores, sens)
    t = (1 if monotone else 2) * steps / eps
    half = int(40 * t) + 2
    z = np.arange(-half, half + 1)
    pmf = np.exp(-np.abs(z) / t)
    pmf /= pmf.sum()
    diff = np.convolve(pmf, pmf[::-1])  # law of Z1 - Z0 on [-2 half, 2 half]
    p0 = diff[: n[0] - n[1] + 2 * half + 1].sum()  # 0 wins iff Z1 - Z0 <= n0 - n1 (a tie goes to 0)
    return np.array([p0, 1.0 - p0])


def test_noisy_max_law_and_epsilon_against_an_independent_convolution():
    # scores just below a rounding edge of the lattice, ties, far tails; integer and non-integer sensitivities
    worst = 0.0
    for sens, eps, mono in [(1.0, 1.0, False), (1.0, 1.0, True), (0.3, 0.7, False), (3.7, 2.0, True)]:
        g = 2.0 ** (math.floor(math.log2(sens)) - 5)
        edge = 0.5 * g * (1 - 1e-9)
        for far in (0.0, 8.0):
            x = np.array([edge, edge - far * sens])
            p = _independent_two_candidate_law(x, sens, eps, mono)
            assert np.max(np.abs(dp.noisy_max_probabilities(x, sens, eps, monotone=mono) - p)) < 1e-9
            moves = ([sens, sens], [0.0, sens], [sens, 0.0]) if mono else ([-sens, sens], [sens, -sens], [0.0, sens])
            for move in moves:
                x2 = x + np.array(move)
                x2 = np.where(np.abs(x2 - x) > sens, np.nextafter(x2, x), x2)  # float rounding of x + sens
                assert np.all(np.abs(x2 - x) <= sens)
                q = _independent_two_candidate_law(x2, sens, eps, mono)
                worst = max(worst, float(np.max(np.abs(np.log(p) - np.log(q)))) / eps)
    assert 0.9 < worst <= 1 + 1e-9  # the tails come close to epsilon and never exceed it


def test_noisy_max_huge_noise_does_not_wrap_int64(monkeypatch):
    # a noise value near -2**63 on a far candidate must not wrap around to the top (int64 overflow)
    real = sel.discrete_laplace

    def noise(scale, *, size, rng):
        z = np.zeros(size, dtype=np.int64)
        z[:, 1] = -(1 << 63) + 7
        real(scale, size=size, rng=rng)
        return z

    monkeypatch.setattr(sel, "discrete_laplace", noise)
    assert dp.report_noisy_max([1e6, 0.0], 1.0, 1.0, rng=0) == 0
    assert dp.report_noisy_max([1e6, 0.0], 1.0, 1.0, rng=0, size=3).tolist() == [0, 0, 0]


def test_straddle_probability_per_boundary_is_below_two_to_minus_42():
    # exact: k is uniform on 2**53 integers, and a draw is undecided only if k lies in some [lo_r, hi_r]
    u = np.random.default_rng(0).normal(0, 5, size=1000)
    lo, hi = xu.cdf_bounds53(sel._exact_gaps(u, 1.0, 1.0, False, "u"))
    assert np.all(np.diff(lo) >= 0) and np.all(np.diff(hi) >= 0)  # sorted, as the binary search needs
    assert (hi - lo + 1).astype(float).sum() / 2.0**53 / (u.size - 1) < 2.0**-42


def test_cdf_bounds_contain_the_exact_cdf():
    # B_r = (w_0 + ... + w_r) / sum w with w = exp(-x), computed to 120 digits, inside the 53- and 128-bit bounds
    ctx = decimal.Context(prec=120)
    gen = np.random.default_rng(5)
    for _ in range(20):
        x = gen.exponential(gen.choice([0.1, 3.0, 20.0]), int(gen.integers(2, 30)))
        x[gen.integers(x.size)] = 0.0
        gaps = [float(v).as_integer_ratio() for v in x]
        # copy_negate, not a unary minus: that would round to the thread's context (28 digits by default)
        w = [ctx.exp(ctx.divide(decimal.Decimal(n), decimal.Decimal(d)).copy_negate()) for n, d in gaps]
        total = decimal.Decimal(0)
        for v in w:
            total = ctx.add(total, v)
        head, cdf = decimal.Decimal(0), []
        for v in w[:-1]:
            head = ctx.add(head, v)
            cdf.append(ctx.divide(head, total))
        lo, hi = xu.cdf_bounds53(gaps)
        assert all(int(a) <= ctx.multiply(b, 1 << 53) <= int(c) for a, b, c in zip(lo, cdf, hi))
        lo, hi = xu.cdf_bounds(lambda prec: xu.exp_neg_bounds(gaps, prec))(128)
        assert all(a <= ctx.multiply(b, 1 << 128) <= c and c - a <= 4 for a, b, c in zip(lo, cdf, hi))

