"""The public preprocessing transformers in a scikit-learn Pipeline before EACH private estimator (issue 28 item 4,
"Done means"): a frame with numeric columns in their own units and a text column goes through a ColumnTransformer of
PublicScaler / DomainClipper and PublicOneHotEncoder / PublicOrdinalEncoder (declared bounds and levels only) into
RadoBoostClassifier(privacy=gaussian_edges), OmegaRAdaBoostClassifier(privacy=gaussian_edges),
PrivateBoostClassifier, and ImpactEncoder(epsilon) followed by a model; each pipeline fits, predicts, clones
(unfitted, same parameters) and pickles (the copy predicts the same), and beats the majority rate where the signal
allows.

tests/test_preprocessing.py covers the scaler / clipper before PrivateBoostClassifier and RadoBoostClassifier on a
numeric array; here every private estimator gets a text column too.  Fails on the code before fast.preprocessing
(ImportError)."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

import fast
from fast.dp_rados import gaussian_edges
from fast.estimators.impact import ImpactEncoder
from fast.preprocessing import DomainClipper, PublicOneHotEncoder, PublicOrdinalEncoder, PublicScaler

CITIES = ["paris", "lyon", "nice"]
BOUNDS = {"age": (0.0, 100.0), "income": (0.0, 200000.0)}


def _frame(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.uniform(18, 90, n), "income": rng.uniform(0, 200000, n),
                      "city": rng.choice(CITIES + ["rome"], n, p=[0.35, 0.3, 0.3, 0.05])})
    signal = (X["age"] - 54) / 36 + np.where(X["city"] == "paris", 1.0, np.where(X["city"] == "lyon", -1.0, 0.0))
    y = (signal + rng.normal(0, 0.2, n) > 0).astype(int).to_numpy()
    return X, y


def _columns(text=None, numeric=None):
    text = text or PublicOneHotEncoder(categories={"city": CITIES})
    numeric = numeric or PublicScaler(bounds=BOUNDS)
    return ColumnTransformer([("num", numeric, ["age", "income"]), ("text", text, ["city"])])


def _quiet():
    """Noise warnings of the estimators (public quantities, e.g. a mostly-noise release at this size) are not what
    this test checks: ignore them, keep every other warning an error."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    for name in ("NoiseDominatesWarning",):
        category = getattr(fast.dp_rados, name, None)
        if category is not None:
            warnings.simplefilter("ignore", category)
    return ctx


PIPELINES = {
    "RadoBoostClassifier": lambda: Pipeline([
        ("pre", _columns()),
        ("clf", fast.RadoBoostClassifier(n_rounds=100, privacy=gaussian_edges(8.0, 1e-5, support=0.5),
                                         classes=(0, 1), random_state=0))]),
    "OmegaRAdaBoostClassifier": lambda: Pipeline([
        ("pre", _columns(numeric=PublicScaler(bounds=BOUNDS, feature_range=(0.0, 1.0)))),
        ("clf", fast.OmegaRAdaBoostClassifier(n_rounds=100, privacy=gaussian_edges(8.0, 1e-5, support=0.5),
                                              classes=(0, 1), random_state=0))]),
    "PrivateBoostClassifier": lambda: Pipeline([
        ("pre", _columns()),
        ("clip", DomainClipper(norm=2.0)),
        ("clf", fast.PrivateBoostClassifier(epsilon=8.0, n_rounds=30, weak_learner="halfspace", data_norm=2.0,
                                            classes=(0, 1)))]),
    "PrivateBoostClassifier-ordinal-stump": lambda: Pipeline([
        ("pre", _columns(text=PublicOrdinalEncoder(categories={"city": CITIES}))),
        ("clf", fast.PrivateBoostClassifier(epsilon=8.0, n_rounds=30, weak_learner="stump",
                                            bounds=([-1.0, -1.0, -1.0], [1.0, 1.0, 2.0]), classes=(0, 1)))]),
    "ImpactEncoder+LogisticRegression": lambda: Pipeline([
        ("pre", ColumnTransformer([("num", PublicScaler(bounds=BOUNDS), ["age", "income"]),
                                   ("impact", ImpactEncoder(epsilon=4.0, categories=[CITIES], classes=(0, 1),
                                                            random_state=0), ["city"])])),
        ("clf", LogisticRegression())]),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_public_preprocessing_pipeline_before_each_private_estimator(name):
    X, y = _frame()
    ctx = _quiet()
    try:
        pipe = PIPELINES[name]().fit(X, y)
        pred = pipe.predict(X)
        copy = clone(pipe)
        again = pickle.loads(pickle.dumps(pipe))
        np.testing.assert_array_equal(again.predict(X), pred)
        accuracy = float(np.mean(pred == y))
    finally:
        ctx.__exit__(None, None, None)
    assert pred.shape == y.shape and set(np.unique(pred)) <= {0, 1}
    assert copy.get_params()["pre"].get_params(deep=False)["transformers"][0][1].get_params() == \
        pipe.get_params()["pre"].get_params(deep=False)["transformers"][0][1].get_params()
    assert not hasattr(copy.named_steps["pre"], "transformers_")  # clone: unfitted
    clf = pipe.steps[-1][1]
    spent = getattr(clf, "privacy_spent_", None)
    if spent is None:  # ImpactEncoder + a public model: the private step is the encoder
        spent = pipe.named_steps["pre"].named_transformers_["impact"].privacy_spent_
    assert 0 < spent.epsilon <= 8.0
    majority = max(np.mean(y), 1 - np.mean(y))
    assert accuracy > majority + 0.05, (name, accuracy, majority)
