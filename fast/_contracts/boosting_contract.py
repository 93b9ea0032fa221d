"""The input contract of bounded measures and private boosting (``reference``/``fast`` ``measures`` and
``private_boosting``), bun2020 Sections 2-5 and Appendix K.

Built on :mod:`spec.validation`, so both packages raise the same exception type with the same message on the
same bad input.  Also holds the conventions both packages follow where the paper leaves a choice open
(catalogue ``shared/claims/bun2020.md``, ambiguities A1, A8, A9, A11) and the result types both return.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fast._contracts.validation import as_float_matrix, as_float_vector, as_labels, check_int, check_real

#: learning-rate rules of HS-StL (A1): "tau/32" = gamma/4 with gamma = tau/8 (what Theorem 20 / Lemma 39 need,
#: the default); "tau/8" = as printed in Algorithm 4 (then Lemma 39's margin bound is vacuous)
LAM_RULES = ("tau/32", "tau/8")
#: log of the smallest normal double: the projection returns 0 for entries below it (subnormal exp is ~100x slower,
#: and such entries carry less than n * 2.2e-308 of the mass); both packages apply the same rule
LOG_TINY = -708.3964185322641
#: the largest rounding inflation 2^k sqrt(d) / Delta of the noisy centroid's grid a private run accepts: the
#: grid's rounding adds up to 2^k per coordinate, so the L2 sensitivity Delta grows to Delta + 2^k sqrt(d) and rho by
#: (1 + ratio)^2; from 1/2 on (rho x 2.25 or more) the run refuses.  The same rule as the estimator's calibration
#: (``fast.estimators.boosting._sigma_for_rho``: sqrt(d) 2^-11 sigma / Delta >= 1/2 refuses; 2^k <= sigma 2^-11)
MAX_GRID_INFLATION = 0.5
#: the L2 norm a point x may exceed 1 by before the halfspace learner refuses it (float rounding of a normalised row)
UNIT_BALL_SLACK = 1e-9


def as_measure(mu, name: str = "mu") -> np.ndarray:
    """A bounded measure (Def. 3): a non-empty finite 1-d float64 vector with entries in [0, 1]."""
    arr = as_float_vector(mu, name)
    if np.any(arr < 0.0) or np.any(arr > 1.0):
        bad = arr[(arr < 0.0) | (arr > 1.0)][0]
        raise ValueError(f"{name} must be a bounded measure (entries in [0, 1]), found {bad!r}")
    return arr


def as_log_measure(log_mu, name: str = "log_mu") -> np.ndarray:
    """log mu~ of a bounded measure: a non-empty 1-d float64 vector with entries <= 0 (-inf allowed: mu~(i) = 0;
    NaN and +inf refused)."""
    if isinstance(log_mu, (str, bytes)) or log_mu is None:
        raise TypeError(f"{name} must be a numeric array, got {type(log_mu).__name__}")
    arr = np.asarray(log_mu)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)) or arr.dtype == bool \
            or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be a real numeric array, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if np.any(np.isnan(arr)) or np.any(arr == np.inf):
        raise ValueError(f"{name} must contain numbers <= 0 or -inf (no NaN or +inf)")
    if np.any(arr > 0.0):
        raise ValueError(f"{name} must be <= 0 (mu~ a bounded measure), found {arr[arr > 0.0][0]!r}")
    return arr


def as_distribution_like(p, name: str) -> np.ndarray:
    """A non-empty finite 1-d float64 vector with entries >= 0 (a distribution or a measure)."""
    arr = as_float_vector(p, name)
    if np.any(arr < 0.0):
        raise ValueError(f"{name} must have entries >= 0, found {arr[arr < 0.0][0]!r}")
    return arr


def as_pair(p, q, names=("p", "q"), check=as_distribution_like):
    a = check(p, names[0])
    b = check(q, names[1])
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"{names[0]} and {names[1]} must have the same length, got {a.shape[0]} and {b.shape[0]}")
    return a, b


def as_probability(p, name: str) -> np.ndarray:
    """A probability vector: entries >= 0 summing to 1 within 1e-9."""
    arr = as_distribution_like(p, name)
    total = math.fsum(arr.tolist())
    if abs(total - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1 (a distribution), got sum {total!r}")
    return arr


def check_kappa(kappa) -> float:
    """kappa in (0, 1): the target density of the kappa-dense set (bun2020 Section 2)."""
    return check_real(kappa, "kappa", low=0.0, high=1.0, low_open=True, high_open=True)


def check_lam(lam) -> float:
    """lambda > 0 (the learning rate of LB-NxM); lambda >= 1 is allowed (the theory uses lambda < 1)."""
    return check_real(lam, "lam", low=0.0, low_open=True)


def check_sigma(sigma) -> float:
    """sigma >= 0; sigma = 0 is Servedio's non-private learner (reported as rho = inf, "not private")."""
    return check_real(sigma, "sigma", low=0.0)


def check_unit(value, name: str) -> float:
    return check_real(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


def check_lam_rule(rule) -> str:
    if not isinstance(rule, str) or rule not in LAM_RULES:
        raise ValueError(f"lam_rule must be one of {LAM_RULES}, got {rule!r}")
    return rule


def as_gains(gains) -> np.ndarray:
    """Cumulative gains L(i) = sum_t l_t(i) of Alg. 3: a finite vector with entries >= 0."""
    arr = as_float_vector(gains, "gains")
    if np.any(arr < 0.0):
        raise ValueError(f"gains must be >= 0 (sums of game losses in [0, 1]), found {arr[arr < 0.0][0]!r}")
    return arr


def as_sample(X, y, *, unit_ball: bool = True):
    """(X, y): X an (n, d) finite float64 matrix, y in {-1, +1} (one label per row); with ``unit_ball`` every row
    must lie in the unit L2 ball B_d(1) (the halfspace learner's sensitivity needs it: clip or scale first)."""
    X = as_float_matrix(X, "X")
    y = as_labels(y, "y", length=X.shape[0])
    if unit_ball:
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        if np.any(norms > 1.0 + UNIT_BALL_SLACK):
            i = int(np.argmax(norms > 1.0 + UNIT_BALL_SLACK))
            raise ValueError(f"X rows must lie in the unit L2 ball (the halfspace learner's sensitivity needs "
                             f"||x|| <= 1): row {i} has norm {norms[i]!r}; clip or scale the data first")
    return X, y


def as_weights_for(mu_hat, n: int) -> np.ndarray:
    """A distribution over the n examples (the weak learner's input mu^)."""
    arr = as_probability(mu_hat, "mu_hat")
    if arr.shape[0] != n:
        raise ValueError(f"mu_hat must have length {n} (one weight per row of X), got {arr.shape[0]}")
    return arr


def check_rounds(T) -> int:
    return check_int(T, "T", minimum=1)


def check_grid_inflation(k: int, granularity: float, sensitivity: float, d: int) -> float:
    """The rounding inflation ratio 2^k sqrt(d) / Delta of one noisy centroid release; ValueError when it is
    >= :data:`MAX_GRID_INFLATION` (the run's rho would be dominated by the grid's rounding, not by the noise)."""
    ratio = granularity * math.sqrt(d) / sensitivity
    if not ratio < MAX_GRID_INFLATION:
        raise ValueError(
            f"sigma is too large for the exact discrete Gaussian grid at this n: the grid 2^{k} rounds each of the "
            f"d = {d} coordinates, inflating the L2 sensitivity 4/(kappa n) = {sensitivity:.6g} by 2^k sqrt(d) = "
            f"{granularity * math.sqrt(d):.6g} (ratio {ratio:.4g} >= {MAX_GRID_INFLATION}: rho x "
            f"{(1 + ratio) ** 2:.4g} over the continuous 8/(kappa n sigma)^2); lower sigma or use fewer examples")
    return ratio


def charge_run_rho(accountant, rho: float, sigma: float):
    """Charge a zCDP run's total rho to ``accountant`` (a ZCDPAccountant) before any noise is drawn; sigma = 0 (not
    private) and (epsilon, delta) ledgers are refused (TypeError / ValueError), BudgetExceeded if it does not fit."""
    from fast._contracts.budget_ledger import ZCDPAccountant

    if accountant is None:
        return
    if not isinstance(accountant, ZCDPAccountant):
        raise TypeError(f"accountant must be a ZCDPAccountant (the run is rho-zCDP; convert with "
                        f"accounting.zcdp_to_dp_tight to charge an (epsilon, delta) ledger yourself), got "
                        f"{type(accountant).__name__}")
    if sigma == 0.0:
        raise ValueError("sigma = 0 is the non-private learner (rho = inf): it cannot be charged to an accountant")
    accountant.spend_rho(rho)


def run_basic_privacy(epsilon: float, delta: float, rounds: int) -> tuple:
    """(eps, delta) of ``rounds`` SmoothBoost rounds, each (2 eps, e^eps delta)-DP (Lemmas 49-50), by basic
    composition (Dwork-Roth Thm 3.16), rounded up."""
    from fractions import Fraction

    def up(q):
        f = float(q)
        return f if Fraction(f) >= q else math.nextafter(f, math.inf)

    per_delta = math.nextafter(math.exp(epsilon) * delta, math.inf)
    return up(Fraction(2.0 * epsilon) * rounds), min(1.0, up(Fraction(per_delta) * rounds))


@dataclass(frozen=True)
class CentroidGrid:
    """The grid of the noisy centroid's exact discrete Gaussian (as ``mechanisms.gaussian_grid`` builds its grid):
    granularity 2^k with k = floor(log2 sigma) - 11, grid variance s2 = ceil((sigma / 2^k)^2) (so the noise std
    2^k sqrt(s2) is >= sigma), L2 sensitivity inflated by the rounding of the d coordinates, and the resulting rho."""

    k: int
    granularity: float
    sigma2_grid: int
    sensitivity_inflated: float
    rho: float


@dataclass(frozen=True)
class BoostResult:
    """One LazyBregBoost run (Alg. 1 with LB-NxM and the noisy centroid learner).

    Attributes
    ----------
    z_bar : ndarray (d,)
        The average of the released hypothesis vectors; the classifier is sgn(z_bar . x) (HS-StL output).
    hypotheses : ndarray (T, d)
        The released z~_t (normalised when ``normalize``).
    max_weight : ndarray (T,)
        max_i mu^_t(i) of each round (smoothness: <= 1/(kappa n), Theorem 20 (ii)); a NON-PRIVATE diagnostic.
    rho : float
        The zCDP of the whole run as the library runs it: T x ``weak_learner_rho(n, kappa, sigma, d)`` (the grid's
        inflated sensitivity, Lemma 14), rounded up; +inf at sigma = 0 (not private).
    """

    z_bar: np.ndarray
    hypotheses: np.ndarray
    max_weight: np.ndarray
    rho: float


@dataclass(frozen=True)
class SmoothBoostResult:
    """One private SmoothBoost run (bun2020 Alg. 10-13).

    Attributes
    ----------
    z_bar : ndarray (d,)
        Average released hypothesis vector (zeros when no round ran).
    hypotheses : ndarray (rounds, d)
    rounds : int
        Rounds actually run (<= T_max; the final BOT test is not a round).
    stopped : bool
        True when the noisy stopping test fired before the cap.
    epsilon, delta : float
        The privacy of the run, charged for T_max rounds before any noise (the number of rounds run is itself a
        private output): Theorem 53(2) with the sqrt(2) when ``delta_prime`` is given, else basic composition.
    """

    z_bar: np.ndarray
    hypotheses: np.ndarray
    rounds: int
    stopped: bool
    epsilon: float
    delta: float


def as_stump_sample(X, y, thresholds):
    """(X, labels, thresholds) for the private stump learner: X a finite (n, d) matrix (any reals: the stump only
    compares coordinates with thresholds), labels in {-1, +1}, thresholds a finite (d, m) matrix, m >= 1 (a
    DATA-INDEPENDENT grid: the learner never reads it from X)."""
    X = as_float_matrix(X, "X")
    labels = as_labels(y, "y", length=X.shape[0])
    thr = as_float_matrix(thresholds, "thresholds")
    if thr.shape[0] != X.shape[1]:
        raise ValueError(f"thresholds must have one row per feature: shape ({X.shape[1]}, m), got {thr.shape}")
    return X, labels, thr


def check_noisy_max_budget(epsilon, sensitivity):
    """(epsilon, sensitivity) of report-noisy-max: both > 0 and finite; epsilon >= 2^-49 (the discrete Laplace
    sampler's scale limit)."""
    e = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    s = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    if not (math.isfinite(e) and math.isfinite(s)):
        raise ValueError("epsilon and sensitivity must be finite")
    if e < 2.0**-49:
        raise ValueError(f"epsilon must be >= 2^-49 for report-noisy-max (discrete Laplace scale limit), got {e!r}")
    return e, s
