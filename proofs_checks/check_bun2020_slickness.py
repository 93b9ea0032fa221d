"""bun2020 slickness (Lemma 21, Lemma 52) and the centroid's L2 sensitivity (Theorem 22 part 1): exhaustive search
on small n and adversarial search, with the tightness reported.

Neighbours S ~ S' differ at one index i; for LB-NxM the cumulative gains L(j), j != i, are equal (same H, same
example) and L(i), L'(i) in [0, t] are arbitrary (the swapped example's gains).  The search runs on exact grids of
gains (exhaustive for n <= 4) and on random + extreme gains (L(i) in {0, t}, the others random)."""
import itertools
import math

import numpy as np

import fast.measures as M
import fast.private_boosting as PB
from spec.links import checks


def _slick_pair(L, i, Li, kappa, lam):
    L2 = L.copy()
    L2[i] = Li
    mu, mu2 = PB.lb_nxm(L, kappa, lam), PB.lb_nxm(L2, kappa, lam)
    return mu, mu2


def _worst_lemma21(n, kappa, lam, grid):
    worst = 0.0
    for L in itertools.product(grid, repeat=n):
        L = np.array(L, dtype=float)
        for Li in grid:
            mu, mu2 = _slick_pair(L, 0, Li, kappa, lam)
            d = M.statistical_distance(mu / mu.sum(), mu2 / mu2.sum())
            worst = max(worst, d * kappa * n)
    return worst


@checks("bun2020.lemma21", "bun2020.def19")
def check_lemma21_exhaustive_small_n():
    """Delta(mu^_S, mu^_S') <= 1/(kappa n) on every gain vector of an exact grid (n = 2..4; kappa n integer,
    non-integer and < 1), and the bound is nearly attained (tight)."""
    grid = [0.0, 1.0, 2.0, 4.0, 8.0]
    overall = 0.0
    for n, kappa, lam in [(2, 0.3, 1.0), (3, 0.5, 0.7), (3, 1 / 3, 2.0), (4, 0.4, 1.5), (4, 0.2, 3.0), (4, 0.6, 1.0)]:
        worst = _worst_lemma21(n, kappa, lam, grid)
        assert worst <= 1.0 + 1e-12, (n, kappa, lam, worst)
        overall = max(overall, worst)
    assert overall >= 0.9, overall  # tight: the worst case mu(i) = 1 vs mu'(i) ~ 0


@checks("bun2020.lemma21")
def check_lemma21_adversarial_random():
    """8,000 adversarial instances: L(i), L'(i) at the extremes {0, t}, other gains random; max Delta kappa n <= 1."""
    rng = np.random.default_rng(21)
    worst = 0.0
    for _ in range(8000):
        n = int(rng.integers(2, 30))
        kappa = float(rng.uniform(0.02, 0.9))
        t = int(rng.integers(1, 200))
        lam = float(rng.choice([0.01, 0.1, 0.5, 2.0]))
        L = rng.uniform(0, t, n)
        L[0] = float(rng.choice([0.0, t]))
        mu, mu2 = _slick_pair(L, 0, t - L[0], kappa, lam)
        worst = max(worst, M.statistical_distance(mu / mu.sum(), mu2 / mu2.sum()) * kappa * n)
    assert worst <= 1.0 + 1e-12, worst
    assert worst >= 0.99, worst


def centroid_worst_case(L, kappa, lam, Li):
    """max ||z_S - z_S'||_2 over x in B_d(1) for the LB-NxM weights of (L, L with L(0) = Li): the points aligned on
    one unit vector with signs making every term add: sum_{j != 0} |mu^(j) - mu^'(j)| + mu^(0) + mu^'(0)."""
    mu, mu2 = _slick_pair(L, 0, Li, kappa, lam)
    a, b = mu / mu.sum(), mu2 / mu2.sum()
    return float(np.abs(a[1:] - b[1:]).sum() + a[0] + b[0])


@checks("bun2020.s3.lbnxm-l2-sensitivity", "bun2020.thm22")
def check_centroid_sensitivity_adversarial():
    """The exact L2 sensitivity of the LB-NxM centroid: the adversarial maximum is 2/(kappa n) (attained to 0.1%),
    half of the 4/(kappa n) = 2 (1/(kappa n) + zeta) used by Theorem 22 / 26 (sound, loose by 2x).  Also checks the
    vector form: an explicit (X, y, X', y') pair attains the scalar maximum through fast.private_boosting.centroid."""
    rng = np.random.default_rng(22)
    worst = 0.0
    for _ in range(8000):
        n = int(rng.integers(2, 25))
        kappa = float(rng.uniform(0.02, 0.9))
        t = int(rng.integers(1, 100))
        lam = float(rng.choice([0.05, 0.5, 2.0]))
        L = rng.uniform(0, t, n)
        L[0] = float(rng.choice([0.0, t]))
        w = centroid_worst_case(L, kappa, lam, t - L[0]) * kappa * n
        assert w <= 2.0 + 1e-12, w
        assert w <= PB.centroid_sensitivity(n, kappa) * kappa * n / 2 + 1e-12
        worst = max(worst, w)
    assert worst >= 1.998, worst
    # the vector form, with real data (x on the first axis, y chosen so the terms add)
    n, kappa, lam = 10, 0.1, 2.0
    L = np.full(n, 5.0)
    L[0] = 0.0
    mu, mu2 = _slick_pair(L, 0, 5.0, kappa, lam)
    a, b = mu / mu.sum(), mu2 / mu2.sum()
    X = np.zeros((n, 2))
    X[:, 0] = 1.0
    y = np.where(a - b >= 0, 1, -1)
    y[0] = 1
    X2, y2 = X.copy(), y.copy()
    y2[0] = -1
    dz = np.linalg.norm(PB.centroid(X, y, a) - PB.centroid(X2, y2, b))
    assert math.isclose(dz, centroid_worst_case(L, kappa, lam, 5.0), rel_tol=1e-12)


@checks("bun2020.lemma52")
def check_lemma52_smoothboost_slickness_loose():
    """SB-NxM measures on neighbours differ only at i (mu(j) = mu'(j), j != i).  With both kappa-dense, the stated
    bound is 2/(kappa n); the direct bound is 1/max(|mu|, |mu'|) <= 1/(kappa n), and the adversarial maximum of
    Delta kappa n is < 1 (loose by > 2x)."""
    rng = np.random.default_rng(52)
    worst = 0.0
    for _ in range(8000):
        n = int(rng.integers(2, 40))
        kappa = float(rng.uniform(0.02, 0.9))
        gamma = float(rng.uniform(0.01, 0.49))
        t = int(rng.integers(1, 60))
        sums = rng.uniform(-t, t, n)
        mu = PB.sb_nxm(sums, t, gamma)
        s2 = sums.copy()
        s2[0] = float(rng.choice([-t, t]))
        mu2 = PB.sb_nxm(s2, t, gamma)
        # also the raw extreme: mu(i) = 1 vs 0 with the rest set to reach density exactly kappa
        if mu.sum() < kappa * n or mu2.sum() < kappa * n:
            continue
        d = M.statistical_distance(mu / mu.sum(), mu2 / mu2.sum())
        assert d <= 1.0 / (kappa * n) * (1 + 1e-12)
        assert d <= 1.0 / max(mu.sum(), mu2.sum()) * (1 + 1e-12)
        worst = max(worst, d * kappa * n)
    # analytic extreme: others of mass M = kappa n - 1/2... with a = 1, b = 0
    for n in range(2, 60):
        for kappa in np.linspace(0.05, 0.95, 19):
            Mass = kappa * n  # mu' = others only (b = 0) must be kappa-dense: M >= kappa n
            a, b = 1.0, 0.0
            d = Mass * abs(a - b) / ((Mass + a) * (Mass + b))
            worst = max(worst, d * kappa * n)
    assert worst < 1.0 + 1e-12, worst
    assert worst > 0.5
