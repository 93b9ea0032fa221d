"""Peers rows of fast/impact_coding.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats

from benchmarks.peers._core import _rng, scalar, sized


def bayes_numpy(a, b, tp, tn, s=1e-4):
    """vtreat catB transcribed: logit(P[T|C]) - logit(P[T]) with P[C|T] = (a + p s)/(tp + s), P[C|F] = (b + (1-p)
    s)/(tn + s), p = tp / (tp + tn) clipped to [1e-6, 1 - 1e-6], s floored at 1e-4 (as fast)."""
    p = np.clip(tp / (tp + tn), 1e-6, 1 - 1e-6)
    return (np.log((a + p * s) / (tp + s) * p) - np.log((b + (1 - p) * s) / (tn + s) * (1 - p))
            - np.log(p / (1 - p)))


def fisher_or_chi2_scipy(groups, totals):
    """One scipy test per group against the rest (a Python loop): scipy.stats.fisher_exact when a cell is <= 10 or
    an expected count < 5, else scipy.stats.chi2_contingency with Yates' correction (vtreat's rule, as fast)."""
    out = np.empty(len(groups))
    for i, (a, b) in enumerate(groups.tolist()):
        table = np.array([[a, b], [totals[0] - a, totals[1] - b]])
        expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
        if table.min() <= 10 or expected.min() < 5:
            out[i] = scipy.stats.fisher_exact(table).pvalue
        else:
            out[i] = scipy.stats.chi2_contingency(table, correction=True).pvalue
    return out


def _levels(n, levels, seed=1):
    index = _rng(seed).integers(0, levels, size=n)
    y = (_rng(seed + 1).random(n) < 0.3 + 0.4 * (index % 2)).astype(np.int64)
    return index, y


def groupby_counts(index, y, levels):
    """pandas groupby sum / count of y per level, reindexed on all levels: (positives, negatives) as float64."""
    import pandas as pd

    agg = pd.DataFrame({"level": index, "y": y}).groupby("level")["y"].agg(["sum", "count"])
    agg = agg.reindex(range(levels), fill_value=0)
    pos = agg["sum"].to_numpy(np.float64)
    return pos, agg["count"].to_numpy(np.float64) - pos


def rows_impact_coding():
    F = importlib.import_module("fast.impact_coding")
    M = "impact_coding"
    sizes = {"small": ("n=1e3, 20 levels", (1000, 20)), "mid": ("n=1e5, 1000 levels", (100_000, 1000)),
             "large": ("n=1e6, 1e4 levels", (1_000_000, 10_000))}
    ll = {"small": ("L=1e3", (1000,)), "mid": ("L=1e5", (100_000,)), "large": ("L=1e6", (1_000_000,))}

    def cross(n, levels):
        index, y = _levels(n, levels)
        folds = np.arange(n) % 5

        def peer():
            from sklearn.model_selection import KFold
            from sklearn.preprocessing import TargetEncoder

            enc = TargetEncoder(target_type="binary", smooth=0.0, cv=KFold(5))
            return enc.fit_transform(index[:, None], y)[:, 0]
        return (lambda: F.cross_codes(index, y, levels, folds)), peer

    def groupby(n, levels):
        import pandas as pd

        index, y = _levels(n, levels)
        folds = np.arange(n) % 5
        frame = pd.DataFrame({"level": index, "y": y, "fold": folds})

        def peer():  # out-of-fold level means with pandas: (level total - level in fold) / (count - count in fold)
            total = frame.groupby("level")["y"].agg(["sum", "count"])
            per_fold = frame.groupby(["fold", "level"])["y"].agg(["sum", "count"])
            key = pd.MultiIndex.from_arrays([frame["fold"], frame["level"]])
            fs, fc = per_fold.loc[key, "sum"].to_numpy(), per_fold.loc[key, "count"].to_numpy()
            ts, tc = total.loc[frame["level"], "sum"].to_numpy(), total.loc[frame["level"], "count"].to_numpy()
            return (ts - fs) / np.maximum(tc - fc, 1)
        return (lambda: F.cross_codes(index, y, levels, folds)), peer

    def factorize(n, levels):
        import pandas as pd

        index, _ = _levels(n, levels)
        names = np.array([f"level{i}" for i in range(levels)], dtype=object)[index]
        return (lambda: F.factorize(names)[1]), (lambda: pd.factorize(names, sort=True)[0])

    def counts(n, levels):
        index, y = _levels(n, levels)
        return ((lambda: F.count_table(index, y, levels)),
                (lambda: np.column_stack(groupby_counts(index, y, levels))))

    def table(levels, seed=3):
        a = _rng(seed).integers(1, 60, size=levels).astype(np.float64)
        b = _rng(seed + 1).integers(1, 60, size=levels).astype(np.float64)
        return a, b, float(a.sum()), float(b.sum())

    def code(fn, peer):
        def make(levels):
            a, b, tp, tn = table(levels)
            return (lambda: fn(a, b, tp, tn)), (lambda: peer(a, b, tp, tn))
        return make

    def log_lift_numpy(a, b, tp, tn, s=1e-3):
        p = tp / max(tp + tn, 1e-3)
        t_part = (a + p * s) / (tp + p * s) * p
        f_part = (b + (1 - p) * s) / (tn + (1 - p) * s) * (1 - p)
        return np.log(t_part / (t_part + f_part) / p)

    def count_code_numpy(a, b):
        plus, minus = np.maximum(1e-3, a), np.maximum(1e-3, b)
        return np.stack([plus, minus, np.log(plus) - np.log(minus),
                         (np.maximum(plus, minus) < 10).astype(np.float64)], axis=-1)

    def mean_code_numpy(count, sum_y, total_count, total_sum):
        mean = total_sum / total_count
        return sum_y / count - mean

    def p_values(q):
        a, b, tp, tn = table(q)
        groups = np.column_stack([a, b])
        totals = np.array([tp, tn])
        return (lambda: F.group_p_values(groups, totals)), (lambda: fisher_or_chi2_scipy(groups, totals))

    def coder(levels):
        a, b, tp, tn = table(levels)
        tab = np.column_stack([a, b])
        return (lambda: F.coder_from_table(tab).code[:, 0]), (lambda: bayes_numpy(a, b, tp, tn))

    def fit(n, levels):
        from sklearn.preprocessing import TargetEncoder

        index, y = _levels(n, levels)
        return ((lambda: F.fit_coder(index, y, levels)),
                (lambda: TargetEncoder(target_type="binary", smooth=0.0).fit(index[:, None], y)))

    def apply(n, levels):
        index, y = _levels(n, levels)
        coder = F.fit_coder(index, y, levels)
        return (lambda: F.apply_coder(coder, index)), (lambda: coder.code[index])

    def apply_sklearn(n, levels):
        from sklearn.preprocessing import TargetEncoder

        index, y = _levels(n, levels)
        coder = F.fit_coder(index, y, levels)
        enc = TargetEncoder(target_type="binary", smooth=0.0).fit(index[:, None], y)
        return (lambda: F.apply_coder(coder, index)), (lambda: enc.transform(index[:, None]))

    def naive(n, levels):
        index, y = _levels(n, levels)

        def peer():
            pos, neg = groupby_counts(index, y, levels)
            return bayes_numpy(pos, neg, pos.sum(), neg.sum())[index][:, None]
        return (lambda: F.naive_codes(index, y, levels)), peer

    def split(n, levels):
        index, y = _levels(n, levels)
        coding = _rng(9).random(n) < 0.5

        def peer():
            pos, neg = groupby_counts(index[coding], y[coding], levels)
            out = bayes_numpy(pos, neg, pos.sum(), neg.sum())[index]
            out[coding] = np.nan
            return out[:, None]
        return (lambda: F.split_codes(index, y, levels, coding)), peer

    def jackknife(n, levels):
        index, y = _levels(n, levels)

        def peer():  # leave-one-out counts by np.bincount: the level's and the totals minus the row's own outcome
            pos = np.bincount(index, weights=y, minlength=levels)
            neg = np.bincount(index, minlength=levels) - pos
            yf = y.astype(np.float64)
            return bayes_numpy(pos[index] - yf, neg[index] - (1 - yf), pos.sum() - yf, neg.sum() - (1 - yf))[:, None]
        return (lambda: F.jackknife_codes(index, y, levels)), peer

    def laplace(levels):
        a, b, _, _ = table(levels)
        tab = np.column_stack([a, b])
        gen = np.random.default_rng(1)
        return ((lambda: F.laplace_count_table(tab, epsilon=1.0, rng=1)),
                (lambda: np.maximum(tab + gen.laplace(0.0, 2.0, size=tab.shape), 1e-3)))

    return [
        sized(M, "factorize", "pd.factorize(v, sort=True) (string levels; the index compared)", factorize, sizes),
        sized(M, "count_table", "pandas groupby('level')['y'].agg(['sum', 'count']) reindexed on the levels", counts,
              sizes),
        sized(M, "bayes_code", "numpy transcription of vtreat catB (s floored at 1e-4)",
              code(F.bayes_code, bayes_numpy), ll),
        sized(M, "log_lift_code", "numpy transcription of the post's bayesCode (s = 1e-3)",
              code(F.log_lift_code, log_lift_numpy), ll),
        sized(M, "count_code", "np.stack([max(1e-3, n+), max(1e-3, n-), log ratio, max < 10])",
              code(lambda a, b, tp, tn: F.count_code(a, b), lambda a, b, tp, tn: count_code_numpy(a, b)), ll),
        sized(M, "mean_code", "sum_y / count - total_sum / total_count (s = 0)",
              code(lambda a, b, tp, tn: F.mean_code(a + b, a, tp + tn, tp),
                   lambda a, b, tp, tn: mean_code_numpy(a + b, a, tp + tn, tp)), ll),
        sized(M, "group_p_values", "a loop of scipy.stats.fisher_exact / chi2_contingency (Yates) per group",
              p_values, {"small": ("Q=30", (30,)), "mid": ("Q=300", (300,)), "large": ("Q=1e3", (1000,))},
              note="scipy's loop costs ~1 ms a group: Q = 1e3 is its largest size here"),
        sized(M, "coder_from_table", "numpy catB over the table (no test: fast also computes each level's Fisher / "
              "chi-square p-value)", coder, {**ll, "large": ("L=5e5", (500_000,))}),
        sized(M, "fit_coder", "sklearn TargetEncoder(smooth=0).fit (a shrunk level mean, not the Bayes code)", fit,
              sizes, same=False),
        sized(M, "apply_coder", "numpy gather coder.code[index]", apply, sizes),
        sized(M, "apply_coder (vs sklearn)", "sklearn TargetEncoder.transform of the same column (its own codes)",
              apply_sklearn, sizes, same=False),
        sized(M, "naive_codes", "pandas groupby counts -> numpy catB -> gather (fast also tests every level)", naive,
              sizes),
        sized(M, "split_codes", "pandas groupby counts of the coding rows -> numpy catB -> gather, NaN on the coding "
              "rows", split, sizes),
        sized(M, "cross_codes", "sklearn TargetEncoder(cv=5, smooth=0).fit_transform (its own folds, so "
              "outputs differ)", cross, sizes, same=False),
        sized(M, "cross_codes (vs pandas)", "pandas groupby out-of-fold level means (the same 5 folds; fast "
              "returns the Bayes code, so outputs differ)", groupby, sizes, same=False),
        sized(M, "jackknife_codes", "np.bincount counts, leave-one-out by subtracting the row's own outcome, "
              "numpy catB (np.bincount is faster than a pandas groupby here)", jackknife, sizes),
        scalar(M, "count_sensitivity", "the constant 2 (replace-one)", lambda: F.count_sensitivity("replace-one"),
               lambda: 2, note="no plain formulation: a constant per neighbouring relation (validation only)"),
        sized(M, "laplace_count_table", "np.maximum(table + rng.laplace(0, 2 / eps, shape), 1e-3) (float, not DP)",
              laplace, ll, same=False, note="exact discrete Laplace vs numpy's floating-point draws"),
    ]
