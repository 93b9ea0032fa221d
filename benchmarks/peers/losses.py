"""Peers rows of fast/losses.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats
from scipy.special import expit, logsumexp

from benchmarks.peers._core import _data, _g, _rng, scalar, sized


def rows_losses():
    F = importlib.import_module("fast.losses")
    M = "losses"
    vec = {"small": ("m=1e3", (1000,)), "mid": ("m=1e5", (100_000,)), "large": ("m=1e6", (1_000_000,))}
    sub = {"small": ("m=8", (8,)), "mid": ("m=14", (14,)), "large": ("m=18", (18,))}
    nd = {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e4, d=100", (10_000, 100)),
          "large": ("n=1e5, d=100", (100_000, 100))}
    mu = 0.7

    def z_of(m):
        return _rng(4).normal(size=m)

    def on_z(fn, peer):
        def make(m):
            z = z_of(m)
            return (lambda: fn(z)), (lambda: peer(z))
        return make

    def on_subsets(fn, peer):
        def make(m):
            z = z_of(m)
            G = _g(m).astype(np.float64)  # built once: the peer is not charged for it
            return (lambda: fn(z)), (lambda: peer(z, G))
        return make

    def on_set(fn, peer):
        def make(n, d):
            P, _ = _data(n, d)
            theta = _rng(3).normal(size=d) * 0.1
            return (lambda: fn(P, theta)), (lambda: peer(P, theta))
        return make

    return [
        scalar(M, "phi_r", "x * math.log(x) - x", lambda: F.phi_r(0.3, "I"), lambda: 0.3 * math.log(0.3) - 0.3),
        scalar(M, "phi_s", "phi_r(x) + phi_r(1 - x) inline", lambda: F.phi_s(0.3, "I"),
               lambda: 0.3 * math.log(0.3) - 0.3 + 0.7 * math.log(0.7) - 0.7),
        scalar(M, "phi_e", "phi_s(x) + 1 inline", lambda: F.phi_e(0.3, "I"),
               lambda: 0.3 * math.log(0.3) - 0.3 + 0.7 * math.log(0.7) - 0.7 + 1),
        sized(M, "example_loss", "row I: np.logaddexp(0, -z / mu).sum()",
              on_z(lambda z: F.example_loss(z, "I", mu), lambda z: np.logaddexp(0, -z / mu).sum()), vec),
        sized(M, "rado_loss", "row I by enumeration: np.exp(-(G_m^T z) / mu).sum() (G_m prebuilt)",
              on_subsets(lambda z: F.rado_loss(z, "I", mu), lambda z, G: np.exp(-(z @ G) / mu).sum()), sub),
        sized(M, "rado_set_loss", "row I: exp(logsumexp(-(P @ theta) / mu))",
              on_set(lambda P, t: F.rado_set_loss(P, t, "I", mu), lambda P, t: math.exp(logsumexp(-(P @ t) / mu))),
              nd),
        sized(M, "example_adversary", "row I: expit(-z / mu)",
              on_z(lambda z: F.example_adversary(z, "I", mu), lambda z: expit(-z / mu)), vec),
        sized(M, "rado_adversary", "row I: scipy softmax(-(G_m^T z) / mu) (G_m prebuilt)",
              on_subsets(lambda z: F.rado_adversary(z, "I", mu),
                         lambda z, G: scipy.special.softmax(-(z @ G) / mu)), sub),
        sized(M, "example_game_value", "row I: -mu * np.logaddexp(0, -z / mu).sum()",
              on_z(lambda z: F.example_game_value(z, "I", mu), lambda z: -mu * np.logaddexp(0, -z / mu).sum()), vec),
        sized(M, "rado_game_value", "row I closed form of eq. (6): -mu * logaddexp(0, -z / mu).sum() - mu",
              on_z(lambda z: F.rado_game_value(z, "I", mu), lambda z: -mu * np.logaddexp(0, -z / mu).sum() - mu),
              {"small": ("m=8", (8,)), "mid": ("m=14", (14,)), "large": ("m=20", (20,))}),
        scalar(M, "slope_a_e", "the constant (mu_e)", lambda: F.slope_a_e("I", mu), lambda: mu),
        sized(M, "regularized_example_loss", "row I: np.logaddexp(0, -(E @ theta) / mu).sum() + penalty",
              on_set(lambda E, t: F.regularized_example_loss(E, t, "I", mu, 0.5),
                     lambda E, t: np.logaddexp(0, -(E @ t) / mu).sum() + 0.5), nd),
        sized(M, "omega_tilde", "a_e * penalty / (theta @ theta)",
              on_z(lambda t: F.omega_tilde(t, 0.5, mu), lambda t: mu * 0.5 / (t @ t)), vec),
        sized(M, "regularized_rados", "P - (a_e * penalty / (theta @ theta)) * theta",
              on_set(lambda P, t: F.regularized_rados(P, t, 0.5, mu), lambda P, t: P - (mu * 0.5 / (t @ t)) * t), nd),
        sized(M, "regularized_exp_rado_loss", "np.exp(-(P @ theta) + omega * penalty).mean()",
              on_set(lambda P, t: F.regularized_exp_rado_loss(P, t, 0.5),
                     lambda P, t: np.exp(-(P @ t) + 0.5).mean()), nd),
    ]
