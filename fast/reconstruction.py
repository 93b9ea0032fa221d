"""From rados back to examples: Lemma 9, the Hausdorff distance, Lemma 10's split   [nock2015 s7] (numpy).

Same names and semantics as :mod:`reference.reconstruction`; edge vectors and rados are ROWS, ``U`` is the vector
of selected G_m column indices (or the paper's one-hot (2^m, n) selector), A = G_m U is (m, n).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from fast._contracts.links import implements
from fast._contracts.reconstruction_contract import as_selection, check_same_width
from fast._contracts.validation import as_float_matrix, check_int

__all__ = [
    "support_matrix",
    "recover_edge_vectors",
    "alternative_edge_vectors",
    "hausdorff_distance",
    "split_edge_vectors",
]

#: unused since hausdorff_distance forms no block of pairwise differences (kept: a public module attribute)
CHUNK_BYTES = 64 * 1024**2


def _integer_vector(U, n: int | None):
    """U as int64 when it is a non-empty 1-d integer ndarray of the right size (the contract's type, shape and size
    rules for it), else None.  uint64 entries past int64 wrap to negatives: the range test refuses them."""
    if type(U) is np.ndarray and U.ndim == 1 and U.dtype.kind in "iu" and U.size and (n is None or U.size == n):
        return np.ascontiguousarray(U, dtype=np.int64)
    return None


def _columns(U, m: int, n: int | None = None) -> np.ndarray:
    """as_selection(U, m, n=n) as an int64 array.  A 1-d integer array is checked in place (min, max, size: the
    contract's rules for it, no list of Python ints); anything else (a one-hot selector, a list, a bad U) goes
    through the contract itself, which raises its message or converts."""
    c = _integer_vector(U, n)
    if c is not None and int(c.min()) >= 0 and int(c.max()) < 2**m:
        return c
    return np.asarray(as_selection(U, m, n=n), dtype=np.int64)


@njit(cache=True, nogil=True)
def _support_bits(columns, m, out):
    """out[r, j] = bit m - 1 - r of columns[j] (row r of G_m: the most significant bit first), written in out's
    dtype directly (uint8 for A, float64 for the solvers): no (m, n) int64 temporaries, vectorised over j.
    Returns True iff every column is in [0, 2^m) (the contract's range rule, fused)."""
    n = columns.shape[0]
    outside = 0
    for j in range(n):
        outside |= columns[j] >> m  # non-zero iff c < 0 (arithmetic shift) or c >= 2^m; m <= 62
    for r in range(m):
        shift = m - 1 - r
        for j in range(n):
            out[r, j] = (columns[j] >> shift) & 1
    return outside == 0


@njit(cache=True, nogil=True)
def _split_columns(columns, m, k, out):
    """out = 2 c + bit (m - 1 - k) of c for each column c (Lemma 10's U'), in one pass; True iff every column is in
    [0, 2^m) (the contract's range rule, fused)."""
    outside = 0
    for j in range(columns.shape[0]):
        c = columns[j]
        outside |= c >> m
        out[j] = 2 * c + ((c >> (m - 1 - k)) & 1)
    return outside == 0


def _supports(U, m: int, n: int | None = None, dtype=np.uint8):
    """A = G_m U (m, n) in ``dtype`` under the contract of as_selection (its message for a bad U)."""
    c = _integer_vector(U, n)
    if c is not None:
        out = np.empty((m, c.shape[0]), dtype=dtype)
        if _support_bits(c, m, out):
            return out
    c = np.asarray(as_selection(U, m, n=n), dtype=np.int64)
    out = np.empty((m, c.shape[0]), dtype=dtype)
    _support_bits(c, m, out)
    return out


@implements("nock2015.eq21")
def support_matrix(U, m):
    """A = G_m U (m, n) uint8   [nock2015 eqs. (20)-(21)].

    Parameters
    ----------
    U : array_like
        Selected column indices of G_m, shape (n,), or the (2**m, n) one-hot selector of the paper.
    m : int
        Number of examples.

    Returns
    -------
    numpy.ndarray of shape (m, n), dtype uint8
        A = G_m U: column j is the support of rado j.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.reconstruction import support_matrix
    >>> support_matrix(np.array([1, 2, 4, 7]), 3)
    array([[0, 0, 1, 1],
           [0, 1, 0, 1],
           [1, 0, 0, 1]], dtype=uint8)
    """
    m = check_int(m, "m", minimum=1, maximum=62)
    return _supports(U, m)


def _rados_for(rados, U, m):
    rados = as_float_matrix(rados, "rados")
    m = check_int(m, "m", minimum=1, maximum=62)
    return rados, m, _supports(U, m, rados.shape[0], np.float64)


def _rank(singular_values, shape) -> int:
    """numpy.linalg.matrix_rank's rule on given singular values: those above s_max max(shape) eps (a small 0/1
    matrix: its singular values are far from the rounding level)."""
    tol = singular_values.max(initial=0.0) * max(shape) * np.finfo(np.float64).eps
    return int(np.count_nonzero(singular_values > tol))


@implements("nock2015.lemma9a")
def recover_edge_vectors(rados, U, m):
    """E = Pi U^T G_m^T (G_m U U^T G_m^T)^{-1}   [nock2015 Lemma 9 (a)]; in rows E = (A A^T)^{-1} A rados.

    Solved as the least-squares problem A^T E = rados (same solution when rank A = m, better conditioned).
    ValueError when rank(G_m U) < m (not recoverable): the rank is lstsq's own (singular values above
    s_max max(n, m) eps, numpy.linalg.matrix_rank's rule), so A is decomposed once.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        The rados, one per row.
    U : array_like
        Selected column indices of G_m, shape (n,), or the (2**m, n) one-hot selector of the paper.
    m : int
        Number of examples.

    Returns
    -------
    numpy.ndarray of shape (m, d)
        The edge vectors, one per row.

    Raises
    ------
    ValueError
        If rank(G_m U) < m: the edge vectors are not determined by the rados.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import all_rados
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0], [0.0, 1.0]])  # m = 3 edge vectors
    >>> U = np.array([1, 2, 4, 7])  # selected columns of G_3
    >>> P = all_rados(E, np.ones(3))[U]  # their rados (labels +1: the edge vectors are the rows of E)
    >>> from fast.reconstruction import recover_edge_vectors
    >>> bool(np.allclose(recover_edge_vectors(P, U, 3), E))
    True
    """
    rados, m, A = _rados_for(rados, U, m)
    E, _, rank, _ = np.linalg.lstsq(A.T, rados, rcond=None)  # rcond=None: eps max(n, m), matrix_rank's tolerance
    if rank < m:
        raise ValueError(_not_recoverable(m))
    return np.ascontiguousarray(E)


def _not_recoverable(m: int) -> str:
    return (f"U: G_m U has rank < m = {m}, so the edge vectors are not recoverable from these rados "
            "(nock2015 Lemma 9 (b)); at least m rados with linearly independent supports are needed")


def _independent(m: int) -> str:
    return ("U must select rados with linearly independent supports (rank of G_m U = n); "
            "repeated or dependent supports make A^T A singular")


@implements("nock2015.lemma9b")
def alternative_edge_vectors(rados, U, m, shift):
    """E' = A (A^T A)^{-1} rados + (I - A (A^T A)^{-1} A^T) shift   [nock2015 Lemma 9 (b)]; A^T E' = rados for any shift.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        The rados, one per row.
    U : array_like
        Selected column indices of G_m, shape (n,), or the (2**m, n) one-hot selector of the paper.
    m : int
        Number of examples.
    shift : array_like of shape (m, d)
        Any matrix; its projection on the null space of A^T moves the solution.

    Returns
    -------
    numpy.ndarray of shape (m, d)
        Edge vectors E' with A^T E' = rados.

    Raises
    ------
    ValueError
        If the supports are linearly dependent or ``shift`` has the wrong shape.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import all_rados
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0], [0.0, 1.0]])  # m = 3 edge vectors
    >>> U = np.array([1, 2, 4, 7])  # selected columns of G_3
    >>> P = all_rados(E, np.ones(3))[U]  # their rados (labels +1: the edge vectors are the rows of E)
    >>> from fast.reconstruction import alternative_edge_vectors, support_matrix
    >>> U2 = np.array([3, 5])  # two rados only: E is not determined
    >>> P2 = all_rados(E, np.ones(3))[U2]
    >>> E2 = alternative_edge_vectors(P2, U2, 3, np.ones((3, 2)))
    >>> bool(np.allclose(support_matrix(U2, 3).T @ E2, P2)), bool(np.allclose(E2, E))
    (True, False)
    """
    rados, m, A = _rados_for(rados, U, m)
    n, d = rados.shape
    shift = as_float_matrix(shift, "shift")
    if shift.shape != (m, d):
        raise ValueError(f"shift must have shape (m, d) = ({m}, {d}), got {shift.shape}")
    # one thin SVD A = Q S V^T gives the rank test and the formula: A (A^T A)^{-1} = Q S^{-1} V^T and the projector
    # A (A^T A)^{-1} A^T = Q Q^T (no normal equations: cond(A) instead of cond(A)^2)
    Q, sv, Vt = np.linalg.svd(A, full_matrices=False)
    if _rank(sv, A.shape) < n:
        raise ValueError(_independent(m))
    return Q @ ((Vt @ rados) / sv[:, None] - Q.T @ shift) + shift


@implements("nock2015.hausdorff")
def hausdorff_distance(E1, E2):
    """D_H(E, E') = max(max_a min_b ||a - b||, max_b min_a ||a - b||) over the ROWS   [nock2015 s7.1].

    The squared distances are the floats scipy's ``directed_hausdorff`` forms (differences squared and summed in
    coordinate order), so the result is bit-identical to the max of its two directions; computed by the same
    early-exit search (compiled), with one running maximum for both directions and partial sums abandoned once
    they exceed the row's minimum: O(m1 m2 d) at worst, usually far less, no pairwise matrix.

    Parameters
    ----------
    E1 : array_like of shape (m1, d)
        First set of vectors (rows).
    E2 : array_like of shape (m2, d)
        Second set of vectors (rows).

    Returns
    -------
    float
        The Hausdorff distance between the two row sets.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.reconstruction import hausdorff_distance
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0]])
    >>> round(hausdorff_distance(E, E + 0.5), 6)
    0.707107
    """
    E1 = as_float_matrix(E1, "E1")
    E2 = as_float_matrix(E2, "E2")
    check_same_width(E1, E2)
    A = E1[_scatter(E1.shape[0])]  # contiguous copies in a scattered row order (the order changes only the time)
    B = E2[_scatter(E2.shape[0])]
    # one thread: splitting the rows between threads weakens the running maximum each starts from, and the search
    # for a row's witness (a j closer than it) is very sensitive to it (2 threads did 1.8x the work of one at
    # 4096 x 100; scipy's directed_hausdorff, the peer, is single-threaded too)
    return math.sqrt(_lower_bound_sq(B, A, _lower_bound_sq(A, B, 0.0)))


def _scatter(n: int) -> np.ndarray:
    """A fixed scattered order of 0..n-1 (i * step mod n, step coprime to n near 0.618 n): rows of sorted or
    clustered data are visited spread out, so the running maximum grows early (scipy shuffles for the same
    reason).  Deterministic; the result never depends on the order, only the time does."""
    step = max(1, int(0.6180339887 * n))
    while math.gcd(step, n) != 1:
        step -= 1
    return np.arange(n, dtype=np.int64) * step % n


#: coordinates summed between two tests of a partial sum against the row's minimum in _lower_bound_sq (a test
#: per 8 slowed 100-d Gaussian data by ~10 %; per 32 costs nothing measurable there and still cuts clustered data)
_ABANDON_BLOCK = 32


@njit(cache=True, nogil=True)
def _lower_bound_sq(P, Q, cmax):  # pragma: no cover - compiled
    """max(cmax, max over the rows i of P of min_j ||P_i - Q_j||^2) exactly, each squared
    distance summed in coordinate order (as scipy's directed_hausdorff: the same floats).  ``cmax`` is any value <=
    the answer sought (a squared distance already attained; 0 to start), so the two directions of the Hausdorff
    distance can share one running maximum.  Early exits that cannot change the result: a row stops at its first j
    closer than the running maximum (it cannot raise it: scipy's rule); a sum stops once a partial sum reaches the
    row's current minimum (partial sums of nonnegative terms never decrease in floating point, so that j can
    neither lower the minimum nor, the minimum being >= the maximum while the row runs, stop the row)."""
    n, d = P.shape
    nq = Q.shape[0]
    full = d - d % _ABANDON_BLOCK
    for i in range(n):
        cmin = np.inf
        near = False
        for j in range(nq):
            s = 0.0
            t = 0
            while t < full:
                for u in range(t, t + _ABANDON_BLOCK):
                    diff = P[i, u] - Q[j, u]
                    s += diff * diff
                t += _ABANDON_BLOCK
                if s >= cmin:
                    break
            if s < cmin:
                for u in range(full, d):
                    diff = P[i, u] - Q[j, u]
                    s += diff * diff
            if s < cmax:
                near = True
                break
            if s < cmin:
                cmin = s
        if not near and cmin > cmax:
            cmax = cmin
    return cmax


@implements("nock2015.lemma10")
def split_edge_vectors(E, U, k, v):
    """Lemma 10's witness E' = [e_1 .. e_k - v .. e_m, v], U' (G_{m+1} column indices)   [nock2015 Lemma 10, eq. (22)].

    Parameters
    ----------
    E : array_like of shape (m, d)
        Edge vectors, one per row.
    U : array_like
        Selected column indices of G_m (or the one-hot selector).
    k : int
        0-based index of the edge vector split in two.
    v : array_like of shape (d,)
        The part moved to the new (m+1)-th edge vector.

    Returns
    -------
    E_prime : numpy.ndarray of shape (m + 1, d)
        The new edge vectors.
    U_prime : numpy.ndarray of shape (n,), dtype int64
        Column indices of G_(m+1) giving the same rados.

    Raises
    ------
    ValueError
        If ``E`` has more than 61 rows (the column indices of G_(m+1) must fit in int64), or ``v``
        does not have one entry per column of ``E``.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import all_rados
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0], [0.0, 1.0]])  # m = 3 edge vectors
    >>> U = np.array([1, 2, 4, 7])  # selected columns of G_3
    >>> P = all_rados(E, np.ones(3))[U]  # their rados (labels +1: the edge vectors are the rows of E)
    >>> from fast.reconstruction import split_edge_vectors
    >>> E1, U1 = split_edge_vectors(E, U, 0, np.array([0.5, 0.5]))
    >>> E1.shape, bool(np.allclose(all_rados(E1, np.ones(4))[U1], P))
    ((4, 2), True)
    """
    E = as_float_matrix(E, "E")
    m, d = E.shape
    if m > 61:
        raise ValueError(f"E must have at most 61 rows (column indices of G_(m+1) must fit in int64), got {m}")
    columns = _integer_vector(U, None)  # its range is tested in the pass that forms U' (_split_columns)
    if columns is None:
        columns = _columns(U, m)
    try:
        k = check_int(k, "k", minimum=0, maximum=m - 1)
        v = as_float_matrix(v, "v", ndim=1)
        if v.shape[0] != d:
            raise ValueError(f"v must have length {d}, got {v.shape[0]}")
    except (TypeError, ValueError):
        _columns(U, m)  # a bad U is reported first, as by the contract's order
        raise
    E_new = np.empty((m + 1, d), dtype=np.float64)
    E_new[:m] = E
    E_new[k] = E[k] - v
    E_new[m] = v
    U_new = np.empty(columns.shape[0], dtype=np.int64)
    if not _split_columns(columns, m, k, U_new):
        _columns(U, m)  # raises the contract's message
    return E_new, U_new
