"""Second derivations of the findings graded ``error`` (issue 27 item 4): for each, a derivation that shares no code
with the first check (it imports no other ``proofs_checks`` module; only the public library, numpy / scipy /
sympy / mpmath / scikit-learn, or nothing) and uses a different method -- a numerical integral instead of a closed
form, scikit-learn's kernel ridge instead of the library's algebra, a Monte Carlo of the public sampler against a
closed form, an exhaustive enumeration, scipy's Fisher test.  Each function is named ``check_<claim>_second`` and
linked to its claim, so the report lists it next to the first derivation.  Where the two disagree, the finding
says so (none disagree on what is checked here; what a second derivation does not reproduce is said in its
docstring)."""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from spec.links import checks


# --------------------------------------------------------------------------- kusner2016 ch. 4: PTR threshold
def _laplace_tail(eps, t):
    """Pr[Lap(1/eps) > t] by numerical integration of the density eps/2 e^(-eps |u|) (not the closed form)."""
    with mpmath.workdps(40):
        eps = mpmath.mpf(eps)
        return mpmath.quad(lambda u: eps / 2 * mpmath.exp(-eps * abs(u)), [t, t + 50 / eps, mpmath.inf])


def _two_tests_release(eps, delta, threshold):
    """Pr[at least one of the two bin tests passes] when A_1 = A_2 = 1: 1 + Lap > cut, independently."""
    cut = 1 + (math.log(1 / delta) if threshold == "printed" else math.log(1 / delta) / eps)
    p = _laplace_tail(eps, cut - 1)
    return 1 - (1 - p) ** 2, p


@checks("kusner2016.ch4.thm6_1")
def check_kusner2016_ch4_thm6_1_second():
    """P[release | A_1 = A_2 = 1] by quadrature of the Laplace density: the printed threshold 1 + ln(1/delta) gives
    p = delta^eps/2 per test and 1 - (1 - p)^2 = 0.44 at eps = 0.1, delta = 1e-3 (293x the claimed 3 delta/2); the
    crossing eps*(delta) where it equals 3 delta/2, found by mpmath.findroot, is 0.911 / 0.941 / 0.965 at delta =
    1e-2 / 1e-3 / 1e-5; the corrected threshold 1 + ln(1/delta)/eps gives p = delta/2 and <= delta.  Agrees with the
    finding."""
    rel, p = _two_tests_release(0.1, 1e-3, "printed")
    assert math.isclose(p, 1e-3 ** 0.1 / 2, rel_tol=1e-12)
    assert 0.43 < rel < 0.45 and 290 < rel / 1.5e-3 < 296
    for delta, expected in ((1e-2, 0.911), (1e-3, 0.941), (1e-5, 0.965)):
        root = mpmath.findroot(lambda e: 1 - (1 - _laplace_tail(e, math.log(1 / delta))) ** 2 - 1.5 * delta, 0.9)
        assert abs(float(root) - expected) < 1e-3, (delta, root)
    for eps, delta in ((0.1, 1e-3), (0.5, 1e-5), (2.0, 1e-2)):
        rel, p = _two_tests_release(eps, delta, "corrected")
        assert math.isclose(p, delta / 2, rel_tol=1e-12) and rel <= delta


def _unstable_sample():
    """The finding's test set: IQR 4e-60 with A_1 = A_2 = 1 (one substitution leaves both bins)."""
    return np.array([-1.0, 1e-60, 2e-60, 3e-60, 4e-60, 5e-60, 1.0, 1.0])


@checks("kusner2016.ch4.alg4")
def check_kusner2016_ch4_alg4_second():
    """(1) the printed B2 = [e^(k-1/2), e^(k+1/2)), k = floor(ln IQR), misses IQR = e^0.7 (direct arithmetic); (2)
    Monte Carlo of the PUBLIC ``iqr_ptr(threshold="thesis")`` on a sample with A_1 = A_2 = 1 (checked with the
    public ``iqr_bin_distance``): it releases in 0.44 +- 0.03 of 3,000 runs at eps = 0.1, delta = 1e-3, matching
    the quadrature 1 - (1 - delta^eps/2)^2 (its neighbour, one substitution out of both bins, returns bottom
    except with probability delta/2-ish: the guarantee (3 eps, delta) fails); corrected: 0 releases in 3,000."""
    from fast import causal as fc
    from fast import causal_privacy as fp

    q = math.exp(0.7)
    k = math.floor(math.log(q))
    assert not (math.exp(k - 0.5) <= q < math.exp(k + 0.5))
    assert all(lo <= q < hi for lo, hi in fp.iqr_bins(q))  # the library's bins contain it
    v = _unstable_sample()
    qv = fc.iqr(v)
    assert [fp.iqr_bin_distance(v, lo, hi) for lo, hi in fp.iqr_bins(qv)] == [1, 1]
    rng = np.random.default_rng(27)
    n = 3000
    printed = sum(fp.iqr_ptr(v, epsilon=0.1, delta=1e-3, rng=rng, threshold="thesis") is not None for _ in range(n))
    expected, _ = _two_tests_release(0.1, 1e-3, "printed")
    assert abs(printed / n - float(expected)) < 0.03, (printed / n, expected)
    corrected = sum(fp.iqr_ptr(v, epsilon=0.1, delta=1e-3, rng=rng) is not None for _ in range(n))
    assert corrected <= 3  # expected 3000 x ~1e-3 = 1.5 at most


@checks("kusner2016.ch4.iqr_compose")
def check_kusner2016_ch4_iqr_compose_second():
    """The direct violation, re-derived in closed form (mpmath) from the public ``iqr`` / ``iqr_bin_distance``:
    regressors 0 make all four log-IQRs the IQR of x' = y'; on D (IQR 4e-60, A_1 = A_2 = 1) each of the four
    releases happens w.p. R = 1 - (1 - delta^eps/2)^2 and then lies below -68 w.p. 1 - e^(eps (ln q + 68))/2;
    on D' (the record (1e-60, 1e-60) -> (1, 1): IQR ~1) a release lies below -68 w.p. <= e^(-eps (68 + ln q'))/2.
    P_D(E) - e^(9 eps) P_D'(E) = 4.0e-5 > 3 delta and <= 4 delta at 12 eps (eps = 1, delta = 1e-5): agrees."""
    from fast import causal as fc
    from fast import causal_privacy as fp

    eps, delta = 1.0, 1e-5
    v = _unstable_sample()
    v2 = v.copy()
    v2[1] = 1.0
    q, q2 = fc.iqr(v), fc.iqr(v2)
    assert math.isclose(q, 4e-60, rel_tol=1e-9) and q2 > 0.5
    assert [fp.iqr_bin_distance(v, lo, hi) for lo, hi in fp.iqr_bins(q)] == [1, 1]
    with mpmath.workdps(40):
        e = mpmath.mpf(eps)
        p = mpmath.mpf(delta) ** e / 2
        R = 1 - (1 - p) ** 2
        assert mpmath.log(q) < -68
        below = 1 - mpmath.exp(e * (mpmath.log(q) + 68)) / 2  # Pr[ln q + Lap < -68]
        pd = 1 - (1 - R * below) ** 4
        pd2 = 1 - (1 - mpmath.exp(-e * (68 + mpmath.log(q2))) / 2) ** 4  # upper bound: released for sure
        gap9 = pd - mpmath.exp(9 * e) * pd2
        gap12 = pd - mpmath.exp(12 * e) * pd2
    assert 3.9e-5 < gap9 < 4.1e-5 and gap9 > 3 * delta
    assert gap12 <= 4 * delta


# --------------------------------------------------------------------------- kusner2016 ch. 4: KRR sensitivity
def _krr_prediction(K, y, lam, n):
    """Kernel ridge predictions at the training points, by scikit-learn (alpha = n lambda / 2: the thesis's
    objective (1/n) sum (y - f)^2 + (lambda/2) ||f||^2, whose minimiser is K (K + n lambda/2 I)^-1 y)."""
    from sklearn.kernel_ridge import KernelRidge

    model = KernelRidge(alpha=n * lam / 2, kernel="precomputed").fit(K, y)
    return model.predict(K), model.dual_coef_


@checks("kusner2016.ch4.thm7")
def check_kusner2016_ch4_thm7_second():
    """scikit-learn's KernelRidge on the isolated-record construction (K = I: the changed record shares no kernel
    mass, all y = 1, its label flipped, the test point at it): the prediction there moves by exactly
    4/(n lambda + 2), above the printed 8/(n lambda^(3/2)) at lambda = 4.5, n = 10 (0.0851 vs 0.0838) and lambda =
    5, n = 4 (0.1818 vs 0.1789); sympy: 4/(n lambda + 2) > 8/(n lambda^(3/2)) iff lambda^(3/2) > 2 lambda + 4/n,
    whose threshold tends to 4 as n grows and is 6.73 at n = 1.  The corrected (4/(n lambda))(1 + 1/sqrt(2
    lambda)) holds on 300 random RBF neighbours (n = 6, any substitution).  Agrees with the finding."""
    for lam, n, moved, printed in ((4.5, 10, 0.0851, 0.0838), (5.0, 4, 0.1818, 0.1789)):
        y = np.ones(n)
        y2 = y.copy()
        y2[0] = -1.0
        f, _ = _krr_prediction(np.eye(n), y, lam, n)
        f2, _ = _krr_prediction(np.eye(n), y2, lam, n)
        assert math.isclose(abs(f[0] - f2[0]), 4 / (n * lam + 2), rel_tol=1e-9)
        assert round(abs(f[0] - f2[0]), 4) == moved and round(8 / (n * lam ** 1.5), 4) == printed
    L, N = sp.symbols("lambda n", positive=True)
    assert sp.limit(sp.solve(sp.Eq(sp.sqrt(L), 2), L)[0], N, sp.oo) == 4
    assert abs(float(sp.nsolve(L ** sp.Rational(3, 2) - 2 * L - 4, L, 7)) - 6.73) < 5e-3
    rng = np.random.default_rng(7)
    for lam in (0.1, 1.0, 10.0, 100.0):
        bound = 4 / (6 * lam) * (1 + 1 / math.sqrt(2 * lam))
        for _ in range(75):
            X = rng.uniform(-1, 1, (7, 2))
            y = rng.uniform(-1, 1, 7)
            X2, y2 = X.copy(), y.copy()
            X2[0], y2[0] = rng.uniform(-1, 1, 2), rng.uniform(-1, 1)
            d = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 0.5)
            d2 = np.exp(-((X2[:, None] - X2[None]) ** 2).sum(-1) / 0.5)
            a = np.linalg.solve(d[:6, :6] + 3 * lam * np.eye(6), y[:6])  # train on the first 6, test at all 7
            b = np.linalg.solve(d2[:6, :6] + 3 * lam * np.eye(6), y2[:6])
            from sklearn.kernel_ridge import KernelRidge

            ka = KernelRidge(alpha=3 * lam, kernel="precomputed").fit(d[:6, :6], y[:6])
            assert np.allclose(ka.dual_coef_, a, atol=1e-9)
            # predictions at the 6 training points and the test point, under each training set
            pa = np.exp(-((X[:, None] - X[None, :6]) ** 2).sum(-1) / 0.5) @ a
            pb = np.exp(-((X[:, None] - X2[None, :6]) ** 2).sum(-1) / 0.5) @ b
            assert np.max(np.abs(pa - pb)) <= bound * (1 + 1e-9)


@checks("kusner2016.ch4.appa_wnorm")
def check_kusner2016_ch4_appa_wnorm_second():
    """||w||^2 = alpha^T K alpha from scikit-learn's dual coefficients: <= 1/(2 lambda) (so the printed 1/lambda
    holds) on 200 random RBF sets, with equality at K = I, lambda = 2/n, y = +-1; the conclusion 8/(lambda^(3/2) n)
    is broken by the same isolated record as Theorem 7 (4/(n lambda + 2) > 8/(n lambda^(3/2)) at lambda = 5, n =
    4).  Agrees with the finding."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 12))
        lam = float(10 ** rng.uniform(-2, 2))
        X = rng.uniform(-1, 1, (n, 3))
        K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / rng.uniform(0.1, 2))
        y = rng.uniform(-1, 1, n)
        _, alpha = _krr_prediction(K, y, lam, n)
        assert alpha @ K @ alpha <= 1 / (2 * lam) * (1 + 1e-9)
    n = 8
    _, alpha = _krr_prediction(np.eye(n), np.where(np.arange(n) % 2, 1.0, -1.0), 2 / n, n)
    assert math.isclose(alpha @ alpha, n / 4, rel_tol=1e-12)  # = 1/(2 lambda)
    f, _ = _krr_prediction(np.eye(4), np.ones(4), 5.0, 4)
    f2, _ = _krr_prediction(np.eye(4), np.array([-1.0, 1, 1, 1]), 5.0, 4)
    assert abs(f[0] - f2[0]) > 8 / (5.0 ** 1.5 * 4)


@checks("kusner2016.ch4.dist_lb")
def check_kusner2016_ch4_dist_lb_second():
    """sympy: the printed floor(n gamma lambda^(3/2)/16) is floor(gamma/(2 R)) with Theorem 7's R = 8/(n
    lambda^(3/2)); scikit-learn on n = 10 identical training points (one label flipped) moves a residual by
    4/(n (2 + lambda)), 4.9x that R at lambda = 100, so a gap gamma closes in ~4.9x fewer substitutions than the
    printed distance says (the finding's bound on the factor: 5.35).  Agrees."""
    n_, g, lam = sp.symbols("n gamma lambda", positive=True)
    R = 8 / (n_ * lam ** sp.Rational(3, 2))
    assert sp.simplify(g / (2 * R) - n_ * g * lam ** sp.Rational(3, 2) / 16) == 0
    n, lam_v = 10, 100.0
    K = np.ones((n, n))
    y = np.ones(n)
    y2 = y.copy()
    y2[0] = -1.0
    f, _ = _krr_prediction(K, y, lam_v, n)
    f2, _ = _krr_prediction(K, y2, lam_v, n)
    moved = abs(f[5] - f2[5])
    assert math.isclose(moved, 4 / (n * (2 + lam_v)), rel_tol=1e-9)
    factor = moved / (8 / (n * lam_v ** 1.5))
    assert 4.8 < factor <= (math.sqrt(lam_v) / 2) * (1 + 1 / math.sqrt(2 * lam_v))


@checks("kusner2016.ch4.iqr_train")
def check_kusner2016_ch4_iqr_train_second():
    """By quadrature of the Laplace density: with the printed threshold, A~_1 = A~_2 = 1 against a neighbour that
    always returns bottom (IQR' = 0) releases w.p. 1 - (1 - delta^eps/2)^2 = 316 delta at eps = 0.5, delta = 1e-5
    (the finding's exact worst case); with the corrected threshold, delta (1 - delta/4), the finding's tight
    value, at the four (eps, delta) it lists.  NOT re-derived: the 51,411 delta under the thesis's R at lambda =
    100 (it needs the first check's adversarial grid of IQR positions; no integer A~ with the printed threshold
    gives exactly that ratio: A~ = 11 / 12 give 41,4xx / 62,4xx delta)."""
    rel, _ = _two_tests_release(0.5, 1e-5, "printed")
    assert 315 < rel / 1e-5 < 317
    for eps, delta in ((0.1, 1e-3), (0.5, 1e-5), (1.0, 1e-2), (3.0, 1e-6)):
        rel, _ = _two_tests_release(eps, delta, "corrected")
        assert math.isclose(rel, delta * (1 - delta / 4), rel_tol=1e-9)


# --------------------------------------------------------------------------- nock2015 DP-Feat
@checks("nock2015.thm6")
def check_nock2015_thm6_second():
    """Monte Carlo of the PUBLIC sampler ``dp_feat_rados`` (exact method, 100,000 rados per data set) at m = 50,
    eps = 1, on a data set and its j*-neighbour (one protected value flipped): the plug-in hockey-stick of the
    released j*-coordinate is 0.0475 +- 0.004 both at eps/2 and at eps (delta(eps) = delta(eps/2)), matching
    C(m, k_lo)/Z computed here from the public window (math.comb); outputs that one data set never produces
    occur on the other (no pure DP).  Agrees with the finding."""
    import fast.dp_rados as D

    rng = np.random.default_rng(7)
    m = 50
    X = rng.uniform(-1, 1, (m, 2))
    X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)
    y = np.where(rng.uniform(size=m) > 0.5, 1, -1)
    X1 = X.copy()
    X1[0, 0] = -X[0, 0]
    w = D.dp_feat_window(X, y, 0, 1.0)
    closed = math.comb(m, w.k_lo) / sum(math.comb(m, k) for k in range(w.k_lo, w.k_hi + 1))
    assert abs(closed - 0.0475) < 1e-4
    N = 100_000
    a = D.dp_feat_rados(X, y, 0, N, 1.0, rng=np.random.default_rng(1))[:, 0]
    b = D.dp_feat_rados(X1, y, 0, N, 1.0, rng=np.random.default_rng(2))[:, 0]
    vals = np.union1d(a, b)
    P = np.array([np.mean(a == v) for v in vals])
    Q = np.array([np.mean(b == v) for v in vals])
    for e in (0.5, 1.0):
        est = max(np.maximum(0, P - math.exp(e) * Q).sum(), np.maximum(0, Q - math.exp(e) * P).sum())
        assert abs(est - closed) < 0.004, (e, est, closed)
    assert np.any((P > 0) & (Q == 0)) and np.any((Q > 0) & (P == 0))


# --------------------------------------------------------------------------- bun2020 (utility findings)
@checks("bun2020.lemma24")
def check_bun2020_lemma24_second():
    """The median of ||nu||, nu ~ N(0, sigma^2 I_d), is sigma sqrt(chi2.median(d)) (scipy's chi-square quantile,
    not sampling): with the public HS-StL sigma (3.04e-4 at alpha = 0.1, beta = 0.05, tau = 0.1) it is 0.096 at d
    = 10^5, above tau/8 = 0.0125, and 9.1e-4 below it at d = 10; sympy: 4/g^2 at g = tau/128 is 65536/tau^2.
    Agrees."""
    from scipy import stats

    import fast.private_boosting as PB

    sigma = PB.hsstl_parameters(0.1, 0.05, 0.1)["sigma"]
    assert math.isclose(sigma, 3.04e-4, rel_tol=2e-3)
    big = sigma * math.sqrt(stats.chi2.median(10**5))
    small = sigma * math.sqrt(stats.chi2.median(10))
    assert abs(big - 0.096) < 1e-3 and big > 0.1 / 8 > small
    tau = sp.symbols("tau", positive=True)
    assert sp.simplify(4 / (tau / 128) ** 2 - 65536 / tau ** 2) == 0


# --------------------------------------------------------------------------- kusner2016 ch. 1-2
@checks("kusner2016.ch1.def2")
def check_kusner2016_ch1_def2_second():
    """Exhaustive: on the finding's f (f(empty) = 0, singletons 1, pairs 1, f(V) = 3) (i) f(A) <= sum f(a) holds on
    every A, (ii) the lattice inequality and (iii) diminishing returns both fail; and on EVERY set function on 3
    elements with values in {0, 1, 2, 3} and f(empty) = 0 (4^7 = 16,384 of them), (ii) and (iii) agree while (i)
    differs from them on some.  Agrees."""
    V = (0, 1, 2)
    subsets = [frozenset(s) for r in range(4) for s in itertools.combinations(V, r)]

    def props(f):
        i = all(f[A] <= sum(f[frozenset([a])] for a in A) for A in subsets)
        ii = all(f[A] + f[B] >= f[A | B] + f[A & B] for A in subsets for B in subsets)
        iii = all(f[A | {e}] - f[A] >= f[B | {e}] - f[B] for A in subsets for B in subsets if A <= B
                  for e in V if e not in B)
        return i, ii, iii

    f = {A: (0 if not A else 1 if len(A) < 3 else 3) for A in subsets}
    assert props(f) == (True, False, False)
    differs = 0
    nonempty = subsets[1:]
    for values in itertools.product(range(4), repeat=len(nonempty)):
        g = {frozenset(): 0, **dict(zip(nonempty, values))}
        i, ii, iii = props(g)
        assert ii == iii
        differs += i != ii
    assert differs > 0


@checks("kusner2016.ch2.prefix-budget")
def check_kusner2016_ch2_prefix_budget_second():
    """Exhaustive optimum vs a greedy written here (best gain/cost ratio first, truncated to its largest feasible
    prefix) on the finding's two modular instances: the prefix is EMPTY (s = 0) where {1, 2} reaches 40 (B =
    120), and 2 = 0.02 OPT where OPT = 100 (B = 100).  Agrees."""
    def prefix(values, costs, B):
        order = sorted(range(len(values)), key=lambda e: -values[e] / costs[e])
        total, chosen = 0.0, []
        for e in order:
            if total + costs[e] > B:
                break
            total += costs[e]
            chosen.append(e)
        return sum(values[e] for e in chosen)

    def opt(values, costs, B):
        return max(sum(values[e] for e in S) for r in range(len(values) + 1)
                   for S in itertools.combinations(range(len(values)), r) if sum(costs[e] for e in S) <= B)

    assert (prefix([1000, 10, 30], [200, 10, 100], 120), opt([1000, 10, 30], [200, 10, 100], 120)) == (0, 40)
    assert (prefix([2, 100], [1, 100], 100), opt([2, 100], [1, 100], 100)) == (2, 100)


# --------------------------------------------------------------------------- winvector2015
@checks("winvector2015.sigprune.claims")
def check_winvector2015_sigprune_claims_second():
    """scipy's Fisher exact test (two-sided) on the level's 2x2 table, N = 2000: a singleton of the minority class
    has p = T/N exactly (0.01 at prevalence 0.01, 0.3 at 0.3: kept at rareSig 0.3 -- (a) false), a majority
    singleton p = 1; the (1+, 1-) level p = 1 at prevalence 0.5 and 0.0199050 at 0.01 ((b) holds).  Agrees."""
    from scipy.stats import fisher_exact

    N = 2000
    for T in (20, 200, 600):
        p = fisher_exact([[1, 0], [T - 1, N - T]])[1]
        assert math.isclose(p, T / N, rel_tol=1e-9), (T, p)
        assert fisher_exact([[0, 1], [T, N - T - 1]])[1] == pytest.approx(1.0)
    assert fisher_exact([[1, 1], [999, 999]])[1] == pytest.approx(1.0)
    assert round(fisher_exact([[1, 1], [19, 1979]])[1], 7) == 0.0199050


# --------------------------------------------------------------------------- nock2015 Theorem 7 (rejection count)
@checks("nock2015.thm7")
def check_nock2015_thm7_second():
    """Simulation instead of the negative-binomial cdf: m = 5, eps = 10 (beta = 1/(1 + e^5)), the acceptance window
    K = #{sigma_i = +1} in [ceil(beta (m + 1)), m - ceil(beta (m + 1))] = [1, 4] (the public dp_feat_window agrees),
    200,000 runs of the paper's rejection sampling (uniform sigma in {-1, 1}^5 until n = 10 accepted): the empirical
    0.95-quantile of the trials is 12, while the reconstructed bound (computed here and by the public
    theorem7_bound) is 10 = n, i.e. it asserts no rejection though 1 - (30/32)^10 = 48 % of runs reject.  Agrees
    (the finding's m = 5, eps = 10, eta = 0.05, n = 10: quantile 12 > bound 10)."""
    import fast.dp_rados as D

    m, eps, eta, n = 5, 10.0, 0.05, 10
    beta = 1 / (1 + math.exp(eps / 2))
    k_lo = math.ceil(beta * (m + 1))
    k_hi = m - k_lo
    X = np.ones((m, 1))
    y = np.array([1, 1, -1, 1, -1])
    w = D.dp_feat_window(X, y, 0, eps)
    assert (w.k_lo, w.k_hi) == (k_lo, k_hi) == (1, 4)
    n_star = eta * (1 - math.exp(2 * beta - 1)) / (4 * beta)
    kl = (1 - beta) * math.log((1 - beta) / 0.5) + beta * math.log(beta / 0.5)
    bound = n if n <= n_star else n * math.ceil(math.log(n / n_star) / (m * kl))
    assert bound == D.theorem7_bound(n, m, eps, eta) == 10
    rng = np.random.default_rng(11)
    runs, trials = 200_000, np.zeros(200_000, dtype=np.int64)
    accepted = np.zeros(runs, dtype=np.int64)
    while np.any(accepted < n):
        live = accepted < n
        K = rng.binomial(m, 0.5, size=int(live.sum()))  # K of a uniform signature
        trials[live] += 1
        accepted[live] += (K >= k_lo) & (K <= k_hi)
    q = int(np.quantile(trials, 1 - eta, method="inverted_cdf"))
    assert q == 12 > bound
    assert abs(np.mean(trials > n) - (1 - (30 / 32) ** n)) < 0.01


# --------------------------------------------------------------------------- kusner2016 ch. 3: SNC gradients
def _snc_symbolic(n=4, m=3, d=2):
    """L = -sum_i log p_i, p_i = sum_{j: c_j = y_i} P_ij, P_ij = softmax_j(-gamma2 ||A(x_i - z_j)||^2), written here
    in sympy (A a full d x d matrix of symbols; A = I gives L(Z) at gamma2)."""
    Z = sp.Matrix(m, d, lambda j, k: sp.Symbol(f"z{j}{k}"))
    A = sp.Matrix(d, d, lambda a, b: sp.Symbol(f"a{a}{b}"))
    g2 = sp.Symbol("g2", positive=True)
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (n, d)).round(3)
    y = np.array([0, 1, 0, 1][:n])
    c = np.array([0, 1, 0][:m])
    L = 0
    for i in range(n):
        e = [sp.exp(-g2 * sum(v ** 2 for v in A * (sp.Matrix(X[i]) - Z[j, :].T))) for j in range(m)]
        L += -sp.log(sum(e[j] for j in range(m) if c[j] == y[i]) / sum(e))
    return L, Z, A, g2, X, y, c


def _m_matrix(X, y, Zv, c, Av, g2):
    """M = Q o P with P the softmax above and Q_ij = 1[c_j = y_i]/p_i - 1, in numpy (from the definitions)."""
    D2 = np.array([[np.sum((Av @ (x - z)) ** 2) for z in Zv] for x in X])
    P = np.exp(-g2 * D2)
    P /= P.sum(1, keepdims=True)
    same = (y[:, None] == c[None, :])
    p = (P * same).sum(1, keepdims=True)
    return P * (same / p - 1)


@checks("kusner2016.ch3.eq6", "kusner2016.ch3.eq8", "kusner2016.ch3.eq9")
def check_kusner2016_ch3_gradients_second():
    """Symbolic differentiation (sympy) of L and L_A written from the definitions (and equal to the public
    snc_loss / snc_metric_loss: the same objective), not finite differences: at three random points, gamma^2 in
    {0.7, 1, 2.5}, with the bracket B = M^T X - diag(M^T 1) Z (M = Q o P from the definitions in numpy):
    (3.6) printed 2 B = exact gradient / (-gamma^2); (3.8) printed -2 A sum_ij M_ij v_ij v_ij^T = -(exact dL_A/dA);
    (3.9) printed 2 A^T A (3.6) = 4 B_A A^T A = -2 x exact dL_A/dZ.  Agrees with the three findings."""
    import fast.snc as S

    L, Z, A, g2, X, y, c = _snc_symbolic()
    m, d = Z.shape
    args = (list(Z), list(A), g2)  # flat symbol lists: called with Zv.ravel(), Av.ravel()
    fz = sp.lambdify(args, sp.Matrix(m, d, lambda j, k: sp.diff(L, Z[j, k])), "numpy")
    fa = sp.lambdify(args, sp.Matrix(d, d, lambda a, b: sp.diff(L, A[a, b])), "numpy")
    fl = sp.lambdify(args, L, "numpy")

    def gradZ(Zv, Av, g):
        return fz(list(Zv.ravel()), list(Av.ravel()), g)

    def gradA(Zv, Av, g):
        return fa(list(Zv.ravel()), list(Av.ravel()), g)

    def loss(Zv, Av, g):
        return float(fl(list(Zv.ravel()), list(Av.ravel()), g))
    rng = np.random.default_rng(8)
    for gamma2 in (0.7, 1.0, 2.5):
        Zv = rng.uniform(-1, 1, (m, d))
        eye = np.eye(d)
        assert math.isclose(loss(Zv, eye, gamma2), S.snc_loss(X, y, Zv, c, gamma2), rel_tol=1e-10)
        M = _m_matrix(X, y, Zv, c, eye, gamma2)
        B = M.T @ X - np.diag(M.sum(0)) @ Zv
        exact = np.asarray(gradZ(Zv, eye, gamma2), dtype=float)
        assert np.allclose(exact, -gamma2 * (2 * B), rtol=1e-9, atol=1e-12)  # (3.6): exact / printed = -gamma^2
        Av = rng.uniform(0.5, 1.5, (d, d))
        assert math.isclose(loss(Zv, Av, 1.0), S.snc_metric_loss(X, y, Zv, c, Av), rel_tol=1e-10)
        MA = _m_matrix(X, y, Zv, c, Av, 1.0)
        W = sum(MA[i, j] * np.outer(X[i] - Zv[j], X[i] - Zv[j]) for i in range(len(X)) for j in range(m))
        printed8 = -2 * Av @ W
        assert np.allclose(np.asarray(gradA(Zv, Av, 1.0), dtype=float), -printed8, rtol=1e-9, atol=1e-12)
        BA = MA.T @ X - np.diag(MA.sum(0)) @ Zv
        printed9 = 2 * (2 * BA) @ Av.T @ Av
        exact9 = np.asarray(gradZ(Zv, Av, 1.0), dtype=float)
        assert np.allclose(printed9, -2 * exact9, rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- bun2020 Theorem 22 (2) / A8
def _margin_tau_sample(d, tau=0.1, n=40, seed=0):
    """n points of margin exactly tau along u = e_1 with centroid tau u under the uniform measure: x_i = y_i (tau u +
    w_i), the w_i orthogonal to u, paired as +-w (so they cancel), ||x_i|| <= 1."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(n // 2, d))
    W[:, 0] = 0.0
    W *= 0.9 / np.linalg.norm(W, axis=1, keepdims=True)
    W = np.vstack([W, -W])
    y = np.where(np.arange(n) % 3 == 0, -1, 1)
    X = y[:, None] * (W + tau * np.eye(d)[0])
    return X, y, np.full(n, 1.0 / n)


@checks("bun2020.thm22", "bun2020.thm26.gauss", "bun2020.thm34.claim3")
def check_bun2020_thm22_advantage_second():
    """Monte Carlo of the PUBLIC noisy_centroid (400 draws per setting, seeded test noise) on a sample of margin
    exactly tau = 0.1 with centroid tau e_1, sigma = 0.003: the advantage (1/2) sum_i mu_i y_i h(x_i) of the printed
    h = z~.x averages tau^2/2 = 0.005 (+- 5e-4) at d = 10 and d = 10^4 and is never >= the claimed tau/4 - 2 sigma
    sqrt(ln(1/xi)) = 0.0121 (xi = 0.01), let alone tau/8 (Theorem 26 / Claim 3's per-call event); the normalised h
    gives ~tau/2 = 0.05 at d = 10 but tau^2/(2 sqrt(tau^2 + sigma^2 d)) = 0.033 at d = 10^4.  Agrees with A8 (the
    finding's 0.005 at d = 10^5 for the normalised h follows from the same formula; not simulated here)."""
    import fast.private_boosting as PB

    tau, sigma, xi = 0.1, 0.003, 0.01
    claimed = tau / 4 - 2 * sigma * math.sqrt(math.log(1 / xi))
    assert round(claimed, 4) == 0.0121
    for d in (10, 10_000):
        X, y, mu = _margin_tau_sample(d, tau)
        z = PB.centroid(X, y, mu)
        assert np.allclose(z, tau * np.eye(d)[0], atol=1e-12)
        rng = np.random.default_rng(d)
        raw, norm = [], []
        for _ in range(400):
            zt = PB.noisy_centroid(X, y, mu, sigma, rng=rng)
            raw.append(0.5 * float(np.sum(mu * y * (X @ zt))))
            norm.append(0.5 * float(np.sum(mu * y * (X @ (zt / np.linalg.norm(zt))))))
        assert abs(np.mean(raw) - tau ** 2 / 2) < 5e-4 and max(raw) < claimed
        predicted = tau ** 2 / (2 * math.sqrt(tau ** 2 + sigma ** 2 * d))
        assert abs(np.mean(norm) - predicted) < 0.1 * predicted, (d, np.mean(norm), predicted)


# --------------------------------------------------------------------------- nock2016 Table 1
def _table1_losses(row, m, mu_e, mu_r):
    """l_e and l_r of Table 1 in sympy, l_r by EXPLICIT enumeration of the 2^m subsets J (not the product / moment
    identities): z^e_i = -z_i/mu_e, z^r_J = -(sum_{i in J} z_i)/mu_r; I: l_e = sum softplus(z^e_i), l_r = sum_J
    exp(z^r_J); II: l_e = sum (1 + z^e_i)^2, l_r = -(E_J[-z^r_J] - mu_r V_J[-z^r_J]); III: l_e = sum max(z^e_i, 0),
    l_r = max_J z^r_J; IV: l_e = sum z^e_i, l_r = E_J[z^r_J]."""
    z = sp.symbols(f"z0:{m}", real=True)
    ze = [-v / mu_e for v in z]
    zr = [-sum(z[i] for i in J) / mu_r for r in range(m + 1) for J in itertools.combinations(range(m), r)]
    N = len(zr)
    if row == "I":
        return z, sum(sp.log(1 + sp.exp(v)) for v in ze), sum(sp.exp(v) for v in zr)
    if row == "II":
        E = sum(-v for v in zr) / N
        V = sum((-v - E) ** 2 for v in zr) / N
        return z, sum((1 + v) ** 2 for v in ze), -(E - mu_r * V)
    if row == "III":
        return z, sum(sp.Max(v, 0) for v in ze), sp.Max(*zr)
    return z, sum(ze), sum(zr) / N


@checks("nock2016.table1", "nock2016.table1.ii", "nock2016.table1.iv")
def check_nock2016_table1_second():
    """sympy, l_r by subset enumeration (m = 3): row I l_r = exp(l_e) at mu_e = mu_r (symbolic identity); rows III
    and IV l_r = (mu_e/mu_r) l_e and (mu_e/(2 mu_r)) l_e at sampled z (III piecewise: checked at 200 points) for
    mu pairs (1, 1), (0.5, 2), (3, 0.2); row II: l_r is a function of l_e only if the Jacobian of (l_e, l_r) has
    rank 1 everywhere -- its 2x2 minors vanish identically at mu_e = mu_r = 1 (and l_r = (l_e - m)/(4 mu_r) at mu_e
    = 1 for every mu_r) but not at mu = 1/2 or 2, so 'for all mu_e = mu_r' fails.  Agrees with table1 and
    table1.ii; for table1.iv the equivalence (slope mu_e/(2 mu_r)) agrees; its a_e = mu_e/2 (a statement about the
    game loss L_e) is NOT re-derived here."""
    m = 3
    half, two = sp.Rational(1, 2), sp.Integer(2)
    z, le, lr = _table1_losses("I", m, 1, 1)
    assert sp.simplify(sp.expand(sp.exp(le) - lr)) == 0 or all(
        abs(float((sp.exp(le) - lr).subs(dict(zip(z, p))))) < 1e-9 for p in np.random.default_rng(0).normal(size=(20, m)))
    rng = np.random.default_rng(1)
    for mu_e, mu_r in ((1, 1), (half, two), (3, sp.Rational(1, 5))):
        for row, slope in (("III", mu_e / mu_r), ("IV", mu_e / (2 * mu_r))):
            z, le, lr = _table1_losses(row, m, mu_e, mu_r)
            f = sp.lambdify(z, lr - slope * le, "mpmath")
            assert all(abs(f(*p)) < 1e-12 for p in rng.normal(size=(200, m)) * 2), (row, mu_e, mu_r)
    for mu, rank_one in ((1, True), (half, False), (two, False)):
        z, le, lr = _table1_losses("II", m, mu, mu)
        J = sp.Matrix([[sp.diff(le, v) for v in z], [sp.diff(lr, v) for v in z]])
        minors = [sp.simplify(J[:, [a, b]].det()) for a, b in itertools.combinations(range(m), 2)]
        assert all(mi == 0 for mi in minors) == rank_one, (mu, minors)
    for mu_r in (half, two, sp.Integer(7)):
        z, le, lr = _table1_losses("II", m, 1, mu_r)
        assert sp.simplify(lr - (le - m) / (4 * mu_r)) == 0


@checks("bun2020.thm22")
def check_bun2020_thm22_sensitivity_second():
    """Theorem 22 (1)'s L2 sensitivity of the LB-NxM centroid, by random search over the PUBLIC lb_nxm (3,000
    instances: n in 2..8, kappa, lam, gains in [0, t] with the changed example's gain at 0, t or anywhere): a
    substitution of example 1 changes its gain L_1 only (the hypotheses are released), so ||z - z'|| over unit
    vectors is at most sum_{i >= 2} |mu^_i - mu^'_i| + mu^_1 + mu^'_1, attained by aligning y_i x_i = sign(.) u
    (and y_1 x_1 = u, y'_1 x'_1 = -u).  Its largest value times kappa n is 2 (to float rounding), never above: the
    sensitivity is 2/(kappa n), the paper's 4/(kappa n) loose by 2x.  Agrees with the finding."""
    import fast.private_boosting as PB

    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(3000):
        n = int(rng.integers(2, 9))
        kappa, lam, t = float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 3)), int(rng.integers(1, 20))
        L = rng.uniform(0, t, n)
        L[0] = rng.choice([0.0, float(t), rng.uniform(0, t)])
        L2 = L.copy()
        L2[0] = rng.choice([0.0, float(t), rng.uniform(0, t)])
        mu, mu2 = PB.lb_nxm(L, kappa, lam), PB.lb_nxm(L2, kappa, lam)
        mh, mh2 = mu / mu.sum(), mu2 / mu2.sum()
        worst = max(worst, (np.abs(mh2[1:] - mh[1:]).sum() + mh[0] + mh2[0]) * kappa * n)
    assert 1.99 < worst <= 2 * (1 + 1e-12), worst


@checks("nock2016.table1.iv")
def check_nock2016_table1_iv_slope_second():
    """Row IV's slope a_e: the public phi_s ("IV", m = 3) is finite only at p = 1/2 on a 2,001-point grid of [0, 1]
    (so the example game's optimum has p_i = 1/2 and phi_e(1/2) = 0), hence L_e = sum_i p_i z_i = sum z_i/2 and,
    with l_e = sum_i -z_i/mu_e (sympy), -L_e = (mu_e/2) l_e: |a_e| = mu_e/2, not mu_e.  Agrees."""
    import fast.losses as FLo

    grid = np.linspace(0.0, 1.0, 2001)
    finite = [p for p in grid if math.isfinite(FLo.phi_s(float(p), "IV", 3))]
    assert finite == [0.5] and FLo.phi_e(0.5, "IV", 3) == 0.0
    mu_e = sp.Symbol("mu_e", positive=True)
    z = sp.symbols("z0:3", real=True)
    L_e = sum(v / 2 for v in z)
    l_e = sum(-v / mu_e for v in z)
    assert sp.simplify(-L_e - mu_e / 2 * l_e) == 0


# --------------------------------------------------------------------------- nock2016 Lemma 4 (Definition 1)
def _lemma4_row1_gap(z, c, mu):
    """L_e(z) - L_r(z) for row I's generators by direct numerical minimisation of eqs. (1)-(6) (scipy, no closed
    form): phi_r(q) = q log q - q over the affine simplex of R^(2^m) (q = softmax(w), unconstrained), and phi_e =
    phi_s(r) + c (Definition 3) over p in [0, 1], with mu_e = mu_r = mu."""
    from scipy.optimize import minimize, minimize_scalar
    from scipy.special import softmax

    def xlogx(t):
        return 0.0 if t <= 0 else t * math.log(t)

    phi_e = lambda p: xlogx(p) - p + xlogx(1 - p) - (1 - p) + c  # noqa: E731
    L_e = sum(minimize_scalar(lambda p, zi=zi: p * zi + mu * phi_e(p), bounds=(0.0, 1.0), method="bounded",
                              options={"xatol": 1e-12}).fun for zi in z)
    m = len(z)
    sums = np.array([sum(z[i] for i in range(m) if mask >> i & 1) for mask in range(2 ** m)])

    def L_r_of(w):
        q = softmax(w)
        return float(q @ sums + mu * sum(xlogx(t) - t for t in q))

    L_r = minimize(L_r_of, np.zeros(2 ** m), method="BFGS", options={"gtol": 1e-11}).fun
    return L_e - L_r


@checks("nock2016.lemma4")
def check_nock2016_lemma4_second():
    """Lemma 4 against Definition 1 (eq. (7)), two ways that share nothing with the first check.

    Row I (numerical minimisation of eqs. (1)-(6), m = 2, mu_e = mu_r = 1): with phi_e = phi_s(r) + c the gap
    L_e - L_r is the same at three z (proportionate, for c = 0 and c = 1/2), and equals b = mu (m c - m + 1) (-1 and
    0 here), so Lemma 4's b / mu_e = -1 (c = 0) and 0 (c = 1/2) differs from the constant c actually added: the
    lemma holds for c = 1 only.  Row II (sympy, exact, m = 3): with phi_r = z^2 / 2 over the affine simplex and
    phi_e = phi_s(r), L_e - L_r is constant in z iff mu_r = 2^(m-1) mu_e = 4 mu_e, where Lemma 4 would need
    phi_e = 4 phi_s(r) + b/mu_e.  Agrees with the finding (constant and scale)."""
    m = 2
    for c, b_expected in ((0.0, -1.0), (0.5, 0.0)):
        gaps = [_lemma4_row1_gap(z, c, 1.0) for z in ([0.3, -1.2], [2.0, 0.5], [-0.7, -0.1])]
        assert max(gaps) - min(gaps) < 1e-6, gaps  # b does not depend on z: proportionate
        assert abs(gaps[0] - b_expected) < 1e-6 and abs(b_expected - 1.0 * (m * c - m + 1)) < 1e-12
        assert abs(gaps[0] / 1.0 - c) > 0.4  # Lemma 4's constant b/mu_e is not the c of phi_e
    assert abs(_lemma4_row1_gap([0.3, -1.2], 1.0, 1.0) - 1.0) < 1e-6  # c = 1: b/mu_e = 1 = c, the lemma holds

    # row II, exact
    m = 3
    z = sp.symbols(f"z0:{m}", real=True)
    mu_e, mu_r, p, lam = sp.symbols("mu_e mu_r p lam", positive=True)
    phi_s = p ** 2 / 2 + (1 - p) ** 2 / 2
    L_e = 0
    for zi in z:
        obj = p * zi + mu_e * phi_s
        p_star = sp.solve(sp.diff(obj, p), p)[0]
        L_e += obj.subs(p, p_star)
    sums = [sum(z[i] for i in range(m) if mask >> i & 1) for mask in range(2 ** m)]
    q = [(lam - s) / mu_r for s in sums]  # stationarity of sum q s + mu_r sum q^2/2 - lam (sum q - 1)
    lam_star = sp.solve(sp.Eq(sum(q), 1), lam)[0]
    q = [qi.subs(lam, lam_star) for qi in q]
    L_r = sum(qi * s for qi, s in zip(q, sums)) + mu_r * sum(qi ** 2 for qi in q) / 2
    gap = sp.expand(L_e - L_r)
    grads = [sp.simplify(sp.diff(gap, zi)) for zi in z]
    assert any(g != 0 for g in grads)  # not proportionate for arbitrary (mu_e, mu_r)
    assert all(sp.simplify(g.subs(mu_r, 2 ** (m - 1) * mu_e)) == 0 for g in grads)
    assert all(sp.simplify(g.subs(mu_r, mu_e)) != 0 for g in grads)  # "forall mu_e = mu_r" is not enough
    assert sp.solve(sp.diff(gap, z[0], 2), mu_r) == [2 ** (m - 1) * mu_e]
