"""The dask scale-out path (fast/_dask.py, fast/_exact_rados.py, fast/estimators/_distributed*.py): dask collections
give the in-memory results bit for bit whatever the chunking, only small exact partials reach the driver, noise is
drawn on the driver once per release, and faults (a killed worker, a task dying on its first attempt) change nothing.

Every test here runs on a real 2-worker ``distributed.LocalCluster`` (processes, one thread each), started once for
the module.  On the code before the scale-out, ``fast`` converted a dask input with ``np.asarray`` (pulling every row
to the driver, which the spies below refuse) and summed in floating point (chunk- and kernel-dependent bits).
"""
from __future__ import annotations

import json
import math
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dask
import dask.array as da

import reference.rados as ref_rados
from _dask_cluster import client, mechanism_spy, spy_compute  # noqa: F401 (fixtures)
from _dask_cluster import forbid_worker_noise as _forbid_worker_noise
from fast import _dask
from fast import rados as fast_rados
from fast._exact_rados import exact_terms, finish_terms, signature_stream

ROOT = Path(__file__).resolve().parents[1]


def _wide_data(m, d, seed):
    """Values over ~40 orders of magnitude with both signs: float sums of these depend on the order."""
    gen = np.random.default_rng(seed)
    X = gen.normal(size=(m, d)) * np.exp(gen.normal(size=(m, d)) * 12)
    y = np.where(gen.random(m) < 0.5, 1, -1).astype(np.int8)
    return X, y


# --------------------------------------------------------------------------- import isolation


def test_import_fast_does_not_import_dask():
    """``import fast`` (and the modules a dask input goes through) must not import dask: it stays cheap."""
    code = ("import sys, fast, fast.rados, fast._dask, fast._exact_rados, fast.estimators.rados, "
            "fast.estimators.impact, fast.estimators.boosting\n"
            "import numpy as np\n"
            "fast.rados.rados(np.ones((3, 2)), np.array([1, -1, 1]), np.array([[1, 1, -1]]))\n"
            "assert not fast._dask.is_dask_collection(np.ones(3))\n"
            "bad = sorted(k for k in sys.modules if k == 'dask' or k.startswith(('dask.', 'distributed')))\n"
            "assert not bad, bad\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_rados_task_below_the_table_size_does_not_load_numba():
    """A worker's rados task with n < 256 signatures (the GEMM path) never imports numba: ~105 MB of resident memory
    that would count against each worker's memory_limit in the out-of-core runs (docs/performance.md)."""
    code = ("import sys, numpy as np\n"
            "from fast._dask import _rados_partial\n"
            "from fast._exact_rados import signature_stream\n"
            "X = np.random.default_rng(0).normal(size=(70000, 4)); y = np.where(X[:, 0] > 0, 1, -1)\n"
            "t = _rados_partial(X, y, signature_stream(100, seed=1), 0, False)\n"
            "assert t.shape[1:] == (100, 4), t.shape\n"
            "assert 'numba' not in sys.modules, 'numba loaded'\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PRIVLEARN_AUTO_WARMUP": "0"})
    assert out.returncode == 0, out.stderr


# --------------------------------------------------------------------------- rados


def test_exact_rados_in_memory_equal_reference_fsum():
    """method="exact" (and a SignatureStream) give math.fsum of each entry's terms: reference.rados bit for bit,
    also on values spanning 2^-1000..2^1000 and subnormals (the table / GEMM kernels differ in the last bits)."""
    X, y = _wide_data(300, 4, 1)
    X[3, 0], X[4, 1], X[5, 2] = 5e-324, 1.5e300, -1.2e300
    s = signature_stream(70, seed=3)
    sig = s.block(0, 300)
    want = ref_rados.rados(X, y, sig)
    assert np.array_equal(fast_rados.rados(X, y, sig, method="exact"), want)
    assert np.array_equal(fast_rados.rados(X, y, s), want)
    assert not np.array_equal(fast_rados.rados(X, y, sig, method="gemm"), want)  # the data is a real test


def test_signature_stream_blocks_are_slices_of_one_matrix():
    s = signature_stream(300, seed=5)
    full = s.block(0, 1000)
    assert full.dtype == np.int8 and set(np.unique(full).tolist()) == {-1, 1}
    for lo, hi in [(0, 1), (1, 129), (127, 513), (999, 1000), (500, 500)]:
        assert np.array_equal(s.block(lo, hi), full[:, lo:hi])
    assert abs(full.mean()) < 0.02  # fair bits
    assert np.array_equal(signature_stream(300, seed=5).block(0, 50), full[:, :50])
    assert not np.array_equal(signature_stream(300, seed=6).block(0, 50), full[:, :50])
    assert "key" not in repr(s) and repr(s) == "SignatureStream(n=300)"


@pytest.mark.parametrize("chunks", [(300,), (1,) * 20 + (280,), (7, 150, 143), (64, 64, 64, 64, 44)])
def test_rados_dask_equal_in_memory_whatever_the_chunking(client, chunks, spy_compute):
    """Dask rados == in-memory exact rados == math.fsum, bit for bit, for every chunking; only partials travel."""
    X, y = _wide_data(300, 5, 2)
    s = signature_stream(260, seed=4)  # n >= 256: the table kernel on the slices
    want = ref_rados.rados(X, y, s.block(0, 300))
    Xd, yd = da.from_array(X, chunks=(chunks, 5)), da.from_array(y, chunks=(chunks,))
    got = fast_rados.rados(Xd, yd, s)
    assert np.array_equal(got, want)
    # a numpy signature matrix and a dask one (cut at X's chunks) give the same bits
    sig = s.block(0, 300)
    assert np.array_equal(fast_rados.rados(Xd, yd, sig), want)
    assert np.array_equal(fast_rados.rados(Xd, y, da.from_array(sig, chunks=(100, 50))), want)
    assert len(spy_compute) == 3


def test_rados_dask_large_only_partials_reach_driver(client, spy_compute):
    """200k x 4 rows in 4 chunks: what reaches the driver is the exact partials, a small fraction of X."""
    gen = np.random.default_rng(0)
    Xd = da.random.default_rng(1).normal(size=(200_000, 4), chunks=(50_000, 4))
    yd = da.where(da.random.default_rng(2).random(200_000, chunks=50_000) < 0.5, 1, -1).astype(np.int8)
    s = signature_stream(16, seed=int(gen.integers(1 << 30)))
    got = fast_rados.rados(Xd, yd, s)
    assert got.shape == (16, 4) and np.isfinite(got).all()
    assert len(spy_compute) == 1 and spy_compute[0] < 0.05 * 200_000 * 4 * 8
    # the same bits from the in-memory exact path on the same rows (computed here on purpose, after the spy)
    X, y = dask.compute(Xd, yd)
    assert np.array_equal(fast_rados.rados(np.asarray(X), np.asarray(y), s), got)


def test_rados_dask_errors_match_in_memory(client):
    X, y = _wide_data(40, 2, 3)
    X[17, 1] = np.nan
    with pytest.raises(ValueError, match="X must contain only finite"):
        fast_rados.rados(da.from_array(X, chunks=10), y, signature_stream(3, seed=0))
    with pytest.raises(ValueError, match="method must be 'auto' or 'exact' with a dask input"):
        fast_rados.rados(da.from_array(X, chunks=10), y, signature_stream(3, seed=0), method="table")


def test_exact_terms_merge_in_any_order():
    """The partials are exact: concatenated in any order and over any blocking, fsum gives the same bits."""
    X, y = _wide_data(500, 3, 7)
    E = y[:, None] * X
    s = signature_stream(9, seed=1)
    cuts = [0, 3, 200, 201, 500]
    parts = [exact_terms(E[a:b], y[a:b], s, a) for a, b in zip(cuts, cuts[1:])]
    one = finish_terms(parts, 9, 3)
    assert np.array_equal(one, finish_terms(parts[::-1], 9, 3))
    assert np.array_equal(one, ref_rados.rados(X, y, s.block(0, 500)))
    j, k = 4, 2
    terms = [E[i, k] for i in range(500) if s.block(i, i + 1)[j, 0] == y[i]]
    assert one[j, k] == math.fsum(terms)


# --------------------------------------------------------------------------- impact coding

import warnings  # noqa: E402

import pandas as pd  # noqa: E402
import dask.dataframe as dd  # noqa: E402

from fast import ImpactEncoder  # noqa: E402
from fast import mechanisms  # noqa: E402
from fast.accounting import BudgetAccountant  # noqa: E402
from fast.estimators import _distributed  # noqa: E402
from fast.estimators import _distributed_impact  # noqa: E402
from fast._contracts.privacy_contract import InsecureNoiseWarning  # noqa: E402

CATS = [["a", "b", "c", "d"], [1, 2, 3]]


def _frame(m=2000, seed=0):
    gen = np.random.default_rng(seed)
    return pd.DataFrame({"row_id": (gen.permutation(m) + 10**9).astype(np.int64),
                         "zip": gen.choice(["a", "b", "c", "d", "zz"], m),  # "zz": outside the public list
                         "city": gen.choice([1, 2, 3], m),
                         "y": gen.choice(["no", "yes"], m)})


def _encoder(**kw):
    return ImpactEncoder(categories=CATS, classes=("no", "yes"), row_id="row_id", random_state=1, **kw)


def _fit_both(kw, nparts, pdf):
    """(in-memory encoder, its training codes, dask encoder, its lazy training codes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        mem = _encoder(**kw)
        codes = mem.fit_transform(pdf[["row_id", "zip", "city"]], pdf["y"])
        ddf = dd.from_pandas(pdf, npartitions=nparts)
        dist = _encoder(**kw)
        lazy = dist.fit_transform(ddf[["row_id", "zip", "city"]], ddf["y"])
    return mem, codes, dist, lazy


@pytest.mark.parametrize("kw", [dict(mode="cross", cv=5), dict(mode="split"), dict(mode="naive"),
                                dict(mode="cross", cv=3, epsilon=1.0, insecure_noise_seed=3),
                                dict(mode="split", epsilon=2.0, insecure_noise_seed=1,
                                     neighbouring="add/remove-one")])
def test_impact_dask_equal_in_memory_whatever_the_partitioning(client, kw, spy_compute):
    """Coders, training codes (lazy) and transform of a dask DataFrame == the in-memory fit with the same row_id,
    for 1, 3 and 7 partitions (seeded noise: the same draws)."""
    pdf = _frame()
    for nparts in (1, 3, 7):
        mem, codes, dist, lazy = _fit_both(kw, nparts, pdf)
        assert isinstance(lazy, dd.DataFrame)
        for c1, c2 in zip(mem.coders_, dist.coders_):
            assert np.array_equal(c1.code, c2.code) and np.array_equal(c1.count, c2.count)
        assert np.array_equal(lazy.compute().to_numpy(), codes, equal_nan=True)
        assert mem.privacy_spent_ == dist.privacy_spent_
        assert getattr(mem, "accuracy_", None) == getattr(dist, "accuracy_", None)
        out = dist.transform(dd.from_pandas(pdf[["row_id", "zip", "city"]], npartitions=nparts))
        assert isinstance(out, dd.DataFrame)
        assert np.array_equal(out.compute().to_numpy(), mem.transform(pdf[["row_id", "zip", "city"]]))
    # only ONE merged int64 count table per column reached the driver through fast._dask.compute (the partitions'
    # tables are merged on the workers, fast._dask.tree_reduce), never the 2000 rows nor a table per partition
    assert spy_compute and max(spy_compute) < 2 * (5 * 5 * 2 * 8 + 5 * 4 * 2 * 8) + 200


def test_tree_reduce_same_result_for_every_fan_in_and_partitioning(client):
    """fast._dask.tree_reduce merges on the workers in fan_in-way steps: the int64 table sum is the same for every
    fan-in and every cut of the rows into partials, and the driver receives one table."""
    gen = np.random.default_rng(5)
    tables = [[gen.integers(0, 2**40, (3, 7, 2)), gen.integers(0, 9, (3, 4, 2))] for _ in range(23)]
    want = [sum(t[j] for t in tables) for j in range(2)]
    parts = [dask.delayed(lambda t: t, pure=True)(t) for t in tables]
    for fan_in in (2, 3, 8, 64):
        (got,) = _dask.compute(_dask.tree_reduce(parts, _distributed._add_tables, fan_in))
        assert all(np.array_equal(g, w) and g.dtype == np.int64 for g, w in zip(got, want))
    (one,) = _dask.compute(_dask.tree_reduce(parts[:1], _distributed._add_tables))
    assert np.array_equal(one[0], tables[0][0])
    with pytest.raises(ValueError, match="parts must hold at least one partial"):
        _dask.tree_reduce([], _distributed._add_tables)
    with pytest.raises(ValueError, match="fan_in must be >= 2"):
        _dask.tree_reduce(parts, _distributed._add_tables, 1)


def test_impact_count_tables_are_int64(client):
    pdf = _frame(500)
    state = (_encoder(mode="cross", cv=5), ("no", "yes"), 5, (1, 2), "cross", 0.5, ["zip", "city"])
    enc = state[0]
    enc._names = np.array(["zip", "city"], dtype=object)
    enc._fit_levels([pd.Series([None], dtype=object)] * 2)
    frame = pdf[["zip", "city"]].assign(**{_distributed.Y_COL: pdf["y"], _distributed.ID_COL: pdf["row_id"]})
    parts = _distributed._impact_partial(frame, state)
    assert [p.dtype for p in parts] == [np.int64, np.int64]
    assert [p.shape for p in parts] == [(5, 5, 2), (5, 4, 2)] and parts[0].sum() == 500


def test_impact_dask_refuses_without_row_id_or_categories(client):
    ddf = dd.from_pandas(_frame(100), npartitions=2)
    with pytest.raises(ValueError, match="row_id must name a column"):
        ImpactEncoder(categories=CATS, classes=("no", "yes")).fit(ddf[["zip", "city"]], ddf["y"])
    with pytest.raises(ValueError, match="categories must be given"):  # private: the levels present are a release
        ImpactEncoder(mode="naive", epsilon=1.0, classes=("no", "yes")).fit(ddf[["zip", "city"]], ddf["y"])


# --------------------------------------------------------------------------- keyed folds


def test_keyed_folds_depend_only_on_the_row_id():
    """A row's fold is a function of (key, its id): the same under any permutation, subset or partitioning."""
    gen = np.random.default_rng(0)
    ids = gen.permutation(10_000).astype(np.int64) * 7919
    key = _distributed.fold_key(3)
    f = _distributed.keyed_folds(ids, key, 5)
    perm = gen.permutation(ids.size)
    assert np.array_equal(_distributed.keyed_folds(ids[perm], key, 5), f[perm])
    assert np.array_equal(_distributed.keyed_folds(ids[:17], key, 5), f[:17])
    counts = np.bincount(f, minlength=5)
    assert counts.min() > 1800 and counts.max() < 2200  # multinomial(10^4, 1/5): sd 40
    assert not np.array_equal(_distributed.keyed_folds(ids, _distributed.fold_key(4), 5), f)
    with pytest.raises(TypeError, match="row_id must be a column of integers"):
        _distributed.keyed_hash(np.array(["a", "b"]), key)


# --------------------------------------------------------------------------- privacy rules


def test_impact_noise_on_driver_once_per_column_and_ledger_charged_first(client, mechanism_spy, monkeypatch):
    """Tasks return exact partials: every draw is in the driver's process, one per column (2 columns -> 2), the
    ledger is charged before the job is submitted, and a mechanism called on a worker would fail the fit."""
    worker_pids = set(client.run(_forbid_worker_noise).values())
    acc = BudgetAccountant(epsilon=2.0)
    at_submit = []
    real = _dask.compute

    def compute(*objs):
        at_submit.append(acc.spent_epsilon)
        return real(*objs)

    monkeypatch.setattr(_dask, "compute", compute)
    ddf = dd.from_pandas(_frame(3000, 2), npartitions=6)
    enc = ImpactEncoder(mode="cross", cv=5, epsilon=1.0, categories=CATS, classes=("no", "yes"), row_id="row_id",
                        random_state=0)
    enc.fit(ddf[["row_id", "zip", "city"]], ddf["y"], accountant=acc)
    assert len(mechanism_spy) == 2 and {pid for pid, _ in mechanism_spy} == {os.getpid()}
    assert os.getpid() not in worker_pids
    assert at_submit == [acc.spent_epsilon] and acc.spent_epsilon > 0  # charged once, before the job
    # the exact inputs of the two releases: the 5 stacked fold tables of each column, integer counts summing to m
    # less the rows outside the public list
    zip_table, city_table = mechanism_spy[0][1], mechanism_spy[1][1]
    assert zip_table.shape == (5 * 4, 2) and city_table.shape == (5 * 3, 2)
    pdf = _frame(3000, 2)
    assert city_table.sum() == 3000 and zip_table.sum() == (pdf["zip"] != "zz").sum()
    # the fitted object holds no fit secret or exact table: its pickle and repr hold only public parameters and
    # noisy tables
    blob = pickle.dumps(enc)
    assert zip_table.astype(np.int64).tobytes() not in blob and "row_id" in repr(enc)


def test_impact_result_independent_of_partitions_and_order(client):
    """Seeded noise: 1, 4 and 9 partitions of a shuffled copy give the same coders bit for bit."""
    pdf = _frame(1500, 3)
    kw = dict(mode="cross", cv=4, epsilon=1.0, insecure_noise_seed=11)
    got = []
    for nparts, frame in ((1, pdf), (4, pdf.sample(frac=1.0, random_state=1)), (9, pdf)):
        ddf = dd.from_pandas(frame.reset_index(drop=True), npartitions=nparts)
        with pytest.warns(InsecureNoiseWarning):
            enc = _encoder(**kw).fit(ddf[["row_id", "zip", "city"]], ddf["y"])
        got.append(np.concatenate([c.code.ravel() for c in enc.coders_]))
    assert np.array_equal(got[0], got[1]) and np.array_equal(got[0], got[2])


# --------------------------------------------------------------------------- faults


def _private_fit(nparts, compute=None, monkeypatch=None):
    """A private cross-frame fit (seeded noise so two runs can be compared); returns the exact tables the
    mechanism received (pre-noise aggregate) and the coders' codes."""
    ddf = dd.from_pandas(_frame(4000, 9), npartitions=nparts)
    enc = _encoder(mode="cross", cv=5, epsilon=1.0, insecure_noise_seed=5)
    with pytest.warns(InsecureNoiseWarning):
        enc.fit(ddf[["row_id", "zip", "city"]], ddf["y"])
    return np.concatenate([c.code.ravel() for c in enc.coders_])


def _worker_pids(client):
    return client.run(os.getpid)


def test_fault_killed_worker_holding_a_finished_partial(client, mechanism_spy, monkeypatch):
    """SIGKILL the worker that holds a finished partial before the driver gathers it: dask recomputes it, the job
    completes, the pre-noise tables equal the fault-free run's bit for bit, and the mechanism ran once per column."""
    from distributed import wait

    clean = _private_fit(6)
    clean_inputs = [t for _, t in mechanism_spy]
    mechanism_spy.clear()
    killed = []

    def compute(*objs):
        futures = client.compute(list(objs))
        wait(futures[:1])  # the first partial is finished and held by a worker
        holder = next(iter(client.who_has(futures[0])[futures[0].key]))
        pid = _worker_pids(client)[holder]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
        return tuple(client.gather(futures))

    monkeypatch.setattr(_dask, "compute", compute)
    faulty = _private_fit(6)
    assert killed and killed[0] not in _worker_pids(client).values()  # the worker really died (the nanny restarts it)
    assert len(mechanism_spy) == 2 and {pid for pid, _ in mechanism_spy} == {os.getpid()}
    for a, b in zip(clean_inputs, [t for _, t in mechanism_spy]):
        assert np.array_equal(a, b) and a.tobytes() == b.tobytes()
    assert np.array_equal(clean, faulty)


def test_fault_task_dies_on_its_first_attempt(client, mechanism_spy, monkeypatch, tmp_path):
    """A partial task SIGKILLs its worker on its first attempt (a marker file): the scheduler re-runs it, the exact
    tables and the release equal the fault-free run's, and the noise was drawn once per column on the driver."""
    clean = _private_fit(5)
    clean_inputs = [t for _, t in mechanism_spy]
    mechanism_spy.clear()
    marker = str(tmp_path / "attempted")
    real = _distributed._impact_partial

    def dying_partial(frame, state):  # pickled by value (a closure): runs on the workers
        ids = frame[_distributed.ID_COL]
        if len(frame) and int(np.asarray(ids).min()) == int(min_id) and not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(frame, state)

    min_id = int(_frame(4000, 9)["row_id"].iloc[:800].min())  # a row of the first partition
    monkeypatch.setattr(_distributed_impact, "_impact_partial", dying_partial)
    faulty = _private_fit(5)
    assert os.path.exists(marker)  # the first attempt really died
    assert len(mechanism_spy) == 2 and {pid for pid, _ in mechanism_spy} == {os.getpid()}
    for a, b in zip(clean_inputs, [t for _, t in mechanism_spy]):
        assert a.tobytes() == b.tobytes()
    assert np.array_equal(clean, faulty)


# --------------------------------------------------------------------------- estimators: RadoBoost


def test_radoboost_dask_fit_equals_fit_rados_on_in_memory_rados(client, spy_compute):
    """RadoBoostClassifier.fit on dask arrays: the rados (uniform signatures from a stream keyed by random_state, or
    fixed support drawn on the driver) computed on the cluster from exact partials, boosting on the driver: the same
    model as fit_rados on the in-memory exact rados of the same signatures, for 1 and 4 chunks."""
    from fast.estimators.rados import RadoBoostClassifier, _generator

    gen = np.random.default_rng(0)
    X = gen.normal(size=(3000, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    ypm = np.where(y == "yes", 1, -1).astype(np.int8)
    Xi = np.column_stack([X, np.ones(3000)])
    params = dict(n_rados=300, classes=("no", "yes"), random_state=7, fit_intercept=True)
    if "scaling" in RadoBoostClassifier().get_params():
        params["scaling"] = "none"
    for support in (None, 5):
        rng = _generator(7)
        if support is None:
            sig = signature_stream(300, seed=int(rng.integers(0, 2**63 - 1))).block(0, 3000)
        else:
            j, i = _distributed.fixed_support_picks(3000, 300, support, rng)
            sig = np.broadcast_to(-ypm, (300, 3000)).copy()
            sig[j, i] = ypm[i]
        want = RadoBoostClassifier(40, support=support, **params).fit_rados(
            fast_rados.rados(Xi, ypm, sig, method="exact"), classes=("no", "yes"))
        for chunks in (3000, 700):
            clf = RadoBoostClassifier(40, support=support, **params)
            clf.fit(da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=chunks))
            assert np.array_equal(clf.coef_, want.coef_) and np.array_equal(clf.intercept_, want.intercept_)
            assert clf.score(X, y) > 0.8
    # what reached the driver: per chunk at most 3 exact slice terms of the (300, 4) rados, whatever m is
    assert max(spy_compute) <= 5 * 3 * 300 * 4 * 8
    with pytest.raises(ValueError, match="classes must be given"):  # the dask path's own refusal
        _distributed.radoboost_fit(RadoBoostClassifier(5, **{k: v for k, v in params.items() if k == "scaling"}),
                                   da.from_array(X, chunks=700), da.from_array(y, chunks=700))


# --------------------------------------------------------------------------- Parquet (dask/dask#12488)


def test_persisted_read_parquet_fit_equals_in_memory(client, tmp_path):
    """The pinned dask persists a bare read_parquet(columns=...) correctly (2025.4.0 - 2026.8.0 lose its keys:
    "lost dependencies", dask/dask#12488), and a private fit on the persisted frame equals the in-memory one."""
    from distributed import wait

    pdf = _frame(3000, 4)
    for part in range(3):
        pdf.iloc[part * 1000:(part + 1) * 1000].to_parquet(tmp_path / f"part.{part}.parquet")
    frame = dd.read_parquet(str(tmp_path), columns=["row_id", "zip", "city", "y"]).persist()
    wait(frame)
    assert len(frame) == 3000  # the #12488 failure point
    kw = dict(mode="cross", cv=5, epsilon=1.0, insecure_noise_seed=2)
    with pytest.warns(InsecureNoiseWarning):
        dist = _encoder(**kw).fit(frame, "y")  # y: the name of a column of X
    with pytest.warns(InsecureNoiseWarning):
        mem = _encoder(**kw).fit(pdf[["row_id", "zip", "city"]], pdf["y"])
    for c1, c2 in zip(mem.coders_, dist.coders_):
        assert np.array_equal(c1.code, c2.code)


def test_readme_dask_example_runs(client):
    """The README's Dask example (its second python block) runs on the first block's data and gives the
    in-memory exact rados."""
    import re

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    dask_block = next(b for b in blocks if "da.from_array" in b)
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the first block's own examples (seeded noise etc.) are test_readme's
        exec(compile(blocks[0], "README.md", "exec"), namespace)  # noqa: S102 - our own documentation
    exec(compile(dask_block, "README.md", "exec"), namespace)  # noqa: S102
    X, y = namespace["X"], namespace["y"]
    assert np.array_equal(namespace["Pi_d"], fast_rados.rados(X, y, signature_stream(1000, seed=7)))


# --------------------------------------------------------------------------- command line


def test_cli_impact_parquet_directory_on_a_scheduler(client, tmp_path, capsys):
    """`privlearn impact DIR/ --scheduler ADDRESS`: the same codes (non-private naive mode: exactly), tables and
    privacy record as the CSV of the same rows; the coded rows are written as Parquet by the workers."""
    from fast.cli import main

    gen = np.random.default_rng(0)
    m = 600
    df = pd.DataFrame({"rid": np.arange(m), "city": gen.choice(["a", "b", "c", "z"], m),
                       "y": gen.choice(["no", "yes"], m), "other": gen.normal(size=m)})
    df.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "pq").mkdir()
    df.iloc[:250].to_parquet(tmp_path / "pq" / "a.parquet")
    df.iloc[250:].to_parquet(tmp_path / "pq" / "b.parquet")
    base = ["--column", "city", "--label", "y", "--classes", "no,yes", "--levels", "city=a,b,c"]
    addr = client.scheduler.address
    assert main(["impact", str(tmp_path / "in.csv"), *base, "--mode", "cross", "--seed", "1",
                 "--out", str(tmp_path / "o1.csv"), "--tables", str(tmp_path / "t1.json")]) == 0
    assert main(["impact", str(tmp_path / "pq"), *base, "--mode", "cross", "--seed", "1", "--row-id", "rid",
                 "--scheduler", addr, "--out", str(tmp_path / "o2.pq"), "--tables", str(tmp_path / "t2.json")]) == 0
    t1, t2 = (json.loads((tmp_path / t).read_text()) for t in ("t1.json", "t2.json"))
    assert t1 == t2  # the all-rows coder: the same levels and codes from the CSV and from Parquet on the cluster
    out = pd.read_parquet(tmp_path / "o2.pq")
    assert list(out.columns) == ["rid", "y", "other", "city_impact"] and len(out) == m
    # private: the same privacy record
    priv = [*base, "--mode", "cross", "--epsilon", "1"]
    assert main(["impact", str(tmp_path / "in.csv"), *priv, "--out", str(tmp_path / "p1.csv")]) == 0
    assert main(["impact", str(tmp_path / "pq"), *priv, "--row-id", "rid", "--scheduler", addr,
                 "--out", str(tmp_path / "p2.pq")]) == 0
    r1, r2 = (json.loads((tmp_path / f).read_text()) for f in ("p1.csv.json", "p2.pq.json"))
    assert r1["privacy_spent"] == r2["privacy_spent"] and r1["privacy_spent"]["epsilon"] == 1.0
    assert r2["results"]["rows_read_on_driver"] == 0
    assert main(["impact", str(tmp_path / "pq"), *priv, "--scheduler", addr, "--out", str(tmp_path / "p3.pq")]) == 2
    assert "--row-id" in capsys.readouterr().err


def test_impact_dask_without_classes_names_the_dask_rule(client):
    """A non-private binary fit on a dask y without ``classes``: the message gives the dask reason (a pass over y),
    not the private-fit reason it used to borrow; a bool y needs none."""
    pdf = pd.DataFrame({"a": np.arange(100) % 3, "y": np.arange(100) % 2, "rid": np.arange(100)})
    ddf = dd.from_pandas(pdf, npartitions=2)
    with pytest.raises(ValueError, match="classes must be given with a dask y .* a pass over every row"):
        ImpactEncoder(categories=[[0, 1, 2]], row_id="rid").fit(ddf[["a", "rid"]], ddf["y"])
    enc = ImpactEncoder(categories=[[0, 1, 2]], row_id="rid").fit(ddf[["a", "rid"]], ddf["y"] == 1)
    assert enc.classes_.tolist() == [False, True]


def test_cli_impact_parquet_jackknife_equals_the_csv(client, tmp_path):
    """`privlearn impact DIR/ --mode jackknife` (non-private, as on a CSV): the leave-one-out codes of every row
    equal the CSV run's, row by row (the Parquet path refused jackknife before)."""
    from fast.cli import main

    gen = np.random.default_rng(3)
    m = 400
    df = pd.DataFrame({"rid": np.arange(m), "city": gen.choice(["a", "b", "c", "z"], m),
                       "y": gen.choice(["no", "yes"], m)})
    df.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "pq").mkdir()
    df.iloc[:150].to_parquet(tmp_path / "pq" / "a.parquet")
    df.iloc[150:].to_parquet(tmp_path / "pq" / "b.parquet")
    base = ["--column", "city", "--label", "y", "--classes", "no,yes", "--levels", "city=a,b,c", "--mode", "jackknife"]
    assert main(["impact", str(tmp_path / "in.csv"), *base, "--out", str(tmp_path / "o1.csv")]) == 0
    assert main(["impact", str(tmp_path / "pq"), *base, "--scheduler", client.scheduler.address,
                 "--out", str(tmp_path / "o2.pq")]) == 0
    csv = pd.read_csv(tmp_path / "o1.csv")
    pq = pd.read_parquet(tmp_path / "o2.pq").sort_values("rid")
    assert np.array_equal(pq["city_impact"].to_numpy(), csv["city_impact"].to_numpy())
    assert main(["impact", str(tmp_path / "pq"), *base, "--epsilon", "1", "--scheduler", client.scheduler.address,
                 "--out", str(tmp_path / "o3.pq")]) == 2  # private jackknife: refused as on a CSV


def test_weighted_sum_exact_whatever_the_chunking(client):
    """The centroid pass of a boosting round, sum_i v_i x_i: math.fsum of the rounded products per column, for
    every chunking and in memory (a plain v @ X differs in the last bits on wide-range data)."""
    X, _ = _wide_data(400, 3, 11)
    v = np.random.default_rng(1).normal(size=400) * 1e-3
    want = np.array([math.fsum((v * X[:, j]).tolist()) for j in range(3)])
    assert np.array_equal(_dask.weighted_sum(X, v), want)
    for chunks in ((400,), (1, 399), (37,) * 10 + (30,)):
        got = _dask.weighted_sum(da.from_array(X, chunks=(chunks, 3)), da.from_array(v, chunks=(chunks,)))
        assert np.array_equal(got, want)
    assert not np.array_equal(v @ X, want)  # the data is a real test


# --------------------------------------------------------------------------- private rados (Gaussian edges)


def test_private_rados_gaussian_edges_noise_once_on_the_driver(client, monkeypatch):
    """RadoBoostClassifier(privacy=gaussian_edges(...)).fit on dask arrays: tasks return exact integer sums of the
    grid-rounded clipped edges of the picked rows; the driver draws the discrete-Gaussian noise of the picked rows
    in ONE gaussian_mechanism call, in its own process (the workers' mechanisms raise); the ledger is charged before
    the job; the pre-noise aggregate equals the in-memory integer sums; seeded noise gives the same model for any
    chunking."""
    from fast import dp_rados
    from fast.estimators.rados import RadoBoostClassifier, _generator
    from fast.mechanisms import gaussian_grid

    client.run(_forbid_worker_noise)
    calls = []
    real = mechanisms.gaussian_mechanism

    def spy(value, *a, **k):
        calls.append((os.getpid(), np.array(value, copy=True)))
        return real(value, *a, **k)

    monkeypatch.setattr(mechanisms, "gaussian_mechanism", spy)
    gen = np.random.default_rng(0)
    X = gen.normal(size=(2000, 3)) / 2
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    source = dp_rados.gaussian_edges(4.0, 1e-5, 10)
    params = dict(n_rados=50, privacy=source, classes=("no", "yes"), random_state=3)
    if "scaling" in RadoBoostClassifier().get_params():
        params["scaling"] = "none"
    coefs = []
    for chunks in (2000, 300):
        clf = RadoBoostClassifier(20, insecure_noise_seed=4, **params)
        with pytest.warns(InsecureNoiseWarning):
            clf.fit(da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=chunks))
        coefs.append(clf.coef_)
    assert np.array_equal(coefs[0], coefs[1])
    assert len(calls) == 2 and {pid for pid, _ in calls} == {os.getpid()}
    assert not calls[0][1].any() and calls[0][1].shape[1] == 3  # zeros: only the noise is drawn there
    # ledger charged once, before the job (unseeded: a real private fit)
    acc = BudgetAccountant(epsilon=8.0, delta=1e-4)
    at_submit = []
    real_compute = _dask.compute
    monkeypatch.setattr(_dask, "compute", lambda *o: (at_submit.append(acc.spent_epsilon), real_compute(*o))[1])
    dist = RadoBoostClassifier(20, **params).fit(da.from_array(X, chunks=(500, 3)), da.from_array(y, chunks=500),
                                                 accountant=acc)
    assert len(at_submit) == 1 and at_submit[0] == acc.spent_epsilon > 0
    assert dist.privacy_spent_ == RadoBoostClassifier(20, **params).fit(X, y).privacy_spent_  # the same guarantee
    # the pre-noise aggregate: exact integer sums of round(e_i / 2^k) over each signature's picked rows
    ypm = np.where(y == "yes", 1, -1).astype(np.int8)
    rng = _generator(3)
    _, exact = _distributed.private_edges_rados(source, da.from_array(X, chunks=(700, 3)),
                                                da.from_array(ypm, chunks=700), 50, rng, np.random.default_rng(1),
                                                2000, 3)
    j, i = _distributed.fixed_support_picks(2000, 50, 10, _generator(3))
    k = gaussian_grid(2.0 * source.clip, source.epsilon, source.delta, dimension=3).k
    E = ypm[:, None] * dp_rados.clip_rows(X, source.clip)
    want = np.zeros((50, 3), dtype=np.int64)
    np.add.at(want, j, np.rint(E[i] * 2.0**-k).astype(np.int64))
    assert np.array_equal(exact, want)


def test_cli_rados_parquet_directory_on_a_scheduler(client, tmp_path, monkeypatch):
    """`privlearn rados DIR/ --scheduler ADDRESS`: the same metadata (guarantee, mechanism, preprocessing) and
    privacy record as the CSV of the same rows, the noise drawn once on the driver, and `fit-rados` reads it."""
    from fast.cli import main, read_rados

    gen = np.random.default_rng(0)
    m = 800
    df = pd.DataFrame({"a": gen.normal(size=m), "b": gen.uniform(0, 10, m), "y": gen.choice(["no", "yes"], m)})
    df.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "pq").mkdir()
    for k in range(3):
        df.iloc[k * 300:(k + 1) * 300].to_parquet(tmp_path / "pq" / f"p{k}.parquet")
    calls = []
    real = mechanisms.gaussian_mechanism
    monkeypatch.setattr(mechanisms, "gaussian_mechanism",
                        lambda v, *a, **k: (calls.append(os.getpid()), real(v, *a, **k))[1])
    args = ["--label", "y", "--classes", "no,yes", "--epsilon", "2", "--bound", "a=-3:3", "--bound", "b=0:10",
            "--n", "40", "--support", "10", "--seed", "1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the noise-dominates warning of a small release (same in both)
        assert main(["rados", str(tmp_path / "in.csv"), *args, "--out", str(tmp_path / "r1.csv")]) == 0
        assert main(["rados", str(tmp_path / "pq"), *args, "--scheduler", client.scheduler.address,
                     "--out", str(tmp_path / "r2.csv")]) == 0
    assert calls[-1] == os.getpid()
    m1, f1, R1 = read_rados(str(tmp_path / "r1.csv"))
    m2, f2, R2 = read_rados(str(tmp_path / "r2.csv"))
    assert f1 == f2 and R1.shape == R2.shape == (40, 2)
    assert {k: v for k, v in m1.items()} == {k: v for k, v in m2.items()}
    r1, r2 = (json.loads((tmp_path / f).read_text()) for f in ("r1.csv.json", "r2.csv.json"))
    assert r1["privacy_spent"] == r2["privacy_spent"] and r2["results"]["m"] == m


def test_fault_private_rados_killed_worker(client, monkeypatch):
    """Private Gaussian-edges rados with a SIGKILLed worker holding a finished partial: the exact integer
    aggregate equals the fault-free run's and the noise is drawn once, on the driver."""
    from distributed import wait

    from fast import dp_rados
    from fast.estimators.rados import _generator

    gen = np.random.default_rng(3)
    X = gen.normal(size=(3000, 3)) / 2
    ypm = np.where(gen.random(3000) < 0.5, 1, -1).astype(np.int8)
    source = dp_rados.gaussian_edges(2.0, 1e-5, 10)
    Xd, yd = da.from_array(X, chunks=(500, 3)), da.from_array(ypm, chunks=500)
    clean_R, clean = _distributed.private_edges_rados(source, Xd, yd, 30, _generator(5), np.random.default_rng(9),
                                                      3000, 3)
    calls, killed = [], []
    real = mechanisms.gaussian_mechanism
    monkeypatch.setattr(mechanisms, "gaussian_mechanism",
                        lambda v, *a, **k: (calls.append(os.getpid()), real(v, *a, **k))[1])

    def compute(*objs):
        futures = client.compute(list(objs))
        wait(futures[:1])
        holder = next(iter(client.who_has(futures[0])[futures[0].key]))
        pid = _worker_pids(client)[holder]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
        return tuple(client.gather(futures))

    monkeypatch.setattr(_dask, "compute", compute)
    R, faulty = _distributed.private_edges_rados(source, Xd, yd, 30, _generator(5), np.random.default_rng(9),
                                                 3000, 3)
    assert killed and killed[0] not in _worker_pids(client).values()
    assert faulty.tobytes() == clean.tobytes() and np.array_equal(R, clean_R)
    assert calls == [os.getpid()]


def test_impact_dask_array_uses_chunk_offsets_as_row_ids(client):
    """A dask ARRAY of levels: the row ids are the global chunk offsets, so the coders equal an in-memory fit of
    the same rows with row_id = 0..m-1, for any chunking."""
    pdf = _frame(1200, 6)
    levels = pdf[["zip", "city"]].astype(str).to_numpy()
    cats = [["a", "b", "c", "d"], ["1", "2", "3"]]
    kw = dict(mode="cross", cv=4, epsilon=1.0, insecure_noise_seed=2, categories=cats, classes=("no", "yes"),
              random_state=1)
    mem_frame = pd.DataFrame({"row_id": np.arange(1200), "x0": levels[:, 0], "x1": levels[:, 1]})
    with pytest.warns(InsecureNoiseWarning):
        mem = ImpactEncoder(row_id="row_id", **kw).fit(mem_frame, pdf["y"].to_numpy())
    for chunks in ((1200,), (100, 500, 600)):
        with pytest.warns(InsecureNoiseWarning):
            dist = ImpactEncoder(**kw).fit(da.from_array(levels, chunks=(chunks, 2)),
                                           da.from_array(pdf["y"].to_numpy(), chunks=(chunks,)))
        for c1, c2 in zip(mem.coders_, dist.coders_):
            assert np.array_equal(c1.code, c2.code)
        out = dist.transform(da.from_array(levels, chunks=(chunks, 2))).compute().to_numpy()
        assert np.array_equal(out, mem.transform(mem_frame))


# --------------------------------------------------------------------------- estimators: PrivateBoostClassifier


def test_private_boost_dask_halfspace_equals_in_memory(client, spy_compute):
    """The halfspace (centroid) learner on dask: exact centroid sums, the discrete-Gaussian release on the driver's
    grid: the same hypotheses, coef_ and privacy_spent_ as the seeded in-memory fit, for 1 and 5 chunks."""
    from fast import PrivateBoostClassifier

    gen = np.random.default_rng(0)
    X = gen.normal(size=(4000, 3))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    kw = dict(epsilon=2.0, weak_learner="halfspace", data_norm=3.0, classes=(0, 1), n_rounds=12, kappa=0.1,
              insecure_noise_seed=5)
    with pytest.warns(InsecureNoiseWarning):
        mem = PrivateBoostClassifier(**kw).fit(X, y)
    for chunks in (4000, 900):
        with pytest.warns(InsecureNoiseWarning):
            dist = PrivateBoostClassifier(**kw).fit(da.from_array(X, chunks=(chunks, 3)),
                                                    da.from_array(y, chunks=chunks))
        assert np.array_equal(dist.hypotheses_, mem.hypotheses_) and np.array_equal(dist.coef_, mem.coef_)
        assert dist.privacy_spent_ == mem.privacy_spent_ and dist.sigma_ == mem.sigma_
    # every round's results reaching the driver are exact partials of a few scalars / d-vectors, never the rows
    assert spy_compute and max(spy_compute) < 0.05 * X.nbytes


def test_private_boost_dask_rounds_on_the_driver(client, monkeypatch):
    """PrivateBoostClassifier.fit on dask arrays (LB-NxM, stumps over public bounds): per-row state persisted on
    the workers, each round exact distributed passes; the same hypotheses as the seeded in-memory fit (the
    projection's capped-scaling path included: kappa 0.1) for 1 and 5 chunks; report-noisy-max drawn once per
    round in the driver's process (workers' mechanisms raise); the ledger charged before the first job."""
    from fast import PrivateBoostClassifier
    from fast import private_boosting as pb

    client.run(_forbid_worker_noise)
    gen = np.random.default_rng(0)
    X = gen.normal(size=(4000, 3))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    kw = dict(epsilon=2.0, bounds=(-3.0, 3.0), classes=(0, 1), n_rounds=12, kappa=0.1)
    with pytest.warns(InsecureNoiseWarning):
        mem = PrivateBoostClassifier(insecure_noise_seed=5, **kw).fit(X, y)
    draws = []
    real = pb.report_noisy_max
    monkeypatch.setattr(pb, "report_noisy_max", lambda *a, **k: (draws.append(os.getpid()), real(*a, **k))[1])
    for chunks in (4000, 900):
        with pytest.warns(InsecureNoiseWarning):
            dist = PrivateBoostClassifier(insecure_noise_seed=5, **kw).fit(da.from_array(X, chunks=(chunks, 3)),
                                                                           da.from_array(y, chunks=chunks))
        assert np.array_equal(dist.hypotheses_, mem.hypotheses_)
        assert dist.privacy_spent_ == mem.privacy_spent_ and dist.score(X, y) == mem.score(X, y)
    assert draws == [os.getpid()] * 24
    acc = BudgetAccountant(epsilon=4.0, delta=1e-5)
    at_first = []
    real_compute = _dask.compute
    monkeypatch.setattr(_dask, "compute", lambda *o: (at_first.append(acc.spent_epsilon), real_compute(*o))[1])
    PrivateBoostClassifier(**kw).fit(da.from_array(X, chunks=(1000, 3)), da.from_array(y, chunks=1000),
                                     accountant=acc)
    assert at_first[0] == acc.spent_epsilon > 0 and len(set(at_first)) == 1


def test_fitted_objects_hold_no_dask_state_or_keys(client):
    """After a dask fit the estimator holds only numpy / pandas results: it pickles without the cluster, and no
    signature-stream key or persisted collection stays on it."""
    from fast import PrivateBoostClassifier
    from fast.estimators.rados import RadoBoostClassifier

    gen = np.random.default_rng(0)
    X = gen.normal(size=(1000, 3))
    y = (X[:, 0] > 0).astype(int)
    Xd, yd = da.from_array(X, chunks=(300, 3)), da.from_array(y, chunks=300)
    params = dict(n_rados=50, classes=(0, 1), random_state=1)
    if "scaling" in RadoBoostClassifier().get_params():
        params["scaling"] = "none"
    fitted = [RadoBoostClassifier(10, **params).fit(Xd, yd),
              PrivateBoostClassifier(epsilon=1.0, bounds=(-3.0, 3.0), classes=(0, 1), n_rounds=3).fit(Xd, yd),
              _encoder(mode="cross", cv=3).fit(*_dask_frame())]
    for est in fitted:
        for name, value in vars(est).items():
            assert not _dask.is_dask_collection(value), name
            assert "SignatureStream" not in type(value).__name__, name
        clone = pickle.loads(pickle.dumps(est))
        assert type(clone) is type(est)


def _dask_frame():
    ddf = dd.from_pandas(_frame(600, 1), npartitions=3)
    return ddf[["row_id", "zip", "city"]], ddf["y"]


def test_radoboost_dask_default_standardised(client):
    """The default RadoBoostClassifier (scaling 'auto': z-scores without privacy) on dask: mean and scale from
    exact column sums (equal to numpy's to 1e-12, the same on every chunking) and the model the same for 1 and 4
    chunks (before, a dask X with the default scaling was refused)."""
    from fast.estimators.rados import RadoBoostClassifier

    gen = np.random.default_rng(2)
    X = gen.normal(size=(2000, 3)) * [1.0, 5.0, 0.1] + [0.0, 3.0, -1.0]
    y = np.where(X[:, 0] + 0.1 * X[:, 1] > 0.3, 1, 0)
    models = []
    for chunks in (2000, 500):
        clf = RadoBoostClassifier(30, classes=(0, 1), random_state=4).fit(
            da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=chunks))
        models.append(clf)
        np.testing.assert_allclose(clf.x_mean_, X.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(clf.x_scale_, X.std(axis=0), rtol=1e-12)
        assert clf.score(X, y) > 0.8
    a, b = models
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.x_mean_, b.x_mean_)


def test_multiclass_check_does_not_read_a_dask_y(client, monkeypatch):
    """A non-private fit without ``classes`` on a dask y: the one-vs-rest check (fast.estimators._multiclass) used
    to run scikit-learn's type_of_target on it, pulling every label to the driver; now it refuses from the parameters
    alone (``_multiclass.wants_ovr``: "classes must be given"), without reading y."""
    import sklearn.utils.multiclass as skm

    from fast.estimators.rados import RadoBoostClassifier

    real, read = skm.type_of_target, []

    def spy(y, *args, **kwargs):
        read.append(da.core.is_dask_collection(y))
        return real(y, *args, **kwargs)

    monkeypatch.setattr(skm, "type_of_target", spy)
    gen = np.random.default_rng(5)
    X = gen.normal(size=(600, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    Xd, yd = da.from_array(X, chunks=(200, 3)), da.from_array(y, chunks=200)
    with pytest.raises(ValueError, match="classes must be given"):  # the dask fit's own rule, from the parameters
        RadoBoostClassifier(10, random_state=1).fit(Xd, yd)  # the refusal reads no label
    assert True not in read
    clf = RadoBoostClassifier(10, classes=(0, 1), random_state=1).fit(Xd, yd)
    assert True not in read and clf.score(X, y) > 0.8


def test_boost_capping_bisection_fallback_matches_the_fixed_point(client):
    """The projection's fallback (bisection, used where the in-memory fit sorts) finds the fixed point's c."""
    import math as _m

    from fast.measures import _A_LOW

    gen = np.random.default_rng(0)
    L = gen.exponential(3.0, size=5000)
    Ld = da.from_array(L, chunks=1000).persist()
    L_d = [b for b in Ld.to_delayed(optimize_graph=False).ravel()]
    log_k, lam, target = _m.log(0.1), 1.0, 0.1 * 5000
    top = log_k - lam * L.min()
    a = np.exp(np.maximum(log_k - lam * L - top, -707.0))
    total = _m.fsum(a[a > _A_LOW].tolist())
    c = _distributed._bisect_capping(L_d, log_k, lam, top, target, total, _A_LOW)
    mu = np.minimum(1.0, c * a)
    assert abs(_m.fsum(mu.tolist()) - target) < 1e-9 * target


# --------------------------------------------------------------------------- lazy prediction


def _fitted_classifiers(X, y, X3, y3):
    from fast import PrivateBoostClassifier
    from fast.estimators.rados import OmegaRAdaBoostClassifier, RadoBoostClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [RadoBoostClassifier(random_state=0).fit(X, y),
                OmegaRAdaBoostClassifier(random_state=0).fit(X, y),
                RadoBoostClassifier(random_state=0).fit(X3, y3),  # one-vs-rest: (m, 3) scores
                PrivateBoostClassifier(classes=("a", "b"), insecure_noise_seed=1).fit(X, y),
                PrivateBoostClassifier(classes=("a", "b", "c"), insecure_noise_seed=1).fit(X3, y3)]


def test_predict_on_dask_is_lazy_and_equals_in_memory(client, spy_compute):
    """predict / predict_proba / decision_function (/ predict_log_proba) of a dask array return a lazy dask array
    with X's row chunks, of a dask DataFrame a lazy Series (named for the method) or a DataFrame with one column
    per class on X's index; computed, they equal the in-memory call.  Nothing reaches the driver at the call (the
    spy refuses np.asarray of a dask array; before, predict collected every row)."""
    gen = np.random.default_rng(3)
    X = gen.uniform(-1, 1, (2100, 4))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "a", "b")
    y3 = np.where(X[:, 0] > 0.3, "a", np.where(X[:, 1] > 0, "b", "c"))
    cols = ["p", "q", "r", "s"]
    Xd = da.from_array(X, chunks=(700, 2))  # column chunks too: rechunked to one column chunk
    pdf = pd.DataFrame(X, columns=cols, index=np.arange(2100) * 3)
    ddf = dd.from_pandas(pdf, npartitions=4)
    for est in _fitted_classifiers(X, y, X, y3):
        names = ["decision_function", "predict", "predict_proba"]
        if hasattr(est, "predict_log_proba"):
            names.append("predict_log_proba")
        for name in names:
            want = getattr(est, name)(X)
            lazy = getattr(est, name)(Xd)
            assert isinstance(lazy, da.Array) and lazy.chunks[0] == (700, 700, 700), (type(est).__name__, name)
            got = lazy.compute()
            assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
        fitted_on_frame = clone_fit(est, pd.DataFrame(X, columns=cols), y if len(est.classes_) == 2 else y3)
        for name in names:
            lazy = getattr(fitted_on_frame, name)(ddf)
            want = getattr(fitted_on_frame, name)(pdf)
            got = lazy.compute()
            if want.ndim == 1:
                assert isinstance(lazy, dd.Series) and got.name == name
            else:
                assert isinstance(lazy, dd.DataFrame) and list(got.columns) == list(fitted_on_frame.classes_)
            assert got.index.equals(pdf.index)
            if name == "predict":
                assert np.array_equal(got.to_numpy(), want)
            else:  # a pandas block may reach BLAS in another memory order than the whole frame: the last bit
                assert np.allclose(got.to_numpy(), want, rtol=1e-13, atol=1e-15)
    assert spy_compute == []  # no fit and no prediction went through the driver's door


def clone_fit(est, X, y):
    from sklearn.base import clone

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clone(est).fit(X, y)


def test_predict_on_dask_errors_at_the_call(client):
    """A wrong number of features, a missing column or an unfitted estimator raise at the call (the in-memory
    message), not later at compute."""
    from sklearn.exceptions import NotFittedError

    from fast import PrivateBoostClassifier
    from fast.estimators.rados import RadoBoostClassifier

    gen = np.random.default_rng(4)
    X = gen.uniform(-1, 1, (600, 3))
    y = (X[:, 0] > 0).astype(int)
    for est in _fitted_classifiers(X, np.where(y > 0, "a", "b"), X, np.where(y > 0, "a", "c"))[:2]:
        with pytest.raises(ValueError, match="X has 2 features, but .* is expecting 3 features"):
            est.predict(da.zeros((10, 2), chunks=5))
    for cls in (RadoBoostClassifier, PrivateBoostClassifier):
        with pytest.raises(NotFittedError):
            cls().predict(da.zeros((10, 3), chunks=5))
    est = RadoBoostClassifier(random_state=0).fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    with pytest.raises(ValueError, match="feature names"):
        est.predict(dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "z"]), npartitions=2))


# --------------------------------------------------------------------------- Zarr


def test_rados_from_a_zarr_store_equal_in_memory(client, tmp_path, spy_compute):
    """A Zarr array read by the workers (da.from_zarr: the out-of-core source of docs/performance.md) gives the
    in-memory rados bit for bit, for two chunkings of the store (the spy refuses np.asarray of a dask array: the
    rows are never collected)."""
    import zarr

    X, y = _wide_data(3000, 4, 21)
    stream = signature_stream(40, seed=9)
    want = fast_rados.rados(X, y, stream)
    for rows in (1000, 384):
        zx = zarr.create_array(str(tmp_path / f"X{rows}.zarr"), shape=X.shape, chunks=(rows, 4), dtype="f8")
        zy = zarr.create_array(str(tmp_path / f"y{rows}.zarr"), shape=y.shape, chunks=(rows,), dtype="i1")
        zx[:] = X
        zy[:] = y
        Xd, yd = da.from_zarr(str(tmp_path / f"X{rows}.zarr")), da.from_zarr(str(tmp_path / f"y{rows}.zarr"))
        assert Xd.chunks[0][0] == rows
        assert np.array_equal(fast_rados.rados(Xd, yd, stream), want)
    assert len(spy_compute) == 2  # one door per call: the partials of every chunk at once
