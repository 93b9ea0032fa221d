"""The condensation baselines of the SNC experiments (experiments/condensed.py): Hart's CNN and FCNN1 are
training-set consistent, exact (incremental nearest store element = brute force), and deterministic."""
import numpy as np
import pytest

from experiments.condensed import _Store, fcnn, hart_cnn


def _nn_labels(X, y, store, Q):
    D = ((Q[:, None, :] - X[store][None, :, :]) ** 2).sum(-1)
    return y[store][np.argmin(D, axis=1)]


def _blobs(seed, n=300, d=3, k=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) + 1.5 * rng.normal(size=(k, d))[y]
    return X, y


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("algo", ["hart", "fcnn"])
def test_consistent_and_unique(seed, algo):
    X, y = _blobs(seed)
    store = hart_cnn(X, y, np.random.default_rng(seed)) if algo == "hart" else fcnn(X, y)
    assert len(set(store.tolist())) == len(store)
    assert np.array_equal(_nn_labels(X, y, store, X), y)  # training-set consistent (no duplicate conflicts here)
    assert len(store) < len(y)  # and it condenses


def test_store_owner_is_brute_force_nearest():
    X, _ = _blobs(7, n=200)
    s = _Store(X)
    rng = np.random.default_rng(0)
    picked = rng.choice(200, 30, replace=False)
    s.add(picked[:10])
    for i in picked[10:]:
        s.add([i])
    D = ((X[:, None, :] - X[s.order][None]) ** 2).sum(-1)
    assert np.allclose(s.best, D.min(1))
    assert np.array_equal(np.asarray(s.order)[np.argmin(D, 1)], s.owner)


def test_conflicting_duplicates_terminate():
    X = np.zeros((6, 2))
    y = np.array([0, 1, 0, 1, 0, 1])
    assert len(hart_cnn(X, y, np.random.default_rng(0))) >= 2
    assert len(fcnn(X, y)) >= 2


def test_fcnn_starts_with_class_centroid_neighbours():
    X, y = _blobs(3)
    store = fcnn(X, y)
    for c, i in zip(np.unique(y), store[:4]):
        members = np.flatnonzero(y == c)
        assert i == members[np.argmin(((X[members] - X[members].mean(0)) ** 2).sum(1))]


def test_bad_input():
    with pytest.raises(ValueError, match="finite"):
        fcnn(np.array([[np.nan]]), np.array([0]))
    with pytest.raises(ValueError, match="X must be"):
        fcnn(np.zeros((3, 2)), np.zeros(2))
