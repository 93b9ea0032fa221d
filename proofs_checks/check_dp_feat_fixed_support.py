"""nock2015 Theorem 8 (eq. 19), instance check: RadoBoost with kappa-normalised leveraging coefficients and a
lambda_p-prudential weak learner, trained on fixed-support rados of Gaussian-noised edges, measured on the CLEAN
rados of the same signatures:  F^r_log(S, theta_T, U) <= log 2 - (1/(4 kappa m)) sum_t r_t^2  w.p. >= 1 - tau.

The theorem is existential (there is a lambda_p; m* = Omega(varsigma sqrt(ln 1/tau)) with a hidden constant), so
only instances can be checked: m = 400, d = 5, rows in the unit ball, n = 200 rados of support m* = m/4,
T = 30, kappa = 2, lambda_p = 0.3, 20 noise draws per sigma.  At small noise the bound must hold in every draw;
the violation frequencies at larger sigma are printed and recorded in the registry finding."""
import math

import numpy as np

import fast.radoboost as rb
import fast.rados as rd
from spec.links import checks


def _violations(sigma, trials=20, m=400, d=5, n=200, s=0.25, kappa=2.0, lambda_p=0.3, T=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.3 * rng.normal(size=m) > 0, 1, -1).astype(np.int8)
    X /= np.linalg.norm(X, axis=1).max()
    bad = 0
    for _ in range(trials):
        noisy = X + rng.normal(0.0, sigma, size=X.shape)
        sig = rd.sample_signatures(y, n, rng=rng, support=int(s * m))
        noisy_rados, clean_rados = rd.rados(noisy, y, sig), rd.rados(X, y, sig)
        res = rb.radoboost(noisy_rados, T, weak_learner="prudential", lambda_p=lambda_p, kappa=kappa)
        r = np.asarray(res.r_star)
        bad += rd.log_rado_risk(clean_rados, res.theta, m) > math.log(2.0) - np.sum(r**2) / (4 * kappa * m)
    return bad


@checks("nock2015.thm8")
def check_theorem8_instances():
    low = _violations(0.1)
    high = _violations(3.0)
    print(f"Theorem 8 violations: sigma=0.1: {low}/20, sigma=3: {high}/20")
    assert low == 0
