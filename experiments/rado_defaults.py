"""Measuring the defaults of the NON-private RadoBoostClassifier on real data (issue 26 items 1-2).

Grid: signatures (uniform, as in nock2015 s4, or fixed support m* in SUPPORTS), features raw or standardised (mean
and sd of the training fold), intercept (a constant feature) or not; T = 1000 rounds, n = min(1000, m/2) rados,
strong weak learner, keep_best.  Test error (stratified 70/30 split, seeds 0..2, training rows <= 20,000) against
LogisticRegression (standardised, C = 1) and the majority class.

Run: ``nice python -m experiments.rado_defaults`` (writes docs/experiments/dp_rados/rado_defaults.json).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "experiments" / "dp_rados" / "rado_defaults.json"
SUPPORTS = (None, 1, 3, 10, 30)
NAMES = ("adult", "cod-rna", "spambase", "abalone", "wine_white", "banknote", "pima", "transfusion")


def load(name):
    """(X, y in {0, 1}) raw features (Adult: one-hot + public scales; cod-rna: raw)."""
    from experiments import dp_rados_diagnosis as dg
    from experiments.uci import load as uci_load

    if name == "adult":
        from experiments import private_boosting as pb

        Xtr, ytr, Xte, yte = pb.load_adult(dg.DATA / "uci")
        X, y = np.vstack([Xtr, Xte])[:, 1:], np.concatenate([ytr, yte])  # drop its constant column
    elif name == "spambase":
        raw = np.loadtxt(dg.DATA / "uci" / "spambase.data", delimiter=",")
        X, y = raw[:, :-1], raw[:, -1].astype(int)
    elif name == "cod-rna":
        raw = np.loadtxt(dg.DATA / "libsvm" / "cod-rna.csv", delimiter=",", skiprows=1)
        X, y = raw[:, :-1], (raw[:, -1] > 0).astype(int)
    else:
        ds = uci_load(name)
        X, y = ds.X, (ds.y > 0).astype(int)
    return X, y


def split(X, y, seed, max_train=20_000, max_test=10_000):
    from sklearn.model_selection import train_test_split

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    g = np.random.default_rng(seed)
    if len(ytr) > max_train:
        i = g.choice(len(ytr), max_train, replace=False)
        Xtr, ytr = Xtr[i], ytr[i]
    if len(yte) > max_test:
        i = g.choice(len(yte), max_test, replace=False)
        Xte, yte = Xte[i], yte[i]
    return Xtr, ytr, Xte, yte


def run(names, seeds, supports, estimator_defaults=False):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fast.estimators.rados import RadoBoostClassifier

    out = {}
    for name in names:
        t0 = time.perf_counter()
        X, y = load(name)
        res = {"m": int(len(y)), "d": int(X.shape[1]), "majority": [], "logreg": [], "grid": {}}
        for seed in seeds:
            Xtr, ytr, Xte, yte = split(X, y, seed)
            res["majority"].append(float(min(np.mean(yte), 1 - np.mean(yte))))
            lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=3000)).fit(Xtr, ytr)
            res["logreg"].append(float(np.mean(lr.predict(Xte) != yte)))
            mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
            sd[sd == 0] = 1.0
            if estimator_defaults:
                clf = RadoBoostClassifier(random_state=seed).fit(Xtr, ytr)
                res["grid"].setdefault("estimator defaults", []).append(float(np.mean(clf.predict(Xte) != yte)))
                continue
            for scale in ("raw", "std"):
                A, B = (Xtr, Xte) if scale == "raw" else ((Xtr - mu) / sd, (Xte - mu) / sd)
                for icpt in (False, True):
                    for s in supports:
                        clf = RadoBoostClassifier(1000, support=s, fit_intercept=icpt, random_state=seed,
                                                  **({} if scale == "std" else {})).fit(A, ytr)
                        key = f"{scale} intercept={icpt} support={s}"
                        res["grid"].setdefault(key, []).append(float(np.mean(clf.predict(B) != yte)))
        res = {k: (float(np.mean(v)) if isinstance(v, list) else v) for k, v in res.items()}
        res["grid"] = {k: float(np.mean(v)) for k, v in res["grid"].items()}
        res["seconds"] = time.perf_counter() - t0
        out[name] = res
        print(name, json.dumps(res, indent=1), flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", default=",".join(NAMES))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--estimator-defaults", action="store_true", help="only the estimator at its defaults")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = run(args.names.split(","), range(args.seeds), SUPPORTS, args.estimator_defaults)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
