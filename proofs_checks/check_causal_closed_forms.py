"""Closed forms of kusner2016 ch4: Theorem 4 (two Laplace scores), Theorem 6.2 (four log-IQRs), eq. (4.5), and the
case split of appendix A; mpmath quadrature at 40 digits (agreement to 1e-20) and Monte Carlo with the real
(floating-point-safe) mechanisms of :mod:`fast.mechanisms`."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from fast import causal as fast_causal
from fast import causal_privacy as fast_privacy
from fast import mechanisms
from reference import causal_privacy as ref_privacy
from spec.links import checks

POINTS = [(0.3, 0.2), (1.0, 0.5), (0.05, 1.0), (2.0, 0.3), (0.0, 1.0), (-0.4, 0.25), (-2.0, 0.7), (5.0, 0.5)]


def _laplace_pdf(x, mu, s):
    return mpmath.exp(-abs(x - mu) / s) / (2 * s)


def _laplace_cdf(x, mu, s):
    """F(x; mu, s) = exp((x - mu)/s)/2 for x <= mu, 1 - exp(-(x - mu)/s)/2 otherwise   [kusner2016 appendix A]."""
    return mpmath.exp((x - mu) / s) / 2 if x <= mu else 1 - mpmath.exp(-(x - mu) / s) / 2


def two_laplace_quadrature(gamma, sigma):
    """P(x1 < x2), x1 ~ Lap(0, sigma), x2 ~ Lap(gamma, sigma): int p(x2) F(x2; 0, sigma) dx2."""
    with mpmath.workdps(40):
        g, s = mpmath.mpf(gamma), mpmath.mpf(sigma)
        pts = sorted({mpmath.mpf(0), g})
        return mpmath.quad(lambda t: _laplace_pdf(t, g, s) * _laplace_cdf(t, 0, s), [-mpmath.inf] + pts + [mpmath.inf])


def four_laplace_quadrature(gamma, sigma):
    """P(z1 + z2 < z3 + z4) with means summing to a + b = 0, c + d = gamma (eq. (4.5)):
    P(S2 - S2' < gamma) for S2 = z1 + z2 - a - b, density f2(u) = (1 + |u|/s) e^{-|u|/s} / (4 s)."""
    with mpmath.workdps(40):
        g, s = mpmath.mpf(gamma), mpmath.mpf(sigma)

        def f2(u):
            return (1 + abs(u) / s) * mpmath.exp(-abs(u) / s) / (4 * s)

        def F2(u):  # integral of f2 up to u (closed form of the one-dimensional integral)
            a = abs(u) / s
            tail = (2 + a) * mpmath.exp(-a) / 4
            return tail if u <= 0 else 1 - tail

        pts = sorted({mpmath.mpf(0), g})
        # P(S2 - S2' < gamma) = int f2(u) P(S2' > u - gamma) du = int f2(u) (1 - F2(u - gamma)) du
        return mpmath.quad(lambda u: f2(u) * (1 - F2(u - g)), [-mpmath.inf] + pts + [mpmath.inf])


@checks("kusner2016.ch4.thm4", "kusner2016.ch4.thm4_neg", "kusner2016.ch4.appa_laplace_cdf")
@pytest.mark.parametrize("gamma,sigma", POINTS)
def check_thm4_mpmath(gamma, sigma):
    exact = two_laplace_quadrature(gamma, sigma)
    with mpmath.workdps(40):
        g = abs(mpmath.mpf(gamma)) / sigma
        tail = (g + 2) / 4 * mpmath.exp(-g)
        closed = 1 - tail if gamma >= 0 else tail
    assert abs(exact - closed) < mpmath.mpf(10) ** -20
    assert abs(ref_privacy.prob_correct_laplace(gamma, sigma) - float(exact)) < 1e-15
    assert fast_privacy.prob_correct_laplace(gamma, sigma) == ref_privacy.prob_correct_laplace(gamma, sigma)


@checks("kusner2016.ch4.appa_thm4_cases")
@pytest.mark.parametrize("gamma,sigma", [(0.3, 0.2), (1.0, 0.5), (2.0, 0.3)])
def check_appendix_case_split(gamma, sigma):
    """Pr(1) + Pr(2) + 2 Pr(3) + 2 Pr(5) = (gamma + 2 sigma) E / (4 sigma), E = e^{-gamma/sigma}, equals P(x1 > x2)."""
    with mpmath.workdps(40):
        gamma, sigma = mpmath.mpf(gamma), mpmath.mpf(sigma)
        E = mpmath.exp(-gamma / sigma)
        p1 = gamma * E / (4 * sigma) - E * (mpmath.mpf(1) / 2 - E / 2) / 2
        p2 = E ** 2 / 4
        p3 = E * (mpmath.mpf(1) / 2 - E / 2) / 2
        p5 = E / 8
        total = p1 + p2 + 2 * p3 + 2 * p5
        assert abs(total - (gamma + 2 * sigma) * E / (4 * sigma)) < mpmath.mpf(10) ** -30
        assert abs(total - (1 - two_laplace_quadrature(gamma, sigma))) < mpmath.mpf(10) ** -20


@checks("kusner2016.ch4.thm6_2", "kusner2016.ch4.eq4_5")
@pytest.mark.parametrize("gamma,sigma", POINTS)
def check_thm6_mpmath(gamma, sigma):
    exact = four_laplace_quadrature(gamma, sigma)
    with mpmath.workdps(40):
        g = abs(mpmath.mpf(gamma)) / sigma
        tail = mpmath.exp(-g) * (48 + 33 * g + 9 * g ** 2 + g ** 3) / 96
        closed = 1 - tail if gamma >= 0 else tail
    assert abs(exact - closed) < mpmath.mpf(10) ** -20
    assert abs(ref_privacy.prob_correct_four_laplace(gamma, sigma) - float(exact)) < 1e-15
    assert fast_privacy.prob_correct_four_laplace(gamma, sigma) == ref_privacy.prob_correct_four_laplace(gamma, sigma)


@checks("kusner2016.ch4.thm6_2")
def check_thm6_margin_sign_as_printed_is_wrong():
    """The printed margin Q_y + Q_rX - Q_x + Q_rY differs from (Q_y + Q_rX) - (Q_x + Q_rY) by 2 Q_rY: with
    Q = (x, rY, y, rX) = (0.1, -1.0, 0.2, 0.3) the printed margin is -0.6 (predicting < 1/2) while the true
    probability of the correct order is > 1/2 (margin 1.4)."""
    qx, qry, qy, qrx = 0.1, -1.0, 0.2, 0.3
    printed = qy + qrx - qx + qry
    corrected = (qy + qrx) - (qx + qry)
    truth = float(four_laplace_quadrature(corrected, 1.0))
    assert truth > 0.5
    assert ref_privacy.prob_correct_four_laplace(corrected, 1.0) == pytest.approx(truth, abs=1e-15)
    assert ref_privacy.prob_correct_four_laplace(printed, 1.0) < 0.5


def _se(p, n):
    return math.sqrt(max(p * (1 - p), 1e-12) / n)


@checks("kusner2016.ch4.thm4", "kusner2016.ch4.lap2eps")
@pytest.mark.audit
@pytest.mark.parametrize("gamma,delta_eps", [(0.02, (0.01, 1.0)), (-0.01, (0.01, 0.5)), (0.05, (0.03, 1.0))])
def check_thm4_monte_carlo_real_mechanism(gamma, delta_eps):
    """Frequency of p_XY < p_YX with the real floating-point-safe Laplace mechanism vs Theorem 4 (5 SE)."""
    sensitivity, epsilon = delta_eps
    n = 20000
    s_xy, s_yx = 0.3, 0.3 + gamma
    values = np.tile([s_xy, s_yx], (n, 1))
    noisy = mechanisms.laplace_mechanism(values, sensitivity=sensitivity, epsilon=epsilon, rng=11)
    freq = float(np.mean(noisy[:, 0] < noisy[:, 1]))
    p = fast_privacy.prob_correct_laplace(gamma, sensitivity / epsilon)
    assert abs(freq - p) < 5 * _se(p, n), (freq, p)


@checks("kusner2016.ch4.thm6_2")
@pytest.mark.audit
@pytest.mark.parametrize("gamma,epsilon", [(0.5, 1.0), (-1.0, 2.0), (3.0, 0.5)])
def check_thm6_monte_carlo_real_mechanism(gamma, epsilon):
    """Four log-IQRs released with Lap(1/eps) by the real mechanism: frequency of the correct order vs Thm 6.2."""
    n = 20000
    q = np.array([0.1, -1.0, 0.2, 0.3])  # Q_x, Q_rY, Q_y, Q_rX
    q[3] += gamma - ((q[2] + q[3]) - (q[0] + q[1]))  # set the corrected margin to gamma
    noisy = mechanisms.laplace_mechanism(np.tile(q, (n, 1)), sensitivity=1.0, epsilon=epsilon, rng=5)
    freq = float(np.mean(noisy[:, 0] + noisy[:, 1] < noisy[:, 2] + noisy[:, 3]))
    p = fast_privacy.prob_correct_four_laplace(gamma, 1.0 / epsilon)
    assert abs(freq - p) < 5 * _se(p, n), (freq, p)


@checks("kusner2016.ch4.eq4_5", "kusner2016.ch4.thm6_2")
@pytest.mark.parametrize("u,s", [(-1.3, 0.7), (0.0, 0.7), (0.4, 1.0), (2.5, 0.3)])
def check_two_laplace_sum_density(u, s):
    """The S2 density used by four_laplace_quadrature, (1 + |u|/s) e^{-|u|/s} / (4 s), equals the convolution
    int p(t) p(u - t) dt of two Lap(0, s) densities (the inner integrals of eq. (4.5)) to 1e-20."""
    with mpmath.workdps(40):
        u, s = mpmath.mpf(u), mpmath.mpf(s)
        pts = sorted({mpmath.mpf(0), u})
        conv = mpmath.quad(lambda t: _laplace_pdf(t, 0, s) * _laplace_pdf(u - t, 0, s), [-mpmath.inf] + pts + [mpmath.inf])
        closed = (1 + abs(u) / s) * mpmath.exp(-abs(u) / s) / (4 * s)
        assert abs(conv - closed) < mpmath.mpf(10) ** -20


@checks("kusner2016.ch4.thm4", "kusner2016.ch4.lap2eps")
@pytest.mark.audit
def check_thm4_monte_carlo_through_laplace_scores():
    """The released pair of laplace_scores (the API PrivateANM uses), 4000 independent releases: frequency of
    p_XY < p_YX within 5 SE of Theorem 4 for a right (gamma > 0) and a wrong (gamma < 0) non-private order."""
    rng = np.random.default_rng(31)
    n, sensitivity, epsilon = 4000, 0.01, 1.0
    for gamma in (0.015, -0.006):
        releases = (fast_privacy.laplace_scores(0.3, 0.3 + gamma, sensitivity=sensitivity, epsilon=epsilon, rng=rng)
                    for _ in range(n))
        freq = sum(p_xy < p_yx for p_xy, p_yx in releases) / n
        p = ref_privacy.prob_correct_laplace(gamma, sensitivity / epsilon)
        assert abs(freq - p) < 5 * _se(p, n), (gamma, freq, p)


@checks("kusner2016.ch4.thm6_2", "kusner2016.ch4.alg4")
@pytest.mark.audit
def check_thm6_monte_carlo_through_iqr_ptr():
    """Four log-IQRs released by iqr_ptr itself (propose-test-release, A_j in the tens: released except with
    probability < 1e-3): among 1000 decisions the frequency of the right order is within 5 SE of Theorem 6.2 with
    the corrected margin gamma = (Q_y + Q_rX) - (Q_x + Q_rY)."""
    gen = np.random.default_rng(32)
    base = gen.normal(size=800)
    vs = {"x": base * 1.0, "ry": base * 0.1, "y": base * 1.5, "rx": base * 0.12}  # gamma = ln(1.5 * 0.12 / 0.1)
    q = {k: math.log(fast_causal.iqr(v)) for k, v in vs.items()}
    gamma = (q["y"] + q["rx"]) - (q["x"] + q["ry"])
    assert gamma == pytest.approx(math.log(1.8))
    epsilon, delta, n = 1.0, 1e-3, 1000
    right = released = 0
    for _ in range(n):
        p = {k: fast_privacy.iqr_ptr(v, epsilon=epsilon, delta=delta, rng=gen) for k, v in vs.items()}
        if any(v is None for v in p.values()):
            continue
        released += 1
        right += p["x"] + p["ry"] < p["y"] + p["rx"]
    assert released >= 0.99 * n
    expected = ref_privacy.prob_correct_four_laplace(gamma, 1.0 / epsilon)
    assert abs(right / released - expected) < 5 * _se(expected, released), (right / released, expected)
    # the printed margin Q_y + Q_rX - Q_x + Q_rY (here -3.4 against 0.59) predicts something else
    printed = q["y"] + q["rx"] - q["x"] + q["ry"]
    assert abs(ref_privacy.prob_correct_four_laplace(printed, 1.0 / epsilon) - right / released) > 5 * _se(expected, released)
