"""Input contract of the reconstruction modules (nock2015 s7), shared by reference and fast.

The paper's selector U in {0,1}^{2^m x n} has one-hot columns; it may be given as that matrix or as the vector
of the n selected column indices of G_m (the only practical form once 2^m is large).
"""
from __future__ import annotations

import numpy as np


def as_selection(U, m: int, *, n: int | None = None, name: str = "U") -> list[int]:
    """The selected column indices of G_m, as Python ints (repeats allowed: U is a multiset of rados)."""
    if isinstance(U, (str, bytes)) or U is None:
        raise TypeError(f"{name} must be column indices of G_m or a one-hot (2^m, n) selector, got {type(U).__name__}")
    arr = np.asarray(U)
    if arr.dtype == object or arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integers (column indices of G_m, or a 0/1 selector), got dtype {arr.dtype}")
    if arr.ndim == 2:
        if arr.shape[0] != 2**m:
            raise ValueError(f"{name} as a one-hot selector must have 2^m = {2**m} rows, got shape {arr.shape}")
        if not (np.all((arr == 0) | (arr == 1)) and np.all(arr.sum(axis=0) == 1)):
            raise ValueError(f"{name} as a selector must have exactly one 1 per column (the rest 0)")
        arr = np.argmax(arr, axis=0)
    elif arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array of column indices or a 2-d one-hot selector, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must select at least one rado (n >= 1)")
    if int(arr.min()) < 0 or int(arr.max()) >= 2**m:
        raise ValueError(f"{name} must hold column indices of G_m in [0, 2^m) with m = {m}")
    if n is not None and arr.size != n:
        raise ValueError(f"{name} must select n = {n} rados (one per row of rados), got {arr.size}")
    return [int(c) for c in arr]


def check_same_width(E1, E2) -> None:
    if E1.shape[1] != E2.shape[1]:
        raise ValueError(f"E1 and E2 must have the same number of columns d, got {E1.shape[1]} and {E2.shape[1]}")
