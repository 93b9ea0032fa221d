"""Small shared timing helpers for the benchmark scripts (plain functions, no framework).

The project machine is shared (docs: notes/perf-baselines.md): absolute wall times are noisy, so every script
measures its own baselines (memory bandwidth, GEMM rate) IN THE SAME RUN and reports ratios.  ``best_of`` returns
the minimum over repetitions (the least disturbed run); ``interleaved`` alternates competitors within each
repetition so load changes hit both alike; ``paired_ratios`` gives one fast / peer ratio per back-to-back pair
(tests/test_performance_guard.py takes their median).
"""
from __future__ import annotations

import statistics
import time


#: the clock of best_of / interleaved: wall time by default; time.process_time (CPU time, insensitive to
#: time-slicing on a loaded machine) is the honest choice for single-threaded runs
CLOCK = time.perf_counter


def best_of(fn, repeat: int = 5, *, warmup: int = 1, clock=None) -> float:
    """Minimum time in seconds of ``fn()`` over ``repeat`` calls (after ``warmup`` untimed calls)."""
    clock = clock or CLOCK
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best


def interleaved(fns: dict, repeat: int = 3, *, warmup: int = 1, clock=None) -> dict:
    """{name: (best seconds, median seconds)} timing the callables round-robin in every repetition."""
    clock = clock or CLOCK
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = clock()
            fn()
            times[name].append(clock() - start)
    return {name: (min(t), statistics.median(t)) for name, t in times.items()}


def paired_ratios(fast, peer, pairs: int = 9, *, warmup: int = 1, clock=None) -> list:
    """Per-pair time ratios fast / peer: ``pairs`` back-to-back pairs, the order alternating (fast then peer,
    peer then fast, ...) so that neither side always runs first (warm caches, the turn of a busy neighbour).
    A load change between pairs hits both members of a pair alike; take the median (or min) of the list."""
    clock = clock or CLOCK
    for _ in range(warmup):
        fast()
        peer()
    ratios = []
    for i in range(pairs):
        times = {}
        for name, fn in (("fast", fast), ("peer", peer)) if i % 2 == 0 else (("peer", peer), ("fast", fast)):
            start = clock()
            fn()
            times[name] = clock() - start
        ratios.append(times["fast"] / max(times["peer"], 1e-9))
    return ratios


class one_thread:
    """BLAS / OpenMP limited by threadpoolctl AND numba's thread count set to 1, for the block (a benchmark's
    one-thread column)."""

    def __enter__(self):
        import numba
        from threadpoolctl import threadpool_limits

        self._limits = threadpool_limits(limits=1)
        self._numba = numba.get_num_threads()
        numba.set_num_threads(1)
        return self

    def __exit__(self, *exc):
        import numba

        numba.set_num_threads(self._numba)
        self._limits.restore_original_limits()


def limit_threads(threads: int) -> None:
    """Set the thread counts of BLAS, OpenMP and numba (call BEFORE importing numpy / numba)."""
    import os

    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = str(threads)


def memory_bandwidth_gbs(nbytes: int = 512 * 1024**2, repeat: int = 5) -> dict:
    """DRAM bandwidth measured now with numpy on a ``nbytes`` float64 array (far larger than L3):
    ``read`` = a.sum() (bytes read / s), ``copy`` = np.copyto(b, a) counting read + write bytes."""
    import numpy as np

    a = np.ones(nbytes // 8)
    b = np.empty_like(a)
    t_sum = best_of(lambda: a.sum(), repeat)
    t_copy = best_of(lambda: np.copyto(b, a), repeat)
    return {"read": nbytes / t_sum / 1e9, "copy": 2 * nbytes / t_copy / 1e9}


def gemm_gflops(n: int = 1500, repeat: int = 3) -> float:
    """float64 GEMM rate (GFLOP/s, 2 n^3 flops) of numpy's BLAS measured now."""
    import numpy as np

    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    return 2 * n**3 / best_of(lambda: A @ B, repeat) / 1e9
