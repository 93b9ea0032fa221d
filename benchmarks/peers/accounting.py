"""Peers rows of fast/accounting.py (fast vs the formulation a user would otherwise write); the machinery is
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


_SPENDS: list = []  # the peer of the default ledger: a plain module-level list


def rows_accounting():
    F = importlib.import_module("fast.accounting")
    M = "accounting"
    kk = {"small": ("k=10", (10,)), "mid": ("k=1e3", (1000,)), "large": ("k=1e5", (100_000,))}

    def tight_peer(rho, delta):
        def eps(alpha):
            return alpha * rho + (math.log(1 / delta) + (alpha - 1) * math.log(1 - 1 / alpha) - math.log(alpha)) / (
                alpha - 1)
        return scipy.optimize.minimize_scalar(eps, bounds=(1.0001, 1e4), method="bounded").fun

    def basic(k):
        eps, dl = [0.1] * k, [1e-7] * k
        return (lambda: F.basic_composition(eps, dl)), (lambda: (math.fsum(eps), math.fsum(dl)))

    def zcdp(k):
        rhos = [0.01] * k
        return (lambda: F.zcdp_composition(rhos)), (lambda: math.fsum(rhos))

    def renyi(d):
        z, z2 = _rng(14).normal(size=d), _rng(15).normal(size=d)
        return (lambda: F.renyi_gaussian(z, z2, 2.0, 3.0)), (lambda: 3.0 * np.sum((z - z2) ** 2) / (2 * 4.0))

    def split(k):
        b = F.Budget(1.0, 1e-6) if hasattr(F, "Budget") else (1.0, 1e-6)
        return (lambda: F.split(b, k)), (lambda: [(1.0 / k, 1e-6 / k)] * k)

    return [
        sized(M, "basic_composition", "(math.fsum(eps), math.fsum(deltas))", basic, kk),
        scalar(M, "advanced_composition", "min(k eps, k eps^2 / 2 + eps sqrt(2 k log(1/delta'))) and its delta",
               lambda: F.advanced_composition(0.1, 1e-7, 100, 1e-6),
               lambda: min((100 * 0.1, 100 * 1e-7),
                           (100 * 0.01 / 2 + 0.1 * math.sqrt(2 * 100 * math.log(1e6)), 100 * 1e-7 + 1e-6))),
        scalar(M, "advanced_composition_thm48", "k eps^2 / 2 + eps sqrt(2 k log(1/delta')), k delta + delta'",
               lambda: F.advanced_composition_thm48(0.1, 1e-7, 100, 1e-6),
               lambda: (100 * 0.01 / 2 + 0.1 * math.sqrt(2 * 100 * math.log(1e6)), 100 * 1e-7 + 1e-6)),
        sized(M, "zcdp_composition", "math.fsum(rhos)", zcdp, kk),
        sized(M, "renyi_gaussian", "alpha * np.sum((z - z') ** 2) / (2 sigma^2)", renyi,
              {"small": ("d=10", (10,)), "mid": ("d=1e3", (1000,)), "large": ("d=1e6", (1_000_000,))}),
        scalar(M, "gaussian_rho", "Delta^2 / (2 sigma^2)", lambda: F.gaussian_rho(1.0, 2.0), lambda: 1.0 / 8.0),
        scalar(M, "default_ledger", "a module-level list of spends, read", F.default_ledger, lambda: _SPENDS,
               same=False, note="returns the process-wide ledger object (a lock-protected read)"),
        scalar(M, "reset_default_ledger", "a new module-level list of spends", F.reset_default_ledger,
               lambda: _SPENDS.clear(), same=False, note="a new exact ledger (Fractions, a lock)"),
        scalar(M, "pure_dp_to_zcdp", "eps^2 / 2", lambda: F.pure_dp_to_zcdp(0.5), lambda: 0.125),
        scalar(M, "zcdp_to_dp", "rho + 2 sqrt(rho log(1/delta))", lambda: F.zcdp_to_dp(0.1, 1e-6),
               lambda: 0.1 + 2 * math.sqrt(0.1 * math.log(1e6))),
        scalar(M, "zcdp_to_dp_tight", "scipy.optimize.minimize_scalar over alpha", lambda: F.zcdp_to_dp_tight(0.1, 1e-6),
               lambda: tight_peer(0.1, 1e-6)),
        scalar(M, "zcdp_to_dp_rho", "scipy.optimize.brentq on the minimize_scalar conversion",
               lambda: F.zcdp_to_dp_rho(1.0, 1e-6),
               lambda: scipy.optimize.brentq(lambda r: tight_peer(r, 1e-6) - 1.0, 1e-6, 1.0, xtol=1e-10)),
        sized(M, "split", "[(eps / k, delta / k)] * k", split, kk, same=False),
    ]
