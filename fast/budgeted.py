"""Budgeted linear models and ASTC, the approximately submodular tree of classifiers (kusner2016 ch. 1-2), numpy.

Same public names, signatures and semantics as :mod:`reference.budgeted`; conventions (intercept, tolerances,
ties, zero costs, feasible-prefix rule and the ``greedy="best_of"`` remedy, weighted-median threshold, heap order) in
:mod:`spec.budgeted_contract`.

The greedy step (eq. 2.11 with 2.15) scores every remaining candidate at once: the Gram-Schmidt residual norms
``||u_a||^2`` and correlations ``u_a^T y`` of all columns are kept and downdated after each selection with ONE
matrix-vector product ``q^T X`` (``O(nd)`` per step), since ``q`` is orthogonal to the previous basis:
``||u_a||^2 -= (q^T x_a)^2`` and ``u_a^T y -= (q^T x_a)(q^T y)``; only the chosen column is orthogonalised
explicitly (twice, for stability) to extend Q.

``r_squared`` centres only the columns of A and reads the residual off one Householder QR of [X_A, y] (R only),
falling back to lstsq when a column is in the span of the others (the reference's span rule); its products and
l1_logistic's run with one BLAS thread for skinny matrices (:func:`_skinny_blas`).  Routing (``tree_leaves``,
``tree_decision``, ``path_cost`` and the ASTC estimators) is one numba pass over the rows, each node's score over its
nonzero coefficients only (:func:`_route_rows`).
"""
from __future__ import annotations

import contextlib
import math
from itertools import combinations

import numpy as np
from numba import njit
from scipy.linalg import get_lapack_funcs, solve_triangular
from scipy.special import expit

from fast._blas import limit_blas
from fast._contracts.budgeted_contract import (
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
)
from fast._contracts.validation import as_float_matrix, check_int

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


# ----------------------------------------------------------------------------------------------- node objective
def _centred(X, y, w, unit=False):
    """sqrt(w) (X - xbar), sqrt(w) (y - ybar), xbar, ybar (weighted node means); constant columns (and y) exactly 0.
    ``unit``: w is all ones, so sqrt(w) = 1 multiplies nothing (skipped: the same numbers)."""
    W = w.sum()
    xbar = (w @ X) / W
    ybar = float(w @ y) / W
    if unit:
        Xt, yt = X - xbar, y - ybar
    else:
        sw = np.sqrt(w)
        Xt = sw[:, None] * (X - xbar)
        yt = sw * (y - ybar)
    const = np.einsum("ij,ij->j", Xt, Xt) <= CONST_TOL * (w @ (X * X))
    Xt[:, const] = 0.0
    if float(yt @ yt) <= CONST_TOL * float(w @ (y * y)):
        yt = np.zeros_like(yt)
    return Xt, yt, xbar, ybar


def r_squared(X, y, subset, sample_weight=None) -> float:
    """z(A) = (Var(y; p) - l(A)) / Var(y; p), weighted R^2 of the LS fit with intercept   [kusner2016 eq. (2.12)].

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

    Examples
    --------
    >>> r_squared([[1.0], [2.0], [3.0]], [1.0, 2.0, 3.0], [0])
    1.0
    """
    X, y = check_xy(X, y)
    A = check_subset(subset, X.shape[1])
    w = check_weights(sample_weight, X.shape[0])
    if w.sum() <= 0 or not A:
        return 0.0
    with _skinny_blas(len(A) + 1):
        Xt, yt, _, _ = _centred(X[:, A], y, w, unit=sample_weight is None)  # only A's columns are centred
        var = float(yt @ yt)
        if var <= 0:
            return 0.0
        return float(min(1.0, max(0.0, (var - _residual_ss(Xt, yt)) / var)))


#: matrices with at most this many columns are multiplied / factorised with one BLAS thread (see _skinny_blas)
SKINNY_COLUMNS = 64


def _skinny_blas(columns):
    """One BLAS thread for products and factorisations of n x ``columns`` matrices with few columns: their
    matrix-vector passes are memory bound, and OpenBLAS's static 2-thread split waits for a descheduled thread on a
    loaded machine (r_squared at n = 1e5, |A| = 10: 54 ms with one thread, 150-400 ms with two under load 5-7;
    l1_logistic's n x 21 products 15-20x slower from n = 3e4).  The context costs ~15-50 us."""
    return limit_blas(1) if columns <= SKINNY_COLUMNS else contextlib.nullcontext()


def _residual_ss(Xt, yt):
    """||yt - P yt||^2, P the projection on the columns of Xt: R[k, k]^2 of one Householder QR of [Xt, yt] (LAPACK
    geqrf, R only: 2 n k^2 flops, no SVD, no coefficients, no residual product).  Valid when every column adds a
    direction (|R[j, j]|^2 > SPAN_TOL ||x_j||^2, the reference's Gram-Schmidt rule); else a column in the span would
    leave R's later entries on an arbitrary direction, and the least-squares residual of lstsq is used."""
    n, k = Xt.shape
    M = np.empty((n, k + 1), order="F")
    M[:, :k] = Xt
    M[:, k] = yt
    geqrf = get_lapack_funcs("geqrf", (M,))
    R, _, _, info = geqrf(M, overwrite_a=True)  # R in the upper triangle (Householder vectors below)
    diag = np.diagonal(R)[:k]
    if info == 0 and k < n and np.all(diag * diag > SPAN_TOL * np.einsum("ij,ij->j", Xt, Xt)):
        return float(R[k, k] ** 2)
    beta = np.linalg.lstsq(Xt, yt, rcond=None)[0]
    res = yt - Xt @ beta
    return float(res @ res)


def r_squared_table(X, y, sample_weight=None) -> np.ndarray:
    """Table of z(A) for every A (index = bitmask, bit j = feature j), eq. (2.12) enumerated (d <= 14).

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

    Examples
    --------
    >>> r_squared_table([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [1.0, 0.0, 1.0]).shape
    (4,)
    """
    X, y = check_xy(X, y)
    d = X.shape[1]
    check_exhaustive_d(d)
    w = check_weights(sample_weight, X.shape[0])
    out = np.zeros(1 << d)
    if w.sum() <= 0:
        return out
    Xt, yt, _, _ = _centred(X, y, w)
    var = float(yt @ yt)
    if var <= 0:
        return out
    for mask in range(1, 1 << d):
        A = [j for j in range(d) if mask >> j & 1]
        beta = np.linalg.lstsq(Xt[:, A], yt, rcond=None)[0]
        res = yt - Xt[:, A] @ beta
        out[mask] = min(1.0, max(0.0, (var - float(res @ res)) / var))
    return out


# ----------------------------------------------------------------------------------------------- greedy selection
def _first_best(score):
    """Lowest index whose score is within a relative TIE_TOL of the maximum (spec.budgeted_contract: ties)."""
    best = float(np.max(score))
    return int(np.argmax(score >= best - TIE_TOL * abs(best)))


def _fits(costs, mask, spent, paid_costs, budget, path_budget):
    """Boolean mask of the candidates (``mask``) that still fit: fsum(spent + [c]) <= budget and fsum(paid_costs +
    spent + [c]) <= path_budget, exact sums as in the prefix rule (evaluated once per distinct cost value)."""
    out = np.zeros(costs.shape[0], dtype=bool)
    idx = np.flatnonzero(mask)
    if idx.size:
        values, inverse = np.unique(costs[idx], return_inverse=True)
        ok = np.array([math.fsum(spent + [c]) <= budget and math.fsum(paid_costs + spent + [c]) <= path_budget
                       for c in values.tolist()])
        out[idx] = ok[inverse]
    return out


def _extend_basis(Q, Rm, qty, Xt, yt, t, j):
    """Append column j of Xt as row t of Q (Gram-Schmidt against Q[:t], twice for stability): column t of Rm and
    qty[t] are (re)written; returns q."""
    u = Xt[:, j].copy()
    Rm[:, t] = 0.0
    for _ in range(2):
        if t:
            r = Q[:t] @ u
            u -= r @ Q[:t]
            Rm[:t, t] += r
    Rm[t, t] = math.sqrt(float(u @ u))
    q = u / Rm[t, t]
    Q[t] = q
    qty[t] = float(q @ yt)
    return q


def _node_greedy(X, y, w, costs, budget, paid_costs=(), path_budget=math.inf, greedy="prefix"):
    """The weighted greedy of one node: (features, gains, coef (d,), intercept).  ``w`` > 0 sum assumed.

    A candidate fits iff fsum(new costs + its cost) <= budget and fsum(paid_costs + new costs + its cost) <=
    path_budget (exact sums, as the reported path cost; never a running float sum).  ``greedy``: "prefix" stops at
    the first best-ratio candidate that does not fit; "best_of" skips it (ratio argmax over the candidates that
    fit), then keeps the better of that selection and the best single candidate that fits (spec.budgeted_contract).
    """
    n, d = X.shape
    Xt, yt, xbar, ybar = _centred(X, y, w)
    var = float(yt @ yt)
    coef = np.zeros(d)
    if not var > 0:
        return [], [], coef, ybar
    norm0 = np.einsum("ij,ij->j", Xt, Xt)
    nrm = norm0.copy()
    num = Xt.T @ yt
    free = costs == 0
    chosen = np.zeros(d, dtype=bool)
    t_max = min(n, d)
    Q = np.empty((t_max, n))  # orthonormal basis, one ROW per selected feature (contiguous slices)
    Rm = np.zeros((t_max, t_max))  # X~_G = Q^T R (eq. 2.14), built column by column
    qty = np.zeros(t_max)
    selected: list[int] = []
    gains: list[float] = []
    spent: list[float] = []  # costs of the new (paid here) features
    paid_costs = [float(v) for v in paid_costs]
    best_of = greedy == "best_of"
    single = None  # best_of: (j, gain) of the best single new feature that fits, after the free ones
    t_free = -1  # number of free features taken (set when the paid phase starts)
    free_phase = True
    while len(selected) < t_max:
        ok = ~chosen & (norm0 > 0) & (nrm > SPAN_TOL * norm0)
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = np.where(ok, num * num / np.where(ok, nrm, 1.0) / var, -np.inf)
        if free_phase:
            cand = ok & free
            if cand.any():
                j = _first_best(np.where(cand, gain, -np.inf))
                if gain[j] <= GAIN_TOL:
                    free_phase = False
                    continue
            else:
                free_phase = False
                continue
        else:
            cand = ok & ~free
            if best_of:
                cand &= _fits(costs, cand, spent, paid_costs, budget, path_budget)  # skip what no longer fits
                if t_free < 0:
                    t_free = len(selected)
                    if cand.any():
                        js = _first_best(np.where(cand, gain, -np.inf))
                        if gain[js] > GAIN_TOL:
                            single = (js, float(gain[js]))
            if not cand.any():
                break
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(cand, gain / np.where(cand, costs, 1.0), -np.inf)
            j = _first_best(ratio)
            cj = float(costs[j])
            if gain[j] <= GAIN_TOL or math.fsum(spent + [cj]) > budget or math.fsum(paid_costs + spent + [cj]) > \
                    path_budget:
                break
            spent.append(cj)
        t = len(selected)
        q = _extend_basis(Q, Rm, qty, Xt, yt, t, j)
        selected.append(j)
        gains.append(float(gain[j]))
        chosen[j] = True
        c = q @ Xt  # the one matrix-vector product of the step: q^T x_a for every candidate a
        nrm -= c * c
        num -= c * qty[t]
    if single is not None:
        total = math.fsum(gains[t_free:])
        if single[1] > total + TIE_TOL * abs(total):  # the best single beats the greedy's new features
            selected, gains = selected[:t_free] + [single[0]], gains[:t_free] + [single[1]]
            _extend_basis(Q, Rm, qty, Xt, yt, t_free, single[0])
    if selected:
        t = len(selected)
        beta = solve_triangular(Rm[:t, :t], qty[:t])  # beta = R^{-1} Q^T y   [eq. (2.14)]
        coef[selected] = beta
        ybar = ybar - float(xbar[selected] @ beta)
    return selected, gains, coef, ybar


def greedy_select(X, y, costs, budget, sample_weight=None, *, greedy="prefix") -> list[int]:
    """g_t = argmax_a [z(G u a) - z(G)] / c(a) = (q_a^T y)^2 / (Var c(a)), largest feasible prefix
    [kusner2016 eqs. (2.11), (2.15); Algorithm 1 lines 4-8].

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

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.5]])
    >>> greedy_select(X, X[:, 0] + 0.1 * X[:, 1], [1.0, 1.0, 1.0], 1.0)
    [0]
    """
    X, y = check_xy(X, y)
    c = check_costs(costs, X.shape[1], allow_zero=True)
    B = check_budget(budget)
    w = check_weights(sample_weight, X.shape[0])
    rule = check_greedy(greedy)
    if w.sum() <= 0:
        return []
    keep = w > 0
    return _node_greedy(X[keep], y[keep], w[keep], c, B, greedy=rule)[0]


def cardinality_greedy(values, k) -> list[int]:
    """A <- A u argmax_{j not in A} f(A u j) - f(A), until |A| = k   [kusner2016 ch. 1, eq. (1.1) greedy].

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

    Examples
    --------
    >>> cardinality_greedy([0.0, 1.0, 2.0, 2.5], 1)
    [1]
    """
    v, d = check_set_table(values)
    k = check_k(k, d)
    mask, out = 0, []
    for _ in range(k):
        j = _best_step(v, mask, d)[0]
        out.append(j)
        mask |= 1 << j
    return out


def _best_step(v, mask, d, costs=None, exclude=0):
    """(j, gain) of the best element j in neither ``mask`` nor ``exclude``: the largest f(mask u j) - f(mask)
    (divided by costs[j] when given), the lowest index among equal scores (numpy's argmax rule); (-1, 0.0) when no
    element is left.  Python floats (the same IEEE operations as numpy's): d <= 14 candidates, a few table reads per
    step, cheaper than the numpy calls of a vectorised step."""
    base = v.item(mask)
    best_j, best_gain, best_score = -1, 0.0, -math.inf
    for j in range(d):
        if (mask | exclude) >> j & 1:
            continue
        gain = v.item(mask | 1 << j) - base
        score = gain if costs is None else gain / costs[j]
        if score > best_score:
            best_j, best_gain, best_score = j, gain, score
    return best_j, best_gain


def budgeted_greedy(values, costs, budget, *, greedy="prefix") -> list[int]:
    """Cost-benefit greedy on a set-function table, largest feasible prefix G<L>   [kusner2016 eq. (2.11)].

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

    Examples
    --------
    >>> budgeted_greedy([0.0, 1.0, 3.0, 3.5], [1.0, 2.0], 2.0)
    [1]
    """
    v, d = check_set_table(values)
    c = check_costs(costs, d, allow_zero=False)
    B = check_budget(budget)
    rule = check_greedy(greedy)
    cost = c.tolist()
    mask, out, spent = 0, [], []
    while len(out) < d:
        unfit = 0
        if rule == "best_of":  # skip what no longer fits (exact sums)
            unfit = sum(1 << j for j in range(d) if not mask >> j & 1 and math.fsum(spent + [cost[j]]) > B)
        j, gain = _best_step(v, mask, d, cost, unfit)
        if j < 0 or gain <= 0 or math.fsum(spent + [cost[j]]) > B:  # exact sum, as the reported cost
            break
        spent.append(cost[j])
        out.append(j)
        mask |= 1 << j
    if rule == "best_of":  # the better of the greedy set and the best single element that fits
        single, best = -1, -math.inf
        for j in range(d):
            if cost[j] <= B and v.item(1 << j) > best:
                single, best = j, v.item(1 << j)
        if single >= 0 and best > v.item(mask):
            out = [single]
    return out


def submodularity_ratio(X, y, k, within=None, sample_weight=None) -> float:
    """gamma_{U,k} = min_{L subset U, |S| <= k, S n L = 0} sum_s [z(L+s) - z(L)] / [z(L u S) - z(L)], exact
    [kusner2016 Definition 3 (Das and Kempe 2011)].

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

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    >>> submodularity_ratio(X, X[:, 0] + 2 * X[:, 1], 2)
    1.0
    """
    X, y = check_xy(X, y)
    d = X.shape[1]
    check_exhaustive_d(d)
    k = check_k(k, d)
    U = list(range(d)) if within is None else check_subset(within, d)
    z = r_squared_table(X, y, sample_weight)
    umask = sum(1 << j for j in U)
    best = math.inf
    for L in range(1 << d):
        if L & ~umask:
            continue
        rest = [j for j in range(d) if not L >> j & 1]
        single = {j: z[L | 1 << j] - z[L] for j in rest}
        for size in range(1, min(k, len(rest)) + 1):
            for S in combinations(rest, size):
                smask = sum(1 << j for j in S)
                den = z[L | smask] - z[L]
                if den <= GAIN_TOL:
                    continue
                best = min(best, math.fsum(single[j] for j in S) / den)
    return float(best)


# ----------------------------------------------------------------------------------------------- the tree
def _weighted_median(s, p):
    """theta: midway between the largest score tied with the lower weighted median m (within TIE_TOL * max(1,
    max |s|)) and the next larger score; the largest tied score when none is larger (spec.budgeted_contract)."""
    order = np.argsort(s, kind="stable")
    cw = np.cumsum(p[order])
    pos = int(np.searchsorted(cw, cw[-1] / 2, side="left"))
    ss = s[order]
    tol = TIE_TOL * max(1.0, float(np.max(np.abs(s))))
    n_tied = int(np.searchsorted(ss, ss[pos] + tol, side="right"))  # ss[:n_tied] <= m + tol: tied or below
    last_tied = ss[n_tied - 1]
    return float(last_tied) if n_tied == ss.size else float((last_tied + ss[n_tied]) / 2)


def fit_tree(X, y, costs, depth, node_budget, budget=math.inf, soft=False, sample_weight=None, *,
             greedy="prefix") -> TreeModel:
    """ASTC (Algorithm 1, with the fixes of the claims note): greedy nodes in heap order, ancestors' features
    free, weighted-median thresholds, hard or soft child weights   [kusner2016 s2.1.5, Algorithm 1].

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

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(40, 3))
    >>> fit_tree(X, X[:, 0], np.ones(3), 2, 1.0).features[0]
    (0,)
    """
    X, y = check_xy(X, y)
    n, d = X.shape
    c = check_costs(costs, d, allow_zero=False)
    D = check_depth(depth)
    nb = check_budget(node_budget, "node_budget")
    B = check_budget(budget)
    check_budget_affords_a_feature(nb, c, "node_budget")
    check_budget_affords_a_feature(B, c, "budget")
    if not isinstance(soft, (bool, np.bool_)):
        raise TypeError(f"soft must be True or False, got {soft!r}")
    rule = check_greedy(greedy)
    w = check_weights(sample_weight, n)
    if not w.sum() > 0:
        raise ValueError("sample_weight must have a positive sum")
    n_nodes = (1 << D) - 1
    n_internal = (1 << (D - 1)) - 1
    coef = np.zeros((n_nodes, d))
    intercept = np.zeros(n_nodes)
    threshold = np.full(n_nodes, np.inf)
    weight = np.zeros(n_nodes)
    features: list = [()] * n_nodes
    gains: list = [()] * n_nodes
    p = [None] * n_nodes
    paid = [None] * n_nodes
    p[0] = w
    paid[0] = np.zeros(d, dtype=bool)
    for k in range(n_nodes):
        pk = p[k]
        weight[k] = float(pk.sum())
        if not weight[k] > 0:  # no input reaches k: copy the parent's predictor (its features are paid)
            par = (k - 1) // 2
            features[k], gains[k] = features[par], (0.0,) * len(features[par])
            coef[k], intercept[k] = coef[par], intercept[par]
            paid_k = paid[k]
        else:
            ck = np.where(paid[k], 0.0, c)
            keep = pk > 0
            sel, g, coef[k], intercept[k] = _node_greedy(X[keep], y[keep], pk[keep], ck, nb, c[paid[k]].tolist(), B,
                                                         rule)
            features[k], gains[k] = tuple(sel), tuple(g)
            paid_k = paid[k].copy()
            paid_k[sel] = True
        if k < n_internal:
            keep = pk > 0
            s = intercept[k] + X @ coef[k]
            if weight[k] > 0:
                threshold[k] = _weighted_median(s[keep], pk[keep])
            elif k > 0:
                threshold[k] = threshold[(k - 1) // 2]
            if soft:
                up = expit(s - threshold[k])
                p[2 * k + 2], p[2 * k + 1] = pk * up, pk * (1.0 - up)
            else:
                right = s > threshold[k]
                p[2 * k + 2], p[2 * k + 1] = np.where(right, pk, 0.0), np.where(right, 0.0, pk)
            paid[2 * k + 1] = paid[2 * k + 2] = paid_k
        else:
            paid[k] = paid_k
    leaf_cost = np.array([math.fsum(c[paid[k]]) for k in range(n_internal, n_nodes)])
    return TreeModel(D, tuple(features), coef, intercept, threshold, tuple(gains), weight, leaf_cost)


def _check_model_x(model, X, check_finite=True):
    """X as a float64 matrix with the model's columns (``check_finite=False``: its caller proved it finite)."""
    if not isinstance(model, TreeModel):
        raise TypeError(f"model must be a TreeModel (from fit_tree), got {type(model).__name__}")
    X = as_float_matrix(X, "X", check_finite=check_finite)
    if X.shape[1] != model.coef.shape[1]:
        raise ValueError(f"X must have {model.coef.shape[1]} columns (as in training), got {X.shape[1]}")
    return X


#: rows routed together, level by level (their products are independent: the CPU overlaps them)
_ROUTE_BLOCK = 16


@njit(cache=True, nogil=True, inline="always")
def _node_score(X, i, mean, cols, weights, intercept, k):
    """intercept[k] + sum_t (X[i, cols[k, t]] - mean) * weights[k, t]: node k's score of row i over its nonzero
    coefficients only (zero padding adds exact zeros)."""
    acc = 0.0
    for t in range(cols.shape[1]):
        j = cols[k, t]
        acc += (X[i, j] - mean[j]) * weights[k, t]
    return intercept[k] + acc


@njit(cache=True, nogil=True)
def _route_rows(X, mean, cols, weights, intercept, threshold, levels, leaf, value):
    """Hard routing of every row in one pass over X: node k sends x right iff its score > threshold[k]; leaf[i] =
    the leaf reached (0-based among the leaves) and, when ``value`` has n entries, value[i] = that leaf's score.
    Scores run over each node's nonzero coefficients only (an ASTC node selects a few features: the other terms
    are exact zeros for a finite X), reading only those entries of the row, standardised on the fly: weights[k, t]
    = coef[k, cols[k, t]] / scale (the ASTC estimators' (x - mean) / scale, within an ulp; no (n, d) temporary;
    mean 0 and scale 1 leave x as it is).  Rows go _ROUTE_BLOCK at a time, level by level, the child chosen
    without a branch."""
    first_leaf = (1 << levels) - 1
    n = X.shape[0]
    node = np.zeros(_ROUTE_BLOCK, dtype=np.int64)
    for start in range(0, n, _ROUTE_BLOCK):
        m = min(_ROUTE_BLOCK, n - start)
        node[:m] = 0
        for _ in range(levels):
            for b in range(m):
                k = node[b]
                node[b] = 2 * k + 1 + np.int64(_node_score(X, start + b, mean, cols, weights, intercept, k)
                                                > threshold[k])
        for b in range(m):
            leaf[start + b] = node[b] - first_leaf
        if value.shape[0]:
            for b in range(m):
                value[start + b] = _node_score(X, start + b, mean, cols, weights, intercept, node[b])


def _route(model, X, *, with_value=False, mean=None, scale=None, check_finite=True):
    """(leaf, value) of every row by :func:`_route_rows` (value: empty unless ``with_value``); ``mean`` / ``scale``
    standardise the rows first; ``check_finite=False`` when the caller has checked X (the estimators' validate_data).
    Node k's nonzero coefficients are listed once per call: cols[k] = their columns in increasing order (then the
    columns of zero coefficients, as padding), weights[k] = coef[k, cols[k]] / scale[cols[k]]."""
    X = _check_model_x(model, X, check_finite)
    n, d = X.shape
    coef = np.asarray(model.coef, dtype=np.float64)
    nonzero = coef != 0.0
    width = max(1, int(nonzero.sum(axis=1).max()))
    cols = np.ascontiguousarray(np.argsort(~nonzero, axis=1, kind="stable")[:, :width])
    weights = np.take_along_axis(coef, cols, axis=1)
    if scale is not None:
        weights = weights * (1.0 / np.asarray(scale, dtype=np.float64))[cols]
    leaf = np.empty(n, dtype=np.int64)
    value = np.empty(n if with_value else 0)
    c = np.ascontiguousarray
    _route_rows(c(X), np.zeros(d) if mean is None else c(mean, dtype=np.float64), cols, c(weights),
                c(model.intercept, dtype=np.float64), c(model.threshold, dtype=np.float64), model.depth - 1, leaf,
                value)
    return leaf, value


def tree_leaves(model, X) -> np.ndarray:
    """Leaf index (0 .. 2^(D-1) - 1) of each row under hard routing (right iff s > theta).

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

    Examples
    --------
    >>> import numpy as np
    >>> m = fit_tree(np.eye(3), [1.0, 0.0, 0.0], np.ones(3), 1, 1.0)
    >>> tree_leaves(m, np.eye(3)).tolist()
    [0, 0, 0]
    """
    return _route(model, X)[0]


def tree_decision(model, X) -> np.ndarray:
    """Leaf prediction b^leaf + x^T beta^leaf of each row   [kusner2016 s2.1.5].

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

    Examples
    --------
    >>> import numpy as np
    >>> m = fit_tree(np.eye(3), [1.0, 0.0, 0.0], np.ones(3), 1, 1.0)
    >>> tree_decision(m, np.eye(3)).round(6).tolist() == [1.0, 0.0, 0.0]
    True
    """
    return _route(model, X, with_value=True)[1]


def path_cost(model, X) -> np.ndarray:
    """Test-time cost of each row: the costs of the distinct features selected on its path, each paid once.

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

    Examples
    --------
    >>> import numpy as np
    >>> m = fit_tree(np.eye(3), [1.0, 0.0, 0.0], [2.0, 1.0, 1.0], 1, 5.0)
    >>> path_cost(m, np.eye(3)).tolist()
    [2.0, 2.0, 2.0]
    """
    leaf = _route(model, X)[0]  # validates model and X first
    return np.take(model.leaf_cost, leaf)


# ----------------------------------------------------------------------------------------------- l1 baseline
def _spectral_sq(Z, iters=100):
    """||Z||_2^2 by ``iters`` power iterations on the Gram matrix Z^T Z (formed once: the iterations cost
    (d + 1)^2 each instead of two passes over Z)."""
    gram = Z.T @ Z
    v = np.ones(Z.shape[1]) / math.sqrt(Z.shape[1])
    lam = 0.0
    for _ in range(iters):
        u = gram @ v
        lam = float(np.sqrt(u @ u))
        if lam == 0:
            return 0.0
        v = u / lam
    return lam


def l1_logistic(X, y, costs, lam, max_iter=L1_MAX_ITER, tol=L1_TOL) -> L1Logistic:
    """min_{beta, b} (1/n) sum_i log(1 + exp(-y_i (b + beta^T x_i))) + lam sum_j c(j) |beta_j|
    [kusner2016 eq. (2.5)], by FISTA with step 1/L, L = 1.01 ||[X, 1]||_2^2 / (4n) (100 power iterations);
    unpenalised intercept; stops when max |step| <= tol * max(1, max |beta|) or after max_iter.

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

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [-1.0], [-2.0]])
    >>> l1_logistic(X, [1, 1, -1, -1], [1.0], 10.0).coef.tolist()
    [0.0]
    """
    X = as_float_matrix(X, "X")
    n, d = X.shape
    yv = check_labels_pm1(y, n)
    c = check_costs(costs, d, allow_zero=False)
    lam = check_lam(lam)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    tol = check_budget(tol, "tol")
    Z = np.hstack([X, np.ones((n, 1))])
    with _skinny_blas(d + 1):
        return _fista(Z, yv, c, lam, max_iter, tol)


def _fista(Z, yv, c, lam, max_iter, tol):
    """l1_logistic's FISTA on Z = [X, 1] (the caller limits BLAS to one thread for a skinny Z: its two
    matrix-vector products per iteration are memory bound).  The fused numba gradient of fast._risk_kernels
    (gradient_sum_rows) was measured slower here than the two products (0.55-0.63 ms vs 0.27-0.39 ms at n = 1e4,
    d + 1 = 21: one libm exp per row against scipy's vectorised expit)."""
    n, d = Z.shape[0], Z.shape[1] - 1
    L = 1.01 * _spectral_sq(Z) / (4 * n)
    step = 1.0 / L
    thr = np.append(lam * c * step, 0.0)

    def objective(theta):
        m = yv * (Z @ theta)
        return float(np.logaddexp(0.0, -m).mean() + lam * (c @ np.abs(theta[:d])))

    theta = np.zeros(d + 1)
    mom = theta.copy()
    t = 1.0
    it = 0
    for it in range(1, max_iter + 1):
        m = yv * (Z @ mom)
        grad = -(Z.T @ (yv * expit(-m))) / n
        v = mom - step * grad
        new = np.sign(v) * np.maximum(np.abs(v) - thr, 0.0)
        t_new = (1 + math.sqrt(1 + 4 * t * t)) / 2
        mom = new + ((t - 1) / t_new) * (new - theta)
        delta = float(np.max(np.abs(new - theta)))
        theta, t = new, t_new
        if delta <= tol * max(1.0, float(np.max(np.abs(theta)))):
            break
    return L1Logistic(theta[:d].copy(), float(theta[d]), objective(theta), it)
