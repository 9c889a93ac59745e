"""exact_histogram and dp_histogram: counts by hand, noise law, privacy on neighbours per relation, bad input."""

import functools
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

import dpcourse  # noqa: E402
from dpcourse import dp_histogram, exact_histogram, histogram_sensitivity, laplace_mechanism  # noqa: E402
from dpcourse.exercises.histogram import check_my_dp_histogram  # noqa: E402
from dpcourse.plots import histogram as figs  # noqa: E402

ALPHA = 1e-6
GRADES = list("ABCDF")
MAX_FLOAT = float(np.finfo(np.float64).max)


def test_exact_counts_by_hand():
    assert exact_histogram(list("ABACAF"), categories=GRADES).tolist() == [3, 1, 1, 0, 1]
    assert exact_histogram([3, 1, 3], categories=[3, 2, 1]).tolist() == [2, 0, 1]  # declared order kept
    assert exact_histogram([], categories=GRADES).tolist() == [0] * 5
    # bins [0, 1), [1, 2), [2, 3]: the last edge belongs to the last bin, as in numpy.histogram
    assert exact_histogram([0.0, 0.99, 1.0, 2.5, 3.0], bins=[0, 1, 2, 3]).tolist() == [2, 1, 2]
    data = np.random.default_rng(0).uniform(0, 10, 1000)
    np.testing.assert_array_equal(exact_histogram(data, bins=np.arange(11)), np.histogram(data, np.arange(11))[0])


def test_records_outside_the_bins_are_clamped():
    # A finite record of any size is clamped into the outer bins, never refused (CONTRIBUTING.md, "Private
    # data"): neighbours differing in one such record both release, and their counts differ by at most the
    # sensitivity of the relation (a refusal for one of them would be an infinite privacy loss).
    edges = [0.0, 1.0, 2.0]
    assert exact_histogram([-1e308, -5e-324, -0.0, 0.5, 2.0, np.nextafter(2.0, 3.0), 1e308],
                           bins=edges).tolist() == [4, 3]
    base = [0.5, 1.5]
    for v in (-MAX_FLOAT, -1e308, -1.0, np.nextafter(0.0, -1.0), 0.0, 2.0, np.nextafter(2.0, 3.0), 3.0, MAX_FLOAT):
        added = exact_histogram(base + [v], bins=edges)           # add/remove: base and base + [v]
        replaced = exact_histogram([v, 1.5], bins=edges)          # replace-one: base and [v, 1.5]
        assert np.abs(added - exact_histogram(base, bins=edges)).sum() == histogram_sensitivity("add_remove")
        assert np.abs(replaced - exact_histogram(base, bins=edges)).sum() <= histogram_sensitivity("replace_one")
        for relation, neighbour in (("add_remove", base + [v]), ("replace_one", [v, 1.5])):
            out = dp_histogram(neighbour, 1.0, relation=relation, bins=edges, rng=0)
            assert out.shape == (2,) and out.dtype == np.int64


def test_sensitivity_per_relation():
    assert histogram_sensitivity("add_remove") == 1.0
    assert histogram_sensitivity("replace_one") == 2.0


@pytest.mark.parametrize("relation, delta", [("add_remove", 1), ("replace_one", 2)])
def test_secure_noise_is_discrete_laplace_with_the_relation_scale(relation, delta, chi2_pvalue):
    k, eps = 50_000, 0.7
    cats = np.arange(k)
    data = np.repeat(cats[:100], 3)
    released = dp_histogram(data, eps, relation=relation, categories=cats, rng=5)
    assert released.dtype == np.int64
    noise = released - exact_histogram(data, categories=cats)
    b = delta / eps
    assert chi2_pvalue(noise, lambda k: dpcourse.discrete_laplace_pmf(k, b)) > ALPHA
    # power: the scale of the other relation, or 10% off, is rejected
    for wrong in (1.1 * b, b / 1.1, (3 - delta) / eps):
        assert chi2_pvalue(noise, lambda k: dpcourse.discrete_laplace_pmf(k, wrong)) < ALPHA


@pytest.mark.parametrize("relation, delta", [("add_remove", 1), ("replace_one", 2)])
def test_size_gives_independent_releases_with_the_single_release_noise(relation, delta, chi2_pvalue):
    """size=m stacks m independent histograms; every entry's noise is the single release's discrete
    Laplace (chi-square at 1e-6, 10% off rejected), and the rows are not copies of one another."""
    data, cats, eps = list("ABAC"), list("ABCD"), 0.7
    released = dp_histogram(data, eps, relation=relation, categories=cats, rng=6, size=(20_000,))
    assert released.shape == (20_000, 4) and released.dtype == np.int64
    noise = (released - exact_histogram(data, categories=cats)).ravel()
    b = delta / eps
    assert chi2_pvalue(noise, lambda k: dpcourse.discrete_laplace_pmf(k, b)) > ALPHA
    for wrong in (1.1 * b, b / 1.1):
        assert chi2_pvalue(noise, lambda k: dpcourse.discrete_laplace_pmf(k, wrong)) < ALPHA
    assert len({tuple(r) for r in released[:100]}) > 50
    floats = dp_histogram(data, eps, relation=relation, categories=cats, rng=6, size=3, secure=False)
    assert floats.shape == (3, 4) and floats.dtype == np.float64
    with pytest.raises(ValueError, match="size"):
        dp_histogram(data, eps, relation=relation, categories=cats, size=-2)


@pytest.mark.parametrize("relation, delta", [("add_remove", 1.0), ("replace_one", 2.0)])
def test_textbook_noise_is_laplace_with_the_relation_scale(relation, delta):
    k, eps = 50_000, 0.7
    cats = np.arange(k)
    data = np.repeat(cats[:100], 3)
    noise = (dp_histogram(data, eps, relation=relation, categories=cats, rng=5, secure=False)
             - exact_histogram(data, categories=cats))
    b = delta / eps
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > ALPHA
    assert stats.kstest(noise, stats.laplace(scale=1.1 * b).cdf).pvalue < ALPHA
    assert stats.kstest(noise, stats.laplace(scale=b / 1.1).cdf).pvalue < ALPHA


def releases(data, eps, relation, trials, seed):
    return _releases(tuple(data), eps, relation, trials, seed)


@functools.lru_cache(maxsize=4)
def _releases(data, eps, relation, trials, seed):
    """Read-only and computed once per module: the two privacy tests share the add/remove releases of x."""
    gen = np.random.default_rng(seed)
    # dp_histogram once per trial would be slow; the noise vectors are i.i.d., so one call on a stacked
    # dataset is equivalent: the categories are (trial, grade) pairs, the data each trial's records.
    cats = np.arange(trials * 3)
    stacked = (np.arange(trials)[:, None] * 3 + np.asarray(data)[None, :]).ravel()
    out = dp_histogram(stacked, eps, relation=relation, categories=cats, rng=gen).reshape(trials, 3)
    out.setflags(write=False)
    return out


def test_privacy_replace_one_reaches_epsilon_and_no_more(max_log_ratio):
    # grades 0, 1, 2; x has counts (3, 5, 0), x' moves one record from grade 0 to grade 1: (2, 6, 0)
    x = [0] * 3 + [1] * 5
    x2 = [0] * 2 + [1] * 6
    eps, trials = 1.0, 200_000
    a = releases(x, eps, "replace_one", trials, 1)[:, :2]
    b = releases(x2, eps, "replace_one", trials, 2)[:, :2]
    # cells split at the two centres of each coordinate; the corner (A < 2, B > 6) has the full ratio e^-eps
    edges = [np.array([-np.inf, 0, 2, 3, 5, np.inf]), np.array([-np.inf, 3, 5, 6, 8, np.inf])]
    loss, se = max_log_ratio(a, b, edges, 3000)
    assert eps - 5.5 * se <= loss <= eps + 5.5 * se
    # the same neighbours released with the add/remove noise (scale 1/eps) leak 2 eps: the check sees it
    a_bad = releases(x, eps, "add_remove", trials, 1)[:, :2]
    b_bad = releases(x2, eps, "add_remove", trials, 2)[:, :2]
    loss_bad, se_bad = max_log_ratio(a_bad, b_bad, edges, 3000)
    assert loss_bad > eps + 5.5 * se_bad


def test_privacy_add_remove_reaches_epsilon_and_no_more():
    x = [0] * 3 + [1] * 5
    x2 = x + [0]  # one more record, of grade 0
    eps, trials = 1.0, 200_000
    a = releases(x, eps, "add_remove", trials, 1)[:, 0]   # the a_bad of the replace-one test above (one draw)
    b = releases(x2, eps, "add_remove", trials, 4)[:, 0]
    ca, _ = np.histogram(a, np.linspace(-2, 8, 21))
    cb, _ = np.histogram(b, np.linspace(-2, 8, 21))
    ok = (ca >= 3000) & (cb >= 3000)
    r = np.abs(np.log(ca[ok] / cb[ok]))
    i = int(np.argmax(r))
    se = math.sqrt(1 / ca[ok][i] + 1 / cb[ok][i])
    assert eps - 5.5 * se <= r[i] <= eps + 5.5 * se
    # the other coordinates do not move: their outputs have the same law (KS two-sample at 1e-6)
    a1 = releases(x, eps, "add_remove", 20_000, 5)[:, 1]
    b1 = releases(x2, eps, "add_remove", 20_000, 6)[:, 1]
    assert stats.ks_2samp(a1, b1).pvalue > ALPHA


def test_largest_error_respects_the_bound():
    k, eps, beta, trials = 300, 0.5, 0.05, 4000
    noise = laplace_mechanism(np.zeros((trials, k)), histogram_sensitivity("replace_one"), eps, rng=12)
    bound = dpcourse.laplace_max_error_bound(k, 2 / eps, beta)
    failures = int((np.abs(noise).max(axis=1) > bound).sum())
    exact = dpcourse.laplace_max_error_tail(bound, k, 2 / eps)
    assert exact <= beta
    # failures ~ Binomial(trials, exact): inside the two-sided 1e-6 interval
    lo, hi = stats.binom.ppf([ALPHA / 2, 1 - ALPHA / 2], trials, exact)
    assert lo <= failures <= hi


BAD = [
    (dict(data=list("ABX")), ValueError, "declared categories"),
    (dict(data=[1.0, math.nan], categories=[1.0, 2.0]), ValueError, "finite"),
    (dict(data=[True, False], categories=[0, 1]), TypeError, "booleans"),
    (dict(data=[1, 2], categories=GRADES), TypeError, "both be numbers or both strings"),
    (dict(data="ABC"), TypeError, "string"),
    (dict(data=[["A"]]), ValueError, "1-d"),
    (dict(categories=list("AAB")), ValueError, "repeat"),
    (dict(categories=[]), ValueError, "non-empty"),
    (dict(categories="ABC"), TypeError, "string"),
    (dict(categories=[True, False]), TypeError, "booleans"),
    (dict(categories=None), ValueError, "exactly one"),
    (dict(bins=[0, 1]), ValueError, "exactly one"),
    (dict(data=[0.5], categories=None, bins=[0, 2, 1]), ValueError, "strictly increasing"),
    (dict(data=[0.5], categories=None, bins=[0]), ValueError, "at least 2"),
    (dict(data=[0.5], categories=None, bins=[0, math.inf]), ValueError, "finite"),
    (dict(data=[math.inf], categories=None, bins=[0, 1]), ValueError, "finite"),
    (dict(relation="bounded"), ValueError, "relation must be one of"),
    (dict(relation=1), TypeError, "relation must be one of"),
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(epsilon=math.nan), ValueError, "epsilon"),
    (dict(epsilon=True), TypeError, "epsilon"),
    (dict(rng=-3), ValueError, "rng"),
]


@pytest.mark.parametrize("kwargs, exc, match", BAD)
def test_bad_arguments(kwargs, exc, match):
    args = dict(data=list("ABA"), epsilon=1.0, relation="add_remove", categories=GRADES, bins=None, rng=0)
    args.update(kwargs)
    data, eps = args.pop("data"), args.pop("epsilon")
    with pytest.raises(exc, match=match):
        dp_histogram(data, eps, **args)


def test_relation_is_required():
    with pytest.raises(TypeError, match="relation"):
        dp_histogram(list("AB"), 1.0, categories=GRADES)


# ---------------------------------------------------------------- checker and figures


def reference(data, categories, epsilon, relation, rng):
    counts = exact_histogram(data, categories=categories)
    return laplace_mechanism(counts, 1.0 if relation == "add_remove" else 2.0, epsilon, rng=rng)


def test_checker_accepts_the_reference():
    result = check_my_dp_histogram(reference)
    assert result.passed, result.message


@pytest.mark.parametrize("wrong, hint", [
    (lambda d, c, e, r, g: laplace_mechanism(exact_histogram(d, categories=c), 1.0, e, rng=g), "too little noise"),
    (lambda d, c, e, r, g: laplace_mechanism(exact_histogram(d, categories=c), 2.0, e, rng=g), "too much noise"),
    (lambda d, c, e, r, g: laplace_mechanism(exact_histogram(d, categories=c), e, 1.0, rng=g), "too"),
    (lambda d, c, e, r, g: laplace_mechanism(np.bincount(np.unique(d, return_inverse=True)[1], minlength=c.size),
                                             1.0 if r == "add_remove" else 2.0, e, rng=g), "order"),
    (lambda d, c, e, r, g: exact_histogram(d, categories=c), "exact"),
    (lambda d, c, e, r, g: np.round(reference(d, c, e, r, g)), "whole numbers"),
    (lambda d, c, e, r, g: reference(d, c, e, r, g)[:-1], "one noisy count per category"),
    (lambda d, c, e, r, g: "counts", "array of numbers"),
    (lambda d, c, e, r, g: reference(d[np.isin(d, c)], c, e, r, g), "silently accepted"),
    (lambda d, c, e, r, g: 1 / 0, "ZeroDivisionError"),
    (lambda d, c, e, r, g: np.zeros(len(c)), "same value for every category"),
])
def test_checker_hints(wrong, hint):
    result = check_my_dp_histogram(wrong)
    assert not result.passed and hint in result.message, (hint, result.message)


def test_figures_draw():
    fig = figs.plot_noisy_histogram(list("AABCF"), GRADES, 1.0, "replace_one", rng=0)
    assert isinstance(fig, plt.Figure)
    ks = [1, 10, 100]
    sim = figs.max_error_quantiles(ks, 1.0, "add_remove", n_trials=200, rng=0)
    assert sim.shape == (3,) and np.all(np.diff(sim) > 0)
    assert isinstance(figs.plot_max_error_vs_k(ks, sim, 1.0, "add_remove"), plt.Figure)
    w = figs.histogram_widget(list("AABCF"), GRADES)
    assert "relation" in [getattr(c, "description", "") for c in w.children]
    plt.close("all")


def test_one_record_changes_by_hand():
    # a record B added: one bin (l1 1); a D replaced by a B: two bins (l1 2); the 5 overlapping counts
    # "A to c" (c = A..F): every count from "A to B" on includes the new B (l1 4), not the count "A".
    ch = figs.one_record_changes(GRADES, added="B", removed="D")
    assert ch["add"].tolist() == [0, 1, 0, 0, 0]
    assert ch["replace"].tolist() == [0, 1, 0, -1, 0]
    assert ch["overlapping"].tolist() == [0, 1, 1, 1, 1]
    assert figs.one_record_changes(GRADES, added="C", removed="C")["replace"].tolist() == [0] * 5
    # the histogram's changes are what exact_histogram gives on the neighbouring datasets themselves
    x = list("AABDDF")
    h = exact_histogram(x, categories=GRADES)
    assert np.array_equal(exact_histogram(x + ["B"], categories=GRADES) - h, ch["add"])
    assert np.array_equal(exact_histogram(["B" if r == "D" and i == 3 else r for i, r in enumerate(x)],
                                          categories=GRADES) - h, ch["replace"])
    assert np.array_equal(np.cumsum(exact_histogram(x + ["B"], categories=GRADES)) - np.cumsum(h), ch["overlapping"])
    # the l1 changes of the histogram are its sensitivities under the two relations (lem-hist-sensitivity)
    assert np.abs(ch["add"]).sum() == histogram_sensitivity("add_remove")
    assert np.abs(ch["replace"]).sum() == histogram_sensitivity("replace_one")
    with pytest.raises(ValueError, match="added must be one of the categories"):
        figs.one_record_changes(GRADES, added="E", removed="A")
    with pytest.raises(ValueError, match="at least 2 distinct"):
        figs.one_record_changes(["A", "A"], added="A", removed="A")


def test_one_record_figure_shows_the_l1_changes():
    fig = figs.plot_one_record(list("AABCF"), GRADES, added="A", removed="C")
    titles = [ax.get_title() for ax in fig.axes]
    assert [t.split("change ")[-1] for t in titles] == ["1", "2", "5"], titles
    plt.close(fig)
