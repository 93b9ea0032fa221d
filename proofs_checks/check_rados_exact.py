"""Exact rational checks of Definition 1 and eq. (21) (nock2015): no floating point in the way."""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

import fast.rados as F
from spec.links import checks


@checks("nock2015.def1", "nock2015.eq21")
def check_rados_in_rationals():
    """Random dyadic data (exactly representable): every rado of all_rados equals, in exact rational arithmetic,
    (1/2) sum_i (sigma_i + y_i) x_i for the sigma of its G_m column, and the expectation (c) is (m/2) mu_S."""
    rng = np.random.default_rng(21)
    for m in range(1, 9):
        d = 3
        X = rng.integers(-2**20, 2**20, size=(m, d)) / 2.0**10  # dyadic: sums are exact in float64 too
        y = rng.choice([-1, 1], m)
        P = F.all_rados(X, y)
        Xq = [[Fraction(float(v)) for v in row] for row in X]
        for c, bits in enumerate(itertools.product([0, 1], repeat=m)):
            sigma = [y[i] if bits[i] else -y[i] for i in range(m)]
            exact = [sum((Fraction(int(sigma[i]) + int(y[i]), 2) * Xq[i][k] for i in range(m)), Fraction(0))
                     for k in range(d)]
            assert [Fraction(float(v)) for v in P[c]] == exact
        mean = [sum((Fraction(float(v)) for v in P[:, k]), Fraction(0)) / 2**m for k in range(d)]
        mu_S = [sum((int(y[i]) * Xq[i][k] for i in range(m)), Fraction(0)) / m for k in range(d)]
        assert mean == [Fraction(m, 2) * v for v in mu_S]
