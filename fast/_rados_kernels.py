"""Table-driven rado kernel (numba): pi_sigma = sum_{i : sigma_i = y_i} e_i   [nock2015 Definition 1].

Examples are taken 8 at a time.  For each block b of 8 edge vectors we precompute the 256 subset sums
T[b, c] = sum_{k : bit k of c} e_{8b+k} (built by doubling: T[c] = T[c - lowbit(c)] + e_lowbit, 256 d adds).  A
rado is then the sum over blocks of one table row, indexed by the 8 support bits of its signature,
i.e. m/8 row additions of length d instead of m multiply-adds per coordinate.  Blocks are processed in groups
whose tables fit in about 4 MB (cache), rows in parallel (prange).  Signatures are read directly as int8 (the
bits are formed on the fly), so no packed copy and no float64 0/1 matrix is ever built.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

TABLE_GROUP_BYTES = 4 * 1024**2


@njit(cache=True)
def _build_tables(E, first_block, n_blocks, tables):
    m, d = E.shape
    for b in range(n_blocks):
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
def _accumulate(sigmas, y, first_block, n_blocks, tables, out):
    n, m = sigmas.shape
    d = out.shape[1]
    for j in prange(n):
        for b in range(n_blocks):
            base = (first_block + b) * 8
            code = 0
            stop = min(8, m - base)
            for k in range(stop):
                if sigmas[j, base + k] == y[base + k]:
                    code |= 1 << k
            for k in range(d):
                out[j, k] += tables[b, code, k]


def rados_table(E, sigmas, y):
    """(n, d) rados: row j = sum_{i : sigmas[j, i] == y[i]} E[i]; E (m, d) float64, sigmas (n, m) int8, y (m,) int8."""
    m, d = E.shape
    n = sigmas.shape[0]
    total_blocks = (m + 7) // 8
    group = max(1, TABLE_GROUP_BYTES // (256 * 8 * max(d, 1)))
    group = min(group, total_blocks)
    tables = np.empty((group, 256, d), dtype=np.float64)
    out = np.zeros((n, d), dtype=np.float64)
    E = np.ascontiguousarray(E)
    sigmas = np.ascontiguousarray(sigmas)
    y = np.ascontiguousarray(y)
    for first in range(0, total_blocks, group):
        count = min(group, total_blocks - first)
        _build_tables(E, first, count, tables)
        _accumulate(sigmas, y, first, count, tables, out)
    return out
