"""The contract of DECLARED label sets, shared by ``reference.labels`` and ``fast.labels`` (issue 25, item 1).

Why the label set is public input.  A private fit that reads its classes from y (``np.unique``) lets ONE record
decide what the fit does: with one row holding the only positive label, D gives two classes and succeeds, while
the neighbour D' (that label replaced) gives one class and raises, every time, so an observer of success or
failure learns the label with certainty (no noise covers it); ``classes_`` released the exact label set as well.
Even a default inferred from the values leaks: D with a lone 0 among 1s and D' with that 0 replaced by 1 would give
classes_ (0, 1) and a different default.  So, as OpenDP makes a domain public, a private fit takes the pair
``classes = (negative, positive)`` as a parameter, and its behaviour (success, exceptions, warnings, messages, the
work done before the first noise draw) depends only on the parameters and on y's PUBLIC schema (its length, its
shape, its dtype), never on which labels occur or how many of each:

* ``classes_`` is exactly the declared pair (:func:`classes_array`);
* a label equal to ``classes[1]`` is +1, and EVERY other value (``classes[0]``, values outside the pair, NaN, None,
  values of other types) is -1: the documented bucket "anything that is not the positive class is negative";
* ``classes`` itself is checked (:func:`check_classes`: two distinct hashable scalars, not NaN) before the data is
  read, with a ValueError naming ``classes``;
* y's schema is checked (:func:`label_array`: 1-d, one label per row) and y's dtype against the positive class
  (:func:`check_label_kind`: a float y can never hold the label ``'yes'``), from the dtype alone;
* ``classes=None`` on a private fit: a y of bool dtype has the classes (False, True) (the dtype is public schema);
  anything else is refused (:func:`declared_classes`, :data:`CLASSES_REQUIRED`) from the parameters and the dtype
  alone.

A list (not an array) is read element by element into an object array (:func:`label_array`), so that one label
never changes how the others are read (``np.asarray([1, 1, "a"])`` would turn every label into a string, and the
ints would stop matching ``classes=(0, 1)``: one record would flip every other row's label).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["CLASSES_REQUIRED", "check_classes", "check_class_set", "classes_array", "label_array", "check_label_kind",
           "declared_classes", "positives"]

#: the message of a private fit given no ``classes`` (and a y that is not of bool dtype)
CLASSES_REQUIRED = (
    "classes must be given for a private fit: the label set is public input (e.g. classes=(0, 1) or (-1, 1)); "
    "reading it from y would let one record decide classes_ and whether the fit succeeds (only a y of bool dtype "
    "needs none: its classes are (False, True))")


def _scalar(value) -> bool:
    """A label a pair may declare: str, bytes, a real number or a bool (numpy scalars included), not NaN."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        return True
    if isinstance(value, numbers.Real) and not isinstance(value, np.ndarray):
        try:
            return not math.isnan(value)
        except (TypeError, ValueError, OverflowError):
            return False
    return False


def check_classes(classes, name: str = "classes") -> tuple:
    """The declared pair ``(negative, positive)``, checked: two distinct hashable scalars (str, bytes, int, float or
    bool; numpy scalars too; not NaN).

    Parameters
    ----------
    classes : sequence of two labels
        ``(negative, positive)``: ``positive`` is +1, everything else -1.
    name : str, default="classes"
        The argument's name, for the message.

    Returns
    -------
    tuple
        ``(negative, positive)`` as given.

    Raises
    ------
    ValueError
        Not a pair (a str, a set, a dict or a sequence of another length), an element that is not a hashable
        scalar or is NaN, or two equal elements (``1 == 1.0 == True``).

    Examples
    --------
    >>> check_classes((0, 1))
    (0, 1)
    >>> check_classes(["no", "yes"])
    ('no', 'yes')
    >>> check_classes((1, True))
    Traceback (most recent call last):
    ...
    ValueError: classes must be two distinct labels (negative, positive), got (1, True): they are equal
    """
    rule = f"{name} must be a pair (negative, positive) of two distinct labels (str, bytes, int, float or bool; not NaN)"
    if isinstance(classes, (str, bytes, dict, set, frozenset)) or classes is None:
        raise ValueError(f"{rule}, got {classes!r}")
    try:
        pair = tuple(classes)  # an ndarray gives its numpy scalars (their dtype kept)
    except TypeError:
        raise ValueError(f"{rule}, got {classes!r}") from None
    if len(pair) != 2 or not all(_scalar(v) for v in pair):
        raise ValueError(f"{rule}, got {classes!r}")
    if pair[0] == pair[1]:
        raise ValueError(f"{name} must be two distinct labels (negative, positive), got {classes!r}: they are equal")
    return pair


def check_class_set(classes, name: str = "classes") -> tuple:
    """A declared label SET of k >= 2 classes (a multiclass fit's ``classes``), checked like a pair: a sequence of k
    distinct hashable scalars (str, bytes, int, float or bool; numpy scalars too; not NaN); a pair is returned as
    :func:`check_classes` returns it.

    The contract for k labels is the pair's, one class at a time (one-vs-rest): row i is a positive of class c
    exactly when y_i == classes[c]; a value outside the declared set (NaN, None, a label nobody declared, another
    type) is positive for NO class, the documented bucket "none of the declared classes", never an error; nothing
    depends on which labels occur.

    Parameters
    ----------
    classes : sequence of k >= 2 labels
    name : str, default="classes"
        The argument's name, for the message.

    Returns
    -------
    tuple

    Raises
    ------
    ValueError
        Not a sequence of at least two labels (a str, a set, a dict, a scalar), an element that is not a hashable
        scalar or is NaN, or two equal elements (``1 == 1.0 == True``).

    Examples
    --------
    >>> check_class_set(("setosa", "versicolor", "virginica"))
    ('setosa', 'versicolor', 'virginica')
    >>> check_class_set((0, 1, 1.0))
    Traceback (most recent call last):
    ...
    ValueError: classes must be distinct labels, got (0, 1, 1.0): classes[1] == classes[2]
    """
    rule = (f"{name} must be a pair (negative, positive) or, one-vs-rest, a sequence of k > 2 distinct labels (str, "
            f"bytes, int, float or bool; not NaN)")
    if isinstance(classes, (str, bytes, dict, set, frozenset)) or classes is None:
        raise ValueError(f"{rule}, got {classes!r}")
    try:
        labels = tuple(classes)
    except TypeError:
        raise ValueError(f"{rule}, got {classes!r}") from None
    if len(labels) == 2:
        return check_classes(labels, name)
    if len(labels) < 2 or not all(_scalar(v) for v in labels):
        raise ValueError(f"{rule}, got {classes!r}")
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            if labels[i] == labels[j]:
                raise ValueError(f"{name} must be distinct labels, got {classes!r}: {name}[{i}] == {name}[{j}]")
    return labels


def classes_array(classes) -> np.ndarray:
    """The declared pair as the ``classes_`` array: numpy's own dtype when it keeps both values exactly (two
    numbers, two str, two bytes), else an object array (e.g. a str and a number, which numpy would make strings).

    Parameters
    ----------
    classes : pair
        A pair accepted by :func:`check_classes`.

    Returns
    -------
    numpy.ndarray of shape (2,)

    Examples
    --------
    >>> classes_array((0, 1)).tolist(), classes_array(("no", "yes")).dtype.kind
    ([0, 1], 'U')
    >>> classes_array((0, "yes")).tolist()
    [0, 'yes']
    """
    pair = check_classes(classes)
    arr = np.array(pair)
    numeric = all(isinstance(v, (numbers.Real, np.bool_)) and not isinstance(v, (str, bytes)) for v in pair)
    same = (numeric and arr.dtype.kind in "biuf") or all(isinstance(v, str) for v in pair) \
        or all(isinstance(v, bytes) for v in pair)
    if not same or arr.shape != (2,) or not (arr[0] == pair[0] and arr[1] == pair[1]):
        arr = np.empty(2, dtype=object)
        arr[0], arr[1] = pair
    return arr


def label_array(y, n=None, name: str = "y") -> np.ndarray:
    """y as a 1-d array, from its public schema only: an array (ndarray, pandas Series, anything with
    ``__array__``) as numpy reads it; any other sequence element by element into an object array, so that no label
    changes how another is read.

    Parameters
    ----------
    y : array-like of shape (n,)
        The labels.
    n : int, optional
        The number of rows of X: y must have exactly one label per row.
    name : str, default="y"
        The argument's name, for messages.

    Returns
    -------
    numpy.ndarray of shape (n,)

    Raises
    ------
    ValueError
        y is None, a str or a scalar, an array that is not 1-d, or of another length than ``n`` (the schema only).

    Examples
    --------
    >>> label_array([1, 1, "a"]).tolist()
    [1, 1, 'a']
    >>> label_array([0, 1], n=3)
    Traceback (most recent call last):
    ...
    ValueError: y must have one label per row of X (3), got 2
    """
    if y is None:
        raise ValueError(f"this fit requires {name} to be passed, but the target {name} is None")
    if isinstance(y, (str, bytes)) or np.isscalar(y):
        raise ValueError(f"{name} must be a 1-d array-like of labels, got {type(y).__name__}")
    if isinstance(y, np.ndarray) or hasattr(y, "__array__") or hasattr(y, "dtype"):
        arr = np.asarray(y)
    else:
        try:
            size = len(y)
        except TypeError:
            raise ValueError(f"{name} must be a 1-d array-like of labels, got {type(y).__name__}") from None
        # element by element: a label that is itself a sequence is one (negative) label, not a row
        arr = np.fromiter(y, dtype=object, count=size)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have one label per row of X ({n}), got {arr.shape[0]}")
    return arr


def check_label_kind(arr: np.ndarray, classes) -> str:
    """How labels of ``arr``'s dtype compare with the positive class, decided from the dtype alone: "numeric"
    (numbers, bools), "str", "bytes" or "object" (element by element).

    Parameters
    ----------
    arr : numpy.ndarray
        The labels (:func:`label_array`).
    classes : pair
        The declared pair.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        y's dtype can never hold the positive class (e.g. a float y and ``classes[1] = 'yes'``): every label would
        be negative.  Decided from the dtype and ``classes``, never from the values.

    Examples
    --------
    >>> import numpy as np
    >>> check_label_kind(np.array([0.0, 1.0]), (0, 1))
    'numeric'
    >>> check_label_kind(np.array([0.0, 1.0]), ("no", "yes"))
    Traceback (most recent call last):
    ...
    ValueError: classes[1] = 'yes' can never equal a label of y's dtype float64: every label would be negative; declare classes of y's kind (numbers)
    """
    pair = check_classes(classes)
    positive = pair[1]
    kind = arr.dtype.kind
    if kind in "biufc":
        want, what = "numeric", "numbers"
        fits = not isinstance(positive, (str, bytes))
    elif kind == "U":
        want, what = "str", "str labels"
        fits = isinstance(positive, str)
    elif kind == "S":
        want, what = "bytes", "bytes labels"
        fits = isinstance(positive, bytes)
    else:
        return "object"
    if not fits:
        raise ValueError(f"classes[1] = {positive!r} can never equal a label of y's dtype {arr.dtype}: every label "
                         f"would be negative; declare classes of y's kind ({what})")
    return want


def declared_classes(classes, y) -> tuple:
    """The pair a private fit uses: ``classes`` checked, or (False, True) for a y of bool DTYPE (an array's dtype is
    public schema; a list has none), else the ValueError :data:`CLASSES_REQUIRED`.

    Parameters
    ----------
    classes : pair or None
        The declared ``(negative, positive)``.
    y : array-like
        The labels (only their dtype is looked at, and only when ``classes`` is None).

    Returns
    -------
    tuple

    Raises
    ------
    ValueError
        ``classes`` is None and y has no bool dtype, or ``classes`` is not a valid pair.

    Examples
    --------
    >>> import numpy as np
    >>> declared_classes(None, np.array([True, False]))
    (False, True)
    >>> declared_classes(("no", "yes"), ["no"])
    ('no', 'yes')
    """
    if classes is not None:
        return check_classes(classes)
    dtype = getattr(y, "dtype", None)
    try:
        is_bool = dtype is not None and np.dtype(dtype) == np.bool_
    except TypeError:  # a pandas extension dtype ("boolean" with NA, "category"): not numpy's bool
        is_bool = False
    if is_bool:
        return (False, True)
    raise ValueError(CLASSES_REQUIRED)


def positives(values, positive) -> list:
    """``[value == positive for value in values]`` as plain bools, never raising or warning: a comparison that
    raises, warns or returns anything but a bool (an array, pandas' NA) means "not the positive class".

    Parameters
    ----------
    values : iterable
        The labels.
    positive : scalar
        The positive class.

    Returns
    -------
    list of bool

    Examples
    --------
    >>> positives([1.0, [1], float("nan"), None, True], 1)
    [True, False, False, False, True]
    """
    import warnings

    out = []
    with warnings.catch_warnings():  # once for the whole loop (entering the context per label would cost ~1 us)
        warnings.simplefilter("ignore")
        for value in values:
            try:
                result = value == positive
            except Exception:  # noqa: BLE001 - any failing comparison: not the positive class
                out.append(False)
                continue
            out.append(result is True or (type(result) in (bool, np.bool_) and bool(result)))
    return out
