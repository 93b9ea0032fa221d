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
