"""fast/_exact_rados.py: the exact terms of a rado sum, with the block temporaries in a reused workspace.

The workspace (``_Workspace``) lends the same buffers to every 2^16-row block of one ``exact_terms`` call; blocks
of different widths (the last one), different numbers of slices and the rare scaled part of huge entries must all
give the terms of fresh arrays, and the finish must stay ``math.fsum`` of the rows' values."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fast import _exact_rados as X
from fast._rados_kernels import rados_table


def _rows(m, d, seed):
    gen = np.random.default_rng(seed)
    E = gen.normal(size=(m, d))
    E[: X.BLOCK_ROWS] *= np.exp(gen.normal(size=(X.BLOCK_ROWS, d)) * 25)  # block 0: many slices
    E[X.BLOCK_ROWS + 7, 1] = 1.5 * 2.0**1000  # block 1: the scaled part of a huge entry
    E[X.BLOCK_ROWS + 9, 1] = -(2.0**970)
    y = np.where(gen.random(m) < 0.5, 1, -1).astype(np.int8)
    return E, y


def _fresh_terms(E, y, sig):
    """exact_terms with a fresh workspace per block (the allocation of the code before the workspace)."""
    out = []
    for lo in range(0, E.shape[0], X.BLOCK_ROWS):
        hi = min(E.shape[0], lo + X.BLOCK_ROWS)
        out.append(X.exact_terms(E[lo:hi], y[lo:hi], sig[:, lo:hi]))
    return np.concatenate(out)


@pytest.mark.parametrize("n", [5, 300])  # the GEMM path and the table kernel (n >= 256)
def test_exact_terms_with_a_reused_workspace_equal_fresh_buffers(n):
    m = 2 * X.BLOCK_ROWS + 1000  # three blocks, the last one short
    E, y = _rows(m, 3, n)
    sig = X.signature_stream(n, seed=4).block(0, m)
    got = X.exact_terms(E, y, sig)
    assert np.array_equal(got, _fresh_terms(E, y, sig))
    rados = X.finish_terms([got], n, 3)
    for j in (0, n - 1):  # the finish is math.fsum of the rows' values
        keep = sig[j] == y
        assert [math.fsum(E[keep, k].tolist()) for k in range(3)] == rados[j].tolist()


def test_rados_table_workspace_equals_fresh_buffers():
    """rados_table with lent buffers holding garbage (NaN: a previous use) equals the fresh-buffer call, for two
    widths of E sharing the buffers."""
    gen = np.random.default_rng(1)
    E = gen.normal(size=(800, 5))
    sig = np.where(gen.random((300, 800)) < 0.5, 1, -1).astype(np.int8)
    y = np.where(gen.random(800) < 0.5, 1, -1).astype(np.int8)
    bufs = {}

    def lend(name, shape):
        size = int(np.prod(shape))
        if name not in bufs:
            bufs[name] = np.full(10 * size, np.nan)  # garbage
        return bufs[name][:size].reshape(shape)

    want, ok = rados_table(E, sig, y)
    got, ok2 = rados_table(E, sig, y, workspace=lend)
    assert ok and ok2 and np.array_equal(got, want)
    got, _ = rados_table(E[:, :3], sig, y, workspace=lend)  # a narrower E in the same buffers
    assert np.array_equal(got, rados_table(E[:, :3], sig, y)[0])
