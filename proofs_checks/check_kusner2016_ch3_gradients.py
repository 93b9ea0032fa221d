"""kusner2016 ch. 3 (SNC): the printed gradients (3.6), (3.8), (3.9) against finite differences and mpmath.

Each printed formula is evaluated as printed (inputs as columns, as in the thesis) and compared with central
differences of the loss; the implementation (reference and fast) is compared with a 50-digit mpmath evaluation of
the loss and its gradients at extreme gamma^2, where float64 exp would underflow.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

import fast.snc as fast_snc
import reference.snc as ref_snc
from spec.links import checks

BOTH = [ref_snc, fast_snc]


def _problem(seed=0, n=20, m=5, d=3, classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, classes, n)
    Z = rng.normal(size=(m, d))
    zl = np.arange(m) % classes
    return X, y, Z, zl


def _M(X, y, Z, zl, scale=1.0, A=None):
    """M = Q o P of the thesis, (n, m), straightforward float64 (moderate inputs only)."""
    Xt, Zt = (X, Z) if A is None else (X @ np.atleast_2d(A).T if np.ndim(A) == 2 else X * A,
                                       Z @ np.atleast_2d(A).T if np.ndim(A) == 2 else Z * A)
    D = ((Xt[:, None, :] - Zt[None, :, :]) ** 2).sum(-1)
    P = np.exp(-scale * D)
    P /= P.sum(1, keepdims=True)
    same = y[:, None] == zl[None, :]
    p = (P * same).sum(1)
    Q = same - p[:, None]  # [Q]_ij = delta_{y_i, yhat_j} - p_i
    return Q * (P / p[:, None])


def printed_eq3_6(X, y, Z, zl, gamma2):
    """dL/dZ = 2 (X (Q o P) - Z Delta((Q o P)^T 1_n)) with X (d x n), Z (d x m): returned as rows (m, d)."""
    M = _M(X, y, Z, zl, gamma2)
    return (2.0 * (X.T @ M - Z.T @ np.diag(M.sum(0)))).T


def printed_eq3_8(X, y, Z, zl, A):
    """dL_A/dA = -2 A sum_ij (p_ij / p_i) q_ij v_ij v_ij^T."""
    M = _M(X, y, Z, zl, 1.0, A)
    V = X[:, None, :] - Z[None, :, :]
    W = np.einsum("ij,ijk,ijl->kl", M, V, V)
    return -2.0 * A @ W


def printed_eq3_9(X, y, Z, zl, A):
    """dL_A/dZ = 2 A^T A dL/dZ, with dL/dZ the printed (3.6) (gamma^2 = 1) under A: rows (m, d)."""
    M = _M(X, y, Z, zl, 1.0, A)
    dLdZ = 2.0 * (X.T @ M - Z.T @ np.diag(M.sum(0)))
    return (2.0 * A.T @ A @ dLdZ).T


def _fd_Z(loss, Z, h=1e-6):
    out = np.zeros_like(Z)
    for idx in np.ndindex(Z.shape):
        Zp, Zm = Z.copy(), Z.copy()
        Zp[idx] += h
        Zm[idx] -= h
        out[idx] = (loss(Zp) - loss(Zm)) / (2 * h)
    return out


@checks("kusner2016.ch3.eq6")
def check_printed_eq3_6_is_the_gradient_of_minus_L_at_gamma2_1():
    """Printed (3.6) / numerical dL/dZ = -1/gamma^2 in every entry: wrong sign and missing gamma^2."""
    X, y, Z, zl = _problem()
    for gamma2 in (0.7, 1.0, 2.5):
        num = _fd_Z(lambda Zv: fast_snc.snc_loss(X, y, Zv, zl, gamma2), Z)
        printed = printed_eq3_6(X, y, Z, zl, gamma2)
        ratio = num / printed
        np.testing.assert_allclose(ratio, -gamma2, rtol=1e-6)
        # the corrected form is what both packages return
        for impl in BOTH:
            np.testing.assert_allclose(impl.snc_gradient(X, y, Z, zl, gamma2)[0], -gamma2 * printed, rtol=1e-9)
    # as printed, the formula is not the gradient: descending along it INCREASES L
    gamma2 = 1.0
    g = printed_eq3_6(X, y, Z, zl, gamma2)
    before = fast_snc.snc_loss(X, y, Z, zl, gamma2)
    after = fast_snc.snc_loss(X, y, Z - 1e-3 * g, zl, gamma2)
    assert after > before


@checks("kusner2016.ch3.eq8")
def check_printed_eq3_8_has_the_wrong_sign():
    X, y, Z, zl = _problem(1)
    rng = np.random.default_rng(5)
    for A in (rng.normal(size=(3, 3)), rng.normal(size=(2, 3))):
        num = _fd_Z(lambda Av: fast_snc.snc_metric_loss(X, y, Z, zl, Av), A)
        np.testing.assert_allclose(num / printed_eq3_8(X, y, Z, zl, A), -1.0, rtol=1e-5)
        for impl in BOTH:
            np.testing.assert_allclose(impl.snc_metric_gradient(X, y, Z, zl, A)[1], num, rtol=1e-6, atol=1e-9)


@checks("kusner2016.ch3.eq9")
def check_printed_eq3_9_has_a_spurious_factor_2():
    """Printed (3.9) = 2 A^T A (printed 3.6) = -2 x the true dL_A/dZ; the true one is A^T A x (true gamma^2=1 dL/dZ)."""
    X, y, Z, zl = _problem(2)
    A = np.random.default_rng(7).normal(size=(3, 3))
    num = _fd_Z(lambda Zv: fast_snc.snc_metric_loss(X, y, Zv, zl, A), Z)
    printed = printed_eq3_9(X, y, Z, zl, A)
    # printed / true = (2 * 2) / (-2) = -2: the sign of (3.6) times the spurious factor 2 of (3.9)
    np.testing.assert_allclose(printed / num, -2.0, rtol=1e-5)
    M = _M(X, y, Z, zl, 1.0, A)
    true_gamma1 = -2.0 * (M.T @ X - np.diag(M.sum(0)) @ Z)  # true dL/dZ at gamma^2 = 1, evaluated under A
    np.testing.assert_allclose(true_gamma1 @ (A.T @ A), num, rtol=1e-6)  # A^T A dL/dZ, no factor 2
    for impl in BOTH:
        np.testing.assert_allclose(impl.snc_metric_gradient(X, y, Z, zl, A)[0], num, rtol=1e-6, atol=1e-9)


@checks("kusner2016.ch3.qp")
def check_Q_hadamard_P_uses_the_reference_label():
    """M = Q o P with Q_ij = delta(y_i, yhat_j) - p_i; rows of M sum to 0; the printed delta(y(i), y(j)) indexes
    inputs j <= n, which is undefined for j > n references and gives a wrong gradient when read as y_j."""
    X, y, Z, zl = _problem(3, n=12, m=8)
    M = _M(X, y, Z, zl, 1.3)
    np.testing.assert_allclose(M.sum(1), 0.0, atol=1e-12)
    # read literally as delta(y_i, y_j) (the j-th INPUT's label), the gradient is wrong
    P = np.exp(-1.3 * ((X[:, None] - Z[None]) ** 2).sum(-1))
    P /= P.sum(1, keepdims=True)
    wrong_same = y[:, None] == y[None, : Z.shape[0]]
    p_w = (P * wrong_same).sum(1)
    Mw = (wrong_same - p_w[:, None]) * P / np.where(p_w > 0, p_w, 1.0)[:, None]
    g_wrong = -2 * 1.3 * (Mw.T @ X - np.diag(Mw.sum(0)) @ Z)
    num = _fd_Z(lambda Zv: fast_snc.snc_loss(X, y, Zv, zl, 1.3), Z)
    assert np.abs(g_wrong - num).max() > 1e-2
    np.testing.assert_allclose(fast_snc.snc_gradient(X, y, Z, zl, 1.3)[0], num, rtol=1e-6, atol=1e-9)


def _mp_loss_and_grads(X, y, Z, zl, gamma2, dps=60):
    """L, dL/dZ, dL/dgamma2 in mpmath (direct exp; mpmath's exponent range has no underflow)."""
    with mpmath.workdps(dps):
        g = mpmath.mpf(gamma2)
        n, m, d = X.shape[0], Z.shape[0], X.shape[1]
        Xm = [[mpmath.mpf(float(v)) for v in row] for row in X]
        Zm = [[mpmath.mpf(float(v)) for v in row] for row in Z]
        D = [[mpmath.fsum((Xm[i][k] - Zm[j][k]) ** 2 for k in range(d)) for j in range(m)] for i in range(n)]
        L = mpmath.mpf(0)
        M = [[None] * m for _ in range(n)]
        for i in range(n):
            e = [mpmath.exp(-g * D[i][j]) for j in range(m)]
            tot = mpmath.fsum(e)
            same = [zl[j] == y[i] for j in range(m)]
            pi = mpmath.fsum(e[j] for j in range(m) if same[j]) / tot
            L -= mpmath.log(pi)
            for j in range(m):
                pij = e[j] / tot
                M[i][j] = (pij / pi if same[j] else 0) - pij
        gZ = [[-2 * g * (mpmath.fsum(M[i][j] * Xm[i][k] for i in range(n))
                         - mpmath.fsum(M[i][j] for i in range(n)) * Zm[j][k]) for k in range(d)] for j in range(m)]
        gg = mpmath.fsum(M[i][j] * D[i][j] for i in range(n) for j in range(m))
        return float(L), np.array([[float(v) for v in row] for row in gZ]), float(gg)


@checks("kusner2016.ch3.eq5", "kusner2016.ch3.eq6", "kusner2016.ch3.gamma2")
@pytest.mark.parametrize("gamma2", [1e-8, 1e-3, 1.0, 50.0, 1e3, 1e6])
@pytest.mark.parametrize("impl", BOTH, ids=["reference", "fast"])
def check_against_mpmath_at_extreme_gamma2(impl, gamma2):
    """At gamma^2 = 1e3, 1e6 float64 exp(-gamma^2 D) underflows to 0 for every reference (D ~ 1); the log-space
    loss and gradients still agree with 60-digit mpmath to 1e-9 relative."""
    X, y, Z, zl = _problem(4, n=9, m=4, d=2)
    L, gZ, gg = _mp_loss_and_grads(X, y, Z, zl, gamma2)
    if gamma2 >= 1e3:
        naive = np.exp(-gamma2 * ((X[:, None] - Z[None]) ** 2).sum(-1))
        assert np.any(np.all(naive == 0.0, axis=1))  # the naive p_i is 0/0 for some input
    assert impl.snc_loss(X, y, Z, zl, gamma2) == pytest.approx(L, rel=1e-9)
    gz, g2 = impl.snc_gradient(X, y, Z, zl, gamma2)
    scale = max(np.abs(gZ).max(), 1e-300)
    np.testing.assert_allclose(gz, gZ, rtol=1e-7, atol=1e-9 * scale)
    assert g2 == pytest.approx(gg, rel=1e-7, abs=1e-9 * max(abs(gg), 1e-300))
