"""fast.preprocessing (issue 28, item 4): public preprocessing for the private estimators.  The scaling is exact,
values outside the declared domain are clamped / bucketed (never an error), fit reads only the schema, the
transformers are row-wise (a neighbour's row changes no other row's output), pandas in and out, they pass
scikit-learn's checks, work in a Pipeline before each private estimator (clone, pickle), and the custodian's
non-private clipping_report warns on a badly scaled column while transform stays silent.

Every test here fails on the code before this module existed (``fast.preprocessing`` did not exist: ImportError)."""
from __future__ import annotations

import pickle
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder
from sklearn.utils import estimator_checks  # not `import check_estimator`: pytest would collect check_*

import fast
from fast.preprocessing import (ClippingWarning, DomainClipper, PublicOneHotEncoder, PublicOrdinalEncoder,
                                PublicScaler, clipping_report)

TRANSFORMERS = [
    PublicScaler(bounds=(-3.0, 3.0)),
    PublicScaler(bounds=(0.0, 1.0), feature_range=(0.0, 1.0)),
    DomainClipper(norm=1.0),
    DomainClipper(bounds=(-1.0, 1.0)),
    PublicOneHotEncoder(categories=[0, 1, 2]),
    PublicOrdinalEncoder(categories=[0.0, 1.0]),
]
IDS = ["scaler", "scaler01", "clip-ball", "clip-box", "onehot", "ordinal"]


@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=IDS)
def test_sklearn_check_estimator(transformer):
    """Every scikit-learn check passes (bounds / levels given as one pair / list for every column, so the checks'
    data of any width fits the declaration)."""
    results = estimator_checks.check_estimator(transformer, on_fail=None, on_skip=None)
    assert not [(r["check_name"], r["exception"]) for r in results if r["status"] == "failed"]
    assert len(results) > 40


def test_reexported_from_fast():
    assert fast.PublicScaler is PublicScaler and fast.clipping_report is clipping_report
    assert {"PublicScaler", "PublicOneHotEncoder", "PublicOrdinalEncoder", "DomainClipper", "clipping_report",
            "ClippingWarning"} <= set(fast.__all__)


# ----------------------------------------------------------------------------------------------------- scaler
def test_scaling_is_exact_against_rationals_and_matches_minmax_on_the_bounds():
    """out = (1 - t) a + t b with t = (x - lo)/(hi - lo): the declared ends map EXACTLY to a and b, the centre to the
    centre, every value within 2 ulp of the exact rational map; the same map as MinMaxScaler(clip=True) fit on the
    two rows [lower; upper] (an independent oracle)."""
    rng = np.random.default_rng(0)
    lo = np.array([0.0, -5.0, 1e-3, -1e6])
    hi = np.array([100.0, 5.0, 2e-3, 3e6])
    X = lo + (hi - lo) * rng.random((200, 4))
    X = np.vstack([X, lo, hi, (lo + hi) / 2])
    for a, b in ((-1.0, 1.0), (0.0, 1.0)):
        out = PublicScaler(bounds=(lo, hi), feature_range=(a, b)).fit(X).transform(X)
        assert out[-3].tolist() == [a] * 4 and out[-2].tolist() == [b] * 4
        assert out[-1].tolist() == [(a + b) / 2] * 4
        for i in range(0, X.shape[0], 7):
            for j in range(4):
                exact = Fraction(a) + (Fraction(b) - Fraction(a)) * (Fraction(X[i, j]) - Fraction(lo[j])) / (
                    Fraction(hi[j]) - Fraction(lo[j]))
                assert abs(Fraction(out[i, j]) - exact) <= 2 * Fraction(np.spacing(max(abs(float(exact)), 1.0)))
        peer = MinMaxScaler(feature_range=(a, b), clip=True).fit(np.vstack([lo, hi]))
        np.testing.assert_allclose(out, peer.transform(X), rtol=0, atol=1e-12)


def test_scaler_clamps_and_reads_nan_and_non_numbers_as_the_centre():
    scaler = PublicScaler(bounds=([0.0, -1.0], [10.0, 1.0])).fit(np.zeros((1, 2)))
    X = np.array([[20.0, -np.inf], [-5.0, np.inf], [np.nan, 0.5], [None, "text"]], dtype=object)
    before = X.copy()
    out = scaler.transform(X)
    assert out.tolist() == [[1.0, -1.0], [-1.0, 1.0], [0.0, 0.5], [0.0, 0.0]]
    assert (X == before)[~pd.isna(before)].all()  # the input is not modified
    # an int beyond the float range and a huge float clamp, never overflow
    assert PublicScaler(bounds=(0, 1)).fit([[0]]).transform([[10**400], [-1e308]]).ravel().tolist() == [1.0, -1.0]


def test_scaler_fit_reads_only_the_schema():
    """Two data sets of the same schema, every value different (NaN, inf, huge, garbage objects), give the same
    fitted state: fit never reads a value."""
    A = np.zeros((5, 3))
    B = np.array([[np.nan, np.inf, -1e308]] * 5)
    C = np.array([["a", None, [1]]] * 5, dtype=object)
    states = [PublicScaler(bounds=(-1, 2)).fit(Z) for Z in (A, B, C)]
    for s in states[1:]:
        assert s.n_features_in_ == 3 and s.lower_.tolist() == states[0].lower_.tolist()
        assert s.upper_.tolist() == states[0].upper_.tolist()


def test_scaler_schema_errors_name_the_argument():
    X = np.zeros((4, 3))
    with pytest.raises(ValueError, match="bounds must be declared"):
        PublicScaler().fit(X)
    with pytest.raises(ValueError, match=r"bounds must give one bound per feature of X \(3\)"):
        PublicScaler(bounds=([0, 0], [1, 1])).fit(X)
    with pytest.raises(ValueError, match="lower < upper"):
        PublicScaler(bounds=(1.0, 1.0)).fit(X)
    with pytest.raises(ValueError, match="upper - lower finite"):
        PublicScaler(bounds=(-1e308, 1e308)).fit(X)
    with pytest.raises(ValueError, match="bounds must be a pair"):
        PublicScaler(bounds=5.0).fit(X)
    with pytest.raises(ValueError, match="feature_range must be finite with a < b"):
        PublicScaler(bounds=(0, 1), feature_range=(1, 0)).fit(X)
    with pytest.raises(TypeError, match="schema check on the dtype"):
        PublicScaler(bounds=(0, 1)).fit(np.array([["a"]]))
    frame = pd.DataFrame({"a": [1.0], "b": [2.0]})
    with pytest.raises(ValueError, match=r"missing \['b'\], not in X \['c'\]"):
        PublicScaler(bounds={"a": (0, 1), "c": (0, 1)}).fit(frame)
    with pytest.raises(ValueError, match="needs X to be a DataFrame"):
        PublicScaler(bounds={"a": (0, 1)}).fit(np.zeros((1, 1)))
    scaler = PublicScaler(bounds=(0, 1)).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but PublicScaler is expecting 3"):
        scaler.transform(np.zeros((2, 2)))


def test_pandas_in_and_out_with_bounds_by_column_name():
    frame = pd.DataFrame({"age": [25.0, 150.0, np.nan], "income": [5e4, 2e5, 0.0]}, index=[7, 8, 9])
    scaler = PublicScaler(bounds={"income": (0.0, 1e5), "age": (0.0, 100.0)}).set_output(transform="pandas")
    out = scaler.fit_transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["age", "income"] and list(out.index) == [7, 8, 9]
    assert out.to_numpy().tolist() == [[-0.5, 0.0], [1.0, 1.0], [0.0, -1.0]]
    assert scaler.lower_.tolist() == [0.0, 0.0] and scaler.upper_.tolist() == [100.0, 1e5]  # in X's column order
    with pytest.raises(ValueError, match="feature names"):
        scaler.transform(frame[["income", "age"]])
    # and a plain ndarray comes back without set_output
    assert isinstance(PublicScaler(bounds=(0, 1)).fit_transform(frame), np.ndarray)


# ----------------------------------------------------------------------------------------------------- clipper
def test_domain_clipper_ball_and_box():
    rng = np.random.default_rng(1)
    X = rng.normal(scale=0.7, size=(300, 5))
    X[0] = [1e200, -1e200, 0, 0, 0]  # squared norm overflows: clipped by scaling
    X[1] = [np.inf, 0, 0, 0, 0]
    out = DomainClipper(norm=1.5).fit(X).transform(X)
    with np.errstate(over="ignore", invalid="ignore"):
        norms = np.linalg.norm(X, axis=1)  # inf for rows 0 and 1
    inside = norms <= 1.5
    assert inside.sum() > 5 and (~inside).sum() > 100
    np.testing.assert_array_equal(out[inside], X[inside])  # untouched
    np.testing.assert_allclose(np.linalg.norm(out[~inside], axis=1), 1.5, rtol=1e-14)
    finite = ~inside & np.isfinite(norms)
    np.testing.assert_allclose(out[finite] / np.linalg.norm(out[finite], axis=1)[:, None],
                               X[finite] / norms[finite][:, None], rtol=1e-13, atol=1e-15)  # same direction
    np.testing.assert_allclose(out[0], [1.5 / np.sqrt(2), -1.5 / np.sqrt(2), 0, 0, 0], rtol=1e-14)
    np.testing.assert_allclose(out[1], [1.5, 0, 0, 0, 0], rtol=1e-14, atol=1e-300)
    assert DomainClipper(norm=1.0).fit([[0, 0]]).transform([[np.nan, None]]).tolist() == [[0.0, 0.0]]
    box = DomainClipper(bounds=([0, -1], [1, 1])).fit([[0, 0]])
    assert box.transform([[2.0, -3.0], [np.nan, 0.5]]).tolist() == [[1.0, -1.0], [0.5, 0.5]]
    for bad in (dict(), dict(norm=1.0, bounds=(0, 1))):
        with pytest.raises(ValueError, match="exactly one of norm"):
            DomainClipper(**bad).fit([[0.0]])
    for norm in (0.0, -1.0, np.inf, True, "1"):
        with pytest.raises(ValueError, match="norm must be a finite number > 0"):
            DomainClipper(norm=norm).fit([[0.0]])


# ----------------------------------------------------------------------------------------------------- encoders
def test_one_hot_declared_levels_unknown_is_all_zero_never_an_error():
    enc = PublicOneHotEncoder(categories=[["red", "green", None], [1, 2]]).fit([["red", 1]])
    X = np.array([["green", 2], ["blue", 1.0], [np.nan, True], [[1, 2], {"a": 1}], [pd.NA, np.inf], ["red", "1"]],
                 dtype=object)
    out = enc.transform(X)
    assert out.tolist() == [
        [0, 1, 0, 0, 1],   # green, 2
        [0, 0, 0, 1, 0],   # blue: unknown; 1.0 == 1
        [0, 0, 1, 1, 0],   # NaN -> the declared missing level; True == 1
        [0, 0, 0, 0, 0],   # unhashable: unknown
        [0, 0, 1, 0, 0],   # pd.NA -> missing level; inf: unknown
        [1, 0, 0, 0, 0],   # "1" is not 1
    ]
    assert enc.get_feature_names_out(["colour", "size"]).tolist() == [
        "colour_red", "colour_green", "colour_None", "size_1", "size_2"]
    # the same as scikit-learn's OneHotEncoder(categories, handle_unknown="ignore") on the levels it can read
    Xs = np.array([["red", "a"], ["blue", "b"], ["green", "c"]], dtype=object)
    ours = PublicOneHotEncoder(categories=[["red", "green"], ["a", "c"]]).fit(Xs).transform(Xs)
    peer = OneHotEncoder(categories=[["red", "green"], ["a", "c"]], handle_unknown="ignore", sparse_output=False)
    np.testing.assert_array_equal(ours, peer.fit(Xs).transform(Xs))


class _RaisingEquality:
    """A value that hashes like the level "a" and whose == raises (as pandas NA's truth value does)."""

    def __hash__(self):
        return hash("a")

    def __eq__(self, other):
        raise ValueError("no equality")


def test_a_value_whose_equality_raises_is_unknown_not_an_error():
    """A lookup that compares the value with a level of the same hash calls ==: a ValueError there (or pandas NA's
    "boolean value of NA is ambiguous" TypeError) must send the value to the bucket, not fail the transform
    (failed with ValueError while only TypeError was caught)."""
    enc = PublicOrdinalEncoder(categories=[["a", "b"]]).fit([["a"]])
    X = np.array([["b"], [_RaisingEquality()], ["a"]], dtype=object)
    assert enc.transform(X).ravel().tolist() == [1.0, -1.0, 0.0]


def test_ordinal_declared_levels_unknown_is_minus_one():
    enc = PublicOrdinalEncoder(categories=[["low", "mid", "high"]]).fit([["low"]])
    X = np.array([["high"], ["mid"], ["??"], [None], [3.5]], dtype=object)
    assert enc.transform(X).ravel().tolist() == [2.0, 1.0, -1.0, -1.0, -1.0]
    with_missing = PublicOrdinalEncoder(categories=[["a", np.nan]]).fit([["a"]])
    assert with_missing.transform([["a"], [None], [float("nan")], ["b"]]).ravel().tolist() == [0.0, 1.0, 1.0, -1.0]


def test_encoder_declaration_errors():
    X = [["a", "b"]]
    with pytest.raises(ValueError, match="categories must be declared"):
        PublicOneHotEncoder().fit(X)
    with pytest.raises(ValueError, match=r"one list per column of X \(2\), got 3"):
        PublicOneHotEncoder(categories=[["a"], ["b"], ["c"]]).fit(X)
    with pytest.raises(ValueError, match="distinct levels"):
        PublicOrdinalEncoder(categories=[1, True]).fit(X)
    with pytest.raises(ValueError, match="missing level"):
        PublicOrdinalEncoder(categories=[None, np.nan]).fit(X)
    with pytest.raises(ValueError, match="at least one level"):
        PublicOrdinalEncoder(categories=[["a"], []]).fit(X)
    with pytest.raises(ValueError, match="not a mix"):
        PublicOrdinalEncoder(categories=["a", ["b"]]).fit(X)
    with pytest.raises(TypeError, match="categories must be a list"):
        PublicOrdinalEncoder(categories="ab").fit(X)
    with pytest.raises(ValueError, match=r"missing \['y'\]"):
        PublicOrdinalEncoder(categories={"x": ["a"]}).fit(pd.DataFrame({"x": ["a"], "y": ["b"]}))


def test_encoders_pandas_in_and_out_with_categories_by_column():
    frame = pd.DataFrame({"city": ["paris", "rome", "oslo"], "size": pd.Categorical(["s", "m", None])},
                         index=["u", "v", "w"])
    cats = {"size": ["s", "m", "l"], "city": ["paris", "rome"]}
    onehot = PublicOneHotEncoder(categories=cats).set_output(transform="pandas").fit(frame)
    out = onehot.transform(frame)
    assert list(out.columns) == ["city_paris", "city_rome", "size_s", "size_m", "size_l"]
    assert list(out.index) == ["u", "v", "w"]
    assert out.to_numpy().tolist() == [[1, 0, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 0, 0, 0]]
    ordinal = PublicOrdinalEncoder(categories=cats).set_output(transform="pandas").fit(frame)
    assert ordinal.transform(frame).to_dict("list") == {"city": [0.0, 1.0, -1.0], "size": [0.0, 1.0, -1.0]}


# ----------------------------------------------------------------------------------------------------- privacy
NEIGHBOUR_VALUES = [1e300, -np.inf, np.nan, None, "text", [1, 2], 10**400]


@pytest.mark.parametrize("transformer", TRANSFORMERS + [PublicScaler(bounds=([0, -1, 5], [1, 1, 9])),
                                                        PublicOneHotEncoder(categories=[["a", 1], [2.5], [None, 0]])],
                         ids=IDS + ["scaler-per-feature", "onehot-per-column"])
def test_row_wise_a_neighbours_row_changes_no_other_row(transformer):
    """Neighbouring data sets D, D' (row i replaced by an extreme, missing or garbage value in each column): the
    fitted state is the same and every OTHER row's output is identical (the transformers are row-wise), and no
    warning or error is raised on either: nothing depends on the replaced record but its own output row."""
    rng = np.random.default_rng(3)
    D = rng.normal(size=(40, 3)).round(1).astype(object)
    D[::4, 0] = "a"
    for k, value in enumerate(NEIGHBOUR_VALUES):
        i = 5 + 4 * k
        D2 = D.copy()
        for j in range(D.shape[1]):
            D2[i, j] = value
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            a, b = clone(transformer).fit(D), clone(transformer).fit(D2)
            out, out2 = a.transform(D), b.transform(D2)
        assert pickle.dumps({k: v for k, v in vars(a).items()}) == pickle.dumps({k: v for k, v in vars(b).items()})
        others = np.arange(D.shape[0]) != i
        np.testing.assert_array_equal(out[others], out2[others])
        assert out.shape == out2.shape and np.isfinite(out2).all()
        # and each output row is the transform of that row alone
        np.testing.assert_array_equal(b.transform(D2[i:i + 1]), out2[i:i + 1])


def _binary(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * [1000.0, 1.0, 50.0] + [5000.0, 0.0, 0.0]
    y = ((X[:, 0] - 5000.0) / 1000.0 + X[:, 1] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("make", [
    lambda: fast.PrivateBoostClassifier(weak_learner="halfspace", epsilon=4.0, n_rounds=10, data_norm=1.0,
                                        classes=(0, 1)),
    lambda: fast.RadoBoostClassifier(n_rounds=50, privacy=__import__("fast.dp_rados").dp_rados.gaussian_edges(
        1.0, 1e-5, support=0.5), classes=(0, 1), random_state=0),
], ids=["PrivateBoostClassifier", "RadoBoostClassifier"])
@pytest.mark.parametrize("pre", [
    lambda: PublicScaler(bounds=([2000.0, -3.0, -150.0], [8000.0, 3.0, 150.0])),
    lambda: PublicScaler(bounds=([2000.0, -3.0, -150.0], [8000.0, 3.0, 150.0]), feature_range=(0.0, 1.0)),
    lambda: DomainClipper(norm=1.0),
], ids=["scaler", "scaler01", "clipper"])
def test_pipeline_before_each_private_estimator_fits_predicts_clones_and_pickles(make, pre):
    """ImpactEncoder is itself an encoder (skipped).  The pipeline fits, predicts every row, clones (unfitted,
    same parameters) and pickles (the fitted copy predicts the same)."""
    X, y = _binary()
    pipe = Pipeline([("scale", pre()), ("clf", make())]).fit(X, y)
    pred = pipe.predict(X)
    assert pred.shape == (400,) and set(np.unique(pred)) <= {0, 1}
    copy = clone(pipe)
    assert copy.get_params()["scale"].get_params() == pipe.get_params()["scale"].get_params()
    assert not hasattr(copy.named_steps["scale"], "n_features_in_")
    again = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(again.predict(X), pred)
    assert pipe.named_steps["clf"].privacy_spent_.epsilon <= 4.0


def test_scaled_private_boost_beats_the_raw_columns():
    """What the scaler is for: PrivateBoostClassifier clips rows to data_norm, so on raw columns (one in thousands)
    that column decides everything; scaled from the declared bounds the informative second column counts too."""
    X, y = _binary(n=2000, seed=4)
    y = (X[:, 1] > 0).astype(int)  # the label follows the small column only
    bounds = ([2000.0, -3.0, -150.0], [8000.0, 3.0, 150.0])
    scaled = Pipeline([("scale", PublicScaler(bounds=bounds)),
                       ("clf", fast.PrivateBoostClassifier(weak_learner="halfspace", epsilon=4.0, n_rounds=20,
                                                           data_norm=2.0, classes=(0, 1)))])
    raw = fast.PrivateBoostClassifier(weak_learner="halfspace", epsilon=4.0, n_rounds=20, data_norm=2.0, classes=(0, 1))
    acc_scaled = np.mean([np.mean(scaled.fit(X, y).predict(X) == y) for _ in range(3)])
    acc_raw = np.mean([np.mean(raw.fit(X, y).predict(X) == y) for _ in range(3)])
    assert acc_scaled > 0.85 and acc_scaled > acc_raw + 0.2, (acc_scaled, acc_raw)


# ----------------------------------------------------------------------------------------------------- diagnostic
def test_clipping_report_warns_on_a_badly_scaled_column_and_transform_stays_silent():
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.random(100), 1000 * rng.random(100)])  # column 1 declared [0, 1] but in [0, 1000]
    scaler = PublicScaler(bounds=(0.0, 1.0)).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler.transform(X)  # silent: a warning inside a private fit would depend on the data
    with pytest.warns(ClippingWarning, match=r"feature 'x1'"):
        report = clipping_report(scaler, X)
    clipped = int((X[:, 1] > 1).sum())
    assert report["rows_clipped"] == clipped and report["row_share"] == clipped / 100
    assert report["feature_share"].tolist() == [0.0, clipped / 100] and report["values_clipped"] == clipped
    # within the declared domain: no warning, zero shares
    good = PublicScaler(bounds=([0.0, 0.0], [1.0, 1000.0])).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clipping_report(good, X)["row_share"] == 0.0
    # at most the threshold: silent; just above: warns
    Y = X.copy()
    Y[:5, 1] = 0.5
    Y[5:, 1] = 0.5
    Y[:5, 0] = 7.0  # 5 % of the rows
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clipping_report(scaler, Y, threshold=0.05)["row_share"] == 0.05
    with pytest.warns(ClippingWarning):
        clipping_report(scaler, Y, threshold=0.04)


def test_clipping_report_for_the_clipper_and_the_encoders():
    X = np.array([[3.0, 4.0], [0.1, 0.1], [np.nan, 0.0], [0.0, 0.0]])
    with pytest.warns(ClippingWarning):
        report = clipping_report(DomainClipper(norm=1.0).fit(X), X)
    assert report["rows_clipped"] == 2 and report["values_clipped"] == 3  # both entries of row 0, the NaN
    cats = np.array([["a"], ["b"], ["zzz"], [None]], dtype=object)
    for enc in (PublicOneHotEncoder(categories=["a", "b"]), PublicOrdinalEncoder(categories=["a", "b"])):
        with pytest.warns(ClippingWarning, match="2 of 4 rows"):
            assert clipping_report(enc.fit(cats), cats)["row_share"] == 0.5
    with pytest.raises(TypeError, match="transformer must be a transformer of fast.preprocessing"):
        clipping_report(MinMaxScaler().fit(X[1:]), X)
    with pytest.raises(ValueError, match=r"threshold must be a number in \[0, 1\]"):
        clipping_report(DomainClipper(norm=1.0).fit(X), X, threshold=2)
