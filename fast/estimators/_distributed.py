"""The estimators' dask paths (bodies of the one-line dispatches at the top of their ``fit`` / ``transform``).

Rules (``../shared/notes/scaleout-design.md`` s3), each checked in ``tests/test_dask.py``:

* a task returns an exact partial (int64 count tables; exact rado terms); it never draws noise;
* the driver merges the partials, charges the ledger BEFORE the job is submitted, and calls :mod:`fast.mechanisms`
  once per release (per column of an impact coder), in its own process;
* fold / split membership is a keyed hash of a stable row id (:func:`keyed_hash`: the ``row_id`` column), never of
  a position, so it does not depend on the partitioning, the row order or the other rows;
* the result equals the in-memory fit on the same rows (with the same ``row_id``) bit for bit.

Only numpy / pandas at import: dask is imported by :mod:`fast._dask` when a collection is handed in.
"""
from __future__ import annotations

import hashlib
import math
import numbers
import os
from fractions import Fraction

import numpy as np
import pandas as pd

__all__ = ["keyed_hash", "fold_key", "keyed_folds", "keyed_split", "impact_fit", "impact_transform",
           "radoboost_fit", "boost_fit"]

_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection of uint64, full avalanche), in place on ``h`` (which it returns)."""
    t = np.empty_like(h)
    for shift, mult in ((30, _M1), (27, _M2)):
        np.right_shift(h, np.uint64(shift), out=t)
        h ^= t
        h *= mult
    np.right_shift(h, np.uint64(31), out=t)
    h ^= t
    return h


def keyed_hash(row_ids, key: tuple[int, int]) -> np.ndarray:
    """uint64 hash of each row id under a 128-bit key: mix(mix(id ^ k0) ^ k1).  A function of (key, the row's own
    id) only: a row's fold never depends on the other rows, their number, their order or the partitioning."""
    ids = np.asarray(row_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"row_id must be a column of integers (a stable id per row), got dtype {ids.dtype}")
    with np.errstate(over="ignore"):
        h = ids.astype(np.int64).view(np.uint64) ^ np.uint64(key[0])  # a new array: the input is never modified
        h = _mix(h)
        h ^= np.uint64(key[1])
        return _mix(h)


def fold_key(seed) -> tuple[int, int]:
    """The 128-bit fold key from ``random_state``'s integer seed (None: fresh from ``os.urandom``)."""
    raw = os.urandom(16) if seed is None else hashlib.sha256(b"privlearn.keyed_folds\x00"
                                                             + int(seed).to_bytes(16, "little")).digest()[:16]
    return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")


def keyed_folds(row_ids, key, k: int) -> np.ndarray:
    """fold(i) = hash(key, row_id_i) mod k (int64; bias below k / 2^64)."""
    return (keyed_hash(row_ids, key) % np.uint64(k)).astype(np.int64)


def keyed_split(row_ids, key, fraction: float) -> np.ndarray:
    """coding(i) = U_i < fraction, U_i = (hash(key, row_id_i) >> 11) 2^-53 uniform on the 2^53-grid of [0, 1)."""
    u = (keyed_hash(row_ids, key) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return u < fraction


# --------------------------------------------------------------------------- impact coding


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
    import dask

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


# --------------------------------------------------------------------------- rados


def _fixed_support_partial(xb, yb, offset, picks, n, intercept):
    """One task of fixed-support rados: signature j agrees with y exactly on its picked GLOBAL rows; the exact terms
    of this chunk's share (the picked rows inside it), as :func:`fast._dask._rados_partial`."""
    from fast._exact_rados import exact_terms
    from fast.rados import _examples_and_edges

    xb = np.asarray(xb)
    if intercept:
        xb = np.column_stack([xb, np.ones(xb.shape[0])])
    _, yb, E = _examples_and_edges(xb, yb)
    j, i = picks
    inside = (i >= offset) & (i < offset + xb.shape[0])
    sig = np.broadcast_to(-yb, (n, xb.shape[0])).copy()  # -y_i: row i outside the support of every signature
    sig[j[inside], i[inside] - offset] = yb[i[inside] - offset]
    return exact_terms(E, yb, sig)


def _edges_partial(xb, yb, offset, picks, n, k, source):
    """One task of private Gaussian-edges rados: for each signature j, the EXACT integer sum over the picked rows
    of this chunk of round_half_even(e_i / 2^k), e_i = y_i clip(x_i) mapped into the source's public domain (the
    rounding of ``fast.mechanisms`` ``_release``; 2^k the public grid).  (n, d) int64; no noise here."""
    from fast.dp_rados import _examples, clip_rows

    xb = source.in_domain(np.asarray(xb))
    xb, yb = _examples(xb, yb)
    j, i = picks
    inside = (i >= offset) & (i < offset + xb.shape[0])
    local = i[inside] - offset
    E = yb[local, None].astype(np.float64) * clip_rows(xb[local], source.clip)
    units = np.rint(E * 2.0**-k).astype(np.int64)  # exact: a power-of-two scaling, |units| < 2^52 (checked)
    out = np.zeros((n, xb.shape[1]), dtype=np.int64)
    np.add.at(out, j[inside], units)
    return out


def private_edges_rados(source, X, yd, n, rng, noise_seed, m, d):
    """Gaussian-edges rados (nock2015 s5.2) of a dask array, with the noise drawn ONCE on the driver.

    In memory the source releases every edge e~_i = 2^k (round(e_i / 2^k) + Y_i) (one discrete-Gaussian release,
    L2 sensitivity 2 clip per row) and sums the noisy edges of the picked rows (post-processing).  Here the tasks
    return the exact integer sums S_j of round(e_i / 2^k) over each signature's picked rows; the driver draws Y_u
    for the picked rows u only (one ``gaussian_mechanism`` call on zeros, the same grid: the other rows' noisy
    edges are never used, and a selection made from public randomness and m alone is post-processing) and returns
    2^k (S_j + sum_{u in J_j} Y_u), exact integers scaled once.  The released rados have the in-memory
    distribution; no row and no noise travels, and a retried task returns the same integers."""
    import dask

    from fast import _dask
    from fast.dp_rados import _support_of
    from fast.mechanisms import gaussian_grid, gaussian_mechanism

    support = _support_of(source.support, m)
    picks = fixed_support_picks(m, n, support, rng)
    grid = gaussian_grid(2.0 * source.clip, source.epsilon, source.delta, dimension=d)
    k = int(grid.k)
    if source.clip * 2.0**-k >= 2.0**52 / max(1, support):
        raise ValueError("the noise grid is too fine for the exact integer sums of the dask path")
    blocks, offsets, rows = _dask.array_blocks(X)
    task = dask.delayed(_edges_partial, pure=True)
    shared = dask.delayed((picks, source), pure=True)
    parts = _dask.compute(*[task(b, yb, int(offsets[c]), shared[0], n, k, shared[1])
                            for c, (b, yb) in enumerate(zip(blocks, _dask.vector_blocks(yd, rows)))])
    exact = sum(parts)  # int64, exact: the pre-noise aggregate
    used, where = np.unique(picks[1], return_inverse=True)
    noise = gaussian_mechanism(np.zeros((used.shape[0], d)), sensitivity=2.0 * source.clip, epsilon=source.epsilon,
                               delta=source.delta, rng=noise_seed, sensitivity_dimension=d)
    units = np.rint(np.asarray(noise) * 2.0**-k).astype(np.int64)  # the draws Y_u (exact: multiples of 2^k)
    total = exact.copy()
    np.add.at(total, picks[0], units[where])
    return total.astype(np.float64) * 2.0**k, exact


def fixed_support_picks(m: int, n: int, support: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """(signature index, global row) pairs: for each of the n signatures a uniform ``support``-subset of [0, m)
    (nock2015 eq. 18), drawn on the driver from ``rng`` (non-private randomness)."""
    rows = np.stack([rng.choice(m, size=support, replace=False) for _ in range(n)])
    return np.repeat(np.arange(n), support), rows.ravel().astype(np.int64)


def radoboost_fit(est, X, y, accountant=None):
    """:meth:`RadoBoostClassifier.fit` on dask arrays (non-private, unscaled features): the rados are computed on
    the cluster, exact and chunk-independent, from a counter-based signature stream keyed by ``random_state``
    (``support=None``) or from fixed-support signatures whose ``support`` rows are drawn on the driver; boosting
    runs on the driver.  Equal to ``fit_rados`` on the in-memory exact rados of the same signatures."""
    import dask
    import dask.array as da

    from fast import _dask
    from fast._exact_rados import finish_terms, signature_stream
    from fast.estimators.rados import _generator
    from fast.labels import check_classes, classes_array

    from fast.dp_rados import GaussianEdgesSource
    from fast._contracts.privacy_contract import charge_fit, noise_rng, refuse_seeded_charge, reported_spent

    est._validate_params()
    refuse_seeded_charge(est.insecure_noise_seed, accountant)
    if est.privacy is not None and not isinstance(est.privacy, GaussianEdgesSource):
        raise ValueError("privacy with a dask input supports gaussian_edges(...) only (DP-Feat's signature "
                         "selection needs a global pass); fit on the rows in memory, or send rados with fit_rados")
    standardise = est._standardise() if hasattr(est, "_standardise") else False
    if est.classes is None:
        raise ValueError("classes must be given (negative, positive) with a dask input: reading the label set "
                         "would need a pass over y")
    pair = check_classes(est.classes)
    if not isinstance(X, da.Array) or X.ndim != 2:
        raise TypeError("X must be a 2-d dask array (row chunks)")
    yd = y if isinstance(y, da.Array) else da.asarray(y)
    ypm = da.where(yd == pair[1], 1, -1).astype(np.int8)
    m, d = (int(v) for v in X.shape)
    n = est._n_rados(m)
    mean = scale = None
    if standardise:  # z-scores from exact column sums (two passes): the same on any chunking
        mean, scale = _column_moments(X, m)
        X = (X - mean) / scale
    intercept = est._intercept() if hasattr(est, "_intercept") else bool(est.fit_intercept)
    rng = _generator(est.random_state)
    if est.privacy is not None:
        dd_ = d + (1 if intercept else 0)
        if intercept:
            raise ValueError("fit_intercept=True with privacy is not supported with a dask input")
        spent = est.privacy.privacy_spent_for_fit(m, n, dd_)
        report = est.privacy.noise_report(m, dd_) if hasattr(est.privacy, "noise_report") else None
        charge_fit(spent, accountant, est.insecure_noise_seed, label=type(est).__name__)  # before the job
        if report is not None:
            from fast.dp_rados import warn_if_noise_dominates

            warn_if_noise_dominates(report, stacklevel=5)
            est.noise_report_ = report
        seed = noise_rng(est.insecure_noise_seed)
        Pi, _ = private_edges_rados(est.privacy, X, ypm, n, rng, None if seed is None else
                                    np.random.default_rng(seed), m, dd_)
        est.n_features_in_ = d
        if hasattr(est, "feature_names_in_"):
            del est.feature_names_in_
        import inspect

        if "intercept" in inspect.signature(est._fit_on_rados).parameters:
            est._fit_on_rados(Pi, classes_array(pair), rng, intercept)
        else:
            est._fit_on_rados(Pi, classes_array(pair), rng)
        est.privacy_spent_ = reported_spent(spent, est.insecure_noise_seed)
        est.x_mean_, est.x_scale_ = np.zeros(d), np.ones(d)
        return est
    if est.support is None:
        Pi = _dask.rados(X, ypm, signature_stream(n, seed=int(rng.integers(0, 2**63 - 1))), intercept=intercept)
    else:
        if est.support > m:
            raise ValueError(f"support must be at most the number of rows ({m}), got {est.support}")
        picks = fixed_support_picks(m, n, int(est.support), rng)
        blocks, offsets, rows = _dask.array_blocks(X)
        task = dask.delayed(_fixed_support_partial, pure=True)
        parts = _dask.compute(*[task(b, yb, int(offsets[k]), picks, n, intercept)
                                for k, (b, yb) in enumerate(zip(blocks, _dask.vector_blocks(ypm, rows)))])
        Pi = finish_terms(parts, n, d + (1 if intercept else 0))
    est.n_features_in_ = d
    if hasattr(est, "feature_names_in_"):
        del est.feature_names_in_
    est.__dict__.pop("privacy_spent_", None)
    est.__dict__.pop("noise_report_", None)
    import inspect

    if "intercept" in inspect.signature(est._fit_on_rados).parameters:
        est._fit_on_rados(Pi, classes_array(pair), rng, intercept)
    else:
        est._fit_on_rados(Pi, classes_array(pair), rng)
    if mean is not None:  # back to the raw features, as in memory
        est.coef_ = est.coef_ / scale
        est.intercept_ = est.intercept_ - est.coef_ @ mean
    est.x_mean_ = np.zeros(d) if mean is None else mean
    est.x_scale_ = np.ones(d) if scale is None else scale
    return est


def _moment_partial(xb, center):
    """Exact terms (T, 1, d) of the column sums of x (center None) or of (x - center)^2."""
    from fast._exact_rados import exact_terms

    x = np.asarray(xb, dtype=np.float64)
    E = x if center is None else (x - center) ** 2
    return exact_terms(E, np.ones(E.shape[0], dtype=np.int8), np.ones((1, E.shape[0]), dtype=np.int8))


def _column_moments(X, m):
    """(mean, scale) of every column from exact sums: mean = fsum(x) / m, scale = sqrt(fsum((x - mean)^2) / m);
    a column whose moments are not finite or whose scale is 0 gets (0, 1), as in memory."""
    import dask

    from fast import _dask
    from fast._exact_rados import finish_terms

    blocks, _, _ = _dask.array_blocks(X)
    d = int(X.shape[1])
    task = dask.delayed(_moment_partial, pure=True)
    with np.errstate(over="ignore", invalid="ignore"):
        mean = finish_terms(_dask.compute(*[task(b, None) for b in blocks]), 1, d)[0] / m
        var = finish_terms(_dask.compute(*[task(b, mean) for b in blocks]), 1, d)[0] / m
        scale = np.sqrt(var)
    ok = np.isfinite(mean) & np.isfinite(scale) & (scale > 0)
    return np.where(ok, mean, 0.0), np.where(ok, scale, 1.0)


# --------------------------------------------------------------------------- private boosting (LB-NxM, stumps)


def _boost_prep(xb, yb, est, pair, lo, hi, thr):
    """One chunk, once: (per-feature threshold bin in [0, n_thresholds] of the clamped values, y in +-1 float)."""
    from fast.labels import declared_pm1

    X = est._in_domain(np.asarray(xb))  # the public domain map of the in-memory fit, row by row
    Xc = np.clip(np.asarray(X, dtype=np.float64), lo, hi)
    bins = np.empty(Xc.shape, dtype=np.int64)
    for j in range(Xc.shape[1]):
        bins[:, j] = np.searchsorted(thr[j], Xc[:, j], side="left")
    return bins, declared_pm1(np.asarray(yb), pair, n=Xc.shape[0]).astype(np.float64)


def _half_prep(xb, yb, est, pair, norm):
    """One chunk, once (halfspace learner): (Z = the rows clipped to the data_norm ball and scaled into B_d(1),
    y in +-1 float), the in-memory fit's maps."""
    from fast.labels import declared_pm1

    Z = est._scale(np.asarray(est._in_domain(np.asarray(xb)), dtype=np.float64), norm)
    return Z, declared_pm1(np.asarray(yb), pair, n=Z.shape[0]).astype(np.float64)


def _size_partial(L, log_k, lam, top, c, dense):
    return _exact_vector_terms(_measure(L, log_k, lam, top, c, dense))


def _centroid_partial(L, Z, yf, log_k, lam, top, c, dense, size):
    """Exact terms (T, 1, d) of sum_i v_i Z_i, v_i = (mu_i / size) y_i (each product rounded once)."""
    from fast._exact_rados import exact_terms

    v = _measure(L, log_k, lam, top, c, dense) / size * yf
    E = v[:, None] * Z
    return exact_terms(E, np.ones(E.shape[0], dtype=np.int8), np.ones((1, E.shape[0]), dtype=np.int8))


def _update_L_half(L, Z, yf, z):
    h = Z @ z
    return L + (1.0 - np.abs(np.clip(h, -1.0, 1.0) - yf) / 2.0)


def _exact_vector_terms(v):
    """Exact terms (T, 1, 1) of sum(v) (any float64 vector)."""
    from fast._exact_rados import exact_terms

    v = np.asarray(v, dtype=np.float64)
    return exact_terms(v[:, None], np.ones(v.shape[0], dtype=np.int8), np.ones((1, v.shape[0]), dtype=np.int8))


def _min_L(L):
    return float(np.min(L)) if L.shape[0] else np.inf


def _log_weights(L, log_k, lam):
    return log_k - lam * L  # elementwise as in memory: w = log_k - lam L


def _mass(L, log_k, lam, top, c, low):
    """(count of a c >= 1, exact terms of the kept sum) with a = exp(max(w - top, -707)); c = 0: the whole
    non-low mass (the dense test)."""
    from fast.measures import _EXP_FAST

    a = np.exp(np.maximum(_log_weights(L, log_k, lam) - top, _EXP_FAST))
    if c == 0.0:
        return 0, _exact_vector_terms(np.where(a > low, a, 0.0))
    scaled = a * c
    return int(np.count_nonzero(scaled >= 1.0)), _exact_vector_terms(np.where((a > low) & (scaled < 1.0), a, 0.0))


def _measure(L, log_k, lam, top, c, dense):
    """mu_i of the projection (the in-memory ``_scale_capped`` map and the low entries' fix)."""
    from fast.measures import _A_LOW, _EXP_FAST, _FLUSH, LOG_TINY

    w = _log_weights(L, log_k, lam)
    if dense:
        return np.exp(w)
    ws = w - top
    a = np.exp(np.maximum(ws, _EXP_FAST))
    r = np.minimum(1.0, a * c)
    out = np.where(r > _FLUSH, r, 0.0)
    low = a <= _A_LOW
    if low.any():
        log_c = math.log(c)
        out[low] = np.exp(np.minimum(ws[low] + log_c, 0.0)) if log_c + _EXP_FAST + 1e-9 > LOG_TINY else 0.0
    return out


def _scores_partial(L, bins, yf, log_k, lam, top, c, dense, nb):
    """Exact terms of (sum mu, per-feature per-bin sums of mu_i y_i): (T, 1, 1 + d nb)."""
    from fast._exact_rados import _slices

    mu = _measure(L, log_k, lam, top, c, dense)
    d = bins.shape[1]
    cols = [mu[:, None]]
    terms = []
    for lo in range(0, mu.shape[0], 1 << 16):  # exact per block: slices of mu y, bincount per slice
        hi_ = min(mu.shape[0], lo + (1 << 16))
        for scale, piece in _slices(np.column_stack([mu[lo:hi_], mu[lo:hi_] * yf[lo:hi_]])):
            row = np.empty(1 + d * nb)
            row[0] = piece[:, 0].sum()  # exact: a slice's sums of <= 2^16 entries
            for j in range(d):
                row[1 + j * nb:1 + (j + 1) * nb] = np.bincount(bins[lo:hi_, j], weights=piece[:, 1], minlength=nb)
            terms.append(row * 2.0**scale if scale else row)
    del cols
    return np.stack(terms)[:, None, :] if terms else np.zeros((0, 1, 1 + d * nb))


def _update_L(L, bins, yf, j, ti, s):
    h = s * np.where(bins[:, j] > ti, 1.0, -1.0)
    return L + (1.0 - np.abs(np.clip(h, -1.0, 1.0) - yf) / 2.0)


def boost_fit(est, X, y, accountant=None):
    """:meth:`PrivateBoostClassifier.fit` on a dask array (LB-NxM with the stump learner over public ``bounds``,
    two labels): the per-row state (threshold bins, y, the loss L) is persisted on the workers and every round
    is a few distributed passes returning exact partials (the projection's min, masses and capped counts; the
    measure's size and the stump scores); the loop, the report-noisy-max draw (once per round, on the driver) and
    the accounting (charged before the first job) stay here.  Sums are exact, so the run does not depend on the
    partitioning; it differs from the in-memory fit (float sums) only in rounding (measured: the same hypotheses
    as the seeded in-memory fit, tests/test_dask.py)."""
    import dask
    import dask.array as da

    from fast import _dask
    from fast import accounting as _acc
    from fast import private_boosting as _pb
    from fast._contracts.privacy_contract import (PrivacySpent, charge_fit, noise_rng, refuse_seeded_charge,
                                                  reported_spent)
    from fast._contracts.validation import as_generator
    from fast._exact_rados import finish_terms
    from fast.estimators import boosting as B
    from fast.labels import classes_array, declared_classes
    from fast.measures import _A_LOW, _CAP_ITERATIONS

    eps, dl, T, kappa, lam, rho_total = est._validate_params()
    if est.booster != "lazy_bregman":
        raise ValueError("a dask input supports booster='lazy_bregman' (SmoothBoost's stopping test is not "
                         "distributed yet)")
    leak = est._leaked_bound()
    if leak is not None:
        raise ValueError(f"{leak} must be given (public) with a dask input: reading it would be a pass over X")
    half = est.weak_learner == "halfspace"
    if est._class_set() is not None:
        raise ValueError("one-vs-rest (classes with more than two labels) is not supported with a dask input")
    refuse_seeded_charge(est.insecure_noise_seed, accountant)
    pair = declared_classes(est.classes, y)
    blocks, offsets, rows = _dask.array_blocks(X)
    ys = _dask.vector_blocks(y, rows)
    n, d = int(offsets[-1]), int(X.shape[1])
    est.n_features_in_ = d
    nt = int(est.n_thresholds)
    if half:
        norm = float(est.data_norm)
        est.data_norm_ = norm
        dim = d
        sensitivity = _pb.centroid_sensitivity(n, kappa)
        sigma, grid = B._sigma_for_rho(rho_total / T, sensitivity, dim, T)
        rho_round = grid.rho
    else:
        lo, hi = est._bounds(np.zeros((1, d)))
        est.bounds_ = (lo, hi)
        thr = lo[:, None] + (hi - lo)[:, None] * (np.arange(1, nt + 1) / (nt + 1))
        est.thresholds_ = thr
        dim = d * nt
        sensitivity = _pb.stump_sensitivity(n, kappa)
        eps_r, rho_round = B._stump_epsilon(rho_total, T, sensitivity)
        sigma = float("nan")
    rho_spent = _acc.zcdp_composition([rho_round] * T)
    eps_spent = _acc.zcdp_to_dp_tight(rho_spent, dl)
    spent = PrivacySpent(
        epsilon=float(eps_spent), delta=float(dl), rho=float(rho_spent),
        neighbouring="replace-one (one example (x, y) of the training set; n public)",
        accounting=(f"T = {T} rounds of a discrete-Gaussian release at L2 sensitivity {sensitivity:.6g} "
                    f"(4/(kappa n), Thm 22 + Lemma 21) on the grid 2^{grid.k}: rho = {grid.rho:.6g} each (zCDP "
                    f"composition, Lemma 14), tight conversion (CKS20 Prop. 12)" if half
                    else f"T = {T} rounds of report-noisy-max (exact discrete Laplace) over {2 * dim} signed stumps "
                    f"at score sensitivity {sensitivity:.6g} (4/(kappa n): smooth measure + Lemma 21): pure "
                    f"eps_r = {eps_r:.6g} each, rho = eps_r^2/2 = {rho_round:.6g} (BS16 Prop. 1.4), zCDP "
                    f"composition (Lemma 14), tight conversion (CKS20 Prop. 12)"))
    charge_fit(spent, accountant, est.insecure_noise_seed, label=type(est).__name__)  # before the first job
    seed = noise_rng(est.insecure_noise_seed)
    gen = None if seed is None else as_generator(seed)
    if half:
        prep = [dask.delayed(_half_prep, nout=2)(b, yb, est, pair, norm) for b, yb in zip(blocks, ys)]
        bins = [da.from_delayed(p[0], shape=(r, d), dtype=np.float64) for p, r in zip(prep, rows)]
    else:
        prep = [dask.delayed(_boost_prep, nout=2)(b, yb, est, pair, lo, hi, thr) for b, yb in zip(blocks, ys)]
        bins = [da.from_delayed(p[0], shape=(r, d), dtype=np.int64) for p, r in zip(prep, rows)]
    yf = [da.from_delayed(p[1], shape=(r,), dtype=np.float64) for p, r in zip(prep, rows)]
    L = [da.zeros(r, chunks=r) for r in rows]
    bins, yf, L = dask.persist(bins, yf, L)
    bins_d = [b.to_delayed(optimize_graph=False).ravel()[0] for b in bins]
    yf_d = [v.to_delayed(optimize_graph=False).ravel()[0] for v in yf]
    log_k, target, nb = math.log(kappa), kappa * n, nt + 1
    hyps = []
    for _t in range(T):
        L_d = [v.to_delayed(optimize_graph=False).ravel()[0] for v in L]
        top = log_k - lam * min(_dask.compute(*[dask.delayed(_min_L)(v) for v in L_d]))
        total = _fsum_parts(_dask.compute(*[dask.delayed(_mass)(v, log_k, lam, top, 0.0, _A_LOW) for v in L_d]))
        dense = math.log(total) + top >= math.log(target)
        c = 0.0
        if not dense:  # the capped scaling's fixed point (fast.measures._capping), exact sums
            c, previous, settled = target / total, -1, False
            for _ in range(_CAP_ITERATIONS):
                out = _dask.compute(*[dask.delayed(_mass)(v, log_k, lam, top, c, _A_LOW) for v in L_d])
                capped, kept = sum(o[0] for o in out), _fsum_parts(out)
                if capped == previous:
                    c, settled = (target - capped) / kept, True
                    break
                if capped < previous or not (kept > 0.0) or not (target - capped > 0.0):
                    break
                c, previous = (target - capped) / kept, capped
            if not settled:  # (the in-memory fit sorts here) bisection on c: never an exception, data-independent
                c = _bisect_capping(L_d, log_k, lam, top, target, total, _A_LOW)
        if half:  # the centroid release (fast.private_boosting's run, on the driver)
            size = _fsum_parts(_dask.compute(*[dask.delayed(_size_partial)(v, log_k, lam, top, c, dense)
                                               for v in L_d]))
            z = finish_terms(_dask.compute(*[dask.delayed(_centroid_partial)(v, b, yy, log_k, lam, top, c, dense,
                                                                             size)
                                             for v, b, yy in zip(L_d, bins_d, yf_d)]), 1, d)[0]
            z = B._release(z, grid, gen)
            if est.normalize:
                nz = math.sqrt(math.fsum(z * z))
                z = z / nz if nz > 0 else z
            hyps.append(z)
            L = dask.persist([da.from_delayed(dask.delayed(_update_L_half)(v, b, yy, z), shape=(r,),
                                              dtype=np.float64) for v, b, yy, r in zip(L_d, bins_d, yf_d, rows)])[0]
            continue
        parts = _dask.compute(*[dask.delayed(_scores_partial)(v, b, yy, log_k, lam, top, c, dense, nb)
                                for v, b, yy in zip(L_d, bins_d, yf_d)])
        sums = finish_terms(parts, 1, 1 + d * nb)[0]
        size, above = sums[0], (sums[1:] / sums[0]).reshape(d, nb)
        cum = np.cumsum(above, axis=1)[:, :-1]
        scores = (above.sum(axis=1, keepdims=True) - cum) - cum
        ci = _pb.report_noisy_max(np.stack([scores, -scores], axis=-1).ravel(), sensitivity, eps_r, rng=gen)
        j, ti = ci // (2 * nt), (ci // 2) % nt
        s = 1.0 if ci % 2 == 0 else -1.0
        hyps.append((j, float(thr[j, ti]), s))
        L = dask.persist([da.from_delayed(dask.delayed(_update_L)(v, b, yy, j, ti, s), shape=(r,), dtype=np.float64)
                          for v, b, yy, r in zip(L_d, bins_d, yf_d, rows)])[0]
        del size
    est.classes_ = classes_array(pair)
    est.hypotheses_ = np.array(hyps, dtype=np.float64)
    if half:
        est.coef_ = est.hypotheses_.mean(axis=0)
    est.sigma_ = float(sigma)
    est.lam_ = float(lam)
    est.privacy_spent_ = reported_spent(spent, est.insecure_noise_seed)
    est._report_noise(n, d, stacklevel=5)  # as in memory: public n, d and parameters (issue 28 item 6)
    return est


def _bisect_capping(L_d, log_k, lam, top, target, total, low):
    """c of the capped scaling by bisection (the fallback of the fixed point): g(c) = #(a c >= 1) + c kept(c) is
    non-decreasing; bracket g(c) = target, then, once both ends cap the same set, c = (target - capped) / kept."""
    import dask

    from fast import _dask

    def g(c):
        out = _dask.compute(*[dask.delayed(_mass)(v, log_k, lam, top, c, low) for v in L_d])
        return sum(o[0] for o in out), _fsum_parts(out)

    lo_c, hi_c = target / total, 1.0 / _A_LOW_BISECT
    for _ in range(200):
        mid = 0.5 * (lo_c + hi_c)
        capped, kept = g(mid)
        if capped + mid * kept < target:
            lo_c = mid
        else:
            hi_c = mid
        c_lo, c_hi = g(lo_c)[0], g(hi_c)[0]
        if c_lo == c_hi or not (lo_c < mid < hi_c):
            break
    capped, kept = g(lo_c)
    return (target - capped) / kept if kept > 0.0 else lo_c


#: the largest scaling bisection tries: a = exp(w - top) is at least exp(-707) for the kept entries
_A_LOW_BISECT = math.exp(-707.0)


def _fsum_parts(parts):
    """The exactly rounded total of partials ((count, terms) pairs or terms)."""
    from fast._exact_rados import finish_terms

    terms = [p[1] if isinstance(p, tuple) else p for p in parts]
    return float(finish_terms(terms, 1, 1)[0, 0])
