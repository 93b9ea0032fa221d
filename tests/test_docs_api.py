"""The library's documentation (docs/api/): the tutorials' Python examples run, and the Sphinx API reference
(autodoc + numpydoc) builds with warnings as errors."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = sorted((ROOT / "docs" / "api" / "tutorials").glob("*.rst"))


def _python_blocks(path: Path) -> list[str]:
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:    .*\n|\n)+)", path.read_text())
    return ["\n".join(line[4:] for line in b.splitlines()) for b in blocks]


def test_every_tutorial_exists_and_is_in_the_index():
    names = {p.stem for p in TUTORIALS}
    assert {"custodian", "auditor", "practitioner", "preprocessing"} <= names
    index = (ROOT / "docs" / "api" / "index.rst").read_text()
    assert all(f"tutorials/{n}" in index for n in names)


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_python_examples_run(path, capsys):
    blocks = _python_blocks(path)
    for code in blocks:
        exec(compile(code, str(path), "exec"), {})  # noqa: S102 - our own documentation
    if path.stem != "custodian":  # the custodian's tutorial is mostly console commands (tested in test_cli.py)
        assert blocks, f"{path.name} has no Python example"


@pytest.mark.slow
@pytest.mark.ci
def test_sphinx_api_reference_builds_without_warnings(tmp_path):
    pytest.importorskip("sphinx", reason="sphinx is not installed (the docs extra)")
    pytest.importorskip("numpydoc", reason="numpydoc is not installed (the docs extra)")
    out = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                          str(ROOT / "docs" / "api"), str(tmp_path / "html")], capture_output=True, text=True,
                         timeout=900, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-5000:]
    html = tmp_path / "html" / "reference"
    assert "laplace_mechanism" in (html / "fast.html").read_text()
    assert "PrivateBoostClassifier" in (html / "estimators.html").read_text()


def _modules() -> list[str]:
    import pkgutil

    names = []
    for pkg in ("fast", "reference", "spec"):
        names.append(pkg)
        names += [m.name for m in pkgutil.walk_packages([str(ROOT / pkg)], prefix=f"{pkg}.")
                  if not m.name.endswith("__main__")]
    return sorted(names)


@pytest.mark.slow
@pytest.mark.parametrize("module", _modules())
def test_docstring_examples_run_as_doctests(module):
    """numpydoc Examples sections are doctests: every one in the three packages runs and prints what it shows."""
    import doctest
    import importlib

    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(mod, module):  # globals: a copy of the module's, as pytest --doctest-modules
        runner.run(test, out=lambda s: None)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {module}"
