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
