"""RadoBoost, Omega-R.AdaBoost, their weak learners, and the AdaBoost baseline   [nock2015 s3-6; nock2016 s4].

Vectorised twin of :mod:`reference.radoboost` (same names, signatures, results, errors; the conventions for
|r| = 1, zero edges, ties, pi_*k = 0 and T = 0 are in :mod:`spec.radoboost_contract`).

Cost per round: one pass over the rado matrix (the edges w^T Pi, a BLAS gemv on a Fortran-ordered copy) plus
O(n) for the chosen column, the weight update and the running margins theta_t . pi_j (so the exponential
rado risk of every iterate costs O(n), not O(nd)).  Per-round overhead is what separates the loop from the
textbook numpy loop (benchmarks/peers/radoboost.py): the strong weak learner and the edges' normalisation are one compiled
pass over d, RadoBoost's O(n) update is one compiled two-pass kernel plus numpy's vectorised exp, and the
exponential loop (Omega-R.AdaBoost, AdaBoost) reads its rado risk off the running sum of log Z_t instead of a
pass over the margins.  An exact incremental update of w^T Pi that avoids the pass
does not exist in general: after eq. (11), w' ~ w o (1 - c Pi_iota), so w'^T Pi needs (w o Pi_iota)^T Pi, itself
a full pass (the change is a diagonal rescaling of w, not a rank-one change of w^T Pi).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from fast._blas import limit_blas
from fast._risk_kernels import exp_in_place, exp_sum

from fast.regularizers import slope_weights
from fast._contracts.links import implements
from fast._contracts.radoboost_contract import (
    EDGE_TOL,
    R_MAX,
    OmegaRAdaBoostResult,
    RadoBoostResult,
    check_kappa,
    check_omega_args,
    check_scale,
    check_T,
    check_weak_learner,
    empty_trace,
    record_round,
    saturation_step,
)
from fast._contracts.validation import (as_float_matrix, as_float_vector, as_generator, as_labels, check_finite_array,
                                        check_int)

__all__ = ["normalised_edges", "radoboost", "omega_radaboost", "adaboost"]


# --------------------------------------------------------------------------- shared pieces


@njit(cache=True, nogil=True)
def _rado_round(w, column, c, alpha, neg_margins, shifted):  # pragma: no cover - compiled
    """One RadoBoost update fused into two passes (the trace's log-sum-exp needs the max first): w_j <-
    w_j (1 - c pi_jk) / sum, neg_margins_j -= alpha pi_jk, shifted_j = neg_margins_j - max; returns the max.
    Same elementwise operations as the numpy form; the sum is sequential instead of pairwise (a few ulps apart)."""
    total = 0.0
    top = -np.inf
    for j in range(w.size):
        x = column[j]
        v = w[j] * (1.0 - x * c)
        w[j] = v
        total += v
        m = neg_margins[j] - x * alpha
        neg_margins[j] = m
        if m > top:
            top = m
    for j in range(w.size):
        w[j] /= total
        shifted[j] = neg_margins[j] - top
    return top


@njit(cache=True, nogil=True)
def _strong_edges(r, inv_pstar, usable, tol):  # pragma: no cover - compiled
    """Turn the products w . Pi_k into edges in place (r_k * (1/pi_*k), clipped to [-1, 1], as _Rados.edges) and
    return the strong weak learner's choice: the lowest usable k with |r_k| > tol whose |r_k| is within
    tol * max(1, best) of the best (as _select on the candidates), or -1 when no feature has |r_k| > tol."""
    best = -1.0
    for k in range(r.size):
        v = min(max(r[k] * inv_pstar[k], -1.0), 1.0)
        r[k] = v
        if usable[k] and abs(v) > tol and abs(v) > best:
            best = abs(v)
    if best < 0.0:
        return -1
    bound = best - tol * max(1.0, best)
    for k in range(r.size):
        if usable[k] and abs(r[k]) > tol and abs(r[k]) >= bound:
            return k
    return -1  # unreachable: the best qualifies


@njit(cache=True, nogil=True)
def _lasso_preference(r, usable, pstar, theta, omega, tol, r_max):  # pragma: no cover - compiled
    """_omega_weak_learner for the lasso and the preference weak learner in one pass over d: candidates usable with
    |r_k| > tol, score_k = |r_k| - omega (|theta_k + step_k| - |theta_k|), step_k = atanh(clip(r_k)) / pi_*k
    (written 0.5 log((1 + r) / (1 - r)) as the numpy form); the lowest candidate within tol * max(1, |best|) of
    the best score, or -1 when there is no candidate."""
    d = r.size
    score = np.empty(d)
    best = -np.inf
    found = False
    for k in range(d):
        a = abs(r[k])
        if usable[k] and a > tol:
            rc = min(max(r[k], -r_max), r_max)
            step = 0.5 * np.log((1.0 + rc) / (1.0 - rc)) / pstar[k]
            v = a - omega * (abs(theta[k] + step) - abs(theta[k]))
            score[k] = v
            if not found or v > best:
                best = v
            found = True
    if not found:
        return -1
    bound = best - tol * max(1.0, abs(best))
    for k in range(d):
        if usable[k] and abs(r[k]) > tol and score[k] >= bound:
            return k
    return -1


@njit(cache=True, nogil=True)
def _log_weights_step(log_w, column, alpha, shifted):  # pragma: no cover - compiled
    """log u_j = log w_j - alpha pi_jk in place; shifted_j = log u_j - max_j log u_j; returns the max."""
    top = -np.inf
    for j in range(log_w.size):
        v = log_w[j] - alpha * column[j]
        log_w[j] = v
        if v > top:
            top = v
    for j in range(log_w.size):
        shifted[j] = log_w[j] - top
    return top


@njit(cache=True, nogil=True)
def _log_weights_normalise(log_w, w, log_z, total):  # pragma: no cover - compiled
    """log w_j = log u_j - log Z and w_j = exp(log u_j - max) / sum (= exp(log w_j) up to an ulp), in place."""
    for j in range(log_w.size):
        log_w[j] -= log_z
        w[j] /= total


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _column_dots(Pi, w, out, lo, hi):  # pragma: no cover - compiled
    """out[k - lo] = sum_j w_j Pi[j, k] for lo <= k < hi (Fortran-ordered Pi: each column contiguous; the sums
    reassociated, so vectorised), four columns per pass over w (each w_j loaded once for four columns: 1.15x
    OpenBLAS's gemv here, one column at a time 0.8x).  No 'nnan' / 'ninf': NaN and inf propagate."""
    n = Pi.shape[0]
    k = lo
    while k + 4 <= hi:
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        for j in range(n):
            wj = w[j]
            a0 += wj * Pi[j, k]
            a1 += wj * Pi[j, k + 1]
            a2 += wj * Pi[j, k + 2]
            a3 += wj * Pi[j, k + 3]
        out[k - lo] = a0
        out[k + 1 - lo] = a1
        out[k + 2 - lo] = a2
        out[k + 3 - lo] = a3
        k += 4
    while k < hi:
        acc = 0.0
        for j in range(n):
            acc += w[j] * Pi[j, k]
        out[k - lo] = acc
        k += 1


def _weighted_columns(Pi, w):
    """w @ Pi for Fortran-ordered Pi by numba column dots, on this thread: one product per round is short (0.1-3 ms)
    and splitting it between threads lost under load (2 threads / 1: 0.72 at n = 1e4, 0.80 at 1e5, load 6 on
    2 cores: thread hand-offs and the GIL between rounds), as a 2-thread OpenBLAS gemv did (see _blas_threads)."""
    out = np.empty(Pi.shape[1])
    _column_dots(Pi, w, out, 0, Pi.shape[1])
    return out


class _Rados:
    """The rado matrix in Fortran order (contiguous columns), pi_*k, and the usable-feature mask."""

    def __init__(self, Pi: np.ndarray, fortran: bool = True, pstar: np.ndarray | None = None):
        self.Pi = np.asfortranarray(Pi, dtype=np.float64) if fortran else Pi
        self.n, self.d = Pi.shape
        self.pstar = np.max(np.abs(self.Pi), axis=0) if pstar is None else pstar
        self.buffer = np.empty(self.n)  # per-round O(n) scratch (no allocation per round)
        self.usable = self.pstar > 0
        self.inv_pstar = np.divide(1.0, self.pstar, out=np.zeros(self.d), where=self.usable)

    def products(self, w: np.ndarray) -> np.ndarray:
        """w @ Pi: numba column dots on a Fortran-ordered matrix (the loops' copy), else one BLAS product."""
        return _weighted_columns(self.Pi, w) if self.Pi.flags.f_contiguous else w @ self.Pi

    def strong(self, w: np.ndarray):
        """(edges, the strong weak learner's feature or -1) in one product and one compiled pass."""
        r = self.products(w)
        return r, int(_strong_edges(r, self.inv_pstar, self.usable, EDGE_TOL))

    def edges(self, w: np.ndarray) -> np.ndarray:
        """r_k = (w . Pi_k) / pi_*k (0 where pi_*k = 0), clipped to [-1, 1]   [eq. (9) / (19)]."""
        r = self.products(w)
        r *= self.inv_pstar
        np.maximum(r, -1.0, out=r)  # = np.clip(r, -1, 1) without its dispatch overhead (NaN propagates alike)
        return np.minimum(r, 1.0, out=r)


def _column_absmax(A: np.ndarray) -> np.ndarray:
    """max_j |A_jk| per column (NaN propagates).  On contiguous columns max(max A, -min A) skips the |A|
    temporary (150 vs 220 µs for 1e4 x 100); on C-ordered rows the column reductions are slower than abs + max."""
    if A.flags.f_contiguous and A.size:
        return np.maximum(A.max(axis=0), -A.min(axis=0))
    return np.max(np.abs(A), axis=0)


def _as_rados(rados):
    """spec.radoboost_contract.as_rados with pi_* computed once: it proves the matrix finite (NaN / inf propagate
    through the column maxima), is the scale rule's input and the edges' normaliser.  Returns (Pi, pi_*)."""
    Pi = as_float_matrix(rados, "rados", check_finite=False)
    pstar = _column_absmax(Pi)
    if not np.isfinite(pstar).all():
        check_finite_array(Pi, "rados")
    check_scale(Pi, "rados", pstar)
    return Pi, pstar


def _select(scores: np.ndarray, eligible: np.ndarray) -> int:
    """The lowest eligible index whose score is within EDGE_TOL * max(1, |best|) of the best."""
    best = float(np.max(scores, where=eligible, initial=-np.inf))
    tol = EDGE_TOL * max(1.0, abs(best))
    return int(np.argmax(eligible & (scores >= best - tol)))  # the first True (one exists: the best itself)


def _atanh_step(r_star: float) -> float:
    return 0.5 * math.log((1.0 + r_star) / (1.0 - r_star))


def _saturate(r_star: float):
    if abs(r_star) >= R_MAX:
        return saturation_step(r_star), True
    return r_star, False


def _rado_weak_learner(r, usable, weak_learner, lambda_p, rng):
    strength = np.abs(r)
    candidates = usable & (strength > EDGE_TOL)
    if weak_learner == "strong":  # fast path: the masked maximum also tells whether any candidate exists
        best = float(np.max(strength, where=candidates, initial=-np.inf))
        if best == -np.inf:
            return None
        k = int(np.argmax(candidates & (strength >= best - EDGE_TOL * max(1.0, best))))
        return k, float(r[k])
    if not candidates.any():
        return None
    if weak_learner == "random":
        idx = np.flatnonzero(candidates)
        k = int(idx[int(rng.integers(idx.size))])
        return k, float(r[k])
    if weak_learner == "median":
        ordered = np.sort(strength[candidates])
        lambda_p = float(ordered[(ordered.size - 1) // 2])
    bound = lambda_p + EDGE_TOL * max(1.0, lambda_p)
    eligible = candidates & (strength <= bound)
    if eligible.any():
        k = _select(strength, eligible)
        if weak_learner == "prudential" and strength[k] > lambda_p:
            return k, math.copysign(lambda_p, float(r[k]))
        return k, float(r[k])
    k = _select(strength, candidates)
    return k, math.copysign(lambda_p, float(r[k]))


def _result(cls, theta, w, trace, stop_reason, **extra):
    scalars = {key: value for key, value in extra.items() if isinstance(value, float)}
    arrays = {key: np.array(values, dtype=np.int64 if key == "features" else np.float64)
              for key, values in {**trace, **extra}.items() if key not in scalars}
    return cls(theta=np.asarray(theta, dtype=np.float64).copy(), weights=np.asarray(w, dtype=np.float64).copy(),
               stop_reason=stop_reason, **arrays, **scalars)


#: matrices at least this large run their per-round gemv under a BLAS thread limit (see _blas_threads)
BLAS_LIMIT_SIZE = 1 << 16


def _blas_threads(size: int, blas_threads):
    """A context limiting BLAS threads for the boosting loop (:func:`fast._blas.limit_blas`).  One gemv per round is
    memory-bound and short (~0.1 ms for 10^4 x 100): on a loaded 2-core machine a multi-threaded OpenBLAS gemv
    waits for a busy core and the loop ran 20x slower (11 s vs 0.5 s wall, benchmarks/bench_radoboost.py).
    ``blas_threads=None`` keeps the library's setting; small matrices (< BLAS_LIMIT_SIZE entries) skip the context."""
    return limit_blas(blas_threads, size, min_size=BLAS_LIMIT_SIZE)


def _progress(T, progress):
    """range(T), wrapped in a tqdm bar when asked (off by default)."""
    if not progress:
        return range(T)
    from tqdm.auto import tqdm

    return tqdm(range(T), desc="boosting", leave=False)


# --------------------------------------------------------------------------- RadoBoost


@implements("nock2016.eq19")
def normalised_edges(rados, weights):
    """r_k = (1/pi_*k) sum_{j=1}^n w_j pi_jk, in [-1, 1]   [nock2015 eq. (9); nock2016 eq. (19)].

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
    >>> from fast.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from fast.radoboost import normalised_edges
    >>> np.round(normalised_edges(P, np.full(30, 1 / 30)), 4)
    array([0.7318, 0.5329, 0.2514])
    """
    Pi, pstar = _as_rados(rados)
    w = as_float_vector(weights, "weights", length=Pi.shape[0])
    if np.any(w < 0):
        raise ValueError("weights must be non-negative")
    return _Rados(Pi, fortran=False, pstar=pstar).edges(w)  # one product: no Fortran-ordered copy


@implements("nock2015.alg1", "nock2015.wfi.strong", "nock2015.wfi.prudential", "nock2015.wfi.median",
            "nock2015.eq17", "nock2015.alg1.wnorm", "nock2015.alg1.adaequiv", "nock2015.lemma4", "nock2015.eq13")
def radoboost(rados, T, *, weak_learner="strong", kappa=1.0, lambda_p=None, rng=None, progress=False,
              blas_threads=1):
    """theta_T = sum_t alpha_t 1_iota(t), alpha_t = log((1+r_t)/(1-r_t)) / (2 kappa pi_*iota(t)),
    w_(t+1)j = w_tj (1 - r_t pi_jiota(t)/pi_*iota(t)) / (1 - r_t^2)   [nock2015 Algorithm 1, eqs. (9)-(11), (17)].

    See :func:`reference.radoboost.radoboost`.  Keyword-only extras: ``progress=True`` shows a tqdm bar;
    ``blas_threads`` limits BLAS threads during the loop (default 1, None = library default; see _blas_threads).

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
    progress : bool, default=False
        Show a tqdm progress bar.
    blas_threads : int or None, default=1
        BLAS threads during the loop (None: the library default).

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
    >>> from fast.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from fast.radoboost import radoboost
    >>> res = radoboost(P, 10)
    >>> res.stop_reason, float(np.mean(np.sign(X @ res.theta) == y))
    ('completed', 1.0)
    """
    Pi, pstar = _as_rados(rados)
    T = check_T(T)
    weak_learner, lambda_p = check_weak_learner(weak_learner, lambda_p)
    kappa = check_kappa(kappa)
    rng = as_generator(rng)
    R = _Rados(Pi, pstar=pstar)
    theta = np.zeros(R.d)
    w = np.full(R.n, 1.0 / R.n)
    neg_margins = np.zeros(R.n)  # -theta_t . pi_j, kept up to date in O(n) per round
    trace = empty_trace()
    stop_reason = "completed"
    if T > 0 and not R.usable.any():
        stop_reason = "no_feature"
    with _blas_threads(R.Pi.size, blas_threads):
        stop_reason, w = _radoboost_loop(R, T, weak_learner, lambda_p, kappa, rng, progress, theta, w, neg_margins,
                                         trace, stop_reason)
    return _result(RadoBoostResult, theta, w, trace, stop_reason, kappa=kappa)


def _radoboost_loop(R, T, weak_learner, lambda_p, kappa, rng, progress, theta, w, neg_margins, trace, stop_reason):
    """The rounds of RadoBoost (theta, w, neg_margins and trace updated in place); returns (stop_reason, weights)."""
    for _ in _progress(T if R.usable.any() else 0, progress):
        if weak_learner == "strong":
            r, k = R.strong(w)
            choice = None if k < 0 else (k, float(r[k]))
        else:
            r = R.edges(w)
            choice = _rado_weak_learner(r, R.usable, weak_learner, lambda_p, rng)
        if choice is None:
            stop_reason = "no_edge"
            break
        k, r_star = choice
        r_star, saturated = _saturate(r_star)
        column = R.Pi[:, k]
        alpha = _atanh_step(r_star) / (kappa * R.pstar[k])
        theta[k] += alpha
        # eq. (11); its common factor 1/(1 - r*^2) is dropped: the renormalisation divides it out anyway
        # w (this loop's own array) and the negated margins -theta_t . pi_j (negation is exact) in place, one fused
        # kernel; the trace's log((1/n) sum exp(-margins)) then costs one numpy exp pass and a sum
        top = _rado_round(w, column, r_star / R.pstar[k], alpha, neg_margins, R.buffer)
        # sum_j exp(shifted_j): the vectorised exp (fast._risk_kernels, 2-3x numpy's), no array of exponentials
        record_round(trace, k, float(r[k]), r_star, alpha, top + math.log(exp_sum(R.buffer, 0.0)) - math.log(R.n))
        if saturated:
            stop_reason = "saturated"
            break
    return stop_reason, w


# --------------------------------------------------------------------------- Omega-R.AdaBoost


def _regularizer(regularizer, params, d):
    """Omega as a callable, checked once at theta = 0 (see the reference)."""
    from fast.regularizers import get_regularizer

    Omega = get_regularizer(regularizer, **params)
    Omega(np.zeros(d))
    return Omega


def _batch_deltas(regularizer, params, theta, steps, Omega):
    """Omega(theta + steps_k 1_k) - Omega(theta) for every k at once (closed forms of nock2016 eq. 20; the
    pairs compare them with the reference's direct evaluation of Omega)."""
    abs_theta = np.abs(theta)
    moved = np.abs(theta + steps)
    if regularizer in ("lasso", "ridge", "elastic_net"):
        lasso = moved - abs_theta
        Gamma = params.get("Gamma")
        if Gamma is None:
            ridge = 2.0 * steps * theta + steps * steps
        else:
            Gamma = np.asarray(Gamma, dtype=np.float64)
            ridge = 2.0 * steps * (Gamma @ theta) + steps * steps * np.diag(Gamma)
        if regularizer == "lasso":
            return lasso
        if regularizer == "ridge":
            return ridge
        return params.get("l1", 1.0) * lasso + params.get("l2", 1.0) * ridge
    if regularizer == "linf":
        top = float(abs_theta.max())
        order = np.argsort(-abs_theta, kind="stable")
        second = float(abs_theta[order[1]]) if theta.size > 1 else 0.0
        others = np.full(theta.size, top)
        others[order[0]] = second
        return np.maximum(moved, others) - top
    if regularizer == "slope":
        return _slope_deltas(abs_theta, moved, slope_weights(theta.size, params["q"]))
    base = Omega(theta)  # any other callable: evaluate row by row
    out = np.zeros(theta.size)
    for k in range(theta.size):
        candidate = theta.copy()
        candidate[k] += steps[k]
        out[k] = Omega(candidate) - base
    return out


def _slope_deltas(a: np.ndarray, b: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """Omega(theta with |theta_k| = a_k replaced by b_k) - Omega(theta) for every k, Omega the SLOPE norm
    sum_i xi_i |theta|_(i) (xi non-increasing), in O(d log d) time and O(d) memory (one sort, prefix sums).

    With v = |theta| sorted decreasingly, p_k the position of a_k in v and q_k the number of the OTHER entries
    greater than b_k (b_k's position once a_k is removed): moving a_k from p to q shifts the entries in between by
    one place, so the change is xi_q b - xi_p a + sum_{q <= i < p} (xi_(i+1) - xi_i) v_i when q <= p, and
    xi_q b - xi_p a + sum_{p < i <= q} (xi_(i-1) - xi_i) v_i when q > p (ties in v do not change the norm)."""
    d = a.size
    order = np.argsort(-a, kind="stable")
    v = a[order]
    p = np.empty(d, dtype=np.int64)
    p[order] = np.arange(d)
    q = (d - np.searchsorted(v[::-1], b, side="right")) - (a > b)  # entries of v above b, less a_k itself
    up = np.zeros(d)  # up[j] = sum_{i < j} (xi_(i+1) - xi_i) v_i
    down = np.zeros(d)  # down[j] = sum_{1 <= i <= j} (xi_(i-1) - xi_i) v_i
    if d > 1:
        up[1:] = np.cumsum((xi[1:] - xi[:-1]) * v[:-1])
        down[1:] = np.cumsum((xi[:-1] - xi[1:]) * v[1:])
    shift = np.where(q <= p, up[p] - up[np.minimum(q, p)], down[q] - down[np.minimum(p, q)])
    return xi[q] * b - xi[p] * a + shift


def _omega_weak_learner(r, usable, pstar, theta, Omega, omega, weak_learner, regularizer, params):
    candidates = usable & (np.abs(r) > EDGE_TOL)
    if not candidates.any():
        return None
    delta = np.zeros(r.size)
    if weak_learner != "strong" and omega > 0 and regularizer != "none":
        r_c = np.clip(r, -R_MAX, R_MAX)
        steps = np.where(candidates, 0.5 * np.log((1.0 + r_c) / (1.0 - r_c)) / np.where(usable, pstar, 1.0), 0.0)
        delta = np.where(candidates, omega * _batch_deltas(regularizer, params, theta, steps, Omega), 0.0)
    gain = np.abs(r) if weak_learner != "half_square" else r * r / 2.0
    return _select(gain - delta, candidates)


def _exponential_boost(Pi, T, regularizer, omega, gamma, weak_learner, params, progress=False, blas_threads=1,
                       pstar=None):
    R = _Rados(Pi, pstar=pstar)
    with _blas_threads(R.Pi.size, blas_threads):
        return _exponential_loop(R, T, regularizer, omega, gamma, weak_learner, params, progress)


def _exponential_loop(R, T, regularizer, omega, gamma, weak_learner, params, progress):
    Omega = _regularizer(regularizer, params, R.d)
    theta = np.zeros(R.d)
    log_w = np.full(R.n, -math.log(R.n))
    w = np.full(R.n, 1.0 / R.n)
    # log((1/n) sum_j exp(-theta_t . pi_j)) = sum_{s <= t} log Z_s (plain, without delta): the weights are
    # w_tj = exp(-theta_t . pi_j) / (n prod_s Z_s) and sum to 1, so the exponential rado risk of every iterate
    # is the running sum of the log normalisers, with no pass over the margins (the identity behind nock2016
    # Alg. 1's log loss = sum_t log Z_t, checked against the reference's direct evaluation by the pairs)
    log_risk = 0.0
    trace = empty_trace()
    extra = {"delta": [], "log_z": [], "log_loss": []}
    stop_reason = "completed"
    if T > 0 and not R.usable.any():
        stop_reason = "no_feature"
    omega_theta = 0.0
    # no regulariser term in the choice (delta = 0) and gain |r|: _omega_weak_learner is the strong weak learner
    plain = weak_learner != "half_square" and (weak_learner == "strong" or omega == 0 or regularizer == "none")
    lasso = not plain and weak_learner == "preference" and regularizer == "lasso"
    for _ in _progress(T if R.usable.any() else 0, progress):
        if plain:
            r, k = R.strong(w)
            k = None if k < 0 else k
        elif lasso:
            r = R.edges(w)
            k = int(_lasso_preference(r, R.usable, R.pstar, theta, omega, EDGE_TOL, R_MAX))
            k = None if k < 0 else k
        else:
            r = R.edges(w)
            k = _omega_weak_learner(r, R.usable, R.pstar, theta, Omega, omega, weak_learner, regularizer, params)
        if k is None:
            stop_reason = "no_edge"
            break
        r_star = float(r[k])
        if gamma is not None and abs(r_star) > gamma:
            r_star = math.copysign(gamma, r_star)
        r_star, saturated = _saturate(r_star)
        column = R.Pi[:, k]
        alpha = _atanh_step(r_star) / R.pstar[k]
        theta[k] += alpha
        omega_theta_new = omega * float(Omega(theta))
        delta = omega_theta_new - omega_theta
        omega_theta = omega_theta_new
        # log u = log w - alpha pi_k, in place (delta cancels in w_t: it enters log Z only, see the reference)
        top = _log_weights_step(log_w, column, alpha, w)  # w (this loop's own array) as scratch
        total = exp_in_place(w)  # u / exp(top) and its sum: the vectorised exp of fast._risk_kernels
        log_z_plain = top + math.log(total)
        _log_weights_normalise(log_w, w, log_z_plain, total)  # w = exp(log_w) up to an ulp, no second exp pass
        log_z = log_z_plain + delta
        log_risk += log_z_plain
        record_round(trace, k, float(r[k]), r_star, alpha, log_risk)
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
                    regularizer_params=None, progress=False, blas_threads=1):
    """theta_t = theta_(t-1) + alpha_iota(t) 1_iota(t), delta_t = omega (Omega(theta_t) - Omega(theta_(t-1))),
    w_tj = w_(t-1)j exp(-alpha_t pi_jiota(t) + delta_t) / Z_t   [nock2016 Algorithms 1-2, eqs. (16)-(19)].

    See :func:`reference.radoboost.omega_radaboost`.  Extras: ``progress`` (tqdm bar), ``blas_threads``.

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
    progress : bool, default=False
        Show a tqdm progress bar.
    blas_threads : int or None, default=1
        BLAS threads during the loop (None: the library default).

    Returns
    -------
    OmegaRAdaBoostResult
        ``theta`` and the per-round trace (with delta_t, log Z_t and the regularised log loss).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from fast.radoboost import omega_radaboost
    >>> res = omega_radaboost(P, 10, regularizer="lasso", omega=0.1)
    >>> res.theta.shape, bool(np.all(np.diff(res.log_loss) <= 1e-12))
    ((3,), True)
    """
    Pi, pstar = _as_rados(rados)
    T = check_T(T)
    regularizer, omega, gamma, weak_learner, params = check_omega_args(
        regularizer, omega, gamma, weak_learner, regularizer_params)
    return _exponential_boost(Pi, T, regularizer, omega, gamma, weak_learner, params, progress, blas_threads, pstar)


@implements("nock2015.alg.adaboost", "nock2015.eq14", "nock2016.sec5.l1ada")
def adaboost(X, y, T, *, n=None, rng=None, regularizer="none", omega=0.0, regularizer_params=None, progress=False,
             blas_threads=1):
    """AdaBoost (Schapire-Singer) with the one-feature weak learner   [nock2015 s4, eq. (14)]; with
    ``regularizer``/``omega``: the regularised baseline of nock2016 s5 ("l1 regularized-AdaBoost").

    See :func:`reference.radoboost.adaboost` (what the regularised version is, and how it may differ from
    Xi et al. 2009).

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
    progress : bool, default=False
        Show a tqdm progress bar.
    blas_threads : int or None, default=1
        BLAS threads during the loop (None: the library default).

    Returns
    -------
    OmegaRAdaBoostResult
        ``theta`` and the per-round trace.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import rados, sample_signatures
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(40, 3))
    >>> y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    >>> P = rados(X, y, sample_signatures(y, 30, rng=1))
    >>> from fast.radoboost import adaboost
    >>> res = adaboost(X, y, 10)
    >>> float(np.mean(np.sign(X @ res.theta) == y)) >= 0.9
    True
    """
    X = as_float_matrix(X, "X")
    y = as_labels(y, "y", length=X.shape[0])
    T = check_T(T)
    rng = as_generator(rng)
    pstar = np.max(np.abs(X), axis=0)  # = max_i |y_i x_ik|, the edge vectors' pi_* (y_i = +-1)
    check_scale(X, "X", pstar)
    regularizer, omega, _, _, params = check_omega_args(regularizer, omega, None, "preference", regularizer_params)
    if n is not None:
        n = check_int(n, "n", minimum=1, maximum=X.shape[0])
        rows = rng.permutation(X.shape[0])[:n]
        X, y = X[rows], y[rows]
        pstar = None
    # e_i = y_i x_i (fast.rados.edge_vectors; X and y are checked already), written in Fortran order at once
    E = np.multiply(X, y.astype(np.float64)[:, None], out=np.empty(X.shape, order="F"))
    weak_learner = "strong" if regularizer == "none" or omega == 0 else "preference"
    return _exponential_boost(E, T, regularizer, omega, None, weak_learner, params, progress, blas_threads, pstar)
