"""Peers rows of fast/causal.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats
from scipy.spatial.distance import pdist

from benchmarks.peers._core import _rng, sized


def hsic_numpy(a, b, h=0.5):
    """trace(K H L H) / (m - 1)^2 with K, L materialised and centred by row / column means (O(m^2) memory)."""
    K = np.exp(-np.subtract.outer(a, a) ** 2 / (2 * h * h))
    L = np.exp(-np.subtract.outer(b, b) ** 2 / (2 * h * h))
    Kc = K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
    return float((Kc * L).sum()) / (len(a) - 1) ** 2


def iqr_numpy(v):
    q3, q1 = np.percentile(v, [75, 25], method="inverted_cdf")
    return q3 - q1


def krr_sklearn(x_train, y_train, x_test, lam, h):
    from sklearn.kernel_ridge import KernelRidge

    model = KernelRidge(alpha=len(x_train) * lam / 2, kernel="rbf", gamma=1 / (2 * h * h))
    return model.fit(x_train[:, None], y_train).predict(x_test[:, None])


def rows_causal():
    F = importlib.import_module("fast.causal")
    M = "causal"
    mm = {"small": ("m=1e3", (1000,)), "mid": ("m=1e5", (100_000,)), "large": ("m=1e6", (1_000_000,))}
    quad = {"small": ("m=200", (200,)), "mid": ("m=1e3", (1000,)), "large": ("m=4e3", (4000,))}
    krr = {"small": ("n=100", (100,)), "mid": ("n=1e3", (1000,)), "large": ("n=3e3", (3000,))}

    def pair(m, seed=17):
        rng = _rng(seed)
        a = rng.normal(size=m)
        return a, np.tanh(a) + 0.3 * rng.normal(size=m)

    def two(fn, peer):
        def make(m):
            a, b = pair(m)
            return (lambda: fn(a, b)), (lambda: peer(a, b))
        return make

    def one(fn, peer):
        def make(m):
            a, _ = pair(m)
            return (lambda: fn(a)), (lambda: peer(a))
        return make

    def krr_make(n):
        a, b = pair(2 * n)
        return ((lambda: F.krr_predict(a[:n], b[:n], a[n:], bandwidth=0.5)),
                (lambda: krr_sklearn(a[:n], b[:n], a[n:], 1e-3, 0.5)))

    def residuals(n):
        a, b = pair(2 * n)

        def peer():
            return (b[n:] - krr_sklearn(a[:n], b[:n], a[n:], 1e-3, 0.5),
                    a[n:] - krr_sklearn(b[:n], a[:n], b[n:], 1e-3, 0.5))
        return (lambda: F.anm_residuals(a[:n], b[:n], a[n:], b[n:], bandwidth=0.5)), peer

    def anm(n):
        a, b = pair(2 * n)

        def peer():
            ry = b[n:] - krr_sklearn(a[:n], b[:n], a[n:], 1e-3, 0.5)
            rx = a[n:] - krr_sklearn(b[:n], a[:n], b[n:], 1e-3, 0.5)
            return hsic_numpy(a[n:], ry) < hsic_numpy(b[n:], rx)
        return (lambda: F.anm(a, b, bandwidth=0.5, rng=1)), peer

    def split(m):
        a, b = pair(m)
        from sklearn.model_selection import train_test_split
        return (lambda: F.train_test_split(a, b, rng=1)), (lambda: train_test_split(a, b, test_size=0.5,
                                                                                    random_state=1))

    def median_peer(x):
        dist = pdist(x[:1000, None])
        dist = dist[dist > 0]
        return float(np.median(dist)) if dist.size else 1.0

    return [
        sized(M, "average_ranks", "scipy.stats.rankdata(a)", one(F.average_ranks, scipy.stats.rankdata), mm),
        sized(M, "spearman_score", "abs(scipy.stats.spearmanr(a, b).statistic)",
              two(F.spearman_score, lambda a, b: abs(scipy.stats.spearmanr(a, b).statistic)), mm),
        sized(M, "kendall_score", "abs(scipy.stats.kendalltau(a, b).statistic) (tau-b = tau-a without ties)",
              two(F.kendall_score, lambda a, b: abs(scipy.stats.kendalltau(a, b).statistic)), mm),
        sized(M, "hsic_score", "numpy O(m^2): K, L materialised, centred by means", two(F.hsic_score, hsic_numpy),
              quad),
        sized(M, "iqr", "np.percentile(v, [75, 25], method='inverted_cdf') difference", one(F.iqr, iqr_numpy), mm),
        sized(M, "iqr_score", "log iqr(a) + log iqr(b) by np.percentile",
              two(F.iqr_score, lambda a, b: math.log(iqr_numpy(a)) + math.log(iqr_numpy(b))), mm),
        sized(M, "dependence_score", "score='spearman': abs(spearmanr(a, b).statistic)",
              two(lambda a, b: F.dependence_score(a, b, "spearman"),
                  lambda a, b: abs(scipy.stats.spearmanr(a, b).statistic)), mm),
        sized(M, "median_bandwidth", "np.median of the non-zero scipy pdist over the first 1000 points",
              one(F.median_bandwidth, median_peer), mm),
        sized(M, "krr_predict", "sklearn KernelRidge(kernel='rbf').fit(...).predict(...)", krr_make, krr),
        sized(M, "train_test_split", "sklearn.model_selection.train_test_split", split, mm, same=False),
        sized(M, "anm_residuals", "two sklearn KernelRidge fits", residuals, krr),
        sized(M, "anm", "two KernelRidge fits + the numpy O(m^2) HSIC", anm, krr, same=False),
    ]
