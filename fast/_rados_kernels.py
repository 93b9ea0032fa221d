"""Table-driven rado kernel (numba): pi_sigma = sum_{i : sigma_i = y_i} e_i   [nock2015 Definition 1].

Method of the four Russians with 8-bit blocks: examples are taken 8 at a time, and for block b the 256 subset
sums T[b, c] = sum_{k : bit k of c} e_{8b+k} are built by doubling (T[c] = T[c - lowbit(c)] + e_lowbit, 256 d
adds per block).  A rado is then the sum over blocks of one table row, indexed by the 8 support bits
1[sigma_i = y_i] of its signature: m/8 row additions of length d instead of m multiply-adds.

Loop order (cache): tables are built for a group of blocks (at most TABLE_GROUP_BYTES); rows are split into
blocks of ROW_BLOCK rows processed in parallel (prange); inside a row block, block b's table (256 d doubles,
20 KB at d = 10) is reused by all its rows while their accumulators stay in L1.  The signature bits are formed
on the fly from the int8 signatures, so neither a packed copy nor the float64 0/1 matrix of the GEMM
formulation is built.  Temporaries: the tables (<= TABLE_GROUP_BYTES) and the (n, d) output.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

TABLE_GROUP_BYTES = 8 * 1024**2
ROW_BLOCK = 32


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


@njit(cache=True, parallel=True)
def _accumulate(sigmas, y, first_block, n_blocks, tables, out, row_block):
    n, m = sigmas.shape
    d = out.shape[1]
    n_row_blocks = (n + row_block - 1) // row_block
    for rb in prange(n_row_blocks):
        lo = rb * row_block
        hi = min(n, lo + row_block)
        for b in range(n_blocks):
            base = (first_block + b) * 8
            stop = min(8, m - base)
            for j in range(lo, hi):
                code = 0
                for k in range(stop):
                    code |= np.int64(sigmas[j, base + k] == y[base + k]) << k
                for k in range(d):
                    out[j, k] += tables[b, code, k]


_LOW_BITS = np.uint64(0x0101010101010101)
_PACK = np.uint64(0x0102040810204080)  # (v * _PACK) >> 56 gathers bit 0 of byte k into bit k
_SHIFT1 = np.uint64(1)
_SHIFT56 = np.uint64(56)


@njit(cache=True, parallel=True)
def _accumulate_words(words, ywords, first_block, n_blocks, tables, out, row_block):
    """As _accumulate, reading 8 signatures at once as one uint64 (m a multiple of 8).

    +1 is the byte 0x01 and -1 the byte 0xFF, so sigma ^ y is 0x00 where sigma_i = y_i and 0xFE elsewhere.
    """
    n = words.shape[0]
    d = out.shape[1]
    n_row_blocks = (n + row_block - 1) // row_block
    for rb in prange(n_row_blocks):
        lo = rb * row_block
        hi = min(n, lo + row_block)
        for b in range(n_blocks):
            yw = ywords[first_block + b]
            for j in range(lo, hi):
                differ = ((words[j, first_block + b] ^ yw) >> _SHIFT1) & _LOW_BITS
                code = ((differ ^ _LOW_BITS) * _PACK) >> _SHIFT56
                for k in range(d):
                    out[j, k] += tables[b, code, k]


def rados_table(E, sigmas, y):
    """(n, d) rados: row j = sum_{i : sigmas[j, i] == y[i]} E[i]; E (m, d) float64, sigmas (n, m) int8, y (m,) int8."""
    m, d = E.shape
    n = sigmas.shape[0]
    total_blocks = (m + 7) // 8
    group = max(1, min(total_blocks, TABLE_GROUP_BYTES // (256 * 8 * max(d, 1))))
    tables = np.empty((group, 256, d), dtype=np.float64)
    out = np.zeros((n, d), dtype=np.float64)
    E = np.ascontiguousarray(E, dtype=np.float64)
    sigmas = np.ascontiguousarray(sigmas)
    y = np.ascontiguousarray(y, dtype=np.int8)
    aligned = m % 8 == 0
    if aligned:  # reinterpret each row's 8-signature blocks as uint64 words (views, no copy)
        words = sigmas.view(np.uint64)
        ywords = y.view(np.uint64)
    for first in range(0, total_blocks, group):
        count = min(group, total_blocks - first)
        _build_tables(E, first, count, tables)
        if aligned:
            _accumulate_words(words, ywords, first, count, tables, out, ROW_BLOCK)
        else:
            _accumulate(sigmas, y, first, count, tables, out, ROW_BLOCK)
    return out
