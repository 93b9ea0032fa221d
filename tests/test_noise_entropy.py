"""Private noise is fresh OS entropy in every process: a forked child never repeats its parent's or a sibling's noise.

Issue 25 lists this among the properties that hold today and must go on holding.  The word stream
(``spec.words.WordBlocks(None)``) reads ``os.urandom`` for the first block and keys AES-256-CTR from ``os.urandom``
afresh for every mechanism call, so no generator state is inherited across ``fork``; a stream seeded once per
process (numpy's global state, a module-level Generator, a cached AES key) would make siblings draw identical
noise, which these tests catch.
"""
from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest

from fast import mechanisms
from spec import words

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)")


def _child_noise(size):
    """Noise of a release of zeros drawn in a forked child (Laplace and Gaussian, OS entropy)."""
    lap = mechanisms.laplace_mechanism(np.zeros(size), sensitivity=1.0, epsilon=1.0)
    gau = mechanisms.gaussian_mechanism(np.zeros(size), sensitivity=1.0, epsilon=1.0, delta=1e-5)
    return np.concatenate([lap, gau])


def _draw_in_forked_children(k, size):
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(k) as pool:
        return pool.map(_child_noise, [size] * k)


def test_forked_children_draw_fresh_noise():
    """Four forked children (after the parent has drawn and warmed every cache) and the parent: all five noise
    vectors of 2 x 300 coordinates differ pairwise in most coordinates.  Two independent discrete Laplace draws
    at epsilon 1 on a fine grid coincide with probability < 1e-9 per coordinate, so equal vectors can only be a
    shared stream."""
    parent_first = _child_noise(300)  # warms numba, grids, any cached stream the parent could leak into a fork
    children = _draw_in_forked_children(4, 300)
    parent_after = _child_noise(300)
    vectors = [parent_first, parent_after, *children]
    for i in range(len(vectors)):
        for j in range(i + 1, len(vectors)):
            same = int(np.count_nonzero(vectors[i] == vectors[j]))
            assert same < 10, f"noise vectors {i} and {j} share {same} of {vectors[i].size} coordinates"


def test_fork_check_catches_a_stream_inherited_by_fork(monkeypatch):
    """The check above can fail: if the first block came from a generator seeded once in the parent (the
    defect a cached stream would be), the forked children draw identical noise and the comparison sees it."""
    shared = np.random.default_rng(12345)
    state = shared.bit_generator.state

    def inherited_block(self):
        size = self._size
        self._size = min(2 * size, words.BLOCK_MAX)
        gen = np.random.default_rng()
        gen.bit_generator.state = state  # every process resumes the parent's stream: the defect
        return gen.integers(0, 2**64, size=size, dtype=np.uint64)

    monkeypatch.setattr(words.WordBlocks, "next_block", inherited_block)
    children = _draw_in_forked_children(2, 50)
    assert np.array_equal(children[0], children[1])
