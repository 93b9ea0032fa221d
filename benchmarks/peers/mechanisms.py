"""Peers rows of fast/mechanisms.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats

from benchmarks.peers._core import _rng, scalar, sized


def rows_mechanisms():
    F = importlib.import_module("fast.mechanisms")
    M = "mechanisms"
    dd = {"small": ("d=1", (1,)), "mid": ("d=1e3", (1000,)), "large": ("d=1e6", (1_000_000,))}
    note = "exact discrete sampler (CKS20) vs numpy's floating-point sampler, which is not DP (Mironov 2012)"
    # both sides draw from a Generator built once, outside the timing (a seed would make fast build one per call);
    # fast's private default (OS entropy, rng=None) is slower again: see docs/performance.md

    def lap(d):
        x = _rng(16).normal(size=d)
        rng, g = np.random.default_rng(1), np.random.default_rng(1)
        return ((lambda: F.laplace_mechanism(x, sensitivity=1.0, epsilon=1.0, rng=g)),
                (lambda: x + rng.laplace(0.0, 1.0, size=d)))

    def gauss(d):
        x = _rng(16).normal(size=d)
        rng, g = np.random.default_rng(1), np.random.default_rng(1)
        sigma = math.sqrt(2 * math.log(1.25 / 1e-6)) / 0.5
        return ((lambda: F.gaussian_mechanism(x, sensitivity=1.0, epsilon=0.5, delta=1e-6, rng=g)),
                (lambda: x + rng.normal(0.0, sigma, size=d)))

    def dlap(d):
        rng, g = np.random.default_rng(1), np.random.default_rng(1)
        p = 1 - math.exp(-1 / 100)
        return ((lambda: F.sample_discrete_laplace(100, size=d, rng=g)),
                (lambda: rng.geometric(p, size=d) - rng.geometric(p, size=d)))

    def dgauss(d):
        rng, g = np.random.default_rng(1), np.random.default_rng(1)
        return ((lambda: F.sample_discrete_gaussian(100, size=d, rng=g)),
                (lambda: np.rint(rng.normal(0.0, 10.0, size=d)).astype(np.int64)))

    def unsafe(fn, peer):
        def make(d):
            x = _rng(16).normal(size=d)
            rng, g = np.random.default_rng(1), np.random.default_rng(1)
            return (lambda: fn(x, g)), (lambda: peer(x, rng))
        return make

    def bw_delta(sigma, eps):
        return scipy.stats.norm.cdf(1 / (2 * sigma) - eps * sigma) - math.exp(eps) * scipy.stats.norm.cdf(
            -1 / (2 * sigma) - eps * sigma)

    return [
        scalar(M, "laplace_grid", "sensitivity / epsilon (the float scale)", lambda: F.laplace_grid(1.0, 0.5),
               lambda: 1.0 / 0.5, note="no plain equivalent: the grid calibration (power-of-two step, integer scale)"),
        scalar(M, "gaussian_grid", "classic sigma formula", lambda: F.gaussian_grid(1.0, 0.5, 1e-6),
               lambda: math.sqrt(2 * math.log(1.25 / 1e-6)) / 0.5,
               note="no plain equivalent: analytic/zCDP sigma + grid calibration"),
        sized(M, "laplace_mechanism", "x + rng.laplace(0, Delta / eps, d)", lap, dd, same=False, note=note),
        sized(M, "gaussian_mechanism", "x + rng.normal(0, sigma, d)", gauss,
              {**dd, "large": ("d=1e5", (100_000,))}, same=False,
              note=note + "; large d = 1e5: at d = 1e6 the grid variance exceeds 2^24 and the big-integer "
                          "sampler draws it, ~4 s"),
        sized(M, "sample_discrete_laplace", "difference of two numpy geometric draws", dlap, dd, same=False,
              note="exact from random words vs numpy's floating-point geometric"),
        sized(M, "sample_discrete_gaussian", "np.rint(rng.normal(0, sigma, d))", dgauss, dd, same=False,
              note="exact discrete Gaussian vs a rounded continuous one (a different law)"),
        scalar(M, "classic_gaussian_sigma", "Delta sqrt(2 ln(1.25/delta)) / eps",
               lambda: F.classic_gaussian_sigma(1.0, 0.5, 1e-6), lambda: math.sqrt(2 * math.log(1.25 / 1e-6)) / 0.5),
        scalar(M, "analytic_gaussian_sigma", "scipy.optimize.brentq on the Balle-Wang delta (norm.cdf)",
               lambda: F.analytic_gaussian_sigma(1.0, 0.5, 1e-6),
               lambda: scipy.optimize.brentq(lambda s: bw_delta(s, 0.5) - 1e-6, 0.1, 100.0)),
        scalar(M, "zcdp_gaussian_sigma", "Delta / sqrt(2 rho), rho by brentq on the SIMPLE conversion (fast uses the "
               "tight one: a different, smaller sigma)",
               lambda: F.zcdp_gaussian_sigma(1.0, 0.5, 1e-6),
               lambda: 1 / math.sqrt(2 * scipy.optimize.brentq(
                   lambda r: r + 2 * math.sqrt(r * math.log(1e6)) - 0.5, 1e-9, 1.0)), same=False),
        scalar(M, "gaussian_delta", "Balle-Wang delta with scipy.stats.norm.cdf", lambda: F.gaussian_delta(4.0, 1.0, 0.5),
               lambda: bw_delta(4.0, 0.5)),
        sized(M, "unsafe_float_laplace", "x + rng.laplace(0, Delta / eps, d)",
              unsafe(lambda x, g: F.unsafe_float_laplace(x, sensitivity=1.0, epsilon=1.0, rng=g),
                     lambda x, rng: x + rng.laplace(0.0, 1.0, size=x.shape)), dd, same=False),
        sized(M, "unsafe_float_gaussian", "x + rng.normal(0, sigma, d)",
              unsafe(lambda x, g: F.unsafe_float_gaussian(x, sensitivity=1.0, epsilon=0.5, delta=1e-6, rng=g),
                     lambda x, rng: x + rng.normal(0.0, 8.0, size=x.shape)), dd, same=False),
    ]
