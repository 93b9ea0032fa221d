"""Which defaults of ``fast.PrivateBoostClassifier`` learn (issue 26 item 1): test error on real tasks.

Every task is split (its own test file, else a stratified 2/3 - 1/3 split with random_state=0), the training part
subsampled to at most ``MAX_TRAIN`` rows (seed 0), the test part to at most ``MAX_TEST``.  Features are mapped into
the box [-1, 1]^d by per-feature bounds: the 1st / 99th percentile of the TRAINING part (a benchmark stand-in for
a public domain a user would declare; not private, and the same for every model), clipped; MNIST by its public
pixel range (0, 255).  So the box is what ``PublicScaler(bounds=...)`` would give with declared bounds, and the
models see the same X:

* majority: the training majority class; ``LogisticRegression`` (non-private, C=1);
* ``halfspace``: the paper's configuration, LazyBregBoost + noisy normalised centroid, n_rounds=100, kappa=0.25,
  on [1, x] / sqrt(d + 1) (a constant coordinate for the bias; rows in the unit ball, data_norm=1);
* ``stump``: LazyBregBoost + report-noisy-max stumps, bounds=(-1, 1), with the listed n_rounds / kappa /
  n_thresholds; ``smooth-stump``: SmoothBoost + stumps.

Every private fit draws its noise from OS entropy (``REPS`` refits per cell: mean over them).  Gap closed =
(majority error - model error) / (majority error - LogisticRegression error).

Run: nice .venv/bin/python -m experiments.boosting_defaults [--harness] [--tasks a,b] [--eps 0.5,1,2] [--reps R]
[--configs JSON]; writes JSON lines to ``--out`` (default /tmp/boosting_defaults.jsonl).  ``--harness`` loads the
tasks with ``benchmarks.utility.load_task`` (declared bounds; the stump gets meta["bounds"], the halfspace
meta["data_norm"]), which is what the class docstring's table of ``fast.PrivateBoostClassifier`` reports (2026-11-29:
``--harness --reps 3 --eps 0.5,1,2 --tasks adult,cod_rna,covertype,spambase,wine_white,abalone,banknote`` and
``--reps 2 --tasks letter,mnist``, configs halfspace T=100 kappa=.25 and stump T in {10, 25, 50} x kappa in {.15,
.2, .25, .35, .5}); without it, the first screen (percentile-scaled features, MNIST 0-vs-rest, ``SCREEN``).
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
MAX_TRAIN = 20_000
MAX_TEST = 10_000


def _split(X, y, seed=0):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=1 / 3, random_state=seed, stratify=y)


def _sub(X, y, m, seed):
    if len(y) <= m:
        return X, y
    idx = np.sort(np.random.default_rng(seed).choice(len(y), m, replace=False))
    return X[idx], y[idx]


def load_task(name):
    """(Xtr, ytr, Xte, yte, public_box) with y in {0, 1}; public_box = (lo, hi) per feature or None (percentiles)."""
    if name == "adult":
        from experiments.private_boosting import load_adult

        Xtr, ytr, Xte, yte = load_adult(SHARED / "uci")
        return Xtr[:, 1:], ytr, Xte[:, 1:], yte, None
    if name == "spambase":
        raw = np.loadtxt(SHARED / "uci" / "spambase.data", delimiter=",")
        Xtr, Xte, ytr, yte = _split(raw[:, :-1], raw[:, -1].astype(int))
        return Xtr, ytr, Xte, yte, None
    if name == "cod-rna":
        raw = np.loadtxt(SHARED / "libsvm" / "cod-rna.csv", delimiter=",", skiprows=1)
        Xtr, Xte, ytr, yte = _split(raw[:, :-1], (raw[:, -1] > 0).astype(int))
        return Xtr, ytr, Xte, yte, None
    if name == "covtype":  # binary: lodgepole pine (class 2) vs the rest
        raw = np.loadtxt(gzip.open(SHARED / "uci" / "covtype_100k_stratified_seed0.data.gz"), delimiter=",")
        Xtr, Xte, ytr, yte = _split(raw[:, :-1], (raw[:, -1] == 2).astype(int))
        return Xtr, ytr, Xte, yte, None
    if name == "mnist":  # one-vs-rest: digit 0 vs the rest
        def read(kind):
            img = np.frombuffer(gzip.open(SHARED / "mnist" / f"{kind}-images-idx3-ubyte.gz").read(), np.uint8,
                                offset=16).reshape(-1, 784).astype(np.float64)
            lab = np.frombuffer(gzip.open(SHARED / "mnist" / f"{kind}-labels-idx1-ubyte.gz").read(), np.uint8,
                                offset=8)
            return img, (lab == 0).astype(int)
        Xtr, ytr = read("train")
        Xte, yte = read("t10k")
        return Xtr, ytr, Xte, yte, (np.zeros(784), np.full(784, 255.0))
    from experiments import uci

    ds = uci.load(name.replace("-", "_"))
    Xtr, Xte, ytr, yte = _split(ds.X, (ds.y > 0).astype(int))
    return Xtr, ytr, Xte, yte, None


def to_box(Xtr, Xte, box):
    if box is None:
        lo, hi = np.percentile(Xtr, 1, axis=0), np.percentile(Xtr, 99, axis=0)
        flat = hi <= lo
        lo, hi = np.where(flat, Xtr.min(axis=0), lo), np.where(flat, Xtr.max(axis=0), hi)
        hi = np.where(hi <= lo, lo + 1.0, hi)
    else:
        lo, hi = box
    f = lambda X: np.clip(2.0 * (X - lo) / (hi - lo) - 1.0, -1.0, 1.0)  # noqa: E731
    return f(Xtr), f(Xte)


def prepared(name):
    Xtr, ytr, Xte, yte, box = load_task(name)
    Xtr, ytr = _sub(Xtr, ytr, MAX_TRAIN, 0)
    Xte, yte = _sub(Xte, yte, MAX_TEST, 1)
    Xtr, Xte = to_box(Xtr, Xte, box)
    return Xtr, ytr, Xte, yte


def harness_task(name):
    """The task as ``benchmarks.utility.load_task`` preprocesses it (declared bounds, PublicScaler /
    PublicOneHotEncoder; numeric features in [-1, 1], counts / pixels / one-hot columns in [0, 1]): (Xtr, ytr, Xte,
    yte, meta); the stump bounds are meta["bounds"] (per feature), the halfspace data_norm meta["data_norm"]."""
    from benchmarks import utility

    return utility.load_task(name)


def model(kind, eps, bounds=(-1.0, 1.0), data_norm=1.0, **kw):
    from fast import PrivateBoostClassifier

    base = dict(epsilon=eps, delta=1e-6, classes=(0, 1))
    if kind == "halfspace":
        return PrivateBoostClassifier(**base, weak_learner="halfspace", data_norm=data_norm, **kw)
    if kind == "stump":
        return PrivateBoostClassifier(**base, weak_learner="stump", bounds=bounds, **kw)
    if kind == "smooth-stump":
        return PrivateBoostClassifier(**base, weak_learner="stump", booster="smooth", bounds=bounds, **kw)
    if kind == "default":
        return PrivateBoostClassifier(**base)
    raise ValueError(kind)


SCREEN = [("halfspace", dict(n_rounds=100, kappa=0.25)),
          ("stump", dict(n_rounds=10, kappa=0.25)), ("stump", dict(n_rounds=25, kappa=0.25)),
          ("stump", dict(n_rounds=50, kappa=0.25)), ("stump", dict(n_rounds=100, kappa=0.25)),
          ("stump", dict(n_rounds=25, kappa=0.1)), ("stump", dict(n_rounds=25, kappa=0.5)),
          ("stump", dict(n_rounds=10, kappa=0.5)), ("stump", dict(n_rounds=50, kappa=0.5)),
          ("stump", dict(n_rounds=10, kappa=0.75)), ("stump", dict(n_rounds=25, kappa=0.75)),
          ("stump", dict(n_rounds=50, kappa=0.75)),
          ("stump", dict(n_rounds=25, kappa=0.25, n_thresholds=8)),
          ("stump", dict(n_rounds=25, kappa=0.25, n_thresholds=32)),
          ("smooth-stump", dict(n_rounds=25, kappa=0.25))]


def run(tasks, configs, epsilons, reps, out, harness=False):
    from sklearn.linear_model import LogisticRegression

    with open(out, "a") as fh:
        for name in tasks:
            t0 = time.time()
            bound = {}
            if harness:
                Xtr, ytr, Xte, yte, meta = harness_task(name)
                bound = dict(bounds=(np.array(meta["bounds"][0]), np.array(meta["bounds"][1])),
                             data_norm=meta["data_norm"])
            else:
                Xtr, ytr, Xte, yte = prepared(name)
            maj = float(np.mean(yte != (ytr.mean() > 0.5)))
            lr = LogisticRegression(max_iter=2000).fit(Xtr, ytr)
            lr_err = float(np.mean(lr.predict(Xte) != yte))
            Htr = np.column_stack([np.ones(len(Xtr)), Xtr]) / math.sqrt(Xtr.shape[1] + 1)
            Hte = np.column_stack([np.ones(len(Xte)), Xte]) / math.sqrt(Xte.shape[1] + 1)
            print(f"{name}: n={len(ytr)} d={Xtr.shape[1]} majority={maj:.3f} LR={lr_err:.3f}", flush=True)
            for eps in epsilons:
                for kind, kw in configs:
                    errs, secs = [], []
                    for _ in range(reps):
                        clf = model(kind, eps, **kw, **bound)
                        a, b = (Htr, Hte) if kind == "halfspace" and not harness else (Xtr, Xte)
                        s = time.time()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            clf.fit(a, ytr)
                        secs.append(time.time() - s)
                        errs.append(float(np.mean(clf.predict(b) != yte)))
                    err = float(np.mean(errs))
                    gap = (maj - err) / (maj - lr_err) if maj > lr_err else float("nan")
                    rec = dict(task=name, harness=harness, n=len(ytr), d=Xtr.shape[1], eps=eps, kind=kind, **kw, err=err,
                               sd=float(np.std(errs)), majority=maj, lr=lr_err, gap=gap, secs=float(np.mean(secs)))
                    fh.write(json.dumps(rec) + "\n")
                    fh.flush()
                    print(f"  eps={eps} {kind} {kw}: err={err:.3f} sd={np.std(errs):.3f} gap={gap:.2f} "
                          f"({np.mean(secs):.2f}s)", flush=True)
            print(f"  [{time.time() - t0:.0f}s]", flush=True)


TASKS = ("adult", "cod-rna", "covtype", "mnist", "spambase", "wine-white", "abalone", "banknote")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--stage", default="screen")
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--eps", default="1")
    p.add_argument("--configs", default=None, help="JSON list of [kind, kwargs]")
    p.add_argument("--out", default="/tmp/boosting_defaults.jsonl")
    p.add_argument("--harness", action="store_true", help="tasks as benchmarks.utility.load_task preprocesses them")
    a = p.parse_args(argv)
    configs = SCREEN if a.configs is None else [(k, kw) for k, kw in json.loads(a.configs)]
    run(a.tasks.split(","), configs, [float(e) for e in a.eps.split(",")], a.reps, a.out, harness=a.harness)


if __name__ == "__main__":
    main()
