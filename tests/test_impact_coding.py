"""Impact coding (winvector2015): codes against vtreat's formulas on hand-computed cases, the conventions
(missing, novel, pruned), the jackknife against explicit leave-one-out refits (exact), and the leakage invariant
of split and cross-frame coding by an instrumented test.  Every property runs on both packages."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fast.impact_coding as F
import reference.impact_coding as R
from spec.links import checks
from spec import impact_contract as C

BOTH = [R, F]


def _vtreat_catb(nct, ncf, nt, nf, s):
    """vtreat .mkCatBayes written as in R (normalise P[T|C], then logit difference), in Fractions."""
    s = max(Fraction(s), Fraction(1, 10**4))
    p = Fraction(nt, nt + nf)
    p = min(max(p, Fraction(1, 10**6)), 1 - Fraction(1, 10**6))
    pct = (nct + p * s) / (nt + s)
    pcf = (ncf + (1 - p) * s) / (nf + s)
    ptc = pct * p / (pct * p + pcf * (1 - p))
    return math.log(ptc / (1 - ptc)) - math.log(p / (1 - p))


def _post_bayes(nct, ncf, nt, nf, s=1e-3):
    """The post's bayesCode (log-lift), in Fractions."""
    s = max(Fraction(s), Fraction(1, 1000))
    p = Fraction(nt) / max(Fraction(nt + nf), Fraction(1, 1000))
    pct = (nct + p * s) / (nt + p * s)
    pcf = (ncf + (1 - p) * s) / (nf + (1 - p) * s)
    ptc = pct * p / (pct * p + pcf * (1 - p))
    return math.log(ptc / p)


@checks("winvector2015.impact")
@pytest.mark.parametrize("impl", BOTH)
@pytest.mark.parametrize("case", [(2, 1, 3, 7, 0.0), (0, 4, 3, 7, 0.0), (5, 0, 50, 950, 5.0), (1, 1, 10, 10, 1.0),
                                  (3, 97, 30, 970, 0.5)])
def test_codes_match_vtreat_and_post_formulas_by_hand(impl, case):
    nct, ncf, nt, nf, s = case
    got = impl.bayes_code(nct, ncf, nt, nf, smoothing=s)
    assert got == pytest.approx(_vtreat_catb(nct, ncf, nt, nf, s), rel=1e-12, abs=1e-14)
    got = impl.log_lift_code(nct, ncf, nt, nf, smoothing=max(s, 1e-3))
    assert got == pytest.approx(_post_bayes(nct, ncf, nt, nf, max(s, 1e-3)), rel=1e-12, abs=1e-14)
    # catN on a 0/1 outcome: (sum + s mean)/(n + s) - mean
    mean = Fraction(nt, nt + nf)
    expect = (nct + Fraction(s) * mean) / (nct + ncf + Fraction(s)) - mean if nct + ncf + s > 0 else 0
    assert impl.mean_code(nct + ncf, nct, nt + nf, nt, smoothing=s) == pytest.approx(float(expect), rel=1e-12, abs=1e-15)
    # countCode: floors, log ratio, rare flag
    plus, minus = max(nct, 1e-3), max(ncf, 1e-3)
    assert impl.count_code(nct, ncf).tolist() == pytest.approx(
        [plus, minus, math.log(plus) - math.log(minus), float(max(plus, minus) < 10)], rel=1e-15)


@checks("winvector2015.impact")
@pytest.mark.parametrize("impl", BOTH)
def test_base_rate_level_codes_zero_and_novel_level_default(impl):
    # levels 0 and 1 share the base rate 0.3; level 2 is never seen by the coder
    idx = np.array([0] * 10 + [1] * 20)
    y = np.array([1] * 3 + [0] * 7 + [1] * 6 + [0] * 14)
    coder = impl.fit_coder(idx, y, 3, code="bayes")
    assert np.abs(coder.code[:2, 0]).max() < 1e-4  # exactly 0 up to the 1e-4 smoothing floor
    assert impl.fit_coder(idx, y, 3, code="log_lift").code[:2, 0] == pytest.approx(0.0, abs=1e-4)
    assert impl.fit_coder(idx, y, 3, code="mean", smoothing=0.0).code[:2, 0] == pytest.approx(0.0, abs=1e-15)
    out = impl.apply_coder(coder, np.array([2, -1]))
    assert out.tolist() == [[0.0], [0.0]] and not coder.kept[2] and coder.count[2] == 0
    count = impl.apply_coder(impl.fit_coder(idx, y, 3, code="count"), np.array([-1, 2]))
    assert count.tolist() == [[1e-3, 1e-3, 0.0, 1.0]] * 2


@checks("winvector2015.impact")
@pytest.mark.parametrize("impl", BOTH)
def test_missing_values_are_one_level_of_their_own(impl):
    v = ["b", None, "a", float("nan"), "b", None]
    levels, idx = impl.factorize(v)
    assert levels == ("a", "b", None) and idx.tolist() == [1, 2, 0, 2, 1, 2]
    y = np.array([1, 1, 0, 1, 0, 0])
    coder = impl.fit_coder(idx, y, 3, code="mean")
    assert coder.count.tolist() == [1.0, 2.0, 3.0]
    assert coder.code[2, 0] == pytest.approx(2 / 3 - 0.5)


@checks("winvector2015.sigprune")
@pytest.mark.parametrize("impl", BOTH)
def test_p_values_are_computed_without_pruning(impl):
    """vtreat's score frame reports every level's significance whether or not it prunes; the audited coder left a
    placeholder 1.0 unless rare_sig < 1.  Now p_value is the real test at rare_sig = 1 too, equal to the pruning
    run's, and Fisher's two-sided p (scipy) for a small table; absent levels keep 1 (the empty-row rule)."""
    from scipy import stats

    idx = np.array([0] * 20 + [1] * 60 + [2, 3] + [4] * 60)
    y = np.array([1] * 18 + [0] * 2 + [1] * 30 + [0] * 30 + [1, 0] + [1] * 22 + [0] * 38)
    free = impl.fit_coder(idx, y, 6, code="bayes", rare_sig=1.0)
    pruning = impl.fit_coder(idx, y, 6, code="bayes", rare_sig=0.999999)
    np.testing.assert_allclose(free.p_value, pruning.p_value, rtol=1e-12)
    assert free.p_value[5] == 1.0 and free.count[5] == 0  # absent level
    assert free.p_value[0] < 1e-3 and free.kept.all() == False and free.kept[:5].all()  # noqa: E712
    pos, neg = int(y.sum()), int((1 - y).sum())
    table = [[1, 0], [pos - 1, neg]]  # singleton level 2 (one positive) vs the rest: Fisher
    assert free.p_value[2] == pytest.approx(stats.fisher_exact(table)[1], rel=1e-9)
    np.testing.assert_allclose(free.p_value, impl.group_p_values(
        np.column_stack([np.bincount(idx, y, 6), np.bincount(idx, 1 - y, 6)])[:5], np.array([pos, neg], float))
        .tolist() + [1.0], rtol=1e-12)


@checks("winvector2015.sigprune")
@pytest.mark.parametrize("impl", BOTH)
def test_pruned_and_pooled_levels(impl):
    # level 0: 18/20 positive (kept at 0.05); level 1: 30/60 = the base rate of the rest (pruned, p = 1);
    # levels 2, 3 singletons (pooled; the pool 1+, 1- is not significant); level 4: 22/60 (kept)
    idx = np.array([0] * 20 + [1] * 60 + [2, 3] + [4] * 60)
    y = np.array([1] * 18 + [0] * 2 + [1] * 30 + [0] * 30 + [1, 0] + [1] * 22 + [0] * 38)
    coder = impl.fit_coder(idx, y, 5, code="bayes", rare_count=1, rare_sig=0.05)
    assert coder.kept.tolist() == [True, False, False, False, True]
    assert coder.pooled.tolist() == [False, False, True, True, False]
    assert coder.p_value[1] == 1.0 and coder.p_value[2] == coder.p_value[3] == 1.0
    assert coder.code[1:4, 0].tolist() == [0.0, 0.0, 0.0] and coder.code[0, 0] > 1.0 and coder.code[4, 0] < 0
    # without pruning, the pool (1+, 1-: 2 rows > rare_count) is a coded group of its own
    coder = impl.fit_coder(idx, y, 5, code="bayes", rare_count=1, rare_sig=1.0)
    assert coder.kept.all() and coder.code[2, 0] == coder.code[3, 0]


def _explicit_loo(impl, idx, y, n_levels, target_type, opts):
    """Row i coded by a coder REFIT on the rows other than i (table built from scratch by bincount)."""
    rows = []
    for i in range(idx.shape[0]):
        keep = np.arange(idx.shape[0]) != i
        ii, yy = idx[keep], np.asarray(y)[keep].astype(np.float64)
        if target_type == "binary":
            table = np.column_stack([np.bincount(ii, weights=yy, minlength=n_levels),
                                     np.bincount(ii, weights=1 - yy, minlength=n_levels)])
        else:
            table = np.column_stack([np.bincount(ii, minlength=n_levels).astype(float),
                                     np.bincount(ii, weights=yy, minlength=n_levels),
                                     np.bincount(ii, weights=yy * yy, minlength=n_levels)])
        coder = impl.coder_from_table(table, target_type=target_type, **opts)
        rows.append(impl.apply_coder(coder, idx[i:i + 1])[0])
    return np.array(rows)


@checks("winvector2015.jackknife")
@pytest.mark.parametrize("impl", BOTH)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_jackknife_equals_explicit_leave_one_out_refits_exactly(impl, data):
    n = data.draw(st.integers(2, 24))
    n_levels = data.draw(st.integers(1, 6))
    idx = np.array(data.draw(st.lists(st.integers(0, n_levels - 1), min_size=n, max_size=n)))
    continuous = data.draw(st.booleans())
    opts = {"rare_count": data.draw(st.integers(0, 3)), "rare_sig": data.draw(st.sampled_from([1.0, 0.5, 0.2])),
            "smoothing": data.draw(st.sampled_from([None, 0.0, 2.0]))}
    if continuous:
        y = np.array(data.draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)), dtype=float)
        target_type, opts["code"] = "continuous", "mean"
    else:
        y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
        if y.min() == y.max():
            y[0] = 1 - y[0]
        target_type, opts["code"] = "binary", data.draw(st.sampled_from(["bayes", "log_lift", "count", "mean"]))
    jack = impl.jackknife_codes(idx, y, n_levels, target_type=target_type, **opts)
    loo = _explicit_loo(impl, idx, y, n_levels, target_type, opts)
    assert np.array_equal(jack, loo), (jack, loo)  # exact: the same numbers through the same formulas


@checks("winvector2015.jackknife")
def test_jackknife_singleton_level_is_coded_as_novel():
    idx = np.array([0, 0, 0, 1, 1, 2])
    y = np.array([1, 0, 1, 0, 0, 1])
    for impl in BOTH:
        assert impl.jackknife_codes(idx, y, 3, code="bayes")[5, 0] == 0.0


class _Tracer:
    """Wraps the coder builder: records the table each coder saw and returns a coder whose every level codes
    the coder's serial number, so each output row names the coder that coded it."""

    def __init__(self, original):
        self.original = original
        self.tables = []

    def __call__(self, table, *args, **kwargs):
        coder = self.original(table, *args, **kwargs)
        serial = float(len(self.tables))
        self.tables.append(np.array(table))
        return type(coder)(count=coder.count, pooled=coder.pooled, p_value=coder.p_value, kept=coder.kept,
                           code=np.full_like(coder.code, serial), default=np.full_like(coder.default, serial))


def _rows_seen(table):
    """Rows i with y_i = 2^i: the table's sum_y column, summed over levels, is the set of rows seen (bits)."""
    total = int(math.fsum(table[:, 1]))
    return {i for i in range(64) if total >> i & 1}


@checks("winvector2015.crossframe", "winvector2015.split")
@pytest.mark.parametrize("impl", BOTH)
@pytest.mark.parametrize("construction", ["cross", "split"])
def test_no_row_is_coded_by_a_coder_that_saw_it(impl, construction, monkeypatch):
    rng = np.random.default_rng(5)
    n, n_levels = 40, 5
    idx = rng.integers(0, n_levels, n)
    y = 2.0 ** np.arange(n)  # the tracer outcome: every row is one bit of sum_y
    if impl is F:
        tracer = _Tracer(F._coder)
        monkeypatch.setattr(F, "_coder", lambda tab, *a, **k: tracer(tab, *a, **k))
    else:
        tracer = _Tracer(R.coder_from_table)
        monkeypatch.setattr(R, "coder_from_table", tracer)
    opts = {"target_type": "continuous", "code": "mean"}
    if construction == "cross":
        folds = rng.integers(0, 4, n)
        out = impl.cross_codes(idx, y, n_levels, folds, **opts)
        model_rows = np.arange(n)
    else:
        coding = rng.random(n) < 0.5
        out = impl.split_codes(idx, y, n_levels, coding, **opts)
        model_rows = np.flatnonzero(~coding)
        assert np.isnan(out[coding]).all()
    assert len(tracer.tables) == (4 if construction == "cross" else 1)
    seen = [_rows_seen(t) for t in tracer.tables]
    for i in model_rows:
        coder = int(out[i, 0])
        assert i not in seen[coder], f"row {i} coded by coder {coder}, which saw it"
    if construction == "cross":  # and each coder saw every row outside its fold
        for i in range(n):
            assert all(i in seen[int(out[j, 0])] for j in range(n) if folds[j] != folds[i])


@pytest.mark.parametrize("impl", BOTH)
def test_bad_inputs_name_the_argument(impl):
    idx = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="y must be binary"):
        impl.naive_codes(idx, np.array([0, 1, 2, 1]), 2)
    with pytest.raises(ValueError, match="both classes"):
        impl.naive_codes(idx, np.array([1, 1, 1, 1]), 2)
    with pytest.raises(ValueError, match="NaN"):
        impl.naive_codes(idx, np.array([0, 1, np.nan, 1]), 2)
    with pytest.raises(ValueError, match="rare_sig must be a number in"):
        impl.naive_codes(idx, np.array([0, 1, 0, 1]), 2, rare_sig=0)
    with pytest.raises(ValueError, match="folds must define k >= 2"):
        impl.cross_codes(idx, np.array([0, 1, 0, 1]), 2, np.zeros(4, dtype=int))
    with pytest.raises(ValueError, match="epsilon must be"):
        impl.laplace_count_table(np.ones((2, 2)), epsilon=-1.0)
    with pytest.raises(ValueError, match="v must not be empty"):
        impl.factorize(np.array([], dtype=object))
    with pytest.raises(TypeError, match="one kind"):
        impl.factorize(["a", 1])
    with pytest.raises(TypeError, match="hashable"):
        impl.factorize([["a"], ["b"]])


@checks("winvector2015.laplace")
@pytest.mark.parametrize("impl", BOTH)
def test_noisy_counts_are_floored_and_charged(impl):
    from fast.accounting import BudgetAccountant, BudgetExceeded
    table = np.array([[0.0, 0.0], [1.0, 0.0], [100.0, 3.0]] * 50)
    acc = BudgetAccountant(1.0)
    noisy = impl.laplace_count_table(table, epsilon=0.5, rng=3, accountant=acc)
    assert noisy.min() >= 1e-3 and (noisy == 1e-3).any()  # the post's floor max(., 1e-3)
    assert float(acc.spent_epsilon) == 0.5
    impl.laplace_count_table(table, epsilon=0.5, rng=4, accountant=acc)
    with pytest.raises(BudgetExceeded):
        impl.laplace_count_table(table, epsilon=0.5, rng=5, accountant=acc)


# --------------------------------------------------------------------------------------------- impact: p-values
def _fisher_exact(a, b, c, d):
    """Two-sided Fisher p (R's rule) in exact rationals: weights relative to w(a) by the ratio recurrence."""
    r1, r2, c1 = a + b, c + d, a + c
    low, high = max(0, c1 - r2), min(r1, c1)
    weights = {a: Fraction(1)}
    for x in range(a, high):
        weights[x + 1] = weights[x] * Fraction((r1 - x) * (c1 - x), (x + 1) * (r2 - c1 + x + 1))
    for x in range(a, low, -1):
        weights[x - 1] = weights[x] * Fraction(x * (r2 - c1 + x), (r1 - x + 1) * (c1 - x + 1))
    cut = Fraction(C.FISHER_REL_ERR)
    return float(sum(w for w in weights.values() if w <= cut) / sum(weights.values()))


@pytest.mark.parametrize("a, b, c, d", [
    (7, 152, 25248, 29776), (2, 199, 13884, 28702), (5, 117, 22833, 13823),  # log-gamma form: ~6e-11 off
    (47, 1, 3_000_000, 2_950_000),  # log-gamma form: 1.2e-8 off (above the pairs' 1e-9)
    (0, 3, 5, 9), (10, 10, 10, 10), (3, 0, 0, 4), (1, 0, 19, 1980), (30, 2, 5, 400), (9, 60, 1200, 30),
])
def test_fisher_matches_exact_rationals(a, b, c, d):
    got = F.group_p_values(np.array([[a, b]], dtype=float), np.array([a + c, b + d], dtype=float))[0]
    assert got == pytest.approx(_fisher_exact(a, b, c, d), rel=1e-13, abs=0)


def test_p_values_match_reference_and_shared_totals():
    rng = np.random.default_rng(0)
    groups = np.column_stack([rng.integers(0, 40, 60), rng.integers(0, 40, 60)]).astype(float)
    groups[:5] += 0.4  # noisy counts: rounded for the test
    totals = groups.sum(axis=0) + [50.0, 120.0]
    shared = F.group_p_values(groups, totals)
    per_row = F.group_p_values(groups, np.tile(totals, (60, 1)))
    np.testing.assert_array_equal(shared, per_row)
    np.testing.assert_allclose(shared, R.group_p_values(groups, totals), rtol=1e-12, atol=1e-300)


# --------------------------------------------------------------------------------------------- impact: codes
@pytest.mark.parametrize("name", ["bayes_code", "log_lift_code", "mean_code"])
@pytest.mark.parametrize("smoothing", [0.0, 1e-3, 2.5])
def test_codes_on_scalar_totals_equal_reference_and_broadcast(name, smoothing):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 60, 200).astype(float)
    b = rng.integers(0, 60, 200).astype(float)
    a[:3] = 0.0
    if name == "mean_code":
        args = (a + b, a, float((a + b).sum()), float(a.sum()))
    else:
        args = (a, b, float(a.sum()), float(b.sum()))
    copies = [np.copy(x) for x in args]
    got = getattr(F, name)(*args, smoothing=smoothing)
    for x, x0 in zip(args, copies):
        np.testing.assert_array_equal(x, x0)  # inputs never modified
    broadcast = getattr(F, name)(*(np.broadcast_to(x, (200,)).copy() for x in args), smoothing=smoothing)
    np.testing.assert_allclose(got, broadcast, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(got, getattr(R, name)(*args, smoothing=smoothing), rtol=1e-12, atol=1e-13)
    assert got.dtype == np.float64 and got.shape == (200,)


def test_code_of_scalars_is_a_zero_d_array():
    for name in ("bayes_code", "log_lift_code", "mean_code"):
        out = getattr(F, name)(5, 3, 50, 40)
        ref = getattr(R, name)(5, 3, 50, 40)
        assert isinstance(out, np.ndarray) and out.shape == () == ref.shape
        assert float(out) == pytest.approx(float(ref), rel=1e-12, abs=1e-14)
    np.testing.assert_allclose(F.count_code(np.array([0.0, 3.0, 12.0]), 4.0), R.count_code([0.0, 3.0, 12.0], 4.0),
                               rtol=1e-13, atol=1e-15)


def test_mean_code_fused_pass_equals_checked_path():
    rng = np.random.default_rng(2)
    n = rng.integers(0, 9, 301).astype(float)  # zeros: the checked path codes them 0
    sy = rng.normal(size=301) * n
    strided = np.column_stack([n, sy])  # columns: non-contiguous, so the numpy path
    for s in (0.0, 1.5):
        fused = F.mean_code(n, sy, 7.0, 3.0, smoothing=s)
        checked = F.mean_code(strided[:, 0], strided[:, 1], 7.0, 3.0, smoothing=s)
        np.testing.assert_array_equal(fused, checked)
        np.testing.assert_allclose(fused, R.mean_code(n, sy, 7.0, 3.0, smoothing=s), rtol=1e-13, atol=1e-15)
    signed_zero = (np.array([-0.0, 2.0]), np.array([1.0, 3.0]), 4.0, 4.0)  # -0.0: the checked path, coded 0
    assert F.mean_code(*signed_zero).tolist() == R.mean_code(*signed_zero).tolist() == [0.0, 0.5]


@pytest.mark.parametrize("count, sum_y, message", [
    ([1.0, -1.0], [1.0, 1.0], "count must hold counts >= 0"),
    ([1.0, np.inf], [1.0, 1.0], "count must hold finite numbers"),
    ([np.nan, 1.0], [1.0, 1.0], "count must hold finite numbers"),
    ([1.0, 1.0], [1.0, np.nan], "sum_y must hold finite numbers"),
    ([1.0, 1.0], [-np.inf, 1.0], "sum_y must hold finite numbers"),
])
def test_mean_code_fused_pass_raises_the_contract_errors(count, sum_y, message):
    for impl in (F, R):
        with pytest.raises(ValueError, match=message):
            impl.mean_code(np.array(count), np.array(sum_y), 4.0, 4.0)


def test_coder_from_table_equals_reference_with_absent_and_pooled_levels():
    table = np.array([[3.0, 1.0], [0.0, 0.0], [1.0, 3.0], [40.0, 2.0], [1.0, 0.0], [12.0, 30.0]])
    for opts in ({}, {"rare_count": 1}, {"rare_sig": 0.3}, {"code": "count"}, {"code": "log_lift"}, {"code": "mean"}):
        got, ref = F.coder_from_table(table, **opts), R.coder_from_table(table, **opts)
        for field in ("count", "pooled", "kept"):
            np.testing.assert_array_equal(getattr(got, field), getattr(ref, field))
        np.testing.assert_allclose(got.p_value, ref.p_value, rtol=1e-12)
        np.testing.assert_allclose(got.code, ref.code, rtol=1e-12, atol=1e-13)


# --------------------------------------------------------------------------------------------- impact: levels
@pytest.mark.parametrize("column", [["a", 1], ["x", b"x"], [[1], [2]], ["a", 1.5, None]])
def test_factorize_shortcut_keeps_the_contract_errors(column):
    with pytest.raises(TypeError) as fast_error:
        F.factorize(column)
    with pytest.raises(TypeError) as ref_error:
        R.factorize(column)
    assert str(fast_error.value) == str(ref_error.value)


def test_factorize_string_columns_equal_reference():
    rng = np.random.default_rng(3)
    names = np.array([f"lv{i:03d}" for i in rng.integers(0, 50, 500)], dtype=object)
    for column in (names, list(names) + [None], np.array(["b", "a", "B", ""], dtype=object)):
        got, ref = F.factorize(column), R.factorize(column)
        assert got[0] == ref[0]
        np.testing.assert_array_equal(got[1], ref[1])


def test_apply_coder_reads_the_default_row_for_novel_levels():
    coder = F.coder_from_table([[3.0, 1.0], [1.0, 3.0], [2.0, 2.0]], code="count")
    codes = F.apply_coder(coder, np.array([2, -1, 0, -1]))
    np.testing.assert_array_equal(codes, np.vstack([coder.code[2], coder.default, coder.code[0], coder.default]))


def test_jackknife_queries_by_bincount_equal_reference():
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 40, 400)
    idx[idx == 7] = 8  # a level never seen
    y = (rng.random(400) < 0.2 + 0.6 * (idx % 3 == 0)).astype(np.int64)
    for opts in ({}, {"rare_count": 2, "rare_sig": 0.5}, {"code": "count"}):
        np.testing.assert_allclose(F.jackknife_codes(idx, y, 40, **opts), R.jackknife_codes(idx, y, 40, **opts),
                                   rtol=1e-9, atol=1e-12)
