"""SmoothBoost (``PrivateBoostClassifier(booster="smooth")``) on dask input (issue 29).

Per-row state (threshold bins or the scaled rows, y, the margin sums) persisted on the workers; each round two
distributed passes returning exact partials (|mu|, then the stump scores or the centroid); the propose-test-release
test, the noise, the stopping decision and the loop on the driver; the ledger charged before the first job.  On the
code before issue 29 a dask input with ``booster="smooth"`` raised ValueError ("SmoothBoost's stopping test is not
distributed yet"), so every test below failed there.

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
from fast.accounting import BudgetAccountant, ZCDPAccountant
from fast.estimators.boosting import BoostingNoiseWarning
from fast._contracts.privacy_contract import InsecureNoiseWarning


@pytest.fixture
def mechanism_spy(monkeypatch):
    """(name, pid) of every fast.mechanisms laplace / gaussian call made in THIS process."""
    calls = []
    for name in ("laplace_mechanism", "gaussian_mechanism"):
        real = getattr(mechanisms, name)
        monkeypatch.setattr(mechanisms, name,
                            lambda v, *a, _n=name, _r=real, **k: (calls.append((_n, os.getpid())), _r(v, *a, **k))[1])
    return calls


def _data(m=3000, seed=0):
    gen = np.random.default_rng(seed)
    X = gen.normal(size=(m, 3))
    return X, (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)


def _seeded(fit, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        warnings.simplefilter("ignore", BoostingNoiseWarning)
        return fit(*args, **kwargs)


STUMP = dict(epsilon=4.0, bounds=(-3.0, 3.0), classes=(0, 1), n_rounds=20, kappa=0.8, gamma=0.2, booster="smooth")
HALF = dict(epsilon=4.0, weak_learner="halfspace", data_norm=3.0, classes=(0, 1), n_rounds=10, kappa=0.5,
            gamma=0.2, booster="smooth")
CHUNKINGS = ((3000,), (700, 700, 700, 700, 200), (100, 1900, 1000))


def test_smoothboost_stumps_dask_equals_in_memory(client, spy_compute, mechanism_spy):
    """Stump SmoothBoost on dask, seeded: the same hypotheses_, n_rounds_run_ (the PTR test stops it at 14 of 20
    rounds here: the stopping path is exercised), privacy_spent_ and predictions as the seeded in-memory fit, for
    3 chunkings (one uneven): exact |mu| (the in-memory math.fsum bit for bit) and exact score sums (the
    in-memory bincount sums round the same here), so the run is independent of the partitioning.  Noise: one
    Laplace test per round run plus the stopping one, in the driver's process; only partials reach the driver."""
    from fast import PrivateBoostClassifier

    X, y = _data()
    mem = _seeded(PrivateBoostClassifier(insecure_noise_seed=5, **STUMP).fit, X, y)
    assert 0 < mem.n_rounds_run_ < 20  # stopped by the test
    del mechanism_spy[:]
    for chunks in CHUNKINGS:
        dist = _seeded(PrivateBoostClassifier(insecure_noise_seed=5, **STUMP).fit,
                       da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=(chunks,)))
        assert dist.n_rounds_run_ == mem.n_rounds_run_
        assert np.array_equal(dist.hypotheses_, mem.hypotheses_)
        assert dist.privacy_spent_ == mem.privacy_spent_ and np.array_equal(dist.thresholds_, mem.thresholds_)
        assert np.array_equal(dist.predict(X), mem.predict(X))
    rounds = mem.n_rounds_run_
    assert mechanism_spy == [("laplace_mechanism", os.getpid())] * (3 * (rounds + 1))
    assert mem.score(X, y) > 0.85
    # per chunk (at most 5) a few exact slice terms of 1 + d (n_thresholds + 1) = 52 doubles, whatever m is
    assert spy_compute and max(spy_compute) <= 5 * 4 * 52 * 8 < X.nbytes / 8


def test_smoothboost_halfspace_dask_noise_on_driver_once_per_release(client, mechanism_spy):
    """Centroid SmoothBoost on dask, seeded, workers' mechanisms raising: the same hypotheses_, coef_ and
    privacy_spent_ as the seeded in-memory fit for 2 chunkings (exact sum_i v_i Z_i vs the in-memory BLAS product:
    the released discrete-Gaussian grid points agree here); per round one Laplace test and one Gaussian release,
    all in the driver's process."""
    from fast import PrivateBoostClassifier

    worker_pids = set(client.run(_forbid_worker_noise).values())
    assert os.getpid() not in worker_pids
    X, y = _data(seed=1)
    mem = _seeded(PrivateBoostClassifier(insecure_noise_seed=7, **HALF).fit, X, y)
    del mechanism_spy[:]
    for chunks in CHUNKINGS[:2]:
        dist = _seeded(PrivateBoostClassifier(insecure_noise_seed=7, **HALF).fit,
                       da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=(chunks,)))
        assert dist.n_rounds_run_ == mem.n_rounds_run_
        assert np.array_equal(dist.hypotheses_, mem.hypotheses_) and np.array_equal(dist.coef_, mem.coef_)
        assert dist.privacy_spent_ == mem.privacy_spent_ and dist.data_norm_ == mem.data_norm_
    r = mem.n_rounds_run_
    per_fit = [("laplace_mechanism", os.getpid()), ("gaussian_mechanism", os.getpid())] * r
    if r < HALF["n_rounds"]:
        per_fit.append(("laplace_mechanism", os.getpid()))
    assert r > 0 and mechanism_spy == per_fit * 2


def test_smoothboost_dask_ledger_charged_before_first_job(client, monkeypatch):
    """Unseeded SmoothBoost on dask with a BudgetAccountant: one entry, the in-memory fit's charge exactly,
    recorded before the first job; a zCDP ledger is refused (the PTR test has no zCDP form) before any job, as in
    memory."""
    from fast import PrivateBoostClassifier

    X, y = _data(m=2000, seed=2)
    acc_mem = BudgetAccountant(epsilon=5.0, delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoostingNoiseWarning)
        mem = PrivateBoostClassifier(**STUMP).fit(X, y, accountant=acc_mem)
    acc = BudgetAccountant(epsilon=5.0, delta=1e-5)
    at_submit = []
    real = _dask.compute
    monkeypatch.setattr(_dask, "compute", lambda *o: (at_submit.append(acc.spent_epsilon), real(*o))[1])
    Xd, yd = da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoostingNoiseWarning)
        dist = PrivateBoostClassifier(**STUMP).fit(Xd, yd, accountant=acc)
    assert len(acc.ledger) == 1 and acc.spent_epsilon == acc_mem.spent_epsilon > 0
    assert at_submit and set(at_submit) == {acc.spent_epsilon}
    spent = (dist.privacy_spent_.epsilon, dist.privacy_spent_.delta)  # for T rounds, whatever ran (the text says)
    assert spent == (mem.privacy_spent_.epsilon, mem.privacy_spent_.delta)
    del at_submit[:]
    with pytest.raises(ValueError, match="zCDP ledger"):
        PrivateBoostClassifier(**STUMP).fit(Xd, yd, accountant=ZCDPAccountant(8.0, 1e-5))
    assert at_submit == []
