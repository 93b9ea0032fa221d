"""scikit-learn estimators learning linear classifiers from Rademacher observations (rados).

* :class:`RadoBoostClassifier`: RadoBoost (nock2015 Algorithm 1, weak learners strong / prudential / median).
* :class:`OmegaRAdaBoostClassifier`: Omega-R.AdaBoost (nock2016 Algorithm 1) with a regulariser.

``fit(X, y)`` maps the two classes to {-1, +1} (``classes_[1]`` is +1), z-scores the features and appends a
constant one (non-private defaults, measured: docs/dp_rados.md), draws ``n_rados`` signatures (fixed support
``support`` = m*, nock2015 eq. 18, 3 by default; None: uniform on Sigma_m as in the papers, whose configuration is
``RadoBoostClassifier.nock2015()`` / ``OmegaRAdaBoostClassifier.nock2016()``), computes the rados and boosts on them.  With
``privacy=source`` (a :class:`fast.dp_rados.RadoSource`: ``fast.dp_rados.dp_feat`` or ``gaussian_edges``, each
given the TOTAL (epsilon, delta)) the rados come from the source instead, under the privacy contract
(``spec/privacy_contract.py``): the source's ``privacy_spent(m, n)`` is computed (and a void or over-budget request
refused) before the data is read; the private randomness comes from OS entropy whatever ``random_state`` says
(``random_state`` seeds only non-private randomness: the signatures of plain rados, the fixed-support signatures
drawn from already-noisy edges, the random weak learner); ``insecure_noise_seed`` (tests only, warns) makes it
reproducible; the fitted object reports ``privacy_spent_``.  ``fit_rados(rados, classes=...)`` serves a party that
received only rados: the examples are never needed; prediction uses ``sign(theta . x)`` on raw observations.

The label set is PUBLIC input (issue 25): ``classes=(negative, positive)`` is a constructor parameter, REQUIRED with
``privacy`` set (unless y has bool dtype: (False, True)).  Reading the classes from y (``np.unique``) let one record
decide the fit: with one row holding the only positive label, D gave two classes and succeeded while the neighbour
D' (that label replaced) gave one class and raised ValueError, every time, so success or failure revealed the label
with certainty, and ``classes_`` released the label set.  Even a default inferred from {0, 1} / {-1, +1} leaks (a
lone 0 among 1s decides whether ``classes_`` is (0, 1)).  With ``classes`` given, ``classes_`` is exactly the pair,
y == classes[1] is +1 and EVERY other value (classes[0], values outside the pair, NaN, None, other types) is -1,
and nothing the fit does before the rados are released (success, exceptions, warnings, messages, the work before the
first noise draw) depends on which labels occur (``spec.labels_contract``).  Without ``privacy`` and without
``classes`` the fit reads the two classes from y as before (``np.unique``).  Three or more classes (declared, or
read from y without ``privacy``) are learned one-vs-rest (``fast/estimators/_multiclass.py``): k binary fits on the
same rows, the source's budget split evenly over them (basic composition), charged once.

``predict_proba`` uses the logistic link p(+1 | x) = 1 / (1 + exp(-theta . x)): by nock2015 Lemma 2 the
exponential rado risk over all rados is a monotone transform of the logistic loss over examples,
F_log(S, theta) = log 2 + (1/m) log F^r_exp(S, theta, Sigma_m), whose probability model is exactly that link.

``keep_best=True`` (default, as in both papers' experiments) keeps the iterate theta_t (t = 0..T) that minimises
the empirical loss the booster minimises: the exponential rado risk on the training rados (RadoBoost) or the
regularised exponential rado loss (Omega-R.AdaBoost).
"""
from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from fast import _dask
from fast import radoboost as _rb
from fast import rados as _rados
from fast.labels import _column, check_classes, classes_array, declared_classes, declared_pm1
from fast._contracts import radoboost_contract as _contract
from fast._contracts.budget_ledger import private_release
from fast._contracts.privacy_contract import charge_fit, refuse_seeded_charge, reported_spent
from fast._contracts.validation import as_float_matrix, check_int
from fast.estimators import _multiclass

__all__ = ["RadoBoostClassifier", "OmegaRAdaBoostClassifier"]  # and the constants below (not in __all__: no functions)

#: values of ``scaling``
SCALINGS = ("auto", "standard", "none")
#: nock2015 s4's configuration (``RadoBoostClassifier.nock2015()``): uniform signatures (Sigma_r = Sigma_m),
#: n = min(1000, m/2) rados, T = 1000, the strong weak learner, kappa = 1, sign(theta . x) on the features as given
NOCK2015_PARAMS = {"n_rounds": 1000, "n_rados": None, "support": None, "weak_learner": "strong", "kappa": 1.0,
                   "fit_intercept": False, "scaling": "none"}
#: nock2016 s5's configuration (``OmegaRAdaBoostClassifier.nock2016()``): n = the training fold's size (10000 above
#: m = 40000) uniform rados, the preference weak learner, no ridge clamp (the regulariser and omega are the caller's: nock2016 picks omega in {10^-u})
NOCK2016_PARAMS = {"n_rounds": 1000, "n_rados": "nock2016", "support": None, "weak_learner": "preference", "gamma": None,
                   "fit_intercept": False, "scaling": "none"}


def _check_random_state(random_state) -> None:
    """Refuse anything but None, an int, a RandomState or a Generator (without drawing from it)."""
    if random_state is None or isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return
    raise ValueError(f"random_state must be None, an int, a RandomState or a Generator, got {random_state!r}")


def _generator(random_state) -> np.random.Generator:
    """sklearn's random_state (None, int, RandomState, Generator) as a numpy Generator."""
    _check_random_state(random_state)
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.int64))
    return np.random.default_rng(int(random_state))


class _RadoClassifierBase(ClassifierMixin, BaseEstimator):
    """Shared fit / predict machinery; subclasses define ``_validate_booster_params()``, ``_boost(rados, rng)`` and
    ``_select_loss(result)``."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = _multiclass.multi_class_tag(self)  # one-vs-rest unless a declared pair
        # a private fit (a source with a public domain) reads NaN, inf and non-numbers (a str) into that domain, in
        # fit and predict (issue 25: one record's value must not decide whether the fit fails), never refuses them
        tags.input_tags.allow_nan = tags.input_tags.string = self._domain() is not None
        return tags

    def _domain(self):
        """The private source's map into its public domain (``RadoSource.in_domain``), or None (no privacy, or a
        callable source that declares none)."""
        return getattr(getattr(self, "privacy", None), "in_domain", None)

    # ------------------------------------------------------------------ fitting
    def _validate_params(self) -> None:
        """Every hyper-parameter, checked at fit time (scikit-learn: never in __init__), before any rado is drawn:
        the same rules and messages as fast.radoboost (spec.radoboost_contract), with the estimator's names."""
        check_int(self.n_rounds, "n_rounds", minimum=0)
        if self.n_rados is not None and not (isinstance(self.n_rados, str) and self.n_rados == "nock2016"):
            check_int(self.n_rados, "n_rados", minimum=1)
        if self.support is not None:
            check_int(self.support, "support", minimum=1)
        for name in ("keep_best", "progress"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not (isinstance(self.fit_intercept, (bool, np.bool_)) or
                (isinstance(self.fit_intercept, str) and self.fit_intercept == "auto")):
            raise TypeError(f"fit_intercept must be True, False or 'auto', got {self.fit_intercept!r}")
        if not (isinstance(self.scaling, str) and self.scaling in SCALINGS):
            raise ValueError(f"scaling must be one of {SCALINGS}, got {self.scaling!r}")
        from fast.dp_rados import RadoSource

        if self.privacy is not None and not isinstance(self.privacy, RadoSource):
            raise TypeError("privacy must be None or a fast.dp_rados.RadoSource (dp_feat(...) or "
                            f"gaussian_edges(...), which carry their privacy guarantee), got {self.privacy!r}")
        if self.privacy is not None and self.scaling == "standard":
            raise ValueError("scaling='standard' reads the training data's mean and standard deviation, which is not "
                             "private: with privacy set use scaling='auto' or 'none' and map the features from "
                             "DECLARED bounds first (fast.preprocessing.PublicScaler)")
        seed = self.insecure_noise_seed
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
            raise ValueError(f"insecure_noise_seed must be None or an int >= 0, got {seed!r}")
        _check_random_state(self.random_state)
        if self.classes is not None:
            check_classes(self.classes)  # before the data is read
        self._validate_booster_params()

    def _intercept(self, *, rados: bool = False) -> bool:
        """``fit_intercept`` resolved: 'auto' is True for a non-private ``fit`` and False otherwise: with ``privacy``
        (measured: the noisy constant coordinate, the label balance, pulls the noisy fit to the majority class --
        spambase at epsilon 16: 16.1 % error without, 39.4 % = majority with; DP-Feat releases one column alone) and
        in ``fit_rados`` (rados from elsewhere carry a constant column only when the caller says so)."""
        if isinstance(self.fit_intercept, str):
            return not rados and self.privacy is None
        return bool(self.fit_intercept)

    def _standardise(self) -> bool:
        """``scaling`` resolved: 'auto' standardises without privacy only (a private fit may use public bounds alone)."""
        return self.scaling == "standard" or (self.scaling == "auto" and self.privacy is None)

    def _n_rados(self, m: int) -> int:
        if self.n_rados is None:
            return max(1, min(1000, m // 2))  # nock2015 s4: n = min(1000, training fold / 2)
        if isinstance(self.n_rados, str):  # "nock2016" (s5): the training fold's size, 10000 above m = 40000
            return m if m <= 40000 else 10000
        return int(self.n_rados)

    def _ovr_share(self, k):
        """This binary clone (``fast.estimators._multiclass``, one-vs-rest over k classes) with its source's TOTAL
        (epsilon, delta) scaled to the largest doubles <= 1/k of it (basic composition over the k fits)."""
        from fast._contracts.privacy_contract import exact_share

        src = self.privacy
        if src is not None:
            if not hasattr(src, "epsilon") or not hasattr(src, "delta"):
                raise ValueError(f"privacy={src!r} holds no (epsilon, delta) to split over the k = {k} classes of "
                                 "a one-vs-rest fit: use gaussian_edges(...) or dp_feat(...)")
            src = type(src)(**{**src._params(), "epsilon": exact_share(src.epsilon, k),
                               "delta": exact_share(src.delta, k)})
        return self.set_params(privacy=src), "basic"

    @_multiclass.ovr_fit  # classes of k >= 3 labels (or read from y without privacy): one-vs-rest
    @private_release
    def fit(self, X, y, *, accountant=None):
        """Draw n_rados rados from (X, y) (uniform signatures, fixed support ``support``, or ``privacy``) and boost
        on them (nock2015 s4 protocol).

        Parameters
        ----------
        X : array-like of shape (m, d)
        y : array-like of shape (m,)
            With ``classes`` (or ``privacy``) set: any labels, +1 where y == classes[1] and -1 for every other value
            (the declared label set is public; nothing depends on which labels occur).  Otherwise exactly two
            classes, read from y; ``classes_[1]`` is mapped to +1.
        accountant : None or a ledger of fast.accounting (BudgetAccountant, ZCDPAccountant)
            With ``privacy`` set: charged ``privacy_spent_`` before any noise is drawn (BudgetExceeded, nothing
            drawn, if it does not fit).  A fit argument, not a parameter: ``clone`` would copy a parameter's ledger.

        Returns
        -------
        self

        Raises
        ------
        ValueError, TypeError
            A bad parameter, ``privacy`` set without ``classes`` (unless y has bool dtype), or a void / over-budget
            privacy request (before the data is read), bad data (X; y's schema: 1-d, one label per row).

        Examples
        --------
        >>> import numpy as np
        >>> from fast.estimators.rados import RadoBoostClassifier
        >>> gen = np.random.default_rng(0)
        >>> X = gen.normal(size=(200, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> clf = RadoBoostClassifier(50, random_state=0).fit(X, y)
        >>> clf.classes_.tolist(), clf.score(X, y)
        (['no', 'yes'], 0.95)
        """
        from fast import _dask

        if _dask.is_dask_collection(X):  # rados on the cluster, boosting here (fast/estimators/_distributed_rados.py)
            from fast.estimators import _distributed

            return _distributed.radoboost_fit(self, X, y, accountant=accountant)
        self._validate_params()
        refuse_seeded_charge(self.insecure_noise_seed, accountant)  # a seeded fit is not private: nothing to charge
        if self.privacy is not None or self.classes is not None:
            # the declared label set (issue 25): the pair is public, checked before the data is read (from the
            # parameters and y's dtype alone); y's values only ever pick +1 (== classes[1]) or -1 (anything else).
            # No check, warning or message below reads which labels occur, and the work done before the source's
            # first noise draw (clipping, y_i x_i, rounding to the grid) is the same for every labelling of the
            # same size: test_private_labels.py spies the mechanism calls on neighbouring label sets.
            pair = declared_classes(self.classes, y)
            if self._domain() is not None:  # the source maps X's values into its public domain (issue 25): only
                # the names and shape are checked here, never one value (a list is read element by element)
                X = validate_data(self, np.asarray(X, dtype=object) if isinstance(X, (list, tuple)) else X,
                                  dtype=None, ensure_all_finite=False)
            else:
                X = validate_data(self, X, dtype=np.float64)
            y_pm = declared_pm1(_column(y), pair, n=X.shape[0])
            classes = classes_array(pair)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64)
            check_classification_targets(y)
            classes = np.unique(y)
            if classes.size != 2:
                raise ValueError(
                    f"Only binary classification is supported: {type(self).__name__} needs exactly 2 classes in y, "
                    f"got {classes.size} class{'es' if classes.size != 1 else ''}")
            y_pm = np.where(y == classes[1], 1, -1).astype(np.int8)
        mean = scale = None
        if self._standardise():  # non-private only (refused with privacy): z-scores of the training data
            with np.errstate(over="ignore", invalid="ignore"):  # a column near the float limit: left as it is
                mean = X.mean(axis=0)
                scale = X.std(axis=0)
            ok = np.isfinite(mean) & np.isfinite(scale) & (scale > 0)
            mean, scale = np.where(ok, mean, 0.0), np.where(ok, scale, 1.0)
            X = (X - mean) / scale
        intercept = self._intercept()
        if intercept:  # a constant feature 1: each rado gains the coordinate sum_{i : sigma_i = y_i} y_i
            X = np.column_stack([X, np.ones(X.shape[0])])
        n = self._n_rados(X.shape[0])
        spent = None if self.privacy is None else self.privacy.privacy_spent_for_fit(X.shape[0], n, X.shape[1])  # before any draw
        # the release's expected noise against its largest signal, from public quantities only (m, d, the source's
        # parameters): reported, and NoiseDominatesWarning when it makes learning hopeless (never reads a value of X)
        report = None if self.privacy is None else self.privacy.noise_report(X.shape[0], X.shape[1])
        from fast.dp_rados import DPFeatSource

        if isinstance(self.privacy, DPFeatSource) and X.shape[1] > 1:
            raise ValueError(
                f"privacy={self.privacy!r} cannot protect a fit on {X.shape[1]} features: DP-Feat's guarantee covers "
                "the j*-coordinate of each rado ALONE; the other coordinates (exact sums the fit uses) identify the "
                "signatures and with them the protected values (one rado, m = 8, epsilon 2: delta 0.50 for the "
                "whole rado against 0.031 for its j*-coordinate, tests/test_privacy_surface.py), so privacy_spent_ "
                "would be false; use gaussian_edges(...) (every example protected), or X = the protected column only")
        if spent is not None:  # the exact delivered fractions; refuses before any noise; no accountant: the default
            charge_fit(spent, accountant, self.insecure_noise_seed, label=type(self).__name__)
        if report is not None:
            from fast.dp_rados import warn_if_noise_dominates

            warn_if_noise_dominates(report, stacklevel=4)
        rng = _generator(self.random_state)
        if self.privacy is None:
            sigmas = _rados.sample_signatures(y_pm, n, rng=rng, support=self.support)
            Pi = _rados.rados(X, y_pm, sigmas)
        else:
            Pi = as_float_matrix(self.privacy(X, y_pm, n, rng, insecure_noise_seed=self.insecure_noise_seed),
                                 "rados returned by privacy")
            if Pi.shape != (n, X.shape[1]):
                raise ValueError(f"privacy returned rados of shape {Pi.shape}, expected ({n}, {X.shape[1]})")
        self._fit_on_rados(Pi, classes, rng, intercept)
        if mean is not None:  # back to the raw features: theta . (x - mean) / scale + b = coef . x + intercept
            self.coef_ = self.coef_ / scale
            self.intercept_ = self.intercept_ - self.coef_ @ mean
        self.x_mean_ = np.zeros(self.n_features_in_) if mean is None else mean
        self.x_scale_ = np.ones(self.n_features_in_) if scale is None else scale
        if report is None:
            self.__dict__.pop("noise_report_", None)
        else:
            self.noise_report_ = report
        if spent is None:
            self.__dict__.pop("privacy_spent_", None)
        else:
            self.privacy_spent_ = reported_spent(spent, self.insecure_noise_seed)  # seeded: no guarantee
        return self

    def fit_rados(self, rados, classes=None):
        """Boost on rados received from elsewhere (one per ROW).

        Parameters
        ----------
        rados : array-like of shape (n, d)
        classes : pair or None, default=None
            (negative label, positive label): what the sender's -1 and +1 stand for.  None: the estimator's
            ``classes`` parameter, else (-1, 1).

        Returns
        -------
        self (no ``privacy_spent_``: the privacy of received rados is the sender's to state)

        Raises
        ------
        ValueError
            If ``classes`` is not two distinct labels or differs from the estimator's ``classes``,
            ``fit_intercept=True`` and the rados have fewer than 2 columns, or a parameter or the rados are invalid.

        Examples
        --------
        >>> import numpy as np
        >>> from fast.estimators.rados import RadoBoostClassifier
        >>> from fast.rados import rados, sample_signatures
        >>> gen = np.random.default_rng(0)
        >>> X = gen.normal(size=(200, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
        >>> P = rados(X, y, sample_signatures(y, 100, rng=0))  # what a data holder would send
        >>> clf = RadoBoostClassifier(50).fit_rados(P, classes=(-1, 1))
        >>> clf.score(X, y)
        0.98
        """
        self._validate_params()
        Pi = as_float_matrix(rados, "rados")
        intercept = self._intercept(rados=True)
        if intercept and Pi.shape[1] < 2:
            raise ValueError("with fit_intercept=True the rados' last column is the constant feature's coordinate: "
                             f"they need at least 2 columns, got {Pi.shape[1]}")
        if classes is None:
            classes = (-1, 1) if self.classes is None else self.classes
        elif self.classes is not None and tuple(check_classes(classes)) != tuple(check_classes(self.classes)):
            raise ValueError(f"classes={classes!r} differs from the estimator's classes={self.classes!r}: give one")
        classes = classes_array(classes)
        self.n_features_in_ = Pi.shape[1] - 1 if intercept else Pi.shape[1]
        if hasattr(self, "feature_names_in_"):  # left by an earlier fit on a DataFrame: rados carry no names
            del self.feature_names_in_
        for name in ("privacy_spent_", "noise_report_", "x_mean_", "x_scale_"):
            self.__dict__.pop(name, None)  # rados from elsewhere: their privacy is the sender's to state
        return self._fit_on_rados(Pi, classes, _generator(self.random_state), intercept)

    def _fit_on_rados(self, Pi, classes, rng, intercept):
        result = self._boost(Pi, rng)
        loss = self._select_loss(result)
        theta = result.theta
        self.best_iteration_ = int(result.features.size)
        if self.keep_best and loss.size:
            iterates = np.vstack([np.zeros((1, Pi.shape[1])), result.iterates()])
            losses = np.concatenate([[0.0], loss])  # theta_0 = 0: log-loss 0 (Omega(0) = 0)
            self.best_iteration_ = int(np.argmin(losses))  # first minimiser
            theta = iterates[self.best_iteration_]
        self.classes_ = classes
        self.result_ = result
        self.n_iter_ = int(result.features.size)
        theta = np.asarray(theta, dtype=np.float64).reshape(1, -1)
        if intercept:  # the constant feature's coefficient is the intercept
            self.coef_, self.intercept_ = theta[:, :-1].copy(), theta[0, -1:].copy()
        else:
            self.coef_, self.intercept_ = theta.copy(), np.zeros(1)
        return self

    # ------------------------------------------------------------------ prediction
    @_dask.lazy_rows
    @_multiclass.ovr_method
    def decision_function(self, X):
        """theta . x (positive: classes_[1]).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Observations (raw, as at fit).

        Returns
        -------
        numpy.ndarray of shape (k,)
            theta . x for each row.

        Examples
        --------
        >>> import numpy as np
        >>> from fast.estimators.rados import RadoBoostClassifier
        >>> gen = np.random.default_rng(0)
        >>> X = gen.normal(size=(200, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> clf = RadoBoostClassifier(50, random_state=0).fit(X, y)
        >>> np.round(clf.decision_function(X[:2]), 3)
        array([-0.066, -0.447])
        """
        check_is_fitted(self)
        theta = self.coef_[0]
        domain = self._domain()
        if domain is not None:  # a private fit reads X in its source's public domain, as the fit did (issue 25)
            Xc = domain(validate_data(self, np.asarray(X, dtype=object) if isinstance(X, (list, tuple)) else X,
                                      reset=False, dtype=None, ensure_all_finite=False))
            return Xc @ theta + self.intercept_[0]
        dense = bool(theta.all())
        # with every coefficient non-zero, a NaN or inf of X makes its row's product non-finite (IEEE; no BLAS skips a
        # non-zero coefficient): X's finiteness then follows from the scores', and scikit-learn's own pass over X
        # (a sum of all of X, as long as the product itself) runs only when a score is not finite, to raise its
        # message or to confirm that finite X overflowed.  A zero coefficient hides its column: the full check.
        try:
            Xc = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=not dense)
        except ValueError:
            Xc = validate_data(self, X, reset=False, dtype=np.float64)  # scikit-learn's order: finiteness first
        scores = Xc @ theta
        if dense and not math.isfinite(float(np.sum(scores))):
            validate_data(self, X, reset=False, dtype=np.float64)  # raises on a NaN / inf of X (X as given: same names)
        scores += self.intercept_[0]
        return scores

    @_dask.lazy_rows
    @_multiclass.ovr_method
    def predict(self, X):
        """classes_[1] where theta . x > 0, else classes_[0] (sign(theta . x) on raw observations, nock2015 s3).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Observations (raw, as at fit).

        Returns
        -------
        numpy.ndarray of shape (k,)
            Predicted labels (from ``classes_``).

        Examples
        --------
        >>> import numpy as np
        >>> from fast.estimators.rados import RadoBoostClassifier
        >>> gen = np.random.default_rng(0)
        >>> X = gen.normal(size=(200, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> clf = RadoBoostClassifier(50, random_state=0).fit(X, y)
        >>> clf.predict(X[:3]).tolist()
        ['no', 'no', 'yes']
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    @_dask.lazy_rows
    @_multiclass.ovr_method
    def predict_proba(self, X):
        """[p(classes_[0] | x), p(classes_[1] | x)] with the logistic link (nock2015 Lemma 2).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Observations (raw, as at fit).

        Returns
        -------
        numpy.ndarray of shape (k, 2)
            Probabilities of ``classes_[0]`` and ``classes_[1]``.

        Examples
        --------
        >>> import numpy as np
        >>> from fast.estimators.rados import RadoBoostClassifier
        >>> gen = np.random.default_rng(0)
        >>> X = gen.normal(size=(200, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> clf = RadoBoostClassifier(50, random_state=0).fit(X, y)
        >>> np.round(clf.predict_proba(X[:2]), 3)
        array([[0.517, 0.483],
               [0.61 , 0.39 ]])
        """
        s = self.decision_function(X)
        # expit(-s), not 1 - expit(s): the latter rounds to 0 for s > ~37 (log 0 = -inf where predict_log_proba is
        # finite: scikit-learn's check_classifiers_train compares the two)
        return np.column_stack([expit(-s), expit(s)])

    @_dask.lazy_rows
    @_multiclass.ovr_method
    def predict_log_proba(self, X):
        """log predict_proba, computed as -log(1 + exp(-+theta . x)) without overflow (nock2015 Lemma 2's link).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Observations (raw, as at fit).

        Returns
        -------
        numpy.ndarray of shape (k, 2)
            Log-probabilities of ``classes_[0]`` and ``classes_[1]``.

        Examples
        --------
        >>> import numpy as np
        >>> from fast.estimators.rados import RadoBoostClassifier
        >>> gen = np.random.default_rng(0)
        >>> X = gen.normal(size=(200, 3))
        >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
        >>> clf = RadoBoostClassifier(50, random_state=0).fit(X, y)
        >>> bool(np.allclose(np.exp(clf.predict_log_proba(X[:2])), clf.predict_proba(X[:2])))
        True
        """
        s = self.decision_function(X)
        return np.column_stack([-np.logaddexp(0.0, s), -np.logaddexp(0.0, -s)])


class RadoBoostClassifier(_RadoClassifierBase):
    """RadoBoost (nock2015 Algorithm 1) as a scikit-learn classifier.

    Parameters
    ----------
    n_rounds : int
        T (default 1000).
    n_rados : None, int or "nock2016"
        None: min(1000, m/2) as in nock2015 s4; "nock2016": m (10000 above m = 40000), nock2016 s5.
    support : None or int, default=3
        None: uniform signatures (the papers); an int m*: fixed-support rados (eq. 18).  3 is measured
        (docs/dp_rados.md): on 8 real sets uniform signatures sit at the majority error wherever m is large (Adult
        25.0 %, cod-rna 33.4 %) and support 3 comes within 1.2 points of LogisticRegression on 7 of them.  Unused
        with ``privacy`` (the source's own support applies).
    weak_learner : {"strong", "prudential", "median", "random"}
    lambda_p, kappa : float
        Prudential threshold; kappa of eq. 17.
    keep_best : bool
        Keep the iterate of least training rado risk.
    privacy : None or fast.dp_rados.RadoSource
        ``dp_feat(feature, epsilon, delta)`` or ``gaussian_edges(epsilon, delta, support)``, holding the TOTAL
        (epsilon, delta) of the fit.
    classes : None, pair or sequence of k >= 3 labels, default=None
        The PUBLIC label set ``(negative, positive)`` (two distinct hashable scalars): ``classes_`` is exactly this
        pair, y == classes[1] is +1 and every other value is -1 ("anything that is not the positive class is
        negative": values outside the pair, NaN, None included; no error or warning depends on which labels
        occur).  REQUIRED with ``privacy`` set, unless y has bool dtype ((False, True)): reading the label set
        from y would let one record decide ``classes_`` and whether the fit succeeds (module docstring).  Without
        ``privacy``, None reads the classes from y (``np.unique``).  k >= 3 distinct labels: one-vs-rest, one
        binary fit per class on all rows with 1/k of the source's (epsilon, delta) each (every row is in all k
        fits: basic composition); a value outside the declared set is in the rest of every problem.
    random_state : None, int, RandomState or Generator
        Non-private randomness only (signatures of plain rados, fixed-support signatures of noisy edges, the
        random weak learner); the privacy noise reads OS entropy whatever it is.
    insecure_noise_seed : None or int
        None (the only private value).  An int makes the privacy noise reproducible and the output NOT private
        (tests only; warns InsecureNoiseWarning): ``privacy_spent_`` then reports no guarantee (epsilon = inf,
        delta = 1, with the reason), and ``fit(..., accountant=...)`` is refused (ValueError, before anything is
        drawn).
    progress : bool
        A tqdm bar.
    fit_intercept : bool or "auto", default="auto"
        "auto": True for a non-private ``fit``, False with ``privacy`` (measured: with Gaussian edges the noisy
        constant coordinate pulls the fit to the majority class, spambase at epsilon 16: 16.1 % error without,
        39.4 % with; DP-Feat releases its one column alone) and in ``fit_rados``.
        False (the papers' setting): the classifier is sign(theta . x), no intercept.  True: a constant feature 1 is
        appended to X before the rados are computed, so every rado gains one coordinate, sum_{i : sigma_i = y_i}
        y_i = (positives minus negatives among the examples its signature agrees with); boosting treats it as any
        feature, and its coefficient is ``intercept_`` (decision function ``theta . x + intercept_``).  ``fit_rados``
        then reads the rados' LAST column as that coordinate (the sender appended the constant).  With
        ``privacy``, the constant is part of what the source releases (``gaussian_edges`` clips it with the row;
        ``dp_feat`` refuses it, as any second feature).
    scaling : {"auto", "standard", "none"}, default="auto"
        "standard": z-score the features with the training data's mean and sd before the rados are computed (the
        fitted ``coef_`` and ``intercept_`` are mapped back to the raw features); "none": the features as given;
        "auto": "standard" without ``privacy``, "none" with it.  "standard" with ``privacy`` is refused (it reads
        the data): a private fit scales from DECLARED bounds only (``fast.preprocessing.PublicScaler`` before it).

    Attributes
    ----------
    coef_, intercept_, classes_, result_, n_iter_, best_iteration_
    x_mean_, x_scale_ : numpy.ndarray of shape (n_features,)
        The standardisation applied by ``fit`` (zeros and ones when none); ``result_`` is in those units.
    privacy_spent_ : spec.privacy_contract.PrivacySpent
        With ``privacy`` set: the (epsilon, delta) of everything the fit released, the neighbouring relation and
        the accounting.
    estimators_, privacy_spent_per_class_ : list, tuple
        One-vs-rest fits only (k >= 3 classes): the k binary fits (``classes_[j]`` against the rest) and their
        spends, which compose to ``privacy_spent_``; ``coef_`` is then (k, d) and ``decision_function`` (n, k).
    noise_report_ : fast.dp_rados.NoiseReport
        With a Gaussian-edges source: the release's expected noise against its largest signal, from public
        quantities only (m, d, the budget, clip); the fit warns ``fast.dp_rados.NoiseDominatesWarning`` when its
        ``noise_to_signal`` exceeds ``fast.dp_rados.NOISE_DOMINATES_RATIO`` (docs/dp_rados.md: learning from such a
        release was measured to be hopeless).  Absent otherwise.

    Notes
    -----
    The defaults (``support=3``, ``scaling="auto"``, ``fit_intercept="auto"``) are measured on real data
    (docs/dp_rados.md, experiments/rado_defaults.py); ``RadoBoostClassifier.nock2015()`` is the papers'
    configuration.  With ``privacy=gaussian_edges(...)`` at epsilon ~ 1 the fit is at about the majority error on
    every task measured (Adult, cod-rna, covertype, letter): the release is per-record input perturbation with
    noise sd ~ 8 clip / epsilon per coordinate, and the rado risk of such rados is minimised near the centroid rule
    (docs/dp_rados.md gives the numbers; ``noise_report_`` and the warning say so from public quantities).

    The measurements below (issue 14) predate those defaults.  Choosing ``support`` and scaling the features.  Uniform signatures (``support=None``, the papers' default)
    give rados that each sum about m/2 edge vectors: they are all close to m/2 times the mean edge vector and
    tell the booster little beyond it.  Fixed-support rados (``support`` = m*, small, nock2015 eq. 18) sum m*
    edge vectors: they vary much more and carry the examples' geometry.  The one-feature weak learner compares
    features through their rados, so features on very different scales should be standardised first (with a
    scaler fit on the training fold; in a private pipeline on PUBLIC data or public bounds: a scaler fit on
    private data is not private).  Measured on banknote (UCI, m = 1372, d = 4), 5-fold stratified CV,
    ``RadoBoostClassifier(1000)``, mean accuracy over 5 seeds (CV split and ``random_state`` 0..4):

    * raw features: 0.853 with uniform signatures, 0.902 with ``support=10``;
    * standardised (StandardScaler fit on each training fold): 0.848 uniform, 0.953 with ``support=10``
      (seed 0 alone: 0.843 -> 0.957);
    * with ``fit_intercept=True`` and ``support=10``: 0.937 raw, 0.956 standardised.  With uniform signatures
      it changes nothing (0.853, 0.848): the strong weak learner then picks only the first two features (on
      the whole raw data set: feature 0 in 795 of 1000 rounds, feature 1 in 205), never the constant, so
      ``intercept_`` stays 0; with ``support=10`` it uses three of the four features and the constant (68 of
      1000 rounds).

    Examples
    --------
    >>> from fast.dp_rados import gaussian_edges
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] > 0).astype(int)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     clf = RadoBoostClassifier(50, privacy=gaussian_edges(1.0, 1e-5, 0.5), classes=(0, 1),
    ...                               random_state=0).fit(X, y)
    >>> clf.privacy_spent_.epsilon, clf.classes_.tolist()
    (1.0, [0, 1])
    >>> [w.category.__name__ for w in caught], round(clf.noise_report_.noise_to_signal, 2)
    (['NoiseDominatesWarning'], 1.0)
    """

    def __init__(self, n_rounds=1000, *, n_rados=None, support=3, weak_learner="strong", lambda_p=None,
                 kappa=1.0, keep_best=True, privacy=None, classes=None, random_state=None, insecure_noise_seed=None,
                 progress=False, fit_intercept="auto", scaling="auto"):
        self.n_rounds = n_rounds
        self.n_rados = n_rados
        self.support = support
        self.weak_learner = weak_learner
        self.lambda_p = lambda_p
        self.kappa = kappa
        self.keep_best = keep_best
        self.privacy = privacy
        self.classes = classes
        self.random_state = random_state
        self.insecure_noise_seed = insecure_noise_seed
        self.progress = progress
        self.fit_intercept = fit_intercept
        self.scaling = scaling

    @classmethod
    def nock2015(cls, **params):
        """The estimator in nock2015 s4's configuration (:data:`NOCK2015_PARAMS`: uniform signatures, no intercept,
        the features as given), with ``params`` overriding it.

        Examples
        --------
        >>> from fast.estimators.rados import RadoBoostClassifier
        >>> clf = RadoBoostClassifier.nock2015(random_state=0)
        >>> clf.support, clf.fit_intercept, clf.scaling
        (None, False, 'none')
        """
        return cls(**{**NOCK2015_PARAMS, **params})

    def _validate_booster_params(self) -> None:
        _contract.check_weak_learner(self.weak_learner, self.lambda_p)
        _contract.check_kappa(self.kappa)

    def _boost(self, Pi, rng):
        return _rb.radoboost(Pi, self.n_rounds, weak_learner=self.weak_learner, kappa=self.kappa,
                             lambda_p=self.lambda_p, rng=rng, progress=self.progress)

    def _select_loss(self, result):
        return result.log_exp_risk


class OmegaRAdaBoostClassifier(_RadoClassifierBase):
    """Omega-R.AdaBoost (nock2016 Algorithm 1) as a scikit-learn classifier.

    Parameters as :class:`RadoBoostClassifier`, plus ``regularizer`` ("none", "lasso", "ridge", "linf", "slope",
    "elastic_net"), ``omega`` (>= 0), ``gamma`` (ridge clamp, eq. 18), ``weak_learner`` ("preference",
    "half_square", "strong") and ``regularizer_params`` (e.g. {"q": 0.1} for SLOPE, {"Gamma": G} for ridge).

    Parameters
    ----------
    n_rounds : int, default=1000
        T.
    regularizer : {"none", "lasso", "ridge", "linf", "slope", "elastic_net"}, default="none"
        The regularizer Omega.
    omega : float, default=1e-3
        Regularisation strength (>= 0).
    gamma : None or float, default=None
        Ridge clamp of Omega-WL in (0, 1), eq. 18 (None: no clamp, as in the experiments).
    weak_learner : {"preference", "half_square", "strong"}, default="preference"
        The weak learner.
    regularizer_params : None or dict, default=None
        Parameters of the regularizer (e.g. ``{"q": 0.1}`` for SLOPE, ``{"Gamma": G}`` for ridge).
    n_rados, support, keep_best, privacy, classes, random_state, insecure_noise_seed, progress, fit_intercept, scaling
        As :class:`RadoBoostClassifier` (see its Notes on ``support`` and feature scaling; ``classes`` is required
        with ``privacy``).  The defaults are measured the same way (docs/dp_rados.md: Adult 25.0 -> 16.3 %,
        cod-rna 33.4 -> 7.4 %, banknote 13.4 -> 1.6 %); ``OmegaRAdaBoostClassifier.nock2016()`` is nock2016 s5's
        configuration.

    Attributes
    ----------
    coef_, intercept_, classes_, result_, n_iter_, best_iteration_, x_mean_, x_scale_
        As :class:`RadoBoostClassifier`.
    privacy_spent_ : spec.privacy_contract.PrivacySpent
        With ``privacy`` set: what the fit released.
    noise_report_ : fast.dp_rados.NoiseReport
        As :class:`RadoBoostClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.estimators.rados import OmegaRAdaBoostClassifier
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(200, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, 0)
    >>> clf = OmegaRAdaBoostClassifier(50, regularizer="lasso", omega=1e-2, random_state=0).fit(X, y)
    >>> clf.coef_.shape, clf.score(X, y) > 0.9
    ((1, 3), True)
    """

    def __init__(self, n_rounds=1000, *, regularizer="none", omega=1e-3, gamma=None, weak_learner="preference",
                 regularizer_params=None, n_rados=None, support=3, keep_best=True, privacy=None, classes=None,
                 random_state=None, insecure_noise_seed=None, progress=False, fit_intercept="auto", scaling="auto"):
        self.n_rounds = n_rounds
        self.regularizer = regularizer
        self.omega = omega
        self.gamma = gamma
        self.weak_learner = weak_learner
        self.regularizer_params = regularizer_params
        self.n_rados = n_rados
        self.support = support
        self.keep_best = keep_best
        self.privacy = privacy
        self.classes = classes
        self.random_state = random_state
        self.insecure_noise_seed = insecure_noise_seed
        self.progress = progress
        self.fit_intercept = fit_intercept
        self.scaling = scaling

    @classmethod
    def nock2016(cls, **params):
        """The estimator in nock2016 s5's configuration (:data:`NOCK2016_PARAMS`: n = the training fold's size
        (10000 above m = 40000) uniform rados, the preference weak learner, no intercept, the features as given),
        with ``params`` overriding it (the regulariser and omega: nock2016 picks omega in {10^-u, u = 0..5}).

        Examples
        --------
        >>> from fast.estimators.rados import OmegaRAdaBoostClassifier
        >>> clf = OmegaRAdaBoostClassifier.nock2016(regularizer="lasso", omega=1e-2)
        >>> clf.n_rados, clf.support, clf.fit_intercept
        ('nock2016', None, False)
        """
        return cls(**{**NOCK2016_PARAMS, **params})

    def _validate_booster_params(self) -> None:
        from fast.regularizers import get_regularizer

        regularizer, _, _, _, params = _contract.check_omega_args(self.regularizer, self.omega, self.gamma,
                                                                  self.weak_learner, self.regularizer_params)
        get_regularizer(regularizer, **params)  # its parameters (q for SLOPE, Gamma's symmetry, ...)

    def _boost(self, Pi, rng):
        return _rb.omega_radaboost(Pi, self.n_rounds, regularizer=self.regularizer, omega=self.omega,
                                   gamma=self.gamma, weak_learner=self.weak_learner,
                                   regularizer_params=self.regularizer_params, progress=self.progress)

    def _select_loss(self, result):
        return result.log_loss
