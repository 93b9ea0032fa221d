"""bun2020 LazyBregBoost and SmoothBoost analysis (Theorem 20, Lemmas 35-45, Pythia, Theorem 51) by simulation with
adversarial weak learners of EXACT advantage gamma, including non-integer and sub-unit kappa n; the regret bound
and the FTRL identity against a generic convex solver (scipy SLSQP)."""
import math

import numpy as np
import pytest
from scipy import optimize, special

import fast.measures as M
import fast.private_boosting as PB
from spec.links import checks


def adversary(mu_hat, y, gamma, kind, rng):
    """Hypothesis values h(x_i) in [-1, 1] with sum_i mu^(i) y_i h(x_i) = 2 gamma exactly (Def. 11 with equality):
    y h = +1 on a set of weight 1/2 + gamma (lowest weights first: 'low'; highest: 'high'; random order),
    one fractional entry, -1 elsewhere."""
    n = len(y)
    if kind == "low":
        order = np.argsort(mu_hat, kind="stable")
    elif kind == "high":
        order = np.argsort(-mu_hat, kind="stable")
    else:
        order = rng.permutation(n)
    margin = -np.ones(n)
    target = 0.5 + gamma
    acc = 0.0
    for i in order:
        if acc + mu_hat[i] <= target:
            margin[i] = 1.0
            acc += mu_hat[i]
        else:  # fractional: weight w at margin v contributes w (1 + v)/2 to the "right" mass
            v = 2.0 * (target - acc) / mu_hat[i] - 1.0
            margin[i] = v
            break
    return margin * y  # h = margin * y (y in {-1, 1})


def run_lazy_bregman(n, kappa, gamma, T, lam, kind, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], n)
    L = np.zeros(n)
    sum_margin = np.zeros(n)
    trace = {"max_w": 0.0, "booster_loss": 0.0, "losses": [], "mu_hats": []}
    for _ in range(T):
        mu = PB.lb_nxm(L, kappa, lam)
        mu_hat = mu / mu.sum()
        trace["max_w"] = max(trace["max_w"], float(mu_hat.max()))
        h = adversary(mu_hat, y, gamma, kind, rng)
        loss = PB.game_loss(h, y)
        trace["booster_loss"] += float(mu_hat @ loss)
        trace["losses"].append(loss)
        trace["mu_hats"].append(mu_hat)
        L += loss
        sum_margin += y * h
    return y, sum_margin / T, L, trace


SETTINGS = [(200, 0.1, 0.1), (400, 0.25, 0.2), (37, 0.3, 0.15), (50, 0.013, 0.2), (9, 0.1, 0.2)]
SLOW_SETTINGS = [(500, 0.05, 0.05)]


def _thm20(settings):
    worst_frac = 0.0
    for n, kappa, gamma in settings:
        T = math.ceil(16 * math.log(1 / kappa) / gamma**2)
        for kind in ("low", "high", "random"):
            y, margins, L, trace = run_lazy_bregman(n, kappa, gamma, T, gamma / 4, kind, seed=n)
            frac = float(np.mean(margins < gamma))
            assert frac <= kappa, (n, kappa, gamma, kind, frac)
            assert trace["max_w"] <= 1 / (kappa * n) * (1 + 1e-12)
            assert math.isclose(trace["booster_loss"], T / 2 + T * gamma, rel_tol=1e-9)
            worst_frac = max(worst_frac, frac / kappa)
            # Lemma 39's bound on Pythia's theta (Lemma 35 + 36 + 38 chained)
            _, theta = PB.pythia(margins, kappa)
            assert theta >= PB.margin_lower_bound(gamma, gamma / 4, T, kappa) - 1e-9
    return worst_frac


@checks("bun2020.thm20", "bun2020.lemma36", "bun2020.lemma39", "bun2020.alg7")
def check_thm20_margin_and_smoothness():
    """T = ceil(16 ln(1/kappa)/gamma^2), lam = gamma/4, adversaries low / high / random: the fraction of margins
    < gamma is <= kappa, every mu^_t has max <= 1/(kappa n) (kappa n = 20, 100, 11.1, 0.65, 0.9), and the
    booster's loss sum is exactly T/2 + T gamma (Lemma 36 with equality)."""
    assert _thm20(SETTINGS) <= 1.0


@pytest.mark.slow
@checks("bun2020.thm20")
def check_thm20_margin_and_smoothness_large():
    """As check_thm20_margin_and_smoothness at n = 500, kappa = gamma = 0.05 (T = 19,173 rounds)."""
    assert _thm20(SLOW_SETTINGS) <= 1.0


@checks("bun2020.lemma39", "bun2020.alg4")
def check_lemma39_constants_and_a1():
    """Lemma 39: theta >= 2 (gamma - lam - ln(1/kappa)/(lam T)); at lam = gamma/4, T = 16 ln(1/kappa)/gamma^2 it is
    exactly gamma, and lam = gamma/4 maximises it at that T.  A1: HS-StL's printed lam = tau/8 = gamma gives a
    NEGATIVE (vacuous) bound at its T = 1024 ln(1/kappa)/tau^2; tau/32 gives gamma."""
    for kappa in (0.025, 0.1, 0.3):
        for gamma in (0.0125, 0.05, 0.2):
            T = 16 * math.log(1 / kappa) / gamma**2
            Tc = math.ceil(T)
            assert PB.margin_lower_bound(gamma, gamma / 4, Tc, kappa) >= gamma * (1 - 1e-9)
            best = max(PB.margin_lower_bound(gamma, lam, Tc, kappa) for lam in np.linspace(gamma / 40, gamma, 400))
            assert best <= PB.margin_lower_bound(gamma, math.sqrt(math.log(1 / kappa) / Tc), Tc, kappa) + 1e-12
    for alpha, beta, tau in [(0.1, 0.05, 0.1), (0.2, 0.1, 0.3), (0.05, 0.01, 0.05)]:
        p32 = PB.hsstl_parameters(alpha, beta, tau)
        p8 = PB.hsstl_parameters(alpha, beta, tau, lam_rule="tau/8")
        assert p32["lam"] == p32["gamma"] / 4 and p8["lam"] == p8["gamma"]
        assert PB.margin_lower_bound(p32["gamma"], p32["lam"], p32["T"], p32["kappa"]) >= p32["gamma"] * (1 - 1e-9)
        vacuous = PB.margin_lower_bound(p8["gamma"], p8["lam"], p8["T"], p8["kappa"])
        assert vacuous < 0, vacuous  # = -gamma/8
        assert math.isclose(vacuous, -p8["gamma"] / 8, rel_tol=1e-3)


def _solve_ftrl(total_loss, kappa, lam, mass=None):
    """argmin_{mu in Gamma_kappa} lam <mu, total_loss> + KL(mu || kappa 1) (scipy SLSQP); optionally |mu| = mass."""
    n = len(total_loss)
    mu1 = np.full(n, kappa)

    def f(x):
        return float(lam * x @ total_loss + special.kl_div(x, mu1).sum())

    def g(x):
        return lam * total_loss + np.log(np.maximum(x, 1e-300) / kappa)

    cons = [{"type": "ineq", "fun": lambda x: x.sum() - kappa * n, "jac": lambda x: np.ones(n)}]
    if mass is not None:
        cons = [{"type": "eq", "fun": lambda x: x.sum() - mass, "jac": lambda x: np.ones(n)}]
    res = optimize.minimize(f, np.full(n, kappa), jac=g, method="SLSQP", bounds=[(1e-12, 1.0)] * n,
                            constraints=cons, options={"ftol": 1e-14, "maxiter": 500})
    return res.x, f


@checks("bun2020.lemma41", "bun2020.lemma9")
def check_lemma41_lazy_update_is_ftrl():
    """mu_{T+1} = LB-NxM(L_T) attains the minimum of lam <mu, L_T> + KL(mu || mu_1) over Gamma_kappa (within 1e-9 of
    the SLSQP optimum, never above it), 300 random and adversarial loss sums."""
    rng = np.random.default_rng(41)
    worst = -math.inf
    for k in range(300):
        n = int(rng.integers(2, 12))
        kappa = float(rng.uniform(0.05, 0.9))
        lam = float(rng.choice([0.05, 0.3, 1.0]))
        T = int(rng.integers(1, 60))
        total = rng.uniform(0, T, n) if k % 2 else rng.choice([0.0, float(T)], n)
        mu = PB.lb_nxm(total, kappa, lam)
        sol, f = _solve_ftrl(total, kappa, lam)
        # the solver may end slightly infeasible (sum < kappa n by ~1e-8): charge that to it at the gradient's size
        slack = max(0.0, kappa * n - sol.sum()) * (lam * total.max() + abs(math.log(kappa)) + 30.0)
        worst = max(worst, f(mu) - f(sol) - slack)
    assert worst <= 1e-9, worst


@checks("bun2020.lemma35", "bun2020.lemma45", "bun2020.lemma42", "bun2020.lemma44", "bun2020.alg6")
def check_lemma35_regret_against_convex_optimum():
    """Iterated play (Alg. 6) with the lazy dense update against adversarial loss sequences (loss 1 on above-median
    weights, on the max-weight point, random, alternating): (1/T) sum M(mu^_t, l_t) <= min over mu in Gamma of
    [(1/T) sum M(mu^, l_t) + lam + KL(mu || mu_1)/(lam kappa n T)] (minimised by SLSQP at each mass on a grid,
    plus the vertices).  Lemma 42 (be-the-leader) and Lemma 44 (||mu_t - mu_{t+1}||_1 <= lam kappa n) on the way."""
    rng = np.random.default_rng(35)
    worst_gap, worst_stab = -math.inf, 0.0
    for k in range(120):
        n = int(rng.integers(2, 10))
        kappa = float(rng.uniform(0.1, 0.9))
        lam = float(rng.choice([0.05, 0.2, 0.5]))
        T = int(rng.integers(2, 40))
        L = np.zeros(n)
        lhs = 0.0
        losses, mus = [], []
        for t in range(T):
            mu = PB.lb_nxm(L, kappa, lam)
            mus.append(mu)
            mh = mu / mu.sum()
            kind = (k + t) % 4
            if kind == 0:
                loss = (mh >= np.median(mh)).astype(float)
            elif kind == 1:
                loss = np.zeros(n)
                loss[np.argmax(mh)] = 1.0
            elif kind == 2:
                loss = rng.uniform(0, 1, n)
            else:
                loss = (np.arange(n) % 2 == t % 2).astype(float)
            lhs += mh @ loss
            losses.append(loss)
            L += loss
        mu_next = PB.lb_nxm(L, kappa, lam)
        # Lemma 44 on every step
        for a, b in zip(mus, mus[1:] + [mu_next]):
            worst_stab = max(worst_stab, float(np.abs(a - b).sum()) / (lam * kappa * n))
        # Lemma 42 (be the leader) at the comparator mu = projection minimiser
        btl = sum((mus[t + 1] if t + 1 < T else mu_next) / (mus[t + 1] if t + 1 < T else mu_next).sum() @ losses[t]
                  for t in range(T))
        best_rhs = math.inf
        for mass in np.linspace(kappa * n, n, 5):
            sol, _ = _solve_ftrl(L, kappa, lam, mass=mass)
            kl = M.kl(sol, np.full(n, kappa))
            rhs = (sol / sol.sum()) @ L / T + lam + kl / (lam * kappa * n * T)
            best_rhs = min(best_rhs, rhs)
            assert btl <= (sol / sol.sum()) @ L + kl / (lam * kappa * n) * (sol.sum() / (kappa * n)) + 1e-7
        worst_gap = max(worst_gap, lhs / T - best_rhs)
    assert worst_gap <= 1e-9, worst_gap
    assert worst_stab <= 1.0 + 1e-12, worst_stab


@checks("bun2020.lemma43", "bun2020.def40")
def check_lemma43_strong_convexity():
    """sum_i y_i^2 / mu_i >= ||y||_1^2 / (kappa n) when |mu| <= kappa n (Hessian of KL(. || mu_1) is diag(1/mu));
    equality at y proportional to mu."""
    rng = np.random.default_rng(43)
    for _ in range(2000):
        n = int(rng.integers(1, 20))
        kappa = float(rng.uniform(0.05, 1.0))
        mu = rng.uniform(1e-6, 1, n)
        mu *= min(1.0, kappa * n / mu.sum()) * rng.uniform(0.5, 1.0)
        y = rng.normal(size=n)
        assert (y * y / mu).sum() >= np.abs(y).sum() ** 2 / (kappa * n) * (1 - 1e-12)
    mu = np.full(4, 0.25)
    assert math.isclose((mu * mu / mu).sum(), np.abs(mu).sum() ** 2 / 1.0)


@checks("bun2020.alg8", "bun2020.prop37", "bun2020.lemma38", "bun2020.lemma39.kl")
def check_pythia_prop37_lemma38():
    """Pythia's bad set B (|B| >= kappa n, all mistakes in it): every i in B has sum_t y_i h_t(x_i) <= T theta
    (Prop. 37), sum_t M(P*, h_t) <= T/2 + T theta/2 (Lemma 38); KL(1_B || kappa 1) = |B| ln(1/kappa) + kappa n - |B|
    (= kappa n ln(1/kappa) when |B| = kappa n)."""
    for n, kappa, gamma in SETTINGS:
        T = 40
        y, margins, L, trace = run_lazy_bregman(n, kappa, gamma, T, gamma / 4, "random", seed=7)
        in_b, theta = PB.pythia(margins, kappa)
        assert in_b.sum() >= kappa * n and np.all(in_b[margins < 0])
        assert np.all(margins[in_b] * T <= T * theta + 1e-9)
        p_star = in_b / in_b.sum()
        assert sum(p_star @ loss for loss in trace["losses"]) <= T / 2 + T * theta / 2 + 1e-9
        b = int(in_b.sum())
        kl = M.kl(in_b.astype(float), np.full(n, kappa))
        assert math.isclose(kl, b * math.log(1 / kappa) + kappa * n - b, rel_tol=1e-12)
    assert math.isclose(M.kl(np.array([1.0, 0, 0, 0, 0]), np.full(5, 0.2)), 1 * math.log(5), rel_tol=1e-14)


@checks("bun2020.eq3", "bun2020.eq4", "bun2020.si.game")
def check_game_identities():
    """eq3: M(P, Q) = sum_ij P(i) M(i,j) Q(j) = sum_j M(P, j) Q(j) = sum_i P(i) M(i, Q).  eq4: y h = 1 - |h - y| for
    h in [-1, 1] on a grid (so M(i, h) = 1/2 + y h/2); outside [-1, 1] the library clips (A9)."""
    rng = np.random.default_rng(3)
    for _ in range(100):
        P, Q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(7))
        Mx = rng.uniform(0, 1, (5, 7))
        a = np.einsum("i,ij,j->", P, Mx, Q)
        assert math.isclose(a, (P @ Mx) @ Q, rel_tol=1e-12) and math.isclose(a, P @ (Mx @ Q), rel_tol=1e-12)
    h = np.linspace(-1, 1, 2001)
    for y in (-1, 1):
        np.testing.assert_allclose(y * h, 1 - np.abs(h - y), atol=1e-15)
        np.testing.assert_allclose(PB.game_loss(h, np.full(h.shape, y)), 0.5 + y * h / 2, atol=1e-15)
    assert PB.game_loss(np.array([1.5, -3.0]), np.array([1, 1])).tolist() == [1.0, 0.0]  # clipped


def run_smoothboost(n, gamma, kappa, kind, seed, t_max=100000):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], n)
    sums = np.zeros(n)
    t = 0
    while t < t_max:
        mu = PB.sb_nxm(sums, t, gamma)
        if mu.sum() < kappa * n:
            return t, sums / max(t, 1)
        h = adversary(mu / mu.sum(), y, gamma, kind, rng)
        sums += y * h
        t += 1
    return t, sums / t


@checks("bun2020.thm51", "bun2020.alg13")
def check_thm51_smoothboost():
    """SB-NxM with adversaries of advantage gamma: the density falls below kappa within 2/(kappa gamma^2
    sqrt(1 - gamma)) rounds, and then the margin is >= theta = gamma/(2 + gamma) on all but a kappa fraction."""
    for n, kappa, gamma in [(200, 0.1, 0.1), (300, 0.2, 0.2), (100, 0.3, 0.3), (57, 0.15, 0.25)]:
        bound = 2 / (kappa * gamma**2 * math.sqrt(1 - gamma))
        theta = gamma / (2 + gamma)
        for kind in ("low", "high", "random"):
            t, margins = run_smoothboost(n, gamma, kappa, kind, seed=n, t_max=int(bound) + 2)
            assert t < bound, (n, kappa, gamma, kind, t, bound)
            assert np.mean(margins < theta) <= kappa, (kind, np.mean(margins < theta))


@checks("bun2020.thm34.claim5", "bun2020.thm20", "bun2020.thm27")
def check_training_error_with_servedio_learner():
    """The real (noise-free, normalised) Servedio learner inside LazyBregBoost on tau-margin data with random
    classification noise eta = kappa tau/8: after T = ceil(16 ln(1/kappa)/gamma^2) rounds (gamma = tau/8,
    lam = gamma/4) the clean-label training error of H = mean of the clipped hypotheses is <= kappa + |dirty|/n
    (App. H Claim 5), and margins < gamma on at most a kappa + |dirty|/n fraction."""
    from proofs_checks.check_bun2020_halfspace import tau_margin_sample

    for n, d, tau, kappa, seed in [(150, 4, 0.4, 0.25, 1), (120, 3, 0.5, 0.2, 2)]:
        rng = np.random.default_rng(seed)
        X, y, yc, u = tau_margin_sample(n, d, tau, kappa * tau / 8, rng)
        gamma = tau / 8
        T = math.ceil(16 * math.log(1 / kappa) / gamma**2)
        res = PB.lazy_bregman_boost(X, y, T, kappa, gamma / 4, 0.0, normalize=True)
        H = np.clip(X @ res.hypotheses.T, -1, 1).mean(axis=1)
        dirty = float(np.mean(y != yc))
        assert np.mean(yc * H <= 0) <= kappa + dirty
        assert np.mean(y * H < gamma) <= kappa
        assert res.max_weight.max() <= 1 / (kappa * n) * (1 + 1e-12)
