"""Kernels of :mod:`fast.dp_rados` (numba): window bounds of DP-Feat, K-smallest selection, agreement counts, clipping.

* :func:`window_cdf_bounds`: certified float64 enclosures of the cumulative window weights
  S(k) = sum_{j=k_lo}^{k} C(m, j) of DP-Feat's exact sampler (nock2015 Alg. 2), in units of 2^T.  Every float
  operation rounds to nearest (|relative error| <= u = 2^-53); each product and sum is then pushed outward by a
  factor (1 -+ 4u) that dominates its rounding, so lo <= exact <= hi holds by construction (no fastmath, no
  reassociation).  The caller decides ``x < S(k)`` from the enclosure when it can and falls back to the exact
  integers when it cannot (probability ~ k_hi * 1e-15 per draw), so the sampler's output never depends on the
  floats.
* :func:`select_rows`: per row, the K smallest of uniform doubles (ties by lowest index, = the first K of a stable
  sort), written as a signature row: ``out[i] = t[i]`` if i is selected, ``-t[i]`` otherwise.  O(m) per row:
  two branch-free passes classify each u as certainly selected (u < a), a candidate (a <= u < b) or certainly not, where
  [a, b) brackets the K-th order statistic of m uniforms by 5 standard deviations; the threshold is found among
  the candidates (Hoare's selection); a row whose K-th value falls outside [a, b) (probability ~ 6e-7) is redone from
  a full sort.  Exact for any input values (the bracket only chooses the fast path).
* :func:`count_agree`: per row, #{i : sigma_i == t_i}, with the {-1, +1} test of the entries fused in.
* :func:`clip_rows_kernel`: x_i * min(1, c / ||x_i||_2), one read of X (finiteness test fused in).

All kernels are serial and release the GIL; :mod:`fast.dp_rados` hands row ranges to a persistent pool of
``numba.get_num_threads()`` Python threads (the pattern of :mod:`fast._rados_kernels`: no OpenMP region).
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit

#: below this many entries a kernel runs on the calling thread only
PARALLEL_MIN_WORK = 1 << 22

_UP = 1.0 + 4.0 * 2.0**-53  # outward factors: dominate the (1 +- u)^3 of a rounded product/quotient
_DOWN = 1.0 - 4.0 * 2.0**-53
_BIG = 2.0**256
_SMALL = 2.0**-256


@njit(cache=True, nogil=True)
def window_cdf_bounds(m, k_lo, k_hi, s_lo, s_hi):
    """Fill s_lo, s_hi (length k_hi - k_lo + 1) with certified bounds of S(k) / 2^T, k = k_lo..k_hi; return T.

    w_k = C(m, k) is enclosed as [lo, hi] 2^e from w_0 = 1 by w_{k+1} = w_k (m - k) / (k + 1) (each step rounded
    outward), renormalised by 2^256 so lo and hi stay in [2^-257, 2^256 m] (normal doubles: scaling is exact).
    T is the largest e in the window; a term with e - T < -512 is below 2^-512 of the largest and is enclosed
    by [0, 2^-500].  Cumulative sums are rounded outward too (the lower one kept monotone)."""
    W = k_hi - k_lo + 1
    t_lo = np.empty(W)
    t_hi = np.empty(W)
    t_e = np.empty(W, dtype=np.int64)
    lo = 1.0
    hi = 1.0
    e = 0
    for k in range(k_hi + 1):
        if k >= k_lo:
            t_lo[k - k_lo] = lo
            t_hi[k - k_lo] = hi
            t_e[k - k_lo] = e
        if k == k_hi:
            break
        num = float(m - k)
        den = float(k + 1)
        lo = ((lo * num) / den) * _DOWN
        hi = ((hi * num) / den) * _UP
        if hi > _BIG:
            lo *= _SMALL
            hi *= _SMALL
            e += 256
        elif hi < _SMALL:
            lo *= _BIG
            hi *= _BIG
            e -= 256
    T = t_e[0]
    for j in range(W):
        if t_e[j] > T:
            T = t_e[j]
    acc_lo = 0.0
    acc_hi = 0.0
    for j in range(W):
        shift = t_e[j] - T
        if shift >= -512:
            f = 1.0
            for _ in range(-shift // 256):
                f *= _SMALL
            tl = t_lo[j] * f
            th = t_hi[j] * f
        else:
            tl = 0.0
            th = 2.0**-500
        acc_lo = max(acc_lo, (acc_lo + tl) * _DOWN)
        acc_hi = (acc_hi + th) * _UP
        s_lo[j] = acc_lo
        s_hi[j] = acc_hi
    return T


@njit(cache=True, nogil=True)
def _full_row(row, k, t, o):
    """Selection of the k smallest (ties by lowest index) from a full sort of the row (the rare fallback)."""
    v = np.sort(row)[k - 1]
    below = 0
    for i in range(row.shape[0]):
        if row[i] < v:
            below += 1
    ties = k - below
    for i in range(row.shape[0]):
        u = row[i]
        if u < v:
            o[i] = t[i]
        elif u == v and ties > 0:
            o[i] = t[i]
            ties -= 1
        else:
            o[i] = -t[i]


@njit(cache=True, nogil=True)
def kth_smallest(a, n, k):
    """The k-th smallest (0-based) of a[:n], which it reorders (Hoare's selection, middle pivot; a has no NaN)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        x = a[(lo + hi) >> 1]
        i = lo
        j = hi
        while i <= j:
            while a[i] < x:
                i += 1
            while x < a[j]:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:  # a[lo..j] <= x <= a[i..hi], and a[j+1..i-1] == x
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]


@njit(cache=True, nogil=True)
def select_rows(U, K, t, out, lo, hi):
    """Rows lo..hi-1: out[r, i] = t[i] if i is among the K[r] smallest of U[r] (ties by lowest index), else -t[i].

    U (rows, m) float64 in [0, 1), K (rows,) int64, t (m,) int8 in {-1, +1}, out (rows, m) int8."""
    m = U.shape[1]
    cand = np.empty(m + 1, dtype=np.int64)
    vals = np.empty(m)
    for r in range(lo, hi):
        k = K[r]
        row = U[r]
        o = out[r]
        if k <= 0:
            for i in range(m):
                o[i] = -t[i]
            continue
        if k >= m:
            for i in range(m):
                o[i] = t[i]
            continue
        q = k / m
        half = 5.0 * math.sqrt(q * (1.0 - q) / m) + 2.0 / m
        a = q - half
        b = q + half
        below = 0
        for i in range(m):  # branch-free, vectorised (u < a is a coin flip near q = 1/2)
            sure = row[i] < a
            below += sure
            o[i] = t[i] if sure else -t[i]
        nc = 0
        for i in range(m):  # the candidates, branch-free too (a store that always happens, a counted increment)
            u = row[i]
            cand[nc] = i
            nc += (u >= a) & (u < b)
        need = k - below
        if need < 1 or need > nc:
            _full_row(row, k, t, o)
            continue
        for j in range(nc):
            vals[j] = row[cand[j]]
        v = kth_smallest(vals, nc, need - 1)
        nb = 0
        for j in range(nc):
            if row[cand[j]] < v:
                nb += 1
        ties = need - nb
        for j in range(nc):  # candidates in increasing index: ties go to the lowest indices
            i = cand[j]
            u = row[i]
            if u < v:
                o[i] = t[i]
            elif u == v and ties > 0:
                o[i] = t[i]
                ties -= 1


@njit(cache=True, nogil=True)
def count_agree(sigmas, t, counts, lo, hi):
    """counts[r] = #{i : sigmas[r, i] == t[i]} for rows lo..hi-1; returns True if an entry is not -1 or +1."""
    m = sigmas.shape[1]
    bad = 0
    for r in range(lo, hi):
        c = 0
        for i in range(m):
            s = sigmas[r, i]
            c += s == t[i]
            bad |= (s != 1) & (s != -1)
        counts[r] = c
    return bad != 0


@njit(cache=True, nogil=True)
def clip_rows_kernel(X, c, out, lo, hi):
    """out[i] = X[i] * (1 if ||X[i]|| <= c else c / ||X[i]||) for rows lo..hi-1; False if X holds a NaN or inf.

    The squared norm is summed in four interleaved partial sums (j mod 4), combined as (s0 + s1) + (s2 + s3)."""
    d = X.shape[1]
    finite = 0.0
    for i in range(lo, hi):
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        j = 0
        while j + 4 <= d:
            x0 = X[i, j]
            x1 = X[i, j + 1]
            x2 = X[i, j + 2]
            x3 = X[i, j + 3]
            s0 += x0 * x0
            s1 += x1 * x1
            s2 += x2 * x2
            s3 += x3 * x3
            finite += (x0 - x0) + (x1 - x1) + (x2 - x2) + (x3 - x3)
            j += 4
        while j < d:
            x0 = X[i, j]
            s0 += x0 * x0
            finite += x0 - x0
            j += 1
        norm = math.sqrt((s0 + s1) + (s2 + s3))
        scale = 1.0 if norm <= c else c / norm
        for j in range(d):
            out[i, j] = X[i, j] * scale
    return finite == 0.0


_POOL = {}


def pool(workers: int):
    """A persistent pool of ``workers`` Python threads (None for one worker); idle threads block, never spin."""
    if workers <= 1:
        return None
    if workers not in _POOL:
        _POOL[workers] = ThreadPoolExecutor(workers, thread_name_prefix="privlearn-dp-rados")
    return _POOL[workers]


def workers_for(work: int, rows: int) -> int:
    """How many threads a pass over ``work`` entries in ``rows`` rows gets (numba's thread count, else 1)."""
    if work < PARALLEL_MIN_WORK:
        return 1
    return max(1, min(numba.get_num_threads(), rows))


def run_rows(kernel, rows: int, work: int, *args):
    """``kernel(*args, lo, hi)`` over [0, rows) split between the pool's threads; the list of its results."""
    workers = workers_for(work, rows)
    executor = pool(workers)
    if executor is None:
        return [kernel(*args, 0, rows)]
    step = -(-rows // workers)
    bounds = [(lo, min(rows, lo + step)) for lo in range(0, rows, step)]
    return list(executor.map(lambda b: kernel(*args, b[0], b[1]), bounds))
