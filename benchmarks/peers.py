"""fast vs the obvious formulation: every public function of :mod:`fast`, timed against the code a user would
otherwise write (plain numpy / scipy / scikit-learn), in ONE process, at a small, a mid and a large size, with the
machine's default threading and with one thread (threadpoolctl for BLAS/OpenMP AND numba.set_num_threads).

    .venv/bin/python -m benchmarks.peers                 # full table, writes docs/performance.md (~10 min)
    .venv/bin/python -m benchmarks.peers --quick         # small and mid sizes only (~2 min), no doc
    .venv/bin/python -m benchmarks.peers --only rados    # one module (or several, comma-separated)

Ratios are peer time / fast time (> 1: fast is faster).  Each time is the LEAST over repetitions in which fast and
its peer alternate (``benchmarks._timing.interleaved``): the machine is shared with other tenants, the minimum is
the least disturbed run and alternation lets load changes hit both alike.  Calls shorter than ~1 ms are looped so
one timing lasts at least ~2 ms.  Both sides get the same already-built inputs; fast's argument validation is
inside its time (the peer validates nothing).

Adding a module: write one ``rows_<module>()`` function returning its :class:`Row` list and add it to ``MODULES``.
Every name in the module's ``__all__`` must then have a row or an entry in ``NOT_FUNCTIONS`` (dataclasses,
exceptions, constants); :func:`coverage` (and tests/test_perf_guard.py) report the ones missing.  An estimator is
covered by rows named ``Class.method``; a second row for the same function against another peer is named
``function (vs peer)``.  Every module of fast with an ``__all__`` is either a ``MODULES`` entry, covered by one
(``COVERED_BY``: the package ``fast`` and ``fast.estimators.<family>`` by ``estimators``), or listed with its reason
in ``EXCLUDED`` (printed in the table's header); tests/test_peers_coverage.py checks it (:func:`public_modules`).
Where no plain formulation exists, a row's peer text says what fast is compared with instead (the same computation
without the privacy step, the reference implementation, or nothing: fast's time only).
"""
from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import itertools
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

# import every library whose thread pool we limit BEFORE threadpoolctl (it only sees loaded libraries)
import scipy.linalg  # noqa: F401
import scipy.optimize
import scipy.special
import scipy.stats
import sklearn  # noqa: F401
from scipy.spatial.distance import pdist
from scipy.special import expit, logsumexp

from benchmarks._timing import interleaved, one_thread as _one_thread, paired_ratios

SIZES = ("small", "mid", "large")
SCALAR = "scalar"
DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"


@dataclass
class Case:
    """One size: zero-argument callables for fast and its peer (inputs built once, outside the timing)."""

    label: str
    fast: Callable[[], object]
    peer: Callable[[], object] | None
    #: compare the two results (numerically, rtol 1e-6); False for random or structurally different outputs
    same: bool = True


@dataclass
class Row:
    module: str
    function: str
    #: the formulation the peer stands for (or, when there is none, what fast is compared with instead)
    peer: str
    #: size name -> () -> Case (built lazily: large inputs only when that size runs)
    cases: dict = field(default_factory=dict)
    note: str = ""


def _rng(seed=0):
    return np.random.default_rng(seed)


def _data(m, d, seed=0):
    rng = _rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    return X, y


def _signatures(n, m, seed=1):
    return (2 * _rng(seed).integers(0, 2, size=(n, m), dtype=np.int8) - 1).astype(np.int8)


def _g(m):
    """G_m (m, 2^m) as a user would build it: column c = the binary digits of c, most significant first."""
    return ((np.arange(2**m)[None, :] >> np.arange(m - 1, -1, -1)[:, None]) & 1).astype(np.uint8)


def scalar(module, function, peer_text, fast, peer, note="", same=True):
    """A row for a function of scalars (one size): its cost is its validation plus a few float operations."""
    return Row(module, function, peer_text, {SCALAR: lambda: Case("scalars", fast, peer, same)}, note)


def sized(module, function, peer_text, make, labels, note="", same=True):
    """A row with the three sizes; ``make(size_args) -> (fast, peer)``; ``labels`` maps size -> (label, args)."""
    cases = {}
    for size, (label, args) in labels.items():
        def build(label=label, args=args):
            fast, peer = make(*args)
            return Case(label, fast, peer, same)
        cases[size] = build
    return Row(module, function, peer_text, cases, note)


# --------------------------------------------------------------------------- peers used by several rows


def gemm_rados(X, y, sigmas, chunk_bytes=256 * 1024**2):
    """Pi = B E, B = [sigma == y] as float64 (n, m) in row chunks, E = y * X: the GEMM formulation."""
    E = y[:, None] * X
    n, m = sigmas.shape
    out = np.empty((n, X.shape[1]))
    step = max(1, chunk_bytes // (8 * m))
    for start in range(0, n, step):
        np.matmul((sigmas[start:start + step] == y[None, :]).astype(np.float64), E, out=out[start:start + step])
    return out


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


# --------------------------------------------------------------------------- rows, one function per module


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


def rows_labels():
    F = importlib.import_module("fast.labels")

    def make(m):
        y = np.where(_rng(13).random(m) < 0.5, 3, 7)

        def peer():
            classes, inverse = np.unique(y, return_inverse=True)
            return (2 * inverse - 1).astype(np.int8), classes
        return (lambda: F.to_pm1(y)), peer

    def make_declared(m):
        y = np.where(_rng(13).random(m) < 0.5, 3, 7)
        return (lambda: F.declared_pm1(y, (3, 7))), (lambda: np.where(y == 7, 1, -1).astype(np.int8))

    sizes = {"small": ("m=1e3", (1000,)), "mid": ("m=1e5", (100_000,)), "large": ("m=1e7", (10_000_000,))}
    return [sized("labels", "to_pm1", "np.unique(y, return_inverse=True) -> 2 * inverse - 1", make, sizes,
                  same=False),
            sized("labels", "declared_pm1", "np.where(y == positive, 1, -1).astype(np.int8)", make_declared, sizes,
                  same=False)]


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


def rows_dp_rados():
    F = importlib.import_module("fast.dp_rados")
    R = importlib.import_module("fast.rados")
    M = "dp_rados"
    mn = {"small": ("m=1e3, n=1e2, d=10", (1000, 100)), "mid": ("m=1e4, n=1e3, d=10", (10_000, 1000)),
          "large": ("m=1e5, n=1e3, d=10", (100_000, 1000))}
    mm = {"small": ("m=1e3, d=10", (1000,)), "mid": ("m=1e4, d=100", (10_000,)), "large": ("m=1e5, d=100", (100_000,))}

    def boolean_data(m, d=10):
        X, y = _data(m, d)
        X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # DP-Feat's boolean feature takes values in {-1, +1}
        return X, y

    def window_k(m, eps=1.0):
        beta = 1.0 / (1.0 + math.exp(eps / 2.0))
        return math.ceil(beta * (m + 1)), math.floor(m - beta * (m + 1))

    def rejection_signatures(X, y, n, rng):
        """nock2015 Algorithm 2 in numpy: uniform signatures, kept when K_sigma is in the window, redrawn until n."""
        m = X.shape[0]
        k_lo, k_hi = window_k(m)
        t = np.where(y * X[:, 0] == 1, y, -y).astype(np.int8)  # sigma_i == t_i: example i counts in K_sigma
        parts, got = [], 0
        while got < n:
            s = 2 * rng.integers(0, 2, size=(n - got, m), dtype=np.int8) - 1
            K = (s == t).sum(axis=1)
            s = s[(K >= k_lo) & (K <= k_hi)]
            parts.append(s)
            got += s.shape[0]
        return np.concatenate(parts)

    def signatures(m, n):
        X, y = boolean_data(m)
        return ((lambda: F.dp_feat_signatures(X, y, 0, n, 1.0, rng=1)),
                (lambda: rejection_signatures(X, y, n, np.random.default_rng(1))))

    def dp_rados(m, n):
        X, y = boolean_data(m)
        return ((lambda: F.dp_feat_rados(X, y, 0, n, 1.0, rng=1)),
                (lambda: gemm_rados(X, y, rejection_signatures(X, y, n, np.random.default_rng(1)))))

    def in_set(m, n):
        X, y = boolean_data(m)
        s = _signatures(n, m)
        k_lo, k_hi = window_k(m)
        e = y * X[:, 0]

        def peer():  # K_sigma = pi_sigma,j* + N_-, pi_sigma,j* = sum_{i: sigma_i = y_i} e_i (eq. 16, K form)
            k = (s == y).astype(np.float64) @ e + np.count_nonzero(e == -1)
            return (k >= k_lo) & (k <= k_hi)
        return (lambda: F.in_dp_feat_set(X, y, 0, 1.0, s)), peer

    def window(m):
        X, y = boolean_data(m)
        return (lambda: F.dp_feat_window(X, y, 0, 1.0)), None

    def clip(m):
        X, _ = _data(m, 100 if m > 1000 else 10)

        def peer():
            with np.errstate(divide="ignore"):
                return X * np.minimum(1.0, 1.0 / np.linalg.norm(X, axis=1))[:, None]
        return (lambda: F.clip_rows(X, 1.0)), peer

    def noisy(m):
        X, y = _data(m, 100 if m > 1000 else 10)
        rng = np.random.default_rng(1)

        def peer():
            C = X * np.minimum(1.0, 1.0 / np.linalg.norm(X, axis=1))[:, None]
            return y[:, None] * C + rng.normal(0.0, 10.0, size=X.shape)
        return (lambda: F.noisy_edges(X, y, 1.0, 1e-6, rng=1)), peer

    def fixed(m, n):
        X, y = _data(m, 10)
        E = y[:, None] * X

        def peer():
            rng = np.random.default_rng(1)
            chosen = np.argsort(rng.random((n, m)), axis=1)[:, :m // 2]
            B = np.zeros((n, m))
            np.put_along_axis(B, chosen, 1.0, axis=1)
            return B @ E
        return (lambda: F.fixed_support_rados(E, y, n, m // 2, rng=1)), peer

    rows = [
        scalar(M, "dp_feat_beta", "1 / (1 + math.exp(eps / 2))", lambda: F.dp_feat_beta(1.0),
               lambda: 1 / (1 + math.exp(0.5))),
        sized(M, "dp_feat_window", "(none: exact integer window search)", window, mm,
              note="no plain formulation; fast time only"),
        sized(M, "in_dp_feat_set", "K_sigma = (s == y) @ e + N_-, compared with [k_lo, k_hi]", in_set, mn),
        sized(M, "dp_feat_signatures", "nock2015 Alg. 2 in numpy: uniform int8 rows, those outside the window "
              "redrawn", signatures, mn, same=False,
              note="fast: the exact truncated-binomial sampler, the reference's draws"),
        sized(M, "dp_feat_rados", "Alg. 2 in numpy (as dp_feat_signatures) + GEMM rados", dp_rados, mn, same=False),
        scalar(M, "dp_feat_delta", "(none: exact hockey-stick divergence over binomial pmfs)",
               lambda: F.dp_feat_delta(1000, 400, 1.0), None, note="no plain formulation; fast time only"),
        scalar(M, "theorem7_bound", "(none: the reconstructed bound)", lambda: F.theorem7_bound(100, 1000, 1.0, 0.05),
               None, note="no plain formulation; fast time only"),
        scalar(M, "rejection_quantile", "(none: scipy nbinom quantile checked by the cdf)",
               lambda: F.rejection_quantile(100, 1000, 1.0, 0.05), None, note="no plain formulation; fast time only"),
        sized(M, "clip_rows", "X * np.minimum(1, c / np.linalg.norm(X, axis=1))[:, None]", clip, mm),
        sized(M, "noisy_edges", "y * clip(X) + rng.normal(0, sigma, X.shape) (float Gaussian, not DP)", noisy, mm,
              same=False, note="exact discrete Gaussian vs numpy's floating-point normal"),
        sized(M, "fixed_support_rados", "argsort(rng.random((n, m)))[:, :m*] -> 0/1 matrix @ E", fixed, mn,
              same=False),
    ]
    if hasattr(F, "dp_feat_plan"):
        rows.append(scalar(M, "dp_feat_plan", "(none: window search + exact delta)",
                           lambda: F.dp_feat_plan(10000, 10, 5.0, 1e-3), None, note="no plain formulation"))
    for name in ("dp_feat", "gaussian_edges"):
        if hasattr(F, name):
            params = inspect.signature(getattr(F, name)).parameters
            args = (0, 1.0, 1e-6) if name == "dp_feat" and "delta" in params else (0, 1.0)
            if name == "gaussian_edges":
                args = (1.0, 1e-6, 50)
            fn = getattr(F, name)
            rows.append(scalar(M, name, "(none: builds a rado source object)", functools.partial(fn, *args), None,
                               note="constructor; fast time only"))
    del R
    return rows


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


def snc_gradient_numpy(X, y, Z, z_labels, gamma2):
    """dL/dZ = -2 g (M^T X - diag(M^T 1) Z), dL/dg = sum M o D with D by the GEMM expansion, P the row softmax of
    -g D, M = 1[same] exp(s - logsumexp_same) - P: every n x m matrix materialised."""
    D = np.maximum((X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2.0 * (X @ Z.T), 0.0)
    s = -gamma2 * D
    same = y[:, None] == z_labels[None, :]
    P = np.exp(s - logsumexp(s, axis=1, keepdims=True))
    s_same = np.where(same, s, -np.inf)
    M = np.where(same, np.exp(s_same - logsumexp(s_same, axis=1, keepdims=True)), 0.0) - P
    return -2.0 * gamma2 * (M.T @ X - M.sum(0)[:, None] * Z), float((M * D).sum())


def lstsq_greedy(X, y, costs, budget):
    """Greedy feature selection by R^2 gain per unit cost, one np.linalg.lstsq per candidate and step (with an
    intercept), stopping when the best affordable candidate no longer fits the budget."""
    n, d = X.shape
    chosen, spent = [], 0.0
    base = np.ones((n, 1))
    sst = float(((y - y.mean()) ** 2).sum())
    r2 = 0.0
    while True:
        best, best_k, best_r2 = -np.inf, -1, r2
        for k in range(d):
            if k in chosen or spent + costs[k] > budget:
                continue
            A = np.hstack([base, X[:, chosen + [k]]])
            resid = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
            new = 1.0 - float(resid @ resid) / sst
            if (new - r2) / costs[k] > best:
                best, best_k, best_r2 = (new - r2) / costs[k], k, new
        if best_k < 0:
            return chosen
        chosen.append(best_k)
        spent += costs[best_k]
        r2 = best_r2


def _unit_rows(n, d, seed=0):
    X = _rng(seed).normal(size=(n, d))
    return X / (1.01 * np.linalg.norm(X, axis=1, keepdims=True))


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


def _labels_pm1(n, seed=2):
    return np.where(_rng(seed).random(n) < 0.5, -1.0, 1.0)


def stump_scores_numpy(X, v, thr):
    """q[j] = (2 [x_j > thr[j]] - 1)^T v per feature: one (n, m) comparison and one gemv per feature."""
    return np.stack([np.where(X[:, j, None] > thr[j][None, :], 1.0, -1.0).T @ v for j in range(X.shape[1])])


def grid_numpy(sigma, sensitivity, d):
    """The discrete-Gaussian grid in floats: 2^k = 2^(floor(log2 sigma) - 11), s2 = ceil((sigma / 2^k)^2),
    Delta' = Delta + 2^k sqrt(d), rho = Delta'^2 / (2 s2 4^k)."""
    k = math.floor(math.log2(sigma)) - 11
    step = 2.0**k
    s2 = math.ceil((sigma / step) ** 2)
    return k, s2, (sensitivity + step * math.sqrt(d)) ** 2 / (2 * s2 * step * step)


def run_grid_numpy(sigma, sensitivity, d):
    """The HS-StL run's grid in floats: 2^k = min(2^(floor(log2 sigma) - 11), the largest power of two with
    2^k sqrt(d) <= Delta 2^-8), s2 = ceil((sigma / 2^k)^2), Delta' = Delta + 2^k sqrt(d), rho = Delta'^2 / (2 s2 4^k)."""
    k = min(math.floor(math.log2(sigma)) - 11, math.floor(math.log2(sensitivity * 2.0**-8 / math.sqrt(d))))
    step = 2.0**k
    s2 = math.ceil((sigma / step) ** 2)
    return k, s2, (sensitivity + step * math.sqrt(d)) ** 2 / (2 * s2 * step * step)


def hsstl_numpy(alpha, beta, tau):
    """(kappa, gamma, xi, sigma, T, lam) of bun2020 Alg. 4 in plain floats (lam = tau / 32)."""
    kappa = alpha / 4
    xi = beta * tau * tau / (3072 * math.log(1 / kappa))
    return (kappa, tau / 8, xi, tau / (80 * math.sqrt(math.log(1 / xi))), math.ceil(1024 * math.log(1 / kappa) / tau**2),
            tau / 32)


def hsstl_rho_numpy(n, alpha, beta, tau):
    kappa, _, _, sigma, T, _ = hsstl_numpy(alpha, beta, tau)
    return 8 * T / (kappa * n * sigma) ** 2


def pythia_numpy(margins, kappa):
    """B = {margin < 0} topped up with the smallest non-negative margins to ceil(kappa n) (stable argsort); theta =
    the largest margin added.  Returned with theta appended (so the two outputs compare as one array)."""
    n = margins.size
    in_b = margins < 0
    need = math.ceil(kappa * n) - int(in_b.sum())
    theta = 0.0
    if need > 0:
        rest = np.flatnonzero(~in_b)
        take = rest[np.argsort(margins[rest], kind="stable")[:need]]
        in_b[take] = True
        theta = float(margins[take[-1]])
    return np.append(in_b, theta)


def smooth_boost_numpy(X, y, gamma, kappa, T, epsilon, delta, rng):
    """SmoothBoost with numpy's floating-point noise: the SB-NxM measure, a Laplace-noised stopping test on its
    size, the centroid + rng.normal (classic Gaussian sigma at sensitivity 12 / (kappa n)), normalised; clipped
    margins accumulated."""
    n, d = X.shape
    threshold = 2 + math.log(1 / delta) / epsilon
    sigma = 12 / (kappa * n) * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    theta = gamma / (2 + gamma)
    sums, hyps = np.zeros(n), []
    for t in range(T):
        s = sums - t * theta
        mu = np.where(s < 0, 1.0, (1 - gamma) ** (np.maximum(s, 0.0) / 2))
        size = mu.sum()
        if not size - kappa * n / 2 + rng.laplace(0.0, 1 / epsilon) > threshold:
            break
        z = (mu / size * y) @ X + rng.normal(0.0, sigma, size=d)
        z /= np.linalg.norm(z)
        hyps.append(z)
        sums += y * np.clip(X @ z, -1.0, 1.0)
    return np.mean(hyps, axis=0) if hyps else np.zeros(d)


def rows_private_boosting():
    F = importlib.import_module("fast.private_boosting")
    R = importlib.import_module("reference.private_boosting")
    M = "private_boosting"
    nn = {"small": ("n=1e3", (1000,)), "mid": ("n=1e5", (100_000,)), "large": ("n=1e6", (1_000_000,))}
    nd = {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e5, d=50", (100_000, 50)),
          "large": ("n=1e6, d=20", (1_000_000, 20))}
    stumps = {"small": ("n=1e3, d=10, 16 thr", (1000, 10, 16)), "mid": ("n=1e5, d=20, 16 thr", (100_000, 20, 16)),
              "large": ("n=1e6, d=5, 16 thr", (1_000_000, 5, 16))}
    n, kappa, sigma, d = 1000, 0.25, 0.01, 3
    grid_note = "no plain formulation: an exact grid calibration"

    def loss(m):
        h = _rng(1).normal(size=m) * 1.5
        y = _labels_pm1(m)
        return (lambda: F.game_loss(h, y)), (lambda: 1.0 - np.abs(np.clip(h, -1.0, 1.0) - y) / 2.0)

    def lb(m):
        gains = _rng(1).random(m) * 5.0
        return (lambda: F.lb_nxm(gains, 0.3, 1.0)), (lambda: capped_scaling(0.3 * np.exp(-gains), 0.3))

    def cen(m, dim):
        X = _unit_rows(m, dim)
        y = _labels_pm1(m)
        mu = np.full(m, 1.0 / m)
        return (lambda: F.centroid(X, y, mu)), (lambda: (mu * y) @ X)

    def noisy(m, dim):
        X = _unit_rows(m, dim)
        y = _labels_pm1(m)
        mu = np.full(m, 1.0 / m)
        gen = np.random.default_rng(1)
        return ((lambda: F.noisy_centroid(X, y, mu, 0.01, rng=1)),
                (lambda: (mu * y) @ X + gen.normal(0.0, 0.01, size=dim)))

    def stump_inputs(m, dim, t):
        X = _rng(1).normal(size=(m, dim))
        y = _labels_pm1(m)
        mu = np.full(m, 1.0 / m)
        thr = np.tile(np.linspace(-2.0, 2.0, t + 2)[1:-1], (dim, 1))
        return X, y, mu, thr

    def scores(m, dim, t):
        X, y, mu, thr = stump_inputs(m, dim, t)
        return (lambda: F.stump_scores(X, y, mu, thr)), (lambda: stump_scores_numpy(X, mu * y, thr))

    def stump(m, dim, t):
        X, y, mu, thr = stump_inputs(m, dim, t)
        gen = np.random.default_rng(1)
        sens = 4.0 / (kappa * m)

        def peer():
            q = stump_scores_numpy(X, mu * y, thr)
            c = int(np.argmax(np.stack([q, -q], axis=-1).ravel() + gen.laplace(0.0, 2 * sens, size=2 * q.size)))
            return c // (2 * t), (c // 2) % t, 1 if c % 2 == 0 else -1
        return (lambda: F.noisy_stump(X, y, mu, thr, 1.0, sens, rng=1)), peer

    def rnm(c):
        q = _rng(1).random(c)
        gen = np.random.default_rng(1)
        return ((lambda: F.report_noisy_max(q, 0.016, 1.0, rng=1)),
                (lambda: int(np.argmax(q + gen.laplace(0.0, 2 * 0.016, size=c)))))

    def boost(m, dim, T):
        X = _unit_rows(m, dim)
        y = np.where(X[:, 0] + 0.2 * _rng(3).normal(size=m) > 0, 1.0, -1.0)

        def next_measure(X, y, H):  # the clipped game loss of the last hypothesis (ones at the start)
            return np.ones(len(y)) if not H else 1.5 - np.clip(y * H[-1](X), -1.0, 1.0) / 2

        def weak_learner(X, y, w):  # Servedio's centroid halfspace
            z = (w * y) @ X
            return lambda P: np.asarray(P) @ z

        def fast():
            _, vote = F.boost(X, y, T, next_measure, weak_learner)
            return vote(X)

        def peer():
            H = []
            for _ in range(T):
                mu = next_measure(X, y, H)
                H.append(weak_learner(X, y, mu / mu.sum()))
            return np.where(np.mean([h(X) for h in H], axis=0) >= 0, 1, -1)
        return fast, peer

    def lazy(m, dim, T, sigma=0.01):
        X = _unit_rows(m, dim)
        y = np.where(X[:, 0] + 0.2 * _rng(3).normal(size=m) > 0, 1.0, -1.0)

        def peer():
            gen = np.random.default_rng(1)
            gains, zs = np.zeros(m), []
            for _ in range(T):
                mu = capped_scaling(0.3 * np.exp(-0.5 * gains), 0.3)
                z = ((mu / mu.sum()) * y) @ X + gen.normal(scale=sigma, size=dim)
                zs.append(z)
                gains += np.clip(y * (X @ z), -1.0, 1.0)
            return np.mean(zs, axis=0)
        return (lambda: F.lazy_bregman_boost(X, y, T, 0.3, 0.5, sigma, rng=1)), peer

    def pyth(m):
        margins = _rng(1).normal(size=m) + 0.5
        return (lambda: np.append(*F.pythia(margins, 0.4))), (lambda: pythia_numpy(margins, 0.4))

    def sb(m):
        sums = _rng(1).normal(size=m) * 3.0
        g, t = 0.2, 5

        def peer():
            s = sums - t * g / (2 + g)
            return np.where(s < 0, 1.0, (1 - g) ** (np.maximum(s, 0.0) / 2))
        return (lambda: F.sb_nxm(sums, t, g)), peer

    def smooth(m, dim, T):
        X = _unit_rows(m, dim)
        y = np.where(X[:, 0] + 0.2 * _rng(3).normal(size=m) > 0, 1.0, -1.0)
        gen = np.random.default_rng(1)
        return ((lambda: F.smooth_boost(X, y, 0.1, 0.25, T, 1.0, 1e-6, rng=1)),
                (lambda: smooth_boost_numpy(X, y, 0.1, 0.25, T, 1.0, 1e-6, gen)))

    boosting = {"small": ("n=1e3, d=10, T=10", (1000, 10, 10)), "mid": ("n=1e5, d=20, T=10", (100_000, 20, 10)),
                "large": ("n=1e6, d=20, T=10", (1_000_000, 20, 10))}
    #: sigma = 0.01 at n = 1e6 is refused (its grid's rounding would more than double the sensitivity 4 / (kappa n))
    lazy_sizes = {**boosting, "large": ("n=1e6, d=20, T=10, sigma=1e-3", (1_000_000, 20, 10, 1e-3))}
    return [
        sized(M, "game_loss", "1 - np.abs(np.clip(h, -1, 1) - y) / 2", loss, nn),
        sized(M, "lb_nxm", "capped_scaling(kappa * np.exp(-lam * L), kappa) (sort-based projection)", lb, nn),
        sized(M, "centroid", "(mu * y) @ X", cen,
              {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e5, d=50", (100_000, 50)),
               "large": ("n=1e6, d=20", (1_000_000, 20))}),
        scalar(M, "centroid_sensitivity", "4 / (kappa n) (zeta = 1 / (kappa n))",
               lambda: F.centroid_sensitivity(n, kappa), lambda: 4 / (kappa * n)),
        scalar(M, "centroid_grid", "the grid in floats: floor(log2 sigma) - 11, ceil((sigma / 2^k)^2), rho formula",
               lambda: (lambda g: (g.k, g.sigma2_grid, g.rho))(F.centroid_grid(sigma, 0.016, d)),
               lambda: grid_numpy(sigma, 0.016, d), note="fast: exact rational arithmetic (fractions), rounded up"),
        sized(M, "noisy_centroid", "(mu * y) @ X + rng.normal(0, sigma, d) (float Gaussian, not DP)", noisy, nd,
              same=False, note="exact discrete Gaussian on the grid vs numpy's floating-point normal"),
        scalar(M, "centroid_run_grid", "the run grid in floats: min(floor(log2 sigma) - 11, floor(log2(Delta 2^-8 / "
               "sqrt d))), ceil((sigma / 2^k)^2), rho formula",
               lambda: (lambda g: (g.k, g.sigma2_grid, g.rho))(F.centroid_run_grid(sigma, 4 / (kappa * n), d)),
               lambda: run_grid_numpy(sigma, 4 / (kappa * n), d),
               note="fast: exact rational arithmetic (fractions), rounded up"),
        scalar(M, "weak_learner_rho", "the float run-grid formula at Delta = 4 / (kappa n)",
               lambda: F.weak_learner_rho(n, kappa, sigma, d), lambda: run_grid_numpy(sigma, 4 / (kappa * n), d)[2]),
        scalar(M, "smoothboost_sensitivity", "12 / (kappa n)", lambda: F.smoothboost_sensitivity(n, kappa),
               lambda: 12 / (kappa * n), note="fast: exact Fraction, rounded up"),
        sized(M, "stump_scores", "per feature: np.where(x_j > thr_j, 1, -1) (n x m) transposed @ (mu * y)", scores,
              stumps),
        scalar(M, "stump_sensitivity", "4 / (kappa n)", lambda: F.stump_sensitivity(n, kappa),
               lambda: 4 / (kappa * n)),
        scalar(M, "noisy_max_epsilon", "reference.private_boosting.noisy_max_epsilon (" + grid_note + ")",
               lambda: F.noisy_max_epsilon(0.016, 1.0), lambda: R.noisy_max_epsilon(0.016, 1.0),
               note="fast caches the grid (functools.lru_cache): repeated calls are a dictionary look-up"),
        sized(M, "report_noisy_max", "np.argmax(q + rng.laplace(0, 2 Delta / eps, c)) (float Laplace, not DP)", rnm,
              {"small": ("c=1e2", (100,)), "mid": ("c=1e4", (10_000,)), "large": ("c=1e6", (1_000_000,))},
              same=False, note="exact discrete Laplace and an exact integer argmax vs numpy's float draws"),
        sized(M, "noisy_stump", "the numpy stump scores + float Laplace report-noisy-max over +-q", stump, stumps,
              same=False),
        sized(M, "boost", "plain loop: measure, normalise, weak learner, then np.where(mean_t h_t(X) >= 0, 1, -1)",
              boost, {**boosting, "large": ("n=3e5, d=20, T=10", (300_000, 20, 10))},
              note="both with the same callables (game-loss measure, centroid halfspace); timed "
              "with the vote on X"),
        sized(M, "lazy_bregman_boost", "numpy loop: sort-based LB-NxM, centroid gemv, Gaussian noise, clipped "
              "margins gemv (one round = one iteration)", lazy, lazy_sizes, same=False),
        scalar(M, "hsstl_parameters", "the six formulas of bun2020 Alg. 4 in plain floats",
               lambda: tuple(F.hsstl_parameters(0.1, 0.05, 0.1).values()), lambda: hsstl_numpy(0.1, 0.05, 0.1)),
        scalar(M, "hsstl_rho", "8 T / (kappa n sigma)^2 with the parameters in plain floats",
               lambda: F.hsstl_rho(10**9, 0.1, 0.05, 0.1), lambda: hsstl_rho_numpy(10**9, 0.1, 0.05, 0.1)),
        scalar(M, "hsstl_privacy", "rho + 2 sqrt(rho ln(1/delta)) on the plain-float rho",
               lambda: F.hsstl_privacy(10**9, 0.1, 0.05, 0.1, 1e-6),
               lambda: (lambda r: r + 2 * math.sqrt(r * math.log(1e6)))(hsstl_rho_numpy(10**9, 0.1, 0.05, 0.1))),
        scalar(M, "hsstl_n_min", "closed form ceil(sqrt(8 T / rho*) / (kappa sigma)), rho* = (sqrt(ln(1/delta) + "
               "eps) - sqrt(ln(1/delta)))^2", lambda: F.hsstl_n_min(1.0, 1e-6, 0.1, 0.05, 0.1),
               lambda: (lambda p: math.ceil(math.sqrt(8 * p[4] / (math.sqrt(math.log(1e6) + 1.0)
                                                                  - math.sqrt(math.log(1e6))) ** 2) / (p[0] * p[3])))(
                   hsstl_numpy(0.1, 0.05, 0.1)),
               note="fast then steps n to the exact smallest one (float rounding of the closed form)"),
        scalar(M, "margin_lower_bound", "2 (gamma - lam - ln(1/kappa) / (lam T))",
               lambda: F.margin_lower_bound(0.1, 0.025, 1000, 0.25),
               lambda: 2 * (0.1 - 0.025 - math.log(4.0) / (0.025 * 1000))),
        sized(M, "pythia", "margins < 0, topped up by a stable argsort of the rest to ceil(kappa n)", pyth, nn),
        sized(M, "sb_nxm", "np.where(s < 0, 1, (1 - gamma) ** (max(s, 0) / 2)), s = sums - t gamma / (2 + gamma)",
              sb, nn),
        scalar(M, "smoothboost_privacy", "(2 T eps^2 + 2 eps sqrt(2 T ln(1/delta')), T e^eps delta + delta')",
               lambda: F.smoothboost_privacy(0.1, 1e-8, 10, 1e-6),
               lambda: (2 * 10 * 0.01 + 0.2 * math.sqrt(20 * math.log(1e6)), 10 * math.exp(0.1) * 1e-8 + 1e-6)),
        sized(M, "smooth_boost", "numpy loop: SB-NxM measure, float Laplace stopping test, centroid + rng.normal, "
              "clipped margins", smooth, boosting, same=False,
              note="exact discrete samplers vs numpy's float draws (not DP)"),
    ]


def bayes_numpy(a, b, tp, tn, s=1e-4):
    """vtreat catB transcribed: logit(P[T|C]) - logit(P[T]) with P[C|T] = (a + p s)/(tp + s), P[C|F] = (b + (1-p)
    s)/(tn + s), p = tp / (tp + tn) clipped to [1e-6, 1 - 1e-6], s floored at 1e-4 (as fast)."""
    p = np.clip(tp / (tp + tn), 1e-6, 1 - 1e-6)
    return (np.log((a + p * s) / (tp + s) * p) - np.log((b + (1 - p) * s) / (tn + s) * (1 - p))
            - np.log(p / (1 - p)))


def fisher_or_chi2_scipy(groups, totals):
    """One scipy test per group against the rest (a Python loop): scipy.stats.fisher_exact when a cell is <= 10 or
    an expected count < 5, else scipy.stats.chi2_contingency with Yates' correction (vtreat's rule, as fast)."""
    out = np.empty(len(groups))
    for i, (a, b) in enumerate(groups.tolist()):
        table = np.array([[a, b], [totals[0] - a, totals[1] - b]])
        expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
        if table.min() <= 10 or expected.min() < 5:
            out[i] = scipy.stats.fisher_exact(table).pvalue
        else:
            out[i] = scipy.stats.chi2_contingency(table, correction=True).pvalue
    return out


def _levels(n, levels, seed=1):
    index = _rng(seed).integers(0, levels, size=n)
    y = (_rng(seed + 1).random(n) < 0.3 + 0.4 * (index % 2)).astype(np.int64)
    return index, y


def groupby_counts(index, y, levels):
    """pandas groupby sum / count of y per level, reindexed on all levels: (positives, negatives) as float64."""
    import pandas as pd

    agg = pd.DataFrame({"level": index, "y": y}).groupby("level")["y"].agg(["sum", "count"])
    agg = agg.reindex(range(levels), fill_value=0)
    pos = agg["sum"].to_numpy(np.float64)
    return pos, agg["count"].to_numpy(np.float64) - pos


def rows_impact_coding():
    F = importlib.import_module("fast.impact_coding")
    M = "impact_coding"
    sizes = {"small": ("n=1e3, 20 levels", (1000, 20)), "mid": ("n=1e5, 1000 levels", (100_000, 1000)),
             "large": ("n=1e6, 1e4 levels", (1_000_000, 10_000))}
    ll = {"small": ("L=1e3", (1000,)), "mid": ("L=1e5", (100_000,)), "large": ("L=1e6", (1_000_000,))}

    def cross(n, levels):
        index, y = _levels(n, levels)
        folds = np.arange(n) % 5

        def peer():
            from sklearn.model_selection import KFold
            from sklearn.preprocessing import TargetEncoder

            enc = TargetEncoder(target_type="binary", smooth=0.0, cv=KFold(5))
            return enc.fit_transform(index[:, None], y)[:, 0]
        return (lambda: F.cross_codes(index, y, levels, folds)), peer

    def groupby(n, levels):
        import pandas as pd

        index, y = _levels(n, levels)
        folds = np.arange(n) % 5
        frame = pd.DataFrame({"level": index, "y": y, "fold": folds})

        def peer():  # out-of-fold level means with pandas: (level total - level in fold) / (count - count in fold)
            total = frame.groupby("level")["y"].agg(["sum", "count"])
            per_fold = frame.groupby(["fold", "level"])["y"].agg(["sum", "count"])
            key = pd.MultiIndex.from_arrays([frame["fold"], frame["level"]])
            fs, fc = per_fold.loc[key, "sum"].to_numpy(), per_fold.loc[key, "count"].to_numpy()
            ts, tc = total.loc[frame["level"], "sum"].to_numpy(), total.loc[frame["level"], "count"].to_numpy()
            return (ts - fs) / np.maximum(tc - fc, 1)
        return (lambda: F.cross_codes(index, y, levels, folds)), peer

    def factorize(n, levels):
        import pandas as pd

        index, _ = _levels(n, levels)
        names = np.array([f"level{i}" for i in range(levels)], dtype=object)[index]
        return (lambda: F.factorize(names)[1]), (lambda: pd.factorize(names, sort=True)[0])

    def counts(n, levels):
        index, y = _levels(n, levels)
        return ((lambda: F.count_table(index, y, levels)),
                (lambda: np.column_stack(groupby_counts(index, y, levels))))

    def table(levels, seed=3):
        a = _rng(seed).integers(1, 60, size=levels).astype(np.float64)
        b = _rng(seed + 1).integers(1, 60, size=levels).astype(np.float64)
        return a, b, float(a.sum()), float(b.sum())

    def code(fn, peer):
        def make(levels):
            a, b, tp, tn = table(levels)
            return (lambda: fn(a, b, tp, tn)), (lambda: peer(a, b, tp, tn))
        return make

    def log_lift_numpy(a, b, tp, tn, s=1e-3):
        p = tp / max(tp + tn, 1e-3)
        t_part = (a + p * s) / (tp + p * s) * p
        f_part = (b + (1 - p) * s) / (tn + (1 - p) * s) * (1 - p)
        return np.log(t_part / (t_part + f_part) / p)

    def count_code_numpy(a, b):
        plus, minus = np.maximum(1e-3, a), np.maximum(1e-3, b)
        return np.stack([plus, minus, np.log(plus) - np.log(minus),
                         (np.maximum(plus, minus) < 10).astype(np.float64)], axis=-1)

    def mean_code_numpy(count, sum_y, total_count, total_sum):
        mean = total_sum / total_count
        return sum_y / count - mean

    def p_values(q):
        a, b, tp, tn = table(q)
        groups = np.column_stack([a, b])
        totals = np.array([tp, tn])
        return (lambda: F.group_p_values(groups, totals)), (lambda: fisher_or_chi2_scipy(groups, totals))

    def coder(levels):
        a, b, tp, tn = table(levels)
        tab = np.column_stack([a, b])
        return (lambda: F.coder_from_table(tab).code[:, 0]), (lambda: bayes_numpy(a, b, tp, tn))

    def fit(n, levels):
        from sklearn.preprocessing import TargetEncoder

        index, y = _levels(n, levels)
        return ((lambda: F.fit_coder(index, y, levels)),
                (lambda: TargetEncoder(target_type="binary", smooth=0.0).fit(index[:, None], y)))

    def apply(n, levels):
        index, y = _levels(n, levels)
        coder = F.fit_coder(index, y, levels)
        return (lambda: F.apply_coder(coder, index)), (lambda: coder.code[index])

    def apply_sklearn(n, levels):
        from sklearn.preprocessing import TargetEncoder

        index, y = _levels(n, levels)
        coder = F.fit_coder(index, y, levels)
        enc = TargetEncoder(target_type="binary", smooth=0.0).fit(index[:, None], y)
        return (lambda: F.apply_coder(coder, index)), (lambda: enc.transform(index[:, None]))

    def naive(n, levels):
        index, y = _levels(n, levels)

        def peer():
            pos, neg = groupby_counts(index, y, levels)
            return bayes_numpy(pos, neg, pos.sum(), neg.sum())[index][:, None]
        return (lambda: F.naive_codes(index, y, levels)), peer

    def split(n, levels):
        index, y = _levels(n, levels)
        coding = _rng(9).random(n) < 0.5

        def peer():
            pos, neg = groupby_counts(index[coding], y[coding], levels)
            out = bayes_numpy(pos, neg, pos.sum(), neg.sum())[index]
            out[coding] = np.nan
            return out[:, None]
        return (lambda: F.split_codes(index, y, levels, coding)), peer

    def jackknife(n, levels):
        index, y = _levels(n, levels)

        def peer():  # leave-one-out counts by np.bincount: the level's and the totals minus the row's own outcome
            pos = np.bincount(index, weights=y, minlength=levels)
            neg = np.bincount(index, minlength=levels) - pos
            yf = y.astype(np.float64)
            return bayes_numpy(pos[index] - yf, neg[index] - (1 - yf), pos.sum() - yf, neg.sum() - (1 - yf))[:, None]
        return (lambda: F.jackknife_codes(index, y, levels)), peer

    def laplace(levels):
        a, b, _, _ = table(levels)
        tab = np.column_stack([a, b])
        gen = np.random.default_rng(1)
        return ((lambda: F.laplace_count_table(tab, epsilon=1.0, rng=1)),
                (lambda: np.maximum(tab + gen.laplace(0.0, 2.0, size=tab.shape), 1e-3)))

    return [
        sized(M, "factorize", "pd.factorize(v, sort=True) (string levels; the index compared)", factorize, sizes),
        sized(M, "count_table", "pandas groupby('level')['y'].agg(['sum', 'count']) reindexed on the levels", counts,
              sizes),
        sized(M, "bayes_code", "numpy transcription of vtreat catB (s floored at 1e-4)",
              code(F.bayes_code, bayes_numpy), ll),
        sized(M, "log_lift_code", "numpy transcription of the post's bayesCode (s = 1e-3)",
              code(F.log_lift_code, log_lift_numpy), ll),
        sized(M, "count_code", "np.stack([max(1e-3, n+), max(1e-3, n-), log ratio, max < 10])",
              code(lambda a, b, tp, tn: F.count_code(a, b), lambda a, b, tp, tn: count_code_numpy(a, b)), ll),
        sized(M, "mean_code", "sum_y / count - total_sum / total_count (s = 0)",
              code(lambda a, b, tp, tn: F.mean_code(a + b, a, tp + tn, tp),
                   lambda a, b, tp, tn: mean_code_numpy(a + b, a, tp + tn, tp)), ll),
        sized(M, "group_p_values", "a loop of scipy.stats.fisher_exact / chi2_contingency (Yates) per group",
              p_values, {"small": ("Q=30", (30,)), "mid": ("Q=300", (300,)), "large": ("Q=1e3", (1000,))},
              note="scipy's loop costs ~1 ms a group: Q = 1e3 is its largest size here"),
        sized(M, "coder_from_table", "numpy catB over the table (no test: fast also computes each level's Fisher / "
              "chi-square p-value)", coder, {**ll, "large": ("L=5e5", (500_000,))}),
        sized(M, "fit_coder", "sklearn TargetEncoder(smooth=0).fit (a shrunk level mean, not the Bayes code)", fit,
              sizes, same=False),
        sized(M, "apply_coder", "numpy gather coder.code[index]", apply, sizes),
        sized(M, "apply_coder (vs sklearn)", "sklearn TargetEncoder.transform of the same column (its own codes)",
              apply_sklearn, sizes, same=False),
        sized(M, "naive_codes", "pandas groupby counts -> numpy catB -> gather (fast also tests every level)", naive,
              sizes),
        sized(M, "split_codes", "pandas groupby counts of the coding rows -> numpy catB -> gather, NaN on the coding "
              "rows", split, sizes),
        sized(M, "cross_codes", "sklearn TargetEncoder(cv=5, smooth=0).fit_transform (its own folds, so "
              "outputs differ)", cross, sizes, same=False),
        sized(M, "cross_codes (vs pandas)", "pandas groupby out-of-fold level means (the same 5 folds; fast "
              "returns the Bayes code, so outputs differ)", groupby, sizes, same=False),
        sized(M, "jackknife_codes", "np.bincount counts, leave-one-out by subtracting the row's own outcome, "
              "numpy catB (np.bincount is faster than a pandas groupby here)", jackknife, sizes),
        scalar(M, "count_sensitivity", "the constant 2 (replace-one)", lambda: F.count_sensitivity("replace-one"),
               lambda: 2, note="no plain formulation: a constant per neighbouring relation (validation only)"),
        sized(M, "laplace_count_table", "np.maximum(table + rng.laplace(0, 2 / eps, shape), 1e-3) (float, not DP)",
              laplace, ll, same=False, note="exact discrete Laplace vs numpy's floating-point draws"),
    ]


def r_squared_lstsq(X, y, subset):
    """1 - RSS / TSS of np.linalg.lstsq on [1, X_A] (the intercept as a column)."""
    A = np.hstack([np.ones((X.shape[0], 1)), X[:, list(subset)]])
    resid = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    tss = float(((y - y.mean()) ** 2).sum())
    return min(1.0, max(0.0, 1.0 - float(resid @ resid) / tss))


def r_squared_table_lstsq(X, y):
    """z(A) for every bitmask A: one np.linalg.lstsq per subset (the empty set: 0)."""
    d = X.shape[1]
    out = np.zeros(1 << d)
    for mask in range(1, 1 << d):
        out[mask] = r_squared_lstsq(X, y, [j for j in range(d) if mask >> j & 1])
    return out


def greedy_table(values, k):
    """cardinality greedy on a set-function table: k argmax steps over the numpy gains of the remaining elements."""
    d = values.size.bit_length() - 1
    mask, out = 0, []
    for _ in range(k):
        cand = np.array([j for j in range(d) if not mask >> j & 1])
        j = int(cand[np.argmax(values[mask | (1 << cand)] - values[mask])])
        out.append(j)
        mask |= 1 << j
    return out


def budgeted_greedy_table(values, costs, budget):
    d = values.size.bit_length() - 1
    mask, out, spent = 0, [], 0.0
    while len(out) < d:
        cand = np.array([j for j in range(d) if not mask >> j & 1])
        gains = values[mask | (1 << cand)] - values[mask]
        i = int(np.argmax(gains / costs[cand]))
        if gains[i] <= 0 or spent + costs[cand[i]] > budget:
            return out
        spent += costs[cand[i]]
        out.append(int(cand[i]))
        mask |= 1 << int(cand[i])
    return out


def submodularity_ratio_numpy(X, y, k):
    """min over L and |S| <= k of sum_s [z(L+s) - z(L)] / [z(L u S) - z(L)]: the z table by lstsq, then the same
    enumeration (itertools.combinations) in Python."""
    d = X.shape[1]
    z = r_squared_table_lstsq(X, y)
    best = math.inf
    for L in range(1 << d):
        rest = [j for j in range(d) if not L >> j & 1]
        for size in range(1, min(k, len(rest)) + 1):
            for S in itertools.combinations(rest, size):
                den = z[L | sum(1 << j for j in S)] - z[L]
                if den > 1e-12:
                    best = min(best, sum(z[L | 1 << j] - z[L] for j in S) / den)
    return best


def route_numpy(model, X):
    """Leaf node of each row: depth - 1 vectorised steps, node = 2 node + 1 + (b_node + x . beta_node > theta_node)
    (the coefficients of each row's node gathered as an (n, d) array)."""
    node = np.zeros(X.shape[0], dtype=np.int64)
    for _ in range(model.depth - 1):
        s = model.intercept[node] + np.einsum("ij,ij->i", X, model.coef[node])
        node = 2 * node + 1 + (s > model.threshold[node])
    return node


def rows_budgeted():
    F = importlib.import_module("fast.budgeted")
    M = "budgeted"
    nd = {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e5, d=20", (100_000, 20)),
          "large": ("n=1e6, d=20", (1_000_000, 20))}
    exhaustive = {"small": ("n=200, d=6", (200, 6)), "mid": ("n=1000, d=10", (1000, 10)),
                  "large": ("n=1000, d=11", (1000, 11))}
    tables = {"small": ("d=6", (6,)), "mid": ("d=10", (10,)), "large": ("d=14", (14,))}

    def regression(n, d, seed=1):
        X = _rng(seed).normal(size=(n, d))
        y = X[:, : max(1, d // 4)] @ _rng(seed + 1).normal(size=max(1, d // 4)) + 0.1 * _rng(seed + 2).normal(size=n)
        return X, y

    def greedy(n, d):
        X = _rng(1).normal(size=(n, d))
        y = X[:, : d // 4] @ _rng(2).normal(size=d // 4) + 0.1 * _rng(3).normal(size=n)
        costs = 1.0 + _rng(4).random(d)
        budget = float(np.sort(costs)[: d // 4].sum())
        return (lambda: F.greedy_select(X, y, costs, budget)), (lambda: lstsq_greedy(X, y, costs, budget))

    def r2(n, d):
        X, y = regression(n, d)
        subset = list(range(0, d, 2))

        def peer():
            from sklearn.linear_model import LinearRegression

            return LinearRegression().fit(X[:, subset], y).score(X[:, subset], y)
        return (lambda: F.r_squared(X, y, subset)), peer

    def r2_table(n, d):
        X, y = regression(n, d)
        return (lambda: F.r_squared_table(X, y)), (lambda: r_squared_table_lstsq(X, y))

    def set_function(d):  # a monotone set function with diminishing gains: sqrt of a weighted coverage
        weights = _rng(5).random(d)
        masks = np.arange(1 << d)
        return np.sqrt(((masks[:, None] >> np.arange(d)) & 1) @ weights)

    def cardinality(d):
        values = set_function(d)
        return (lambda: F.cardinality_greedy(values, d // 2)), (lambda: greedy_table(values, d // 2))

    def budgeted(d):
        values = set_function(d)
        costs = 1.0 + _rng(6).random(d)
        budget = float(costs.sum() / 2)
        return (lambda: F.budgeted_greedy(values, costs, budget)), (lambda: budgeted_greedy_table(values, costs,
                                                                                                  budget))

    def ratio(n, d):
        X, y = regression(n, d)
        return (lambda: F.submodularity_ratio(X, y, 2)), (lambda: submodularity_ratio_numpy(X, y, 2))

    tree_sizes = {"small": ("n=1e3, d=10, depth 3", (1000, 10, 3)), "mid": ("n=1e5, d=20, depth 3", (100_000, 20, 3)),
                  "large": ("n=1e6, d=20, depth 3", (1_000_000, 20, 3))}

    def tree(n, d, depth):
        X, y = regression(n, d)
        costs = 1.0 + _rng(4).random(d)

        def peer():
            from sklearn.tree import DecisionTreeRegressor

            return DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, y)
        return (lambda: F.fit_tree(X, y, costs, depth, 4.0)), peer

    def fitted(n, d, depth):
        X, y = regression(min(n, 10_000), d)
        model = F.fit_tree(X, y, 1.0 + _rng(4).random(d), depth, 4.0)
        return model, regression(n, d, seed=7)[0]

    def leaves(n, d, depth):
        model, X = fitted(n, d, depth)
        return (lambda: F.tree_leaves(model, X)), (lambda: route_numpy(model, X) - ((1 << (depth - 1)) - 1))

    def decision(n, d, depth):
        model, X = fitted(n, d, depth)

        def peer():
            node = route_numpy(model, X)
            return model.intercept[node] + np.einsum("ij,ij->i", X, model.coef[node])
        return (lambda: F.tree_decision(model, X)), peer

    def cost(n, d, depth):
        model, X = fitted(n, d, depth)
        return ((lambda: F.path_cost(model, X)),
                (lambda: model.leaf_cost[route_numpy(model, X) - ((1 << (depth - 1)) - 1)]))

    def l1(n, d):
        X, _ = regression(n, d)
        y = np.where(X[:, 0] - X[:, 1] + 0.5 * _rng(8).normal(size=n) > 0, 1.0, -1.0)
        costs = 1.0 + _rng(4).random(d)
        lam = 0.01

        def peer():  # cost-weighted l1 by rescaling the columns: |beta_j| c_j = |beta'_j| with x'_j = x_j / c_j
            from sklearn.linear_model import LogisticRegression

            fit = LogisticRegression(l1_ratio=1.0, C=1.0 / (n * lam), solver="liblinear", tol=1e-8,
                                     max_iter=5000).fit(X / costs, y)
            return fit.coef_[0] / costs
        return (lambda: F.l1_logistic(X, y, costs, lam)), peer

    return [
        sized(M, "r_squared", "sklearn LinearRegression().fit(X[:, A], y).score(X[:, A], y), |A| = d / 2", r2, nd),
        sized(M, "r_squared_table", "one np.linalg.lstsq on [1, X_A] per subset A", r2_table, exhaustive),
        sized(M, "greedy_select", "greedy over candidates, one np.linalg.lstsq R^2 per candidate and step", greedy,
              {"small": ("n=200, d=20", (200, 20)), "mid": ("n=2000, d=40", (2000, 40)),
               "large": ("n=1e4, d=60", (10_000, 60))}, same=False),
        sized(M, "cardinality_greedy", "k = d / 2 numpy argmax steps over the table's gains", cardinality, tables),
        sized(M, "budgeted_greedy", "numpy argmax of gain / cost steps over the table, budget = half the costs",
              budgeted, tables),
        sized(M, "submodularity_ratio", "z table by lstsq per subset, then the same enumeration (k = 2) in Python",
              ratio, {"small": ("n=200, d=6", (200, 6)), "mid": ("n=500, d=9", (500, 9)),
                      "large": ("n=1000, d=11", (1000, 11))}),
        sized(M, "fit_tree", "sklearn DecisionTreeRegressor(max_depth).fit (axis-aligned splits, no costs: another "
              "model)", tree, {**tree_sizes, "large": ("n=3e5, d=20, depth 3", (300_000, 20, 3))}, same=False),
        sized(M, "tree_leaves", "vectorised routing: depth - 1 steps of a per-row gathered node predictor", leaves,
              tree_sizes),
        sized(M, "tree_decision", "the vectorised routing + the leaf's linear predictor", decision, tree_sizes),
        sized(M, "path_cost", "the vectorised routing + leaf_cost[leaf]", cost, tree_sizes),
        sized(M, "l1_logistic", "sklearn LogisticRegression(l1_ratio=1, solver='liblinear') on X / costs, "
              "C = 1 / (n lam) (penalises the intercept; another solver)", l1,
              {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e4, d=20", (10_000, 20)),
               "large": ("n=2e4, d=20", (20_000, 20))}, same=False),
    ]


def snc_log_correct_numpy(X, y, Z, z_labels, gamma2):
    """log p_i = logsumexp over same-label references - logsumexp over all, with the n x m matrix materialised
    (scipy cdist squared distances)."""
    s = -gamma2 * scipy.spatial.distance.cdist(X, Z, "sqeuclidean")
    same = y[:, None] == z_labels[None, :]
    return logsumexp(np.where(same, s, -np.inf), axis=1) - logsumexp(s, axis=1)


def snc_metric_gradient_numpy(X, y, Z, z_labels, A):
    """Full A: D_ij = ||A (x_i - z_j)||^2 by the GEMM expansion, M = Q - P materialised, dZ = -2 (M^T X - diag(c) Z)
    A^T A, dA = 2 A (X^T diag(r) X - X^T M Z - Z^T M^T X + Z^T diag(c) Z)."""
    XA, ZA = X @ A.T, Z @ A.T
    D = np.maximum((XA * XA).sum(1)[:, None] + (ZA * ZA).sum(1)[None, :] - 2.0 * (XA @ ZA.T), 0.0)
    same = y[:, None] == z_labels[None, :]
    P = np.exp(-D - logsumexp(-D, axis=1, keepdims=True))
    s_same = np.where(same, -D, -np.inf)
    Mat = np.where(same, np.exp(s_same - logsumexp(s_same, axis=1, keepdims=True)), 0.0) - P
    r, c = Mat.sum(1), Mat.sum(0)
    MtX = Mat.T @ X
    W = (X.T * r) @ X - X.T @ (Mat @ Z) - Z.T @ MtX + (Z.T * c) @ Z
    return -2.0 * ((MtX - c[:, None] * Z) @ A.T) @ A, 2.0 * A @ W


def class_allocation_numpy(counts, m):
    """Ones, then m - C numpy argmax steps of the gap m n_c - n m_c over classes not yet full (int64)."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    alloc = np.ones(counts.size, dtype=np.int64)
    for _ in range(m - counts.size):
        gap = np.where(alloc < counts, m * counts - n * alloc, np.iinfo(np.int64).min)
        alloc[int(np.argmax(gap))] += 1
    return alloc


def snc_optimize_numpy(X, y, Z, z_labels, gamma2, max_iter):
    """scipy L-BFGS-B on Z with the plain numpy loss (logsumexp) and gradient (as snc_gradient_numpy), gamma^2
    fixed."""
    m, d = Z.shape
    same = y[:, None] == z_labels[None, :]

    def f(z):  # loss and gradient from one materialised n x m score matrix
        Zm = z.reshape(m, d)
        s = -gamma2 * np.maximum((X * X).sum(1)[:, None] + (Zm * Zm).sum(1)[None, :] - 2.0 * (X @ Zm.T), 0.0)
        lse = logsumexp(s, axis=1, keepdims=True)
        s_same = np.where(same, s, -np.inf)
        lse_same = logsumexp(s_same, axis=1, keepdims=True)
        Mat = np.where(same, np.exp(s_same - lse_same), 0.0) - np.exp(s - lse)
        grad = -2.0 * gamma2 * (Mat.T @ X - Mat.sum(0)[:, None] * Zm)
        return float((lse - lse_same).sum()), grad.ravel()
    return scipy.optimize.minimize(f, Z.ravel(), jac=True, method="L-BFGS-B",
                                   options={"maxiter": max_iter, "ftol": 1e-6, "gtol": 1e-10}).x.reshape(m, d)


def rows_snc():
    F = importlib.import_module("fast.snc")
    M = "snc"
    nmd = {"small": ("n=1e3, m=30, d=10", (1000, 30, 10)), "mid": ("n=1.6e4, m=640, d=20", (16_000, 640, 20)),
           "large": ("n=3.2e4, m=640, d=20", (32_000, 640, 20))}
    square = {"small": ("n=200, d=10", (200, 10)), "mid": ("n=2000, d=20", (2000, 20)),
              "large": ("n=5000, d=20", (5000, 20))}

    def problem(n, m, d, classes=3):
        X = _rng(1).normal(size=(n, d))
        y = _rng(2).integers(0, classes, size=n)
        Z = _rng(3).normal(size=(m, d))
        return X, y, Z, np.arange(m) % classes

    def grad(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        return (lambda: F.snc_gradient(X, y, Z, zl, 0.5)), (lambda: snc_gradient_numpy(X, y, Z, zl, 0.5))

    def sne(n, d):
        X = _rng(1).normal(size=(n, d))

        def peer():
            s = -0.1 * scipy.spatial.distance.cdist(X, X, "sqeuclidean")
            np.fill_diagonal(s, -np.inf)
            return scipy.special.softmax(s, axis=1)
        return (lambda: F.sne_probabilities(X, 0.1)), peer

    def nca(n, d):
        X = _rng(1).normal(size=(n, d))
        y = _rng(2).integers(0, 3, size=n)
        A = np.eye(d) * 0.3 + 0.05 * _rng(4).normal(size=(d, d))

        def peer():
            T = X @ A.T
            s = -scipy.spatial.distance.cdist(T, T, "sqeuclidean")
            np.fill_diagonal(s, -np.inf)
            return (scipy.special.softmax(s, axis=1) * (y[:, None] == y[None, :])).sum(axis=1)
        return (lambda: F.nca_correct_probabilities(X, y, A)), peer

    def probs(n, m, d):
        X, _, Z, _ = problem(n, m, d)
        return ((lambda: F.snc_probabilities(X, Z, 0.5)),
                (lambda: scipy.special.softmax(-0.5 * scipy.spatial.distance.cdist(X, Z, "sqeuclidean"), axis=1)))

    def log_correct(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        return (lambda: F.snc_log_correct(X, y, Z, zl, 0.5)), (lambda: snc_log_correct_numpy(X, y, Z, zl, 0.5))

    def loss(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        return ((lambda: F.snc_loss(X, y, Z, zl, 0.5)),
                (lambda: -float(snc_log_correct_numpy(X, y, Z, zl, 0.5).sum())))

    def metric_A(d):
        return np.eye(d) * 0.7 + 0.05 * _rng(4).normal(size=(d, d))

    def metric_loss(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        A = metric_A(d)
        return ((lambda: F.snc_metric_loss(X, y, Z, zl, A)),
                (lambda: -float(snc_log_correct_numpy(X @ A.T, y, Z @ A.T, zl, 1.0).sum())))

    def metric_grad(n, m, d):
        X, y, Z, zl = problem(n, m, d)
        A = metric_A(d)
        return ((lambda: F.snc_metric_gradient(X, y, Z, zl, A)),
                (lambda: snc_metric_gradient_numpy(X, y, Z, zl, A)))

    def allocation(classes, n, m):
        counts = _rng(5).integers(1, 2 * n // classes, size=classes)
        return (lambda: F.class_allocation(counts, m)), (lambda: class_allocation_numpy(counts, m))

    def init(n, classes, m):
        y = _rng(2).integers(0, classes, size=n)

        def peer():
            from sklearn.model_selection import train_test_split

            return train_test_split(np.arange(n), train_size=m, stratify=y, random_state=1)[0]
        return (lambda: F.class_proportional_init(y, m, rng=1)), peer

    def optimize(n, m, d, iters):
        X, y, Z, zl = problem(n, m, d)
        return ((lambda: F.snc_optimize(X, y, Z, zl, 0.5, max_iter=iters, optimize_gamma2=False).Z),
                (lambda: snc_optimize_numpy(X, y, Z, zl, 0.5, iters)))

    def predict(n, m, d):
        X, _, Z, zl = problem(n, m, d)

        def peer():
            from sklearn.neighbors import KNeighborsClassifier

            return KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(Z, zl).predict(X)
        return (lambda: F.snc_predict(Z, zl, X, k=1)), peer

    return [
        sized(M, "sne_probabilities", "scipy softmax of -gamma^2 cdist(X, X, 'sqeuclidean'), diagonal -inf", sne,
              square),
        sized(M, "nca_correct_probabilities", "scipy softmax of -cdist(XA^T, XA^T)^2 (diagonal -inf) summed over "
              "same-label columns", nca, square),
        sized(M, "snc_probabilities", "scipy softmax of -gamma^2 cdist(X, Z, 'sqeuclidean')", probs, nmd),
        sized(M, "snc_log_correct", "logsumexp(same-label scores) - logsumexp(scores), n x m materialised",
              log_correct, nmd),
        sized(M, "snc_loss", "-sum of the materialised log p_i (scipy cdist + logsumexp)", loss, nmd),
        sized(M, "snc_gradient", "plain numpy: GEMM distances, row log-softmax, M = Q o P materialised, two GEMMs",
              grad, {"small": ("n=1e3, m=30, d=10", (1000, 30, 10)), "mid": ("n=1.6e4, m=640, d=20",
                                                                           (16_000, 640, 20)),
                     "large": ("n=3.2e4, m=640, d=20", (32_000, 640, 20))}),
        sized(M, "snc_metric_loss", "the materialised loss on XA^T, ZA^T (full A)", metric_loss, nmd),
        sized(M, "snc_metric_gradient", "plain numpy, full A: M materialised, dZ and dA = 2 A W by GEMMs",
              metric_grad, nmd),
        sized(M, "class_allocation", "numpy: ones, then m - C argmax steps of the int64 gap m n_c - n m_c",
              allocation, {"small": ("C=10, m=400", (10, 10_000, 400)), "mid": ("C=100, m=4000", (100, 100_000, 4000)),
                           "large": ("C=1000, m=3000", (1000, 1_000_000, 3000))}),
        sized(M, "class_proportional_init", "sklearn train_test_split(train_size=m, stratify=y) (its own "
              "allocation and draws)", init, {"small": ("n=1e3, C=3, m=40", (1000, 3, 40)),
                                             "mid": ("n=1e5, C=10, m=4000", (100_000, 10, 4000)),
                                             "large": ("n=1e6, C=10, m=1e4", (1_000_000, 10, 10_000))}, same=False),
        sized(M, "snc_optimize", "scipy L-BFGS-B on Z with the plain numpy loss and gradient (gamma^2 fixed, both "
              "max_iter)", optimize, {"small": ("n=1e3, m=30, d=10, 20 it", (1000, 30, 10, 20)),
                                      "mid": ("n=4e3, m=160, d=20, 20 it", (4000, 160, 20, 20)),
                                      "large": ("n=1.6e4, m=320, d=20, 5 it", (16_000, 320, 20, 5))}, same=False,
              note="the numpy objective materialises n x m matrices: ~1 s an evaluation at n = 1.6e4, m = 640"),
        sized(M, "snc_predict", "sklearn KNeighborsClassifier(n_neighbors=k, algorithm='brute').fit(Z, z_labels)"
              ".predict(X), k = 1", predict, nmd),
    ]


def anm_kendall_sklearn(x, y, lam=1e-3, h=0.3, seed=0):
    """The non-private ANM a user would write: sklearn train_test_split (halves), KernelRidge(rbf) both ways,
    abs(scipy.stats.kendalltau) of the test inputs against the residuals; the direction of the smaller score."""
    from sklearn.model_selection import train_test_split

    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.5, random_state=seed)
    r_y = y_te - krr_sklearn(x_tr, y_tr, x_te, lam, h)
    r_x = x_te - krr_sklearn(y_tr, x_tr, y_te, lam, h)
    s_xy = abs(scipy.stats.kendalltau(x_te, r_y).statistic)
    s_yx = abs(scipy.stats.kendalltau(y_te, r_x).statistic)
    return ("x->y" if s_xy < s_yx else "y->x"), (s_xy, s_yx)


def rows_estimators():
    """The scikit-learn estimators of fast (fast.estimators, re-exported from fast): fit (and predict / transform)
    against the scikit-learn estimator a user would otherwise pick.  Outputs are different models: same=False."""
    E = importlib.import_module("fast.estimators")
    M = "estimators"

    def classification(n, d, seed=1):
        X = _rng(seed).normal(size=(n, d))
        y = (X[:, 0] - 0.5 * X[:, 1] + 0.5 * _rng(seed + 1).normal(size=n) > 0).astype(np.int64)
        return X, y

    def fit_pair(fast_maker, peer_maker, data=classification):
        def make(n, d):
            X, y = data(n, d)
            return (lambda: fast_maker().fit(X, y)), (lambda: peer_maker().fit(X, y))
        return make

    def predict_pair(fast_maker, peer_maker, data=classification, method="predict", train=10_000):
        def make(n, d):
            X, y = data(train, d)
            fast, peer = fast_maker().fit(X, y), peer_maker().fit(X, y)
            Xt, _ = data(n, d, seed=11)
            return (lambda: getattr(fast, method)(Xt)), (lambda: getattr(peer, method)(Xt))
        return make

    fit_sizes = {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e4, d=20", (10_000, 20)),
                 "large": ("n=1e5, d=20", (100_000, 20))}
    predict_sizes = {"small": ("1e3 rows, d=10", (1000, 10)), "mid": ("1e5 rows, d=20", (100_000, 20)),
                     "large": ("1e6 rows, d=20", (1_000_000, 20))}

    def radoboost():
        return E.RadoBoostClassifier(300, random_state=0)

    def omega():
        return E.OmegaRAdaBoostClassifier(300, regularizer="lasso", omega=1e-3, random_state=0)

    def logistic():
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression()

    def logistic_l1():
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(l1_ratio=1.0, solver="liblinear")

    def private_boost():
        return E.PrivateBoostClassifier(epsilon=1.0, n_rounds=50, data_norm=6.0, classes=(0, 1))

    def adaboost():
        from sklearn.ensemble import AdaBoostClassifier

        return AdaBoostClassifier(n_estimators=50, random_state=0)

    def astc_classifier():
        return E.ASTCClassifier(budget=5, depth=3)

    def astc_regressor():
        return E.ASTCRegressor(budget=5, depth=3)

    def tree_classifier():
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=3, random_state=0)

    def tree_regressor():
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(max_depth=3, random_state=0)

    def regression(n, d, seed=1):
        X = _rng(seed).normal(size=(n, d))
        return X, X[:, :3] @ np.array([1.0, -0.5, 0.25]) + 0.1 * _rng(seed + 1).normal(size=n)

    def snc_data(n, d, seed=1):
        centres = _rng(20).normal(size=(5, d)) * 2.0
        y = _rng(seed).integers(0, 5, size=n)
        return centres[y] + _rng(seed + 1).normal(size=(n, d)), y

    def snc():
        return E.SNCClassifier(compression=0.04, gamma2=0.1, max_iter=50, random_state=0)

    def nca():
        from sklearn.neighbors import NeighborhoodComponentsAnalysis

        return NeighborhoodComponentsAnalysis(max_iter=50, random_state=0)

    def snc_fit(n, d):
        X, y = snc_data(n, d)
        return (lambda: snc().fit(X, y)), ((lambda: nca().fit(X, y)) if n <= 2000 else None)

    def snc_kmeans(n, d):
        from sklearn.cluster import KMeans

        X, y = snc_data(n, d)

        def peer():  # 4 % of each class as k-means centroids (the usual hand-made prototype set)
            return [KMeans(n_clusters=max(1, round(0.04 * (y == c).sum())), n_init=1, random_state=0).fit(X[y == c])
                    .cluster_centers_ for c in np.unique(y)]
        return (lambda: snc().fit(X, y)), peer

    def snc_predict(n, d):
        X, y = snc_data(10_000, d)
        fast = snc().fit(X, y)
        Xt, _ = snc_data(n, d, seed=11)

        def peer():
            from sklearn.neighbors import KNeighborsClassifier

            return KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(X, y).predict(Xt)
        return (lambda: fast.predict(Xt)), peer

    def target_encoder():
        from sklearn.model_selection import StratifiedKFold
        from sklearn.preprocessing import TargetEncoder

        return TargetEncoder(target_type="binary", cv=StratifiedKFold(5, shuffle=True, random_state=0))

    def impact_data(n, levels, seed=1):
        index = _rng(seed).integers(0, levels, size=n)
        y = (_rng(seed + 1).random(n) < 0.3 + 0.4 * (index % 2)).astype(np.int64)
        return index[:, None], y

    def impact_fit(n, levels):
        X, y = impact_data(n, levels)
        return ((lambda: E.ImpactEncoder(cv=5, random_state=0).fit_transform(X, y)),
                (lambda: target_encoder().fit_transform(X, y)))

    def impact_transform(n, levels):
        X, y = impact_data(n, levels)
        fast = E.ImpactEncoder(cv=5, random_state=0).fit(X, y)
        peer = target_encoder().fit(X, y)
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    impact_sizes = {"small": ("n=1e3, 20 levels", (1000, 20)), "mid": ("n=1e5, 1000 levels", (100_000, 1000)),
                    "large": ("n=1e6, 1e4 levels", (1_000_000, 10_000))}

    def cause_effect(n, seed=21):
        x = _rng(seed).uniform(-1, 1, n)
        return x, x**3 + 0.1 * _rng(seed + 1).uniform(-1, 1, n)

    def anm(n):
        x, y = cause_effect(n)
        return ((lambda: E.PrivateANM("kendall", epsilon=1.0, bandwidth=0.3, random_state=0).fit(x, y)),
                (lambda: anm_kendall_sklearn(x, y)))

    def diagnostics(n):
        x, y = cause_effect(n)
        est = E.PrivateANM("kendall", epsilon=1.0, bandwidth=0.3, random_state=0)
        return (lambda: E.nonprivate_diagnostics(est, x, y)), (lambda: anm_kendall_sklearn(x, y))

    def directions(pairs, n):
        data = [cause_effect(n, seed=30 + 2 * k) for k in range(pairs)]
        return ((lambda: E.infer_directions(data, "kendall", epsilon=1.0, bandwidth=0.3, random_state=0)),
                (lambda: [anm_kendall_sklearn(x, y, seed=k) for k, (x, y) in enumerate(data)]))

    anm_sizes = {"small": ("N=400", (400,)), "mid": ("N=2000", (2000,)), "large": ("N=4000", (4000,))}
    snc_sizes = {"small": ("n=1e3, d=20", (1000, 20)), "mid": ("n=2e3, d=20", (2000, 20)),
                 "large": ("n=1e4, d=20", (10_000, 20))}

    # fast.preprocessing (issue 28 item 4), counted with the estimators (COVERED_BY): transform against the
    # scikit-learn transformer given the same DECLARED bounds / levels; same outputs (same=True)
    P = importlib.import_module("fast.preprocessing")

    def scaled_data(n, d, seed=1):
        X = 3.0 * _rng(seed).normal(size=(n, d))
        return X, np.full(d, -4.0), np.full(d, 4.0)

    def scaler(n, d):
        from sklearn.preprocessing import MinMaxScaler

        X, lo, hi = scaled_data(n, d)
        fast = P.PublicScaler(bounds=(lo, hi)).fit(X[:1])
        peer = MinMaxScaler(feature_range=(-1, 1), clip=True).fit(np.vstack([lo, hi]))
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    def clipper(n, d):
        X, _, _ = scaled_data(n, d)
        fast = P.DomainClipper(norm=4.0).fit(X[:1])

        def peer():
            norms = np.linalg.norm(X, axis=1)
            return X * np.minimum(1.0, 4.0 / np.maximum(norms, 1e-300))[:, None]
        return (lambda: fast.transform(X)), peer

    def level_data(n, d, seed=1):
        levels = [f"l{k}" for k in range(20)]
        X = np.asarray(levels + ["unknown"], dtype=object)[_rng(seed).integers(0, 21, size=(n, d))]
        return X, [levels[:-1]] * d  # one declared level and "unknown" outside the list

    def onehot(n, d):
        from sklearn.preprocessing import OneHotEncoder

        X, cats = level_data(n, d)
        fast = P.PublicOneHotEncoder(categories=cats).fit(X[:1])
        peer = OneHotEncoder(categories=cats, handle_unknown="ignore", sparse_output=False).fit(X[:50])
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    def ordinal(n, d):
        from sklearn.preprocessing import OrdinalEncoder

        X, cats = level_data(n, d)
        fast = P.PublicOrdinalEncoder(categories=cats).fit(X[:1])
        peer = OrdinalEncoder(categories=cats, handle_unknown="use_encoded_value", unknown_value=-1).fit(X[:50])
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    def report(n, d):
        X, lo, hi = scaled_data(n, d)
        fast_scaler = P.PublicScaler(bounds=(lo, hi)).fit(X[:1])

        def fast():
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", P.ClippingWarning)
                return P.clipping_report(fast_scaler, X, threshold=1.0)

        def peer():
            out = np.isnan(X) | (X < lo) | (X > hi)
            return out.any(axis=1).mean(), out.mean(axis=0)
        return fast, peer

    pre_sizes = {"small": ("1e3 rows, d=10", (1000, 10)), "mid": ("1e5 rows, d=20", (100_000, 20)),
                 "large": ("1e6 rows, d=20", (1_000_000, 20))}
    level_sizes = {"small": ("1e3 rows, 3 columns, 20 levels", (1000, 3)),
                   "mid": ("1e5 rows, 3 columns, 20 levels", (100_000, 3)),
                   "large": ("1e6 rows, 3 columns, 20 levels", (1_000_000, 3))}
    return [
        sized(M, "PublicScaler.transform", "sklearn MinMaxScaler(feature_range=(-1, 1), clip=True) fit on the two "
              "rows [lower; upper] (the same map)", scaler, pre_sizes),
        sized(M, "DomainClipper.transform", "numpy: X * min(1, r / ||x||_2) per row", clipper, pre_sizes),
        sized(M, "PublicOneHotEncoder.transform", "sklearn OneHotEncoder(categories, handle_unknown='ignore', "
              "sparse_output=False)", onehot, level_sizes),
        sized(M, "PublicOrdinalEncoder.transform", "sklearn OrdinalEncoder(categories, handle_unknown="
              "'use_encoded_value', unknown_value=-1)", ordinal, level_sizes),
        sized(M, "clipping_report", "numpy: the clipped mask (NaN or outside [lower, upper]) and its row / column "
              "means", report, pre_sizes, same=False),
        sized(M, "RadoBoostClassifier.fit", "sklearn LogisticRegression().fit (the non-private linear classifier); "
              "fast: n_rounds=300, min(1000, m/2) rados", fit_pair(radoboost, logistic), fit_sizes, same=False),
        sized(M, "RadoBoostClassifier.predict", "LogisticRegression.predict (both linear: sign of X theta)",
              predict_pair(radoboost, logistic), predict_sizes, same=False),
        sized(M, "OmegaRAdaBoostClassifier.fit", "sklearn LogisticRegression(l1_ratio=1, solver='liblinear').fit; "
              "fast: lasso, n_rounds=300", fit_pair(omega, logistic_l1), fit_sizes, same=False),
        sized(M, "OmegaRAdaBoostClassifier.predict", "LogisticRegression(l1_ratio=1).predict",
              predict_pair(omega, logistic_l1), predict_sizes, same=False),
        sized(M, "PrivateBoostClassifier.fit", "sklearn AdaBoostClassifier(n_estimators=50) (stumps, not private); "
              "fast: 50 rounds, halfspace learner, data_norm=6", fit_pair(private_boost, adaboost),
              {**fit_sizes, "large": ("n=3e4, d=20", (30_000, 20))}, same=False,
              note="AdaBoost's 50 stump fits cost ~1.5 s per 1e4 rows here: n = 3e4 is its largest size"),
        sized(M, "PrivateBoostClassifier.predict", "AdaBoostClassifier.predict (50 stumps vs one averaged halfspace)",
              predict_pair(private_boost, adaboost), predict_sizes, same=False),
        sized(M, "ImpactEncoder.fit_transform", "sklearn TargetEncoder(cv=5).fit_transform (out-of-fold shrunk "
              "means vs out-of-fold Bayes codes)", impact_fit, impact_sizes, same=False),
        sized(M, "ImpactEncoder.transform", "TargetEncoder.transform", impact_transform, impact_sizes, same=False),
        sized(M, "ASTCClassifier.fit", "sklearn DecisionTreeClassifier(max_depth=3).fit (no feature costs); fast: "
              "budget 5, depth 3", fit_pair(astc_classifier, tree_classifier), fit_sizes, same=False),
        sized(M, "ASTCClassifier.predict", "DecisionTreeClassifier.predict",
              predict_pair(astc_classifier, tree_classifier), predict_sizes, same=False),
        sized(M, "ASTCRegressor.fit", "sklearn DecisionTreeRegressor(max_depth=3).fit (no feature costs)",
              fit_pair(astc_regressor, tree_regressor, regression), fit_sizes, same=False),
        sized(M, "ASTCRegressor.predict", "DecisionTreeRegressor.predict",
              predict_pair(astc_regressor, tree_regressor, regression), predict_sizes, same=False),
        sized(M, "SNCClassifier.fit", "sklearn NeighborhoodComponentsAnalysis(max_iter=50).fit (learns a metric "
              "by the stochastic-neighbour objective, O(n^2) per iteration); fast: 4 % references, gamma2=0.1, 50 "
              "iterations", snc_fit, snc_sizes, same=False,
              note="NCA costs O(n^2 d) per iteration (~10 s at n = 4e3 here): the large size times fast only"),
        sized(M, "SNCClassifier.fit (vs KMeans prototypes)", "4 % of each class as sklearn KMeans(n_init=1) "
              "centroids (the hand-made compressed set)", snc_kmeans,
              {**snc_sizes, "mid": ("n=4e3, d=20", (4000, 20))}, same=False),
        sized(M, "SNCClassifier.predict", "sklearn KNeighborsClassifier(1, algorithm='brute') on the FULL training "
              "set (1e4 rows), what the compressed set replaces", snc_predict,
              {"small": ("1e3 rows, d=10", (1000, 10)), "mid": ("1e4 rows, d=20", (10_000, 20)),
               "large": ("5e4 rows, d=20", (50_000, 20))}, same=False),
        sized(M, "PrivateANM.fit", "the non-private ANM: train_test_split, two sklearn KernelRidge fits, "
              "scipy kendalltau of the residuals", anm, anm_sizes, same=False),
        sized(M, "nonprivate_diagnostics", "the same non-private ANM with sklearn KernelRidge + scipy kendalltau",
              diagnostics, anm_sizes, same=False),
        sized(M, "infer_directions", "a loop of the non-private sklearn ANM over the pairs", directions,
              {"small": ("5 pairs, N=400", (5, 400)), "mid": ("5 pairs, N=1000", (5, 1000)),
               "large": ("5 pairs, N=2000", (5, 2000))}, same=False),
    ]


#: one entry per module: name -> function returning its rows.  A new module adds ONE line here.
MODULES = {
    "rados": rows_rados,
    "losses": rows_losses,
    "regularizers": rows_regularizers,
    "radoboost": rows_radoboost,
    "reconstruction": rows_reconstruction,
    "labels": rows_labels,
    "accounting": rows_accounting,
    "mechanisms": rows_mechanisms,
    "dp_rados": rows_dp_rados,
    "causal": rows_causal,
    "causal_privacy": rows_causal_privacy,
    "measures": rows_measures,
    "private_boosting": rows_private_boosting,
    "impact_coding": rows_impact_coding,
    "budgeted": rows_budgeted,
    "snc": rows_snc,
    "estimators": rows_estimators,
}

#: modules of fast with public names that are NOT timed, and why (printed in the table's header): coverage is explicit
EXCLUDED = {
    "cli": "the command-line front end (argument parsing, file I/O and printing around the functions above, which "
           "have their own rows); `python -m fast ...` has no numpy / scikit-learn counterpart to time it against",
}

#: modules of fast whose public names another MODULES entry covers: the package ``fast`` itself re-exports the
#: estimators (and the preprocessing transformers), each fast.estimators.<family> module defines some of them, and
#: fast.preprocessing's scikit-learn transformers are timed with the estimators
COVERED_BY = {"": "estimators", "preprocessing": "estimators"}

#: public names that are not functions (dataclasses, exceptions, constants, classes used through functions)
NOT_FUNCTIONS = {
    "rados": {"Theorem3Quantities"},
    "losses": {"ROWS"},
    "regularizers": {"REGULARIZER_NAMES"},
    "accounting": {"Budget", "BudgetExceeded", "LedgerNotShared", "BudgetAccountant", "ZCDPAccountant", "Composition",
                   "DefaultLedger", "LedgerEntry"},
    "mechanisms": {"LaplaceGrid", "GaussianGrid"},
    "dp_rados": {"DPFeatWindow", "DPFeatPlan", "RadoSource", "DPFeatSource", "GaussianEdgesSource"},
    "causal": {"ANMResult"},
    "causal_privacy": {"SPEARMAN_EXACT"},
    "estimators": {"__version__", "PairResult", "ANMDiagnostics", "PrivacyLeakWarning", "ClippingWarning"},
}


def public_modules() -> dict:
    """{module of fast with an ``__all__`` (dotted name under fast, "" for the package): the MODULES or EXCLUDED key
    that accounts for it, or None when none does}.  Walks the package (private ``_`` modules skipped)."""
    import pkgutil

    fast = importlib.import_module("fast")
    found = {"": fast}
    for info in pkgutil.walk_packages(fast.__path__, "fast."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        found[info.name[len("fast."):]] = importlib.import_module(info.name)
    out = {}
    for name, module in found.items():
        if not hasattr(module, "__all__"):
            continue
        key = COVERED_BY.get(name, name.split(".")[0])
        out[name] = key if key in MODULES or key in EXCLUDED else None
    return out


def _public_names(name: str) -> list:
    """The public names of MODULES entry ``name``: its module's ``__all__`` and that of every module it covers."""
    modules = [f"fast.{name}"] + [f"fast.{sub}" if sub else "fast" for sub, key in public_modules().items()
                                  if key == name and sub != name]
    names = []
    for module in modules:
        names += [n for n in getattr(importlib.import_module(module), "__all__", []) if n not in names]
    return [n for n in names if n not in NOT_FUNCTIONS.get(name, set())]


# the boosting loops' shared reason, given the loop's per-round product (radoboost and omega_radaboost: w @ Pi;
# adaboost: w @ (y X))
def _boosting_loop_reason(product: str) -> str:
    return (
        f'one thread on purpose: the per-round product {product} (85 % of a round, memory-bound) runs as compiled'
        ' column dots on the calling thread, 1.18x OpenBLAS gemv on one thread (4.35 vs 5.13 ms); split '
        'between two threads it LOST under load (2 threads / 1: 0.72 at n = 1e4, 0.80 at 1e5, load 6), as a '
        "2-thread gemv did (20x stalls, _blas_threads). On a quiet machine the peer's 2-thread gemv gains ~25"
        ' % and wins with default threads: x0.86-0.99 at load 1.2 (stop 18), while fast wins on one thread '
        '(x1.18-1.30) and under load'
    )


#: module.function -> why fast cannot beat its peer (the loss is inherent to what fast guarantees and the peer
#: does not: exactness, privacy, validation of the contract, or a different algorithm).  Printed beside every loss
#: at mid / large size; a loss without an entry is reported as "NO REASON RECORDED".
SLOWER_BECAUSE: dict[str, str] = {
    'accounting.basic_composition': (
        'the peer sums a Python list with math.fsum (~26 ns an element); fast must first convert the list to '
        'an array for its vectorised validation (~35 ns an element), after which its exact sum costs ~1 ns an'
        ' element (with array inputs fast is 10x faster)'
    ),
    'accounting.renyi_gaussian': (
        "mid size only: a fixed ~15 us (four validated arguments, the exact-sum set-up) against the peer's 7 "
        'us; faster from about 1e5 coordinates'
    ),
    'accounting.split': (
        "two exact Fraction divisions and the budget's validation (~5 us) against a float division; the tuple"
        ' itself is now one repeat'
    ),
    'accounting.zcdp_composition': (
        'as basic_composition: list-to-array conversion for validation dominates; the exact sum itself is ~1 '
        'ns an element'
    ),
    'budgeted.l1_logistic': (
        'a different solver: FISTA to tolerance 1e-10 (about 250 full-gradient iterations) against '
        "liblinear's coordinate descent"
    ),
    'dp_rados.dp_feat_rados': (
        'its signatures (see dp_rados.dp_feat_signatures); the rados themselves go through the fast.rados table '
        "kernel (20-50 ms at m = 1e4, n = 1e3 where the peer's GEMM takes 130-170 ms): x0.63-1.43 at mid and "
        'x0.96-1.58 at large over three runs at load 4-7'
    ),
    'dp_rados.dp_feat_signatures': (
        "the exact sampler takes the reference's draws (seeded fast == reference, bit for bit): after the n "
        'truncated-binomial K, n m uniform doubles (64 bits each; the K smallest of a row form the subset), '
        'against the peer\'s n m int8 coin flips (8 bits each) plus the redrawn rows. At m = 1e4, n = 1e3 the '
        "doubles alone take ~100 ms of fast's 105-170 ms (the K: 2 ms; the O(m) selection ~2 ns an entry); "
        'x0.44-1.43 at mid and x0.72-1.02 at large (was 0.03-0.12 before the O(m) rewrite)'
    ),
    'dp_rados.noisy_edges': (
        'exact discrete Gaussian noise on every edge (see mechanisms.gaussian_mechanism) plus clipping, '
        "against numpy's floating-point normal"
    ),
    'estimators.OmegaRAdaBoostClassifier.fit': (
        'a different algorithm: boosting rounds over rados with the Omega regulariser (nock2016) against '
        "liblinear's L1 logistic regression"
    ),
    'estimators.OmegaRAdaBoostClassifier.predict': (
        'the same scikit-learn validate_data (a finiteness sum over X) and the same BLAS gemv as '
        'LogisticRegression.predict; with the lasso 19 of 20 coefficients are 0 and hide their columns from '
        "the scores' finiteness test, so the pass stays (a dense model skips it: 2.0-2.3x); paired 1.04-1.27"
    ),
    'estimators.RadoBoostClassifier.fit': (
        'a different algorithm: 300 rounds of boosting over rados (nock2015) against L-BFGS logistic '
        'regression on the examples'
    ),
    'estimators.SNCClassifier.fit': (
        'a different algorithm: SNC optimises the compression objective over all n inputs (O(n m d) per '
        'L-BFGS iteration, plus the gamma^2 hold-out) where the peer fits per-class k-means prototypes'
    ),
    'impact_coding.coder_from_table': (
        "the contract reports every level's Fisher / chi-square significance (about 80 % of the time, 17 ms "
        'per 1e5 levels, one compiled pass per level) whatever rare_sig is; the peer is the bare catB formula'
        ' (0.12-0.14)'
    ),
    'impact_coding.factorize': (
        "pandas.factorize plus the contract's level-kind check and conversion of the levels to Python values "
        '(0.92-1.06 over runs: at par)'
    ),
    'impact_coding.laplace_count_table': (
        "exact discrete Laplace noise on every count (see mechanisms.laplace_mechanism) against numpy's "
        'floating-point Laplace'
    ),
    'impact_coding.log_lift_code': (
        "one np.log over the levels is ~60 % of both sides' time (0.91-1.08 over runs: at par)"
    ),
    'losses.omega_tilde': (
        'both sides do one dot product at d = 1e6 (0.9-1.3 over runs); the overflow-safe rescaling adds a '
        'pass only when needed'
    ),
    'losses.rado_game_value': (
        'the contract caps m at 26 (the reference enumerates 2^m subsets), so every size is tiny: about 4 us '
        'of validation against a 2 us one-liner'
    ),
    'losses.regularized_exp_rado_loss': (
        'the same one pass over P as the peer: fused row products 203 us vs OpenBLAS gemv 214 us, exp-sum 55 '
        'us vs np.exp + mean 67 us (n = 1e4, d = 100, one thread), plus ~6 us of validation: at par '
        '(0.96-1.28 over runs)'
    ),
    'losses.regularized_rados': (
        "one pass that reads and writes n d values, memory-bound like the peer's subtraction (80 MB each way "
        'at n = 1e5); paired 1.04-1.19 at load 4.6, and a 2-thread split did not pay on the loaded 2-core '
        'machine (0.86-0.96)'
    ),
    'measures.density': (
        'as measures.size: exactly rounded sum plus the range check'
    ),
    'measures.is_dense': (
        'as measures.size: exactly rounded sum plus the range check'
    ),
    'measures.kl': (
        'the contract checks both inputs are probability vectors (range, exact sum to 1): two passes the peer'
        ' skips'
    ),
    'measures.normalize': (
        'as measures.size: exactly rounded sum plus the range check, then the division'
    ),
    'measures.renyi': (
        "the contract's probability-vector checks of both inputs (large size); integer orders have an exact "
        'power path'
    ),
    'measures.size': (
        "the contract returns math.fsum's exactly rounded float and checks the [0, 1] range: one certified "
        "compensated pass (fast._exact_sum) costs about 2x np.sum's plain pairwise sum"
    ),
    'measures.statistical_distance': (
        "the contract's probability-vector checks of both inputs: two passes the peer skips"
    ),
    'mechanisms.gaussian_mechanism': (
        'exact discrete Gaussian (CKS20): ~85 ns a draw of exact arithmetic (~2.1 attempts of 4 words), the '
        "words alone cost 1.1-1.6x numpy's whole normal draw, which is not DP"
    ),
    'mechanisms.laplace_mechanism': (
        'exact discrete Laplace (CKS20) from random words: the compiled sampler is ~74 ns a draw of exact '
        "integer arithmetic with rejection (~1.6 attempts, ~6 words a draw), 2.9x numpy's whole floating-"
        'point draw, which is not DP (Mironov 2012); the rest is the words (~21 %), validation and release (<'
        ' 7 %)'
    ),
    'mechanisms.sample_discrete_gaussian': (
        'the exact discrete Gaussian sampler (see gaussian_mechanism) against a rounded continuous normal (a '
        'different law)'
    ),
    'mechanisms.sample_discrete_laplace': (
        "the exact discrete Laplace sampler (see laplace_mechanism) against numpy's floating-point geometric "
        'draws'
    ),
    'mechanisms.unsafe_float_gaussian': (
        'mid size: the validation and the (memoised) analytic-Gaussian calibration, ~15 us, against a 17 us '
        'numpy call; at par at large size'
    ),
    'mechanisms.unsafe_float_laplace': (
        'mid size: ~6 us of argument validation and calibration against a 25 us numpy call; at par at large '
        'size'
    ),
    'private_boosting.boost': (
        "the user's weak-learner callables dominate both sides; fast adds one exact sum per round (~0.1 ms) "
        'and passes int8 labels as the contract requires (0.91-1.05 over runs)'
    ),
    'private_boosting.centroid': (
        "large size (0.94): the contract's unit-ball check adds the squared norms to the one read of X (85-95"
        " % of OpenBLAS's matrix-vector product at d = 20) and the weights' exact sum adds 0.6 ms at n = 1e6"
    ),
    'private_boosting.lazy_bregman_boost': (
        'the projection and products are at par; the difference is the exact discrete-Gaussian release each '
        'round (~0.16 ms per round, within noise)'
    ),
    'private_boosting.noisy_centroid': (
        'exact discrete Gaussian noise on the centroid (see mechanisms.gaussian_mechanism)'
    ),
    'private_boosting.noisy_stump': (
        'exact discrete noise for the report-noisy-max (see mechanisms.laplace_mechanism)'
    ),
    'private_boosting.report_noisy_max': (
        '93-100 % of its time is the exact discrete Laplace noise (fast.mechanisms, ~100 ns a draw against '
        "~25 ns for numpy's floating-point Laplace); the argmax is one compiled pass"
    ),
    'private_boosting.smooth_boost': (
        'every round draws exact discrete noise (stump / centroid and the PTR test) and sums exactly, against'
        ' AdaBoost with no noise'
    ),
    'radoboost.adaboost': _boosting_loop_reason('w @ (y X)'),
    'radoboost.omega_radaboost': _boosting_loop_reason('w @ Pi'),
    'radoboost.radoboost': _boosting_loop_reason('w @ Pi'),
    'rados.exp_rado_risk': (
        "mid size (n = 1e4 rows, d = 100): one thread, the peer is one BLAS product and one exp-sum and fast's "
        'compiled row products are at par with BLAS (0.95-1.05 over runs); default threads, fast stays on one '
        'thread below 2^22 entries (a 2-thread split stalled under load: the fix took log_exp_rado_risk from 1.06 '
        "to 40.6) while on a quiet machine the peer's 2-thread gemv gains 20 %: x0.68-0.85. From 1e5 rows: "
        'x1.5-1.6'
    ),
    'rados.logistic_risk_gradient': (
        "mid size, one thread, matrix in cache: two BLAS passes cost about as much as fast's one fused pass "
        '(0.8-0.95)'
    ),
    'rados.rados': (
        "default threads under load: both sides run 2 threads (the table kernel's pool / OpenBLAS GEMM) and "
        'lose 1.5-2x to their own one-thread time at load 4-7; paired at d = 100, mid: 1.27-2.6; a 0.91 had '
        'fast at 204 ms against its usual 60-93 ms'
    ),
    'rados.sample_signatures': (
        "bound to the reference's random stream (one 32-bit draw per signature entry, so seeded runs "
        "reproduce the reference's signatures); numpy's int8 draws use 8 bits an entry but give other "
        'signatures (0.65-0.7 at small / mid size)'
    ),
    'reconstruction.alternative_edge_vectors': (
        "a rank check by SVD (Lemma 9), which the peer's np.linalg.inv skips, on 10-80 us of work"
    ),
    'reconstruction.recover_edge_vectors': (
        "it is the peer's lstsq plus ~5 % of validation (supports, rank as Lemma 9 requires)"
    ),
    'reconstruction.split_edge_vectors': (
        '5-10 us of validation of E, v and U against a 10-30 us peer'
    ),
    'reconstruction.support_matrix': (
        'at n = 512: 5-10 us of validation of the supports against a 10-30 us peer; 3x faster at n = 4096'
    ),
    'regularizers.linf': (
        'd = 1e6: one pass on both sides; default-thread figures on the shared machine are noise (median 4.1x'
        ' faster over runs)'
    ),
    'regularizers.ridge': (
        'with Gamma: its symmetric positive definiteness must be decided (a Cholesky, or a full comparison '
        "with the copy already certified), reading 2 d^2 values where the peer's quadratic form reads d^2; "
        'without Gamma both sides are one dot product (at par)'
    ),
    'estimators.DomainClipper.transform': (
        'the peer assumes finite floats; fast first maps every value into the declared domain '
        '(spec.privacy_contract.to_domain: a float64 copy, a NaN test, a clamp of +-inf, NaN to the centre; '
        'object columns read one by one) so that no record can make the clip fail or return NaN: 3 more passes '
        'over X than the peer (x2.2 at 1e3 and x2.4 at 1e5 rows, d = 20)'
    ),
    'estimators.clipping_report': (
        'the peer compares a float64 array it already holds; fast reads any input a transformer accepts (object '
        'columns, None, str, ints beyond the float range) through to_domain before the mask, checks the schema '
        'against the fit and names the features: x2.1-2.4 at 1e3-1e5 rows, a non-private diagnostic run once'
    ),
}


def coverage(modules=None) -> dict:
    """{module: [public functions / estimators of fast.<module> with no row]} (empty lists when covered).  A row
    covers a name when its function is the name, the name followed by " (variant)", or "Class.method"."""
    missing = {}
    for name in modules or MODULES:
        rows = {row.function.split(" ")[0].split(".")[0] for row in MODULES[name]()}
        missing[name] = [n for n in _public_names(name) if n not in rows]
    return missing


# --------------------------------------------------------------------------- timing


def _loops(fn, target=2e-3) -> int:
    """Calls per timing so that one timing lasts about ``target`` seconds."""
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    return 1 if elapsed >= target else min(10_000, max(1, int(target / max(elapsed, 1e-7))))


def _looped(fn, k):
    if k == 1:
        return fn

    def run():
        for _ in range(k):
            fn()
    return run


def _same(a, b) -> bool | None:
    """Do fast and peer agree (rtol 1e-6)?  None when the outputs are not comparable arrays / numbers."""
    try:
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):  # e.g. (gradient array, scalar)
            parts = [_same(x, z) for x, z in zip(a, b)]
            return None if None in parts else all(parts)
        return None
    if a.shape != b.shape:
        return None
    return bool(np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True))


def time_case(case: Case, repeat: int) -> dict:
    """{fast, peer (seconds per call, least over ``repeat`` alternating repetitions), same}."""
    fns = {"fast": case.fast}
    if case.peer is not None:
        fns["peer"] = case.peer
    loops = {name: _loops(fn) for name, fn in fns.items()}  # also the warm-up (numba compiles, caches fill)
    timed = interleaved({n: _looped(f, loops[n]) for n, f in fns.items()}, repeat=repeat, warmup=0)
    out = {name: timed[name][0] / loops[name] for name in fns}
    out["same"] = _same(case.fast(), case.peer()) if (case.same and case.peer is not None) else None
    return out


def guard_ratio(case: Case, pairs: int = 9, target: float = 5e-3) -> tuple:
    """(median, per-pair ratios) of fast / peer for tests/test_perf_guard.py: process CPU time (one thread for
    BLAS / OpenMP / numba, so CPU time is the work done, whatever the time-slicing of a loaded machine), each side
    looped to about ``target`` seconds per timing, ``pairs`` alternating back-to-back pairs after one warm-up pair
    (``benchmarks._timing.paired_ratios``), the median of the per-pair ratios."""
    import statistics

    with _one_thread():
        loops = {name: _loops(fn, target=target) for name, fn in (("fast", case.fast), ("peer", case.peer))}
        ratios = paired_ratios(_looped(case.fast, loops["fast"]), _looped(case.peer, loops["peer"]), pairs,
                               warmup=1, clock=time.process_time)
    ratios = [r * loops["peer"] / loops["fast"] for r in ratios]
    return statistics.median(ratios), ratios


def _repeat_for(seconds: float) -> int:
    return 7 if seconds < 0.01 else 5 if seconds < 0.2 else 3 if seconds < 1.0 else 2


def measure(rows, sizes, threads=("default", "1"), log=print, checkpoint=None):
    """Time every row at every size and threading; returns a list of result dicts.  ``checkpoint(results)`` is
    called after every row (the full run takes long on a loaded machine: partial tables survive an interruption)."""
    results = []
    for row in rows:
        if checkpoint is not None and results:
            checkpoint(results)
        for size in (SCALAR, *sizes):
            if size not in row.cases:
                continue
            try:
                case = row.cases[size]()
            except Exception as error:  # noqa: BLE001 - a module in flux: report it in the table
                results.append({"row": row, "size": size, "label": "-", "error": f"{type(error).__name__}: {error}"})
                continue
            entry = {"row": row, "size": size, "label": case.label}
            for thread in threads:
                try:
                    probe = time.perf_counter()
                    case.fast()
                    repeat = _repeat_for(time.perf_counter() - probe)
                    if thread == "1":
                        with _one_thread():
                            entry[thread] = time_case(case, repeat)
                    else:
                        entry[thread] = time_case(case, repeat)
                except Exception as error:  # noqa: BLE001
                    entry["error"] = f"{type(error).__name__}: {error}"[:120]
                    break
            results.append(entry)
            log(_line(entry))
            del case
    return results


# --------------------------------------------------------------------------- output


def _fmt(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _ratio(t: dict | None) -> str:
    if not t or t.get("peer") is None:
        return "-"
    return f"{t['peer'] / t['fast']:.2f}"


def _line(e) -> str:
    row = e["row"]
    if "error" in e and "default" not in e:
        return f"{row.module:15s} {row.function:28s} {e['size']:7s} ERROR {e['error']}"
    d, one = e.get("default"), e.get("1")
    same = "" if not d or d.get("same") is None else ("" if d["same"] else "  (results differ!)")
    return (f"{row.module:15s} {row.function:28s} {e['size']:7s} {e['label']:22s} "
            f"fast {_fmt(d['fast']):>10s} peer {_fmt(d.get('peer')):>10s} x{_ratio(d):>6s} | 1 thread "
            f"{_fmt(one['fast']) if one else '-':>10s} {_fmt(one.get('peer')) if one else '-':>10s} "
            f"x{_ratio(one):>6s}{same}")


#: a first-pass ratio at or above this is re-timed (:func:`recheck`) before it is called a loss: the rows are timed
#: once over 3-7 repetitions on a shared machine, where a 1-10 % swing between runs of the same code is common
RECHECK_ABOVE = 0.8
RECHECK_REPEAT = 9


def _losing(t) -> bool:
    return bool(t) and t.get("peer") is not None and t["peer"] < t["fast"]


def recheck(results, sizes=("mid", "large"), log=print):
    """Re-time every near-parity loss (first-pass ratio in [RECHECK_ABOVE, 1)) at mid / large size with
    ``RECHECK_REPEAT`` alternating repetitions, in the same threading; the result goes to ``entry[thread +
    "_recheck"]``.  :func:`verdicts` then calls it a loss only when the re-timing confirms it, and prints both."""
    for e in results:
        if e["size"] not in sizes or "error" in e:
            continue
        for thread in ("default", "1"):
            t = e.get(thread)
            if not _losing(t) or t["peer"] / t["fast"] < RECHECK_ABOVE:
                continue
            case = e["row"].cases[e["size"]]()
            if thread == "1":
                with _one_thread():
                    e[thread + "_recheck"] = time_case(case, RECHECK_REPEAT)
            else:
                e[thread + "_recheck"] = time_case(case, RECHECK_REPEAT)
            r = e[thread + "_recheck"]
            log(f"recheck {e['row'].module}.{e['row'].function} {e['size']} {thread}: x{t['peer'] / t['fast']:.2f}"
                f" -> x{r['peer'] / r['fast']:.2f}")
            del case


def verdicts(results, at_par=None) -> list[str]:
    """Rows where fast loses to its peer at mid or large size (ratio < 1 with either threading), each with the
    reason recorded in :data:`SLOWER_BECAUSE` (or a flag saying none is recorded: a loss to fix or explain).

    A loss that :func:`recheck` re-timed is a loss only when the re-timing also has fast slower; otherwise it goes
    to ``at_par`` (a list, when given) with both ratios, and is not a loss."""
    out = []
    for e in results:
        if e["size"] not in ("mid", "large"):
            continue
        key = f"{e['row'].module}.{e['row'].function.split(' ')[0]}"
        for thread in ("default", "1"):
            t = e.get(thread)
            if not _losing(t):
                continue
            r = e.get(thread + "_recheck")
            again = "" if r is None else f", re-timed x{r['peer'] / r['fast']:.2f}"
            where = (f"{key} {e['size']} ({e['label']}), {thread} thread(s): fast {_fmt(t['fast'])} vs peer "
                     f"{_fmt(t['peer'])} (x{t['peer'] / t['fast']:.2f}{again})")
            if r is not None and not _losing(r):
                if at_par is not None:
                    at_par.append(where)
                continue
            why = SLOWER_BECAUSE.get(key, "NO REASON RECORDED: fix it or say why in peers.SLOWER_BECAUSE")
            out.append(f"{where}. Why: {why}")
    return out


def markdown(results, header: str) -> str:
    lines = [header, "",
             "| module | function | size | fast | peer | peer/fast | fast (1 thr) | peer (1 thr) | peer/fast (1 thr) "
             "| peer formulation |", "|---|---|---|---|---|---|---|---|---|---|"]
    for e in results:
        row = e["row"]
        peer = row.peer + (f" ({row.note})" if row.note and e["size"] in ("small", SCALAR) else "")
        if "default" not in e:
            lines.append(f"| {row.module} | {row.function} | {e['size']} | error: {e.get('error', '')} | | | | | | |")
            continue
        d, one = e["default"], e.get("1") or {}
        flag = " (results differ)" if d.get("same") is False else ""
        lines.append(
            f"| {row.module} | `{row.function}` | {e['size']}: {e['label']} | {_fmt(d['fast'])} | "
            f"{_fmt(d.get('peer'))} | **{_ratio(d)}** | {_fmt(one.get('fast'))} | {_fmt(one.get('peer'))} | "
            f"**{_ratio(one)}** | {peer}{flag} |")
    return "\n".join(lines)


BEGIN, END = "<!-- peers table: generated by benchmarks/peers.py -->", "<!-- end of peers table -->"


def write_table(text: str, path: Path = DOC) -> None:
    """Replace the generated block of ``path`` (between BEGIN and END) by ``text``; the rest is hand-written."""
    doc = path.read_text() if path.exists() else f"# Performance\n\n{BEGIN}\n{END}\n"
    if BEGIN not in doc:
        doc += f"\n{BEGIN}\n{END}\n"
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1] if END in rest else ""
    path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


LOSSES_TITLE = "fast slower than its peer at mid/large size:"
AT_PAR_TITLE = (f"slower in the first pass but not when re-timed with {RECHECK_REPEAT} alternating repetitions "
                f"(first-pass ratio >= {RECHECK_ABOVE}; at par):")


def _merge_bullets(lines: list, title: str, new: list, modules) -> list:
    """``lines`` with the bullets of the section starting with ``title`` for ``modules`` replaced by ``new`` (the
    section is added at the end when absent and ``new`` is not empty)."""
    prefixes = tuple(f"* {m}." for m in modules)
    start = next((i for i, line in enumerate(lines) if line.startswith(title)), None)
    if start is None:
        return lines + (["", title, ""] + [f"* {x}" for x in new] if new else [])
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith("* ") or lines[end] == "none"):
        end += 1
    kept = [line for line in lines[start + 1:end] if line.startswith("* ") and not line.startswith(prefixes)]
    bullets = sorted(kept + [f"* {x}" for x in new])
    return lines[:start + 1] + [""] + (bullets or ["none"]) + [""] + lines[end:]


def merge_rows(table: str, modules, header: str, path: Path = DOC, losers=None, at_par=None) -> None:
    """Replace the rows of ``modules`` in the generated table of ``path`` by those of ``table`` (same columns), in
    place, and note the re-measurement under the table's header.  ``losers`` / ``at_par`` (from
    :func:`verdicts`) replace those modules' lines in the lists under the table."""
    doc = path.read_text()
    head, rest = doc.split(BEGIN, 1)
    block, tail = rest.split(END, 1)
    new_rows = {m: [line for line in table.splitlines() if line.startswith(f"| {m} |")] for m in modules}
    lines, done = [], set()
    for line in block.splitlines():
        module = line.split("|")[1].strip() if line.startswith("| ") else None
        if module in new_rows:
            if module not in done:
                lines.extend(new_rows[module])
                done.add(module)
            continue
        lines.append(line)
        if line.startswith("Measured ") and "Re-measured" not in line:
            lines.append("")
            lines.append(f"Re-measured after later fixes ({', '.join(modules)}): {header.split(' by ')[0].replace('Measured ', '')}.")
    missing = [m for m in modules if m not in done and new_rows[m]]
    if missing:  # modules new to the table: their rows go after the table's last row
        last = max(i for i, line in enumerate(lines) if line.startswith("| "))
        lines[last + 1:last + 1] = [row for m in missing for row in new_rows[m]]
    if losers is not None:
        lines = _merge_bullets(lines, LOSSES_TITLE, losers, modules)
    if at_par is not None:
        lines = _merge_bullets(lines, AT_PAR_TITLE, at_par, modules)
    while lines and not lines[-1].strip():
        lines.pop()
    path.write_text(f"{head}{BEGIN}{chr(10).join(lines)}\n{END}{tail}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small and mid sizes only; does not write the doc")
    parser.add_argument("--only", default="", help="comma-separated modules")
    parser.add_argument("--no-doc", action="store_true")
    parser.add_argument("--merge", action="store_true",
                        help="with --only: replace those modules' rows in docs/performance.md's table, keep the rest")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(MODULES)
    sizes = ("small", "mid") if args.quick else SIZES
    import numba
    from threadpoolctl import threadpool_info

    info = ", ".join(sorted({f"{i['internal_api']} {i.get('num_threads')}" for i in threadpool_info()}))
    header = (f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python -m benchmarks.peers"
              f"{' --quick' if args.quick else ''}`: default threads = numba {numba.get_num_threads()}, "
              f"threadpools [{info}]; 1 thread = threadpoolctl limit 1 + numba.set_num_threads(1).  Times are the least "
              "over 3-7 alternating repetitions (shared machine); ratio = peer / fast (> 1: fast is faster).  "
              "Every module of fast with public names has rows except: "
              + "; ".join(f"`fast.{name}`: {why}" for name, why in EXCLUDED.items()) + ".")
    missing = {k: v for k, v in coverage(names).items() if v}
    if missing:
        print("NOT COVERED:", missing)
    rows = [row for name in names for row in MODULES[name]()]
    print(header)
    write_doc = not args.quick and not args.no_doc and names == list(MODULES)

    def checkpoint(partial):
        if write_doc:
            write_table(markdown(partial, header) + "\n\n(partial: the run was still going)")

    results = measure(rows, sizes, checkpoint=checkpoint)
    recheck(results)
    at_par = []
    losers = verdicts(results, at_par)
    print("\nfast slower than its peer at mid/large size:" if losers else "\nfast never slower at mid/large size")
    for line in losers:
        print("  ", line)
    if at_par:
        print("\nslower in the first pass, not on re-timing (at par):")
        for line in at_par:
            print("  ", line)
    if args.merge and not args.quick:
        merge_rows(markdown(results, header), names, header, losers=losers, at_par=at_par)
        print("merged into", DOC)
    if write_doc:
        text = markdown(results, header)
        text += f"\n\n{LOSSES_TITLE}\n\n" + ("\n".join(f"* {x}" for x in losers) or "none")
        if at_par:
            text += f"\n\n{AT_PAR_TITLE}\n\n" + "\n".join(f"* {x}" for x in at_par)
        if missing:
            text += f"\n\nNot covered: {missing}\n"
        write_table(text)
        print("wrote", DOC)
    return results


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
