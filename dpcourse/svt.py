"""The sparse vector technique: which of many queries lie above a threshold, paying only for the few that do.

The chapter "Too many answers" proves what is used here:

* :func:`above_threshold`, :func:`sparse_vector`: the sparse vector technique with the noise of
  Lyu, Su & Li (2017), Algorithm 1 (definition ``def-svt``, theorem ``thm-svt-privacy``), sampled exactly
  on a power-of-two lattice; :func:`above_threshold_accuracy`: theorem ``thm-svt-accuracy``.
* :func:`sparse_vector_variant` runs the published *broken* variants (:data:`SVT_VARIANTS`) for auditing only,
  and :func:`svt_audit_mechanism` wraps either for :func:`dpcourse.audit_epsilon`.

The neighbouring relation is the caller's: the guarantee holds whenever each query moves by at most
``sensitivity`` between neighbours.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

import numpy as np
import numpy.typing as npt

from ._sampling import _check_terms, _dlap, _round_up
from ._validation import (
    MAX_SIZE,
    as_rng,
    check_choice,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_real,
    check_real_array,
    check_sensitivity,
    check_size,
)
from .lattice import _lattice_steps, _power_of_two_at_most

__all__ = [
    "above_threshold",
    "sparse_vector",
    "sparse_vector_variant",
    "SVT_VARIANTS",
    "svt_audit_mechanism",
    "above_threshold_accuracy",
]


def _check_size(size: int | None) -> int | None:
    return check_size(size, allow_none=True)  # None or an int in [1, MAX_SIZE]


def _svt_indices(above: np.ndarray, c: int) -> np.ndarray:
    """(size, c) indices of the first c True entries of each row of ``above`` (-1 where there are fewer)."""
    cum = np.cumsum(above, axis=1)
    out = np.full((above.shape[0], c), -1, dtype=np.int64)
    for j in range(min(c, above.shape[1])):   # columns beyond the number of queries stay -1
        hit = cum >= j + 1
        out[:, j] = np.where(hit[:, -1], np.argmax(hit, axis=1), -1)
    return out


def _svt_lattice(sensitivity: float) -> tuple[int, int]:
    """Lattice exponent e (spacing 2**e, about sensitivity * 2**-20) and the rounded sensitivity in steps."""
    e = _power_of_two_at_most(sensitivity * 2.0**-20)
    g = Fraction(2) ** e
    return e, math.floor(Fraction(sensitivity) / g) + 1


_SVT_THRESHOLD_STEPS = 2**60   # a (public) threshold must lie within +-2**60 lattice steps
_SVT_EXACT_NOISE = 2**61       # below this, value (<= 2**61 steps) + noise fits int64


def _threshold_steps(t: float, e: int, sensitivity: float) -> int:
    """The public threshold in lattice steps; refused (it is public) beyond +-2**60 steps."""
    limit = math.ldexp(float(_SVT_THRESHOLD_STEPS), e) if e < 964 else math.inf  # 2**(60 + e) beyond the floats
    if not abs(t) < limit:
        raise ValueError(f"threshold must lie in (-{limit!r}, {limit!r}) (2**60 lattice steps of the sensitivity "
                         f"{sensitivity!r}), got {t!r}")
    return int(np.rint(math.ldexp(t, -e)))


def _svt_above(q_steps: np.ndarray, t_steps: int, rho: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """``q_i + nu_i >= T + rho``, exactly: in int64, or in Python ints when a noise draw is huge."""
    if max(int(np.abs(nu).max(initial=0)), int(np.abs(rho).max(initial=0))) < _SVT_EXACT_NOISE:
        return (q_steps[None, :] + nu) >= (t_steps + rho)[:, None]
    lhs = q_steps.astype(object)[None, :] + nu.astype(object)
    return (lhs >= (t_steps + rho.astype(object))[:, None]).astype(bool)


def sparse_vector(values: npt.ArrayLike, threshold: float, epsilon: float, c: int, *, sensitivity: float = 1.0,
                  rng: int | np.random.Generator | None = None,
                  size: int | None = None) -> npt.NDArray[np.int64]:
    """The sparse vector technique: the indices of the first ``c`` queries whose noisy value exceeds a noisy threshold.

    Lyu, Su & Li (2017), Algorithm 1. With ``epsilon_1 = epsilon_2 = epsilon / 2``: draw
    ``rho ~ Lap(sensitivity / epsilon_1)`` once; for each query in order draw
    ``nu_i ~ Lap(2 c sensitivity / epsilon_2)`` and answer "above" (release i) if
    ``q_i + nu_i >= threshold + rho``, else "below"; stop after the c-th "above". The threshold noise is
    **not** redrawn after an "above" answer. The whole transcript (all "below" answers up to the last
    released index) is a function of the returned indices.

    Privacy: epsilon-DP, exactly as implemented, if every ``q_i`` (= ``values[i]``, computed from the data)
    moves by at most ``sensitivity`` between neighbours, under the relation the caller has in mind (add/remove
    or replace one record), however many queries are asked and even if each query is chosen after seeing the
    previous answers (theorem ``thm-svt-privacy``).

    As implemented: the values and the threshold are rounded to the lattice g Z with
    g = 2**floor(log2(sensitivity * 2**-20)); rho and nu are g times exact discrete Laplace draws
    (:func:`dpcourse.discrete_laplace`'s sampler) with scales computed for the rounded sensitivity
    ``floor(sensitivity / g) + 1`` steps and rounded up, so ``thm-svt-privacy`` applies to these integer
    noises as stated. Only comparisons are released, in exact integer arithmetic. A value of any finite
    size is answered: the rounded values are clamped to +-2**61 lattice steps (about 2**41 times the
    sensitivity), a 1-Lipschitz map that keeps the sensitivity. Only the public threshold is refused
    beyond +-2**60 steps.

    Parameters
    ----------
    values : array_like of float, shape (k,)
        The true answers q_1(x), ..., q_k(x), in the order asked; finite (NaN and +-inf are refused with
        a message that holds nothing computed from them), of any size.
    threshold : float
        Public threshold T, finite, within +-2**60 lattice steps (about 2**40 times the sensitivity).
    epsilon : float
        Total privacy parameter, > 0.
    c : int
        Largest number of "above" answers, >= 1.
    sensitivity : float
        Bound on the change of each single query between neighbours, > 0.
    rng : None, int or numpy.random.Generator, optional
    size : None or int, optional
        Number of independent runs (one vectorized call); None for one run.

    Returns
    -------
    numpy.ndarray of int64
        Shape (c,) (or (size, c)): the released indices in increasing order, padded with -1 when fewer
        than c queries were found above the threshold.

    Examples
    --------
    >>> sparse_vector([0.0, 100.0, 0.0, 100.0, 100.0], 50.0, 10.0, 2, rng=0).tolist()
    [1, 3]
    >>> sparse_vector([0.0, 0.0], 50.0, 10.0, 1, rng=0).tolist()
    [-1]
    """
    q = check_real_array(values, "values", ndim=1)
    t = check_real(threshold, "threshold")
    eps = check_epsilon(epsilon)
    c = check_size(c, "c")
    sens = check_sensitivity(sensitivity)
    size_ = _check_size(size)
    gen = as_rng(rng)
    runs = 1 if size_ is None else size_
    if runs * c > MAX_SIZE:
        raise ValueError(f"size * c must be at most MAX_SIZE = {MAX_SIZE} (the output has that many entries), got "
                         f"size={size!r}, c={c}")
    e, steps = _svt_lattice(sens)
    q_steps = _lattice_steps(q, e)   # clamped to +-2**61 steps: a value of any size is answered
    t_steps = _threshold_steps(t, e, sens)
    eps1 = Fraction(eps) / 2
    eps2 = Fraction(eps) - eps1
    if Fraction(2 * c * steps) / eps2 >= 2**59:   # the larger of the two scales, before any float division
        raise ValueError(f"the query noise scale 2 c / (epsilon / 2), in lattice steps of the sensitivity, must stay "
                         f"below 2**59 for the exact sampler; got epsilon={epsilon!r}, c={c}")
    b_rho = _round_up(Fraction(steps) / eps1)
    b_nu = _round_up(Fraction(2 * c * steps) / eps2)
    rho = _dlap(*_check_terms(b_rho, "the threshold noise scale", float(b_rho)), runs, gen)
    nu = _dlap(*_check_terms(b_nu, "the query noise scale", float(b_nu)), runs * q.size, gen).reshape(runs, q.size)
    above = _svt_above(q_steps, t_steps, rho, nu)
    out = _svt_indices(above, c)
    return out[0] if size_ is None else out


def above_threshold(values: npt.ArrayLike, threshold: float, epsilon: float, *, sensitivity: float = 1.0,
                    rng: int | np.random.Generator | None = None,
                    size: int | None = None) -> int | npt.NDArray[np.int64]:
    """AboveThreshold: the index of the first query whose noisy value exceeds the noisy threshold, or -1.

    :func:`sparse_vector` with c = 1: ``rho ~ Lap(2 sensitivity / epsilon)``,
    ``nu_i ~ Lap(4 sensitivity / epsilon)`` (Lyu, Su & Li 2017, Algorithm 1 with c = 1; Dwork & Roth
    2014, Algorithm 1), sampled exactly on a lattice as in :func:`sparse_vector`. epsilon-DP for queries
    that move by at most ``sensitivity`` between neighbours, under the caller's relation (theorem
    ``thm-svt-privacy``); accuracy in theorem ``thm-svt-accuracy`` (:func:`above_threshold_accuracy`).

    Parameters
    ----------
    values, threshold, epsilon, sensitivity, rng, size
        As in :func:`sparse_vector`.

    Returns
    -------
    int or numpy.ndarray of int64
        One index in ``{-1, 0, ..., k-1}``, or ``size`` of them.

    Examples
    --------
    >>> above_threshold([1.0, 2.0, 90.0, 95.0], 50.0, 5.0, rng=0)
    2
    >>> above_threshold([1.0, 2.0], 50.0, 1.0, rng=0, size=3).shape
    (3,)
    """
    out = sparse_vector(values, threshold, epsilon, 1, sensitivity=sensitivity, rng=rng, size=size)
    return int(out[0]) if size is None else out[:, 0]


#: Variants of the sparse vector technique catalogued by Lyu, Su & Li (2017): their privacy in truth.
SVT_VARIANTS: dict[str, str] = {
    "lyu_su_li": "Algorithm 1: rho ~ Lap(D/e1), nu ~ Lap(2cD/e2), stop after c; epsilon-DP",
    "lee_clifton": "Algorithm 4: e1 = e/4, nu ~ Lap(D/e2) (not scaled with c), stop after c; only ((1+6c)/4)e-DP",
    "stoddard": "Algorithm 5: no query noise, no cutoff; not e-DP for any finite e",
    "chen": "Algorithm 6: nu ~ Lap(D/e2), no cutoff; not e-DP for any finite e",
}


def sparse_vector_variant(values: npt.ArrayLike, threshold: float, epsilon: float, c: int, *, variant: str,
                          sensitivity: float = 1.0, rng: int | np.random.Generator | None = None,
                          size: int | None = None) -> npt.NDArray[np.int8]:
    """Run a published variant of the sparse vector technique, **for auditing only**; returns the transcript.

    The variants are those of Lyu, Su & Li (2017) listed in :data:`SVT_VARIANTS`. Only
    ``"lyu_su_li"`` is private (it is :func:`sparse_vector`'s algorithm); the others claim epsilon-DP
    and are not (their true privacy is in :data:`SVT_VARIANTS`; theorem ``thm-svt-privacy`` covers only
    ``"lyu_su_li"``). This function exists so that the book and the tests can show an auditor refuting
    them: it draws its noise with the textbook float sampler ``Generator.laplace`` (a demonstration,
    not a release: no guarantee, even for ``"lyu_su_li"``), and it must never be used on real data.

    Parameters
    ----------
    values, threshold, epsilon, c, sensitivity, rng, size
        As in :func:`sparse_vector`.
    variant : str
        A key of :data:`SVT_VARIANTS`.

    Returns
    -------
    numpy.ndarray of int8, shape (k,) or (size, k)
        1 for "above", 0 for "below", -1 for queries not answered (after the cutoff).

    Examples
    --------
    >>> sparse_vector_variant([0.0, 9.0, 9.0], 5.0, 50.0, 1, variant="chen", rng=0).tolist()
    [0, 1, 1]
    >>> sparse_vector_variant([0.0, 9.0, 9.0], 5.0, 50.0, 1, variant="lyu_su_li", rng=0).tolist()
    [0, 1, -1]
    """
    q = check_real_array(values, "values", ndim=1)
    t = check_real(threshold, "threshold")
    eps = check_epsilon(epsilon)
    c = check_positive_int(c, "c")
    sens = check_sensitivity(sensitivity)
    variant = check_choice(variant, "variant", tuple(SVT_VARIANTS))
    size_ = _check_size(size)
    gen = as_rng(rng)
    runs = 1 if size_ is None else size_
    eps1 = eps / 4 if variant == "lee_clifton" else eps / 2
    eps2 = eps - eps1
    rho = gen.laplace(0.0, sens / eps1, size=(runs, 1))
    if variant == "stoddard":
        nu = np.zeros((runs, q.size))
    else:
        nu_scale = 2 * c * sens / eps2 if variant == "lyu_su_li" else sens / eps2
        nu = gen.laplace(0.0, nu_scale, size=(runs, q.size))
    above = (q[None, :] + nu) >= (t + rho)
    transcript = above.astype(np.int8)
    if variant in ("lyu_su_li", "lee_clifton"):
        before: np.ndarray = np.cumsum(above, axis=1) - above  # "above" answers strictly before query i
        transcript[before >= c] = -1
    return transcript[0] if size_ is None else transcript


_SUMMARIES = ("first_above", "half_difference")


def svt_audit_mechanism(variant: str, summary: str, *, epsilon: float = 1.0, threshold: float = 0.0,
                        c: int = 1) -> Callable[..., int | npt.NDArray[np.int64]]:
    """A mechanism ``mech(values, rng, size=None)`` for :func:`dpcourse.audit_epsilon`: a scalar summary of SVT.

    ``variant`` is ``"secure"`` (:func:`sparse_vector`) or a key of :data:`SVT_VARIANTS`
    (:func:`sparse_vector_variant`); the input of the mechanism is the vector of true query values.
    ``summary`` reduces each transcript to one integer (post-processing, so an audit of it is still a
    valid lower bound): ``"first_above"``, the index of the first "above" answer (-1 if none), or
    ``"half_difference"``, the number of "above" answers among the first half of the queries minus
    that among the second half. The mechanism is as private as the variant it runs: epsilon-DP for
    ``"secure"`` (theorem ``thm-svt-privacy``), not private for the broken variants, which is what an
    audit of it shows.

    Parameters
    ----------
    variant : str
        ``"secure"`` or a key of :data:`SVT_VARIANTS`.
    summary : {"first_above", "half_difference"}
    epsilon : float
        > 0.
    threshold : float
        Public threshold, finite.
    c : int
        Largest number of "above" answers, >= 1.

    Returns
    -------
    callable
        ``mech(values, rng, size=None)``: an int, or an array of ``size`` ints.

    Examples
    --------
    >>> mech = svt_audit_mechanism("stoddard", "first_above")
    >>> mech([-50.0, 50.0], np.random.default_rng(0), size=3).tolist()
    [1, 1, 1]
    """
    eps = check_epsilon(epsilon)
    t = check_real(threshold, "threshold")
    c = check_positive_int(c, "c")
    variant = check_choice(variant, "variant", ("secure",) + tuple(SVT_VARIANTS))
    summary = check_choice(summary, "summary", _SUMMARIES)

    def mech(values: npt.ArrayLike, rng: np.random.Generator,
             size: int | None = None) -> int | npt.NDArray[np.int64]:
        vals = np.asarray(values, dtype=float)
        runs = 1 if size is None else size
        if variant == "secure":
            idx = sparse_vector(vals, t, eps, c, rng=rng, size=runs)
            above = np.zeros((runs, vals.size), dtype=bool)
            rows, cols = np.nonzero(idx >= 0)
            above[rows, idx[rows, cols]] = True
        else:
            above = sparse_vector_variant(vals, t, eps, c, variant=variant, rng=rng, size=runs) == 1
        if summary == "first_above":
            out = np.where(above.any(axis=1), above.argmax(axis=1), -1)
        else:
            h = vals.size // 2
            out = above[:, :h].sum(axis=1) - above[:, h:].sum(axis=1)
        return out if size is not None else int(out[0])

    return mech


def above_threshold_accuracy(k: int, epsilon: float, beta: float, *, sensitivity: float = 1.0) -> float:
    """alpha of theorem ``thm-svt-accuracy``: ``8 sensitivity (ln k + ln(2 / beta)) / epsilon``.

    With probability at least 1 - beta, AboveThreshold on k queries answers "above" only for a query with
    ``q_i > T - alpha`` and "below" only for queries with ``q_i < T + alpha``. :func:`above_threshold` samples on
    a lattice of spacing ``g <= 2**-20 sensitivity``; for epsilon <= 2**21 the same holds with
    ``alpha_g = alpha (1 + 2**-20)(1 + 2**-58) + 2 g`` in place of alpha, provided ``alpha_g <= 2**60 g`` (values
    beyond 2**61 steps are clamped; chapter "Too many answers", after theorem ``thm-svt-accuracy``).

    Parameters
    ----------
    k : int
        Number of queries, >= 1.
    epsilon : float
        > 0.
    beta : float
        Failure probability, in (0, 1).
    sensitivity : float
        Bound on the change of each query between neighbours, > 0.

    Returns
    -------
    float
        alpha, in the units of the queries.

    Examples
    --------
    >>> round(above_threshold_accuracy(1000, 1.0, 0.05), 3)
    84.773
    """
    kk = check_positive_int(k, "k")
    eps = check_epsilon(epsilon)
    b = check_probability(beta, "beta", low_open=True, high_open=True)
    sens = check_sensitivity(sensitivity)
    return 8.0 * sens * (math.log(kk) + math.log(2.0 / b)) / eps
