"""Benchmarks of ASTC (kusner2016 ch. 2): ratios measured in one run.

    .venv/bin/python -m benchmarks.bench_astc

1. A depth-5 tree (31 nodes) on 10^5 x 54 (Forest cover type, 100k stratified sample when staged, else Gaussian
   data of that shape) vs the peer a user would write: one scikit-learn LinearRegression per node on the same
   data (the node's rows, all 54 features), routed by the same thresholds.  Target: within 5x.  With default
   threading and with one thread (threadpoolctl).
2. One node's greedy (eq. 2.15, one product q^T X per step for all candidates) vs the naive greedy of s2.1.6
   (one weighted lstsq per candidate per step) on 2 x 10^4 x 54.
3. fast vs reference (pure Python) on a mid-size problem: fit_tree on 400 x 12, depth 3.
Times are wall-clock minima over repetitions (the machine is shared).
"""
from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
from sklearn.linear_model import LinearRegression
from threadpoolctl import threadpool_limits

import fast.budgeted as F
import reference.budgeted as R
from benchmarks import _timing

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci" / "covtype_100k_stratified_seed0.data.gz"


def load():
    if DATA.exists():
        D = np.loadtxt(gzip.open(DATA), delimiter=",")
        X, y = D[:, :-1], np.where(D[:, -1] == 2, 1.0, -1.0)
        src = "covtype 100k (class 2 vs rest)"
    else:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(100_000, 54))
        y = np.sign(X @ rng.normal(size=54) + rng.normal(size=100_000))
        src = "Gaussian 1e5 x 54"
    mean = X.mean(0)
    scale = np.linalg.norm(X - mean, axis=0)
    return (X - mean) / np.where(scale > 0, scale, 1.0), y, src


def per_node_linear_regression(X, y, model):
    """The peer: one LinearRegression per node on the rows the ASTC tree sends there (all features)."""
    n_nodes = len(model.features)
    node_of = np.zeros(len(y), dtype=np.int64)
    for k in range(n_nodes):
        rows = np.flatnonzero(node_of == k)
        if rows.size < 2:
            continue
        LinearRegression().fit(X[rows], y[rows])
        if k < n_nodes // 2:
            s = model.intercept[k] + X[rows] @ model.coef[k]
            node_of[rows] = 2 * k + 1 + (s > model.threshold[k])


def naive_greedy(X, y, budget_steps):
    """s2.1.6's naive way: a least-squares fit per candidate per step."""
    n, d = X.shape
    Xc, yc = X - X.mean(0), y - y.mean()
    chosen = []
    for _ in range(budget_steps):
        best, jb = -math.inf, -1
        for a in range(d):
            if a in chosen:
                continue
            A = Xc[:, chosen + [a]]
            r = yc - A @ np.linalg.lstsq(A, yc, rcond=None)[0]
            gain = -(r @ r)
            if gain > best:
                best, jb = gain, a
        chosen.append(jb)
    return chosen


def main():
    X, y, src = load()
    n, d = X.shape
    costs = np.ones(d)
    print(f"1. depth-5 ASTC tree vs one sklearn LinearRegression per node ({src}, {n} x {d}); target within 5x")
    for threads in (None, 1):
        with threadpool_limits(limits=threads):
            for nb, label in ((math.inf, "node budget inf (every node runs the greedy to the end)"),
                              (10.0, "node budget 10")):
                model = F.fit_tree(X, y, costs, 5, nb)
                times = _timing.interleaved({
                    "astc": lambda: F.fit_tree(X, y, costs, 5, nb),
                    "peer": lambda: per_node_linear_regression(X, y, model),
                }, repeat=2)
                ta, tp = times["astc"][0], times["peer"][0]
                steps = sum(len(f) for f in model.features)
                print(f"   threads={threads or 'default'}  {label}: ASTC {ta:.3f} s ({steps} greedy steps), "
                      f"31 x LinearRegression {tp:.3f} s, ratio {ta / tp:.2f}x {'OK' if ta <= 5 * tp else 'SLOW'}")

    print("2. one node's greedy, 2e4 x 54, 20 steps: one product per step vs a lstsq per candidate")
    Xs, ys = X[:20_000], y[:20_000]
    tf = _timing.best_of(lambda: F.greedy_select(Xs, ys, costs, 20.0), 3)
    tn = _timing.best_of(lambda: naive_greedy(Xs, ys, 20), 1, warmup=0)
    assert F.greedy_select(Xs, ys, costs, 20.0)[:5] == naive_greedy(Xs, ys, 5)
    print(f"   fast greedy {tf * 1e3:.1f} ms, naive {tn:.2f} s, speed-up {tn / tf:.0f}x")

    print("3. fast vs reference: fit_tree on 400 x 12, depth 3, node budget 3")
    rng = np.random.default_rng(1)
    Xm = rng.normal(size=(400, 12))
    ym = np.sign(Xm @ rng.normal(size=12) + rng.normal(size=400))
    tr = _timing.best_of(lambda: R.fit_tree(Xm, ym, np.ones(12), 3, 3.0), 1, warmup=0)
    tf = _timing.best_of(lambda: F.fit_tree(Xm, ym, np.ones(12), 3, 3.0), 5)
    print(f"   reference {tr:.2f} s, fast {tf * 1e3:.2f} ms, ratio {tr / tf:.0f}x")


if __name__ == "__main__":
    main()
