"""reference.reconstruction vs fast.reconstruction: one Pair per public function (nock2015 s7).

The reference solves Lemma 9's normal equations in exact rationals and rounds once; fast uses LAPACK least
squares.  The error of fast is then of the order of cond(A) * eps * |rados|, with A = G_m U a 0/1 matrix of at
most 6 x 12 here (cond(A) stays below ~1e3), hence rtol 1e-9 with an atol for entries that cancel.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fast.rados as fast_rados
import fast.reconstruction as fast_rec
import reference.reconstruction as ref_rec
from spec.pairs import Call, Pair
from spec.strategies import bad_matrices, datasets



MAX_M = 6


@st.composite
def selections(draw, m, n, *, independent=None):
    """n column indices of G_m; independent='rows' -> rank m, 'cols' -> rank n (linearly independent supports)."""
    for _ in range(50):
        cols = draw(st.lists(st.integers(0, 2**m - 1), min_size=n, max_size=n))
        A = fast_rec.support_matrix(np.array(cols), m).astype(float)
        rank = np.linalg.matrix_rank(A) if A.size else 0
        if independent is None or (independent == "rows" and rank == m) or (independent == "cols" and rank == n):
            return np.array(cols, dtype=np.int64)
    from hypothesis import assume

    assume(False)


@st.composite
def support_inputs(draw):
    m = draw(st.integers(1, 10))
    cols = draw(selections(m, draw(st.integers(1, 12))))
    if m <= 6 and draw(st.booleans()):  # the paper's one-hot selector
        onehot = np.zeros((2**m, len(cols)), dtype=np.int64)
        onehot[cols, np.arange(len(cols))] = 1
        return Call((onehot, m))
    return Call((cols, m))


@st.composite
def recover_inputs(draw):
    X, y = draw(datasets(min_m=1, max_m=MAX_M))
    m = X.shape[0]
    E = fast_rados.edge_vectors(X, y)
    n = draw(st.integers(m, 2 * m + 2))
    cols = draw(selections(m, n, independent="rows" if draw(st.integers(0, 4)) else None))
    A = fast_rec.support_matrix(cols, m).astype(float)
    return Call((A.T @ E, cols, m))


@st.composite
def alternative_inputs(draw):
    X, y = draw(datasets(min_m=2, max_m=MAX_M))
    m, d = X.shape
    E = fast_rados.edge_vectors(X, y)
    n = draw(st.integers(1, m))
    cols = draw(selections(m, n, independent="cols"))
    A = fast_rec.support_matrix(cols, m).astype(float)
    shift = draw(datasets(min_m=m, max_m=m, min_d=d, max_d=d))[0]
    return Call((A.T @ E, cols, m, shift))


@st.composite
def hausdorff_inputs(draw):
    E1 = draw(datasets(max_m=10))[0]
    d = E1.shape[1]
    E2 = draw(datasets(max_m=10, min_d=d, max_d=d))[0]
    if draw(st.booleans()):
        E2 = np.vstack([E1, E2])  # overlapping sets: distances 0 must come out exactly 0
    return Call((E1, E2))


@st.composite
def split_inputs(draw):
    X, y = draw(datasets(max_m=10))
    m, d = X.shape
    E = fast_rados.edge_vectors(X, y)
    cols = draw(selections(m, draw(st.integers(1, 12))))
    k = draw(st.integers(0, m - 1))
    v = draw(datasets(min_m=1, max_m=1, min_d=d, max_d=d))[0][0]
    return Call((E, cols, k, v))


GOOD_E = np.arange(12, dtype=np.float64).reshape(4, 3) - 5.0
GOOD_COLS = np.array([1, 2, 4, 8, 15], dtype=np.int64)
GOOD_RADOS = fast_rec.support_matrix(GOOD_COLS, 4).T.astype(float) @ GOOD_E
BAD_U = st.sampled_from([np.array([1, 2, 16]), np.array([-1, 2]), np.array([0.5, 1.0]), np.array([], dtype=np.int64),
                         np.ones((16, 2), dtype=np.int64), np.zeros((5, 2), dtype=np.int64), np.ones((2, 2, 2), dtype=np.int64),
                         "abc", None])
BAD_M = st.sampled_from([0, -1, 2.5, None, 63, True])


@st.composite
def bad_support(draw):
    if draw(st.booleans()):
        return Call((draw(BAD_U), 4))
    return Call((GOOD_COLS, draw(BAD_M)))


@st.composite
def bad_recover(draw):
    kind = draw(st.sampled_from(["rados", "U", "m", "rank", "count"]))
    args = [GOOD_RADOS, GOOD_COLS, 4]
    if kind == "rados":
        args[0] = draw(bad_matrices(5, 3))
    elif kind == "U":
        args[1] = draw(BAD_U)
    elif kind == "m":
        args[2] = draw(BAD_M)
    elif kind == "rank":  # 3 rados cannot determine 4 edge vectors
        args[0], args[1] = GOOD_RADOS[:3], GOOD_COLS[:3]
    else:
        args[1] = GOOD_COLS[:4]
    return Call(tuple(args))


@st.composite
def bad_alternative(draw):
    kind = draw(st.sampled_from(["recover", "shift", "dependent"]))
    args = [GOOD_RADOS[:3], GOOD_COLS[:3], 4, np.zeros((4, 3))]
    if kind == "recover":
        base = draw(bad_recover())
        if len(base.args[1] if not isinstance(base.args[1], (str, type(None))) else []) == 3:
            return Call((GOOD_RADOS[:3], GOOD_COLS[:3], 4, np.zeros((5, 3))))
        return Call(base.args + (np.zeros((4, 3)),))
    if kind == "shift":
        args[3] = draw(st.sampled_from([np.zeros((4, 2)), np.zeros(4), np.full((4, 3), np.nan)]))
    else:  # the same support twice: A^T A singular
        args[0], args[1] = GOOD_RADOS[[0, 0, 1]], GOOD_COLS[[0, 0, 1]]
    return Call(tuple(args))


@st.composite
def bad_hausdorff(draw):
    if draw(st.booleans()):
        return Call((draw(bad_matrices(4, 3)), GOOD_E))
    return Call((GOOD_E, draw(st.sampled_from([np.ones((2, 2)), np.ones(3), np.full((2, 3), np.inf)]))))


@st.composite
def bad_split(draw):
    kind = draw(st.sampled_from(["E", "U", "k", "v", "big"]))
    args = [GOOD_E, GOOD_COLS, 1, np.ones(3)]
    if kind == "E":
        args[0] = draw(bad_matrices(4, 3))
    elif kind == "U":
        args[1] = draw(BAD_U)
    elif kind == "k":
        args[2] = draw(st.sampled_from([-1, 4, 1.0, None]))
    elif kind == "v":
        args[3] = draw(st.sampled_from([np.ones(2), np.ones((3, 1)), np.array([0.0, np.nan, 1.0])]))
    else:
        args[0], args[1] = np.ones((62, 3)), np.array([0])
    return Call(tuple(args))


PAIRS = {
    "reconstruction.support_matrix": Pair(ref_rec.support_matrix, fast_rec.support_matrix, support_inputs(),
                                          claim="nock2015.eq21", bad_inputs=bad_support(), note="exact (uint8)"),
    "reconstruction.recover_edge_vectors": Pair(ref_rec.recover_edge_vectors, fast_rec.recover_edge_vectors,
                                                recover_inputs(), claim="nock2015.lemma9a", rtol=1e-9, atol=1e-10,
                                                bad_inputs=bad_recover(), max_examples=40,
                                                note="exact rationals vs LAPACK lstsq: cond(A) eps |rados|"),
    "reconstruction.alternative_edge_vectors": Pair(ref_rec.alternative_edge_vectors,
                                                    fast_rec.alternative_edge_vectors, alternative_inputs(),
                                                    claim="nock2015.lemma9b", rtol=1e-9, atol=1e-10,
                                                    bad_inputs=bad_alternative(), max_examples=40,
                                                    note="exact rationals vs LAPACK solve: cond(A^T A) eps"),
    "reconstruction.hausdorff_distance": Pair(ref_rec.hausdorff_distance, fast_rec.hausdorff_distance,
                                              hausdorff_inputs(), claim="nock2015.hausdorff", rtol=1e-13,
                                              bad_inputs=bad_hausdorff(),
                                              note="sqrt of a sum of <= 5 squares: fsum vs einsum, a few ulps"),
    "reconstruction.split_edge_vectors": Pair(ref_rec.split_edge_vectors, fast_rec.split_edge_vectors,
                                              split_inputs(), claim="nock2015.lemma10", rtol=0.0,
                                              bad_inputs=bad_split(), note="exact: one subtraction per entry"),
}
