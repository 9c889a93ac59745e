"""A privacy accountant: immutable events (what happened) and accounting methods (how it is counted).

Events are frozen dataclasses that only *record* what was run on the data: a pure-DP mechanism, a Laplace
mechanism, a Gaussian mechanism, a mechanism repeated k times, a sequence of events. They know nothing
about accounting. An accounting method is a function ``method(counts, delta) -> (epsilon, note)`` of the
flattened events, listed in :data:`ACCOUNTING_METHODS`; adding a method means adding one function there
and never touches the events (the design of Google's ``dp_accounting``).

A method that does not apply to the events (e.g. the exact Gaussian composition for a Laplace event)
raises :class:`NotApplicableError`, a ``ValueError`` whose message gives the reason, from
:meth:`PrivacyAccountant.epsilon`. :meth:`PrivacyAccountant.compare` runs every method and reports such a
method as ``epsilon = inf`` with the reason in ``note``, so a comparison table never hides a method.

Every guarantee is for adaptive composition under the neighbouring relation the events' sensitivities
refer to; the theorems are those of the chapter "Composition and privacy accounting".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ._validation import check_choice, check_delta, check_epsilon, check_positive_int, check_real, check_sensitivity
from .composition import (
    _optimal_epsilon_groups,
    advanced_composition,
    basic_composition,
    rdp_gaussian,
    rdp_laplace,
    rdp_pure_dp,
    rdp_to_epsilon,
)
from .gaussian import _gaussian_epsilon_array, gaussian_epsilon

__all__ = [
    "DpEvent",
    "PureDPEvent",
    "LaplaceEvent",
    "GaussianEvent",
    "ComposedEvent",
    "SequenceEvent",
    "NotApplicableError",
    "AccountingResult",
    "ACCOUNTING_METHODS",
    "PrivacyAccountant",
    "max_compositions",
]


class NotApplicableError(ValueError):
    """Raised when an accounting method cannot account for the events given; the message says why."""


# ----------------------------------------------------------------------------------------------------
# Events: what happened.


@dataclass(frozen=True)
class DpEvent:
    """Base class of all events (it has no fields; it lets the accountant recognise an event)."""


@dataclass(frozen=True)
class PureDPEvent(DpEvent):
    """Some mechanism known only to be ``epsilon``-DP (pure DP, delta = 0)."""

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))


@dataclass(frozen=True)
class LaplaceEvent(DpEvent):
    """A Laplace mechanism with noise scale ``l1_sensitivity / epsilon``: epsilon-DP, with a known RDP curve."""

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))


@dataclass(frozen=True)
class GaussianEvent(DpEvent):
    """A Gaussian mechanism adding N(0, sigma^2) noise to a query of l2 sensitivity ``l2_sensitivity``."""

    sigma: float
    l2_sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_real(self.sigma, "sigma", low=0.0, low_open=True))
        object.__setattr__(self, "l2_sensitivity", check_sensitivity(self.l2_sensitivity, "l2_sensitivity"))
        ratio = self.l2_sensitivity / self.sigma
        if not (math.isfinite(ratio) and ratio > 0.0):
            raise ValueError(f"l2_sensitivity / sigma must be a positive finite number, got "
                             f"{self.l2_sensitivity!r} / {self.sigma!r} = {ratio!r} (rescale the query)")

    @property
    def mu(self) -> float:
        """``l2_sensitivity / sigma``: the one number that determines the mechanism's privacy."""
        return self.l2_sensitivity / self.sigma


@dataclass(frozen=True)
class ComposedEvent(DpEvent):
    """``event`` run ``k`` times (each run may be chosen adaptively from the previous outputs)."""

    event: DpEvent
    k: int

    def __post_init__(self):
        if not isinstance(self.event, DpEvent):
            raise TypeError(f"event must be a DpEvent, got {type(self.event).__name__}")
        object.__setattr__(self, "k", check_positive_int(self.k, "k"))


@dataclass(frozen=True)
class SequenceEvent(DpEvent):
    """The events run one after the other (stored as a tuple, so the event stays immutable)."""

    events: tuple

    def __post_init__(self):
        if isinstance(self.events, (DpEvent, str, bytes)) or not isinstance(self.events, Iterable):
            raise TypeError("events must be a sequence of DpEvent objects, e.g. SequenceEvent([e1, e2]), got "
                            f"{type(self.events).__name__}")
        events = tuple(self.events)
        for i, e in enumerate(events):
            if not isinstance(e, DpEvent):
                raise TypeError(f"events[{i}] must be a DpEvent, got {type(e).__name__}")
        object.__setattr__(self, "events", events)


def _flatten(event, times: int, counts: Counter) -> None:
    if isinstance(event, ComposedEvent):
        _flatten(event.event, times * event.k, counts)
    elif isinstance(event, SequenceEvent):
        for e in event.events:
            _flatten(e, times, counts)
    else:
        counts[event] += times


# ----------------------------------------------------------------------------------------------------
# Accounting methods: how it is counted. Each takes ((base_event, count), ...) and delta in (0, 1) and
# returns (epsilon, note) or raises NotApplicableError.

_PURE = (PureDPEvent, LaplaceEvent)


def _split(counts):
    pure, gauss, other = [], [], []
    for item in counts:
        e = item[0]
        if isinstance(e, GaussianEvent):
            gauss.append(item)
        elif isinstance(e, _PURE):
            pure.append(item)
        else:
            other.append(type(e).__name__)
    return pure, gauss, other


def _unknown(method, other):
    raise NotApplicableError(f"method {method!r} does not know how to account for {', '.join(sorted(set(other)))}")


def _basic(counts, delta):
    """Basic composition. Pure events contribute their epsilon and no delta. The budget delta is split
    evenly over the Gaussian runs: each of the K runs is (eps_0, delta/K)-DP with eps_0 read off the
    exact Gaussian profile."""
    pure, gauss, other = _split(counts)
    if other:
        _unknown("basic", other)
    total = math.fsum(n * e.epsilon for e, n in pure)
    runs = sum(n for _, n in gauss)
    if not runs:
        return total, "sum of the epsilons (pure DP: holds for every delta)"
    d0 = _split_delta(delta, runs)
    mus, ns = _gaussian_groups(gauss)
    total += math.fsum(ns * _gaussian_epsilon_array(d0, mus))  # one vectorized inversion for all distinct mu
    return total, f"each of the {runs} Gaussian runs is (eps_0, delta/{runs})-DP by its exact profile"


def _split_delta(delta: float, runs: int) -> float:
    """``delta / runs``, refused by name when it underflows to 0 (no Gaussian run is (eps, 0)-DP)."""
    d0 = delta / runs
    if d0 == 0.0:
        raise ValueError(f"delta={delta!r} split over {runs} Gaussian runs underflows to 0: ask about a larger delta")
    return d0


def _gaussian_groups(gauss):
    """Distinct mu of the Gaussian events and how many runs each has (events with equal mu are grouped)."""
    mu = np.fromiter((e.l2_sensitivity / e.sigma for e, _ in gauss), dtype=float, count=len(gauss))
    n = np.fromiter((c for _, c in gauss), dtype=float, count=len(gauss))
    mus, inverse = np.unique(mu, return_inverse=True)
    return mus, np.bincount(inverse, weights=n, minlength=mus.size)


def _advanced(counts, delta):
    """Advanced composition (theorem thm-comp-advanced) holds for k adaptively chosen mechanisms that share
    one privacy guarantee. Pure-DP events (any mix of PureDPEvent and LaplaceEvent) qualify when they all
    have the same epsilon; then delta' = delta. Gaussian events qualify when they all have the same
    mu = l2_sensitivity / sigma: each run is (eps_0(delta_0), delta_0)-DP by its exact profile and
    delta = k delta_0 + delta', the split delta' being optimised numerically."""
    pure, gauss, other = _split(counts)
    if other:
        _unknown("advanced", other)
    if pure and gauss:
        raise NotApplicableError("advanced composition as stated (Dwork-Rothblum-Vadhan) is for k mechanisms with one "
                                 "common (epsilon, delta); these events mix pure-DP and Gaussian mechanisms")
    params = {e.epsilon for e, _ in pure} if pure else {e.mu for e, _ in gauss}
    if len(params) != 1:
        raise NotApplicableError("advanced composition as stated (Dwork-Rothblum-Vadhan) is for k mechanisms with one "
                                 f"common (epsilon, delta); these events have {len(params)} different privacy parameters")
    k = sum(n for _, n in pure + gauss)
    if pure:
        return advanced_composition(pure[0][0].epsilon, k, delta), "delta' = delta, per-mechanism delta = 0"
    mu = gauss[0][0].mu
    if delta * 1e-6 / k == 0.0:  # the smallest share the split search below gives each run
        raise ValueError(f"delta={delta!r} split over {k} Gaussian runs underflows to 0: ask about a larger delta")

    def total(t):  # t = ln(delta' / delta) in (-inf, 0)
        dp = delta * math.exp(t)
        return advanced_composition(max(gaussian_epsilon((delta - dp) / k, mu), 1e-300), k, dp)

    ts = np.linspace(math.log(1e-6), math.log(1 - 1e-6), 61)
    vals = [total(t) for t in ts]
    i = int(np.argmin(vals))
    res = optimize.minimize_scalar(total, bounds=(ts[max(i - 1, 0)], ts[min(i + 1, ts.size - 1)]), method="bounded",
                                   options={"xatol": 1e-8})
    best_t, best = (float(res.x), float(res.fun)) if res.fun < vals[i] else (float(ts[i]), float(vals[i]))
    frac = math.exp(best_t)
    return best, f"optimised split: delta' = {frac:.3g} delta, each Gaussian run gets delta_0 = {(1 - frac):.3g} delta/{k}"


def _optimal(counts, delta):
    """Exact optimal composition of pure-DP events (theorem thm-comp-optimal; heterogeneous epsilons via
    the product of randomized-response pairs). It is optimal over all mechanisms with these pure-DP
    guarantees, not for the particular Laplace mechanisms (whose composition is tighter)."""
    pure, gauss, other = _split(counts)
    if other:
        _unknown("optimal", other)
    if gauss:
        raise NotApplicableError("a Gaussian mechanism is not epsilon-DP for any finite epsilon; optimal composition "
                                 "(Kairouz-Oh-Viswanath) is computed here for pure-DP events only (use 'gaussian_exact')")
    groups = Counter()
    for e, n in pure:
        groups[e.epsilon] += n
    return _optimal_epsilon_groups(sorted(groups.items()), delta), "exact, worst case over all pure-DP mechanisms"


def _rdp_curve(counts):
    """The total RDP curve. Gaussian terms add up to ``alpha/2 * sum n mu^2`` (one term, whatever the number
    of events); pure-DP and Laplace events with equal epsilon are grouped, one curve per distinct epsilon."""
    pure, gauss, other = _split(counts)
    if other:
        _unknown("rdp", other)
    groups = Counter()
    for e, n in pure:
        groups[(rdp_laplace if isinstance(e, LaplaceEvent) else rdp_pure_dp, e.epsilon)] += n
    terms = [(f, eps, n) for (f, eps), n in groups.items()]
    sum_mu2 = math.fsum(n * (e.l2_sensitivity / e.sigma) ** 2 for e, n in gauss)
    if sum_mu2 > 0.0:  # sum_i n_i rdp_gaussian(alpha, mu_i) = rdp_gaussian(alpha, sqrt(sum_i n_i mu_i^2))
        terms.append((rdp_gaussian, math.sqrt(sum_mu2), 1))
    return lambda a: sum(n * f(a, p) for f, p, n in terms)


def _rdp(counts, delta):
    """Renyi DP: add the events' RDP curves (Gaussian alpha mu^2/2, Laplace's exact curve, the worst case
    of a pure-DP event) and convert with the improved conversion (Canonne, Kamath & Steinke 2020)."""
    eps, alpha = rdp_to_epsilon(_rdp_curve(counts), delta)
    return eps, f"improved conversion, best order alpha = {alpha:.3g}"


def _gaussian_exact(counts, delta):
    """Exact composition of Gaussian mechanisms (theorem thm-comp-gaussian-exact): one Gaussian with
    mu^2 = sum of the mu_i^2."""
    pure, gauss, other = _split(counts)
    if pure or other:
        names = sorted({type(e).__name__ for e, _ in pure} | set(other))
        raise NotApplicableError(f"exact Gaussian composition applies to Gaussian events only, got {', '.join(names)}")
    mu = math.sqrt(sum(n * e.mu ** 2 for e, n in gauss))
    return gaussian_epsilon(delta, mu), f"one Gaussian mechanism with mu = {mu:.4g}"


#: The accounting methods, by name. Each is ``f(counts, delta) -> (epsilon, note)`` and may raise
#: :class:`NotApplicableError`; add an entry to add a method.
ACCOUNTING_METHODS = {
    "basic": _basic,
    "advanced": _advanced,
    "optimal": _optimal,
    "rdp": _rdp,
    "gaussian_exact": _gaussian_exact,
}


def _check_method(method) -> str:
    return check_choice(method, "method", tuple(ACCOUNTING_METHODS))


@dataclass(frozen=True)
class AccountingResult:
    """One method's answer: total ``epsilon`` at ``delta`` (``inf`` if the method does not apply) and a note."""

    method: str
    epsilon: float
    delta: float
    note: str


class PrivacyAccountant:
    """Accumulates events and answers: how much epsilon at a given delta, by a chosen method?

    Parameters
    ----------
    events : iterable of DpEvent, optional
        Events already run.

    Examples
    --------
    >>> acc = PrivacyAccountant().compose(GaussianEvent(sigma=10.0), k=100)
    >>> round(acc.epsilon(1e-5, "gaussian_exact"), 4)
    4.3772
    >>> acc.epsilon(1e-5, "optimal")
    Traceback (most recent call last):
    ...
    dpcourse.accounting.NotApplicableError: a Gaussian mechanism is not epsilon-DP for any finite epsilon; optimal composition (Kairouz-Oh-Viswanath) is computed here for pure-DP events only (use 'gaussian_exact')
    """

    def __init__(self, events=()):
        self._events: list[DpEvent] = []
        self._cache = None
        if isinstance(events, DpEvent):
            raise TypeError("events must be a sequence of DpEvent objects, e.g. PrivacyAccountant([event]); "
                            f"got the single event {events!r}")
        if isinstance(events, (str, bytes)) or not isinstance(events, Iterable):
            raise TypeError(f"events must be a sequence of DpEvent objects, got {type(events).__name__}")
        for i, e in enumerate(events):
            if not isinstance(e, DpEvent):
                raise TypeError(f"events[{i}] must be a DpEvent, got {type(e).__name__}")
            self._events.append(e)  # what compose(e) records, without its per-call checks (10**5 events are common)

    def compose(self, event, k=1) -> "PrivacyAccountant":
        """Record that ``event`` ran ``k`` more times; returns the accountant, so calls can be chained."""
        if not isinstance(event, DpEvent):
            raise TypeError(f"event must be a DpEvent, got {type(event).__name__}")
        k = check_positive_int(k, "k")
        self._events.append(event if k == 1 else ComposedEvent(event, k))
        self._cache = None
        return self

    @property
    def events(self) -> tuple:
        """The events recorded so far (a tuple: reading it cannot change the accountant)."""
        return tuple(self._events)

    def _counts(self):
        """The flattened events as ``((base_event, runs), ...)``, equal events grouped; cached until compose()."""
        if not self._events:
            raise ValueError("the accountant has no events yet; compose() some first")
        if self._cache is None:
            nested = [e for e in self._events if isinstance(e, (ComposedEvent, SequenceEvent))]
            counts = Counter(e for e in self._events if not isinstance(e, (ComposedEvent, SequenceEvent)))
            for e in nested:
                _flatten(e, 1, counts)
            self._cache = tuple(counts.items())
        return self._cache

    def epsilon(self, delta, method="rdp") -> float:
        """Total epsilon at ``delta`` in (0, 1) by ``method`` (a key of :data:`ACCOUNTING_METHODS`).

        Raises
        ------
        NotApplicableError
            If the method does not apply to the recorded events (the message says why).
        """
        d = check_delta(delta, allow_zero=False)
        method = _check_method(method)
        return float(ACCOUNTING_METHODS[method](self._counts(), d)[0])

    def compare(self, delta) -> dict:
        """Every method's :class:`AccountingResult` at ``delta``; a method that does not apply gets epsilon = inf."""
        d = check_delta(delta, allow_zero=False)
        counts = self._counts()
        out = {}
        for name, method in ACCOUNTING_METHODS.items():
            try:
                eps, note = method(counts, d)
            except NotApplicableError as exc:
                eps, note = math.inf, f"not applicable: {exc}"
            out[name] = AccountingResult(name, float(eps), d, note)
        return out


def max_compositions(event, epsilon, delta, method="rdp", *, k_max=10**6) -> int:
    """Largest k such that ``k`` runs of ``event`` stay within (epsilon, delta) by ``method`` (0 if even one does not).

    The comparison allows a relative rounding slack of 1e-12 (so 10 runs of 0.1 fit in 1.0). Every method's
    epsilon grows with k, so doubling followed by bisection finds the answer with about
    2 log2(k) accountant queries. Stops at ``k_max`` (returned if the budget is never exceeded up to there).

    Examples
    --------
    >>> max_compositions(PureDPEvent(0.1), epsilon=1.0, delta=1e-6, method="basic")
    10
    """
    if not isinstance(event, DpEvent):
        raise TypeError(f"event must be a DpEvent, got {type(event).__name__}")
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    k_max = check_positive_int(k_max, "k_max")
    method = _check_method(method)

    def ok(k):
        return PrivacyAccountant().compose(event, k).epsilon(d, method) <= eps * (1 + 1e-12)

    if not ok(1):
        return 0
    lo, hi = 1, 2
    while hi <= k_max and ok(hi):
        lo, hi = hi, 2 * hi
    if hi > k_max:
        if ok(k_max):
            return k_max
        hi = k_max
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo
