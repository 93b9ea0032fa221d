"""Privacy audits (proofs_checks/audit.py: a 99% Clopper-Pearson lower bound on epsilon from samples at two
neighbouring data sets) of the noisy centroid weak learner and of a whole private boosting run, each with a mutant
drawing its noise at HALF scale, which the audit must catch.

The neighbours: n = 10 points x_i = 1 (d = 1), labels all +1 vs example 0 relabelled -1.  The weak learner is the
library's ``noisy_centroid`` itself (no re-implementation of the release), calibrated at this pair's exact L2
sensitivity 2/n (one round, uniform weights); the default check draws 20,000 releases as the iid coordinates of one
call on x_ij = 1/sqrt(20,000) (sensitivity scaled alike), the slow one makes one call per release; the mutant is the
same function with its sampler patched to half the grid std; the whole run (T = 3 rounds of
LB-NxM, kappa = 0.9, lam = 0.5) at the exact LB-NxM centroid sensitivity 2/(kappa n) per round (the adversarial
maximum of check_centroid_sensitivity_adversarial), composed in zCDP, claimed at (eps, delta) = (1, 1e-3).
With the paper's 4/(kappa n) the half-scale mutant would still be private at the derived sensitivity (the
paper's accounting has a factor 2 of slack), so it would not be a defect the audit could or should catch.
"""
import math

import numpy as np
import pytest

import fast.accounting as A
import fast.private_boosting as PB
from fast.estimators.boosting import _sigma_for_rho
from proofs_checks.audit import audit
from spec.links import checks

N_PTS, KAPPA, LAM, T, EPS, DELTA = 10, 0.9, 0.5, 3, 1.0, 1e-3
N_AUDIT = 20_000
X = np.ones((N_PTS, 1))
Y0 = np.ones(N_PTS, dtype=int)
Y1 = Y0.copy()
Y1[0] = -1


def _weak_learner_sample(sigma):
    """n releases of the LIBRARY's WL~ (fast.private_boosting.noisy_centroid, one call per release, the generator
    threaded through), at noise scale ``sigma`` (d = 1: X = 1, centroid 1 vs 0.8, sensitivity 2/N_PTS)."""
    w = np.full(N_PTS, 1 / N_PTS)

    def sample(x, n, gen):
        y = Y0 if x == 0.0 else Y1
        return np.array([PB.noisy_centroid(X, y, w, sigma, rng=gen)[0] for _ in range(n)])

    return sample


def _wide_weak_learner_sample(sigma):
    """n releases of the LIBRARY's WL~ in ONE call: noisy_centroid on d = n identical coordinates x_ij = 1/sqrt(n)
    (rows on the unit sphere), whose noise is iid N_Z(0, s2) per coordinate on the same grid (k and s2 depend on
    sigma only): each coordinate is one release of the 1-d centroid 1/sqrt(n) vs 0.8/sqrt(n) (sensitivity
    2/(N_PTS sqrt(n))).  Fast enough for the default run; the one-call-per-release audit is the slow check below."""
    w = np.full(N_PTS, 1 / N_PTS)

    def sample(x, n, gen):
        y = Y0 if x == 0.0 else Y1
        return PB.noisy_centroid(np.full((N_PTS, n), 1 / math.sqrt(n)), y, w, sigma, rng=gen)

    return sample


def _half_scale_mutant(sample_at, sigma):
    """The mutant: the library function with its discrete Gaussian sampler patched to draw at HALF the grid std
    (s2 / 4): the same code path as the library, only the noise scale is wrong."""
    real = PB._mechanisms.sample_discrete_gaussian

    def sample(x, n, gen):
        def half(sigma2, size=None, rng=None):
            return real(max(1, sigma2 // 4), size=size, rng=rng)

        PB._mechanisms.sample_discrete_gaussian = half
        try:
            return sample_at(sigma)(x, n, gen)
        finally:
            PB._mechanisms.sample_discrete_gaussian = real

    return sample


def _run_sample(sigma):
    def sample(x, n, gen):
        y = Y0 if x == 0.0 else Y1
        return np.array([PB.lazy_bregman_boost(X, y, T, KAPPA, LAM, sigma, rng=gen).z_bar[0] for _ in range(n)])

    return sample


def _calibrated(sensitivity, rounds):
    rho_total = A.zcdp_to_dp_rho(EPS, DELTA)
    sigma, grid = _sigma_for_rho(rho_total / rounds, sensitivity, 1)
    claimed = A.zcdp_to_dp_tight(rounds * grid.rho, DELTA)
    assert claimed <= EPS
    return sigma, claimed


@pytest.mark.audit
@checks("bun2020.thm22", "bun2020.s5.2.wl")
def check_audit_noisy_centroid_and_half_scale_mutant():
    """The library's WL~ (noisy_centroid itself, 20,000 releases as the coordinates of one call) passes (99% lower
    bound <= claimed eps); the half-scale mutant (the same function with its sampler at half the std) is caught, and
    so is the library called at sigma / 2."""
    sigma, claimed = _calibrated(2 / (N_PTS * math.sqrt(N_AUDIT)), 1)
    ok = audit(_wide_weak_learner_sample(sigma), 0.0, 1.0, N_AUDIT, delta=DELTA, rng=1)
    assert ok.epsilon_lower <= claimed, ok
    bad = audit(_half_scale_mutant(_wide_weak_learner_sample, sigma), 0.0, 1.0, N_AUDIT, delta=DELTA, rng=2)
    assert bad.epsilon_lower > claimed, bad
    bad2 = audit(_wide_weak_learner_sample(sigma / 2), 0.0, 1.0, N_AUDIT, delta=DELTA, rng=5)
    assert bad2.epsilon_lower > claimed, bad2


@pytest.mark.audit
@pytest.mark.slow
@checks("bun2020.thm22", "bun2020.s5.2.wl")
def check_audit_noisy_centroid_one_call_per_release():
    """As above with one noisy_centroid call per release (d = 1, the generator threaded through 20,000 calls):
    passes; the half-scale mutant is caught (slow: 40,000 library calls, ~25 s CPU)."""
    sigma, claimed = _calibrated(2 / N_PTS, 1)
    ok = audit(_weak_learner_sample(sigma), 0.0, 1.0, N_AUDIT, delta=DELTA, rng=1)
    assert ok.epsilon_lower <= claimed, ok
    bad = audit(_half_scale_mutant(_weak_learner_sample, sigma), 0.0, 1.0, N_AUDIT, delta=DELTA, rng=2)
    assert bad.epsilon_lower > claimed, bad


@pytest.mark.audit
@pytest.mark.slow
@checks("bun2020.s3.2.iter-privacy", "bun2020.lemma21", "bun2020.s3.lbnxm-l2-sensitivity")
def check_audit_whole_boosting_run_and_half_scale_mutant():
    """T = 3 rounds of LazyBregBoost released as z_bar: passes at the zCDP-composed claim; half-scale noise caught
    (slow: 80,000 library runs, ~60 s)."""
    sigma, claimed = _calibrated(2 / (KAPPA * N_PTS), T)
    ok = audit(_run_sample(sigma), 0.0, 1.0, 20_000, delta=DELTA, rng=3)
    assert ok.epsilon_lower <= claimed, ok
    bad = audit(_run_sample(sigma / 2), 0.0, 1.0, 20_000, delta=DELTA, rng=4)
    assert bad.epsilon_lower > claimed, bad
