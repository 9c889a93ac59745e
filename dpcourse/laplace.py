"""The Laplace mechanism."""

from __future__ import annotations

import numpy as np

from ._validation import as_rng, check_epsilon, check_real_array, check_sensitivity

__all__ = ["laplace_mechanism"]


def laplace_mechanism(value, sensitivity, epsilon, *, rng=None):
    """Release ``value`` plus independent Laplace noise of scale ``sensitivity / epsilon`` per coordinate.

    Privacy: if ``value = f(x)`` for a query ``f`` whose l1 sensitivity (the largest l1 distance between
    ``f(x)`` and ``f(x')`` over neighbouring datasets, under the relation the caller has in mind) is at
    most ``sensitivity``, the release is epsilon-DP under that same relation
    (theorem ``thm-laplace-privacy``). For an array, ``sensitivity`` bounds the l1 norm of the change of the
    *whole* vector, not of each coordinate.

    Parameters
    ----------
    value : float or array_like of floats
        The exact query answer(s); finite.
    sensitivity : float
        l1 sensitivity of the query, > 0, in the units of ``value``.
    epsilon : float
        Privacy parameter, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness: None for fresh OS entropy, an int seed, or a Generator.

    Returns
    -------
    float or numpy.ndarray
        A float for a scalar ``value``, otherwise a float64 array of the same shape.

    Examples
    --------
    >>> laplace_mechanism(42, sensitivity=1, epsilon=0.5, rng=0)  # doctest: +SKIP
    42.25...
    >>> laplace_mechanism([3.0, 4.0], 2.0, 1.0, rng=1).shape
    (2,)
    """
    x = check_real_array(value, "value", allow_empty=True)
    b = check_sensitivity(sensitivity) / check_epsilon(epsilon)
    gen = as_rng(rng)
    out = gen.laplace(0.0, b, size=x.shape)
    out += x
    return float(out) if out.ndim == 0 else out
