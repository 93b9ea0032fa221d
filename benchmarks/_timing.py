"""Small shared timing helpers for the benchmark scripts (plain functions, no framework).

The project machine is shared (docs: notes/perf-baselines.md): absolute wall times are noisy, so every script
measures its own baselines (memory bandwidth, GEMM rate) IN THE SAME RUN and reports ratios.  ``best_of`` returns
the minimum over repetitions (the least disturbed run); ``interleaved`` alternates competitors within each
repetition so load changes hit both alike.
"""
from __future__ import annotations

import statistics
import time

import numpy as np


def best_of(fn, repeat: int = 5, *, warmup: int = 1) -> float:
    """Minimum wall time in seconds of ``fn()`` over ``repeat`` calls (after ``warmup`` untimed calls)."""
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def interleaved(fns: dict, repeat: int = 3, *, warmup: int = 1) -> dict:
    """{name: (best seconds, median seconds)} timing the callables round-robin in every repetition."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: (min(t), statistics.median(t)) for name, t in times.items()}


def memory_bandwidth_gbs(nbytes: int = 512 * 1024**2, repeat: int = 5) -> dict:
    """DRAM bandwidth measured now with numpy on a ``nbytes`` float64 array (far larger than L3):
    ``read`` = a.sum() (bytes read / s), ``copy`` = np.copyto(b, a) counting read + write bytes."""
    a = np.ones(nbytes // 8)
    b = np.empty_like(a)
    t_sum = best_of(lambda: a.sum(), repeat)
    t_copy = best_of(lambda: np.copyto(b, a), repeat)
    return {"read": nbytes / t_sum / 1e9, "copy": 2 * nbytes / t_copy / 1e9}


def gemm_gflops(n: int = 1500, repeat: int = 3) -> float:
    """float64 GEMM rate (GFLOP/s, 2 n^3 flops) of numpy's BLAS measured now."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    return 2 * n**3 / best_of(lambda: A @ B, repeat) / 1e9
