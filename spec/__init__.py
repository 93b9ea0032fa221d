"""privlearn's property-checked specification.

- ``spec/claims.toml`` and ``spec/claims.d/*.toml``: the registry, one ``[[claim]]`` table per claim of the
  papers (see :mod:`spec.registry`).
- :mod:`spec.links`: the ``@implements`` / ``@checks`` decorators that tie code and checks to claim ids.
- :mod:`spec.strategies`: hypothesis strategies shared by every test.
- :mod:`spec.pairs`: the reference-vs-fast table that drives the equivalence tests and the benchmarks.
- ``python -m spec coverage | report``: what is checked, and the auditor's report.
"""
from spec.links import checks, implements

__all__ = ["__version__", "checks", "implements"]
def _version() -> str:
    """The installed distribution's version (``privlearn``), or "unknown" when run from a bare source tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("privlearn")
    except PackageNotFoundError:
        return "unknown"


__version__ = _version()

