"""From rados back to examples: Lemma 9, the Hausdorff distance, Lemma 10's split   [nock2015 s7].

Rows convention (docs/architecture.md): edge vectors are the ROWS of an (m, d) array (the paper's E has them as
columns), rados the ROWS of an (n, d) array (the paper's Pi).  The paper's selector U in {0,1}^{2^m x n} (one-hot
columns) is accepted either as that matrix or, equivalently and without the 2^m rows, as a length-n vector of
the selected column indices of G_m.  A = G_m U (m x n) is then the 0/1 matrix of rado supports, and eq. (21)
reads, in rows, ``rados = A^T E``.

Exact arithmetic: A is a 0/1 matrix, the rados are floats, i.e. dyadic rationals; the reference solves the
normal equations of Lemma 9 in ``fractions.Fraction`` and rounds once at the end.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from spec.links import implements
from spec.validation import as_float_matrix, check_int
from spec.reconstruction_contract import as_selection, check_same_width

__all__ = [
    "support_matrix",
    "recover_edge_vectors",
    "alternative_edge_vectors",
    "hausdorff_distance",
    "split_edge_vectors",
]


@implements("nock2015.eq21")
def support_matrix(U, m):
    """A = G_m U in {0,1}^{m x n}: column j is the support (binary of the selected column of G_m)   [nock2015 eqs. (20)-(21)].

    ``U``: (n,) column indices of G_m, or the (2^m, n) one-hot selector of the paper.  Returns (m, n) uint8.

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
    >>> from reference.reconstruction import support_matrix
    >>> support_matrix(np.array([1, 2, 4, 7]), 3)
    array([[0, 0, 1, 1],
           [0, 1, 0, 1],
           [1, 0, 0, 1]], dtype=uint8)
    """
    m = check_int(m, "m", minimum=1, maximum=62)
    columns = as_selection(U, m)
    A = [[(c >> (m - 1 - i)) & 1 for c in columns] for i in range(m)]
    return np.array(A, dtype=np.uint8).reshape(m, len(columns))


def _fraction_matrix(M):
    return [[Fraction(float(v)) for v in row] for row in M]


def _solve_exact(M, B, name):
    """Solve M W = B exactly (M square, Fractions) by Gauss-Jordan elimination; ValueError if M is singular."""
    k = len(M)
    aug = [list(M[r]) + list(B[r]) for r in range(k)]
    for col in range(k):
        pivot = next((r for r in range(col, k) if aug[r][col] != 0), None)
        if pivot is None:
            raise ValueError(name)
        aug[col], aug[pivot] = aug[pivot], aug[col]
        p = aug[col][col]
        aug[col] = [v / p for v in aug[col]]
        for r in range(k):
            if r != col and aug[r][col] != 0:
                f = aug[r][col]
                aug[r] = [a - f * b for a, b in zip(aug[r], aug[col])]
    return [row[k:] for row in aug]


def _matmul(P, Q):
    return [[sum((P[i][t] * Q[t][j] for t in range(len(Q))), Fraction(0)) for j in range(len(Q[0]))]
            for i in range(len(P))]


def _transpose(P):
    return [list(col) for col in zip(*P)]


def _rank(M) -> int:
    rows = [list(r) for r in M]
    rank = 0
    ncols = len(rows[0]) if rows else 0
    for col in range(ncols):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(len(rows)):
            if r != rank and rows[r][col] != 0:
                f = rows[r][col] / rows[rank][col]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[rank])]
        rank += 1
    return rank


def _rados_for(rados, U, m):
    rados = as_float_matrix(rados, "rados")
    m = check_int(m, "m", minimum=1, maximum=62)
    columns = as_selection(U, m, n=rados.shape[0])
    return rados, m, columns


@implements("nock2015.lemma9a")
def recover_edge_vectors(rados, U, m):
    """E = Pi U^T G_m^T (G_m U U^T G_m^T)^{-1}   [nock2015 Lemma 9 (a)].

    In rows: with A = G_m U (m x n), E (m, d) = (A A^T)^{-1} A rados.  Requires rank(A) = m (at least m rados with
    linearly independent supports); otherwise raises ValueError (E is then not recoverable, Lemma 9 (b)).

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
    >>> from reference.rados import all_rados
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0], [0.0, 1.0]])  # m = 3 edge vectors
    >>> U = np.array([1, 2, 4, 7])  # selected columns of G_3
    >>> P = all_rados(E, np.ones(3))[U]  # their rados (labels +1: the edge vectors are the rows of E)
    >>> from reference.reconstruction import recover_edge_vectors
    >>> bool(np.allclose(recover_edge_vectors(P, U, 3), E))
    True
    """
    rados, m, columns = _rados_for(rados, U, m)
    A = [[Fraction((c >> (m - 1 - i)) & 1) for c in columns] for i in range(m)]
    if _rank(A) < m:
        raise ValueError(_not_recoverable(m))
    AAt = _matmul(A, _transpose(A))
    A_Pi = _matmul(A, _fraction_matrix(rados))
    E = _solve_exact(AAt, A_Pi, _not_recoverable(m))
    return np.array([[float(v) for v in row] for row in E], dtype=np.float64).reshape(m, rados.shape[1])


def _not_recoverable(m: int) -> str:
    return (f"U: G_m U has rank < m = {m}, so the edge vectors are not recoverable from these rados "
            "(nock2015 Lemma 9 (b)); at least m rados with linearly independent supports are needed")


def _independent(m: int) -> str:
    return ("U must select rados with linearly independent supports (rank of G_m U = n); "
            "repeated or dependent supports make A^T A singular")


@implements("nock2015.lemma9b")
def alternative_edge_vectors(rados, U, m, shift):
    """E' = A (A^T A)^{-1} rados + (I - A (A^T A)^{-1} A^T) shift   [nock2015 Lemma 9 (b)], A = G_m U.

    Every such E' (m, d) satisfies eq. (21), ``A^T E' = rados``, whatever ``shift`` (m, d): when n < m the
    projector onto the null space of A^T is non-zero and the edge vectors are not determined by (Pi, U, m).
    ``shift = 0`` gives the minimum-norm solution.  Requires linearly independent supports (rank A = n).

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
    >>> from reference.rados import all_rados
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0], [0.0, 1.0]])  # m = 3 edge vectors
    >>> U = np.array([1, 2, 4, 7])  # selected columns of G_3
    >>> P = all_rados(E, np.ones(3))[U]  # their rados (labels +1: the edge vectors are the rows of E)
    >>> from reference.reconstruction import alternative_edge_vectors, support_matrix
    >>> U2 = np.array([3, 5])  # two rados only: E is not determined
    >>> P2 = all_rados(E, np.ones(3))[U2]
    >>> E2 = alternative_edge_vectors(P2, U2, 3, np.ones((3, 2)))
    >>> bool(np.allclose(support_matrix(U2, 3).T @ E2, P2)), bool(np.allclose(E2, E))
    (True, False)
    """
    rados, m, columns = _rados_for(rados, U, m)
    n, d = rados.shape
    shift = as_float_matrix(shift, "shift")
    if shift.shape != (m, d):
        raise ValueError(f"shift must have shape (m, d) = ({m}, {d}), got {shift.shape}")
    A = [[Fraction((c >> (m - 1 - i)) & 1) for c in columns] for i in range(m)]
    At = _transpose(A)
    AtA = _matmul(At, A)
    W = _solve_exact(AtA, _fraction_matrix(rados), _independent(m))  # (A^T A)^{-1} rados
    S = _fraction_matrix(shift)
    V = _solve_exact(AtA, _matmul(At, S), _independent(m))  # (A^T A)^{-1} A^T shift
    E_min = _matmul(A, W)
    proj = _matmul(A, V)
    E = [[E_min[i][k] + S[i][k] - proj[i][k] for k in range(d)] for i in range(m)]
    return np.array([[float(v) for v in row] for row in E], dtype=np.float64).reshape(m, d)


@implements("nock2015.hausdorff")
def hausdorff_distance(E1, E2):
    """D_H(E, E') = inf{eps : C(E) in C(E') + eps and C(E') in C(E) + eps}   [nock2015 s7.1].

    The point sets are the ROWS of E1 (m1, d) and E2 (m2, d).  For finite sets the infimum is
    max(max_a min_b ||a - b||_2, max_b min_a ||a - b||_2) (the open balls make it an infimum, not a minimum).

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
    >>> from reference.reconstruction import hausdorff_distance
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0]])
    >>> round(hausdorff_distance(E, E + 0.5), 6)
    0.707107
    """
    E1 = as_float_matrix(E1, "E1")
    E2 = as_float_matrix(E2, "E2")
    check_same_width(E1, E2)

    def dist(a, b):
        return math.sqrt(math.fsum((float(u) - float(v)) ** 2 for u, v in zip(a, b)))

    forward = max(min(dist(a, b) for b in E2) for a in E1)
    backward = max(min(dist(a, b) for a in E1) for b in E2)
    return max(forward, backward)


@implements("nock2015.lemma10")
def split_edge_vectors(E, U, k, v):
    """Lemma 10's witness: E' = [e_1 .. e_k - v .. e_m, v] and U' with Pi = E' G_{m+1} U'   [nock2015 Lemma 10, eq. (22)].

    ``E`` (m, d) edge vectors as ROWS; ``U`` the selected G_m column indices (or one-hot selector); ``k`` the
    0-based row split in two; ``v`` (d,).  Every support J containing k becomes J + {m+1}, so each rado is
    unchanged.  Returns (E' (m+1, d), U' (n,) int64 column indices of G_{m+1}).

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
    >>> from reference.rados import all_rados
    >>> E = np.array([[1.0, 2.0], [-3.0, 1.0], [0.0, 1.0]])  # m = 3 edge vectors
    >>> U = np.array([1, 2, 4, 7])  # selected columns of G_3
    >>> P = all_rados(E, np.ones(3))[U]  # their rados (labels +1: the edge vectors are the rows of E)
    >>> from reference.reconstruction import split_edge_vectors
    >>> E1, U1 = split_edge_vectors(E, U, 0, np.array([0.5, 0.5]))
    >>> E1.shape, bool(np.allclose(all_rados(E1, np.ones(4))[U1], P))
    ((4, 2), True)
    """
    E = as_float_matrix(E, "E")
    m, d = E.shape
    if m > 61:
        raise ValueError(f"E must have at most 61 rows (column indices of G_(m+1) must fit in int64), got {m}")
    columns = as_selection(U, m)
    k = check_int(k, "k", minimum=0, maximum=m - 1)
    v = as_float_matrix(v, "v", ndim=1)
    if v.shape[0] != d:
        raise ValueError(f"v must have length {d}, got {v.shape[0]}")
    rows = [[float(E[i, t]) for t in range(d)] for i in range(m)]
    rows[k] = [float(E[k, t]) - float(v[t]) for t in range(d)]
    rows.append([float(v[t]) for t in range(d)])
    new_columns = [2 * c + ((c >> (m - 1 - k)) & 1) for c in columns]  # example m+1 is the last row of G_{m+1}
    return np.array(rows, dtype=np.float64).reshape(m + 1, d), np.array(new_columns, dtype=np.int64)
