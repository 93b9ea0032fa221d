"""Public preprocessing for the private estimators: scaling, encoding and clipping from DECLARED information only
(issue 28, item 4).

The private estimators read a PUBLIC domain (``data_norm``, ``bounds``, the clip ball of ``gaussian_edges``); data
outside it is clamped, never used to set it.  A feature in dollars beside one in [0, 1] then decides the L2 clipping
alone, and a text column has no domain at all.  These scikit-learn transformers bring the data into a declared
domain using only what the user DECLARES (bounds per feature, the level list of each categorical column, a norm),
never a statistic of the data:

* :class:`PublicScaler` maps each feature from its declared ``[lower, upper]`` to ``feature_range`` (clamping
  outside values; NaN and non-numbers are read as the centre);
* :class:`PublicOneHotEncoder` / :class:`PublicOrdinalEncoder` encode each column against its declared levels
  (an unknown, missing or unhashable value goes to a documented bucket, never an error);
* :class:`DomainClipper` clips each row to an L2 ball (as the estimators' ``data_norm`` / ``clip``) or each feature
  to a box;
* :func:`clipping_report` is the custodian's NON-private diagnostic: what share of rows / values the declared domain
  clipped, with a :class:`ClippingWarning` above a threshold.

Why they cost no privacy: ``fit`` reads only X's SCHEMA (its number of columns, their names and, for the scaler and
the clipper, the numeric dtype), never one value, and ``transform`` maps each row by a fixed function of that row
and the public parameters (row i's output depends on row i alone; ``tests/test_preprocessing.py`` checks it on
neighbouring data sets).  A neighbouring pair of data sets (one row replaced) is therefore mapped to a neighbouring
pair, so a ``Pipeline([("scale", PublicScaler(...)), ("clf", private_estimator)])`` keeps the estimator's
(epsilon, delta) guarantee.  ``transform`` never warns and never raises on a value: a warning raised inside a
private fit would depend on the data (one record outside the domain would make it appear), which is a release no
noise covers.  The clipping diagnostics are therefore a separate, explicitly non-private function the data custodian
runs on their own data, outside any private path.

>>> import numpy as np
>>> from sklearn.pipeline import make_pipeline
>>> from fast import PrivateBoostClassifier, PublicScaler
>>> X = np.array([[1000.0, 0.1], [3000.0, 0.9], [2000.0, 0.2], [5000.0, 0.8]] * 10)
>>> y = np.array([0, 1, 0, 1] * 10)
>>> model = make_pipeline(PublicScaler(bounds=([0.0, 0.0], [5000.0, 1.0])),
...                       PrivateBoostClassifier(epsilon=2.0, n_rounds=5, data_norm=1.5, classes=(0, 1)))
>>> model.fit(X, y).predict(X[:4]).shape
(4,)
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted as _check_is_fitted  # aliased: pytest collects check_*
from sklearn.utils.validation import validate_data

from fast._contracts.privacy_contract import to_domain

__all__ = ["PublicScaler", "PublicOneHotEncoder", "PublicOrdinalEncoder", "DomainClipper", "clipping_report",
           "ClippingWarning"]

_TOP = float(np.finfo(np.float64).max)


class ClippingWarning(UserWarning):
    """A large share of the rows fell outside the declared domain (raised by :func:`clipping_report` only).

    The declared bounds, levels or norm are probably wrong for this data (a feature in other units, a level list
    that misses the common values): the private estimator would learn from clamped or bucketed values.  Only the
    custodian's NON-private diagnostic :func:`clipping_report` warns; the transformers never do (module docstring).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from fast.preprocessing import ClippingWarning, PublicScaler, clipping_report
    >>> scaler = PublicScaler(bounds=(0.0, 1.0)).fit(np.zeros((3, 1)))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = clipping_report(scaler, [[5.0], [7.0], [0.5]])
    >>> caught[0].category is ClippingWarning
    True
    """


# --------------------------------------------------------------------------------------------------- schema
def _schema(est, X, *, reset, numeric):
    """X's schema only (never one value): a dense 2-d array-like or DataFrame with at least one row and one column;
    for ``numeric`` transformers a numeric, bool or object dtype.  Sets / checks ``n_features_in_`` and
    ``feature_names_in_`` (scikit-learn's rules).  Returns the shape."""
    if X is None or isinstance(X, (str, bytes)) or np.isscalar(X):
        raise TypeError(f"X must be a 2-d array-like or DataFrame, got {type(X).__name__}")
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError("X must be dense: sparse input is not supported (densify it, or select its columns)")
    if hasattr(X, "shape"):
        shape = tuple(X.shape)
    else:
        try:
            shape = np.asarray(X, dtype=object).shape  # the nesting only: no value is converted
        except ValueError:
            raise ValueError("X must be a rectangular 2-d array (schema check on the shape)") from None
    if len(shape) != 2:
        raise ValueError(f"X must be 2-d (n_samples, n_features), got shape {shape}. Reshape your data with "
                         "X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample")
    if shape[0] == 0:
        raise ValueError(f"X has 0 samples (shape={shape}) while a minimum of 1 is required.")
    if shape[1] == 0:
        raise ValueError(f"X has 0 feature(s) (shape={shape}) while a minimum of 1 is required.")
    dtype = getattr(X, "dtype", None)
    if isinstance(dtype, np.dtype) and dtype.kind == "c":
        raise ValueError(f"Complex data not supported: X has dtype {dtype} (schema check on the dtype)")
    if numeric and isinstance(dtype, np.dtype) and dtype.kind not in "biufO":
        raise TypeError(f"X must be a numeric array, got dtype {dtype} (schema check on the dtype, not on the values)")
    validate_data(est, X, skip_check_array=True, reset=reset)
    return shape


def _columns(X):
    """The columns of X as 1-d object arrays (the values as given: a DataFrame column keeps its own values)."""
    if isinstance(X, pd.DataFrame):
        return [X.iloc[:, j].to_numpy(dtype=object) for j in range(X.shape[1])]
    arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
    return [np.asarray(arr[:, j], dtype=object) for j in range(arr.shape[1])]


def _real_pair(value, name):
    try:
        lo, hi = value
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (lower, upper), got {value!r}") from None
    return lo, hi


def _declared_bounds(bounds, n_features, names, *, name="bounds"):
    """(lower, upper) float arrays of length n_features from the declared ``bounds``: a pair (lower, upper) of
    scalars or of arrays with one entry per feature, or a dict {column name: (lower, upper)} for a DataFrame."""
    if bounds is None:
        raise ValueError(f"{name} must be declared: (lower, upper), or a dict {{column: (lower, upper)}} (public "
                         "bounds; reading them from the data would leak it)")
    if isinstance(bounds, dict):
        if names is None:
            raise ValueError(f"{name} given as a dict needs X to be a DataFrame with string column names")
        missing = [c for c in names if c not in bounds]
        extra = [c for c in bounds if c not in set(names)]
        if missing or extra:
            raise ValueError(f"{name} must have one (lower, upper) per column of X: missing {missing}, not in X "
                             f"{extra} (schema check)")
        pairs = [_real_pair(bounds[c], f"{name}[{c!r}]") for c in names]
        lo, hi = [p[0] for p in pairs], [p[1] for p in pairs]
    else:
        lo, hi = _real_pair(bounds, name)
    out = []
    for side in (lo, hi):
        try:
            arr = np.asarray(side, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold real numbers, got {side!r}") from None
        if arr.ndim == 0:
            arr = np.full(n_features, float(arr))
        elif arr.shape != (n_features,):
            raise ValueError(f"{name} must give one bound per feature of X ({n_features}), got shape {arr.shape} "
                             "(schema check)")
        out.append(arr.copy())
    lo, hi = out
    with np.errstate(over="ignore", invalid="ignore"):
        width = hi - lo
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo < hi) and np.all(np.isfinite(width))):
        raise ValueError(f"{name} must be finite with lower < upper for every feature (and upper - lower finite)")
    return lo, hi


def _names(est):
    return list(getattr(est, "feature_names_in_", [f"x{j}" for j in range(est.n_features_in_)]))


def _raw(X):
    """X as float64 with NaN for every value that is not a real number (to_domain without a domain)."""
    with np.errstate(invalid="ignore"):  # the centre of (-inf, inf) is NaN: NaN stays NaN
        return to_domain(X, "X", low=-np.inf, high=np.inf, ndim=2)


class _Numeric(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Shared schema handling of the numeric row-wise transformers."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # NaN and non-numbers are read as the domain's centre, never refused one value at a time (issue 25)
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.requires_fit = True
        return tags

    def _fit_schema(self, X):
        _schema(self, X, reset=True, numeric=True)
        return self

    def _domain(self, X):
        _check_is_fitted(self, "n_features_in_")
        _schema(self, X, reset=False, numeric=True)
        return to_domain(X, "X", low=self.lower_, high=self.upper_, ndim=2)


# --------------------------------------------------------------------------------------------------- scaler
class PublicScaler(_Numeric):
    """Scale each feature from its DECLARED bounds [lower, upper] to ``feature_range`` (clamping outside values).

    ``x -> a + (b - a) (clamp(x, lower, upper) - lower) / (upper - lower)`` per feature, computed as
    ``(1 - t) a + t b`` with ``t = (x - lower) / (upper - lower)``, so ``lower`` maps to ``a`` and ``upper`` to
    ``b`` exactly.  It is scikit-learn's ``MinMaxScaler(feature_range, clip=True)`` with the minimum and maximum
    DECLARED instead of read from the data: ``fit`` reads only X's schema (the number of features must match the
    bounds; a DataFrame's column names for dict bounds), never a value, so the scaler can precede any private
    estimator at no privacy cost (module docstring).  Declared domain (as ``spec.privacy_contract.to_domain``):
    a value below ``lower`` / above ``upper`` (+-inf included) is clamped to it; NaN and anything that is not a
    real number (None, a str) is read as the centre ``(lower + upper) / 2``, i.e. the centre of ``feature_range``.
    ``transform`` never raises or warns on a value; :func:`clipping_report` says how much was clamped.

    Parameters
    ----------
    bounds : pair or dict, default=None
        The PUBLIC bounds: ``(lower, upper)`` with scalars (every feature) or arrays of one entry per feature (the
        format of ``PrivateBoostClassifier(bounds=...)``), or a dict ``{column name: (lower, upper)}`` covering
        exactly the columns of a DataFrame X.  Finite, lower < upper.  Must be declared (None is refused at fit).
    feature_range : pair of float, default=(-1.0, 1.0)
        The target interval ``(a, b)``, finite with a < b: ``(-1, 1)`` (the unit box, inside the L2 ball of radius
        sqrt(d)) or ``(0, 1)``.

    Attributes
    ----------
    lower_, upper_ : ndarray of shape (n_features,)
        The declared bounds, per feature.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X is a DataFrame with string column names.

    Raises
    ------
    ValueError
        At fit: ``bounds`` undeclared, malformed, not finite with lower < upper, or not one per feature of X
        (schema check); ``feature_range`` not a finite pair with a < b; X not 2-d, empty or complex.
    TypeError
        X sparse, or of a non-numeric dtype (a str or datetime array: schema check).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.preprocessing import PublicScaler
    >>> scaler = PublicScaler(bounds=([0.0, 10.0], [100.0, 20.0])).fit(np.zeros((1, 2)))
    >>> scaler.transform([[50.0, 10.0], [250.0, np.nan]]).tolist()
    [[0.0, -1.0], [1.0, 0.0]]
    """

    def __init__(self, bounds=None, feature_range=(-1.0, 1.0)):
        self.bounds = bounds
        self.feature_range = feature_range

    def _range(self):
        a, b = _real_pair(self.feature_range, "feature_range")
        try:
            a, b = float(a), float(b)
        except (TypeError, ValueError):
            raise ValueError(f"feature_range must hold real numbers, got {self.feature_range!r}") from None
        if not (math.isfinite(a) and math.isfinite(b) and a < b):
            raise ValueError(f"feature_range must be finite with a < b, got {self.feature_range!r}")
        return a, b

    def fit(self, X, y=None):
        """Check X's schema against the declared bounds (never reads a value).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self

        Examples
        --------
        >>> import pandas as pd
        >>> from fast.preprocessing import PublicScaler
        >>> X = pd.DataFrame({"age": [30.0], "income": [5e4]})
        >>> PublicScaler(bounds={"age": (0, 100), "income": (0, 1e5)}).fit(X).upper_.tolist()
        [100.0, 100000.0]
        """
        self._range()
        self._fit_schema(X)
        self.lower_, self.upper_ = _declared_bounds(self.bounds, self.n_features_in_,
                                                    getattr(self, "feature_names_in_", None))
        return self

    def transform(self, X):
        """Map X into ``feature_range`` row by row (clamping; NaN and non-numbers to the centre).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features) (a DataFrame with ``set_output(transform="pandas")``)

        Examples
        --------
        >>> import numpy as np
        >>> from fast.preprocessing import PublicScaler
        >>> s = PublicScaler(bounds=(0.0, 4.0), feature_range=(0.0, 1.0)).fit(np.zeros((1, 1)))
        >>> s.transform([[1.0], [-3.0], [None]]).ravel().tolist()
        [0.25, 0.0, 0.5]
        """
        a, b = self._range()
        Z = self._domain(X)
        t = (Z - self.lower_) / (self.upper_ - self.lower_)
        return (1.0 - t) * a + t * b

    def _clipped(self, X):
        _check_is_fitted(self, "n_features_in_")
        _schema(self, X, reset=False, numeric=True)
        raw = _raw(X)
        return np.isnan(raw) | (raw < self.lower_) | (raw > self.upper_)


# --------------------------------------------------------------------------------------------------- clipper
class DomainClipper(_Numeric):
    """Clip each row to the L2 ball of radius ``norm`` (as the estimators' ``data_norm`` / ``clip``), or each feature
    to the box ``bounds``: the declared domain, applied before the estimator so the user sees (and can diagnose) it.

    Ball: ``x -> x min(1, norm / ||x||_2)`` (a row inside the ball is unchanged; a row whose squared norm overflows
    is clipped by scaling first, so any finite row is handled); an entry +-inf is read as +-the largest double (so
    its row is clipped along that direction), NaN and non-numbers as 0 (the ball's centre).  Box: each feature
    clamped to ``[lower, upper]``, NaN and non-numbers read as the centre.  ``fit`` reads only X's schema;
    ``transform`` is row-wise and never raises or warns on a value (module docstring).

    Parameters
    ----------
    norm : float or None, default=None
        The PUBLIC L2 radius (finite, > 0).
    bounds : pair or dict or None, default=None
        The PUBLIC box, in :class:`PublicScaler`'s format.  Exactly one of ``norm`` and ``bounds`` must be given.

    Attributes
    ----------
    lower_, upper_ : ndarray of shape (n_features,)
        The box (``-inf`` / ``inf`` for the ball, whose entries are only read as finite).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X is a DataFrame with string column names.

    Raises
    ------
    ValueError
        At fit: neither or both of ``norm`` and ``bounds``; ``norm`` not a finite number > 0; ``bounds`` as in
        :class:`PublicScaler`; X not 2-d, empty or complex.
    TypeError
        X sparse, or of a non-numeric dtype (schema check).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.preprocessing import DomainClipper
    >>> clip = DomainClipper(norm=1.0).fit(np.zeros((1, 2)))
    >>> clip.transform([[3.0, 4.0], [0.3, 0.4], [np.nan, 0.5]]).round(12).tolist()
    [[0.6, 0.8], [0.3, 0.4], [0.0, 0.5]]
    >>> DomainClipper(bounds=(0.0, 1.0)).fit(np.zeros((1, 2))).transform([[2.0, -1.0]]).tolist()
    [[1.0, 0.0]]
    """

    def __init__(self, norm=None, bounds=None):
        self.norm = norm
        self.bounds = bounds

    def _radius(self):
        if (self.norm is None) == (self.bounds is None):
            raise ValueError("DomainClipper needs exactly one of norm (an L2 ball) and bounds (a box), got "
                             f"norm={self.norm!r}, bounds={self.bounds!r}")
        if self.norm is None:
            return None
        ok = isinstance(self.norm, (int, float, np.integer, np.floating)) and not isinstance(self.norm, bool)
        if not ok or not (math.isfinite(float(self.norm)) and float(self.norm) > 0):
            raise ValueError(f"norm must be a finite number > 0, got {self.norm!r}")
        return float(self.norm)

    def fit(self, X, y=None):
        """Check X's schema (and the bounds against it); never reads a value.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from fast.preprocessing import DomainClipper
        >>> DomainClipper(norm=2.0).fit(np.zeros((5, 3))).n_features_in_
        3
        """
        radius = self._radius()
        self._fit_schema(X)
        if radius is None:
            self.lower_, self.upper_ = _declared_bounds(self.bounds, self.n_features_in_,
                                                        getattr(self, "feature_names_in_", None))
        else:
            self.lower_ = np.full(self.n_features_in_, -np.inf)
            self.upper_ = np.full(self.n_features_in_, np.inf)
        return self

    def transform(self, X):
        """Clip X into the declared domain, row by row.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features) (a DataFrame with ``set_output(transform="pandas")``)

        Examples
        --------
        >>> import numpy as np
        >>> from fast.preprocessing import DomainClipper
        >>> DomainClipper(norm=1.0).fit(np.zeros((1, 2))).transform([[np.inf, 1.0]]).round(12).tolist()
        [[1.0, 0.0]]
        """
        radius = self._radius()
        _check_is_fitted(self, "n_features_in_")
        if radius is None:
            return self._domain(X)
        _schema(self, X, reset=False, numeric=True)
        Z = to_domain(X, "X", low=-_TOP, high=_TOP, ndim=2)
        return _clip_rows(Z, radius)

    def _clipped(self, X):
        radius = self._radius()
        _check_is_fitted(self, "n_features_in_")
        _schema(self, X, reset=False, numeric=True)
        raw = _raw(X)
        if radius is None:
            return np.isnan(raw) | (raw < self.lower_) | (raw > self.upper_)
        Z = np.where(np.isnan(raw), 0.0, np.clip(raw, -_TOP, _TOP))
        moved = _clip_rows(Z, radius) != Z
        return np.isnan(raw) | np.isinf(raw) | moved


def _clip_rows(Z, radius):
    """Each row of the finite matrix Z clipped to the L2 ball of ``radius`` (rows inside are returned unchanged)."""
    with np.errstate(over="ignore"):
        norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    out = Z * (radius / np.maximum(norms, radius))[:, None]  # factor exactly 1.0 inside the ball
    # ||x||^2 beyond the float range: the same map, computed on x / max|x_j| (norm in [1, sqrt(d)]).  Computed for
    # EVERY row and selected, never branched on: which code runs must not depend on one record's value (issue 25)
    peak = np.max(np.abs(Z), axis=1)
    unit = Z / np.where(peak > 0, peak, 1.0)[:, None]
    unit_norms = np.sqrt(np.einsum("ij,ij->i", unit, unit))
    scaled = unit * (radius / np.where(unit_norms > 0, unit_norms, 1.0))[:, None]
    return np.where(np.isinf(norms)[:, None], scaled, out)


# --------------------------------------------------------------------------------------------------- encoders
def _is_missing(value):
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # an array-like value: not a missing scalar
        return False


def _column_list(value):
    return isinstance(value, (list, tuple, np.ndarray, pd.Index, pd.Series))


def _levels(given, name):
    """The declared levels of one column, checked: a non-empty list of hashable scalars, distinct under Python
    equality, at most one missing level (None / NaN / pd.NA)."""
    levels = list(given)
    if not levels:
        raise ValueError(f"{name} must list at least one level")
    lookup, missing = {}, None
    for k, level in enumerate(levels):
        if _is_missing(level):
            if missing is not None:
                raise ValueError(f"{name} must list the missing level (None / NaN) at most once")
            missing = k
            continue
        try:
            hash(level)
        except TypeError:
            raise TypeError(f"{name} must hold hashable levels (str, numbers, bool, None), got an unhashable "
                            f"{type(level).__name__}") from None
        if level in lookup:
            raise ValueError(f"{name} must list distinct levels, got {level!r} twice (Python equality: 1, 1.0 and "
                             "True are one level)")
        lookup[level] = k
    return levels, lookup, missing


def _codes(values, lookup, missing):
    """Index of each value's declared level, -1 for the unknown bucket (never an error)."""
    get = lookup.get

    def one(v):
        try:
            return get(v, -1)
        except Exception:  # an unhashable value (a list, a dict) or one whose == raises (pd.NA): not a level
            return -1

    codes = np.fromiter((one(v) for v in values.tolist()), dtype=np.int64, count=values.shape[0])
    na = pd.isna(values)
    if na.any():
        codes[na] = -1 if missing is None else missing
    return codes


class _Encoder(TransformerMixin, BaseEstimator):
    """Shared declared-categories handling of the two encoders."""

    def __init__(self, categories=None):
        self.categories = categories

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.requires_fit = True
        return tags

    def fit(self, X, y=None):
        """Check X's schema against the declared categories (never reads a value).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            ``categories`` undeclared, empty for a column, with a repeated or second missing level, mixing lists
            and scalars, or not one list per column of X (schema check); X not 2-d, empty or complex.
        TypeError
            ``categories`` of another type or holding an unhashable level; X sparse.

        Examples
        --------
        >>> from fast.preprocessing import PublicOrdinalEncoder
        >>> enc = PublicOrdinalEncoder(categories=[["a", "b"], [1, 2, 3]]).fit([["a", 1]])
        >>> [list(c) for c in enc.categories_]
        [['a', 'b'], [1, 2, 3]]
        """
        if self.categories is None:
            raise ValueError("categories must be declared: one list of levels per column (or one list for every "
                             "column, or a dict {column: levels}); reading the levels from the data would leak it")
        _schema(self, X, reset=True, numeric=False)
        d = self.n_features_in_
        names = getattr(self, "feature_names_in_", None)
        cats = self.categories
        if isinstance(cats, dict):
            if names is None:
                raise ValueError("categories given as a dict needs X to be a DataFrame with string column names")
            missing = [c for c in names if c not in cats]
            extra = [c for c in cats if c not in set(names)]
            if missing or extra:
                raise ValueError(f"categories must list the levels of every column of X: missing {missing}, not in "
                                 f"X {extra} (schema check)")
            per_column = [(cats[c], f"categories[{c!r}]") for c in names]
        elif _column_list(cats):
            kinds = [_column_list(c) for c in cats]
            if cats is not None and len(kinds) and all(kinds):
                if len(cats) != d:
                    raise ValueError(f"categories must have one list per column of X ({d}), got {len(cats)} (schema "
                                     "check)")
                per_column = [(c, f"categories[{j}]") for j, c in enumerate(cats)]
            elif not any(kinds):
                per_column = [(cats, "categories")] * d
            else:
                raise ValueError("categories must be one list of levels (every column) or a list of lists (one per "
                                 "column), not a mix")
        else:
            raise TypeError(f"categories must be a list of levels, a list of lists or a dict, got "
                            f"{type(cats).__name__}")
        self._lookups_ = []
        self.categories_ = []
        for given, name in per_column:
            levels, lookup, missing = _levels(given, name)
            self.categories_.append(np.asarray(levels + [None], dtype=object)[:-1])
            self._lookups_.append((lookup, missing))
        return self

    def _codes(self, X):
        _check_is_fitted(self, "categories_")
        _schema(self, X, reset=False, numeric=False)
        return [_codes(col, *lookup) for col, lookup in zip(_columns(X), self._lookups_)]

    def _clipped(self, X):
        return np.column_stack([c < 0 for c in self._codes(X)])


class PublicOneHotEncoder(_Encoder):
    """One-hot encode each column against its DECLARED levels; an unknown value is an all-zero block.

    Column j becomes ``len(categories_[j])`` indicator columns in the declared order.  A value is at a level when
    it equals it under Python equality and hash (``1``, ``1.0``, ``True`` and ``numpy.int64(1)`` are one level;
    ``"1"`` is another).  The documented bucket: a value that is no declared level -- an unseen level, NaN / None /
    pandas NA when no missing level is declared, inf, an unhashable list or dict, a value of another type -- gives an
    ALL-ZERO block (scikit-learn's ``handle_unknown="ignore"``), never an error.  Declaring None (or NaN) as a level
    gives missing values a column of their own.  ``fit`` reads only X's schema (the number of columns and their
    names), never a value, and ``transform`` is row-wise, so the encoder can precede any private estimator at no
    privacy cost (module docstring); a level list read from the data would release which levels occur.  Every
    output row has L2 norm at most sqrt(``n_features_in_``) (exactly one 1 per known value).

    Parameters
    ----------
    categories : list or dict, default=None
        The PUBLIC levels: one list per column (a list of lists / arrays), one list for every column (a list of
        hashable scalars), or a dict ``{column name: levels}`` covering exactly the columns of a DataFrame X.
        Levels are hashable scalars (str, numbers, bool), distinct under Python equality, at most one missing level
        (None / NaN).  Must be declared (None is refused at fit).

    Attributes
    ----------
    categories_ : list of ndarray of object
        The declared levels of each column, in the declared order.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X is a DataFrame with string column names.

    Raises
    ------
    ValueError
        At fit: ``categories`` undeclared, empty for a column, with a repeated or second missing level, mixing
        lists and scalars, or not one list per column of X (schema check); X not 2-d, empty or complex.
    TypeError
        ``categories`` of another type or holding an unhashable level; X sparse.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.preprocessing import PublicOneHotEncoder
    >>> enc = PublicOneHotEncoder(categories=[["red", "green"]]).fit([["red"]])
    >>> enc.transform([["green"], ["blue"], [None]]).tolist()  # blue and None: unknown, all zeros
    [[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    >>> enc.get_feature_names_out().tolist()
    ['x0_red', 'x0_green']
    """

    def transform(self, X):
        """Indicator columns of the declared levels, row by row (unknown values: all-zero block).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, sum of the level counts) (a DataFrame with ``set_output(transform="pandas")``)

        Examples
        --------
        >>> from fast.preprocessing import PublicOneHotEncoder
        >>> enc = PublicOneHotEncoder(categories=[0, 1]).fit([[0, 0]])  # one list: every column
        >>> enc.transform([[1, 0], [True, 7]]).tolist()  # True == 1; 7: unknown
        [[0.0, 1.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
        """
        codes = self._codes(X)
        n = codes[0].shape[0]
        blocks = []
        for c, levels in zip(codes, self.categories_):
            block = np.zeros((n, len(levels)), dtype=np.float64)
            known = c >= 0
            block[np.flatnonzero(known), c[known]] = 1.0
            blocks.append(block)
        return np.hstack(blocks)

    def get_feature_names_out(self, input_features=None):
        """Output names: ``<column>_<level>`` for each declared level of each column.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            The input column names (default: ``feature_names_in_`` or x0, x1, ...).

        Returns
        -------
        ndarray of str

        Raises
        ------
        ValueError
            ``input_features`` does not have one name per input column, or differs from ``feature_names_in_``.

        Examples
        --------
        >>> from fast.preprocessing import PublicOneHotEncoder
        >>> PublicOneHotEncoder(categories=[["a", None]]).fit([["a"]]).get_feature_names_out(["city"]).tolist()
        ['city_a', 'city_None']
        """
        _check_is_fitted(self, "categories_")
        names = _input_names(self, input_features)
        return np.asarray([f"{name}_{level}" for name, levels in zip(names, self.categories_) for level in levels],
                          dtype=object)


class PublicOrdinalEncoder(_Encoder):
    """Ordinal-encode each column against its DECLARED levels: the level's position, -1 for an unknown value.

    Level k of column j (in the declared order) is coded k; the documented bucket -- a value that is no declared
    level (as :class:`PublicOneHotEncoder`: unseen, missing without a declared missing level, inf, unhashable, of
    another type) -- is coded -1, never an error.  Matching, the missing level and the privacy argument are those of
    :class:`PublicOneHotEncoder`.  Codes lie in [-1, len(categories_[j]) - 1]: declare that box to a private
    estimator (or follow with :class:`PublicScaler`).

    Parameters
    ----------
    categories : list or dict, default=None
        The PUBLIC levels, in :class:`PublicOneHotEncoder`'s format.  Must be declared (None is refused at fit).

    Attributes
    ----------
    categories_ : list of ndarray of object
        The declared levels of each column, in the declared order.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When X is a DataFrame with string column names.

    Raises
    ------
    ValueError
        At fit: ``categories`` undeclared or malformed (as :class:`PublicOneHotEncoder`); X not 2-d, empty or complex.
    TypeError
        ``categories`` of another type or holding an unhashable level; X sparse.

    Examples
    --------
    >>> from fast.preprocessing import PublicOrdinalEncoder
    >>> enc = PublicOrdinalEncoder(categories=[["low", "mid", "high"]]).fit([["low"]])
    >>> enc.transform([["high"], ["mid"], ["??"], [[1, 2]]]).ravel().tolist()
    [2.0, 1.0, -1.0, -1.0]
    """

    def transform(self, X):
        """The position of each value's declared level (-1: unknown), row by row.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features) of float64 (a DataFrame with ``set_output(transform="pandas")``)

        Examples
        --------
        >>> import numpy as np
        >>> from fast.preprocessing import PublicOrdinalEncoder
        >>> enc = PublicOrdinalEncoder(categories=[["a", np.nan]]).fit([["a"]])  # NaN: the missing level
        >>> enc.transform([["a"], [None], ["b"]]).ravel().tolist()
        [0.0, 1.0, -1.0]
        """
        return np.column_stack(self._codes(X)).astype(np.float64)

    def get_feature_names_out(self, input_features=None):
        """Output names: the input column names (one code each).

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            The input column names (default: ``feature_names_in_`` or x0, x1, ...).

        Returns
        -------
        ndarray of str

        Raises
        ------
        ValueError
            ``input_features`` does not have one name per input column, or differs from ``feature_names_in_``.

        Examples
        --------
        >>> from fast.preprocessing import PublicOrdinalEncoder
        >>> PublicOrdinalEncoder(categories=["a"]).fit([["a", "a"]]).get_feature_names_out().tolist()
        ['x0', 'x1']
        """
        _check_is_fitted(self, "categories_")
        return np.asarray(_input_names(self, input_features), dtype=object)


def _input_names(est, input_features):
    if input_features is None:
        return _names(est)
    names = [str(f) for f in input_features]
    if len(names) != est.n_features_in_:
        raise ValueError(f"input_features should have length {est.n_features_in_}, got {len(names)}")
    if hasattr(est, "feature_names_in_") and list(est.feature_names_in_) != names:
        raise ValueError("input_features is not equal to feature_names_in_")
    return names


# --------------------------------------------------------------------------------------------------- diagnostic
def clipping_report(transformer, X, *, threshold=0.05):
    """NON-PRIVATE custodian diagnostic: the share of rows and values that a fitted public transformer clipped
    (or, for an encoder, sent to the unknown bucket); warns :class:`ClippingWarning` above ``threshold``.

    Reads the data's VALUES and reports exact counts: its result and its warning are NOT differentially private.
    Run it on your own data, outside any private path, to check the declared bounds / levels / norm (a feature in
    other units than declared clamps most of its rows); never publish its output as part of a private release.
    That is why the transformers' ``transform`` (run inside ``Pipeline.fit`` of a private estimator) stays silent:
    a warning there would appear or not according to one record.

    A value counts as clipped when the transformer did not read it as given: outside the declared box (scaler, box
    clipper), not a real number or NaN (read as the centre), +-inf, in a row the L2 clipper scaled down (its
    non-zero entries), or, for the encoders, not a declared level.

    Parameters
    ----------
    transformer : PublicScaler, DomainClipper, PublicOneHotEncoder or PublicOrdinalEncoder
        A FITTED transformer of this module.
    X : array-like or DataFrame of shape (n_samples, n_features)
        The data to diagnose (its schema must match the transformer's fit).
    threshold : float in [0, 1], default=0.05
        Warn when the share of rows with at least one clipped value exceeds it.

    Returns
    -------
    dict
        ``n_rows``; ``rows_clipped`` and ``row_share`` (rows with at least one clipped value); ``values_clipped``
        and ``value_share`` (over all n_rows x n_features values); ``feature_share`` (ndarray: the share of rows
        clipped in each input feature) and ``features`` (their names).

    Raises
    ------
    TypeError
        ``transformer`` is not one of this module's transformers.
    ValueError
        ``threshold`` is not a number in [0, 1]; X's schema does not match the fit.

    Warns
    -----
    ClippingWarning
        When ``row_share > threshold``, naming the most clipped feature.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from fast.preprocessing import PublicScaler, clipping_report
    >>> X = np.array([[0.5, 120.0], [0.2, 80.0], [0.9, 0.5], [0.1, 300.0]])
    >>> scaler = PublicScaler(bounds=(0.0, 1.0)).fit(X)  # column 1 is not in [0, 1]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     report = clipping_report(scaler, X)
    >>> report["row_share"], report["feature_share"].tolist()
    (0.75, [0.0, 0.75])
    """
    if not isinstance(transformer, (_Numeric, _Encoder)):
        raise TypeError(f"transformer must be a transformer of fast.preprocessing, got {type(transformer).__name__}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)) \
            or not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}")
    clipped = transformer._clipped(X)
    n, d = clipped.shape
    rows = clipped.any(axis=1)
    feature_share = clipped.mean(axis=0)
    names = _names(transformer)
    report = {"n_rows": int(n), "rows_clipped": int(rows.sum()), "row_share": float(rows.mean()),
              "values_clipped": int(clipped.sum()), "value_share": float(clipped.mean()),
              "feature_share": feature_share, "features": names}
    if report["row_share"] > float(threshold):
        worst = int(np.argmax(feature_share))
        warnings.warn(f"{type(transformer).__name__}: {report['rows_clipped']} of {n} rows "
                      f"({100 * report['row_share']:.1f} %) have a value outside the declared domain (threshold "
                      f"{100 * float(threshold):g} %); most in feature {names[worst]!r} "
                      f"({100 * feature_share[worst]:.1f} % of its rows). Check the declared bounds / categories / "
                      "norm (this diagnostic reads the data: it is NOT private)", ClippingWarning, stacklevel=2)
    return report
