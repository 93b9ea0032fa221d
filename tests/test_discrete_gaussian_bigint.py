"""The exact discrete Gaussian at any rational variance: CKS20 Algorithms 1-3 on Python integers.

``sample_discrete_gaussian`` used to refuse sigma2 > 2^24 (its word-batched sampler keeps every integer below 2^63),
which forced HS-StL's grid 11 bits below sigma and made epsilon = 1 unreachable at any n.  An integer sigma2 <= 2^24
still takes the fast sampler; any other rational sigma2 takes the big-integer one, from the same word stream.  Which
one runs depends on sigma2 alone.
"""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

import fast.mechanisms as F
import reference.mechanisms as R
import spec.words
from spec.links import checks


def _exact_bin_probabilities(sigma2: Fraction, edges: list[int]) -> list[float]:
    """P(edges[i] <= Y < edges[i+1]) of N_Z(0, sigma2) (edges[0] = -inf, edges[-1] = +inf in effect), from the pmf
    exp(-y^2 / (2 sigma2)) summed exactly in mpmath by Euler-Maclaurin (mpmath.sumem: error far below 1e-30 here,
    the summand's derivatives being O(1 / sigma^k)) over [-40 sigma, 40 sigma] (the rest is below e^-800)."""
    with mpmath.workdps(40):
        s2 = mpmath.mpf(sigma2.numerator) / sigma2.denominator
        f = lambda y: mpmath.exp(-y * y / (2 * s2))  # noqa: E731
        reach = int(40 * mpmath.sqrt(s2)) + 1
        cuts = [-reach] + edges[1:-1] + [reach + 1]
        parts = [mpmath.sumem(f, [a, b - 1]) for a, b in zip(cuts[:-1], cuts[1:])]
        total = mpmath.fsum(parts)
        return [float(p / total) for p in parts]


def _chi2_pvalue(draws, sigma2: Fraction, bins: int = 40) -> float:
    """Pearson chi-square of integer draws against N_Z(0, sigma2) over ``bins`` bins of about equal mass."""
    sd = math.sqrt(sigma2)
    inner = sorted({int(math.floor(stats.norm.ppf(i / bins) * sd)) for i in range(1, bins)})
    edges = [None] + inner + [None]
    probs = _exact_bin_probabilities(sigma2, edges)
    idx = np.searchsorted(np.array(inner, dtype=object), np.asarray(draws, dtype=object), side="right")
    observed = np.bincount(idx.astype(np.int64), minlength=len(probs))
    return stats.chisquare(observed, np.array(probs) * len(draws)).pvalue


@checks("bun2020.lemma16")
@pytest.mark.parametrize("sigma2", [2**40, 2**80 + Fraction(1, 3), Fraction(10**30 + 7, 3)], ids=str)
def test_big_variance_exact_law(sigma2):
    """N_Z(0, sigma2) at large variances, 12,000 seeded draws: chi-square over 40 equal-mass bins against the pmf
    summed exactly in mpmath (p > 1e-4); mean and variance within 4 standard errors."""
    draws = F.sample_discrete_gaussian(sigma2, 12_000, rng=17)
    assert draws.dtype == np.int64
    assert _chi2_pvalue(draws, sigma2) > 1e-4
    sd = math.sqrt(sigma2)
    values = draws.astype(float) / sd
    assert abs(values.mean()) < 4 / math.sqrt(len(values))
    assert abs(values.var() - 1.0) < 4 * math.sqrt(2 / len(values))


@checks("bun2020.lemma16")
@pytest.mark.parametrize("sigma2", [Fraction(1, 3), Fraction(7, 2), 3, 1000, 2**24], ids=str)
def test_big_integer_path_law_where_the_fast_path_also_applies(sigma2):
    """The big-integer sampler forced on small variances (rational ones, and integers the fast path also takes):
    chi-square of 20,000 draws against the exact pmf; for integer variances the fast path's 20,000 draws too, and
    the two samples against each other (two-sample chi-square on the same bins)."""
    p, q = sigma2.numerator, sigma2.denominator
    big = np.array(F._exact_gaussian_draws(p, q, 20_000, np.random.default_rng(3)), dtype=np.int64)
    bins = 12 if math.sqrt(sigma2) > 3 else 6
    assert _chi2_pvalue(big, Fraction(sigma2), bins) > 1e-4
    if q == 1:
        assert F._fast_path(p, q)
        fast = F.sample_discrete_gaussian(p, 20_000, rng=4)
        assert _chi2_pvalue(fast, Fraction(sigma2), bins) > 1e-4
        lo, hi = int(-3 * math.sqrt(p)), int(3 * math.sqrt(p))
        cuts = np.unique(np.linspace(lo, hi, 12).astype(np.int64))
        table = np.array([np.bincount(np.searchsorted(cuts, s, side="right"), minlength=len(cuts) + 1)
                          for s in (big, fast)])
        table = table[:, table.sum(axis=0) > 0]
        assert stats.chi2_contingency(table).pvalue > 1e-4


def test_the_sampler_is_chosen_by_sigma2_alone(monkeypatch):
    """The fast sampler for integers up to 2^24, the big-integer one for everything else (a larger integer, any
    Fraction, even an integral one) -- a function of sigma2 only, in both packages."""
    for impl in (R, F):
        calls = []
        real = impl._exact_gaussian_draws
        monkeypatch.setattr(impl, "_exact_gaussian_draws", lambda *a: calls.append(a[:2]) or real(*a))
        for s2 in (1, 2**24, 2**24 + 1, Fraction(4, 1), Fraction(1, 2), 2**70):
            impl.sample_discrete_gaussian(s2, 3, rng=0)
        assert calls == [(2**24 + 1, 1), (1, 2), (2**70, 1)], impl.__name__


@pytest.mark.equivalence
@pytest.mark.parametrize("sigma2", [2**24 + 1, 2**63 + 5, Fraction(2**90 + 1, 7), Fraction(5, 9), 2**140], ids=str)
def test_seeded_reference_and_fast_big_draws_are_equal(sigma2):
    """Same words, same draws, same Generator state afterwards; int64 up to 2^100, exact Python ints above."""
    g1, g2 = np.random.default_rng(11), np.random.default_rng(11)
    a = R.sample_discrete_gaussian(sigma2, 50, rng=g1)
    b = F.sample_discrete_gaussian(sigma2, 50, rng=g2)
    assert a.tolist() == b.tolist() and a.dtype == b.dtype
    assert a.dtype == (object if sigma2 > 2**100 else np.int64)
    assert g1.bit_generator.state == g2.bit_generator.state
    assert R.sample_discrete_gaussian(sigma2, rng=5) == F.sample_discrete_gaussian(sigma2, rng=5)


@pytest.mark.equivalence
@pytest.mark.parametrize("calibration", ["auto", "analytic"])
@pytest.mark.parametrize("eps, delta", [(1.5e-4, 1e-5), (1e-6, 1e-300), (1e-30, 1e-5)], ids=str)
def test_seeded_gaussian_mechanism_beyond_two_to_the_24_is_equal(eps, delta, calibration):
    """gaussian_mechanism where the grid variance exceeds 2^24 (it used to raise 'epsilon too small'): the grids are
    equal field for field, and seeded reference and fast releases are equal word for word (scalar, vector, 2-d,
    the int64 draws and, at eps = 1e-30 where s2 ~ 2^119, the Python-int draws), leaving the Generator in the same
    state.  With calibration='analytic' fast's sigma differs from the reference's by ~1e-13 (it bisects on the
    rounded-up profile), so an s2 = ceil((sigma / 2^k)^2) of 40-120 bits differed in its low bits (20 of 40 random
    grids); s2 rounded up to 25 significant bits makes them equal."""
    for value in (0.0, np.arange(5.0), np.full((2, 3), -1e6)):
        grids = [impl.gaussian_grid(1.0, eps, delta, dimension=np.size(value), calibration=calibration)
                 for impl in (R, F)]
        s2 = grids[0].sigma2_grid
        assert s2 > 2**38 and s2 // (s2 & -s2) < 2**25  # at most 25 significant bits
        assert (grids[0].k, s2, grids[0].sensitivity_inflated) == (grids[1].k, grids[1].sigma2_grid,
                                                                  grids[1].sensitivity_inflated)
        g1, g2 = np.random.default_rng(21), np.random.default_rng(21)
        a = R.gaussian_mechanism(value, sensitivity=1.0, epsilon=eps, delta=delta, rng=g1, calibration=calibration)
        b = F.gaussian_mechanism(value, sensitivity=1.0, epsilon=eps, delta=delta, rng=g2, calibration=calibration)
        assert type(a) is type(b) and np.array_equal(a, b) and np.shape(a) == np.shape(value)
        assert g1.bit_generator.state == g2.bit_generator.state


def test_grid_variance_keeps_25_significant_bits():
    """_s2_up: the identity below 2^25 (so every grid of the 10-bit rule, s2 <= 2^24, is unchanged), above it the
    least multiple of 2^(bits - 25) at or above s2 (relative excess < 2^-24), alike in both packages."""
    for x in (1, 2**24, 2**25 - 1, 2**25, 2**25 + 1, 3 * 2**60 + 1, 2**119 - 5, 7**80):
        up = R._s2_up(x)
        assert up == F._s2_up(x) and up >= x and (up - x) * 2**24 < x
        shift = max(0, x.bit_length() - 25)
        assert up % 2**shift == 0 and up - x < 2**shift
        assert (x < 2**25) <= (up == x)


def test_big_draws_use_os_entropy_by_default(monkeypatch):
    """rng=None: the words come from os.urandom (first block) as for the fast path; two calls differ."""
    reads = []
    real = spec.words.os.urandom
    monkeypatch.setattr(spec.words.os, "urandom", lambda n: reads.append(n) or real(n))
    a = F.sample_discrete_gaussian(2**60, 4)
    b = F.sample_discrete_gaussian(2**60, 4)
    assert reads and a.tolist() != b.tolist()


def test_bad_variances_are_refused_identically():
    """Zero or negative Fractions: ValueError naming sigma2; floats stay refused (TypeError), as before."""
    for impl in (R, F):
        for bad in (Fraction(0), Fraction(-1, 3)):
            with pytest.raises(ValueError, match="sigma2 must be a positive rational"):
                impl.sample_discrete_gaussian(bad, 2, rng=0)
        with pytest.raises(ValueError, match="sigma2 must be an integer >= 1"):
            impl.sample_discrete_gaussian(0, 2, rng=0)
        with pytest.raises(TypeError, match="sigma2 must be an integer-typed number"):
            impl.sample_discrete_gaussian(2.0**40, 2, rng=0)


def test_big_integer_helpers_are_exact():
    """_big_below is uniform by construction (exhaustive over 4-bit words would not reach 64-bit Lemire): check it
    equals _below word for word below 2^64 and is in range above; _big_less decides [W < a/b] exactly for b > 2^64
    (the comparison of a 2-word prefix with a/b, checked with Fractions)."""
    words = [int(w) for w in np.random.default_rng(1).integers(0, 2**64, 4000, dtype=np.uint64)]

    class W:
        def __init__(self):
            self.i = 0

        def next(self):
            self.i += 1
            return words[self.i - 1]

    for n in (2, 3, 1000, 2**63 + 1, 2**64 - 1):
        a, b = W(), W()
        assert [R._big_below(a, n) for _ in range(50)] == [R._below(b, n) for _ in range(50)] and a.i == b.i
    w = W()
    for n in (2**64 + 1, 3**50, 2**200 - 3):
        assert all(0 <= R._big_below(w, n) < n for _ in range(50))
    for a_, b_ in ((1, 3**60), (3**59, 3**60), (2**70 + 1, 2**71)):
        w = W()
        start = w.i
        got = R._big_less(w, a_, b_)
        used = words[start:w.i]
        prefix = sum(x << (64 * (len(used) - 1 - j)) for j, x in enumerate(used))
        low, high = Fraction(prefix, 2 ** (64 * len(used))), Fraction(prefix + 1, 2 ** (64 * len(used)))
        assert (high <= Fraction(a_, b_)) if got else (low >= Fraction(a_, b_))


# ---------------------------------------------------------------------------------------------------------
# HS-StL on the run's grid (centroid_run_grid): the big-integer sampler lets the grid follow the sensitivity
# ---------------------------------------------------------------------------------------------------------
import fast.private_boosting as FPB  # noqa: E402
import reference.private_boosting as RPB  # noqa: E402
from spec.boosting_contract import check_grid_inflation as _inflation_ratio  # noqa: E402

PAPER_N = 1_732_084_834  # hsstl_n_min(1, 1e-6, alpha 0.1, beta 0.05, tau 0.1), continuous


@checks("bun2020.thm26.rho", "bun2020.thm26.privacy-n")
@pytest.mark.parametrize("impl", [RPB, FPB], ids=["reference", "fast"])
def test_hsstl_run_grid_charges_within_one_percent_of_the_continuous_rho(impl):
    """At the paper's n the run's charged rho is x1.0050 / x1.0040 / x1.0063 the continuous 8T/(kappa n sigma)^2 at
    d = 1 / 10 / 100 (the old grid 11 bits below sigma: x5.2 / x26 / x193), and epsilon = 1 is reached: at
    n = 1,736,461,612 for d = 1 (+0.25 %; the old code refused: 'cannot be reached at any n')."""
    p = impl.hsstl_parameters(0.1, 0.05, 0.1)
    cont = impl.hsstl_rho(PAPER_N, 0.1, 0.05, 0.1)
    for d in (1, 10, 100):
        assert 1.0 < impl.hsstl_rho(PAPER_N, 0.1, 0.05, 0.1, d=d) / cont < 1.0078
        grid = impl.centroid_run_grid(p["sigma"], impl.centroid_sensitivity(PAPER_N, p["kappa"]), d)
        assert grid.sigma2_grid > 2**24  # drawn by the big-integer sampler
        assert _inflation_ratio(grid.k, grid.granularity, impl.centroid_sensitivity(PAPER_N, p["kappa"]), d) \
            <= 2.0**-8
    expected = {1: 1_736_461_612, 10: 1_735_543_151, 100: 1_737_559_265}
    for d, n in expected.items():
        assert impl.hsstl_n_min(1.0, 1e-6, 0.1, 0.05, 0.1, d=d) == n
        assert impl.hsstl_privacy(n, 0.1, 0.05, 0.1, 1e-6, d=d) <= 1.0 < impl.hsstl_privacy(n - 1, 0.1, 0.05, 0.1,
                                                                                           1e-6, d=d)
        assert n < 1.005 * PAPER_N


@checks("bun2020.thm26.privacy-n")
@pytest.mark.parametrize("impl", [RPB, FPB], ids=["reference", "fast"])
def test_hsstl_n_min_reports_only_sizes_the_run_accepts(impl):
    """hsstl_n_min(2, d=1) was 2,561,195,139, a size at which lazy_bregman_boost itself refused to run (its grid
    2^-23 inflated Delta = 6.2e-8 by x1.9).  Now 882,931,734, and at every size hsstl_n_min reports (eps 1, 2, 5;
    d = 1, 10, 100) the run's own grid passes its inflation check and its rho is what hsstl_rho reports."""
    p = impl.hsstl_parameters(0.1, 0.05, 0.1)
    assert impl.hsstl_n_min(2.0, 1e-6, 0.1, 0.05, 0.1, d=1) == 882_931_734
    for eps in (1.0, 2.0, 5.0):
        for d in (1, 10, 100):
            n = impl.hsstl_n_min(eps, 1e-6, 0.1, 0.05, 0.1, d=d)
            sens = impl.centroid_sensitivity(n, p["kappa"])
            grid = impl.centroid_run_grid(p["sigma"], sens, d)
            assert _inflation_ratio(grid.k, grid.granularity, sens, d) < 2.0**-8
            assert impl.hsstl_rho(n, 0.1, 0.05, 0.1, d=d) >= p["T"] * grid.rho


def _coarse_sample():
    """2000 points in the unit ball, d = 4 (where the old grid refused sigma 4.0: 2^-9 sqrt(4) ~ Delta)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 4))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * 1.01
    return X, np.where(X[:, 0] >= 0, 1, -1)


@checks("bun2020.alg4")
def test_lazy_bregman_boost_runs_on_a_fine_grid_word_for_word():
    """sigma = 4.0 at n = 2000, d = 4 was refused ('sigma is too large for the exact discrete Gaussian grid at this
    n': rho x3.9).  The run's grid is now 2^-17 (s2 = 2^38, the big-integer sampler): rho within 1.0078 of the
    continuous T Delta^2 / (2 sigma^2), and seeded reference and fast runs are equal, word for word."""
    X, y = _coarse_sample()
    fast = FPB.lazy_bregman_boost(X, y, 3, 0.5, 0.1, 4.0, rng=np.random.default_rng(8))
    ref = RPB.lazy_bregman_boost(X, y, 3, 0.5, 0.1, 4.0, rng=np.random.default_rng(8))
    cont = 3 * FPB.centroid_sensitivity(2000, 0.5) ** 2 / (2 * 4.0**2)
    assert fast.rho == ref.rho and 1.0 < fast.rho / cont < 1.0078
    grid = FPB.centroid_run_grid(4.0, FPB.centroid_sensitivity(2000, 0.5), 4)
    assert (grid.k, grid.sigma2_grid) == (-17, 2**38)
    np.testing.assert_array_equal(fast.hypotheses, ref.hypotheses)
    assert np.all(fast.hypotheses / grid.granularity == np.round(fast.hypotheses / grid.granularity))
