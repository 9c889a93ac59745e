"""The release of :func:`dpcourse.dp_group_by` written with PipelineDP (Google's C++ DP library underneath).

:func:`pipeline_dp_group_by` runs it on PipelineDP's local backend or on Apache Beam's local
``DirectRunner``; :func:`pipeline_dp_laplace_parameters` reads the noise parameters PipelineDP states. Neither
``apache_beam`` nor ``pipeline_dp`` is imported before one of these functions runs, and Beam's notebook
checks are switched off only while a Beam pipeline of :func:`pipeline_dp_group_by` runs, and restored after
(``import dpcourse`` changes nothing in Beam).

The student install (``requirements-student.txt``) has PipelineDP but not Apache Beam: there the local engine
runs, :func:`pipeline_dp_engines` lists it alone and prints how to add Beam (:data:`MISSING_ENGINE`), and
asking for Beam raises a ``ModuleNotFoundError`` that says the same.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import logging
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_choice, check_delta, check_epsilon, check_positive_int
from .contribution_bounding import _columns, _labels_column
from .group_by import _ByName, _resolve_bounds

__all__ = ["BeamModules", "PipelineDPRelease", "quiet_beam_import", "pipeline_dp_engines", "pipeline_dp_group_by",
           "pipeline_dp_laplace_parameters", "MISSING_ENGINE"]

#: What a missing engine module (``{module}``) means and how to add it: the student install leaves Beam out.
MISSING_ENGINE = ("The module {module} is not installed here: the student install (requirements-student.txt) "
                  "leaves out Apache Beam (with pyarrow and grpcio). To run PipelineDP on Beam too, install the "
                  "full environment from the course folder, python -m pip install -r requirements.txt, then "
                  "restart the kernel.")

#: The engines of :func:`pipeline_dp_engines`, by name: the ``backend`` of :func:`pipeline_dp_group_by`.
_ENGINES = {"PipelineDP local": "local", "PipelineDP on Beam": "beam"}


class BeamModules(NamedTuple):
    """The two modules :func:`quiet_beam_import` imports (unpacks as ``beam, pipeline_dp``)."""

    beam: ModuleType
    pipeline_dp: ModuleType


@dataclasses.dataclass(frozen=True, eq=False)
class PipelineDPRelease(_ByName):
    """What :func:`pipeline_dp_group_by` releases; fields also read by name (``res["report"]``)."""

    keys: np.ndarray        #: the released keys, sorted
    count: np.ndarray       #: noisy count per key (floats), aligned with ``keys``
    sum: np.ndarray         #: noisy clamped sum per key (floats)
    report: str             #: PipelineDP's explain-computation text (each mechanism's Laplace parameter)


def quiet_beam_import() -> BeamModules:
    """Import ``apache_beam`` and ``pipeline_dp`` with the root logger's import-time warning silenced.

    Beam logs "apitools not found ..." on the root logger when it is imported (harmless: it concerns the
    Google Cloud I/O connectors). The root logger's level is restored after the import.

    Returns
    -------
    BeamModules
        ``(beam, pipeline_dp)``, the two modules.

    Examples
    --------
    >>> beam, pipeline_dp = quiet_beam_import()   # doctest: +SKIP
    """
    return BeamModules(_import_engine("apache_beam"), _import_engine("pipeline_dp"))


def _import_engine(module: str) -> ModuleType:
    """``import module`` with the root logger's warnings silenced (``pipeline_dp`` imports Beam where it is
    installed); if that module itself is not installed, a ``ModuleNotFoundError`` saying how to add it.

    A module that is installed but fails to import (a missing dependency of it, a broken install) raises as is.
    """
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise ModuleNotFoundError(MISSING_ENGINE.format(module=module), name=module) from exc
    finally:
        root.setLevel(level)


def pipeline_dp_engines() -> dict[str, str]:
    """The PipelineDP engines installed here, by name: the local engine, and Apache Beam's ``DirectRunner``.

    Imports them (Beam with its import-time warning silenced, as :func:`quiet_beam_import`). An engine whose
    module is not installed (Beam in the student install, ``requirements-student.txt``) is left out and a
    line saying how to add it (:data:`MISSING_ENGINE`) is printed, so that a notebook comparing the engines
    runs with those it has. A module that is installed but fails to import raises.

    Returns
    -------
    dict
        ``{"PipelineDP local": "local", "PipelineDP on Beam": "beam"}``, less the engines not installed; each
        value is the ``backend`` argument of :func:`pipeline_dp_group_by`.

    Examples
    --------
    >>> pipeline_dp_engines()   # doctest: +SKIP
    {'PipelineDP local': 'local', 'PipelineDP on Beam': 'beam'}
    """
    try:
        _import_engine("pipeline_dp")
    except ModuleNotFoundError as exc:
        print(exc)
        return {}
    try:
        quiet_beam_import()
    except ModuleNotFoundError as exc:
        if exc.name != "apache_beam":
            raise
        print(exc)
        return {"PipelineDP local": _ENGINES["PipelineDP local"]}
    return dict(_ENGINES)


@contextlib.contextmanager
def _as_a_script() -> Iterator[None]:
    """Run Beam as it runs from a script, also inside Jupyter (the one change this module makes to Beam).

    In an IPython kernel Beam switches on its notebook integration (cell labels, pipeline tracking),
    which imports pandas; the course does not install pandas, and the integration is not needed to run a
    pipeline. Beam's "am I in IPython?" checks answer no while the block runs, and are restored after.
    """
    names = [("apache_beam.utils.interactive_utils", "is_in_ipython"), ("apache_beam.pipeline", "is_in_ipython"),
             ("apache_beam.runners.direct.direct_runner", "is_in_ipython"),
             ("apache_beam.utils.interactive_utils", "is_in_notebook"),
             ("apache_beam.runners.portability.fn_api_runner.worker_handlers", "is_in_notebook")]
    saved = []
    for module_name, attr in names:
        module = importlib.import_module(module_name)
        saved.append((module, attr, getattr(module, attr)))
        setattr(module, attr, lambda: False)
    try:
        yield
    finally:
        for module, attr, value in saved:
            setattr(module, attr, value)


def pipeline_dp_group_by(user_ids: ArrayLike, keys: ArrayLike, values: ArrayLike, epsilon: float, delta: float, *,
                         lower: float | None = None, upper: float | None = None, max_partitions: int,
                         max_per_partition: int, public_partitions: ArrayLike | None = None, backend: str = "local",
                         bounds: tuple[float, float] | None = None) -> PipelineDPRelease:
    """The release of :func:`dpcourse.dp_group_by` (count and sum) written with PipelineDP, locally or on Beam.

    Same unit of privacy, contribution bounds, budget split (PipelineDP's ``NaiveBudgetAccountant``: epsilon/3
    to each of selection, count and sum, the whole delta to selection), Laplace scales and optimal partition
    selection (Google's truncated geometric strategy). ``backend="local"`` runs ``pipeline_dp.LocalBackend``;
    ``backend="beam"`` runs an Apache Beam pipeline on the local ``DirectRunner`` (results go through a
    temporary folder; Beam's notebook integration, which needs pandas, is kept off while it runs).

    Guarantee: PipelineDP's, (epsilon, delta)-DP under **add/remove one user** as for
    :func:`dpcourse.dp_group_by` (theorem ``scale-thm-group-by``), with the noise of Google's C++ library,
    whose secure generator **cannot be seeded** (two runs differ) and is not checked here.

    Parameters
    ----------
    user_ids, keys : array_like, shape (n,)
        Privacy id and partition key of each row (ints or strings).
    values : array_like of floats, shape (n,)
        Values to sum.
    epsilon : float
        Total epsilon, > 0.
    delta : float
        Total delta, in (0, 1) with private partition selection; in [0, 1) with public partitions.
    lower, upper : float
        Public clamping bounds of the values, lower < upper.
    max_partitions, max_per_partition : int
        Contribution bounds m and c, >= 1.
    public_partitions : array_like, optional
        Keys known without looking at the data (released whether or not they occur).
    backend : {"local", "beam"}, default "local"
    bounds : (float, float), optional
        Deprecated spelling of ``(lower, upper)``.

    Returns
    -------
    PipelineDPRelease
        ``keys`` (sorted), ``count`` and ``sum`` (float arrays aligned with ``keys``), and ``report``
        (PipelineDP's explain-computation text, which states each mechanism's Laplace parameter); also
        read by name, ``res["report"]``.

    Examples
    --------
    >>> res = pipeline_dp_group_by(["u", "v"], ["a", "a"], [1.0, 2.0], 1.0, 0.0, lower=0, upper=5,
    ...                            max_partitions=1, max_per_partition=1, public_partitions=["a"])  # doctest: +SKIP
    >>> res.keys.tolist()                                                                            # doctest: +SKIP
    ['a']
    """
    users, ks, vals = _columns(user_ids, keys, values, need_values=True)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, allow_zero=public_partitions is not None)
    pair = _resolve_bounds(lower, upper, bounds, needed=True)
    m = check_positive_int(max_partitions, "max_partitions")
    c = check_positive_int(max_per_partition, "max_per_partition")
    which = check_choice(backend, "backend", ("local", "beam"))
    if pair is None or vals is None:   # (never: both are required above)
        raise ValueError("values, lower and upper must be given")
    lo, hi = pair
    if which == "beam":
        beam, pipeline_dp = quiet_beam_import()
    else:   # the local engine needs no Beam (the student install has none)
        pipeline_dp = _import_engine("pipeline_dp")
    rows = list(zip(users.tolist(), ks.tolist(), vals.tolist()))
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=eps, total_delta=dlt)
    params = pipeline_dp.AggregateParams(noise_kind=pipeline_dp.NoiseKind.LAPLACE,
                                         metrics=[pipeline_dp.Metrics.COUNT, pipeline_dp.Metrics.SUM],
                                         max_partitions_contributed=m, max_contributions_per_partition=c,
                                         min_value=lo, max_value=hi)
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda row: row[0],
                                            partition_extractor=lambda row: row[1],
                                            value_extractor=lambda row: row[2])
    report = pipeline_dp.report_generator.ExplainComputationReport()
    public = None if public_partitions is None else _labels_column(public_partitions, "public_partitions").tolist()
    out: list[Any]
    if which == "local":
        engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
        result = engine.aggregate(rows, params, extractors, public_partitions=public,
                                  out_explain_computation_report=report)
        accountant.compute_budgets()
        out = [(k, r.count, r.sum) for k, r in result]
    else:
        import ast
        import pathlib
        import tempfile

        with tempfile.TemporaryDirectory() as folder, _as_a_script():
            with beam.Pipeline(runner="DirectRunner") as pipeline:
                engine = pipeline_dp.DPEngine(accountant, pipeline_dp.BeamBackend())
                result = engine.aggregate(pipeline | beam.Create(rows), params, extractors,
                                          public_partitions=public, out_explain_computation_report=report)
                accountant.compute_budgets()
                (result | beam.Map(lambda kv: repr((kv[0], float(kv[1].count), float(kv[1].sum))))
                 | beam.io.WriteToText(str(pathlib.Path(folder) / "part")))
            out = [ast.literal_eval(line) for path in sorted(pathlib.Path(folder).glob("part*"))
                   for line in path.read_text().splitlines()]
    out.sort(key=lambda t: t[0])
    return PipelineDPRelease(np.array([t[0] for t in out]), np.array([t[1] for t in out], dtype=float),
                             np.array([t[2] for t in out], dtype=float), report.text())


def pipeline_dp_laplace_parameters(report: str) -> dict[str, float]:
    """The Laplace parameters (scales b) PipelineDP states in an explain-computation report, by metric.

    Parameters
    ----------
    report : str
        The ``report`` of :func:`pipeline_dp_group_by`.

    Returns
    -------
    dict
        ``{metric name: b}`` for each "Computed DP <metric> with Laplace mechanism: parameter=<b>" line.

    Examples
    --------
    >>> pipeline_dp_laplace_parameters("Computed DP count with\\n Laplace mechanism:\\n parameter=6.0")
    {'count': 6.0}
    """
    found = re.findall(r"Computed DP (\w+) with\s+Laplace mechanism:\s+parameter=([0-9.e+-]+)", report)
    return {name: float(b) for name, b in found}
