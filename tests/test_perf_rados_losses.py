"""Issue 15 (rados / losses / radoboost / rado estimators): the performance changes keep their exact semantics.

* ``fast.rados.support_sizes``: the SWAR counting kernel (eight entries per unaligned 64-bit word, byte-lane sums
  flushed every 255 words, the m mod 8 last entries one by one) gives numpy's counts on every layout, and its fused
  value test catches a bad byte in every position of a word and of the tail, with the contract's message.
* ``fast.losses.example_adversary`` row I: one compiled pass (vectorised exp) instead of the contract's two
  reductions and scipy's expit: within 3 ulp of expit (each within ~1.5 ulp of the exact value), as the
  reference where expit underflows (|z / mu| > 709.78: the subnormal tail), and the contract's errors in its order.
* ``fast._risk_kernels.gradient_rows`` compiled with ``error_model="numpy"`` (its weights' division no longer
  blocks vectorisation): the same gradient as the BLAS + expit route, far margins included.
* ``fast.losses`` theta checks without the contract's stand-in matrix: the contract's messages, in its order.
* ``decision_function`` of the rado estimators skips scikit-learn's finiteness pass over X when every coefficient
  is non-zero (a NaN / inf then shows in the scores): same values (X @ coef + b, exactly), same errors.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.special import expit

import fast._rados_kernels as rados_kernels
import fast.losses as F_losses
import fast.rados as F_rados
import reference.losses as R_losses
import reference.rados as R_rados
from fast._risk_kernels import gradient_rows


def _error(fn, *args):
    try:
        fn(*args)
    except (TypeError, ValueError) as error:
        return type(error), str(error)
    return None


# --------------------------------------------------------------------------- support_sizes


def _signatures(rng, n, m):
    return np.where(rng.random((n, m)) < 0.5, -1, 1).astype(np.int8)


@pytest.mark.parametrize("m", [1, 7, 8, 9, 15, 16, 17, 64, 65, 255 * 8, 255 * 8 + 1, 255 * 8 + 9, 256 * 8, 3001])
def test_support_sizes_counts_on_every_layout(m):
    rng = np.random.default_rng(m)
    y = np.where(rng.random(m) < 0.5, -1, 1).astype(np.int8)
    base = _signatures(rng, 6, m + 3)
    flat = _signatures(rng, 1, 5 * m + 3)[0]
    layouts = {
        "C": np.ascontiguousarray(base[:5, :m]),
        "strided columns": base[:5, 3:],
        "C rows at an odd byte offset": flat[3:].reshape(5, m),
        "Fortran": np.asfortranarray(base[:5, :m]),
        "reversed rows": base[:5, :m][::-1],
    }
    for name, sigmas in layouts.items():
        want = np.count_nonzero(sigmas == y[None, :], axis=1)
        got = F_rados.support_sizes(y, sigmas)
        assert got.dtype == np.int64 and got.shape == (5,), name
        np.testing.assert_array_equal(got, want, err_msg=name)
    # all agreeing / all disagreeing rows: the byte lanes at their largest (255 words per flush)
    both = np.stack([y, -y]).astype(np.int8)
    np.testing.assert_array_equal(F_rados.support_sizes(y, both), [m, 0])


def test_support_sizes_matches_the_reference():
    rng = np.random.default_rng(7)
    for m in (1, 8, 13, 40):
        y = np.where(rng.random(m) < 0.5, -1, 1)
        sigmas = _signatures(rng, 9, m)
        np.testing.assert_array_equal(F_rados.support_sizes(y, sigmas), R_rados.support_sizes(y, sigmas))


@pytest.mark.parametrize("bad", [0, 2, -2, 3, -3, 127, -127, -128, 0x41, 0x7E])
def test_support_sizes_catches_a_bad_value_in_every_byte_position(bad):
    m = 8 * 3 + 5  # three words and a tail of five
    rng = np.random.default_rng(bad & 0xFF)
    y = np.where(rng.random(m) < 0.5, -1, 1).astype(np.int8)
    sigmas = _signatures(rng, 3, m)
    want = _error(R_rados.support_sizes, y, np.where(np.arange(m) == 0, 0, 1)[None, :])
    assert want is not None
    for column in range(m):
        for row in (0, 2):
            broken = sigmas.copy()
            broken[row, column] = bad
            assert _error(F_rados.support_sizes, y, broken) == want, (row, column)
            assert _error(F_rados.support_sizes, y, np.asfortranarray(broken)) == want, (row, column)


def test_dead_softplus_kernels_are_gone():
    assert not hasattr(rados_kernels, "softplus_margins")
    assert not hasattr(rados_kernels, "softplus_total")


# --------------------------------------------------------------------------- example_adversary (row I)


def _ulps(got, want):
    return np.abs(got - want) / np.spacing(np.abs(want))


@pytest.mark.parametrize("mu", [1.0, 0.7, 0.05, 20.0, 1e-3])
@pytest.mark.parametrize("scale", [1e-300, 1e-8, 1e-2, 1.0, 30.0, 300.0])
def test_example_adversary_is_expit_to_a_few_ulps(scale, mu):
    z = np.random.default_rng(int(scale * 7 + mu * 11) % 2**32).normal(size=5003) * scale
    got = F_losses.example_adversary(z, "I", mu)
    want = expit(-(z / mu))
    normal = want > np.finfo(np.float64).tiny
    assert got.dtype == np.float64 and got.shape == z.shape
    assert np.all(_ulps(got[normal], want[normal]) <= 3)
    assert np.all((got >= 0) & (got <= 1))


def test_example_adversary_far_margins_follow_the_reference():
    # |z / mu| around and beyond 708 (the second, libm pass) and beyond 745 (0 or 1 exactly)
    z = np.array([-1e4, -800.0, -746.0, -709.9, -708.5, -700.0, -1.0, -0.0, 0.0, 1e-310, 1.0, 700.0, 708.5,
                  709.9, 720.0, 745.0, 746.0, 800.0, 1e4, 1e99])
    got = F_losses.example_adversary(z, "I", 1.0)
    want = R_losses.example_adversary(z, "I", 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0.0)  # subnormals included: relative, not absolute
    assert got[z >= 746.0].tolist() == [0.0] * 4 and got[z <= -746.0].tolist() == [1.0] * 3
    assert got[7] == got[8] == 0.5
    # the same values through the long (vectorised) pass
    long = np.tile(z, 40)
    np.testing.assert_array_equal(F_losses.example_adversary(long, "I", 1.0), np.tile(got, 40))


def test_example_adversary_matches_the_reference_on_every_row():
    rng = np.random.default_rng(3)
    for m in (1, 5, 33):
        z = rng.normal(size=m) * 5
        for row in ("I", "II", "III", "IV"):
            for mu in (0.05, 1, 3.5):
                np.testing.assert_allclose(F_losses.example_adversary(z, row, mu),
                                           R_losses.example_adversary(z, row, mu), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("z, row, mu", [
    (np.array([1.0, np.nan, 2.0]), "I", 1.0),
    (np.array([1.0, np.inf]), "I", 1.0),
    (np.array([1.0, -np.inf]), "I", -1.0),  # z's error before mu's (the contract's order)
    (np.array([1.0, np.nan]), "V", 1.0),  # z's error before the row's
    (np.array([1.0, 2.0]), "I", 0.0),
    (np.array([1.0, 2.0]), "I", np.nan),
    (np.array([1.0, 2.0]), "I", "1"),
    (np.array([1.0, 2.0]), "I", True),
    (np.array([1.0, 2.0]), 1, 1.0),
    (np.array([1.0, 1e90]), "I", 1e-20),  # z / mu beyond the contract's range
    (np.array([1.0, -2e100]), "I", 1.0),  # z itself beyond it
    (np.full(5000, 1e95), "I", 1e-6),
    (np.ones((2, 2)), "I", 1.0),
    (np.ones(0), "I", 1.0),
    ("abc", "I", 1.0),
])
def test_example_adversary_raises_as_the_reference(z, row, mu):
    want = _error(R_losses.example_adversary, z, row, mu)
    assert want is not None
    assert _error(F_losses.example_adversary, z, row, mu) == want


def test_example_adversary_accepts_what_the_contract_accepts():
    z = [0.5, -1.0, 3.0]  # a list, an int mu, a numpy float mu, a 0-d array mu, a strided z
    for mu in (2, np.float32(2.0), np.array(2.0)):
        np.testing.assert_allclose(F_losses.example_adversary(z, "I", mu), R_losses.example_adversary(z, "I", mu),
                                   rtol=1e-14)
    strided = np.arange(20.0)[::3] - 3
    np.testing.assert_allclose(F_losses.example_adversary(strided, "I", 0.7),
                               R_losses.example_adversary(strided, "I", 0.7), rtol=1e-14)
    z = np.array([0.25, -0.5])
    z.setflags(write=False)
    F_losses.example_adversary(z, "I", 1.0)  # never written to


# --------------------------------------------------------------------------- logistic gradient kernel


@pytest.mark.parametrize("scale", [0.1, 30.0, 2000.0])
def test_gradient_rows_matches_the_blas_route(scale):
    rng = np.random.default_rng(int(scale))
    X = rng.normal(size=(3001, 17))
    y = np.where(rng.random(3001) < 0.5, -1, 1).astype(np.int8)
    theta = rng.normal(size=17) * scale / 17  # scale 2000: margins beyond 708 (the kernel's libm branch)
    g = np.empty(17)
    assert gradient_rows(X, y, theta, 0, 3001, g)
    w = y * (X @ theta)
    want = (y * expit(-w)) @ X
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12 * np.abs(X).sum())
    # the public function on C (fused kernel) and Fortran (BLAS + expit) layouts
    np.testing.assert_allclose(F_rados.logistic_risk_gradient(X, y, theta),
                               F_rados.logistic_risk_gradient(np.asfortranarray(X), y, theta), rtol=1e-10,
                               atol=1e-15)


# --------------------------------------------------------------------------- theta checks of fast.losses


@pytest.mark.parametrize("P, theta", [
    (np.ones((4, 3)), np.ones(2)),
    (np.ones((4, 3)), np.ones(4)),
    (np.ones((4, 3)), np.array([1.0, np.nan, 0.0])),
    (np.ones((4, 3)), np.ones((3, 1))),
    (np.ones((4, 3)), "x"),
    (np.where(np.eye(4, 3) == 1, np.nan, 1.0), np.ones(2)),  # the matrix's error before theta's
])
def test_loss_theta_checks_raise_as_the_reference(P, theta):
    for name, args in (("rado_set_loss", (P, theta, "I", 1.0)),
                       ("regularized_exp_rado_loss", (P, theta, 0.5)),
                       ("regularized_rados", (P, theta, 0.5, 1.0)),
                       ("regularized_example_loss", (P, theta, "I", 1.0, 0.5))):
        want = _error(getattr(R_losses, name), *args)
        assert want is not None, name
        assert _error(getattr(F_losses, name), *args) == want, name


# --------------------------------------------------------------------------- rado estimators' decision_function


def _fitted(dense: bool):
    from fast.estimators import RadoBoostClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, 0)
    clf = RadoBoostClassifier(20, random_state=0).fit(X, y)
    if dense:
        clf.coef_ = rng.normal(size=(1, 6))
        clf.intercept_ = np.array([0.25])
    else:
        clf.coef_ = np.array([[0.5, 0.0, -1.0, 0.0, 0.0, 2.0]])
    return clf, X


@pytest.mark.parametrize("dense", [True, False])
def test_decision_function_values_and_errors(dense):
    from sklearn.linear_model import LogisticRegression

    clf, X = _fitted(dense)
    Xt = np.random.default_rng(1).normal(size=(5000, 6))
    np.testing.assert_array_equal(clf.decision_function(Xt), Xt @ clf.coef_[0] + clf.intercept_[0])
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[(Xt @ clf.coef_[0] + clf.intercept_[0] > 0)
                                                                 .astype(int)])
    big = np.full((2, 6), 1e300)  # finite X whose products overflow: no error, as before
    with np.errstate(over="ignore"):
        assert np.array_equal(clf.decision_function(big), big @ clf.coef_[0] + clf.intercept_[0])
    peer = LogisticRegression().fit(X, (X[:, 0] > 0).astype(int))
    for column in range(6):  # a bad value under a zero and under a non-zero coefficient
        for bad in (np.nan, np.inf, -np.inf):
            Xb = Xt[:50].copy()
            Xb[7, column] = bad
            with pytest.raises(ValueError) as ours:
                clf.predict(Xb)
            with pytest.raises(ValueError) as theirs:
                peer.predict(Xb)
            assert str(ours.value).split(".")[0] == str(theirs.value).split(".")[0]
    wide = np.ones((2, 7))  # wrong width AND a NaN: scikit-learn reports the NaN first
    wide[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.decision_function(wide)
    with pytest.raises(ValueError, match="features"):
        clf.decision_function(np.ones((2, 7)))


def test_decision_function_with_feature_names_raises_without_a_warning():
    pd = pytest.importorskip("pandas")
    from fast.estimators import RadoBoostClassifier

    rng = np.random.default_rng(2)
    cols = [f"c{i}" for i in range(4)]
    X = pd.DataFrame(rng.normal(size=(200, 4)), columns=cols)
    clf = RadoBoostClassifier(10, random_state=0).fit(X, (X["c0"] > 0).astype(int))
    clf.coef_ = np.array([[1.0, -0.5, 0.25, 2.0]])
    Xb = X.copy()
    Xb.iloc[3, 2] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="NaN"):
            clf.predict(Xb)
        assert clf.predict(X).shape == (200,)
    assert math.isfinite(float(clf.decision_function(X).sum()))
