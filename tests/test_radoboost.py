"""RadoBoost, Omega-R.AdaBoost and AdaBoost: paper identities, edge cases, bad input (both packages)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fast.radoboost
import fast.rados
import reference.radoboost
from spec.links import checks
from spec.pairs.radoboost import _check_lemma4, _check_lossid, rado_matrices
from spec.radoboost_contract import R_MAX

IMPLS = [reference.radoboost, fast.radoboost]
IDS = ["reference", "fast"]


def _frac_run(Pi, T):
    """RadoBoost's weights in exact rational arithmetic (eq. 9-11, strong learner, no renormalisation)."""
    n, d = len(Pi), len(Pi[0])
    pstar = [max(abs(Pi[j][k]) for j in range(n)) for k in range(d)]
    w = [Fraction(1, n)] * n
    out = []
    for _ in range(T):
        r = [sum(w[j] * Pi[j][k] for j in range(n)) / pstar[k] if pstar[k] else Fraction(0) for k in range(d)]
        k = max(range(d), key=lambda i: (abs(r[i]), -i))
        if abs(r[k]) in (0, 1):
            break
        w = [w[j] * (1 - r[k] * Fraction(Pi[j][k]) / pstar[k]) / (1 - r[k] ** 2) for j in range(n)]
        out.append((k, r[k], list(w)))
    return out


@pytest.mark.equivalence
@checks("nock2015.alg1", "nock2015.alg1.wnorm")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_golden_integer_rados_against_exact_fractions(impl):
    rng = np.random.default_rng(7)
    Pi = rng.integers(-9, 10, size=(12, 3)).astype(float)
    exact = _frac_run(Pi.astype(int).tolist(), 9)
    assert len(exact) == 9
    for k, r, w in exact:  # eq. (11) keeps w in the simplex, exactly
        assert sum(w) == 1 and min(w) >= 0
    res = impl.radoboost(Pi, 9)
    assert res.features.tolist() == [k for k, _, _ in exact]
    np.testing.assert_allclose(res.r, [float(r) for _, r, _ in exact], rtol=1e-12)
    np.testing.assert_allclose(res.weights, [float(x) for x in exact[-1][2]], rtol=1e-10, atol=1e-15)
    pstar = np.abs(Pi).max(axis=0)
    np.testing.assert_allclose(res.alpha, np.arctanh(res.r) / pstar[res.features], rtol=1e-12)


@pytest.mark.equivalence
@checks("nock2015.alg1.adaequiv")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@pytest.mark.parametrize("r_target", [0.3, -0.7, 0.999, -0.9995])
def test_linear_update_equals_exponential_on_extreme_values(impl, r_target):
    # every rado at +-pi_* of feature 0: (1 - r x)/(1 - r^2) = exp(-alpha pi_* x)/sqrt(1 - r^2)
    n = 4000
    n_plus = round(n * (1 + r_target) / 2)
    x = np.array([1.0] * n_plus + [-1.0] * (n - n_plus))
    Pi = np.column_stack([3.0 * x, 0.1 * np.resize([1.0, -1.0], n)])
    res = impl.radoboost(Pi, 1)
    assert res.features.tolist() == [0]
    r, alpha = res.r[0], res.alpha[0]
    expo = np.exp(-alpha * Pi[:, 0]) / n
    np.testing.assert_allclose(expo.sum(), math.sqrt(1 - r * r), rtol=1e-9)  # Z = sqrt(1 - r^2)
    np.testing.assert_allclose(res.weights, expo / expo.sum(), rtol=1e-9)
    # away from the extremes the linear update is the chord of the exponential: (1 - r x) <= ...
    xs = np.linspace(-1, 1, 101)
    chord = (1 - r * xs) / (1 - r * r)
    assert np.all(np.exp(-alpha * 3.0 * xs) / math.sqrt(1 - r * r) <= chord * (1 + 1e-12))


@checks("nock2015.wfi.strong", "nock2016.eq19")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_strong_learner_takes_max_abs_edge_lowest_index_on_ties(impl):
    Pi = np.array([[1.0, -3.0, 3.0, 0.0], [2.0, -3.0, 3.0, 0.0], [-1.0, 1.0, -1.0, 0.0]])
    res = impl.radoboost(Pi, 1)
    r = impl.normalised_edges(Pi, np.full(3, 1 / 3))
    assert abs(r[1]) == abs(r[2]) == np.max(np.abs(r))
    assert res.features.tolist() == [1]  # tie between 1 and 2: lowest index
    assert r[3] == 0.0


@checks("nock2015.wfi.prudential")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@settings(max_examples=40)
@given(Pi=rado_matrices(max_n=10, max_d=5), lam=st.sampled_from([0.05, 0.2, 0.6]))
def test_prudential_edges_never_exceed_lambda(impl, Pi, lam):
    res = impl.radoboost(Pi, 10, weak_learner="prudential", lambda_p=lam)
    assert np.all(np.abs(res.r_star) <= lam + 1e-15)
    assert np.all(np.abs(res.r) >= np.abs(res.r_star) - 1e-15)
    _check_lemma4(res)


@checks("nock2015.wfi.median")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_median_learner_picks_lower_median_edge(impl):
    rng = np.random.default_rng(3)
    Pi = rng.normal(size=(50, 6)) + np.array([2.0, 1.0, 0.5, 0.0, -0.7, -1.5])
    res = impl.radoboost(Pi, 1, weak_learner="median")
    r = np.abs(impl.normalised_edges(Pi, np.full(50, 1 / 50)))
    assert np.isclose(abs(res.r[0]), np.sort(r)[2])  # 6 features: lower median = 3rd smallest
    assert res.r[0] == res.r_star[0]


@checks("nock2015.lemma4", "nock2015.wla")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@settings(max_examples=60)
@given(Pi=rado_matrices(max_n=12, max_d=5), wl=st.sampled_from(["strong", "median", "random"]),
       kappa=st.sampled_from([1.0, 2.5]), T=st.integers(1, 30))
def test_lemma4_on_random_runs(impl, Pi, wl, kappa, T):
    res = impl.radoboost(Pi, T, weak_learner=wl, kappa=kappa, rng=0)
    _check_lemma4(res)  # log F <= chain <= -sum r*^2/(2 kappa) <= -T gamma^2/(2 kappa), gamma realised


@checks("nock2015.eq17")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_kappa_divides_theta_and_weights_do_not_depend_on_kappa(impl):
    rng = np.random.default_rng(11)
    Pi = rng.normal(size=(40, 4)) + 0.3
    one = impl.radoboost(Pi, 25)
    for kappa in (1.5, 3.0):
        res = impl.radoboost(Pi, 25, kappa=kappa)
        assert res.features.tolist() == one.features.tolist()
        np.testing.assert_allclose(res.theta, one.theta / kappa, rtol=1e-12)
        np.testing.assert_allclose(res.weights, one.weights, rtol=1e-12)
        # eq. (17), with the factor 2 kept: F^r_log <= log 2 - sum r^2 / (2 kappa m), i.e. log F_exp <= -sum r^2/(2 kappa)
        assert res.log_exp_risk[-1] <= -np.sum(res.r ** 2) / (2 * kappa) + 1e-12


@checks("nock2015.eq13")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_eq13_deterministic_part_on_all_rados(impl):
    # Sigma_r = Sigma_m (all 2^m rados): F_log(S, theta_T) = log 2 + (1/m) log F_exp^r <= log 2 - sum r^2 / (2m)
    rng = np.random.default_rng(5)
    m = 8
    X = rng.normal(size=(m, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=m) > 0, 1, -1)
    Pi = fast.rados.all_rados(X, y)
    res = impl.radoboost(Pi, 20)
    f_log = fast.rados.logistic_risk(X, y, res.theta)
    assert math.isclose(f_log, math.log(2) + res.log_exp_risk[-1] / m, rel_tol=1e-10)
    assert f_log <= math.log(2) - np.sum(res.r ** 2) / (2 * m) + 1e-12


@checks("nock2015.alg.adaboost", "nock2015.eq14")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_adaboost_is_schapire_singer_with_exponential_weights(impl):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4))
    y = np.where(X @ np.array([1.0, -0.5, 0.0, 0.2]) + 0.3 * rng.normal(size=60) > 0, 1, -1)
    res = impl.adaboost(X, y, 30)
    # replay by hand: r^ex_k = sum_i w_i y_i x_ik / x_*k (eq. 14), exponential update
    w = np.full(60, 1 / 60)
    theta = np.zeros(4)
    xstar = np.abs(X).max(axis=0)
    for t in range(30):
        r = (w * y) @ X / xstar
        k = int(np.argmax(np.abs(r)))
        assert k == res.features[t]
        alpha = 0.5 * np.log((1 + r[k]) / (1 - r[k])) / xstar[k]
        theta[k] += alpha
        w = w * np.exp(-alpha * y * X[:, k])
        w /= w.sum()
    np.testing.assert_allclose(res.theta, theta, rtol=1e-9)
    train_err = np.mean(np.sign(X @ res.theta) != y)
    assert train_err < 0.2
    sub = impl.adaboost(X, y, 5, n=10, rng=4)
    rows = np.random.default_rng(4).permutation(60)[:10]  # AdaBoost(n): n examples without replacement
    np.testing.assert_array_equal(sub.theta, impl.adaboost(X[rows], y[rows], 5).theta)
    assert sub.weights.shape == (10,)


@checks("nock2016.alg1", "nock2016.alg1.lossid")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@pytest.mark.parametrize("reg,params", [("none", {}), ("lasso", {}), ("ridge", {}), ("linf", {}),
                                        ("slope", {"q": 0.3}), ("elastic_net", {"l1": 1.0, "l2": 0.5})])
def test_omega_loss_is_product_of_normalisers_and_delta_cancels(impl, reg, params):
    rng = np.random.default_rng(9)
    Pi = rng.normal(size=(30, 5)) * 4 + 1.0
    res = impl.omega_radaboost(Pi, 25, regularizer=reg, omega=0.05, regularizer_params=params)
    _check_lossid(res)
    # delta_t cancels in the normalised weights: replay the exponential update without it
    log_w = np.full(30, -np.log(30))
    for k, a in zip(res.features, res.alpha):
        log_w = log_w - a * Pi[:, k]
        log_w -= np.log(np.sum(np.exp(log_w - log_w.max()))) + log_w.max()
    np.testing.assert_allclose(res.weights, np.exp(log_w), rtol=1e-9, atol=1e-300)
    if reg == "none":
        plain = impl.adaboost(np.asarray(Pi), np.ones(30, dtype=int), 25)  # omega = 0: AdaBoost on rados
        np.testing.assert_allclose(plain.theta, impl.omega_radaboost(Pi, 25, weak_learner="strong").theta, rtol=1e-12)


def _l1_problem(seed=12, m=80, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) * np.array([1.0, 3.0, 0.5, 2.0, 1.0, 0.2])[:d]
    y = np.where(X @ np.linspace(1.0, -1.0, d) + 0.5 * rng.normal(size=m) > 0, 1, -1).astype(np.int8)
    return X, y


@pytest.mark.equivalence
@checks("nock2016.sec5.l1ada", "nock2015.alg.adaboost")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@pytest.mark.parametrize("reg,params", [("lasso", {}), ("ridge", {}), ("slope", {"q": 0.3}), ("none", {})])
def test_regularised_adaboost_with_omega_zero_is_plain_adaboost(impl, reg, params):
    X, y = _l1_problem()
    plain = impl.adaboost(X, y, 40)
    for omega in ([0.0] if reg != "none" else [0.0, 5.0]):  # "none" ignores omega
        res = impl.adaboost(X, y, 40, regularizer=reg, omega=omega, regularizer_params=params)
        for field in ("theta", "features", "r", "r_star", "alpha", "log_exp_risk", "weights", "log_z", "log_loss"):
            np.testing.assert_array_equal(getattr(res, field), getattr(plain, field), err_msg=field)
        assert res.stop_reason == plain.stop_reason
    sub_plain = impl.adaboost(X, y, 10, n=30, rng=3)
    sub = impl.adaboost(X, y, 10, n=30, rng=3, regularizer=reg, omega=0.0, regularizer_params=params)
    np.testing.assert_array_equal(sub.theta, sub_plain.theta)


@checks("nock2016.sec5.l1ada", "nock2016.alg1.lossid")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@pytest.mark.parametrize("beta", [1e-4, 1e-2, 1.0, 1e4])
def test_l1_adaboost_loss_selection_and_product_of_normalisers(impl, beta):
    X, y = _l1_problem()
    T = 30
    res = impl.adaboost(X, y, T, regularizer="lasso", omega=beta)
    _check_lossid(res)  # prod_t Z_t = l(theta_t), from the Z_t alone
    E = y[:, None] * X
    xstar = np.abs(X).max(axis=0)
    # the loss, recomputed from scratch: log((1/m) sum_i exp(-theta_t . y_i x_i)) + beta ||theta_t||_1
    for t, theta in enumerate(res.iterates()):
        a = -E @ theta
        direct = a.max() + np.log(np.mean(np.exp(a - a.max()))) + beta * np.abs(theta).sum()
        assert res.log_loss[t] == pytest.approx(direct, rel=1e-10, abs=1e-10)
    # replay Omega-WL on the edges: argmax_k |r_k| - beta (|theta_k + alpha_k| - |theta_k|), full AdaBoost step
    w = np.full(X.shape[0], 1 / X.shape[0])
    theta = np.zeros(X.shape[1])
    for t in range(res.features.size):
        r = (w @ E) / xstar
        alpha = np.arctanh(r) / xstar
        score = np.abs(r) - beta * (np.abs(theta + alpha) - np.abs(theta))
        k = int(np.argmax(score))
        assert np.sort(score)[-1] - np.sort(score)[-2] > 1e-9  # no near tie in this instance
        assert k == res.features[t], (beta, t)
        assert res.alpha[t] == pytest.approx(alpha[k], rel=1e-10)  # the penalty never shortens the step
        theta[k] += alpha[k]
        w = w * np.exp(-alpha[k] * E[:, k])
        w /= w.sum()
    np.testing.assert_allclose(res.theta, theta, rtol=1e-9)


@checks("nock2016.sec5.l1ada")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_l1_adaboost_beta_changes_the_path_and_huge_beta_keeps_theta_zero(impl):
    X, y = _l1_problem()
    plain = impl.adaboost(X, y, 30)
    heavy = impl.adaboost(X, y, 30, regularizer="lasso", omega=1e4)
    assert heavy.features.tolist() != plain.features.tolist()  # the penalty changes which features are chosen
    # with beta = 1e4 every iterate's regularised loss exceeds l(theta_0) = 1 (log 0): the kept iterate is 0
    assert np.all(heavy.log_loss > 0)
    # the plain run's l1 mass is what a huge beta pays for: its first step already costs more than log F gains
    assert 1e4 * np.abs(plain.iterates()[0]).sum() > -plain.log_exp_risk[0]


@checks("nock2016.alg2", "nock2016.def8")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_ridge_clamp_and_preference_order(impl):
    rng = np.random.default_rng(4)
    Pi = rng.normal(size=(25, 4)) + np.array([3.0, 0.5, 0.0, -2.0])
    res = impl.omega_radaboost(Pi, 15, regularizer="ridge", omega=0.01, gamma=0.4)
    assert np.all(np.abs(res.r_star) <= 0.4 + 1e-15)
    assert res.gamma == pytest.approx(np.min(np.abs(res.r_star)))  # def8: realised gamma_WL
    # preference order: with a huge omega the penalty dominates; the learner avoids growing theta
    strong = impl.omega_radaboost(Pi, 1, regularizer="lasso", omega=0.0)
    heavy = impl.omega_radaboost(Pi, 1, regularizer="lasso", omega=10.0)
    r = impl.normalised_edges(Pi, np.full(25, 1 / 25))
    pstar = np.abs(Pi).max(axis=0)
    score = np.abs(r) - 10.0 * np.abs(np.arctanh(r) / pstar)
    assert heavy.features[0] == int(np.argmax(score))
    assert strong.features[0] == int(np.argmax(np.abs(r)))


# --------------------------------------------------------------------------- edge cases


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_edge_cases(impl):
    # T = 0
    res = impl.radoboost(np.ones((3, 2)), 0)
    assert res.features.size == 0 and np.all(res.theta == 0) and res.stop_reason == "completed"
    np.testing.assert_array_equal(res.weights, np.full(3, 1 / 3))
    # all features zero
    res = impl.radoboost(np.zeros((4, 3)), 5)
    assert res.stop_reason == "no_feature" and np.all(res.theta == 0)
    # n = 1: |r| = 1 on the first round -> finite clamped step, stop
    res = impl.radoboost(np.array([[2.0, -4.0]]), 5)
    assert res.stop_reason == "saturated" and res.features.tolist() == [0]
    assert res.r_star[0] == R_MAX and np.isfinite(res.theta).all()
    # a zero feature is never selected, even when everything else is weak
    res = impl.radoboost(np.array([[0.0, 1.0], [0.0, -1.0], [0.0, 1.0]]), 3)
    assert 0 not in res.features
    # zero edge: stop
    res = impl.radoboost(np.array([[1.0], [-1.0]]), 4)
    assert res.stop_reason == "no_edge" and res.features.size == 0
    # weights that underflow: huge rados, many rounds -> still a distribution, finite risk
    rng = np.random.default_rng(0)
    Pi = rng.normal(size=(200, 3)) * 1e6 + 2e5
    for r in (impl.radoboost(Pi, 200), impl.omega_radaboost(Pi, 200, regularizer="lasso", omega=1e-3)):
        assert np.all(np.isfinite(r.log_exp_risk)) and np.isclose(r.weights.sum(), 1.0)
        assert np.all(r.weights >= 0)
    # a huge delta_t (lasso step ~1e55 on a feature with pi_* ~ 1e-56) must not wipe out the weights' digits
    Pi = np.array([[1.0, -1.0, 1.2e-56], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    res = impl.omega_radaboost(Pi, 1, regularizer="lasso", omega=1e-3)
    assert res.delta[0] > 1e50 and abs(res.weights.sum() - 1) < 1e-15
    plain = impl.omega_radaboost(Pi, 1, regularizer="none")
    np.testing.assert_allclose(res.weights, plain.weights, rtol=1e-14)
    np.testing.assert_allclose(res.log_z, plain.log_z + res.delta, rtol=1e-14)
    with pytest.raises(ValueError, match="rescale the feature"):
        impl.radoboost(np.array([[1.0, 1e-200]]), 1)
    # omega: saturation too
    res = impl.omega_radaboost(np.array([[1.0, 2.0]]), 3, regularizer="lasso", omega=0.1)
    assert res.stop_reason == "saturated"


BAD = [
    (lambda m: m.radoboost(np.ones((2, 2)), -1), ValueError, "T must be an integer >= 0"),
    (lambda m: m.radoboost(np.ones((0, 2)), 1), ValueError, "rados must not be empty"),
    (lambda m: m.radoboost(np.array([[np.nan, 1.0]]), 1), ValueError, "finite"),
    (lambda m: m.radoboost(np.ones((2, 2)), 1, weak_learner="best"), ValueError, "weak_learner must be one of"),
    (lambda m: m.radoboost(np.ones((2, 2)), 1, kappa=0.5), ValueError, "kappa"),
    (lambda m: m.radoboost(np.ones((2, 2)), 1, weak_learner="prudential", lambda_p=1.0), ValueError, "lambda_p"),
    (lambda m: m.omega_radaboost(np.ones((2, 2)), 1, regularizer="lasso", omega=-1.0), ValueError, "omega"),
    (lambda m: m.omega_radaboost(np.ones((2, 2)), 1, regularizer="ridge", gamma=1.0), ValueError, "gamma"),
    (lambda m: m.omega_radaboost(np.ones((2, 2)), 1, regularizer="group"), ValueError, "regularizer must be one of"),
    (lambda m: m.adaboost(np.ones((2, 2)), [1, -1], 1, regularizer="l1", omega=1.0), ValueError,
     "regularizer must be one of"),
    (lambda m: m.adaboost(np.ones((2, 2)), [1, -1], 1, regularizer="lasso", omega=-1e-4), ValueError, "omega"),
]


@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
@pytest.mark.parametrize("call,exc,text", BAD)
def test_bad_input_clear_errors(impl, call, exc, text):
    with pytest.raises(exc, match=text):
        call(impl)


# --------------------------------------------------------------------------- the committed experiment (nock2016 s5)


def _committed_results():
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "docs" / "experiments" / "rado_boosting" / "results.json"
    if not path.is_file():
        pytest.skip("docs/experiments/rado_boosting/results.json not generated")
    return json.loads(path.read_text())


@checks("nock2016.sec5.setup", "nock2016.sec5.l1ada")
def test_committed_ada_is_the_train_selected_best_of_adaboost_and_l1_adaboost():
    from experiments import rado_boosting

    results = _committed_results()
    assert results["protocol"]["l1_betas"] == [1e-4, 1.0, 1e4]  # nock2016 s5
    for name, entry in results["domains"].items():
        chosen = entry["omega"]["Ada"]
        assert len(chosen) == results["protocol"]["folds"]
        for fold, variant in enumerate(chosen):
            assert variant in rado_boosting.ADA_VARIANTS
            assert entry["errors"]["Ada"][fold] == entry["errors"][variant][fold], (name, fold)
        # the oracle reading is never worse on the domain's mean test error than the train-selected one
        oracle = rado_boosting.ada_on_test(entry)
        assert np.mean(entry["errors"][oracle]) <= np.mean(entry["errors"]["Ada"]) + 1e-12


@checks("nock2016.table2", "nock2016.sec5.l1ada")
def test_committed_win_matrix_and_degenerate_l1_grid_as_registered():
    """The numbers quoted in the findings of nock2016.table2 / sec5.l1ada, read from the committed run."""
    from experiments import rado_boosting

    results = _committed_results()
    doms = results["domains"]
    for ada in ("train", "test", "train_per_m"):
        _, wins = rado_boosting.win_matrix(results, ada)
        assert all(wins["Ada"][r] == len(doms) for r in results["protocol"]["regularizers"]), (ada, wins["Ada"])
    for name, e in doms.items():
        assert e["errors"]["L1-AdaBoost(0.0001)"] == e["errors"]["AdaBoost"], name  # every fold
        for big in ("L1-AdaBoost(1)", "L1-AdaBoost(10000)", "L1-AdaBoost(10000/m)"):
            assert e["sparsity"][big] == 1.0, (name, big)  # theta = 0 kept in every fold
    assert np.mean(doms["transfusion"]["errors"]["Ada"]) < np.mean(doms["transfusion"]["errors"]["AdaBoost"]) - 15


# --------------------------------------------------------------------------- edge cases, both packages identical


def _edge_case_runs(impl):
    """Every edge case of issue 3 (spec/radoboost_contract.py), run through the three boosters of ``impl``."""
    tie = np.array([[1.0, -3.0, 3.0, 0.0], [2.0, -3.0, 3.0, 0.0], [-1.0, 1.0, -1.0, 0.0]])
    extreme = np.array([[2.0, 1.0], [2.0, -1.0], [2.0, 0.5]])  # feature 0: every rado at +pi_*0, |r| = 1
    runs = {
        "T=0": impl.radoboost(np.ones((3, 2)), 0),
        "T=0 omega": impl.omega_radaboost(np.ones((3, 2)), 0, regularizer="lasso", omega=0.1),
        "all zero": impl.radoboost(np.zeros((4, 3)), 5),
        "all zero omega": impl.omega_radaboost(np.zeros((4, 3)), 5, regularizer="ridge", omega=0.1),
        "all zero adaboost": impl.adaboost(np.zeros((4, 2)), [1, -1, 1, 1], 5),
        "n=1": impl.radoboost(np.array([[2.0, -4.0]]), 5),
        "n=1 omega": impl.omega_radaboost(np.array([[2.0, -4.0]]), 5, regularizer="slope", omega=0.1,
                                          regularizer_params={"q": 0.5}),
        "m=1 adaboost": impl.adaboost(np.array([[0.5, -1.0]]), [-1], 5),
        "|r|=1": impl.radoboost(extreme, 5),
        "|r|=1 omega": impl.omega_radaboost(extreme, 5, regularizer="linf", omega=0.1),
        "pi*=0": impl.radoboost(np.array([[0.0, 1.0], [0.0, -1.0], [0.0, 1.0]]), 3),
        "tie": impl.radoboost(tie, 1),
        "tie omega": impl.omega_radaboost(tie, 1),
        "tie omega lasso": impl.omega_radaboost(tie, 1, regularizer="lasso", omega=0.01),
        "tie adaboost": impl.adaboost(np.array([[1.0, 2.0], [1.0, 2.0], [-1.0, -2.0]]), [1, 1, -1], 1),
        "zero edge": impl.radoboost(np.array([[1.0], [-1.0]]), 4),
        # weights that underflow: RadoBoost's factor (1 - r x/pi_*)/(1 - r^2) >= 1/2, so a weight needs ~1075
        # rounds to reach 0; the exponential update of Omega-R.AdaBoost needs a margin gap > 745
        "underflow": impl.radoboost(np.array([[1.0, 0.0], [0.99, 0.0]]), 1300),
        "underflow omega": impl.omega_radaboost(np.array([[1.0, 0.0], [0.6, 0.0]]), 2800, regularizer="lasso",
                                                omega=1e-3),
    }
    return runs


def test_edge_cases_identical_in_both_packages_and_as_defined():
    from spec.compare import assert_same
    from spec.pairs.radoboost import RTOL, ATOL

    ref, fst = _edge_case_runs(reference.radoboost), _edge_case_runs(fast.radoboost)
    for name in ref:
        assert_same(ref[name], fst[name], rtol=RTOL, atol=ATOL)
    for res in fst.values():
        assert np.all(res.weights >= 0) and abs(math.fsum(res.weights) - 1) < 1e-12
        assert np.all(np.isfinite(res.theta)) and np.all(np.isfinite(res.log_exp_risk))
    for name in ("T=0", "T=0 omega"):
        assert fst[name].stop_reason == "completed" and fst[name].features.size == 0
        np.testing.assert_array_equal(fst[name].weights, np.full(3, 1 / 3))
    for name in ("all zero", "all zero omega", "all zero adaboost"):
        assert fst[name].stop_reason == "no_feature" and np.all(fst[name].theta == 0) and fst[name].features.size == 0
    for name in ("n=1", "n=1 omega", "m=1 adaboost", "|r|=1", "|r|=1 omega"):
        res = fst[name]
        assert res.stop_reason == "saturated" and res.features.size == 1, name
        assert abs(res.r[0]) == 1.0 and abs(res.r_star[0]) == R_MAX, name
    assert fst["|r|=1"].features.tolist() == [0] and fst["|r|=1"].alpha[0] == pytest.approx(math.atanh(R_MAX) / 2)
    assert fst["n=1"].features.tolist() == [0] and fst["n=1"].alpha[0] == pytest.approx(math.atanh(R_MAX) / 2)
    assert fst["pi*=0"].stop_reason == "no_edge" and 0 not in fst["pi*=0"].features.tolist()
    for name in ("tie", "tie omega", "tie omega lasso"):
        assert fst[name].features.tolist() == [1], name  # |r_1| = |r_2|: the lowest index
    assert fst["tie adaboost"].features.tolist() == [0]
    assert fst["zero edge"].stop_reason == "no_edge" and fst["zero edge"].features.size == 0
    for name in ("underflow", "underflow omega"):
        res = fst[name]
        # below the normal range (RadoBoost's linear update parks it on a subnormal: w (1 - r) rounds back up
        # after the division by 1 - r^2); the exponential update reaches 0.0
        assert res.stop_reason == "completed" and res.weights[0] < np.finfo(float).tiny and res.weights[1] == 1.0
        assert res.log_exp_risk[-1] < -500  # F_exp itself underflows; its log does not
    assert fst["underflow omega"].weights[0] == 0.0
    _check_lemma4(fst["underflow"])
    _check_lossid(fst["underflow omega"])


@checks("nock2015.wfi.prudential")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_prudential_rule_largest_edge_below_lambda_else_clamped_strongest(impl):
    rng = np.random.default_rng(17)
    Pi = rng.normal(size=(60, 5)) + np.array([1.5, 0.8, 0.3, -0.1, -0.6])
    r = np.abs(impl.normalised_edges(Pi, np.full(60, 1 / 60)))
    assert len(set(np.round(r, 6))) == 5
    for lam in (0.01, 0.04, 0.1, 0.3, 0.5):
        res = impl.radoboost(Pi, 1, weak_learner="prudential", lambda_p=lam)
        below = np.flatnonzero(r <= lam)
        if below.size:  # the strongest prudential feature, its edge unchanged
            k = int(below[np.argmax(r[below])])
            assert res.features[0] == k and res.r_star[0] == res.r[0]
        else:  # none is prudential: the strongest, clamped to sign(r) lambda_p
            assert res.features[0] == int(np.argmax(r)) and res.r_star[0] == math.copysign(lam, res.r[0])
    assert np.min(r) > 0.01 and np.max(r) < 0.5  # both branches ran


@pytest.mark.equivalence
@checks("nock2015.alg1")
def test_near_saturation_reference_and_fast_agree_to_the_conditioning():
    """Known divergence: with every rado near the same extreme (1 - |r_t| down to 1e-10), 1 - r pi/pi_* cancels and
    alpha = atanh(r)/pi_* amplifies the edge's rounding by 1/(1 - |r|): fsum (reference) and BLAS (fast) then differ
    by more than the pairs' rtol 1e-9 (up to 8e-8 measured).  Narrower check: the same features and stops, and
    every float within 1e-15 / min_t (1 - |r*_t|) (measured: 2.6e-17 x that)."""
    rng = np.random.default_rng(1)
    beyond_pairs_rtol = 0
    for _ in range(25):
        n, d = int(rng.integers(2, 12)), int(rng.integers(1, 4))
        scale = 10.0 ** rng.uniform(-10, -2)
        Pi = (1.0 - scale * rng.random(size=(n, d))) * rng.choice([-1, 1], size=d)
        a, b = reference.radoboost.radoboost(Pi, 50), fast.radoboost.radoboost(Pi, 50)
        assert a.features.tolist() == b.features.tolist() and a.stop_reason == b.stop_reason
        tol = 1e-15 / np.min(1.0 - np.abs(a.r_star))
        for field in ("theta", "alpha", "log_exp_risk", "r", "r_star", "weights"):
            x, y = getattr(a, field), getattr(b, field)
            np.testing.assert_allclose(y, x, rtol=tol, atol=tol, err_msg=field)  # weights: absolute, they sum to 1
            beyond_pairs_rtol += not np.allclose(y, x, rtol=1e-9, atol=1e-12)
    assert beyond_pairs_rtol > 0  # the regime is really outside the pairs' tolerance


@checks("nock2016.alg2")
def test_fast_slope_deltas_equal_direct_evaluation_with_ties_and_zeros():
    """fast's O(d log d) SLOPE deltas (the preference order |r| - delta of Omega-WL) against Omega evaluated
    directly (reference.regularizers), including tied and zero coefficients."""
    from fast.radoboost import _slope_deltas
    from fast.regularizers import slope_weights
    from reference.regularizers import get_regularizer

    rng = np.random.default_rng(21)
    for trial in range(300):
        d = int(rng.integers(1, 9))
        q = float(rng.uniform(0.01, 0.99))
        theta = rng.choice([0.0, 1.0, -1.0, 2.0, -0.5], size=d) if trial % 2 else rng.normal(size=d)
        steps = rng.choice([0.0, 1.0, -2.0, 0.5, -1.0], size=d) if trial % 3 else 2 * rng.normal(size=d)
        Omega = get_regularizer("slope", q=q)
        direct = [Omega((theta + steps * (np.arange(d) == k)).tolist()) - Omega(theta.tolist()) for k in range(d)]
        got = _slope_deltas(np.abs(theta), np.abs(theta + steps), slope_weights(d, q))
        np.testing.assert_allclose(got, direct, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("d", [1, 3, 4, 7, 101])
def test_radoboost_column_products_and_exponentials(d):
    from fast import _risk_kernels as K
    from fast import radoboost as F

    rng = np.random.default_rng(d)
    Pi = np.asfortranarray(rng.normal(size=(513, d)))
    w = rng.random(513)
    assert np.allclose(F._weighted_columns(Pi, w), w @ Pi, rtol=1e-13, atol=1e-15)
    x = np.concatenate([-rng.random(600) * 30.0, [0.0, -707.9, -708.0, -708.1, -720.0, -745.1, -800.0, -np.inf]])
    y = x.copy()
    total = K.exp_in_place(y)
    want = np.exp(x)
    assert np.all(np.abs(y - want) <= np.spacing(want))
    assert np.array_equal(y[-5:], want[-5:])  # results below e^-708: libm's exactly (subnormal or 0)
    assert total == pytest.approx(math.fsum(want.tolist()), rel=1e-14)


def test_boosting_loops_match_reference():
    import fast.radoboost as F
    import reference.radoboost as R

    rng = np.random.default_rng(12)
    P = rng.normal(size=(60, 6)) + 0.3
    X = rng.normal(size=(50, 5))
    y = np.where(X[:, 0] + 0.2 * rng.normal(size=50) > 0, 1, -1)
    pairs = [(lambda M: M.radoboost(P, 25)),
             (lambda M: M.omega_radaboost(P, 25, regularizer="lasso", omega=1e-2)),
             (lambda M: M.omega_radaboost(P, 25, regularizer="ridge", omega=1e-2, weak_learner="strong")),
             (lambda M: M.adaboost(X, y, 25))]
    from spec.compare import assert_same

    for call in pairs:
        assert_same(call(R), call(F), rtol=1e-9, atol=1e-12)  # features exactly, floats within the pairs' tolerance
