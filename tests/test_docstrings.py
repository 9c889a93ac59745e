"""The docstring rule of CONTRIBUTING.md ("Docstrings: what a public function's docstring holds"), where a
program can check it.

``RULED`` lists the functions held to the rule: the longest docstrings first (issue 38), and every public function
of a module split out under issue 38. A function joins the list when its docstring is brought to the rule.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

LABEL = re.compile(r"\b(thm|lem|def|alg|cor|prop)-[a-z0-9-]+")
RELATION = re.compile(r"replace[-_ ]one|add[-_/ ](or[-_ ])?remove|add_remove|replace_one|zero[-_ ]out|"
                      r"user[- ]level|event[- ]level|neighbou?r", re.I)
TIMING = re.compile(r"\b\d+(\.\d+)?\s*(ms|µs|μs|ns|seconds?|minutes?)\b|\b\d+(\.\d+)?\s*[x×]\s+faster|"
                    r"\bspeed-?up\b|\btimes faster\b", re.I)
HISTORY = re.compile(r"\b(earlier versions?|used to|previously|no longer|was changed|review(ers)? found|"
                     r"issue \d+|hostile read)\b", re.I)
PROOF = re.compile(r"^\s*(\*\*)?Proof\b|Q\.E\.D|∎", re.M)
MAX_LINES = 45
RELEASE_PARAMS = {"epsilon", "rho", "rng", "delta", "mu"}

#: "module:function" held to the rule.
RULED: list[str] = [
    "dpcourse.discrete:discrete_laplace",
    "dpcourse.discrete:discrete_laplace_pmf",
    "dpcourse.discrete:discrete_gaussian",
    "dpcourse.discrete:discrete_gaussian_pmf",
    "dpcourse.discrete:discrete_gaussian_delta",
    "dpcourse.discrete:geometric_mechanism",
    "dpcourse.lattice:laplace_lattice",
    "dpcourse.lattice:gaussian_lattice",
    "dpcourse.lattice:lattice_release",
    "dpcourse.quantiles:dp_quantile",
    "dpcourse.selection:report_noisy_max",
    "dpcourse.laplace:dp_mean",
    "dpcourse.histogram:dp_histogram",
    "dpcourse.local_dp:shuffle_amplification_epsilon",
    "dpcourse.quantiles:sample_and_aggregate",
    "dpcourse.quantiles:dp_median",
    "dpcourse.quantiles:dp_quantile_probabilities",
    "dpcourse.quantiles:dp_quantile_sampling_error",
    "dpcourse.inventory:inventory_rows",
    "dpcourse.quantiles:local_sensitivity",
    "dpcourse.quantiles:smooth_sensitivity",
    "dpcourse.quantiles:smooth_median",
    "dpcourse.quantiles:distance_to_instability",
    "dpcourse.quantiles:propose_test_release",
    "dpcourse.local_dp:krr",
    "dpcourse.local_dp:unary_encoding",
    "dpcourse.local_dp:local_hashing",
    "dpcourse.rr:rr_count_distribution",
    "dpcourse.rr:randomized_response",
    "dpcourse.selection:exponential_probabilities",
    "dpcourse.selection:exponential_mechanism",
    "dpcourse.selection:permute_and_flip",
    "dpcourse.audit:audit_epsilon",
    "dpcourse.sensitivity:brute_force_sensitivity",
    "dpcourse.gaussian:gaussian_mechanism",
    "dpcourse.composition_basics:composed_epsilon",
    "dpcourse.gaussian:analytic_gaussian_sigma",
    "dpcourse.divergences:privacy_loss",
    "dpcourse.gaussian:gaussian_sigma",
    "dpcourse.approx_dp:group_privacy",
    "dpcourse.composition:rdp_to_epsilon",
    "dpcourse.gaussian:gaussian_delta",
    "dpcourse.composition_basics:laplace_privacy_loss",
    "dpcourse.float_attack:textbook_laplace_noise",
    "dpcourse.divergences:hockey_stick",
    "dpcourse.float_attack:textbook_reachable",
    "dpcourse.composition:optimal_composition_epsilon",
    "dpcourse.composition:advanced_composition",
    "dpcourse.composition:basic_composition",
    "dpcourse.composition:optimal_composition_delta",
    "dpcourse.composition:gaussian_composition_epsilon",
    "dpcourse.divergences:mechanism_epsilon",
    "dpcourse.audit:clopper_pearson",
    "dpcourse.gaussian:gaussian_epsilon",
    "dpcourse.gaussian:gaussian_loss_tail",
    "dpcourse.float_attack:lattice_reachable",
    "dpcourse.float_attack:impossible_output_mechanism",
    "dpcourse.composition:zcdp_epsilon",
    "dpcourse.float_attack:lattice_privacy_loss",
    "dpcourse.composition:advanced_composition_crossover",
    "dpcourse.composition:rdp_pure_dp",
    "dpcourse.composition:rdp_laplace",
    "dpcourse.composition:rdp_gaussian",
    "dpcourse.learning:dp_logistic_regression",
    "dpcourse.learning:dpsgd_epsilon_by_composition",
    "dpcourse.learning:logistic_regression",
    "dpcourse.learning:logistic_loss",
    "dpcourse.learning:load_fair_features",
    "dpcourse.inference:mean_interval",
    "dpcourse.inference:proportion_interval",
    "dpcourse.inference:quantile_interval",
    "dpcourse.inference:mean_interval_coverage",
    "dpcourse.inference:quantile_interval_coverage",
    "dpcourse.inference:difference_of_means_interval",
    "dpcourse.inference:coverage_grid",
    "dpcourse.inference:difference_interval_coverage",
    "dpcourse.inference:population_parameter",
    "dpcourse.inference:interval_coverage",
    "dpcourse.inference:proportion_interval_coverage",
    "dpcourse.inference:noise_aware_halfwidth",
    "dpcourse.inference:course_populations",
    "dpcourse.fdp:tradeoff_curve",
    "dpcourse.fdp:tradeoff_laplace",
    "dpcourse.fdp:tradeoff_epsilon_delta",
    "dpcourse.fdp:tradeoff_gaussian",
    "dpcourse.fdp:gdp_mu_for_dp",
    "dpcourse.fdp:clt_mu_poisson_gaussian",
    "dpcourse.fdp:gdp_mu",
    "dpcourse.fdp:tradeoff_randomized_response",
    "dpcourse.fdp:tradeoff_from_profile",
    "dpcourse.membership:canary_audit",
    "dpcourse.membership:lira_scores",
    "dpcourse.membership:gdp_tpr_bound",
    "dpcourse.membership:train_models",
    "dpcourse.membership:dp_tpr_bound",
    "dpcourse.membership:inclusion_masks",
    "dpcourse.membership:logit_confidence",
    "dpcourse.membership:attack_tprs",
    "dpcourse.membership:fair_onehot_features",
    "dpcourse.membership:roc_points",
    "dpcourse.synthetic:mst_synthesize",
    "dpcourse.continual:TreeCounter",
    "dpcourse.continual:tree_counts",
    "dpcourse.continual:tree_levels",
    "dpcourse.continual:tree_node_variance",
    "dpcourse.continual:tree_variance",
    "dpcourse.continual:naive_counts",
    "dpcourse.continual:naive_variance",
    "dpcourse.continual:sqrt_factor",
    "dpcourse.continual:factorization_sensitivity",
    "dpcourse.continual:factorization_lattice",
    "dpcourse.continual:factorization_counts",
    "dpcourse.continual:factorization_variance",
    "dpcourse.lower_bounds:packing_failure_probability",
    "dpcourse.lower_bounds:packing_error_bound",
    "dpcourse.lower_bounds:bit_guessing_bound",
    "dpcourse.lower_bounds:subset_sum_error_bound",
    "dpcourse.lower_bounds:fingerprinting_code",
    "dpcourse.lower_bounds:fingerprinting_sample_bound",
    "dpcourse.lower_bounds:gaussian_means_sample_size",
    "dpcourse.lower_bounds:tracing_trial",
    "dpcourse.deidentification:load_affairs_survey",
    "dpcourse.deidentification:load_deployments",
    "dpcourse.deidentification:equivalence_classes",
    "dpcourse.deidentification:k_anonymity",
    "dpcourse.deidentification:uniqueness",
    "dpcourse.deidentification:generalize",
    "dpcourse.deidentification:l_diversity",
    "dpcourse.deidentification:homogeneous_records",
    "dpcourse.deidentification:linkage_attack",
    "dpcourse.deidentification:posterior_bound",
    "dpcourse.deidentification:histogram_attack_posterior",
    "dpcourse.deidentification:rappor_epsilon",
    "dpcourse.synthetic:independent_synthesize",
    "dpcourse.synthetic:mst_budget",
    "dpcourse.synthetic:marginal_errors",
    "dpcourse.synthetic:SyntheticRelease",
]


def problems(fn) -> list[str]:
    """What the docstring of ``fn`` lacks or holds against the rule (an empty list if nothing)."""
    doc = inspect.getdoc(fn) or ""
    out = []
    lines = doc.splitlines()
    if not lines or not lines[0].strip() or not lines[0].rstrip().endswith((".", ":")):
        out.append("no one-line summary ending with a full stop")
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    sections = {s: re.search(rf"^{s}\n-{{3,}}$", doc, re.M) for s in ("Parameters", "Returns", "Yields", "Examples")}
    if params:
        if not sections["Parameters"]:
            out.append("no Parameters section")
        else:
            body = doc[sections["Parameters"].end():]
            nxt = re.search(r"^\w[\w ]*\n-{3,}$", body, re.M)
            body = body[:nxt.start()] if nxt else body
            # numpydoc: a parameter line starts at the margin, "name : type" or "a, b : type" or just "a, b".
            names = {n.strip().lstrip("*") for line in re.findall(r"^(\S[^:\n]*)", body, re.M)
                     for n in line.split(",")}
            missing = [p.name for p in params if p.name not in names]
            if missing:
                out.append(f"parameters not described: {missing}")
    if not (sections["Returns"] or sections["Yields"]) and not inspect.isclass(fn):
        out.append("no Returns section")
    if ">>>" not in doc:
        out.append("no example")
    if {p.name for p in params} & RELEASE_PARAMS:
        if not LABEL.search(doc):
            out.append("a release without a theorem label")
        if not RELATION.search(doc):
            out.append("a release without its neighbouring relation")
    if len(lines) > MAX_LINES:
        out.append(f"{len(lines)} lines (at most {MAX_LINES}: proofs belong in the chapter)")
    for pattern, what in ((TIMING, "a timing"), (HISTORY, "history"), (PROOF, "a proof")):
        m = pattern.search(doc)
        if m:
            out.append(f"{what}: {m.group(0)!r}")
    return out


def _resolve(name: str):
    module, attr = name.split(":")
    return getattr(importlib.import_module(module), attr)


@pytest.mark.parametrize("name", RULED)
def test_docstring_follows_the_rule(name):
    assert problems(_resolve(name)) == [], name


def test_the_rule_can_fail():
    def release(x, epsilon, *, rng=None):
        """Releases x. Takes 3 ms; earlier versions used float noise.

        Parameters
        ----------
        x : float
            The value.
        """

    found = problems(release)
    assert "no Returns section" in found and "no example" in found
    assert "parameters not described: ['epsilon', 'rng']" in found
    assert "a release without a theorem label" in found and "a release without its neighbouring relation" in found
    assert any(p.startswith("a timing") for p in found) and any(p.startswith("history") for p in found)

    def good(x, epsilon, *, rng=None):
        """Release x with Laplace noise.

        epsilon-DP under the replace-one relation (theorem ``thm-laplace``).

        Parameters
        ----------
        x : float
            The value.
        epsilon : float
            The budget.
        rng : Generator, optional
            Randomness.

        Returns
        -------
        float

        Examples
        --------
        >>> 1
        1
        """

    assert problems(good) == []
