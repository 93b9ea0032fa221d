"""Label encodings (vectorised twin of :mod:`reference.labels`)."""
from __future__ import annotations

import numpy as np

from fast._contracts.labels_contract import (CLASSES_REQUIRED, check_classes, check_label_kind, classes_array,
                                             declared_classes, label_array, positives)

# check_classes, classes_array, declared_classes and CLASSES_REQUIRED are spec.labels_contract's (one definition for
# both packages), importable from here too
__all__ = ["to_pm1", "declared_pm1"]


def to_pm1(y, positive=None):
    """Map two-class labels to {-1, +1}; return (labels as int8 ndarray, classes as ndarray [negative, positive]).

    Parameters
    ----------
    y : array_like of shape (n,)
        Labels holding exactly two distinct values (numbers, strings or booleans).
    positive : scalar, optional
        The class mapped to +1 (default: the larger of the two in sorted order).

    Returns
    -------
    labels : numpy.ndarray of shape (n,), dtype int8
        The labels in {-1, +1}.
    classes : numpy.ndarray of shape (2,)
        ``[negative, positive]``, to map predictions back (``classes[(pred + 1) // 2]``).

    Raises
    ------
    ValueError
        If ``y`` is not 1-d, does not hold exactly two classes, or ``positive`` is not one of them.

    Examples
    --------
    >>> from fast.labels import to_pm1
    >>> labels, classes = to_pm1(["no", "yes", "yes", "no"])
    >>> labels.tolist(), classes.tolist()
    ([-1, 1, 1, -1], ['no', 'yes'])
    >>> to_pm1([0, 1, 1], positive=0)[0].tolist()
    [1, -1, -1]
    """
    if isinstance(y, (str, bytes)) or np.asarray(y).ndim != 1:
        raise ValueError("y must be a 1-d array of two-class labels")
    arr = np.asarray(y)
    classes = _two_numbers(arr)
    if classes is None:  # not numeric, or not exactly two values: sort (np.unique) and count for the message
        classes = np.unique(arr)
        if classes.shape[0] != 2:
            raise ValueError(f"y must hold exactly two classes, found {classes.shape[0]}: "
                             f"{sorted(classes.tolist())[:5]}")
    if positive is None:
        positive = classes[1]
    if positive not in classes.tolist():
        raise ValueError(f"positive must be one of the classes {sorted(classes.tolist())}, got {positive!r}")
    negative = classes[0] if positive == classes[1] else classes[1]
    labels = np.empty(arr.shape[0], dtype=np.int8)
    np.equal(arr, positive, out=labels.view(np.bool_))  # 1 where y == positive, else 0; then 2 b - 1 in place
    labels *= 2
    labels -= 1
    return labels, np.array([negative, positive])


def _column(y):
    """y of shape (n, 1) as 1-d, with scikit-learn's DataConversionWarning (a shape: public schema); any other y as
    given (the estimators' twin of scikit-learn's ``column_or_1d``, which would also read the values)."""
    if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] == 1:
        import warnings

        from sklearn.exceptions import DataConversionWarning

        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change the shape of y to "
                      "(n_samples, ), for example using ravel().", DataConversionWarning, stacklevel=3)
        return y.ravel()
    return y


def _two_numbers(arr):
    """[min, max] (arr's dtype) when the numeric array ``arr`` holds exactly these two values, else None: two
    reductions and two comparisons instead of np.unique's sort (NaN makes min / max NaN: None, np.unique decides,
    as for a float class equal to zero)."""
    if arr.dtype.kind not in "biuf" or arr.size == 0:
        return None
    lo, hi = arr.min(), arr.max()
    if arr.dtype.kind == "f" and (lo == 0.0 or hi == 0.0):  # which zero represents +-0 is np.unique's choice
        return None
    if not lo < hi or np.count_nonzero(arr == lo) + np.count_nonzero(arr == hi) != arr.shape[0]:
        return None
    return np.array([lo, hi], dtype=arr.dtype)


def declared_pm1(y, classes, n=None):
    """y to {-1, +1} against a DECLARED pair: +1 where y == classes[1], -1 for EVERY other value (classes[0], values
    outside the pair, NaN, None, other types).  Nothing here depends on which labels occur (issue 25; see
    :mod:`spec.labels_contract`).

    Parameters
    ----------
    y : array_like of shape (n,)
        The labels: an array (its dtype is public schema) or a sequence (read element by element).
    classes : pair
        ``(negative, positive)``, public (two distinct hashable scalars).
    n : int, optional
        The number of rows y must have.

    Returns
    -------
    numpy.ndarray of shape (n,), dtype int8
        +1 where y equals ``classes[1]``, else -1.

    Raises
    ------
    ValueError
        ``classes`` is not a valid pair, y is not 1-d or has another length than ``n``, or y's dtype can never
        hold ``classes[1]`` (decided from the dtype alone).

    Examples
    --------
    >>> from fast.labels import declared_pm1
    >>> declared_pm1(["yes", "no", "maybe", None], ("no", "yes")).tolist()
    [1, -1, -1, -1]
    >>> import numpy as np
    >>> declared_pm1(np.array([1.0, np.nan, 0.0, 7.0]), (0, 1)).tolist()
    [1, -1, -1, -1]
    """
    pair = check_classes(classes)
    arr = label_array(y, n)
    kind = check_label_kind(arr, pair)
    labels = np.empty(arr.shape[0], dtype=np.int8)
    if kind == "object":  # element by element, never raising: any failing comparison is "not positive"
        mask = np.fromiter(positives(arr, pair[1]), dtype=np.bool_, count=arr.shape[0])
        np.copyto(labels.view(np.bool_), mask)
    else:  # one vectorised comparison of the dtype numpy already has (NaN compares unequal; a class beyond the
        with np.errstate(all="ignore"):  # dtype's range, e.g. 1e300 against float16, overflows the cast: unequal)
            np.equal(arr, pair[1], out=labels.view(np.bool_))
    labels *= 2  # 2 b - 1 in place
    labels -= 1
    return labels
