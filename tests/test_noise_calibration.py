"""The noise each private entry point ACTUALLY draws is calibrated to the sensitivity its privacy claim needs
(issue 27: checks that can fail).

The stump tests checked the reported spend and the accuracy, never the noise drawn, so a mutant that passes HALF the
sensitivity to report-noisy-max (SmoothBoost's ``12.0 / (kappa * n)`` -> ``6.0 / (kappa * n)``, LazyBregBoost's
``stump_sensitivity(n, kappa)`` -> ``stump_sensitivity(2 * n, kappa)``) doubled the real epsilon and left
``privacy_spent_`` unchanged.  Here a spy sits UNDER every mechanism, at the samplers (``fast.mechanisms.
_draw_laplace`` / ``_draw_gaussian``: the discrete Laplace scale t and the discrete Gaussian variance s2 in grid
units) and at the roundings (``fast.mechanisms._release``, ``fast.private_boosting._noisy_argmax``,
``fast.estimators.boosting._release``: the grid 2^k).  From what was drawn, each check computes the privacy each
draw delivers at the sensitivity derived HERE from the papers, independently of the library's sensitivity
functions, and requires it within the reported ``privacy_spent_``:

* discrete Laplace, coordinates moving by Delta_i: sum_i (floor(Delta_i / 2^k) + 1) / t (rounding adds <= 1 unit);
* report-noisy-max, every score moving by Delta: 2 (floor(Delta / 2^k) + 1) / t (registry bun2020.s5.stump-rnm);
* discrete Gaussian, L2 sensitivity Delta over c changed coordinates: rho = (Delta + 2^k sqrt(c))^2 / (2 s2 4^k)
  (one coordinate: ((floor(Delta / 2^k) + 1) 2^k)^2 / (2 s2 4^k)), CKS20 on the grid.

Sensitivities (derived independently of the code): LazyBregBoost, centroid and stump score 4/(kappa n) (bun2020
Thm 22 with Lemma 21; registry bun2020.thm22, bun2020.s5.stump-sensitivity); SmoothBoost 12/(kappa n) = 2 (w_max +
zeta), w_max = 2/(kappa n) and zeta = 4/(kappa n) on measures of density kappa/2 (Lemma 52; registry
bun2020.lemma52), and 1 for its |mu| stopping test; Gaussian edges 2 clip; DP-Feat: no noise scale, the window's
exact Theorem 6 delta; PrivateANM (kusner2016): Spearman min(1, 6(5m - 9)/(m(m + 1))), Kendall min(1, 4/m), HSIC
(8m - 4)/(m - 1)^2 (test set), (4m/(m - 1)) (1/(h sqrt e)) (4/(n lam))(1 + 1/sqrt(2 lam)) (HSIC, training set), 1
for every propose-test-release and stability draw; ImpactEncoder, the count table 2 (replace-one: one row leaves one
cell and enters another) or 1 (add/remove-one).

Every check is then run against a half-sensitivity MUTANT made by monkeypatching (never by editing a source file:
other engineers run tests concurrently): the named sensitivity function patched to return half, or, where the
sensitivity is passed inline to a mechanism, the mechanism wrapped to receive half.  Each mutant must make its check
fail (the reported spend is unchanged, the noise halves, the real epsilon doubles).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import fast.dp_rados
import fast.estimators.boosting
import fast.impact_coding
import fast.mechanisms
import fast.private_boosting
from fast import PrivateBoostClassifier
from fast import causal_privacy as fast_causal_privacy
from fast.accounting import zcdp_to_dp_rho
from fast.dp_rados import dp_feat, gaussian_edges
from fast.estimators.causal import PrivateANM
from fast.estimators.impact import ImpactEncoder
from fast.estimators.rados import OmegaRAdaBoostClassifier, RadoBoostClassifier
from fast.private_boosting import smoothboost_privacy
from spec.links import checks

SLACK = 1 + 1e-9  # float rounding of the library's reported spend (it rounds UP; this only absorbs our own floats)


# ----------------------------------------------------------------------------------------------- the spy
class NoiseSpy:
    """Records every private draw: its kind, size, scale (t, or s2) in grid units and the grid exponent k."""

    def __init__(self, monkeypatch):
        self.draws = []
        mech, pb, est = fast.mechanisms, fast.private_boosting, fast.estimators.boosting
        real = {"dl": mech._draw_laplace, "dg": mech._draw_gaussian, "eg": mech._exact_gaussian_draws,
                "rel": mech._release, "arg": pb._noisy_argmax, "brel": est._release}

        def draw_laplace(n, rng, t, v_max):
            self.draws.append({"kind": "laplace", "n": int(n), "t": int(t), "k": None})
            return real["dl"](n, rng, t, v_max)

        def draw_gaussian(n, rng, s2, t, v_max):
            self.draws.append({"kind": "gaussian", "n": int(n), "s2": Fraction(int(s2)), "k": None})
            return real["dg"](n, rng, s2, t, v_max)

        def exact_gaussian(p, q, count, rng):
            self.draws.append({"kind": "gaussian", "n": int(count), "s2": Fraction(p, q), "k": None})
            return real["eg"](p, q, count, rng)

        def release(x, shape, k, noise):
            self._grid(k, len(noise))
            return real["rel"](x, shape, k, noise)

        def argmax(q, noise, k):
            self._grid(k, len(noise), kind="rnm")
            return real["arg"](q, noise, k)

        def boosting_release(value, grid, rng):
            out = real["brel"](value, grid, rng)
            if self.draws[-1]["k"] is None:  # not rounded through fast.mechanisms._release (an exact-int release)
                self._grid(grid.k, value.shape[0])
            assert self.draws[-1]["k"] == grid.k  # rounded on the grid the charge is computed for
            assert self.draws[-1]["s2"] == grid.sigma2_grid  # the variance drawn is the grid's
            return out

        monkeypatch.setattr(mech, "_draw_laplace", draw_laplace)
        monkeypatch.setattr(mech, "_draw_gaussian", draw_gaussian)
        monkeypatch.setattr(mech, "_exact_gaussian_draws", exact_gaussian)
        monkeypatch.setattr(mech, "_release", release)
        monkeypatch.setattr(pb, "_noisy_argmax", argmax)
        monkeypatch.setattr(est, "_release", boosting_release)

    def _grid(self, k, n, kind=None):
        last = self.draws[-1]
        assert last["k"] is None and last["n"] == n, (last, k, n)  # every draw is rounded once, on its own grid
        last["k"] = int(k)
        if kind:
            last["kind"] = kind

    def of(self, kind):
        out = [d for d in self.draws if d["kind"] == kind]
        assert all(d["k"] is not None for d in out), out
        return out


def _lam(k):
    return Fraction(2) ** k


def laplace_epsilon(draw, sensitivities):
    """Delivered epsilon of one discrete Laplace release whose coordinates move by ``sensitivities``."""
    lam = _lam(draw["k"])
    return sum(math.floor(Fraction(s) / lam) + 1 for s in sensitivities) / Fraction(draw["t"])


def rnm_epsilon(draw, sensitivity):
    """Report-noisy-max: 2 (floor(Delta / 2^k) + 1) / t (bun2020.s5.stump-rnm)."""
    return 2 * (math.floor(Fraction(sensitivity) / _lam(draw["k"])) + 1) / Fraction(draw["t"])


def gaussian_rho(draw, sensitivity, changed):
    """rho of one discrete Gaussian release at L2 sensitivity Delta over ``changed`` coordinates (CKS20, grid)."""
    lam = _lam(draw["k"])
    if changed == 1:
        inflated = (math.floor(Fraction(sensitivity) / lam) + 1) * lam
    else:
        inflated = Fraction(sensitivity) + lam * Fraction(math.sqrt(changed))
    return inflated ** 2 / (2 * draw["s2"] * lam * lam)


# ----------------------------------------------------------------------------------------------- boosting
def _boost_data(n=200, d=2, seed=0):
    gen = np.random.default_rng(seed)
    X = gen.uniform(-1, 1, (n, d))
    return X, X[:, 0] + 0.3 * X[:, 1] > 0


def _smoothboost_round_budget(spent, T, delta):
    """(eps_r, delta_r) a round may spend for the reported total: Theorem 53(2) with the sqrt(2), inverted.
    eps' = 2 T e^2 + 2 e sqrt(2 T ln(1/delta')), delta' = delta/2; delta_total = T e^eps_r delta_r + delta'."""
    b = 2.0 * math.sqrt(2.0 * T * math.log(2.0 / delta))
    e = (-b + math.sqrt(b * b + 8.0 * T * spent.epsilon)) / (4.0 * T)
    assert smoothboost_privacy(e, 0.5, T, delta / 2.0)[0] <= spent.epsilon * SLACK
    return e, (spent.delta - delta / 2.0) / (T * math.exp(e))


def verify_boosting(monkeypatch, learner, booster, kappa=0.25, T=4, d=2):
    """Fit PrivateBoostClassifier and check every draw against the claimed sensitivity and the reported spend."""
    X, y = _boost_data(d=d)
    n = X.shape[0]
    spy = NoiseSpy(monkeypatch)
    kw = dict(epsilon=4.0, delta=1e-6, n_rounds=T, kappa=kappa, weak_learner=learner, booster=booster)
    kw.update(data_norm=1.5) if learner == "halfspace" else kw.update(bounds=(-1.0, 1.0), n_thresholds=4)
    spent = PrivateBoostClassifier(**kw).fit(X, y).privacy_spent_
    if booster == "lazy_bregman":
        delta_lb = Fraction(4) / (Fraction(kappa) * n)  # Thm 22 + Lemma 21 (registry bun2020.s5.stump-sensitivity)
        if learner == "stump":
            draws = spy.of("rnm")
            assert len(draws) == T and not spy.of("laplace") and not spy.of("gaussian")
            rho = sum(rnm_epsilon(dr, delta_lb) ** 2 / 2 for dr in draws)  # pure eps_r per round, rho = eps_r^2 / 2
        else:
            draws = spy.of("gaussian")
            assert len(draws) == T and all(dr["n"] == d for dr in draws)
            rho = sum(gaussian_rho(dr, delta_lb, d) for dr in draws)
        assert float(rho) <= spent.rho * SLACK, (float(rho), spent.rho)
        return spent
    # SmoothBoost: each round one |mu| test (sensitivity 1) and one weak-learner release at 12/(kappa n)
    e, delta_r = _smoothboost_round_budget(spent, T, 1e-6)
    delta_sb = Fraction(12) / (Fraction(kappa) * n)  # 2 (w_max + zeta): Lemma 52 at density kappa/2
    tests = spy.of("laplace")
    assert 1 <= len(tests) <= T and all(dr["n"] == 1 for dr in tests)
    for dr in tests:
        assert float(laplace_epsilon(dr, [1])) <= e * SLACK
    learner_draws = spy.of("rnm") if learner == "stump" else spy.of("gaussian")
    assert len(learner_draws) in (len(tests), len(tests) - 1)  # the last test may stop the run
    for dr in learner_draws:
        if learner == "stump":
            assert float(rnm_epsilon(dr, delta_sb)) <= e * SLACK, (float(rnm_epsilon(dr, delta_sb)), e)
        else:
            rho = gaussian_rho(dr, delta_sb, d)
            assert float(rho) <= zcdp_to_dp_rho(e, delta_r) * SLACK, (float(rho), zcdp_to_dp_rho(e, delta_r))
    return spent


@checks("bun2020.s5.stump-sensitivity", "bun2020.s5.stump-rnm", "bun2020.thm22", "bun2020.lemma52")
@pytest.mark.parametrize("booster", ["lazy_bregman", "smooth"])
@pytest.mark.parametrize("learner", ["stump", "halfspace"])
def test_boosting_noise_matches_the_claimed_sensitivity(monkeypatch, learner, booster):
    """PrivateBoostClassifier's draws deliver at most the reported spend at the sensitivity the paper gives."""
    verify_boosting(monkeypatch, learner, booster)


# the mutants of issue 27, made by monkeypatching the named sensitivity functions the estimator calls
BOOSTING_MUTANTS = {
    ("stump", "lazy_bregman"): ("stump_sensitivity", lambda real: lambda n, kappa: real(2 * n, kappa)),
    ("stump", "smooth"): ("smoothboost_sensitivity", lambda real: lambda n, kappa: real(n, kappa) / 2),  # 6/(k n)
    ("halfspace", "lazy_bregman"): ("centroid_sensitivity", lambda real: lambda n, kappa, zeta=None:
                                    real(n, kappa, zeta) / 2),
    ("halfspace", "smooth"): ("smoothboost_sensitivity", lambda real: lambda n, kappa: real(n, kappa) / 2),
}


@pytest.mark.parametrize("learner, booster", list(BOOSTING_MUTANTS))
def test_boosting_half_sensitivity_mutant_is_caught(monkeypatch, learner, booster):
    """stump_sensitivity(2 n, kappa) (LazyBregBoost), 6/(kappa n) (SmoothBoost, stump and centroid), half the
    centroid sensitivity: privacy_spent_ is the same as the real code's, the noise halves, and the check fails."""
    name, mutate = BOOSTING_MUTANTS[(learner, booster)]
    honest = verify_boosting(monkeypatch, learner, booster)
    monkeypatch.setattr(fast.private_boosting, name, mutate(getattr(fast.private_boosting, name)))
    with pytest.raises(AssertionError):
        mutant = verify_boosting(monkeypatch, learner, booster)
        assert (mutant.epsilon, mutant.rho) == (honest.epsilon, honest.rho)  # the report alone cannot tell
        mutant = None  # unreachable when the check fails, as it must


# ----------------------------------------------------------------------------------------------- rados
def verify_gaussian_edges(monkeypatch, clip=1.0, intercept=False, cls=RadoBoostClassifier):
    X, y = _boost_data(100, 3)
    spy = NoiseSpy(monkeypatch)
    clf = cls(5, privacy=gaussian_edges(2.0, 1e-5, 10, clip=clip), fit_intercept=intercept,
              random_state=0).fit(X, y)
    d = X.shape[1] + intercept
    (draw,) = spy.of("gaussian")
    assert draw["n"] == X.shape[0] * d  # the m edge vectors, once
    rho = gaussian_rho(draw, 2 * Fraction(clip), d)  # one edge y_i clip(x_i) replaced: L2 <= 2 clip, d coordinates
    assert float(rho) <= clf.privacy_spent_.rho * SLACK, (float(rho), clf.privacy_spent_.rho)


@checks("nock2015.gauss")
@pytest.mark.parametrize("clip, intercept", [(1.0, False), (2.5, True)])
def test_gaussian_edges_noise_matches_the_claimed_sensitivity(monkeypatch, clip, intercept):
    verify_gaussian_edges(monkeypatch, clip, intercept)


@pytest.mark.parametrize("cls", [RadoBoostClassifier, OmegaRAdaBoostClassifier], ids=["radoboost", "omega_r"])
def test_gaussian_edges_half_sensitivity_mutant_is_caught(monkeypatch, cls):
    """noisy_edges passes 2 clip inline: the mutant is the mechanism receiving half of it; both rado estimators
    (Omega-R.AdaBoost too: its fit draws through the same source)."""
    verify_gaussian_edges(monkeypatch, cls=cls)  # the honest fit passes
    real = fast.dp_rados.gaussian_mechanism

    def half(value, *, sensitivity, **kw):
        return real(value, sensitivity=sensitivity / 2, **kw)

    monkeypatch.setattr(fast.dp_rados, "gaussian_mechanism", half)
    with pytest.raises(AssertionError):
        verify_gaussian_edges(monkeypatch, cls=cls)


def _window_delta(m, lo, hi, eps):
    """Theorem 6's delta(eps) of one rado whose signatures are uniform with K = #{sigma_i = +1} in [lo, hi]: a
    j*-neighbour shifts K by one, so delta = (sum_{lo <= k < hi} max(0, C(m, k) - e^eps C(m, k + 1)) + C(m, hi)) /
    sum_{lo <= k <= hi} C(m, k), in exact rationals (e^eps rounded down)."""
    f = Fraction(math.nextafter(math.exp(eps), 0.0))
    top = sum(max(Fraction(0), math.comb(m, k) - f * math.comb(m, k + 1)) for k in range(lo, hi)) + math.comb(m, hi)
    return top / sum(math.comb(m, k) for k in range(lo, hi + 1))


def verify_dp_feat(monkeypatch, m=40, n=4, epsilon=8.0, delta=1e-2):
    """DP-Feat draws no noise scale: its randomness is the window [lo, hi] of K its signatures are drawn from.  The
    window actually sampled (spied at ``_window_ks``, the exact sampler's draw of K) must give each rado at most the
    reported per-rado (epsilon, delta): Theorem 6's delta of that window at epsilon / n."""
    gen = np.random.default_rng(0)
    X = np.where(gen.random((m, 1)) < 0.5, 1.0, -1.0)
    y = gen.random(m) < 0.5
    used = []
    real = fast.dp_rados._window_ks

    def spy(rng, count, m_, k_lo, k_hi):
        used.append((m_, k_lo, k_hi))
        return real(rng, count, m_, k_lo, k_hi)

    monkeypatch.setattr(fast.dp_rados, "_window_ks", spy)
    spent = RadoBoostClassifier(5, n_rados=n, privacy=dp_feat(0, epsilon, delta), random_state=0).fit(X, y)
    spent = spent.privacy_spent_
    ((m_used, lo, hi),) = used
    eps_r = spent.epsilon / n
    assert m_used == m and eps_r * n <= epsilon * SLACK
    worst = float(_window_delta(m, lo, hi, eps_r))
    assert worst * n <= spent.delta * SLACK, (worst * n, spent.delta)


@checks("nock2015.thm6")
def test_dp_feat_window_matches_the_reported_delta(monkeypatch):
    verify_dp_feat(monkeypatch)


def test_dp_feat_narrower_window_mutant_is_caught(monkeypatch):
    """The DP-Feat analogue of halving the noise: its randomness is the window of signatures, and a NARROWER window
    (here the one built for half the window epsilon: [5, 35] instead of [1, 39] at m = 40) makes each released
    coordinate say more (Theorem 6 delta 6.0e-7 per rado against the reported 2.1e-8); the reported spend is
    unchanged and the check fails."""
    real = fast.dp_rados.dp_feat_rados
    monkeypatch.setattr(fast.dp_rados, "dp_feat_rados",
                        lambda X, y, feature, n, epsilon, **kw: real(X, y, feature, n, epsilon / 2, **kw))
    with pytest.raises(AssertionError):
        verify_dp_feat(monkeypatch)


# ----------------------------------------------------------------------------------------------- PrivateANM
def _anm_data(n=120, seed=0):
    gen = np.random.default_rng(seed)
    x = gen.uniform(-1, 1, n)
    return x, np.clip(x ** 3 + 0.1 * gen.uniform(-1, 1, n), -1.0, 1.0)


def _anm_sensitivity(score, privacy, m, n, lam, h):
    """The per-score sensitivity, from the thesis (corrected bounds), written here as formulas."""
    if score == "iqr" or (privacy == "train" and score != "hsic"):
        return Fraction(1)  # every propose-test-release / stability draw: a distance or a log-IQR in a bin
    if privacy == "test":
        return {"spearman": min(Fraction(1), Fraction(6 * (5 * m - 9), m * (m + 1))),  # Thm 3.1 (proof)
                "kendall": min(Fraction(1), Fraction(4, m)),                            # Thm 3.2
                "hsic": Fraction(8 * m - 4, (m - 1) ** 2)}[score]                       # Thm 5, entrywise
    r_n = 4.0 / (n * lam) * (1.0 + 1.0 / math.sqrt(2.0 * lam))                          # Thm 7, corrected
    return Fraction(4.0 * m / (m - 1) / (h * math.sqrt(math.e)) * r_n)                  # Thm 9, corrected


def verify_anm(monkeypatch, score, privacy):
    x, y = _anm_data()
    spy = NoiseSpy(monkeypatch)
    lam, h = 1.0, 0.5
    est = PrivateANM(score, epsilon=2.0, delta=1e-3, privacy=privacy, lam=lam, bandwidth=0.3, hsic_bandwidth=h,
                     random_state=0).fit(x, y)
    sens = _anm_sensitivity(score, privacy, est.m_test_, est.n_train_, lam, h)
    draws = spy.of("laplace")
    spent = est.privacy_spent_.epsilon
    if privacy == "train" and score in ("spearman", "kendall"):
        # the reported sensitivity_ of a stability release is the residual step R_n (Thm 7, corrected), derived here
        r_n = 4.0 / (est.n_train_ * lam) * (1.0 + 1.0 / math.sqrt(2.0 * lam))
        assert math.isclose(est.sensitivity_, r_n, rel_tol=1e-12), (est.sensitivity_, r_n)
    if score == "iqr" or (privacy == "train" and score != "hsic"):
        # per draw at most the share of one draw: 4 PTR releases x 3 draws (test), 2 x 3 (train), 2 stability draws
        share = spent / {"test": 12, "train": 6}[privacy] if score == "iqr" else spent / 2
        assert draws and all(dr["n"] == 1 for dr in draws)
        for dr in draws:
            assert float(laplace_epsilon(dr, [sens])) <= share * SLACK, (float(laplace_epsilon(dr, [sens])), share)
    else:  # the two scores, one 2-vector release, each coordinate moving by sens
        (dr,) = draws
        assert dr["n"] == 2
        assert float(laplace_epsilon(dr, [sens, sens])) <= spent * SLACK, (float(laplace_epsilon(dr, [sens] * 2)),
                                                                           spent)


ANM_CASES = [(s, p) for p in ("test", "train") for s in ("spearman", "kendall", "hsic", "iqr")]


@checks("kusner2016.ch4.thm3_spearman", "kusner2016.ch4.thm3_kendall", "kusner2016.ch4.thm5",
        "kusner2016.ch4.thm9", "kusner2016.ch4.alg4", "kusner2016.ch4.thm8")
@pytest.mark.parametrize("score, privacy", ANM_CASES)
def test_private_anm_noise_matches_the_claimed_sensitivity(monkeypatch, score, privacy):
    verify_anm(monkeypatch, score, privacy)


ANM_MUTANTS = {("spearman", "test"): "spearman_sensitivity", ("kendall", "test"): "kendall_sensitivity",
               ("hsic", "test"): "hsic_sensitivity", ("hsic", "train"): "hsic_train_sensitivity"}


@pytest.mark.parametrize("score, privacy", ANM_CASES)
def test_private_anm_half_sensitivity_mutant_is_caught(monkeypatch, score, privacy):
    """The named sensitivity function halved (the Laplace scores), or, where the sensitivity 1 is passed inline
    (propose-test-release, stability release), the mechanism receiving half of it."""
    name = ANM_MUTANTS.get((score, privacy))
    if name is not None:
        real = getattr(fast_causal_privacy, name)
        monkeypatch.setattr(fast_causal_privacy, name, lambda *a, **kw: real(*a, **kw) / 2)
    else:
        real = fast.mechanisms.laplace_mechanism
        monkeypatch.setattr(fast.mechanisms, "laplace_mechanism",
                            lambda value, *, sensitivity, **kw: real(value, sensitivity=sensitivity / 2, **kw))
    with pytest.raises(AssertionError):
        verify_anm(monkeypatch, score, privacy)


# ----------------------------------------------------------------------------------------------- ImpactEncoder
def verify_impact(monkeypatch, mode, neighbouring="replace-one"):
    gen = np.random.default_rng(0)
    X = np.column_stack([gen.choice(["a", "b", "c"], 60), gen.choice(["u", "v"], 60)]).astype(object)
    y = gen.random(60) < 0.5
    spy = NoiseSpy(monkeypatch)
    enc = ImpactEncoder(mode=mode, epsilon=1.0, categories=[["a", "b", "c"], ["u", "v"]], cv=3, random_state=0,
                        neighbouring=neighbouring).fit(X, y)
    # one row replaced: it leaves one cell (its old level and class) and enters one: two cells move by 1 each;
    # one row added or removed: one cell moves by 1 (in every fold layout of the release)
    cells = [1, 1] if neighbouring == "replace-one" else [1]
    draws = spy.of("laplace")
    assert len(draws) == 2  # one release per column
    total = sum(laplace_epsilon(dr, cells) for dr in draws)
    assert float(total) <= enc.privacy_spent_.epsilon * SLACK, (float(total), enc.privacy_spent_.epsilon)


IMPACT_CASES = [("cross", "replace-one"), ("split", "replace-one"), ("naive", "replace-one"),
                ("naive", "add/remove-one"), ("jackknife", "add/remove-one")]


@checks("winvector2015.laplace")
@pytest.mark.parametrize("mode, neighbouring", IMPACT_CASES)
def test_impact_encoder_noise_matches_the_claimed_sensitivity(monkeypatch, mode, neighbouring):
    verify_impact(monkeypatch, mode, neighbouring)


@pytest.mark.parametrize("mode, neighbouring", IMPACT_CASES)
def test_impact_encoder_half_sensitivity_mutant_is_caught(monkeypatch, mode, neighbouring):
    real = fast.impact_coding.count_sensitivity
    monkeypatch.setattr(fast.impact_coding, "count_sensitivity", lambda *a, **kw: real(*a, **kw) / 2)
    with pytest.raises(AssertionError):
        verify_impact(monkeypatch, mode, neighbouring)


# ----------------------------------------------------------------------------------------------- the spy itself
def test_the_spy_sees_the_scale_actually_drawn(monkeypatch):
    """The spy reads the sampler's scale and the rounding's grid, not the caller's arguments: one Laplace release
    at (sensitivity 1, epsilon 1) is recorded with its grid's t and k, and its delivered epsilon at the true
    sensitivity is exactly the grid's D/t."""
    spy = NoiseSpy(monkeypatch)
    fast.mechanisms.laplace_mechanism(0.5, sensitivity=1.0, epsilon=1.0)
    (dr,) = spy.of("laplace")
    grid = fast.mechanisms.laplace_grid(1.0, 1.0)
    assert (dr["t"], dr["k"]) == (grid.scale, grid.k)
    assert laplace_epsilon(dr, [1]) == Fraction(grid.integer_sensitivity, grid.scale)


# ----------------------------------------------------------------------------------------------- the CLI
def verify_cli_boost(monkeypatch, tmp_path, learner):
    """``privlearn boost`` run in-process under the spy: its draws, at the sensitivity derived here (4/(kappa n),
    LazyBregBoost, the estimator's default kappa 0.2: the CLI sets none), compose (zCDP, rho summed over the
    rounds) to an epsilon, by the tight conversion, within the (epsilon, delta) the CLI WRITES into the model it
    publishes.  A half-sensitivity mutant anywhere under the CLI halves the noise and breaks this."""
    import json

    from fast import cli
    from fast.accounting import zcdp_to_dp_tight

    X, y = _boost_data(300, 2)
    path = tmp_path / "train.csv"
    rows = ["a,b,label"] + [f"{a!r},{b!r},{'yes' if t else 'no'}" for (a, b), t in zip(X.tolist(), y)]
    path.write_text("\n".join(rows) + "\n")
    spy = NoiseSpy(monkeypatch)
    out = tmp_path / "model.json"
    extra = ["--data-norm", "1.5"] if learner == "halfspace" else ["--bounds", "-1:1"]
    assert cli.main(["boost", str(path), "--label", "label", "--classes", "no,yes", "--epsilon", "2", "--rounds",
                     "4", "--weak-learner", learner, *extra, "--out", str(out), "-q"]) == cli.EXIT_OK
    model = json.loads(out.read_text())
    eps, delta = model["privacy"]["epsilon"], model["privacy"]["delta"]
    sens = Fraction(4) / (Fraction(PrivateBoostClassifier().kappa) * X.shape[0])  # Thm 22 + Lemma 21
    if learner == "stump":
        draws = spy.of("rnm")
        rho = sum(rnm_epsilon(dr, sens) ** 2 / 2 for dr in draws)  # pure eps_r per round
    else:
        draws = spy.of("gaussian")
        rho = sum(gaussian_rho(dr, sens, 2) for dr in draws)
    assert len(draws) == 4
    assert zcdp_to_dp_tight(float(rho), delta) <= eps * SLACK, (float(rho), eps, delta)


@checks("bun2020.s5.stump-sensitivity", "bun2020.thm22")
@pytest.mark.parametrize("learner", ["stump", "halfspace"])
def test_cli_boost_noise_matches_the_claimed_sensitivity(monkeypatch, tmp_path, learner):
    verify_cli_boost(monkeypatch, tmp_path, learner)


@pytest.mark.parametrize("learner, name", [("stump", "stump_sensitivity"), ("halfspace", "centroid_sensitivity")])
def test_cli_boost_half_sensitivity_mutant_is_caught(monkeypatch, tmp_path, learner, name):
    """The library's sensitivity function halved under the CLI (the model still reports the same spend)."""
    real = getattr(fast.private_boosting, name)
    monkeypatch.setattr(fast.private_boosting, name, lambda *a, **k: real(*a, **k) / 2)
    with pytest.raises(AssertionError):
        verify_cli_boost(monkeypatch, tmp_path, learner)


def verify_cli_causal(monkeypatch, tmp_path):
    """``privlearn causal --score kendall`` (test privacy, the default) in-process under the spy: its one 2-vector
    Laplace release, each coordinate moving by min(1, 4/m_test) (Thm 3.2; m_test the public size of the test half
    the estimator uses on this data), delivers at most the --epsilon the user gave."""
    from fast import cli

    x, y = _anm_data()
    path = tmp_path / "pairs.csv"
    path.write_text("a,b\n" + "".join(f"{u!r},{v!r}\n" for u, v in zip(x.tolist(), y.tolist())))
    m_test = PrivateANM("kendall", epsilon=1.0, delta=1e-3, random_state=0).fit(x, y).m_test_
    spy = NoiseSpy(monkeypatch)
    assert cli.main(["causal", str(path), "--x", "a", "--y", "b", "--epsilon", "1", "--score", "kendall", "--seed",
                     "0", "-q"]) == cli.EXIT_OK
    (dr,) = spy.of("laplace")
    sens = min(Fraction(1), Fraction(4, m_test))
    assert dr["n"] == 2 and float(laplace_epsilon(dr, [sens, sens])) <= 1.0 * SLACK


def verify_cli_impact(monkeypatch, tmp_path):
    """``privlearn impact --epsilon 1`` (cross mode, replace-one) in-process under the spy: one release per
    column, one row moving two cells by 1 each, within the --epsilon given."""
    from fast import cli

    gen = np.random.default_rng(0)
    rows = [(gen.choice(["a", "b", "c"]), gen.choice(["u", "v"]), "yes" if gen.random() < 0.5 else "no")
            for _ in range(60)]
    path = tmp_path / "cats.csv"
    path.write_text("c1,c2,label\n" + "".join(f"{a},{b},{t}\n" for a, b, t in rows))
    spy = NoiseSpy(monkeypatch)
    assert cli.main(["impact", str(path), "--column", "c1", "--column", "c2", "--label", "label", "--classes",
                     "no,yes", "--epsilon", "1", "--levels", "c1=a,b,c", "--levels", "c2=u,v", "--out",
                     str(tmp_path / "codes.csv"), "-q"]) == cli.EXIT_OK
    draws = spy.of("laplace")
    assert len(draws) == 2
    assert float(sum(laplace_epsilon(dr, [1, 1]) for dr in draws)) <= 1.0 * SLACK


@checks("kusner2016.ch4.thm3_kendall", "winvector2015.laplace")
@pytest.mark.parametrize("command", ["causal", "impact"])
def test_cli_noise_matches_the_claimed_sensitivity(monkeypatch, tmp_path, command):
    {"causal": verify_cli_causal, "impact": verify_cli_impact}[command](monkeypatch, tmp_path)


@pytest.mark.parametrize("command", ["causal", "impact"])
def test_cli_half_sensitivity_mutant_is_caught(monkeypatch, tmp_path, command):
    """kendall_sensitivity / count_sensitivity halved under the CLI: the release stays within nothing."""
    module, name = ((fast_causal_privacy, "kendall_sensitivity") if command == "causal"
                    else (fast.impact_coding, "count_sensitivity"))
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **kw: real(*a, **kw) / 2)
    with pytest.raises(AssertionError):
        {"causal": verify_cli_causal, "impact": verify_cli_impact}[command](monkeypatch, tmp_path)


# ----------------------------------------------------------------------------------------------- one-vs-rest
@pytest.mark.parametrize("learner", ["stump", "halfspace"])
def test_one_vs_rest_reports_what_its_draws_deliver(monkeypatch, learner):
    """PrivateBoostClassifier with three declared classes (bf0c93d: k binary LazyBregBoost fits, the spend planned
    once before any noise): the rho its k T draws deliver at 4/(kappa n) (derived here) equals the reported
    privacy_spent_.rho up to the rounding up of the report (relative 1e-13; the grids' own inflation is 2^-50).
    The plan repeats the calibration: a plan computed at half the sensitivity (the harness's est-ovr-*-half) lands
    on another grid and reports another rho, which this sees; the delivered rho above the report fails too."""
    X, _ = _boost_data(240, 2)
    y = np.digitize(X[:, 0], [-0.33, 0.33])  # three classes
    spy = NoiseSpy(monkeypatch)
    kappa, T, k = 0.25, 3, 3
    kw = dict(epsilon=3.0, delta=1e-6, n_rounds=T, kappa=kappa, weak_learner=learner, classes=(0, 1, 2))
    kw.update(data_norm=1.5) if learner == "halfspace" else kw.update(bounds=(-1.0, 1.0), n_thresholds=4)
    spent = PrivateBoostClassifier(**kw).fit(X, y).privacy_spent_
    sens = Fraction(4) / (Fraction(kappa) * X.shape[0])
    if learner == "stump":
        draws = spy.of("rnm")
        rho = sum(rnm_epsilon(dr, sens) ** 2 / 2 for dr in draws)
    else:
        draws = spy.of("gaussian")
        rho = sum(gaussian_rho(dr, sens, 2) for dr in draws)
    assert len(draws) == k * T
    assert abs(float(rho) - spent.rho) <= 1e-13 * spent.rho, (float(rho), spent.rho)
