"""Issue 15, item 2 (privacy side): the faster formulations of fast.accounting, fast.causal_privacy and
fast.mechanisms keep the reference's results, errors and rounding direction.

* exact sums by dyadic integer bins (basic_composition, zcdp_composition, renyi_gaussian): the same rational as the
  reference's Fraction sums (so the same rounded-up float), on inputs chosen to reach every path: subnormals, -0.0,
  a bin overflowing 2^64 (the carry), sums past the float range, the small-input path and the kernel path;
* vectorised validation: the same first error as the reference's per-entry loop;
* the tight zCDP conversion by Newton on eps'(alpha) = 0: an upper bound on eps at its own alpha (checked in 60-digit
  arithmetic), within 1e-13 of the reference, never above Lemma 15;
* iqr_ptr / iqr_train_ptr sort v once; analytic_gaussian_sigma is memoised (a repeated call evaluates no profile).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import fast.accounting as FA
import fast.causal_privacy as FC
import fast.mechanisms as FM
import reference.accounting as RA
import reference.causal_privacy as RC
from fast.causal import iqr


def _outcome(fn, *args, **kwargs):
    try:
        return "ok", fn(*args, **kwargs)
    except (TypeError, ValueError, OverflowError) as error:
        return type(error).__name__, str(error)


def _sum_inputs():
    rng = np.random.default_rng(20)
    yield np.array([5e-324, 1e-310, 2.2250738585072014e-308, 0.0, -0.0] * 10)  # subnormals and zeros, kernel path
    yield np.array([5e-324, 1e-310, 0.0, -0.0, 0.1])  # the same on the small path
    yield np.full(5000, np.nextafter(2.0, 0.0))  # one bin overflows 2^64 about twice: the carry bin
    yield np.full(40, 1e307)  # a sum past the float range: the reference's OverflowError
    yield np.full(100_000, 0.1)
    for n in (1, 31, 32, 33, 1000):
        yield np.abs(rng.normal(size=n)) * 10.0 ** rng.integers(-300, 300, n).astype(float)
        yield rng.random(n)


@pytest.mark.parametrize("x", list(_sum_inputs()), ids=lambda x: f"n{x.shape[0]}")
def test_exact_sums_are_the_fraction_sums(x):
    num, den = FA._exact_sum(x)
    assert Fraction(num, den) == sum(map(Fraction, x.tolist()))
    assert _outcome(FA.zcdp_composition, x) == _outcome(RA.zcdp_composition, x)
    deltas = np.minimum(x, 0.5)
    assert _outcome(FA.basic_composition, x, deltas) == _outcome(RA.basic_composition, x, deltas)
    assert _outcome(FA.basic_composition, x.tolist(), deltas.tolist()) == \
        _outcome(RA.basic_composition, x.tolist(), deltas.tolist())


@pytest.mark.parametrize("epsilons, deltas", [
    ([0.1] * 40 + [-1.0, -2.0], [0.0] * 42),       # the first bad epsilon, kernel-size input
    ([0.1] * 40 + [-0.0], [0.0] * 41),             # -0.0 is accepted (check_real's rule)
    ([0.0] * 41, [0.0] * 40 + [1.0]),              # delta = 1 is refused
    ([0.0] * 3, [0.5, 2.0, -1.0]),
    ([float("nan")] * 3, [2.0] * 3),               # epsilons' errors come first
    ([0.1] * 3, [0.1] * 2),                        # the length
])
def test_composition_errors_are_the_reference_loops(epsilons, deltas):
    assert _outcome(FA.basic_composition, epsilons, deltas) == _outcome(RA.basic_composition, epsilons, deltas)
    assert _outcome(FA.zcdp_composition, deltas) == _outcome(RA.zcdp_composition, deltas)


def test_renyi_sum_is_the_correctly_rounded_sum_of_squares():
    rng = np.random.default_rng(21)
    for d in (1, 4, 32, 33, 2000):
        z, zp = rng.normal(size=d) * 10.0 ** rng.integers(-150, 150), rng.normal(size=d) * 10.0 ** rng.integers(-150, 150)
        exact = sum(Fraction(float(v) * float(v)) for v in (z - zp).tolist())
        assert FA._sum_of_squares(z, zp) == float(exact)  # fsum's result, from the exact sum
        fast, ref = FA.renyi_gaussian(z, zp, 1.5, 2.0), RA.renyi_gaussian(z, zp, 1.5, 2.0)
        assert fast == pytest.approx(ref, rel=4.5e-16)  # the reference squares with libm's pow (one ulp off at times)


@pytest.mark.parametrize("z, z_prime, sigma, alpha", [
    ([float("nan")] * 40, "x", 1.0, 2.0),           # z's finiteness before z_prime's type (finiteness fused)
    ([float("inf")] * 40, [1.0] * 3, 1.0, 2.0),     # ... before the length
    ([1.0] * 40, [1.0] * 39 + [float("nan")], -1.0, 2.0),  # z_prime's finiteness before sigma
    ([1.0] * 40, [1.0] * 40, -1.0, float("nan")),
    ([1e200] * 40, [0.0] * 40, 1.0, 2.0),           # a square overflows: the reference's OverflowError
    ([1e154] * 100, [0.0] * 100, 1.0, 2.0),         # the sum overflows: fsum's OverflowError
    ([1.7e308] * 40, [-1.7e308] * 40, 1.0, 2.0),    # the difference overflows: inf
])
def test_renyi_errors_and_overflow_are_the_reference(z, z_prime, sigma, alpha):
    assert _outcome(FA.renyi_gaussian, z, z_prime, sigma, alpha) == _outcome(RA.renyi_gaussian, z, z_prime, sigma, alpha)


def _eps_exact(w, rho, delta):
    """eps(1 + w) of CKS20 Prop. 12 in 60-digit arithmetic, in the log1p form (1 - 1/alpha loses 1/w otherwise)."""
    with mpmath.workdps(60):
        w, rho, big_l = mpmath.mpf(w), mpmath.mpf(rho), -mpmath.log(mpmath.mpf(delta))
        return (1 + w) * rho + (big_l - mpmath.log1p(w)) / w - mpmath.log1p(1 / w)


@pytest.mark.parametrize("rho, delta", list(itertools.product(
    [1e-12, 1e-6, 1e-3, 0.1, 0.5, 1.0, 10.0, 1e4], [1e-300, 1e-20, 1e-9, 1e-5, 1e-2, 0.2, 0.5])))
def test_tight_conversion_is_an_upper_bound_at_its_own_alpha(rho, delta):
    fast = FA.zcdp_to_dp_tight(rho, delta)
    w = FA._optimal_w(rho, -math.log(delta))
    assert fast >= _eps_exact(w, rho, delta)  # a valid bound at alpha = 1 + w, rounding included
    assert fast == pytest.approx(RA.zcdp_to_dp_tight(rho, delta), rel=1e-13, abs=1e-15)
    assert fast <= FA.zcdp_to_dp(rho, delta)


@pytest.mark.parametrize("epsilon, delta", [(0.05, 1e-2), (1.0, 1e-5), (5.0, 1e-9), (20.0, 1e-5)])
def test_zcdp_to_dp_rho_matches_the_reference_and_spends_within_epsilon(epsilon, delta):
    rho = FA.zcdp_to_dp_rho(epsilon, delta)
    assert rho == pytest.approx(RA.zcdp_to_dp_rho(epsilon, delta), rel=1e-9)
    assert FA.zcdp_to_dp_tight(rho, delta) <= epsilon


def test_scalar_conversions_round_up_as_the_reference():
    values = [5e-324, 1e-300, 1e-160, 0.1, 1.0, 3.0, 1e154, 1.7e308]
    for d, s in itertools.product(values, values):
        assert _outcome(FA.gaussian_rho, d, s) == _outcome(RA.gaussian_rho, d, s)
    for e in values:
        assert _outcome(FA.pure_dp_to_zcdp, e) == _outcome(RA.pure_dp_to_zcdp, e)


def test_iqr_releases_sort_once_and_equal_the_reference(monkeypatch):
    v = np.random.default_rng(22).normal(size=2001)
    sorts = []
    real_sort = np.sort
    monkeypatch.setattr(np, "sort", lambda a, *args, **kw: sorts.append(1) or real_sort(a, *args, **kw))
    fast = [FC.iqr_ptr(v, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]
    assert len(sorts) == 4  # one sort per release (was: up to five)
    sorts.clear()
    fast_train = [FC.iqr_train_ptr(v, n=50, lam=1.0, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]
    assert len(sorts) == 4
    monkeypatch.undo()
    assert fast == [RC.iqr_ptr(v, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]
    assert fast_train == [RC.iqr_train_ptr(v, n=50, lam=1.0, epsilon=1.0, delta=1e-3, rng=seed) for seed in range(4)]


def test_iqr_bin_distance_with_ties_and_caps_equals_the_reference():
    rng = np.random.default_rng(23)
    for trial in range(60):
        m = int(rng.integers(4, 40))
        v = rng.integers(0, 5, m).astype(float) if trial % 2 else rng.normal(size=m)
        q = iqr(v)
        if q <= 0:
            continue
        for (lo, hi), cap in itertools.product(FC.iqr_bins(q), (None, 1, 3, 100)):
            assert FC.iqr_bin_distance(v, lo, hi, cap=cap) == RC.iqr_bin_distance(v, lo, hi, cap=cap)


def test_analytic_sigma_is_memoised(monkeypatch):
    FM._analytic_sigma.cache_clear()
    evaluations = []
    real = FM._log_gaussian_delta
    monkeypatch.setattr(FM, "_log_gaussian_delta", lambda *a: evaluations.append(1) or real(*a))
    first = FM.analytic_gaussian_sigma(1.0, 0.5, 1e-6)
    assert evaluations
    evaluations.clear()
    assert FM.analytic_gaussian_sigma(1.0, 0.5, 1e-6) == first and not evaluations
    assert FM.gaussian_delta(first, 1.0, 0.5) <= 1e-6
    for _ in range(2):  # an error is not memoised
        with pytest.raises(ValueError, match="delta"):
            FM.analytic_gaussian_sigma(1.0, 0.5, 1.5)
