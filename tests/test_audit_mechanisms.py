"""Every mechanism of dpcourse audited at its claimed epsilon: the regression guard of the package.

Each test runs :func:`dpcourse.audit_epsilon` (confidence 0.95, fixed seed) on a pair of neighbours and
asserts two things:

* validity: the lower bound does not exceed the claimed epsilon (a bug in a noise scale, a sensitivity
  or a sampler that weakens the guarantee makes this fail);
* power: the bound reaches at least ``POWER`` times the exact epsilon of the pair, where the pair is tight
  and the exact value is known, so that the first assertion is not vacuous.

The pairs are the tight ones of each mechanism's theorem: they are where a wrong constant shows first.
"""

import numpy as np
import pytest

import dpcourse
from dpcourse import audit_epsilon

POWER = 0.85


def check(res, claim, exact):
    assert res.lower_bound <= claim, f"audit refutes the claim epsilon = {claim}: {res}"
    assert res.lower_bound >= POWER * exact, f"audit too weak to guard the claim (exact pair epsilon {exact}): {res}"


# ---------------------------------------------------------------- Laplace family


@pytest.mark.parametrize("epsilon, n", [(0.5, 300_000), (1.0, 1_000_000), (2.0, 300_000)])
def test_laplace_mechanism(epsilon, n):
    def mech(count, rng, size=None):
        return dpcourse.laplace_mechanism(np.full(size, float(count)), 1.0, epsilon, rng=rng)

    res = audit_epsilon(mech, 0, 1, n, rng=101)
    check(res, epsilon, epsilon)
    assert res.lower_bound >= 0.9 * epsilon


def test_laplace_mechanism_sensitivity_is_respected():
    # sensitivity 3: the neighbouring answers 0 and 3 are exactly epsilon apart
    def mech(value, rng, size=None):
        return dpcourse.laplace_mechanism(np.full(size, float(value)), 3.0, 1.0, rng=rng)

    check(audit_epsilon(mech, 0, 3, 300_000, rng=102), 1.0, 1.0)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_randomized_response(epsilon):
    def mech(bit, rng, size=None):
        return dpcourse.randomized_response(np.full(size, bit), epsilon, rng=rng)

    res = audit_epsilon(mech, 1, 0, 300_000, rng=103)
    assert res.event.kind == "=="
    check(res, epsilon, epsilon)


@pytest.mark.parametrize(
    "epsilon, x_prime, exact",
    [
        (1.0, np.r_[np.zeros(9), 1.0], 1.0),  # replace one record 0 by 1: the tight pair
        (2.0, np.r_[np.zeros(9), 50.0], 2.0),  # a record far outside [0, 1] is clamped to 1
    ],
)
def test_dp_mean(epsilon, x_prime, exact):
    def mech(x, rng, size=None):
        return dpcourse.dp_mean(x, 0.0, 1.0, epsilon, rng=rng, size=size)

    check(audit_epsilon(mech, np.zeros(10), x_prime, 20_000, rng=104), epsilon, exact)


@pytest.mark.parametrize(
    "relation, data_prime, exact",
    [
        ("add_remove", list("ABAA"), 1.0),  # one more A: bin A moves by 1, noise scale 1/eps
        ("replace_one", list("ABB"), 0.5),  # bin A alone moves by 1 of the sensitivity 2: eps/2
    ],
)
def test_dp_histogram(relation, data_prime, exact):
    def bin_a(data, rng, size=None):
        return dpcourse.dp_histogram(data, 1.0, relation=relation, categories=list("ABC"), rng=rng, size=size)[..., 0]

    check(audit_epsilon(bin_a, list("ABA"), data_prime, 100_000, rng=105), 1.0, exact)


# ---------------------------------------------------------------- approximate DP


@pytest.mark.parametrize("delta, power", [(1e-3, 0.85), (1e-5, 0.6)])
def test_gaussian_mechanism(delta, power):
    # The analytic calibration (the textbook sampler) is tight: some threshold event has
    # (p - delta) / q = e^eps exactly, but its probability is small when delta is, so the audit
    # recovers less of epsilon at delta = 1e-5.
    def mech(value, rng, size=None):
        return dpcourse.gaussian_mechanism(np.full(size, float(value)), 1.0, 1.0, delta, rng=rng, secure=False)

    res = audit_epsilon(mech, 0, 1, 1_000_000, rng=106, delta=delta)
    assert res.delta == delta
    assert power <= res.lower_bound <= 1.0, str(res)


def test_gaussian_mechanism_is_not_pure_dp():
    # at delta = 0 the same mechanism has no finite epsilon: the audit exceeds the (eps, delta) epsilon
    def mech(value, rng, size=None):
        return dpcourse.gaussian_mechanism(np.full(size, float(value)), 1.0, 1.0, 1e-3, rng=rng, secure=False)

    assert audit_epsilon(mech, 0, 1, 1_000_000, rng=107).lower_bound > 1.0


def test_secure_gaussian_mechanism_is_not_refuted():
    # the secure (lattice, zCDP-calibrated) release is a little noisier: the same audit stays below eps
    def mech(value, rng, size=None):
        return dpcourse.gaussian_mechanism(np.full(size, float(value)), 1.0, 1.0, 1e-3, rng=rng)

    res = audit_epsilon(mech, 0, 1, 1_000_000, rng=106, delta=1e-3)
    assert 0.6 <= res.lower_bound <= 1.0, str(res)


# ---------------------------------------------------------------- selection

# Every score moves by the sensitivity 1, in opposite directions for candidate 0 and the others.
U = np.r_[0.0, np.ones(19)]
U_PRIME = np.r_[1.0, np.zeros(19)]
# Monotone pair: all scores move the same way (here only candidate 0 moves, up).
M = np.zeros(20)
M_PRIME = np.r_[1.0, np.zeros(19)]


SELECTION = [
    ("report_noisy_max", dict(noise="laplace"), U, U_PRIME),
    ("report_noisy_max", dict(noise="exponential"), U, U_PRIME),
    ("report_noisy_max", dict(noise="gumbel"), U, U_PRIME),
    ("report_noisy_max", dict(monotone=True), M, M_PRIME),
    ("exponential_mechanism", {}, U, U_PRIME),
    ("exponential_mechanism", dict(monotone=True), M, M_PRIME),
    ("permute_and_flip", {}, U, U_PRIME),
    ("permute_and_flip", dict(monotone=True), M, M_PRIME),
]
PROBABILITIES = {
    "report_noisy_max": "noisy_max_probabilities",
    "exponential_mechanism": "exponential_probabilities",
    "permute_and_flip": "permute_and_flip_probabilities",
}


@pytest.mark.parametrize("name, kwargs, scores, scores_prime", SELECTION,
                         ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw, _, _ in SELECTION])
def test_selection_mechanisms(name, kwargs, scores, scores_prime):
    mechanism = getattr(dpcourse, name)
    probabilities = getattr(dpcourse, PROBABILITIES[name])

    def draw(s, rng, size=None):
        return mechanism(s, 1.0, 1.0, rng=rng, size=size, **kwargs)

    exact = dpcourse.privacy_loss(probabilities(scores, 1.0, 1.0, **kwargs),
                                  probabilities(scores_prime, 1.0, 1.0, **kwargs))
    res = audit_epsilon(draw, scores, scores_prime, 400_000, rng=108)
    assert res.event.kind == "=="
    check(res, 1.0, exact)
