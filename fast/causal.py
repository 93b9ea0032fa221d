"""ANM causal inference (kusner2016 ch4, Algorithm 3): kernel ridge regression, residuals, dependence scores.

Vectorised twin of :mod:`reference.causal` (same names, conventions and errors; read its module docstring for
the tie, kernel, bandwidth, IQR and split conventions).  Complexity:

* ``spearman_score``: O(m log m) (midranks from a sort; the sum of squared rank differences in exact integers);
* ``kendall_score``: O(m log m): dense ranks of a and b, sort by the key (a, b), count discordant pairs as inversions
  of b with a Fenwick tree (numba);
  ``C - D = (pairs - ties_a - ties_b + ties_ab) - 2 * discordant``;
* ``hsic_score``: O(m^2) time, O(m) memory (numba): one pass over i < j accumulates ``sum(K o L)`` and the row
  sums, then ``trace(KHLH) = sum(K o L) - (2/m) sum_i k_i l_i + sum(K) sum(L) / m^2`` (kusner2016 eq. (A.2));
  no m x m matrix and no O(m^3) product.  Applied to ``K - 1 1^T`` and ``L - 1 1^T`` (entries exp(.) - 1; the same
  centred matrices since H 1 = 0) so that wide bandwidths (nearly constant kernels) do not cancel catastrophically;
* ``krr_predict``: Cholesky (LAPACK) of ``K + (n lambda/2) I``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numba
import numpy as np
import scipy.linalg

from fast._blas import limit_blas
from fast._risk_kernels import EXP_LOW, _bits_to_float, _exp, _float_to_bits

from fast._contracts.causal_validation import (
    DEFAULT_LAM,
    DIRECTIONS,
    HSIC_BANDWIDTH,
    MEDIAN_POINTS,
    check_bandwidth,
    check_bandwidth_or_median,
    check_lam,
    check_score,
    check_test_fraction,
    paired_vectors,
    quartile_indices,
)
from fast._contracts.links import implements
from fast._contracts.validation import as_float_vector, as_generator

__all__ = [
    "ANMResult",
    "average_ranks",
    "spearman_score",
    "kendall_score",
    "hsic_score",
    "iqr",
    "iqr_score",
    "dependence_score",
    "median_bandwidth",
    "krr_predict",
    "train_test_split",
    "anm_residuals",
    "anm",
]


@dataclass(frozen=True)
class ANMResult:
    """Outcome of Algorithm 3: the two scores and the decision ("x->y", "y->x" or "undecided" on a tie).

    Parameters
    ----------
    s_xy : float
        Dependence score between the test inputs x' and the residuals r'_Y of y on x.
    s_yx : float
        Dependence score between y' and the residuals r'_X of x on y.
    direction : {"x->y", "y->x", "undecided"}
        The decision: the direction with the smaller score.

    Examples
    --------
    >>> from fast.causal import ANMResult
    >>> ANMResult(0.1, 0.3, "x->y").direction
    'x->y'
    """

    s_xy: float
    s_yx: float
    direction: str


def _decide(s_xy: float, s_yx: float) -> str:
    if s_xy < s_yx:
        return DIRECTIONS[0]
    if s_xy > s_yx:
        return DIRECTIONS[1]
    return DIRECTIONS[2]


# --------------------------------------------------------------------------- ranks and rank scores


def _new_value(sorted_values: np.ndarray) -> np.ndarray:
    """new[i] = True where sorted_values[i] starts a group of equal values (always at i = 0)."""
    new = np.empty(sorted_values.shape[0], dtype=bool)
    new[0] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=new[1:])
    return new


def _midranks(v: np.ndarray, dtype=np.int64) -> np.ndarray:
    """Twice the average ranks, as int64 (exact; float64 when asked: exact too, every value < 2^53).

    The sort need not be stable (a tie group gets one rank whatever the order of its members), so it is numpy's
    default introsort, vectorised (x86-simd-sort): 53 ms for 10^6 doubles against 181 ms for the stable sort that
    scipy.stats.rankdata uses, ~80 % of its time."""
    m = v.shape[0]
    order = np.argsort(v)
    starts = np.flatnonzero(_new_value(v[order]))  # 0-based first position of each tie group
    ends = np.append(starts[1:], m)  # exclusive
    group_twice_rank = (starts + 1 + ends).astype(dtype)  # (start+1) + (end) = 2 * mean 1-based rank
    twice = np.empty(m, dtype=dtype)
    twice[order] = np.repeat(group_twice_rank, ends - starts)
    return twice


def average_ranks(a):
    """o_a(i) = 1-based rank of a_i, tied values sharing the average of their ranks   [kusner2016 s4.1.5].

    Parameters
    ----------
    a : array_like of shape (m,)
        Real values.

    Returns
    -------
    numpy.ndarray of shape (m,)
        The midranks (float64).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import average_ranks
    >>> average_ranks(np.array([3.0, 1.0, 2.0, 2.0]))
    array([4. , 1. , 2.5, 2.5])
    """
    a = as_float_vector(a, "a")
    ranks = _midranks(a, np.float64)
    ranks *= 0.5  # exact: halving an integer < 2^53
    return ranks


@implements("kusner2016.ch4.spearman")
def spearman_score(a, b, *, chunk_size: int = 1 << 16):
    """s(a, b) = |1 - 6 sum_i d_i^2 / (m (m^2 - 1))| on midranks   [kusner2016 s4.1.5]; O(m log m), exact sum.

    Parameters
    ----------
    a, b : array_like of shape (m,)
        Paired samples, m >= 2.
    chunk_size : int, default=65536
        Block size of the exact sum of squared rank differences.

    Returns
    -------
    float
        The absolute Spearman correlation in [0, 1].

    Raises
    ------
    ValueError
        If the samples differ in length, are too short or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import spearman_score
    >>> a = np.arange(8.0)
    >>> spearman_score(a, a ** 2), spearman_score(a, -a)
    (1.0, 1.0)
    """
    a, b = paired_vectors(a, b, "spearman")
    m = a.shape[0]
    diff = _midranks(a) - _midranks(b)  # 2 d_i, integers
    four_sum_d2 = 0
    for start in range(0, m, chunk_size):  # python-int accumulation: no int64 overflow for any m
        part = diff[start:start + chunk_size]
        four_sum_d2 += int(np.dot(part, part))
    rho = Fraction(1) - Fraction(6 * four_sum_d2, 4 * m * (m * m - 1))
    return float(abs(rho))


@numba.njit(cache=True)
def _count_inversions(ranks, n_values):  # pragma: no cover - compiled
    """#{i < j : ranks[i] > ranks[j]} with a Fenwick tree over the values 0 .. n_values-1."""
    tree = np.zeros(n_values + 1, dtype=np.int64)
    inversions = 0
    for j in range(ranks.shape[0]):
        r = ranks[j] + 1
        # seen so far with rank <= r
        k = r
        le = 0
        while k > 0:
            le += tree[k]
            k -= k & (-k)
        inversions += j - le
        k = r
        while k <= n_values:
            tree[k] += 1
            k += k & (-k)
    return inversions


def _tied_pairs(sorted_values: np.ndarray) -> int:
    """sum over groups of equal consecutive values of c (c - 1) / 2."""
    counts = np.diff(np.append(np.flatnonzero(_new_value(sorted_values)), sorted_values.shape[0])).astype(np.int64)
    return int(np.sum(counts * (counts - 1) // 2))


def _dense_ranks(v: np.ndarray):
    """(dense 0-based ranks as int64, number of distinct values, tied pairs sum c (c - 1) / 2)."""
    order = np.argsort(v)  # introsort: ties need no stable order here
    sv = v[order]
    dense = np.empty(v.shape[0], dtype=np.int64)
    dense[order] = np.cumsum(_new_value(sv)) - 1
    return dense, int(dense[order[-1]]) + 1, _tied_pairs(sv)


@implements("kusner2016.ch4.kendall")
def kendall_score(a, b):
    """s(a, b) = |C - D| / (m (m - 1) / 2) (tau-a; tied pairs count 0)   [kusner2016 s4.1.5]; O(m log m).

    Parameters
    ----------
    a, b : array_like of shape (m,)
        Paired samples, m >= 2.

    Returns
    -------
    float
        The absolute Kendall tau-a in [0, 1].

    Raises
    ------
    ValueError
        If the samples differ in length, are too short or not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import kendall_score
    >>> kendall_score(np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]))
    0.3333333333333333
    """
    a, b = paired_vectors(a, b, "kendall")
    m = a.shape[0]
    dense_a, n_a, ties_a = _dense_ranks(a)
    dense_b, n_b, ties_b = _dense_ranks(b)
    key = dense_a * n_b + dense_b  # lexicographic (a, b) order as one int64 key (< m^2)
    order = np.argsort(key)  # equal keys are equal (a, b) pairs: stability is not needed
    key_sorted = key[order]
    # in (a, b) order, i < j with b_i > b_j forces a_i < a_j: exactly the discordant pairs
    discordant = int(_count_inversions(dense_b[order], n_b))
    ties_ab = _tied_pairs(key_sorted)
    total = m * (m - 1) // 2
    c_minus_d = (total - ties_a - ties_b + ties_ab) - 2 * discordant
    return abs(c_minus_d) / total


@numba.njit(cache=True)
def _hsic_sums(a, b, ha, hb):  # pragma: no cover - compiled
    """One pass over i < j: sum(K~ o L~) and the row sums of K~ = K - 1 1^T, L~ = L - 1 1^T for Gaussian K, L
    (entries exp(-((u - v)/h)^2 / 2) - 1, diagonal 0): H 1 = 0, so trace(K~ H L~ H) = trace(K H L H), and K~ keeps
    full relative precision where K is nearly constant (h much wider than the data), which K itself loses."""
    m = a.shape[0]
    k_row = np.zeros(m)
    l_row = np.zeros(m)
    kl = 0.0
    for i in range(m):
        ai = a[i]
        bi = b[i]
        acc_kl = 0.0
        acc_k = 0.0
        acc_l = 0.0
        for j in range(i + 1, m):
            da = (ai - a[j]) / ha
            db = (bi - b[j]) / hb
            kij = math.exp(-0.5 * da * da) - 1.0  # exact subtraction near 1 (Sterbenz); expm1 is 2.4x slower
            lij = math.exp(-0.5 * db * db) - 1.0
            acc_kl += kij * lij
            acc_k += kij
            acc_l += lij
            k_row[j] += kij
            l_row[j] += lij
        kl += 2.0 * acc_kl
        k_row[i] += acc_k
        l_row[i] += acc_l
    return kl, k_row, l_row


@implements("kusner2016.ch4.eq4_4", "kusner2016.ch4.eq4_1")
def hsic_score(a, b, *, bandwidth_a=HSIC_BANDWIDTH, bandwidth_b=HSIC_BANDWIDTH):
    """HSIC_{k,l}(a, b) = trace(K H L H) / (m - 1)^2   [kusner2016 eq. (4.4)], via eq. (A.2) in O(m^2), O(m) memory.

    Parameters
    ----------
    a, b : array_like of shape (m,)
        Paired samples, m >= 2.
    bandwidth_a, bandwidth_b : float, default=0.5
        Gaussian kernel bandwidths for ``a`` and ``b``.

    Returns
    -------
    float
        The biased HSIC estimate (>= 0).

    Raises
    ------
    ValueError
        If the samples differ in length, are too short or not finite, or a bandwidth is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import hsic_score
    >>> a = np.arange(8.0)
    >>> round(hsic_score(a, a ** 2), 6)
    0.137954
    """
    a, b = paired_vectors(a, b, "hsic")
    ha = check_bandwidth(bandwidth_a, "bandwidth_a")
    hb = check_bandwidth(bandwidth_b, "bandwidth_b")
    m = a.shape[0]
    kl, k_row, l_row = _hsic_sums(a, b, ha, hb)  # of K~ = K - 1 1^T, L~ = L - 1 1^T (same centred matrices)
    # trace(KHLH) = sum(K o L) - (2/m) sum_i k_i l_i + sum(K) sum(L) / m^2     [kusner2016 eq. (A.2)]
    trace = kl - 2.0 * float(np.dot(k_row, l_row)) / m + float(k_row.sum()) * float(l_row.sum()) / (m * m)
    return trace / (m - 1) ** 2


def _quartiles(v: np.ndarray):
    """(sorted v, i1 = ceil(m/4), i3 = ceil(3m/4)), 1-based indices of Q1 and Q3."""
    s = np.sort(v)
    return (s, *quartile_indices(s.shape[0]))


def iqr(v):
    """IQR(v) = v_(ceil(3m/4)) - v_(ceil(m/4)), 1-based order statistics   [kusner2016 s4.1.5].

    Parameters
    ----------
    v : array_like of shape (m,)
        Real values, m >= 1.

    Returns
    -------
    float
        The interquartile range.

    Raises
    ------
    ValueError
        If ``v`` holds fewer than 4 values, or is not a finite 1-d array.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import iqr
    >>> iqr(np.arange(8.0))
    4.0
    """
    v = as_float_vector(v, "v")
    if v.shape[0] < 4:
        raise ValueError(f"the iqr score needs m >= 4 paired values, got m = {v.shape[0]}")
    s, i1, i3 = _quartiles(v)
    return float(s[i3 - 1] - s[i1 - 1])


@implements("kusner2016.ch4.eq4_2")
def iqr_score(a, b):
    """s(a, b) = log IQR(a) + log IQR(b)   [kusner2016 eq. (4.2)]; refused when an IQR is 0 (log 0 = -inf).

    Parameters
    ----------
    a, b : array_like of shape (m,)
        Paired samples.

    Returns
    -------
    float
        ``log IQR(a) + log IQR(b)``.

    Raises
    ------
    ValueError
        If an IQR is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import iqr_score
    >>> a = np.arange(8.0)
    >>> round(iqr_score(a, a ** 2), 6)
    4.564348
    """
    a, b = paired_vectors(a, b, "iqr")
    total = 0.0
    for name, v in (("a", a), ("b", b)):
        q = iqr(v)
        if q <= 0.0:
            raise ValueError(f"{name} has interquartile range 0 (constant or mostly tied data): log IQR = -inf, "
                             "the IQR score is undefined")
        total += math.log(q)
    return total


def dependence_score(a, b, score, *, bandwidth_a=HSIC_BANDWIDTH, bandwidth_b=HSIC_BANDWIDTH):
    """s(a, b) for score in {"spearman", "kendall", "hsic", "iqr"}   [kusner2016 s4.1.5].

    Parameters
    ----------
    a, b : array_like of shape (m,)
        Paired samples.
    score : {"spearman", "kendall", "hsic", "iqr"}
        The dependence measure.
    bandwidth_a, bandwidth_b : float, default=0.5
        Kernel bandwidths (``"hsic"`` only).

    Returns
    -------
    float
        The score.

    Raises
    ------
    ValueError
        If ``score`` is unknown or the samples are invalid for it.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import dependence_score
    >>> a = np.arange(8.0)
    >>> dependence_score(a, a ** 2, "kendall")
    1.0
    """
    score = check_score(score)
    if score == "spearman":
        return spearman_score(a, b)
    if score == "kendall":
        return kendall_score(a, b)
    if score == "hsic":
        return hsic_score(a, b, bandwidth_a=bandwidth_a, bandwidth_b=bandwidth_b)
    return iqr_score(a, b)


# --------------------------------------------------------------------------- kernel ridge regression


def median_bandwidth(x):
    """h = median of the non-zero |x_i - x_j|, i < j, over the first MEDIAN_POINTS inputs (1.0 if none)
    [median heuristic for the eq. (4.6) kernel; the thesis leaves the bandwidth open].

    Parameters
    ----------
    x : array_like of shape (n,)
        Real values.

    Returns
    -------
    float
        The bandwidth (> 0).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import median_bandwidth
    >>> median_bandwidth(np.arange(8.0))
    3.0
    """
    x = as_float_vector(x, "x")
    s = np.sort(x[:MEDIAN_POINTS])
    n = s.shape[0]
    zeros = _differences_at_most(s, 0.0)  # pairs of equal values: a rounded difference is 0 only for equal values
    count = n * (n - 1) // 2 - zeros
    if count == 0:
        return 1.0
    mid = zeros + count // 2
    if count % 2:
        return float(_kth_difference(s, mid))
    return float((_kth_difference(s, mid - 1) + _kth_difference(s, mid)) / 2.0)


@numba.njit(cache=True, nogil=True)
def _differences_at_most(s, t):  # pragma: no cover - compiled
    """#{i < j : s_j - s_i <= t} for sorted s: two pointers (the rounded difference fl(s_j - s_i) is monotone in
    i and in j, rounding being monotone), O(n)."""
    count = 0
    i = 0
    for j in range(s.shape[0]):
        while s[j] - s[i] > t:
            i += 1
        count += j - i
    return count


@numba.njit(cache=True, nogil=True)
def _kth_difference(s, k):  # pragma: no cover - compiled
    """The k-th smallest (0-based) of the n (n - 1) / 2 rounded differences fl(s_j - s_i), i < j, of sorted s
    (= the |x_i - x_j| of the unsorted values: fl(a - b) = -fl(b - a)), without forming them: bisection on the bit
    patterns of the non-negative doubles (ordered as their int64 bits), each step one O(n) count; 64 steps."""
    lo = _float_to_bits(0.0)
    hi = _float_to_bits(s[s.shape[0] - 1] - s[0])
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if _differences_at_most(s, _bits_to_float(mid)) > k:
            hi = mid
        else:
            lo = mid + 1
    return _bits_to_float(lo)


def _cholesky_solve(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(A)^{-1} y from the LOWER triangle of A (Fortran-ordered: factorised in place, no copy)."""
    factor = scipy.linalg.cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
    return scipy.linalg.cho_solve(factor, y, check_finite=False)


@numba.njit(cache=True, nogil=True, inline="always")
def _gaussian(t, h):  # pragma: no cover - compiled
    """exp(-(t / h)^2 / 2) by the vectorised exp (fast._risk_kernels._exp); (t / h)^2 may overflow to inf: the
    value is then 0, as is any value below e^-708 (numpy's exp: a subnormal < 3e-308)."""
    z = t / h
    e = -0.5 * (z * z)
    return _exp(e) if e >= EXP_LOW else 0.0


@numba.njit(cache=True, nogil=True)
def _gaussian_lower(x, h, shift, out):  # pragma: no cover - compiled
    """out[i, j] = exp(-((x_i - x_j) / h)^2 / 2) for i >= j (the triangle the Cholesky reads), + shift on the
    diagonal; ``out`` Fortran-ordered, filled column by column (:func:`_gaussian`, vectorised)."""
    n = x.shape[0]
    for j in range(n):
        xj = x[j]
        for i in range(j, n):
            out[i, j] = _gaussian(x[i] - xj, h)
        out[j, j] += shift


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _weighted_sum(w, v):  # pragma: no cover - compiled
    """sum_i w_i v_i, reassociated (vectorised)."""
    acc = 0.0
    for i in range(w.shape[0]):
        acc += w[i] * v[i]
    return acc


@numba.njit(cache=True, nogil=True)
def _gaussian_predict(x_test, x_train, h, alpha, out):  # pragma: no cover - compiled
    """out[k] = sum_i alpha_i exp(-((x_test_k - x_train_i) / h)^2 / 2): each test point's kernel row in a scratch
    vector (vectorised exp), then its dot with alpha: no (m, n) kernel matrix."""
    n = x_train.shape[0]
    row = np.empty(n)
    for k in range(x_test.shape[0]):
        xk = x_test[k]
        for i in range(n):
            row[i] = _gaussian(xk - x_train[i], h)
        out[k] = _weighted_sum(row, alpha)



@implements("kusner2016.ch4.eq4_6")
def krr_predict(x_train, y_train, x_test, *, lam=DEFAULT_LAM, bandwidth="median", chunk_size: int = 4096,
                blas_threads: int | None = -1):
    """fhat(x) = sum_i alpha_i k(x_i, x), alpha = (K + (n lambda/2) I)^{-1} y   [kusner2016 eq. (4.6), dual].

    ``blas_threads``: threads for the Cholesky; the default -1 means one thread for n <= 4000 (a 1000 x 1000
    factorisation takes ~20 ms on one core but can take > 1 s with multithreaded OpenBLAS on a loaded machine),
    the library default above; None leaves BLAS alone.

    Parameters
    ----------
    x_train, y_train : array_like of shape (n,)
        Training inputs and targets.
    x_test : array_like of shape (m,)
        Points to predict at.
    lam : float, default=1e-3
        Ridge parameter lambda (> 0).
    bandwidth : float or "median", default="median"
        Gaussian kernel bandwidth (``"median"``: :func:`median_bandwidth` of ``x_train``).
    chunk_size : int, default=4096
        Unused (kept for compatibility): the predictions are formed point by point, without a test kernel matrix.
    blas_threads : int or None, default=-1
        BLAS threads for the Cholesky (see above).

    Returns
    -------
    numpy.ndarray of shape (m,)
        The predictions fhat(x_test).

    Raises
    ------
    ValueError
        If ``x_train`` and ``y_train`` differ in length, or an input has a bad shape or value.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import krr_predict
    >>> x = np.arange(8.0)
    >>> np.round(krr_predict(x, 2 * x, np.array([1.5, 2.5])), 3)
    array([2.991, 5.014])
    """
    x_train = as_float_vector(x_train, "x_train")
    y_train = as_float_vector(y_train, "y_train")
    if x_train.shape[0] != y_train.shape[0]:
        raise ValueError(f"x_train and y_train must have the same length, got {x_train.shape[0]} and {y_train.shape[0]}")
    x_test = as_float_vector(x_test, "x_test")
    lam = check_lam(lam)
    bandwidth = check_bandwidth_or_median(bandwidth)
    h = median_bandwidth(x_train) if bandwidth == "median" else bandwidth
    n = x_train.shape[0]
    A = np.zeros((n, n), order="F")  # the upper triangle is never touched (calloc: never paged in)
    _gaussian_lower(x_train, h, n * lam / 2.0, A)  # (x_i - x_j) / h may overflow to inf: the kernel value is 0
    threads = (1 if n <= 4000 else None) if blas_threads == -1 else blas_threads
    if threads is None:
        alpha = _cholesky_solve(A, y_train)
    else:
        with limit_blas(threads):
            alpha = _cholesky_solve(A, y_train)
    out = np.empty(x_test.shape[0])
    _gaussian_predict(x_test, x_train, h, np.ascontiguousarray(alpha), out)
    return out


def train_test_split(x, y, *, test_fraction=0.5, rng=None):
    """Random split of the N records (x_i, y_i): m = round(N * test_fraction) test, N - m train   [Algorithm 3].

    Parameters
    ----------
    x, y : array_like of shape (N,)
        The paired records.
    test_fraction : float, default=0.5
        Fraction of records in the test set, in (0, 1).
    rng : None, int or numpy.random.Generator, optional
        Seed of the (non-private) split.

    Returns
    -------
    x_train, y_train, x_test, y_test : numpy.ndarray
        The two halves.

    Raises
    ------
    ValueError
        If ``x`` and ``y`` differ in length, ``test_fraction`` is out of range, or the split leaves fewer
        than 2 training or 2 test records.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import train_test_split
    >>> x_tr, y_tr, x_te, y_te = train_test_split(np.arange(8.0), np.arange(8.0), rng=0)
    >>> len(x_tr), len(x_te)
    (4, 4)
    """
    x = as_float_vector(x, "x")
    y = as_float_vector(y, "y")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    test_fraction = check_test_fraction(test_fraction)
    N = x.shape[0]
    m = int(round(N * test_fraction))
    if m < 2 or N - m < 2:
        raise ValueError(f"the split needs at least 2 training and 2 test records, got N = {N} "
                         f"and test_fraction = {test_fraction}")
    perm = as_generator(rng).permutation(N)
    train, test = perm[: N - m], perm[N - m:]
    return x[train], y[train], x[test], y[test]


@implements("kusner2016.ch4.alg3")
def anm_residuals(x_train, y_train, x_test, y_test, *, lam=DEFAULT_LAM, bandwidth="median"):
    """r'_Y = y' - fhat(x'), r'_X = x' - ghat(y') with fhat, ghat fitted on the training set   [Algorithm 3, l. 7].

    Parameters
    ----------
    x_train, y_train : array_like of shape (n,)
        Training records.
    x_test, y_test : array_like of shape (m,)
        Test records.
    lam : float, default=1e-3
        Ridge parameter of the kernel regressions.
    bandwidth : float or "median", default="median"
        Kernel bandwidth of the regressions.

    Returns
    -------
    r_y, r_x : numpy.ndarray of shape (m,)
        Test residuals of y regressed on x, and of x regressed on y.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import anm_residuals
    >>> x = np.arange(8.0)
    >>> r_y, r_x = anm_residuals(x[::2], x[::2] ** 2, x[1::2], x[1::2] ** 2)
    >>> r_y.shape, r_x.shape
    ((4,), (4,))
    """
    x_test = as_float_vector(x_test, "x_test")
    y_test = as_float_vector(y_test, "y_test", length=x_test.shape[0])
    f_hat = krr_predict(x_train, y_train, x_test, lam=lam, bandwidth=bandwidth)
    g_hat = krr_predict(y_train, x_train, y_test, lam=lam, bandwidth=bandwidth)
    return y_test - f_hat, x_test - g_hat


@implements("kusner2016.ch4.alg3")
def anm(x, y, *, score="hsic", lam=DEFAULT_LAM, bandwidth="median", test_fraction=0.5, rng=None,
        hsic_bandwidth=HSIC_BANDWIDTH):
    """s_XY = s(x', r'_Y), s_YX = s(y', r'_X); X->Y iff s_XY < s_YX   [kusner2016 Algorithm 3].

    Parameters
    ----------
    x, y : array_like of shape (N,)
        The paired observations.
    score : {"hsic", "spearman", "kendall", "iqr"}, default="hsic"
        Dependence measure between test inputs and residuals.
    lam : float, default=1e-3
        Ridge parameter of the kernel regressions.
    bandwidth : float or "median", default="median"
        Kernel bandwidth of the regressions.
    test_fraction : float, default=0.5
        Fraction of records used as the test set.
    rng : None, int or numpy.random.Generator, optional
        Seed of the (non-private) split.
    hsic_bandwidth : float, default=0.5
        Kernel bandwidth of the HSIC score.

    Returns
    -------
    ANMResult
        The two scores and the decided direction.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import anm
    >>> gen = np.random.default_rng(0)
    >>> x = gen.uniform(-1, 1, 200)
    >>> y = x ** 3 + 0.1 * gen.uniform(-1, 1, 200)
    >>> anm(x, y, rng=0).direction
    'x->y'
    """
    score = check_score(score)
    x_tr, y_tr, x_te, y_te = train_test_split(x, y, test_fraction=test_fraction, rng=rng)
    r_y, r_x = anm_residuals(x_tr, y_tr, x_te, y_te, lam=lam, bandwidth=bandwidth)
    s_xy = dependence_score(x_te, r_y, score, bandwidth_a=hsic_bandwidth, bandwidth_b=hsic_bandwidth)
    s_yx = dependence_score(y_te, r_x, score, bandwidth_a=hsic_bandwidth, bandwidth_b=hsic_bandwidth)
    return ANMResult(s_xy, s_yx, _decide(s_xy, s_yx))
