"""Peers rows of fast/measures.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats

from benchmarks.peers._core import _rng, sized


def capped_scaling(mu, kappa):
    """Pi_{Gamma_kappa}(mu) = min(1, c mu) with sum = kappa n, the sort-based way: sort decreasingly, for j capped
    entries c_j = (kappa n - j) / sum_{i >= j} s_i, take the first j with c_j s_j <= 1 (mu itself when dense)."""
    n = mu.size
    target = kappa * n
    if mu.sum() >= target:
        return mu
    s = np.sort(mu)[::-1]
    tail = np.cumsum(s[::-1])[::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (target - np.arange(n)) / tail
    j = int(np.argmax(c * s <= 1.0))
    return np.minimum(1.0, c[j] * mu)


def rows_measures():
    F = importlib.import_module("fast.measures")
    M = "measures"
    nn = {"small": ("n=1e3", (1000,)), "mid": ("n=1e5", (100_000,)), "large": ("n=1e6", (1_000_000,))}

    def one(fn, peer, kappa=None):
        def make(n):
            mu = _rng(1).random(n) * 0.5
            if kappa is None:
                return (lambda: fn(mu)), (lambda: peer(mu))
            return (lambda: fn(mu, kappa)), (lambda: peer(mu, kappa))
        return make

    def two(fn, peer):
        def make(n):
            p = _rng(1).random(n) + 0.01
            q = _rng(2).random(n) + 0.01
            p, q = p / p.sum(), q / q.sum()
            return (lambda: fn(p, q)), (lambda: peer(p, q))
        return make

    def proj_log(n):
        log_mu = np.log(_rng(1).random(n) * 0.5)
        return (lambda: F.project_dense_log(log_mu, 0.6)), (lambda: capped_scaling(np.exp(log_mu), 0.6))

    return [
        sized(M, "size", "mu.sum()", one(F.size, np.sum), nn),
        sized(M, "density", "mu.mean()", one(F.density, np.mean), nn),
        sized(M, "normalize", "mu / mu.sum()", one(F.normalize, lambda m: m / m.sum()), nn),
        sized(M, "kl", "scipy.special.kl_div(p, q).sum()",
              two(F.kl, lambda p, q: float(scipy.special.kl_div(p, q).sum())), nn),
        sized(M, "statistical_distance", "0.5 * np.abs(p - q).sum()",
              two(F.statistical_distance, lambda p, q: 0.5 * float(np.abs(p - q).sum())), nn),
        sized(M, "renyi", "log((p**a * q**(1-a)).sum()) / (a - 1), a = 2",
              two(lambda p, q: F.renyi(p, q, 2.0), lambda p, q: math.log(float((p**2 * q**-1.0).sum()))), nn),
        sized(M, "is_dense", "mu.sum() >= kappa * n", one(F.is_dense, lambda m, k: bool(m.sum() >= k * m.size), 0.6),
              nn),
        sized(M, "project_dense", "sort-based capped scaling (np.sort, cumsum, first j with c_j s_j <= 1)",
              one(F.project_dense, capped_scaling, 0.6), nn),
        sized(M, "project_dense_log", "np.exp then the sort-based capped scaling", proj_log, nn),
    ]
