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
