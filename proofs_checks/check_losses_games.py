"""The closed forms of eqs. (3)-(6) against a numeric solver of the inner minimisations, m <= 4   [nock2016 s2].

reference.losses_games minimises L_e(p, z) and L_r(q, z) as printed in eqs. (1)-(2) (scipy), independently
of the closed forms in reference.losses / fast.losses.
"""
import math

import numpy as np

import fast.losses as FL
import reference.losses as RL
from reference.losses_games import solve_example_game, solve_rado_game
from spec.links import checks


@checks("nock2016.eq1", "nock2016.eq3", "nock2016.eq5")
def check_example_game_closed_forms_vs_solver():
    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 4):
        for row in RL.ROWS:
            for mu in (0.3, 1.0, 3.0):
                z = rng.normal(size=m) * 2
                value, p = solve_example_game(z, row, mu)
                for mod in (RL, FL):
                    assert math.isclose(value, mod.example_game_value(z, row, mu), rel_tol=1e-9, abs_tol=1e-9)
                    assert np.allclose(p, mod.example_adversary(z, row, mu), atol=1e-6)


@checks("nock2016.eq2", "nock2016.eq4", "nock2016.eq6")
def check_rado_game_closed_forms_vs_solver():
    rng = np.random.default_rng(1)
    for m in (1, 2, 3, 4):
        for row in RL.ROWS:
            for mu in (0.5, 2.0):
                z = rng.normal(size=m) * 2
                value, q = solve_rado_game(z, row, mu)
                assert math.isclose(q.sum(), 1.0, abs_tol=1e-9)
                for mod in (RL, FL):
                    assert math.isclose(value, mod.rado_game_value(z, row, mu), rel_tol=1e-7, abs_tol=1e-7), (m, row)
                    assert np.allclose(q, mod.rado_adversary(z, row, mu), atol=1e-5), (m, row)
                # the closed form is a minimum: no feasible point the solver found is better
                assert RL.rado_game_value(z, row, mu) <= value + 1e-9
