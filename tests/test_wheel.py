"""The built wheel works where a user installs it: built from a copy of the committed tree (never inside the
checkout: a build writes build/ and *.egg-info beside the sources), installed into a new virtual environment with
``pip install --no-deps`` (the dependencies come from this interpreter's site-packages, so no network is needed to
install), and run from a directory outside the repository: ``privlearn --help``, ``privlearn report --no-run`` and
``python -m spec coverage`` exit 0 and say what an installed package can and cannot do.

Building needs setuptools >= 68 and wheel: from this interpreter when it has them (``--no-build-isolation``, offline),
else in pip's isolated build environment (which needs the package index); the test skips, with the reason, when
neither works, or when ``venv`` / ``pip`` are unavailable.
"""
from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from spec.registry import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.ci]


def _run(cmd, *, cwd, env=None, timeout=300):
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _copy_tree(dest: Path) -> None:
    """The files git tracks (what a release is built from), copied without .git, .venv, build/ or caches."""
    listed = _run(["git", "ls-files", "-z"], cwd=ROOT)
    if listed.returncode != 0:
        pytest.skip(f"git ls-files failed (not a git checkout?): {listed.stderr.strip()[:200]}")
    for rel in listed.stdout.split("\0"):
        if not rel:
            continue
        src = ROOT / rel
        if not src.is_file():  # deleted in the working tree, not yet committed
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def _build_wheel(src: Path, dist: Path) -> Path:
    base = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, src]
    offline = _run(base[:4] + ["--no-build-isolation"] + base[4:], cwd=src.parent)
    if offline.returncode != 0:
        isolated = _run(base, cwd=src.parent)
        if isolated.returncode != 0:
            pytest.skip("cannot build the wheel: no setuptools>=68 and wheel in this interpreter "
                        f"({offline.stderr.strip()[-300:]}) and pip's isolated build failed "
                        f"({isolated.stderr.strip()[-300:]})")
    wheels = sorted(dist.glob("privlearn-*.whl"))
    assert len(wheels) == 1, list(dist.iterdir())
    return wheels[0]


def test_wheel_installs_and_runs_outside_the_repository(tmp_path):
    try:
        import venv  # noqa: F401
    except ImportError:
        pytest.skip("the venv module is not available")
    if _run([sys.executable, "-m", "pip", "--version"], cwd=tmp_path).returncode != 0:
        pytest.skip("pip is not available to this interpreter")

    had_build, had_egg = (ROOT / "build").exists(), list(ROOT.glob("*.egg-info"))  # the checkout stays untouched
    src = tmp_path / "src"
    _copy_tree(src)
    wheel = _build_wheel(src, tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert "spec/claims.toml" in names and any(n.startswith("spec/claims.d/") for n in names)
    assert not any(n.startswith(("tests/", "proofs_checks/")) for n in names)
    assert any(n.endswith("entry_points.txt") for n in names)
    assert (ROOT / "build").exists() == had_build and not list(ROOT.glob("*.egg-info"))[len(had_egg):]

    env_dir = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--system-site-packages", env_dir], cwd=tmp_path, timeout=180)
    if made.returncode != 0:
        pytest.skip(f"python -m venv failed: {made.stderr.strip()[-300:]}")
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / "python"
    installed = _run([py, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheel], cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-3000:]
    # the dependencies (numpy, scipy, ...) from this interpreter's site-packages, appended to the new environment's
    # sys.path by a plain path line: their .pth files are not processed, so this checkout's editable install of
    # privlearn stays invisible and the packages come from the wheel
    new_site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         cwd=tmp_path).stdout.strip())
    deps = [p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]]) if Path(p).is_dir()]
    (new_site / "zz_privlearn_test_deps.pth").write_text("\n".join(deps) + "\n")

    outside = tmp_path / "outside"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}", HOME=str(tmp_path), PYTHONWARNINGS="ignore",
               NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), MPLCONFIGDIR=str(tmp_path / "mpl"))

    where = _run([py, "-c", "import fast, reference, spec, spec.registry as r; print(spec.__file__, r.ROOT)"],
                 cwd=outside, env=env)
    assert where.returncode == 0, where.stderr[-3000:]
    assert str(new_site) in where.stdout and str(ROOT) not in where.stdout, where.stdout

    helped = _run([bindir / "privlearn", "--help"], cwd=outside, env=env)
    assert helped.returncode == 0, helped.stderr[-3000:]
    for command in ("rados", "fit-rados", "causal", "report"):
        assert command in helped.stdout
    assert "usage: privlearn" in helped.stdout

    rep = _run([bindir / "privlearn", "report", "--no-run"], cwd=outside, env=env, timeout=400)
    assert rep.returncode == 0, rep.stdout[-3000:] + rep.stderr[-3000:]
    first = rep.stdout.splitlines()[0]
    assert first.startswith("privlearn claim report -- commit unknown (not a git checkout),"), rep.stdout[:500]
    assert "installed package" in rep.stdout and "broken link" not in rep.stdout
    md = (outside / "report" / "claims.md").read_text()
    assert "Mode: installed package" in md and "## Findings" in md
    assert (outside / "report" / "index.html").stat().st_size > 10_000

    cov = _run([py, "-m", "spec", "coverage"], cwd=outside, env=env, timeout=400)
    assert cov.returncode == 0, cov.stdout[-3000:] + cov.stderr[-3000:]
    assert cov.stdout.startswith("installed package") and "the checks are not shipped" in cov.stdout
    assert "does not exist" not in cov.stdout and "claims registered" in cov.stdout
