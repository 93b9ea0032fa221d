"""Lemma 2 of nock2015 (eq. 3): symbolic proof for small m (sympy) and high-precision check at huge margins (mpmath).

F_log(S, theta) = log 2 + (1/m) log F^r_exp(S, theta, Sigma_m), whose key step is
sum_{sigma in Sigma_m} exp(-theta.pi_sigma) = prod_i (1 + exp(-y_i theta.x_i)).
"""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import sympy

import fast.rados as F
from spec.links import checks


@checks("nock2015.lemma2", "nock2015.def1")
def check_sympy_m4():
    """For m = 1..4, d = 2, symbolic x_ik and theta_k and every label vector y in {-1,1}^m: the sum over all 2^m
    signatures of exp(-theta.pi_sigma), with pi_sigma built literally from Definition 1, equals
    prod_i (1 + exp(-y_i theta.x_i)); hence exp(m (F_log - log 2)) = F^r_exp(Sigma_m), i.e. eq. (3)."""
    d = 2
    theta = sympy.symbols(f"theta0:{d}", real=True)
    for m in range(1, 5):
        x = [sympy.symbols(f"x{i}_0:{d}", real=True) for i in range(m)]
        for y in itertools.product([-1, 1], repeat=m):
            total = 0
            for sigma in itertools.product([-1, 1], repeat=m):
                # Definition 1 literally: pi_sigma = (1/2) sum_i (sigma_i + y_i) x_i
                pi = [sum(sympy.Rational(sigma[i] + y[i], 2) * x[i][k] for i in range(m)) for k in range(d)]
                total += sympy.exp(-sum(theta[k] * pi[k] for k in range(d)))
            product = sympy.Mul(*[1 + sympy.exp(-y[i] * sum(theta[k] * x[i][k] for k in range(d)))
                                  for i in range(m)])
            difference = sympy.expand(total, power_exp=True) - sympy.expand(product, power_exp=True)
            assert difference == 0, (m, y)  # identical monomials in exp(theta_k x_ik) cancel exactly
            # eq. (3) follows: m F_log = log prod_i (1 + e^{-y_i theta.x_i}) = log sum_sigma e^{-theta.pi_sigma}
            #                          = m log 2 + log F^r_exp(S, theta, Sigma_m)
            m_F_log = sum(sympy.log(1 + sympy.exp(-y[i] * sum(theta[k] * x[i][k] for k in range(d))))
                          for i in range(m))
            rhs = m * sympy.log(2) + sympy.log(total / 2**m)
            lhs_exp = sympy.expand(sympy.powsimp(sympy.exp(sympy.expand_log(m_F_log, force=True))), power_exp=True)
            rhs_exp = sympy.expand(sympy.exp(rhs), power_exp=True)
            assert sympy.expand(lhs_exp - rhs_exp, power_exp=True) == 0, (m, y)


def _mp_logsumexp(values):
    top = max(values)
    return top + mpmath.log(mpmath.fsum(mpmath.exp(v - top) for v in values))


@checks("nock2015.lemma2", "nock2015.eq1", "nock2015.eq2", "nock2015.eq4")
def check_mpmath_huge_margins():
    """Margins |y_i theta.x_i| and |theta.pi| ~ 1e3..1e5, where float64 exp overflows: fast.log_exp_rado_risk over
    all 2^m rados and fast.logistic_risk stay finite, agree with mpmath at 50 digits to 1e-12 relative, and
    Lemma 2 holds to 1e-12 relative (m F_log vs log(2^m F^r_exp))."""
    with mpmath.workdps(50):  # local precision: the global mpmath context is left as found
        rng = np.random.default_rng(2015)
        for trial in range(12):
            m = int(rng.integers(2, 11))
            d = int(rng.integers(1, 4))
            X = rng.normal(size=(m, d)) * 10.0 ** rng.uniform(2, 4)
            y = rng.choice([-1, 1], m)
            theta = rng.normal(size=d) * 10
            P = F.all_rados(X, y)
            with np.errstate(over="ignore"):
                assert not np.all(np.isfinite(np.exp(-(P @ theta)))), "test needs margins where naive exp overflows"
            # mpmath on the exact float inputs
            Xm = [[mpmath.mpf(float(v)) for v in row] for row in X]
            thm = [mpmath.mpf(float(v)) for v in theta]
            margins = [int(y[i]) * mpmath.fsum(thm[k] * Xm[i][k] for k in range(d)) for i in range(m)]
            mp_flog = mpmath.fsum(mpmath.log1p(mpmath.exp(-z)) if z > -50 else -z + mpmath.log1p(mpmath.exp(z))
                                  for z in margins) / m
            Pm = [[mpmath.fsum(int(y[i]) * Xm[i][k] for i in range(m) if (c >> (m - 1 - i)) & 1) for k in range(d)]
                  for c in range(2**m)]
            mp_log_fexp = _mp_logsumexp([-mpmath.fsum(thm[k] * pi[k] for k in range(d)) for pi in Pm]) - m * mpmath.log(2)
            fast_flog = F.logistic_risk(X, y, theta)
            fast_log_fexp = F.log_exp_rado_risk(P, theta)
            assert math.isfinite(fast_flog) and math.isfinite(fast_log_fexp)
            assert abs(fast_flog - float(mp_flog)) <= 1e-12 * abs(float(mp_flog))
            assert abs(fast_log_fexp - float(mp_log_fexp)) <= 1e-12 * abs(float(mp_log_fexp))
            # Lemma 2 at 50 digits (the identity itself, no float64 in the way)
            assert abs(m * mp_flog - (mp_log_fexp + m * mpmath.log(2))) <= mpmath.mpf(10) ** -40 * abs(m * mp_flog)
            # and in float64 through fast
            lhs, rhs = m * fast_flog, fast_log_fexp + m * math.log(2)
            assert abs(lhs - rhs) <= 1e-12 * abs(lhs)
