"""The rare branches of the exact samplers, driven on purpose and checked against independent arithmetic.

Issue 35, items 19-23, for :mod:`dpcourse.exact_uniform`, the secure paths of :mod:`dpcourse.selection` and the
raw-word uniforms of :mod:`dpcourse.discrete`. A seeded run reaches a straddled 53-bit draw at most once in 2**42
draws per boundary and a second refinement round about once in 2**117, so statistical tests never see those
branches (and a refinement whose bounds were wrong, as they were at 128 bits and beyond until the decimal context
fix of ``exp_neg_bounds``, passed every statistical test). Here a
*scripted* :class:`numpy.random.Generator` (a subclass whose ``random`` and ``integers`` return chosen values, with
a real PCG64 underneath) puts the uniform ``U`` exactly where a branch is decided: on a boundary's first 53 bits,
following the boundary's binary expansion to 128, 256 or 1200 bits and then turning away from it. Every
expected outcome is computed here from the definitions, with :mod:`decimal` at 150 digits and
:class:`fractions.Fraction`, never through the code under test:

* exponential mechanism: ``U`` falls in slot r iff ``B_(r-1) <= U < B_r``, ``B_r`` the textbook CDF;
* permute-and-flip: a coin is heads iff ``U < exp(-x)``; ties of 53-bit arrival times are broken by a uniform pick;
* report noisy max (secure): the argmax of lattice scores plus discrete Laplace noise, ties to the smallest index,
  and its law by brute-force enumeration (a second algorithm);
* the certified bounds (``exp_neg_bounds``, ``logistic_bounds``, ``cdf_bounds``, the float tables) contain the
  exact value at extreme arguments, and the gaps, lattice scores and scales are the exact rationals.

It also checks what the privacy-relevant arguments change (``secure``, ``monotone``, ``rng``), the bounded-range
property that lets a selection round be charged ``epsilon**2 / 8`` (exponential mechanism only), that a seeded float
release (``secure=False``) does not depend on the last bit of numpy's ``exp``, and the raw-word uniforms (word
widths, refills, rejections) with the one-draw Bernoulli helpers. The mutants these tests kill are in
``tools/mutation_test.py`` (issue 35 block: ``xu_``, ``sel_pf_``, ``sel_rnm_``, ``sel_em_``, ``sel_law_``,
``raw_uniform_``, ``bern_``).
"""

from __future__ import annotations

import decimal
import itertools
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcourse as dp
from dpcourse import discrete as dm
from dpcourse import exact_uniform as xu
from dpcourse import selection as sel

from exact_references import lemma_uniforms, selection_lattice

ALPHA = 1e-6
REF = decimal.Context(prec=150, Emin=decimal.MIN_EMIN, Emax=decimal.MAX_EMAX)   # about 498 bits
TOL = Decimal(10) ** -140      # relative error allowed to the reference values (far below anything tested)
ONE53 = 1 << 53
BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64]


# ---------------------------------------------------------------------------------------------------------------
# Reference arithmetic (independent of dpcourse)


def dec(q) -> Decimal:
    q = Fraction(q)
    return REF.divide(Decimal(q.numerator), Decimal(q.denominator))


def pow2(n: int) -> Decimal:
    """2**n as a Decimal (exact for n >= 0; rounded to the reference precision for n < 0)."""
    return Decimal(1 << n) if n >= 0 else REF.divide(1, Decimal(1 << -n))


def exp_neg(x) -> Decimal:
    return REF.exp(dec(x).copy_negate())    # copy_negate: a unary minus would round to the default 28 digits


def textbook_gaps(u, sens, eps, monotone=False):
    """Exact scaled gaps ``eps (max u - u_r) / (k sens)`` (k = 1 if monotone else 2), capped at GAP_CAP = 2**16."""
    fu = [Fraction(float(v)) for v in u]
    top = max(fu)
    k = 1 if monotone else 2
    return [min(Fraction(2**16), Fraction(eps) * (top - v) / (k * Fraction(sens))) for v in fu]


def textbook_cdf(u, sens, eps, monotone=False):
    """The boundaries ``B_r = (w_0 + ... + w_r) / sum w``, r < m - 1, with ``w = exp(-gap)``, as Decimals."""
    w = [exp_neg(x) for x in textbook_gaps(u, sens, eps, monotone)]
    total = Decimal(0)
    for v in w:
        total = REF.add(total, v)
    out, head = [], Decimal(0)
    for v in w[:-1]:
        head = REF.add(head, v)
        out.append(REF.divide(head, total))
    return out


def scaled_floor(value: Decimal, bits: int) -> int:
    """floor(value * 2**bits), refusing a value too close to a dyadic point for the reference to tell."""
    with decimal.localcontext(REF):
        scaled = value * pow2(bits)
        head = int(scaled.to_integral_value(decimal.ROUND_FLOOR))
        assert scaled - head > TOL * scaled and head + 1 - scaled > TOL * scaled, "too close to a dyadic point"
    return head


# ---------------------------------------------------------------------------------------------------------------
# A scripted Generator


class Scripted(np.random.Generator):
    """``random()`` returns ``k / 2**53`` for 53-bit integers k taken from ``prefixes`` (one entry per call, an int
    or an array of the requested shape): numpy's ``random()`` is such a multiple for its five bit generators.
    ``integers(0, n)`` answers from ``picks`` while there are any, else with the next ``log2 n`` bits of a bit
    stream (``head``, then ``tail`` repeated), most significant first, as fresh bits of U. Every answer is checked to
    lie in the requested range. Float noise is refused: a secure path must not draw any.
    """

    def __init__(self, prefixes=(), head="", tail="0", picks=()):
        super().__init__(np.random.PCG64(0))
        self.prefixes = list(prefixes)
        self.head, self.tail, self.pos = head, tail, 0
        self.picks = list(picks)
        self.bits_used = 0

    def random(self, size=None, dtype=np.float64, out=None):
        shape = () if size is None else (tuple(size) if np.iterable(size) else (size,))
        k = np.broadcast_to(np.asarray(self.prefixes.pop(0), dtype=np.int64), shape)
        assert ((k >= 0) & (k < ONE53)).all()
        return k.astype(np.float64) / 2.0**53

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        assert size is None and not endpoint
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if self.picks:
            v = self.picks.pop(0)
        else:
            b = high.bit_length() - 1
            assert low == 0 and high == 1 << b and b >= 1, ("fresh bits are asked as integers(0, 2**b)", low, high)
            bits = "".join(self.head[i] if i < len(self.head) else self.tail for i in range(self.pos, self.pos + b))
            self.pos += b
            self.bits_used += b
            v = int(bits, 2)
        assert low <= v < high, (v, low, high)
        return np.int64(v) if v < 2**63 else v

    def _no_float_noise(self, *args, **kwargs):
        raise AssertionError("a secure path drew float noise")

    laplace = gumbel = standard_exponential = exponential = normal = _no_float_noise


def steer(target: Decimal, depth: int, tail: str):
    """A draw whose U follows ``target``'s binary expansion to ``depth`` bits, then ``tail`` forever.

    With ``full = floor(2**depth target)``, returns ``(k, head, U_limit)``: the 53-bit prefix of full, its next
    ``depth - 53`` bits, and U (``full / 2**depth`` for a tail of zeros; for ones, U approaches
    ``(full + 1) / 2**depth`` from below).
    """
    full = scaled_floor(target, depth)
    k = full >> (depth - 53)
    head = format(full & ((1 << (depth - 53)) - 1), f"0{depth - 53}b") if depth > 53 else ""
    return k, head, Fraction(full + (tail == "1"), 1 << depth)


def slot_of(u_limit: Fraction, tail: str, boundaries) -> int:
    """Number of boundaries B with B <= U, for U = u_limit (tail 0) or just below it (tail 1)."""
    u = dec(u_limit)
    return sum(1 for b in boundaries if (b <= u if tail == "0" else b < u))


# ---------------------------------------------------------------------------------------------------------------
# Refinement of an undecided draw (exact_uniform._refine, _fresh_bits, below, bernoulli)


def _coin_targets():
    third = (lambda prec: tuple([b] for b in xu.dyadic_bounds(Fraction(1, 3), prec)), dec(Fraction(1, 3)))
    e1 = (lambda prec: tuple([b[0]] for b in xu.exp_neg_bounds([(1, 1)], prec)), exp_neg(1))
    # the randomized-response coin e^eps / (1 + e^eps) at eps = 7/5
    lg = (lambda prec: tuple([b] for b in xu.logistic_bounds(Fraction(7, 5), prec)),
          REF.divide(1, REF.add(1, exp_neg(Fraction(7, 5)))))
    return {"one_third": third, "exp_minus_one": e1, "logistic": lg}


@pytest.mark.parametrize("name", ["one_third", "exp_minus_one", "logistic"])
@pytest.mark.parametrize("depth", [53, 128, 256, 300])
@pytest.mark.parametrize("tail", ["0", "1"])
def test_coin_follows_its_probability_to_any_depth(name, depth, tail):
    # U agrees with p on its first `depth` bits and then turns below (tail 0) or above (tail 1) it: the coin
    # U < p must then be heads, resp. tails, whatever round of refinement the decision takes.
    bounds, p = _coin_targets()[name]
    k, head, u = steer(p, depth, tail)
    gen = Scripted([k], head, tail)
    lo53, hi53 = bounds(53)
    heads = xu.below(np.array([[k]], dtype=np.int64), np.array(lo53[0]), np.array(hi53[0]), lambda j: bounds, gen)
    assert bool(heads[0, 0]) == (tail == "0")
    assert gen.bits_used >= depth - 53                 # it did read U that deep
    # the same through bernoulli(), which draws its own prefix
    gen = Scripted([k], head, tail)
    assert bool(xu.bernoulli(gen, (), lambda prec: tuple(b[0] for b in bounds(prec)))) == (tail == "0")


def test_coins_of_probability_zero_one_and_a_third():
    zero = lambda prec: (0, 0)                    # noqa: E731
    one = lambda prec: (1 << prec, 1 << prec)     # noqa: E731
    for k, tail in [(0, "0"), (0, "1"), (ONE53 - 1, "1"), (ONE53 // 2, "0")]:
        assert not xu.bernoulli(Scripted([k], "", tail), (), zero)
        assert xu.bernoulli(Scripted([k], "", tail), (), one)
    # p = 1/3 at the straddling prefix k0 = floor(2**53 / 3): U < 1/3 iff the fresh bits V (a binary fraction) are
    # below 2**53 / 3 - k0 = 2/3, whose expansion is 0.101010...
    k0 = ONE53 // 3
    assert Fraction(ONE53, 3) - k0 == Fraction(2, 3)
    third = lambda prec: xu.dyadic_bounds(Fraction(1, 3), prec)  # noqa: E731
    for head, tail in [("1", "0"), ("11", "0"), ("0", "1"), ("101", "1"), ("1010", "0"), ("10" * 40, "1"),
                       ("10" * 40 + "0", "1")]:
        v = Fraction(int(head, 2) + (tail == "1"), 2 ** len(head))     # V, or the limit it approaches from below
        expect = v <= Fraction(2, 3) if tail == "1" else v < Fraction(2, 3)
        assert bool(xu.bernoulli(Scripted([k0], head, tail), (), third)) == expect, (head, tail)
    assert not xu.bernoulli(Scripted([k0 + 1], "", "0"), (), third)
    assert xu.bernoulli(Scripted([k0 - 1], "", "1"), (), third)


@pytest.mark.parametrize("depth", [53, 128, 256])
@pytest.mark.parametrize("tail", ["0", "1"])
def test_choose_slot_with_exact_bounds_decides_each_boundary(depth, tail):
    # boundaries 1/3 and 2/3 known only through dyadic bounds (bounds53=None: the exact bounds at 53 bits)
    cdf = [Fraction(1, 3), Fraction(2, 3)]

    def bounds(prec):
        pairs = [xu.dyadic_bounds(b, prec) for b in cdf]
        return [a for a, _ in pairs], [b for _, b in pairs]

    refs = [dec(b) for b in cdf]
    for target in refs:
        k, head, u = steer(target, depth, tail)
        got = xu.choose_slot(np.array([k], dtype=np.int64), bounds, Scripted([], head, tail))
        assert int(got[0]) == slot_of(u, tail, refs)


# ---------------------------------------------------------------------------------------------------------------
# The exponential mechanism: its CDF boundaries are the textbook ones, at 53 bits and beyond


EM_CASES = [([0.0, 1.0, 3.0, 2.5, -4.0], 1.0, 1.0, False),
            ([0.0, 1.0, 3.0, 2.5, -4.0], 1.0, 1.0, True),
            ([0.3, -0.6, 0.9, 0.0], 0.3, 0.7, False),
            ([5.0, 5.0, 5.0], 1.0, 2.0, False),                 # ties: boundaries 1/3 and 2/3
            ([0.0, -30.0, -2.0**-40, -80.0], 1.0, 1.0, False)]  # a weight e^-15, one within 2**-41 of 1, one e^-40


@pytest.mark.parametrize("u, sens, eps, mono", EM_CASES)
def test_exponential_mechanism_boundaries_are_the_textbook_cdf(u, sens, eps, mono):
    refs = textbook_cdf(u, sens, eps, mono)
    for target in refs:
        for depth, tail in [(53, "0"), (53, "1"), (128, "0"), (128, "1"), (200, "1")]:
            k, head, lim = steer(target, depth, tail)
            out = dp.exponential_mechanism(u, sens, eps, monotone=mono, rng=Scripted([k], head, tail))
            assert out == slot_of(lim, tail, refs), (target, depth, tail)
        # one 53-bit step away the prefix alone decides (or any refinement must agree)
        k = scaled_floor(target, 53)
        assert dp.exponential_mechanism(u, sens, eps, monotone=mono, rng=Scripted([k - 1], "", "1")) == \
            slot_of(Fraction(k, ONE53), "1", refs)
        if k + 1 < ONE53:
            assert dp.exponential_mechanism(u, sens, eps, monotone=mono, rng=Scripted([k + 1], "", "0")) == \
                slot_of(Fraction(k + 1, ONE53), "0", refs)
    # size=n draws the n prefixes of one random() call
    ks = [min(scaled_floor(b, 53) + d, ONE53 - 1) for b in refs for d in (-1, 2)]
    got = dp.exponential_mechanism(u, sens, eps, monotone=mono, size=len(ks), rng=Scripted([ks], "", "0"))
    assert got.tolist() == [slot_of(Fraction(k, ONE53), "0", refs) for k in ks]


def test_exponential_mechanism_far_candidate_exactly_and_only_when_secure():
    # candidate 1 at scaled gap 800: weight e^-800 (float underflow), slot [B_0, 1) with 1 - B_0 ~ 2**-1154.
    # U = 1 - 2**-1100 is below B_0, U = 1 - 2**-1200 above it; the float sampler never outputs candidate 1.
    u = [0.0, -1600.0]
    gap = exp_neg(800)
    rest = REF.divide(gap, REF.add(1, gap))                      # 1 - B_0
    assert pow2(-1200) < rest < pow2(-1100)
    top = ONE53 - 1
    assert dp.exponential_mechanism(u, 1.0, 1.0, rng=Scripted([top], "1" * (1100 - 53), "0")) == 0
    assert dp.exponential_mechanism(u, 1.0, 1.0, rng=Scripted([top], "1" * (1200 - 53), "0")) == 1
    assert dp.exponential_mechanism(u, 1.0, 1.0, rng=Scripted([top], "", "1")) == 1
    assert dp.exponential_mechanism(u, 1.0, 1.0, rng=Scripted([top], "", "1"), secure=False) == 0
    # at gap 50 (weight e^-50, slot width 2**-72): decided at 128 bits
    u = [-100.0, 0.0]
    b0 = textbook_cdf(u, 1.0, 1.0)[0]
    for depth, tail in [(128, "0"), (128, "1"), (53, "1")]:
        k, head, lim = steer(b0, depth, tail)
        assert dp.exponential_mechanism(u, 1.0, 1.0, rng=Scripted([k], head, tail)) == slot_of(lim, tail, [b0])
    assert dp.exponential_mechanism(u, 1.0, 1.0, rng=Scripted([0], "", "0")) == 0      # U = 0 < B_0


# ---------------------------------------------------------------------------------------------------------------
# Permute-and-flip: every coin is exact, ties of arrival times are broken uniformly


PF_U = [0.0, -1.0, -6.0, -30.0, -60.0, -76.0, -87.0, -100.0, -1600.0, -2.0**-199]
# scaled gaps at eps = 1, sensitivity 1: 0, 1/2, 3, 15, 30, 38, 43.5 (the edge of the float tables), 50, 800, 2**-200


def _pf_coin(u, j, k, head, tail, eps=1.0, sens=1.0, mono=False, secure=True):
    """Permute-and-flip with candidate j arriving first, its coin's prefix k, the best (index 0) second with a
    heads coin, every other candidate later with a tails coin (prefix 2**53 - 1 is above each of their p)."""
    m = len(u)
    arrival = np.arange(2, m + 2, dtype=np.int64) * 1000
    arrival[j], arrival[0] = 0, 1000 if j != 0 else 0
    coins = np.full(m, ONE53 - 1, dtype=np.int64)
    coins[0] = 0
    coins[j] = k
    return dp.permute_and_flip(u, sens, eps, monotone=mono, secure=secure,
                               rng=Scripted([arrival[None, :], coins[None, :]], head, tail))


@pytest.mark.parametrize("j", range(1, len(PF_U)))
def test_permute_and_flip_coin_is_exactly_u_below_its_weight(j):
    p = exp_neg(textbook_gaps(PF_U, 1.0, 1.0)[j])
    depths = [53, 128, 256] + ([1300] if j == 8 else [])
    for depth in depths:
        for tail in "01":
            if p < pow2(-(depth - 8)):       # U's first `depth` bits of p are all zero: the prefix is 0
                k, head, lim = 0, "0" * (depth - 53), Fraction(int(tail), 1 << depth)
            else:
                k, head, lim = steer(p, depth, tail)
            heads = (dec(lim) <= p) if tail == "1" else (dec(lim) < p)
            assert _pf_coin(PF_U, j, k, head, tail) == (j if heads else 0), (depth, tail)
    if p < pow2(-100):
        assert _pf_coin(PF_U, j, 0, "", "0", secure=False) == 0   # the float coin exp(-x) = 0 or below 2**-53


def test_permute_and_flip_best_candidates_always_flip_heads():
    # gap 0 (coin 1) and gap 2**-200 (coin e^(-2**-200), just above 1 - 2**-200), at the last 53-bit prefix
    u = [0.0, -2.0**-199, 0.0]
    for tail in "01":
        assert _pf_coin(u, 2, ONE53 - 1, "1" * 75, tail) == 2
        assert _pf_coin(u, 2, ONE53 - 1, "", tail) == 2
    assert _pf_coin(u, 1, ONE53 - 1, "1" * 75, "0") == 1           # U = 1 - 2**-128: heads
    assert _pf_coin(u, 1, ONE53 - 1, "1" * (200 - 53), "0") == 1   # U = 1 - 2**-200 < e^(-2**-200): heads
    assert _pf_coin(u, 1, ONE53 - 1, "1" * (201 - 53), "0") == 0   # U = 1 - 2**-201: tails
    assert _pf_coin(u, 1, ONE53 - 1, "", "1") == 0


def test_permute_and_flip_two_undecided_coins_use_their_own_bounds():
    # candidates 1 (p = e^-3) and 2 (p = e^-15) both straddle; 1 is refined first (lower index) and reads 75 zero
    # bits (heads), 2 then reads ones (tails). 2 arrives first, then 1, then the best: the winner is 1.
    u = [0.0, -6.0, -30.0]
    p1, p2 = (exp_neg(x) for x in textbook_gaps(u, 1.0, 1.0)[1:])
    k1, k2 = scaled_floor(p1, 53), scaled_floor(p2, 53)
    arrival = np.array([[3000, 2000, 1000]])
    coins = np.array([[0, k1, k2]])
    gen = Scripted([arrival, coins], "0" * 75, "1")
    assert dp.permute_and_flip(u, 1.0, 1.0, rng=gen) == 1
    gen = Scripted([arrival, coins], "1" * 75, "0")      # 1 tails, 2 heads: 2 wins
    assert dp.permute_and_flip(u, 1.0, 1.0, rng=gen) == 2


@pytest.mark.parametrize("tied, pick", [((1, 2), 0), ((1, 2), 1), ((0, 1, 2), 2), ((2, 0), 0), ((2, 0), 1)])
def test_permute_and_flip_ties_of_arrival_times_are_broken_by_a_uniform_pick(tied, pick):
    u = [0.0, -0.5, -1.0, -2.0]
    arrival = np.full((1, 4), 5000, dtype=np.int64)
    arrival[0, list(tied)] = 7
    coins = np.zeros((1, 4), dtype=np.int64)             # every coin heads
    gen = Scripted([arrival, coins], picks=[pick])
    assert dp.permute_and_flip(u, 1.0, 1.0, rng=gen) == sorted(tied)[pick]
    assert not gen.picks
    # a tied candidate whose coin is tails takes no part: no pick is drawn
    coins[0, sorted(tied)[1:]] = ONE53 - 1
    gen = Scripted([arrival, coins], picks=[])
    assert dp.permute_and_flip(u, 1.0, 1.0, rng=gen) == sorted(tied)[0]


# ---------------------------------------------------------------------------------------------------------------
# Report noisy max (secure): lattice, discrete Laplace, ties to the smallest index


def _inject(monkeypatch, noise):
    """Make the secure noisy max draw ``noise`` (rows of the requested shape, cycled) instead of discrete Laplace."""
    calls = []

    def fake(scale, *, size, rng):
        calls.append((scale, size))
        rows = np.resize(np.asarray(noise, dtype=np.int64), size)
        return rows

    monkeypatch.setattr(sel, "discrete_laplace", fake)
    return calls


def _lattice(scores, sens):
    return selection_lattice([float(s) for s in scores], sens)


def test_secure_noisy_max_is_the_argmax_of_lattice_plus_noise_ties_to_the_first(monkeypatch):
    scores = [1.0, 1.0 + 1 / 64, 0.5, 1.0 + 1 / 64]     # lattice 2**-5, rounding half up: 32, 33, 16, 33 steps
    n, d = _lattice(scores, 1.0)
    rows = [[0, 0, 0, 0], [1, 0, 0, 0], [0, -1, 0, 0], [16, 0, 0, -1], [17, 0, 0, 0], [0, 0, 0, 1]]
    calls = _inject(monkeypatch, rows)
    got = dp.report_noisy_max(scores, 1.0, 1.0, size=len(rows), rng=0)
    expect = []
    for z in rows:
        y = [a + b for a, b in zip(n, z)]
        expect.append(y.index(max(y)))                    # list.index: the first maximum
    assert got.tolist() == expect
    assert calls[0][0] == Fraction(2 * d, 1)              # scale k D / eps in lattice steps, k = 2
    # the single-draw path takes the same first row
    _inject(monkeypatch, [rows[3]])
    assert dp.report_noisy_max(scores, 1.0, 1.0, rng=0) == expect[3]


def _dlap_pmf(t, half):
    z = np.arange(-half, half + 1)
    w = np.array([float(exp_neg(Fraction(abs(int(v))) / t)) for v in z])
    return z, w / w.sum()


def _rnm_law_brute_force(scores, sens, eps, monotone=False):
    """P(i wins) for three candidates: enumerate the noise of candidates 0 and 1, sum candidate 2's pmf."""
    n, d = _lattice(scores, sens)
    top = max(n)
    t = Fraction((1 if monotone else 2) * d) / Fraction(eps)
    half = int(45 * t) + 5
    z, pmf = _dlap_pmf(t, half)
    y0 = (n[0] - top) + z[:, None]
    y1 = (n[1] - top) + z[None, :]
    y2 = (n[2] - top) + z
    cdf2 = np.concatenate(([0.0], np.cumsum(pmf)))          # P(Y2 < y) = cdf2[index of y]
    def p2_below(y, strict):
        idx = np.searchsorted(y2, y, side="left" if strict else "right")
        return cdf2[idx]
    joint = pmf[:, None] * pmf[None, :]
    m01 = np.maximum(y0, y1)
    win0 = ((y0 >= y1) * p2_below(y0, strict=False) * joint).sum()
    win1 = ((y1 > y0) * p2_below(y1, strict=False) * joint).sum()
    win2 = ((1.0 - p2_below(m01, strict=False)) * joint).sum()
    out = np.array([win0, win1, win2])
    assert abs(out.sum() - 1) < 1e-12
    return out


@pytest.mark.parametrize("scores, sens, eps, mono", [([0.0, 1 / 32, 0.0], 1.0, 20.0, False),
                                                     ([0.5, 0.5, 0.25], 1.0, 16.0, True),
                                                     ([0.3, 0.0, 0.31], 0.3, 8.0, False)])
def test_secure_noisy_max_law_and_sampler_against_brute_force(scores, sens, eps, mono):
    # small noise scales (about 3 lattice steps): ties are frequent, so their rule is visible in the law
    ref = _rnm_law_brute_force(scores, sens, eps, mono)
    assert np.max(np.abs(dp.noisy_max_probabilities(scores, sens, eps, monotone=mono) - ref)) < 1e-12
    draws = dp.report_noisy_max(scores, sens, eps, monotone=mono, size=60_000, rng=5)
    assert stats.chisquare(np.bincount(draws, minlength=3), ref * draws.size).pvalue > ALPHA


def test_secure_noisy_max_far_candidate_law_in_log_space():
    # two candidates 40 noise scales apart (not capped: the gap cap is 2**16 scales): P(1) in closed form
    # (a difference of two discrete Laplace variables), against the law's value, relative error 1e-9
    n, d = _lattice([0.0, -40.0 * 2], 1.0)
    t = Fraction(2 * d)                      # eps = 1, k = 2: scale 2 D steps; the gap is 40 scales
    gap = n[0] - n[1]
    # P(Z1 - Z0 > gap) for i.i.d. discrete Laplace: sum_{j > gap} P(Z1 - Z0 = j), with
    # P(Z1 - Z0 = j) = ((1 - q) / (1 + q))**2 q**j (1 + q**2 + j (1 - q**2)) / (1 - q**2)  (j >= 0)
    with decimal.localcontext(REF):
        q = (-dec(1 / t)).exp()
        c = ((1 - q) / (1 + q)) ** 2 / (1 - q * q)
        tail = sum(c * q**j * (1 + q * q + j * (1 - q * q)) for j in range(gap + 1, gap + 160 * int(t)))
    got = dp.noisy_max_probabilities([0.0, -80.0], 1.0, 1.0)[1]
    assert abs(Decimal(got) / tail - 1) < Decimal("1e-9")


def test_secure_noisy_max_smallest_epsilon_named_by_the_refusal_is_accepted():
    for sens, mono in [(1.0, False), (0.3, True), (1e-300, False), (3.0, False)]:
        with pytest.raises(ValueError, match="epsilon must be at least") as info:
            dp.report_noisy_max([0.0, 1.0], sens, 1e-17, monotone=mono, rng=0)
        least = float(str(info.value).split("at least ")[1].split(" ")[0])
        assert dp.report_noisy_max([0.0, 1.0], sens, least, monotone=mono, rng=0) in (0, 1)
        with pytest.raises(ValueError, match="epsilon must be at least"):
            dp.report_noisy_max([0.0, 1.0], sens, math.nextafter(least, 0.0), monotone=mono, rng=0)


# ---------------------------------------------------------------------------------------------------------------
# Chunks (they bound memory for large size; each chunk is a fresh vectorized draw)


@pytest.mark.parametrize("mechanism", ["permute_and_flip", "report_noisy_max"])
def test_chunked_draws_are_the_draws_of_each_chunk(monkeypatch, mechanism):
    u = [0.0, 0.5, 3.0]
    f = getattr(dp, mechanism)
    monkeypatch.setattr(sel, "_CHUNK", 6)                  # 2 rows of 3 candidates per chunk
    got = f(u, 1.0, 2.0, size=7, rng=np.random.default_rng(8))
    monkeypatch.setattr(sel, "_CHUNK", 1 << 22)
    g = np.random.default_rng(8)
    expect = np.concatenate([f(u, 1.0, 2.0, size=s, rng=g) for s in (2, 2, 2, 1)])
    assert got.tolist() == expect.tolist()


# ---------------------------------------------------------------------------------------------------------------
# Exactness at extreme values: rational arithmetic


@pytest.mark.parametrize("u, sens, eps", [
    ([1e308, -1e308, 0.0], 1.0, 1.0),                     # the float spread overflows
    ([5e-324, 0.0, -5e-324, 1e-300], 1.0, 1e300),          # subnormals, huge epsilon
    ([0.1, 0.2, 0.30000000000000004, 7.0], 0.3, 0.1),      # non-dyadic sensitivity and epsilon
    ([3.0, 2.0**-1074, -2.0**60], 2.0**-1000, 2.0**-30),
    ([1.5, 1.5, 1.5], 7.0, 3.0),
])
@pytest.mark.parametrize("mono", [False, True])
def test_exact_gaps_are_the_rational_gaps(u, sens, eps, mono):
    got = sel._exact_gaps(u, sens, eps, mono, "u")
    expect = textbook_gaps(u, sens, eps, mono)
    assert [Fraction(a, b) for a, b in got] == expect


@pytest.mark.parametrize("scores, sens, eps", [
    ([0.0, 1.0, 0.5, -3.25], 1.0, 1.0), ([0.1, 0.2, 0.3], 0.3, 0.7), ([1e300, -1e300, 0.0], 1e290, 2.0),
    ([5e-324, 0.0, 2.0**-1070], 2.0**-1060, 0.5), ([0.5 * 2.0**-5 * (1 - 2**-52), 0.0], 1.0, 1e-10),
    ([7.0, 7.0 + 2**-40], 1.9999999999999998, 1e3), ([0.0, -1e6], 1.0, 1.0),
])
@pytest.mark.parametrize("mono", [False, True])
def test_lattice_scores_and_scale_are_exact(scores, sens, eps, mono):
    got, scale = sel._lattice_scores(scores, sens, eps, mono)
    n, d = _lattice(scores, sens)
    k = 1 if mono else 2
    exact = Fraction(k * d) / Fraction(eps)
    assert 32 <= d <= 64
    assert exact <= scale <= exact * (1 + Fraction(1, 2**57))           # rounded up, never down
    assert scale.numerator < 2**62 and scale.denominator < 2**62
    cap = min(math.ceil(2**16 * scale), 2**60)
    assert got.tolist() == [-min(cap, max(n) - v) for v in n]


def _check_bounds(lo, hi, value: Decimal, prec: int, width: int):
    """lo <= 2**prec value <= hi (up to the reference's own error) and hi - lo <= width."""
    with decimal.localcontext(REF):
        scaled = value * pow2(prec)
        slack = TOL * (scaled + 1)
        assert lo <= scaled + slack and hi >= scaled - slack, (lo, hi, scaled)
    assert 0 <= hi - lo <= width


EXTREME_X = [Fraction(0), Fraction(1, 2**200), Fraction(1, 2**62 - 1), Fraction(1, 3), Fraction(7, 5), Fraction(43),
             Fraction(43 * 2**45 - 1, 2**45), Fraction(87, 2), Fraction(745), Fraction(800), Fraction(10**9 + 7, 10**6)]


def _near_integer_x(prec, count, seed, x_range):
    """Arguments x in ``x_range`` with ``2**prec e^-x`` within 1e-12 of an integer, alternately just above one and
    just below the next: there a bound rounded the wrong way by a fraction of a unit crosses the true value. Their
    denominators are 3 * 10**k, so x is not a terminating decimal and the bounds must round x itself (by up to a
    unit in its last digit, ten units of the relative error allowed to exp once x >= 10).
    """
    gen = np.random.default_rng(seed)
    den = 3 * 10 ** (int(prec * 0.31) + 30)
    out = []
    with decimal.localcontext(REF):
        for i in range(count):
            n = int((exp_neg(Fraction(gen.uniform(*x_range))) * pow2(prec)).to_integral_value(decimal.ROUND_FLOOR))
            target = Decimal(n) + (Decimal("1e-12") if i % 2 == 0 else 1 - Decimal("1e-12"))
            y = (target / pow2(prec)).ln().copy_negate()           # e^-y = target / 2**prec
            out.append(Fraction(int((y * den).to_integral_value()), den))
    return out


@pytest.mark.parametrize("prec", [53, 64, 128, 256, 1200])
def test_exp_bounds_are_certified_at_extreme_arguments(prec):
    xs = list(EXTREME_X)
    if prec in (64, 128, 256):
        xs += _near_integer_x(prec, 20, prec, (0.7, 9.0)) + _near_integer_x(prec, 20, prec + 1, (10.0, 16.0))
    ln2p = REF.multiply(dec(prec), REF.ln(Decimal(2)))
    # around the point where 2**prec e^-x drops below 1 (prec ln 2), on both sides, and far beyond
    for delta in (Fraction(-3), Fraction(-1, 2**20), Fraction(1, 2**20), Fraction(2)):
        near = int(REF.multiply(ln2p, Decimal(2**30)).to_integral_value(decimal.ROUND_FLOOR))
        xs.append(Fraction(near, 2**30) + delta)
    # and ordinary ones
    gen = np.random.default_rng(prec)
    many = 60
    for _ in range(many):
        xs.append(Fraction(int(gen.integers(1, 2**40)), int(gen.integers(1, 2**40))) * int(gen.choice([1, 2**10])))
    lo, hi = xu.exp_neg_bounds([(x.numerator, x.denominator) for x in xs], prec)
    for x, a, b in zip(xs, lo, hi):
        _check_bounds(a, b, exp_neg(x), prec, width=2)


def test_exp_bounds_do_not_depend_on_the_callers_decimal_context():
    # A caller's thread context (28 digits by default, or anything a notebook set) must not enter the bounds:
    # a unary minus in it once rounded x to 28 digits, and the bounds at 128 bits and beyond then excluded e^-x.
    xs = [Fraction(1, 3), Fraction(1, 2**200), Fraction(10**30 + 1, 7 * 10**29), Fraction(700, 3)]
    pairs = [(x.numerator, x.denominator) for x in xs]
    for prec in (128, 512):
        results = []
        for ctx in (decimal.Context(), decimal.Context(prec=3, Emin=-60, Emax=60), decimal.Context(prec=900)):
            with decimal.localcontext(ctx):
                results.append(xu.exp_neg_bounds(pairs, prec))
        assert results[0] == results[1] == results[2]
        for x, a, b in zip(xs, *results[0]):
            _check_bounds(a, b, exp_neg(x), prec, width=2)


def test_logistic_and_dyadic_bounds_are_certified():
    xs = [Fraction(0), Fraction(1, 2**100), Fraction(7, 5), Fraction(40), Fraction(700), Fraction(3, 10**9)]
    gen = np.random.default_rng(1)
    xs += [Fraction(int(gen.integers(1, 2**30)), int(gen.integers(1, 2**27))) for _ in range(1500)]
    values = [REF.divide(1, REF.add(1, exp_neg(x))) for x in xs]
    for prec in (53, 128):
        for x, value in zip(xs, values):
            _check_bounds(*xu.logistic_bounds(x, prec), value, prec, width=2)
    for x, value in zip(xs[:60], values):
        _check_bounds(*xu.logistic_bounds(x, 300), value, 300, width=2)
    assert xu.logistic_bounds(Fraction(0), 53) == (2**52, 2**52)
    for v in [Fraction(0), Fraction(1), Fraction(1, 3), Fraction(2, 3), Fraction(1, 2**60), 1 - Fraction(1, 2**70),
              Fraction(10**40 + 1, 10**40 + 3)]:
        for prec in (53, 128):
            lo, hi = xu.dyadic_bounds(v, prec)
            assert Fraction(lo, 2**prec) <= v <= Fraction(hi, 2**prec)
            assert hi - lo == (0 if (v * 2**prec).denominator == 1 else 1)


def test_float_exp_bounds_at_the_table_edges():
    # x on and next to the edges of each table (i 2**-5, j 2**-15, ...), at the far threshold 43, beyond it, with
    # denominators that are not powers of two; and the 53-bit integer bounds that permute-and-flip's coins use
    xs = []
    for bits in (5, 15, 25, 35, 45):
        for i in (1, 3, (1 << 10) - 1):
            base = Fraction(i, 2**bits)
            xs += [base, base + Fraction(1, 2**60), base - Fraction(1, 2**60)]
    xs += [Fraction(43) - Fraction(1, 2**45), Fraction(43) - Fraction(1, 2**70), Fraction(43), Fraction(87, 2),
           Fraction(44), Fraction(10**6), Fraction(1, 3), Fraction(2**50, 3), Fraction(1, 10**15), Fraction(0)]
    pairs = [(x.numerator, x.denominator) for x in xs]
    lo, hi = xu.exp_neg_float_bounds(pairs)
    lo53, hi53 = xu.exp_neg_bounds53(pairs)
    for x, a, b, a53, b53 in zip(xs, lo.tolist(), hi.tolist(), lo53.tolist(), hi53.tolist()):
        true = exp_neg(x)
        assert dec(Fraction(a)) <= true <= dec(Fraction(b)), x
        if x < 43:
            assert dec(Fraction(b) - Fraction(a)) <= true * pow2(-17), x
        _check_bounds(a53, b53, true, 53, width=2**12)
        assert 0 <= a53 <= b53 <= ONE53


@pytest.mark.parametrize("case", ["random", "lost_in_rounding"])
def test_cdf_bounds53_contain_the_cdf_of_many_candidates(case):
    # Float sums of m weights must still bracket the exact CDF. The hard case: two weights 1 with 3000 weights of
    # 0.89 u between them (u = 2**-53): each vanishes when added to 1, in the running sums from both ends, so the
    # float CDF stays at 1/2 where the true one climbs to 1/2 + 3000 * 0.89 u / 4; only the 2 m u widening covers it.
    m = 3000
    if case == "random":
        gen = np.random.default_rng(m)
        u = np.concatenate([gen.normal(0, 3, m - 3), [0.0, -90.0, -1e5]])
        gen.shuffle(u)
    else:
        u = np.array([0.0] + [-2 * 36.85] * m + [0.0])
    gaps = sel._exact_gaps(u, 1.0, 1.0, False, "u")
    assert [Fraction(a, b) for a, b in gaps] == textbook_gaps(u, 1.0, 1.0)
    ctx = decimal.Context(prec=50)
    w = [ctx.exp(ctx.divide(-a, b)) for a, b in gaps]
    total = Decimal(0)
    for v in w:
        total = ctx.add(total, v)
    lo, hi = xu.cdf_bounds53(gaps)
    head = Decimal(0)
    bad = 0
    for r in range(len(w) - 1):
        head = ctx.add(head, w[r])
        scaled = ctx.multiply(ctx.divide(head, total), ONE53)
        bad += not (int(lo[r]) <= scaled <= int(hi[r]))
    assert bad == 0


def test_cdf_bounds_at_high_precision_contain_the_textbook_cdf():
    for u, sens, eps, mono in EM_CASES:
        refs = textbook_cdf(u, sens, eps, mono)
        gaps = [(x.numerator, x.denominator) for x in textbook_gaps(u, sens, eps, mono)]
        for prec in (53, 128, 300):
            lo, hi = xu.cdf_bounds(lambda p: xu.exp_neg_bounds(gaps, p))(prec)
            for a, b, ref in zip(lo, hi, refs):
                _check_bounds(a, b, ref, prec, width=4)


# ---------------------------------------------------------------------------------------------------------------
# What the privacy-relevant arguments change


def test_monotone_halves_the_noise_exactly():
    # monotone=True at epsilon is the general mechanism at 2 epsilon: the same gaps, lattice scale and coins, so
    # the same draws from the same seed; and not the general mechanism at epsilon
    u = [0.0, 1.0, 3.0, 2.5, -4.0]
    for f, kw in [(dp.exponential_mechanism, {}), (dp.permute_and_flip, {}), (dp.report_noisy_max, {}),
                  (dp.report_noisy_max, {"noise": "gumbel"}), (dp.report_noisy_max, {"noise": "exponential"})]:
        mono = f(u, 1.0, 0.6, monotone=True, size=3000, rng=21, **kw)
        assert np.array_equal(mono, f(u, 1.0, 1.2, size=3000, rng=21, **kw)), (f.__name__, kw)
        assert not np.array_equal(mono, f(u, 1.0, 0.6, size=3000, rng=21, **kw)), (f.__name__, kw)
    # the delegates of report_noisy_max are the mechanisms they name, with the monotone flag passed on
    for noise, g in [("gumbel", dp.exponential_mechanism), ("exponential", dp.permute_and_flip)]:
        for mono in (False, True):
            assert np.array_equal(dp.report_noisy_max(u, 1.0, 0.6, monotone=mono, noise=noise, size=500, rng=4),
                                  g(u, 1.0, 0.6, monotone=mono, size=500, rng=4))


def test_secure_paths_draw_no_float_noise_and_the_float_paths_do():
    class NoFloatNoise(np.random.Generator):
        def _refuse(self, *args, **kwargs):
            raise AssertionError("float noise")

        laplace = gumbel = standard_exponential = exponential = normal = _refuse

    u = [0.0, 1.0, 3.0]
    for noise in ("laplace", "gumbel", "exponential"):
        dp.report_noisy_max(u, 1.0, 1.0, noise=noise, size=50, rng=NoFloatNoise(np.random.PCG64(1)))
        assert isinstance(dp.report_noisy_max(u, 1.0, 1.0, noise=noise, rng=NoFloatNoise(np.random.PCG64(1))), int)
        with pytest.raises(AssertionError, match="float noise"):
            dp.report_noisy_max(u, 1.0, 1.0, noise=noise, secure=False, rng=NoFloatNoise(np.random.PCG64(1)))


def test_rng_reaches_the_draw():
    u = [0.0, 0.2, 0.4, 0.1]
    for f in (dp.exponential_mechanism, dp.permute_and_flip, dp.report_noisy_max):
        a = f(u, 1.0, 1.0, size=400, rng=np.random.Generator(np.random.MT19937(3)))
        assert np.array_equal(a, f(u, 1.0, 1.0, size=400, rng=np.random.Generator(np.random.MT19937(3))))
        assert not np.array_equal(a, f(u, 1.0, 1.0, size=400, rng=np.random.Generator(np.random.MT19937(4))))
        assert not np.array_equal(a, f(u, 1.0, 1.0, size=400, rng=np.random.Generator(np.random.PCG64(3))))


# ---------------------------------------------------------------------------------------------------------------
# The bounded-range factor of a selection round (item 22)


def _em_law(u, eps, mono=False):
    w = [exp_neg(x) for x in textbook_gaps(u, 1.0, eps, mono)]
    with decimal.localcontext(REF):
        total = sum(w, Decimal(0))
        return [v / total for v in w]


def _pf_law(u, eps, mono=False):
    p = [exp_neg(x) for x in textbook_gaps(u, 1.0, eps, mono)]
    out = [Decimal(0)] * len(u)
    perms = list(itertools.permutations(range(len(u))))
    with decimal.localcontext(REF):
        for perm in perms:
            alive = Decimal(1)
            for r in perm:
                out[r] += alive * p[r]
                alive *= 1 - p[r]
        return [v / len(perms) for v in out]


def _losses(p, q):
    return [float(REF.ln(a / b)) for a, b in zip(p, q)]


@pytest.mark.parametrize("mono", [False, True])
def test_exponential_mechanism_round_is_epsilon_bounded_range_and_the_others_are_not(mono):
    # A round charged epsilon**2 / 8 (zCDP, as MST charges its selection rounds) must be epsilon-bounded-range:
    # max_r L(r) - min_r L(r) <= epsilon on neighbours. Exact laws, computed here from the definitions.
    eps = 1.0
    x = [0.0, 0.0, 0.0]
    neighbours = ([[-1.0, 1.0, 0.0], [1.0, -1.0, 1.0], [0.5, -1.0, 1.0]] if not mono
                  else [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.3]])
    for y in neighbours:
        em = _losses(_em_law(x, eps, mono), _em_law(y, eps, mono))
        assert max(em) - min(em) <= eps + 1e-12 and max(map(abs, em)) <= eps + 1e-12
    y = neighbours[0]
    em = _losses(_em_law(x, eps, mono), _em_law(y, eps, mono))
    assert max(em) - min(em) == pytest.approx(eps, rel=1e-12)             # attained
    pf = _losses(_pf_law(x, eps, mono), _pf_law(y, eps, mono))
    assert max(map(abs, pf)) <= eps + 1e-12 and max(pf) - min(pf) > 1.3 * eps   # DP, not BR: ranges 1.39, 1.43
    # the secure noisy max at epsilon = 8 (noise of 8 lattice steps: a brute force over 731**2 noise pairs), on
    # neighbours where one candidate falls and two rise (or two rise): range 8.20 (8.22), above epsilon
    big, y_rn = 8.0, ([0.0, 1.0, 1.0] if mono else [-1.0, 1.0, 1.0])
    rn = _losses([Decimal(v) for v in _rnm_law_brute_force(x, 1.0, big, mono)],
                 [Decimal(v) for v in _rnm_law_brute_force(y_rn, 1.0, big, mono)])
    assert max(map(abs, rn)) <= big * (1 + 1e-9) and max(rn) - min(rn) > 1.02 * big
    # the secure samplers draw these laws (chi-square, alpha = 1e-6) on both neighbours
    for u in (x, y):
        for f, law in [(dp.exponential_mechanism, _em_law(u, eps, mono)), (dp.permute_and_flip, _pf_law(u, eps, mono))]:
            draws = f(u, 1.0, eps, monotone=mono, size=30_000, rng=17)
            expected = np.array([float(v) for v in law]) * draws.size
            assert stats.chisquare(np.bincount(draws, minlength=3), expected).pvalue > ALPHA, f.__name__


# ---------------------------------------------------------------------------------------------------------------
# Raw-word uniforms (discrete._release_uniforms): word widths, refills, rejections


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=lambda b: b.__name__)
def test_word_width_table_is_each_generators_word_width(bit_generator):
    words = bit_generator(11).random_raw(256)
    width = max(int(w).bit_length() for w in words.tolist())
    assert dm._WORD_BITS[bit_generator] == width            # 64, or 32 for MT19937 (256 words: no doubt)


class _Words:
    """A bit generator stand-in with scripted words (registered with its width for the test)."""

    def __init__(self, words):
        self.words = list(words)

    def random_raw(self):
        return self.words.pop(0)


def _expected_uniforms(words, width, ks):
    return lemma_uniforms(words, width, ks)[0]


@pytest.mark.parametrize("width", [32, 64])
def test_release_uniforms_refill_and_reject_exactly(monkeypatch, width):
    monkeypatch.setitem(dm._WORD_BITS, _Words, width)
    gen = np.random.default_rng(width)
    words = [int(v) for v in gen.integers(0, 2**width, size=60, dtype=np.uint64)]
    words[0] = 2**width - 1                                 # all ones: the first draws are rejected
    ks = [3, 2**40 + 1, 2**62, 5, 1, 2**33, 7, 3 * 2**40, 2**31 + 1, 2, 1000]
    draw = dm._release_uniforms(type("G", (), {"bit_generator": _Words(words)})())
    got = [draw(k) for k in ks]
    assert got == _expected_uniforms(words, width, ks)
    for bad in (0, -3):
        draw = dm._release_uniforms(type("G", (), {"bit_generator": _Words([2**width - 1] * 4)})())
        with pytest.raises(ValueError, match="k >= 1"):
            draw(bad)


def test_one_draw_bernoulli_helpers_have_their_exact_laws():
    # the paths a release of one value takes: Bernoulli(exp(-2/3)) held as Python integers (big), with the
    # lazy 62-bit comparison; Bernoulli(exp(-1.25)) with an integer part; 20,000 trials each, chi-square
    g = np.random.Generator(np.random.MT19937(12))
    n = 20_000
    draw = dm._release_uniforms(g)
    a = sum(dm._bern_exp_fraction1(2, 3, True, draw) for _ in range(n))
    b = sum(dm._bern_exp1(1, 1, 4, False, draw) for _ in range(n))
    for hits, p in [(a, math.exp(-2 / 3)), (b, math.exp(-1.25))]:
        assert stats.binomtest(hits, n, p).pvalue > ALPHA, (hits, p)
    # a tie of the lazy comparison (probability 2**-62) is resolved on the remainder: exactly U < 2/5 at 124 bits
    # (2/5, not 1/3: its remainder after the tie, 2**63 mod 5 = 3, differs from the numerator)
    f = (1 << 125) // 5                                  # floor(2**124 * 2/5): U's first 124 bits on the boundary
    mask = 2**62 - 1
    for low, expect in [((f & mask) + 1, False), ((f & mask) - 1, True)]:
        vals = [f >> 62, low]
        assert dm._bern_ratio1(2, 5, True, lambda k: vals.pop(0)) == expect
        assert not vals


# ---------------------------------------------------------------------------------------------------------------
# Portability: a seeded float release (secure=False) does not depend on the last bit of numpy's exp


def _nudged_exp(direction):
    real = np.exp

    def nudged(x, *args, **kwargs):
        out = real(x, *args, **kwargs)
        return np.where(np.isfinite(out) & (out != 0), np.nextafter(out, direction), out)

    return nudged


def test_float_samplers_do_not_depend_on_the_last_bit_of_numpys_exp(monkeypatch):
    # U is put exactly on the float threshold (a coin e^-0.35, a CDF value 1 / (1 + e^-0.35), both in [1/2, 1),
    # where every float is a multiple of 2**-53). Moving numpy's exp by one ulp, as another CPU may, must not move
    # the threshold: the sample is decided by CPU-independent arithmetic (dpcourse.portable).
    from dpcourse import portable
    u = [0.0, -0.7]
    coin = float(portable.exp(np.array([-0.35]))[0])
    w = portable.exp(np.array([0.0, -0.35]))
    cdf0 = float(np.cumsum(w / portable.pairwise_sum(w))[0])
    assert 0.5 <= coin < 1 and 0.5 <= cdf0 < 1
    k_coin, k_cdf = int(coin * 2.0**53), int(cdf0 * 2.0**53)
    results = []
    for direction in (None, np.inf, -np.inf):
        if direction is not None:
            monkeypatch.setattr(np, "exp", _nudged_exp(direction))
        pf = dp.permute_and_flip(u, 1.0, 1.0, secure=False, rng=Scripted([np.array([[5, 0]]), np.array([[0, k_coin]])]))
        em = dp.exponential_mechanism(u, 1.0, 1.0, secure=False, rng=Scripted([k_cdf]))
        sup = dp.selection_support([0.0, -1490.0], 1.0, 1.0, mechanism="permute_and_flip", secure=False).tolist()
        results.append((pf, em, sup))
        monkeypatch.undo()
    assert results[0] == results[1] == results[2]
    assert results[0][:2] == (0, 1)    # U = the coin: tails; U = B_0: slot 1
