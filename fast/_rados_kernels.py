"""Table-driven rado kernel (numba): pi_sigma = sum_{i : sigma_i = y_i} e_i   [nock2015 Definition 1].

Method of the four Russians with 8-bit blocks: examples are taken 8 at a time, and for block b the 256 subset
sums T[b, c] = sum_{k : bit k of c} e_{8b+k} are built by doubling (T[c] = T[c - lowbit(c)] + e_lowbit, 256 d
adds per block).  A rado is then the sum over blocks of one table row, indexed by the 8 support bits
1[sigma_i = y_i] of its signature: m/8 row additions of length d instead of m multiply-adds per coordinate.

Loop order (cache): tables are built for a group of blocks (at most TABLE_GROUP_BYTES); rows are split into
blocks of ROW_BLOCK rows processed in parallel (prange); inside a row block, block b's table (256 d doubles,
20 KB at d = 10) is reused by all its rows.  The signature bits are formed on the fly from the int8 signatures
(8 at a time, as one uint64 word, when m is a multiple of 8), so neither a packed copy nor the float64 0/1 matrix
of the GEMM formulation is built.  The {-1, +1} check of the signatures is fused into the same pass (each word
is read exactly once).  Temporaries: the tables (<= TABLE_GROUP_BYTES) and the (n, d) output.
"""
from __future__ import annotations

from contextlib import contextmanager

import numba
import numpy as np
from numba import njit, prange

TABLE_GROUP_BYTES = 8 * 1024**2
#: below this many element operations a kernel runs on one thread: waking a second thread costs more than it
#: saves, and on an oversubscribed machine a parallel region can stall for a scheduler quantum
PARALLEL_MIN_WORK = 1 << 22


@contextmanager
def threads_for(work: int):
    """Run the numba kernels of the block on one thread when ``work`` is small."""
    if work >= PARALLEL_MIN_WORK or numba.get_num_threads() == 1:
        yield
        return
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
ROW_BLOCK = 256
#: rows per block when d <= 32 (output rows are short: more rows share each table while it is cached)
ROW_BLOCK_SMALL_D = 1024
#: at most this many 8-example blocks per table group (per parallel region): measured best on one thread
MAX_GROUP_BLOCKS = 128

_LOW_BITS = np.uint64(0x0101010101010101)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_MID6 = np.uint64(0x7E7E7E7E7E7E7E7E)
_PACK = np.uint64(0x0102040810204080)  # (v * _PACK) >> 56 gathers bit 0 of byte k into bit k (v: bytes 0/1)
_ONE = np.uint64(1)
_SHIFT56 = np.uint64(56)


@njit(cache=True, parallel=True)
def _build_tables(E, first_block, n_blocks, tables):
    m, d = E.shape
    for b in prange(n_blocks):
        base = (first_block + b) * 8
        for k in range(d):
            tables[b, 0, k] = 0.0
        for c in range(1, 256):
            low = c & (-c)
            bit = 0
            while (1 << bit) != low:
                bit += 1
            i = base + bit
            prev = c - low
            if i < m:
                for k in range(d):
                    tables[b, c, k] = tables[b, prev, k] + E[i, k]
            else:
                for k in range(d):
                    tables[b, c, k] = tables[b, prev, k]


@njit(cache=True, inline="always")
def _invalid(word):
    """Non-zero iff a byte of the word is not 0x01 (+1) or 0xFF (-1): word ^ 0x01.. has bytes 0x00 / 0xFE only."""
    s = word ^ _LOW_BITS
    return (s & _LOW_BITS) | ((((s >> _ONE) & _LOW7) + _LOW_BITS) & _MID6)


@njit(cache=True, inline="always")
def _code(word, yword):
    """The 8 support bits of one signature word: bit k = 1[sigma_{8b+k} = y_{8b+k}].

    +1 is the byte 0x01 and -1 the byte 0xFF, so sigma ^ y is 0x00 where they agree and 0xFE where not."""
    return ((((word ^ yword) >> _ONE) & _LOW_BITS) ^ _LOW_BITS) * _PACK >> _SHIFT56


@njit(cache=True, parallel=True)
def _accumulate_words(words, ywords, first_block, n_blocks, tables, out, row_block, bad):
    """8 signatures at a time as one uint64 word (m a multiple of 8).

    Per row block: every word is checked to hold only the bytes 0x01 / 0xFF (entries in {-1, +1}; flagged in
    ``bad``) in the same pass that forms its code, and the lookups run eight blocks at a time (eight table rows summed
    before the one load/store of the output row), so the eight tables in use stay in cache for ROW_BLOCK rows."""
    n = words.shape[0]
    d = out.shape[1]
    for rb in prange((n + row_block - 1) // row_block):
        lo = rb * row_block
        hi = min(n, lo + row_block)
        flag = np.uint64(0)
        b = 0
        while b + 8 <= n_blocks:  # eight table rows summed per load/store of the output row
            g = first_block + b
            for j in range(lo, hi):
                w0, w1, w2, w3 = words[j, g], words[j, g + 1], words[j, g + 2], words[j, g + 3]
                w4, w5, w6, w7 = words[j, g + 4], words[j, g + 5], words[j, g + 6], words[j, g + 7]
                flag |= _invalid(w0) | _invalid(w1) | _invalid(w2) | _invalid(w3)
                flag |= _invalid(w4) | _invalid(w5) | _invalid(w6) | _invalid(w7)
                c0, c1 = _code(w0, ywords[g]), _code(w1, ywords[g + 1])
                c2, c3 = _code(w2, ywords[g + 2]), _code(w3, ywords[g + 3])
                c4, c5 = _code(w4, ywords[g + 4]), _code(w5, ywords[g + 5])
                c6, c7 = _code(w6, ywords[g + 6]), _code(w7, ywords[g + 7])
                for k in range(d):
                    out[j, k] += (((tables[b, c0, k] + tables[b + 1, c1, k])
                                   + (tables[b + 2, c2, k] + tables[b + 3, c3, k]))
                                  + ((tables[b + 4, c4, k] + tables[b + 5, c5, k])
                                     + (tables[b + 6, c6, k] + tables[b + 7, c7, k])))
            b += 8
        while b < n_blocks:
            yw = ywords[first_block + b]
            for j in range(lo, hi):
                w0 = words[j, first_block + b]
                flag |= _invalid(w0)
                c0 = _code(w0, yw)
                for k in range(d):
                    out[j, k] += tables[b, c0, k]
            b += 1
        if flag != 0:
            bad[rb] = True


@njit(cache=True, parallel=True)
def _accumulate_bytes(sigmas, y, first_block, n_blocks, tables, out, row_block, bad):
    """Any m: the 8 support bits are formed byte by byte."""
    n, m = sigmas.shape
    d = out.shape[1]
    for rb in prange((n + row_block - 1) // row_block):
        lo = rb * row_block
        hi = min(n, lo + row_block)
        flag = False
        for b in range(n_blocks):
            base = (first_block + b) * 8
            stop = min(8, m - base)
            for j in range(lo, hi):
                code = 0
                for k in range(stop):
                    s = sigmas[j, base + k]
                    flag |= (s != 1) and (s != -1)
                    code |= np.int64(s == y[base + k]) << k
                for k in range(d):
                    out[j, k] += tables[b, code, k]
        if flag:
            bad[rb] = True


def rados_table(E, sigmas, y):
    """(rados, ok): rados (n, d) with row j = sum_{i : sigmas[j, i] == y[i]} E[i]; ok = all entries in {-1, +1}.

    E (m, d) float64, sigmas (n, m) int8 (C-contiguous preferred), y (m,) int8 in {-1, +1}.
    """
    m, d = E.shape
    n = sigmas.shape[0]
    total_blocks = (m + 7) // 8
    group = max(1, min(total_blocks, MAX_GROUP_BLOCKS, TABLE_GROUP_BYTES // (256 * 8 * max(d, 1))))
    tables = np.empty((group, 256, d), dtype=np.float64)
    out = np.zeros((n, d), dtype=np.float64)
    row_block = ROW_BLOCK_SMALL_D if d <= 32 else ROW_BLOCK
    bad = np.zeros((n + row_block - 1) // row_block, dtype=np.bool_)
    E = np.ascontiguousarray(E, dtype=np.float64)
    sigmas = np.ascontiguousarray(sigmas)
    y = np.ascontiguousarray(y, dtype=np.int8)
    aligned = m % 8 == 0
    if aligned:  # each row's 8-signature blocks reinterpreted as uint64 words (views, no copy)
        words = sigmas.view(np.uint64)
        ywords = y.view(np.uint64)
    # dynamic scheduling (chunks of one row block): with static chunks every parallel region waits for the
    # slower thread, which on a loaded machine is often a descheduled one
    with threads_for(n * m), numba.parallel_chunksize(1):
        for first in range(0, total_blocks, group):
            count = min(group, total_blocks - first)
            _build_tables(E, first, count, tables)
            if aligned:
                _accumulate_words(words, ywords, first, count, tables, out, row_block, bad)
            else:
                _accumulate_bytes(sigmas, y, first, count, tables, out, row_block, bad)
    return out, not bad.any()


# --------------------------------------------------------------------------- risks (one fused pass, no temporaries)

RISK_CHUNK = 2048


@njit(cache=True, parallel=True)
def neg_scores_logsumexp(P, theta):
    """log sum_j exp(-theta . P[j])  (log-sum-exp of the rado scores, eq. 2), one pass over P.

    Rows are cut into chunks; each chunk keeps its own running maximum and rescaled sum (online log-sum-exp), and
    the chunks are combined at the end.  Nothing of size n is allocated; -inf/NaN/inf propagate to the result."""
    n, d = P.shape
    n_chunks = (n + RISK_CHUNK - 1) // RISK_CHUNK
    tops = np.empty(n_chunks)
    sums = np.empty(n_chunks)
    for c in prange(n_chunks):
        top = -np.inf
        total = 0.0
        for j in range(c * RISK_CHUNK, min(n, (c + 1) * RISK_CHUNK)):
            s = 0.0
            for k in range(d):
                s -= theta[k] * P[j, k]
            if s > top:
                total = total * np.exp(top - s) + 1.0 if top > -np.inf else 1.0
                top = s
            else:
                total += np.exp(s - top)
        tops[c] = top
        sums[c] = total
    top = tops.max()
    if not np.isfinite(top):
        return top + sums.sum()  # inf or NaN: the caller decides (non-finite input or overflow)
    total = 0.0
    for c in range(n_chunks):
        total += sums[c] * np.exp(tops[c] - top)
    return top + np.log(total)


@njit(cache=True, parallel=True)
def softplus_sum(X, y, theta):
    """sum_i log(1 + exp(-y_i theta . x_i))  (eq. 1 times m), stable softplus, one pass over X."""
    m, d = X.shape
    n_chunks = (m + RISK_CHUNK - 1) // RISK_CHUNK
    sums = np.zeros(n_chunks)
    for c in prange(n_chunks):
        total = 0.0
        for i in range(c * RISK_CHUNK, min(m, (c + 1) * RISK_CHUNK)):
            z = 0.0
            for k in range(d):
                z += theta[k] * X[i, k]
            z = -y[i] * z
            total += max(z, 0.0) + np.log1p(np.exp(-abs(z)))
        sums[c] = total
    return sums.sum()
