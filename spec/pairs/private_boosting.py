"""Pairs for reference.private_boosting / fast.private_boosting (bun2020 Sections 3-5, App. K)."""
import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fast.private_boosting as F
import reference.private_boosting as R
from spec.pairs import Call, Pair
from spec.pairs.measures import exponent_rtol
from spec.strategies import seeds

_KAPPA = st.one_of(st.sampled_from([0.01, 0.1, 0.25, 0.5, 0.9]), st.floats(0.005, 0.99))
_UNIT = st.floats(0.001, 0.999)
_DIM = st.one_of(st.none(), st.sampled_from([1, 10, 100]), st.integers(1, 10**4))


@st.composite
def _sample(draw, max_n=10, max_d=4):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(hnp.arrays(np.float64, (n, d), elements=st.one_of(st.just(0.0), st.floats(-1.0, 1.0))))
    norms = np.sqrt((X * X).sum(axis=1))
    X = X / np.maximum(1.0, norms)[:, None]
    y = draw(hnp.arrays(np.int64, n, elements=st.sampled_from([-1, 1])))
    return X, y


@st.composite
def _distribution(draw, n):
    raw = draw(hnp.arrays(np.float64, n, elements=st.floats(0.0, 1.0)))
    raw[0] += 0.5
    return raw / raw.sum()


@st.composite
def _centroid_calls(draw, noisy=False):
    X, y = draw(_sample())
    w = draw(_distribution(X.shape[0]))
    if not noisy:
        return Call((X, y, w))
    sigma = draw(st.sampled_from([0.0, 1e-3, 0.05, 1.0, 3e-4]))
    return Call((X, y, w, sigma), {"rng": draw(seeds()), "normalize": draw(st.booleans())})


@st.composite
def _boost_calls(draw):
    X, y = draw(_sample(max_n=8, max_d=3))
    return Call((X, y, draw(st.integers(1, 6)), draw(_KAPPA), draw(st.sampled_from([0.01, 0.1, 1.0])),
                 draw(st.sampled_from([0.0, 0.01, 0.1]))), {"rng": draw(seeds()), "normalize": draw(st.booleans())})


# deterministic pluggable pieces for the generic Boost schema (module level: picklable, identical on both sides)
def _uniform_nxm(X, y, H):
    return np.full(len(y), 0.5)


def _centroid_wkl(X, y, mu_hat):
    z = R.centroid(X, y, mu_hat)
    return lambda pts: np.asarray(pts) @ z


@st.composite
def _generic_boost_calls(draw):
    X, y = draw(_sample(max_n=6, max_d=3))
    return Call((X, y, draw(st.integers(1, 4)), _uniform_nxm, _centroid_wkl))


def _compare_boost(ref, fast):
    (h_ref, vote_ref), (h_fast, vote_fast) = ref, fast
    assert len(h_ref) == len(h_fast)
    pts = np.array([[0.3, -0.2, 0.1], [0.0, 0.0, 0.0], [-0.5, 0.5, 0.2]])
    d = None
    for h in h_ref:
        for width in (1, 2, 3):
            try:
                h(pts[:, :width])
                d = width
                break
            except ValueError:
                continue
        break
    if d is not None:
        np.testing.assert_array_equal(vote_ref(pts[:, :d]), vote_fast(pts[:, :d]))


_BAD_SAMPLE = st.sampled_from([
    Call((np.array([[2.0, 0.0]]), np.array([1]), np.array([1.0]))),  # outside the unit ball
    Call((np.array([[0.2, 0.0]]), np.array([0]), np.array([1.0]))),  # label not in {-1, +1}
    Call((np.array([[0.2, 0.0]]), np.array([1]), np.array([0.5]))),  # not a distribution
    Call((np.array([[0.2, 0.0]]), np.array([1, 1]), np.array([1.0]))),
])

@st.composite
def _smooth_calls(draw):
    X, y = draw(_sample(max_n=6, max_d=2))
    return Call((X, y, draw(st.sampled_from([0.1, 0.3])), draw(st.sampled_from([0.2, 0.5])), draw(st.integers(1, 2)),
                 draw(st.sampled_from([0.5, 50.0])), 1e-2), {"rng": draw(seeds()), "normalize": draw(st.booleans())})


@st.composite
def _stump_calls(draw, noisy=False):
    n = draw(st.integers(1, 10))
    d = draw(st.integers(1, 3))
    m = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (n, d), elements=st.one_of(st.sampled_from([0.0, 0.5, -1.0]),
                                                               st.floats(-5.0, 5.0))))
    y = draw(hnp.arrays(np.int64, n, elements=st.sampled_from([-1, 1])))
    w = draw(_distribution(n))
    thr = draw(hnp.arrays(np.float64, (d, m), elements=st.one_of(st.sampled_from([0.0, 0.5]), st.floats(-5.0, 5.0))))
    if not noisy:
        return Call((X, y, w, thr))
    eps = draw(st.sampled_from([0.1, 1.0, 8.0, 50.0]))
    sens = draw(st.sampled_from([1e-3, 0.05, 0.4, 2.0]))
    return Call((X, y, w, thr, eps, sens), {"rng": draw(seeds())})


@st.composite
def _rnm_calls(draw):
    q = draw(hnp.arrays(np.float64, draw(st.integers(1, 12)), elements=st.one_of(st.sampled_from([0.0, 1.0, -1.0]),
                                                                                   st.floats(-1.0, 1.0))))
    return Call((q, draw(st.sampled_from([1e-4, 0.01, 0.5, 3.0])), draw(st.sampled_from([0.05, 1.0, 10.0]))),
                {"rng": draw(seeds())})


_BAD_STUMP = st.sampled_from([
    Call((np.array([[0.2]]), np.array([1]), np.array([1.0]), np.array([[0.0, 1.0], [0.0, 1.0]]))),  # rows != d
    Call((np.array([[np.nan]]), np.array([1]), np.array([1.0]), np.array([[0.0]]))),
    Call((np.array([[0.2]]), np.array([2]), np.array([1.0]), np.array([[0.0]]))),
    Call((np.array([[0.2]]), np.array([1]), np.array([0.5]), np.array([[0.0]]))),
])
_BAD_RNM = st.sampled_from([
    Call((np.array([0.1, 0.2]), 0.0, 1.0)), Call((np.array([0.1, 0.2]), 0.1, 0.0)),
    Call((np.array([0.1, 0.2]), 0.1, 1e-20)), Call((np.array([0.1, np.nan]), 0.1, 1.0)),
    Call((np.array([0.1]), math.inf, 1.0)), Call(("ab", 0.1, 1.0)),
])


PAIRS = {
    "private_boosting.game_loss": Pair(
        R.game_loss, F.game_loss,
        st.integers(1, 12).flatmap(lambda n: st.tuples(
            hnp.arrays(np.float64, n, elements=st.one_of(st.sampled_from([-1.0, 1.0, 0.0, 3.0, -7.5]), st.floats(-2, 2))),
            hnp.arrays(np.int64, n, elements=st.sampled_from([-1, 1])))).map(lambda a: Call(a)),
        claim="bun2020.eq4", rtol=0.0,
        bad_inputs=st.sampled_from([Call((np.array([0.5]), np.array([2]))), Call((np.array([np.nan]), np.array([1])))]),
        note="exact: same clip, subtraction and halving"),
    "private_boosting.lb_nxm": Pair(
        R.lb_nxm, F.lb_nxm,
        st.tuples(hnp.arrays(np.float64, st.integers(1, 14), elements=st.one_of(
            st.sampled_from([0.0, 1.0, 1e5]), st.floats(0.0, 1e4))), _KAPPA,
            st.sampled_from([0.001, 0.05, 0.5, 3.0])).map(lambda a: Call(a)),
        claim="bun2020.alg3", rtol=1e-12,
        rtol_for=lambda call: exponent_rtol(call.args[2] * np.asarray(call.args[0], dtype=np.float64)),
        bad_inputs=st.sampled_from([Call((np.array([-1.0, 0.0]), 0.5, 0.1)), Call((np.array([1.0, 0.0]), 0.5, 0.0)),
                                    Call((np.array([1.0, 0.0]), 0.5, -1.0)), Call((np.array([1.0, 0.0]), 1.0, 0.1)),
                                    Call((np.array([1.0, 0.0]), 0.0, 0.1))]),
        note="the projection's rtol (fsum vs pairwise sum of the uncapped part), or the exponent's rounding "
             "u lambda max L (exponent_rtol) for gains up to 1e5"),
    "private_boosting.centroid": Pair(R.centroid, F.centroid, _centroid_calls(), claim="bun2020.s5.2.wl",
                                      rtol=1e-12, atol=1e-15, bad_inputs=_BAD_SAMPLE,
                                      note="fsum (reference) vs BLAS dot (fast): atol for cancelling sums"),
    "private_boosting.centroid_sensitivity": Pair(
        R.centroid_sensitivity, F.centroid_sensitivity,
        st.tuples(st.integers(1, 10**9), _KAPPA).map(lambda a: Call(a)), claim="bun2020.thm22", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0, 0.5)), Call((10, 1.5)), Call((10, 0.5, -1.0)), Call((1.5, 0.5))]),
        note="exact Fractions, rounded up"),
    "private_boosting.centroid_grid": Pair(
        R.centroid_grid, F.centroid_grid,
        st.tuples(st.floats(1e-8, 1e3), st.floats(1e-8, 10.0), st.integers(1, 10**4)).map(lambda a: Call(a)),
        rtol=0.0, bad_inputs=st.sampled_from([Call((0.0, 1.0, 1)), Call((1.0, 0.0, 1)), Call((1.0, 1.0, 0))]),
        note="exact: same Fraction arithmetic"),
    "private_boosting.centroid_run_grid": Pair(
        R.centroid_run_grid, F.centroid_run_grid,
        st.tuples(st.floats(1e-8, 1e3), st.floats(1e-12, 10.0), st.integers(1, 10**4)).map(lambda a: Call(a)),
        rtol=0.0, bad_inputs=st.sampled_from([Call((0.0, 1.0, 1)), Call((1.0, 0.0, 1)), Call((1.0, 1.0, 0))]),
        note="exact: same Fraction arithmetic (the HS-StL run's grid, 2^k sqrt(d) <= Delta 2^-8)"),
    "private_boosting.noisy_centroid": Pair(
        R.noisy_centroid, F.noisy_centroid, _centroid_calls(noisy=True), claim="bun2020.s5.2.wl", rtol=1e-12,
        atol=1e-15, max_examples=40,
        bad_inputs=st.sampled_from([Call((np.array([[0.2]]), np.array([1]), np.array([1.0]), -1.0)),
                                    Call((np.array([[0.2]]), np.array([1]), np.array([1.0]), 0.1), {"normalize": 1}),
                                    Call((np.array([[1.5]]), np.array([1]), np.array([1.0]), 0.1))]),
        note="same seeded discrete-Gaussian words; grid values exact; tolerance only from the centroid's sum"),
    "private_boosting.weak_learner_rho": Pair(
        R.weak_learner_rho, F.weak_learner_rho,
        st.tuples(st.integers(1, 10**7), _KAPPA, st.sampled_from([0.0, 1e-4, 0.01, 1.0]), st.integers(1, 1000)
                  ).map(lambda a: Call(a)), claim="bun2020.thm22", rtol=0.0,
        bad_inputs=st.sampled_from([Call((10, 0.5, -0.1, 2)), Call((10, 0.5, 0.1, 0)), Call((0, 0.5, 0.1, 2))]),
        note="exact"),
    "private_boosting.boost": Pair(R.boost, F.boost, _generic_boost_calls(), claim="bun2020.alg1",
                                   compare=_compare_boost, max_examples=20,
                                   bad_inputs=st.sampled_from([Call((np.zeros((2, 1)), np.array([1, 1]), 0,
                                                                     _uniform_nxm, _centroid_wkl)),
                                                               Call((np.zeros((2, 1)), np.array([1, 3]), 1,
                                                                     _uniform_nxm, _centroid_wkl))]),
                                   note="hypotheses are callables: compared through the final votes"),
    "private_boosting.lazy_bregman_boost": Pair(
        R.lazy_bregman_boost, F.lazy_bregman_boost, _boost_calls(), claim="bun2020.alg4", rtol=1e-10, atol=1e-14,
        max_examples=40,
        bad_inputs=st.sampled_from([Call((np.array([[1.5]]), np.array([1]), 2, 0.5, 0.1, 0.1)),
                                    Call((np.array([[0.5]]), np.array([1]), 0, 0.5, 0.1, 0.1)),
                                    Call((np.array([[0.5]]), np.array([1]), 2, 0.5, 0.0, 0.1)),
                                    Call((np.array([[0.5]]), np.array([1]), 2, 1.0, 0.1, 0.1)),
                                    Call((np.array([[0.5]]), np.array([1]), 2, 0.5, 0.1, -0.1)),
                                    Call((np.array([[0.5]]), np.array([2]), 2, 0.5, 0.1, 0.1)),
                                    # (the coarse-grid refusal of D1 is gone: the run's grid follows Delta, issue 25)
                                    Call((np.full((8, 1), 0.5), np.ones(8, dtype=int), 2, 0.5, 0.1, float("nan")))]),
        note="same seeded noise words; float sums (fsum vs BLAS) feed the next round's weights; rho exact"),
    "private_boosting.hsstl_parameters": Pair(
        R.hsstl_parameters, F.hsstl_parameters,
        st.tuples(_UNIT, _UNIT, _UNIT, st.sampled_from(["tau/32", "tau/8"])).map(
            lambda a: Call(a[:3], {"lam_rule": a[3]})), claim="bun2020.alg4", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0.0, 0.1, 0.1)), Call((0.1, 1.0, 0.1)), Call((0.1, 0.1, 0.1),
                                                                                      {"lam_rule": "tau/16"})]),
        note="exact: the same float formulas"),
    "private_boosting.hsstl_rho": Pair(
        R.hsstl_rho, F.hsstl_rho, st.tuples(st.integers(1, 10**12), _UNIT, _UNIT, _UNIT, _DIM).map(
            lambda a: Call(a[:4], {} if a[4] is None else {"d": a[4]})),
        claim="bun2020.thm26.rho", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0, 0.1, 0.1, 0.1)), Call((10, 0.1, 0.1, 0.1), {"d": 0}),
                                    Call((10, 0.1, 0.1, 0.1), {"d": 1.5})]), note="exact"),
    "private_boosting.hsstl_privacy": Pair(
        R.hsstl_privacy, F.hsstl_privacy,
        st.tuples(st.integers(1, 10**12), _UNIT, _UNIT, _UNIT, st.sampled_from([1e-3, 1e-6, 1e-12]), _DIM).map(
            lambda a: Call(a[:5], {} if a[5] is None else {"d": a[5]})), claim="bun2020.thm26.rho", rtol=0.0,
        bad_inputs=st.sampled_from([Call((10, 0.1, 0.1, 0.1, 0.0)), Call((10, 0.1, 0.1, 0.1, 1.0))]), note="exact"),
    "private_boosting.hsstl_n_min": Pair(
        R.hsstl_n_min, F.hsstl_n_min,
        st.tuples(st.sampled_from([0.1, 1.0, 8.0]), st.sampled_from([1e-3, 1e-6]), _UNIT, _UNIT,
                  st.floats(0.05, 0.9), _DIM).map(lambda a: Call(a[:5], {} if a[5] is None else {"d": a[5]})),
        claim="bun2020.thm26.privacy-n", rtol=0.0, max_examples=30,
        bad_inputs=st.sampled_from([Call((0.0, 1e-6, 0.1, 0.1, 0.1)), Call((1.0, 0.0, 0.1, 0.1, 0.1)),
                                    Call((1.0, 1e-6, 0.1, 0.05, 0.1), {"d": 0})]),
        note="exact integer (with d, on the run's grid, which reaches every target)"),
    "private_boosting.margin_lower_bound": Pair(
        R.margin_lower_bound, F.margin_lower_bound,
        st.tuples(st.floats(0.001, 0.5), st.floats(0.001, 1.0), st.integers(1, 10**6), _KAPPA).map(lambda a: Call(a)),
        claim="bun2020.lemma39", rtol=0.0, bad_inputs=st.sampled_from([Call((0.1, 0.0, 10, 0.5)),
                                                                       Call((0.1, 0.1, 0, 0.5))]), note="exact"),
    "private_boosting.pythia": Pair(
        R.pythia, F.pythia,
        st.tuples(hnp.arrays(np.float64, st.integers(1, 14), elements=st.one_of(
            st.sampled_from([0.0, -0.5, 0.25]), st.floats(-1, 1))), _KAPPA).map(lambda a: Call(a)),
        claim="bun2020.alg8", rtol=0.0, bad_inputs=st.sampled_from([Call((np.array([0.1]), 0.0))]),
        note="exact: same mask and the same chosen margin (ties by lowest index)"),
    "private_boosting.sb_nxm": Pair(
        R.sb_nxm, F.sb_nxm,
        st.tuples(hnp.arrays(np.float64, st.integers(1, 10), elements=st.floats(-20, 20)), st.integers(0, 20),
                  st.floats(0.01, 0.49)).map(lambda a: Call(a)), claim="bun2020.alg13", rtol=1e-14,
        bad_inputs=st.sampled_from([Call((np.array([0.1]), 1, 0.5)), Call((np.array([0.1]), -1, 0.1))]),
        note="exp: numpy vs math (<= 1 ulp)"),
    "private_boosting.smoothboost_privacy": Pair(
        R.smoothboost_privacy, F.smoothboost_privacy,
        st.tuples(st.floats(0.001, 2.0), st.sampled_from([0.0, 1e-6]), st.integers(1, 1000),
                  st.sampled_from([1e-3, 1e-6]), st.booleans()).map(lambda a: Call(a[:4], {"printed": a[4]})),
        claim="bun2020.thm53", rtol=0.0, bad_inputs=st.sampled_from([Call((0.0, 0.0, 1, 1e-3)),
                                                                     Call((0.1, 0.0, 1, 0.0))]), note="exact"),
    "private_boosting.smooth_boost": Pair(
        R.smooth_boost, F.smooth_boost, _smooth_calls(), claim="bun2020.alg10", rtol=1e-10, atol=1e-14,
        max_examples=6,
        bad_inputs=st.sampled_from([Call((np.array([[0.5]]), np.array([1]), 0.5, 0.5, 2, 1.0, 1e-2)),
                                    Call((np.array([[0.5]]), np.array([1]), 0.2, 0.5, 0, 1.0, 1e-2)),
                                    Call((np.array([[0.5]]), np.array([1]), 0.2, 0.5, 2, 0.0, 1e-2)),
                                    Call((np.array([[1.5]]), np.array([1]), 0.2, 0.5, 2, 1.0, 1e-2))]),
        note="same seeded Laplace and Gaussian words in the same order; reference Gaussian calibration is slow "
             "(~0.7 s a round), hence few examples"),
    "private_boosting.stump_scores": Pair(
        R.stump_scores, F.stump_scores, _stump_calls(), claim="bun2020.s5.stump", rtol=1e-12, atol=1e-15,
        bad_inputs=_BAD_STUMP, note="fsum per score vs a sorted cumulative sum: rounding only"),
    "private_boosting.noisy_stump": Pair(
        R.noisy_stump, F.noisy_stump, _stump_calls(noisy=True), claim="bun2020.s5.stump", rtol=0.0, max_examples=40,
        bad_inputs=_BAD_STUMP.map(lambda c: Call(c.args + (1.0, 0.1))),
        note="same seeded discrete-Laplace words; the winner is exact (scores differ by rounding only)"),
    "private_boosting.report_noisy_max": Pair(
        R.report_noisy_max, F.report_noisy_max, _rnm_calls(), claim="bun2020.s5.stump-rnm", rtol=0.0,
        bad_inputs=_BAD_RNM, note="exact: same grid, same words, Python-integer argmax"),
    "private_boosting.noisy_max_epsilon": Pair(
        R.noisy_max_epsilon, F.noisy_max_epsilon,
        st.tuples(st.floats(1e-6, 10.0), st.floats(1e-3, 20.0)).map(lambda a: Call(a)), claim="bun2020.s5.stump-rnm",
        rtol=0.0, bad_inputs=st.sampled_from([Call((0.0, 1.0)), Call((0.1, 0.0)), Call((0.1, 1e-20)), Call((math.inf, 1.0)),
                                               Call((0.1, "1"))]), note="exact: the same laplace_grid"),
    "private_boosting.stump_sensitivity": Pair(
        R.stump_sensitivity, F.stump_sensitivity, st.tuples(st.integers(1, 10**7), _KAPPA).map(lambda a: Call(a)),
        claim="bun2020.s5.stump-sensitivity", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0, 0.5)), Call((10, 1.0)), Call((10, 0.0))]), note="exact Fractions"),
    "private_boosting.smoothboost_sensitivity": Pair(
        R.smoothboost_sensitivity, F.smoothboost_sensitivity,
        st.tuples(st.integers(1, 10**7), _KAPPA).map(lambda a: Call(a)), claim="bun2020.lemma52", rtol=0.0,
        bad_inputs=st.sampled_from([Call((0, 0.5)), Call((10, 1.0)), Call((10, 0.0))]),
        note="exact: 12/(kappa n) rounded up from Fractions"),
}
