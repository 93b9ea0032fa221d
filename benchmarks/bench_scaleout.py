"""Scale-out on Dask (issue 29): rows per second of the one-pass operations, in memory against a LocalCluster of 1
and 2 workers on the same rows, and an out-of-core run streamed from Parquet and Zarr under a worker memory cap.

    .venv/bin/python -m benchmarks.bench_scaleout                       # the figures of docs/performance.md
    .venv/bin/python -m benchmarks.bench_scaleout --rows 200000 --ooc-rows 2000000 --ooc-rows-per-file 262144   # smoke

Measured, each on the same rows and with the same results (checked bit for bit, reported as ``equal``):

* ``rados``: ``fast.rados.rados(X, y, signature_stream(1000))`` (n = 1000 exactly rounded rados, d = 10).
* ``impact``: ``ImpactEncoder(mode="cross", cv=5, epsilon=1, categories=[10^5 levels], row_id=...).fit``: the 5
  keyed fold count tables of 10^5 levels and the one Laplace release on the driver.
* ``impact_table``: the same fit without privacy (``epsilon=None``): the one-pass count table of the 10^5 levels x 5
  keyed folds (the level map, the keyed folds, the counts, the merge) and the coders, no noise: the pass whose
  cost grows with the rows (the private fit adds a fixed cost on the driver, ~0.3 s for 10^6 Laplace draws).
* ``boost_round``: one round of ``PrivateBoostClassifier(n_rounds=T, kappa=0.1, bounds=(-4, 4))`` (LB-NxM,
  stumps): (time of T = 5 - time of T = 1) / 4, seeded noise, hypotheses checked equal to the in-memory fit's.
  On the cluster a round is the projection's passes (min L, masses, capped counts), the score pass and the state
  update, on data persisted on the workers.
* ``round``: the centroid building block of a halfspace round: z = sum_i w_i y_i x_i (``fast._dask.weighted_sum``,
  exact partials), the margins X z and the state update L += 1 - |clip(X z) - y| / 2.
* in memory = one process, ONE thread (BLAS / numba at 1: ``benchmarks._timing.one_thread``); the cluster's workers
  are processes with one thread each (``threads_per_worker=1``, numba / BLAS threads at 1), started by this script
  (privlearn itself never starts one).  Data are persisted on the workers before timing (a boosting-style pass over
  data kept in cluster memory); the time includes the driver's merge and, for impact, the noise.
* out of core: ``--ooc-rows`` x 10 float64 (+ y, a level column, row ids) written as Parquet files and as a Zarr
  array, read by 2 workers capped at ``--memory-limit`` each, through rados (n = 100) and the impact table; the
  TRUE peak resident memory of every worker per pass is the kernel's high-water mark (``VmHWM`` of
  ``/proc/<pid>/status``, reset before each pass by writing 5 to ``/proc/<pid>/clear_refs``), and the nanny's
  restarts are counted per pass; the results are compared with a single-process streaming reference (pyarrow /
  zarr read block by block, the same exact partials merged once).

The machine is shared and has 2 cores: absolute times are load-dependent (the 1-minute load average is recorded).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import threading
import time
import warnings

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one thread per process (this one and the workers it starts)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

LEVELS = 100_000
D = 10
_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _load():
    return round(os.getloadavg()[0], 1)


def make_data(m, seed=0):
    gen = np.random.default_rng(seed)
    X = gen.normal(size=(m, D))
    y = np.where(gen.random(m) < 0.5, 1, -1).astype(np.int8)
    key = gen.integers(0, LEVELS, m)
    return X, y, key


def _bounds(m, chunk):
    return [(lo, min(m, lo + chunk)) for lo in range(0, m, chunk)]


def make_chunked(m, chunk):
    """The same rows as the cluster generates them: chunk k from seed 7919 + k (so no row crosses the network)."""
    parts = [make_data(hi - lo, seed=7919 + k) for k, (lo, hi) in enumerate(_bounds(m, chunk))]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def _chunk_frame(k, lo, hi):
    _, y, key = make_data(hi - lo, seed=7919 + k)
    return pd.DataFrame({"row_id": np.arange(lo, hi, dtype=np.int64), "key": key, "y": y})


def _encoder(epsilon=1.0):
    from fast import ImpactEncoder

    return ImpactEncoder(mode="cross", cv=5, epsilon=epsilon, categories=[np.arange(LEVELS)], classes=(-1, 1),
                         row_id="row_id", random_state=0)


def _frame(key, y, lo=0):
    return pd.DataFrame({"row_id": np.arange(lo, lo + key.shape[0], dtype=np.int64), "key": key}), pd.Series(y)


def _tables(enc):
    return [c.count for c in enc.coders_]


def in_memory(X, y, key, n_rados):
    from benchmarks._timing import one_thread
    from fast import rados as R

    out = {}
    with one_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stream = R.signature_stream(n_rados, seed=1)
        R.rados(X[:70000], y[:70000], R.signature_stream(n_rados, seed=2))  # warm-up (kernels loaded), not timed
        frame, ys = _frame(key[:1000], y[:1000])
        _encoder().fit(frame, ys)
        t = time.perf_counter()
        Pi = R.rados(X, y, stream)
        out["rados_s"] = time.perf_counter() - t
        frame, ys = _frame(key, y)
        t = time.perf_counter()
        _encoder().fit(frame, ys)
        out["impact_s"] = time.perf_counter() - t
        t = time.perf_counter()
        table = _encoder(epsilon=None).fit(frame, ys)
        out["impact_table_s"] = time.perf_counter() - t
        out["boost_round_s"], out["boost_hyps"] = _boost_round(X, y)
        L = np.zeros(X.shape[0])
        _round_memory(X, y, L)
        t = time.perf_counter()
        z = _round_memory(X, y, L)
        out["round_s"] = time.perf_counter() - t
    return out, (Pi, z, out.pop("boost_hyps"), [c.count for c in table.coders_])


LAM = 0.1


def _boost_round(X, y):
    """(seconds per round, hypotheses of the 5-round fit) of PrivateBoostClassifier on X (numpy or dask)."""
    from fast import PrivateBoostClassifier

    times, hyps = {}, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for T in (1, 1, 5):  # the first fit warms up (kernels, the workers' imports)
            clf = PrivateBoostClassifier(epsilon=2.0, bounds=(-4.0, 4.0), classes=(-1, 1), n_rounds=T, kappa=0.1,
                                         insecure_noise_seed=3)
            t = time.perf_counter()
            clf.fit(X, y)
            times[T] = time.perf_counter() - t
            hyps = clf.hypotheses_
    return (times[5] - times[1]) / 4, hyps


def _round_memory(X, y, L):
    from fast import _dask

    v = np.exp(-LAM * L) * y
    z = _dask.weighted_sum(X, v)
    z = z / (np.linalg.norm(z) or 1.0)
    h = X @ z
    L += 1.0 - np.abs(np.clip(h, -1.0, 1.0) - y) / 2.0
    return z


def _round_cluster(Xd, yd, Ld):
    import dask.array as da
    from distributed import wait

    from fast import _dask

    v = da.exp(-LAM * Ld) * yd
    z = _dask.weighted_sum(Xd, v)
    z = z / (np.linalg.norm(z) or 1.0)
    h = Xd @ z
    Ld = (Ld + 1.0 - da.fabs(da.clip(h, -1.0, 1.0) - yd) / 2.0).persist()
    wait(Ld)
    return z, Ld


def on_cluster(X, y, key, n_rados, workers, chunk, refs):
    import dask.array as da
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    from fast import rados as R

    out = {"workers": workers}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=50, env=_ENV, memory_limit=0) as cluster, Client(cluster) as client:
        import dask

        bounds = _bounds(X.shape[0], chunk)
        gen = [dask.delayed(make_data)(hi - lo, seed=7919 + k) for k, (lo, hi) in enumerate(bounds)]
        Xd = da.concatenate([da.from_delayed(g[0], shape=(hi - lo, D), dtype=np.float64)
                             for g, (lo, hi) in zip(gen, bounds)]).persist()
        yd = da.concatenate([da.from_delayed(g[1], shape=(hi - lo,), dtype=np.int8)
                             for g, (lo, hi) in zip(gen, bounds)]).persist()
        meta = pd.DataFrame({"row_id": pd.Series([], dtype=np.int64), "key": pd.Series([], dtype=np.int64),
                             "y": pd.Series([], dtype=np.int8)})
        fd = dd.from_delayed([dask.delayed(_chunk_frame)(k, lo, hi) for k, (lo, hi) in enumerate(bounds)],
                             meta=meta).persist()
        wait([Xd, yd, fd])
        client.run(lambda: __import__("fast.estimators._distributed"))  # imports, not timed
        stream = R.signature_stream(n_rados, seed=1)
        # warm the workers' kernels: the same n as timed (n >= 256 loads the numba table kernel), on both workers
        R.rados(Xd[:2 * chunk], yd[:2 * chunk], R.signature_stream(n_rados, seed=2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _encoder(epsilon=None).fit(fd[["row_id", "key"]].partitions[:2], fd["y"].partitions[:2])
        t = time.perf_counter()
        Pi = R.rados(Xd, yd, stream)
        out["rados_s"] = time.perf_counter() - t
        out["rados_equal"] = bool(np.array_equal(Pi, refs[0]))
        import dask.array as da

        Ld = da.zeros(X.shape[0], chunks=chunk).persist()
        _, Ld = _round_cluster(Xd, yd.astype(np.float64), Ld)
        t = time.perf_counter()
        z, Ld = _round_cluster(Xd, yd.astype(np.float64), Ld)
        out["round_s"] = time.perf_counter() - t
        out["round_equal"] = bool(np.array_equal(z, refs[1]))
        out["boost_round_s"], hyps = _boost_round(Xd, yd)
        out["boost_round_equal"] = bool(np.array_equal(hyps, refs[2]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            enc = _encoder().fit(fd[["row_id", "key"]], fd["y"])
            out["impact_s"] = time.perf_counter() - t
        out["impact_levels"] = len(enc.coders_[0].count)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            table = _encoder(epsilon=None).fit(fd[["row_id", "key"]], fd["y"])
            out["impact_table_s"] = time.perf_counter() - t
        out["impact_table_equal"] = bool(all(np.array_equal(a.count, b) for a, b in zip(table.coders_, refs[3])))
    return out


# --------------------------------------------------------------------------- out of core


def write_ooc(root, m, rows_per_file):
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zarr

    pdir = os.path.join(root, "parquet")
    os.makedirs(pdir)
    zX = zarr.create_array(os.path.join(root, "X.zarr"), shape=(m, D), chunks=(rows_per_file, D), dtype="f8",
                           compressors=None)
    zy = zarr.create_array(os.path.join(root, "y.zarr"), shape=(m,), chunks=(rows_per_file,), dtype="i1",
                           compressors=None)
    for f, lo in enumerate(range(0, m, rows_per_file)):
        hi = min(m, lo + rows_per_file)
        X, y, key = make_data(hi - lo, seed=1000 + f)
        cols = {f"x{j}": X[:, j] for j in range(D)}
        cols.update(y=y, key=key, row_id=np.arange(lo, hi, dtype=np.int64))
        pq.write_table(pa.table(cols), os.path.join(pdir, f"part.{f:05d}.parquet"), row_group_size=65536)
        zX[lo:hi] = X
        zy[lo:hi] = y
    return pdir, os.path.join(root, "X.zarr"), os.path.join(root, "y.zarr")


def _read_parquet_X(path):
    import pyarrow.parquet as pq

    t = pq.read_table(path, columns=[f"x{j}" for j in range(D)])
    return np.column_stack([t.column(j).to_numpy() for j in range(D)])


def _read_parquet_y(path):
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=["y"]).column(0).to_numpy()


def _read_zarr(path, lo, hi):
    import zarr

    return zarr.open_array(path, mode="r")[lo:hi]


def _parquet_arrays(pdir, rows_per_file, m):
    import dask
    import dask.array as da

    files = sorted(os.path.join(pdir, f) for f in os.listdir(pdir))
    sizes = [min(rows_per_file, m - k * rows_per_file) for k in range(len(files))]
    X = da.concatenate([da.from_delayed(dask.delayed(_read_parquet_X)(f), shape=(r, D), dtype=np.float64)
                        for f, r in zip(files, sizes)])
    y = da.concatenate([da.from_delayed(dask.delayed(_read_parquet_y)(f), shape=(r,), dtype=np.int8)
                        for f, r in zip(files, sizes)])
    return X, y, files


def _zarr_arrays(xpath, ypath, rows_per_file, m):
    import dask
    import dask.array as da

    bounds = [(lo, min(m, lo + rows_per_file)) for lo in range(0, m, rows_per_file)]
    X = da.concatenate([da.from_delayed(dask.delayed(_read_zarr)(xpath, lo, hi), shape=(hi - lo, D),
                                        dtype=np.float64) for lo, hi in bounds])
    y = da.concatenate([da.from_delayed(dask.delayed(_read_zarr)(ypath, lo, hi), shape=(hi - lo,), dtype=np.int8)
                        for lo, hi in bounds])
    return X, y


def _reset_peak():
    """In a worker: reset the kernel's resident-memory high-water mark (VmHWM) of this process."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    return os.getpid()


def _peak_bytes():
    """In a worker: (pid, VmHWM in bytes): the true peak resident memory since the last reset."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return os.getpid(), int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


class PeakRSS:
    """The true peak resident memory of every worker over a pass: VmHWM reset before, read after (a worker the
    nanny restarted during the pass is counted in ``restarted``, its peak lost with it); and the scheduler's
    0.25 s RSS samples, kept for comparison."""

    def __init__(self, client, period=0.25):
        self.client, self.period, self.sampled, self.peak, self.restarted = client, period, {}, {}, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            try:
                for w, info in self.client.scheduler_info()["workers"].items():
                    self.sampled[w] = max(self.sampled.get(w, 0), info["metrics"]["memory"])
            except Exception:  # noqa: BLE001 (a worker restarting: sample again)
                pass
            self._stop.wait(self.period)

    def __enter__(self):
        self._pids = set(self.client.run(_reset_peak).values())
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        after = self.client.run(_peak_bytes)
        self.peak = {w: b for w, (pid, b) in after.items()}
        self.restarted = len(self._pids - {pid for pid, _ in after.values()})


def streaming_reference(files, n_rados):
    """Single process, one file at a time: the same exact partials merged once; and the impact tables."""
    import pyarrow.parquet as pq

    from fast._exact_rados import exact_terms, finish_terms, signature_stream

    stream = signature_stream(n_rados, seed=1)
    parts, lo, counts = [], 0, np.zeros((LEVELS, 2), dtype=np.int64)
    for f in files:
        X, y = _read_parquet_X(f), _read_parquet_y(f)
        parts.append(exact_terms(y[:, None] * X, y, stream, lo))
        key = pq.read_table(f, columns=["key"]).column(0).to_numpy()
        counts[:, 0] += np.bincount(key[y == 1], minlength=LEVELS)
        counts[:, 1] += np.bincount(key[y != 1], minlength=LEVELS)
        lo += X.shape[0]
    return finish_terms(parts, n_rados, D), counts


def out_of_core(m, rows_per_file, memory_limit, n_rados, root):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from fast import rados as R

    t = time.perf_counter()
    pdir, xpath, ypath = write_ooc(root, m, rows_per_file)
    out = {"rows": m, "bytes_X": m * D * 8, "write_s": time.perf_counter() - t, "memory_limit": memory_limit}
    Xp, yp, files = _parquet_arrays(pdir, rows_per_file, m)
    Xz, yz = _zarr_arrays(xpath, ypath, rows_per_file, m)
    t = time.perf_counter()
    Pi_ref, counts_ref = streaming_reference(files, n_rados)
    out["reference_rados_and_counts_s"] = time.perf_counter() - t
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50,
                      env=_ENV, memory_limit=memory_limit) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("fast.estimators._distributed"))
        for w in range(2):  # warm both workers (kernels loaded), then the idle RSS: the baseline the cap includes
            R.rados(Xz[w * 1000:(w + 1) * 1000], yz[w * 1000:(w + 1) * 1000], R.signature_stream(8, seed=3))
        out["idle_worker_rss"] = max(client.run(lambda: __import__("psutil").Process().memory_info().rss).values())
        out["memory_limit_bytes"] = max(w["memory_limit"] for w in client.scheduler_info()["workers"].values())
        before = set(client.run(os.getpid).values())
        stream = R.signature_stream(n_rados, seed=1)
        for name, (X, y) in (("parquet", (Xp, yp)), ("zarr", (Xz, yz))):
            with PeakRSS(client) as peak:
                t = time.perf_counter()
                Pi = R.rados(X, y, stream)
                dt = time.perf_counter() - t
            out[f"rados_{name}_s"] = dt
            out[f"rados_{name}_rows_per_s"] = m / dt
            out[f"rados_{name}_equal_reference"] = bool(np.array_equal(Pi, Pi_ref))
            out[f"rados_{name}_peak_worker_rss"] = max(peak.peak.values())
            out[f"rados_{name}_sampled_worker_rss"] = max(peak.sampled.values())
            out[f"rados_{name}_restarted"] = peak.restarted
        frame = dd.read_parquet(pdir, columns=["row_id", "key", "y"])
        enc = _encoder()
        enc.epsilon = None  # the exact tables, to compare with the reference (the private fit adds noise on top)
        enc.categories = [np.arange(LEVELS)]
        with PeakRSS(client) as peak, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            enc.mode = "naive"
            enc.fit(frame[["row_id", "key"]], frame["y"])
            dt = time.perf_counter() - t
        total = np.asarray(enc._tables_[0][0])[:LEVELS]
        out["impact_parquet_s"] = dt
        out["impact_parquet_rows_per_s"] = m / dt
        out["impact_parquet_equal_reference"] = bool(np.array_equal(total, counts_ref.astype(np.float64)))
        out["impact_parquet_peak_worker_rss"] = max(peak.peak.values())
        out["impact_parquet_sampled_worker_rss"] = max(peak.sampled.values())
        out["impact_parquet_restarted"] = peak.restarted
        out["workers_restarted"] = len(before - set(client.run(os.getpid).values()))  # 0: no worker hit the cap
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--chunk", type=int, default=1 << 20)
    p.add_argument("--n-rados", type=int, default=1000)
    p.add_argument("--ooc-rows", type=int, default=40_000_000)
    p.add_argument("--ooc-rows-per-file", type=int, default=1 << 20)
    p.add_argument("--memory-limit", default="400MB")
    p.add_argument("--ooc-n-rados", type=int, default=100)
    p.add_argument("--skip-throughput", action="store_true")
    p.add_argument("--skip-ooc", action="store_true")
    p.add_argument("--out", default=None, help="write the results as JSON here")
    args = p.parse_args(argv)
    import dask
    import distributed

    res = {"dask": dask.__version__, "distributed": distributed.__version__, "cpus": os.cpu_count(),
           "load_start": _load()}
    if not args.skip_throughput:
        X, y, key = make_chunked(args.rows, args.chunk)
        mem, Pi = in_memory(X, y, key, args.n_rados)
        res["in_memory"] = mem
        print("in memory:", mem, "load", _load(), flush=True)
        for w in (1, 2):
            c = on_cluster(X, y, key, args.n_rados, w, args.chunk, Pi)
            c["load"] = _load()
            res[f"cluster_{w}"] = c
            print(f"cluster {w}:", c, flush=True)
        for w in (1, 2):
            c = res[f"cluster_{w}"]
            c["rados_speedup"] = mem["rados_s"] / c["rados_s"]
            c["impact_speedup"] = mem["impact_s"] / c["impact_s"]
            c["impact_table_speedup"] = mem["impact_table_s"] / c["impact_table_s"]
            c["impact_table_rows_per_s"] = args.rows / c["impact_table_s"]
            c["rados_rows_per_s"] = args.rows / c["rados_s"]
            c["impact_rows_per_s"] = args.rows / c["impact_s"]
            c["round_speedup"] = mem["round_s"] / c["round_s"]
            c["round_rows_per_s"] = args.rows / c["round_s"]
            c["boost_round_speedup"] = mem["boost_round_s"] / c["boost_round_s"]
            c["boost_round_rows_per_s"] = args.rows / c["boost_round_s"]
        mem["rados_rows_per_s"] = args.rows / mem["rados_s"]
        mem["impact_rows_per_s"] = args.rows / mem["impact_s"]
        mem["impact_table_rows_per_s"] = args.rows / mem["impact_table_s"]
        mem["round_rows_per_s"] = args.rows / mem["round_s"]
        mem["boost_round_rows_per_s"] = args.rows / mem["boost_round_s"]
        del X, y, key
    if not args.skip_ooc:
        root = tempfile.mkdtemp(prefix="privlearn-ooc-")
        try:
            res["out_of_core"] = out_of_core(args.ooc_rows, args.ooc_rows_per_file, args.memory_limit,
                                             args.ooc_n_rados, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        print("out of core:", res["out_of_core"], flush=True)
    res["load_end"] = _load()
    text = json.dumps(res, indent=1, default=float)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return res


if __name__ == "__main__":
    main()
