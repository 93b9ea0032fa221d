"""Alias of :mod:`fast._contracts.selection_contract` (``spec.selection_contract`` IS that module, one object under
both names in ``sys.modules``): the same functions and messages in ``reference`` and ``fast``.
"""
import sys

from fast._contracts import selection_contract as _module

sys.modules[__name__] = _module
