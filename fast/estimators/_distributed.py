"""The estimators' dask paths (bodies of the one-line dispatches at the top of their ``fit`` / ``transform``).

Rules (``../shared/notes/scaleout-design.md`` s3), each checked in ``tests/test_dask.py``:

* a task returns an exact partial (int64 count tables; exact rado terms); it never draws noise;
* the driver merges the partials, charges the ledger BEFORE the job is submitted, and calls :mod:`fast.mechanisms`
  once per release (per column of an impact coder), in its own process;
* fold / split membership is a keyed hash of a stable row id (:func:`keyed_hash`: the ``row_id`` column), never of
  a position, so it does not depend on the partitioning, the row order or the other rows;
* the result equals the in-memory fit on the same rows (with the same ``row_id``) bit for bit.

The paths live in :mod:`fast.estimators._distributed_impact`, :mod:`~fast.estimators._distributed_rados` and
:mod:`~fast.estimators._distributed_boost`, the keyed row hashes in :mod:`fast.estimators._keyed_rows` (all
re-exported here).  Only numpy / pandas at import: dask is imported by :mod:`fast._dask` when a collection is handed
in.
"""
from __future__ import annotations

__all__ = ["keyed_hash", "fold_key", "keyed_folds", "keyed_split", "impact_fit", "impact_transform",
           "radoboost_fit", "boost_fit", "private_edges_rados", "fixed_support_picks", "ID_COL", "Y_COL",
           "_impact_partial", "_add_tables", "_bisect_capping"]

from fast.estimators._keyed_rows import fold_key, keyed_folds, keyed_hash, keyed_split

# the three paths, one module each (re-exported here: the estimators dispatch through this module)
from fast.estimators._distributed_impact import (
    ID_COL,
    Y_COL,
    _add_tables,
    _impact_partial,
    impact_fit,
    impact_transform,
)
from fast.estimators._distributed_rados import (
    fixed_support_picks,
    private_edges_rados,
    radoboost_fit,
)
from fast.estimators._distributed_boost import _bisect_capping, boost_fit
