"""Why RadoBoost on ``gaussian_edges`` rados learns little at epsilon ~ 1 (issue 26 item 2): the numbers.

For Adult, spambase and cod-rna (training rows subsampled to <= 20,000, test <= 10,000), at (epsilon, delta) =
(1, 1e-5): the delivered noise sigma per coordinate of each edge, the signal of a rado against its noise, the
signal of the mean edge against its noise, and the test error of

* majority class, LogisticRegression (non-private), non-private RadoBoostClassifier;
* RadoBoostClassifier with ``privacy=gaussian_edges`` over supports, rounds, weak learners, intercept;
* two post-processings of the same noisy edges that need no boosting: the mean noisy edge as the classifier
  ("centroid", theta = sum_i e~_i) and the same with its intercept coordinate re-fit.

Features are mapped by PUBLIC transformations (Adult and spambase: experiments.private_boosting's; cod-rna: the
file's own min/max per column as a stand-in for declared bounds, stated as such) and rows clipped to ``clip``.

Run: ``nice python -m experiments.dp_rados_diagnosis [--quick]`` (writes docs/experiments/dp_rados/diagnosis.json).
"""
from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "docs" / "experiments" / "dp_rados" / "diagnosis.json"
MAX_TRAIN, MAX_TEST = 20_000, 10_000


def _sub(X, y, k, seed):
    if len(y) <= k:
        return X, y
    idx = np.random.default_rng(seed).choice(len(y), k, replace=False)
    return X[idx], y[idx]


def load(name):
    """(Xtr, ytr, Xte, yte, clip, note): features by a public map, y in {0, 1}, clip = a public row-norm bound."""
    from experiments import private_boosting as pb

    if name == "adult":
        Xtr, ytr, Xte, yte = pb.load_adult(DATA / "uci")
        clip = math.sqrt(15.0)  # constant 1 + 6 numeric in [0, 1] + 8 one-hot blocks: ||x|| <= sqrt(15), public
        note = "experiments.private_boosting.load_adult (public scales, one-hot, constant first)"
    elif name == "spambase":
        Xtr, ytr, Xte, yte = pb.load_spambase(DATA / "uci")
        clip = math.sqrt(Xtr.shape[1])  # every coordinate in [0, 1]
        note = "experiments.private_boosting.load_spambase (log maps to [0, 1], constant first)"
    elif name == "cod-rna":
        from sklearn.model_selection import train_test_split

        raw = np.loadtxt(DATA / "libsvm" / "cod-rna.csv", delimiter=",", skiprows=1)
        X, y = raw[:, :-1], (raw[:, -1] > 0).astype(int)
        lo, hi = X.min(axis=0), X.max(axis=0)  # stand-in for declared bounds (not computed privately)
        X = np.column_stack([np.ones(len(y)), np.clip((2 * X - lo - hi) / (hi - lo), -1, 1)])
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
        clip = math.sqrt(X.shape[1])
        note = "libsvm cod-rna, columns mapped to [-1, 1] by the file's min/max (stand-in bounds), constant first"
    else:
        raise ValueError(name)
    Xtr, ytr = _sub(Xtr, ytr, MAX_TRAIN, 0)
    Xte, yte = _sub(Xte, yte, MAX_TEST, 1)
    return Xtr, ytr, Xte, yte, clip, note


def _err(pred, y):
    return float(np.mean(pred != y))


def snr(Xtr, ytr, clip, eps, delta, support):
    """Signal and noise of the release (the estimator's clipping; sigma = the delivered discrete-Gaussian sd)."""
    from fast.dp_rados import clip_rows
    from fast.mechanisms import gaussian_grid

    m, d = Xtr.shape
    g = gaussian_grid(2.0 * clip, eps, delta, dimension=d)
    sigma = math.sqrt(g.sigma2_grid) * g.granularity
    E = np.where(ytr == 1, 1.0, -1.0)[:, None] * clip_rows(Xtr, clip)
    ebar = E.mean(axis=0)
    s = support if isinstance(support, int) else max(1, round(support * m))
    f = s / m
    spread_signal = math.sqrt(s * (1 - f) * float(np.sum(E.var(axis=0))))  # rado-to-rado, over fixed-support J
    return {
        "m": m, "d": d, "clip": clip, "sigma": sigma, "support": s,
        "edge_norm_mean": float(np.mean(np.linalg.norm(E, axis=1))),
        "edge_noise_norm": sigma * math.sqrt(d),
        "mean_edge_norm": float(np.linalg.norm(ebar)),
        "mean_edge_noise_norm": sigma * math.sqrt(d / m),
        "rado_signal_norm": s * float(np.linalg.norm(ebar)),
        "rado_signal_norm_max_public": s * clip,
        "rado_noise_norm": sigma * math.sqrt(s * d),
        "rado_spread_signal": spread_signal,
        "rado_spread_noise": sigma * math.sqrt(s * (1 - f) * d),
    }


def centroid_errors(Xtr, ytr, Xte, yte, clip, eps, delta, seed):
    """theta = sum of the noisy edges (post-processing of the release), with and without its intercept re-fit from
    the noisy edges' own label balance (the constant feature's coordinate)."""
    from fast.dp_rados import noisy_edges

    y = np.where(ytr == 1, 1, -1)
    E = noisy_edges(Xtr, y, eps, delta, clip=clip, rng=np.random.default_rng(seed))
    theta = E.sum(axis=0)
    pred = (Xte @ theta > 0).astype(int)
    return _err(pred, yte)


def run(names, quick):
    from sklearn.linear_model import LogisticRegression

    from fast.dp_rados import gaussian_edges
    from fast.estimators.rados import RadoBoostClassifier

    eps, delta = 1.0, 1e-5
    seeds = (0,) if quick else (0, 1, 2)
    out = {}
    for name in names:
        t0 = time.perf_counter()
        Xtr, ytr, Xte, yte, clip, note = load(name)
        res = {"note": note, "m": int(len(ytr)), "d": int(Xtr.shape[1]), "clip": clip,
               "majority": float(min(np.mean(yte), 1 - np.mean(yte)))}
        res["logreg"] = _err(LogisticRegression(max_iter=3000).fit(Xtr, ytr).predict(Xte), yte)
        res["radoboost_nonprivate"] = _err(RadoBoostClassifier(1000, random_state=0).fit(Xtr, ytr).predict(Xte), yte)
        res["snr"] = {str(s): snr(Xtr, ytr, clip, eps, delta, s) for s in (10, 100, 0.5)}
        res["centroid"] = float(np.mean([centroid_errors(Xtr, ytr, Xte, yte, clip, eps, delta, s) for s in seeds]))
        grid = {}
        configs = [("default s=0.5 T=1000", dict(n_rounds=1000), 0.5)]
        if not quick:
            configs += [(f"s={s} T=1000", dict(n_rounds=1000), s) for s in (10, 100, 0.05, 0.2, 0.8)]
            configs += [(f"s=0.5 T={T}", dict(n_rounds=T), 0.5) for T in (10, 50, 300)]
            configs += [("s=0.5 median", dict(n_rounds=1000, weak_learner="median"), 0.5)]
            configs += [("s=0.5 n_rados=50", dict(n_rounds=1000, n_rados=50), 0.5)]
        for label, kw, s in configs:
            errs = []
            for seed in seeds:
                clf = RadoBoostClassifier(privacy=gaussian_edges(eps, delta, s, clip=clip), classes=(0, 1),
                                          random_state=seed, **kw).fit(Xtr, ytr)
                errs.append(_err(clf.predict(Xte), yte))
            grid[label] = float(np.mean(errs))
        res["private_radoboost"] = grid
        res["seconds"] = time.perf_counter() - t0
        out[name] = res
        print(json.dumps({name: res}, indent=1), flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--names", default="adult,spambase,cod-rna")
    args = ap.parse_args(argv)
    out = run(args.names.split(","), args.quick)
    if not args.quick:
        OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()


def sweep(names=("adult", "cod_rna", "covertype", "letter", "spambase"), epsilons=(1.0, 4.0, 16.0, 64.0),
          delta=1e-6, seeds=(0, 1)):
    """Test error against epsilon on the utility benchmark's tasks (benchmarks.utility.load_task: declared bounds,
    <= 20,000 training rows), with the public noise-to-signal ratio of the release: RadoBoostClassifier with
    gaussian_edges(eps, delta, 0.5) at clip 1 (the benchmark's call before issue 26) and at clip = the public row
    bound sqrt(d), both with the estimator's defaults of the time; the centroid of the noisy edges."""
    from sklearn.linear_model import LogisticRegression

    from benchmarks.utility import load_task
    from fast.dp_rados import gaussian_edges
    from fast.estimators.rados import RadoBoostClassifier
    from fast.mechanisms import gaussian_grid

    out = {}
    for name in names:
        Xtr, ytr, Xte, yte, meta = load_task(name, cache=False)
        m, d = Xtr.shape
        res = {"m": m, "d": d, "majority": float(min(np.mean(yte), 1 - np.mean(yte))),
               "logreg": _err(LogisticRegression(max_iter=3000).fit(Xtr, ytr).predict(Xte), yte), "eps": {}}
        for eps in epsilons:
            g = gaussian_grid(2.0, eps, delta, dimension=d)
            sigma = math.sqrt(g.sigma2_grid) * g.granularity / 2.0  # per unit of clip
            row = {"noise_to_signal": sigma * math.sqrt(d / m)}
            for label, clip in (("rado clip=1", 1.0), ("rado clip=sqrt(d)", math.sqrt(d))):
                errs = []
                for seed in seeds:
                    clf = RadoBoostClassifier(privacy=gaussian_edges(eps, delta, 0.5, clip=clip), classes=(0, 1),
                                              random_state=seed).fit(Xtr, ytr)
                    errs.append(_err(clf.predict(Xte), yte))
                row[label] = float(np.mean(errs))
            row["centroid clip=sqrt(d)"] = float(np.mean(
                [centroid_errors(Xtr, ytr, Xte, yte, math.sqrt(d), eps, delta, s) for s in seeds]))
            res["eps"][str(eps)] = row
            print(name, eps, json.dumps(row), flush=True)
        out[name] = res
    return out
