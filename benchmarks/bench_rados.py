"""Benchmarks of fast.rados (nock2015 s2): prints ratios measured in ONE run (not a pytest test).

1. Rado generation, m = 1e5 examples, n = 1e4 signatures, d = 100 and d = 10: fast.rados (8-bit subset-sum
   tables indexed by the SWAR-gathered sign bits of each 8-signature word, SLP-vectorised, numba) vs the dense float64 GEMM formulation (0/1 support matrix times E, chunked so its
   temporaries stay <= 256 MiB), timed interleaved.  Targets: >= 1x at d = 100, >= 5x at d = 10.
2. Rado risks (exp, eq. 2, and logistic, eq. 4) over 1e4 x 100 rados: effective bandwidth (bytes of the rado
   matrix / time) against the DRAM read bandwidth measured in the same run.  Target: >= 50 %.
3. fast / reference speed-ups on mid-size problems.

Usage: ``python -m benchmarks.bench_rados [--quick] [--threads 1]`` (quick: m = 2e4, n = 2e3).  With
``--threads 1`` BLAS and numba run single-threaded and times are CPU times (time.process_time), the honest
measure on a shared, oversubscribed machine (notes/perf-baselines.md); ratios are then per core.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from benchmarks import _timing

if __name__ == "__main__":  # before numpy / numba are imported
    # OpenMP threads that spin at barriers steal the CPU of the working threads on an oversubscribed machine
    # (measured: 2-thread table kernel 5.2 s with the default policy, 1.5 s passive, 0.9 s on one thread)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if "--threads" in sys.argv:
        _timing.limit_threads(int(sys.argv[sys.argv.index("--threads") + 1]))

import numpy as np  # noqa: E402

import fast.rados as F  # noqa: E402
import reference.rados as R  # noqa: E402
from benchmarks._timing import best_of, gemm_gflops, interleaved, memory_bandwidth_gbs  # noqa: E402

GEMM_CHUNK_BYTES = 256 * 1024**2


def gemm_formulation(X, y, sigmas):
    """Pi = B E with B = [sigma == y] as float64 (n, m), in row chunks of <= GEMM_CHUNK_BYTES; E = y * X."""
    E = y[:, None] * X
    n, m = sigmas.shape
    out = np.empty((n, X.shape[1]))
    step = max(1, GEMM_CHUNK_BYTES // (8 * m))
    for start in range(0, n, step):
        B = (sigmas[start:start + step] == y[None, :]).astype(np.float64)
        np.matmul(B, E, out=out[start:start + step])
    return out


def random_signatures(m, n, seed):
    """Uniform (n, m) int8 signatures, generated in blocks (fast input generation, not the benchmarked code)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, m), dtype=np.int8)
    step = max(1, (64 * 1024**2) // m)
    for start in range(0, n, step):
        block = rng.integers(0, 2, size=(min(step, n - start), m), dtype=np.int8)
        out[start:start + step] = 2 * block - 1
    return out


def bench_generation(m, n, repeat):
    rng = np.random.default_rng(1)
    y = rng.choice(np.array([-1, 1], dtype=np.int8), m)
    sigmas = random_signatures(m, n, 2)
    print(f"signatures: ({n}, {m}) int8 = {sigmas.nbytes / 1e9:.2f} GB input")
    results = {}
    for d in (100, 10):
        X = rng.normal(size=(m, d))
        F.rados(X[:64], y[:64], sigmas[:64, :64], method="table")  # compile outside the timing
        check = np.abs(F.rados(X, y, sigmas[:50], method="table") - gemm_formulation(X, y, sigmas[:50])).max()
        timing = interleaved({
            "table": lambda: F.rados(X, y, sigmas, method="table"),
            "gemm": lambda: gemm_formulation(X, y, sigmas),
        }, repeat=repeat, warmup=0)
        t_table, t_gemm = timing["table"][0], timing["gemm"][0]
        flops = 2.0 * m * n * d
        print(f"d = {d:3d}: fast.rados (table) {t_table:7.3f} s | GEMM formulation {t_gemm:7.3f} s "
              f"({flops / t_gemm / 1e9:5.1f} GF/s) | speed-up {t_gemm / t_table:5.2f}x "
              f"(medians {timing['table'][1]:.3f} / {timing['gemm'][1]:.3f} s) | max |diff| {check:.1e}")
        results[d] = t_gemm / t_table
    print(f"  fast.rados(method='auto') uses the table kernel for m >= 64 and d <= {F.TABLE_MAX_D}")
    return results


def bench_risks(repeat):
    rng = np.random.default_rng(3)
    n, d = 10_000, 100
    P = rng.normal(size=(n, d)) * 10
    theta = rng.normal(size=d) * 0.1
    bw = memory_bandwidth_gbs()
    t_exp = best_of(lambda: F.exp_rado_risk(P, theta), repeat * 10)
    t_log = best_of(lambda: F.log_rado_risk(P, theta, 1000), repeat * 10)
    t_matvec = best_of(lambda: P @ theta, repeat * 10)
    for name, t in (("exp_rado_risk", t_exp), ("log_rado_risk", t_log), ("bare matvec P @ theta", t_matvec)):
        gbs = P.nbytes / t / 1e9
        print(f"{name:22s} {t * 1e3:7.3f} ms = {gbs:6.1f} GB/s effective = {100 * gbs / bw['read']:5.0f} % of "
              f"DRAM read bandwidth ({bw['read']:.1f} GB/s; copy {bw['copy']:.1f} GB/s)")
    return {"exp": P.nbytes / t_exp / 1e9 / bw["read"], "log": P.nbytes / t_log / 1e9 / bw["read"]}


def bench_reference(repeat):
    rng = np.random.default_rng(4)
    cases = []
    m, d, n = 2000, 10, 50
    X, y = rng.normal(size=(m, d)), rng.choice([-1, 1], m)
    S = F.sample_signatures(y, n, rng=5)
    theta = rng.normal(size=d)
    cases.append(("rados m=2000 d=10 n=50", lambda: R.rados(X, y, S), lambda: F.rados(X, y, S)))
    cases.append(("logistic_risk m=2000 d=10", lambda: R.logistic_risk(X, y, theta),
                  lambda: F.logistic_risk(X, y, theta)))
    P = F.rados(X, y, S)
    cases.append(("log_rado_risk n=50 d=10", lambda: R.log_rado_risk(P, theta, m), lambda: F.log_rado_risk(P, theta, m)))
    X10, y10 = X[:10], y[:10]
    cases.append(("all_rados m=10 d=10", lambda: R.all_rados(X10, y10), lambda: F.all_rados(X10, y10)))
    cases.append(("sample_signatures m=2000 n=50", lambda: R.sample_signatures(y, n, rng=1),
                  lambda: F.sample_signatures(y, n, rng=1)))
    for name, ref, fast in cases:
        t_ref = best_of(ref, 1, warmup=0)
        t_fast = best_of(fast, repeat * 3)
        print(f"{name:32s} reference {t_ref * 1e3:9.1f} ms | fast {t_fast * 1e3:8.3f} ms | fast/reference speed-up "
              f"{t_ref / t_fast:8.0f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="m = 2e4, n = 2e3 instead of 1e5, 1e4")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="limit BLAS/numba threads (1: CPU-time clock)")
    args = parser.parse_args()
    if args.threads == 1:
        _timing.CLOCK = time.process_time
    import numba

    print(f"threads: numba {numba.get_num_threads()}, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}, "
          f"clock {_timing.CLOCK.__name__}")
    m, n = (20_000, 2_000) if args.quick else (100_000, 10_000)
    start = time.perf_counter()
    print(f"machine: GEMM f64 {gemm_gflops():.1f} GF/s measured now")
    gen = bench_generation(m, n, args.repeat)
    risks = bench_risks(args.repeat)
    bench_reference(args.repeat)
    print("\nsummary (targets): "
          f"table/GEMM d=100 {gen[100]:.2f}x (>= 1), d=10 {gen[10]:.2f}x (>= 5); "
          f"risk bandwidth exp {100 * risks['exp']:.0f} %, log {100 * risks['log']:.0f} % (>= 50 %); "
          f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
