"""Regularizers Omega(theta) of nock2016 eq. (20): lasso, ridge, l_inf, SLOPE, and the elastic net.

Readable reference: pure Python sums (``math.fsum``), SLOPE's weights from ``statistics.NormalDist``.
numpy only at the boundary.  Every function returns a Python float (``slope_weights``: a float64 array).

Conventions:

* ``theta`` is a finite (d,) vector.
* ``Gamma`` (ridge, elastic net) is None (the identity I_d, used in the paper's experiments) or a finite
  (d, d) symmetric positive definite matrix; anything else is refused with a ValueError naming Gamma.
* SLOPE: ``xi_k = Phi^{-1}(1 - k q / (2 d))``, k = 1..d, with ``q in (0, 1)``; the largest |theta_k| meets
  the largest weight (the max over permutation matrices of eq. (20) is attained by sorting, by the
  rearrangement inequality; the test suite checks the max-over-permutations form for d <= 7).
* elastic net (not in eq. 20; the paper says it is covered as a combination):
  ``Omega(theta) = l1 * ||theta||_1 + l2 * theta^T Gamma theta`` with weights l1, l2 >= 0.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

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
    """k with max|v| < 2^(k+1) (0 for all-zero values): dividing by 2^k is exact and leaves |v| / 2^k < 2, so the
    sums below cannot overflow; the value is scaled back by 2^k at the end (inf only if it exceeds float64)."""
    top = max(abs(float(v)) for v in values)
    return math.frexp(top)[1] - 1 if top > 0 else 0


def _times_two_to(value: float, k: int) -> float:
    """value * 2^k, +-inf when it exceeds float64 (never NaN, never OverflowError)."""
    try:
        return math.ldexp(value, k)
    except OverflowError:
        return math.copysign(math.inf, value)


def _ridge_value(theta, Gamma) -> float:
    d = len(theta)
    k = _exponent(theta)
    t = [math.ldexp(float(v), -k) for v in theta]
    if Gamma is None:
        return _times_two_to(math.fsum(v * v for v in t), 2 * k)
    g = _exponent(Gamma.ravel())
    G = [[math.ldexp(float(Gamma[i, j]), -g) for j in range(d)] for i in range(d)]
    return _times_two_to(math.fsum(t[i] * G[i][j] * t[j] for i in range(d) for j in range(d)), 2 * k + g)


def _lasso_value(theta) -> float:
    k = _exponent(theta)
    return _times_two_to(math.fsum(abs(math.ldexp(float(v), -k)) for v in theta), k)


def _weighted(weight: float, value: float) -> float:
    """weight * value with 0 * inf = 0 (a zero weight switches the term off, even when it overflows)."""
    return 0.0 if weight == 0.0 else weight * value


@implements("nock2016.eq20")
def lasso(theta):
    """Omega(theta) = ||theta||_1 = |theta|^T 1   [nock2016 eq. (20), Lasso].

    Parameters
    ----------
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The L1 norm.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.regularizers import lasso
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> lasso(theta)
    3.5
    """
    theta = check_theta(theta)
    return _lasso_value(theta)


@implements("nock2016.eq20")
def ridge(theta, Gamma=None):
    """Omega(theta) = ||theta||_Gamma^2 = theta^T Gamma theta, Gamma SPD (None: I_d)   [nock2016 eq. (20), Ridge].

    Parameters
    ----------
    theta : array_like of shape (d,)
        Linear classifier.
    Gamma : array_like of shape (d, d), optional
        Symmetric positive definite matrix (default: the identity).

    Returns
    -------
    float
        theta^T Gamma theta.

    Raises
    ------
    ValueError
        If ``Gamma`` is not symmetric positive definite or its shape does not match.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.regularizers import ridge
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> ridge(theta), ridge(theta, np.diag([1.0, 2.0, 3.0]))
    (5.25, 9.75)
    """
    theta = check_theta(theta)
    Gamma = check_gamma(Gamma, len(theta))
    return _ridge_value(theta, Gamma)


@implements("nock2016.eq20")
def linf(theta):
    """Omega(theta) = ||theta||_inf = max_k |theta_k|   [nock2016 eq. (20), l_inf].

    Parameters
    ----------
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The largest absolute coordinate.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.regularizers import linf
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> linf(theta)
    2.0
    """
    theta = check_theta(theta)
    return max(abs(float(t)) for t in theta)


@implements("nock2016.eq20")
def slope_weights(d, q):
    """xi_k = Phi^{-1}(1 - k q / (2 d)), k = 1, ..., d   [nock2016 eq. (20), SLOPE]; (d,) float64, non-increasing, > 0.

    Parameters
    ----------
    d : int
        Dimension (>= 1).
    q : float
        SLOPE parameter in (0, 1).

    Returns
    -------
    numpy.ndarray of shape (d,)
        The decreasing weights xi_1 >= ... >= xi_d.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.regularizers import slope_weights
    >>> np.round(slope_weights(3, 0.1), 4)
    array([2.128 , 1.8339, 1.6449])
    """
    d = check_int(d, "d", minimum=1)
    q = check_q(q)
    normal = NormalDist()
    # Phi^{-1}(1 - t) = -Phi^{-1}(t): evaluating at the tail t = k q / (2 d) avoids the rounding of 1 - t
    return np.array([-normal.inv_cdf(k * q / (2 * d)) for k in range(1, d + 1)], dtype=np.float64)


def _slope_value(theta, q) -> float:
    xi = slope_weights(len(theta), q)
    e = _exponent(theta)
    ordered = sorted((abs(math.ldexp(float(t), -e)) for t in theta), reverse=True)  # |theta|_(1) >= |theta|_(2) >= ...
    return _times_two_to(math.fsum(float(xi[k]) * ordered[k] for k in range(len(ordered))), e)


@implements("nock2016.eq20")
def slope(theta, q):
    """Omega(theta) = ||theta||_Phi = max_{M in S_d} (M |theta|)^T xi = sum_k xi_k |theta|_(k)   [nock2016 eq. (20), SLOPE].

    Parameters
    ----------
    theta : array_like of shape (d,)
        Linear classifier.
    q : float
        SLOPE parameter in (0, 1).

    Returns
    -------
    float
        The SLOPE norm.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.regularizers import slope
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> round(slope(theta, 0.1), 6)
    6.912432
    """
    theta = check_theta(theta)
    q = check_q(q)
    return _slope_value(theta, q)


@implements("nock2016.eq20")
def elastic_net(theta, l1=1.0, l2=1.0, Gamma=None):
    """Omega(theta) = l1 ||theta||_1 + l2 theta^T Gamma theta   [nock2016 s4: "a linear combination of Lasso and Ridge"].

    Parameters
    ----------
    theta : array_like of shape (d,)
        Linear classifier.
    l1 : float, default=1.0
        Weight of the L1 term (>= 0).
    l2 : float, default=1.0
        Weight of the quadratic term (>= 0).
    Gamma : array_like of shape (d, d), optional
        SPD matrix of the quadratic term (default: the identity).

    Returns
    -------
    float
        The elastic-net penalty.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.regularizers import elastic_net
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> elastic_net(theta), elastic_net(theta, l1=0.5, l2=0.1)
    (8.75, 2.275)
    """
    theta = check_theta(theta)
    l1 = check_weight(l1, "l1")
    l2 = check_weight(l2, "l2")
    Gamma = check_gamma(Gamma, len(theta))
    return _weighted(l1, _lasso_value(theta)) + _weighted(l2, _ridge_value(theta, Gamma))


_FUNCTIONS = {"ridge": ridge, "lasso": lasso, "linf": linf, "slope": slope, "elastic_net": elastic_net}


def get_regularizer(name, **params):
    """Omega = the regularizer called ``name`` with ``params`` fixed: a callable theta -> float   [nock2016 eq. (20)].

    Names: "none" (Omega = 0), "ridge" (Gamma=None), "lasso", "linf", "slope" (q required),
    "elastic_net" (l1=1.0, l2=1.0, Gamma=None).  Parameters are validated now (Gamma's symmetry and
    definiteness, q in (0, 1), weights >= 0); theta at each call.

    Parameters
    ----------
    name : {"none", "ridge", "lasso", "linf", "slope", "elastic_net"}
        The regularizer.
    **params
        Its parameters (``Gamma`` for ridge, ``q`` for slope, ``l1``, ``l2``, ``Gamma`` for elastic_net).

    Returns
    -------
    callable
        ``theta -> float``.

    Raises
    ------
    ValueError
        If ``name`` is unknown or a parameter is invalid or not accepted by the regularizer.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.regularizers import get_regularizer
    >>> get_regularizer("lasso")(np.array([1.0, -2.0, 0.5]))
    3.5
    >>> get_regularizer("slope", q=0.1)(np.zeros(3))
    0.0
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
