"""The warm-up (``privlearn warmup``, ``python -m fast._warmup``) compiles every ``cache=True`` numba kernel of fast/.

The kernels are found by reading the sources (:func:`fast._warmup.kernels`), so a kernel added anywhere in fast/ is
held to the rule without editing this file: after the warm-up has run in a fresh process with an empty
``NUMBA_CACHE_DIR``, every kernel has a compiled signature and a cache entry (an ``inline="always"`` kernel: a
compiled caller), unless it is listed in ``fast._warmup.UNREACHED`` (and then nothing in fast/ may call it).  A
second fresh process then runs the library's own flows (the estimators, the production noise path, the CLI's
calls) on the same cache and must compile nothing: the warm-up used the argument types the library really uses.

The cold run compiles everything (about 35 s of CPU, 1-1.5 min on the loaded 2-core machine): those tests are
``slow`` and ``ci`` (CI keeps them).  The scanner's self-tests and the failure paths of the command run by default.
"""
from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fast
from fast import _warmup, cli

ROOT = Path(fast.__file__).resolve().parents[1]


def _env(cache: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONWARNINGS="ignore", TQDM_DISABLE="1")
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def _python(code: str, cache: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=_env(cache), capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def _last_json(out: subprocess.CompletedProcess):
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-5000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- the scanner (default run)


def test_kernel_scan_reads_every_spelling(tmp_path):
    """@njit(cache=True), @numba.njit(..., inline="always"), @numba.jit(cache=True) are kernels; no cache, cache=False
    and a bare @njit are not (numba caches nothing for them: nothing to warm)."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "k.py").write_text(textwrap.dedent("""
        import numba
        from numba import njit, jit

        @njit(cache=True, nogil=True)
        def a(x):
            return b(x) + helper(x)

        @numba.njit(cache=True, inline="always")
        def b(x):
            return x

        @numba.jit(nopython=True, cache=True)
        def c(x):
            return x

        @njit
        def d(x):
            return x

        @njit(cache=False)
        def e(x):
            return x

        @njit(nogil=True)
        def f(x):
            return x

        def helper(x):
            return x
        """))
    found = {k.qualname: k for k in _warmup.kernels(pkg)}
    assert set(found) == {"pkg.sub.k.a", "pkg.sub.k.b", "pkg.sub.k.c"}
    assert found["pkg.sub.k.b"].inline and not found["pkg.sub.k.a"].inline
    assert {"b", "helper"} <= found["pkg.sub.k.a"].calls
    assert _warmup._inlined_covered(list(found.values()), {"pkg.sub.k.a"}) == {"pkg.sub.k.b"}
    assert _warmup._inlined_covered(list(found.values()), {"pkg.sub.k.c"}) == set()


def test_scan_agrees_with_the_imported_dispatchers():
    """Every caching numba dispatcher that the modules of fast/ define is one the source scan found (a spelling the
    scanner misses, e.g. ``kernel = njit(cache=True)(f)``, fails here), and every scanned kernel is importable."""
    import importlib

    from numba.core.registry import CPUDispatcher

    scanned = {k.qualname for k in _warmup.kernels()}
    assert len(scanned) >= 40, sorted(scanned)  # 51 when written; a scan that found nothing would pass below
    imported = set()
    for info in pkgutil.walk_packages([str(ROOT / "fast")], prefix="fast."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == info.name
                    and type(obj._cache).__name__ != "NullCache"):
                imported.add(f"{info.name}.{name}")
    assert imported - scanned == set(), "caching dispatchers the scan of fast/ missed"
    assert scanned - imported == set(), "scanned kernels that are not module-level dispatchers"


def _loaded_names(tree) -> set:
    import ast

    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name)
    return names


def test_unreached_kernels_are_kernels_that_nothing_in_fast_calls():
    """An entry of UNREACHED is excused from the warm-up only while it is a kernel and no code of fast/ names it."""
    import ast

    scanned = {k.qualname for k in _warmup.kernels()}
    for qualname, reason in _warmup.UNREACHED.items():
        assert qualname in scanned, f"{qualname} is no longer a cache=True kernel of fast/: drop it from UNREACHED"
        assert reason
        name = qualname.rsplit(".", 1)[1]
        users = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "fast").rglob("*.py"))
                 if name in _loaded_names(ast.parse(p.read_text(encoding="utf-8")))]
        assert users == [], f"{qualname} is in UNREACHED but {users} name it: warm it through its entry point"


def test_cli_warmup_fails_loudly_on_a_raising_entry_point(monkeypatch, capsys):
    def boom():
        raise ValueError("kaboom")

    monkeypatch.setattr(_warmup, "_entry_points", lambda: {"fast.nothing (boom)": boom})
    monkeypatch.setattr(_warmup, "kernels", lambda root=_warmup.FAST: [])
    assert cli.main(["warmup"]) == cli.EXIT_REPORT_FAILED
    captured = capsys.readouterr()
    assert "FAILED" in captured.out
    assert "fast.nothing (boom) raised" in captured.err and "ValueError: kaboom" in captured.err


def test_warm_keeps_the_entry_points_warnings_to_itself(monkeypatch, recwarn):
    """The warm-up calls estimators on tiny constant data, where their public "mostly noise" warnings are true and
    beside the point: they filled the CI log (four BoostingNoiseWarnings); warm() keeps them to itself."""
    import warnings

    def noisy():
        warnings.warn("mostly noise", UserWarning)

    monkeypatch.setattr(_warmup, "_entry_points", lambda: {"fast.noisy (warns)": noisy})
    times = _warmup.warm()
    assert times["fast.noisy (warns)"] is not None and len(recwarn) == 0


def test_cli_warmup_names_a_kernel_left_uncached(monkeypatch, capsys):
    kernel = _warmup.Kernel("fast.nowhere", "_kernel", False, frozenset({"_inlined"}))
    inlined = _warmup.Kernel("fast.nowhere", "_inlined", True, frozenset())
    monkeypatch.setattr(_warmup, "_entry_points", lambda: {})
    monkeypatch.setattr(_warmup, "kernels", lambda root=_warmup.FAST: [kernel, inlined])
    monkeypatch.setattr(_warmup, "cache_entries", lambda k: (0, "/nowhere"))
    assert cli.main(["warmup"]) == cli.EXIT_REPORT_FAILED
    err = capsys.readouterr().err
    assert "no cache entry" in err and "fast.nowhere._kernel" in err and "fast.nowhere._inlined" in err


def test_cli_warmup_summary_names_the_skipped_kernels(monkeypatch, capsys, tmp_path):
    """The summary names the test-only kernels it skips (it printed the placeholder "UNREACHED" in their place)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # where this (faked) complete warm-up writes its stamp
    kernel = _warmup.Kernel("fast.nowhere", "_kernel", False, frozenset())
    monkeypatch.setattr(_warmup, "_entry_points", lambda: {})
    monkeypatch.setattr(_warmup, "kernels", lambda root=_warmup.FAST: [kernel])
    monkeypatch.setattr(_warmup, "cache_entries", lambda k: (1, "/somewhere"))
    assert cli.main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert "1 kernels cached" in out and "/somewhere" in out
    assert "UNREACHED" not in out
    for qualname in _warmup.UNREACHED:
        assert qualname in out


# --------------------------------------------------------------------------- the cold run (slow, ci)

PROBE = """
import json
from fast import _warmup
times = _warmup.warm()
out = {"failed": sorted(k for k, v in times.items() if v is None), "signatures": {}, "entries": {}}
for k in _warmup.kernels():
    d = _warmup._dispatcher(k)
    out["signatures"][k.qualname] = [str(s) for s in getattr(d, "signatures", [])]
    out["entries"][k.qualname] = None if k.inline else _warmup.cache_entries(k)[0]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def cold_warmup(tmp_path_factory):
    """The warm-up, once, in a fresh process on an empty NUMBA_CACHE_DIR: every kernel it reaches is compiled."""
    cache = tmp_path_factory.mktemp("numba-cache")
    return cache, _last_json(_python(PROBE, cache))


@pytest.mark.slow
@pytest.mark.ci
def test_warmup_compiles_and_caches_every_kernel(cold_warmup):
    _, probe = cold_warmup
    assert probe["failed"] == [], "warm-up entry points raised"
    found = _warmup.kernels()
    assert {k.qualname for k in found} <= set(probe["signatures"]), "kernels added while the test ran: rerun"
    compiled = {q for q, sigs in probe["signatures"].items() if sigs}
    due = [k for k in found if k.qualname not in _warmup.UNREACHED]
    uncompiled = sorted(k.qualname for k in due if not k.inline and k.qualname not in compiled)
    uncached = sorted(k.qualname for k in due if not k.inline and not probe["entries"][k.qualname])
    not_inlined = sorted({k.qualname for k in due if k.inline} - _warmup._inlined_covered(found, compiled))
    hint = ("add a call of a public entry point that reaches it to fast/_warmup.py:_entry_points (or, if nothing in "
            "fast/ calls it, to UNREACHED with the reason)")
    assert uncompiled == [], f"kernels the warm-up does not compile: {uncompiled}; {hint}"
    assert uncached == [], f"kernels compiled but not in numba's cache: {uncached}"
    assert not_inlined == [], f"inline kernels no warmed kernel calls: {not_inlined}; {hint}"


FLOWS = """
import json, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
from numba.core.registry import CPUDispatcher
import fast
from fast import (accounting, causal, dp_rados, losses, mechanisms, radoboost, rados, ASTCClassifier,
                  OmegaRAdaBoostClassifier, PrivateANM, PrivateBoostClassifier, ImpactEncoder, RadoBoostClassifier,
                  SNCClassifier)

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 4)); y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, 0)
RadoBoostClassifier(n_rounds=20, random_state=0).fit(X, y).predict(X)
RadoBoostClassifier(n_rounds=20, privacy=dp_rados.gaussian_edges(epsilon=1.0, delta=1e-5, support=0.5),
                    classes=(0, 1)).fit(X / 10.0, y)
OmegaRAdaBoostClassifier(n_rounds=20, regularizer="lasso", omega=1e-3, random_state=0).fit(X, y)
radoboost.adaboost(X, np.where(y > 0, 1, -1), 10, regularizer="lasso", omega=0.1)
PrivateBoostClassifier(epsilon=2.0, n_rounds=5, data_norm=4.0, classes=(0, 1)).fit(X, y)
PrivateBoostClassifier(epsilon=2.0, n_rounds=5, weak_learner="stump", bounds=(-4.0, 4.0), classes=(0, 1)).fit(X, y)
ASTCClassifier(feature_costs=[1, 1, 2, 5], budget=4, depth=2).fit(X, y).predict_cost(X)
frame = pd.DataFrame({"zip": rng.choice(["a", "b", "c"], 300)})
ImpactEncoder(mode="naive", epsilon=1.0, categories=[["a", "b", "c"]], classes=(0, 1)).fit_transform(frame, y)
xa = rng.uniform(-1, 1, 200); ya = np.tanh(2 * xa) + 0.2 * rng.uniform(-1, 1, 200)
for score in ("kendall", "hsic"):
    PrivateANM(score=score, epsilon=1.0).fit(xa, ya)
SNCClassifier(compression=0.05, gamma2=1.0, max_iter=5, random_state=0).fit(X, y)
SNCClassifier(compression=0.05, gamma2=1.0, max_iter=5, metric="diagonal", random_state=0).fit(X, y)
for size in (1, 10, 5000):  # OS entropy: a read-only first block, then writable keystream blocks
    mechanisms.gaussian_mechanism(np.zeros(size), sensitivity=1.0, epsilon=1.0, delta=1e-6)
    mechanisms.laplace_mechanism(np.zeros(size), sensitivity=1.0, epsilon=1.0)
mechanisms.laplace_mechanism(3.2, sensitivity=1.0, epsilon=0.5)
accounting.basic_composition([0.01] * 100, [0.0] * 100)
accounting.zcdp_composition(np.full(100, 0.01))
accounting.renyi_gaussian(np.zeros(100), np.full(100, 0.1), 1.0, 2.0)
ypm = np.where(y > 0, 1, -1)
P = rados.rados(X, ypm, rados.sample_signatures(ypm, 300, rng=1))  # 300 signatures: the table kernel
theta = np.full(4, 0.1)
rados.logistic_risk(X, ypm, theta), rados.logistic_risk_gradient(X, ypm, theta)
rados.log_exp_rado_risk(P, theta), rados.exp_rado_risk(P, theta), rados.log_rado_risk(P, theta, 300)
losses.rado_set_loss(P, theta, "I", 1.0), losses.regularized_rados(P, theta, 1.0, 1.0)
misses = {}
for name, module in list(__import__("sys").modules.items()):
    if name.startswith("fast.") and module is not None:
        for attr, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name and obj._cache_misses:
                misses[f"{name}.{attr}"] = [str(s) for s in obj._cache_misses]
print(json.dumps(misses))
"""


@pytest.mark.slow
@pytest.mark.ci
def test_library_flows_compile_nothing_after_the_warmup(cold_warmup):
    """The estimators, the OS-entropy noise path and the compositions, in a fresh process on the warmed cache:
    no kernel misses the cache (a miss is a specialisation the warm-up does not compile)."""
    cache, _ = cold_warmup
    misses = _last_json(_python(FLOWS, cache))
    assert misses == {}, f"compiled after the warm-up (argument types the warm-up does not use): {misses}"


@pytest.mark.slow
@pytest.mark.ci
def test_privlearn_warmup_command_on_a_warm_cache(cold_warmup):
    """The console script: exit 0, one line per entry point, where the cache is; a warm run costs seconds."""
    cache, _ = cold_warmup
    here = Path(sys.executable).parent / "privlearn"  # the console script beside this Python (as tests/test_cli.py)
    command = [str(here)] if here.exists() else [sys.executable, "-m", "fast.cli"]
    out = subprocess.run([*command, "warmup"], env=_env(cache), capture_output=True, text=True, cwd=ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-5000:]
    assert "snc.snc_gradient" in out.stdout and "numba cache warmed in" in out.stdout
    assert "kernels cached (" in out.stdout and str(cache) in out.stdout
    assert "FAILED" not in out.stdout and "no cache entry" not in out.stderr
