"""privlearn's property-checked specification.

- ``spec/claims.toml`` and ``spec/claims.d/*.toml``: the registry, one ``[[claim]]`` table per claim of the
  papers (see :mod:`spec.registry`).
- :mod:`spec.links`: the ``@implements`` / ``@checks`` decorators that tie code and checks to claim ids.
- :mod:`spec.strategies`: hypothesis strategies shared by every test.
- :mod:`spec.pairs`: the reference-vs-fast table that drives the equivalence tests and the benchmarks.
- ``python -m spec coverage | report``: what is checked, and the auditor's report.

The runtime contracts ``fast`` needs (:mod:`spec.validation`, :mod:`spec.privacy_contract`,
:mod:`spec.budget_ledger`, :mod:`spec.links`, the ``*_contract`` modules, ...) and ``__version__`` live in
``fast._contracts`` (issue 28: ``import fast`` must work in a project with its own ``spec``); each ``spec.<name>``
of them is an alias that IS the module there.
"""
from fast._contracts import __version__
from spec.links import checks, implements

__all__ = ["__version__", "checks", "implements"]
