"""Peers rows of fast/estimators.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats

from benchmarks.peers._core import _rng, scalar, sized
from benchmarks.peers.causal import krr_sklearn


def anm_kendall_sklearn(x, y, lam=1e-3, h=0.3, seed=0):
    """The non-private ANM a user would write: sklearn train_test_split (halves), KernelRidge(rbf) both ways,
    abs(scipy.stats.kendalltau) of the test inputs against the residuals; the direction of the smaller score."""
    from sklearn.model_selection import train_test_split

    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.5, random_state=seed)
    r_y = y_te - krr_sklearn(x_tr, y_tr, x_te, lam, h)
    r_x = x_te - krr_sklearn(y_tr, x_tr, y_te, lam, h)
    s_xy = abs(scipy.stats.kendalltau(x_te, r_y).statistic)
    s_yx = abs(scipy.stats.kendalltau(y_te, r_x).statistic)
    return ("x->y" if s_xy < s_yx else "y->x"), (s_xy, s_yx)


def rows_estimators():
    """The scikit-learn estimators of fast (fast.estimators, re-exported from fast): fit (and predict / transform)
    against the scikit-learn estimator a user would otherwise pick.  Outputs are different models: same=False."""
    E = importlib.import_module("fast.estimators")
    M = "estimators"
    impact = importlib.import_module("fast.estimators.impact")
    quiet = impact.impact_accuracy(1.0, n_levels=42, n_rows=32561)
    boosting = importlib.import_module("fast.estimators.boosting")
    causal = importlib.import_module("fast.estimators.causal")
    boost_quiet = boosting.boosting_noise(1.0, 1e-6, n=20000, d=105)
    anm_quiet = causal.anm_noise("kendall", m=1000, n=1000, epsilon=1.0)

    def classification(n, d, seed=1):
        X = _rng(seed).normal(size=(n, d))
        y = (X[:, 0] - 0.5 * X[:, 1] + 0.5 * _rng(seed + 1).normal(size=n) > 0).astype(np.int64)
        return X, y

    def fit_pair(fast_maker, peer_maker, data=classification):
        def make(n, d):
            X, y = data(n, d)
            return (lambda: fast_maker().fit(X, y)), (lambda: peer_maker().fit(X, y))
        return make

    def predict_pair(fast_maker, peer_maker, data=classification, method="predict", train=10_000):
        def make(n, d):
            X, y = data(train, d)
            fast, peer = fast_maker().fit(X, y), peer_maker().fit(X, y)
            Xt, _ = data(n, d, seed=11)
            return (lambda: getattr(fast, method)(Xt)), (lambda: getattr(peer, method)(Xt))
        return make

    fit_sizes = {"small": ("n=1e3, d=10", (1000, 10)), "mid": ("n=1e4, d=20", (10_000, 20)),
                 "large": ("n=1e5, d=20", (100_000, 20))}
    predict_sizes = {"small": ("1e3 rows, d=10", (1000, 10)), "mid": ("1e5 rows, d=20", (100_000, 20)),
                     "large": ("1e6 rows, d=20", (1_000_000, 20))}

    def radoboost():
        return E.RadoBoostClassifier(300, random_state=0)

    def omega():
        return E.OmegaRAdaBoostClassifier(300, regularizer="lasso", omega=1e-3, random_state=0)

    def logistic():
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression()

    def logistic_l1():
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(l1_ratio=1.0, solver="liblinear")

    def private_boost():
        return E.PrivateBoostClassifier(epsilon=1.0, n_rounds=50, weak_learner="halfspace", data_norm=6.0,
                                        classes=(0, 1))  # the row docs/performance.md records (halfspace learner)

    def adaboost():
        from sklearn.ensemble import AdaBoostClassifier

        return AdaBoostClassifier(n_estimators=50, random_state=0)

    def astc_classifier():
        return E.ASTCClassifier(budget=5, depth=3)

    def astc_regressor():
        return E.ASTCRegressor(budget=5, depth=3)

    def tree_classifier():
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=3, random_state=0)

    def tree_regressor():
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(max_depth=3, random_state=0)

    def regression(n, d, seed=1):
        X = _rng(seed).normal(size=(n, d))
        return X, X[:, :3] @ np.array([1.0, -0.5, 0.25]) + 0.1 * _rng(seed + 1).normal(size=n)

    def snc_data(n, d, seed=1):
        centres = _rng(20).normal(size=(5, d)) * 2.0
        y = _rng(seed).integers(0, 5, size=n)
        return centres[y] + _rng(seed + 1).normal(size=(n, d)), y

    def snc():
        return E.SNCClassifier(compression=0.04, gamma2=0.1, max_iter=50, random_state=0)

    def nca():
        from sklearn.neighbors import NeighborhoodComponentsAnalysis

        return NeighborhoodComponentsAnalysis(max_iter=50, random_state=0)

    def snc_fit(n, d):
        X, y = snc_data(n, d)
        return (lambda: snc().fit(X, y)), ((lambda: nca().fit(X, y)) if n <= 2000 else None)

    def snc_kmeans(n, d):
        from sklearn.cluster import KMeans

        X, y = snc_data(n, d)

        def peer():  # 4 % of each class as k-means centroids (the usual hand-made prototype set)
            return [KMeans(n_clusters=max(1, round(0.04 * (y == c).sum())), n_init=1, random_state=0).fit(X[y == c])
                    .cluster_centers_ for c in np.unique(y)]
        return (lambda: snc().fit(X, y)), peer

    def snc_predict(n, d):
        X, y = snc_data(10_000, d)
        fast = snc().fit(X, y)
        Xt, _ = snc_data(n, d, seed=11)

        def peer():
            from sklearn.neighbors import KNeighborsClassifier

            return KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(X, y).predict(Xt)
        return (lambda: fast.predict(Xt)), peer

    def target_encoder():
        from sklearn.model_selection import StratifiedKFold
        from sklearn.preprocessing import TargetEncoder

        return TargetEncoder(target_type="binary", cv=StratifiedKFold(5, shuffle=True, random_state=0))

    def impact_data(n, levels, seed=1):
        index = _rng(seed).integers(0, levels, size=n)
        y = (_rng(seed + 1).random(n) < 0.3 + 0.4 * (index % 2)).astype(np.int64)
        return index[:, None], y

    def impact_fit(n, levels):
        X, y = impact_data(n, levels)
        return ((lambda: E.ImpactEncoder(cv=5, random_state=0).fit_transform(X, y)),
                (lambda: target_encoder().fit_transform(X, y)))

    def impact_transform(n, levels):
        X, y = impact_data(n, levels)
        fast = E.ImpactEncoder(cv=5, random_state=0).fit(X, y)
        peer = target_encoder().fit(X, y)
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    impact_sizes = {"small": ("n=1e3, 20 levels", (1000, 20)), "mid": ("n=1e5, 1000 levels", (100_000, 1000)),
                    "large": ("n=1e6, 1e4 levels", (1_000_000, 10_000))}

    def cause_effect(n, seed=21):
        x = _rng(seed).uniform(-1, 1, n)
        return x, x**3 + 0.1 * _rng(seed + 1).uniform(-1, 1, n)

    def anm(n):
        x, y = cause_effect(n)
        return ((lambda: E.PrivateANM("kendall", epsilon=1.0, bandwidth=0.3, random_state=0).fit(x, y)),
                (lambda: anm_kendall_sklearn(x, y)))

    def diagnostics(n):
        x, y = cause_effect(n)
        est = E.PrivateANM("kendall", epsilon=1.0, bandwidth=0.3, random_state=0)
        return (lambda: E.nonprivate_diagnostics(est, x, y)), (lambda: anm_kendall_sklearn(x, y))

    def directions(pairs, n):
        data = [cause_effect(n, seed=30 + 2 * k) for k in range(pairs)]
        return ((lambda: E.infer_directions(data, "kendall", epsilon=1.0, bandwidth=0.3, random_state=0)),
                (lambda: [anm_kendall_sklearn(x, y, seed=k) for k, (x, y) in enumerate(data)]))

    anm_sizes = {"small": ("N=400", (400,)), "mid": ("N=2000", (2000,)), "large": ("N=4000", (4000,))}
    snc_sizes = {"small": ("n=1e3, d=20", (1000, 20)), "mid": ("n=2e3, d=20", (2000, 20)),
                 "large": ("n=1e4, d=20", (10_000, 20))}

    # fast.preprocessing (issue 28 item 4), counted with the estimators (COVERED_BY): transform against the
    # scikit-learn transformer given the same DECLARED bounds / levels; same outputs (same=True)
    P = importlib.import_module("fast.preprocessing")

    def scaled_data(n, d, seed=1):
        X = 3.0 * _rng(seed).normal(size=(n, d))
        return X, np.full(d, -4.0), np.full(d, 4.0)

    def scaler(n, d):
        from sklearn.preprocessing import MinMaxScaler

        X, lo, hi = scaled_data(n, d)
        fast = P.PublicScaler(bounds=(lo, hi)).fit(X[:1])
        peer = MinMaxScaler(feature_range=(-1, 1), clip=True).fit(np.vstack([lo, hi]))
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    def clipper(n, d):
        X, _, _ = scaled_data(n, d)
        fast = P.DomainClipper(norm=4.0).fit(X[:1])

        def peer():
            norms = np.linalg.norm(X, axis=1)
            return X * np.minimum(1.0, 4.0 / np.maximum(norms, 1e-300))[:, None]
        return (lambda: fast.transform(X)), peer

    def level_data(n, d, seed=1):
        levels = [f"l{k}" for k in range(20)]
        X = np.asarray(levels + ["unknown"], dtype=object)[_rng(seed).integers(0, 21, size=(n, d))]
        return X, [levels[:-1]] * d  # one declared level and "unknown" outside the list

    def onehot(n, d):
        from sklearn.preprocessing import OneHotEncoder

        X, cats = level_data(n, d)
        fast = P.PublicOneHotEncoder(categories=cats).fit(X[:1])
        peer = OneHotEncoder(categories=cats, handle_unknown="ignore", sparse_output=False).fit(X[:50])
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    def ordinal(n, d):
        from sklearn.preprocessing import OrdinalEncoder

        X, cats = level_data(n, d)
        fast = P.PublicOrdinalEncoder(categories=cats).fit(X[:1])
        peer = OrdinalEncoder(categories=cats, handle_unknown="use_encoded_value", unknown_value=-1).fit(X[:50])
        return (lambda: fast.transform(X)), (lambda: peer.transform(X))

    def report(n, d):
        X, lo, hi = scaled_data(n, d)
        fast_scaler = P.PublicScaler(bounds=(lo, hi)).fit(X[:1])

        def fast():
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", P.ClippingWarning)
                return P.clipping_report(fast_scaler, X, threshold=1.0)

        def peer():
            out = np.isnan(X) | (X < lo) | (X > hi)
            return out.any(axis=1).mean(), out.mean(axis=0)
        return fast, peer

    pre_sizes = {"small": ("1e3 rows, d=10", (1000, 10)), "mid": ("1e5 rows, d=20", (100_000, 20)),
                 "large": ("1e6 rows, d=20", (1_000_000, 20))}
    level_sizes = {"small": ("1e3 rows, 3 columns, 20 levels", (1000, 3)),
                   "mid": ("1e5 rows, 3 columns, 20 levels", (100_000, 3)),
                   "large": ("1e6 rows, 3 columns, 20 levels", (1_000_000, 3))}
    return [
        sized(M, "PublicScaler.transform", "sklearn MinMaxScaler(feature_range=(-1, 1), clip=True) fit on the two "
              "rows [lower; upper] (the same map)", scaler, pre_sizes),
        sized(M, "DomainClipper.transform", "numpy: X * min(1, r / ||x||_2) per row", clipper, pre_sizes),
        sized(M, "PublicOneHotEncoder.transform", "sklearn OneHotEncoder(categories, handle_unknown='ignore', "
              "sparse_output=False)", onehot, level_sizes),
        sized(M, "PublicOrdinalEncoder.transform", "sklearn OrdinalEncoder(categories, handle_unknown="
              "'use_encoded_value', unknown_value=-1)", ordinal, level_sizes),
        sized(M, "clipping_report", "numpy: the clipped mask (NaN or outside [lower, upper]) and its row / column "
              "means", report, pre_sizes, same=False),
        sized(M, "RadoBoostClassifier.fit", "sklearn LogisticRegression().fit (the non-private linear classifier); "
              "fast: n_rounds=300, min(1000, m/2) rados", fit_pair(radoboost, logistic), fit_sizes, same=False),
        sized(M, "RadoBoostClassifier.predict", "LogisticRegression.predict (both linear: sign of X theta)",
              predict_pair(radoboost, logistic), predict_sizes, same=False),
        sized(M, "OmegaRAdaBoostClassifier.fit", "sklearn LogisticRegression(l1_ratio=1, solver='liblinear').fit; "
              "fast: lasso, n_rounds=300", fit_pair(omega, logistic_l1), fit_sizes, same=False),
        sized(M, "OmegaRAdaBoostClassifier.predict", "LogisticRegression(l1_ratio=1).predict",
              predict_pair(omega, logistic_l1), predict_sizes, same=False),
        sized(M, "PrivateBoostClassifier.fit", "sklearn AdaBoostClassifier(n_estimators=50) (stumps, not private); "
              "fast: 50 rounds, halfspace learner, data_norm=6", fit_pair(private_boost, adaboost),
              {**fit_sizes, "large": ("n=3e4, d=20", (30_000, 20))}, same=False,
              note="AdaBoost's 50 stump fits cost ~1.5 s per 1e4 rows here: n = 3e4 is its largest size"),
        sized(M, "PrivateBoostClassifier.predict", "AdaBoostClassifier.predict (50 stumps vs one averaged halfspace)",
              predict_pair(private_boost, adaboost), predict_sizes, same=False),
        sized(M, "ImpactEncoder.fit_transform", "sklearn TargetEncoder(cv=5).fit_transform (out-of-fold shrunk "
              "means vs out-of-fold Bayes codes)", impact_fit, impact_sizes, same=False),
        sized(M, "ImpactEncoder.transform", "TargetEncoder.transform", impact_transform, impact_sizes, same=False),
        sized(M, "ASTCClassifier.fit", "sklearn DecisionTreeClassifier(max_depth=3).fit (no feature costs); fast: "
              "budget 5, depth 3", fit_pair(astc_classifier, tree_classifier), fit_sizes, same=False),
        sized(M, "ASTCClassifier.predict", "DecisionTreeClassifier.predict",
              predict_pair(astc_classifier, tree_classifier), predict_sizes, same=False),
        sized(M, "ASTCRegressor.fit", "sklearn DecisionTreeRegressor(max_depth=3).fit (no feature costs)",
              fit_pair(astc_regressor, tree_regressor, regression), fit_sizes, same=False),
        sized(M, "ASTCRegressor.predict", "DecisionTreeRegressor.predict",
              predict_pair(astc_regressor, tree_regressor, regression), predict_sizes, same=False),
        sized(M, "SNCClassifier.fit", "sklearn NeighborhoodComponentsAnalysis(max_iter=50).fit (learns a metric "
              "by the stochastic-neighbour objective, O(n^2) per iteration); fast: 4 % references, gamma2=0.1, 50 "
              "iterations", snc_fit, snc_sizes, same=False,
              note="NCA costs O(n^2 d) per iteration (~10 s at n = 4e3 here): the large size times fast only"),
        sized(M, "SNCClassifier.fit (vs KMeans prototypes)", "4 % of each class as sklearn KMeans(n_init=1) "
              "centroids (the hand-made compressed set)", snc_kmeans,
              {**snc_sizes, "mid": ("n=4e3, d=20", (4000, 20))}, same=False),
        sized(M, "SNCClassifier.predict", "sklearn KNeighborsClassifier(1, algorithm='brute') on the FULL training "
              "set (1e4 rows), what the compressed set replaces", snc_predict,
              {"small": ("1e3 rows, d=10", (1000, 10)), "mid": ("1e4 rows, d=20", (10_000, 20)),
               "large": ("5e4 rows, d=20", (50_000, 20))}, same=False),
        sized(M, "PrivateANM.fit", "the non-private ANM: train_test_split, two sklearn KernelRidge fits, "
              "scipy kendalltau of the residuals", anm, anm_sizes, same=False),
        sized(M, "nonprivate_diagnostics", "the same non-private ANM with sklearn KernelRidge + scipy kendalltau",
              diagnostics, anm_sizes, same=False),
        sized(M, "infer_directions", "a loop of the non-private sklearn ANM over the pairs", directions,
              {"small": ("5 pairs, N=400", (5, 400)), "mid": ("5 pairs, N=1000", (5, 1000)),
               "large": ("5 pairs, N=2000", (5, 2000))}, same=False),
        scalar(M, "impact_accuracy", "OpenDP's laplacian_scale_to_accuracy by hand: (2 / (epsilon / columns)) * "
               "ln(1 / alpha) with the float scale (fast: the delivered grid's scale, the Chernoff bound of the "
               "5-fold sum, the public reference n / levels)",
               lambda: impact.impact_accuracy(1.0, n_levels=42, n_rows=32561, n_columns=2, folds=5),
               lambda: (2.0 / 0.5) * np.log(1.0 / 0.05), same=False),
        scalar(M, "warn_if_mostly_noise", "the comparison mean_level_count < min_signal_count written inline",
               lambda: impact.warn_if_mostly_noise([quiet]),
               lambda: quiet["mean_level_count"] < quiet["min_signal_count"]),
        scalar(M, "boosting_noise", "OpenDP's laplacian_scale_to_accuracy by hand at the float scale 2 (4/(kappa "
               "n)) / sqrt(2 rho / T) and b ln(K / alpha) (fast: the fit's own calibration, the delivered grid, the "
               "union bound over the K - 1 noise differences)",
               lambda: boosting.boosting_noise(1.0, 1e-6, n=20000, d=105),
               lambda: (2 * 4 / (0.2 * 20000) / np.sqrt(2 * 0.0244 / 25)) * np.log(3360 / 0.05), same=False),
        scalar(M, "warn_if_boosting_noise", "the comparison noise_to_signal > threshold written inline",
               lambda: boosting.warn_if_boosting_noise(boost_quiet),
               lambda: boost_quiet.noise_to_signal > boost_quiet.threshold),
        scalar(M, "anm_noise", "OpenDP's laplacian_scale_to_accuracy by hand: (4 / m) / (epsilon / 2) * ln(1 / "
               "alpha) at the float scale (fast: the delivered grid's scale, the difference's accuracy, the range)",
               lambda: causal.anm_noise("kendall", m=1000, n=1000, epsilon=1.0),
               lambda: (4 / 1000) / 0.5 * np.log(1 / 0.05), same=False),
        scalar(M, "warn_if_anm_noise", "the comparison noise_to_signal > threshold written inline",
               lambda: causal.warn_if_anm_noise(anm_quiet),
               lambda: anm_quiet.noise_to_signal > anm_quiet.threshold),
    ]
