"""Shared pieces of the dask test modules (tests/test_dask*.py): the real 2-worker cluster, the spy on the one door
to the driver (fast._dask.compute) and the worker-side refusal of noise.

Imported by those modules only (``from _dask_cluster import client, spy_compute``), so that the rest of the suite
never imports dask."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import dask.array as da
from distributed import Client, LocalCluster

from fast import _dask
from fast import mechanisms


@pytest.fixture(scope="module")
def client():
    """A real 2-worker cluster (separate processes, one thread each), shared by the module.  The dashboard binds a
    free port (":0"): with None, distributed 2025.3.0 still tries 8787 and, where another cluster holds it, warns
    "Port 8787 is already in use", which the strict warning filter turned into 32 errors of a module in CI."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
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
        seen.append(sum(nbytes(o) for o in out))
        return out

    def refuse(self, *a, **k):
        raise AssertionError("a dask array was collected on the driver")

    monkeypatch.setattr(_dask, "compute", spy)
    monkeypatch.setattr(da.Array, "__array__", refuse)
    return seen


@pytest.fixture
def mechanism_spy(monkeypatch):
    """Record (pid, exact input) of every fast.mechanisms.laplace_mechanism call made in THIS process."""
    calls = []
    real = mechanisms.laplace_mechanism

    def spy(value, *a, **k):
        calls.append((os.getpid(), np.array(value, dtype=np.float64, copy=True)))
        return real(value, *a, **k)

    monkeypatch.setattr(mechanisms, "laplace_mechanism", spy)
    return calls


def nbytes(obj) -> int:
    """Bytes of a result that reached the driver (arrays, nested lists / tuples / dicts of them, else its size)."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(o) for o in obj)
    if isinstance(obj, dict):
        return sum(nbytes(o) for o in obj.values())
    return sys.getsizeof(obj)


def forbid_worker_noise():
    """Run on every worker (``client.run``): any fast.mechanisms call there raises; returns the worker's pid."""
    import fast.mechanisms as mech

    def refuse(*a, **k):
        raise AssertionError("a worker drew noise")

    for name in ("laplace_mechanism", "gaussian_mechanism", "discrete_laplace", "discrete_gaussian"):
        if hasattr(mech, name):
            setattr(mech, name, refuse)
    return os.getpid()
