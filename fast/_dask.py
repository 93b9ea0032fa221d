"""The one engine-facing module: dask collections in, exact partials out, everything else on the driver.

``import fast`` never imports dask: :func:`is_dask_collection` answers False without importing it when no dask
module is loaded (nobody can hold a dask collection then), and every other function imports dask only when it is
handed a collection.  privlearn never starts a cluster: work runs on the scheduler dask itself would use (the active
``distributed.Client`` when one exists, else dask's default local scheduler).

The protocol (``../shared/notes/scaleout-design.md`` s0, s3):

* a task is a pure function of (its rows, their GLOBAL row ids or offsets, broadcast public parameters) and returns
  an exact, mergeable partial: int64 counts, exact float terms (:mod:`fast._exact_rados`) or small vectors;
* :func:`compute` is the one place anything travels to the driver; tests spy on it to check that only partials do
  (never the rows);
* the driver merges the partials (order-free), charges the ledger and draws the noise once per release from
  :mod:`fast.mechanisms`; no task draws noise.
"""
from __future__ import annotations

import functools
import sys

import numpy as np

__all__ = ["is_dask_collection", "compute", "tree_reduce", "lazy_rows", "map_rows", "array_blocks", "rados",
           "weighted_sum"]


def is_dask_collection(x) -> bool:
    """True when ``x`` is a dask collection (array, DataFrame, Series, delayed), without importing dask."""
    if "dask" not in sys.modules:
        return False
    if not type(x).__module__.startswith("dask"):
        return False
    import dask

    return bool(dask.is_dask_collection(x))


def compute(*objs):
    """``dask.compute(*objs)`` on the active scheduler: the single door through which results reach the driver."""
    import dask

    return dask.compute(*objs)


#: partials merged per reduction task (a worker holds at most this many partials of one merge at once)
FAN_IN = 8


def tree_reduce(parts, combine, fan_in: int = FAN_IN):
    """One delayed object: ``combine`` applied over ``parts`` (delayed partials) in a tree of ``fan_in``-way
    merges on the workers, so only the merged partial reaches the driver (and no worker holds more than ``fan_in``
    partials of a merge).  ``combine`` must be exact and order-free (int64 table sums): the result is then the
    same for every partitioning, fan-in and order of completion."""
    import dask

    if not parts:
        raise ValueError("parts must hold at least one partial")
    if fan_in < 2:
        raise ValueError(f"fan_in must be >= 2, got {fan_in}")
    task = dask.delayed(combine, pure=True)
    level = list(parts)
    while len(level) > 1:
        level = [task(*level[i:i + fan_in]) if len(level[i:i + fan_in]) > 1 else level[i]
                 for i in range(0, len(level), fan_in)]
    return level[0]


# --------------------------------------------------------------------------- row-wise methods (predict, transform)


def _apply(block, est, name):
    """One task: the fitted estimator's in-memory ``name`` method on one row block (numpy or pandas)."""
    return getattr(est, name)(block)


def _as_pandas(pdf, est, name):
    """One partition: the method's output as a pandas Series (1-d) or DataFrame (2-d, one column per class) on
    the partition's index."""
    import pandas as pd

    out = np.asarray(_apply(pdf, est, name))
    if out.ndim == 1:
        return pd.Series(out, index=pdf.index, name=name)
    return pd.DataFrame(out, index=pdf.index, columns=_columns(est, out.shape[1]))


def _columns(est, k):
    classes = getattr(est, "classes_", None)
    return list(classes) if classes is not None and len(classes) == k else list(range(k))


def map_rows(est, name: str, X):
    """The lazy result of ``est.<name>(X)`` for a dask array or DataFrame ``X``: the in-memory method applied to
    every row block on the workers (nothing is computed here, no row reaches the driver).

    A dask array gives a dask array with X's row chunks (1-d, or 2-d with one column chunk); a dask DataFrame gives
    a dask Series named ``name`` (1-d output) or a DataFrame with one column per class, on X's index.  The method
    first runs on a one-row probe of X's dtype (zeros; for a DataFrame dask's non-empty meta, made-up values): a
    wrong number of features, a missing column or an unfitted estimator raises here, at the call, with the
    in-memory message, and the probe's output fixes the result's dtype and width."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        meta = _as_pandas(X._meta_nonempty.iloc[:1], est, name).iloc[:0]
        return X.map_partitions(_as_pandas, est, name, meta=meta)
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d (m, d), got a {X.ndim}-d dask array")
        X = X.rechunk({1: -1})
        rows = _known_rows(X.chunks[0], "X")
        probe = np.asarray(_apply(np.zeros((1, X.shape[1]), dtype=X.dtype), est, name))
        if probe.ndim == 1:
            return X.map_blocks(_apply, est, name, dtype=probe.dtype, drop_axis=1, chunks=(rows,),
                                meta=np.empty((0,), dtype=probe.dtype))
        return X.map_blocks(_apply, est, name, dtype=probe.dtype, chunks=(rows, (probe.shape[1],)),
                            meta=np.empty((0, 0), dtype=probe.dtype))
    raise TypeError(f"X must be a dask array or DataFrame, got {type(X).__name__}")


def lazy_rows(method):
    """Decorate a row-wise method of a fitted estimator (``predict``, ``predict_proba``, ``decision_function``,
    ...): on a dask array or DataFrame it returns the lazy :func:`map_rows` result instead of collecting the rows;
    on anything else it is the method itself."""
    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        if is_dask_collection(X):
            if args or kwargs:
                raise TypeError(f"{method.__name__} takes no further arguments with a dask input")
            return map_rows(self, method.__name__, X)
        return method(self, X, *args, **kwargs)

    return wrapper


def _known_rows(chunks, name: str) -> tuple[int, ...]:
    rows = tuple(chunks)
    if any(isinstance(r, float) and np.isnan(r) for r in rows):
        raise ValueError(f"{name} has unknown chunk sizes: call {name}.compute_chunk_sizes() first (the global row "
                         "offsets of the chunks are the row ids)")
    return tuple(int(r) for r in rows)


def array_blocks(X, name: str = "X"):
    """(blocks, offsets, chunks): a 2-d dask array's row blocks (columns in one chunk) as delayed objects, their
    global row offsets and the row chunk sizes."""
    import dask.array as da

    if not isinstance(X, da.Array):
        raise TypeError(f"{name} must be a dask array when another argument is one, got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-d (m, d), got {X.ndim}-d")
    X = X.rechunk({1: -1})
    rows = _known_rows(X.chunks[0], name)
    offsets = np.concatenate([[0], np.cumsum(rows)]).astype(np.int64)
    return [b[0] for b in X.to_delayed(optimize_graph=False)], offsets, rows


def vector_blocks(y, rows, name: str = "y"):
    """A 1-d dask array or array-like cut into the row chunks ``rows`` (delayed or numpy slices)."""
    import dask.array as da

    m = int(sum(rows))
    if is_dask_collection(y):
        if not isinstance(y, da.Array):
            y = da.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"{name} must be 1-d, got {y.ndim}-d")
        if not any(isinstance(r, float) and np.isnan(r) for r in y.chunks[0]) and y.shape[0] != m:
            raise ValueError(f"{name} must have one entry per row of X ({m}), got {y.shape[0]}")
        return list(y.rechunk((tuple(rows),)).to_delayed(optimize_graph=False))
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] != m:
        raise ValueError(f"{name} must be 1-d with one entry per row of X ({m}), got shape {arr.shape}")
    offsets = np.concatenate([[0], np.cumsum(rows)])
    return [arr[offsets[k]:offsets[k + 1]] for k in range(len(rows))]


# --------------------------------------------------------------------------- rados


def _rados_partial(xb, yb, sig, offset, intercept):
    """One task: the exact terms (T, n, d) of the rados of global rows [offset, offset + len(xb))."""
    from fast._contracts.validation import as_signature_matrix
    from fast._exact_rados import exact_terms

    xb = np.asarray(xb)
    if isinstance(sig, np.ndarray):
        sig = as_signature_matrix(sig, "sigmas", m=xb.shape[0])
    if intercept:
        xb = np.column_stack([xb, np.ones(xb.shape[0])])
    yb, E = block_edges(xb, yb)
    return exact_terms(E, yb, sig, offset)


def block_edges(xb, yb):
    """(y, E = y[:, None] * X) of one row block with the in-memory contract and messages
    (:func:`fast.rados._examples_and_edges`: a bad X is named before a bad y), in numpy: :mod:`fast.rados` would
    load numba (~105 MB of a worker's ``memory_limit``) for a one-pass product."""
    from fast._contracts.validation import as_float_matrix, as_labels, check_finite_array

    X = as_float_matrix(xb, "X", check_finite=False)
    try:
        yb = as_labels(yb, "y", length=X.shape[0])
    except (TypeError, ValueError):
        check_finite_array(X, "X")
        raise
    check_finite_array(X, "X")
    return yb, yb[:, None].astype(np.float64) * X


def rados(X, y, sigmas, *, intercept: bool = False):
    """The exactly rounded rados (n, d) of a row-chunked dask array X: one task per chunk, exact partials merged on
    the driver (:mod:`fast._exact_rados`).  ``sigmas``: a :class:`fast._exact_rados.SignatureStream`, an (n, m)
    numpy matrix, or an (n, m) dask array (cut at X's row chunks)."""
    import dask
    import dask.array as da

    from fast._exact_rados import SignatureStream, finish_terms

    blocks, offsets, rows = array_blocks(X)
    ys = vector_blocks(y, rows)
    m, d = int(offsets[-1]), X.shape[1] + (1 if intercept else 0)
    if isinstance(sigmas, SignatureStream):
        n, sigs = sigmas.n, [sigmas] * len(rows)
    elif isinstance(sigmas, da.Array):
        if sigmas.ndim != 2 or sigmas.shape[1] != m:
            raise ValueError(f"sigmas must have m = {m} columns (one per example), got shape {sigmas.shape}")
        n = sigmas.shape[0]
        sigs = [b[0] for b in sigmas.rechunk(((n,), tuple(rows))).astype(np.int8).to_delayed(optimize_graph=False).T]
    else:
        from fast._contracts.validation import as_signature_matrix

        arr = as_signature_matrix(sigmas, "sigmas", m=m)
        n = arr.shape[0]
        sigs = [np.ascontiguousarray(arr[:, offsets[k]:offsets[k + 1]]) for k in range(len(rows))]
    task = dask.delayed(_rados_partial, pure=True)
    parts = compute(*[task(b, yb, s, int(offsets[k]), intercept)
                      for k, (b, yb, s) in enumerate(zip(blocks, ys, sigs))])
    return finish_terms(parts, n, d)


# --------------------------------------------------------------------------- weighted sums (a boosting round's centroid)


def _weighted_sum_partial(xb, vb):
    """One task: exact terms of sum_i v_i x_i over the chunk's rows (each product rounded once, then exact)."""
    from fast._exact_rados import exact_terms

    E = np.asarray(vb, dtype=np.float64)[:, None] * np.asarray(xb, dtype=np.float64)
    ones = np.ones(E.shape[0], dtype=np.int8)
    return exact_terms(E, ones, np.ones((1, E.shape[0]), dtype=np.int8))


def weighted_sum(X, v) -> np.ndarray:
    """sum_i v_i x_i (d,) of a row-chunked dask array X and weights v (dask or numpy): per column ``math.fsum`` of
    the products v_i x_ij, whatever the chunking (the centroid pass of a boosting round; in memory: the same
    function on a numpy X, one block)."""
    import dask

    from fast._exact_rados import finish_terms

    if not is_dask_collection(X):
        X = np.asarray(X, dtype=np.float64)
        return finish_terms([_weighted_sum_partial(X, np.asarray(v, dtype=np.float64))], 1, X.shape[1])[0]
    blocks, offsets, rows = array_blocks(X)
    vs = vector_blocks(v, rows, "v")
    task = dask.delayed(_weighted_sum_partial, pure=True)
    parts = compute(*[task(b, vb) for b, vb in zip(blocks, vs)])
    return finish_terms(parts, 1, X.shape[1])[0]
