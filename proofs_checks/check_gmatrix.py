"""G_m of nock2015 eq. (20): the recursion gives exactly {0,1}^m, column c = binary expansion of c (MSB row 1)."""
from __future__ import annotations

import itertools
import math

import numpy as np

import fast.rados as F
import reference.rados as R
from spec.links import checks


@checks("nock2015.eq20")
def check_columns_are_binary_expansions():
    """For m = 1..12: the reference recursion (written as eq. 20) and fast's bit formula both equal
    itertools.product([0,1], repeat=m) in order (column c is the binary expansion of c, MSB in row 1)."""
    for m in range(1, 13):
        expected = np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.uint8).T
        for impl in (R, F):
            G = impl.g_matrix(m)
            assert G.dtype == np.uint8 and G.shape == (m, 2**m)
            assert np.array_equal(G, expected), (impl.__name__, m)


@checks("nock2015.eq20")
def check_recursion_and_counting_properties():
    """G_m = [[0 1], [G_{m-1} G_{m-1}]] block by block; 2^m distinct columns; C(m, k) columns of weight k; every
    row has exactly 2^(m-1) ones (each example is in half of the rados)."""
    for m in range(2, 13):
        G, H = F.g_matrix(m), F.g_matrix(m - 1)
        half = 2 ** (m - 1)
        assert np.array_equal(G[0], np.r_[np.zeros(half, np.uint8), np.ones(half, np.uint8)])
        assert np.array_equal(G[1:, :half], H) and np.array_equal(G[1:, half:], H)
        assert len({G[:, c].tobytes() for c in range(2**m)}) == 2**m
        weights = np.bincount(G.sum(axis=0), minlength=m + 1)
        assert all(weights[k] == math.comb(m, k) for k in range(m + 1))
        assert np.all(G.sum(axis=1) == half)
    assert np.array_equal(F.g_matrix(1), np.array([[0, 1]], dtype=np.uint8))  # G_1 = [0 1]
