"""Theorem 7 symbolically (sympy): the margin identity, and the a_e that makes each row's regularized rado loss
equivalent to the regularized example loss   [nock2016 Theorem 7, eqs. (14)-(15); Table 1 column a_e].

With shifted subset sums s_J - a Omega (the margin identity), write l_r(shifted) and l_e + Omega in the
moments E = E_J s_J = sum z / 2 and V = V_J s_J = sum z^2 / 4 (rows II, IV) and solve for the a (and the
slope c of the affine relation l_r(shifted) = c (l_e + Omega) + c0) that make the coefficients match.
"""
import sympy as sp

from spec.links import checks


@checks("nock2016.thm7.margin")
def check_margin_identity_symbolic():
    d = 3
    theta = sp.symbols("theta1:4", real=True)
    pi = sp.symbols("pi1:4", real=True)
    a, Omega = sp.symbols("a Omega", positive=True)
    norm2 = sum(t**2 for t in theta)
    omega_tilde = a * Omega / norm2
    shifted = [pi[k] - omega_tilde * theta[k] for k in range(d)]
    lhs = sum(theta[k] * shifted[k] for k in range(d))
    assert sp.simplify(lhs - (sum(theta[k] * pi[k] for k in range(d)) - a * Omega)) == 0


def _solve_for_a(l_r_shifted, l_e_plus_omega, variables, unknowns):
    c, c0 = sp.symbols("c c0")
    residual = sp.expand(l_r_shifted - c * l_e_plus_omega - c0)
    equations = sp.Poly(residual, *variables).coeffs()
    return sp.solve(equations, [c, c0, *unknowns], dict=True)


@checks("nock2016.thm7", "nock2016.table1.i")
def check_row_i_a_e_equals_mu_symbolic():
    """log sum_J exp(-(s_J - a Omega) / mu) = l_e + a Omega / mu: equals l_e + Omega iff a = mu."""
    mu, a, Omega = sp.symbols("mu a Omega", positive=True)
    t = sp.symbols("t1:3", positive=True)  # t_i = exp(-z_i / mu), m = 2
    l_r_shifted = sp.exp(a * Omega / mu) * (1 + t[0] + t[1] + t[0] * t[1])
    l_e = sp.log(1 + t[0]) + sp.log(1 + t[1])
    difference = sp.expand_log(sp.log(l_r_shifted) - (l_e + Omega), force=True)
    assert sp.solve(sp.simplify(difference), a) == [mu]


@checks("nock2016.thm7", "nock2016.table1.ii", "nock2016.table1.iv")
def check_rows_ii_iv_a_e_symbolic():
    E, V, Omega, m = sp.symbols("E V Omega m", real=True)
    a, mu_e, mu_r = sp.symbols("a mu_e mu_r", positive=True)
    # row IV: l_r = E_J[-(s_J - a Omega) / mu_r] = (a Omega - E) / mu_r;  l_e = -sum z / mu_e = -2 E / mu_e
    solutions = _solve_for_a((a * Omega - E) / mu_r, -2 * E / mu_e + Omega, (E, Omega), [a])
    assert [s[a] for s in solutions] == [mu_e / 2]  # not the printed mu_e
    # row II as printed: l_r = (V - (E - a Omega)) / mu_r; l_e = sum (1 - z / mu_e)^2 = m - 4 E / mu_e + 4 V / mu_e^2
    solutions = _solve_for_a((V - E + a * Omega) / mu_r, m - 4 * E / mu_e + 4 * V / mu_e**2 + Omega, (E, V, Omega),
                             [a, mu_e])
    assert [(s[a], s[mu_e]) for s in solutions] == [(sp.Rational(1, 4), 1)]  # only at mu_e = 1; a_e = mu_e / 4
    # row II with the l_r read without the mu_r factor, at mu_e = mu_r = mu: a = mu / 4 for every mu
    mu = sp.Symbol("mu", positive=True)
    solutions = _solve_for_a((V / mu - (E - a * Omega)) / mu, m - 4 * E / mu + 4 * V / mu**2 + Omega, (E, V, Omega), [a])
    assert [s[a] for s in solutions] == [mu / 4]


@checks("nock2016.thm7", "nock2016.table1.iii")
def check_row_iii_a_e_symbolic():
    """max_J -(s_J - a Omega) / mu_r = (H + a Omega) / mu_r with H = sum max(0, -z_i) (Omega >= 0); l_e = H / mu_e."""
    H, Omega = sp.symbols("H Omega", real=True)
    a, mu_e, mu_r = sp.symbols("a mu_e mu_r", positive=True)
    solutions = _solve_for_a((H + a * Omega) / mu_r, H / mu_e + Omega, (H, Omega), [a])
    assert [s[a] for s in solutions] == [mu_e]
