"""ANM causal inference (kusner2016 ch4, Algorithm 3): kernel ridge regression, residuals, dependence scores.

Readable pure-Python mirror of :mod:`fast.causal`.

Conventions (the thesis leaves them open; both packages follow them exactly):

* **Ties** (ChaLearn / Tuebingen data are often discretised): ranks are *average ranks* (midranks).
  Spearman's score is the thesis's formula ``|1 - 6 sum d_i^2 / (m(m^2-1))|`` evaluated on midranks (it equals
  ``|Pearson(ranks)|`` when there are no ties); Kendall's score is tau-a, ``|C - D| / (m(m-1)/2)``, where a
  pair tied in either variable counts as neither concordant nor discordant.  With these conventions the
  sensitivity proofs of Theorem 3 go through unchanged (each midrank moves by at most 1 when one record
  changes; each pair's sign product moves by at most 2).  With ties the d^2 formula is NOT Pearson's correlation
  of the midranks (``scipy.stats.spearmanr``, undefined for a constant variable): a constant variable scores
  exactly 1/2 against distinct values and 1 against another constant (tau-a scores 0 for both).
* **Kernels**: Gaussian ``k(u, v) = exp(-(u - v)^2 / (2 h^2))``, valued in (0, 1] as Theorems 5, 7 and 9 need.
  The HSIC kernels use *fixed* bandwidths (default h = 0.5 for data rescaled to [-1, 1]): a data-dependent
  bandwidth would void the sensitivity bounds.  The regression (not a released quantity under test-set
  privacy) may use the median heuristic: ``bandwidth="median"`` is the median of the non-zero pairwise
  distances among the first ``MEDIAN_POINTS`` training inputs (1.0 when all are equal).
* **KRR** (eq. 4.6): ``w = argmin (lambda/2)||w||^2 + (1/n) sum_i (w.phi(x_i) - y_i)^2``, whose dual solution is
  ``alpha = (K + (n lambda / 2) I)^{-1} y`` and ``fhat(x) = sum_i alpha_i k(x_i, x)``.
* **IQR**: ``Q1 = v_(ceil(m/4))``, ``Q3 = v_(ceil(3m/4))`` (1-based order statistics; numpy's
  ``method="inverted_cdf"``), so propose-test-release can count substitutions exactly.
* **Split**: ``rng.permutation(N)``; the first ``N - m`` indices train, the last ``m = round(N * test_fraction)``
  test.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from spec.causal_validation import (
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
from spec.links import implements
from spec.validation import as_float_vector, as_generator

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
    """

    s_xy: float
    s_yx: float
    direction: str


def _decide(s_xy: float, s_yx: float) -> str:
    """D = X->Y if s_XY < s_YX, Y->X if s_XY > s_YX   [kusner2016 Algorithm 3, line 11]; ties undecided."""
    if s_xy < s_yx:
        return DIRECTIONS[0]
    if s_xy > s_yx:
        return DIRECTIONS[1]
    return DIRECTIONS[2]


def _gaussian(u: float, v: float, h: float) -> float:
    """k(u, v) = exp(-z^2 / 2), z = (u - v)/h (scaled first: no underflow of h^2, overflow only to inf -> 0)."""
    z = (u - v) / h
    return math.exp(-0.5 * z * z)


# --------------------------------------------------------------------------- ranks and rank scores


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
    >>> from reference.causal import average_ranks
    >>> average_ranks(np.array([3.0, 1.0, 2.0, 2.0]))
    array([4. , 1. , 2.5, 2.5])
    """
    values = [float(t) for t in as_float_vector(a, "a")]
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        stop = start
        while stop + 1 < len(order) and values[order[stop + 1]] == values[order[start]]:
            stop += 1
        shared = (start + 1 + stop + 1) / 2.0  # mean of the ranks start+1 .. stop+1
        for pos in range(start, stop + 1):
            ranks[order[pos]] = shared
        start = stop + 1
    return np.array(ranks, dtype=np.float64)


@implements("kusner2016.ch4.spearman")
def spearman_score(a, b):
    """s(a, b) = |1 - 6 sum_i d_i^2 / (m (m^2 - 1))|, d_i = o_a(i) - o_b(i) (midranks)   [kusner2016 s4.1.5].

    Parameters
    ----------
    a, b : array_like of shape (m,)
        Paired samples, m >= 2.

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
    >>> from reference.causal import spearman_score
    >>> a = np.arange(8.0)
    >>> spearman_score(a, a ** 2), spearman_score(a, -a)
    (1.0, 1.0)
    """
    a, b = paired_vectors(a, b, "spearman")
    ra, rb = average_ranks(a), average_ranks(b)
    m = len(a)
    # midranks are multiples of 1/2: 4 d_i^2 is an integer, so the sum is exact
    four_sum_d2 = sum(int(round(2 * (ra[i] - rb[i]))) ** 2 for i in range(m))
    rho = Fraction(1) - Fraction(6 * four_sum_d2, 4 * m * (m * m - 1))
    return float(abs(rho))


def _sign(t: float) -> int:
    return int(t > 0) - int(t < 0)


@implements("kusner2016.ch4.kendall")
def kendall_score(a, b):
    """s(a, b) = |C - D| / (m (m - 1) / 2), (i, j) concordant iff (a_i - a_j)(b_i - b_j) > 0   [kusner2016 s4.1.5].

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
    >>> from reference.causal import kendall_score
    >>> kendall_score(np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]))
    0.3333333333333333
    """
    a, b = paired_vectors(a, b, "kendall")
    a, b = [float(t) for t in a], [float(t) for t in b]  # python floats: overflow to inf, never a warning
    m = len(a)
    c_minus_d = 0
    for i in range(m):
        for j in range(i + 1, m):
            c_minus_d += _sign(a[i] - a[j]) * _sign(b[i] - b[j])
    return abs(c_minus_d) / (m * (m - 1) // 2)


@implements("kusner2016.ch4.eq4_4", "kusner2016.ch4.eq4_1")
def hsic_score(a, b, *, bandwidth_a=HSIC_BANDWIDTH, bandwidth_b=HSIC_BANDWIDTH):
    """HSIC_{k,l}(a, b) = trace(K H L H) / (m - 1)^2, H = I - (1/m) 1 1^T, Gaussian k, l   [kusner2016 eq. (4.4)].

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
    >>> from reference.causal import hsic_score
    >>> a = np.arange(8.0)
    >>> round(hsic_score(a, a ** 2), 6)
    0.137954
    """
    a, b = paired_vectors(a, b, "hsic")
    ha = check_bandwidth(bandwidth_a, "bandwidth_a")
    hb = check_bandwidth(bandwidth_b, "bandwidth_b")
    a, b = [float(t) for t in a], [float(t) for t in b]
    m = len(a)
    K = [[_gaussian(a[i], a[j], ha) for j in range(m)] for i in range(m)]
    L = [[_gaussian(b[i], b[j], hb) for j in range(m)] for i in range(m)]

    def centred(M):  # (H M H)_ij = M_ij - mean_i - mean_j + grand mean
        row = [math.fsum(M[i]) / m for i in range(m)]
        grand = math.fsum(row) / m
        return [[M[i][j] - row[i] - row[j] + grand for j in range(m)] for i in range(m)]

    Kc, Lc = centred(K), centred(L)
    # trace(K H L H) = trace(HKH HLH) = sum_ij (HKH)_ij (HLH)_ij   (H idempotent, both symmetric)
    trace = math.fsum(Kc[i][j] * Lc[i][j] for i in range(m) for j in range(m))
    return trace / (m - 1) ** 2


def _order_statistics(v):
    """(sorted values, i1 = ceil(m/4), i3 = ceil(3m/4)), 1-based indices of Q1 and Q3."""
    values = sorted(float(t) for t in v)
    return (values, *quartile_indices(len(values)))


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
    >>> from reference.causal import iqr
    >>> iqr(np.arange(8.0))
    4.0
    """
    v = as_float_vector(v, "v")
    if v.shape[0] < 4:
        raise ValueError(f"the iqr score needs m >= 4 paired values, got m = {v.shape[0]}")
    values, i1, i3 = _order_statistics(v)
    return values[i3 - 1] - values[i1 - 1]


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
    >>> from reference.causal import iqr_score
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
    >>> from reference.causal import dependence_score
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
    >>> from reference.causal import median_bandwidth
    >>> median_bandwidth(np.arange(8.0))
    3.0
    """
    x = as_float_vector(x, "x")
    head = [float(t) for t in x[:MEDIAN_POINTS]]
    dists = sorted(abs(head[i] - head[j]) for i in range(len(head)) for j in range(i + 1, len(head)))
    dists = [d for d in dists if d > 0.0]
    if not dists:
        return 1.0
    n = len(dists)
    mid = n // 2
    return dists[mid] if n % 2 else (dists[mid - 1] + dists[mid]) / 2.0


def _cholesky_solve(A, y):
    """Solve A alpha = y for symmetric positive definite A (Cholesky A = L L^T, then two triangular solves)."""
    n = len(A)
    Lo = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = A[i][j] - math.fsum(Lo[i][k] * Lo[j][k] for k in range(j))
            Lo[i][j] = math.sqrt(s) if i == j else s / Lo[j][j]
    z = [0.0] * n
    for i in range(n):
        z[i] = (y[i] - math.fsum(Lo[i][k] * z[k] for k in range(i))) / Lo[i][i]
    alpha = [0.0] * n
    for i in reversed(range(n)):
        alpha[i] = (z[i] - math.fsum(Lo[k][i] * alpha[k] for k in range(i + 1, n))) / Lo[i][i]
    return alpha


@implements("kusner2016.ch4.eq4_6")
def krr_predict(x_train, y_train, x_test, *, lam=DEFAULT_LAM, bandwidth="median"):
    """fhat(x) = sum_i alpha_i k(x_i, x), alpha = (K + (n lambda/2) I)^{-1} y   [kusner2016 eq. (4.6), dual].

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
    >>> from reference.causal import krr_predict
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
    x_train, x_test = [float(t) for t in x_train], [float(t) for t in x_test]
    n = len(x_train)
    A = [[_gaussian(x_train[i], x_train[j], h) + (n * lam / 2.0 if i == j else 0.0) for j in range(n)]
         for i in range(n)]
    alpha = _cholesky_solve(A, [float(t) for t in y_train])
    pred = [math.fsum(alpha[i] * _gaussian(x_train[i], t, h) for i in range(n)) for t in x_test]
    return np.array(pred, dtype=np.float64)


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
    >>> from reference.causal import train_test_split
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
    return (np.array([x[i] for i in train]), np.array([y[i] for i in train]),
            np.array([x[i] for i in test]), np.array([y[i] for i in test]))


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
    >>> from reference.causal import anm_residuals
    >>> x = np.arange(8.0)
    >>> r_y, r_x = anm_residuals(x[::2], x[::2] ** 2, x[1::2], x[1::2] ** 2)
    >>> r_y.shape, r_x.shape
    ((4,), (4,))
    """
    x_test = as_float_vector(x_test, "x_test")
    y_test = as_float_vector(y_test, "y_test", length=x_test.shape[0])
    f_hat = krr_predict(x_train, y_train, x_test, lam=lam, bandwidth=bandwidth)
    g_hat = krr_predict(y_train, x_train, y_test, lam=lam, bandwidth=bandwidth)
    r_y = np.array([float(y_test[i]) - float(f_hat[i]) for i in range(len(y_test))], dtype=np.float64)
    r_x = np.array([float(x_test[i]) - float(g_hat[i]) for i in range(len(x_test))], dtype=np.float64)
    return r_y, r_x


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
    >>> from reference.causal import anm
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
