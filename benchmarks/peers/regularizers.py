"""Peers rows of fast/regularizers.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import functools
import importlib

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats

from benchmarks.peers._core import _rng, scalar, sized


def rows_regularizers():
    F = importlib.import_module("fast.regularizers")
    M = "regularizers"
    dd = {"small": ("d=10", (10,)), "mid": ("d=1e3", (1000,)), "large": ("d=1e6", (1_000_000,))}

    def on_theta(fn, peer):
        def make(d):
            t = _rng(5).normal(size=d)
            return (lambda: fn(t)), (lambda: peer(t))
        return make

    def ridge_gamma(d):
        A = _rng(6).normal(size=(d, d))
        G = A @ A.T / d + np.eye(d)
        t = _rng(5).normal(size=d)
        return (lambda: F.ridge(t, G)), (lambda: t @ G @ t)

    def slope_peer(t, q=0.1):
        d = len(t)
        return np.sort(np.abs(t))[::-1] @ scipy.stats.norm.ppf(1 - np.arange(1, d + 1) * q / (2 * d))

    return [
        sized(M, "lasso", "np.abs(theta).sum()", on_theta(F.lasso, lambda t: np.abs(t).sum()), dd),
        sized(M, "ridge", "theta @ theta", on_theta(F.ridge, lambda t: t @ t), dd),
        sized(M, "ridge (Gamma)", "theta @ Gamma @ theta", ridge_gamma,
              {"small": ("d=10", (10,)), "mid": ("d=100", (100,)), "large": ("d=1000", (1000,))},
              note="fast checks that Gamma is SPD (a Cholesky factorisation, the contract): O(d^3) vs O(d^2)"),
        sized(M, "linf", "np.abs(theta).max()", on_theta(F.linf, lambda t: np.abs(t).max()), dd),
        sized(M, "slope_weights", "scipy.stats.norm.ppf(1 - k q / (2 d))",
              lambda d: ((lambda: F.slope_weights(d, 0.1)),
                         (lambda: scipy.stats.norm.ppf(1 - np.arange(1, d + 1) * 0.1 / (2 * d)))), dd),
        sized(M, "slope", "sort(|theta|)[::-1] @ norm.ppf(1 - k q / (2 d))",
              on_theta(lambda t: F.slope(t, 0.1), slope_peer), dd),
        sized(M, "elastic_net", "l1 * np.abs(theta).sum() + l2 * theta @ theta",
              on_theta(lambda t: F.elastic_net(t, 0.5, 2.0), lambda t: 0.5 * np.abs(t).sum() + 2.0 * (t @ t)), dd),
        scalar(M, "get_regularizer", "functools.partial(slope_peer, q=q) (building the callable)",
               lambda: F.get_regularizer("slope", q=0.1), lambda: functools.partial(slope_peer, q=0.1)),
    ]
