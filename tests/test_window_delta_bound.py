"""The per-rado delta that ``dp_feat_plan`` charges (nock2015 Thm 6): above m = 4096 ``fast.dp_rados`` bounds the
exact rational of ``_window_delta_exact`` by a directed-rounding fixed-point walk (``_window_delta_walk``) instead of
summing O(m) binomials of O(m) bits (185 s at m = 10^6).  The bound must never be below the exact rational (the
spent delta would be understated) and must be within 1e-40 of it."""
import math
import time
from fractions import Fraction

import pytest

import fast.dp_rados as F
from spec.links import checks

# epsilon' from 1e-300 (e^eps' rounds to 1, f = a/b < 1) to 800 (capped at e^700: the positive part R is empty)
EPSILONS = (1e-300, 1e-4, 0.01, 0.3, 1.0, 3.0, 8.0, 20.0, 800.0)


def _k_los(m):
    """The widest window, a wide one, half-way, a few sigmas from the mode, and the narrowest ones."""
    h = m // 2
    return sorted({1, 2, h // 2, h - int(3 * math.sqrt(m)), h - 5, h - 1, h})


def _row(m):
    """C(m, k) for k = 0..m (exact integers) and their prefix sums."""
    row = [math.comb(m, 0)]
    for k in range(m):
        row.append(row[-1] * (m - k) // (k + 1))
    prefix = [0]
    for c in row:
        prefix.append(prefix[-1] + c)
    return row, prefix


def _exact(row, prefix, m, k_lo, a, b):
    """The rational the bound is of, straight from its definition (independent of the code under test):
    (sum_{k_lo <= k < k_hi} max(0, b C(m,k) - a C(m,k+1)) + b C(m,k_hi)) / (b sum_{k_lo <= k <= k_hi} C(m,k))."""
    k_hi = m - k_lo
    N = sum(max(0, b * row[k] - a * row[k + 1]) for k in range(k_lo, k_hi)) + b * row[k_hi]
    return Fraction(N, b * (prefix[k_hi + 1] - prefix[k_lo]))


@checks("nock2015.thm6")
@pytest.mark.parametrize("m", [4097, 4098, 6000, 6001, 20000, 20001])
def test_walk_bound_is_above_the_exact_rational_and_within_1e_40(m):
    """For every window k_lo (widest to narrowest) and epsilon' (1e-300 to 800): the walk's rational is >= the exact
    one and (bound - exact) / exact <= 1e-40 (measured worst: 1.2e-54).  Mutation check (each one-sided rounding of
    fast/dp_rados.py flipped in turn, then restored): "ceil -> floor in _walk_sum's upper sequence", "floor -> ceil
    in its lower sequence", "ceil -> floor in _ratio_to_mode's upper quotient" and "the early-stop tail bound
    dropped" each put the bound BELOW the exact delta on several cases here (all six m for three of them); the
    roundings a later ceil can absorb (the weighted term's own ceil, the chunk cuts of _product_bracket, the lower
    quotient) are caught by test_brackets_enclose_the_exact_values.  The old exact-only code passes this test
    (it is the oracle's definition) but takes O(m^2) bit operations.
    """
    assert m > F._WINDOW_DELTA_EXACT_MAX_M  # the walk, not the exact sum, is what is tested
    row, prefix = _row(m)
    below, loose = [], []
    for k_lo in _k_los(m):
        for eps in EPSILONS:
            a, b = F._window_factor(eps)
            exact = _exact(row, prefix, m, k_lo, a, b)
            bound = F._window_delta_walk(m, k_lo, a, b, 160 + 4 * m.bit_length())
            assert bound is not None, (k_lo, eps)  # certified at the first precision
            assert F._window_delta_upper(m, k_lo, eps) == bound
            if not bound >= exact:
                below.append((k_lo, eps, float((bound - exact) / exact)))
            elif (bound - exact) > exact * Fraction(1, 10**40):
                loose.append((k_lo, eps, float((bound - exact) / exact)))
    assert not below, f"bound BELOW the exact delta (understated): {below}"
    assert not loose, f"bound above the exact delta by more than 1e-40 relative: {loose}"


def test_brackets_enclose_the_exact_values():
    """Each helper's (lo, up) encloses the exact rational, including the last rounding step of each (these are
    what a one-sided mutant breaks; the end-to-end test above can absorb a sub-unit error in the LAST step of a
    bound under the slack of the earlier ones): the chunked products and ratios to the mode at a small P (so the
    cuts happen), and the walks from an exact anchor (units 1: every step exact, only the weighted terms round)
    and from a rounded one (units 2^s), with and without the early stop (T = 0 or huge)."""
    for first, last, P in [(1, 1, 8), (5, 4, 8), (1000, 3000, 64), (7, 20000, 100)]:
        lo, up, e = F._product_bracket(first, last, P)
        exact = math.prod(range(first, last + 1))
        assert Fraction(lo) * Fraction(2) ** e <= exact <= Fraction(up) * Fraction(2) ** e, (first, last)
    for m in (4097, 6000, 20001):
        h = m // 2
        mode = math.comb(m, h)
        for k in (0, 1, h // 3, h - 1, h, h + 1, m - 7, m):
            for P in (64, 212):
                lo, up, e = F._ratio_to_mode(m, k, P)
                exact = Fraction(math.comb(m, k), mode) / Fraction(2) ** e
                assert lo <= exact <= up and lo.bit_length() > P, (m, k, P)
    # a weighted term b C(m,k) - a C(m,k+1) (an integer) is rounded only when the anchor is not: take the units 2^s,
    # s = the 2-adic valuation of C(m,k), so the anchor is exact and the term g / 2^s is not an integer
    m = 6000
    v2 = lambda x: (x & -x).bit_length() - 1  # noqa: E731
    k = next(k for k in range(m // 2, m - 1) if v2(math.comb(m, k + 1)) < v2(math.comb(m, k)))
    c, s = math.comb(m, k), v2(math.comb(m, k))
    g = 2 * c - math.comb(m, k + 1)  # a / b = 1 / 2
    lo, up = F._walk_sum(m, k, k + 1, c >> s, c >> s, 0, 1, 2)
    exact = Fraction(g + 2 * math.comb(m, k + 1) - math.comb(m, k + 2), 2 ** s)
    assert lo < exact < up and F._walk_sum(m, k, k, c >> s, c >> s, 0, 1, 2) == (g >> s, -(-g >> s))
    for m in (4097, 6000):
        h = m // 2
        row, _ = _row(m + 1)  # C(m,j) d_j / (j+1) = C(m+1,j+1) d_j / (m+1): the weighted sums in integers
        for eps in (1e-4, 0.3, 3.0):
            a, b = F._window_factor(eps)
            k_star = (a * m - b) // (a + b) + 1
            # walks AWAY from the mode (their precondition), weighted ones where d_j = b(j+1) - a(m-j) >= 0;
            # a / b = 1/2 gives a long weighted walk DOWN from the mode (d_j >= 0 for j >= (m-2)/3)
            for k, end, ab in [(h, 1, ()), (h, h - 40, ()), (h + 1, m, ()), (max(k_star, h), m - 1, (a, b)),
                               (h, -(-(m - 2) // 3), (1, 2))]:
                ks = range(min(k, end), max(k, end) + 1)
                if ab:
                    exact = Fraction(sum(row[j + 1] * (ab[1] * (j + 1) - ab[0] * (m - j)) for j in ks), m + 1)
                else:
                    exact = Fraction(sum(row[j + 1] * (j + 1) for j in ks), m + 1)  # C(m,j) = C(m+1,j+1)(j+1)/(m+1)
                c = row[k + 1] * (k + 1) // (m + 1)
                assert c == math.comb(m, k)
                for s in (0, max(0, c.bit_length() - 100)):
                    for T in (0, 1 << 40):
                        lo, up = F._walk_sum(m, k, end, c >> s, -((-c) >> s), T, *ab)
                        assert lo <= exact / Fraction(2) ** s <= up, (m, eps, k, end, ab, s, T)


def test_walk_bound_at_a_hundred_thousand_rows():
    """One wide window at m = 100,001 (the exact sum, 2 s, streams the binomials): >= exact, within 1e-40, and the
    same float_up'd per-rado delta (the plan's value is unchanged by the walk)."""
    from spec.privacy_contract import float_up

    m, k_lo, eps = 100_001, 3, 0.05
    a, b = F._window_factor(eps)
    exact = F._window_delta_exact(m, k_lo, a, b)
    bound = F._window_delta_upper(m, k_lo, eps)
    assert bound >= exact and bound - exact <= exact * Fraction(1, 10**40)
    assert float_up(bound) == float_up(exact)


def test_exact_sum_kept_up_to_the_threshold():
    """At m <= 4096 the plan's delta is the exact rational itself (existing expectations are unchanged)."""
    for m, k_lo, eps in [(4096, 1, 0.01), (4096, 2000, 3.0), (569, 1, 1 / 3)]:
        assert F._window_delta_upper(m, k_lo, eps) == F._window_delta_exact(m, k_lo, *F._window_factor(eps))


def test_window_factor_is_at_most_e_to_the_epsilon():
    """f = a / b <= e^eps' (the rounding that makes the exact rational an upper bound of delta(eps')); capped."""
    import mpmath

    with mpmath.workdps(60):
        for eps in EPSILONS[:-1]:
            a, b = F._window_factor(eps)
            assert mpmath.mpf(a) / b <= mpmath.exp(mpmath.mpf(eps))
    assert F._window_factor(800.0) == F._window_factor(700.0)


def test_dp_feat_plan_at_a_million_rows_takes_seconds():
    """dp_feat_plan(10^6, ...) took 185 s (the exact sum); now well under a second (measured 0.14 s), asserted < 30 s.
    Its delta_per_rado is >= the float64 estimate of the same window (a sanity check; the rigour is the walk's), and
    a second plan (the fit's draw after its charge) is served from the per-process cache."""
    m = 10**6
    F._window_delta_upper_cached.cache_clear()
    start = time.perf_counter()
    plan = F.dp_feat_plan(m, 1000, 50.0, 1e-3)
    took = time.perf_counter() - start
    assert took < 30.0, took
    estimate = F._window_deltas(m, plan.epsilon_per_rado)[plan.k_lo - 1]
    assert 1e-150 < estimate and plan.delta_per_rado >= estimate * (1 - 1e-9), (plan, estimate)
    assert plan.delta_per_rado <= estimate * (1 + 1e-6)
    assert plan.delta_spent <= 1e-3
    hits = F._window_delta_upper_cached.cache_info().hits
    assert F.dp_feat_plan(m, 1000, 50.0, 1e-3) == plan
    assert F._window_delta_upper_cached.cache_info().hits == hits + 1
    # other windows and epsilons at the same m: the bound is >= the float64 estimate, within its rounding
    for k_lo, eps in [(1, 1e-3), (499_000, 1e-3), (1, 0.05), (495_000, 0.5), (1, 3.0)]:
        bound = F._window_delta_upper(m, k_lo, eps)
        estimate = F._window_deltas(m, eps)[k_lo - 1]
        assert float(bound) >= estimate * (1 - 1e-9), (k_lo, eps, float(bound), estimate)
