"""Which outputs of a Laplace release are impossible under a neighbouring input (Mironov 2012)?

Two exact reachability tests, one per sampler of :func:`dpcourse.laplace_mechanism`:

* ``secure=False`` (the textbook float sampler :meth:`numpy.random.Generator.laplace`):
  :func:`textbook_reachable` decides, for every output, whether *some* of the 2**53 - 1 uniforms numpy can
  draw produces it from a given input. It reproduces numpy's arithmetic bit for bit
  (:func:`textbook_laplace_noise`) and searches the uniforms by bisection, which is exact because the
  computed noise is non-decreasing in the uniform (theorem ``thm-float-reachability`` of the chapter
  "Noise on a real computer").
* ``secure=True`` (the lattice release): :func:`lattice_reachable` -- an output is reachable from every
  input iff it is a multiple of the lattice spacing, because the discrete noise has full support on the
  integers (theorem ``thm-lattice-laplace``); :func:`lattice_privacy_loss` gives the exact privacy loss
  of a lattice output, which never exceeds epsilon.

:func:`impossible_output_mechanism` packages "release, then report whether the output is impossible from
the neighbour" as a mechanism that :func:`dpcourse.audit_epsilon` can audit: a fixed event, so a valid
audit of the release by post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numpy as np
import numpy.typing as npt

from ._validation import check_epsilon, check_flag, check_real, check_real_array, check_sensitivity, check_size
from .lattice import laplace_lattice
from .laplace import laplace_mechanism

__all__ = [
    "textbook_laplace_noise",
    "textbook_reachable",
    "lattice_reachable",
    "lattice_privacy_loss",
    "impossible_output_mechanism",
]

_J_MAX = 2**53 - 1                      # largest 53-bit uniform numpy can draw; j = 0 is rejected
_LOG = np.frompyfunc(math.log, 1, 1)    # the C library's log, as numpy's C sampler calls it


def _check_uniform_index(j: npt.ArrayLike) -> np.ndarray:
    arr = np.asarray(j)
    if arr.dtype == bool or arr.dtype.kind not in "iu":
        raise TypeError(f"j must hold integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size and (int(arr.min()) < 1 or int(arr.max()) > _J_MAX):
        raise ValueError(f"j must lie in [1, 2**53 - 1], got values in [{int(arr.min())}, {int(arr.max())}]")
    return arr


def textbook_laplace_noise(j: int | npt.ArrayLike, scale: float) -> float | np.ndarray:
    """The noise ``numpy.random.Generator.laplace(0.0, scale)`` returns when its 53-bit uniform is ``j``.

    numpy draws ``U = (next_uint64 >> 11) * 2**-53``, rejects U = 0 and returns
    ``scale * log(U + U)`` if U < 0.5, else ``-(scale * log((2.0 - U) - U))``, each operation rounded to
    double precision, with the C library's ``log``. This function evaluates exactly that expression, with
    the same ``log`` (Python's :func:`math.log`; numpy's own vectorized ``np.log`` may differ in the last
    bit and would *not* reproduce the sampler). The tests check it bit for bit against numpy draws.

    The result is non-decreasing in ``j`` (every rounded step is monotone), the fact behind the exact
    bisection of :func:`textbook_reachable` (theorem ``thm-float-reachability``).

    Parameters
    ----------
    j : int or array_like of ints
        Index of the uniform, ``1 <= j <= 2**53 - 1``.
    scale : float
        Laplace scale b > 0.

    Returns
    -------
    numpy.ndarray of float64 (a float for a scalar j)

    Examples
    --------
    >>> float(textbook_laplace_noise(2**52, 1.0))  # U = 1/2: -log(1) = -0.0
    -0.0
    >>> float(textbook_laplace_noise(2**51, 1.0)) == math.log(0.5)
    True
    """
    b = check_sensitivity(scale, "scale")
    jj = _check_uniform_index(j)
    u = jj.astype(np.float64) * 2.0**-53               # exact: j < 2**53
    low = u < 0.5
    arg = np.where(low, u + u, (2.0 - u) - u)
    logs = cast(np.ndarray, _LOG(arg.ravel())).astype(np.float64).reshape(arg.shape)
    scaled = b * logs
    out = np.where(low, scaled, -scaled)
    return float(out) if out.ndim == 0 else out


def textbook_reachable(outputs: npt.ArrayLike, value: float, sensitivity: float, epsilon: float) -> np.ndarray:
    """Whether ``laplace_mechanism(value, sensitivity, epsilon, secure=False)`` can produce each of ``outputs``.

    The textbook release computes ``fl(value + noise_j)`` with ``noise_j = textbook_laplace_noise(j, b)``,
    ``b = sensitivity / epsilon`` (in floating point, as the mechanism does) and j one of the 2**53 - 1
    uniforms. That is non-decreasing in j, so bisection over j decides reachability exactly (theorem
    ``thm-float-reachability``); no sampling. An output unreachable from a neighbour has probability 0 there:
    privacy loss +inf.

    Parameters
    ----------
    outputs : array_like of floats
        Outputs to test (any shape), finite.
    value : float
        The input whose reachable set is asked about (e.g. the neighbour's true answer), finite.
    sensitivity, epsilon : float
        As passed to :func:`dpcourse.laplace_mechanism`, both > 0.

    Returns
    -------
    numpy.ndarray of bool
        The shape of ``outputs``.

    Examples
    --------
    >>> out = laplace_mechanism(np.zeros(5), 1.0, 1.0, rng=0, secure=False)
    >>> textbook_reachable(out, 0.0, 1.0, 1.0).all()   # its own input reaches it
    np.True_
    """
    o = check_real_array(outputs, "outputs", allow_empty=True)
    a = check_real(value, "value")
    b = check_sensitivity(sensitivity) / check_epsilon(epsilon)
    if not 0.0 < b < math.inf:
        raise ValueError(f"sensitivity / epsilon must be a positive finite float (the mechanism's scale), got "
                         f"sensitivity={sensitivity!r}, epsilon={epsilon!r}")
    flat = o.ravel()

    def release(j):
        return a + textbook_laplace_noise(j, b)

    lo = np.ones(flat.shape, np.int64)
    hi = np.full(flat.shape, _J_MAX, np.int64)
    # Invariant: the smallest j with release(j) >= o lies in [lo, hi] (hi if no j reaches o).
    for _ in range(54):
        open_ = lo < hi
        if not open_.any():
            break
        idx = np.flatnonzero(open_)
        mid = (lo[idx] + hi[idx]) // 2
        right = np.asarray(release(mid)) >= flat[idx]
        hi[idx[right]] = mid[right]
        lo[idx[~right]] = mid[~right] + 1
    hit = np.asarray(release(lo)) == flat if flat.size else np.zeros(0, dtype=bool)
    return np.asarray(hit, dtype=bool).reshape(o.shape)


def lattice_reachable(outputs: npt.ArrayLike, spacing: float) -> np.ndarray:
    """Whether each output is a multiple of the lattice spacing ``spacing`` (a power of two).

    A secure release (``secure=True``) outputs ``g (round(value / g) + K)`` with K discrete Laplace (or
    discrete Gaussian) noise, which gives every integer a positive probability: an output is reachable from
    *every* input iff it is a multiple of g (theorem ``thm-lattice-laplace``). The remainder ``fmod(o, g)`` is
    exact in floating point, so the test is exact.

    Parameters
    ----------
    outputs : array_like of floats
        Outputs to test (any shape), finite.
    spacing : float
        The lattice spacing g, a power of two (``laplace_lattice(...).spacing``); ValueError otherwise.

    Returns
    -------
    numpy.ndarray of bool
        The shape of ``outputs``.

    Examples
    --------
    >>> lattice_reachable([0.25, 0.3, -3.0], 0.25).tolist()
    [True, False, True]
    """
    o = check_real_array(outputs, "outputs", allow_empty=True)
    g = check_real(spacing, "spacing", low=0.0, low_open=True)
    if math.frexp(g)[0] != 0.5:
        raise ValueError(f"spacing must be a power of two, got {spacing!r}")
    return np.fmod(o, g) == 0.0


def lattice_privacy_loss(outputs: float | npt.ArrayLike, value: float, value_prime: float, sensitivity: float,
                         epsilon: float, *, dim: int = 1) -> float | np.ndarray:
    """Exact privacy loss ``ln P[M(value) = o] / P[M(value') = o]`` of the secure Laplace release.

    M is the lattice release of :func:`dpcourse.laplace_mechanism` with ``secure=True`` for a query with
    ``dim`` coordinates (one coordinate is looked at): ``o = g (round(value / g) + K)``, K discrete Laplace of
    scale t = ``laplace_lattice(sensitivity, epsilon, dim=dim).lattice_scale``. For o = g k the loss is
    ``(|k - a'| - |k - a|) / t`` with a = round(value/g), a' = round(value'/g): at most epsilon when value and
    value' are the answers on two neighbours, ``|value - value'| <= sensitivity`` (lemma
    ``lem-lattice-rounding``, theorem ``thm-lattice-laplace``).

    Parameters
    ----------
    outputs : float or array_like of floats
        Lattice outputs (any shape); an output off the lattice has probability 0 under both inputs: ValueError.
    value, value_prime : float
        The true answers on the two inputs, finite.
    sensitivity, epsilon : float
        As passed to :func:`dpcourse.laplace_mechanism`, both > 0.
    dim : int, optional
        Number of coordinates of the release (default 1), which sets the lattice.

    Returns
    -------
    float or numpy.ndarray
        The loss in nats (a float for a scalar output).

    Examples
    --------
    >>> float(lattice_privacy_loss(-5.0, 0.0, 1.0, 1.0, 1.0)) <= 1.0   # left of both: the largest loss
    True
    """
    o = check_real_array(outputs, "outputs", allow_empty=True)
    x = check_real(value, "value")
    xp = check_real(value_prime, "value_prime")
    lat = laplace_lattice(sensitivity, epsilon, dim=dim)
    if not lattice_reachable(o, lat.spacing).all():
        raise ValueError(f"outputs must be multiples of the lattice spacing {lat.spacing!r}; others have "
                         "probability 0 under every input")
    k = np.ldexp(o, -lat.exponent).astype(np.int64)
    a = int(np.rint(math.ldexp(x, -lat.exponent)))
    ap = int(np.rint(math.ldexp(xp, -lat.exponent)))
    t = lat.lattice_scale
    diff = np.abs(k - ap) - np.abs(k - a)                # exact integers
    out = diff * (t.denominator / t.numerator)
    return float(out) if out.ndim == 0 else out


def impossible_output_mechanism(neighbour: float, sensitivity: float, epsilon: float, *,
                                secure: bool) -> Callable[..., bool | np.ndarray]:
    """A mechanism for :func:`dpcourse.audit_epsilon`: release a count, report "impossible from the neighbour".

    The returned ``mech(count, rng, size=None)`` draws ``size`` releases ``laplace_mechanism(count, sensitivity,
    epsilon, secure=secure)`` (one vectorized call; with ``secure=True`` on the lattice for ``dim = size``, as
    :func:`dpcourse.laplace_mechanism` chooses it) and returns, for each, whether the output is impossible from
    input ``neighbour`` (:func:`textbook_reachable` or :func:`lattice_reachable`). The event is fixed once the
    pair is fixed, so this post-processes the release: an epsilon it certifies is a valid lower bound for the
    release itself (theorem ``thm-audit-validity``), on the neighbouring pair ``(count, neighbour)``.

    Parameters
    ----------
    neighbour : float
        The neighbouring input's true answer, finite.
    sensitivity, epsilon : float
        As passed to :func:`dpcourse.laplace_mechanism`, both > 0.
    secure : bool
        The sampler audited (required): the lattice release (True) or the textbook float sampler (False).

    Returns
    -------
    callable
        ``mech(count, rng, size=None)``: a bool for ``size=None``, else a bool array of ``size`` entries.

    Examples
    --------
    >>> mech = impossible_output_mechanism(1.0, 1.0, 1.0, secure=True)
    >>> mech(0.0, np.random.default_rng(0), size=4).tolist()
    [False, False, False, False]
    """
    a_prime = check_real(neighbour, "neighbour")
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    safe = check_flag(secure, "secure")

    def mech(count: float, rng: np.random.Generator | int | None, size: int | None = None) -> bool | np.ndarray:
        n = 1 if size is None else check_size(size)
        out = laplace_mechanism(np.full(n, float(count)), sens, eps, rng=rng, secure=safe)
        if safe:
            impossible = ~lattice_reachable(out, laplace_lattice(sens, eps, dim=n).spacing)
        else:
            impossible = ~textbook_reachable(out, a_prime, sens, eps)
        return impossible if size is not None else bool(impossible[0])

    return mech
