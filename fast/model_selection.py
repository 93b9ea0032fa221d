"""Private model selection (issue 26, item 4): tuning on private data is not free.

* :func:`noisy_max_select` -- report-noisy-max (Dwork-Roth 2014 Claim 3.9, non-monotone form, on the exact discrete
  Laplace of :mod:`fast.mechanisms`) over scores of bounded sensitivity, charged to a ledger once, before any draw.
* :class:`PrivateGridSearchCV` -- picks among the configurations of a private estimator: every candidate is fitted
  with its share of the budget on a training part, and one is selected by :func:`noisy_max_select` over its
  number of correct predictions on a disjoint validation part; the whole search is charged once, reported in
  ``privacy_spent_``.
* :class:`Thresholdout` -- the reusable holdout (Dwork, Feldman, Hardt, Pitassi, Reingold, Roth, Science 2015):
  adaptive statistical queries answered on a private holdout through a noisy threshold, each epoch charged; and
  :func:`thresholdout_forward_selection`, forward step-wise logistic regression driven by it (the experiment of
  winvector2015's companion post).

The guarantees are stated per entry point below and in ``docs/model_selection.md``; the claims are
``library.model_selection.*`` in ``spec/claims.d/selection.toml``.  :mod:`reference.model_selection` mirrors
:func:`noisy_max_select` and :class:`Thresholdout` (the same draws from the same seeded generator).
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
from sklearn.base import BaseEstimator

from fast import mechanisms as _mechanisms
from fast import private_boosting as _pb
from fast._contracts.boosting_contract import check_noisy_max_budget
from fast._contracts.budget_ledger import charge_release, outer_label, private_release
from fast._contracts.links import implements
from fast._contracts.privacy_contract import (PrivacySpent, charge_fit, check_total_budget, exact_share,
                                              no_guarantee, noise_rng, refuse_seeded_charge, reported_spent,
                                              to_domain)
from fast._contracts.selection_contract import (check_forward_selection, check_rows, thresholdout_calibration,
                                                training_units)
from fast._contracts.validation import as_generator, check_real

__all__ = ["noisy_max_select", "noisy_max_select_epsilon", "PrivateGridSearchCV", "Thresholdout",
           "ForwardSelection", "thresholdout_forward_selection"]


# ------------------------------------------------------------------------------------------- report-noisy-max
@implements("library.model_selection.noisy-max")
def noisy_max_select_epsilon(sensitivity, epsilon) -> Fraction:
    """epsilon_eff = 2 D / t <= epsilon, exactly (D = floor(Delta / 2^k) + 1 grid units, t = ceil(2 D / epsilon);
    ``mechanisms.laplace_grid`` at epsilon / 2)   [report-noisy-max with discrete Laplace; registry
    bun2020.s5.stump-rnm, library.model_selection.noisy-max]

    Parameters
    ----------
    sensitivity : float > 0
        Of every score (replace-one).
    epsilon : float > 0
        The requested epsilon of one selection.

    Returns
    -------
    fractions.Fraction
        The delivered (pure) epsilon, at most ``epsilon``.

    Raises
    ------
    TypeError, ValueError
        Non-positive or non-finite arguments.

    Examples
    --------
    >>> from fast.model_selection import noisy_max_select_epsilon
    >>> noisy_max_select_epsilon(1.0, 0.5) <= 0.5
    True
    """
    e, sens = check_noisy_max_budget(epsilon, sensitivity)
    grid = _mechanisms.laplace_grid(sens, e / 2.0)
    return Fraction(2 * grid.integer_sensitivity, grid.scale)


@implements("library.model_selection.noisy-max")
@private_release
def noisy_max_select(scores, *, sensitivity, epsilon, rng=None, accountant=None) -> int:
    """argmax_c (round(q_c / 2^k) + Z_c), Z_c ~ DLap(t) iid, ties to the first index: one private selection,
    charged ``noisy_max_select_epsilon(sensitivity, epsilon)`` before any draw   [Dwork-Roth 2014 Claim 3.9]

    Guarantee: when replacing one record moves EVERY score by at most ``sensitivity`` (in any directions), the
    selected index is (2D/t, 0)-DP <= (epsilon, 0)-DP (the non-monotone form of report-noisy-max needs scale 2D:
    the winner's noise threshold moves by at most 2D units).

    Parameters
    ----------
    scores : array-like of shape (c,)
        The candidates' scores (finite reals).
    sensitivity : float > 0
        The sensitivity of every score.
    epsilon : float > 0
        The budget of the selection.
    rng : None, int or numpy.random.Generator, default=None
        The PRIVATE noise's generator: None reads OS entropy (the only private choice); a seed only in tests.
    accountant : None or a ledger, default=None
        Charged the delivered epsilon (and rho = epsilon^2/2 for a zCDP ledger) before any draw; None: the
        process-wide default ledger records it.

    Returns
    -------
    int
        The selected index.

    Raises
    ------
    TypeError, ValueError
        Bad scores, sensitivity or epsilon (nothing charged).
    BudgetExceeded
        The ledger cannot pay (nothing drawn).

    Examples
    --------
    >>> from fast.accounting import BudgetAccountant
    >>> from fast.model_selection import noisy_max_select
    >>> acc = BudgetAccountant(1.0)
    >>> noisy_max_select([3, 90, 5], sensitivity=1, epsilon=0.5, accountant=acc)
    1
    >>> float(acc.spent_epsilon) <= 0.5
    True
    """
    q = _pb.as_float_vector(scores, "scores")
    eff = noisy_max_select_epsilon(sensitivity, epsilon)
    charge_release(accountant, eff, 0, eff * eff / 2, label=outer_label("noisy_max_select"))
    return _pb.report_noisy_max(q, sensitivity, epsilon, rng=rng)


# ------------------------------------------------------------------------------------------- grid search
def _rows(data, idx):
    from sklearn.utils import _safe_indexing

    return _safe_indexing(data, idx)


def _correct_count(model, X_val, y_pm, classes) -> int:
    """How many validation rows ``model`` predicts right (its prediction == classes[1] read as +1, anything else
    -1, against y mapped the same way).  Row-wise: when ``predict`` raises on the whole part, each row is predicted
    alone and a row whose prediction raises counts as wrong, so one row never moves the count by more than 1."""
    from fast.labels import declared_pm1

    n = y_pm.shape[0]
    try:
        pred = declared_pm1(np.asarray(model.predict(X_val)), classes, n=n)
        return int(np.count_nonzero(pred == y_pm))
    except Exception:  # noqa: BLE001 -- row by row: a failure is one row's
        correct = 0
        for i in range(n):
            try:
                p = declared_pm1(np.asarray(model.predict(_rows(X_val, [i]))), classes, n=1)
                correct += int(p[0] == y_pm[i])
            except Exception:  # noqa: BLE001
                pass
        return correct


def _over_grant(fitted, grid, e_k: float, d_k: float):
    """None when every fitted candidate reports (``privacy_spent_``) a guarantee within its grant (e_k, d_k), else
    the reason the search's guarantee does not hold (a candidate without ``privacy_spent_``, one reporting no
    guarantee, e.g. a bound read from the data, or more than its share).  A candidate whose fit raised released
    nothing but its failure and is not checked.  Which candidates pass depends on their parameters, not the data."""
    for cand, model in zip(grid, fitted):
        if model is None:
            continue
        spent = getattr(model, "privacy_spent_", None)
        if not isinstance(spent, PrivacySpent):
            return (f"the candidate {cand} ({type(model).__name__}) reports no privacy_spent_, so its spend is "
                    f"unknown")
        e, d = spent.exact if spent.exact is not None else (spent.epsilon, spent.delta)
        if not (math.isfinite(float(e)) and Fraction(e) <= Fraction(e_k) and Fraction(d) <= Fraction(d_k)):
            return (f"the candidate {cand} reports ({float(e):.6g}, {float(d):.3g}), beyond its share "
                    f"({e_k:.6g}, {d_k:.3g}): {spent.accounting}")
    return None


class PrivateGridSearchCV(BaseEstimator):
    """Private hyper-parameter selection: candidates fitted privately on a training part, one selected by
    report-noisy-max over its correct predictions on a disjoint validation part   [parallel composition of basic
    composition (training) and report-noisy-max (Dwork-Roth 2014 Claim 3.9)]

    The rows are split ONCE by position into a training part and a validation part (``validation_fraction`` of
    them), from n and ``random_state`` only.  Each of the K configurations of ``param_grid`` is fitted on the
    training part as a private estimator with (epsilon/K, delta/K) (its ``epsilon`` and ``delta`` parameters;
    ``exact_share``: K shares never exceed the total); the validation part scores each fitted candidate by its
    number of correct predictions c_k (an integer; a row moves every c_k by at most 1 under replace-one), and
    :func:`noisy_max_select` picks one at epsilon.

    Guarantee (replace-one, one row (x, y) of the data passed to ``fit``; n public): (epsilon, delta)-DP for
    everything the search keeps (every candidate's fit and the selected index).  Proof: the split does not depend
    on the data, so a replaced row lies in exactly one part.  In the training part it moves the K candidates' law by
    (sum eps_k, sum delta_k) <= (epsilon, delta) (basic composition) while the selection, given the candidates,
    reads only the unchanged validation part (post-processing); in the validation part the candidates' law is
    unchanged and the selection is (2D/t)-DP <= epsilon.  So the search is (max(sum eps_k, 2D/t), sum delta_k)-DP
    (parallel composition; a random split is a mixture of fixed ones).  This is what is charged (once, before any
    candidate is fitted) and reported; it holds whatever each candidate actually delivers, since a private
    estimator of this library never delivers more than it is granted -- which the search verifies: a fitted candidate
    without ``privacy_spent_``, or whose ``privacy_spent_`` exceeds its share or states no guarantee (e.g.
    ``PrivateBoostClassifier`` with ``data_norm`` read from the data), makes the search report no guarantee
    (epsilon = inf, with the reason), as the estimators do.  Under add/remove-one the positional split shifts, so
    only replace-one is offered.

    ``best_estimator_`` is the selected candidate as fitted on the training part (refitting on all rows would spend
    again, unreported).  No exact validation score is kept: ``cv_results_`` holds the parameters and which one was
    selected, nothing else.  A candidate whose fit or predict raises scores 0 and the search goes on (nothing the
    search does raises or warns because of one record; its predictions are made row by row when the whole part
    fails).  The candidates' own warnings are not passed on (one may depend on one record); when a candidate's
    ``privacy_spent_`` breaks the search's guarantee, the search warns (``PrivacyLeakWarning``) and says why.

    Parameters
    ----------
    estimator : scikit-learn estimator
        A private estimator with ``epsilon`` (and, when it takes one, ``delta``) parameters whose ``fit(X, y)``
        honours them (e.g. :class:`fast.PrivateBoostClassifier`); its ``classes`` is set to ``classes`` when it has
        that parameter.
    param_grid : dict or list of dicts
        As scikit-learn's ``ParameterGrid``; may not name ``epsilon``, ``delta``, ``rho`` or
        ``insecure_noise_seed`` (the search sets them).
    epsilon : float > 0
        The TOTAL epsilon of the search.
    delta : float in [0, 1), default=0.0
        The TOTAL delta (each candidate gets delta/K).
    classes : pair
        The public label pair ``(negative, positive)``: a prediction or label equal to ``classes[1]`` is positive,
        anything else negative (the declared label set, ``spec.labels_contract``).
    validation_fraction : float in (0, 1), default=0.25
        The share of rows (rounded down, at least 1) in the validation part.
    selection : {"noisy_max"}, default="noisy_max"
        The selection mechanism (report-noisy-max with discrete Laplace at scale 2D/epsilon).
    random_state : None or int
        Seeds the split only (non-private randomness).
    insecure_noise_seed : None or int
        TEST ONLY: seeds the selection's noise and is passed to candidates that take it; the search then reports no
        guarantee (``privacy_spent_`` epsilon = inf) and refuses an ``accountant``.

    Attributes
    ----------
    best_index_ : int
    best_params_ : dict
    best_estimator_ : estimator or None
        The selected candidate (None when its fit raised).
    cv_results_ : dict
        ``params`` (list of dicts) and ``selected`` (bool array); no scores.
    n_candidates_ : int
    classes_ : ndarray
        The declared pair.
    privacy_spent_ : PrivacySpent
        The search's total, with the breakdown in its ``accounting`` text.
    privacy_breakdown_ : dict
        ``{"training": (eps, delta), "per_candidate": (eps, delta), "selection": (eps, 0.0), "candidates": K}``
        as exact Fractions.

    Examples
    --------
    >>> import numpy as np
    >>> from fast import PrivateBoostClassifier
    >>> from fast.model_selection import PrivateGridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2)); y = (X[:, 0] > 0).astype(int)
    >>> est = PrivateBoostClassifier(weak_learner="stump", bounds=(-3.0, 3.0), n_rounds=5)
    >>> search = PrivateGridSearchCV(est, {"kappa": [0.2, 0.4]}, epsilon=4.0, delta=1e-6, classes=(0, 1),
    ...                              random_state=0).fit(X, y)
    >>> search.privacy_spent_.epsilon <= 4.0, search.best_index_ in (0, 1)
    (True, True)
    """

    _RESERVED = ("epsilon", "delta", "rho", "insecure_noise_seed")

    def __init__(self, estimator, param_grid, *, epsilon, delta=0.0, classes, validation_fraction=0.25,
                 selection="noisy_max", random_state=None, insecure_noise_seed=None):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.classes = classes
        self.validation_fraction = validation_fraction
        self.selection = selection
        self.random_state = random_state
        self.insecure_noise_seed = insecure_noise_seed

    def _candidates(self):
        from sklearn.model_selection import ParameterGrid

        try:
            grid = list(ParameterGrid(self.param_grid))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"param_grid must be a dict of lists or a list of such dicts: {exc}") from None
        if not grid:
            raise ValueError("param_grid must hold at least one configuration")
        params = self.estimator.get_params()
        if "epsilon" not in params:
            raise ValueError(f"estimator must have an 'epsilon' parameter (a private estimator of this library), "
                             f"got {type(self.estimator).__name__}")
        for cand in grid:
            bad = sorted(set(cand) & set(self._RESERVED))
            if bad:
                raise ValueError(f"param_grid may not set {bad}: the search grants each candidate its share of "
                                 f"epsilon and delta")
            unknown = sorted(set(cand) - set(params))
            if unknown:
                raise ValueError(f"param_grid names parameters {unknown} that "
                                 f"{type(self.estimator).__name__} does not have")
        return grid, params

    def _plan(self, k: int, params):
        """(total epsilon, per-candidate (eps, delta) floats, the selection's exact delivered epsilon)."""
        eps, dl = check_total_budget(self.epsilon, self.delta)
        if "delta" not in params and dl > 0:
            raise ValueError(f"delta must be 0: {type(self.estimator).__name__} has no delta parameter")
        e_k, d_k = exact_share(eps, k), exact_share(dl, k)
        if e_k <= 0:
            raise ValueError(f"epsilon = {eps!r} split over {k} candidates leaves 0 each")
        sel = noisy_max_select_epsilon(1.0, eps)
        return eps, e_k, d_k, sel

    @implements("library.model_selection.grid-search")
    @private_release
    def fit(self, X, y, accountant=None):
        """Fit every candidate on the training part, select one privately, charge the search once.

        Parameters
        ----------
        X : array-like of shape (n, d)
        y : array-like of shape (n,)
            Any labels: +1 where y == classes[1], -1 otherwise.
        accountant : None or a ledger, default=None
            Charged the search's (epsilon, delta) before any candidate is fitted (the default ledger when None).

        Returns
        -------
        self

        Raises
        ------
        TypeError, ValueError
            Bad parameters, a grid naming a budget parameter, fewer than 2 rows (before the data is read).
        BudgetExceeded
            The ledger cannot pay: nothing is fitted or drawn.

        Examples
        --------
        >>> import numpy as np
        >>> from fast import PrivateBoostClassifier
        >>> from fast.accounting import BudgetAccountant
        >>> from fast.model_selection import PrivateGridSearchCV
        >>> X = np.random.default_rng(1).normal(size=(300, 2)); y = (X[:, 1] > 0).astype(int)
        >>> acc = BudgetAccountant(2.0, 1e-5)
        >>> est = PrivateBoostClassifier(weak_learner="stump", bounds=(-3.0, 3.0), n_rounds=3)
        >>> s = PrivateGridSearchCV(est, {"kappa": [0.2, 0.3]}, epsilon=1.0, delta=1e-6, classes=(0, 1)).fit(
        ...     X, y, accountant=acc)
        >>> acc.spent_epsilon == s.privacy_spent_.exact[0] <= 1
        True
        """
        from sklearn.base import clone
        from sklearn.utils.validation import _num_samples

        from fast.labels import check_classes, classes_array, declared_pm1

        if self.selection != "noisy_max":
            raise ValueError(f"selection must be 'noisy_max', got {self.selection!r}")
        pair = check_classes(self.classes)
        frac = check_real(self.validation_fraction, "validation_fraction", low=0.0, high=1.0, low_open=True,
                          high_open=True)
        refuse_seeded_charge(self.insecure_noise_seed, accountant)
        grid, params = self._candidates()
        k = len(grid)
        eps, e_k, d_k, sel = self._plan(k, params)
        n = _num_samples(X)
        if n < 2:
            raise ValueError(f"X must have at least 2 rows (one to train, one to validate), got {n}")
        n_val = min(n - 1, max(1, math.floor(n * frac)))
        y_pm = declared_pm1(y, pair, n=n)
        train_eps, train_dl = Fraction(e_k) * k, Fraction(d_k) * k
        total_eps = max(train_eps, sel)
        spent = PrivacySpent.delivered(
            total_eps, train_dl, neighbouring=(
                "replace-one (one row (x, y) of the data passed to fit; n public; the train/validation split is by "
                "position, from n and random_state only)"),
            accounting=(f"parallel composition over the disjoint training ({n - n_val} rows) and validation "
                        f"({n_val} rows) parts: max(training {float(train_eps):.6g}, selection {float(sel):.6g}); "
                        f"training: {k} candidates at ({e_k:.6g}, {d_k:.3g}) each (basic composition, "
                        f"delta {float(train_dl):.3g}); selection: report-noisy-max over the validation correct "
                        f"counts (sensitivity 1), discrete Laplace, eps = 2D/t = {float(sel):.6g}"))
        charge_fit(spent, accountant, self.insecure_noise_seed, label=type(self).__name__)  # before any draw
        perm = np.random.default_rng(self.random_state).permutation(n)
        val_idx, tr_idx = np.sort(perm[:n_val]), np.sort(perm[n_val:])
        X_tr, y_tr, X_val = _rows(X, tr_idx), _rows(y, tr_idx), _rows(X, val_idx)
        yv = y_pm[val_idx]
        budget = {"epsilon": e_k}
        if "delta" in params:
            budget["delta"] = d_k
        if "classes" in params:
            budget["classes"] = self.classes
        if "rho" in params:
            budget["rho"] = None  # a rho set on the estimator would replace the epsilon share granted here
        if "insecure_noise_seed" in params:
            budget["insecure_noise_seed"] = self.insecure_noise_seed  # also clears a seed set on the estimator
        fitted, counts = [], np.zeros(k, dtype=np.int64)
        with warnings.catch_warnings():  # a candidate's warning may depend on one record: none leaves the search
            warnings.simplefilter("ignore")
            for i, cand in enumerate(grid):
                model = clone(self.estimator).set_params(**cand, **budget)
                try:
                    model.fit(X_tr, y_tr)  # inside this search's private_release: its charge is covered above
                except Exception:  # noqa: BLE001 -- a failed candidate scores 0; nothing is raised for one record
                    fitted.append(None)
                    continue
                fitted.append(model)
                counts[i] = _correct_count(model, X_val, yv, pair)
        seed = noise_rng(self.insecure_noise_seed)
        best = _pb.report_noisy_max(counts.astype(np.float64), 1.0, eps,
                                    rng=None if seed is None else as_generator(seed))
        self.best_index_ = int(best)
        self.best_params_ = dict(grid[best])
        self.best_estimator_ = fitted[best]
        self.n_candidates_ = k
        self.cv_results_ = {"params": [dict(c) for c in grid], "selected": np.arange(k) == best}
        self.classes_ = classes_array(pair)
        self.privacy_breakdown_ = {"training": (train_eps, train_dl), "per_candidate": (Fraction(e_k), Fraction(d_k)),
                                   "selection": (sel, Fraction(0)), "candidates": k}
        over = _over_grant(fitted, grid, e_k, d_k)
        if over is not None:  # decided by the candidates' parameters (their privacy_spent_), not by the data
            from fast.estimators.boosting import PrivacyLeakWarning

            warnings.warn(f"PrivateGridSearchCV is NOT differentially private: {over}", PrivacyLeakWarning,
                          stacklevel=3)
        self.privacy_spent_ = reported_spent(spent if over is None else no_guarantee(
            spent, over, "candidates that each report a guarantee within their share"), self.insecure_noise_seed)
        return self

    def predict(self, X):
        """The selected candidate's predictions (post-processing: no further privacy cost).

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        numpy.ndarray of shape (m,)
            Labels in the declared ``classes``.

        Raises
        ------
        AttributeError
            Not fitted.
        ValueError
            The selected candidate's fit failed (``best_estimator_`` is None).

        Examples
        --------
        >>> import numpy as np
        >>> from fast import PrivateBoostClassifier
        >>> from fast.model_selection import PrivateGridSearchCV
        >>> X = np.random.default_rng(2).normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
        >>> est = PrivateBoostClassifier(weak_learner="stump", bounds=(-3.0, 3.0), n_rounds=3)
        >>> s = PrivateGridSearchCV(est, {"kappa": [0.3]}, epsilon=2.0, delta=1e-6, classes=(0, 1)).fit(X, y)
        >>> set(s.predict(X).tolist()) <= {0, 1}
        True
        """
        return self._best().predict(X)

    def decision_function(self, X):
        """The selected candidate's decision function (post-processing: no further privacy cost).

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        numpy.ndarray of shape (m,)

        Raises
        ------
        AttributeError
            Not fitted, or the selected candidate has no ``decision_function``.
        ValueError
            The selected candidate's fit failed.

        Examples
        --------
        >>> import numpy as np
        >>> from fast import PrivateBoostClassifier
        >>> from fast.model_selection import PrivateGridSearchCV
        >>> X = np.random.default_rng(2).normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
        >>> est = PrivateBoostClassifier(weak_learner="stump", bounds=(-3.0, 3.0), n_rounds=3)
        >>> s = PrivateGridSearchCV(est, {"kappa": [0.3]}, epsilon=2.0, delta=1e-6, classes=(0, 1)).fit(X, y)
        >>> s.decision_function(X).shape
        (200,)
        """
        return self._best().decision_function(X)

    def _best(self):
        if not hasattr(self, "best_index_"):
            raise AttributeError("PrivateGridSearchCV is not fitted: call fit first")
        if self.best_estimator_ is None:
            raise ValueError("the selected candidate's fit failed: it has no model to predict with")
        return self.best_estimator_


# ------------------------------------------------------------------------------------------- Thresholdout
def _query_units(values, n: int, g: int, name: str) -> int:
    """sum_i floor(v_i G) of a query's per-row values v_i read in the declared domain [0, 1] (clamped; NaN and
    non-numbers as 1/2): an exact integer.  A 1-d numeric array takes one fused path (G is a power of two, so
    clip(v G, 0, G) = clip(v, 0, 1) G exactly and NaN * G stays NaN); anything else goes through ``to_domain``."""
    v = values if isinstance(values, np.ndarray) else None
    if v is not None and v.ndim == 1 and v.size and v.dtype.kind in "biuf":
        if v.shape[0] != n:
            raise ValueError(f"{name} must give one value per row ({n}), got {v.shape[0]}")
        w = v * np.float64(g)  # a new float64 array (the input is never modified)
        np.clip(w, 0.0, float(g), out=w)
        w[np.isnan(w)] = g / 2.0
        np.floor(w, out=w)
        return int(w.astype(np.int64).sum(dtype=np.int64))
    v = to_domain(values, name, low=0.0, high=1.0)
    if v.shape[0] != n:
        raise ValueError(f"{name} must give one value per row ({n}), got {v.shape[0]}")
    return int(np.floor(v * g).astype(np.int64).sum(dtype=np.int64))


def _call(phi, data, n: int):
    """phi's values on ``data``; when phi raises on the whole set, it is evaluated row by row and a row on which it
    raises reads NaN (the domain's centre, 1/2): one record never makes a query raise."""
    try:
        return phi(*data) if isinstance(data, tuple) else phi(data)
    except Exception:  # noqa: BLE001 -- row by row: a failure is one row's
        out = np.full(n, np.nan)
        for i in range(n):
            row = tuple(a[i:i + 1] for a in data) if isinstance(data, tuple) else data[i:i + 1]
            try:
                value = np.asarray(phi(*row) if isinstance(row, tuple) else phi(row), dtype=np.float64).reshape(-1)
                out[i] = value[0] if value.shape == (1,) else np.nan
            except Exception:  # noqa: BLE001
                pass
        return out


def _length(data) -> int:
    first = data[0] if isinstance(data, tuple) else data
    return len(first)


class Thresholdout:
    """The reusable holdout: statistical queries answered on a private holdout through a noisy threshold
    [Dwork, Feldman, Hardt, Pitassi, Reingold, Roth, Science 349 (2015); the NIPS 2015 companion]

    ``query(phi)`` (phi maps the rows of a data set to values in [0, 1], row by row: a statistical query) returns
    the training mean E_{S_t}[phi] when it is within the noisy threshold of the holdout mean, else the holdout
    mean plus Laplace noise, and counts one of the ``budget`` answers; with no answer left it returns None (the
    paper's "bottom").  Noise: gamma ~ Lap(2 sigma) on the threshold (fresh after each answer), eta ~ Lap(4 sigma)
    on each test, xi ~ Lap(sigma) on each answer, as exact discrete Laplace draws in units of 1/(n G) (see
    ``spec.selection_contract``).

    Guarantee (replace-one of a HOLDOUT row; the training set, the queries and n are public -- the training set is
    used in the clear, as in the paper): a run is (B eps_epoch, 0)-DP with eps_epoch = G/t1 + 2 G/t2 + G/t3 <=
    2/(sigma n), i.e. within the paper's (2B/(sigma n), 0).  Each epoch (from a fresh threshold to its answer) is
    charged eps_epoch before its threshold noise is drawn, so the ledger holds what was spent so far.

    Parameters
    ----------
    train, holdout : array or tuple of arrays
        The data sets, with the same structure (e.g. ``(X, y)``); ``phi`` is called as ``phi(*holdout)``.
    threshold : float >= 0
        T (a difference of means in [0, 1]).
    sigma : float > 0
        The noise rate.
    budget : int >= 1
        B, the number of above-threshold answers.
    resolution : int, power of two, default=2**16
        G: values are quantised down to multiples of 1/G (exact for {0, 1} queries).
    rng : None, int or numpy.random.Generator, default=None
        The PRIVATE noise's generator (None: OS entropy; a seed only in tests).
    accountant : None or a ledger, default=None
        Charged each epoch; None: the default ledger records each epoch.

    Attributes
    ----------
    calibration : ThresholdoutCalibration
    remaining : int
        Answers left.
    spent_epsilon : Fraction
        What the epochs started so far cost (exact).
    epsilon_bound : Fraction
        B eps_epoch, the run's total at most.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.model_selection import Thresholdout
    >>> rng = np.random.default_rng(0)
    >>> tr, ho = rng.integers(0, 2, 1000), rng.integers(0, 2, 1000)
    >>> to = Thresholdout(tr, ho, threshold=0.04, sigma=0.01, budget=10, rng=1)
    >>> 0.0 <= to.query(lambda v: v.astype(float)) <= 1.0
    True
    """

    @implements("library.model_selection.thresholdout-privacy")
    def __init__(self, train, holdout, *, threshold, sigma, budget, resolution=2**16, rng=None, accountant=None):
        self.calibration = thresholdout_calibration(threshold, sigma, budget, resolution, _length(holdout))
        self._n_train = check_rows(_length(train), self.calibration.resolution, "train")
        self._train, self._holdout = train, holdout
        self._gen = None if rng is None else as_generator(rng)
        self._accountant = accountant
        self.remaining = int(budget)
        self._gamma = None  # the current epoch's threshold noise; None: no epoch open
        self.spent_epsilon = Fraction(0)
        self.epsilon_bound = self.calibration.epoch_epsilon * int(budget)
        self.n_queries = 0
        self.n_answers = 0

    def _draw(self, t: int) -> int:
        return int(_mechanisms.sample_discrete_laplace(t, rng=self._gen))

    @private_release
    def query(self, phi):
        """Answer one statistical query.

        Parameters
        ----------
        phi : callable
            ``phi(*data)`` -> one value in [0, 1] per row (values outside are clamped, NaN read as 1/2); it must be
            row-wise (a statistical query).  If it raises on a set, it is evaluated row by row and a row on which it
            raises reads 1/2, so one record never makes the query raise.

        Returns
        -------
        float or None
            The training mean, or the noisy holdout mean (an answer), or None when no answer is left.

        Raises
        ------
        BudgetExceeded
            The ledger cannot pay a new epoch (nothing drawn).
        ValueError
            phi does not give one value per row.

        Examples
        --------
        >>> import numpy as np
        >>> from fast.accounting import BudgetAccountant
        >>> from fast.model_selection import Thresholdout
        >>> g = np.random.default_rng(0)
        >>> acc = BudgetAccountant(10.0)
        >>> to = Thresholdout(g.random(500), g.random(500), threshold=0.0, sigma=0.01, budget=2, rng=0,
        ...                   accountant=acc)
        >>> answers = [to.query(lambda v: v) for _ in range(6)]
        >>> to.n_answers, answers[-1], acc.spent_epsilon == to.spent_epsilon <= to.epsilon_bound
        (2, None, True)
        """
        if self.remaining < 1:
            return None
        cal = self.calibration
        g, n = cal.resolution, cal.n
        u_t = _query_units(_call(phi, self._train, self._n_train), self._n_train, g, "phi(train)")
        h = _query_units(_call(phi, self._holdout, n), n, g, "phi(holdout)")
        self.n_queries += 1
        if self._gamma is None:  # a new epoch: charge it whole, then draw its threshold noise
            eps = cal.epoch_epsilon
            charge_release(self._accountant, eps, 0, eps * eps / 2, label=outer_label("Thresholdout"))
            self.spent_epsilon += eps
            self._gamma = self._draw(cal.t1)
        eta = self._draw(cal.t2)
        q = abs(h - training_units(u_t, self._n_train, n))
        if q + eta > cal.threshold_units + self._gamma:
            xi = self._draw(cal.t3)
            self.remaining -= 1
            self.n_answers += 1
            self._gamma = None
            return float(Fraction(h + xi, n * g))
        return float(Fraction(u_t, self._n_train * g))

    def privacy_spent(self) -> PrivacySpent:
        """What the epochs started so far cost, as a PrivacySpent (replace-one of a holdout row).

        Returns
        -------
        PrivacySpent
            epsilon = the epochs' exact sum (``spent_epsilon``, rounded up), delta 0.

        Examples
        --------
        >>> import numpy as np
        >>> from fast.model_selection import Thresholdout
        >>> to = Thresholdout(np.zeros(100), np.ones(100), threshold=0.1, sigma=0.05, budget=3, rng=0)
        >>> to.privacy_spent().epsilon
        0.0
        """
        return PrivacySpent.delivered(
            self.spent_epsilon, 0, neighbouring="replace-one (one row of the holdout; training set and n public)",
            accounting=(f"{int(self.spent_epsilon / self.calibration.epoch_epsilon)} epochs of AboveThreshold + "
                        f"one Laplace answer at eps_epoch = {float(self.calibration.epoch_epsilon):.6g} "
                        f"(<= 2/(sigma n)), basic composition"))


# ------------------------------------------------------------------------------------------- forward selection
class ForwardSelection(tuple):
    """Result of :func:`thresholdout_forward_selection`: ``(features, scores, spent, n_queries)``.

    Attributes
    ----------
    features : list of int
        The selected columns, in the order added.
    scores : list of float
        The holdout accuracy the method reported for the model after each step.
    spent : PrivacySpent or None
        The privacy spent on the holdout (None for ``holdout="standard"``, which is not private).
    n_queries : int
        The queries asked of the holdout.

    Examples
    --------
    >>> from fast.model_selection import ForwardSelection
    >>> ForwardSelection([2], [0.9], None, 5).features
    [2]
    """

    __slots__ = ()

    def __new__(cls, features, scores, spent, n_queries):
        return tuple.__new__(cls, (features, scores, spent, n_queries))

    features = property(lambda self: self[0])
    scores = property(lambda self: self[1])
    spent = property(lambda self: self[2])
    n_queries = property(lambda self: self[3])


@implements("library.model_selection.thresholdout-overfitting")
def thresholdout_forward_selection(X_train, y_train, X_holdout, y_holdout, *, threshold, sigma, budget,
                                   max_features, holdout="thresholdout", resolution=2**16, C=1.0, rng=None,
                                   accountant=None) -> ForwardSelection:
    """Forward step-wise logistic regression whose every choice is scored on the holdout through
    :class:`Thresholdout` (winvector2015's companion experiment; Dwork et al. 2015, Fig. 2's setting)

    At each step, for each column j not yet chosen (in index order), a logistic regression is fitted on the training
    set with the chosen columns and j; its holdout accuracy (the statistical query 1[prediction == label]) is asked
    of the holdout; the column with the highest answer is added (ties to the lowest index).  It stops after
    ``max_features`` columns, or when the holdout is exhausted (an unanswered query).  ``holdout="standard"``
    reads the exact holdout accuracy instead (the overfitting baseline: NOT private).

    Parameters
    ----------
    X_train, y_train, X_holdout, y_holdout : arrays
        Labels in {-1, +1} or {0, 1} (any two values: the larger is positive), the same in both sets.
    threshold, sigma, budget, resolution, rng, accountant
        As :class:`Thresholdout`.
    max_features : int
        Columns to add, at most.
    holdout : {"thresholdout", "standard"}, default="thresholdout"
    C : float, default=1.0
        The logistic regression's inverse regularisation.

    Returns
    -------
    ForwardSelection

    Raises
    ------
    ValueError
        ``holdout`` not one of the two, X's not 2-d with the same columns, ``max_features`` outside [1, d], or a
        bad Thresholdout parameter.
    TypeError
        ``max_features`` not an int, or a Thresholdout parameter of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.model_selection import thresholdout_forward_selection
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 5)); y = (X[:, 2] > 0).astype(int)
    >>> res = thresholdout_forward_selection(X[:200], y[:200], X[200:], y[200:], threshold=0.04, sigma=0.01,
    ...                                      budget=20, max_features=1, rng=0)
    >>> res.features
    [2]
    """
    from sklearn.linear_model import LogisticRegression

    if holdout not in ("thresholdout", "standard"):
        raise ValueError(f"holdout must be 'thresholdout' or 'standard', got {holdout!r}")
    Xt, Xh = np.asarray(X_train, dtype=np.float64), np.asarray(X_holdout, dtype=np.float64)
    yt, yh = np.asarray(y_train), np.asarray(y_holdout)
    if Xt.ndim != 2 or Xh.ndim != 2 or Xt.shape[1] != Xh.shape[1]:
        raise ValueError("X_train and X_holdout must be 2-d with the same number of columns")
    d = Xt.shape[1]
    m = check_forward_selection(max_features, d)
    oracle = None
    if holdout == "thresholdout":
        oracle = Thresholdout((Xt, yt), (Xh, yh), threshold=threshold, sigma=sigma, budget=budget,
                              resolution=resolution, rng=rng, accountant=accountant)
    chosen, scores, asked = [], [], 0
    exhausted = False
    while len(chosen) < m and not exhausted:
        best_j, best_s = -1, -math.inf
        for j in range(d):
            if j in chosen:
                continue
            cols = chosen + [j]
            model = LogisticRegression(C=C).fit(Xt[:, cols], yt)

            def phi(X, y, model=model, cols=cols):
                return (model.predict(X[:, cols]) == y).astype(np.float64)

            asked += 1
            s = oracle.query(phi) if oracle is not None else float(np.mean(phi(Xh, yh)))
            if s is None:
                exhausted = True
                break
            if s > best_s:
                best_j, best_s = j, s
        if exhausted or best_j < 0:
            break
        chosen.append(best_j)
        scores.append(best_s)
    spent = oracle.privacy_spent() if oracle is not None else None
    return ForwardSelection(chosen, scores, spent, asked)
