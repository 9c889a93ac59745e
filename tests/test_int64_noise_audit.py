"""Audit of every int64 sum of integer noise in dpcourse (issue 35, item 3).

An int64 sum of noise that wraps around gives a wrong answer silently (the tree counter's feed disagreed with its
step at 99 of 65,536 steps at a node scale of 2**59.2). Every place that draws integer noise is listed below with
the reason it cannot wrap (a checked sum that raises OverflowError, an exact fallback to Python ints, or a bound on
the scale that a public parameter enforces) and the test that shows it. A new place fails
:func:`test_every_integer_noise_site_is_audited` until it is added here with its reason.
"""

import ast
import importlib
import math
import pathlib

import dpcourse

PACKAGE = pathlib.Path(dpcourse.__file__).parent

#: The functions that draw integer noise or add it to a value (the callees the scan looks for).
SAMPLERS = {"_dlap", "_dlap1", "_dlap_vector", "discrete_laplace", "_dgauss_from_variance", "_dgauss_vector",
            "_dgauss1", "discrete_gaussian", "geometric_mechanism", "lattice_release", "secure_laplace_draws",
            "secure_laplace", "secure_gaussian", "secure_laplace1", "secure_gaussian1", "_release1",
            "_noise_on_values", "_secure_laplace_draws", "_secure_laplace", "_secure_gaussian", "_secure_laplace1",
            "_secure_gaussian1"}   # secure_*: the names laplace.py and gaussian.py import lattice's _secure_* under

_SAMPLER = ("the sampler itself: no sum of noise values; its integer arithmetic is exact (Python ints where int64 "
            "could overflow: _affine_floor, the 'small' mask of _dgauss_vector, _bern_ratio)", None)
_CHECKED = ("value + noise by _checked_sum / _checked_int_sum: OverflowError instead of a wrap, scale <= 2**50",
            "tests/test_discrete_review.py::test_lattice_release_never_wraps_around")
_VIA = ("through lattice_release or geometric_mechanism (checked sums, see lattice and discrete)",
        "tests/test_discrete_review.py::test_geometric_mechanism_refuses_scales_that_could_wrap_and_sums_never_wrap")

#: (module, enclosing function) -> (why no int64 sum of noise can wrap there, the test that shows it)
AUDIT = {
    ("continual", "TreeCounter._draw"): (
        "an answer adds <= L node noises, each checked |z| <= 2**62 // L (_check_noise raises OverflowError); the "
        "Laplace total scale L * b <= 2**50 is enforced by epsilon, so the check fails with probability < e^-4095",
        "tests/test_continual.py::test_noise_beyond_the_int64_margin_raises_instead_of_wrapping"),
    ("continual", "naive_counts"): (
        "fresh: one noise per answer, |z| <= 2**62; increments: T noises per answer, |z| <= 2**62 // T (checked); "
        "total scale <= 2**50 enforced by epsilon",
        "tests/test_continual.py::test_tiny_epsilon_is_refused_by_name_where_int64_sums_could_wrap"),
    ("continual", "factorization_counts"): (
        "lattice point |Q x| / 2**shift < 2**51 plus one discrete Gaussian of variance < 2**60 (refused above): "
        "beyond int64 only if |noise| > 2**62, 2**32 sigmas (probability below e^-2**63)",
        "tests/test_continual.py::test_exact_factorization_at_the_caps"),
    ("_sampling", "_dgauss1"): _SAMPLER,
    ("_sampling", "_dgauss_from_variance"): _SAMPLER,
    ("_sampling", "_dgauss_vector"): _SAMPLER,
    ("_sampling", "_dlap"): _SAMPLER,
    ("discrete", "discrete_gaussian"): _SAMPLER,
    ("discrete", "discrete_laplace"): _SAMPLER,
    ("discrete", "geometric_mechanism"): _CHECKED,
    ("lattice", "_release1"): _CHECKED,
    ("lattice", "_secure_gaussian"): _CHECKED,
    ("lattice", "_secure_gaussian1"): _CHECKED,
    ("lattice", "_secure_laplace"): _CHECKED,
    ("lattice", "_secure_laplace1"): _CHECKED,
    ("lattice", "_secure_laplace_draws"): _CHECKED,
    ("gaussian", "gaussian_mechanism"): _VIA,
    ("laplace", "dp_mean"): _VIA,
    ("laplace", "laplace_mechanism"): _VIA,
    ("inference", "_release_each"): _VIA,
    ("histogram", "dp_histogram"): _VIA,
    ("group_by", "dp_group_by"): _VIA,
    ("quantiles", "smooth_median"): _VIA,
    ("quantiles", "propose_test_release"): ("d + noise in Python ints (int() of a scalar draw): exact", None),
    ("svt", "sparse_vector"): (
        "_svt_above compares q + nu with T + rho in int64 only when every |noise| < 2**61 (values <= 2**61 steps), "
        "else in Python ints", "tests/test_queries.py::test_svt_comparison_never_wraps_around"),
    ("selection", "_secure_laplace_noisy_max"): (
        "lattice scores lie in [-2**60, 0]: the int64 sum is used only when every noise is >= -2**62, else Python ints",
        "tests/test_exact_selection.py::test_noisy_max_huge_noise_does_not_wrap_int64"),
    ("synthetic", "_measure"): (
        "counts <= MAX_SIZE < 2**24 plus a discrete Gaussian of sigma <= MAX_SIGMA = 2**40: beyond int64 only past "
        "2**22 sigmas; a sum over a noisy table is (N sigma^2)-subgaussian", "tests/test_int64_noise_audit.py::"
        "test_synthetic_noisy_tables_cannot_wrap"),
}


def _noise_sites():
    """(module, enclosing function) of every call to one of SAMPLERS in the package's top-level modules."""
    sites = set()
    for path in sorted(PACKAGE.glob("*.py")):
        def visit(node, stack):
            for child in ast.iter_child_nodes(node):
                inner = stack + [child.name] if isinstance(child, (ast.FunctionDef, ast.ClassDef)) else stack
                if isinstance(child, ast.Call):
                    f = child.func
                    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                    if name in SAMPLERS:
                        sites.add((path.stem, ".".join(stack)))
                visit(child, inner)
        visit(ast.parse(path.read_text(encoding="utf-8")), [])
    return sites


def test_every_integer_noise_site_is_audited():
    missing = sorted(_noise_sites() - set(AUDIT))
    assert not missing, f"integer noise drawn or added here without an int64 audit entry: {missing}"


def test_the_audit_cites_tests_that_exist():
    for reason, test in AUDIT.values():
        assert reason
        if test is not None:
            path, name = test.split("::")
            module = importlib.import_module(path[:-3].replace("/", "."))
            assert callable(getattr(module, name)), test


def test_synthetic_noisy_tables_cannot_wrap():
    """synthetic._measure adds discrete Gaussian noise of sigma <= MAX_SIGMA to the counts of a one- or two-way
    marginal (at most MAX_VALUES**2 cells, counts summing to n <= MAX_SIZE) in int64. A cell leaves int64 only if
    |noise| > 2**63 - MAX_SIZE, probability at most 2 exp(-(2**63 - MAX_SIZE)**2 / (2 sigma^2)) (the discrete
    Gaussian is sigma^2-subgaussian): an exponent above 2**44. An int64 sum over the N cells of a noisy table
    (fit_tree_marginals) is right iff its true value fits (two's complement addition is exact modulo 2**64), and
    that value is n plus an (N sigma^2)-subgaussian noise: beyond int64 with an exponent above 2**24."""
    import pytest
    from dpcourse import synthetic
    from dpcourse._validation import MAX_SIZE

    sigma, cells = synthetic.MAX_SIGMA, synthetic.MAX_VALUES**2
    assert sigma <= 2**40 and MAX_SIZE < 2**24 and cells < 2**20
    assert (2**63 - MAX_SIZE) ** 2 / (2 * sigma**2) > 2**44                 # one cell
    assert (2**63 - MAX_SIZE) ** 2 / (2 * cells * sigma**2) > 2**24         # a sum over a table
    with pytest.raises(ValueError, match="MAX_SIGMA"):                      # the cap is enforced (rho, public)
        synthetic._sigma_for(1.0, 1e-30)
    assert synthetic._sigma_for(1.0, 0.5 / 2.0**79) <= sigma + 1            # sigma = 2**39.5: allowed, below the cap
