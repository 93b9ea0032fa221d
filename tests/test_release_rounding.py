"""The release step 2^k (round(x / 2^k) + noise) of the exact mechanisms: one computation whatever the exact value.

``fast.mechanisms._release`` used to switch to an exact Fraction loop as soon as some |x| / 2^k reached 2^61, before
any noise was drawn: the time of a release then told whether the exact data crossed that magnitude (a 20,000-cell
table: 11 vs 725 ms).  The compiled kernel now rounds every finite value exactly (Boldo-Melquiond's correctly rounded
three-term sum); the path depends only on the public grid exponent k.
"""
import math
import statistics
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fast.mechanisms as F
import reference.mechanisms as R

MAX = 1.7976931348623157e308


def _exact(x: float, k: int, n: int) -> float:
    """The defining formula in exact rationals (the reference's _release)."""
    return R._from_grid(round(Fraction(x) / Fraction(2) ** k) + n, k)


def _kernel(xs, k, ns):
    out = np.empty(len(xs))
    F._release_kernel(np.array(xs, dtype=np.float64), k, np.array(ns, dtype=np.int64), out)
    return out


def _same(a: float, b: float) -> bool:
    """Equal as bit patterns (0.0 and -0.0 differ; no NaN can occur)."""
    return np.float64(a).view(np.int64) == np.float64(b).view(np.int64)


def _ldexp_finite(m, e):
    try:
        return math.ldexp(m, e)
    except OverflowError:
        return MAX


# doubles of every magnitude: near the float range's top, subnormal, integers past 2^53
_extremes = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=1e300, max_value=MAX) | st.floats(min_value=-MAX, max_value=-1e300),
    st.floats(min_value=-1e-300, max_value=1e-300, allow_subnormal=True),
    st.builds(lambda m, e: _ldexp_finite(float(m), e), st.integers(-2**53, 2**53), st.integers(-1074, 971)),
)
_noise = st.one_of(st.integers(-2**62 + 1, 2**62 - 1), st.integers(-2000, 2000),
                   st.builds(lambda e, s, d: s * (2**e + d), st.integers(53, 61), st.sampled_from([-1, 1]),
                             st.integers(-1025, 1025)))
_k = st.one_of(st.integers(F.RELEASE_K_MIN, F.RELEASE_K_MAX),
               st.sampled_from([F.RELEASE_K_MIN, F.RELEASE_K_MIN + 1, -1, 0, 1, 40, 969, 970, 971, 1000]))


def _grid_values(k):
    """Values on and between the grid 2^k: ties (m + 1/2) 2^k, grid points m 2^k near 2^53 grid units (where a plain
    double sum with the noise rounds twice), and points near the clamp 2^(1023 + k)."""
    return st.one_of(
        st.builds(lambda m: _ldexp_finite(m + 0.5, k), st.integers(-2**52, 2**52)),
        st.builds(lambda m: _ldexp_finite(float(m), k), st.integers(2**53 - 2**10, 2**53 + 2**12)),
        st.builds(lambda m, s: s * _ldexp_finite(float(m), 970 + k), st.integers(2**52, 2**53 - 1),
                  st.sampled_from([-1, 1])),
    )


@pytest.mark.equivalence
@settings(max_examples=4000, deadline=None)
@given(data=st.data(), k=_k, n=_noise)
def test_release_kernel_is_the_exact_formula_bit_for_bit(data, k, n):
    """Any finite x, any k of the kernel's range, any |noise| < 2^62 (the samplers' bound): the kernel's double is
    the exact rational 2^k (round_half_even(x / 2^k) + n) rounded once, +-inf past the float range."""
    x = data.draw(st.one_of(_extremes, _grid_values(k)), label="x")
    assert _same(_kernel([x], k, [n])[0], _exact(x, k, n))


@pytest.mark.equivalence
def test_release_kernel_edge_cases():
    """Hand-picked edges: the rounding threshold of the float range (2^1024 - 2^970) reached from both sides, the
    clamp C = 2^(1023 + k) at k <= 0, exact halves of the grid (ties to even), 2^53 + 1 grid units with odd noise
    (where a plain double sum rounds twice), subnormal x, the largest noise."""
    cases = []
    for k in (-950, -40, -1, 0, 1, 17, 970, 971, 1000):
        xs = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, MAX, -MAX]
        xs += [_ldexp_finite(m, k) for m in (0.5, 1.5, 2.5, -0.5, -2.5, 2.0**53 + 1, 2.0**53 + 2)]
        if k <= 0:
            cap = math.ldexp(1.0, 1023 + k)
            xs += [cap, -cap, math.nextafter(cap, 0.0), math.nextafter(cap, math.inf)]
        for x in xs:
            for n in (0, 1, -1, 3, -3, 2**62 - 1, -(2**62 - 1), 2**53 + 1, -(2**53 + 1), 2**61 + 2**8 + 1):
                cases.append((x, k, n))
    # the float range ends at MAX = (2^53 - 1) 2^971; the exact value MAX + 2^970 (a tie) rounds to inf
    top = 2**53 - 1
    for x, k, n in [(MAX, 971, 0), (math.ldexp(top - 1, 971), 971, 1), (MAX, 970, 1), (MAX, 970, 2),
                    (math.ldexp(top - 1, 971), 970, 2), (math.ldexp(top - 1, 971), 970, 3), (MAX, 969, 1),
                    (MAX, 969, 2), (MAX, 969, 3), (-MAX, 970, -1), (-MAX, 970, -2), (MAX, 1000, -1)]:
        cases.append((x, k, n))
    bad = [c for c in cases if not _same(_kernel([c[0]], c[1], [c[2]])[0], _exact(*c))]
    assert bad == []
    assert math.isinf(_exact(MAX, 970, 1)) and _exact(MAX, 970, 0) == MAX  # the threshold is exercised


@pytest.mark.equivalence
@pytest.mark.parametrize("k", [-40, 0, 30])
def test_fast_and_reference_releases_agree_on_huge_values(k):
    """Seeded fast and reference Laplace releases of values from 0 to 1e308 (far past 2^61 grid units) are equal bit
    for bit (same words, same rounding)."""
    x = np.array([0.0, 1.0, -3.5, 2.0**61, -(2.0**70), 1e30, -1e200, 1e308, -MAX, 5e-324])
    scale = 2.0 ** (k + 40)
    assert F.laplace_grid(scale, 1.0).k == k
    a = F.laplace_mechanism(x, sensitivity=scale, epsilon=1.0, rng=7)
    b = R.laplace_mechanism(x, sensitivity=scale, epsilon=1.0, rng=7)
    assert a.view(np.int64).tolist() == b.view(np.int64).tolist()


def _spy_exact_rounding(monkeypatch):
    """Count every call of the exact (Fraction) rounding the old fallback used per element (_from_grid)."""
    calls = []
    original = F._from_grid

    def spy(z, k):
        calls.append(k)
        return original(z, k)

    monkeypatch.setattr(F, "_from_grid", spy)
    return calls


def _neighbours():
    """A 20,000-cell count table and its neighbour in which one cell crosses 2^61 grid units (k = -40: 2^21)."""
    x0 = np.full(20_000, 3.0)
    x1 = x0.copy()
    x1[123] = 2.0**21 + 7.0  # one record's value: 2^61 + 7 2^40 grid units
    return x0, x1


def test_release_path_is_the_same_for_neighbouring_inputs(monkeypatch):
    """Neighbouring tables, one value of which crosses 2^61 grid units, take the same path: the exact Fraction rounding
    is never called for a grid exponent the kernel covers (the old code rounded all 20,000 cells with Fractions as
    soon as one crossed, which is what made the release's time reveal it).  Exponents outside the kernel's range
    (public) use it, for every input alike."""
    calls = _spy_exact_rounding(monkeypatch)
    x0, x1 = _neighbours()
    for x in (x0, x1, np.array([1e308, -1e308, 5e-324])):
        F.laplace_mechanism(x, sensitivity=1.0, epsilon=1.0, rng=0)
        F.gaussian_mechanism(x, sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=0)
    assert calls == []
    far = F.laplace_grid(2.0**-1000, 2.0**50)  # k below the kernel's range: public, the same for both inputs
    assert far.k < F.RELEASE_K_MIN
    out = [F.laplace_mechanism(np.array([v, 0.0]), sensitivity=2.0**-1000, epsilon=2.0**50, rng=1) for v in (0.0, 1e300)]
    assert len(calls) == 4 and set(calls) == {far.k}
    assert out[1][0] == 1e300


def test_release_time_does_not_reveal_a_value_past_2_61_grid_units():
    """Process CPU time, median of 7 interleaved releases each: the neighbour with one cell past 2^61 grid units
    costs the same as the other (old code: 725 vs 11 ms, x66; allowed: x1.5, far below the channel, robust to load
    since both inputs share the same conditions and CPU time excludes waiting)."""
    x0, x1 = _neighbours()
    F.laplace_mechanism(x0, sensitivity=1.0, epsilon=1.0, rng=0)  # compiled
    times = {0: [], 1: []}
    for _ in range(7):
        for i, x in ((0, x0), (1, x1)):
            start = time.process_time()
            F.laplace_mechanism(x, sensitivity=1.0, epsilon=1.0, rng=0)
            times[i].append(time.process_time() - start)
    m0, m1 = statistics.median(times[0]), statistics.median(times[1])
    assert m1 < 1.5 * m0 + 2e-3, (m0, m1)
