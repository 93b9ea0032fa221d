"""Label encodings: the papers use y in {-1, +1}; data arrive as {0, 1}, booleans or two class names.

``to_pm1`` is the explicit conversion every entry point asks callers to make (no silent coercion):
the second class in sorted order (or ``positive``) becomes +1.
"""
from __future__ import annotations

import numpy as np

from spec.labels_contract import (CLASSES_REQUIRED, check_classes, check_label_kind, classes_array, declared_classes,
                                  label_array, positives)

# check_classes, classes_array, declared_classes and CLASSES_REQUIRED are spec.labels_contract's (one definition for
# both packages), importable from here too
__all__ = ["to_pm1", "declared_pm1"]


def to_pm1(y, positive=None):
    """Map two-class labels to {-1, +1}; return (labels as int8 ndarray, classes as ndarray [negative, positive]).

    ``positive`` names the class mapped to +1 (default: the larger of the two in sorted order).  Raises
    ValueError when y does not hold exactly two classes or ``positive`` is not one of them.

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
    >>> from reference.labels import to_pm1
    >>> labels, classes = to_pm1(["no", "yes", "yes", "no"])
    >>> labels.tolist(), classes.tolist()
    ([-1, 1, 1, -1], ['no', 'yes'])
    >>> to_pm1([0, 1, 1], positive=0)[0].tolist()
    [1, -1, -1]
    """
    values = list(np.asarray(y).ravel().tolist()) if not isinstance(y, (str, bytes)) else None
    if values is None or np.asarray(y).ndim != 1:
        raise ValueError("y must be a 1-d array of two-class labels")
    classes = sorted(set(values))
    if len(classes) != 2:
        raise ValueError(f"y must hold exactly two classes, found {len(classes)}: {classes[:5]}")
    if positive is None:
        positive = classes[1]
    if positive not in classes:
        raise ValueError(f"positive must be one of the classes {classes}, got {positive!r}")
    negative = classes[0] if positive == classes[1] else classes[1]
    labels = [1 if v == positive else -1 for v in values]
    return np.array(labels, dtype=np.int8), np.array([negative, positive])


def declared_pm1(y, classes, n=None):
    """y_i -> +1 if y_i == classes[1] else -1, for every i: a DECLARED pair, "anything that is not the positive class
    is negative" (issue 25; see :mod:`spec.labels_contract`).

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
    >>> from reference.labels import declared_pm1
    >>> declared_pm1(["yes", "no", "maybe", None], ("no", "yes")).tolist()
    [1, -1, -1, -1]
    """
    pair = check_classes(classes)
    arr = label_array(y, n)
    check_label_kind(arr, pair)
    return np.array([1 if hit else -1 for hit in positives(list(arr), pair[1])], dtype=np.int8)
