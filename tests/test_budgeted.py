"""reference.budgeted and fast.budgeted (kusner2016 ch. 1-2): properties on both implementations, edge cases, bad
input, the l1 baseline against scikit-learn, and Table 2.1's shape on Spambase."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fast.budgeted
import reference.budgeted
from spec.links import checks
from spec.strategies import seeds
import fast.budgeted as FB
import reference.budgeted as RB

IMPLS = [reference.budgeted, fast.budgeted]
IDS = ["reference", "fast"]


def _data(seed=0, n=40, d=5, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + noise * rng.normal(size=n)
    return X, y


@checks("kusner2016.ch2.eq9")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_r_squared_matches_weighted_lstsq_with_intercept(impl):
    X, y = _data(1, n=25, d=4)
    w = np.random.default_rng(2).random(25)
    for A in ([], [0], [1, 3], [0, 1, 2, 3]):
        sw = np.sqrt(w)
        Z = np.column_stack([np.ones(25), X[:, A]]) * sw[:, None]
        res = sw * y - Z @ np.linalg.lstsq(Z, sw * y, rcond=None)[0]
        yc = sw * (y - (w @ y) / w.sum())
        assert impl.r_squared(X, y, A, w) == pytest.approx(1 - (res @ res) / (yc @ yc), abs=1e-12)


@checks("kusner2016.ch2.eq11")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_greedy_select_equals_table_greedy(impl):
    """The eq. (2.15) greedy on data equals the eq. (2.11) greedy on the enumerated R^2 table."""
    rng = np.random.default_rng(3)
    for trial in range(15):
        X, y = _data(trial, n=20, d=5)
        X = X @ (np.eye(5) + rng.normal(scale=0.5, size=(5, 5)))
        costs = rng.integers(1, 5, size=5).astype(float)
        for B in (1.0, 3.0, 6.0, math.inf):
            g = impl.greedy_select(X, y, costs, B)
            assert g == impl.budgeted_greedy(impl.r_squared_table(X, y), costs, B)[:len(g)]
            assert sum(costs[g]) <= B


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_zero_costs_taken_first_and_budget_excludes_them(impl):
    X, y = _data(4, d=5)
    costs = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    g = impl.greedy_select(X, y, costs, 1.0)
    assert set(g[:2]) == {1, 3} and len(g) == 3 and costs[g[2]] == 1.0
    assert impl.greedy_select(X, y, costs, 0.0) == g[:2]


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_edge_cases_documented(impl):
    X, y = _data(5, d=4)
    X[:, 2] = 3.0  # constant feature: never chosen
    assert 2 not in impl.greedy_select(X, y, np.ones(4), math.inf)
    assert impl.greedy_select(X, np.full(40, 1.5), np.ones(4), math.inf) == []  # Var = 0
    assert impl.greedy_select(X, y, np.full(4, 2.0), 1.0) == []  # budget below the cheapest feature
    assert impl.greedy_select(X, y, np.ones(4), 5.0, sample_weight=np.zeros(40)) == []  # no input reaches
    X2 = np.column_stack([X[:, 0], X[:, 0], X[:, 1]])  # duplicate column: the lower index, then never the copy
    g = impl.greedy_select(X2, X[:, 0] + 0.1 * X[:, 1], np.ones(3), math.inf)
    assert g[0] == 0 and 1 not in g


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_bad_inputs_same_messages(impl):
    X, y = _data(6, n=10, d=3)
    with pytest.raises(ValueError, match="costs must be >= 0"):
        impl.greedy_select(X, y, [1.0, -1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="costs must be > 0"):
        impl.fit_tree(X, y, [1.0, 0.0, 1.0], 2, 1.0)
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        impl.fit_tree(X, y, [1.0, 1.0, 1.0], 0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        impl.greedy_select(np.where(X > 1, np.nan, X), y, [1.0] * 3, 1.0)
    with pytest.raises(ValueError, match="budget must be a number >= 0"):
        impl.greedy_select(X, y, [1.0] * 3, -2.0)


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_tree_budgets_below_cheapest_cost_refused_alike(impl):
    """budget and node_budget below the cheapest feature: both refused by fit_tree, naming the argument (the old
    fit_tree silently returned a constant model for either); at the cheapest cost both are accepted."""
    X, y = _data(6, n=30, d=3)
    costs = [2.0, 1.5, 3.0]
    msg = "must be >= the cheapest feature cost 1.5 (below it no input could be given any feature: a constant model)"
    with pytest.raises(ValueError, match=r"^node_budget " + msg.replace("(", r"\(").replace(")", r"\)")):
        impl.fit_tree(X, y, costs, 2, 1.0)
    with pytest.raises(ValueError, match=r"^budget " + msg.replace("(", r"\(").replace(")", r"\)")):
        impl.fit_tree(X, y, costs, 2, 5.0, budget=1.4)
    m = impl.fit_tree(X, y, costs, 2, 1.5, budget=1.5)
    assert m.features[0] == (1,) and np.all(m.leaf_cost == 1.5)
    # greedy_select keeps accepting any budget >= 0 (a node's remaining budget): only the free features
    assert impl.greedy_select(X, y, [2.0, 0.0, 3.0], 1.0) == [1]


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_tree_one_class_node_and_empty_child(impl):
    """A node whose inputs all have the same label selects nothing and predicts that label; a child receiving
    no input copies its parent's predictor (its features are already paid)."""
    X, _ = _data(7, n=12, d=3)
    y = np.where(np.arange(12) < 6, 1.0, -1.0)
    X[:, 0] = y  # root picks feature 0, splits the classes perfectly; children are pure
    m = impl.fit_tree(X, y, np.ones(3), 3, 1.0)
    assert m.features[0] == (0,)
    for k in (1, 2):
        assert m.features[k] == (0,) or m.features[k] == ()
    assert np.all(np.sign(impl.tree_decision(m, X)) == y)
    # every node's child beyond a pure node: weight 0 on one side -> copy of the parent
    assert np.all(m.weight >= 0)
    assert np.all(impl.path_cost(m, X) <= 1.0)


@checks("kusner2016.ch2.threshold")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_weighted_median_sends_every_tied_score_left(impl):
    """Scores equal to the lower weighted median up to rounding (within TIE_TOL) go left with it; the next larger
    score goes right.  The old rule returned the median itself, so 1 + 2^-52 went right while 1 went left."""
    tie = 1 + 2 ** -52
    for s, n_right in (([-1.0, 1.0, 1.0, tie, tie], 0), ([-1.0, tie, 1.0, 1.0, tie, 3.0], 1),
                       ([0.0, 1.0, 1 + 0.9e-9, 1 + 1.8e-9, 2.0, 3.0], 2), ([-1.0, 0.0, 1.0, 2.0], 2)):
        s = np.array(s)
        arg = s if impl is fast.budgeted else s.tolist()
        theta = impl._weighted_median(arg, np.ones(len(s)) if impl is fast.budgeted else [1.0] * len(s))
        assert int(np.sum(s > theta)) == n_right, (s, theta)
        median = np.sort(s)[(len(s) - 1) // 2]
        assert np.all(s[np.abs(s - median) <= 1e-9 * max(1.0, np.abs(s).max())] <= theta)
    # through fit_tree: a saturated fit (y linear in x0) with tied scores: the tied group stays on one side
    X = np.array([[-1.0], [1.0], [1.0], [1.0], [1.0]])
    y = X[:, 0] * 3.0
    m = impl.fit_tree(X, y, [1.0], 2, 1.0)
    assert m.weight[1] == 5.0 or m.weight[1] == 1.0


def _path_nodes(leaf, depth):
    k = leaf + (1 << (depth - 1)) - 1
    path = [k]
    while k:
        k = (k - 1) // 2
        path.append(k)
    return path[::-1]


@checks("kusner2016.ch2.eq1", "kusner2016.ch2.test-cost")
@pytest.mark.parametrize("greedy", ["prefix", "best_of"])
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_fuzz_decimal_costs_never_exceed_budgets(impl, greedy):
    """Random decimal costs (0.1, 0.7, 2.3, ...) and budgets that are decimal sums of them, many fits: every
    path's reported cost <= budget and every node's own new spend (fsum) <= node_budget, EXACTLY in floats.  A
    running float sum of the costs (the old feasibility test) rounds 0.1 + 0.4 + 0.2 to 0.7 while the reported
    fsum is 0.7000000000000001, so such a tree overshot budget = 0.7.  Both greedy rules (best_of's skip step and
    its best single use the same exact sums)."""
    rng = np.random.default_rng(21)
    # (the old running-sum feasibility test overshot the budget on several of these fits)
    for trial in range(250):
        n, d = int(rng.integers(12, 40)), int(rng.integers(2, 7))
        X = rng.normal(size=(n, d))
        y = X @ rng.normal(size=d) + 0.05 * rng.normal(size=n)
        costs = rng.integers(1, 30, size=d) / 10.0
        subset = rng.random(d) < 0.95
        tenths = int(np.rint(costs[subset] * 10).sum())
        budget = max(tenths, int(np.rint(costs.min() * 10))) / 10.0  # a decimal sum of costs, as a user writes it
        node_budget = float(rng.choice([budget, np.inf]))
        depth = int(rng.integers(1, 4))
        m = impl.fit_tree(X, y, costs, depth, node_budget, budget=budget, soft=bool(trial % 2), greedy=greedy)
        Xt = np.vstack([X, rng.normal(size=(20, d))])
        assert impl.path_cost(m, Xt).max() <= budget
        assert m.leaf_cost.max() <= budget
        for k, feats in enumerate(m.features):
            anc, a = set(), k
            while a:  # the features of k's ancestors are already paid
                a = (a - 1) // 2
                anc |= set(m.features[a])
            new = [j for j in feats if j not in anc]
            assert math.fsum(costs[new]) <= node_budget, (k, feats, anc)
        for leaf in range(1 << (depth - 1)):
            used = set().union(*[set(m.features[a]) for a in _path_nodes(leaf, depth)])
            assert math.fsum(costs[sorted(used)]) == m.leaf_cost[leaf] <= budget
    # the audit's repro, through the estimator
    from fast import ASTCRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X @ np.sqrt([0.3, 0.8, 0.2]) + 0.01 * rng.normal(size=200)
    reg = ASTCRegressor(feature_costs=[0.1, 0.4, 0.2], budget=0.7, depth=1, greedy=greedy).fit(X, y)
    assert reg.predict_cost(X).max() <= 0.7


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_greedy_budgets_use_exact_sums(impl):
    """greedy_select / budgeted_greedy: the prefix's fsum cost <= budget (0.1 + 0.4 + 0.2 > 0.7 exactly)."""
    X = np.eye(4)[:, :3] + np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]) * 0.1
    y = X @ np.array([3.0, 2.0, 1.0])
    costs = [0.1, 0.4, 0.2]
    g = impl.greedy_select(X, y, costs, 0.7)
    assert math.fsum(costs[j] for j in g) <= 0.7 and len(g) == 2
    assert len(impl.greedy_select(X, y, costs, 0.7000000000000001)) == 3
    table = np.array([0.0, 1, 1, 2, 1, 2, 2, 3])  # modular: every feature gains 1
    assert impl.budgeted_greedy(table, costs, 0.7) == [0, 2]
    assert impl.budgeted_greedy(table, costs, 0.7000000000000001) == [0, 2, 1]


@checks("kusner2016.ch2.soft")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_soft_weights_split_parent(impl):
    X, y = _data(8, n=30, d=4)
    m = impl.fit_tree(X, y, np.ones(4), 3, 1.0, soft=True)
    for k in range(3):
        assert m.weight[2 * k + 1] + m.weight[2 * k + 2] == pytest.approx(m.weight[k], rel=1e-12)
        assert 0 < m.weight[2 * k + 1] < m.weight[k]


@checks("kusner2016.ch2.eq7")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_expected_cost_eq7_by_independent_routing(impl):
    """eq. (2.7) E[C] = sum_{leaves l below k} p^l sum_j c(j) ||sum_{k' on path to l} |beta^{k'}_j|||_0, computed
    independently of tree_leaves / leaf_cost: each fresh input is routed by hand from the stored coefficients and
    thresholds (p^l = Monte Carlo frequency), a leaf's cost from the NONZERO coefficients on its path.  It must
    equal the mean of path_cost over the same inputs, for the root and for every subtree (inputs reaching k)."""
    X, y = _data(9, n=200, d=6)
    costs = np.array([1.0, 5.0, 20.0, 50.0, 100.0, 150.0])
    m = impl.fit_tree(X, y, costs, 3, 60.0, budget=200.0)
    Xt = np.random.default_rng(19).normal(size=(4000, 6)) * 1.5
    n_internal = 3
    nodes = []
    for x in Xt:
        k, path = 0, [0]
        while k < n_internal:
            k = 2 * k + 2 if m.intercept[k] + float(np.dot(x, m.coef[k])) > m.threshold[k] else 2 * k + 1
            path.append(k)
        nodes.append(path)
    cost_of_leaf = {}
    for leaf in range(n_internal, 7):
        path = [leaf]
        while path[-1]:
            path.append((path[-1] - 1) // 2)
        used = np.sum([np.abs(m.coef[a]) for a in path], axis=0) != 0  # ||sum_k' |beta^k'_j| ||_0
        cost_of_leaf[leaf] = float(costs @ used)
    pc = impl.path_cost(m, Xt)
    assert len({p[-1] for p in nodes}) == 4  # every leaf is reached, so every term of eq. (2.7) is exercised
    for k in range(7):
        reach = [i for i, p in enumerate(nodes) if k in p]
        leaves_below = {nodes[i][-1] for i in reach}
        p_leaf = {leaf: sum(1 for i in reach if nodes[i][-1] == leaf) / len(Xt) for leaf in leaves_below}
        eq7 = sum(p_leaf[leaf] * cost_of_leaf[leaf] for leaf in leaves_below)
        assert eq7 == pytest.approx(pc[reach].sum() / len(Xt), rel=1e-12)
    assert pc.max() <= 200.0 and len(set(pc)) > 1


@checks("kusner2016.ch2.eq5")
def test_l1_logistic_matches_sklearn():
    """eq. (2.5) with costs: sklearn's liblinear on columns divided by c (C = 1/(n lambda)), unpenalised
    intercept approximated by a large intercept_scaling: the same objective value to 1e-4."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(10)
    n, d = 300, 5
    X = rng.normal(size=(n, d))
    y = np.where(X @ np.array([2.0, -1.0, 0.5, 0.0, 0.0]) + 0.5 + rng.normal(size=n) > 0, 1.0, -1.0)
    c = np.array([1.0, 2.0, 5.0, 1.0, 3.0])
    lam = 0.01
    ours = fast.budgeted.l1_logistic(X, y, c, lam, max_iter=20000, tol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = LogisticRegression(penalty="l1", C=1 / (n * lam), solver="liblinear", tol=1e-10, max_iter=100000,
                                intercept_scaling=1e4).fit(X / c, y)
    beta = sk.coef_[0] / c
    m = y * (X @ beta + sk.intercept_[0])
    sk_obj = float(np.logaddexp(0, -m).mean() + lam * (c @ np.abs(beta)))
    assert ours.objective <= sk_obj + 1e-4
    assert abs(ours.objective - sk_obj) < 1e-4
    assert set(np.flatnonzero(np.abs(beta) > 1e-6)) == set(np.flatnonzero(ours.coef))


SPAMBASE_LAMBDAS = [2.5, 5, 7.5, 10, 25, 50, 75, 100, 250, 500]
TABLE_21_ERR = [0.071, 0.073, 0.073, 0.074, 0.082, 0.091, 0.097, 0.103, 0.130, 0.192]
TABLE_21_COST = [54, 53, 51, 48, 39, 31, 27, 25, 13, 4]


def spambase_table21(path, loss="sum"):
    """Training error and #features of L1 logistic regression on standardised Spambase for Table 2.1's lambdas:
    ``loss="sum"``: summed log-loss (C = 1/lambda, the scale that reproduces the table); ``"mean"``: as printed
    in eq. (2.5) (C = 1/(n lambda))."""
    from sklearn.linear_model import LogisticRegression

    D = np.loadtxt(path / "uci" / "spambase.data", delimiter=",")
    X, y = D[:, :-1], D[:, -1]
    X = (X - X.mean(0)) / X.std(0)
    rows = []
    for lam in SPAMBASE_LAMBDAS:
        C = 1 / lam if loss == "sum" else 1 / (len(y) * lam)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = LogisticRegression(penalty="l1", C=C, solver="liblinear", tol=1e-8, max_iter=10000,
                                   intercept_scaling=100).fit(X, y)
        rows.append((lam, float(np.mean(m.predict(X) != y)), int(np.count_nonzero(m.coef_))))
    return rows


@checks("kusner2016.ch2.tab1")
def test_spambase_table21_shape(shared_data):
    rows = spambase_table21(shared_data)
    errs = [r[1] for r in rows]
    feats = [r[2] for r in rows]
    assert all(b >= a - 0.002 for a, b in zip(errs, errs[1:]))  # error increases with lambda
    assert all(b <= a for a, b in zip(feats, feats[1:]))  # features decrease
    # the summed-loss scale reproduces the table: within 0.01 error and 6 features up to lambda = 100
    for (lam, e, k), te, tk in zip(rows, TABLE_21_ERR, TABLE_21_COST):
        if lam <= 100:
            assert abs(e - te) <= 0.013 and abs(k - tk) <= 6, (lam, e, k, te, tk)
    # the printed (1/n-averaged) objective zeroes every weight already at lambda = 2.5
    mean_rows = spambase_table21(shared_data, loss="mean")
    assert all(k == 0 for _, _, k in mean_rows)


# --------------------------------------------------------------------------------------------- budgeted: routing
def _route_by_hand(model, X):
    n_internal = (1 << (model.depth - 1)) - 1
    leaves, values = [], []
    for x in X:
        k = 0
        for _ in range(model.depth - 1):
            k = 2 * k + 2 if model.intercept[k] + math.fsum(x * model.coef[k]) > model.threshold[k] else 2 * k + 1
        leaves.append(k - n_internal)
        values.append(model.intercept[k] + math.fsum(x * model.coef[k]))
    return np.array(leaves), np.array(values)


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
@pytest.mark.parametrize("soft", [False, True])
def test_routing_pass_equals_routing_by_hand(depth, soft):
    rng = np.random.default_rng(depth)
    X = rng.normal(size=(300, 6))
    y = X[:, 0] - 2 * X[:, 3] + 0.3 * rng.normal(size=300)
    model = FB.fit_tree(X, y, 1.0 + rng.random(6), depth, 3.0, soft=soft)
    Xt = np.vstack([X, rng.normal(size=(100, 6))])
    leaves, values = _route_by_hand(model, Xt)
    np.testing.assert_array_equal(FB.tree_leaves(model, Xt), leaves)
    np.testing.assert_allclose(FB.tree_decision(model, Xt), values, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(FB.path_cost(model, Xt), model.leaf_cost[leaves])
    np.testing.assert_array_equal(FB.tree_leaves(model, Xt), RB.tree_leaves(model, Xt))
    # a strided (non-contiguous) X routes the same
    np.testing.assert_array_equal(FB.tree_leaves(model, np.asfortranarray(Xt)), leaves)


@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_routing_pass_raises_the_contract_error_on_a_non_finite_row(depth, bad):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    model = FB.fit_tree(X, X[:, 0], np.ones(3), depth, 2.0)
    Xbad = X.copy()
    Xbad[17, 2] = bad
    for fn in (FB.tree_leaves, FB.tree_decision, FB.path_cost):
        with pytest.raises(ValueError) as fast_error:
            fn(model, Xbad)
        with pytest.raises(ValueError) as ref_error:
            getattr(RB, fn.__name__)(model, Xbad)
        assert str(fast_error.value) == str(ref_error.value)


# --------------------------------------------------------------------------------------------- budgeted: R^2
def test_r_squared_qr_residual_equals_reference():
    rng = np.random.default_rng(5)
    for trial in range(120):
        n, d = int(rng.integers(2, 30)), int(rng.integers(1, 6))
        X = rng.normal(size=(n, d))
        if trial % 3 == 0:
            X[:, -1] = X[:, 0]  # a duplicated column: lstsq route
        if trial % 5 == 0:
            X[:, 0] = 2.5  # a constant column
        if trial % 7 == 0 and d > 2:
            X[:, 1] = X[:, 0] - X[:, 2]  # a dependent column
        y = X @ rng.normal(size=d) + rng.choice([0.0, 0.1, 1.0]) * rng.normal(size=n)
        w = None if trial % 2 else rng.random(n) * (rng.random(n) < 0.8)
        A = [j for j in range(d) if rng.random() < 0.7]
        assert FB.r_squared(X, y, A, w) == pytest.approx(RB.r_squared(X, y, A, w), rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------------------------- budgeted: greedy
def test_greedy_steps_break_ties_to_the_lowest_index():
    d = 5
    masks = np.arange(1 << d)
    bits = (masks[:, None] >> np.arange(d)) & 1
    values = np.sqrt(bits @ np.array([1.0, 2.0, 2.0, 1.0, 2.0]))  # elements 1, 2 and 4 tie
    assert FB.cardinality_greedy(values, 3) == RB.cardinality_greedy(values, 3) == [1, 2, 4]
    costs = np.array([1.0, 2.0, 2.0, 1.0, 2.0])  # ratio ties everywhere: lowest index first
    assert FB.budgeted_greedy(values, costs, 4.0) == RB.budgeted_greedy(values, costs, 4.0)


def test_greedy_steps_equal_the_numpy_argmax_loops():
    rng = np.random.default_rng(6)
    for d in (3, 6, 10):
        values = np.concatenate([[0.0], np.cumsum(rng.random((1 << d) - 1))]) * rng.choice([1.0, -1.0])
        costs = 0.5 + rng.random(d)
        mask, expect = 0, []
        for _ in range(d):
            cand = np.array([j for j in range(d) if not mask >> j & 1])
            j = int(cand[np.argmax(values[mask | (1 << cand)] - values[mask])])
            expect.append(j)
            mask |= 1 << j
        assert FB.cardinality_greedy(values, d) == expect
        assert FB.budgeted_greedy(values, costs, float(costs.sum())) == RB.budgeted_greedy(values, costs,
                                                                                          float(costs.sum()))


# --------------------------------------------------------------------------------------------- the greedy rule
@st.composite
def _greedy_rule_problems(draw):
    """(X, y, w, costs, budget, rng): correlated Gaussian designs with edge cases (a constant column, a
    duplicate, an exact combination, y exactly one column), costs from the unit / Yahoo!-style / decimal families
    (zero costs for greedy_select: features paid by an ancestor), budgets from below the cheapest to above all."""
    rng = np.random.default_rng(draw(seeds()))
    n, d = draw(st.integers(2, 24)), draw(st.integers(1, 6))
    X = rng.normal(size=(n, d)) @ (np.eye(d) + rng.normal(scale=draw(st.sampled_from([0.0, 0.5, 2.0])), size=(d, d)))
    edge = draw(st.sampled_from(["none", "constant", "duplicate", "combination", "exact"]))
    if edge == "constant":
        X[:, 0] = 0.3
    elif edge == "duplicate" and d >= 2:
        X[:, 1] = X[:, 0]
    elif edge == "combination" and d >= 3:
        X[:, 2] = X[:, 0] - 2 * X[:, 1]
    y = X @ rng.normal(size=d) + draw(st.sampled_from([0.0, 0.3, 3.0])) * rng.normal(size=n)
    if edge == "exact":
        y = 2.0 * X[:, -1] + 1.0
    family = draw(st.sampled_from(["unit", "yahoo", "decimal"]))
    if family == "unit":
        costs = np.ones(d)
    elif family == "yahoo":
        costs = rng.choice([1.0, 5.0, 20.0, 50.0, 100.0, 150.0, 200.0], size=d)
    else:
        costs = rng.integers(1, 30, size=d) / 10.0
    budget = draw(st.sampled_from([0.0, 0.7, 1.0, 2.5, 40.0, 120.0, math.inf]))
    if d >= 2 and 0 < budget < math.inf and draw(st.booleans()):
        # a lure: the last feature explains y but costs the whole budget; the first is weak and cheap (the best
        # single then beats the continued greedy: best_of's replacement step is exercised)
        X[:, -1] = y + 0.01 * rng.normal(size=n)
        X[:, 0] = 0.3 * (y - y.mean()) + rng.normal(size=n)
        costs[-1], costs[0] = budget, budget / 100
    w = None if draw(st.booleans()) else rng.random(n) * (rng.random(n) > 0.2)
    return X, y, w, costs, budget, rng


@pytest.mark.equivalence
@settings(max_examples=150, deadline=None)
@given(_greedy_rule_problems(), st.sampled_from(["prefix", "best_of"]), st.booleans())
def test_greedy_rules_reference_equals_fast(problem, greedy, free):
    """Differential: greedy_select, budgeted_greedy (on the problem's R^2 table) and fit_tree of reference and fast
    choose the same features under both rules (exactly: ties by a relative TIE_TOL, then the lowest index); tree
    coefficients agree to rtol 1e-7; best_of never has a lower R^2 than the prefix and never exceeds the budget."""
    X, y, w, costs, budget, rng = problem
    d = X.shape[1]
    c = costs.copy()
    if free:
        c[rng.random(d) < 0.3] = 0.0  # features already paid by an ancestor
    got = [impl.greedy_select(X, y, c, budget, sample_weight=w, greedy=greedy) for impl in IMPLS]
    assert got[0] == got[1]
    assert math.fsum(c[got[1]]) <= budget
    if greedy == "best_of":
        prefix = fast.budgeted.greedy_select(X, y, c, budget, sample_weight=w)
        z = fast.budgeted.r_squared
        assert z(X, y, got[1], w) >= z(X, y, prefix, w) - 1e-9
        assert set(prefix) <= set(got[1]) or len(got[1]) - int(np.sum(c[got[1]] == 0)) == 1
    if d <= 5:
        table = fast.budgeted.r_squared_table(X, y, w)
        pos = np.where(costs > 0, costs, 1.0)
        assert reference.budgeted.budgeted_greedy(table, pos, budget, greedy=greedy) == \
            fast.budgeted.budgeted_greedy(table, pos, budget, greedy=greedy)
    if w is not None and not w.sum() > 0:
        return
    nb = max(budget, float(costs.min())) if math.isfinite(budget) else math.inf
    trees = [impl.fit_tree(X, y, costs, 2, nb, budget=max(2 * nb, float(costs.min())), sample_weight=w,
                           greedy=greedy) for impl in IMPLS]
    assert trees[0].features == trees[1].features
    np.testing.assert_array_equal(trees[0].leaf_cost, trees[1].leaf_cost)
    np.testing.assert_allclose(trees[0].coef, trees[1].coef, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_greedy_rule_bad_inputs_same_messages(impl):
    """An unknown rule is refused by every entry point, naming the argument and the allowed values (one shared
    check in spec.budgeted_contract: the same type and message in both packages)."""
    X, y = _data(6, n=10, d=3)
    table = np.zeros(8)
    for call in (lambda g: impl.greedy_select(X, y, [1.0] * 3, 2.0, greedy=g),
                 lambda g: impl.budgeted_greedy(table, [1.0] * 3, 2.0, greedy=g),
                 lambda g: impl.fit_tree(X, y, [1.0] * 3, 2, 1.0, greedy=g)):
        with pytest.raises(ValueError, match=r"^greedy must be one of \('prefix', 'best_of'\), got 'skip'$"):
            call("skip")
        with pytest.raises(TypeError, match=r"^greedy must be one of \('prefix', 'best_of'\) \(a str\), got 1$"):
            call(1)
    with pytest.raises(TypeError):  # keyword-only: a positional 6th argument is not the rule
        impl.greedy_select(X, y, [1.0] * 3, 2.0, None, "best_of")


@checks("library.budgeted.best-of-greedy", "kusner2016.ch2.prefix-budget")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_best_of_skips_unaffordable_and_takes_the_best_single(impl):
    """Tables: an unaffordable best-ratio element empties the prefix, best_of continues ([1, 2], the optimum); a
    cheap lure (ratio 2) before a budget-sized element (ratio 1): prefix [0] (value 2), best_of [1] (value 100); a
    single that only TIES the greedy set does not replace it.  Data: the same lure with a free (cost 0) feature
    kept first: best_of = the free feature + the best single.  Fails on the old code (no ``greedy``)."""
    values = np.array([0.0, 1000.0, 10.0, 1010.0, 30.0, 1030.0, 40.0, 1040.0])
    assert impl.budgeted_greedy(values, [200.0, 10.0, 100.0], 120.0) == []
    assert impl.budgeted_greedy(values, [200.0, 10.0, 100.0], 120.0, greedy="best_of") == [1, 2]
    lure = np.array([0.0, 2.0, 100.0, 102.0])
    assert impl.budgeted_greedy(lure, [1.0, 100.0], 100.0) == [0]
    assert impl.budgeted_greedy(lure, [1.0, 100.0], 100.0, greedy="best_of") == [1]
    tie = np.array([0.0, 50.0, 50.0, 100.0, 100.0, 150.0, 150.0, 200.0])  # {0, 1} worth 100 = the single {2}
    assert impl.budgeted_greedy(tie, [1.0, 1.0, 3.0], 3.0, greedy="best_of") == [0, 1]
    rng = np.random.default_rng(31)
    n = 300
    y = rng.normal(size=n)
    X = np.column_stack([rng.normal(size=n), 0.23 * y + rng.normal(size=n), y + 1e-3 * rng.normal(size=n)])
    costs = np.array([0.0, 1.0, 100.0])
    assert impl.greedy_select(X, y, costs, 100.0) == [0, 1]
    assert impl.greedy_select(X, y, costs, 100.0, greedy="best_of") == [0, 2]
    m = impl.fit_tree(X, y, np.array([1.0, 1.0, 100.0]), 1, 100.0, greedy="best_of")
    assert m.features[0] == (2,) and m.leaf_cost[0] == 100.0
    assert impl.fit_tree(X, y, np.array([1.0, 1.0, 100.0]), 1, 100.0).features[0] != (2,)
