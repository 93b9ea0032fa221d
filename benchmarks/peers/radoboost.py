"""Peers rows of fast/radoboost.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np

from benchmarks.peers._core import _data, _rng, sized


def numpy_radoboost(P, T, penalty=None, omega=0.0):
    """The textbook loop (nock2015 Algorithm 1): edges r = (w @ P) / pi_*, k = argmax |r|, alpha = atanh(r_k) /
    pi_*k, multiplicative weight update, renormalise.  ``penalty`` adds an Omega(theta) evaluation per round."""
    n, d = P.shape
    pistar = np.abs(P).max(axis=0)
    w = np.full(n, 1.0 / n)
    theta = np.zeros(d)
    for _ in range(T):
        r = (w @ P) / pistar
        k = int(np.argmax(np.abs(r)))
        rk = float(np.clip(r[k], -1 + 1e-12, 1 - 1e-12))
        alpha = math.atanh(rk) / pistar[k]
        theta[k] += alpha
        if penalty is not None:
            omega * penalty(theta)
        w = w * np.exp(-alpha * P[:, k])
        w /= w.sum()
    return theta


def rows_radoboost():
    F = importlib.import_module("fast.radoboost")
    M = "radoboost"
    boost = {"small": ("n=1e3, d=10, T=100", (1000, 10, 100)), "mid": ("n=1e4, d=100, T=300", (10_000, 100, 300)),
             "large": ("n=1e5, d=100, T=300", (100_000, 100, 300))}

    def rados_of(n, d):
        P = _rng(7).normal(size=(n, d)) + 0.05 * _rng(8).normal(size=d)
        return np.asfortranarray(P)

    def rb(n, d, T):
        P = rados_of(n, d)
        return (lambda: F.radoboost(P, T)), (lambda: numpy_radoboost(P, T))

    def orb(n, d, T):
        P = rados_of(n, d)
        return ((lambda: F.omega_radaboost(P, T, regularizer="lasso", omega=1e-3)),
                (lambda: numpy_radoboost(P, T, penalty=lambda t: np.abs(t).sum(), omega=1e-3)))

    def ada(m, d, T):
        X, y = _data(m, d)
        # the peer builds its edge vectors too (fast's time includes them), in the Fortran order its loop wants
        return (lambda: F.adaboost(X, y, T)), (lambda: numpy_radoboost(np.asfortranarray(y[:, None] * X), T))

    def edges(n, d):
        P = rados_of(n, d)
        w = np.full(n, 1.0 / n)
        return (lambda: F.normalised_edges(P, w)), (lambda: (w @ P) / np.abs(P).max(axis=0))

    return [
        sized(M, "normalised_edges", "(w @ P) / np.abs(P).max(axis=0)", edges,
              {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e4, d=100", (10_000, 100)),
               "large": ("n=1e5, d=100", (100_000, 100))}),
        sized(M, "radoboost", "textbook numpy loop (w @ P, argmax, atanh step, reweight, renormalise)", rb, boost,
              same=False),
        sized(M, "omega_radaboost", "same loop + an Omega(theta) (lasso) evaluation per round", orb, boost, same=False),
        sized(M, "adaboost", "same loop over the edge vectors np.asfortranarray(y[:, None] * X) (built in the call)",
              ada,
              {"small": ("m=1e3, d=10, T=100", (1000, 10, 100)), "mid": ("m=1e4, d=100, T=300", (10_000, 100, 300)),
               "large": ("m=1e5, d=100, T=300", (100_000, 100, 300))}, same=False),
    ]
