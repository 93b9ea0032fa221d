"""scikit-learn estimators of privlearn: one module per family, all re-exported here and from :mod:`fast`.

=====================  ==========================================================  ======================
module                 estimators                                                  paper
=====================  ==========================================================  ======================
``rados``              :class:`RadoBoostClassifier`, :class:`OmegaRAdaBoostClassifier`  nock2015, nock2016
``causal``             :class:`PrivateANM`, :func:`infer_directions`               kusner2016 ch. 4
``boosting``           ``PrivateBoostClassifier``                                  bun2020
``impact``             ``ImpactEncoder``                                           winvector2015
``astc``               ``ASTCClassifier``, ``ASTCRegressor``                       kusner2016 ch. 1-2
``snc``                ``SNCClassifier``                                           kusner2016 ch. 3
=====================  ==========================================================  ======================

Names are imported lazily (on first use), so ``import fast.estimators`` costs nothing until an estimator is
used and a family whose optional dependency is missing does not break the others.
"""
from __future__ import annotations

import importlib

#: public name -> module (inside fast.estimators) that defines it
_HOMES = {
    "RadoBoostClassifier": "rados",
    "OmegaRAdaBoostClassifier": "rados",
    "PrivateANM": "causal",
    "PairResult": "causal",
    "infer_directions": "causal",
    "nonprivate_diagnostics": "causal",
    "ANMDiagnostics": "causal",
    "PrivateBoostClassifier": "boosting",
    "ImpactEncoder": "impact",
    "ASTCClassifier": "astc",
    "ASTCRegressor": "astc",
    "SNCClassifier": "snc",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    try:
        module = _HOMES[name]
    except KeyError:
        raise AttributeError(f"module 'fast.estimators' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"fast.estimators.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOMES))
