"""privacy_loss, hockey_stick and mechanism_epsilon: hand-computed values, laws, and bad input."""

import math

import numpy as np
import pytest

from dpcourse import hockey_stick, mechanism_epsilon, privacy_loss, rr_count_distribution


def test_privacy_loss_by_hand():
    # ln(0.75/0.25) = ln 3 on both outcomes.
    assert privacy_loss([0.75, 0.25], [0.25, 0.75]) == pytest.approx(math.log(3), rel=1e-15)
    # Outcome-wise losses ln(0.5/0.4), ln(0.3/0.3), ln(0.2/0.3): the largest in absolute value is ln 1.5.
    assert privacy_loss([0.5, 0.3, 0.2], [0.4, 0.3, 0.3]) == pytest.approx(math.log(1.5), rel=1e-15)
    assert privacy_loss([0.2, 0.8], [0.2, 0.8]) == 0.0


def test_privacy_loss_supports():
    assert privacy_loss([0.5, 0.5, 0.0], [0.5, 0.25, 0.25]) == math.inf
    assert privacy_loss([1.0, 0.0], [0.0, 1.0]) == math.inf
    # an outcome neither distribution produces is ignored
    assert privacy_loss([0.5, 0.0, 0.5], [0.25, 0.0, 0.75]) == pytest.approx(math.log(2))


def test_privacy_loss_is_symmetric_and_shrinks_under_post_processing():
    rng = np.random.default_rng(12)
    for _ in range(200):
        p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
        kernel = rng.dirichlet(np.ones(4), size=5)  # a random channel from 5 outcomes to 4
        assert privacy_loss(p, q) == pytest.approx(privacy_loss(q, p), rel=1e-12)
        assert privacy_loss(p @ kernel, q @ kernel) <= privacy_loss(p, q) + 1e-12


def test_hockey_stick_by_hand():
    p, q = [0.75, 0.25], [0.25, 0.75]
    assert hockey_stick(p, q, 0.0) == 0.5
    assert hockey_stick(p, q, 1.0) == pytest.approx(0.75 - math.e * 0.25, rel=1e-14)
    assert hockey_stick(p, q, math.log(3)) == 0.0
    assert hockey_stick(p, q, 5.0) == 0.0
    # p puts 0.25 where q has nothing: that mass always counts.
    assert hockey_stick([0.5, 0.25, 0.25], [0.5, 0.5, 0.0], 0.0) == pytest.approx(0.25)
    assert hockey_stick([0.5, 0.25, 0.25], [0.5, 0.5, 0.0], 800.0) == pytest.approx(0.25)


def test_hockey_stick_is_the_best_event():
    rng = np.random.default_rng(3)
    for _ in range(100):
        p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        eps = rng.uniform(0, 2)
        # brute force over all 16 events S
        best = max(
            sum(p[i] for i in range(4) if s >> i & 1) - math.exp(eps) * sum(q[i] for i in range(4) if s >> i & 1)
            for s in range(16)
        )
        assert hockey_stick(p, q, eps) == pytest.approx(max(best, 0.0), abs=1e-14)


def test_hockey_stick_array_epsilon_is_decreasing_and_hits_zero_at_privacy_loss():
    p, q = rr_count_distribution([1, 0, 0], 0.8), rr_count_distribution([0, 0, 0], 0.8)
    grid = np.linspace(0, 3, 61)
    d = hockey_stick(p, q, grid)
    assert d.shape == grid.shape
    assert np.all(np.diff(d) <= 1e-15)
    eps = privacy_loss(p, q)
    assert hockey_stick(p, q, eps) == pytest.approx(0.0, abs=1e-15)
    assert hockey_stick(p, q, eps * 0.99) > 0


@pytest.mark.parametrize(
    "p, q, exc, match",
    [
        ([0.5, 0.6], [0.5, 0.5], ValueError, "p must be a probability distribution"),
        ([0.5, 0.5], [1.2, -0.2], ValueError, "q must be a probability distribution: entry 1"),
        ([0.5, 0.5], [0.2, 0.3, 0.5], ValueError, "same outcomes"),
        ([np.nan, 1.0], [0.5, 0.5], ValueError, "finite"),
        ([True, False], [0.5, 0.5], TypeError, "booleans"),
        ("ab", [0.5, 0.5], TypeError, "numeric"),
    ],
)
def test_bad_distributions_are_refused(p, q, exc, match):
    with pytest.raises(exc, match=match):
        privacy_loss(p, q)
    with pytest.raises(exc, match=match):
        hockey_stick(p, q, 1.0)


@pytest.mark.parametrize("eps", [-0.1, math.nan, math.inf])
def test_hockey_stick_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        hockey_stick([0.5, 0.5], [0.5, 0.5], eps)
    with pytest.raises(ValueError, match="epsilon"):
        hockey_stick([0.5, 0.5], [0.5, 0.5], [0.0, eps])


def test_hockey_stick_bool_epsilon():
    with pytest.raises(TypeError):
        hockey_stick([0.5, 0.5], [0.5, 0.5], True)


def test_rr_count_distribution_and_mechanism_epsilon():
    # n = 2, t = 3/4: reports of (1, 0) are (1,0) w.p. 9/16, (0,1) w.p. 1/16, both 1 or both 0 w.p. 3/16.
    assert rr_count_distribution([1, 0], 0.75).tolist() == pytest.approx([3 / 16, 10 / 16, 3 / 16])
    t = 0.8
    dists = {x: rr_count_distribution(x, t) for x in [(0, 0), (0, 1), (1, 0), (1, 1)]}
    replace_one = [(a, b) for a in dists for b in dists if sum(i != j for i, j in zip(a, b)) == 1]
    assert mechanism_epsilon(dists, replace_one) == pytest.approx(math.log(4))
    # group of two: (0,0) vs (1,1) loses exactly 2 * ln 4
    assert mechanism_epsilon(dists, [((0, 0), (1, 1))]) == pytest.approx(2 * math.log(4))
    # add/remove: a dataset of 1 person against one of 2 people -> the support differs
    dists[(0,)] = np.append(rr_count_distribution([0], t), 0.0)
    assert mechanism_epsilon(dists, [((0,), (0, 0))]) == math.inf
    with pytest.raises(ValueError, match="lacks"):
        mechanism_epsilon(dists, [((0,), (5, 5))])
    with pytest.raises(ValueError, match="at least one pair"):
        mechanism_epsilon(dists, [])
    with pytest.raises(ValueError, match="only 0 and 1"):
        rr_count_distribution([0, 2], 0.7)


@pytest.mark.parametrize("neighbours, exc, match", [
    ([(0, 1, 2)], ValueError, r"neighbours\[0\] must be a pair"),  # was "too many values to unpack"
    ([0], ValueError, r"neighbours\[0\] must be a pair"),  # was "cannot unpack non-iterable int object"
    ([([0], [1])], TypeError, "not a valid key"),  # was "unhashable type: 'list'"
    (5, TypeError, "neighbours must be an iterable of pairs"),
    ("01", TypeError, "neighbours must be an iterable of pairs"),
    ([(0, 2)], ValueError, "output_distributions lacks"),
])
def test_mechanism_epsilon_names_malformed_neighbours(neighbours, exc, match):
    with pytest.raises(exc, match=match):
        mechanism_epsilon({0: [0.75, 0.25], 1: [0.25, 0.75]}, neighbours)


def test_mechanism_epsilon_takes_the_worst_pair_wherever_it_is_listed():
    dists = {0: [0.5, 0.5], 1: [0.6, 0.4], 2: [0.9, 0.1]}
    worst = math.log(0.5 / 0.1)  # the pair (0, 2), once it is listed
    pairs = [(1, 2), (0, 1)]
    assert mechanism_epsilon(dists, pairs) == pytest.approx(math.log(4.0), rel=1e-15)
    assert mechanism_epsilon(dists, pairs[::-1]) == pytest.approx(math.log(4.0), rel=1e-15)
    assert mechanism_epsilon(dists, pairs + [(0, 2)]) == pytest.approx(worst, rel=1e-15)
    with pytest.raises(TypeError, match="output_distributions must be a mapping"):
        mechanism_epsilon([[0.5, 0.5]], [(0, 0)])
