"""Coding-exercise checkers refuse the library code they ask the student to write, however it is reached.

The rule (CONVENTIONS, "Chapters and homework"): a checker that forbids a library function forbids the code
that computes the answer, recognised by the identity of its code objects, not by a name. For every checker
that forbids something, ``SPECS`` gives the forbidden public function (``target``), how the answer is
computed from it on the checker's own arguments (``call``), an honest solution written from the chapter
(``reference``, using only the helpers the exercise allows), and where one exists a student function that
reaches the answer through a private helper or through another public function. Then:

* every route to the target is refused with a message that names it and says "yourself": a direct call, an
  alias, a default argument, a global list and dict, every other module that imports it (the checker's
  own module, ``dpcourse.plots.*``, ...), ``functools.partial``, a lambda, the student's own helper,
  ``getattr`` with the name built at run time, and the same with the exception caught and a fallback;
* each route really computes the answer when nothing watches (it equals the reference on the checker's first
  case, and for the ``getattr`` route the checker with its forbidden set emptied accepts it), so a refusal
  is never a refusal for another reason;
* the honest reference passes, the allowed helpers included;
* tracing the target on the checker's first case, every piece of package code it runs is forbidden, or run
  by the honest reference too, or listed here as validation or sampling only (``non_answer``): a new
  private helper that computes the answer makes this test fail until the checker forbids it.
"""

from __future__ import annotations

import copy
import functools
import importlib
import math
import os
import pkgutil
import sys
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
from scipy import stats

import dpcourse
import dpcourse.exercises as ex
import dpcourse.plots
from dpcourse import exact_histogram, laplace_mechanism
from dpcourse.exercises import Forbidden, call_student
from dpcourse.exercises import audit as ex_audit
from dpcourse.exercises import composition as ex_composition
from dpcourse.exercises import composition_basics as ex_basics
from dpcourse.exercises import continual as ex_continual
from dpcourse.exercises import deidentification as ex_deid
from dpcourse.exercises import fdp as ex_fdp
from dpcourse.exercises import gaussian as ex_gaussian
from dpcourse.exercises import histogram as ex_histogram
from dpcourse.exercises import inference as ex_inference
from dpcourse.exercises import learning as ex_learning
from dpcourse.exercises import local_dp as ex_local_dp
from dpcourse.exercises import lower_bounds as ex_lower_bounds
from dpcourse.exercises import membership as ex_membership
from dpcourse.exercises import noise as ex_noise
from dpcourse.exercises import promise as ex_promise
from dpcourse.exercises import quantiles as ex_quantiles
from dpcourse.exercises import queries as ex_queries
from dpcourse.exercises import randomized_response as ex_rr
from dpcourse.exercises import scale as ex_scale
from dpcourse.exercises import selection as ex_selection
from dpcourse.exercises import synthetic as ex_synthetic
from dpcourse.exercises.histogram import check_my_dp_histogram
from dpcourse.exercises.promise import check_hockey_stick
from dpcourse.exercises.randomized_response import check_rr_estimator
from dpcourse.histogram import dp_histogram, histogram_sensitivity
from dpcourse.divergences import hockey_stick
from dpcourse.rr import rr_estimate_mean

from student_solutions import analytic_sigma, group_delta, optimal_delta

for _info in pkgutil.iter_modules(dpcourse.plots.__path__):   # every module that could re-export a target
    importlib.import_module(f"dpcourse.plots.{_info.name}")


# ------------------------------------------------------------------------------------------------------------
# The library functions themselves, the first routes found (kept from issue 21)


@pytest.mark.parametrize("fn", [
    lambda p, q, e: hockey_stick(p, q, e),
    lambda p, q, e: dpcourse.hockey_stick(p, q, e),
])
def test_hockey_stick_checker_refuses_the_library(fn):
    result = check_hockey_stick(fn)
    assert not result.passed and "hockey_stick" in result.message and "yourself" in result.message


@pytest.mark.parametrize("fn", [
    lambda r, e: rr_estimate_mean(r, e),
    lambda r, e: dpcourse.rr_estimate_mean(r, e),
])
def test_rr_estimator_checker_refuses_the_library(fn):
    result = check_rr_estimator(fn)
    assert not result.passed and "rr_estimate_mean" in result.message and "yourself" in result.message


@pytest.mark.parametrize("fn", [
    lambda d, c, e, r, g: dp_histogram(d, e, relation=r, categories=c, rng=g, secure=False),
    lambda d, c, e, r, g: dpcourse.dp_histogram(d, e, relation=r, categories=c, rng=g, secure=False),
    lambda d, c, e, r, g: laplace_mechanism(exact_histogram(d, categories=c), histogram_sensitivity(r), e, rng=g),
    lambda d, c, e, r, g: laplace_mechanism(exact_histogram(d, categories=c), dpcourse.histogram_sensitivity(r), e,
                                            rng=g),
])
def test_histogram_checker_refuses_the_library(fn):
    result = check_my_dp_histogram(fn)
    assert not result.passed and "yourself" in result.message, result.message


def test_the_library_is_restored_after_a_check():
    check_hockey_stick(lambda p, q, e: dpcourse.hockey_stick(p, q, e))
    assert dpcourse.hockey_stick([0.5, 0.5], [0.25, 0.75], 0.0) == pytest.approx(0.25)
    assert dpcourse.histogram_sensitivity("replace_one") == 2
    assert sys.getprofile() is None


# ------------------------------------------------------------------------------------------------------------
# Honest solutions, written from the chapters (the allowed helpers only)


def _hockey(p, q, e):
    return float(np.maximum(p - np.exp(e) * q, 0).sum())


def _rr(r, e):
    t = math.exp(e) / (1 + math.exp(e))
    return (np.mean(r) - (1 - t)) / (2 * t - 1)


def _plan(eps, parts):
    whole = sum(e for e, p in zip(eps, parts) if p is None)
    per_part = {}
    for e, p in zip(eps, parts):
        if p is not None:
            per_part[p] = per_part.get(p, 0.0) + e
    return whole + max(per_part.values(), default=0.0)


def _histogram(d, c, e, r, g):   # laplace_mechanism and exact_histogram are allowed
    if not np.isin(d, c).all():
        raise ValueError("a record outside the categories")
    return laplace_mechanism(exact_histogram(d, categories=c), 1.0 if r == "add_remove" else 2.0, e, rng=g)


def _em(u, s, e):
    w = np.exp(e * (np.asarray(u) - np.max(u)) / (2 * s))
    return w / w.sum()


def _local_sensitivity(x, lo, hi):
    z = np.r_[lo, np.sort(np.clip(x, lo, hi)), hi]
    m = (len(x) + 1) // 2
    return max(z[m + 1] - z[m], z[m] - z[m - 1])


def _amplification(e, q):
    return math.log1p(q * math.expm1(e))


def _oue(ones, n, e):
    q = 1 / (math.exp(e) + 1)
    return (ones - n * q) / (0.5 - q)


def _keep(n_max, eps, delta):
    p = [0.0]
    for _ in range(n_max):
        p.append(min(math.exp(eps) * p[-1] + delta, 1 - math.exp(-eps) * (1 - p[-1] - delta), 1.0))
    return np.array(p)


def _posterior(p, e):
    return p * math.exp(e) / (p * math.exp(e) + 1 - p)


def _node_scale(h, e):
    return h.bit_length() / e


def _packing(k, e, m, rel):
    big = k if rel == "add_remove" else k - 1
    return big / (big + math.exp(e * m))


def _laplace_curve(a, e):   # the outer pieces from f_(epsilon, 0), which the exercise allows
    outer = dpcourse.tradeoff_epsilon_delta(a, e)
    with np.errstate(divide="ignore"):
        middle = math.exp(-e) / (4 * a)
    return np.where((a >= math.exp(-e) / 2) & (a <= 0.5), middle, outer)


def _lira(phi, mu_in, sd_in, mu_out, sd_out):
    return stats.norm.logpdf(phi, mu_in, sd_in) - stats.norm.logpdf(phi, mu_out, sd_out)


def _proportion(c, n, e):   # noise_aware_halfwidth is allowed
    p = c / n
    pc = min(max(p, 0.0), 1.0)
    h = dpcourse.noise_aware_halfwidth(math.sqrt(pc * (1 - pc) / n), 1 / (n * e))
    return p - h, p + h


def _chain(q12, q23):
    p2 = q12.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = q12[:, :, None] * q23[None, :, :] / p2[None, :, None]
    return np.nan_to_num(out, nan=0.0)


# ------------------------------------------------------------------------------------------------------------
# Routes through private helpers and through other public functions (each computes the answer)


def _rr_private(r, e):
    return (np.mean(r) - 1 / (1 + math.exp(e))) / dpcourse.rr._keep_minus_flip(e)


def _rr_krr(r, e):        # k-RR's estimator of counts, for k = 2, is randomized response's
    return dpcourse.krr_estimate(r, 2, e)[1] / len(r)


def _em_private(u, s, e):
    w = np.exp(dpcourse.selection._scaled(u, s, e, False, "utilities"))
    return w / w.sum()


def _em_gumbel(u, s, e):  # report noisy max with Gumbel noise has the exponential mechanism's law
    return dpcourse.noisy_max_probabilities(u, s, e, noise="gumbel")


def _optimal_private(e, k, et):
    from dpcourse import composition
    return composition._delta_of_atoms(*composition._rr_atoms(e, k), et)


def _ls_private(x, lo, hi):
    z, m, _, _ = dpcourse.quantiles._padded_sorted(x, lo, hi)
    return max(z[m + 1] - z[m], z[m] - z[m - 1])


def _ls_smooth(x, lo, hi):  # with a huge beta the smooth sensitivity is the local one
    return dpcourse.smooth_sensitivity(x, lo, hi, 1e6)


def _keep_private(n_max, eps, delta):
    from dpcourse import scale
    return scale._keep_probability(np.arange(n_max + 1), *scale._per_partition_parameters(eps, delta, 1))


def _node_private(h, e):
    return float(dpcourse.continual._node_parameter("laplace", e, h.bit_length()))


def _node_counter(h, e):
    return float(dpcourse.TreeCounter(h, e).noise_parameter)


def _node_variance(h, e):   # the scale back from the exact variance of one node: 1 / (2 sinh^2(1 / 2b))
    v = float(dpcourse.tree_variance(np.array([1]), h, e)[0])
    return 1 / (2 * math.asinh(math.sqrt(1 / (2 * v))))


def _packing_private(k, e, m, rel):
    big = dpcourse.lower_bounds._packing_count(k, rel)
    return big / (big + math.exp(e * m))


def _laplace_curve_events(a, e):
    return dpcourse.tradeoff_curve([dpcourse.LaplaceEvent(e)], a)


def _chain_private(q12, q23):
    from dpcourse import synthetic
    table = synthetic._pair({(1, 2): q23}, 1, 2)
    p2 = q12.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nan_to_num(q12[:, :, None] * table[None, :, :] / p2[None, :, None], nan=0.0)


def _histogram_call(f, d, c, e, r, g):   # f is histogram_sensitivity
    if not np.isin(d, c).all():
        raise ValueError("a record outside the categories")
    return laplace_mechanism(exact_histogram(d, categories=c), f(r), e, rng=g)


def _oue_call(f, ones, n, e):
    bits = (np.arange(n)[:, None] < np.asarray(ones)[None, :]).astype(np.uint8)  # a report set with these ones
    return f(np.packbits(bits, axis=1), len(ones), e)


def _lira_call(f, phi, mu_in, sd_in, mu_out, sd_out):
    # seven models: the target (a member), three "in" and three "out" shadows whose leave-one-out mean and sample
    # standard deviation are the given ones; the target's row of scores is the online score of each phi
    c = np.empty((7, len(phi)))
    c[0] = phi
    c[1:4] = (mu_in + sd_in * np.array([-1.0, 0.0, 1.0]))[:, None]
    c[4:7] = (mu_out + sd_out * np.array([-1.0, 0.0, 1.0]))[:, None]
    masks = np.zeros(c.shape, dtype=bool)
    masks[:4] = True
    return f(c, masks)[0]


def _proportion_call(f, c, n, e):
    # proportion_interval releases its own noise: the nearest a student can get is its half-width on a dataset
    # with about the same count (not the answer, hence exact=False in the spec)
    bits = (np.arange(n) < round(min(max(c, 0), n))).astype(int)
    r = f(bits, e, rng=0)
    h = (r.high - r.low) / 2
    return c / n - h, c / n + h


def _chain_call(f, q12, q23):
    p = {0: q12.sum(axis=1), 1: q12.sum(axis=0), 2: q23.sum(axis=0)}
    return f(p, {(0, 1): q12, (1, 2): q23}, [(0, 1), (1, 2)], (q12.shape[0], q12.shape[1], q23.shape[1]))


def _dp_mean(x, lo, hi, e, g):   # clamp, then laplace_mechanism (allowed) at the clamped mean's sensitivity
    x = np.clip(np.asarray(x, dtype=float), lo, hi)
    return laplace_mechanism(float(x.mean()), (hi - lo) / x.size, e, rng=g)


def _dp_mean_private(x, lo, hi, e, g):
    value, sens = dpcourse.laplace._clamped_mean_query(np.asarray(x, dtype=float), lo, hi)
    return laplace_mechanism(value, sens, e, rng=g)


def _lattice_scale(s, e, g, d):
    return g * (math.floor(s / g) + d) / e


def _lattice_private(s, e, g, d):
    return dpcourse.discrete._laplace_lattice(s, e, d, g).noise_scale


def _sample_size(k, a):
    return math.floor(math.log(2 * k) / (2 * a * a)) + 1


@dataclass(frozen=True)
class Spec:
    checker: Callable
    module: object              # the checker's module
    attr: str                   # the name of its Forbidden set there
    target: Callable            # the public function the exercise names
    call: Callable              # call(f, *args): the answer through f, on the checker's arguments
    reference: Callable         # an honest solution
    non_answer: tuple = ()      # "module:qualname" (or "module:*") of the target's helpers that compute no answer
    others: dict = field(default_factory=dict)   # route name -> a student function through other library code
    exact: bool = True          # call(target, ...) gives the answer


SPECS = {
    "hockey_stick": Spec(ex_promise.check_hockey_stick, ex_promise, "_FORBIDDEN", dpcourse.hockey_stick,
                         lambda f, p, q, e: f(p, q, e), _hockey, ("divergences:_pair",)),
    "rr_estimator": Spec(ex_rr.check_rr_estimator, ex_rr, "_FORBIDDEN", dpcourse.rr_estimate_mean,
                         lambda f, r, e: f(r, e), _rr, (),
                         {"private": _rr_private, "krr_estimate": _rr_krr}),
    "plan_epsilon": Spec(ex_basics.check_plan_epsilon, ex_basics, "_FORBIDDEN", dpcourse.composed_epsilon,
                         lambda f, eps, parts: f(eps, parts, relation="add_remove"), _plan),
    "histogram": Spec(ex_histogram.check_my_dp_histogram, ex_histogram, "_FORBIDDEN", dpcourse.histogram_sensitivity,
                      _histogram_call, _histogram, ("discrete:*", "_sampling:*", "lattice:*", "laplace:*")),
    "em_probabilities": Spec(ex_selection.check_em_probabilities, ex_selection, "_FORBIDDEN",
                             dpcourse.exponential_probabilities, lambda f, u, s, e: f(u, s, e), _em, (),
                             {"private": _em_private, "noisy_max_gumbel": _em_gumbel}),
    "group_delta": Spec(ex_gaussian.check_group_delta, ex_gaussian, "_FORBIDDEN_GROUP", dpcourse.group_privacy,
                        lambda f, e, d, k: f(e, d, k)[1], group_delta),
    "analytic_sigma": Spec(ex_gaussian.check_analytic_sigma, ex_gaussian, "_FORBIDDEN_SIGMA",
                           dpcourse.analytic_gaussian_sigma, lambda f, e, d: f(e, d), analytic_sigma,
                           ("gaussian:_check_gaussian_delta", "gaussian:_log_gaussian_delta",
                            "gaussian:_within", "gaussian:_profile_log")),   # the search's rounding guard
    "optimal_delta": Spec(ex_composition.check_optimal_delta, ex_composition, "_FORBIDDEN",
                          dpcourse.optimal_composition_delta, lambda f, e, k, et: f(e, k, et), optimal_delta,
                          ("composition:_check_optimal_k",), {"private": _optimal_private}),
    "local_sensitivity": Spec(ex_quantiles.check_local_sensitivity, ex_quantiles, "_LS_FORBIDDEN",
                              dpcourse.local_sensitivity, lambda f, x, lo, hi: f(x, lo, hi), _local_sensitivity, (),
                              {"private": _ls_private, "smooth_sensitivity": _ls_smooth}),
    "amplification": Spec(ex_learning.check_amplification, ex_learning, "_AMP_FORBIDDEN",
                          dpcourse.subsampling_amplification, lambda f, e, q: f(e, 0.0, q)[0], _amplification),
    "oue_estimator": Spec(ex_local_dp.check_oue_estimator, ex_local_dp, "_OUE_FORBIDDEN",
                          dpcourse.unary_encoding_estimate, _oue_call, _oue,
                          ("local_dp:_check_packed", "local_dp:_check_domain", "local_dp:_check_ldp_epsilon",
                           "local_dp:_ue_probs", "local_dp:_ue_thresholds", "local_dp:_rr_flip_prob",
                           "local_dp:_threshold_up")),   # OUE's p and q, which the exercise may use
    "keep_sequence": Spec(ex_scale.check_keep_sequence, ex_scale, "_SEQ_FORBIDDEN",
                          dpcourse.partition_selection_probability,
                          lambda f, n_max, e, d: f(np.arange(n_max + 1), e, d), _keep, ("partition_selection:_check_user_counts",),
                          {"private": _keep_private}),
    "posterior_bound": Spec(ex_deid.check_posterior_bound, ex_deid, "_FORBIDDEN", dpcourse.posterior_bound,
                            lambda f, p, e: f(p, e), _posterior),
    "node_scale": Spec(ex_continual.check_node_scale, ex_continual, "_SCALE_FORBIDDEN", dpcourse.tree_levels,
                       lambda f, h, e: f(h) / e, _node_scale,
                       ("continual:_check_horizon", "continual:_privacy", "_sampling:_round_up"),
                       {"private": _node_private, "TreeCounter": _node_counter, "tree_variance": _node_variance}),
    "packing_probability": Spec(ex_lower_bounds.check_packing_probability, ex_lower_bounds, "_PROBABILITY_FORBIDDEN",
                                dpcourse.packing_failure_probability,
                                lambda f, k, e, m, rel: f(k, e, m, relation=rel), _packing,
                                ("lower_bounds:_check_bins",), {"private": _packing_private}),
    "laplace_tradeoff": Spec(ex_fdp.check_laplace_tradeoff, ex_fdp, "_LAPLACE_FORBIDDEN", dpcourse.tradeoff_laplace,
                             lambda f, a, e: f(a, e), _laplace_curve, (),
                             {"tradeoff_curve": _laplace_curve_events}),
    "lira_online": Spec(ex_membership.check_lira_online, ex_membership, "_LIRA_FORBIDDEN",
                        dpcourse.membership.lira_scores, _lira_call, _lira),
    "proportion_interval": Spec(ex_inference.check_proportion_interval, ex_inference, "_PROPORTION_FORBIDDEN",
                                dpcourse.proportion_interval, _proportion_call, _proportion,
                                ("inference:_common", "inference:_proportion_release", "inference:_halfwidth",
                                 "inference:_record", "accounting:LaplaceEvent.__post_init__", "discrete:*",
                                 "_sampling:*", "lattice:*", "laplace:*"), exact=False),
    "dp_mean": Spec(ex_audit.check_clamped_mean, ex_audit, "_FORBIDDEN", dpcourse.dp_mean,
                    lambda f, x, lo, hi, e, g: f(x, lo, hi, e, rng=g), _dp_mean, (), {"private": _dp_mean_private}),
    "lattice_scale": Spec(ex_noise.check_lattice_scale, ex_noise, "_LATTICE_FORBIDDEN", dpcourse.laplace_lattice,
                          lambda f, s, e, g, d: f(s, e, dim=d, spacing=g).noise_scale, _lattice_scale, (),
                          {"private": _lattice_private}),
    "sample_size": Spec(ex_queries.check_sample_size, ex_queries, "_SIZE_FORBIDDEN",
                        dpcourse.queries.smalldb_sample_size, lambda f, k, a: f(k, a), _sample_size),
    "chain_joint": Spec(ex_synthetic.check_chain_joint, ex_synthetic, "_JOINT_FORBIDDEN",
                        dpcourse.synthetic.tree_joint, _chain_call, _chain,
                        ("synthetic:_check_domain", "synthetic:_check_tree"), {"private": _chain_private}),
}


#: Forbidden sets whose exercise has no deterministic answer for the routes above to compare (a sampler), with the
#: test that checks their routes instead.
NO_SPEC = {(ex_noise, "_BERNOULLI_FORBIDDEN"): "tests/test_noise_chapter_helpers.py::"
                                              "test_bernoulli_checker_refuses_the_librarys_own_samplers"}


def test_every_checker_that_forbids_something_has_a_spec():
    forbidding = set()
    for info in pkgutil.iter_modules(ex.__path__):
        module = importlib.import_module(f"dpcourse.exercises.{info.name}")
        forbidding |= {(module, name) for name, value in vars(module).items() if isinstance(value, Forbidden)}
    assert forbidding == {(s.module, s.attr) for s in SPECS.values()} | set(NO_SPEC)


# ------------------------------------------------------------------------------------------------------------
# The routes


class _Stop(Exception):
    pass


@functools.lru_cache(maxsize=None)
def _first_args(name):
    """The arguments the checker gives the student's function first (a spy records them)."""
    seen = []

    def spy(*args):
        seen.append(copy.deepcopy(args))
        raise _Stop

    SPECS[name].checker(spy)
    return seen[0]


def _params(name):
    return ", ".join(f"a{i}" for i in range(len(_first_args(name))))


def _other_modules(target):
    """Every package module, other than the one defining it and the package itself, holding ``target``."""
    out = []
    for modname, module in sorted(sys.modules.items()):
        if not modname.startswith("dpcourse.") or module is None or modname == target.__module__:
            continue
        for attr, value in vars(module).items():
            if value is target:
                out.append((modname, attr))
    return out


def _student(name, route):
    """A student function reaching the spec's target by ``route`` (built from source, as a student writes it)."""
    spec = SPECS[name]
    target = spec.target
    if route in spec.others:
        return spec.others[route]
    params = _params(name)
    exported = getattr(dpcourse, target.__name__, None) is target
    ns = {"call": spec.call, "G": target, "importlib": importlib, "reference": spec.reference, "functools": functools,
          "dpcourse": dpcourse, "M": importlib.import_module(target.__module__)}
    getter = (f"getattr(importlib.import_module({target.__module__!r}), "
              f"''.join(reversed({target.__name__[::-1]!r})))")
    body = {
        "direct": f"call({'dpcourse' if exported else 'M'}.{target.__name__}, {params})",
        "alias": f"call(G, {params})",
        "default": f"call(g, {params})",
        "list": f"call(L[0], {params})",
        "dict": f"call(D['f'], {params})",
        "partial": f"call(P, {params})",
        "lambda": f"call(W, {params})",
        "helper": f"call(helper, {params})",
        "getattr": f"call({getter}, {params})",
    }
    ns.update(L=[target], D={"f": target}, P=functools.partial(target), W=lambda *a, **k: target(*a, **k))
    if route.startswith("module:"):
        modname, attr = route.split(":", 1)[1].rsplit(".", 1)
        ns["OTHER"] = sys.modules[modname]
        src = f"def student({params}):\n    return call(OTHER.{attr}, {params})\n"
    elif route == "default":
        src = f"def student({params}, g=G):\n    return {body[route]}\n"
    elif route == "helper":
        src = f"def helper(*a, **k):\n    return G(*a, **k)\n\ndef student({params}):\n    return {body[route]}\n"
    elif route == "caught":   # the guard's exception is caught, and an honest value returned instead
        src = (f"def student({params}):\n    try:\n        return call({getter}, {params})\n"
               f"    except BaseException:\n        return reference({params})\n")
    else:
        src = f"def student({params}):\n    return {body[route]}\n"
    exec(compile(src, f"<student {name} {route}>", "exec"), ns)  # noqa: S102 - a student's cell, written here
    return ns["student"]


GENERIC = ("direct", "alias", "default", "list", "dict", "partial", "lambda", "helper", "getattr", "caught")
ROUTES = [(name, route) for name, spec in SPECS.items()
          for route in GENERIC + tuple(f"module:{m}.{a}" for m, a in _other_modules(spec.target)) + tuple(spec.others)]


def _names(spec):
    forbidden = getattr(spec.module, spec.attr)
    return {forbidden.name_of_code(c) for c in forbidden.codes()}


def _same(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name, route", ROUTES, ids=[f"{n}-{r}" for n, r in ROUTES])
def test_every_route_to_the_answer_is_refused(name, route):
    spec = SPECS[name]
    student = _student(name, route)
    if spec.exact or route in spec.others:
        # the route computes the answer when nothing watches (so the refusal below has no other cause)
        args = _first_args(name)
        assert _same(student(*copy.deepcopy(args)), spec.reference(*copy.deepcopy(args))), (name, route)
    result = spec.checker(student)
    assert not result.passed, (name, route)
    assert "yourself" in result.message and any(n in result.message for n in _names(spec)), (route, result.message)
    assert sys.getprofile() is None


def test_the_routes_include_other_modules_imports():
    # the checker module's own import and the figures' imports are routes the issue found
    assert any(r == "module:dpcourse.exercises.promise.hockey_stick" for _, r in ROUTES)
    assert any(r.startswith("module:dpcourse.plots.") for _, r in ROUTES)
    assert ("proportion_interval", "direct") in ROUTES   # dpcourse.proportion_interval, which was not blocked


@pytest.mark.parametrize("name", [n for n, s in SPECS.items() if s.exact])
def test_the_run_time_route_passes_when_nothing_is_forbidden(name, monkeypatch):
    # getattr with a name built at run time: no name to see before the call. Without the forbidden set the
    # checker accepts it (it computes the answer); with it, only the guard watching the run can refuse it.
    spec = SPECS[name]
    monkeypatch.setattr(spec.module, spec.attr, Forbidden())
    assert spec.checker(_student(name, "getattr")).passed, name


@pytest.mark.parametrize("name", SPECS)
def test_the_honest_solution_passes(name):
    result = SPECS[name].checker(SPECS[name].reference)
    assert result.passed, (name, result.message)


# ------------------------------------------------------------------------------------------------------------
# The forbidden sets cover the code that computes the answer


_PACKAGE = os.path.dirname(os.path.abspath(dpcourse.__file__)) + os.sep


def _trace(fn, *args):
    """The package code objects (not the checkers') that run during ``fn(*args)``."""
    seen = set()

    def profile(frame, event, arg):
        if event == "call":
            seen.add(frame.f_code)

    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return {c for c in seen if c.co_filename.startswith(_PACKAGE) and os.sep + "exercises" + os.sep not in c.co_filename}


def _label(code):
    return f"{os.path.basename(code.co_filename)[:-3]}:{code.co_qualname}"


@pytest.mark.parametrize("name", SPECS)
def test_the_forbidden_set_covers_the_code_that_computes_the_answer(name):
    spec = SPECS[name]
    forbidden = {id(c) for c in getattr(spec.module, spec.attr).codes()}
    args = _first_args(name)
    runs = _trace(spec.call, spec.target, *copy.deepcopy(args))
    honest = _trace(spec.reference, *copy.deepcopy(args))
    assert not {_label(c) for c in honest if id(c) in forbidden}   # the allowed helpers run no forbidden code
    # argument checks, and the package's dispatch-independent exp and log, compute no answer
    free = {"_validation:*", "portable:*", *spec.non_answer}

    def listed(label):   # a listed helper, code nested in one, or any code of a module listed as "module:*"
        return label.split(":")[0] + ":*" in free or any(label == f or label.startswith(f + ".<locals>.")
                                                           for f in free)

    left = {_label(c) for c in runs if id(c) not in forbidden and c not in honest and not listed(_label(c))}
    assert not left, f"{name}: code that runs for the answer but is not forbidden: {sorted(left)}"
    assert any(id(c) in forbidden for c in runs)


# ------------------------------------------------------------------------------------------------------------
# call_student's guard itself


def _own(p, q, e):
    return _hockey(p, q, e)


def test_a_reference_held_but_never_called_is_refused_before_the_run():
    # only the look at the function before it runs can see this one: nothing forbidden ever runs
    def holds(p, q, e, g=dpcourse.hockey_stick):
        return _own(p, q, e)

    assert holds(np.array([0.5, 0.5]), np.array([0.25, 0.75]), 0.0) == pytest.approx(0.25)
    result = check_hockey_stick(holds)
    assert not result.passed and "uses dpcourse.hockey_stick" in result.message and "yourself" in result.message


def test_switching_the_guard_off_is_refused():
    def tamper(p, q, e):
        sys.setprofile(None)
        return getattr(dpcourse, "hockey" + "_stick")(p, q, e)

    result = check_hockey_stick(tamper)
    assert not result.passed and "sys.setprofile" in result.message, result.message
    assert sys.getprofile() is None


class _Lazy:
    """A result whose value is computed only when the checker turns it into a number."""

    def __init__(self, args):
        self.args = args

    def __float__(self):
        return float(getattr(dpcourse, "hockey" + "_stick")(*self.args))


def test_a_lazy_result_is_converted_while_the_guard_watches():
    def lazy(p, q, e):
        return _Lazy((p, q, e))

    assert float(lazy(np.array([0.5, 0.5]), np.array([0.25, 0.75]), 0.0)) == pytest.approx(0.25)
    result = check_hockey_stick(lazy)
    assert not result.passed and "hockey_stick" in result.message and "yourself" in result.message


def test_a_thread_started_by_the_student_is_watched():
    import threading

    def threaded(p, q, e):
        out = []
        def run():
            try:
                out.append(getattr(dpcourse, "hockey" + "_stick")(p, q, e))
            except BaseException:   # noqa: BLE001 - the guard's exception, caught in the thread
                pass

        t = threading.Thread(target=run)
        t.start()
        t.join()
        return out[0] if out else _own(p, q, e)

    result = check_hockey_stick(threaded)
    assert not result.passed and "hockey_stick" in result.message and "yourself" in result.message
    assert threading.getprofile() is None


def test_a_profiler_in_place_is_restored():
    calls = []

    def mine(frame, event, arg):
        calls.append(event)

    sys.setprofile(mine)
    try:
        out, failure = call_student(_own, (np.array([0.5, 0.5]), np.array([0.25, 0.75]), 0.0), "case",
                                    forbidden=Forbidden(dpcourse.hockey_stick))
        assert sys.getprofile() is mine
    finally:
        sys.setprofile(None)
    assert failure is None and out == pytest.approx(0.25)


def test_allowed_library_code_runs_under_the_guard():
    # the guard fails forbidden code only: laplace_mechanism, which the histogram exercise allows, runs
    out, failure = call_student(lambda x: laplace_mechanism(x, 1.0, 1.0, rng=0), (np.zeros(3),), "case", shape=(3,),
                                forbidden=Forbidden(dp_histogram, histogram_sensitivity))
    assert failure is None and out.shape == (3,)


def test_forbidden_knows_classes_copies_and_wrappers():
    forbidden = Forbidden(dpcourse.TreeCounter, dpcourse.hockey_stick)
    assert forbidden.name_of(dpcourse.TreeCounter) == "dpcourse.TreeCounter"
    assert forbidden.name_of(dpcourse.TreeCounter(8, 1.0)) == "dpcourse.TreeCounter"   # an instance
    assert forbidden.name_of_code(dpcourse.TreeCounter.step.__code__) == "dpcourse.TreeCounter"
    copied = type(dpcourse.hockey_stick)(dpcourse.hockey_stick.__code__, {})          # same code, new function
    assert forbidden.name_of(copied) == "dpcourse.hockey_stick"
    assert forbidden.name_of(dpcourse.tree_levels) is None
    # (module, name) pairs, as older callers give them, name the same code
    assert Forbidden((dpcourse, "hockey_stick")).codes() == Forbidden(dpcourse.hockey_stick).codes()
    # nested code (a comprehension inside the function) is forbidden with it
    nested = [c for c in dpcourse.composed_epsilon.__code__.co_consts if hasattr(c, "co_code")]
    assert nested and all(Forbidden(dpcourse.composed_epsilon).name_of_code(c) for c in nested)


def test_own_helpers_named_like_the_library_functions_are_not_refused():
    # a student's own histogram_sensitivity (a global of the notebook) next to dpcourse.laplace_mechanism, and an
    # inner helper named hockey_stick while the notebook imported the library's: neither is the library's code
    ns = {"dpcourse": dpcourse, "np": np, "hockey_stick": dpcourse.hockey_stick}
    exec(compile('''
def histogram_sensitivity(relation):
    return 1.0 if relation == "add_remove" else 2.0

def my_histogram(d, c, e, r, g):
    if not np.isin(d, c).all():
        raise ValueError("a record outside the categories")
    return dpcourse.laplace_mechanism(dpcourse.exact_histogram(d, categories=c), histogram_sensitivity(r), e, rng=g)

def my_hockey_stick(p, q, e):
    def hockey_stick(p, q, e):
        return float(np.maximum(p - np.exp(e) * q, 0).sum())
    return (lambda: hockey_stick(p, q, e))()
''', "<notebook cell>", "exec"), ns)  # noqa: S102 - a student's cell
    assert check_my_dp_histogram(ns["my_histogram"]).passed
    assert check_hockey_stick(ns["my_hockey_stick"]).passed


@functools.lru_cache(maxsize=None)
def _cached_answer(x):
    return 2 * x


def test_a_cached_call_of_forbidden_code_is_refused():
    # a warm lru_cache answers without running a frame of the function: the guard sees the wrapper's call
    assert _cached_answer(3) == 6

    def student(x):
        return getattr(sys.modules[__name__], "_cached" + "_answer")(x)

    out, failure = call_student(student, (3,), "case", forbidden=Forbidden(_cached_answer))
    assert out is None and "_cached_answer" in failure.message and "yourself" in failure.message
