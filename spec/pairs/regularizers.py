"""Pairs for reference.regularizers / fast.regularizers (nock2016 eq. 20).

Tolerances: sums of |theta_k| or theta_i Gamma_ij theta_j (fsum vs BLAS) rtol 1e-10 -- Gamma = A A^T + I
with |A_ij| <= 2 and d <= 6 has condition number <= ~100, so theta^T Gamma theta >= ||theta||^2 keeps the
rounding relative; SLOPE weights: statistics.NormalDist.inv_cdf vs scipy ndtri, rtol 1e-12.
"""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.regularizers as F
import reference.regularizers as R
from spec.pairs import Call, Pair
from spec.strategies import BAD_OPEN_UNIT, thetas

Q = st.floats(1e-6, 1 - 1e-6, allow_nan=False)


@st.composite
def _theta(draw):
    return draw(thetas(draw(st.integers(1, 6))))


@st.composite
def _spd(draw, d):
    A = draw(hnp.arrays(np.float64, (d, d), elements=st.floats(-2.0, 2.0, allow_nan=False, width=64)))
    G = A @ A.T + np.eye(d)
    return (G + G.T) / 2


@st.composite
def _gamma_calls(draw):
    theta = draw(_theta())
    return Call((theta,), {"Gamma": draw(st.one_of(st.none(), _spd(len(theta))))})


@st.composite
def _bad_gamma(draw, d=2):
    kind = draw(st.sampled_from(["asym", "neg", "zero", "shape", "nan", "1d"]))
    return {
        "asym": np.array([[1.0, 0.5], [0.0, 1.0]]),
        "neg": np.array([[1.0, 0.0], [0.0, -1.0]]),
        "zero": np.zeros((2, 2)),
        "shape": np.eye(3),
        "nan": np.array([[np.nan, 0.0], [0.0, 1.0]]),
        "1d": np.ones(2),
    }[kind]


BAD_THETA = st.sampled_from([np.array([np.nan, 1.0]), np.array([np.inf]), np.ones((2, 2)), np.ones(0), "theta"])
_bad_theta_only = BAD_THETA.map(lambda t: Call((t,)))


@st.composite
def _slope_calls(draw):
    return Call((draw(_theta()), draw(Q)))


_bad_slope = st.one_of(
    BAD_OPEN_UNIT.map(lambda q: Call((np.ones(3), q))),
    BAD_THETA.map(lambda t: Call((t, 0.5))),
)


@st.composite
def _weights_calls(draw):
    return Call((draw(st.integers(1, 200)), draw(Q)))


_bad_weights = st.one_of(
    BAD_OPEN_UNIT.map(lambda q: Call((3, q))),
    st.sampled_from([0, -2, 2.5, "3"]).map(lambda d: Call((d, 0.5))),
)


@st.composite
def _elastic_calls(draw):
    theta = draw(_theta())
    return Call((theta,), {"l1": draw(st.floats(0.0, 5.0)), "l2": draw(st.floats(0.0, 5.0)),
                           "Gamma": draw(st.one_of(st.none(), _spd(len(theta))))})


_bad_elastic = st.one_of(
    _bad_gamma().map(lambda G: Call((np.ones(2),), {"Gamma": G})),
    st.sampled_from([-1.0, np.nan, np.inf]).map(lambda w: Call((np.ones(2),), {"l1": w})),
    st.sampled_from([-1.0, np.nan]).map(lambda w: Call((np.ones(2),), {"l2": w})),
    _bad_theta_only,
)


def _via_get(module):
    def apply(name, params, theta):
        """get_regularizer(name, **params)(theta): the callable is compared through its value."""
        return module.get_regularizer(name, **params)(theta)

    return apply


@st.composite
def _get_calls(draw):
    name = draw(st.sampled_from(R.REGULARIZER_NAMES))
    theta = draw(_theta())
    params = {}
    if name == "slope":
        params["q"] = draw(Q)
    if name in ("ridge", "elastic_net") and draw(st.booleans()):
        params["Gamma"] = draw(_spd(len(theta)))
    if name == "elastic_net":
        params["l1"] = draw(st.floats(0.0, 3.0))
    return Call((name, params, theta))


_bad_get = st.one_of(
    st.sampled_from(["l2", "Lasso", "", None]).map(lambda n: Call((n, {}, np.ones(2)))),
    BAD_OPEN_UNIT.map(lambda q: Call(("slope", {"q": q}, np.ones(2)))),
    st.just(Call(("slope", {}, np.ones(2)))),
    st.just(Call(("lasso", {"Gamma": np.eye(2)}, np.ones(2)))),
    _bad_gamma().map(lambda G: Call(("ridge", {"Gamma": G}, np.ones(2)))),
    BAD_THETA.map(lambda t: Call(("none", {}, t))),
)

NOTE = "sums of |theta| / quadratic forms, fsum vs numpy: rtol 1e-10 (module docstring)"

PAIRS = {
    "regularizers.lasso": Pair(R.lasso, F.lasso, _theta().map(lambda t: Call((t,))), claim="nock2016.eq20",
                               rtol=1e-12, bad_inputs=_bad_theta_only, note="sum of |theta_k|: rtol 1e-12"),
    "regularizers.linf": Pair(R.linf, F.linf, _theta().map(lambda t: Call((t,))), claim="nock2016.eq20",
                              rtol=0.0, bad_inputs=_bad_theta_only, note="exact: a maximum"),
    "regularizers.ridge": Pair(R.ridge, F.ridge, _gamma_calls(), claim="nock2016.eq20", rtol=1e-10,
                               bad_inputs=st.one_of(_bad_gamma().map(lambda G: Call((np.ones(2), G))), _bad_theta_only),
                               note=NOTE),
    "regularizers.slope_weights": Pair(R.slope_weights, F.slope_weights, _weights_calls(), claim="nock2016.eq20",
                                       rtol=1e-12, bad_inputs=_bad_weights,
                                       note="normal quantiles from two implementations: rtol 1e-12"),
    "regularizers.slope": Pair(R.slope, F.slope, _slope_calls(), claim="nock2016.eq20", rtol=1e-11,
                               bad_inputs=_bad_slope, note="sorted inner product with the weights: rtol 1e-11"),
    "regularizers.elastic_net": Pair(R.elastic_net, F.elastic_net, _elastic_calls(), claim="nock2016.eq20",
                                     rtol=1e-10, atol=1e-300, bad_inputs=_bad_elastic, note=NOTE),
    "regularizers.get_regularizer": Pair(_via_get(R), _via_get(F), _get_calls(), claim="nock2016.eq20",
                                         rtol=1e-10, atol=1e-300, bad_inputs=_bad_get,
                                         note="the returned callables compared through their values; " + NOTE),
}
