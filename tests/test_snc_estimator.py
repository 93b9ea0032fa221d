"""SNCClassifier (kusner2016 ch. 3): scikit-learn contract, bad input, behaviour, and the thesis's claims on the staged
real data (Letters; slow ones marked)."""
from __future__ import annotations

import pickle
import time

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils import estimator_checks  # not `import check_estimator`: pytest would collect check_*

import fast.snc as fast_snc
from fast import SNCClassifier
from spec.links import checks


def blobs(seed=0, n_per=60, classes=3, d=2, sep=4.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, sep, (classes, d))
    X = np.vstack([rng.normal(c, 1.0, (n_per, d)) for c in centres])
    y = np.repeat(np.arange(classes), n_per)
    return X, y


def letters(shared_data):
    raw = np.loadtxt(shared_data / "uci" / "letter-recognition.data", delimiter=",", dtype=str)
    return raw[:, 1:].astype(np.float64), raw[:, 0]


def test_check_estimator_passes():
    # compression 0.5: scikit-learn's checks fit sets of 10-30 rows, where the default 4 % leaves fewer references
    # than classes, which fit refuses (issue 13, item 6); the default is exercised on realistic sizes below
    results = estimator_checks.check_estimator(SNCClassifier(compression=0.5, random_state=0), on_fail=None,
                                               on_skip=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert not failed, failed
    assert len(results) > 40


@pytest.mark.parametrize("metric", ["scalar", "diagonal", "full"])
@pytest.mark.parametrize("gamma2", ["cv", 0.5])
def test_fit_predict_multiclass(metric, gamma2):
    X, y = blobs(1, classes=4)
    labels = np.array(["a", "b", "c", "d"])[y]
    clf = SNCClassifier(compression=0.1, gamma2=gamma2, metric=metric, max_iter=50, random_state=0).fit(X, labels)
    Z, zl = clf.compressed_set_
    assert Z.shape == (24, 2) and set(zl) == {"a", "b", "c", "d"}
    assert clf.score(X, labels) > 0.9
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    assert np.array_equal(clf.classes_[proba.argmax(1)], clf.predict(X))
    assert np.all(np.diff(clf.loss_path_[1:]) <= 1e-9 * clf.loss_path_[0])
    if metric == "scalar":
        assert clf.A_ is None
    else:
        assert clf.A_.shape == ((2,) if metric == "diagonal" else (2, 2))


def test_k_neighbours_and_proba():
    X, y = blobs(2)
    clf = SNCClassifier(compression=15, gamma2=0.5, k=3, max_iter=30, random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    assert set(np.unique(proba * 3).round(12)) <= {0.0, 1.0, 2.0, 3.0}
    assert clf.score(X, y) > 0.9


def test_predict_is_1nn_on_the_compressed_set():
    X, y = blobs(3)
    clf = SNCClassifier(compression=9, gamma2=0.3, max_iter=20, random_state=1).fit(X, y)
    Z, zl = clf.compressed_set_
    T = np.random.default_rng(0).normal(0, 5, (300, 2))
    assert np.array_equal(clf.predict(T), KNeighborsClassifier(1).fit(Z, zl).predict(T))


@pytest.mark.parametrize("metric", ["scalar", "diagonal"])
def test_predict_and_proba_use_snc_predict(metric):
    """One k-NN implementation: predict is fast.snc.snc_predict on the compressed set (after A), predict_proba the
    vote shares of the same neighbours; on integer queries (exact ties) too."""
    X, y = blobs(6)
    clf = SNCClassifier(compression=12, gamma2=0.3, k=3, metric=metric, max_iter=10, random_state=0).fit(X, y)
    Z, zl = clf.compressed_set_
    T = np.vstack([np.random.default_rng(1).normal(0, 5, (200, 2)), np.round(Z[:5]), Z[:3]])
    A = clf.A_ if clf.A_ is not None else np.ones(2)
    want = fast_snc.snc_predict(Z * A, zl, T * A, 3)
    assert np.array_equal(clf.predict(T), want)
    proba = clf.predict_proba(T)
    assert set(np.unique(proba * 3).round(12)) <= {0.0, 1.0, 2.0, 3.0}
    assert np.array_equal(clf.classes_[proba.argmax(1)], want)


@pytest.mark.parametrize("factor", [1.0, 300.0, 1e-4])
def test_estimator_gamma2_is_snc_optimize_gamma2(monkeypatch, factor):
    """The estimator's gamma^2 phase is snc_optimize's: from the same start, on the same data and Z0, the estimator's
    gamma2_ equals fast.snc.snc_optimize(...).gamma2 (max_iter // 4 steps each), also from a start 300x too large
    and 1e4x too small: the old box-bounded L-BFGS-B (+-log 100) stopped at its bounds there (gamma^2 0.6, L 68.9 and
    0.002, L 193.2); the shared descent reaches 0.4007 (L 64.97) from all three starts."""
    import fast.estimators.snc as est_snc

    X, y = blobs(9, sep=2.0)
    seen = []
    real = est_snc.snc.snc_optimize

    def spy(X_, y_, Z_, zl_, gamma2, **kwargs):
        seen.append((np.array(Z_), np.array(zl_), gamma2, kwargs))
        return real(X_, y_, Z_, zl_, gamma2, **kwargs)

    monkeypatch.setattr(est_snc.snc, "snc_optimize", spy)
    start = factor * 0.2
    clf = SNCClassifier(compression=9, gamma2=start, max_iter=40, random_state=3).fit(X, y)
    monkeypatch.setattr(est_snc.snc, "snc_optimize", real)
    (Z0, zl, passed, kwargs), = seen
    assert kwargs["optimize_gamma2"] is False and passed == clf.gamma2_
    fit = fast_snc.snc_optimize(X, y, Z0, zl, start, max_iter=10, tol=kwargs["tol"])
    assert clf.gamma2_ == fit.gamma2
    assert clf.gamma2_ != start


def test_seeded_fit_is_reproducible_and_pickles():
    X, y = blobs(4)
    a = SNCClassifier(compression=0.1, random_state=7, max_iter=20).fit(X, y)
    b = clone(a).fit(X, y)
    np.testing.assert_array_equal(a.compressed_set_[0], b.compressed_set_[0])
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.predict(X), a.predict(X))


def test_learning_improves_on_the_initial_subsample():
    """The optimisation matters: the learned set beats its own (class-proportional) initialisation on held-out data."""
    X, y = blobs(5, n_per=200, classes=3, sep=1.8)
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(y))
    tr, te = perm[:400], perm[400:]
    clf = SNCClassifier(compression=6, gamma2=1.0, max_iter=100, random_state=0).fit(X[tr], y[tr])
    idx = fast_snc.class_proportional_init(y[tr], 6, np.random.default_rng(0))
    init_err = np.mean(KNeighborsClassifier(1).fit(X[tr][idx], y[tr][idx]).predict(X[te]) != y[te])
    assert 1 - clf.score(X[te], y[te]) <= init_err


BAD_FIT = [
    (dict(compression=2), ValueError, "fewer than the 3 classes"),
    (dict(compression=0.01), ValueError,
     r"compression = 0.01 leaves round\(0.01 \* 180\) = 2 references, fewer than the 3 classes: every class needs"),
    (dict(compression=0.004), ValueError, r"= 1 references, fewer than the 3 classes"),
    (dict(compression=0.0), ValueError, "compression must be a ratio"),
    (dict(compression=1.5), ValueError, "compression must be a ratio"),
    (dict(compression="4%"), TypeError, "compression must be a ratio"),
    (dict(gamma2=0.0), ValueError, "gamma2 must be a number > 0 or 'cv'"),
    (dict(gamma2=-1.0), ValueError, "gamma2 must be a number > 0 or 'cv'"),
    (dict(gamma2="auto"), ValueError, "gamma2 must be a number > 0 or 'cv'"),
    (dict(metric="mahalanobis"), ValueError, "metric must be one of"),
    (dict(k=0), ValueError, "k must be an integer >= 1"),
    (dict(k=50, compression=5), ValueError, "k = 50 exceeds the 5 references"),
    (dict(max_iter=-1), ValueError, "max_iter must be an integer >= 0"),
]


@pytest.mark.parametrize("params,exc,msg", BAD_FIT)
def test_bad_parameters(params, exc, msg):
    X, y = blobs(7)
    with pytest.raises(exc, match=msg):
        SNCClassifier(**params).fit(X, y)


def test_compression_at_the_number_of_classes():
    """The rule is m >= number of classes for a ratio and a count alike: exactly one per class is accepted."""
    X, y = blobs(7)  # 180 rows, 3 classes
    for compression in (3, 3 / 180, 0.015):  # a count, and ratios rounding to 3 references
        clf = SNCClassifier(compression=compression, gamma2=1.0, max_iter=2, random_state=0).fit(X, y)
        assert clf.n_references_ == 3 and sorted(clf.compressed_set_[1].tolist()) == [0, 1, 2]


@pytest.mark.parametrize("gamma2,bound_mib", [(1.0, 50), ("cv", 50)])
def test_fit_memory_is_chunked(gamma2, bound_mib):
    """No n x m x d array: at 4,000 x 50, compression 0.16 (m = 640) a fit with max_iter=0 peaked at ~498 MiB
    (the median distance of the "cv" grid built 2,000 x m x d even for a float gamma2; the hold-out n_hold x m x d).
    The "cv" case runs on 2,000 rows (m = 320; it peaked at ~270 MiB) to stay fast."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 4000 if gamma2 == 1.0 else 2000
    X, y = rng.normal(size=(n, 50)), rng.integers(0, 5, n)
    clf = SNCClassifier(compression=0.16, gamma2=gamma2, max_iter=0 if gamma2 == 1.0 else 4, random_state=0)
    clf.fit(X[:100], y[:100])  # warm up
    tracemalloc.start()
    try:
        clf.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < bound_mib * 2**20, peak / 2**20
    assert clf.n_references_ == round(0.16 * n)
    if gamma2 == "cv":
        assert len(clf.cv_errors_) == 5


def test_bad_data():
    X, y = blobs(8)
    with pytest.raises(ValueError, match="at least 2 classes"):
        SNCClassifier().fit(X, np.zeros(len(y)))
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SNCClassifier().fit(Xn, y)
    clf = SNCClassifier(compression=6, gamma2=1.0, max_iter=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.ones((2, 3)))


@pytest.fixture
def letters_split(shared_data):
    X, y = letters(shared_data)
    return X[:16000], y[:16000], X[16000:], y[16000:]


@checks("kusner2016.ch3.tab1")
def test_staged_sets_against_table_3_1(shared_data):
    """Letters 16,000 (+4,000 test) x 16, 26 classes; Adult: 32,561 training rows (Table 3.1 prints 32,562, the line
    count of UCI's file with its trailing blank line), 75.9 % in the majority class (the text says 78 %); MNIST
    60,000 x 784, 10 classes; Forest: the staged 100,000-row subsample, 54 features, 7 classes."""
    import gzip

    X, y = letters(shared_data)
    assert X.shape == (20000, 16) and np.unique(y).size == 26
    rows = [r for r in (shared_data / "uci" / "adult-train.csv").read_text().splitlines() if r.strip()]
    assert len(rows) == 32561
    share = np.mean([r.rsplit(",", 1)[1].strip() == "<=50K" for r in rows])
    assert abs(share - 0.759) < 0.001 and abs(share - 0.78) > 0.02
    labels = np.frombuffer(gzip.open(shared_data / "mnist" / "train-labels-idx1-ubyte.gz").read(), np.uint8, offset=8)
    assert labels.size == 60000 and np.unique(labels).size == 10
    with gzip.open(shared_data / "uci" / "covtype_100k_stratified_seed0.data.gz", "rt") as fh:
        cov = np.loadtxt(fh, delimiter=",", dtype=np.int64)
    assert cov.shape == (100000, 55) and np.unique(cov[:, -1]).size == 7


#: Table 3.3, exhaustive speed-up columns (1, 2, 4, 8, 16 %) as printed; None for the dash
TABLE_3_3_EXHAUSTIVE = {
    "yale-faces": (None, 28, 19, 12, 6.5), "isolet": (76, 47, 26, 14, 7.0), "letters": (143, 73, 34, 16, 7.6),
    "adult": (156, 75, 36, 17, 7.8), "w8a": (146, 71, 33, 15, 7.3), "mnist": (136, 66, 32, 15, 7.1),
    "forest": (146, 70, 32, 15, None),
}


@checks("kusner2016.ch3.tab3")
def test_table_3_3_distance_counts(letters_split):
    """Table 3.3 by distance computations (deterministic; wall-clock ratios are not asserted).

    (1) Exhaustive 1-NN on a set compressed to ratio r computes m = round(r n) distances per query instead of n: a
    ratio n / m = 1 / r (100x at 1 %, 25x at 4 %).  The thesis says its measured speed-ups 'generally exceed those
    expected at the given compression ratio (e.g. > 100x at 1 %)': in the printed table they do for 5 of 7 sets, but
    isolet (76 < 100 at 1 %, 47 < 50 at 2 %) and yale-faces (28 < 50, 19 < 25, 12 < 12.5) fall below 1 / r.
    (2) Table 3.3 right, Letters: SNC at 4 % needs fewer distance computations than a ball tree on the full set
    (thesis 3.3x, after LMNN).  scikit-learn's BallTree on the raw 16,000 x 16 training set, 1-NN queries of the
    4,000 test points, every distance counted (``get_n_calls``: node centroids and points): 3,609 per query at
    leaf_size 1 (its best case) against 640: 5.6x fewer for SNC, so the claim holds on Letters."""
    from sklearn.neighbors import BallTree

    Xtr, ytr, Xte, yte = letters_split
    n = Xtr.shape[0]
    ratios = (0.01, 0.02, 0.04, 0.08, 0.16)
    expected = [n / round(r * n) for r in ratios]
    assert expected == [100.0, 50.0, 25.0, 12.5, 6.25]
    below = sorted((name, 100 * r) for name, row in TABLE_3_3_EXHAUSTIVE.items()
                   for r, v, e in zip(ratios, row, expected) if v is not None and v < e)
    assert below == [("isolet", 1.0), ("isolet", 2.0), ("yale-faces", 2.0), ("yale-faces", 4.0), ("yale-faces", 8.0)]
    tree = BallTree(Xtr, leaf_size=1)
    tree.reset_n_calls()
    tree.query(Xte, k=1)
    per_query = tree.get_n_calls() / Xte.shape[0]
    m = round(0.04 * n)
    assert m == 640
    print({"balltree_distances_per_query": per_query, "ratio_vs_snc_4pct": per_query / m})
    assert per_query / m > 3.3  # at least the thesis's advantage, on raw features
    assert 3000 < per_query < 4500


@pytest.mark.slow
@checks("kusner2016.ch3.headline", "kusner2016.ch3.fig3", "kusner2016.ch3.tab2")
def test_letters_at_4_percent(letters_split):
    """Letters, 4 % (m = 640), one core: SNC's 1-NN test error within 0.5 points of full 1-NN and far below a
    class-balanced random 4 % subsample; trained in less than the thesis's 2 min 44 s (8 cores).  One core: BLAS
    and numba both at one thread (the gradient splits over numba.get_num_threads() threads otherwise)."""
    from experiments.snc import one_core

    Xtr, ytr, Xte, yte = letters_split
    full = 1 - KNeighborsClassifier(1).fit(Xtr, ytr).score(Xte, yte)
    with one_core():
        start = time.process_time()
        clf = SNCClassifier(compression=0.04, random_state=0).fit(Xtr, ytr)
        seconds = time.process_time() - start
    err = 1 - clf.score(Xte, yte)
    print({"snc_error": err, "full_1nn_error": full, "cpu_seconds_one_core": seconds, "n_iter": clf.n_iter_})
    idx = fast_snc.class_proportional_init(ytr, 640, np.random.default_rng(0))
    sub = 1 - KNeighborsClassifier(1).fit(Xtr[idx], ytr[idx]).score(Xte, yte)
    assert err <= full + 0.005, (err, full)
    assert sub > err + 0.05, (sub, err)
    assert seconds < 164.0, seconds


@pytest.mark.slow
@checks("kusner2016.ch3.metric-forms")
def test_letters_scalar_diagonal_full_metrics_comparable(letters_split):
    """§3.1.3: 'the form A = gamma^2 I leads to comparable results as the diagonal or full matrix'. Letters, 4,000
    training rows, 4 % (m = 160), same start gamma^2: the three test errors lie within 2 points of each other."""
    Xtr, ytr, Xte, yte = letters_split
    errors = {}
    for metric in ("scalar", "diagonal", "full"):
        clf = SNCClassifier(compression=0.04, gamma2=0.05, metric=metric, max_iter=150, random_state=0)
        errors[metric] = 1 - clf.fit(Xtr[:4000], ytr[:4000]).score(Xte, yte)
    print(errors)
    assert max(errors.values()) - min(errors.values()) <= 0.02, errors


@pytest.mark.slow
@checks("kusner2016.ch3.noise")
def test_letters_label_noise_robustness(letters_split):
    """Figure 3.5 right: with 32 % of the training labels replaced by another letter, 1-NN on the full set follows the
    noise, SNC at 4 % smooths it out (error far lower), and Hart's CNN keeps most of the data (> 65 % in the thesis)
    without mitigating the noise."""
    from experiments.snc import hart_cnn

    Xtr, ytr, Xte, yte = letters_split
    letters_ = np.unique(ytr)
    rng = np.random.default_rng(100)
    yn = ytr.copy()
    flip = rng.random(len(yn)) < 0.32
    yn[flip] = letters_[(np.searchsorted(letters_, yn[flip]) + rng.integers(1, 26, flip.sum())) % 26]
    full = 1 - KNeighborsClassifier(1).fit(Xtr, yn).score(Xte, yte)
    snc_err = 1 - SNCClassifier(compression=0.04, gamma2=0.05, max_iter=150, random_state=0).fit(Xtr, yn).score(Xte, yte)
    store = hart_cnn(Xtr, yn, np.random.default_rng(0))
    cnn = 1 - KNeighborsClassifier(1).fit(Xtr[store], yn[store]).score(Xte, yte)
    print({"full": full, "snc": snc_err, "cnn": cnn, "cnn_ratio": len(store) / len(yn)})
    assert snc_err < full - 0.1 and snc_err < cnn - 0.1
    assert len(store) / len(yn) > 0.5
