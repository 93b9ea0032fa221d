"""bun2020 sample-complexity and imported-theorem formulas, checked at formula level (catalogue "sample-complexity
formula" claims): Theorem 23 (BST98) solved exactly in 50-digit mpmath, Theorems 25/26 as the max of their three exact
constraints, Theorem 31's preconditions (and its vacuity for eps >= 1/18) with an empirical SQ sanity check, the
Theorem 33 chain (Lemma 14 + Lemma 15 + Theorem 31), Claim 4's parameter selection in exact fractions (A12), Lemma 55
by exact enumeration on |U| = 3, k <= 4, and Theorem 57's per-round budget through advanced composition.

Every figure asserted here is also recorded in the registry's finding (spec/claims.d/bun2020.toml)."""
import math
from fractions import Fraction

import mpmath
import numpy as np

import fast.accounting as A
import fast.private_boosting as PB
from spec.links import checks

mpmath.mp.dps = 50


# ---------------------------------------------------------------------------------------------- Theorem 23 (BST98)
def bst98_rhs(n, k, d_fat, delta):
    """k/n + sqrt((2/n)(d ln(34 e n/d) log2(578 n) + ln(4/delta)))   [bun2020 Thm 23, BST98; log2 per the catalogue]"""
    n, k, d_fat, delta = (mpmath.mpf(v) for v in (n, k, d_fat, delta))
    return k / n + mpmath.sqrt(2 / n * (d_fat * mpmath.log(34 * mpmath.e * n / d_fat) * mpmath.log(578 * n, 2)
                                        + mpmath.log(4 / delta)))


def bst98_n_min(alpha, d_fat, delta):
    """smallest n >= d with k/n = alpha/2 and bst98_rhs <= alpha (the sqrt term <= alpha/2; it decreases in n >= d)."""
    def ok(n):
        return bst98_rhs(n, mpmath.mpf(alpha) / 2 * n, d_fat, delta) <= alpha

    lo, hi = max(1, math.ceil(d_fat)), max(2, math.ceil(d_fat))
    while not ok(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


@checks("bun2020.thm23")
def check_thm23_bst98_exact_solve():
    """The BST98 bound with k/n = alpha/2 is solved for the smallest n exactly (it holds at n_min and fails at
    n_min - 1, 50 digits); the sqrt term decreases in n on [d, 64 n_min]; at HS-StL's fat-shattering dimension
    d = fat(tau/128) <= 65536/tau^2 (Lemma 24) and confidence beta/3 the bound needs n_min = 4,854,120,700,430 at
    tau = alpha = 0.1 (7.4e5 x d), and 3.2e7 to 7.8e7 x the Theorem 25 accuracy term
    log(1/(tau alpha)) log(1/alpha)/(alpha^2 tau^2) over alpha, tau in {0.05, 0.1, 0.2} (a drift of 2.5x: the polylog
    of n the O~ hides)."""
    ratios = {}
    for alpha in (0.05, 0.1, 0.2):
        for tau in (0.05, 0.1, 0.2):
            d_fat = 65536 / tau**2
            n = bst98_n_min(alpha, d_fat, 0.05 / 3)
            assert bst98_rhs(n, alpha / 2 * n, d_fat, 0.05 / 3) <= alpha < bst98_rhs(n - 1, alpha / 2 * (n - 1), d_fat,
                                                                                     0.05 / 3)
            grid = [int(v) for v in np.geomspace(d_fat, 64 * n, 25)]
            sq = [bst98_rhs(m, 0, d_fat, 0.05 / 3) for m in grid]
            assert all(a > b for a, b in zip(sq, sq[1:]))
            ratios[(alpha, tau)] = n / (math.log(1 / (tau * alpha)) * math.log(1 / alpha) / (alpha**2 * tau**2))
    assert 3.1e7 <= min(ratios.values()) and max(ratios.values()) <= 8e7, ratios
    assert bst98_n_min(0.1, 65536 / 0.01, 0.05 / 3) == 4_854_120_700_430


# ---------------------------------------------------------------------------------------------- Theorems 25 / 26
def hsstl_exact_n(alpha, beta, tau, epsilon, delta, d=None):
    """(n, parts): the three exact constraints of Theorem 26's proof (catalogue): privacy (thm26.privacy-n, continuous
    or on the library's grid with d), Chernoff 24 ln(3/beta)/(kappa tau), BST98 with k/n <= alpha/2, d = 65536/tau^2,
    confidence beta/3."""
    kappa = alpha / 4
    parts = {"privacy": PB.hsstl_n_min(epsilon, delta, alpha, beta, tau, d=d),
             "chernoff": math.ceil(24 * math.log(3 / beta) / (kappa * tau)),
             "bst98": bst98_n_min(alpha, 65536 / tau**2, beta / 3)}
    return max(parts.values()), parts


@checks("bun2020.thm25", "bun2020.thm26")
def check_thm26_exact_sample_size():
    """Theorem 26's n as the max of its exact constraints: at (alpha, beta, tau, eps, delta) = (0.1, 0.05, 0.1, 1,
    1e-6) privacy needs 1,732,084,834 (continuous), Chernoff 39,306, BST98 4,854,120,700,430: the ACCURACY
    (generalisation) term dominates by 2,802x, so the privacy-driven n = O~(1/(eps alpha tau^2)) is not what the proof
    delivers at practical eps (Theorem 25's extra 1/(alpha^2 tau^2) term, cf. thm1).  Privacy dominates only for
    eps below ~3.5e-4 (1e-3: BST98; 1e-4: privacy, 1.7e13).  With the library's run grid (d = 1; issue 25) eps = 5
    needs 369,580,991 (the old grid 11 bits below sigma: 508,510,021), still far below BST98."""
    n, parts = hsstl_exact_n(0.1, 0.05, 0.1, 1.0, 1e-6)
    assert parts["privacy"] == 1_732_084_834 and parts["chernoff"] == 39_306
    assert n == parts["bst98"] == 4_854_120_700_430 and 2800 <= parts["bst98"] / parts["privacy"] <= 2805, parts
    n3, parts3 = hsstl_exact_n(0.1, 0.05, 0.1, 1e-3, 1e-6)
    assert n3 == parts3["bst98"] > parts3["privacy"]
    small, parts_small = hsstl_exact_n(0.1, 0.05, 0.1, 1e-4, 1e-6)
    assert small == parts_small["privacy"] > parts_small["bst98"]  # privacy dominates at eps = 1e-4
    n5, parts5 = hsstl_exact_n(0.1, 0.05, 0.1, 5.0, 1e-6, d=1)
    assert parts5["privacy"] == 369_580_991 and n5 == parts5["bst98"]


# ---------------------------------------------------------------------------------------------- Theorem 31 / Claim 4
def thm31_preconditions(epsilon, delta, n):
    """0 < eps < 1/3, 0 < delta < eps/4, n >= ln(4 eps/delta)/eps^2   [bun2020 Thm 31, Bassily et al. 2016]"""
    return 0 < epsilon < 1 / 3 and 0 < delta < epsilon / 4 and n >= math.log(4 * epsilon / delta) / epsilon**2


def thm31_n_min(epsilon, delta):
    return math.ceil(math.log(4 * epsilon / delta) / epsilon**2)


@checks("bun2020.thm31")
def check_thm31_preconditions_vacuity_and_sq_sanity():
    """Theorem 31 (imported, not re-proved): its preconditions hold at n_min and fail at n_min - 1; the conclusion
    |q(S) - q(D)| <= 18 eps is VACUOUS for eps >= 1/18 (SQs are in [0, 1]), so only eps < 0.0556 says anything;
    empirically (a Laplace report-noisy-max choosing among 50 threshold SQs on n = n_min(0.05, 1e-3) = 2,120 uniform
    points, 2,000 trials) the worst deviation is <= 0.07, far inside 18 eps = 0.9 (Pr = 0 < delta/eps = 0.02)."""
    for eps, dl in ((0.05, 1e-3), (0.2, 1e-6), (0.3, 0.05)):
        n = thm31_n_min(eps, dl)
        assert thm31_preconditions(eps, dl, n) and not thm31_preconditions(eps, dl, n - 1)
    assert not thm31_preconditions(1 / 3, 1e-6, 10**9) and not thm31_preconditions(0.1, 0.025, 10**9)
    assert 18 * (1 / 18) >= 1.0  # from eps = 1/18 on the conclusion is implied by q in [0, 1]
    eps, dl = 0.05, 1e-3
    n = thm31_n_min(eps, dl)
    assert n == 2120
    rng = np.random.default_rng(31)
    thresholds = np.linspace(0.02, 0.98, 50)  # q_c(x) = 1[x <= c]; q_c(D) = c for D = U[0, 1]
    worst = 0.0
    for _ in range(2000):
        x = np.sort(rng.uniform(size=n))
        qs = np.searchsorted(x, thresholds, side="right") / n
        c = int(np.argmax(qs - thresholds + rng.laplace(scale=2 / (n * eps), size=50)))  # eps-DP selection
        worst = max(worst, abs(qs[c] - thresholds[c]))
    assert worst <= 0.07 < 18 * eps, worst


@checks("bun2020.thm34.claim4")
def check_thm34_claim4_parameter_selection():
    """Claim 4 with App. H's selection eps' = min(eps, alpha/36), delta_T = min(delta, eps' beta/4), in exact fractions
    over eps x delta x alpha x beta: Theorem 31's preconditions hold, delta_T/eps_T <= beta/4 and the test error
    alpha/2 + 18 eps' <= alpha; with the OCR's beta/2 the failure budget is beta/4 (Claim 2) + beta/2 (Claim 3) +
    beta/2 > beta (A12: beta/4 is needed).  At (eps, delta, alpha, beta) = (1, 1e-6, 0.1, 0.05): eps' = 1/360 and
    Claim 4 needs n >= 1,207,315 (ln(4 eps'/delta)/eps'^2), far below the privacy n (Claim 1)."""
    for eps in (Fraction(1, 100), Fraction(1, 10), Fraction(1), Fraction(5)):
        for dl in (Fraction(1, 10**3), Fraction(1, 10**6), Fraction(1, 10**12)):
            for alpha in (Fraction(1, 20), Fraction(1, 10), Fraction(3, 10)):
                for beta in (Fraction(1, 100), Fraction(1, 20), Fraction(1, 5)):
                    e_t = min(eps, alpha / 36)
                    d_t = min(dl, e_t * beta / 4)
                    assert 0 < e_t < Fraction(1, 3) and 0 < d_t < e_t / 4
                    assert d_t / e_t <= beta / 4 and alpha / 2 + 18 * e_t <= alpha
                    assert beta / 4 + beta / 4 + beta / 4 + d_t / e_t <= beta  # claims 2, 3 (<= beta/4 by xi T), 4
                    assert beta / 4 + beta / 2 + beta / 2 > beta  # the OCR's beta/2 would not fit (A12)
    e_t = 0.1 / 36
    assert thm31_n_min(e_t, 1e-6) == 1_207_315


# ---------------------------------------------------------------------------------------------- Theorem 33
def thm33_epsilon(rho, T, delta):
    """eps = rho T + 2 sqrt(rho T ln(1/delta))  (Lemma 14: T rounds of rho; Lemma 15: conversion)"""
    r = rho * T
    return r + 2 * math.sqrt(r * math.log(1 / delta))


@checks("bun2020.thm33")
def check_thm33_composition_chain():
    """Theorem 33 at formula level: eps = rho T + 2 sqrt(rho T ln(1/delta)) is O(sqrt(rho T ln(1/delta))) with constant
    exactly 2 + sqrt(rho T/ln(1/delta)) (in [2, 2.3] whenever eps < 1/3, Thm 31's precondition); it agrees with the
    library's Lemma 15 conversion and is >= the tight one; n >= ln(4 eps/delta)/eps^2 then gives
    Pr_D[H(x) != y] <= alpha + 18 eps w.p. >= 1 - beta - delta/eps.  At HS-StL's (0.1, 0.05, 0.1) with the Claim 4
    target eps = 1/360, delta = 1e-6 the privacy side needs n = 612,688,589,196 (continuous accounting), the
    generalisation side 1,207,315: privacy dominates there."""
    for rho, T, dl in ((1e-6, 100, 1e-6), (1e-8, 377_742, 1e-6), (1e-4, 10, 1e-9), (3e-7, 1000, 1e-3)):
        eps = thm33_epsilon(rho, T, dl)
        c = eps / math.sqrt(rho * T * math.log(1 / dl))
        assert math.isclose(c, 2 + math.sqrt(rho * T / math.log(1 / dl)), rel_tol=1e-12)
        assert math.isclose(eps, A.zcdp_to_dp(rho * T, dl), rel_tol=1e-12) and A.zcdp_to_dp_tight(rho * T, dl) <= eps
        if eps < 1 / 3:
            assert 2 <= c <= 2.3
    e_t = 0.1 / 36
    n_priv = PB.hsstl_n_min(e_t, 1e-6, 0.1, 0.05, 0.1)
    assert n_priv == 612_688_589_196 and thm31_n_min(e_t, 1e-6) == 1_207_315


# ---------------------------------------------------------------------------------------------- Lemma 55
def _count_mechanism(k, eps, pad=60):
    """M(u) = clamp(sum_j u_j + Z, -pad, 2k + pad), Z ~ DLap(e^{-eps/2}) (sum of u in {0,1,2}^k: replace-one
    sensitivity 2, so eps-DP; the clamp is post-processing): a matrix P[s, o] over s = 0..2k."""
    a = math.exp(-eps / 2)
    outs = np.arange(-pad, 2 * k + pad + 1)
    P = np.empty((2 * k + 1, outs.size))
    for s in range(2 * k + 1):
        z = outs - s
        p = (1 - a) / (1 + a) * a ** np.abs(z)
        p[0] = a ** (s + pad) / (1 + a)  # Pr[s + Z <= -pad]
        p[-1] = a ** (2 * k + pad - s) / (1 + a)  # Pr[s + Z >= 2k + pad]
        P[s] = p
    return P


def _sum_law(dist, k):
    law = np.array([1.0])
    for _ in range(k):
        law = np.convolve(law, dist)
    return law


@checks("bun2020.lemma55")
def check_lemma55_enumeration():
    """Lemma 55 (reconstructed constants, A18) by exact enumeration at delta = 0: |U| = 3, k = 1..4, M an eps-DP
    (replace-one) noisy count of sum u_j, eps in {0.1, 0.25, 0.5}; A, B over 300 random pairs per (k, eps) plus the
    adversarial point masses, with TV(A, B) = zeta; the smallest c with Pr[M(A^k) in S] <= c Pr[M(B^k) in S] for all S
    (max likelihood ratio) satisfies ln c <= 2 eps k zeta everywhere; the largest ln c/(eps k zeta) seen is 1.265
    (the reconstructed factor 2 is not attained on these instances: slack 1.58x)."""
    rng = np.random.default_rng(55)
    worst = 0.0
    for k in (1, 2, 3, 4):
        for eps in (0.1, 0.25, 0.5):
            P = _count_mechanism(k, eps)
            pairs = [(np.array([1.0, 0, 0]), np.array([0, 0, 1.0])), (np.array([1.0, 0, 0]), np.array([0.5, 0, 0.5]))]
            for _ in range(300):
                a = rng.dirichlet(np.full(3, 0.5))
                b = rng.dirichlet(np.full(3, 0.5)) if rng.uniform() < 0.5 else \
                    np.clip(a + rng.uniform(-0.2, 0.2, 3), 0, None)
                pairs.append((a, b / b.sum()))
            for a, b in pairs:
                zeta = 0.5 * float(np.abs(a - b).sum())
                if zeta < 1e-9:
                    continue
                pa, pb = _sum_law(a, k) @ P, _sum_law(b, k) @ P
                log_c = float(np.max(np.log(pa) - np.log(pb)))
                assert log_c <= 2 * eps * k * zeta * (1 + 1e-9), (k, eps, a, b, log_c)
                worst = max(worst, log_c / (eps * k * zeta))
    assert 1.2 <= worst <= 1.3, worst


# ---------------------------------------------------------------------------------------------- Theorem 57
@checks("bun2020.thm57")
def check_thm57_per_round_budget():
    """Theorem 57 at formula level: T rounds at eps* = eps/sqrt(8 T ln(1/delta')) compose (Thm 48, the library's
    advanced composition) to <= eps whenever eps <= 1 (the first term is exactly eps/2, the second T eps*(e^eps* - 1)
    <= eps/2 iff eps <~ 4 ln(1/delta')), over eps x T x delta'; Iter-S's per-round 2 m eps_b/(kappa n) <= eps* needs
    n >= 2 sqrt(8) m eps_b sqrt(T ln(1/delta'))/(kappa eps) = 5.657 x the Omega() form (kappa = alpha^)."""
    for eps in (0.1, 0.5, 1.0):
        for T in (1, 10, 100, 10_000):
            for dp in (1e-3, 1e-6, 1e-10):
                e_star = eps / math.sqrt(8 * T * math.log(1 / dp))
                total, _ = A.advanced_composition_thm48(e_star, 0.0, T, dp)  # the paper's formula
                assert total <= eps, (eps, T, dp, total)
                first = math.sqrt(2 * T * math.log(1 / dp)) * e_star
                assert math.isclose(first, eps / 2, rel_tol=1e-12)
    m, eps_b, kappa, T, dp, eps = 50, 0.5, 0.1, 400, 1e-6, 1.0
    n = 2 * m * eps_b * math.sqrt(8 * T * math.log(1 / dp)) / (kappa * eps)
    per_round = 2 * m * eps_b / (kappa * math.ceil(n))
    assert per_round <= eps / math.sqrt(8 * T * math.log(1 / dp))
    omega = math.sqrt(T * math.log(1 / dp)) * eps_b * m / (eps * kappa)
    assert math.isclose(n / omega, 4 * math.sqrt(2), rel_tol=1e-12)
