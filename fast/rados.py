"""Rademacher observations (rados), G_m and the rado risks, vectorised   [nock2015 s2, s7].

Same public names and semantics as :mod:`reference.rados` (differential-tested against it).

Conventions: ``X`` (m, d) one example per ROW; ``y`` (m,) in {-1, +1}; edge vectors, rados and signatures are
ROWS ((m, d), (n, d), (n, m) int8); G_m is (m, 2^m) uint8 in the column order of nock2015 eq. (20).
Temporaries are chunked to stay well below 1 GB; exponentials are evaluated in log space.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from fast._exact_rados import SignatureStream, signature_stream  # noqa: F401 (public: fast.rados.signature_stream)
from fast._rados_kernels import edge_matrix, rados_table, support_counts
from fast._risk_kernels import (
    exp_sum,
    gradient_sum_rows,
    log_sum_exp_rows,
    products,
    softplus_sum,
    softplus_sum_rows,
)
from fast._contracts.validation import (
    as_float_matrix,
    as_float_vector,
    as_generator,
    as_index_set,
    as_labels,
    as_signature_matrix,
    check_enumerable,
    check_int,
    check_open_unit,
    check_positive,
    check_finite_array,
    check_real,
    signature_values_error,
)

__all__ = [
    "edge_vectors",
    "rados",
    "g_matrix",
    "all_rados",
    "sample_signatures",
    "support_sizes",
    "logistic_risk",
    "log_exp_rado_risk",
    "exp_rado_risk",
    "log_rado_risk",
    "logistic_risk_gradient",
    "Theorem3Quantities",
    "theorem3_quantities",
    "theorem3_eq5_bound",
    "theorem3_eq6_q",
]

LOG2 = math.log(2.0)
#: bytes allowed for one temporary block (chunking bound)
CHUNK_BYTES = 64 * 1024**2
#: largest d for which method="auto" uses the table kernel (benchmarks/bench_rados.py)
TABLE_MAX_D = 256
#: fewest signatures for which method="auto" builds the subset-sum tables (their cost, 32 d adds per example, is
#: shared by the signatures: below ~256 the GEMM formulation is faster; benchmarks/peers/rados.py, rados small)
TABLE_MIN_N = 256


def _examples(X, y):
    X = as_float_matrix(X, "X")
    y = as_labels(y, "y", length=X.shape[0])
    return X, y


def _examples_and_edges(X, y):
    """(X, y, E = y[:, None] * X) with the contract of :func:`_examples`; X's finiteness test is fused into the
    pass that forms E (:func:`fast._rados_kernels.edge_matrix`) when X is C-contiguous."""
    X = as_float_matrix(X, "X", check_finite=False)
    try:
        y = as_labels(y, "y", length=X.shape[0])
    except (TypeError, ValueError):
        check_finite_array(X, "X")
        raise
    E = np.empty(X.shape, dtype=np.float64)
    if X.flags.c_contiguous:
        if not edge_matrix(X, y, E):
            check_finite_array(X, "X")
    else:
        check_finite_array(X, "X")
        np.multiply(y[:, None].astype(np.float64), X, out=E)
    return X, y, E


def _rows_per_chunk(row_bytes: int) -> int:
    return max(1, CHUNK_BYTES // max(1, row_bytes))


# --------------------------------------------------------------------------- edge vectors and rados


def edge_vectors(X, y):
    """e_i = y_i x_i   [nock2015 s2, s7]. Returns (m, d) float64, ROW i = e_i.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations, one per row.
    y : array_like of shape (m,)
        Labels in {-1, +1}.

    Returns
    -------
    numpy.ndarray of shape (m, d)
        The edge vectors, row i = y_i x_i.

    Raises
    ------
    ValueError
        If the shapes disagree, ``X`` is not finite or ``y`` is not in {-1, +1}.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import edge_vectors
    >>> edge_vectors(np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([1, -1]))
    array([[ 1.,  2.],
           [-3.,  1.]])
    """
    return _examples_and_edges(X, y)[2]


def rados(X, y, sigmas, *, method="auto"):
    """pi_sigma = (1/2) sum_i (sigma_i + y_i) x_i   [nock2015 Definition 1]; (n, d) float64, one rado per ROW.

    ``sigmas`` (n, m) in {-1, +1}, one signature per ROW.  ``method`` (keyword-only performance option): "gemm"
    (float64 0/1 support matrix times E, chunked over signatures), "table" (8-bit subset-sum tables, numba,
    see :mod:`fast._rados_kernels`; several times faster than the GEMM up to d of a few hundred), or "auto"
    (table for m >= 64, n >= TABLE_MIN_N and d <= TABLE_MAX_D), or "exact": every entry the exactly rounded sum
    (``math.fsum`` of its terms, as :func:`reference.rados.rados`), from exact partials over row blocks
    (:mod:`fast._exact_rados`; about 2-4x the table kernel).  A :class:`fast._exact_rados.SignatureStream`
    (:func:`signature_stream`) as ``sigmas``, or dask collections as ``X`` / ``y`` / ``sigmas`` (row chunks; run on
    the active dask scheduler, one exact partial per chunk merged here, :mod:`fast._dask`), imply "exact": the
    result is then the same bits whatever the chunking.

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations, one per row.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    sigmas : array_like of shape (n, m) or SignatureStream
        Signatures in {-1, +1}, one per row.
    method : {"auto", "gemm", "table", "exact"}, default="auto"
        Computation method (same result up to rounding; "exact": exactly rounded).

    Returns
    -------
    numpy.ndarray of shape (n, d)
        The rados, one per row.

    Raises
    ------
    ValueError
        If the shapes disagree or an entry is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import rados
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> y = np.array([1, -1, 1])
    >>> rados(X, y, np.array([[1, 1, 1], [-1, 1, -1]]))
    array([[1., 3.],
           [0., 0.]])
    """
    if method not in ("auto", "gemm", "table", "exact"):
        raise ValueError(f"method must be 'auto', 'gemm', 'table' or 'exact', got {method!r}")
    from fast import _dask, _exact_rados

    if _dask.is_dask_collection(X) or _dask.is_dask_collection(y) or _dask.is_dask_collection(sigmas):
        if method not in ("auto", "exact"):  # chunk-independent only when exact (fast/_exact_rados.py)
            raise ValueError(f"method must be 'auto' or 'exact' with a dask input, got {method!r}")
        return _dask.rados(X, y, sigmas)
    X, y, E = _examples_and_edges(X, y)
    m, d = X.shape
    if method == "exact" or isinstance(sigmas, _exact_rados.SignatureStream):
        if not isinstance(sigmas, _exact_rados.SignatureStream):
            sigmas = as_signature_matrix(sigmas, "sigmas", m=m)
        return _exact_rados.rados_exact(E, y, sigmas)
    if method == "auto":
        n_rows = sigmas.shape[0] if isinstance(sigmas, np.ndarray) and sigmas.ndim == 2 else TABLE_MIN_N
        method = "table" if (d <= TABLE_MAX_D and m >= 64 and n_rows >= TABLE_MIN_N) else "gemm"
    fused = method == "table" and isinstance(sigmas, np.ndarray) and sigmas.dtype == np.int8
    sigmas = as_signature_matrix(sigmas, "sigmas", m=m, check_values=not fused)
    if method == "table":
        out, ok = rados_table(E, sigmas, y)
        if not ok:  # the kernel checked the values in the same pass
            raise signature_values_error("sigmas")
        return out
    return _rados_gemm(E, sigmas, y)


def _rados_gemm(E, sigmas, y):
    n, m = sigmas.shape
    out = np.empty((n, E.shape[1]), dtype=np.float64)
    step = _rows_per_chunk(8 * m)
    for start in range(0, n, step):
        block = (sigmas[start:start + step] == y[None, :]).astype(np.float64)  # g_i = 1[sigma_i = y_i]
        np.matmul(block, E, out=out[start:start + step])
    return out


def g_matrix(m):
    """G_1 = [0 1]; G_m = [[0^T 1^T], [G_{m-1} G_{m-1}]]   [nock2015 eq. (20)]; (m, 2^m) uint8, column c = binary of c (MSB row 1).

    Parameters
    ----------
    m : int
        Number of examples (>= 1).

    Returns
    -------
    numpy.ndarray of shape (m, 2**m), dtype uint8
        G_m.

    Examples
    --------
    >>> from fast.rados import g_matrix
    >>> g_matrix(2)
    array([[0, 0, 1, 1],
           [0, 1, 0, 1]], dtype=uint8)
    """
    m = check_int(m, "m", minimum=1)
    check_enumerable(2**m, m, "the 2^m columns of G_m")
    out = np.empty((m, 2**m), dtype=np.uint8)
    for row in range(m):  # row r: runs of 2^(m-1-r) zeros then ones, written in place (no int64 temporary)
        runs = out[row].reshape(-1, 2, 2 ** (m - 1 - row))
        runs[:, 0] = 0
        runs[:, 1] = 1
    return out


def all_rados(X, y):
    """Pi = E G_m   [nock2015 eq. (21)]: (2^m, d) float64, ROW c = the rado of column c of G_m.

    Built by doubling (rados without example i, then with it), following the recursion of eq. (20).

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations, one per row (m small: 2**m rados).
    y : array_like of shape (m,)
        Labels in {-1, +1}.

    Returns
    -------
    numpy.ndarray of shape (2**m, d)
        Every rado, in the column order of G_m.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import all_rados
    >>> all_rados(np.array([[1.0], [2.0]]), np.array([1, -1]))
    array([[ 0.],
           [-2.],
           [ 1.],
           [-1.]])
    """
    return _all_rados(*_examples(X, y))


def _all_rados(X, y):
    """:func:`all_rados` of checked examples (the enumerability rule checked here)."""
    m, d = X.shape
    check_enumerable(2**m, 8 * d + m, "all 2^m rados", name=f"m = {m} (rows of X)")
    E = y[:, None].astype(np.float64) * X
    out = np.zeros((2**m, d), dtype=np.float64)
    size = 1
    for i in range(m - 1, -1, -1):  # G_m: example m is the least significant bit
        np.add(out[:size], E[i], out=out[size:2 * size])
        size *= 2
    return out


# --------------------------------------------------------------------------- signatures


def sample_signatures(y, n, rng=None, support=None):
    """n i.i.d. signatures, uniform on Sigma_m or on Sigma_m^{m*} = {sigma : m_sigma = m*}   [nock2015 s2; eq. (18)].

    (n, m) int8, one signature per ROW.  Same draws, in the same order, as :func:`reference.rados.sample_signatures`
    (``rng.integers(0, 2, ...)`` row-major for the uniform case, ``rng.random(...)`` for the fixed-support case),
    taken in blocks of rows so the int64/float64 draws stay small.

    Parameters
    ----------
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    n : int
        Number of signatures (>= 1).
    rng : None, int or numpy.random.Generator, optional
        Seed or generator (non-private randomness).
    support : int, optional
        If given, every signature agrees with ``y`` on exactly ``support`` examples (m_sigma = support).

    Returns
    -------
    numpy.ndarray of shape (n, m), dtype int8
        The signatures, one per row.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import sample_signatures, support_sizes
    >>> y = np.array([1, -1, 1])
    >>> sample_signatures(y, 4, rng=0).shape
    (4, 3)
    >>> support_sizes(y, sample_signatures(y, 5, rng=0, support=1)).tolist()
    [1, 1, 1, 1, 1]
    """
    y = as_labels(y, "y")
    m = len(y)
    n = check_int(n, "n", minimum=1)
    if support is not None:
        support = check_int(support, "support", minimum=1, maximum=m)
    rng = as_generator(rng)
    out = np.empty((n, m), dtype=np.int8)
    step = _rows_per_chunk(8 * m)
    for start in range(0, n, step):
        rows = min(step, n - start)
        if support is None:
            # int32 draws: the same Lemire 32-bit stream as the reference's default int64 (numpy draws 32-bit
            # words for a range below 2^32 whatever the dtype), half the bytes; 2 b - 1 in place in int8
            block = out[start:start + rows]
            np.copyto(block, rng.integers(0, 2, size=(rows, m), dtype=np.int32), casting="unsafe")
            block *= 2
            block -= 1
        else:
            u = rng.random((rows, m))
            chosen = np.argsort(u, axis=1, kind="stable")[:, :support]  # J: a uniform m*-subset per row
            block = np.broadcast_to(-y, (rows, m)).copy()
            np.put_along_axis(block, chosen, y[chosen], axis=1)
            out[start:start + rows] = block
    return out


def support_sizes(y, sigmas):
    """m_sigma = |{i : sigma_i = y_i}| per signature (ROW)   [nock2015 eq. (18)]; (n,) int64.

    Parameters
    ----------
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    sigmas : array_like of shape (n, m)
        Signatures, one per row.

    Returns
    -------
    numpy.ndarray of shape (n,), dtype int64
        m_sigma for each signature.

    Raises
    ------
    ValueError
        If ``sigmas`` holds an entry other than -1 and +1, or an input has a bad shape or value.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import support_sizes
    >>> support_sizes(np.array([1, -1, 1]), np.array([[1, 1, 1], [-1, 1, -1]]))
    array([2, 0])
    """
    y = as_labels(y, "y")
    if isinstance(sigmas, np.ndarray) and sigmas.dtype == np.int8:  # value check fused into the counting pass
        sigmas = as_signature_matrix(sigmas, "sigmas", m=len(y), check_values=False)
        if sigmas.flags.c_contiguous:
            counts, ok = support_counts(sigmas, y)
        else:  # the kernel reads C-contiguous rows as words: strided signatures in bounded contiguous row blocks
            n, m = sigmas.shape
            counts, ok = np.empty(n, dtype=np.int64), True
            step = _rows_per_chunk(m)
            for start in range(0, n, step):
                counts[start:start + step], block_ok = support_counts(
                    np.ascontiguousarray(sigmas[start:start + step]), y)
                ok &= block_ok
        if not ok:
            raise signature_values_error("sigmas")
        return counts
    sigmas = as_signature_matrix(sigmas, "sigmas", m=len(y))
    return np.count_nonzero(sigmas == y[None, :], axis=1).astype(np.int64)


# --------------------------------------------------------------------------- risks


def _products(A, theta, name):
    """A @ theta with the finiteness test of ``A`` fused into the same read of ``A``: a NaN or inf of A makes its
    row's product non-finite (IEEE arithmetic: 0 * NaN and 0 * inf are NaN), so A is scanned again
    (``check_finite_array``, the contract's message) only when a product is non-finite.

    C-contiguous A: numba row products (:func:`fast._risk_kernels.products`, rows split between numba's threads,
    1.3-1.5x OpenBLAS's dgemv here).  Otherwise one BLAS matrix-vector product (row chunks of <= CHUNK_BYTES when
    A is strided); no BLAS skips a non-zero coefficient, and the columns where theta == 0 are checked directly."""
    n, d = A.shape
    if A.flags.c_contiguous:
        out, finite = products(A, np.ascontiguousarray(theta))
        if not finite and name is not None:
            check_finite_array(A, name)  # raises unless the products really overflowed
        return out
    out = np.empty(n, dtype=np.float64)
    # one BLAS call when A is contiguous (no temporary); strided A is copied by numpy, so in bounded row chunks
    step = n if A.flags.f_contiguous else _rows_per_chunk(8 * d)
    with np.errstate(over="ignore", invalid="ignore"):  # non-finite products are diagnosed below
        for start in range(0, n, step):
            np.matmul(A[start:start + step], theta, out=out[start:start + step])
    if name is None:  # A computed here from checked data (theorem3_quantities): nothing to check
        return out
    if not theta.all():  # columns that theta ignores are checked directly
        zero = np.flatnonzero(theta == 0.0)
        check_finite_array(A if zero.size == d else A[:, zero], name)
    if not (math.isfinite(out.sum()) or np.isfinite(out).all()):
        check_finite_array(A, name)  # raises unless the products really overflowed
    return out


def _matrix_and_theta(A, name, theta, y=None):
    """(A, y, theta) validated as ``as_float_matrix`` / ``as_labels`` / ``as_float_vector`` would, in the same order,
    except that A's finiteness is left to :func:`_products` (a bad y or theta is reported after a non-finite A)."""
    A = as_float_matrix(A, name, check_finite=False)
    try:
        if y is not None:
            y = as_labels(y, "y", length=A.shape[0])
        theta = as_float_vector(theta, "theta", length=A.shape[1])
    except (TypeError, ValueError):
        check_finite_array(A, name)
        raise
    return A, y, theta


def logistic_risk(X, y, theta):
    """F_log(S, theta) = (1/m) sum_i log(1 + exp(-y_i theta . x_i))   [nock2015 eq. (1)] (stable softplus).

    One fused numba pass over X (:func:`fast._risk_kernels.softplus_rows`: each block of rows' margins, then their
    softplus; rows split between numba's threads); a strided X: margins by BLAS (:func:`_products`), then the
    same softplus sum (:func:`fast._risk_kernels.softplus_sum`).

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The logistic risk.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import logistic_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> round(logistic_risk(X, np.array([1, -1, 1]), np.array([0.5, -0.25])), 6)
    1.143104
    """
    X, y, theta = _matrix_and_theta(X, "X", theta, y)
    if X.flags.c_contiguous:  # one fused pass over X (fast._risk_kernels.softplus_rows)
        total, finite = softplus_sum_rows(X, y, np.ascontiguousarray(theta))
        if finite:
            return total / X.shape[0]
    u = _products(X, theta, "X")  # checks X (raises on a NaN or inf); products that overflow stay +-inf
    u *= y
    np.negative(u, out=u)  # -y_i theta . x_i
    if np.isnan(u).any():  # inf - inf inside an overflowing product
        return math.nan
    return softplus_sum(u) / X.shape[0]  # softplus(+inf) = inf, softplus(-inf) = 0


def _rados_theta(rados, theta):
    rados, _, theta = _matrix_and_theta(rados, "rados", theta)
    return rados, theta


def _log_sum_exp(s: np.ndarray) -> float:
    """log sum_j exp(s_j), shifted by the maximum; inf / -inf / NaN maxima are returned as is."""
    top = float(s.max())
    if not math.isfinite(top):
        return top  # +inf: overflow; -inf: every term is 0; NaN: propagated
    return top + math.log(exp_sum(s, top))


def _log_mean_exp(P, theta, name="rados") -> float:
    """log((1/n) sum_j exp(-theta . P[j])): one fused pass (fast._risk_kernels.lse_rows) when P is C-contiguous
    and its products finite; else products of -theta (exact negation) by :func:`_products`, then log-sum-exp."""
    if P.flags.c_contiguous:
        value, finite = log_sum_exp_rows(P, -theta)
        if finite:
            return value - math.log(P.shape[0])
    return _log_sum_exp(_products(P, -theta, name)) - math.log(P.shape[0])


def log_exp_rado_risk(rados, theta):
    """log F^r_exp(S, theta, U) = log((1/n) sum_{sigma in U} exp(-theta . pi_sigma))   [nock2015 eq. (2)].

    ``rados`` (n, d), one rado per ROW; log-sum-exp, finite for every finite input.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The log of the exponential rado risk.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import all_rados, log_exp_rado_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> P = all_rados(X, np.array([1, -1, 1]))
    >>> round(log_exp_rado_risk(P, np.array([0.5, -0.25])), 6)
    1.349869
    """
    rados, theta = _rados_theta(rados, theta)
    return _log_mean_exp(rados, theta)


def exp_rado_risk(rados, theta):
    """F^r_exp(S, theta, U) = (1/n) sum_{sigma in U} exp(-theta . pi_sigma)   [nock2015 eq. (2)].

    Returns ``inf`` only when the true value exceeds the float64 range; see :func:`log_exp_rado_risk`.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    float
        The exponential rado risk.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import all_rados, exp_rado_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> P = all_rados(X, np.array([1, -1, 1]))
    >>> round(exp_rado_risk(P, np.array([0.5, -0.25])), 6)
    3.856921
    """
    rados, theta = _rados_theta(rados, theta)
    try:
        return math.exp(_log_mean_exp(rados, theta))
    except OverflowError:
        return math.inf


def log_rado_risk(rados, theta, m):
    """F^r_log(S, theta, U) = log 2 + (1/m) log F^r_exp(S, theta, U)   [nock2015 eq. (4)]; rados are ROWS.

    Parameters
    ----------
    rados : array_like of shape (n, d)
        Rados, one per row.
    theta : array_like of shape (d,)
        Linear classifier.
    m : int
        Number of examples the rados were built from.

    Returns
    -------
    float
        The log-rado risk; over ALL 2**m rados it equals the logistic risk (nock2015 Lemma 2).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import all_rados, log_rado_risk, logistic_risk
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> y, theta = np.array([1, -1, 1]), np.array([0.5, -0.25])
    >>> bool(np.isclose(log_rado_risk(all_rados(X, y), theta, 3), logistic_risk(X, y, theta)))
    True
    """
    m = check_int(m, "m", minimum=1)
    return LOG2 + log_exp_rado_risk(rados, theta) / m


def logistic_risk_gradient(X, y, theta):
    """grad F_log(S, theta) = -(1/m) sum_i y_i x_i / (1 + exp(y_i theta . x_i))   [nock2015 eq. (7), Lemma 2].

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    theta : array_like of shape (d,)
        Linear classifier.

    Returns
    -------
    numpy.ndarray of shape (d,)
        The gradient of the logistic risk.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import logistic_risk_gradient
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> np.round(logistic_risk_gradient(X, np.array([1, -1, 1]), np.array([0.5, -0.25])), 4)
    array([ 0.6853, -0.8047])
    """
    return _gradient(*_matrix_and_theta(X, "X", theta, y))


def _gradient(X, y, theta):
    """:func:`logistic_risk_gradient` of checked X (finiteness: fused here), y and theta."""
    m = X.shape[0]
    if X.flags.c_contiguous:  # one pass: each row's margin, weight and contribution (fast._risk_kernels)
        g, finite = gradient_sum_rows(X, y, np.ascontiguousarray(theta))
        if finite:
            return -g / m
        check_finite_array(X, "X")  # raises unless the products really overflowed: then the route below
    yf = y.astype(np.float64)
    margins = _products(X, theta, "X")
    margins *= yf
    np.negative(margins, out=margins)
    c = expit(margins, out=margins)  # 1 / (1 + exp(y_i theta . x_i)), no overflow
    c *= yf
    return -(c @ X) / m


# --------------------------------------------------------------------------- Theorem 3


@dataclass(frozen=True)
class Theorem3Quantities:
    """See :class:`reference.rados.Theorem3Quantities` (same fields, same meaning).

    Parameters
    ----------
    r_theta : float
        Radius r_theta (default: ||theta||_2).
    log_rho : float
        log rho of eq. (5).
    rho_prime : float
        rho' = F^r_exp(S, theta, Sigma_r) / F^r_exp(S, theta, Sigma_m).
    Q : float
        Q = -(1/m) log rho'.
    grad_norm : float
        ||grad F_log(S, theta)||_2.
    pibar_r : float
        || mean over Sigma_r of pi_sigma / m ||_2.
    pistar_r : float
        max over Sigma_r of ||pi_sigma / m||_2 (eq. 8).
    eq7_bound : float
        r_theta (||grad|| + pibar_r), eq. (7) parenthesised (the reading that holds).
    eq7_literal : float
        r_theta ||grad|| + pibar_r, eq. (7) as extracted.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import theorem3_quantities
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> q = theorem3_quantities(X, np.array([1, -1, 1]), np.array([0.5, -0.25]), np.arange(8))
    >>> q.rho_prime, round(q.eq7_bound, 4)
    (1.0, 1.0075)
    """

    r_theta: float
    log_rho: float
    rho_prime: float
    Q: float
    grad_norm: float
    pibar_r: float
    pistar_r: float
    eq7_bound: float
    eq7_literal: float


#: largest index range marked by _index_set (bytes of its boolean array); beyond, the contract's np.unique
_MARK_MAX = 1 << 24


def _index_set(value, name: str, upper: int) -> np.ndarray:
    """as_index_set(value, name, upper) with its distinctness test by marking (O(n + upper), upper = 2^m rows that
    all_rados builds anyway) instead of np.unique's hashing (1.2 ms for 5461 rows of 2^14); a 1-d integer ndarray
    only, anything else (or a failure) through the contract, which raises its message."""
    if (type(value) is np.ndarray and value.ndim == 1 and value.size and value.dtype.kind in "iu"
            and upper <= _MARK_MAX):
        if int(value.min()) >= 0 and int(value.max()) < upper:
            rows = value.astype(np.int64)
            seen = np.zeros(upper, dtype=np.bool_)
            seen[rows] = True
            if np.count_nonzero(seen) == rows.shape[0]:
                return rows
    return as_index_set(value, name, upper)


def _radius(r_theta, theta) -> float:
    norm = float(np.sqrt(np.sum(theta * theta)))
    if r_theta is None:
        return norm
    r_theta = check_positive(r_theta, "r_theta")
    if r_theta < norm * (1 - 1e-12):
        raise ValueError(f"r_theta must be >= ||theta||_2 (Theta lies inside B(0, r_theta)), got {r_theta!r}")
    return r_theta


def theorem3_quantities(X, y, theta, support_rows, r_theta=None):
    """rho, rho', Q = -(1/m) log rho', and the eq. (7) bound   [nock2015 Theorem 3, eqs. (5)-(8)].

    ``support_rows``: Sigma_r as distinct column indices of G_m (rows of :func:`all_rados`).

    Parameters
    ----------
    X : array_like of shape (m, d)
        Observations.
    y : array_like of shape (m,)
        Labels in {-1, +1}.
    theta : array_like of shape (d,)
        Linear classifier.
    support_rows : array_like of int
        Sigma_r as distinct column indices of G_m, in [0, 2**m).
    r_theta : float, optional
        Radius of the ball (default: ||theta||_2).

    Returns
    -------
    Theorem3Quantities
        rho, rho', Q, the gradient norm and the eq. (7) bound.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.rados import theorem3_quantities
    >>> X = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    >>> q = theorem3_quantities(X, np.array([1, -1, 1]), np.array([0.5, -0.25]), np.arange(8))
    >>> q.Q == 0.0  # Sigma_r = Sigma_m: rho' = 1
    True
    """
    X, y = _examples(X, y)
    m, d = X.shape
    theta = as_float_vector(theta, "theta", length=d)
    rows = _index_set(support_rows, "support_rows", 2**m)
    r_theta = _radius(r_theta, theta)
    Pi_m = _all_rados(X, y)
    Pi_r = Pi_m[rows]
    s = _products(Pi_m, -theta, None)  # -theta . pi for all 2^m rados; Sigma_r's are a subset of them
    log_F_m = _log_sum_exp(s) - math.log(s.shape[0])
    log_F_r = _log_sum_exp(s[rows]) - math.log(rows.shape[0])
    log_rho_prime = log_F_r - log_F_m
    max_norm = math.sqrt(float(np.einsum("ij,ij->i", Pi_r, Pi_r).max()))  # sqrt is monotone: one sqrt
    grad_norm = float(np.linalg.norm(_gradient(X, y, theta)))
    pibar_r = float(np.linalg.norm(Pi_r.mean(axis=0) / m))
    return Theorem3Quantities(
        r_theta=r_theta,
        log_rho=r_theta * max_norm - log_F_r,
        rho_prime=math.exp(log_rho_prime),
        Q=-log_rho_prime / m,
        grad_norm=grad_norm,
        pibar_r=pibar_r,
        pistar_r=max_norm / m,
        eq7_bound=r_theta * (grad_norm + pibar_r),
        eq7_literal=r_theta * grad_norm + pibar_r,
    )


def theorem3_eq5_bound(log_rado_risk_U, Q, m, n, q):
    """F^r_log(S,theta,U) + Q - (1/m) log(1 - q/sqrt(n))   [nock2015 eq. (5)]; inf when q >= sqrt(n).

    Parameters
    ----------
    log_rado_risk_U : float
        F^r_log(S, theta, U) on the sampled rados.
    Q : float
        Q of :func:`theorem3_quantities`.
    m : int
        Number of examples.
    n : int
        Number of rados.
    q : float
        The eq. (6) quantity (see :func:`theorem3_eq6_q`).

    Returns
    -------
    float
        The right-hand side of eq. (5) (inf when q >= sqrt(n)).

    Examples
    --------
    >>> from fast.rados import theorem3_eq5_bound
    >>> round(theorem3_eq5_bound(0.7, 0.1, 3, 8, 1.0), 6)
    0.945422
    >>> theorem3_eq5_bound(0.7, 0.1, 3, 4, 2.0)
    inf
    """
    log_rado_risk_U = check_real(log_rado_risk_U, "log_rado_risk_U")
    Q = check_real(Q, "Q")
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=1)
    q = check_real(q, "q", low=0.0)
    ratio = q / math.sqrt(n)
    if ratio >= 1.0:
        return math.inf
    return log_rado_risk_U + Q - math.log1p(-ratio) / m


def theorem3_eq6_q(log_rho, r_theta, pi_max_norm, d, n, eta, constant=1.0):
    """q = c rho (r_theta max_{Sigma_r} ||pi_sigma||_2 + sqrt(d log(2en/d) + log(1/eta)))   [nock2015 Theorem 3, eq. (6)].

    The paper writes q = Omega(...): ``constant`` is the hidden factor c (default 1).  ``log_rho`` is log rho (as
    in Theorem3Quantities; rho itself overflows easily).  The radicand is clamped at 0 when n < d/(2e) makes the
    VC term negative.  Returns ``inf`` only if q exceeds the float64 range.

    Parameters
    ----------
    log_rho : float
        log rho (see :class:`Theorem3Quantities`).
    r_theta : float
        Radius r_theta.
    pi_max_norm : float
        max over Sigma_r of ||pi_sigma||_2.
    d : int
        Dimension.
    n : int
        Number of rados.
    eta : float
        Confidence parameter in (0, 1).
    constant : float, default=1.0
        The hidden factor c of the Omega().

    Returns
    -------
    float
        q.

    Examples
    --------
    >>> from fast.rados import theorem3_eq6_q
    >>> round(theorem3_eq6_q(0.0, 1.0, 2.0, 2, 8, 0.1), 6)
    4.90886
    """
    log_rho = check_real(log_rho, "log_rho")
    r_theta = check_real(r_theta, "r_theta", low=0.0)
    pi_max_norm = check_real(pi_max_norm, "pi_max_norm", low=0.0)
    d = check_int(d, "d", minimum=1)
    n = check_int(n, "n", minimum=1)
    eta = check_open_unit(eta, "eta")
    constant = check_positive(constant, "constant")
    radicand = d * math.log(2.0 * math.e * n / d) + math.log(1.0 / eta)
    width = r_theta * pi_max_norm + math.sqrt(max(radicand, 0.0))
    log_q = math.log(constant) + log_rho + (math.log(width) if width > 0 else -math.inf)
    try:
        return math.exp(log_q)
    except OverflowError:
        return math.inf


def __getattr__(name):  # lazy re-export of Lemma 9 / Hausdorff (fast.reconstruction imports this module)
    if name in ("recover_edge_vectors", "hausdorff_distance"):
        from fast import reconstruction

        return getattr(reconstruction, name)
    raise AttributeError(name)
