"""Argument checks shared by every public function of :mod:`dpcourse`.

Every check fails closed: it raises :class:`TypeError` for a value of the wrong kind (a bool, a string,
a complex number where a real number is meant) and :class:`ValueError` for a value outside its allowed
range (NaN, +-inf, epsilon <= 0, delta outside [0, 1), ...). Each message names the argument, the value
received and the range allowed, so that a student sees at once what to fix.

No public function re-implements one of these checks; a new kind of argument gets a new function here.

Caps, not hangs: a public count that sets how much memory a call allocates or how long it loops (``size=`` of
every sampler, ``n_samples``, ``dim``, ``c``, ``iterations=``) is checked by :func:`check_size` or
:func:`check_shape` against :data:`MAX_SIZE` (10**7 values) or :data:`MAX_ITERATIONS` (10**4 rounds), and a
larger value (10**12, 2**64) is refused at once by name. Where an extreme epsilon would make the arithmetic
overflow, the function either handles it or refuses it by name (:data:`MAX_EPSILON` = 1e300 for the zCDP
conversion; the documented range of each function otherwise). Private data is never refused for its size:
only public parameters are capped.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable
from typing import Any, Literal, SupportsIndex, TypeVar, cast, overload

import numpy as np

__all__ = [
    "as_rng",
    "check_real",
    "check_epsilon",
    "check_delta",
    "check_sensitivity",
    "check_positive_int",
    "check_probability",
    "check_real_array",
    "check_bounds",
    "check_distribution",
    "check_relation",
    "check_binary_array",
    "check_flag",
    "check_choice",
    "check_labels",
    "check_callable",
    "check_size",
    "check_shape",
    "MAX_SIZE",
    "MAX_ITERATIONS",
    "MAX_EPSILON",
    "WIDE_BOUNDS",
]

#: Cap on the number of values one call may draw or allocate (``size=``, a shape's product, ``n`` or ``dim``
#: where it sets an array's length): ten million. A larger request is refused at once, by name, instead of
#: running for minutes or exhausting memory; draw in several calls for more.
MAX_SIZE = 10**7
#: Largest epsilon accepted where the arithmetic would overflow beyond it (the zCDP conversion of
#: :func:`dpcourse.gaussian_lattice` multiplies epsilon by orders up to 1e8): 1e300. Any epsilon above a few dozen
#: already promises no privacy; the cap only keeps the computation finite, and is refused by name.
MAX_EPSILON = 1e300
#: Cap on an iteration count that runs a Python loop (``iterations=`` of :func:`dpcourse.mwem`, whose round
#: costs about 2 ms with its two exact samplers): ten thousand rounds.
MAX_ITERATIONS = 10**4
_FLOAT_MAX = float(np.finfo(np.float64).max)


def _as_array(x: object, name: str) -> np.ndarray:
    """``np.asarray(x)``, with numpy's own error for a ragged nested list replaced by a named TypeError."""
    try:
        return np.asarray(x)
    except (ValueError, TypeError):
        raise TypeError(f"{name} must be a (rectangular) array of numbers, got a ragged or malformed "
                        f"{type(x).__name__}") from None


def _describe(value: object) -> str:
    """A short repr for messages (arrays are summarised, not dumped)."""
    if isinstance(value, np.ndarray) and value.size > 6:
        return f"array of shape {value.shape}"
    return repr(value)


def check_real(value: object, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False, allow_inf: bool = False) -> float:
    """Return ``value`` as a Python float after checking it is a real number in a range.

    Parameters
    ----------
    value : object
        The argument to check.
    name : str
        The argument's name, used in error messages.
    low, high : float or None
        Bounds of the allowed interval (None: unbounded on that side).
    low_open, high_open : bool
        Whether the bound itself is excluded.
    allow_inf : bool
        Whether +-inf is acceptable (it never is unless the caller says so).

    Raises
    ------
    TypeError
        If ``value`` is a bool, or not a real number (str, complex, None, an array that is not 0-d, a 0-d
        array whose dtype is not integer or float: a Python ``True`` inside a 0-d object array is refused).
    ValueError
        If ``value`` is NaN, infinite (unless allowed), or outside the interval.
    """
    # The common case without numpy calls: a finite float, or an int that converts exactly, inside the range is
    # returned at once; anything else (out of range, NaN, another type) gets the full checks and their messages.
    if ((type(value) is float and -_FLOAT_MAX <= value <= _FLOAT_MAX)
            or (type(value) is int and -2**53 <= value <= 2**53)):
        v = float(value)
        if ((low is None or v > low or (v == low and not low_open))
                and (high is None or v < high or (v == high and not high_open))):
            return v
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got the bool {value!r}")
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise TypeError(f"{name} must be a real scalar, got {_describe(value)}")
        if value.dtype.kind not in "iuf":  # bool, object (a Python True inside), complex, str, ...
            raise TypeError(f"{name} must be a real number, got a 0-d array of dtype {value.dtype}: {value!r}")
        value = value[()]
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {_describe(value)}")
    try:
        x = float(value)
    except OverflowError:  # an int or a Fraction beyond the largest float, about 1.8e308
        raise ValueError(f"{name} must be at most {_FLOAT_MAX:.4g} in size (a float), got a number of "
                         f"{len(str(abs(math.trunc(value))))} digits") from None
    if np.isnan(x):
        raise ValueError(f"{name} must be a real number, got NaN")
    if np.isinf(x) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {x}")
    lo_txt = "(-inf" if low is None else ("(" if low_open else "[") + repr(low)
    hi_txt = "+inf)" if high is None else repr(high) + (")" if high_open else "]")
    allowed = f"{lo_txt}, {hi_txt}"
    if low is not None and (x < low or (low_open and x == low)):
        raise ValueError(f"{name} must lie in {allowed}, got {value!r}")
    if high is not None and (x > high or (high_open and x == high)):
        raise ValueError(f"{name} must lie in {allowed}, got {value!r}")
    return x


def check_epsilon(epsilon: object, name: str = "epsilon") -> float:
    """Check a privacy parameter epsilon: a finite real number > 0."""
    return check_real(epsilon, name, low=0.0, low_open=True)


def check_delta(delta: object, name: str = "delta", *, allow_zero: bool = True) -> float:
    """Check a privacy parameter delta in [0, 1) (or (0, 1) when ``allow_zero`` is False)."""
    return check_real(delta, name, low=0.0, low_open=not allow_zero, high=1.0, high_open=True)


def check_sensitivity(sensitivity: object, name: str = "sensitivity") -> float:
    """Check a sensitivity: a finite real number > 0."""
    return check_real(sensitivity, name, low=0.0, low_open=True)


def check_probability(p: object, name: str = "p", *, low_open: bool = False, high_open: bool = False) -> float:
    """Check a probability in [0, 1] (either end optionally excluded)."""
    return check_real(p, name, low=0.0, high=1.0, low_open=low_open, high_open=high_open)


def check_positive_int(k: object, name: str = "k", *, minimum: int = 1) -> int:
    """Check a whole number >= ``minimum`` (bools and floats such as 2.5 are refused; 3.0 is not an int)."""
    if isinstance(k, (bool, np.bool_)) or (isinstance(k, np.ndarray) and k.dtype == bool):
        raise TypeError(f"{name} must be an integer >= {minimum}, got the bool {k!r}")
    if isinstance(k, np.ndarray) and (k.ndim != 0 or k.dtype.kind not in "iu"):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {_describe(k)}")
    try:
        k_int = operator.index(cast(SupportsIndex, k))  # a TypeError for anything else, caught below
    except TypeError:
        raise TypeError(f"{name} must be an integer >= {minimum}, got {type(k).__name__} {_describe(k)}") from None
    if k_int < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {k_int}")
    return int(k_int)


@overload
def check_size(size: object, name: str = ..., *, cap: int = ..., minimum: int = ...,
               allow_none: Literal[False] = ...) -> int: ...
@overload
def check_size(size: object, name: str = ..., *, cap: int = ..., minimum: int = ...,
               allow_none: bool) -> int | None: ...


def check_size(size: object, name: str = "size", *, cap: int = MAX_SIZE, minimum: int = 1,
               allow_none: bool = False) -> int | None:
    """Check a public count that drives an allocation or a loop: an integer in [``minimum``, ``cap``].

    ``cap`` is :data:`MAX_SIZE` for a number of draws or cells and :data:`MAX_ITERATIONS` for a number of
    rounds of a loop; a larger value (10**12, 2**64) is refused at once with a :class:`ValueError` that
    names the argument and the cap. With ``allow_none``, None is returned as is.
    """
    if size is None and allow_none:
        return None
    k = check_positive_int(size, name, minimum=minimum)
    if k > cap:
        raise ValueError(f"{name} must be an integer in [{minimum}, {cap}] (the cap on one call's work), got {k}")
    return k


def check_shape(size: object, name: str = "size", *, cap: int = MAX_SIZE) -> tuple[int, ...]:
    """Check ``size`` of a sampler: None (one draw, shape ``()``), an int >= 0, or a tuple of them.

    Returns the shape as a tuple; a shape with more than ``cap`` entries (:data:`MAX_SIZE`) is refused.
    """
    if size is None:
        return ()
    if isinstance(size, (bool, np.bool_)):
        raise TypeError(f"{name} must be None, an int >= 0 or a tuple of them, got the bool {size!r}")
    if isinstance(size, numbers.Integral):
        size = (size,)
    if not isinstance(size, tuple) or not all(isinstance(s, numbers.Integral) and not isinstance(s, (bool, np.bool_))
                                              for s in size):
        raise TypeError(f"{name} must be None, an int >= 0 or a tuple of them, got {_describe(size)}")
    if any(s < 0 for s in size):
        raise ValueError(f"{name} must not be negative, got {size!r}")
    shape = tuple(int(s) for s in size)
    total = 1
    for s in shape:
        total *= s
    if total > cap:
        raise ValueError(f"{name} {shape!r} asks for {total} values; at most {cap} per call (the cap on one "
                         "call's work)")
    return shape


def _object_reals_as_float(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array of real numbers (numpy stores a list holding an int beyond 64 bits this way) as float64.

    Whether numpy picks ``object`` depends on the *values* (``[-1, 2**63]`` is object, ``[-1, 2**63 - 1]``
    int64), so refusing it would let one record decide whether a release happens. An int beyond the float
    range is clamped to +-the largest float, like any other size (CONTRIBUTING.md, "Private data").
    """
    def as_float(v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise TypeError(f"{name} must hold real numbers only, got an object array holding other types")
        try:
            return float(v)
        except OverflowError:                      # only an int beyond the float range: clamp it
            top = float(np.finfo(np.float64).max)
            return top if v > 0 else -top

    return np.fromiter((as_float(v) for v in arr.ravel()), dtype=np.float64, count=arr.size).reshape(arr.shape)


def check_real_array(x: object, name: str = "x", *, allow_empty: bool = False, ndim: int | None = None) -> np.ndarray:
    """Return ``x`` as a float64 array after checking every entry is a finite real number.

    Bool arrays, object arrays, strings and complex numbers raise :class:`TypeError`; NaN or +-inf
    anywhere raises :class:`ValueError`. A finite entry beyond the float64 range (an int beyond 64 bits, a
    wide ``np.longdouble``) is clamped to +-the largest float64, never refused. Arrays are usually private data, so that message holds nothing
    computed from the entries (no index, no value): it names the argument and the rule (CONTRIBUTING.md).
    """
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be numeric, got {type(x).__name__}")   # not its text: it may be the data
    arr = _as_array(x, name)
    if arr.dtype == bool:
        raise TypeError(f"{name} must hold real numbers, got booleans (convert them with .astype(int) if meant)")
    if arr.dtype == object:
        arr = _object_reals_as_float(arr, name)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got {arr.ndim}")  # (no shape: n may be private)
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        # A wider float (np.longdouble) can hold a finite value beyond the float64 range; the cast would turn it
        # into +-inf and refuse it, while a neighbour holding 1e300 releases. Refuse only NaN/+-inf; clamp the
        # rest to +-the largest float64, like an int beyond the float range (CONTRIBUTING.md, "Private data").
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite everywhere (no NaN or +-inf entry): remove or impute such "
                             f"entries before the call")
        top = np.finfo(np.float64).max
        arr = np.clip(arr, -top, top)
    arr = arr.astype(np.float64, copy=False)
    finite = np.isfinite(arr)
    if not finite.all():
        raise ValueError(f"{name} must be finite everywhere (no NaN or +-inf entry): remove or impute such "
                         f"entries before the call")
    return arr


#: Largest width ``upper - lower`` of the public bounds of a secure release (:data:`WIDE_BOUNDS` = 2**1000, about
#: 1.07e301): its lattice spacing, about 2**-40 of the width or more, then stays below 2**962, so that 2**61 lattice
#: steps (the clamp of every release) remain a finite float; wider bounds would release +-inf.
WIDE_BOUNDS = 2.0**1000


def check_bounds(lower: object, upper: object, lower_name: str = "lower", upper_name: str = "upper", *,
                 max_width: float | None = None) -> tuple[float, float]:
    """Check public bounds: two finite reals with ``lower < upper`` (and ``upper - lower <= max_width`` if given)."""
    lo = check_real(lower, lower_name)
    hi = check_real(upper, upper_name)
    if not lo < hi:
        raise ValueError(f"{lower_name} must be < {upper_name}, got {lower_name}={lower!r}, {upper_name}={upper!r}")
    if max_width is not None and not hi - lo <= max_width:
        raise ValueError(f"{upper_name} - {lower_name} must be at most {max_width!r}, got {lower_name}={lower!r}, "
                         f"{upper_name}={upper!r}")
    return lo, hi


def check_distribution(p: object, name: str = "p", *, atol: float = 1e-9) -> np.ndarray:
    """Check a discrete probability distribution: a 1-d array of finite entries >= 0 summing to 1.

    The sum may differ from 1 by at most ``atol`` (rounding in the caller's arithmetic); it is not
    renormalised, so the caller's numbers are used as given.
    """
    arr = check_real_array(p, name, ndim=1)
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"{name} must be a probability distribution: entry {i} is {arr[i]} < 0")
    total = float(arr.sum())
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must be a probability distribution summing to 1 (within {atol}), sums to {total!r}")
    return arr


def as_rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    """Turn the ``rng`` argument of a random function into a :class:`numpy.random.Generator`.

    ``None`` draws fresh entropy from the operating system; an int (>= 0) seeds a new generator; a
    ``Generator`` is used as is (and advanced). Anything else (a bool, a float, the legacy
    ``RandomState``) raises :class:`TypeError`.
    """
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"rng must be None, an int seed or a numpy.random.Generator, got the bool {rng!r}")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise ValueError(f"rng seed must be >= 0, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(f"rng must be None, an int seed or a numpy.random.Generator, got {type(rng).__name__}")


RELATIONS = ("add_remove", "replace_one")
_F = TypeVar("_F", bound=Callable[..., Any])


def check_relation(relation: object, name: str = "relation") -> str:
    """Check a neighbouring relation: the string ``"add_remove"`` or ``"replace_one"``."""
    return check_choice(relation, name, RELATIONS)


def check_callable(fn: _F, name: str = "mechanism") -> _F:
    """Check that ``fn`` is callable (a function, a lambda, a class with ``__call__``) and return it."""
    if not callable(fn):
        raise TypeError(f"{name} must be callable, got {type(fn).__name__} {_describe(fn)}")
    return fn


def check_binary_array(x: object, name: str = "bits", *, allow_empty: bool = False,
                       ndim: int | None = None) -> np.ndarray:
    """Return ``x`` as an int64 array after checking every entry is the number 0 or 1.

    Ints and floats equal to 0 or 1 are accepted (``1.0`` is the bit 1); bool arrays raise
    :class:`TypeError` as in :func:`check_real_array` (convert them with ``.astype(int)``), and any other
    value (2, -1, 0.5, NaN, a string) raises; the message holds no index or value of the entries.
    """
    arr = check_real_array(x, name, allow_empty=allow_empty, ndim=ndim)
    ok = (arr == 0.0) | (arr == 1.0)
    if not ok.all():
        raise ValueError(f"{name} must contain only 0 and 1 (another value was found): recode it before the call")
    return arr.astype(np.int64)


def check_flag(value: object, name: str) -> bool:
    """Check a yes/no option: exactly True or False (numpy bools too); 1, "yes" or None are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {_describe(value)}")
    return bool(value)


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """Check a string option that must be one of ``choices``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {choices}, got {type(value).__name__} {_describe(value)}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_label_column(values: object, name: str, *, unique: bool = False) -> np.ndarray:
    """Check a 1-d, non-empty column of labels (numbers or strings): record keys, user ids, categories.

    Bools, objects, NaN and +-inf are refused; with ``unique`` a repeated label is refused too.
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of labels, got the string {values!r}")
    arr = _as_array(values, name)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence, got "
                         f"{'an empty one' if arr.ndim == 1 else f'{arr.ndim} dimensions'}")
    if arr.dtype == bool:
        raise TypeError(f"{name} must hold numbers or strings, got booleans (use 0 and 1)")
    if arr.dtype.kind not in "iufUS":
        raise TypeError(f"{name} must hold numbers or strings, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        check_real_array(arr, name)
    if unique and np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not repeat a label")
    return arr


def check_labels(values: object, name: str) -> np.ndarray:
    """Check a public list of labels (categories of a histogram, records of a universe).

    Returns a non-empty 1-d array of numbers or strings without repetitions; bools, objects, NaN and
    +-inf are refused.
    """
    return check_label_column(values, name, unique=True)
