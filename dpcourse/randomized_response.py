"""Randomized response: each person randomizes their own bit before anyone sees it."""

from __future__ import annotations

import numpy as np

from ._validation import check_probability, check_real_array

__all__ = ["rr_count_distribution"]


def rr_count_distribution(bits, truth_prob) -> np.ndarray:
    """Exact distribution of the number of 1s reported when each bit goes through randomized response.

    Each person reports their bit with probability ``truth_prob`` and its flip otherwise, independently;
    the mechanism releases only the sum of the reports. Under the replace-one relation (the number of
    people is public) the release is ``ln(truth_prob / (1 - truth_prob))``-DP for ``truth_prob >= 1/2``
    (theorem ``thm-rr-count-epsilon`` of the chapter "What differential privacy promises"); under
    add/remove it is not epsilon-DP for any finite epsilon, because the support reveals the number of people.

    Parameters
    ----------
    bits : array_like of 0/1, shape (n,)
        The private bits (n >= 0).
    truth_prob : float
        Probability in [0, 1] that a person reports their true bit.

    Returns
    -------
    numpy.ndarray of shape (n + 1,)
        ``out[c]`` is the probability that exactly ``c`` reports equal 1.

    Examples
    --------
    >>> rr_count_distribution([1, 0], 0.75).round(4).tolist()
    [0.1875, 0.625, 0.1875]
    """
    x = check_real_array(bits, "bits", allow_empty=True, ndim=1)
    if not np.isin(x, (0.0, 1.0)).all():
        raise ValueError("bits must contain only 0 and 1")
    t = check_probability(truth_prob, "truth_prob")
    dist = np.array([1.0])
    for b in x:  # n convolutions of length-2 kernels: exact and cheap for the small n this is for
        p_one = t if b == 1.0 else 1.0 - t
        dist = np.convolve(dist, [1.0 - p_one, p_one])
    return dist
