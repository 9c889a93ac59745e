"""Tests of dpcourse.float_attack: numpy's Laplace sampler reproduced bit for bit, exact reachability."""

import copy
import math

import numpy as np
import pytest

import dpcourse
from dpcourse.float_attack import (impossible_output_mechanism, lattice_privacy_loss, lattice_reachable,
                                   textbook_laplace_noise, textbook_reachable)


def _uniform_indices(bit_generator, n):
    raw = bit_generator.random_raw(n)
    return (raw >> np.uint64(11)).astype(np.int64)


@pytest.mark.parametrize("scale", [1.0, 0.3, 7.25])
def test_reproduces_numpy_laplace_bit_for_bit(scale):
    rng = np.random.default_rng(12345)
    clone = copy.deepcopy(rng.bit_generator)
    drawn = rng.laplace(0.0, scale, size=200_000)
    j = _uniform_indices(clone, 200_000)
    assert (j > 0).all()  # numpy rejects j = 0; it does not occur in this stream
    np.testing.assert_array_equal(textbook_laplace_noise(j, scale), drawn)


def test_reproduces_laplace_mechanism_secure_false():
    rng = np.random.default_rng(7)
    clone = copy.deepcopy(rng.bit_generator)
    x = np.linspace(-3.0, 5.0, 50_000)
    out = dpcourse.laplace_mechanism(x, 2.0, 0.5, rng=rng, secure=False)
    j = _uniform_indices(clone, x.size)
    np.testing.assert_array_equal(out, x + textbook_laplace_noise(j, 4.0))


def test_noise_is_non_decreasing_in_the_uniform():
    j = np.r_[np.arange(1, 3000), np.arange(2**52 - 3000, 2**52 + 3000), np.arange(2**53 - 3000, 2**53)]
    v = textbook_laplace_noise(j, 1.0)
    assert (np.diff(v) >= 0).all()


def test_noise_by_hand():
    assert textbook_laplace_noise(2**51, 1.0) == math.log(0.5)
    # j = 2**52 + 1: 2 - U rounds to 1.5 (tie to even), then 1.5 - U = 1 - 2**-53 exactly.
    assert textbook_laplace_noise(2**52 + 1, 1.0) == -math.log(1 - 2.0**-53)
    with pytest.raises(ValueError, match="j must lie"):
        textbook_laplace_noise(0, 1.0)
    with pytest.raises(ValueError, match="j must lie"):
        textbook_laplace_noise(2**53, 1.0)


@pytest.mark.parametrize("value", [0.0, 1.0, -2.5])
@pytest.mark.parametrize("centre", [5, 2**51, 2**52, 2**53 - 600])
def test_reachable_matches_enumeration(value, centre):
    """Within a window of uniforms every produced output is reachable and every gap between them is not."""
    j = np.arange(max(1, centre - 500), min(2**53 - 1, centre + 500) + 1)
    produced = np.unique(value + textbook_laplace_noise(j, 1.0))
    assert textbook_reachable(produced, value, 1.0, 1.0).all()
    mids = (produced[:-1] + produced[1:]) / 2
    gaps = mids[(mids != produced[:-1]) & (mids != produced[1:])]
    if value != -2.5:  # near -2.5 the outputs of this window are consecutive doubles: no gaps
        assert gaps.size > 0
    assert not textbook_reachable(gaps, value, 1.0, 1.0).any()


def test_most_outputs_are_impossible_from_the_neighbour():
    rng = np.random.default_rng(2026)
    out0 = dpcourse.laplace_mechanism(np.zeros(5000), 1.0, 1.0, rng=rng, secure=False)
    assert textbook_reachable(out0, 0.0, 1.0, 1.0).all()
    impossible = 1 - textbook_reachable(out0, 1.0, 1.0, 1.0).mean()
    assert 0.75 < impossible < 0.9   # measured 0.82; the exact enumeration test above pins correctness


def test_lattice_outputs_always_reachable_and_loss_bounded():
    rng = np.random.default_rng(3)
    lat = dpcourse.laplace_lattice(1.0, 1.0)
    out = np.array([dpcourse.laplace_mechanism(0.3, 1.0, 1.0, rng=rng) for _ in range(200)])
    assert lattice_reachable(out, lat.spacing).all()
    loss = lattice_privacy_loss(out, 0.3, 1.3, 1.0, 1.0)
    assert np.abs(loss).max() <= 1.0
    # far left of both: |k - a'| - |k - a| = a' - a lattice steps, divided by the scale t
    a, ap = round(0.3 * 2**20), round(1.3 * 2**20)
    assert lattice_privacy_loss(-10.0, 0.3, 1.3, 1.0, 1.0) == (ap - a) / float(lat.lattice_scale)
    assert lattice_privacy_loss(-10.0, 0.0, 1.0, 1.0, 1.0) == 2**20 / (2**20 + 1)


def test_lattice_reachable_by_hand_and_validation():
    assert lattice_reachable([0.25, 0.3, -3.0, 0.0], 0.25).tolist() == [True, False, True, True]
    # exact where o / g underflows: the smallest subnormal is not a multiple of 4 (o / 4 rounds to 0)
    assert lattice_reachable([5e-324, -5e-324, 4.0 * 2.0**60], 4.0).tolist() == [False, False, True]
    with pytest.raises(ValueError, match="power of two"):
        lattice_reachable([1.0], 0.3)
    with pytest.raises(ValueError, match="outputs"):
        lattice_reachable([np.nan], 0.5)
    with pytest.raises(ValueError, match="multiples"):
        lattice_privacy_loss(0.1, 0.0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="outputs"):
        textbook_reachable([np.inf], 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        textbook_reachable([1.0], 0.0, 1.0, 0.0)


def test_impossible_output_mechanism_and_audit():
    insecure = impossible_output_mechanism(1.0, 1.0, 1.0, secure=False)
    secure = impossible_output_mechanism(1.0, 1.0, 1.0, secure=True)
    rng = np.random.default_rng(0)
    assert not secure(0.0, rng, size=1000).any()
    assert not insecure(1.0, rng, size=1000).any()   # its own outputs are always possible
    res = dpcourse.audit_epsilon(insecure, 0.0, 1.0, 4000, rng=1)
    assert res.refutes(1.0)
    assert dpcourse.audit_epsilon(secure, 0.0, 1.0, 4000, rng=1).lower_bound == 0.0
    assert isinstance(secure(0.0, rng), bool)
    with pytest.raises(TypeError):
        impossible_output_mechanism(1.0, 1.0, 1.0)
    with pytest.raises(TypeError, match="secure"):
        impossible_output_mechanism(1.0, 1.0, 1.0, secure="yes")
