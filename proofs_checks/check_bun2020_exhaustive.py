"""bun2020: Lemma 52 (SmoothBoost slickness) by exhaustive search on small n, and Theorem 26's Chernoff and
Gaussian-tail steps (App. C; App. H Claims 2-3) against exact binomial and normal tails in mpmath (50 digits).

Lemma 52.  SB-NxM's measure is elementwise, mu(j) = (1 - gamma)^(max(s_j, 0)/2) with s_j = sum_r y_j h_r(x_j) -
t gamma/(2 + gamma) (fast.private_boosting.sb_nxm).  On neighbours S ~ S' (same hypotheses, one swapped example i)
the margin sums agree off i and s_i, s'_i in [-t, t] are arbitrary, so the search enumerates every gain vector of an
exact grid of margin sums (n = 2..5) and every replacement value at i -- the structure of
check_bun2020_slickness.check_lemma21_exhaustive_small_n for LB-NxM.  Lemma 52 assumes both measures kappa-dense and
bounds Delta(mu^, mu^') <= 2/(kappa n); for a pair the largest admissible kappa is min(|mu|, |mu'|)/n, so the tightest
ratio over every admissible kappa is Delta * min(|mu|, |mu'|) (the stated bound is 2 in these units).  The exact
identity Delta = M |a - b| / ((M + a)(M + b)) (a = mu(i), b = mu'(i), M = the other mass) is checked to 1e-13, and the
direct bound Delta min(|mu|, |mu'|) <= M / (M + 1) < 1 (half the stated 2) is asserted.

Theorem 26 (App. C).  (i) Chernoff: with eta <= kappa tau/8 and n >= 24 ln(3/beta)/(kappa tau),
Pr[F > kappa tau n/4] <= exp(-E[F] delta/3) (delta = kappa tau/(4 eta) - 1 >= 1) <= beta/3, F ~ Bin(n, eta); the
exact tail is the regularised incomplete beta I_eta(k, n - k + 1), k = floor(kappa tau n/4) + 1 (cross-checked with
direct 50-digit summation on small n).  Same for App. H Claim 2 (eta = alpha tau/32, n >= 96 ln(4/beta)/(alpha tau),
beta/4).  (ii) Gaussian tail: nu.u ~ N(0, sigma^2) with sigma = tau/(80 sqrt(ln(1/xi))) (HS-StL); the advantage
survives (tau/4 - c sigma sqrt(ln 1/xi) >= tau/8) iff c <= 10, and Pr[|nu.u| > c sigma sqrt(ln 1/xi)] =
erfc(c sqrt(ln(1/xi)/2)) <= 2 xi^(c^2/2) (the Gaussian tail bound) <= xi; then xi T <= beta/3 (union bound)."""
import itertools
import math

import mpmath
import numpy as np

import fast.measures as M
import fast.private_boosting as PB
import reference.private_boosting as RPB
from spec.links import checks

DPS = 50


# ---------------------------------------------------------------------------------------------------- Lemma 52
def _worst_lemma52(n, t, gamma, grid):
    """max over every (s, s'_0) in grid^n x grid of Delta(mu^, mu^') * min(|mu|, |mu'|) (i.e. Delta kappa n at the
    largest kappa making both measures kappa-dense), with the exact identity and the direct bound checked."""
    S = np.array(list(itertools.product(grid, repeat=n)), dtype=float)  # (G^n, n)
    mu = PB.sb_nxm(S.ravel(), t, gamma).reshape(S.shape)
    worst, arg = 0.0, None
    for v in grid:
        S2 = S.copy()
        S2[:, 0] = v
        mu2 = PB.sb_nxm(S2.ravel(), t, gamma).reshape(S.shape)
        m1, m2 = mu.sum(axis=1), mu2.sum(axis=1)
        delta = 0.5 * np.abs(mu / m1[:, None] - mu2 / m2[:, None]).sum(axis=1)
        other = m1 - mu[:, 0]
        a, b = mu[:, 0], mu2[:, 0]
        ident = other * np.abs(a - b) / ((other + a) * (other + b))
        assert np.allclose(delta, ident, rtol=1e-12, atol=1e-15)
        ratio = delta * np.minimum(m1, m2)  # Delta kappa n at kappa = min(|mu|, |mu'|)/n
        assert np.all(ratio <= other / (other + 1.0) * (1 + 1e-12) + 1e-15)  # direct bound M/(M+1)
        assert np.all(ratio <= 2.0)  # Lemma 52 as stated
        k = int(np.argmax(ratio))
        if ratio[k] > worst:
            worst, arg = float(ratio[k]), (tuple(S[k]), v)
    return worst, arg


# (n, t, gamma): rounds so far and the edge; grid of margin sums in [-t, t] (h in [-1, 1], real-valued)
LEMMA52_CASES = [(2, 2, 0.2), (3, 3, 0.1), (3, 4, 0.45), (4, 3, 0.3), (4, 6, 0.05), (5, 4, 0.25), (5, 40, 0.45)]


@checks("bun2020.lemma52")
def check_lemma52_exhaustive_small_n():
    """Every replace-one neighbour pair over exact margin-sum grids (n = 2..5, 9 grid values in [-t, t] including
    the extremes), 7 (n, t, gamma) cases: Delta kappa n <= 2 (stated) at every admissible kappa.  On every grid the
    maximum equals the analytic extreme (n - 1)(1 - b)/n (others at mu = 1, a = 1, b = (1-gamma)^(t(1 - theta)/2), the
    smallest value; rel. 1e-12): 0.092 (n=2, t=2, gamma=.2) ... 0.41547 (n=3, t=4, gamma=.45) ... 0.79995 (n=5, t=40,
    gamma=.45; -> (n-1)/n); always < 1 = half the stated 2: Lemma 52 holds, loose by more than 2x."""
    results = {}
    for n, t, gamma in LEMMA52_CASES:
        grid = list(np.linspace(-t, t, 9))
        worst, arg = _worst_lemma52(n, t, gamma, grid)
        theta = gamma / (2 + gamma)
        bmin = (1 - gamma) ** ((t - t * theta) / 2)  # smallest measure value (sum = t)
        analytic = (n - 1) * (1 - bmin) / (n - 1 + 1)  # others all 1, a = 1, b = bmin
        assert math.isclose(worst, analytic, rel_tol=1e-12), (n, t, gamma, worst, analytic, arg)
        assert worst < (n - 1) / n + 1e-12
        results[(n, t, gamma)] = worst
    overall = max(results.values())
    assert overall < 0.5 * 2.0  # at most half of the stated 2/(kappa n) on every grid
    assert overall > 0.7999, results  # reaches (n - 1)/n = 0.8 at n = 5, t = 40 (b ~ 1e-6): tight for the direct bound


@checks("bun2020.lemma52")
def check_lemma52_exhaustive_matches_reference():
    """The same enumeration (n = 3, t = 2, gamma = 0.3, 5 grid values) through reference.private_boosting.sb_nxm
    and 50-digit mpmath arithmetic for Delta: agrees with the fast search to 1e-12 and stays <= 2/(kappa n)."""
    n, t, gamma = 3, 2, 0.3
    grid = [-2.0, -1.0, 0.0, 1.0, 2.0]
    worst_fast, _ = _worst_lemma52(n, t, gamma, grid)
    worst = mpmath.mpf(0)
    with mpmath.workdps(DPS):
        for s in itertools.product(grid, repeat=n):
            mu = [mpmath.mpf(x) for x in RPB.sb_nxm(list(s), t, gamma)]
            for v in grid:
                s2 = list(s)
                s2[0] = v
                mu2 = [mpmath.mpf(x) for x in RPB.sb_nxm(s2, t, gamma)]
                m1, m2 = mpmath.fsum(mu), mpmath.fsum(mu2)
                d = mpmath.fsum(abs(x / m1 - y / m2) for x, y in zip(mu, mu2)) / 2
                r = d * min(m1, m2)
                assert r <= 2
                worst = max(worst, r)
    assert abs(float(worst) - worst_fast) <= 1e-12
    # fast.measures.statistical_distance on the worst pair
    mu = PB.sb_nxm([-2.0, -2.0, -2.0], t, gamma)
    mu2 = PB.sb_nxm([2.0, -2.0, -2.0], t, gamma)
    d = M.statistical_distance(mu / mu.sum(), mu2 / mu2.sum())
    assert math.isclose(d * min(mu.sum(), mu2.sum()), worst_fast, rel_tol=1e-12)


# ---------------------------------------------------------------------------------------------------- Theorem 26
def binom_upper_tail(n, p, k):
    """Pr[Bin(n, p) >= k] exactly (50 digits): I_p(k, n - k + 1)."""
    if k <= 0:
        return mpmath.mpf(1)
    if k > n:
        return mpmath.mpf(0)
    return mpmath.betainc(k, n - k + 1, 0, p, regularized=True)


def _grid():
    for a in ("0.05", "0.1", "0.3"):
        for tau in ("0.05", "0.1", "0.5"):
            for beta in ("0.01", "0.05", "0.2"):
                yield mpmath.mpf(a), mpmath.mpf(tau), mpmath.mpf(beta)


def _binom_tail_against_summation():
    """The incomplete-beta tail equals direct 50-digit summation of the binomial pmf (small n)."""
    with mpmath.workdps(DPS):
        for n, p, k in [(50, mpmath.mpf("0.03"), 4), (300, mpmath.mpf(1) / 160, 4), (1000, mpmath.mpf("0.001"), 3)]:
            direct = mpmath.fsum(mpmath.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))
            assert abs(binom_upper_tail(n, p, k) - direct) <= mpmath.mpf(10) ** -40 * direct


@checks("bun2020.thm26.chernoff", "bun2020.thm34.claim2")
def check_thm26_chernoff_mpmath():
    """App. C: for every (alpha, tau, beta) in {.05,.1,.3} x {.05,.1,.5} x {.01,.05,.2}, kappa = alpha/4,
    eta in {1, 1/2, 1/4} x kappa tau/8 and n in {n_min, n_min + 1, 1.5 n_min, 4 n_min}: exact
    Pr[Bin(n, eta) > kappa tau n/4] <= exp(-eta n delta/3) (the Chernoff bound used, delta = kappa tau/(4 eta) - 1)
    <= beta/3.  App. H Claim 2 (eta = alpha tau/32, n >= 96 ln(4/beta)/(alpha tau)): exact tail <= beta/4.
    Ratios: exact/Chernoff <= 0.065 (down to 1e-56 at eta = kappa tau/32); exact/(beta/3) at n_min and eta at its
    cap in [0.028, 0.065] (the Chernoff step costs a factor 15-35 in probability); Claim 2: exact/(beta/4) at its n_min
    in [0.041, 0.105]."""
    _binom_tail_against_summation()
    r_chern, r_target, r_claim2 = [], [], []
    with mpmath.workdps(DPS):
        for alpha, tau, beta in _grid():
            kappa = alpha / 4
            n_min = int(mpmath.ceil(24 * mpmath.log(3 / beta) / (kappa * tau)))
            for frac in (1, mpmath.mpf(1) / 2, mpmath.mpf(1) / 4):
                eta = frac * kappa * tau / 8
                dlt = kappa * tau / (4 * eta) - 1
                for n in sorted({n_min, n_min + 1, int(mpmath.ceil(1.5 * n_min)), 4 * n_min}):
                    k = int(mpmath.floor(kappa * tau * n / 4)) + 1  # F > kappa tau n/4  <=>  F >= k
                    exact = binom_upper_tail(n, eta, k)
                    chern = mpmath.exp(-eta * n * dlt / 3)
                    assert exact <= chern, (alpha, tau, beta, frac, n, exact, chern)
                    assert chern <= beta / 3 * (1 + mpmath.mpf(10) ** -40)
                    r_chern.append(float(exact / chern))
                    if frac == 1 and n == n_min:
                        r_target.append(float(exact / (beta / 3)))
            # App. H Claim 2
            eta2 = alpha * tau / 32
            n2 = int(mpmath.ceil(96 * mpmath.log(4 / beta) / (alpha * tau)))
            for n in (n2, n2 + 1, 2 * n2):
                exact = binom_upper_tail(n, eta2, int(mpmath.floor(2 * eta2 * n)) + 1)
                assert exact <= mpmath.exp(-eta2 * n / 3) <= beta / 4 * (1 + mpmath.mpf(10) ** -40)
                if n == n2:
                    r_claim2.append(float(exact / (beta / 4)))
    assert 0 < min(r_chern) and max(r_chern) < 0.07, (min(r_chern), max(r_chern))
    assert 0.02 < min(r_target) and max(r_target) < 0.07, (min(r_target), max(r_target))
    assert 0.03 < min(r_claim2) and max(r_claim2) < 0.11, (min(r_claim2), max(r_claim2))


def _gauss_tail(c, xi):
    """Pr[|N(0, 1)| > c sqrt(ln(1/xi))] exactly: erfc(c sqrt(ln(1/xi)/2))."""
    return mpmath.erfc(c * mpmath.sqrt(mpmath.log(1 / xi) / 2))


@checks("bun2020.thm26.gauss", "bun2020.thm34.claim3")
def check_thm26_gaussian_tail_mpmath():
    """App. C: at HS-StL's xi = beta tau^2/(3072 ln(1/kappa)) over the same (alpha, tau, beta) grid: the exact normal
    tail Pr[|nu.u| > c sigma sqrt(ln 1/xi)] <= 2 xi^(c^2/2) <= xi at c = 2 and at c = 10 (the largest c keeping
    tau/4 - c tau/80 >= tau/8); exact/xi <= 7.1e-7 at c = 2 and <= 3e-257 at c = 10; exact/(2 xi^2) in [0.044, 0.057]
    at c = 2; the smallest c with exact tail = xi is c* in [1.305, 1.341] (c = 10 has a huge margin).  The union
    bound: xi T <= beta/3 with T = 1024 ln(1/kappa)/tau^2 exactly, and with HS-StL's T = ceil(...) xi T exceeds
    beta/3 by the factor ceil(x)/x in [1 + 5e-7, 1 + 2.6e-5] on the grid (harmless rounding; misprint-level)."""
    cstar, excess, r2, r10 = [], [], [], []
    with mpmath.workdps(DPS):
        assert mpmath.mpf(1) / 4 - mpmath.mpf(10) / 80 == mpmath.mpf(1) / 8  # c = 10 is the break-even constant
        for alpha, tau, beta in _grid():
            kappa = alpha / 4
            xi = beta * tau**2 / (3072 * mpmath.log(1 / kappa))
            for c in (2, 10):
                exact = _gauss_tail(c, xi)
                bound = 2 * xi ** (mpmath.mpf(c) ** 2 / 2)
                assert exact <= bound <= xi, (alpha, tau, beta, c)
                (r2 if c == 2 else r10).append(exact / xi)
            cs = mpmath.findroot(lambda c: mpmath.log(_gauss_tail(c, xi)) - mpmath.log(xi), (0.5, 5), solver="anderson")
            cstar.append(float(cs))
            x = 1024 * mpmath.log(1 / kappa) / tau**2
            assert xi * x <= beta / 3 * (1 + mpmath.mpf(10) ** -45)
            T = int(mpmath.ceil(x))
            assert T == PB.hsstl_parameters(float(alpha), float(beta), float(tau))["T"]
            excess.append(float(xi * T / (beta / 3)))
    assert 1.3 < min(cstar) and max(cstar) < 1.35, (min(cstar), max(cstar))
    assert 1.0 < min(excess) and max(excess) < 1 + 3e-5, (min(excess), max(excess))
    assert max(r2) < 1e-6 and max(r10) < mpmath.mpf(10) ** -250, (max(r2), max(r10))
