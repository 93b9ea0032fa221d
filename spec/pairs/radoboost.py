"""Reference-vs-fast pairs of the radoboost module (RadoBoost, Omega-R.AdaBoost, AdaBoost).

Every run of both packages is also checked against nock2015 Lemma 4 (RadoBoost) or nock2016's identity
loss = prod_t Z_t (Omega-R.AdaBoost), so each hypothesis example tests the papers as well as the pairing.
Tolerance: chosen features and stop reasons compare exactly; floats within rtol 1e-9 / atol 1e-12: the
reference sums with math.fsum and recomputes the margins theta . pi_j each round, the fast package uses a
BLAS gemv and running margins, and over <= 8 rounds the rounding differences stay ~1e-13 relative (an edge
near +-1 amplifies them through alpha = atanh(r)/pi_*; 1e-9 leaves room for that).
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.radoboost
import reference.radoboost
from spec.compare import assert_same
from spec.pairs import Call, Pair
from spec.strategies import BAD_OPEN_UNIT, bad_matrices, seeds

RTOL, ATOL = 1e-9, 1e-12


INT_ENTRY = st.integers(-6, 6).map(float)
FLOAT_ENTRY = st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False, width=64).map(
    lambda v: 0.0 if abs(v) < 1e-100 else v)  # 0 < |v| < 1e-100 is refused (MIN_PSTAR); tested in bad_inputs


@st.composite
def rado_matrices(draw, max_n: int = 8, max_d: int = 4):
    """(n, d) rados, one per ROW: integer or real entries, with zero columns, duplicated rows, n = 1."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    Pi = draw(hnp.arrays(np.float64, (n, d), elements=draw(st.sampled_from([INT_ENTRY, FLOAT_ENTRY]))))
    if draw(st.booleans()):
        Pi[:, draw(st.integers(0, d - 1))] = 0.0
    if n > 1 and draw(st.booleans()):
        Pi[draw(st.integers(1, n - 1))] = Pi[0]
    if d > 1 and draw(st.booleans()):
        Pi[:, d - 1] = Pi[:, 0]  # an exact tie between features 0 and d-1
    if draw(st.integers(0, 9)) == 0:
        Pi[:] = 0.0  # every feature zero
    return Pi


@st.composite
def radoboost_calls(draw):
    Pi = draw(rado_matrices())
    T = draw(st.integers(0, 8))
    wl = draw(st.sampled_from(["strong", "prudential", "median", "random"]))
    kwargs = {"weak_learner": wl, "kappa": draw(st.sampled_from([1.0, 1.5, 4.0])), "rng": draw(seeds())}
    if wl == "prudential":
        kwargs["lambda_p"] = draw(st.sampled_from([0.05, 0.25, 0.3, 0.5, 0.9]))  # 0.25, 0.5: exact-edge ties
    return Call((Pi, T), kwargs)


def _check_lemma4(result, slack: float = 1e-9) -> None:
    """nock2015 Lemma 4, its sharper chain, and eq. (11) keeping w a distribution, on one run."""
    assert np.all(result.weights >= 0) and abs(math.fsum(result.weights) - 1.0) < 1e-12
    if result.features.size == 0:
        return
    log_f = float(result.log_exp_risk[-1])
    chain, total, wla = result.lemma4_log_bounds()
    assert log_f <= chain + slack * (1 + abs(chain)), f"Lemma 4 chain: log F = {log_f} > {chain}"
    assert chain <= total + slack * (1 + abs(total)), f"(1 - r r*)/sqrt(1-r*^2) <= exp(-r*^2/2): {chain} > {total}"
    assert total <= wla + slack, f"sum r*^2 >= T gamma^2: {total} > {wla}"


def compare_radoboost(ref, fst) -> None:
    _check_lemma4(ref)
    _check_lemma4(fst)
    assert_same(ref, fst, rtol=RTOL, atol=ATOL)


@st.composite
def bad_radoboost_calls(draw):
    good = np.array([[1.0, -2.0], [3.0, 0.5]])
    kind = draw(st.sampled_from(["rados", "tiny", "T", "T_type", "kappa", "lambda_p", "lambda_missing",
                                 "lambda_unused", "wl", "wl_type", "rng"]))
    args, kwargs = (good, 3), {}
    if kind == "rados":
        args = (draw(bad_matrices(4, 2)), 3)
    elif kind == "tiny":  # 0 < pi_*k < 1e-100: alpha ~ 1/pi_* would overflow
        args = (np.array([[1.0, draw(st.sampled_from([1e-101, 5e-324, -2e-200]))], [2.0, 0.0]]), 3)
    elif kind == "T":
        args = (good, draw(st.integers(-5, -1)))
    elif kind == "T_type":
        args = (good, draw(st.sampled_from([2.5, "3", None])))
    elif kind == "kappa":
        kwargs["kappa"] = draw(st.sampled_from([0.5, 0.0, -1.0, float("nan"), float("inf")]))
    elif kind == "lambda_p":
        kwargs.update(weak_learner="prudential", lambda_p=draw(BAD_OPEN_UNIT))
    elif kind == "lambda_missing":
        kwargs["weak_learner"] = "prudential"
    elif kind == "lambda_unused":
        kwargs.update(weak_learner="strong", lambda_p=0.5)
    elif kind == "wl":
        kwargs["weak_learner"] = draw(st.sampled_from(["best", "", "Strong"]))
    elif kind == "wl_type":
        kwargs["weak_learner"] = 3
    else:
        kwargs["rng"] = draw(st.sampled_from([-1, "seed", 1.5]))
    return Call(args, kwargs)


REGULARIZER_CHOICES = [
    ("none", {}),
    ("lasso", {}),
    ("ridge", {}),
    ("linf", {}),
    ("slope", {"q": 0.2}),
    ("elastic_net", {"l1": 0.5, "l2": 2.0}),
]


@st.composite
def omega_calls(draw):
    Pi = draw(rado_matrices())
    T = draw(st.integers(0, 8))
    reg, params = draw(st.sampled_from(REGULARIZER_CHOICES))
    kwargs = {"regularizer": reg, "omega": draw(st.sampled_from([0.0, 1e-3, 0.1, 1.0])),
              "weak_learner": draw(st.sampled_from(["preference", "half_square", "strong"]))}
    if params:
        kwargs["regularizer_params"] = params
    if reg == "ridge" and draw(st.booleans()):
        kwargs["gamma"] = draw(st.sampled_from([0.3, 0.98]))
    if reg == "ridge" and draw(st.booleans()):
        d = Pi.shape[1]
        A = draw(hnp.arrays(np.float64, (d, d), elements=st.integers(-2, 2).map(float)))
        kwargs["regularizer_params"] = {"Gamma": A @ A.T + np.eye(d)}
    return Call((Pi, T), kwargs)


def _check_lossid(result) -> None:
    """nock2016 alg1.lossid: log l^exp_r(theta_t, Omega) = sum_{t' <= t} log Z_t' (telescoping delta)."""
    assert np.all(result.weights >= 0) and abs(math.fsum(result.weights) - 1.0) < 1e-12
    if result.features.size:
        np.testing.assert_allclose(result.log_loss, np.cumsum(result.log_z), rtol=1e-9, atol=1e-9)


def compare_omega(ref, fst) -> None:
    _check_lossid(ref)
    _check_lossid(fst)
    assert_same(ref, fst, rtol=RTOL, atol=ATOL)


@st.composite
def bad_omega_calls(draw):
    good = np.array([[1.0, -2.0], [3.0, 0.5]])
    kind = draw(st.sampled_from(["rados", "T", "omega", "gamma", "gamma_lasso", "reg", "reg_type", "wl",
                                 "params", "Gamma_shape", "none_params"]))
    args, kwargs = (good, 3), {"regularizer": "ridge", "omega": 0.1}
    if kind == "rados":
        args = (draw(bad_matrices(4, 2)), 3)
    elif kind == "T":
        args = (good, -1)
    elif kind == "omega":
        kwargs["omega"] = draw(st.sampled_from([-0.1, float("nan"), float("inf")]))
    elif kind == "gamma":
        kwargs["gamma"] = draw(BAD_OPEN_UNIT)
    elif kind == "gamma_lasso":
        kwargs.update(regularizer="lasso", gamma=0.5)
    elif kind == "reg":
        kwargs["regularizer"] = draw(st.sampled_from(["l2", "", "Lasso", "group"]))
    elif kind == "reg_type":
        kwargs["regularizer"] = None
    elif kind == "wl":
        kwargs["weak_learner"] = "median"
    elif kind == "Gamma_shape":  # refused before any round, even with T = 0 or omega = 0
        args = (good, draw(st.sampled_from([0, 3])))
        kwargs.update(omega=draw(st.sampled_from([0.0, 0.1])), regularizer_params={"Gamma": np.eye(3)})
    elif kind == "none_params":
        kwargs.update(regularizer="none", regularizer_params={"q": 0.1})
    else:
        kwargs["regularizer_params"] = [1, 2]
    return Call(args, kwargs)


@st.composite
def adaboost_calls(draw):
    m = draw(st.integers(1, 10))
    d = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (m, d), elements=draw(st.sampled_from([INT_ENTRY, FLOAT_ENTRY]))))
    y = draw(hnp.arrays(np.int8, (m,), elements=st.sampled_from([-1, 1])))
    kwargs = {"rng": draw(seeds())}
    if draw(st.booleans()):
        kwargs["n"] = draw(st.integers(1, m))
    reg, params = draw(st.sampled_from(REGULARIZER_CHOICES + [("lasso", {})] * 3))  # mostly l1 (nock2016 s5)
    if reg != "none" or draw(st.booleans()):
        kwargs.update(regularizer=reg, omega=draw(st.sampled_from([0.0, 1e-4, 0.1, 1.0, 1e4])))
        if params:
            kwargs["regularizer_params"] = params
    return Call((X, y, draw(st.integers(0, 8))), kwargs)


@st.composite
def bad_adaboost_calls(draw):
    X = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
    y = np.array([1, -1, 1])
    kind = draw(st.sampled_from(["X", "y", "T", "n", "n_big", "omega", "reg", "reg_type", "params"]))
    args, kwargs = (X, y, 3), {}
    if kind == "X":
        args = (draw(bad_matrices(3, 2)), y, 3)
    elif kind == "y":
        args = (X, draw(st.sampled_from([np.array([0, 1, 1]), np.array([1, -1]), np.array([1.0, 2.0, -1.0])])), 3)
    elif kind == "T":
        args = (X, y, -2)
    elif kind == "n":
        kwargs["n"] = 0
    elif kind == "n_big":
        kwargs["n"] = 4
    elif kind == "omega":
        kwargs.update(regularizer="lasso", omega=draw(st.sampled_from([-1e-4, float("nan"), float("inf"), "1"])))
    elif kind == "reg":
        kwargs.update(regularizer=draw(st.sampled_from(["l1", "", "Lasso"])), omega=1.0)
    elif kind == "reg_type":
        kwargs["regularizer"] = draw(st.sampled_from([None, 1]))
    else:
        kwargs.update(regularizer="slope", omega=1.0, regularizer_params=[0.1])
    return Call(args, kwargs)


@st.composite
def edge_calls(draw):
    Pi = draw(rado_matrices())
    w = draw(hnp.arrays(np.float64, (Pi.shape[0],), elements=st.floats(0.0, 1.0, width=64)))
    return Call((Pi, w))


@st.composite
def bad_edge_calls(draw):
    Pi = np.array([[1.0, 0.0], [2.0, -1.0]])
    kind = draw(st.sampled_from(["rados", "negative", "length", "nan"]))
    if kind == "rados":
        return Call((draw(bad_matrices(2, 2)), np.ones(2)))
    if kind == "negative":
        return Call((Pi, np.array([0.5, -0.5])))
    if kind == "length":
        return Call((Pi, np.ones(3)))
    return Call((Pi, np.array([np.nan, 1.0])))


PAIRS = {
    "radoboost.normalised_edges": Pair(
        reference=reference.radoboost.normalised_edges, fast=fast.radoboost.normalised_edges,
        inputs=edge_calls(), claim="nock2016.eq19", rtol=1e-12, atol=1e-15, bad_inputs=bad_edge_calls(),
        note="fsum vs BLAS gemv: a few ulps; atol for edges that cancel to ~0"),
    "radoboost.radoboost": Pair(
        reference=reference.radoboost.radoboost, fast=fast.radoboost.radoboost, inputs=radoboost_calls(),
        claim="nock2015.alg1", compare=compare_radoboost, bad_inputs=bad_radoboost_calls(), max_examples=80,
        note="features exact; floats rtol 1e-9 (fsum vs gemv amplified by atanh near |r| = 1); Lemma 4 on both"),
    "radoboost.omega_radaboost": Pair(
        reference=reference.radoboost.omega_radaboost, fast=fast.radoboost.omega_radaboost,
        inputs=omega_calls(), claim="nock2016.alg1", compare=compare_omega, bad_inputs=bad_omega_calls(),
        max_examples=80, note="as radoboost; the identity loss = prod Z_t checked on both"),
    "radoboost.adaboost": Pair(
        reference=reference.radoboost.adaboost, fast=fast.radoboost.adaboost, inputs=adaboost_calls(),
        claim="nock2015.alg.adaboost", compare=compare_omega, bad_inputs=bad_adaboost_calls(), max_examples=80,
        note="as radoboost; AdaBoost(n) takes the same rng.permutation draw in both; plain and regularised "
             "(l1-AdaBoost of nock2016 s5, claim nock2016.sec5.l1ada) runs, loss = prod Z_t checked on both"),
}
