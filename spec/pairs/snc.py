"""Pairs for reference.snc / fast.snc (kusner2016 ch3, Stochastic Neighbor Compression).

Tolerances: the reference takes distances as exactly rounded sums of squared differences, fast by the GEMM
expansion after centring on the mean of X; the difference is a few ulps of ||x||^2 + ||z||^2 in each D_ij, which
enters the loss multiplied by gamma^2.  Inputs are drawn in [-4, 4] with gamma^2 <= 1e3, so rtol 1e-7 with a small
atol (relative to the size of the result) covers it; allocation and initial indices compare exactly, and so do
the labels of snc_predict (both take exact distances: a tie of the rounded GEMM never decides).
The optimisers differ on purpose (reference: gradient descent; fast: L-BFGS): their pair compares the contract (the
result type, shapes, fixed labels, a non-increasing loss path starting at the same L(Z_0), a finite gamma^2) and the
errors on bad input, not the iterates; tests/test_snc.py checks the loss paths further.
"""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.snc
import reference.snc
from spec.compare import assert_same
from spec.pairs import Call, Pair

_COORD = st.one_of(st.integers(-3, 3).map(float), st.floats(-4.0, 4.0, allow_nan=False, width=64))
_GAMMA2 = st.sampled_from([1e-6, 0.05, 0.5, 1.0, 3.0, 40.0, 1e3])


@st.composite
def _problems(draw, metric=None):
    n = draw(st.integers(1, 9))
    m = draw(st.integers(1, 6))
    d = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, d), elements=_COORD))
    Z = draw(hnp.arrays(np.float64, (m, d), elements=_COORD))
    zl = np.array(draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))
    y = np.array(draw(st.lists(st.sampled_from(sorted(set(zl.tolist()))), min_size=n, max_size=n)))
    if metric is None:
        return Call((X, y, Z, zl, draw(_GAMMA2)))
    if metric == "diagonal":
        A = draw(hnp.arrays(np.float64, d, elements=st.floats(-2.0, 2.0, width=64)))
    else:
        r = draw(st.integers(1, 3))
        A = draw(hnp.arrays(np.float64, (r, d), elements=st.floats(-2.0, 2.0, width=64)))
    return Call((X, y, Z, zl, A))


def _close(rtol=1e-7, atol_rel=1e-9):
    def compare(ref, fst):
        leaves_r = ref if isinstance(ref, tuple) else (ref,)
        leaves_f = fst if isinstance(fst, tuple) else (fst,)
        assert len(leaves_r) == len(leaves_f)
        for a, b in zip(leaves_r, leaves_f):
            size = float(np.max(np.abs(a))) if np.size(a) else 0.0
            assert_same(a, b, rtol=rtol, atol=atol_rel * max(size, 1.0))
    return compare


_BAD = st.sampled_from([
    Call((np.ones((3, 2)), [0, 1, 1], np.ones((2, 2)), [0, 1], 0.0)),
    Call((np.ones((3, 2)), [0, 1, 1], np.ones((2, 2)), [0, 1], -2.0)),
    Call((np.ones((3, 2)), [0, 1, 2], np.ones((2, 2)), [0, 1], 1.0)),
    Call((np.ones((3, 2)), [0, 1, 1], np.ones((2, 3)), [0, 1], 1.0)),
    Call((np.array([[np.nan, 1.0]]), [0], np.ones((1, 2)), [0], 1.0)),
    Call((np.ones((3, 2)), [0, 1], np.ones((2, 2)), [0, 1], 1.0)),
    Call((np.ones((3, 2)), ["a", "b", "a"], np.ones((2, 2)), [0, 1], 1.0)),
])


@st.composite
def _alloc_calls(draw):
    counts = draw(st.lists(st.integers(1, 30), min_size=1, max_size=6))
    m = draw(st.integers(len(counts), sum(counts)))
    return Call((np.array(counts), m))


@st.composite
def _init_calls(draw):
    y = np.array(draw(st.lists(st.integers(0, 4), min_size=1, max_size=40)))
    m = draw(st.integers(len(set(y.tolist())), len(y)))
    return Call((y, m, draw(st.integers(0, 2**31))))


_X3, _Z2 = np.ones((3, 2)), np.ones((2, 2))
_BAD_PROB = st.sampled_from([Call((_X3, _Z2, 0.0)), Call((_X3, np.ones((2, 3)), 1.0)),
                             Call((np.array([[np.nan, 1.0]]), _Z2, 1.0))])
_BAD_SNE = st.sampled_from([Call((_X3, 0.0)), Call((np.ones((1, 2)), 1.0)), Call((np.array([[np.inf, 1.0]] * 2), 1.0))])
_BAD_NCA = st.sampled_from([Call((_X3, [0, 1, 1], np.ones((2, 3)))), Call((_X3, [0, 1], np.ones((2, 2)))),
                            Call((_X3, [0, 1, 1], np.array([np.nan, 1.0])))])
_BAD_METRIC = st.sampled_from([Call((_X3, [0, 1, 1], _Z2, [0, 1], np.ones(3))),
                               Call((_X3, [0, 1, 1], _Z2, [0, 1], np.array([np.nan, 1.0]))),
                               Call((_X3, [0, 1, 1], _Z2, [0, 1], np.ones((2, 3)))),
                               Call((_X3, [0, 1, 2], _Z2, [0, 1], np.ones(2)))])
_BAD_INIT = st.sampled_from([Call((np.array([0, 1, 1]), 1, 0)), Call((np.array([0, 1, 1]), 4, 0)),
                             Call((np.array([0, 1, 1]), 2, -1))])


#: snc_optimize: the bad inputs of the loss, and an unknown metric (both optimisers take ``metric``: same ValueError)
_BAD_OPT = st.one_of(_BAD, st.sampled_from([
    Call((np.ones((3, 2)), [0, 1, 1], np.ones((2, 2)), [0, 1], 1.0), {"metric": "mahalanobis"}),
    Call((np.ones((3, 2)), [0, 1, 1], np.ones((2, 2)), [0, 1], 1.0), {"metric": None, "max_iter": 3}),
]))


@st.composite
def _predict_calls(draw):
    """Compressed sets with exact ties on purpose: integer coordinates, duplicated references (same or different
    labels), queries copied from references or midway between two of them; labels integers or strings."""
    m = draw(st.integers(1, 7))
    d = draw(st.integers(1, 3))
    Z = draw(hnp.arrays(np.float64, (m, d), elements=_COORD))
    if m >= 2 and draw(st.booleans()):
        Z[draw(st.integers(1, m - 1))] = Z[0]
    n = draw(st.integers(1, 8))
    X = draw(hnp.arrays(np.float64, (n, d), elements=_COORD))
    if draw(st.booleans()):
        X[0] = Z[draw(st.integers(0, m - 1))]
    if m >= 2 and n >= 2 and draw(st.booleans()):
        X[1] = (Z[0] + Z[m - 1]) / 2.0
    zl = np.array(draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))
    if draw(st.booleans()):
        zl = np.array(["b", "a", "c"])[zl]
    return Call((Z, zl, X), {"k": draw(st.integers(1, m))})


_Z2L = (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0, 1]))
_BAD_PREDICT = st.sampled_from([
    Call((*_Z2L, np.ones((3, 3)))),                                   # d mismatch at predict
    Call((*_Z2L, np.array([[np.nan, 1.0]]))),                         # NaN query
    Call((np.array([[np.inf, 1.0], [1.0, 0.0]]), _Z2L[1], np.ones((1, 2)))),  # inf reference
    Call((*_Z2L, np.ones((0, 2)))),                                   # no queries
    Call((np.ones((0, 2)), np.array([], dtype=int), np.ones((1, 2)))),  # empty compressed set
    Call((*_Z2L, np.ones((1, 2))), {"k": 0}),
    Call((*_Z2L, np.ones((1, 2))), {"k": 3}),
    Call((*_Z2L, np.ones((1, 2))), {"k": 1.0}),
    Call((_Z2L[0], np.array([0, 1, 1]), np.ones((1, 2)))),            # z_labels length
    Call((_Z2L[0], np.array([0.5, 1.0]), np.ones((1, 2)))),           # non-integer labels
    Call((_Z2L[0], _Z2L[1], np.ones(2))),                             # X 1-d
])


def _same_fit_contract(ref, fst):
    """Different optimisers, one contract: same labels and shapes, the same starting loss, non-increasing paths."""
    assert type(ref).__name__ == type(fst).__name__ == "SNCFit"
    assert ref.Z.shape == fst.Z.shape and np.array_equal(ref.z_labels, fst.z_labels)
    assert np.isfinite(ref.gamma2) and np.isfinite(fst.gamma2) and ref.gamma2 > 0 and fst.gamma2 > 0
    for fit in (ref, fst):
        assert np.all(np.isfinite(fit.Z)) and fit.losses.size >= 1
        assert np.all(np.diff(fit.losses) <= 1e-9 * np.maximum(1.0, np.abs(fit.losses[:-1])))
    assert_same(ref.losses[0], fst.losses[0], rtol=1e-7, atol=1e-9 * max(1.0, abs(float(ref.losses[0]))))


PAIRS = {
    "snc.snc_loss": Pair(reference.snc.snc_loss, fast.snc.snc_loss, _problems(), claim="kusner2016.ch3.eq5",
                         bad_inputs=_BAD, compare=_close(), note="GEMM distances vs exactly rounded sums"),
    "snc.snc_gradient": Pair(reference.snc.snc_gradient, fast.snc.snc_gradient, _problems(),
                             claim="kusner2016.ch3.eq6", bad_inputs=_BAD, compare=_close(1e-6, 1e-7),
                             note="gradient entries near 0 by cancellation: atol relative to the largest entry"),
    "snc.snc_log_correct": Pair(reference.snc.snc_log_correct, fast.snc.snc_log_correct, _problems(),
                                claim="kusner2016.ch3.eq2", bad_inputs=_BAD, compare=_close()),
    "snc.snc_probabilities": Pair(reference.snc.snc_probabilities, fast.snc.snc_probabilities,
                                  _problems().map(lambda c: Call((c.args[0], c.args[2], c.args[4]))),
                                  claim="kusner2016.ch3.eq3", compare=_close(), bad_inputs=_BAD_PROB),
    "snc.sne_probabilities": Pair(reference.snc.sne_probabilities, fast.snc.sne_probabilities,
                                  _problems().filter(lambda c: c.args[0].shape[0] >= 2).map(
                                      lambda c: Call((c.args[0], c.args[4]))),
                                  claim="kusner2016.ch3.eq1", compare=_close(), bad_inputs=_BAD_SNE),
    "snc.nca_correct_probabilities": Pair(reference.snc.nca_correct_probabilities,
                                          fast.snc.nca_correct_probabilities,
                                          _problems("full").filter(lambda c: c.args[0].shape[0] >= 2).map(
                                              lambda c: Call((c.args[0], c.args[1], c.args[4]))),
                                          claim="kusner2016.ch3.eq2", compare=_close(), bad_inputs=_BAD_NCA),
    "snc.snc_metric_loss": Pair(reference.snc.snc_metric_loss, fast.snc.snc_metric_loss,
                                st.one_of(_problems("diagonal"), _problems("full")), claim="kusner2016.ch3.eq7",
                                compare=_close(), bad_inputs=_BAD_METRIC),
    "snc.snc_metric_gradient": Pair(reference.snc.snc_metric_gradient, fast.snc.snc_metric_gradient,
                                    st.one_of(_problems("diagonal"), _problems("full")),
                                    claim="kusner2016.ch3.eq8", compare=_close(1e-6, 1e-7), bad_inputs=_BAD_METRIC),
    "snc.class_allocation": Pair(reference.snc.class_allocation, fast.snc.class_allocation, _alloc_calls(),
                                 claim="kusner2016.ch3.init",
                                 bad_inputs=st.sampled_from([Call(([3, 4], 1)), Call(([3, 4], 8)), Call(([0, 4], 2)),
                                                             Call(([3, 4], 2.5))])),
    "snc.class_proportional_init": Pair(reference.snc.class_proportional_init, fast.snc.class_proportional_init,
                                        _init_calls(), claim="kusner2016.ch3.init", bad_inputs=_BAD_INIT),
    "snc.snc_optimize": Pair(reference.snc.snc_optimize, fast.snc.snc_optimize,
                             _problems().map(lambda c: Call(c.args, {"max_iter": 5})), claim="kusner2016.ch3.alg2",
                             bad_inputs=_BAD_OPT, compare=_same_fit_contract, max_examples=20,
                             note="different optimisers on purpose: the contract is compared, not the iterates"),
    "snc.snc_predict": Pair(reference.snc.snc_predict, fast.snc.snc_predict, _predict_calls(),
                            claim="kusner2016.ch3.nn-rule", bad_inputs=_BAD_PREDICT, max_examples=100,
                            note="labels compared exactly (exact distances, lowest index on ties, smallest label "
                                 "on vote ties): exact ties and duplicates are drawn on purpose"),
}
