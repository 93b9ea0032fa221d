"""Peers rows of fast/labels.py (fast vs the formulation a user would otherwise write); the machinery is
in :mod:`benchmarks.peers._core`, the registry in :mod:`benchmarks.peers`."""

from __future__ import annotations

import importlib

import numpy as np

from benchmarks.peers._core import _rng, sized


def rows_labels():
    F = importlib.import_module("fast.labels")

    def make(m):
        y = np.where(_rng(13).random(m) < 0.5, 3, 7)

        def peer():
            classes, inverse = np.unique(y, return_inverse=True)
            return (2 * inverse - 1).astype(np.int8), classes
        return (lambda: F.to_pm1(y)), peer

    def make_declared(m):
        y = np.where(_rng(13).random(m) < 0.5, 3, 7)
        return (lambda: F.declared_pm1(y, (3, 7))), (lambda: np.where(y == 7, 1, -1).astype(np.int8))

    sizes = {"small": ("m=1e3", (1000,)), "mid": ("m=1e5", (100_000,)), "large": ("m=1e7", (10_000_000,))}
    return [sized("labels", "to_pm1", "np.unique(y, return_inverse=True) -> 2 * inverse - 1", make, sizes,
                  same=False),
            sized("labels", "declared_pm1", "np.where(y == positive, 1, -1).astype(np.int8)", make_declared, sizes,
                  same=False)]
