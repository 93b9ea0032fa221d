"""code(c) = logit(P[y=1 | level c]) - logit(P[y=1]) and its relatives, learned without leaking   [winvector2015]

Vectorised mirror of :mod:`reference.impact_coding` (same public names, signatures, conventions and errors;
conventions in :mod:`spec.impact_contract`).  Every construction is O(N + L) per column (N rows, L levels):
levels by ``pandas.factorize``, count tables by ``np.bincount``, codes elementwise on the L-row table, codes of
rows by one gather.  No Python loop over rows and no N x L array.

* cross-frame: one bincount of (fold, level) gives the k fold tables; coder i is built from the total minus
  fold i's table (O(k L)), so every row is coded by a coder that never saw it.
* jackknife: exact leave-one-out without N refits.  Row i's coder is the coder of the table minus row i; its
  code for row i's level depends only on (level, y_i) for a binary target (at most 2 L distinct coders to
  evaluate), including the rare pooling and the significance test, whose inputs under leave-one-out are
  derived in closed form (``_jackknife_queries``).
* Significance: one numba pass over the levels' 2x2 tables (``_binary_p_rows``): the chi-square in closed form,
  Fisher's exact test by the hypergeometric ratio recurrence walked outward from the mode (a multiply-divide per
  term instead of six log-gammas, exact to ~1e-16 relative against integer arithmetic where the log-gamma form lost
  up to ~1e-8 at totals ~1e6; each side stops once its remaining terms are below 1e-18 of the kept mass).
* Privacy (``laplace_count_table``): the noisy table and any coder built from it (``coder_from_table``) are
  epsilon-DP, and so are the codes of OTHER rows (``apply_coder`` on new data).  The codes of the rows the table
  was counted from are not: ``apply_coder(coder, index)`` maps each row's own private level through the table, a
  per-row function of the private data, as sensitive as ``index`` itself.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from numba import njit
from scipy import special

from fast import mechanisms
from fast._contracts import impact_contract as C
from fast._contracts.privacy_contract import NEIGHBOURING

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

_KINDS = {"string": "str", "integer": "int", "floating": "float", "boolean": "bool", "empty": "none"}
FISHER_REL_ERR, FISHER_MAX_CELL, CHISQ_MIN_EXPECTED = C.FISHER_REL_ERR, C.FISHER_MAX_CELL, C.CHISQ_MIN_EXPECTED


# ---------------------------------------------------------------------------------------------------------
# levels and counts
# ---------------------------------------------------------------------------------------------------------
def factorize(v):
    """levels = sorted distinct values of v (missing last, as None); index[i] = position of v[i] in levels

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

    Examples
    --------
    >>> factorize(["b", None, "a", "b"])
    (('a', 'b', None), array([1, 2, 0, 1]))
    """
    values = C.column_values(v)
    codes, uniques, kind = _str_levels(values)
    if kind is None:
        kind = _KINDS.get(pd.api.types.infer_dtype(values, skipna=True))
        if kind is None:
            kind = C.level_kind(values)  # raises the contract's TypeError for mixed / unhashable levels
    if codes is None:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    uniques = np.asarray(uniques)
    if kind == "none":
        uniques = np.empty(0, dtype=object)
    if kind in ("int", "float", "bool") and uniques.dtype != object:  # numeric: sort in numpy
        order = np.argsort(uniques, kind="stable")
        levels = uniques[order].tolist()
        plain = list(levels)
    else:
        plain = list(map(_PLAIN[kind], uniques.astype(object).tolist()))
        order = np.array(sorted(range(len(plain)), key=plain.__getitem__), dtype=np.int64)
        levels = [plain[i] for i in order]
    rank = np.empty(len(plain), dtype=np.int64)
    rank[order] = np.arange(len(plain), dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    if codes.min() < 0:  # missing values: the last level
        missing = codes < 0
        levels.append(None)
        index = np.where(missing, len(plain), rank[np.where(missing, 0, codes)] if len(plain) else 0)
    else:
        index = np.take(rank, codes)  # ~2x the gather rank[codes]
    return tuple(levels), np.asarray(index, dtype=np.int64)


def _str_levels(values):
    """(codes, uniques, "str") of an object column of strings with no missing value, its kind read from the uniques
    alone (no pass of pandas' type inference over the column): with no missing value each value equals, and hashes
    as, one of the uniques, so a number or any other non-string among the values is a unique of its own, and
    all-string uniques prove a column of strings.  (None, None, None) otherwise (numbers equal across kinds, 1, 1.0
    and True, share one unique: only the whole column tells them apart), which the caller classifies in full."""
    if values.dtype != object:
        return None, None, None
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:  # unhashable levels: the contract words the error
        return None, None, None
    if codes.min() < 0 or pd.api.types.infer_dtype(uniques, skipna=False) != "string":
        return codes, uniques, None
    return codes, uniques, "str"


#: the Python value of a level of each kind
_PLAIN = {"int": int, "float": float, "bool": bool, "str": str, "none": str}


def _plain(value, kind):
    """The Python value of one level of the given kind (fast.estimators.impact maps a column's given levels)."""
    return _PLAIN[kind](value)


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

    Examples
    --------
    >>> count_table([0, 0, 1], [1, 0, 1], 2).tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    """
    idx = C.check_level_index(index, n_levels)
    yy = C.check_target(y, target_type, idx.shape[0])
    return _table(idx, yy, n_levels, target_type)


def _table(idx, yy, n_levels, target_type):
    if target_type == "binary":
        pos = np.bincount(idx, weights=yy.astype(np.float64), minlength=n_levels)
        total = np.bincount(idx, minlength=n_levels).astype(np.float64)
        return np.column_stack([pos, total - pos])
    yf = yy.astype(np.float64)
    return np.column_stack([np.bincount(idx, minlength=n_levels).astype(np.float64),
                            np.bincount(idx, weights=yf, minlength=n_levels),
                            np.bincount(idx, weights=yf * yf, minlength=n_levels)])


# ---------------------------------------------------------------------------------------------------------
# the codes
# ---------------------------------------------------------------------------------------------------------
def _counts(names, *values, counts=True):
    """(arrays, lows): the inputs as float64 arrays (no copy, no broadcast: a scalar total stays 0-d) and their
    minima (inf when empty), validated as ``spec.impact_contract.check_counts`` by two reductions each (min, max:
    NaN, inf, a negative count) instead of temporary arrays; a failure is handed to the contract, which raises its
    own error for the first bad input."""
    arrays = [np.asarray(v, dtype=np.float64) for v in values]
    lows = [float(arr.min()) if arr.size else math.inf for arr in arrays]
    for arr, low in zip(arrays, lows):
        if arr.size and not ((low >= 0.0 if counts else math.isfinite(low)) and math.isfinite(arr.max())):
            C.check_counts(names, *values, counts=counts)
            break
    return arrays, lows


def _zero_unless(ok, out):
    """out where ``ok`` (a bool or bool array broadcasting to out), 0 elsewhere; a new ndarray either way."""
    if np.all(ok):
        return np.asarray(out, dtype=np.float64)
    return np.where(ok, out, 0.0)


def bayes_code(n_pos, n_neg, total_pos, total_neg, *, smoothing=0.0):
    """logit(P[T|C]) - logit(P[T]), P[C|T] = (nCT + p s)/(nT + s), P[C|F] = (nCF + (1-p) s)/(nF + s)
    [EXT vtreat catB; s floored at 1e-4, p = nT/(nT+nF) clipped to [1e-6, 1-1e-6]]

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

    Examples
    --------
    >>> round(float(bayes_code(5, 5, 50, 50)), 6)
    0.0
    """
    s = max(C.check_smoothing(smoothing), C.BAYES_SMOOTHING_FLOOR)
    (a, b, tp, tn), _ = _counts("n_pos, n_neg, total_pos, total_neg", n_pos, n_neg, total_pos, total_neg)
    some = tp + tn > 0.0
    p = np.clip(tp / np.where(some, tp + tn, 1.0), C.BAYES_RATE_CLIP, 1.0 - C.BAYES_RATE_CLIP)
    # log(P[C|T] p) - log(P[C|F] (1-p)) - log(p / (1-p)) = log((a + p s) / (b + (1-p) s) * (nF + s) / (nT + s)):
    # one log of one quotient (the level's counts are the only full-length operands; the totals' part is a scalar
    # when the totals are); s >= 1e-4 and p in [1e-6, 1 - 1e-6], so no denominator is 0
    out = np.log((a + p * s) / (b + (1.0 - p) * s) * ((tn + s) / (tp + s)))
    return _zero_unless(some, out)


def log_lift_code(n_pos, n_neg, total_pos, total_neg, *, smoothing=1e-3):
    """log(P[T|C] / P[T]), P[C|T] = (nCT + p s)/(nT + p s), P[C|F] = (nCF + (1-p) s)/(nF + (1-p) s)
    [EXT the post's bayesCode; p = nT / max(nT + nF, 1e-3), s floored at 1e-3; 0 when p is 0 or 1]

    Parameters
    ----------
    n_pos, n_neg, total_pos, total_neg : array-like
        As :func:`bayes_code`.
    smoothing : float >= 0

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> round(float(log_lift_code(5, 5, 50, 50)), 6)
    0.0
    """
    s = max(C.check_smoothing(smoothing), C.LOG_LIFT_SMOOTHING_FLOOR)
    (a, b, tp, tn), _ = _counts("n_pos, n_neg, total_pos, total_neg", n_pos, n_neg, total_pos, total_neg)
    p = tp / np.maximum(tp + tn, 1e-3)
    ok = (p > 0.0) & (p < 1.0)
    pp = np.where(ok, p, 0.5)
    # log(t / (t + f) / p) = -log(p + p f / t) with t = P[C|T] p = (a + p s) p / (nT + p s) and f = P[C|F] (1-p)
    # = (b + (1-p) s) (1-p) / (nF + (1-p) s): f / t is the level's quotient (b + (1-p) s) / (a + p s) times a factor
    # of the totals (a scalar when the totals are); a + p s > 0 where ok (p > 0, s >= 1e-3)
    scale = pp * ((1.0 - pp) / (tn + (1.0 - pp) * s)) / (pp / (tp + pp * s))
    out = 0.0 - np.log(pp + (b + (1.0 - pp) * s) / (a + pp * s) * scale)  # -log(p (1 + f / t)); 0 - 0 is +0
    return _zero_unless(ok, out)


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

    Examples
    --------
    >>> count_code(0, 20).tolist()[:2]
    [0.001, 20.0]
    """
    a, b = np.broadcast_arrays(*_counts("n_pos, n_neg", n_pos, n_neg)[0])
    plus, minus = np.maximum(C.COUNT_FLOOR, a), np.maximum(C.COUNT_FLOOR, b)
    rare = (np.maximum(plus, minus) < C.COUNT_RARE_BELOW).astype(np.float64)
    return np.stack([plus, minus, np.log(plus / minus), rare], axis=-1)  # one log: log plus - log minus


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

    Examples
    --------
    >>> float(mean_code(2, 3.0, 4, 4.0))
    0.5
    """
    s = C.check_smoothing(smoothing)
    fused = _mean_fused(count, sum_y, total_count, total_sum, s)
    if fused is not None:
        return fused
    (n, tn), (n_low, tn_low) = _counts("count, total_count", count, total_count)
    (sy, ts), _ = _counts("sum_y, total_sum", sum_y, total_sum, counts=False)
    mean = ts / np.where(tn > 0.0, tn, 1.0)
    if s:  # n + s > 0 (counts >= 0): only an empty table codes 0
        sy, den = sy + s * mean, n + s
    else:  # (sy + 0 mean) / (n + 0) = sy / n where n > 0
        den = n
    if tn_low > 0.0 and (s or n_low > 0.0):  # every level codes (no temporary mask)
        return np.asarray(sy / den - mean)
    ok = (den > 0.0) & (tn > 0.0)
    return np.where(ok, sy / np.where(ok, den, 1.0) - mean, 0.0)


#: float64 bit patterns as int64: a finite number >= 0 (other than -0.0) lies in [0, _INF_BITS); |x| finite iff
#: (bits & _ABS_BITS) < _INF_BITS
_INF_BITS = 0x7FF0000000000000
_ABS_BITS = 0x7FFFFFFFFFFFFFFF


@njit(cache=True, nogil=True, error_model="numpy")
def _mean_rows(count, sum_y, mean, s, out):
    """out[i] = (sum_y[i] + s mean) / (count[i] + s) - mean (the reference's expression) in one pass, validating on
    the way by integer min / max of the bit patterns (vectorised, where float comparisons with NaN are not): True
    iff every count is a finite number >= 0 (> 0 when s = 0) and every sum is finite; else ``out`` is not used
    (the caller takes the checked path, which raises the contract's error or codes 0; -0.0 also goes there)."""
    count_bits, sum_bits = count.view(np.int64), sum_y.view(np.int64)
    low, high, sum_high = np.int64(_INF_BITS), np.int64(0), np.int64(0)
    shift = s * mean
    for i in range(count.shape[0]):
        low = min(low, count_bits[i])
        high = max(high, count_bits[i])
        sum_high = max(sum_high, sum_bits[i] & _ABS_BITS)
        out[i] = (sum_y[i] + shift) / (count[i] + s) - mean
    return (low > 0 or (low == 0 and s > 0.0)) and high < _INF_BITS and sum_high < _INF_BITS


def _mean_fused(count, sum_y, total_count, total_sum, s):
    """mean_code's common case in one pass (``_mean_rows``): per-level counts and sums as 1-d contiguous writable
    float64 arrays of one length, the totals scalars; None otherwise or when any value would need the checked path.
    Elementwise numpy costs four validation reductions and two passes more: at 1e6 levels the function is memory
    bound (its two inputs read once, the output written once)."""
    n, sy = np.asarray(count, dtype=np.float64), np.asarray(sum_y, dtype=np.float64)
    if not (n.ndim == 1 and sy.shape == n.shape and n.flags.c_contiguous and sy.flags.c_contiguous
            and n.flags.writeable and sy.flags.writeable and np.ndim(total_count) == 0 and np.ndim(total_sum) == 0):
        return None
    tn, ts = float(np.asarray(total_count, dtype=np.float64)), float(np.asarray(total_sum, dtype=np.float64))
    if not (0.0 < tn < math.inf and math.isfinite(ts)):
        return None
    out = np.empty(n.shape[0], dtype=np.float64)
    return out if _mean_rows(n, sy, ts / tn, s, out) else None


# ---------------------------------------------------------------------------------------------------------
# significance
# ---------------------------------------------------------------------------------------------------------
#: a side's walk away from the mode stops once the terms left sum to below this fraction of the kept mass
_FISHER_TAIL = 1e-18


@njit(cache=True, nogil=True)
def _fisher_one(a, r1, r2, c1):
    """Fisher's exact two-sided p of [[a, r1 - a], [c1 - a, r2 - c1 + a]] (R's rule): hypergeometric weights
    relative to the mode's, by the ratio recurrence w(x + 1) / w(x) = (r1 - x)(c1 - x) / ((x + 1)(r2 - c1 + x + 1))
    walked outward from the mode (log-concave: each side decreases), so every weight is <= 1 (no overflow) and each
    costs a multiply-divide instead of six log-gammas; w(a) is reached by the same products as in the sums, so the
    observed table is always in its own tail.  A side stops when its remaining terms (each <= the current one) sum
    to below _FISHER_TAIL of the kept mass, or underflow."""
    low = max(0, c1 - r2)
    high = min(r1, c1)
    if high <= low:
        return 1.0
    fr1, fr2, fc1 = float(r1), float(r2), float(c1)
    mode = int(((fr1 + 1.0) * (fc1 + 1.0)) / (fr1 + fr2 + 2.0))
    mode = min(max(mode, low), high)
    w_obs = 1.0
    for x in range(mode, a):
        w_obs *= (fr1 - x) * (fc1 - x) / ((x + 1.0) * (fr2 - fc1 + x + 1.0))
    for x in range(mode, a, -1):
        w_obs *= x * (fr2 - fc1 + x) / ((fr1 - x + 1.0) * (fc1 - x + 1.0))
    cut = w_obs * FISHER_REL_ERR
    total = 1.0
    kept = 1.0 if 1.0 <= cut else 0.0
    w = 1.0
    for x in range(mode, high):  # upper side: w(x + 1)
        w *= (fr1 - x) * (fc1 - x) / ((x + 1.0) * (fr2 - fc1 + x + 1.0))
        total += w
        if w <= cut:
            kept += w
            if w * (high - x) <= _FISHER_TAIL * kept:
                break
    w = 1.0
    for x in range(mode, low, -1):  # lower side: w(x - 1)
        w *= x * (fr2 - fc1 + x) / ((fr1 - x + 1.0) * (fc1 - x + 1.0))
        total += w
        if w <= cut:
            kept += w
            if w * (x - low) <= _FISHER_TAIL * kept:
                break
    return min(1.0, kept / total)


@njit(cache=True, nogil=True)
def _binary_p_rows(g, t, t_step, out):
    """p of each group g[i] = [n_pos, n_neg] against the totals t[i * t_step] (t_step 0: one row for all): counts
    rounded to integers (a = rint(max(g0, 0)), c = max(rint(max(t0, 0)) - a, 0), ...), then the 2x2 table
    [[a, b], [c, d]]: 1 with an empty row or column; Fisher when a cell is <= FISHER_MAX_CELL or an expected count
    is below CHISQ_MIN_EXPECTED; else Pearson's chi-square with Yates' correction (vtreat's rule,
    spec.impact_contract).  One pass per row, no temporaries."""
    for i in range(g.shape[0]):
        ai = np.int64(np.rint(max(g[i, 0], 0.0)))
        bi = np.int64(np.rint(max(g[i, 1], 0.0)))
        ci = max(np.int64(np.rint(max(t[i * t_step, 0], 0.0))) - ai, 0)
        di = max(np.int64(np.rint(max(t[i * t_step, 1], 0.0))) - bi, 0)
        rows0, rows1, cols0, cols1 = ai + bi, ci + di, ai + ci, bi + di
        if min(rows0, rows1) <= 0 or min(cols0, cols1) <= 0:
            out[i] = 1.0
            continue
        n = float(rows0 + rows1)
        e0, e1, e2, e3 = rows0 * cols0 / n, rows0 * cols1 / n, rows1 * cols0 / n, rows1 * cols1 / n
        if min(min(ai, bi), min(ci, di)) <= FISHER_MAX_CELL or min(min(e0, e1), min(e2, e3)) < CHISQ_MIN_EXPECTED:
            out[i] = _fisher_one(ai, rows0, rows1, cols0)
            continue
        d0, d1, d2, d3 = abs(ai - e0), abs(bi - e1), abs(ci - e2), abs(di - e3)
        yates = min(0.5, min(min(d0, d1), min(d2, d3)))
        stat = (d0 - yates) ** 2 / e0 + (d1 - yates) ** 2 / e1 + (d2 - yates) ** 2 / e2 + (d3 - yates) ** 2 / e3
        out[i] = math.erfc(math.sqrt(stat / 2.0))


def _binary_p(g, t):
    """``_binary_p_rows`` on writable C-contiguous float64 (the one compiled signature, the one the warm-up
    compiles); totals of one row stay one row."""
    shared = t.ndim == 1
    p = np.empty(g.shape[0], dtype=np.float64)
    _binary_p_rows(_plain_array(g), _plain_array(t.reshape(1, -1) if shared else t), 0 if shared else 1, p)
    return p


def _plain_array(a):
    """``a`` as a writable C-contiguous array (a copy only when it is not one: numba compiles read-only arrays
    apart)."""
    a = np.ascontiguousarray(a)
    return a if a.flags.writeable else a.copy()


def _continuous_p(g, t):
    n1, s1, q1 = g[:, 0], g[:, 1], g[:, 2]
    n, s, q = t[:, 0], t[:, 1], t[:, 2]
    n2, s2, q2 = n - n1, s - s1, q - q1
    live = (n1 > 0) & (n2 > 0) & (n > 2)
    p = np.ones(g.shape[0], dtype=np.float64)
    if not live.any():
        return p
    n1, s1, q1, n2, s2, q2, n, s = (x[live] for x in (n1, s1, q1, n2, s2, q2, n, s))
    mean, m1, m2 = s / n, s1 / n1, s2 / n2
    between = n1 * (m1 - mean) ** 2 + n2 * (m2 - mean) ** 2
    within = np.maximum(q1 - s1 * s1 / n1, 0.0) + np.maximum(q2 - s2 * s2 / n2, 0.0)
    df = n - 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        f = between / (within / df)
        pv = special.betainc(df / 2.0, 0.5, df / (df + f))
    pv = np.where(within <= 0.0, np.where(between > 0.0, 0.0, 1.0), pv)
    p[live] = pv
    return p


def group_p_values(groups, totals, *, target_type="binary"):
    """p-value of each group (a level or the rare pool) against the rest: Fisher / chi-square (binary) or the F
    test (continuous), as vtreat's .safeLevelsC / .safeLevelsR   [EXT vtreatImpl.R]

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

    Examples
    --------
    >>> round(float(group_p_values([[1.0, 0.0]], [20.0, 1980.0])[0]), 9)  # a minority singleton: p = prevalence
    0.01
    """
    g = C.check_table(groups, target_type, "groups")
    t = np.asarray(totals, dtype=np.float64)
    full = np.broadcast_to(t, g.shape)
    if target_type != "binary":
        return _continuous_p(g, full)
    return _binary_p(g, t if t.shape in (g.shape, g.shape[1:]) else full)


# ---------------------------------------------------------------------------------------------------------
# coders
# ---------------------------------------------------------------------------------------------------------
def _options(target_type, code, smoothing, rare_count, rare_sig):
    code = C.check_code(code, target_type)
    if smoothing is None:
        smoothing = 1e-3 if code == "log_lift" else 0.0
    return code, C.check_smoothing(smoothing), C.check_rare_count(rare_count), C.check_rare_sig(rare_sig)


def _group_code(code, g, t, target_type, smoothing):
    """Codes (Q, width) of the groups ``g`` against the totals ``t`` (one row shared by all groups, or one each)."""
    if code == "count":
        return count_code(g[:, 0], g[:, 1])
    t0, t1 = t[..., 0], t[..., 1]
    if code == "bayes":
        return bayes_code(g[:, 0], g[:, 1], t0, t1, smoothing=smoothing)[:, None]
    if code == "log_lift":
        return log_lift_code(g[:, 0], g[:, 1], t0, t1, smoothing=smoothing)[:, None]
    if target_type == "binary":
        return mean_code(g[:, 0] + g[:, 1], g[:, 0], t0 + t1, t0, smoothing=smoothing)[:, None]
    return mean_code(g[:, 0], g[:, 1], t0, t1, smoothing=smoothing)[:, None]


def _size(tab, target_type):
    return tab[..., 0] + tab[..., 1] if target_type == "binary" else tab[..., 0]


def _evaluate(rows, in_pool, pool, totals, n_total, present, *, code, smoothing, rare_count, rare_sig,
              target_type, p_values=True):
    """(p, kept, codes) of Q queries: a level's own counts ``rows`` or, when ``in_pool``, the pool's.

    p is the significance of every present query's group (1 for absent levels: the contract's empty-row rule),
    computed whenever ``p_values`` (the public coders: vtreat's score frame reports it always) or pruning needs
    it; the internal coders whose p is never observed (cross-frame folds, jackknife queries, the encoder's
    coders until ``score_frame_`` asks) skip it when ``rare_sig == 1`` (NaN: not computed), so the constructions
    cost no test they do not use.

    ``pool`` and ``totals`` are one row (shared by every query: a coder's table) or one row per query (the
    jackknife's leave-one-out tables); ``n_total`` a number or one per query.  ``in_pool`` / ``present`` None: no
    query pooled / every query present and eligible (the caller proved it: no mask is built).  Where every query
    is present / kept, the groups are used as they are (no masked copies)."""
    q = rows.shape[0]
    if in_pool is not None and in_pool.any():
        group = np.where(in_pool[:, None], pool, rows)
    else:
        group = rows
    if present is None:
        eligible = None
    else:
        size = _size(group, target_type)
        eligible = present & (rare_count < size) & (size < n_total - rare_count)
    if rare_sig < 1.0 or p_values:
        if present is None or present.all():
            p = group_p_values(group, totals, target_type=target_type)
        else:
            p = np.ones(q, dtype=np.float64)
            if present.any():
                p[present] = group_p_values(group[present], _query_rows(totals, present), target_type=target_type)
    else:
        p = np.full(q, np.nan) if present is None else np.where(present, np.nan, 1.0)  # not computed (never observed)
    if rare_sig < 1.0:
        kept = p <= rare_sig if eligible is None else eligible & (p <= rare_sig)
    else:
        kept = np.ones(q, dtype=bool) if eligible is None else eligible
    if eligible is None and rare_sig >= 1.0 or kept.all():
        return p, kept, _group_code(code, group, totals, target_type, smoothing)
    default = C.default_row(code)
    codes = np.broadcast_to(default, (q, default.shape[0])).copy()
    if kept.any():
        codes[kept] = _group_code(code, group[kept], _query_rows(totals, kept), target_type, smoothing)
    return p, kept, codes


def _query_rows(values, mask):
    """The rows of ``values`` (one row per query, or one row shared by all) for the queries in ``mask``."""
    return values if values.ndim == 1 else values[mask]


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

    Examples
    --------
    >>> coder = coder_from_table([[3.0, 1.0], [1.0, 3.0]], code="mean")
    >>> coder.code.ravel().tolist(), coder.default.tolist(), coder.kept.tolist()
    ([0.25, -0.25], [0.0], [True, True])
    """
    tab = C.check_table(table, target_type)
    code, smoothing, rare_count, rare_sig = _options(target_type, code, smoothing, rare_count, rare_sig)
    return _coder(tab, target_type, code, smoothing, rare_count, rare_sig)


def _coder(tab, target_type, code, smoothing, rare_count, rare_sig, p_values=True):
    tab = np.asfortranarray(tab)  # contiguous columns: the codes and the sums run on them
    totals = tab.sum(axis=0)
    sizes = _size(tab, target_type)
    n_total = sizes.sum()
    if sizes.min() > rare_count and sizes.max() < n_total - rare_count:
        # every level present (sizes > rare_count >= 0), none pooled, every one eligible: no masks to build
        pooled = np.zeros(tab.shape[0], dtype=bool)
        p, kept, codes = _evaluate(tab, None, None, totals, n_total, None, code=code, smoothing=smoothing,
                                   rare_count=rare_count, rare_sig=rare_sig, target_type=target_type,
                                   p_values=p_values)
    else:
        pooled = (sizes > 0) & ((sizes <= rare_count) | (sizes >= n_total - rare_count))
        pool = tab[pooled].sum(axis=0)
        present = sizes > 0
        p, kept, codes = _evaluate(tab, pooled, pool, totals, n_total, present, code=code, smoothing=smoothing,
                                   rare_count=rare_count, rare_sig=rare_sig, target_type=target_type,
                                   p_values=p_values)
    count = sizes if target_type == "binary" else sizes.copy()  # binary: a new array already; else a column view
    return C.CodeTable(count=count, pooled=pooled, p_value=p, kept=kept, code=codes, default=C.default_row(code))


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

    Examples
    --------
    >>> fit_coder([0, 0, 1, 1], [1, 1, 0, 1], 2, code="mean").code.ravel().tolist()
    [0.25, -0.25]
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

    Examples
    --------
    >>> coder = coder_from_table([[3.0, 1.0], [1.0, 3.0]], code="mean")
    >>> apply_coder(coder, [0, 1, -1]).ravel().tolist()  # -1: a novel level gets the default row
    [0.25, -0.25, 0.0]
    """
    if not isinstance(coder, C.CodeTable):
        raise TypeError(f"coder must be a CodeTable, got {type(coder).__name__}")
    idx = C.check_level_index(index, coder.code.shape[0], allow_novel=True)
    return _codes_of(coder, idx)


def _codes_of(coder, idx):
    """coder.code[idx], the default row where idx is -1: np.take of the table with the default row appended (index
    -1 reads it), ~2x the gather ``extended[idx]`` (numpy's fancy-indexing path)."""
    return np.take(np.vstack([coder.code, coder.default[None, :]]), idx, axis=0)


# ---------------------------------------------------------------------------------------------------------
# constructions
# ---------------------------------------------------------------------------------------------------------
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

    Examples
    --------
    >>> naive_codes([0, 0, 1, 1], [1, 1, 0, 1], 2, code="mean").ravel().tolist()
    [0.25, 0.25, -0.25, -0.25]
    """
    return apply_coder(fit_coder(index, y, n_levels, **options), index)


def split_codes(index, y, n_levels, coding, **options):
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

    Examples
    --------
    >>> coding = np.array([True, True, True, True, False, False])
    >>> split_codes([0, 0, 1, 1, 0, 1], [1, 0, 0, 1, 1, 0], 2, coding, code="mean").ravel().tolist()
    [nan, nan, nan, nan, 0.0, 0.0]
    """
    idx = C.check_level_index(index, n_levels)
    mask = np.asarray(coding)
    if mask.dtype != bool:
        raise TypeError(f"coding must be a boolean mask of the coding rows, got dtype {mask.dtype}")
    if mask.ndim != 1 or mask.shape[0] != idx.shape[0]:
        raise ValueError(f"coding must have one flag per row ({idx.shape[0]}), got shape {mask.shape}")
    if not mask.any() or mask.all():
        raise ValueError("coding must flag at least one coding row and leave at least one model row")
    coder = fit_coder(idx[mask], np.asarray(y)[mask], n_levels, **options)
    out = apply_coder(coder, idx)
    out[mask] = np.nan
    return out


def _fold_tables(idx, yy, n_levels, fold_pos, k, target_type):
    key = fold_pos * n_levels + idx
    size = k * n_levels
    if target_type == "binary":
        pos = np.bincount(key, weights=yy.astype(np.float64), minlength=size)
        tot = np.bincount(key, minlength=size).astype(np.float64)
        return np.stack([pos, tot - pos], axis=-1).reshape(k, n_levels, 2)
    yf = yy.astype(np.float64)
    return np.stack([np.bincount(key, minlength=size).astype(np.float64),
                     np.bincount(key, weights=yf, minlength=size),
                     np.bincount(key, weights=yf * yf, minlength=size)], axis=-1).reshape(k, n_levels, 3)


def cross_codes(index, y, n_levels, folds, *, target_type="binary", code="auto", smoothing=None, rare_count=0,
                rare_sig=1.0):
    """X[fold i] = S_i(T_i), S_i fit on C_i = T minus T_i   [winvector2015 "Cross training"]

    The k fold tables come from one bincount; S_i is the coder of (total table - fold i's table).

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
    ndarray of float64, shape (n, n_columns)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).

    Examples
    --------
    >>> cross_codes([0, 0, 0, 0], [1, 0, 1, 0], 1, [0, 0, 1, 1], code="mean").ravel().tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    idx = C.check_level_index(index, n_levels)
    fold_ids, ids = C.check_folds(folds, idx.shape[0])
    yy = C.check_target(y, target_type, idx.shape[0])
    code, smoothing, rare_count, rare_sig = _options(target_type, code, smoothing, rare_count, rare_sig)
    fold_pos = np.searchsorted(ids, fold_ids)
    k = ids.shape[0]
    tables = _fold_tables(idx, yy, n_levels, fold_pos, k, target_type)
    total = tables.sum(axis=0)
    width = C.default_row(code).shape[0]
    out = np.empty((idx.shape[0], width), dtype=np.float64)
    order = np.argsort(fold_pos, kind="stable")
    bounds = np.searchsorted(fold_pos[order], np.arange(k + 1))
    for i in range(k):
        train = total - tables[i]
        if target_type == "binary":
            n_pos, n_neg = train[:, 0].sum(), train[:, 1].sum()
            if n_pos == 0 or n_neg == 0:
                C.check_target(np.full(2, 1 if n_pos else 0), target_type, 2)  # the contract's single-class error
        rows = order[bounds[i]:bounds[i + 1]]
        coder = _coder(train, target_type, code, smoothing, rare_count, rare_sig, p_values=False)
        out[rows] = _codes_of(coder, idx[rows])
    return out


def _jackknife_queries(tab, level, removed, target_type, rare_count):
    """For each query (a level c and the row removed from it), the leave-one-out inputs of the coder's rule
    for level c: own counts, totals, N - 1, whether c is present and pooled, and the pool's counts."""
    sizes = _size(tab, target_type)
    n_minus = sizes.sum() - 1.0
    totals = tab.sum(axis=0)
    base_pooled = (sizes > 0) & ((sizes <= rare_count) | (sizes >= n_minus - rare_count))
    base_pool = tab[base_pooled].sum(axis=0)
    own = tab[level] - removed
    own_size = sizes[level] - 1.0
    present = own_size > 0
    own_pooled = present & ((own_size <= rare_count) | (own_size >= n_minus - rare_count))
    pool = base_pool[None, :] - base_pooled[level, None] * tab[level] + own_pooled[:, None] * own
    return own, own_pooled, pool, totals[None, :] - removed, np.full(level.shape[0], n_minus), present


def jackknife_codes(index, y, n_levels, *, target_type="binary", code="auto", smoothing=None, rare_count=0,
                    rare_sig=1.0):
    """X[i] = S_{-i}(v_i), S_{-i} the coder of the count table without row i   [winvector2015 "jackknifed
    version"]; exact leave-one-out in O(N + L): one coder evaluation per distinct (level, y_i) (binary) or per
    row (continuous), with the pooling and pruning of the table minus that row derived in closed form.

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
    ndarray of float64, shape (n, n_columns)

    Raises
    ------
    ValueError, TypeError
        On a bad argument, naming it (spec.impact_contract).

    Examples
    --------
    >>> jackknife_codes([0, 0, 0, 1], [1, 1, 0, 0], 2, code="mean").ravel().round(4).tolist()
    [0.1667, 0.1667, 0.3333, 0.0]
    """
    idx = C.check_level_index(index, n_levels)
    if idx.shape[0] < 2:
        raise ValueError("index must have at least 2 rows for the jackknife")
    yy = C.check_target(y, target_type, idx.shape[0])
    code, smoothing, rare_count, rare_sig = _options(target_type, code, smoothing, rare_count, rare_sig)
    tab = _table(idx, yy, n_levels, target_type)
    return _jackknife(tab, idx, yy, target_type, code, smoothing, rare_count, rare_sig)


def _jackknife(tab, idx, yy, target_type, code, smoothing, rare_count, rare_sig, floor=None):
    """Leave-one-out codes of the rows (idx, yy) from the table ``tab`` (their own counts or a noisy version of
    it; ``floor`` re-floors a noisy row's own counts after the subtraction, as the post's countCode does)."""
    if target_type == "binary":
        key = idx * 2 + yy
        # np.unique(key, return_inverse=True) in O(N + L): the keys seen (ascending) and each row's rank among them
        seen = np.bincount(key, minlength=2 * tab.shape[0]) > 0
        uniq = np.flatnonzero(seen)
        inverse = np.take(np.cumsum(seen) - 1, key)
        level, yq = uniq // 2, (uniq % 2).astype(np.float64)
        removed = np.column_stack([yq, 1.0 - yq])
    else:
        inverse = np.arange(idx.shape[0])
        level, yf = idx, yy.astype(np.float64)
        removed = np.column_stack([np.ones_like(yf), yf, yf * yf])
    own, own_pooled, pool, totals, n_minus, present = _jackknife_queries(tab, level, removed, target_type,
                                                                         rare_count)
    if floor is not None:
        own = np.maximum(own, floor)
        pool = np.maximum(pool, floor)
        present = np.ones_like(present)
    _, _, codes = _evaluate(own, own_pooled, pool, totals, n_minus, present, code=code, smoothing=smoothing,
                            rare_count=rare_count, rare_sig=rare_sig, target_type=target_type, p_values=False)
    return np.take(codes, inverse, axis=0)


# ---------------------------------------------------------------------------------------------------------
# Laplace smearing with a stated guarantee
# ---------------------------------------------------------------------------------------------------------
def count_sensitivity(neighbouring="replace-one"):
    """L1 sensitivity of the (n_levels, 2) table [nCT, nCF]: 2 under replace-one, 1 under add/remove-one

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

    Examples
    --------
    >>> count_sensitivity("replace-one"), count_sensitivity("add/remove-one")
    (2, 1)
    """
    if neighbouring not in NEIGHBOURING:
        raise ValueError(f"neighbouring must be one of {NEIGHBOURING}, got {neighbouring!r}")
    return 2 if neighbouring == "replace-one" else 1


def laplace_count_table(table, *, epsilon, neighbouring="replace-one", rng=None, accountant=None):
    """max(table + DLap noise, 1e-3): the [nCT, nCF] table noised by the exact discrete Laplace mechanism at L1
    sensitivity count_sensitivity(neighbouring), so the table is epsilon-DP (its level set must be public)
    [the post's conditionalCounts with a calibrated scale; fast.mechanisms.laplace_mechanism]

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

    Examples
    --------
    >>> noisy = laplace_count_table([[30.0, 10.0], [5.0, 25.0]], epsilon=1.0, rng=0)  # seeded: a test, not private
    >>> noisy.shape, bool((noisy >= 1e-3).all())
    ((2, 2), True)
    """
    tab = C.check_table(table, "binary")
    sens = count_sensitivity(neighbouring)
    noisy = mechanisms.laplace_mechanism(tab, sensitivity=sens, epsilon=epsilon, rng=rng, accountant=accountant)
    return np.maximum(noisy, C.COUNT_FLOOR)
