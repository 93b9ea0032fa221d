"""Private boosting (bun2020): before/after of the performance work, measured in ONE process.

Loads fast/measures.py and fast/private_boosting.py as they were at commit BEFORE (git show) next to the current
ones, and times, interleaved and repeated (least time; the machine is shared: only same-run ratios mean anything):
1. one LB-NxM round at n = 10^6 (kappa 0.05 and 0.25) against np.sort of the n gains;
2. lazy_bregman_boost at n = 10^5, d = 100 (per round) against its two BLAS passes (v @ X, X @ z).

Run: .venv/bin/python -m benchmarks.bench_private_boosting_before_after [--before 8aa4b62] [--rounds 30]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._timing import best_of, interleaved

BEFORE = "8aa4b62"


def _load(commit: str):
    def source(path):
        return subprocess.run(["git", "show", f"{commit}:{path}"], check=True, capture_output=True, text=True).stdout

    measures = types.ModuleType("_bun2020_before_measures")
    sys.modules[measures.__name__] = measures
    exec(compile(source("fast/measures.py"), "before/fast/measures.py", "exec"), measures.__dict__)
    pb = types.ModuleType("_bun2020_before_private_boosting")
    sys.modules[pb.__name__] = pb
    src = source("fast/private_boosting.py").replace("from fast.measures import", f"from {measures.__name__} import")
    exec(compile(src, "before/fast/private_boosting.py", "exec"), pb.__dict__)
    return pb


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=BEFORE)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    import fast.private_boosting as after

    before = _load(args.before)
    rng = np.random.default_rng(0)
    n = 10**6
    gains = rng.uniform(0, 1e4, n)
    print(f"before = {args.before}, after = working tree; least of interleaved repeats")
    print("1. one LB-NxM round, n = 10^6 (ms; ratio to np.sort)")
    for label, threads in (("default", None), ("1 thread", 1)):
        with threadpool_limits(limits=threads):
            for kappa in (0.05, 0.25):
                np.testing.assert_allclose(after.lb_nxm(gains, kappa, 0.1), before.lb_nxm(gains, kappa, 0.1),
                                           rtol=1e-12, atol=0)
                fns = {"before": lambda: before.lb_nxm(gains, kappa, 0.1),
                       "after": lambda: after.lb_nxm(gains, kappa, 0.1), "np.sort": lambda: np.sort(gains)}
                for clock_name, clock in (("wall", time.perf_counter), ("CPU ", time.process_time)):
                    t = interleaved(fns, repeat=7, clock=clock)
                    s = t["np.sort"][0]
                    print(f"   {label:9s} kappa={kappa} {clock_name}: before {t['before'][0]*1e3:7.2f} "
                          f"(x{t['before'][0]/s:.2f}), after {t['after'][0]*1e3:7.2f} (x{t['after'][0]/s:.2f}), "
                          f"np.sort {s*1e3:6.2f}")
    rng = np.random.default_rng(1)
    N, d = 10**5, 100
    X = rng.normal(size=(N, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] >= 0, 1, -1)
    v = rng.uniform(size=N)
    z = rng.normal(size=d)
    R = args.rounds
    a = after.lazy_bregman_boost(X, y, 5, 0.25, 0.05, 0.01, normalize=True, rng=0)
    b = before.lazy_bregman_boost(X, y, 5, 0.25, 0.05, 0.01, normalize=True, rng=0)
    np.testing.assert_allclose(a.hypotheses, b.hypotheses, rtol=1e-9, atol=1e-12)
    print(f"2. private LazyBregBoost round, n = 10^5, d = 100 ({R} rounds; ms per round; ratio to two passes; "
          f"wall with default threads, CPU time with one)")
    for label, threads in (("default", None), ("1 thread", 1)):
        with threadpool_limits(limits=threads):
            clock = time.process_time if threads == 1 else time.perf_counter  # one thread: CPU time
            tb, ta, tp = [], [], []
            for _ in range(3):  # interleaved by hand: runs are long
                tb.append(best_of(lambda: before.lazy_bregman_boost(X, y, R, 0.25, 0.05, 0.01, normalize=True,
                                                                    rng=0), repeat=1, warmup=0, clock=clock) / R)
                ta.append(best_of(lambda: after.lazy_bregman_boost(X, y, R, 0.25, 0.05, 0.01, normalize=True,
                                                                   rng=0), repeat=1, warmup=0, clock=clock) / R)
                tp.append(best_of(lambda: (v @ X, X @ z), repeat=10, clock=clock))
            p = min(tp)
            print(f"   {label:9s}: before {min(tb)*1e3:7.2f} (x{min(tb)/p:.2f}), after {min(ta)*1e3:7.2f} "
                  f"(x{min(ta)/p:.2f}), two passes {p*1e3:6.2f}")


if __name__ == "__main__":
    main()
