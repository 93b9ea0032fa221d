"""reference.mechanisms vs fast.mechanisms.

The samplers consume the same 64-bit words in the same order (module docstring of reference.mechanisms), so
seeded draws compare EXACTLY (rtol 0).  Calibrations: the reference evaluates the Balle-Wang profile with
mpmath, fast with scipy's log_ndtr; both bisect to 1e-13 relative, so sigma agrees to ~1e-12 (rtol 1e-9).  A
sigma differing in its last bits could move s2 = ceil((sigma/2^k)^2) by one only if (sigma/2^k)^2 lies within
~1e-6 of an integer (probability ~1e-6 per example), so the Gaussian pairs compare exactly too.  Tiny epsilons
(sigma / sensitivity > ~2^12) put s2 above 2^24, on the grid that follows the sensitivity, drawn by the big-integer
sampler; s2 keeps 25 significant bits there (rounded up), so the same argument holds (probability ~2^25 1e-13).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.mechanisms as F
import reference.mechanisms as R
from spec.pairs import Call, Pair, sigma_within_profile, zcdp_sigma_within_target
from spec.strategies import BAD_OPEN_UNIT, BAD_POSITIVE, seeds

EPS = st.floats(min_value=2.0**-10, max_value=50.0)
#: the Gaussian's epsilons also reach below 2^-10, where s2 exceeds 2^24 (the big-integer sampler)
GAUSS_EPS = st.one_of(EPS, st.floats(min_value=1e-12, max_value=2.0**-10))
SENS = st.floats(min_value=1e-6, max_value=1e6)
DELTA = st.sampled_from([1e-300, 1e-30, 1e-9, 1e-5, 1e-2, 0.3])
VALUE = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False)
VALUES = st.one_of(VALUE, hnp.arrays(np.float64, st.tuples(st.integers(1, 4)), elements=VALUE),
                   hnp.arrays(np.float64, st.tuples(st.integers(1, 3), st.integers(1, 3)), elements=VALUE),
                   st.sampled_from([1e300, -1e300, 5e-324, 0.0, -0.0]))
BAD_VALUE = st.sampled_from([float("nan"), float("inf"), -float("inf"), True, "1", None, [], [[1.0, float("nan")]]])


@st.composite
def laplace_calls(draw):
    return Call((draw(VALUES),), {"sensitivity": draw(SENS), "epsilon": draw(EPS), "rng": draw(seeds())})


@st.composite
def gaussian_calls(draw):
    kw = {"sensitivity": draw(SENS), "epsilon": draw(GAUSS_EPS), "delta": draw(DELTA), "rng": draw(seeds())}
    value = draw(VALUES)
    if draw(st.booleans()):
        kw["sensitivity_dimension"] = 1
    return Call((value,), kw)


@st.composite
def bad_laplace(draw):
    kw = {"sensitivity": 1.0, "epsilon": 1.0, "rng": 0}
    which = draw(st.sampled_from(["sensitivity", "epsilon", "value", "tiny_epsilon"]))
    value = 1.0
    if which == "value":
        value = draw(BAD_VALUE)
    elif which == "tiny_epsilon":
        kw["epsilon"] = 2.0**-60
    else:
        kw[which] = draw(BAD_POSITIVE)
    return Call((value,), kw)


@st.composite
def bad_gaussian(draw):
    kw = {"sensitivity": 1.0, "epsilon": 1.0, "delta": 1e-5, "rng": 0}
    which = draw(st.sampled_from(["sensitivity", "epsilon", "delta", "value", "calibration", "sensitivity_dimension"]))
    value = 1.0
    if which == "value":
        value = draw(BAD_VALUE)
    elif which == "delta":
        kw["delta"] = draw(BAD_OPEN_UNIT)
    elif which == "calibration":
        kw["calibration"] = "fancy"
    elif which == "sensitivity_dimension":
        kw["sensitivity_dimension"] = draw(st.sampled_from([0, -1, 2, 1.5]))
    else:
        kw[which] = draw(BAD_POSITIVE)
    return Call((value,), kw)


@st.composite
def grid_calls(draw):
    return Call((draw(SENS), draw(EPS)))


@st.composite
def ggrid_calls(draw):
    return Call((draw(SENS), draw(GAUSS_EPS), draw(DELTA)),
                {"dimension": draw(st.integers(1, 5)), "calibration": draw(st.sampled_from(["auto", "analytic"]))})


@st.composite
def sigma_calls(draw, classic=False):
    eps = draw(st.floats(2.0**-10, 0.99)) if classic else draw(EPS)
    return Call((draw(SENS), eps, draw(DELTA)))


@st.composite
def bad_sigma_calls(draw):
    args = [1.0, 0.5, 1e-5]
    i = draw(st.integers(0, 2))
    args[i] = draw(BAD_OPEN_UNIT if i == 2 else BAD_POSITIVE)
    return Call(tuple(args))


@st.composite
def delta_calls(draw):
    return Call((draw(st.floats(1e-3, 1e3)), draw(SENS), draw(st.floats(0.0, 30.0))))


@st.composite
def bad_delta_calls(draw):
    args = [1.0, 1.0, 1.0]
    i = draw(st.integers(0, 2))
    args[i] = draw(st.sampled_from([float("nan"), float("inf"), -1.0]))
    return Call(tuple(args))


@st.composite
def dlap_calls(draw):
    return Call((draw(st.one_of(st.integers(1, 20), st.integers(2**39, 2**51))),),
                {"size": draw(st.one_of(st.none(), st.integers(0, 50))), "rng": draw(seeds())})


@st.composite
def dgauss_calls(draw):
    # the word-batched sampler (integers <= 2^24) and the big-integer one (larger integers, Fractions, int64 or not)
    from fractions import Fraction

    sigma2 = draw(st.one_of(st.integers(1, 2**24), st.integers(2**24 + 1, 2**130),
                            st.builds(Fraction, st.integers(1, 2**90), st.integers(1, 2**20))))
    return Call((sigma2,), {"size": draw(st.one_of(st.none(), st.integers(0, 12))), "rng": draw(seeds())})


BAD_SCALE = st.sampled_from([0, -3, 1.5, float("nan"), "3", True, 2**60])
BAD_SIZE = st.sampled_from([-1, 2.5, "4"])


@st.composite
def bad_sampler_calls(draw):
    if draw(st.booleans()):
        return Call((draw(BAD_SCALE),), {"size": 3, "rng": 0})
    return Call((5,), {"size": draw(BAD_SIZE), "rng": 0})


@st.composite
def bad_dgauss_calls(draw):
    """As bad_sampler_calls, without 2^60 (any rational variance is sampled exactly) and with non-positive Fractions."""
    from fractions import Fraction

    if draw(st.booleans()):
        bad = draw(st.one_of(BAD_SCALE.filter(lambda v: v != 2**60), st.sampled_from([Fraction(0), Fraction(-1, 3)])))
        return Call((bad,), {"size": 3, "rng": 0})
    return Call((5,), {"size": draw(BAD_SIZE), "rng": 0})


def _rngs_bad():
    return st.sampled_from([-1, "seed", 1.5])


def _same_grid(ref, fast):
    """The integers and the CHARGED numbers exactly (granularity, grid variance, inflated sensitivity, rho: both
    derive them by exact Fraction arithmetic from the same sigma), the continuous sigma to 1e-9 (mpmath vs scipy)
    with its grid std on the safe side (2^k sqrt(s2) >= sigma in both)."""
    import math

    from spec.compare import assert_same

    assert (ref.k, ref.granularity, ref.sigma2_grid, ref.sensitivity_inflated, ref.rho, ref.calibration) == (
        fast.k, fast.granularity, fast.sigma2_grid, fast.sensitivity_inflated, fast.rho, fast.calibration), (ref, fast)
    assert_same(ref, fast, rtol=1e-9)
    for g in (ref, fast):
        assert g.granularity * math.sqrt(g.sigma2_grid) >= g.sigma


PAIRS = {
    "mechanisms.laplace_mechanism": Pair(R.laplace_mechanism, F.laplace_mechanism, laplace_calls(),
                                         claim="nock2015.eq15", rtol=0.0, bad_inputs=bad_laplace(),
                                         note="same words, same integers, correctly rounded to float: exact"),
    "mechanisms.gaussian_mechanism": Pair(R.gaussian_mechanism, F.gaussian_mechanism, gaussian_calls(),
                                          claim="bun2020.lemma16", rtol=0.0, bad_inputs=bad_gaussian(), max_examples=25,
                                          note="exact (see the module docstring for the s2 caveat)"),
    "mechanisms.laplace_grid": Pair(R.laplace_grid, F.laplace_grid, grid_calls(), claim="nock2015.eq15", rtol=0.0,
                                    bad_inputs=bad_sigma_calls().filter(lambda c: c.args[2] == 1e-5).map(
                                        lambda c: Call(c.args[:2])),
                                    note="exact integer/Fraction arithmetic in both"),
    "mechanisms.gaussian_grid": Pair(R.gaussian_grid, F.gaussian_grid, ggrid_calls(), claim="bun2020.lemma16",
                                     compare=_same_grid, bad_inputs=bad_sigma_calls(), max_examples=15,
                                     note="sigma and rho to 1e-9 (mpmath vs scipy profile); integers exact"),
    "mechanisms.sample_discrete_laplace": Pair(R.sample_discrete_laplace, F.sample_discrete_laplace, dlap_calls(),
                                               rtol=0.0, bad_inputs=bad_sampler_calls(), note="same words: exact"),
    "mechanisms.sample_discrete_gaussian": Pair(R.sample_discrete_gaussian, F.sample_discrete_gaussian,
                                                dgauss_calls(), rtol=0.0, bad_inputs=bad_dgauss_calls(),
                                                note="same words: exact"),
    "mechanisms.classic_gaussian_sigma": Pair(R.classic_gaussian_sigma, F.classic_gaussian_sigma,
                                              sigma_calls(classic=True), rtol=1e-15, bad_inputs=bad_sigma_calls(),
                                              note="same closed form"),
    "mechanisms.analytic_gaussian_sigma": Pair(R.analytic_gaussian_sigma, F.analytic_gaussian_sigma, sigma_calls(),
                                               rtol=1e-9, bad_inputs=bad_sigma_calls(), max_examples=150,
                                               safe_side=sigma_within_profile, min_compared=0.9,
                                               note="bisection to 1e-13 on two evaluations of one profile; fast's "
                                                    "sigma within the target by the reference's mpmath profile"),
    "mechanisms.zcdp_gaussian_sigma": Pair(R.zcdp_gaussian_sigma, F.zcdp_gaussian_sigma, sigma_calls(),
                                           rtol=1e-9, bad_inputs=bad_sigma_calls(), max_examples=25,
                                           safe_side=zcdp_sigma_within_target, min_compared=0.9,
                                           note="bisection on the tight conversion (mpmath vs scipy); fast's rho "
                                                "within the target by the reference's mpmath conversion"),
    "mechanisms.gaussian_delta": Pair(R.gaussian_delta, F.gaussian_delta, delta_calls(), rtol=1e-9, atol=1e-300,
                                      bad_inputs=bad_delta_calls(),
                                      note="mpmath (60 digits) vs scipy log_ndtr in log space: 1e-9 relative"),
    "mechanisms.unsafe_float_laplace": Pair(R.unsafe_float_laplace, F.unsafe_float_laplace, laplace_calls(),
                                            rtol=0.0, bad_inputs=bad_laplace().filter(
                                                lambda c: c.kwargs["epsilon"] != 2.0**-60),
                                            note="same numpy draws (scalar vs vector laplace: one word each)"),
    "mechanisms.unsafe_float_gaussian": Pair(R.unsafe_float_gaussian, F.unsafe_float_gaussian, gaussian_calls().map(
        lambda c: Call(c.args, {k: v for k, v in c.kwargs.items() if k != "sensitivity_dimension"})),
        rtol=1e-9, max_examples=20, bad_inputs=bad_gaussian().filter(
            lambda c: "calibration" not in c.kwargs and "sensitivity_dimension" not in c.kwargs),
        note="same numpy normal draws; sigma to 1e-9"),
}
