"""Reference vs fast for nock2016 s2-3 losses and eq. (20) regularizers: prints times and ratios (one run).

The fast rado losses / game values use product and moment identities (O(m)), the reference enumerates the
2^m subsets (O(2^m m)), so the ratio grows like 2^m.  ridge with a Gamma is dominated by the shared SPD
check (a Cholesky factorisation in spec.losses_contract), whose BLAS timing is noisy on a shared machine.
Run: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_losses.py
"""
import time

import numpy as np

import fast.losses as FL
import fast.regularizers as FR
import reference.losses as RL
import reference.regularizers as RR


def _best(func, *args, repeat=3, **kwargs):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    rng = np.random.default_rng(0)
    rows = []
    for m in (10, 14):
        z = rng.normal(size=m)
        for name in ("rado_loss", "rado_game_value", "rado_adversary"):
            for row in ("I", "II"):
                rows.append((f"{name}(m={m}, row {row})", getattr(RL, name), getattr(FL, name), (z, row, 0.7)))
    rados, theta = rng.normal(size=(4096, 20)), rng.normal(size=20)
    rows.append(("rado_set_loss(n=4096, d=20, row I)", RL.rado_set_loss, FL.rado_set_loss, (rados, theta, "I", 1.0)))
    rows.append(("regularized_rados(n=4096, d=20)", RL.regularized_rados, FL.regularized_rados, (rados, theta, 3.0, 1.0)))
    rows.append(("regularized_exp_rado_loss(n=4096, d=20)", RL.regularized_exp_rado_loss, FL.regularized_exp_rado_loss,
                 (rados, theta, 3.0)))
    big = rng.normal(size=1000)
    A = rng.normal(size=(200, 200))
    rows.append(("slope(d=1000)", RR.slope, FR.slope, (big, 0.1)))
    rows.append(("lasso(d=1000)", RR.lasso, FR.lasso, (big,)))
    rows.append(("ridge(d=200, Gamma)", RR.ridge, FR.ridge, (big[:200], A @ A.T + np.eye(200))))
    print(f"{'function':45s} {'reference s':>12s} {'fast s':>12s} {'ref/fast':>10s}")
    for label, ref, fast, args in rows:
        t_ref = _best(ref, *args, repeat=1 if "m=14" in label else 3)
        t_fast = _best(fast, *args, repeat=5)
        print(f"{label:45s} {t_ref:12.4g} {t_fast:12.4g} {t_ref / t_fast:10.1f}")


if __name__ == "__main__":
    main()
