"""``import fast`` inside a user's project that has its own top-level ``spec`` and ``reference`` packages (issue 28,
item 3).

``fast`` is what production code imports, so its runtime must not resolve the generic names ``spec`` or
``reference`` (before issue 28 it imported ``spec.*`` everywhere: ``import fast`` in such a project failed with
``ImportError: cannot import name '__version__' from 'spec'``).  Its contracts live in ``fast._contracts``; each
``spec.<name>`` of them is an alias that IS the module there, so ``reference`` (which imports ``spec.*``) and
``fast`` keep one contract: the same functions, classes and messages.
"""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the user's own packages: unrelated things, and submodules that refuse to be imported (a name we would want)
_USER_FILES = {
    "spec/__init__.py": 'WHOSE = "user spec"\n',
    "spec/validation.py": 'raise RuntimeError("the user\'s spec.validation was imported by privlearn")\n',
    "spec/privacy_contract.py": 'raise RuntimeError("the user\'s spec.privacy_contract was imported by privlearn")\n',
    "reference/__init__.py": 'WHOSE = "user reference"\n',
    "reference/mechanisms.py": 'raise RuntimeError("the user\'s reference.mechanisms was imported by privlearn")\n',
}

#: run with cwd = the user's project and the project first on sys.path (as ``python -c`` / a script there does)
_USE_FAST = textwrap.dedent("""
    import sys
    import warnings

    import numpy as np

    import fast
    from fast import mechanisms
    from fast.accounting import BudgetAccountant, BudgetExceeded

    assert isinstance(fast.__version__, str) and fast.__version__
    # a private release, charged to a ledger; the over-budget charge is refused
    acc = BudgetAccountant(1.0)
    assert np.isfinite(mechanisms.laplace_mechanism(0.5, sensitivity=1.0, epsilon=0.5, accountant=acc))
    try:
        mechanisms.laplace_mechanism(0.5, sensitivity=1.0, epsilon=0.75, accountant=acc)
    except BudgetExceeded:
        pass
    else:
        raise AssertionError("the ledger did not refuse an over-budget charge")
    # the shared input contract's message
    try:
        mechanisms.laplace_mechanism(0.5, sensitivity=-1.0, epsilon=1.0)
    except ValueError as exc:
        assert "sensitivity" in str(exc), exc
    else:
        raise AssertionError("a negative sensitivity was accepted")
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (300, 3))
    y = (X[:, 0] > 0).astype(int)
    fast.PrivateBoostClassifier(epsilon=1.0, data_norm=1.0, n_rounds=5, classes=(0, 1)).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RadoBoost's convergence notes are not the point here
        fast.RadoBoostClassifier(5, n_rados=20, classes=(-1, 1), random_state=0).fit(np.sign(X), 2 * y - 1)
    levels = np.array([["a", "b", "c"][i % 3] for i in range(300)], dtype=object).reshape(-1, 1)
    fast.ImpactEncoder(mode="naive", epsilon=1.0, categories=[["a", "b", "c"]], classes=(0, 1)).fit(levels, y)
    ours = sorted(m for m in sys.modules if m.split(".")[0] in ("spec", "reference"))
    assert ours == [], f"fast imported {ours}"
    import reference
    import spec

    assert spec.WHOSE == "user spec" and reference.WHOSE == "user reference", (spec.__file__, reference.__file__)
    print("OK")
""")


def _user_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for rel, text in _USER_FILES.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    return project


def _run_in(project: Path, code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # the user's project first, then this checkout (the editable install's finder comes after both anyway)
    env["PYTHONPATH"] = os.pathsep.join([str(project), str(ROOT)])
    return subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True,
                          timeout=300)


def test_fast_works_inside_a_project_with_its_own_spec_and_reference(tmp_path):
    """A project with its own ``spec`` (whose ``validation`` / ``privacy_contract`` raise on import) and
    ``reference`` runs ``import fast``, a Laplace release charged to a ledger (and refused over budget), the input
    contract's error, and fits of PrivateBoostClassifier, RadoBoostClassifier and ImpactEncoder; ``fast`` loads
    nothing named ``spec*`` / ``reference*``, and ``import spec`` / ``import reference`` afterwards give the user's.

    Fails on the code before issue 28: ``fast/__init__.py`` did ``from spec import __version__`` (ImportError:
    cannot import name '__version__' from 'spec'), and every module of fast imported ``spec.validation``."""
    project = _user_project(tmp_path)
    out = _run_in(project, _USE_FAST)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "OK"


def test_the_report_command_refuses_a_shadowing_spec_and_names_it(tmp_path):
    """``privlearn report`` needs this distribution's ``spec`` (the registry): in a project whose ``spec`` shadows it,
    it refuses with a usage error (exit 2) naming the package it found, before importing anything named ``spec``,
    instead of running the user's code.

    Fails on the code before issue 28: ``fast.cli`` could not even be imported there (``import fast`` failed)."""
    project = _user_project(tmp_path)
    code = textwrap.dedent("""
        import sys
        from fast import cli

        code = cli.main(["report", "--no-run", "--out", "claims.md"])
        assert code == cli.EXIT_USAGE, code
        assert not any(m.split(".")[0] in ("spec", "reference") for m in sys.modules), sorted(sys.modules)
        import spec

        assert spec.WHOSE == "user spec"
        print("OK")
    """)
    out = _run_in(project, code)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "OK"
    assert "privlearn report: error:" in out.stderr and str(project / "spec") in out.stderr
    assert "shadows it" in out.stderr
    assert not (project / "claims.md").exists()


def test_each_spec_contract_module_is_the_module_in_fast():
    """``spec.<name>`` IS ``fast._contracts.<name>`` for every moved module (one object: the same functions and
    exception classes, so reference and fast raise identical errors and a monkeypatch of either name patches both);
    and the list of moved modules is exactly the ``spec/*.py`` files that are aliases.

    Fails on the code before issue 28: there was no ``fast._contracts``."""
    import fast._contracts as contracts

    aliases = sorted(p.stem for p in (ROOT / "spec").glob("*.py")
                     if "sys.modules[__name__] = _module" in p.read_text())
    assert aliases == sorted(contracts.MODULES)
    for name in contracts.MODULES:
        moved = importlib.import_module(f"fast._contracts.{name}")
        assert importlib.import_module(f"spec.{name}") is moved, name
        assert getattr(importlib.import_module("spec"), name) is moved, name
        assert moved.__name__ == f"fast._contracts.{name}"
    import spec
    import spec.budget_ledger
    import spec.validation

    import fast
    import fast.accounting

    assert spec.__version__ == fast.__version__ == contracts.__version__
    assert spec.budget_ledger.BudgetExceeded is fast.accounting.BudgetExceeded
    assert spec.validation.check_int is fast._contracts.validation.check_int
    # the registry's "library names" (names a paper finding may not cite) stay those of reference/ and fast/ proper:
    # the contract's names were spec's before the move and are not counted now either
    from spec.registry import library_symbols

    assert "hsstl_rho" in library_symbols() and not {"check_int", "BudgetExceeded"} & library_symbols()


def test_reference_and_fast_raise_the_same_error_through_the_aliased_contract(monkeypatch):
    """The contract is one object under two names: a bad argument gives the same type and message in both
    packages, and patching ``spec.validation``'s function is seen through ``fast._contracts.validation``.

    Fails on the code before issue 28 (no ``fast._contracts``); the first half is a guard of the shared messages."""
    import fast._contracts.validation as moved
    import fast.mechanisms as FM
    import reference.mechanisms as RM
    import spec.validation

    errors = []
    for mod in (RM, FM):
        with pytest.raises(ValueError) as info:
            mod.laplace_mechanism(0.5, sensitivity=-1.0, epsilon=1.0)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
    monkeypatch.setattr(spec.validation, "check_int", lambda *a, **k: "patched")
    assert moved.check_int(1, "n") == "patched"
