"""One-vs-rest multiclass for the rado estimators (issue 28 item 8).

:class:`fast.estimators.rados.RadoBoostClassifier` and :class:`fast.estimators.rados.OmegaRAdaBoostClassifier` learn
a binary problem, and nock2015 / nock2016 give no native multiclass form, so k >= 3 classes are learned one-vs-rest:
one binary fit per class, "this class" (+1) against "the rest" (-1), on the SAME rows.
(:class:`fast.estimators.boosting.PrivateBoostClassifier` implements the same design in its own ``fit``, with the
same attributes, composing its k LazyBregBoost fits in zCDP.)

The label set is public.  A private fit declares it: ``classes=(c_0, ..., c_{k-1})`` with k >= 3 distinct labels
(a pair keeps the binary fit as before; fewer than two labels or duplicates: ValueError naming ``classes``).  The
number of binary problems is k, a parameter: it never depends on which labels occur.  A label outside the declared
set (NaN, None, another value or type) is positive for NO class: it is in "the rest" of every one-vs-rest problem
(the binary fits' documented bucket, ``spec.labels_contract``: anything that is not the positive class is
negative), so it is never predicted and never raises.  A non-private fit (no ``privacy``) may read the classes from
y (``np.unique``, as scikit-learn does).

The budget.  Every row takes part in all k fits, so the k releases compose on the same data: the grant is split
evenly, each class's fit holding 1/k of it, and the k spends compose back to at most the grant, by basic
composition (Dwork-Roth Thm 3.16) of the sources' (epsilon / k, delta / k) (``gaussian_edges``, ``dp_feat``); the
reported rho is the sum of the k delivered rhos (zCDP composes by addition, bun2020 Lemma 14).  Each share is the
largest double <= its k-th part (``spec.privacy_contract.exact_share``): k shares never exceed the total, in
rationals.  The fit reports ``privacy_spent_`` (the composition) and ``privacy_spent_per_class_`` (the k binary
fits' own reports, in the order of ``classes_``); ``estimators_`` holds the k binary fits (classes (False, True):
``classes_[j]`` or not).

The ledger is charged ONCE, with the composed total, before any noise is drawn (as a single fit charges its own
total): each binary fit is first run up to its charge against a planning ledger that records what it would charge
and stops it there (nothing is drawn), the k planned spends are composed and charged to ``accountant`` (or the
default ledger, one entry), then the k fits run without charging (inside the one private release).  A refusal
(BudgetExceeded) therefore comes before any noise.

Prediction: ``decision_function`` is (n, k), column j the binary score of ``classes_[j]``; ``predict`` is the class
of the largest score, ties to the first; ``predict_proba`` normalises the k binary probabilities of "this class" to
sum to 1 (in log space where the binary estimator has ``predict_log_proba``, so distinct scores stay distinct).

Dask input (issue 29).  The same design, with the rows staying on the cluster: y is binarized lazily on the workers
(:func:`dask_pm1`, ``fast.labels.declared_pm1`` per chunk; the dtype check on the driver), so each binary fit is
the dask path's own binary fit (``fast.estimators._distributed_rados.radoboost_fit``) and only ever sees two
labels; the planning fits stop at their charge before submitting any job, so the composed total is charged before
the first job.  A non-private fit with a dask y and no ``classes`` is refused (:func:`wants_ovr`): reading the
label set would be a pass over y.

An estimator takes part through :func:`ovr_fit` on its ``fit``, :func:`ovr_method` on its prediction methods, and a
method ``_ovr_share(k)`` returning ``(itself holding 1/k of the budget, "basic" | "zcdp")``.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import warnings
from fractions import Fraction

import numpy as np

from fast._contracts.budget_ledger import private_release
from fast._contracts.labels_contract import check_class_set, check_label_kind, label_array
from fast._contracts.privacy_contract import (SEEDED_FIX, SEEDED_REASON, PrivacySpent, charge_fit, float_up,
                                              no_guarantee, refuse_seeded_charge)

__all__ = ["wants_ovr", "ovr_fit", "ovr_method", "fit_ovr", "multi_class_tag",
           "compose", "dask_pm1"]

#: the fitted attributes only a one-vs-rest fit has (a binary refit removes them)
OVR_ATTRIBUTES = ("estimators_", "privacy_spent_per_class_")


def _classes_array(labels) -> np.ndarray:
    """The declared labels as ``classes_``: numpy's own dtype when it keeps every value exactly (all numbers, all
    str, all bytes), else an object array (as ``spec.labels_contract.classes_array`` does for a pair)."""
    arr = np.array(labels)
    numeric = all(isinstance(v, (numbers.Real, np.bool_)) and not isinstance(v, (str, bytes)) for v in labels)
    same = (numeric and arr.dtype.kind in "biuf") or all(isinstance(v, str) for v in labels) \
        or all(isinstance(v, bytes) for v in labels)
    if not same or arr.shape != (len(labels),) or not all(a == v for a, v in zip(arr, labels)):
        arr = np.empty(len(labels), dtype=object)
        arr[:] = list(labels)
    return arr


def _is_private(est) -> bool:
    """An estimator with a ``privacy`` parameter is private when it is set; any other (PrivateBoostClassifier)
    always is."""
    return getattr(est, "privacy", True) is not None


def wants_ovr(est, y):
    """The declared (or, non-private, inferred) classes when ``est.fit(X, y)`` is a one-vs-rest fit, else None.

    Decided from the parameters alone when ``classes`` is given (k >= 3: one-vs-rest; a pair: binary; fewer than two
    or duplicates: ValueError naming ``classes``) and on a private fit without ``classes`` (None: the binary fit's
    own rule refuses it).  A NON-private fit without ``classes`` on a dask y is refused (ValueError naming
    ``classes``: reading the label set would be a pass over y).  Only a NON-private fit without ``classes`` reads y
    (scikit-learn's ``type_of_target``: "multiclass" means one-vs-rest over ``np.unique(y)``); anything that does
    not read as multiclass is left to the binary fit and its messages.

    Parameters
    ----------
    est : estimator
    y : array-like

    Returns
    -------
    None or tuple of labels
    """
    classes = getattr(est, "classes", None)
    if classes is not None:
        if isinstance(classes, (str, bytes, dict, set, frozenset)):
            return None  # the binary fit's message
        try:
            k = len(classes)
        except TypeError:
            return None
        if k == 2:
            return None
        return check_class_set(classes)  # as PrivateBoostClassifier: the same rule and message
    if _is_private(est):
        return None
    from fast import _dask

    if _dask.is_dask_collection(y):  # reading its classes would be a pass over y, to the driver: refused
        raise ValueError("classes must be given with a dask y: reading the label set from y would be a pass over "
                         "y; declare classes=(negative, positive) or, one-vs-rest, the k >= 3 labels")
    from sklearn.utils.multiclass import type_of_target

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kind = type_of_target(y, input_name="y")
        if kind != "multiclass":
            return None
        from sklearn.utils.multiclass import check_classification_targets

        from fast.labels import _column

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y1 = np.asarray(_column(y))
            check_classification_targets(y1)
            return tuple(np.unique(y1))
    except (TypeError, ValueError):
        return None


def multi_class_tag(est) -> bool:
    """scikit-learn's ``classifier_tags.multi_class``: False when ``classes`` declares a pair (the fit is binary by
    declaration), else True (k >= 3 declared classes, or classes read from y without privacy)."""
    classes = getattr(est, "classes", None)
    try:
        return classes is None or isinstance(classes, (str, bytes)) or len(classes) != 2
    except TypeError:
        return True


class _Planned(BaseException):
    """Stops a binary fit at its charge (a BaseException: no ``except Exception`` in a fit swallows it)."""

    def __init__(self, epsilon, delta, rho):
        super().__init__("planned")
        self.charge = (epsilon, delta, rho)


class _PlanningLedger:
    """Records what a fit would charge and stops it there, before any noise is drawn.  ``rho_budget`` mirrors the
    real ledger's, so a fit refuses exactly what it would refuse on the real one (a zCDP ledger for SmoothBoost)."""

    def __init__(self, accountant):
        self.rho_budget = getattr(accountant, "rho_budget", None)

    def charge(self, epsilon, delta=0, rho=None):
        raise _Planned(epsilon, delta, rho)


def _fraction(value) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(value)


def compose(spends, composition: str, *, k: int, classes) -> PrivacySpent:
    """The privacy of k one-vs-rest fits on the same rows from their k reports.

    Parameters
    ----------
    spends : sequence of PrivacySpent
        The binary fits' ``privacy_spent_`` (each with a guarantee).
    composition : {"basic", "zcdp"}
        "basic": (sum epsilon, sum delta), in rationals (each fit's exact fractions when it reports them;
        Dwork-Roth Thm 3.16), rho the sum when every fit reports one.  "zcdp": rho = sum rho (bun2020 Lemma 14),
        epsilon its tight conversion at the fits' common delta (CKS20 Prop. 12).
    k : int
    classes : sequence
        For the text.

    Returns
    -------
    PrivacySpent

    Examples
    --------
    >>> from fast._contracts.privacy_contract import PrivacySpent
    >>> part = PrivacySpent.delivered(0.5, 1e-6, neighbouring="replace-one (x)", accounting="a")
    >>> compose([part] * 3, "basic", k=3, classes=(0, 1, 2)).epsilon
    1.5
    """
    first = spends[0]
    rhos = [s.rho for s in spends]
    rho_sum = None if any(r is None for r in rhos) else sum((_fraction(r) for r in rhos), Fraction(0))
    head = (f"one-vs-rest over the k = {k} declared classes {tuple(classes)!r}: {k} binary fits on the same rows, "
            f"each holding 1/{k} of the budget (class {tuple(classes)[0]!r}: {first.accounting})")
    if composition == "zcdp":
        from fast import accounting as _acc

        deltas = {s.delta for s in spends}
        if rho_sum is None or len(deltas) != 1:  # pragma: no cover - the zCDP estimators report rho at one delta
            raise ValueError("zCDP composition needs every fit's rho at one delta")
        rho = float_up(rho_sum)
        delta = first.delta
        return PrivacySpent(epsilon=float(_acc.zcdp_to_dp_tight(rho, delta)), delta=float(delta), rho=rho,
                            neighbouring=first.neighbouring,
                            accounting=f"{head}; zCDP composition (bun2020 Lemma 14), tight conversion "
                                       f"(CKS20 Prop. 12)")
    if composition != "basic":  # pragma: no cover - the hooks return one of the two
        raise ValueError(f"composition must be 'basic' or 'zcdp', got {composition!r}")
    eps = sum((s.exact[0] if s.exact is not None else _fraction(s.epsilon) for s in spends), Fraction(0))
    dl = sum((s.exact[1] if s.exact is not None else _fraction(s.delta) for s in spends), Fraction(0))
    return PrivacySpent.delivered(eps, dl, rho=None if rho_sum is None else float_up(rho_sum),
                                  neighbouring=first.neighbouring,
                                  accounting=f"{head}; basic composition (Dwork-Roth Thm 3.16)")


def _charge_tuple_spent(charges, composition, *, k, classes, neighbouring) -> PrivacySpent:
    """The composed PrivacySpent of k planned charges (epsilon, delta, rho), to charge before any noise."""
    parts = []
    for e, d, r in charges:
        parts.append(PrivacySpent(epsilon=float(e), delta=float(d), rho=None if r is None else float(r),
                                  neighbouring=neighbouring, accounting="planned",
                                  exact=(_fraction(e), _fraction(d))))
    return compose(parts, composition, k=k, classes=classes)


def dask_pm1(y, pair, *, index=1, name="y"):
    """A dask y against a declared pair, lazily: a dask int8 array, +1 where y == pair[1] and -1 for EVERY other
    value (``fast.labels.declared_pm1`` applied to each chunk, on the workers; nothing is computed here, y never
    reaches the driver).

    Parameters
    ----------
    y : dask array (or a dask collection ``dask.array.asarray`` reads) of shape (n,)
    pair : (negative, positive)
        Declared, public.
    index : int, default=1
        The positive class's index in the declared ``classes`` (one-vs-rest), for the message.
    name : str, default="y"

    Returns
    -------
    dask.array.Array of dtype int8, y's chunks

    Raises
    ------
    ValueError
        y is not 1-d, or y's dtype can never hold ``pair[1]`` (``classes[index]``), decided from the dtype alone
        on the driver, the in-memory message.
    """
    import dask.array as da

    from fast.labels import declared_pm1

    yd = y if isinstance(y, da.Array) else da.asarray(y)
    if yd.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got {yd.ndim}-d")
    try:
        check_label_kind(np.empty(0, dtype=yd.dtype), pair)  # the dtype alone, as declared_pm1 decides it
    except ValueError as exc:
        raise ValueError(str(exc).replace("classes[1]", f"classes[{index}]")) from None
    # the pair inside a partial: dask never reads a label as a graph key or task
    return yd.map_blocks(functools.partial(declared_pm1, classes=tuple(pair)), dtype=np.int8)


def _binarize(y, labels):
    """k boolean label vectors, column j: y == labels[j], by the binary fits' own rule (``fast.labels.declared_pm1``
    against the pair (other, labels[j])): every other value, inside or outside the declared set, is False.  A
    class that y's dtype can never hold is a ValueError naming ``classes[j]`` (from the dtype alone).  A dask y
    gives k lazy dask vectors (:func:`dask_pm1` > 0: formed on the workers, y never reaches the driver)."""
    from fast import _dask
    from fast.labels import _column, declared_pm1

    k = len(labels)
    if _dask.is_dask_collection(y):
        return [dask_pm1(y, (labels[(j + 1) % k], c), index=j) > 0 for j, c in enumerate(labels)]
    y1 = _column(y)
    arr = label_array(y1)
    cols = []
    for j, c in enumerate(labels):
        pair = (labels[(j + 1) % k], c)
        try:
            check_label_kind(arr, pair)
        except ValueError as exc:
            raise ValueError(str(exc).replace("classes[1]", f"classes[{j}]")) from None
        cols.append(declared_pm1(arr, pair) > 0)
    return cols


@private_release
def fit_ovr(est, labels, X, y, fit_kwargs: dict):
    """Fit ``est`` one-vs-rest over ``labels`` (module docstring); returns ``est``.

    Parameters
    ----------
    est : estimator with ``_ovr_share(k)``
    labels : tuple
        The declared (or, non-private, inferred from y) classes, k >= 3.
    X, y
        The fit's data (y as given: every value outside ``labels`` is in the rest).
    fit_kwargs : dict
        The fit's other arguments (``accountant``, ``sample_weight``), passed to every binary fit except
        ``accountant``, which is charged once with the composed total.
    """
    from sklearn.base import clone

    k = len(labels)
    accountant = fit_kwargs.pop("accountant", None)
    seed = getattr(est, "insecure_noise_seed", None)
    refuse_seeded_charge(seed, accountant)
    base = clone(est).set_params(classes=(False, True))
    binary, composition = base._ovr_share(k)
    cols = _binarize(y, labels)
    private = _is_private(est)
    # 1. plan: every binary fit up to its charge (before any noise), the k charges composed and charged once
    if private and seed is None:
        planned = []
        for j in range(k):
            with warnings.catch_warnings():  # the real fit below emits them once
                warnings.simplefilter("ignore")
                try:
                    clone(binary).fit(X, cols[j], accountant=_PlanningLedger(accountant), **fit_kwargs)
                except _Planned as stop:
                    planned.append(stop.charge)
                    continue
            raise RuntimeError(f"{type(est).__name__}'s binary fit drew without charging")  # pragma: no cover
        neighbouring = "replace-one (one example (x, y) of the training set)"
        charged = _charge_tuple_spent(planned, composition, k=k, classes=labels, neighbouring=neighbouring)
        charge_fit(charged, accountant, None, label=type(est).__name__)  # BudgetExceeded: nothing drawn
    # 2. the k fits, inside this one private release (their own charges are not recorded again); a test-only seed
    # gives class j the seed + j (as PrivateBoostClassifier's one-vs-rest), said once
    fitted = []
    if seed is not None:
        from fast._contracts.privacy_contract import InsecureNoiseWarning, noise_rng

        noise_rng(seed)  # warns InsecureNoiseWarning once for the whole fit
    for j in range(k):
        sub = clone(binary) if seed is None else clone(binary).set_params(insecure_noise_seed=int(seed) + j)
        with warnings.catch_warnings():
            if seed is not None:
                warnings.simplefilter("ignore", InsecureNoiseWarning)
            fitted.append(sub.fit(X, cols[j], **fit_kwargs))
    for name in [key for key in est.__dict__ if key.endswith("_") and not key.startswith("_")]:
        del est.__dict__[name]  # a previous fit's attributes
    est.estimators_ = fitted
    est.classes_ = _classes_array(labels)
    est.n_features_in_ = fitted[0].n_features_in_
    if hasattr(fitted[0], "feature_names_in_"):
        est.feature_names_in_ = fitted[0].feature_names_in_
    if all(hasattr(f, "coef_") for f in fitted):  # linear binary models: the one-vs-rest linear model
        est.coef_ = np.vstack([np.reshape(f.coef_, (1, -1)) for f in fitted])
        if all(hasattr(f, "intercept_") for f in fitted):
            est.intercept_ = np.concatenate([np.ravel(f.intercept_) for f in fitted])
    if private:
        per_class = tuple(f.privacy_spent_ for f in fitted)
        est.privacy_spent_per_class_ = per_class
        if all(math.isfinite(s.epsilon) for s in per_class):
            est.privacy_spent_ = compose(per_class, composition, k=k, classes=labels)
        else:  # seeded: what the noise alone gives, and no guarantee
            alone = compose([s.noise_alone or s for s in per_class], composition, k=k, classes=labels)
            est.privacy_spent_ = no_guarantee(alone, SEEDED_REASON, SEEDED_FIX)
    return est


def ovr_fit(fit):
    """Decorate an estimator's ``fit(self, X, y, ...)``: a one-vs-rest fit when :func:`wants_ovr` says so, else the
    binary fit (after removing a previous one-vs-rest fit's attributes)."""
    sig = inspect.signature(fit)

    @functools.wraps(fit)
    def wrapper(self, X, y=None, *args, **kwargs):
        labels = wants_ovr(self, y)
        if labels is None:
            for name in OVR_ATTRIBUTES:
                self.__dict__.pop(name, None)
            return fit(self, X, y, *args, **kwargs)
        bound = sig.bind(self, X, y, *args, **kwargs)
        rest = {name: value for name, value in bound.arguments.items() if name not in ("self", "X", "y")}
        return fit_ovr(self, labels, X, y, rest)

    return wrapper


def _ovr_decision_function(est, X):
    return np.column_stack([np.asarray(f.decision_function(X), dtype=np.float64) for f in est.estimators_])


def _ovr_log_proba(est, X):
    """log of the normalised "this class" probabilities (log space: distinct scores stay distinct)."""
    from scipy.special import logsumexp

    logp = np.column_stack([f.predict_log_proba(X)[:, 1] for f in est.estimators_])
    return logp - logsumexp(logp, axis=1, keepdims=True)


def _ovr_predict_proba(est, X):
    if hasattr(est.estimators_[0], "predict_log_proba"):
        return np.exp(_ovr_log_proba(est, X))
    p = np.column_stack([f.predict_proba(X)[:, 1] for f in est.estimators_])
    total = p.sum(axis=1, keepdims=True)
    k = p.shape[1]
    return np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / k)


def _ovr_predict(est, X):
    scores = _ovr_decision_function(est, X)
    return est.classes_[np.argmax(scores, axis=1)]  # ties to the first class


_METHODS = {"decision_function": _ovr_decision_function, "predict": _ovr_predict,
            "predict_proba": _ovr_predict_proba, "predict_log_proba": _ovr_log_proba}


def ovr_method(method):
    """Decorate a prediction method (``decision_function``, ``predict``, ``predict_proba``, ``predict_log_proba``):
    after a one-vs-rest fit it answers from the k binary estimators (module docstring), else it is the binary
    method."""
    ovr = _METHODS[method.__name__]

    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        if "estimators_" in self.__dict__:
            return ovr(self, X)
        return method(self, X, *args, **kwargs)

    return wrapper
