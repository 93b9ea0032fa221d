"""Pairs for reference.impact_coding / fast.impact_coding (winvector2015).

Tolerances: counts, levels, indices, kept/pooled flags exact; codes and p-values rtol 1e-9 (log/gammaln/erfc
against exact integer Fisher sums and mpmath's incomplete beta; observed agreement ~1e-13); continuous targets
are drawn on the grid 0.25 Z so that sums are exact in both packages (fsum vs bincount) and the F test's
within-group sum of squares is not a cancellation artefact.
"""
import numpy as np
from hypothesis import strategies as st

import fast.impact_coding as F
import reference.impact_coding as R
from spec.compare import assert_same
from spec.impact_contract import CodeTable
from spec.pairs import Call, Pair
from spec.strategies import seeds

_RTOL = 1e-9
_ATOL = 1e-12
_CODES = st.sampled_from(["auto", "bayes", "log_lift", "count", "mean"])
_OPTS = st.fixed_dictionaries({
    "rare_count": st.integers(0, 3),
    "rare_sig": st.sampled_from([1.0, 0.5, 0.3, 0.05]),
    "smoothing": st.sampled_from([None, 0.0, 1.0, 5.0]),
})


@st.composite
def _data(draw, continuous=False, min_n=2, max_n=30):
    n = draw(st.integers(min_n, max_n))
    n_levels = draw(st.integers(1, 7))
    idx = np.array(draw(st.lists(st.integers(0, n_levels - 1), min_size=n, max_size=n)), dtype=np.int64)
    if continuous:
        y = np.array(draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n)), dtype=np.float64) * 0.25
    else:
        y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
        if y.min() == y.max() and draw(st.booleans()):
            y[0] = 1 - y[0]  # mostly both classes; sometimes a single class (must raise the same error)
    return idx, y, n_levels


@st.composite
def _construction_calls(draw, kind):
    continuous = draw(st.booleans()) if kind != "split" else False
    idx, y, n_levels = draw(_data(continuous=continuous, min_n=3))
    opts = dict(draw(_OPTS))
    if continuous:
        opts.update(target_type="continuous", code="mean")
    else:
        opts["code"] = draw(_CODES)
    args = (idx, y, n_levels)
    if kind == "cross":
        folds = np.array(draw(st.lists(st.integers(0, 3), min_size=len(idx), max_size=len(idx))), dtype=np.int64)
        args = args + (folds,)
    if kind == "split":
        coding = np.array(draw(st.lists(st.booleans(), min_size=len(idx), max_size=len(idx))), dtype=bool)
        args = args + (coding,)
    return Call(args, opts)


@st.composite
def _table_calls(draw):
    continuous = draw(st.booleans())
    idx, y, n_levels = draw(_data(continuous=continuous))
    table = (F.count_table(idx, y, n_levels, target_type="continuous") if continuous
             else np.column_stack([np.bincount(idx, weights=y, minlength=n_levels),
                                   np.bincount(idx, weights=1 - y, minlength=n_levels)]).astype(np.float64))
    if not continuous and draw(st.booleans()):
        table = table + draw(st.sampled_from([0.0, 0.4, 2.7]))  # noisy (non-integer) counts
    opts = dict(draw(_OPTS))
    if continuous:
        opts.update(target_type="continuous", code="mean")
    else:
        opts["code"] = draw(_CODES)
    return Call((table,), opts)


_COUNTS = st.floats(0.0, 60.0, allow_nan=False).map(lambda v: float(round(v * 4) / 4))


@st.composite
def _code_calls(draw, with_totals=True, smoothing=True):
    m = draw(st.integers(1, 6))
    a = np.array(draw(st.lists(_COUNTS, min_size=m, max_size=m)))
    b = np.array(draw(st.lists(_COUNTS, min_size=m, max_size=m)))
    if not with_totals:
        return Call((a, b))
    tp = a + draw(st.sampled_from([0.0, 1.0, 13.0, 500.0]))
    tn = b + draw(st.sampled_from([0.0, 2.0, 7.0, 1e5]))
    kw = {"smoothing": draw(st.sampled_from([0.0, 1e-3, 1.0, 5.0]))} if smoothing else {}
    return Call((a, b, tp, tn), kw)


@st.composite
def _p_calls(draw):
    continuous = draw(st.booleans())
    m = draw(st.integers(1, 6))
    if continuous:
        n = np.array(draw(st.lists(st.integers(0, 20), min_size=m, max_size=m)), dtype=np.float64)
        s = np.array(draw(st.lists(st.integers(-40, 40), min_size=m, max_size=m)), dtype=np.float64) * 0.25
        q = s * s / np.maximum(n, 1) + np.array(draw(st.lists(st.integers(0, 40), min_size=m, max_size=m)))
        q = np.where(n > 0, q, 0.0)
        s = np.where(n > 0, s, 0.0)
        groups = np.column_stack([n, s, q])
        totals = groups.sum(axis=0) + np.array([draw(st.integers(0, 30)), 1.5, 40.0])
        return Call((groups, totals), {"target_type": "continuous"})
    a = np.array(draw(st.lists(st.integers(0, 60), min_size=m, max_size=m)), dtype=np.float64)
    b = np.array(draw(st.lists(st.integers(0, 60), min_size=m, max_size=m)), dtype=np.float64)
    tot = np.array([a.max() + draw(st.integers(0, 300)), b.max() + draw(st.integers(0, 3000))], dtype=np.float64)
    return Call((np.column_stack([a, b]), tot))


@st.composite
def _factorize_calls(draw):
    kind = draw(st.sampled_from(["str", "int", "float", "bool", "object-missing"]))
    n = draw(st.integers(1, 12))
    if kind == "str":
        v = draw(st.lists(st.sampled_from(["a", "b", "zz", "", "B", None]), min_size=n, max_size=n))
    elif kind == "int":
        v = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.int64)
    elif kind == "float":
        v = np.array(draw(st.lists(st.sampled_from([0.5, -1.0, 2.0, np.nan]), min_size=n, max_size=n)))
    elif kind == "bool":
        v = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    else:
        v = draw(st.lists(st.sampled_from([1, 7, None, float("nan")]), min_size=n, max_size=n))
    return Call((v,))


@st.composite
def _apply_calls(draw):
    call = draw(_table_calls())
    coder = F.coder_from_table(*call.args, **call.kwargs)
    n_levels = coder.code.shape[0]
    idx = np.array(draw(st.lists(st.integers(-1, n_levels - 1), min_size=1, max_size=10)), dtype=np.int64)
    return Call((coder, idx))


@st.composite
def _laplace_calls(draw):
    m = draw(st.integers(1, 5))
    table = np.array(draw(st.lists(st.integers(0, 50), min_size=2 * m, max_size=2 * m)), dtype=np.float64)
    return Call((table.reshape(m, 2),), {"epsilon": draw(st.sampled_from([0.1, 1.0, 3.0])),
                                          "neighbouring": draw(st.sampled_from(["replace-one", "add/remove-one"])),
                                          "rng": draw(seeds())})


_BAD_CONSTRUCTION = st.sampled_from([
    Call((np.array([0, 1, 0]), np.array([0, 1, 2]), 2)),  # y not binary
    Call((np.array([0, 1, 0]), np.array([1, 1, 1]), 2)),  # single class
    Call((np.array([0, 1, 0]), np.array([0, 1, np.nan]), 2)),  # NaN in y
    Call((np.array([0, 1, 0]), np.array([0, 1, 1]), 2), {"rare_sig": 0.0}),
    Call((np.array([0, 1, 0]), np.array([0, 1, 1]), 2), {"rare_sig": 1.5}),
    Call((np.array([0, 1, 0]), np.array([0, 1, 1]), 2), {"rare_count": -1}),
    Call((np.array([0, 1, 0]), np.array([0, 1, 1]), 2), {"smoothing": -1.0}),
    Call((np.array([0, 1, 0]), np.array([0, 1, 1]), 2), {"code": "woe"}),
    Call((np.array([0, 3, 0]), np.array([0, 1, 1]), 2)),  # index out of range
    Call((np.array([0.5, 1, 0]), np.array([0, 1, 1]), 2)),  # float index
    Call((np.array([0, 1, 0]), np.array([0.5, 1.0, 2.0]), 2), {"target_type": "continuous", "code": "bayes"}),
])


def _bad_cross():
    return st.sampled_from([
        Call((np.array([0, 1, 0, 1]), np.array([0, 1, 1, 0]), 2, np.array([0, 0, 0, 0]))),  # k = 1
        Call((np.array([0, 1, 0, 1]), np.array([0, 1, 1, 0]), 2, np.array([0, 1, 0]))),
        Call((np.array([0, 1, 0, 1]), np.array([0, 1, 0, 1]), 2, np.array([0, 1, 0, 1]))),  # single class in C_i
        Call((np.array([0, 1, 0, 1]), np.array([0, 1, 1, 0]), 2, np.array([0.0, 1, 0, 1]))),
    ])


def _same_coder(ref, fast):
    assert isinstance(ref, CodeTable) and isinstance(fast, CodeTable)
    assert_same(ref, fast, rtol=_RTOL, atol=_ATOL)


def _construction(name, kind, claim):
    bad = _BAD_CONSTRUCTION if kind != "cross" else _bad_cross()
    return Pair(getattr(R, name), getattr(F, name), _construction_calls(kind), claim=claim, rtol=_RTOL, atol=_ATOL,
                bad_inputs=bad, max_examples=80, note="codes rtol 1e-9; flags and NaN rows exact")


def _split_compare(ref, fast):
    assert np.array_equal(np.isnan(ref), np.isnan(fast))
    assert_same(np.nan_to_num(ref), np.nan_to_num(fast), rtol=_RTOL, atol=_ATOL)


_BAD_CODE4 = st.sampled_from([
    Call((np.array([-1.0]), np.array([1.0]), 3.0, 4.0)),  # a negative count
    Call((np.array([1.0]), np.array([np.nan]), 3.0, 4.0)),  # NaN
    Call((np.array([1.0]), np.array([1.0]), 3.0, -4.0)),  # a negative total
    Call((np.array([1.0]), np.array([1.0]), 3.0, 4.0), {"smoothing": -1.0}),
])
_BAD_COUNT_CODE = st.sampled_from([Call((np.array([-1.0]), np.array([1.0]))), Call((np.array([np.inf]), np.array([1.0])))])
_BAD_MEAN_CODE = st.sampled_from([
    Call((np.array([-1.0]), np.array([1.0]), 3.0, 4.0)),  # a negative count
    Call((np.array([1.0]), np.array([np.nan]), 3.0, 4.0)),  # NaN sum
    Call((np.array([1.0]), np.array([1.0]), 3.0, 4.0), {"smoothing": -1.0}),
])
_BAD_P_VALUES = st.sampled_from([
    Call((np.array([[1.0, -1.0]]), np.array([3.0, 4.0]))),
    Call((np.array([[1.0, 1.0]]), np.array([3.0, 4.0])), {"target_type": "x"}),
])

PAIRS = {
    "impact_coding.factorize": Pair(R.factorize, F.factorize, _factorize_calls(), claim="",
                                    bad_inputs=st.sampled_from([Call((["a", 1],)), Call(([[1], [2]],)), Call(([],)),
                                                                Call((np.ones((2, 2)),)), Call(("abc",))]),
                                    note="levels and index exact"),
    "impact_coding.count_table": Pair(
        R.count_table, F.count_table,
        _data(continuous=False).map(lambda d: Call(d)) | _data(continuous=True).map(
            lambda d: Call(d, {"target_type": "continuous"})),
        claim="winvector2015.impact", bad_inputs=_BAD_CONSTRUCTION, note="sums exact on the 0.25 grid"),
    "impact_coding.bayes_code": Pair(R.bayes_code, F.bayes_code, _code_calls(), claim="winvector2015.impact",
                                     rtol=_RTOL, atol=_ATOL, bad_inputs=_BAD_CODE4),
    "impact_coding.log_lift_code": Pair(R.log_lift_code, F.log_lift_code, _code_calls(), claim="winvector2015.impact",
                                        rtol=_RTOL, atol=_ATOL, bad_inputs=_BAD_CODE4),
    "impact_coding.count_code": Pair(R.count_code, F.count_code, _code_calls(with_totals=False),
                                     claim="winvector2015.laplace", rtol=_RTOL, atol=_ATOL,
                                     bad_inputs=_BAD_COUNT_CODE),
    "impact_coding.mean_code": Pair(R.mean_code, F.mean_code, _code_calls(), claim="winvector2015.impact",
                                    rtol=_RTOL, atol=_ATOL, bad_inputs=_BAD_MEAN_CODE),
    "impact_coding.fit_coder": Pair(R.fit_coder, F.fit_coder, _construction_calls("naive"),
                                    claim="winvector2015.impact", compare=_same_coder, bad_inputs=_BAD_CONSTRUCTION,
                                    max_examples=60),
    "impact_coding.group_p_values": Pair(R.group_p_values, F.group_p_values, _p_calls(),
                                         claim="winvector2015.sigprune", rtol=_RTOL, atol=1e-15,
                                         bad_inputs=_BAD_P_VALUES,
                                         note="exact-integer Fisher vs log-space; erfc; mpmath vs scipy betainc"),
    "impact_coding.coder_from_table": Pair(R.coder_from_table, F.coder_from_table, _table_calls(),
                                           claim="winvector2015.sigprune", compare=_same_coder,
                                           bad_inputs=st.sampled_from([
                                               Call((np.array([[1.0, -1.0]]),)), Call((np.ones((2, 3)),)),
                                               Call((np.ones((2, 2)),), {"rare_sig": 0.0}),
                                               Call((np.array([[np.nan, 1.0]]),))])),
    "impact_coding.apply_coder": Pair(R.apply_coder, F.apply_coder, _apply_calls(), claim="winvector2015.impact",
                                      rtol=0.0, bad_inputs=st.sampled_from([Call(("coder", np.array([0])))])),
    "impact_coding.naive_codes": _construction("naive_codes", "naive", "winvector2015.naive"),
    "impact_coding.split_codes": Pair(R.split_codes, F.split_codes, _construction_calls("split"),
                                      claim="winvector2015.split", compare=_split_compare,
                                      bad_inputs=st.sampled_from([
                                          Call((np.array([0, 1, 0]), np.array([0, 1, 1]), 2, np.array([1, 0, 1]))),
                                          Call((np.array([0, 1, 0]), np.array([0, 1, 1]), 2,
                                                np.array([True, True, True])))]), max_examples=60),
    "impact_coding.cross_codes": _construction("cross_codes", "cross", "winvector2015.crossframe"),
    "impact_coding.jackknife_codes": _construction("jackknife_codes", "jackknife", "winvector2015.jackknife"),
    "impact_coding.count_sensitivity": Pair(R.count_sensitivity, F.count_sensitivity,
                                            st.sampled_from([Call(("replace-one",)), Call(("add/remove-one",)),
                                                             Call(())]),
                                            claim="winvector2015.laplace",
                                            bad_inputs=st.sampled_from([Call(("swap",))])),
    "impact_coding.laplace_count_table": Pair(R.laplace_count_table, F.laplace_count_table, _laplace_calls(),
                                              claim="winvector2015.laplace", rtol=0.0, max_examples=25,
                                              bad_inputs=st.sampled_from([
                                                  Call((np.ones((2, 2)),), {"epsilon": 0.0}),
                                                  Call((np.ones((2, 2)),), {"epsilon": 1.0, "neighbouring": "x"}),
                                                  Call((np.ones((2, 3)),), {"epsilon": 1.0})]),
                                              note="seeded: the same words in the same order, exact equality"),
}
