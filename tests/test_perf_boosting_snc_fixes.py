"""Issue 15: the performance fixes of fast.private_boosting and fast.snc keep their semantics.

private_boosting:
* the compiled column fsum (boost's vote, z_bar) is math.fsum bit for bit, exceptions included;
* the fused contracts (centroid, game_loss, stump_scores) give the contract's values and raise the contract's error
  in the contract's order (a row at the unit-ball boundary decided by the contract's own norms);
* stump scores by threshold buckets (linear count and binary search) equal the per-feature sort and the reference;
* report-noisy-max's int64 argmax equals the exact Python-integer argmax on the same words, and a grid score past
  float64 (tiny sensitivity) is taken exactly, as the reference takes it;
* pythia by selection is the (margin, index) sort's set and theta (ties, signed zeros);
* sb_nxm and centroid_grid (memoised) are unchanged.

snc:
* class_allocation in O(C log range) is the greedy largest-gap allocation of the reference, ties included;
* class_proportional_init draws the same indices as before (same per-class index arrays, same generator calls);
* sne_probabilities / nca_correct_probabilities by the fused row pass agree with the materialised log-sum-exp
  formulas, including rows whose same-label mass underflows next to the nearest neighbour.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.private_boosting as F
import reference.private_boosting as R
from fast import _boosting_kernels as K


# ------------------------------------------------------------------------------------------------ column fsums
def _fsum_or_error(column):
    try:
        return math.fsum(column)
    except (ValueError, OverflowError) as error:
        return type(error)


def _columns_or_error(values):
    try:
        return F._column_fsums(values)
    except (ValueError, OverflowError) as error:
        return type(error)


def _same_float(got, want) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def _check_columns(values):
    values = np.asarray(values, dtype=np.float64)
    wants = [_fsum_or_error(values[:, k].tolist()) for k in range(values.shape[1])]
    first_error = next((w for w in wants if isinstance(w, type)), None)
    got = _columns_or_error(values)
    if first_error is not None:
        assert got is first_error
        return
    assert not isinstance(got, type)
    for g, w in zip(got.tolist(), wants):
        assert _same_float(g, w), (g, w)


_ADVERSARIAL = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0**-53, -(2.0**-53), 2.0**-54, 1e16, -1e16, 1e-16, 5e-324, -5e-324,
                     2.0**-1022, 1e308, -1e308, 1.7976931348623157e308, 3.0, 0.1]),
)


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 40)), elements=_ADVERSARIAL))
def test_column_fsums_equal_math_fsum_on_adversarial_columns(values):
    _check_columns(values)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 12)), elements=st.one_of(
    _ADVERSARIAL, st.sampled_from([math.inf, -math.inf, math.nan]))))
def test_column_fsums_special_values_and_errors_as_math_fsum(values):
    _check_columns(values)


@pytest.mark.parametrize("T", [1, 2, 3, 10, 41])
def test_column_fsums_random_blocks_and_cancellation(T):
    rng = np.random.default_rng(T)
    n = 3 * K._COLUMN_BLOCK + 17  # several blocks and a partial one
    cases = [rng.normal(size=(T, n)),
             rng.normal(size=(T, n)) * 10.0 ** rng.integers(-30, 30, size=(T, n)),
             rng.integers(-4, 5, size=(T, n)) * 2.0 ** rng.integers(-60, 3, size=(T, n)),
             np.where(rng.random((T, n)) < 0.5, 1.0, -1.0) * rng.choice([1.0, 2.0**-53, 1e16, 1e-16, 2.0**-1074],
                                                                          size=(T, n))]
    half_ties = np.zeros((T, n))  # x + 2^-53 (+ 2^-60): exact ties and near ties of the final rounding
    half_ties[0] = 1.0
    if T > 1:
        half_ties[1] = 2.0**-53
    if T > 2:
        half_ties[2, ::2] = 2.0**-60
    cases.append(half_ties)
    cancel = cases[0].copy()  # rows in +-pairs: exact zeros, and sums of one subnormal where it is added
    cancel[1::2] = -cancel[0::2][: cancel[1::2].shape[0]]
    if T % 2 == 0:
        cancel[-1, ::5] += 2.0**-1074 * (1 + np.arange(cancel[-1, ::5].shape[0]) % 3)
    cases.append(cancel)
    for values in cases:
        _check_columns(values)
        assert _boost_vote(values) == _vote_or_error(values)
    _check_columns(cases[0][:, ::3])  # a strided view


def test_column_fsums_half_even_and_overflow():
    _check_columns(np.array([[1e-16], [1.0], [1e16]]))  # CPython's own half-even example
    _check_columns(np.array([[1e308, 1.0], [1e308, 2.0], [-1e308, 3.0]]))  # intermediate overflow: OverflowError
    _check_columns(np.array([[math.inf, 1.0], [-math.inf, 2.0]]))  # ValueError
    _check_columns(np.array([[-0.0, 0.0], [-0.0, -0.0]]))


def _vote_or_error(values):
    T = values.shape[0]
    try:
        return [1 if math.fsum(values[:, i].tolist()) / T >= 0 else -1 for i in range(values.shape[1])]
    except (ValueError, OverflowError) as error:
        return type(error)


def _boost_vote(values):
    """boost's vote on hypotheses that return the given (T, n) values."""
    H, vote = F.boost(np.zeros((1, 1)), [1], values.shape[0], lambda X, y, H: np.ones(1),
                      lambda X, y, w, it=iter(range(values.shape[0])): (lambda r: (lambda P: values[r]))(next(it)))
    try:
        got = vote(np.zeros((values.shape[1], 1)))
    except (ValueError, OverflowError) as error:
        return type(error)
    assert got.dtype == np.int8
    return got.tolist()


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 30)), elements=st.one_of(
    _ADVERSARIAL, st.sampled_from([2.0**-1074, -(2.0**-1074), 3 * 2.0**-1074, -(2.0**-1073)]))))
def test_boost_vote_signs_equal_the_fsum_mean_on_adversarial_columns(values):
    assert _boost_vote(values) == _vote_or_error(values)


@pytest.mark.parametrize("special", [math.inf, -math.inf, math.nan])
def test_boost_vote_special_values_as_math_fsum(special):
    values = np.array([[1.0, special, -1.0, 2.0], [special, 1.0, -1.0, -math.inf if special == math.inf else 0.0]])
    assert _boost_vote(values) == _vote_or_error(values)
    big = np.array([[1e308, 1.0], [1e308, -2.0], [-1e308, 0.5]])  # intermediate overflow: OverflowError
    assert _boost_vote(big) == _vote_or_error(big) == OverflowError


def test_boost_vote_is_the_fsum_mean_sign():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 3)) / 3.0
    y = np.where(X[:, 0] > 0, 1, -1)
    T = 6
    zs = [rng.normal(size=3) for _ in range(T)]
    tiny = 2.0**-1074  # means that underflow to -0.0: sgn(-0.0) = +1 as in math.fsum(...) / T >= 0
    zs[0] = np.array([tiny, 0.0, 0.0])
    it = iter(zs)

    def weak(X, y, w):
        z = next(it)
        return lambda P: np.asarray(P) @ z

    H, vote = F.boost(X, y, T, lambda X, y, H: np.ones(len(y)), weak)
    pts = np.vstack([X, [[-1.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]])
    values = np.array([h(pts) for h in H])
    want = [1 if math.fsum(values[:, i]) / T >= 0 else -1 for i in range(pts.shape[0])]
    got = vote(pts)
    assert got.dtype == np.int8 and got.tolist() == want
    it = iter(zs)
    _, vote_r = R.boost(X, y, T, lambda X, y, H: np.ones(len(y)), weak)
    assert vote_r(pts).tolist() == want


# ------------------------------------------------------------------------------------------ fused contracts
def _raised(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except (ValueError, TypeError, OverflowError) as error:
        return (type(error), str(error))


def _same_outcome(a, b, rtol=1e-12, atol=1e-15):
    if a[0] != "ok" or b[0] != "ok":
        assert a == b
        return
    np.testing.assert_allclose(a[1], b[1], rtol=rtol, atol=atol)


def _unit_rows(rng, n, d, scale=0.99):
    X = rng.normal(size=(n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True) * scale


@pytest.mark.parametrize("label_dtype", [np.int8, np.int32, np.int64, np.float64, np.int16, "list"])
def test_centroid_fused_equals_the_contract_path(label_dtype):
    rng = np.random.default_rng(1)
    n, d = 3000, 7
    X = _unit_rows(rng, n, d)
    y = np.where(rng.random(n) < 0.5, -1, 1)
    y = y.tolist() if label_dtype == "list" else y.astype(label_dtype)
    w = rng.random(n)
    w /= w.sum()
    z = F.centroid(X, y, w)
    assert z.dtype == np.float64 and z.shape == (d,)
    want = (w * np.asarray(y, dtype=np.float64)) @ X
    np.testing.assert_allclose(z, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(F.centroid(X[:50], np.asarray(y)[:50], w[:50] / math.fsum(w[:50])),
                               R.centroid(X[:50], np.asarray(y)[:50], w[:50] / math.fsum(w[:50])),
                               rtol=1e-12, atol=1e-15)
    Xf = np.asfortranarray(X)  # another layout: the contract path, same values
    np.testing.assert_allclose(F.centroid(Xf, y, w), z, rtol=1e-12, atol=1e-15)


def _bad_centroid_inputs():
    rng = np.random.default_rng(2)
    X = _unit_rows(rng, 64, 3)
    y = np.where(np.arange(64) % 2 == 0, 1, -1)
    w = np.full(64, 1 / 64)
    nan_X = X.copy()
    nan_X[5, 1] = np.nan
    big = X.copy()
    big[7] = [1.5, 0.0, 0.0]
    bad_y = y.copy()
    bad_y[3] = 2
    neg_w = w.copy()
    neg_w[0] = -1e-3
    neg_w[1] += 1e-3
    return [
        (nan_X, bad_y, w),  # finiteness first
        (big, bad_y, w),  # labels before the unit ball
        (big, y, neg_w),  # the unit ball before the weights
        (X, y, neg_w),
        (X, y, w * 2),  # not a distribution
        (X, y, np.full(63, 1 / 63)),  # wrong length (after the sum test)
        (X, y[:-1], w),
        (X, y.astype(bool), w),
        (X, y, np.full(64, np.inf)),
        (X, y, w.astype(np.float32)),
        (X.astype(np.int64), y, w),
        ("X", y, w),
        (X[:, :, None], y, w),
        (X, y, np.full(64, 1e308)),  # the exact sum overflows: math.fsum's OverflowError
    ]


@pytest.mark.parametrize("case", range(len(_bad_centroid_inputs())))
def test_centroid_bad_inputs_raise_the_contracts_error(case):
    X, y, w = _bad_centroid_inputs()[case]
    _same_outcome(_raised(F.centroid, X, y, w), _raised(R.centroid, X, y, w))


def test_centroid_rows_at_the_unit_sphere_decided_by_the_contract():
    d = 4
    c = 1.0 + 1e-9
    rng = np.random.default_rng(5)
    base = rng.normal(size=d)
    base /= np.linalg.norm(base)
    for scale in (c, math.nextafter(c, 0.0), math.nextafter(c, 2.0), 1.0, c * (1 + 1e-15), c * (1 - 1e-15)):
        X = np.vstack([base * scale, base * 0.5])
        y, w = np.array([1, -1]), np.array([0.5, 0.5])
        _same_outcome(_raised(F.centroid, X, y, w), _raised(R.centroid, X, y, w))
        _same_outcome(_raised(F.noisy_centroid, X, y, w, 0.0), _raised(R.noisy_centroid, X, y, w, 0.0))


def test_unit_ball_limit_is_below_the_contract_threshold():
    for d in (1, 2, 50, 10**4):
        lim = K.unit_ball_limit(1e-9, d)
        assert lim < (1 + 1e-9) ** 2
        assert math.sqrt(lim * (1 + 2 * d * 2.0**-53)) <= 1 + 1e-9
    assert K.unit_ball_limit(1e-9, 10**13) == 0.0


@settings(max_examples=150, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 30), elements=st.one_of(
    st.floats(-5, 5), st.sampled_from([-1.0, 1.0, -0.0, 0.0, 1e300, -1e300, 5e-324]))),
    st.sampled_from([np.int8, np.int64, np.float64, np.int32]), st.integers(0, 2**31))
def test_game_loss_one_pass_is_the_expression_bit_for_bit(h, dtype, seed):
    y = np.where(np.random.default_rng(seed).random(h.shape[0]) < 0.5, -1, 1).astype(dtype)
    got = F.game_loss(h, y)
    want = 1.0 - np.abs(np.clip(h, -1.0, 1.0) - y.astype(np.int8)) / 2.0
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("h, y", [([0.5, np.nan], [1, 2]), ([0.5, np.inf], [1, 1]), ([0.5, 0.2], [1, 0]),
                                  ([0.5, 0.2], [1.0, 1.5]), ([0.5], [1, 1]), ([], []), ("ab", [1, 1]),
                                  ([0.5, 0.2], [True, False]), ([[0.5]], [1])])
def test_game_loss_bad_inputs_as_the_contract(h, y):
    _same_outcome(_raised(F.game_loss, h, y), _raised(R.game_loss, h, y), rtol=0.0, atol=0.0)


# ------------------------------------------------------------------------------------------------ stump scores
def _stump_problem(rng, n, d, m, grid=False):
    X = rng.normal(size=(n, d))
    if grid:
        X = np.round(X * 2) / 2  # many x equal to thresholds
    y = np.where(rng.random(n) < 0.5, -1, 1)
    w = rng.random(n)
    w /= w.sum()
    thr = np.round(rng.normal(size=(d, m)) * 2) / 2
    if m > 2:
        thr[:, 1] = thr[:, 0]  # duplicated thresholds
        thr[0, 2] = -0.0
    return X, y, w, thr


@pytest.mark.parametrize("n, d, m", [(200, 3, 1), (200, 3, 5), (300, 4, K.LINEAR_THRESHOLDS),
                                     (600, 2, K.LINEAR_THRESHOLDS + 1), (500, 2, 200), (7, 2, 30), (1, 1, 3)])
def test_stump_buckets_equal_the_sorted_method_and_the_reference(n, d, m):
    rng = np.random.default_rng(n + d + m)
    X, y, w, thr = _stump_problem(rng, n, d, m, grid=True)
    got = F.stump_scores(X, y, w, thr)
    v = w * y
    sorted_q = F._sorted_stump_scores(X, v, thr)
    np.testing.assert_allclose(got, sorted_q, rtol=1e-12, atol=1e-15)
    direct = np.array([[math.fsum(v * np.where(X[:, j] > thr[j, t], 1.0, -1.0)) for t in range(m)] for j in range(d)])
    np.testing.assert_allclose(got, direct, rtol=1e-12, atol=1e-14)
    if n * d * m <= 4000:
        np.testing.assert_allclose(got, R.stump_scores(X, y, w, thr), rtol=1e-12, atol=1e-14)
    for linear in (True, False):  # both bucket searches, whatever m is
        perm = np.argsort(thr, axis=1, kind="stable")
        ts = np.take_along_axis(thr, perm, axis=1)
        B = np.zeros((d, m + 1))
        assert K.stump_buckets(X, v, ts, B, linear) == K.OK
        want = np.stack([np.bincount(np.searchsorted(ts[j], X[:, j], side="left"), weights=v, minlength=m + 1)
                         for j in range(d)])
        np.testing.assert_allclose(B, want, rtol=1e-12, atol=1e-15)


def test_stump_scores_other_layouts_and_bad_inputs():
    rng = np.random.default_rng(9)
    X, y, w, thr = _stump_problem(rng, 100, 3, 6)
    want = F.stump_scores(X, y, w, thr)
    np.testing.assert_allclose(F.stump_scores(np.asfortranarray(X), y.astype(np.int16), w, thr.astype(np.float32)),
                               F._sorted_stump_scores(X, w * y, thr.astype(np.float32).astype(np.float64)),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(F.stump_scores(X[:, ::-1], y, w, thr[::-1]), want[::-1], rtol=1e-12, atol=1e-15)
    bad_X = X.copy()
    bad_X[3, 2] = np.inf
    bad_y = y.copy()
    bad_y[0] = 3
    for args in [(bad_X, bad_y, w, thr), (X, bad_y, w, thr), (X, y, w * 3, thr), (X, y, w, thr[:2]),
                 (X, y, w, np.full((3, 2), np.nan)), (X, y, w, np.zeros((3, 0))), (bad_X, y, w * 3, thr)]:
        _same_outcome(_raised(F.stump_scores, *args), _raised(R.stump_scores, *args))


def test_noisy_stump_same_choice_as_reference():
    rng = np.random.default_rng(4)
    X, y, w, thr = _stump_problem(rng, 60, 3, 4)
    for seed in range(5):
        assert F.noisy_stump(X, y, w, thr, 2.0, 0.05, rng=seed) == R.noisy_stump(X, y, w, thr, 2.0, 0.05, rng=seed)


# -------------------------------------------------------------------------------------------- report noisy max
@pytest.mark.parametrize("sens", [1e-3, 0.5, 5e-324, 1e-300])
def test_report_noisy_max_int64_and_exact_paths_agree_with_reference(sens):
    rng = np.random.default_rng(11)
    q = np.concatenate([rng.random(40), [1.0, 1.0, -1.0, 0.0]])
    for seed in range(4):
        assert F.report_noisy_max(q, sens, 1.0, rng=seed) == R.report_noisy_max(q, sens, 1.0, rng=seed)


def _exact_argmax(q, noise, k):
    vals = [round(Fraction(v) / Fraction(2) ** k) + int(b) for v, b in zip(q.tolist(), noise.tolist())]
    return vals.index(max(vals))


def test_noisy_argmax_paths_agree_on_the_same_words():
    rng = np.random.default_rng(12)
    q = np.concatenate([rng.random(500), [0.5 + 2.0**-45, 1.5 * 2.0**-44, -2.5 * 2.0**-44]])  # grid half-ties
    noise = rng.integers(-2**40, 2**40, size=q.shape[0])
    noise[[3, 7]] = noise.max() + 5  # a tie of the noisy scores: the first index
    for k in (-44, -10, 0, 3, 1023):
        assert F._noisy_argmax(q, noise, k) == _exact_argmax(q, noise, k)
    assert F._noisy_argmax(q[::2], noise[::2], -44) == _exact_argmax(q[::2], noise[::2], -44)  # a strided view
    q2 = q.copy()
    q2[9] = 1e300  # its grid value overflows float64 (and int64): the exact path
    for k in (-44, -1100):
        assert F._noisy_argmax(q2, noise, k) == _exact_argmax(q2, noise, k) == 9
    big = np.full(q.shape[0], 2**62, dtype=np.int64)  # draws past the int64-safe bound: the exact path
    big[4] += 1
    assert F._noisy_argmax(q, big, -44) == _exact_argmax(q, big, -44)
    q3 = np.array([2.0**-1074, -(2.0**-1074), 0.0])  # subnormal grid values round to 0
    assert F._noisy_argmax(q3, np.array([0, 0, 0]), 1023) == _exact_argmax(q3, np.array([0, 0, 0]), 1023) == 0


# --------------------------------------------------------------------------------------------------- pythia etc.
def _pythia_oracle(margins, kappa):
    m = list(margins)
    n = len(m)
    in_b = [v < 0.0 for v in m]
    count = sum(in_b)
    theta = 0.0
    rest = [i for i in range(n) if not in_b[i]]
    need = min(len(rest), math.ceil(kappa * n) - count) if count < kappa * n else 0
    if need > 0:
        chosen = sorted(rest, key=lambda i: (m[i], i))[:need]
        for i in chosen:
            in_b[i] = True
        theta = m[chosen[-1]]
    return np.array(in_b), theta


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 40), elements=st.sampled_from([-0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 0.1])),
       st.floats(0.01, 0.99))
def test_pythia_selection_is_the_sorted_choice(margins, kappa):
    got_b, got_theta = F.pythia(margins, kappa)
    want_b, want_theta = _pythia_oracle(margins.tolist(), kappa)
    np.testing.assert_array_equal(got_b, want_b)
    assert got_theta == want_theta and math.copysign(1.0, got_theta) == math.copysign(1.0, want_theta)


def test_sb_nxm_and_memoised_grid_unchanged():
    rng = np.random.default_rng(6)
    sums = np.concatenate([rng.normal(size=500) * 3, [0.0, -0.0, 0.5]])
    theta = 0.2 / (2.0 + 0.2)
    for t in (0, 1, 5):  # the former expression, bit for bit (numpy's exp on the positive entries only)
        s = sums - t * theta
        want = np.ones(sums.shape[0]) if t == 0 else np.where(
            s < 0, 1.0, np.exp(0.5 * np.maximum(s, 0.0) * math.log1p(-0.2)))
        np.testing.assert_array_equal(F.sb_nxm(sums, t, 0.2).view(np.int64), want.view(np.int64))
    for args in [(0.01, 0.016, 3), (1e-3, 4e-6, 20), (3.0, 1.0, 1)]:
        for _ in range(2):
            assert F.centroid_grid(*args) == R.centroid_grid(*args)
    with pytest.raises(ValueError, match="sigma"):
        F.centroid_grid(-1.0, 1.0, 2)


def _rounds_problem(n=3000, d=4, seed=13):
    rng = np.random.default_rng(seed)
    X = _unit_rows(rng, n, d)
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("normalize", [False, True])
def test_smooth_boost_rounds_bit_for_bit_as_the_public_pieces(normalize):
    """The compiled elementwise pass keeps the run exactly: the loop of sb_nxm, math.fsum, the Laplace test, the
    centroid by BLAS and the Gaussian release, written with the public pieces, gives the same run word for word."""
    from fast import mechanisms as M

    X, y = _rounds_problem()
    g, kappa, cap, eps, delta = 0.1, 0.25, 6, 1.0, 1e-6
    for seed in (0, 1):
        got = F.smooth_boost(X, y, g, kappa, cap, eps, delta, rng=seed, normalize=normalize)
        gen = np.random.default_rng(seed)
        n = X.shape[0]
        sums, hyps = np.zeros(n), []
        for t in range(cap):
            mu = F.sb_nxm(sums, t, g)
            size = math.fsum(mu)
            if not M.laplace_mechanism(size - kappa * n / 2.0, sensitivity=1.0, epsilon=eps, rng=gen) > \
                    2.0 + math.log(1.0 / delta) / eps:
                break
            z = np.asarray(M.gaussian_mechanism((mu / size * y) @ X, sensitivity=12.0 / (kappa * n), epsilon=eps,
                                                delta=delta, rng=gen), dtype=np.float64)
            if normalize:
                nz = math.sqrt(math.fsum(z * z))
                z = z / nz if nz > 0 else np.zeros_like(z)
            hyps.append(z)
            sums += y * np.clip(X @ z, -1.0, 1.0)
        assert got.rounds == len(hyps)
        np.testing.assert_array_equal(got.hypotheses, np.array(hyps).reshape(len(hyps), X.shape[1]))


def test_lazy_bregman_boost_rounds_bit_for_bit_as_the_public_pieces():
    X, y = _rounds_problem(seed=14)
    T, kappa, lam, sigma = 5, 0.3, 0.5, 0.01
    got = F.lazy_bregman_boost(X, y, T, kappa, lam, sigma, rng=3)
    gen = np.random.default_rng(3)
    L = np.zeros(X.shape[0])
    for t in range(T):
        mu = F.lb_nxm(L, kappa, lam)
        size = float(np.sum(mu))
        assert got.max_weight[t] == mu.max() / size
        z = F._release((mu / size * y) @ X, sigma, gen)
        np.testing.assert_array_equal(got.hypotheses[t], z)
        L += F.game_loss(X @ z, y)
    np.testing.assert_array_equal(got.z_bar, np.array([math.fsum(got.hypotheses[:, j]) for j in range(X.shape[1])]) / T)


# ------------------------------------------------------------------------------------------------------------ snc
import fast.snc as FS  # noqa: E402
import reference.snc as RS  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 6), st.integers(1, 60)), min_size=1, max_size=9), st.data())
def test_class_allocation_is_the_greedy_allocation(counts, data):
    if data.draw(st.booleans()):
        counts = [counts[0]] * len(counts)  # all tied
    m = data.draw(st.integers(len(counts), sum(counts)))
    got = FS.class_allocation(np.array(counts), m)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, RS.class_allocation(np.array(counts), m))


def test_class_allocation_python_integers_path():
    counts = [2**61, 2**61 - 1, 5, 2**60 + 3]  # 2 (m + n) max(n_c) >= 2^62: object arrays
    for extra in (0, 1, 2, 7, 20):
        m = len(counts) + extra
        np.testing.assert_array_equal(FS.class_allocation(np.array(counts), m), RS.class_allocation(counts, m))
    big = FS.class_allocation(np.array([2**61, 3, 2**60 + 7]), 2**59 + 11)
    assert int(big.sum()) == 2**59 + 11 and big.tolist() == [384307168202282331, 1, 192153584101141167]


def _init_oracle(y, m, seed):
    """The documented draw: classes in np.unique order, rng.choice(ascending indices of the class, m_c,
    replace=False), m_c from class_allocation."""
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    alloc = RS.class_allocation(counts, m)
    gen = np.random.default_rng(seed)
    parts = [gen.choice(np.flatnonzero(codes.reshape(-1) == c).astype(np.int64), size=int(a), replace=False)
             for c, a in enumerate(alloc.tolist())]
    return np.concatenate(parts).astype(np.int64)


@pytest.mark.parametrize("n_classes", [1, 3, FS._GROUP_BY_SORT_CLASSES, FS._GROUP_BY_SORT_CLASSES + 1, 60])
def test_class_proportional_init_same_draws(n_classes):
    rng = np.random.default_rng(n_classes)
    for trial in range(6):
        n = int(rng.integers(n_classes, 400))
        y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, size=n - n_classes)])
        if trial % 3 == 1:
            y = np.array([f"c{v}" for v in y])
        m = int(rng.integers(n_classes, n + 1))
        seed = int(rng.integers(0, 2**31))
        got = FS.class_proportional_init(y, m, seed)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, _init_oracle(y, m, seed))
        np.testing.assert_array_equal(got, RS.class_proportional_init(y, m, seed))


def _lse_probabilities(X, gamma2):
    from scipy.special import logsumexp

    diff = X[:, None, :] - X[None, :, :]
    s = -gamma2 * np.einsum("ijk,ijk->ij", diff, diff)
    np.fill_diagonal(s, -np.inf)
    return np.exp(s - logsumexp(s, axis=1, keepdims=True))


def _lse_nca(T, y):
    from scipy.special import logsumexp

    diff = T[:, None, :] - T[None, :, :]
    s = -np.einsum("ijk,ijk->ij", diff, diff)
    np.fill_diagonal(s, -np.inf)
    same = y[:, None] == y[None, :]
    np.fill_diagonal(same, False)
    with np.errstate(divide="ignore"):
        return np.exp(logsumexp(np.where(same, s, -np.inf), axis=1) - logsumexp(s, axis=1))


@pytest.mark.parametrize("gamma2", [1e-6, 0.1, 1.0, 40.0, 1e3])
def test_sne_fused_rows_match_log_sum_exp(gamma2):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 3)) * 2
    X[5] = X[4]  # a duplicate: distance 0 off the diagonal
    got = FS.sne_probabilities(X, gamma2)
    want = _lse_probabilities(X, gamma2)
    assert got.shape == (120, 120) and np.all(np.diag(got) == 0.0)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-300)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(FS.sne_probabilities(X[:9], gamma2), RS.sne_probabilities(X[:9], gamma2), rtol=1e-7,
                               atol=1e-300)


@pytest.mark.parametrize("scale", [0.3, 1.0, 8.0])
def test_nca_fused_rows_match_log_sum_exp_including_underflowing_rows(scale):
    rng = np.random.default_rng(8)
    n = 3000 + 7  # several blocks of rows and a partial one
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 4, size=n)
    y[0] = 9  # a class of one point: p = 0
    X[1] = [40.0, 0.0, 0.0]  # alone far away, its class 0 > 575 nats beyond its nearest neighbour of class 5
    X[2] = [41.0, 0.0, 0.0]
    y[1], y[2] = 0, 5
    A = np.eye(3) * scale
    got = FS.nca_correct_probabilities(X, y, A)
    want = _lse_nca(X @ A.T, y)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-300)
    assert got[0] == 0.0
    small = slice(0, 12)
    np.testing.assert_allclose(FS.nca_correct_probabilities(X[small], y[small], np.diag(A)),
                               RS.nca_correct_probabilities(X[small], y[small], np.diag(A)), rtol=1e-7, atol=1e-300)


def test_nca_row_whose_class_mass_underflows_next_to_the_nearest_point():
    X = np.array([[0.0], [1.0], [25.5], [2.0]])  # point 0: other label at D = 1, its class at D = 650.25
    y = np.array([0, 1, 0, 1])
    got = FS.nca_correct_probabilities(X, y, [1.0])
    want = RS.nca_correct_probabilities(X, y, [1.0])
    assert 0.0 < got[0] < 1e-250
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=0.0)
