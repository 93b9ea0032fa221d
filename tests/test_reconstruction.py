"""nock2015 s7.1: Lemma 9 (a) round trip, Lemma 9 (b) non-uniqueness, the Hausdorff distance (both packages)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import directed_hausdorff

import fast.rados as FR
import fast.reconstruction as F
import reference.rados as RR
import reference.reconstruction as R
from spec.links import checks
from spec.strategies import datasets
from _error_parity import raises_same as _raises_same

BOTH = pytest.mark.parametrize("impl", [R, F], ids=["reference", "fast"])


def _full_rank_selection(rng, m, n):
    while True:
        cols = rng.integers(0, 2**m, size=n)
        if np.linalg.matrix_rank(F.support_matrix(cols, m).astype(float)) == m:
            return cols


@pytest.mark.equivalence
@checks("nock2015.lemma9a", "nock2015.eq21")
@BOTH
def test_lemma9a_round_trip(impl):
    """E -> rados = (G_m U)^T E -> recover_edge_vectors -> E: exact in rationals (reference) on dyadic data, to
    1e-12 relative (fast); also with the paper's one-hot (2^m, n) selector U."""
    rng = np.random.default_rng(9)
    for m in range(1, 8):
        d = int(rng.integers(1, 4))
        X = rng.integers(-100, 101, size=(m, d)) / 8.0
        y = rng.choice([-1, 1], m)
        E = FR.edge_vectors(X, y)
        cols = _full_rank_selection(rng, m, m + int(rng.integers(0, 4)))
        rados = FR.all_rados(X, y)[cols]  # Pi = E G_m U in rows
        got = impl.recover_edge_vectors(rados, cols, m)
        if impl is R:
            assert np.array_equal(got, E)
        else:
            np.testing.assert_allclose(got, E, rtol=1e-12, atol=1e-12 * np.abs(E).max())
        onehot = np.zeros((2**m, len(cols)), dtype=np.int64)
        onehot[cols, np.arange(len(cols))] = 1
        np.testing.assert_allclose(impl.recover_edge_vectors(rados, onehot, m), got, rtol=1e-12, atol=1e-12)


@checks("nock2015.lemma9a", "nock2015.lemma9b")
@BOTH
def test_lemma9a_refuses_rank_deficient_selection(impl):
    """Fewer than m independent supports: ValueError naming U and the rank condition (not a garbage answer)."""
    X = np.arange(12.0).reshape(4, 3)
    y = np.ones(4)
    cols = np.array([1, 2, 4, 1, 3, 6, 7])  # no support contains example 1 (column bit 8): rank <= 3
    A = F.support_matrix(cols, 4).astype(float)
    assert np.linalg.matrix_rank(A) < 4
    with pytest.raises(ValueError, match=r"U: G_m U has rank < m = 4"):
        impl.recover_edge_vectors(FR.all_rados(X, y)[cols], cols, 4)


@pytest.mark.equivalence
@checks("nock2015.lemma9b")
@BOTH
def test_lemma9b_other_edge_sets_give_the_same_rados(impl):
    """n < m independent supports: E' = alternative_edge_vectors(..., shift) reproduces the rados (eq. 21) for
    any shift, differs from E, and the minimum-norm member is no longer than E."""

    @settings(max_examples=25)
    @given(data=datasets(min_m=2, max_m=6, integer_valued=True), extra=st.data())
    def run(data, extra):
        X, y = data
        m, d = X.shape
        E = FR.edge_vectors(X, y)
        rng = np.random.default_rng(extra.draw(st.integers(0, 1000)))
        n = extra.draw(st.integers(1, m - 1))
        while True:
            cols = rng.integers(0, 2**m, size=n)
            A = F.support_matrix(cols, m).astype(float)
            if np.linalg.matrix_rank(A) == n:
                break
        rados = A.T @ E
        shift = rng.normal(size=(m, d))
        E_alt = impl.alternative_edge_vectors(rados, cols, m, shift)
        np.testing.assert_allclose(A.T @ E_alt, rados, rtol=1e-12, atol=1e-11)
        E_min = impl.alternative_edge_vectors(rados, cols, m, np.zeros((m, d)))
        assert np.linalg.norm(E_min) <= np.linalg.norm(E) * (1 + 1e-12) + 1e-12
        # the null space of A^T has dimension m - n >= 1: E + (I - P) shift moves off E
        assert not np.allclose(E_alt, E_min)

    run()


@pytest.mark.equivalence
@checks("nock2015.hausdorff")
@BOTH
def test_hausdorff_matches_scipy_and_is_a_metric(impl):
    rng = np.random.default_rng(5)
    for _ in range(30):
        d = int(rng.integers(1, 5))
        A, B, C = (rng.normal(size=(int(rng.integers(1, 9)), d)) for _ in range(3))
        expected = max(directed_hausdorff(A, B)[0], directed_hausdorff(B, A)[0])
        assert impl.hausdorff_distance(A, B) == pytest.approx(expected, rel=1e-12)
        assert impl.hausdorff_distance(A, B) == impl.hausdorff_distance(B, A)
        assert impl.hausdorff_distance(A, A[::-1]) == 0.0  # same set, any order
        assert impl.hausdorff_distance(A, np.vstack([A, A])) == 0.0  # duplicates do not matter
        assert impl.hausdorff_distance(A, C) <= impl.hausdorff_distance(A, B) + impl.hausdorff_distance(B, C) + 1e-12


@checks("nock2015.hausdorff")
def test_hausdorff_chunking_does_not_change_the_result():
    rng = np.random.default_rng(6)
    A, B = rng.normal(size=(300, 3)), rng.normal(size=(200, 3))
    full = F.hausdorff_distance(A, B)
    old = F.CHUNK_BYTES
    try:
        F.CHUNK_BYTES = 8 * 200 * 3 * 7  # 7 rows of A per block
        assert F.hausdorff_distance(A, B) == full
    finally:
        F.CHUNK_BYTES = old


def test_rados_module_reexports_reconstruction():
    assert RR.recover_edge_vectors is R.recover_edge_vectors and RR.hausdorff_distance is R.hausdorff_distance
    assert FR.recover_edge_vectors is F.recover_edge_vectors and FR.hausdorff_distance is F.hausdorff_distance
    from fast.rados import hausdorff_distance, recover_edge_vectors  # noqa: F401
    from reference.rados import hausdorff_distance, recover_edge_vectors  # noqa: F401,F811



_BAD_SELECTIONS = [np.array([-1, 2, 3]), np.array([1, 2, 8]), np.array([2**63], dtype=np.uint64),
                   np.array([1.0, 2.0]), np.array([True, False]), np.array([], dtype=np.int64),
                   np.zeros((2, 2), dtype=np.int64), "ab", None, np.array([[1, 2]]), [1, 2, 9]]


@pytest.mark.parametrize("U", _BAD_SELECTIONS, ids=range(len(_BAD_SELECTIONS)))
def test_reconstruction_rejects_bad_selections_as_the_reference(U):
    import fast.reconstruction as F
    import reference.reconstruction as R

    E = np.arange(6.0).reshape(3, 2)
    _raises_same(lambda: R.support_matrix(U, 3), lambda: F.support_matrix(U, 3))
    _raises_same(lambda: R.split_edge_vectors(E, U, 0, np.ones(2)), lambda: F.split_edge_vectors(E, U, 0, np.ones(2)))
    rados = np.ones((3, 2))
    _raises_same(lambda: R.recover_edge_vectors(rados, U, 3), lambda: F.recover_edge_vectors(rados, U, 3))
    _raises_same(lambda: R.alternative_edge_vectors(rados, U, 3, np.ones((3, 2))),
                 lambda: F.alternative_edge_vectors(rados, U, 3, np.ones((3, 2))))


@pytest.mark.parametrize("m,n", [(3, 3), (5, 12), (9, 40)])
def test_reconstruction_matches_reference(m, n):
    import fast.reconstruction as F
    import reference.reconstruction as R

    rng = np.random.default_rng(m * n)
    U = np.sort(rng.choice(2**m, size=n, replace=False)).astype(np.int32)
    E = rng.normal(size=(m, 4))
    A = R.support_matrix(U, m)
    assert np.array_equal(F.support_matrix(U, m), A)
    assert np.array_equal(F.support_matrix(U.astype(np.uint16), m), A)
    onehot = np.zeros((2**m, n), dtype=np.int64)
    onehot[U, np.arange(n)] = 1
    assert np.array_equal(F.support_matrix(onehot, m), A)
    assert np.array_equal(F.support_matrix(U.tolist(), m), A)
    rados = A.T.astype(np.float64) @ E
    if np.linalg.matrix_rank(A.astype(float)) == m:
        assert np.allclose(F.recover_edge_vectors(rados, U, m), R.recover_edge_vectors(rados, U, m), rtol=1e-9,
                           atol=1e-10)
    k = min(n, m)
    sub = U[:k]
    if np.linalg.matrix_rank(A[:, :k].astype(float)) == k:
        shift = rng.normal(size=(m, 4))
        assert np.allclose(F.alternative_edge_vectors(rados[:k], sub, m, shift),
                           R.alternative_edge_vectors(rados[:k], sub, m, shift), rtol=1e-9, atol=1e-10)
    got, want = F.split_edge_vectors(E, U, 1, E[0]), R.split_edge_vectors(E, U, 1, E[0])
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    dup = np.concatenate([U[:1], U[:1], U[1:]])  # a repeated support: A has rank < n
    _raises_same(lambda: R.alternative_edge_vectors(np.ones((2, 4)), dup[:2], m, np.ones((m, 4))),
                 lambda: F.alternative_edge_vectors(np.ones((2, 4)), dup[:2], m, np.ones((m, 4))))
    few = U[: m - 1]
    _raises_same(lambda: R.recover_edge_vectors(rados[: m - 1], few, m),
                 lambda: F.recover_edge_vectors(rados[: m - 1], few, m))


# ------------------------------------------------------------------------------------------------ hausdorff
def _scipy_hausdorff(A, B):
    return max(directed_hausdorff(A, B)[0], directed_hausdorff(B, A)[0])


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.integers(0, 70), st.sampled_from(["normal", "integers", "clusters",
                                                                                    "scaled", "shared"]),
       st.integers(0, 2**32 - 1))
def test_hausdorff_is_scipy_bit_for_bit(m1, m2, d, kind, seed):
    rng = np.random.default_rng(seed)
    d = max(d, 1)
    A, B = rng.normal(size=(m1, d)), rng.normal(size=(m2, d))
    if kind == "integers":
        A, B = np.round(A), np.round(B)
    elif kind == "clusters":
        C = 10 * rng.normal(size=(3, d))
        A, B = A + C[rng.integers(0, 3, m1)], B + C[rng.integers(0, 3, m2)]
    elif kind == "scaled":
        A, B = A * 1e-160, B * 1e150
    elif kind == "shared":
        B = np.vstack([B, A])[rng.permutation(m1 + m2)]
    value = F.hausdorff_distance(A, B)
    assert value == _scipy_hausdorff(A, B)
    assert value == F.hausdorff_distance(B, A)


def test_hausdorff_matches_the_reference_on_wide_rows():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(40, 100)), rng.normal(size=(30, 100))  # several abandon blocks of 32 and a remainder
    assert F.hausdorff_distance(A, B) == pytest.approx(R.hausdorff_distance(A, B), rel=1e-14)
    assert F.hausdorff_distance(A, A[::-1]) == 0.0
