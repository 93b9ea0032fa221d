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
    """One partition's exact tables: per column, (k, L + 1, 2) int64 [n_pos, n_neg] (level L: novel values) for a
    binary target; for a continuous one (``state[7] == "continuous"``) the triple (counts (k, L + 1) int64, the
    exact sums of y and of fl(y * y) per cell as :func:`_exact_cell_sums` int64 partials)."""
    enc, pair, k, key, mode, fraction, cols = state[:7]
    target_type = state[7] if len(state) > 7 else "binary"
    from fast.labels import declared_pm1

    pdf, ys = frame[cols], frame[Y_COL]
    ids = frame[ID_COL] if ID_COL in frame.columns else None
    if target_type == "continuous":
        return _continuous_partial(enc, pdf, ys, ids, k, key, mode, fraction)
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


def _groups(ids, n, key, k, mode, fraction):
    """The table group of each row: its keyed fold (cross), 0 / 1 for the coding / model rows (split), else 0."""
    if mode == "cross":
        return keyed_folds(np.asarray(ids), key, k)
    if mode == "split":
        return np.where(keyed_split(np.asarray(ids), key, fraction), 0, 1)
    return np.zeros(n, dtype=np.int64)


def _continuous_y(enc, ys):
    """The partition's numeric outcome, checked as the in-memory fit checks y (``ImpactEncoder._target``: the same
    errors and messages); an empty partition gives an empty array."""
    if len(ys) == 0:
        return np.zeros(0, dtype=np.float64)
    return enc._target(ys, len(ys))[0]


def _checked_y(enc, ys):
    """(:func:`_continuous_y`, None), or (None, (error type, message)) when y breaks a rule: a task records the
    error, and the driver raises the first one (partition order) AFTER the row rules, as the in-memory fit checks
    X's rows before y."""
    try:
        return _continuous_y(enc, ys), None
    except (ValueError, TypeError) as exc:
        return None, (type(exc).__name__, str(exc))


def _raise(error):
    if error is not None:
        raise {"ValueError": ValueError, "TypeError": TypeError}[error[0]](error[1])


def _first(*errors):
    return next((e for e in errors if e is not None), None)


def _check_rows(n_rows):
    """ImpactEncoder._columns' row rules, from an exact row count."""
    if n_rows == 0:
        raise ValueError("X must have at least one row (0 rows given)")
    if n_rows < 2:
        raise ValueError(f"X must have at least 2 rows to learn codes, got n_samples = {n_rows}")


#: np.frexp exponents of the finite float64: -1073 (the smallest subnormal, 0.5 * 2^-1073) .. 1024
_EMIN, _EMAX = -1073, 1024
_NEXP = _EMAX - _EMIN + 1
#: slots per cell: the exponents, then the counts of +inf, -inf and NaN values (fl(y * y) overflows to +inf)
_NSLOT = _NEXP + 3
#: the value of one unit of :func:`_finish_sums`' integers: 2^(_EMIN - 53)
_UNIT_SHIFT = 53 - _EMIN


def _exact_cell_sums(cell, values):
    """EXACT, mergeable per-cell sums of float64 values: (keys, hi, lo) int64, keys = cell * _NEXP + exponent
    slot, such that sum over rows of cell c = sum over its keys of (hi * 2^26 + lo) * 2^(slot + _EMIN - 53).

    Each finite x is m * 2^(e - 53) exactly (``np.frexp``: x = f 2^e, m = f 2^53 an integer, |m| < 2^53), split
    m = hi 2^26 + lo (|hi| < 2^27, 0 <= lo < 2^26), and the hi / lo of the rows sharing (cell, e) are summed in
    int64 (exact up to 2^36 rows).  Integer sums: the merge of any partitions in any order is the same exact
    value, rounded once by :func:`_finish_sums` (the exactly rounded sum, ``math.fsum`` of the values)."""
    v = np.asarray(values, dtype=np.float64)
    cell = np.asarray(cell, dtype=np.int64)
    finite = np.isfinite(v)
    special = None
    if not finite.all():  # counted per cell in three extra slots (hi = 1 per value, lo = 0)
        bad = ~finite
        slot = np.where(np.isnan(v[bad]), 2, np.where(v[bad] > 0, 0, 1)) + _NEXP
        special = (cell[bad] * _NSLOT + slot, np.ones(slot.shape[0], dtype=np.int64),
                   np.zeros(slot.shape[0], dtype=np.int64))
        v, cell = v[finite], cell[finite]
    f, e = np.frexp(v)
    m = (f * 9007199254740992.0).astype(np.int64)  # f 2^53: an exact integer
    nz = m != 0
    keys = cell[nz] * _NSLOT + (e[nz].astype(np.int64) - _EMIN)
    m = m[nz]
    hi, lo = m >> 26, m & ((1 << 26) - 1)
    if special is not None:
        keys, hi, lo = (np.concatenate([a, b]) for a, b in zip((keys, hi, lo), special))
    return _reduce_keys(keys, hi, lo)


def _reduce_keys(keys, hi, lo):
    if keys.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), empty.copy()
    order = np.argsort(keys, kind="stable")
    keys, hi, lo = keys[order], hi[order], lo[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.add.reduceat(hi, starts), np.add.reduceat(lo, starts)


def _merge_sums(*parts):
    """The exact merge of :func:`_exact_cell_sums` partials (int64 sums per key: associative, commutative)."""
    return _reduce_keys(np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                        np.concatenate([p[2] for p in parts]))


def _finish_sums(sums, n_cells):
    """Per cell, the exact sum of the finite values of :func:`_exact_cell_sums` partials as a Python int in units
    of 2^(_EMIN - 53), and the (n_cells, 3) int64 counts of its +inf, -inf and NaN values."""
    out = [0] * n_cells
    special = np.zeros((n_cells, 3), dtype=np.int64)
    keys, hi, lo = sums
    for key, h, l in zip(keys.tolist(), hi.tolist(), lo.tolist()):
        cell, slot = divmod(key, _NSLOT)
        if slot >= _NEXP:
            special[cell, slot - _NEXP] += h
        else:
            out[cell] += ((h << 26) + l) << slot
    return out, special


def _rounded(units, special=(0, 0, 0)):
    """The float64 nearest an exact sum in units of 2^(_EMIN - 53) (Python's int / int is correctly rounded);
    with infinite or NaN terms (counts ``special``) what IEEE addition of them gives."""
    pinf, ninf, nan = (int(c) for c in special)
    if nan or (pinf and ninf):
        return float("nan")
    if pinf or ninf:
        return float("inf") if pinf else float("-inf")
    try:
        return units / (1 << _UNIT_SHIFT)
    except OverflowError:  # beyond the float range: what a float sum gives
        return float("inf") if units > 0 else float("-inf")


def _continuous_partial(enc, pdf, ys, ids, k, key, mode, fraction):
    """(per column (counts, sums of y, sums of y^2), the y error or None); a bad y: the rows counted (the row rules
    come first), zero sums, and its error."""
    yf, error = _checked_y(enc, ys)
    if error is not None:
        yf = np.zeros(len(pdf), dtype=np.float64)
    group = _groups(ids, len(pdf), key, k, mode, fraction)
    out = []
    for j in range(pdf.shape[1]):
        L = len(enc.levels_[j])
        if len(pdf) == 0:
            idx = np.zeros(0, dtype=np.int64)
        else:
            idx = enc._map(pdf.iloc[:, j], j)
        idx = np.where(idx < 0, L, idx)
        cell = group * (L + 1) + idx
        counts = np.bincount(cell, minlength=k * (L + 1)).astype(np.int64).reshape(k, L + 1)
        out.append((counts, _exact_cell_sums(cell, yf), _exact_cell_sums(cell, yf * yf)))
    return out, error


def _add_continuous(*parts):
    """The exact merge of partitions' continuous partials: int64 counts and exact sums, per column (and the first
    y error, in partition order)."""
    out = []
    for cols in zip(*[p[0] for p in parts]):
        counts = np.array(cols[0][0], dtype=np.int64)
        for c in cols[1:]:
            counts += c[0]
        out.append((counts, _merge_sums(*[c[1] for c in cols]), _merge_sums(*[c[2] for c in cols])))
    return out, _first(*[p[1] for p in parts])


def _continuous_tables(partial, L, extra, k):
    """From a column's merged continuous partial: the [count, sum y, sum y^2] table (float64, exactly rounded
    sums) of all rows, and the function giving the table of the rows of the groups in a mask (exact, rounded
    once).  Level L (the novel values) is kept when ``extra``."""
    counts, ysum, y2sum = partial
    n_cells = k * (L + 1)
    (sy, spec_y), (sq, spec_q) = _finish_sums(ysum, n_cells), _finish_sums(y2sum, n_cells)
    spec_y, spec_q = spec_y.reshape(k, L + 1, 3), spec_q.reshape(k, L + 1, 3)
    width = L + 1 if extra else L

    every = range(k)
    ty = [sum(sy[g * (L + 1) + lv] for g in every) for lv in range(width)]
    tq = [sum(sq[g * (L + 1) + lv] for g in every) for lv in range(width)]

    def table(groups):  # exact integers (the all-rows sum less the excluded groups'), rounded once: O(k L) in all
        tab = np.empty((width, 3), dtype=np.float64)
        tab[:, 0] = counts[groups, :width].sum(axis=0)
        out = np.flatnonzero(~np.asarray(groups)).tolist()
        for lv in range(width):
            tab[lv, 1] = _rounded(ty[lv] - sum(sy[g * (L + 1) + lv] for g in out), spec_y[groups, lv].sum(axis=0))
            tab[lv, 2] = _rounded(tq[lv] - sum(sq[g * (L + 1) + lv] for g in out), spec_q[groups, lv].sum(axis=0))
        return tab

    return table


# ------------------------------------------------------------------------------ levels read from the data


def _levels_partial(frame, state):
    """One partition's levels: ([per column (distinct non-missing levels in first-seen order, has a missing value,
    {kind: a value of it}, the first bad value's error message or None)], its row count, its y error or None: a
    continuous y checked here, so the driver raises in the in-memory order).  The kinds are
    those of :func:`spec.impact_contract.level_kind` over the partition's values, so the merge decides a mix
    of kinds (or a bad value) exactly as the in-memory check of the whole column."""
    from fast import impact_coding as ic
    from fast._contracts import impact_contract as C

    enc, cols, continuous = state
    y_error = _checked_y(enc, frame[Y_COL])[1] if continuous else None
    out = []
    for j, c in enumerate(cols):
        col = frame[c]
        if len(col) == 0:
            out.append(([], False, {}, None))
            continue
        try:
            levels, _ = ic.factorize(col)  # one kind, validated (the in-memory fit's call)
        except TypeError:
            name = enc._column_name(j)
            kinds, error = {}, None
            for v in C.column_values(col).tolist():
                if C.is_missing(v):
                    continue
                try:
                    kinds.setdefault(C._kind(v, name), v)
                except TypeError as exc:  # the first bad value in row order: level_kind's error
                    error = str(exc)
                    break
            out.append(([], False, kinds, error))
            continue
        present = [lv for lv in levels if lv is not None]
        kinds = {C.level_kind(present[:1]): present[0]} if present else {}
        out.append((present, len(present) < len(levels), kinds, None))
    return out, len(frame), y_error


def _merge_levels(*parts):
    """The union of partitions' level records, in partition order (the first error and sample value kept), their
    row count and first y error."""
    out = []
    for recs in zip(*[p[0] for p in parts]):
        seen, missing, kinds, error = {}, False, {}, None
        for present, miss, kd, err in recs:
            if error is None and err is not None:
                error = err
            for lv in present:
                seen.setdefault((type(lv), lv), lv)
            missing = missing or miss
            for kind, v in kd.items():
                kinds.setdefault(kind, v)
        out.append((list(seen.values()), missing, kinds, error))
    return out, sum(p[1] for p in parts), _first(*[p[2] for p in parts])


def _data_levels(enc, frame, cols, dtypes, continuous=False):
    """``enc._fit_levels`` from the levels present (categories="auto", non-private): per-partition distinct
    levels merged on the workers; the driver receives one level list per column, sorts it as ``ic.factorize``
    and refuses what the in-memory fit refuses (inf in a float column, a bad value, a mix of kinds), with its
    messages."""
    import dask

    from fast import _dask
    from fast._contracts import impact_contract as C

    shared = dask.delayed((enc, cols, continuous), pure=True)
    task = dask.delayed(_levels_partial, pure=True)
    ((merged, n_rows, y_error),) = _dask.compute(
        _dask.tree_reduce([task(part, shared) for part in frame.to_delayed()], _merge_levels))
    # the in-memory order: no row, inf in a float column (every column), fewer than 2 rows, y, then the levels
    if n_rows == 0:
        _check_rows(0)
    for (present, _, _, _), dtype in zip(merged, dtypes):
        if getattr(dtype, "kind", None) in ("f", "c") and any(
                isinstance(v, float) and np.isinf(v) for v in present):
            raise ValueError("X must not contain inf (a level must be a finite value or missing)")
    _check_rows(n_rows)
    _raise(y_error)
    series = []
    for j, (present, missing, kinds, error) in enumerate(merged):
        if error is not None:
            raise TypeError(error)
        if len(kinds) > 1:
            C.level_kind(list(kinds.values()), name=enc._column_name(j))  # raises the in-memory mix error
        series.append(pd.Series(present + ([None] if missing or not present else []), dtype=object))
    enc._fit_levels(series)


def _add_tables(*parts):
    """The exact merge of partitions' tables: per column, the int64 sum (associative and commutative)."""
    out = [np.array(t, dtype=np.int64) for t in parts[0]]  # copies: a partial held by dask is never modified
    for p in parts[1:]:
        for acc, t in zip(out, p):
            acc += t
    return out


def impact_fit(enc, X, y, *, want_codes, accountant):
    """:meth:`ImpactEncoder.fit` / ``fit_transform`` on a dask DataFrame.

    A binary target (declared ``classes`` or a bool y) or ``target_type="continuous"`` (exact per-level sums,
    :func:`_exact_cell_sums`); public ``categories`` or, without ``epsilon``, the levels present (a distributed
    pass, :func:`_data_levels`); every mode, the jackknife's training codes a second lazy map with the merged
    table broadcast.  Returns the lazy dask DataFrame of training codes when ``want_codes``, else None."""
    import dask

    from fast import _dask
    from fast import impact_coding as ic
    from fast._contracts import impact_contract as C
    from fast._contracts.privacy_contract import charge_fit, exact_share, noise_rng, reported_spent
    from fast.labels import classes_array, declared_classes

    private = enc.epsilon is not None
    if isinstance(enc.categories, str) and private:  # ImpactEncoder._check_params refuses it first (same rule)
        raise ValueError("categories must be given (one public list of levels per column) when epsilon is set: "
                         "the set of levels present in the data is itself private")
    if enc.mode == "jackknife" and want_codes and private:  # fit_transform refuses it first (same rule)
        raise ValueError(
            "mode='jackknife' with epsilon set cannot return training codes privately: each row's code subtracts "
            "its own exact outcome from the noisy table; use mode='cross' or 'split' (or fit, whose coders are "
            "private)")
    continuous = enc.target_type == "continuous"  # _check_params: never with classes or epsilon
    if enc.mode == "cross" and not (isinstance(enc.cv, numbers.Integral) and not isinstance(enc.cv, bool)
                                    and enc.cv >= 2):
        raise ValueError(f"cv must be an int k >= 2 with a dask input (keyed folds of row_id), got {enc.cv!r}: a "
                         f"splitter's folds are row positions, which depend on the partitioning")
    Xc, ys, ids = _frame_parts(enc, X, y)
    if continuous:
        pair = None
        enc.classes_ = None
    else:
        if enc.classes is None and enc.epsilon is None and ys.dtype != bool:
            raise ValueError("classes must be given with a dask y (e.g. classes=(0, 1)): reading the label set from "
                             "y would be a pass over every row (only a y of bool dtype needs none)")
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
    cols = list(Xc.columns)
    frame = Xc.assign(**{Y_COL: ys})
    if ids is not None:
        frame = frame.assign(**{ID_COL: ids})
    if isinstance(enc.categories, str):  # non-private: the levels present, one distributed pass
        _data_levels(enc, frame, cols, list(Xc.dtypes), continuous)
    else:
        enc._fit_levels([pd.Series([None], dtype=object) for _ in names])  # public levels only: no row is read
    target_type = "continuous" if continuous else "binary"
    enc.target_type_ = target_type
    opts = enc._options(target_type)
    enc._code = opts["code"]
    enc.model_rows_ = None
    k = int(enc.cv) if enc.mode == "cross" else 1
    key = fold_key(enc._seed()) if enc.mode in ("cross", "split") else (0, 0)
    if private:  # charged once, BEFORE anything is submitted (a failed job has spent it: conservative)
        eps_col = exact_share(enc.epsilon, len(names))
        spent = enc._plan(eps_col, np.arange(k) if enc.mode == "cross" else None)
        charge_fit(spent, accountant, enc.insecure_noise_seed, label=type(enc).__name__)
    k_tab = 2 if enc.mode == "split" else k  # split: [coding rows, model rows]
    state = (enc, pair, k_tab, key, enc.mode, float(enc.split_fraction), cols, target_type)
    shared = dask.delayed(state, pure=True)
    task = dask.delayed(_impact_partial, pure=True)
    # the per-partition tables are merged on the workers (exact int64 sums, any order): one (k, L + 1, 2) table
    # per column reaches the driver, whatever the number of partitions (continuous: the counts and the exact
    # integer sums of y and y^2 per cell)
    (tables,) = _dask.compute(_dask.tree_reduce([task(part, shared) for part in frame.to_delayed()],
                                                _add_continuous if continuous else _add_tables))
    y_error = None
    if continuous:
        tables, y_error = tables
    if not private:  # ImpactEncoder._columns' row rules, from the exact merged counts (every row, novel included)
        # (a partition with a bad y still counts its rows: its y error is raised after them, as in memory)
        _check_rows(int(tables[0][0].sum()) if continuous else int(tables[0].sum()))
    _raise(y_error)
    if continuous:
        coders, fold_coders = _continuous_coders(enc, tables, opts, k, want_codes)
        enc.accuracy_ = None
        enc.coders_ = coders
        enc.privacy_spent_ = None
        enc._score_frame()
        if not want_codes:
            return None
        return _lazy_codes(enc, Xc, ids, fold_coders, key, k, private, ys=ys, pair=pair)
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
        elif enc.mode == "jackknife" and want_codes:  # ic.jackknife_codes's table: all rows, level L if novel
            folds = total
        coders.append(_drop_last(coder) if extra else coder)
        fold_coders.append((folds, extra, coder))
    enc.coders_ = coders
    enc.privacy_spent_ = reported_spent(spent, enc.insecure_noise_seed) if private else None
    enc._score_frame()
    if not want_codes:
        return None
    return _lazy_codes(enc, Xc, ids, fold_coders, key, k, private, ys=ys, pair=pair)


def _continuous_coders(enc, tables, opts, k, want_codes):
    """The all-rows coders and the training-code state of a continuous target from the merged exact partials:
    every sum of the tables is the exactly rounded sum of its rows (fold tables: of the OTHER folds' rows)."""
    from fast import impact_coding as ic

    code, smoothing, rare_count, rare_sig = ic._options("continuous", opts["code"], opts["smoothing"],
                                                        opts["rare_count"], opts["rare_sig"])
    coders, fold_coders = [], []
    enc._tables_ = []
    for j, partial in enumerate(tables):
        L = len(enc.levels_[j])
        extra = bool(partial[0][:, L].sum() > 0)
        table = _continuous_tables(partial, L, extra, partial[0].shape[0])
        every = np.ones(partial[0].shape[0], dtype=bool)
        total = table(every)
        coder = ic._coder(total, "continuous", code, smoothing, rare_count, rare_sig, p_values=False)
        enc._tables_.append((total, extra))
        folds = None
        if want_codes and enc.mode == "cross":
            folds = [ic._coder(table(np.arange(k) != i), "continuous", code, smoothing, rare_count, rare_sig,
                               p_values=False) for i in range(k)]
        elif want_codes and enc.mode == "split":
            folds = ic.coder_from_table(table(np.array([True, False])), target_type="continuous", code=code,
                                        smoothing=smoothing, rare_count=rare_count, rare_sig=rare_sig)
        elif want_codes and enc.mode == "jackknife":
            folds = total
        coders.append(_drop_last(coder) if extra else coder)
        fold_coders.append((folds, extra, coder))
    return coders, fold_coders


def _drop_last(coder):
    from fast._contracts import impact_contract as C

    return C.CodeTable(count=coder.count[:-1], pooled=coder.pooled[:-1], p_value=coder.p_value[:-1],
                       kept=coder.kept[:-1], code=coder.code[:-1], default=coder.default)


def _codes_partition(pdf, ids, enc, fold_coders, key, k, private, columns, ys=None, pair=None):
    """Training codes of one partition (a pure map: the coders, or the jackknife's merged table, are broadcast)."""
    from fast import impact_coding as ic

    mode = enc.mode
    if mode == "jackknife":  # non-private only (fit_transform refuses it with epsilon)
        return pd.DataFrame(_jackknife_partition(pdf, ys, enc, fold_coders, pair), index=pdf.index,
                            columns=columns)
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


def _jackknife_partition(pdf, ys, enc, fold_coders, pair):
    """The leave-one-out codes of a partition's rows: ``ic._jackknife`` of the merged all-rows table (level L:
    the novel values, as ``ic.jackknife_codes`` in memory) at each row's own (level, y); novel rows get the
    all-rows coder's default, as in memory.  A function of the merged table and the row alone."""
    from fast import impact_coding as ic
    from fast.labels import declared_pm1

    target_type = enc.target_type_
    n = len(pdf)
    width = 4 if enc._code == "count" else 1
    if n == 0:
        return np.zeros((0, width * pdf.shape[1]))
    if target_type == "continuous":
        yy = _continuous_y(enc, ys)
    else:
        yy = (declared_pm1(np.asarray(ys), pair, n=n) > 0).astype(np.int64)
    code, smoothing, rare_count, rare_sig = ic._options(target_type, enc._code, enc.smoothing, enc.rare_count,
                                                        enc.rare_sig)
    out = []
    for j in range(pdf.shape[1]):
        tab, extra, coder = fold_coders[j]
        L = len(enc.levels_[j])
        idx = enc._map(pdf.iloc[:, j], j)
        work = np.where(idx < 0, L, idx) if extra else idx
        codes = ic._jackknife(tab, work, yy, target_type, code, smoothing, rare_count, rare_sig)
        if extra:
            codes[idx < 0] = coder.default
        out.append(codes)
    return np.hstack(out)


def _lazy_codes(enc, Xc, ids, fold_coders, key, k, private, ys=None, pair=None):
    columns = [str(c) for c in enc.get_feature_names_out()]
    meta = pd.DataFrame({c: pd.Series([], dtype=np.float64) for c in columns})
    shared = (enc, fold_coders, key, k, private, list(Xc.columns), pair)
    frame = Xc if ids is None else Xc.assign(**{ID_COL: ids})
    if enc.mode == "jackknife":  # each row's own outcome: the target rides in the same frame
        frame = frame.assign(**{Y_COL: ys})
    return frame.map_partitions(_codes_map, shared, columns, meta=meta)


def _codes_map(frame, shared, columns):
    enc, fold_coders, key, k, private, cols, pair = shared
    ids = frame[ID_COL] if ID_COL in frame.columns else None
    ys = frame[Y_COL] if Y_COL in frame.columns else None
    return _codes_partition(frame[cols], ids, enc, fold_coders, key, k, private, columns, ys=ys, pair=pair)


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
