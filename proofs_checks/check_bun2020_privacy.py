"""bun2020 privacy accounting: HS-StL (Theorem 22 part 1, Theorem 26), its sample size, the zCDP of one noisy centroid
on the exact discrete-Gaussian grid, SmoothBoost's composition (Theorem 53, A3) by exact randomized-response
composition, propose-test-release (Lemma 50) by exact hockey-stick computation on the implementation's own
IterStop round (threshold, noise grid and declared sensitivity read from smooth_boost through a spy), M_eta (App. G.3), and the
Chernoff / Gaussian-tail steps of Theorem 26 against exact tails."""
import itertools
import math
import struct
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

import fast.accounting as A
import fast.private_boosting as PB
import reference.private_boosting as REF_PB
from spec.links import checks

from proofs_checks.check_bun2020_slickness import centroid_worst_case

CASES = [(1.0, 1e-6, 0.1, 0.05, 0.1), (0.5, 1e-5, 0.2, 0.1, 0.2), (4.0, 1e-9, 0.05, 0.05, 0.3),
         (0.1, 1e-3, 0.3, 0.2, 0.5)]


def _eps_mp(n, alpha, beta, tau, delta):
    """hsstl_privacy in 50-digit arithmetic from the same float parameters (sigma, kappa, T)."""
    mpmath.mp.dps = 50
    p = PB.hsstl_parameters(alpha, beta, tau)
    rho = mpmath.mpf(8) * p["T"] / (mpmath.mpf(p["kappa"]) * n * mpmath.mpf(p["sigma"])) ** 2
    return rho + 2 * mpmath.sqrt(rho * mpmath.log(1 / mpmath.mpf(delta)))


@checks("bun2020.thm26.privacy-n", "bun2020.lemma15")
def check_hsstl_privacy_is_the_zcdp_conversion_of_its_rho():
    """hsstl_privacy(n, ...) = rho + 2 sqrt(rho ln(1/delta)) (Bun-Steinke Prop. 1.3) of rho = hsstl_rho(n, ...), in
    50-digit arithmetic, at n from 10^3 to 10^10 -- a cheap direct check placed first: a conversion without the 2
    (the harness's hsstl-zcdp-to-dp) made the n_min searches below run past the harness's timeout instead of
    failing."""
    mpmath.mp.dps = 50
    for eps, delta, alpha, beta, tau in CASES:
        for n in (10**3, 10**6, 10**10):
            rho = mpmath.mpf(PB.hsstl_rho(n, alpha, beta, tau))
            expected = rho + 2 * mpmath.sqrt(rho * mpmath.log(1 / mpmath.mpf(delta)))
            assert mpmath.almosteq(PB.hsstl_privacy(n, alpha, beta, tau, delta), expected, rel_eps=1e-12), (n, delta)


@checks("bun2020.thm26.privacy-n", "bun2020.thm34.claim1")
def check_hsstl_n_min_exact():
    """n_min = hsstl_n_min(eps, delta, alpha, beta, tau): (eps, delta) holds at n_min and fails at n_min - 1, in
    floats and in 50-digit arithmetic; the closed form ceil(sqrt(8T/rho*)/(kappa sigma)) is n_min or n_min + 1.
    The paper's example alpha = 0.1, beta = 0.05, tau = 0.1, eps = 1, delta = 1e-6 needs n = 1,732,084,834."""
    for eps, delta, alpha, beta, tau in CASES:
        n = PB.hsstl_n_min(eps, delta, alpha, beta, tau)
        assert PB.hsstl_privacy(n, alpha, beta, tau, delta) <= eps < PB.hsstl_privacy(n - 1, alpha, beta, tau, delta)
        assert _eps_mp(n, alpha, beta, tau, delta) <= eps < _eps_mp(n - 1, alpha, beta, tau, delta)
        p = PB.hsstl_parameters(alpha, beta, tau)
        L = math.log(1 / delta)
        rho_star = (math.sqrt(L + eps) - math.sqrt(L)) ** 2
        closed = math.ceil(math.sqrt(8 * p["T"] / rho_star) / (p["kappa"] * p["sigma"]))
        assert closed - n in (0, 1)
    assert PB.hsstl_n_min(1.0, 1e-6, 0.1, 0.05, 0.1) == 1732084834
    p = PB.hsstl_parameters(0.1, 0.05, 0.1)
    assert p["T"] == 377742 and math.isclose(p["sigma"], 3.0374e-4, rel_tol=1e-4)


@checks("bun2020.thm26.rho", "bun2020.lemma14", "bun2020.s3.2.iter-privacy")
def check_hsstl_rho_against_dp_accounting():
    """rho_T = T * 8/(kappa n sigma)^2: dp-accounting's RDP accountant composing T Gaussian mechanisms of noise
    multiplier sigma/(4/(kappa n)) gives an epsilon <= ours (Lemma 15) and within 1% of the tight zCDP conversion."""
    import dp_accounting
    from dp_accounting import rdp

    for eps, delta, alpha, beta, tau in CASES[:3]:
        p = PB.hsstl_parameters(alpha, beta, tau)
        n = PB.hsstl_n_min(eps, delta, alpha, beta, tau)
        sens = 4 / (p["kappa"] * n)
        rho_t = PB.hsstl_rho(n, alpha, beta, tau)
        assert math.isclose(rho_t, p["T"] * sens**2 / (2 * p["sigma"] ** 2), rel_tol=1e-12)
        acc = rdp.RdpAccountant(orders=list(np.linspace(1.01, 10, 200)) + list(np.geomspace(10, 1e6, 400)))
        acc.compose(dp_accounting.GaussianDpEvent(p["sigma"] / sens), p["T"])
        theirs = acc.get_epsilon(delta)
        ours = PB.hsstl_privacy(n, alpha, beta, tau, delta)
        assert theirs <= ours * (1 + 1e-9)
        assert math.isclose(theirs, A.zcdp_to_dp_tight(rho_t, delta), rel_tol=1e-2)


@checks("bun2020.thm22", "bun2020.s3.2.iter-privacy", "bun2020.def18")
def check_thm22_part1_round_rho():
    """One WL~ release: rho = 2 (1/(kappa n) + zeta)^2 / sigma^2 (continuous); on our exact grid the charged rho is
    >= that and exceeds it only by the rounding inflation (1 + 2^k sqrt(d)/Delta)^2 (s2 >= (sigma/2^k)^2).  The
    Renyi divergence of the Gaussian outputs on adversarial LB-NxM neighbours (Lemma 16) is a ||dz||^2/(2 sigma^2)
    <= a rho for every order a (checked at a in {1.5, 2, 10}); sigma = 0 is reported as rho = inf (not private)."""
    rng = np.random.default_rng(22)
    for n, kappa, sigma, d in [(1000, 0.1, 0.05, 10), (50, 0.3, 0.001, 1), (10**6, 0.025, 3e-4, 100)]:
        cont = 2 * (1 / (kappa * n) + 1 / (kappa * n)) ** 2 / sigma**2
        rho = PB.weak_learner_rho(n, kappa, sigma, d)
        grid = PB.centroid_run_grid(sigma, PB.centroid_sensitivity(n, kappa), d)  # the run's grid (issue 25)
        assert rho == grid.rho and rho >= cont * (1 - 1e-12)
        infl = (1 + grid.granularity * math.sqrt(d) / PB.centroid_sensitivity(n, kappa)) ** 2
        assert rho <= cont * infl * (1 + 1e-9)
        assert grid.granularity * math.sqrt(grid.sigma2_grid) >= sigma
        # the single release's grid (noisy_centroid): the same two properties (its rho at least the continuous one,
        # its std at least sigma) -- its rho halved or its s2 floored survived this claim's checks
        one = PB.centroid_grid(sigma, PB.centroid_sensitivity(n, kappa), d)
        assert one.rho >= cont * (1 - 1e-12) and one.granularity * math.sqrt(one.sigma2_grid) >= sigma
        lam = one.granularity
        assert one.rho >= (PB.centroid_sensitivity(n, kappa) + lam * math.sqrt(d)) ** 2 / (
            2 * one.sigma2_grid * lam * lam) * (1 - 1e-12)
    assert PB.weak_learner_rho(10, 0.5, 0.0, 3) == math.inf
    for _ in range(2000):
        n = int(rng.integers(2, 20))
        kappa = float(rng.uniform(0.05, 0.9))
        t = int(rng.integers(1, 50))
        L = rng.uniform(0, t, n)
        L[0] = float(rng.choice([0.0, t]))
        dz = centroid_worst_case(L, kappa, 0.5, t - L[0])
        sigma = 0.1
        rho = 2 * (2 / (kappa * n)) ** 2 / sigma**2
        for a in (1.5, 2.0, 10.0):
            assert A.renyi_gaussian([dz], [0.0], sigma, a) <= a * rho


def _rr_composition_delta(eps, k, eps_total):
    """Exact delta(eps_total) of the k-fold composition of eps-randomized response (the worst case for eps-DP)."""
    mpmath.mp.dps = 40
    e = mpmath.mpf(eps)
    p = mpmath.e**e / (1 + mpmath.e**e)
    q = 1 - p
    tot = mpmath.mpf(0)
    for i in range(k + 1):
        gap = 1 - mpmath.e ** (mpmath.mpf(eps_total) - e * (k - 2 * i))
        if gap > 0:
            tot += mpmath.binomial(k, i) * p ** (k - i) * q**i * gap
    return tot


@checks("bun2020.thm53")
def check_thm53_item2_sqrt2_by_exact_composition():
    """A3: Theorem 53(2) as printed, eps' = 2 T eps^2 + 2 eps sqrt(T ln(1/delta')), is violated by the exact
    T-fold composition of (2 eps)-randomized response (delta(eps') = 8x..30x delta'); with the sqrt(2) of Theorem 48
    at per-round 2 eps it holds (<= 0.05 delta')."""
    ratios_printed, ratios_fixed = [], []
    for eps in (0.05, 0.1):
        for T in (50, 200):
            dp = 1e-6
            printed, _ = PB.smoothboost_privacy(eps, 0.0, T, dp, printed=True)
            fixed, _ = PB.smoothboost_privacy(eps, 0.0, T, dp)
            ratios_printed.append(float(_rr_composition_delta(2 * eps, T, printed)) / dp)
            ratios_fixed.append(float(_rr_composition_delta(2 * eps, T, fixed)) / dp)
    assert min(ratios_printed) > 5.0, ratios_printed
    assert max(ratios_fixed) <= 0.05, ratios_fixed


class _Spy:
    """Stands in for the boosting module's ``_mechanisms``: records every Laplace / Gaussian call and returns
    controlled values (``laplace``: a callable of the call index; ``gaussian``: a data-independent vector list)."""

    def __init__(self, real, laplace, gaussian):
        self._real, self._laplace, self._gaussian = real, laplace, gaussian
        self.laplace_calls, self.gaussian_calls = [], []

    def __getattr__(self, name):
        return getattr(self._real, name)

    def laplace_mechanism(self, value, *, sensitivity, epsilon, rng=None):
        self.laplace_calls.append((float(value), float(sensitivity), float(epsilon)))
        return self._laplace(len(self.laplace_calls) - 1)

    def gaussian_mechanism(self, value, *, sensitivity, epsilon, delta, rng=None):
        self.gaussian_calls.append((float(sensitivity), float(epsilon), float(delta)))
        return np.array(self._gaussian[(len(self.gaussian_calls) - 1) % len(self._gaussian)], dtype=np.float64)


_PTR_X = np.array([[0.6, 0.1], [-0.2, 0.7], [0.3, -0.5], [0.9, 0.3], [-0.8, -0.1], [0.05, 0.05]])
_PTR_Y = np.array([1, -1, 1, 1, -1, -1])
_PTR_Z = [(1.0, 0.0), (0.8, 0.6), (1.0, 0.0), (0.6, 0.8)]  # data-independent stand-ins for the noisy centroids


def _run_spied(impl, monkeypatch, X, y, epsilon, delta, T, laplace):
    spy = _Spy(impl._mechanisms, laplace, _PTR_Z)
    monkeypatch.setattr(impl, "_mechanisms", spy)
    try:
        res = impl.smooth_boost(X, y, 0.45, 0.25, T, epsilon, delta, rng=0)
    finally:
        monkeypatch.setattr(impl, "_mechanisms", spy._real)
    return res, spy


def _float_bits(x):
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _bits_float(i):
    return struct.unpack("<d", struct.pack("<q", i))[0]


def _smallest_passing_release(impl, monkeypatch, epsilon, delta):
    """The smallest double v such that a Laplace release equal to v lets the implementation's round 0 run: found by
    bisection over the doubles in [0, 1e6] (non-negative doubles order as their bit patterns)."""
    def runs(v):
        res, _ = _run_spied(impl, monkeypatch, _PTR_X, _PTR_Y, epsilon, delta, 1, lambda i: v)
        return res.rounds == 1

    lo, hi = _float_bits(0.0), _float_bits(1e6)
    assert not runs(0.0) and runs(1e6)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if runs(_bits_float(mid)):
            hi = mid
        else:
            lo = mid
    return _bits_float(hi)


def _pass_probability(x, v_pass, grid):
    """Pr[2^k (round_half_even(x / 2^k) + Z) >= v_pass], Z ~ DLap(t) exactly (Pr[Z = z] prop. to e^(-|z|/t)): the
    law of fast/reference ``laplace_mechanism``'s release on the implementation's own grid."""
    step = Fraction(2) ** grid.k
    r = round(Fraction(x) / step)
    z0 = math.ceil(Fraction(v_pass) / step) - r
    with mpmath.workdps(50):  # 1 - q is ~1e-12: 15 digits would leave 3 in it
        q = mpmath.exp(-mpmath.mpf(1) / grid.scale)
        if z0 >= 1:
            return +(q**z0 / (1 + q))
        return +(1 - q ** (1 - z0) / (1 + q))


def _ptr_round_hockey(x, x2, b, b2, p_pass, eps_a, delta_a, eps_out):
    """Exact hockey-stick at eps_out between one IterStop round on values x and x2 (its Laplace test passes with
    p_pass(.)): BOT on failure, else the weak learner A, worst case for an (eps_a, delta_a)-DP mechanism where the
    tested value is >= 0 (eps_a-randomised response of a private bit plus a delta_a-probability reveal) and a full
    reveal where it is < 0 (no guarantee there)."""
    def out(v, bit):
        pp = p_pass(v)
        if v >= 0 and (x >= 0 and x2 >= 0):
            pr = mpmath.e**eps_a / (1 + mpmath.e**eps_a)
            rr = {bit: pr, 1 - bit: 1 - pr}
            dist = {o: (1 - delta_a) * rr[o] for o in (0, 1)}
            dist[("leak", bit)] = mpmath.mpf(delta_a)
        else:
            dist = {("leak", bit): mpmath.mpf(1)}
        res = {"bot": 1 - pp}
        for o, w in dist.items():
            res[o] = res.get(o, 0) + pp * w
        return res

    P, Q = out(x, b), out(x2, b2)
    return sum(max(mpmath.mpf(0), P.get(o, 0) - mpmath.e ** eps_out * Q.get(o, 0)) for o in set(P) | set(Q))


@checks("bun2020.lemma50", "bun2020.lemma49", "bun2020.alg11", "bun2020.alg12", "bun2020.alg10")
@pytest.mark.parametrize("impl", [REF_PB, PB], ids=["reference", "fast"])
def check_lemma50_ptr_exact(impl, monkeypatch):
    """Lemma 50 on the IMPLEMENTATION's IterStop round (``smooth_boost`` of both packages, driven through a spy on
    its mechanisms module), against brute-force and exact ground truths:

    1. the tested value's sensitivity: every substitution of one record of a 6-point sample by one of 18 records
       (the unit circle's 8 points, the origin, either label), over 8 rounds with data-independent hypotheses,
       moves the value the implementation passes to ``laplace_mechanism`` by at most the sensitivity it declares
       there (and the brute force reaches > 1/2 of it: the bound is not vacuous);
    2. the threshold: the smallest Laplace release that lets round 0 run, found by bisection over the doubles;
    3. the noise law: ``laplace_grid(declared sensitivity, declared epsilon)`` of the implementation's
       ``mechanisms`` module, the exact discrete Laplace on its 2^k grid (round half to even, then Z ~ DLap(t));
    4. the exact hockey-stick (mpmath) at the epsilon the implementation REPORTS for one round
       (``result.epsilon`` at T_max = 1) must not exceed its reported ``result.delta``, over tested values x on a
       grid around 0 and the threshold, neighbours x' = x +- {0, s/2, s} (s the brute-force sensitivity bound),
       private bits {0, 1}^2, and the worst-case weak learner at the (epsilon, delta) the implementation passes
       to ``gaussian_mechanism`` (randomised response + delta reveal where x >= 0, a full reveal where x < 0).
    5. the test's own leak (pairs with a tested value < 0) equals the closed form 1/2 e^(-eps) delta of the printed
       threshold 2 + ln(1/delta)/eps, and the report is at least Lemma 50's (2 eps, e^eps delta).
    eps in {0.1, 0.5, 1}, delta in {1e-2, 1e-6}.  Lemma 50 is loose here: the exact worst is the weak learner's
    own delta (0.90 e^eps delta at eps = 0.1), so a threshold 1 + ln(1/delta)/eps would still be (2 eps, e^eps
    delta)-DP; items 5 see it (leak 1/2 delta), as a declared sensitivity 1/2 (item 1) and a report of delta per
    round (item 5)."""
    # 1. sensitivity of the tested value, by brute force over substitutions
    base, spy = _run_spied(impl, monkeypatch, _PTR_X, _PTR_Y, 1.0, 1e-6, 8, lambda i: 1e9)
    values = [c[0] for c in spy.laplace_calls]
    declared = {c[1] for c in spy.laplace_calls}
    assert len(values) == 8 and len(declared) == 1
    declared = declared.pop()
    angles = np.linspace(0, 2 * math.pi, 8, endpoint=False)
    records = [(np.array([math.cos(a), math.sin(a)]), lab) for a in angles for lab in (1, -1)]
    records += [(np.zeros(2), 1), (np.zeros(2), -1)]
    widest = 0.0
    for i in range(len(_PTR_X)):
        for rec, lab in records:
            X2, y2 = _PTR_X.copy(), _PTR_Y.copy()
            X2[i], y2[i] = rec, lab
            _, spy2 = _run_spied(impl, monkeypatch, X2, y2, 1.0, 1e-6, 8, lambda j: 1e9)
            for a, b in zip(values, (c[0] for c in spy2.laplace_calls)):
                widest = max(widest, abs(a - b))
    assert widest <= declared * (1 + 1e-12), (widest, declared)
    assert widest > declared / 2, (widest, declared)
    s = declared
    worst = mpmath.mpf(0)
    for eps in (0.1, 0.5, 1.0):
        for delta in (1e-2, 1e-6):
            # 2. threshold; 3. the noise law at the declared calibration; the weak learner's parameters
            v_pass = _smallest_passing_release(impl, monkeypatch, eps, delta)
            res, spy = _run_spied(impl, monkeypatch, _PTR_X, _PTR_Y, eps, delta, 1, lambda i: 1e9)
            (_, sens_l, eps_l), = spy.laplace_calls
            (_, eps_a, delta_a), = spy.gaussian_calls
            assert sens_l == s
            # the reported round is (at least) Lemma 50's (2 eps, e^eps delta)
            assert res.epsilon >= 2 * eps and res.delta >= math.exp(eps) * delta, (res.epsilon, res.delta)
            grid = impl._mechanisms.laplace_grid(sens_l, eps_l)
            cache = {}

            def p_pass(v):
                if v not in cache:
                    cache[v] = _pass_probability(v, v_pass, grid)
                return cache[v]

            # 4. exact hockey-stick at the reported per-round epsilon against the reported delta
            xs = list(np.linspace(-2 * s, v_pass + 6 / eps, 120)) + [-1e-9, 0.0, 1e-9, -s, -s / 2, s / 2]
            xs += [s - 1e-9, s, s + 1e-9]  # x >= 0 next to a neighbour < 0: the test alone protects the pair
            xs += [v_pass - k * s / 2 for k in range(-2, 7)]
            worst_ptr = mpmath.mpf(0)  # pairs where a tested value is < 0: only the Laplace test protects them
            for x in xs:
                x = float(x)
                for dx in (-s, -s / 2, 0.0, s / 2, s):
                    for b, b2 in itertools.product((0, 1), repeat=2):
                        h = _ptr_round_hockey(x, x + dx, b, b2, p_pass, eps_a, delta_a, res.epsilon)
                        worst = max(worst, h / mpmath.mpf(res.delta))
                        if min(x, x + dx) < 0:
                            worst_ptr = max(worst_ptr, h)
            # the test's own leak, exactly: a value just below 0 passes the threshold 2 + ln(1/delta)/eps with
            # probability 1/2 e^(-eps (thr - s)) = 1/2 e^(-eps) delta (its neighbour at +s reveals nothing more); a
            # threshold lower by one multiplies it by e^eps (1/2 delta): the printed threshold, seen through its leak
            assert math.isclose(worst_ptr / delta, 0.5 * math.exp(-eps), rel_tol=1e-4), (eps, delta, worst_ptr)
    assert worst <= 1, float(worst)
    # 0.90 = e^-0.1: the worst pair is the weak learner's own delta leak (delta / (e^eps delta)); Lemma 50's
    # e^eps delta is loose by e^eps here (the test's part is 1/2 e^-eps delta)
    assert worst >= 0.8, float(worst)


@checks("bun2020.thm26.chernoff", "bun2020.thm34.claim2")
def check_thm26_chernoff_exact_binomial():
    """App. C: eta <= kappa tau/8, n >= 24 ln(3/beta)/(kappa tau) => Pr[#flipped > kappa tau n/4] <= beta/3 (exact
    binomial tails); App. H Claim 2: eta = alpha tau/32, n >= 96 ln(4/beta)/(alpha tau) => <= beta/4."""
    worst = 0.0
    for alpha in (0.05, 0.1, 0.3):
        for tau in (0.05, 0.1, 0.5):
            for beta in (0.01, 0.05, 0.2):
                kappa = alpha / 4
                eta = kappa * tau / 8
                for scale in (1.0, 1.5, 4.0):
                    n = math.ceil(scale * 24 * math.log(3 / beta) / (kappa * tau))
                    tail = stats.binom.sf(math.floor(kappa * tau * n / 4), n, eta)
                    assert tail <= beta / 3
                    worst = max(worst, tail / (beta / 3))
                    n2 = math.ceil(scale * 96 * math.log(4 / beta) / (alpha * tau))
                    tail2 = stats.binom.sf(math.floor(alpha * tau * n2 / 16), n2, alpha * tau / 32)
                    assert tail2 <= beta / 4
    assert worst < 0.5


@checks("bun2020.thm26.gauss", "bun2020.thm34.claim3")
def check_thm26_gaussian_tail():
    """With sigma = tau/(80 sqrt(ln(1/xi))): Pr[|N(0, sigma^2)| > tau/8 - ... ] -- the step needs
    Pr[|nu.u| > c sigma sqrt(ln(1/xi))] <= xi for some c <= 10; exact normal tails give it at c = 2 for
    xi <= 0.5, and xi T <= beta/3 (union bound over T = 1024 ln(1/kappa)/tau^2 calls; A2's 512 also fits)."""
    for xi in (0.5, 1e-3, 4.4e-8, 1e-20):
        c = 2.0
        tail = 2 * stats.norm.sf(c * math.sqrt(math.log(1 / xi)))
        assert tail <= xi
        assert 0.25 - c / 80 >= 0.125  # tau/4 - c tau/80 >= tau/8 (per unit tau)
    for alpha, beta, tau in [(0.1, 0.05, 0.1), (0.2, 0.1, 0.3), (0.05, 0.01, 0.05)]:
        p = PB.hsstl_parameters(alpha, beta, tau)
        assert p["xi"] * 1024 * math.log(1 / p["kappa"]) / tau**2 <= beta / 3 * (1 + 1e-12)
        assert p["xi"] * p["T"] <= beta / 3 * (1 + 1e-3)


@checks("bun2020.sg.3.meta-dp", "bun2020.alg5")
def check_meta_dp_exact():
    """M_eta inherits M's (eps, delta): n = 3 binary labels, M = eps-randomized response on each label count bucket
    (exact output law), every neighbouring pair and eta in {0, 0.1, 0.3}: hockey-stick(M_eta) <= that of M."""
    eps = 0.7

    def m_law(labels):  # M: count of +1 labels, released by exact 'geometric' noise truncated to [0, 3]
        c = sum(1 for v in labels if v > 0)
        w = np.array([math.exp(-eps * abs(o - c)) for o in range(4)])
        return w / w.sum()

    def meta_law(labels, eta):
        out = np.zeros(4)
        for flips in itertools.product((1, -1), repeat=len(labels)):
            pr = math.prod(eta if f < 0 else 1 - eta for f in flips)
            out += pr * m_law([f * v for f, v in zip(flips, labels)])
        return out

    def hockey(P, Q, e):
        return float(np.maximum(0, P - math.exp(e) * Q).sum())

    for eta in (0.0, 0.1, 0.3):
        for s in itertools.product((1, -1), repeat=3):
            for i in range(3):
                s2 = list(s)
                s2[i] = -s2[i]
                for e in (0.0, 0.3, 2 * eps):
                    base = max(hockey(m_law(a), m_law(b), e) for a in itertools.product((1, -1), repeat=3)
                               for j in range(3) for b in [tuple(-v if k == j else v for k, v in enumerate(a))])
                    assert hockey(meta_law(s, eta), meta_law(s2, eta), e) <= base + 1e-15


@checks("bun2020.lemma15")
def check_lemma15_simplification_a15():
    """A15: 'eps >= 3 sqrt(rho log(1/delta)) suffices' is true iff rho <= log(1/delta) (then rho + 2 sqrt(rho L) <=
    3 sqrt(rho L)); counterexample rho = 20, delta = 1e-6 (L = 13.8): 3 sqrt(rho L) = 49.9 < 53.2."""
    for rho in np.geomspace(1e-6, 100, 200):
        for delta in (1e-2, 1e-6, 1e-12):
            L = math.log(1 / delta)
            ok = 3 * math.sqrt(rho * L) >= rho + 2 * math.sqrt(rho * L) - 1e-12
            assert ok == (rho <= L * (1 + 1e-9))
    assert 3 * math.sqrt(20 * math.log(1e6)) < 20 + 2 * math.sqrt(20 * math.log(1e6))


@checks("bun2020.s3.2.iter-privacy", "bun2020.lemma14")
def check_run_rho_is_rounds_times_the_round_rho():
    """Lemma 14 composition as the library REPORTS it: a T-round lazy_bregman_boost's result.rho and hsstl_rho(...,
    d=d) (the run on the grid) are T x weak_learner_rho (exact fractions, rounded up once), T in {1, 3, 7}, in both
    packages; the round's rho itself is checked against 2 (2/(kappa n))^2 / sigma^2 in check_thm22_part1_round_rho.
    (The harness's run-rho-composition / hsstl-rho-composition mutants -- the rounds dropped -- survived this
    claim's other checks, which never read the reported run rho with d.)"""
    from fractions import Fraction as Fr

    import reference.private_boosting as RPB

    rng = np.random.default_rng(14)
    X = rng.uniform(-0.5, 0.5, (60, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    for impl in (PB, RPB):
        for T in (1, 3, 7):
            res = impl.lazy_bregman_boost(X, y, T, 0.25, 0.5, 0.2, rng=0)
            one = impl.weak_learner_rho(60, 0.25, 0.2, 3)
            exact = T * Fr(one)
            up = float(exact) if Fr(float(exact)) >= exact else math.nextafter(float(exact), math.inf)
            assert res.rho == up, (impl.__name__, T, res.rho, one)
        p = impl.hsstl_parameters(0.1, 0.05, 0.1)
        n = 10**6
        got = impl.hsstl_rho(n, 0.1, 0.05, 0.1, d=5)
        one = impl.weak_learner_rho(n, p["kappa"], p["sigma"], 5)
        assert Fr(got) >= p["T"] * Fr(one) and Fr(got) < p["T"] * Fr(one) * (1 + Fr(1, 2**50)), (got, one)
