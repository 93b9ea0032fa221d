"""nock2016 eq. (20): lasso, ridge (Gamma SPD), l_inf, SLOPE (max over permutations), elastic net."""
import itertools
import math

import numpy as np
import pytest
from scipy.stats import norm

import fast.regularizers as FR
import reference.regularizers as RR
from spec.links import checks
from _error_parity import raises_same as _raises_same

MODULES = (RR, FR)


def _slope_by_permutations(theta, xi):
    """max_{M in S_d} (M |theta|)^T xi, over all d! permutation matrices (eq. 20 as printed)."""
    a = np.abs(theta)
    return max(float(a[list(perm)] @ xi) for perm in itertools.permutations(range(len(a))))


@pytest.mark.equivalence
@checks("nock2016.eq20")
def test_slope_equals_max_over_permutations():
    rng = np.random.default_rng(0)
    for d in range(1, 8):
        for q in (0.05, 0.5, 0.95):
            xi = RR.slope_weights(d, q)
            for theta in rng.normal(size=(2 if d == 7 else 4, d)):
                brute = _slope_by_permutations(theta, xi)
                for mod in MODULES:
                    assert math.isclose(mod.slope(theta, q), brute, rel_tol=1e-12)


@pytest.mark.equivalence
@checks("nock2016.eq20")
def test_slope_weights_are_normal_quantiles_positive_decreasing():
    for d in (1, 2, 10, 100):
        for q in (1e-6, 0.1, 0.5, 0.999):
            k = np.arange(1, d + 1)
            for mod in MODULES:
                xi = mod.slope_weights(d, q)
                assert xi.dtype == np.float64 and xi.shape == (d,)
                assert np.allclose(xi, norm.isf(k * q / (2 * d)), rtol=1e-12)
                assert np.all(xi > 0) and np.all(np.diff(xi) < 0)


@pytest.mark.equivalence
@checks("nock2016.eq20")
def test_norms_against_numpy():
    rng = np.random.default_rng(1)
    for theta in rng.normal(size=(20, 6)):
        A = rng.normal(size=(6, 6))
        Gamma = A @ A.T + 0.1 * np.eye(6)
        for mod in MODULES:
            assert math.isclose(mod.lasso(theta), np.linalg.norm(theta, 1), rel_tol=1e-13)
            assert mod.linf(theta) == np.linalg.norm(theta, np.inf)
            assert math.isclose(mod.ridge(theta), theta @ theta, rel_tol=1e-13)
            assert math.isclose(mod.ridge(theta, Gamma), theta @ Gamma @ theta, rel_tol=1e-10)
            assert math.isclose(mod.elastic_net(theta, l1=0.3, l2=2.0, Gamma=Gamma),
                                0.3 * mod.lasso(theta) + 2.0 * mod.ridge(theta, Gamma), rel_tol=1e-13)
            assert math.isclose(mod.elastic_net(theta), mod.lasso(theta) + mod.ridge(theta), rel_tol=1e-13)
    for mod in MODULES:
        z = np.zeros(3)
        assert mod.lasso(z) == mod.ridge(z) == mod.linf(z) == mod.slope(z, 0.5) == mod.elastic_net(z) == 0.0


@pytest.mark.parametrize("mod", MODULES, ids=["reference", "fast"])
def test_gamma_must_be_symmetric_positive_definite(mod):
    theta = np.ones(2)
    with pytest.raises(ValueError, match="Gamma .*not symmetric"):
        mod.ridge(theta, np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="Gamma .*not positive definite"):
        mod.ridge(theta, np.array([[1.0, 0.0], [0.0, -1.0]]))
    with pytest.raises(ValueError, match="Gamma .*not positive definite"):
        mod.ridge(theta, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="Gamma"):
        mod.ridge(theta, np.eye(3))
    with pytest.raises(ValueError, match="Gamma"):
        mod.get_regularizer("ridge", Gamma=np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="Gamma"):
        mod.elastic_net(theta, Gamma=np.array([[np.nan, 0.0], [0.0, 1.0]]))


@pytest.mark.parametrize("mod", MODULES, ids=["reference", "fast"])
def test_get_regularizer(mod):
    theta = np.array([3.0, -1.0, 2.0])
    assert mod.get_regularizer("none")(theta) == 0.0
    assert mod.get_regularizer("lasso")(theta) == 6.0
    assert mod.get_regularizer("ridge")(theta) == 14.0
    assert mod.get_regularizer("ridge", Gamma=2 * np.eye(3))(theta) == 28.0
    assert mod.get_regularizer("linf")(theta) == 3.0
    assert mod.get_regularizer("slope", q=0.3)(theta) == mod.slope(theta, 0.3)
    assert mod.get_regularizer("elastic_net", l1=2.0, l2=0.5)(theta) == 12.0 + 7.0
    assert set(mod.REGULARIZER_NAMES) == {"none", "ridge", "lasso", "linf", "slope", "elastic_net"}
    with pytest.raises(ValueError, match="elastic_net"):  # the message lists the names
        mod.get_regularizer("l2")
    with pytest.raises(ValueError, match="q"):
        mod.get_regularizer("slope", q=1.0)
    with pytest.raises(TypeError, match="q"):
        mod.get_regularizer("slope")
    with pytest.raises(TypeError, match="unexpected"):
        mod.get_regularizer("lasso", q=0.5)
    with pytest.raises(ValueError, match="theta"):
        mod.get_regularizer("none")(np.array([np.inf]))
    for q in (0.0, 1.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="q"):
            mod.slope_weights(3, q)


@pytest.mark.parametrize("mod", MODULES, ids=["reference", "fast"])
def test_huge_theta_gives_inf_never_nan_and_both_agree(mod):
    """A value beyond float64 is +inf (no NaN, no OverflowError, no warning), a zero weight switches its term
    off (0 * inf would be NaN), and the power-of-two rescaling leaves ordinary values bit for bit unchanged."""
    Gamma = np.array([[2.0, 2.0], [2.0, 3.0]])  # SPD; the unscaled Gamma @ theta below is inf - inf = NaN
    big = np.array([1e308, -1e308])
    assert mod.lasso(big) == math.inf
    assert mod.ridge(big, Gamma) == math.inf
    assert mod.ridge(np.array([1e200, 1e200])) == math.inf
    assert mod.slope(big, 0.1) == math.inf
    assert mod.elastic_net(np.array([1e200, 1e200]), l1=1.0, l2=0.0) == 2e200
    assert mod.elastic_net(np.array([1e200, 1e200]), l1=0.0, l2=1.0) == math.inf
    assert mod.ridge(np.array([1e-200, 1e-200])) == 0.0  # 2e-400 underflows to 0, as it should
    rng = np.random.default_rng(5)
    for _ in range(20):
        theta = rng.integers(-9, 10, size=6).astype(float) * 2.0 ** int(rng.integers(-40, 40))
        A = rng.integers(-3, 4, size=(6, 6)).astype(float)
        G = A @ A.T + np.eye(6)
        assert mod.lasso(theta) == math.fsum(abs(t) for t in theta)
        assert mod.ridge(theta, G) == math.fsum(theta[i] * G[i, j] * theta[j] for i in range(6) for j in range(6))
        huge = np.ldexp(theta, 900)  # ridge overflows, lasso and SLOPE may not
        assert mod.ridge(huge, G) == math.inf or not np.any(theta)
        assert not math.isnan(mod.slope(huge, 0.2)) and not math.isnan(mod.elastic_net(huge, 0.5, 0.0, G))



def _spd(d, seed):
    A = np.random.default_rng(seed).normal(size=(d, d))
    return A @ A.T / d + np.eye(d)


@pytest.mark.parametrize("d", [1, 3, 50])
def test_ridge_gamma_remembers_only_what_it_accepted(d):
    import fast.regularizers as F
    import reference.regularizers as R

    G = _spd(d, d)
    theta = np.random.default_rng(d).normal(size=d)
    for _ in range(3):  # the first call runs the contract, the next ones compare with the stored copy
        assert F.ridge(theta, G) == pytest.approx(R.ridge(theta, G), rel=1e-12)
        assert F.elastic_net(theta, 0.5, 2.0, G) == pytest.approx(R.elastic_net(theta, 0.5, 2.0, G), rel=1e-12)
    omega = F.get_regularizer("ridge", Gamma=G)
    assert omega(theta) == pytest.approx(R.ridge(theta, G), rel=1e-12)
    # the caller modifies its accepted array in place: the next call decides afresh, as the reference does
    for value, message in ((-5.0 * d, "positive definite"), (np.nan, "finite"), (np.inf, "finite")):
        H = G.copy()
        H[0, 0] = value
        _raises_same(lambda: R.ridge(theta, H), lambda: F.ridge(theta, H))
        G_alias = G  # same object, mutated after acceptance
        saved = G_alias[0, 0]
        G_alias[0, 0] = value
        try:
            _raises_same(lambda: R.ridge(theta, G_alias), lambda: F.ridge(theta, G_alias))
            with pytest.raises(ValueError, match=message):
                omega(theta)
        finally:
            G_alias[0, 0] = saved
        assert F.ridge(theta, G) == pytest.approx(R.ridge(theta, G), rel=1e-12)
    if d > 1:
        asym = G.copy()
        asym[0, 1] += 1.0
        _raises_same(lambda: R.ridge(theta, asym), lambda: F.ridge(theta, asym))
    _raises_same(lambda: R.ridge(theta, np.eye(d + 1)), lambda: F.ridge(theta, np.eye(d + 1)))
    _raises_same(lambda: R.ridge(theta, G.astype(str)), lambda: F.ridge(theta, G.astype(str)))


def test_ridge_gamma_strided_and_extreme_values():
    import fast.regularizers as F
    import reference.regularizers as R

    G = _spd(6, 1)
    big = np.asfortranarray(G)  # not C-ordered: compared entrywise all the same
    for theta in (np.ones(6), np.full(6, 1e-210), np.full(6, 1e200), np.zeros(6), np.arange(12.0)[::2]):
        for gamma in (G, big, G * 1e300, G * 1e-300):
            assert F.ridge(theta, gamma) == pytest.approx(R.ridge(theta, gamma), rel=1e-10)


@pytest.mark.parametrize("theta", [np.array([1.0, -2.0, 0.5]), np.array([0.0, -0.0]), np.array([1e-300, -1e-310]),
                                   np.array([1e200, -3e200]), np.array([np.nan, 1.0]), np.array([1.0, np.inf]),
                                   np.array([np.inf, np.nan]), [1, 2], np.array([3], dtype=np.int64)])
def test_one_pass_norms_match_reference(theta):
    import fast.regularizers as F
    import reference.regularizers as R

    for fn in ("lasso", "ridge", "linf"):
        try:
            want = getattr(R, fn)(theta)
        except (TypeError, ValueError):
            _raises_same(lambda: getattr(R, fn)(theta), lambda: getattr(F, fn)(theta))
            continue
        assert getattr(F, fn)(theta) == pytest.approx(want, rel=1e-12, abs=0.0)
    try:
        want = R.elastic_net(theta, 0.5, 2.0)
    except (TypeError, ValueError):
        _raises_same(lambda: R.elastic_net(theta, 0.5, 2.0), lambda: F.elastic_net(theta, 0.5, 2.0))
    else:
        assert F.elastic_net(theta, 0.5, 2.0) == pytest.approx(want, rel=1e-12, abs=0.0)
    for l1, l2 in ((-1.0, 1.0), (1.0, np.nan), (np.inf, 1.0), (True, 1.0), ("1", 1.0)):
        _raises_same(lambda: R.elastic_net(np.ones(3), l1, l2), lambda: F.elastic_net(np.ones(3), l1, l2))


@pytest.mark.parametrize("kind", ["normal", "nan", "inf", "huge", "tiny"])
def test_long_vector_norms_match_reference(kind):
    import fast.losses as FL
    import fast.regularizers as F
    import reference.regularizers as R

    theta = np.random.default_rng(8).normal(size=F.BLAS1_MAX + 3)  # the numba reductions
    if kind == "nan":
        theta[40000 % theta.size] = np.nan
    elif kind == "inf":
        theta[-1] = -np.inf
    elif kind == "huge":
        theta *= 1e200
    elif kind == "tiny":
        theta *= 1e-200
    for fn in ("lasso", "ridge", "linf"):
        try:
            want = getattr(R, fn)(theta)
        except ValueError:
            _raises_same(lambda: getattr(R, fn)(theta), lambda: getattr(F, fn)(theta))
            continue
        assert getattr(F, fn)(theta) == pytest.approx(want, rel=1e-12)
    if kind == "normal":
        assert F.elastic_net(theta, 0.5, 2.0) == pytest.approx(R.elastic_net(theta, 0.5, 2.0), rel=1e-12)
        assert FL.omega_tilde(theta, 0.5, 0.7) == pytest.approx(0.35 / R.ridge(theta), rel=1e-12)
