"""Issue 15 (fast.dp_rados): the faster formulations keep the reference's outputs, draws and errors exactly.

* DP-Feat's exact sampler locates K from certified float enclosures of the window's cumulative weights
  (fast._dp_rados_kernels.window_cdf_bounds) and falls back to the integers where they cannot decide: the enclosures
  are checked against the exact integers, and the sampler against the reference on the bounds path, with the
  enclosures deliberately widened (every fallback taken) and on the small-m integer path;
* the K-smallest selection (select_rows) against a stable argsort, ties and the full-sort fallback included;
* the signatures and the Generator's state after them equal the reference's (same words, none more, none fewer);
  a WordRandom (the private path's word source) gives the same rows as a Generator of the same bits;
* in_dp_feat_set's counting kernel, clip_rows' fused pass and fixed_support_rados' selection + rado kernel against the
  reference (small) and the literal numpy formulas (kernel- and thread-sized inputs), errors included.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fast.dp_rados as F
import reference.dp_rados as R
from fast import _dp_rados_kernels as K
from fast.rados import sample_signatures
from spec.privacy_contract import WordRandom
from test_dp_rados import _data  # tests/ is on sys.path under pytest (no package)


def _min_eps(m):
    """An epsilon just above the smallest with a non-empty window (a window of one or two K's)."""
    return 2.0 * math.log((m + 3) / max(m - 1, 1)) * 1.0001


def _outcome(fn, *args, **kwargs):
    try:
        return "ok", fn(*args, **kwargs)
    except (TypeError, ValueError, RuntimeError) as error:
        return type(error).__name__, str(error)


# ----------------------------------------------------------------------------------------------- window bounds
@pytest.mark.parametrize("m", [2, 3, 10, 64, 65, 300, 1001, 2500])
@pytest.mark.parametrize("eps", ["min", 0.3, 1.0, 5.0, 40.0])
def test_window_cdf_bounds_enclose_the_exact_cumulative_weights(m, eps):
    epsilon = _min_eps(m) if eps == "min" else eps
    k_lo, k_hi = F._window_bounds(m, epsilon)
    if k_lo > k_hi:  # no window to bound: both samplers must refuse it, with the same message
        X, y = np.ones((m, 2)), np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
        ref, fast_ = (_outcome(P.dp_feat_signatures, X, y, 0, 2, epsilon, rng=1) for P in (R, F))
        assert ref[0] == "ValueError" and "window of DP-Feat is empty" in ref[1] and ref == fast_, (ref, fast_)
        return
    W = k_hi - k_lo + 1
    lo, hi = np.empty(W), np.empty(W)
    T = int(K.window_cdf_bounds(m, k_lo, k_hi, lo, hi))
    exact = F._ExactWindow(m, k_lo, k_hi).cumulative
    scale = Fraction(2) ** T
    for k in range(W):
        assert Fraction(float(lo[k])) * scale <= exact[k] <= Fraction(float(hi[k])) * scale, (m, epsilon, k)
    assert np.all(np.diff(lo) >= 0) and np.all(np.diff(hi) >= 0)
    assert (hi[-1] - lo[-1]) / lo[-1] < 1e-9  # tight enough that the integers are almost never needed
    bits = F._bits_between(float(lo[-1]), float(hi[-1]), T, m)
    assert bits in (None, (exact[-1] - 1).bit_length())


# ----------------------------------------------------------------------------------------------- the selection
def _oracle_rows(U, Ks, t):
    out = np.empty(U.shape, dtype=np.int8)
    for r in range(U.shape[0]):
        chosen = np.zeros(U.shape[1], dtype=bool)
        chosen[np.argsort(U[r], kind="stable")[:Ks[r]]] = True
        out[r] = np.where(chosen, t, -t)
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 6), st.sampled_from(["uniform", "ties", "skewed"]), st.integers(0, 2**32))
def test_select_rows_is_the_first_k_of_a_stable_sort(m, n, kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        U = rng.random((n, m))
    elif kind == "ties":  # many equal values: ties go to the lowest indices
        U = rng.integers(0, 4, size=(n, m)) / 4.0
    else:  # not uniform: the bracket misses and the row is redone from a full sort
        U = rng.random((n, m)) ** 6
    Ks = rng.integers(0, m + 1, size=n).astype(np.int64)
    t = rng.choice([-1, 1], m).astype(np.int8)
    out = np.empty((n, m), dtype=np.int8)
    K.select_rows(U, Ks, t, out, 0, n)
    assert np.array_equal(out, _oracle_rows(U, Ks, t))


def test_select_signatures_blocks_threads_and_word_sources_agree():
    """The rows do not depend on the block size, the thread count or the word source (a WordRandom over a seeded
    Generator's words = that Generator's doubles); the Generator ends where one (n, m) draw leaves it."""
    n, m = 300, 20_000  # n m > PARALLEL_MIN_WORK: the pool path
    t = np.random.default_rng(1).choice([-1, 1], m).astype(np.int8)
    Ks = np.random.default_rng(2).integers(0, m + 1, size=n).astype(np.int64)
    reference_rng = np.random.default_rng(5)
    expected = _oracle_rows(reference_rng.random((n, m)), Ks, t)
    threads = numba.get_num_threads()
    try:
        for block, workers in ((F.DRAW_BLOCK, threads), (1, threads), (3 * m + 5, 1), (1 << 24, threads)):
            numba.set_num_threads(workers)
            for source in ("generator", "words"):
                rng = np.random.default_rng(5) if source == "generator" else WordRandom(np.random.default_rng(5))
                out = np.empty((n, m), dtype=np.int8)
                old, F.DRAW_BLOCK = F.DRAW_BLOCK, block
                try:
                    F._select_signatures(rng, Ks, t, out)
                finally:
                    F.DRAW_BLOCK = old
                assert np.array_equal(out, expected), (block, workers, source)
                if source == "generator":
                    assert rng.bit_generator.state == reference_rng.bit_generator.state
    finally:
        numba.set_num_threads(threads)


# ----------------------------------------------------------------------------------------------- DP-Feat sampler
def _same_as_reference(X, y, n, eps, seed):
    r_rng, f_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    ref = _outcome(R.dp_feat_signatures, X, y, 1, n, eps, rng=r_rng)
    fst = _outcome(F.dp_feat_signatures, X, y, 1, n, eps, rng=f_rng)
    assert ref[0] == fst[0]
    if ref[0] != "ok":
        assert ref == fst
        return
    assert fst[1].dtype == np.int8 and np.array_equal(ref[1], fst[1]), (X.shape[0], eps, n, seed)
    assert r_rng.bit_generator.state == f_rng.bit_generator.state  # the same number of words, exactly


@pytest.mark.parametrize("m", [64, 65, 127, 128, 129, 300, 700])
@pytest.mark.parametrize("eps", ["min", 0.2, 1.0, 6.0, 40.0])
def test_exact_sampler_on_the_bounds_path_equals_the_reference(m, eps):
    X, y = _data(m, seed=m)
    epsilon = _min_eps(m) if eps == "min" else eps
    for seed in range(3):
        _same_as_reference(X, y, 12, epsilon, seed)


class _Widened:
    """window_cdf_bounds with enclosures widened by a relative ``slack`` (still valid): the float decisions fail
    and the integers decide (slack 1: lo = 0, hi = 2 hi, every comparison on the integers)."""

    def __init__(self, slack):
        self.slack = slack
        self.original = K.window_cdf_bounds

    def __call__(self, m, k_lo, k_hi, s_lo, s_hi):
        T = self.original(m, k_lo, k_hi, s_lo, s_hi)
        s_lo *= 1.0 - self.slack
        s_hi *= 1.0 + self.slack
        return T


@pytest.mark.parametrize("slack", [1e-3, 0.05, 1.0])
@pytest.mark.parametrize("m", [64, 200, 1000])
def test_exact_sampler_with_undecided_bounds_falls_back_to_the_integers(monkeypatch, slack, m):
    monkeypatch.setattr(K, "window_cdf_bounds", _Widened(slack))
    X, y = _data(m, seed=m + 1)
    for eps in (_min_eps(m), 0.5, 3.0):
        for seed in range(3):
            _same_as_reference(X, y, 15, eps, seed)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(1, 12), st.floats(0.0, 1.0), st.integers(0, 2**32), st.booleans())
def test_exact_sampler_on_every_path_equals_the_reference_small_m(m, n, where, seed, widened):
    """Every m from 2 on the bounds path (BOUNDS_MIN_M lowered: one-word draws, whose bounds say nothing)."""
    X, y = _data(m, seed=seed % 1000)
    lowest = 2.0 * math.log((m + 3) / max(m - 1, 1))
    eps = lowest * 0.99 + where * 30.0  # includes empty windows (the same error)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(F, "BOUNDS_MIN_M", 1)
        if widened:
            patch.setattr(K, "window_cdf_bounds", _Widened(0.3))
        _same_as_reference(X, y, n, eps, seed)


def test_exact_sampler_mid_size_matches_the_reference_rows_and_is_in_the_window():
    """m = 3000 (bounds path, three-word draws): K's and rows against the reference for a few rows."""
    m = 3000
    X, y = _data(m, seed=9)
    _same_as_reference(X, y, 4, 1.0, 17)
    S = F.dp_feat_signatures(X, y, 1, 200, 0.05, rng=3)
    assert F.in_dp_feat_set(X, y, 1, 0.05, S).all()


def test_private_path_draws_valid_signatures():
    X, y = _data(500, seed=4)
    S = F.dp_feat_signatures(X, y, 1, 50, 0.4)  # rng None: OS-keyed words
    assert S.shape == (50, 500) and S.dtype == np.int8
    assert F.in_dp_feat_set(X, y, 1, 0.4, S).all()


# ----------------------------------------------------------------------------------------------- in_dp_feat_set
def _literal_in_set(X, y, eps, sigmas):
    e = (y * X[:, 1]).astype(np.int64)
    m = len(e)
    beta = Fraction(F.dp_feat_beta(eps))
    m_plus = Fraction(int((e == 1).sum())) - Fraction(m, 2)
    delta_beta = Fraction(m, 2) - beta * (m + 1)
    pi = np.where(np.asarray(sigmas) == y[None, :], e[None, :], 0).sum(axis=1)
    return (pi >= math.ceil(m_plus - delta_beta)) & (pi <= math.floor(m_plus + delta_beta))


def test_in_dp_feat_set_equals_the_reference_on_every_input_form():
    m, n = 40, 30
    X, y = _data(m, seed=2)
    S = np.random.default_rng(3).choice([-1, 1], size=(n, m)).astype(np.int8)
    for eps in (_min_eps(m), 0.3, 1.0, 8.0):
        expected = R.in_dp_feat_set(X, y, 1, eps, S)
        for form in (S, S.astype(np.int64), S.astype(np.float64), np.asfortranarray(S), S[:, ::-1][:, ::-1],
                     S.tolist()):
            assert np.array_equal(F.in_dp_feat_set(X, y, 1, eps, form), expected)
    for bad in (np.where(S == 1, 2, S).astype(np.int8), np.where(S == 1, 0, S).astype(np.int8),
                np.full((2, m), -128, dtype=np.int8), S.astype(np.float64) * 0.5):
        assert _outcome(F.in_dp_feat_set, X, y, 1, 1.0, bad) == _outcome(R.in_dp_feat_set, X, y, 1, 1.0, bad)


def test_in_dp_feat_set_thread_sized_input_and_a_late_bad_entry():
    m, n = 1 << 14, 300  # n m > PARALLEL_MIN_WORK
    X, y = _data(m, seed=5)
    S = np.random.default_rng(6).choice([-1, 1], size=(n, m)).astype(np.int8)
    S[::7] = np.where(((y * X[:, 1]) == 1)[None, :], y, -y)[None, :]  # K = m: outside every window
    for eps in (0.05, 1.0):
        assert np.array_equal(F.in_dp_feat_set(X, y, 1, eps, S), _literal_in_set(X, y, eps, S))
    S[-1, -1] = 3
    assert _outcome(F.in_dp_feat_set, X, y, 1, 1.0, S) == ("ValueError", "sigmas must contain only -1 and +1")


# ----------------------------------------------------------------------------------------------- clip_rows
def _numpy_clip(X, c):
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    with np.errstate(divide="ignore"):
        scale = np.where(norms <= c, 1.0, c / np.where(norms > 0, norms, 1.0))
    return X * scale[:, None]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 11), st.floats(1e-3, 10.0), st.integers(0, 2**32))
def test_clip_rows_equals_the_reference(m, d, clip, seed):
    X = np.random.default_rng(seed).normal(size=(m, d)) * 3
    X[0] = 0.0
    np.testing.assert_allclose(F.clip_rows(X, clip), R.clip_rows(X, clip), rtol=1e-14, atol=0)


def test_clip_rows_large_layouts_and_errors():
    X = np.random.default_rng(8).normal(size=(60_000, 100))  # > PARALLEL_MIN_WORK: split between threads
    X[5] = 0.0
    X[6] = 1e200  # finite, squares overflow: the norm is inf, the row is clipped to 0 (as the numpy formula)
    expected = _numpy_clip(X, 1.5)
    np.testing.assert_allclose(F.clip_rows(X, 1.5), expected, rtol=1e-14, atol=0)
    np.testing.assert_allclose(F.clip_rows(np.asfortranarray(X), 1.5), expected, rtol=1e-14, atol=0)
    for bad in (np.nan, np.inf, -np.inf):
        Y = X.copy()
        Y[-1, -1] = bad
        assert _outcome(F.clip_rows, Y, 1.0) == _outcome(R.clip_rows, Y[-2:], 1.0)
        assert _outcome(F.clip_rows, Y, -1.0) == _outcome(R.clip_rows, Y[-2:], -1.0)  # X's error first
    assert _outcome(F.clip_rows, X[:3], 0.0) == _outcome(R.clip_rows, X[:3], 0.0)
    assert _outcome(F.clip_rows, X[:3], "1") == _outcome(R.clip_rows, X[:3], "1")


# ----------------------------------------------------------------------------------------------- fixed support
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 3), st.integers(1, 10), st.data())
def test_fixed_support_rados_equals_the_reference(m, d, n, data):
    seed = data.draw(st.integers(0, 2**32))
    support = data.draw(st.integers(1, m))
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(m, d)) * 5
    y = rng.choice([-1, 1], m).astype(np.int8)
    r_rng, f_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    np.testing.assert_allclose(F.fixed_support_rados(E, y, n, support, rng=f_rng),
                               R.fixed_support_rados(E, y, n, support, rng=r_rng), rtol=1e-12, atol=1e-12)
    assert r_rng.bit_generator.state == f_rng.bit_generator.state


@pytest.mark.parametrize("m, n, d", [(5000, 900, 10), (4097, 70, 3), (300, 40, 40)])
def test_fixed_support_rados_large_uses_the_same_subsets(m, n, d):
    rng = np.random.default_rng(m)
    E = rng.normal(size=(m, d))
    y = rng.choice([-1, 1], m).astype(np.int8)
    for support in (1, m // 3, m // 2, m - 1, m):
        sigmas = sample_signatures(y, n, rng=7, support=support)
        expected = (sigmas == y[None, :]).astype(np.float64) @ E
        np.testing.assert_allclose(F.fixed_support_rados(E, y, n, support, rng=7), expected, rtol=1e-10, atol=1e-10)


def test_fixed_support_rados_errors_equal_the_reference():
    E = np.ones((4, 2))
    y = np.array([1, -1, 1, 1], dtype=np.int8)
    for args in ((E, y, 3, 0), (E, y, 3, 5), (E, y, 3, 1.5), (E, y, 0, 2), (E, y, -1, 2), (E, y, 2.0, 2),
                 (np.array([[np.inf, 1.0]] * 4), y, 3, 2), (E, y[:3], 3, 2), (E, np.array([1, 2, 1, 1]), 3, 2)):
        assert _outcome(F.fixed_support_rados, *args, rng=0) == _outcome(R.fixed_support_rados, *args, rng=0)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]) | st.floats(0.0, 1.0), min_size=1, max_size=60),
       st.data())
def test_kth_smallest_is_the_sorted_value(values, data):
    a = np.array(values)
    k = data.draw(st.integers(0, len(values) - 1))
    work = np.concatenate([a, [7.0, 8.0]])  # only a[:n] is used
    assert K.kth_smallest(work, len(values), k) == np.sort(a)[k]
    assert sorted(work[:len(values)].tolist()) == sorted(values)  # reordered, nothing lost
