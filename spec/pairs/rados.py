"""reference.rados vs fast.rados: one Pair per public function (nock2015 s2, s7).

Tolerances: the reference sums with math.fsum (exactly rounded), fast with BLAS/numpy (rounding error of order
m * eps * sum |terms|).  Features lie in [-10, 10], m <= 12, d <= 5, theta in [-3, 3]^d, so margins and
theta . pi are at most ~1800 in magnitude; their absolute rounding error is ~1e-12, which is the RELATIVE error of
exp(-theta . pi) and the ABSOLUTE error of its log.  Each pair says which applies.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fast.rados as fast_rados
import reference.rados as ref_rados
from spec.pairs import Call, Pair
from spec.strategies import bad_matrices, datasets, labels, seeds, signatures, thetas



MAX_M = 8  # enumerations in the reference stay fast


@st.composite
def edge_inputs(draw):
    X, y = draw(datasets())
    return Call((X, y))


@st.composite
def rados_inputs(draw):
    X, y = draw(datasets())
    n = draw(st.integers(1, 20))
    sigmas = draw(signatures(n, X.shape[0]))
    return Call((X, y, sigmas))


@st.composite
def enumerate_inputs(draw):
    X, y = draw(datasets(max_m=MAX_M))
    return Call((X, y))


@st.composite
def g_inputs(draw):
    return Call((draw(st.integers(1, 12)),))


@st.composite
def sampler_inputs(draw):
    m = draw(st.integers(1, 12))
    y = draw(labels(m))
    n = draw(st.integers(1, 40))
    support = draw(st.one_of(st.none(), st.integers(1, m)))
    return Call((y, n), {"rng": draw(seeds()), "support": support})


@st.composite
def support_size_inputs(draw):
    m = draw(st.integers(1, 12))
    return Call((draw(labels(m)), draw(signatures(draw(st.integers(1, 10)), m))))


@st.composite
def risk_inputs(draw):
    X, y = draw(datasets())
    return Call((X, y, draw(thetas(X.shape[1]))))


@st.composite
def rado_risk_inputs(draw, with_m=False):
    X, y = draw(datasets(max_m=MAX_M))
    n = draw(st.integers(1, 30))
    sigmas = draw(signatures(n, X.shape[0]))
    R = fast_rados.rados(X, y, sigmas)
    theta = draw(thetas(X.shape[1], scale=draw(st.sampled_from([0.1, 3.0, 50.0]))))
    return Call((R, theta, X.shape[0]) if with_m else (R, theta))


@st.composite
def theorem3_inputs(draw):
    X, y = draw(datasets(max_m=MAX_M))
    m = X.shape[0]
    theta = draw(thetas(X.shape[1], scale=1.0))
    size = draw(st.integers(1, 2**m))
    rows = draw(st.permutations(range(2**m)))[:size]
    r_theta = draw(st.one_of(st.none(), st.floats(1.0, 3.0)))
    norm = float(np.linalg.norm(theta))
    kwargs = {} if r_theta is None else {"r_theta": max(r_theta, norm * 1.01 + 1e-3)}
    return Call((X, y, theta, np.array(rows, dtype=np.int64)), kwargs)


@st.composite
def eq5_inputs(draw):
    return Call((draw(st.floats(0.0, 1.0)), draw(st.floats(-1.0, 1.0)), draw(st.integers(1, 100)),
                 draw(st.integers(1, 10**6)), draw(st.floats(0.0, 2000.0))))


@st.composite
def eq6_inputs(draw):
    return Call((draw(st.floats(0.0, 800.0)), draw(st.floats(0.0, 10.0)), draw(st.floats(0.0, 100.0)),
                 draw(st.integers(1, 50)), draw(st.integers(1, 10**6)), draw(st.floats(1e-9, 0.999))),
                {"constant": draw(st.floats(0.01, 10.0))})


# --------------------------------------------------------------------------- bad inputs


GOOD_X = np.arange(12, dtype=np.float64).reshape(4, 3) - 5.0
GOOD_Y = np.array([1, -1, -1, 1], dtype=np.int8)
GOOD_SIGMAS = np.array([[1, 1, -1, -1], [-1, 1, -1, 1]], dtype=np.int8)
BAD_LABELS = st.sampled_from([
    np.array([1, 0, -1, 1]), np.array([1, 2, -1, 1]), np.array([1.0, -1.0, 0.5, 1.0]), np.array([1, -1, 1]),
    np.array([[1, -1, 1, 1]]), np.array([1, -1, np.nan, 1]),
])
BAD_SIGMAS = st.sampled_from([
    np.array([[1, 0, -1, 1]]), np.array([[1, 2, -1, 1]]), np.array([1, -1, 1, 1]), np.zeros((0, 4)),
    np.array([[1, -1, 1]]), np.array([[1.0, -1.0, 0.5, 1.0]]), np.array([[True, False, True, True]]),
])
BAD_THETA = st.sampled_from([np.array([1.0, np.nan, 0.0]), np.array([1.0, 2.0]), np.ones((3, 1)),
                             np.array([np.inf, 0.0, 0.0])])
TOO_MANY_ROWS = np.ones((40, 2))  # 2^40 rados


@st.composite
def bad_examples(draw, *tail):
    which = draw(st.sampled_from(["X", "y"]))
    X = draw(bad_matrices(4, 3)) if which == "X" else GOOD_X
    y = draw(BAD_LABELS) if which == "y" else GOOD_Y
    return Call((X, y) + tuple(tail))


@st.composite
def bad_rados_inputs(draw):
    if draw(st.booleans()):
        return draw(bad_examples(GOOD_SIGMAS))
    return Call((GOOD_X, GOOD_Y, draw(BAD_SIGMAS)))


@st.composite
def bad_enumerate(draw):
    if draw(st.booleans()):
        return Call((TOO_MANY_ROWS, np.ones(40, dtype=np.int8)))
    return draw(bad_examples())


BAD_M = st.sampled_from([0, -1, 1.5, "3", None, True, 40, 64])


@st.composite
def bad_sampler(draw):
    kind = draw(st.sampled_from(["y", "n", "support", "rng"]))
    y, n, kw = GOOD_Y, 3, {"rng": 0}
    if kind == "y":
        y = draw(BAD_LABELS.filter(lambda a: a.shape != (3,)))  # any length is a valid label vector here
    elif kind == "n":
        n = draw(st.sampled_from([0, -2, 1.5, None, "4"]))
    elif kind == "support":
        kw["support"] = draw(st.sampled_from([0, 5, -1, 2.5]))
    else:
        kw["rng"] = draw(st.sampled_from([-1, "seed", 1.5]))
    return Call((y, n), kw)


@st.composite
def bad_support_sizes(draw):
    if draw(st.booleans()):
        return Call((draw(BAD_LABELS), GOOD_SIGMAS))
    return Call((GOOD_Y, draw(BAD_SIGMAS)))


@st.composite
def bad_risk(draw):
    if draw(st.booleans()):
        return draw(bad_examples(np.ones(3)))
    return Call((GOOD_X, GOOD_Y, draw(BAD_THETA)))


@st.composite
def bad_rado_risk(draw, with_m=False):
    kind = draw(st.sampled_from(["rados", "theta", "m"] if with_m else ["rados", "theta"]))
    R, theta, m = GOOD_X, np.ones(3), 4
    if kind == "rados":
        R = draw(bad_matrices(4, 3))
    elif kind == "theta":
        theta = draw(BAD_THETA)
    else:
        m = draw(st.sampled_from([0, -3, 2.0, None]))
    return Call((R, theta, m) if with_m else (R, theta))


@st.composite
def bad_theorem3(draw):
    kind = draw(st.sampled_from(["examples", "theta", "rows", "r_theta", "too_large"]))
    args = [GOOD_X, GOOD_Y, np.ones(3), np.array([0, 3, 5])]
    kwargs = {}
    if kind == "examples":
        return draw(bad_examples(np.ones(3), np.array([0, 3, 5])))
    if kind == "theta":
        args[2] = draw(BAD_THETA)
    elif kind == "rows":
        args[3] = draw(st.sampled_from([np.array([0, 0, 1]), np.array([16]), np.array([-1]), np.array([]),
                                        np.array([0.5, 1.0]), np.array([[0, 1]])]))
    elif kind == "r_theta":
        kwargs["r_theta"] = draw(st.sampled_from([0.5, 0.0, -1.0, float("nan"), float("inf")]))
    else:
        args[0], args[1] = TOO_MANY_ROWS, np.ones(40, dtype=np.int8)
        args[2] = np.ones(2)
    return Call(tuple(args), kwargs)


@st.composite
def bad_eq5(draw):
    args = [0.5, 0.1, 10, 100, 3.0]
    i = draw(st.integers(0, 4))
    args[i] = draw(st.sampled_from([[float("nan"), float("inf")], [float("nan"), "x"], [0, 2.5, -1],
                                    [0, -5, 1.5], [-1.0, float("nan")]][i]))
    return Call(tuple(args))


@st.composite
def bad_eq6(draw):
    args = [1.0, 2.0, 3.0, 2, 100, 0.05]
    i = draw(st.integers(0, 5))
    args[i] = draw(st.sampled_from([[float("nan"), float("inf")], [-1.0, float("nan")], [-1.0, float("inf")],
                                    [0, 1.5], [0, -3], [0.0, 1.0, 2.0, float("nan")]][i]))
    return Call(tuple(args))


PAIRS = {
    "rados.edge_vectors": Pair(ref_rados.edge_vectors, fast_rados.edge_vectors, edge_inputs(),
                               claim="nock2015.setup", rtol=0.0, bad_inputs=bad_examples(),
                               note="exact: one product y_i x_ik per entry"),
    "rados.rados": Pair(ref_rados.rados, fast_rados.rados, rados_inputs(), claim="nock2015.def1",
                        rtol=1e-12, atol=1e-12, bad_inputs=bad_rados_inputs(),
                        note="sums of <= 12 terms of size <= 10: fast's rounding <= 12 eps 120 ~ 3e-13 absolute"),
    "rados.g_matrix": Pair(ref_rados.g_matrix, fast_rados.g_matrix, g_inputs(), claim="nock2015.eq20",
                           bad_inputs=BAD_M.map(lambda m: Call((m,))), max_examples=15, note="exact (uint8)"),
    "rados.all_rados": Pair(ref_rados.all_rados, fast_rados.all_rados, enumerate_inputs(), claim="nock2015.eq21",
                            rtol=1e-12, atol=1e-12, bad_inputs=bad_enumerate(), max_examples=30,
                            note="same bound as rados.rados (different summation order)"),
    "rados.sample_signatures": Pair(ref_rados.sample_signatures, fast_rados.sample_signatures, sampler_inputs(),
                                    claim="nock2015.sampling", bad_inputs=bad_sampler(),
                                    note="exact: same seed, same draws in the same order"),
    "rados.support_sizes": Pair(ref_rados.support_sizes, fast_rados.support_sizes, support_size_inputs(),
                                claim="nock2015.eq18", bad_inputs=bad_support_sizes(), note="exact counts"),
    "rados.logistic_risk": Pair(ref_rados.logistic_risk, fast_rados.logistic_risk, risk_inputs(),
                                claim="nock2015.eq1", rtol=1e-10, bad_inputs=bad_risk(),
                                note="margin rounding ~1e-13 relative to |margin| <= 150 enters softplus "
                                     "with slope <= 1 (relative error <= |z| eps)"),
    "rados.logistic_risk_gradient": Pair(ref_rados.logistic_risk_gradient, fast_rados.logistic_risk_gradient,
                                         risk_inputs(), claim="nock2015.eq7", rtol=1e-9, atol=1e-13,
                                         bad_inputs=bad_risk(),
                                         note="weights 1/(1+e^z) carry |z| eps relative error; atol for "
                                              "cancelling coordinates"),
    "rados.log_exp_rado_risk": Pair(ref_rados.log_exp_rado_risk, fast_rados.log_exp_rado_risk, rado_risk_inputs(),
                                    claim="nock2015.eq2", rtol=1e-10, atol=1e-10, bad_inputs=bad_rado_risk(),
                                    note="absolute error of theta.pi (|theta.pi| up to ~2e4 at scale 50: ~1e-11)"),
    "rados.exp_rado_risk": Pair(ref_rados.exp_rado_risk, fast_rados.exp_rado_risk, rado_risk_inputs(),
                                claim="nock2015.eq2", rtol=1e-10, bad_inputs=bad_rado_risk(),
                                note="relative error = absolute error of the log (see log_exp_rado_risk); "
                                     "inf on both sides when the true value overflows"),
    "rados.log_rado_risk": Pair(ref_rados.log_rado_risk, fast_rados.log_rado_risk, rado_risk_inputs(with_m=True),
                                claim="nock2015.eq4", rtol=1e-10, atol=1e-10, bad_inputs=bad_rado_risk(with_m=True),
                                note="log 2 + (log-risk)/m: the log-risk's absolute error, divided by m"),
    "rados.theorem3_quantities": Pair(ref_rados.theorem3_quantities, fast_rados.theorem3_quantities,
                                      theorem3_inputs(), claim="nock2015.thm3.rho", rtol=1e-9, atol=1e-12,
                                      bad_inputs=bad_theorem3(), max_examples=30,
                                      note="differences of log-sum-exps over <= 256 rados (Q cancels: atol)"),
    "rados.theorem3_eq5_bound": Pair(ref_rados.theorem3_eq5_bound, fast_rados.theorem3_eq5_bound, eq5_inputs(),
                                     claim="nock2015.eq5", rtol=0.0, bad_inputs=bad_eq5(),
                                     note="same scalar formula, same operations: exact"),
    "rados.theorem3_eq6_q": Pair(ref_rados.theorem3_eq6_q, fast_rados.theorem3_eq6_q, eq6_inputs(),
                                 claim="nock2015.eq6", rtol=0.0, bad_inputs=bad_eq6(),
                                 note="same scalar formula, same operations: exact"),
}
