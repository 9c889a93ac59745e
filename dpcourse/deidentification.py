"""De-identification and what differential privacy promises instead (chapter "Differential privacy in the world").

Part one: the classical release-and-hope pipeline and how it fails. A *table* is a dict ``{column: 1-d array}``
(the layout of :func:`dpcourse.data.read_csv`); the *quasi-identifiers* are columns that are not secret on their
own but that an outsider can know (age, years married, occupation, ...). :func:`equivalence_classes`,
:func:`k_anonymity`, :func:`uniqueness`, :func:`generalize`, :func:`l_diversity` and :func:`homogeneous_records`
measure such a table; :func:`linkage_attack` joins it with an auxiliary table on the quasi-identifiers
(Sweeney 2002; Machanavajjhala et al. 2007).

Part two: what an attacker learns from a differentially private release. :func:`posterior_bound` is the
Bayesian reading of epsilon-DP (theorem ``world-thm-posterior``), and :func:`histogram_attack_posterior` is
the exact posterior of the strongest attacker (who knows every other record) against
:func:`dpcourse.dp_histogram`, which attains that bound. :func:`rappor_epsilon` turns the published RAPPOR
parameters into their two guarantees (Erlingsson, Pihur & Korolova 2014).

None of these functions is random: the de-identification measures are exact counts, and the attack on the
DP release is a deterministic function of a release drawn by :func:`dpcourse.dp_histogram`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from ._validation import (check_epsilon, check_positive_int, check_probability, check_real,
                          check_real_array, check_relation)
from .data import read_csv
from .histogram import histogram_sensitivity

__all__ = [
    "load_affairs_survey",
    "load_deployments",
    "equivalence_classes",
    "k_anonymity",
    "uniqueness",
    "generalize",
    "l_diversity",
    "homogeneous_records",
    "linkage_attack",
    "posterior_bound",
    "histogram_attack_posterior",
    "rappor_epsilon",
    "EquivalenceClasses",
    "RapporEpsilon",
]


# ----------------------------------------------------------------------------------------------------
# Data


def load_affairs_survey() -> dict[str, np.ndarray]:
    """Fair's affairs survey with every column (601 respondents; ``affairs_survey.csv``, see ``SOURCES.md``).

    The same rows, in the same order, as :func:`dpcourse.data.load_affairs`.

    Returns
    -------
    dict of str to numpy.ndarray
        The columns, 601 entries each: ``id`` (the row name of the published table), ``any_affair`` (1 if at
        least one affair in the past year), ``affairs`` (0, 1, 2, 3, 7 = 4-10 times, 12 = monthly or more),
        ``gender``, ``age`` (class midpoints 17.5, 22, ..., 57), ``yearsmarried`` (0.125, 0.417, 0.75, 1.5, 4, 7,
        10, 15), ``children`` ("yes"/"no"), ``religiousness`` (1 = anti to 5 = very), ``education`` (years, coded
        9-20), ``occupation`` (Hollingshead classes 1-7) and ``rating`` (of the marriage, 1-5).

    Examples
    --------
    >>> survey = load_affairs_survey()
    >>> len(survey["id"]), sorted(set(survey["children"].tolist()))
    (601, ['no', 'yes'])
    """
    return read_csv("affairs_survey.csv")


def load_deployments() -> dict[str, np.ndarray]:
    """Published parameters of deployed DP systems, one parameter per row (``dp_deployments.csv``).

    Only numbers checked against their source are in the file; the chapter computes everything else.

    Returns
    -------
    dict of str to numpy.ndarray
        The columns: ``deployment``, ``model`` (central or local), ``accounting`` (pure, zcdp or config), ``unit``
        (the unit of privacy: what one neighbouring change is), ``period`` (over what the parameter holds),
        ``parameter``, ``value`` (a string: a decimal or a fraction such as ``104/4099``), ``source`` (the
        ``references.bib`` key) and ``where`` (the page or file of the source that states it).

    Examples
    --------
    >>> list(load_deployments())[:3]
    ['deployment', 'model', 'accounting']
    """
    return read_csv("dp_deployments.csv")


# ----------------------------------------------------------------------------------------------------
# Tables


def _check_column(col: npt.ArrayLike, name: str) -> np.ndarray:
    """A 1-d column of finite numbers or of strings (bools, objects, NaN refused)."""
    if isinstance(col, (str, bytes)) or np.ndim(col) != 1:
        raise ValueError(f"{name} must be a 1-d array, got {type(col).__name__}")
    arr = np.asarray(col)
    if arr.dtype.kind == "U":
        return arr
    if arr.dtype == bool:
        raise TypeError(f"{name} must hold numbers or strings, got booleans (use 0 and 1)")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers or strings, got dtype {arr.dtype}")
    return check_real_array(arr, name, allow_empty=True)


def _check_table(table: object, name: str, columns: Sequence[str],
                 columns_name: str = "quasi_identifiers") -> dict[str, np.ndarray]:
    """The named ``columns`` of ``table`` (a dict of equal-length 1-d columns, at least one row)."""
    if not isinstance(table, dict):
        raise TypeError(f"{name} must be a dict {{column: 1-d array}}, got {type(table).__name__}")
    out, n = {}, None
    for c in columns:
        if c not in table:
            raise ValueError(f"{columns_name} names the column {c!r}, which {name} does not have; its columns are "
                             f"{sorted(map(str, table))}")
        arr = _check_column(table[c], f"{name}[{c!r}]")
        if n is None:
            n = arr.size
        elif arr.size != n:
            raise ValueError(f"{name}: column {c!r} has {arr.size} rows, expected {n} like the others")
        out[c] = arr
    if n == 0:
        raise ValueError(f"{name} must have at least one row")
    return out


def _check_columns(columns: object, name: str) -> list[str]:
    if isinstance(columns, str) or not isinstance(columns, (list, tuple)):
        raise TypeError(f"{name} must be a list of column names, got {type(columns).__name__} {columns!r}")
    if len(columns) == 0:
        raise ValueError(f"{name} must name at least one column")
    if not all(isinstance(c, str) for c in columns):
        raise TypeError(f"{name} must hold column names (strings), got {columns!r}")
    if len(set(columns)) != len(columns):
        raise ValueError(f"{name} must not repeat a column, got {columns!r}")
    return list(columns)


def _joint_codes(columns: list[np.ndarray]) -> np.ndarray:
    """One integer per row such that two rows get the same code iff they agree on every column."""
    codes = np.column_stack([np.unique(col, return_inverse=True)[1].ravel() for col in columns])
    return np.unique(codes, axis=0, return_inverse=True)[1].ravel()


class EquivalenceClasses(NamedTuple):
    """What :func:`equivalence_classes` returns: each record's class and the size of that class."""

    labels: np.ndarray   # int64, shape (n,): the class of each record
    sizes: np.ndarray    # int64, shape (n,): the number of records in that class


def equivalence_classes(table: Mapping[str, npt.ArrayLike], quasi_identifiers: Sequence[str]) -> EquivalenceClasses:
    """Group the records of ``table`` by their values on ``quasi_identifiers``.

    Two records are in the same *equivalence class* when they agree on every quasi-identifier (definition
    ``world-def-kanon``): an outsider who knows those attributes of a person cannot tell the records of one class
    apart. Exact counts, not a release.

    Parameters
    ----------
    table : dict of 1-d arrays
        Columns of equal length (numbers or strings), at least one row.
    quasi_identifiers : list of str
        Column names, at least one.

    Returns
    -------
    EquivalenceClasses
        The NamedTuple ``(labels, sizes)`` of two int64 arrays of shape (n,): ``labels[i]`` numbers the class of
        record i (0, 1, ... in the sorted order of the value tuples) and ``sizes[i]`` is the number of records in
        that class.

    Examples
    --------
    >>> t = {"age": [30, 30, 40], "sex": ["f", "f", "m"]}
    >>> [a.tolist() for a in equivalence_classes(t, ["age", "sex"])]
    [[0, 0, 1], [2, 2, 1]]
    """
    qis = _check_columns(quasi_identifiers, "quasi_identifiers")
    cols = _check_table(table, "table", qis)
    labels = _joint_codes([cols[c] for c in qis]).astype(np.int64)
    counts = np.bincount(labels)
    return EquivalenceClasses(labels, counts[labels].astype(np.int64))


def k_anonymity(table: Mapping[str, npt.ArrayLike], quasi_identifiers: Sequence[str]) -> int:
    """The largest k such that ``table`` is k-anonymous on ``quasi_identifiers``: its smallest class size.

    Definition ``world-def-kanon`` (Sweeney 2002): every record shares its quasi-identifier values with at least
    k - 1 others. It is a property of one table, not of the process that produced it, and says nothing of the
    sensitive values inside a class (see :func:`l_diversity`).

    Parameters
    ----------
    table : dict of 1-d arrays
        Columns of equal length (numbers or strings), at least one row.
    quasi_identifiers : list of str
        Column names, at least one.

    Returns
    -------
    int
        k >= 1.

    Examples
    --------
    >>> k_anonymity({"age": [30, 30, 40, 40, 40]}, ["age"])
    2
    """
    _, sizes = equivalence_classes(table, quasi_identifiers)
    return int(sizes.min())


def uniqueness(table: Mapping[str, npt.ArrayLike], quasi_identifiers: Sequence[str]) -> float:
    """The fraction of records that are alone in their class (unique on ``quasi_identifiers``).

    A unique record is re-identified by anyone who knows its quasi-identifiers and that the person is in the
    table (the linkage of :func:`linkage_attack`; definition ``world-def-kanon``).

    Parameters
    ----------
    table : dict of 1-d arrays
        Columns of equal length (numbers or strings), at least one row.
    quasi_identifiers : list of str
        Column names, at least one.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> uniqueness({"age": [30, 30, 40, 50]}, ["age"])
    0.5
    """
    _, sizes = equivalence_classes(table, quasi_identifiers)
    return float(np.mean(sizes == 1))


def generalize(values: npt.ArrayLike, edges: npt.ArrayLike) -> np.ndarray:
    """Coarsen numbers into intervals: each value is replaced by the lower edge of its interval.

    The intervals are ``[edges[i], edges[i+1])``, the last one closed, ``[edges[-2], edges[-1]]``. This is the
    "generalization" step of k-anonymization (definition ``world-def-kanon``).

    Parameters
    ----------
    values : array_like of float, shape (n,)
        Finite numbers in ``[edges[0], edges[-1]]``: a value outside raises ValueError (no silent clipping), with
        a message that quotes none of them.
    edges : array_like of float
        At least two strictly increasing finite numbers.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Examples
    --------
    >>> generalize([17.5, 22, 27, 57], [17.5, 27, 42, 57]).tolist()
    [17.5, 17.5, 27.0, 42.0]
    """
    x = check_real_array(values, "values", ndim=1)
    e = check_real_array(edges, "edges", ndim=1)
    if e.size < 2:
        raise ValueError(f"edges must hold at least two numbers, got {e.size}")
    if not np.all(np.diff(e) > 0):
        raise ValueError("edges must be strictly increasing")
    outside = (x < e[0]) | (x > e[-1])
    if outside.any():
        raise ValueError(f"values must lie in [edges[0], edges[-1]] = [{e[0]}, {e[-1]}] (the values are private: "
                         f"this message quotes none of them); widen the edges or clamp the values first")
    idx = np.minimum(np.searchsorted(e, x, side="right") - 1, e.size - 2)
    return e[idx]


def _sensitive_per_class(table: object, quasi_identifiers: object, sensitive: object) -> tuple[np.ndarray, np.ndarray]:
    qis = _check_columns(quasi_identifiers, "quasi_identifiers")
    if not isinstance(sensitive, str):
        raise TypeError(f"sensitive must be a column name (a string), got {type(sensitive).__name__}")
    if sensitive in qis:
        raise ValueError(f"sensitive column {sensitive!r} must not be one of the quasi_identifiers")
    cols = _check_table(table, "table", qis)
    cols[sensitive] = _check_table(table, "table", [sensitive], "sensitive")[sensitive]
    if cols[sensitive].size != cols[qis[0]].size:
        raise ValueError(f"table: the sensitive column {sensitive!r} has {cols[sensitive].size} rows, expected "
                         f"{cols[qis[0]].size} like the quasi-identifiers")
    labels = _joint_codes([cols[c] for c in qis])
    s_codes = np.unique(cols[sensitive], return_inverse=True)[1].ravel()
    # distinct (class, sensitive value) pairs, counted per class
    pairs = np.unique(np.column_stack([labels, s_codes]), axis=0)
    distinct = np.bincount(pairs[:, 0], minlength=labels.max() + 1)
    return labels, distinct


def l_diversity(table: Mapping[str, npt.ArrayLike], quasi_identifiers: Sequence[str], sensitive: str) -> int:
    """Distinct l-diversity: the fewest distinct values of ``sensitive`` found in any class.

    Definition ``world-def-ldiv`` (the "distinct" variant of Machanavajjhala et al. 2007). An l-diversity of 1
    means some class is *homogeneous*: everyone in it has the same sensitive value, so knowing that a person is in
    that class reveals the value (the homogeneity attack) whatever k is.

    Parameters
    ----------
    table : dict of 1-d arrays
        Columns of equal length (numbers or strings), at least one row.
    quasi_identifiers : list of str
        Column names, at least one.
    sensitive : str
        The sensitive column, not one of the quasi-identifiers.

    Returns
    -------
    int
        l >= 1.

    Examples
    --------
    >>> t = {"age": [30, 30, 40, 40], "ill": [1, 1, 0, 1]}
    >>> l_diversity(t, ["age"], "ill")
    1
    """
    _, distinct = _sensitive_per_class(table, quasi_identifiers, sensitive)
    return int(distinct.min())


def homogeneous_records(table: Mapping[str, npt.ArrayLike], quasi_identifiers: Sequence[str],
                        sensitive: str) -> np.ndarray:
    """Boolean mask of the records whose whole class shares one value of ``sensitive``.

    For these records the homogeneity attack of definition ``world-def-ldiv`` succeeds: an attacker who knows a
    person's quasi-identifiers (and that the person is in the table) learns the sensitive value with certainty,
    without singling out the record.

    Parameters
    ----------
    table : dict of 1-d arrays
        Columns of equal length (numbers or strings), at least one row.
    quasi_identifiers : list of str
        Column names, at least one.
    sensitive : str
        The sensitive column, not one of the quasi-identifiers.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)

    Examples
    --------
    >>> t = {"age": [30, 30, 40, 40], "ill": [1, 1, 0, 1]}
    >>> homogeneous_records(t, ["age"], "ill").tolist()
    [True, True, False, False]
    """
    labels, distinct = _sensitive_per_class(table, quasi_identifiers, sensitive)
    return distinct[labels] == 1


def linkage_attack(released: Mapping[str, npt.ArrayLike], auxiliary: Mapping[str, npt.ArrayLike],
                   quasi_identifiers: Sequence[str]) -> dict[str, np.ndarray | float]:
    """Join an auxiliary (identified) table to a released (de-identified) one on the quasi-identifiers.

    For each auxiliary record (a person whose name and quasi-identifiers the attacker knows) count the released
    records with the same quasi-identifier values. A count of exactly 1 *links* the person to one released record
    and so to its sensitive columns (Sweeney 2002; definition ``world-def-kanon``). Whether the link is right is a
    question the attacker cannot answer from the data; a chapter checks it with the hidden ``id``.

    Parameters
    ----------
    released, auxiliary : dict of 1-d arrays
        Both must hold every quasi-identifier column, with the same kind (numbers or strings) in both.
    quasi_identifiers : list of str
        Column names, at least one.

    Returns
    -------
    dict
        ``match_counts`` (int64, one per auxiliary record), ``matched_index`` (int64: the index in ``released`` of
        the single matching record, -1 when the count is not 1) and ``rate`` (float: the fraction of auxiliary
        records linked to exactly one released record).

    Examples
    --------
    >>> rel = {"age": [30, 30, 40], "zip": [1, 1, 2]}
    >>> aux = {"age": [40, 30, 50], "zip": [2, 1, 1]}
    >>> out = linkage_attack(rel, aux, ["age", "zip"])
    >>> out["match_counts"].tolist(), out["matched_index"].tolist(), round(out["rate"], 4)
    ([1, 2, 0], [2, -1, -1], 0.3333)
    """
    qis = _check_columns(quasi_identifiers, "quasi_identifiers")
    rel = _check_table(released, "released", qis)
    aux = _check_table(auxiliary, "auxiliary", qis)
    n_rel = rel[qis[0]].size
    joined = []
    for c in qis:
        if (rel[c].dtype.kind == "U") != (aux[c].dtype.kind == "U"):
            raise TypeError(f"column {c!r} holds strings in one of released and auxiliary and numbers in the other")
        joined.append(np.concatenate([rel[c], aux[c]]))
    codes = _joint_codes(joined)
    rel_codes, aux_codes = codes[:n_rel], codes[n_rel:]
    counts = np.bincount(rel_codes, minlength=codes.max() + 1)
    # index of one released record per code (the only one when the count is 1)
    first = np.full(codes.max() + 1, -1, dtype=np.int64)
    first[rel_codes[::-1]] = np.arange(n_rel - 1, -1, -1)
    match_counts = counts[aux_codes].astype(np.int64)
    matched = np.where(match_counts == 1, first[aux_codes], -1).astype(np.int64)
    return {"match_counts": match_counts, "matched_index": matched, "rate": float(np.mean(match_counts == 1))}


# ----------------------------------------------------------------------------------------------------
# What a DP release lets an attacker learn


def posterior_bound(prior: npt.ArrayLike, epsilon: float) -> float | np.ndarray:
    """The largest posterior probability an epsilon-DP release can give to a secret of prior probability ``prior``.

    Theorem ``world-thm-posterior``: if the release is epsilon-DP under a neighbouring relation and the two values
    of the secret correspond to neighbouring datasets (replace-one for "the target's sensitive value is 1 rather
    than 0", add/remove for "the target is in the data"), then after any output the posterior odds are at most
    e^epsilon times the prior odds: ``posterior <= e^eps p / (e^eps p + 1 - p)``. The bound holds for an attacker
    who knows every other record, and :func:`dpcourse.dp_histogram` attains it (see
    :func:`histogram_attack_posterior`). Computed as ``expit(logit(p) + eps)``, stable for tiny and huge epsilon.

    Parameters
    ----------
    prior : float or array_like of float
        Prior probability(ies) in [0, 1].
    epsilon : float
        Privacy parameter, > 0.

    Returns
    -------
    float or numpy.ndarray of float64
        A float for a scalar ``prior``, else an array of its shape.

    Examples
    --------
    >>> round(posterior_bound(0.5, math.log(3)), 6)
    0.75
    >>> posterior_bound([0.0, 1.0], 2.0).tolist()
    [0.0, 1.0]
    """
    eps = check_epsilon(epsilon)
    scalar = np.ndim(prior) == 0
    if scalar:
        p = np.array(check_probability(prior, "prior"))
    else:
        p = check_real_array(prior, "prior")
        if ((p < 0) | (p > 1)).any():
            i = int(np.argmax((p < 0) | (p > 1)))
            raise ValueError(f"prior must lie in [0, 1], got {p.flat[i]} at index {i}")
    with np.errstate(divide="ignore"):
        out = special.expit(special.logit(p) + eps)
    return float(out) if scalar else out


def histogram_attack_posterior(released: npt.ArrayLike, counts_0: npt.ArrayLike, counts_1: npt.ArrayLike, *,
                               epsilon: float, relation: str, prior: float) -> np.ndarray:
    """Exact posterior that the secret bit is 1, for the attacker who knows everything but that bit.

    The attacker knows the histogram is ``counts_0`` if the bit is 0 and ``counts_1`` if it is 1 (neighbours under
    ``relation``: they differ by at most the histogram's sensitivity Delta in L1), and sees ``released =
    dp_histogram(...)`` drawn with the same ``epsilon`` and ``relation`` (secure geometric noise of scale
    Delta / epsilon). Bayes' rule with the exact pmf of the noise gives the log-odds ``logit(prior) + (eps /
    Delta) (||y - c0||_1 - ||y - c1||_1)``, at most ``logit(prior) + eps`` (theorem ``world-thm-posterior``), with
    equality on the outputs beyond both changed counts: the bound is attained.

    Parameters
    ----------
    released : array_like of int, shape (k,) or (runs, k)
        Noisy counts from :func:`dpcourse.dp_histogram` (``secure=True``), one release per row, of absolute value
        below 2**62 (larger ones would wrap in int64 arithmetic: refused by name).
    counts_0, counts_1 : array_like of int, shape (k,)
        The true histograms under the two hypotheses (non-negative integers below 2**62).
    epsilon : float
        The epsilon the release was drawn with, > 0.
    relation : {"add_remove", "replace_one"}
        The relation the release was calibrated to.
    prior : float
        Prior probability that the bit is 1, in (0, 1).

    Returns
    -------
    numpy.ndarray of float64, shape (runs,) (or a 0-d array for one release)

    Examples
    --------
    >>> c0, c1 = [5, 3], [4, 4]           # the target moves from cell 0 to cell 1
    >>> post = histogram_attack_posterior([[0, 9], [5, 3]], c0, c1, epsilon=1.0, relation="replace_one", prior=0.5)
    >>> [round(float(v), 6) for v in post]   # extreme output: e/(1+e); output = c0: 1/(1+e)
    [0.731059, 0.268941]
    """
    eps = check_epsilon(epsilon)
    rel = check_relation(relation)
    p = check_probability(prior, "prior", low_open=True, high_open=True)
    delta_f = histogram_sensitivity(rel)
    y = _integer_array(released, "released")
    if y.ndim not in (1, 2):
        raise ValueError(f"released must have shape (k,) or (runs, k), got {y.shape}")
    c0 = _integer_array(counts_0, "counts_0")
    c1 = _integer_array(counts_1, "counts_1")
    if c0.ndim != 1 or c1.shape != c0.shape or y.shape[-1] != c0.size or c0.size == 0:
        raise ValueError(f"counts_0 {c0.shape}, counts_1 {c1.shape} and the rows of released {y.shape} must all "
                         f"have the same length k >= 1")
    if (c0 < 0).any() or (c1 < 0).any():
        raise ValueError("counts_0 and counts_1 must be non-negative counts")
    dist = int(np.abs(c1 - c0).sum())
    if dist > delta_f:
        raise ValueError(f"counts_0 and counts_1 are not neighbours under {rel!r}: they differ by {dist} in L1, "
                         f"more than the sensitivity {delta_f:g}")
    # |values| < 2**62 (checked): y - c and |y - c| fit in int64; the l1 norms may wrap, their difference cannot
    llr = (eps / delta_f) * (np.abs(y - c0).sum(axis=-1) - np.abs(y - c1).sum(axis=-1))
    return special.expit(special.logit(p) + llr)


#: Largest absolute value :func:`histogram_attack_posterior` accepts in a count: y - c and |y - c| then fit in int64.
_ATTACK_MAX_COUNT = 2**62 - 1


def _integer_array(x: object, name: str) -> np.ndarray:
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be an array of integers, got {type(x).__name__}")
    arr = np.asarray(x)
    if arr.dtype == bool or arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers (the secure release's counts), got dtype {arr.dtype}")
    # a uint64 above 2**63 would wrap to a negative int64, and y - c would wrap for |values| near 2**63
    if arr.size and (arr.max() > _ATTACK_MAX_COUNT or (arr.dtype.kind == "i" and arr.min() < -_ATTACK_MAX_COUNT)):
        raise ValueError(f"{name} must hold integers of absolute value below 2**62 (larger ones would wrap in "
                         f"int64 arithmetic)")
    return arr.astype(np.int64)


class RapporEpsilon(NamedTuple):
    """What :func:`rappor_epsilon` returns: RAPPOR's longitudinal and one-report guarantees."""

    eps_inf: float   # over all reports of one value (the permanent randomized response)
    eps_1: float     # for one report


def rappor_epsilon(f: float, p: float, q: float, h: int) -> RapporEpsilon:
    """The two guarantees of RAPPOR: ``(eps_inf, eps_1)`` (Erlingsson, Pihur & Korolova 2014, Section 3).

    A client hashes its value into a Bloom filter with ``h`` hash functions, keeps each bit with probability 1 - f
    and replaces it by a fair coin with probability f (permanent randomized response), and in every report sends
    each memoized bit as 1 with probability q if it is 1 and p if it is 0 (instantaneous randomized response). Two
    values differ in at most 2h Bloom bits, so ``eps_inf = 2 h ln((1 - f/2) / (f/2))`` bounds *all* reports of one
    value (the longitudinal bound) and ``eps_1 = h ln(q*(1 - p*) / (p*(1 - q*)))``, with ``q* = (1 - f/2) q +
    (f/2) p`` and ``p* = (f/2) q + (1 - f/2) p``, one report. Both are epsilon-DP in the local model under the
    replace relation on one client's value (definition ``def-ldp-oracle``); they protect the value, not the fact that
    the client reports, and the longitudinal bound holds only while the value does not change.

    Parameters
    ----------
    f : float
        Permanent randomization probability, in (0, 1].
    p, q : float
        Instantaneous report probabilities, 0 <= p < q <= 1.
    h : int
        Number of hash functions, >= 1.

    Returns
    -------
    RapporEpsilon
        The NamedTuple ``(eps_inf, eps_1)`` of two floats >= 0.

    Examples
    --------
    >>> [round(v, 4) for v in rappor_epsilon(0.5, 0.5, 0.75, 2)]
    [4.3944, 1.0743]
    """
    f = check_real(f, "f", low=0.0, high=1.0, low_open=True)
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if not p < q:
        raise ValueError(f"p must be < q (a 1 bit is reported as 1 more often than a 0 bit), got p={p}, q={q}")
    h = check_positive_int(h, "h")
    # log-space throughout: f may be so small that f/2 underflows, and p may be 0 or q may be 1
    log_half, log1m_half = math.log(f) - math.log(2.0), math.log1p(-f / 2.0)
    eps_inf = max(0.0, 2.0 * h * (log1m_half - log_half))  # >= 0 since f/2 <= 1/2; rounding could dip below
    with np.errstate(divide="ignore"):
        lp, lq, l1p, l1q = np.log(p), np.log(q), np.log1p(-p), np.log1p(-q)
    log_q_star = np.logaddexp(log1m_half + lq, log_half + lp)     # (1 - f/2) q + (f/2) p
    log_p_star = np.logaddexp(log_half + lq, log1m_half + lp)     # (f/2) q + (1 - f/2) p
    log_1m_q_star = np.logaddexp(log1m_half + l1q, log_half + l1p)  # 1 - q* = (1 - f/2)(1 - q) + (f/2)(1 - p)
    log_1m_p_star = np.logaddexp(log_half + l1q, log1m_half + l1p)  # 1 - p* = (f/2)(1 - q) + (1 - f/2)(1 - p)
    eps_1 = max(0.0, h * float(log_q_star + log_1m_p_star - log_p_star - log_1m_q_star))
    return RapporEpsilon(float(eps_inf), float(eps_1))
