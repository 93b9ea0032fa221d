"""Issue 15: the performance fixes of fast.snc.snc_predict, fast.reconstruction.hausdorff_distance and the rank
scores of fast.causal keep their semantics, and fast._blas is the one BLAS thread limit.

snc_predict (compiled row pass, threads over blocks, exact tie resolution without rationals where floats are exact):
* equal to the reference (exact rational distances, lowest index first, vote ties to the smallest label) on exact
  ties (integer and dyadic data, duplicated references, queries equal to references), on near ties (references one
  ulp apart), on decimal grids (exact ties the floats cannot see), for every k, serial and threaded, any chunk size;
* the rational fallback is reached where it must be, and its integer arithmetic equals Fraction arithmetic
  (subnormals, huge and negative values).
hausdorff_distance (compiled early-exit search): bit-identical to the max of scipy's two directed distances,
symmetric, the reference's value.
average_ranks / spearman_score (unstable sort): scipy.stats.rankdata / spearmanr on data full of ties.
"""
from __future__ import annotations

from fractions import Fraction

import numba
import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.distance import directed_hausdorff

import fast.causal as FC
import fast.reconstruction as FR
import fast.snc as FS
import reference.causal as RC
import reference.reconstruction as RR
import reference.snc as RS
from fast import _blas


@pytest.fixture(params=["serial", "threaded"])
def mode(request, monkeypatch):
    """snc_predict on one thread, or on 2 threads with blocks of 3 queries (many blocks, all handed to the pool)."""
    if request.param == "serial":
        before = numba.get_num_threads()
        numba.set_num_threads(1)
        yield {}
        numba.set_num_threads(before)
    else:
        monkeypatch.setattr(FS, "_PARALLEL_MIN_WORK", 0)
        before = numba.get_num_threads()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        yield {"chunk_size": 3}
        numba.set_num_threads(before)


def _fraction_knn(Z, X, k):
    """The k nearest of each row in the order (exact ||x - z||^2, j), as ascending sets (the oracle)."""
    out = []
    for x in X:
        d = [(sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(x, z)), j) for j, z in enumerate(Z)]
        out.append(sorted(j for _, j in sorted(d)[:k]))
    return np.array(out, dtype=np.int64)


def _neighbours(Z, X, k, **kw):
    return np.concatenate([idx for _, _, idx in FS._knn_blocks(np.asarray(Z, float), np.asarray(X, float), k, **kw)])


def _tie_problem(kind, rng, m, n, d):
    if kind == "integers":  # few values: duplicates and exact ties everywhere; floats exact
        Z = rng.integers(-2, 3, size=(m, d)).astype(float)
        X = rng.integers(-2, 3, size=(n, d)).astype(float)
    elif kind == "dyadic":  # halves and quarters, scaled far down: still exact
        Z = rng.integers(-4, 5, size=(m, d)) * 2.0**-300
        X = rng.integers(-4, 5, size=(n, d)) * 2.0**-300
    elif kind == "decimal":  # 0.1 steps: exact ties of non-dyadic values (floats inexact)
        Z = rng.integers(-3, 4, size=(m, d)) * 0.1
        X = rng.integers(-3, 4, size=(n, d)) * 0.1 + 0.05
    elif kind == "duplicates":  # normal references, each repeated: ties between identical points
        Z = np.repeat(rng.normal(size=(max(1, m // 3), d)), 3, axis=0)[:m]
        X = np.vstack([rng.normal(size=(max(n - 2, 0), d)), Z[:2]])[:n]  # queries ON references
    else:  # "ulp": pairs of references one ulp apart (near ties the GEMM cannot separate)
        base = rng.normal(size=(max(1, m // 2), d))
        Z = np.vstack([base, np.nextafter(base, np.inf)])[:m]
        X = rng.normal(size=(n, d)) * 1e-3 + base[rng.integers(0, base.shape[0], n)]
    return Z, X


KINDS = ["integers", "dyadic", "decimal", "duplicates", "ulp"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", [1, 2, 4])
def test_snc_predict_ties_equal_the_reference(kind, k, mode):
    rng = np.random.default_rng(hash((kind, k)) % 2**32)
    Z, X = _tie_problem(kind, rng, 24, 40, 3)
    labels = rng.integers(0, 3, size=Z.shape[0])
    assert FS.snc_predict(Z, labels, X, k=k, **mode).tolist() == RS.snc_predict(Z, labels, X, k=k).tolist()
    assert (_neighbours(Z, X, k, **mode) == _fraction_knn(Z, X, k)).all()


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**32 - 1), m=st.integers(1, 16), n=st.integers(1, 12),
       d=st.integers(1, 4), k=st.integers(1, 6), chunk=st.integers(1, 5))
def test_snc_neighbours_are_the_exact_ones(kind, seed, m, n, d, k, chunk):
    rng = np.random.default_rng(seed)
    Z, X = _tie_problem(kind, rng, m, n, d)
    k = min(k, Z.shape[0])
    assert (_neighbours(Z, X, k, chunk_size=chunk) == _fraction_knn(Z, X, k)).all()


def test_threads_do_not_change_the_neighbours(monkeypatch):
    rng = np.random.default_rng(3)
    Z, X = _tie_problem("duplicates", rng, 200, 3000, 5)
    serial = _neighbours(Z, X, 3)
    monkeypatch.setattr(FS, "_PARALLEL_MIN_WORK", 0)
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        threaded = _neighbours(Z, X, 3, chunk_size=7)
    finally:
        numba.set_num_threads(before)
    assert (serial == threaded).all()


def test_exact_floats_decide_ties_without_rationals(monkeypatch):
    """Integer data full of exact ties and duplicated normal references: no row reaches the rational fallback
    (the float distances are certified exact, or the tied references are the same point)."""
    def refuse(*args):
        raise AssertionError("rational fallback reached")

    monkeypatch.setattr(FS, "_rational_order", refuse)
    rng = np.random.default_rng(5)
    for kind in ("integers", "duplicates"):
        Z, X = _tie_problem(kind, rng, 60, 300, 3)
        labels = rng.integers(0, 4, size=Z.shape[0])
        for k in (1, 3):
            FS.snc_predict(Z, labels, X, k=k)


def test_rational_fallback_decides_what_floats_cannot(monkeypatch):
    """x = 0.1, references 0.3 and -0.1: both float distances round to the same value region (0.2^2), the exact ones
    differ; and an exact tie of decimals (0.3 - 0.1 vs 0.1 - (-0.1)) needs rationals too."""
    calls = []
    original = FS._rational_order

    def counting(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(FS, "_rational_order", counting)
    Z = np.array([[0.3], [-0.1], [5.0]])
    X = np.array([[0.1], [0.1 + 2**-55]])
    assert (_neighbours(Z, X, 1) == _fraction_knn(Z, X, 1)).all()
    assert FS.snc_predict(Z, ["a", "b", "c"], X).tolist() == RS.snc_predict(Z, ["a", "b", "c"], X).tolist()
    assert calls, "the near tie never reached the exact fallback"


@pytest.mark.parametrize("x, Z", [
    # the subtraction rounds (2^30 -/+ 2^-30 -> 2^30), the square and sum of its result are exact
    ([2.0**30], [[-(2.0**-30)], [2.0**-30]]),
    # a square rounds ((1 + 2^-40)^2), the other distance is exact and equal to the rounded one
    ([0.0, 0.0, 0.0], [[1 + 2.0**-40, 0.0, 0.0], [1.0, 2.0**-20, 2.0**-20]]),
    # the sum rounds (2^60 + 2^-2 -> 2^60)
    ([0.0, 0.0], [[2.0**30, 0.5], [2.0**30, 0.0]]),
])
def test_each_rounding_step_voids_the_exactness_certificate(x, Z):
    """Reference 0 and 1 have the same float distance, certified exact only if every step was: one rounding step
    makes reference 1 the nearer in exact arithmetic, so a certificate that missed it would pick index 0."""
    X, Z = np.array([x]), np.array(Z)
    assert _fraction_knn(Z, X, 1).tolist() == [[1]]
    assert _neighbours(Z, X, 1).tolist() == [[1]]
    assert FS.snc_predict(Z, [0, 1], X).tolist() == [1]


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(1, 4)),
                  elements=st.one_of(st.floats(-1e150, 1e150, allow_subnormal=True),
                                     st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.0**-1000, 0.1, 1e150]))),
       st.integers(1, 5))
def test_rational_order_is_fraction_arithmetic(P, k):
    x, Z = P[0], P[1:]
    k = min(k, Z.shape[0])
    J = np.arange(Z.shape[0], dtype=np.int64)[::-1].copy()  # candidates in any order
    exact = sorted((sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(x, Z[j])), j) for j in range(Z.shape[0]))
    assert FS._rational_order(x, Z, J, k).tolist() == [j for _, j in exact[:k]]


def test_snc_predict_random_data_matches_sklearn_and_estimator_blocks():
    """The usual case (no ties): sklearn's brute-force 1-NN; and predict_proba's blocks (the estimator iterates
    _knn_blocks) cover every row once."""
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.default_rng(7)
    X, Z = rng.normal(size=(5000, 6)), rng.normal(size=(300, 6))
    labels = np.arange(300) % 4
    expected = KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(Z, labels).predict(X)
    assert (FS.snc_predict(Z, labels, X) == expected).all()
    spans = [(a, b, idx.shape) for a, b, idx in FS._knn_blocks(Z, X, 2, chunk_size=128)]
    assert spans[0][0] == 0 and spans[-1][1] == 5000
    assert all(b0 == a1 for (_, b0, _), (a1, _, _) in zip(spans, spans[1:]))
    assert all(shape == (b - a, 2) for a, b, shape in spans)


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
    value = FR.hausdorff_distance(A, B)
    assert value == _scipy_hausdorff(A, B)
    assert value == FR.hausdorff_distance(B, A)


def test_hausdorff_matches_the_reference_on_wide_rows():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(40, 100)), rng.normal(size=(30, 100))  # several abandon blocks of 32 and a remainder
    assert FR.hausdorff_distance(A, B) == pytest.approx(RR.hausdorff_distance(A, B), rel=1e-14)
    assert FR.hausdorff_distance(A, A[::-1]) == 0.0


# ------------------------------------------------------------------------------------------------ ranks
@pytest.mark.parametrize("values", [3, 50, 10**6])
def test_average_ranks_with_ties_are_rankdata(values):
    rng = np.random.default_rng(values)
    a = rng.integers(0, values, size=20_000).astype(float)
    a[::7] = -0.0  # signed zeros tie with zeros
    a[1::7] = 0.0
    ranks = FC.average_ranks(a)
    assert ranks.dtype == np.float64
    np.testing.assert_array_equal(ranks, scipy.stats.rankdata(a))
    b = rng.integers(0, values, size=20_000).astype(float)
    twice = (2 * scipy.stats.rankdata(a) - 2 * scipy.stats.rankdata(b)).astype(np.int64)  # the thesis formula on
    m = a.size  # midranks (not Pearson on ranks, which spearmanr is with ties), in exact integers
    expected = abs(1 - Fraction(6 * int(np.dot(twice, twice)), 4 * m * (m * m - 1)))
    assert FC.spearman_score(a, b) == float(expected)


def test_average_ranks_small_equal_the_reference():
    a = np.array([2.0, -1.0, 2.0, 0.0, -0.0, 7.0, 2.0])
    np.testing.assert_array_equal(FC.average_ranks(a), RC.average_ranks(a))
    assert FC.spearman_score(a, a[::-1].copy()) == RC.spearman_score(a, a[::-1].copy())


# ------------------------------------------------------------------------------------------------ the BLAS limit
def test_one_blas_limit_for_snc_and_causal():
    from threadpoolctl import threadpool_info

    import pathlib

    import fast

    assert FC.limit_blas is _blas.limit_blas
    assert not hasattr(FS, "_blas_one_thread") and not hasattr(FC, "_BLAS") and not hasattr(FC, "_blas_limit")
    # one home for the threadpoolctl controller: no other module of fast builds its own
    root = pathlib.Path(fast.__file__).parent
    builders = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                      if "ThreadpoolController(" in p.read_text() and p.name != "_blas.py")
    assert builders == [], builders
    with _blas.limit_blas(1):
        assert all(lib["num_threads"] == 1 for lib in threadpool_info() if lib["user_api"] == "blas")
    assert type(_blas.limit_blas(1, 10, min_size=100)).__name__ == "nullcontext"
    assert type(_blas.limit_blas(None)).__name__ == "nullcontext"
    assert _blas.controller() is _blas.controller()
