"""Privacy benchmarks (ratios measured in one run; not run by pytest).

1. Safe samplers vs numpy's unsafe float samplers: draws per second of fast.mechanisms.laplace_mechanism /
   gaussian_mechanism (exact discrete noise on a 2^k grid) against ``x + rng.laplace`` / ``x + rng.normal``,
   with the production word source (rng=None: os.urandom-keyed AES-256-CTR) and with seeded Generator words
   (tests).  Target: within 5x.  Also: the word sources' cost per 64-bit word, and one scalar release.
2. DP-Feat rados per second (exact sampler and rejection sampler) against plain uniform rados
   (fast.rados.sample_signatures + fast.rados.rados) on the same data.
Times are the least CPU time of repeated runs (see ``best``).
Usage: python benchmarks/bench_privacy.py [n_draws]
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import fast.dp_rados as D  # noqa: E402
import fast.mechanisms as M  # noqa: E402
import fast.rados as FR  # noqa: E402
import spec.words as W  # noqa: E402
from benchmarks._timing import best_of  # noqa: E402


def best(f, repeat=5):
    """Least CPU time (this process) of ``repeat`` runs after one warm-up: every measured call is single-threaded,
    and CPU time is far less disturbed than wall time by other jobs on a shared machine."""
    return best_of(f, repeat, clock=time.process_time)


def main(n=10**6):
    x = np.zeros(n)
    g = np.random.default_rng(0)
    rows = []
    t_np_lap = best(lambda: x + g.laplace(0.0, 1.0, n))
    t_np_gau = best(lambda: x + g.normal(0.0, 1.0, n))
    t_lap = best(lambda: M.laplace_mechanism(x, sensitivity=1.0, epsilon=1.0, rng=g))
    t_gau = best(lambda: M.gaussian_mechanism(x, sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=g,
                                              sensitivity_dimension=1))
    t_lap_os = best(lambda: M.laplace_mechanism(x, sensitivity=1.0, epsilon=1.0))
    t_gau_os = best(lambda: M.gaussian_mechanism(x, sensitivity=1.0, epsilon=1.0, delta=1e-5,
                                                 sensitivity_dimension=1))
    rows.append(("laplace_mechanism (rng=None: AES-CTR words)", n / t_lap_os, t_lap_os / t_np_lap))
    rows.append(("laplace_mechanism (seeded words)", n / t_lap, t_lap / t_np_lap))
    rows.append(("gaussian_mechanism (rng=None: AES-CTR words)", n / t_gau_os, t_gau_os / t_np_gau))
    rows.append(("gaussian_mechanism (seeded words)", n / t_gau, t_gau / t_np_gau))
    print(f"numpy float laplace: {n / t_np_lap:,.0f} draws/s; numpy float normal: {n / t_np_gau:,.0f} draws/s")
    for name, rate, ratio in rows:
        print(f"{name:46s} {rate:>14,.0f} draws/s   {ratio:6.2f}x the time of numpy float")

    words = 2**16
    stream = W.os_keystream()
    t_aes = best(lambda: stream.words(words))
    t_urandom = best(lambda: os.urandom(8 * words))
    t_pcg = best(lambda: g.integers(0, 2**64, size=words, dtype=np.uint64))
    print(f"\nword sources (ns per 64-bit word): AES-256-CTR {t_aes / words * 1e9:.2f}, "
          f"os.urandom {t_urandom / words * 1e9:.2f}, PCG64 integers {t_pcg / words * 1e9:.2f}")

    reps = 2000
    t_scalar_lap = best(lambda: [M.laplace_mechanism(0.0, sensitivity=1.0, epsilon=1.0) for _ in range(reps)])
    t_scalar_gau = best(lambda: [M.gaussian_mechanism(0.0, sensitivity=1.0, epsilon=1.0, delta=1e-5)
                                 for _ in range(reps)])
    t_scalar_np = best(lambda: [0.0 + g.laplace(0.0, 1.0) for _ in range(reps)])
    print(f"one scalar release (us): laplace_mechanism {t_scalar_lap / reps * 1e6:.1f}, gaussian_mechanism "
          f"{t_scalar_gau / reps * 1e6:.1f}, numpy x + rng.laplace() {t_scalar_np / reps * 1e6:.2f}")

    rng = np.random.default_rng(1)
    m, d, nr = 2000, 20, 2000
    X = rng.normal(size=(m, d))
    X[:, 0] = rng.choice([-1.0, 1.0], m)
    y = rng.choice([-1, 1], m).astype(np.int8)
    t_plain = best(lambda: FR.rados(X, y, FR.sample_signatures(y, nr, rng=rng)), repeat=3)
    t_exact = best(lambda: D.dp_feat_rados(X, y, 0, nr, 1.0, rng=rng), repeat=3)
    t_rej = best(lambda: D.dp_feat_rados(X, y, 0, nr, 1.0, method="rejection", rng=rng), repeat=3)
    acc = D.dp_feat_window(X, y, 0, 1.0).acceptance
    print(f"\nrados m={m} d={d} n={nr} (DP-Feat eps=1, acceptance {acc:.4f})")
    print(f"plain uniform rados            {nr / t_plain:>12,.0f} rados/s")
    print(f"DP-Feat exact sampler          {nr / t_exact:>12,.0f} rados/s   {t_exact / t_plain:5.2f}x plain")
    print(f"DP-Feat rejection sampler      {nr / t_rej:>12,.0f} rados/s   {t_rej / t_plain:5.2f}x plain")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10**6)
