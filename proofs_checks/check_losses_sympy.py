"""Symbolic checks of Table 1 (sympy): row I at m = 2, row II's proportionality condition, row IV   [nock2016 s2].

Each game is solved from eqs. (1)-(4) as printed (stationarity of the Lagrangian), not from the closed forms
of reference.losses; the closed forms are then compared with the symbolic values at a random point.
"""
import itertools
import math

import numpy as np
import sympy as sp

import reference.losses as RL
from spec.links import checks


def _subsets(m):
    """subsets J of [m] in the column order of G_m (row 1 = most significant bit)."""
    return [tuple(i for i in range(m) if (c >> (m - 1 - i)) & 1) for c in range(2**m)]


@checks("nock2016.table1.i", "nock2016.def1", "nock2016.thm2")
def check_row_i_symbolic_m2():
    """With t_i = exp(-z_i / mu) > 0: -L_e = mu l_e, -L_r = mu log l_r + mu, l_r = prod (1 + t_i), p* = G q*."""
    m = 2
    mu = sp.Symbol("mu", positive=True)
    t = sp.symbols("t1:3", positive=True)
    z = [-mu * sp.log(ti) for ti in t]
    # example game: d/dp [p z + mu (p log p + (1 - p) log(1 - p))] = z + mu log(p / (1 - p)) = 0
    p = [ti / (1 + ti) for ti in t]
    for zi, pi in zip(z, p):
        assert sp.simplify(sp.expand_log(zi + mu * sp.log(pi / (1 - pi)), force=True)) == 0
    L_e = sum(pi * zi + mu * (pi * sp.log(pi) + (1 - pi) * sp.log(1 - pi)) for zi, pi in zip(z, p))
    l_e = sum(sp.log(1 + ti) for ti in t)  # sum log(1 + exp(z^e_i)), z^e_i = -z_i / mu = log t_i
    assert sp.simplify(sp.expand_log(L_e + mu * l_e, force=True)) == 0
    # rado game: stationarity s_J + mu log q_J = lambda on 1^T q = 1  ->  q_J = prod_{i in J} t_i / normaliser
    weights = [sp.Mul(*[t[i] for i in J]) for J in _subsets(m)]
    l_r = sum(weights)  # sum_J exp(z^r_J)
    assert sp.expand(l_r - sp.Mul(*[1 + ti for ti in t])) == 0  # l_e = log l_r
    q = [w / l_r for w in weights]
    sums = [sum((z[i] for i in J), sp.Integer(0)) for J in _subsets(m)]
    L_r = sum(qj * sj + mu * (qj * sp.log(qj) - qj) for qj, sj in zip(q, sums))
    assert sp.simplify(sp.expand_log(L_r + mu * sp.log(l_r) + mu, force=True)) == 0
    assert sp.simplify(sp.expand_log(L_e - L_r - mu, force=True)) == 0  # b = mu
    # Theorem 2: (G_2 q*)_i = sum_{J containing i} q_J = p*_i
    for i in range(m):
        assert sp.simplify(sum(qj for qj, J in zip(q, _subsets(m)) if i in J) - p[i]) == 0
    # the closed forms of reference.losses at a point
    values = {mu: 0.7, t[0]: 0.3, t[1]: 2.2}
    zz = np.array([float(zi.subs(values)) for zi in z])
    assert math.isclose(RL.example_game_value(zz, "I", 0.7), float(L_e.subs(values)), rel_tol=1e-12)
    assert math.isclose(RL.rado_game_value(zz, "I", 0.7), float(L_r.subs(values)), rel_tol=1e-12)


def _row_ii_games(m):
    """Example game with weight lam on phi_s(r) = p^2/2 + (1-p)^2/2 and rado game with mu_r, solved by sympy."""
    lam, mu_r = sp.symbols("lambda mu_r", positive=True)
    z = sp.symbols(f"z1:{m + 1}", real=True)
    p = sp.symbols(f"p1:{m + 1}", real=True)
    L_e_p = sum(pi * zi + lam * (pi**2 / 2 + (1 - pi) ** 2 / 2) for pi, zi in zip(p, z))
    p_star = sp.solve([sp.diff(L_e_p, pi) for pi in p], p, dict=True)[0]
    L_e = sp.expand(L_e_p.subs(p_star))
    n = 2**m
    q = sp.symbols(f"q0:{n}", real=True)
    nu = sp.Symbol("nu", real=True)
    sums = [sum((z[i] for i in J), sp.Integer(0)) for J in _subsets(m)]
    lagrangian = sum(qj * sj + mu_r * qj**2 / 2 for qj, sj in zip(q, sums)) + nu * (sum(q) - 1)
    sol = sp.solve([sp.diff(lagrangian, qj) for qj in q] + [sum(q) - 1], list(q) + [nu], dict=True)[0]
    L_r = sp.expand(sum(qj * sj + mu_r * qj**2 / 2 for qj, sj in zip(q, sums)).subs(sol))
    return lam, mu_r, z, p_star, p, sol, q, L_e, L_r


@checks("nock2016.table1.ii", "nock2016.lemma4", "nock2016.def1", "nock2016.thm2")
def check_row_ii_proportionate_iff_lambda_is_mu_r_over_2_to_m_minus_1():
    for m in (1, 2, 3):
        lam, mu_r, z, p_star, p, sol, q, L_e, L_r = _row_ii_games(m)
        gap = sp.expand(L_e - L_r)
        coefficient = sp.Poly(gap, *z).coeff_monomial(z[0] ** 2)  # must vanish for a z-independent gap
        roots = sp.solve(sp.Eq(coefficient, 0), lam)
        assert roots == [mu_r / 2 ** (m - 1)]
        constant_gap = sp.simplify(gap.subs(lam, mu_r / 2 ** (m - 1)))
        assert all(sp.diff(constant_gap, zi) == 0 for zi in z)
        # Theorem 2: p* = G q* exactly for this lambda
        for i in range(m):
            Gq = sum(sol[qj] for qj, J in zip(q, _subsets(m)) if i in J)
            assert sp.simplify((p_star[p[i]] - Gq).subs(lam, mu_r / 2 ** (m - 1))) == 0
        # Lemma 4 asks lambda = mu_e * (mu_r / mu_e) = mu_r: proportionate only for m = 1
        assert (sp.simplify(mu_r - mu_r / 2 ** (m - 1)) == 0) == (m == 1)


@checks("nock2016.table1.iv")
def check_row_iv_symbolic_a_e_is_half_mu_e():
    m = 3
    mu_e, mu_r, a = sp.symbols("mu_e mu_r a", positive=True)
    z = sp.symbols("z1:4", real=True)
    # dom phi_r = [2^-m, 1/2] on 1^T q = 1 forces q_J = 2^-m; dom phi_s(r) = {1/2} forces p_i = 1/2
    sums = [sum((z[i] for i in J), sp.Integer(0)) for J in _subsets(m)]
    L_r = sum(sums) / 2**m
    L_e = sum(zi / 2 for zi in z)
    assert sp.expand(L_e - L_r) == 0
    l_e = sum(-zi / mu_e for zi in z)
    l_r = sum(-sj / mu_r for sj in sums) / 2**m
    assert sp.simplify(l_r - mu_e / (2 * mu_r) * l_e) == 0
    # slope a_e of f_e in -L_e = a_e l_e + b_e: solve for a
    assert sp.solve(sp.Poly(sp.expand(-L_e - a * l_e), *z).coeffs(), a) in ([mu_e / 2], {a: mu_e / 2})
    zz = np.array([0.3, -1.0, 2.0])
    assert math.isclose(RL.rado_loss(zz, "IV", 1.5), float(l_r.subs({mu_r: 1.5, **dict(zip(z, zz))})), rel_tol=1e-12)


@checks("nock2016.table1.iii")
def check_row_iii_exhaustive_sign_patterns():
    """Row III: for every sign pattern of z (m <= 6, zeros included), mu_e l_e = mu_r l_r = -min_J s_J."""
    for m in range(1, 7):
        for pattern in itertools.product((-1.5, 0.0, 2.0), repeat=m):
            zz = np.array(pattern)
            expected = sum(max(0.0, -v) for v in pattern)
            assert RL.example_loss(zz, "III", 0.5) * 0.5 == expected
            assert math.isclose(RL.rado_loss(zz, "III", 4.0) * 4.0, expected, abs_tol=1e-15)
