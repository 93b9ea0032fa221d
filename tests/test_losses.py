"""nock2016 sections 2-3: Table 1 equivalences, games, Theorem 2, Lemma 4, Theorem 7 (exact enumeration).

Every identity is checked by enumerating all 2^m subsets J of [m] (the reference enumerates through G_m;
the fast module uses product / moment identities, so agreement is itself a check).  Claims found false
as printed are asserted false here (with the reading that holds asserted true), never weakened.
"""
import math

import numpy as np
import pytest

import fast.losses as FL
import reference.losses as RL
import reference.regularizers as RR
from reference.rados import all_rados, edge_vectors, g_matrix
from spec.links import checks
import fast.rados as FRA
import fast.regularizers as FRG
import reference.rados as RRA
from spec.strategies import datasets
from hypothesis import given
from hypothesis.extra import numpy as hnp
from hypothesis import settings
from hypothesis import strategies as st
from scipy.special import expit
from _error_parity import raises_same as _raises_same
from _numba_threads import threads as _threads

pytestmark = pytest.mark.equivalence
ROWS = RL.ROWS


def _margins(rng, m, scale=2.0):
    return rng.normal(size=m) * scale


def _affine_residual(x, y):
    """max |y - (a x + c)| over the least-squares line, and the slope a."""
    A = np.c_[x, np.ones_like(x)]
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return float(np.abs(A @ coef - y).max()), float(coef[0])


def _inversions(x, y, tol=1e-9):
    """number of consecutive pairs (sorted by x) where y decreases: > 0 means y is no increasing function of x."""
    order = np.argsort(x)
    return int((np.diff(y[order]) < -tol).sum())


# --------------------------------------------------------------------------- eq. (8), s3 representation


@checks("nock2016.eq8")
def test_g_matrix_follows_the_recursion_of_eq8():
    G = np.array([[0, 1]])
    for m in range(1, 11):
        if m > 1:
            half = G.shape[1]
            G = np.vstack([np.r_[np.zeros(half), np.ones(half)], np.hstack([G, G])])
        assert np.array_equal(g_matrix(m), G.astype(np.uint8))


@checks("nock2016.setup", "nock2016.sec3.repr")
def test_subset_sums_are_rados_times_theta():
    rng = np.random.default_rng(1)
    for m in (1, 3, 7):
        X = rng.normal(size=(m, 4))
        y = rng.choice([-1, 1], size=m)
        theta = rng.normal(size=4)
        z = edge_vectors(X, y) @ theta  # z_i = y_i theta^T x_i
        assert np.allclose(z, y * (X @ theta), rtol=1e-13)
        Pi = all_rados(X, y)
        assert np.allclose(Pi @ theta, z @ g_matrix(m), rtol=1e-12, atol=1e-12)  # theta^T pi_sigma = s_J
        for row in ROWS:
            for mod in (RL, FL):
                assert math.isclose(mod.rado_set_loss(Pi, theta, row, 0.7), mod.rado_loss(z, row, 0.7),
                                    rel_tol=1e-10, abs_tol=1e-12)


# --------------------------------------------------------------------------- Table 1, row by row


@checks("nock2016.table1.i", "nock2016.table1", "nock2016.def5")
def test_row_i_logistic_is_log_of_exponential_rado_loss():
    rng = np.random.default_rng(2)
    for m in range(1, 13):
        z = _margins(rng, m)
        for mu in (0.3, 1.0, 4.0):
            le = RL.example_loss(z, "I", mu)
            lr = RL.rado_loss(z, "I", mu)  # enumerated over 2^m subsets
            assert math.isclose(le, math.log(lr), rel_tol=1e-13)
            Le = FL.example_game_value(z, "I", mu)
            Lr = FL.rado_game_value(z, "I", mu)
            assert math.isclose(-Le, mu * le, rel_tol=1e-13)  # f_e(t) = mu t: a_e = mu_e
            assert math.isclose(-Lr, mu * math.log(lr) + mu, rel_tol=1e-12)  # f_r(t) = mu log t + mu
            assert math.isclose(Le - Lr, mu, rel_tol=1e-9, abs_tol=1e-12)  # b = mu
    assert RL.slope_a_e("I", 0.3) == 0.3


@checks("nock2016.table1.ii", "nock2016.table1")
def test_row_ii_as_printed_fails_for_mu_not_one():
    """'for all mu_e = mu_r' is false: at mu = 0.5 l_r is no increasing function of l_e."""
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(200, 3)) * 2
    for mu in (0.5, 2.0):
        le = np.array([RL.example_loss(z, "II", mu) for z in Z])
        lr = np.array([RL.rado_loss(z, "II", mu) for z in Z])
        residual, _ = _affine_residual(le, lr)
        assert residual > 1.0
        assert _inversions(le, lr) > 50


@checks("nock2016.table1.ii", "nock2016.def5", "nock2016.def1")
def test_row_ii_holds_at_mu_e_one_and_with_the_corrected_rado_loss():
    rng = np.random.default_rng(3)
    for m in range(1, 13):
        z = _margins(rng, m)
        s = z @ g_matrix(m)
        for mu_r in (0.5, 1.0, 3.0):
            # loss level, as printed, mu_e = 1: l_r = (l_e - m) / (4 mu_r) for every mu_r
            assert math.isclose(RL.rado_loss(z, "II", mu_r), (RL.example_loss(z, "II", 1.0) - m) / (4 * mu_r),
                                rel_tol=1e-9, abs_tol=1e-11)
            # reading without the mu_r factor: -(E_J[-z^r] - V_J[-z^r]) = (l_e(z, mu_r) - m) / 4
            minus_zr = s / mu_r
            corrected = -(minus_zr.mean() - minus_zr.var())
            assert math.isclose(corrected, (RL.example_loss(z, "II", mu_r) - m) / 4, rel_tol=1e-9, abs_tol=1e-11)
        # game level: proportionate with mu_r = 2^(m-1) mu_e, b = (m - 1) mu_e / 4; Def. 5 at mu_e = 1
        mu_e = 1.0
        mu_r = 2.0 ** (m - 1) * mu_e
        Le = RL.example_game_value(z, "II", mu_e) if m <= 10 else FL.example_game_value(z, "II", mu_e)
        Lr = RL.rado_game_value(z, "II", mu_r) if m <= 10 else FL.rado_game_value(z, "II", mu_r)
        assert math.isclose(Le - Lr, (m - 1) * mu_e / 4, rel_tol=1e-9, abs_tol=1e-9)
        assert math.isclose(-Le, RL.example_loss(z, "II", mu_e) / 4 - m / 2, rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(-Lr, mu_r * FL.rado_loss(z, "II", mu_r) - mu_r / 2 ** (m + 1), rel_tol=1e-9, abs_tol=1e-9)


@checks("nock2016.table1.iii", "nock2016.table1", "nock2016.def5")
def test_row_iii_relu_and_hinge_at_zero():
    rng = np.random.default_rng(4)
    for m in range(1, 13):
        z = _margins(rng, m)
        z[0] = 0.0  # a tie
        hinge = math.fsum(max(0.0, -v) for v in z)
        for mu_e, mu_r in ((1.0, 1.0), (0.2, 5.0)):
            assert math.isclose(mu_e * RL.example_loss(z, "III", mu_e), hinge, rel_tol=1e-13, abs_tol=1e-14)
            assert math.isclose(mu_r * RL.rado_loss(z, "III", mu_r), hinge, rel_tol=1e-13, abs_tol=1e-14)
            assert math.isclose(-FL.example_game_value(z, "III", mu_e), hinge, rel_tol=1e-13, abs_tol=1e-14)
            assert math.isclose(-FL.rado_game_value(z, "III", mu_r), hinge, rel_tol=1e-13, abs_tol=1e-14)


@checks("nock2016.table1.iv", "nock2016.table1", "nock2016.def5")
def test_row_iv_unhinged_equivalence_and_its_a_e():
    rng = np.random.default_rng(5)
    for m in range(1, 13):
        z = _margins(rng, m)
        for mu_e, mu_r in ((1.0, 1.0), (0.5, 2.0)):
            le = RL.example_loss(z, "IV", mu_e)
            lr = RL.rado_loss(z, "IV", mu_r)
            assert math.isclose(lr, mu_e / (2 * mu_r) * le, rel_tol=1e-12, abs_tol=1e-13)
            Le = FL.example_game_value(z, "IV", mu_e)
            assert math.isclose(-Le, mu_e / 2 * le, rel_tol=1e-12, abs_tol=1e-13)  # a_e = mu_e / 2
            assert math.isclose(-FL.rado_game_value(z, "IV", mu_r), mu_r * lr, rel_tol=1e-12, abs_tol=1e-13)
    # the printed a_e = mu_e is not the slope of f_e
    Z = rng.normal(size=(50, 3))
    le = np.array([FL.example_loss(z, "IV", 1.0) for z in Z])
    minus_Le = np.array([-FL.example_game_value(z, "IV", 1.0) for z in Z])
    _, slope = _affine_residual(le, minus_Le)
    assert math.isclose(slope, FL.slope_a_e("IV", 1.0), rel_tol=1e-9)
    assert not math.isclose(slope, FL.slope_a_e("IV", 1.0, reading="printed"), rel_tol=1e-3)


# --------------------------------------------------------------------------- Definition 1, Theorem 2


@checks("nock2016.def1", "nock2016.thm2")
def test_theorem2_p_star_equals_G_q_star_iff_proportionate():
    rng = np.random.default_rng(6)
    for m in range(1, 9):
        G = g_matrix(m).astype(np.float64)
        for _ in range(3):
            z = _margins(rng, m)
            for row in ROWS:
                mu_e = 0.8
                mu_r = 2.0 ** (m - 1) * mu_e if row == "II" else mu_e
                p = RL.example_adversary(z, row, mu_e)
                q = RL.rado_adversary(z, row, mu_r)
                assert np.allclose(p, G @ q, rtol=1e-9, atol=1e-12), (row, m)
                assert math.isclose(q.sum(), 1.0, rel_tol=1e-12)
        # row II with mu_r = mu_e: neither proportionate nor p* = G q* once m >= 2
        if m >= 2:
            zs = [_margins(rng, m) for _ in range(5)]
            gaps = [FL.example_game_value(z, "II", 1.0) - FL.rado_game_value(z, "II", 1.0) for z in zs]
            assert max(gaps) - min(gaps) > 1e-3
            assert max(np.abs(FL.example_adversary(z, "II", 1.0) - G @ FL.rado_adversary(z, "II", 1.0)).max()
                       for z in zs) > 1e-3


@checks("nock2016.thm2")
def test_theorem2_row_iii_superdifferential_at_ties():
    """Row III is not differentiable: at z_i = 0, p*_i and (G q*)_i must lie in the superdifferential [0, 1]."""
    z = np.array([0.0, -1.0, 2.0, 0.0])
    p = RL.example_adversary(z, "III", 1.0)
    Gq = g_matrix(4) @ RL.rado_adversary(z, "III", 1.0)
    for i, v in enumerate(z):
        expected = (0.0, 1.0) if v == 0 else ((1.0, 1.0) if v < 0 else (0.0, 0.0))
        assert expected[0] <= p[i] <= expected[1] and expected[0] <= Gq[i] <= expected[1]
    # L(z) = sum min(0, z_i) is concave: L(z + h) <= L(z) + p^T h for the supergradient p
    for h in np.random.default_rng(7).normal(size=(20, 4)):
        assert FL.rado_game_value(z + h, "III", 1.0) <= FL.rado_game_value(z, "III", 1.0) + p @ h + 1e-12


# --------------------------------------------------------------------------- Definition 3, Lemma 4, construction


@checks("nock2016.def3")
def test_symmetrisation():
    for row in ROWS:
        for x in np.linspace(-0.5, 1.5, 41):
            m = 3 if row == "IV" else None
            value = RL.phi_s(float(x), row, m)
            assert value == RL.phi_r(float(x), row, m) + RL.phi_r(1.0 - float(x), row, m)
            assert math.isclose(value, RL.phi_s(1.0 - float(x), row, m), rel_tol=1e-12) or value == math.inf
    assert RL.phi_s(0.5, "IV", 3) == 0.0 and RL.phi_s(0.4, "IV", 3) == math.inf  # chi_{1/2}
    assert math.isclose(RL.phi_e(0.3, "I"), 0.3 * math.log(0.3) + 0.7 * math.log(0.7), rel_tol=1e-14)


@checks("nock2016.lemma4")
def test_lemma4_constant_and_scale_fail_beyond_m_one():
    rng = np.random.default_rng(8)
    mu = 1.0
    # row I, phi_e = phi_s(r) + c: L_e - L_r = mu (m c - m + 1); the lemma's b / mu_e = c only when c = 1 or m = 1
    for m in (1, 2, 5):
        for c in (0.0, 1.0, 2.5):
            z = _margins(rng, m)
            Le = FL.example_game_value(z, "I", mu) + m * mu * (c - 1.0)  # closed form uses c = 1
            b = Le - RL.rado_game_value(z, "I", mu)
            assert math.isclose(b, mu * (m * c - m + 1), rel_tol=1e-9, abs_tol=1e-9)
            lemma_holds = math.isclose(b / mu, c, abs_tol=1e-9)
            assert lemma_holds == (m == 1 or c == 1.0)
    # row II: proportionate pairs have mu_r / mu_e = 2^(m-1) while phi_e = phi_s(r) (scale 1)
    for m in (1, 3):
        z1, z2 = _margins(rng, m), _margins(rng, m)
        for ratio in (1.0, 2.0 ** (m - 1)):
            gap1 = FL.example_game_value(z1, "II", 1.0) - FL.rado_game_value(z1, "II", ratio)
            gap2 = FL.example_game_value(z2, "II", 1.0) - FL.rado_game_value(z2, "II", ratio)
            assert math.isclose(gap1, gap2, abs_tol=1e-9) == (ratio == 2.0 ** (m - 1))


@checks("nock2016.construct")
def test_construction_phi_r_is_f_plus_antisymmetric_g():
    for row in ("I", "II", "III"):
        for x in np.linspace(0.01, 0.99, 25):
            x = float(x)
            f = lambda t: RL.phi_s(t, row) / 2  # noqa: E731  f(z) + f(1 - z) = phi_s(r)(z)
            g = lambda t: RL.phi_r(t, row) - f(t)  # noqa: E731
            assert math.isclose(g(x), -g(1.0 - x), rel_tol=1e-12, abs_tol=1e-14)
            assert math.isclose(f(x) + f(1.0 - x), RL.phi_s(x, row), rel_tol=1e-12, abs_tol=1e-14)


# --------------------------------------------------------------------------- Theorem 7, eq. (13), eq. (45)


def _regularizers(d):
    A = np.random.default_rng(9).normal(size=(d, d))
    Gamma = A @ A.T + np.eye(d)
    return {
        "lasso": RR.get_regularizer("lasso"),
        "ridge": RR.get_regularizer("ridge", Gamma=Gamma),
        "linf": RR.get_regularizer("linf"),
        "slope": RR.get_regularizer("slope", q=0.2),
        "elastic_net": RR.get_regularizer("elastic_net", l1=0.5, l2=2.0),
    }


@checks("nock2016.thm7", "nock2016.eq13")
@pytest.mark.parametrize("row", ROWS)
def test_theorem7_regularized_rados_for_every_regularizer(row):
    rng = np.random.default_rng(10)
    for m, d in ((1, 2), (4, 3), (8, 5)):
        X = rng.normal(size=(m, d))
        y = rng.choice([-1, 1], size=m)
        E, Pi = edge_vectors(X, y), all_rados(X, y)
        mu_e, mu_r = {"I": (0.7, 0.7), "II": (1.0, 2.5), "III": (0.4, 3.0), "IV": (0.5, 2.0)}[row]
        a_e = FL.slope_a_e(row, mu_e)
        for name, omega in _regularizers(d).items():
            for theta in rng.normal(size=(4, d)):
                penalty = omega(theta)
                lhs = FL.regularized_example_loss(E, theta, row, mu_e, penalty)
                assert math.isclose(lhs, FL.example_loss(E @ theta, row, mu_e) + penalty, rel_tol=1e-13)
                lr = FL.rado_set_loss(FL.regularized_rados(Pi, theta, penalty, a_e), theta, row, mu_r)
                expected = {
                    "I": lambda: math.exp(lhs),
                    "II": lambda: (lhs - m) / (4 * mu_r),
                    "III": lambda: mu_e / mu_r * lhs,
                    "IV": lambda: mu_e / (2 * mu_r) * lhs,
                }[row]()
                assert math.isclose(lr, expected, rel_tol=1e-9, abs_tol=1e-9), (row, name, m)


@checks("nock2016.thm7")
def test_theorem7_reference_matches_on_one_instance():
    rng = np.random.default_rng(11)
    X, y = rng.normal(size=(5, 3)), rng.choice([-1, 1], size=5)
    theta = rng.normal(size=3)
    penalty = RR.slope(theta, 0.3)
    shifted = RL.regularized_rados(all_rados(X, y), theta, penalty, RL.slope_a_e("I", 1.0))
    lhs = RL.regularized_example_loss(edge_vectors(X, y), theta, "I", 1.0, penalty)
    assert math.isclose(math.log(RL.rado_set_loss(shifted, theta, "I", 1.0)), lhs, rel_tol=1e-12)


@checks("nock2016.thm7.margin")
def test_margin_reading_of_theorem7():
    rng = np.random.default_rng(12)
    Pi = rng.normal(size=(6, 4))
    for theta in rng.normal(size=(10, 4)):
        penalty, a_e = RR.lasso(theta), 0.7
        shifted = RL.regularized_rados(Pi, theta, penalty, a_e)
        assert np.allclose(shifted @ theta, Pi @ theta - a_e * penalty, rtol=1e-12, atol=1e-12)
        assert math.isclose(RL.omega_tilde(theta, penalty, a_e) * float(theta @ theta), a_e * penalty, rel_tol=1e-12)
    assert RL.omega_tilde(np.zeros(4), 3.0, 1.0) == 0.0 == FL.omega_tilde(np.zeros(4), 3.0, 1.0)
    assert np.array_equal(FL.regularized_rados(Pi, np.zeros(4), 3.0, 1.0), Pi)


@checks("nock2016.thm7.margin")
def test_tiny_theta_gives_finite_shift():
    theta = np.array([5e-324, 0.0, -5e-324])
    for mod in (RL, FL):
        shifted = mod.regularized_rados(np.ones((2, 3)), theta, RR.lasso(theta), 1.0)
        assert np.all(np.isfinite(shifted))
        assert np.allclose(shifted, [[0.0, 1.0, 2.0]] * 2)  # Omega~ theta = (||theta||_1 / ||theta||^2) theta


@checks("nock2016.eq45")
def test_eq45_regularized_exponential_rado_loss_is_regularized_log_loss():
    rng = np.random.default_rng(13)
    for m in (1, 5, 12):
        X, y = rng.normal(size=(m, 3)), rng.choice([-1, 1], size=m)
        Pi, E = all_rados(X, y), edge_vectors(X, y)
        theta = rng.normal(size=3)
        penalty, omega = RR.ridge(theta), 0.3
        log_loss = math.fsum(math.log1p(math.exp(-float(e @ theta))) for e in E)
        value = FL.regularized_exp_rado_loss(Pi, theta, penalty, omega=omega, log=True)
        assert math.isclose(value, log_loss - m * math.log(2) + omega * penalty, rel_tol=1e-12)
        assert math.isclose(math.log(FL.regularized_exp_rado_loss(Pi, theta, penalty, omega=omega)), value, rel_tol=1e-12)
    # log-space: no overflow at |theta . pi| = 1e6
    Pi = np.array([[1e6], [-1e6]])
    assert FL.regularized_exp_rado_loss(Pi, np.array([1.0]), 0.0, log=True) == pytest.approx(1e6 - math.log(2))
    assert FL.regularized_exp_rado_loss(Pi, np.array([1.0]), 0.0) == math.inf


def test_bad_inputs_name_the_argument():
    for mod in (RL, FL):
        with pytest.raises(ValueError, match="row"):
            mod.example_loss([1.0], "V", 1.0)
        with pytest.raises(ValueError, match="mu_r"):
            mod.rado_loss([1.0], "I", 0.0)
        with pytest.raises(ValueError, match="m must be given"):
            mod.phi_r(0.3, "IV")
        with pytest.raises(ValueError, match="theta"):
            mod.regularized_rados(np.ones((2, 3)), np.ones(2), 1.0, 1.0)
        with pytest.raises(ValueError, match="z"):
            mod.example_loss([np.nan], "I", 1.0)


@checks("nock2016.eq45", "nock2016.thm7")
def test_eq45_is_row_i_on_regularized_rados():
    """l_r^exp(S_r*, theta, Omega) = 2^-m l_r^I(S_r*^{omega Omega, theta}, theta) with mu = 1, a_e = 1 (Theorem 7, row I)."""
    rng = np.random.default_rng(14)
    for m in (2, 6):
        X, y = rng.normal(size=(m, 3)), rng.choice([-1, 1], size=m)
        Pi = all_rados(X, y)
        for theta in rng.normal(size=(3, 3)):
            penalty, omega = RR.slope(theta, 0.4), 0.7
            for mod in (RL, FL):
                lhs = mod.regularized_exp_rado_loss(Pi, theta, penalty, omega=omega)
                shifted = mod.regularized_rados(Pi, theta, omega * penalty, mod.slope_a_e("I", 1.0))
                assert math.isclose(lhs, mod.rado_set_loss(shifted, theta, "I", 1.0) / 2**m, rel_tol=1e-12)


IMPLS = [(RL, RRA, RR, 8), (FL, FRA, FRG, 12)]  # (losses, rados, regularizers, largest m enumerated)


IDS = ["reference", "fast"]


#: theta entries: integers / 4 (exact in binary), small enough that row I's 2^m exponentials stay finite
THETA = st.integers(-4, 4).map(lambda k: k / 4.0)


POW2 = st.sampled_from([0.25, 0.5, 1.0, 2.0, 4.0])


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, abs(scale))


@checks("nock2016.table1.i", "nock2016.table1.ii", "nock2016.table1.iii", "nock2016.table1.iv",
        "nock2016.sec3.repr")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_table1_rows_on_hypothesis_data_sets_all_rados(impl):
    losses, rados, _, max_m = impl

    @settings(max_examples=30)
    @given(data=datasets(max_m=max_m, integer_valued=True), extra=st.data())
    def run(data, extra):
        X, y = data
        m, d = X.shape
        theta = extra.draw(hnp.arrays(np.float64, (d,), elements=THETA))
        mu_e, mu_r = extra.draw(POW2), extra.draw(POW2)
        z = rados.edge_vectors(X, y) @ theta  # exact: integers / 4
        Pi = rados.all_rados(X, y)
        assert Pi.shape == (2**m, d)
        hinge = math.fsum(max(0.0, -v) for v in z)
        # row I (mu_e = mu_r): l_e = log l_r
        le, lr = losses.example_loss(z, "I", mu_e), losses.rado_set_loss(Pi, theta, "I", mu_e)
        assert _close(math.log(lr), le, le), (le, lr)
        # row II at mu_e = 1 (the reading that holds, nock2016.table1.ii): l_r = (l_e - m) / (4 mu_r) for every mu_r
        le = losses.example_loss(z, "II", 1.0)
        assert _close(losses.rado_set_loss(Pi, theta, "II", mu_r), (le - m) / (4 * mu_r), le / mu_r)
        # row III (all mu_e, mu_r): mu_e l_e = mu_r l_r = sum_i max(0, -z_i), exactly
        assert mu_e * losses.example_loss(z, "III", mu_e) == hinge == mu_r * losses.rado_set_loss(Pi, theta, "III", mu_r)
        # row IV (all mu_e, mu_r): l_r = (mu_e / (2 mu_r)) l_e exactly (a_e = mu_e / 2, nock2016.table1.iv)
        le = losses.example_loss(z, "IV", mu_e)
        assert losses.rado_set_loss(Pi, theta, "IV", mu_r) == mu_e / (2 * mu_r) * le

    run()


@checks("nock2016.thm7", "nock2016.thm7.margin", "nock2016.eq13")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_theorem7_on_hypothesis_data_sets_all_rados(impl):
    losses, rados, regs, max_m = impl

    @settings(max_examples=30)
    @given(data=datasets(max_m=max_m, integer_valued=True), extra=st.data())
    def run(data, extra):
        X, y = data
        m, d = X.shape
        theta = extra.draw(hnp.arrays(np.float64, (d,), elements=THETA))
        name = extra.draw(st.sampled_from(["lasso", "ridge", "linf", "slope", "elastic_net"]))
        params = {"slope": {"q": 0.3}, "ridge": {"Gamma": np.eye(d) + np.ones((d, d))}}.get(name, {})
        penalty = regs.get_regularizer(name, **params)(theta)
        row = extra.draw(st.sampled_from(["I", "II", "III", "IV"]))
        mu_e = 1.0 if row == "II" else extra.draw(POW2)
        mu_r = mu_e if row == "I" else extra.draw(POW2)
        E, Pi = rados.edge_vectors(X, y), rados.all_rados(X, y)
        a_e = losses.slope_a_e(row, mu_e)
        shifted = losses.regularized_rados(Pi, theta, penalty, a_e)
        # the margin reading: theta . (pi - Omega~ theta) = theta . pi - a_e Omega(theta)
        assert np.allclose(shifted @ theta, Pi @ theta - (a_e * penalty if theta.any() else 0.0), rtol=0, atol=1e-12)
        lhs = losses.regularized_example_loss(E, theta, row, mu_e, penalty)  # l_e + Omega, eq. (13)
        lr = losses.rado_set_loss(shifted, theta, row, mu_r)
        expected = {
            "I": lambda: math.log(lr),  # == lhs
            "II": lambda: 4 * mu_r * lr + m,  # == lhs
            "III": lambda: mu_r / mu_e * lr,  # == lhs
            "IV": lambda: 2 * mu_r / mu_e * lr,  # == lhs
        }[row]()
        assert abs(expected - lhs) <= 1e-10 * max(1.0, abs(lhs), penalty), (row, name, expected, lhs)

    run()


@checks("nock2016.table1.iv")
@pytest.mark.parametrize("impl", IMPLS, ids=IDS)
def test_theorem7_with_printed_a_e_fails_for_row_iv(impl):
    """The printed a_e = mu_e of row IV breaks Theorem 7 whenever Omega(theta) != 0 (the finding's counterexample)."""
    losses, rados, regs, _ = impl
    X = np.array([[1.0, 2.0], [-1.0, 0.5], [3.0, -1.0]])
    y = np.array([1, -1, 1])
    theta = np.array([0.5, -0.25])
    penalty = regs.lasso(theta)  # 0.75
    Pi, E = rados.all_rados(X, y), rados.edge_vectors(X, y)
    lhs = losses.regularized_example_loss(E, theta, "IV", 1.0, penalty)
    printed = losses.rado_set_loss(losses.regularized_rados(Pi, theta, penalty, losses.slope_a_e("IV", 1.0, reading="printed")), theta, "IV", 1.0)
    corrected = losses.rado_set_loss(losses.regularized_rados(Pi, theta, penalty, losses.slope_a_e("IV", 1.0)), theta, "IV", 1.0)
    assert abs(2 * corrected - lhs) < 1e-12
    # printed: l_r = (l_e + 2 Omega) / 2, off by Omega / 2 = 0.375
    assert abs(2 * printed - lhs - penalty) < 1e-12 and abs(printed - corrected) == pytest.approx(penalty / 2)


_X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


_Y = np.array([1, -1, 1])


_NAN_X = np.where(np.eye(3, 2) > 0, np.nan, _X)


_INF_X = np.where(np.eye(3, 2)[::-1] > 0, -np.inf, _X)


_NOT_SYMMETRIC = np.array([[1.0, 2.0], [0.0, 1.0]])


_INDEFINITE = np.array([[1.0, 0.0], [0.0, -1.0]])


_THETA = np.array([0.1, 0.2])


#: (rule of item 7, module kind, function, args, kwargs, argument named in the message)
BAD_INPUTS = [
    ("NaN in X", "rados", "edge_vectors", (_NAN_X, _Y), {}, "X"),
    ("inf in X", "rados", "rados", (_INF_X, _Y, np.ones((2, 3))), {}, "X"),
    ("NaN in X", "rados", "logistic_risk", (_NAN_X, _Y, _THETA), {}, "X"),
    ("inf in X", "rados", "all_rados", (_INF_X, _Y), {}, "X"),
    ("label 0", "rados", "edge_vectors", (_X, np.array([1, 0, 1])), {}, "y"),
    ("label 2", "rados", "all_rados", (_X, np.array([1, 2, 1])), {}, "y"),
    ("label nan", "rados", "sample_signatures", (np.array([1.0, np.nan]), 3), {"rng": 0}, "y"),
    ("y shorter than X", "rados", "edge_vectors", (_X, np.array([1, -1])), {}, "y"),
    ("theta of wrong length", "rados", "logistic_risk", (_X, _Y, np.ones(3)), {}, "theta"),
    ("signature width != m", "rados", "rados", (_X, _Y, np.ones((2, 2))), {}, "sigmas"),
    ("signature entry 0", "rados", "rados", (_X, _Y, np.array([[1, 0, -1]])), {}, "sigmas"),
    ("signature entry 0.5", "rados", "support_sizes", (_Y, np.array([[1, 0.5, -1]])), {}, "sigmas"),
    ("m too large (G_m)", "rados", "g_matrix", (40,), {}, "m"),
    ("m too large (rados)", "rados", "all_rados", (np.ones((40, 2)), np.ones(40)), {}, "m"),
    ("n = 0", "rados", "sample_signatures", (_Y, 0), {"rng": 0}, "n"),
    ("n = -3", "rados", "sample_signatures", (_Y, -3), {"rng": 0}, "n"),
    ("eta = 1", "rados", "theorem3_eq6_q", (0.0, 1.0, 1.0, 2, 10, 1.0), {}, "eta"),
    ("q = 0", "regularizers", "slope", (_THETA, 0.0), {}, "q"),
    ("q = 1", "regularizers", "slope_weights", (3, 1.0), {}, "q"),
    ("q = nan", "regularizers", "slope", (_THETA, np.nan), {}, "q"),
    ("Gamma not symmetric", "regularizers", "ridge", (_THETA, _NOT_SYMMETRIC), {}, "Gamma"),
    ("Gamma indefinite", "regularizers", "ridge", (_THETA, _INDEFINITE), {}, "Gamma"),
    ("Gamma indefinite", "regularizers", "elastic_net", (_THETA,), {"Gamma": _INDEFINITE}, "Gamma"),
    ("Gamma indefinite", "regularizers", "get_regularizer", ("ridge",), {"Gamma": _INDEFINITE}, "Gamma"),
    ("q = 1.5", "regularizers", "get_regularizer", ("slope",), {"q": 1.5}, "q"),
    ("mu_r = 0", "losses", "rado_loss", (np.ones(3), "I", 0.0), {}, "mu_r"),
    ("m too large (losses)", "losses", "rado_loss", (np.ones(30), "I", 1.0), {}, "m"),
    ("m too large (losses, m = 27)", "losses", "rado_game_value", (np.ones(27), "II", 1.0), {}, "m"),
    ("U outside [0, 2^m)", "reconstruction", "recover_edge_vectors", (np.ones((3, 2)), np.array([0, 1, 8]), 3), {}, "U"),
    ("rank(G_m U) < m", "reconstruction", "recover_edge_vectors", (np.ones((2, 2)), np.array([3, 5]), 3), {}, "U"),
]


_PACKAGES = {"reference": {"rados": RRA, "regularizers": RR, "losses": RL},
             "fast": {"rados": FRA, "regularizers": FRG, "losses": FL}}


def _raised(package: str, kind: str, function: str, args, kwargs):
    import importlib

    module = (importlib.import_module(f"{package}.reconstruction") if kind == "reconstruction"
              else _PACKAGES[package][kind])
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(ValueError) as info:
        getattr(module, function)(*copies, **kwargs)
    for before, after in zip(args, copies):  # a refused input is not modified either
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(before, after)
    return str(info.value)


@pytest.mark.parametrize("rule, kind, function, args, kwargs, argument", BAD_INPUTS,
                         ids=[f"{b[2]}-{b[0]}" for b in BAD_INPUTS])
def test_item7_bad_inputs_same_clear_value_error_in_both_packages(rule, kind, function, args, kwargs, argument):
    reference_message = _raised("reference", kind, function, args, kwargs)
    assert _raised("fast", kind, function, args, kwargs) == reference_message
    assert reference_message.startswith(argument) or f" {argument} " in reference_message or \
        f"{argument}:" in reference_message, reference_message
    if rule.startswith("m too large"):
        assert "GiB" in reference_message  # says how much memory enumerating would take


@pytest.mark.parametrize("losses", [RL, FL], ids=IDS)
def test_row_iii_adversary_at_a_rounding_tie(losses):
    """z = (-1.3e-195, -1): s_{2} = -1 and s_{1,2} = -1 - 1.3e-195 round to the same float, but the argmin is
    J = {1, 2} = {i : z_i < 0} (column 3 of G_2).  The reference picked column 1 (argmin of rounded sums) until
    the explore profile of tests/test_pairs.py found it; now both take the exact argmin."""
    q = losses.rado_adversary(np.array([-1.32993754e-195, -1.0]), "III", 1.0)
    np.testing.assert_array_equal(q, [0.0, 0.0, 0.0, 1.0])



@pytest.mark.parametrize("scale", [1.0, 1e-150, 1e150, 1e-210, 1e210])
@pytest.mark.parametrize("penalty", [0.5, 0.0, -0.0, 1e300, 1e-300, -3.0])
def test_omega_tilde_one_pass_matches_the_scaled_route(scale, penalty):
    import fast.losses as F
    import reference.losses as R

    theta = np.random.default_rng(1).normal(size=50) * scale
    want = R.omega_tilde(theta, penalty, 0.7)
    got = F.omega_tilde(theta, penalty, 0.7)
    assert got == pytest.approx(want, rel=1e-12, abs=0.0) and math.copysign(1, got) == math.copysign(1, want)
    for bad in (np.nan, np.inf):
        t = theta.copy()
        t[3] = bad
        _raises_same(lambda: R.omega_tilde(t, penalty, 0.7), lambda: F.omega_tilde(t, penalty, 0.7))
    _raises_same(lambda: R.omega_tilde(theta, np.nan, 0.7), lambda: F.omega_tilde(theta, np.nan, 0.7))
    _raises_same(lambda: R.omega_tilde(theta, 1.0, -1.0), lambda: F.omega_tilde(theta, 1.0, -1.0))


@pytest.mark.parametrize("threads", [1, 2])
def test_rado_set_losses_on_long_inputs(threads):
    import fast.losses as F
    import reference.losses as R

    rng = np.random.default_rng(3)
    P = rng.normal(size=(700, 6)) * 4.0
    theta = rng.normal(size=6)
    with _threads(threads, 64):
        for log in (False, True):
            got = F.regularized_exp_rado_loss(P, theta, 0.3, omega=2.0, log=log)
            assert got == pytest.approx(R.regularized_exp_rado_loss(P, theta, 0.3, omega=2.0, log=log), rel=1e-10)
            assert got == pytest.approx(F.regularized_exp_rado_loss(np.asfortranarray(P), theta, 0.3, omega=2.0,
                                                                    log=log), rel=1e-12)
        for row in ("I", "II", "III", "IV"):
            assert F.rado_set_loss(P, theta, row, 0.9) == pytest.approx(R.rado_set_loss(P, theta, row, 0.9),
                                                                        rel=1e-10, abs=1e-12)
        Z = P.copy()
        Z[650, 2] = np.nan
        _raises_same(lambda: R.regularized_exp_rado_loss(Z, theta, 0.3), lambda: F.regularized_exp_rado_loss(Z, theta, 0.3))
        _raises_same(lambda: R.regularized_exp_rado_loss(Z, theta, np.nan),
                     lambda: F.regularized_exp_rado_loss(Z, theta, np.nan))


def _error(fn, *args):
    try:
        fn(*args)
    except (TypeError, ValueError) as error:
        return type(error), str(error)
    return None


def _ulps(got, want):
    return np.abs(got - want) / np.spacing(np.abs(want))


@pytest.mark.parametrize("mu", [1.0, 0.7, 0.05, 20.0, 1e-3])
@pytest.mark.parametrize("scale", [1e-300, 1e-8, 1e-2, 1.0, 30.0, 300.0])
def test_example_adversary_is_expit_to_a_few_ulps(scale, mu):
    z = np.random.default_rng(int(scale * 7 + mu * 11) % 2**32).normal(size=5003) * scale
    got = FL.example_adversary(z, "I", mu)
    want = expit(-(z / mu))
    normal = want > np.finfo(np.float64).tiny
    assert got.dtype == np.float64 and got.shape == z.shape
    assert np.all(_ulps(got[normal], want[normal]) <= 3)
    assert np.all((got >= 0) & (got <= 1))


def test_example_adversary_far_margins_follow_the_reference():
    # |z / mu| around and beyond 708 (the second, libm pass) and beyond 745 (0 or 1 exactly)
    z = np.array([-1e4, -800.0, -746.0, -709.9, -708.5, -700.0, -1.0, -0.0, 0.0, 1e-310, 1.0, 700.0, 708.5,
                  709.9, 720.0, 745.0, 746.0, 800.0, 1e4, 1e99])
    got = FL.example_adversary(z, "I", 1.0)
    want = RL.example_adversary(z, "I", 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0.0)  # subnormals included: relative, not absolute
    assert got[z >= 746.0].tolist() == [0.0] * 4 and got[z <= -746.0].tolist() == [1.0] * 3
    assert got[7] == got[8] == 0.5
    # the same values through the long (vectorised) pass
    long = np.tile(z, 40)
    np.testing.assert_array_equal(FL.example_adversary(long, "I", 1.0), np.tile(got, 40))


def test_example_adversary_matches_the_reference_on_every_row():
    rng = np.random.default_rng(3)
    for m in (1, 5, 33):
        z = rng.normal(size=m) * 5
        for row in ("I", "II", "III", "IV"):
            for mu in (0.05, 1, 3.5):
                np.testing.assert_allclose(FL.example_adversary(z, row, mu),
                                           RL.example_adversary(z, row, mu), rtol=1e-12, atol=1e-300)


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
    want = _error(RL.example_adversary, z, row, mu)
    assert want is not None
    assert _error(FL.example_adversary, z, row, mu) == want


def test_example_adversary_accepts_what_the_contract_accepts():
    z = [0.5, -1.0, 3.0]  # a list, an int mu, a numpy float mu, a 0-d array mu, a strided z
    for mu in (2, np.float32(2.0), np.array(2.0)):
        np.testing.assert_allclose(FL.example_adversary(z, "I", mu), RL.example_adversary(z, "I", mu),
                                   rtol=1e-14)
    strided = np.arange(20.0)[::3] - 3
    np.testing.assert_allclose(FL.example_adversary(strided, "I", 0.7),
                               RL.example_adversary(strided, "I", 0.7), rtol=1e-14)
    z = np.array([0.25, -0.5])
    z.setflags(write=False)
    FL.example_adversary(z, "I", 1.0)  # never written to


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
        want = _error(getattr(RL, name), *args)
        assert want is not None, name
        assert _error(getattr(FL, name), *args) == want, name
