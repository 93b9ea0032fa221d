"""Pairs for reference.causal / fast.causal and reference.causal_privacy / fast.causal_privacy (kusner2016 ch4)."""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.causal
import fast.causal_privacy
import reference.causal
import reference.causal_privacy
from spec.compare import assert_same
from spec.pairs import Call, Pair
from spec.strategies import seeds

_TIED = st.integers(-3, 3).map(float)
_REAL = st.floats(-1.0, 1.0, allow_nan=False, width=64)
_EXTREME = st.sampled_from([np.nan, np.inf, -np.inf, 1e308, -1e308, 2.0**600, -0.0, 5e-324])


@st.composite
def _vectors(draw, min_m=2, max_m=14):
    m = draw(st.integers(min_m, max_m))
    elements = draw(st.sampled_from([_TIED, _REAL]))
    a = draw(hnp.arrays(np.float64, m, elements=elements))
    b = draw(hnp.arrays(np.float64, m, elements=elements))
    return a, b


def _score_calls(min_m=2, kw=None):
    return _vectors(min_m=min_m).map(lambda ab: Call(ab, kw or {}))


@st.composite
def _hsic_calls(draw):
    a, b = draw(_vectors())
    h = draw(st.sampled_from([0.1, 0.5, 2.0, 50.0]))
    return Call((a, b), {"bandwidth_a": h, "bandwidth_b": draw(st.sampled_from([0.3, 0.5]))})


@st.composite
def _iqr_score_calls(draw):
    a, b = draw(_vectors(min_m=4))
    return Call((a + np.linspace(0, 1, len(a)), b - np.linspace(0, 2, len(b))))  # IQR > 0


def _bad_scores(min_m):
    return st.sampled_from([
        Call((np.array([1.0, np.nan, 2.0, 3.0]), np.arange(4.0))),
        Call((np.arange(5.0), np.arange(4.0))),
        Call((np.arange(float(min_m - 1)), np.arange(float(min_m - 1)))) if min_m > 1 else Call((np.ones(0), np.ones(0))),
        Call((np.ones((2, 2)), np.ones(4))),
        Call(("abc", np.arange(3.0))),
    ])


_BAD_IQR = st.sampled_from([
    Call((np.ones(8), np.arange(8.0))),  # constant: IQR = 0
    Call((np.arange(3.0), np.arange(3.0))),  # m < 4
    Call((np.arange(8.0), np.array([0, 0, 0, 0, 0, 0, 1, 2.0]))),  # IQR 0 by ties
    Call((np.arange(8.0), np.arange(7.0))),
])


@st.composite
def _krr_calls(draw):
    n = draw(st.integers(1, 12))
    x = draw(hnp.arrays(np.float64, n, elements=_REAL))
    y = draw(hnp.arrays(np.float64, n, elements=_REAL))
    t = draw(hnp.arrays(np.float64, draw(st.integers(1, 6)), elements=_REAL))
    lam = draw(st.sampled_from([1e-2, 0.3, 5.0]))
    bw = draw(st.sampled_from(["median", 0.2, 1.0]))
    return Call((x, y, t), {"lam": lam, "bandwidth": bw})


_BAD_KRR = st.sampled_from([
    Call((np.ones(3), np.ones(3), np.ones(2)), {"lam": 0.0}),
    Call((np.ones(3), np.ones(3), np.ones(2)), {"lam": -1.0}),
    Call((np.ones(3), np.ones(2), np.ones(2))),
    Call((np.ones(3), np.ones(3), np.ones(2)), {"bandwidth": "mean"}),
    Call((np.ones(3), np.ones(3), np.ones(2)), {"bandwidth": 0.0}),
    Call((np.ones(3), np.array([1.0, np.nan, 2.0]), np.ones(2))),
])


@st.composite
def _split_calls(draw):
    N = draw(st.integers(4, 20))
    x = draw(hnp.arrays(np.float64, N, elements=_REAL))
    y = draw(hnp.arrays(np.float64, N, elements=_REAL))
    return Call((x, y), {"test_fraction": draw(st.sampled_from([0.3, 0.5])), "rng": draw(seeds())})


_BAD_SPLIT = st.sampled_from([
    Call((np.ones(3), np.ones(3))),
    Call((np.ones(10), np.ones(9))),
    Call((np.ones(10), np.ones(10)), {"test_fraction": 1.0}),
    Call((np.ones(10), np.ones(10)), {"test_fraction": 0.0}),
])


@st.composite
def _residual_calls(draw):
    call = draw(_krr_calls())
    x, y, t = call.args
    u = draw(hnp.arrays(np.float64, t.shape[0], elements=_REAL))
    return Call((x, y, t, u), call.kwargs)


@st.composite
def _anm_calls(draw):
    N = draw(st.integers(8, 24))
    # distinct, generic values: rank scores of residuals jump at residual ties, and two roundings of one KRR fit
    # (pure-Python Cholesky vs LAPACK) may break an exact tie differently (a known, explained divergence)
    x = draw(hnp.arrays(np.float64, N, elements=_REAL, unique=True)) + np.linspace(0, 1e-3, N) ** 1.5
    noise = draw(hnp.arrays(np.float64, N, elements=_REAL, unique=True)) + np.sqrt(np.arange(N)) * 1e-3
    y = np.tanh(2 * x) + 0.3 * noise
    score = draw(st.sampled_from(["spearman", "kendall", "hsic", "iqr"]))
    if score == "iqr":
        x = x + np.linspace(0, 1, N)
        y = y + np.linspace(0, 1, N) ** 2
    return Call((x, y), {"score": score, "rng": draw(seeds()), "lam": draw(st.sampled_from([1e-2, 1.0])),
                         "bandwidth": draw(st.sampled_from(["median", 0.5]))})


def _anm_compare(ref, fast_out):
    """Scores to 1e-8 (Cholesky solves differ in rounding); the direction wherever the margin is resolvable."""
    assert_same(ref.s_xy, fast_out.s_xy, rtol=1e-8, atol=1e-11)
    assert_same(ref.s_yx, fast_out.s_yx, rtol=1e-8, atol=1e-11)
    if abs(ref.s_xy - ref.s_yx) > 1e-9 * (1 + abs(ref.s_xy)):
        assert ref.direction == fast_out.direction


_BAD_ANM = st.sampled_from([
    Call((np.ones(10), np.ones(9))),
    Call((np.arange(10.0), np.arange(10.0)), {"score": "pearson"}),
    Call((np.arange(10.0), np.arange(10.0)), {"lam": 0.0}),
    Call((np.arange(10.0), np.full(10, np.nan))),
    Call((np.arange(10.0), np.ones(10)), {"score": "iqr", "rng": 0}),  # y constant: IQR(y') = 0
])

# --------------------------------------------------------------------------- privacy pairs

_MS = st.integers(2, 5000)
_BAD_M = st.sampled_from([Call((1,)), Call((0,)), Call((2.5,)), Call(("10",)), Call((True,))])


def _closed_form_calls():
    return st.builds(lambda g, s: Call((g, s)), st.floats(-50, 50, allow_nan=False), st.floats(1e-3, 100))


_BAD_CLOSED = st.sampled_from([Call((0.1, 0.0)), Call((0.1, -1.0)), Call((float("nan"), 1.0)),
                               Call((float("inf"), 1.0)), Call((0.1, float("inf")))])


@st.composite
def _ptr_calls(draw):
    m = draw(st.integers(4, 40))
    v = draw(hnp.arrays(np.float64, m, elements=st.one_of(_TIED, _REAL)))
    if draw(st.booleans()):
        v = np.concatenate([v, np.random.default_rng(m).normal(size=draw(st.integers(0, 150)))])
    return Call((v,), {"epsilon": draw(st.sampled_from([0.1, 1.0, 5.0])), "delta": draw(st.sampled_from([1e-6, 0.05])),
                       "rng": draw(seeds()), "threshold": draw(st.sampled_from(["corrected", "thesis"]))})


@st.composite
def _release_calls(draw, calls):
    """A PTR release call whose values may hold one extreme (the public value domain, issue 25: clamped to
    +-2^512, NaN read as 0, never refused), the same in both packages."""
    call = draw(calls())
    v = call.args[0].copy()
    if draw(st.integers(0, 3)) == 0:
        v[draw(st.integers(0, v.shape[0] - 1))] = draw(_EXTREME)
    return Call((v,), call.kwargs)


_BAD_PTR = st.sampled_from([
    Call((np.arange(8.0),), {"epsilon": 0.0, "delta": 1e-5}),
    Call((np.arange(8.0),), {"epsilon": 1.0, "delta": 0.0}),
    Call((np.arange(8.0),), {"epsilon": 1.0, "delta": 1.0}),
    Call((np.arange(3.0),), {"epsilon": 1.0, "delta": 1e-5}),
    Call((np.arange(8.0),), {"epsilon": 1.0, "delta": 1e-5, "threshold": "strict"}),
    Call((np.array(["1", "2", "3", "4"]),), {"epsilon": 1.0, "delta": 1e-5}),  # schema: a str dtype (NaN is in
])                                                                               # the domain rule since issue 25)


@st.composite
def _bin_distance_calls(draw):
    call = draw(_ptr_calls())
    v = call.args[0]
    q = reference.causal.iqr(v)
    if q <= 0:
        v = v + np.linspace(0, 1, v.shape[0])
        q = reference.causal.iqr(v)
    lo, hi = draw(st.sampled_from(list(reference.causal_privacy.iqr_bins(q)) + [(q * 0.5, q * 3.0), (q * 2, q * 3)]))
    return Call((v, lo, hi), {"cap": draw(st.sampled_from([None, 1, 5]))})


_BAD_BINS = st.sampled_from([
    Call((np.arange(8.0), 2.0, 1.0)),
    Call((np.arange(8.0), 0.0, 1.0)),
    Call((np.arange(8.0), 1.0, 2.0), {"cap": 0}),
    Call((np.arange(3.0), 1.0, 2.0)),
])


_TRAIN_SIZES = st.sampled_from([(10, 0.5), (2000, 1.0), (10 ** 5, 100.0), (50, 1e-3)])  # (n, lam)


@st.composite
def _train_bin_distance_calls(draw):
    call = draw(_bin_distance_calls())
    n, lam = draw(_TRAIN_SIZES)
    return Call(call.args, {**call.kwargs, "n": n, "lam": lam})


_BAD_TRAIN_BINS = st.sampled_from([
    Call((np.arange(8.0), 2.0, 1.0), {"n": 10, "lam": 1.0}),
    Call((np.arange(8.0), 1.0, 2.0), {"n": 0, "lam": 1.0}),
    Call((np.arange(8.0), 1.0, 2.0), {"n": 10, "lam": 0.0}),
    Call((np.arange(8.0), 1.0, 2.0), {"n": 10, "lam": 1.0, "cap": 0}),
    Call((np.arange(3.0), 1.0, 2.0), {"n": 10, "lam": 1.0}),
])


@st.composite
def _train_ptr_calls(draw):
    call = draw(_ptr_calls())
    n, lam = draw(_TRAIN_SIZES)
    return Call(call.args, {**call.kwargs, "n": n, "lam": lam})


_BAD_TRAIN_PTR = st.one_of(
    _BAD_PTR.map(lambda c: Call(c.args, {**c.kwargs, "n": 10, "lam": 1.0})),
    st.sampled_from([Call((np.arange(8.0),), {"n": 0, "lam": 1.0, "epsilon": 1.0, "delta": 1e-5}),
                     Call((np.arange(8.0),), {"n": 10, "lam": -1.0, "epsilon": 1.0, "delta": 1e-5})]),
)


@st.composite
def _instability_calls(draw):
    r = draw(hnp.arrays(np.float64, draw(st.integers(2, 30)), elements=st.one_of(_REAL, _TIED)))
    return Call((r,), {"n": draw(st.integers(1, 10000)), "lam": draw(st.sampled_from([0.01, 1.0, 50.0]))})


_BAD_INSTABILITY = st.sampled_from([
    Call((np.ones(1),), {"n": 10, "lam": 1.0}),
    Call((np.ones(4),), {"n": 0, "lam": 1.0}),
    Call((np.ones(4),), {"n": 10, "lam": 0.0}),
])

_SCORE_PAIR = st.floats(-5, 5, allow_nan=False)

PAIRS = {
    "causal.average_ranks": Pair(reference.causal.average_ranks, fast.causal.average_ranks,
                                 _vectors(min_m=1).map(lambda ab: Call((ab[0],))), claim="kusner2016.ch4.spearman",
                                 rtol=0.0, bad_inputs=st.sampled_from([Call((np.ones(0),)), Call((np.array([np.nan]),))]),
                                 note="exact: midranks are multiples of 1/2"),
    "causal.spearman_score": Pair(reference.causal.spearman_score, fast.causal.spearman_score, _score_calls(),
                                  claim="kusner2016.ch4.spearman", rtol=0.0, bad_inputs=_bad_scores(2),
                                  note="exact: both round the same rational 1 - 6 S / (m(m^2-1)) once"),
    "causal.kendall_score": Pair(reference.causal.kendall_score, fast.causal.kendall_score, _score_calls(),
                                 claim="kusner2016.ch4.kendall", rtol=0.0, bad_inputs=_bad_scores(2),
                                 note="exact: integer C - D divided once"),
    "causal.hsic_score": Pair(reference.causal.hsic_score, fast.causal.hsic_score, _hsic_calls(),
                              claim="kusner2016.ch4.eq4_4", rtol=1e-9, atol=1e-13, bad_inputs=st.one_of(
                                  _bad_scores(2), st.just(Call((np.arange(4.0), np.arange(4.0)), {"bandwidth_a": 0.0}))),
                              note="fsum of centred products vs one-pass eq. (A.2): cancellation of O(m^2) terms"),
    "causal.iqr": Pair(reference.causal.iqr, fast.causal.iqr, _vectors(min_m=4).map(lambda ab: Call((ab[0],))),
                       claim="kusner2016.ch4.eq4_2", rtol=0.0,
                       bad_inputs=st.sampled_from([Call((np.ones(3),)), Call((np.array([1.0, 2, np.inf, 3]),))]),
                       note="exact: a difference of two order statistics"),
    "causal.iqr_score": Pair(reference.causal.iqr_score, fast.causal.iqr_score, _iqr_score_calls(),
                             claim="kusner2016.ch4.eq4_2", rtol=0.0, bad_inputs=_BAD_IQR,
                             note="exact: same order statistics, same math.log"),
    "causal.dependence_score": Pair(reference.causal.dependence_score, fast.causal.dependence_score,
                                    st.builds(lambda c, s: Call(c.args, {"score": s}), _iqr_score_calls(),
                                              st.sampled_from(["spearman", "kendall", "hsic", "iqr"])),
                                    rtol=1e-9, atol=1e-13,
                                    bad_inputs=st.just(Call((np.arange(5.0), np.arange(5.0)), {"score": "pearson"})),
                                    note="as the score chosen (HSIC tolerance the loosest)"),
    "causal.median_bandwidth": Pair(reference.causal.median_bandwidth, fast.causal.median_bandwidth,
                                    _vectors(min_m=1).map(lambda ab: Call((ab[0],))), rtol=0.0,
                                    bad_inputs=st.sampled_from([Call((np.ones(0),)), Call((np.ones((2, 2)),))]),
                                    note="exact: a median of the same float differences"),
    "causal.krr_predict": Pair(reference.causal.krr_predict, fast.causal.krr_predict, _krr_calls(),
                               claim="kusner2016.ch4.eq4_6", rtol=1e-8, atol=1e-10, bad_inputs=_BAD_KRR,
                               note="pure-Python Cholesky vs LAPACK; n lambda/2 >= 0.005 keeps the system well conditioned"),
    "causal.train_test_split": Pair(reference.causal.train_test_split, fast.causal.train_test_split, _split_calls(),
                                    rtol=0.0, bad_inputs=_BAD_SPLIT,
                                    note="exact: the same rng.permutation"),
    "causal.anm_residuals": Pair(reference.causal.anm_residuals, fast.causal.anm_residuals, _residual_calls(),
                                 claim="kusner2016.ch4.alg3", rtol=1e-8, atol=1e-10,
                                 bad_inputs=st.sampled_from([Call((np.ones(3), np.ones(3), np.ones(2), np.ones(3))),
                                                             Call((np.ones(3), np.ones(3), np.ones(2), np.ones(2)),
                                                                  {"lam": -2.0})]),
                                 note="as krr_predict"),
    "causal.anm": Pair(reference.causal.anm, fast.causal.anm, _anm_calls(), claim="kusner2016.ch4.alg3",
                       bad_inputs=_BAD_ANM, compare=_anm_compare, max_examples=30,
                       note="scores to 1e-8 (regression rounding); direction where the margin is resolvable"),
    "causal_privacy.spearman_sensitivity": Pair(
        reference.causal_privacy.spearman_sensitivity, fast.causal_privacy.spearman_sensitivity,
        st.builds(lambda m, b: Call((m,), {"bound": b}), _MS, st.sampled_from(["proof", "thesis", "exact"])),
        claim="kusner2016.ch4.thm3_spearman", rtol=0.0, bad_inputs=st.one_of(
            _BAD_M, st.just(Call((100,), {"bound": "exact"})), st.just(Call((10,), {"bound": "tight"}))),
        note="exact: the same closed forms"),
    "causal_privacy.kendall_sensitivity": Pair(
        reference.causal_privacy.kendall_sensitivity, fast.causal_privacy.kendall_sensitivity,
        _MS.map(lambda m: Call((m,))), claim="kusner2016.ch4.thm3_kendall", rtol=0.0, bad_inputs=_BAD_M,
        note="exact: 4/m"),
    "causal_privacy.hsic_sensitivity": Pair(
        reference.causal_privacy.hsic_sensitivity, fast.causal_privacy.hsic_sensitivity,
        st.builds(lambda m, b: Call((m,), {"bound": b}), _MS, st.sampled_from(["entrywise", "appendix", "thm5"])),
        claim="kusner2016.ch4.thm5", rtol=0.0, bad_inputs=st.one_of(_BAD_M, st.just(Call((3,), {"bound": "appendix"}))),
        note="exact: the same rationals"),
    "causal_privacy.residual_sensitivity": Pair(
        reference.causal_privacy.residual_sensitivity, fast.causal_privacy.residual_sensitivity,
        st.builds(lambda n, lam, b: Call((n, lam), {"bound": b}), st.integers(1, 10 ** 6), st.floats(1e-4, 1e4),
                  st.sampled_from(["corrected", "thesis"])),
        claim="kusner2016.ch4.thm7", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0, 1.0)), Call((10, 0.0)), Call((10, -1.0)), Call((10, 1.0), {"bound": "x"})]),
        note="exact: the same closed form"),
    "causal_privacy.hsic_train_sensitivity": Pair(
        reference.causal_privacy.hsic_train_sensitivity, fast.causal_privacy.hsic_train_sensitivity,
        st.builds(lambda m, n, lam, h, b: Call((m, n, lam), {"bandwidth": h, "bound": b}), _MS, st.integers(1, 10 ** 5),
                  st.floats(1e-3, 100), st.floats(0.05, 5), st.sampled_from(["corrected", "thesis"])),
        claim="kusner2016.ch4.thm9", rtol=0.0,
        bad_inputs=st.sampled_from([Call((1, 10, 1.0), {"bandwidth": 0.5}), Call((10, 10, 1.0), {"bandwidth": 0.0}),
                                    Call((10, 10, 0.0), {"bandwidth": 0.5})]),
        note="exact: the same closed form"),
    "causal_privacy.rank_instability_distance": Pair(
        reference.causal_privacy.rank_instability_distance, fast.causal_privacy.rank_instability_distance,
        _instability_calls(), claim="kusner2016.ch4.dist_lb", bad_inputs=_BAD_INSTABILITY,
        note="exact integer: same minimum gap, same ceil"),
    "causal_privacy.laplace_scores": Pair(
        reference.causal_privacy.laplace_scores, fast.causal_privacy.laplace_scores,
        st.builds(lambda a, b, s, e, r: Call((a, b), {"sensitivity": s, "epsilon": e, "rng": r}), _SCORE_PAIR,
                  _SCORE_PAIR, st.floats(1e-3, 2.0), st.sampled_from([0.1, 1.0, 10.0]), seeds()),
        claim="kusner2016.ch4.lap2eps", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0.1, 0.2), {"sensitivity": 0.1, "epsilon": 0.0}),
                                    Call((0.1, float("nan")), {"sensitivity": 0.1, "epsilon": 1.0}),
                                    Call((0.1, 0.2), {"sensitivity": -1.0, "epsilon": 1.0})]),
        note="exact: the same discrete Laplace draws from the same seed"),
    "causal_privacy.stability_release": Pair(
        reference.causal_privacy.stability_release, fast.causal_privacy.stability_release,
        st.builds(lambda v, d, e, dl, r: Call((v, d), {"epsilon": e, "delta": dl, "rng": r}), _SCORE_PAIR,
                  st.integers(0, 60), st.sampled_from([0.5, 1.0]), st.sampled_from([1e-6, 0.1]), seeds()),
        claim="kusner2016.ch4.thm8", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0.1, -1), {"epsilon": 1.0, "delta": 1e-5}),
                                    Call((0.1, 3), {"epsilon": 1.0, "delta": 2.0}),
                                    Call((0.1, 3.5), {"epsilon": 1.0, "delta": 1e-5})]),
        note="exact: same draws; None (bottom) compared exactly"),
    "causal_privacy.iqr_bins": Pair(
        reference.causal_privacy.iqr_bins, fast.causal_privacy.iqr_bins,
        st.floats(1e-12, 1e12).map(lambda q: Call((q,))), claim="kusner2016.ch4.alg4", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0.0,)), Call((-1.0,)), Call((float("inf"),))]),
        note="exact: math.log / math.exp on the same floats"),
    "causal_privacy.iqr_bin_distance": Pair(
        reference.causal_privacy.iqr_bin_distance, fast.causal_privacy.iqr_bin_distance, _bin_distance_calls(),
        claim="kusner2016.ch4.alg4", bad_inputs=_BAD_BINS, note="exact integer"),
    "causal_privacy.iqr_ptr": Pair(
        reference.causal_privacy.iqr_ptr, fast.causal_privacy.iqr_ptr, _release_calls(_ptr_calls),
        claim="kusner2016.ch4.alg4", rtol=0.0, bad_inputs=_BAD_PTR, max_examples=40, note="exact: same A_j, same draws in the same order"),
    "causal_privacy.iqr_decision_privacy": Pair(
        reference.causal_privacy.iqr_decision_privacy, fast.causal_privacy.iqr_decision_privacy,
        st.builds(lambda e, d: Call((e, d)), st.floats(1e-3, 10), st.floats(1e-12, 0.5)),
        claim="kusner2016.ch4.iqr_compose", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0.0, 1e-5)), Call((1.0, 0.0))]), note="exact"),
    "causal_privacy.iqr_train_bin_distance": Pair(
        reference.causal_privacy.iqr_train_bin_distance, fast.causal_privacy.iqr_train_bin_distance,
        _train_bin_distance_calls(), claim="kusner2016.ch4.iqr_train", bad_inputs=_BAD_TRAIN_BINS,
        note="exact integer: the same exact Fraction ratio, same ceil"),
    "causal_privacy.iqr_train_ptr": Pair(
        reference.causal_privacy.iqr_train_ptr, fast.causal_privacy.iqr_train_ptr, _release_calls(_train_ptr_calls),
        claim="kusner2016.ch4.iqr_train", rtol=0.0, bad_inputs=_BAD_TRAIN_PTR, max_examples=40,
        note="exact: same A~_j, same draws in the same order"),
    "causal_privacy.iqr_train_decision_privacy": Pair(
        reference.causal_privacy.iqr_train_decision_privacy, fast.causal_privacy.iqr_train_decision_privacy,
        st.builds(lambda e, d: Call((e, d)), st.floats(1e-3, 10), st.floats(1e-12, 0.5)),
        claim="kusner2016.ch4.iqr_train", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0.0, 1e-5)), Call((1.0, 0.0))]), note="exact"),
    "causal_privacy.prob_correct_laplace": Pair(
        reference.causal_privacy.prob_correct_laplace, fast.causal_privacy.prob_correct_laplace, _closed_form_calls(),
        claim="kusner2016.ch4.thm4", rtol=0.0, bad_inputs=_BAD_CLOSED, note="exact: the same expression"),
    "causal_privacy.prob_correct_four_laplace": Pair(
        reference.causal_privacy.prob_correct_four_laplace, fast.causal_privacy.prob_correct_four_laplace,
        _closed_form_calls(), claim="kusner2016.ch4.thm6_2", rtol=0.0, bad_inputs=_BAD_CLOSED,
        note="exact: the same expression"),
}
