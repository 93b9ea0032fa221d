"""Stochastic Neighbor Compression, SNC (kusner2016 ch. 3), vectorised: the O(d m n) gradient as matrix products,
chunked over the n inputs so memory stays O(n_chunk m).  Same public names and semantics as :mod:`reference.snc`
(read its docstring for the formulas, their signs and constants).

Numerics: distances by the GEMM expansion ||x||^2 + ||z||^2 - 2 x.z after centring X and Z on the mean of X
(translation leaves every x_i - z_j unchanged and keeps the expansion's cancellation small), clipped at 0; all
probabilities from log-sum-exps, so no underflow at large gamma^2 (the loss stays finite and exact to rounding).
"""
from __future__ import annotations

import math
import os
import threading
from fractions import Fraction

import numpy as np
import numba
from numba import njit
from scipy.optimize import OptimizeResult, minimize

from fast._blas import limit_blas
from fast._contracts.snc_contract import (
    CHUNK_ELEMENTS,
    SNCFit,
    as_labels_any,
    check_gamma2,
    check_inputs,
    check_iterations,
    check_m,
    check_metric,
    check_metric_A,
    check_predict,
    check_problem,
)
from fast._contracts.validation import as_float_matrix, as_generator, check_int

__all__ = [
    "sne_probabilities",
    "nca_correct_probabilities",
    "snc_probabilities",
    "snc_log_correct",
    "snc_loss",
    "snc_gradient",
    "snc_metric_loss",
    "snc_metric_gradient",
    "class_allocation",
    "class_proportional_init",
    "snc_optimize",
    "snc_predict",
]


#: chunk loops with at least this much work (n m) run their small per-chunk GEMMs ((n_chunk x d)(d x m), d small)
#: with one BLAS thread: too small to gain from threads, and on a loaded machine threaded OpenBLAS lost up to 6x
#: (bench_snc: one gradient at n = 16000, m = 640, d = 16 took 1.97 s with 2 threads vs 0.34 s with 1).  Around
#: scipy's L-BFGS-B the limit is unconditional: its BLAS-1 calls on short vectors took 23 ms per iteration with
#: threads on the loaded machine.  Where threads pay (the gradient, prediction), the chunks are split over
#: numba.get_num_threads() Python threads instead, each with single-threaded BLAS.
_BLAS_MIN_WORK = 1 << 16


def _check_engine(engine) -> str:
    if engine not in ("numba", "numpy"):
        raise ValueError(f"engine must be 'numba' or 'numpy', got {engine!r}")
    return engine


def _chunk_rows(n: int, m: int, chunk_size) -> int:
    if chunk_size is None:
        return max(1, min(n, CHUNK_ELEMENTS // max(m, 1)))
    return check_int(chunk_size, "chunk_size", minimum=1)


def _same_mask(y, z_labels):
    """(n, m) boolean 1[yhat_j = y_i] via integer codes (cheap to slice per chunk)."""
    classes, codes = np.unique(np.concatenate([y, z_labels]), return_inverse=True)
    return codes[: y.shape[0]], codes[y.shape[0]:]


def _sqdist(Xc, Zc, z2):
    D = np.einsum("ij,ij->i", Xc, Xc)[:, None] + z2[None, :] - 2.0 * (Xc @ Zc.T)
    np.maximum(D, 0.0, out=D)
    return D


def _masked_lse(s, mask):
    """Row-wise logsumexp of s over mask (and over ~mask); -inf where the mask is empty."""
    neg = np.where(mask, s, -np.inf)
    top = neg.max(axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(neg - safe[:, None]).sum(axis=1))


def _softplus(t):
    """log(1 + e^t), -inf -> 0."""
    out = np.zeros_like(t)
    fin = np.isfinite(t)
    tt = t[fin]
    out[fin] = np.maximum(tt, 0.0) + np.log1p(np.exp(-np.abs(tt)))
    return out


def _block_exact(s, same):
    """(-log p_i, M) with separate maxima for the same- and other-label parts (rows whose same-label mass would
    underflow next to the nearest reference)."""
    S = _masked_lse(s, same)
    O = _masked_lse(s, ~same)
    nll = _softplus(O - S)
    total = np.where(np.isfinite(O), np.logaddexp(S, O), S)
    M = np.exp(np.where(same, s - S[:, None], -np.inf)) - np.exp(s - total[:, None])
    return nll, M


def _block(s, same):
    """(-log p_i per row, M) of one block of scores s (rows = inputs) and its same-label mask.

    One exp per entry: E = exp(s - max_j s_ij), same-label mass a_i and other mass b_i, -log p_i = log1p(b_i / a_i),
    M = 1[same] E / a_i - E / (a_i + b_i).  Rows with a_i < 1e-250 (the right class is > 575 nats further than
    the nearest reference) are redone by :func:`_block_exact`, so nothing underflows.
    """
    top = s.max(axis=1)
    E = np.exp(s - top[:, None])
    Es = np.where(same, E, 0.0)
    a = Es.sum(axis=1)
    b = np.where(same, 0.0, E).sum(axis=1)
    bad = a < 1e-250
    if bad.any():
        a[bad] = 1.0
    nll = np.log1p(b / a)
    M = Es / a[:, None] - E / (a + b)[:, None]
    if bad.any():
        nll[bad], M[bad] = _block_exact(s[bad], same[bad])
    return nll, M



#: inputs x references per block of the compiled gradient pass: 2^16 doubles (~100 rows at m = 640) keep a block's
#: distances and weights (2 x 512 KiB) in L2 between the GEMMs and the kernel (bench_snc, old kernels: 64-128 rows
#: 28-29 ms, 409 rows 32 ms, 1024 rows 42 ms; with _fused_block, on a loaded machine: 64-256 rows within the noise,
#: 512 rows 15 % slower, 32 rows 10 % slower; one gradient at n = 16000, m = 640, d = 16, one thread)
_FUSED_CHUNK_ELEMENTS = 1 << 16
#: ... but never fewer rows than this: the second GEMM, M_b^T X_b, rewrites the whole (m, d) accumulator once per
#: block, so at large m a block of 2^16 / m rows (6 at m = 9,600) made it memory-bound.  Stop 22, one gradient, one
#: thread, loaded machine: n = 12,000, m = 9,600, d = 50 (MNIST at 16 %) 4.62 s at 6 rows, 1.97 / 1.77 / 1.65 /
#: 1.74 s at 64 / 128 / 256 / 512; n = 8,000, m = 6,400, d = 54 (cover type at 8 %) 1.32-1.47 s at 10 rows, 0.85 s at
#: 128; m = 2,560, d = 16: 0.44 s at 25 rows, 0.39 s at 128; m = 640 (102 rows) unchanged.  Memory: 2 x rows x m
#: doubles a thread (26 MB at m = 12,800)
_FUSED_MIN_ROWS = 128

#: fastmath flags of the two hot loops: reassociation (so LLVM vectorises the row reductions), contraction (FMA),
#: no signed zeros, reciprocal; NOT nnan / ninf: every value there is finite, but the flags would be a promise
_FM = {"reassoc", "contract", "nsz", "arcp"}


#: e^x without libm (:func:`_exp_nonpositive`): x = k ln 2 + r by Cody-Waite (ln 2 in two parts, the first with
#: trailing zero bits, so k * _LN2_HI is exact for |k| < 2^21), k rounded to nearest by adding 1.5 * 2^52, e^r by a
#: degree-11 polynomial, 2^k written into the exponent bits.  The polynomial (highest degree first) is
#: ``mpmath.chebyfit(mpmath.exp, [-ln 2 / 2, ln 2 / 2], 12)`` at 40 digits: |error| <= 3.2e-18 on |r| <= ln 2 / 2
#: (Taylor needs degree 13 for that; two fewer FMAs per entry)
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0
_EXPONENT_BIAS_BITS = int(np.float64(_ROUND).view(np.int64)) - 1023
(_P11, _P10, _P9, _P8, _P7, _P6, _P5, _P4, _P3, _P2, _P1, _P0) = (
    2.5110037605963777e-08, 2.763263963904103e-07, 2.755724091857897e-06, 2.4801485482328494e-05,
    0.00019841269890047113, 0.0013888888952314775, 0.008333333333319601, 0.0416666666664881, 0.1666666666666668,
    0.5000000000000019, 1.0, 1.0)
#: below this, e^x < 2.6e-308 (2^k would not be a normal number): 0.  libm gives subnormals down to x = -745.1;
#: next to the largest term of a row (e^0 = 1), or a same-label mass a_i >= 1e-250, they are below 1e-57 relative
_EXP_FLUSH = -708.3
#: the bit pattern of +inf (as int64): larger than that of every other double >= +0.0
_INF_BITS = int(np.float64(np.inf).view(np.int64))


@njit(cache=True, nogil=True, fastmath={"contract"})
def _exp_nonpositive(x):  # pragma: no cover - compiled
    """e^x for x <= 0 within 1 ulp of libm's exp (largest difference 1.0 ulp on 10^7 draws in [-708, 0]), 0 below
    ``_EXP_FLUSH``.  Plain arithmetic only, so LLVM vectorises the loops that call it (numpy's and numba's exp call
    the scalar libm exp: 8-10 ns per entry on this machine, 60 % of the old gradient pass; this: about 2 ns).
    Compiled WITHOUT reassociation (only contraction to FMA): the rounding constant and the two-part ln 2 depend
    on the order of the operations; a caller's fast-math flags do not reach these instructions."""
    t = x * _LOG2E + _ROUND  # the nearest integer k to x / ln 2, in the low bits of t
    k = t - _ROUND
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _P11 * r + _P10
    p = p * r + _P9
    p = p * r + _P8
    p = p * r + _P7
    p = p * r + _P6
    p = p * r + _P5
    p = p * r + _P4
    p = p * r + _P3
    p = p * r + _P2
    p = p * r + _P1
    p = p * r + _P0
    scale = np.int64((np.float64(t).view(np.int64) - _EXPONENT_BIAS_BITS) << 52).view(np.float64)  # 2^k, no
    e = p * scale  # float -> int conversion (AVX2 has none for 64-bit integers)
    return e if x >= _EXP_FLUSH else 0.0


@njit(cache=True, nogil=True, fastmath=_FM)
def _fused_block(G, x2, z2, scale, ycode, zcode, M, nll, c, bad):  # pragma: no cover - compiled
    """The O(n m) elementwise part of a block of inputs, one row at a time (the row's m distances and weights stay
    in L1), from G = X_b Z^T (the GEMM).  Per row i:

    1. D_ij = max(x2_i + z2_j - 2 G_ij, 0), written over G; dmin_i = min_j D_ij (over the bit patterns);
    2. e_ij = exp(-scale (D_ij - dmin_i)) (= exp(s_ij - max_j s_ij) <= 1, :func:`_exp_nonpositive`) into M; the
       same-label mass a_i and the other mass b_i;
    3. M_ij = 1[same] e_ij / a_i - e_ij / (a_i + b_i), the same-label weight as e_ij b_i / (a_i (a_i + b_i)) (no
       cancellation; exactly 0 when b_i = 0); nll_i = log1p(b_i / a_i); c += the column sums of M.

    Returns sum_ij M_ij D_ij.  Rows with a_i < 1e-250 (the right class > 575 nats beyond the nearest reference)
    are flagged in ``bad`` and left for :func:`_exact_rows` (step 3 writes zeros there and adds nothing)."""
    rows, m = G.shape
    total_md = 0.0
    for i in range(rows):
        xi = x2[i]
        dmin_bits = _INF_BITS
        for j in range(m):
            d = xi + z2[j] - 2.0 * G[i, j]
            d = d if d > 0.0 else 0.0  # also maps NaN and -0.0 to +0.0
            G[i, j] = d
            # the minimum over the bit patterns (monotone for doubles >= +0.0): an integer reduction vectorises
            # without fast-math promises; the float one (no nnan) stayed scalar, 2.5x slower
            bits = np.float64(d).view(np.int64)
            dmin_bits = bits if bits < dmin_bits else dmin_bits
        dmin = np.int64(dmin_bits).view(np.float64)
        for j in range(m):  # alone in its loop: with the sums below in it, LLVM left it scalar
            M[i, j] = _exp_nonpositive(scale * (dmin - G[i, j]))
        yi = ycode[i]
        a = 0.0
        b = 0.0
        for j in range(m):
            e = M[i, j]
            ea = e if zcode[j] == yi else 0.0
            a += ea
            b += e - ea  # exactly e or 0; this form vectorises (if/else sums ran 4x slower)
        ok = a >= 1e-250
        bad[i] = not ok
        if ok:
            nll[i] = np.log1p(b / a)
            inv_t = 1.0 / (a + b)
            same_w = (b / a) * inv_t  # 1/a - 1/(a + b) without the cancellation; exactly 0 when b = 0
        else:  # left to _exact_rows: the loop below writes zeros and adds nothing (kept branch-free: vectorised)
            inv_t = 0.0
            same_w = 0.0
        for j in range(m):
            e = M[i, j]
            v = e * same_w if zcode[j] == yi else -(e * inv_t)
            M[i, j] = v
            c[j] += v
            total_md += v * G[i, j]
    return total_md


@njit(cache=True, nogil=True)
def _exact_rows(D, ycode, zcode, scale, M, nll, c, bad):  # pragma: no cover - compiled
    """The rows flagged by :func:`_fused_block`, with separate maxima for the same- and other-label parts, so
    nothing underflows.  Returns their sum_j M_ij D_ij."""
    rows, m = D.shape
    total_md = 0.0
    for i in range(rows):
        if not bad[i]:
            continue
        yi = ycode[i]
        S = -np.inf
        O = -np.inf
        for j in range(m):
            sv = -scale * D[i, j]
            if zcode[j] == yi:
                if sv > S:
                    S = sv
            elif sv > O:
                O = sv
        a = 0.0
        b = 0.0
        for j in range(m):
            sv = -scale * D[i, j]
            if zcode[j] == yi:
                a += np.exp(sv - S)
            else:
                b += np.exp(sv - O)
        ls = S + np.log(a)
        lo = O + np.log(b)
        t = lo - ls
        nll[i] = t + np.log1p(np.exp(-t)) if t > 0 else np.log1p(np.exp(t))
        lt = max(ls, lo) + np.log1p(np.exp(-abs(ls - lo)))
        for j in range(m):
            sv = -scale * D[i, j]
            v = (np.exp(sv - ls) if zcode[j] == yi else 0.0) - np.exp(sv - lt)
            M[i, j] = v
            c[j] += v
            total_md += v * D[i, j]
    return total_md


def _fused_span(Xt, x2, ycode, Zt, z2, zcode, scale, X_orig, rows, lo, hi):
    """The compiled gradient pass over inputs lo..hi in blocks of ``rows``: (nll, MtXt, c, sum M*D, MtX, XtrX).
    Releases the GIL in every step (BLAS, numba nogil), so spans run in parallel threads."""
    m, d = Zt.shape
    nll = np.empty(hi - lo)
    MtXt = np.zeros((m, d))
    c = np.zeros(m)
    mdsum = 0.0
    MtX = np.zeros((m, X_orig.shape[1])) if X_orig is not None else None
    XtrX = np.zeros((d, X_orig.shape[1])) if X_orig is not None else None
    buf = np.empty((min(rows, hi - lo), m))
    gbuf = np.empty((min(rows, hi - lo), m))  # reused: a new 0.5 MiB G per block was an mmap + page faults each time
    bad = np.zeros(min(rows, hi - lo), dtype=np.bool_)
    ZtT = Zt.T
    for start in range(lo, hi, rows):
        stop = min(hi, start + rows)
        Xb = Xt[start:stop]
        G = np.matmul(Xb, ZtT, out=gbuf[: stop - start])
        M = buf[: stop - start]
        nb = nll[start - lo: stop - lo]
        yb = ycode[start:stop]
        mdsum += _fused_block(G, x2[start:stop], z2, scale, yb, zcode, M, nb, c, bad)
        if bad[: stop - start].any():
            mdsum += _exact_rows(G, yb, zcode, scale, M, nb, c, bad)
        MtXt += M.T @ Xb
        if X_orig is not None:
            MtX += M.T @ X_orig[start:stop]
            r = M.sum(axis=1)
            XtrX += (Xb * r[:, None]).T @ X_orig[start:stop]
    return nll, MtXt, c, mdsum, MtX, XtrX


#: work (n m) from which the compiled pass splits the inputs over numba.get_num_threads() threads (each with
#: single-threaded BLAS); below it a thread's start-up is not repaid
_PARALLEL_MIN_WORK = 1 << 20
_POOL = None


def _spans(n, rows, parts):
    """[lo, hi) spans, whole blocks each, as equal as possible: the split depends only on (n, rows, parts)."""
    blocks = -(-n // rows)
    parts = max(1, min(parts, blocks))
    edges = [min(n, (blocks * k // parts) * rows) for k in range(parts + 1)]
    return list(zip(edges[:-1], edges[1:]))


def _fused_core(Xt, ycode, Zt, zcode, scale, X_orig, rows):
    n, m = Xt.shape[0], Zt.shape[0]
    z2 = np.einsum("ij,ij->i", Zt, Zt)
    x2 = np.einsum("ij,ij->i", Xt, Xt)
    threads = numba.get_num_threads() if n * m >= _PARALLEL_MIN_WORK else 1
    spans = _spans(n, rows, threads)
    args = (Xt, x2, ycode, Zt, z2, zcode, scale, X_orig, rows)
    if len(spans) == 1:
        parts = [_fused_span(*args, 0, n)]
    else:
        # a forked child inherits the pool object but not its threads: make a new pool in a new process
        parts = list(_pool(len(spans)).map(lambda span: _fused_span(*args, *span), spans))
    nll = np.concatenate([p[0] for p in parts])
    out = [parts[0][k] for k in range(1, 6)]
    for p in parts[1:]:  # fixed order: results depend on the thread count only through this sum
        for k in (0, 1, 3, 4):
            if out[k] is not None:
                out[k] = out[k] + p[k + 1]
        out[2] += p[3]
    return (math.fsum(nll.tolist()), *out)


def _core(Xt, ycode, Zt, zcode, scale, *, want_grad, X_orig=None, chunk_size=None, engine="numba"):
    """One pass over the inputs in chunks.  Returns (loss, MtXt, c, sum M*D, MtX, XtrX).

    Xt, Zt: the (transformed, centred) points the distances are taken on; scale multiplies D.  With X_orig, also
    accumulates M^T X_orig (m, d) and Xt^T diag(r) X_orig (r, d) for the metric gradient.
    """
    n, m = Xt.shape[0], Zt.shape[0]
    if want_grad and engine == "numba":
        rows = max(1, min(n, max(_FUSED_MIN_ROWS, _FUSED_CHUNK_ELEMENTS // max(m, 1)))) if chunk_size is None else \
            _chunk_rows(n, m, chunk_size)
        with limit_blas(1, n * m, min_size=_BLAS_MIN_WORK), np.errstate(under="ignore"):
            return _fused_core(Xt, ycode, Zt, zcode, scale, X_orig, rows)
    rows = _chunk_rows(n, m, chunk_size)
    z2 = np.einsum("ij,ij->i", Zt, Zt)
    losses = []
    MtXt = np.zeros((m, Xt.shape[1])) if want_grad else None
    c = np.zeros(m) if want_grad else None
    mdsum = 0.0
    MtX = np.zeros((m, X_orig.shape[1])) if X_orig is not None else None
    XtrX = np.zeros((Xt.shape[1], X_orig.shape[1])) if X_orig is not None else None
    with limit_blas(1, n * m, min_size=_BLAS_MIN_WORK):
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            Xb = Xt[start:stop]
            D = _sqdist(Xb, Zt, z2)
            same = ycode[start:stop, None] == zcode[None, :]
            s = -scale * D
            if not want_grad:
                losses.append(_softplus(_masked_lse(s, ~same) - _masked_lse(s, same)))
                continue
            nll, M = _block(s, same)
            losses.append(nll)
            MtXt += M.T @ Xb
            c += M.sum(axis=0)
            mdsum += float(np.einsum("ij,ij->", M, D))
            if X_orig is not None:
                MtX += M.T @ X_orig[start:stop]
                r = M.sum(axis=1)
                XtrX += (Xb * r[:, None]).T @ X_orig[start:stop]
    loss = math.fsum(np.concatenate(losses).tolist())
    return loss, MtXt, c, mdsum, MtX, XtrX


# ------------------------------------------------------------------------------------------ stochastic neighbourhoods
@njit(cache=True, nogil=True, inline="always")
def _row_distances(G, r, x2, xi, diag):  # pragma: no cover - compiled
    """Row r of G (x_i . x_j on entry) becomes D_ij = max(x2_i + x2_j - 2 G_ij, 0), with D_i,diag = +inf (the
    point itself, excluded); returns min_j D_ij, taken over the bit patterns (monotone for doubles >= +0.0: an
    integer reduction, vectorised without fast-math promises, as in :func:`_fused_block`)."""
    n = G.shape[1]
    for j in range(n):
        d = xi + x2[j] - 2.0 * G[r, j]
        G[r, j] = d if d > 0.0 else 0.0  # also maps NaN and -0.0 to +0.0
    G[r, diag] = np.inf
    dmin_bits = _INF_BITS
    for j in range(n):
        bits = np.float64(G[r, j]).view(np.int64)
        dmin_bits = bits if bits < dmin_bits else dmin_bits
    return np.int64(dmin_bits).view(np.float64)


@njit(cache=True, nogil=True, fastmath=_FM)
def _sne_rows(P, x2, scale):  # pragma: no cover - compiled
    """In place, row by row (a row stays in cache): P = X X^T on entry, p_ij on exit: e_ij = exp(-scale (D_ij -
    min_{k != i} D_ik)) (:func:`_exp_nonpositive`: <= 1, the nearest neighbour's term is 1, so the row sum is >= 1
    and no probability that matters underflows; the diagonal's +inf gives 0), p_ij = e_ij / sum_k e_ik."""
    n = P.shape[0]
    for i in range(n):
        dmin = _row_distances(P, i, x2, x2[i], i)
        for j in range(n):  # alone in its loop: vectorised
            P[i, j] = _exp_nonpositive(scale * (dmin - P[i, j]))
        total = 0.0
        for j in range(n):
            total += P[i, j]
        for j in range(n):
            P[i, j] = P[i, j] / total


@njit(cache=True, nogil=True, fastmath=_FM)
def _nca_rows(G, x2, start, codes, out, bad):  # pragma: no cover - compiled
    """Rows start .. start + rows of the leave-one-out probabilities: G = T_b T^T on entry (overwritten); with
    e_ij = exp(-(D_ij - min_{k != i} D_ik)), the same-label mass a_i (j != i) and the other mass b_i, p_i =
    a_i / (a_i + b_i).  Rows with a_i < 1e-250 (no other point of the class, or the class > 575 nats beyond the
    nearest point) are flagged in ``bad`` for :func:`_nca_exact_rows`."""
    rows = G.shape[0]
    n = G.shape[1]
    for r in range(rows):
        i = start + r
        dmin = _row_distances(G, r, x2, x2[i], i)
        for j in range(n):
            G[r, j] = _exp_nonpositive(dmin - G[r, j])
        ci = codes[i]
        a = 0.0
        b = 0.0
        for j in range(n):
            e = G[r, j]
            ea = e if codes[j] == ci else 0.0
            a += ea
            b += e - ea  # exactly e or 0 (branch-free: vectorised)
        ok = a >= 1e-250
        bad[r] = not ok
        out[i] = a / (a + b) if ok else 0.0


def _nca_exact_rows(T, x2, codes, idx):
    """p_i of the rows idx by the log-sum-exps with separate maxima for the same- and the other-label parts (the
    former formula, on these rows only): exp(-softplus(O - S)), 0 where the class has no other point."""
    k = idx.shape[0]
    s = -_sqdist(T[idx], T, x2)
    s[np.arange(k), idx] = -np.inf
    same = codes[idx][:, None] == codes[None, :]
    same[np.arange(k), idx] = False
    S = _masked_lse(s, same)
    O = _masked_lse(s, codes[idx][:, None] != codes[None, :])
    out = np.zeros(k)
    ok = np.isfinite(S)
    out[ok] = np.exp(-_softplus(O[ok] - S[ok]))
    return out


def sne_probabilities(X, gamma2):
    """p_ij = exp(-gamma^2 ||x_i - x_j||^2) / sum_{k != i} exp(-gamma^2 ||x_i - x_k||^2), p_ii = 0   [kusner2016 eq. (3.1)]

    Parameters
    ----------
    X : array (n, d), n >= 2
        Inputs as rows.
    gamma2 : float > 0
        Precision.

    Returns
    -------
    ndarray (n, n)
        Rows sum to 1, zero diagonal.

    Raises
    ------
    ValueError, TypeError
        Bad input (spec.snc_contract).

    Examples
    --------
    >>> sne_probabilities([[0.0], [1.0], [3.0]], 0.1).round(3)[0]
    array([0.  , 0.69, 0.31])
    """
    X = as_float_matrix(X, "X")
    gamma2 = check_gamma2(gamma2)
    if X.shape[0] < 2:
        raise ValueError(f"X must have at least 2 rows (p_ii = 0 leaves no neighbour), got {X.shape[0]}")
    Xc = X - X.mean(axis=0)
    P = np.matmul(Xc, Xc.T)  # the GEMM; the rest is one compiled pass per row, in place (no n x n temporaries)
    with np.errstate(under="ignore"):
        _sne_rows(P, np.einsum("ij,ij->i", Xc, Xc), gamma2)
    return P


def nca_correct_probabilities(X, y, A):
    """p_i = sum_{j: y_j = y_i} p_ij, p_ij from eq. (3.1) with d_ij = ||A(x_i - x_j)||, p_ii = 0   [kusner2016 eq. (3.2), NCA]

    Parameters
    ----------
    X : array (n, d), n >= 2
    y : array (n,)
        Labels.
    A : array (d,) or (r, d)
        Diagonal or full metric.

    Returns
    -------
    ndarray (n,)
        Leave-one-out probability that the stochastic 1-NN rule labels x_i correctly.

    Raises
    ------
    ValueError, TypeError
        Bad input.

    Examples
    --------
    >>> nca_correct_probabilities([[0.0], [0.1], [5.0], [5.1]], [0, 0, 1, 1], [1.0]).round(6)
    array([1., 1., 1., 1.])
    """
    X, y = check_inputs(X, y)
    A = check_metric_A(A, X.shape[1])
    if X.shape[0] < 2:
        raise ValueError(f"X must have at least 2 rows (p_ii = 0 leaves no neighbour), got {X.shape[0]}")
    Xc = X - X.mean(axis=0)
    T = np.ascontiguousarray(Xc * A if A.ndim == 1 else Xc @ A.T)
    n = T.shape[0]
    x2 = np.einsum("ij,ij->i", T, T)
    codes = np.unique(y, return_inverse=True)[1].reshape(-1).astype(np.int64)
    rows = max(1, min(n, _FUSED_CHUNK_ELEMENTS // n))  # a block of rows x n in cache between the GEMM and the pass
    out = np.empty(n)
    gbuf = np.empty((rows, n))
    bad = np.zeros(rows, dtype=np.bool_)
    flagged = []
    with limit_blas(1, n * n, min_size=_BLAS_MIN_WORK), np.errstate(under="ignore"):
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            G = np.matmul(T[start:stop], T.T, out=gbuf[: stop - start])
            _nca_rows(G, x2, start, codes, out, bad)
            if bad[: stop - start].any():
                flagged.append(start + np.flatnonzero(bad[: stop - start]))
        if flagged:
            idx = np.concatenate(flagged)
            out[idx] = _nca_exact_rows(T, x2, codes, idx)
    return out


def snc_probabilities(X, Z, gamma2):
    """p_ij = exp(-gamma^2 ||x_i - z_j||^2) / sum_k exp(-gamma^2 ||x_i - z_k||^2)   [kusner2016 eq. (3.3)]

    Parameters
    ----------
    X : array (n, d)
    Z : array (m, d)
    gamma2 : float > 0

    Returns
    -------
    ndarray (n, m)
        Rows sum to 1.

    Raises
    ------
    ValueError, TypeError
        Bad input.

    Examples
    --------
    >>> snc_probabilities([[0.0]], [[0.0], [1.0]], 1.0).round(4)
    array([[0.7311, 0.2689]])
    """
    X = as_float_matrix(X, "X")
    Z = as_float_matrix(Z, "Z")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z must have d = {X.shape[1]} columns like X, got shape {Z.shape}")
    gamma2 = check_gamma2(gamma2)
    mu = X.mean(axis=0)
    Zc = Z - mu
    s = -gamma2 * _sqdist(X - mu, Zc, np.einsum("ij,ij->i", Zc, Zc))
    s -= s.max(axis=1, keepdims=True)
    p = np.exp(s)
    return p / p.sum(axis=1, keepdims=True)


def snc_log_correct(X, y, Z, z_labels, gamma2, *, chunk_size=None):
    """log p_i = -log(1 + exp(O_i - S_i))   [kusner2016 eqs. (3.2), (3.3)], log space, chunked over the inputs

    Parameters
    ----------
    X, y, Z, z_labels, gamma2
        As :func:`snc_loss`.
    chunk_size : int, optional
        Inputs per block (default: about 2^18 / m); memory O(chunk_size m) besides the (n,) result.

    Returns
    -------
    ndarray (n,)
        log p_i <= 0.

    Raises
    ------
    ValueError, TypeError
        Bad input.

    Examples
    --------
    >>> snc_log_correct([[0.0]], [0], [[0.0], [1.0]], [0, 1], 1.0).round(4)
    array([-0.3133])
    """
    Xc, ycode, Zc, zcode = _prepare(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    n, m = Xc.shape[0], Zc.shape[0]
    rows = _chunk_rows(n, m, chunk_size)
    z2 = np.einsum("ij,ij->i", Zc, Zc)
    out = np.empty(n)
    with limit_blas(1, n * m, min_size=_BLAS_MIN_WORK):
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            s = -gamma2 * _sqdist(Xc[start:stop], Zc, z2)
            same = ycode[start:stop, None] == zcode[None, :]
            out[start:stop] = -_softplus(_masked_lse(s, ~same) - _masked_lse(s, same))
    return out


# --------------------------------------------------------------------------------------------------------- objective
def _prepare(X, y, Z, z_labels):
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    ycode, zcode = _same_mask(y, z_labels)
    mu = X.mean(axis=0)
    return X - mu, ycode, Z - mu, zcode


def snc_loss(X, y, Z, z_labels, gamma2, *, chunk_size=None) -> float:
    """L(Z) = -sum_i log p_i   [kusner2016 eq. (3.5)], log space, chunked over the inputs.

    Parameters
    ----------
    X : array (n, d)
        Inputs as rows.
    y : array (n,)
        Their labels.
    Z : array (m, d)
        References as rows.
    z_labels : array (m,)
        Their fixed labels; every class of ``y`` must appear.
    gamma2 : float
        The precision gamma^2 > 0 of eq. (3.3).
    chunk_size : int, optional
        Inputs per block (default: about 2^18 / m); memory O(chunk_size m).

    Returns
    -------
    float
        L(Z) >= 0.

    Raises
    ------
    ValueError, TypeError
        On bad input (see :mod:`spec.snc_contract`).

    Examples
    --------
    >>> import numpy as np
    >>> round(snc_loss(np.array([[0.0], [1.0]]), [0, 1], np.array([[0.0], [1.0]]), [0, 1], 1.0), 6)
    0.626523
    """
    Xc, ycode, Zc, zcode = _prepare(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    return _core(Xc, ycode, Zc, zcode, gamma2, want_grad=False, chunk_size=chunk_size)[0]


def snc_gradient(X, y, Z, z_labels, gamma2, *, chunk_size=None, engine="numba"):
    """dL/dZ = -2 gamma^2 (M^T X - diag(M^T 1) Z) (rows), dL/d(gamma^2) = sum_ij M_ij D_ij   [kusner2016 eq. (3.6), corrected]

    M = Q o P (n x m), never materialised beyond one chunk of ``chunk_size`` rows.  Same arguments as
    :func:`snc_loss`; ``engine="numba"`` (default) fuses the O(n m) elementwise work of a chunk into one compiled
    loop, ``"numpy"`` is the plain numpy path (same results to rounding; kept so tests compare the two).

    Parameters
    ----------
    X, y, Z, z_labels, gamma2, chunk_size
        As :func:`snc_loss`.
    engine : {"numba", "numpy"}, default="numba"
        The compiled fused loop or the plain numpy path.

    Returns
    -------
    (ndarray (m, d), float)
        The gradient in Z and the derivative in gamma^2.

    Raises
    ------
    ValueError, TypeError
        On bad input (see :mod:`spec.snc_contract`) or an unknown ``engine``.

    Examples
    --------
    >>> import numpy as np
    >>> gZ, gg = snc_gradient(np.array([[0.0], [1.0]]), [0, 1], np.array([[0.0], [1.0]]), [0, 1], 1.0)
    >>> gZ.shape
    (2, 1)
    """
    Xc, ycode, Zc, zcode = _prepare(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    engine = _check_engine(engine)
    _, MtX, c, mdsum, _, _ = _core(Xc, ycode, Zc, zcode, gamma2, want_grad=True, chunk_size=chunk_size, engine=engine)
    return -2.0 * gamma2 * (MtX - c[:, None] * Zc), mdsum


def _value_and_gradient(X, y, Z, z_labels, gamma2, *, chunk_size=None):
    """(L, dL/dZ, dL/dgamma2) in one pass (one call of the compiled pass; tests compare thread splits with it)."""
    Xc, ycode, Zc, zcode = _prepare(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    loss, MtX, c, mdsum, _, _ = _core(Xc, ycode, Zc, zcode, gamma2, want_grad=True, chunk_size=chunk_size)
    return loss, -2.0 * gamma2 * (MtX - c[:, None] * Zc), mdsum


def _apply(points, A):
    return points * A if A.ndim == 1 else points @ A.T


def snc_metric_loss(X, y, Z, z_labels, A, *, chunk_size=None) -> float:
    """L_A(Z) = -sum_i log p_i with d_ij = ||A(x_i - z_j)||^2   [kusner2016 eq. (3.7)]

    Parameters
    ----------
    X, y, Z, z_labels
        As :func:`snc_loss`.
    A : array (d,) or (r, d)
        Diagonal or full (possibly rectangular) metric; A = gamma I gives L(Z) at gamma^2.
    chunk_size : int, optional
        As :func:`snc_loss`.

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Bad input.

    Examples
    --------
    >>> round(snc_metric_loss([[0.0], [1.0]], [0, 1], [[0.0], [1.0]], [0, 1], [1.0]), 6)
    0.626523
    """
    Xc, ycode, Zc, zcode = _prepare(X, y, Z, z_labels)
    A = check_metric_A(A, Xc.shape[1])
    return _core(_apply(Xc, A), ycode, _apply(Zc, A), zcode, 1.0, want_grad=False, chunk_size=chunk_size)[0]


def snc_metric_gradient(X, y, Z, z_labels, A, *, chunk_size=None, engine="numba"):
    """dL_A/dZ = -2 (M^T X - diag(c) Z) A^T A;  dL_A/dA = +2 A sum_ij M_ij v_ij v_ij^T   [kusner2016 eqs. (3.9), (3.8), corrected]

    sum_ij M_ij v_ij v_ij^T = X^T diag(r) X - X^T M Z - Z^T M^T X + Z^T diag(c) Z (r = M 1 = 0 up to rounding,
    c = M^T 1), so A W = (AX^T) diag(r) X - (M^T AX)^T Z - (AZ)^T (M^T X) + (AZ)^T diag(c) Z: O(d r (n + m)) after
    the O(d m n) pass.

    Parameters
    ----------
    X, y, Z, z_labels, A
        As :func:`snc_metric_loss`.
    chunk_size, engine
        As :func:`snc_gradient`.

    Returns
    -------
    (ndarray (m, d), ndarray shaped like A)

    Raises
    ------
    ValueError, TypeError
        Bad input.

    Examples
    --------
    >>> dZ, dA = snc_metric_gradient([[0.0], [1.0]], [0, 1], [[0.0], [1.0]], [0, 1], [1.0])
    >>> dA.shape
    (1,)
    """
    Xc, ycode, Zc, zcode = _prepare(X, y, Z, z_labels)
    A = check_metric_A(A, Xc.shape[1])
    XA, ZA = _apply(Xc, A), _apply(Zc, A)
    _, MtXA, c, _, MtX, XArX = _core(XA, ycode, ZA, zcode, 1.0, want_grad=True, X_orig=Xc, chunk_size=chunk_size,
                                     engine=_check_engine(engine))
    AW = XArX - MtXA.T @ Zc - ZA.T @ MtX + (ZA * c[:, None]).T @ Zc  # (r, d) = A W
    bracket = MtX - c[:, None] * Zc  # (m, d)
    if A.ndim == 1:
        dZ = -2.0 * bracket * (A * A)
        return dZ, 2.0 * np.diagonal(AW).copy()  # diagonal A: (A W)_kk = a_k W_kk
    return -2.0 * (bracket @ A.T) @ A, 2.0 * AW


# -------------------------------------------------------------------------------------------------- initialisation
def class_allocation(counts, m: int) -> np.ndarray:
    """m_c >= 1, sum m_c = m, each extra reference to the class furthest below m n_c / n   [kusner2016 Alg. 2, line 2]

    Exact integer comparisons (m n_c - n m_c), ties to the lower class index, never beyond n_c.

    Parameters
    ----------
    counts : array of int (C,)
        Class sizes n_c >= 1.
    m : int
        C <= m <= sum(counts).

    Returns
    -------
    ndarray (C,) int64

    Raises
    ------
    ValueError
        m outside [C, n] or a class size < 1.

    Examples
    --------
    >>> class_allocation([50, 3, 1, 46], 10).tolist()
    [4, 1, 1, 4]
    """
    counts = np.asarray(counts).astype(np.int64).tolist()
    if not counts or min(counts) < 1:
        raise ValueError(f"counts must be positive class sizes, got {counts}")
    n = sum(counts)
    m = check_m(m, n, len(counts))
    return _largest_gap_allocation(counts, n, m)


def _largest_gap_allocation(counts: list, n: int, m: int) -> np.ndarray:
    """The greedy allocation without its m - C steps, in O(C log(m n)) exact integer operations.

    The greedy gives each extra reference to the class with the largest gap m n_c - n a_c (a_c < n_c; ties to the
    lower class), so the k-th extra reference of class c (a_c: k -> k + 1, 1 <= k <= n_c - 1) comes with the gap
    g(c, k) = m n_c - n k, strictly decreasing in k: the greedy merges the C decreasing sequences and takes the first
    R = m - C pairs in the order (gap descending, class ascending).  So, with G* the R-th largest gap (the largest G
    with H(G) = #{gaps >= G} >= R; H(G) = sum_c clip(floor((m n_c - G) / n), 0, n_c - 1), found by bisection on the
    integers), every gap above G* is taken and the R - #{gaps > G*} remaining references go to the lowest classes
    whose sequence holds the gap G* (at most one per class).  int64 when every intermediate stays below 2^62,
    Python integers (object arrays) otherwise."""
    C = len(counts)
    R = m - C
    alloc = np.ones(C, dtype=np.int64)
    if R == 0:
        return alloc
    big = max(counts)
    dtype = np.int64 if 2 * (m + n) * big < 2**62 else object
    nc = np.array(counts, dtype=dtype)
    mn = nc * m
    cap = nc - 1  # k ranges over 1 .. n_c - 1

    def at_least(G):  # H(G): the gaps >= G
        return int(np.minimum(np.maximum((mn - G) // n, 0), cap).sum())

    multi = nc > 1  # R >= 1 and m <= n: some class has n_c >= 2
    lo = int((mn[multi] - n * cap[multi]).min())  # the smallest gap: H(lo) = n - C >= R
    hi = int((mn[multi] - n).max()) + 1  # above the largest gap: H(hi) = 0 < R
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at_least(mid) >= R:
            lo = mid
        else:
            hi = mid
    above = np.minimum(np.maximum((mn - lo - 1) // n, 0), cap)  # per class: its gaps > G* = lo
    alloc += above.astype(np.int64)
    rest = R - int(above.sum())
    k_tie = (mn - lo) // n
    tied = np.flatnonzero(((mn - lo) % n == 0) & (k_tie >= 1) & (k_tie <= cap))
    alloc[tied[:rest]] += 1
    return alloc


#: above this many classes class_proportional_init groups the indices by one stable sort instead of a pass per class
_GROUP_BY_SORT_CLASSES = 16


def class_proportional_init(y, m: int, rng=None) -> np.ndarray:
    """Indices of m inputs drawn class by class (m_c from :func:`class_allocation`, >= 1 each)   [kusner2016 Alg. 2]

    Parameters
    ----------
    y : array (n,)
        Labels.
    m : int
        Number of references, C <= m <= n.
    rng : None, int or numpy.random.Generator
        Draws ``rng.choice(idx_c, m_c, replace=False)`` per class in ``numpy.unique`` order.

    Returns
    -------
    ndarray (m,) int64

    Raises
    ------
    ValueError
        m below the number of classes or above n.

    Examples
    --------
    >>> class_proportional_init([0, 0, 0, 1], 2, 0).shape
    (2,)
    """
    y = as_labels_any(y, "y")
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    alloc = class_allocation(counts, m)
    gen = as_generator(rng)
    codes = codes.reshape(-1)
    if classes.shape[0] > _GROUP_BY_SORT_CLASSES:  # the index lists of all classes from one stable sort
        order = np.argsort(codes, kind="stable").astype(np.int64, copy=False)
        ends = np.cumsum(counts)
        groups = (order[e - c_n: e] for e, c_n in zip(ends.tolist(), counts.tolist()))
    else:  # few classes: one comparison pass each is cheaper than the sort
        groups = (np.flatnonzero(codes == c).astype(np.int64) for c in range(classes.shape[0]))
    # the same ascending index array per class as before and the same generator calls in the same order
    parts = [gen.choice(idx, size=m_c, replace=False) for idx, m_c in zip(groups, alloc.tolist())]
    return np.concatenate(parts).astype(np.int64, copy=False)


# ------------------------------------------------------------------------------------------------------- optimiser
#: largest change of log gamma^2 in one step of the gamma^2 phase (gamma^2 moves by at most a factor 10 per step)
_MAX_LOG_STEP = math.log(10.0)
#: the gamma^2 phase keeps log gamma^2 within this many nats of its start (gamma^2 within e^{+-40} of it)
_LOG_RANGE = 40.0


def _descend_log_gamma2(f, t0, loss, max_iter, tol, on_step):
    """Monotone descent on t = log gamma^2 with Z fixed: (t, L, accepted steps)   [kusner2016 §3.1.3]

    ``f(t) -> (L, dL/dt)``; ``loss`` = L(t0); ``on_step(L)`` after each accepted step.  Each step is the
    secant-Newton step -s / h (s = dL/dt, h = the change of s over the last step, when h > 0), else
    -sign(s) _MAX_LOG_STEP; clipped to |dt| <= _MAX_LOG_STEP (gamma^2 moves by at most a factor 10) and to
    t0 +- _LOG_RANGE; then halved until L(t + dt) <= L + 1e-4 dt s (Armijo), so the path is non-increasing.  Stops
    after ``max_iter`` accepted steps, at a zero slope, when no |dt| >= 1e-12 lowers L, or when a step lowers L by
    less than ``tol * max(1, L)`` -- unless it was a full-length step along which the slope steepened (climbing
    off the plateau of a gamma^2 far too small, where L ~ n log C and s ~ gamma^2 are flat).  The same rule as
    :func:`reference.snc.snc_optimize`'s gamma^2 phase.

    Why not L-BFGS-B on t in [t0 - 40, t0 + 40] (the old code): its first step on a box-bounded variable is the
    whole gradient step -s, clipped to the box.  From a gamma^2 100-1000x too large, s is in the thousands, so the
    first step went to the lower bound e^{-40} gamma^2 (every p_ij ~ 1/m there, L ~ n log C: below the start, so
    accepted), where s ~ e^{-40} is far below gtol: the fit ended there, and Z could not move either (dL/dZ carries
    the same factor gamma^2).  A step of at most a factor 10 cannot cross the optimum into that plateau.
    """
    lo, hi = t0 - _LOG_RANGE, t0 + _LOG_RANGE
    t = t0
    s = f(t)[1]
    h = None
    steps = 0
    for _ in range(max_iter):
        if s == 0.0 or not math.isfinite(s):
            break
        dt = -s / h if h is not None and h > 0.0 else -math.copysign(_MAX_LOG_STEP, s)
        dt = max(-_MAX_LOG_STEP, min(_MAX_LOG_STEP, dt))
        if not lo <= t + dt <= hi:  # (t + dt) - t is not dt in floating point: clip only when needed
            dt = min(hi, max(lo, t + dt)) - t
        while abs(dt) >= 1e-12:
            new, s_new = f(t + dt)
            if new <= loss + 1e-4 * dt * s:
                break
            dt /= 2.0
        else:
            break
        improvement = loss - new
        climbing = abs(dt) == _MAX_LOG_STEP and s_new * s > 0.0 and abs(s_new) > abs(s)
        h = (s_new - s) / dt
        t, loss, s = t + dt, new, s_new
        steps += 1
        on_step(loss)
        if improvement < tol * max(1.0, loss) and not climbing:
            break
    return t, loss, steps


def _gamma2_phase(Xc, ycode, Zc, zcode, gamma2, loss, max_iter, tol, chunk_size, on_step):
    """gamma^2 with Z fixed by :func:`_descend_log_gamma2` on prepared (centred, coded) arrays, from L(gamma2) =
    ``loss``: (gamma^2, accepted steps).  The one gamma^2 phase of :func:`snc_optimize` and of SNCClassifier."""
    def f_gamma(t):
        g2 = math.exp(t)
        value, _, _, md, _, _ = _core(Xc, ycode, Zc, zcode, g2, want_grad=True, chunk_size=chunk_size)
        return value, md * g2  # dL/dt = gamma^2 dL/dgamma^2

    t, _, steps = _descend_log_gamma2(f_gamma, math.log(gamma2), loss, max_iter, tol, on_step)
    # exp(log g) may differ from g in the last bit: keep the start when no step was taken
    return (math.exp(t) if steps else gamma2), steps


def _optimise_gamma2(X, y, Z, z_labels, gamma2, *, max_iter, tol, chunk_size=None) -> float:
    """The gamma^2 phase of :func:`snc_optimize` alone (Z fixed, at most ``max_iter`` steps): the gamma^2 that
    ``snc_optimize(X, y, Z, z_labels, gamma2, max_iter=max_iter, tol=tol).gamma2`` reports (scalar metric), by the
    same code.  Used by SNCClassifier before it learns Z."""
    Xc, ycode, Zc, zcode = _prepare(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    max_iter, tol = check_iterations(max_iter, tol)
    if max_iter == 0:
        return gamma2
    with limit_blas(1):
        loss = _core(Xc, ycode, Zc, zcode, gamma2, want_grad=False, chunk_size=chunk_size)[0]
        return _gamma2_phase(Xc, ycode, Zc, zcode, gamma2, loss, max_iter, tol, chunk_size, lambda value: None)[0]


def snc_optimize(X, y, Z, z_labels, gamma2, *, max_iter=100, tol=1e-6, optimize_gamma2=True, metric="scalar",
                 chunk_size=None, callback=None):
    """Z* = argmin_Z L(Z) (and the scale / metric) with scipy's L-BFGS   [kusner2016 Alg. 2, §3.1.3]

    As the thesis: gamma^2 is optimised first with Z fixed (when ``optimize_gamma2``: monotone descent on
    log gamma^2 by at most a factor 10 per step, :func:`_descend_log_gamma2`, the reference's rule; L-BFGS-B there
    jumped from a gamma^2 100-1000x too large to its lower bound and stayed), then Z with L-BFGS (A = gamma I).
    ``"diagonal"`` / ``"full"`` then continue with A (from sqrt(gamma^2) I) and Z jointly: started cold, the joint problem converged much more slowly (Letters, 4,000 rows, 4 %, 150 iterations: training loss 986
    (diagonal) and 1433 (full) vs 447 for Z alone).
    ``losses`` records L at every iteration of each phase (the line searches keep them non-increasing);
    ``callback(phase, iteration, loss)`` is called after each iteration when given.

    Parameters
    ----------
    X, y, Z, z_labels, gamma2
        As :func:`snc_loss`; Z is the starting point.
    max_iter : int >= 0
        L-BFGS iterations per phase.
    tol : float > 0
        scipy's ``ftol``.
    optimize_gamma2 : bool, default=True
        Fit gamma^2 with Z fixed first (in log gamma^2, at most ``max_iter`` steps).
    metric : {"scalar", "diagonal", "full"}, default="scalar"
        A = gamma I only, or then a diagonal / full A learned jointly with Z (eq. 3.7).
    chunk_size : int, optional
        As :func:`snc_loss`.
    callback : callable or None
        ``callback(phase, iteration, loss)`` after each iteration, phase in {"gamma2", "Z", "AZ"}.

    Returns
    -------
    SNCFit
        Z, z_labels, gamma2, A (None for "scalar"), losses, n_iter, converged.

    Raises
    ------
    ValueError, TypeError
        Bad input.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.2], [1.0], [1.2]])
    >>> fit = snc_optimize(X, [0, 0, 1, 1], X[[0, 2]], [0, 1], 1.0, max_iter=20)
    >>> bool(fit.losses[-1] <= fit.losses[0])
    True
    """
    with limit_blas(1):
        return _snc_optimize(X, y, Z, z_labels, gamma2, max_iter=max_iter, tol=tol, optimize_gamma2=optimize_gamma2,
                             metric=metric, chunk_size=chunk_size, callback=callback)


def _snc_optimize(X, y, Z, z_labels, gamma2, *, max_iter, tol, optimize_gamma2, metric, chunk_size, callback):
    X, y, Z, z_labels = check_problem(X, y, Z, z_labels)
    gamma2 = check_gamma2(gamma2)
    max_iter, tol = check_iterations(max_iter, tol)
    metric = check_metric(metric)
    Xc, ycode, Zc0, zcode = _prepare(X, y, Z, z_labels)
    mu = X.mean(axis=0)
    m, d = Zc0.shape
    losses = [_core(Xc, ycode, Zc0, zcode, gamma2, want_grad=False, chunk_size=chunk_size)[0]]
    n_iter = 0
    converged = True
    opts = {"maxiter": max_iter, "ftol": tol, "gtol": 1e-10}

    def record(phase):
        def cb(intermediate_result):
            losses.append(float(intermediate_result.fun))
            if callback is not None:
                callback(phase, len(losses) - 1, float(intermediate_result.fun))
        return cb

    if True:  # gamma^2 first (Z fixed), then Z with A = gamma I; diagonal / full continue jointly from there
        if optimize_gamma2 and max_iter > 0:
            cb = record("gamma2")
            gamma2, steps = _gamma2_phase(Xc, ycode, Zc0, zcode, gamma2, losses[0], max_iter, tol, chunk_size,
                                          lambda loss: cb(OptimizeResult(fun=loss)))
            n_iter += steps

        def f_z(z):
            Zc = z.reshape(m, d)
            loss, MtX, c, _, _, _ = _core(Xc, ycode, Zc, zcode, gamma2, want_grad=True, chunk_size=chunk_size)
            return loss, (-2.0 * gamma2 * (MtX - c[:, None] * Zc)).ravel()

        if max_iter > 0:
            res = minimize(f_z, Zc0.ravel(), jac=True, method="L-BFGS-B", options=opts, callback=record("Z"))
            Zc = res.x.reshape(m, d)
            n_iter += int(res.nit)
            converged = bool(res.success)
        else:
            Zc = Zc0
        if metric == "scalar":
            return SNCFit(Z=Zc + mu, z_labels=np.array(z_labels), gamma2=float(gamma2), A=None,
                          losses=np.array(losses, dtype=np.float64), n_iter=n_iter, converged=converged)
        Zc0 = Zc

    g = math.sqrt(gamma2)
    A0 = np.full(d, g) if metric == "diagonal" else g * np.eye(d)
    size_a = A0.size

    def f_az(theta):
        A = theta[:size_a].reshape(A0.shape)
        Zc = theta[size_a:].reshape(m, d)
        XA, ZA = _apply(Xc, A), _apply(Zc, A)
        loss, MtXA, c, _, MtX, XArX = _core(XA, ycode, ZA, zcode, 1.0, want_grad=True, X_orig=Xc,
                                           chunk_size=chunk_size)
        AW = XArX - MtXA.T @ Zc - ZA.T @ MtX + (ZA * c[:, None]).T @ Zc
        bracket = MtX - c[:, None] * Zc
        if A.ndim == 1:
            dZ, dA = -2.0 * bracket * (A * A), 2.0 * np.diagonal(AW)
        else:
            dZ, dA = -2.0 * (bracket @ A.T) @ A, 2.0 * AW
        return loss, np.concatenate([dA.ravel(), dZ.ravel()])

    if max_iter > 0:
        res = minimize(f_az, np.concatenate([A0.ravel(), Zc0.ravel()]), jac=True, method="L-BFGS-B", options=opts,
                       callback=record("AZ"))
        theta = res.x
        n_iter += int(res.nit)
        converged = bool(res.success)
    else:
        theta = np.concatenate([A0.ravel(), Zc0.ravel()])
    A = theta[:size_a].reshape(A0.shape).copy()
    Zc = theta[size_a:].reshape(m, d)
    return SNCFit(Z=Zc + mu, z_labels=np.array(z_labels), gamma2=float(gamma2), A=A,
                  losses=np.array(losses, dtype=np.float64), n_iter=n_iter, converged=converged)


# ------------------------------------------------------------------------------------------------------ prediction
#: unit roundoff of float64 (rounding to nearest): fl(a op b) = (a op b)(1 + e), |e| <= _U
_U = 2.0 ** -53
#: the smallest subnormal: the absolute error of a product that underflows is at most half of it
_ETA = 2.0 ** -1074


def _exact_order(x, Z, J, k):
    """The first k of the candidates J in the order (exact ||x - z_j||^2, j): a float check first, exact rationals
    only when rounding could change the answer."""
    V = Z[J] - x
    F = np.einsum("ij,ij->i", V, V)  # |F_j - D_j| <= g D_j + (d + 1) eta in any summation order (nonneg terms)
    order = np.lexsort((J, F))
    if k < J.size:
        g = 2.0 * (Z.shape[1] + 2) * _U  # >= gamma_{d+2}: one subtraction, one square, d - 1 additions
        tiny = (Z.shape[1] + 1) * _ETA
        kth, nxt = F[order[k - 1]], F[order[k]]
        if not kth * (1.0 + g) + tiny < nxt * (1.0 - g) - tiny:  # not separated (or not finite): exact
            return _rational_order(x, Z, J, k)
    return J[order[:k]]


def _rational_order(x, Z, J, k):
    """The first k of the candidates J in the order (||x - z_j||^2, j), in exact arithmetic: every float64 is an
    integer times a power of two, so all coordinates become Python integers over one common power of two (np.frexp:
    v = f 2^e, f 2^53 an integer) and the squared distances, times that power squared, are exact integers."""
    P = np.vstack([x[None, :], Z[J]])
    frac, expo = np.frexp(P)
    mant = (frac * 2.0**53).astype(np.int64)  # exact: |f| < 1, f 2^53 an integer (subnormals included)
    expo = expo.astype(np.int64)
    nonzero = mant != 0
    low = int(expo[nonzero].min()) if nonzero.any() else 0
    shift = np.where(nonzero, expo - low, 0).tolist()
    ints = [[v << s for v, s in zip(row, sh)] for row, sh in zip(mant.tolist(), shift)]
    xi = ints[0]
    exact = [(sum((a - b) * (a - b) for a, b in zip(xi, zr)), int(j)) for zr, j in zip(ints[1:], J.tolist())]
    return np.array([j for _, j in sorted(exact)[:k]], dtype=np.int64)


#: |w| at least this (or w = 0): w * w and Dekker's error term do not underflow, so the error term is exact
_SQUARE_MIN = 2.0 ** -400


@njit(cache=True, nogil=True)
def _knn_rows(R, z2, slack, k, Xb, Z, g, tiny, idx, state):  # pragma: no cover - compiled
    """Per row i of a block: R[i] holds x'_i . z'_j (the GEMM) on entry and r_ij = z2_j - 2 x'_i . z'_j on exit
    (the same two roundings as numpy's ``R *= -2; R += z2``).  Candidates: {j : r_ij <= r_(k) + slack_i} (they
    contain the k nearest, see :func:`_knn_blocks`).  Exactly k candidates: idx[i] = them (ascending), state 0.
    More (near or exact ties): their distances F_j = sum_t (x_it - z_jt)^2 directly from X and Z, each with a flag
    saying whether every subtraction, square and addition was exact (error-free transformations: TwoSum, Dekker's
    product); the candidates are ordered by (F_j, j) (stable sort); the first k are the answer, state 0, when all F
    are exact (integer or dyadic data: exact ties are then resolved exactly, by index) or when the k-th and the
    (k+1)-th are separated by the rounding bound |F_j - D_j| <= g D_j + tiny.  Otherwise state 1: the caller
    decides the row in rational arithmetic."""
    rows, m = R.shape
    d = Z.shape[1]
    tmp = np.empty(m)
    F = np.empty(m)
    J = np.empty(m, dtype=np.int64)
    exact = np.empty(m, dtype=np.bool_)
    first = np.empty(m, dtype=np.bool_)
    for i in range(rows):
        if k == 1:
            kth = np.inf
            for j in range(m):
                r = z2[j] + -2.0 * R[i, j]
                R[i, j] = r
                if r < kth:
                    kth = r
        else:
            for j in range(m):
                r = z2[j] + -2.0 * R[i, j]
                R[i, j] = r
                tmp[j] = r
            kth = _select(tmp, k - 1)
        thr = kth + slack[i]
        count = 0
        for j in range(m):
            if R[i, j] <= thr:
                J[count] = j
                count += 1
        if count == k:
            for t in range(k):
                idx[i, t] = J[t]
            state[i] = 0
            continue
        for c in range(count):
            j = J[c]
            acc = 0.0
            ok = True
            for t in range(d):
                a = Xb[i, t]
                b = -Z[j, t]
                w = a + b  # TwoSum(a, -z): the error is exactly (a - ap) + (b - bp)
                bp = w - a
                ap = w - bp
                if (a - ap) + (b - bp) != 0.0:
                    ok = False
                sq = w * w
                aw = abs(w)
                if aw != 0.0:
                    if aw < _SQUARE_MIN:
                        ok = False
                    else:  # Dekker: w = hi + lo exactly (Veltkamp split), w^2 - sq exactly
                        cw = 134217729.0 * w
                        hi = cw - (cw - w)
                        lo = w - hi
                        if ((hi * hi - sq) + 2.0 * hi * lo) + lo * lo != 0.0:
                            ok = False
                s = acc + sq  # TwoSum(acc, sq)
                sp = s - acc
                accp = s - sp
                if (acc - accp) + (sq - sp) != 0.0:
                    ok = False
                acc = s
            F[c] = acc
            exact[c] = ok
        order = np.argsort(F[:count], kind="mergesort")  # stable: equal F keep ascending j
        if _first_k_certain(F, exact, order, J, Z, k, count, g, tiny):
            first[:count] = False
            for t in range(k):
                first[order[t]] = True
            t = 0
            for c in range(count):  # candidates are in ascending j: the chosen k come out as an ascending set
                if first[c]:
                    idx[i, t] = J[c]
                    t += 1
            state[i] = 0
        else:
            state[i] = 1


@njit(cache=True, nogil=True, inline="always")
def _select(a, kk):  # pragma: no cover - compiled
    """The kk-th smallest (0-based) of a, rearranging a (Hoare's selection, the middle element as pivot; np.partition
    compiled ~5x slower)."""
    lo = 0
    hi = a.shape[0] - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                v = a[i]
                a[i] = a[j]
                a[j] = v
                i += 1
                j -= 1
        if kk <= j:
            hi = j
        elif kk >= i:
            lo = i
        else:
            return a[kk]
    return a[kk]


@njit(cache=True, nogil=True, inline="always")
def _apart(f, h, g, tiny):  # pragma: no cover - compiled
    """True when F = f and F = h provably come from exact distances D_f < D_h (|F - D| <= g D + tiny)."""
    return f * (1.0 + g) + tiny < h * (1.0 - g) - tiny


@njit(cache=True, nogil=True, inline="always")
def _first_k_certain(F, exact, order, J, Z, k, count, g, tiny):  # pragma: no cover - compiled
    """Whether the first k candidates in the order (F, j) are the first k in the exact order (D, j): every pair p
    (among the first k) and q (after them) is either separated by the rounding bound, or both F are exact, or z_p
    and z_q are the same point (equal coordinates: equal D, equal F, and the stable sort keeps index order).  Only
    pairs near the boundary can fail the bound: p not apart from the (k+1)-th F, q not apart from p."""
    fk = F[order[k - 1]]
    fn = F[order[k]]
    if _apart(fk, fn, g, tiny):
        return True
    d = Z.shape[1]
    for a in range(k - 1, -1, -1):
        p = order[a]
        if _apart(F[p], fn, g, tiny):
            break  # F ascending along order: the earlier ones are apart too
        for b in range(k, count):
            q = order[b]
            if _apart(F[p], F[q], g, tiny):
                break  # F ascending along order: the later ones are apart too
            if exact[p] and exact[q]:
                continue
            zp = J[p]
            zq = J[q]
            for t in range(d):
                if Z[zp, t] != Z[zq, t]:
                    return False
    return True


#: default queries per block of snc_predict: about this many entries of the (rows, m) distance block (2 MiB)
PREDICT_CHUNK_ELEMENTS = 1 << 18
#: blocks handed to the thread pool at once (bounds the memory of a generator step: ~ this many blocks of idx)
_PREDICT_BATCH = 64


def _knn_blocks(Z, X, k, *, chunk_size=None):
    """Yields (start, stop, idx) over blocks of rows of X: idx (rows, k) int64 holds the indices of the k nearest
    references of each row, exactly (the first k in the order (exact ||x - z_j||^2, j)), as an ascending set.

    Step 1, BLAS: r_ij = ||z'_j||^2 - 2 x'_i . z'_j (centred on the mean of Z; r_ij = D_ij - ||x'_i||^2 up to
    rounding).  Rounding bound: |r_ij - (D_ij - ||x'_i||^2)| <= B_i = 2 (d + 4) u (||x'_i|| + max_j ||z'_j||)^2 +
    tiny (GEMM in any summation order, the centring of x and z, the additions; twice the derived (d + 4) u).  So
    every j with r_ij > r_(k) + 2 B_i is strictly farther than the k-th nearest, and the candidates
    {j: r_ij <= r_(k) + 2 B_i} contain the k nearest.  A row with exactly k candidates is decided.
    Step 2, rows with more (near or exact ties, duplicates), compiled (:func:`_knn_rows`): the candidates' distances
    directly from X and Z, decided when all of them were computed without rounding (then exact) or when the k-th
    and (k+1)-th are separated by the direct rounding bound; the rest (rare: near ties of non-dyadic data) in exact
    rational arithmetic (:func:`_rational_order`).
    Data so large that squares could overflow (16 d max|value|^2 > 1e300) take :func:`_exact_order` with all m
    candidates.  Blocks run on numba.get_num_threads() threads (BLAS, then the nogil kernel; one BLAS thread each)
    when the work n m is at least _PARALLEL_MIN_WORK; the result does not depend on the thread count.
    Memory O(rows m) per thread."""
    m, d = Z.shape
    n = X.shape[0]
    mu = Z.mean(axis=0)
    Zc = Z - mu
    ZcT = Zc.T
    z2 = np.einsum("ij,ij->i", Zc, Zc)
    nz = math.sqrt(float(z2.max()))
    size = max(float(np.abs(X).max()), float(np.abs(Z).max()))
    safe = 16.0 * d * size * size < 1e300
    factor = 2.0 * (d + 4) * _U
    tiny = 8.0 * (d + 1) * _ETA
    g_direct = 2.0 * (d + 2) * _U  # the bounds of _exact_order
    tiny_direct = (d + 1) * _ETA
    rows = (max(1, min(n, PREDICT_CHUNK_ELEMENTS // max(m, 1))) if chunk_size is None
            else check_int(chunk_size, "chunk_size", minimum=1))
    if not safe:
        everything = np.arange(m, dtype=np.int64)
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            yield start, stop, np.array([np.sort(_exact_order(x, Z, everything, k)) for x in X[start:stop]],
                                        dtype=np.int64)
        return
    Z = _own_c(Z)
    threads = numba.get_num_threads() if n * m >= _PARALLEL_MIN_WORK else 1
    blocks = -(-n // rows)
    threads = max(1, min(threads, blocks))

    def block(start, stop, idx, state):
        Xb = _own_c(X[start:stop])
        Xc = Xb - mu
        R = np.matmul(Xc, ZcT, out=_scratch(stop - start, m))
        slack = np.sqrt(np.einsum("ij,ij->i", Xc, Xc))
        slack += nz
        slack *= slack
        slack *= 2.0 * factor
        slack += 2.0 * tiny
        _knn_rows(R, z2, slack, k, Xb, Z, g_direct, tiny_direct, idx, state)

    pool = _pool(threads) if threads > 1 else None
    batch = rows * (_PREDICT_BATCH if threads > 1 else 1)
    with limit_blas(1, n * m, min_size=_BLAS_MIN_WORK):
        for lo in range(0, n, batch):
            hi = min(n, lo + batch)
            idx = np.empty((hi - lo, k), dtype=np.int64)
            state = np.empty(hi - lo, dtype=np.int8)
            spans = [(start, min(hi, start + rows)) for start in range(lo, hi, rows)]
            args = [(a, b, idx[a - lo: b - lo], state[a - lo: b - lo]) for a, b in spans]
            if pool is None:
                for arg in args:
                    block(*arg)
            else:  # one task per block, taken by whichever thread is free (a descheduled thread holds up one block)
                for job in [pool.submit(block, *arg) for arg in args]:
                    job.result()
            for i in np.flatnonzero(state).tolist():  # rows the float checks could not decide: exact rationals
                x = X[lo + i]
                V = Z - x  # the direct distances again, to list the candidates (a superset of the k nearest)
                F = np.einsum("ij,ij->i", V, V)
                J = np.flatnonzero(F <= np.partition(F, k - 1)[k - 1] * (1.0 + 4.0 * g_direct) + 4.0 * tiny_direct)
                idx[i] = np.sort(_rational_order(x, Z, J, k))
            yield lo, hi, idx


def _own_c(a):
    """``a`` if C-contiguous and writeable, else a C copy: _knn_rows then always sees the one argument type the
    warm-up compiles (a read-only array, e.g. the contract's view of a user's array, is another numba type)."""
    return a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C")


_LOCAL = threading.local()


#: the largest scratch block (entries) a thread keeps between calls (a larger one, from a large chunk_size, is freed)
_SCRATCH_KEEP = 1 << 21


def _scratch(rows, m):
    """A (rows, m) float64 block of this thread's reusable buffer (a new 2 MiB array per block costs an mmap and
    page faults each time)."""
    if rows * m > _SCRATCH_KEEP:
        return np.empty((rows, m))
    buf = getattr(_LOCAL, "buf", None)
    if buf is None or buf.size < rows * m:
        buf = _LOCAL.buf = np.empty(rows * m)
    return buf[: rows * m].reshape(rows, m)


def _pool(threads):
    """The module's thread pool with at least ``threads`` workers (a forked child makes its own)."""
    global _POOL
    if _POOL is None or _POOL[0] != os.getpid() or _POOL[1]._max_workers < threads:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = (os.getpid(), ThreadPoolExecutor(max_workers=threads, thread_name_prefix="snc"))
    return _POOL[1]


def _tally(codes, n_classes):
    """(rows, C) int64 votes from the (rows, k) class codes of the neighbours."""
    rows = codes.shape[0]
    flat = (np.arange(rows, dtype=np.int64)[:, None] * n_classes + codes).ravel()
    return np.bincount(flat, minlength=rows * n_classes).reshape(rows, n_classes)


def snc_predict(Z, z_labels, X, k=1, *, chunk_size=None):
    """yhat(x) = majority label of the k nearest z_j under D_j = ||x - z_j||^2 (k = 1: 1-NN)   [kusner2016 §3.1.4, 1-NN rule]

    The rule of :func:`reference.snc.snc_predict` (:mod:`spec.snc_contract`): exact squared Euclidean distances,
    the k nearest in the order (distance, index j) (the lowest index among equally near references), majority
    vote with ties to the smallest label (``numpy.unique`` order).  Same labels as the reference on every input.

    How, and what is guaranteed: distances by one GEMM per block of rows (||z||^2 - 2 x.z after centring on the
    mean of Z; memory O(chunk_size m) per thread), with a proven bound on their rounding error; a row is decided
    there when exactly k references lie within twice the bound of its k-th smallest value (the usual case).
    Otherwise (near or exact ties, duplicates) only its candidates are re-checked, compiled: directly (sum of
    squared differences, relative error <= 2 (d + 2) u, each step tested for rounding by error-free
    transformations), and the order (distance, j) of the candidates is taken when the k-th and the (k+1)-th are
    separated by that bound, or every pair across the boundary was computed without rounding (integer or dyadic
    data: exact ties resolved exactly) or is the same point twice (duplicated references); the rows left (near ties
    of non-dyadic values, rare) in exact integer arithmetic, per row in Python.  So the k nearest, and hence the
    labels, are exactly those of exact arithmetic; the GEMM's rounding never flips a near tie.  Blocks run on
    ``numba.get_num_threads()`` threads (one BLAS thread each) when n m >= 2^20; the labels never depend on it.

    Parameters
    ----------
    Z : array (m, d)
        The references (compressed set, e.g. ``SNCFit.Z``) as rows, finite.
    z_labels : array (m,)
        Their labels (integers or strings).
    X : array (n, d)
        Queries as rows, finite, the same d as Z.
    k : int, default=1
        Neighbours that vote, 1 <= k <= m.
    chunk_size : int, optional
        Queries per block (default: about 2^18 / m, ``PREDICT_CHUNK_ELEMENTS``).

    Returns
    -------
    ndarray (n,)
        The predicted labels, with the dtype of ``z_labels``.

    Raises
    ------
    ValueError, TypeError
        Bad input (:func:`spec.snc_contract.check_predict`): a d mismatch between X and Z, NaN or inf, an empty
        array, k < 1 or k > m, a z_labels length other than m.

    Examples
    --------
    >>> snc_predict([[0.0], [2.0]], ["a", "b"], [[0.4], [1.0], [1.7]]).tolist()  # 1.0: a tie, the lower index wins
    ['a', 'a', 'b']
    >>> snc_predict([[0.0], [1.0], [5.0]], [0, 1, 1], [[0.2]], k=3).tolist()
    [1]
    """
    Z, z_labels, X, k = check_predict(Z, z_labels, X, k)
    classes, zcode = np.unique(z_labels, return_inverse=True)
    out = np.empty(X.shape[0], dtype=np.int64)
    for start, stop, idx in _knn_blocks(Z, X, k, chunk_size=chunk_size):
        near = zcode[idx]
        out[start:stop] = near[:, 0] if k == 1 else _tally(near, classes.size).argmax(axis=1)
    return classes[out]
