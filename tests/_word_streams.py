"""Scripted word streams for the samplers' exactness tests (used by tests/test_mechanisms.py)."""
from fractions import Fraction

import numpy as np

import reference.mechanisms as R


class Scripted(R._Words):
    """The reference word stream, fed from a fixed list (to force the rare tie branches)."""

    def __init__(self, words):
        super().__init__(0)
        self.buffer, self.pos = [int(w) for w in words], 0

    def next(self) -> int:
        word = self.buffer[self.pos]
        self.pos += 1
        return word


def prefix_interval(words):
    """[lo, hi) of W = sum_i w_i 2^(-64 i) given the words read (exact Fractions)."""
    lo = sum(Fraction(w, 2 ** (64 * (i + 1))) for i, w in enumerate(words))
    return lo, lo + Fraction(1, 2 ** (64 * len(words)))


def tie_words(a, b, rng, depth):
    """Words whose prefix keeps W within 2^-64 of a/b for `depth` words (the tie branch), then 4 random ones."""
    out = []
    for _ in range(depth if 0 < a < b else 0):
        w = (a * 2**64) // b
        out.append(w)
        a = a * 2**64 - w * b
        if a == 0:
            break
    return out + [int(v) for v in rng.integers(0, 2**64, size=4, dtype=np.uint64)]


def check_gaussian_attempt(main, extra, s2, t, v_max, where):
    """Decide one discrete-Gaussian attempt (four main words, a list of extra words) by the reference and by both
    fast paths, asserting that fast's batch claims a decision only for attempts that read no extra word and then
    agrees, and that fast's in-order path agrees on kept / value / extra words read.  Returns (y, batch status,
    extra words read): y is the kept value or None."""
    import fast.mechanisms as F

    ref_extra = Scripted(extra)
    y = R._gaussian_attempt(Scripted(main), ref_extra, s2, t, v_max)
    m = np.array(main, dtype=np.uint64)
    status, value = np.empty(1, np.int64), np.empty(1, np.int64)
    F._dgauss_batch(m, status, value, s2, t)
    if status[0] != 2:
        assert ref_extra.pos == 0, where  # the batch may decide only attempts that read no extra word
        assert (status[0] == 1) == (y is not None) and (y is None or value[0] == y), where
    st, fy, epos = F._dgauss_attempt(m[0], m[1], m[2], m[3], np.array(extra, dtype=np.uint64), np.int64(0),
                                     np.int64(s2), np.int64(t), np.int64(v_max))
    assert (st == 1) == (y is not None) and epos == ref_extra.pos, where
    assert y is None or fy == y, where
    return y, int(status[0]), ref_extra.pos
