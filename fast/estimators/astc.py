"""ASTC estimators: trees of sparse linear predictors with test-time feature costs (kusner2016 ch. 2).

* :class:`ASTCClassifier` (binary) and :class:`ASTCRegressor` wrap :func:`fast.budgeted.fit_tree`.
* ``feature_costs``: the cost of extracting each feature at test time (default: 1 each).
* ``budget``: the most ANY input may cost at test time (the distinct features on its root-to-leaf path, each
  paid once). The tree honours it on every path: a node's greedy may spend at most
  ``min(node_budget, budget - cost already paid on its path)``.  ``None``: no bound.
* ``node_budget``: the thesis's per-node budget B for new features (default ``max(budget / depth, cheapest cost)``,
  or no bound when ``budget`` is None).
* ``depth``: 2^depth - 1 nodes (the thesis uses 5); ``soft``: ASTC, soft (sigmoid child weights in training).
* ``greedy``: each node's budgeted greedy.  ``"best_of"`` (default): the cost-benefit greedy skips a feature that does
  not fit the node's remaining budget and continues with those that do, then keeps the better (node R^2) of that
  selection and the best single affordable feature (Khuller, Moss and Naor 1999; Krause and Guestrin 2005: within
  (1 - 1/e) / 2 of the best affordable set for submodular R^2).  ``"prefix"``: the thesis's rule, the largest
  feasible prefix of the cost-benefit order, so ONE unaffordable best-ratio feature ends the node's selection: with
  Yahoo!-style costs (1 to 200) and budget 120 at depth 3 (node budget 40) a real set got a constant classifier
  (no feature at any node) from it while affordable informative features existed.

Preprocessing as the thesis (footnote of s2.1.4: "||x_j||_2 = 1 ... ||y||_2 = 1. Additionally x_j, y also have
zero mean"): columns centred and scaled to unit (weighted) l2 norm inside the estimator (``mean_``, ``scale_`` kept
for predict; constant columns are left at 0 and never selected).  The regressor likewise centres y and scales it
to unit weighted l2 norm (``y_mean_``, ``y_scale_``; a constant y keeps scale 1) and undoes it in ``predict``, so
its trees do not depend on y's units (the greedy and the hard tree are scale-free anyway; the soft variant's
sigmoid(s - theta) is not).  On the thesis's scale the node scores are O(1/sqrt(n)), so soft child weights are
close to p/2 for large n, as in the thesis.  The classifier regresses y in {-1, +1} (``classes_[1]`` is +1),
NOT re-normalised (fixed units, so nothing to be invariant to; soft splits on the +-1 scale, as the experiments in
docs/experiments/astc used), and predicts ``classes_[1]`` iff the leaf score is >= 0.
Routing at test time is hard in both variants.  A ``budget`` or ``node_budget`` below the cheapest feature is
refused (ValueError naming the argument): no input could be given any feature, the model would be constant.
"""
from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from fast import budgeted as _budgeted
from fast._contracts.budgeted_contract import (
    check_budget,
    check_budget_affords_a_feature,
    check_costs,
    check_depth,
    check_greedy,
)

__all__ = ["ASTCClassifier", "ASTCRegressor"]


class _ASTCBase(BaseEstimator):
    def __init__(self, feature_costs=None, budget=None, node_budget=None, depth=3, soft=False, greedy="best_of"):
        self.feature_costs = feature_costs
        self.budget = budget
        self.node_budget = node_budget
        self.depth = depth
        self.soft = soft
        self.greedy = greedy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    def _resolve(self, d):
        costs = np.ones(d) if self.feature_costs is None else check_costs(self.feature_costs, d, allow_zero=False,
                                                                          name="feature_costs")
        depth = check_depth(self.depth)
        budget = math.inf if self.budget is None else check_budget(self.budget)
        check_budget_affords_a_feature(budget, costs, "budget")
        if self.node_budget is None:
            node_budget = max(budget / depth, float(costs.min())) if math.isfinite(budget) else math.inf
        else:
            node_budget = check_budget(self.node_budget, "node_budget")
            check_budget_affords_a_feature(node_budget, costs, "node_budget")
        if not isinstance(self.soft, (bool, np.bool_)):
            raise TypeError(f"soft must be True or False, got {self.soft!r}")
        check_greedy(self.greedy)
        return costs, depth, budget, node_budget

    def _fit(self, X, target, sample_weight, normalise_target=False):
        n, d = X.shape
        costs, depth, budget, node_budget = self._resolve(d)
        w = _check_sample_weight(sample_weight, X) if sample_weight is not None else None
        wt = np.ones(n) if w is None else w
        if not wt.sum() > 0:
            raise ValueError("sample_weight must have a positive sum")
        self.mean_ = (wt @ X) / wt.sum()  # weighted, so integer weights = repeated rows
        scale = np.sqrt(wt @ (X - self.mean_) ** 2)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        Xs = (X - self.mean_) / self.scale_
        if normalise_target:  # the thesis's footnote: zero mean, unit l2 norm (weighted: = repeated rows)
            self.y_mean_ = float(wt @ target) / wt.sum()
            y_scale = math.sqrt(float(wt @ (target - self.y_mean_) ** 2))
            self.y_scale_ = y_scale if y_scale > 0 else 1.0
            target = (target - self.y_mean_) / self.y_scale_
        self.tree_ = _budgeted.fit_tree(Xs, target, costs, depth, node_budget, budget=budget, soft=bool(self.soft),
                                        sample_weight=w, greedy=self.greedy)
        self.feature_costs_ = costs
        self.budget_ = budget
        self.node_budget_ = node_budget
        imp = np.zeros(d)
        total = self.tree_.weight[0]
        for k, (feats, gains) in enumerate(zip(self.tree_.features, self.tree_.gains)):
            for j, g in zip(feats, gains):
                imp[j] += self.tree_.weight[k] / total * g
        self.feature_importances_ = imp / imp.sum() if imp.sum() > 0 else imp
        return self

    def _route(self, X, with_value=False):
        """(leaf, leaf score) of each row: X validated, standardised by (X - mean_) / scale_ inside the routing pass
        (fast.budgeted._route: no (n, d) temporary; each node reads only its selected features)."""
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False)
        return _budgeted._route(self.tree_, X, with_value=with_value, mean=self.mean_, scale=self.scale_,
                                check_finite=False)  # validate_data refused NaN and inf

    def _decision(self, X):
        return self._route(X, with_value=True)[1]

    def predict_cost(self, X):
        """Test-time cost of each row: distinct features selected on its path, each paid once.

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        ndarray of shape (n,)
            Every value is <= ``budget``.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0); X = rng.normal(size=(100, 3))
        >>> reg = ASTCRegressor(feature_costs=[1, 1, 4], budget=2, depth=2).fit(X, X[:, 0] - X[:, 1])
        >>> reg.predict_cost(X[:5]).tolist()  # features 0 and 1 on every path: cost 1 + 1
        [2.0, 2.0, 2.0, 2.0, 2.0]
        """
        return np.take(self.tree_.leaf_cost, self._route(X)[0])

    def apply(self, X):
        """Leaf index (0 .. 2^(depth-1) - 1) of each row.

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        ndarray of int64, shape (n,)

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0); X = rng.normal(size=(100, 3))
        >>> reg = ASTCRegressor(feature_costs=[1, 1, 4], budget=2, depth=2).fit(X, X[:, 0] - X[:, 1])
        >>> reg.apply(X[:5]).tolist()
        [1, 1, 1, 0, 0]
        """
        return self._route(X)[0]


class ASTCClassifier(ClassifierMixin, _ASTCBase):
    """Approximately submodular tree of classifiers (kusner2016 s2.1.5, Algorithm 1), binary.

    Parameters
    ----------
    feature_costs : array-like of shape (n_features,), optional
        Test-time cost of each feature, > 0 (default 1 each).
    budget : float, optional
        Bound on the test-time cost of every input (None: no bound); must be >= the cheapest feature cost.
    node_budget : float, optional
        The thesis's per-node budget B for new features (default ``max(budget / depth, cheapest cost)``); must be
        >= the cheapest feature cost.
    depth : int, default 3
        Tree depth D (2^D - 1 nodes).
    soft : bool, default False
        ASTC, soft: sigmoid child weights in training.
    greedy : {"best_of", "prefix"}, default "best_of"
        Each node's budgeted greedy: "best_of" continues with the features that still fit and keeps the better of
        that set and the best single affordable feature (Khuller-Moss-Naor; constant-factor guarantee); "prefix" is
        the thesis's largest feasible prefix (one unaffordable best-ratio feature ends the node's selection).

    Attributes
    ----------
    classes_, tree_ (a :class:`spec.budgeted_contract.TreeModel`), feature_importances_ (weighted R^2 gains,
    summing to 1), mean_, scale_, feature_costs_, budget_, node_budget_.

    Raises
    ------
    ValueError
        On costs <= 0, a budget or node_budget below the cheapest feature, depth < 1, an unknown greedy, NaN, more
        than two classes.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = ASTCClassifier(budget=5, depth=3).fit(X, y)
    >>> bool(clf.predict_cost(X).max() <= 5)
    True
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the tree.

        Parameters
        ----------
        X : array-like of shape (n, d)
        y : array-like of shape (n,), two classes
        sample_weight : array-like of shape (n,), optional

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If ``y`` does not hold exactly two classes, or ``X`` / ``y`` or a parameter is invalid.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0); X = rng.normal(size=(100, 3))
        >>> y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
        >>> clf = ASTCClassifier(feature_costs=[1, 1, 4], budget=2, depth=2).fit(X, y)
        >>> clf.tree_.features  # the features chosen at each node (root first)
        ((0,), (0, 1), (0, 1))
        """
        X, y = validate_data(self, X, y, y_numeric=False)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) != 2:
            raise ValueError(f"Only binary classification is supported: ASTCClassifier needs exactly two classes "
                             f"in y, got {len(self.classes_)} class(es)")
        target = np.where(y == self.classes_[1], 1.0, -1.0)
        return self._fit(X, target, sample_weight)

    def predict(self, X):
        """Class of each row: ``classes_[1]`` iff the leaf score is >= 0.

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0); X = rng.normal(size=(100, 3))
        >>> y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
        >>> clf = ASTCClassifier(feature_costs=[1, 1, 4], budget=2, depth=2).fit(X, y)
        >>> clf.predict(X[:5]).tolist()
        [1, 1, 1, 0, 0]
        """
        scores = self.decision_function(X)
        return self.classes_[(scores >= 0).astype(int)]

    def decision_function(self, X):
        """Leaf score b + x^T beta of each row (> 0 leans to ``classes_[1]``).

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0); X = rng.normal(size=(100, 3))
        >>> y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
        >>> clf = ASTCClassifier(feature_costs=[1, 1, 4], budget=2, depth=2).fit(X, y)
        >>> clf.decision_function(X[:3]).round(3).tolist()
        [0.22, 0.09, 1.167]
        """
        return self._decision(X)


class ASTCRegressor(RegressorMixin, _ASTCBase):
    """Tree of sparse least-squares predictors under a test-time feature budget (kusner2016 s2.1.5).

    Parameters
    ----------
    feature_costs, budget, node_budget, depth, soft, greedy
        As :class:`ASTCClassifier`.

    Attributes
    ----------
    tree_ (fitted on the normalised y), feature_importances_, mean_, scale_, y_mean_, y_scale_ (y's weighted mean
    and centred l2 norm: predictions are ``y_mean_ + y_scale_ * leaf score``), feature_costs_, budget_,
    node_budget_.

    Raises
    ------
    ValueError
        On costs <= 0, a budget or node_budget below the cheapest feature, depth < 1, an unknown greedy, NaN.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(200, 4))
    >>> reg = ASTCRegressor(feature_costs=[1, 1, 5, 5], budget=2, depth=2).fit(X, X[:, 0] - X[:, 1])
    >>> sorted(set(reg.tree_.features[0]))
    [0]
    """

    def fit(self, X, y, sample_weight=None):
        """Fit the tree.

        Parameters
        ----------
        X : array-like of shape (n, d)
        y : array-like of shape (n,)
        sample_weight : array-like of shape (n,), optional

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0); X = rng.normal(size=(100, 3))
        >>> reg = ASTCRegressor(feature_costs=[1, 1, 4], budget=2, depth=2).fit(X, X[:, 0] - X[:, 1])
        >>> reg.tree_.features  # the features chosen at each node (root first)
        ((0,), (0, 1), (0, 1))
        """
        X, y = validate_data(self, X, y, y_numeric=True)
        return self._fit(X, np.asarray(y, dtype=np.float64), sample_weight, normalise_target=True)

    def predict(self, X):
        """Leaf prediction of each row.

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0); X = rng.normal(size=(100, 3))
        >>> reg = ASTCRegressor(feature_costs=[1, 1, 4], budget=2, depth=2).fit(X, X[:, 0] - X[:, 1])
        >>> reg.predict(X[:3]).round(3).tolist()  # y = x0 - x1 is linear: recovered exactly
        [0.258, 0.641, 0.357]
        """
        scores = self._decision(X)  # checks fitted first
        return self.y_mean_ + self.y_scale_ * scores  # undo the normalisation of y
