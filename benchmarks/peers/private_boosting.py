"""Peers rows of fast/private_boosting.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib
import math

import numpy as np

from benchmarks.peers._core import _rng, scalar, sized
from benchmarks.peers.measures import capped_scaling


def _unit_rows(n, d, seed=0):
    X = _rng(seed).normal(size=(n, d))
    return X / (1.01 * np.linalg.norm(X, axis=1, keepdims=True))


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
