"""ASTCClassifier / ASTCRegressor (fast.estimators.astc): scikit-learn checks and the cost contract."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.utils import estimator_checks  # not `import check_estimator`: pytest would collect check_*

from fast import ASTCClassifier, ASTCRegressor
from spec.links import checks
import math

@pytest.mark.parametrize("estimator", [ASTCClassifier(), ASTCRegressor(), ASTCClassifier(soft=True, budget=3),
                                       ASTCRegressor(soft=True, depth=2), ASTCClassifier(budget=2, depth=4),
                                       ASTCClassifier(budget=2, greedy="prefix")],
                         ids=["clf", "reg", "clf-soft-budget", "reg-soft", "clf-budget2-depth4", "clf-prefix"])
def test_sklearn_check_estimator(estimator):
    """No waiver: check_sample_weight_equivalence_on_dense_data included (it failed while scores tied with the
    weighted median up to rounding could go right: weighted and repeated rows rounded differently)."""
    results = estimator_checks.check_estimator(estimator, on_fail=None, on_skip=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert not failed, failed


@checks("kusner2016.ch2.eq1", "kusner2016.ch2.test-cost")
def test_budget_bounds_every_input_cost():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    costs = rng.choice([1, 5, 20, 50, 100, 150, 200], size=X.shape[1]).astype(float)
    for budget in (5.0, 60.0, 250.0):
        for soft in (False, True):
            clf = ASTCClassifier(feature_costs=costs, budget=budget, depth=4, soft=soft).fit(X, y)
            c = clf.predict_cost(X)
            assert c.max() <= budget and c.min() > 0
            noise = X + rng.normal(scale=X.std(0), size=X.shape)
            assert clf.predict_cost(noise).max() <= budget


def test_accuracy_pickle_clone_importances():
    X, y = load_breast_cancer(return_X_y=True)
    clf = ASTCClassifier(budget=6, depth=3).fit(X, y)
    assert clf.score(X, y) > 0.9
    assert np.isclose(clf.feature_importances_.sum(), 1.0) and np.all(clf.feature_importances_ >= 0)
    used = set().union(*map(set, clf.tree_.features))
    assert set(np.flatnonzero(clf.feature_importances_)) <= used
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    assert clone(clf).get_params() == clf.get_params()


@checks("kusner2016.ch2.norm")
def test_preprocessing_centres_and_normalises():
    X, y = load_breast_cancer(return_X_y=True)
    clf = ASTCClassifier(depth=1).fit(X, y)
    Xs = (X - clf.mean_) / clf.scale_
    np.testing.assert_allclose(Xs.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(Xs, axis=0), 1, rtol=1e-12)
    # scaling a column by 1000 changes nothing: the thesis's normalisation is inside the estimator
    X2 = X.copy()
    X2[:, 3] *= 1000
    np.testing.assert_allclose(ASTCClassifier(depth=1).fit(X2, y).decision_function(X2), clf.decision_function(X),
                               rtol=1e-8, atol=1e-10)


def test_bad_inputs():
    X, y = load_breast_cancer(return_X_y=True)
    d = X.shape[1]
    with pytest.raises(ValueError, match="feature_costs must be > 0"):
        ASTCClassifier(feature_costs=np.r_[0.0, np.ones(d - 1)]).fit(X, y)
    with pytest.raises(ValueError, match="feature_costs must be > 0"):
        ASTCRegressor(feature_costs=-np.ones(d)).fit(X, y)
    with pytest.raises(ValueError, match="^budget must be >= the cheapest feature cost 2.0"):
        ASTCClassifier(feature_costs=np.full(d, 2.0), budget=1.0).fit(X, y)
    # node_budget below the cheapest feature: refused like budget (was a silent constant model)
    with pytest.raises(ValueError, match="^node_budget must be >= the cheapest feature cost 2.0"):
        ASTCClassifier(feature_costs=np.full(d, 2.0), node_budget=1.0).fit(X, y)
    with pytest.raises(ValueError, match="^node_budget must be >= the cheapest feature cost 1.0"):
        ASTCRegressor(budget=5, node_budget=0.5).fit(X, y)
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        ASTCClassifier(depth=0).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        ASTCClassifier().fit(np.where(X > 100, np.nan, X), y)
    with pytest.raises(ValueError, match="two classes"):
        ASTCClassifier().fit(X, np.arange(len(y)) % 3)


def test_constant_feature_never_used_and_regressor_fits():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 5))
    X[:, 1] = 7.0
    y = 2 * X[:, 0] - X[:, 2] + 0.1 * rng.normal(size=300)
    reg = ASTCRegressor(budget=2, node_budget=2, depth=2).fit(X, y)
    assert all(1 not in f for f in reg.tree_.features)
    assert reg.score(X, y) > 0.95
    assert set(reg.tree_.features[0]) == {0, 2}


@checks("kusner2016.ch2.norm")
def test_soft_regressor_invariant_to_units_of_y():
    """The thesis normalises y (zero mean, unit l2 norm: footnote of s2.1.4); the regressor does it inside and undoes
    it in predict, so fitting on 1000 y + 7 gives 1000 * (predictions on y) + 7 and the same trees.  Before, the soft
    variant's sigmoid(s - theta) saw y's units: predictions differed by up to 1.1 and other features were chosen."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 6))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] + 0.1 * rng.normal(size=300)
    w = rng.random(300) + 0.5
    for soft in (True, False):
        for kw in ({}, {"sample_weight": w}):
            reg = ASTCRegressor(soft=soft, depth=4, budget=4).fit(X, y, **kw)
            big = ASTCRegressor(soft=soft, depth=4, budget=4).fit(X, 1000 * y + 7, **kw)
            assert big.tree_.features == reg.tree_.features
            np.testing.assert_allclose(big.tree_.weight, reg.tree_.weight, rtol=1e-9)
            np.testing.assert_allclose((big.predict(X) - 7) / 1000, reg.predict(X), rtol=1e-8, atol=1e-9)
            np.testing.assert_array_equal(big.predict_cost(X), reg.predict_cost(X))
    reg = ASTCRegressor(soft=True, depth=3).fit(X, y, sample_weight=w)
    assert reg.y_mean_ == pytest.approx(w @ y / w.sum()) and reg.y_scale_ > 0
    assert np.sqrt(w @ ((y - reg.y_mean_) / reg.y_scale_) ** 2) == pytest.approx(1.0)
    # a constant y: scale 1, predicts the constant
    const = ASTCRegressor(soft=True, depth=2).fit(X, np.full(300, 3.5))
    assert const.y_scale_ == 1.0 and np.allclose(const.predict(X), 3.5)


# --------------------------------------------------------------------------------------------- budgeted: routing
def _route_by_hand(model, X):
    n_internal = (1 << (model.depth - 1)) - 1
    leaves, values = [], []
    for x in X:
        k = 0
        for _ in range(model.depth - 1):
            k = 2 * k + 2 if model.intercept[k] + math.fsum(x * model.coef[k]) > model.threshold[k] else 2 * k + 1
        leaves.append(k - n_internal)
        values.append(model.intercept[k] + math.fsum(x * model.coef[k]))
    return np.array(leaves), np.array(values)


def test_astc_estimators_predict_by_the_routing_pass():
    from fast.estimators import ASTCClassifier, ASTCRegressor

    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 5)) * [1.0, 10.0, 0.1, 1e3, 1.0] + [0.0, 5.0, -3.0, 2e4, 1.0]
    y = X[:, 0] - 0.2 * X[:, 1] + 0.01 * X[:, 3] + rng.normal(size=400)
    Xt = np.vstack([X, rng.normal(size=(80, 5)) * [1.0, 10.0, 0.1, 1e3, 1.0] + [0.0, 5.0, -3.0, 2e4, 1.0]])
    reg = ASTCRegressor(budget=3, depth=3).fit(X, y)
    Xs = (Xt - reg.mean_) / reg.scale_
    leaves, values = _route_by_hand(reg.tree_, Xs)
    np.testing.assert_array_equal(reg.apply(Xt), leaves)
    np.testing.assert_allclose(reg.predict(Xt), reg.y_mean_ + reg.y_scale_ * values, rtol=1e-11, atol=1e-11)
    np.testing.assert_array_equal(reg.predict_cost(Xt), reg.tree_.leaf_cost[leaves])
    clf = ASTCClassifier(budget=3, depth=3).fit(X, y > np.median(y))
    leaves, values = _route_by_hand(clf.tree_, (Xt - clf.mean_) / clf.scale_)
    np.testing.assert_allclose(clf.decision_function(Xt), values, rtol=1e-11, atol=1e-11)
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[(values >= 0).astype(int)])


# ------------------------------------------------------------------------------------------------ the node greedy rule
def _expensive_signal_data(seed=0, n=2000):
    """y in {0, 1}; feature 0 is the label (+-1) almost exactly but costs 200, above every node budget below;
    features 1-4 are very noisy copies (R^2 about 0.03 each, cost 10): each has a worse R^2 / cost than feature 0,
    together they are informative; feature 5 is noise (cost 5)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    s = 2.0 * y - 1
    X = np.column_stack([s + 0.1 * rng.normal(size=n)] + [s + 6 * rng.normal(size=n) for _ in range(4)]
                        + [rng.normal(size=n)])
    return X, y, np.array([200.0, 10.0, 10.0, 10.0, 10.0, 5.0])


@checks("library.budgeted.best-of-greedy")
def test_default_greedy_is_best_of_and_escapes_the_constant_classifier():
    """The estimators' default is greedy="best_of".  With the thesis's prefix rule the best-ratio feature at every
    node costs 200 > node budget 40 (budget 120, depth 3), so every node selects NOTHING: a constant classifier
    (test error 0.494, cost 0).  best_of skips it and takes the affordable features: error 0.401, cost <= 120.
    Fails on the old code: the old estimator had no ``greedy`` and ran the prefix rule (the constant classifier)."""
    assert ASTCClassifier().greedy == "best_of" and ASTCRegressor().greedy == "best_of"
    X, y, costs = _expensive_signal_data()
    tr, te = slice(0, 1000), slice(1000, None)
    prefix = ASTCClassifier(feature_costs=costs, budget=120, greedy="prefix").fit(X[tr], y[tr])
    assert all(f == () for f in prefix.tree_.features)
    assert len(np.unique(prefix.decision_function(X[te]))) == 1 and np.all(prefix.predict_cost(X[te]) == 0)
    err_prefix = np.mean(prefix.predict(X[te]) != y[te])
    default = ASTCClassifier(feature_costs=costs, budget=120).fit(X[tr], y[tr])
    explicit = ASTCClassifier(feature_costs=costs, budget=120, greedy="best_of").fit(X[tr], y[tr])
    assert default.tree_.features == explicit.tree_.features
    assert default.tree_.features[0] and 0 not in set().union(*map(set, default.tree_.features))
    err = np.mean(default.predict(X[te]) != y[te])
    assert default.predict_cost(X[te]).max() <= 120
    assert err_prefix > 0.45 and err < 0.42, (err_prefix, err)
    reg = ASTCRegressor(feature_costs=costs, budget=120).fit(X[tr], 2.0 * y[tr] - 1)
    assert reg.tree_.features[0] and ASTCRegressor(feature_costs=costs, budget=120, greedy="prefix").fit(
        X[tr], 2.0 * y[tr] - 1).tree_.features[0] == ()


@checks("library.budgeted.best-of-greedy")
def test_prefix_constant_classifier_on_pima_with_yahoo_style_costs(shared_data):
    """The reported failure on a real set: Pima Indians diabetes (768 x 8), random costs 1..200 (seed 2), budget 120,
    depth 3 (node budget 40), stratified 70/30 split (seed 2).  greedy="prefix" selects no feature at any node and
    predicts the majority class (test error 0.351 = the minority rate, cost 0); the default best_of gives 0.277 at
    cost 41.  (With unit costs and no budget ASTC gets 0.221, a depth-3 decision tree 0.247.)"""
    import pandas as pd
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    df = pd.read_csv(shared_data / "uci" / "pima-indians-diabetes.csv", header=None)
    X, y = df.iloc[:, :-1].to_numpy(float), df.iloc[:, -1].to_numpy()
    costs = np.random.default_rng(2).integers(1, 201, size=X.shape[1]).astype(float)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=2, stratify=y)
    prefix = ASTCClassifier(feature_costs=costs, budget=120, greedy="prefix").fit(Xtr, ytr)
    assert all(f == () for f in prefix.tree_.features)
    err_prefix = np.mean(prefix.predict(Xte) != yte)
    minority = min(np.mean(yte == 0), np.mean(yte == 1))
    assert err_prefix == pytest.approx(minority) and prefix.predict_cost(Xte).max() == 0
    best = ASTCClassifier(feature_costs=costs, budget=120).fit(Xtr, ytr)
    err = np.mean(best.predict(Xte) != yte)
    assert best.predict_cost(Xte).max() <= 120 and err < err_prefix - 0.05, (err, err_prefix)
    unit = ASTCClassifier().fit(Xtr, ytr)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(Xtr, ytr)
    assert np.mean(unit.predict(Xte) != yte) < np.mean(tree.predict(Xte) != yte)


def test_greedy_parameter_validated():
    X, y, costs = _expensive_signal_data(n=200)
    with pytest.raises(ValueError, match=r"^greedy must be one of \('prefix', 'best_of'\), got 'skip'"):
        ASTCClassifier(greedy="skip").fit(X, y)
    with pytest.raises(TypeError, match="^greedy must be one of"):
        ASTCRegressor(greedy=None).fit(X, y.astype(float))
