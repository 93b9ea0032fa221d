"""Keyed row hashes: fold and split membership of a row from a 128-bit key and the row's own stable id.

A row's fold never depends on the other rows, their number, their order or the partitioning (the dask paths'
rule; the add/remove-one sensitivity of keyed folds is ``proofs_checks/check_impact_keyed_folds.py``).  Re-exported
by :mod:`fast.estimators._distributed`.
"""
from __future__ import annotations

import hashlib
import os

import numpy as np

__all__ = ["keyed_hash", "fold_key", "keyed_folds", "keyed_split"]

_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix(h: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection of uint64, full avalanche), in place on ``h`` (which it returns)."""
    t = np.empty_like(h)
    for shift, mult in ((30, _M1), (27, _M2)):
        np.right_shift(h, np.uint64(shift), out=t)
        h ^= t
        h *= mult
    np.right_shift(h, np.uint64(31), out=t)
    h ^= t
    return h


def keyed_hash(row_ids, key: tuple[int, int]) -> np.ndarray:
    """uint64 hash of each row id under a 128-bit key: mix(mix(id ^ k0) ^ k1).  A function of (key, the row's own
    id) only: a row's fold never depends on the other rows, their number, their order or the partitioning."""
    ids = np.asarray(row_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"row_id must be a column of integers (a stable id per row), got dtype {ids.dtype}")
    with np.errstate(over="ignore"):
        h = ids.astype(np.int64).view(np.uint64) ^ np.uint64(key[0])  # a new array: the input is never modified
        h = _mix(h)
        h ^= np.uint64(key[1])
        return _mix(h)


def fold_key(seed) -> tuple[int, int]:
    """The 128-bit fold key from ``random_state``'s integer seed (None: fresh from ``os.urandom``)."""
    raw = os.urandom(16) if seed is None else hashlib.sha256(b"privlearn.keyed_folds\x00"
                                                             + int(seed).to_bytes(16, "little")).digest()[:16]
    return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")


def keyed_folds(row_ids, key, k: int) -> np.ndarray:
    """fold(i) = hash(key, row_id_i) mod k (int64; bias below k / 2^64)."""
    return (keyed_hash(row_ids, key) % np.uint64(k)).astype(np.int64)


def keyed_split(row_ids, key, fraction: float) -> np.ndarray:
    """coding(i) = U_i < fraction, U_i = (hash(key, row_id_i) >> 11) 2^-53 uniform on the 2^53-grid of [0, 1)."""
    u = (keyed_hash(row_ids, key) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return u < fraction
