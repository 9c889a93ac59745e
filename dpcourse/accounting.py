"""A privacy accountant: immutable events (what happened) and accounting methods (how it is counted).

Events are frozen dataclasses that only *record* what was run on the data: a pure-DP mechanism, an
(epsilon, delta)-DP mechanism, a Laplace mechanism, a Gaussian mechanism, a mechanism run on a Poisson sample, a
mechanism repeated k times, a sequence of events. Each records the neighbouring relation its guarantee is for (one
of :data:`~dpcourse._validation.RELATIONS`). An accounting method is a function ``method(counts, delta) ->
(epsilon, note)`` of the flattened events, listed in :data:`ACCOUNTING_METHODS`; :data:`DELTA_METHODS` holds the
methods' direct ``method(counts, epsilon) -> (delta, note)``, and a method without one is inverted numerically.
Adding a method means adding one function there and never touches the events (the design of Google's
``dp_accounting``).

A method that does not apply to the events (e.g. the exact Gaussian composition for a Laplace event) raises
:class:`NotApplicableError`, a ``ValueError`` whose message gives the reason. :meth:`PrivacyAccountant.compare`
runs every method and reports such a method as ``epsilon = inf`` with the reason in ``note``.

Every guarantee is for adaptive composition under the one neighbouring relation of the accountant's events: an
event under another relation is refused by :class:`RelationMismatchError` (no conversion between relations is
implemented). The theorems are those of the chapters "Composition and privacy accounting" and "Private learning".

Where things live (issue 38 split this module in two):

* here: the events, the accounting methods, :class:`PrivacyAccountant`, :func:`max_compositions`;
* :mod:`dpcourse.subsampled_gaussian`: the numerics of the Poisson-subsampled Gaussian (its RDP, its one-run
  profile, the PLD composition behind the method ``"pld"``), :func:`subsampling_amplification` and the DP-SGD
  fronts :func:`dpsgd_epsilon` and :func:`dpsgd_noise_multiplier`. They are re-exported here (imported at the
  end of this module, since that module imports the events from this one).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any, Optional

import numpy as np
from scipy import optimize

from ._validation import (check_choice, check_delta, check_epsilon, check_positive_int, check_real, check_relation,
                          check_sensitivity)
from .composition import (
    _conversion_term,
    _delta_of_atoms,
    _optimal_epsilon_groups,
    _product_atoms_with_errors,
    advanced_composition,
    rdp_gaussian,
    rdp_laplace,
    rdp_pure_dp,
    rdp_to_epsilon,
)
from .gaussian import _gaussian_epsilon_array, gaussian_delta, gaussian_epsilon

__all__ = [
    "DpEvent",
    "PureDPEvent",
    "EpsilonDeltaEvent",
    "LaplaceEvent",
    "GaussianEvent",
    "ComposedEvent",
    "SequenceEvent",
    "PoissonSampledEvent",
    "NotApplicableError",
    "RelationMismatchError",
    "AccountingResult",
    "ACCOUNTING_METHODS",
    "DELTA_METHODS",
    "PLD_MAX_RUNS",
    "PrivacyAccountant",
    "max_compositions",
    # re-exported from dpcourse.subsampled_gaussian
    "AmplifiedGuarantee",
    "MIN_NOISE_MULTIPLIER",
    "rdp_subsampled_gaussian",
    "subsampled_gaussian_delta",
    "subsampling_amplification",
    "dpsgd_epsilon",
    "dpsgd_noise_multiplier",
]

#: The relation an event is under when none is given: add/remove one, the relation of the Poisson-sampled
#: accounting and dp_accounting's default.
DEFAULT_RELATION = "add_remove"


class NotApplicableError(ValueError):
    """Raised when an accounting method cannot account for the events given; the message says why."""


class RelationMismatchError(ValueError):
    """Raised when events under different neighbouring relations are composed (the message names both)."""


# ----------------------------------------------------------------------------------------------------
# Events: what happened.


@dataclass(frozen=True, repr=False)
class DpEvent:
    """Base class of all events (it has no fields; it lets the accountant recognise an event)."""

    def __repr__(self) -> str:
        # the dataclass repr, with the relation shown only when it is not the default (older reprs unchanged)
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if f.repr and not (f.name == "relation" and getattr(self, f.name) == DEFAULT_RELATION)]
        return f"{type(self).__name__}({', '.join(shown)})"


def _relation_of(event: DpEvent) -> Optional[str]:
    """The relation an event is under (None for an empty sequence; the default for a foreign DpEvent subclass)."""
    return getattr(event, "relation", DEFAULT_RELATION)


@dataclass(frozen=True, repr=False)
class PureDPEvent(DpEvent):
    """Some mechanism known only to be ``epsilon``-DP (pure DP, delta = 0) under ``relation``."""

    epsilon: float
    relation: str = field(default=DEFAULT_RELATION, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "relation", check_relation(self.relation))


@dataclass(frozen=True, repr=False)
class EpsilonDeltaEvent(DpEvent):
    """Some mechanism known only to be (``epsilon``, ``delta``)-DP under ``relation``.

    The methods ``"basic"`` and ``"advanced"`` compose it; the others raise :class:`NotApplicableError` (an
    (epsilon, delta) pair has no RDP curve or privacy-loss distribution to compose).
    """

    epsilon: float
    delta: float
    relation: str = field(default=DEFAULT_RELATION, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        object.__setattr__(self, "relation", check_relation(self.relation))


@dataclass(frozen=True, repr=False)
class LaplaceEvent(DpEvent):
    """A Laplace mechanism with noise scale ``l1_sensitivity / epsilon``: epsilon-DP, with a known RDP curve."""

    epsilon: float
    relation: str = field(default=DEFAULT_RELATION, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "relation", check_relation(self.relation))


@dataclass(frozen=True, repr=False)
class GaussianEvent(DpEvent):
    """A Gaussian mechanism adding N(0, sigma^2) noise to a query of l2 sensitivity ``l2_sensitivity``."""

    sigma: float
    l2_sensitivity: float = 1.0
    relation: str = field(default=DEFAULT_RELATION, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_real(self.sigma, "sigma", low=0.0, low_open=True))
        object.__setattr__(self, "l2_sensitivity", check_sensitivity(self.l2_sensitivity, "l2_sensitivity"))
        object.__setattr__(self, "relation", check_relation(self.relation))
        ratio = self.l2_sensitivity / self.sigma
        if not (math.isfinite(ratio) and ratio > 0.0):
            raise ValueError(f"l2_sensitivity / sigma must be a positive finite number, got "
                             f"{self.l2_sensitivity!r} / {self.sigma!r} = {ratio!r} (rescale the query)")

    @property
    def mu(self) -> float:
        """``l2_sensitivity / sigma``: the one number that determines the mechanism's privacy."""
        return self.l2_sensitivity / self.sigma


@dataclass(frozen=True, repr=False)
class ComposedEvent(DpEvent):
    """``event`` run ``k`` times (each run may be chosen adaptively from the previous outputs)."""

    event: DpEvent
    k: int

    def __post_init__(self) -> None:
        if not isinstance(self.event, DpEvent):
            raise TypeError(f"event must be a DpEvent, got {type(self.event).__name__}")
        object.__setattr__(self, "k", check_positive_int(self.k, "k"))

    @property
    def relation(self) -> Optional[str]:
        """The relation of ``event``."""
        return _relation_of(self.event)


@dataclass(frozen=True, repr=False)
class SequenceEvent(DpEvent):
    """The events run one after the other (stored as a tuple, so the event stays immutable).

    All of them must be under one relation (:class:`RelationMismatchError` otherwise).
    """

    events: tuple

    def __post_init__(self) -> None:
        if isinstance(self.events, (DpEvent, str, bytes)) or not isinstance(self.events, Iterable):
            raise TypeError("events must be a sequence of DpEvent objects, e.g. SequenceEvent([e1, e2]), got "
                            f"{type(self.events).__name__}")
        events = tuple(self.events)
        for i, e in enumerate(events):
            if not isinstance(e, DpEvent):
                raise TypeError(f"events[{i}] must be a DpEvent, got {type(e).__name__}")
        relation = None
        for i, e in enumerate(events):
            relation = _common_relation(relation, _relation_of(e), f"events[{i}]")
        object.__setattr__(self, "events", events)
        object.__setattr__(self, "_relation", relation)

    @property
    def relation(self) -> Optional[str]:
        """The common relation of the events (None if there are none)."""
        return self._relation  # type: ignore[attr-defined]


@dataclass(frozen=True, repr=False)
class PoissonSampledEvent(DpEvent):
    """``event`` run on a Poisson sample of the data: each record is kept independently with probability
    ``sampling_rate``, and ``event`` sees only the kept records.

    The event only records what happened; the accounting methods decide what they can say about it. The
    methods ``"rdp"`` and ``"pld"`` account for a Poisson-sampled :class:`GaussianEvent` under the add/remove-one
    relation (theorems ``learn-thm-rdp-subsampled`` and ``learn-thm-pld`` of the chapter "Private learning"); the
    other methods, and these two for an inner event under ``"replace_one"``, raise :class:`NotApplicableError`.
    Its relation is that of ``event``.
    """

    sampling_rate: float
    event: DpEvent

    def __post_init__(self) -> None:
        object.__setattr__(self, "sampling_rate", check_real(self.sampling_rate, "sampling_rate", low=0.0,
                                                             low_open=True, high=1.0))
        if not isinstance(self.event, DpEvent):
            raise TypeError(f"event must be a DpEvent, got {type(self.event).__name__}")

    @property
    def relation(self) -> Optional[str]:
        """The relation of ``event``."""
        return _relation_of(self.event)


def _common_relation(current: Optional[str], new: Optional[str], name: str) -> Optional[str]:
    """The relation of ``current`` events joined by one under ``new``; :class:`RelationMismatchError` if they differ."""
    if new is None or current is None or new == current:
        return current if new is None else new
    raise RelationMismatchError(
        f"{name} is under the relation {new!r}, the events before it under {current!r}: a guarantee is for one "
        "neighbouring relation, and no conversion between relations is implemented. Record every event under the "
        "relation of the final guarantee (an add_remove (epsilon, delta) guarantee is a replace_one (2 epsilon, "
        "(1 + e^epsilon) delta) guarantee, theorem thm-approx-group: EpsilonDeltaEvent(2 * eps, (1 + math.exp(eps)) "
        "* delta, relation='replace_one'))")


def _flatten(event: DpEvent, times: int, counts: Counter) -> None:
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


def _take_approx(counts):
    """The (epsilon, delta) events as ``[(event, runs)]``, and the other items."""
    approx = [item for item in counts if isinstance(item[0], EpsilonDeltaEvent)]
    return approx, tuple(item for item in counts if not isinstance(item[0], EpsilonDeltaEvent))


def _delta_left(delta: float, spent: Fraction) -> float:
    """``delta - spent`` exactly, rounded down to a float (negative if the events spent more than delta)."""
    left = Fraction(delta) - spent
    out = float(left)
    return math.nextafter(out, -math.inf) if Fraction(out) > left else out


def _unknown(method, other):
    names = sorted(set(other))
    hint = ("; an (epsilon, delta) guarantee composes by the methods 'basic' and 'advanced' only"
            if "EpsilonDeltaEvent" in names else "")
    raise NotApplicableError(f"method {method!r} does not know how to account for {', '.join(names)}{hint}")


def _basic(counts, delta):
    """Basic composition (theorem thm-comp-basic). Pure events contribute their epsilon and no delta; an
    (epsilon, delta) event its epsilon and its delta. What is left of the budget delta is split evenly over the
    Gaussian runs: each of the K runs is (eps_0, delta_left/K)-DP with eps_0 read off the exact Gaussian profile."""
    approx, counts = _take_approx(counts)
    pure, gauss, other = _split(counts)
    if other:
        _unknown("basic", other)
    runs = sum(n for _, n in gauss)
    if approx:
        spent = sum((Fraction(e.delta) * n for e, n in approx), Fraction(0))
        left = _delta_left(delta, spent)
        total = math.fsum(n * e.epsilon for e, n in pure + approx)
        if left < 0 or (runs and left == 0.0):
            return math.inf, f"the events' deltas add up to {float(spent):.3g}, leaving nothing of delta = {delta:.3g}"
        if not runs:
            return total, f"sum of the epsilons; the deltas add up to {float(spent):.3g}"
        delta = left
    else:
        total = math.fsum(n * e.epsilon for e, n in pure)
    if not runs:
        return total, "sum of the epsilons (pure DP: holds for every delta)"
    d0 = _split_delta(delta, runs)
    mus, ns = _gaussian_groups(gauss)
    total += math.fsum(ns * _gaussian_epsilon_array(d0, mus))  # one vectorized inversion for all distinct mu
    share = f"(delta - their deltas)/{runs}" if approx else f"delta/{runs}"
    return total, f"each of the {runs} Gaussian runs is (eps_0, {share})-DP by its exact profile"


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
    one privacy guarantee. Pure-DP and (epsilon, delta) events (any mix of PureDPEvent, LaplaceEvent and
    EpsilonDeltaEvent) qualify when they all have the same epsilon: each is (epsilon, delta_0)-DP with delta_0 the
    largest of their deltas, and delta' = delta - k delta_0. Gaussian events qualify when they all have the same
    mu = l2_sensitivity / sigma: each run is (eps_0(delta_0), delta_0)-DP by its exact profile and
    delta = k delta_0 + delta', the split delta' being optimised numerically."""
    approx, counts = _take_approx(counts)
    pure, gauss, other = _split(counts)
    if other:
        _unknown("advanced", other)
    if (pure or approx) and gauss:
        kind = "pure-DP" if pure else "(epsilon, delta)"
        raise NotApplicableError("advanced composition as stated (Dwork-Rothblum-Vadhan) is for k mechanisms with one "
                                 f"common (epsilon, delta); these events mix {kind} and Gaussian mechanisms")
    params = {e.epsilon for e, _ in pure + approx} if pure or approx else {e.mu for e, _ in gauss}
    if len(params) != 1:
        raise NotApplicableError("advanced composition as stated (Dwork-Rothblum-Vadhan) is for k mechanisms with one "
                                 f"common (epsilon, delta); these events have {len(params)} different privacy parameters")
    k = sum(n for _, n in pure + gauss + approx)
    if approx:
        d0 = max(e.delta for e, _ in approx)
        left = _delta_left(delta, Fraction(d0) * k)
        if left <= 0.0:
            return math.inf, f"the {k} mechanisms' deltas, {k} * {d0:.3g}, leave nothing of delta = {delta:.3g}"
        return advanced_composition(approx[0][0].epsilon, k, left), f"delta' = delta - {k} * {d0:.3g}"
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


def _pure_groups(counts, method):
    """The pure-DP events as sorted ``[(epsilon, runs)]`` (equal epsilons merged), for the optimal composition."""
    pure, gauss, other = _split(counts)
    if other:
        _unknown(method, other)
    if gauss:
        raise NotApplicableError("a Gaussian mechanism is not epsilon-DP for any finite epsilon; optimal composition "
                                 "(Kairouz-Oh-Viswanath) is computed here for pure-DP events only (use 'gaussian_exact')")
    groups = Counter()
    for e, n in pure:
        groups[e.epsilon] += n
    return sorted(groups.items())


def _optimal(counts, delta):
    """Exact optimal composition of pure-DP events (theorem thm-comp-optimal; heterogeneous epsilons via
    the product of randomized-response pairs). It is optimal over all mechanisms with these pure-DP
    guarantees, not for the particular Laplace mechanisms (whose composition is tighter)."""
    groups = _pure_groups(counts, "optimal")
    return _optimal_epsilon_groups(groups, delta), "exact, worst case over all pure-DP mechanisms"


def _split_sampled(counts):
    """Separate the Poisson-sampled Gaussian events under add/remove (as ``(q, mu, runs)``) from the rest; any
    other Poisson-sampled event is returned among the unknown type names."""
    sampled, rest, other = [], [], []
    for e, n in counts:
        if isinstance(e, PoissonSampledEvent):
            if not isinstance(e.event, GaussianEvent):
                other.append(f"PoissonSampledEvent({type(e.event).__name__})")
            elif e.relation != "add_remove":
                other.append(f"PoissonSampledEvent under {e.relation} (its accounting is for add_remove only)")
            else:
                sampled.append((e.sampling_rate, e.event.mu, n))
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


def _sampled_rdp(counts):
    """``(orders, total RDP at the orders)`` when a Poisson-sampled Gaussian is present (integer orders of
    :data:`_INTEGER_ORDERS`), else ``(None, curve)`` with the continuous curve of :func:`_rdp_curve`."""
    sampled, rest, other = _split_sampled(counts)
    if other:
        _unknown("rdp", other)
    if not sampled:
        return None, _rdp_curve(counts)
    a = _INTEGER_ORDERS
    total = np.zeros_like(a)
    if rest:
        total += np.asarray(_rdp_curve(tuple(rest))(a), dtype=float)
    for q, mu, n in sampled:
        total += n * rdp_subsampled_gaussian(a, q, 1.0 / mu)
    return a, total


def _rdp(counts, delta):
    """Renyi DP: add the events' RDP curves (Gaussian alpha mu^2/2, Laplace's exact curve, the worst case
    of a pure-DP event, the exact binomial sum of a Poisson-sampled Gaussian at integer orders) and convert
    with the improved conversion (lemma lem-comp-rdp; Canonne, Kamath & Steinke 2020). With a Poisson-sampled
    event the order is optimised over the integers of :data:`_INTEGER_ORDERS` only."""
    a, total = _sampled_rdp(counts)
    if a is None:
        eps, alpha = rdp_to_epsilon(total, delta)
        return eps, f"improved conversion, best order alpha = {alpha:.3g}"
    values = total + _conversion_term(a, delta, "improved")
    i = int(np.argmin(values))
    return max(0.0, float(values[i])), f"improved conversion at integer orders, best order alpha = {a[i]:.0f}"


#: The largest number of Poisson-sampled Gaussian runs method "pld" accounts for (refused at once above it: the
#: grid and the window grow with the number of runs).
PLD_MAX_RUNS = 10**6


def _pld_runs(counts):
    """``(q, mu, k)`` of the events method "pld" accounts for: repetitions of one Poisson-sampled Gaussian."""
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
        raise NotApplicableError(f"method 'pld' accounts for at most PLD_MAX_RUNS = {PLD_MAX_RUNS} subsampled runs, "
                                 f"got {k}: use method 'rdp' (its cost does not grow with the number of runs)")
    return q, mu, k


def _pld(counts, delta):
    """Privacy-loss distributions (theorem learn-thm-pld): the connect-the-dots discretisation of each
    direction (remove, add) of a Poisson-sampled Gaussian, composed by FFT; the larger epsilon of the two
    directions. Only Poisson-sampled Gaussian events with one common (q, mu) (Gaussian events count as q = 1)."""
    q, mu, k = _pld_runs(counts)
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


def _gaussian_mu(counts):
    pure, gauss, other = _split(counts)
    if pure or other:
        names = sorted({type(e).__name__ for e, _ in pure} | set(other))
        raise NotApplicableError(f"exact Gaussian composition applies to Gaussian events only, got {', '.join(names)}")
    mu = math.sqrt(sum(n * e.mu ** 2 for e, n in gauss))
    return mu


def _gaussian_exact(counts, delta):
    """Exact composition of Gaussian mechanisms (theorem thm-comp-gaussian-exact): one Gaussian with
    mu^2 = sum of the mu_i^2."""
    mu = _gaussian_mu(counts)
    return gaussian_epsilon(delta, mu), f"one Gaussian mechanism with mu = {mu:.4g}"


#: The accounting methods, by name. Each is ``f(counts, delta) -> (epsilon, note)`` and may raise
#: :class:`NotApplicableError`; add an entry to add a method.
ACCOUNTING_METHODS: dict[str, Callable[[Any, float], tuple[float, str]]] = {
    "basic": _basic,
    "advanced": _advanced,
    "optimal": _optimal,
    "rdp": _rdp,
    "gaussian_exact": _gaussian_exact,
    "pld": _pld,
}


# ----------------------------------------------------------------------------------------------------
# Delta at a given epsilon. Each f(counts, epsilon) -> (delta, note) is an upper bound on the smallest delta for
# which the method proves the events (epsilon, delta)-DP (1.0: it proves nothing at this epsilon).


def _basic_delta(counts, epsilon):
    """Without Gaussian runs basic composition gives (sum of the epsilons, sum of the deltas): delta is that sum
    when ``epsilon`` is at least the sum of the epsilons, else 1. With Gaussian runs: :func:`_invert`."""
    approx, rest = _take_approx(counts)
    pure, gauss, other = _split(rest)
    if other or gauss:
        return _invert(_basic, counts, epsilon)
    total = math.fsum(n * e.epsilon for e, n in pure + approx)
    if total > epsilon:
        return 1.0, f"the epsilons add up to {total:.4g} > epsilon"
    spent = sum((Fraction(e.delta) * n for e, n in approx), Fraction(0))
    out = float(spent)
    return (math.nextafter(out, math.inf) if Fraction(out) < spent else out), "sum of the deltas"


def _advanced_delta_prime(eps0, k, epsilon):
    """The delta' at which advanced composition gives ``epsilon`` for k runs of ``eps0`` (1.0 if none < 1 does):
    the inverse of ``epsilon = eps0 sqrt(2 k ln(1/delta')) + k eps0 (e^eps0 - 1)``."""
    s = (epsilon - k * eps0 * math.expm1(eps0)) / eps0
    return math.exp(-s * s / (2.0 * k)) if s > 0.0 else 1.0


def _advanced_delta(counts, epsilon):
    """Advanced composition read at ``epsilon`` (theorem thm-comp-advanced), under the conditions of
    :func:`_advanced`: delta = k delta_0 + delta'. For Gaussian events the per-run eps_0 is optimised (each run is
    (eps_0, delta_Gauss(eps_0))-DP by its exact profile) on a log grid refined by a bounded search."""
    approx, rest = _take_approx(counts)
    pure, gauss, other = _split(rest)
    if other:
        _unknown("advanced", other)
    if pure or approx:
        _advanced(counts, 0.5)  # the same applicability checks (one common epsilon, no Gaussian)
        k = sum(n for _, n in pure + approx)
        eps0 = (pure + approx)[0][0].epsilon
        spent = Fraction(max(e.delta for e, _ in approx)) * k if approx else Fraction(0)
        total = float(spent + Fraction(_advanced_delta_prime(eps0, k, epsilon)))
        return min(1.0, total), "delta = k delta_0 + delta'"
    _advanced(counts, 0.5)
    k = sum(n for _, n in gauss)
    mu = gauss[0][0].mu
    top = optimize.brentq(lambda e0: k * e0 * math.expm1(e0) - epsilon, 0.0, epsilon) if epsilon > 0 else 0.0
    if top <= 0.0:
        return 1.0, "the method proves nothing at this epsilon"

    def total(log_e0):
        e0 = math.exp(log_e0)
        return min(1.0, k * gaussian_delta(e0, mu) + _advanced_delta_prime(e0, k, epsilon))

    ts = np.linspace(math.log(top) - 30.0, math.log(top), 121)
    vals = [total(t) for t in ts]
    i = int(np.argmin(vals))
    res = optimize.minimize_scalar(total, bounds=(ts[max(i - 1, 0)], ts[min(i + 1, ts.size - 1)]), method="bounded",
                                   options={"xatol": 1e-10})
    best = min(float(res.fun), float(vals[i]))
    return best, "optimised split: each Gaussian run is (eps_0, delta_0)-DP by its exact profile, delta = k delta_0 " \
                 "+ delta'"


def _optimal_delta(counts, epsilon):
    """The exact hockey-stick divergence of the product of randomized-response pairs at ``epsilon`` (theorem
    thm-comp-optimal), with every atom's loss and probability raised by its rounding bound (never below the
    exact value)."""
    groups = _pure_groups(counts, "optimal")
    loss, logp, loss_err, logp_err = _product_atoms_with_errors(groups)
    d = _delta_of_atoms(loss + loss_err, logp + logp_err, epsilon)
    if d == 0.0:
        return 0.0, "exact: epsilon is above every loss of the worst case"
    # room for the sum's own rounding, as in dpcourse.composition._epsilon_of_atoms
    d *= math.exp(64.0 * 2.0**-53 * (8.0 + math.log(loss.size) - math.log(d)))
    return min(1.0, d), "exact, worst case over all pure-DP mechanisms"


def _rdp_log_delta(a, r, epsilon):
    """log delta of the improved conversion at order a: (a - 1)(r - epsilon + log(1 - 1/a)) - log a (the inverse
    of :func:`dpcourse.composition._conversion_term`, lemma lem-comp-rdp)."""
    return (a - 1.0) * (r - epsilon + np.log1p(-1.0 / a)) - np.log(a)


def _rdp_delta(counts, epsilon):
    """Renyi DP to delta at ``epsilon`` by the improved conversion, the order optimised (over the integers of
    :data:`_INTEGER_ORDERS` with a Poisson-sampled event; else on a log grid of alpha - 1 in [1e-4, 1e6] refined
    by a bounded search)."""
    a, total = _sampled_rdp(counts)
    if a is not None:
        values = _rdp_log_delta(a, total, epsilon)
        i = int(np.argmin(values))
        best, alpha = float(values[i]), float(a[i])
    else:
        def log_delta(log_am1):
            orders = 1.0 + np.exp(np.atleast_1d(log_am1))
            return _rdp_log_delta(orders, np.asarray(total(orders), dtype=float), epsilon)

        grid = np.linspace(math.log(1e-4), math.log(1e6), 2001)
        values = log_delta(grid)
        i = int(np.argmin(values))
        res = optimize.minimize_scalar(lambda t: float(log_delta(t)[0]), method="bounded",
                                       bounds=(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]))
        best_t, best = (float(res.x), float(res.fun)) if res.fun < values[i] else (float(grid[i]), float(values[i]))
        alpha = 1.0 + math.exp(best_t)
    delta = 1.0 if best >= 0.0 else max(math.exp(best), 5e-324)  # never rounded down to 0 (that would be pure DP)
    return delta, f"improved conversion, best order alpha = {alpha:.3g}"


def _gaussian_exact_delta(counts, epsilon):
    """The exact profile of one Gaussian with mu^2 = sum of the mu_i^2 (theorem thm-comp-gaussian-exact)."""
    mu = _gaussian_mu(counts)
    return gaussian_delta(epsilon, mu), f"one Gaussian mechanism with mu = {mu:.4g}"


def _pld_delta_method(counts, epsilon):
    """Privacy-loss distributions read at ``epsilon`` (theorem learn-thm-pld): the larger delta of the remove and
    add directions; below 1e-9 the smaller of it and the RDP bound (both are upper bounds)."""
    q, mu, k = _pld_runs(counts)
    if q == 1.0:
        mu_k = mu * math.sqrt(k)
        return gaussian_delta(epsilon, mu_k), f"no subsampling: one Gaussian with mu = {mu_k:.4g}"
    hint = _rdp_delta(counts, epsilon)[0]
    if hint < 1e-200:  # below the PLD's floating-point reach
        return hint, "delta below the PLD's floating-point reach: the RDP bound"
    delta = max(_pld_delta(q, 1.0 / mu, k, epsilon, direction, min(hint, 0.5)) for direction in ("remove", "add"))
    if delta < 1e-9 and hint < delta:
        return hint, "the RDP bound (smaller than the PLD bound here; both are upper bounds)"
    return delta, "connect-the-dots PLD, max of the remove and add directions"


def _invert(method, counts, epsilon, rtol=1e-6):
    """Delta at ``epsilon`` by bisection on log delta of an epsilon method (epsilon does not increase with delta):
    the returned delta is one at which the method's epsilon is at most ``epsilon`` (1.0 if there is none below
    1 - 1e-9), within a factor ``1 + rtol`` of the smallest such."""
    def eps_at(d):
        try:
            return method(counts, d)[0]
        except NotApplicableError:
            raise
        except ValueError:  # a delta too small for the method (a split that underflows): no claim there
            return math.inf

    hi = next((d for d in (0.5, 0.9, 0.99, 1.0 - 1e-9) if eps_at(d) <= epsilon), None)
    if hi is None:
        return 1.0, "the method proves nothing at this epsilon"
    lo = 1e-300
    if eps_at(lo) <= epsilon:
        return lo, "at most 1e-300"
    while hi / lo > 1.0 + rtol:
        mid = math.sqrt(lo) * math.sqrt(hi)  # sqrt(lo * hi) underflows to 0 when lo * hi < 5e-324
        lo, hi = (lo, mid) if eps_at(mid) <= epsilon else (mid, hi)
    return hi, "the smallest delta (to 1e-6 relative) at which the method's epsilon is at most epsilon"


#: The methods' direct answers ``f(counts, epsilon) -> (delta, note)``; a method of :data:`ACCOUNTING_METHODS`
#: without an entry here is answered by inverting its epsilon numerically.
DELTA_METHODS: dict[str, Callable[[Any, float], tuple[float, str]]] = {
    "basic": _basic_delta,
    "advanced": _advanced_delta,
    "optimal": _optimal_delta,
    "rdp": _rdp_delta,
    "gaussian_exact": _gaussian_exact_delta,
    "pld": _pld_delta_method,
}


def _check_method(method: Any) -> str:
    return check_choice(method, "method", tuple(ACCOUNTING_METHODS))


@dataclass(frozen=True)
class AccountingResult:
    """One method's answer: total ``epsilon`` at ``delta`` (``inf`` if the method does not apply), a note, and the
    neighbouring relation the guarantee is for."""

    method: str
    epsilon: float
    delta: float
    note: str
    relation: Optional[str] = None


class PrivacyAccountant:
    """Accumulates events and answers: how much epsilon at a given delta, or delta at a given epsilon?

    The answer is a guarantee, for adaptive composition, under the one neighbouring relation of all the recorded
    events (:attr:`relation`); an event under another relation is refused with :class:`RelationMismatchError`.
    Each method follows its theorem: ``"basic"`` thm-comp-basic, ``"advanced"`` thm-comp-advanced, ``"optimal"``
    thm-comp-optimal, ``"rdp"`` lem-comp-rdp, ``"gaussian_exact"`` thm-comp-gaussian-exact, ``"pld"``
    learn-thm-pld.

    Parameters
    ----------
    events : iterable of DpEvent, optional
        Events already run.
    relation : {"add_remove", "replace_one"}, optional
        The relation of the guarantee; by default that of the first event.

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

    def __init__(self, events: Iterable[DpEvent] = (), *, relation: Optional[str] = None):
        self._events: list[DpEvent] = []
        self._cache: Optional[tuple] = None
        self._relation = None if relation is None else check_relation(relation)
        if isinstance(events, DpEvent):
            raise TypeError("events must be a sequence of DpEvent objects, e.g. PrivacyAccountant([event]); "
                            f"got the single event {events!r}")
        if isinstance(events, (str, bytes)) or not isinstance(events, Iterable):
            raise TypeError(f"events must be a sequence of DpEvent objects, got {type(events).__name__}")
        for i, e in enumerate(events):
            if not isinstance(e, DpEvent):
                raise TypeError(f"events[{i}] must be a DpEvent, got {type(e).__name__}")
            self._relation = _common_relation(self._relation, _relation_of(e), f"events[{i}]")
            self._events.append(e)  # what compose(e) records, without its per-call checks (10**5 events are common)

    @property
    def relation(self) -> Optional[str]:
        """The neighbouring relation of the events and of every answer (None before the first event)."""
        return self._relation

    def compose(self, event: DpEvent, k: int = 1) -> PrivacyAccountant:
        """Record that ``event`` ran ``k`` more times; returns the accountant, so calls can be chained.

        Raises :class:`RelationMismatchError` (and records nothing) if ``event`` is under another relation than
        the events already recorded.
        """
        if not isinstance(event, DpEvent):
            raise TypeError(f"event must be a DpEvent, got {type(event).__name__}")
        k = check_positive_int(k, "k")
        self._relation = _common_relation(self._relation, _relation_of(event), "event")
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

    def epsilon(self, delta: float, method: str = "rdp") -> float:
        """Total epsilon at ``delta`` by ``method``: the events are (epsilon, delta)-DP under :attr:`relation`.

        Parameters
        ----------
        delta : float
            Target delta in (0, 1).
        method : str
            A key of :data:`ACCOUNTING_METHODS`.

        Returns
        -------
        float
            epsilon >= 0 (``inf`` if the method proves no finite epsilon at this delta).

        Raises
        ------
        NotApplicableError
            If the method does not apply to the recorded events (the message says why).

        Examples
        --------
        >>> PrivacyAccountant([EpsilonDeltaEvent(0.5, 1e-6)] * 2).epsilon(1e-5, "basic")
        1.0
        """
        d = check_delta(delta, allow_zero=False)
        method = _check_method(method)
        return float(ACCOUNTING_METHODS[method](self._counts(), d)[0])

    def delta(self, epsilon: float, method: str = "rdp") -> float:
        """Smallest delta that ``method`` proves at ``epsilon``: the events are (epsilon, delta)-DP under
        :attr:`relation`.

        An upper bound on the method's exact answer (the PLD's truncations and round-off are charged to it); 1.0 if
        the method proves nothing at this epsilon. A method without an entry in :data:`DELTA_METHODS` is inverted
        by bisection on log delta (to 1e-6 relative).

        Parameters
        ----------
        epsilon : float
            Target epsilon >= 0.
        method : str
            A key of :data:`ACCOUNTING_METHODS`.

        Returns
        -------
        float
            delta in [0, 1].

        Raises
        ------
        NotApplicableError
            If the method does not apply to the recorded events (the message says why).

        Examples
        --------
        >>> acc = PrivacyAccountant().compose(GaussianEvent(sigma=10.0), k=100)
        >>> round(acc.delta(acc.epsilon(1e-5, "gaussian_exact"), "gaussian_exact") * 1e5, 6)
        1.0
        """
        eps = check_real(epsilon, "epsilon", low=0.0)
        method = _check_method(method)
        counts = self._counts()
        fn = DELTA_METHODS.get(method)
        out = fn(counts, eps) if fn is not None else _invert(ACCOUNTING_METHODS[method], counts, eps)
        return float(min(max(out[0], 0.0), 1.0))

    def compare(self, delta: float) -> dict[str, AccountingResult]:
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
            out[name] = AccountingResult(name, float(eps), d, note, self._relation)
        return out


def max_compositions(event: DpEvent, epsilon: float, delta: float, method: str = "rdp", *,
                     k_max: int = 10**6) -> int:
    """Largest k such that ``k`` runs of ``event`` are (epsilon, delta)-DP by ``method`` (0 if even one is not).

    The guarantee is that of :meth:`PrivacyAccountant.epsilon` (the theorem of ``method``, e.g. ``thm-comp-basic``
    or ``lem-comp-rdp``), under the event's neighbouring relation, with a relative rounding slack of 1e-12 (so 10
    runs of 0.1 fit in 1.0); doubling then bisection on k (every method's epsilon grows with k). With method
    ``"pld"`` and a Poisson-sampled event (q < 1), ``k_max`` above ``PLD_MAX_RUNS`` = 10**6 is refused at once with
    :class:`NotApplicableError`.

    Parameters
    ----------
    event : DpEvent
        The event run repeatedly.
    epsilon : float
        The budget's epsilon, > 0.
    delta : float
        The budget's delta, in (0, 1).
    method : str
        A key of :data:`ACCOUNTING_METHODS`.
    k_max : int
        The largest k looked at (returned if the budget is never exceeded up to there).

    Returns
    -------
    int
        k in [0, k_max].

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
# The Poisson-subsampled Gaussian: its numerics live in dpcourse.subsampled_gaussian, which imports the events
# above; imported here, at the end, for the methods "rdp" and "pld" and for the old import paths.

from .subsampled_gaussian import (  # noqa: E402
    _INTEGER_ORDERS,
    MIN_NOISE_MULTIPLIER,
    AmplifiedGuarantee,
    _calibrate,
    _pld_delta,
    _pld_epsilon,
    dpsgd_epsilon,
    dpsgd_noise_multiplier,
    rdp_subsampled_gaussian,
    subsampled_gaussian_delta,
    subsampling_amplification,
)
