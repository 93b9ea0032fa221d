"""RadoBoost, Omega-R.AdaBoost, their weak learners, and the AdaBoost baseline   [nock2015 s3-6; nock2016 s4].

Readable reference: loops and sums as in the papers (``math.fsum``), numpy only at the boundary.

Conventions (docs/architecture.md): rados are ROWS of an (n, d) array (the papers' Pi has them as columns);
pi_*k = max_j |pi_jk|.  The numerical conventions the papers leave open (|r| = 1, zero edges, ties,
features with pi_*k = 0, T = 0) are defined once in :mod:`spec.radoboost_contract` and are the same in
``fast.radoboost``.

Weak learners of RadoBoost (``weak_learner=``):

* ``"strong"``: argmax_k |r_k| (nock2015 s3: "WFI returns a feature index maximizing |r_t|").
* ``"prudential"`` (needs ``lambda_p`` in (0, 1)): the feature with the largest |r_k| <= lambda_p, so the
  learner is lambda_p-prudential (nock2015 s5.2).  The paper gives no rule when every feature has
  |r_k| > lambda_p; we then take the strongest feature and clamp its edge to sign(r) lambda_p, as nock2016's
  Omega-WL clamps (eq. 18).  The clamped step keeps Lemma 4 with gamma = min_t |r*_t|
  (per-round factor (1 - r r*)/sqrt(1 - r*^2) <= sqrt(1 - r*^2) when |r| >= |r*| and sign(r) = sign(r*)).
* ``"median"``: the median-prudential learner of the experiments (nock2015 s6): lambda_p-prudential with
  lambda_p the LOWER median of the non-zero |r_k| of the round (never clamps).
* ``"random"``: a uniformly random usable feature with a non-zero edge (one ``rng.integers`` draw per round);
  a baseline, the only learner that uses ``rng``.

Zero edges (|r| <= EDGE_TOL) are never selected; when no feature has a non-zero edge the run stops.
"""
from __future__ import annotations

import math

import numpy as np

from reference.rados import edge_vectors, log_exp_rado_risk
from spec.links import implements
from spec.radoboost_contract import (
    EDGE_TOL,
    R_MAX,
    OmegaRAdaBoostResult,
    RadoBoostResult,
    as_rados,
    check_kappa,
    check_omega_args,
    check_scale,
    check_T,
    check_weak_learner,
    empty_trace,
    record_round,
    saturation_step,
)
from spec.validation import as_float_vector, as_generator, as_labels, as_float_matrix, check_int

__all__ = ["normalised_edges", "radoboost", "omega_radaboost", "adaboost"]


# --------------------------------------------------------------------------- shared pieces


def _columns_max(Pi):
    """pi_*k = max_j |pi_jk| for every feature k."""
    d = len(Pi[0])
    return [max(abs(row[k]) for row in Pi) for k in range(d)]


def _edges(Pi, w, pstar):
    """r_k = (1/pi_*k) sum_j w_j pi_jk (0.0 where pi_*k = 0: the feature is unusable), clipped to [-1, 1]
    (the rounded products w_j pi_jk can push an edge that is exactly +-1 one ulp outside)."""
    return [min(1.0, max(-1.0, math.fsum(w[j] * Pi[j][k] for j in range(len(Pi))) / pstar[k])) if pstar[k] > 0
            else 0.0 for k in range(len(pstar))]


def _select(scores, eligible):
    """The lowest index among ``eligible`` whose score is within EDGE_TOL * max(1, |best|) of the best."""
    best = max(scores[k] for k in eligible)
    tol = EDGE_TOL * max(1.0, abs(best))
    for k in sorted(eligible):
        if scores[k] >= best - tol:
            return k
    raise AssertionError("unreachable")


def _atanh_step(r_star: float) -> float:
    """(1/2) log((1 + r*)/(1 - r*)) = atanh(r*), the unnormalised leveraging coefficient times pi_*."""
    return 0.5 * math.log((1.0 + r_star) / (1.0 - r_star))


def _rado_weak_learner(r, usable, weak_learner, lambda_p, rng):
    """(iota, r*) for RadoBoost's WFI, or None when no usable feature has a non-zero edge."""
    strength = [abs(x) for x in r]
    candidates = [k for k in usable if strength[k] > EDGE_TOL]
    if not candidates:
        return None
    if weak_learner == "strong":
        k = _select(strength, candidates)
        return k, r[k]
    if weak_learner == "random":
        k = candidates[int(rng.integers(len(candidates)))]
        return k, r[k]
    if weak_learner == "median":
        ordered = sorted(strength[k] for k in candidates)
        lambda_p = ordered[(len(ordered) - 1) // 2]  # lower median of the non-zero |r_k|
    # eligible: |r_k| <= lambda_p, up to EDGE_TOL (so an edge equal to lambda_p is eligible in both packages)
    bound = lambda_p + EDGE_TOL * max(1.0, lambda_p)
    eligible = [k for k in candidates if strength[k] <= bound]
    if eligible:
        k = _select(strength, eligible)
        if weak_learner == "prudential" and strength[k] > lambda_p:
            return k, math.copysign(lambda_p, r[k])  # within EDGE_TOL above lambda_p: use lambda_p itself
        return k, r[k]
    k = _select(strength, candidates)  # no feature is prudential: clamp the strongest (nock2016 eq. 18)
    return k, math.copysign(lambda_p, r[k])


def _saturate(r_star: float):
    """(r*, saturated): |r*| >= R_MAX is clamped to sign(r*) R_MAX and ends the run."""
    if abs(r_star) >= R_MAX:
        return saturation_step(r_star), True
    return r_star, False


# --------------------------------------------------------------------------- RadoBoost


@implements("nock2016.eq19")
def normalised_edges(rados, weights):
    """r_k = (1/pi_*k) sum_{j=1}^n w_j pi_jk, in [-1, 1]   [nock2015 eq. (9); nock2016 eq. (19)].

    ``rados`` (n, d), one rado per ROW; ``weights`` (n,) non-negative.  Features with pi_*k = 0 (edge 0/0,
    never selectable) get r_k = 0.0.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    weights : array_like of shape (n,)
        A distribution over the rados.

    Returns
    -------
    numpy.ndarray of shape (d,)
        The edges r_k (0 for a feature whose rados are all 0).

    Raises
    ------
    ValueError
        If a weight is negative, or an input has a bad shape or value.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from reference.radoboost import normalised_edges
    >>> np.round(normalised_edges(P, np.full(30, 1 / 30)), 4)
    array([0.7318, 0.5329, 0.2514])
    """
    Pi = as_rados(rados)
    w = as_float_vector(weights, "weights", length=Pi.shape[0])
    if any(x < 0 for x in w):
        raise ValueError("weights must be non-negative")
    Pi = Pi.tolist()
    return np.array(_edges(Pi, w.tolist(), _columns_max(Pi)), dtype=np.float64)


@implements("nock2015.alg1", "nock2015.wfi.strong", "nock2015.wfi.prudential", "nock2015.wfi.median",
            "nock2015.eq17", "nock2015.alg1.wnorm", "nock2015.alg1.adaequiv", "nock2015.lemma4", "nock2015.eq13")
def radoboost(rados, T, *, weak_learner="strong", kappa=1.0, lambda_p=None, rng=None):
    """theta_T = sum_t alpha_t 1_iota(t), alpha_t = log((1+r_t)/(1-r_t)) / (2 kappa pi_*iota(t)),
    w_(t+1)j = w_tj (1 - r_t pi_jiota(t)/pi_*iota(t)) / (1 - r_t^2)   [nock2015 Algorithm 1, eqs. (9)-(11), (17)].

    ``rados`` (n, d), one rado per ROW; ``T`` >= 0 rounds; ``kappa`` >= 1 normalises the leveraging
    coefficients (nock2015 s5.2, eq. 17: with the factor 2 kept, kappa = 1 is eq. (10) exactly; the weights do
    not depend on kappa, so theta_T(kappa) = theta_T(1) / kappa).  The weights are renormalised every round:
    eq. (11) keeps their sum at 1 in exact arithmetic (nock2015.alg1.wnorm), renormalising removes the
    floating-point drift and lets individual weights underflow to 0 harmlessly.  Returns a
    :class:`~spec.radoboost_contract.RadoBoostResult` with the per-round trace.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    T : int
        Number of boosting rounds (>= 0).
    weak_learner : {"strong", "prudential", "median", "random"}, default="strong"
        The weak learner choosing iota(t) (nock2015 s5).
    kappa : float, default=1.0
        Normalisation (>= 1) of the leveraging coefficients, eq. (17).
    lambda_p : float, optional
        Clamp of the prudential weak learner.
    rng : None, int or numpy.random.Generator, optional
        Seed of the random weak learner.

    Returns
    -------
    RadoBoostResult
        ``theta``, the per-round trace (features, edges, alpha, log risk), final weights and ``stop_reason``.

    Raises
    ------
    ValueError
        If the rados are not finite or an option is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from reference.radoboost import radoboost
    >>> res = radoboost(P, 10)
    >>> res.stop_reason, float(np.mean(np.sign(X @ res.theta) == y))
    ('completed', 1.0)
    """
    Pi = as_rados(rados)
    T = check_T(T)
    weak_learner, lambda_p = check_weak_learner(weak_learner, lambda_p)
    kappa = check_kappa(kappa)
    rng = as_generator(rng)
    n, d = Pi.shape
    Pi = Pi.tolist()
    pstar = _columns_max(Pi)
    usable = [k for k in range(d) if pstar[k] > 0]
    theta = [0.0] * d
    w = [1.0 / n] * n
    trace = empty_trace()
    stop_reason = "completed"
    if T > 0 and not usable:
        stop_reason = "no_feature"
    for _ in range(T if usable else 0):
        r = _edges(Pi, w, pstar)  # eq. (9)
        choice = _rado_weak_learner(r, usable, weak_learner, lambda_p, rng)
        if choice is None:
            stop_reason = "no_edge"
            break
        k, r_star = choice
        r_star, saturated = _saturate(r_star)
        alpha = _atanh_step(r_star) / (kappa * pstar[k])  # eq. (10) / (17)
        theta[k] += alpha
        # eq. (11), then renormalise
        w = [w[j] * (1.0 - r_star * Pi[j][k] / pstar[k]) / (1.0 - r_star * r_star) for j in range(n)]
        total = math.fsum(w)
        w = [x / total for x in w]
        record_round(trace, k, r[k], r_star, alpha, log_exp_rado_risk(np.array(Pi), np.array(theta)))
        if saturated:
            stop_reason = "saturated"
            break
    return _result(RadoBoostResult, theta, w, trace, stop_reason, kappa=kappa)


def _result(cls, theta, w, trace, stop_reason, **extra):
    scalars = {key: value for key, value in extra.items() if isinstance(value, float)}
    arrays = {key: np.array(values, dtype=np.int64 if key == "features" else np.float64)
              for key, values in {**trace, **extra}.items() if key not in scalars}
    return cls(theta=np.array(theta, dtype=np.float64), weights=np.array(w, dtype=np.float64),
               stop_reason=stop_reason, **arrays, **scalars)


# --------------------------------------------------------------------------- Omega-R.AdaBoost


def _regularizer(regularizer, params, d):
    """Omega(theta) as a callable (the regularizers module; "none" is Omega = 0 there), evaluated once at theta = 0
    so that parameters not fitting d features (Gamma's shape) are refused before any round, as in fast."""
    from reference.regularizers import get_regularizer

    Omega = get_regularizer(regularizer, **params)
    Omega([0.0] * d)
    return Omega


def _omega_weak_learner(r, usable, pstar, theta, Omega, omega, weak_learner):
    """(iota, delta_iota) of Omega-WL Step 1, or None when no usable feature has a non-zero edge.

    Scores: "preference" |r_k| - delta_k (nock2016 Algorithm 2 / s5), "half_square" r_k^2/2 - delta_k (the
    quantity of the bound quoted in s5), "strong" |r_k|.  delta_k = omega (Omega(theta + alpha_k 1_k) -
    Omega(theta)) with the unclamped alpha_k (saturated edges use R_MAX).
    """
    candidates = [k for k in usable if abs(r[k]) > EDGE_TOL]
    if not candidates:
        return None
    base = Omega(theta)
    score = [0.0] * len(r)
    delta = [0.0] * len(r)
    for k in candidates:
        if weak_learner != "strong" and omega > 0:
            r_k = saturation_step(r[k]) if abs(r[k]) >= R_MAX else r[k]
            moved = list(theta)
            moved[k] += _atanh_step(r_k) / pstar[k]
            delta[k] = omega * (Omega(moved) - base)
        gain = abs(r[k]) if weak_learner != "half_square" else r[k] * r[k] / 2.0
        score[k] = gain - delta[k]
    return _select(score, candidates)


def _exponential_boost(Pi, T, regularizer, omega, gamma, weak_learner, params):
    """Omega-R.AdaBoost on the rows of Pi (rados, or edge vectors for AdaBoost)."""
    n, d = len(Pi), len(Pi[0])
    Omega = _regularizer(regularizer, params, d)
    pstar = _columns_max(Pi)
    usable = [k for k in range(d) if pstar[k] > 0]
    theta = [0.0] * d
    log_w = [-math.log(n)] * n
    w = [1.0 / n] * n
    trace = empty_trace()
    extra = {"delta": [], "log_z": [], "log_loss": []}
    stop_reason = "completed"
    if T > 0 and not usable:
        stop_reason = "no_feature"
    omega_theta = 0.0  # omega * Omega(theta_{t-1}); Omega(0) = 0
    for _ in range(T if usable else 0):
        r = _edges(Pi, w, pstar)  # eq. (19), with w_{t-1} (the only weights available at Step 2.1)
        k = _omega_weak_learner(r, usable, pstar, theta, Omega, omega, weak_learner)
        if k is None:
            stop_reason = "no_edge"
            break
        r_star = r[k]
        if gamma is not None and abs(r_star) > gamma:  # eq. (18), ridge clamp
            r_star = math.copysign(gamma, r_star)
        r_star, saturated = _saturate(r_star)
        alpha = _atanh_step(r_star) / pstar[k]  # eq. (16)
        theta[k] += alpha
        omega_theta_new = omega * Omega(theta)
        delta = omega_theta_new - omega_theta  # eq. (16)
        omega_theta = omega_theta_new
        # eq. (17) in log space: u_j = w_j exp(-alpha pi_jk + delta), Z = sum_j u_j.  delta is the same for every j:
        # it cancels in w_t and is added to log Z only (adding it to each log u_j first would wipe out their
        # digits when |delta| is large, e.g. a lasso step of 1e55 on a feature with pi_* = 1e-56).
        log_u = [log_w[j] - alpha * Pi[j][k] for j in range(n)]
        top = max(log_u)
        log_z_plain = top + math.log(math.fsum(math.exp(v - top) for v in log_u))
        log_w = [v - log_z_plain for v in log_u]
        log_z = log_z_plain + delta
        w = [math.exp(v) for v in log_w]
        log_risk = log_exp_rado_risk(np.array(Pi), np.array(theta))
        record_round(trace, k, r[k], r_star, alpha, log_risk)
        extra["delta"].append(delta)
        extra["log_z"].append(log_z)
        extra["log_loss"].append(log_risk + omega_theta)
        if saturated:
            stop_reason = "saturated"
            break
    return _result(OmegaRAdaBoostResult, theta, w, trace, stop_reason, **extra)


@implements("nock2016.alg1", "nock2016.alg2", "nock2016.sec5.wl", "nock2016.alg1.lossid", "nock2016.thm9",
            "nock2016.thm10", "nock2016.thm11")
def omega_radaboost(rados, T, *, regularizer="none", omega=0.0, gamma=None, weak_learner="preference",
                    regularizer_params=None):
    """theta_t = theta_(t-1) + alpha_iota(t) 1_iota(t), delta_t = omega (Omega(theta_t) - Omega(theta_(t-1))),
    w_tj = w_(t-1)j exp(-alpha_t pi_jiota(t) + delta_t) / Z_t   [nock2016 Algorithms 1-2, eqs. (16)-(19)].

    ``regularizer`` in {"none", "lasso", "ridge", "linf", "slope", "elastic_net"} (Omega from the
    regularizers module, parameters in ``regularizer_params``, e.g. ``{"Gamma": G}`` or ``{"q": 0.1}``);
    ``omega`` >= 0; ``gamma`` in (0, 1) is the ridge clamp of Omega-WL (eq. 18; None = no clamp, as in the
    experiments).  ``weak_learner``: "preference" (argmax |r| - delta, the paper's), "half_square"
    (argmax r^2/2 - delta) or "strong" (argmax |r|).  Weights live in log space (rado values can be large).
    delta_t cancels in the normalised weights; it enters Z_t, and prod_t Z_t is the regularised loss.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    T : int
        Number of boosting rounds (>= 0).
    regularizer : {"none", "lasso", "ridge", "linf", "slope", "elastic_net"}, default="none"
        The regularizer Omega.
    omega : float, default=0.0
        Regularisation strength (>= 0).
    gamma : float, optional
        Ridge clamp of Omega-WL in (0, 1), eq. (18) (None: no clamp).
    weak_learner : {"preference", "half_square", "strong"}, default="preference"
        The weak learner.
    regularizer_params : dict, optional
        Parameters of the regularizer (e.g. ``{"q": 0.1}`` for slope).

    Returns
    -------
    OmegaRAdaBoostResult
        ``theta`` and the per-round trace (with delta_t, log Z_t and the regularised log loss).

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from reference.radoboost import omega_radaboost
    >>> res = omega_radaboost(P, 10, regularizer="lasso", omega=0.1)
    >>> res.theta.shape, bool(np.all(np.diff(res.log_loss) <= 1e-12))
    ((3,), True)
    """
    Pi = as_rados(rados)
    T = check_T(T)
    regularizer, omega, gamma, weak_learner, params = check_omega_args(
        regularizer, omega, gamma, weak_learner, regularizer_params)
    return _exponential_boost(Pi.tolist(), T, regularizer, omega, gamma, weak_learner, params)


@implements("nock2015.alg.adaboost", "nock2015.eq14", "nock2016.sec5.l1ada")
def adaboost(X, y, T, *, n=None, rng=None, regularizer="none", omega=0.0, regularizer_params=None):
    """AdaBoost (Schapire-Singer) with the one-feature weak learner: r_k = (1/x_*k) sum_i w_i y_i x_ik,
    alpha = log((1+r)/(1-r)) / (2 x_*iota), w_i <- w_i exp(-alpha y_i x_iiota) / Z   [nock2015 s4, eq. (14)];
    with ``regularizer``/``omega``: the regularised baseline of nock2016 s5 ("l1 regularized-AdaBoost").

    The same as :func:`omega_radaboost` run on the edge vectors e_i = y_i x_i (the edge set is a rado set
    with n = m; log_exp_risk is then the example exponential loss).  ``n``: AdaBoost(n) of nock2015 Table 1,
    trained on n examples drawn uniformly without replacement (``rng.permutation(m)[:n]``).

    Regularised AdaBoost (``regularizer="lasso"``, ``omega`` = beta; any regulariser of omega_radaboost is
    accepted, ``regularizer_params`` as there).  What we implement, exactly: Omega-R.AdaBoost (nock2016
    Algorithms 1-2, preference order of s5, no clamp) on the edge vectors, i.e. greedy boosting of

        log l(theta) = log((1/m) sum_i exp(-theta . y_i x_i)) + omega Omega(theta),

    each round choosing argmax_k |r_k| - omega (Omega(theta + alpha_k 1_k) - Omega(theta)) (alpha_k the
    unregularised AdaBoost step of feature k) and then taking the full AdaBoost step alpha_k on it; the
    trace's log_loss is log l(theta_t) and prod_t Z_t = l(theta_t) (nock2016.alg1.lossid).  With omega = 0
    (or regularizer "none") this is plain AdaBoost, bit for bit.

    How it may differ from Xi et al. (2009), of which nock2016 s5 tells only "l1 regularized-AdaBoost" with
    "its omega (beta in [Xi et al., 2009]) in {1e-4, 1, 1e4}" (their paper is not in our library; its public
    abstract names l1-regularised loss minimisation, epsilon-AdaBoost and a hybrid "AdaBoost+L1", and which one
    nock2016 ran is not said).  (i) l1-regularised loss minimisation seeks a minimiser of an ADDITIVE objective
    L(theta) + beta ||theta||_1, ours is log-multiplicative: the stationarity conditions grad L + beta s = 0 and
    grad L / L + omega s = 0 agree when beta = omega L(theta), so one omega is not one beta along the path; with
    L the SUM of the m exponential losses (unknown to us: sum or mean), theta = 0 gives omega = beta / m
    (experiments/rado_boosting.py reports both omega = beta and omega = beta / m).  (ii) An exact minimiser can
    shrink or zero a coefficient; our greedy steps only choose WHICH coordinate takes a full AdaBoost step (the
    penalty never shortens or reverses a step).  Sparsity then comes from re-using features and, with the kept
    iterate minimising l, from stopping early: with a large omega (e.g. 1e4 on z-scored features) that iterate is
    typically theta_0 = 0.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    T : int
        Number of boosting rounds (>= 0).
    n : int, optional
        Train on n examples drawn without replacement (AdaBoost(n) of nock2015 Table 1).
    rng : None, int or numpy.random.Generator, optional
        Seed of that draw.
    regularizer : str, default="none"
        As :func:`omega_radaboost`.
    omega : float, default=0.0
        Regularisation strength (>= 0).
    regularizer_params : dict, optional
        Parameters of the regularizer.

    Returns
    -------
    OmegaRAdaBoostResult
        ``theta`` and the per-round trace.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from reference.radoboost import adaboost
    >>> res = adaboost(X, y, 10)
    >>> float(np.mean(np.sign(X @ res.theta) == y)) >= 0.9
    True
    """
    X = as_float_matrix(X, "X")
    y = as_labels(y, "y", length=X.shape[0])
    T = check_T(T)
    rng = as_generator(rng)
    check_scale(X, "X")
    regularizer, omega, _, _, params = check_omega_args(regularizer, omega, None, "preference", regularizer_params)
    if n is not None:
        n = check_int(n, "n", minimum=1, maximum=X.shape[0])
        rows = rng.permutation(X.shape[0])[:n]
        X, y = X[rows], y[rows]
    E = edge_vectors(X, y).tolist()
    weak_learner = "strong" if regularizer == "none" or omega == 0 else "preference"
    return _exponential_boost(E, T, regularizer, omega, None, weak_learner, params)
