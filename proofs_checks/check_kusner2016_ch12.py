"""Exhaustive checks of kusner2016 ch. 1-2 (submodularity, greedy guarantees, the ASTC node objective).

Every bound is tested against the optimum found by enumerating ALL subsets of small ground sets; the worst ratios
found are printed (pytest -s) and quoted in spec/claims.d/kusner2016_ch12.toml.
"""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np

import fast.budgeted as F
import reference.budgeted as R
from spec.links import checks

E1 = 1 - 1 / math.e


def _coverage_table(rng, d, universe):
    sets = [rng.random(universe) < rng.uniform(0.1, 0.6) for _ in range(d)]
    weights = rng.integers(1, 10, size=universe).astype(float)
    out = np.zeros(1 << d)
    for m in range(1, 1 << d):
        cov = np.zeros(universe, bool)
        for j in range(d):
            if m >> j & 1:
                cov |= sets[j]
        out[m] = weights[cov].sum()
    return out


def _subsets_cost(d, costs):
    return np.array([sum(costs[j] for j in range(d) if m >> j & 1) for m in range(1 << d)])


def _popcount(d):
    return np.array([bin(m).count("1") for m in range(1 << d)])


# ------------------------------------------------------------------------------------------------ chapter 1
@checks("kusner2016.ch1.def2")
def check_def2_condition_i_not_equivalent():
    """(ii) and (iii) agree on random set functions; (i) does not imply them (the 3-element counterexample)."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        d = 3
        f = np.round(rng.normal(size=1 << d), 0)
        f[0] = 0.0
        if rng.random() < 0.5:  # make some of them submodular: concave of a modular function
            w = rng.random(d)
            f = np.array([math.sqrt(sum(w[j] for j in range(d) if m >> j & 1)) for m in range(1 << d)])
        ii = all(f[a] + f[b] >= f[a | b] + f[a & b] - 1e-12 for a in range(8) for b in range(8))
        iii = all(f[a | 1 << k] - f[a] >= f[b | 1 << k] - f[b] - 1e-12
                  for b in range(8) for a in range(8) if a & b == a for k in range(d) if not b >> k & 1)
        assert ii == iii
    f = [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0]  # f(empty)=0, singletons 1, pairs 1, V = 3
    cond_i = all(f[m] <= sum(f[1 << j] for j in range(3) if m >> j & 1) + 1e-12 for m in range(8))
    cond_iii = all(f[a | 1 << k] - f[a] >= f[b | 1 << k] - f[b]
                   for b in range(8) for a in range(8) if a & b == a for k in range(3) if not b >> k & 1)
    assert cond_i and not cond_iii


@checks("kusner2016.ch1.def1")
def check_def1_modular_has_zero_at_empty_and_orthogonal_r2_is_modular():
    rng = np.random.default_rng(1)
    h = rng.normal(size=4)
    table = np.array([sum(h[j] for j in range(4) if m >> j & 1) for m in range(16)])
    assert table[0] == 0.0
    assert all(abs(table[m] - sum(table[1 << j] for j in range(4) if m >> j & 1)) < 1e-12 for m in range(16))


@checks("kusner2016.ch1.thm1", "kusner2016.ch1.eq1")
def check_nemhauser_exhaustive():
    """Greedy >= (1 - 1/e) OPT for every k on 400 random weighted-coverage functions with d <= 10."""
    rng = np.random.default_rng(2)
    worst = 1.0
    for trial in range(400):
        d = int(rng.integers(3, 11))
        table = _coverage_table(rng, d, int(rng.integers(3, 25)))
        pc = _popcount(d)
        for k in range(1, d + 1):
            g = F.cardinality_greedy(table, k)
            gv = table[sum(1 << j for j in g)]
            opt = table[pc <= k].max()
            if opt > 0:
                worst = min(worst, gv / opt)
            assert gv >= E1 * opt - 1e-9, (trial, k, gv, opt)
    print(f"Nemhauser: worst greedy/OPT over 400 coverage functions = {worst:.4f} >= {E1:.4f}")
    assert worst < 1.0  # greedy is not always optimal here: the check would see a violation


@checks("kusner2016.ch1.thm1")
def check_nemhauser_tight_family():
    """The classic near-tight instance (k disjoint 'greedy bait' sets): ratio approaches 1 - (1 - 1/k)^k."""
    for k in (2, 3, 4):
        # ground elements: k optimal sets O_1..O_k (each covers one column of a k x k^k grid), greedy sets
        # built so greedy's gain always ties the optimum's (lowest index wins: greedy sets come first).
        n = k ** k
        grid = np.zeros((k, n))
        opt_sets = [np.zeros(k * n, bool) for _ in range(k)]
        for i in range(k):
            opt_sets[i][i * n:(i + 1) * n] = True
        # greedy set t takes a (1/k)(1 - 1/k)^t share of each optimal set's elements
        remaining = [list(range(i * n, (i + 1) * n)) for i in range(k)]
        greedy_sets = []
        for t in range(k):
            s = np.zeros(k * n, bool)
            take = round(n / k * (1 - 1 / k) ** t)
            for i in range(k):
                s[remaining[i][:take]] = True
                remaining[i] = remaining[i][take:]
            greedy_sets.append(s)
        sets = greedy_sets + opt_sets
        d = 2 * k
        table = np.array([np.any([sets[j] for j in range(d) if m >> j & 1] or [np.zeros(k * n, bool)], axis=0).sum()
                          for m in range(1 << d)], dtype=float)
        g = F.cardinality_greedy(table, k)
        ratio = table[sum(1 << j for j in g)] / table[_popcount(d) <= k].max()
        bound = 1 - (1 - 1 / k) ** k
        print(f"k={k}: greedy picks {g}, ratio {ratio:.4f}, 1-(1-1/k)^k = {bound:.4f}, 1-1/e = {E1:.4f}")
        assert ratio >= E1 - 1e-12 and ratio <= bound + 1e-12


# ------------------------------------------------------------------------------------------------ chapter 2 theory
@checks("kusner2016.ch2.streeter", "kusner2016.ch2.eq10")
def check_streeter_golovin_budgeted_prefix():
    """s(G<L>) >= (1 - 1/e) max{s(C): c(C) <= L} for the cost-benefit greedy prefix, coverage functions d <= 10."""
    rng = np.random.default_rng(3)
    worst = 1.0
    for trial in range(300):
        d = int(rng.integers(3, 11))
        table = _coverage_table(rng, d, int(rng.integers(3, 25)))
        costs = rng.integers(1, 8, size=d).astype(float)
        cost_of = _subsets_cost(d, costs)
        for B in (1.0, 3.0, 5.0, 9.0, 15.0):
            g = F.budgeted_greedy(table, costs, B)
            L = sum(costs[j] for j in g)
            assert L <= B
            gv = table[sum(1 << j for j in g)]
            opt = table[cost_of <= L + 1e-12].max()
            if opt > 0:
                worst = min(worst, gv / opt)
            assert gv >= E1 * opt - 1e-9
    print(f"Streeter-Golovin: worst s(G<L>)/s(C*<L>) = {worst:.4f} >= {E1:.4f}")


@checks("kusner2016.ch2.z-props")
def check_r2_nonnegative_monotone():
    rng = np.random.default_rng(4)
    for trial in range(60):
        n, d = int(rng.integers(3, 30)), int(rng.integers(1, 7))
        X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
        y = X @ rng.normal(size=d) + rng.normal(size=n)
        w = rng.random(n) if trial % 2 else None
        z = F.r_squared_table(X, y, w)
        assert z[0] == 0.0 and np.all(z >= 0) and np.all(z <= 1)
        for m in range(1 << d):
            for j in range(d):
                assert z[m | 1 << j] >= z[m] - 1e-12


def _orthogonal_design(rng, n, d, w=None):
    w = np.ones(n) if w is None else w
    Z = rng.normal(size=(n, d))
    Z = Z - (w @ Z) / w.sum()
    Q, _ = np.linalg.qr(np.sqrt(w)[:, None] * Z)
    X = Q / np.sqrt(w)[:, None] * rng.uniform(0.5, 3.0, size=d)  # weighted-orthogonal, weighted-centred
    return X


@checks("kusner2016.ch2.orth")
def check_orthogonal_features_modular_gamma_one():
    """Node-orthogonal features: z(A) = sum_a (x_a^T y)^2/(||x_a||^2 Var) exactly, gamma = 1, greedy optimal.
    Orthogonal only globally (not on the node's weighted sample): gamma != 1 in general."""
    rng = np.random.default_rng(5)
    for trial in range(20):
        n, d = 12, int(rng.integers(2, 6))
        w = rng.random(n) + 0.1 if trial % 2 else None
        X = _orthogonal_design(rng, n, d, w)
        y = rng.normal(size=n)
        z = R.r_squared_table(X, y, w)
        for m in range(1 << d):
            assert abs(z[m] - sum(z[1 << j] for j in range(d) if m >> j & 1)) < 1e-12
        assert abs(R.submodularity_ratio(X, y, d, sample_weight=w) - 1.0) < 1e-9
        pc = _popcount(d)
        for k in range(1, d + 1):
            g = F.cardinality_greedy(z, k)
            assert abs(z[sum(1 << j for j in g)] - z[pc <= k].max()) < 1e-12
    # globally orthogonal, but a node keeps only half the rows: not modular on the node
    X = _orthogonal_design(rng, 12, 3)
    y = X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.normal(size=12)
    node = (np.arange(12) < 6).astype(float)
    gamma_node = F.submodularity_ratio(X, y, 3, sample_weight=node)
    print(f"globally orthogonal features, node of 6/12 rows: gamma = {gamma_node:.4f}")
    assert abs(gamma_node - 1.0) > 1e-3


@checks("kusner2016.ch2.def3")
def check_submodularity_ratio_in_unit_interval():
    """With |S| = 1 allowed (Das-Kempe), every positive singleton gain gives ratio 1, so gamma <= 1; gamma = 1
    iff z is submodular on the pairs considered; and gamma > 0 for R^2 of non-degenerate data."""
    rng = np.random.default_rng(6)
    values = []
    for _ in range(40):
        n, d = 15, int(rng.integers(2, 6))
        X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
        y = X @ rng.normal(size=d) + rng.normal(size=n)
        g = F.submodularity_ratio(X, y, d)
        values.append(g)
        assert 0 < g <= 1 + 1e-12
    print(f"gamma over 40 correlated instances: min {min(values):.4g}, max {max(values):.4g}")


def _correlation(X, w=None):
    w = np.ones(X.shape[0]) if w is None else w
    Xc = X - (w @ X) / w.sum()
    C = (Xc * w[:, None]).T @ Xc
    s = np.sqrt(np.diag(C))
    return C / np.outer(s, s)


@checks("kusner2016.ch2.dk")
def check_das_kempe_lambda_min():
    """gamma_{[d],k} >= lambda_min(C) (C: the correlation matrix of the node's weighted sample), every k."""
    rng = np.random.default_rng(7)
    worst_slack, ratios = math.inf, []
    for trial in range(60):
        n, d = int(rng.integers(8, 25)), int(rng.integers(2, 7))
        mix = np.eye(d) + rng.normal(scale=trial / 20, size=(d, d))
        X = rng.normal(size=(n, d)) @ mix
        y = X @ rng.normal(size=d) + rng.normal(size=n)
        w = (rng.random(n) > 0.3).astype(float) if trial % 3 == 0 else None
        if w is not None and w.sum() < d + 2:
            w = None
        lam = float(np.linalg.eigvalsh(_correlation(X, w))[0])
        for k in range(1, d + 1):
            g = F.submodularity_ratio(X, y, k, sample_weight=w)
            assert g >= lam - 1e-9, (trial, k, g, lam)
            worst_slack = min(worst_slack, g - lam)
        ratios.append(g / max(lam, 1e-300))
    print(f"Das-Kempe: min gamma - lambda_min = {worst_slack:.3g}; median gamma/lambda_min = {np.median(ratios):.3g}")


def _exhaustive_budgeted_opt(z, cost_of, L):
    return z[cost_of <= L + 1e-12].max()


def _grubb_bagnell_ratio(X, y, costs, B):
    d = X.shape[1]
    g = F.greedy_select(X, y, costs, B)
    z = F.r_squared_table(X, y)
    cost_of = _subsets_cost(d, costs)
    L = sum(costs[j] for j in g)
    zg = z[sum(1 << j for j in g)]
    mask_opt = int(np.argmax(np.where(cost_of <= L + 1e-12, z, -1.0)))
    zopt = z[mask_opt]
    k_opt = bin(mask_opt).count("1")
    gamma = F.submodularity_ratio(X, y, max(k_opt, 1), within=g) if g else F.submodularity_ratio(X, y, 1)
    return zg, zopt, gamma, g


@checks("kusner2016.ch2.thm2")
def check_grubb_bagnell_random_and_adversarial():
    """z(G<L>) >= (1 - e^{-gamma_{G,K}}) z(S*<L>), S*<L> by exhaustive search, random costs and budgets;
    random, correlated and adversarial (greedy-misleading) designs, d <= 7."""
    rng = np.random.default_rng(8)
    worst_ratio, worst_slack = 1.0, math.inf
    for trial in range(120):
        n, d = int(rng.integers(8, 20)), int(rng.integers(2, 7))
        X = rng.normal(size=(n, d)) @ (np.eye(d) + rng.normal(scale=(trial % 5) / 2, size=(d, d)))
        y = X @ rng.normal(size=d) + rng.normal(size=n) * rng.choice([0.01, 0.5, 2.0])
        costs = rng.integers(1, 6, size=d).astype(float)
        for B in (2.0, 4.0, 7.0):
            zg, zopt, gamma, _ = _grubb_bagnell_ratio(X, y, costs, B)
            assert zg >= (1 - math.exp(-gamma)) * zopt - 1e-12
            if zopt > 1e-9:
                worst_ratio = min(worst_ratio, zg / zopt)
                worst_slack = min(worst_slack, zg / zopt - (1 - math.exp(-gamma)))
    # adversarial: y = x1 + x2 = eps v with x1 = u, x2 = -u + eps v nearly cancelling (only the PAIR explains y),
    # and a decoy y + noise (correlation about 1 / sqrt(1 + dn^2)) that greedy takes first under budget 2
    adv = []
    for eps in (0.3, 0.1, 0.03):
        for dn in (1.0, 2.0, 4.0, 8.0):
            n = 60
            u, v, noise = rng.normal(size=(3, n))
            x1, x2 = u, -u + eps * v
            y = x1 + x2
            X = np.column_stack([x1, x2, y + dn * eps * noise])
            zg, zopt, gamma, g = _grubb_bagnell_ratio(X, y, np.array([1.0, 1.0, 1.0]), 2.0)
            adv.append((eps, dn, g, zg, zopt, gamma))
            assert zg >= (1 - math.exp(-gamma)) * zopt - 1e-12
            worst_ratio = min(worst_ratio, zg / zopt)
    print(f"Grubb-Bagnell: worst z(G)/z(S*) = {worst_ratio:.4f}; min slack over the bound (random) = {worst_slack:.4f}")
    for eps, dn, g, zg, zopt, gamma in adv:
        print(f"  adversarial eps={eps} decoy noise={dn}: greedy {g}, z(G)={zg:.4f}, z(S*)={zopt:.4f}, "
              f"ratio {zg / zopt:.4f}, gamma_G,K={gamma:.4g}, bound 1-e^-gamma={1 - math.exp(-gamma):.4f}")
    assert worst_ratio < 0.2  # the adversarial designs push greedy far from the optimum: the check can bite


@checks("kusner2016.ch2.eq15", "kusner2016.ch2.gs", "kusner2016.ch2.eq13-eq14")
def check_eq15_gain_identities():
    """For each greedy step: z(G u a) - z(G) = (q_a^T y)^2 / Var (the greedy's recorded gain equals the R^2
    table's difference), l(G) = y^T y - y^T Q Q^T y, and beta = R^{-1} Q^T y equals numpy's lstsq."""
    rng = np.random.default_rng(9)
    for trial in range(40):
        n, d = int(rng.integers(5, 25)), int(rng.integers(1, 6))
        X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
        y = X @ rng.normal(size=d) + rng.normal(size=n)
        w = rng.random(n) + 0.05
        costs = np.ones(d)
        for impl in (R, F):
            args = (X.tolist(), y.tolist(), w.tolist(), costs.tolist(), math.inf) if impl is R else (X, y, w, costs, math.inf)
            sel, gains, coef, b = impl._node_greedy(*args)
            z = F.r_squared_table(X, y, w)
            mask = 0
            for j, gj in zip(sel, gains):
                assert abs((z[mask | 1 << j] - z[mask]) - gj) < 1e-9
                mask |= 1 << j
            sw = np.sqrt(w)
            A = np.column_stack([np.ones(n), X[:, sel]]) * sw[:, None]
            sol = np.linalg.lstsq(A, sw * y, rcond=None)[0]
            np.testing.assert_allclose(np.r_[b, np.asarray(coef)[sel]], sol, rtol=1e-8, atol=1e-10)
            # eq. (2.14): l(G) = y^T y - y^T Q Q^T y on the centred, rescaled problem
            yt = sw * (y - (w @ y) / w.sum())
            Xt = sw[:, None] * (X - (w @ X) / w.sum())
            Q, _ = np.linalg.qr(Xt[:, sel]) if sel else (np.zeros((n, 0)), None)
            resid = yt - Xt[:, sel] @ np.asarray(coef)[sel]
            assert abs(resid @ resid - (yt @ yt - (Q.T @ yt) @ (Q.T @ yt))) < 1e-9 * (yt @ yt)


@checks("kusner2016.ch2.eq12")
def check_eq12_printed_scale():
    """As printed, Var(y; p) = sum_i p_i (y_i - ybar)^2 (no 1/n, global mean) and l(A) has 1/n and no intercept:
    z(empty) = 1 - 1/n != 0 on centred y; with the 1/n and the node mean (our r_squared) z(empty) = 0."""
    rng = np.random.default_rng(10)
    n = 50
    y = rng.normal(size=n)
    y = (y - y.mean()) / np.linalg.norm(y - y.mean())
    p = (rng.random(n) > 0.5).astype(float)
    var_printed = float(np.sum(p * (y - y.mean()) ** 2))
    l_empty = float(np.sum(p * y ** 2)) / n
    z_empty_printed = (var_printed - l_empty) / var_printed
    print(f"printed z(empty) = {z_empty_printed:.4f} (1 - 1/n = {1 - 1 / n:.4f})")
    assert abs(z_empty_printed - (1 - 1 / n)) < 1e-12
    assert R.r_squared(rng.normal(size=(n, 2)), y, [], p) == 0.0


# ------------------------------------------------------------------------------------------------ Algorithm 1
@checks("kusner2016.ch2.alg1")
def check_alg1_printed_loop_overshoots_and_line11_degenerate():
    """Printed `while sum c(G) <= B: add argmax` overshoots B; the prefix rule never does.  Printed line 11
    (p_i > theta with p in {0,1}, theta a median score) sends all of a node's inputs to one child."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 5))
    y = X @ np.array([3.0, 1.0, 0.5, 0.2, 0.1]) + 0.1 * rng.normal(size=60)
    costs = np.array([4.0, 1.0, 1.0, 1.0, 1.0])
    B = 5.0
    # printed loop: keep adding while the spent cost is <= B
    z = F.r_squared_table(X, y)
    G, mask, spent = [], 0, 0.0
    while spent <= B and len(G) < 5:
        cand = [j for j in range(5) if not mask >> j & 1]
        j = max(cand, key=lambda a: ((z[mask | 1 << a] - z[mask]) / costs[a], -a))
        G.append(j)
        mask |= 1 << j
        spent += costs[j]
    prefix = F.greedy_select(X, y, costs, B)
    print(f"printed loop picks {G} costing {spent} > B = {B}; the prefix rule picks {prefix} "
          f"costing {costs[prefix].sum()}")
    assert spent > B and costs[prefix].sum() <= B
    # line 11 as printed: p^u_i = 1 if p^k_i > theta^k
    model = F.fit_tree(X, y, costs, 2, 5.0)
    theta = model.threshold[0]
    p = np.ones(60)
    upper = (p > theta).sum()
    assert upper in (0, 60)
    leaves = F.tree_leaves(model, X)
    assert abs((leaves == 0).sum() - (leaves == 1).sum()) <= 1


@checks("kusner2016.ch2.threshold")
def check_threshold_sends_half():
    """Distinct scores: the children of every node receive floor/ceil halves of its (hard) inputs."""
    rng = np.random.default_rng(12)
    for trial in range(20):
        n, d = int(rng.integers(8, 80)), int(rng.integers(2, 6))
        X = rng.normal(size=(n, d))
        y = X @ rng.normal(size=d) + rng.normal(size=n)
        model = F.fit_tree(X, y, np.ones(d), 3, 2.0)
        for k in range(3):
            left, right = model.weight[2 * k + 1], model.weight[2 * k + 2]
            if model.weight[k] > 0 and model.features[k]:
                assert abs(left - right) <= 1 and left + right == model.weight[k]


@checks("kusner2016.ch2.test-cost", "kusner2016.ch2.eq8")
def check_path_budget_and_distinct_cost():
    """Every root-to-leaf path costs <= budget; path_cost = brute-force sum over the union of the path's features;
    a node never pays again for a feature an ancestor selected."""
    rng = np.random.default_rng(13)
    for trial in range(30):
        n, d = int(rng.integers(20, 60)), int(rng.integers(2, 8))
        X = rng.normal(size=(n, d))
        y = np.sign(X @ rng.normal(size=d) + rng.normal(size=n))
        costs = rng.choice([1.0, 5.0, 20.0, 50.0], size=d)
        budget = float(rng.choice([20.0, 60.0, 100.0]))
        budget = max(budget, float(costs.min()))  # below the cheapest cost fit_tree refuses a budget
        node_budget = max(budget / 2, float(costs.min()))
        model = F.fit_tree(X, y, costs, int(rng.integers(1, 5)), node_budget, budget=budget, soft=bool(trial % 2))
        Xt = rng.normal(size=(50, d))
        leaves = F.tree_leaves(model, Xt)
        pc = F.path_cost(model, Xt)
        ni = (1 << (model.depth - 1)) - 1
        for i in range(50):
            k, path = leaves[i] + ni, []
            while True:
                path.append(k)
                if k == 0:
                    break
                k = (k - 1) // 2
            used = set().union(*[set(model.features[j]) for j in path])
            assert abs(pc[i] - sum(costs[j] for j in used)) < 1e-9
            assert pc[i] <= budget + 1e-9
            for j in path:  # ancestors' features come first in a node's selection
                anc = set().union(*[set(model.features[a]) for a in path if a < j and _is_ancestor(a, j)])
                f = model.features[j]
                assert set(f[:len(anc & set(f))]) == anc & set(f)


def _is_ancestor(a, j):
    while j > 0:
        j = (j - 1) // 2
        if j == a:
            return True
    return False


# ------------------------------------------------------------------------------------------------ chapter 1 tables
@checks("kusner2016.ch1.tab1")
def check_table11_losses():
    """Huber is continuous and C^1 at |r| = delta; the printed 0-1 loss 1[y != w^T x] is 1 for almost every
    correct prediction (w^T x = 0.7, y = 1), the intended 1[y != sign(w^T x)] is 0."""
    delta = 1.3

    def huber(r):
        return 0.5 * r * r if abs(r) <= delta else delta * abs(r) - 0.5 * delta * delta

    h = 1e-7
    assert abs(huber(delta + h) - huber(delta - h)) < 1e-6
    dplus = (huber(delta + 2 * h) - huber(delta + h)) / h
    dminus = (huber(delta - h) - huber(delta - 2 * h)) / h
    assert abs(dplus - dminus) < 1e-5
    y, s = 1, 0.7
    assert (1 if y != s else 0) == 1 and (1 if y != math.copysign(1, s) else 0) == 0
    # hinge / logistic / exponential are upper bounds of the (sign) 0-1 loss up to log 2 scaling
    for m in np.linspace(-3, 3, 61):
        zero_one = 1.0 if m <= 0 else 0.0
        assert max(0.0, 1 - m) >= zero_one and math.exp(-m) >= zero_one
        assert math.log1p(math.exp(-m)) / math.log(2) >= zero_one - 1e-12


@checks("kusner2016.ch1.tab2")
def check_table12_regularisers():
    w = np.array([0.0, -2.0, 0.5, 0.0, 3.0])
    assert np.count_nonzero(w) == 3 and abs(np.abs(w).sum() - 5.5) < 1e-12 and abs((w ** 2).sum() - 13.25) < 1e-12
    def group_norm(v, groups):  # the l1/l2 group regulariser of Table 1.2: sum_G ||v_G||_2
        return sum(math.sqrt(sum(v[j] ** 2 for j in g)) for g in groups)

    assert abs(group_norm(w, [[0, 1], [2, 3, 4]]) - (2 + math.sqrt(9.25))) < 1e-12
    # its limits: singleton groups give the l1 norm (5.5), one group of all features the l2 norm (sqrt 13.25)
    assert abs(group_norm(w, [[j] for j in range(5)]) - 5.5) < 1e-12
    assert abs(group_norm(w, [list(range(5))]) - math.sqrt(13.25)) < 1e-12


@checks("kusner2016.ch2.eq2", "kusner2016.ch2.eq3-eq4")
def check_eq2_lagrangian_l0_cost():
    """sum_{j: beta_j != 0} c(j) (eq. 2.2) equals sum_j c(j) ||beta_j||_0 (eq. 2.3-2.4), on all sign patterns."""
    c = np.array([1.0, 5.0, 20.0, 50.0])
    for mask in range(16):
        beta = np.array([(-1.5 if mask >> j & 1 else 0.0) for j in range(4)])
        assert sum(c[j] for j in range(4) if beta[j] != 0) == sum(c[j] * (beta[j] != 0) for j in range(4))
