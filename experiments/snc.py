"""Stochastic Neighbor Compression experiments (kusner2016 ch. 3: Figure 3.3, Table 3.2, Table 3.3, Figure 3.5
right) on the real sets staged in ../shared/data: Letters, Adult, MNIST, Forest cover type and cod-rna.

Run one study at a time (each writes its own json under docs/experiments/snc/, then the README is rebuilt from
every json present):

    .venv/bin/python -m experiments.snc --dataset letters --runs 5                 # Figure 3.3 panel, Tables 3.2/3.3
    .venv/bin/python -m experiments.snc --dataset letters --runs 5 --metric nca    # the same after NCA
    .venv/bin/python -m experiments.snc --dataset letters --runs 3 --metric lmnn   # after LMNN (metric-learn)
    .venv/bin/python -m experiments.snc --dataset mnist --runs 2 --ratios 1,2,4
    .venv/bin/python -m experiments.snc --noise                                    # Figure 3.5 right
    .venv/bin/python -m experiments.snc --report-only
    .venv/bin/python -m experiments.snc --dataset letters --smoke                  # a 2-minute check of the pipeline
    .venv/bin/python -m experiments.snc --dataset covtype --runs 2 --append --ratios 16 --jobs 2   # 2 runs at once

Without ../shared/data the script says so and exits 0 without writing anything.  Every timed fit runs on ONE core:
BLAS limited to one thread (threadpoolctl) AND numba.set_num_threads(1) (the SNC gradient splits its pass over
numba threads otherwise), see :func:`one_core`; a json records that and when / at which commit it was measured.
``--jobs N`` (continuing a study) makes N runs at once, each in its own process on one core; this process alone
writes the json (never run two ``--append`` on one study at once).  On the shared 2-vCPU machine two single-thread
GEMMs ran at 23 GFLOPS each against 26 alone (stop 22), so two jobs nearly double the runs an hour.

Protocol (what the thesis leaves open is fixed here, and said in the README):
* splits: Letters the usual one (first 16,000 rows train, last 4,000 test); Adult and MNIST their published test
  sets; Forest cover type the staged stratified 100,000-row subsample (the thesis subsamples 100,000 uniformly)
  split 80/20 at random per run (the thesis: 10 splits); cod-rna (not in the thesis; its test file is not staged)
  split 2/3 - 1/3 at random per run.  Runs differ in SNC's initial subsample and, where the split is random, in
  the split;
* features: Letters raw; Adult 6 standardised numeric + one-hot categorical (d = 108); MNIST pixels / 255 projected
  on the training set's first 50 principal components (the thesis: LMNN to 164; 784 dimensions do not fit the CPU
  budget); cod-rna and cover type numeric columns standardised on the training part;
* ``--metric nca``: scikit-learn's NeighborhoodComponentsAnalysis fitted on a class-balanced 3,000-row subsample
  of the (first run's) training set, to min(d, the thesis's d_L) dimensions, then everything (SNC, baselines, full
  1-NN) runs in that space; ``--metric lmnn``: metric-learn's LMNN the same way (2,000 rows);
* SNC = SNCClassifier(metric="scalar", max_iter, random_state=run): class-proportional initialisation; gamma^2 by
  the estimator's hold-out "cv" in the first run at the first ratio fitted (4 % when run), then re-used as the
  starting gamma^2 of every other fit (and optimised, as always);
* baselines at each ratio: a class-balanced random subsample (SNC's initialisation itself); Hart's CNN and FCNN1
  (experiments/condensed.py, exact) with their PARTIAL sets in order of addition (the thesis's curves) and final
  sets; imbalanced-learn's CondensedNearestNeighbour (final set; Letters only: it refits a 1-NN per input);
* test-time speed-up (Table 3.3 left: exhaustive / ball tree / hashing at each ratio): wall time of 1-NN queries for
  the test points on the full training set over the same on the SNC set, with scikit-learn brute force and ball
  tree, and faiss IndexFlatL2 (exact) and IndexHNSWFlat (approximate, M = 32, standing in for LSH); best of 3, one
  thread;
* label noise (Figure 3.5 right; ``--noise``): Letters, a fraction (0, 0.08, 0.16, 0.24, 0.32) of the TRAINING labels
  replaced by a uniformly drawn other letter; 1-NN and 3-NN on the full set, SNC at 2, 4 and 8 % (gamma^2 started at
  0.05, then optimised), CNN and FCNN (final sets) and the 4 % subsample; one run.
"""
from __future__ import annotations

import argparse
import functools
import gzip
import json
import queue
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from experiments.condensed import fcnn, hart_cnn

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DATA = SHARED / "uci" / "letter-recognition.data"
OUT = ROOT / "docs" / "experiments" / "snc"
RATIOS = (0.01, 0.02, 0.04, 0.08, 0.16)
MAX_ITER = 150
NOISE = (0.0, 0.08, 0.16, 0.24, 0.32)
NOISE_RATIOS = (0.02, 0.04, 0.08)
#: starting gamma^2 of the noise study (fixed to skip the hold-out search; optimised from there as always)
NOISE_GAMMA2 = 0.05
MNIST_PCA = 50
#: the thesis's dimension after LMNN (Table 3.1); cod-rna is not in the thesis
THESIS_DL = {"letters": 16, "adult": 50, "mnist": 164, "covtype": 54, "codrna": 8}
#: Table 3.2, seconds on 8 cores (None: not run in the thesis)
THESIS_TIMES = {"letters": (41, 78, 164, 274, 493), "adult": (147, 241, 459, 771, 1398),
                "mnist": (1038, 2203, 4380, 8220, 17820), "covtype": (1058, 1980, 3344, 6300, None)}
#: Table 3.3 left: speed-up (exhaustive, ball tree, LSH) at 1, 2, 4, 8, 16 %
THESIS_SPEEDUP = {
    "letters": ((143, 9.3, 100), (73, 6.3, 61), (34, 3.6, 34), (16, 2.0, 17), (7.6, 1.1, 8.4)),
    "adult": ((156, 56, 3.5), (75, 28, 3.4), (36, 15, 3.3), (17, 7.3, 3.1), (7.8, 3.8, 3.0)),
    "mnist": ((136, 54, 84), (66, 29, 75), (32, 16, 57), (15, 8.4, 37), (7.1, 3.6, 17)),
    "covtype": ((146, 3.1, 12), (70, 1.6, 11), (32, 0.90, 10), (15, 1.1, 7.0), None)}
TITLES = {"letters": "Letters", "adult": "Adult", "mnist": "MNIST", "covtype": "Forest cover type",
          "codrna": "cod-rna"}
SEARCHES = ("sklearn_brute", "sklearn_ball_tree", "faiss_flat_exact", "faiss_hnsw_approx")


@contextmanager
def one_core():
    """One thread for everything the timed code runs: BLAS / OpenMP pools (threadpoolctl) and numba's thread count,
    which fast.snc reads to split its gradient pass over threads; both restored on exit."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(1):
            yield
    finally:
        numba.set_num_threads(before)


def measurement():
    """The ``threads`` and ``measured`` records of a run made under :func:`one_core` now."""
    import os
    import subprocess

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return {"threads": {"blas": 1, "numba": 1}, "measured": f"measured {when} at commit {commit}",
            "load_average_at_end": os.getloadavg()[0]}


# --------------------------------------------------------------------------- data (Xtr, ytr, Xte, yte)


def _standardise(Xtr, Xte, cols=None):
    cols = slice(None) if cols is None else cols
    Xtr, Xte = Xtr.copy(), Xte.copy()
    mean, std = Xtr[:, cols].mean(0), Xtr[:, cols].std(0)
    std[std == 0] = 1.0
    Xtr[:, cols] = (Xtr[:, cols] - mean) / std
    Xte[:, cols] = (Xte[:, cols] - mean) / std
    return Xtr, Xte


def _random_split(X, y, test_size, run):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=test_size, stratify=y, random_state=run)


@functools.lru_cache(maxsize=None)
def _letters():
    raw = np.loadtxt(DATA, delimiter=",", dtype=str)
    X, y = raw[:, 1:].astype(np.float64), raw[:, 0]
    return X[:16000], y[:16000], X[16000:], y[16000:]


def load_letters(run=0):
    return _letters()


@functools.lru_cache(maxsize=None)
def _adult():
    """UCI Adult train/test: 6 numeric columns standardised on the training part, 8 categorical columns one-hot
    (levels of the training part; '?' is a level), label income > 50K."""
    base = SHARED / "uci"

    def rows(name):
        out = []
        for line in (base / name).read_text().splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 15:
                out.append(parts)
        return out

    tr, te = rows("adult-train.csv"), rows("adult-test.csv")
    numeric = [0, 2, 4, 10, 11, 12]
    categorical = [1, 3, 5, 6, 7, 8, 9, 13]
    levels = {c: sorted({r[c] for r in tr}) for c in categorical}

    def encode(data):
        cols = [np.array([[float(r[c]) for c in numeric] for r in data])]
        for c in categorical:
            cols.append(np.array([[r[c] == v for v in levels[c]] for r in data], dtype=np.float64))
        return np.hstack(cols)

    Xtr, Xte = _standardise(encode(tr), encode(te), slice(0, len(numeric)))
    ytr = np.array([r[14].rstrip(".") == ">50K" for r in tr], dtype=np.int64)
    yte = np.array([r[14].rstrip(".") == ">50K" for r in te], dtype=np.int64)
    return Xtr, ytr, Xte, yte


def load_adult(run=0):
    return _adult()


@functools.lru_cache(maxsize=None)
def _mnist():
    from sklearn.decomposition import PCA

    def read(name, offset):
        return np.frombuffer(gzip.open(SHARED / "mnist" / name).read(), np.uint8, offset=offset)

    Xtr = read("train-images-idx3-ubyte.gz", 16).reshape(-1, 784) / 255.0
    Xte = read("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 784) / 255.0
    ytr = read("train-labels-idx1-ubyte.gz", 8).astype(np.int64)
    yte = read("t10k-labels-idx1-ubyte.gz", 8).astype(np.int64)
    pca = PCA(MNIST_PCA, svd_solver="randomized", random_state=0).fit(Xtr)
    return pca.transform(Xtr), ytr, pca.transform(Xte), yte


def load_mnist(run=0):
    return _mnist()


@functools.lru_cache(maxsize=None)
def _covtype_all():
    import pandas as pd

    data = pd.read_csv(SHARED / "uci" / "covtype_100k_stratified_seed0.data.gz", header=None).to_numpy()
    return data[:, :-1].astype(np.float64), data[:, -1].astype(np.int64)


def load_covtype(run=0):
    X, y = _covtype_all()
    Xtr, Xte, ytr, yte = _random_split(X, y, 0.2, run)
    Xtr, Xte = _standardise(Xtr, Xte, slice(0, 10))
    return Xtr, ytr, Xte, yte


@functools.lru_cache(maxsize=None)
def _codrna_all():
    data = np.loadtxt(SHARED / "libsvm" / "cod-rna.csv", delimiter=",", skiprows=1)
    return data[:, :-1], data[:, -1].astype(np.int64)


def load_codrna(run=0):
    X, y = _codrna_all()
    Xtr, Xte, ytr, yte = _random_split(X, y, 1 / 3, run)
    Xtr, Xte = _standardise(Xtr, Xte)
    return Xtr, ytr, Xte, yte


LOADERS = {"letters": load_letters, "adult": load_adult, "mnist": load_mnist, "covtype": load_covtype,
           "codrna": load_codrna}
FIXED_SPLIT = {"letters", "adult", "mnist"}


def _metric_learn_compat():
    """metric-learn 0.7.0 (the latest release) passes ``force_all_finite`` to scikit-learn's check_array /
    check_X_y, which scikit-learn 1.8 renamed ``ensure_all_finite``: translate the keyword in metric-learn's module."""
    import inspect

    import sklearn.utils.validation as v
    from metric_learn import _util

    if "force_all_finite" in inspect.signature(v.check_array).parameters:
        return

    def renamed(fn):
        def call(*args, force_all_finite=True, **kwargs):
            return fn(*args, ensure_all_finite=force_all_finite, **kwargs)
        return call

    for name in ("check_array", "check_X_y"):
        if getattr(_util, name) is getattr(v, name):
            setattr(_util, name, renamed(getattr(v, name)))


def learned_metric(kind, name, Xtr, ytr, run):
    """Fit NCA / LMNN on a class-balanced subsample of the training part; returns (transform, seconds)."""
    from fast import snc

    rows = 3000 if kind == "nca" else 2000
    sub = snc.class_proportional_init(ytr, min(rows, len(ytr)), np.random.default_rng(1000 + run))
    k = min(Xtr.shape[1], THESIS_DL[name])
    t = time.process_time()
    if kind == "nca":
        from sklearn.neighbors import NeighborhoodComponentsAnalysis

        model = NeighborhoodComponentsAnalysis(n_components=k, random_state=0, max_iter=50)
    else:
        from metric_learn import LMNN

        _metric_learn_compat()
        model = LMNN(n_neighbors=3, n_components=k, max_iter=200, random_state=0)
    model.fit(Xtr[sub], ytr[sub])
    return model.transform, time.process_time() - t


# --------------------------------------------------------------------------- measurements


def err_1nn(R, r_labels, T, t_labels, k=1):
    from sklearn.neighbors import KNeighborsClassifier

    return float(1.0 - KNeighborsClassifier(k, algorithm="brute").fit(R, r_labels).score(T, t_labels))


def timed(fn, repeat=3, long=2.0):
    """Least wall time of ``repeat`` calls; a call longer than ``long`` seconds is not repeated (the large sets'
    ball-tree queries take minutes on the shared machine)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
        if best > long:
            break
    return best


def query_times(R, Q, repeat=3):
    """Seconds for 1-NN queries of the rows of Q against the reference rows R, per search method (one thread)."""
    from sklearn.neighbors import NearestNeighbors

    out = {}
    for algo in ("brute", "ball_tree"):
        nn = NearestNeighbors(n_neighbors=1, algorithm=algo).fit(R)
        out[f"sklearn_{algo}"] = timed(lambda: nn.kneighbors(Q), repeat)
    try:
        import faiss
    except ImportError:
        return out
    faiss.omp_set_num_threads(1)
    q = np.ascontiguousarray(Q, dtype=np.float32)
    for name, index in (("faiss_flat_exact", faiss.IndexFlatL2(R.shape[1])),
                        ("faiss_hnsw_approx", faiss.IndexHNSWFlat(R.shape[1], 32))):
        index.add(np.ascontiguousarray(R, dtype=np.float32))
        out[name] = timed(lambda: index.search(q, 1), repeat)
    return out


def condensation(algo, Xtr, ytr, Xte, yte, ratios, run):
    """Final and partial-set errors of Hart's CNN or FCNN."""
    t = time.process_time()
    store = hart_cnn(Xtr, ytr, np.random.default_rng(run)) if algo == "cnn" else fcnn(Xtr, ytr)
    seconds = time.process_time() - t
    n = len(ytr)
    partial = {str(r): err_1nn(Xtr[store[:round(r * n)]], ytr[store[:round(r * n)]], Xte, yte)
               for r in ratios if round(r * n) <= len(store)}
    return {"final_ratio": len(store) / n, "final_error": err_1nn(Xtr[store], ytr[store], Xte, yte),
            "partial_error": partial, "seconds": seconds}


def _fresh(name, metric, ratios, max_iter):
    return {"dataset": name, "metric": metric, "ratios": list(ratios), "runs": 0, "max_iter": max_iter,
            "full_1nn_error": [], "snc_error": {str(r): [] for r in ratios},
            "subsample_error": {str(r): [] for r in ratios}, "snc_train_seconds_one_core": {str(r): [] for r in ratios},
            "snc_n_iter": {str(r): [] for r in ratios}, "gamma2": [], "cnn": [], "fcnn": [], "metric_seconds": [],
            "cpu_seconds_total": 0.0}


def _resume(previous, name, metric, ratios, max_iter):
    """The study to continue: ``previous`` (a json of the same study) with any missing ratio added; refuses one
    made with another iteration budget, whose runs would not be comparable."""
    if previous.get("max_iter") != max_iter:
        raise SystemExit(f"--append: the existing study ran {previous.get('max_iter')} iterations, not {max_iter}")
    res = previous
    for key in ("snc_error", "subsample_error", "snc_train_seconds_one_core", "snc_n_iter"):
        for r in ratios:
            res[key].setdefault(str(r), [])
    res["ratios"] = sorted(set(res["ratios"]) | set(ratios))
    res.setdefault("cpu_seconds_total", 0.0)
    return res


def _run_events(name, metric, run, order, ratios, g0, max_iter, baselines, speedup, speedup_queries):
    """One run of a study as the events it measures, in order: ``(kind, payload, cpu)`` with ``cpu`` the process CPU
    seconds spent since the previous event.  Kinds: "metric_seconds", "meta" (sizes), "full" ((run, full-set 1-NN
    error)), "speedup" (run 0: the full-set query times), "fit" (one SNC fit: its gamma^2 record and errors),
    "cnn" / "fcnn" ((run, record); ``baselines``), "cnn_imblearn" (Letters raw, run 0).  ``g0``: the starting gamma^2 (None: the
    first fit picks it by the estimator's hold-out and the later fits start from it)."""
    from fast import SNCClassifier, snc

    clock = [time.process_time()]

    def spent():
        now = time.process_time()
        out, clock[0] = now - clock[0], now
        return out

    Xtr, ytr, Xte, yte = LOADERS[name](run)
    if metric != "raw":
        transform, seconds = learned_metric(metric, name, Xtr, ytr, run)
        Xtr, Xte = transform(Xtr), transform(Xte)
        yield "metric_seconds", seconds, spent()
    yield "meta", dict(n_train=len(ytr), n_test=len(yte), d=Xtr.shape[1], classes=int(np.unique(ytr).size),
                       majority_share_train=float(np.max(np.unique(ytr, return_counts=True)[1]) / len(ytr))), spent()
    yield "full", (run, err_1nn(Xtr, ytr, Xte, yte)), spent()
    if speedup and run == 0:
        Q = Xte[:speedup_queries]
        yield "speedup", {"full_seconds": query_times(Xtr, Q), "snc_seconds": {}, "queries": len(Q)}, spent()
    for r in order:
        t = time.process_time()
        clf = SNCClassifier(compression=r, gamma2="cv" if g0 is None else g0, max_iter=max_iter,
                            random_state=run).fit(Xtr, ytr)
        seconds = time.process_time() - t
        if g0 is None:
            g0 = float(min(clf.cv_errors_, key=clf.cv_errors_.get)) if clf.cv_errors_ else clf.gamma2_
        idx = snc.class_proportional_init(ytr, clf.n_references_, np.random.default_rng(run))
        fit = {"gamma2": {"run": run, "ratio": r, "start": g0, "optimised": float(clf.gamma2_)},
               "snc_error": float(1 - clf.score(Xte, yte)), "seconds": seconds, "n_iter": int(clf.n_iter_),
               "subsample_error": err_1nn(Xtr[idx], ytr[idx], Xte, yte)}
        if speedup and run == 0:
            fit["query_seconds"] = query_times(clf.compressed_set_[0], Q)
        yield "fit", fit, spent()
    if baselines:
        for algo in ("cnn", "fcnn"):
            yield algo, (run, condensation(algo, Xtr, ytr, Xte, yte, ratios, run)), spent()
    if name == "letters" and metric == "raw" and run == 0:
        yield "cnn_imblearn", imblearn_cnn(Xtr, ytr, Xte, yte), spent()


def _apply(res, kind, payload, label):
    """Record one event of :func:`_run_events` in the study ``res``; True when it warrants a checkpoint."""
    if kind == "metric_seconds":
        res["metric_seconds"].append(payload)
    elif kind == "meta":
        res.update(payload)
    elif kind == "full":
        run, error = payload
        res["full_1nn_error"] += [None] * (run + 1 - len(res["full_1nn_error"]))
        res["full_1nn_error"][run] = error
        res["runs"] = len(res["full_1nn_error"])
    elif kind == "speedup":
        res["speedup"] = payload
    elif kind == "fit":
        g = payload["gamma2"]
        key = str(g["ratio"])
        res["gamma2"].append(g)
        res["snc_error"][key].append(payload["snc_error"])
        res["snc_train_seconds_one_core"][key].append(payload["seconds"])
        res["snc_n_iter"][key].append(payload["n_iter"])
        res["subsample_error"][key].append(payload["subsample_error"])
        if "query_seconds" in payload:
            res["speedup"]["snc_seconds"][key] = payload["query_seconds"]
        print(f"{label} run {g['run']} ratio {g['ratio']}: SNC {payload['snc_error']:.4f} subsample "
              f"{payload['subsample_error']:.4f} full {res['full_1nn_error'][g['run']]:.4f} "
              f"({payload['seconds']:.1f} s, {payload['n_iter']} it)", file=sys.stderr, flush=True)
        return True
    elif kind in ("cnn", "fcnn"):
        run, record = payload
        res[kind].append(dict(record, run=run))  # records arrive in any order under --jobs (none before stop 24 has it)
        print(f"{label} run {run} {kind}: {record}", file=sys.stderr, flush=True)
        return True
    elif kind == "cnn_imblearn":
        res["cnn_imblearn"] = payload
    else:  # pragma: no cover - a kind _run_events does not make
        raise ValueError(f"unknown event {kind!r}")
    return False


def _worker(tasks, events, args):
    """A ``--jobs`` worker process: takes run numbers from ``tasks`` until None, puts their events on ``events``,
    then ("done", None, 0.0); an exception goes back as ("error", traceback text, 0.0)."""
    import traceback

    try:
        with one_core():
            for run in iter(tasks.get, None):
                for event in _run_events(run=run, **args):
                    events.put(event)
        events.put(("done", None, 0.0))
    except BaseException:  # noqa: BLE001 - reported to the parent, which stops the study
        events.put(("error", traceback.format_exc(), 0.0))


#: how often the parent, waiting for an event, checks that its workers are still alive
_POLL_SECONDS = 1.0


def _check_workers(workers):
    """Raise if a worker died without reporting (killed by a signal: no "error" event can come from it).

    Without this the parent waited forever: in stop 23 the kernel's OOM killer took one of three cover type workers
    (three FCNN baselines at 16 %, about 9 GB each, on a 23 GB machine) and the study hung after the others ended."""
    for w in workers:  # a worker that ended with 0 has sent its "done" or "error" (flushed before it exits)
        if w.exitcode not in (None, 0):
            why = f"was killed by signal {-w.exitcode}" if w.exitcode < 0 else f"ended with exit code {w.exitcode}"
            hint = " (SIGKILL: often the kernel's OOM killer; try fewer --jobs)" if w.exitcode == -9 else ""
            raise RuntimeError(f"a --jobs worker (pid {w.pid}) {why}{hint} before it finished its runs; the study's "
                               "json keeps what was saved before")


def _parallel_events(runs, jobs, args):
    """The events of ``runs``, made by ``jobs`` worker processes (one core each), as they arrive."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")  # the workers inherit the loaders (and a test's stand-ins)
    tasks, events = ctx.Queue(), ctx.Queue()
    for run in runs:
        tasks.put(run)
    workers = [ctx.Process(target=_worker, args=(tasks, events, args), daemon=True) for _ in range(jobs)]
    for w in workers:
        tasks.put(None)
        w.start()
    try:
        done = 0
        while done < jobs:
            try:
                kind, payload, cpu = events.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                _check_workers(workers)
                continue
            if kind == "error":
                raise RuntimeError(f"a --jobs worker failed:\n{payload}")
            if kind == "done":
                done += 1
                continue
            yield kind, payload, cpu
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
            w.join()


def study(name, metric="raw", runs=5, ratios=RATIOS, max_iter=MAX_ITER, baseline_runs=None, speedup=True,
          previous=None, save=None, speedup_queries=None, jobs=1):
    """One Figure 3.3 panel (test error vs compression, mean and sd over runs), Table 3.2's row (training time,
    one core) and Table 3.3's row (speed-ups, first run) for one data set and feature space.

    ``previous``: an earlier json of the same study to continue: ``runs`` more runs are made, numbered after its
    runs (so each run has its own split and initial subsample), starting from its hold-out gamma^2.  ``save``: called
    with the study after every fit, so an interrupted session keeps what it measured (a run cut short leaves
    fewer values at its later ratios; the report says how many each cell averages).  ``speedup_queries``: time the
    Table 3.3 queries on the first that many test rows only (a speed-up is a ratio of times on the same queries; the
    full-set ball tree on all of MNIST's test rows took 35 minutes).  ``jobs``: runs made at once, each in its own
    process on one core (the same fits, seeds and records as one after the other; only continuing a study, whose
    hold-out gamma^2 is known, and without the run-0 speed-up timing).  This process alone writes the study: two
    processes must never continue one json at once.
    """
    baseline_runs = runs if baseline_runs is None else baseline_runs
    order = sorted(ratios, key=lambda v: (v != 0.04, v))  # 4 % first: it picks gamma^2 by "cv"
    res = _fresh(name, metric, ratios, max_iter) if previous is None else _resume(previous, name, metric, ratios,
                                                                                   max_iter)
    first = len(res["full_1nn_error"])
    g0 = res["gamma2"][0]["start"] if res["gamma2"] else None
    label = f"{name}/{metric}"
    code = measurement()["measured"].rsplit(" ", 1)[-1]
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    if jobs > 1 and (g0 is None or (speedup and first == 0)):
        raise ValueError("jobs > 1 continues a study whose hold-out gamma^2 is known (run 0 first, on its own)")
    if jobs > 1 and baseline_runs not in (0, runs):
        raise ValueError("jobs > 1 makes the CNN / FCNN baselines in every run or in none (baseline_runs)")

    def checkpoint():
        if save is not None and None not in res["full_1nn_error"]:  # a run whose full 1-NN error is pending waits
            res.update(measurement())
            save(res)

    args = dict(name=name, metric=metric, order=order, ratios=ratios, max_iter=max_iter,
                speedup=speedup, speedup_queries=speedup_queries)
    with one_core():
        if jobs == 1:
            def serial():
                nonlocal g0
                for run in range(first, first + runs):
                    for kind, payload, cpu in _run_events(run=run, g0=g0, baselines=run - first < baseline_runs,
                                                          **args):
                        if kind == "fit":
                            g0 = payload["gamma2"]["start"]
                        yield kind, payload, cpu
            events = serial()
        else:
            events = _parallel_events(range(first, first + runs), min(jobs, runs),
                                      dict(args, g0=g0, baselines=baseline_runs > 0))
        for kind, payload, cpu in events:
            res["cpu_seconds_total"] += cpu
            if kind == "fit":  # the code the fit ran (HEAD when the study started), beside its gamma^2 record
                payload["gamma2"]["commit"] = code
            if _apply(res, kind, payload, label):
                checkpoint()
    checkpoint()
    res.update(measurement())
    return res


def retime_speedup(name, metric="raw", ratios=None, queries=None):
    """Table 3.3 again for a study already run: the first run's split, the SNC sets refitted at each ratio as in
    the first run (random_state 0, the stored starting gamma^2, the study's iteration budget), and the 1-NN query
    times on the full and the compressed sets re-measured, e.g. on a quieter machine.  Returns the new
    ``speedup`` record (with the load average before and after).  ``queries``: as ``speedup_queries`` of
    :func:`study`."""
    import os

    from fast import SNCClassifier

    res = json.loads((OUT / _json_name(name, metric)).read_text())
    ratios = res["ratios"] if ratios is None else ratios
    Xtr, ytr, Xte, yte = LOADERS[name](0)
    if metric != "raw":
        transform, _ = learned_metric(metric, name, Xtr, ytr, 0)
        Xtr, Xte = transform(Xtr), transform(Xte)
    g0 = res["gamma2"][0]["start"]
    load_before = os.getloadavg()[0]
    with one_core():
        Q = Xte[:queries]
        out = {"full_seconds": query_times(Xtr, Q), "snc_seconds": {}, "queries": len(Q)}
        for r in ratios:
            clf = SNCClassifier(compression=r, gamma2=g0, max_iter=res["max_iter"], random_state=0).fit(Xtr, ytr)
            out["snc_seconds"][str(r)] = query_times(clf.compressed_set_[0], Q)
            print(f"{name}/{metric} speed-up at {r}: " + ", ".join(
                f"{k} {out['full_seconds'][k] / v:.1f}" for k, v in out["snc_seconds"][str(r)].items()),
                file=sys.stderr, flush=True)
    out["retimed"] = {"load_average_before": load_before, "load_average_after": os.getloadavg()[0],
                      **measurement()}
    return out


def imblearn_cnn(Xtr, ytr, Xte, yte):
    try:
        from imblearn.under_sampling import CondensedNearestNeighbour
    except ImportError:
        return "imbalanced-learn not installed"
    t = time.process_time()
    Xc, yc = CondensedNearestNeighbour(sampling_strategy="all", random_state=0).fit_resample(Xtr, ytr)
    return {"ratio": len(yc) / len(ytr), "error": err_1nn(Xc, yc, Xte, yte), "seconds": time.process_time() - t}


def noise_study(levels=NOISE, ratios=NOISE_RATIOS, gamma2=NOISE_GAMMA2, max_iter=MAX_ITER):
    """Figure 3.5 right on Letters: training labels corrupted at each level; one row per level."""
    from fast import SNCClassifier, snc

    Xtr, ytr, Xte, yte = load_letters()
    n = len(ytr)
    letters = np.unique(ytr)
    rows = []
    with one_core():
        for level in levels:
            rng = np.random.default_rng(100)
            yn = ytr.copy()
            flip = rng.random(n) < level
            yn[flip] = letters[(np.searchsorted(letters, yn[flip]) + rng.integers(1, len(letters), flip.sum()))
                               % len(letters)]
            row = {"noise": level, "full_1nn": err_1nn(Xtr, yn, Xte, yte), "full_3nn": err_1nn(Xtr, yn, Xte, yte, 3)}
            for r in ratios:
                clf = SNCClassifier(compression=r, gamma2=gamma2, max_iter=max_iter, random_state=0).fit(Xtr, yn)
                row[f"snc_{r}"] = float(1 - clf.score(Xte, yte))
            idx = snc.class_proportional_init(yn, round(0.04 * n), np.random.default_rng(0))
            row["subsample_0.04"] = err_1nn(Xtr[idx], yn[idx], Xte, yte)
            for algo in ("cnn", "fcnn"):
                c = condensation(algo, Xtr, yn, Xte, yte, (), 0)
                row[algo], row[f"{algo}_ratio"] = c["final_error"], c["final_ratio"]
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
    return rows


# --------------------------------------------------------------------------- report


def _runs(k):
    return f"{k} run" if k == 1 else f"{k} runs"


def _queries(res):
    """How many test queries a study's Table 3.3 row timed ("all" when every test row)."""
    q = res["speedup"].get("queries", res["n_test"])
    return f"all {q} test queries" if q == res["n_test"] else f"the first {q} of {res['n_test']} test queries"


def _ms(v, digits=4, runs=None):
    """Mean ± sd of ``v``; when ``runs`` is given and ``v`` has fewer values (a run cut short), says how many."""
    v = np.asarray(v, dtype=float)
    if v.size == 0:
        return "-"
    text = f"{v.mean():.{digits}f} ± {v.std(ddof=1):.{digits}f}" if v.size > 1 else f"{v.mean():.{digits}f}"
    return text if runs is None or v.size == runs else f"{text} ({v.size} run{'s' if v.size > 1 else ''})"


def _json_name(name, metric):
    return f"{name}.json" if metric == "raw" else f"{name}_{metric}.json"


def _load_studies():
    out = {}
    for name in LOADERS:
        for metric in ("raw", "nca", "lmnn"):
            path = OUT / _json_name(name, metric)
            if path.exists():
                res = json.loads(path.read_text())
                if "full_1nn_error" in res and isinstance(res["full_1nn_error"], list):
                    out[(name, metric)] = res
    return out


def _paired_full(res, r, k):
    """The full-set 1-NN errors of the runs behind the k SNC errors at ratio r (the runs' own splits), in order."""
    full = np.asarray(res["full_1nn_error"], dtype=float)
    runs = [g["run"] for g in res["gamma2"] if g["ratio"] == r]  # one record per fit, appended with its error
    if len(runs) != k:
        raise ValueError(f"{res['dataset']}: {k} SNC errors at ratio {r} but {len(runs)} fit records")
    return full[runs]


#: practical margin: a mean paired difference within 0.2 points of zero "matches" full 1-NN whatever its interval
MARGIN = 0.002


def verdict(d):
    """"better than" / "matches" / "worse than" full 1-NN from the paired differences ``d`` (SNC error minus full
    1-NN error, one per run): better or worse only when the 95 % Student-t interval of their mean excludes zero AND
    the mean is beyond ``MARGIN``; otherwise "matches" (no difference these runs can show).  One run has no
    interval: its difference is judged against ``MARGIN`` alone.  (Stop 19 judged against 2 sd of the differences,
    not their mean's interval: five cover type runs, every one worse, by 0.18-1.03 points, came out "matches".)"""
    from scipy import stats

    d = np.asarray(d, dtype=float)
    mean = float(d.mean())
    half = (float(stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else 0.0)
    if abs(mean) <= MARGIN or abs(mean) <= half:
        return "matches"
    return "better than" if mean < 0 else "worse than"


def judgement(res):
    """One sentence per study: is SNC at each ratio as accurate as full 1-NN?  Judged by ``verdict`` on the paired
    differences (each run's SNC error minus the full-set error on the same split)."""
    parts = []
    for r in res["ratios"]:
        e = np.asarray(res["snc_error"][str(r)])
        if e.size == 0:
            continue
        full_r = _paired_full(res, r, e.size)
        d = e - full_r
        few = f", {_runs(e.size)}" if e.size < 5 else ""  # fewer than the thesis's 5: say so beside the verdict
        parts.append(f"{100 * r:g} %: {e.mean():.4f} ({verdict(d)} full 1-NN {full_r.mean():.4f}, {d.mean():+.4f}{few})")
    return "; ".join(parts)


def _plots(studies):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in LOADERS if (n, "raw") in studies]
    if not names:
        return []
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 4.4), squeeze=False)
    # one colour AND one marker per series (a reader printing in grey tells them apart), the full-data 1-NN line of
    # each metric in its SNC colour, and one legend for all panels, below them, at a readable size (issue 28 item 7:
    # the three SNC series shared one colour and marker and the legend was 6 pt inside the first panel)
    styles = {"raw": ("-", "o", "tab:blue"), "nca": ("--", "D", "tab:purple"), "lmnn": ("-.", "v", "tab:cyan")}
    for ax, name in zip(axes[0], names):
        for metric, (style, mark, color) in styles.items():
            res = studies.get((name, metric))
            if res is None:
                continue
            ratios = [r for r in res["ratios"] if res["snc_error"][str(r)]]
            pct = [100 * r for r in ratios]
            s = [np.asarray(res["snc_error"][str(r)]) for r in ratios]
            ax.errorbar(pct, [v.mean() for v in s], yerr=[v.std(ddof=1) if v.size > 1 else 0 for v in s],
                        marker=mark, ls=style, color=color, label=f"SNC ({metric})")
            ax.axhline(np.mean(res["full_1nn_error"]), ls=":", lw=1.2, color=color, label=f"1-NN, all data ({metric})")
            if metric != "raw":
                continue
            b = [np.asarray(res["subsample_error"][str(r)]) for r in ratios]
            ax.errorbar(pct, [v.mean() for v in b], yerr=[v.std(ddof=1) if v.size > 1 else 0 for v in b],
                        marker="s", ls=":", color="tab:red", label="random subsample")
            for algo, color in (("cnn", "tab:orange"), ("fcnn", "tab:green")):
                pts = [(100 * r, np.mean([c["partial_error"][str(r)] for c in res[algo]
                                          if str(r) in c["partial_error"]]))
                       for r in ratios if any(str(r) in c["partial_error"] for c in res[algo])]
                if pts:
                    ax.plot(*zip(*pts), marker="^" if algo == "cnn" else "<", color=color,
                            label=f"{algo.upper()} partial")
                if res[algo]:
                    ax.plot([100 * np.mean([c["final_ratio"] for c in res[algo]])],
                            [np.mean([c["final_error"] for c in res[algo]])], marker="*" if algo == "cnn" else "P",
                            ms=11, color=color, mec="black", mew=0.6, ls="none", label=f"{algo.upper()} final")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("compression ratio (%)")
        ax.set_title(TITLES[name])
        ax.set_ylabel("test error (1-NN)")
    handles = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(6, len(handles)), fontsize=10,
               frameon=False)
    fig.tight_layout(rect=(0, 0.1 if len(handles) <= 6 else 0.16, 1, 1))
    fig.savefig(OUT / "error_vs_compression.png", dpi=100)
    plt.close(fig)
    return ["![error vs compression](error_vs_compression.png)"]


def _noise_plot(rows):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    lv = [r["noise"] for r in rows]
    keys = [("full_1nn", "1-NN full"), ("full_3nn", "3-NN full")] + [
        (k, f"SNC {100 * float(k[4:]):g}%") for k in rows[0] if k.startswith("snc_")] + [
        ("subsample_0.04", "subsample 4%"), ("cnn", "CNN (Hart)"), ("fcnn", "FCNN")]
    marks = "osD^v<>P*X"  # a marker AND a colour per series (CNN and FCNN lie on top of each other)
    for (key, lab), mark in zip(keys, marks):
        ax.plot(lv, [r[key] for r in rows], marker=mark, ls="--" if key.startswith("full") else "-", label=lab)
    ax.set_xlabel("fraction of training labels corrupted")
    ax.set_ylabel("test error")
    ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.set_title("Letters under label noise (cf. Fig. 3.5 right)")
    fig.tight_layout()
    fig.savefig(OUT / "letters_label_noise.png", dpi=110)
    plt.close(fig)


def retime_sentence(studies):
    """Which Table 3.3 rows were re-timed by ``--retime-speedup`` (when, at what load) and which were timed during
    their study; ``studies``: (name, study) pairs in the table's order."""
    again = [(TITLES[name], res["speedup"].get("retimed")) for name, res in studies]
    during = [title for title, a in again if not a]
    parts = [f"{title} {a['measured'].removeprefix('measured ')}, load average {a['load_average_before']:.1f} "
             f"before and {a['load_average_after']:.1f} after" for title, a in again if a]
    text = "Re-timed by `--retime-speedup`: " + "; ".join(parts) + "." if parts else ""
    if during:
        text += (" " if text else "") + f"Timed during their study: {', '.join(during)}."
    return text


def write_report():
    studies = _load_studies()
    lines = ["# Stochastic Neighbor Compression on real data (kusner2016 ch. 3)", "",
             "Generated by `experiments/snc.py` from the json files beside this page (its docstring gives the "
             "protocol). Errors are 1-NN test errors, mean ± sd (ddof 1) over runs; training times are CPU seconds "
             "on ONE core (one BLAS thread, one numba thread).", ""]
    lines += ["## Summary: SNC against 1-NN on the full training set", "",
              "| data set | features | n train / test | d | runs | full 1-NN | " +
              " | ".join(f"SNC {100 * r:g} %" for r in RATIOS) + " |",
              "|---|---|---|---|---|---|" + "---|" * len(RATIOS)]
    for (name, metric), res in studies.items():
        cells = [_ms(res["snc_error"].get(str(r), []), runs=res["runs"]) for r in RATIOS]
        lines.append(f"| {TITLES[name]} | {metric} | {res['n_train']} / {res['n_test']} | {res['d']} | {res['runs']} "
                     f"| {_ms(res['full_1nn_error'])} | " + " | ".join(cells) + " |")
    lines += ["", "Judged per study on the paired differences (each run's SNC error minus full 1-NN on the same split; "
              "better or worse only when the 95 % t-interval of their mean excludes 0 and the mean is beyond "
              "0.002; otherwise \"matches\"):", ""]
    for (name, metric), res in studies.items():
        lines.append(f"* {TITLES[name]} ({metric}): {judgement(res)}.")
    lines += [""] + _plots(studies)
    for (name, metric), res in studies.items():
        lines += ["", f"## {TITLES[name]} ({metric} features)", "",
                  f"{res['n_train']} training / {res['n_test']} test inputs, d = {res['d']}, {res['classes']} classes "
                  f"(largest class {res['majority_share_train']:.3f} of the training set); {_runs(res['runs'])}, "
                  f"{res['max_iter']} L-BFGS iterations; {res['cpu_seconds_total']:.0f} CPU s in all; "
                  f"{res['measured']}, load average {res.get('load_average_at_end', float('nan')):.1f} at the end.",
                  ""]
        if res["metric_seconds"]:
            lines += [f"{metric.upper()} fitted in {np.mean(res['metric_seconds']):.0f} s per run.", ""]
        lines += ["| ratio | m | SNC | subsample | CNN partial | FCNN partial | SNC time (1 core) | iterations |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in res["ratios"]:
            k = str(r)
            if not res["snc_error"][k]:
                continue
            cp = [c["partial_error"][k] for c in res["cnn"] if k in c["partial_error"]]
            fp = [c["partial_error"][k] for c in res["fcnn"] if k in c["partial_error"]]
            lines.append(f"| {100 * r:g} % | {round(r * res['n_train'])} | {_ms(res['snc_error'][k], runs=res['runs'])} | "
                         f"{_ms(res['subsample_error'][k], runs=res['runs'])} | {_ms(cp)} | {_ms(fp)} | "
                         f"{np.mean(res['snc_train_seconds_one_core'][k]):.0f} s | "
                         f"{np.mean(res['snc_n_iter'][k]):.0f} |")
        for algo, title in (("cnn", "Hart's CNN"), ("fcnn", "FCNN1")):
            if res[algo]:
                lines.append(f"\n{title} final set ({_runs(len(res[algo]))}): ratio "
                             f"{_ms([c['final_ratio'] for c in res[algo]], 3)}, error "
                             f"{_ms([c['final_error'] for c in res[algo]])}, "
                             f"{np.mean([c['seconds'] for c in res[algo]]):.0f} s.")
        if isinstance(res.get("cnn_imblearn"), dict):
            c = res["cnn_imblearn"]
            lines.append(f"\nimbalanced-learn CondensedNearestNeighbour(sampling_strategy='all'): ratio "
                         f"{c['ratio']:.3f}, error {c['error']:.4f} ({c['seconds']:.0f} s).")
        g = res["gamma2"]
        if g:
            lines.append(f"\ngamma^2: hold-out start {g[0]['start']:.4g}; optimised "
                         f"{min(x['optimised'] for x in g):.4g} to {max(x['optimised'] for x in g):.4g}.")
    timing = [(n, m, s) for (n, m), s in studies.items() if m == "raw"]
    if timing:
        lines += ["", "## Training time (cf. Table 3.2: 8 cores of an Intel L5520; here ONE core)", "",
                  "| data set | " + " | ".join(f"{100 * r:g} %" for r in RATIOS) + " |", "|---|" + "---|" * len(RATIOS)]
        for name, _, res in timing:
            thesis = THESIS_TIMES.get(name)
            cells = []
            for i, r in enumerate(RATIOS):
                v = res["snc_train_seconds_one_core"].get(str(r), [])
                here = f"{np.mean(v):.0f} s" if v else "not run"
                there = f" (thesis {thesis[i]} s)" if thesis and thesis[i] else ""
                cells.append(here + there)
            lines.append(f"| {TITLES[name]} | " + " | ".join(cells) + " |")
    sp = [(n, s) for (n, m), s in studies.items() if m == "raw" and "speedup" in s]
    if sp:
        lines += ["", "## Test-time speed-up of 1-NN on the SNC set over the full set (cf. Table 3.3 left)", "",
                  "One thread, best of 3, first run; each cell: exhaustive (scikit-learn brute force) / ball tree "
                  "(scikit-learn) / faiss exact (IndexFlatL2) / faiss HNSW (approximate, M = 32, in place of the "
                  "thesis's LSH); the thesis's exhaustive / ball tree / LSH in parentheses.", "",
                  "| data set | " + " | ".join(f"{100 * r:g} %" for r in RATIOS) + " |", "|---|" + "---|" * len(RATIOS)]
        for name, res in sp:
            s = res["speedup"]
            thesis = THESIS_SPEEDUP.get(name)
            cells = []
            for i, r in enumerate(RATIOS):
                comp = s["snc_seconds"].get(str(r))
                if not comp:
                    cells.append("not run")
                    continue
                here = " / ".join(f"{s['full_seconds'][k] / comp[k]:.1f}" for k in SEARCHES if k in comp)
                there = f" ({' / '.join(f'{v:g}' for v in thesis[i])})" if thesis and thesis[i] else ""
                cells.append(here + there)
            lines.append(f"| {TITLES[name]} | " + " | ".join(cells) + " |")
        lines += ["", retime_sentence(sp)]
        lines += ["", "Full-set query times (s): " + "; ".join(
            f"{TITLES[n]} ({_queries(r)}): " + ", ".join(f"{k} {v:.3f}" for k, v in r['speedup']['full_seconds'].items())
            for n, r in sp) + "."]
    noise = OUT / "noise.json"
    if noise.exists():
        data = json.loads(noise.read_text())
        rows = data["rows"]
        if rows and "fcnn" in rows[0]:
            keys = [k for k in rows[0] if k != "noise" and not k.endswith("_ratio")]
            lines += ["", "## Label noise on Letters (cf. Figure 3.5 right)", "",
                      f"One run; SNC started at gamma^2 = {data['gamma2_start']} (then optimised); "
                      f"{data['measured']}.", "",
                      "| noise | " + " | ".join(keys) + " | CNN ratio | FCNN ratio |",
                      "|---|" + "---|" * (len(keys) + 2)]
            for row in rows:
                lines.append(f"| {row['noise']:.2f} | " + " | ".join(f"{row[k]:.4f}" for k in keys) +
                             f" | {row['cnn_ratio']:.3f} | {row['fcnn_ratio']:.3f} |")
            _noise_plot(rows)
            lines += ["", "![label noise](letters_label_noise.png)"]
    extra = OUT / "NOTES.md"
    if extra.exists():
        lines += ["", extra.read_text().rstrip()]
    (OUT / "README.md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=sorted(LOADERS), help="run one study (Figure 3.3 panel)")
    parser.add_argument("--metric", choices=("raw", "nca", "lmnn"), default="raw")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--append", action="store_true",
                        help="continue the study's json with --runs more runs (the json is saved after every fit)")
    parser.add_argument("--baseline-runs", type=int, default=None, help="runs with CNN and FCNN (default: all)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="with --append: make this many runs at once, each in its own process on one core")
    parser.add_argument("--ratios", default="1,2,4,8,16", help="compression ratios in percent, comma-separated")
    parser.add_argument("--max-iter", type=int, default=MAX_ITER)
    parser.add_argument("--no-speedup", action="store_true")
    parser.add_argument("--speedup-queries", type=int, default=None,
                        help="time Table 3.3 on the first N test rows only (default: all of them)")
    parser.add_argument("--noise", action="store_true", help="run the label-noise study (writes noise.json)")
    parser.add_argument("--report-only", action="store_true", help="rebuild README.md and plots from the json")
    parser.add_argument("--retime-speedup", action="store_true",
                        help="with --dataset: re-measure the study's Table 3.3 row (refits the first run's SNC sets)")
    parser.add_argument("--smoke", action="store_true", help="1 run, ratios 2/4 %%, 20 iterations, no json")
    args = parser.parse_args(argv)
    if not SHARED.exists():
        print(f"{SHARED} is absent: nothing to do")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    if args.noise:
        t = time.process_time()
        rows = noise_study(max_iter=args.max_iter)
        (OUT / "noise.json").write_text(json.dumps({"rows": rows, "gamma2_start": NOISE_GAMMA2,
                                                    "cpu_seconds": time.process_time() - t, **measurement()},
                                                   indent=1))
    elif args.dataset:
        ratios = tuple(float(v) / 100 for v in args.ratios.split(","))
        if args.smoke:
            res = study(args.dataset, args.metric, runs=1, ratios=(0.02, 0.04), max_iter=20, speedup=False)
            print(json.dumps({k: res[k] for k in ("full_1nn_error", "snc_error", "subsample_error")}))
            return 0
        path = OUT / _json_name(args.dataset, args.metric)
        if args.retime_speedup:
            res = json.loads(path.read_text())
            res["speedup"] = retime_speedup(args.dataset, args.metric, queries=args.speedup_queries)
            path.write_text(json.dumps(res, indent=1))
            write_report()
            return 0
        previous = None
        if args.append and path.exists():
            previous = json.loads(path.read_text())
            if not isinstance(previous.get("full_1nn_error"), list):
                parser.error(f"--append: {path.name} is in the old format; move it aside first")

        def save(res):
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(res, indent=1))
            tmp.replace(path)

        study(args.dataset, args.metric, args.runs, ratios, args.max_iter, args.baseline_runs, not args.no_speedup,
              previous=previous, save=save, speedup_queries=args.speedup_queries, jobs=args.jobs)
    elif not args.report_only:
        parser.error("give --dataset, --noise or --report-only")
    write_report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
