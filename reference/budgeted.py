"""z(A) = (Var(y; p) - l(A)) / Var(y; p) and its cost-benefit greedy; ASTC trees   [kusner2016 ch. 1-2].

Readable pure-Python mirror of :mod:`fast.budgeted` (same names, signatures, results).  Each function follows
the thesis's equations one to one: the node loss (2.9) with the rescaling (2.13), classical Gram-Schmidt
``q_{t+1} = (X_a - Q Q^T X_a) / ||X_a - Q Q^T X_a||`` evaluated per candidate, the gain (2.15)
``(q_{t+1}^T y)^2 / (Var c(a))``, the back-substitution ``beta = R^{-1} Q^T y`` (2.14), Algorithm 1's tree.
Conventions shared with fast (intercept, tolerances, ties, zero costs, feasible-prefix rule and its ``best_of``
remedy (Khuller-Moss-Naor), weighted median, heap order, budgets) are documented in :mod:`spec.budgeted_contract`.
"""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from spec.budgeted_contract import (
    CONST_TOL,
    TIE_TOL,
    GAIN_TOL,
    L1_MAX_ITER,
    L1_TOL,
    SPAN_TOL,
    L1Logistic,
    TreeModel,
    check_budget,
    check_budget_affords_a_feature,
    check_costs,
    check_depth,
    check_exhaustive_d,
    check_greedy,
    check_k,
    check_labels_pm1,
    check_lam,
    check_set_table,
    check_subset,
    check_weights,
    check_xy,
    sigmoid,
)
from spec.links import implements
from spec.validation import as_float_matrix, check_int

__all__ = [
    "r_squared",
    "r_squared_table",
    "greedy_select",
    "cardinality_greedy",
    "budgeted_greedy",
    "submodularity_ratio",
    "fit_tree",
    "tree_leaves",
    "tree_decision",
    "path_cost",
    "l1_logistic",
]


def _dot(a, b) -> float:
    return math.fsum(x * y for x, y in zip(a, b))


# ----------------------------------------------------------------------------------------------- node objective
def _centred(X, y, w):
    """sqrt(p_i) (x_ij - xbar_j) and sqrt(p_i) (y_i - ybar): eq. (2.13)'s rescaling, centred at the node means
    (the intercept); columns that are constant on the node become exactly 0."""
    n, d = len(X), len(X[0])
    W = math.fsum(w)
    xbar = [math.fsum(w[i] * X[i][j] for i in range(n)) / W for j in range(d)]
    ybar = math.fsum(w[i] * y[i] for i in range(n)) / W
    sw = [math.sqrt(wi) for wi in w]
    cols = []
    for j in range(d):
        col = [sw[i] * (X[i][j] - xbar[j]) for i in range(n)]
        raw = math.fsum(w[i] * X[i][j] * X[i][j] for i in range(n))
        if _dot(col, col) <= CONST_TOL * raw:
            col = [0.0] * n
        cols.append(col)
    yt = [sw[i] * (y[i] - ybar) for i in range(n)]
    if _dot(yt, yt) <= CONST_TOL * math.fsum(w[i] * y[i] * y[i] for i in range(n)):
        yt = [0.0] * n
    return cols, yt, xbar, ybar


def _gram_schmidt(cols, A):
    """Q (orthonormal columns, classical Gram-Schmidt in the order of A) and R (upper triangular)."""
    Q, R = [], []
    for t, a in enumerate(A):
        r = [_dot(q, cols[a]) for q in Q]
        u = [cols[a][i] - math.fsum(r[s] * Q[s][i] for s in range(t)) for i in range(len(cols[a]))]
        norm = math.sqrt(_dot(u, u))
        Q.append([ui / norm for ui in u])
        R.append(r + [norm])
    return Q, R


def _loss(cols, yt, A):
    """l(A) = y^T y - y^T Q Q^T y   [eq. (2.14)], on the columns of A that add a direction (span tolerance)."""
    basis = []
    Q = []
    for a in A:
        u = list(cols[a])
        for q in Q:
            r = _dot(q, cols[a])
            u = [u[i] - r * q[i] for i in range(len(u))]
        norm2 = _dot(u, u)
        if norm2 > SPAN_TOL * _dot(cols[a], cols[a]) and norm2 > 0:
            Q.append([ui / math.sqrt(norm2) for ui in u])
            basis.append(a)
    return _dot(yt, yt) - math.fsum(_dot(q, yt) ** 2 for q in Q)


@implements("kusner2016.ch2.eq12", "kusner2016.ch2.eq9")
def r_squared(X, y, subset, sample_weight=None) -> float:
    """z(A) = (Var(y; p) - l(A)) / Var(y; p)   [kusner2016 eq. (2.12), l(A) of eq. (2.9) with intercept].

    Returns 0.0 when Var(y; p) = 0 (a constant y on the node) or A is empty; clipped to [0, 1].

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)
    subset : iterable of int
        The feature set A.
    sample_weight : array of shape (n,), optional
        The node weights p_i (>= 0); ones by default.

    Returns
    -------
    float
        R^2 in [0, 1]; 0.0 when Var(y; p) = 0.

    Raises
    ------
    ValueError, TypeError
        On a malformed X, y, subset or sample_weight.
    """
    X, y = check_xy(X, y)
    A = check_subset(subset, X.shape[1])
    w = check_weights(sample_weight, X.shape[0])
    if math.fsum(w) <= 0:
        return 0.0
    cols, yt, _, _ = _centred(X.tolist(), y.tolist(), w.tolist())
    var = _dot(yt, yt)
    if var <= 0 or not A:
        return 0.0
    return float(min(1.0, max(0.0, (var - _loss(cols, yt, A)) / var)))


def r_squared_table(X, y, sample_weight=None) -> np.ndarray:
    """z(A) for every A, indexed by bitmask (bit j = feature j)   [kusner2016 eq. (2.12), enumerated].

    Parameters
    ----------
    X : array of shape (n, d), d <= 14
    y : array of shape (n,)
    sample_weight : array of shape (n,), optional

    Returns
    -------
    ndarray of shape (2^d,)

    Raises
    ------
    ValueError, TypeError
        On malformed inputs or d > 14.
    """
    X, y = check_xy(X, y)
    d = X.shape[1]
    check_exhaustive_d(d)
    w = check_weights(sample_weight, X.shape[0])
    out = [0.0] * (1 << d)
    if math.fsum(w) > 0:
        cols, yt, _, _ = _centred(X.tolist(), y.tolist(), w.tolist())
        var = _dot(yt, yt)
        if var > 0:
            for mask in range(1, 1 << d):
                A = [j for j in range(d) if mask >> j & 1]
                out[mask] = min(1.0, max(0.0, (var - _loss(cols, yt, A)) / var))
    return np.array(out, dtype=np.float64)


# ----------------------------------------------------------------------------------------------- greedy selection
def _first_best(cand, score) -> int:
    """The lowest-index candidate whose score is within a relative TIE_TOL of the best."""
    best = max(score[a] for a in cand)
    return min(a for a in cand if score[a] >= best - TIE_TOL * abs(best))


def _node_greedy(X, y, w, costs, budget, paid_costs=(), path_budget=math.inf, greedy="prefix"):
    """One node of Algorithm 1 (lines 4-9): (features, gains, coef (d,), intercept).

    A candidate fits iff fsum(new costs + its cost) <= budget and fsum(paid_costs + new costs + its cost) <=
    path_budget: the exact (correctly rounded) sums the reported path cost uses, never a running float sum.
    ``greedy="prefix"``: the first best-ratio candidate that does not fit ends the selection (G<L>);
    ``"best_of"``: only the candidates that fit compete, and at the end the best single candidate that fit after
    the free features replaces the new features if its gain is larger (Khuller-Moss-Naor)."""
    n, d = len(X), len(X[0])
    cols, yt, xbar, ybar = _centred(X, y, w)
    var = _dot(yt, yt)
    coef = [0.0] * d
    if not var > 0:
        return [], [], coef, ybar
    norm0 = [_dot(col, col) for col in cols]
    Q: list[list[float]] = []
    R: list[list[float]] = []
    selected: list[int] = []
    gains: list[float] = []
    spent: list[float] = []  # costs of the new (paid here) features
    paid_costs = [float(v) for v in paid_costs]

    def fits(a):
        return math.fsum(spent + [costs[a]]) <= budget and math.fsum(paid_costs + spent + [costs[a]]) <= path_budget

    single = None  # best_of: (j, gain, (r, u, nrm)) of the best single new feature that fits, after the free ones
    t_free = -1
    free_phase = True
    while len(selected) < min(n, d):
        # eq. (2.15) for every remaining candidate a: u_a = X_a - Q Q^T X_a, gain = (u_a^T y)^2 / (||u_a||^2 Var)
        gain = {}
        coeffs = {}
        for a in range(d):
            if a in selected or norm0[a] <= 0:
                continue
            r = [_dot(q, cols[a]) for q in Q]
            u = [cols[a][i] - math.fsum(r[s] * Q[s][i] for s in range(len(Q))) for i in range(n)]
            nrm = _dot(u, u)
            if nrm <= SPAN_TOL * norm0[a]:
                continue  # in the span of the chosen columns
            gain[a] = _dot(u, yt) ** 2 / nrm / var
            coeffs[a] = (r, u, nrm)
        if free_phase:
            cand = [a for a in gain if costs[a] == 0]
            if not cand or max(gain[a] for a in cand) <= GAIN_TOL:
                free_phase = False
                continue
            j = _first_best(cand, gain)  # ancestors' features: free, best gain first
        else:
            cand = [a for a in gain if costs[a] > 0]
            if greedy == "best_of":
                cand = [a for a in cand if fits(a)]  # skip (for good) what no longer fits
                if t_free < 0:
                    t_free = len(selected)
                    if cand:
                        js = _first_best(cand, gain)  # the best single affordable feature
                        if gain[js] > GAIN_TOL:
                            single = (js, gain[js], coeffs[js])
            if not cand:
                break
            j = _first_best(cand, {a: gain[a] / costs[a] for a in cand})  # eq. (2.11), ties: lowest index
            if gain[j] <= GAIN_TOL or not fits(j):
                break  # the largest feasible prefix G<L> (Streeter-Golovin)
            spent.append(costs[j])
        r, u, nrm = coeffs[j]
        Q.append([ui / math.sqrt(nrm) for ui in u])
        R.append(r + [math.sqrt(nrm)])
        selected.append(j)
        gains.append(gain[j])
    if single is not None:
        total = math.fsum(gains[t_free:])
        if single[1] > total + TIE_TOL * abs(total):  # max(z(F u G), z(F u {single})) [Khuller, Moss and Naor]
            r, u, nrm = single[2]  # orthogonalised against the free features' basis, Q[:t_free]
            Q, R = Q[:t_free], R[:t_free]
            Q.append([ui / math.sqrt(nrm) for ui in u])
            R.append(r + [math.sqrt(nrm)])
            selected, gains = selected[:t_free] + [single[0]], gains[:t_free] + [single[1]]
    if selected:
        # weighted OLS on G: beta = R^{-1} Q^T y (eq. 2.14), by back-substitution
        t = len(selected)
        qty = [_dot(q, yt) for q in Q]
        beta = [0.0] * t
        for i in range(t - 1, -1, -1):
            beta[i] = (qty[i] - math.fsum(R[s][i] * beta[s] for s in range(i + 1, t))) / R[i][i]
        for i, a in enumerate(selected):
            coef[a] = beta[i]
        ybar = ybar - math.fsum(xbar[a] * beta[i] for i, a in enumerate(selected))
    return selected, gains, coef, ybar


@implements("kusner2016.ch2.eq11", "kusner2016.ch2.eq15", "kusner2016.ch2.gs", "kusner2016.ch2.eq13-eq14",
            "kusner2016.ch2.eq8", "library.budgeted.best-of-greedy", "library.budgeted.best-of-greedy-gamma")
def greedy_select(X, y, costs, budget, sample_weight=None, *, greedy="prefix") -> list[int]:
    """g_t = argmax_{a not in G} [z(G u a) - z(G)] / c(a) = (q_a^T y)^2 / (Var c(a)), G<L> the largest feasible
    prefix   [kusner2016 eqs. (2.11), (2.15); Algorithm 1 lines 4-8; zero cost = paid by an ancestor].

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)
    costs : array of shape (d,)
        Feature costs >= 0; 0 marks a feature already paid for (taken first, best gain first).
    budget : float
        Budget for the new (cost > 0) features, >= 0 (inf: no bound).  A budget below every positive cost gives
        the free (cost 0) features only, ``[]`` when there are none (no error: inside a tree a node's remaining
        budget may be below every new cost).
    sample_weight : array of shape (n,), optional
        Node weights p_i >= 0 (ones by default).
    greedy : {"prefix", "best_of"}, default "prefix"
        "prefix": the thesis's largest feasible prefix (the first best-ratio feature that does not fit ends the
        selection).  "best_of": skip a feature that does not fit and continue with those that do, then keep the
        better (R^2) of that selection and the best single new feature that fits (Khuller, Moss and Naor 1999;
        Krause and Guestrin 2005); for submodular z it is within (1 - 1/e) / 2 of the best set of cost <= budget
        (spec.budgeted_contract: greedy rule).

    Returns
    -------
    list of int
        The chosen features in selection order.

    Raises
    ------
    ValueError, TypeError
        On malformed inputs (NaN, negative costs or weights, wrong lengths, an unknown ``greedy``).
    """
    X, y = check_xy(X, y)
    c = check_costs(costs, X.shape[1], allow_zero=True)
    B = check_budget(budget)
    w = check_weights(sample_weight, X.shape[0])
    rule = check_greedy(greedy)
    if math.fsum(w) <= 0:
        return []
    rows = [i for i in range(X.shape[0]) if w[i] > 0]
    return _node_greedy([X[i].tolist() for i in rows], [float(y[i]) for i in rows], [float(w[i]) for i in rows],
                        c.tolist(), B, greedy=rule)[0]


@implements("kusner2016.ch1.eq1")
def cardinality_greedy(values, k) -> list[int]:
    """A <- A u argmax_{j in V \\ A} f'(A u j) - f'(A) until |A| = k   [kusner2016 ch. 1, greedy for eq. (1.1)].

    Parameters
    ----------
    values : array of shape (2^d,)
        The set function, indexed by bitmask (bit j = element j).
    k : int, 1 <= k <= d

    Returns
    -------
    list of int
        The k elements in greedy order (ties: lowest index).

    Raises
    ------
    ValueError, TypeError
        On a table whose length is not a power of 2, NaN, or k out of range.
    """
    v, d = check_set_table(values)
    k = check_k(k, d)
    v = v.tolist()
    mask, out = 0, []
    for _ in range(k):
        best, j_best = -math.inf, -1
        for j in range(d):
            if mask >> j & 1:
                continue
            gain = v[mask | 1 << j] - v[mask]
            if gain > best:
                best, j_best = gain, j
        out.append(j_best)
        mask |= 1 << j_best
    return out


@implements("kusner2016.ch2.eq10", "library.budgeted.best-of-greedy")
def budgeted_greedy(values, costs, budget, *, greedy="prefix") -> list[int]:
    """g_t = argmax_j [s(G u j) - s(G)] / c(j), truncated to the largest feasible prefix G<L>
    [kusner2016 eqs. (2.10)-(2.11), Streeter and Golovin].

    Parameters
    ----------
    values : array of shape (2^d,)
        The set function, indexed by bitmask.
    costs : array of shape (d,), > 0
    budget : float >= 0 (inf: no bound); below every cost the result is ``[]``
    greedy : {"prefix", "best_of"}, default "prefix"
        "prefix" (the thesis): stop when the best ratio [f(G u j) - f(G)] / c(j) no longer fits.  "best_of": take
        the best ratio among the elements that still fit (until none fits or the best gain is <= 0), then return
        ``[j]`` instead when the best single element j that fits has f({j}) > f(G) (ties: the greedy set; among
        singles, the lowest index): f(result) >= (1 - 1/e) / 2 max{f(A): c(A) <= budget} for monotone submodular f
        (Khuller, Moss and Naor 1999; Krause and Guestrin 2005).

    Returns
    -------
    list of int
        The selection, in greedy order; gains <= 0 end it.

    Raises
    ------
    ValueError, TypeError
        On malformed tables, costs <= 0, a negative budget or an unknown ``greedy``.
    """
    v, d = check_set_table(values)
    c = check_costs(costs, d, allow_zero=False).tolist()
    B = check_budget(budget)
    rule = check_greedy(greedy)
    v = v.tolist()
    mask, out, spent = 0, [], []
    while len(out) < d:
        best, j_best, g_best = -math.inf, -1, 0.0
        for j in range(d):
            if mask >> j & 1:
                continue
            if rule == "best_of" and math.fsum(spent + [c[j]]) > B:
                continue  # best_of: an element that no longer fits is skipped, not the end of the selection
            gain = v[mask | 1 << j] - v[mask]
            if gain / c[j] > best:
                best, j_best, g_best = gain / c[j], j, gain
        if j_best < 0 or g_best <= 0 or math.fsum(spent + [c[j_best]]) > B:  # exact sum, as the reported cost
            break
        spent.append(c[j_best])
        out.append(j_best)
        mask |= 1 << j_best
    if rule == "best_of":
        # max(f(G), max_{c(j) <= B} f({j})), the better of the two   [Khuller, Moss and Naor 1999, Krause-Guestrin]
        singles = [j for j in range(d) if c[j] <= B]
        if singles:
            top = max(v[1 << j] for j in singles)
            j_single = min(j for j in singles if v[1 << j] == top)
            if top > v[mask]:
                out = [j_single]
    return out


@implements("kusner2016.ch2.def3")
def submodularity_ratio(X, y, k, within=None, sample_weight=None) -> float:
    """gamma_{U,k} = min_{L subset U, S n L = 0, |S| <= k} sum_{s in S} [z(L u s) - z(L)] / [z(L u S) - z(L)]
    [kusner2016 Definition 3, after Das and Kempe 2011]; pairs with z(L u S) - z(L) <= GAIN_TOL are skipped.

    Parameters
    ----------
    X : array of shape (n, d), d <= 14
    y : array of shape (n,)
    k : int, 1 <= k <= d
        Largest |S|.
    within : iterable of int, optional
        U (default: all features); S ranges over all features outside L.
    sample_weight : array of shape (n,), optional

    Returns
    -------
    float
        gamma in [0, 1] (|S| = 1 gives ratio 1); ``inf`` if no pair has z(L u S) - z(L) > GAIN_TOL.

    Raises
    ------
    ValueError, TypeError
        On malformed inputs, k out of range or d > 14.
    """
    X, y = check_xy(X, y)
    d = X.shape[1]
    check_exhaustive_d(d)
    k = check_k(k, d)
    U = list(range(d)) if within is None else check_subset(within, d)
    z = r_squared_table(X, y, sample_weight).tolist()
    best = math.inf
    for size_L in range(len(U) + 1):
        for Lset in combinations(U, size_L):
            L = sum(1 << j for j in Lset)
            rest = [j for j in range(d) if not L >> j & 1]
            for size in range(1, min(k, len(rest)) + 1):
                for S in combinations(rest, size):
                    den = z[L | sum(1 << j for j in S)] - z[L]
                    if den <= GAIN_TOL:
                        continue
                    num = math.fsum(z[L | 1 << j] - z[L] for j in S)
                    best = min(best, num / den)
    return float(best)


# ----------------------------------------------------------------------------------------------- the tree
def _weighted_median(s, p):
    """theta: midway between the largest score tied with the lower weighted median m (smallest s with running
    cumulative weight >= total / 2; running float sums as fast) and the first score above m + tol, tol = TIE_TOL *
    max(1, max |s|); the largest tied score itself when no score is above m + tol.  Every score within tol of m,
    i.e. tied with it (equal up to rounding), is <= theta, so it goes left (s > theta goes right)."""
    order = sorted(range(len(s)), key=lambda i: s[i])
    cum = []
    acc = 0.0
    for i in order:
        acc += p[i]
        cum.append(acc)
    half = cum[-1] / 2
    pos = next(i for i, cw in enumerate(cum) if cw >= half)
    median = s[order[pos]]
    tol = TIE_TOL * max(1.0, max(abs(v) for v in s))
    last_tied = median
    for i in order[pos + 1:]:
        if s[i] > median + tol:
            return float((last_tied + s[i]) / 2)  # midway from the largest tied score to the next larger one
        last_tied = s[i]
    return float(last_tied)  # nothing above the tie: every input goes left


@implements("kusner2016.ch2.alg1", "kusner2016.ch2.threshold", "kusner2016.ch2.soft")
def fit_tree(X, y, costs, depth, node_budget, budget=math.inf, soft=False, sample_weight=None, *,
             greedy="prefix") -> TreeModel:
    """ASTC, Algorithm 1 (heap order; node k's greedy with ancestors' features free, budget
    min(B, budget - paid on the path); theta^k = weighted median of s^k; children p * 1[s > theta] (hard) or
    p * sigma(s - theta) (soft))   [kusner2016 s2.1.5, Algorithm 1, "ASTC, soft"].

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,)
    costs : array of shape (d,), > 0
    depth : int >= 1
        2^depth - 1 nodes.
    node_budget : float
        Per-node budget B for new features; must be >= the cheapest cost (ValueError otherwise).
    budget : float, default inf
        Bound on every root-to-leaf path's cost; must be >= the cheapest cost (ValueError otherwise).  A budget
        or node_budget below the cheapest feature could only give a constant model (the weighted mean of y), so
        both are refused, with the same message in both packages; ``node_budget`` = the cheapest cost may still
        give a constant model when that feature is constant or gains nothing.
    soft : bool
        ASTC, soft (sigmoid child weights in training).
    sample_weight : array of shape (n,), optional
    greedy : {"prefix", "best_of"}, default "prefix"
        Each node's greedy (see :func:`greedy_select`): the thesis's largest feasible prefix, or the better of the
        greedy over the features that still fit (node and path budget) and the best single one.

    Returns
    -------
    TreeModel

    Raises
    ------
    ValueError, TypeError
        On malformed inputs, sample weights summing to 0, ``budget`` / ``node_budget`` below the cheapest
        feature cost, or an unknown ``greedy``.
    """
    X, y = check_xy(X, y)
    n, d = X.shape
    c = check_costs(costs, d, allow_zero=False).tolist()
    D = check_depth(depth)
    nb = check_budget(node_budget, "node_budget")
    B = check_budget(budget)
    check_budget_affords_a_feature(nb, c, "node_budget")
    check_budget_affords_a_feature(B, c, "budget")
    if not isinstance(soft, (bool, np.bool_)):
        raise TypeError(f"soft must be True or False, got {soft!r}")
    rule = check_greedy(greedy)
    w = check_weights(sample_weight, n).tolist()
    if not math.fsum(w) > 0:
        raise ValueError("sample_weight must have a positive sum")
    Xl, yl = X.tolist(), y.tolist()
    n_nodes = 2 ** D - 1
    n_internal = 2 ** (D - 1) - 1
    coef = [[0.0] * d for _ in range(n_nodes)]
    intercept = [0.0] * n_nodes
    threshold = [math.inf] * n_nodes
    weight = [0.0] * n_nodes
    features: list = [()] * n_nodes
    gains: list = [()] * n_nodes
    p: list = [None] * n_nodes
    paid: list = [None] * n_nodes
    p[0] = w
    paid[0] = set()
    for k in range(n_nodes):
        pk = p[k]
        weight[k] = float(np.sum(np.array(pk)))  # same summation as fast's pk.sum()
        if not weight[k] > 0:
            par = (k - 1) // 2
            features[k], gains[k] = features[par], (0.0,) * len(features[par])
            coef[k], intercept[k] = list(coef[par]), intercept[par]
            paid_k = paid[k]
        else:
            ck = [0.0 if j in paid[k] else c[j] for j in range(d)]
            rows = [i for i in range(n) if pk[i] > 0]
            sel, g, coef[k], intercept[k] = _node_greedy([Xl[i] for i in rows], [yl[i] for i in rows],
                                                        [pk[i] for i in rows], ck, nb,
                                                        [c[j] for j in sorted(paid[k])], B, rule)
            features[k], gains[k] = tuple(sel), tuple(g)
            paid_k = paid[k] | set(sel)
        if k < n_internal:
            s = [intercept[k] + _dot(Xl[i], coef[k]) for i in range(n)]
            if weight[k] > 0:
                rows = [i for i in range(n) if pk[i] > 0]
                threshold[k] = _weighted_median([s[i] for i in rows], [pk[i] for i in rows])
            elif k > 0:
                threshold[k] = threshold[(k - 1) // 2]
            if soft:
                up = [sigmoid(s[i] - threshold[k]) for i in range(n)]
                p[2 * k + 2] = [pk[i] * up[i] for i in range(n)]
                p[2 * k + 1] = [pk[i] * (1.0 - up[i]) for i in range(n)]
            else:
                p[2 * k + 2] = [pk[i] if s[i] > threshold[k] else 0.0 for i in range(n)]
                p[2 * k + 1] = [0.0 if s[i] > threshold[k] else pk[i] for i in range(n)]
            paid[2 * k + 1] = paid[2 * k + 2] = paid_k
        else:
            paid[k] = paid_k
    leaf_cost = [math.fsum(c[j] for j in sorted(paid[k])) for k in range(n_internal, n_nodes)]
    return TreeModel(D, tuple(features), np.array(coef, dtype=np.float64), np.array(intercept, dtype=np.float64),
                     np.array(threshold, dtype=np.float64), tuple(gains), np.array(weight, dtype=np.float64),
                     np.array(leaf_cost, dtype=np.float64))


def _check_model_x(model, X):
    if not isinstance(model, TreeModel):
        raise TypeError(f"model must be a TreeModel (from fit_tree), got {type(model).__name__}")
    X = as_float_matrix(X, "X")
    if X.shape[1] != model.coef.shape[1]:
        raise ValueError(f"X must have {model.coef.shape[1]} columns (as in training), got {X.shape[1]}")
    return X


def _leaf_node(model, x) -> int:
    k = 0
    for _ in range(model.depth - 1):
        s = float(model.intercept[k]) + _dot(x, model.coef[k].tolist())
        k = 2 * k + 2 if s > model.threshold[k] else 2 * k + 1
    return k


def tree_leaves(model, X) -> np.ndarray:
    """Leaf index of each row: from the root, right (2k+2) iff b^k + x^T beta^k > theta^k, else left (2k+1).

    Parameters
    ----------
    model : TreeModel
    X : array of shape (m, d)

    Returns
    -------
    ndarray of int64, shape (m,)

    Raises
    ------
    ValueError, TypeError
        On a non-TreeModel, NaN, or a wrong number of columns.
    """
    X = _check_model_x(model, X)
    n_internal = 2 ** (model.depth - 1) - 1
    return np.array([_leaf_node(model, x) - n_internal for x in X.tolist()], dtype=np.int64)


def tree_decision(model, X) -> np.ndarray:
    """b^leaf + x^T beta^leaf at each row's leaf   [kusner2016 s2.1.5].

    Parameters
    ----------
    model : TreeModel
    X : array of shape (m, d)

    Returns
    -------
    ndarray of shape (m,)

    Raises
    ------
    ValueError, TypeError
        On a non-TreeModel, NaN, or a wrong number of columns.
    """
    X = _check_model_x(model, X)
    out = []
    for x in X.tolist():
        k = _leaf_node(model, x)
        out.append(float(model.intercept[k]) + _dot(x, model.coef[k].tolist()))
    return np.array(out, dtype=np.float64)


@implements("kusner2016.ch2.test-cost")
def path_cost(model, X) -> np.ndarray:
    """cost(x) = sum of c(j) over the DISTINCT features selected on x's root-to-leaf path (each paid once).

    Parameters
    ----------
    model : TreeModel
    X : array of shape (m, d)

    Returns
    -------
    ndarray of shape (m,)

    Raises
    ------
    ValueError, TypeError
        On a non-TreeModel, NaN, or a wrong number of columns.
    """
    X = _check_model_x(model, X)
    n_internal = 2 ** (model.depth - 1) - 1
    return np.array([float(model.leaf_cost[_leaf_node(model, x) - n_internal]) for x in X.tolist()],
                    dtype=np.float64)


# ----------------------------------------------------------------------------------------------- l1 baseline
def _spectral_sq(Z, iters=100):
    """||Z||_2^2 by power iteration on Z^T Z from the unit vector of ones (as fast, same iterations)."""
    m = len(Z[0])
    v = [1.0 / math.sqrt(m)] * m
    lam = 0.0
    for _ in range(iters):
        zv = [_dot(row, v) for row in Z]
        u = [math.fsum(Z[i][j] * zv[i] for i in range(len(Z))) for j in range(m)]
        lam = math.sqrt(_dot(u, u))
        if lam == 0:
            return 0.0
        v = [ui / lam for ui in u]
    return lam


@implements("kusner2016.ch2.eq5")
def l1_logistic(X, y, costs, lam, max_iter=L1_MAX_ITER, tol=L1_TOL) -> L1Logistic:
    """min (1/n) sum_i log(1 + exp(-y_i (b + beta^T x_i))) + lam sum_j c(j) |beta_j|   [kusner2016 eq. (2.5)],
    FISTA with step 1/L, L = 1.01 ||[X, 1]||_2^2 / (4n); the intercept b is not penalised.

    Parameters
    ----------
    X : array of shape (n, d)
    y : array of shape (n,), values in {-1, +1}
    costs : array of shape (d,), > 0
    lam : float >= 0
    max_iter : int >= 1
    tol : float >= 0

    Returns
    -------
    L1Logistic
        coef, intercept, objective value, iterations.

    Raises
    ------
    ValueError, TypeError
        On malformed inputs, labels outside {-1, +1}, costs <= 0 or lam < 0.
    """
    X = as_float_matrix(X, "X")
    n, d = X.shape
    yv = check_labels_pm1(y, n).tolist()
    c = check_costs(costs, d, allow_zero=False).tolist()
    lam = check_lam(lam)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_budget(tol, "tol")
    Z = [row + [1.0] for row in X.tolist()]
    L = 1.01 * _spectral_sq(Z) / (4 * n)
    step = 1.0 / L
    thr = [lam * cj * step for cj in c] + [0.0]

    def logistic_loss(m):  # log(1 + exp(-m)), stable
        return max(-m, 0.0) + math.log1p(math.exp(-abs(m)))

    def objective(theta):
        loss = math.fsum(logistic_loss(yv[i] * _dot(Z[i], theta)) for i in range(n)) / n
        return loss + lam * math.fsum(c[j] * abs(theta[j]) for j in range(d))

    theta = [0.0] * (d + 1)
    mom = list(theta)
    t = 1.0
    it = 0
    for it in range(1, max_iter + 1):
        weights = [yv[i] * sigmoid(-yv[i] * _dot(Z[i], mom)) for i in range(n)]
        grad = [-math.fsum(Z[i][j] * weights[i] for i in range(n)) / n for j in range(d + 1)]
        v = [mom[j] - step * grad[j] for j in range(d + 1)]
        new = [math.copysign(max(abs(v[j]) - thr[j], 0.0), v[j]) if abs(v[j]) > thr[j] else 0.0
               for j in range(d + 1)]
        t_new = (1 + math.sqrt(1 + 4 * t * t)) / 2
        mom = [new[j] + ((t - 1) / t_new) * (new[j] - theta[j]) for j in range(d + 1)]
        delta = max(abs(new[j] - theta[j]) for j in range(d + 1))
        theta, t = new, t_new
        if delta <= tol * max(1.0, max(abs(x) for x in theta)):
            break
    return L1Logistic(np.array(theta[:d], dtype=np.float64), float(theta[d]), float(objective(theta)), it)
