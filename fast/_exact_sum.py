"""Exactly rounded sums, equal to :func:`math.fsum` bit for bit, at close to the speed of ``np.sum`` (numba).

``math.fsum`` returns the sum of its inputs rounded once (round half to even); the reference measures use it, and
the fast ones must return the very same float.  ``math.fsum`` costs 25-100 ns per element (Python iteration and
Shewchuk's partials); this module certifies the rounding from one vectorised pass instead:

1. **Compensated lanes** (one numba pass, :func:`_lanes`): the input is dealt to ``LANES`` = 32 lanes (element i
   to lane i mod 32, which LLVM turns into AVX2 vectors: no reassociation, so no fastmath is needed).  Lane j keeps
   s_j (its running sum), c_j (the running sum of the exact rounding errors e of ``s_j + x``, obtained by Knuth's
   TwoSum: ``t = s + x; b = t - s; e = (s - (t - b)) + (x - b)``, so s + x = t + e exactly) and a_j = sum |x|.
   The same pass tests every entry against [lo, hi] (the caller's range rule) with IEEE comparisons.
2. **Error bound.**  With u = 2^-53 and N = ceil(n / 32) terms per lane, the exact sum S satisfies
   S = sum_j s_j + sum_j E_j (TwoSum is error-free, underflow included: a sum that underflows is exact) where E_j
   is the exact sum of lane j's errors, |e| <= u |t| <= u (1 + u) A_j (A_j = exact sum of |x| in lane j, which
   bounds every partial sum), and c_j is the recursive floating sum of N errors: |c_j - E_j| <= gamma_N sum |e|
   <= gamma_N N u (1 + u) A_j, gamma_N = N u / (1 - N u) (Higham, Accuracy and Stability, Lemma 3.1 / eq. (4.4);
   addition never underflows harmfully).  a_j = fl(sum |x|) >= A_j (1 - gamma_N).  The lanes are then merged in
   the kernel by a TwoSum chain over the s_j (errors e'_k exact) and a recursive sum of the 64 values c_j and e'_k,
   whose rounding is at most gamma_64 sum (|c_j| + |e'_k|).  The kernel returns (hi, lo, bound): |S - (hi + lo)|
   <= bound, every bound inflated by a factor 2 (which also covers the rounding of the bound's own arithmetic).
3. **Certified rounding.**  Rounding to nearest is monotone, so fl(T - B) <= fl(S) <= fl(T + B) for T = hi + lo;
   both ends are computed exactly rounded by ``math.fsum([hi, lo, -+bound])`` (three terms).  When they are the
   same float, it is fl(S), i.e. ``math.fsum`` of the input.  When they differ (S within ~n^2 u^2 sum|x| / 32^2 of
   a rounding boundary: probability ~1e-7 for n = 1e6 non-negative terms, certain for exact ties such as
   [1, 2^-53] and for heavy cancellation), or when a sum is not finite (NaN, inf, intermediate overflow), the
   answer is ``math.fsum`` itself, so every special case (ValueError for inf - inf, OverflowError for an
   intermediate overflow, NaN) is fsum's own.

Kernels (``cache=True``; compiled by the first call or ``privlearn warmup``): :func:`_lanes`, :func:`_lanes_absdiff`
(sum |a_i - b_i|, the statistical distance, fused), :func:`_lanes_kept` (the masked sum of the capped scaling's
last pass, :mod:`fast.measures`), :func:`_merge` (inlined), :func:`_step` (inlined).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

#: lanes of the compensated pass (a multiple of 4 doubles: AVX2 vectors)
LANES = 32
#: below this many terms math.fsum on a list is as fast as the kernel and its certification
SMALL = 32
_U = 2.0**-53


@njit(cache=True, nogil=True, inline="always")
def _step(s, c, a, j, x):
    """Lane j takes x: s_j + x = t + e exactly (TwoSum), c_j += e, a_j += |x|."""
    sj = s[j]
    t = sj + x
    b = t - sj
    c[j] += (sj - (t - b)) + (x - b)
    s[j] = t
    a[j] += abs(x)


@njit(cache=True, nogil=True, inline="always")
def _merge(s, c, a, n):
    """(hi, lo, bound) from the lanes: |exact sum - (hi + lo)| <= bound (module docstring, step 2)."""
    per_lane = (n + LANES - 1) // LANES
    nu = per_lane * _U
    total_abs = 0.0
    for j in range(LANES):
        total_abs += a[j]
    # lanes: gamma_N * N u (1 + u) A_j <= 1.01 (N u)^2 a_j for N u <= 1e-3; times 2
    bound = 2.0 * 1.01 * nu * nu * total_abs
    hi = 0.0
    lo = 0.0
    lo_abs = 0.0
    for j in range(LANES):
        t = hi + s[j]
        b = t - hi
        e = (hi - (t - b)) + (s[j] - b)
        hi = t
        lo += e
        lo += c[j]
        lo_abs += abs(e) + abs(c[j])
    # the recursive sum of 2 LANES terms: gamma_64 <= 65 u; times 2 (lo_abs's own rounding included)
    bound += 2.0 * 65.0 * _U * lo_abs
    return hi, lo, bound


@njit(cache=True, nogil=True)
def _lanes(x, lo_limit, hi_limit):
    """(hi, lo, bound, ok) for 1-d float64 ``x``: see the module docstring; ok = every entry satisfies
    lo_limit <= x_i <= hi_limit (NaN passes the comparisons and is caught by the caller's finiteness test of
    hi, lo and bound: a NaN or inf entry makes them non-finite)."""
    n = x.shape[0]
    s = np.zeros(LANES)
    c = np.zeros(LANES)
    a = np.zeros(LANES)
    bad = np.zeros(LANES, dtype=np.int64)
    blocks = n // LANES
    for i in range(blocks):
        base = i * LANES
        for j in range(LANES):  # independent lanes: vectorised
            v = x[base + j]
            _step(s, c, a, j, v)
            bad[j] |= (v < lo_limit) | (v > hi_limit)
    for k in range(blocks * LANES, n):
        v = x[k]
        _step(s, c, a, k - blocks * LANES, v)
        bad[0] |= (v < lo_limit) | (v > hi_limit)
    hi, lo, bound = _merge(s, c, a, n)
    return hi, lo, bound, bad.max() == 0


@njit(cache=True, nogil=True)
def _lanes_absdiff(x, y):
    """(hi, lo, bound) of sum_i |x_i - y_i| (each difference rounded, as numpy and Python round it)."""
    n = x.shape[0]
    s = np.zeros(LANES)
    c = np.zeros(LANES)
    a = np.zeros(LANES)
    blocks = n // LANES
    for i in range(blocks):
        base = i * LANES
        for j in range(LANES):
            _step(s, c, a, j, abs(x[base + j] - y[base + j]))
    for k in range(blocks * LANES, n):
        _step(s, c, a, k - blocks * LANES, abs(x[k] - y[k]))
    return _merge(s, c, a, n)


@njit(cache=True, nogil=True)
def _lanes_kept(x, c, low):
    """(capped, hi, lo, bound) for the capped scaling's pass at c (:func:`fast.measures._capping`): capped = the
    number of entries with x_i c >= 1, and the enclosure (module docstring, step 2) of the sum of the kept entries,
    low < x_i and x_i c < 1 (the others enter as exact zeros)."""
    n = x.shape[0]
    s = np.zeros(LANES)
    e = np.zeros(LANES)
    a = np.zeros(LANES)
    over = np.zeros(LANES, dtype=np.int64)
    blocks = n // LANES
    for i in range(blocks):
        base = i * LANES
        for j in range(LANES):  # independent lanes: vectorised
            v = x[base + j]
            scaled = v * c
            _step(s, e, a, j, v if (v > low) & (scaled < 1.0) else 0.0)
            over[j] += scaled >= 1.0
    for k in range(blocks * LANES, n):
        v = x[k]
        scaled = v * c
        _step(s, e, a, k - blocks * LANES, v if (v > low) & (scaled < 1.0) else 0.0)
        over[0] += scaled >= 1.0
    hi, lo, bound = _merge(s, e, a, n)
    return over.sum(), hi, lo, bound


@njit(cache=True, nogil=True)
def _lanes_rows(x):
    """(hi, lo, bound) arrays of shape (r,): the enclosure (module docstring, step 2) of each ROW's sum of a
    C-contiguous (r, n) float64 array (one row after the other; the lanes of each row as in :func:`_lanes`)."""
    r, n = x.shape
    hi = np.empty(r)
    lo = np.empty(r)
    bound = np.empty(r)
    s = np.zeros(LANES)
    c = np.zeros(LANES)
    a = np.zeros(LANES)
    blocks = n // LANES
    for k in range(r):
        s[:] = 0.0
        c[:] = 0.0
        a[:] = 0.0
        for i in range(blocks):
            base = i * LANES
            for j in range(LANES):
                _step(s, c, a, j, x[k, base + j])
        for t in range(blocks * LANES, n):
            _step(s, c, a, t - blocks * LANES, x[k, t])
        hi[k], lo[k], bound[k] = _merge(s, c, a, n)
    return hi, lo, bound


def fsum_columns(x) -> np.ndarray:
    """``math.fsum`` of every column of a 2-d float64 array, bit for bit (same exceptions), from one vectorised
    pass per column (the exact rado terms' finish, :func:`fast._exact_rados.finish_terms`).

    Parameters
    ----------
    x : array_like of shape (t, k)
        k columns of t terms each.

    Returns
    -------
    numpy.ndarray of shape (k,)
        The exactly rounded column sums.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"fsum_columns takes a 2-d array, got shape {x.shape}")
    if x.shape[0] < SMALL:
        return np.array([math.fsum(col) for col in x.T.tolist()], dtype=np.float64).reshape(x.shape[1])
    rows = np.ascontiguousarray(x.T)
    hi, lo, bound = _lanes_rows(rows)
    out = np.empty(x.shape[1])
    for k, (h, l_, b) in enumerate(zip(hi.tolist(), lo.tolist(), bound.tolist())):
        out[k] = _certified(h, l_, b, rows[k])
    return out


def _certified(hi: float, lo: float, bound: float, x, y=None) -> float:
    """fl(exact sum) from the kernel's enclosure, or math.fsum of the terms when the enclosure does not decide."""
    if math.isfinite(hi) and math.isfinite(lo) and math.isfinite(bound):
        try:
            below = math.fsum((hi, lo, -bound))
            above = below if bound == 0.0 else math.fsum((hi, lo, bound))
        except OverflowError:  # the enclosure reaches past float64: let fsum decide on the terms
            below, above = 0.0, 1.0
        if below == above:
            return below
    return math.fsum(x.tolist() if y is None else np.abs(x - y).tolist())


def _vector(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"exact sums take 1-d arrays, got shape {x.shape}")
    return x


def fsum(x) -> float:
    """``math.fsum(x)`` for a 1-d float64 array, bit for bit (same exceptions), from one vectorised pass.

    Parameters
    ----------
    x : array_like of shape (n,)
        The terms (float64).

    Returns
    -------
    float
        The exactly rounded sum.

    Raises
    ------
    ValueError
        As math.fsum: ``inf + -inf`` among the terms; or ``x`` is not 1-d.
    OverflowError
        As math.fsum: an intermediate overflow.
    """
    x = _vector(x)
    if x.shape[0] < SMALL:
        return math.fsum(x.tolist())
    hi, lo, bound, _ = _lanes(x, -math.inf, math.inf)
    return _certified(hi, lo, bound, x)


def checked_fsum(x, lo_limit: float, hi_limit: float):
    """(math.fsum(x), True) when every entry is finite and in [lo_limit, hi_limit], else (None, False): the range
    test of a contract fused into the summing pass (the caller then runs the contract itself, for its message).

    Parameters
    ----------
    x : numpy.ndarray of shape (n,), float64
        The terms.
    lo_limit, hi_limit : float
        The closed range every entry must lie in.

    Returns
    -------
    (float or None, bool)
    """
    if x.shape[0] < SMALL:
        if not (np.isfinite(x).all() and (x >= lo_limit).all() and (x <= hi_limit).all()):
            return None, False
        return math.fsum(x.tolist()), True
    hi, lo, bound, ok = _lanes(x, lo_limit, hi_limit)
    if not ok:
        return None, False
    if not (math.isfinite(hi) and math.isfinite(lo) and math.isfinite(bound)) and not np.isfinite(x).all():
        return None, False
    return _certified(hi, lo, bound, x), True


def fsum_absdiff(x: np.ndarray, y: np.ndarray) -> float:
    """``math.fsum(np.abs(x - y))`` bit for bit, without the temporary (x, y: 1-d float64 of one length).

    Parameters
    ----------
    x, y : numpy.ndarray of shape (n,), float64

    Returns
    -------
    float
    """
    if x.shape[0] < SMALL:
        return math.fsum(np.abs(x - y).tolist())
    hi, lo, bound = _lanes_absdiff(x, y)
    return _certified(hi, lo, bound, x, y)
