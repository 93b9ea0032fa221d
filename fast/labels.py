"""Label encodings (vectorised twin of :mod:`reference.labels`)."""
from __future__ import annotations

import numpy as np

__all__ = ["to_pm1"]


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
    classes = np.unique(arr)
    if classes.shape[0] != 2:
        raise ValueError(f"y must hold exactly two classes, found {classes.shape[0]}: {sorted(classes.tolist())[:5]}")
    if positive is None:
        positive = classes[1]
    if positive not in classes.tolist():
        raise ValueError(f"positive must be one of the classes {sorted(classes.tolist())}, got {positive!r}")
    negative = classes[0] if positive == classes[1] else classes[1]
    labels = np.where(arr == positive, 1, -1).astype(np.int8)
    return labels, np.array([negative, positive])
