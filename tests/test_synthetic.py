"""Tests of dpcourse.synthetic (chapter "Synthetic data from noisy marginals")."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dpcourse
from dpcourse import synthetic as S

ALPHA = 1e-6


def _consistent_tree(seed=0, hub=1):
    """A random star-shaped tree model on domain (2, 3, 4, 2) centred on ``hub``: consistent marginals.

    With hub = 2 and the root 0, attribute 2 is the parent of 1 (a parent with a larger index)."""
    gen = np.random.default_rng(seed)
    dom = (2, 3, 4, 2)
    edges = [tuple(sorted((a, hub))) for a in range(4) if a != hub]
    ph = gen.dirichlet(np.ones(dom[hub]))
    q = {}
    for (i, j) in edges:
        other = j if i == hub else i
        cond = gen.dirichlet(np.ones(dom[other]), size=dom[hub])   # P(x_other | x_hub)
        t = ph[:, None] * cond
        q[(i, j)] = t if i == hub else t.T
    p = {hub: ph}
    for (i, j), t in q.items():
        p[i], p[j] = t.sum(axis=1), t.sum(axis=0)
    return dom, edges, p, q


@pytest.mark.parametrize("hub", [1, 2])
def test_tree_joint_reproduces_consistent_marginals_exactly(hub):
    dom, edges, p, q = _consistent_tree(hub=hub)
    joint = S.tree_joint(p, q, edges, dom)
    assert joint.sum() == pytest.approx(1.0, abs=1e-14)
    for (i, j), t in q.items():
        axes = tuple(a for a in range(4) if a not in (i, j))
        np.testing.assert_allclose(joint.sum(axis=axes), t, atol=1e-15)
    for a, v in p.items():
        np.testing.assert_allclose(joint.sum(axis=tuple(b for b in range(4) if b != a)), v, atol=1e-15)


def test_tree_joint_has_maximum_entropy_among_distributions_with_those_marginals():
    dom, edges, p, q = _consistent_tree(1)
    joint = S.tree_joint(p, q, edges, dom)
    # perturb along a direction that keeps every edge marginal: a +-e on a 2x2 "square" in (x0, x2) given x1, x3
    other = joint.copy()
    e = 0.2 * min(joint[0, 0, 0, 0], joint[1, 0, 1, 0], joint[0, 0, 1, 0], joint[1, 0, 0, 0])
    other[0, 0, 0, 0] += e
    other[1, 0, 1, 0] += e
    other[0, 0, 1, 0] -= e
    other[1, 0, 0, 0] -= e
    for (i, j), t in q.items():
        axes = tuple(a for a in range(4) if a not in (i, j))
        np.testing.assert_allclose(other.sum(axis=axes), t, atol=1e-15)
    ent = lambda r: -float(np.sum(r[r > 0] * np.log(r[r > 0])))
    assert ent(other) < ent(joint)


@pytest.mark.parametrize("hub", [1, 2])
def test_sampled_records_follow_the_tree_model_chi_square(hub):
    dom, edges, p, q = _consistent_tree(2, hub)
    n = 200_000
    rec = S.sample_tree(p, q, edges, dom, n, rng=3)
    counts = np.zeros(dom)
    np.add.at(counts, tuple(rec.T), 1)
    expected = n * S.tree_joint(p, q, edges, dom)
    assert stats.chisquare(counts.ravel(), expected.ravel()).pvalue > ALPHA


def test_sampler_catches_a_wrong_conditional():
    """The chi-square test has power: records from the independent model fail it."""
    dom, edges, p, q = _consistent_tree(2)
    rec = S.sample_tree(p, q, [], dom, 200_000, rng=3)
    counts = np.zeros(dom)
    np.add.at(counts, tuple(rec.T), 1)
    expected = 200_000 * S.tree_joint(p, q, edges, dom)
    assert stats.chisquare(counts.ravel(), expected.ravel()).pvalue < ALPHA


def test_fit_makes_noisy_marginals_consistent_and_keeps_exact_ones():
    dom, edges, p, q = _consistent_tree(4)
    n = 1000.0
    one = {a: n * v for a, v in p.items()}
    two = {e: n * t for e, t in q.items()}
    pf, qf, n_hat = S.fit_tree_marginals(one, two, dom)
    assert n_hat == pytest.approx(n)
    for a in p:
        np.testing.assert_allclose(pf[a], p[a], atol=1e-12)
    for e in q:      # exact, positive inputs: only the TREE_MIX mixing moves them
        np.testing.assert_allclose(qf[e], q[e], atol=2 * S.TREE_MIX)
    gen = np.random.default_rng(5)
    noisy_one = {a: v + gen.normal(0, 30, v.shape) for a, v in one.items()}
    noisy_two = {e: t + gen.normal(0, 30, t.shape) for e, t in two.items()}
    pf, qf, _ = S.fit_tree_marginals(noisy_one, noisy_two, dom, sigma_one=30, sigma_two=30)
    for (i, j), t in qf.items():
        assert (t >= 0).all()
        np.testing.assert_allclose(t.sum(axis=1), pf[i], atol=1e-10)
        np.testing.assert_allclose(t.sum(axis=0), pf[j], atol=1e-10)
    for a in pf:
        assert (pf[a] >= 0).all() and pf[a].sum() == pytest.approx(1.0)


def test_project_simplex_exact_values():
    np.testing.assert_allclose(S.project_simplex([0.5, 0.5, -1.0]), [0.5, 0.5, 0.0])
    np.testing.assert_allclose(S.project_simplex([2.0, 0.0]), [1.0, 0.0])
    np.testing.assert_allclose(S.project_simplex([0.3, 0.3, 0.3]), [1 / 3] * 3)


def test_max_spanning_tree_exact():
    w = {(0, 1): 5.0, (0, 2): 1.0, (1, 2): 4.0, (0, 3): 0.5, (1, 3): 0.2, (2, 3): 3.0}
    assert S.max_spanning_tree(w, 4) == [(0, 1), (1, 2), (2, 3)]


def test_private_selection_is_the_maximum_spanning_tree_on_exact_inputs_at_large_rho():
    """With a huge budget the exponential mechanism picks Kruskal's choice every round."""
    gen = np.random.default_rng(6)
    dom = (3, 3, 3, 3, 3)
    x = np.zeros((4000, 5), dtype=np.int64)
    x[:, 0] = gen.integers(0, 3, 4000)
    x[:, 1] = (x[:, 0] + (gen.random(4000) < 0.1)) % 3          # strongly tied to 0
    x[:, 2] = (x[:, 1] + (gen.random(4000) < 0.3)) % 3          # tied to 1
    x[:, 3] = gen.integers(0, 3, 4000)
    x[:, 4] = (x[:, 3] + (gen.random(4000) < 0.2)) % 3          # tied to 3
    rel = dpcourse.mst_synthesize(x, dom, 1e5, rng=7)
    n0 = rel.n_hat
    score = {e: float(np.abs(S.marginal(x, dom, e) - n0 * np.outer(rel.p[e[0]], rel.p[e[1]])).sum())
             for e in itertools.combinations(range(5), 2)}
    # the p of the release includes the two-way measurements; scores from the one-way fit differ by noise
    # of order 1e-2 here, far below the gaps between the scores of these strongly dependent pairs
    assert sorted(rel.edges) == sorted(S.max_spanning_tree(score, 5))


def test_budget_constants_add_remove_and_replace():
    d, rho = 5, 0.6
    b = dpcourse.mst_budget(rho, d)
    assert b.l2_one_way == pytest.approx(math.sqrt(5)) and b.l2_two_way == pytest.approx(2.0)
    assert b.utility_sensitivity == 1.0
    assert float(b.sigma_one_way) >= math.sqrt(5 / (2 * 0.2)) > float(b.sigma_one_way) - 2e-6
    assert float(b.sigma_two_way) >= math.sqrt(4 / (2 * 0.2)) > float(b.sigma_two_way) - 2e-6
    assert b.epsilon_select == pytest.approx(math.sqrt(8 * 0.2 / 4))
    assert sum(b.rho_parts) <= rho and sum(b.rho_parts) == pytest.approx(rho, rel=1e-5)
    r = dpcourse.mst_budget(rho, d, relation="replace_one")
    assert r.l2_one_way == pytest.approx(math.sqrt(10)) and r.utility_sensitivity == 2.0
    assert float(r.sigma_one_way) == pytest.approx(math.sqrt(2) * float(b.sigma_one_way), rel=1e-5)
    ind = dpcourse.mst_budget(rho, d, independent=True)
    assert float(ind.sigma_one_way) == pytest.approx(math.sqrt(5 / (2 * 0.6)), rel=1e-5)
    assert sum(ind.rho_parts) <= rho
    assert isinstance(b.sigma_one_way, Fraction)


def _noise(relation, rho, seed, step):
    """Noise of one measurement step over a few releases on empty data (every true count is 0)."""
    x = np.zeros((0, 2), dtype=np.int64)
    if step == "one_way":      # independent: all of rho on 2 x 1000 one-way cells
        rels = [dpcourse.independent_synthesize(x, (1000, 1000), rho, relation=relation, rng=s)
                for s in range(seed, seed + 3)]
        return np.concatenate([np.concatenate([r.one_way[0], r.one_way[1]]) for r in rels]).astype(float)
    rels = [dpcourse.mst_synthesize(x, (40, 50), rho, relation=relation, rng=s) for s in range(seed, seed + 3)]
    return np.concatenate([r.two_way[(0, 1)].ravel() for r in rels]).astype(float)


@pytest.mark.parametrize("relation, factor", [("add_remove", 1), ("replace_one", 2)])
def test_measurement_noise_has_the_stated_variance(relation, factor):
    """Behavioural check of the sensitivities and the rho -> sigma map (chi-square test of the variance at
    alpha 1e-6; the discrete Gaussian's variance is within 1e-10 of sigma^2 for sigma >= 2): d = 2 one-way
    marginals have squared l2 sensitivity 2 * factor, the one two-way marginal factor."""
    rho = 0.01
    for step, var in (("one_way", 2 * factor / (2 * rho)), ("two_way", factor / (2 * rho / 3))):
        z = _noise(relation, rho, 0, step)
        stat = float(np.sum(z**2)) / var
        assert stats.chi2.ppf(ALPHA / 2, z.size) < stat < stats.chi2.ppf(1 - ALPHA / 2, z.size), step


def test_release_records_and_fields():
    x, dom, _ = S.affairs_categorical()
    rel = dpcourse.mst_synthesize(x, dom, 1.0, rng=0)
    assert rel.records.shape[1] == 7 and len(rel.edges) == 6
    assert len(S._check_tree(7, rel.edges)) == 6
    assert all(((rel.records[:, j] >= 0) & (rel.records[:, j] < dom[j])).all() for j in range(7))
    assert abs(rel.records.shape[0] - 601) < 30
    again = dpcourse.mst_synthesize(x, dom, 1.0, rng=0)
    np.testing.assert_array_equal(rel.records, again.records)
    err = dpcourse.marginal_errors(x, rel.records, dom, 2)
    assert err.shape == (21,) and (err >= 0).all() and (err <= 2).all()
    assert dpcourse.marginal_errors(x, x, dom, 3).max() == 0.0


def test_marginal_errors_with_histogram_equals_records():
    x, dom, _ = S.affairs_categorical()
    h = np.zeros(dom)
    np.add.at(h, tuple(x.T), 1)
    np.testing.assert_allclose(dpcourse.marginal_errors(x, h, dom, 2, synthetic_is_histogram=True), 0.0, atol=1e-12)
    y = x.copy()
    y[:, 0] = 1 - y[:, 0]
    np.testing.assert_allclose(dpcourse.marginal_errors(x, y, dom, 1)[0], 2 * abs(451 - 150) / 601)


def test_out_of_domain_codes_are_clamped_not_refused():
    dom = (2, 3)
    a = dpcourse.mst_synthesize([[5, -1], [0, 2]], dom, 1.0, rng=3)
    b = dpcourse.mst_synthesize([[1, 0], [0, 2]], dom, 1.0, rng=3)
    np.testing.assert_array_equal(a.records, b.records)
    c = dpcourse.mst_synthesize(np.array([[10**400, -(10**400)], [0, 2]], dtype=object), dom, 1.0, rng=3)
    np.testing.assert_array_equal(a.records, c.records)   # a finite value of any size is clamped, not refused
    dpcourse.mst_synthesize(np.zeros((0, 2)), dom, 1.0, rng=3)      # empty data is a dataset too


@pytest.mark.parametrize("bad", [[[np.nan, 0]], [[0.5, 0]], [[np.inf, 1]]])
def test_broken_contract_refused_without_data_in_message(bad):
    with pytest.raises(ValueError) as info:
        dpcourse.mst_synthesize(bad, (2, 2), 1.0, rng=0)
    assert "nan" not in str(info.value).lower().replace("no nan", "") and "0.5" not in str(info.value)


@pytest.mark.parametrize("kwargs, word", [({"rho": 0.0}, "rho"), ({"rho": float("nan")}, "rho"),
                                          ({"rho": 1e-30}, "rho"), ({"domain": (2,)}, "domain"),
                                          ({"domain": (2, 0)}, "domain"), ({"domain": (2, 5000)}, "domain"),
                                          ({"relation": "bounded"}, "relation"), ({"n_records": -1}, "n_records")])
def test_bad_public_parameters_named(kwargs, word):
    args = {"data": [[0, 1]], "domain": (2, 2), "rho": 1.0}
    args.update(kwargs)
    n_rec = args.pop("n_records", None)
    rel = args.pop("relation", "add_remove")
    with pytest.raises((ValueError, TypeError), match=word):
        dpcourse.mst_synthesize(args["data"], args["domain"], args["rho"], n_records=n_rec, relation=rel, rng=0)


def test_zcdp_accounting_of_the_pipeline():
    """The rho parts add up to at most rho, and the (epsilon, delta) conversion is the course's."""
    b = dpcourse.mst_budget(0.3, 7, relation="replace_one")
    assert b.rho_parts[1] == pytest.approx(6 * b.epsilon_select**2 / 8)
    assert b.rho_parts[0] == pytest.approx(14 / (2 * float(b.sigma_one_way) ** 2))
    assert b.rho_parts[2] == pytest.approx(12 / (2 * float(b.sigma_two_way) ** 2))
    assert sum(b.rho_parts) <= 0.3
    assert dpcourse.zcdp_epsilon(sum(b.rho_parts), 1e-6) <= dpcourse.zcdp_epsilon(0.3, 1e-6)


@pytest.mark.parametrize("relation, sens", [("add_remove", 1.0), ("replace_one", 2.0)])
def test_selection_calls_the_exponential_mechanism_with_the_budget(monkeypatch, relation, sens):
    """Every selection round uses the score sensitivity of the relation and the per-round epsilon."""
    calls = []
    real = S.exponential_mechanism

    def spy(utilities, sensitivity, epsilon, **kw):
        calls.append((sensitivity, epsilon))
        return real(utilities, sensitivity, epsilon, **kw)

    monkeypatch.setattr(S, "exponential_mechanism", spy)
    dpcourse.mst_synthesize([[0, 1, 2, 0]] * 20, (2, 3, 3, 2), 0.6, relation=relation, rng=0)
    b = dpcourse.mst_budget(0.6, 4, relation=relation)
    assert calls == [(sens, b.epsilon_select)] * 3


def test_compare_methods():
    gen = np.random.default_rng(8)
    x = gen.integers(0, 2, (300, 3))
    x[:, 1] = x[:, 0]                                   # a strong pair
    res = S.compare_methods(x, (2, 2, 2), [1.0, 1000.0], rng=9)
    assert res["rho"].shape == (2,) and res["rho"][0] < res["rho"][1]
    for m in ("mst", "independent", "mwem"):
        assert res[m][2].shape == (2, 3) and res[m][3].shape == (2, 1)
        assert ((res[m][2] >= 0) & (res[m][2] <= 2)).all()
    # at a huge budget MST measures the strong pair and the independent model cannot
    assert res["mst"][2][1, 0] < 0.1 < res["independent"][2][1, 0]


def test_whole_codes_of_any_size_and_the_empty_list_release():
    """A whole-number code of any size is clamped, never refused (an error for x and a release for its
    neighbour would tell them apart): 2**53 + 1 and 10**400 as Python ints, Fraction(10**400), -2**63 - 1 in
    a plain list;
    and ``[]`` is the empty data set."""
    dom = (3, 4)
    top = dpcourse.mst_synthesize([[2, 0], [0, 1]], dom, 1.0, rng=4).records
    for big in (2**53 + 1, 10**400, Fraction(10**400)):
        got = dpcourse.mst_synthesize(np.array([[big, 0], [0, 1]], dtype=object), dom, 1.0, rng=4).records
        np.testing.assert_array_equal(got, top)
    np.testing.assert_array_equal(dpcourse.mst_synthesize([[-2**63 - 1, 0], [0, 1]], dom, 1.0, rng=4).records,
                                  dpcourse.mst_synthesize([[0, 0], [0, 1]], dom, 1.0, rng=4).records)
    np.testing.assert_array_equal(dpcourse.independent_synthesize([], dom, 1.0, rng=4).records,
                                  dpcourse.independent_synthesize(np.zeros((0, 2)), dom, 1.0, rng=4).records)


def _spy_selection(monkeypatch):
    calls = []
    real = S.exponential_mechanism

    def spy(utilities, sensitivity, epsilon, **kwargs):
        calls.append((np.asarray(utilities, dtype=float), sensitivity, epsilon))
        return real(utilities, sensitivity, epsilon, **kwargs)

    monkeypatch.setattr(S, "exponential_mechanism", spy)
    return calls


@pytest.mark.parametrize("relation, c", [("add_remove", 1), ("replace_one", 2)])
def test_each_selection_round_is_eps_bounded_range_on_neighbours(relation, c, monkeypatch):
    """Lemma syn-lem-br as run: each round's law (from the sensitivity and epsilon the code passes) on the data
    and on every neighbour tried, with the scores recomputed here from the released one-way counts, has
    log-ratio range at most epsilon_select = sqrt(8 (rho/3) / (d - 1)). Fails if the exponential mechanism
    gets sensitivity 1 under replace one record, or a larger epsilon."""
    calls = _spy_selection(monkeypatch)
    gen = np.random.default_rng(11)
    dom, rho = (3, 2, 4, 2), 1.0
    x = np.column_stack([gen.integers(0, k, 30) for k in dom])
    rel = dpcourse.mst_synthesize(x, dom, rho, relation=relation, rng=12)
    eps_sel = math.sqrt(8 * (rho / 3) / (len(dom) - 1))
    totals = np.array([float(np.sum(rel.one_way[a])) for a in range(4)])
    n0 = float(np.sum(totals / np.array(dom)) / np.sum(1 / np.array(dom)))   # inverse-variance weights
    p0 = {a: S.project_simplex(np.asarray(rel.one_way[a], dtype=float) / n0) for a in range(4)}

    def score(data, e):
        return float(np.abs(S.marginal(data, dom, e) - n0 * np.outer(p0[e[0]], p0[e[1]])).sum())

    if relation == "add_remove":
        nbrs = [np.vstack([x, [r]]) for r in itertools.product(*(range(k) for k in dom))]
        nbrs += [np.delete(x, i, axis=0) for i in range(len(x))]
    else:
        nbrs = []
        for i in range(0, len(x), 6):                            # 5 records, each replaced by every value
            for r in itertools.product(*(range(k) for k in dom)):
                y = x.copy()
                y[i] = r
                nbrs.append(y)
    pairs = list(itertools.combinations(range(4), 2))
    comp, worst = list(range(4)), 0.0
    assert len(calls) == 3
    for (u_code, sens, eps), (i, j) in zip(calls, rel.edges):
        cands = [e for e in pairs if comp[e[0]] != comp[e[1]]]
        u_x = np.array([score(x, e) for e in cands])
        np.testing.assert_allclose(u_code, u_x, atol=len(cands) * 40 / S.SCORE_GRID)   # the exact grid score
        assert eps == pytest.approx(eps_sel, rel=1e-12)
        u_y = np.array([[score(y, e) for e in cands] for y in nbrs])
        log_ratio = eps * (u_x[None, :] - u_y) / (2 * sens)       # normalising constants cancel in the range
        worst = max(worst, float((log_ratio.max(axis=1) - log_ratio.min(axis=1)).max()))
        old, new = comp[i], comp[j]
        comp = [new if v == old else v for v in comp]
    assert worst <= eps_sel * (1 + 1e-9)
    assert worst >= 0.5 * eps_sel          # the neighbours tried do move the scores


def test_selection_score_moves_by_at_most_its_sensitivity_exactly():
    """The score is exact: adding one record to any cell moves it by at most 1, with no rounding excess (a
    float sum of |M - T| moved by 1 + 1e-13 on some of these tables)."""
    gen = np.random.default_rng(3)
    worst = 0.0
    for _ in range(120):
        shape = tuple(int(k) for k in gen.integers(2, 12, 2))
        counts = gen.multinomial(int(gen.integers(1, 5000)), gen.dirichlet(np.ones(shape[0] * shape[1]))).reshape(shape)
        model = float(counts.sum() + gen.normal(0, 30)) * np.outer(gen.dirichlet(np.ones(shape[0])),
                                                                    gen.dirichlet(np.ones(shape[1])))
        base = S._selection_score(counts, model)
        for cell in itertools.product(range(shape[0]), range(shape[1])):
            plus = counts.copy()
            plus[cell] += 1
            worst = max(worst, abs(S._selection_score(plus, model) - base))
    assert worst == 1.0


# ---------------------------------------------------------------------------------------------------
# Issue 35: released shapes and budgets recomputed independently, the input contract, the tree theorem


def _brute_marginal(rows, dom, attrs):
    """A marginal by adding 1 per record at its cell (np.add.at; independent of S.marginal's ravel/bincount)."""
    table = np.zeros([dom[a] for a in attrs], dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, len(dom))
    np.add.at(table, tuple(rows[:, a] for a in attrs), 1)
    return table


def _spy_measurements(monkeypatch):
    calls = []
    real = S._measure

    def spy(table, sigma, gen):
        calls.append((np.array(table), sigma))
        return real(table, sigma, gen)

    monkeypatch.setattr(S, "_measure", spy)
    return calls


def _neighbours(x, dom, relation, every=6):
    if relation == "add_remove":
        return ([np.vstack([x, [r]]) for r in itertools.product(*(range(k) for k in dom))]
                + [np.delete(x, i, axis=0) for i in range(len(x))])
    out = []
    for i in range(0, len(x), every):
        for r in itertools.product(*(range(k) for k in dom)):
            y = x.copy()
            y[i] = r
            out.append(y)
    return out


@pytest.mark.parametrize("relation, dom", [("add_remove", (3, 2, 4, 2)), ("replace_one", (3, 2, 4, 2)),
                                           ("replace_one", (2, 2, 2, 2))])
def test_rho_spent_recomputed_from_the_released_events_on_neighbours(relation, dom, monkeypatch):
    """Theorem syn-thm-privacy, checked on the run itself: the marginals measured are the d one-way tables and
    exactly the selected pairs (brute-force counts), and on every neighbour tried the zCDP cost of what was
    released, sum ||M_S(x) - M_S(y)||^2 / (2 sigma^2) over the measured tables with the sigma the sampler got,
    plus (range of each selection round's log-ratio)^2 / 8, is at most rho; the Gaussian part is attained. (On
    the domain (2, 2, 2, 2) every table of a step has one shape: a table measured for the wrong attributes is
    caught by its counts, not by its shape.)"""
    measured = _spy_measurements(monkeypatch)
    rounds = _spy_selection(monkeypatch)
    gen = np.random.default_rng(21)
    rho, d = 0.9, 4
    x = np.column_stack([gen.integers(0, k, 30) for k in dom])
    rel = dpcourse.mst_synthesize(x, dom, rho, relation=relation, rng=22)
    attrs = [(a,) for a in range(d)] + list(rel.edges)
    assert len(measured) == 2 * d - 1 and len(rounds) == d - 1
    assert sorted(rel.one_way) == list(range(d)) and list(rel.two_way) == list(rel.edges)
    for (table, _), s in zip(measured, attrs):
        np.testing.assert_array_equal(table, _brute_marginal(x, dom, s))
    for a in range(d):
        assert rel.one_way[a].shape == (dom[a],)
    for (i, j) in rel.edges:
        assert rel.two_way[(i, j)].shape == (dom[i], dom[j])
    # the scores of each round, recomputed from the released one-way counts (as in the test above)
    totals = np.array([float(np.sum(rel.one_way[a])) for a in range(d)])
    n0 = float(np.sum(totals / np.array(dom)) / np.sum(1 / np.array(dom)))
    p0 = {a: S.project_simplex(np.asarray(rel.one_way[a], dtype=float) / n0) for a in range(d)}

    def score(data, e):
        return float(np.abs(_brute_marginal(data, dom, e) - n0 * np.outer(p0[e[0]], p0[e[1]])).sum())

    pairs = list(itertools.combinations(range(d), 2))
    comp, cands_per_round = list(range(d)), []
    for (i, j) in rel.edges:
        cands_per_round.append([e for e in pairs if comp[e[0]] != comp[e[1]]])
        old, new = comp[i], comp[j]
        comp = [new if v == old else v for v in comp]
    worst_gauss, worst_total = 0.0, 0.0
    at_x = {s: _brute_marginal(x, dom, s) for s in attrs}
    score_x = {e: score(x, e) for e in pairs}
    for y in _neighbours(x, dom, relation):
        gauss = sum(float(np.sum((at_x[s] - _brute_marginal(y, dom, s)) ** 2))
                    / (2 * float(sigma) ** 2) for (_, sigma), s in zip(measured, attrs))
        select = 0.0
        for (_, sens, eps), cands in zip(rounds, cands_per_round):
            diff = np.array([score_x[e] - score(y, e) for e in cands]) * eps / (2 * sens)
            select += (diff.max() - diff.min()) ** 2 / 8
        worst_gauss, worst_total = max(worst_gauss, gauss), max(worst_total, gauss + select)
    assert worst_total <= rho
    assert 2 * rho / 3 * (1 - 1e-5) <= worst_gauss <= 2 * rho / 3


def test_number_of_synthetic_records_is_the_estimate_from_the_released_counts():
    """records has round(n_hat) rows, n_hat the inverse-variance weighted total of the released one-way counts
    (recomputed here), or exactly n_records rows: never the private n (at small rho they differ)."""
    gen = np.random.default_rng(23)
    dom = (3, 2, 4)
    x = np.column_stack([gen.integers(0, k, 500) for k in dom])
    seen = set()
    for fn in (dpcourse.mst_synthesize, dpcourse.independent_synthesize):
        for seed in range(4):
            rel = fn(x, dom, 0.02, rng=seed)
            totals = np.array([float(np.sum(rel.one_way[a])) for a in range(3)])
            n_hat = min(max(float(np.sum(totals / np.array(dom)) / np.sum(1 / np.array(dom))), 1.0), S.MAX_RECORDS)
            assert rel.n_hat == pytest.approx(n_hat, rel=1e-12)
            assert rel.records.shape == (round(n_hat), 3)
            seen.add(rel.records.shape[0])
        for k in (0, 1, 37):
            assert fn(x, dom, 0.02, n_records=k, rng=5).records.shape == (k, 3)
    assert len(seen) > 1 and seen != {500}


def test_noise_is_fresh_across_tables_and_seeds():
    """Every table gets its own draw: two one-way tables of the same size on empty data differ, and another seed
    gives another release; the same seed the same one."""
    empty = np.zeros((0, 3), dtype=np.int64)
    a = dpcourse.mst_synthesize(empty, (50, 50, 50), 0.5, rng=1)
    b = dpcourse.mst_synthesize(empty, (50, 50, 50), 0.5, rng=2)
    assert not np.array_equal(a.one_way[0], a.one_way[1]) and not np.array_equal(a.one_way[1], a.one_way[2])
    assert not np.array_equal(a.one_way[0], b.one_way[0])
    e = a.edges[0]
    assert not np.array_equal(a.two_way[e].ravel()[:50], a.one_way[0])
    again = dpcourse.mst_synthesize(empty, (50, 50, 50), 0.5, rng=1)
    for t in range(3):
        np.testing.assert_array_equal(a.one_way[t], again.one_way[t])


@pytest.mark.parametrize("fn", [dpcourse.mst_synthesize, dpcourse.independent_synthesize])
@pytest.mark.parametrize("bad", [[[np.nan, 0]], [[0.5, 1]], [[np.inf, 0]], [[-np.inf, 1]],
                                 np.array([[0, 1], [0.25, 1]], dtype=object)])
def test_input_contract_refusals_are_documented_and_happen_before_any_draw(fn, bad):
    """Item 4: a record that breaks the input contract (NaN, +-inf, a fraction) is refused, as documented in the
    docstring's Raises section and in the theorem's hypothesis, before any noise is drawn (the generator's state is
    unchanged), with a message that quotes nothing from the data; a whole code of any size is clamped."""
    doc = fn.__doc__
    raises = doc[doc.index("Raises"):] if "Raises" in doc else ""
    target = raises if fn is dpcourse.mst_synthesize else doc
    for word in ("NaN", "inf", "contract"):
        assert word in target, word
    assert "fraction" in target or "non-whole" in target
    gen = np.random.default_rng(3)
    state = gen.bit_generator.state
    with pytest.raises(ValueError, match="whole-number codes") as info:
        fn(bad, (2, 2), 1.0, rng=gen)
    assert gen.bit_generator.state == state
    assert "0.25" not in str(info.value) and "0.5" not in str(info.value)


def _ipf_max_entropy(marginals, dom, sweeps=20):
    """The maximum-entropy distribution with the given marginals ({attrs: table}) by iterative proportional
    fitting from the uniform table (Csiszar 1975): an algorithm independent of the closed form of tree_joint."""
    q = np.full(dom, 1.0 / math.prod(dom))
    d = len(dom)
    for _ in range(sweeps):
        for attrs, target in marginals.items():
            axes = tuple(a for a in range(d) if a not in attrs)
            cur = q.sum(axis=axes)
            ratio = np.divide(target, cur, out=np.zeros_like(cur), where=cur > 0)
            shape = [dom[a] if a in attrs else 1 for a in range(d)]
            q = q * ratio.reshape(shape)
    return q


def test_tree_model_is_the_maximum_entropy_fit_of_edge_and_one_way_marginals_on_a_forest():
    """syn-thm-tree, part 3, on a forest with an attribute on no edge (attribute 3): the model equals the
    maximum-entropy distribution with the edge marginals AND the one-way marginals (found by IPF). Without the
    one-way marginals the statement is false: d = 2, p1 = p2 = (1, 0), no edge: the model is a point mass
    (entropy 0) while the uniform table has the same (no) edge marginals and entropy ln 4."""
    gen = np.random.default_rng(31)
    dom = (2, 3, 2, 3)
    p0 = gen.dirichlet(np.ones(2))
    cond = gen.dirichlet(np.ones(3), size=2)
    q01 = p0[:, None] * cond
    cond2 = gen.dirichlet(np.ones(2), size=3)
    q12 = q01.sum(axis=0)[:, None] * cond2
    p = {0: p0, 1: q01.sum(axis=0), 2: q12.sum(axis=0), 3: gen.dirichlet(np.ones(3))}
    q = {(0, 1): q01, (1, 2): q12}
    edges = [(0, 1), (1, 2)]
    joint = S.tree_joint(p, q, edges, dom)
    ipf = _ipf_max_entropy({(0, 1): q01, (1, 2): q12, (3,): p[3]}, dom)
    np.testing.assert_allclose(joint, ipf, atol=1e-12)
    ent = lambda r: -float(np.sum(r[r > 0] * np.log(r[r > 0])))   # noqa: E731
    # another distribution with the same edge and one-way marginals has less entropy
    other = joint.copy()
    e = 0.3 * min(joint[0, 0, 0, 0], joint[0, 0, 0, 1], joint[1, 0, 0, 0], joint[1, 0, 0, 1])
    other[0, 0, 0, 0] += e
    other[1, 0, 0, 1] += e
    other[0, 0, 0, 1] -= e
    other[1, 0, 0, 0] -= e
    np.testing.assert_allclose(other.sum(axis=(2, 3)), q01, atol=1e-15)
    np.testing.assert_allclose(other.sum(axis=(0, 1, 2)), p[3], atol=1e-15)
    assert ent(other) < ent(joint)
    # the counterexample of the issue: the hypothesis must fix the one-way marginals
    point = S.tree_joint({0: np.array([1.0, 0.0]), 1: np.array([1.0, 0.0])}, {}, [], (2, 2))
    assert ent(point) == 0.0 and ent(np.full((2, 2), 0.25)) == pytest.approx(math.log(4))


# ---------------------------------------------------------------------------------------------------
# MWEM, the third method of compare_methods: its argument check (issue 35, item 18)


def test_mwem_refuses_an_overflowing_total_by_the_histograms_name():
    """A histogram whose total overflows the float range is refused naming `histogram` (it was refused by a
    message about the exponential mechanism's `utilities`, an argument mwem does not have)."""
    q = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1]])
    for h in ([1e308, 1e308, 1.0], [1.7976931348623157e308, 1.7976931348623157e308, 0.0], [10**308, 10**308, 2]):
        with pytest.raises(ValueError, match="histogram") as info, np.errstate(over="ignore"):
            dpcourse.mwem(h, q, 1.0, iterations=2, rng=0)
        assert "utilities" not in str(info.value) and "queries" not in str(info.value)
        assert "1e+308" not in str(info.value)                       # nothing computed from the data
    assert dpcourse.mwem([1.7976931348623157e308, 0.0, 0.0], q, 1.0, iterations=2, rng=0).shape == (3,)


def test_mwem_public_n_is_the_exact_total():
    """n is public under replace one record, so it must be a function of the exact count: [1, 2**53, 1] and
    [1, 1, 2**53] both hold 2**53 + 2 records, and with a query that sees only the first cell the two releases
    are identical (a pairwise float sum gave 2**53 for the first and 2**53 + 2 for the second)."""
    first = dpcourse.mwem([1, 2**53, 1], [[1, 0, 0]], 1.0, iterations=1, output="last", rng=4)
    second = dpcourse.mwem([1, 1, 2**53], [[1, 0, 0]], 1.0, iterations=1, output="last", rng=4)
    np.testing.assert_array_equal(first, second)


def test_rare_code_paths_unsigned_and_huge_fractions():
    """uint64 codes of any size are clamped like int64 ones; a non-whole Fraction beyond the float range breaks
    the contract like 0.5 (refused, nothing quoted)."""
    from fractions import Fraction

    dom = (3, 4)
    want = dpcourse.mst_synthesize([[2, 0], [0, 1]], dom, 1.0, rng=6).records
    got = dpcourse.mst_synthesize(np.array([[2**64 - 1, 0], [0, 1]], dtype=np.uint64), dom, 1.0, rng=6).records
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="whole-number codes") as info:
        dpcourse.mst_synthesize(np.array([[Fraction(10**400 + 1, 2), 0]], dtype=object), dom, 1.0, rng=6)
    assert "10000" not in str(info.value)


# --- Trust II: ragged records must not leak n; exact rho accounting at tiny budgets -----------------------------

@pytest.mark.parametrize("fn", ["mst", "independent", "errors"])
def test_ragged_records_refused_without_quoting_n(fn):
    from dpcourse.synthetic import independent_synthesize, marginal_errors, mst_synthesize
    for n_rows in (7, 4093, 28657):                   # distinctive sizes: no digit of 3 n may appear
        data = [[0, 1], [1, 1], [0]] * n_rows
        with pytest.raises(ValueError) as info:
            if fn == "mst":
                mst_synthesize(data, [2, 2], 1.0, rng=0)
            elif fn == "independent":
                independent_synthesize(data, [2, 2], 1.0, rng=0)
            else:
                marginal_errors(data, [[0, 1]], [2, 2], 1)
        msg = str(info.value)
        assert "inhomogeneous" not in msg and "shape" not in msg
        assert not any(ch.isdigit() for ch in msg), msg
        assert info.value.__context__ is None and info.value.__cause__ is None


def _exact_parts(b, d):
    from fractions import Fraction
    factor = 2 if b.relation == "replace_one" else 1
    parts = [Fraction(factor * d) / (2 * b.sigma_one_way**2)]
    if b.sigma_two_way:
        parts += [(d - 1) * Fraction(b.epsilon_select) ** 2 / 8,
                  Fraction(factor * (d - 1)) / (2 * b.sigma_two_way**2)]
    return parts


def test_mst_budget_exact_spend_never_exceeds_rho():
    from fractions import Fraction
    from dpcourse.synthetic import MST_SPLIT
    cases = [(1.4493870337542714e-22, 19, "replace_one", False), (3.72961910094874e-23, 6, "add_remove", True)]
    rng = np.random.default_rng(20261128)
    for _ in range(1500):
        cases.append((float(10 ** rng.uniform(-24, 3)), int(rng.integers(2, 65)),
                      ["add_remove", "replace_one"][int(rng.integers(2))], bool(rng.integers(2))))
    checked = 0
    for rho, d, rel, ind in cases:
        try:
            b = dpcourse.mst_budget(rho, d, relation=rel, independent=ind)
        except ValueError:
            continue                                   # refused: sigma above MAX_SIGMA
        checked += 1
        parts = _exact_parts(b, d)
        shares = [Fraction(rho)] if ind else [Fraction(s) * Fraction(rho) for s in MST_SPLIT]
        for p, s in zip(parts, shares):
            assert p <= s, (rho, d, rel, ind)
        assert sum(parts) <= Fraction(rho), (rho, d, rel, ind)
    assert checked > 1000


# --- Fresh hostile read (issue 35 closure): codes of any float width, the selection's law as run, the fit's
# weights, a cap on the pairs MST scores ---------------------------------------------------------------------

class _Uniform(np.random.Generator):
    """``random()`` returns ``k / 2**53``; fresh bits (``integers(0, 2**b)``) are all ones or all zeros."""

    def __init__(self, k, ones):
        super().__init__(np.random.PCG64(0))
        self.k, self.ones = k, ones

    def random(self, size=None, dtype=np.float64, out=None):
        shape = () if size is None else (tuple(size) if np.iterable(size) else (size,))
        return np.full(shape, self.k / 2.0**53)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        assert size is None and not endpoint
        if high is None:
            low, high = 0, low
        return int(high) - 1 if self.ones else int(low)


def test_whole_codes_of_any_float_width_in_an_object_array_are_clamped():
    """np.longdouble("1e4000") is a finite whole code: in an object array it was refused as 'NaN, inf or
    fractions' (float() of it is inf) while a neighbour with 2 in its place released. It is clamped as in a
    longdouble array, and a longdouble with a fraction that float() would round away is refused as there."""
    big = np.longdouble("1e4000")
    if not np.isfinite(big):
        pytest.skip("long double is double on this platform")
    dom = (3, 4)
    want = dpcourse.mst_synthesize([[2, 0], [0, 1]], dom, 1.0, rng=8).records
    for row in ([big, -big], [np.float32(7.0), np.float16(-5.0)], [big, 10**400 * -1]):
        got = dpcourse.mst_synthesize(np.array([row, [0, 1]], dtype=object), dom, 1.0, rng=8).records
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        dpcourse.mst_synthesize(np.array([[big, -big], [0, 1]], dtype=np.longdouble), dom, 1.0, rng=8).records, want)
    frac = np.longdouble(2**60) + np.longdouble(0.5)
    if frac != np.floor(frac):                      # 64-bit significand: 2**60 + 0.5 is exact
        for arr in (np.array([[frac, 0]], dtype=object), np.array([[frac, 0]], dtype=np.longdouble)):
            with pytest.raises(ValueError, match="whole-number codes") as info:
                dpcourse.mst_synthesize(arr, dom, 1.0, rng=8)
            assert "1152921504606846976" not in str(info.value)


def test_float_codes_outside_the_domain_are_clamped_not_refused():
    """The float path clamps like the int path (without it a float code of 5.0 reached np.ravel_multi_index and
    raised there, while its neighbour with 2.0 released)."""
    dom = (3, 4)
    want = dpcourse.mst_synthesize([[2, 0], [0, 3]], dom, 1.0, rng=9).records
    for arr in (np.array([[5.0, -1.0], [0.0, 7.0]]), np.array([[1e300, -1e300], [-0.0, 3.0]]),
                np.array([[2.0, -2.0], [0.0, 1e20]], dtype=np.float32)):
        np.testing.assert_array_equal(dpcourse.mst_synthesize(arr, dom, 1.0, rng=9).records, want)
        np.testing.assert_array_equal(dpcourse.independent_synthesize(arr, dom, 1.0, rng=9).records,
                                      dpcourse.independent_synthesize([[2, 0], [0, 3]], dom, 1.0, rng=9).records)


@pytest.mark.parametrize("relation, c", [("add_remove", 1), ("replace_one", 2)])
def test_each_selection_round_draws_from_the_textbook_law(relation, c, monkeypatch):
    """The law each round actually samples, with every argument the pipeline passes: a uniform at the middle of
    candidate r's slot of the CDF of exp(eps u / (2 c)) (eps = sqrt(8 (rho/3) / (d - 1)) and c computed here)
    draws r. Catches weights exp(eps u / c) (monotone=True, a round 2 eps-bounded-range: 4 times the rho
    accounted) as well as a wrong epsilon or sensitivity."""
    real = S.exponential_mechanism
    d, rho = 4, 1.0
    eps = math.sqrt(8 * (rho / 3) / (d - 1))
    checked = []

    def spy(utilities, *args, **kwargs):
        u = np.asarray(utilities, dtype=float)
        w = np.exp(eps * (u - u.max()) / (2 * c))
        cdf = np.concatenate([[0.0], np.cumsum(w) / w.sum()])
        for r in range(u.size):
            if cdf[r + 1] - cdf[r] > 1e-6:
                k = int(0.5 * (cdf[r] + cdf[r + 1]) * 2**53)
                checked.append((real(utilities, *args, **{**kwargs, "rng": _Uniform(k, ones=False)}), r))
        return real(utilities, *args, **kwargs)

    monkeypatch.setattr(S, "exponential_mechanism", spy)
    gen = np.random.default_rng(11)
    dom = (3, 2, 4, 2)
    x = np.column_stack([gen.integers(0, k, 30) for k in dom])
    dpcourse.mst_synthesize(x, dom, rho, relation=relation, rng=12)
    assert len(checked) >= 6
    assert [got for got, _ in checked] == [r for _, r in checked]


def test_every_candidate_of_a_selection_round_stays_possible(monkeypatch):
    """However far its score, a candidate keeps a positive probability (a neighbour's outputs are never
    impossible): with a uniform whose every bit is 1 each round draws its last candidate, whose textbook weight
    e^-gap (gap > 746 here) is 0 in floating point. The float sampler (secure=False) picks the first."""
    real = S.exponential_mechanism
    gaps = []

    def spy(utilities, sensitivity, epsilon, **kwargs):
        u = np.asarray(utilities, dtype=float)
        gaps.append(epsilon * (u.max() - u[-1]) / (2 * sensitivity))
        return real(utilities, sensitivity, epsilon, **{**kwargs, "rng": _Uniform(2**53 - 1, ones=True)})

    monkeypatch.setattr(S, "exponential_mechanism", spy)
    gen = np.random.default_rng(41)
    x = np.zeros((600, 3), dtype=np.int64)
    x[:, 0] = gen.integers(0, 2, 600)
    x[:, 1] = x[:, 0]                                  # the pair (0, 1) is far ahead of the others
    x[:, 2] = gen.integers(0, 2, 600)
    rel = dpcourse.mst_synthesize(x, (2, 2, 2), 100.0, rng=42)
    assert len(gaps) == 2 and min(gaps) > 746
    assert rel.edges == [(1, 2), (0, 2)]


def test_fitted_one_way_is_the_inverse_variance_average_of_its_measurements():
    """Lemma syn-lem-consistency (ii), recomputed: p_a is the projection of the average of the noisy one-way
    counts (variance sigma_1^2 per cell) and of the row sums of the noisy two-way tables holding a (variance
    k sigma_2^2 for a sum of k cells), weighted by inverse variances, divided by n_hat (the inverse-variance
    weighted total of the one-way tables)."""
    dom = (3, 4, 2)
    s1, s2 = 3.0, 5.0
    one = {0: np.array([40.0, 25.0, 35.0]), 1: np.array([20.0, 30.0, 28.0, 24.0]), 2: np.array([47.0, 50.0])}
    two = {(0, 1): np.array([[12.0, 9.0, 6.0, 11.0], [3.0, 8.0, 10.0, 5.0], [4.0, 15.0, 9.0, 7.0]]),
           (1, 2): np.array([[9.0, 14.0], [16.0, 12.0], [13.0, 11.0], [10.0, 12.0]])}
    p, _, n_hat = S.fit_tree_marginals(one, two, dom, sigma_one=s1, sigma_two=s2)
    n_ref = sum(y.sum() / (s1**2 * y.size) for y in one.values()) / sum(1 / (s1**2 * y.size) for y in one.values())
    assert n_hat == pytest.approx(n_ref, rel=1e-13)
    rows = {0: [(two[(0, 1)].sum(axis=1), 4)], 1: [(two[(0, 1)].sum(axis=0), 3), (two[(1, 2)].sum(axis=1), 2)],
            2: [(two[(1, 2)].sum(axis=0), 4)]}
    for a in range(3):
        est = one[a] / s1**2 + sum(r / (k * s2**2) for r, k in rows[a])
        w = 1 / s1**2 + sum(1 / (k * s2**2) for _, k in rows[a])
        v = est / w / n_ref
        v = v - (v.sum() - 1) / v.size                # the projection, when no entry is clipped
        assert (v > 0).all()
        np.testing.assert_allclose(p[a], v, rtol=1e-12)


def test_mst_refuses_a_domain_with_too_many_pair_cells_by_name():
    """MST scores every pair: 7 attributes of 1000 values are 21 million two-way cells (the old code took about
    10 CPU-s and half a GB there, and minutes at 64 such attributes). Refused by the domain's name, at once, before
    any draw; the independent baseline, which scores no pair, still runs."""
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    with pytest.raises(ValueError, match="domain.*MAX_PAIR_CELLS") as info:
        dpcourse.mst_synthesize([[0] * 7], (1000,) * 7, 1.0, rng=gen)
    assert gen.bit_generator.state == state
    assert "21000000" in str(info.value)                   # public: computed from the domain only
    dom = (1000,) * 5 + (2,) * 2                           # 10.0 million pair cells: allowed
    assert (sum(dom) ** 2 - sum(k * k for k in dom)) // 2 <= S.MAX_PAIR_CELLS
    assert dpcourse.independent_synthesize([[0] * 7], (1000,) * 7, 1.0, rng=0).records.shape[1] == 7


def test_measured_tree_figure_draws_the_chosen_pairs_thickest_dependence_and_the_shares():
    """The picture of MST's idea: blue lines are exactly the chosen tree, line widths follow each pair's distance
    from independence in the real records, and the bars are the real and synthetic shares computed by hand."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    from dpcourse.plots import synthetic as figs

    # attribute 1 copies attribute 0 (dependence 1.0 on its l1 scale); attribute 2 is independent of both
    records = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1]] * 5)
    synthetic = np.array([[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 0]])
    edges = [(1, 2), (0, 1)]
    fig = figs.plot_measured_tree(records, (2, 2, 2), edges, ("a", "b", "c"), synthetic=synthetic, pair=(0, 2),
                                  labels={"a": ["a0", "a1"], "b": ["b0", "b1"], "c": ["no", "yes"]})
    ax, bx = fig.axes
    lines = {}
    xs = {k: tuple(np.round(v, 6)) for k, v in enumerate(ax.collections[0].get_offsets())}
    for line in ax.get_lines():
        ends = {tuple(np.round(p, 6)) for p in line.get_xydata()}
        pair = tuple(sorted(k for k, v in xs.items() if v in ends))
        lines[pair] = line
    assert set(lines) == {(0, 1), (0, 2), (1, 2)}
    blue = {p for p, line in lines.items() if to_rgba(line.get_color()) == to_rgba("tab:blue")}
    assert blue == {(0, 1), (1, 2)}
    widths = {p: line.get_linewidth() for p, line in lines.items()}
    assert widths[(0, 1)] == pytest.approx(10.0) and widths[(0, 2)] == pytest.approx(1.0)
    assert widths[(1, 2)] == pytest.approx(1.0)
    heights = [round(r.get_height(), 12) for r in bx.patches]
    # share of c = "yes" for a = 0, 1: real 1/2, 1/2; synthetic 1/2 (of [0,0,1], [0,1,0]) and 1 (of [1,0,1], [1,1,1])
    assert heights == [0.5, 0.5, 0.5, 1.0]
    assert "not measured" in bx.get_title()
    plt.close(fig)


# --- Fresh hostile read (issue 35 closure round 2): the comparison's relation and delta, the classifier's
# features, the exact sigma guard where the float formula falls a grid step short, the fit's mixing -----------

def test_compare_methods_runs_each_method_under_replace_one_at_the_rho_of_its_delta(monkeypatch):
    """compare_methods promises (epsilon, delta)-DP under replace one record for every method: MST and the
    independent baseline at rho_for_epsilon(epsilon, delta) of the *given* delta, MWEM at epsilon. Recorded
    from the releases themselves (their budgets), at a delta other than the default."""
    import dpcourse.query_release as Q

    seen = {"mst": [], "independent": [], "mwem": []}
    real_mst, real_ind, real_mwem = S.mst_synthesize, S.independent_synthesize, Q.mwem

    def spy(name, fn):
        def wrapped(*args, **kwargs):
            rel = fn(*args, **kwargs)
            seen[name].append((rel.budget.relation, rel.budget.rho, len(rel.budget.rho_parts)))
            return rel
        return wrapped

    def spy_mwem(hist, queries, epsilon, **kwargs):
        seen["mwem"].append(epsilon)
        return real_mwem(hist, queries, epsilon, **kwargs)

    monkeypatch.setattr(S, "mst_synthesize", spy("mst", real_mst))
    monkeypatch.setattr(S, "independent_synthesize", spy("independent", real_ind))
    monkeypatch.setattr(Q, "mwem", spy_mwem)
    x = np.random.default_rng(3).integers(0, 2, (60, 3))
    res = S.compare_methods(x, (2, 2, 2), [0.5, 2.0], delta=1e-3, mwem_iterations=2, rng=1)
    want = [S.rho_for_epsilon(e, 1e-3) for e in (0.5, 2.0)]
    assert want[0] > 1.5 * S.rho_for_epsilon(0.5, 1e-6)          # the delta matters at these numbers
    np.testing.assert_array_equal(res["rho"], want)
    assert seen["mst"] == [("replace_one", r, 3) for r in want]
    assert seen["independent"] == [("replace_one", r, 1) for r in want]
    assert seen["mwem"] == [0.5, 2.0]


def test_classifier_accuracy_never_sees_the_target_among_its_features():
    """A target independent of the other columns is predicted at about the majority rate (the label among the
    features would give 1.0); a target that copies another column is predicted perfectly through that column."""
    gen = np.random.default_rng(11)
    train, test = gen.integers(0, 2, (400, 3)), gen.integers(0, 2, (400, 3))
    acc = S.classifier_accuracy(train, test, (2, 2, 2), target=2)
    assert 0.4 < acc < 0.62                                     # 400 coin flips: 0.5 +- 0.06 at 2.4 sigma
    train[:, 2], test[:, 2] = train[:, 0], test[:, 0]
    assert S.classifier_accuracy(train, test, (2, 2, 2), target=2) == 1.0
    one_class = train.copy()
    one_class[:, 1] = 1                                         # one class only: the constant classifier
    assert S.classifier_accuracy(one_class, test, (2, 2, 2), target=1) == float(np.mean(test[:, 1] == 1))


@pytest.mark.parametrize("rho, d, relation, independent, step", [
    (0.000875264376365145, 9, "replace_one", True, 0),
    (0.0011781136666743806, 33, "add_remove", True, 0),
    (0.026543734211634716, 48, "replace_one", False, 0),
    (0.018667687643086874, 49, "replace_one", False, 2),
])
def test_sigma_is_the_smallest_grid_point_where_the_float_formula_falls_a_step_short(rho, d, relation, independent,
                                                                                     step):
    """Cases found by search: the float sigma * 2**20 lands just below an integer m while the exact
    c m_k G^2 / (2 share) is m^2 plus a fraction, so the exact guard must give m + 1 (ceil, not floor, of that
    fraction): the spend is recomputed in rationals, and one grid step lower would overspend the step's share."""
    from dpcourse.synthetic import MST_SPLIT, SIGMA_GRID

    b = dpcourse.mst_budget(rho, d, relation=relation, independent=independent)
    c = 2 if relation == "replace_one" else 1
    m = d if step == 0 else d - 1
    sigma = b.sigma_one_way if step == 0 else b.sigma_two_way
    share = Fraction(rho) if independent else Fraction(MST_SPLIT[step]) * Fraction(rho)
    x = Fraction(c * m * SIGMA_GRID**2) / (2 * share)              # the exact (sigma * G)^2 at the share
    k = sigma * SIGMA_GRID
    assert k.denominator == 1 and math.floor(x) == (k - 1) ** 2 < x   # floor(x) is a square just below x
    assert Fraction(c * m) / (2 * sigma**2) <= share
    assert Fraction(c * m) / (2 * (sigma - Fraction(1, SIGMA_GRID)) ** 2) > share


def test_fit_reaches_the_one_way_margins_when_the_projection_empties_a_row():
    """Lemma syn-lem-consistency: the mixing with p_i x p_j makes the table positive on the supports, so Sinkhorn
    reaches every margin. Here the noisy two-way row of value 1 is all negative (projected to zeros) while the
    one-way counts give value 1 half of the mass: without the mixing that row could never get its mass."""
    one = {0: np.array([50.0, 50.0]), 1: np.array([50.0, 50.0])}
    two = {(0, 1): np.array([[60.0, 40.0], [-200.0, -200.0]])}
    p, q, _ = S.fit_tree_marginals(one, two, (2, 2), sigma_one=1.0, sigma_two=100.0)
    assert (p[0] > 0.49).all() and (p[1] > 0.49).all()
    t = q[(0, 1)]
    assert (t >= 0).all()
    np.testing.assert_allclose(t.sum(axis=1), p[0], atol=1e-12)
    np.testing.assert_allclose(t.sum(axis=0), p[1], atol=1e-12)


def test_classifier_accuracy_refuses_a_target_outside_the_columns():
    """Round 3: target=-3 on seven columns predicted column 4 with column 4 among the features (accuracy 1.0
    reported); bools, floats and 7 gave numpy's unnamed errors; an empty train set an unnamed reduction error."""
    records, domain, _ = S.affairs_categorical()
    train, test = records[:400], records[400:]
    for bad in (-3, -1, 7, 10**20):
        with pytest.raises(ValueError, match="target"):
            S.classifier_accuracy(train, test, domain, bad)
    for bad in (True, 1.0, "4", None):
        with pytest.raises(TypeError, match="target"):
            S.classifier_accuracy(train, test, domain, bad)
    with pytest.raises(ValueError, match="train and test"):
        S.classifier_accuracy(train[:0], test, domain, 4)
    assert S.classifier_accuracy(train, test, domain, np.int64(4)) == S.classifier_accuracy(train, test, domain, 4)


@pytest.mark.parametrize("fn", ["sample_tree", "tree_joint"])
def test_tree_model_functions_refuse_a_p_or_q_that_is_not_a_model(fn):
    """Round 3: sample_tree drew records silently from a NaN, negative, all-zero or short p, and from a NaN,
    negative or transposed q (domain (2, 3) with a (3, 2) table); tree_joint returned NaN cells."""
    dom = (2, 3)
    p = {0: np.array([0.5, 0.5]), 1: np.array([0.3, 0.3, 0.4])}
    t = np.array([[0.2, 0.1, 0.2], [0.1, 0.2, 0.2]])
    call = (lambda p_, q_, e: S.sample_tree(p_, q_, e, dom, 5, rng=0)) if fn == "sample_tree" else \
        (lambda p_, q_, e: S.tree_joint(p_, q_, e, dom))
    call(p, {(0, 1): t}, [(0, 1)])                      # a model: accepted
    call(p, {(1, 0): t.T}, [(0, 1)])                    # the table stored the other way round: accepted
    for bad in ([np.nan, 1.0], [-0.5, 1.5], [0.0, 0.0], [1.0], [[0.5, 0.5]]):
        with pytest.raises(ValueError, match=r"p\[0\]"):
            call({0: np.array(bad), 1: p[1]}, {(0, 1): t}, [(0, 1)])
    with pytest.raises(ValueError, match="attribute 1 has none"):
        call({0: p[0]}, {(0, 1): t}, [(0, 1)])
    for bad in (np.full((2, 3), np.nan), -t, np.ones((3, 2)) / 6):
        with pytest.raises(ValueError, match=r"q\[\(0, 1\)\]"):
            call(p, {(0, 1): bad}, [(0, 1)])
    with pytest.raises(ValueError, match="has none"):
        call(p, {}, [(0, 1)])
    with pytest.raises(TypeError, match="dicts"):
        call([p[0], p[1]], {(0, 1): t}, [(0, 1)])


def test_release_fit_uses_each_steps_own_noise_scale():
    """The released p and q are fit_tree_marginals of the released noisy counts with the one-way and the two-way
    sigma of the budget (lemma syn-lem-consistency weights by inverse noise variance): kills the fit weighting the
    pair tables' row sums with the one-way sigma. d = 3, so sigma_1 / sigma_2 = sqrt(3/2)."""
    gen = np.random.default_rng(5)
    data = np.column_stack([gen.integers(0, 3, 300), gen.integers(0, 4, 300), gen.integers(0, 2, 300)])
    rel = dpcourse.mst_synthesize(data, (3, 4, 2), 0.05, rng=8)
    b = rel.budget
    assert float(b.sigma_one_way) / float(b.sigma_two_way) == pytest.approx(math.sqrt(1.5), rel=1e-5)
    p, q, n_hat = S.fit_tree_marginals(rel.one_way, rel.two_way, (3, 4, 2), sigma_one=b.sigma_one_way,
                                       sigma_two=b.sigma_two_way)
    assert n_hat == rel.n_hat
    for a in range(3):
        np.testing.assert_array_equal(p[a], rel.p[a])
    for e in rel.edges:
        np.testing.assert_array_equal(q[e], rel.q[e])


def test_an_empty_table_with_the_wrong_number_of_columns_is_refused():
    """[] is the empty data set, but a (0, 3) or (3, 0) table on a 2-attribute domain is a wrong shape."""
    for bad in (np.zeros((0, 3), dtype=np.int64), np.zeros((3, 0), dtype=np.int64)):
        for fn in (dpcourse.mst_synthesize, dpcourse.independent_synthesize):
            with pytest.raises(ValueError, match="data must be a 2-d array"):
                fn(bad, (2, 2), 1.0, rng=0)
    assert len(dpcourse.mst_synthesize(np.zeros((0, 2), dtype=np.int64), (2, 2), 1.0, rng=0).one_way) == 2


def test_chain_checker_refuses_a_joint_off_by_a_small_amount():
    """check_chain_joint compares to 1e-9: an answer that moves 1e-4 of mass between two cells fails."""
    from dpcourse.exercises.synthetic import check_chain_joint

    def exact(q12, q23):
        p2 = q12.sum(axis=0)
        inv = np.divide(1.0, p2, out=np.zeros_like(p2), where=p2 > 0)
        return q12[:, :, None] * q23[None, :, :] * inv[None, :, None]

    def nearly(q12, q23):
        out = exact(q12, q23)
        out[0, 0, 0] += 1e-4
        out[-1, 0, -1] -= 1e-4
        return out

    assert check_chain_joint(exact).passed
    assert not check_chain_joint(nearly).passed


def test_sinkhorn_is_the_textbook_alternating_scaling_bit_for_bit():
    """_sinkhorn reuses the stopping test's row sums as the next round's: the same table, bit for bit, as the
    textbook loop (row sums, scale rows, column sums, scale columns, test the row sums), on a table that needs
    96 rounds; its margins are within SINKHORN_TOL of the targets."""
    def textbook(table, row, col):
        t, rounds = table.copy(), 0
        for _ in range(S.SINKHORN_ITERATIONS):
            rounds += 1
            rs = t.sum(axis=1)
            t *= np.divide(row, rs, out=np.zeros_like(rs), where=rs > 0)[:, None]
            cs = t.sum(axis=0)
            t *= np.divide(col, cs, out=np.zeros_like(cs), where=cs > 0)[None, :]
            if np.abs(t.sum(axis=1) - row).max() <= S.SINKHORN_TOL:
                break
        return t, rounds

    k = 20
    p = 0.5 ** np.arange(k)
    p /= p.sum()
    q = np.full(k, 1.0 / k)
    start = 0.999 * np.diag(p) + 1e-3 * np.outer(p, q)
    want, rounds = textbook(start, p, q)
    assert rounds > 50
    got = S._sinkhorn(start, p, q)
    np.testing.assert_array_equal(got, want)
    assert np.abs(got.sum(axis=1) - p).max() <= S.SINKHORN_TOL
    assert np.abs(got.sum(axis=0) - q).max() <= 1e-15
