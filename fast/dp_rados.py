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
import functools
import itertools
import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import special, stats

from fast import _dp_rados_kernels as _kernels
from fast.mechanisms import gaussian_mechanism
from fast._contracts.links import implements
from fast._contracts.privacy_contract import WordRandom
from fast._contracts.validation import (as_float_matrix, as_generator, as_labels, as_signature_matrix,
                                        check_finite_array, check_int, check_open_unit, check_positive, check_real,
                                        signature_values_error)

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
    "RadoSource",
    "DPFeatSource",
    "GaussianEdgesSource",
    "dp_feat",
    "gaussian_edges",
    "NoiseReport",
    "NoiseDominatesWarning",
    "NOISE_DOMINATES_RATIO",
    "gaussian_edges_noise",
    "warn_if_noise_dominates",
]

MAX_TRIALS = 10**6
#: dp_feat_plan: windows whose delta is within this relative distance of the smallest count as tied (widest wins)
WINDOW_TIE = 1e-6
METHODS = ("exact", "rejection")
#: m from which the exact sampler locates K by certified float bounds of the window's cumulative weights
#: (:func:`fast._dp_rados_kernels.window_cdf_bounds`), with the exact integers only where the bounds cannot decide;
#: below it the integers are cheap and used throughout
BOUNDS_MIN_M = 64
#: uniform doubles per block of draws: a block is drawn while the previous one is being selected
DRAW_BLOCK = 1 << 18


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
    """beta = 1 / (1 + exp(epsilon / 2))   [nock2015 Algorithm 2, Step 1]

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
    >>> from fast.dp_rados import dp_feat_beta
    >>> round(dp_feat_beta(1.0), 6)
    0.377541
    """
    eps = check_positive(epsilon, "epsilon")
    return 1.0 / (1.0 + math.exp(min(eps / 2.0, 709.0)))


@dataclass(frozen=True)
class DPFeatWindow:
    """Sigma_m^{beta,j*} in the K form: k_lo <= K_sigma <= k_hi (returned by :func:`dp_feat_window`).

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

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from fast.dp_rados import dp_feat_window
    >>> w = dp_feat_window(X, y, 0, 1.0)
    >>> w.k_lo, w.k_hi
    (8, 12)
    """
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
    """Sigma_m^{beta,j*} as k_lo <= K_sigma <= k_hi   [nock2015 eq. (16)]

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
    >>> from fast.dp_rados import dp_feat_window
    >>> w = dp_feat_window(X, y, 0, 1.0)
    >>> w.m, w.n_minus, round(w.acceptance, 4)
    (20, 7, 0.7368)
    """
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
    """[pi_sigma,j* in [m_+ - Delta_beta, m_+ + Delta_beta]] per signature, exact   [nock2015 eq. (16)]

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

    Raises
    ------
    ValueError
        If ``sigmas`` holds an entry other than -1 and +1, or an input has a bad shape or value.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from fast.dp_rados import in_dp_feat_set
    >>> in_dp_feat_set(X, y, 0, 1.0, np.ones((2, 20), dtype=np.int8))
    array([ True,  True])
    """
    X, y = _examples(X, y)
    e = _feature_edges(X, y, feature)
    eps = check_positive(epsilon, "epsilon")
    # int8 input: the {-1, +1} test is fused into the counting pass (same message, raised below)
    sigmas = np.ascontiguousarray(as_signature_matrix(sigmas, "sigmas", m=e.shape[0], check_values=False))
    m = int(e.shape[0])
    n_plus = int(np.count_nonzero(e == 1))
    beta = Fraction(dp_feat_beta(eps))
    m_plus = Fraction(n_plus) - Fraction(m, 2)
    delta_beta = Fraction(m, 2) - beta * (m + 1)
    # pi_sigma,j* = K_sigma - N_-, K_sigma = #{i : sigma_i == t_i}, t_i = y_i if e_i = +1 else -y_i (module docstring
    # of the reference): one int8 comparison per entry, no (n, m) temporaries
    t = np.where(e == 1, y, -y).astype(np.int8)
    n = sigmas.shape[0]
    counts = np.empty(n, dtype=np.int64)
    if any(_kernels.run_rows(_kernels.count_agree, n, n * m, sigmas, t, counts)):
        raise signature_values_error("sigmas")
    pi = counts - (m - n_plus)
    return (pi >= math.ceil(m_plus - delta_beta)) & (pi <= math.floor(m_plus + delta_beta))


def _check_window(window: DPFeatWindow, epsilon: float) -> None:
    if window.k_lo > window.k_hi:
        raise ValueError(
            f"epsilon={epsilon} is too small for m={window.m}: the acceptance window of DP-Feat is empty "
            f"(ceil(beta(m+1)) = {window.k_lo} > floor(m - beta(m+1)) = {window.k_hi}); "
            f"need epsilon >= 2 log(1 + 2/m) for even m, 2 log((m+3)/(m-1)) for odd m")


def _words_int(raw: np.ndarray) -> int:
    """The words as one integer, the first word most significant (the reference's ``x = (x << 64) | w`` loop)."""
    return int.from_bytes(raw.astype(">u8").tobytes(), "big")


def _uniform_below_big(rng, n: int) -> int:
    if n == 1:
        return 0
    bits = (n - 1).bit_length()
    words = -(-bits // 64)
    while True:
        x = _words_int(rng.integers(0, 2**64, size=words, dtype=np.uint64)) >> (64 * words - bits)
        if x < n:
            return x


class _ExactWindow:
    """The window's integer weights C(m, k), their running sums and |Sigma_m^{beta,j*}|, computed on first use."""

    def __init__(self, m: int, k_lo: int, k_hi: int):
        self.m, self.k_lo, self.k_hi = m, k_lo, k_hi
        self._cumulative = None

    @property
    def cumulative(self) -> list[int]:
        if self._cumulative is None:
            self._cumulative = list(itertools.accumulate(_window_weights(self.m, self.k_lo, self.k_hi)))
        return self._cumulative

    @property
    def size(self) -> int:
        return self.cumulative[-1]


def _bits_between(size_lo: float, size_hi: float, T: int, m: int):
    """(size - 1).bit_length() when the bounds size_lo 2^T <= size <= size_hi 2^T and size < 2^m (k_lo >= 1: the
    window leaves out C(m, 0)) decide it, else None."""
    if not size_lo > 0.0:
        return None
    f_lo, e_lo = math.frexp(size_lo)
    e_hi = min(math.frexp(size_hi)[1] + T, m)  # size < 2^e_hi
    if f_lo > 0.5 and e_lo + T == e_hi and e_hi >= 1:  # 2^(e_hi - 1) < size < 2^e_hi
        return e_hi
    return None


def _window_ks(rng, n: int, m: int, k_lo: int, k_hi: int) -> np.ndarray:
    """n draws of K, truncated Bin(m, 1/2) on [k_lo, k_hi], by exact inversion: the reference's words and values.

    Each K is k_lo + #{k : S(k) <= x} for x uniform on [0, size) (:func:`_uniform_below_big`: the same words,
    the same rejections).  From ``BOUNDS_MIN_M`` on, the comparisons of x with S(k) and size are decided by the
    certified enclosures of :func:`fast._dp_rados_kernels.window_cdf_bounds` (O(m) float work instead of k_hi
    big-integer steps of m bits); a comparison they cannot decide (an x within ~1e-10 relative of a boundary) is
    made on the exact integers, computed then.  Either way the result is the exact inversion."""
    exact = _ExactWindow(m, k_lo, k_hi)
    if m < BOUNDS_MIN_M:
        size, cumulative = exact.size, exact.cumulative
        return np.array([k_lo + bisect.bisect_right(cumulative, _uniform_below_big(rng, size)) for _ in range(n)],
                        dtype=np.int64)
    W = k_hi - k_lo + 1
    s_lo, s_hi = np.empty(W), np.empty(W)
    T = int(_kernels.window_cdf_bounds(m, k_lo, k_hi, s_lo, s_hi))
    size_lo, size_hi = float(s_lo[-1]), float(s_hi[-1])
    bits = _bits_between(size_lo, size_hi, T, m)
    if bits is None:
        bits = (exact.size - 1).bit_length()
    words = -(-bits // 64)
    drop = 64 * words - bits
    # attempts are drawn in batches of as many as K's are still missing (each attempt is `words` words and gives at
    # most one K): never a word more than the reference reads.  x = floor(w / 2^drop) for the attempt's words w read
    # as one integer (first word most significant), so w_0 2^P <= x < (w_0 + 1) 2^P with P = 64 (words - 1) - drop;
    # with the top 53 bits h = w_0 >> 11 of the leading word, h 2^(11+P) <= x <= (h + 1) 2^(11+P) (exact floats).
    e = 11 + 64 * (words - 1) - drop - T
    K = np.empty(n, dtype=np.int64)
    done = 0
    while done < n:
        need = n - done
        raw = rng.integers(0, 2**64, size=need * words, dtype=np.uint64).reshape(need, words)
        if words >= 2 and e >= -1022:
            h = (raw[:, 0] >> np.uint64(11)).astype(np.float64)
            lo, hi = np.ldexp(h, e), np.ldexp(h + 1.0, e)
        else:
            lo, hi = np.zeros(need), np.full(need, np.inf)  # the bounds say nothing: every attempt on the integers
        xs = {}

        def exact_x(j):
            if j not in xs:
                xs[j] = _words_int(raw[j]) >> drop
            return xs[j]

        accept = hi < size_lo  # x < size for certain
        for j in np.flatnonzero(~accept & (lo < size_hi)).tolist():  # undecided: on the integers
            accept[j] = exact_x(j) < exact.size
        taken = np.flatnonzero(accept)
        first_maybe = np.searchsorted(s_hi, lo[taken], side="right")  # S(k) <= x for every k before it
        first_sure = np.searchsorted(s_lo, hi[taken], side="right")  # x < S(k) from it on
        ks = k_lo + first_sure
        for i in np.flatnonzero((first_maybe != first_sure) | (first_sure >= W)).tolist():
            ks[i] = k_lo + bisect.bisect_right(exact.cumulative, exact_x(int(taken[i])))
        K[done:done + taken.size] = ks
        done += taken.size
    return K


def _draw_block(rng, rows: int, m: int, buffer):
    """rng.random((rows, m)) (into ``buffer`` for a Generator: the same stream, no allocation)."""
    if buffer is None:
        return np.ascontiguousarray(rng.random((rows, m)), dtype=np.float64)
    out = buffer[:rows]
    rng.random(out=out)
    return out


def _select_signatures(rng, K: np.ndarray, t: np.ndarray, out: np.ndarray) -> None:
    """out[r] = the signature whose first-K[r] set is the K[r] smallest of row r of rng.random((n, m)) (ties by
    lowest index): ``t[i]`` on the set, ``-t[i]`` off it.  The rows are drawn in blocks (the same stream as one
    (n, m) draw); with several threads the calling thread draws the next block while the pool selects."""
    n, m = out.shape
    step = max(1, DRAW_BLOCK // m)
    generator = isinstance(rng, np.random.Generator)
    workers = _kernels.workers_for(n * m, -(-n // step))
    executor = _kernels.pool(workers)
    slots = 1 if executor is None else workers + 1
    buffers = [np.empty((min(step, n), m)) if generator else None for _ in range(slots)]
    pending = deque()
    for b, start in enumerate(range(0, n, step)):
        rows = min(step, n - start)
        if len(pending) == slots:
            pending.popleft().result()  # the block that used this buffer is done
        U = _draw_block(rng, rows, m, buffers[b % slots])
        args = (U, K[start:start + rows], t, out[start:start + rows], 0, rows)
        if executor is None:
            _kernels.select_rows(*args)
        else:
            pending.append(executor.submit(_kernels.select_rows, *args))
    for future in pending:
        future.result()


@implements("nock2015.alg2")
def dp_feat_signatures(X, y, feature, n, epsilon, *, method="exact", max_trials=MAX_TRIALS, rng=None):
    """n i.i.d. signatures uniform on Sigma_m^{beta,j*}   [nock2015 Algorithm 2, Step 2]; see the reference.

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
        If ``method="rejection"`` draws ``max_trials`` signatures in a row without one in the
        acceptance window (use ``method="exact"``).

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from fast.dp_rados import dp_feat_signatures, in_dp_feat_set
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
    m = int(e.shape[0])
    positive = e == 1
    if method == "exact":
        # the window's bounds only (its size, an m-bit integer, is needed only where the bounds cannot decide)
        k_lo, k_hi = _window_bounds(m, eps)
        if k_lo > k_hi:
            _check_window(DPFeatWindow(m=m, n_minus=0, m_plus=0.0, delta_beta=0.0, k_lo=k_lo, k_hi=k_hi, size=0,
                                       acceptance=0.0), eps)
        K = _window_ks(rng, n, m, k_lo, k_hi)  # all n K's first, then the (n, m) uniforms: the reference's order
        out = np.empty((n, m), dtype=np.int8)
        _select_signatures(rng, K, np.where(positive, y, -y).astype(np.int8), out)
        return out
    window = dp_feat_window(X, y, feature, eps)
    _check_window(window, eps)
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
    """{pi_sigma : sigma uniform in Sigma_m^{beta,j*}}   [nock2015 Algorithm 2]; (n, d) float64.

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
    >>> from fast.dp_rados import dp_feat_rados
    >>> dp_feat_rados(X, y, 0, 5, 1.0).shape
    (5, 3)
    """
    from fast.rados import rados

    sigmas = dp_feat_signatures(X, y, feature, n, epsilon, method=method, max_trials=max_trials, rng=rng)
    return rados(X, y, sigmas)


@implements("nock2015.thm6", "nock2015.featdp")
def dp_feat_delta(m, n_minus, epsilon, epsilon_prime=None) -> float:
    """exact hockey-stick delta(eps') of one released pi_sigma,j* over j*-neighbours (log-binomials)   [nock2015 Thm 6]

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
    >>> from fast.dp_rados import dp_feat_delta
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
    """nock2015 Theorem 7's bound on n_R (reconstructed reading; see the reference)

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
    >>> from fast.dp_rados import theorem7_bound
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
    """(1 - eta)-quantile of n_R = n + NegBin(n, p_acc)   [nock2015 Theorem 7] (scipy, checked by the cdf)

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
    >>> from fast.dp_rados import rejection_quantile
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
    """x_i * min(1, clip / ||x_i||_2)

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
    >>> from fast.dp_rados import clip_rows
    >>> clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0)
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """
    X = as_float_matrix(X, "X", check_finite=False)  # the finiteness test is fused into the kernel's pass
    try:
        c = check_positive(clip, "clip")
    except (TypeError, ValueError):
        check_finite_array(X, "X")  # a non-finite X is reported first, as before
        raise
    if not X.flags.c_contiguous:
        check_finite_array(X, "X")
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        with np.errstate(divide="ignore"):
            scale = np.where(norms <= c, 1.0, c / np.where(norms > 0, norms, 1.0))
        return X * scale[:, None]
    out = np.empty(X.shape, dtype=np.float64)
    if not all(_kernels.run_rows(_kernels.clip_rows_kernel, X.shape[0], X.size, X, c, out)):
        check_finite_array(X, "X")  # raises: the pass saw a NaN or an inf
    return out


@implements("nock2015.gauss")
def noisy_edges(X, y, epsilon, delta, *, clip=1.0, rng=None) -> np.ndarray:
    """e~_i = y_i clip(x_i) + discrete-Gaussian noise at L2 sensitivity 2 clip   [nock2015 s5.2; CKS20]

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
    >>> from fast.dp_rados import noisy_edges
    >>> noisy_edges(X, y, 1.0, 1e-5).shape
    (20, 3)
    """
    X, y = _examples(X, y)
    c = check_positive(clip, "clip")
    E = y[:, None].astype(np.float64) * clip_rows(X, c)
    return gaussian_mechanism(E, sensitivity=2.0 * c, epsilon=epsilon, delta=delta, rng=rng,
                              sensitivity_dimension=E.shape[1])


@implements("nock2015.alg.fixedsupport")
def fixed_support_rados(edges, y, n, support, *, rng=None) -> np.ndarray:
    """pi~_j = sum_{i in J_j} e~_i, J_j a uniform m*-subset (eq. 18)   [nock2015 s5.2]; (n, d) float64.

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
    >>> from fast.dp_rados import fixed_support_rados
    >>> E = np.eye(4)
    >>> R = fixed_support_rados(E, np.ones(4), 3, 2, rng=0)
    >>> R.sum(axis=1).tolist()
    [2.0, 2.0, 2.0]
    """
    from fast.rados import rados

    E = as_float_matrix(edges, "edges")
    y = as_labels(y, "y", length=E.shape[0])
    m = E.shape[0]
    n = check_int(n, "n", minimum=1)
    support = check_int(support, "support", minimum=1, maximum=m)
    rng = as_generator(rng)
    # fast.rados.sample_signatures(y, n, rng, support)'s draws and signatures (J = the m* smallest of each row of
    # rng.random((n, m)), ties by lowest index), selected in O(m) per row instead of a stable argsort
    sigmas = np.empty((n, m), dtype=np.int8)
    _select_signatures(rng, np.full(n, support, dtype=np.int64), y, sigmas)
    # pi_j = sum_{i in J_j} e_i = rados(X = y e, y, sigmas) (y e_i = x_i exactly: y_i = +-1); table kernel or GEMM
    return rados(y[:, None] * E, y, sigmas)


# ---------------------------------------------------------------------------------------------------------
# the TOTAL budget of a DP-Feat release of n rados (nock2015 Thm 6 per rado, basic composition)
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

    Examples
    --------
    >>> from fast.dp_rados import dp_feat_plan
    >>> plan = dp_feat_plan(569, 10, 8.0, 1e-5)
    >>> plan.k_lo, plan.k_hi, plan.delta_spent <= 1e-5
    (1, 568, True)
    """

    m: int
    n: int
    epsilon: float  # the total granted
    delta: float  # the total granted
    epsilon_per_rado: float  # epsilon / n
    window_epsilon: float  # the beta parameter of Algorithm 2 that selects the window [k_lo, k_hi]
    k_lo: int
    k_hi: int
    delta_per_rado: float  # exact hockey-stick delta(epsilon_per_rado) of one rado (Thm 6, dp_feat_delta)
    epsilon_spent: float  # n * epsilon_per_rado (<= epsilon)
    delta_spent: float  # n * delta_per_rado (<= delta)


def _window_epsilon(m: int, k_lo: int) -> float:
    """An epsilon whose window is [k_lo, m - k_lo]: beta (m + 1) = k_lo - 1/2 (half a unit from both roundings)."""
    eps = 2.0 * math.log((m + 1.5 - k_lo) / (k_lo - 0.5))
    if _window_bounds(m, eps) != (k_lo, m - k_lo):  # pragma: no cover - half a unit of margin
        raise RuntimeError(f"window epsilon for k_lo={k_lo}, m={m} missed its window")
    return eps


def _window_deltas(m: int, epsilon_prime: float) -> np.ndarray:
    """delta(epsilon') of one rado for every symmetric window [lo, m - lo], lo = 1..floor(m/2) (float64; ranking
    only: the chosen window's delta is recomputed by dp_feat_delta)."""
    k = np.arange(m + 1)
    log_c = special.gammaln(m + 1) - special.gammaln(k + 1) - special.gammaln(m - k + 1)
    c = np.exp(log_c - log_c.max())
    g = np.maximum(0.0, c[:-1] - math.exp(min(epsilon_prime, 700.0)) * c[1:])  # k vs its neighbour at k + 1
    C = np.concatenate([[0.0], np.cumsum(c)])
    G = np.concatenate([[0.0], np.cumsum(g)])
    lo = np.arange(1, m // 2 + 1)
    hi = m - lo
    return ((G[hi] - G[lo]) + c[hi]) / (C[hi + 1] - C[lo])


#: Largest m for which ``_window_delta_upper`` sums the exact integers C(m, k) (O(m^2) bit operations; measured
#: at k_lo = 1: 4 ms at m = 4096, 60 ms at 16384, 2.0 s at 10^5); above it, the directed-rounding walk of
#: ``_window_delta_walk`` (0.6 ms at 4096, 10 ms at 10^5, 0.1 s at 10^6).  Plans with m <= this bound are unchanged.
_WINDOW_DELTA_EXACT_MAX_M = 4096
#: The walk's result is accepted only if it is within a relative 2^-_WINDOW_DELTA_TOL_BITS (7e-43) of its own rigorous
#: LOWER bound, hence of the exact rational; otherwise the precision doubles (and past 4096 bits: the exact sum).
_WINDOW_DELTA_TOL_BITS = 140


def _window_factor(epsilon_prime: float) -> tuple[int, int]:
    """f = a / b <= e^{eps'} exactly: math.exp stepped down two ulps (math.exp is faithful, within one ulp), capped
    at e^700 (> m >= any ratio C(m,k)/C(m,k+1) that matters)."""
    f = Fraction(math.nextafter(math.nextafter(math.exp(min(epsilon_prime, 700.0)), 0.0), 0.0))
    return f.numerator, f.denominator


def _window_delta_exact(m: int, k_lo: int, a: int, b: int) -> Fraction:
    """(sum_{k_lo <= k < k_hi} max(0, b C(m,k) - a C(m,k+1)) + b C(m,k_hi)) / (b sum_{k_lo <= k <= k_hi} C(m,k)),
    k_hi = m - k_lo, in exact integers (O(m) multiplications of O(m)-bit integers)."""
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


def _walk_sum(m: int, k: int, end: int, lo: int, up: int, T: int, a: int = 0, b: int = 0) -> tuple[int, int]:
    """(S_lo, S_up) with S_lo <= sum_j C(m,j) w_j / 2^s <= S_up over j from k to ``end`` (inclusive; one direction,
    AWAY from the mode, so every ratio C(m,j+-1)/C(m,j) is <= 1 and C(m,.) is non-increasing along the walk), given
    lo <= C(m,k)/2^s <= up.  Weights: w_j = 1 if b == 0, else w_j = d_j/(j+1), d_j = b(j+1) - a(m-j) (>= 0 on the
    caller's range, and <= b).  The walk stops early once up <= T: the |end - j| terms left are each <= C(m,j) w_max
    <= up w_max (non-increasing C, w <= w_max = max(1, b)), added to S_up and dropped from S_lo (terms >= 0)."""
    step = 1 if end >= k else -1
    s_lo = s_up = 0
    w_max = b if b else 1
    ab = a + b
    d = b * (k + 1) - a * (m - k)
    while True:
        if b:  # w_k = d / (k + 1): floor for the lower sum, ceil for the upper
            s_lo += lo * d // (k + 1)
            s_up -= (-up * d) // (k + 1)
        else:
            s_lo += lo
            s_up += up
        if k == end:
            return s_lo, s_up
        if up <= T:
            s_up += abs(end - k) * up * w_max
            return s_lo, s_up
        if step == 1:  # C(m,k+1) = C(m,k) (m-k)/(k+1)
            p, q = m - k, k + 1
            d += ab
        else:  # C(m,k-1) = C(m,k) k/(m-k+1)
            p, q = k, m - k + 1
            d -= ab
        lo = lo * p // q
        up = -((-up * p) // q)
        k += step


def _shift_bracket(lo: int, up: int, sh: int) -> tuple[int, int]:
    """(lo, up) divided by 2^sh, floor and ceil (sh >= 0), or multiplied by 2^-sh (exact, sh < 0)."""
    if sh <= 0:
        return lo << -sh, up << -sh
    return lo >> sh, -((-up) >> sh)


def _product_bracket(first: int, last: int, P: int) -> tuple[int, int, int]:
    """(lo, up, e) with lo 2^e <= first (first + 1) ... last <= up 2^e (1 for an empty range): exact products of
    chunks of 256 consecutive integers (math.prod), the running product cut back to P + 64 bits after each chunk
    with floor (lo) / ceil (up): relative error <= (number of chunks) 2^-(P+63)."""
    lo = up = 1
    e = 0
    for start in range(first, last + 1, 256):
        c = math.prod(range(start, min(start + 256, last + 1)))
        lo, up = lo * c, up * c
        sh = up.bit_length() - (P + 64)
        if sh > 0:
            lo, up = _shift_bracket(lo, up, sh)
            e += sh
    return lo, up, e


def _ratio_to_mode(m: int, k: int, P: int) -> tuple[int, int, int]:
    """(lo, up, e) with lo 2^e <= C(m,k) / C(m, floor(m/2)) <= up 2^e, lo and up of >= P bits, without the O(m)-bit
    integers (math.comb(10^6, 5 10^5) alone takes 5 s): for k >= h = floor(m/2) (else k -> m - k, same value),
    C(m,k)/C(m,h) = [(m-k+1) ... (m-h)] / [(h+1) ... k], each product bracketed by ``_product_bracket`` and the
    quotient rounded down (lo) / up (up).  Relative error <= (m/128 + 2) 2^-(P+62)."""
    h = m // 2
    if k < h:
        k = m - k
    n_lo, n_up, n_e = _product_bracket(m - k + 1, m - h, P)
    d_lo, d_up, d_e = _product_bracket(h + 1, k, P)
    t = max(0, P + 1 + d_up.bit_length() - n_lo.bit_length())
    return (n_lo << t) // d_up, -((-n_up << t) // d_lo), n_e - d_e - t


def _window_delta_walk(m: int, k_lo: int, a: int, b: int, P: int):
    """A rational >= ``_window_delta_exact(m, k_lo, a, b)`` by fixed point with directed rounding at P bits relative
    to each sum's largest term, or None when it is not within 2^-_WINDOW_DELTA_TOL_BITS of its own lower bound.

    Write delta = N / (b Z), Z = sum_{k_lo <= k <= k_hi} C(m,k).  The sign of b C(m,k) - a C(m,k+1) =
    C(m,k) d_k/(k+1), d_k = b(k+1) - a(m-k), is that of the integer d_k, which increases with k: the positive part
    is exactly k >= k* = floor((a m - b)/(a + b)) + 1, so N = sum_{k in R} C(m,k) d_k/(k+1) + b C(m, k_hi) over
    R = [max(k*, k_lo), k_hi - 1]: a sum of NON-NEGATIVE terms (no cancellation, no max per term).  By symmetry
    Z = 2 sum_{k_lo <= k <= h} C(m,k) - [m even] C(m,h), h = floor(m/2).  Everything is computed relative to the
    mode C(m,h), which cancels in N / Z (so no O(m)-bit integer is ever formed).

    * Anchors: Z starts at the mode, exactly 2^P units (units 2^-P C(m,h)); N's R-part starts at k_a, the point of
      R nearest the mode (where its C(m,.) are largest), and b C(m,k_hi) is a separate term; both from
      ``_ratio_to_mode``: lo 2^e <= C(m,k)/C(m,h) <= up 2^e (exact chunk products, then floor / ceil), >= P bits.
    * Walks (``_walk_sum``) go outward from the anchor with the exact ratios of consecutive binomials, keeping
      lo <- floor(lo p/q) and up <- ceil(up p/q): by induction lo <= C(m,k)/unit <= up at every k (p/q >= 0); the
      weighted terms are floored / ceiled the same way, so S_lo <= sum <= S_up, and the early-stop tail bound only
      adds to S_up (dropped terms are >= 0).  Hence N_lo <= N/2^e_n <= N_up and Z_lo <= Z/2^e_z <= Z_up (the doubled
      Z: 2 S_lo - centre and 2 S_up - centre, the centre 2^P being exact), and
      ``N_up 2^e_n / (b Z_lo 2^e_z) >= N / (b Z) >= N_lo 2^e_n / (b Z_up 2^e_z)``: the first is returned (>= the
      exact rational, so the spent delta is never understated), the second certifies its accuracy.
    * Error size: walking AWAY from the mode every ratio is <= 1, so an error of e units becomes <= e r + 1 <= e + 1
      per step (walking toward the mode from a tail would multiply it by up to m per step): after j steps a value
      is within j + 1 <= m units (anchors: relative (m/128 + 2) 2^-(P+62)); each sum is within ~ m^2 w_max units
      plus the tail bound (<= m T w_max, T = 4m, w_max = b for N, 1 for Z).  Z >= C(m,h) = 2^P units, and
      N >= C(m,k_a) b / m^2 >= 2^P b / m^2 units (the first term past k* has d >= a + b >= b), so the a priori
      relative error is <= ~ 2^5 m^4 2^-P: P = 160 + 4 bitlength(m) gives <= 2^-155 (< 1e-46).  The test
      upper <= lower (1 + 2^-140) certifies the accuracy a posteriori on every call (measured: <= 1.2e-54 relative
      to the exact rational for 4097 <= m <= 20001).
    """
    k_hi = m - k_lo
    h = m // 2
    T = 4 * m
    # Z / C(m,h) in units 2^-P: the mode is exactly 2^P units
    z_lo, z_up = _walk_sum(m, h, k_lo, 1 << P, 1 << P, T)  # k = h down to k_lo
    z_lo, z_up = 2 * z_lo, 2 * z_up
    if m % 2 == 0:  # the centre h = m/2 was counted twice
        z_lo, z_up = z_lo - (1 << P), z_up - (1 << P)
    e_z = -P
    # N / C(m,h) in units 2^e_n
    t_lo, t_up, e_n = _ratio_to_mode(m, k_lo, P)  # C(m, k_hi) = C(m, k_lo)
    n_lo, n_up = b * t_lo, b * t_up
    k_star = (a * m - b) // (a + b) + 1
    r_lo, r_hi = max(k_star, k_lo), k_hi - 1
    if r_lo <= r_hi:  # R non-empty
        k_a = min(max(h, r_lo), r_hi)  # the point of R nearest the mode: C(m,.) decreases away from it in R
        a_lo, a_up, e_a = _ratio_to_mode(m, k_a, P)
        n_lo, n_up = _shift_bracket(n_lo, n_up, e_a - e_n)  # the tail term in the anchor's units 2^e_a
        e_n = e_a
        lo0, up0 = _walk_sum(m, k_a, r_lo, a_lo, a_up, T, a, b)  # k_a down to r_lo
        n_lo, n_up = n_lo + lo0, n_up + up0
        if r_hi > k_a:  # k_a + 1 up to r_hi (only when k_a = h, a ratio (m-h)/(h+1) <= 1 away)
            p, q = m - k_a, k_a + 1
            lo1, up1 = _walk_sum(m, k_a + 1, r_hi, a_lo * p // q, -((-a_up * p) // q), T, a, b)
            n_lo, n_up = n_lo + lo1, n_up + up1
    tol = _WINDOW_DELTA_TOL_BITS
    if (n_up * z_up) << tol > n_lo * z_lo * ((1 << tol) + 1):
        return None
    e = e_n - e_z
    return Fraction(n_up << e, z_lo * b) if e >= 0 else Fraction(n_up, (z_lo * b) << -e)


def _window_delta_upper(m: int, k_lo: int, epsilon_prime: float) -> Fraction:
    """An exact rational UPPER bound on delta(eps') of one rado for the symmetric window [k_lo, m - k_lo]:
    (sum_k max(0, C(m,k) - f C(m,k+1)) + C(m, k_hi)) / sum_k C(m,k) with f <= e^{eps'} (math.exp stepped down two
    ulps, capped at e^700 > any ratio C(m,k)/C(m,k+1) <= m)   [nock2015 Thm 6; the plan's delta]

    For m <= _WINDOW_DELTA_EXACT_MAX_M (4096) it is that rational, summed in exact integers; above, summing
    O(m) binomials of O(m) bits exactly is O(m^2) bit operations (the whole plan: 2.0 s at m = 10^5, 185-318 s at
    10^6; with the walk 0.015 s and 0.14 s, the same float_up'd delta), so ``_window_delta_walk``
    returns a rational >= it (directed rounding, never below) and within a relative 2^-140 (7e-43) of it, certified
    on each call (the argument is in its docstring).  The result is cached per process (functools.lru_cache on
    (m, k_lo, eps')): a fit computes the plan for its charge and again for its draw.
    """
    return _window_delta_upper_cached(int(m), int(k_lo), float(epsilon_prime))


@functools.lru_cache(maxsize=32)
def _window_delta_upper_cached(m: int, k_lo: int, epsilon_prime: float) -> Fraction:
    """``_window_delta_upper`` on canonical (int, int, float) keys, memoised (the plan of one fit is computed for
    its charge and for its draw; a Fraction is immutable, so sharing it is safe)."""
    a, b = _window_factor(epsilon_prime)
    if m <= _WINDOW_DELTA_EXACT_MAX_M:
        return _window_delta_exact(m, k_lo, a, b)
    P = 160 + 4 * m.bit_length()
    while P <= 4096:
        bound = _window_delta_walk(m, k_lo, a, b, P)
        if bound is not None:
            return bound
        P *= 2
    return _window_delta_exact(m, k_lo, a, b)  # pragma: no cover - the a priori error is <= 2^-155 at the first P


@implements("nock2015.thm6")
def dp_feat_plan(m, n, epsilon, delta) -> DPFeatPlan:
    """n rados, each (epsilon/n, delta_r)-DP with delta_r the exact Thm 6 delta of the best window, compose to
    (epsilon, n delta_r) <= (epsilon, delta)   [nock2015 Thm 6 per rado; basic composition, Dwork-Roth Thm 3.16]

    The window (the beta of Algorithm 2) is the widest whose delta_r at epsilon' = epsilon / n is within a relative
    WINDOW_TIE of the smallest (see the reference); raises ValueError
    when even the best window gives n delta_r > delta (the guarantee would be void or exceed the grant).

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
    >>> from fast.dp_rados import dp_feat_plan
    >>> round(dp_feat_plan(569, 10, 8.0, 1e-5).epsilon_per_rado, 6)
    0.8
    """
    from fast._contracts.privacy_contract import check_total_budget, exact_share, float_up

    m = check_int(m, "m", minimum=2)
    n = check_int(n, "n", minimum=1)
    eps, dl = check_total_budget(epsilon, delta, delta_required=True)
    eps_r = exact_share(eps, n)  # the largest double with n eps_r <= eps EXACTLY (a float product can round down)
    deltas = _window_deltas(m, eps_r)
    k_lo = int(np.flatnonzero(deltas <= deltas.min() * (1 + WINDOW_TIE))[0]) + 1  # the widest of the tied windows
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


# ---------------------------------------------------------------------------------------------------------
# how much of a Gaussian-edges release is noise, from public quantities only (issue 28 item 6)
# ---------------------------------------------------------------------------------------------------------
#: ``noise_to_signal`` above which a Gaussian-edges release warns (:class:`NoiseDominatesWarning`).  Measured
#: (docs/dp_rados.md, "Why the DP rado path learns little"): on the utility benchmark's tasks (Adult, cod-rna,
#: covertype, letter, spambase; <= 20,000 rows, declared bounds, epsilon 1..64) RadoBoost on the release closed a
#: quarter of the gap between the majority error and LogisticRegression's only where the ratio was <= 0.17, and at
#: no ratio above; the mean edge of real data is a fraction (3 to 30 %) of the largest the bound allows, so at 0.2
#: its noise is about its size or larger.
NOISE_DOMINATES_RATIO = 0.2
_Z95 = 1.959963984540054  # the 0.975 quantile of N(0, 1): a 95 % two-sided interval (OpenDP's accuracy at alpha 0.05)


class NoiseDominatesWarning(UserWarning):
    """A private release whose expected noise, computed from PUBLIC quantities alone (epsilon, delta, the clip
    bound, m, d), is large against the largest signal those quantities allow: ``noise_to_signal`` above
    :data:`NOISE_DOMINATES_RATIO`, where learning from the release was measured to be hopeless.  Never depends on
    the data's values (issue 25), so it reveals nothing about them.

    Examples
    --------
    >>> from fast.dp_rados import NoiseDominatesWarning
    >>> issubclass(NoiseDominatesWarning, UserWarning)
    True
    """


@dataclass(frozen=True)
class NoiseReport:
    """Expected noise against the largest signal of a Gaussian-edges release (:func:`gaussian_edges_noise`).

    Every figure is a function of the public parameters (epsilon, delta, clip, support) and of m and d alone,
    never of the data's values.  Norms are root-mean-square norms (sqrt of the expected squared norm).

    Parameters
    ----------
    m, d, support : int
        Examples, released columns (an intercept's constant included), edges summed per rado.
    clip : float
        The L2 bound of every row (so of every edge y_i x_i).
    sigma : float
        The delivered standard deviation of the noise added to each coordinate of each edge.
    edge_noise_norm, edge_signal_max : float
        sigma sqrt(d) against clip: one noisy edge.
    rado_noise_norm, rado_signal_max : float
        sigma sqrt(support d) against support clip: one rado (the noise of its support's edges adds up).
    mean_noise_norm, mean_signal_max : float
        sigma sqrt(d / m) against clip: the mean of all m noisy edges (the mean edge e_bar = (1/m) sum_i y_i x_i,
        the first-order statistic every rado is built around; no post-processing of the release estimates it with
        less noise than the average does).
    noise_to_signal : float
        mean_noise_norm / mean_signal_max = sigma sqrt(d / m) / clip (independent of clip: sigma is proportional to
        it).  What :class:`NoiseDominatesWarning` compares with ``threshold``.
    coordinate_accuracy_95 : float
        1.96 sigma / sqrt(m): the half-width of a 95 % interval of the noise of one coordinate of the mean edge
        (OpenDP's ``gaussian_scale_to_accuracy(sigma / sqrt(m), 0.05)``).
    threshold : float
        :data:`NOISE_DOMINATES_RATIO`.
    dominated : bool
        noise_to_signal > threshold.

    Examples
    --------
    >>> from fast.dp_rados import gaussian_edges_noise
    >>> r = gaussian_edges_noise(1.0, 1e-5, 1.0, m=20000, d=9, support=10000)
    >>> round(r.noise_to_signal, 3), r.dominated
    (0.174, False)
    >>> gaussian_edges_noise(1.0, 1e-5, 1.0, m=20000, d=16, support=10000).dominated
    True
    """

    m: int
    d: int
    support: int
    clip: float
    sigma: float
    edge_noise_norm: float
    edge_signal_max: float
    rado_noise_norm: float
    rado_signal_max: float
    mean_noise_norm: float
    mean_signal_max: float
    noise_to_signal: float
    coordinate_accuracy_95: float
    threshold: float
    dominated: bool

    def as_dict(self) -> dict:
        """The report as a JSON-ready dict (the CLI's record).

        Returns
        -------
        dict

        Examples
        --------
        >>> from fast.dp_rados import gaussian_edges_noise
        >>> sorted(gaussian_edges_noise(1.0, 1e-5, 1.0, m=100, d=3, support=10).as_dict())[:3]
        ['clip', 'coordinate_accuracy_95', 'd']
        """
        from dataclasses import asdict

        return asdict(self)


def _support_of(support, m: int) -> int:
    """m* from an int (capped at m) or a fraction of m (at least 1)."""
    if isinstance(support, float):
        return max(1, min(m, round(support * m)))
    return min(m, int(support))


def gaussian_edges_noise(epsilon, delta, clip, *, m, d, support) -> NoiseReport:
    """How much of a Gaussian-edges release (:func:`noisy_edges`, then fixed-support rados) is noise, from public
    quantities only: the delivered sigma of the grid the release uses (``fast.mechanisms.gaussian_grid`` at L2
    sensitivity 2 clip, dimension d) against the largest signal the clip bound allows.

    Parameters
    ----------
    epsilon, delta : float
        The release's total budget.
    clip : float
        The L2 bound of the rows.
    m, d : int
        Examples and released columns.
    support : int or float
        m* or the fraction m*/m, as :func:`gaussian_edges`.

    Returns
    -------
    NoiseReport

    Examples
    --------
    >>> from fast.dp_rados import gaussian_edges_noise
    >>> r = gaussian_edges_noise(1.0, 1e-5, 1.0, m=20000, d=105, support=0.5)
    >>> round(r.sigma, 2), round(r.noise_to_signal, 3), r.support, r.dominated
    (8.41, 0.61, 10000, True)
    """
    from fast.mechanisms import gaussian_grid

    c = check_positive(clip, "clip")
    m = check_int(m, "m", minimum=1)
    d = check_int(d, "d", minimum=1)
    if isinstance(support, float):  # the same rule as gaussian_edges(support=...): a fraction in (0, 1] or an int >= 1
        check_real(support, "support", low=0.0, high=1.0, low_open=True)
    else:
        check_int(support, "support", minimum=1)
    s = _support_of(support, m)
    grid = gaussian_grid(2.0 * c, epsilon, delta, dimension=d)
    sigma = math.sqrt(grid.sigma2_grid) * grid.granularity  # the DELIVERED sd (the grid's integer variance)
    ratio = sigma * math.sqrt(d / m) / c
    return NoiseReport(m=m, d=d, support=s, clip=c, sigma=sigma, edge_noise_norm=sigma * math.sqrt(d),
                       edge_signal_max=c, rado_noise_norm=sigma * math.sqrt(s * d), rado_signal_max=s * c,
                       mean_noise_norm=sigma * math.sqrt(d / m), mean_signal_max=c, noise_to_signal=ratio,
                       coordinate_accuracy_95=_Z95 * sigma / math.sqrt(m), threshold=NOISE_DOMINATES_RATIO,
                       dominated=ratio > NOISE_DOMINATES_RATIO)


def warn_if_noise_dominates(report, *, stacklevel=2) -> bool:
    """Warn :class:`NoiseDominatesWarning` when ``report.dominated`` (a :class:`NoiseReport`; None: no report, no
    warning).  Public quantities only: the same call on any data of the same shape warns the same way.

    Parameters
    ----------
    report : NoiseReport or None
    stacklevel : int, default=2

    Returns
    -------
    bool
        Whether it warned.

    Raises
    ------
    TypeError
        ``report`` is neither None nor a :class:`NoiseReport`; ``stacklevel`` is not an int >= 1.

    Examples
    --------
    >>> import warnings
    >>> from fast.dp_rados import gaussian_edges_noise, warn_if_noise_dominates
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_noise_dominates(gaussian_edges_noise(1.0, 1e-5, 1.0, m=100, d=3, support=10))
    True
    >>> caught[0].category.__name__
    'NoiseDominatesWarning'
    """
    if report is not None and not isinstance(report, NoiseReport):
        raise TypeError(f"report must be None or a NoiseReport (gaussian_edges_noise), got {type(report).__name__}")
    if isinstance(stacklevel, bool) or not isinstance(stacklevel, int) or stacklevel < 1:
        raise TypeError(f"stacklevel must be an int >= 1, got {stacklevel!r}")
    if report is None or not report.dominated:
        return False
    import warnings

    warnings.warn(
        f"the Gaussian-edges release is mostly noise: the noise norm of its mean edge, sigma sqrt(d/m) = "
        f"{report.mean_noise_norm:.3g}, is {report.noise_to_signal:.3g} of the largest mean edge the public bound "
        f"allows (clip = {report.mean_signal_max:.3g}; sigma = {report.sigma:.3g} per coordinate of each edge, "
        f"m = {report.m}, d = {report.d}), above {report.threshold:g}, where learning from the rados was measured "
        "to be hopeless (docs/dp_rados.md); more examples, fewer features or a larger epsilon lower it",
        NoiseDominatesWarning, stacklevel=stacklevel + 1)
    return True


# ---------------------------------------------------------------------------------------------------------
# rado sources for the estimators (privacy=)
# ---------------------------------------------------------------------------------------------------------
class RadoSource:
    """A private rado source: ``source(X, y, n, rng=None, *, insecure_noise_seed=None) -> (n, d) rados``.

    ``rng`` (the estimator's ``random_state``) drives only NON-private randomness (e.g. the signatures of
    fixed-support rados built from already-noisy edges); the private randomness reads OS entropy unless the
    test-only ``insecure_noise_seed`` is set (warns).  Subclasses' ``_draw(X, y, n, rng, noise_rng)`` get
    ``noise_rng`` = None (OS entropy) or that seed.  ``privacy_spent(m, n)`` is the
    :class:`spec.privacy_contract.PrivacySpent` of releasing n rados built from m examples; it raises ValueError
    when the request is void, and the estimator calls it BEFORE reading the data.  Subclasses define ``_draw``,
    ``privacy_spent`` and ``_params`` (module-level classes: they pickle).

    Examples
    --------
    >>> from fast.dp_rados import RadoSource, gaussian_edges
    >>> isinstance(gaussian_edges(1.0, 1e-5, 0.5), RadoSource)
    True
    """

    name = "rado source"

    def __call__(self, X, y, n, rng=None, *, insecure_noise_seed=None):
        """n rados from (X, y): ``rng`` for the non-private randomness, OS entropy for the private one unless the
        test-only ``insecure_noise_seed`` is set (warns InsecureNoiseWarning: the output is then NOT private)."""
        from fast._contracts.privacy_contract import noise_rng

        return self._draw(self.in_domain(X), y, n, rng, noise_rng(insecure_noise_seed))

    def in_domain(self, X) -> np.ndarray:
        """X mapped into the source's PUBLIC domain before anything reads it (issue 25: one record's value never
        decides whether a release fails; ``spec.privacy_contract.to_domain``): here every entry is a finite float
        (+-inf and ints beyond the float range read as +-the largest double, NaN and anything that is not a real
        number as 0); only the dtype / shape is checked (a str or datetime dtype is a schema error).  Subclasses
        add their own domain (the clip ball, the protected boolean column).

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        numpy.ndarray of shape (m, d), float64

        Examples
        --------
        >>> import numpy as np
        >>> from fast.dp_rados import gaussian_edges
        >>> gaussian_edges(1.0, 1e-5, 0.5).in_domain([[np.nan, 3.0], [np.inf, 1.0]]).round(3).tolist()  # clip 1
        [[0.0, 3.0], [1.0, 0.0]]
        """
        from fast._contracts.privacy_contract import to_domain

        top = float(np.finfo(np.float64).max)
        return to_domain(X, "X", low=-top, high=top, ndim=2)

    def privacy_spent_for_fit(self, m, n, d):
        """What a fit on (m, d) data releasing n rados spends (the estimators call this, before any draw):
        ``privacy_spent(m, n)`` unless a source knows better from d (the Gaussian edges' delivered rho).

        Parameters
        ----------
        m : int
            Number of examples.
        n : int
            Number of rados.
        d : int
            Number of features.

        Returns
        -------
        PrivacySpent
            What the fit's release spends.

        Examples
        --------
        >>> from fast.dp_rados import gaussian_edges
        >>> gaussian_edges(1.0, 1e-5, 0.5).privacy_spent_for_fit(100, 1000, 3).epsilon
        1.0
        """
        return self.privacy_spent(m, n)

    def noise_report(self, m, d):
        """The release's expected noise against its largest signal, from public quantities (a :class:`NoiseReport`),
        or None when the source adds no noise to measure (DP-Feat: its randomness is the choice of signatures, the
        rados are exact sums).

        Parameters
        ----------
        m, d : int
            Examples and released columns.

        Returns
        -------
        NoiseReport or None

        Examples
        --------
        >>> from fast.dp_rados import dp_feat
        >>> dp_feat(0, 1.0, 1e-5).noise_report(100, 1) is None
        True
        """
        return None

    def guarantee(self, m, n) -> tuple[float, float]:
        """Total (epsilon, delta) of releasing n rados built from m examples (ValueError if void).

        Parameters
        ----------
        m : int
            Number of examples.
        n : int
            Number of rados.

        Returns
        -------
        tuple of float
            (epsilon, delta).

        Raises
        ------
        ValueError
            If the request is void or does not fit the budget.

        Examples
        --------
        >>> from fast.dp_rados import gaussian_edges
        >>> gaussian_edges(1.0, 1e-5, 0.5).guarantee(100, 1000)
        (1.0, 1e-05)
        """
        spent = self.privacy_spent(m, n)
        return spent.epsilon, spent.delta

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other):
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self):
        return hash((type(self).__name__, tuple(self._params().items())))


class DPFeatSource(RadoSource):
    """DP-Feat rados protecting the boolean feature ``feature`` within the TOTAL (epsilon, delta)   [nock2015 Alg. 2]

    All of DP-Feat's randomness is the mechanism (the uniform signature in the window IS the noise that hides the
    feature), so every draw comes from ``noise_rng`` (OS entropy by default) and ``rng`` is not used.  The
    per-rado budget and the window are :func:`dp_feat_plan` (m, n): the guarantee covers the released
    j*-coordinates under j*-neighbours (one value x_ij* flipped), see the module docstring.

    Parameters
    ----------
    feature : int
        The protected boolean column j*.
    epsilon, delta : float
        The total budget of the release.
    method : {"exact", "rejection"}, default="exact"
        As :func:`dp_feat_signatures`.
    max_trials : int, default=1000000
        As :func:`dp_feat_signatures`.

    Raises
    ------
    ValueError
        If ``method`` is unknown, or ``feature``, ``epsilon`` or ``delta`` is out of range (``delta`` is
        required).

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from fast.dp_rados import DPFeatSource
    >>> src = DPFeatSource(0, 8.0, 1e-5)
    >>> X_big = np.where(gen.normal(size=(569, 3)) > 0, 1.0, -1.0)
    >>> src(X_big, np.where(X_big[:, 1] > 0, 1, -1), 10).shape  # 10 rados from m = 569 fit (8, 1e-5)
    (10, 3)
    """

    name = "dp_feat"

    def __init__(self, feature, epsilon, delta, method="exact", max_trials=MAX_TRIALS):
        from fast._contracts.privacy_contract import check_total_budget

        self.feature = check_int(feature, "feature", minimum=0)
        self.epsilon, self.delta = check_total_budget(epsilon, delta, delta_required=True)
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        self.method = method
        self.max_trials = check_int(max_trials, "max_trials", minimum=1)

    def _params(self):
        return {"feature": self.feature, "epsilon": self.epsilon, "delta": self.delta, "method": self.method,
                "max_trials": self.max_trials}

    def plan(self, m, n) -> DPFeatPlan:
        """:func:`dp_feat_plan` for this budget; ValueError (naming the largest n that fits) when n does not fit.

        Parameters
        ----------
        m : int
            Number of examples.
        n : int
            Number of rados.

        Returns
        -------
        DPFeatPlan
            The per-rado budget and window.

        Raises
        ------
        ValueError
            If n rados from m examples do not fit the budget.

        Examples
        --------
        >>> from fast.dp_rados import dp_feat
        >>> dp_feat(0, 8.0, 1e-5).plan(569, 10).k_lo
        1
        """
        try:
            return dp_feat_plan(m, n, self.epsilon, self.delta)
        except ValueError as err:
            if "cannot release" not in str(err):
                raise
            best = self.max_rados(m, upper=n)
            raise ValueError(f"{err} (at most {best} rado{'s' if best != 1 else ''} fit this budget at m={m})") \
                from None

    def max_rados(self, m, upper=10**6) -> int:
        """The largest n <= upper whose plan fits the budget (0 if none); bisection (feasibility is monotone in n:
        more rados means a smaller epsilon per rado and a larger n delta).

        Parameters
        ----------
        m : int
            Number of examples.
        upper : int, default=10**6
            Largest n considered.

        Returns
        -------
        int
            The largest number of rados that fits (0 if none).

        Examples
        --------
        >>> from fast.dp_rados import dp_feat
        >>> dp_feat(0, 8.0, 1e-5).max_rados(569)
        23
        """
        def fits(n):
            try:
                dp_feat_plan(m, n, self.epsilon, self.delta)
                return True
            except ValueError:
                return False

        lo, hi = 0, check_int(upper, "upper", minimum=1)
        if fits(hi):
            return hi
        while hi - lo > 1:  # fits(lo) (or lo = 0), not fits(hi)
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        return lo

    def privacy_spent(self, m, n):
        """The :class:`spec.privacy_contract.PrivacySpent` of releasing n DP-Feat rados from m examples
        (ValueError if void).

        Parameters
        ----------
        m : int
            Number of examples.
        n : int
            Number of rados.

        Returns
        -------
        PrivacySpent
            The delivered (epsilon, delta), composed over the n rados.

        Examples
        --------
        >>> from fast.dp_rados import dp_feat
        >>> dp_feat(0, 8.0, 1e-5).privacy_spent(569, 10).epsilon
        8.0
        """
        from fast._contracts.privacy_contract import PrivacySpent

        p = self.plan(m, n)
        return PrivacySpent.delivered(
            n * Fraction(p.epsilon_per_rado), n * Fraction(p.delta_per_rado),  # exact; floats rounded up
            rho=None,
            neighbouring=f"replace-one (one value x_ij* of the boolean feature {self.feature} flipped; the guarantee "
                         "covers the released j*-coordinates only)",
            accounting=f"n = {p.n} DP-Feat rados, each ({p.epsilon_per_rado:.6g}, {p.delta_per_rado:.3g})-DP "
                       f"(nock2015 Thm 6, exact, window [{p.k_lo}, {p.k_hi}] of m = {p.m}), basic composition")

    def in_domain(self, X) -> np.ndarray:
        """:meth:`RadoSource.in_domain`, and the protected boolean column read as a sign: +1 where x_ij* > 0, -1
        elsewhere (0, -0.0, NaN, None, a str: -1), which reads both the -1/+1 and the 0/1 codings and never
        refuses a value (issue 25: ``dp_feat_rados`` itself still refuses a non-boolean column).

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        numpy.ndarray of shape (m, d), float64

        Examples
        --------
        >>> from fast.dp_rados import dp_feat
        >>> dp_feat(0, 1.0, 1e-5).in_domain([[0.0], [1.0], [-1.0], [0.4]]).ravel().tolist()
        [-1.0, 1.0, -1.0, 1.0]
        """
        X = super().in_domain(X)
        if 0 <= self.feature < X.shape[1]:  # else _draw's check names the feature
            X[:, self.feature] = np.where(X[:, self.feature] > 0.0, 1.0, -1.0)
        return X

    def _draw(self, X, y, n, rng, noise_rng):
        X, y = _examples(X, y)
        p = self.plan(X.shape[0], n)
        # noise_rng None: dp_feat_rados reads the OS-keyed AES-CTR words (spec.privacy_contract.WordRandom)
        return dp_feat_rados(X, y, self.feature, n, p.window_epsilon, method=self.method,
                             max_trials=self.max_trials, rng=noise_rng)


class GaussianEdgesSource(RadoSource):
    """Edges released once by the exact discrete Gaussian within the TOTAL (epsilon, delta), then fixed-support
    rados (post-processing: any number n)   [nock2015 s5.2, eq. (18)]

    The edge noise comes from ``noise_rng`` (OS entropy by default); the fixed-support signatures are
    post-processing of the noisy edges and come from ``rng`` (the estimator's ``random_state``).

    Parameters
    ----------
    epsilon, delta : float
        The total budget of the edge release.
    support : int or float, default=30
        m* (an int >= 1) or the fraction m*/m in (0, 1].
    clip : float, default=1.0
        Rows of X are clipped to this L2 norm.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> X = gen.normal(size=(20, 3))
    >>> X[:, 0] = np.where(X[:, 0] > 0, 1.0, -1.0)  # the boolean feature j* = 0 to protect
    >>> y = np.where(X[:, 1] > 0, 1, -1)
    >>> from fast.dp_rados import GaussianEdgesSource
    >>> GaussianEdgesSource(1.0, 1e-5, 0.5)(X, y, 7, rng=0).shape
    (7, 3)
    """

    name = "gaussian_edges"

    def __init__(self, epsilon, delta, support=30, clip=1.0):
        from fast._contracts.privacy_contract import check_total_budget

        self.epsilon, self.delta = check_total_budget(epsilon, delta, delta_required=True)
        self.clip = check_positive(clip, "clip")
        if isinstance(support, float):
            check_real(support, "support", low=0.0, high=1.0, low_open=True)
        else:
            check_int(support, "support", minimum=1)
        self.support = support

    def _params(self):
        return {"epsilon": self.epsilon, "delta": self.delta, "support": self.support, "clip": self.clip}

    def privacy_spent(self, m, n, d=None):
        """``d`` (the number of features, known before the data is read): rho is then the DELIVERED rho of the
        grid the release of the (m, d) edges uses (the one the mechanism charges a zCDP ledger); without it, the
        largest rho the (epsilon, delta) target allows (an upper bound for every d).

        Parameters
        ----------
        m : int
            Number of examples.
        n : int
            Number of rados.
        d : int, optional
            Number of features.

        Returns
        -------
        PrivacySpent
            The (epsilon, delta) of the edge release (any n costs the same).

        Examples
        --------
        >>> from fast.dp_rados import gaussian_edges
        >>> spent = gaussian_edges(1.0, 1e-5, 0.5).privacy_spent(100, 1000, d=3)
        >>> spent.epsilon, spent.delta
        (1.0, 1e-05)
        """
        from fast.mechanisms import gaussian_grid
        from fast._contracts.privacy_contract import PrivacySpent

        from fast.accounting import zcdp_to_dp_rho

        check_int(m, "m", minimum=1)
        check_int(n, "n", minimum=1)
        dims = 1 if d is None else check_int(d, "d", minimum=1)
        grid = gaussian_grid(2.0 * self.clip, self.epsilon, self.delta, dimension=dims)
        if grid.calibration != "zcdp":
            rho = None
        else:
            rho = zcdp_to_dp_rho(self.epsilon, self.delta) if d is None else grid.rho
        return PrivacySpent.delivered(
            self.epsilon, self.delta, rho=rho,  # the (epsilon, delta) the grid is calibrated for (the mechanism's charge)
            neighbouring="replace-one (one example (x_i, y_i) of the training set replaced; rows clipped to L2 "
                         f"norm {self.clip})",
            accounting=f"one discrete-Gaussian release of the m edge vectors at L2 sensitivity {2 * self.clip} "
                       f"(calibration {grid.calibration}: rho-zCDP with rho <= the largest whose tight conversion "
                       f"is within ({self.epsilon}, {self.delta:.3g})); the n rados are post-processing")

    def privacy_spent_for_fit(self, m, n, d):
        """:meth:`privacy_spent` with the number of features: rho is the delivered rho of the (m, d) edge release.

        Parameters
        ----------
        m : int
            Number of examples.
        n : int
            Number of rados.
        d : int
            Number of features.

        Returns
        -------
        PrivacySpent
            What the fit's release spends.

        Examples
        --------
        >>> from fast.dp_rados import gaussian_edges
        >>> src = gaussian_edges(1.0, 1e-5, 0.5)
        >>> src.privacy_spent_for_fit(100, 1000, 3).rho <= src.privacy_spent(100, 1000).rho
        True
        """
        return self.privacy_spent(m, n, d=d)

    def noise_report(self, m, d) -> NoiseReport:
        """:func:`gaussian_edges_noise` for this source on m examples of d columns (public quantities only).

        Parameters
        ----------
        m, d : int
            Examples and released columns.

        Returns
        -------
        NoiseReport

        Examples
        --------
        >>> from fast.dp_rados import gaussian_edges
        >>> round(gaussian_edges(1.0, 1e-5, 0.5).noise_report(20000, 9).noise_to_signal, 3)
        0.174
        """
        return gaussian_edges_noise(self.epsilon, self.delta, self.clip, m=m, d=d, support=self.support)

    def in_domain(self, X) -> np.ndarray:
        """:meth:`RadoSource.in_domain`, and every row in the ball of radius ``clip`` (issue 25): a row whose
        squared norm overflows (entries above ~1e154, +-inf read as +-the largest double) is clipped here, by
        scaling, to clip x / ||x||, exactly what :func:`clip_rows` does to the rows it can measure.

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        numpy.ndarray of shape (m, d), float64

        Examples
        --------
        >>> import numpy as np
        >>> from fast.dp_rados import gaussian_edges
        >>> gaussian_edges(1.0, 1e-5, 0.5, clip=2.0).in_domain([[np.inf, np.inf], [1e300, 1.0]]).round(3).tolist()
        [[1.414, 1.414], [2.0, 0.0]]
        """
        X = super().in_domain(X)
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        # a row whose squared norm overflows goes to the ball's edge along its direction; computed for EVERY row and
        # selected, never branched on (the code a private fit runs must not depend on one record's value, issue 25)
        peak = np.max(np.abs(X), axis=1)
        unit = X / np.where(peak > 0, peak, 1.0)[:, None]
        unit_norms = np.sqrt(np.einsum("ij,ij->i", unit, unit))
        edge = self.clip * unit / np.where(unit_norms > 0, unit_norms, 1.0)[:, None]
        return np.where(np.isinf(norms)[:, None], edge, X)

    def _draw(self, X, y, n, rng, noise_rng):
        X, y = _examples(X, y)
        E = noisy_edges(X, y, self.epsilon, self.delta, clip=self.clip, rng=noise_rng)  # None: OS entropy
        return fixed_support_rados(E, y, n, _support_of(self.support, E.shape[0]), rng=as_generator(rng))


def dp_feat(feature, epsilon, delta, *, method="exact", max_trials=MAX_TRIALS) -> DPFeatSource:
    """Rado source: DP-Feat rados protecting boolean feature ``feature`` within the TOTAL (epsilon, delta)
    [nock2015 Algorithm 2, Theorem 6]

    Parameters
    ----------
    feature : int
        The column j* (values in {-1, +1}) the rados protect.
    epsilon, delta : float
        The TOTAL budget of the whole release (epsilon finite > 0, delta in (0, 1)); the per-rado epsilon is
        epsilon / n and the window is chosen by :func:`dp_feat_plan` once m and n are known.
    method, max_trials
        As :func:`dp_feat_signatures`.

    Returns
    -------
    DPFeatSource
        ``source(X, y, n, rng, insecure_noise_seed=None)``; ``source.privacy_spent(m, n)`` (ValueError when n rados from m
        examples cannot fit the budget).

    Raises
    ------
    ValueError, TypeError
        A void budget (epsilon not finite or <= 0, delta outside (0, 1)).

    Examples
    --------
    >>> src = dp_feat(0, 8.0, 1e-5)
    >>> round(src.guarantee(569, 10)[0], 6)
    8.0
    """
    return DPFeatSource(feature, epsilon, delta, method=method, max_trials=max_trials)


def gaussian_edges(epsilon, delta, support=30, *, clip=1.0) -> GaussianEdgesSource:
    """Rado source: edges released once by the safe Gaussian mechanism within the TOTAL (epsilon, delta), then
    fixed-support rados (``support`` = m* as an int >= 1, or a fraction s/m in (0, 1])   [nock2015 s5.2, eq. (18)]

    Parameters
    ----------
    epsilon, delta : float
        The TOTAL budget (the rados are post-processing, so any number of them costs the same).
    support : int or float, default=30
        m* (an int >= 1) or the fraction m*/m in (0, 1].  30 is measured (docs/dp_rados.md; RadoBoostClassifier at
        its defaults on the utility benchmark's letter, covertype and spambase at epsilon 4 and 16): better than
        m/2 in 5 of the 6 settings (spambase, epsilon 16: 16.1 % error against 18.5 %), better than 3 in 4.
    clip : float
        Rows of X are clipped to this L2 norm (L2 sensitivity 2 clip).  1 (the default) on features mapped to
        [-1, 1] from declared bounds puts most rows on the unit sphere: measured better than the worst-case bound
        sqrt(d) (spambase, epsilon 16: 19.6 % error against 45.3 %); the noise is proportional to clip, the
        signal of a row is capped by it.

    Returns
    -------
    GaussianEdgesSource

    Examples
    --------
    >>> gaussian_edges(1.0, 1e-5, 0.5).guarantee(100, 1000)
    (1.0, 1e-05)
    """
    return GaussianEdgesSource(epsilon, delta, support, clip=clip)
