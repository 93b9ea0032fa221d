"""Private boosting (bun2020): Boost/Iter, LB-NxM, the noisy centroid weak learner, HS-StL, SmoothBoost pieces.

Readable pure-Python mirror of :mod:`fast.private_boosting`.  Conventions where the paper leaves a choice open
(catalogue ``shared/claims/bun2020.md``):

* **Game loss, clipped (A9).**  l(i) = M(i, h) = 1 - |h(x_i) - y_i| / 2 with h clipped to [-1, 1] first
  (post-processing of a released hypothesis: privacy-neutral).  Without clipping l < 0 is possible for the noisy
  halfspace h(x) = z~.x and Lemmas 9, 21, 36, 38 no longer apply.
* **sgn(0) = +1** for the final vote (the paper leaves sgn(0) undefined).
* **Learning rate (A1).**  HS-StL's default is lam = tau/32 = gamma/4 (what Theorem 20 / Lemma 39 need);
  ``lam_rule="tau/8"`` is Algorithm 4 as printed.
* **Weak learner (A8).**  ``normalize=False`` releases h(x) = z~.x as printed; ``normalize=True`` releases
  (z~/||z~||).x (Servedio's normalisation, for which the tau/4 advantage of Theorem 27 holds).
* **Exact discrete Gaussian noise.**  z~ = 2^k (round(z / 2^k) + Y), Y ~ N_Z(0, s2)^d from the exact sampler of
  :mod:`reference.mechanisms`, 2^k = 2^(floor(log2 sigma) - 11) and s2 = ceil((sigma/2^k)^2): the noise std is
  >= sigma and the rounding inflates the L2 sensitivity by 2^k sqrt(d) (as ``mechanisms.gaussian_grid`` does);
  the zCDP of one release is (Delta + 2^k sqrt(d))^2 / (2 s2 4^k)  [CKS20: N_Z has the Gaussian's Renyi bound].
* **Sensitivity.**  The centroid's L2 sensitivity is the paper's 2 (1/(kappa n) + zeta) with zeta = 1/(kappa n)
  (Theorem 22 with Lemma 21) = 4/(kappa n); the exact value 2/(kappa n) found by search (catalogue
  s3.lbnxm-l2-sensitivity) is NOT used for privacy (it has no proof).
* **Stump weak learner (issue 10, not in the paper).**  Signed decision stumps over a data-independent threshold
  grid, chosen by report-noisy-max with exact discrete Laplace noise (:func:`noisy_stump`): score sensitivity
  4/(kappa n) (:func:`stump_sensitivity`, derived from the smooth measure's 1/(kappa n) bound and Lemma 21), pure
  (2D/t)-DP per selection (:func:`noisy_max_epsilon`), zCDP (2D/t)^2/2.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reference import mechanisms as _mechanisms
from reference.measures import project_dense_log
from spec.boosting_contract import (
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
)
from spec.budget_ledger import charge_release, outer_label, private_release
from spec.links import implements
from spec.validation import as_float_vector, as_generator, as_labels, check_int, check_positive, check_real

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

#: bits of the noisy centroid's grid below sigma (s2 in [2^22, 2^24]: the exact sampler's limit is 2^24)
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


@implements("bun2020.eq4", "bun2020.si.game")
def game_loss(h_values, y) -> np.ndarray:
    """l(i) = M(i, h) = 1 - |h(x_i) - y_i| / 2 = 1/2 + y_i h(x_i) / 2, h clipped to [-1, 1]   [bun2020 App. I, eq. (4)]

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
    """
    h = as_float_vector(h_values, "h_values")
    labels = as_labels(y, "y", length=len(h))
    return np.array([1.0 - abs(max(-1.0, min(1.0, float(v))) - int(s)) / 2.0 for v, s in zip(h, labels)],
                    dtype=np.float64)


@implements("bun2020.alg3", "bun2020.alg7", "bun2020.alg9")
def lb_nxm(gains, kappa, lam) -> np.ndarray:
    """mu = Pi_{Gamma_kappa}(mu~), mu~(i) = kappa exp(-lam L(i)), L(i) = sum_t l_t(i)   [bun2020 Alg. 3 / Alg. 7]

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
    """
    L = as_gains(gains)
    k = check_kappa(kappa)
    rate = check_lam(lam)
    w = [math.log(k) - rate * float(v) for v in L]
    return project_dense_log(w, k)


@implements("bun2020.s5.2.wl")
def centroid(X, y, mu_hat) -> np.ndarray:
    """z = sum_i mu^(i) y_i x_i   [bun2020 Section 5.2; Servedio's weak halfspace learner]

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
    """
    X, labels = as_sample(X, y)
    w = as_weights_for(mu_hat, X.shape[0])
    n, d = X.shape
    return np.array([math.fsum(float(w[i]) * int(labels[i]) * float(X[i, j]) for i in range(n)) for j in range(d)],
                    dtype=np.float64)


@implements("bun2020.thm22")
def centroid_sensitivity(n, kappa, zeta=None) -> float:
    """Delta_2 = 2 (1/(kappa n) + zeta); zeta = 1/(kappa n) (Lemma 21) by default: 4/(kappa n)   [bun2020 Thm 22]

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
    """
    m = check_int(n, "n", minimum=1)
    k = check_kappa(kappa)
    z = Fraction(1) / (Fraction(k) * m) if zeta is None else Fraction(check_real(zeta, "zeta", low=0.0))
    return _float_up(2 * (Fraction(1) / (Fraction(k) * m) + z))


def centroid_grid(sigma, sensitivity, d) -> CentroidGrid:
    """2^k = 2^(floor(log2 sigma) - 11), s2 = ceil((sigma/2^k)^2), Delta' = Delta + 2^k sqrt(d),
    rho = Delta'^2 / (2 s2 4^k)   [CKS20 Thm 14 on the grid; rounding as mechanisms.gaussian_grid]

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
    """
    s = check_positive(sigma, "sigma")
    delta_s = check_positive(sensitivity, "sensitivity")
    dim = check_int(d, "d", minimum=1)
    k = math.frexp(s)[1] - 1 - CENTROID_GRID_BITS
    lam = Fraction(2) ** k
    s2 = math.ceil((Fraction(s) / lam) ** 2)
    inflated = math.nextafter(delta_s + float(lam) * math.sqrt(dim) * (1 + 2**-50), math.inf)
    rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))
    return CentroidGrid(k=k, granularity=math.ldexp(1.0, k), sigma2_grid=s2, sensitivity_inflated=inflated, rho=rho)


def centroid_run_grid(sigma, sensitivity, d) -> CentroidGrid:
    """The grid of :func:`lazy_bregman_boost`'s releases: 2^k = min(2^(floor(log2 sigma) - 11), the largest power of
    two with 2^k sqrt(d) <= Delta 2^-8), s2 = ceil((sigma/2^k)^2), Delta' = Delta + 2^k sqrt(d), rho = Delta'^2 /
    (2 s2 4^k)   [CKS20 Thm 14 on the grid; issue 25]

    A function of sigma, Delta = 4/(kappa n) and d (public).  The rounding inflates rho by at most (1 + 2^-8)^2 =
    1.0078 over the continuous Delta^2 / (2 sigma^2) at every n (:func:`centroid_grid`'s grid, 11 bits below sigma
    alone, inflated it x5.2 / x26 / x193 at the paper's n and d = 1 / 10 / 100); s2 then exceeds 2^24 at large n, and
    the exact big-integer sampler of :func:`reference.mechanisms.sample_discrete_gaussian` draws it.

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
    """
    s = check_positive(sigma, "sigma")
    delta_s = check_positive(sensitivity, "sensitivity")
    dim = check_int(d, "d", minimum=1)
    k = _run_grid_exponent(s, delta_s, dim)
    lam = Fraction(2) ** k
    s2 = math.ceil((Fraction(s) / lam) ** 2)
    inflated = _float_up(Fraction(delta_s) + lam * Fraction(math.sqrt(dim)) * (1 + Fraction(1, 2**50)))
    rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))
    return CentroidGrid(k=k, granularity=math.ldexp(1.0, k), sigma2_grid=s2, sensitivity_inflated=inflated, rho=rho)


def _grid_release(z, grid: CentroidGrid, rng) -> np.ndarray:
    """2^k (round(z / 2^k) + Y), Y ~ N_Z(0, s2)^d exact (Fractions)."""
    noise = _mechanisms.sample_discrete_gaussian(grid.sigma2_grid, size=len(z), rng=rng)
    lam = Fraction(2) ** grid.k
    return np.array([float((round(Fraction(float(v)) / lam) + int(e)) * lam) for v, e in zip(z, noise)],
                    dtype=np.float64)


def _normalized(z) -> np.ndarray:
    norm = math.sqrt(math.fsum(float(v) ** 2 for v in z))
    return np.array([float(v) / norm if norm > 0 else 0.0 for v in z], dtype=np.float64)


@implements("bun2020.s5.2.wl")
def noisy_centroid(X, y, mu_hat, sigma, *, rng=None, normalize=False) -> np.ndarray:
    """z~ = z + nu, nu ~ N_Z on the grid 2^k Z^d with std >= sigma; h(x) = z~.x (or (z~/||z~||).x)   [bun2020 s5.2]

    ``sigma = 0`` is Servedio's NON-PRIVATE learner (z returned exactly, no draw).  ``rng``: the generator of the
    PRIVATE noise (None = OS entropy).  Returns the hypothesis vector (d,).

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
    """
    z = centroid(X, y, mu_hat)
    s = check_sigma(sigma)
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be a bool, got {type(normalize).__name__}")
    if s > 0.0:
        z = _grid_release(z, centroid_grid(s, 1.0, len(z)), rng)
    return _normalized(z) if normalize else z


@implements("bun2020.thm22", "bun2020.thm26.rho")
def weak_learner_rho(n, kappa, sigma, d) -> float:
    """rho = Delta'^2 / (2 s2 4^k), Delta = 4/(kappa n) inflated by the grid; +inf ("not private") at sigma = 0
    [bun2020 Thm 22 part 1 with Lemma 21; the continuous value is 8/(kappa n sigma)^2]

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
    """
    delta_s = centroid_sensitivity(n, kappa)
    s = check_sigma(sigma)
    dim = check_int(d, "d", minimum=1)
    if s == 0.0:
        return math.inf
    return centroid_run_grid(s, delta_s, dim).rho


@implements("bun2020.s5.stump")
def stump_scores(X, y, mu_hat, thresholds) -> np.ndarray:
    """q(j, t) = sum_i mu^(i) y_i h_{j,t}(x_i), h_{j,t}(x) = +1 if x_j > thr[j, t] else -1   [the stump weak
    learner of the issue: decision stumps over a DATA-INDEPENDENT threshold grid; the -h stump scores -q]

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
    """
    X, labels, thr = as_stump_sample(X, y, thresholds)
    w = as_weights_for(mu_hat, X.shape[0])
    n, d = X.shape
    out = np.empty(thr.shape)
    for j in range(d):
        for t in range(thr.shape[1]):
            out[j, t] = math.fsum(float(w[i]) * int(labels[i]) * (1.0 if X[i, j] > thr[j, t] else -1.0)
                                  for i in range(n))
    return out


@implements("bun2020.s5.stump-sensitivity")
def stump_sensitivity(n, kappa) -> float:
    """Delta = 2/(kappa n) + 2 zeta = 4/(kappa n) with zeta = 1/(kappa n) (Lemma 21)   [replace-one]

    Derivation.  Fix the previous hypotheses H (adaptive composition) and neighbours S, S' differing in record i*.
    LB-NxM gives mu, mu' with |mu| >= kappa n and mu <= 1, so mu^(i) <= 1/(kappa n) for every i (smoothness), and
    Lemma 21 (1/(kappa n)-slickness) gives ||mu^ - mu'^||_1 = 2 SD(mu^, mu'^) <= 2/(kappa n).  With a_i =
    y_i h(x_i) in [-1, 1]:  |q - q'| <= sum_{i != i*} |mu^(i) - mu'^(i)| |a_i| + mu^(i*) |a_i*| + mu'^(i*) |a'_i*|
    <= ||mu^ - mu'^||_1 + 2/(kappa n) = 4/(kappa n).  The measure's own change (the first sum) is half of it; the
    bound is the centroid's of Theorem 22 (the same argument in one coordinate).

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
    >>> from reference.private_boosting import smoothboost_sensitivity
    >>> smoothboost_sensitivity(1000, 0.25)
    0.048
    """
    m = check_int(n, "n", minimum=1)
    k = check_kappa(kappa)
    return _float_up(Fraction(12) / (Fraction(k) * m))


@implements("bun2020.s5.stump-rnm")
def noisy_max_epsilon(sensitivity, epsilon) -> float:
    """epsilon_eff = 2 D / t with D = floor(Delta/2^k) + 1, t = ceil(D / (epsilon/2))   [report-noisy-max]

    Privacy (pure DP, replace-one).  Integer scores u_c = round(q_c / 2^k) move by at most D between neighbours
    (rounding adds < 1 unit).  Fix the noise Z_{-c} of the other candidates: c wins iff Z_c >= r* (ties go to the
    first index, so the winning set of Z_c is an up-set of the integers), and at the neighbour r*' <= r* + 2D (u_c
    drops by <= D, every competitor rises by <= D).  DLap(t) has P(z + s) / P(z) >= exp(-s/t) for s >= 0, so
    P'[c] >= exp(-2D/t) P[c] for every c: epsilon_eff = 2D/t <= epsilon.  As zCDP: epsilon_eff^2 / 2 (BS16).

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
    """
    e, sens = check_noisy_max_budget(epsilon, sensitivity)
    grid = _mechanisms.laplace_grid(sens, e / 2.0)
    return 2.0 * grid.epsilon_effective


@implements("bun2020.s5.stump-rnm")
def report_noisy_max(scores, sensitivity, epsilon, *, rng=None) -> int:
    """argmax_c (round(q_c / 2^k) + Z_c), Z_c ~ DLap(t) iid (exact sampler), first index on ties   [RNM]

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
    """
    q = as_float_vector(scores, "scores")
    e, sens = check_noisy_max_budget(epsilon, sensitivity)
    gen = None if rng is None else as_generator(rng)
    grid = _mechanisms.laplace_grid(sens, e / 2.0)
    noise = _mechanisms.sample_discrete_laplace(grid.scale, size=len(q), rng=gen)
    lam = Fraction(2) ** grid.k
    noisy = [round(Fraction(float(v)) / lam) + int(z) for v, z in zip(q, noise)]
    best = max(noisy)
    return noisy.index(best)


@implements("bun2020.s5.stump", "bun2020.s5.stump-rnm")
def noisy_stump(X, y, mu_hat, thresholds, epsilon, sensitivity, *, rng=None) -> tuple:
    """(j, t, s): report-noisy-max over the stumps s h_{j,t} (candidate 2 (j m + t) + (s == -1)) of their scores
    s q(j, t)   [private stump weak learner; epsilon-DP per call at the given score sensitivity]

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
    """
    q = stump_scores(X, y, mu_hat, thresholds)
    d, m = q.shape
    scores = []
    for j in range(d):
        for t in range(m):
            scores.extend([float(q[j, t]), -float(q[j, t])])
    c = report_noisy_max(np.array(scores, dtype=np.float64), sensitivity, epsilon, rng=rng)
    return c // (2 * m), (c // 2) % m, 1 if c % 2 == 0 else -1


@implements("bun2020.alg1", "bun2020.alg2")
def boost(X, y, T, next_measure, weak_learner):
    """Boost: H <- Iter(S, H) T times, Iter: mu = NxM(S, H), h = WkL(S, mu^); returns (H, vote) with
    vote(X) = sgn((1/T) sum_t h_t(X)), sgn(0) = +1   [bun2020 Alg. 1-2]

    ``next_measure(X, y, H) -> mu`` (a bounded measure of positive size); ``weak_learner(X, y, mu_hat) -> h``,
    a callable mapping an (m, d) array to m real values.

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
    """
    X = np.asarray(X, dtype=np.float64)
    labels = as_labels(y, "y", length=len(X))
    rounds = check_rounds(T)
    H = []
    for _ in range(rounds):
        mu = next_measure(X, labels, tuple(H))
        total = math.fsum(float(v) for v in mu)
        mu_hat = np.array([float(v) / total for v in mu], dtype=np.float64)
        H.append(weak_learner(X, labels, mu_hat))

    def vote(points):
        values = [math.fsum(float(h(np.asarray(points, dtype=np.float64))[i]) for h in H) / len(H)
                  for i in range(len(points))]
        return np.array([1 if v >= 0 else -1 for v in values], dtype=np.int8)

    return tuple(H), vote


@implements("bun2020.alg4", "bun2020.alg3", "bun2020.alg1")
def lazy_bregman_boost(X, y, T, kappa, lam, sigma, *, normalize=False, rng=None, accountant=None) -> BoostResult:
    """HS-StL's loop: T rounds of mu_t = LB-NxM(kappa, lam)(S, H), z~_t = WL~(S, mu^_t, sigma), L += l_t (clipped);
    output z_bar = (1/T) sum_t z~_t, classifier sgn(z_bar . x)   [bun2020 Alg. 4 with Alg. 1-3, Section 5.2]

    Privacy: each round releases the centroid (L2 sensitivity Delta = 4/(kappa n), Thm 22 + Lemma 21) on the grid
    the grid of :func:`centroid_run_grid` (2^k <= Delta 2^-8 / sqrt(d)), whose rounding inflates Delta to
    Delta + 2^k sqrt(d); the run is rho-zCDP with
    rho = T x ``weak_learner_rho(n, kappa, sigma, d)`` (Lemma 14), reported as ``result.rho`` and charged to
    ``accountant`` BEFORE any noise.  The paper's continuous 8T/(kappa n sigma)^2 under-reports it (x1.005 at d = 1 and
    the paper's scale; x5.2 on the old grid 11 bits below sigma).  A sigma whose rounding inflates Delta by half or more (2^k sqrt(d) >= Delta/2, rho x 2.25)
    is refused (ValueError): the same rule as the estimator's calibration.

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
    """
    X, labels = as_sample(X, y)
    rounds = check_rounds(T)
    k = check_kappa(kappa)
    rate = check_lam(lam)
    s = check_sigma(sigma)
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be a bool, got {type(normalize).__name__}")
    n, d = X.shape
    if s == 0.0:
        rho = math.inf
    else:
        sens = centroid_sensitivity(n, k)
        grid = centroid_run_grid(s, sens, d)
        check_grid_inflation(grid.k, grid.granularity, sens, d)
        rho = _float_up(Fraction(grid.rho) * rounds)  # Lemma 14: T equal rounds
    charge_run_rho(accountant, rho, s)  # before any noise
    gen = None if rng is None else as_generator(rng)  # None: the mechanisms draw OS-keyed words per call
    L = [0.0] * n
    hyps, maxw = [], []
    for _ in range(rounds):
        mu = lb_nxm(L, k, rate)
        total = math.fsum(float(v) for v in mu)
        mu_hat = [float(v) / total for v in mu]
        maxw.append(max(mu_hat))
        z = centroid(X, labels, mu_hat)
        if s > 0.0:
            z = _grid_release(z, grid, gen)  # the run's grid (centroid_run_grid), public: sigma, n, kappa, d
        if normalize:
            z = _normalized(z)
        hyps.append(z)
        h = [math.fsum(float(z[j]) * float(X[i, j]) for j in range(d)) for i in range(n)]
        loss = game_loss(h, labels)
        L = [a + float(b) for a, b in zip(L, loss)]
    z_bar = np.array([math.fsum(float(z[j]) for z in hyps) / rounds for j in range(d)], dtype=np.float64)
    return BoostResult(z_bar=z_bar, hypotheses=np.array(hyps, dtype=np.float64).reshape(rounds, d),
                       max_weight=np.array(maxw, dtype=np.float64), rho=rho)


@implements("bun2020.alg4")
def hsstl_parameters(alpha, beta, tau, *, lam_rule="tau/32") -> dict:
    """kappa = alpha/4, gamma = tau/8, xi = beta tau^2/(3072 ln(1/kappa)), sigma = tau/(80 sqrt(ln(1/xi))),
    T = ceil(1024 ln(1/kappa)/tau^2), lam = tau/32 (default, A1) or tau/8 (as printed)   [bun2020 Alg. 4, App. C]

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
    """rho_T = T * 2 (2/(kappa n))^2 / sigma^2 = 8 T / (kappa n sigma)^2 (d = None)   [bun2020 Thm 22, Lemma 21,
    Lemma 14]; with d: T x weak_learner_rho(n, kappa, sigma, d), the grid's inflated sensitivity

    Without ``d`` this is the paper's idealised figure for a CONTINUOUS Gaussian (Theorem 26 as stated, the
    registered claim); the library's run draws exact discrete Gaussian noise on the grid of :func:`centroid_run_grid`,
    whose rounding inflates the sensitivity 4/(kappa n) by 2^k sqrt(d) <= 2^-8 x 4/(kappa n): at the paper's scale
    the real rho is x1.0050 (d = 1), x1.0040 (d = 10), x1.0063 (d = 100) (the old grid, 11 bits below sigma alone:
    x5.2, x26, x193).  Pass ``d`` for what
    :func:`lazy_bregman_boost` at :func:`hsstl_parameters` spends (its ``result.rho``).

    Parameters
    ----------
    n : int >= 1
    alpha, beta, tau : float in (0, 1)
    d : int >= 1 or None
        Dimension; None: the paper's continuous figure.

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Bad arguments.
    """
    m = check_int(n, "n", minimum=1)
    p = hsstl_parameters(alpha, beta, tau)
    if d is None:
        return 8.0 * p["T"] / (p["kappa"] * m * p["sigma"]) ** 2
    return _float_up(Fraction(weak_learner_rho(m, p["kappa"], p["sigma"], d)) * p["T"])


def _dp_epsilon(rho: float, delta: float) -> float:
    """rho + 2 sqrt(rho ln(1/delta))   [bun2020 Lemma 15]"""
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@implements("bun2020.thm26.rho")
def hsstl_privacy(n, alpha, beta, tau, delta, *, d=None) -> float:
    """epsilon = rho_T + 2 sqrt(rho_T ln(1/delta))   [bun2020 Thm 26 with Lemma 15]; rho_T = hsstl_rho(n, d=d)

    Parameters
    ----------
    n : int >= 1
    alpha, beta, tau : float in (0, 1)
    delta : float in (0, 1)
    d : int >= 1 or None
        Dimension; None: the paper's continuous figure (see :func:`hsstl_rho`).

    Returns
    -------
    float
        The epsilon of HS-StL on n examples.

    Raises
    ------
    ValueError, TypeError
        Bad arguments.
    """
    dl = check_unit(delta, "delta")
    return _dp_epsilon(hsstl_rho(n, alpha, beta, tau, d=d), dl)


@implements("bun2020.thm26.privacy-n")
def hsstl_n_min(epsilon, delta, alpha, beta, tau, *, d=None) -> int:
    """smallest n with hsstl_privacy(n, d=d) <= epsilon: d = None: n = ceil(sqrt(8T/rho*) / (kappa sigma)),
    rho* = (sqrt(ln(1/delta) + eps) - sqrt(ln(1/delta)))^2, then adjusted by the exact test   [bun2020 Thm 26];
    with d: bisection on the run grid's rho (non-increasing in n, within 1.0078 of the continuous figure: every
    target is reached, at a size the run accepts)

    Parameters
    ----------
    epsilon : float > 0
    delta : float in (0, 1)
    alpha, beta, tau : float in (0, 1)
    d : int >= 1 or None
        Dimension; None: the paper's continuous accounting (see :func:`hsstl_rho`).

    Returns
    -------
    int
        The smallest n with hsstl_privacy(n, d=d) <= epsilon.

    Raises
    ------
    ValueError, TypeError
        Bad arguments.
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
    lo, hi = 0, n  # invariant: hsstl_privacy(lo) > e (lo = 0: no examples), hsstl_privacy(hi) <= e
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
    """theta >= 2 (gamma - lam - ln(1/kappa) / (lam T))   [bun2020 Lemma 39 via Lemmas 35, 36, 38]

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
    """
    g = check_positive(gamma, "gamma")
    rate = check_lam(lam)
    rounds = check_rounds(T)
    k = check_kappa(kappa)
    return 2.0 * (g - rate - math.log(1.0 / k) / (rate * rounds))


@implements("bun2020.alg8")
def pythia(margins, kappa):
    """B = mistakes {i: m_i < 0} grown by smallest margins until |B| >= kappa n; theta = last margin added (0 if
    none); returns (in_B bool mask, theta)   [bun2020 Alg. 8]; ties broken by lowest index

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
    """
    m = as_float_vector(margins, "margins")
    k = check_kappa(kappa)
    n = len(m)
    in_b = [float(v) < 0.0 for v in m]
    theta = 0.0
    rest = sorted((i for i in range(n) if not in_b[i]), key=lambda i: (float(m[i]), i))
    count = sum(in_b)
    for i in rest:
        if count >= k * n:
            break
        in_b[i] = True
        count += 1
        theta = float(m[i])
    return np.array(in_b, dtype=bool), theta


@implements("bun2020.alg13")
def sb_nxm(margin_sums, t, gamma) -> np.ndarray:
    """mu(i) = 1 if s(i) < 0 else (1 - gamma)^(s(i)/2), s(i) = sum_j y_i h_j(x_i) - t theta, theta = gamma/(2+gamma);
    all ones at t = 0   [bun2020 Alg. 13 (SmoothBoost's next measure)]

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
    """
    sums = as_float_vector(margin_sums, "margin_sums")
    rounds = check_int(t, "t", minimum=0)
    g = check_real(gamma, "gamma", low=0.0, high=0.5, low_open=True, high_open=True)
    if rounds == 0:
        return np.ones(len(sums), dtype=np.float64)
    theta = g / (2.0 + g)
    out = []
    for v in sums:
        s = float(v) - rounds * theta
        out.append(1.0 if s < 0 else math.exp(0.5 * s * math.log1p(-g)))
    return np.array(out, dtype=np.float64)


@implements("bun2020.thm53")
def smoothboost_privacy(epsilon, delta, T, delta_prime, *, printed=False):
    """(eps', T e^eps delta + delta'), eps' = 2 T eps^2 + 2 eps sqrt(2 T ln(1/delta')) (Thm 48 at per-round 2 eps);
    ``printed=True``: the printed 2 eps sqrt(T ln(1/delta')) (A3: NOT a valid bound)   [bun2020 Thm 53 (2)]

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
    """Private SmoothBoost: while |mu| - kappa n/2 + Lap(1/eps) > 2 + ln(1/delta)/eps (and t < T_max):
    mu = SB-NxM(S, H), z~ = Gaussian(sum_i mu^(i) y_i x_i) at L2 sensitivity 12/(kappa n), (eps, delta)-DP; returns
    the released hypotheses; per round (2 eps, e^eps delta)-DP (Lemma 49-50), T_max rounds by Theorem 48 (A3, A11)
    [bun2020 Alg. 10-13, Theorem 53]

    The Laplace test is ``mechanisms.laplace_mechanism`` (sensitivity 1: mu(i) in [0, 1] depends only on example i
    and H); the weak learner is ``mechanisms.gaussian_mechanism`` on the centroid: on passing measures
    (|mu| >= kappa n/2) max mu^ <= 2/(kappa n) and the slickness is <= 4/(kappa n) (Lemma 52 at density kappa/2),
    so the centroid moves by <= 2 (2/(kappa n) + 4/(kappa n)) = 12/(kappa n) in L2.

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
    threshold = 2.0 + math.log(1.0 / dl) / e
    sensitivity = smoothboost_sensitivity(n, k)  # 12/(kappa n): w_max and Lemma 52 at density kappa/2
    sums = [0.0] * n
    hyps = []
    stopped = False
    for t in range(cap):
        mu = sb_nxm(sums, t, g)
        size = math.fsum(float(v) for v in mu)
        noisy = _mechanisms.laplace_mechanism(size - k * n / 2.0, sensitivity=1.0, epsilon=e, rng=gen)
        if not noisy > threshold:
            stopped = True
            break
        mu_hat = [float(v) / size for v in mu]
        z = centroid(X, labels, mu_hat)
        z = np.asarray(_mechanisms.gaussian_mechanism(z, sensitivity=sensitivity, epsilon=e, delta=dl, rng=gen),
                       dtype=np.float64)
        if normalize:
            norm = math.sqrt(math.fsum(float(v) ** 2 for v in z))
            z = np.array([float(v) / norm if norm > 0 else 0.0 for v in z], dtype=np.float64)
        hyps.append(z)
        for i in range(n):
            h = max(-1.0, min(1.0, math.fsum(float(z[j]) * float(X[i, j]) for j in range(d))))
            sums[i] += int(labels[i]) * h
    rounds = len(hyps)
    hyp = np.array(hyps, dtype=np.float64).reshape(rounds, d)
    z_bar = np.array([math.fsum(float(v) for v in hyp[:, j]) / rounds if rounds else 0.0 for j in range(d)],
                     dtype=np.float64)
    return SmoothBoostResult(z_bar=z_bar, hypotheses=hyp, rounds=rounds, stopped=stopped,
                             epsilon=eps_run, delta=delta_run)
