"""Equivalent example / rado losses, generators, games and regularized rados, vectorised   [nock2016 s2-3].

Same public names, signatures, validation and return types as :mod:`reference.losses` (read its module
docstring for the notation, the tie-breaking of rows III and IV and the constant c_row of phi_e).

Where the reference enumerates the 2^m subsets J of [m], this module uses the product / moment identities
of the uniform measure on subsets, so the losses and game values cost O(m) instead of O(2^m m):

* sum_J exp(-s_J / mu) = prod_i (1 + exp(-z_i / mu))   (row I; log-space: sum_i softplus(-z_i / mu)),
* E_J s_J = (1/2) sum_i z_i and V_J s_J = (1/4) sum_i z_i^2   (rows II, IV),
* min_J s_J = sum_i min(0, z_i)   (row III).

The adversary q*(z) (2^m values) is built by doubling over the examples in G_m order.
"""
from __future__ import annotations

import math

import numpy as np

from scipy.special import expit

from fast._rados_kernels import shifted_rows
from fast._risk_kernels import exp_sum, logistic_weights, softplus_sum
from fast.rados import _log_mean_exp, _products
from fast.regularizers import _plain_square
from fast._contracts.validation import as_float_matrix, as_float_vector, check_finite_array
from fast._contracts.links import implements
from fast._contracts.losses_contract import (
    MAX_MARGIN,
    ROWS,
    check_generator_args,
    check_margins,
    check_penalty,
    check_positive_a_e,
    check_reading,
    check_row,
    check_set_and_theta,
    check_shift_finite,
    check_theta,
)
from fast._contracts.validation import check_positive, check_real

__all__ = [
    "ROWS",
    "phi_r",
    "phi_s",
    "phi_e",
    "example_loss",
    "rado_loss",
    "rado_set_loss",
    "example_adversary",
    "rado_adversary",
    "example_game_value",
    "rado_game_value",
    "slope_a_e",
    "regularized_example_loss",
    "omega_tilde",
    "regularized_rados",
    "regularized_exp_rado_loss",
]

INF = math.inf
_PHI_E_CONSTANT = {"I": 1.0, "II": 0.0, "III": 0.0, "IV": 0.0}
_LOG_MAX = math.log(np.finfo(np.float64).max)


def _exp(t: float) -> float:
    """exp(t) as a Python float, +inf past float64's range (no overflow warning)."""
    return INF if t > _LOG_MAX else math.exp(t)


def _softplus_sum(t: np.ndarray) -> float:
    """sum_i log(1 + exp(t_i)) for finite t: one numba pass (fast._risk_kernels.softplus_sum: vectorised exp, one
    log1p per 32 terms; ~5x numpy's logaddexp route, no temporary)."""
    return float(softplus_sum(np.ascontiguousarray(t, dtype=np.float64)))


def _subset_sums(z: np.ndarray) -> np.ndarray:
    """s_J for all columns J of G_m, by doubling (example m is the least significant bit)."""
    m = z.shape[0]
    s = np.zeros(2**m, dtype=np.float64)
    size = 1
    for i in range(m - 1, -1, -1):
        np.add(s[:size], z[i], out=s[size:2 * size])
        size *= 2
    return s


# --------------------------------------------------------------------------- generators (scalars)


def _theta_for(P, theta, name):
    """theta under check_set_and_theta's rules for a matrix P of d columns: its own test (as_float_vector, the
    contract's first step for theta), then the length rule, whose message comes from the contract itself (called
    on a finite stand-in of width d only when the length is wrong: ~3 us saved per call)."""
    theta = as_float_vector(theta, "theta")
    if theta.shape[0] != P.shape[1]:
        check_set_and_theta(np.zeros((1, P.shape[1])), theta, name)  # raises the contract's length message
    return theta


def _set_and_theta(points, theta, name):
    """(points, theta) under check_set_and_theta's contract (same messages, same order) except the finiteness of
    ``points``, left to the caller's pass over it (fast.rados._products / _log_mean_exp: fused there)."""
    P = as_float_matrix(points, name, check_finite=False)
    try:
        theta = _theta_for(P, theta, name)
    except (TypeError, ValueError):
        check_finite_array(P, name)  # a non-finite matrix is reported first, as by check_set_and_theta
        raise
    return P, theta


@implements("nock2016.table1.i", "nock2016.table1.ii", "nock2016.table1.iii", "nock2016.table1.iv")
def _set_and_sums(points, theta, name, sign=1.0):
    """(points, theta, points @ (sign theta)) under check_set_and_theta's contract (same messages, same order),
    the finiteness test of ``points`` fused into the product (:func:`fast.rados._products`): no separate pass
    over the (n, d) matrix.  ``sign`` = -1 gives the negated sums exactly (negation commutes with rounding)."""
    P, theta = _set_and_theta(points, theta, name)
    return P, theta, _products(P, -theta if sign < 0 else theta, name)


def phi_r(x, row, m=None):
    """phi_r(x): I x log x - x; II x^2 / 2; III chi_[0,1]; IV chi_[2^-m, 1/2]   [nock2016 Table 1].

    Parameters
    ----------
    x : float
        Point of evaluation.
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    m : int, optional
        Number of examples (row IV only: the domain [2**-m, 1/2]).

    Returns
    -------
    float
        The generator's value (``inf`` outside its domain).

    Examples
    --------
    >>> from fast.losses import phi_r
    >>> phi_r(0.25, "II")
    0.03125
    >>> phi_r(2.0, "III")
    inf
    """
    x, row, m = check_generator_args(x, row, m)
    if row == "I":
        if x < 0.0:
            return INF
        return 0.0 if x == 0.0 else x * math.log(x) - x
    if row == "II":
        return 0.5 * x * x
    if row == "III":
        return 0.0 if 0.0 <= x <= 1.0 else INF
    return 0.0 if 2.0**-m <= x <= 0.5 else INF


@implements("nock2016.def3")
def phi_s(x, row, m=None):
    """phi_s(r)(x) = phi_r(x) + phi_r(1 - x)   [nock2016 Definition 3].

    Parameters
    ----------
    x : float
        Point of evaluation.
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    m : int, optional
        Number of examples (row IV only: the domain [2**-m, 1/2]).

    Returns
    -------
    float
        The generator's value (``inf`` outside its domain).

    Examples
    --------
    >>> from fast.losses import phi_s
    >>> phi_s(0.25, "II")
    0.3125
    """
    x, row, m = check_generator_args(x, row, m)
    return phi_r(x, row, m) + phi_r(1.0 - x, row, m)


@implements("nock2016.lemma4")
def phi_e(x, row, m=None):
    """phi_e(x) = phi_s(r)(x) + c_row (c_I = 1, others 0)   [nock2016 Lemma 4 with mu_e = mu_r].

    Parameters
    ----------
    x : float
        Point of evaluation.
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    m : int, optional
        Number of examples (row IV only: the domain [2**-m, 1/2]).

    Returns
    -------
    float
        The generator's value (``inf`` outside its domain).

    Examples
    --------
    >>> from fast.losses import phi_e
    >>> round(phi_e(0.25, "I"), 6)
    -0.562335
    """
    x, row, m = check_generator_args(x, row, m)
    return phi_s(x, row, m) + _PHI_E_CONSTANT[row]


# --------------------------------------------------------------------------- losses


@implements("nock2016.table1.i", "nock2016.table1.ii", "nock2016.table1.iii", "nock2016.table1.iv")
def example_loss(z, row, mu_e):
    """l_e(z, mu_e) of Table 1 (z^e_i = -z_i / mu_e)   [nock2016 Table 1].

    Parameters
    ----------
    z : array_like of shape (m,)
        Margins z_i (= theta . e_i for the edge vectors e_i).
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_e : float
        Positive normalisation mu_e.

    Returns
    -------
    float
        l_e(z, mu_e).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import example_loss
    >>> round(example_loss(np.array([1.0, -0.5]), "I", 1.0), 6)
    1.287339
    """
    z, row, mu_e = check_margins(z, row, mu_e, "mu_e")
    ze = -z / mu_e
    if row == "I":
        return _softplus_sum(ze)
    if row == "II":
        return float(((1.0 + ze) ** 2).sum())
    if row == "III":
        return float(np.maximum(ze, 0.0).sum())
    return float(ze.sum())


@implements("nock2016.table1", "nock2016.table1.i", "nock2016.table1.ii", "nock2016.table1.iii", "nock2016.table1.iv")
def rado_loss(z, row, mu_r):
    """l_r(z, mu_r) of Table 1 over all 2^m subsets, by the product / moment identities   [nock2016 Table 1].

    Parameters
    ----------
    z : array_like of shape (m,)
        Margins z_i (= theta . e_i for the edge vectors e_i).
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_r : float
        Positive normalisation mu_r.

    Returns
    -------
    float
        l_r(z, mu_r) over the 2**m rados.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import rado_loss
    >>> rado_loss(np.array([1.0, -0.5]), "II", 1.0)
    0.0625
    """
    z, row, mu_r = check_margins(z, row, mu_r, "mu_r", enumerate_subsets=True)
    if row == "I":
        return _exp(_softplus_sum(-z / mu_r))
    if row == "II":
        # -(E_J[-z^r_J] - mu_r V_J[-z^r_J]) = (V_J s - E_J s) / mu_r with E_J s = sum z / 2, V_J s = sum z^2 / 4
        return (0.25 * float(z @ z) - 0.5 * float(z.sum())) / mu_r
    if row == "III":
        return float(np.maximum(-z, 0.0).sum()) / mu_r
    return -0.5 * float(z.sum()) / mu_r


@implements("nock2016.sec3.repr")
def rado_set_loss(rados, theta, row, mu_r):
    """l_r(S_r, theta): Table 1's l_r with s_j = theta^T pi_j over the given rados (ROWS)   [nock2016 s3].

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_r : float
        Positive normalisation mu_r.

    Returns
    -------
    float
        l_r(S_r, theta).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import rado_set_loss
    >>> round(rado_set_loss(np.array([[1.0, 2.0], [0.0, -1.0]]), np.array([0.5, 0.5]), "I", 1.0), 6)
    1.871851
    """
    rados, theta, sums = _set_and_sums(rados, theta, "rados")
    row = check_row(row)
    mu_r = check_positive(mu_r, "mu_r")
    if row == "II":
        mean = float(sums.mean())
        variance = float(((sums - mean) ** 2).mean())
        return (variance - mean) / mu_r
    with np.errstate(over="ignore"):
        zr = -sums / mu_r
    if row == "I":
        top = float(zr.max())
        if math.isinf(top):
            return _exp(top)
        return _exp(top + math.log(exp_sum(zr, top)))
    if row == "III":
        return max(0.0, float(zr.max()))
    return float(zr.mean())


# --------------------------------------------------------------------------- games


@implements("nock2016.eq3")
def example_adversary(z, row, mu_e):
    """p*(z) of eq. (3): I 1 / (1 + exp(z / mu_e)); II (1 - z / mu_e) / 2; III 1[z < 0]; IV 1/2   [nock2016 eq. (3)].

    Parameters
    ----------
    z : array_like of shape (m,)
        Margins z_i (= theta . e_i for the edge vectors e_i).
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_e : float
        Positive normalisation mu_e.

    Returns
    -------
    numpy.ndarray of shape (m,)
        The optimal adversary's weights p*(z).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import example_adversary
    >>> np.round(example_adversary(np.array([1.0, -0.5]), "I", 1.0), 4)
    array([0.2689, 0.6225])
    """
    if isinstance(row, str) and row == "I":  # one compiled pass: the contract's tests of z fused with the weights
        z = as_float_matrix(z, "z", ndim=1, check_finite=False)
        try:
            mu = check_positive(mu_e, "mu_e")
        except (TypeError, ValueError):  # raised below by the contract, after its tests of z (its order)
            mu = None
        if mu is not None:
            out = np.empty(z.shape[0], dtype=np.float64)
            finite, within = logistic_weights(np.ascontiguousarray(z), mu, MAX_MARGIN, out)
            if finite and within:  # else the contract below raises what the pass flagged
                return out  # 1 / (1 + exp(z / mu_e)), no overflow
    z, row, mu_e = check_margins(z, row, mu_e, "mu_e")
    if row == "I":  # not reached when the pass above ran: the contract raises on what it flagged
        t = np.divide(z, mu_e)
        return expit(np.negative(t, out=t), out=t)  # 1 / (1 + exp(z / mu_e)), no overflow, one temporary
    if row == "II":
        return 0.5 * (1.0 - z / mu_e)
    if row == "III":
        return (z < 0.0).astype(np.float64)
    return np.full(z.shape[0], 0.5)


@implements("nock2016.eq4")
def rado_adversary(z, row, mu_r):
    """q*(z) of eq. (4), (2^m,) in G_m order (rows I-IV as in :func:`reference.losses.rado_adversary`)   [nock2016 eq. (4)].

    Parameters
    ----------
    z : array_like of shape (m,)
        Margins z_i (= theta . e_i for the edge vectors e_i).
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_r : float
        Positive normalisation mu_r.

    Returns
    -------
    numpy.ndarray of shape (2**m,)
        The optimal adversary q*(z) over the rados, in G_m column order.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import rado_adversary
    >>> rado_adversary(np.array([1.0, -0.5]), "II", 1.0)
    array([ 0.5,  1. , -0.5,  0. ])
    """
    z, row, mu_r = check_margins(z, row, mu_r, "mu_r", enumerate_subsets=True)
    m = z.shape[0]
    if row == "I":
        t = -_subset_sums(z) / mu_r
        t -= t.max()
        q = np.exp(t)
        return q / q.sum()
    if row == "II":
        s = _subset_sums(z)
        return 1.0 / 2**m + (0.5 * float(z.sum()) - s) / mu_r
    if row == "III":
        q = np.zeros(2**m)
        bits = (z < 0.0).astype(np.int64)
        q[int(bits @ (1 << np.arange(m - 1, -1, -1, dtype=np.int64)))] = 1.0
        return q
    return np.full(2**m, 1.0 / 2**m)


@implements("nock2016.eq5")
def example_game_value(z, row, mu_e):
    """L_e(z): I -mu_e l_e; II m mu_e / 2 - (mu_e / 4) l_e; III sum min(0, z_i); IV sum z_i / 2   [nock2016 eqs. (1), (5)].

    Parameters
    ----------
    z : array_like of shape (m,)
        Margins z_i (= theta . e_i for the edge vectors e_i).
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_e : float
        Positive normalisation mu_e.

    Returns
    -------
    float
        L_e(z).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import example_game_value
    >>> example_game_value(np.array([1.0, -0.5]), "III", 1.0)
    -0.5
    """
    z, row, mu_e = check_margins(z, row, mu_e, "mu_e")
    if row == "I":
        return -mu_e * _softplus_sum(-z / mu_e)
    if row == "II":
        return z.shape[0] * mu_e / 2.0 - mu_e / 4.0 * float(((1.0 - z / mu_e) ** 2).sum())
    if row == "III":
        return float(np.minimum(z, 0.0).sum())
    return 0.5 * float(z.sum())


@implements("nock2016.eq6")
def rado_game_value(z, row, mu_r):
    """L_r(z) = L_r(q*(z), z) in closed form   [nock2016 eqs. (2), (6)].

    I -mu_r sum_i softplus(-z_i / mu_r) - mu_r; II sum z / 2 - 2^m sum z^2 / (8 mu_r) + mu_r 2^-(m+1);
    III sum min(0, z_i); IV sum z_i / 2.

    Parameters
    ----------
    z : array_like of shape (m,)
        Margins z_i (= theta . e_i for the edge vectors e_i).
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_r : float
        Positive normalisation mu_r.

    Returns
    -------
    float
        L_r(z).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import rado_game_value
    >>> rado_game_value(np.array([1.0, -0.5]), "IV", 1.0)
    0.25
    """
    z, row, mu_r = check_margins(z, row, mu_r, "mu_r", enumerate_subsets=True)
    m = z.shape[0]
    if row == "I":
        return -mu_r * _softplus_sum(-z / mu_r) - mu_r
    if row == "II":
        return 0.5 * float(z.sum()) - 2.0**m * 0.25 * float(z @ z) / (2.0 * mu_r) + mu_r / 2.0 ** (m + 1)
    if row == "III":
        return float(np.minimum(z, 0.0).sum())
    return 0.5 * float(z.sum())


# --------------------------------------------------------------------------- Theorem 7


@implements("nock2016.thm7")
def slope_a_e(row, mu_e, *, reading="corrected"):
    """a_e of Table 1 / eq. (14): I mu_e, II mu_e / 4, III mu_e, IV mu_e / 2 (printed: mu_e)   [nock2016 Table 1].

    Parameters
    ----------
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_e : float
        Positive normalisation mu_e.
    reading : {"corrected", "printed"}, default="corrected"
        Row IV: the corrected value mu_e / 2 or the printed mu_e.

    Returns
    -------
    float
        a_e.

    Examples
    --------
    >>> from fast.losses import slope_a_e
    >>> slope_a_e("II", 1.0), slope_a_e("IV", 1.0)
    (0.25, 0.5)
    """
    row = check_row(row)
    mu_e = check_positive(mu_e, "mu_e")
    reading = check_reading(reading)
    if row == "II":
        return mu_e / 4.0
    if row == "IV" and reading == "corrected":
        return mu_e / 2.0
    return mu_e


@implements("nock2016.eq13")
def regularized_example_loss(edges, theta, row, mu_e, penalty):
    """l_e(S_e, theta, Omega) = l_e(S_e, theta) + Omega(theta)   [nock2016 eq. (13)].

    Parameters
    ----------
    edges : array_like of shape (m, d)
        Edge vectors y_i x_i, one per row.
    theta : array_like of shape (d,)
        Linear classifier.
    row : {"I", "II", "III", "IV"}
        Row of nock2016 Table 1.
    mu_e : float
        Positive normalisation mu_e.
    penalty : float
        The regularizer's value Omega(theta) (e.g. ``lasso(theta)``).

    Returns
    -------
    float
        l_e(S_e, theta) + Omega(theta).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import regularized_example_loss
    >>> from fast.regularizers import lasso
    >>> E, theta = np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([0.5, 0.5])
    >>> round(regularized_example_loss(E, theta, "I", 1.0, lasso(theta)), 6)
    2.027353
    """
    edges, theta, sums = _set_and_sums(edges, theta, "edges")
    row = check_row(row)
    mu_e = check_positive(mu_e, "mu_e")
    penalty = check_penalty(penalty)
    return example_loss(sums, row, mu_e) + penalty


def _scaled_theta(theta):
    """(M, u, ||u||^2), u = theta / M, M = max |theta_k| (None when theta = 0)."""
    top = float(np.abs(theta).max())
    if top == 0.0:
        return None
    u = theta / top
    return top, u, float(u @ u)


@implements("nock2016.thm7", "nock2016.thm7.margin")
def omega_tilde(theta, penalty, a_e):
    """Omega~(theta) = a_e Omega(theta) / ||theta||^2 (0 at theta = 0)   [nock2016 Theorem 7].

    Parameters
    ----------
    theta : array_like of shape (d,)
        Linear classifier.
    penalty : float
        The regularizer's value Omega(theta).
    a_e : float
        The slope a_e (see :func:`slope_a_e`).

    Returns
    -------
    float
        Omega~(theta).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import omega_tilde
    >>> omega_tilde(np.array([0.5, 0.5]), 1.0, 1.0)
    2.0
    """
    square = _plain_square(theta)  # theta . theta in one BLAS pass when it proves theta finite and in range
    if square is not None:
        # the contract's checks (check_real formats its interval text on every call, ~2 us) after a float fast path
        penalty = penalty if type(penalty) is float and math.isfinite(penalty) else check_penalty(penalty)
        a_e = a_e if type(a_e) is float and 0.0 < a_e < math.inf else check_positive_a_e(a_e)
        numerator = a_e * penalty
        if numerator == 0.0 or 2.0**-500 <= abs(numerator) <= 2.0**500:  # no overflow / underflow either way
            return numerator / square
    theta = check_theta(theta)
    penalty = check_penalty(penalty)
    a_e = check_positive_a_e(a_e)
    scaled = _scaled_theta(theta)
    if scaled is None:
        return 0.0
    top, _, norm_u = scaled
    return (a_e * penalty) / top / top / norm_u


@implements("nock2016.thm7")
def regularized_rados(rados, theta, penalty, a_e):
    """pi_j - Omega~(theta) theta for every rado (ROW)   [nock2016 eq. (15)].

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.
    penalty : float
        The regularizer's value Omega(theta).
    a_e : float
        The slope a_e (see :func:`slope_a_e`).

    Returns
    -------
    numpy.ndarray of shape (n, d)
        The shifted rados.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import regularized_rados
    >>> regularized_rados(np.array([[1.0, 2.0], [0.0, -1.0]]), np.array([0.5, 0.5]), 1.0, 1.0)
    array([[ 0.,  1.],
           [-1., -2.]])
    """
    P = as_float_matrix(rados, "rados", check_finite=False)
    try:  # check_set_and_theta's rules for theta
        theta = _theta_for(P, theta, "rados")
        penalty = check_penalty(penalty)
        a_e = check_positive_a_e(a_e)
        scaled = _scaled_theta(theta)
        if scaled is not None:
            top, u, norm_u = scaled
            factor = (a_e * penalty) / top / norm_u
            check_shift_finite(factor)
    except (TypeError, ValueError):
        check_finite_array(P, "rados")  # a non-finite matrix is reported first, as by check_set_and_theta
        raise
    if scaled is None:
        check_finite_array(P, "rados")
        return np.array(P, dtype=np.float64)
    shift = factor * u
    out = np.empty(P.shape, dtype=np.float64)
    if P.flags.c_contiguous:  # the subtraction and the finiteness test in one pass
        if not shifted_rows(P, shift, out):
            check_finite_array(P, "rados")
    else:
        check_finite_array(P, "rados")
        np.subtract(P, shift[None, :], out=out)
    return out


@implements("nock2016.eq45")
def regularized_exp_rado_loss(rados, theta, penalty, *, omega=1.0, log=False):
    """(1/n) sum_j exp(-theta^T pi_j + omega Omega(theta))   [nock2016 SM eq. (45), reconstructed]; log=True: its log.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.
    penalty : float
        The regularizer's value Omega(theta).
    omega : float, default=1.0
        Regularisation strength.
    log : bool, default=False
        Return the log of the loss (finite where the loss overflows).

    Returns
    -------
    float
        The regularised exponential rado loss (or its log).

    Raises
    ------
    TypeError
        If ``log`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.losses import regularized_exp_rado_loss
    >>> P, theta = np.array([[1.0, 2.0], [0.0, -1.0]]), np.array([0.5, 0.5])
    >>> round(regularized_exp_rado_loss(P, theta, 1.0), 6), round(regularized_exp_rado_loss(P, theta, 1.0, log=True), 6)
    (2.54411, 0.933781)
    """
    rados, theta = _set_and_theta(rados, theta, "rados")
    log_mean = _log_mean_exp(rados, theta, "rados")  # one fused pass; checks the rados' finiteness
    penalty = check_penalty(penalty)
    omega = check_real(omega, "omega", low=0.0)
    if not isinstance(log, bool):
        raise TypeError(f"log must be True or False, got {log!r}")
    value = log_mean + omega * penalty
    return value if log else _exp(value)
