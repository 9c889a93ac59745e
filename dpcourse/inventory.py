"""The inventory of every random function of dpcourse: what it samples with, and is it floating-point safe?

One entry per public function (or method) of the package's modules that takes ``rng``: the releases of
private data, and the simulations and audits that are not releases (``kind``). ``exact`` says whether the
default path samples its randomness exactly (integer draws and exact comparisons: no output's probability
is changed by floating-point rounding, and no output of one input is impossible under a neighbour); a
release that is not exact by default says why in ``note``. The chapter "Noise on a computer" prints this
table, and ``tests/test_inventory.py`` fails when a function with ``rng`` has no entry (or an entry names
a function that no longer exists).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Entry", "INVENTORY", "InventoryRow", "inventory_rows"]


class Entry(NamedTuple):
    kind: str      # "release", "simulation" (builds data or runs a study), "audit"
    sampler: str   # what the default path draws
    exact: bool    # default path floating-point safe?
    note: str      # float status and, for anything not exact, why


_EXACT_LATTICE = "lattice noise (exact discrete Laplace/Gaussian from integer draws)"
_SIM = "numpy float samplers"

INVENTORY = {
    # Additive noise
    "laplace.laplace_mechanism": Entry("release", _EXACT_LATTICE, True, "secure=False: textbook float inverse CDF"),
    "laplace.dp_mean": Entry("release", _EXACT_LATTICE, True, "secure=False: float Laplace"),
    "gaussian.gaussian_mechanism": Entry("release", _EXACT_LATTICE, True, "secure=False: float Gaussian"),
    "discrete.discrete_laplace": Entry("release", "exact integer sampler (Canonne-Kamath-Steinke)", True, ""),
    "discrete.discrete_gaussian": Entry("release", "exact integer sampler (Canonne-Kamath-Steinke)", True, ""),
    "discrete.geometric_mechanism": Entry("release", "exact discrete Laplace", True, ""),
    "histogram.dp_histogram": Entry("release", "geometric mechanism or secure Laplace", True,
                                    "secure=False: float Laplace"),
    "optimal_noise.knorm_l2_noise": Entry("release", "float Gamma radius times a float direction", False,
                                          "continuous K-norm noise has no exact lattice sampler here; taught "
                                          "as a shape, not used by any other release"),
    # Selection
    "selection.exponential_mechanism": Entry("release", "53-bit uniform located exactly among certified CDF "
                                             "bounds", True, "secure=False: float CDF (underflowing weights)"),
    "selection.permute_and_flip": Entry("release", "exact coins U < exp(-x), exact uniform order", True,
                                        "secure=False: float coins"),
    "selection.report_noisy_max": Entry("release", "lattice scores + exact discrete Laplace (or the two "
                                        "above for exponential/Gumbel noise)", True, "secure=False: float noise"),
    "quantiles.dp_quantile": Entry("release", "exponential mechanism over intervals, integer draws", True, ""),
    "quantiles.dp_median": Entry("release", "dp_quantile", True, ""),
    "svt.sparse_vector": Entry("release", "exact discrete Laplace on a lattice", True, ""),
    "svt.above_threshold": Entry("release", "sparse_vector", True, ""),
    "svt.sparse_vector_variant": Entry("release", "float Laplace", False,
                                       "the published (partly broken) variants, reproduced to be audited"),
    "query_release.mwem": Entry("release", "secure exponential mechanism + secure Laplace", True, ""),
    "query_release.smalldb": Entry("release", "secure exponential mechanism", True, ""),
    "query_release.laplace_per_query": Entry("release", "laplace_mechanism", True, ""),
    "query_release.gaussian_per_query": Entry("release", "gaussian_mechanism", True, ""),
    # Local model
    "rr.randomized_response": Entry("release", "exact coin U < e^eps/(1+e^eps) on the float code's uniform",
                                    True, "secure=False: float coin (no flip at all once eps > 37)"),
    "local_dp.krr": Entry("release", "64-bit integer coins", True, "coins rounded by < 1e-12 in epsilon, charged"),
    "local_dp.unary_encoding": Entry("release", "64-bit integer coins", True, "as krr"),
    "local_dp.local_hashing": Entry("release", "integer hashes + 64-bit integer coins", True, "as krr"),
    # Robust statistics and inference
    "quantiles.propose_test_release": Entry("release", "exact discrete Laplace + secure Laplace", True, ""),
    "quantiles.smooth_median": Entry("release", "exact discrete Laplace", True, ""),
    "quantiles.sample_and_aggregate": Entry("release", "random partition + dp_mean", True, ""),
    "inference.mean_interval": Entry("release", "laplace_mechanism", True, ""),
    "inference.proportion_interval": Entry("release", "laplace_mechanism", True, ""),
    "inference.quantile_interval": Entry("release", "secure exponential_mechanism on a grid", True, ""),
    "inference.difference_of_means_interval": Entry("release", "laplace_mechanism; its half-width from a float "
                                                    "bootstrap of the released values (post-processing)", True, ""),
    "continual.naive_counts": Entry("release", "exact discrete Laplace", True, ""),
    "continual.tree_counts": Entry("release", "exact discrete noise per tree node", True, ""),
    "continual.factorization_counts": Entry("release", "rounding + exact discrete Gaussian", True, ""),
    # At scale and learning
    "partition_selection.select_partitions": Entry("release", "integer keep thresholds (64-bit words)", True, ""),
    "group_by.dp_group_by": Entry("release", "select_partitions + secure Laplace / geometric", True, ""),
    "contribution_bounding.bound_contributions": Entry("simulation", "uniform permutation (integer draws)", True,
                                       "not a release: the contribution bounding before one"),
    "learning.dp_logistic_regression": Entry("release", "exact Poisson subsampling coins; float Gaussian "
                                             "gradient noise / Gamma-radius output noise", False,
                                             "iterative noise in float: the chapter's remark; no lattice "
                                             "version of DP-SGD here"),
    "synthetic.mst_synthesize": Entry("release", "exact discrete Gaussian measurements + secure exponential "
                                      "mechanism; records then drawn from the private model", True, ""),
    "synthetic.independent_synthesize": Entry("release", "exact discrete Gaussian measurements; records then "
                                              "drawn from the private model", True, ""),
    # Not releases
    "synthetic.sample_tree": Entry("simulation", _SIM, False, "not a release: draws records from an already "
                                   "private model (post-processing)"),
    "synthetic.compare_methods": Entry("simulation", "runs the synthesizers", True, "not a release: a study"),
    "inference.coverage_grid": Entry("simulation", "repeated intervals", True, "not a release: a study"),
    "audit.audit_epsilon": Entry("audit", "runs the audited mechanism", True, "its own float draws are the "
                                 "auditor's, not a release"),
    "membership.canary_audit": Entry("audit", "train_models + audit_epsilon", True, "not a release"),
    "membership.train_models": Entry("simulation", "the caller's training function", True, "not a release"),
    "membership.inclusion_masks": Entry("simulation", _SIM, False, "not a release: who is in each training set"),
    "inference.interval_coverage": Entry("simulation", "repeated intervals", True, "not a release: a study"),
    "inference.mean_interval_coverage": Entry("simulation", "repeated intervals", True, "not a release: a study"),
    "inference.proportion_interval_coverage": Entry("simulation", "repeated intervals", True, "not a release: a study"),
    "inference.difference_interval_coverage": Entry("simulation", "repeated intervals", True, "not a release: a study"),
    "inference.quantile_interval_coverage": Entry("simulation", "repeated intervals", True, "not a release: a study"),
    "query_release.error_versus_queries": Entry("simulation", "laplace/gaussian_per_query", True, "not a release"),
    "attacks.random_subset_queries": Entry("simulation", _SIM, False, "not a release: builds public queries"),
    "attacks.penguin_sex_bits": Entry("simulation", _SIM, False, "not a release: builds a data set"),
    "attacks.tracing_experiment": Entry("simulation", _SIM, False, "not a release: an attack study"),
    "lower_bounds.fingerprinting_code": Entry("simulation", _SIM, False, "not a release: builds a code"),
    "lower_bounds.tracing_trial": Entry("simulation", _SIM + " + gaussian_mechanism", False,
                                        "not a release: an attack study"),
    "data.synthetic_events": Entry("simulation", _SIM, False, "not a release: builds a data set"),
}


class InventoryRow(NamedTuple):
    """One row of :func:`inventory_rows`: an :class:`Entry` with the function's name in front."""

    name: str      # "module.function"
    kind: str
    sampler: str
    exact: bool
    note: str


def inventory_rows(kind: str | None = None) -> list[InventoryRow]:
    """The inventory as ``(name, kind, sampler, exact, note)`` rows, sorted by name.

    Parameters
    ----------
    kind : {"release", "simulation", "audit"}, optional
        Only the entries of that kind; None (default) for all of them.

    Returns
    -------
    list of InventoryRow
        Named tuples ``(name, kind, sampler, exact, note)``: unpacking and indexing work as on plain tuples.

    Examples
    --------
    >>> row = inventory_rows("release")[0]
    >>> row.kind, row == (row.name, row.kind, row.sampler, row.exact, row.note)
    ('release', True)
    """
    return [InventoryRow(name, e.kind, e.sampler, e.exact, e.note) for name, e in sorted(INVENTORY.items())
            if kind is None or e.kind == kind]
