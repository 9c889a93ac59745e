"""Checkers of chapters 03-05 (issue 11): each accepts the reference answer and refuses the near misses.

* ``check_sample_size`` accepts only the smallest whole n meeting corollary ``cor-laplace-counting`` and names a
  fraction (issue 21).
* ``check_pumpkin_epsilon`` accepts the answer to three significant digits (0.23, as the solution prints it),
  and still refuses ln(100)/20.
* ``check_my_dp_histogram`` refuses a Laplace scale 0.75x the right one under add/remove and 0.8x under
  replace-one (1.33 epsilon and 1.25 epsilon guarantees), while the reference passes, for several seeds.
"""

import math

import numpy as np
import pytest

from dpcourse import exact_histogram, laplace_mechanism
from dpcourse.discrete import discrete_laplace, laplace_lattice
from dpcourse.exercises.histogram import check_my_dp_histogram
from dpcourse.exercises.laplace import check_sample_size
from dpcourse.exercises.selection import PUMPKIN_REL_TOL, check_pumpkin_epsilon

K, ALPHA, BETA, EPS = 10, 0.01, 0.05, 1.0
BOUND = K * math.log(K / BETA) / (ALPHA * EPS)  # 5298.317..., computed by hand from the corollary


def test_sample_size_accepts_the_smallest_whole_number():
    for n in (5299, 5299.0):
        result = check_sample_size(n, k=K, alpha=ALPHA, beta=BETA, epsilon=EPS)
        assert result.passed, result.message


@pytest.mark.parametrize("n", [BOUND, 5298.32, 5298.3, BOUND * (1 - 1e-6), 5299.5])
def test_sample_size_names_a_fraction(n):
    # the bound itself, or the number the solution prints before rounding, is not a sample size (issue 21)
    result = check_sample_size(n, k=K, alpha=ALPHA, beta=BETA, epsilon=EPS)
    assert not result.passed
    assert result.message == "the sample size is a whole number: round in the safe direction"


@pytest.mark.parametrize("n", [5294, 5298, 5300])
def test_sample_size_refuses_other_whole_numbers(n):
    result = check_sample_size(n, k=K, alpha=ALPHA, beta=BETA, epsilon=EPS)
    assert not result.passed, result.message
    assert "5299" not in result.message and "5298" not in result.message
    # the bound rounded down and the next whole number are named slips; further away, no direction is given
    assert ("falls short" in result.message) == (n == 5298)
    assert ("smallest whole number" in result.message) == (n == 5300)


@pytest.mark.parametrize("n", [5310, 6000])
def test_sample_size_refuses_too_large_without_saying_so(n):
    result = check_sample_size(n, k=K, alpha=ALPHA, beta=BETA, epsilon=EPS)
    assert not result.passed
    assert result.message == check_sample_size(5294, k=K, alpha=ALPHA, beta=BETA, epsilon=EPS).message


@pytest.mark.parametrize("n", [0, -5, float("nan"), float("inf")])
def test_sample_size_refuses_nonsense(n):
    assert not check_sample_size(n, k=K, alpha=ALPHA, beta=BETA, epsilon=EPS).passed


TRUTH = math.log(99) / 20  # 0.229756, the exponential mechanism's smallest epsilon


@pytest.mark.parametrize("answer", [TRUTH, 0.23, 0.230, 0.2298, TRUTH * (1 + 0.9 * PUMPKIN_REL_TOL)])
def test_pumpkin_accepts_three_significant_digits(answer):
    result = check_pumpkin_epsilon(answer)
    assert result.passed, result.message


@pytest.mark.parametrize("answer, hint", [
    (math.log(100) / 20, "1/99"),          # 0.2303: within 0.22% of the answer, but the wrong equation
    (0.232, "within 0.2%"),                # near misses on either side: the stated precision, no direction
    (TRUTH * (1 + 2 * PUMPKIN_REL_TOL), "within 0.2%"),
    (0.229, "within 0.2%"),
    (0.22, "within 0.2%"),
])
def test_pumpkin_refuses_near_misses(answer, hint):
    result = check_pumpkin_epsilon(answer)
    assert not result.passed and hint in result.message, result.message
    assert "0.23" not in result.message and "0.229" not in result.message


def _histogram(scale_factor):
    """A hand-built Laplace histogram whose scale is ``scale_factor`` times the right one for each relation."""
    def fn(data, categories, epsilon, relation, rng):
        if not np.isin(data, categories).all():
            raise ValueError("record outside the categories")
        factor = scale_factor[relation]
        sensitivity = 1.0 if relation == "add_remove" else 2.0
        return laplace_mechanism(exact_histogram(data, categories=categories), factor * sensitivity, epsilon, rng=rng)
    return fn


REFERENCE = _histogram({"add_remove": 1.0, "replace_one": 1.0})


def test_histogram_reference_passes():
    result = check_my_dp_histogram(REFERENCE)
    assert result.passed, result.message


@pytest.mark.parametrize("source", ["global", "rng", "fresh", "fixed", "inverse_cdf"])
def test_histogram_refuses_the_float_laplace_sampler(source):
    # np.random.laplace (the case), rng.laplace, a generator of its own (fresh or fixed seed), the textbook
    # inverse CDF on rng.random(): float noise is off the lattice of the secure release, whichever generator drew it
    # (judged from the output alone: the rng handed out is a plain Generator, numpy is not patched)
    from student_solutions import float_laplace_histogram

    result = check_my_dp_histogram(float_laplace_histogram(source))
    assert not result.passed, result.message
    assert "not on the lattice" in result.message and "secure release" in result.message, result.message


@pytest.mark.parametrize("seed, words", [
    (None, "identically seeded"),            # a generator of its own: not reproducible from rng
    (12345, "different rng seeds"),          # a fixed seed of its own: the rng is ignored
])
def test_histogram_refuses_secure_noise_not_drawn_from_rng(seed, words):
    from student_solutions import _counts_by_hand

    def own_generator(data, categories, epsilon, relation, rng):
        return laplace_mechanism(_counts_by_hand(data, categories), 1.0 if relation == "add_remove" else 2.0,
                                 epsilon, rng=seed)
    result = check_my_dp_histogram(own_generator)
    assert not result.passed and words in result.message, result.message


@pytest.mark.parametrize("kind", ["tiled", "present_only", "one_draw"])
def test_histogram_refuses_noise_shared_between_categories(kind):
    # on the secure lattice, of the right scale and shape, reproducible from rng: only the repeats show it
    from student_solutions import shared_noise_histogram

    result = check_my_dp_histogram(shared_noise_histogram(kind))
    assert not result.passed, result.message
    assert ("came out exactly 0" if kind == "present_only" else "same noise") in result.message, result.message


def test_histogram_clipped_at_zero_passes():
    # clipping the noisy counts at 0 is post-processing of the secure release: many outputs are exactly 0, which
    # is not noise shared between categories (about half of the 40 empty categories still get a positive count)
    from student_solutions import _counts_by_hand

    def clipped(data, categories, epsilon, relation, rng):
        counts = _counts_by_hand(data, categories)
        return np.maximum(laplace_mechanism(counts, 1.0 if relation == "add_remove" else 2.0, epsilon, rng=rng), 0.0)
    result = check_my_dp_histogram(clipped)
    assert result.passed, result.message


def test_histogram_repeat_threshold_is_at_the_stated_level():
    # a correct release on the lattice g Z repeats an absolute noise value with probability at most
    # (K - 1) g epsilon / sensitivity per category given the earlier ones (twice the largest probability of a
    # value); the cut is that binomial's 1e-6 quantile
    from scipy import stats

    from dpcourse.exercises import histogram as hist

    gen = np.random.default_rng(3)
    for sens in (1.0, 2.0):  # the coarsest lattice a laplace_mechanism call gives: one coordinate at a time
        lat = laplace_lattice(sens, hist._EPSILON, dim=1)
        assert lat.spacing <= sens * 2.0**-20
        noise = lat.spacing * discrete_laplace(lat.lattice_scale, size=hist._K, rng=gen)
        cut = hist._max_repeats(noise, sens)
        p = (hist._K - 1) * lat.spacing * hist._EPSILON / sens
        assert cut == 11 and stats.binom.sf(cut, hist._K, p) <= 1e-6 < stats.binom.sf(cut - 1, hist._K, p)
        assert hist._K - np.unique(np.abs(noise)).size <= cut


def test_histogram_secure_release_on_a_coarse_lattice_passes():
    # also private (integer counts sit on the lattice 2**-10 Z; one coordinate at a time, the noise charges
    # floor(sensitivity / g) + 1 steps, 1.001 times the scale); its noise repeats values often, and is not refused
    from student_solutions import _counts_by_hand

    def coarse(data, categories, epsilon, relation, rng):
        lat = laplace_lattice(1.0 if relation == "add_remove" else 2.0, epsilon, spacing=2.0**-10)
        counts = _counts_by_hand(data, categories)
        return counts + lat.spacing * discrete_laplace(lat.lattice_scale, size=counts.size, rng=rng)
    result = check_my_dp_histogram(coarse)
    assert result.passed, result.message


def test_histogram_by_hand_with_the_secure_release_passes():
    from student_solutions import _counts_by_hand

    def secure(data, categories, epsilon, relation, rng):
        return laplace_mechanism(_counts_by_hand(data, categories), 1.0 if relation == "add_remove" else 2.0,
                                 epsilon, rng=rng)
    result = check_my_dp_histogram(secure)
    assert result.passed, result.message


@pytest.mark.parametrize("factors, relation, ratio", [
    ({"add_remove": 0.75, "replace_one": 1.0}, "add_remove", 0.75),    # a 1.33 epsilon guarantee
    ({"add_remove": 1.0, "replace_one": 0.8}, "replace_one", 0.8),     # a 1.25 epsilon guarantee
    ({"add_remove": 0.8, "replace_one": 0.8}, "add_remove", 0.8),
])
def test_histogram_refuses_slightly_under_noised(factors, relation, ratio):
    result = check_my_dp_histogram(_histogram(factors))
    assert not result.passed, result.message
    assert "too little noise" in result.message and repr(relation) in result.message, result.message
    # the message names the slip, never the measured ratio (a student could divide the answer out of it)
    assert str(ratio) not in result.message and "times" not in result.message, result.message


@pytest.mark.parametrize("seed", range(5))
def test_the_one_sided_test_separates_for_other_seeds(seed):
    """The statistic of the checker on fresh seeds: the reference is never below the cut, 0.8x always is.

    The checker itself uses fixed seeds; this shows its decision is not an accident of those seeds.
    """
    from scipy import stats

    k, b = 2000, 4.0
    cut = stats.gamma.ppf(1e-6, a=k) / k  # mean |Z| / b below this is refused
    gen = np.random.default_rng(1000 + seed)
    right = np.mean(np.abs(laplace_mechanism(np.zeros(k), b, 1.0, rng=gen))) / b
    under = np.mean(np.abs(laplace_mechanism(np.zeros(k), 0.8 * b, 1.0, rng=gen))) / b
    assert right > cut > under, (right, cut, under)
    assert 0.88 < cut < 0.91
