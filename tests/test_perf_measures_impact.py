"""Issue 15: the sort-free capped scaling (fast.measures: project_dense, project_dense_log, and through
_project_owned LB-NxM and lazy_bregman_boost) keeps the projection's semantics.

* Against the reference (pure Python, fsum, the paper's search over sorted entries) at rtol 1e-12, atol 0 (so an
  entry the reference flushes to 0 must be 0): random, spiky, tied, heavy-tailed, geometric (many Newton steps),
  zero, tiny (1e-300) and subnormal inputs, kappa near 0 and 1, log weights spread beyond the -707 exp clamp.
* Every route of fast._project_log and project_dense is taken on purpose and agrees with the others: the
  fixed-point iteration, the sort-based search it falls back to (pass cap reached, uncapped mass near underflow,
  c overflowing), the exact recomputation of the entries below the exp clamp, the identity and the all-capped cases.
* The fixed point is the projection (Lemma 9's characterisation: |mu| = kappa n, entries with c mu~ >= 1 capped,
  the rest scaled by one c), and fast._exact_sum._lanes_kept's enclosure holds against math.fsum.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.measures as F
import fast.private_boosting as FP
import reference.measures as R
import reference.private_boosting as RP
from fast import _exact_sum


def _close(got, want):
    """rtol 1e-12, atol 0 (the pair table's tolerance), same shape and dtype."""
    assert got.shape == want.shape and got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0.0)


def _same_outcome(fast_call, ref_call):
    try:
        want = ref_call()
    except ValueError as error:
        with pytest.raises(ValueError) as caught:
            fast_call()
        assert str(caught.value) == str(error)
        return None
    got = fast_call()
    _close(got, want)
    return got


def _measures(rng, n):
    """Inputs with |mu~| < kappa n for most kappa: the shapes that stress the iteration."""
    u = rng.random(n)
    geometric = 2.0 ** -np.arange(n, dtype=np.float64)
    out = [
        u * 0.5,
        u ** 8,  # heavy-tailed
        np.where(rng.random(n) < 0.3, 0.0, u),  # exact zeros
        np.repeat(rng.uniform(0.01, 1.0, 2), [n // 2, n - n // 2]),  # ties
        np.r_[1.0, np.full(n - 1, 1e-6)],  # one spike: many capped levels
        geometric,  # a Newton step per level
        np.r_[geometric[: n // 2], np.full(n - n // 2, 1e-20)],
        u * 1e-300,  # tiny
        np.where(rng.random(n) < 0.5, 1e-310, u),  # subnormal entries among normal ones
        np.exp(-rng.exponential(size=n) * 300.0),  # spread over hundreds of nats
        np.minimum(1.0, rng.lognormal(-8.0, 4.0, n)),
    ]
    return [np.ascontiguousarray(m, dtype=np.float64) for m in out]


@pytest.mark.parametrize("n", [1, 2, 5, 33, 257, 700])
def test_project_dense_matches_reference(n):
    rng = np.random.default_rng(n)
    for mu in _measures(rng, n):
        for kappa in (0.001, 0.05, 0.3, 0.6, 0.95, 0.999):
            _same_outcome(lambda: F.project_dense(mu, kappa), lambda: R.project_dense(mu, kappa))


@pytest.mark.parametrize("n", [1, 3, 40, 300])
def test_project_dense_log_matches_reference(n):
    rng = np.random.default_rng(100 + n)
    for mu in _measures(rng, n):
        with np.errstate(divide="ignore"):
            base = np.log(mu)
        for shift in (0.0, -50.0, -700.0, -1500.0):
            w = base + shift
            for kappa in (0.01, 0.3, 0.75, 0.99):
                _same_outcome(lambda: F.project_dense_log(w, kappa), lambda: R.project_dense_log(w, kappa))


@pytest.mark.parametrize("spread", [1.0, 30.0, 650.0, 705.0, 2000.0, 1e4])
def test_lb_nxm_matches_reference(spread):
    """Gains spread so that lam L crosses the -707 clamp (exact recomputation) and 600 nats (sort fallback)."""
    rng = np.random.default_rng(int(spread))
    for n in (7, 300):
        gains = rng.random(n) * spread
        gains[rng.integers(n)] = 0.0
        for kappa in (0.05, 0.5, 0.9):
            for lam in (0.001, 0.5, 1.0, 3.0):
                _close(FP.lb_nxm(gains, kappa, lam), RP.lb_nxm(gains, kappa, lam))


_ENTRY = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1e-300, 1e-310, 1e-12, 2.0**-1022]), st.floats(0.0, 1.0))
_KAPPA = st.one_of(st.sampled_from([0.001, 0.1, 0.5, 0.999]), st.floats(0.001, 0.999))


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 70), elements=_ENTRY), st.sampled_from([1.0, 1e-3, 1e-200]), _KAPPA)
def test_project_dense_hypothesis(mu, scale, kappa):
    mu = mu * scale
    _same_outcome(lambda: F.project_dense(mu, kappa), lambda: R.project_dense(mu, kappa))


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 70), elements=st.one_of(
    st.sampled_from([0.0, -np.inf, -706.9, -707.0, -707.5, -708.4, -745.0, -800.0]), st.floats(-1000.0, 0.0))),
    _KAPPA)
def test_project_dense_log_hypothesis(w, kappa):
    _same_outcome(lambda: F.project_dense_log(w, kappa), lambda: R.project_dense_log(w, kappa))


def _routes(monkeypatch, call):
    """call() by the iteration and by the sort-based search (the iteration allowed no pass)."""
    iterated = call()
    with monkeypatch.context() as m:
        m.setattr(F, "_CAP_ITERATIONS", 0)
        sorted_ = call()
    return iterated, sorted_


@pytest.mark.parametrize("n", [10, 1000, 100_000])
def test_iteration_and_sorted_search_agree(monkeypatch, n):
    rng = np.random.default_rng(7)
    for mu in _measures(rng, n):
        for kappa in (0.05, 0.5, 0.9):
            if np.count_nonzero(mu) <= kappa * n or mu.sum() >= kappa * n:
                continue
            a, b = _routes(monkeypatch, lambda: F.project_dense(mu, kappa))
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0.0)
            with np.errstate(divide="ignore"):
                w = np.log(mu) - 30.0
            a, b = _routes(monkeypatch, lambda: F.project_dense_log(w, kappa))
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0.0)


def test_fallback_routes_match_reference(monkeypatch):
    """The sort-based search as the only route (pass cap 0, and a cap of 1 that a geometric input exceeds)."""
    rng = np.random.default_rng(11)
    for cap in (0, 1):
        monkeypatch.setattr(F, "_CAP_ITERATIONS", cap)
        for mu in _measures(rng, 60):
            for kappa in (0.1, 0.6):
                _same_outcome(lambda: F.project_dense(mu, kappa), lambda: R.project_dense(mu, kappa))
                with np.errstate(divide="ignore"):
                    w = np.log(mu) - 900.0
                _same_outcome(lambda: F.project_dense_log(w, kappa), lambda: R.project_dense_log(w, kappa))


def test_capping_reports_what_it_cannot_settle():
    geometric = 2.0 ** -np.arange(60, dtype=np.float64)
    target = 0.5 * 60
    status, c, capped, kept = F._capping(geometric, target, 0.0, target / geometric.sum(), 64)
    assert status == 0 and 0 < capped < target and kept > 0.0
    assert F._capping(geometric, target, 0.0, target / geometric.sum(), 2)[0] == 1  # more passes needed
    assert F._capping(np.full(4, 1e-310), 2.0, 0.0, math.inf, 64)[0] == 1  # c overflows


def test_clamped_entries_recomputed_exactly():
    """Entries below the exp clamp (w - max <= -707) whose scaled value is a normal number: exp(w - max + log c)
    recomputed for them (c a = 0 would flush them); and ones that stay below the smallest normal double: 0."""
    w = np.r_[np.full(60, -5.0), np.full(20, -712.0), np.full(20, -708.0), -1e4, -np.inf]
    for kappa in (0.3, 0.55):
        got = F.project_dense_log(w, kappa)
        want = R.project_dense_log(w, kappa)
        _close(got, want)
        assert np.all(got[60:100] > 0.0) and got[-2] == 0.0 and got[-1] == 0.0
    # the fixed point, not the fallback, produced them: the uncapped mass is far from underflow
    a = np.exp(np.maximum(w - w.max(), F._EXP_FAST))
    status, c, _, kept = F._capping(a, 0.3 * w.size, F._A_LOW, 0.3 * w.size / a.sum(), 64)
    assert status == 0 and kept > w.size * F._KEPT_FLOOR and math.log(c) + F._EXP_FAST > F.LOG_TINY


def test_uncapped_mass_near_underflow_goes_to_the_sorted_search(monkeypatch):
    """Log weights spread over > 600 nats beyond the capped ones: the iteration's sums leave out the clamped
    entries, so the sort-based search decides; the result is the reference's."""
    w = np.r_[np.zeros(3), -750.0 - np.arange(50.0)]
    calls = []
    original = F._project_log_sorted

    def spy(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(F, "_project_log_sorted", spy)
    got = F.project_dense_log(w, 0.2)
    assert calls, "the sort-based search was not used"
    _close(got, R.project_dense_log(w, 0.2))


@pytest.mark.parametrize("n", [3, 500, 50_000])
def test_fixed_point_is_lemma9_projection(n):
    """|mu| = kappa n, mu = 1 where c mu~ >= 1, mu = c mu~ elsewhere with one c >= 1, order kept."""
    rng = np.random.default_rng(n)
    for mu_t in _measures(rng, n)[:7]:
        for kappa in (0.2, 0.7):
            if np.count_nonzero(mu_t) <= kappa * n or mu_t.sum() >= kappa * n:
                continue
            mu = F.project_dense(mu_t, kappa)
            assert math.isclose(math.fsum(mu), kappa * n, rel_tol=1e-12)
            unc = (mu < 1.0) & (mu_t > 0.0)
            c = mu[unc] / mu_t[unc]
            assert np.all(c >= 1.0 - 1e-15)
            np.testing.assert_allclose(c, c[0], rtol=1e-12)
            assert np.all(mu_t[mu == 1.0] * c[0] >= 1.0 - 1e-12)
            order = np.argsort(mu_t, kind="stable")
            assert np.all(np.diff(mu[order]) >= 0.0)


def test_edges_and_errors():
    # identity: mu~ itself (exactly), entries below the smallest normal double 0
    mu = np.array([0.5, 0.25, 1.0, 0.25, 1e-310])
    assert np.array_equal(F.project_dense(mu, 0.4), np.array([0.5, 0.25, 1.0, 0.25, 0.0]))
    _close(F.project_dense(mu, 0.4), R.project_dense(mu, 0.4))
    # the flush is the reference's (exp(log v) = 0 for log v <= LOG_TINY): 2^-1022 and _FLUSH are 0, the next is not
    above = math.nextafter(F._FLUSH, 1.0)
    edge = np.array([1.0, 1.0, 2.0**-1022, F._FLUSH, above])
    assert math.log(F._FLUSH) <= F.LOG_TINY < math.log(above)
    assert np.array_equal(F.project_dense(edge, 0.4), np.array([1.0, 1.0, 0.0, 0.0, above]))
    _close(F.project_dense(edge, 0.4), R.project_dense(edge, 0.4))
    # exactly kappa n positive entries: all capped
    assert np.array_equal(F.project_dense(np.array([0.0, 0.2, 0.0, 0.1]), 0.5), np.array([0.0, 1.0, 0.0, 1.0]))
    # the contract's messages, in its order
    for bad in ([0.5, 1.5], [-0.1, 0.5], [np.nan, 0.5], [np.inf, 0.5]):
        with pytest.raises(ValueError) as fast_error:
            F.project_dense(np.array(bad), 0.0)
        with pytest.raises(ValueError) as ref_error:
            R.project_dense(np.array(bad), 0.0)
        assert str(fast_error.value) == str(ref_error.value)
    with pytest.raises(ValueError, match="fewer than kappa n"):
        F.project_dense(np.array([0.0, 0.2, 0.0, 0.0]), 0.5)
    # inputs never modified; a strided view and an integer array as the reference takes them
    mu = np.random.default_rng(0).random(64) * 0.3
    keep = mu.copy()
    F.project_dense(mu, 0.5)
    F.project_dense_log(np.log(mu), 0.5)
    assert np.array_equal(mu, keep)
    _close(F.project_dense(mu[::2], 0.5), R.project_dense(mu[::2], 0.5))
    ints = np.array([0, 1, 0, 0, 1, 1])
    _same_outcome(lambda: F.project_dense(ints, 0.5), lambda: R.project_dense(ints, 0.5))
    _same_outcome(lambda: F.project_dense(ints, 0.4), lambda: R.project_dense(ints, 0.4))


def test_lanes_kept_enclosure():
    """_lanes_kept: the capped count and an enclosure [hi + lo - bound, hi + lo + bound] of the kept sum."""
    rng = np.random.default_rng(3)
    for n in (0, 1, 31, 32, 33, 1000, 4097):
        x = rng.random(n) ** 4
        x[: n // 5] = 0.0
        for c, low in ((0.0, 0.0), (2.5, 0.0), (40.0, 1e-3), (1e6, 0.5)):
            capped, hi, lo, bound = _exact_sum._lanes_kept(x, c, low)
            kept = [v for v in x.tolist() if v > low and v * c < 1.0]
            assert capped == sum(1 for v in x.tolist() if v * c >= 1.0)
            # rounding is monotone: fl(hi + lo - bound) <= fl(exact sum) = math.fsum(kept) <= fl(hi + lo + bound)
            assert math.fsum([hi, lo, -bound]) <= math.fsum(kept) <= math.fsum([hi, lo, bound])
