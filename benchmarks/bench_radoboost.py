"""RadoBoost benchmarks: fast vs memory bandwidth, fast vs reference, fit time and error vs scikit-learn.

Run: ``python benchmarks/bench_radoboost.py`` (plain script, not collected by pytest).  All ratios are measured in
this one run (min over repetitions, wall clock; the machine is shared, so min is the robust statistic).

1. fast radoboost, T = 1000, n = 10^4 rados, d = 100, against the time to stream the rado matrix (8 MB) from
   memory T times, measured here (numpy sum over the Fortran-ordered matrix, one pass = 8 MB read).
   Target: within 2x.  Each round needs one pass (the edges w^T Pi); see fast/radoboost.py for why no exact
   incremental update avoids it.
2. fast / reference speed-up (RadoBoost and Omega-R.AdaBoost with SLOPE, small problems: the reference is pure Python).
3. Fit time and test error of RadoBoostClassifier / OmegaRAdaBoostClassifier vs scikit-learn LogisticRegression
   and AdaBoostClassifier on the breast cancer set (70/30 split).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fast.radoboost  # noqa: E402
from benchmarks import _timing  # noqa: E402
import reference.radoboost  # noqa: E402


def best_of(fn, reps=3, clock=time.perf_counter):
    """Least time of ``reps`` runs of ``fn`` on ``clock`` (no warm-up)."""
    return _timing.best_of(fn, reps, warmup=0, clock=clock)


def bandwidth_ratio(n=10_000, d=100, T=1000):
    """Both clocks: wall (min over reps; inflated when the shared machine is loaded) and single-thread process CPU
    time with BLAS limited to one thread (what docs of the machine call the robust figure)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    Pi = np.asfortranarray(rng.normal(size=(n, d)) + 0.05 * rng.normal(size=d))
    w = np.full(n, 1.0 / n)
    res = fast.radoboost.radoboost(Pi, T)
    print(f"[1] n={n} d={d} T={T} (rounds run: {res.features.size}, stop: {res.stop_reason})")
    for label, clock, limit in (("wall, default threads", time.perf_counter, None),
                                ("CPU, 1 thread", time.process_time, 1)):
        with threadpool_limits(limits=limit):
            one_pass = best_of(lambda: Pi.sum(), reps=50, clock=clock)
            gemv = best_of(lambda: w @ Pi, reps=50, clock=clock)
            run = best_of(lambda: fast.radoboost.radoboost(Pi, T), reps=3, clock=clock)
            run_omega = best_of(lambda: fast.radoboost.omega_radaboost(Pi, T, regularizer="lasso", omega=1e-3),
                                reps=2, clock=clock)
        stream = T * one_pass
        print(f"    [{label}] one pass over Pi (sum): {one_pass * 1e3:.3f} ms ({Pi.nbytes / one_pass / 1e9:.1f} GB/s);"
              f" gemv: {gemv * 1e3:.3f} ms; stream x T: {stream:.3f} s")
        print(f"    [{label}] fast radoboost {run:.3f} s -> ratio / stream = {run / stream:.2f} (target <= 2);"
              f" omega_radaboost (lasso) {run_omega:.3f} s -> {run_omega / stream:.2f}")


def speedup():
    rng = np.random.default_rng(1)
    Pi = rng.normal(size=(500, 10)) + 0.2
    ref = best_of(lambda: reference.radoboost.radoboost(Pi, 50), reps=1)
    fst = best_of(lambda: fast.radoboost.radoboost(Pi, 50), reps=5)
    print(f"[2] radoboost n=500 d=10 T=50: reference {ref:.3f} s, fast {fst * 1e3:.2f} ms, speed-up {ref / fst:.0f}x")
    kw = dict(regularizer="slope", omega=1e-2, regularizer_params={"q": 0.1})
    ref = best_of(lambda: reference.radoboost.omega_radaboost(Pi, 50, **kw), reps=1)
    fst = best_of(lambda: fast.radoboost.omega_radaboost(Pi, 50, **kw), reps=5)
    print(f"    omega_radaboost SLOPE: reference {ref:.3f} s, fast {fst * 1e3:.2f} ms, speed-up {ref / fst:.0f}x")


def versus_sklearn():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fast.estimators.rados import OmegaRAdaBoostClassifier, RadoBoostClassifier

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    models = {
        "RadoBoostClassifier(T=1000)": make_pipeline(StandardScaler(), RadoBoostClassifier(random_state=0)),
        "OmegaRAdaBoost(SLOPE, T=1000)": make_pipeline(StandardScaler(), OmegaRAdaBoostClassifier(
            regularizer="slope", omega=1e-3, regularizer_params={"q": 0.1}, random_state=0)),
        "sklearn LogisticRegression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "sklearn AdaBoostClassifier": AdaBoostClassifier(random_state=0),
    }
    print("[3] breast cancer (398 train / 171 test)")
    for name, model in models.items():
        t = best_of(lambda: model.fit(Xtr, ytr), reps=3)
        err = np.mean(model.predict(Xte) != yte)
        print(f"    {name:32s} fit {t * 1e3:8.1f} ms   test error {100 * err:5.2f} %")


if __name__ == "__main__":
    bandwidth_ratio()
    speedup()
    versus_sklearn()
