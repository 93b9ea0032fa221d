"""Peers rows of fast/causal_privacy.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np

from benchmarks.peers._core import _rng, scalar, sized
from benchmarks.peers.causal import iqr_numpy


def rows_causal_privacy():
    F = importlib.import_module("fast.causal_privacy")
    M = "causal_privacy"
    mm = {"small": ("m=1e3", (1000,)), "mid": ("m=1e5", (100_000,)), "large": ("m=1e6", (1_000_000,))}

    def r_n(n, lam):
        return 4 / (n * lam) * (1 + 1 / math.sqrt(2 * lam))

    def instability(m):
        r = _rng(18).normal(size=m)
        return ((lambda: F.rank_instability_distance(r, n=1000, lam=0.1)),
                (lambda: math.ceil(np.diff(np.unique(r)).min() / (2 * r_n(1000, 0.1))) - 1))

    def bin_distance(m):
        v = _rng(19).normal(size=m)
        return (lambda: F.iqr_bin_distance(v, 1.0, 2.0)), None

    def train_bin(m):
        v = _rng(19).normal(size=m)
        q = iqr_numpy(v)
        return ((lambda: F.iqr_train_bin_distance(v, 1.0, 2.0, n=1000, lam=0.1)),
                (lambda: math.ceil(min(iqr_numpy(v) - 1.0, 2.0 - q) / (2 * r_n(1000, 0.1)))))

    def ptr(fn):
        def make(m):
            v = _rng(19).normal(size=m)
            rng = np.random.default_rng(1)
            return (lambda: fn(v)), (lambda: math.log(iqr_numpy(v)) + rng.laplace(0.0, 1.0))
        return make

    rng = np.random.default_rng(1)
    return [
        scalar(M, "spearman_sensitivity", "6 (5m - 9) / (m (m + 1))", lambda: F.spearman_sensitivity(1000),
               lambda: 6 * (5 * 1000 - 9) / (1000 * 1001)),
        scalar(M, "kendall_sensitivity", "min(1, 4 / m)", lambda: F.kendall_sensitivity(1000), lambda: min(1, 4 / 1000)),
        scalar(M, "hsic_sensitivity", "(8m - 4) / (m - 1)^2", lambda: F.hsic_sensitivity(1000),
               lambda: (8 * 1000 - 4) / 999**2),
        scalar(M, "residual_sensitivity", "(4 / (n lam)) (1 + 1 / sqrt(2 lam))", lambda: F.residual_sensitivity(1000, 0.1),
               lambda: r_n(1000, 0.1)),
        scalar(M, "hsic_train_sensitivity", "(4m / (m - 1)) L_l R_n (formula)",
               lambda: F.hsic_train_sensitivity(1000, 1000, 0.1, bandwidth=0.5),
               lambda: 4 * 1000 / 999 * (2 / (0.5 * math.sqrt(math.e))) * r_n(1000, 0.1)),
        sized(M, "rank_instability_distance", "ceil(min gap of np.unique(r) / (2 R_n)) - 1", instability, mm),
        scalar(M, "laplace_scores", "s + rng.laplace(0, Delta / eps, 2) (float Laplace)",
               lambda: F.laplace_scores(0.1, 0.2, sensitivity=0.01, epsilon=1.0, rng=1),
               lambda: np.array([0.1, 0.2]) + rng.laplace(0.0, 0.01, 2)),
        scalar(M, "stability_release", "d + rng.laplace(0, 1/eps) > log(1/delta) / eps",
               lambda: F.stability_release(0.3, 40, epsilon=1.0, delta=1e-6, rng=1),
               lambda: 0.3 if 40 + rng.laplace(0.0, 1.0) > math.log(1e6) else None),
        scalar(M, "iqr_bins", "math.floor(math.log(q)) bins (formula)", lambda: F.iqr_bins(1.7),
               lambda: (math.exp(math.floor(math.log(1.7))), math.exp(math.floor(math.log(1.7)) + 1))),
        sized(M, "iqr_bin_distance", "(none: combinatorial count of substitutions)", bin_distance, mm,
              note="no plain formulation; fast time only"),
        sized(M, "iqr_ptr", "log iqr(v) + Laplace (the release without the PTR test)",
              ptr(lambda v: F.iqr_ptr(v, epsilon=1.0, delta=1e-6, rng=1)), mm, same=False),
        scalar(M, "iqr_decision_privacy", "(12 eps, 4 delta)", lambda: F.iqr_decision_privacy(1.0, 1e-6),
               lambda: (12.0, 4e-6)),
        sized(M, "iqr_train_bin_distance", "ceil(min(IQR - lo, hi - IQR) / (2 R_n)) with np.percentile", train_bin, mm),
        sized(M, "iqr_train_ptr", "log iqr(r) + Laplace (the release without the PTR test)",
              ptr(lambda v: F.iqr_train_ptr(v, n=1000, lam=0.1, epsilon=1.0, delta=1e-6, rng=1)), mm, same=False),
        scalar(M, "iqr_train_decision_privacy", "(6 eps, 2 delta)", lambda: F.iqr_train_decision_privacy(1.0, 1e-6),
               lambda: (6.0, 2e-6)),
        scalar(M, "prob_correct_laplace", "1 - (g + 2 s) / (4 s) exp(-g / s)", lambda: F.prob_correct_laplace(0.3, 0.1),
               lambda: 1 - (0.3 + 0.2) / 0.4 * math.exp(-3.0)),
        scalar(M, "prob_correct_four_laplace", "1 - exp(-g) (48 + 33 g + 9 g^2 + g^3) / 96",
               lambda: F.prob_correct_four_laplace(0.3, 0.1),
               lambda: 1 - math.exp(-3.0) * (48 + 99 + 81 + 27) / 96),
    ]
