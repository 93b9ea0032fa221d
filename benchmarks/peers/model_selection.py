"""Peers rows of fast/model_selection.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`.

The peers are the non-private (or float-noise) selections a user would write: numpy's float Laplace for
report-noisy-max and the reusable holdout, scikit-learn's ``GridSearchCV`` on the same single split, and a
hand-written forward step-wise loop on the exact holdout accuracy.  Private noise is drawn from OS entropy on
fast's side (as in production); a large ledger is passed so the default ledger does not grow over the loops.
"""

from __future__ import annotations

import importlib

import numpy as np

from benchmarks.peers._core import SLOWER_BECAUSE, _rng, sized


def rows_model_selection():
    F = importlib.import_module("fast.model_selection")
    from fast.accounting import BudgetAccountant

    def ledger():
        return BudgetAccountant(10.0**12)

    def make_select(c):
        scores = _rng(3).integers(0, 100, c).astype(np.float64)
        acc, g = ledger(), _rng(4)
        return ((lambda: F.noisy_max_select(scores, sensitivity=1.0, epsilon=0.5, accountant=acc)),
                (lambda: int(np.argmax(scores + g.laplace(scale=2.0 / 0.5, size=c)))))

    def make_epsilon(sens):
        return (lambda: F.noisy_max_select_epsilon(sens, 0.5)), (lambda: 2.0 * sens / 0.5)

    def make_thresholdout(n):
        g = _rng(5)
        tr, ho = g.random(n), g.random(n)
        acc = ledger()
        to = F.Thresholdout(tr, ho, threshold=0.5, sigma=1.0 / n, budget=10**6, accountant=acc)
        query = lambda v: v  # noqa: E731

        def peer():  # the float formulation of one query (numpy's Laplace, no quantisation)
            a_t, a_h = tr.mean(), ho.mean()
            if abs(a_h - a_t) > 0.5 + g.laplace(scale=2.0 / n) + g.laplace(scale=4.0 / n):
                return a_h + g.laplace(scale=1.0 / n)
            return a_t
        return (lambda: to.query(query)), peer

    def make_search(n):
        from sklearn.model_selection import GridSearchCV

        from fast import PrivateBoostClassifier

        g = _rng(6)
        X = g.normal(size=(n, 4))
        y = (X[:, 0] > 0).astype(int)
        est = PrivateBoostClassifier(weak_learner="stump", bounds=(-3.0, 3.0), n_rounds=3, classes=(0, 1))
        grid = {"kappa": [0.2, 0.3, 0.4]}
        n_val = n // 4
        perm = np.random.default_rng(0).permutation(n)
        split = [(np.sort(perm[n_val:]), np.sort(perm[:n_val]))]
        acc = BudgetAccountant(10.0**12, 0.5)

        def fast():
            return F.PrivateGridSearchCV(est, grid, epsilon=3.0, delta=1e-6, classes=(0, 1),
                                         random_state=0).fit(X, y, accountant=acc)

        def peer():  # the same fits, selected by exact validation accuracy (not private)
            return GridSearchCV(est.set_params(epsilon=1.0, delta=1e-6 / 3), grid, cv=split, refit=False).fit(X, y)
        return fast, peer

    def make_forward(n, d, k):
        from sklearn.linear_model import LogisticRegression

        g = _rng(7)
        X = g.normal(size=(2 * n, d))
        y = (X[:, 0] + g.normal(size=2 * n) > 0).astype(int)
        Xt, yt, Xh, yh = X[:n], y[:n], X[n:], y[n:]
        acc = ledger()

        def peer():  # forward step-wise logistic regression on the exact holdout accuracy
            chosen = []
            for _ in range(k):
                best, best_s = -1, -1.0
                for j in range(d):
                    if j in chosen:
                        continue
                    cols = chosen + [j]
                    s = LogisticRegression().fit(Xt[:, cols], yt).score(Xh[:, cols], yh)
                    if s > best_s:
                        best, best_s = j, s
                chosen.append(best)
            return chosen
        return (lambda: F.thresholdout_forward_selection(Xt, yt, Xh, yh, threshold=0.04, sigma=0.01, budget=10**6,
                                                         max_features=k, accountant=acc)), peer

    return [
        sized("model_selection", "noisy_max_select", "np.argmax(scores + rng.laplace(scale=2 / eps, size=c)) "
              "(float Laplace)", make_select,
              {"small": ("c=10", (10,)), "mid": ("c=1e3", (1000,)), "large": ("c=1e5", (100_000,))}, same=False),
        sized("model_selection", "noisy_max_select_epsilon", "2 * sensitivity / epsilon (continuous calibration)",
              make_epsilon, {"small": ("Delta=1", (1.0,)), "mid": ("Delta=1e-3", (1e-3,)),
                             "large": ("Delta=1e3", (1e3,))}, same=False),
        sized("model_selection", "Thresholdout.query", "float Thresholdout: means + numpy Laplace (no quantisation)",
              make_thresholdout,
              {"small": ("n=1e3", (1000,)), "mid": ("n=1e5", (100_000,)), "large": ("n=1e7", (10_000_000,))},
              same=False),
        sized("model_selection", "PrivateGridSearchCV.fit", "sklearn GridSearchCV on the same split (exact "
              "validation accuracy, not private), the same PrivateBoostClassifier fits", make_search,
              {"small": ("n=1e3, K=3", (1000,)), "mid": ("n=1e4, K=3", (10_000,)),
               "large": ("n=1e5, K=3", (100_000,))}, same=False),
        sized("model_selection", "thresholdout_forward_selection", "hand-written forward step-wise "
              "LogisticRegression on the exact holdout accuracy (not private)", make_forward,
              {"small": ("n=500, d=5, k=2", (500, 5, 2)), "mid": ("n=2e3, d=10, k=3", (2000, 10, 3)),
               "large": ("n=1e4, d=20, k=3", (10_000, 20, 3))}, same=False),
    ]


SLOWER_BECAUSE.update({
    "model_selection.noisy_max_select": (
        "the peer adds numpy's float Laplace (attackable: Mironov 2012) and takes an argmax; fast draws the exact "
        "discrete Laplace from OS entropy (CKS20, ~10 ns a draw plus the word source's set-up), rounds the scores "
        "to the grid exactly and charges the ledger in exact fractions (~20 us a call, independent of c)"),
    "model_selection.noisy_max_select_epsilon": (
        "the peer is one float division (2 Delta / eps, the continuous calibration); fast validates its arguments "
        "and computes the exact grid calibration (laplace_grid) and returns the delivered 2D/t as a Fraction: a "
        "few microseconds, once per selection"),
    "model_selection.Thresholdout.query": (
        "the peer takes two float means and draws numpy's float Laplace; fast reads every value in the declared "
        "domain and quantises it to an integer (clip, NaN to the centre, floor: ~5 passes over each of the two "
        "sets where a mean takes one) so that the sums are exact and the noise is exact discrete Laplace, and "
        "charges each epoch in exact fractions"),
    "model_selection.thresholdout_forward_selection": (
        "scikit-learn's LogisticRegression fits dominate both sides; fast also predicts every candidate on the "
        "TRAINING set (Thresholdout compares the training and holdout means) where the peer predicts only the "
        "holdout. With default threads the fits' BLAS threads contend on the shared 2 cores (x0.65, 330 vs 214 ms "
        "at mid, 2026-11-29); on one thread fast is at par or ahead (x1.15 mid, x1.44 small)"),
})
