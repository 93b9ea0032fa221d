"""code(c) = logit(P[y=1 | level c]) - logit(P[y=1]) and its relatives, learned without leaking   [winvector2015]

Impact (effects) coding of high-cardinality categorical columns, as in the Win-Vector post "Using differential
privacy to reuse training data" (2015) and the authors' public code ([EXT]: vtreat ``effectTreatmentC.R``
``.mkCatBayes``, ``effectTreatmentN.R`` ``.mkCatNum``, ``vtreatImpl.R`` ``.safeLevelsC``; the post's
``DiffPriv/DPrivModeling`` ``bayesCode``, ``countCode``, ``conditionalCounts``).  The conventions (levels,
missing values, novel and pruned levels, pooling, the significance tests) are written once in
:mod:`spec.impact_contract`.

This is the readable mirror: plain loops, :func:`math.fsum`, exact integer arithmetic for Fisher's test.  The
jackknife here literally refits the coder on the table without row i (O(N L)); ``fast.impact_coding`` derives
the same codes in O(N + L).  Parameters, returns, errors and examples of every function are documented in
numpydoc form on its twin in :mod:`fast.impact_coding` (same signatures, same contract).

Privacy: :func:`laplace_count_table` makes the count table (and every coder built from it) epsilon-DP; codes of the
rows the table was counted from (any construction) are a per-row function of those rows' private levels and are as
sensitive as the data: only the coder, and codes of other data, are a DP release.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from reference import mechanisms
from spec import impact_contract as C
from spec.links import implements
from spec.privacy_contract import NEIGHBOURING

__all__ = [
    "factorize",
    "count_table",
    "bayes_code",
    "log_lift_code",
    "count_code",
    "mean_code",
    "group_p_values",
    "coder_from_table",
    "fit_coder",
    "apply_coder",
    "naive_codes",
    "split_codes",
    "cross_codes",
    "jackknife_codes",
    "count_sensitivity",
    "laplace_count_table",
]


# ---------------------------------------------------------------------------------------------------------
# levels and counts
# ---------------------------------------------------------------------------------------------------------
def factorize(v):
    """levels = sorted distinct values of v (missing last, as None); index[i] = position of v[i] in levels

    Returns ``(levels, index)``: a tuple of Python values and an int64 array.  Missing values (None, NaN,
    pandas NA) form one level, shown as None (:mod:`spec.impact_contract`).

    Parameters
    ----------
    v : array-like or pandas Series, shape (n,)
        One column of str, int, float or bool levels (None / NaN / pandas NA: the missing level).

    Returns
    -------
    levels : tuple
        Sorted distinct levels, None (missing) last.
    index : ndarray of int64, shape (n,)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    values = C.column_values(v)
    kind = C.level_kind(values)
    seen = {}
    has_missing = False
    for value in values:
        if C.is_missing(value):
            has_missing = True
        else:
            key = _plain(value, kind)
            seen[key] = True
    levels = sorted(seen)
    if has_missing:
        levels.append(None)
    position = {level: i for i, level in enumerate(levels)}
    index = [position[None] if C.is_missing(value) else position[_plain(value, kind)] for value in values]
    return tuple(levels), np.array(index, dtype=np.int64)


def _plain(value, kind):
    """numpy scalars as the Python value (so 3 and np.int64(3) are one level)."""
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return bool(value)
    return str(value)


def count_table(index, y, n_levels, *, target_type="binary"):
    """table[c] = [sum_{v_i=c} y_i, sum_{v_i=c} (1 - y_i)] (binary) or [n_c, sum y_i, sum y_i^2] (continuous)
    [EXT vtreat tapply; the post's conditionalCounts with b = 0]

    Parameters
    ----------
    index : array-like of int, shape (n,)
        Level index of each row in [0, n_levels) (see :func:`factorize`).
    y : array-like, shape (n,)
        Binary outcome in {0, 1} (both classes present) or, with ``target_type="continuous"``, finite numbers.
    n_levels : int
        Number of levels (rows of the count table).
    target_type : {"binary", "continuous"}

    Returns
    -------
    ndarray of float64, shape (n_levels, 2) or (n_levels, 3)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    idx = C.check_level_index(index, n_levels)
    yy = C.check_target(y, target_type, idx.shape[0]) if target_type == "binary" else _target_any(y, idx)
    width = 2 if target_type == "binary" else 3
    cells = [[[] for _ in range(width)] for _ in range(n_levels)]
    for c, value in zip(idx.tolist(), yy.tolist()):
        if target_type == "binary":
            cells[c][0 if value == 1 else 1].append(1.0)
        else:
            cells[c][0].append(1.0)
            cells[c][1].append(float(value))
            cells[c][2].append(float(value) * float(value))
    return np.array([[math.fsum(cell) for cell in row] for row in cells], dtype=np.float64).reshape(n_levels, width)


def _target_any(y, idx):
    return C.check_target(y, "continuous", idx.shape[0])


# ---------------------------------------------------------------------------------------------------------
# the codes (elementwise on broadcast arrays)
# ---------------------------------------------------------------------------------------------------------
def _broadcast(*arrays):
    arrs = [np.asarray(a, dtype=np.float64) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in arrs))
    return [np.broadcast_to(a, shape).ravel().tolist() for a in arrs], shape


@implements("winvector2015.impact")
def bayes_code(n_pos, n_neg, total_pos, total_neg, *, smoothing=0.0):
    """logit(P[T|C]) - logit(P[T]), P[C|T] = (nCT + p s)/(nT + s), P[C|F] = (nCF + (1-p) s)/(nF + s)
    [EXT vtreat catB; s floored at 1e-4, p = nT/(nT+nF) clipped to [1e-6, 1-1e-6]]

    A table with no rows (nT + nF = 0) codes 0.  logit(P[T|C]) is computed as log(P[C|T] p) - log(P[C|F] (1-p)), the same number without the rounding of
    P[T|C] to 1.0 that vtreat's form suffers for very unbalanced levels.

    Parameters
    ----------
    n_pos, n_neg : array-like
        Positive and negative counts of the level (broadcast together).
    total_pos, total_neg : array-like
        Positive and negative counts of the whole table.
    smoothing : float >= 0

    Returns
    -------
    ndarray of float64 (the broadcast shape)
    """
    s = max(C.check_smoothing(smoothing), C.BAYES_SMOOTHING_FLOOR)
    C.check_counts("n_pos, n_neg, total_pos, total_neg", n_pos, n_neg, total_pos, total_neg)
    (a, b, tp, tn), shape = _broadcast(n_pos, n_neg, total_pos, total_neg)
    out = []
    for nct, ncf, nt, nf in zip(a, b, tp, tn):
        if nt + nf <= 0.0:
            out.append(0.0)  # no data: no effect
            continue
        p = min(max(nt / (nt + nf), C.BAYES_RATE_CLIP), 1.0 - C.BAYES_RATE_CLIP)
        p_c_given_t = (nct + p * s) / (nt + s)
        p_c_given_f = (ncf + (1.0 - p) * s) / (nf + s)
        logit_t_given_c = math.log(p_c_given_t * p) - math.log(p_c_given_f * (1.0 - p))
        out.append(logit_t_given_c - math.log(p / (1.0 - p)))
    return np.array(out, dtype=np.float64).reshape(shape)


@implements("winvector2015.impact")
def log_lift_code(n_pos, n_neg, total_pos, total_neg, *, smoothing=1e-3):
    """log(P[T|C] / P[T]), P[C|T] = (nCT + p s)/(nT + p s), P[C|F] = (nCF + (1-p) s)/(nF + (1-p) s)
    [EXT the post's bayesCode; p = nT / max(nT + nF, 1e-3), s floored at 1e-3]

    When a class is absent (p = 0 or 1) the post's formula is 0/0; the code is then 0 (no information).

    Parameters
    ----------
    n_pos, n_neg, total_pos, total_neg : array-like
        As :func:`bayes_code`.
    smoothing : float >= 0

    Returns
    -------
    ndarray of float64
    """
    s = max(C.check_smoothing(smoothing), C.LOG_LIFT_SMOOTHING_FLOOR)
    C.check_counts("n_pos, n_neg, total_pos, total_neg", n_pos, n_neg, total_pos, total_neg)
    (a, b, tp, tn), shape = _broadcast(n_pos, n_neg, total_pos, total_neg)
    out = []
    for nct, ncf, nt, nf in zip(a, b, tp, tn):
        p = nt / max(nt + nf, 1e-3)
        if p <= 0.0 or p >= 1.0:
            out.append(0.0)
            continue
        p_c_given_t = (nct + p * s) / (nt + p * s)
        p_c_given_f = (ncf + (1.0 - p) * s) / (nf + (1.0 - p) * s)
        t_part = p_c_given_t * p
        f_part = p_c_given_f * (1.0 - p)
        out.append(math.log(t_part / (t_part + f_part) / p))
    return np.array(out, dtype=np.float64).reshape(shape)


@implements("winvector2015.laplace")
def count_code(n_pos, n_neg):
    """[nPlus, nMinus, log nPlus - log nMinus, 1[max(nPlus, nMinus) < 10]], nPlus = max(1e-3, nCT)
    [EXT the post's countCode]; returns shape (..., 4).

    Parameters
    ----------
    n_pos, n_neg : array-like
        (Noisy) counts of the level.

    Returns
    -------
    ndarray of float64, shape (..., 4)
    """
    C.check_counts("n_pos, n_neg", n_pos, n_neg)
    (a, b), shape = _broadcast(n_pos, n_neg)
    out = []
    for nct, ncf in zip(a, b):
        plus, minus = max(C.COUNT_FLOOR, nct), max(C.COUNT_FLOOR, ncf)
        out.append([plus, minus, math.log(plus) - math.log(minus),
                    1.0 if max(plus, minus) < C.COUNT_RARE_BELOW else 0.0])
    return np.array(out, dtype=np.float64).reshape(shape + (4,))


@implements("winvector2015.impact")
def mean_code(count, sum_y, total_count, total_sum, *, smoothing=0.0):
    """(sum_c y + s mean)/(n_c + s) - mean,  mean = sum y / N   [EXT vtreat catN]; 0 when n_c + s = 0

    Parameters
    ----------
    count, sum_y : array-like
        Rows and outcome sum of the level.
    total_count, total_sum : array-like
        Rows and outcome sum of the table.
    smoothing : float >= 0

    Returns
    -------
    ndarray of float64
    """
    s = C.check_smoothing(smoothing)
    C.check_counts("count, total_count", count, total_count)
    C.check_counts("sum_y, total_sum", sum_y, total_sum, counts=False)
    (n, sy, tn, ts), shape = _broadcast(count, sum_y, total_count, total_sum)
    out = []
    for nc, sc, nt, st in zip(n, sy, tn, ts):
        if nc + s <= 0.0 or nt <= 0.0:
            out.append(0.0)
            continue
        mean = st / nt
        out.append((sc + s * mean) / (nc + s) - mean)
    return np.array(out, dtype=np.float64).reshape(shape)


# ---------------------------------------------------------------------------------------------------------
# significance
# ---------------------------------------------------------------------------------------------------------
def _fisher_two_sided(a, b, c, d):
    """Fisher's exact two-sided p of [[a, b], [c, d]] (R's rule, exact integer arithmetic)."""
    r1, r2, c1 = a + b, c + d, a + c
    low, high = max(0, c1 - r2), min(r1, c1)
    weights = {x: math.comb(r1, x) * math.comb(r2, c1 - x) for x in range(low, high + 1)}
    cut = Fraction(weights[a]) * Fraction(C.FISHER_REL_ERR)
    total = sum(weights.values())
    tail = sum(w for w in weights.values() if w <= cut)
    return float(Fraction(tail, total))


def _binary_p(a, b, t_pos, t_neg):
    a, b = int(round(max(a, 0.0))), int(round(max(b, 0.0)))
    c, d = int(round(max(t_pos, 0.0))) - a, int(round(max(t_neg, 0.0))) - b
    if min(c, d) < 0:
        c, d = max(c, 0), max(d, 0)
    rows = [a + b, c + d]
    cols = [a + c, b + d]
    if min(rows) == 0 or min(cols) == 0:
        return 1.0
    n = a + b + c + d
    cells = [a, b, c, d]
    expected = [rows[0] * cols[0] / n, rows[0] * cols[1] / n, rows[1] * cols[0] / n, rows[1] * cols[1] / n]
    if min(cells) <= C.FISHER_MAX_CELL or min(expected) < C.CHISQ_MIN_EXPECTED:
        return _fisher_two_sided(a, b, c, d)
    yates = min(0.5, min(abs(o - e) for o, e in zip(cells, expected)))
    stat = math.fsum((abs(o - e) - yates) ** 2 / e for o, e in zip(cells, expected))
    return math.erfc(math.sqrt(stat / 2.0))


def _continuous_p(n1, s1, q1, n, s, q):
    n2, s2, q2 = n - n1, s - s1, q - q1
    if n1 <= 0 or n2 <= 0 or n <= 2:
        return 1.0
    mean, m1, m2 = s / n, s1 / n1, s2 / n2
    between = n1 * (m1 - mean) ** 2 + n2 * (m2 - mean) ** 2
    within = max(q1 - s1 * s1 / n1, 0.0) + max(q2 - s2 * s2 / n2, 0.0)
    if within <= 0.0:
        return 0.0 if between > 0.0 else 1.0
    df = n - 2.0
    f = between / (within / df)
    return float(mpmath.betainc(df / 2.0, 0.5, 0.0, df / (df + f), regularized=True))


@implements("winvector2015.sigprune")
def group_p_values(groups, totals, *, target_type="binary"):
    """p-value of each group (a level or the rare pool) against the rest: Fisher / chi-square (binary) or the F
    test (continuous), as vtreat's .safeLevelsC / .safeLevelsR   [EXT vtreatImpl.R]

    ``groups``: (Q, w) count rows; ``totals``: (w,) or (Q, w) column totals of the whole table.

    Parameters
    ----------
    groups : array-like, shape (Q, 2) or (Q, 3)
        Count rows of the groups (see :func:`count_table`).
    totals : array-like, shape (2,) / (3,) or (Q, 2) / (Q, 3)
        Column totals of the whole table.
    target_type : {"binary", "continuous"}

    Returns
    -------
    ndarray of float64, shape (Q,)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    g = C.check_table(groups, target_type, "groups")
    t = np.broadcast_to(np.asarray(totals, dtype=np.float64), g.shape)
    out = []
    for row, tot in zip(g.tolist(), t.tolist()):
        if target_type == "binary":
            out.append(_binary_p(row[0], row[1], tot[0], tot[1]))
        else:
            out.append(_continuous_p(row[0], row[1], row[2], tot[0], tot[1], tot[2]))
    return np.array(out, dtype=np.float64)


# ---------------------------------------------------------------------------------------------------------
# coders
# ---------------------------------------------------------------------------------------------------------
def _options(target_type, code, smoothing, rare_count, rare_sig):
    code = C.check_code(code, target_type)
    if smoothing is None:
        smoothing = 1e-3 if code == "log_lift" else 0.0
    return code, C.check_smoothing(smoothing), C.check_rare_count(rare_count), C.check_rare_sig(rare_sig)


def _group_code(code, group, totals, target_type, smoothing):
    if code == "count":
        return count_code(group[0], group[1]).tolist()
    if code == "bayes":
        return [float(bayes_code(group[0], group[1], totals[0], totals[1], smoothing=smoothing))]
    if code == "log_lift":
        return [float(log_lift_code(group[0], group[1], totals[0], totals[1], smoothing=smoothing))]
    if target_type == "binary":  # mean code of a 0/1 outcome
        return [float(mean_code(group[0] + group[1], group[0], totals[0] + totals[1], totals[0],
                                smoothing=smoothing))]
    return [float(mean_code(group[0], group[1], totals[0], totals[1], smoothing=smoothing))]


def _size(row, target_type):
    return row[0] + row[1] if target_type == "binary" else row[0]


@implements("winvector2015.impact", "winvector2015.sigprune")
def coder_from_table(table, *, target_type="binary", code="auto", smoothing=None, rare_count=0, rare_sig=1.0):
    """The coder of a count table: pool levels with count <= rare_count (or >= N - rare_count), keep eligible
    groups with p <= rare_sig, code kept levels, code the rest by the default row   [EXT vtreat .safeLevelsC,
    catB / catN; the post's countCode; conventions in spec.impact_contract]

    Parameters
    ----------
    table : array-like, shape (n_levels, 2) or (n_levels, 3)
    target_type : {"binary", "continuous"}
    code : {"auto", "bayes", "log_lift", "count", "mean"}
        "auto": "bayes" (binary) or "mean" (continuous).
    smoothing : float >= 0 or None
        None: 1e-3 for "log_lift", else 0.
    rare_count : int >= 0
        Levels seen at most this often (or at least N - rare_count times) are pooled.
    rare_sig : float in (0, 1]
        Groups with p-value above it are pruned (1: no pruning).

    Returns
    -------
    spec.impact_contract.CodeTable

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    tab = C.check_table(table, target_type)
    code, smoothing, rare_count, rare_sig = _options(target_type, code, smoothing, rare_count, rare_sig)
    rows = tab.tolist()
    width = len(rows[0])
    totals = [math.fsum(row[j] for row in rows) for j in range(width)]
    sizes = [_size(row, target_type) for row in rows]
    n_total = math.fsum(sizes)
    pooled = [0 < s and (s <= rare_count or s >= n_total - rare_count) for s in sizes]
    pool = [math.fsum(row[j] for row, p in zip(rows, pooled) if p) for j in range(width)]
    default = C.default_row(code).tolist()
    counts, p_values, kept, codes = [], [], [], []
    for row, size, in_pool in zip(rows, sizes, pooled):
        counts.append(size)
        if size <= 0:
            p_values.append(1.0)
            kept.append(False)
            codes.append(default)
            continue
        group = pool if in_pool else row
        group_size = _size(group, target_type)
        eligible = rare_count < group_size < n_total - rare_count
        # the group's significance, always (vtreat's score frame reports it whether or not it prunes)
        p = float(group_p_values([group], totals, target_type=target_type)[0])
        keep = eligible and (rare_sig >= 1.0 or p <= rare_sig)
        p_values.append(p)
        kept.append(keep)
        codes.append(_group_code(code, group, totals, target_type, smoothing) if keep else default)
    return C.CodeTable(count=np.array(counts, dtype=np.float64), pooled=np.array(pooled, dtype=bool),
                       p_value=np.array(p_values, dtype=np.float64), kept=np.array(kept, dtype=bool),
                       code=np.array(codes, dtype=np.float64).reshape(len(rows), len(default)),
                       default=np.array(default, dtype=np.float64))


@implements("winvector2015.impact")
def fit_coder(index, y, n_levels, *, target_type="binary", code="auto", smoothing=None, rare_count=0,
              rare_sig=1.0):
    """coder_from_table(count_table(index, y))   [winvector2015: the single-variable model of y given v]

    Parameters
    ----------
    index : array-like of int, shape (n,)
        Level index of each row in [0, n_levels) (see :func:`factorize`).
    y : array-like, shape (n,)
        Binary outcome in {0, 1} (both classes present) or, with ``target_type="continuous"``, finite numbers.
    n_levels : int
        Number of levels (rows of the count table).
    target_type : {"binary", "continuous"}
    code : {"auto", "bayes", "log_lift", "count", "mean"}
        "auto": "bayes" (binary) or "mean" (continuous).
    smoothing : float >= 0 or None
        None: 1e-3 for "log_lift", else 0.
    rare_count : int >= 0
        Levels seen at most this often (or at least N - rare_count times) are pooled.
    rare_sig : float in (0, 1]
        Groups with p-value above it are pruned (1: no pruning).

    Returns
    -------
    spec.impact_contract.CodeTable

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    table = count_table(index, y, n_levels, target_type=target_type)
    return coder_from_table(table, target_type=target_type, code=code, smoothing=smoothing,
                            rare_count=rare_count, rare_sig=rare_sig)


def apply_coder(coder, index):
    """codes[i] = coder.code[index[i]], and the default row for novel levels (index -1)   [EXT vtreat .catBayes]

    Parameters
    ----------
    coder : spec.impact_contract.CodeTable
    index : array-like of int
        Level indices, -1 for a level the coder never saw.

    Returns
    -------
    ndarray of float64, shape (n, n_columns)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    if not isinstance(coder, C.CodeTable):
        raise TypeError(f"coder must be a CodeTable, got {type(coder).__name__}")
    idx = C.check_level_index(index, coder.code.shape[0], allow_novel=True)
    table = coder.code.tolist()
    default = coder.default.tolist()
    return np.array([default if c < 0 else table[c] for c in idx.tolist()], dtype=np.float64).reshape(
        idx.shape[0], coder.default.shape[0])


# ---------------------------------------------------------------------------------------------------------
# constructions
# ---------------------------------------------------------------------------------------------------------
@implements("winvector2015.naive")
def naive_codes(index, y, n_levels, **options):
    """codes of the training rows by the coder fit on the same rows (the post's "bad example")

    Parameters
    ----------
    index : array-like of int, shape (n,)
        Level index of each row in [0, n_levels) (see :func:`factorize`).
    y : array-like, shape (n,)
        Binary outcome in {0, 1} (both classes present) or, with ``target_type="continuous"``, finite numbers.
    n_levels : int
        Number of levels (rows of the count table).
    **options
        As :func:`fit_coder`.

    Returns
    -------
    ndarray of float64, shape (n, n_columns)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    return apply_coder(fit_coder(index, y, n_levels, **options), index)


@implements("winvector2015.split")
def split_codes(index, y, n_levels, coding, *, target_type="binary", **options):
    """rows with coding[i] = False coded by the coder fit on the rows with coding[i] = True; coding rows NaN
    [winvector2015 "Split training"]

    Parameters
    ----------
    index : array-like of int, shape (n,)
        Level index of each row in [0, n_levels) (see :func:`factorize`).
    y : array-like, shape (n,)
        Binary outcome in {0, 1} (both classes present) or, with ``target_type="continuous"``, finite numbers.
    n_levels : int
        Number of levels (rows of the count table).
    coding : array-like of bool, shape (n,)
        The coding rows (at least one, not all).
    target_type : {"binary", "continuous"}
    **options
        As :func:`fit_coder`.

    Returns
    -------
    ndarray of float64, shape (n, n_columns)
        NaN on the coding rows.

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    idx = C.check_level_index(index, n_levels)
    mask = _coding_mask(coding, idx.shape[0])
    rows = [i for i in range(idx.shape[0]) if mask[i]]
    yy = np.asarray(y)
    coder = fit_coder(idx[rows], _rows(yy, rows), n_levels, target_type=target_type, **options)
    out = apply_coder(coder, idx)
    out[np.array(mask, dtype=bool)] = np.nan
    return out


def _rows(y, rows):
    return np.asarray(y)[rows] if np.ndim(y) == 1 and len(y) > 0 else y


def _coding_mask(coding, length):
    arr = np.asarray(coding)
    if arr.dtype != bool:
        raise TypeError(f"coding must be a boolean mask of the coding rows, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.shape[0] != length:
        raise ValueError(f"coding must have one flag per row ({length}), got shape {arr.shape}")
    if not arr.any() or arr.all():
        raise ValueError("coding must flag at least one coding row and leave at least one model row")
    return arr.tolist()


@implements("winvector2015.crossframe")
def cross_codes(index, y, n_levels, folds, *, target_type="binary", **options):
    """X[fold i] = S_i(T_i), S_i fit on C_i = T minus T_i   [winvector2015 "Cross training"]

    Parameters
    ----------
    index : array-like of int, shape (n,)
        Level index of each row in [0, n_levels) (see :func:`factorize`).
    y : array-like, shape (n,)
        Binary outcome in {0, 1} (both classes present) or, with ``target_type="continuous"``, finite numbers.
    n_levels : int
        Number of levels (rows of the count table).
    folds : array-like of int, shape (n,)
        Fold id of each row (k >= 2 distinct ids).
    target_type : {"binary", "continuous"}
    **options
        code, smoothing, rare_count, rare_sig: as :func:`fit_coder`.

    Returns
    -------
    ndarray of float64, shape (n, n_columns)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    idx = C.check_level_index(index, n_levels)
    fold_ids, ids = C.check_folds(folds, idx.shape[0])
    y = C.check_target(y, target_type, idx.shape[0])
    out = None
    for k in ids.tolist():
        train = [i for i in range(idx.shape[0]) if fold_ids[i] != k]
        test = [i for i in range(idx.shape[0]) if fold_ids[i] == k]
        coder = fit_coder(idx[train], _rows(y, train), n_levels, target_type=target_type, **options)
        codes = apply_coder(coder, idx[test])
        if out is None:
            out = np.empty((idx.shape[0], codes.shape[1]), dtype=np.float64)
        out[test] = codes
    return out


@implements("winvector2015.jackknife")
def jackknife_codes(index, y, n_levels, *, target_type="binary", **options):
    """X[i] = S_{-i}(v_i), S_{-i} the coder of the count table without row i: counts nCT[c] - y_i,
    nCF[c] - (1 - y_i), totals nT - y_i, nF - (1 - y_i)   [winvector2015 "jackknifed version"]

    Written as the definition: one coder per row on the table minus that row (O(N L)).

    Parameters
    ----------
    index : array-like of int, shape (n,)
        Level index of each row in [0, n_levels) (see :func:`factorize`).
    y : array-like, shape (n,)
        Binary outcome in {0, 1} (both classes present) or, with ``target_type="continuous"``, finite numbers.
    n_levels : int
        Number of levels (rows of the count table).
    target_type : {"binary", "continuous"}
    **options
        code, smoothing, rare_count, rare_sig: as :func:`fit_coder`.

    Returns
    -------
    ndarray of float64, shape (n, n_columns)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    idx = C.check_level_index(index, n_levels)
    if idx.shape[0] < 2:
        raise ValueError("index must have at least 2 rows for the jackknife")
    yy = C.check_target(y, target_type, idx.shape[0])
    table = count_table(idx, yy, n_levels, target_type=target_type)
    rows = []
    for c, value in zip(idx.tolist(), yy.tolist()):
        loo = table.copy()
        if target_type == "binary":
            loo[c, 0 if value == 1 else 1] -= 1.0
        else:
            loo[c] -= [1.0, value, value * value]
        coder = coder_from_table(loo, target_type=target_type, **options)
        rows.append(coder.code[c].tolist() if coder.count[c] > 0 else coder.default.tolist())
    return np.array(rows, dtype=np.float64)


# ---------------------------------------------------------------------------------------------------------
# Laplace smearing with a stated guarantee
# ---------------------------------------------------------------------------------------------------------
@implements("winvector2015.laplace")
def count_sensitivity(neighbouring="replace-one"):
    """L1 sensitivity of the (n_levels, 2) table [nCT, nCF]: 2 under replace-one (a row leaves one cell and
    enters another), 1 under add/remove-one (one cell changes by 1)   [derived; winvector2015.laplace]

    Parameters
    ----------
    neighbouring : {"replace-one", "add/remove-one"}

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``neighbouring`` is not one of ``NEIGHBOURING``.
    """
    if neighbouring not in NEIGHBOURING:
        raise ValueError(f"neighbouring must be one of {NEIGHBOURING}, got {neighbouring!r}")
    return 2 if neighbouring == "replace-one" else 1


@implements("winvector2015.laplace")
def laplace_count_table(table, *, epsilon, neighbouring="replace-one", rng=None, accountant=None):
    """max(table + DLap noise, 1e-3): each cell of the [nCT, nCF] table noised by the exact discrete Laplace
    mechanism at L1 sensitivity count_sensitivity(neighbouring), so the whole table is epsilon-DP
    [the post's conditionalCounts with a calibrated scale; reference.mechanisms.laplace_mechanism]

    The level set (the rows of the table) must be public: the guarantee covers the counts, not which levels
    exist.  The floor at 1e-3 is post-processing.

    Parameters
    ----------
    table : array-like, shape (n_levels, 2)
        Exact [n_pos, n_neg] counts over a PUBLIC list of levels.
    epsilon : float > 0
        The privacy parameter of this release.
    neighbouring : {"replace-one", "add/remove-one"}
    rng : None, int or numpy Generator
        None (production): OS entropy.  A seed: tests only (not private).
    accountant : fast.accounting.BudgetAccountant or None
        Charged epsilon before any noise is drawn.

    Returns
    -------
    ndarray of float64, shape (n_levels, 2)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).
    """
    tab = C.check_table(table, "binary")
    sens = count_sensitivity(neighbouring)
    noisy = mechanisms.laplace_mechanism(tab, sensitivity=sens, epsilon=epsilon, rng=rng, accountant=accountant)
    return np.array([[max(v, C.COUNT_FLOOR) for v in row] for row in noisy.tolist()], dtype=np.float64)
