"""Pairs for reference.measures / fast.measures (bun2020 Section 2: bounded measures, KL, projection)."""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.measures as F
import reference.measures as R
from spec.pairs import Call, Pair

# entries at the edges on purpose: exact 0 and 1, tiny (1e-300), ties
_ENTRY = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 1e-300, 1e-12]), st.floats(0.0, 1.0, allow_nan=False))
_KAPPA = st.one_of(st.sampled_from([0.01, 0.1, 0.25, 0.5, 0.999]), st.floats(0.001, 0.999))


@st.composite
def _measure(draw, min_n=1, max_n=16):
    n = draw(st.integers(min_n, max_n))
    return draw(hnp.arrays(np.float64, n, elements=_ENTRY))


@st.composite
def _distribution(draw, n):
    raw = draw(hnp.arrays(np.float64, n, elements=st.one_of(st.just(0.0), st.floats(0.01, 1.0))))
    if raw.sum() == 0:
        raw[0] = 1.0
    return raw / raw.sum()


@st.composite
def _two_measures(draw):
    a = draw(_measure())
    b = draw(hnp.arrays(np.float64, a.shape[0], elements=_ENTRY))
    return Call((a, b))


@st.composite
def _two_distributions(draw, order=False):
    n = draw(st.integers(1, 12))
    p, q = draw(_distribution(n)), draw(_distribution(n))
    if order:
        return Call((p, q, draw(st.sampled_from([1.5, 2.0, 10.0, 1.0001]))))
    return Call((p, q))


@st.composite
def _projection(draw):
    mu = draw(_measure())
    scale = draw(st.sampled_from([1.0, 0.5, 1e-3, 1e-200]))
    return Call((mu * scale, draw(_KAPPA)))


@st.composite
def _projection_log(draw):
    n = draw(st.integers(1, 16))
    w = draw(hnp.arrays(np.float64, n, elements=st.one_of(
        st.sampled_from([0.0, -np.inf, -1e4, -745.0, -800.0]), st.floats(-2000.0, 0.0))))
    return Call((w, draw(_KAPPA)))


def exponent_rtol(w) -> float:
    """Relative tolerance for outputs exp(w_i + log c): the exponent is rounded to within u |w_i + log c| with
    |log c| <~ max |w| (a shift by max w included), so even an exactly summed log c leaves a relative difference
    up to ~2u max |w| between two correct float evaluations; 8u (max |w| + 1) leaves room for exp's own ulp."""
    w = np.asarray(w, dtype=np.float64)
    finite = np.abs(w[np.isfinite(w)])
    return 8 * 2.0**-53 * (float(finite.max()) + 1.0) if finite.size else 0.0


def _one(mu):
    return Call((mu,))


_BAD_MEASURE = st.sampled_from([
    Call((np.array([0.5, 1.5]),)), Call((np.array([-0.1, 0.5]),)), Call((np.array([]),)),
    Call((np.array([np.nan]),)), Call(("ab",)), Call((np.ones((2, 2)),)),
])
_BAD_PAIR = st.sampled_from([
    Call((np.array([0.5, 0.5]), np.array([1.0]))), Call((np.array([0.5, -0.5]), np.array([0.5, 0.5]))),
    Call((np.array([0.2, 0.2]), np.array([0.5, 0.5]))),  # not a distribution (statistical distance, renyi)
    Call((np.array([np.inf, 0.0]), np.array([0.5, 0.5]))),
])
_BAD_KL = st.sampled_from([
    Call((np.array([0.5, 0.5]), np.array([1.0]))), Call((np.array([0.5, -0.5]), np.array([0.5, 0.5]))),
    Call((np.array([np.inf, 0.0]), np.array([0.5, 0.5]))), Call((np.array([0.5]), "a")),
])
_BAD_DENSE = st.sampled_from([
    Call((np.array([0.5, 0.2]), 0.0)), Call((np.array([0.5, 0.2]), 1.0)), Call((np.array([0.5, 1.2]), 0.5)),
    Call((np.array([0.5, 0.2]), np.nan)), Call((np.array([0.5, 0.2]), "0.5")),
])
_BAD_PROJ = st.sampled_from([
    Call((np.array([0.5, 0.2]), 0.0)), Call((np.array([0.5, 0.2]), 1.0)), Call((np.array([0.5, 0.2]), 1.5)),
    Call((np.array([0.5, 1.2]), 0.5)), Call((np.array([0.0, 0.0, 0.3]), 0.5)),  # fewer than kappa n positive
    Call((np.array([0.5, 0.2]), np.nan)), Call((np.array([0.5, 0.2]), "0.5")),
])
_BAD_PROJ_LOG = st.sampled_from([
    Call((np.array([0.5, -1.0]), 0.5)), Call((np.array([np.nan, -1.0]), 0.5)), Call((np.array([np.inf]), 0.5)),
    Call((np.array([-np.inf, -np.inf, -1.0]), 0.5)), Call((np.array([-1.0]), 0.0)),
])

PAIRS = {
    "measures.size": Pair(R.size, F.size, _measure().map(_one), claim="bun2020.def3", rtol=0.0, bad_inputs=_BAD_MEASURE,
                          note="exact: both sum with fsum"),
    "measures.density": Pair(R.density, F.density, _measure().map(_one), claim="bun2020.def3", rtol=0.0,
                             bad_inputs=_BAD_MEASURE, note="exact: fsum / n"),
    "measures.normalize": Pair(R.normalize, F.normalize, _measure().map(_one), claim="bun2020.def3", rtol=0.0,
                               bad_inputs=st.one_of(_BAD_MEASURE, st.just(Call((np.zeros(3),)))),
                               note="exact: one division by the same fsum"),
    "measures.kl": Pair(R.kl, F.kl, _two_measures(), claim="bun2020.def4", rtol=1e-12, atol=1e-300,
                        bad_inputs=_BAD_KL, note="terms x log(x/y) + y - x: scipy's kl_div vs math; fsum both"),
    "measures.statistical_distance": Pair(R.statistical_distance, F.statistical_distance, _two_distributions(),
                                          claim="bun2020.def5", rtol=0.0, bad_inputs=_BAD_PAIR,
                                          note="exact: fsum of the same |p - q|"),
    "measures.renyi": Pair(R.renyi, F.renyi, _two_distributions(order=True), claim="bun2020.def6", rtol=1e-12,
                           atol=1e-15, bad_inputs=st.one_of(_BAD_PAIR.map(lambda c: Call(c.args + (2.0,))),
                                                           st.just(Call((np.array([1.0]), np.array([1.0]), 1.0)))),
                           note="log-sum-exp: numpy vs math exp/log (1 ulp each)"),
    "measures.is_dense": Pair(R.is_dense, F.is_dense, st.tuples(_measure(), _KAPPA).map(lambda a: Call(a)),
                              claim="bun2020.s2.dense-set", bad_inputs=_BAD_DENSE, note="exact boolean"),
    "measures.project_dense": Pair(R.project_dense, F.project_dense, _projection(), claim="bun2020.lemma9",
                                   rtol=1e-12, atol=0.0, bad_inputs=_BAD_PROJ, max_examples=120,
                                   note="log_c: fsum (reference) vs pairwise sum (fast) of the uncapped part; "
                                        "same exp(min(w + log_c, 0))"),
    "measures.project_dense_log": Pair(R.project_dense_log, F.project_dense_log, _projection_log(),
                                       claim="bun2020.lemma9", rtol=1e-12, atol=0.0, bad_inputs=_BAD_PROJ_LOG,
                                       rtol_for=lambda call: exponent_rtol(call.args[0]), max_examples=120,
                                       note="as project_dense; entries below e^-745 are 0 in both; log weights "
                                            "down to -1e4: the exponent's rounding (exponent_rtol) exceeds 1e-12"),
}
