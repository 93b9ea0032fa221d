"""privlearn.fast: the production package (numpy / numba).

Same public names and semantics as :mod:`reference`, differential-tested against it.  Import the
concept modules directly, e.g. ``from fast import rados`` or ``import fast.rados``.  The scikit-learn
estimators live in :mod:`fast.estimators` (one module per family) and are re-exported here, imported on first
use: ``from fast import RadoBoostClassifier, PrivateANM``; so is the public preprocessing of
:mod:`fast.preprocessing` (``from fast import PublicScaler``).
"""
from __future__ import annotations

from fast import _autowarm
from fast import estimators as _estimators
from fast._contracts import __version__

_autowarm.maybe_start()  # a cold numba cache: compile ahead in a detached background process (fast/_autowarm.py)

#: the public preprocessing of :mod:`fast.preprocessing` (declared-bounds scaling, declared-categories encoders,
#: clipping, the custodian's clipping report), re-exported on first use like the estimators
_PREPROCESSING = ("ClippingWarning", "DomainClipper", "PublicOneHotEncoder", "PublicOrdinalEncoder", "PublicScaler",
                  "clipping_report")

#: private model selection of :mod:`fast.model_selection` (issue 26 item 4), re-exported on first use likewise
_MODEL_SELECTION = ("PrivateGridSearchCV", "Thresholdout", "thresholdout_forward_selection")

__all__ = ["__version__", *_estimators.__all__, *_PREPROCESSING, *_MODEL_SELECTION]


def __getattr__(name: str):
    if name in _estimators._HOMES:
        value = getattr(_estimators, name)
        globals()[name] = value
        return value
    if name in _PREPROCESSING or name in _MODEL_SELECTION:
        import importlib

        home = "fast.preprocessing" if name in _PREPROCESSING else "fast.model_selection"
        value = getattr(importlib.import_module(home), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fast' has no attribute {name!r}")
