"""Peers rows of fast/reconstruction.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats

from benchmarks.peers._core import _g, _rng, sized


def rows_reconstruction():
    F = importlib.import_module("fast.reconstruction")
    M = "reconstruction"
    sizes = {"small": ("m=8, n=64, d=10", (8, 64, 10)), "mid": ("m=16, n=512, d=100", (16, 512, 100)),
             "large": ("m=30, n=4096, d=100", (30, 4096, 100))}

    def problem(m, n, d):
        rng = _rng(9)
        U = (np.sort(1 << np.arange(m)) if n == m  # m independent supports (Lemma 9 (b))
             else np.sort(rng.choice(2**m, size=n, replace=False)))
        E = rng.normal(size=(m, d))
        A = _g(m)[:, U].astype(np.float64) if m <= 20 else (
            ((U[None, :] >> np.arange(m - 1, -1, -1)[:, None]) & 1).astype(np.float64))
        return U, E, A, A.T @ E

    def support(m, n, d):
        U, E, A, R = problem(m, n, d)
        return (lambda: F.support_matrix(U, m)), (lambda: ((U[None, :] >> np.arange(m - 1, -1, -1)[:, None]) & 1)
                                                  .astype(np.uint8))

    def recover(m, n, d):
        U, E, A, R = problem(m, n, d)
        return (lambda: F.recover_edge_vectors(R, U, m)), (lambda: np.linalg.lstsq(A.T, R, rcond=None)[0])

    def alternative(m, n, d):
        n = min(n, m)  # Lemma 9 (b): independent supports, n <= m
        U, E, A, R = problem(m, n, d)
        shift = _rng(10).normal(size=(m, d))

        def peer():
            P = A @ np.linalg.inv(A.T @ A)
            return P @ R + shift - P @ (A.T @ shift)
        return (lambda: F.alternative_edge_vectors(R, U, m, shift)), peer

    def hausdorff(m, n, d):
        rng = _rng(11)
        E1, E2 = rng.normal(size=(n, d)), rng.normal(size=(n, d))
        return ((lambda: F.hausdorff_distance(E1, E2)),
                (lambda: max(scipy.spatial.distance.directed_hausdorff(E1, E2)[0],
                             scipy.spatial.distance.directed_hausdorff(E2, E1)[0])))

    def split(m, n, d):
        U, E, A, R = problem(m, n, d)
        v = _rng(12).normal(size=d)

        def peer(k=1):
            E2 = np.vstack([E, v])
            E2[k] -= v
            return E2, 2 * U + ((U >> (m - 1 - k)) & 1)
        return (lambda: F.split_edge_vectors(E, U, 1, v)), peer

    import scipy.spatial.distance  # noqa: F401
    return [
        sized(M, "support_matrix", "(U >> shifts) & 1 as uint8", support, sizes),
        sized(M, "recover_edge_vectors", "np.linalg.lstsq(A^T, rados)", recover, sizes,
              note="fast also checks rank(A) = m (an SVD) before solving"),
        sized(M, "alternative_edge_vectors", "A (A^T A)^{-1} (rados - A^T shift) + shift with np.linalg.inv",
              alternative, sizes, note="n = m rados (independent supports)"),
        sized(M, "hausdorff_distance", "max of scipy directed_hausdorff both ways (fast: the same early-exit search, "
              "the same floats, compiled)", hausdorff,
              {"small": ("64 x 10 vs 64 x 10", (8, 64, 10)), "mid": ("512 x 100 (each)", (16, 512, 100)),
               "large": ("4096 x 100 (each)", (30, 4096, 100))}),
        sized(M, "split_edge_vectors", "np.vstack + index arithmetic", split, sizes, same=False),
    ]
