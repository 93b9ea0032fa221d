"""First-call cost of the numba-compiled public entry points: cold (empty numba cache: compile) and warm (cache
filled by the cold run: load), each in a FRESH Python process, so imports and JIT state never carry over.

    .venv/bin/python -m benchmarks.numba_startup            # prints a Markdown table (about 1-2 minutes)

For each entry point the child process times ``import`` of its module and the first call, then a second call
(the steady state).  NUMBA_CACHE_DIR points at a new temporary directory for the cold run and at the same one for
the warm run.  Wall-clock times of one run each (the machine is shared: a loaded moment inflates them; the cold /
warm contrast is 10-100x, far above that noise).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: label -> (module, setup code defining the call's arguments, call expression)
ENTRY_POINTS = {
    "fast.rados.rados (table kernel)": (
        "fast.rados", "import numpy as np; X = np.ones((64, 3)); y = np.ones(64); s = np.ones((4, 64), np.int8)",
        "fast.rados.rados(X, y, s)"),
    "fast.rados.edge_vectors": ("fast.rados", "import numpy as np; X = np.ones((8, 3)); y = np.ones(8)",
                                "fast.rados.edge_vectors(X, y)"),
    "fast.rados.logistic_risk": ("fast.rados", "import numpy as np; X = np.ones((8, 3)); y = np.ones(8)",
                                 "fast.rados.logistic_risk(X, y, np.ones(3))"),
    "fast.rados.support_sizes": ("fast.rados", "import numpy as np; y = np.ones(8, np.int8); s = np.ones((2, 8), np.int8)",
                                 "fast.rados.support_sizes(y, s)"),
    "fast.mechanisms.laplace_mechanism": ("fast.mechanisms", "x = 1.0",
                                          "fast.mechanisms.laplace_mechanism(x, sensitivity=1.0, epsilon=1.0, rng=1)"),
    "fast.mechanisms.gaussian_mechanism": (
        "fast.mechanisms", "x = 1.0",
        "fast.mechanisms.gaussian_mechanism(x, sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=1)"),
    "fast.causal.kendall_score": ("fast.causal", "import numpy as np; a = np.arange(50.0); b = a[::-1].copy()",
                                  "fast.causal.kendall_score(a, b)"),
    "fast.causal.hsic_score": ("fast.causal", "import numpy as np; a = np.arange(50.0); b = a[::-1].copy()",
                               "fast.causal.hsic_score(a, b)"),
}

CHILD = """
import time, json, importlib
t0 = time.perf_counter()
import {module}
import fast
t1 = time.perf_counter()
{setup}
t2 = time.perf_counter()
{call}
t3 = time.perf_counter()
{call}
t4 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t3 - t2, "second": t4 - t3}}))
"""


def run(label, cache_dir):
    module, setup, call = ENTRY_POINTS[label]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
    code = CHILD.format(module=module, setup=setup, call=call)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    rows = []
    for label in ENTRY_POINTS:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
            cold = run(label, cache)
            warm = run(label, cache)
        rows.append((label, cold, warm))
        print(f"{label:40s} cold: import {cold['import']:.2f} s + first call {cold['first']:.2f} s | warm: import "
              f"{warm['import']:.2f} s + first call {warm['first'] * 1e3:.1f} ms | steady {warm['second'] * 1e6:.0f} µs",
              flush=True)
    print("\n| entry point | cold: import + first call | warm (cache): import + first call | second call |")
    print("|---|---|---|---|")
    for label, cold, warm in rows:
        print(f"| `{label}` | {cold['import']:.2f} s + {cold['first']:.2f} s | {warm['import']:.2f} s + "
              f"{warm['first'] * 1e3:.0f} ms | {warm['second'] * 1e6:.0f} µs |")


if __name__ == "__main__":
    main()
