"""Every release answers a finite value of any size (issue 21, item 2).

The rule (CONTRIBUTING.md, "Private data"): data never changes *whether* a release happens. A finite
value is never refused because of its size: where a release has an internal limit (a lattice of 2**61
steps, an int64, 2**40 times the sensitivity, the float range) it clamps, a 1-Lipschitz map that keeps
the sensitivity. Otherwise two neighbours on either side of the limit are told apart with certainty (a
release for one, an exception for the other: infinite privacy loss), as ``sparse_vector`` did at
2**40 times the sensitivity and ``geometric_mechanism`` at 2**64.

The test finds the releases by introspection: every public function of a top-level ``dpcourse`` module
(not the subpackages ``plots``, ``exercises``, ..., which drive releases on public data) that takes
``rng`` and an ``epsilon`` or a zCDP ``rho``. Each must have an entry in ``RELEASES`` (how to call it with one private record of a given
size) or in ``NOT_RELEASES`` (why it has no private argument); a new release without an entry fails
``test_every_release_has_an_entry``. For each release, the private record runs along a ladder of values
just below, at and just above every internal limit (2**40, 2**53, 2**61, 2**63, 2**64, 1e308, the
largest float, the smallest subnormal, and their negatives): consecutive rungs are neighbours across the
limit, and every rung must return, with finite numbers in the output.

NaN and +-inf are not sizes: a release refuses them (the input contract, checked by the caller before
the call) with a message that holds nothing computed from the data (tests/test_private_error_messages.py).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import numbers
import pkgutil
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import dpcourse
from dpcourse import queries as Q

MAX_FLOAT = float(np.finfo(np.float64).max)
_LIMITS = [2.0**40, 2.0**53, 2.0**61, 2.0**63, 2.0**64, 1e308, MAX_FLOAT]


def _float_ladder() -> list[float]:
    rungs = {0.0, 5e-324, 1.0}
    for lim in _LIMITS:
        with np.errstate(over="ignore"):  # the float after MAX_FLOAT is inf, dropped below
            rungs |= {float(np.nextafter(lim, -np.inf)), lim, float(np.nextafter(lim, np.inf))}
    rungs = {r for r in rungs if np.isfinite(r)}
    return sorted(rungs | {-r for r in rungs})


def _int_ladder() -> list[int]:
    rungs = {0, 1}
    for lim in (2**40, 2**53, 2**61, 2**62, 2**63, 2**64, 10**30, 10**400):
        rungs |= {lim - 1, lim, lim + 1}
    return sorted(rungs | {-r for r in rungs})


FLOATS = _float_ladder()
INTS = _int_ladder()
BIG_FLOATS = [v for v in FLOATS if abs(v) >= 2.0**40]   # for the slower releases
SUBNORMAL = [5e-324, -5e-324, 2.2250738585072014e-308, 0.0]
QUERIES = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]])
HIST_COUNTS = [0.0, 1.0, 2.0**40, 2.0**53, 2.0**63, 2.0**64, 1e308, MAX_FLOAT]  # whole counts of any size
BINS = [-MAX_FLOAT, -1.0, 0.0, 1.0, MAX_FLOAT]


@dataclass(frozen=True)
class Release:
    data: str                      # the name of the private argument the ladder goes into
    call: Callable                 # call(v) -> output, with v the private record
    values: tuple                  # the ladder
    may_decline: bool = False      # the release may output None (PTR's "no answer" is a release)


def _x(v):
    return np.array([[v, -v], [0.0, 1.0], [0.5, 0.5], [0.1, -0.2]])


RELEASES: dict[str, Release] = {
    "dpcourse.laplace.laplace_mechanism": Release(
        "value", lambda v: (dpcourse.laplace_mechanism(v, 1.0, 1.0, rng=0),
                            dpcourse.laplace_mechanism([v, 1.0], 1.0, 1.0, rng=0)), tuple(FLOATS)),
    "dpcourse.laplace.dp_mean": Release(
        "x", lambda v: dpcourse.dp_mean([v, 1.0, 2.0], 0.0, 10.0, 1.0, rng=0), tuple(FLOATS)),
    "dpcourse.gaussian.gaussian_mechanism": Release(
        "value", lambda v: (dpcourse.gaussian_mechanism(v, 1.0, 1.0, 1e-6, rng=0),
                            dpcourse.gaussian_mechanism([v, 1.0], 1.0, 1.0, 1e-6, rng=0)), tuple(FLOATS)),
    "dpcourse.discrete.geometric_mechanism": Release(
        "value", lambda v: (dpcourse.geometric_mechanism(v, 1, 1.0, rng=0),
                            dpcourse.geometric_mechanism([v, 1], 1, 1.0, rng=0),
                            dpcourse.geometric_mechanism(np.array([v], dtype=object), 1, 1.0, rng=0)),
        tuple(INTS)),
    "dpcourse.histogram.dp_histogram": Release(
        "data", lambda v: (dpcourse.dp_histogram([v, 1.0], 1.0, relation="add_remove", bins=BINS, rng=0),
                           dpcourse.dp_histogram([v, 2.0], 1.0, relation="replace_one", categories=[v, 2.0],
                                                 rng=0) if v != 2.0 else None), tuple(FLOATS)),
    "dpcourse.svt.sparse_vector": Release(
        "values", lambda v: dpcourse.sparse_vector([v, 1.0, -v], 0.5, 1.0, 2, rng=0), tuple(FLOATS)),
    "dpcourse.svt.above_threshold": Release(
        "values", lambda v: dpcourse.above_threshold([v, 1.0], 0.5, 1.0, rng=0, size=3), tuple(FLOATS)),
    "dpcourse.query_release.mwem": Release(
        "histogram", lambda v: dpcourse.mwem([v, 1.0, 2.0], QUERIES, 1.0, iterations=2, rng=0),
        tuple(HIST_COUNTS)),
    # smalldb's n = sum(histogram) is public (replace-one): it is capped at 2**53, a public refusal that
    # neighbours share (test_smalldb_caps_the_public_n); below the cap every count is answered.
    "dpcourse.query_release.smalldb": Release(
        "histogram", lambda v: dpcourse.smalldb([v, 1.0, 2.0], QUERIES, 1.0, m=3, rng=0),
        tuple(c for c in HIST_COUNTS if c <= 2.0**52)),
    "dpcourse.query_release.laplace_per_query": Release(
        "histogram", lambda v: Q.laplace_per_query([v, 1.0, 2.0], QUERIES, 1.0, rng=0), tuple(HIST_COUNTS)),
    "dpcourse.query_release.gaussian_per_query": Release(
        "histogram", lambda v: Q.gaussian_per_query([v, 1.0, 2.0], QUERIES, 1.0, 1e-6, rng=0),
        tuple(HIST_COUNTS)),
    "dpcourse.selection.exponential_mechanism": Release(
        "utilities", lambda v: dpcourse.exponential_mechanism([v, 1.0, 0.0], 1.0, 1.0, rng=0, size=3),
        tuple(FLOATS)),
    "dpcourse.selection.permute_and_flip": Release(
        "utilities", lambda v: dpcourse.permute_and_flip([v, 1.0, 0.0], 1.0, 1.0, rng=0, size=3), tuple(FLOATS)),
    "dpcourse.selection.report_noisy_max": Release(
        "scores", lambda v: (dpcourse.report_noisy_max([v, 1.0, 0.0], 1.0, 1.0, rng=0, size=3),
                             dpcourse.report_noisy_max([v, 1.0, 0.0], 1.0, 1.0, noise="gumbel", rng=0, size=3)),
        tuple(FLOATS)),
    "dpcourse.quantiles.dp_median": Release(
        "x", lambda v: dpcourse.dp_median([v, 1.0, 2.0], 0.0, 10.0, 1.0, rng=0, resolution=4096), tuple(FLOATS)),
    "dpcourse.quantiles.dp_quantile": Release(
        "x", lambda v: dpcourse.dp_quantile([v, 1.0, 2.0], 0.3, 0.0, 10.0, 1.0, rng=0, resolution=4096),
        tuple(FLOATS)),
    "dpcourse.quantiles.smooth_median": Release(
        "x", lambda v: dpcourse.smooth_median([v, 1.0, 2.0, 3.0], 0.0, 10.0, 1.0, 1e-6, rng=0), tuple(FLOATS)),
    "dpcourse.quantiles.propose_test_release": Release(
        "x", lambda v: dpcourse.propose_test_release([v, 1.0, 2.0, 3.0] * 5, 0.0, 10.0, 5.0, 1.0, 1e-6, rng=0),
        tuple(FLOATS), may_decline=True),
    "dpcourse.quantiles.sample_and_aggregate": Release(
        "x", lambda v: dpcourse.sample_and_aggregate([v, 1.0, 2.0, 3.0] * 5, np.median, 4, 0.0, 10.0, 1.0, rng=0,
                                                resolution=4096),
        tuple(FLOATS)),
    "dpcourse.group_by.dp_group_by": Release(
        "values", lambda v: (dpcourse.dp_group_by([1, 2, 3], ["a", "a", "b"], [v, 1.0, 2.0], 1.0, 1e-6,
                                                  bounds=(0.0, 10.0), max_partitions=1, max_per_partition=1,
                                                  public_partitions=["a", "b"], rng=0),
                             dpcourse.dp_group_by([1, 2, 3], ["a", "a", "b"], [v, 1.0, 2.0], 1.0, 1e-6,
                                                  bounds=(0.0, 10.0), max_partitions=1, max_per_partition=1,
                                                  rng=0)), tuple(FLOATS)),
    "dpcourse.partition_selection.select_partitions": Release(
        "user_ids, keys", lambda v: dpcourse.select_partitions([v, 2.0, 3.0], [v, 5.0, 6.0], 1.0, 1e-6, rng=0),
        tuple(FLOATS)),
    "dpcourse.learning.dp_logistic_regression": Release(
        "X", lambda v: (dpcourse.dp_logistic_regression(_x(v), [0, 1, 1, 0], 1.0, 1e-5, sampling_rate=0.5,
                                                        steps=5, expected_batch_size=2.0, rng=0),
                        # the norm <= 1 contract of the two other methods: the extremes inside it
                        *(dpcourse.dp_logistic_regression(_x(v * 2**-1080)[[0, 3]] if abs(v) > 1 else
                                                          _x(v * 0.5)[[0, 3]], [0, 1], 1.0, 1e-5,
                                                          method=m, rng=0) for m in ("output", "objective"))),
        tuple(BIG_FLOATS + SUBNORMAL)),
    "dpcourse.local_dp.krr": Release(
        "values", lambda v: dpcourse.krr([v, 0], 2**24, 1.0, rng=0), (0, 1, 2**23, 2**24 - 1)),
    "dpcourse.local_dp.local_hashing": Release(
        "values", lambda v: dpcourse.local_hashing([v, 0], 2**24, 1.0, rng=0), (0, 1, 2**23, 2**24 - 1)),
    "dpcourse.local_dp.unary_encoding": Release(
        "values", lambda v: dpcourse.unary_encoding([v, 0], 4096, 1.0, rng=0), (0, 1, 4095)),
    # a stream, a proportion's bits and a synthetic table's codes have a documented domain (0/1 events, 0/1 bits,
    # whole-number codes): a value outside it breaks the contract and is refused by rule; whole codes of any size
    # are clamped into the declared domain
    "dpcourse.continual.tree_counts": Release(
        "stream", lambda v: dpcourse.tree_counts([v, 0, 1, 1], 1.0, rng=0), (0, 1, 0.0, 1.0)),
    "dpcourse.continual.naive_counts": Release(
        "stream", lambda v: (dpcourse.naive_counts([v, 0, 1, 1], 1.0, rng=0),
                             dpcourse.naive_counts([v, 0, 1, 1], 1.0, method="increments", rng=0)), (0, 1, 0.0, 1.0)),
    "dpcourse.continual.factorization_counts": Release(
        "stream", lambda v: dpcourse.factorization_counts([v, 0, 1, 1], 0.5, rng=0), (0, 1, 0.0, 1.0)),
    "dpcourse.inference.mean_interval": Release(
        "x", lambda v: dpcourse.mean_interval([v, 1.0, 2.0], 0.0, 10.0, 1.0, rng=0), tuple(FLOATS)),
    "dpcourse.inference.difference_of_means_interval": Release(
        "x", lambda v: dpcourse.difference_of_means_interval([v, 1.0, 2.0], [3.0, 4.0], 0.0, 10.0, 1.0, rng=0),
        tuple(FLOATS)),
    "dpcourse.inference.quantile_interval": Release(
        "x", lambda v: dpcourse.quantile_interval([v, 1.0, 2.0], 0.5, 0.0, 10.0, 1.0, rng=0, resolution=64),
        tuple(FLOATS)),
    "dpcourse.inference.proportion_interval": Release(
        "bits", lambda v: dpcourse.proportion_interval([v, 0, 1], 1.0, rng=0), tuple(FLOATS) + tuple(INTS)),
    "dpcourse.synthetic.mst_synthesize": Release(
        "data", lambda v: dpcourse.synthetic.mst_synthesize([[v, 0, 1], [1, 1, 0]] * 5, [2, 2, 2], 1.0, rng=0),
        tuple(int(x) for x in (0, 1, 2**40, -2**40, 2**63, 2**64, 2**70)) + (1e308, -MAX_FLOAT, MAX_FLOAT)),
    "dpcourse.synthetic.independent_synthesize": Release(
        "data", lambda v: dpcourse.synthetic.independent_synthesize([[v, 0], [1, 1]] * 5, [2, 2], 1.0, rng=0),
        tuple(int(x) for x in (0, 1, 2**40, -2**40, 2**63, 2**64, 2**70)) + (1e308, -MAX_FLOAT, MAX_FLOAT)),
    "dpcourse.rr.randomized_response": Release(
        "bits", lambda v: dpcourse.randomized_response([v, 0, 1], 1.0, rng=0), (0, 1, 0.0, 1.0)),
}

#: Functions that take ``rng`` and an epsilon but have no private argument, with the reason.
NOT_RELEASES = {
    "dpcourse.optimal_noise.knorm_l2_noise": "draws noise only; its arguments (dim, sensitivity) are public",
    "dpcourse.attacks.tracing_experiment": "an experiment on synthetic data; its releases are laplace_mechanism",
    "dpcourse.lower_bounds.tracing_trial": "an experiment on a synthetic fingerprinting code; its release is "
                                           "gaussian_mechanism",
    "dpcourse.inference.interval_coverage": "a coverage simulation on a public population; its releases are the "
                                            "interval functions, each tested here",
    "dpcourse.inference.coverage_grid": "a grid of interval_coverage runs on public populations",
    **{f"dpcourse.inference.{kind}_interval_coverage": "a coverage simulation on a public population (as "
       "interval_coverage)" for kind in ("mean", "proportion", "difference", "quantile")},
    "dpcourse.synthetic.compare_methods": "an experiment driver on a public table; its releases (mst_synthesize, "
                                          "independent_synthesize, mwem) are each tested here",
    "dpcourse.query_release.error_versus_queries": "an experiment driver; each release it makes is tested here "
                                                   "itself",
    "dpcourse.svt.sparse_vector_variant": "audit only: the published broken variants, documented as not "
                                          "private and never for real data",
}


def _discover() -> set[str]:
    found = set()
    for info in pkgutil.iter_modules(dpcourse.__path__, "dpcourse."):
        if info.ispkg:  # plots, exercises, homework: they drive releases on public data, and need extras
            continue
        mod = importlib.import_module(info.name)
        for name, fn in vars(mod).items():
            if name.startswith("_") or not inspect.isfunction(fn) or fn.__module__ != mod.__name__:
                continue
            params = inspect.signature(fn).parameters
            if "rng" in params and any(p.startswith(("epsilon", "rho")) for p in params):
                found.add(f"{mod.__name__}.{name}")
    return found


def test_every_release_has_an_entry():
    found = _discover()
    missing = sorted(found - set(RELEASES) - set(NOT_RELEASES))
    assert not missing, (f"new release(s) without an entry in RELEASES (how to call them with one private "
                         f"record of any size) or NOT_RELEASES (why they have no private argument): {missing}")
    stale = sorted((set(RELEASES) | set(NOT_RELEASES)) - found)
    assert not stale, f"entries for functions that are no longer releases: {stale}"
    assert len(RELEASES) >= 20


def _finite_numbers(out, may_decline: bool) -> bool:
    """True when every number in the output (nested tuples, lists, dicts, arrays) is finite."""
    if out is None:
        return may_decline
    if isinstance(out, dict):
        return all(_finite_numbers(v, may_decline) for v in out.values())
    if isinstance(out, (tuple, list, set, frozenset)):
        return all(_finite_numbers(v, may_decline) for v in out)
    if isinstance(out, str):
        return True
    if dataclasses.is_dataclass(out) and not isinstance(out, type):  # a release object: its fields
        return all(_finite_numbers(getattr(out, f.name), may_decline) for f in dataclasses.fields(out))
    if isinstance(out, numbers.Number) and not isinstance(out, (np.generic, numbers.Integral)):
        return math.isfinite(out) if isinstance(out, float) else True
    arr = np.asarray(out)
    if arr.dtype.kind in "iub":
        return True
    if arr.dtype.kind == "f":
        return bool(np.isfinite(arr).all())
    if arr.dtype.kind in "US":   # released labels (keys)
        return True
    if arr.dtype == object:
        return all(isinstance(v, (numbers.Integral, str)) or _finite_numbers(v, may_decline) for v in arr.ravel())
    raise AssertionError(f"unexpected output type {type(out).__name__} {arr.dtype}")


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_release_answers_every_size(name):
    spec = RELEASES[name]
    ladder = spec.values
    assert len(ladder) >= 3
    for v in ladder:  # consecutive rungs are neighbours across each limit: both must return
        try:
            out = spec.call(v)
        except Exception as err:  # noqa: BLE001 - any refusal of a finite value is the fault tested
            pytest.fail(f"{name} refused the finite {spec.data} value {v!r}: {type(err).__name__}: {err}")
        assert _finite_numbers(out, spec.may_decline), f"{name} gave a non-finite output for {spec.data} = {v!r}"


def test_the_ladders_straddle_every_internal_limit():
    # The rungs the releases see include both sides of each limit named in the issue.
    for lim in (2.0**40, 2.0**53, 2.0**63, 2.0**64):
        assert any(v < lim for v in FLOATS) and lim in FLOATS and any(v > lim for v in FLOATS)
    assert 2**64 - 1 in INTS and 2**64 in INTS and -(2**63) - 1 in INTS and 10**400 in INTS
    assert MAX_FLOAT in FLOATS and -MAX_FLOAT in FLOATS and 1e308 in FLOATS and 5e-324 in FLOATS


def test_smalldb_caps_the_public_n():
    # Replace-one neighbours have the same n: both are refused, by name, or both released.
    for h in ([2.0**53, 1.0, 2.0], [2.0**53 - 1.0, 2.0, 2.0], [MAX_FLOAT, 1.0, 2.0]):
        with pytest.raises(ValueError, match=r"number of records n = sum\(histogram\), public under replace-one"):
            dpcourse.smalldb(h, QUERIES, 1.0, m=3, rng=0)
