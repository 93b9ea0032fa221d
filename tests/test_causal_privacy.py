"""fast/causal_privacy.py: the private IQR releases against reference/causal_privacy.py."""

from __future__ import annotations
import fast.causal_privacy as FC
import reference.causal_privacy as RC
from fast.causal import iqr
import itertools
import numpy as np


def test_iqr_releases_sort_once_and_equal_the_reference(monkeypatch):
    v = np.random.default_rng(22).normal(size=2001)
    sorts = []
    real_sort = np.sort
    monkeypatch.setattr(np, "sort", lambda a, *args, **kw: sorts.append(1) or real_sort(a, *args, **kw))
    fast = [FC.iqr_ptr(v, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]
    assert len(sorts) == 4  # one sort per release (was: up to five)
    sorts.clear()
    fast_train = [FC.iqr_train_ptr(v, n=50, lam=1.0, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]
    assert len(sorts) == 4
    monkeypatch.undo()
    assert fast == [RC.iqr_ptr(v, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]
    assert fast_train == [RC.iqr_train_ptr(v, n=50, lam=1.0, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]


def test_iqr_bin_distance_with_ties_and_caps_equals_the_reference():
    rng = np.random.default_rng(23)
    for trial in range(60):
        m = int(rng.integers(4, 40))
        v = rng.integers(0, 5, m).astype(float) if trial % 2 else rng.normal(size=m)
        q = iqr(v)
        if q <= 0:
            continue
        for (lo, hi), cap in itertools.product(FC.iqr_bins(q), (None, 1, 3, 100)):
            assert FC.iqr_bin_distance(v, lo, hi, cap=cap) == RC.iqr_bin_distance(v, lo, hi, cap=cap)
