"""Differentially private rados: DP-Feat and fixed-support rados from Gaussian-protected edges   [nock2015 s5]

DP-Feat (Algorithm 2) protects ONE boolean feature j* (values in {-1, +1}) under j*-neighbours (one value
x_ij* flipped).  With e_i = y_i x_ij* in {-1,+1}, N_- = #{i : e_i = -1} and K_sigma = #{i in J(sigma): e_i = +1}
+ #{i not in J(sigma): e_i = -1}, the released coordinate is pi_sigma,j* = K_sigma - N_-, K_sigma ~ Bin(m, 1/2)
under a uniform sigma, and sigma is in Sigma_m^{beta,j*} (eq. 16) iff beta(m+1) <= K_sigma <= m - beta(m+1).
The guarantee concerns the distribution of pi_sigma,j* only (nock2015 Fig. 2 and "density of that feature's
values in rados"): when the other coordinates of the rado are released too, sigma is identifiable from
generic real features and no feature-level guarantee follows (claim notes s6, item 4).

Fixed-support rados (eq. 18): the edges are released once through the floating-point-safe Gaussian mechanism
(neighbours differ in one edge vector; rows of X are clipped to L2 norm <= clip, so the L2 sensitivity is
2 clip), then every rado sums exactly m* noisy edges.  Rados are post-processing of the noisy edges, so the
(epsilon, delta) of the edge release covers any number of rados.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from reference.mechanisms import gaussian_mechanism
from spec.links import implements
from spec.privacy_contract import WordRandom
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
    "DPFeatPlan",
    "dp_feat_plan",
]

MAX_TRIALS = 10**6
#: dp_feat_plan: windows whose delta is within this relative distance of the smallest count as tied (widest wins)
WINDOW_TIE = 1e-6
METHODS = ("exact", "rejection")


def _examples(X, y):
    X = as_float_matrix(X, "X")
    y = as_labels(y, "y", length=X.shape[0])
    return X, y


def _feature_edges(X, y, feature) -> list[int]:
    """e_i = y_i x_ij* in {-1, +1}; refuses a feature with values other than -1 and +1."""
    j = check_int(feature, "feature", minimum=0, maximum=X.shape[1] - 1)
    column = [float(v) for v in X[:, j]]
    if any(v not in (-1.0, 1.0) for v in column):
        bad = next(v for v in column if v not in (-1.0, 1.0))
        raise ValueError(f"feature {j} must be boolean with values in {{-1, +1}} (DP-Feat), found {bad!r}")
    return [int(y[i]) * int(column[i]) for i in range(len(column))]


@implements("nock2015.alg2")
def dp_feat_beta(epsilon) -> float:
    """beta = 1 / (1 + exp(epsilon / 2)) in (0, 1/2)   [nock2015 Algorithm 2, Step 1]

    Parameters
    ----------
    epsilon : float
        Privacy parameter (> 0).

    Returns
    -------
    float
        beta in (0, 1/2).

    Examples
    --------
    >>> from reference.dp_rados import dp_feat_beta
    >>> round(dp_feat_beta(1.0), 6)
    0.377541
    """
    eps = check_positive(epsilon, "epsilon")
    return 1.0 / (1.0 + math.exp(min(eps / 2.0, 709.0)))


@dataclass(frozen=True)
class DPFeatWindow:
    """Sigma_m^{beta,j*} in the K form: k_lo <= K_sigma <= k_hi.

    Sigma_m^{beta,j*} in the K form: k_lo <= K_sigma <= k_hi (returned by :func:`dp_feat_window`).

    Parameters
    ----------
    m : int
        Number of examples.
    n_minus : int
        ``N_- = #{i : y_i x_ij* = -1}``.
    m_plus : float
        m_+ = #{i : y_i x_ij* = +1} - m/2.
    delta_beta : float
        Delta_beta = m/2 - beta (m + 1).
    k_lo, k_hi : int
        ceil(beta (m + 1)) and floor(m - beta (m + 1)).
    size : int
        |Sigma_m^{beta,j*}| = sum over k in [k_lo, k_hi] of C(m, k).
    acceptance : float
        size / 2^m, the acceptance probability of rejection sampling.
    """

    m: int
    n_minus: int  # N_- = #{i : y_i x_ij* = -1}
    m_plus: float  # m_+ = #{i : y_i x_ij* = +1} - m/2
    delta_beta: float  # Delta_beta = m/2 - beta (m + 1)
    k_lo: int  # ceil(beta (m+1))
    k_hi: int  # floor(m - beta (m+1))
    size: int  # |Sigma_m^{beta,j*}| = sum_{k_lo}^{k_hi} C(m, k)
    acceptance: float  # size / 2^m, the acceptance probability of rejection sampling


def _window_bounds(m: int, epsilon: float) -> tuple[int, int]:
    """k_lo = ceil(beta (m+1)), k_hi = floor(m - beta (m+1)), with beta = 1/(1+e^{eps/2}) as an exact fraction of its float."""
    beta = Fraction(dp_feat_beta(epsilon))
    return math.ceil(beta * (m + 1)), math.floor(m - beta * (m + 1))


@implements("nock2015.eq16")
def dp_feat_window(X, y, feature, epsilon) -> DPFeatWindow:
    """m_+ = |{i : y_i x_ij* = +1}| - m/2, Delta_beta = m/2 - beta(m+1); sigma in Sigma_m^{beta,j*} iff
    pi_sigma,j* in [m_+ - Delta_beta, m_+ + Delta_beta] iff k_lo <= K_sigma <= k_hi   [nock2015 eq. (16)]

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    feature : int
        The protected column j* (values in {-1, +1}).
    epsilon : float
        Per-rado privacy parameter (> 0), which sets beta.

    Returns
    -------
    DPFeatWindow
        The window and its size.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from reference.dp_rados import dp_feat_window
    >>> w = dp_feat_window(X, y, 0, 1.0)
    >>> w.m, w.n_minus, round(w.acceptance, 4)
    (20, 7, 0.7368)
    """
    X, y = _examples(X, y)
    e = _feature_edges(X, y, feature)
    eps = check_positive(epsilon, "epsilon")
    m = len(e)
    n_minus = sum(1 for v in e if v == -1)
    beta = dp_feat_beta(eps)
    k_lo, k_hi = _window_bounds(m, eps)
    size = sum(math.comb(m, k) for k in range(k_lo, k_hi + 1))
    return DPFeatWindow(m=m, n_minus=n_minus, m_plus=(m - n_minus) - m / 2.0, delta_beta=m / 2.0 - beta * (m + 1),
                        k_lo=k_lo, k_hi=k_hi, size=size, acceptance=float(Fraction(size, 2**m)))


@implements("nock2015.eq16")
def in_dp_feat_set(X, y, feature, epsilon, sigmas) -> np.ndarray:
    """[pi_sigma,j* in [m_+ - Delta_beta, m_+ + Delta_beta]] per signature (ROW), the literal eq. (16), exact   [nock2015 eq. (16)]

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    feature : int
        The protected column j* (values in {-1, +1}).
    epsilon : float
        Per-rado privacy parameter (> 0).
    sigmas : array_like of shape (n, m)
        Signatures, one per row.

    Returns
    -------
    numpy.ndarray of shape (n,), dtype bool
        Whether each signature lies in Sigma_m^{beta,j*}.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from reference.dp_rados import in_dp_feat_set
    >>> in_dp_feat_set(X, y, 0, 1.0, np.ones((2, 20), dtype=np.int8))
    array([ True,  True])
    """
    X, y = _examples(X, y)
    e = _feature_edges(X, y, feature)
    eps = check_positive(epsilon, "epsilon")
    sigmas = as_signatures(sigmas, "sigmas", m=len(e))
    m = len(e)
    beta = Fraction(dp_feat_beta(eps))
    m_plus = Fraction(sum(1 for v in e if v == 1)) - Fraction(m, 2)
    delta_beta = Fraction(m, 2) - beta * (m + 1)
    out = []
    for sigma in sigmas:
        pi = sum(e[i] for i in range(m) if int(sigma[i]) == int(y[i]))
        out.append(m_plus - delta_beta <= pi <= m_plus + delta_beta)
    return np.array(out, dtype=bool)


def _check_window(window: DPFeatWindow, epsilon: float) -> None:
    if window.k_lo > window.k_hi:
        raise ValueError(
            f"epsilon={epsilon} is too small for m={window.m}: the acceptance window of DP-Feat is empty "
            f"(ceil(beta(m+1)) = {window.k_lo} > floor(m - beta(m+1)) = {window.k_hi}); "
            f"need epsilon >= 2 log(1 + 2/m) for even m, 2 log((m+3)/(m-1)) for odd m")


def _uniform_below_big(rng, n: int) -> int:
    """Uniform on {0..n-1} for any n >= 1: ceil(bits/64) words of rng.integers(0, 2^64), top bits, rejected until < n."""
    if n == 1:
        return 0
    bits = (n - 1).bit_length()
    words = -(-bits // 64)
    while True:
        raw = rng.integers(0, 2**64, size=words, dtype=np.uint64)
        x = 0
        for w in raw:
            x = (x << 64) | int(w)
        x >>= 64 * words - bits
        if x < n:
            return x


def _signature_from(e, y, K: int, u_row) -> list[int]:
    """sigma with K_sigma = K: A = the K indices with the smallest u (ties by index); sigma_i = y_i iff
    (i in A and e_i = +1) or (i not in A and e_i = -1)."""
    m = len(e)
    A = set(sorted(range(m), key=lambda i: (float(u_row[i]), i))[:K])
    return [int(y[i]) if ((i in A) == (e[i] == 1)) else -int(y[i]) for i in range(m)]


@implements("nock2015.alg2")
def dp_feat_signatures(X, y, feature, n, epsilon, *, method="exact", max_trials=MAX_TRIALS, rng=None):
    """n i.i.d. signatures uniform on Sigma_m^{beta,j*}   [nock2015 Algorithm 2, Step 2]

    ``method="exact"`` (default, no loop): K ~ Bin(m, 1/2) truncated to [k_lo, k_hi] by exact inversion
    (integer weights C(m, k)), then a uniform K-subset A (the K smallest of rng.random(m)), then
    sigma_i = y_i iff (i in A) == (e_i = +1).  Draws: all n K's first, then rng.random((n, m)).
    ``method="rejection"`` (the paper's): sigma_i = +1 iff rng.random() < 1/2, one row of m per trial, until
    sigma is in the set; more than ``max_trials`` trials for one rado raise.  Both have the same law
    (tests/test_dp_rados.py checks it exactly on small m).  Returns (n, m) int8, one signature per ROW.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    feature : int
        The protected column j* (values in {-1, +1}).
    n : int
        Number of signatures (>= 1).
    epsilon : float
        Per-rado privacy parameter (> 0).
    method : {"exact", "rejection"}, default="exact"
        Exact truncated-binomial sampling or the paper's rejection sampling (same law).
    max_trials : int, default=1000000
        Rejection trials allowed per rado.
    rng : None or numpy.random.Generator, optional
        The mechanism's randomness: None (OS entropy) is the private use; a seeded generator is for tests.

    Returns
    -------
    numpy.ndarray of shape (n, m), dtype int8
        The signatures, one per row.

    Raises
    ------
    ValueError
        If the window is empty (epsilon too small for m) or the inputs are invalid.
    RuntimeError
        If ``method="rejection"`` draws ``max_trials`` signatures for one rado without one in
        the acceptance window (use ``method="exact"``).

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from reference.dp_rados import dp_feat_signatures, in_dp_feat_set
    >>> S = dp_feat_signatures(X, y, 0, 5, 1.0)  # OS entropy: the signatures are the privacy noise
    >>> S.shape, bool(in_dp_feat_set(X, y, 0, 1.0, S).all())
    ((5, 20), True)
    """
    X, y = _examples(X, y)
    e = _feature_edges(X, y, feature)
    n = check_int(n, "n", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    max_trials = check_int(max_trials, "max_trials", minimum=1)
    # None (private): the AES-256-CTR words of spec.words keyed from os.urandom, the mechanisms' own source
    rng = WordRandom(None) if rng is None else as_generator(rng)
    window = dp_feat_window(X, y, feature, eps)
    _check_window(window, eps)
    m = len(e)
    out = []
    if method == "exact":
        weights = [math.comb(m, k) for k in range(window.k_lo, window.k_hi + 1)]
        Ks = []
        for _ in range(n):
            u = _uniform_below_big(rng, window.size)
            k = window.k_lo
            for w in weights:
                if u < w:
                    break
                u -= w
                k += 1
            Ks.append(k)
        U = rng.random((n, m))
        out = [_signature_from(e, y, Ks[j], U[j]) for j in range(n)]
    else:
        for _ in range(n):
            for trial in range(max_trials + 1):
                if trial == max_trials:
                    raise RuntimeError(
                        f"DP-Feat rejection sampling drew max_trials={max_trials} signatures without one in the "
                        f"acceptance window (acceptance probability {window.acceptance:.3g}); use method='exact'")
                u = rng.random(m)
                sigma = [1 if float(u[i]) < 0.5 else -1 for i in range(m)]
                K = sum(1 for i in range(m) if (sigma[i] == int(y[i])) == (e[i] == 1))
                if window.k_lo <= K <= window.k_hi:
                    out.append(sigma)
                    break
    return np.array(out, dtype=np.int8).reshape(n, m)


@implements("nock2015.alg2")
def dp_feat_rados(X, y, feature, n, epsilon, *, method="exact", max_trials=MAX_TRIALS, rng=None):
    """{pi_sigma : sigma sampled uniformly in Sigma_m^{beta,j*}}, pi_sigma = sum_{i: sigma_i = y_i} y_i x_i
    [nock2015 Algorithm 2]; (n, d) float64, one rado per ROW.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    feature : int
        The protected column j* (values in {-1, +1}).
    n : int
        Number of rados (>= 1).
    epsilon : float
        Per-rado privacy parameter (> 0); see :func:`dp_feat_plan` for a total budget.
    method : {"exact", "rejection"}, default="exact"
        Exact truncated-binomial sampling or the paper's rejection sampling (same law).
    max_trials : int, default=1000000
        Rejection trials allowed per rado.
    rng : None or numpy.random.Generator, optional
        The mechanism's randomness: None (OS entropy) is the private use; a seeded generator is for tests.

    Returns
    -------
    numpy.ndarray of shape (n, d)
        The DP-Feat rados, one per row.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from reference.dp_rados import dp_feat_rados
    >>> dp_feat_rados(X, y, 0, 5, 1.0).shape
    (5, 3)
    """
    from reference.rados import rados

    sigmas = dp_feat_signatures(X, y, feature, n, epsilon, method=method, max_trials=max_trials, rng=rng)
    return rados(X, y, sigmas)


@implements("nock2015.thm6", "nock2015.featdp")
def dp_feat_delta(m, n_minus, epsilon, epsilon_prime=None) -> float:
    """delta(eps') = max over j*-neighbours (N_- -> N_- +- 1) of sum_o max(0, P[o|S] - e^{eps'} P[o|S']),
    P[o|S] = C(m, o + N_-) [o + N_- in W] / Z: the exact privacy of ONE released pi_sigma,j*   [nock2015 Thm 6, eq. (15)]

    ``epsilon`` sets beta and the window W = [k_lo, k_hi]; ``epsilon_prime`` (default: epsilon) is where the
    hockey-stick divergence is evaluated.  Exact (integers and 60-digit mpmath).

    Parameters
    ----------
    m : int
        Number of examples.
    n_minus : int
        ``N_-`` of the dataset, in [0, m].
    epsilon : float
        The epsilon that sets beta and the window.
    epsilon_prime : float, optional
        Where the hockey-stick divergence is evaluated (default: ``epsilon``).

    Returns
    -------
    float
        The exact delta of one released j*-coordinate.

    Raises
    ------
    ValueError
        If the acceptance window is empty (``epsilon`` too small for ``m``), or an input is out of range.

    Examples
    --------
    >>> from reference.dp_rados import dp_feat_delta
    >>> round(dp_feat_delta(20, 10, 1.0), 6)
    0.163043
    """
    m = check_int(m, "m", minimum=1)
    n_minus = check_int(n_minus, "n_minus", minimum=0, maximum=m)
    eps = check_positive(epsilon, "epsilon")
    eps_p = eps if epsilon_prime is None else check_real(epsilon_prime, "epsilon_prime", low=0.0)
    k_lo, k_hi = _window_bounds(m, eps)
    if k_lo > k_hi:
        raise ValueError(f"epsilon={eps} is too small for m={m}: the acceptance window of DP-Feat is empty")
    Z = sum(math.comb(m, k) for k in range(k_lo, k_hi + 1))

    def prob(o, nm):
        k = o + nm
        return math.comb(m, k) if k_lo <= k <= k_hi else 0

    worst = mpmath.mpf(0)
    with mpmath.workdps(60):
        factor = mpmath.exp(mpmath.mpf(eps_p))
        for other in (n_minus - 1, n_minus + 1):
            if not 0 <= other <= m:
                continue
            for a, b in ((n_minus, other), (other, n_minus)):
                total = mpmath.mpf(0)
                for o in range(-m, m + 1):
                    diff = prob(o, a) - factor * prob(o, b)
                    if diff > 0:
                        total += diff
                worst = max(worst, total / Z)
        return float(worst)


def _d_be(p: float, q: float) -> float:
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


@implements("nock2015.thm7")
def theorem7_bound(n, m, epsilon, eta) -> float:
    """n_R <= n if n <= n*_eta, else n ceil(log(n / n*_eta) / (m D_BE(1-beta || 1/2))),
    n*_eta = eta (1 - exp(2 beta - 1)) / (4 beta)   [nock2015 Theorem 7, reconstructed reading]

    Parameters
    ----------
    n : int
        Number of rados wanted.
    m : int
        Number of examples.
    epsilon : float
        Per-rado privacy parameter (> 0).
    eta : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        The bound on the number n_R of rejection-sampling trials.

    Examples
    --------
    >>> from reference.dp_rados import theorem7_bound
    >>> theorem7_bound(10, 20, 1.0, 0.05)
    120.0
    """
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
    """the (1 - eta)-quantile of n_R = n + NegBin(n, p_acc) (failures before the n-th success), exact   [nock2015 Thm 7]

    Parameters
    ----------
    n : int
        Number of rados wanted.
    m : int
        Number of examples.
    epsilon : float
        Per-rado privacy parameter (> 0).
    eta : float
        Tail probability in (0, 1).

    Returns
    -------
    int
        The (1 - eta)-quantile of the number of trials.

    Raises
    ------
    ValueError
        If the acceptance window is empty.

    Examples
    --------
    >>> from reference.dp_rados import rejection_quantile
    >>> rejection_quantile(10, 20, 1.0, 0.05)
    18
    """
    n = check_int(n, "n", minimum=1)
    m = check_int(m, "m", minimum=1)
    eps = check_positive(epsilon, "epsilon")
    eta = check_open_unit(eta, "eta")
    k_lo, k_hi = _window_bounds(m, eps)
    if k_lo > k_hi:
        raise ValueError(f"epsilon={eps} is too small for m={m}: the acceptance window of DP-Feat is empty")
    with mpmath.workdps(50):
        p = mpmath.mpf(sum(math.comb(m, k) for k in range(k_lo, k_hi + 1))) / mpmath.mpf(2) ** m
        target = 1 - mpmath.mpf(eta)
        pmf = p**n  # P(F = 0)
        cdf = pmf
        f = 0
        while cdf < target:
            pmf = pmf * (n + f) / (f + 1) * (1 - p)
            f += 1
            cdf += pmf
    return n + f


# ---------------------------------------------------------------------------------------------------------
# fixed-support rados from Gaussian-protected edges
# ---------------------------------------------------------------------------------------------------------
def clip_rows(X, clip) -> np.ndarray:
    """x_i * min(1, clip / ||x_i||_2): every row inside the L2 ball of radius clip (bounds the sensitivity)

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    clip : float
        Maximum L2 norm of a row (> 0).

    Returns
    -------
    numpy.ndarray of shape (m, d)
        The clipped rows.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.dp_rados import clip_rows
    >>> clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0)
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """
    X = as_float_matrix(X, "X")
    c = check_positive(clip, "clip")
    out = []
    for row in X:
        norm = math.sqrt(math.fsum(float(v) * float(v) for v in row))
        scale = 1.0 if norm <= c else c / norm
        out.append([float(v) * scale for v in row])
    return np.array(out, dtype=np.float64).reshape(X.shape)


@implements("nock2015.gauss")
def noisy_edges(X, y, epsilon, delta, *, clip=1.0, rng=None) -> np.ndarray:
    """e~_i = y_i clip(x_i) + N_Z-noise: all m edge vectors released by the safe Gaussian mechanism at L2 sensitivity
    2 clip (neighbours differ in one edge vector, i.e. in d coordinates)   [nock2015 s5.2; CKS20]

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).
    clip : float, default=1.0
        Rows are clipped to this L2 norm first.
    rng : None or numpy.random.Generator, optional
        Noise source: None (OS entropy) is the private use.

    Returns
    -------
    numpy.ndarray of shape (m, d)
        The noisy edge vectors.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from reference.dp_rados import noisy_edges
    >>> noisy_edges(X, y, 1.0, 1e-5).shape
    (20, 3)
    """
    from reference.rados import edge_vectors

    X, y = _examples(X, y)
    Xc = clip_rows(X, clip)
    E = edge_vectors(Xc, y)
    return gaussian_mechanism(E, sensitivity=2.0 * check_positive(clip, "clip"), epsilon=epsilon, delta=delta,
                              rng=rng, sensitivity_dimension=E.shape[1])


@implements("nock2015.alg.fixedsupport")
def fixed_support_rados(edges, y, n, support, *, rng=None) -> np.ndarray:
    """pi~_j = sum_{i in J_j} e~_i, J_j a uniform m*-subset of [m] (sigma uniform on Sigma_m^{m*}, eq. 18)
    [nock2015 s5.2, eq. (18)]; ``edges`` are the (noisy) edge vectors as ROWS; (n, d) float64.

    Parameters
    ----------
    edges : array_like of shape (m, d)
        (Noisy) edge vectors.
    y : array_like of shape (m,)
        Labels in {-1, +1} (only their number m is used for the subsets).
    n : int
        Number of rados.
    support : int
        m*, the size of each subset, in [1, m].
    rng : None, int or numpy.random.Generator, optional
        Seed of the subsets (post-processing: non-private randomness).

    Returns
    -------
    numpy.ndarray of shape (n, d)
        The rados.

    Examples
    --------
    >>> import numpy as np
    >>> from reference.dp_rados import fixed_support_rados
    >>> E = np.eye(4)
    >>> R = fixed_support_rados(E, np.ones(4), 3, 2, rng=0)
    >>> R.sum(axis=1).tolist()
    [2.0, 2.0, 2.0]
    """
    from reference.rados import sample_signatures

    E = as_float_matrix(edges, "edges")
    y = as_labels(y, "y", length=E.shape[0])
    sigmas = sample_signatures(y, n, rng=rng, support=support)
    m, d = E.shape
    out = []
    for sigma in sigmas:
        J = [i for i in range(m) if int(sigma[i]) == int(y[i])]
        out.append([math.fsum(float(E[i, k]) for i in J) for k in range(d)])
    return np.array(out, dtype=np.float64).reshape(len(sigmas), d)


# ---------------------------------------------------------------------------------------------------------
# the TOTAL budget of a DP-Feat release of n rados
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DPFeatPlan:
    """How a TOTAL (epsilon, delta) is spent on n DP-Feat rados from m examples (see :func:`dp_feat_plan`).

    Parameters
    ----------
    m, n : int
        Number of examples and of rados.
    epsilon, delta : float
        The total budget granted.
    epsilon_per_rado : float
        epsilon / n.
    window_epsilon : float
        The epsilon that sets beta (the window).
    k_lo, k_hi : int
        The window.
    delta_per_rado : float
        The exact Thm 6 delta of one rado at ``epsilon_per_rado``.
    epsilon_spent, delta_spent : float
        The composed guarantee (within the budget).
    """

    m: int
    n: int
    epsilon: float
    delta: float
    epsilon_per_rado: float
    window_epsilon: float
    k_lo: int
    k_hi: int
    delta_per_rado: float
    epsilon_spent: float
    delta_spent: float


def _window_epsilon(m: int, k_lo: int) -> float:
    """epsilon with beta (m + 1) = k_lo - 1/2, i.e. 1/(1 + e^{eps/2}) = (k_lo - 1/2)/(m + 1): window [k_lo, m - k_lo]."""
    eps = 2.0 * math.log((m + 1.5 - k_lo) / (k_lo - 0.5))
    if _window_bounds(m, eps) != (k_lo, m - k_lo):  # pragma: no cover - half a unit of margin
        raise RuntimeError(f"window epsilon for k_lo={k_lo}, m={m} missed its window")
    return eps


def _window_delta(m: int, k_lo: int, factor) -> "mpmath.mpf":
    """delta(eps') of one rado for the window W = [k_lo, m - k_lo] (exact integers, mpmath factor e^{eps'}):
    (sum_{k in W, k+1 in W} max(0, C(m,k) - e^{eps'} C(m,k+1)) + C(m, k_hi)) / sum_{k in W} C(m,k)  (the shift
    N_- -> N_- + 1; the other direction is its mirror k -> m - k, equal for a symmetric window)   [nock2015 Thm 6]"""
    k_hi = m - k_lo
    Z = sum(math.comb(m, k) for k in range(k_lo, k_hi + 1))
    total = mpmath.mpf(math.comb(m, k_hi))
    for k in range(k_lo, k_hi):
        diff = math.comb(m, k) - factor * math.comb(m, k + 1)
        if diff > 0:
            total += diff
    return total / Z


def _window_delta_upper(m: int, k_lo: int, epsilon_prime: float) -> Fraction:
    """An exact rational UPPER bound on delta(eps') of one rado for the symmetric window [k_lo, m - k_lo]:
    (sum_k max(0, C(m,k) - f C(m,k+1)) + C(m, k_hi)) / sum_k C(m,k) with f <= e^{eps'} (math.exp stepped down two
    ulps, capped at e^700 > any ratio C(m,k)/C(m,k+1) <= m), in integers   [nock2015 Thm 6; the plan's delta]

    Exact at every m (O(m^2) bit operations; this package's dp_feat_plan ranks every window in mpmath, so it is
    for small m anyway).  fast.dp_rados returns this same rational for m <= 4096 and, above, a directed-rounding
    upper bound of it within a relative 2^-140 (fast.dp_rados._window_delta_walk)."""
    f = Fraction(math.nextafter(math.nextafter(math.exp(min(epsilon_prime, 700.0)), 0.0), 0.0))
    a, b = f.numerator, f.denominator
    k_hi = m - k_lo
    c = math.comb(m, k_lo)
    Z, N = 0, 0
    for k in range(k_lo, k_hi + 1):
        Z += c
        if k == k_hi:
            N += c * b
            break
        c_next = c * (m - k) // (k + 1)
        N += max(0, c * b - a * c_next)
        c = c_next
    return Fraction(N, Z * b)


@implements("nock2015.thm6")
def dp_feat_plan(m, n, epsilon, delta) -> DPFeatPlan:
    """n rados, each (epsilon/n, delta_r)-DP, delta_r the exact Theorem 6 delta of the window minimising it,
    compose to (epsilon, n delta_r) <= (epsilon, delta)   [nock2015 Thm 6 per rado; basic composition, Dwork-Roth
    Thm 3.16]

    The window W = [k_lo, m - k_lo], k_lo = 1 .. floor(m/2), is the widest whose delta_r at eps' = epsilon / n is
    within a relative WINDOW_TIE = 1e-6 of the smallest (windows that differ only by tails of mass < 1e-16 tie: a
    float64 ranking cannot tell them apart); its beta parameter is ``window_epsilon``.  ValueError when n delta_r > delta.

    Parameters
    ----------
    m : int
        Number of examples.
    n : int
        Number of rados.
    epsilon : float
        Total epsilon (> 0).
    delta : float
        Total delta in (0, 1).

    Returns
    -------
    DPFeatPlan
        The per-rado budget and window.

    Raises
    ------
    ValueError
        If no window fits the budget.

    Examples
    --------
    >>> from reference.dp_rados import dp_feat_plan
    >>> round(dp_feat_plan(569, 10, 8.0, 1e-5).epsilon_per_rado, 6)
    0.8
    """
    from spec.privacy_contract import check_total_budget, exact_share, float_up

    m = check_int(m, "m", minimum=2)
    n = check_int(n, "n", minimum=1)
    eps, dl = check_total_budget(epsilon, delta, delta_required=True)
    eps_r = exact_share(eps, n)  # the largest double with n eps_r <= eps EXACTLY (a float product can round down)
    with mpmath.workdps(50):
        factor = mpmath.exp(mpmath.mpf(eps_r))
        deltas = [_window_delta(m, k_lo, factor) for k_lo in range(1, m // 2 + 1)]
        near = min(deltas) * (1 + mpmath.mpf(WINDOW_TIE))
        k_lo = 1 + next(i for i, d in enumerate(deltas) if d <= near)
    eps_w = _window_epsilon(m, k_lo)
    # the Thm 6 delta of that window (dp_feat_delta is its float value), as an exact rational upper bound rounded
    # up: the spent delta is never understated by floating point
    delta_r = float_up(_window_delta_upper(m, k_lo, eps_r))
    if not n * Fraction(delta_r) <= Fraction(dl):  # exact: the float product could round below dl
        raise ValueError(
            f"DP-Feat cannot release n={n} rados from m={m} examples within the total (epsilon={eps}, delta={dl}): "
            f"the best window gives each rado delta={delta_r:.3g} at epsilon/n={eps_r:.3g}, so n*delta = "
            f"{n * delta_r:.3g} > {dl}; ask for fewer rados or a larger budget")
    return DPFeatPlan(m=m, n=n, epsilon=eps, delta=dl, epsilon_per_rado=eps_r, window_epsilon=eps_w, k_lo=k_lo,
                      k_hi=m - k_lo, delta_per_rado=delta_r, epsilon_spent=float_up(n * Fraction(eps_r)),
                      delta_spent=float_up(n * Fraction(delta_r)))
