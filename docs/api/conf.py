"""Sphinx configuration of the privlearn API reference (autodoc + numpydoc).

Build (from the repository root, warnings as errors):
    python -m sphinx -W --keep-going -b html docs/api docs/api/_build/html
Needs the ``docs`` extra (sphinx, numpydoc).
"""
from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

project = "privlearn"
author = "privlearn contributors"
try:
    release = importlib.metadata.version("privlearn")
except importlib.metadata.PackageNotFoundError:
    release = "0+unknown"
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc", "sphinx.ext.viewcode"]
exclude_patterns = ["_build"]
templates_path: list[str] = []
html_theme = "alabaster"
html_static_path: list[str] = []

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_typehints = "none"  # the numpydoc sections carry the types
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
nitpicky = False
suppress_warnings: list[str] = []


# --------------------------------------------------------------------------- docstring conventions of the library
# The first line of every function docstring is its formula, written in plain text as in the papers
# ("|1 - 6 sum d^2 / (m(m^2 - 1))|", "||theta||_2"); reStructuredText would read |...| as a substitution.  Escape
# the bars so the formula renders as written.  scikit-learn generates set_*_request methods on every estimator whose
# docstrings cross-reference scikit-learn's own documentation; they are not part of this library's API.
def _escape_bars(app, what, name, obj, options, lines):
    for k, line in enumerate(lines):
        lines[k] = line.replace("\\|", "|").replace("|", "\\|")


def _skip_sklearn_routing(app, what, name, obj, skip, options):
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars, priority=100)
    app.connect("autodoc-skip-member", _skip_sklearn_routing)
