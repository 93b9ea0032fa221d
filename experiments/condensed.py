"""Training-set condensation baselines of kusner2016 ch. 3 (Figure 3.3, Figure 3.5 right): Hart's condensed nearest
neighbours (CNN, Hart 1968) and the fast condensed nearest neighbour rule (FCNN1, Angiulli 2005, "Fast condensed
nearest neighbor rule", ICML).

Both return the indices of the selected training inputs IN ORDER OF ADDITION, so that the prefixes give the
"partial compressed sets" the thesis plots at ratios below the algorithms' own final ratio.  Both are exact (squared
Euclidean distances, ties to the earliest-added store element) and keep, for every input, its nearest store element
up to date incrementally: O(n d) per added element, never the O(n |S|) re-scan.
"""
from __future__ import annotations

import numpy as np

#: inputs per block when distances from all inputs to a batch of new store elements are computed
_BLOCK = 4096


def _check(X, y):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],) or X.shape[0] == 0:
        raise ValueError(f"X must be (n, d) with n >= 1 and y of length n, got {X.shape} and {y.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite")
    return X, y


def _sqdist_to(X, P):
    """Exact-enough squared distances (n, k) from the rows of X to the rows of P: direct differences (no GEMM
    cancellation), blocked over X so memory stays O(_BLOCK k d)."""
    out = np.empty((X.shape[0], P.shape[0]))
    for s in range(0, X.shape[0], _BLOCK):
        diff = X[s:s + _BLOCK, None, :] - P[None, :, :]
        np.einsum("ijk,ijk->ij", diff, diff, out=out[s:s + _BLOCK])
    return out


class _Store:
    """The store S and, for every input, its nearest store element (``owner``) and that distance (``best``)."""

    def __init__(self, X):
        self.X = X
        self.order: list[int] = []
        self.best = np.full(X.shape[0], np.inf)
        self.owner = np.full(X.shape[0], -1)
        self.inside = np.zeros(X.shape[0], dtype=bool)

    def add(self, new):
        new = [int(i) for i in new if not self.inside[i]]
        if not new:
            return
        self.inside[new] = True
        self.order.extend(new)
        D = _sqdist_to(self.X, self.X[new])
        D[new, np.arange(len(new))] = 0.0  # an element owns itself, even among duplicates
        j = np.argmin(D, axis=1)  # first minimum: the earliest added of the batch
        d = D[np.arange(D.shape[0]), j]
        closer = d < self.best  # strict: ties stay with the earlier store element
        self.best[closer] = d[closer]
        self.owner[closer] = np.asarray(new)[j[closer]]
        self.best[new] = 0.0
        self.owner[new] = new


def hart_cnn(X, y, rng):
    """Hart's CNN: pass over a random order (``rng.permutation``), add every input the current store misclassifies
    by 1-NN, until a full pass adds nothing.  Returns the store indices in order of addition.  An input is added at
    most once and then owns itself, so identical inputs with different labels cannot make it loop forever."""
    X, y = _check(X, y)
    order = rng.permutation(X.shape[0])
    store = _Store(X)
    store.add([order[0]])
    changed = True
    while changed:
        changed = False
        for i in order:
            if not store.inside[i] and y[store.owner[i]] != y[i]:
                store.add([i])
                changed = True
    return np.array(store.order)


def fcnn(X, y):
    """FCNN1 (Angiulli 2005, Figure 1): start from, per class, the input nearest to the class centroid; then
    repeatedly add, for every store element p, the misclassified input of p's Voronoi cell nearest to p (its
    representative), until no cell holds a misclassified input.  The result is training-set consistent (every input
    is classified correctly by 1-NN on the store, except inputs identical to a store element of another label).
    Deterministic; returns the store indices in order of addition (within a round, by increasing distance to their
    cell's element)."""
    X, y = _check(X, y)
    store = _Store(X)
    first = []
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        centre = X[members].mean(axis=0)
        first.append(int(members[np.argmin(((X[members] - centre) ** 2).sum(axis=1))]))
    store.add(first)
    while True:
        wrong = np.flatnonzero((y[store.owner] != y) & ~store.inside)
        if wrong.size == 0:
            break
        # for each owner, its misclassified member nearest to it (ties: lowest index)
        key = np.lexsort((wrong, store.best[wrong], store.owner[wrong]))
        w = wrong[key]
        first_of_owner = np.r_[True, store.owner[w][1:] != store.owner[w][:-1]]
        reps = w[first_of_owner]
        reps = reps[np.argsort(store.best[reps], kind="stable")]
        store.add(reps)
    return np.array(store.order)
