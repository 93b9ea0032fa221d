"""One-vs-rest multiclass for the rado estimators (issue 28 item 8; ``fast/estimators/_multiclass.py``).

Before this change RadoBoostClassifier / OmegaRAdaBoostClassifier were binary only: ``classes`` of three labels was
a ValueError ("must be a pair") and a non-private fit on three classes raised "Only binary classification is
supported", so every test below that fits k = 3 classes fails on the old code (the bad-input tests check messages
that name ``classes`` and the rule for k labels, which the old pair-only message did not state).
"""
from __future__ import annotations

import math
import os
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils import estimator_checks  # not `import check_estimator`: pytest would collect check_*

import fast.accounting as A
import fast.dp_rados as D
import fast.mechanisms as M
from fast.dp_rados import NoiseDominatesWarning, dp_feat, gaussian_edges
from fast.estimators import _multiclass
from fast.estimators.rados import OmegaRAdaBoostClassifier, RadoBoostClassifier, _RadoClassifierBase
from fast._contracts.privacy_contract import exact_share
from spec.privacy_contract import InsecureNoiseWarning

ABC = ("a", "b", "c")
EPS, DELTA = 3.0, 3e-6
ESTIMATORS = {"radoboost": RadoBoostClassifier, "omega": OmegaRAdaBoostClassifier}
LETTERS = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "uci", "letter-recognition.data")


def _blobs(n=3000, seed=0):
    """Three well-separated classes in the unit ball (labels 'a', 'b', 'c')."""
    rng = np.random.default_rng(seed)
    centers = 0.4 * np.array([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
    yi = rng.integers(0, 3, n)
    X = centers[yi] + rng.normal(scale=0.25, size=(n, 2))
    return X, np.array(ABC)[yi]


def _private(cls, eps=EPS, delta=DELTA, n_rounds=100, **kw):
    return cls(n_rounds, privacy=gaussian_edges(eps, delta, 0.3), classes=ABC, random_state=0, **kw)


@pytest.fixture(autouse=True)
def _quiet_noise_report():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)  # public-parameter diagnostics, not under test here
        warnings.simplefilter("ignore", InsecureNoiseWarning)  # the seeded (test-only) fits; pytest.warns still sees it
        yield


def _seeded(est, seed=0):
    return clone(est).set_params(insecure_noise_seed=seed)


# --------------------------------------------------------------------------- learning
@pytest.mark.parametrize("name", ESTIMATORS)
def test_three_classes_learn_privately(name):
    """k = 3 declared classes, (6, 6e-6) split over the classes (2 each): well above chance (1/3) on fixed
    (test-only) noise; the unseeded private fit reports the grant."""
    X, y = _blobs()
    est = _private(ESTIMATORS[name], eps=6.0, delta=6e-6)
    scores = [_seeded(est, s).fit(X, y).score(X, y) for s in range(3)]
    assert min(scores) > 0.7, scores
    clf = clone(est).fit(X, y)
    assert clf.classes_.tolist() == list(ABC)
    assert clf.decision_function(X[:5]).shape == (5, 3)
    assert clf.coef_.shape == (3, 2) and clf.intercept_.shape == (3,)
    proba = clf.predict_proba(X[:50])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (np.argmax(proba, axis=1) == np.argmax(clf.decision_function(X[:50]), axis=1)).all()
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X[:50])), proba)
    assert set(clf.predict(X)) <= set(ABC)


@pytest.mark.skipif(not os.path.exists(LETTERS), reason="../shared/data/uci/letter-recognition.data is absent")
@pytest.mark.parametrize("name", ESTIMATORS)
def test_letters_real_multiclass(name):
    """UCI letter-recognition, letters A, B, C (2,300 rows, 16 integer features with the DECLARED range [0, 15],
    mapped onto [-1, 1]; 70/30 split).  Non-private: > 0.9 test accuracy; private (gaussian_edges, total epsilon 30
    = 10 per class, delta 3e-6, clip 4, support 0.1; test-only seeds 0-2): mean > 0.5 (chance 1/3).  Measured
    (RadoBoost / Omega, mean of seeds 0-2): non-private 0.975 / 0.972; private total epsilon 12: 0.41 / 0.41,
    30: 0.68 / 0.67, 100: 0.70 / 0.70 (4, 10, 33 per class: m = 1,600 rows, d = 16)."""
    raw = np.genfromtxt(LETTERS, delimiter=",", dtype=str)
    keep = np.isin(raw[:, 0], ("A", "B", "C"))
    y, X = raw[keep, 0], raw[keep, 1:].astype(float) / 7.5 - 1.0
    idx = np.random.default_rng(0).permutation(len(y))
    tr, te = idx[: int(0.7 * len(y))], idx[int(0.7 * len(y)):]
    cls = ESTIMATORS[name]
    assert cls(300, classes=("A", "B", "C"), random_state=0).fit(X[tr], y[tr]).score(X[te], y[te]) > 0.9
    est = cls(300, privacy=gaussian_edges(30.0, 3e-6, 0.1, clip=4.0), classes=("A", "B", "C"), random_state=0)
    scores = [_seeded(est, s).fit(X[tr], y[tr]).score(X[te], y[te]) for s in range(3)]
    assert np.mean(scores) > 0.5, scores


def test_non_private_reads_classes_from_y():
    """Without privacy the classes may come from y (np.unique), as scikit-learn does."""
    X, y = _blobs(600)
    clf = RadoBoostClassifier(100, random_state=0).fit(X, y)
    assert clf.classes_.tolist() == list(ABC) and clf.score(X, y) > 0.9
    assert not hasattr(clf, "privacy_spent_") and len(clf.estimators_) == 3
    with pytest.warns(Warning, match="column-vector y"):  # once, as a binary fit warns
        RadoBoostClassifier(20, random_state=0).fit(X, y.reshape(-1, 1))


# --------------------------------------------------------------------------- the budget
def test_privacy_spent_equals_grant_and_per_class_sum():
    """(3, 3e-6) over k = 3: each class 1/3 (epsilon exactly 1.0), the total by basic composition equals the grant;
    the per-class exact spends sum to the total exactly; rho is the sum of the k delivered rhos."""
    X, y = _blobs(600)
    clf = _private(RadoBoostClassifier).fit(X, y)
    spent, per = clf.privacy_spent_, clf.privacy_spent_per_class_
    assert len(per) == 3 and all(p.epsilon == 1.0 for p in per)
    assert spent.epsilon == EPS and spent.delta == DELTA
    assert sum(p.exact[0] for p in per) == spent.exact[0] and sum(p.exact[1] for p in per) == spent.exact[1]
    assert spent.exact[0] <= Fraction(EPS) and spent.exact[1] <= Fraction(DELTA)
    assert spent.rho == pytest.approx(sum(p.rho for p in per), rel=1e-15) and spent.rho >= sum(p.rho for p in per)
    assert "one-vs-rest" in spent.accounting and "basic composition" in spent.accounting
    assert [e.privacy.epsilon for e in clf.estimators_] == [1.0] * 3


def test_split_never_exceeds_grant_in_rationals():
    """(5, 1e-5) over k = 3: 5/3 and 1e-5/3 rounded to NEAREST overspend (3 x float(5/3) > 5 in rationals, the same
    for 1e-5); each share is the largest double <= its third, so the k spends sum to at most the grant, exactly.
    Fails with ``epsilon / k`` shares (checked: exact total 5 + 2^-51 > 5)."""
    X, y = _blobs(600)
    assert Fraction(5.0 / 3) * 3 > 5 and Fraction(1e-5 / 3) * 3 > Fraction(1e-5)  # the trap is real
    clf = _private(RadoBoostClassifier, eps=5.0, delta=1e-5).fit(X, y)
    assert all(e.privacy.epsilon == exact_share(5.0, 3) for e in clf.estimators_)
    assert clf.privacy_spent_.exact[0] <= 5 and clf.privacy_spent_.exact[1] <= Fraction(1e-5)
    assert clf.privacy_spent_.epsilon <= 5.0 and clf.privacy_spent_.delta <= 1e-5


def test_ledger_charged_once_with_the_total():
    """An explicit BudgetAccountant is charged ONCE with the composed total (before any noise); a ZCDPAccountant its
    rho; the default ledger records one entry for the whole fit."""
    X, y = _blobs(600)
    acc = A.BudgetAccountant(EPS, DELTA)
    clf = _private(RadoBoostClassifier).fit(X, y, accountant=acc)
    assert len(acc.ledger) == 1 and acc.spent_epsilon == clf.privacy_spent_.exact[0]
    assert acc.spent_delta == clf.privacy_spent_.exact[1]
    z = A.ZCDPAccountant(10.0, 1e-5)
    clf = _private(RadoBoostClassifier).fit(X, y, accountant=z)
    assert len(z.ledger) == 1 and float(z.spent_rho) == pytest.approx(clf.privacy_spent_.rho, rel=1e-12)
    ledger = A.reset_default_ledger()
    clf = _private(OmegaRAdaBoostClassifier).fit(X, y)
    assert len(ledger.entries()) == 1 and ledger.entries()[0].epsilon == clf.privacy_spent_.exact[0]


# --------------------------------------------------------------------------- the mechanisms
_SPIED = {M: ("gaussian_mechanism", "laplace_mechanism", "sample_discrete_gaussian", "sample_discrete_laplace"),
          D: ("gaussian_mechanism", "_window_ks", "dp_feat_rados")}


def _public(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, str(value.dtype))
    if isinstance(value, (int, float, str, type(None))):
        return value
    return type(value).__name__


def _spy_calls(monkeypatch, fit):
    """The outermost mechanism calls of ``fit()`` with their public arguments (data by shape only)."""
    calls, depth = [], [0]

    def wrap(real, name):
        def spy(*args, **kwargs):
            if depth[0] == 0:
                calls.append((name, tuple(_public(a) for a in args),
                              tuple(sorted((k, _public(v)) for k, v in kwargs.items() if k != "rng"))))
            depth[0] += 1
            try:
                return real(*args, **kwargs)
            finally:
                depth[0] -= 1
        return spy

    with monkeypatch.context() as patch:
        for module, names in _SPIED.items():
            for name in names:
                patch.setattr(module, name, wrap(getattr(module, name), f"{module.__name__}.{name}"))
        fit()
    return calls


def _assert_k_releases_at_share(calls, k, eps, delta):
    """k edge releases (one per class), each at the 1/k share of the grant."""
    edges = [dict(kw) for name, _, kw in calls if name == "fast.dp_rados.gaussian_mechanism"]
    assert len(edges) == k, calls
    for kw in edges:
        assert kw["epsilon"] == exact_share(eps, k) and kw["delta"] == exact_share(delta, k), kw


def test_spy_sees_k_releases_at_one_kth(monkeypatch):
    X, y = _blobs(600)
    calls = _spy_calls(monkeypatch, lambda: _private(RadoBoostClassifier).fit(X, y))
    _assert_k_releases_at_share(calls, 3, EPS, DELTA)


def test_spy_catches_full_budget_per_class_mutant(monkeypatch):
    """A mutant that gives every class the FULL budget (``_ovr_share`` returning the estimator unchanged) is caught
    by the release check above and by the report (3 x the grant)."""
    X, y = _blobs(600)
    monkeypatch.setattr(_RadoClassifierBase, "_ovr_share", lambda self, k: (self, "basic"))
    calls = _spy_calls(monkeypatch, lambda: _private(RadoBoostClassifier).fit(X, y))
    with pytest.raises(AssertionError):
        _assert_k_releases_at_share(calls, 3, EPS, DELTA)
    assert _private(RadoBoostClassifier).fit(X, y).privacy_spent_.epsilon == 3 * EPS


def test_budget_exceeded_before_any_noise(monkeypatch):
    """A ledger that cannot pay the total refuses before the first class's release: no mechanism call at all (a
    per-class charge would have drawn classes 1 and 2 before refusing the third)."""
    X, y = _blobs(600)
    acc = A.BudgetAccountant(EPS * 0.9, DELTA)
    with pytest.raises(A.BudgetExceeded):
        _spy_calls(monkeypatch, lambda: _private(RadoBoostClassifier).fit(X, y, accountant=acc))
    calls = []
    monkeypatch.setattr(D, "gaussian_mechanism", lambda *a, **k: calls.append(1))
    with pytest.raises(A.BudgetExceeded):
        _private(RadoBoostClassifier).fit(X, y, accountant=acc)
    assert calls == [] and len(acc.ledger) == 0


@pytest.mark.parametrize("outside", ["zzz", None], ids=["str", "None"])
@pytest.mark.parametrize("name", ESTIMATORS)
def test_undeclared_label_same_mechanism_calls(monkeypatch, name, outside):
    """D vs D' with one label changed to a value outside the declared set: no exception, the same classes_ and the
    same sequence of mechanism calls (public arguments); the value is in the rest of every one-vs-rest problem."""
    X, y = _blobs(300)
    y_out = y.astype(object)
    y_out[17] = outside
    seen = {}
    for key, labels in (("D", y.astype(object)), ("D'", y_out)):
        est = _private(ESTIMATORS[name], n_rounds=20)
        seen[key] = (_spy_calls(monkeypatch, lambda: est.fit(X, labels)), est.classes_.tolist())
    assert seen["D"] == seen["D'"] and seen["D"][0]
    assert [e.classes_.tolist() for e in est.estimators_] == [[False, True]] * 3


def test_dp_feat_multiclass_within_grant():
    """DP-Feat (the protected boolean column alone): each class's plan at 1/k of (epsilon, delta); total <= grant."""
    rng = np.random.default_rng(0)
    X = np.where(rng.normal(size=(600, 1)) > 0, 1.0, -1.0)
    y = np.array(ABC)[rng.integers(0, 3, 600)]
    clf = RadoBoostClassifier(10, n_rados=2, privacy=dp_feat(0, 24.0, 3e-2), classes=ABC, random_state=0).fit(X, y)
    assert [e.privacy.epsilon for e in clf.estimators_] == [8.0] * 3
    assert clf.privacy_spent_.exact[0] <= 24 and clf.privacy_spent_.exact[1] <= Fraction(3e-2)
    assert clf.privacy_spent_.exact[0] == sum(p.exact[0] for p in clf.privacy_spent_per_class_)


# --------------------------------------------------------------------------- API
@pytest.mark.parametrize("classes,match", [
    (("a", "b", "a"), r"classes must be distinct labels.*classes\[0\] == classes\[2\]"),
    (("a",), "^classes must be .*distinct labels"),
    ((), "^classes must be .*distinct labels"),
    (("a", "b", float("nan")), "^classes must be .*not NaN"),
])
def test_bad_classes(classes, match):
    X, y = _blobs(100)
    est = RadoBoostClassifier(5, privacy=gaussian_edges(1.0, 1e-5, 0.3), classes=classes)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_class_of_another_kind_named():
    """A declared class y's dtype can never hold: ValueError naming classes[j] (from the dtype alone)."""
    X, y = _blobs(100)
    with pytest.raises(ValueError, match=r"classes\[2\] = 7 can never equal a label of y's dtype"):
        RadoBoostClassifier(5, privacy=gaussian_edges(1.0, 1e-5, 0.3), classes=("a", "b", 7)).fit(X, y)


def test_source_without_a_budget_refused():
    from fast.dp_rados import RadoSource

    class Bare(RadoSource):
        def _params(self):
            return {}

    X, y = _blobs(100)
    with pytest.raises(ValueError, match="holds no \\(epsilon, delta\\) to split"):
        RadoBoostClassifier(5, privacy=Bare(), classes=ABC).fit(X, y)


def test_predict_ties_go_to_the_first_class():
    X, y = _blobs(200)
    clf = RadoBoostClassifier(20, classes=ABC, random_state=0).fit(X, y)
    for est in clf.estimators_:  # every class scores 0 everywhere
        est.coef_[:] = 0.0
        est.intercept_[:] = 0.0
    assert set(clf.predict(X)) == {"a"}


def test_pickle_clone_and_refit():
    X, y = _blobs(400)
    clf = _private(RadoBoostClassifier, n_rounds=30).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    assert again.privacy_spent_ == clf.privacy_spent_
    fresh = clone(clf)
    assert fresh.get_params()["classes"] == ABC and not hasattr(fresh, "estimators_")
    clf.set_params(classes=("a", "b")).fit(X, y)  # a binary refit drops the one-vs-rest attributes
    assert not hasattr(clf, "estimators_") and not hasattr(clf, "privacy_spent_per_class_")
    assert clf.decision_function(X[:3]).shape == (3,)


def test_check_estimator_runs_multiclass_checks(monkeypatch):
    """The default (non-private) RadoBoostClassifier declares multi_class, so scikit-learn's multiclass checks run
    (check_classifiers_train fits 3 classes through the one-vs-rest path) and every check passes; a declared pair
    keeps the binary tag."""
    seen = []
    real = _multiclass.fit_ovr
    monkeypatch.setattr(_multiclass, "fit_ovr", lambda *a, **k: seen.append(1) or real(*a, **k))
    results = estimator_checks.check_estimator(RadoBoostClassifier(random_state=0), on_fail=None, on_skip=None)
    assert not [r["check_name"] for r in results if r["status"] == "failed"]
    assert seen
    assert RadoBoostClassifier().__sklearn_tags__().classifier_tags.multi_class
    assert not RadoBoostClassifier(classes=(0, 1)).__sklearn_tags__().classifier_tags.multi_class


def test_seeded_reports_no_guarantee():
    X, y = _blobs(300)
    with pytest.warns(InsecureNoiseWarning):
        clf = _private(RadoBoostClassifier, n_rounds=10, insecure_noise_seed=3).fit(X, y)
    assert clf.privacy_spent_.epsilon == math.inf and clf.privacy_spent_.noise_alone.epsilon == EPS
    assert [e.insecure_noise_seed for e in clf.estimators_] == [3, 4, 5]
    with pytest.raises(ValueError, match="insecure_noise_seed"):
        _private(RadoBoostClassifier, insecure_noise_seed=3).fit(X, y, accountant=A.BudgetAccountant(10, 1e-3))


def test_compose_zcdp():
    """zCDP composition (for an estimator accounting in rho): rho adds up, epsilon its tight conversion."""
    from fast._contracts.privacy_contract import PrivacySpent

    part = PrivacySpent(epsilon=0.9, delta=1e-6, rho=0.01, neighbouring="replace-one (x)", accounting="a")
    total = _multiclass.compose([part] * 4, "zcdp", k=4, classes=(0, 1, 2, 3))
    assert total.rho == pytest.approx(0.04) and total.delta == 1e-6
    assert total.epsilon == pytest.approx(A.zcdp_to_dp_tight(0.04, 1e-6))


def test_private_boost_one_vs_rest_agrees():
    """PrivateBoostClassifier's own one-vs-rest (fast/estimators/boosting.py) and the rado estimators' share the
    design: the same attributes (classes_ = the declared set, estimators_, privacy_spent_per_class_,
    privacy_spent_), decision_function (n, k), predict = its argmax, one ledger charge; it learns the blobs (stumps,
    epsilon 6 split as rho / 3, test-only seeds) and its per-class rhos add up to the total (zCDP composition)."""
    from fast import PrivateBoostClassifier

    X, y = _blobs()
    X = X / 1.5  # the declared box [-1.5, 1.5]^2 onto the default bounds [-1, 1]
    est = PrivateBoostClassifier(epsilon=6.0, classes=ABC)
    scores = [_seeded(est, s).fit(X, y).score(X, y) for s in range(3)]
    assert min(scores) > 0.7, scores
    acc = A.BudgetAccountant(6.0, 1e-6)
    boost = clone(est).fit(X, y, accountant=acc)
    rado = _private(RadoBoostClassifier).fit(X, y)
    for clf in (boost, rado):
        assert clf.classes_.tolist() == list(ABC) and len(clf.estimators_) == 3
        assert len(clf.privacy_spent_per_class_) == 3 and clf.decision_function(X[:4]).shape == (4, 3)
        np.testing.assert_array_equal(clf.predict(X[:50]), clf.classes_[np.argmax(clf.decision_function(X[:50]), 1)])
    assert len(acc.ledger) == 1 and boost.privacy_spent_.epsilon <= 6.0
    assert boost.privacy_spent_.rho == pytest.approx(sum(p.rho for p in boost.privacy_spent_per_class_), rel=1e-12)
