"""Regularizers Omega(theta) of nock2016 eq. (20), vectorised: lasso, ridge, l_inf, SLOPE, elastic net.

Same public names, signatures, validation and return types as :mod:`reference.regularizers` (Python
floats; ``slope_weights`` a float64 array).  SLOPE's weights come from ``scipy.special.ndtri``.
elastic net: ``Omega(theta) = l1 * ||theta||_1 + l2 * theta^T Gamma theta`` (l1, l2 >= 0).
"""
from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit
from scipy.linalg.blas import dasum, ddot, dgemv, idamax
from scipy.special import ndtri

from fast._contracts.links import implements
from fast._contracts.losses_contract import (
    REGULARIZER_NAMES,
    check_gamma,
    check_q,
    check_regularizer_name,
    check_regularizer_params,
    check_theta,
    check_weight,
)
from fast._contracts.validation import as_float_matrix, check_int

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


# The one-pass routes call BLAS through scipy.linalg.blas (ddot, dasum, idamax, dgemv): ~0.4 us a call where
# ``theta @ theta`` costs ~1.5 us, and no numpy floating-point-error check, so no np.errstate block (~2 us) is
# needed around a product that may overflow (the value itself is tested).  From BLAS1_MAX entries on, numba
# reductions instead (as fast on one thread): OpenBLAS splits a long dasum / ddot between its threads, and on the
# loaded 2-core machine that 2-thread call waited for a descheduled thread (lasso at d = 1e6: 12-16 ms against
# 0.8 ms for np.abs(theta).sum()).
BLAS1_MAX = 1 << 15


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _abs_sum_kernel(x):
    """sum |x_i|, reassociated (vectorised; no 'nnan' / 'ninf': NaN and inf propagate)."""
    acc = 0.0
    for i in range(x.shape[0]):
        acc += abs(x[i])
    return acc


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _square_sum_kernel(x):
    """sum x_i^2, reassociated (vectorised; NaN and inf propagate)."""
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * x[i]
    return acc


@njit(cache=True, nogil=True)
def _max_abs_kernel(x):
    """max |x_i| in 8 lanes (vectorised); a NaN is skipped (callers prove finiteness apart)."""
    lanes = np.zeros(8)
    n = x.shape[0]
    i = 0
    while i + 8 <= n:
        for j in range(8):
            a = abs(x[i + j])
            lanes[j] = a if a > lanes[j] else lanes[j]
        i += 8
    top = 0.0
    while i < n:
        a = abs(x[i])
        top = a if a > top else top
        i += 1
    for j in range(8):
        top = lanes[j] if lanes[j] > top else top
    return top


def _abs_sum(arr) -> float:
    return dasum(arr) if arr.shape[0] < BLAS1_MAX else _abs_sum_kernel(arr)


def _square_sum(arr) -> float:
    return ddot(arr, arr) if arr.shape[0] < BLAS1_MAX else _square_sum_kernel(arr)


_F64 = np.dtype(np.float64)


def _float_vector(theta):
    """theta as an ndarray when it is already a non-empty 1-d float64 array (the one-pass routes), else None."""
    arr = theta if type(theta) is np.ndarray else np.asarray(theta)
    return arr if arr.dtype is _F64 and arr.ndim == 1 and arr.shape[0] else None


def _plain_square(theta) -> float | None:
    """theta . theta in one BLAS pass when it proves the plain route exact, else None.  A finite value proves theta
    finite (NaN / inf propagate); 2^-400 <= value <= 2^400 bounds max|theta| inside the plain range's role (no
    overflow; entries small enough to be rounded differently by a rescaling contribute < 2^-600 relatively)."""
    arr = _float_vector(theta)
    if arr is None:
        return None
    value = _square_sum(arr)
    return value if 2.0**-400 <= value <= 2.0**400 else None


def _plain_abs_sum(theta) -> float | None:
    """sum |theta_k| in one BLAS pass (dasum: no |theta| temporary) when 2^-900 <= value <= 2^900, else None."""
    arr = _float_vector(theta)
    if arr is None:
        return None
    value = _abs_sum(arr)
    return value if 2.0**-900 <= value <= 2.0**900 else None


def _plain_max_abs(theta) -> float | None:
    """max |theta_k| (BLAS idamax, or a numba pass from BLAS1_MAX entries) when theta . theta is finite (which proves
    every entry finite: NaN and inf propagate; idamax alone may skip a NaN), else None; two passes, no |theta|
    temporary."""
    arr = _float_vector(theta)
    if arr is None or not math.isfinite(_square_sum(arr)):
        return None
    return abs(float(arr[idamax(arr)])) if arr.shape[0] < BLAS1_MAX else _max_abs_kernel(arr)


# --------------------------------------------------------------------------- Gamma: the contract's decision, remembered
# check_gamma accepts Gamma after a symmetry test and a Cholesky factorisation, O(d^3), at every call (the contract
# is checked per call: get_regularizer("ridge", Gamma=G) re-checks G for every theta).  The decision depends on
# Gamma's values only, so a Gamma equal (entry by entry, ==) to one accepted before is accepted again without the
# factorisation: the equality test reads Gamma once, fused with the product Gamma theta the value needs anyway
# (:func:`_match_times`).  Copies are kept, never references (a caller may modify its array afterwards: the next call
# then compares unequal and the contract runs again); at most _ACCEPTED_MAX copies and _ACCEPTED_BYTES bytes.
_ACCEPTED: list = []
_ACCEPTED_MAX = 8
_ACCEPTED_BYTES = 64 * 1024**2
_ACCEPTED_LOCK = threading.Lock()


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _match_times(G, accepted, t, out):
    """True iff G == accepted entrywise; then out = G @ t (row sums reassociated: vectorised).  Stops at the first
    row that differs.  No 'nnan': a NaN entry compares unequal."""
    n, d = G.shape
    for i in range(n):
        differs = False
        acc = 0.0
        for k in range(d):
            v = G[i, k]
            differs |= v != accepted[i, k]
            acc += v * t[k]
        if differs:
            return False
        out[i] = acc
    return True


def _gamma_times(Gamma, theta):
    """(check_gamma(Gamma, d), Gamma @ theta): the contract's decision, or the remembered one for a Gamma equal to
    an accepted copy (then the product comes from the same pass); theta is a checked float64 vector."""
    d = theta.shape[0]
    G = Gamma if type(Gamma) is np.ndarray else None
    if G is not None and G.dtype is _F64 and G.shape == (d, d):
        t = np.ascontiguousarray(theta)
        out = np.empty(d, dtype=np.float64)
        for copy in tuple(_ACCEPTED):
            if copy.shape == G.shape and _match_times(G, copy, t, out):
                return G, out
    G = check_gamma(Gamma, d)  # the contract: raises its message, or accepts
    if G.nbytes <= _ACCEPTED_BYTES // _ACCEPTED_MAX:
        with _ACCEPTED_LOCK:
            _ACCEPTED.insert(0, np.array(G, dtype=np.float64, order="C"))
            del _ACCEPTED[_ACCEPTED_MAX:]
    return G, dgemv(1.0, G, theta) if d else np.zeros(0)


def _ridge_gamma(theta, Gamma) -> float:
    """theta^T Gamma theta for checked theta: plain (Gamma theta from :func:`_gamma_times`, one BLAS dot) when the
    value is finite and in [2^-400, 2^400] (no overflow happened; a rescaling by powers of two would change no
    rounding above the underflow range), else the rescaled route of :func:`_ridge_value`."""
    G, product = _gamma_times(Gamma, theta)
    value = ddot(theta, product)
    if 2.0**-400 <= value <= 2.0**400:
        return value
    return _ridge_value(theta, G)


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


def _weight(value, name: str) -> float:
    """check_weight(value, name) with its common case first: a Python float in [0, inf) is returned as is (the
    contract's check_real formats its interval text on every call, ~2 us; it still decides everything else)."""
    if type(value) is float and 0.0 <= value < math.inf:
        return value
    return check_weight(value, name)


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
    return _ridge_gamma(check_theta(theta), Gamma)


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
    value = _plain_max_abs(theta)
    return value if value is not None else _theta_and_abs(theta)[2]


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
            l1 = _weight(l1, "l1")
            l2 = _weight(l2, "l2")
            return _weighted(l1, v1) + _weighted(l2, v2)
    theta, a, top = _theta_and_abs(theta)
    l1 = check_weight(l1, "l1")
    l2 = check_weight(l2, "l2")
    if Gamma is not None:
        quadratic = _ridge_gamma(theta, Gamma)
        return _weighted(l1, float(a.sum()) if _plain(top) else _lasso_value(theta)) + _weighted(l2, quadratic)
    if _plain(top):
        return _weighted(l1, float(a.sum())) + _weighted(l2, float(theta @ theta))
    return _weighted(l1, _lasso_value(theta)) + _weighted(l2, _ridge_value(theta, None))


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
