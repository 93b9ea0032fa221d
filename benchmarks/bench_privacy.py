"""Privacy benchmarks (ratios measured in one run; not run by pytest).

1. Safe samplers vs numpy's unsafe float samplers: draws per second of fast.mechanisms.laplace_mechanism /
   gaussian_mechanism (exact discrete noise on a 2^k grid) against ``x + rng.laplace`` / ``x + rng.normal``,
   with the production word source (rng=None: os.urandom-keyed AES-256-CTR) and with seeded Generator words
   (tests).  Target: within 5x.  Also: the word sources' cost per 64-bit word, and one scalar release.
2. DP-Feat rados per second (exact sampler and rejection sampler) against plain uniform rados
   (fast.rados.sample_signatures + fast.rados.rados) on the same data.
3. The exact discrete Gaussian against OpenDP's (the peer a user would otherwise pick; issue 25 item 10):
   fast.mechanisms.sample_discrete_gaussian (word-batched numba sampler for integer sigma2 <= 2^24, CKS20
   Algorithms 1-3 on Python integers above) against ``opendp.measurements.make_gaussian`` over i64 vectors (its
   ``scale`` is sigma, a float: sqrt(sigma2) rounded), and gaussian_mechanism against make_gaussian over float
   vectors at the grid's sigma, both drawing from OS entropy; with the default threading (wall time) and on one
   thread (threadpoolctl + numba.set_num_threads(1); CPU time), ours and OpenDP alternating in every repetition.
   OpenDP is not a dependency: without it the section prints why and skips the peer.
Times are the least CPU time of repeated runs (see ``best``) unless a table says otherwise.
Usage: python benchmarks/bench_privacy.py [n_draws] [--opendp-only]
"""
from __future__ import annotations

import math
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import fast.dp_rados as D  # noqa: E402
import fast.mechanisms as M  # noqa: E402
import fast.rados as FR  # noqa: E402
import spec.words as W  # noqa: E402
from benchmarks._timing import best_of, interleaved, one_thread  # noqa: E402


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


#: (label, sigma2, draws per call): the word-batched sampler, then the big-integer one
SAMPLER_CASES = [
    ("100 (word-batched)", 100, 200_000),
    ("2^24 (word-batched)", 2**24, 200_000),
    ("2^30 (big-integer)", 2**30, 20_000),
    ("2^40 (big-integer)", 2**40, 20_000),
    ("2^80 + 1/3 (big-integer)", 2**80 + Fraction(1, 3), 20_000),
]
#: (label, epsilon, values per call) of gaussian_mechanism at sensitivity 1, delta 1e-5 (one coordinate differs)
MECHANISM_CASES = [
    ("eps 1 (s2 ~ 2^21, word-batched)", 1.0, 20_000),
    ("eps 1e-4 (s2 ~ 2^47, big-integer)", 1e-4, 20_000),
]


def opendp_or_reason():
    """(opendp.prelude with the "contrib" features on, its version), or (None, why the peer is skipped)."""
    try:
        import opendp.prelude as dp
        from importlib.metadata import version
    except ImportError as exc:
        return None, f"OpenDP is not importable ({exc}); `.venv/bin/pip install opendp` to time the peer"
    dp.enable_features("contrib")
    return dp, version("opendp")


def _pair(ours, peer, clock, repeat):
    """{name: least seconds}: ours and the peer (if any) alternating in each repetition (_timing.interleaved)."""
    fns = {"ours": ours} if peer is None else {"ours": ours, "peer": peer}
    return {name: best for name, (best, _median) in interleaved(fns, repeat=repeat, clock=clock).items()}


def opendp_section(repeat=3):
    """Section 3: draws per second of the exact discrete Gaussian, ours against OpenDP's, in one run."""
    dp, info = opendp_or_reason()
    print(f"\nexact discrete Gaussian vs OpenDP ({'opendp ' + info if dp else 'peer SKIPPED: ' + info})")

    def sampler_peer(sigma2, n):
        if dp is None:
            return None
        meas = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T="i64")), dp.l2_distance(T="i64"),
                                  scale=math.sqrt(sigma2))  # OpenDP's scale is sigma (a float)
        zeros = [0] * n
        return lambda: meas(zeros)

    def mechanism_peer(sigma, n):
        if dp is None:
            return None
        meas = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float),
                                  scale=sigma)
        zeros = [0.0] * n
        return lambda: meas(zeros)

    for mode, clock, context in (("default threads, wall time", time.perf_counter, None),
                                 ("1 thread, CPU time", time.process_time, one_thread)):
        print(f"\n[{mode}; least of {repeat}, ours and OpenDP alternating; rng=None (OS entropy) on both sides]")
        print(f"{'sample_discrete_gaussian sigma2':40s} {'n':>8s} {'ours draws/s':>14s} {'OpenDP draws/s':>15s} "
              f"{'ours speed-up':>13s}")
        with (context() if context else _Null()):
            for label, sigma2, n in SAMPLER_CASES:
                M.sample_discrete_gaussian(sigma2, size=10)  # compile / warm
                t = _pair(lambda: M.sample_discrete_gaussian(sigma2, size=n), sampler_peer(sigma2, n), clock, repeat)
                _row(label, n, t)
            print(f"{'gaussian_mechanism (Delta 1, delta 1e-5)':40s} {'n':>8s} {'ours values/s':>14s} "
                  f"{'OpenDP values/s':>15s} {'ours speed-up':>13s}")
            for label, eps, n in MECHANISM_CASES:
                x = np.zeros(n)
                grid = M.gaussian_grid(1.0, eps, 1e-5)

                def ours(x=x, eps=eps):
                    return M.gaussian_mechanism(x, sensitivity=1.0, epsilon=eps, delta=1e-5, sensitivity_dimension=1)

                t = _pair(ours, mechanism_peer(grid.sigma, n), clock, repeat)
                _row(label, n, t)
    print("OpenDP's scale is a float sigma: at sigma2 = 2^80 + 1/3 it samples N_Z(0, 2^80) (sqrt rounded); ours "
          "samples the exact rational variance.  Its float mechanism is given our grid's sigma.")


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def _row(label, n, t):
    ours = n / t["ours"]
    if "peer" in t:
        print(f"{label:40s} {n:>8,d} {ours:>14,.0f} {n / t['peer']:>15,.0f} {t['peer'] / t['ours']:>12.1f}x")
    else:
        print(f"{label:40s} {n:>8,d} {ours:>14,.0f} {'skipped':>15s} {'':>13s}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--opendp-only" not in sys.argv[1:]:
        main(int(args[0]) if args else 10**6)
    opendp_section()
