"""The runtime contracts of :mod:`fast`: input validation, the privacy contract and budget ledger, the claim-link
decorators, the per-family input contracts, and the distribution's ``__version__``.

They live under ``fast``'s own namespace so that ``import fast`` never resolves the generic top-level names
``spec`` or ``reference``: a project with its own ``spec/`` or ``reference/`` package on ``sys.path`` can import
and use ``fast`` (issue 28, item 3).  ``spec`` keeps its public names: each ``spec.<name>`` of these modules is an
alias that IS the module here (``spec.validation is fast._contracts.validation``), so ``reference`` (which imports
``spec.*``) and ``fast`` share one contract object by construction: the same functions, the same exception
classes, the same messages.  Private: import the public names from ``spec.*`` (or ``fast``'s own modules, e.g.
``fast.accounting.BudgetExceeded``), not from here.
"""
from __future__ import annotations

__all__ = ["__version__"]

#: the modules that live here; ``spec/<name>.py`` is an alias of each (it replaces itself in ``sys.modules``)
MODULES = ("accounting_contract", "boosting_contract", "budget_ledger", "budgeted_contract", "causal_validation",
           "impact_contract", "labels_contract", "links", "losses_contract", "privacy_contract", "radoboost_contract",
           "reconstruction_contract", "selection_contract", "snc_contract", "validation", "words")


def _version() -> str:
    """The installed distribution's version (``privlearn``), or "unknown" when run from a bare source tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("privlearn")
    except PackageNotFoundError:
        return "unknown"


__version__ = _version()
