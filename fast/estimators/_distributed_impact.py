"""The dask path of :class:`fast.estimators.impact.ImpactEncoder` (``fit``, ``fit_transform``, ``transform``).

Per-partition exact int64 count tables, merged on the workers (:func:`fast._dask.tree_reduce`); folds and the
split are keyed hashes of the ``row_id`` column (:mod:`fast.estimators._distributed`); the noise is drawn on the
driver, once per column.  The rules are :mod:`fast.estimators._distributed`'s.
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from fast.estimators._keyed_rows import fold_key, keyed_folds, keyed_split


def _frame_parts(enc, X, y):
    """(X without row_id / target, target series, row-id series) of a dask DataFrame input; y a dask Series
    aligned with X or the name of one of X's columns."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, da.Array):  # a dask array: columns x0, x1, ...; the row ids are the global chunk offsets
        from fast import _dask

        _, offsets, rows = _dask.array_blocks(X)
        if enc.row_id is not None:
            raise ValueError("row_id names a column of a DataFrame; a dask array's row ids are its chunk offsets")
        names = [f"x{j}" for j in range(X.shape[1])]
        ids = dd.from_dask_array(da.arange(int(offsets[-1]), chunks=(tuple(rows),), dtype=np.int64))
        X = dd.from_dask_array(X.rechunk({1: -1}), columns=names)
        X = X.assign(**{ID_COL: ids})
        if isinstance(y, da.Array):
            y = dd.from_dask_array(y.rechunk((tuple(rows),)))
        if not isinstance(y, dd.Series):
            raise TypeError(f"y must be a dask array or Series aligned with X, got {type(y).__name__}")
        return X[names], y, X[ID_COL]
    if not isinstance(X, dd.DataFrame):
        raise TypeError(f"X must be a dask DataFrame or array (or pandas / numpy), got {type(X).__name__}")
    drop = []
    if isinstance(y, str):
        if y not in X.columns:
            raise ValueError(f"y={y!r} names no column of X")
        drop.append(y)
        y = X[y]
    elif not isinstance(y, dd.Series):
        raise TypeError(f"y must be a dask Series aligned with X, or the name of a column of X; got {type(y).__name__}")
    ids = None
    if enc.row_id is not None:
        if enc.row_id not in X.columns:
            raise ValueError(f"row_id={enc.row_id!r} names no column of X")
        ids = X[enc.row_id]
        drop.append(enc.row_id)
    elif enc.mode in ("cross", "split"):
        raise ValueError(f"row_id must name a column of stable integer row ids for mode={enc.mode!r} with a dask "
                         "input: the folds / split are a keyed hash of it (positions depend on the partitioning)")
    # a column selection, not X.drop (dask's drop calls pandas' deprecated drop(inplace=True): a warning)
    return (X[[c for c in X.columns if c not in drop]] if drop else X), y, ids


#: the target and row-id columns carried beside the coded ones (one frame, one partitioning: dask may fuse the
#: partitions of two column selections of one read_parquet differently)
Y_COL, ID_COL = "__privlearn_y__", "__privlearn_row_id__"


def _impact_partial(frame, state):
    """One partition's exact int64 tables: per column, (k, L + 1, 2) [n_pos, n_neg] (level L: novel values)."""
    enc, pair, k, key, mode, fraction, cols = state
    from fast.labels import declared_pm1

    pdf, ys = frame[cols], frame[Y_COL]
    ids = frame[ID_COL] if ID_COL in frame.columns else None
    yy = (declared_pm1(np.asarray(ys), pair, n=len(pdf)) > 0).astype(np.int64)
    if mode == "cross":
        group = keyed_folds(np.asarray(ids), key, k)
    elif mode == "split":
        group = np.where(keyed_split(np.asarray(ids), key, fraction), 0, 1)  # 0: coding rows, 1: model rows
    else:
        group = np.zeros(len(pdf), dtype=np.int64)
    out = []
    for j in range(pdf.shape[1]):
        L = len(enc.levels_[j])
        idx = enc._map(pdf.iloc[:, j], j)
        idx = np.where(idx < 0, L, idx)
        cell = group * (L + 1) + idx
        tot = np.bincount(cell, minlength=k * (L + 1)).astype(np.int64)
        pos = np.bincount(cell[yy == 1], minlength=k * (L + 1)).astype(np.int64)
        out.append(np.stack([pos, tot - pos], axis=-1).reshape(k, L + 1, 2))
    return out


def _add_tables(*parts):
    """The exact merge of partitions' tables: per column, the int64 sum (associative and commutative)."""
    out = [np.array(t, dtype=np.int64) for t in parts[0]]  # copies: a partial held by dask is never modified
    for p in parts[1:]:
        for acc, t in zip(out, p):
            acc += t
    return out


def impact_fit(enc, X, y, *, want_codes, accountant):
    """:meth:`ImpactEncoder.fit` / ``fit_transform`` on a dask DataFrame (binary target, public ``categories``).

    Returns the lazy dask DataFrame of training codes when ``want_codes``, else None."""
    import dask

    from fast import _dask
    from fast import impact_coding as ic
    from fast._contracts import impact_contract as C
    from fast._contracts.privacy_contract import charge_fit, exact_share, noise_rng, reported_spent
    from fast.labels import classes_array, declared_classes

    if isinstance(enc.categories, str):
        raise ValueError("categories must be given (one public list of levels per column) with a dask input: "
                         "finding the levels present would read every row (and is a private release)")
    if enc.target_type == "continuous":
        raise ValueError("target_type='continuous' is not supported with a dask input (binary targets only)")
    if enc.mode == "jackknife" and want_codes:
        raise ValueError("mode='jackknife' training codes are not supported with a dask input; use 'cross' or "
                         "'split' (or fit)")
    if enc.mode == "cross" and not (isinstance(enc.cv, numbers.Integral) and not isinstance(enc.cv, bool)
                                    and enc.cv >= 2):
        raise ValueError(f"cv must be an int k >= 2 with a dask input (keyed folds), got {enc.cv!r}")
    Xc, ys, ids = _frame_parts(enc, X, y)
    pair = declared_classes(enc.classes, ys if enc.classes is None else None)
    enc.classes_ = classes_array(pair)
    names = np.asarray([str(c) for c in Xc.columns], dtype=object)
    if len(names) == 0:
        raise ValueError("X has 0 feature(s) to code")
    enc._names = names
    enc.n_features_in_ = len(names)
    if all(isinstance(c, str) for c in Xc.columns):
        enc.feature_names_in_ = names
    elif hasattr(enc, "feature_names_in_"):
        del enc.feature_names_in_
    enc._fit_levels([pd.Series([None], dtype=object) for _ in names])  # public levels only: no row is read
    enc.target_type_ = "binary"
    opts = enc._options("binary")
    enc._code = opts["code"]
    enc.model_rows_ = None
    private = enc.epsilon is not None
    k = int(enc.cv) if enc.mode == "cross" else 1
    key = fold_key(enc._seed()) if enc.mode in ("cross", "split") else (0, 0)
    if private:  # charged once, BEFORE anything is submitted (a failed job has spent it: conservative)
        eps_col = exact_share(enc.epsilon, len(names))
        spent = enc._plan(eps_col, np.arange(k) if enc.mode == "cross" else None)
        charge_fit(spent, accountant, enc.insecure_noise_seed, label=type(enc).__name__)
    k_tab = 2 if enc.mode == "split" else k  # split: [coding rows, model rows]
    cols = list(Xc.columns)
    state = (enc, pair, k_tab, key, enc.mode, float(enc.split_fraction), cols)
    frame = Xc.assign(**{Y_COL: ys})
    if ids is not None:
        frame = frame.assign(**{ID_COL: ids})
    shared = dask.delayed(state, pure=True)
    task = dask.delayed(_impact_partial, pure=True)
    # the per-partition tables are merged on the workers (exact int64 sums, any order): one (k, L + 1, 2) table
    # per column reaches the driver, whatever the number of partitions
    (tables,) = _dask.compute(_dask.tree_reduce([task(part, shared) for part in frame.to_delayed()],
                                                _add_tables))
    if private and hasattr(enc, "_report_accuracy"):  # as in memory: from n and the coding-row count (exact
        # totals of the merged tables, before any noise), epsilon and the level / fold counts
        n_rows = int(tables[0].sum())
        coding = np.ones(int(tables[0][0].sum()), dtype=bool) if enc.mode == "split" else None
        enc._report_accuracy(names, np.arange(k) if enc.mode == "cross" else None, coding, n_rows)
    elif not private:
        enc.accuracy_ = None
    coders, fold_coders = [], []
    enc._tables_ = []
    if private:
        seed = noise_rng(enc.insecure_noise_seed)
        rng = None if seed is None else np.random.default_rng(seed)
        kw = dict(target_type="binary", code=opts["code"], smoothing=opts["smoothing"],
                  rare_count=opts["rare_count"], rare_sig=opts["rare_sig"])
    for j, tab in enumerate(tables):
        L = len(enc.levels_[j])
        if private:  # one release per column (novel rows dropped), on the driver: the k stacked fold tables
            # (cross), the coding rows' table (split) or the all-rows table
            released = tab[:, :L, :] if enc.mode == "cross" else tab[:1, :L, :] if enc.mode == "split" else tab
            released = released[:, :L, :]
            exact = released.reshape(-1, 2).astype(np.float64)
            noisy = ic.laplace_count_table(exact, epsilon=eps_col, neighbouring=enc.neighbouring,
                                           rng=rng).reshape(released.shape)
            total = noisy.sum(axis=0)
            coders.append(ic.coder_from_table(total, **kw))
            fold_coders.append([ic.coder_from_table(total - noisy[i], **kw) for i in range(k)]
                               if enc.mode == "cross" else None)
            continue
        extra = bool(tab[:, L, :].sum() > 0)
        full = tab if extra else tab[:, :L, :]
        total = full.sum(axis=0).astype(np.float64)
        n_pos, n_neg = total[:, 0].sum(), total[:, 1].sum()
        if n_pos == 0 or n_neg == 0:
            C.check_target(np.full(2, 1 if n_pos else 0), "binary", 2)  # the contract's single-class error
        code, smoothing, rare_count, rare_sig = ic._options("binary", opts["code"], opts["smoothing"],
                                                            opts["rare_count"], opts["rare_sig"])
        coder = ic._coder(total, "binary", code, smoothing, rare_count, rare_sig, p_values=False)
        enc._tables_.append((total, extra))
        folds = None
        if enc.mode == "cross":
            folds = [ic._coder(total - full[i].astype(np.float64), "binary", code, smoothing, rare_count,
                               rare_sig, p_values=False) for i in range(k)]
        elif enc.mode == "split" and want_codes:  # the coding rows' coder (ic.split_codes's fit_coder)
            coding = full[0].astype(np.float64)
            if coding[:, 0].sum() == 0 or coding[:, 1].sum() == 0:
                C.check_target(np.full(2, 1 if coding[:, 0].sum() else 0), "binary", 2)
            folds = ic.coder_from_table(coding, target_type="binary", code=code, smoothing=smoothing,
                                        rare_count=rare_count, rare_sig=rare_sig)
        coders.append(_drop_last(coder) if extra else coder)
        fold_coders.append((folds, extra, coder))
    enc.coders_ = coders
    enc.privacy_spent_ = reported_spent(spent, enc.insecure_noise_seed) if private else None
    enc._score_frame()
    if not want_codes:
        return None
    return _lazy_codes(enc, Xc, ids, fold_coders, key, k, private)


def _drop_last(coder):
    from fast._contracts import impact_contract as C

    return C.CodeTable(count=coder.count[:-1], pooled=coder.pooled[:-1], p_value=coder.p_value[:-1],
                       kept=coder.kept[:-1], code=coder.code[:-1], default=coder.default)


def _codes_partition(pdf, ids, enc, fold_coders, key, k, private, columns):
    """Training codes of one partition (a pure map: the coders are broadcast)."""
    from fast import impact_coding as ic

    mode = enc.mode
    group = None
    if mode == "cross":
        group = keyed_folds(np.asarray(ids), key, k)
    elif mode == "split":
        coding = keyed_split(np.asarray(ids), key, float(enc.split_fraction))
    out = []
    for j in range(pdf.shape[1]):
        idx = enc._map(pdf.iloc[:, j], j)
        coder = enc.coders_[j]
        if mode == "cross":
            L = len(enc.levels_[j])
            if private:
                fcs, work, extra = fold_coders[j], idx, False
            else:
                fcs, extra, full = fold_coders[j]
                work = np.where(idx < 0, L, idx) if extra else idx
            codes = np.empty((idx.shape[0], coder.default.shape[0]))
            for i in range(k):
                rows = group == i
                if rows.any():
                    codes[rows] = ic.apply_coder(fcs[i], work[rows])
            if extra:
                codes[idx < 0] = full.default
        elif mode == "split" and not private:  # ic.split_codes, then the novel rows' default (as in memory)
            split_coder, extra, full = fold_coders[j]
            L = len(enc.levels_[j])
            codes = ic.apply_coder(split_coder, np.where(idx < 0, L, idx) if extra else idx)
            codes[coding] = np.nan
            if extra:
                codes[idx < 0] = full.default
        else:
            codes = ic.apply_coder(coder, idx)
            if mode == "split":
                codes[coding] = np.nan
        out.append(codes)
    return pd.DataFrame(np.hstack(out), index=pdf.index, columns=columns)


def _lazy_codes(enc, Xc, ids, fold_coders, key, k, private):
    columns = [str(c) for c in enc.get_feature_names_out()]
    meta = pd.DataFrame({c: pd.Series([], dtype=np.float64) for c in columns})
    shared = (enc, fold_coders, key, k, private, list(Xc.columns))
    frame = Xc if ids is None else Xc.assign(**{ID_COL: ids})
    return frame.map_partitions(_codes_map, shared, columns, meta=meta)


def _codes_map(frame, shared, columns):
    enc, fold_coders, key, k, private, cols = shared
    ids = frame[ID_COL] if ID_COL in frame.columns else None
    return _codes_partition(frame[cols], ids, enc, fold_coders, key, k, private, columns)


def impact_transform(enc, X):
    """:meth:`ImpactEncoder.transform` of a dask DataFrame: a lazy dask DataFrame (the all-rows coders, a map)."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, da.Array):
        X = dd.from_dask_array(X.rechunk({1: -1}), columns=[f"x{j}" for j in range(X.shape[1])])
    if not isinstance(X, dd.DataFrame):
        raise TypeError(f"X must be a dask DataFrame or array (or pandas / numpy), got {type(X).__name__}")
    if enc.row_id is not None and enc.row_id in X.columns:
        X = X[[c for c in X.columns if c != enc.row_id]]
    if hasattr(enc, "feature_names_in_") and [str(c) for c in X.columns] != list(enc.feature_names_in_):
        raise ValueError("The feature names should match those that were passed during fit")
    columns = [str(c) for c in enc.get_feature_names_out()]
    meta = pd.DataFrame({c: pd.Series([], dtype=np.float64) for c in columns})
    return X.map_partitions(_transform_map, enc, columns, meta=meta)


def _transform_map(pdf, enc, columns):
    from fast import impact_coding as ic

    out = [ic.apply_coder(enc.coders_[j], enc._map(pdf.iloc[:, j], j)) for j in range(pdf.shape[1])]
    return pd.DataFrame(np.hstack(out), index=pdf.index, columns=columns)
