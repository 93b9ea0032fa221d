"""Rademacher observations (rados), the matrix G_m, and the rado risks   [nock2015 s2, s7].

Readable reference: loops and sums as in the paper (``math.fsum``), numpy only at the boundary.

Conventions (docs/architecture.md "Data conventions"):

* ``X`` is (m, d) float64, one example per ROW; ``y`` is (m,) in {-1, +1}.
* Edge vectors e_i = y_i x_i are ROWS of an (m, d) array (the paper's E in R^{d x m} has them as columns).
* Rados are ROWS of an (n, d) array (the paper's Pi in R^{d x n} has them as columns).
* Signatures are ROWS of an (n, m) int8 array in {-1, +1}.
* G_m is (m, 2^m) uint8 with columns in the order of nock2015 eq. (20).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from spec.links import implements
from spec.validation import (
    as_float_matrix,
    as_float_vector,
    as_generator,
    as_index_set,
    as_labels,
    as_signature_matrix,
    check_enumerable,
    check_int,
    check_open_unit,
    check_positive,
    check_real,
)

__all__ = [
    "edge_vectors",
    "rados",
    "g_matrix",
    "all_rados",
    "sample_signatures",
    "support_sizes",
    "logistic_risk",
    "log_exp_rado_risk",
    "exp_rado_risk",
    "log_rado_risk",
    "logistic_risk_gradient",
    "Theorem3Quantities",
    "theorem3_quantities",
    "theorem3_eq5_bound",
    "theorem3_eq6_q",
]

LOG2 = math.log(2.0)


# --------------------------------------------------------------------------- input helpers


def _examples(X, y):
    """Validated (X, y): X (m, d) finite float64, y (m,) int8 in {-1, +1}."""
    X = as_float_matrix(X, "X")
    y = as_labels(y, "y", length=X.shape[0])
    return X, y


def _dot(u, v) -> float:
    """u . v as an exactly rounded sum (math.fsum)."""
    return math.fsum(float(a) * float(b) for a, b in zip(u, v))


def _logsumexp(values) -> float:
    """log sum_j exp(a_j), shifted by the maximum so that nothing overflows."""
    values = [float(a) for a in values]
    top = max(values)
    return top + math.log(math.fsum(math.exp(a - top) for a in values))


def _softplus(z: float) -> float:
    """log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|))."""
    return max(z, 0.0) + math.log1p(math.exp(-abs(z)))


# --------------------------------------------------------------------------- edge vectors and rados


@implements("nock2015.setup")
def edge_vectors(X, y):
    """e_i = y_i x_i, i in [m]   [nock2015 s2, s7 (columns of E)].

    Returns an (m, d) float64 array whose ROW i is e_i (the paper's E has the e_i as columns).

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations, one per row.
    y : array_like of shape (m,)
        Labels in {-1, +1}.

    Returns
    -------
    numpy.ndarray of shape (m, d)
        The edge vectors, row i = y_i x_i.

    Raises
    ------
    ValueError
        If the shapes disagree, ``X`` is not finite or ``y`` is not in {-1, +1}.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import edge_vectors
    >>> edge_vectors(np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([1, -1]))
    array([[ 1.,  2.],
           [-3.,  1.]])
    """
    X, y = _examples(X, y)
    m, d = X.shape
    E = [[float(y[i]) * float(X[i, k]) for k in range(d)] for i in range(m)]
    return np.array(E, dtype=np.float64).reshape(m, d)


@implements("nock2015.def1")
def rados(X, y, sigmas):
    """pi_sigma = (1/2) sum_i (sigma_i + y_i) x_i   [nock2015 Definition 1].

    ``sigmas`` is (n, m) in {-1, +1}, one signature per ROW; returns (n, d) float64, one rado per ROW.
    (sigma_i + y_i)/2 is y_i when sigma_i = y_i and 0 otherwise, so pi_sigma = sum_{i : sigma_i = y_i} y_i x_i.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations, one per row.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    sigmas : array_like of shape (n, m)
        Signatures in {-1, +1}, one per row.

    Returns
    -------
    numpy.ndarray of shape (n, d)
        The rados, one per row.

    Raises
    ------
    ValueError
        If the shapes disagree or an entry is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import rados
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> y = np.array([1, -1, 1])
    >>> rados(X, y, np.array([[1, 1, 1], [-1, 1, -1]]))
    array([[1., 3.],
           [0., 0.]])
    """
    X, y = _examples(X, y)
    m, d = X.shape
    sigmas = as_signature_matrix(sigmas, "sigmas", m=m)
    out = []
    for sigma in sigmas:
        out.append([
            math.fsum((int(sigma[i]) + int(y[i])) // 2 * float(X[i, k]) for i in range(m)) for k in range(d)
        ])
    return np.array(out, dtype=np.float64).reshape(len(sigmas), d)


@implements("nock2015.eq20")
def g_matrix(m):
    """G_1 = [0 1];  G_m = [[0^T 1^T], [G_{m-1} G_{m-1}]]   [nock2015 eq. (20)].

    Returns (m, 2^m) uint8; column c is the binary expansion of c with the most significant bit in row 1,
    i.e. the indicator of the support J = {i : sigma_i = y_i} of the c-th rado of :func:`all_rados`.

    Parameters
    ----------
    m : int
        Number of examples (>= 1).

    Returns
    -------
    numpy.ndarray of shape (m, 2**m), dtype uint8
        G_m.

    Examples
    --------
    >>> from reference.rados import g_matrix
    >>> g_matrix(2)
    array([[0, 0, 1, 1],
           [0, 1, 0, 1]], dtype=uint8)
    """
    m = check_int(m, "m", minimum=1)
    check_enumerable(2**m, m, "the 2^m columns of G_m")
    G = [[0, 1]]  # G_1
    for _ in range(2, m + 1):
        half = len(G[0])
        top = [0] * half + [1] * half
        G = [top] + [row + row for row in G]
    return np.array(G, dtype=np.uint8).reshape(m, 2**m)


@implements("nock2015.eq21")
def all_rados(X, y):
    """Pi = E G_m (all 2^m rados, U = identity)   [nock2015 eq. (21)].

    Returns (2^m, d) float64: ROW c is the rado whose support is column c of G_m (eq. 20 order).
    Refuses (ValueError) an m whose 2^m rados would not fit in memory.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations, one per row (m small: 2**m rados).
    y : array_like of shape (m,)
        Labels in {-1, +1}.

    Returns
    -------
    numpy.ndarray of shape (2**m, d)
        Every rado, in the column order of G_m.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import all_rados
    >>> all_rados(np.array([[1.0], [2.0]]), np.array([1, -1]))
    array([[ 0.],
           [-2.],
           [ 1.],
           [-1.]])
    """
    X, y = _examples(X, y)
    m, d = X.shape
    check_enumerable(2**m, 8 * d + m, "all 2^m rados", name=f"m = {m} (rows of X)")
    E = edge_vectors(X, y)
    G = g_matrix(m)
    out = []
    for c in range(2**m):
        out.append([math.fsum(float(E[i, k]) for i in range(m) if G[i, c]) for k in range(d)])
    return np.array(out, dtype=np.float64).reshape(2**m, d)


# --------------------------------------------------------------------------- signatures


def _check_support(support, m: int):
    if support is None:
        return None
    return check_int(support, "support", minimum=1, maximum=m)


@implements("nock2015.sampling", "nock2015.eq18")
def sample_signatures(y, n, rng=None, support=None):
    """U = n i.i.d. draws, uniform on Sigma_m, or on Sigma_m^{m*} = {sigma : m_sigma = m*}   [nock2015 s2; eq. (18)].

    ``support=None``: each sigma_i is an independent fair sign (uniform on Sigma_m = {-1,+1}^m).
    ``support=m*`` (1 <= m* <= m): uniform on the fixed-support set of eq. (18), m_sigma = |{i : sigma_i = y_i}| = m*;
    J is a uniform m*-subset of [m] and sigma_i = y_i for i in J, -y_i otherwise.
    Returns (n, m) int8, one signature per ROW.  Draws from ``rng``: ``rng.integers(0, 2, (n, m))`` for the
    uniform case, ``rng.random((n, m))`` for the fixed-support case (J = the m* smallest draws of a row).

    Parameters
    ----------
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    n : int
        Number of signatures (>= 1).
    rng : None, int or numpy.random.Generator, optional
        Seed or generator (non-private randomness).
    support : int, optional
        If given, every signature agrees with ``y`` on exactly ``support`` examples (m_sigma = support).

    Returns
    -------
    numpy.ndarray of shape (n, m), dtype int8
        The signatures, one per row.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import sample_signatures, support_sizes
    >>> y = np.array([1, -1, 1])
    >>> sample_signatures(y, 4, rng=0).shape
    (4, 3)
    >>> support_sizes(y, sample_signatures(y, 5, rng=0, support=1)).tolist()
    [1, 1, 1, 1, 1]
    """
    y = as_labels(y, "y")
    m = len(y)
    n = check_int(n, "n", minimum=1)
    support = _check_support(support, m)
    rng = as_generator(rng)
    if support is None:
        bits = rng.integers(0, 2, size=(n, m))
        out = [[2 * int(bits[j, i]) - 1 for i in range(m)] for j in range(n)]
    else:
        u = rng.random((n, m))
        out = []
        for j in range(n):
            J = set(sorted(range(m), key=lambda i: (float(u[j, i]), i))[:support])
            out.append([int(y[i]) if i in J else -int(y[i]) for i in range(m)])
    return np.array(out, dtype=np.int8).reshape(n, m)


@implements("nock2015.eq18")
def support_sizes(y, sigmas):
    """m_sigma = |{i : sigma_i = y_i}| for each signature (ROW) of ``sigmas``   [nock2015 s5.2, eq. (18)].

    Parameters
    ----------
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    sigmas : array_like of shape (n, m)
        Signatures, one per row.

    Returns
    -------
    numpy.ndarray of shape (n,), dtype int64
        m_sigma for each signature.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import support_sizes
    >>> support_sizes(np.array([1, -1, 1]), np.array([[1, 1, 1], [-1, 1, -1]]))
    array([2, 0])
    """
    y = as_labels(y, "y")
    sigmas = as_signature_matrix(sigmas, "sigmas", m=len(y))
    return np.array([sum(1 for i in range(len(y)) if sigma[i] == y[i]) for sigma in sigmas], dtype=np.int64)


# --------------------------------------------------------------------------- risks


@implements("nock2015.eq1", "nock2015.lemma2")
def logistic_risk(X, y, theta):
    """F_log(S, theta) = (1/m) sum_i log(1 + exp(-y_i theta . x_i))   [nock2015 eq. (1)].

    Stable softplus: finite for every finite margin.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The logistic risk.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import logistic_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> round(logistic_risk(X, np.array([1, -1, 1]), np.array([0.5, -0.25])), 6)
    1.143104
    """
    X, y = _examples(X, y)
    m, d = X.shape
    theta = as_float_vector(theta, "theta", length=d)
    return math.fsum(_softplus(-float(y[i]) * _dot(theta, X[i])) for i in range(m)) / m


def _rados_theta(rados, theta):
    rados = as_float_matrix(rados, "rados")
    theta = as_float_vector(theta, "theta", length=rados.shape[1])
    return rados, theta


@implements("nock2015.eq2")
def log_exp_rado_risk(rados, theta):
    """log F^r_exp(S, theta, U) = log((1/n) sum_{sigma in U} exp(-theta . pi_sigma))   [nock2015 eq. (2)].

    ``rados`` is (n, d), one rado per ROW (U as a multiset: repeated rows count with multiplicity).
    Computed as a shifted log-sum-exp: finite for every finite input.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The log of the exponential rado risk.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import all_rados, log_exp_rado_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> P = all_rados(X, np.array([1, -1, 1]))
    >>> round(log_exp_rado_risk(P, np.array([0.5, -0.25])), 6)
    1.349869
    """
    rados, theta = _rados_theta(rados, theta)
    n = rados.shape[0]
    return _logsumexp(-_dot(theta, pi) for pi in rados) - math.log(n)


@implements("nock2015.eq2")
def exp_rado_risk(rados, theta):
    """F^r_exp(S, theta, U) = (1/n) sum_{sigma in U} exp(-theta . pi_sigma)   [nock2015 eq. (2)].

    ``rados`` is (n, d), one rado per ROW.  Evaluated as exp(log_exp_rado_risk): returns ``inf`` only when the
    true value exceeds the largest float64 (about 1.8e308); use :func:`log_exp_rado_risk` in that regime.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The exponential rado risk.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import all_rados, exp_rado_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> P = all_rados(X, np.array([1, -1, 1]))
    >>> round(exp_rado_risk(P, np.array([0.5, -0.25])), 6)
    3.856921
    """
    log_value = log_exp_rado_risk(rados, theta)
    try:
        return math.exp(log_value)
    except OverflowError:
        return math.inf


@implements("nock2015.eq4")
def log_rado_risk(rados, theta, m):
    """F^r_log(S, theta, U) = log 2 + (1/m) log F^r_exp(S, theta, U)   [nock2015 eq. (4)].

    ``rados`` (n, d), one rado per ROW; ``m`` the number of examples the rados were built from.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.
    m : int
        Number of examples the rados were built from.

    Returns
    -------
    float
        The log-rado risk; over ALL 2**m rados it equals the logistic risk (nock2015 Lemma 2).

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import all_rados, log_rado_risk, logistic_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> y, theta = np.array([1, -1, 1]), np.array([0.5, -0.25])
    >>> bool(np.isclose(log_rado_risk(all_rados(X, y), theta, 3), logistic_risk(X, y, theta)))
    True
    """
    m = check_int(m, "m", minimum=1)
    return LOG2 + log_exp_rado_risk(rados, theta) / m


def _sigmoid_neg(z: float) -> float:
    """1 / (1 + exp(z)) without overflow."""
    if z >= 0:
        t = math.exp(-z)
        return t / (1.0 + t)
    return 1.0 / (1.0 + math.exp(z))


@implements("nock2015.eq7")
def logistic_risk_gradient(X, y, theta):
    """grad_theta F_log(S, theta) = -(1/m) sum_i y_i x_i / (1 + exp(y_i theta . x_i))   [nock2015 eq. (7), via Lemma 2].

    By Lemma 2 this is also grad_theta F^r_log(S, theta, Sigma_m).  Returns (d,) float64.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    numpy.ndarray of shape (d,)
        The gradient of the logistic risk.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import logistic_risk_gradient
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> np.round(logistic_risk_gradient(X, np.array([1, -1, 1]), np.array([0.5, -0.25])), 4)
    array([ 0.6853, -0.8047])
    """
    X, y = _examples(X, y)
    m, d = X.shape
    theta = as_float_vector(theta, "theta", length=d)
    weights = [_sigmoid_neg(float(y[i]) * _dot(theta, X[i])) for i in range(m)]
    grad = [-math.fsum(weights[i] * float(y[i]) * float(X[i, k]) for i in range(m)) / m for k in range(d)]
    return np.array(grad, dtype=np.float64)


# --------------------------------------------------------------------------- Theorem 3


@dataclass(frozen=True)
class Theorem3Quantities:
    """The quantities of nock2015 Theorem 3 (eqs. 5-8) for one theta, one S and one Sigma_r.

    log_rho:        log rho, rho = sup_{||theta'|| < r_theta} max_{sigma in Sigma_r} exp(-theta'.pi_sigma) / F^r_exp(S,theta,Sigma_r)
                    (closed form: the sup is exp(r_theta max_{Sigma_r} ||pi_sigma||_2), a supremum on the open ball).
    rho_prime:      rho' = F^r_exp(S, theta, Sigma_r) / F^r_exp(S, theta, Sigma_m).
    Q:              Q = -(1/m) log rho'  (so F_log(S,theta) = F^r_log(S,theta,Sigma_r) + Q exactly).
    grad_norm:      ||grad_theta F^r_log(S, theta, Sigma_m)||_2 = ||grad F_log(S, theta)||_2 (Lemma 2).
    pibar_r:        || E_{sigma ~ Sigma_r} [pi_sigma / m] ||_2 (uniform over Sigma_r).
    pistar_r:       max_{sigma in Sigma_r} ||pi_sigma / m||_2 (eq. 8).
    eq7_bound:      r_theta (||grad|| + pibar_r)      -- eq. (7), parenthesised (the reading that holds).
    eq7_literal:    r_theta ||grad|| + pibar_r        -- eq. (7) as extracted (registered false).

    Parameters
    ----------
    r_theta : float
        Radius r_theta (default: ||theta||_2).
    log_rho : float
        log rho of eq. (5).
    rho_prime : float
        rho' = F^r_exp(S, theta, Sigma_r) / F^r_exp(S, theta, Sigma_m).
    Q : float
        Q = -(1/m) log rho'.
    grad_norm : float
        ||grad F_log(S, theta)||_2.
    pibar_r : float
        || mean over Sigma_r of pi_sigma / m ||_2.
    pistar_r : float
        max over Sigma_r of ||pi_sigma / m||_2 (eq. 8).
    eq7_bound : float
        r_theta (||grad|| + pibar_r), eq. (7) parenthesised (the reading that holds).
    eq7_literal : float
        r_theta ||grad|| + pibar_r, eq. (7) as extracted.
    """

    r_theta: float
    log_rho: float
    rho_prime: float
    Q: float
    grad_norm: float
    pibar_r: float
    pistar_r: float
    eq7_bound: float
    eq7_literal: float


def _norm(v) -> float:
    return math.sqrt(math.fsum(float(a) * float(a) for a in v))


@implements("nock2015.thm3.rho", "nock2015.thm3.qid", "nock2015.eq7", "nock2015.eq8")
def theorem3_quantities(X, y, theta, support_rows, r_theta=None):
    """rho, rho' = F^r_exp(Sigma_r)/F^r_exp(Sigma_m), Q = -(1/m) log rho', and eq. (7)   [nock2015 Theorem 3, eqs. (5)-(8)].

    ``support_rows``: the strategic set Sigma_r as column indices into G_m (rows of :func:`all_rados`), distinct,
    in [0, 2^m).  ``r_theta``: radius of the ball Theta containing theta (default ||theta||_2; must be >= it).
    Requires m small enough to enumerate Sigma_m.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    theta : array_like of shape (d,)
        Linear classifier.
    support_rows : array_like of int
        Sigma_r as distinct column indices of G_m, in [0, 2**m).
    r_theta : float, optional
        Radius of the ball (default: ||theta||_2).

    Returns
    -------
    Theorem3Quantities
        rho, rho', Q, the gradient norm and the eq. (7) bound.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import theorem3_quantities
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> q = theorem3_quantities(X, np.array([1, -1, 1]), np.array([0.5, -0.25]), np.arange(8))
    >>> q.Q == 0.0  # Sigma_r = Sigma_m: rho' = 1
    True
    """
    X, y = _examples(X, y)
    m, d = X.shape
    theta = as_float_vector(theta, "theta", length=d)
    rows = _support_rows(support_rows, m)
    r_theta = _radius(r_theta, theta)
    Pi_m = all_rados(X, y)
    Pi_r = [Pi_m[c] for c in rows]
    log_F_m = log_exp_rado_risk(Pi_m, theta)
    log_F_r = log_exp_rado_risk(np.array(Pi_r), theta)
    log_rho_prime = log_F_r - log_F_m
    Q = -log_rho_prime / m
    max_norm = max(_norm(pi) for pi in Pi_r)
    log_rho = r_theta * max_norm - log_F_r
    grad_norm = _norm(logistic_risk_gradient(X, y, theta))
    mean_pi = [math.fsum(float(pi[k]) for pi in Pi_r) / (len(Pi_r) * m) for k in range(d)]
    pibar_r = _norm(mean_pi)
    pistar_r = max_norm / m
    return Theorem3Quantities(
        r_theta=r_theta,
        log_rho=log_rho,
        rho_prime=math.exp(log_rho_prime),
        Q=Q,
        grad_norm=grad_norm,
        pibar_r=pibar_r,
        pistar_r=pistar_r,
        eq7_bound=r_theta * (grad_norm + pibar_r),
        eq7_literal=r_theta * grad_norm + pibar_r,
    )


def _support_rows(support_rows, m: int):
    return [int(c) for c in as_index_set(support_rows, "support_rows", 2**m)]


def _radius(r_theta, theta) -> float:
    norm = _norm(theta)
    if r_theta is None:
        return norm
    r_theta = check_positive(r_theta, "r_theta")
    if r_theta < norm * (1 - 1e-12):
        raise ValueError(f"r_theta must be >= ||theta||_2 (Theta lies inside B(0, r_theta)), got {r_theta!r}")
    return r_theta


@implements("nock2015.eq5")
def theorem3_eq5_bound(log_rado_risk_U, Q, m, n, q):
    """F^r_log(S,theta,U) + Q - (1/m) log(1 - q / sqrt(n))   [nock2015 Theorem 3, eq. (5)].

    Returns the right-hand side of eq. (5) for the given constants; ``inf`` when q >= sqrt(n) (the bound is
    vacuous there).  ``q`` is the eq. (6) quantity, whose constant the paper hides in Omega(.): pass your own.

    Parameters
    ----------
    log_rado_risk_U : float
        F^r_log(S, theta, U) on the sampled rados.
    Q : float
        Q of :func:`theorem3_quantities`.
    m : int
        Number of examples.
    n : int
        Number of rados.
    q : float
        The eq. (6) quantity (see :func:`theorem3_eq6_q`).

    Returns
    -------
    float
        The right-hand side of eq. (5) (inf when q >= sqrt(n)).

    Examples
    --------
    >>> from reference.rados import theorem3_eq5_bound
    >>> round(theorem3_eq5_bound(0.7, 0.1, 3, 8, 1.0), 6)
    0.945422
    >>> theorem3_eq5_bound(0.7, 0.1, 3, 4, 2.0)
    inf
    """
    log_rado_risk_U = check_real(log_rado_risk_U, "log_rado_risk_U")
    Q = check_real(Q, "Q")
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=1)
    q = check_real(q, "q", low=0.0)
    ratio = q / math.sqrt(n)
    if ratio >= 1.0:
        return math.inf
    return log_rado_risk_U + Q - math.log1p(-ratio) / m


@implements("nock2015.eq6")
def theorem3_eq6_q(log_rho, r_theta, pi_max_norm, d, n, eta, constant=1.0):
    """q = c rho (r_theta max_{Sigma_r} ||pi_sigma||_2 + sqrt(d log(2en/d) + log(1/eta)))   [nock2015 Theorem 3, eq. (6)].

    The paper writes q = Omega(...): ``constant`` is the hidden factor c (default 1).  ``log_rho`` is log rho (as
    in Theorem3Quantities; rho itself overflows easily).  The radicand is clamped at 0 when n < d/(2e) makes the
    VC term negative.  Returns ``inf`` only if q exceeds the float64 range.

    Parameters
    ----------
    log_rho : float
        log rho (see :class:`Theorem3Quantities`).
    r_theta : float
        Radius r_theta.
    pi_max_norm : float
        max over Sigma_r of ||pi_sigma||_2.
    d : int
        Dimension.
    n : int
        Number of rados.
    eta : float
        Confidence parameter in (0, 1).
    constant : float, default=1.0
        The hidden factor c of the Omega().

    Returns
    -------
    float
        q.

    Examples
    --------
    >>> from reference.rados import theorem3_eq6_q
    >>> round(theorem3_eq6_q(0.0, 1.0, 2.0, 2, 8, 0.1), 6)
    4.90886
    """
    log_rho = check_real(log_rho, "log_rho")
    r_theta = check_real(r_theta, "r_theta", low=0.0)
    pi_max_norm = check_real(pi_max_norm, "pi_max_norm", low=0.0)
    d = check_int(d, "d", minimum=1)
    n = check_int(n, "n", minimum=1)
    eta = check_open_unit(eta, "eta")
    constant = check_positive(constant, "constant")
    radicand = d * math.log(2.0 * math.e * n / d) + math.log(1.0 / eta)
    width = r_theta * pi_max_norm + math.sqrt(max(radicand, 0.0))
    log_q = math.log(constant) + log_rho + (math.log(width) if width > 0 else -math.inf)
    try:
        return math.exp(log_q)
    except OverflowError:
        return math.inf


# Lemma 9 and the Hausdorff distance live in reference.reconstruction; importable from here too.
def __getattr__(name):  # lazy re-export (reconstruction imports this module)
    if name in ("recover_edge_vectors", "hausdorff_distance"):
        from reference import reconstruction

        return getattr(reconstruction, name)
    raise AttributeError(name)
