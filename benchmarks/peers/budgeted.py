"""Peers rows of fast/budgeted.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import itertools
import math

import numpy as np

from benchmarks.peers._core import _rng, sized


def lstsq_greedy(X, y, costs, budget):
    """Greedy feature selection by R^2 gain per unit cost, one np.linalg.lstsq per candidate and step (with an
    intercept), stopping when the best affordable candidate no longer fits the budget."""
    n, d = X.shape
    chosen, spent = [], 0.0
    base = np.ones((n, 1))
    sst = float(((y - y.mean()) ** 2).sum())
    r2 = 0.0
    while True:
        best, best_k, best_r2 = -np.inf, -1, r2
        for k in range(d):
            if k in chosen or spent + costs[k] > budget:
                continue
            A = np.hstack([base, X[:, chosen + [k]]])
            resid = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
            new = 1.0 - float(resid @ resid) / sst
            if (new - r2) / costs[k] > best:
                best, best_k, best_r2 = (new - r2) / costs[k], k, new
        if best_k < 0:
            return chosen
        chosen.append(best_k)
        spent += costs[best_k]
        r2 = best_r2


def r_squared_lstsq(X, y, subset):
    """1 - RSS / TSS of np.linalg.lstsq on [1, X_A] (the intercept as a column)."""
    A = np.hstack([np.ones((X.shape[0], 1)), X[:, list(subset)]])
    resid = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    tss = float(((y - y.mean()) ** 2).sum())
    return min(1.0, max(0.0, 1.0 - float(resid @ resid) / tss))


def r_squared_table_lstsq(X, y):
    """z(A) for every bitmask A: one np.linalg.lstsq per subset (the empty set: 0)."""
    d = X.shape[1]
    out = np.zeros(1 << d)
    for mask in range(1, 1 << d):
        out[mask] = r_squared_lstsq(X, y, [j for j in range(d) if mask >> j & 1])
    return out


def greedy_table(values, k):
    """cardinality greedy on a set-function table: k argmax steps over the numpy gains of the remaining elements."""
    d = values.size.bit_length() - 1
    mask, out = 0, []
    for _ in range(k):
        cand = np.array([j for j in range(d) if not mask >> j & 1])
        j = int(cand[np.argmax(values[mask | (1 << cand)] - values[mask])])
        out.append(j)
        mask |= 1 << j
    return out


def budgeted_greedy_table(values, costs, budget):
    d = values.size.bit_length() - 1
    mask, out, spent = 0, [], 0.0
    while len(out) < d:
        cand = np.array([j for j in range(d) if not mask >> j & 1])
        gains = values[mask | (1 << cand)] - values[mask]
        i = int(np.argmax(gains / costs[cand]))
        if gains[i] <= 0 or spent + costs[cand[i]] > budget:
            return out
        spent += costs[cand[i]]
        out.append(int(cand[i]))
        mask |= 1 << int(cand[i])
    return out


def submodularity_ratio_numpy(X, y, k):
    """min over L and |S| <= k of sum_s [z(L+s) - z(L)] / [z(L u S) - z(L)]: the z table by lstsq, then the same
    enumeration (itertools.combinations) in Python."""
    d = X.shape[1]
    z = r_squared_table_lstsq(X, y)
    best = math.inf
    for L in range(1 << d):
        rest = [j for j in range(d) if not L >> j & 1]
        for size in range(1, min(k, len(rest)) + 1):
            for S in itertools.combinations(rest, size):
                den = z[L | sum(1 << j for j in S)] - z[L]
                if den > 1e-12:
                    best = min(best, sum(z[L | 1 << j] - z[L] for j in S) / den)
    return best


def route_numpy(model, X):
    """Leaf node of each row: depth - 1 vectorised steps, node = 2 node + 1 + (b_node + x . beta_node > theta_node)
    (the coefficients of each row's node gathered as an (n, d) array)."""
    node = np.zeros(X.shape[0], dtype=np.int64)
    for _ in range(model.depth - 1):
        s = model.intercept[node] + np.einsum("ij,ij->i", X, model.coef[node])
        node = 2 * node + 1 + (s > model.threshold[node])
    return node


def rows_budgeted():
    F = importlib.import_module("fast.budgeted")
    M = "budgeted"
    nd = {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e5, d=20", (100_000, 20)),
          "large": ("n=1e6, d=20", (1_000_000, 20))}
    exhaustive = {"small": ("n=200, d=6", (200, 6)), "mid": ("n=1000, d=10", (1000, 10)),
                  "large": ("n=1000, d=11", (1000, 11))}
    tables = {"small": ("d=6", (6,)), "mid": ("d=10", (10,)), "large": ("d=14", (14,))}

    def regression(n, d, seed=1):
        X = _rng(seed).normal(size=(n, d))
        y = X[:, : max(1, d // 4)] @ _rng(seed + 1).normal(size=max(1, d // 4)) + 0.1 * _rng(seed + 2).normal(size=n)
        return X, y

    def greedy(n, d):
        X = _rng(1).normal(size=(n, d))
        y = X[:, : d // 4] @ _rng(2).normal(size=d // 4) + 0.1 * _rng(3).normal(size=n)
        costs = 1.0 + _rng(4).random(d)
        budget = float(np.sort(costs)[: d // 4].sum())
        return (lambda: F.greedy_select(X, y, costs, budget)), (lambda: lstsq_greedy(X, y, costs, budget))

    def r2(n, d):
        X, y = regression(n, d)
        subset = list(range(0, d, 2))

        def peer():
            from sklearn.linear_model import LinearRegression

            return LinearRegression().fit(X[:, subset], y).score(X[:, subset], y)
        return (lambda: F.r_squared(X, y, subset)), peer

    def r2_table(n, d):
        X, y = regression(n, d)
        return (lambda: F.r_squared_table(X, y)), (lambda: r_squared_table_lstsq(X, y))

    def set_function(d):  # a monotone set function with diminishing gains: sqrt of a weighted coverage
        weights = _rng(5).random(d)
        masks = np.arange(1 << d)
        return np.sqrt(((masks[:, None] >> np.arange(d)) & 1) @ weights)

    def cardinality(d):
        values = set_function(d)
        return (lambda: F.cardinality_greedy(values, d // 2)), (lambda: greedy_table(values, d // 2))

    def budgeted(d):
        values = set_function(d)
        costs = 1.0 + _rng(6).random(d)
        budget = float(costs.sum() / 2)
        return (lambda: F.budgeted_greedy(values, costs, budget)), (lambda: budgeted_greedy_table(values, costs,
                                                                                                  budget))

    def ratio(n, d):
        X, y = regression(n, d)
        return (lambda: F.submodularity_ratio(X, y, 2)), (lambda: submodularity_ratio_numpy(X, y, 2))

    tree_sizes = {"small": ("n=1e3, d=10, depth 3", (1000, 10, 3)), "mid": ("n=1e5, d=20, depth 3", (100_000, 20, 3)),
                  "large": ("n=1e6, d=20, depth 3", (1_000_000, 20, 3))}

    def tree(n, d, depth):
        X, y = regression(n, d)
        costs = 1.0 + _rng(4).random(d)

        def peer():
            from sklearn.tree import DecisionTreeRegressor

            return DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, y)
        return (lambda: F.fit_tree(X, y, costs, depth, 4.0)), peer

    def fitted(n, d, depth):
        X, y = regression(min(n, 10_000), d)
        model = F.fit_tree(X, y, 1.0 + _rng(4).random(d), depth, 4.0)
        return model, regression(n, d, seed=7)[0]

    def leaves(n, d, depth):
        model, X = fitted(n, d, depth)
        return (lambda: F.tree_leaves(model, X)), (lambda: route_numpy(model, X) - ((1 << (depth - 1)) - 1))

    def decision(n, d, depth):
        model, X = fitted(n, d, depth)

        def peer():
            node = route_numpy(model, X)
            return model.intercept[node] + np.einsum("ij,ij->i", X, model.coef[node])
        return (lambda: F.tree_decision(model, X)), peer

    def cost(n, d, depth):
        model, X = fitted(n, d, depth)
        return ((lambda: F.path_cost(model, X)),
                (lambda: model.leaf_cost[route_numpy(model, X) - ((1 << (depth - 1)) - 1)]))

    def l1(n, d):
        X, _ = regression(n, d)
        y = np.where(X[:, 0] - X[:, 1] + 0.5 * _rng(8).normal(size=n) > 0, 1.0, -1.0)
        costs = 1.0 + _rng(4).random(d)
        lam = 0.01

        def peer():  # cost-weighted l1 by rescaling the columns: |beta_j| c_j = |beta'_j| with x'_j = x_j / c_j
            from sklearn.linear_model import LogisticRegression

            fit = LogisticRegression(l1_ratio=1.0, C=1.0 / (n * lam), solver="liblinear", tol=1e-8,
                                     max_iter=5000).fit(X / costs, y)
            return fit.coef_[0] / costs
        return (lambda: F.l1_logistic(X, y, costs, lam)), peer

    return [
        sized(M, "r_squared", "sklearn LinearRegression().fit(X[:, A], y).score(X[:, A], y), |A| = d / 2", r2, nd),
        sized(M, "r_squared_table", "one np.linalg.lstsq on [1, X_A] per subset A", r2_table, exhaustive),
        sized(M, "greedy_select", "greedy over candidates, one np.linalg.lstsq R^2 per candidate and step", greedy,
              {"small": ("n=200, d=20", (200, 20)), "mid": ("n=2000, d=40", (2000, 40)),
               "large": ("n=1e4, d=60", (10_000, 60))}, same=False),
        sized(M, "cardinality_greedy", "k = d / 2 numpy argmax steps over the table's gains", cardinality, tables),
        sized(M, "budgeted_greedy", "numpy argmax of gain / cost steps over the table, budget = half the costs",
              budgeted, tables),
        sized(M, "submodularity_ratio", "z table by lstsq per subset, then the same enumeration (k = 2) in Python",
              ratio, {"small": ("n=200, d=6", (200, 6)), "mid": ("n=500, d=9", (500, 9)),
                      "large": ("n=1000, d=11", (1000, 11))}),
        sized(M, "fit_tree", "sklearn DecisionTreeRegressor(max_depth).fit (axis-aligned splits, no costs: another "
              "model)", tree, {**tree_sizes, "large": ("n=3e5, d=20, depth 3", (300_000, 20, 3))}, same=False),
        sized(M, "tree_leaves", "vectorised routing: depth - 1 steps of a per-row gathered node predictor", leaves,
              tree_sizes),
        sized(M, "tree_decision", "the vectorised routing + the leaf's linear predictor", decision, tree_sizes),
        sized(M, "path_cost", "the vectorised routing + leaf_cost[leaf]", cost, tree_sizes),
        sized(M, "l1_logistic", "sklearn LogisticRegression(l1_ratio=1, solver='liblinear') on X / costs, "
              "C = 1 / (n lam) (penalises the intercept; another solver)", l1,
              {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e4, d=20", (10_000, 20)),
               "large": ("n=2e4, d=20", (20_000, 20))}, same=False),
    ]
