"""Differentially private rados (fast): DP-Feat and fixed-support rados from Gaussian-protected edges   [nock2015 s5]

Same functions, draws and guarantees as :mod:`reference.dp_rados` (read its docstring: DP-Feat protects the
released j*-coordinate of the rados).  Adds the factories used by the rado estimators (``privacy=``): a *rado
source* is a callable ``source(X, y, n, rng) -> (n, d) rados`` with a ``guarantee(m, n)`` method giving the
total (epsilon, delta) of the release.

Draw order (seeded pairs compare exactly): ``method="exact"`` takes the same draws as the reference.
``method="rejection"`` draws trial rows in blocks (``rng.random((rows, m))`` is the same stream as ``rows``
calls of ``rng.random(m)``), so the returned signatures equal the reference's, but the rows drawn after the
n-th acceptance of the last block are wasted: the Generator is left further along than the reference leaves it.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import special, stats

from fast.mechanisms import gaussian_mechanism
from spec.links import implements
from spec.validation import as_float_matrix, as_generator, as_labels, as_signatures, check_int, check_open_unit, \
    check_positive, check_real

__all__ = [
    "dp_feat_beta",
    "DPFeatWindow",
    "dp_feat_window",
    "in_dp_feat_set",
    "dp_feat_signatures",
    "dp_feat_rados",
    "dp_feat_delta",
    "theorem7_bound",
    "rejection_quantile",
    "clip_rows",
    "noisy_edges",
    "fixed_support_rados",
    "RadoSource",
    "dp_feat",
    "gaussian_edges",
]

MAX_TRIALS = 10**6
METHODS = ("exact", "rejection")


def _examples(X, y):
    X = as_float_matrix(X, "X")
    y = as_labels(y, "y", length=X.shape[0])
    return X, y


def _feature_edges(X, y, feature) -> np.ndarray:
    j = check_int(feature, "feature", minimum=0, maximum=X.shape[1] - 1)
    column = X[:, j]
    bad = (column != 1.0) & (column != -1.0)
    if bad.any():
        raise ValueError(f"feature {j} must be boolean with values in {{-1, +1}} (DP-Feat), found {float(column[bad][0])!r}")
    return (y.astype(np.int64) * column.astype(np.int64)).astype(np.int64)


@implements("nock2015.alg2")
def dp_feat_beta(epsilon) -> float:
    """beta = 1 / (1 + exp(epsilon / 2))   [nock2015 Algorithm 2, Step 1]"""
    eps = check_positive(epsilon, "epsilon")
    return 1.0 / (1.0 + math.exp(min(eps / 2.0, 709.0)))


@dataclass(frozen=True)
class DPFeatWindow:
    m: int
    n_minus: int
    m_plus: float
    delta_beta: float
    k_lo: int
    k_hi: int
    size: int
    acceptance: float


def _window_bounds(m: int, epsilon: float) -> tuple[int, int]:
    beta = Fraction(dp_feat_beta(epsilon))
    return math.ceil(beta * (m + 1)), math.floor(m - beta * (m + 1))


def _window_weights(m: int, k_lo: int, k_hi: int) -> list[int]:
    """C(m, k) for k in [k_lo, k_hi], by the recurrence C(m, k+1) = C(m, k) (m-k)/(k+1)."""
    if k_lo > k_hi:
        return []
    w = [math.comb(m, k_lo)]
    for k in range(k_lo, k_hi):
        w.append(w[-1] * (m - k) // (k + 1))
    return w


@implements("nock2015.eq16")
def dp_feat_window(X, y, feature, epsilon) -> DPFeatWindow:
    """Sigma_m^{beta,j*} as k_lo <= K_sigma <= k_hi   [nock2015 eq. (16)]"""
    X, y = _examples(X, y)
    e = _feature_edges(X, y, feature)
    eps = check_positive(epsilon, "epsilon")
    m = int(e.shape[0])
    n_minus = int(np.count_nonzero(e == -1))
    beta = dp_feat_beta(eps)
    k_lo, k_hi = _window_bounds(m, eps)
    size = sum(_window_weights(m, k_lo, k_hi))
    return DPFeatWindow(m=m, n_minus=n_minus, m_plus=(m - n_minus) - m / 2.0, delta_beta=m / 2.0 - beta * (m + 1),
                        k_lo=k_lo, k_hi=k_hi, size=size, acceptance=float(Fraction(size, 2**m)))


@implements("nock2015.eq16")
def in_dp_feat_set(X, y, feature, epsilon, sigmas) -> np.ndarray:
    """[pi_sigma,j* in [m_+ - Delta_beta, m_+ + Delta_beta]] per signature, exact   [nock2015 eq. (16)]"""
    X, y = _examples(X, y)
    e = _feature_edges(X, y, feature)
    eps = check_positive(epsilon, "epsilon")
    sigmas = as_signatures(sigmas, "sigmas", m=e.shape[0])
    m = int(e.shape[0])
    beta = Fraction(dp_feat_beta(eps))
    m_plus = Fraction(int(np.count_nonzero(e == 1))) - Fraction(m, 2)
    delta_beta = Fraction(m, 2) - beta * (m + 1)
    pi = np.where(sigmas == y[None, :], e[None, :], 0).sum(axis=1)
    return (pi >= math.ceil(m_plus - delta_beta)) & (pi <= math.floor(m_plus + delta_beta))


def _check_window(window: DPFeatWindow, epsilon: float) -> None:
    if window.k_lo > window.k_hi:
        raise ValueError(
            f"epsilon={epsilon} is too small for m={window.m}: the acceptance window of DP-Feat is empty "
            f"(ceil(beta(m+1)) = {window.k_lo} > floor(m - beta(m+1)) = {window.k_hi}); "
            f"need epsilon >= 2 log(1 + 2/m) for even m, 2 log((m+3)/(m-1)) for odd m")


def _uniform_below_big(rng, n: int) -> int:
    if n == 1:
        return 0
    bits = (n - 1).bit_length()
    words = -(-bits // 64)
    while True:
        raw = rng.integers(0, 2**64, size=words, dtype=np.uint64)
        x = 0
        for w in raw.tolist():
            x = (x << 64) | w
        x >>= 64 * words - bits
        if x < n:
            return x


def _first_k(u: np.ndarray, k: int) -> np.ndarray:
    """Indicator of the k smallest entries of u, ties broken by lowest index (= the first k of a stable sort), O(m)."""
    if k == 0:
        return np.zeros(u.shape[0], dtype=bool)
    if k == u.shape[0]:
        return np.ones(u.shape[0], dtype=bool)
    threshold = np.partition(u, k - 1)[k - 1]
    below = u < threshold
    tie = u == threshold
    return below | (tie & (np.cumsum(tie) <= k - int(np.count_nonzero(below))))


@implements("nock2015.alg2")
def dp_feat_signatures(X, y, feature, n, epsilon, *, method="exact", max_trials=MAX_TRIALS, rng=None):
    """n i.i.d. signatures uniform on Sigma_m^{beta,j*}   [nock2015 Algorithm 2, Step 2]; see the reference."""
    X, y = _examples(X, y)
    e = _feature_edges(X, y, feature)
    n = check_int(n, "n", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    max_trials = check_int(max_trials, "max_trials", minimum=1)
    rng = as_generator(rng)
    window = dp_feat_window(X, y, feature, eps)
    _check_window(window, eps)
    m = int(e.shape[0])
    positive = e == 1
    if method == "exact":
        cumulative = np.cumsum(np.array(_window_weights(m, window.k_lo, window.k_hi), dtype=object)).tolist()
        K = np.array([window.k_lo + bisect.bisect_right(cumulative, _uniform_below_big(rng, window.size))
                      for _ in range(n)], dtype=np.int64)
        out = np.empty((n, m), dtype=np.int8)
        step = max(1, (1 << 22) // m)  # rng.random((rows, m)) in row blocks is the reference's (n, m) stream
        for start in range(0, n, step):
            U = rng.random((min(step, n - start), m))
            for r in range(U.shape[0]):
                out[start + r] = np.where(_first_k(U[r], int(K[start + r])) == positive, y, -y)
        return out
    out = np.empty((n, m), dtype=np.int8)
    got, gap = 0, 0
    rows = max(16, min(1 << 16, int(1.2 * n / max(window.acceptance, 1e-6)) + 16))
    while got < n:
        U = rng.random((rows, m))
        sigma = np.where(U < 0.5, 1, -1).astype(np.int8)
        K = ((sigma == y[None, :]) == positive[None, :]).sum(axis=1)
        accepted = np.flatnonzero((K >= window.k_lo) & (K <= window.k_hi))
        previous = -1
        for a in accepted.tolist():
            gap += a - previous - 1
            if gap >= max_trials:
                break
            out[got] = sigma[a]
            got += 1
            gap = 0
            previous = a
            if got == n:
                break
        else:
            gap += rows - 1 - previous
        if got < n and gap >= max_trials:
            raise RuntimeError(
                f"DP-Feat rejection sampling drew max_trials={max_trials} signatures without one in the "
                f"acceptance window (acceptance probability {window.acceptance:.3g}); use method='exact'")
    return out


@implements("nock2015.alg2")
def dp_feat_rados(X, y, feature, n, epsilon, *, method="exact", max_trials=MAX_TRIALS, rng=None):
    """{pi_sigma : sigma uniform in Sigma_m^{beta,j*}}   [nock2015 Algorithm 2]; (n, d) float64."""
    from fast.rados import rados

    sigmas = dp_feat_signatures(X, y, feature, n, epsilon, method=method, max_trials=max_trials, rng=rng)
    return rados(X, y, sigmas)


@implements("nock2015.thm6", "nock2015.featdp")
def dp_feat_delta(m, n_minus, epsilon, epsilon_prime=None) -> float:
    """exact hockey-stick delta(eps') of one released pi_sigma,j* over j*-neighbours (log-binomials)   [nock2015 Thm 6]"""
    m = check_int(m, "m", minimum=1)
    n_minus = check_int(n_minus, "n_minus", minimum=0, maximum=m)
    eps = check_positive(epsilon, "epsilon")
    eps_p = eps if epsilon_prime is None else check_real(epsilon_prime, "epsilon_prime", low=0.0)
    k_lo, k_hi = _window_bounds(m, eps)
    if k_lo > k_hi:
        raise ValueError(f"epsilon={eps} is too small for m={m}: the acceptance window of DP-Feat is empty")
    k = np.arange(0, m + 1)
    log_c = special.gammaln(m + 1) - special.gammaln(k + 1) - special.gammaln(m - k + 1)
    inside = (k >= k_lo) & (k <= k_hi)
    log_z = special.logsumexp(log_c[inside])
    log_p = np.where(inside, log_c - log_z, -np.inf)  # law of K; o = K - N_-
    worst = 0.0
    for other in (n_minus - 1, n_minus + 1):
        if not 0 <= other <= m:
            continue
        shift = other - n_minus  # P[o | S'] = law_K(o + other) = law_K(k + shift) at k = o + n_minus
        moved = np.full(m + 1, -np.inf)
        if shift == 1:
            moved[:-1] = log_p[1:]
        else:
            moved[1:] = log_p[:-1]
        for a, b in ((log_p, moved), (moved, log_p)):
            with np.errstate(invalid="ignore"):
                diff = np.exp(a) * -np.expm1(np.minimum(0.0, eps_p + b - a))
            diff = np.where(np.isfinite(a) & (a > eps_p + b), diff, 0.0)
            worst = max(worst, float(math.fsum(diff.tolist())))
    return worst


def _d_be(p: float, q: float) -> float:
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


@implements("nock2015.thm7")
def theorem7_bound(n, m, epsilon, eta) -> float:
    """nock2015 Theorem 7's bound on n_R (reconstructed reading; see the reference)"""
    n = check_int(n, "n", minimum=1)
    m = check_int(m, "m", minimum=1)
    beta = dp_feat_beta(epsilon)
    eta = check_open_unit(eta, "eta")
    n_star = eta * (1.0 - math.exp(2.0 * beta - 1.0)) / (4.0 * beta)
    if n <= n_star:
        return float(n)
    return float(n * math.ceil(math.log(n / n_star) / (m * _d_be(1.0 - beta, 0.5))))


@implements("nock2015.thm7")
def rejection_quantile(n, m, epsilon, eta) -> int:
    """(1 - eta)-quantile of n_R = n + NegBin(n, p_acc)   [nock2015 Theorem 7] (scipy, checked by the cdf)"""
    n = check_int(n, "n", minimum=1)
    m = check_int(m, "m", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    eta = check_open_unit(eta, "eta")
    k_lo, k_hi = _window_bounds(m, eps)
    if k_lo > k_hi:
        raise ValueError(f"epsilon={eps} is too small for m={m}: the acceptance window of DP-Feat is empty")
    p = float(Fraction(sum(_window_weights(m, k_lo, k_hi)), 2**m))
    target = 1.0 - eta
    f = int(stats.nbinom.ppf(target, n, p)) if p < 1.0 else 0
    while stats.nbinom.cdf(f, n, p) < target:
        f += 1
    while f > 0 and stats.nbinom.cdf(f - 1, n, p) >= target:
        f -= 1
    return n + f


# ---------------------------------------------------------------------------------------------------------
# fixed-support rados from Gaussian-protected edges
# ---------------------------------------------------------------------------------------------------------
def clip_rows(X, clip) -> np.ndarray:
    """x_i * min(1, clip / ||x_i||_2)"""
    X = as_float_matrix(X, "X")
    c = check_positive(clip, "clip")
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    with np.errstate(divide="ignore"):
        scale = np.where(norms <= c, 1.0, c / np.where(norms > 0, norms, 1.0))
    return X * scale[:, None]


@implements("nock2015.gauss")
def noisy_edges(X, y, epsilon, delta, *, clip=1.0, rng=None) -> np.ndarray:
    """e~_i = y_i clip(x_i) + discrete-Gaussian noise at L2 sensitivity 2 clip   [nock2015 s5.2; CKS20]"""
    X, y = _examples(X, y)
    c = check_positive(clip, "clip")
    E = y[:, None].astype(np.float64) * clip_rows(X, c)
    return gaussian_mechanism(E, sensitivity=2.0 * c, epsilon=epsilon, delta=delta, rng=rng,
                              sensitivity_dimension=E.shape[1])


@implements("nock2015.alg.fixedsupport")
def fixed_support_rados(edges, y, n, support, *, rng=None) -> np.ndarray:
    """pi~_j = sum_{i in J_j} e~_i, J_j a uniform m*-subset (eq. 18)   [nock2015 s5.2]; (n, d) float64."""
    from fast.rados import sample_signatures

    E = as_float_matrix(edges, "edges")
    y = as_labels(y, "y", length=E.shape[0])
    sigmas = sample_signatures(y, n, rng=rng, support=support)
    return (sigmas == y[None, :]).astype(np.float64) @ E


# ---------------------------------------------------------------------------------------------------------
# rado sources for the estimators (privacy=)
# ---------------------------------------------------------------------------------------------------------
class RadoSource:
    """A callable ``source(X, y, n, rng) -> (n, d) rados`` with its privacy guarantee."""

    def __init__(self, name, draw, guarantee, description):
        self.name = name
        self._draw = draw
        self._guarantee = guarantee
        self.description = description

    def __call__(self, X, y, n, rng=None):
        return self._draw(X, y, n, rng)

    def guarantee(self, m, n) -> tuple[float, float]:
        """Total (epsilon, delta) of releasing n rados built from m examples."""
        return self._guarantee(check_int(m, "m", minimum=1), check_int(n, "n", minimum=1))

    def __repr__(self):
        return f"RadoSource({self.description})"


def dp_feat(feature, epsilon, *, method="exact", max_trials=MAX_TRIALS) -> RadoSource:
    """Rado source: DP-Feat rados protecting boolean feature ``feature``   [nock2015 Algorithm 2, Theorem 6]

    guarantee(m, n) = (n * epsilon, n * delta_exact) by basic composition, delta_exact = dp_feat_delta(m, ., epsilon)
    (it does not depend on the data); it covers the released j*-coordinates (see the module docstring)."""
    feature = check_int(feature, "feature", minimum=0)
    eps = check_positive(epsilon, "epsilon")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    max_trials = check_int(max_trials, "max_trials", minimum=1)

    def draw(X, y, n, rng):
        return dp_feat_rados(X, y, feature, n, eps, method=method, max_trials=max_trials, rng=rng)

    def guarantee(m, n):
        return n * eps, min(1.0, n * dp_feat_delta(m, m // 2, eps))

    return RadoSource("dp_feat", draw, guarantee, f"DP-Feat feature={feature} epsilon={eps} method={method}")


def gaussian_edges(epsilon, delta, support, *, clip=1.0) -> RadoSource:
    """Rado source: edges released once by the safe Gaussian mechanism, then fixed-support rados
    (``support`` = m* as an int >= 1, or a fraction s/m in (0, 1])   [nock2015 s5.2, eq. (18)]

    guarantee(m, n) = (epsilon, delta) whatever n (rados are post-processing of the noisy edges)."""
    eps = check_positive(epsilon, "epsilon")
    dl = check_open_unit(delta, "delta")
    c = check_positive(clip, "clip")
    if isinstance(support, float):
        fraction = check_real(support, "support", low=0.0, high=1.0, low_open=True)
        m_star = None
    else:
        m_star = check_int(support, "support", minimum=1)
        fraction = None

    def draw(X, y, n, rng):
        rng = None if rng is None else as_generator(rng)  # None: the noise reads os.urandom
        E = noisy_edges(X, y, eps, dl, clip=c, rng=rng)
        m = E.shape[0]
        s = min(m, m_star) if m_star is not None else max(1, min(m, round(fraction * m)))
        return fixed_support_rados(E, as_labels(y, "y"), n, s, rng=rng)

    def guarantee(m, n):
        return eps, dl

    return RadoSource("gaussian_edges", draw, guarantee,
                      f"Gaussian edges epsilon={eps} delta={dl} support={support} clip={c}")
