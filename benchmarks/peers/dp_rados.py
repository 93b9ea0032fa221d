"""Peers rows of fast/dp_rados.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import functools
import importlib
import inspect
import math

import numpy as np

from benchmarks.peers._core import _data, _signatures, scalar, sized
from benchmarks.peers.rados import gemm_rados


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
    if hasattr(F, "gaussian_edges_noise"):
        def opendp_accuracy():
            """the peer: OpenDP's accuracy helper on the same sigma (the report's coordinate_accuracy_95)"""
            from fast.mechanisms import gaussian_grid
            from opendp.prelude import gaussian_scale_to_accuracy

            g = gaussian_grid(2.0, 1.0, 1e-6, dimension=10)
            return gaussian_scale_to_accuracy(math.sqrt(g.sigma2_grid) * g.granularity / math.sqrt(10_000), 0.05)

        rows.append(scalar(M, "gaussian_edges_noise", "opendp gaussian_scale_to_accuracy on the grid's sigma",
                           lambda: F.gaussian_edges_noise(1.0, 1e-6, 1.0, m=10_000, d=10, support=30),
                           opendp_accuracy, same=False, note="the report holds the same 95 % accuracy and 7 norms"))
        report = F.gaussian_edges_noise(1.0, 1e-6, 1.0, m=10_000, d=100, support=30)
        rows.append(scalar(M, "warn_if_noise_dominates", "report.dominated and warnings.warn(...)",
                           lambda: F.warn_if_noise_dominates(F.gaussian_edges_noise(1.0, 1e-6, 1.0, m=10**8, d=1,
                                                                                    support=30)),
                           lambda: report.dominated and False, same=False,
                           note="a release that does not warn: the comparison and nothing else"))
    del R
    return rows
