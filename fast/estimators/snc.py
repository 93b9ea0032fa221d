"""SNCClassifier: k-nearest-neighbour classification on a compressed set learned by Stochastic Neighbor Compression
(kusner2016 ch. 3; Kusner, Tyree, Weinberger, Agrawal, ICML 2014).

>>> from sklearn.datasets import load_iris
>>> X, y = load_iris(return_X_y=True)
>>> clf = SNCClassifier(compression=0.1, random_state=0).fit(X, y)
>>> clf.compressed_set_[0].shape
(15, 4)

Pipeline (Algorithm 2 and §3.1.3-3.1.4 of the thesis):

1. class-proportional initialisation with at least one reference per class (:func:`fast.snc.class_proportional_init`);
2. the scale gamma^2: a float, or ``"cv"``: each value of a grid (multiples of 1 / median squared distance between
   inputs and initial references) is tried on a stratified 80/20 hold-out (a short SNC fit on 80 %, 1-NN error on
   20 %), the best (lowest error, smaller gamma^2 on ties) is kept; then gamma^2 is optimised with Z fixed by
   :func:`fast.snc.snc_optimize`'s own gamma^2 phase (monotone descent on log gamma^2, at most a factor 10 per
   step, at most max_iter // 4 steps), "prior to learning Z" as the thesis does;
3. Z by L-BFGS on the loss L(Z) of eq. (3.5) with the corrected gradient (the thesis prints (3.6) with the wrong
   sign); for ``metric="diagonal"`` / ``"full"`` then A (from sqrt(gamma^2) I) and Z jointly (eqs. 3.7-3.9, corrected);
4. prediction: :func:`fast.snc.snc_predict`, the k nearest references (exact squared Euclidean distances after
   applying A, lowest index on ties; for the scalar metric no scaling is needed, the 1-NN rule being scale
   invariant), majority vote (ties to the first class); ``predict_proba`` is the vote share of the same neighbours.
"""
from __future__ import annotations

import math
import numbers
import sys

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from fast import snc
from fast._contracts.snc_contract import CHUNK_ELEMENTS, check_compression, check_iterations, check_metric

__all__ = ["SNCClassifier"]

#: the "cv" grid of gamma^2, in units of 1 / median squared distance between inputs and initial references
GAMMA2_GRID = (0.25, 1.0, 4.0, 16.0, 64.0)
#: at most this many inputs are used for the median distance of the grid
_MEDIAN_POINTS = 2000
#: ... and at most this many (input, reference) pairs (16 MiB of distances; 2,000 inputs up to m = 1,048)
_MEDIAN_PAIRS = 1 << 21


def _sq_norms(P):
    return np.einsum("ij,ij->i", P, P)


def _median_sqdist(P, R) -> float:
    """Median of the positive squared distances ||p - r||^2 over all pairs (1.0 if none is positive), by the GEMM
    expansion ||p||^2 + ||r||^2 - 2 p.r after centring on the mean of P (clipped at 0), filled in row blocks of
    about ``CHUNK_ELEMENTS`` pairs: memory O(|P| |R|) for the distances themselves, never O(|P| |R| d)."""
    mu = P.mean(axis=0)
    Pc, Rc = P - mu, R - mu
    r2 = _sq_norms(Rc)
    D = np.empty((Pc.shape[0], Rc.shape[0]))
    rows = max(1, CHUNK_ELEMENTS // max(1, Rc.shape[0]))
    for lo in range(0, Pc.shape[0], rows):
        block = Pc[lo:lo + rows]
        scale = _sq_norms(block)[:, None] + r2[None, :]
        out = D[lo:lo + rows]
        np.subtract(scale, 2.0 * (block @ Rc.T), out=out)
        out[out <= 1e-12 * scale] = 0.0  # rounding of a duplicate pair (p = r) is 0, as the exact difference gives
    positive = D[D > 0]
    del D
    return float(np.median(positive, overwrite_input=True)) if positive.size else 1.0


def _generator(random_state) -> np.random.Generator:
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(0, 2**31 - 1)))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return np.random.default_rng(int(random_state))
    raise TypeError(f"random_state must be None, an int, a RandomState or a Generator, got {random_state!r}")


def _transform(X, A):
    if A is None:
        return X
    return X * A if A.ndim == 1 else X @ A.T


class SNCClassifier(ClassifierMixin, BaseEstimator):
    """k-NN on a reference set compressed by Stochastic Neighbor Compression (kusner2016 ch. 3).

    Parameters
    ----------
    compression : float in (0, 1] or int, default=0.04
        Size of the compressed set: a ratio of the training set (m = round(ratio n)) or a count m; either must
        leave at least one reference per class (m >= number of classes), else fit raises a ValueError.
    gamma2 : float > 0 or "cv", default="cv"
        Initial precision gamma^2 of eq. (3.3); "cv" picks it on a hold-out over ``GAMMA2_GRID``. It is then
        optimised (with Z fixed) unless ``optimize_gamma2=False``.
    metric : {"scalar", "diagonal", "full"}, default="scalar"
        A = gamma I (scalar), diagonal A, or full d x d A learned jointly with Z (eq. 3.7).
    k : int, default=1
        Neighbours used at prediction.
    max_iter : int, default=200
        L-BFGS iterations for Z (and A); the gamma^2 phase and each "cv" trial use at most max_iter // 4.
    tol : float, default=1e-6
        Relative decrease of the loss below which L-BFGS stops (scipy's ``ftol``).
    optimize_gamma2 : bool, default=True
        Optimise gamma^2 with Z fixed before learning Z (the thesis's practice).
    random_state : None, int, RandomState or Generator, default=None
        Seeds the initial subsample and the hold-out split.
    progress : bool, default=False
        Print the loss every 10 iterations to stderr.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    compressed_set_ : tuple (ndarray (m, d), ndarray (m,))
        The learned references Z (input space) and their labels.
    gamma2_ : float
        Final gamma^2.
    A_ : ndarray or None
        The learned metric (None for "scalar").
    loss_path_ : ndarray
        The loss at every optimiser iteration (non-increasing within each phase).
    n_iter_ : int
        Optimiser iterations taken.
    n_features_in_ : int
        Number of features.

    Raises
    ------
    ValueError
        One class only, a compression (ratio or count) leaving fewer references than classes, gamma2 <= 0, unknown
        metric, NaN inputs,
        k larger than the compressed set, a feature count at predict different from fit.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(4, 1, (50, 2))])
    >>> y = np.repeat([0, 1], 50)
    >>> clf = SNCClassifier(compression=4, gamma2=0.5, random_state=0).fit(X, y)
    >>> float(clf.score(X, y)) > 0.9
    True
    """

    def __init__(self, compression=0.04, gamma2="cv", metric="scalar", k=1, max_iter=200, tol=1e-6,
                 optimize_gamma2=True, random_state=None, progress=False):
        self.compression = compression
        self.gamma2 = gamma2
        self.metric = metric
        self.k = k
        self.max_iter = max_iter
        self.tol = tol
        self.optimize_gamma2 = optimize_gamma2
        self.random_state = random_state
        self.progress = progress

    # ------------------------------------------------------------------------------------------------- helpers
    def _check_params(self):
        check_metric(self.metric)
        max_iter, tol = check_iterations(self.max_iter, self.tol)
        if isinstance(self.k, bool) or not isinstance(self.k, numbers.Integral) or self.k < 1:
            raise ValueError(f"k must be an integer >= 1, got {self.k!r}")
        g = self.gamma2
        if isinstance(g, str):
            if g != "cv":
                raise ValueError(f"gamma2 must be a number > 0 or 'cv', got {g!r}")
        elif isinstance(g, bool) or not isinstance(g, numbers.Real) or not (math.isfinite(g) and g > 0):
            raise ValueError(f"gamma2 must be a number > 0 or 'cv', got {g!r}")
        return max_iter, tol

    def _fit_once(self, X, codes, m, gamma2, rng, max_iter, tol, callback=None):
        idx = snc.class_proportional_init(codes, m, rng)
        Z0, zl = X[idx], codes[idx]
        if self.optimize_gamma2 and max_iter > 0:
            gamma2 = self._optimise_gamma2(X, codes, Z0, zl, gamma2, max(1, max_iter // 4), tol)
        fit = snc.snc_optimize(X, codes, Z0, zl, gamma2, max_iter=max_iter, tol=tol, optimize_gamma2=False,
                               metric=self.metric, callback=callback)
        return fit

    @staticmethod
    def _optimise_gamma2(X, codes, Z0, zl, gamma2, max_iter, tol):
        """gamma^2 with Z = Z0 fixed: :func:`fast.snc.snc_optimize`'s own gamma^2 phase (unbounded descent on
        log gamma^2, at most a factor 10 per step, :func:`fast.snc._descend_log_gamma2`), so the estimator and the
        function find the same gamma^2 from the same start (the old box-bounded L-BFGS-B, +-log 100, did not)."""
        return snc._optimise_gamma2(X, codes, Z0, zl, gamma2, max_iter=max_iter, tol=tol)

    def _choose_gamma2(self, X, codes, m, rng, max_iter, tol):
        n = X.shape[0]
        idx = snc.class_proportional_init(codes, m, np.random.default_rng(rng.integers(2**31)))
        sub = rng.permutation(n)[:_MEDIAN_POINTS]  # drawn for a float gamma2 too: seeded fits keep their stream
        if self.gamma2 != "cv":
            return float(self.gamma2), None  # the median is only needed for the grid
        med = _median_sqdist(X[sub[:max(1, min(sub.size, _MEDIAN_PAIRS // max(1, idx.size)))]], X[idx])
        grid = [g / med for g in GAMMA2_GRID]
        # stratified hold-out (classes with a single input stay in the fitting part)
        hold = np.zeros(n, dtype=bool)
        for c in np.unique(codes):
            members = np.flatnonzero(codes == c)
            if members.size >= 2:
                take = max(1, int(round(0.2 * members.size)))
                hold[rng.choice(members, size=take, replace=False)] = True
        fit_part = ~hold
        n_fit = int(fit_part.sum())
        C = np.unique(codes[fit_part]).size
        if not hold.any() or C < np.unique(codes).size:
            return grid[1], None
        m_fit = min(n_fit, max(C, int(round(m * n_fit / n))))
        errors = []
        seed = int(rng.integers(2**31))
        for g in grid:
            fit = self._fit_once(X[fit_part], codes[fit_part], m_fit, g, np.random.default_rng(seed),
                                 max(1, max_iter // 4), tol)
            predicted = snc.snc_predict(_transform(fit.Z, fit.A), fit.z_labels, _transform(X[hold], fit.A))
            errors.append(float(np.mean(predicted != codes[hold])))
        best = int(np.argmin(errors))  # first minimum: the smaller gamma^2 on ties
        return grid[best], dict(zip(grid, errors))

    # ----------------------------------------------------------------------------------------------------- API
    def fit(self, X, y):
        """Learn the compressed reference set.

        Parameters
        ----------
        X : array-like (n, d)
            Training inputs (finite).
        y : array-like (n,)
            Class labels (at least two classes).

        Returns
        -------
        self : SNCClassifier

        Raises
        ------
        ValueError
            See the class docstring.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(4, 1, (20, 2))]); y = np.repeat([0, 1], 20)
        >>> clf = SNCClassifier(compression=2, gamma2=0.5, max_iter=20, random_state=0).fit(X, y)
        >>> clf.compressed_set_[0].shape, clf.compressed_set_[1].tolist()  # two references, one per class
        ((2, 2), [0, 1])
        """
        max_iter, tol = self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        C = self.classes_.size
        if C < 2:
            raise ValueError(f"SNCClassifier needs at least 2 classes in y, got 1 class ({self.classes_[0]!r})")
        n = X.shape[0]
        m = check_compression(self.compression, n, C)
        if self.k > m:
            raise ValueError(f"k = {self.k} exceeds the {m} references of the compressed set")
        rng = _generator(self.random_state)
        gamma2, self.cv_errors_ = self._choose_gamma2(X, codes, m, rng, max_iter, tol)
        callback = None
        if self.progress:
            def callback(phase, it, loss):
                if it % 10 == 0:
                    print(f"SNC {phase} iteration {it}: loss {loss:.6g}", file=sys.stderr)
        fit = self._fit_once(X, codes, m, gamma2, rng, max_iter, tol, callback=callback)
        self.compressed_set_ = (fit.Z, self.classes_[fit.z_labels])
        self._z_codes = fit.z_labels
        self.gamma2_ = float(fit.gamma2)
        self.A_ = fit.A
        self.loss_path_ = fit.losses
        self.n_iter_ = int(fit.n_iter)
        self.n_references_ = int(m)
        return self

    def _queries(self, X):
        """(references, queries) in the space where the k-NN rule runs (after A for a diagonal / full metric)."""
        check_is_fitted(self, "compressed_set_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return _transform(self.compressed_set_[0], self.A_), _transform(X, self.A_)

    def predict_proba(self, X):
        """Share of the k nearest references in each class.

        Parameters
        ----------
        X : array-like (n, d)

        Returns
        -------
        ndarray (n, n_classes)
            Rows sum to 1 (one-hot for k = 1).

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(4, 1, (20, 2))]); y = np.repeat([0, 1], 20)
        >>> clf = SNCClassifier(compression=4, gamma2=0.5, k=3, max_iter=20, random_state=0).fit(X, y)
        >>> clf.predict_proba([[0.0, 0.0], [4.0, 4.0]]).round(3).tolist()  # votes of the 3 nearest of 4 references
        [[0.667, 0.333], [0.333, 0.667]]
        """
        Zt, Xt = self._queries(X)
        proba = np.empty((Xt.shape[0], self.classes_.size))
        for start, stop, idx in snc._knn_blocks(Zt, Xt, self.k):  # the neighbours snc_predict votes with
            proba[start:stop] = snc._tally(self._z_codes[idx], self.classes_.size) / self.k
        return proba

    def predict(self, X):
        """Majority label of the k nearest references (:func:`fast.snc.snc_predict`: exact distances, the lowest
        reference index among equally near ones, vote ties to the first class in ``classes_``).

        Parameters
        ----------
        X : array-like (n, d)

        Returns
        -------
        ndarray (n,)

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(4, 1, (20, 2))]); y = np.repeat([0, 1], 20)
        >>> clf = SNCClassifier(compression=2, gamma2=0.5, max_iter=20, random_state=0).fit(X, y)
        >>> clf.predict([[0.0, 0.0], [4.0, 4.0]]).tolist()
        [0, 1]
        """
        Zt, Xt = self._queries(X)
        return self.classes_[snc.snc_predict(Zt, self._z_codes, Xt, self.k)]
