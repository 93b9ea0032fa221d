"""The input contract of Stochastic Neighbor Compression (kusner2016 ch3; ``reference.snc`` and ``fast.snc``).

Both packages validate their arguments here, so the same bad input raises the same exception type with the same
message in both, and they return the same result type (:class:`SNCFit`).

Conventions (fixed here because the thesis leaves them open):

* Inputs and references are ROWS: ``X`` is (n, d), ``Z`` is (m, d) (the thesis stores them as columns).
* Labels are any 1-d array of integers (or of strings) compared by equality; ``z_labels`` are the fixed labels
  yhat_j of the references.  Every class present in ``y`` needs at least one reference: otherwise p_i = 0 for its
  inputs and L(Z) = +inf (thesis §2.2 edge case), so it is refused with a ValueError.
* The metric ``A`` of eq. (3.7) is a 1-d array ``a`` (diagonal A = diag(a)) or a 2-d (r, d) array (full A).
* Class-proportional initialisation (Algorithm 2, line 2; :func:`class_allocation`): class c gets
  ``m_c >= 1`` references; the remaining ``m - C`` are shared in proportion to the class counts n_c by the
  largest-remainder rule on ``(m - C) n_c / n`` (ties to the lower class index), so sum_c m_c = m exactly and
  m_c <= n_c.  Classes are ordered as ``numpy.unique(y)``; inside class c the draw is
  ``rng.choice(idx_c, size=m_c, replace=False)`` (idx_c ascending), classes in order, so both packages take the
  same draws from the same generator.
* Prediction (``snc_predict``, the 1-NN rule of §3.1.4 and its k-NN form): the distance is the EXACT squared
  Euclidean distance ||x - z_j||^2 of the float64 coordinates (real arithmetic, no rounding); the k nearest are the
  first k references in the order (distance, index j), so among equally near references the lowest index comes
  first; the label is the majority label among them, ties to the smallest label (``numpy.unique`` order).  For
  k = 1: the label of the nearest reference, the lowest index among exactly equal distances.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from fast._contracts.validation import as_float_matrix, check_int, check_positive

#: the metric forms of eq. (3.7): A = gamma I (scalar), A = diag(a), A full (r x d)
METRICS = ("scalar", "diagonal", "full")
#: the fast kernels work on blocks of at most this many (input, reference) pairs (memory O(n_chunk m))
CHUNK_ELEMENTS = 1 << 18


def as_labels_any(value, name: str, *, length: int | None = None) -> np.ndarray:
    """A non-empty 1-d array of class labels (integers or strings; no floats with NaN, no objects)."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a 1-d array of class labels, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of class labels, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype == object:
        raise TypeError(f"{name} must hold integers or strings, got dtype object")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold class labels (integers or strings), got non-integer floats")
    elif arr.dtype.kind not in "iuUSb":
        raise TypeError(f"{name} must hold integers or strings, got dtype {arr.dtype}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length} (one label per row), got {arr.shape[0]}")
    return arr


def check_gamma2(gamma2) -> float:
    """gamma^2 of eq. (3.3): a finite number > 0."""
    return check_positive(gamma2, "gamma2")


def check_inputs(X, y):
    """X (n, d) finite float64 and y (n,) labels."""
    X = as_float_matrix(X, "X")
    y = as_labels_any(y, "y", length=X.shape[0])
    return X, y


def check_problem(X, y, Z, z_labels):
    """X (n, d), y (n,), Z (m, d), z_labels (m,); every class of y has a reference (else L = inf)."""
    X, y = check_inputs(X, y)
    Z = as_float_matrix(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z must have d = {X.shape[1]} columns like X, got shape {Z.shape}")
    z_labels = as_labels_any(z_labels, "z_labels", length=Z.shape[0])
    if y.dtype.kind in "US" and z_labels.dtype.kind not in "US" or y.dtype.kind not in "US" and z_labels.dtype.kind in "US":
        raise TypeError(f"y and z_labels must both be numbers or both be strings, got {y.dtype} and {z_labels.dtype}")
    missing = np.setdiff1d(np.unique(y), np.unique(z_labels))
    if missing.size:
        raise ValueError(
            "z_labels must contain every class of y (a class with no reference has p_i = 0 and L(Z) = inf); "
            f"missing {missing[:5].tolist()}"
        )
    return X, y, Z, z_labels


def check_metric_A(A, d: int) -> np.ndarray:
    """A of eq. (3.7): 1-d (d,) diagonal or 2-d (r, d) full, finite."""
    if isinstance(A, (str, bytes)) or A is None:
        raise TypeError(f"A must be a numeric array, got {type(A).__name__}")
    arr = np.asarray(A)
    ndim = arr.ndim if arr.ndim in (1, 2) else 2
    arr = as_float_matrix(A, "A", ndim=ndim)
    if arr.shape[-1] != d:
        raise ValueError(f"A must have d = {d} columns (diagonal: length d), got shape {arr.shape}")
    return arr


def check_metric(metric) -> str:
    if not isinstance(metric, str) or metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    return metric


def check_m(m, n: int, n_classes: int) -> int:
    """The number of references: an integer with n_classes <= m <= n (one reference per class at least)."""
    m = check_int(m, "m")
    if m < n_classes:
        raise ValueError(
            f"m must be >= the number of classes ({n_classes}): every class needs a reference, got m = {m}"
        )
    if m > n:
        raise ValueError(f"m must be <= n = {n} (the references are drawn from the inputs), got m = {m}")
    return m


def check_compression(compression, n: int, n_classes: int) -> int:
    """``compression``: a ratio in (0, 1] (m = round(ratio n)) or an integer count m, with n_classes <= m <= n
    either way: every class needs a reference (the thesis's m_c >= 1 rule), and a ratio or count that leaves fewer
    references than classes is refused (issue 13, item 6), never silently raised to one per class."""
    if isinstance(compression, bool) or not isinstance(compression, numbers.Real):
        raise TypeError(f"compression must be a ratio in (0, 1] or an integer count, got {compression!r}")
    if isinstance(compression, numbers.Integral):
        if compression < n_classes:
            raise ValueError(
                f"compression = {int(compression)} references is fewer than the {n_classes} classes: every class "
                "needs at least one reference"
            )
        return check_m(int(compression), n, n_classes)
    c = float(compression)
    if not (0.0 < c <= 1.0):
        raise ValueError(f"compression must be a ratio in (0, 1] or an integer count, got {compression!r}")
    m = int(round(c * n))
    if m < n_classes:
        raise ValueError(
            f"compression = {compression!r} leaves round({compression!r} * {n}) = {m} references, fewer than the "
            f"{n_classes} classes: every class needs at least one reference (use a larger ratio or an integer count "
            f">= {n_classes})"
        )
    return min(n, m)


def check_predict(Z, z_labels, X, k):
    """The arguments of ``snc_predict(Z, z_labels, X, k)``: the compressed set Z (m, d) finite with labels (m,), the
    queries X (n, d) finite with the same d, and 1 <= k <= m (an integer).  Checked in this order, so both packages
    raise the same error on the same bad input."""
    Z = as_float_matrix(Z, "Z")
    z_labels = as_labels_any(z_labels, "z_labels", length=Z.shape[0])
    X = as_float_matrix(X, "X")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(
            f"X must have d = {Z.shape[1]} columns like the compressed set Z (shape {Z.shape}), got shape {X.shape}"
        )
    k = check_int(k, "k", minimum=1)
    if k > Z.shape[0]:
        raise ValueError(f"k must be <= m = {Z.shape[0]} (the number of references in Z), got k = {k}")
    return Z, z_labels, X, k


def check_iterations(max_iter, tol):
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    tol = check_positive(tol, "tol")
    return max_iter, tol


@dataclass(frozen=True)
class SNCFit:
    """Result of an SNC optimisation (both packages).

    Z: (m, d) learned references (rows); z_labels: their fixed labels; gamma2: the scale after optimisation;
    A: the metric (None for the scalar form); losses: L at the start and after every accepted step (a float64
    array, non-increasing); n_iter: number of steps taken; converged: the stopping rule was met.
    """

    Z: np.ndarray
    z_labels: np.ndarray
    gamma2: float
    A: np.ndarray | None
    losses: np.ndarray
    n_iter: int
    converged: bool
