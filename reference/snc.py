"""Stochastic Neighbor Compression, SNC (kusner2016 ch. 3; Kusner, Tyree, Weinberger, Agrawal, ICML 2014).

Readable pure-Python mirror of :mod:`fast.snc`: loops and sums as in the thesis, ``math.fsum``, log-space
(log-sum-exp) so nothing underflows at large gamma^2.  Inputs and references are ROWS (the thesis uses columns).

The objective (eqs. 3.3, 3.2, 3.5), for inputs x_i with labels y_i and references z_j with fixed labels yhat_j::

    D_ij  = ||x_i - z_j||^2
    p_ij  = exp(-gamma^2 D_ij) / sum_k exp(-gamma^2 D_ik)                         (3.3)
    p_i   = sum_{j: yhat_j = y_i} p_ij                                             (3.2)
    L(Z)  = -sum_i log p_i                                                         (3.5)

Gradients, with signs and constants decided by finite differences and mpmath (proofs_checks/check_kusner2016_ch3*):
with M_ij = 1[yhat_j = y_i] p_ij / p_i - p_ij  (= (Q o P)_ij of the thesis) and c_j = sum_i M_ij,

    dL/dz_j        = -2 gamma^2 (sum_i M_ij x_i - c_j z_j)       (thesis prints +2 (X M - Z diag(c)): the gradient of -L
                                                                 at gamma^2 = 1; eq. 3.6 is false as printed)
    dL/d(gamma^2)  = sum_ij M_ij D_ij                             (no formula in the thesis)
    dL_A/dA        = +2 A sum_ij M_ij v_ij v_ij^T, v_ij = x_i - z_j   (thesis eq. 3.8 prints -2A ...: wrong sign)
    dL_A/dz_j      = -2 A^T A (sum_i M_ij x_i - c_j z_j)          (thesis eq. 3.9 prints 2 A^T A dL/dZ: extra factor 2)

In log space: with s_ij = -gamma^2 D_ij, S_i = logsumexp_{j: yhat_j = y_i} s_ij and
O_i = logsumexp_{j: yhat_j != y_i} s_ij (-inf when empty), ``-log p_i = log(1 + exp(O_i - S_i))`` and
``p_ij / p_i = exp(s_ij - S_i)``, ``p_ij = exp(s_ij - logaddexp(S_i, O_i))``.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np

from spec.links import implements
from spec.snc_contract import (
    SNCFit,
    as_labels_any,
    check_gamma2,
    check_inputs,
    check_iterations,
    check_m,
    check_metric,
    check_metric_A,
    check_predict,
    check_problem,
)
from spec.validation import as_float_matrix, as_generator

__all__ = [
    "sne_probabilities",
    "nca_correct_probabilities",
    "snc_probabilities",
    "snc_log_correct",
    "snc_loss",
    "snc_gradient",
    "snc_metric_loss",
    "snc_metric_gradient",
    "class_allocation",
    "class_proportional_init",
    "snc_optimize",
    "snc_predict",
]


# ---------------------------------------------------------------------------------------------------------- helpers
def _sqdist(u, v) -> float:
    """||u - v||^2 as an exactly rounded sum."""
    return math.fsum((a - b) * (a - b) for a, b in zip(u, v))


def _logsumexp(values) -> float:
    """log sum_k exp(v_k); -inf for an empty list."""
    values = list(values)
    if not values:
        return -math.inf
    top = max(values)
    if top == -math.inf:
        return -math.inf
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


def _softplus(t: float) -> float:
    """log(1 + e^t) without overflow."""
    if t == -math.inf:
        return 0.0
    if t > 0:
        return t + math.log1p(math.exp(-t))
    return math.log1p(math.exp(t))


def _rows(A) -> list[list[float]]:
    return [list(map(float, row)) for row in A]


def _transform(x, A) -> list[float]:
    """A x for a diagonal (list of d) or full (r lists of d) metric."""
    if not isinstance(A[0], list):
        return [a * xk for a, xk in zip(A, x)]
    return [math.fsum(a * xk for a, xk in zip(row, x)) for row in A]


def _scores(X, Z, scale):
    """s_ij = -scale ||x_i - z_j||^2 and D_ij."""
    D = [[_sqdist(x, z) for z in Z] for x in X]
    return [[-scale * dij for dij in row] for row in D], D


def _neighbourhood(s_row, same):
    """(S_i, O_i, log p_i) of one input from its scores and its same-label mask."""
    S = _logsumexp(v for v, ok in zip(s_row, same) if ok)
    O = _logsumexp(v for v, ok in zip(s_row, same) if not ok)
    return S, O, -_softplus(O - S)


def _M_row(s_row, same):
    """M_ij = 1[same] p_ij / p_i - p_ij for one input i (the Hadamard product Q o P of the thesis)."""
    S, O, _ = _neighbourhood(s_row, same)
    total = S if O == -math.inf else max(S, O) + math.log1p(math.exp(-abs(S - O)))
    return [(math.exp(v - S) if ok else 0.0) - math.exp(v - total) for v, ok in zip(s_row, same)]


# ------------------------------------------------------------------------------------------ stochastic neighbourhoods
@implements("kusner2016.ch3.eq1")
def sne_probabilities(X, gamma2):
    """p_ij = exp(-gamma^2 ||x_i - x_j||^2) / sum_{k != i} exp(-gamma^2 ||x_i - x_k||^2), p_ii = 0   [kusner2016 eq. (3.1)]

    The printed denominator runs over all k; SNE and NCA define p_ii = 0, so k = i is left out (as eq. 3.2 says).
    Needs n >= 2.  Returns an (n, n) float64 array whose rows sum to 1.

    Parameters
    ----------
    X : array (n, d), n >= 2
        Inputs as rows.
    gamma2 : float > 0
        Precision.

    Returns
    -------
    ndarray (n, n)
        Rows sum to 1, zero diagonal.

    Raises
    ------
    ValueError, TypeError
        Bad input (spec.snc_contract).
    """
    X = as_float_matrix(X, "X")
    gamma2 = check_gamma2(gamma2)
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"X must have at least 2 rows (p_ii = 0 leaves no neighbour), got {n}")
    rows = _rows(X)
    out = np.zeros((n, n))
    for i in range(n):
        s = [(-gamma2 * _sqdist(rows[i], rows[k]) if k != i else -math.inf) for k in range(n)]
        lse = _logsumexp(v for v in s if v != -math.inf)
        for k in range(n):
            out[i, k] = 0.0 if k == i else math.exp(s[k] - lse)
    return out


@implements("kusner2016.ch3.eq2", "kusner2016.ch3.nca")
def nca_correct_probabilities(X, y, A):
    """p_i = sum_{j: y_j = y_i} p_ij, p_ij from eq. (3.1) with d_ij = ||A(x_i - x_j)||, p_ii = 0   [kusner2016 eq. (3.2), NCA]

    A: 1-d (diagonal) or (r, d) full metric.  Returns (n,) leave-one-out probabilities of a correct 1-NN label.

    Parameters
    ----------
    X : array (n, d), n >= 2
    y : array (n,)
        Labels.
    A : array (d,) or (r, d)
        Diagonal or full metric.

    Returns
    -------
    ndarray (n,)
        Leave-one-out probability that the stochastic 1-NN rule labels x_i correctly.

    Raises
    ------
    ValueError, TypeError
        Bad input.
    """
    X, y = check_inputs(X, y)
    A = check_metric_A(A, X.shape[1])
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"X must have at least 2 rows (p_ii = 0 leaves no neighbour), got {n}")
    AX = [_transform(x, _rows(A) if A.ndim == 2 else list(map(float, A))) for x in _rows(X)]
    out = np.empty(n)
    for i in range(n):
        s = [-_sqdist(AX[i], AX[k]) for k in range(n)]
        same = [y[k] == y[i] and k != i for k in range(n)]
        other = [y[k] != y[i] for k in range(n)]
        S = _logsumexp(v for v, ok in zip(s, same) if ok)
        O = _logsumexp(v for v, ok in zip(s, other) if ok)
        out[i] = 0.0 if S == -math.inf else math.exp(-_softplus(O - S))
    return out


@implements("kusner2016.ch3.eq3")
def snc_probabilities(X, Z, gamma2):
    """p_ij = exp(-gamma^2 ||x_i - z_j||^2) / sum_{k=1..m} exp(-gamma^2 ||x_i - z_k||^2)   [kusner2016 eq. (3.3)]

    No self-exclusion (the references are not inputs).  Returns (n, m); rows sum to 1.

    Parameters
    ----------
    X : array (n, d)
    Z : array (m, d)
    gamma2 : float > 0

    Returns
    -------
    ndarray (n, m)
        Rows sum to 1.

    Raises
    ------
    ValueError, TypeError
        Bad input.
    """
    X = as_float_matrix(X, "X")
    Z = as_float_matrix(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z must have d = {X.shape[1]} columns like X, got shape {Z.shape}")
    gamma2 = check_gamma2(gamma2)
    s, _ = _scores(_rows(X), _rows(Z), gamma2)
    out = np.empty((X.shape[0], Z.shape[0]))
    for i, row in enumerate(s):
        lse = _logsumexp(row)
        for j, v in enumerate(row):
            out[i, j] = math.exp(v - lse)
    return out


def snc_log_correct(X, y, Z, z_labels, gamma2):
    """log p_i = log sum_{j: yhat_j = y_i} p_ij = -log(1 + exp(O_i - S_i))   [kusner2016 eqs. (3.2), (3.3)], log space

    Returns (n,) float64, each <= 0 (0 exactly when input i's class owns every reference).

    Parameters
    ----------
    X, y, Z, z_labels, gamma2
        As :func:`snc_loss`.

    Returns
    -------
    ndarray (n,)
        log p_i <= 0.

    Raises
    ------
    ValueError, TypeError
        Bad input.
    """
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    s, _ = _scores(_rows(X), _rows(Z), gamma2)
    out = np.empty(X.shape[0])
    for i, row in enumerate(s):
        out[i] = _neighbourhood(row, [zl == y[i] for zl in z_labels])[2]
    return out


# --------------------------------------------------------------------------------------------------------- objective
@implements("kusner2016.ch3.eq5", "kusner2016.ch3.eq4")
def snc_loss(X, y, Z, z_labels, gamma2) -> float:
    """L(Z) = -sum_{i=1..n} log p_i = sum_i KL(1 || p_i)   [kusner2016 eqs. (3.5), (3.4)]

    X (n, d) inputs as rows, y (n,), Z (m, d) references as rows, z_labels (m,) their fixed labels, gamma^2 > 0.
    Computed in log space: -log p_i = log(1 + exp(O_i - S_i)) (see the module docstring); finite for any gamma^2.

    Parameters
    ----------
    X : array (n, d)
        Inputs as rows.
    y : array (n,)
        Their labels.
    Z : array (m, d)
        References as rows.
    z_labels : array (m,)
        Their fixed labels; every class of ``y`` must appear.
    gamma2 : float
        The precision gamma^2 > 0 of eq. (3.3).

    Returns
    -------
    float
        L(Z) >= 0.

    Raises
    ------
    ValueError, TypeError
        On bad input (see :mod:`spec.snc_contract`).
    """
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    s, _ = _scores(_rows(X), _rows(Z), gamma2)
    return math.fsum(-_neighbourhood(row, [zl == y[i] for zl in z_labels])[2] for i, row in enumerate(s))


@implements("kusner2016.ch3.eq6", "kusner2016.ch3.qp", "kusner2016.ch3.gamma2")
def snc_gradient(X, y, Z, z_labels, gamma2):
    """dL/dz_j = -2 gamma^2 (sum_i M_ij x_i - c_j z_j);  dL/d(gamma^2) = sum_ij M_ij D_ij   [kusner2016 eq. (3.6), corrected]

    M_ij = 1[yhat_j = y_i] p_ij/p_i - p_ij = (Q o P)_ij, c_j = sum_i M_ij (the thesis's (Q o P)^T 1_n).  The printed
    eq. (3.6), +2 (X (Q o P) - Z Delta((Q o P)^T 1_n)), is the gradient of -L at gamma^2 = 1 (registered false).
    Returns (dL/dZ as an (m, d) array, dL/dgamma2 as a float).

    Parameters
    ----------
    X, y, Z, z_labels, gamma2
        As :func:`snc_loss`.

    Returns
    -------
    (ndarray (m, d), float)
        The gradient in Z and the derivative in gamma^2.
    """
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    Xr, Zr = _rows(X), _rows(Z)
    s, D = _scores(Xr, Zr, gamma2)
    n, m, d = len(Xr), len(Zr), X.shape[1]
    M = [_M_row(s[i], [zl == y[i] for zl in z_labels]) for i in range(n)]
    grad = np.empty((m, d))
    for j in range(m):
        c_j = math.fsum(M[i][j] for i in range(n))
        for k in range(d):
            xm = math.fsum(M[i][j] * Xr[i][k] for i in range(n))
            grad[j, k] = -2.0 * gamma2 * (xm - c_j * Zr[j][k])
    dgamma2 = math.fsum(M[i][j] * D[i][j] for i in range(n) for j in range(m))
    return grad, dgamma2


def _metric_scores(X, Z, A):
    Al = _rows(A) if A.ndim == 2 else list(map(float, A))
    AX = [_transform(x, Al) for x in _rows(X)]
    AZ = [_transform(z, Al) for z in _rows(Z)]
    return _scores(AX, AZ, 1.0)[0]


@implements("kusner2016.ch3.eq7")
def snc_metric_loss(X, y, Z, z_labels, A) -> float:
    """L_A(Z) = -sum_i log sum_{j: yhat_j = y_i} exp(-||A(x_i - z_j)||^2) / sum_k exp(-||A(x_i - z_k)||^2)   [kusner2016 eq. (3.7)]

    A: 1-d array a (A = diag(a)) or (r, d) array (full; r < d reduces the dimension).  A = gamma I gives L(Z) of
    eq. (3.5) with gamma^2 = gamma^2 (not A = gamma^2 I as printed: see claim ch3.A-gamma).

    Parameters
    ----------
    X, y, Z, z_labels
        As :func:`snc_loss`.
    A : array (d,) or (r, d)
        Diagonal or full (possibly rectangular) metric; A = gamma I gives L(Z) at gamma^2.

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Bad input.
    """
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    A = check_metric_A(A, X.shape[1])
    s = _metric_scores(X, Z, A)
    return math.fsum(-_neighbourhood(row, [zl == y[i] for zl in z_labels])[2] for i, row in enumerate(s))


@implements("kusner2016.ch3.eq8", "kusner2016.ch3.eq9")
def snc_metric_gradient(X, y, Z, z_labels, A):
    """dL_A/dA = +2 A sum_ij M_ij v_ij v_ij^T;  dL_A/dZ = -2 (A^T A)(sum_i M_ij x_i - c_j z_j)   [kusner2016 eqs. (3.8), (3.9), corrected]

    v_ij = x_i - z_j, M computed under A.  Diagonal A = diag(a): dL/da_k = 2 a_k sum_ij M_ij v_ijk^2 (the diagonal of
    the full gradient).  The thesis prints -2A ... for (3.8) (the gradient of -L_A) and 2 A^T A dL/dZ for (3.9)
    (a spurious factor 2).  Returns (dL/dZ (m, d), dL/dA with the shape of A).

    Parameters
    ----------
    X, y, Z, z_labels, A
        As :func:`snc_metric_loss`.

    Returns
    -------
    (ndarray (m, d), ndarray shaped like A)

    Raises
    ------
    ValueError, TypeError
        Bad input.
    """
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    A = check_metric_A(A, X.shape[1])
    Xr, Zr = _rows(X), _rows(Z)
    n, m, d = len(Xr), len(Zr), X.shape[1]
    s = _metric_scores(X, Z, A)
    M = [_M_row(s[i], [zl == y[i] for zl in z_labels]) for i in range(n)]
    # W = sum_ij M_ij v_ij v_ij^T  (d x d)
    W = [[math.fsum(M[i][j] * (Xr[i][a] - Zr[j][a]) * (Xr[i][b] - Zr[j][b]) for i in range(n) for j in range(m))
          for b in range(d)] for a in range(d)]
    # G_j = sum_i M_ij x_i - c_j z_j  (the bracket of eq. 3.6)
    G = []
    for j in range(m):
        c_j = math.fsum(M[i][j] for i in range(n))
        G.append([math.fsum(M[i][j] * Xr[i][k] for i in range(n)) - c_j * Zr[j][k] for k in range(d)])
    if A.ndim == 1:
        a = list(map(float, A))
        dA = np.array([2.0 * a[k] * W[k][k] for k in range(d)])
        AtA = [[a[k] * a[k] if k == l else 0.0 for l in range(d)] for k in range(d)]
    else:
        Al = _rows(A)
        r = len(Al)
        dA = np.array([[2.0 * math.fsum(Al[p][q] * W[q][k] for q in range(d)) for k in range(d)] for p in range(r)])
        AtA = [[math.fsum(Al[p][k] * Al[p][l] for p in range(r)) for l in range(d)] for k in range(d)]
    dZ = np.array([[-2.0 * math.fsum(AtA[k][l] * G[j][l] for l in range(d)) for k in range(d)] for j in range(m)])
    return dZ, dA


# -------------------------------------------------------------------------------------------------- initialisation
@implements("kusner2016.ch3.init")
def class_allocation(counts, m: int) -> np.ndarray:
    """m_c >= 1 with sum_c m_c = m, the rest given one at a time to the class furthest below m n_c / n   [kusner2016 Alg. 2, line 2]

    counts: n_c of each class (positive integers), C <= m <= n.  Greedy, exact (fractions), ties to the lower index,
    never beyond n_c.  Returns (C,) int64.

    Parameters
    ----------
    counts : array of int (C,)
        Class sizes n_c >= 1.
    m : int
        C <= m <= sum(counts).

    Returns
    -------
    ndarray (C,) int64

    Raises
    ------
    ValueError
        m outside [C, n] or a class size < 1.
    """
    counts = [int(c) for c in np.asarray(counts).tolist()]
    if not counts or min(counts) < 1:
        raise ValueError(f"counts must be positive class sizes, got {counts}")
    n = sum(counts)
    m = check_m(m, n, len(counts))
    alloc = [1] * len(counts)
    for _ in range(m - len(counts)):
        best, gap_best = None, None
        for c, n_c in enumerate(counts):
            if alloc[c] >= n_c:
                continue
            gap = Fraction(m * n_c, n) - alloc[c]
            if gap_best is None or gap > gap_best:
                best, gap_best = c, gap
        alloc[best] += 1
    return np.array(alloc, dtype=np.int64)


def class_proportional_init(y, m: int, rng=None) -> np.ndarray:
    """Indices of m inputs drawn class by class, m_c from :func:`class_allocation`   [kusner2016 Alg. 2, line 2]

    Classes in ``numpy.unique(y)`` order; class c: ``rng.choice(idx_c, size=m_c, replace=False)`` with idx_c its
    input indices in ascending order.  Returns (m,) int64; Z = X[idx], z_labels = y[idx].

    Parameters
    ----------
    y : array (n,)
        Labels.
    m : int
        Number of references, C <= m <= n.
    rng : None, int or numpy.random.Generator
        Draws ``rng.choice(idx_c, m_c, replace=False)`` per class in ``numpy.unique`` order.

    Returns
    -------
    ndarray (m,) int64

    Raises
    ------
    ValueError
        m below the number of classes or above n.
    """
    y = as_labels_any(y, "y")
    classes = sorted(set(y.tolist()))
    idx_of = {c: [i for i, v in enumerate(y.tolist()) if v == c] for c in classes}
    alloc = class_allocation([len(idx_of[c]) for c in classes], m)
    gen = as_generator(rng)
    out = []
    for c, m_c in zip(classes, alloc.tolist()):
        out.extend(int(i) for i in gen.choice(np.array(idx_of[c], dtype=np.int64), size=m_c, replace=False))
    return np.array(out, dtype=np.int64)


# ------------------------------------------------------------------------------------------------------- optimiser
def _descend(loss_of, grad_of, theta, loss, losses, max_iter, tol):
    """Gradient descent with backtracking (Armijo) line search from ``theta`` (a list of floats) at loss ``loss``.

    Each step: g = grad_of(theta); halve the step until L(theta - step g) <= L - 1e-4 step ||g||^2; accept, record L,
    double the step.  Stops after ``max_iter`` accepted steps, at a zero gradient, when no step < 1e-14 lowers L, or
    when a step lowers L by less than ``tol * max(1, L)``.  Returns (theta, loss, steps, converged)."""
    step = 1.0
    steps = 0
    converged = False
    for _ in range(max_iter):
        grad = grad_of(theta)
        g2 = math.fsum(g * g for g in grad)
        if g2 == 0.0:
            converged = True
            break
        while step > 1e-14:
            trial = [t - step * g for t, g in zip(theta, grad)]
            new = loss_of(trial)
            if new <= loss - 1e-4 * step * g2:
                break
            step /= 2.0
        else:
            converged = True
            break
        improvement = loss - new
        theta, loss = trial, new
        losses.append(loss)
        steps += 1
        step *= 2.0
        if improvement < tol * max(1.0, loss):
            converged = True
            break
    return theta, loss, steps, converged


#: largest change of log gamma^2 in one step of the gamma^2 phase (gamma^2 moves by at most a factor 10 per step)
_MAX_LOG_STEP = math.log(10.0)
#: the gamma^2 phase keeps log gamma^2 within this many nats of its start (gamma^2 within e^{+-40} of it)
_LOG_RANGE = 40.0


def _descend_log_gamma2(f, t0, loss, max_iter, tol, on_step):
    """Monotone descent on t = log gamma^2 with Z fixed; returns (t, L, accepted steps)   [kusner2016 §3.1.3]

    ``f(t) -> (L, s)`` with s = dL/dt; ``loss`` = L(t0); ``on_step(L)`` after each accepted step.  Each step:
    dt = -s / h, the secant-Newton step (h = the change of s over the last step), when h > 0; else
    dt = -sign(s) _MAX_LOG_STEP.  Then |dt| <= _MAX_LOG_STEP (gamma^2 moves by at most a factor 10), t stays in
    t0 +- _LOG_RANGE, and dt is halved until L(t + dt) <= L + 1e-4 dt s (Armijo): the path is non-increasing.
    Stops after ``max_iter`` accepted steps, at a zero slope, when no |dt| >= 1e-12 lowers L, or when a step lowers
    L by less than ``tol * max(1, L)``, unless it was a full-length step along which the slope steepened (climbing
    off the flat plateau of a gamma^2 far too small, where every p_ij ~ 1/m, L ~ n log C and s ~ gamma^2).

    The old rule (a step normalised by max(1, |s|), doubled after each accepted step up to 1e3 nats) could cross
    the optimum far into that plateau (started 1e8 x too large: ended at gamma^2 ~ 3e-6 / median D, L = n log C)
    and, with |s| < 1, barely moved from a start on it; a step of at most a factor 10 does neither.  The same rule
    as :func:`fast.snc.snc_optimize`'s gamma^2 phase.
    """
    lo, hi = t0 - _LOG_RANGE, t0 + _LOG_RANGE
    t = t0
    s = f(t)[1]
    h = None  # no curvature known before the first step
    steps = 0
    for _ in range(max_iter):
        if s == 0.0 or not math.isfinite(s):
            break
        if h is not None and h > 0.0:
            dt = -s / h
        else:
            dt = -math.copysign(_MAX_LOG_STEP, s)
        dt = max(-_MAX_LOG_STEP, min(_MAX_LOG_STEP, dt))
        if not lo <= t + dt <= hi:  # (t + dt) - t is not dt in floating point: clip only when needed
            dt = min(hi, max(lo, t + dt)) - t
        while abs(dt) >= 1e-12:
            new, s_new = f(t + dt)
            if new <= loss + 1e-4 * dt * s:
                break
            dt /= 2.0
        else:
            break
        improvement = loss - new
        climbing = abs(dt) == _MAX_LOG_STEP and s_new * s > 0.0 and abs(s_new) > abs(s)
        h = (s_new - s) / dt
        t, loss, s = t + dt, new, s_new
        steps += 1
        on_step(loss)
        if improvement < tol * max(1.0, loss) and not climbing:
            break
    return t, loss, steps


@implements("kusner2016.ch3.alg2")
def snc_optimize(X, y, Z, z_labels, gamma2, *, max_iter=100, tol=1e-6, optimize_gamma2=True, metric="scalar"):
    """Z* = argmin_Z L(Z) by gradient descent with backtracking (Armijo) line search   [kusner2016 Alg. 2, line 3]

    Readable stand-in for the thesis's conjugate gradients.  As in §3.1.3 ("optimizing gamma^2 prior to optimizing
    Z"), when ``optimize_gamma2`` the scale is first fitted with Z fixed (descent on log gamma^2, at most
    ``max_iter`` steps), then Z.  ``metric="diagonal"`` / ``"full"`` then continue, as :func:`fast.snc.snc_optimize`
    does, with A and Z jointly on L_A(Z) of eq. (3.7), A started at sqrt(gamma^2) 1 (diagonal) or sqrt(gamma^2) I
    (full), where L_A equals L at gamma^2, with the corrected gradients of eqs. (3.8)-(3.9).  A phase stops when a
    step lowers L by less than ``tol * max(1, L)``.  Every accepted step lowers L, so ``losses`` is non-increasing.
    Returns an :class:`SNCFit`.

    Parameters
    ----------
    X, y, Z, z_labels, gamma2
        As :func:`snc_loss`; Z is the starting point.
    max_iter : int >= 0
        Accepted descent steps per phase (gamma^2, then Z, then (A, Z) for a diagonal / full metric).
    tol : float > 0
        A phase stops when a step lowers L by less than ``tol * max(1, L)``.
    optimize_gamma2 : bool
        Fit gamma^2 with Z fixed first (descent on log gamma^2).
    metric : {"scalar", "diagonal", "full"}, default="scalar"
        A = gamma I only, or then a diagonal / full A learned jointly with Z (eq. 3.7).

    Returns
    -------
    SNCFit
        Z, z_labels, gamma2, A (None for "scalar"), losses (non-increasing), n_iter, converged.

    Raises
    ------
    ValueError, TypeError
        Bad input (an unknown ``metric``: the same ValueError as :func:`fast.snc.snc_optimize`).
    """
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    max_iter, tol = check_iterations(max_iter, tol)
    metric = check_metric(metric)
    Z = np.array(Z, dtype=np.float64)
    m, d = Z.shape
    loss = snc_loss(X, y, Z, z_labels, gamma2)
    losses = [loss]
    steps = 0
    if optimize_gamma2:
        # descent on t = log gamma^2 (see _descend_log_gamma2): f(t) = (L, dL/dt = gamma^2 dL/dgamma^2)
        def value_and_slope(t):
            g2 = math.exp(t)
            return snc_loss(X, y, Z, z_labels, g2), snc_gradient(X, y, Z, z_labels, g2)[1] * g2

        t, loss, taken = _descend_log_gamma2(value_and_slope, math.log(gamma2), loss, max_iter, tol, losses.append)
        if taken:  # exp(log g) may differ from g in the last bit: keep the start when no step was taken
            gamma2 = math.exp(t)
        steps += taken

    # Z with A = gamma I (eqs. 3.5-3.6): theta = the m d entries of Z, row by row
    def as_Z(theta):
        return np.array(theta, dtype=np.float64).reshape(m, d)

    theta, loss, taken, converged = _descend(
        lambda t: snc_loss(X, y, as_Z(t), z_labels, gamma2),
        lambda t: snc_gradient(X, y, as_Z(t), z_labels, gamma2)[0].ravel().tolist(),
        Z.ravel().tolist(), loss, losses, max_iter, tol)
    steps += taken
    Z = as_Z(theta)
    if metric == "scalar":
        return SNCFit(Z=Z, z_labels=np.array(z_labels), gamma2=float(gamma2), A=None,
                      losses=np.array(losses, dtype=np.float64), n_iter=steps, converged=converged)

    # A and Z jointly (eqs. 3.7-3.9): theta = the entries of A (row by row), then those of Z
    g = math.sqrt(gamma2)
    A0 = np.full(d, g) if metric == "diagonal" else g * np.eye(d)
    size_a = A0.size

    def split(t):
        return np.array(t[:size_a], dtype=np.float64).reshape(A0.shape), as_Z(t[size_a:])

    def joint_gradient(t):
        A, Zt = split(t)
        dZ, dA = snc_metric_gradient(X, y, Zt, z_labels, A)
        return dA.ravel().tolist() + dZ.ravel().tolist()

    theta, loss, taken, converged = _descend(
        lambda t: snc_metric_loss(X, y, split(t)[1], z_labels, split(t)[0]), joint_gradient,
        A0.ravel().tolist() + Z.ravel().tolist(), snc_metric_loss(X, y, Z, z_labels, A0), losses, max_iter, tol)
    steps += taken
    A, Z = split(theta)
    return SNCFit(Z=Z, z_labels=np.array(z_labels), gamma2=float(gamma2), A=A,
                  losses=np.array(losses, dtype=np.float64), n_iter=steps, converged=converged)


# ------------------------------------------------------------------------------------------------------ prediction
@implements("kusner2016.ch3.nn-rule")
def snc_predict(Z, z_labels, X, k=1):
    """yhat(x) = majority label of the k nearest z_j under D_j = ||x - z_j||^2 (k = 1: 1-NN)   [kusner2016 §3.1.4, 1-NN rule]

    The compressed set is used as the thesis uses it: the (k-)nearest-neighbour rule on the learned references Z
    with their fixed labels (for the scalar metric A = gamma I no scaling is applied: the rule is scale invariant,
    §3.1.3).  Distances are exact: each D_j is a sum of squares of exact rational differences (``fractions``), so a
    tie is a tie of the real distances, never of their rounding.  Order: (D_j, j), ascending: among equally near
    references the lowest index j comes first; the first k vote, and a tie of votes goes to the smallest label
    (``numpy.unique`` order).  The rule is :mod:`spec.snc_contract`'s; :func:`fast.snc.snc_predict` gives the same
    labels.

    Parameters
    ----------
    Z : array (m, d)
        The references (compressed set) as rows, finite.
    z_labels : array (m,)
        Their labels (integers or strings).
    X : array (n, d)
        Queries as rows, finite, the same d as Z.
    k : int, default=1
        Neighbours that vote, 1 <= k <= m.

    Returns
    -------
    ndarray (n,)
        The predicted labels, with the dtype of ``z_labels``.

    Raises
    ------
    ValueError, TypeError
        Bad input (:func:`spec.snc_contract.check_predict`): a d mismatch between X and Z, NaN or inf, an empty
        array, k < 1 or k > m, a z_labels length other than m.
    """
    Z, z_labels, X, k = check_predict(Z, z_labels, X, k)
    references = [[Fraction(v) for v in z] for z in _rows(Z)]
    labels = z_labels.tolist()
    out = []
    for x in _rows(X):
        x = [Fraction(v) for v in x]
        ranked = sorted((sum(((a - b) ** 2 for a, b in zip(x, z)), Fraction(0)), j) for j, z in enumerate(references))
        votes = Counter(labels[j] for _, j in ranked[:k])
        most = max(votes.values())
        out.append(min(label for label, count in votes.items() if count == most))
    return np.array(out, dtype=z_labels.dtype)
