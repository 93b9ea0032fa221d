"""The contract shared by ``reference.radoboost`` and ``fast.radoboost``: result types, constants, arguments.

Both packages return the SAME result classes (so ``spec.compare.assert_same`` compares them field by field),
use the same numerical conventions (below), and validate their arguments here, so a bad argument raises the
same exception with the same message in both.

Numerical conventions (the papers are silent; these are our definitions, identical in both packages):

* ``EDGE_TOL``. An edge with ``|r| <= EDGE_TOL`` is a zero edge: leveraging on it changes nothing (alpha = 0,
  weights unchanged), so every later round would repeat it.  If the weak learner returns a zero edge, the run
  stops with ``stop_reason = "no_edge"``.  Scores within ``EDGE_TOL * max(1, |best|)`` of the best score are
  ties, and ties go to the lowest feature index (the tolerance makes the pure-Python ``math.fsum`` reference
  and the BLAS-based fast package pick the same feature when two scores are mathematically equal).
* ``R_MAX = 1 - 1e-10``.  ``|r| = 1`` gives an infinite leveraging coefficient (eq. 10): every rado with
  positive weight sits at the same extreme ``+-pi_*k`` of feature ``k``.  When the chosen edge has
  ``|r| >= R_MAX`` we take the finite step of ``r* = sign(r) R_MAX`` (alpha = 11.85 / pi_*k) and stop with
  ``stop_reason = "saturated"``: the weights would stay proportional, so every later round would add the same
  step again.  The clamped step keeps Lemma 4's bound (the per-round factor is
  ``(1 - r r*) / sqrt(1 - r*^2) <= sqrt(1 - r*^2)``).
* Features with ``pi_*k = max_j |pi_jk| = 0`` have an undefined edge (0/0) and are never selected.  If every
  feature is zero, the run stops before round 1 with ``stop_reason = "no_feature"`` and ``theta = 0``.
* ``MIN_PSTAR = 1e-100``.  A feature with 0 < pi_*k < MIN_PSTAR is refused (ValueError): its leveraging
  coefficients atanh(r)/pi_*k (up to 11.9 / pi_*k) and the regularisers of theta would overflow float64.
  Rescale such a feature, or set it to 0 (a zero feature is simply never selected).
* Weights that underflow: RadoBoost renormalises w every round and Omega-R.AdaBoost keeps log-weights, so
  individual weights may become 0.0 (negligible next to the largest) while w stays a distribution and the
  risks (kept in log space, ``log_exp_risk``) stay finite.
* Computed edges are clipped to [-1, 1] (an edge that is exactly +-1 can round one ulp outside).
* ``T = 0`` returns ``theta = 0``, empty traces and uniform weights (``stop_reason = "completed"``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fast._contracts.validation import as_float_matrix, check_int, check_open_unit, check_real

EDGE_TOL = 1e-10
R_MAX = 1.0 - 1e-10
MIN_PSTAR = 1e-100
WEAK_LEARNERS = ("strong", "prudential", "median", "random")
OMEGA_WEAK_LEARNERS = ("preference", "half_square", "strong")
REGULARIZERS = ("none", "lasso", "ridge", "linf", "slope", "elastic_net")
STOP_REASONS = ("completed", "no_edge", "saturated", "no_feature")


@dataclass
class BoostingTrace:
    """The fields and views every booster's result shares (see :class:`RadoBoostResult` for their meaning)."""

    theta: np.ndarray
    features: np.ndarray
    r: np.ndarray
    r_star: np.ndarray
    alpha: np.ndarray
    log_exp_risk: np.ndarray
    weights: np.ndarray
    stop_reason: str

    @property
    def exp_risk(self) -> np.ndarray:
        """F^r_exp(S, theta_t, U) per round (may underflow to 0; use log_exp_risk)."""
        return np.exp(self.log_exp_risk)

    @property
    def gamma(self) -> float:
        """The realised weak-learning margin min_t |r*_t| (nock2015 WLA); 0.0 when no round ran."""
        return float(np.min(np.abs(self.r_star))) if self.r_star.size else 0.0

    def iterates(self) -> np.ndarray:
        """(T', d) array of theta_1, ..., theta_T' (row t is the classifier after round t+1)."""
        steps = np.zeros((self.features.size, self.theta.size))
        steps[np.arange(self.features.size), self.features] = self.alpha
        return np.cumsum(steps, axis=0)


@dataclass
class RadoBoostResult(BoostingTrace):
    """Output of RadoBoost (nock2015 Algorithm 1), with its per-round trace.

    theta         (d,) the classifier theta_T = sum_t alpha_t 1_{iota(t)}
    features      (T',) int64: iota(t), the chosen feature of each round actually run (T' <= T)
    r             (T',) the edge r_t of the chosen feature, eq. (9), before any clamp
    r_star        (T',) the edge used for alpha_t and the weight update (clamped by the prudential learner or
                  at saturation; equal to r otherwise)
    alpha         (T',) the leveraging coefficients alpha_t, eq. (10) / (17)
    log_exp_risk  (T',) log F^r_exp(S, theta_t, U) after each round (log-space: the risk may underflow)
    weights       (n,) the final weights w_{T'+1} (a distribution)
    stop_reason   "completed" | "no_edge" | "saturated" | "no_feature"
    kappa         the normalisation of the leveraging coefficients (eq. 17)
    """

    kappa: float = 1.0

    def lemma4_log_bounds(self) -> tuple[float, float, float]:
        """(chain, sum, wla): the three upper bounds on log F^r_exp(theta_T) of nock2015 Lemma 4, sharpest first:
        (1/kappa) sum_t log((1 - r_t r*_t)/sqrt(1 - r*_t^2)) <= -(1/(2 kappa)) sum_t r*_t^2 <= -T gamma^2/(2 kappa)
        with gamma = min_t |r*_t| (the realised weak-learning margin) and T the rounds run."""
        r, rs = self.r, self.r_star
        # log(1 - r*^2) as log1p(-r*) + log1p(r*): exact near |r*| = 1, where 1 - r*^2 loses digits
        chain = math.fsum(math.log1p(-float(a) * float(b)) - 0.5 * (math.log1p(-float(b)) + math.log1p(float(b)))
                          for a, b in zip(r, rs)) / self.kappa
        total = -math.fsum(float(b) * float(b) for b in rs) / (2.0 * self.kappa)
        wla = -rs.size * self.gamma ** 2 / (2.0 * self.kappa)
        return chain, total, wla


@dataclass
class OmegaRAdaBoostResult(BoostingTrace):
    """Output of Omega-R.AdaBoost (nock2016 Algorithm 1) / AdaBoost, with its per-round trace.

    As :class:`RadoBoostResult`, plus
    delta         (T',) delta_t = omega (Omega(theta_t) - Omega(theta_{t-1})), eq. (16)
    log_z         (T',) log Z_t, the log normaliser of eq. (17)
    log_loss      (T',) log l^exp_r(S_r, theta_t, Omega) = log F^r_exp(theta_t) + omega Omega(theta_t), computed
                  directly (not from the Z_t: the identity loss = prod Z_t is checked, not assumed)
    """

    delta: np.ndarray
    log_z: np.ndarray
    log_loss: np.ndarray


def empty_trace() -> dict:
    """The per-round trace both packages fill (the fields of RadoBoostResult that are per-round arrays)."""
    return {"features": [], "r": [], "r_star": [], "alpha": [], "log_exp_risk": []}


def record_round(trace: dict, k: int, r: float, r_star: float, alpha: float, log_exp_risk: float) -> None:
    """Append one round to a trace made by :func:`empty_trace` (python ints/floats, so both packages match)."""
    trace["features"].append(int(k))
    trace["r"].append(float(r))
    trace["r_star"].append(float(r_star))
    trace["alpha"].append(float(alpha))
    trace["log_exp_risk"].append(float(log_exp_risk))


def as_rados(rados, name: str = "rados") -> np.ndarray:
    """An (n, d) finite float64 matrix, n >= 1, d >= 1 (one rado per ROW), no feature with 0 < pi_*k < MIN_PSTAR."""
    Pi = as_float_matrix(rados, name)
    check_scale(Pi, name)
    return Pi


def check_scale(Pi: np.ndarray, name: str, pstar: np.ndarray | None = None) -> None:
    """Refuse a feature with 0 < max_j |Pi_jk| < MIN_PSTAR (its leveraging coefficients would overflow).
    ``pstar``: max_j |Pi_jk| when the caller has it already (one pass less)."""
    if pstar is None:
        pstar = np.max(np.abs(Pi), axis=0)
    tiny = np.flatnonzero((pstar > 0) & (pstar < MIN_PSTAR))
    if tiny.size:
        k = int(tiny[0])
        raise ValueError(
            f"{name}: feature {k} has max |value| = {pstar[k]:.3g}, in (0, {MIN_PSTAR:g}): its leveraging "
            f"coefficients (~ 1/max|value|) would overflow float64; rescale the feature or set it to 0")


def check_T(T) -> int:
    return check_int(T, "T", minimum=0)


def check_kappa(kappa) -> float:
    # kappa >= 1 (nock2015 Sec. 5.2): eq. (17)'s bound needs it (Jensen on x -> x^(1/kappa))
    return check_real(kappa, "kappa", low=1.0)


def check_weak_learner(weak_learner, lambda_p, choices=WEAK_LEARNERS) -> tuple[str, float | None]:
    if not isinstance(weak_learner, str):
        raise TypeError(f"weak_learner must be a string, one of {choices}, got {type(weak_learner).__name__}")
    if weak_learner not in choices:
        raise ValueError(f"weak_learner must be one of {choices}, got {weak_learner!r}")
    if weak_learner == "prudential":
        if lambda_p is None:
            raise ValueError("lambda_p is required by weak_learner='prudential' (a number in (0, 1))")
        lambda_p = check_open_unit(lambda_p, "lambda_p")
    elif lambda_p is not None:
        raise ValueError(f"lambda_p is only used by weak_learner='prudential', got weak_learner={weak_learner!r}")
    return weak_learner, lambda_p


def check_regularizer(regularizer) -> str:
    if not isinstance(regularizer, str):
        raise TypeError(f"regularizer must be a string, one of {REGULARIZERS}, got {type(regularizer).__name__}")
    if regularizer not in REGULARIZERS:
        raise ValueError(f"regularizer must be one of {REGULARIZERS}, got {regularizer!r}")
    return regularizer


def check_omega_args(regularizer, omega, gamma, weak_learner, regularizer_params):
    """Validate the arguments of omega_radaboost (same messages in both packages)."""
    regularizer = check_regularizer(regularizer)
    omega = check_real(omega, "omega", low=0.0)
    if gamma is not None:
        gamma = check_open_unit(gamma, "gamma")
        if regularizer != "ridge":
            raise ValueError(
                f"gamma is the ridge clamp of Omega-WL (nock2016 eq. 18) and applies only to regularizer='ridge', "
                f"got regularizer={regularizer!r}")
    weak_learner, _ = check_weak_learner(weak_learner, None, OMEGA_WEAK_LEARNERS)
    if regularizer_params is None:
        regularizer_params = {}
    if not isinstance(regularizer_params, dict):
        raise TypeError(f"regularizer_params must be a dict or None, got {type(regularizer_params).__name__}")
    return regularizer, omega, gamma, weak_learner, dict(regularizer_params)


def saturation_step(r: float) -> float:
    """The edge used when |r| >= R_MAX: sign(r) * R_MAX."""
    return math.copysign(R_MAX, r)
