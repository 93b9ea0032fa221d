"""Pairs for reference.budgeted / fast.budgeted (kusner2016 ch. 1-2: budgeted greedy, R^2, ASTC trees, eq. 2.5).

Chosen features, leaves and path costs compare EXACTLY (ties: relative TIE_TOL then lowest index, in both);
floats with rtol 1e-7 / atol 1e-9: the reference orthogonalises each candidate by classical Gram-Schmidt with
fsum, fast downdates the residual norms with one product per step and solves the node fit by lstsq, so node
coefficients agree to the conditioning of the node's least-squares problem (data here: well conditioned).
"""
import math

import numpy as np
from hypothesis import strategies as st

import fast.budgeted
import reference.budgeted
from spec.pairs import Call, Pair
from spec.strategies import seeds

_TOL = dict(rtol=1e-7, atol=1e-9)
#: the budgeted greedy's rules (spec.budgeted_contract.GREEDY_RULES): the thesis's prefix, the best_of remedy
_GREEDY = st.sampled_from(["prefix", "best_of"])


@st.composite
def _data(draw, max_n=24, max_d=6):
    """(X, y, w): Gaussian data with edge cases on purpose: a constant column, a duplicated column, an exact
    linear combination, n < d, zero weights, y an exact linear function of one column."""
    rng = np.random.default_rng(draw(seeds()))
    n = draw(st.integers(2, max_n))
    d = draw(st.integers(1, max_d))
    X = rng.normal(size=(n, d))
    edge = draw(st.sampled_from(["none", "constant", "duplicate", "combination", "exact", "integer"]))
    if edge == "constant":
        X[:, 0] = 0.1
    elif edge == "duplicate" and d >= 2:
        X[:, 1] = X[:, 0]
    elif edge == "combination" and d >= 3:
        X[:, 2] = X[:, 0] - 2 * X[:, 1]
    elif edge == "integer":
        X = np.round(X)
    y = X @ rng.normal(size=d) + draw(st.sampled_from([0.0, 0.3, 3.0])) * rng.normal(size=n)
    if edge == "exact":
        y = 2.0 * X[:, 0] + 1.0
    weights = draw(st.sampled_from(["none", "random", "binary"]))
    w = None
    if weights == "random":
        w = rng.random(n)
    elif weights == "binary":
        w = (rng.random(n) > 0.3).astype(float)
        w[0] = 1.0
    return X, y, w, rng


@st.composite
def _greedy_calls(draw):
    X, y, w, rng = draw(_data())
    d = X.shape[1]
    costs = rng.choice(draw(st.sampled_from([[1.0], [0.0, 1.0, 2.0, 5.0], [1.0, 5.0, 20.0, 50.0, 100.0]])), size=d)
    budget = draw(st.sampled_from([0.0, 1.0, 2.5, 7.0, 100.0, math.inf]))
    return Call((X, y, costs, budget), {"sample_weight": w, "greedy": draw(_GREEDY)})


@st.composite
def _r2_calls(draw):
    X, y, w, rng = draw(_data())
    d = X.shape[1]
    subset = [j for j in range(d) if rng.random() < 0.5]
    return Call((X, y, subset), {"sample_weight": w})


@st.composite
def _table_calls(draw):
    X, y, w, _ = draw(_data(max_d=5))
    return Call((X, y), {"sample_weight": w})


@st.composite
def _ratio_calls(draw):
    X, y, w, rng = draw(_data(max_n=16, max_d=5))
    d = X.shape[1]
    k = draw(st.integers(1, d))
    within = None if draw(st.booleans()) else [j for j in range(d) if rng.random() < 0.5]
    return Call((X, y, k), {"within": within, "sample_weight": w})


@st.composite
def _set_tables(draw):
    """Random set functions: monotone coverage functions, or arbitrary values (ties included)."""
    rng = np.random.default_rng(draw(seeds()))
    d = draw(st.integers(1, 6))
    if draw(st.booleans()):
        universe = rng.integers(2, 12)
        sets = [rng.random(universe) < 0.4 for _ in range(d)]
        weights = rng.integers(1, 5, size=universe).astype(float)
        table = np.array([weights[np.any([sets[j] for j in range(d) if m >> j & 1] or [np.zeros(universe, bool)],
                                          axis=0)].sum() for m in range(1 << d)])
    else:
        table = np.round(rng.normal(size=1 << d), 1)
    return table, d, rng


@st.composite
def _cardinality_calls(draw):
    table, d, _ = draw(_set_tables())
    return Call((table, draw(st.integers(1, d))))


@st.composite
def _budgeted_calls(draw):
    table, d, rng = draw(_set_tables())
    costs = rng.integers(1, 6, size=d).astype(float)
    return Call((table, costs, draw(st.sampled_from([0.5, 1.0, 3.0, 6.0, math.inf]))), {"greedy": draw(_GREEDY)})


@st.composite
def _tree_calls(draw):
    X, y, w, rng = draw(_data(max_n=30, max_d=5))
    d = X.shape[1]
    costs = rng.choice([1.0, 2.0, 5.0], size=d)
    depth = draw(st.integers(1, 3))
    # budgets below the cheapest cost are refused (bad inputs below): draw them at or above it
    node_budget = max(draw(st.sampled_from([1.0, 2.0, 5.0, math.inf])), float(costs.min()))
    budget = max(draw(st.sampled_from([2.0, 6.0, math.inf])), float(costs.min()))
    soft = draw(st.booleans())
    return Call((X, y, costs, depth, node_budget), {"budget": budget, "soft": soft, "sample_weight": w,
                                                    "greedy": draw(_GREEDY)})


@st.composite
def _model_calls(draw):
    call = draw(_tree_calls())
    model = fast.budgeted.fit_tree(*call.args, **call.kwargs)
    rng = np.random.default_rng(draw(seeds()))
    X = call.args[0]
    Xnew = np.vstack([X, rng.normal(size=(draw(st.integers(1, 8)), X.shape[1]))])
    return Call((model, Xnew))


@st.composite
def _l1_calls(draw):
    rng = np.random.default_rng(draw(seeds()))
    n = draw(st.integers(4, 20))
    d = draw(st.integers(1, 4))
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + rng.normal(size=n) > 0, 1.0, -1.0)
    costs = rng.choice([1.0, 2.0, 5.0], size=d)
    lam = draw(st.sampled_from([0.0, 0.01, 0.1, 1.0]))
    return Call((X, y, costs, lam), {"max_iter": 200})


_X = np.arange(12.0).reshape(4, 3) ** 1.5
_Y = np.array([1.0, 2.0, 0.0, 5.0])
_BAD_GREEDY = st.sampled_from([
    Call((_X, _Y, [1.0, -1.0, 1.0], 2.0)),          # negative cost
    Call((_X, _Y, [1.0, 1.0], 2.0)),                # wrong length
    Call((_X, _Y, [1.0, 1.0, 1.0], -1.0)),          # negative budget
    Call((_X, _Y, [1.0, 1.0, 1.0], float("nan"))),  # NaN budget
    Call((np.where(_X > 5, np.nan, _X), _Y, [1.0, 1.0, 1.0], 2.0)),  # NaN in X
    Call((_X, _Y[:3], [1.0, 1.0, 1.0], 2.0)),       # length mismatch
    Call((_X, _Y, [1.0, 1.0, 1.0], 2.0), {"sample_weight": [1.0, -1.0, 1.0, 1.0]}),
    Call((_X, _Y, [1.0, 1.0, 1.0], "2")),
    Call((_X, _Y, [1.0, 1.0, 1.0], 2.0), {"greedy": "skip"}),  # unknown greedy rule
])
_BAD_TREE = st.sampled_from([
    Call((_X, _Y, [1.0, 0.0, 1.0], 2, 1.0)),        # zero cost (a user's costs must be > 0)
    Call((_X, _Y, [1.0, 1.0, 1.0], 0, 1.0)),        # depth < 1
    Call((_X, _Y, [1.0, 1.0, 1.0], 2.0, 1.0)),      # depth not an int
    Call((_X, _Y, [1.0, 1.0, 1.0], 2, -1.0)),
    Call((_X, _Y, [1.0, 1.0, 1.0], 2, 1.0), {"soft": 1}),
    Call((_X, _Y, [1.0, 1.0, 1.0], 2, 1.0), {"sample_weight": np.zeros(4)}),
    Call((_X, np.array([1.0, np.nan, 0.0, 1.0]), [1.0, 1.0, 1.0], 2, 1.0)),
    Call((_X, _Y, [1.0, 2.0, 1.5], 2, 0.5)),                    # node_budget below the cheapest cost
    Call((_X, _Y, [1.0, 2.0, 1.5], 2, 1.0), {"budget": 0.75}),  # budget below the cheapest cost
    Call((_X, _Y, [1.0, 1.0, 1.0], 2, 1.0), {"greedy": None}),  # greedy rule not a str
])
_MODEL = fast.budgeted.fit_tree(_X, _Y, [1.0, 1.0, 1.0], 2, 1.0)
_BAD_MODEL = st.sampled_from([
    Call((_MODEL, np.ones((2, 2)))),
    Call((_MODEL, np.ones(3))),
    Call(("model", _X)),
    Call((_MODEL, np.full((1, 3), np.inf))),
])
_BAD_TABLE = st.sampled_from([
    Call((np.zeros(3), 1)),
    Call((np.array([0.0, np.nan]), 1)),
    Call((np.zeros(4), 3)),
    Call((np.zeros(4), 0)),
])
_BAD_BUDGETED = st.sampled_from([
    Call((np.zeros(4), [1.0, 0.0], 1.0)),
    Call((np.zeros(4), [1.0], 1.0)),
    Call((np.zeros(5), [1.0, 1.0], 1.0)),
    Call((np.zeros(4), [1.0, 1.0], -1.0)),
    Call((np.zeros(4), [1.0, 1.0], 1.0), {"greedy": "best"}),
])
_BAD_R2 = st.sampled_from([
    Call((_X, _Y, [0, 0])),
    Call((_X, _Y, [3])),
    Call((_X, _Y, [1.5])),
    Call((_X, _Y, "01")),
])
_BAD_RATIO = st.sampled_from([
    Call((_X, _Y, 0)),
    Call((_X, _Y, 4)),
    Call((np.ones((4, 15)), _Y, 2)),
    Call((_X, _Y, 2), {"within": [5]}),
])
_BAD_L1 = st.sampled_from([
    Call((_X, _Y, [1.0, 1.0, 1.0], 0.1)),  # labels not in {-1, +1}
    Call((_X, np.array([1.0, -1.0, 1.0, -1.0]), [1.0, 1.0, 1.0], -0.1)),
    Call((_X, np.array([1.0, -1.0, 1.0, -1.0]), [1.0, 0.0, 1.0], 0.1)),
    Call((_X, np.array([1.0, -1.0, 1.0, -1.0]), [1.0, 1.0, 1.0], 0.1), {"max_iter": 0}),
])


def _pair(name, inputs, claim, bad, **kw):
    return Pair(getattr(reference.budgeted, name), getattr(fast.budgeted, name), inputs, claim=claim,
                bad_inputs=bad, **kw)


PAIRS = {
    "budgeted.r_squared": _pair("r_squared", _r2_calls(), "kusner2016.ch2.eq12", _BAD_R2, **_TOL, max_examples=60),
    "budgeted.r_squared_table": _pair("r_squared_table", _table_calls(), "kusner2016.ch2.eq12", st.sampled_from([
        Call((np.ones((3, 15)), np.arange(3.0))), Call((_X, _Y[:2])), Call((_X, _Y), {"sample_weight": [1.0] * 3})]),
        **_TOL, max_examples=30),
    "budgeted.greedy_select": _pair("greedy_select", _greedy_calls(), "kusner2016.ch2.eq11", _BAD_GREEDY,
                                    max_examples=120),
    "budgeted.cardinality_greedy": _pair("cardinality_greedy", _cardinality_calls(), "kusner2016.ch1.eq1",
                                         _BAD_TABLE, max_examples=80),
    "budgeted.budgeted_greedy": _pair("budgeted_greedy", _budgeted_calls(), "kusner2016.ch2.eq10", _BAD_BUDGETED,
                                      max_examples=80),
    "budgeted.submodularity_ratio": _pair("submodularity_ratio", _ratio_calls(), "kusner2016.ch2.def3", _BAD_RATIO,
                                          rtol=1e-6, atol=1e-9, max_examples=25,
                                          note="ratio of R^2 differences: rtol 1e-6 (differences of near-equal R^2)"),
    "budgeted.fit_tree": _pair("fit_tree", _tree_calls(), "kusner2016.ch2.alg1", _BAD_TREE, **_TOL, max_examples=40),
    "budgeted.tree_leaves": _pair("tree_leaves", _model_calls(), "kusner2016.ch2.alg1", _BAD_MODEL, max_examples=30),
    "budgeted.tree_decision": _pair("tree_decision", _model_calls(), "kusner2016.ch2.alg1", _BAD_MODEL, **_TOL,
                                    max_examples=30),
    "budgeted.path_cost": _pair("path_cost", _model_calls(), "kusner2016.ch2.test-cost", _BAD_MODEL,
                                max_examples=30),
    "budgeted.l1_logistic": _pair("l1_logistic", _l1_calls(), "kusner2016.ch2.eq5", _BAD_L1, rtol=1e-6, atol=1e-8,
                                  max_examples=15, note="200 FISTA steps, same sequence in both; rounding only"),
}
