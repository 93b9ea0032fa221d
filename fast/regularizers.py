"""Regularizers Omega(theta) of nock2016 eq. (20), vectorised: lasso, ridge, l_inf, SLOPE, elastic net.

Same public names, signatures, validation and return types as :mod:`reference.regularizers` (Python
floats; ``slope_weights`` a float64 array).  SLOPE's weights come from ``scipy.special.ndtri``.
elastic net: ``Omega(theta) = l1 * ||theta||_1 + l2 * theta^T Gamma theta`` (l1, l2 >= 0).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg.blas import dasum
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
from spec.validation import as_float_matrix, check_int

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


#: |theta|_max in [2^-200, 2^200]: sums of |theta_k| and of squares can neither overflow nor reach the subnormal
#: range (d < 2^60), and rescaling by 2^k would change nothing (a power-of-two scaling commutes with rounding).
#: Then the value is computed directly, in fewer passes; outside, the scaled route below (same results).
_PLAIN_LO, _PLAIN_HI = 2.0**-200, 2.0**200


def _theta_and_abs(theta):
    """(theta, |theta|, max |theta|): check_theta's contract with its finiteness test fused into the max of
    |theta| (finite iff every entry is; NaN propagates through max)."""
    theta = as_float_matrix(theta, "theta", ndim=1, check_finite=False)
    a = np.abs(theta)
    top = float(a.max())
    if not math.isfinite(top):
        check_theta(theta)  # raises the contract's message
    return theta, a, top


def _plain(top: float) -> bool:
    return _PLAIN_LO <= top <= _PLAIN_HI


def _plain_square(theta) -> float | None:
    """theta . theta in one BLAS pass when it proves the plain route exact, else None.  A finite value proves theta
    finite (NaN / inf propagate); 2^-400 <= value <= 2^400 bounds max|theta| inside the plain range's role (no
    overflow; entries small enough to be rounded differently by a rescaling contribute < 2^-600 relatively)."""
    arr = np.asarray(theta)
    if arr.dtype != np.float64 or arr.ndim != 1 or arr.size == 0:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(arr @ arr)
    return value if 2.0**-400 <= value <= 2.0**400 else None


def _plain_abs_sum(theta) -> float | None:
    """sum |theta_k| in one BLAS pass (dasum: no |theta| temporary) when 2^-900 <= value <= 2^900, else None."""
    arr = np.asarray(theta)
    if arr.dtype != np.float64 or arr.ndim != 1 or arr.size == 0:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(dasum(arr))
    return value if 2.0**-900 <= value <= 2.0**900 else None


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
    """Omega(theta) = ||theta||_1   [nock2016 eq. (20), Lasso].

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
    >>> from fast.regularizers import lasso
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> lasso(theta)
    3.5
    """
    value = _plain_abs_sum(theta)
    if value is not None:
        return value
    theta, a, top = _theta_and_abs(theta)
    if _plain(top):
        return float(a.sum())
    return _lasso_value(theta)


@implements("nock2016.eq20")
def ridge(theta, Gamma=None):
    """Omega(theta) = theta^T Gamma theta, Gamma SPD (None: I_d)   [nock2016 eq. (20), Ridge].

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
    >>> from fast.regularizers import ridge
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> ridge(theta), ridge(theta, np.diag([1.0, 2.0, 3.0]))
    (5.25, 9.75)
    """
    if Gamma is None:
        value = _plain_square(theta)
        if value is not None:
            return value
        theta, _, top = _theta_and_abs(theta)
        if _plain(top):
            return float(theta @ theta)
        return _ridge_value(theta, None)
    theta = check_theta(theta)
    return _ridge_value(theta, check_gamma(Gamma, theta.shape[0]))


@implements("nock2016.eq20")
def linf(theta):
    """Omega(theta) = max_k |theta_k|   [nock2016 eq. (20), l_inf].

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
    >>> from fast.regularizers import linf
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> linf(theta)
    2.0
    """
    return _theta_and_abs(theta)[2]


@implements("nock2016.eq20")
def slope_weights(d, q):
    """xi_k = Phi^{-1}(1 - k q / (2 d)), k = 1..d   [nock2016 eq. (20), SLOPE]; (d,) float64.

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
    >>> from fast.regularizers import slope_weights
    >>> np.round(slope_weights(3, 0.1), 4)
    array([2.128 , 1.8339, 1.6449])
    """
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
    """Omega(theta) = sum_k xi_k |theta|_(k) (|theta| sorted decreasingly)   [nock2016 eq. (20), SLOPE].

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
    >>> from fast.regularizers import slope
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> round(slope(theta, 0.1), 6)
    6.912432
    """
    theta, a, top = _theta_and_abs(theta)
    q = check_q(q)
    if _plain(top):
        a[::-1].sort()  # decreasing, in place (a is our copy)
        return float(slope_weights(theta.shape[0], q) @ a)
    return _slope_value(theta, q)


@implements("nock2016.eq20")
def elastic_net(theta, l1=1.0, l2=1.0, Gamma=None):
    """Omega(theta) = l1 ||theta||_1 + l2 theta^T Gamma theta   [nock2016 s4].

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
    >>> from fast.regularizers import elastic_net
    >>> theta = np.array([1.0, -2.0, 0.5])
    >>> elastic_net(theta), elastic_net(theta, l1=0.5, l2=0.1)
    (8.75, 2.275)
    """
    if Gamma is None:  # two BLAS passes (dasum, dot) when their values prove theta finite and in range
        v1, v2 = _plain_abs_sum(theta), _plain_square(theta)
        if v1 is not None and v2 is not None:
            l1 = check_weight(l1, "l1")
            l2 = check_weight(l2, "l2")
            return _weighted(l1, v1) + _weighted(l2, v2)
    theta, a, top = _theta_and_abs(theta)
    l1 = check_weight(l1, "l1")
    l2 = check_weight(l2, "l2")
    Gamma = check_gamma(Gamma, theta.shape[0])
    if Gamma is None and _plain(top):
        return _weighted(l1, float(a.sum())) + _weighted(l2, float(theta @ theta))
    return _weighted(l1, _lasso_value(theta)) + _weighted(l2, _ridge_value(theta, Gamma))


_FUNCTIONS = {"ridge": ridge, "lasso": lasso, "linf": linf, "slope": slope, "elastic_net": elastic_net}


def get_regularizer(name, **params):
    """Omega = the regularizer ``name`` with ``params`` fixed: callable theta -> float   [nock2016 eq. (20)].

    Names "none", "ridge" (Gamma), "lasso", "linf", "slope" (q), "elastic_net" (l1, l2, Gamma);
    parameters validated now, theta at each call (as :func:`reference.regularizers.get_regularizer`).

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
    >>> from fast.regularizers import get_regularizer
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
