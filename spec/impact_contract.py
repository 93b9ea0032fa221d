"""Alias of :mod:`fast._contracts.impact_contract`, where this module lives since issue 28 (``import fast`` must not need the
top-level name ``spec``).  ``spec.impact_contract`` IS that module (one object under both names in ``sys.modules``): the
same functions, classes and exceptions, so ``reference`` and ``fast`` share one contract by construction.
"""
import sys

from fast._contracts import impact_contract as _module

sys.modules[__name__] = _module
