"""Regularizers Omega(theta) of nock2016 eq. (20), vectorised: lasso, ridge, l_inf, SLOPE, elastic net.

Same public names, signatures, validation and return types as :mod:`reference.regularizers` (Python
floats; ``slope_weights`` a float64 array).  SLOPE's weights come from ``scipy.special.ndtri``.
elastic net: ``Omega(theta) = l1 * ||theta||_1 + l2 * theta^T Gamma theta`` (l1, l2 >= 0).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

from spec.links import implements
from spec.losses_contract import (
    REGULARIZER_NAMES,
    check_gamma,
    check_q,
    check_regularizer_name,
    check_regularizer_params,
    check_theta,
    check_weight,
)
from spec.validation import check_int

__all__ = [
    "lasso",
    "ridge",
    "linf",
    "slope_weights",
    "slope",
    "elastic_net",
    "get_regularizer",
    "REGULARIZER_NAMES",
]


def _exponent(values) -> int:
    """k with max|v| < 2^(k+1) (0 for all-zero values): dividing by 2^k is exact, so the sums cannot overflow;
    scaled back by 2^k at the end (inf only if the value exceeds float64), as in the reference."""
    top = float(np.max(np.abs(values)))
    return math.frexp(top)[1] - 1 if top > 0 else 0


def _times_two_to(value: float, k: int) -> float:
    """value * 2^k, +-inf when it exceeds float64 (never NaN, no warning)."""
    try:
        return math.ldexp(value, k)
    except OverflowError:
        return math.copysign(math.inf, value)


def _ridge_value(theta, Gamma) -> float:
    k = _exponent(theta)
    t = np.ldexp(theta, -k)
    if Gamma is None:
        return _times_two_to(float(t @ t), 2 * k)
    g = _exponent(Gamma)
    return _times_two_to(float(t @ (np.ldexp(Gamma, -g) @ t)), 2 * k + g)


def _lasso_value(theta) -> float:
    k = _exponent(theta)
    return _times_two_to(float(np.abs(np.ldexp(theta, -k)).sum()), k)


def _weighted(weight: float, value: float) -> float:
    """weight * value with 0 * inf = 0 (a zero weight switches the term off, even when it overflows)."""
    return 0.0 if weight == 0.0 else weight * value


@implements("nock2016.eq20")
def lasso(theta):
    """Omega(theta) = ||theta||_1   [nock2016 eq. (20), Lasso]."""
    return _lasso_value(check_theta(theta))


@implements("nock2016.eq20")
def ridge(theta, Gamma=None):
    """Omega(theta) = theta^T Gamma theta, Gamma SPD (None: I_d)   [nock2016 eq. (20), Ridge]."""
    theta = check_theta(theta)
    return _ridge_value(theta, check_gamma(Gamma, theta.shape[0]))


@implements("nock2016.eq20")
def linf(theta):
    """Omega(theta) = max_k |theta_k|   [nock2016 eq. (20), l_inf]."""
    return float(np.abs(check_theta(theta)).max())


@implements("nock2016.eq20")
def slope_weights(d, q):
    """xi_k = Phi^{-1}(1 - k q / (2 d)), k = 1..d   [nock2016 eq. (20), SLOPE]; (d,) float64."""
    d = check_int(d, "d", minimum=1)
    q = check_q(q)
    k = np.arange(1, d + 1, dtype=np.float64)
    return -ndtri(k * q / (2 * d))  # Phi^{-1}(1 - t) = -Phi^{-1}(t), no rounding of 1 - t


def _slope_value(theta, q) -> float:
    e = _exponent(theta)
    ordered = np.sort(np.abs(np.ldexp(theta, -e)))[::-1]
    return _times_two_to(float(slope_weights(theta.shape[0], q) @ ordered), e)


@implements("nock2016.eq20")
def slope(theta, q):
    """Omega(theta) = sum_k xi_k |theta|_(k) (|theta| sorted decreasingly)   [nock2016 eq. (20), SLOPE]."""
    theta = check_theta(theta)
    return _slope_value(theta, check_q(q))


@implements("nock2016.eq20")
def elastic_net(theta, l1=1.0, l2=1.0, Gamma=None):
    """Omega(theta) = l1 ||theta||_1 + l2 theta^T Gamma theta   [nock2016 s4]."""
    theta = check_theta(theta)
    l1 = check_weight(l1, "l1")
    l2 = check_weight(l2, "l2")
    Gamma = check_gamma(Gamma, theta.shape[0])
    return _weighted(l1, _lasso_value(theta)) + _weighted(l2, _ridge_value(theta, Gamma))


_FUNCTIONS = {"ridge": ridge, "lasso": lasso, "linf": linf, "slope": slope, "elastic_net": elastic_net}


def get_regularizer(name, **params):
    """Omega = the regularizer ``name`` with ``params`` fixed: callable theta -> float   [nock2016 eq. (20)].

    Names "none", "ridge" (Gamma), "lasso", "linf", "slope" (q), "elastic_net" (l1, l2, Gamma);
    parameters validated now, theta at each call (as :func:`reference.regularizers.get_regularizer`).
    """
    name = check_regularizer_name(name)
    params = check_regularizer_params(name, params)
    if name == "none":

        def omega(theta):
            check_theta(theta)
            return 0.0

    else:
        function = _FUNCTIONS[name]

        def omega(theta):
            return function(theta, **params)

    omega.__name__ = f"omega_{name}"
    omega.__doc__ = f"Omega(theta) = {name} regularizer with {params}   [nock2016 eq. (20)]"
    return omega
