"""Issue 15, item 2: the performance fixes of the learning modules keep their exact semantics.

* fast._exact_sum reproduces math.fsum bit for bit (same exceptions) on adversarial inputs: cancellations,
  huge/tiny mixes, subnormals, exact ties, signed zeros, NaN / inf, intermediate overflow, strided views.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fast import _exact_sum


def _fsum_or_error(values):
    try:
        return math.fsum(values)
    except (ValueError, OverflowError) as error:
        return type(error)


def _same(got, want) -> bool:
    if isinstance(want, type):
        return got is want
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def _check(x):
    x = np.asarray(x, dtype=np.float64)
    want = _fsum_or_error(x.tolist())
    try:
        got = _exact_sum.fsum(x)
    except (ValueError, OverflowError) as error:
        got = type(error)
    assert _same(got, want), (x.shape, got, want)


def _adversarial(n, rng):
    v = rng.normal(size=n) * 10.0 ** rng.integers(-20, 20, size=n)
    tail = np.zeros(n)
    return [
        rng.random(n),
        rng.normal(size=n),
        rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, size=n),  # huge / tiny mixes
        np.concatenate([v, -v[::-1], [1e-300]]),  # total cancellation but for one tiny term
        np.concatenate([v, -v, [2.0**-1074]]),
        rng.random(n) * 2.0**-1070,  # subnormals
        -rng.random(n) * 2.0**-1073,
        np.concatenate([[1.0], np.full(n, 2.0**-53)]),  # many half-ulps
        np.concatenate([[1.0], np.full(n, 2.0**-54)]),
        np.concatenate([[1.0, 2.0**-53], tail]),  # an exact tie: rounds to even
        np.concatenate([[1.0 + 2.0**-52, 2.0**-53], tail]),  # a tie rounding up
        np.concatenate([[1.0, 2.0**-53, 2.0**-105], tail]),  # just above a tie
        np.concatenate([[1.0, 2.0**-53, -(2.0**-105)], tail]),  # just below
        np.concatenate([[1e308, 1e308, -1e308], tail]),  # intermediate overflow
        np.concatenate([[1.7e308, 1e292], tail]),  # the sum overflows
        np.concatenate([[np.inf, -np.inf], tail]),
        np.concatenate([[np.inf], np.ones(n)]),
        np.concatenate([[-np.inf], np.ones(n)]),
        np.concatenate([[np.nan], np.ones(n)]),
        -np.zeros(n),
        np.concatenate([[1e16], np.ones(n), [-1e16]]),
        rng.choice([1.0, -1.0, 1e100, -1e100, 1e-100], size=n),
        np.full(n, 0.1),
    ]


@pytest.mark.parametrize("n", [0, 1, 5, 31, 32, 33, 63, 100, 1000, 4097, 100_000])
def test_exact_sum_matches_fsum_on_adversarial_inputs(n):
    rng = np.random.default_rng(n)
    for x in _adversarial(n, rng):
        _check(x)
        _check(x[::-1])
    _check(rng.random(3 * n + 1)[::3])  # a strided view


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.integers(0, 200),
                  elements=st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)))
def test_exact_sum_matches_fsum_on_any_finite_floats(x):
    _check(x)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0, allow_subnormal=True), min_size=1, max_size=40), st.integers(1, 60),
       st.sampled_from([1.0, 2.0**-60, 2.0**900, 2.0**-1000]))
def test_exact_sum_matches_fsum_on_repeated_cancelling_blocks(block, repeats, scale):
    x = np.array(block * repeats) * scale
    _check(np.concatenate([x, -x[: len(x) // 2]]))


def test_exact_sum_ties_take_the_fallback_and_stay_exact():
    rng = np.random.default_rng(2)
    for _ in range(400):  # ties of sums of uniforms occur (~1 in 300 at n = 1000): fsum decides them
        x = rng.random(1000) * 0.5
        assert _exact_sum.fsum(x) == math.fsum(x.tolist())


def test_checked_sum_flags_entries_outside_the_range():
    rng = np.random.default_rng(3)
    for n in (5, 1000):
        x = rng.random(n) * 0.5
        assert _exact_sum.checked_fsum(x, 0.0, 1.0) == (math.fsum(x.tolist()), True)
        for bad in (-1e-300, 1.0 + 2.0**-52, np.nan, np.inf, -np.inf):
            y = x.copy()
            y[n // 2] = bad
            assert _exact_sum.checked_fsum(y, 0.0, 1.0) == (None, False)
        y = x.copy()
        y[0] = -0.0  # -0.0 >= 0: inside
        assert _exact_sum.checked_fsum(y, 0.0, 1.0)[1]
        y[-1] = 1.0
        assert _exact_sum.checked_fsum(y, 0.0, 1.0) == (math.fsum(y.tolist()), True)


def test_absdiff_sum_matches_fsum():
    rng = np.random.default_rng(4)
    for n in (3, 33, 1001, 50_000):
        p, q = rng.random(n), rng.random(n)
        p[::7] = q[::7]
        assert _exact_sum.fsum_absdiff(p, q) == math.fsum(np.abs(p - q).tolist())


# --------------------------------------------------------------------------- measures (the kernel path: n >= 32)


def _raises_same(ref_call, fast_call):
    with pytest.raises((TypeError, ValueError)) as ref_error:
        ref_call()
    with pytest.raises(type(ref_error.value)) as fast_error:
        fast_call()
    assert str(fast_error.value) == str(ref_error.value)


@pytest.mark.parametrize("n", [32, 33, 1000, 4099])
def test_measures_match_reference_exactly_on_long_inputs(n):
    import fast.measures as F
    import reference.measures as R

    rng = np.random.default_rng(n)
    mu = rng.random(n) * 0.5
    mu[::5] = 0.0
    mu[1] = 1.0
    for fn in ("size", "density", "is_dense"):
        args = (mu,) if fn != "is_dense" else (mu, 0.2)
        assert getattr(F, fn)(*args) == getattr(R, fn)(*args)
    assert np.array_equal(F.normalize(mu), R.normalize(mu))
    p, q = rng.random(n), rng.random(n)
    p[::3] = 0.0
    p, q = p / math.fsum(p.tolist()), q / math.fsum(q.tolist())
    assert F.statistical_distance(p, q) == R.statistical_distance(p, q)
    assert F.kl(p, q) == pytest.approx(R.kl(p, q), rel=1e-12, abs=1e-300)
    assert F.kl(q, np.where(p > 0, p, 0.0)) == R.kl(q, np.where(p > 0, p, 0.0)) == math.inf
    for alpha in (1.5, 2.0, 10.0):
        assert F.renyi(p, q, alpha) == pytest.approx(R.renyi(p, q, alpha), rel=1e-12, abs=1e-15)
    view = np.repeat(mu, 2)[::2]  # strided input
    assert F.size(view) == R.size(view)


@pytest.mark.parametrize("position", [0, 31, 32, 777, -1])
@pytest.mark.parametrize("bad", [-1e-300, 1.5, np.nan, np.inf, -np.inf])
def test_measures_reject_long_bad_inputs_as_the_reference(position, bad):
    import fast.measures as F
    import reference.measures as R

    mu = np.full(1000, 0.25)
    mu[position] = bad
    for fn in ("size", "density", "normalize"):
        _raises_same(lambda: getattr(R, fn)(mu), lambda: getattr(F, fn)(mu))
    _raises_same(lambda: R.is_dense(mu, 0.5), lambda: F.is_dense(mu, 0.5))
    p = np.full(1000, 1e-3)
    p[position] = bad
    q = np.full(1000, 1e-3)
    for fn in ("statistical_distance", "kl"):
        if fn == "kl" and bad == 1.5:  # kl takes any finite non-negative vectors
            assert F.kl(p, q) == pytest.approx(R.kl(p, q), rel=1e-12)
            continue
        _raises_same(lambda: getattr(R, fn)(p, q), lambda: getattr(F, fn)(p, q))
        _raises_same(lambda: getattr(R, fn)(q, p), lambda: getattr(F, fn)(q, p))
    _raises_same(lambda: R.renyi(q, p, 2.0), lambda: F.renyi(q, p, 2.0))


def test_probability_sum_rule_on_long_inputs():
    import fast.measures as F
    import reference.measures as R

    q = np.full(1000, 1e-3)
    for scale in (1.0 + 2e-9, 1.0 - 2e-9):
        p = q * scale
        _raises_same(lambda: R.statistical_distance(p, q), lambda: F.statistical_distance(p, q))
    p = q * (1.0 + 5e-10)  # within the 1e-9 rule
    assert F.statistical_distance(p, q) == R.statistical_distance(p, q)
    _raises_same(lambda: R.statistical_distance(q, np.full(999, 1 / 999)),
                 lambda: F.statistical_distance(q, np.full(999, 1 / 999)))


# --------------------------------------------------------------------------- labels (two reductions instead of a sort)


@pytest.mark.parametrize("y", [
    np.array([3, 7, 7, 3, 3]), np.array([7.5, -1.0, 7.5]), np.array([True, False, False]),
    np.array([0, 1, 1], dtype=np.uint8), np.array([-5, 2**62], dtype=np.int64), np.array([0.0, -0.0, 1.0]),
    np.array([1, 2, 3]), np.array([4, 4, 4]), np.array(["no", "yes", "no"]),
    np.array([np.inf, -np.inf, np.inf]), [0, 1, 1, 0],
])
@pytest.mark.parametrize("positive", [None, "first", "second", 99])
def test_to_pm1_matches_reference(y, positive):
    import fast.labels as F
    import reference.labels as R

    values = sorted(set(np.asarray(y).tolist()), key=str)
    chosen = {None: None, "first": values[0], "second": values[-1], 99: 99}[positive]
    try:
        want = R.to_pm1(y, positive=chosen)
    except ValueError as error:
        with pytest.raises(ValueError) as fast_error:
            F.to_pm1(y, positive=chosen)
        assert str(fast_error.value) == str(error)
        return
    got = F.to_pm1(y, positive=chosen)
    assert got[0].dtype == np.int8 and np.array_equal(got[0], want[0])
    assert got[1].tolist() == want[1].tolist()
    unique = np.unique(np.asarray(y))  # classes keep y's dtype, as before (np.unique's scalars)
    pos = unique[1] if chosen is None else chosen
    assert got[1].dtype == np.array([unique[0] if pos == unique[1] else unique[1], pos]).dtype


# --------------------------------------------------------------------------- rado / logistic risks (fast._risk_kernels)


def test_vectorised_exp_is_within_one_ulp():
    import numba

    from fast import _risk_kernels as K

    @numba.njit
    def exps(x, out):
        for i in range(x.shape[0]):
            out[i] = K._exp(x[i])

    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-708.0, 709.0, 200_000), rng.uniform(-1.0, 1.0, 100_000),
                        np.linspace(-708.0, 709.0, 20_001), [0.0, -0.0, 1.0, -1.0, 709.0, -708.0]])
    got = np.empty_like(x)
    exps(x, got)
    want = np.exp(x)  # correctly rounded to within 0.5 ulp
    assert np.all(np.abs(got - want) <= 1.0 * np.spacing(want))
    assert got[-6] == 1.0 and got[-5] == 1.0


def _softplus_reference(u):
    return math.fsum(np.logaddexp(0.0, u).tolist())


@pytest.mark.parametrize("n", [1, 7, 8, 255, 256, 257, 5000])
def test_softplus_and_exp_sums_match_their_definitions(n):
    from fast import _risk_kernels as K

    rng = np.random.default_rng(n)
    u = rng.normal(size=n) * 10.0
    u[::11] = rng.choice([750.0, -750.0, 708.5, -708.5, 720.0, -1e300, 1e300, 0.0], size=u[::11].shape)
    assert K.softplus_sum(u) == pytest.approx(_softplus_reference(u), rel=1e-13)
    tiny = -rng.uniform(709.0, 740.0, size=n)  # every term subnormal: exactly as libm
    assert K.softplus_sum(tiny) == pytest.approx(_softplus_reference(tiny), rel=1e-13, abs=0.0)
    assert K.softplus_sum(tiny) > 0.0
    s = rng.normal(size=n) * 300.0
    top = float(s.max())
    want = math.fsum(np.exp(s - top).tolist())
    assert K.exp_sum(s, top) == pytest.approx(want, rel=1e-13)


def _threads(count, min_work):
    """numba threads and the threshold of the row split, for a block (the helper path on tiny inputs)."""
    import contextlib

    import numba

    from fast import _risk_kernels as K

    @contextlib.contextmanager
    def limit():
        previous, threshold = numba.get_num_threads(), K.PARALLEL_MIN_WORK
        numba.set_num_threads(min(count, numba.config.NUMBA_NUM_THREADS))
        K.PARALLEL_MIN_WORK = min_work
        try:
            yield
        finally:
            numba.set_num_threads(previous)
            K.PARALLEL_MIN_WORK = threshold
    return limit()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n,d", [(1, 3), (300, 7), (3001, 20)])
def test_fused_risks_match_reference_and_the_blas_route(threads, n, d):
    import fast.rados as F
    import reference.rados as R

    rng = np.random.default_rng(n + d)
    X = rng.normal(size=(n, d)) * 3.0
    y = np.where(rng.random(n) < 0.5, -1, 1)
    theta = rng.normal(size=d)
    strided = np.asfortranarray(X)  # the BLAS route (_products, then the vector sums)
    with _threads(threads, 64):
        for fn, rtol in (("logistic_risk", 1e-12), ("log_exp_rado_risk", 1e-12), ("exp_rado_risk", 1e-12)):
            args = (X, y, theta) if fn == "logistic_risk" else (X, theta)
            fused = getattr(F, fn)(*args)
            blas = getattr(F, fn)(*((strided,) + args[1:]))
            assert fused == pytest.approx(blas, rel=rtol)
            if n <= 300:
                assert fused == pytest.approx(getattr(R, fn)(*args), rel=1e-10)
        g = F.logistic_risk_gradient(X, y, theta)
        assert np.allclose(g, F.logistic_risk_gradient(strided, y, theta), rtol=1e-12, atol=1e-15)
        if n <= 300:
            assert np.allclose(g, R.logistic_risk_gradient(X, y, theta), rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_risks_report_non_finite_matrices_and_overflow_as_before(threads):
    import fast.rados as F

    rng = np.random.default_rng(9)
    X = rng.normal(size=(2000, 5))
    y = np.where(rng.random(2000) < 0.5, -1, 1)
    theta = np.array([1.0, 0.0, -1.0, 2.0, 0.5])
    with _threads(threads, 64):
        for bad in (np.nan, np.inf):
            Z = X.copy()
            Z[1500, 1] = bad  # a column theta ignores: 0 * NaN is NaN all the same
            for call in (lambda: F.logistic_risk(Z, y, theta), lambda: F.logistic_risk_gradient(Z, y, theta),
                         lambda: F.log_exp_rado_risk(Z, theta), lambda: F.exp_rado_risk(Z, theta)):
                with pytest.raises(ValueError, match="finite"):
                    call()
        huge = X * 1e306  # finite entries whose products overflow: the results of the BLAS route
        for fn in ("log_exp_rado_risk", "exp_rado_risk"):
            assert getattr(F, fn)(huge, theta) == getattr(F, fn)(np.asfortranarray(huge), theta)
        assert F.logistic_risk(huge, y, theta) == F.logistic_risk(np.asfortranarray(huge), y, theta) == math.inf
        big = np.full((40, 5), 1e3)  # margins of -5000: every term exp(-5000) = 0 in the risk, exactly
        assert F.logistic_risk(big, np.ones(40), np.ones(5)) == 0.0
        assert F.exp_rado_risk(big, -np.ones(5)) == math.inf
        assert F.exp_rado_risk(big, np.ones(5)) == 0.0
        assert F.exp_rado_risk(X, np.zeros(5)) == 1.0


def test_map_rows_never_waits_for_a_helper():
    import threading
    import time

    from fast import _risk_kernels as K

    started = threading.Event()
    release = threading.Event()
    calls = []

    def compute(lo, hi):
        if threading.current_thread() is not threading.main_thread() and not started.is_set():
            started.set()
            release.wait(5.0)  # a descheduled helper: holds its range
        calls.append((lo, hi))
        return lo, hi

    with _threads(2, 1):
        start = time.perf_counter()
        parts = K.map_rows(1000, 10, compute)
        elapsed = time.perf_counter() - start
    release.set()
    assert parts == sorted(parts) and parts[0][0] == 0 and parts[-1][1] == 1000
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    assert elapsed < 2.0


# --------------------------------------------------------------------------- losses


@pytest.mark.parametrize("scale", [1.0, 1e-150, 1e150, 1e-210, 1e210])
@pytest.mark.parametrize("penalty", [0.5, 0.0, -0.0, 1e300, 1e-300, -3.0])
def test_omega_tilde_one_pass_matches_the_scaled_route(scale, penalty):
    import fast.losses as F
    import reference.losses as R

    theta = np.random.default_rng(1).normal(size=50) * scale
    want = R.omega_tilde(theta, penalty, 0.7)
    got = F.omega_tilde(theta, penalty, 0.7)
    assert got == pytest.approx(want, rel=1e-12, abs=0.0) and math.copysign(1, got) == math.copysign(1, want)
    for bad in (np.nan, np.inf):
        t = theta.copy()
        t[3] = bad
        _raises_same(lambda: R.omega_tilde(t, penalty, 0.7), lambda: F.omega_tilde(t, penalty, 0.7))
    _raises_same(lambda: R.omega_tilde(theta, np.nan, 0.7), lambda: F.omega_tilde(theta, np.nan, 0.7))
    _raises_same(lambda: R.omega_tilde(theta, 1.0, -1.0), lambda: F.omega_tilde(theta, 1.0, -1.0))


@pytest.mark.parametrize("threads", [1, 2])
def test_rado_set_losses_on_long_inputs(threads):
    import fast.losses as F
    import reference.losses as R

    rng = np.random.default_rng(3)
    P = rng.normal(size=(700, 6)) * 4.0
    theta = rng.normal(size=6)
    with _threads(threads, 64):
        for log in (False, True):
            got = F.regularized_exp_rado_loss(P, theta, 0.3, omega=2.0, log=log)
            assert got == pytest.approx(R.regularized_exp_rado_loss(P, theta, 0.3, omega=2.0, log=log), rel=1e-10)
            assert got == pytest.approx(F.regularized_exp_rado_loss(np.asfortranarray(P), theta, 0.3, omega=2.0,
                                                                    log=log), rel=1e-12)
        for row in ("I", "II", "III", "IV"):
            assert F.rado_set_loss(P, theta, row, 0.9) == pytest.approx(R.rado_set_loss(P, theta, row, 0.9),
                                                                        rel=1e-10, abs=1e-12)
        Z = P.copy()
        Z[650, 2] = np.nan
        _raises_same(lambda: R.regularized_exp_rado_loss(Z, theta, 0.3), lambda: F.regularized_exp_rado_loss(Z, theta, 0.3))
        _raises_same(lambda: R.regularized_exp_rado_loss(Z, theta, np.nan),
                     lambda: F.regularized_exp_rado_loss(Z, theta, np.nan))


# --------------------------------------------------------------------------- regularizers


def _spd(d, seed):
    A = np.random.default_rng(seed).normal(size=(d, d))
    return A @ A.T / d + np.eye(d)


@pytest.mark.parametrize("d", [1, 3, 50])
def test_ridge_gamma_remembers_only_what_it_accepted(d):
    import fast.regularizers as F
    import reference.regularizers as R

    G = _spd(d, d)
    theta = np.random.default_rng(d).normal(size=d)
    for _ in range(3):  # the first call runs the contract, the next ones compare with the stored copy
        assert F.ridge(theta, G) == pytest.approx(R.ridge(theta, G), rel=1e-12)
        assert F.elastic_net(theta, 0.5, 2.0, G) == pytest.approx(R.elastic_net(theta, 0.5, 2.0, G), rel=1e-12)
    omega = F.get_regularizer("ridge", Gamma=G)
    assert omega(theta) == pytest.approx(R.ridge(theta, G), rel=1e-12)
    # the caller modifies its accepted array in place: the next call decides afresh, as the reference does
    for value, message in ((-5.0 * d, "positive definite"), (np.nan, "finite"), (np.inf, "finite")):
        H = G.copy()
        H[0, 0] = value
        _raises_same(lambda: R.ridge(theta, H), lambda: F.ridge(theta, H))
        G_alias = G  # same object, mutated after acceptance
        saved = G_alias[0, 0]
        G_alias[0, 0] = value
        try:
            _raises_same(lambda: R.ridge(theta, G_alias), lambda: F.ridge(theta, G_alias))
            with pytest.raises(ValueError, match=message):
                omega(theta)
        finally:
            G_alias[0, 0] = saved
        assert F.ridge(theta, G) == pytest.approx(R.ridge(theta, G), rel=1e-12)
    if d > 1:
        asym = G.copy()
        asym[0, 1] += 1.0
        _raises_same(lambda: R.ridge(theta, asym), lambda: F.ridge(theta, asym))
    _raises_same(lambda: R.ridge(theta, np.eye(d + 1)), lambda: F.ridge(theta, np.eye(d + 1)))
    _raises_same(lambda: R.ridge(theta, G.astype(str)), lambda: F.ridge(theta, G.astype(str)))


def test_ridge_gamma_strided_and_extreme_values():
    import fast.regularizers as F
    import reference.regularizers as R

    G = _spd(6, 1)
    big = np.asfortranarray(G)  # not C-ordered: compared entrywise all the same
    for theta in (np.ones(6), np.full(6, 1e-210), np.full(6, 1e200), np.zeros(6), np.arange(12.0)[::2]):
        for gamma in (G, big, G * 1e300, G * 1e-300):
            assert F.ridge(theta, gamma) == pytest.approx(R.ridge(theta, gamma), rel=1e-10)


@pytest.mark.parametrize("theta", [np.array([1.0, -2.0, 0.5]), np.array([0.0, -0.0]), np.array([1e-300, -1e-310]),
                                   np.array([1e200, -3e200]), np.array([np.nan, 1.0]), np.array([1.0, np.inf]),
                                   np.array([np.inf, np.nan]), [1, 2], np.array([3], dtype=np.int64)])
def test_one_pass_norms_match_reference(theta):
    import fast.regularizers as F
    import reference.regularizers as R

    for fn in ("lasso", "ridge", "linf"):
        try:
            want = getattr(R, fn)(theta)
        except (TypeError, ValueError):
            _raises_same(lambda: getattr(R, fn)(theta), lambda: getattr(F, fn)(theta))
            continue
        assert getattr(F, fn)(theta) == pytest.approx(want, rel=1e-12, abs=0.0)
    try:
        want = R.elastic_net(theta, 0.5, 2.0)
    except (TypeError, ValueError):
        _raises_same(lambda: R.elastic_net(theta, 0.5, 2.0), lambda: F.elastic_net(theta, 0.5, 2.0))
    else:
        assert F.elastic_net(theta, 0.5, 2.0) == pytest.approx(want, rel=1e-12, abs=0.0)
    for l1, l2 in ((-1.0, 1.0), (1.0, np.nan), (np.inf, 1.0), (True, 1.0), ("1", 1.0)):
        _raises_same(lambda: R.elastic_net(np.ones(3), l1, l2), lambda: F.elastic_net(np.ones(3), l1, l2))


# --------------------------------------------------------------------------- reconstruction (cheaper validation)


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


# --------------------------------------------------------------------------- causal


def _median_bandwidth_oracle(x):
    head = np.asarray(x, dtype=np.float64)[:1000]
    i, j = np.triu_indices(head.shape[0], k=1)
    d = np.abs(head[i] - head[j])
    d = np.sort(d[d > 0.0])
    if d.size == 0:
        return 1.0
    mid = d.size // 2
    return float(d[mid]) if d.size % 2 else float((d[mid - 1] + d[mid]) / 2.0)


@pytest.mark.parametrize("case", range(12))
def test_median_bandwidth_selection_is_exact(case):
    import fast.causal as F
    import reference.causal as R

    rng = np.random.default_rng(case)
    x = [rng.normal(size=37), np.round(rng.normal(size=400), 1), np.ones(9), np.array([0.0, -0.0, 1.0, 1.0]),
         np.array([5.0]), rng.normal(size=3000) * 1e-300, rng.choice([1e300, -1e300, 0.0, 1.0], size=200),
         np.repeat([1.0, 2.0, 4.0], 7), rng.normal(size=1000) * 10.0 ** rng.integers(-200, 200, size=1000),
         np.arange(1001.0), rng.integers(0, 3, size=2500).astype(float), np.array([1.0, 1.0 + 2.0**-52])][case]
    want = _median_bandwidth_oracle(x)
    assert F.median_bandwidth(x) == want
    if len(x) <= 400:
        assert R.median_bandwidth(x) == want


def _krr_numpy(x_train, y_train, x_test, lam, h):
    """The dense numpy formulation (the implementation before the fused kernels)."""
    with np.errstate(over="ignore"):
        K = np.exp(-0.5 * ((x_train[:, None] - x_train[None, :]) / h) ** 2)
        K[np.diag_indices(len(x_train))] += len(x_train) * lam / 2.0
        alpha = np.linalg.solve(K, y_train)
        return np.exp(-0.5 * ((x_test[:, None] - x_train[None, :]) / h) ** 2) @ alpha


@pytest.mark.parametrize("h", [0.5, 1e-200, 1e200, 3e-5, "median"])
@pytest.mark.parametrize("n", [1, 40, 700])
def test_krr_fused_kernels_match_the_dense_formulation(h, n):
    import fast.causal as F
    import reference.causal as R

    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    x[:3] *= 1e160  # far apart: (x_i - x_j) / h overflows for small h
    y = np.tanh(x) + 0.3 * rng.normal(size=n)
    t = np.concatenate([x[: n // 2], rng.normal(size=25)])
    got = F.krr_predict(x, y, t, bandwidth=h)
    width = F.median_bandwidth(x) if h == "median" else h
    assert np.allclose(got, _krr_numpy(x, y, t, 1e-3, width), rtol=1e-10, atol=1e-12)
    if n <= 40:
        assert np.allclose(got, R.krr_predict(x, y, t, bandwidth=h), rtol=1e-8, atol=1e-10)
    r_y, r_x = F.anm_residuals(x, y, t, np.tanh(t), bandwidth=h)
    assert np.allclose(r_y, np.tanh(t) - got, rtol=1e-12, atol=1e-12)


def test_theorem3_rows_rule_and_values():
    import fast.rados as F
    import reference.rados as R

    rng = np.random.default_rng(6)
    X = rng.normal(size=(7, 3))
    y = np.where(rng.random(7) < 0.5, -1, 1)
    theta = rng.normal(size=3) * 0.3
    rows = rng.permutation(2**7)[:50]
    got, want = F.theorem3_quantities(X, y, theta, rows), R.theorem3_quantities(X, y, theta, rows)
    for field in ("r_theta", "log_rho", "rho_prime", "Q", "grad_norm", "pibar_r", "pistar_r", "eq7_bound"):
        assert getattr(got, field) == pytest.approx(getattr(want, field), rel=1e-9, abs=1e-12)
    assert F.theorem3_quantities(X, y, theta, rows.astype(np.uint8)) == got
    for bad in (np.array([1, 1]), np.array([0, 128]), np.array([-1, 3]), np.array([1.0, 2.0]), np.array([], dtype=int),
                np.array([[1, 2]]), [3, 3], "ab"):
        _raises_same(lambda: R.theorem3_quantities(X, y, theta, bad), lambda: F.theorem3_quantities(X, y, theta, bad))
    big = rng.normal(size=(30, 2))  # 2^30 rows: the rows rule (np.unique beyond the marking range), then m refused
    _raises_same(lambda: R.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 5])),
                 lambda: F.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 5])))
    _raises_same(lambda: R.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 6])),
                 lambda: F.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 6])))


# --------------------------------------------------------------------------- radoboost


@pytest.mark.parametrize("d", [1, 3, 4, 7, 101])
def test_radoboost_column_products_and_exponentials(d):
    from fast import _risk_kernels as K
    from fast import radoboost as F

    rng = np.random.default_rng(d)
    Pi = np.asfortranarray(rng.normal(size=(513, d)))
    w = rng.random(513)
    assert np.allclose(F._weighted_columns(Pi, w), w @ Pi, rtol=1e-13, atol=1e-15)
    x = np.concatenate([-rng.random(600) * 30.0, [0.0, -707.9, -708.0, -708.1, -720.0, -745.1, -800.0, -np.inf]])
    y = x.copy()
    total = K.exp_in_place(y)
    want = np.exp(x)
    assert np.all(np.abs(y - want) <= np.spacing(want))
    assert np.array_equal(y[-5:], want[-5:])  # results below e^-708: libm's exactly (subnormal or 0)
    assert total == pytest.approx(math.fsum(want.tolist()), rel=1e-14)


def test_boosting_loops_match_reference():
    import fast.radoboost as F
    import reference.radoboost as R

    rng = np.random.default_rng(12)
    P = rng.normal(size=(60, 6)) + 0.3
    X = rng.normal(size=(50, 5))
    y = np.where(X[:, 0] + 0.2 * rng.normal(size=50) > 0, 1, -1)
    pairs = [(lambda M: M.radoboost(P, 25)),
             (lambda M: M.omega_radaboost(P, 25, regularizer="lasso", omega=1e-2)),
             (lambda M: M.omega_radaboost(P, 25, regularizer="ridge", omega=1e-2, weak_learner="strong")),
             (lambda M: M.adaboost(X, y, 25))]
    from spec.compare import assert_same

    for call in pairs:
        assert_same(call(R), call(F), rtol=1e-9, atol=1e-12)  # features exactly, floats within the pairs' tolerance


@pytest.mark.parametrize("alpha", [2.0, 3.0, 4.0, 7.0, 10.0, 64.0, 65.0, 2.5, 1.0001])
def test_renyi_integer_orders_match_reference(alpha):
    import fast.measures as F
    import reference.measures as R

    rng = np.random.default_rng(int(alpha * 7))
    for n in (3, 40, 700):
        p, q = rng.random(n) + 0.01, rng.random(n) + 0.01
        p[::5] = 0.0  # zeros of p: restricted to the support
        p, q = p / math.fsum(p.tolist()), q / math.fsum(q.tolist())
        assert F.renyi(p, q, alpha) == pytest.approx(R.renyi(p, q, alpha), rel=1e-12, abs=1e-15)
        assert F.renyi(q, q, alpha) == pytest.approx(R.renyi(q, q, alpha), rel=1e-12, abs=1e-15)
        tiny = q.copy()
        tiny[1] = 1e-300  # (p / q)^(k - 1) overflows: the log-space route decides
        tiny /= math.fsum(tiny.tolist())
        assert F.renyi(p, tiny, alpha) == pytest.approx(R.renyi(p, tiny, alpha), rel=1e-12, abs=1e-15)
        zero = q.copy()
        zero[1] = 0.0
        zero /= math.fsum(zero.tolist())
        assert F.renyi(p, zero, alpha) == R.renyi(p, zero, alpha)


@pytest.mark.parametrize("kind", ["normal", "nan", "inf", "huge", "tiny"])
def test_long_vector_norms_match_reference(kind):
    import fast.losses as FL
    import fast.regularizers as F
    import reference.regularizers as R

    theta = np.random.default_rng(8).normal(size=F.BLAS1_MAX + 3)  # the numba reductions
    if kind == "nan":
        theta[40000 % theta.size] = np.nan
    elif kind == "inf":
        theta[-1] = -np.inf
    elif kind == "huge":
        theta *= 1e200
    elif kind == "tiny":
        theta *= 1e-200
    for fn in ("lasso", "ridge", "linf"):
        try:
            want = getattr(R, fn)(theta)
        except ValueError:
            _raises_same(lambda: getattr(R, fn)(theta), lambda: getattr(F, fn)(theta))
            continue
        assert getattr(F, fn)(theta) == pytest.approx(want, rel=1e-12)
    if kind == "normal":
        assert F.elastic_net(theta, 0.5, 2.0) == pytest.approx(R.elastic_net(theta, 0.5, 2.0), rel=1e-12)
        assert FL.omega_tilde(theta, 0.5, 0.7) == pytest.approx(0.35 / R.ridge(theta), rel=1e-12)
