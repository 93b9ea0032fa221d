"""winvector2015.laplace: the noise law (variance 2 b^2), the floor, the count table's sensitivity and the
exact privacy loss of the released table, and an empirical audit (proofs_checks/audit.py) that passes the
mechanism and catches the calibration of the claims note ([H]: "sensitivity 1") under replace-one."""
from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import fast.impact_coding as F
import reference.impact_coding as R
from fast import mechanisms
from proofs_checks.audit import audit
from spec.links import checks


@checks("winvector2015.laplace")
def check_discrete_laplace_variance_is_two_b_squared():
    """Var DLap(t) = 2 q / (1 - q)^2, q = e^(-1/t) (exact series, mpmath); times Lambda^2 it equals 2 b^2 with
    b = Lambda t to 1e-12 relative; a Monte Carlo of 200,000 noisy counts agrees to 2%."""
    mpmath.mp.dps = 40
    for sens, eps in ((2, 1.0), (1, 0.2), (2, 0.05)):
        grid = mechanisms.laplace_grid(sens, eps, dimension=2)
        t, lam = grid.scale, mpmath.mpf(grid.granularity)
        q = mpmath.exp(-1 / mpmath.mpf(t))
        var = 2 * q / (1 - q) ** 2 * lam**2
        b = lam * t
        assert abs(var / (2 * b**2) - 1) < 1e-12
        assert abs(b - mpmath.mpf(grid.integer_sensitivity) / eps * lam) / b < 1e-9  # b = D Lambda / eps (grid)
    table = np.full((100_000, 2), 1000.0)
    noisy = F.laplace_count_table(table, epsilon=0.5, rng=11)
    b = 2 / 0.5
    assert abs(np.var(noisy - 1000.0) / (2 * b * b) - 1) < 0.02


@checks("winvector2015.laplace")
def check_noisy_counts_floor():
    """max(count + noise, 1e-3) >= 1e-3 always, and the floor is hit for zero counts (both packages)."""
    table = np.zeros((2000, 2))
    for impl in (R, F):
        noisy = impl.laplace_count_table(table[:200] if impl is R else table, epsilon=1.0, rng=2)
        assert noisy.min() == 1e-3 and (noisy == 1e-3).mean() > 0.3


def _neighbours(n_levels):
    """Every replace-one neighbour pair of count tables differing by one row moving between cells."""
    cells = list(itertools.product(range(n_levels), range(2)))
    for src, dst in itertools.permutations(cells, 2):
        shift = np.zeros((n_levels, 2))
        shift[src] -= 1
        shift[dst] += 1
        yield shift


@checks("winvector2015.laplace")
def check_exact_privacy_loss_of_the_count_table():
    """The released table is x + Lambda Z, Z ~ DLap(t)^d.  The privacy loss at output z between neighbours x, x'
    is sum_j (|z_j - x'_j| - |z_j - x_j|) / (Lambda t), whose max over z is ||x - x'||_1 / (Lambda t).  Over every
    replace-one neighbour of a 3-level table the max L1 shift is 2 (= count_sensitivity), so the loss is
    2 / (Lambda t) <= epsilon exactly (Fractions).  With sensitivity 1 (the note's [H] calibration) the same
    neighbours have loss 2 epsilon_effective: the table is only 2 epsilon-DP under replace-one (it is epsilon-DP
    under add/remove-one, where the max shift is 1)."""
    worst = max(np.abs(s).sum() for s in _neighbours(3))
    assert worst == 2 == R.count_sensitivity("replace-one") == F.count_sensitivity("replace-one")
    assert F.count_sensitivity("add/remove-one") == 1
    for eps in (0.1, 1.0, 2.5):
        grid = mechanisms.laplace_grid(2, eps, dimension=6)
        lam, t = Fraction(grid.granularity), grid.scale
        loss = Fraction(2) / (lam * t)
        assert loss <= Fraction(eps)
        wrong = mechanisms.laplace_grid(1, eps, dimension=6)
        wrong_loss = Fraction(2) / (Fraction(wrong.granularity) * wrong.scale)
        assert wrong_loss > Fraction(eps) and abs(float(wrong_loss) / eps - 2) < 1e-6


def _sampler(sensitivity, epsilon):
    def sample(x, n, rng):
        # neighbours: x0 = (5, 5, 3, 4) and x1 = (4, 5, 4, 4) (one negative row of level 0 replaced by one of
        # level 1); the released scalar is noisy[0,0] - noisy[1,0], post-processing of the table
        base = np.array([[x, 5.0], [8.0 - x, 4.0]])
        out = np.empty(n)
        gen = np.random.default_rng(rng.integers(0, 2**63))
        for i in range(n):
            noisy = mechanisms.laplace_mechanism(base, sensitivity=sensitivity, epsilon=epsilon, rng=gen)
            out[i] = max(noisy[0, 0], 1e-3) - max(noisy[1, 0], 1e-3)
        return out
    return sample


@pytest.mark.audit
@checks("winvector2015.laplace")
def check_audit_passes_the_count_table_and_catches_sensitivity_one():
    """99% audit at N = 20,000: the table released at sensitivity 2 passes at epsilon = 1 (replace-one); the
    note's sensitivity-1 calibration is caught (certified epsilon > 1)."""
    good = audit(_sampler(2, 1.0), 5.0, 4.0, 20_000, rng=1)
    assert good.epsilon_lower <= 1.0
    bad = audit(_sampler(1, 1.0), 5.0, 4.0, 20_000, rng=1)
    assert bad.epsilon_lower > 1.0, bad
