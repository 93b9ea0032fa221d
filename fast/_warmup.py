"""Fill numba's on-disk cache for every compiled kernel of :mod:`fast` (compile ahead, once, e.g. after install).

    python -m fast._warmup

Each public entry point that reaches a numba kernel is called once on a tiny input with the argument types the
library itself passes (float64 C-contiguous matrices, int8 signatures, int64 words), so the specialisations a
user's first call needs are already compiled and cached: the first call then costs numba's start-up and a cache
load instead of a compilation (docs/performance.md: "First-call cost").  Safe to run repeatedly; it prints the
time taken.  The cache goes where numba puts it (``__pycache__`` beside the sources, or NUMBA_CACHE_DIR).
"""
from __future__ import annotations

import time

import numpy as np


def warm() -> dict:
    """Call the numba-backed entry points once each; returns {entry point: seconds}."""
    import fast.causal as causal
    import fast.losses as losses
    import fast.mechanisms as mechanisms
    import fast.rados as rados

    X, y = np.ones((64, 3)), np.where(np.arange(64) % 2 == 0, 1.0, -1.0)
    signatures = np.ones((4, 64), dtype=np.int8)
    odd = np.ones((4, 61), dtype=np.int8)  # m not a multiple of 8: the copied-words path
    a = np.arange(50.0)
    calls = {
        "rados (table, in place)": lambda: rados.rados(X, y, signatures, method="table"),
        "rados (table, copied words)": lambda: rados.rados(X[:61], y[:61], odd, method="table"),
        "edge_vectors": lambda: rados.edge_vectors(X, y),
        "logistic_risk": lambda: rados.logistic_risk(X, y, np.ones(3)),
        "support_sizes": lambda: rados.support_sizes(y, signatures),
        "example_loss (softplus)": lambda: losses.example_loss(np.ones(3), "I", 1.0),
        "laplace_mechanism": lambda: mechanisms.laplace_mechanism(np.ones(3), sensitivity=1.0, epsilon=1.0, rng=1),
        "gaussian_mechanism": lambda: mechanisms.gaussian_mechanism(np.ones(3), sensitivity=1.0, epsilon=1.0,
                                                                    delta=1e-6, rng=1),
        "sample_discrete_laplace": lambda: mechanisms.sample_discrete_laplace(10, size=5, rng=1),
        "sample_discrete_gaussian": lambda: mechanisms.sample_discrete_gaussian(10, size=5, rng=1),
        "kendall_score": lambda: causal.kendall_score(a, a[::-1].copy()),
        "hsic_score": lambda: causal.hsic_score(a, a[::-1].copy()),
    }
    times = {}
    for name, call in calls.items():
        start = time.perf_counter()
        call()
        times[name] = time.perf_counter() - start
    return times


def main() -> None:
    start = time.perf_counter()
    for name, seconds in warm().items():
        print(f"{name:30s} {seconds:6.2f} s")
    print(f"numba cache warmed in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
