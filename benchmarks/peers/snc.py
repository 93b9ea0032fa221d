"""Peers rows of fast/snc.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats
from scipy.special import logsumexp

from benchmarks.peers._core import _rng, sized


def snc_gradient_numpy(X, y, Z, z_labels, gamma2):
    """dL/dZ = -2 g (M^T X - diag(M^T 1) Z), dL/dg = sum M o D with D by the GEMM expansion, P the row softmax of
    -g D, M = 1[same] exp(s - logsumexp_same) - P: every n x m matrix materialised."""
    D = np.maximum((X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2.0 * (X @ Z.T), 0.0)
    s = -gamma2 * D
    same = y[:, None] == z_labels[None, :]
    P = np.exp(s - logsumexp(s, axis=1, keepdims=True))
    s_same = np.where(same, s, -np.inf)
    M = np.where(same, np.exp(s_same - logsumexp(s_same, axis=1, keepdims=True)), 0.0) - P
    return -2.0 * gamma2 * (M.T @ X - M.sum(0)[:, None] * Z), float((M * D).sum())


def snc_log_correct_numpy(X, y, Z, z_labels, gamma2):
    """log p_i = logsumexp over same-label references - logsumexp over all, with the n x m matrix materialised
    (scipy cdist squared distances)."""
    s = -gamma2 * scipy.spatial.distance.cdist(X, Z, "sqeuclidean")
    same = y[:, None] == z_labels[None, :]
    return logsumexp(np.where(same, s, -np.inf), axis=1) - logsumexp(s, axis=1)


def snc_metric_gradient_numpy(X, y, Z, z_labels, A):
    """Full A: D_ij = ||A (x_i - z_j)||^2 by the GEMM expansion, M = Q - P materialised, dZ = -2 (M^T X - diag(c) Z)
    A^T A, dA = 2 A (X^T diag(r) X - X^T M Z - Z^T M^T X + Z^T diag(c) Z)."""
    XA, ZA = X @ A.T, Z @ A.T
    D = np.maximum((XA * XA).sum(1)[:, None] + (ZA * ZA).sum(1)[None, :] - 2.0 * (XA @ ZA.T), 0.0)
    same = y[:, None] == z_labels[None, :]
    P = np.exp(-D - logsumexp(-D, axis=1, keepdims=True))
    s_same = np.where(same, -D, -np.inf)
    Mat = np.where(same, np.exp(s_same - logsumexp(s_same, axis=1, keepdims=True)), 0.0) - P
    r, c = Mat.sum(1), Mat.sum(0)
    MtX = Mat.T @ X
    W = (X.T * r) @ X - X.T @ (Mat @ Z) - Z.T @ MtX + (Z.T * c) @ Z
    return -2.0 * ((MtX - c[:, None] * Z) @ A.T) @ A, 2.0 * A @ W


def class_allocation_numpy(counts, m):
    """Ones, then m - C numpy argmax steps of the gap m n_c - n m_c over classes not yet full (int64)."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    alloc = np.ones(counts.size, dtype=np.int64)
    for _ in range(m - counts.size):
        gap = np.where(alloc < counts, m * counts - n * alloc, np.iinfo(np.int64).min)
        alloc[int(np.argmax(gap))] += 1
    return alloc


def snc_optimize_numpy(X, y, Z, z_labels, gamma2, max_iter):
    """scipy L-BFGS-B on Z with the plain numpy loss (logsumexp) and gradient (as snc_gradient_numpy), gamma^2
    fixed."""
    m, d = Z.shape
    same = y[:, None] == z_labels[None, :]

    def f(z):  # loss and gradient from one materialised n x m score matrix
        Zm = z.reshape(m, d)
        s = -gamma2 * np.maximum((X * X).sum(1)[:, None] + (Zm * Zm).sum(1)[None, :] - 2.0 * (X @ Zm.T), 0.0)
        lse = logsumexp(s, axis=1, keepdims=True)
        s_same = np.where(same, s, -np.inf)
        lse_same = logsumexp(s_same, axis=1, keepdims=True)
        Mat = np.where(same, np.exp(s_same - lse_same), 0.0) - np.exp(s - lse)
        grad = -2.0 * gamma2 * (Mat.T @ X - Mat.sum(0)[:, None] * Zm)
        return float((lse - lse_same).sum()), grad.ravel()
    return scipy.optimize.minimize(f, Z.ravel(), jac=True, method="L-BFGS-B",
                                   options={"maxiter": max_iter, "ftol": 1e-6, "gtol": 1e-10}).x.reshape(m, d)


def rows_snc():
    F = importlib.import_module("fast.snc")
    M = "snc"
    nmd = {"small": ("n=1e3, m=30, d=10", (1000, 30, 10)), "mid": ("n=1.6e4, m=640, d=20", (16_000, 640, 20)),
           "large": ("n=3.2e4, m=640, d=20", (32_000, 640, 20))}
    square = {"small": ("n=200, d=10", (200, 10)), "mid": ("n=2000, d=20", (2000, 20)),
              "large": ("n=5000, d=20", (5000, 20))}

    def problem(n, m, d, classes=3):
        X = _rng(1).normal(size=(n, d))
        y = _rng(2).integers(0, classes, size=n)
        Z = _rng(3).normal(size=(m, d))
        return X, y, Z, np.arange(m) % classes

    def grad(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        return (lambda: F.snc_gradient(X, y, Z, zl, 0.5)), (lambda: snc_gradient_numpy(X, y, Z, zl, 0.5))

    def sne(n, d):
        X = _rng(1).normal(size=(n, d))

        def peer():
            s = -0.1 * scipy.spatial.distance.cdist(X, X, "sqeuclidean")
            np.fill_diagonal(s, -np.inf)
            return scipy.special.softmax(s, axis=1)
        return (lambda: F.sne_probabilities(X, 0.1)), peer

    def nca(n, d):
        X = _rng(1).normal(size=(n, d))
        y = _rng(2).integers(0, 3, size=n)
        A = np.eye(d) * 0.3 + 0.05 * _rng(4).normal(size=(d, d))

        def peer():
            T = X @ A.T
            s = -scipy.spatial.distance.cdist(T, T, "sqeuclidean")
            np.fill_diagonal(s, -np.inf)
            return (scipy.special.softmax(s, axis=1) * (y[:, None] == y[None, :])).sum(axis=1)
        return (lambda: F.nca_correct_probabilities(X, y, A)), peer

    def probs(n, m, d):
        X, _, Z, _ = problem(n, m, d)
        return ((lambda: F.snc_probabilities(X, Z, 0.5)),
                (lambda: scipy.special.softmax(-0.5 * scipy.spatial.distance.cdist(X, Z, "sqeuclidean"), axis=1)))

    def log_correct(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        return (lambda: F.snc_log_correct(X, y, Z, zl, 0.5)), (lambda: snc_log_correct_numpy(X, y, Z, zl, 0.5))

    def loss(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        return ((lambda: F.snc_loss(X, y, Z, zl, 0.5)),
                (lambda: -float(snc_log_correct_numpy(X, y, Z, zl, 0.5).sum())))

    def metric_A(d):
        return np.eye(d) * 0.7 + 0.05 * _rng(4).normal(size=(d, d))

    def metric_loss(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        A = metric_A(d)
        return ((lambda: F.snc_metric_loss(X, y, Z, zl, A)),
                (lambda: -float(snc_log_correct_numpy(X @ A.T, y, Z @ A.T, zl, 1.0).sum())))

    def metric_grad(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        A = metric_A(d)
        return ((lambda: F.snc_metric_gradient(X, y, Z, zl, A)),
                (lambda: snc_metric_gradient_numpy(X, y, Z, zl, A)))

    def allocation(classes, n, m):
        counts = _rng(5).integers(1, 2 * n // classes, size=classes)
        return (lambda: F.class_allocation(counts, m)), (lambda: class_allocation_numpy(counts, m))

    def init(n, classes, m):
        y = _rng(2).integers(0, classes, size=n)

        def peer():
            from sklearn.model_selection import train_test_split

            return train_test_split(np.arange(n), train_size=m, stratify=y, random_state=1)[0]
        return (lambda: F.class_proportional_init(y, m, rng=1)), peer

    def optimize(n, m, d, iters):
        X, y, Z, zl = problem(n, m, d)
        return ((lambda: F.snc_optimize(X, y, Z, zl, 0.5, max_iter=iters, optimize_gamma2=False).Z),
                (lambda: snc_optimize_numpy(X, y, Z, zl, 0.5, iters)))

    def predict(n, m, d):
        X, _, Z, zl = problem(n, m, d)

        def peer():
            from sklearn.neighbors import KNeighborsClassifier

            return KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(Z, zl).predict(X)
        return (lambda: F.snc_predict(Z, zl, X, k=1)), peer

    return [
        sized(M, "sne_probabilities", "scipy softmax of -gamma^2 cdist(X, X, 'sqeuclidean'), diagonal -inf", sne,
              square),
        sized(M, "nca_correct_probabilities", "scipy softmax of -cdist(XA^T, XA^T)^2 (diagonal -inf) summed over "
              "same-label columns", nca, square),
        sized(M, "snc_probabilities", "scipy softmax of -gamma^2 cdist(X, Z, 'sqeuclidean')", probs, nmd),
        sized(M, "snc_log_correct", "logsumexp(same-label scores) - logsumexp(scores), n x m materialised",
              log_correct, nmd),
        sized(M, "snc_loss", "-sum of the materialised log p_i (scipy cdist + logsumexp)", loss, nmd),
        sized(M, "snc_gradient", "plain numpy: GEMM distances, row log-softmax, M = Q o P materialised, two GEMMs",
              grad, {"small": ("n=1e3, m=30, d=10", (1000, 30, 10)), "mid": ("n=1.6e4, m=640, d=20",
                                                                           (16_000, 640, 20)),
                     "large": ("n=3.2e4, m=640, d=20", (32_000, 640, 20))}),
        sized(M, "snc_metric_loss", "the materialised loss on XA^T, ZA^T (full A)", metric_loss, nmd),
        sized(M, "snc_metric_gradient", "plain numpy, full A: M materialised, dZ and dA = 2 A W by GEMMs",
              metric_grad, nmd),
        sized(M, "class_allocation", "numpy: ones, then m - C argmax steps of the int64 gap m n_c - n m_c",
              allocation, {"small": ("C=10, m=400", (10, 10_000, 400)), "mid": ("C=100, m=4000", (100, 100_000, 4000)),
                           "large": ("C=1000, m=3000", (1000, 1_000_000, 3000))}),
        sized(M, "class_proportional_init", "sklearn train_test_split(train_size=m, stratify=y) (its own "
              "allocation and draws)", init, {"small": ("n=1e3, C=3, m=40", (1000, 3, 40)),
                                             "mid": ("n=1e5, C=10, m=4000", (100_000, 10, 4000)),
                                             "large": ("n=1e6, C=10, m=1e4", (1_000_000, 10, 10_000))}, same=False),
        sized(M, "snc_optimize", "scipy L-BFGS-B on Z with the plain numpy loss and gradient (gamma^2 fixed, both "
              "max_iter)", optimize, {"small": ("n=1e3, m=30, d=10, 20 it", (1000, 30, 10, 20)),
                                      "mid": ("n=4e3, m=160, d=20, 20 it", (4000, 160, 20, 20)),
                                      "large": ("n=1.6e4, m=320, d=20, 5 it", (16_000, 320, 20, 5))}, same=False,
              note="the numpy objective materialises n x m matrices: ~1 s an evaluation at n = 1.6e4, m = 640"),
        sized(M, "snc_predict", "sklearn KNeighborsClassifier(n_neighbors=k, algorithm='brute').fit(Z, z_labels)"
              ".predict(X), k = 1", predict, nmd),
    ]
