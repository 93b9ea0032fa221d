"""Equivalent example / rado losses, their generators and games, and regularized rados   [nock2016 s2-3].

Readable reference: every sum over subsets J of [m] is an explicit loop over the 2^m columns of G_m
(:func:`reference.rados.g_matrix`, nock2016 eq. (8) = nock2015 eq. (20)), every sum is ``math.fsum``.
numpy only at the boundary.  Numeric solvers of the inner minimisations (scipy) live apart, in
:mod:`reference.losses_games` (not paired with ``fast``).

Notation (nock2016 s2):

* margins ``z in R^m`` (z_i = y_i h(x_i)); subset sums ``s_J = sum_{i in J} z_i`` for J subset of [m],
  J indexed by the columns of G_m (column c: J = {i : G_m[i, c] = 1}, row 1 = most significant bit);
* ``z^e_i = -z_i / mu_e`` and ``z^r_J = -s_J / mu_r`` (Table 1 shorthands);
* ``row`` in {"I", "II", "III", "IV"}: the rows of Table 1 (I exponential rado / logistic example loss,
  II mean-variance rado / square example loss, III ReLU rado / hinge-at-0 example loss, IV unhinged);
* E_J and V_J (rows II, IV) are the mean and the population variance under uniform J.

The games (eqs. 1-6) are played with the rado generator ``phi_r`` of Table 1 and the example generator
``phi_e = phi_s(r) + c_row`` (Definition 3 and Lemma 4 with mu_e = mu_r), where the constant c_row is 1 for
row I (phi_e(p) = p log p + (1 - p) log(1 - p), the negative binary entropy, so that -L_e = mu_e l_e exactly)
and 0 for rows II-IV.  A generator outside its domain is +inf (chi_A is 0 on A and +inf elsewhere).

Adversary optima (eqs. 3-4), closed forms derived in the docstrings and checked against a numeric solver:
they are unique in rows I and II; in row III (a linear program) we return the minimiser that puts no
weight on z_i = 0 (p*_i = 1[z_i < 0], q* = the indicator of J- = {i : z_i < 0}, the lowest-index argmin of
s_J); in row IV the feasible sets are single points.

Findings of the checks (docs/findings, spec/claims.d/nock2016.toml): Table 1 row II's "for all mu_e = mu_r"
fails for m >= 2 (needs mu_e = 1, and mu_r = 2^{m-1} mu_e at the game level), row IV's a_e is mu_e / 2
(printed: mu_e); :func:`slope_a_e` returns either reading.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reference.rados import _logsumexp as _logsumexp_finite
from reference.rados import _softplus, g_matrix, log_exp_rado_risk
from spec.links import implements
from spec.losses_contract import (
    ROWS,
    check_generator_args,
    check_margins,
    check_penalty,
    check_positive_a_e,
    check_reading,
    check_set_and_theta,
    check_row,
    check_shift_finite,
    check_theta,
)
from spec.validation import check_positive, check_real

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
#: the constant c_row in phi_e = phi_s(r) + c_row (see the module docstring)
_PHI_E_CONSTANT = {"I": 1.0, "II": 0.0, "III": 0.0, "IV": 0.0}


# --------------------------------------------------------------------------- small numerics


def _logsumexp(values) -> float:
    """log sum_j exp(v_j) (reference.rados' helper), +inf when the largest v_j already is."""
    values = list(values)
    top = max(values)
    return top if math.isinf(top) else _logsumexp_finite(values)


def _exp(t: float) -> float:
    """exp(t), +inf when it overflows float64."""
    try:
        return math.exp(t)
    except OverflowError:
        return INF


def _xlogx(x: float) -> float:
    """x log x with 0 log 0 = 0."""
    return 0.0 if x == 0.0 else x * math.log(x)


def _subset_sums(z, *, exact: bool = False) -> list:
    """s_J = sum_{i in J} z_i = (z^T G_m)_J for every column J of G_m   [nock2016 eq. (8)].

    Correctly rounded floats (math.fsum), or exact rationals with ``exact=True`` (to compare sums that
    float64 rounds to a tie, e.g. z = (-1e-195, -1): s_{2} = -1 and s_{1,2} = -1 - 1e-195 both round to -1).
    """
    m = len(z)
    G = g_matrix(m)
    if exact:
        values = [Fraction(float(v)) for v in z]
        return [sum((values[i] for i in range(m) if G[i, c]), Fraction(0)) for c in range(2**m)]
    return [math.fsum(float(z[i]) for i in range(m) if G[i, c]) for c in range(2**m)]


def _mean_and_variance(values) -> tuple[float, float]:
    """E and population V of ``values`` (uniform weights)."""
    n = len(values)
    mean = math.fsum(values) / n
    return mean, math.fsum((v - mean) ** 2 for v in values) / n


# --------------------------------------------------------------------------- generators


@implements("nock2016.table1.i", "nock2016.table1.ii", "nock2016.table1.iii", "nock2016.table1.iv")
def phi_r(x, row, m=None):
    """phi_r(x) of Table 1: I x log x - x; II x^2 / 2; III chi_[0,1](x); IV chi_[2^-m, 1/2](x)   [nock2016 Table 1].

    ``x`` a real number; returns a float, +inf outside dom phi_r (I: x < 0, with 0 log 0 = 0).  ``m`` is
    required for row IV only.

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
    >>> from reference.losses import phi_r
    >>> phi_r(0.25, "II")
    0.03125
    >>> phi_r(2.0, "III")
    inf
    """
    x, row, m = check_generator_args(x, row, m)
    if row == "I":
        return INF if x < 0.0 else _xlogx(x) - x
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
    >>> from reference.losses import phi_s
    >>> phi_s(0.25, "II")
    0.3125
    """
    x, row, m = check_generator_args(x, row, m)
    return phi_r(x, row, m) + phi_r(1.0 - x, row, m)


@implements("nock2016.lemma4")
def phi_e(x, row, m=None):
    """phi_e(x) = phi_s(r)(x) + c_row, c_I = 1, c_II = c_III = c_IV = 0   [nock2016 Lemma 4 with mu_e = mu_r, b = c_row mu_e].

    Row I: phi_e(x) = x log x + (1 - x) log(1 - x) on [0, 1].

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
    >>> from reference.losses import phi_e
    >>> round(phi_e(0.25, "I"), 6)
    -0.562335
    """
    x, row, m = check_generator_args(x, row, m)
    return phi_s(x, row, m) + _PHI_E_CONSTANT[row]


# --------------------------------------------------------------------------- losses over margins


@implements("nock2016.table1.i", "nock2016.table1.ii", "nock2016.table1.iii", "nock2016.table1.iv")
def example_loss(z, row, mu_e):
    """l_e(z, mu_e): I sum_i log(1 + exp(z^e_i)); II sum_i (1 + z^e_i)^2; III sum_i max{0, z^e_i}; IV sum_i z^e_i   [nock2016 Table 1].

    z^e_i = -z_i / mu_e.

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
    >>> from reference.losses import example_loss
    >>> round(example_loss(np.array([1.0, -0.5]), "I", 1.0), 6)
    1.287339
    """
    z, row, mu_e = check_margins(z, row, mu_e, "mu_e")
    ze = [-float(zi) / mu_e for zi in z]
    if row == "I":
        return math.fsum(_softplus(t) for t in ze)
    if row == "II":
        return math.fsum((1.0 + t) ** 2 for t in ze)
    if row == "III":
        return math.fsum(max(0.0, t) for t in ze)
    return math.fsum(ze)


def _rado_loss_from_sums(sums, row: str, mu_r: float) -> float:
    """l_r over the given subset sums s_J (uniform weights for E_J, V_J)."""
    zr = [-s / mu_r for s in sums]  # z^r_J
    if row == "I":
        return _exp(_logsumexp(zr))
    if row == "II":
        # -(E_J[-z^r_J] - mu_r V_J[-z^r_J]) = (V_J s - E_J s) / mu_r, computed on s (no mu_r^2)
        mean, variance = _mean_and_variance(list(sums))
        return (variance - mean) / mu_r
    if row == "III":
        return max(0.0, max(zr))
    return math.fsum(zr) / len(zr)


@implements("nock2016.table1", "nock2016.table1.i", "nock2016.table1.ii", "nock2016.table1.iii", "nock2016.table1.iv")
def rado_loss(z, row, mu_r):
    """l_r(z, mu_r): I sum_J exp(z^r_J); II -(E_J[-z^r_J] - mu_r V_J[-z^r_J]); III max{0, max_J z^r_J}; IV E_J[z^r_J]   [nock2016 Table 1].

    Over all 2^m subsets J of [m] (z^r_J = -s_J / mu_r), enumerated through G_m.  Row I: +inf when the
    sum overflows float64.

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
    >>> from reference.losses import rado_loss
    >>> rado_loss(np.array([1.0, -0.5]), "II", 1.0)
    0.0625
    """
    z, row, mu_r = check_margins(z, row, mu_r, "mu_r", enumerate_subsets=True)
    return _rado_loss_from_sums(_subset_sums(z), row, mu_r)


@implements("nock2016.sec3.repr")
def rado_set_loss(rados, theta, row, mu_r):
    """l_r(S_r, theta) = l_r of Table 1 with s_j = theta^T pi_j over the rados pi_j of S_r (ROWS of ``rados``)   [nock2016 s3].

    With S_r = S_r* (all 2^m rados, :func:`reference.rados.all_rados`) this is l_r(z, mu_r) at
    z_i = theta^T y_i x_i.  E and V (rows II, IV) are uniform over the given rados; row I sums.

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
    >>> from reference.losses import rado_set_loss
    >>> round(rado_set_loss(np.array([[1.0, 2.0], [0.0, -1.0]]), np.array([0.5, 0.5]), "I", 1.0), 6)
    1.871851
    """
    rados, theta = check_set_and_theta(rados, theta, "rados")
    row = check_row(row)
    mu_r = check_positive(mu_r, "mu_r")
    d = len(theta)
    sums = [math.fsum(float(theta[k]) * float(pi[k]) for k in range(d)) for pi in rados]
    return _rado_loss_from_sums(sums, row, mu_r)


# --------------------------------------------------------------------------- games (eqs. 1-6)


@implements("nock2016.eq3")
def example_adversary(z, row, mu_e):
    """p*(z) = argmin_p sum_i p_i z_i + mu_e sum_i phi_e(p_i)   [nock2016 eq. (3)]; (m,) float64.

    Coordinatewise (phi_e' = 0): I p*_i = 1 / (1 + exp(z_i / mu_e)); II p*_i = (1 - z_i / mu_e) / 2;
    III p*_i = 1[z_i < 0] (any value in [0, 1] at z_i = 0); IV p*_i = 1/2 (dom phi_s(r) = {1/2}).

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
    >>> from reference.losses import example_adversary
    >>> np.round(example_adversary(np.array([1.0, -0.5]), "I", 1.0), 4)
    array([0.2689, 0.6225])
    """
    z, row, mu_e = check_margins(z, row, mu_e, "mu_e")
    out = []
    for zi in z:
        zi = float(zi)
        if row == "I":
            t = zi / mu_e
            out.append(math.exp(-t) / (1.0 + math.exp(-t)) if t >= 0 else 1.0 / (1.0 + math.exp(t)))
        elif row == "II":
            out.append(0.5 * (1.0 - zi / mu_e))
        elif row == "III":
            out.append(1.0 if zi < 0.0 else 0.0)
        else:
            out.append(0.5)
    return np.array(out, dtype=np.float64)


@implements("nock2016.eq4")
def rado_adversary(z, row, mu_r):
    """q*(z) = argmin_{q : 1^T q = 1} sum_J q_J s_J + mu_r sum_J phi_r(q_J)   [nock2016 eq. (4)]; (2^m,) float64, G_m order.

    I q*_J = exp(-s_J / mu_r) / sum_J' exp(-s_J' / mu_r); II q*_J = 2^-m + (E_J s - s_J) / mu_r (may be
    negative: H is a hyperplane); III all mass on the lowest-index argmin of the exact s_J (J- = {i : z_i < 0});
    IV q*_J = 2^-m (the only point of [2^-m, 1/2]^{2^m} on H).

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
    >>> from reference.losses import rado_adversary
    >>> rado_adversary(np.array([1.0, -0.5]), "II", 1.0)
    array([ 0.5,  1. , -0.5,  0. ])
    """
    z, row, mu_r = check_margins(z, row, mu_r, "mu_r", enumerate_subsets=True)
    sums = _subset_sums(z)
    n = len(sums)
    if row == "I":
        log_normaliser = _logsumexp(-s / mu_r for s in sums)
        q = [math.exp(-s / mu_r - log_normaliser) for s in sums]
    elif row == "II":
        mean = math.fsum(sums) / n
        q = [1.0 / n + (mean - s) / mu_r for s in sums]
    elif row == "III":
        exact = _subset_sums(z, exact=True)  # the argmin of the exact sums, not of their roundings
        best = min(range(n), key=lambda c: (exact[c], c))
        q = [1.0 if c == best else 0.0 for c in range(n)]
    else:
        q = [1.0 / n] * n
    return np.array(q, dtype=np.float64)


@implements("nock2016.eq5")
def example_game_value(z, row, mu_e):
    """L_e(z) = L_e(p*(z), z) = sum_i p*_i z_i + mu_e sum_i phi_e(p*_i)   [nock2016 eqs. (1), (5)].

    Closed forms: I -mu_e l_e(z, mu_e); II m mu_e / 2 - (mu_e / 4) l_e(z, mu_e); III sum_i min(0, z_i);
    IV sum_i z_i / 2.

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
    >>> from reference.losses import example_game_value
    >>> example_game_value(np.array([1.0, -0.5]), "III", 1.0)
    -0.5
    """
    z, row, mu_e = check_margins(z, row, mu_e, "mu_e")
    p = example_adversary(z, row, mu_e)
    m = len(z) if row == "IV" else None
    return math.fsum(float(p[i]) * float(z[i]) + mu_e * phi_e(float(p[i]), row, m) for i in range(len(z)))


@implements("nock2016.eq6")
def rado_game_value(z, row, mu_r):
    """L_r(z) = L_r(q*(z), z) = sum_J q*_J s_J + mu_r sum_J phi_r(q*_J)   [nock2016 eqs. (2), (6)].

    Closed forms: I -mu_r log sum_J exp(-s_J / mu_r) - mu_r; II E_J s - 2^m V_J s / (2 mu_r) + mu_r 2^-(m+1);
    III min_J s_J; IV E_J s_J = sum_i z_i / 2.

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
    >>> from reference.losses import rado_game_value
    >>> rado_game_value(np.array([1.0, -0.5]), "IV", 1.0)
    0.25
    """
    z, row, mu_r = check_margins(z, row, mu_r, "mu_r", enumerate_subsets=True)
    m = len(z)
    sums = _subset_sums(z)
    q = rado_adversary(z, row, mu_r)
    return math.fsum(float(q[c]) * sums[c] + mu_r * phi_r(float(q[c]), row, m) for c in range(len(sums)))


# --------------------------------------------------------------------------- Theorem 7


@implements("nock2016.thm7")
def slope_a_e(row, mu_e, *, reading="corrected"):
    """a_e, the slope of f_e(t) = a_e t + b_e in -L_e(z) = f_e(l_e(z))   [nock2016 Table 1 column a_e; eq. (14)].

    reading="corrected" (default): I mu_e, II mu_e / 4, III mu_e, IV mu_e / 2 (from -L_e = -(1/2) sum z_i =
    (mu_e / 2) l_e); reading="printed": Table 1 as printed (IV: mu_e).

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
    >>> from reference.losses import slope_a_e
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
    """l_e(S_e, theta, Omega) = l_e(S_e, theta) + Omega(theta), z_i = theta^T (y_i x_i)   [nock2016 eq. (13)].

    ``edges``: (m, d) edge vectors y_i x_i as ROWS; ``penalty`` = Omega(theta) (a number, e.g. from
    :func:`reference.regularizers.get_regularizer`).

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
    >>> from reference.losses import regularized_example_loss
    >>> from reference.regularizers import lasso
    >>> E, theta = np.array([[1.0, 2.0], [-1.0, 0.5]]), np.array([0.5, 0.5])
    >>> round(regularized_example_loss(E, theta, "I", 1.0, lasso(theta)), 6)
    2.027353
    """
    edges, theta = check_set_and_theta(edges, theta, "edges")
    row = check_row(row)
    mu_e = check_positive(mu_e, "mu_e")
    penalty = check_penalty(penalty)
    d = len(theta)
    z = [math.fsum(float(theta[k]) * float(e[k]) for k in range(d)) for e in edges]
    return example_loss(np.array(z, dtype=np.float64), row, mu_e) + penalty


def _scaled_theta(theta):
    """(M, u, ||u||^2) with M = max_k |theta_k| and u = theta / M (None when theta = 0).

    Working with u keeps ||theta||^2 = M^2 ||u||^2 from underflowing for a tiny theta.
    """
    top = max(abs(float(t)) for t in theta)
    if top == 0.0:
        return None
    u = [float(t) / top for t in theta]
    return top, u, math.fsum(v * v for v in u)


@implements("nock2016.thm7", "nock2016.thm7.margin")
def omega_tilde(theta, penalty, a_e):
    """Omega~(theta) = a_e Omega(theta) / ||theta||_2^2 if theta != 0, else 0   [nock2016 Theorem 7, eq. (15)].

    ``penalty`` = Omega(theta); +inf when the ratio overflows float64 (tiny theta).

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
    >>> from reference.losses import omega_tilde
    >>> omega_tilde(np.array([0.5, 0.5]), 1.0, 1.0)
    2.0
    """
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
    """S_r^{*,Omega,theta} = S_r* (+) {-Omega~(theta) theta}: pi_j - Omega~(theta) theta for every rado (ROW)   [nock2016 eq. (15)].

    ``penalty`` = Omega(theta), ``a_e`` the slope of Table 1 (:func:`slope_a_e`).  theta = 0: the rados.
    The shift is computed as (a_e Omega / M) u / ||u||^2 with u = theta / M, M = max |theta_k|, so that a
    tiny theta does not divide by an underflowed ||theta||^2; ValueError if it still overflows.

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
    >>> from reference.losses import regularized_rados
    >>> regularized_rados(np.array([[1.0, 2.0], [0.0, -1.0]]), np.array([0.5, 0.5]), 1.0, 1.0)
    array([[ 0.,  1.],
           [-1., -2.]])
    """
    rados, theta = check_set_and_theta(rados, theta, "rados")
    penalty = check_penalty(penalty)
    a_e = check_positive_a_e(a_e)
    scaled = _scaled_theta(theta)
    if scaled is None:
        return np.array(rados, dtype=np.float64)
    top, u, norm_u = scaled
    factor = (a_e * penalty) / top / norm_u  # Omega~(theta) * M
    check_shift_finite(factor)
    shift = [factor * v for v in u]  # Omega~(theta) theta_k
    out = [[float(pi[k]) - shift[k] for k in range(len(theta))] for pi in rados]
    return np.array(out, dtype=np.float64).reshape(rados.shape)


@implements("nock2016.eq45")
def regularized_exp_rado_loss(rados, theta, penalty, *, omega=1.0, log=False):
    """l_r^exp(S_r, theta, Omega) = (1/n) sum_j exp(-theta^T pi_j + omega Omega(theta))   [nock2016 SM eq. (45), reconstructed].

    = exp(omega Omega(theta)) F^r_exp(S_r, theta) (nock2015 eq. 2).  ``penalty`` = Omega(theta), ``omega``
    >= 0 the regularization weight of Omega-R.AdaBoost.  log=True returns the log (no overflow); otherwise
    +inf when the value overflows float64.

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
    >>> from reference.losses import regularized_exp_rado_loss
    >>> P, theta = np.array([[1.0, 2.0], [0.0, -1.0]]), np.array([0.5, 0.5])
    >>> round(regularized_exp_rado_loss(P, theta, 1.0), 6), round(regularized_exp_rado_loss(P, theta, 1.0, log=True), 6)
    (2.54411, 0.933781)
    """
    rados, theta = check_set_and_theta(rados, theta, "rados")
    penalty = check_penalty(penalty)
    omega = check_real(omega, "omega", low=0.0)
    if not isinstance(log, bool):
        raise TypeError(f"log must be True or False, got {log!r}")
    value = log_exp_rado_risk(rados, theta) + omega * penalty
    return value if log else _exp(value)
