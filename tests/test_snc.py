"""SNC kernels (kusner2016 ch. 3), properties run on both implementations against independent oracles: central
finite differences (relative 1e-6 at random points), scipy's softmax, direct float64 formulas, brute force."""
from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

import fast.snc as fast_snc
import reference.snc as ref_snc
from spec.links import checks
from fractions import Fraction
from hypothesis.extra import numpy as hnp
import numba

BOTH = [ref_snc, fast_snc]
IDS = ["reference", "fast"]


def problem(seed, n=16, m=5, d=3, classes=3, scale=1.0):
    rng = np.random.default_rng(seed)
    X = scale * rng.normal(size=(n, d))
    y = rng.integers(0, classes, n)
    y[:classes] = np.arange(classes)
    Z = scale * rng.normal(size=(m, d))
    zl = np.arange(m) % classes
    return X, y, Z, zl


def fd(fun, P, h):
    out = np.zeros_like(P)
    for idx in np.ndindex(P.shape):
        Pp, Pm = P.copy(), P.copy()
        Pp[idx] += h
        Pm[idx] -= h
        out[idx] = (fun(Pp) - fun(Pm)) / (2 * h)
    return out


def assert_rel(got, want, rel):
    err = np.abs(np.asarray(got) - np.asarray(want)).max()
    assert err <= rel * max(np.abs(want).max(), 1e-12), (err, np.abs(want).max())


@checks("kusner2016.ch3.eq6", "kusner2016.ch3.eq5", "kusner2016.ch3.gamma2")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
@pytest.mark.parametrize("seed", range(4))
def test_gradient_in_Z_and_gamma2_match_finite_differences(impl, seed):
    X, y, Z, zl = problem(seed)
    gamma2 = float(np.random.default_rng(100 + seed).uniform(0.1, 3.0))
    gZ, gg = impl.snc_gradient(X, y, Z, zl, gamma2)
    num = fd(lambda Zv: impl.snc_loss(X, y, Zv, zl, gamma2), Z, 1e-5)
    assert_rel(gZ, num, 1e-6)
    num_g = (impl.snc_loss(X, y, Z, zl, gamma2 * (1 + 1e-5)) - impl.snc_loss(X, y, Z, zl, gamma2 * (1 - 1e-5))) / (2e-5 * gamma2)
    assert gg == pytest.approx(num_g, rel=1e-6)


@checks("kusner2016.ch3.eq8", "kusner2016.ch3.eq9", "kusner2016.ch3.eq7")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
@pytest.mark.parametrize("shape", [(3,), (3, 3), (2, 3)], ids=["diagonal", "full", "rectangular"])
def test_metric_gradients_match_finite_differences(impl, shape):
    X, y, Z, zl = problem(7)
    A = np.random.default_rng(len(shape) * 10 + shape[0]).normal(size=shape)
    dZ, dA = impl.snc_metric_gradient(X, y, Z, zl, A)
    assert dZ.shape == Z.shape and dA.shape == A.shape
    assert_rel(dZ, fd(lambda Zv: impl.snc_metric_loss(X, y, Zv, zl, A), Z, 1e-5), 1e-6)
    assert_rel(dA, fd(lambda Av: impl.snc_metric_loss(X, y, Z, zl, Av), A, 1e-5), 1e-6)


@checks("kusner2016.ch3.eq3", "kusner2016.ch3.eq2", "kusner2016.ch3.eq4")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_probabilities_and_KL_identity(impl):
    """p_ij is scipy's softmax of -gamma^2 D; p_i sums the same-label ones; -log p_i = KL(1 || p_i) summed = L."""
    X, y, Z, zl = problem(3)
    gamma2 = 0.8
    D = ((X[:, None] - Z[None]) ** 2).sum(-1)
    P = impl.snc_probabilities(X, Z, gamma2)
    np.testing.assert_allclose(P, scipy.special.softmax(-gamma2 * D, axis=1), rtol=1e-12)
    p = (P * (y[:, None] == zl[None])).sum(1)
    # KL between the point mass on "correct" and Bernoulli(p_i): 1 * log(1 / p_i) + 0 * log(0 / (1 - p_i)) (0 log 0 = 0)
    kl = np.array([1.0 * math.log(1.0 / pi) for pi in p])
    np.testing.assert_allclose(-impl.snc_log_correct(X, y, Z, zl, gamma2), kl, rtol=1e-12)
    assert impl.snc_loss(X, y, Z, zl, gamma2) == pytest.approx(math.fsum(kl), rel=1e-13)


@checks("kusner2016.ch3.eq1", "kusner2016.ch3.nca")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_sne_and_nca_neighbourhoods(impl):
    X, y, _, _ = problem(5, n=10)
    P = impl.sne_probabilities(X, 0.6)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    E = np.exp(-0.6 * D)
    np.fill_diagonal(E, 0.0)
    np.testing.assert_allclose(P, E / E.sum(1, keepdims=True), rtol=1e-12)
    assert np.all(np.diag(P) == 0.0)
    A = np.array([[1.0, 0.5, 0.0], [0.0, 2.0, -1.0]])
    T = X @ A.T
    E = np.exp(-((T[:, None] - T[None]) ** 2).sum(-1))
    np.fill_diagonal(E, 0.0)
    Pn = E / E.sum(1, keepdims=True)
    want = (Pn * (y[:, None] == y[None])).sum(1)
    np.testing.assert_allclose(impl.nca_correct_probabilities(X, y, A), want, rtol=1e-12)
    # a diagonal A equals the full diag(a)
    a = np.array([0.5, 1.5, 2.0])
    np.testing.assert_allclose(impl.nca_correct_probabilities(X, y, a), impl.nca_correct_probabilities(X, y, np.diag(a)), rtol=1e-12)


@checks("kusner2016.ch3.a-gamma")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_A_equal_gamma_I_gives_eq3_3_and_gamma2_I_does_not(impl):
    X, y, Z, zl = problem(11)
    gamma2 = 2.25
    L = impl.snc_loss(X, y, Z, zl, gamma2)
    assert impl.snc_metric_loss(X, y, Z, zl, math.sqrt(gamma2) * np.eye(3)) == pytest.approx(L, rel=1e-12)
    assert impl.snc_metric_loss(X, y, Z, zl, np.full(3, math.sqrt(gamma2))) == pytest.approx(L, rel=1e-12)
    # printed "A = gamma^2 I" is the scale gamma^4
    printed = impl.snc_metric_loss(X, y, Z, zl, gamma2 * np.eye(3))
    assert printed == pytest.approx(impl.snc_loss(X, y, Z, zl, gamma2**2), rel=1e-12)
    assert abs(printed - L) > 0.1 * L


@checks("kusner2016.ch3.scale-inv")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
@pytest.mark.parametrize("c", [1e-3, 0.5, 7.0, 1e4])
def test_scale_invariance(impl, c):
    """1-NN labels are unchanged by x -> c x for all inputs and references; and L(cX, cZ, gamma^2/c^2) = L(X, Z, gamma^2)
    (so A = gamma I need not be applied at test time); a NON-uniform scaling does change the 1-NN decision."""
    X, y, Z, zl = problem(13, n=40)
    T = np.random.default_rng(1).normal(size=(200, 3))

    def nn(R, Q):
        return np.argmin(((Q[:, None] - R[None]) ** 2).sum(-1), axis=1)

    assert np.array_equal(nn(Z, T), nn(c * Z, c * T))
    assert impl.snc_loss(c * X, y, c * Z, zl, 0.9 / c**2) == pytest.approx(impl.snc_loss(X, y, Z, zl, 0.9), rel=1e-9)
    S = np.array([1.0, 25.0, 0.04])
    assert not np.array_equal(nn(Z, T), nn(Z * S, T * S))


@checks("kusner2016.ch3.eq5")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_edge_cases(impl):
    X, y, Z, zl = problem(17)
    # a class with no reference: L = inf, refused
    with pytest.raises(ValueError, match="z_labels must contain every class of y"):
        impl.snc_loss(X, y, Z, np.zeros(Z.shape[0], dtype=int), 1.0)
    # tiny gamma^2: p_ij -> 1/m, L -> -sum_i log(m_{y_i} / m), gradients -> 0
    counts = {c: int(np.sum(zl == c)) for c in np.unique(zl)}
    limit = -math.fsum(math.log(counts[c] / len(zl)) for c in y)
    assert impl.snc_loss(X, y, Z, zl, 1e-14) == pytest.approx(limit, rel=1e-12)
    assert np.abs(impl.snc_gradient(X, y, Z, zl, 1e-14)[0]).max() < 1e-12
    # huge gamma^2: finite, = gamma^2 sum_i (D_i,own nearest - D_i,nearest) + log(ties); no NaN anywhere
    g = 1e9
    D = ((X[:, None] - Z[None]) ** 2).sum(-1)
    same = y[:, None] == zl[None]
    gap = np.where(same, D, np.inf).min(1) - D.min(1)
    L = impl.snc_loss(X, y, Z, zl, g)
    assert np.isfinite(L) and L == pytest.approx(g * math.fsum(gap), rel=1e-6)
    gZ, gg = impl.snc_gradient(X, y, Z, zl, g)
    assert np.all(np.isfinite(gZ)) and np.isfinite(gg)
    # duplicated references with different labels: p splits evenly, -log p_i = log 2 for inputs at the duplicate
    Xd = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 0.0]])
    yd = np.array([0, 1, 1])
    Zd = np.array([[0.0, 0.0], [0.0, 0.0]])
    assert impl.snc_loss(Xd, yd, Zd, np.array([0, 1]), 5.0) == pytest.approx(3 * math.log(2.0), rel=1e-12)
    # duplicated inputs count twice
    Xdd = np.vstack([X, X[:1]])
    ydd = np.concatenate([y, y[:1]])
    assert impl.snc_loss(Xdd, ydd, Z, zl, 1.0) == pytest.approx(
        impl.snc_loss(X, y, Z, zl, 1.0) - impl.snc_log_correct(X, y, Z, zl, 1.0)[0], rel=1e-12)
    # one class owning every reference: p_i = 1, L = 0, gradient exactly 0
    y1 = np.zeros(5, dtype=int)
    assert impl.snc_loss(X[:5], y1, Z, np.zeros(5, dtype=int), 1.0) == 0.0
    assert np.all(impl.snc_gradient(X[:5], y1, Z, np.zeros(5, dtype=int), 1.0)[0] == 0.0)


BAD = [
    (lambda X, y, Z, zl: (X, y, Z, zl, 0.0), ValueError, "gamma2"),
    (lambda X, y, Z, zl: (X, y, Z, zl, -1.0), ValueError, "gamma2"),
    (lambda X, y, Z, zl: (X, y, Z, zl, float("nan")), ValueError, "gamma2"),
    (lambda X, y, Z, zl: (np.where(X > 1, np.nan, X), y, Z, zl, 1.0), ValueError, "X must contain only finite"),
    (lambda X, y, Z, zl: (X, y, Z[:, :2], zl, 1.0), ValueError, "Z must have d = 3"),
    (lambda X, y, Z, zl: (X, y[:-1], Z, zl, 1.0), ValueError, "y must have length"),
    (lambda X, y, Z, zl: (X, y, Z, zl[:-1], 1.0), ValueError, "z_labels must have length"),
    (lambda X, y, Z, zl: (X, y, Z, np.zeros_like(zl), 1.0), ValueError, "every class of y"),
    (lambda X, y, Z, zl: (X, y.astype(str), Z, zl, 1.0), TypeError, "both be numbers or both be strings"),
    (lambda X, y, Z, zl: (X, y + 0.5, Z, zl, 1.0), ValueError, "non-integer"),
    (lambda X, y, Z, zl: ("X", y, Z, zl, 1.0), TypeError, "X must be a numeric array"),
]


@pytest.mark.parametrize("case", range(len(BAD)))
@pytest.mark.parametrize("fname", ["snc_loss", "snc_gradient"])
def test_bad_inputs_same_error_in_both(case, fname):
    make, exc, msg = BAD[case]
    args = make(*problem(2))
    messages = []
    for impl in BOTH:
        with pytest.raises(exc, match=msg) as info:
            getattr(impl, fname)(*args)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_metric_bad_inputs(impl):
    X, y, Z, zl = problem(2)
    with pytest.raises(ValueError, match="A must have d = 3"):
        impl.snc_metric_loss(X, y, Z, zl, np.ones(2))
    with pytest.raises(ValueError, match="A must be a 2-d"):
        impl.snc_metric_loss(X, y, Z, zl, np.ones((1, 1, 3)))


@checks("kusner2016.ch3.init")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_class_allocation_exhaustive(impl):
    """Every count vector with C <= 3 classes of sizes 1..5 and every m in [C, n]: sum m_c = m, 1 <= m_c <= n_c, and
    |m_c - m n_c / n| < 1 whenever the floor of one per class does not bind (m_c > 1) -- the proportionality rule."""
    for C in (1, 2, 3):
        for counts in product(range(1, 6), repeat=C):
            n = sum(counts)
            for m in range(C, n + 1):
                a = impl.class_allocation(counts, m)
                assert a.dtype == np.int64 and a.sum() == m
                assert np.all(a >= 1) and np.all(a <= np.array(counts))
                for mc, nc in zip(a, counts):
                    if mc > 1:
                        assert mc - m * nc / n < 1 + 1e-12
    with pytest.raises(ValueError, match="m must be >= the number of classes"):
        impl.class_allocation([3, 4, 5], 2)
    with pytest.raises(ValueError, match="m must be <= n"):
        impl.class_allocation([3, 4], 8)


@checks("kusner2016.ch3.init")
def test_init_has_one_reference_per_class_and_is_seeded():
    y = np.array([0] * 50 + [1] * 3 + [2] * 1 + [7] * 46)
    for impl in BOTH:
        idx = impl.class_proportional_init(y, 10, 42)
        assert len(set(idx.tolist())) == 10 and set(y[idx]) == {0, 1, 2, 7}
    assert np.array_equal(ref_snc.class_proportional_init(y, 10, 42), fast_snc.class_proportional_init(y, 10, 42))
    assert np.bincount(y[fast_snc.class_proportional_init(y, 10, 1)], minlength=8)[[0, 1, 2, 7]].tolist() == [4, 1, 1, 4]  # targets 5, .3, .1, 4.6 after the floor of 1


@checks("kusner2016.ch3.alg2")
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_optimiser_decreases_the_loss(impl):
    X, y, Z, zl = problem(21, n=30, m=6)
    fit = impl.snc_optimize(X, y, Z, zl, 1.0, max_iter=25)
    assert np.all(np.diff(fit.losses) <= 1e-12 * fit.losses[0])
    assert fit.losses[-1] < 0.8 * fit.losses[0]
    assert fit.losses[-1] == pytest.approx(impl.snc_loss(X, y, fit.Z, zl, fit.gamma2), rel=1e-9)
    assert fit.n_iter > 0 and fit.Z.shape == Z.shape


@checks("kusner2016.ch3.alg2")
@pytest.mark.parametrize("metric", ["diagonal", "full"])
@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_optimiser_metric(impl, metric):
    """Both optimisers take ``metric``: after Z at A = gamma I, A and Z jointly; the path stays non-increasing (the
    joint phase starts where L_A = L), ends at L_A(Z, A) of the returned pair, and lowers it below the scalar fit."""
    X, y, Z, zl = problem(22, n=40, m=6)
    X[:, 0] += 3.0 * y  # classes apart along axis 0, axis 2 stretched: a diagonal / full A has something to learn
    X[:, 2] *= 4.0
    Z[:, 0] += 3.0 * zl
    max_iter = 30 if impl is fast_snc else 15
    fit = impl.snc_optimize(X, y, Z, zl, 0.3, max_iter=max_iter, metric=metric, optimize_gamma2=False)
    scalar = impl.snc_optimize(X, y, Z, zl, 0.3, max_iter=max_iter, optimize_gamma2=False)
    assert np.all(np.diff(fit.losses) <= 1e-12 * fit.losses[0])
    assert fit.A.shape == ((3,) if metric == "diagonal" else (3, 3))
    assert fit.losses[-1] == pytest.approx(impl.snc_metric_loss(X, y, fit.Z, zl, fit.A), rel=1e-9)
    assert fit.losses[-1] < scalar.losses[-1]


@pytest.mark.parametrize("metric", ["mahalanobis", None, "Full"])
def test_optimiser_unknown_metric_same_error_in_both(metric):
    X, y, Z, zl = problem(2)
    messages = []
    for impl in BOTH:
        with pytest.raises(ValueError, match="metric must be one of") as info:
            impl.snc_optimize(X, y, Z, zl, 1.0, max_iter=2, metric=metric)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_fast_log_correct_is_chunked():
    """snc_log_correct keeps O(chunk m) memory: n = 20,000, m = 500 peaked at ~325 MiB unchunked (four n x m
    float64 arrays); chunked it stays below 32 MiB, and the chunk size does not change the result."""
    import tracemalloc

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20000, 4)), rng.integers(0, 3, 20000)
    Z, zl = rng.normal(size=(500, 4)), np.arange(500) % 3
    fast_snc.snc_log_correct(X[:50], y[:50], Z, zl, 1.0)  # warm up (imports, caches)
    tracemalloc.start()
    try:
        out = fast_snc.snc_log_correct(X, y, Z, zl, 1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20, peak / 2**20
    assert out.shape == (20000,) and np.all(out <= 0)
    small = fast_snc.snc_log_correct(X[:700], y[:700], Z, zl, 1.0, chunk_size=7)
    np.testing.assert_allclose(small, out[:700], rtol=1e-12, atol=1e-15)
    assert -math.fsum(out[:700].tolist()) == pytest.approx(fast_snc.snc_loss(X[:700], y[:700], Z, zl, 1.0), rel=1e-12)


@given(chunk=st.integers(1, 20), seed=st.integers(0, 50))
@settings(max_examples=25)
def test_fast_chunking_does_not_change_results(chunk, seed):
    X, y, Z, zl = problem(seed, n=17)
    full = fast_snc.snc_gradient(X, y, Z, zl, 1.3)
    part = fast_snc.snc_gradient(X, y, Z, zl, 1.3, chunk_size=chunk)
    np.testing.assert_allclose(part[0], full[0], rtol=1e-12, atol=1e-14)
    assert part[1] == pytest.approx(full[1], rel=1e-12)
    assert fast_snc.snc_loss(X, y, Z, zl, 1.3, chunk_size=chunk) == pytest.approx(fast_snc.snc_loss(X, y, Z, zl, 1.3), rel=1e-14)


def test_fast_default_blocks_at_large_m(monkeypatch):
    """At m > 2^16 / 128 the default block is _FUSED_MIN_ROWS rows (not 2^16 / m: the second GEMM was memory-bound),
    and it gives the gradient of the small blocks and of the numpy engine; the rows are what _fused_core receives."""
    rng = np.random.default_rng(3)
    n, m, d = 700, 1100, 3
    X, y = rng.normal(size=(n, d)), rng.integers(0, 4, n)
    Z, zl = rng.normal(size=(m, d)), np.arange(m) % 4
    seen = []
    core = fast_snc._fused_core
    monkeypatch.setattr(fast_snc, "_fused_core", lambda *a: seen.append(a[-1]) or core(*a))
    default = fast_snc.snc_gradient(X, y, Z, zl, 0.7)
    assert seen == [fast_snc._FUSED_MIN_ROWS] and fast_snc._FUSED_MIN_ROWS > fast_snc._FUSED_CHUNK_ELEMENTS // m
    for other in (fast_snc.snc_gradient(X, y, Z, zl, 0.7, chunk_size=5),
                  fast_snc.snc_gradient(X, y, Z, zl, 0.7, engine="numpy")):
        np.testing.assert_allclose(default[0], other[0], rtol=1e-12, atol=1e-14 * np.abs(other[0]).max())
        assert default[1] == pytest.approx(other[1], rel=1e-12)


@given(seed=st.integers(0, 200), gamma2=st.sampled_from([1e-9, 0.01, 1.0, 30.0, 1e4, 1e8]), chunk=st.sampled_from([None, 3]))
@settings(max_examples=40)
def test_fast_numba_and_numpy_engines_agree(seed, gamma2, chunk):
    X, y, Z, zl = problem(seed, n=23, m=7)
    a = fast_snc.snc_gradient(X, y, Z, zl, gamma2, engine="numba", chunk_size=chunk)
    b = fast_snc.snc_gradient(X, y, Z, zl, gamma2, engine="numpy", chunk_size=chunk)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-10, atol=1e-12 * max(1.0, np.abs(b[0]).max()))
    assert a[1] == pytest.approx(b[1], rel=1e-10, abs=1e-12 * max(1.0, abs(b[1])))
    A = np.random.default_rng(seed).normal(size=(2, 3))
    a = fast_snc.snc_metric_gradient(X, y, Z, zl, A, engine="numba")
    b = fast_snc.snc_metric_gradient(X, y, Z, zl, A, engine="numpy")
    np.testing.assert_allclose(a[1], b[1], rtol=1e-10, atol=1e-12 * max(1.0, np.abs(b[1]).max()))
    with pytest.raises(ValueError, match="engine must be"):
        fast_snc.snc_gradient(X, y, Z, zl, 1.0, engine="cuda")


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("gamma2", [0.3, 1e6])
def test_fast_thread_split_agrees_with_one_thread_and_numpy(monkeypatch, threads, gamma2):
    """The compiled pass splits the inputs over numba.get_num_threads() Python threads from n m >= 2^20: forced
    here on a small problem (uneven spans, a short last block, underflowing rows at gamma^2 = 1e6), the loss,
    both gradients and the metric gradient agree with the one-thread pass and with the numpy engine."""
    X, y, Z, zl = problem(7, n=101, m=9, d=3, classes=3)
    one = fast_snc._value_and_gradient(X, y, Z, zl, gamma2, chunk_size=4)
    ref = fast_snc.snc_gradient(X, y, Z, zl, gamma2, engine="numpy")
    A = np.random.default_rng(1).normal(size=(2, 3))
    one_m = fast_snc.snc_metric_gradient(X, y, Z, zl, A, chunk_size=4)
    monkeypatch.setattr(fast_snc, "_PARALLEL_MIN_WORK", 0)
    monkeypatch.setattr(fast_snc.numba, "get_num_threads", lambda: threads)
    assert len(fast_snc._spans(101, 4, threads)) == threads
    par = fast_snc._value_and_gradient(X, y, Z, zl, gamma2, chunk_size=4)
    assert par[0] == pytest.approx(one[0], rel=1e-14)
    for a, b in ((par[1], one[1]), (par[1], ref[0])):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(b).max()))
    assert par[2] == pytest.approx(one[2], rel=1e-10, abs=1e-12 * max(1.0, abs(one[2])))
    assert par[2] == pytest.approx(ref[1], rel=1e-10, abs=1e-12 * max(1.0, abs(ref[1])))
    par_m = fast_snc.snc_metric_gradient(X, y, Z, zl, A, chunk_size=4)
    for a, b in zip(par_m, one_m):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(b).max()))


def _child_gradient(args, queue):
    queue.put(fast_snc.snc_gradient(*args)[1])


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_fast_thread_split_survives_fork():
    """A forked child inherits the parent's thread pool object but not its threads: the split pass must make a new
    pool there instead of waiting forever (n m = 1.2e6 >= 2^20, so the split is used when numba has >= 2 threads)."""
    import multiprocessing

    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 4))
    y = rng.integers(0, 3, 2000)
    Z, zl = X[:600] + 0.1, y[:600]
    want = fast_snc.snc_gradient(X, y, Z, zl, 0.5)[1]  # creates the pool in this process
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child_gradient, args=((X, y, Z, zl, 0.5), queue))
    proc.start()
    try:
        got = queue.get(timeout=60)
    finally:
        proc.join(timeout=10)
        if proc.is_alive():
            proc.kill()
    assert got == want


def _gaussian_classes(seed=0, n=90, d=2, classes=3, m=6):
    """Three Gaussian classes in the plane (unit spread, centres ~2 apart), m class-proportional references."""
    rng = np.random.default_rng(seed)
    centres = 2.0 * rng.normal(size=(classes, d))
    y = np.arange(n) % classes
    X = centres[y] + rng.normal(size=(n, d))
    idx = fast_snc.class_proportional_init(y, m, seed)
    return X, y, X[idx], y[idx]


@checks("kusner2016.ch3.alg2")
@pytest.mark.parametrize("factor", [1e3, 1e8, 1e-8])
def test_optimisers_recover_from_a_poor_starting_gamma2(factor):
    """Regression: from gamma^2 = factor / median D, both gamma^2 phases reach the same scale, and both fits end far
    below the plateau L = n log C (every p_ij ~ 1/m), fast within 5 % of the reference, along non-increasing paths.
    Old code on this problem (n log C = 98.9): fast's L-BFGS-B jumped to its bound e^-40 gamma^2 from 1e3 and 1e8
    (final L 98.88 vs the reference's 53.98) and did not move from 1e-8 (98.87); the reference's doubling step
    overshot into the plateau from 1e8 (98.87) and crept from 1e-8 (98.88).  Now both: 52.65 / 53.98."""
    X, y, Z, zl = _gaussian_classes()
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    gamma2 = factor / float(np.median(D[D > 0]))
    plateau = len(y) * math.log(3)
    fits = [impl.snc_optimize(X, y, Z, zl, gamma2, max_iter=30) for impl in (ref_snc, fast_snc)]
    for fit in fits:
        assert np.all(np.diff(fit.losses) <= 1e-12 * fit.losses[0])
        assert fit.losses[-1] < 0.75 * plateau
    ref, fst = fits
    assert fst.gamma2 == pytest.approx(ref.gamma2, rel=1e-3)
    assert fst.losses[-1] <= 1.05 * ref.losses[-1]


# ------------------------------------------------------------------------------------------------------ snc_predict
def _exact_labels(Z, zl, X, k):
    """Brute force in exact rationals, written independently of both packages: sort (D, j), vote, smallest label."""
    from collections import Counter
    from fractions import Fraction

    out = []
    for x in X.tolist():
        ranked = sorted((sum((Fraction(a) - Fraction(b)) ** 2 for a, b in zip(x, z)), j) for j, z in enumerate(Z.tolist()))
        votes = Counter(zl[j] for _, j in ranked[:k])
        out.append(min(c for c, v in votes.items() if v == max(votes.values())))
    return out


@checks("kusner2016.ch3.nn-rule")
@given(seed=st.integers(0, 10**6), k=st.integers(1, 5), chunk=st.sampled_from([None, 1, 4]),
       integer=st.booleans(), offset=st.sampled_from([0.0, 1e6]))
@settings(max_examples=60, deadline=None)
def test_predict_agrees_with_reference_and_exact_brute_force_on_ties(seed, k, chunk, integer, offset):
    """Integer coordinates (many exact ties), duplicated references with other labels, queries on references and
    midway between two, a far offset (the GEMM's cancellation): both packages give the exact rule's labels."""
    rng = np.random.default_rng(seed)
    m, n, d = 9, 30, 2
    Z = rng.integers(-2, 3, (m, d)).astype(float) if integer else rng.normal(size=(m, d))
    Z[3] = Z[1]
    X = rng.integers(-2, 3, (n, d)).astype(float) if integer else rng.normal(size=(n, d))
    X[0], X[1] = Z[2], (Z[4] + Z[5]) / 2
    Z, X = Z + offset, X + offset
    zl = rng.integers(0, 3, m)
    want = _exact_labels(Z, zl.tolist(), X, k)
    assert ref_snc.snc_predict(Z, zl, X, k).tolist() == want
    assert fast_snc.snc_predict(Z, zl, X, k, chunk_size=chunk).tolist() == want


@pytest.mark.parametrize("impl", BOTH, ids=IDS)
def test_predict_near_and_exact_ties_beyond_gemm_resolution(impl):
    """References far from their mean (the GEMM's rounding ~ u 1e12 = 1e-4 >> the gaps): a gap of 2^-29 between two
    distances is resolved by the direct re-check, an exact tie (x midway) goes to the lower index, and a tie made by
    a duplicate reference with another label goes to the first of them."""
    Z = np.array([[0.0], [1e6], [1e6 + 1.0], [1e6 + 1.0]])
    zl = np.array([7, 1, 2, 3])
    X = np.array([[1e6 + 0.5 + 2.0**-30], [1e6 + 0.5 - 2.0**-30], [1e6 + 0.5], [1e6 + 1.0], [-1.0]])
    assert impl.snc_predict(Z, zl, X).tolist() == [2, 1, 1, 2, 7]
    assert impl.snc_predict(Z, zl, X, k=2).tolist() == [2, 1, 1, 2, 1]  # vote ties -> the smallest label
    assert impl.snc_predict(Z, zl, X, k=3).tolist() == [1, 1, 1, 1, 1]  # one vote each for 1, 2, 3


@pytest.mark.parametrize("k", [1, 3, 5])
def test_predict_matches_sklearn_brute_knn_without_ties(k):
    """Continuous data (no distance ties): KNeighborsClassifier(algorithm='brute') with uniform votes (its vote
    ties also go to the smallest label); both packages, string labels too."""
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.default_rng(k)
    Z, zl = rng.normal(size=(40, 4)), rng.integers(0, 4, 40)
    X = rng.normal(size=(500, 4)) * 1.5
    want = KNeighborsClassifier(k, algorithm="brute").fit(Z, zl).predict(X)
    got = fast_snc.snc_predict(Z, zl, X, k)
    assert got.dtype == zl.dtype and np.array_equal(got, want)
    assert np.array_equal(fast_snc.snc_predict(Z, zl, X, k, chunk_size=7), want)
    assert np.array_equal(ref_snc.snc_predict(Z, zl, X[:60], k), want[:60])
    names = np.array(["ant", "bee", "cat", "dog"])
    assert np.array_equal(fast_snc.snc_predict(Z, names[zl], X, k), names[want])


_Zp, _zlp = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), np.array([0, 1, 1])
PREDICT_BAD = [
    ((_Zp, _zlp, np.ones((4, 3))), {}, ValueError, r"X must have d = 2 columns like the compressed set Z"),
    ((_Zp, _zlp, np.array([[np.nan, 0.0]])), {}, ValueError, "X must contain only finite"),
    ((_Zp, _zlp, np.array([[np.inf, 0.0]])), {}, ValueError, "X must contain only finite"),
    ((np.where(_Zp > 1, np.nan, _Zp), _zlp, np.ones((1, 2))), {}, ValueError, "Z must contain only finite"),
    ((_Zp, _zlp, np.ones((0, 2))), {}, ValueError, "X must not be empty"),
    ((np.ones((0, 2)), np.array([], dtype=int), np.ones((1, 2))), {}, ValueError, "Z must not be empty"),
    ((_Zp, _zlp, np.ones((1, 2))), {"k": 0}, ValueError, "k must be an integer >= 1"),
    ((_Zp, _zlp, np.ones((1, 2))), {"k": 4}, ValueError, r"k must be <= m = 3"),
    ((_Zp, _zlp, np.ones((1, 2))), {"k": 2.0}, TypeError, "k must be an integer-typed number"),
    ((_Zp, _zlp[:2], np.ones((1, 2))), {}, ValueError, "z_labels must have length 3"),
    ((_Zp, _zlp, np.ones(2)), {}, ValueError, "X must be a 2-d array"),
    ((_Zp, _zlp, "X"), {}, TypeError, "X must be a numeric array"),
]


@pytest.mark.parametrize("case", range(len(PREDICT_BAD)))
def test_predict_bad_inputs_same_error_in_both(case):
    args, kwargs, exc, msg = PREDICT_BAD[case]
    messages = []
    for impl in BOTH:
        with pytest.raises(exc, match=msg) as info:
            impl.snc_predict(*args, **kwargs)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_fast_predict_is_chunked_and_leaves_inputs_alone():
    """Memory O(chunk m): n = 50,000, m = 500 stays below 24 MiB beyond the inputs (an n x m float64 matrix would
    be 191 MiB); the inputs are not modified."""
    import tracemalloc

    rng = np.random.default_rng(0)
    X, Z, zl = rng.normal(size=(50000, 4)), rng.normal(size=(500, 4)), rng.integers(0, 5, 500)
    copies = X.copy(), Z.copy(), zl.copy()
    fast_snc.snc_predict(Z, zl, X[:10])
    tracemalloc.start()
    try:
        out = fast_snc.snc_predict(Z, zl, X, 3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20, peak / 2**20
    assert out.shape == (50000,)
    for a, b in zip((X, Z, zl), copies):
        assert np.array_equal(a, b)


def test_fast_exp_kernel_within_one_ulp():
    """fast.snc._exp_nonpositive (the vectorisable exp of the gradient pass) against math.exp: within 1 ulp (plus
    libm's own half ulp) on [-708.3, 0] incl. tiny |x|, exactly 1 at 0, 0 below the flush point (e^x < 2.6e-308
    there), never above 1 and monotone on a fine grid."""
    import numba

    @numba.njit
    def run(xs):
        out = np.empty_like(xs)
        for i in range(xs.size):
            out[i] = fast_snc._exp_nonpositive(xs[i])
        return out

    rng = np.random.default_rng(0)
    xs = np.concatenate([-rng.random(200_000) * 708.3, -rng.random(1000) * 1e-9, -(2.0 ** -np.arange(0, 1074, 7.0)),
                         -np.log(2.0) * np.arange(0, 1022), [0.0, -0.0, -708.3]])
    got = run(xs)
    want = np.array([math.exp(v) for v in xs.tolist()])
    ulps = np.abs(got - want) / np.spacing(want)
    assert ulps.max() <= 1.5, (ulps.max(), xs[ulps.argmax()])
    assert run(np.array([0.0, -0.0]))[0] == 1.0 and run(np.array([-0.0]))[0] == 1.0
    assert np.all(run(np.array([-708.31, -745.0, -1e6, -1e300, -np.inf])) == 0.0)
    grid = run(np.linspace(-50.0, 0.0, 100_001))
    assert np.all(np.diff(grid) >= 0) and grid.max() <= 1.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 6), st.integers(1, 60)), min_size=1, max_size=9), st.data())
def test_class_allocation_is_the_greedy_allocation(counts, data):
    if data.draw(st.booleans()):
        counts = [counts[0]] * len(counts)  # all tied
    m = data.draw(st.integers(len(counts), sum(counts)))
    got = fast_snc.class_allocation(np.array(counts), m)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, ref_snc.class_allocation(np.array(counts), m))


def test_class_allocation_python_integers_path():
    counts = [2**61, 2**61 - 1, 5, 2**60 + 3]  # 2 (m + n) max(n_c) >= 2^62: object arrays
    for extra in (0, 1, 2, 7, 20):
        m = len(counts) + extra
        np.testing.assert_array_equal(fast_snc.class_allocation(np.array(counts), m), ref_snc.class_allocation(counts, m))
    big = fast_snc.class_allocation(np.array([2**61, 3, 2**60 + 7]), 2**59 + 11)
    assert int(big.sum()) == 2**59 + 11 and big.tolist() == [384307168202282331, 1, 192153584101141167]


def _init_oracle(y, m, seed):
    """The documented draw: classes in np.unique order, rng.choice(ascending indices of the class, m_c,
    replace=False), m_c from class_allocation."""
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    alloc = ref_snc.class_allocation(counts, m)
    gen = np.random.default_rng(seed)
    parts = [gen.choice(np.flatnonzero(codes.reshape(-1) == c).astype(np.int64), size=int(a), replace=False)
             for c, a in enumerate(alloc.tolist())]
    return np.concatenate(parts).astype(np.int64)


@pytest.mark.parametrize("n_classes", [1, 3, fast_snc._GROUP_BY_SORT_CLASSES, fast_snc._GROUP_BY_SORT_CLASSES + 1, 60])
def test_class_proportional_init_same_draws(n_classes):
    rng = np.random.default_rng(n_classes)
    for trial in range(6):
        n = int(rng.integers(n_classes, 400))
        y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, size=n - n_classes)])
        if trial % 3 == 1:
            y = np.array([f"c{v}" for v in y])
        m = int(rng.integers(n_classes, n + 1))
        seed = int(rng.integers(0, 2**31))
        got = fast_snc.class_proportional_init(y, m, seed)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, _init_oracle(y, m, seed))
        np.testing.assert_array_equal(got, ref_snc.class_proportional_init(y, m, seed))


def _lse_probabilities(X, gamma2):
    from scipy.special import logsumexp

    diff = X[:, None, :] - X[None, :, :]
    s = -gamma2 * np.einsum("ijk,ijk->ij", diff, diff)
    np.fill_diagonal(s, -np.inf)
    return np.exp(s - logsumexp(s, axis=1, keepdims=True))


def _lse_nca(T, y):
    from scipy.special import logsumexp

    diff = T[:, None, :] - T[None, :, :]
    s = -np.einsum("ijk,ijk->ij", diff, diff)
    np.fill_diagonal(s, -np.inf)
    same = y[:, None] == y[None, :]
    np.fill_diagonal(same, False)
    with np.errstate(divide="ignore"):
        return np.exp(logsumexp(np.where(same, s, -np.inf), axis=1) - logsumexp(s, axis=1))


@pytest.mark.parametrize("gamma2", [1e-6, 0.1, 1.0, 40.0, 1e3])
def test_sne_fused_rows_match_log_sum_exp(gamma2):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 3)) * 2
    X[5] = X[4]  # a duplicate: distance 0 off the diagonal
    got = fast_snc.sne_probabilities(X, gamma2)
    want = _lse_probabilities(X, gamma2)
    assert got.shape == (120, 120) and np.all(np.diag(got) == 0.0)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-300)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(fast_snc.sne_probabilities(X[:9], gamma2), ref_snc.sne_probabilities(X[:9], gamma2), rtol=1e-7,
                               atol=1e-300)


@pytest.mark.parametrize("scale", [0.3, 1.0, 8.0])
def test_nca_fused_rows_match_log_sum_exp_including_underflowing_rows(scale):
    rng = np.random.default_rng(8)
    n = 3000 + 7  # several blocks of rows and a partial one
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 4, size=n)
    y[0] = 9  # a class of one point: p = 0
    X[1] = [40.0, 0.0, 0.0]  # alone far away, its class 0 > 575 nats beyond its nearest neighbour of class 5
    X[2] = [41.0, 0.0, 0.0]
    y[1], y[2] = 0, 5
    A = np.eye(3) * scale
    got = fast_snc.nca_correct_probabilities(X, y, A)
    want = _lse_nca(X @ A.T, y)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-300)
    assert got[0] == 0.0
    small = slice(0, 12)
    np.testing.assert_allclose(fast_snc.nca_correct_probabilities(X[small], y[small], np.diag(A)),
                               ref_snc.nca_correct_probabilities(X[small], y[small], np.diag(A)), rtol=1e-7, atol=1e-300)


def test_nca_row_whose_class_mass_underflows_next_to_the_nearest_point():
    X = np.array([[0.0], [1.0], [25.5], [2.0]])  # point 0: other label at D = 1, its class at D = 650.25
    y = np.array([0, 1, 0, 1])
    got = fast_snc.nca_correct_probabilities(X, y, [1.0])
    want = ref_snc.nca_correct_probabilities(X, y, [1.0])
    assert 0.0 < got[0] < 1e-250
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=0.0)


@pytest.fixture(params=["serial", "threaded"])
def mode(request, monkeypatch):
    """snc_predict on one thread, or on 2 threads with blocks of 3 queries (many blocks, all handed to the pool)."""
    if request.param == "serial":
        before = numba.get_num_threads()
        numba.set_num_threads(1)
        yield {}
        numba.set_num_threads(before)
    else:
        monkeypatch.setattr(fast_snc, "_PARALLEL_MIN_WORK", 0)
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
    return np.concatenate([idx for _, _, idx in fast_snc._knn_blocks(np.asarray(Z, float), np.asarray(X, float), k, **kw)])


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
    assert fast_snc.snc_predict(Z, labels, X, k=k, **mode).tolist() == ref_snc.snc_predict(Z, labels, X, k=k).tolist()
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
    monkeypatch.setattr(fast_snc, "_PARALLEL_MIN_WORK", 0)
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

    monkeypatch.setattr(fast_snc, "_rational_order", refuse)
    rng = np.random.default_rng(5)
    for kind in ("integers", "duplicates"):
        Z, X = _tie_problem(kind, rng, 60, 300, 3)
        labels = rng.integers(0, 4, size=Z.shape[0])
        for k in (1, 3):
            fast_snc.snc_predict(Z, labels, X, k=k)


def test_rational_fallback_decides_what_floats_cannot(monkeypatch):
    """x = 0.1, references 0.3 and -0.1: both float distances round to the same value region (0.2^2), the exact ones
    differ; and an exact tie of decimals (0.3 - 0.1 vs 0.1 - (-0.1)) needs rationals too."""
    calls = []
    original = fast_snc._rational_order

    def counting(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(fast_snc, "_rational_order", counting)
    Z = np.array([[0.3], [-0.1], [5.0]])
    X = np.array([[0.1], [0.1 + 2**-55]])
    assert (_neighbours(Z, X, 1) == _fraction_knn(Z, X, 1)).all()
    assert fast_snc.snc_predict(Z, ["a", "b", "c"], X).tolist() == ref_snc.snc_predict(Z, ["a", "b", "c"], X).tolist()
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
    assert fast_snc.snc_predict(Z, [0, 1], X).tolist() == [1]


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
    assert fast_snc._rational_order(x, Z, J, k).tolist() == [j for _, j in exact[:k]]


def test_snc_predict_random_data_matches_sklearn_and_estimator_blocks():
    """The usual case (no ties): sklearn's brute-force 1-NN; and predict_proba's blocks (the estimator iterates
    _knn_blocks) cover every row once."""
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.default_rng(7)
    X, Z = rng.normal(size=(5000, 6)), rng.normal(size=(300, 6))
    labels = np.arange(300) % 4
    expected = KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(Z, labels).predict(X)
    assert (fast_snc.snc_predict(Z, labels, X) == expected).all()
    spans = [(a, b, idx.shape) for a, b, idx in fast_snc._knn_blocks(Z, X, 2, chunk_size=128)]
    assert spans[0][0] == 0 and spans[-1][1] == 5000
    assert all(b0 == a1 for (_, b0, _), (a1, _, _) in zip(spans, spans[1:]))
    assert all(shape == (b - a, 2) for a, b, shape in spans)
