"""Private boosting (bun2020), fast: numpy; same public names and semantics as :mod:`reference.private_boosting`
(read its docstring for the conventions A1, A8, A9, sgn(0) = +1 and the discrete-Gaussian grid).

One round of :func:`lazy_bregman_boost` costs two passes over X (the centroid (mu^ y)^T X and the margins X z~),
one exp pass and a few (3-12 in practice) O(n) passes of the fixed-point capped scaling for the projection
(:func:`fast.measures.project_dense_log`; a sort only as its fallback) and d exact
discrete-Gaussian draws (:func:`fast.mechanisms.sample_discrete_gaussian`, the same words as the reference).
The cumulative gains L are cached across rounds (L is a deterministic function of (S, H): Alg. 3 is stateless).
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from fast import _boosting_kernels as _K
from fast import mechanisms as _mechanisms
from fast._exact_sum import checked_fsum, fsum as _exact_fsum
from fast.measures import _project_owned, project_dense_log
from fast._contracts.boosting_contract import (
    BoostResult,
    SmoothBoostResult,
    CentroidGrid,
    as_gains,
    as_sample,
    as_stump_sample,
    as_weights_for,
    charge_run_rho,
    check_grid_inflation,
    check_noisy_max_budget,
    check_kappa,
    check_lam,
    check_lam_rule,
    check_rounds,
    check_sigma,
    check_unit,
    run_basic_privacy,
    UNIT_BALL_SLACK,
)
from fast._contracts.budget_ledger import charge_release, outer_label, private_release
from fast._contracts.links import implements
from fast._contracts.validation import (
    as_float_matrix,
    as_float_vector,
    as_generator,
    as_labels,
    check_int,
    check_positive,
    check_real,
)

__all__ = [
    "game_loss",
    "lb_nxm",
    "centroid",
    "centroid_sensitivity",
    "centroid_grid",
    "centroid_run_grid",
    "noisy_centroid",
    "weak_learner_rho",
    "stump_scores",
    "stump_sensitivity",
    "smoothboost_sensitivity",
    "noisy_max_epsilon",
    "report_noisy_max",
    "noisy_stump",
    "boost",
    "lazy_bregman_boost",
    "hsstl_parameters",
    "hsstl_rho",
    "hsstl_privacy",
    "hsstl_n_min",
    "margin_lower_bound",
    "pythia",
    "sb_nxm",
    "smoothboost_privacy",
    "smooth_boost",
]

CENTROID_GRID_BITS = 11


#: the run's grid rounds the d coordinates by at most Delta 2^-CENTROID_RUN_INFLATION_BITS in L2: rho within
#: (1 + 2^-8)^2 = 1.0078 of the continuous Delta^2 / (2 sigma^2)
CENTROID_RUN_INFLATION_BITS = 8


def _floor_log2(q: Fraction) -> int:
    """floor(log2 q), q > 0, exactly."""
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    while Fraction(2) ** e > q:
        e -= 1
    return e


def _run_grid_exponent(s: float, delta_s: float, dim: int) -> int:
    """k = min(floor(log2 sigma) - 11, the largest k with 2^k sqrt(d) <= Delta 2^-8), exactly (4^k d <= Delta^2 2^-16)."""
    k_sigma = math.frexp(s)[1] - 1 - CENTROID_GRID_BITS
    k_delta = _floor_log2(Fraction(delta_s) ** 2 / (dim * 2 ** (2 * CENTROID_RUN_INFLATION_BITS))) // 2
    return min(k_sigma, k_delta)


def _float_up(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def _loss(h: np.ndarray, y: np.ndarray) -> np.ndarray:
    return 1.0 - np.abs(np.clip(h, -1.0, 1.0) - y) / 2.0


# Fused contracts (issue 15).  The contract of spec.boosting_contract reads the data once per rule (finiteness, labels,
# row norms, the weights' exact sum over a Python list) before the function's own pass.  Where the arrays already
# have the layout the compiled passes read (float64 C-contiguous data, float64 weights, plain integer or float
# labels), the rules are tested inside the function's one pass (fast._boosting_kernels, fast._exact_sum); any
# failure, or any other layout, runs the contract itself, which raises its own error in its own order (or, for a
# row within rounding of the unit sphere, decides with its own norms).

#: label dtypes the compiled passes read as they are (one compiled variant each)
_LABEL_DTYPES = frozenset(np.dtype(t) for t in (np.int8, np.int32, np.int64, np.float64))


def _label_array(y, n: int):
    """y as an ndarray the compiled passes read (1-d, n entries, a dtype of _LABEL_DTYPES), else None."""
    if isinstance(y, (str, bytes)) or y is None:
        return None
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] != n or arr.dtype not in _LABEL_DTYPES or not arr.flags.c_contiguous:
        return None
    return arr


def _distribution(mu_hat, n: int):
    """mu_hat when it passes ``as_weights_for(mu_hat, n)`` (finite float64, >= 0, exact sum within 1e-9 of 1, n
    entries), tested in one exact-sum pass (fast._exact_sum.checked_fsum: the contract's math.fsum, bit for bit);
    else None."""
    if isinstance(mu_hat, (str, bytes)) or mu_hat is None:
        return None
    arr = np.asarray(mu_hat)
    if arr.dtype != np.float64 or arr.ndim != 1 or arr.shape[0] != n or not arr.flags.c_contiguous:
        return None
    total, ok = checked_fsum(arr, 0.0, math.inf)
    if not ok or abs(total - 1.0) > 1e-9:
        return None
    return arr


@implements("bun2020.eq4", "bun2020.si.game")
def game_loss(h_values, y) -> np.ndarray:
    """l(i) = 1 - |clip(h(x_i)) - y_i| / 2   [bun2020 App. I, eq. (4)]

    Parameters
    ----------
    h_values : array-like of shape (n,)
        h(x_i) (any reals: clipped to [-1, 1], ambiguity A9).
    y : array-like of shape (n,)
        Labels in {-1, +1}.

    Returns
    -------
    ndarray of shape (n,)
        Values in [0, 1].

    Raises
    ------
    ValueError, TypeError
        Bad values or labels.

    Examples
    --------
    >>> from fast.private_boosting import game_loss
    >>> game_loss([0.5, -2.0], [1, 1])
    array([0.75, 0.  ])
    """
    h = as_float_matrix(h_values, "h_values", ndim=1, check_finite=False)
    labels = _label_array(y, h.shape[0])
    if labels is not None and h.flags.c_contiguous:  # one pass: the loss, h finite, y in {-1, +1}
        out = np.empty(h.shape[0])
        if _K.game_loss_pass(h, labels, out) == _K.OK:
            return out
    h = as_float_vector(h, "h_values")
    labels = as_labels(y, "y", length=h.shape[0])
    return _loss(h, labels)


@implements("bun2020.alg3", "bun2020.alg7", "bun2020.alg9")
def lb_nxm(gains, kappa, lam) -> np.ndarray:
    """mu = Pi_{Gamma_kappa}(kappa exp(-lam L))   [bun2020 Alg. 3]

    Parameters
    ----------
    gains : array-like of shape (n,)
        Cumulative gains L(i) >= 0.
    kappa : float in (0, 1)
        Target density.
    lam : float > 0
        Learning rate.

    Returns
    -------
    ndarray of shape (n,)
        The measure mu (|mu| = kappa n); the weak learner gets mu / |mu| (max <= 1/(kappa n)).

    Raises
    ------
    ValueError, TypeError
        Negative gains, kappa outside (0, 1), lam <= 0.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.private_boosting import lb_nxm
    >>> lb_nxm(np.array([0.0, 1.0, 2.0, 3.0]), 0.5, 1.0)
    array([1.        , 0.66524096, 0.24472847, 0.09003057])
    """
    L = as_gains(gains)
    k = check_kappa(kappa)
    rate = check_lam(lam)
    log_k = math.log(k)

    def make_w():  # <= log kappa < 0 and never NaN (L finite, >= 0): already a valid log measure
        w = np.multiply(L, -rate)
        w += log_k
        return w

    return _project_owned(make_w, k)


@implements("bun2020.s5.2.wl")
def centroid(X, y, mu_hat) -> np.ndarray:
    """z = sum_i mu^(i) y_i x_i   [bun2020 Section 5.2]

    Parameters
    ----------
    X : array-like of shape (n, d)
        Rows in the unit L2 ball.
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    mu_hat : array-like of shape (n,)
        A distribution over the examples.

    Returns
    -------
    ndarray of shape (d,)

    Raises
    ------
    ValueError, TypeError
        Rows outside the unit ball, bad labels, mu_hat not a distribution.

    Examples
    --------
    >>> from fast.private_boosting import centroid
    >>> centroid([[0.5, 0.0], [0.0, 0.5]], [1, -1], [0.5, 0.5])
    array([ 0.25, -0.25])
    """
    Xa = as_float_matrix(X, "X", check_finite=False)  # the contract's first rules (type, shape): its first errors
    n, d = Xa.shape
    if Xa.flags.c_contiguous:
        labels = _label_array(y, n)
        w = None if labels is None else _distribution(mu_hat, n)
        if w is not None:  # one read of X: the product, the labels and the unit ball (finiteness with it)
            z = np.zeros(d)
            if _K.centroid_pass(Xa, w, labels, _K.unit_ball_limit(UNIT_BALL_SLACK, d), z) == _K.OK:
                return z
    Xa, labels = as_sample(Xa, y)
    w = as_weights_for(mu_hat, n)
    return (w * labels) @ Xa


@implements("bun2020.thm22")
def centroid_sensitivity(n, kappa, zeta=None) -> float:
    """Delta_2 = 2 (1/(kappa n) + zeta), zeta = 1/(kappa n) by default   [bun2020 Thm 22]

    Parameters
    ----------
    n : int >= 1
    kappa : float in (0, 1)
    zeta : float >= 0 or None
        Slickness of the measure; None: 1/(kappa n) (Lemma 21).

    Returns
    -------
    float
        Rounded up.

    Raises
    ------
    ValueError, TypeError
        Bad n, kappa or zeta.

    Examples
    --------
    >>> from fast.private_boosting import centroid_sensitivity
    >>> centroid_sensitivity(1000, 0.25)
    0.016
    """
    m = check_int(n, "n", minimum=1)
    k = check_kappa(kappa)
    z = Fraction(1) / (Fraction(k) * m) if zeta is None else Fraction(check_real(zeta, "zeta", low=0.0))
    return _float_up(2 * (Fraction(1) / (Fraction(k) * m) + z))


def centroid_grid(sigma, sensitivity, d) -> CentroidGrid:
    """2^k = 2^(floor(log2 sigma) - 11), s2 = ceil((sigma/2^k)^2), Delta' = Delta + 2^k sqrt(d),
    rho = Delta'^2 / (2 s2 4^k)   [CKS20 on the grid]

    Parameters
    ----------
    sigma : float > 0
        Target noise standard deviation.
    sensitivity : float > 0
        L2 sensitivity before rounding.
    d : int >= 1
        Dimension.

    Returns
    -------
    spec.boosting_contract.CentroidGrid

    Raises
    ------
    ValueError, TypeError
        Non-positive sigma or sensitivity, d < 1.

    Examples
    --------
    >>> from fast.private_boosting import centroid_grid
    >>> g = centroid_grid(0.01, 0.016, 3)
    >>> g.k, g.sigma2_grid, g.rho > 0.016**2 / (2 * 0.01**2)
    (-18, 6871948, True)
    """
    return _centroid_grid(check_positive(sigma, "sigma"), check_positive(sensitivity, "sensitivity"),
                          check_int(d, "d", minimum=1))


@functools.lru_cache(maxsize=1024)
def _centroid_grid(s: float, delta_s: float, dim: int) -> CentroidGrid:
    """centroid_grid of validated arguments, memoised (its Fraction arithmetic costs ~0.1 ms; a run calls it with
    the same arguments every round, and the result is frozen)."""
    k = math.frexp(s)[1] - 1 - CENTROID_GRID_BITS
    lam = Fraction(2) ** k
    s2 = math.ceil((Fraction(s) / lam) ** 2)
    inflated = math.nextafter(delta_s + float(lam) * math.sqrt(dim) * (1 + 2**-50), math.inf)
    rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))
    return CentroidGrid(k=k, granularity=math.ldexp(1.0, k), sigma2_grid=s2, sensitivity_inflated=inflated, rho=rho)


def centroid_run_grid(sigma, sensitivity, d) -> CentroidGrid:
    """The grid of :func:`lazy_bregman_boost`'s releases: 2^k = min(2^(floor(log2 sigma) - 11), the largest power of
    two with 2^k sqrt(d) <= Delta 2^-8); s2, Delta', rho as :func:`centroid_grid`   [CKS20 on the grid; issue 25]

    Public (sigma, Delta = 4/(kappa n), d); rho within (1 + 2^-8)^2 = 1.0078 of the continuous Delta^2 / (2 sigma^2)
    at every n; s2 beyond 2^24 is drawn by the exact big-integer sampler (see the reference).

    Parameters
    ----------
    sigma : float > 0
        Target noise standard deviation.
    sensitivity : float > 0
        L2 sensitivity before rounding.
    d : int >= 1
        Dimension.

    Returns
    -------
    spec.boosting_contract.CentroidGrid

    Raises
    ------
    ValueError, TypeError
        Non-positive sigma or sensitivity, d < 1.

    Examples
    --------
    >>> from fast.private_boosting import centroid_run_grid
    >>> g = centroid_run_grid(0.0003037, 9.24e-8, 1)  # HS-StL at the paper's n: 2^-32, s2 ~ 2^40
    >>> g.k, g.rho / (9.24e-8 ** 2 / (2 * 0.0003037 ** 2)) < 1.01
    (-32, True)
    """
    return _centroid_run_grid(check_positive(sigma, "sigma"), check_positive(sensitivity, "sensitivity"),
                              check_int(d, "d", minimum=1))


@functools.lru_cache(maxsize=1024)
def _centroid_run_grid(s: float, delta_s: float, dim: int) -> CentroidGrid:
    k = _run_grid_exponent(s, delta_s, dim)
    lam = Fraction(2) ** k
    s2 = math.ceil((Fraction(s) / lam) ** 2)
    inflated = _float_up(Fraction(delta_s) + lam * Fraction(math.sqrt(dim)) * (1 + Fraction(1, 2**50)))
    rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))
    return CentroidGrid(k=k, granularity=math.ldexp(1.0, k), sigma2_grid=s2, sensitivity_inflated=inflated, rho=rho)


def _release(z: np.ndarray, sigma: float, gen, grid: CentroidGrid | None = None) -> np.ndarray:
    """2^k (round(z / 2^k) + Y), Y ~ N_Z(0, s2)^d, on ``grid`` (None: :func:`centroid_grid`'s, as noisy_centroid),
    rounded exactly (``fast.mechanisms``' release: exact for any magnitude, the path chosen by k alone)."""
    grid = centroid_grid(sigma, 1.0, z.shape[0]) if grid is None else grid
    noise = _mechanisms.sample_discrete_gaussian(grid.sigma2_grid, size=z.shape[0], rng=gen)
    x = np.ascontiguousarray(z, dtype=np.float64)
    if noise.dtype == object:  # s2 > 2^100 (public): Python ints, exact Fractions
        return _mechanisms._release_exact(x, grid.k, noise)
    return _mechanisms._release(x, z.shape, grid.k, noise)


def _normalized(z: np.ndarray) -> np.ndarray:
    norm = math.sqrt(math.fsum(z * z))
    return z / norm if norm > 0 else np.zeros_like(z)


@implements("bun2020.s5.2.wl")
def noisy_centroid(X, y, mu_hat, sigma, *, rng=None, normalize=False) -> np.ndarray:
    """z~ = 2^k (round(z / 2^k) + Y), Y ~ N_Z(0, s2)^d; sigma = 0: Servedio's non-private z   [bun2020 s5.2]

    Parameters
    ----------
    X, y, mu_hat
        As :func:`centroid`.
    sigma : float >= 0
        Noise standard deviation (0: the non-private learner).
    rng : None, int or numpy.random.Generator
        Generator of the PRIVATE noise (None: OS-keyed words; a seed only in tests).
    normalize : bool
        Release z~ / ||z~|| (Servedio's form) instead of z~ (as printed).

    Returns
    -------
    ndarray of shape (d,)

    Raises
    ------
    ValueError, TypeError
        Bad inputs (see :func:`centroid`), sigma < 0, normalize not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.private_boosting import noisy_centroid
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2]])
    >>> noisy_centroid(X, [1, -1], [0.5, 0.5], 0.0)  # sigma = 0: the non-private centroid
    array([ 0.45, -0.05])
    >>> noisy_centroid(X, [1, -1], [0.5, 0.5], 0.05, rng=0).shape
    (2,)
    """
    z = centroid(X, y, mu_hat)
    s = check_sigma(sigma)
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be a bool, got {type(normalize).__name__}")
    if s > 0.0:
        z = _release(z, s, rng)
    return _normalized(z) if normalize else z


@implements("bun2020.thm22", "bun2020.thm26.rho")
def weak_learner_rho(n, kappa, sigma, d) -> float:
    """rho of one noisy centroid release at Delta = 4/(kappa n) on the grid; +inf at sigma = 0   [bun2020 Thm 22]

    Parameters
    ----------
    n : int >= 1
    kappa : float in (0, 1)
    sigma : float >= 0
    d : int >= 1

    Returns
    -------
    float
        The zCDP parameter of one release (+inf at sigma = 0: not private).

    Raises
    ------
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from fast.private_boosting import weak_learner_rho
    >>> weak_learner_rho(1000, 0.25, 0.0, 3), round(weak_learner_rho(1000, 0.25, 0.05, 3), 4)
    (inf, 0.0514)
    """
    delta_s = centroid_sensitivity(n, kappa)
    s = check_sigma(sigma)
    dim = check_int(d, "d", minimum=1)
    if s == 0.0:
        return math.inf
    return centroid_run_grid(s, delta_s, dim).rho


def _sorted_stump_scores(X: np.ndarray, v: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """q[j, t] = sum_i v_i (+1 if x_ij > thr[j, t] else -1) = total - 2 * (sum of v over x_ij <= thr[j, t]), by one
    sort of each feature (O(d n log n + d m log n): the method for more thresholds than examples)."""
    n, d = X.shape
    total = float(np.sum(v))
    out = np.empty(thr.shape)
    for j in range(d):
        order = np.argsort(X[:, j], kind="stable")
        xs = X[order, j]
        cum = np.concatenate(([0.0], np.cumsum(v[order])))
        out[j] = total - 2.0 * cum[np.searchsorted(xs, thr[j], side="right")]
    return out


def _bucket_stump_scores(X: np.ndarray, v: np.ndarray, thr: np.ndarray):
    """The same scores from one read of X (C-contiguous): v summed into the m + 1 buckets the sorted thresholds cut
    each feature into (fast._boosting_kernels.stump_buckets: O(d n) comparisons for few thresholds, O(d n log m)
    otherwise), then total - 2 * the cumulative bucket sums, put back in the grid's order.  None when X holds a
    non-finite value (the caller runs the contract)."""
    d, m = thr.shape
    perm = np.argsort(thr, axis=1, kind="stable")
    ts = np.take_along_axis(thr, perm, axis=1)
    B = np.zeros((d, m + 1))
    if _K.stump_buckets(X, v, ts, B, m <= _K.LINEAR_THRESHOLDS) != _K.OK:
        return None
    total = float(np.sum(v))
    q = np.empty((d, m))
    np.put_along_axis(q, perm, total - 2.0 * np.cumsum(B[:, :m], axis=1), axis=1)
    return q


def _stump_scores(X: np.ndarray, v: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """Scores of validated inputs, by the method the number of thresholds m calls for: buckets up to m = n (one
    read of X), one sort per feature beyond (sorting m > n thresholds would cost more than sorting the column)."""
    if thr.shape[1] <= X.shape[0]:
        q = _bucket_stump_scores(np.ascontiguousarray(X), v, thr)
        if q is not None:
            return q
    return _sorted_stump_scores(X, v, thr)


def _finite_grid(thresholds, d: int):
    """thresholds as a finite float64 (d, m) matrix, m >= 1, when it passes the contract's rules, else None."""
    if isinstance(thresholds, (str, bytes)) or thresholds is None:
        return None
    thr = np.asarray(thresholds)
    if thr.dtype != np.float64 or thr.ndim != 2 or thr.shape[0] != d or thr.shape[1] == 0 \
            or not np.isfinite(thr).all():
        return None
    return thr


@implements("bun2020.s5.stump")
def stump_scores(X, y, mu_hat, thresholds) -> np.ndarray:
    """q(j, t) = sum_i mu^(i) y_i h_{j,t}(x_i), h_{j,t}(x) = +1 if x_j > thr[j, t] else -1   [stump weak learner]

    Parameters
    ----------
    X : array-like of shape (n, d)
        Finite features (any reals).
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    mu_hat : array-like of shape (n,)
        A distribution over the examples (the normalised LB-NxM measure).
    thresholds : array-like of shape (d, m)
        The data-independent threshold grid.

    Returns
    -------
    ndarray of shape (d, m)
        Scores in [-1, 1]; the stump with sign -1 scores -q.

    Raises
    ------
    ValueError, TypeError
        Bad data, labels, distribution or grid shape.

    Examples
    --------
    >>> from fast.private_boosting import stump_scores
    >>> stump_scores([[0.0], [1.0]], [-1, 1], [0.5, 0.5], [[0.5]])
    array([[1.]])
    """
    Xa = as_float_matrix(X, "X", check_finite=False)  # the contract's first rules (type, shape): its first errors
    n, d = Xa.shape
    thr = _finite_grid(thresholds, d)
    labels = _label_array(y, n)
    if Xa.flags.c_contiguous and thr is not None and labels is not None and thr.shape[1] <= n:
        w = _distribution(mu_hat, n)
        if w is not None:
            v = np.empty(n)
            if _K.signed_weights(w, labels, v) == _K.OK:
                q = _bucket_stump_scores(Xa, v, thr)  # X's finiteness tested in its pass
                if q is not None:
                    return q
    Xa, labels, thr = as_stump_sample(Xa, y, thresholds)
    w = as_weights_for(mu_hat, n)
    return _stump_scores(Xa, w * labels, thr)


@implements("bun2020.s5.stump-sensitivity")
def stump_sensitivity(n, kappa) -> float:
    """Delta = 2/(kappa n) + 2 zeta = 4/(kappa n) (zeta = 1/(kappa n), Lemma 21) for every stump score
    [replace-one; derived in reference.private_boosting.stump_sensitivity]

    Parameters
    ----------
    n : int >= 1
    kappa : float in (0, 1)

    Returns
    -------
    float
        Rounded up.

    Raises
    ------
    ValueError, TypeError
        Bad n or kappa.

    Examples
    --------
    >>> from fast.private_boosting import stump_sensitivity
    >>> stump_sensitivity(1000, 0.25)
    0.016
    """
    return centroid_sensitivity(n, kappa)


@implements("bun2020.s5.stump-sensitivity", "bun2020.lemma52")
def smoothboost_sensitivity(n, kappa) -> float:
    """Delta = 2 (w_max + zeta) = 2 (2/(kappa n) + 4/(kappa n)) = 12/(kappa n) under SB-NxM   [bun2020 App. K, Lemma 52
    at density kappa/2; replace-one]

    Derivation.  SmoothBoost's weak learner runs only on measures that passed the propose-test-release test, i.e.
    |mu| >= kappa n/2 (density kappa/2).  SB-NxM's mu(i) is in [0, 1] and depends on example i alone given the
    previous hypotheses, so mu^(i) = mu(i)/|mu| <= 2/(kappa n) = w_max; Lemma 52 at density kappa/2 bounds the
    slickness SD(mu^, mu'^) <= 2/((kappa/2) n) = 4/(kappa n) = zeta.  For any statistic sum_i mu^(i) a_i with
    |a_i| <= 1 (a stump score a_i = y_i h(x_i), or a coordinate of the centroid with ||x_i|| <= 1, in L2 over the
    coordinates), as in :func:`stump_sensitivity`: |q - q'| <= ||mu^ - mu'^||_1 + w_max + w_max' <= 2 zeta + 2 w_max
    = 12/(kappa n).  Lemma 52 is itself 2x loose (registry bun2020.lemma52), so the bound is sound and loose.  Used
    by :func:`smooth_boost` (the centroid, L2) and by ``fast.PrivateBoostClassifier(booster="smooth",
    weak_learner="stump")`` (every stump score).

    Parameters
    ----------
    n : int >= 1
    kappa : float in (0, 1)

    Returns
    -------
    float
        12/(kappa n), rounded up.

    Raises
    ------
    ValueError, TypeError
        Bad n or kappa.

    Examples
    --------
    >>> from fast.private_boosting import smoothboost_sensitivity
    >>> smoothboost_sensitivity(1000, 0.25)
    0.048
    """
    m = check_int(n, "n", minimum=1)
    k = check_kappa(kappa)
    return _float_up(Fraction(12) / (Fraction(k) * m))


@implements("bun2020.s5.stump-rnm")
def noisy_max_epsilon(sensitivity, epsilon) -> float:
    """epsilon_eff = 2 D / t <= epsilon: D = floor(Delta / 2^k) + 1 grid units, t = ceil(2 D / epsilon)
    (mechanisms.laplace_grid at epsilon / 2)   [report-noisy-max, pure DP]

    Parameters
    ----------
    sensitivity : float > 0
        Sensitivity of every score (replace-one).
    epsilon : float > 0
        The requested epsilon of one selection.

    Returns
    -------
    float
        The delivered (pure) epsilon, at most ``epsilon``.

    Raises
    ------
    ValueError, TypeError
        Non-positive or non-finite arguments.

    Examples
    --------
    >>> from fast.private_boosting import noisy_max_epsilon
    >>> noisy_max_epsilon(0.016, 1.0) <= 1.0
    True
    """
    e, sens = check_noisy_max_budget(epsilon, sensitivity)
    return 2.0 * _mechanisms.laplace_grid(sens, e / 2.0).epsilon_effective


def _noisy_argmax(q: np.ndarray, noise: np.ndarray, k: int) -> int:
    """First index of max(round(q / 2^k) + noise), exact: in int64 by one compiled pass when every grid score and
    draw is at most 2^62 - 1 in magnitude (the discrete Laplace draws are below 2^62 / t by construction: always;
    the grid scores whenever |q| < 2^(62 + k)), else in Python integers (as the reference: round(q / 2^k) exactly,
    half to even, also where q / 2^k overflows float64)."""
    if -1022 <= k <= 1023:
        arg = _K.grid_argmax(np.ascontiguousarray(q), math.ldexp(1.0, -k), noise)
        if arg >= 0:
            return int(arg)
    lam = Fraction(2) ** k
    noisy = [round(Fraction(v) / lam) + int(b) for v, b in zip(q.tolist(), noise.tolist())]
    return noisy.index(max(noisy))


@implements("bun2020.s5.stump-rnm")
def report_noisy_max(scores, sensitivity, epsilon, *, rng=None) -> int:
    """argmax_c (round(q_c / 2^k) + Z_c), Z_c ~ DLap(t) iid, t = ceil(2 D / epsilon), ties to the first index
    [report-noisy-max with exact discrete Laplace noise; epsilon_eff-DP, see noisy_max_epsilon]

    Parameters
    ----------
    scores : array-like of shape (c,)
        Candidate scores, each of sensitivity <= ``sensitivity``.
    sensitivity : float > 0
    epsilon : float > 0
    rng : None, int or numpy.random.Generator
        Generator of the PRIVATE noise (None: OS entropy; a seed only in tests).

    Returns
    -------
    int
        The selected index.

    Raises
    ------
    ValueError, TypeError
        Bad scores or budget.

    Examples
    --------
    >>> from fast.private_boosting import report_noisy_max
    >>> report_noisy_max([0.0, 1.0, 0.2], 0.01, 50.0, rng=0)
    1
    """
    q = as_float_vector(scores, "scores")
    e, sens = check_noisy_max_budget(epsilon, sensitivity)
    gen = None if rng is None else as_generator(rng)
    grid = _mechanisms.laplace_grid(sens, e / 2.0)
    noise = _mechanisms.sample_discrete_laplace(grid.scale, size=q.shape[0], rng=gen)
    return _noisy_argmax(q, noise, grid.k)


@implements("bun2020.s5.stump", "bun2020.s5.stump-rnm")
def noisy_stump(X, y, mu_hat, thresholds, epsilon, sensitivity, *, rng=None) -> tuple:
    """(j, t, s) = report-noisy-max over the 2 d m stumps s * h_{j,t} of their scores s * q(j, t)
    (candidate c = 2 (j m + t) + (0 for s = +1, 1 for s = -1))   [private stump weak learner]

    Parameters
    ----------
    X, y, mu_hat, thresholds
        As :func:`stump_scores`.
    epsilon : float > 0
        Pure-DP budget of the selection (delivered: :func:`noisy_max_epsilon`).
    sensitivity : float > 0
        Of every score: :func:`stump_sensitivity` under LB-NxM.
    rng : None, int or numpy.random.Generator
        Generator of the PRIVATE noise.

    Returns
    -------
    (int, int, int)
        Feature j, threshold index t, sign s in {-1, +1}: h(x) = s (+1 if x_j > thr[j, t] else -1).

    Raises
    ------
    ValueError, TypeError
        Bad data or budget.

    Examples
    --------
    >>> from fast.private_boosting import noisy_stump
    >>> noisy_stump([[0.0], [1.0]], [1, -1], [0.5, 0.5], [[0.5]], 50.0, 0.01, rng=0)
    (0, 0, -1)
    """
    q = stump_scores(X, y, mu_hat, thresholds)
    c = report_noisy_max(np.stack([q, -q], axis=-1).ravel(), sensitivity, epsilon, rng=rng)
    m = q.shape[1]
    return c // (2 * m), (c // 2) % m, 1 if c % 2 == 0 else -1


@implements("bun2020.alg1", "bun2020.alg2")
def boost(X, y, T, next_measure, weak_learner):
    """Boost / Iter with pluggable NxM and WkL; returns (H, vote), vote = sgn(mean_t h_t), sgn(0) = +1   [bun2020 Alg. 1-2]

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    T : int >= 1
    next_measure : callable
        (X, y, H) -> a bounded measure of positive size.
    weak_learner : callable
        (X, y, mu_hat) -> h, a callable mapping an (m, d) array to m reals.

    Returns
    -------
    (tuple, callable)
        The hypotheses and the vote x -> sgn(mean_t h_t(x)) in {-1, +1} (int8).

    Raises
    ------
    ValueError, TypeError
        Bad labels or T.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.private_boosting import boost
    >>> X = np.array([[0.5], [-0.4], [0.3], [-0.6]]); y = [1, -1, 1, -1]
    >>> H, vote = boost(X, y, 3, lambda X, y, H: np.ones(len(y)), lambda X, y, w: (lambda P: np.asarray(P)[:, 0]))
    >>> len(H), vote(X).tolist()
    (3, [1, -1, 1, -1])
    """
    X = np.asarray(X, dtype=np.float64)
    labels = as_labels(y, "y", length=len(X))
    rounds = check_rounds(T)
    H = []
    for _ in range(rounds):
        mu = np.asarray(next_measure(X, labels, tuple(H)), dtype=np.float64)
        H.append(weak_learner(X, labels, mu / _fsum_any(mu)))

    def vote(points):
        pts = np.asarray(points, dtype=np.float64)
        values = np.array([h(pts) for h in H], dtype=np.float64)
        if values.ndim != 2:  # as the plain loop (its own errors)
            mean = _column_fsums(values) / len(H)
            return np.where(mean >= 0, 1, -1).astype(np.int8)
        values = np.ascontiguousarray(values)
        out = np.empty(values.shape[1], dtype=np.int8)
        flags = np.zeros(values.shape[1], dtype=np.bool_)
        _K.vote_signs(values, out, flags)  # sgn(math.fsum / T), exact, at the cost of a float sum
        for i in np.flatnonzero(flags).tolist():
            out[i] = 1 if math.fsum(values[:, i]) / len(H) >= 0 else -1
        return out

    return tuple(H), vote


def _fsum_any(mu: np.ndarray) -> float:
    """math.fsum(mu), bit for bit and with its errors: a 1-d array by fast._exact_sum (one vectorised pass), anything
    else (a user's measure of another shape) by math.fsum itself."""
    if mu.ndim == 1:
        return _exact_fsum(np.ascontiguousarray(mu))
    return math.fsum(mu)


def _column_fsums(values: np.ndarray) -> np.ndarray:
    """[math.fsum(values[:, i]) for every column i], bit for bit and with its errors (the first column in order
    that raises raises): a (T, n) array by the compiled port of math.fsum, the columns it flags (inf, NaN,
    intermediate overflow) by math.fsum itself; any other shape by the plain loop."""
    if values.ndim != 2:
        return np.array([math.fsum(values[:, i]) for i in range(values.shape[1])])
    values = np.ascontiguousarray(values)
    out = np.empty(values.shape[1])
    flags = np.zeros(values.shape[1], dtype=np.bool_)
    _K.fsum_columns(values, out, flags)
    for i in np.flatnonzero(flags).tolist():
        out[i] = math.fsum(values[:, i])
    return out


def _run_rho(n: int, kappa: float, sigma: float, d: int, rounds: int):
    """(T x weak_learner_rho rounded up, the run's grid) after the grid-inflation check; (+inf, None) at sigma = 0."""
    if sigma == 0.0:
        return math.inf, None
    sens = centroid_sensitivity(n, kappa)
    grid = centroid_run_grid(sigma, sens, d)
    check_grid_inflation(grid.k, grid.granularity, sens, d)
    return _float_up(Fraction(grid.rho) * rounds), grid


@implements("bun2020.alg4", "bun2020.alg3", "bun2020.alg1")
def lazy_bregman_boost(X, y, T, kappa, lam, sigma, *, normalize=False, rng=None, accountant=None) -> BoostResult:
    """T rounds of LB-NxM + WL~ (clipped game loss); z_bar = mean z~_t   [bun2020 Alg. 4 with Alg. 1-3]

    Privacy (see :mod:`reference.private_boosting`): the run is rho-zCDP with rho = T x
    ``weak_learner_rho(n, kappa, sigma, d)`` (the grid's inflated sensitivity), reported as ``result.rho`` and
    charged to ``accountant`` before any noise.  A sigma whose grid rounding inflates the sensitivity by half or more
    (2^k sqrt(d) >= Delta / 2) is refused (ValueError), as the estimator refuses it.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Rows in the unit L2 ball.
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    T : int >= 1
    kappa : float in (0, 1)
    lam : float > 0
    sigma : float >= 0
        Noise standard deviation per round (0: non-private).
    normalize : bool
    rng : None, int or numpy.random.Generator
        Generator of the PRIVATE noise.
    accountant : spec.budget_ledger.ZCDPAccountant or None
        Charged the run's rho (``result.rho``) before any noise is drawn.

    Returns
    -------
    spec.boosting_contract.BoostResult

    Raises
    ------
    ValueError, TypeError
        Bad data or parameters; a sigma too coarse for the grid at this n; an accountant that is not a zCDP
        ledger, or sigma = 0 with an accountant.
    spec.budget_ledger.BudgetExceeded
        The accountant cannot pay for the run (nothing is drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.private_boosting import lazy_bregman_boost
    >>> X = np.array([[0.5, 0.1], [-0.4, 0.2], [0.3, -0.3], [-0.6, 0.0]]); y = [1, -1, 1, -1]
    >>> res = lazy_bregman_boost(X, y, 10, 0.5, 0.1, 0.0)  # sigma = 0: non-private
    >>> res.hypotheses.shape, res.z_bar.round(4).tolist()
    ((10, 2), [0.4491, -0.101])
    """
    X, labels = as_sample(X, y)
    rounds = check_rounds(T)
    k = check_kappa(kappa)
    rate = check_lam(lam)
    s = check_sigma(sigma)
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be a bool, got {type(normalize).__name__}")
    n, d = X.shape
    rho, grid = _run_rho(n, k, s, d, rounds)
    charge_run_rho(accountant, rho, s)  # before any noise
    gen = None if rng is None else as_generator(rng)  # None: the mechanisms draw OS-keyed words per call
    yf = labels.astype(np.float64)
    L = np.zeros(n)
    hyps = np.empty((rounds, d))
    maxw = np.empty(rounds)
    log_k = math.log(k)
    w = np.empty(n)

    def make_w():  # a valid log measure (L >= 0 finite): no re-validation; scratch reused across rounds
        np.multiply(L, -rate, out=w)
        return np.add(w, log_k, out=w)

    h = np.empty(n)
    for t in range(rounds):
        mu = _project_owned(make_w, k)
        size = float(np.sum(mu))  # pairwise sum (math.fsum over 10^5 Python floats costs ~5 ms)
        maxw[t] = mu.max() / size
        mu /= size  # mu_hat, in place (mu is the projection's own array)
        mu *= yf
        z = mu @ X  # pass 1 over X
        if s > 0.0:
            z = _release(z, s, gen, grid)  # the run's grid (centroid_run_grid), public: sigma, n, kappa, d
        if normalize:
            z = _normalized(z)
        hyps[t] = z
        np.matmul(X, z, out=h)  # pass 2 over X
        _K.add_game_gain(h, yf, L)  # the clipped game loss added to L in one pass
    z_bar = _column_fsums(hyps) / rounds
    return BoostResult(z_bar=z_bar, hypotheses=hyps, max_weight=maxw, rho=rho)


@implements("bun2020.alg4")
def hsstl_parameters(alpha, beta, tau, *, lam_rule="tau/32") -> dict:
    """kappa = alpha/4, gamma = tau/8, xi, sigma, T = ceil(1024 ln(1/kappa)/tau^2), lam   [bun2020 Alg. 4]

    Parameters
    ----------
    alpha, beta, tau : float in (0, 1)
        Accuracy, failure probability, margin.
    lam_rule : {"tau/32", "tau/8"}
        The learning rate (A1): "tau/32" (default, what Theorem 20 needs) or "tau/8" (as printed).

    Returns
    -------
    dict
        kappa, gamma, xi, sigma, T, lam.

    Raises
    ------
    ValueError, TypeError
        Arguments outside (0, 1), unknown lam_rule.

    Examples
    --------
    >>> from fast.private_boosting import hsstl_parameters
    >>> p = hsstl_parameters(0.1, 0.05, 0.1)
    >>> p["T"], round(p["sigma"], 7)
    (377742, 0.0003037)
    """
    a = check_unit(alpha, "alpha")
    b = check_unit(beta, "beta")
    t = check_unit(tau, "tau")
    rule = check_lam_rule(lam_rule)
    kappa = a / 4.0
    gamma = t / 8.0
    xi = b * t * t / (3072.0 * math.log(1.0 / kappa))
    sigma = t / (80.0 * math.sqrt(math.log(1.0 / xi)))
    T = math.ceil(1024.0 * math.log(1.0 / kappa) / (t * t))
    lam = t / 32.0 if rule == "tau/32" else t / 8.0
    return {"kappa": kappa, "gamma": gamma, "xi": xi, "sigma": sigma, "T": T, "lam": lam}


@implements("bun2020.thm26.rho")
def hsstl_rho(n, alpha, beta, tau, *, d=None) -> float:
    """rho_T = 8 T / (kappa n sigma)^2 (d = None: the paper's continuous Gaussian); with d: T x
    weak_learner_rho(n, kappa, sigma, d), the library's own run on the discrete Gaussian grid   [bun2020 Thm 26]

    Parameters
    ----------
    n : int >= 1
    alpha, beta, tau : float in (0, 1)
    d : int >= 1 or None
        Dimension of the data.  None: the paper's idealised continuous figure (Theorem 26 as stated), which
        UNDER-REPORTS the library's run (the grid's rounding inflates the sensitivity: x1.005 at d = 1 and the paper's
        scale); an int: what :func:`lazy_bregman_boost` at :func:`hsstl_parameters` actually spends (its
        ``result.rho``).

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from fast.private_boosting import hsstl_rho
    >>> round(hsstl_rho(10**9, 0.1, 0.05, 0.1), 6)
    0.052409
    >>> hsstl_rho(10**9, 0.1, 0.05, 0.1, d=1) > hsstl_rho(10**9, 0.1, 0.05, 0.1)
    True
    """
    m = check_int(n, "n", minimum=1)
    p = hsstl_parameters(alpha, beta, tau)
    if d is None:
        return 8.0 * p["T"] / (p["kappa"] * m * p["sigma"]) ** 2
    return _float_up(Fraction(weak_learner_rho(m, p["kappa"], p["sigma"], d)) * p["T"])


def _dp_epsilon(rho: float, delta: float) -> float:
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@implements("bun2020.thm26.rho")
def hsstl_privacy(n, alpha, beta, tau, delta, *, d=None) -> float:
    """epsilon = rho_T + 2 sqrt(rho_T ln(1/delta))   [bun2020 Thm 26, Lemma 15]

    Parameters
    ----------
    n : int >= 1
    alpha, beta, tau : float in (0, 1)
    delta : float in (0, 1)
    d : int >= 1 or None
        None: the paper's continuous figure; an int: the library's grid run (see :func:`hsstl_rho`).

    Returns
    -------
    float
        The epsilon of HS-StL on n examples.

    Raises
    ------
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from fast.private_boosting import hsstl_privacy
    >>> round(hsstl_privacy(1732084834, 0.1, 0.05, 0.1, 1e-6), 6)
    1.0
    >>> round(hsstl_privacy(1732084834, 0.1, 0.05, 0.1, 1e-6, d=1), 4)  # the library's run on its grid
    1.0026
    """
    dl = check_unit(delta, "delta")
    return _dp_epsilon(hsstl_rho(n, alpha, beta, tau, d=d), dl)


@implements("bun2020.thm26.privacy-n")
def hsstl_n_min(epsilon, delta, alpha, beta, tau, *, d=None) -> int:
    """smallest n with hsstl_privacy(n, d=d) <= epsilon   [bun2020 Thm 26]

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1)
    alpha, beta, tau : float in (0, 1)
    d : int >= 1 or None
        None: the paper's continuous accounting; an int: the library's grid run (see :func:`hsstl_rho`), whose
        grid (:func:`centroid_run_grid`) follows the sensitivity, so every target is reached.

    Returns
    -------
    int
        The smallest n with hsstl_privacy(n, d=d) <= epsilon.

    Raises
    ------
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from fast.private_boosting import hsstl_n_min
    >>> hsstl_n_min(1.0, 1e-6, 0.1, 0.05, 0.1)
    1732084834
    >>> hsstl_n_min(2.0, 1e-6, 0.1, 0.05, 0.1, d=1) > hsstl_n_min(2.0, 1e-6, 0.1, 0.05, 0.1)
    True
    """
    e = check_positive(epsilon, "epsilon")
    dl = check_unit(delta, "delta")
    p = hsstl_parameters(alpha, beta, tau)
    ln = math.log(1.0 / dl)
    rho_star = (math.sqrt(ln + e) - math.sqrt(ln)) ** 2
    n = max(1, math.ceil(math.sqrt(8.0 * p["T"] / rho_star) / (p["kappa"] * p["sigma"])))
    if d is None:
        while hsstl_privacy(n, alpha, beta, tau, dl) > e:
            n += 1
        while n > 1 and hsstl_privacy(n - 1, alpha, beta, tau, dl) <= e:
            n -= 1
        return n
    dim = check_int(d, "d", minimum=1)
    # the run's grid (centroid_run_grid) follows Delta = 4/(kappa n): rho <= 1.0078 x the continuous figure at every
    # n, so every epsilon is reached, and the run accepts every n (its inflation ratio stays <= 2^-8 < 1/2)
    lo, hi = 0, n  # hsstl_privacy(lo) > e (lo = 0: none), non-increasing in n
    while hsstl_privacy(hi, alpha, beta, tau, dl, d=dim) > e:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if hsstl_privacy(mid, alpha, beta, tau, dl, d=dim) <= e:
            hi = mid
        else:
            lo = mid
    return hi


@implements("bun2020.lemma39")
def margin_lower_bound(gamma, lam, T, kappa) -> float:
    """theta >= 2 (gamma - lam - ln(1/kappa)/(lam T))   [bun2020 Lemma 39]

    Parameters
    ----------
    gamma : float > 0
    lam : float > 0
    T : int >= 1
    kappa : float in (0, 1)

    Returns
    -------
    float
        Negative means the bound is vacuous (e.g. lam = gamma, ambiguity A1).

    Raises
    ------
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from fast.private_boosting import margin_lower_bound
    >>> round(margin_lower_bound(0.1, 0.025, 1000, 0.25), 6)
    0.039096
    """
    g = check_positive(gamma, "gamma")
    rate = check_lam(lam)
    rounds = check_rounds(T)
    k = check_kappa(kappa)
    return 2.0 * (g - rate - math.log(1.0 / k) / (rate * rounds))


@implements("bun2020.alg8")
def pythia(margins, kappa):
    """(in_B mask, theta) of Pythia   [bun2020 Alg. 8]

    Parameters
    ----------
    margins : array-like of shape (n,)
        y_i H(x_i).
    kappa : float in (0, 1)

    Returns
    -------
    (ndarray of bool, float)
        The bad set B as a mask and theta.

    Raises
    ------
    ValueError, TypeError
        Bad margins or kappa.

    Examples
    --------
    >>> from fast.private_boosting import pythia
    >>> pythia([0.3, -0.1, 0.05, 0.2], 0.5)
    (array([False,  True,  True, False]), 0.05)
    """
    m = as_float_vector(margins, "margins")
    k = check_kappa(kappa)
    n = m.shape[0]
    in_b = m < 0.0
    count = int(in_b.sum())
    theta = 0.0
    rest = np.flatnonzero(~in_b)
    need = min(rest.shape[0], math.ceil(k * n) - count) if count < k * n else 0
    if need > 0:  # the need smallest of the rest by (margin, index), by selection instead of a sort: O(n)
        vals = m[rest]
        v = np.partition(vals, need - 1)[need - 1] if need < vals.shape[0] else vals.max()  # the need-th smallest
        below = vals < v
        in_b[rest[below]] = True  # all of those are taken (fewer than need)
        ties = rest[vals == v]  # ascending indices: the lowest ones fill up to need
        take = ties[: need - int(np.count_nonzero(below))]
        in_b[take] = True
        theta = float(m[take[-1]])  # the last taken in (margin, index) order (its own sign of zero)
    return in_b, theta


@implements("bun2020.alg13")
def sb_nxm(margin_sums, t, gamma) -> np.ndarray:
    """SmoothBoost's measure (1 - gamma)^(max(s, 0)/2) with s = sums - t gamma/(2+gamma)   [bun2020 Alg. 13]

    Parameters
    ----------
    margin_sums : array-like of shape (n,)
        sum_j y_i h_j(x_i).
    t : int >= 0
        Rounds so far.
    gamma : float in (0, 1/2)

    Returns
    -------
    ndarray of shape (n,)

    Raises
    ------
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from fast.private_boosting import sb_nxm
    >>> sb_nxm([0.0, 1.0, -1.0], 2, 0.2).round(6)
    array([1.      , 0.912757, 1.      ])
    """
    sums = as_float_vector(margin_sums, "margin_sums")
    rounds = check_int(t, "t", minimum=0)
    g = check_real(gamma, "gamma", low=0.0, high=0.5, low_open=True, high_open=True)
    return _sb_measure(sums, rounds, g)


def _sb_measure(sums: np.ndarray, rounds: int, g: float) -> np.ndarray:
    """sb_nxm of validated arguments: 1 where s = sums - t gamma/(2+gamma) < 0, else (1 - gamma)^(s/2) (the exp only
    on those entries: the same values bit for bit, half the exps on the peers' data)."""
    if rounds == 0:
        return np.ones(sums.shape[0])
    theta = g / (2.0 + g)
    s = sums - rounds * theta
    pos = s >= 0
    out = np.ones(sums.shape[0])
    out[pos] = np.exp(0.5 * s[pos] * math.log1p(-g))
    return out


@implements("bun2020.thm53")
def smoothboost_privacy(epsilon, delta, T, delta_prime, *, printed=False):
    """(2 T eps^2 + 2 eps sqrt(2 T ln(1/delta')), T e^eps delta + delta'); printed: without the sqrt(2) (A3)   [bun2020 Thm 53]

    Parameters
    ----------
    epsilon : float > 0
        Per-round epsilon of the weak learner (the round is (2 epsilon, e^epsilon delta)-DP).
    delta : float in [0, 1)
    T : int >= 1
    delta_prime : float in (0, 1)
    printed : bool
        The paper's printed constant (NOT a valid bound; for comparison only).

    Returns
    -------
    (float, float)
        (epsilon', delta') of the T-round composition.

    Raises
    ------
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from fast.private_boosting import smoothboost_privacy
    >>> eps, delta = smoothboost_privacy(0.1, 1e-8, 10, 1e-6)
    >>> round(eps, 6), delta < 1.2e-6
    (3.524516, True)
    """
    e = check_positive(epsilon, "epsilon")
    dl = check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
    rounds = check_rounds(T)
    dp = check_unit(delta_prime, "delta_prime")
    factor = 1.0 if printed else 2.0
    eps_total = 2.0 * rounds * e * e + 2.0 * e * math.sqrt(factor * rounds * math.log(1.0 / dp))
    return eps_total, rounds * math.exp(e) * dl + dp


@implements("bun2020.alg10", "bun2020.alg11", "bun2020.alg12", "bun2020.alg13")
@private_release
def smooth_boost(X, y, gamma, kappa, T_max, epsilon, delta, *, normalize=True, rng=None, accountant=None,
                 delta_prime=None) -> SmoothBoostResult:
    """Private SmoothBoost with the Laplace propose-test-release stopping rule and a hard cap T_max
    [bun2020 Alg. 10-13, Theorem 53] (see reference.private_boosting.smooth_boost)

    Parameters
    ----------
    X : array-like of shape (n, d)
        Rows in the unit L2 ball.
    y : array-like of shape (n,)
        Labels in {-1, +1}.
    gamma : float in (0, 1/2)
    kappa : float in (0, 1)
    T_max : int >= 1
        Hard cap on the rounds (A11).
    epsilon, delta : float
        Per-round budget of the test and of the weak learner.
    normalize : bool
    rng : None, int or numpy.random.Generator
        Generator of the PRIVATE noise.
    accountant : BudgetAccountant or None
        Charged the run's (epsilon, delta) for T_max rounds (``result.epsilon``, ``result.delta``) before any
        noise is drawn (a zCDP ledger refuses it: the stopping rule has no zCDP form).
    delta_prime : float in (0, 1) or None
        None: the total is the basic composition of T_max rounds, each (2 epsilon, e^epsilon delta)-DP; a float:
        Theorem 53(2) with the sqrt(2) (:func:`smoothboost_privacy`) at this delta'.

    Returns
    -------
    spec.boosting_contract.SmoothBoostResult

    Raises
    ------
    ValueError, TypeError
        Bad data or parameters.
    spec.budget_ledger.BudgetExceeded
        The accountant cannot pay for the run (nothing is drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.private_boosting import smooth_boost
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(4000, 2)); X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    >>> res = smooth_boost(X, np.where(X[:, 0] > 0, 1, -1), 0.1, 0.25, 5, 1.0, 1e-6, rng=0)
    >>> res.hypotheses.shape[1], res.rounds <= 5
    (2, True)
    """
    X, labels = as_sample(X, y)
    g = check_real(gamma, "gamma", low=0.0, high=0.5, low_open=True, high_open=True)
    k = check_kappa(kappa)
    cap = check_rounds(T_max)
    e = check_positive(epsilon, "epsilon")
    dl = check_unit(delta, "delta")
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be a bool, got {type(normalize).__name__}")
    if delta_prime is None:
        eps_run, delta_run = run_basic_privacy(e, dl, cap)
    else:
        eps_run, delta_run = smoothboost_privacy(e, dl, cap, delta_prime)
    # before any noise (the rounds run are data-dependent: charge T_max); no accountant: ONE entry in the default
    # ledger for the run (its internal mechanism calls are not recorded: their number depends on the data)
    charge_release(accountant, eps_run, delta_run, label=outer_label("smooth_boost"))
    gen = None if rng is None else as_generator(rng)  # None: the mechanisms draw OS-keyed words per call
    n, d = X.shape
    yf = labels.astype(np.float64)
    threshold = 2.0 + math.log(1.0 / dl) / e
    sensitivity = smoothboost_sensitivity(n, k)  # 12/(kappa n): w_max and Lemma 52 at density kappa/2
    # per round: BLAS for the two products (X z of the previous hypothesis, (mu / |mu| y) . X), one compiled pass
    # for the elementwise rest (margins into sums, the measure's exponents), numpy's exp where mu < 1 (as sb_nxm)
    theta = g / (2.0 + g)
    rate = math.log1p(-g)
    sums = np.zeros(n)
    mu = np.empty(n)
    h = np.zeros(n)
    args = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    hyps = []
    stopped = False
    for t in range(cap):
        if t > 0:
            np.matmul(X, hyps[-1], out=h)
        count = _K.smooth_measure(h, yf, sums, t > 0, t * theta, rate, mu, args, idx)
        mu[idx[:count]] = np.exp(args[:count])
        size = _exact_fsum(mu)  # math.fsum, bit for bit, in one vectorised pass
        noisy = _mechanisms.laplace_mechanism(size - k * n / 2.0, sensitivity=1.0, epsilon=e, rng=gen)
        if not noisy > threshold:
            stopped = True
            break
        mu /= size  # (mu / size * yf) in place: the same operations
        mu *= yf
        z = np.asarray(_mechanisms.gaussian_mechanism(mu @ X, sensitivity=sensitivity, epsilon=e, delta=dl, rng=gen),
                       dtype=np.float64)
        if normalize:
            z = _normalized(z)
        hyps.append(z)
    rounds = len(hyps)
    hyp = np.array(hyps, dtype=np.float64).reshape(rounds, d)
    z_bar = _column_fsums(hyp) / rounds if rounds else np.zeros(d)
    return SmoothBoostResult(z_bar=z_bar, hypotheses=hyp, rounds=rounds, stopped=stopped,
                             epsilon=eps_run, delta=delta_run)
