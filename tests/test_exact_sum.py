"""fast/_exact_sum.py: the exact (correctly rounded) float sums against math.fsum, and the lanes' enclosure."""

from __future__ import annotations
from fast import _exact_sum
from hypothesis import given
from hypothesis.extra import numpy as hnp
import math
import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st


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


# --------------------------------------------------------------------------- column sums (the exact rados' finish)


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 100, 1000])
def test_fsum_columns_matches_fsum_per_column(n):
    """fsum_columns(x)[k] == math.fsum(x[:, k]) bit for bit for every adversarial column (ties, cancellation,
    subnormals, huge / tiny mixes), in one array; a column on which fsum raises raises the same error alone."""
    rng = np.random.default_rng(100 + n)
    columns = [c[:n] if c.shape[0] >= n else np.concatenate([c, np.zeros(n - c.shape[0])])
               for c in _adversarial(n, rng)]
    good, bad = [], []
    for c in columns:
        (good if isinstance(_fsum_or_error(c.tolist()), float) else bad).append(c)
    x = np.column_stack(good) if good else np.zeros((n, 0))
    got = _exact_sum.fsum_columns(x)
    want = [math.fsum(c.tolist()) for c in good]
    assert got.shape == (len(good),) and all(_same(g, w) for g, w in zip(got.tolist(), want))
    assert np.array_equal(_exact_sum.fsum_columns(x[::-1]), got, equal_nan=True)  # fsum is order-free
    for c in bad:
        with pytest.raises(_fsum_or_error(c.tolist())):
            _exact_sum.fsum_columns(c[:, None])


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(0, 80), st.integers(1, 6)),
                  elements=st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)))
def test_fsum_columns_matches_fsum_on_any_finite_floats(x):
    want = []
    for c in x.T.tolist():
        want.append(_fsum_or_error(c))
    if all(isinstance(w, float) for w in want):
        got = _exact_sum.fsum_columns(x)
        assert all(_same(g, w) for g, w in zip(got.tolist(), want))
    else:
        with pytest.raises(OverflowError):
            _exact_sum.fsum_columns(x)


def test_fsum_columns_refuses_other_shapes():
    with pytest.raises(ValueError, match="fsum_columns takes a 2-d array"):
        _exact_sum.fsum_columns(np.ones(3))
