"""An empirical privacy auditor: a statistically valid lower bound on the epsilon of a mechanism.

A privacy claim "M is (epsilon, delta)-DP" can never be confirmed by sampling, only refuted. The
auditor runs the mechanism many times on two neighbouring inputs, picks an event S on a first half of
the draws, and on the second half bounds the two probabilities ``P[M(x) in S]`` and ``P[M(x') in S]``
with Clopper-Pearson intervals. With probability at least ``confidence`` the returned ``lower_bound`` is
at most the true epsilon of the pair (theorem ``thm-audit-validity`` of the chapter "Testing a privacy
claim"), so a lower bound above the claimed epsilon refutes the claim at that confidence.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ._validation import (
    as_rng,
    check_size,
    check_callable,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_probability,
)

__all__ = ["AuditEvent", "AuditResult", "ClopperPearson", "audit_epsilon", "clopper_pearson"]

#: Fewest draws per input the auditor accepts (half select the event, half bound it).
MIN_SAMPLES = 100

_EVENT_FAMILIES = ("auto", "thresholds", "outcomes", "both")


@dataclass(frozen=True)
class AuditEvent:
    """A set of outputs: ``{o > value}``, ``{o < value}`` or ``{o == value}``.

    ``kind`` is ``">"``, ``"<"`` or ``"=="``; ``value`` is the threshold or the outcome.
    """

    kind: str
    value: object

    def contains(self, outputs: npt.ArrayLike) -> np.ndarray:
        """Which of ``outputs`` lie in the event.

        Parameters
        ----------
        outputs : array_like
            Mechanism outputs.

        Returns
        -------
        numpy.ndarray of bool
            The shape of ``outputs``.

        Examples
        --------
        >>> AuditEvent(">", 1.0).contains([0.5, 1.5]).tolist()
        [False, True]
        """
        o = np.asarray(outputs)
        if self.kind == ">":
            return o > self.value
        if self.kind == "<":
            return o < self.value
        return o == self.value

    def __str__(self) -> str:
        v = self.value
        txt = f"{v:.6g}" if isinstance(v, (float, np.floating)) else repr(v.item() if isinstance(v, np.generic) else v)
        return f"o {self.kind} {txt}"


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit_epsilon` found (immutable).

    Attributes
    ----------
    lower_bound : float
        epsilon_lower >= 0 such that, with probability >= ``confidence``, the true epsilon of the pair at
        ``delta`` is >= epsilon_lower.
    estimate : float
        Point estimate ``ln((p_hat - delta) / q_hat)`` on the bounding half (0 if ``p_hat <= delta``,
        ``inf`` if ``q_hat = 0 < p_hat - delta``). Not a bound: it can exceed the true epsilon.
    event : AuditEvent
        The event S, chosen on the selection half.
    direction : str
        ``"x -> x'"``: the bound concerns ``P[M(x) in S] <= e^eps P[M(x') in S] + delta``;
        ``"x' -> x"``: the same with the inputs swapped.
    count_p, count_q : int
        Draws in S among the ``n_bound`` bounding draws of the numerator side and of the other side.
    p_lower, q_upper : float
        The Clopper-Pearson bounds used: lower for the numerator probability, upper for the other.
    n_select, n_bound : int
        Draws per input used to select the event and to bound it.
    confidence, delta : float
        As passed to :func:`audit_epsilon`.
    """

    lower_bound: float
    estimate: float
    event: AuditEvent
    direction: str
    count_p: int
    count_q: int
    p_lower: float
    q_upper: float
    n_select: int
    n_bound: int
    confidence: float
    delta: float

    def refutes(self, epsilon: float) -> bool:
        """Whether the audit refutes the claim "epsilon-DP at this delta": ``lower_bound > epsilon``.

        The claim is about the audited pair of neighbouring inputs; a refutation holds with probability
        ``confidence`` (theorem ``thm-audit-validity``).

        Parameters
        ----------
        epsilon : float
            The claimed epsilon, > 0.

        Returns
        -------
        bool

        Examples
        --------
        >>> res = AuditResult(1.2, 1.3, AuditEvent(">", 0.5), "x -> x'", 50, 10, 0.4, 0.1, 100, 100, 0.95, 0.0)
        >>> res.refutes(1.0), res.refutes(1.5)
        (True, False)
        """
        return self.lower_bound > check_epsilon(epsilon)

    def __str__(self) -> str:
        return (f"epsilon >= {self.lower_bound:.4f} with confidence {self.confidence:g} "
                f"(plug-in estimate {self.estimate:.4f})\n"
                f"  event {self.event}, direction {self.direction}: "
                f"{self.count_p} vs {self.count_q} of {self.n_bound} bounding draws")


class ClopperPearson(NamedTuple):
    """What :func:`clopper_pearson` returns: the two one-sided bounds (floats, or arrays shaped like ``k``)."""

    lower: float | np.ndarray   # P[lower > p] <= alpha
    upper: float | np.ndarray   # P[upper < p] <= alpha


def clopper_pearson(k: int | npt.ArrayLike, n: int, alpha: float) -> ClopperPearson:
    """One-sided Clopper-Pearson bounds for a binomial proportion, each at error level ``alpha``.

    Whatever the true proportion p of ``k ~ Binomial(n, p)``, ``P[lower > p] <= alpha`` and
    ``P[upper < p] <= alpha`` (Clopper & Pearson 1934): ``lower`` is the ``alpha`` quantile of
    Beta(k, n - k + 1) (0 when k = 0) and ``upper`` the ``1 - alpha`` quantile of Beta(k + 1, n - k) (1 when
    k = n). Vectorized over ``k``.

    Parameters
    ----------
    k : int or array_like of int
        Successes, 0 <= k <= n.
    n : int
        Trials, >= 1.
    alpha : float
        Error level of each one-sided bound, in (0, 1).

    Returns
    -------
    ClopperPearson
        The NamedTuple ``(lower, upper)``: floats for a scalar ``k``, else arrays of its shape.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100, 0.05)
    >>> float(lo), round(float(hi), 5)  # 1 - 0.05 ** (1 / 100): the "rule of three" gives 3/100
    (0.0, 0.02951)
    """
    n = check_positive_int(n, "n")
    alpha = check_probability(alpha, "alpha", low_open=True, high_open=True)
    k = np.asarray(k)
    if k.dtype == bool or k.dtype.kind not in "iu":
        raise TypeError(f"k must hold integers, got dtype {k.dtype}")
    if (k < 0).any() or (k > n).any():
        raise ValueError(f"k must lie in [0, n] = [0, {n}]")
    kf = k.astype(float)
    # Beta quantiles; the arguments are kept valid (> 0) where the closed forms 0 and 1 apply instead.
    from scipy import stats  # here, not at the top: it costs about 0.9 s of `import dpcourse`

    lower = np.where(k == 0, 0.0, stats.beta.ppf(alpha, np.maximum(kf, 1.0), n - kf + 1))
    upper = np.where(k == n, 1.0, stats.beta.ppf(1 - alpha, kf + 1, np.maximum(n - kf, 1.0)))
    if lower.ndim == 0:
        return ClopperPearson(float(lower), float(upper))
    return ClopperPearson(lower, upper)


def _draw(mechanism: Callable[..., Any], x: object, rng: np.random.Generator, n: int, name: str) -> np.ndarray:
    """n outputs of ``mechanism(x, rng)`` as a 1-d array (one vectorized call when it takes ``size``)."""
    params: Mapping[str, inspect.Parameter]
    try:
        params = inspect.signature(mechanism).parameters
    except (TypeError, ValueError):  # builtins without a signature
        params = {}
    size_ok = "size" in params and params["size"].kind in (
        inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if size_ok:
        out = np.asarray(mechanism(x, rng, size=n))
    else:
        out = np.asarray([mechanism(x, rng) for _ in range(n)])
    if out.shape != (n,):
        raise ValueError(f"mechanism must return one scalar output per draw: on {name} it returned shape "
                         f"{out.shape} for {n} draws (reduce vector outputs to a scalar first, e.g. one "
                         "coordinate; an audit of a post-processed output is still a valid lower bound)")
    if out.dtype == bool:
        out = out.astype(np.int8)
    if out.dtype.kind == "f" and np.isnan(out).any():
        raise ValueError(f"mechanism returned NaN on {name}")
    if out.dtype.kind not in "iufUS":
        raise TypeError(f"mechanism outputs must be numbers or strings, got dtype {out.dtype} on {name}")
    return out


def _one_sided_z(alpha):
    from scipy import stats  # here, not at the top: it costs about 0.9 s of `import dpcourse`

    return float(stats.norm.isf(alpha))


def _wilson(k, m, z):
    """Wilson score bounds (lower, upper) of k successes in m trials: a fast stand-in for CP in selection."""
    p = k / m
    denom = 1.0 + z * z / m
    centre = (p + z * z / (2 * m)) / denom
    half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / denom
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def _log_ratio(p, q, delta):
    """ln((p - delta) / q) elementwise, -inf where p <= delta, +inf where q == 0 < p - delta."""
    num = p - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(num) - np.log(q)
    return np.where(num > 0, out, -np.inf)


def _candidate_events(sel_a, sel_b, family):
    """All events of the family seen in the selection draws, with their counts on each side."""
    m = sel_a.size
    sa, sb = np.sort(sel_a), np.sort(sel_b)
    values = np.unique(np.concatenate([sa, sb]))
    kinds, vals, ca, cb = [], [], [], []
    if family in ("thresholds", "both"):
        ra, rb = np.searchsorted(sa, values, "right"), np.searchsorted(sb, values, "right")
        la, lb = np.searchsorted(sa, values, "left"), np.searchsorted(sb, values, "left")
        kinds += [np.full(values.size, ">"), np.full(values.size, "<")]
        vals += [values, values]
        ca += [m - ra, la]
        cb += [m - rb, lb]
    if family in ("outcomes", "both"):
        ea = np.searchsorted(sa, values, "right") - np.searchsorted(sa, values, "left")
        eb = np.searchsorted(sb, values, "right") - np.searchsorted(sb, values, "left")
        kinds.append(np.full(values.size, "=="))
        vals.append(values)
        ca.append(ea)
        cb.append(eb)
    return np.concatenate(kinds), np.concatenate(vals), np.concatenate(ca), np.concatenate(cb)


def audit_epsilon(mechanism: Callable[..., Any], x: object, x_prime: object, n_samples: int, *,
                  rng: np.random.Generator | int | None = None, confidence: float = 0.95, delta: float = 0.0,
                  events: str = "auto") -> AuditResult:
    """A lower bound on the epsilon of ``mechanism`` on the pair (x, x'), valid with probability ``confidence``.

    If M is (epsilon, delta)-DP on this pair of neighbouring inputs (under whatever relation makes them
    neighbours), then ``P[lower_bound > epsilon] <= 1 - confidence`` (theorem ``thm-audit-validity``): a bound above
    the claimed epsilon refutes the claim; a bound below it proves nothing. The auditor draws ``n_samples``
    outputs on each input; on the first half it selects an event S and a direction by a conservative
    Wilson-score lower bound; on the second half it bounds ``P[M(x) in S]`` from below and ``P[M(x') in S]``
    from above by one-sided Clopper-Pearson intervals at level ``(1 - confidence) / 2`` each, and returns
    ``ln((p_lower - delta) / q_upper)``, or 0 if that is negative or undefined.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(x, rng)`` returns one scalar output (``rng`` a :class:`numpy.random.Generator`); if it has a
        keyword parameter ``size``, ``mechanism(x, rng, size=n)`` returns a 1-d array of n independent outputs.
    x, x_prime : object
        The two neighbouring inputs, passed to ``mechanism`` unchanged.
    n_samples : int
        Draws per input, in [100, 10**7] (half select the event, half bound it).
    rng : None, int or numpy.random.Generator, optional
        Source of randomness for the draws.
    confidence : float
        Probability in (0, 1) that the returned bound is valid.
    delta : float
        The delta of the claim, in [0, 1).
    events : {"auto", "thresholds", "outcomes", "both"}
        Events searched: thresholds ``{o > t}``, ``{o < t}`` or single outcomes ``{o == v}``; ``"auto"`` takes
        thresholds for float outputs and outcomes for integer, bool or string outputs.

    Returns
    -------
    AuditResult
        ``lower_bound``, ``estimate``, ``event``, ``direction``, the counts and the Clopper-Pearson bounds used.

    Examples
    --------
    A Laplace mechanism with sensitivity 1 and epsilon = 1 on the neighbouring counts 0 and 1:

    >>> def lap(x, rng, size=None):
    ...     return x + rng.laplace(0.0, 1.0, size=size)
    >>> res = audit_epsilon(lap, 0.0, 1.0, 200_000, rng=1)
    >>> 0.9 < res.lower_bound <= 1.0
    True
    """
    mechanism = check_callable(mechanism, "mechanism")
    n = check_size(n_samples, "n_samples", minimum=MIN_SAMPLES)
    conf = check_probability(confidence, "confidence", low_open=True, high_open=True)
    delta = check_delta(delta)
    if not isinstance(events, str) or events not in _EVENT_FAMILIES:
        raise ValueError(f"events must be one of {_EVENT_FAMILIES}, got {events!r}")
    gen = as_rng(rng)

    a = _draw(mechanism, x, gen, n, "x")
    b = _draw(mechanism, x_prime, gen, n, "x_prime")
    if (a.dtype.kind in "US") != (b.dtype.kind in "US"):
        raise TypeError("mechanism returned strings on one input and numbers on the other")
    family = events
    if family == "auto":
        family = "thresholds" if a.dtype.kind == "f" or b.dtype.kind == "f" else "outcomes"
    if family != "outcomes" and a.dtype.kind in "US":
        raise ValueError("threshold events need numeric outputs; use events='outcomes' for strings")

    n_select = n // 2
    n_bound = n - n_select
    alpha = (1.0 - conf) / 2.0  # Bonferroni: half the error budget for each proportion

    # 1. Selection half: score every (event, direction) by a Wilson-score lower bound.
    kinds, vals, ca, cb = _candidate_events(a[:n_select], b[:n_select], family)
    # Twice the z of the final interval: a score that penalises small counts this much avoids tail events
    # whose ratio is inflated by chance on the selection half (the winner's curse), which then bound badly.
    z = 2.0 * _one_sided_z(alpha)
    a_lo, a_hi = _wilson(ca, n_select, z)
    b_lo, b_hi = _wilson(cb, n_select, z)
    scores = np.stack([_log_ratio(a_lo, b_hi, delta), _log_ratio(b_lo, a_hi, delta)])
    if np.isfinite(scores).any() or (scores == np.inf).any():
        d, i = np.unravel_index(int(np.argmax(scores)), scores.shape)
    else:  # no event looks useful: take the largest raw difference (the bound will be 0 anyway)
        diff = np.stack([ca - cb, cb - ca])
        d, i = np.unravel_index(int(np.argmax(diff)), diff.shape)
    value = vals[i]
    value = value.item() if isinstance(value, np.generic) else value
    event = AuditEvent(str(kinds[i]), value)

    # 2. Bounding half: exact Clopper-Pearson on draws the selection never saw.
    num, den = (a[n_select:], b[n_select:]) if d == 0 else (b[n_select:], a[n_select:])
    kp = int(np.count_nonzero(event.contains(num)))
    kq = int(np.count_nonzero(event.contains(den)))
    p_lower, _ = clopper_pearson(kp, n_bound, alpha)
    _, q_upper = clopper_pearson(kq, n_bound, alpha)
    bound = float(_log_ratio(np.float64(p_lower), np.float64(q_upper), delta))
    estimate = float(_log_ratio(np.float64(kp / n_bound), np.float64(kq / n_bound), delta))
    return AuditResult(
        lower_bound=max(bound, 0.0),
        estimate=max(estimate, 0.0),
        event=event,
        direction="x -> x'" if d == 0 else "x' -> x",
        count_p=kp,
        count_q=kq,
        p_lower=float(p_lower),
        q_upper=float(q_upper),
        n_select=n_select,
        n_bound=n_bound,
        confidence=conf,
        delta=delta,
    )
