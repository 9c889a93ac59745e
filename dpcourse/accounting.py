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

:class:`PoissonSampledEvent` records a mechanism run on a Poisson sample. For a sampled Gaussian, the
methods ``"rdp"`` (exact binomial sum at integer orders) and ``"pld"`` (privacy-loss distributions) account
for it under add/remove one; :func:`dpsgd_epsilon` and :func:`dpsgd_noise_multiplier` are the fronts used
for DP-SGD (chapter "Private learning"). The accountant does not record relations: when a
:class:`PoissonSampledEvent` is present, every other composed event must also be analysed under
add/remove one (its sensitivity computed for adding or removing a record), or the result is not a
guarantee under any single relation.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ._validation import (check_choice, check_delta, check_epsilon, check_positive_int, check_probability, check_real,
                          check_sensitivity)
from .composition import (
    _conversion_term,
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
    "PoissonSampledEvent",
    "NotApplicableError",
    "AccountingResult",
    "ACCOUNTING_METHODS",
    "PrivacyAccountant",
    "max_compositions",
    "rdp_subsampled_gaussian",
    "subsampled_gaussian_delta",
    "subsampling_amplification",
    "dpsgd_epsilon",
    "dpsgd_noise_multiplier",
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


@dataclass(frozen=True)
class PoissonSampledEvent(DpEvent):
    """``event`` run on a Poisson sample of the data: each record is kept independently with probability
    ``sampling_rate``, and ``event`` sees only the kept records.

    The event only records what happened; the accounting methods decide what they can say about it. The
    accountant's methods ``"rdp"`` and ``"pld"`` account for a Poisson-sampled :class:`GaussianEvent` under
    the add/remove-one relation (theorems ``learn-thm-rdp-subsampled`` and ``learn-thm-pld`` of the chapter
    "Private learning"); the other methods raise :class:`NotApplicableError` for it.

    Relation: this event is accounted under **add/remove one**, and the accountant composes events without
    checking their relations. When a ``PoissonSampledEvent`` is composed with other events, those must be
    under add/remove one as well (sensitivities computed for adding or removing one record); composing it
    with an event whose sensitivity was computed for replace-one gives a number that is a guarantee under
    neither relation.
    """

    sampling_rate: float
    event: DpEvent

    def __post_init__(self):
        object.__setattr__(self, "sampling_rate", check_real(self.sampling_rate, "sampling_rate", low=0.0,
                                                             low_open=True, high=1.0))
        if not isinstance(self.event, DpEvent):
            raise TypeError(f"event must be a DpEvent, got {type(self.event).__name__}")


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


def _split_sampled(counts):
    """Separate the Poisson-sampled Gaussian events (as ``(q, mu, runs)``) from the rest; any other
    Poisson-sampled event is returned among the unknown type names."""
    sampled, rest, other = [], [], []
    for e, n in counts:
        if isinstance(e, PoissonSampledEvent):
            if isinstance(e.event, GaussianEvent):
                sampled.append((e.sampling_rate, e.event.mu, n))
            else:
                other.append(f"PoissonSampledEvent({type(e.event).__name__})")
        else:
            rest.append((e, n))
    return sampled, rest, other


def _rdp_curve(counts):
    """The total RDP curve. Gaussian terms add up to ``alpha/2 * sum n mu^2`` (one term, whatever the number
    of events); pure-DP and Laplace events with equal epsilon are grouped, one curve per distinct epsilon.
    Poisson-sampled Gaussian events are not handled here (see :func:`_rdp`)."""
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


#: Integer Renyi orders at which a Poisson-sampled Gaussian is accounted: every order up to 256, then a
#: geometric grid up to 10**5 (the exact formula of theorem learn-thm-rdp-subsampled holds at integers).
_INTEGER_ORDERS = np.unique(np.concatenate([np.arange(2, 257),
                                            np.round(np.geomspace(256, 1e5, 60)).astype(int)])).astype(float)


def _rdp(counts, delta):
    """Renyi DP: add the events' RDP curves (Gaussian alpha mu^2/2, Laplace's exact curve, the worst case
    of a pure-DP event, the exact binomial sum of a Poisson-sampled Gaussian at integer orders) and convert
    with the improved conversion (Canonne, Kamath & Steinke 2020). With a Poisson-sampled event the order is
    optimised over the integers of :data:`_INTEGER_ORDERS` only."""
    sampled, rest, other = _split_sampled(counts)
    if other:
        _unknown("rdp", other)
    if not sampled:
        eps, alpha = rdp_to_epsilon(_rdp_curve(counts), delta)
        return eps, f"improved conversion, best order alpha = {alpha:.3g}"
    a = _INTEGER_ORDERS
    total = np.zeros_like(a)
    if rest:
        total += np.asarray(_rdp_curve(tuple(rest))(a), dtype=float)
    for q, mu, n in sampled:
        total += n * rdp_subsampled_gaussian(a, q, 1.0 / mu)
    values = total + _conversion_term(a, delta, "improved")
    i = int(np.argmin(values))
    return max(0.0, float(values[i])), f"improved conversion at integer orders, best order alpha = {a[i]:.0f}"


#: The largest number of Poisson-sampled Gaussian runs method "pld" accounts for (refused at once above it).
PLD_MAX_RUNS = 10**6
#: The smallest noise multiplier :func:`dpsgd_noise_multiplier` calibrates to (0.125 = 2**-3, a halving step from
#: 1): a setting whose answer is below it is refused by name after the queries down to 0.125 (about 1 s): the PLD
#: grid grows like 1/sigma^2, and the 8-10 queries of the bisection below it took 15-20 s.
MIN_NOISE_MULTIPLIER = 0.125


def _pld(counts, delta):
    """Privacy-loss distributions (theorem learn-thm-pld): the connect-the-dots discretisation of each
    direction (remove, add) of a Poisson-sampled Gaussian, composed by FFT; the larger epsilon of the two
    directions. Only Poisson-sampled Gaussian events with one common (q, mu) (Gaussian events count as q = 1)."""
    sampled, rest, other = _split_sampled(counts)
    pure, gauss, other2 = _split(tuple(rest))
    if other or other2 or pure:
        names = sorted(set(other) | set(other2) | {type(e).__name__ for e, _ in pure})
        _unknown("pld", names)
    runs = [(q, mu, n) for q, mu, n in sampled] + [(1.0, e.mu, n) for e, n in gauss]
    if len({(q, mu) for q, mu, _ in runs}) != 1:
        raise NotApplicableError("method 'pld' is implemented for repetitions of one Poisson-sampled Gaussian "
                                 f"(one sampling rate and one mu); these events have {len({(q, mu) for q, mu, _ in runs})}")
    q, mu = runs[0][0], runs[0][1]
    k = sum(n for _, _, n in runs)
    if k > PLD_MAX_RUNS and q < 1.0:  # a cap, not a wait: the grid and the window grow with k
        raise NotApplicableError(f"method 'pld' accounts for at most PLD_MAX_RUNS = {PLD_MAX_RUNS} subsampled runs "
                                 f"(about 5 s per query at the cap on 2 cores), got {k}: use method 'rdp' (its cost does not grow "
                                 "with the number of runs)")
    if delta < 1e-200:  # far below any meaningful delta and below the PLD's floating-point reach
        return _rdp(counts, delta)[0], "delta below the PLD's floating-point reach: the RDP bound"
    if q == 1.0:  # no subsampling: k Gaussians compose exactly into one with mu sqrt(k) (thm-comp-gaussian-exact)
        return gaussian_epsilon(delta, mu * math.sqrt(k)), f"no subsampling: one Gaussian with mu = {mu * math.sqrt(k):.4g}"
    eps = max(_pld_epsilon(q, 1.0 / mu, k, delta, d) for d in ("remove", "add"))
    if delta < 1e-9:  # both are upper bounds: below 1e-9 the cheap RDP bound is also computed, the smaller returned
        rdp_eps = _rdp(counts, delta)[0]
        if rdp_eps < eps:
            return rdp_eps, "the RDP bound (smaller than the PLD bound here; both are upper bounds)"
    return eps, "connect-the-dots PLD, max of the remove and add directions"


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
    "pld": _pld,
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

    The answer is a guarantee under the neighbouring relation for which *all* recorded events were
    analysed; the accountant does not record or check relations, so the caller must use one relation
    throughout. A :class:`PoissonSampledEvent` is accounted under add/remove one, so when one is present
    every other event must be under add/remove one too.

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
        """Every method's :class:`AccountingResult` at ``delta``; a method that does not apply gets epsilon = inf.

        The method ``"pld"`` is listed only when a :class:`PoissonSampledEvent` was recorded (without
        subsampling it would repeat ``"gaussian_exact"``)."""
        d = check_delta(delta, allow_zero=False)
        counts = self._counts()
        out = {}
        sampled = any(isinstance(e, PoissonSampledEvent) for e, _ in counts)
        for name, method in ACCOUNTING_METHODS.items():
            if name == "pld" and not sampled:  # without subsampling it repeats 'gaussian_exact' (or does not apply)
                continue
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
    With method ``"pld"`` and a Poisson-sampled event (q < 1), ``k_max`` above ``PLD_MAX_RUNS`` = 10**6 is
    refused at once with :class:`NotApplicableError` (the accountant's cap; the doubling would reach it only
    after minutes of queries).

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
    if method == "pld" and isinstance(event, PoissonSampledEvent) and event.sampling_rate < 1.0 \
            and k_max > PLD_MAX_RUNS:   # the doubling would reach the accountant's cap after minutes: refuse now
        raise NotApplicableError(f"k_max must be at most PLD_MAX_RUNS = {PLD_MAX_RUNS} for method 'pld' with a "
                                 f"Poisson-sampled event (sampling_rate < 1), got k_max={k_max}: lower k_max or use "
                                 "method 'rdp'")

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


# ----------------------------------------------------------------------------------------------------
# The Poisson-subsampled Gaussian mechanism (chapter "Private learning").
#
# Neighbouring relation: add/remove one record. With sampling rate q and a Gaussian of noise sigma on a
# query of l2 sensitivity 1 (mu = 1/sigma), the pair of output distributions that dominates every pair of
# neighbours is (Zhu, Dong & Wang 2022, Proposition 30; Mironov, Talwar & Zhang 2019, section 3)
#   remove direction:  P = (1 - q) N(0, 1) + q N(mu, 1)   against   Q = N(0, 1),
#   add direction:     Q = N(0, 1)                        against   P = (1 - q) N(0, 1) + q N(mu, 1),
# in units of sigma. A guarantee for add/remove must hold in both directions: the methods take the max.


def _check_q_sigma(sampling_rate, noise_multiplier):
    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.0, low_open=True)
    if not math.isfinite(1.0 / sigma):
        raise ValueError(f"noise_multiplier={noise_multiplier!r} is too small (1/noise_multiplier overflows)")
    return q, sigma


def rdp_subsampled_gaussian(alpha, sampling_rate, noise_multiplier):
    """Renyi DP of the Poisson-subsampled Gaussian mechanism at integer orders (exact binomial sum).

    A Gaussian mechanism with noise ``noise_multiplier`` times the l2 sensitivity, run on a Poisson
    sample with rate ``q = sampling_rate``, is (alpha, r(alpha))-RDP under the add/remove-one relation with

    ``r(alpha) = 1/(alpha - 1) * log sum_{j=0}^{alpha} C(alpha, j) (1-q)^(alpha-j) q^j exp((j^2 - j) / (2 sigma^2))``

    for every integer alpha >= 2 (Mironov, Talwar & Zhang 2019, Theorem 11 and section 3.3; theorem
    ``learn-thm-rdp-subsampled`` of the chapter "Private learning"). The sum is the exact Renyi divergence of
    the remove direction, which is at least that of the add direction (their Theorem 5). It is evaluated
    in log-space with ``logsumexp``, so it never overflows or fails to converge (e.g. at q = 0.05,
    sigma = 0.8 and alpha up to 10**5).

    Parameters
    ----------
    alpha : int or array of int
        Renyi orders, integers >= 2 (a float such as 3.0 is accepted; 2.5 is refused).
    sampling_rate : float
        Poisson sampling rate q in (0, 1].
    noise_multiplier : float
        sigma > 0, the noise standard deviation divided by the l2 sensitivity.

    Returns
    -------
    float or ndarray
        r(alpha), one value per order.

    Examples
    --------
    >>> round(rdp_subsampled_gaussian(2, 1.0, 1.0), 12)  # q = 1: the Gaussian's alpha / (2 sigma^2)
    1.0
    >>> round(float(rdp_subsampled_gaussian(2, 0.5, 1.0)), 6)  # log(1 + q^2 (e - 1))
    0.357374
    """
    q, sigma = _check_q_sigma(sampling_rate, noise_multiplier)
    raw = np.asarray(alpha)
    if raw.dtype == bool or raw.dtype.kind not in "iuf":
        raise TypeError(f"alpha must be an integer order >= 2 or an array of them, got {type(alpha).__name__}")
    a = raw.astype(float)
    if not np.all(np.isfinite(a)) or np.any(a < 2) or np.any(a != np.round(a)) or np.any(a > 1e7):
        raise ValueError(f"alpha must hold integer Renyi orders in [2, 1e7] (the binomial sum is exact at "
                         f"integers), got {alpha!r}")
    flat = a.ravel()
    out = np.empty_like(flat)
    log_q, log_1mq = math.log(q), math.log1p(-q) if q < 1 else -math.inf
    for idx, order in enumerate(flat):  # one vectorized logsumexp per order (the orders are few)
        n = int(order)
        j = np.arange(n + 1, dtype=float)
        log_binom = special.gammaln(n + 1) - special.gammaln(j + 1) - special.gammaln(n - j + 1)
        with np.errstate(invalid="ignore"):
            log_terms = (log_binom + np.where(j > 0, j * log_q, 0.0) + np.where(n - j > 0, (n - j) * log_1mq, 0.0)
                         + (j * j - j) / (2.0 * sigma * sigma))
        # logsumexp as scipy computes it (the largest term's exp(0) = 1 left out of the sum, log1p of the
        # others), without its per-call overhead: two thirds of a calibration's time
        top = int(np.argmax(log_terms))
        scaled = np.exp(log_terms - log_terms[top])
        scaled[top] = 0.0
        out[idx] = (log_terms[top] + math.log1p(float(scaled.sum()))) / (n - 1)
    out = np.maximum(out, 0.0).reshape(a.shape)
    return float(out) if out.ndim == 0 else out


def _loss_to_z(ell, q, mu, direction):
    """The point z (in units of sigma) where the privacy loss equals ``ell``; the loss is increasing in z
    for 'remove' and decreasing for 'add'. At or beyond the end of the loss's range (below its minimum for
    'remove', above its maximum for 'add') it returns -inf."""
    ell = np.asarray(ell, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if direction == "remove":  # ell = log(1 - q + q exp(mu z - mu^2/2))
            inner = np.where(ell > (math.log1p(-q) if q < 1 else -math.inf),
                             np.log(np.maximum(np.expm1(ell) + q, 0.0)) - math.log(q), -np.inf)
            return np.where(np.isneginf(inner), -np.inf, (inner + mu * mu / 2.0) / mu)
        inner = np.where(-ell > (math.log1p(-q) if q < 1 else -math.inf),
                         np.log(np.maximum(np.expm1(-ell) + q, 0.0)) - math.log(q), -np.inf)
        return np.where(np.isneginf(inner), -np.inf, (inner + mu * mu / 2.0) / mu)


def _interval_mass(za, zb, shift):
    """P(za <= Z + shift <= zb) for Z ~ N(0, 1), accurate in both tails (za <= zb, may be infinite)."""
    a, b = za - shift, zb - shift
    upper = special.ndtr(-a) - special.ndtr(-b)  # accurate when the interval is in the upper tail
    lower = special.ndtr(b) - special.ndtr(a)  # accurate in the lower tail
    return np.maximum(np.where(a > 0, upper, lower), 0.0)


def subsampled_gaussian_delta(epsilon, sampling_rate, noise_multiplier, *, direction="remove"):
    """Exact delta(epsilon) of ONE run of the Poisson-subsampled Gaussian mechanism, one direction.

    The hockey-stick divergence ``sup_S P(S) - e^epsilon Q(S)`` of the dominating pair of the add/remove
    relation (see the module comment; theorem ``learn-thm-pld``): ``direction="remove"`` compares the
    mixture ``(1-q) N(0,1) + q N(1/sigma,1)`` with ``N(0,1)``, ``direction="add"`` the reverse. The loss is
    monotone in the output, so the supremum is attained on a half-line and is a difference of normal tails.

    Parameters
    ----------
    epsilon : float or array
        Any real epsilon (negative values are allowed: the whole curve describes the mechanism).
    sampling_rate, noise_multiplier : float
        q in (0, 1] and sigma > 0.
    direction : {"remove", "add"}

    Examples
    --------
    >>> from dpcourse.gaussian import gaussian_delta
    >>> abs(subsampled_gaussian_delta(1.0, 1.0, 2.0) - gaussian_delta(1.0, 0.5)) < 1e-15
    True
    """
    q, sigma = _check_q_sigma(sampling_rate, noise_multiplier)
    direction = check_choice(direction, "direction", ("remove", "add"))
    eps = np.asarray(epsilon)
    if eps.dtype == bool or eps.dtype.kind not in "iuf" or not np.all(np.isfinite(eps)):
        raise ValueError(f"epsilon must be a finite real number or array of them, got {epsilon!r}")
    eps = eps.astype(float)
    mu = 1.0 / sigma
    z = _loss_to_z(eps, q, mu, direction)
    t = np.exp(eps)
    if direction == "remove":  # S = {z > z(eps)}
        p = (1 - q) * _interval_mass(z, np.inf, 0.0) + q * _interval_mass(z, np.inf, mu)
        qq = _interval_mass(z, np.inf, 0.0)
    else:  # S = {z < z(eps)}: P = N(0,1), Q = mixture
        p = _interval_mass(-np.inf, z, 0.0)
        qq = (1 - q) * _interval_mass(-np.inf, z, 0.0) + q * _interval_mass(-np.inf, z, mu)
    out = np.maximum(p - t * qq, 0.0)
    return float(out) if out.ndim == 0 else out


def _loss_range(q, mu, direction, tail):
    """A loss interval [l_bot, l_top] holding all but ``tail`` of the mass of either normal component."""
    zt = -special.ndtri(tail)  # a normal beyond zt has probability < tail
    if direction == "remove":
        l_top = math.log1p(q * math.expm1(min(mu * (zt + mu) - mu * mu / 2, 700.0)))  # log(1 - q + q e^x)
        l_bot = math.log1p(-q) if q < 1 else (-mu * zt - mu * mu / 2)
    else:
        l_top = -math.log1p(-q) if q < 1 else (mu * zt + mu * mu / 2)
        l_bot = -math.log1p(q * math.expm1(min(mu * zt - mu * mu / 2, 700.0)))
    return l_bot, l_top


def _step_pld(q, mu, h, direction, tail):
    """Connect-the-dots PLD of one run on the grid ``ell_i = h * (i0 + i)``: (i0, masses, mass at +inf).

    Each piece of loss between two grid points is split between them so that both its P-mass and its
    Q-mass (the integral of e^-loss dP) are kept: a mean-preserving spread of e^-loss (theorem learn-thm-pld).
    Loss above the top point (P-mass <= ``tail``) goes to +inf; loss below the bottom point is rounded up
    to it. Both changes can only increase delta(epsilon) for every epsilon."""
    l_bot, l_top = _loss_range(q, mu, direction, tail)
    i0, i1 = math.floor(l_bot / h), math.ceil(l_top / h)
    grid = h * np.arange(i0, i1 + 1, dtype=float)
    z = _loss_to_z(grid, q, mu, direction)
    if direction == "remove":
        za, zb = z[:-1], z[1:]
    else:
        za, zb = z[1:], z[:-1]

    def masses(za, zb):
        if direction == "remove":
            pm = (1 - q) * _interval_mass(za, zb, 0.0) + q * _interval_mass(za, zb, mu)
            qm = _interval_mass(za, zb, 0.0)
        else:
            pm = _interval_mass(za, zb, 0.0)
            qm = (1 - q) * _interval_mass(za, zb, 0.0) + q * _interval_mass(za, zb, mu)
        return pm, qm

    pm, qm = masses(za, zb)  # P- and Q-mass of the loss pieces [ell_i, ell_{i+1}]
    # split: upper share b = (e^-ell_i Pm - Qm) / (e^-ell_i - e^-ell_{i+1}) = (Pm - e^ell_i Qm) / (1 - e^-h)
    with np.errstate(over="ignore", invalid="ignore"):
        up = (pm - np.exp(grid[:-1]) * qm) / (-math.expm1(-h))
    up = np.clip(np.nan_to_num(up, nan=0.0, posinf=0.0), 0.0, pm)
    w = np.zeros(grid.size)
    w[1:] += up
    w[:-1] += pm - up
    # below the grid: rounded up to the bottom point; above: to +inf
    if direction == "remove":
        below = (1 - q) * _interval_mass(-np.inf, z[0], 0.0) + q * _interval_mass(-np.inf, z[0], mu)
        above = (1 - q) * _interval_mass(z[-1], np.inf, 0.0) + q * _interval_mass(z[-1], np.inf, mu)
    else:
        below = _interval_mass(z[0], np.inf, 0.0)
        above = _interval_mass(-np.inf, z[-1], 0.0)
    w[0] += float(below)
    return i0, w, float(above)


def _log_mgf(w, grid, lam):
    """log sum_i w_i exp(lam ell_i) for each lam (of either sign): the exact log moment-generating function of
    the discretised loss, over the points with positive mass (16 orders at a time, in log-space)."""
    keep = w > 0
    logw, ell = np.log(w[keep]), grid[keep]
    out = np.empty(lam.size)
    buf = np.empty((16, ell.size))
    for s in range(0, lam.size, 16):   # in place, one buffer: the same operations, in the same order
        x = buf[:min(16, lam.size - s)]
        np.multiply(lam[s:s + 16, None], ell[None, :], out=x)
        x += logw[None, :]
        top = x.max(axis=1)
        x -= top[:, None]
        np.exp(x, out=x)
        out[s:s + 16] = top + np.log(x.sum(axis=1))
    return out


def _fft_power(folded, k, n_fft):
    """The k-fold circular self-convolution of ``folded`` (non-negative, sum 1) by FFT, and the round-off
    allowance per entry: 4 times the larger of the noise floor seen in the result (its most negative entry)
    and a first-order bound of the error: a per-frequency error of (log2 n + 2) 2^-52 (the sum of the masses
    is 1) raised to the k-th power with the transform X, k |X_j|^(k-1) times it, averaged by the inverse
    transform. The floor alone missed the error by up to 47 times (q = 0.03, sigma = 1, k = 300, where no
    entry came out negative); this is an estimate, checked against a long-double recomputation."""
    spec = np.fft.rfft(folded)
    comp_t = np.fft.irfft(spec ** k, n_fft)
    mod = np.abs(spec) ** (k - 1)
    mean_mod = (mod[0] + mod[-1] + 2.0 * mod[1:-1].sum()) / n_fft   # (1/n) sum over the full spectrum
    propagated = k * (math.log2(n_fft) + 2.0) * 2.0 ** -52 * float(mean_mod)
    floor = max(-float(comp_t.min()), 2.0 ** -52 * float(comp_t.max()), propagated)
    return comp_t, 4.0 * floor


_MAX_FFT = 2 ** 22
#: Tilting orders for the Chernoff bounds and the exponential tilt of :func:`_pld_epsilon` (both signs).
_TILTS = np.concatenate([-np.geomspace(1e3, 1e-3, 41), np.geomspace(1e-3, 1e3, 121)])


def _pld_epsilon(q, sigma, k, delta, direction, h=None, tail=None):
    """Smallest epsilon with delta_k(epsilon) <= delta for k runs, one direction, as an upper bound.

    The k-fold composition of the one-run PLD ``w`` (:func:`_step_pld`) is computed by a circular FFT of the
    *exponentially tilted* masses ``w_i e^(lam ell_i) / M(lam)`` (M the moment-generating function), then
    untilted: the composition of the tilted masses is the tilt of the composition, so the composed mass at
    ell is ``e^(k log M(lam) - lam ell)`` times the tilted one. The tilt ``lam`` minimises the Chernoff
    estimate ``(k log M(lam) - log delta) / lam`` of epsilon, which centres the tilted composition where delta
    is decided; the FFT's absolute round-off (a small fraction of the largest tilted mass, growing with k: see
    (iii)) is then a tiny *relative* error there. Without the tilt that round-off is of the order of 1e-16 per
    entry on every one of up to 4 million entries, and its margin, charged over the entries above epsilon,
    exceeded delta at delta = 1e-9 (epsilon = 365 instead of 19.5 at q = 0.001, sigma = 0.5, k = 10^5).

    Guarantees. (i) Mass of the composition above the window top b is at most ``tol`` by a Chernoff bound
    and is charged to delta, as is the mass at +inf. (ii) Mass outside the window wraps around the circle:
    every wrapped entry is non-negative, so it can only increase the computed delta. (iii) Each entry's
    round-off is taken to be at most the allowance of :func:`_fft_power` (4 times the larger of the noise floor
    of the tilted result and a first-order propagation bound; an estimate, not proved, checked against a
    long-double recomputation by the tests), untilted like the entry, and the sum of these bounds over the
    entries above epsilon is charged to delta. (iv) Composed entries where the untilting factor exceeds
    e^700 are dropped: delta is never read below them.

    Grid: spacing ``h = min(one run's loss range / 5000, 0.03 / sqrt(k), 1e-3)``: the connect-the-dots
    error grows with k h^2 (measured: at q = 0.001, k = 10^5 a spacing of 1e-3 gives epsilon 2% above
    the converged value, 1e-4 agrees with dp_accounting's 1e-4 grid to 0.02%). ``tail`` (default
    ``1e-7 delta / (10 k)``) is the P-mass of one run moved to +inf; its k-fold total is charged to delta."""
    mu = 1.0 / sigma
    tol = 1e-7 * delta
    if tail is None:  # one run's P-mass moved to +inf (charged to delta; the tests pass a larger one to see it)
        tail = tol / (10 * k)
    if h is None:
        l_bot, l_top = _loss_range(q, mu, direction, tail)
        h = float(np.clip(min((l_top - l_bot) / 5000.0, 0.03 / math.sqrt(k)), 1e-7, 1e-3))
    lam = _TILTS
    pos = lam > 0
    for _ in range(6):
        i0, w, p_inf = _step_pld(q, mu, h, direction, tail=tail)
        grid = h * np.arange(i0, i0 + w.size)
        logm = _log_mgf(w, grid, lam)
        # Chernoff: the mass of the k-fold sum above b_u is at most exp(k log M(lam) - lam b_u) <= tol
        b_u = float(np.min((k * logm[pos] - math.log(tol)) / lam[pos]))
        i_t = int(np.argmin(np.where(pos, (k * logm - math.log(delta)) / np.where(pos, lam, 1.0), np.inf)))
        lt = float(lam[i_t])
        kc = k * float(logm[i_t])
        # window of the tilted composition: mass below a_t at most 1e-30, above b_t at most 1e-12 (Chernoff on
        # the tilted law, whose log-MGF at theta is k log M(lt + theta) - k log M(lt)); wrapped mass is >= 0
        th = lam - lt
        up, dn = th > 0, th < 0
        b_t = float(np.min((k * logm[up] - kc - math.log(1e-12)) / th[up])) if up.any() else b_u
        a_t = float(np.max((k * logm[dn] - kc - math.log(1e-30)) / th[dn]))
        a = max(a_t, k * float(grid[0]))
        b = min(max(b_u, b_t), k * float(grid[-1]))
        n_needed = int(math.ceil(max(b - a, 0.0) / h)) + 2
        if n_needed <= _MAX_FFT:
            break
        h = h * 2.0 * n_needed / _MAX_FFT
    n_fft = 1 << max(int(math.ceil(math.log2(n_needed))), 4)
    if n_fft > _MAX_FFT * 2:
        raise ValueError(f"the PLD grid would need {n_fft} points; use method='rdp' for these parameters")
    with np.errstate(divide="ignore"):
        logw = np.log(w)
    c = float(special.logsumexp(logw + lt * grid))
    kc = k * c
    # the one-run masses folded onto the circle of n_fft points (exact for a circular convolution)
    folded = np.bincount(np.arange(w.size) % n_fft, weights=np.exp(logw + lt * grid - c), minlength=n_fft)
    comp_t, err = _fft_power(folded, k, n_fft)  # err: round-off allowance per tilted entry
    comp_t = np.clip(comp_t, 0.0, None)
    # true index of the composed sum: k*i0 + j; the window starts at j_a
    j_a = int(math.floor(a / h)) - k * i0
    comp_t = np.roll(comp_t, -(j_a % n_fft))
    losses = h * (k * i0 + j_a + np.arange(n_fft, dtype=float))
    log_untilt = kc - lt * losses
    j0 = int(np.argmax(log_untilt <= 700.0)) if log_untilt[-1] <= 700.0 else n_fft
    factor = np.exp(log_untilt[j0:])
    comp = np.minimum(comp_t[j0:] * factor, 1.0)  # a composed mass is at most 1
    entry_err = np.minimum(err * factor, 1.0)
    losses = losses[j0:]
    p_inf_k = -math.expm1(k * math.log1p(-p_inf)) if p_inf < 1 else 1.0
    budget = delta - p_inf_k - tol
    if budget <= 0 or comp.size == 0:
        return math.inf
    # delta(eps) = sum_{ell > eps} w (1 - e^(eps - ell)). At the grid point ell_j it is S1_{j+1} - T_j with
    # S1_j = sum_{i>=j} w_i and T_j = sum_{i>j} w_i e^(-(i-j) h), the stable recursion T_j = e^-h (w_{j+1} + T_{j+1}).
    s1 = np.cumsum(comp[::-1])[::-1]
    margin = np.cumsum(entry_err[::-1])[::-1]  # margin[j] = round-off bound of the entries >= j
    decay = math.exp(-h)
    from scipy import signal  # here, not at the top: scipy.signal loads scipy.stats, about 0.9 s of `import dpcourse`

    t_rev = signal.lfilter([decay], [1.0, -decay], comp[::-1])  # t_rev[m] = sum_{i<=m} decay^(m-i+1) comp_rev[i]
    t = t_rev[::-1]  # t[j] = sum_{i>=j} w_i e^(-(i-j+1) h) = T_{j-1}
    delta_at = np.empty(comp.size)
    delta_at[:-1] = s1[1:] - t[1:] + margin[1:]
    delta_at[-1] = 0.0
    ok = np.nonzero(delta_at <= budget)[0]
    if ok.size == 0:
        return math.inf
    j = int(ok[0])
    if j == 0:
        return float(losses[0]) if losses[0] > 0 else 0.0
    # on [ell_{j-1}, ell_j] the curve is sum_{i>=j} w_i (1 - e^(eps - ell_i)) = S1_j - e^(eps - ell_{j-1}) T_{j-1}
    s1j, tj = float(s1[j]), float(t[j])
    budget -= float(margin[j])
    eps = float(losses[j - 1]) + math.log((s1j - budget) / tj) if s1j > budget and tj > 0 else float(losses[j])
    return max(min(eps, float(losses[j])), float(losses[j - 1]), 0.0)


def subsampling_amplification(epsilon, delta, sampling_rate):
    """Privacy of an (epsilon, delta)-DP mechanism run on a Poisson sample with rate q (amplification).

    Returns ``(log(1 + q (e^epsilon - 1)), q delta)``: the guarantee under the add/remove-one relation
    (theorem ``learn-thm-amplification`` of the chapter "Private learning"; Balle, Barthe & Gaboardi 2018,
    Theorem 8). For a Gaussian mechanism the exact accounting of :func:`dpsgd_epsilon` is much tighter.

    Examples
    --------
    >>> eps, d = subsampling_amplification(1.0, 1e-6, 0.01)
    >>> round(eps, 6), d
    (0.017037, 1e-08)
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    q = check_probability(sampling_rate, "sampling_rate", open_low=True)
    if eps <= 1.0:
        return math.log1p(q * math.expm1(eps)), q * d
    return eps + math.log(q + (1.0 - q) * math.exp(-eps)), q * d  # the same, without overflow for large epsilon


def dpsgd_epsilon(sampling_rate, noise_multiplier, steps, delta, *, method="pld") -> float:
    """Epsilon of DP-SGD: ``steps`` Poisson-sampled Gaussian steps, at ``delta``, under add/remove one.

    Each step adds N(0, (noise_multiplier * C)^2) noise to a sum of per-example gradients clipped to l2 norm
    C, computed on a Poisson sample with rate ``sampling_rate``. A thin front for
    ``PrivacyAccountant().compose(PoissonSampledEvent(q, GaussianEvent(noise_multiplier)), steps)``.

    * ``method="pld"`` (default): privacy-loss distributions, connect-the-dots discretisation composed by
      FFT of the exponentially tilted masses, the larger of the remove and add directions (theorem
      ``learn-thm-pld``). An upper bound on the exact epsilon (up to the FFT's round-off, estimated and
      added to delta). Grid spacing ``min(one step's loss range / 5000, 0.03 / sqrt(steps), 1e-3)``.
      Accuracy, as measured against dp_accounting 0.6.0's PLD (grid 1e-4) by ``benchmarks/bench_dpsgd.py``:
      within [-0.14%, +0.09%] on its grid (q from 0.004 to 0.1, sigma from 0.8 to 5, up to 15,000 steps,
      delta = 1e-5) and within [-0.014%, +0.002%] at q = 0.001, 10^5 steps, sigma from 0.5 to 1, delta = 1e-5
      and 1e-9 (``tests/test_subsampling.py`` checks 1% on a subset); no bound on the distance to the exact
      epsilon is proved. For delta < 1e-9 the RDP bound is computed too and the smaller of the two upper bounds
      returned. With q = 1 the answer is the exact Gaussian composition.
    * ``method="rdp"``: the exact RDP binomial sum at integer orders (theorem ``learn-thm-rdp-subsampled``,
      Mironov, Talwar & Zhang 2019) with the improved conversion; also an upper bound. Nothing proves an
      order between the two bounds; on the 156 settings of ``benchmarks/bench_dpsgd.py`` RDP is the larger
      in every one, by 6% to 89% from 1,000 steps on and by up to 17 times for a single step.

    Parameters
    ----------
    sampling_rate : float
        q in (0, 1] (q = 1: full-batch gradient descent, the exact Gaussian composition).
    noise_multiplier : float
        sigma > 0 (the noise standard deviation over the clipping norm).
    steps : int
        Number of steps k >= 1; at most ``PLD_MAX_RUNS`` = 10**6 for ``method="pld"`` when q < 1 (refused
        with :class:`NotApplicableError` above it; ``"rdp"`` takes any number).
    delta : float
        Target delta in (0, 1).
    method : {"pld", "rdp"}

    Examples
    --------
    >>> round(dpsgd_epsilon(1.0, 10.0, 100, 1e-5), 3)  # q = 1: exact Gaussian composition (4.3772)
    4.377
    >>> dpsgd_epsilon(0.01, 1.0, 1000, 1e-5, method="rdp") >= dpsgd_epsilon(0.01, 1.0, 1000, 1e-5)
    True
    """
    q, sigma = _check_q_sigma(sampling_rate, noise_multiplier)
    k = check_positive_int(steps, "steps")
    d = check_delta(delta, allow_zero=False)
    method = check_choice(method, "method", ("pld", "rdp"))
    if method == "pld" and q < 1.0 and k > PLD_MAX_RUNS:   # the same cap as the accountant's, named by argument
        raise NotApplicableError(f"steps must be at most PLD_MAX_RUNS = {PLD_MAX_RUNS} for method 'pld' with "
                                 f"sampling_rate < 1, got steps={k}: use method 'rdp'")
    event = PoissonSampledEvent(q, GaussianEvent(sigma))
    return PrivacyAccountant().compose(event, k).epsilon(d, method)


def dpsgd_noise_multiplier(sampling_rate, steps, epsilon, delta, *, method="pld", rtol=1e-3) -> float:
    """Smallest noise multiplier sigma (to relative precision ``rtol``, rounded up) such that DP-SGD with
    this sampling rate and number of steps is (epsilon, delta)-DP under add/remove one.

    The exact epsilon is decreasing in sigma (a larger sigma is a post-processing of a smaller one), and so
    is the computed one (checked on a grid by ``tests/test_subsampling.py``), so a bisection on log sigma
    finds it. The returned sigma satisfies ``dpsgd_epsilon(..., sigma, ...) <= epsilon`` and the bisection
    has seen a sigma' >= sigma / (1 + rtol) with ``dpsgd_epsilon(..., sigma', ...) > epsilon``: sigma is
    the smallest to within the relative tolerance ``rtol`` (by default 0.1%).

    Cost: about 15 queries of :func:`dpsgd_epsilon`; with ``"pld"`` each costs in proportion to the loss grid,
    which grows like 1/sigma^2 (1.2e5 points at sigma = 0.095), so a small answer is the slow case: an answer
    below ``MIN_NOISE_MULTIPLIER = 0.125`` is refused by name (a cap: q = 1e-6, 10 steps, epsilon = 1,
    delta = 1e-5 needs sigma = 0.095 and took 6 s on an idle core, 19 s on a shared one). A target that no noise
    multiplier up to 1e6 reaches is refused by name after one query at 1e6, the cheapest (0.05 s at q = 0.5 and
    10**6 steps, where doubling sigma from 1 up to the cap took 20 queries and 20 s; up to about 1.5 s at q <= 1e-4
    and 10**6 steps, where that one PLD query is the accountant's cost).

    Examples
    --------
    >>> s = dpsgd_noise_multiplier(0.01, 1000, 1.0, 1e-5)
    >>> dpsgd_epsilon(0.01, s, 1000, 1e-5) <= 1.0 < dpsgd_epsilon(0.01, s * 0.995, 1000, 1e-5)
    True
    """
    q = check_real(sampling_rate, "sampling_rate", low=0.0, low_open=True, high=1.0)
    k = check_positive_int(steps, "steps")
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    method = check_choice(method, "method", ("pld", "rdp"))
    tol = check_real(rtol, "rtol", low=1e-9, high=0.5)

    return _calibrate(q, k, eps, d, method, tol)


#: The largest noise multiplier :func:`dpsgd_noise_multiplier` calibrates to: a target that needs more is refused.
_MAX_NOISE_MULTIPLIER = 1e6


@functools.lru_cache(maxsize=256)
def _calibrate(q, k, eps, d, method, tol):
    def eps_of(sigma):
        return dpsgd_epsilon(q, sigma, k, d, method=method)

    # Refuse first, with one query at the largest noise multiplier calibrated to (the cheapest query: the PLD grid
    # shrinks as sigma grows): the doubling from 1 reached the refusal only after 20 queries (20 s at q = 0.5,
    # 10**6 steps; benchmarks/bench_fdp.py).
    if eps_of(_MAX_NOISE_MULTIPLIER) > eps:
        raise ValueError(f"no noise multiplier up to 1e6 reaches epsilon={eps!r} at delta={d!r} "
                         f"(sampling_rate={q!r}, steps={k}): ask for a larger epsilon or delta, or fewer steps")
    hi = 1.0
    lo_above = False                 # whether eps_of(hi / 2) > eps is known already
    while eps_of(hi) > eps:  # epsilon decreases in sigma: double until the budget is met
        hi *= 2.0
        lo_above = True
        if hi >= _MAX_NOISE_MULTIPLIER:  # eps_of(cap) <= eps is known, and eps_of(hi / 2) > eps was just seen
            hi = _MAX_NOISE_MULTIPLIER
            break
    lo = hi / 2.0
    # Halve until eps_of(lo) > eps, then bisect [lo, hi] on log sigma. eps_of(lo) is the dearest evaluation (the
    # PLD grid grows like 1/sigma^2) and is skipped when it is implied: known from doubling, or by the first
    # midpoint of the bisection (epsilon is non-increasing in sigma: eps_of(mid) > eps gives eps_of(lo) > eps).
    # The midpoints, and so the result, are those of halving first and bisecting after.
    while not lo_above and hi / lo > 1.0 + tol:
        mid = math.sqrt(lo * hi)
        if eps_of(mid) > eps:        # the first step of the bisection, done early
            lo = mid
            break
        if eps_of(lo) > eps:
            hi = mid
            break
        hi, lo = lo, lo / 2.0        # halve until it is not
        if lo < MIN_NOISE_MULTIPLIER:
            raise ValueError(f"epsilon={eps!r} at delta={d!r} (sampling_rate={q!r}, steps={k}) is reached with a "
                             f"noise multiplier below MIN_NOISE_MULTIPLIER = {MIN_NOISE_MULTIPLIER}; dpcourse does "
                             "not calibrate below it (the PLD grid grows like 1/sigma^2): use a larger sampling_rate "
                             "or more steps, or a smaller epsilon")
    while hi / lo > 1.0 + tol:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if eps_of(mid) <= eps else (mid, hi)
    return hi
