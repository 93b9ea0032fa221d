"""Issue 15: the performance fixes of fast.impact_coding, fast.budgeted and the ASTC estimators keep their semantics.

* Fisher's exact test (the hypergeometric ratio recurrence walked from the mode, numba) against exact rational
  arithmetic, at totals where the former log-gamma form lost ~1e-10 (and ~1e-8 at totals ~3e6); one shared totals
  row and one row per group give the same p-values.
* The codes computed on unbroadcast inputs (scalar totals) equal the reference and the broadcast call; mean_code's
  fused pass equals its checked numpy path and raises the contract's errors; inputs are never modified.
* factorize's all-string shortcut keeps the contract's errors for mixed / unhashable / bytes columns; apply_coder's
  np.take reads the default row for index -1.
* Routing in one pass (tree_leaves / tree_decision / path_cost, the estimators' predict / apply / predict_cost)
  equals routing by hand from the stored coefficients; a NaN row raises the contract's error at every depth.
* r_squared's QR residual equals the reference (full rank, duplicated, constant and dependent columns, weights).
* The greedy steps in Python floats break ties to the lowest index, as the numpy argmax loops do.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import fast.budgeted as FB
import fast.impact_coding as F
import reference.budgeted as RB
import reference.impact_coding as R
from spec import impact_contract as C


# --------------------------------------------------------------------------------------------- impact: p-values
def _fisher_exact(a, b, c, d):
    """Two-sided Fisher p (R's rule) in exact rationals: weights relative to w(a) by the ratio recurrence."""
    r1, r2, c1 = a + b, c + d, a + c
    low, high = max(0, c1 - r2), min(r1, c1)
    weights = {a: Fraction(1)}
    for x in range(a, high):
        weights[x + 1] = weights[x] * Fraction((r1 - x) * (c1 - x), (x + 1) * (r2 - c1 + x + 1))
    for x in range(a, low, -1):
        weights[x - 1] = weights[x] * Fraction(x * (r2 - c1 + x), (r1 - x + 1) * (c1 - x + 1))
    cut = Fraction(C.FISHER_REL_ERR)
    return float(sum(w for w in weights.values() if w <= cut) / sum(weights.values()))


@pytest.mark.parametrize("a, b, c, d", [
    (7, 152, 25248, 29776), (2, 199, 13884, 28702), (5, 117, 22833, 13823),  # log-gamma form: ~6e-11 off
    (47, 1, 3_000_000, 2_950_000),  # log-gamma form: 1.2e-8 off (above the pairs' 1e-9)
    (0, 3, 5, 9), (10, 10, 10, 10), (3, 0, 0, 4), (1, 0, 19, 1980), (30, 2, 5, 400), (9, 60, 1200, 30),
])
def test_fisher_matches_exact_rationals(a, b, c, d):
    got = F.group_p_values(np.array([[a, b]], dtype=float), np.array([a + c, b + d], dtype=float))[0]
    assert got == pytest.approx(_fisher_exact(a, b, c, d), rel=1e-13, abs=0)


def test_p_values_match_reference_and_shared_totals():
    rng = np.random.default_rng(0)
    groups = np.column_stack([rng.integers(0, 40, 60), rng.integers(0, 40, 60)]).astype(float)
    groups[:5] += 0.4  # noisy counts: rounded for the test
    totals = groups.sum(axis=0) + [50.0, 120.0]
    shared = F.group_p_values(groups, totals)
    per_row = F.group_p_values(groups, np.tile(totals, (60, 1)))
    np.testing.assert_array_equal(shared, per_row)
    np.testing.assert_allclose(shared, R.group_p_values(groups, totals), rtol=1e-12, atol=1e-300)


# --------------------------------------------------------------------------------------------- impact: codes
@pytest.mark.parametrize("name", ["bayes_code", "log_lift_code", "mean_code"])
@pytest.mark.parametrize("smoothing", [0.0, 1e-3, 2.5])
def test_codes_on_scalar_totals_equal_reference_and_broadcast(name, smoothing):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 60, 200).astype(float)
    b = rng.integers(0, 60, 200).astype(float)
    a[:3] = 0.0
    if name == "mean_code":
        args = (a + b, a, float((a + b).sum()), float(a.sum()))
    else:
        args = (a, b, float(a.sum()), float(b.sum()))
    copies = [np.copy(x) for x in args]
    got = getattr(F, name)(*args, smoothing=smoothing)
    for x, x0 in zip(args, copies):
        np.testing.assert_array_equal(x, x0)  # inputs never modified
    broadcast = getattr(F, name)(*(np.broadcast_to(x, (200,)).copy() for x in args), smoothing=smoothing)
    np.testing.assert_allclose(got, broadcast, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(got, getattr(R, name)(*args, smoothing=smoothing), rtol=1e-12, atol=1e-13)
    assert got.dtype == np.float64 and got.shape == (200,)


def test_code_of_scalars_is_a_zero_d_array():
    for name in ("bayes_code", "log_lift_code", "mean_code"):
        out = getattr(F, name)(5, 3, 50, 40)
        ref = getattr(R, name)(5, 3, 50, 40)
        assert isinstance(out, np.ndarray) and out.shape == () == ref.shape
        assert float(out) == pytest.approx(float(ref), rel=1e-12, abs=1e-14)
    np.testing.assert_allclose(F.count_code(np.array([0.0, 3.0, 12.0]), 4.0), R.count_code([0.0, 3.0, 12.0], 4.0),
                               rtol=1e-13, atol=1e-15)


def test_mean_code_fused_pass_equals_checked_path():
    rng = np.random.default_rng(2)
    n = rng.integers(0, 9, 301).astype(float)  # zeros: the checked path codes them 0
    sy = rng.normal(size=301) * n
    strided = np.column_stack([n, sy])  # columns: non-contiguous, so the numpy path
    for s in (0.0, 1.5):
        fused = F.mean_code(n, sy, 7.0, 3.0, smoothing=s)
        checked = F.mean_code(strided[:, 0], strided[:, 1], 7.0, 3.0, smoothing=s)
        np.testing.assert_array_equal(fused, checked)
        np.testing.assert_allclose(fused, R.mean_code(n, sy, 7.0, 3.0, smoothing=s), rtol=1e-13, atol=1e-15)
    signed_zero = (np.array([-0.0, 2.0]), np.array([1.0, 3.0]), 4.0, 4.0)  # -0.0: the checked path, coded 0
    assert F.mean_code(*signed_zero).tolist() == R.mean_code(*signed_zero).tolist() == [0.0, 0.5]


@pytest.mark.parametrize("count, sum_y, message", [
    ([1.0, -1.0], [1.0, 1.0], "count must hold counts >= 0"),
    ([1.0, np.inf], [1.0, 1.0], "count must hold finite numbers"),
    ([np.nan, 1.0], [1.0, 1.0], "count must hold finite numbers"),
    ([1.0, 1.0], [1.0, np.nan], "sum_y must hold finite numbers"),
    ([1.0, 1.0], [-np.inf, 1.0], "sum_y must hold finite numbers"),
])
def test_mean_code_fused_pass_raises_the_contract_errors(count, sum_y, message):
    for impl in (F, R):
        with pytest.raises(ValueError, match=message):
            impl.mean_code(np.array(count), np.array(sum_y), 4.0, 4.0)


def test_coder_from_table_equals_reference_with_absent_and_pooled_levels():
    table = np.array([[3.0, 1.0], [0.0, 0.0], [1.0, 3.0], [40.0, 2.0], [1.0, 0.0], [12.0, 30.0]])
    for opts in ({}, {"rare_count": 1}, {"rare_sig": 0.3}, {"code": "count"}, {"code": "log_lift"}, {"code": "mean"}):
        got, ref = F.coder_from_table(table, **opts), R.coder_from_table(table, **opts)
        for field in ("count", "pooled", "kept"):
            np.testing.assert_array_equal(getattr(got, field), getattr(ref, field))
        np.testing.assert_allclose(got.p_value, ref.p_value, rtol=1e-12)
        np.testing.assert_allclose(got.code, ref.code, rtol=1e-12, atol=1e-13)


# --------------------------------------------------------------------------------------------- impact: levels
@pytest.mark.parametrize("column", [["a", 1], ["x", b"x"], [[1], [2]], ["a", 1.5, None]])
def test_factorize_shortcut_keeps_the_contract_errors(column):
    with pytest.raises(TypeError) as fast_error:
        F.factorize(column)
    with pytest.raises(TypeError) as ref_error:
        R.factorize(column)
    assert str(fast_error.value) == str(ref_error.value)


def test_factorize_string_columns_equal_reference():
    rng = np.random.default_rng(3)
    names = np.array([f"lv{i:03d}" for i in rng.integers(0, 50, 500)], dtype=object)
    for column in (names, list(names) + [None], np.array(["b", "a", "B", ""], dtype=object)):
        got, ref = F.factorize(column), R.factorize(column)
        assert got[0] == ref[0]
        np.testing.assert_array_equal(got[1], ref[1])


def test_apply_coder_reads_the_default_row_for_novel_levels():
    coder = F.coder_from_table([[3.0, 1.0], [1.0, 3.0], [2.0, 2.0]], code="count")
    codes = F.apply_coder(coder, np.array([2, -1, 0, -1]))
    np.testing.assert_array_equal(codes, np.vstack([coder.code[2], coder.default, coder.code[0], coder.default]))


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


def test_astc_estimators_predict_by_the_routing_pass():
    from fast.estimators import ASTCClassifier, ASTCRegressor

    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 5)) * [1.0, 10.0, 0.1, 1e3, 1.0] + [0.0, 5.0, -3.0, 2e4, 1.0]
    y = X[:, 0] - 0.2 * X[:, 1] + 0.01 * X[:, 3] + rng.normal(size=400)
    Xt = np.vstack([X, rng.normal(size=(80, 5)) * [1.0, 10.0, 0.1, 1e3, 1.0] + [0.0, 5.0, -3.0, 2e4, 1.0]])
    reg = ASTCRegressor(budget=3, depth=3).fit(X, y)
    Xs = (Xt - reg.mean_) / reg.scale_
    leaves, values = _route_by_hand(reg.tree_, Xs)
    np.testing.assert_array_equal(reg.apply(Xt), leaves)
    np.testing.assert_allclose(reg.predict(Xt), reg.y_mean_ + reg.y_scale_ * values, rtol=1e-11, atol=1e-11)
    np.testing.assert_array_equal(reg.predict_cost(Xt), reg.tree_.leaf_cost[leaves])
    clf = ASTCClassifier(budget=3, depth=3).fit(X, y > np.median(y))
    leaves, values = _route_by_hand(clf.tree_, (Xt - clf.mean_) / clf.scale_)
    np.testing.assert_allclose(clf.decision_function(Xt), values, rtol=1e-11, atol=1e-11)
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[(values >= 0).astype(int)])


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


def test_jackknife_queries_by_bincount_equal_reference():
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 40, 400)
    idx[idx == 7] = 8  # a level never seen
    y = (rng.random(400) < 0.2 + 0.6 * (idx % 3 == 0)).astype(np.int64)
    for opts in ({}, {"rare_count": 2, "rare_sig": 0.5}, {"code": "count"}):
        np.testing.assert_allclose(F.jackknife_codes(idx, y, 40, **opts), R.jackknife_codes(idx, y, 40, **opts),
                                   rtol=1e-9, atol=1e-12)
