"""The dask scale-out path (fast/_dask.py, fast/_exact_rados.py, fast/estimators/_distributed.py): dask collections
give the in-memory results bit for bit whatever the chunking, only small exact partials reach the driver, noise is
drawn on the driver once per release, and faults (a killed worker, a task dying on its first attempt) change nothing.

Every test here runs on a real 2-worker ``distributed.LocalCluster`` (processes, one thread each), started once for
the module.  On the code before the scale-out, ``fast`` converted a dask input with ``np.asarray`` (pulling every row
to the driver, which the spies below refuse) and summed in floating point (chunk- and kernel-dependent bits).
"""
from __future__ import annotations

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
from distributed import Client, LocalCluster

import reference.rados as ref_rados
from fast import _dask
from fast import rados as fast_rados
from fast._exact_rados import exact_terms, finish_terms, signature_stream

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    """A real 2-worker cluster (separate processes, one thread each), shared by the module."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture
def spy_compute(monkeypatch):
    """Record the size of everything that reaches the driver through fast._dask.compute, and refuse any other
    route a row could take to the driver (np.asarray / .compute() of a dask array)."""
    seen = []
    real = _dask.compute

    def spy(*objs):
        out = real(*objs)
        seen.append(sum(_nbytes(o) for o in out))
        return out

    def refuse(self, *a, **k):
        raise AssertionError("a dask array was collected on the driver")

    monkeypatch.setattr(_dask, "compute", spy)
    monkeypatch.setattr(da.Array, "__array__", refuse)
    return seen


def _nbytes(obj):
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(o) for o in obj)
    if isinstance(obj, dict):
        return sum(_nbytes(o) for o in obj.values())
    return sys.getsizeof(obj)


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
