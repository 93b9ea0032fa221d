"""Keyed folds (ImpactEncoder(row_id=...), fast/estimators/_keyed_rows.py): the add/remove-one L1 sensitivity of
the released fold tables is 1, for every row of random datasets (claim library.impact_coding.keyed-folds-sensitivity).

* check_keyed_fold_tables_add_remove_one_sensitivity: exhaustive over the one-row removals of 40 random datasets
  (n 5..39, 1..4 levels, k 2..5): the stacked k fold tables of D and D minus a row differ by exactly 1 in L1 (the
  split's coding table by at most 1), while KFold over positions moves them by more than 2.
"""
import numpy as np

from fast.estimators import _distributed


def check_keyed_fold_tables_add_remove_one_sensitivity():
    """Claim library.impact_coding.keyed-folds-sensitivity: with keyed folds (cross) or a keyed split, the released
    table(s) of D and of D with one row removed differ by exactly 1 in L1, for EVERY row of 40 random datasets
    (KFold over positions: removing a row re-assigns many rows, L1 up to ~2n / k)."""
    gen = np.random.default_rng(5)
    worst_keyed, worst_kfold = 0, 0
    from sklearn.model_selection import KFold

    for trial in range(40):
        n, L, k = int(gen.integers(5, 40)), int(gen.integers(1, 5)), int(gen.integers(2, 6))
        ids = gen.choice(10**6, size=n, replace=False).astype(np.int64)
        idx, y = gen.integers(0, L, n), gen.integers(0, 2, n)
        key = _distributed.fold_key(trial)

        def tables(keep, keyed=True):
            if keyed:
                f = _distributed.keyed_folds(ids[keep], key, k)
            else:
                f = np.empty(keep.size, dtype=np.int64)
                for i, (_, test) in enumerate(KFold(min(k, keep.size), shuffle=True, random_state=0).split(keep)):
                    f[test] = i
            out = np.zeros((k, L, 2), dtype=np.int64)
            np.add.at(out, (f, idx[keep], 1 - y[keep]), 1)
            return out

        def split(keep):
            c = _distributed.keyed_split(ids[keep], key, 0.5)
            out = np.zeros((L, 2), dtype=np.int64)
            np.add.at(out, (idx[keep][c], 1 - y[keep][c]), 1)
            return out

        full = np.arange(n)
        for r in range(n):
            rest = np.delete(full, r)
            d = np.abs(tables(full) - tables(rest)).sum()
            assert d == 1
            assert np.abs(split(full) - split(rest)).sum() <= 1
            worst_keyed = max(worst_keyed, d)
            if n > k:
                worst_kfold = max(worst_kfold, np.abs(tables(full, False) - tables(rest, False)).sum())
    assert worst_keyed == 1 and worst_kfold > 2  # the position-based folds really are the problem
