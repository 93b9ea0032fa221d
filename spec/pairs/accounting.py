"""reference.accounting vs fast.accounting.

Closed forms and fraction sums are computed identically (rtol 0 or 1e-15).  The tight zCDP conversion is a
1-d convex minimisation: the reference uses 40-digit mpmath golden-section search, fast scipy's bounded Brent
in float64 on a cancellation-free form; the minimum is flat, so the values agree to ~1e-14 (rtol 1e-9).
"""
from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
import numpy as np

import fast.accounting as F
import reference.accounting as R
from spec.pairs import Call, Pair, rho_within_target
from spec.strategies import BAD_OPEN_UNIT, BAD_POSITIVE

EPS = st.floats(min_value=1e-4, max_value=20.0)
RHO = st.floats(min_value=1e-6, max_value=100.0)
DELTA = st.sampled_from([1e-300, 1e-20, 1e-9, 1e-5, 1e-2, 0.2])
BAD_VEC = st.sampled_from([[], [float("nan")], [-1.0], [float("inf")], "x", None])


def _calls(*strategies, **kw):
    return st.tuples(*strategies).map(lambda a: Call(a, kw))


def _bad(n, positions):
    @st.composite
    def make(draw):
        args = [0.5, 1e-5, 3, 1e-6][:n]
        i = draw(st.sampled_from(positions))
        args[i] = draw(positions[i] if isinstance(positions, dict) else BAD_POSITIVE)
        return Call(tuple(args))
    return make()


@st.composite
def bad_two(draw, first=BAD_POSITIVE, second=BAD_OPEN_UNIT):
    if draw(st.booleans()):
        return Call((draw(first), 1e-5))
    return Call((0.5, draw(second)))


@st.composite
def bad_advanced(draw):
    args = [0.5, 1e-6, 10, 1e-6]
    i = draw(st.integers(0, 3))
    args[i] = draw([BAD_POSITIVE, st.sampled_from([-0.1, 1.5, float("nan")]), st.sampled_from([0, -2, 2.5, "3"]),
                    BAD_OPEN_UNIT][i])
    return Call(tuple(args))


@st.composite
def bad_vec(draw):
    return Call((draw(BAD_VEC),))


@st.composite
def bad_basic(draw):
    if draw(st.booleans()):
        return Call((draw(BAD_VEC), [0.0]))
    return Call(([1.0], draw(st.sampled_from([[2.0], [-1e-3], [float("nan")], [0.0, 0.0]]))))


@st.composite
def renyi_calls(draw):
    d = draw(st.integers(1, 4))
    v = hnp.arrays(np.float64, (d,), elements=st.floats(-100, 100))
    return Call((draw(v), draw(v), draw(st.floats(1e-3, 1e3)), draw(st.floats(1.0, 1e3))))


@st.composite
def bad_renyi(draw):
    args = [[0.0], [1.0], 1.0, 2.0]
    i = draw(st.integers(0, 3))
    args[i] = draw([st.sampled_from([[], [float("nan")], [float("inf")], "x", None]),
                    st.sampled_from([[1.0, 2.0], [float("nan")]]), BAD_POSITIVE,
                    st.sampled_from([0.5, float("nan"), float("inf")])][i])
    return Call(tuple(args))


@st.composite
def split_calls(draw):
    return Call(((draw(EPS), draw(st.floats(0.0, 1.0))), draw(st.integers(1, 50))))


@st.composite
def bad_split(draw):
    if draw(st.booleans()):
        return Call((draw(st.sampled_from([(float("nan"), 0.0), (1.0, 2.0), (-1.0, 0.0), 3.0, (1.0,)])), 2))
    return Call(((1.0, 0.0), draw(st.sampled_from([0, -1, 1.5, "2"]))))


PAIRS = {
    "accounting.basic_composition": Pair(R.basic_composition, F.basic_composition, _calls(
        st.lists(EPS, min_size=1, max_size=20), st.just(None)).map(
            lambda c: Call((c.args[0], [1e-7] * len(c.args[0])))), rtol=0.0, bad_inputs=bad_basic(),
        note="exact fraction sums in both"),
    "accounting.advanced_composition_thm48": Pair(R.advanced_composition_thm48, F.advanced_composition_thm48, _calls(
        EPS, st.floats(0.0, 1e-3), st.integers(1, 10**6), st.sampled_from([1e-3, 1e-9, 1e-100])),
        claim="bun2020.thm48", rtol=0.0, bad_inputs=bad_advanced(), note="same closed form, same operations"),
    "accounting.advanced_composition": Pair(R.advanced_composition, F.advanced_composition, _calls(
        EPS, st.floats(0.0, 1e-3), st.one_of(st.integers(1, 100), st.integers(1, 10**6)),
        st.sampled_from([1e-3, 1e-9, 1e-100])), rtol=0.0, bad_inputs=bad_advanced(),
        note="min(basic, Theorem 48): the basic bound k eps exactly (fractions / integer ratios) rounded up in both; "
             "the same Composition type (its .bound is compared in tests/test_accounting.py)"),
    "accounting.zcdp_composition": Pair(R.zcdp_composition, F.zcdp_composition, _calls(
        st.lists(RHO, min_size=1, max_size=20)), claim="bun2020.lemma14", rtol=0.0, bad_inputs=bad_vec(),
        note="exact fraction sums in both"),
    "accounting.renyi_gaussian": Pair(R.renyi_gaussian, F.renyi_gaussian, renyi_calls(), claim="bun2020.lemma16",
                                      rtol=1e-15, bad_inputs=bad_renyi(), note="same fsum closed form"),
    "accounting.gaussian_rho": Pair(R.gaussian_rho, F.gaussian_rho, _calls(st.floats(1e-6, 1e6), st.floats(1e-6, 1e6)),
                                    claim="bun2020.lemma16", rtol=0.0, bad_inputs=bad_two(BAD_POSITIVE, BAD_POSITIVE),
                                    note="exact fraction, rounded up, in both"),
    "accounting.pure_dp_to_zcdp": Pair(R.pure_dp_to_zcdp, F.pure_dp_to_zcdp, _calls(EPS), rtol=0.0,
                                       bad_inputs=BAD_POSITIVE.map(lambda v: Call((v,))), note="exact fraction"),
    "accounting.zcdp_to_dp": Pair(R.zcdp_to_dp, F.zcdp_to_dp, _calls(RHO, DELTA), claim="bun2020.lemma15", rtol=0.0,
                                  bad_inputs=bad_two(), note="same closed form"),
    "accounting.zcdp_to_dp_tight": Pair(R.zcdp_to_dp_tight, F.zcdp_to_dp_tight, _calls(RHO, DELTA),
                                        claim="bun2020.lemma15", rtol=1e-9, atol=1e-12, bad_inputs=bad_two(),
                                        max_examples=25, note="flat minimum: mpmath golden section vs scipy Brent"),
    "accounting.zcdp_to_dp_rho": Pair(R.zcdp_to_dp_rho, F.zcdp_to_dp_rho, _calls(
        st.floats(0.05, 20.0), st.sampled_from([1e-2, 1e-5, 1e-9])), claim="bun2020.lemma15", rtol=1e-9,
        bad_inputs=bad_two(), max_examples=25, safe_side=rho_within_target, min_compared=1.0,
        note="bisection on two evaluations of the tight conversion; fast's rho within epsilon by the reference's "
             "mpmath conversion"),
    "accounting.split": Pair(R.split, F.split, split_calls(), rtol=0.0, bad_inputs=bad_split(),
                             note="exact fractions"),
}
