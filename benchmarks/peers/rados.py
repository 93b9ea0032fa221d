"""Peers rows of fast/rados.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np
from scipy.special import expit, logsumexp

from benchmarks.peers._core import _data, _g, _rng, _signatures, scalar, sized


def gemm_rados(X, y, sigmas, chunk_bytes=256 * 1024**2):
    """Pi = B E, B = [sigma == y] as float64 (n, m) in row chunks, E = y * X: the GEMM formulation."""
    E = y[:, None] * X
    n, m = sigmas.shape
    out = np.empty((n, X.shape[1]))
    step = max(1, chunk_bytes // (8 * m))
    for start in range(0, n, step):
        np.matmul((sigmas[start:start + step] == y[None, :]).astype(np.float64), E, out=out[start:start + step])
    return out


def rows_rados():
    F = importlib.import_module("fast.rados")
    M = "rados"
    md = {"small": ("m=1e3, d=10", (1000, 10)), "mid": ("m=1e4, d=100", (10_000, 100)),
          "large": ("m=1e5, d=100", (100_000, 100))}

    def risk(fn, peer):
        def make(m, d):
            X, y = _data(m, d)
            theta = _rng(3).normal(size=d) * 0.1
            return (lambda: fn(X, y, theta)), (lambda: peer(X, y, theta))
        return make

    def rado_risk(fn, peer):
        def make(n, d):
            P, _ = _data(n, d)
            theta = _rng(3).normal(size=d) * 0.1
            return (lambda: fn(P, theta)), (lambda: peer(P, theta))
        return make

    def rados_make(d):
        def make(m, n):
            X, y = _data(m, d)
            s = _signatures(n, m)
            return (lambda: F.rados(X, y, s)), (lambda: gemm_rados(X, y, s))
        return make

    mn = {"small": ("m=1e3, n=1e2", (1000, 100)), "mid": ("m=1e4, n=1e3", (10_000, 1000)),
          "large": ("m=1e5, n=1e4", (100_000, 10_000))}
    nd = {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e4, d=100", (10_000, 100)),
          "large": ("n=1e5, d=100", (100_000, 100))}

    def sample(m, n):
        y = np.where(_rng(2).random(m) < 0.5, -1, 1)
        return ((lambda: F.sample_signatures(y, n, rng=5)),
                (lambda: 2 * np.random.default_rng(5).integers(0, 2, size=(n, m), dtype=np.int8) - 1))

    def support(m, n):
        y = np.where(_rng(2).random(m) < 0.5, -1, 1).astype(np.int8)
        s = _signatures(n, m)
        return (lambda: F.support_sizes(y, s)), (lambda: (s == y).sum(axis=1))

    def theorem3(m, d):
        X, y = _data(m, d)
        theta = _rng(3).normal(size=d) * 0.1
        rows = np.arange(0, 2**m, 3)

        def peer():
            E = y[:, None] * X
            Pi = _g(m).T.astype(np.float64) @ E
            Pr = Pi[rows]
            log_f_m = logsumexp(-(Pi @ theta)) - math.log(len(Pi))
            log_f_r = logsumexp(-(Pr @ theta)) - math.log(len(Pr))
            grad = -(E.T @ expit(-(E @ theta))) / m
            r = np.linalg.norm(theta)
            return (r * np.linalg.norm(Pr, axis=1).max() - log_f_r, math.exp(log_f_r - log_f_m),
                    np.linalg.norm(grad), np.linalg.norm(Pr.mean(axis=0) / m))
        return (lambda: F.theorem3_quantities(X, y, theta, rows)), peer

    def edges(m, d):
        X, y = _data(m, d)
        return (lambda: F.edge_vectors(X, y)), (lambda: y[:, None] * X)

    def all_rados(m, d):
        X, y = _data(m, d)
        return (lambda: F.all_rados(X, y)), (lambda: _g(m).T.astype(np.float64) @ (y[:, None] * X))

    return [
        sized(M, "edge_vectors", "y[:, None] * X", edges, md),
        sized(M, "rados", "GEMM formulation: [sigmas == y] as float64 (row chunks <= 256 MiB) @ (y * X), d = 10",
              rados_make(10), mn, note="d = 10 (the target: >= 5x with default threads)"),
        sized(M, "rados (d=100)", "same GEMM formulation, d = 100", rados_make(100), mn),
        sized(M, "g_matrix", "(arange(2^m) >> shifts) & 1 as uint8", lambda m: ((lambda: F.g_matrix(m)),
              (lambda: _g(m))), {"small": ("m=8", (8,)), "mid": ("m=14", (14,)), "large": ("m=20", (20,))}),
        sized(M, "all_rados", "G_m^T (float64) @ (y * X), d = 10", all_rados,
              {"small": ("m=8", (8, 10)), "mid": ("m=12", (12, 10)), "large": ("m=18", (18, 10))}),
        sized(M, "sample_signatures", "2 * rng.integers(0, 2, (n, m), dtype=int8) - 1", sample, mn, same=False,
              note="fast draws the reference's int64 stream (same signatures as reference.rados for a seed)"),
        sized(M, "support_sizes", "(sigmas == y).sum(axis=1)", support, mn),
        sized(M, "logistic_risk", "np.logaddexp(0, -y * (X @ theta)).mean()",
              risk(F.logistic_risk, lambda X, y, t: np.logaddexp(0, -y * (X @ t)).mean()), md),
        sized(M, "logistic_risk_gradient", "-(X.T @ (y * expit(-y * (X @ theta)))) / m",
              risk(F.logistic_risk_gradient, lambda X, y, t: -(X.T @ (y * expit(-y * (X @ t)))) / len(y)), md),
        sized(M, "log_exp_rado_risk", "scipy logsumexp(-(P @ theta)) - log(n)",
              rado_risk(F.log_exp_rado_risk, lambda P, t: logsumexp(-(P @ t)) - math.log(len(P))), nd),
        sized(M, "exp_rado_risk", "np.exp(-(P @ theta)).mean() (overflows where fast does not)",
              rado_risk(F.exp_rado_risk, lambda P, t: np.exp(-(P @ t)).mean()), nd),
        sized(M, "log_rado_risk", "log 2 + (logsumexp(-(P @ theta)) - log n) / m",
              rado_risk(lambda P, t: F.log_rado_risk(P, t, 50),
                        lambda P, t: math.log(2) + (logsumexp(-(P @ t)) - math.log(len(P))) / 50), nd),
        sized(M, "theorem3_quantities", "numpy: Pi = G^T E, two logsumexps, norms, gradient (plain steps)", theorem3,
              {"small": ("m=6, d=5", (6, 5)), "mid": ("m=10, d=5", (10, 5)), "large": ("m=14, d=5", (14, 5))},
              same=False),
        scalar(M, "theorem3_eq5_bound", "lr + Q - math.log1p(-q / math.sqrt(n)) / m",
               lambda: F.theorem3_eq5_bound(0.5, 0.1, 100, 1000, 3.0),
               lambda: 0.5 + 0.1 - math.log1p(-3.0 / math.sqrt(1000)) / 100),
        scalar(M, "theorem3_eq6_q", "math formula of eq. (6)",
               lambda: F.theorem3_eq6_q(2.0, 1.0, 3.0, 10, 1000, 0.05),
               lambda: math.exp(2.0) * (3.0 + math.sqrt(10 * math.log(2 * math.e * 1000 / 10) + math.log(20)))),
    ]
