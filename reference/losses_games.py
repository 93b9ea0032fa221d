"""Numeric solvers of the adversaries' inner minimisations, eqs. (3)-(6)   [nock2016 s2].

Independent of the closed forms of :mod:`reference.losses`: they minimise L_e(p, z) and L_r(q, z) as
printed in eqs. (1)-(2), with the generators of :func:`reference.losses.phi_e` / :func:`phi_r`, using
scipy.optimize (bounded scalar minimisation per coordinate for the separable example game; SLSQP on
the hyperplane 1^T q = 1 with the generator's domain as bounds for the rado game, HiGHS linprog for
row III's linear program).  For small m only
(the rado game has 2^m unknowns); they serve as an oracle in proofs_checks/check_losses_games.py.

Not paired with ``fast`` (there is no fast solver: the closed forms are the production path).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog, minimize, minimize_scalar
from scipy.special import xlogy

from reference.losses import phi_e, phi_r
from reference.rados import g_matrix
from spec.links import implements
from spec.losses_contract import check_margins
from spec.validation import check_int

__all__ = ["solve_example_game", "solve_rado_game"]


@implements("nock2016.eq1", "nock2016.eq3", "nock2016.eq5")
def solve_example_game(z, row, mu_e):
    """(L_e(z), p*(z)) by minimising each p_i z_i + mu_e phi_e(p_i) numerically over dom phi_e   [nock2016 eqs. (1), (3), (5)]."""
    z, row, mu_e = check_margins(z, row, mu_e, "mu_e")
    m = len(z)
    p = []
    for zi in z:
        zi = float(zi)
        if row == "IV":  # dom phi_s(r) = [2^-m, 1/2] cap [1/2, 1 - 2^-m] = {1/2}: nothing to optimise
            p.append(0.5)
            continue

        def objective(x, zi=zi):
            return x * zi + mu_e * phi_e(x, row, None)

        if row == "II":
            res = minimize_scalar(objective, bounds=(-1e3, 1e3), method="bounded", options={"xatol": 1e-12})
        else:  # dom = [0, 1]
            res = minimize_scalar(objective, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12})
            best = min((0.0, 1.0, float(res.x)), key=objective)  # the bounded method never lands on the ends
            res.x = best
        p.append(float(res.x))
    value = math.fsum(p[i] * float(z[i]) + mu_e * phi_e(p[i], row, m if row == "IV" else None) for i in range(m))
    return value, np.array(p, dtype=np.float64)


@implements("nock2016.eq2", "nock2016.eq4", "nock2016.eq6")
def solve_rado_game(z, row, mu_r, *, max_m=5):
    """(L_r(z), q*(z)) by SLSQP on {q : 1^T q = 1} with bounds dom phi_r   [nock2016 eqs. (2), (4), (6)]; m <= max_m."""
    z, row, mu_r = check_margins(z, row, mu_r, "mu_r")
    m = len(z)
    check_int(m, "m = len(z)", maximum=max_m)
    G = g_matrix(m).astype(np.float64)
    s = z @ G  # s_J, G_m order
    n = 2**m
    if row == "I":
        bounds = [(0.0, None)] * n

        def generator(q):
            return xlogy(q, q) - q

        def generator_grad(q):
            return np.log(np.maximum(q, 1e-300))

    elif row == "II":
        bounds = [(None, None)] * n

        def generator(q):
            return 0.5 * q * q

        def generator_grad(q):
            return q

    else:
        low = 0.0 if row == "III" else 2.0**-m
        high = 1.0 if row == "III" else 0.5
        bounds = [(low, high)] * n

        def generator(q):
            return np.zeros_like(q)

        def generator_grad(q):
            return np.zeros_like(q)

    if row == "III":  # phi_r = chi_[0,1]: a linear program, solved by HiGHS
        res = linprog(s, A_eq=np.ones((1, n)), b_eq=[1.0], bounds=bounds, method="highs")
        if not res.success:
            raise RuntimeError(f"linprog failed on the row III rado game: {res.message}")
        q = np.clip(np.asarray(res.x, dtype=np.float64), 0.0, 1.0)
        return math.fsum(float(q[c]) * float(s[c]) for c in range(n)), q

    def objective(q):
        return float(q @ s + mu_r * generator(q).sum())

    def gradient(q):
        return s + mu_r * generator_grad(q)

    res = minimize(
        objective,
        np.full(n, 1.0 / n),
        jac=gradient,
        method="SLSQP",
        bounds=bounds,
        constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1.0, "jac": lambda q: np.ones_like(q)}],
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    if not res.success:
        raise RuntimeError(f"SLSQP failed on the row {row} rado game: {res.message}")
    q = np.asarray(res.x, dtype=np.float64)
    if row in ("I", "IV"):  # project the solver's last iterate onto the bounds (it may step 1e-17 outside)
        lo = np.array([b[0] if b[0] is not None else -np.inf for b in bounds])
        hi = np.array([b[1] if b[1] is not None else np.inf for b in bounds])
        q = np.clip(q, lo, hi)
    value = math.fsum(float(q[c]) * float(s[c]) + mu_r * phi_r(float(q[c]), row, m) for c in range(n))
    return value, q
