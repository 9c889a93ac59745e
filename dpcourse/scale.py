"""Differential privacy at scale (compatibility module): every name it held, re-exported from its new home.

The chapter "From the course to production" uses these; each topic now lives in its own module:

* contribution bounding (:func:`bound_contributions`, lemma ``scale-lem-bounding``) and the argument checks
  of grouped data: :mod:`dpcourse.contribution_bounding`;
* optimal partition selection (:func:`partition_selection_probability`), the release's exact integer keep
  thresholds and coins (:func:`partition_selection_thresholds`, :func:`achieved_selection_delta`,
  :data:`SELECTION_MAX_STEPS`) and :func:`select_partitions`: :mod:`dpcourse.partition_selection`;
* the end-to-end release :func:`dp_group_by` and its budget split :func:`group_by_noise_scales`:
  :mod:`dpcourse.group_by`;
* the data, :func:`load_flights`, :data:`FLIGHT_DELAY_BOUNDS` and :func:`synthetic_events`: :mod:`dpcourse.data`;
* the same release on PipelineDP, locally or on Apache Beam (:func:`pipeline_dp_group_by`,
  :func:`pipeline_dp_laplace_parameters`, :func:`quiet_beam_import`): :mod:`dpcourse.pipeline_dp_adaptor`,
  which imports neither library and changes nothing in Beam until one of its functions runs.

The unit of privacy is the *user* (the privacy id): two datasets are neighbours when one is the other plus
all the rows of one user (add/remove one user).
"""

from __future__ import annotations

from .contribution_bounding import bound_contributions
from .data import FLIGHT_DELAY_BOUNDS, load_flights, synthetic_events
from .group_by import dp_group_by, group_by_noise_scales
from .partition_selection import SELECTION_MAX_STEPS, SelectionTooLongError  # noqa: F401 - public, not in __all__
from .partition_selection import (
    KeepThresholds,
    achieved_selection_delta,
    partition_selection_probability,
    partition_selection_thresholds,
    select_partitions,
)
from .partition_selection import _keep_probability, _per_partition_parameters  # noqa: F401 - tests import these
from .pipeline_dp_adaptor import pipeline_dp_group_by, pipeline_dp_laplace_parameters, quiet_beam_import

__all__ = [
    "bound_contributions",
    "partition_selection_probability",
    "partition_selection_thresholds",
    "achieved_selection_delta",
    "KeepThresholds",
    "select_partitions",
    "dp_group_by",
    "group_by_noise_scales",
    "load_flights",
    "synthetic_events",
    "FLIGHT_DELAY_BOUNDS",
    "pipeline_dp_group_by",
    "pipeline_dp_laplace_parameters",
    "quiet_beam_import",
]
