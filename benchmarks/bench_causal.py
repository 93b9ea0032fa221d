"""Benchmarks of the private ANM (kusner2016 ch4): ratios measured in one run.

    .venv/bin/python -m benchmarks.bench_causal [--no-textbook]

1. PrivateANM.fit on one pair with N = 2000 (1000 train / 1000 test), each score: target < 1 s.
2. hsic_score at m = 10^4 vs the textbook trace(K H L H) with dense matrix products: target >= 20x.
3. kendall_score at m = 10^6 vs scipy.stats.kendalltau: target within 2x.
4. fast vs reference at sizes the pure-Python reference handles.
Times are wall-clock minima over repetitions (the machine is shared; see notes/perf-baselines.md).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.stats

import fast.causal as F
import fast.causal_privacy as FP
import reference.causal as R
import reference.causal_privacy as RP
from benchmarks import _timing
from fast.estimators.causal import PrivateANM


def best_of(func, reps=3):
    """Least wall time of ``reps`` runs (no warm-up)."""
    return _timing.best_of(func, reps, warmup=0)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-textbook", action="store_true", help="skip the O(m^3) textbook HSIC (about 1-2 min)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    # warm numba caches
    F.kendall_score(np.arange(5.0), np.arange(5.0))
    F.hsic_score(np.arange(5.0), np.arange(5.0))

    print("1. PrivateANM.fit, N = 2000 (target < 1 s)")
    x = rng.uniform(-1, 1, 2000)
    y = np.tanh(3 * x) + 0.3 * rng.uniform(-1, 1, 2000)
    for score in ("spearman", "kendall", "hsic", "iqr"):
        t = best_of(lambda: PrivateANM(score, epsilon=1.0, random_state=1).fit(x, y))
        print(f"   {score:9s} {t:.3f} s  {'OK' if t < 1 else 'SLOW'}")

    print("2. hsic_score, m = 10^4, vs textbook trace(K@H@L@H)/(m-1)^2 (target >= 20x)")
    m = 10 ** 4
    a = rng.normal(size=m)
    b = a + rng.normal(size=m)
    t_fast = best_of(lambda: F.hsic_score(a, b), reps=3)
    print(f"   fast O(m^2), O(m) memory: {t_fast:.3f} s")
    if not args.no_textbook:
        def textbook():
            K = np.exp(-((a[:, None] - a[None, :]) ** 2) / (2 * 0.5 ** 2))
            L = np.exp(-((b[:, None] - b[None, :]) ** 2) / (2 * 0.5 ** 2))
            H = np.eye(m) - 1.0 / m
            return np.trace(K @ H @ L @ H) / (m - 1) ** 2

        t0 = time.perf_counter()
        value = textbook()
        t_text = time.perf_counter() - t0
        print(f"   textbook (3 dense GEMMs, 1 rep): {t_text:.1f} s; ratio {t_text / t_fast:.0f}x; "
              f"|difference| = {abs(value - F.hsic_score(a, b)):.1e}")

    print("3. kendall_score, m = 10^6, vs scipy.stats.kendalltau (target within 2x)")
    m = 10 ** 6
    a = rng.normal(size=m)
    b = a + rng.normal(size=m)
    t_fast = best_of(lambda: F.kendall_score(a, b))
    t_scipy = best_of(lambda: scipy.stats.kendalltau(a, b))
    print(f"   fast {t_fast:.3f} s, scipy {t_scipy:.3f} s, ratio fast/scipy {t_fast / t_scipy:.2f}")
    ai = rng.integers(0, 100, m).astype(float)
    bi = (ai + rng.integers(0, 20, m)).astype(float)
    t_fast = best_of(lambda: F.kendall_score(ai, bi))
    t_scipy = best_of(lambda: scipy.stats.kendalltau(ai, bi))
    print(f"   heavy ties: fast {t_fast:.3f} s, scipy {t_scipy:.3f} s, ratio {t_fast / t_scipy:.2f}")

    print("4. fast vs reference")
    a = rng.normal(size=300)
    b = a + rng.normal(size=300)
    cases = [
        ("spearman_score m=300", lambda mod: mod.spearman_score(a, b)),
        ("kendall_score m=300", lambda mod: mod.kendall_score(a, b)),
        ("hsic_score m=300", lambda mod: mod.hsic_score(a, b)),
        ("krr_predict n=120", lambda mod: mod.krr_predict(a[:120], b[:120], a[120:240], lam=0.01, bandwidth=0.5)),
        ("anm hsic N=200", lambda mod: mod.anm(a[:200], b[:200], score="hsic", rng=0)),
    ]
    for name, call in cases:
        t_ref = best_of(lambda: call(R), reps=1)
        t_fast = best_of(lambda: call(F))
        print(f"   {name:22s} reference {t_ref * 1e3:9.1f} ms  fast {t_fast * 1e3:7.2f} ms  ratio {t_ref / t_fast:7.0f}x")
    v = rng.normal(size=2000)
    t_ref = best_of(lambda: RP.iqr_ptr(v, epsilon=1.0, delta=1e-6, rng=0), reps=1)
    t_fast = best_of(lambda: FP.iqr_ptr(v, epsilon=1.0, delta=1e-6, rng=0))
    print(f"   {'iqr_ptr m=2000':22s} reference {t_ref * 1e3:9.1f} ms  fast {t_fast * 1e3:7.2f} ms  ratio {t_ref / t_fast:7.0f}x")


if __name__ == "__main__":
    main()
