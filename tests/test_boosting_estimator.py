"""PrivateBoostClassifier (bun2020 LazyBregBoost + private halfspace / stump learner): scikit-learn checks, the
privacy contract (total budget, OS-entropy noise, accountant charged before noise, privacy_spent_), bad inputs."""
from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils import estimator_checks  # not `import check_estimator`: pytest would collect check_*

import fast.accounting as A
from fast import PrivateBoostClassifier
from fast.estimators.boosting import PrivacyLeakWarning
from spec.links import checks
from spec.privacy_contract import InsecureNoiseWarning, PrivacySpent

SW_WAIVERS = {name: "sample_weight is refused on purpose: weighting examples changes the privacy unit"
              for name in ("check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
                           "check_sample_weights_list", "check_all_zero_sample_weights_error",
                           "check_sample_weights_shape", "check_sample_weights_not_overwritten",
                           "check_sample_weight_equivalence_on_dense_data",
                           "check_classifiers_one_label_sample_weights")}


#: checks that contradict a DECLARED set of three classes (issue 28 item 8), with the reason; the multiclass
#: behaviour they would check (shapes, argmax consistency, learning) is test_one_vs_rest_*'s
MULTICLASS_WAIVERS = {
    "check_classifiers_train": (
        "on its two-class data it expects a decision_function of shape (n,): with classes=(0, 1, 2) declared there is "
        "one column per declared class, whatever y holds (seeing that only two occur would read the labels)"),
    "check_decision_proba_consistency": (
        "two-class data again: it ranks predict_proba[:, 1] against a 1-d decision_function; here there are three "
        "columns of each"),
    "check_classifiers_one_label": (
        "one class present among three declared at n = 10: which class the noisy one-vs-rest vote then predicts "
        "depends on the noise"),
}


@pytest.mark.parametrize("estimator", [
    PrivateBoostClassifier(weak_learner="halfspace", epsilon=5.0, n_rounds=20, kappa=0.25, data_norm=10.0,
                           insecure_noise_seed=0, classes=(0, 1)),  # the paper's learner and kappa
    PrivateBoostClassifier(epsilon=20.0, n_rounds=50, weak_learner="stump", bounds=(-10, 10), insecure_noise_seed=0,
                           classes=(0, 1)),
    PrivateBoostClassifier(epsilon=20.0, n_rounds=50, bounds=(-10, 10), insecure_noise_seed=0, classes=(0, 1, 2)),
], ids=["halfspace", "stump", "one-vs-rest"])
def test_sklearn_check_estimator(estimator):
    """Every check passes except the sample-weight ones (refused, see SW_WAIVERS) and the four that expect an error
    on labels a private fit never reads (the label set is declared, classes=(0, 1): DECLARED_LABEL_WAIVERS, issue
    25); with three declared classes (one-vs-rest, multi_class tag) also MULTICLASS_WAIVERS.  Seeded noise (test-only
    option) makes refits reproducible for the idempotence checks."""
    from _declared_labels import DECLARED_LABEL_WAIVERS

    waived = {**SW_WAIVERS, **DECLARED_LABEL_WAIVERS}
    if len(estimator.classes) > 2:
        waived.update(MULTICLASS_WAIVERS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        results = estimator_checks.check_estimator(estimator, expected_failed_checks=waived, on_fail=None,
                                                   on_skip=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert not failed, failed


def _seeded_score(est, X, y, seed=0):
    """Accuracy of a test-only seeded twin of ``est`` on (X, y).  A threshold on ONE fit with OS-entropy noise is a
    flaky test (CI once saw 0.820 against 0.85 for the SmoothBoost halfspace, whose 12 unseeded fits spread over
    0.86-0.96): learning quality is asserted on fixed (test-only) noise, privacy on the OS-entropy fit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        return clone(est).set_params(insecure_noise_seed=seed).fit(X, y).score(X, y)


YN = ("no", "yes")  # the declared label set of _data's labels (issue 25: a private fit's labels are public input)


def _data(n=3000, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    return X, y


@checks("bun2020.alg4", "bun2020.s5.stump")
def test_learns_and_reports_privacy():
    X, y = _data()
    clf = PrivateBoostClassifier(weak_learner="halfspace", epsilon=1.0, delta=1e-6, n_rounds=30, data_norm=4.0,
                                 classes=YN).fit(X, y)
    assert _seeded_score(clf, X, y) > 0.85
    spent = clf.privacy_spent_
    assert isinstance(spent, PrivacySpent) and spent.epsilon <= 1.0 and spent.delta == 1e-6
    assert spent.epsilon >= 0.99  # the budget is used, not wasted
    assert math.isclose(spent.rho, 30 * float(spent.accounting.split("rho = ")[1].split()[0]), rel_tol=1e-5)
    proba = clf.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(clf.predict(X)) <= {"yes", "no"}
    # the stump learner: report-noisy-max (pure eps_r per round, rho = eps_r^2 / 2) over the 2 d m signed stumps
    st = PrivateBoostClassifier(epsilon=8.0, n_rounds=30, weak_learner="stump", bounds=(-4, 4),
                                n_thresholds=4, classes=YN).fit(X, y)
    assert _seeded_score(st, X, y) > 0.75 and 7.99 <= st.privacy_spent_.epsilon <= 8.0
    eps_r = float(st.privacy_spent_.accounting.split("eps_r = ")[1].split()[0])
    assert math.isclose(st.privacy_spent_.rho, 30 * eps_r**2 / 2, rel_tol=1e-5)
    assert "report-noisy-max" in st.privacy_spent_.accounting and math.isnan(st.sigma_)


def test_rho_budget_and_accountant_charged_before_noise():
    X, y = _data(500)
    clf = PrivateBoostClassifier(weak_learner="halfspace", rho=0.05, delta=1e-5, n_rounds=10, data_norm=4.0,
                                 classes=YN).fit(X, y)
    assert clf.privacy_spent_.rho <= 0.05
    assert math.isclose(clf.privacy_spent_.epsilon, A.zcdp_to_dp_tight(clf.privacy_spent_.rho, 1e-5), rel_tol=1e-9)
    acc = A.BudgetAccountant(1.5, 1e-5)
    est = PrivateBoostClassifier(weak_learner="halfspace", epsilon=1.0, delta=1e-6, n_rounds=5, data_norm=4.0,
                                 classes=YN)
    clone(est).fit(X, y, accountant=acc)  # a clone charges the user's ledger (a fit argument, never deep-copied)
    assert float(acc.spent_epsilon) <= 1.0 and len(acc.ledger) == 1
    with pytest.raises(A.BudgetExceeded):  # refused before any noise: nothing fitted
        clone(est).fit(X, y, accountant=acc)
    assert len(acc.ledger) == 1
    assert "accountant" not in est.get_params()


def test_noise_is_private_by_default_and_seed_is_loud():
    X, y = _data(400)
    a = PrivateBoostClassifier(weak_learner="halfspace", n_rounds=3, data_norm=4.0, classes=YN).fit(X, y).hypotheses_
    b = PrivateBoostClassifier(weak_learner="halfspace", n_rounds=3, data_norm=4.0, random_state=0,
                               classes=YN).fit(X, y).hypotheses_
    assert not np.array_equal(a, b)  # random_state does not seed the private noise
    with pytest.warns(InsecureNoiseWarning):
        c = PrivateBoostClassifier(weak_learner="halfspace", n_rounds=3, data_norm=4.0, insecure_noise_seed=1,
                                   classes=YN).fit(X, y).hypotheses_
    with pytest.warns(InsecureNoiseWarning):
        d = PrivateBoostClassifier(weak_learner="halfspace", n_rounds=3, data_norm=4.0, insecure_noise_seed=1,
                                   classes=YN).fit(X, y).hypotheses_
    np.testing.assert_array_equal(c, d)


def test_unset_bounds_warn_and_clone_pickle():
    X, y = _data(300)
    with pytest.warns(PrivacyLeakWarning, match="data_norm=None"):
        clf = PrivateBoostClassifier(n_rounds=2, weak_learner="halfspace", classes=YN).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="bounds=None"):
        PrivateBoostClassifier(n_rounds=2, weak_learner="stump", bounds=None, classes=YN).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    assert clone(clf).get_params() == clf.get_params()


@pytest.mark.parametrize("kwargs", [dict(weak_learner="halfspace"),
                                    dict(weak_learner="stump", bounds=None, epsilon=8.0),
                                    dict(weak_learner="halfspace", booster="smooth", epsilon=5.0),
                                    dict(booster="smooth", weak_learner="stump", bounds=None, epsilon=8.0)],
                         ids=["halfspace", "stump", "smooth-halfspace", "smooth-stump"])
def test_a_bound_read_from_the_data_reports_no_guarantee_and_charges_nothing(kwargs):
    """Issue 9 review: with data_norm / bounds unset the old fit warned yet reported privacy_spent_ as (1, 1e-6)-DP
    while keeping the exact max row norm (data_norm_) or the exact per-feature min/max (bounds_).  The report is now
    (inf, 1) with the reason, and an accountant is refused before the data is read (no budget pays for a leak)."""
    X, y = _data(3000)
    leak = "bounds" if kwargs.get("weak_learner") == "stump" else "data_norm"
    with pytest.warns(PrivacyLeakWarning, match=f"{leak}=None"):
        clf = PrivateBoostClassifier(n_rounds=5, **kwargs, classes=YN).fit(X, y)
    spent = clf.privacy_spent_
    assert spent.epsilon == math.inf and spent.delta == 1.0 and spent.rho is None
    assert spent.accounting.startswith(f"NOT differentially private: {leak} was read from the data")
    acc = A.BudgetAccountant(100.0, 0.5)
    with pytest.raises(ValueError, match=f"{leak}=None reads the {leak} from the data"):
        PrivateBoostClassifier(n_rounds=5, **kwargs, classes=YN).fit(np.ones(3), np.ones(4),
                                                                     accountant=acc)  # never read
    assert len(acc.ledger) == 0
    # with the bound public, the same configuration reports a finite guarantee within the grant
    public = dict(bounds=(-4, 4)) if leak == "bounds" else dict(data_norm=4.0)
    ok = PrivateBoostClassifier(n_rounds=5, **{**kwargs, **public}, classes=YN).fit(X, y).privacy_spent_
    assert math.isfinite(ok.epsilon) and ok.epsilon <= kwargs.get("epsilon", 1.0) and ok.delta < 1


def test_a_zcdp_ledger_is_charged_the_runs_rho():
    """Issue 9 review: fit(accountant=ZCDPAccountant) crashed ('no attribute spend'); the lazy booster is zCDP-native,
    so the ledger is charged exactly the run's rho (T x the grid's rho), before any noise; SmoothBoost (PTR, no zCDP
    form) is refused with a reason rather than charged a wrong quantity."""
    X, y = _data(1000)
    z = A.ZCDPAccountant(2.0, 1e-5)
    clf = PrivateBoostClassifier(weak_learner="halfspace", epsilon=1.0, delta=1e-6, n_rounds=5, data_norm=4.0,
                                 classes=YN).fit(X, y, accountant=z)
    assert float(z.spent_rho) == pytest.approx(clf.privacy_spent_.rho, rel=1e-12) and len(z.ledger) == 1
    st = PrivateBoostClassifier(epsilon=1.0, n_rounds=5, weak_learner="stump", bounds=(-4, 4), classes=YN).fit(
        X, y, accountant=z)
    assert float(z.spent_rho) == pytest.approx(clf.privacy_spent_.rho + st.privacy_spent_.rho, rel=1e-12)
    with pytest.raises(ValueError, match="cannot be charged to a zCDP ledger"):
        PrivateBoostClassifier(weak_learner="halfspace", epsilon=5.0, n_rounds=5, booster="smooth", data_norm=4.0,
                               classes=YN).fit(X, y, accountant=z)
    assert len(z.ledger) == 2
    small = A.ZCDPAccountant(0.01, 1e-5)  # cannot pay: refused before any noise, nothing recorded
    with pytest.raises(A.BudgetExceeded):
        PrivateBoostClassifier(weak_learner="halfspace", epsilon=1.0, n_rounds=5, data_norm=4.0,
                               classes=YN).fit(X, y, accountant=small)
    assert len(small.ledger) == 0


@pytest.mark.parametrize("kwargs,fit_kw,message", [
    ({"kappa": 0.0}, {}, "kappa must be"),
    ({"kappa": 1.0}, {}, "kappa must be"),
    ({"lam": 0.0}, {}, "lam must be"),
    ({"lam": -1.0}, {}, "lam must be"),
    ({"epsilon": 0.0}, {}, "epsilon must be a finite number > 0"),
    ({"delta": 0.0}, {}, "delta must be > 0"),
    ({"n_rounds": 0}, {}, "n_rounds must be an integer >= 1"),
    ({"booster": "ada"}, {}, "booster must be one of"),
    ({"weak_learner": "tree"}, {}, "weak_learner must be one of"),
    ({"data_norm": -1.0}, {}, "data_norm must be"),
    ({"epsilon": 1e-300, "delta": 0.5}, {}, "too small"),
    ({}, {"sample_weight": np.ones(300)}, "sample_weight is not supported"),
], ids=lambda v: str(v)[:30])
def test_bad_inputs(kwargs, fit_kw, message):
    X, y = _data(300)
    base = {"weak_learner": "halfspace", "data_norm": 4.0, "n_rounds": 2}
    base.update(kwargs)
    with pytest.raises(ValueError, match=message):
        PrivateBoostClassifier(**base, classes=YN).fit(X, y, **fit_kw)


@pytest.mark.parametrize("kwargs", [{"epsilon": 1e-12, "delta": 1e-300}, {"epsilon": 0.01, "n_rounds": 2000}],
                         ids=["tiny-budget", "many-rounds"])
def test_small_budgets_fit_on_the_run_grid(kwargs):
    """Budgets the old coarse grid (2^k ~ sigma 2^-11, grid variance capped at 2^24) refused as "too small" / "n_rounds
    is too large for the budget" now fit (issue 25 item 10): the run grid (2^k sqrt(d) <= Delta 2^-8) inflates the
    sensitivity by at most 2^-8 and the exact big-integer sampler draws any grid variance.  The charge stays within
    the grant: rho_spent <= the granted rho and the reported epsilon <= the granted epsilon."""
    X, y = _data(300)
    base = {"weak_learner": "halfspace", "data_norm": 4.0, "n_rounds": 2}
    base.update(kwargs)
    clf = PrivateBoostClassifier(**base, classes=YN).fit(X, y)
    spent = clf.privacy_spent_
    assert spent.epsilon <= base["epsilon"] and spent.delta <= base.get("delta", clf.delta)
    assert clf.hypotheses_.shape[0] == base["n_rounds"] and np.all(np.isfinite(clf.hypotheses_))


def test_labels_outside_two_classes():
    """The label set is declared (issue 25): a third label value or a single class fits (every value but
    classes[1] is negative) and classes_ is the declared pair; without classes a y that is not of bool dtype is
    refused, from its dtype alone (the old fit read np.unique(y) and raised "exactly 2 classes" on these y: one
    record decided whether the fit succeeded)."""
    from fast.labels import CLASSES_REQUIRED

    X, _ = _data(30)
    for y in (np.arange(30) % 3, np.zeros(30)):
        clf = PrivateBoostClassifier(weak_learner="halfspace", data_norm=4.0, n_rounds=2, classes=(0, 1)).fit(X, y)
        assert clf.classes_.tolist() == [0, 1]
        with pytest.raises(ValueError, match="classes must be given") as err:
            PrivateBoostClassifier(weak_learner="halfspace", data_norm=4.0, n_rounds=2).fit(X, y)
        assert str(err.value) == CLASSES_REQUIRED
    with pytest.raises(ValueError, match="can never equal a label of y's dtype"):  # dtype against the pair
        PrivateBoostClassifier(weak_learner="halfspace", data_norm=4.0, n_rounds=2, classes=YN).fit(X, np.zeros(30))


@checks("bun2020.thm53", "bun2020.alg10")
def test_smooth_booster():
    """booster='smooth': SmoothBoost with the PTR stopping rule; the spent (epsilon, delta) is Theorem 53(2) with the
    sqrt(2) and stays within the grant; it learns; rho grants refused; the stump learner."""
    X, y = _data(20000)  # SmoothBoost pays advanced composition and a 12/(kappa n) sensitivity: it needs more data
    clf = PrivateBoostClassifier(weak_learner="halfspace", epsilon=5.0, delta=1e-6, n_rounds=20, booster="smooth",
                                 gamma=0.1, data_norm=4.0, classes=YN).fit(X, y)
    spent = clf.privacy_spent_
    assert spent.epsilon <= 5.0 and spent.delta <= 1e-6 and spent.epsilon > 4.99
    assert 1 <= clf.n_rounds_run_ <= 20
    assert _seeded_score(clf, X, y) > 0.85
    # a rho grant is refused: the PTR stopping rule has no zCDP form, so the fit could not be rho-zCDP
    with pytest.raises(ValueError, match="rho cannot be granted with booster='smooth'"):
        PrivateBoostClassifier(weak_learner="halfspace", rho=0.5, delta=1e-6, n_rounds=20, booster="smooth",
                               data_norm=4.0, classes=YN).fit(X, y)
    # the report-noisy-max stump under SmoothBoost: within the grant, learns
    sc = PrivateBoostClassifier(epsilon=5.0, delta=1e-6, n_rounds=20, booster="smooth", weak_learner="stump",
                                bounds=(-4, 4), n_thresholds=8, classes=YN).fit(X, y)
    assert sc.privacy_spent_.epsilon <= 5.0 and "report-noisy-max stump" in sc.privacy_spent_.accounting
    assert 1 <= sc.n_rounds_run_ <= 20 and sc.hypotheses_.shape == (sc.n_rounds_run_, 3)
    assert _seeded_score(sc, X, y) > 0.75


@checks("bun2020.alg4", "bun2020.thm22")
@pytest.mark.parametrize("normalize", [False, True])
def test_estimator_loop_is_the_library_run(normalize):
    """The estimator's halfspace loop (seeded test-only noise) reproduces fast.private_boosting.lazy_bregman_boost
    word for word on the same (scaled) data, sigma and lam; its spent rho is exactly T x weak_learner_rho (Lemma 14),
    which is also the library run's own report."""
    import fast.private_boosting as PB

    rng = np.random.default_rng(3)
    n, d, T = 1500, 4, 12
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # inside the ball: the estimator's scaling is exact
    y = np.where(X[:, 0] - 0.3 * X[:, 2] > 0, 1, 0)
    with pytest.warns(InsecureNoiseWarning):
        clf = PrivateBoostClassifier(weak_learner="halfspace", epsilon=2.0, delta=1e-6, n_rounds=T, kappa=0.3,
                                     lam=0.2, data_norm=1.0, normalize=normalize, insecure_noise_seed=7, classes=(0, 1)).fit(X, y)
    res = PB.lazy_bregman_boost(X, np.where(y == 1, 1, -1), T, 0.3, 0.2, clf.sigma_, normalize=normalize, rng=7)
    np.testing.assert_array_equal(clf.hypotheses_, res.hypotheses)
    per_round = PB.weak_learner_rho(n, 0.3, clf.sigma_, d)
    # seeded: no guarantee (issue 25); what the same noise gives unseeded is kept as noise_alone
    assert (clf.privacy_spent_.epsilon, clf.privacy_spent_.delta) == (float("inf"), 1.0)
    spent = clf.privacy_spent_.noise_alone
    assert spent.rho == A.zcdp_composition([per_round] * T) == res.rho
    assert T * per_round <= spent.rho <= T * per_round * (1 + 1e-15)


def test_smooth_stumps_stopping_threshold_is_two_plus_log_over_epsilon(monkeypatch):
    """PrivateBoostClassifier's smooth-boost stumps stop when |mu| - kappa n / 2 + Lap(1/eps_r) <= 2 +
    ln(1/delta_r)/eps_r (as fast.private_boosting.smooth_boost): a Laplace release exactly on the threshold stops at
    round 0, one ulp above runs a round.  (A threshold 1 + ln(1/delta_r)/eps_r survived every estimator test.)"""
    import math

    import fast.mechanisms
    from fast.estimators.boosting import PrivateBoostClassifier

    eps_r, delta_r = 0.5, 1e-3
    threshold = 2.0 + math.log(1.0 / delta_r) / eps_r
    real = fast.mechanisms.laplace_mechanism
    Xc = np.array([[0.1], [0.4], [0.6], [0.9]])
    thr = np.array([[0.25, 0.5, 0.75]])
    bins = np.searchsorted(thr[0], Xc[:, 0], side="left")[:, None].astype(np.int64)
    yf = np.array([-1.0, -1.0, 1.0, 1.0])
    est = PrivateBoostClassifier(n_thresholds=3)
    for value, rounds in ((threshold, 0), (math.nextafter(threshold, math.inf), 1)):
        calls = []

        def spy(x, **kw):
            if kw.get("sensitivity") == 1.0 and not calls:
                calls.append(x)
                return value
            return real(x, **kw)

        monkeypatch.setattr(fast.mechanisms, "laplace_mechanism", spy)
        hyps, count = est._smooth_stumps(yf, 0.3, 1, eps_r, delta_r, 1.0, (bins, thr, Xc), np.random.default_rng(0))
        assert calls and count == rounds == len(hyps), (value, count)


# ------------------------------------------------------------------------------------------ defaults (issue 26)
DEFAULT_ROUNDS, DEFAULT_KAPPA = 25, 0.2  # chosen on real data: the class docstring's table


def _seeded_fit(est, X, y, seed):
    """A test-only seeded twin of ``est`` (an estimator or a Pipeline ending in one), fitted on (X, y)."""
    from sklearn.pipeline import Pipeline

    est = clone(est)
    (est[-1] if isinstance(est, Pipeline) else est).set_params(insecure_noise_seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        return est.fit(X, y)


def test_defaults_are_the_stump_learner_that_learns():
    """The defaults chosen on real data (experiments/boosting_defaults.py; the class docstring's table): LazyBregBoost
    with the report-noisy-max stump learner over the unit box [-1, 1]^d (PublicScaler's default feature_range), not
    the paper's halfspace learner (ambiguity A8: its advantage is tau^2/2).  Fails on the old defaults (halfspace,
    n_rounds=100, kappa=0.25, bounds=None)."""
    params = PrivateBoostClassifier().get_params()
    assert params["weak_learner"] == "stump" and params["booster"] == "lazy_bregman"
    assert params["bounds"] == (-1.0, 1.0) and params["data_norm"] is None
    assert (params["n_rounds"], params["kappa"], params["n_thresholds"]) == (DEFAULT_ROUNDS, DEFAULT_KAPPA, 16)
    assert (params["epsilon"], params["delta"], params["rho"], params["lam"]) == (1.0, 1e-6, None, None)


def test_defaults_fit_privately_in_a_public_scaler_pipeline():
    """The natural usage: PublicScaler (declared bounds -> [-1, 1]) then the classifier at its defaults.  The fit is
    private (a finite guarantee within the grant, no PrivacyLeakWarning: the default bounds are public) and the
    thresholds sit inside the box.  The old default (halfspace, data_norm=None) read the largest row norm from the
    data: it warned PrivacyLeakWarning (an error under filterwarnings=error) and reported epsilon = inf."""
    from sklearn.pipeline import make_pipeline

    from fast.preprocessing import PublicScaler

    X, y = _data(2000)
    pipe = make_pipeline(PublicScaler(bounds=(-4.0, 4.0)), PrivateBoostClassifier(classes=YN)).fit(X, y)
    clf = pipe[-1]
    spent = clf.privacy_spent_
    assert math.isfinite(spent.epsilon) and 0.99 <= spent.epsilon <= 1.0 and spent.delta == 1e-6
    assert clf.hypotheses_.shape == (DEFAULT_ROUNDS, 3) and np.all(np.abs(clf.thresholds_) < 1.0)
    assert _seeded_fit(pipe, X, y, 0).score(X, y) > 0.75  # a linear boundary from 25 axis-aligned stumps


@pytest.mark.parametrize("bounds", [(np.zeros(2), np.ones(2)), ((0, 0, 0, 0, 0, 0), (1,) * 6), ("a", "b"),
                                    ([[0.0]], 1.0)], ids=["short", "long", "str", "2d"])
def test_bounds_of_the_wrong_shape_name_the_argument(bounds):
    """bounds of the wrong width (X has 5 features) or kind: a ValueError naming ``bounds`` and the rule, from X's
    schema alone.  Old code: numpy's 'operands could not be broadcast together ...' / 'could not convert string to
    float', naming nothing."""
    X, y = _data(50)
    with pytest.raises(ValueError, match=r"bounds must be \(lower, upper\) with real scalars or one entry per "
                                         r"feature \(5 features\)"):
        PrivateBoostClassifier(bounds=bounds, classes=YN).fit(X, y)


def test_paper_configuration_is_reachable_by_name():
    """bun2020's configuration (the old defaults): weak_learner="halfspace" with its public data_norm, n_rounds=100,
    kappa=0.25; it runs, spends within the grant and reports the Gaussian centroid's accounting."""
    X, y = _data(1000)
    clf = PrivateBoostClassifier(weak_learner="halfspace", n_rounds=100, kappa=0.25, data_norm=4.0,
                                 classes=YN).fit(X, y)
    assert clf.hypotheses_.shape == (100, 5) and clf.coef_.shape == (5,) and clf.sigma_ > 0
    assert clf.privacy_spent_.epsilon <= 1.0 and "discrete-Gaussian release" in clf.privacy_spent_.accounting


def _adult(shared, n_train=10000, n_test=5000):
    """Adult with a public preprocessing (no statistic of the data is read): the six numeric columns divided by
    public scales (age/100, fnlwgt/1.5e6, education-num/16, capital-gain/1e5, capital-loss/5e3, hours/100) and the
    eight categorical columns one-hot on the levels of adult.names (here: those of the training file, the same
    list); rows with '?' dropped; a fixed subsample (seed 0) for speed.  Every feature is in [0, 1] up to the
    numeric scales' rare overshoot (clamped by the PublicScaler)."""
    import csv

    scales = {0: 100.0, 2: 1.5e6, 4: 16.0, 10: 1e5, 11: 5e3, 12: 100.0}
    cats = (1, 3, 5, 6, 7, 8, 9, 13)

    def rows(name):
        with open(shared / "uci" / name, newline="") as fh:
            return [[c.strip() for c in r] for r in csv.reader(fh) if len(r) >= 15 and "?" not in "".join(r)
                    and not r[0].startswith("|")]

    train, test = rows("adult-train.csv"), rows("adult-test.csv")
    levels = {c: sorted({r[c] for r in train}) for c in cats}

    def encode(rs):
        arr = np.array(rs, dtype=object)
        num = np.column_stack([arr[:, c].astype(np.float64) / s for c, s in scales.items()])
        hot = [(arr[:, c][:, None] == np.array(levels[c], dtype=object)[None, :]).astype(np.float64) for c in cats]
        y = np.array([r[14].rstrip(".") == ">50K" for r in rs], dtype=np.int64)
        return np.hstack([num, *hot]), y

    Xtr, ytr = encode(train)
    Xte, yte = encode(test)
    keep = np.sort(np.random.default_rng(0).choice(len(ytr), n_train, replace=False))
    return Xtr[keep], ytr[keep], Xte[:n_test], yte[:n_test]


@checks("bun2020.s5.stump")
def test_default_configuration_learns_on_adult_where_the_halfspace_does_not(shared_data):
    """At epsilon = 1 (the default), in the natural pipeline PublicScaler((0, 1) -> [-1, 1]) + the defaults, the test
    error on Adult is below the majority error by >= 3 points (mean of 3 seeded noise draws; measured ~0.19 against
    0.246), while the paper's halfspace configuration (the old defaults, data_norm = sqrt(d): the box's public L2
    bound) stays within 1 point of the majority error (it predicts the majority class: ambiguity A8, advantage
    tau^2/2).  Fails on the old defaults: PrivateBoostClassifier(classes=(0, 1)) was that halfspace learner, and
    with data_norm=None it raised PrivacyLeakWarning (an error here)."""
    from sklearn.pipeline import make_pipeline

    from fast.preprocessing import PublicScaler

    Xtr, ytr, Xte, yte = _adult(shared_data)
    majority = float(np.mean(yte != 0))
    pipe = make_pipeline(PublicScaler(bounds=(0.0, 1.0)), PrivateBoostClassifier(classes=(0, 1)))
    err = np.mean([1.0 - _seeded_fit(pipe, Xtr, ytr, s).score(Xte, yte) for s in range(3)])
    assert err <= majority - 0.03, (err, majority)
    paper = make_pipeline(PublicScaler(bounds=(0.0, 1.0)), PrivateBoostClassifier(
        classes=(0, 1), weak_learner="halfspace", n_rounds=100, kappa=0.25, data_norm=math.sqrt(Xtr.shape[1])))
    paper_err = 1.0 - _seeded_fit(paper, Xtr, ytr, 0).score(Xte, yte)
    assert paper_err >= majority - 0.01, (paper_err, majority)


# ------------------------------------------------------------------------------ one-vs-rest (issue 28 item 8)
ABC = ("a", "b", "c")


def _three(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 4))
    return X, np.array(ABC)[np.argmax(X[:, :3] + 0.3 * X[:, 3:4] * [1, 0, -1], axis=1)]


@pytest.mark.parametrize("learner", ["stump", "halfspace"])
def test_one_vs_rest_composes_the_budget_over_the_declared_classes(learner):
    """classes declaring k = 3 labels: k binary fits on all rows, each granted rho / k; privacy_spent_ is their zCDP
    sum (within the grant, the budget used), privacy_spent_per_class_ the three equal parts; an accountant is
    charged ONCE, the total, before any noise; decision_function has one column per class and predict / predict_proba
    agree with its argmax; it learns (seeded noise).  Fails on the old code: classes had to be a pair (ValueError)."""
    X, y = _three()
    kw = dict(weak_learner="halfspace", data_norm=2.0) if learner == "halfspace" else {}
    acc = A.BudgetAccountant(3.0, 1e-5)
    clf = PrivateBoostClassifier(epsilon=2.0, classes=ABC, **kw).fit(X, y, accountant=acc)
    parts = clf.privacy_spent_per_class_
    assert len(parts) == 3 and len({p.rho for p in parts}) == 1
    total = clf.privacy_spent_
    assert total.rho == pytest.approx(3 * parts[0].rho, rel=1e-12) and "one-vs-rest" in total.accounting
    assert 1.99 <= total.epsilon <= 2.0 and total.delta == 1e-6
    assert len(acc.ledger) == 1 and float(acc.spent_epsilon) == pytest.approx(total.epsilon, rel=1e-9)
    before = len(A.default_ledger())  # no accountant: ONE default-ledger entry, not one per class
    PrivateBoostClassifier(n_rounds=3, classes=ABC, **kw).fit(X[:300], y[:300])
    assert len(A.default_ledger()) == before + 1
    assert clf.classes_.tolist() == list(ABC) and clf.hypotheses_.shape[0] == 3
    scores = clf.decision_function(X[:50])
    assert scores.shape == (50, 3)
    np.testing.assert_array_equal(clf.predict(X[:50]), np.array(ABC)[np.argmax(scores, axis=1)])
    proba = clf.predict_proba(X[:50])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argmax(proba, axis=1), np.argmax(scores, axis=1))
    seeded = _seeded_fit(clf, X, y, 0)
    assert seeded.score(X, y) > (0.9 if learner == "halfspace" else 0.6)  # chance: 1/3


def test_one_vs_rest_labels_outside_the_declared_set_are_no_class():
    """A value outside the declared set (None, NaN, an undeclared label, another type) is positive for NO class:
    the fit succeeds whatever it is, and with the same (test-only) noise every such value gives the same model.
    Nothing depends on which labels occur: a y holding only 'a' fits too."""
    X, y = _three(600)
    fits = []
    for odd in (None, float("nan"), "zzz", 7):
        yy = y.astype(object)
        yy[:5] = odd
        fits.append(_seeded_fit(PrivateBoostClassifier(classes=ABC), X, yy, 3).hypotheses_)
    for other in fits[1:]:
        np.testing.assert_array_equal(other, fits[0])
    only_a = _seeded_fit(PrivateBoostClassifier(classes=ABC), X, np.full(600, "a"), 3)
    assert only_a.classes_.tolist() == list(ABC) and only_a.predict(X).shape == (600,)


@pytest.mark.parametrize("classes, message", [
    (("a", "b", "a"), r"classes must be distinct labels, got \('a', 'b', 'a'\): classes\[0\] == classes\[2\]"),
    ((0, 1, 1.0), r"classes\[1\] == classes\[2\]"),
    (("a", ["b"], "c"), "classes must be a pair .negative, positive. or, one-vs-rest, a sequence"),
    ({"a", "b", "c"}, "classes must be a pair .negative, positive. or, one-vs-rest, a sequence"),
    (("a",), "classes must be a pair .negative, positive. or, one-vs-rest, a sequence"),
], ids=["dup-str", "dup-number", "unhashable", "set", "one"])
def test_one_vs_rest_bad_class_sets_name_the_argument(classes, message):
    X, y = _three(100)
    with pytest.raises(ValueError, match=message):
        PrivateBoostClassifier(classes=classes).fit(X, y)


def test_one_vs_rest_refuses_smoothboost_and_refits_cleanly():
    """SmoothBoost's PTR stopping rule has no zCDP form to compose k fits with: refused, naming booster, before the
    data is read; a binary refit after a one-vs-rest fit drops estimators_ and privacy_spent_per_class_."""
    X, y = _three(300)
    with pytest.raises(ValueError, match="needs booster='lazy_bregman'"):
        PrivateBoostClassifier(classes=ABC, booster="smooth").fit(X, y)
    clf = PrivateBoostClassifier(classes=ABC).fit(X, y)
    assert clf.__sklearn_tags__().classifier_tags.multi_class
    clf.set_params(classes=("b", "c")).fit(X, y)
    assert not hasattr(clf, "estimators_") and not hasattr(clf, "privacy_spent_per_class_")
    assert clf.decision_function(X).shape == (300,) and not clf.__sklearn_tags__().classifier_tags.multi_class
