"""Answering many queries: the compatibility module of the chapters "Too many answers" and "Private query release".

The code lives, one topic per module, in:

* :mod:`dpcourse.attacks`: reconstruction from noisy subset sums (:func:`reconstruction_attack`,
  :func:`penguin_sex_bits`, :func:`random_subset_queries`) and tracing from released means
  (:func:`tracing_scores`, :func:`tpr_at_fpr`, :func:`tracing_experiment`);
* :mod:`dpcourse.svt`: the sparse vector technique (:func:`above_threshold`, :func:`sparse_vector`,
  :func:`above_threshold_accuracy`) and its published broken variants, for audits
  (:data:`SVT_VARIANTS`, :func:`sparse_vector_variant`, :func:`svt_audit_mechanism`);
* :mod:`dpcourse.query_release`: SmallDB, MWEM, the per-query Laplace and Gaussian releases, the comparison
  :func:`error_versus_queries` and the affairs data with its product queries;
* :mod:`dpcourse._query_checks`: the argument checks of query matrices and histograms they share.

Every name this module had is re-exported here, so ``dpcourse.queries.X`` keeps working (the chapters
import ``from dpcourse import queries as Q``). New code imports from the modules above. To patch a
function or a constant in a test, patch it where it lives: a patch of this module's copy of a name
changes nothing the code reads.
"""

from __future__ import annotations

from .attacks import (
    TracingScores,
    penguin_sex_bits,
    random_subset_queries,
    reconstruction_attack,
    tpr_at_fpr,
    tracing_experiment,
    tracing_scores,
)
from .query_release import (
    AFFAIRS_SHAPE,
    SMALLDB_MAX_WORK,
    QueryErrorCurves,
    affairs_histogram,
    answer_queries,
    error_versus_queries,
    gaussian_per_query,
    gaussian_per_query_sigma,
    laplace_per_query,
    max_query_error,
    mwem,
    product_queries,
    replace_one_sensitivity,
    smalldb,
    smalldb_candidates,
    smalldb_error_bound,
    smalldb_sample_size,
)
from .svt import (
    SVT_VARIANTS,
    above_threshold,
    above_threshold_accuracy,
    sparse_vector,
    sparse_vector_variant,
    svt_audit_mechanism,
)

__all__ = [
    "penguin_sex_bits",
    "random_subset_queries",
    "reconstruction_attack",
    "tracing_scores",
    "tpr_at_fpr",
    "tracing_experiment",
    "TracingScores",
    "above_threshold",
    "sparse_vector",
    "sparse_vector_variant",
    "SVT_VARIANTS",
    "svt_audit_mechanism",
    "above_threshold_accuracy",
    "answer_queries",
    "affairs_histogram",
    "AFFAIRS_SHAPE",
    "product_queries",
    "max_query_error",
    "smalldb",
    "smalldb_candidates",
    "smalldb_sample_size",
    "smalldb_error_bound",
    "mwem",
    "replace_one_sensitivity",
    "laplace_per_query",
    "gaussian_per_query",
    "gaussian_per_query_sigma",
    "error_versus_queries",
    "QueryErrorCurves",
    "SMALLDB_MAX_WORK",
]
