"""First-call cost of the numba-compiled public entry points: cold (empty numba cache: compile), warm (the cache its
own cold run filled: load) and after the warm-up (a cache filled by ``privlearn warmup`` alone), each in a FRESH
Python process, so imports and JIT state never carry over; plus the warm-up's own time, cold and warm.

    .venv/bin/python -m benchmarks.numba_startup            # prints a Markdown table (about 5-10 minutes)
    .venv/bin/python -m benchmarks.numba_startup --only snc  # the entry points whose label contains "snc"

For each entry point the child process times ``import`` of its module and the first call, then a second call
(the steady state); the first call's process CPU time is printed beside its wall time, since CPU time is what the
compilation costs whatever the load of the (shared) machine.  NUMBA_CACHE_DIR points at a new temporary directory
for the cold run and at the same one for the warm run; the "after warm-up" run uses a third directory that only
``python -m fast._warmup`` has filled.  One run each.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_XY = "import numpy as np; X = np.ones((64, 3)); X[:, 1] = np.arange(64) / 64; y = np.where(np.arange(64) % 2, 1, -1)"
_P = _XY + ("; s = np.where(np.arange(256).reshape(4, 64) % 3 == 0, -1, 1).astype(np.int8); "
            "P = fast.rados.rados(X, y, s)")
_SNC = ("import numpy as np; g = np.random.default_rng(0); X = g.normal(size=(300, 4)); "
        "y = (X[:, 0] > 0).astype(int); Z = X[:12].copy(); z = y[:12].copy(); z[:2] = [0, 1]")

#: label -> (module, setup code defining the call's arguments, call expression); noise from OS entropy (rng=None),
#: the production path
ENTRY_POINTS = {
    "fast.rados.rados (table kernel)": (
        "fast.rados", "import numpy as np; X = np.ones((64, 3)); y = np.ones(64); s = np.ones((4, 64), np.int8)",
        "fast.rados.rados(X, y, s, method='table')"),
    "fast.rados.edge_vectors": ("fast.rados", "import numpy as np; X = np.ones((8, 3)); y = np.ones(8)",
                                "fast.rados.edge_vectors(X, y)"),
    "fast.rados.logistic_risk": ("fast.rados", "import numpy as np; X = np.ones((8, 3)); y = np.ones(8)",
                                 "fast.rados.logistic_risk(X, y, np.ones(3))"),
    "fast.rados.support_sizes": ("fast.rados",
                                 "import numpy as np; y = np.ones(8, np.int8); s = np.ones((2, 8), np.int8)",
                                 "fast.rados.support_sizes(y, s)"),
    "fast.losses.regularized_rados": ("fast.losses", "import numpy as np; P = np.ones((8, 3))",
                                      "fast.losses.regularized_rados(P, np.ones(3), 1.0, 1.0)"),
    "fast.mechanisms.laplace_mechanism": ("fast.mechanisms", "x = 1.0",
                                          "fast.mechanisms.laplace_mechanism(x, sensitivity=1.0, epsilon=1.0)"),
    "fast.mechanisms.gaussian_mechanism": (
        "fast.mechanisms", "x = 1.0",
        "fast.mechanisms.gaussian_mechanism(x, sensitivity=1.0, epsilon=1.0, delta=1e-6)"),
    "fast.mechanisms.gaussian_mechanism (10^4 values)": (
        "fast.mechanisms", "import numpy as np; x = np.zeros(10_000)",
        "fast.mechanisms.gaussian_mechanism(x, sensitivity=1.0, epsilon=1.0, delta=1e-6)"),
    "fast.causal.kendall_score": ("fast.causal", "import numpy as np; a = np.arange(50.0); b = a[::-1].copy()",
                                  "fast.causal.kendall_score(a, b)"),
    "fast.causal.hsic_score": ("fast.causal", "import numpy as np; a = np.arange(50.0); b = a[::-1].copy()",
                               "fast.causal.hsic_score(a, b)"),
    "fast.radoboost.radoboost": ("fast.radoboost", "import fast.rados; " + _P, "fast.radoboost.radoboost(P, 5)"),
    "fast.radoboost.omega_radaboost (lasso)": (
        "fast.radoboost", "import fast.rados; " + _P,
        "fast.radoboost.omega_radaboost(P, 5, regularizer='lasso', omega=0.1)"),
    "fast.RadoBoostClassifier.fit": (
        "fast.estimators.rados", _XY,
        "fast.estimators.rados.RadoBoostClassifier(n_rounds=20, random_state=0).fit(X, y)"),
    "fast.snc.snc_gradient": ("fast.snc", _SNC, "fast.snc.snc_gradient(X, y, Z, z, 1.0)"),
    "fast.SNCClassifier.fit": ("fast.estimators.snc", _SNC, "fast.estimators.snc.SNCClassifier(compression=0.04, "
                                                            "gamma2=1.0, max_iter=5, random_state=0).fit(X, y)"),
}

CHILD = """
import time, json, importlib
t0 = time.perf_counter()
import {module}
import fast
t1 = time.perf_counter()
{setup}
t2, c2 = time.perf_counter(), time.process_time()
{call}
t3, c3 = time.perf_counter(), time.process_time()
{call}
t4 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t3 - t2, "first_cpu": c3 - c2, "second": t4 - t3}}))
"""


def _env(cache_dir) -> dict:
    return dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore",
                TQDM_DISABLE="1")


def run(label, cache_dir):
    module, setup, call = ENTRY_POINTS[label]
    code = CHILD.format(module=module, setup=setup, call=call)
    out = subprocess.run([sys.executable, "-c", code], env=_env(cache_dir), capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{label}: the child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def warmup(cache_dir) -> tuple[float, float]:
    """(wall, CPU) seconds of ``python -m fast._warmup`` in a fresh process on ``cache_dir``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "fast._warmup"], env=_env(cache_dir), capture_output=True, text=True,
                         cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:  # an entry point raised, or a kernel stayed uncached: say so, measure the rest
        print(f"WARNING: the warm-up exited {out.returncode}:\n{out.stderr[-3000:]}", file=sys.stderr, flush=True)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _ms(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 1.0 else f"{seconds * 1e3:.0f} ms"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="only the entry points whose label contains this text")
    args = parser.parse_args(argv)
    labels = [label for label in ENTRY_POINTS if args.only in label]
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="numba-warmup-") as warmed:
        cold_warmup = warmup(warmed)
        warm_warmup = warmup(warmed)
        print(f"warm-up: cold {cold_warmup[0]:.1f} s wall ({cold_warmup[1]:.1f} s CPU), warm {warm_warmup[0]:.1f} s "
              f"wall ({warm_warmup[1]:.1f} s CPU)", flush=True)
        for label in labels:
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
                cold = run(label, cache)
                warm = run(label, cache)
            after = run(label, warmed)
            rows.append((label, cold, warm, after))
            print(f"{label:50s} cold: import {cold['import']:.2f} s + first {cold['first']:.2f} s "
                  f"(CPU {cold['first_cpu']:.2f} s) | warm: import {warm['import']:.2f} s + first "
                  f"{_ms(warm['first'])} | after warm-up: first {_ms(after['first'])} | "
                  f"second {warm['second'] * 1e6:.0f} µs", flush=True)
    print(f"\nload average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; one run each\n")
    print("| entry point | cold: import + first call (its CPU) | warm (own cache): import + first call (CPU) | "
          "after `privlearn warmup`: first call (CPU) | second call |")
    print("|---|---|---|---|---|")
    for label, cold, warm, after in rows:
        print(f"| `{label}` | {cold['import']:.2f} s + {cold['first']:.2f} s ({cold['first_cpu']:.2f} s) | "
              f"{warm['import']:.2f} s + {_ms(warm['first'])} ({_ms(warm['first_cpu'])}) | "
              f"{_ms(after['first'])} ({_ms(after['first_cpu'])}) | {warm['second'] * 1e6:.0f} µs |")
    print(f"| `privlearn warmup` (every kernel), whole process | {cold_warmup[0]:.1f} s ({cold_warmup[1]:.1f} s) | "
          f"{warm_warmup[0]:.1f} s ({warm_warmup[1]:.1f} s) | | |")


if __name__ == "__main__":
    main()
