"""Pairs for reference.losses / fast.losses (nock2016 s2-3).

The reference enumerates the 2^m subsets J through G_m; fast uses product / moment identities (see
fast.losses), so every value pair here also checks those identities on random margins.
Tolerances: losses and game values rtol 1e-9 with atol 1e-12 -- the inputs keep |z_i| <= 20 and
mu >= 0.05, so values reach ~1e7 (row II: 2^m V_J s / (2 mu)); measured on 1500 random calls per function
(|z| scaled by 1, 1e-2 and 1e-6), the worst |ref - fast| beyond 1e-9 relative was 1.1e-16 absolute, so atol
1e-12 leaves four orders of margin (it was 1e-6, which let a 0.1% error pass on values ~1e-3);
generators and shifts are elementwise (rtol 1e-12).
"""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.losses as F
import reference.losses as R
from spec.pairs import Call, Pair
from spec.strategies import BAD_POSITIVE, thetas

ROWS = st.sampled_from(R.ROWS)
MU = st.floats(0.05, 20.0, allow_nan=False)
MARGIN = st.floats(-20.0, 20.0, allow_nan=False, width=64)
BAD_ROW = st.sampled_from(["V", "i", "", 1, None])


def _z(max_m=10):
    return st.integers(1, max_m).flatmap(lambda m: hnp.arrays(np.float64, (m,), elements=MARGIN))


@st.composite
def _margin_calls(draw, max_m=10):
    return Call((draw(_z(max_m)), draw(ROWS), draw(MU)))


@st.composite
def _bad_margin_calls(draw):
    kind = draw(st.sampled_from(["nan", "inf", "2d", "empty", "row", "mu", "huge"]))
    z, row, mu = np.ones(3), draw(ROWS), 1.0
    if kind == "nan":
        z[draw(st.integers(0, 2))] = np.nan
    elif kind == "inf":
        z[0] = -np.inf
    elif kind == "2d":
        z = np.ones((2, 2))
    elif kind == "empty":
        z = np.ones(0)
    elif kind == "row":
        row = draw(BAD_ROW)
    elif kind == "mu":
        mu = draw(BAD_POSITIVE)
    else:
        z, mu = np.array([1.0, 1e90]), 1e-20
    return Call((z, row, mu))


@st.composite
def _generator_calls(draw):
    row = draw(ROWS)
    x = draw(st.one_of(st.floats(-0.5, 1.5, allow_nan=False), st.sampled_from([0.0, 0.5, 1.0, 2.0**-3])))
    m = draw(st.integers(1, 12)) if row == "IV" else draw(st.one_of(st.none(), st.integers(1, 12)))
    return Call((x, row, m))


_bad_generator_calls = st.one_of(
    st.builds(lambda x: Call((x, "I")), st.sampled_from([np.nan, np.inf, "a", None])),
    st.builds(lambda r: Call((0.3, r)), BAD_ROW),
    st.just(Call((0.3, "IV"))),  # m missing
    st.builds(lambda m: Call((0.3, "IV", m)), st.sampled_from([0, -1, 2.5, 5000])),
)


@st.composite
def _set_theta(draw, max_n=8, max_d=4):
    n, d = draw(st.integers(1, max_n)), draw(st.integers(1, max_d))
    points = draw(hnp.arrays(np.float64, (n, d), elements=st.floats(-5.0, 5.0, allow_nan=False, width=64)))
    return points, draw(thetas(d))


@st.composite
def _bad_set_theta(draw):
    kind = draw(st.sampled_from(["nan", "shape", "theta_nan", "1d"]))
    points, theta = np.ones((3, 2)), np.ones(2)
    if kind == "nan":
        points[1, 1] = np.nan
    elif kind == "shape":
        theta = np.ones(3)
    elif kind == "theta_nan":
        theta[0] = np.inf
    else:
        points = np.ones(3)
    return points, theta


@st.composite
def _rado_set_calls(draw):
    points, theta = draw(_set_theta())
    return Call((points, theta, draw(ROWS), draw(MU)))


@st.composite
def _bad_rado_set_calls(draw):
    if draw(st.booleans()):
        points, theta = draw(_bad_set_theta())
        return Call((points, theta, "I", 1.0))
    return Call((np.ones((3, 2)), np.ones(2), draw(st.one_of(BAD_ROW, st.just("I"))), draw(BAD_POSITIVE)))


@st.composite
def _regularized_example_calls(draw):
    edges, theta = draw(_set_theta(max_n=10))
    return Call((edges, theta, draw(ROWS), draw(MU), draw(st.floats(0.0, 50.0))))


@st.composite
def _bad_regularized_example_calls(draw):
    edges, theta = draw(_bad_set_theta())
    penalty = draw(st.sampled_from([1.0, np.nan, np.inf]))
    if penalty == 1.0 and draw(st.booleans()):
        edges, theta = np.ones((3, 2)), np.ones(2)
        return Call((edges, theta, "II", draw(BAD_POSITIVE), 1.0))
    return Call((edges, theta, "II", 1.0, penalty))


PENALTY = st.floats(0.0, 50.0, allow_nan=False)
A_E = st.floats(0.05, 5.0, allow_nan=False)


@st.composite
def _omega_tilde_calls(draw):
    d = draw(st.integers(1, 6))
    theta = draw(st.one_of(thetas(d), st.just(np.zeros(d))))
    return Call((theta, draw(PENALTY), draw(A_E)))


_bad_omega_tilde_calls = st.one_of(
    st.builds(lambda t: Call((t, 1.0, 1.0)), st.sampled_from([np.array([np.nan, 1.0]), np.ones((2, 2)), np.ones(0)])),
    st.builds(lambda p: Call((np.ones(2), p, 1.0)), st.sampled_from([np.nan, np.inf, "1"])),
    st.builds(lambda a: Call((np.ones(2), 1.0, a)), BAD_POSITIVE),
)


@st.composite
def _regularized_rados_calls(draw):
    rados, theta = draw(_set_theta())
    return Call((rados, theta, draw(PENALTY), draw(A_E)))


@st.composite
def _bad_regularized_rados_calls(draw):
    kind = draw(st.sampled_from(["set", "a_e", "penalty", "overflow"]))
    if kind == "set":
        rados, theta = draw(_bad_set_theta())
        return Call((rados, theta, 1.0, 1.0))
    if kind == "a_e":
        return Call((np.ones((2, 2)), np.ones(2), 1.0, draw(BAD_POSITIVE)))
    if kind == "penalty":
        return Call((np.ones((2, 2)), np.ones(2), draw(st.sampled_from([np.nan, -np.inf])), 1.0))
    return Call((np.ones((2, 2)), np.array([1e-300, 0.0]), 1e300, 1.0))  # shift overflows


@st.composite
def _exp_loss_calls(draw):
    rados, theta = draw(_set_theta())
    return Call((rados, theta, draw(PENALTY)), {"omega": draw(st.floats(0.0, 2.0)), "log": draw(st.booleans())})


_bad_exp_loss_calls = st.one_of(
    _bad_set_theta().map(lambda pt: Call((pt[0], pt[1], 1.0))),
    st.builds(lambda o: Call((np.ones((2, 2)), np.ones(2), 1.0), {"omega": o}), st.sampled_from([-1.0, np.nan, np.inf])),
    st.just(Call((np.ones((2, 2)), np.ones(2), 1.0), {"log": 1})),
    st.just(Call((np.ones((2, 2)), np.ones(2), np.nan))),
)


@st.composite
def _a_e_calls(draw):
    return Call((draw(ROWS), draw(MU)), {"reading": draw(st.sampled_from(["printed", "corrected"]))})


_bad_a_e_calls = st.one_of(
    st.builds(lambda r: Call((r, 1.0)), BAD_ROW),
    st.builds(lambda mu: Call(("IV", mu)), BAD_POSITIVE),
    st.just(Call(("IV", 1.0), {"reading": "typo"})),
)

_VALUE_NOTE = "losses / game values: rtol 1e-9, atol 1e-12 (values up to ~1e7; measured excess 1e-16; module docstring)"


def _margin_pair(name, claim, max_m=10):
    return Pair(getattr(R, name), getattr(F, name), _margin_calls(max_m), claim=claim, rtol=1e-9, atol=1e-12,
                bad_inputs=_bad_margin_calls(), max_examples=40, note=_VALUE_NOTE)


PAIRS = {
    "losses.phi_r": Pair(R.phi_r, F.phi_r, _generator_calls(), claim="nock2016.table1", rtol=1e-14, atol=1e-300,
                         bad_inputs=_bad_generator_calls, note="elementwise closed form (x log x - x); +inf outside dom"),
    "losses.phi_s": Pair(R.phi_s, F.phi_s, _generator_calls(), claim="nock2016.def3", rtol=1e-14, atol=1e-15,
                         bad_inputs=_bad_generator_calls, note="sum of two phi_r values"),
    "losses.phi_e": Pair(R.phi_e, F.phi_e, _generator_calls(), claim="nock2016.lemma4", rtol=1e-14, atol=1e-15,
                         bad_inputs=_bad_generator_calls, note="phi_s + constant"),
    "losses.example_loss": _margin_pair("example_loss", "nock2016.table1"),
    "losses.rado_loss": _margin_pair("rado_loss", "nock2016.table1"),
    "losses.example_adversary": _margin_pair("example_adversary", "nock2016.eq3"),
    "losses.rado_adversary": _margin_pair("rado_adversary", "nock2016.eq4", max_m=8),
    "losses.example_game_value": _margin_pair("example_game_value", "nock2016.eq5"),
    "losses.rado_game_value": _margin_pair("rado_game_value", "nock2016.eq6", max_m=8),
    "losses.rado_set_loss": Pair(R.rado_set_loss, F.rado_set_loss, _rado_set_calls(), claim="nock2016.sec3.repr",
                                 rtol=1e-9, atol=1e-12, bad_inputs=_bad_rado_set_calls(), note=_VALUE_NOTE),
    "losses.slope_a_e": Pair(R.slope_a_e, F.slope_a_e, _a_e_calls(), claim="nock2016.thm7", rtol=0.0,
                             bad_inputs=_bad_a_e_calls, note="exact: mu_e times 1, 1/4 or 1/2"),
    "losses.regularized_example_loss": Pair(R.regularized_example_loss, F.regularized_example_loss,
                                            _regularized_example_calls(), claim="nock2016.eq13", rtol=1e-9, atol=1e-12,
                                            bad_inputs=_bad_regularized_example_calls(), note=_VALUE_NOTE),
    "losses.omega_tilde": Pair(R.omega_tilde, F.omega_tilde, _omega_tilde_calls(), claim="nock2016.thm7",
                               rtol=1e-12, bad_inputs=_bad_omega_tilde_calls,
                               note="a ratio with ||u||^2 summed by fsum vs a dot product: rtol 1e-12"),
    "losses.regularized_rados": Pair(R.regularized_rados, F.regularized_rados, _regularized_rados_calls(),
                                     claim="nock2016.thm7", rtol=1e-12, atol=1e-9,
                                     bad_inputs=_bad_regularized_rados_calls(),
                                     note="pi - shift, shift from a ratio: rtol 1e-12, atol 1e-9 at |pi| <= 5"),
    "losses.regularized_exp_rado_loss": Pair(R.regularized_exp_rado_loss, F.regularized_exp_rado_loss,
                                             _exp_loss_calls(), claim="nock2016.eq45", rtol=1e-10, atol=1e-12,
                                             bad_inputs=_bad_exp_loss_calls,
                                             note="log-mean-exp (fsum vs numpy) plus omega * penalty: rtol 1e-10; atol 1e-12 as a log near 0 "
                                             "carries an absolute rounding error ~1e-16 (nock2015 rados kernels)"),
}
