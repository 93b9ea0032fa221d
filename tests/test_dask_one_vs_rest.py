"""One-vs-rest over k >= 3 declared classes on dask input (issue 29): PrivateBoostClassifier (its own
``_fit_one_vs_rest``) and the rado estimators (``fast.estimators._multiclass.fit_ovr``).

The k binary label vectors are formed lazily on the workers (``_multiclass.dask_pm1``: y never reaches the driver),
the budget is planned and composed as in memory and charged ONCE, before the first job, and the k binary fits are
the dask path's own.  On the code before issue 29, PrivateBoostClassifier refused a dask input with k >= 3 classes
("one-vs-rest ... is not supported with a dask input"), and the rado one-vs-rest binarized y with ``np.asarray``,
pulling every label to the driver (which ``spy_compute`` below refuses).

Every test runs on a real 2-worker ``distributed.LocalCluster`` (processes, one thread each), started once for the
module.
"""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import dask.array as da

from _dask_cluster import client, spy_compute, forbid_worker_noise as _forbid_worker_noise  # noqa: F401 (fixtures)
from fast import _dask
from fast import mechanisms
from fast import rados as fast_rados
from fast.accounting import BudgetAccountant
from fast.estimators.boosting import BoostingNoiseWarning
from fast._contracts.privacy_contract import InsecureNoiseWarning
from fast._exact_rados import signature_stream

CLASSES = (0, 1, 2)


def _three_classes(m=3000, seed=0):
    """Rows in [-3, 3]^3 and labels 0 / 1 / 2, with 40 rows labelled 7 (outside the declared set)."""
    gen = np.random.default_rng(seed)
    X = gen.normal(size=(m, 3))
    y = np.where(X[:, 0] > 0.4, 2, np.where(X[:, 1] > 0, 1, 0))
    y[gen.choice(m, size=40, replace=False)] = 7
    return X, y


def _quiet(fit, *args, **kwargs):
    """A seeded fit (InsecureNoiseWarning, said once) whose small-n noise report may also warn."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        warnings.simplefilter("ignore", BoostingNoiseWarning)
        return fit(*args, **kwargs)


BOOST = dict(epsilon=6.0, bounds=(-3.0, 3.0), classes=CLASSES, n_rounds=5, kappa=0.2)


def test_private_boost_ovr_dask_equals_in_memory(client, spy_compute):
    """PrivateBoostClassifier one-vs-rest on dask (stumps, 3 declared classes, seeded noise): the same k binary
    hypotheses, classes_, privacy_spent_ and privacy_spent_per_class_ as the seeded in-memory one-vs-rest fit, for
    1 and 4 chunks (exact sums; the in-memory float sums round the same here), and the same predictions; only
    exact partials (a few scalars / score vectors) reach the driver, never a row or a label.  Fails on the old
    code: a dask input with k >= 3 classes raised ValueError."""
    from fast import PrivateBoostClassifier

    X, y = _three_classes()
    mem = _quiet(PrivateBoostClassifier(insecure_noise_seed=5, **BOOST).fit, X, y)
    for chunks in (3000, 800):
        dist = _quiet(PrivateBoostClassifier(insecure_noise_seed=5, **BOOST).fit,
                      da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=chunks))
        assert dist.classes_.tolist() == list(CLASSES) and len(dist.estimators_) == 3
        assert dist.hypotheses_.shape == (3, 5, 3) and np.array_equal(dist.hypotheses_, mem.hypotheses_)
        for a, b in zip(dist.estimators_, mem.estimators_):
            assert np.array_equal(a.hypotheses_, b.hypotheses_)
        assert dist.privacy_spent_ == mem.privacy_spent_
        assert dist.privacy_spent_per_class_ == mem.privacy_spent_per_class_
        assert np.array_equal(dist.thresholds_, mem.thresholds_) and dist.n_features_in_ == 3
        assert np.array_equal(dist.predict(X), mem.predict(X))
    assert (dist.predict(X) == y)[y != 7].mean() > 0.7  # it learns
    assert spy_compute and max(spy_compute) < 0.05 * X.nbytes  # 3328 bytes: the stump scores' exact terms


def test_private_boost_ovr_dask_charges_composed_total_once_before_first_job(client, monkeypatch):
    """An unseeded one-vs-rest fit on dask: the ledger holds ONE entry, the composed total of the k fits (the
    in-memory fit's charge exactly), recorded before the first job reaches the cluster; report-noisy-max is drawn
    k T times, all in the driver's process (a worker's mechanisms raise)."""
    from fast import PrivateBoostClassifier
    from fast import private_boosting as pb

    client.run(_forbid_worker_noise)
    X, y = _three_classes()
    acc_mem = BudgetAccountant(epsilon=10.0, delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoostingNoiseWarning)
        mem = PrivateBoostClassifier(**BOOST).fit(X, y, accountant=acc_mem)
    draws = []
    real = pb.report_noisy_max
    monkeypatch.setattr(pb, "report_noisy_max", lambda *a, **k: (draws.append(os.getpid()), real(*a, **k))[1])
    acc = BudgetAccountant(epsilon=10.0, delta=1e-5)
    at_submit = []
    real_compute = _dask.compute
    monkeypatch.setattr(_dask, "compute", lambda *o: (at_submit.append(acc.spent_epsilon), real_compute(*o))[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoostingNoiseWarning)
        dist = PrivateBoostClassifier(**BOOST).fit(da.from_array(X, chunks=(1000, 3)),
                                                   da.from_array(y, chunks=1000), accountant=acc)
    assert len(acc.ledger) == 1 and acc.spent_epsilon == acc_mem.spent_epsilon > 0
    assert at_submit and set(at_submit) == {acc.spent_epsilon}  # charged before the first job, never again
    assert dist.privacy_spent_ == mem.privacy_spent_ and dist.privacy_spent_.epsilon <= 10.0
    assert draws == [os.getpid()] * (3 * 5)


def test_private_boost_ovr_dask_label_outside_the_set_is_in_the_rest(client):
    """A label outside the declared set (7, or 9, or -1) is positive for no class: never an error, and the fit is
    the same whichever outside value those rows hold (each binary problem reads them as -1).  The lazy binary
    labels (``_multiclass.dask_pm1``) are -1 on those rows for every class."""
    from fast import PrivateBoostClassifier
    from fast.estimators._multiclass import dask_pm1

    X, y = _three_classes(m=1500, seed=1)
    outside = y == 7
    fits = []
    for value in (7, 9, -1):
        yv = np.where(outside, value, y)
        fits.append(_quiet(PrivateBoostClassifier(insecure_noise_seed=3, **BOOST).fit,
                           da.from_array(X, chunks=(500, 3)), da.from_array(yv, chunks=500)))
    assert all(np.array_equal(f.hypotheses_, fits[0].hypotheses_) for f in fits)
    yd = da.from_array(y, chunks=400)
    for c in range(3):
        col = dask_pm1(yd, (CLASSES[c - 1], CLASSES[c]), index=c).compute()
        assert col.dtype == np.int8 and np.array_equal(col, np.where(y == c, 1, -1))
        assert (col[outside] == -1).all()
    with pytest.raises(ValueError, match=r"classes\[2\] = 'c' can never equal"):  # from y's dtype alone
        dask_pm1(yd, (0, "c"), index=2)


# --------------------------------------------------------------------------- rado estimators


def _rado_data(m=2000, seed=0):
    gen = np.random.default_rng(seed)
    X = gen.normal(size=(m, 3)) / 2
    y = np.where(X[:, 0] > 0.2, "c", np.where(X[:, 1] > 0, "b", "a")).astype(object)
    y[gen.choice(m, size=30, replace=False)] = None  # outside the declared set: the rest of every problem
    return X, y.astype(str)


def test_radoboost_ovr_dask_equals_in_memory_rados(client, spy_compute):
    """RadoBoostClassifier one-vs-rest on dask (non-private, 3 declared classes, 1 and 4 chunks): estimators_[j] is
    exactly the in-memory fit_rados on the exact rados of the same signatures (the stream keyed by random_state)
    with y == classes[j] as +1 and every other value (the other classes, "None") as -1 -- the dask binary fit's
    documented in-memory twin; y is binarized on the workers (the spy refuses collecting a dask array: the old
    code's ``np.asarray(y)`` failed here)."""
    from fast.estimators.rados import RadoBoostClassifier, _generator

    X, y = _rado_data()
    m = X.shape[0]
    labels = ("a", "b", "c")
    params = dict(n_rados=200, support=None, random_state=7, fit_intercept=True, scaling="none")
    Xi = np.column_stack([X, np.ones(m)])
    sig = signature_stream(200, seed=int(_generator(7).integers(0, 2**63 - 1))).block(0, m)
    wants = [RadoBoostClassifier(30, classes=(False, True), **params).fit_rados(
        fast_rados.rados(Xi, np.where(y == c, 1, -1).astype(np.int8), sig, method="exact"), classes=(False, True))
        for c in labels]
    for chunks in (m, 500):
        clf = RadoBoostClassifier(30, classes=labels, **params).fit(da.from_array(X, chunks=(chunks, 3)),
                                                                   da.from_array(y, chunks=chunks))
        assert clf.classes_.tolist() == list(labels) and len(clf.estimators_) == 3
        for got, want in zip(clf.estimators_, wants):
            assert np.array_equal(got.coef_, want.coef_) and np.array_equal(got.intercept_, want.intercept_)
        assert clf.coef_.shape == (3, 3)
        assert (clf.predict(X) == y)[y != "None"].mean() > 0.8
    assert max(spy_compute) <= 5 * 3 * 200 * 4 * 8  # exact slice terms of the (200, 4) rados per chunk


def test_private_radoboost_ovr_dask_ledger_once_noise_on_driver(client, monkeypatch):
    """RadoBoostClassifier(privacy=gaussian_edges(...)) one-vs-rest on dask: the ledger charged ONCE with the
    composed total (the in-memory one-vs-rest's charge exactly) before the first job; the k discrete-Gaussian
    releases drawn in the driver's process, one per class (workers' mechanisms raise); seeded: the same model for
    1 and 5 chunks, and privacy_spent_ / privacy_spent_per_class_ as the in-memory one-vs-rest fit.  y is never
    collected on the driver (the old code's ``np.asarray(y)`` failed on the refused ``__array__``)."""
    from fast import dp_rados
    from fast.estimators.rados import RadoBoostClassifier

    client.run(_forbid_worker_noise)
    monkeypatch.setattr(da.Array, "__array__", lambda *a, **k: (_ for _ in ()).throw(AssertionError("read y")))
    X, y = _rado_data(seed=3)
    labels = ("a", "b", "c")
    params = dict(n_rados=50, privacy=dp_rados.gaussian_edges(4.0, 1e-5, 10), classes=labels, random_state=3,
                  scaling="none")
    calls = []
    real = mechanisms.gaussian_mechanism
    monkeypatch.setattr(mechanisms, "gaussian_mechanism",
                        lambda v, *a, **k: (calls.append(os.getpid()), real(v, *a, **k))[1])
    models = []
    for chunks in (2000, 400):
        with pytest.warns(InsecureNoiseWarning):
            models.append(RadoBoostClassifier(20, insecure_noise_seed=4, **params).fit(
                da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=chunks)))
    assert calls == [os.getpid()] * 6  # 3 classes x 2 fits
    for a, b in zip(*(m.estimators_ for m in models)):
        assert np.array_equal(a.coef_, b.coef_)
    with pytest.warns(InsecureNoiseWarning):
        mem = RadoBoostClassifier(20, insecure_noise_seed=4, **params).fit(X, y)
    assert models[0].privacy_spent_ == mem.privacy_spent_
    assert models[0].privacy_spent_per_class_ == mem.privacy_spent_per_class_
    acc_mem = BudgetAccountant(epsilon=8.0, delta=1e-4)
    RadoBoostClassifier(20, **params).fit(X, y, accountant=acc_mem)
    acc = BudgetAccountant(epsilon=8.0, delta=1e-4)
    at_submit = []
    real_compute = _dask.compute
    monkeypatch.setattr(_dask, "compute", lambda *o: (at_submit.append(acc.spent_epsilon), real_compute(*o))[1])
    dist = RadoBoostClassifier(20, **params).fit(da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500),
                                                 accountant=acc)
    assert len(acc.ledger) == 1 and acc.spent_epsilon == acc_mem.spent_epsilon > 0
    assert len(at_submit) == 3 and set(at_submit) == {acc.spent_epsilon}  # one job per class, all after the charge
    assert dist.privacy_spent_ == RadoBoostClassifier(20, **params).fit(X, y).privacy_spent_


def test_rado_dask_without_classes_refused_without_reading_y(client, monkeypatch):
    """A non-private rado fit with a dask y and classes=None: refused with a message naming ``classes`` and why
    (reading the label set is a pass over y), from the parameters alone -- y is never read (its ``__array__`` and
    compute raise; the refusal itself held before issue 29 too, with a pair-only message: this part guards it).
    Declaring the k >= 3 labels makes the same data fit one-vs-rest without collecting y (the old code's
    ``np.asarray(y)`` failed on the refused ``__array__``)."""
    from fast.estimators.rados import OmegaRAdaBoostClassifier, RadoBoostClassifier

    X, y = _rado_data(m=900, seed=2)
    Xd, yd = da.from_array(X, chunks=(300, 3)), da.from_array(y, chunks=300)
    monkeypatch.setattr(da.Array, "__array__", lambda *a, **k: (_ for _ in ()).throw(AssertionError("read y")))
    with monkeypatch.context() as mp:
        mp.setattr(_dask, "compute", lambda *o: (_ for _ in ()).throw(AssertionError("a job ran")))
        for est in (RadoBoostClassifier(10, random_state=1), OmegaRAdaBoostClassifier(10, random_state=1)):
            with pytest.raises(ValueError, match="classes must be given .*pass over y"):
                est.fit(Xd, yd)
    clf = OmegaRAdaBoostClassifier(10, classes=("a", "b", "c"), random_state=1).fit(Xd, yd)
    assert len(clf.estimators_) == 3 and clf.predict(X).shape == (900,)
