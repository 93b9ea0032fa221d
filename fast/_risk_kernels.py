"""Row kernels of the rado / logistic risks (numba): one pass over the (n, d) matrix, element-wise work fused.

Products.  ``_dot`` takes A[i] . t with the d-term sum reassociated (LLVM vectorises it into AVX2 accumulators;
no 'nnan' / 'ninf' flags, so NaN and inf propagate): measured 1.0-1.5x OpenBLAS's dgemv_t on this machine at
d = 100 (n = 1e4 and 1e5, one thread).  The finiteness test of the matrix is fused: a NaN or inf entry makes its
row's product non-finite (IEEE: 0 * inf and 0 * NaN are NaN), so callers re-read the matrix only then.

Fused risks.  The risks' element-wise work costs as much as the product at n = 1e4 (cache-resident matrix):
numpy's exp is 6-7 ns an element on this AVX2 machine (libm, not SIMD) and log1p 10-15 ns.  The row kernels
(:func:`lse_rows`, :func:`softplus_rows`) take ROWS = 256 rows at a time: their products stay in L1, then one
vectorised pass over them: exp by :func:`_exp` (Cody-Waite reduction, degree-13 Horner, 2^k built in the exponent
bits: branch-free, < 1 ulp measured against mpmath, 3x numpy's exp), and for the softplus one log1p per lane of
32 terms instead of one per term (:func:`_softplus_block`).  :func:`gradient_rows` reads each row once for both
halves of the gradient (its product, then sum_i c_i x_i from L1): half the memory traffic of two BLAS passes.
The vector sums :func:`exp_sum` and :func:`softplus_sum` run the same blocks over a vector (strided matrices,
whose products come from BLAS; fast.losses).

Accuracy.  Sums are two-level (lanes within a block, blocks into the total; the gradient in blocks of BLOCK rows):
relative error ~(256 + n / 256) u instead of n u.  The log-sum-exp is shifted by the running maximum, rescaled
once per block at most.  Terms below e^-708 are handled apart (:func:`_exp` clamps there): dropped next to the
maximum's term 1 in a log-sum-exp (invisible), added exactly (libm) in a softplus sum.

Threads.  Rows lo .. hi - 1 only: the kernels are serial and release the GIL; :func:`map_rows` splits the rows
between the calling thread and ``numba.get_num_threads() - 1`` helpers and never waits for a helper, so numba's
thread count is the one knob for these risks: no OpenMP region spinning beside BLAS threads, no BLAS thread pool
(OpenBLAS's static split waits for a descheduled thread, and its idle threads spin after each call).

Kernels (cache=True): :func:`dot_rows`, :func:`lse_rows`, :func:`softplus_rows`, :func:`gradient_rows`,
:func:`exp_sum`, :func:`softplus_sum`, :func:`exp_in_place`, :func:`logistic_weights`; :func:`_dot` (inlined by
LLVM), :func:`_exp`, :func:`_exp_block`, :func:`_softplus_block`, :func:`_lane_sum` (inline="always").
"""
from __future__ import annotations

import itertools
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

#: rows per block of the two-level sums of the gradient
BLOCK = 1024
#: rows per block of the fused kernels (their products stay in L1) and of the vector sums
ROWS = 256
#: lanes of the element-wise sums (two AVX2 vectors)
LANES = 8
#: fewest matrix entries (n d) for which rows are split between threads: a hand-off costs ~20-50 us, and on the
#: loaded 2-core machine 2 threads lost to 1 at n d = 1e6 (0.5-0.8, load 6); at 1e7 they were 0.8-1.2
PARALLEL_MIN_WORK = 1 << 22
#: row blocks per worker (dynamic scheduling on a loaded machine; a duplicated block costs 1/16 of the work at 2)
PIECES_PER_WORKER = 8


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _dot(A, i, t):
    """A[i] . t, the sum reassociated (vectorised).  No 'nnan' / 'ninf': NaN and inf propagate."""
    acc = 0.0
    for k in range(A.shape[1]):
        acc += A[i, k] * t[k]
    return acc


# --------------------------------------------------------------------------- exp without a libm call


@intrinsic
def _bits_to_float(typingctx, bits):
    """The float64 whose IEEE bits are the int64 ``bits`` (an LLVM bitcast: vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return types.float64(types.int64), codegen


@intrinsic
def _float_to_bits(typingctx, x):
    """The IEEE bits of the float64 ``x`` as an int64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))
    return types.int64(types.float64), codegen


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # trailing zeros: k * _LN2_HI is exact for |k| < 2^11
_LN2_LO = 1.90821492927058770002e-10
_ROUNDER = 6755399441055744.0  # 2^52 + 2^51: x + _ROUNDER rounds x to an integer held in the low mantissa bits
_ROUNDER_BITS = 0x4338000000000000
#: exp(r) = sum_k r^k / k!, |r| <= ln 2 / 2: degree 13 truncates below 5e-18 relative
_C = tuple(1.0 / math.factorial(k) for k in range(14))
#: arguments below this are clamped by :func:`_exp` (its result there is exp(EXP_LOW); callers treat them apart)
EXP_LOW = -708.0


@njit(cache=True, nogil=True, inline="always")
def _exp(x):
    """exp(x) for EXP_LOW <= x <= 709 without a libm call (branch-free, so loops over it vectorise): Cody-Waite
    reduction x = k ln 2 + r, Horner for exp(r), 2^k built in the exponent bits.  Measured < 1 ulp against mpmath
    (numpy's exp: < 0.5 ulp); 3x numpy's exp on this AVX2 machine.  Arguments outside [EXP_LOW, 709] are clamped
    (NaN to EXP_LOW): callers handle x < EXP_LOW themselves and test finiteness on their own."""
    x = x if x > EXP_LOW else EXP_LOW
    x = x if x < 709.0 else 709.0
    kf = x * _LOG2E + _ROUNDER
    k = kf - _ROUNDER
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _C[13]
    p = p * r + _C[12]
    p = p * r + _C[11]
    p = p * r + _C[10]
    p = p * r + _C[9]
    p = p * r + _C[8]
    p = p * r + _C[7]
    p = p * r + _C[6]
    p = p * r + _C[5]
    p = p * r + _C[4]
    p = p * r + _C[3]
    p = p * r + _C[2]
    p = p * r + 1.0
    p = p * r + 1.0
    return p * _bits_to_float((_float_to_bits(kf) - _ROUNDER_BITS + 1023) << 52)


# --------------------------------------------------------------------------- element-wise sums over a block


@njit(cache=True, nogil=True, inline="always")
def _exp_block(s, lo, hi, shift, scratch, lanes):
    """sum_{lo <= i < hi} exp(s_i - shift) for s_i <= shift.  Two vectorised loops (a fused one does not
    vectorise): scratch[i - lo] = the term, then a sum in LANES lanes.  Terms below e^EXP_LOW are dropped: next to
    the term 1 of the maximum they are invisible (n e^-708 < 2^-900)."""
    count = hi - lo
    for i in range(count):
        x = s[lo + i] - shift
        e = _exp(x)
        scratch[i] = e if x >= EXP_LOW else 0.0
    return _lane_sum(scratch, 0, count, lanes)


@njit(cache=True, nogil=True, inline="always")
def _lane_sum(x, lo, hi, lanes):
    """sum_{lo <= i < hi} x_i in LANES lanes (vectorised; a plain loop is not, FP addition not being reassociated)."""
    for j in range(LANES):
        lanes[j] = 0.0
    i = lo
    while i + LANES <= hi:
        for j in range(LANES):
            lanes[j] += x[i + j]
        i += LANES
    total = 0.0
    while i < hi:
        total += x[i]
        i += 1
    for j in range(LANES):
        total += lanes[j]
    return total


@njit(cache=True, nogil=True, inline="always")
def _softplus_block(u, lo, hi, scratch, lanes, plus):
    """sum_{lo <= i < hi} log(1 + exp(u_i)) = sum max(u_i, 0) + sum log1p(e_i), e_i = exp(-|u_i|) in (0, 1].

    Vectorised loops: scratch[i - lo] = e_i; then lane j multiplies its factors 1 + e_i as 1 + S: S <- S + e + S e
    (positive terms: relative error <= 3u per factor; (hi - lo) / LANES factors per lane, S < 2^(factors)), and one
    log1p(S) per lane replaces one log1p per term.  Terms with |u_i| > -EXP_LOW (e_i below e^-708: subnormal or 0)
    are added exactly (libm) afterwards."""
    count = hi - lo
    far = 0
    for i in range(count):
        a = abs(u[lo + i])
        e = _exp(-a)
        scratch[i] = e if a <= -EXP_LOW else 0.0
        far += a > -EXP_LOW
    for j in range(LANES):
        lanes[j] = 0.0
        plus[j] = 0.0
    i = 0
    while i + LANES <= count:
        for j in range(LANES):
            e = scratch[i + j]
            lanes[j] += e + lanes[j] * e
            v = u[lo + i + j]
            plus[j] += v if v > 0.0 else 0.0
        i += LANES
    total = 0.0
    for j in range(LANES):
        total += np.log1p(lanes[j]) + plus[j]
    while i < count:
        v = u[lo + i]
        total += (v if v > 0.0 else 0.0) + np.log1p(scratch[i])
        i += 1
    if far > 0:
        for i in range(lo, hi):
            a = abs(u[i])
            if a > -EXP_LOW:
                total += np.log1p(np.exp(-a))
    return total


# --------------------------------------------------------------------------- row kernels (one pass over A)


@njit(cache=True, nogil=True)
def dot_rows(A, t, out, lo, hi):
    """out[i - lo] = A[i] . t for lo <= i < hi; returns True iff every product is finite."""
    finite = True
    for i in range(lo, hi):
        s = _dot(A, i, t)
        out[i - lo] = s
        finite &= abs(s) < np.inf
    return finite


@njit(cache=True, nogil=True)
def lse_rows(A, t, lo, hi):
    """(m, total, finite): sum_{lo <= i < hi} exp(A[i] . t) = exp(m) total, m the largest product.

    Rows in blocks of ROWS: the block's products (in L1), its maximum bm; the running sum is rescaled by
    exp(m - bm) when bm > m (once per block at most), then the block's exp(s - m) added (:func:`_exp_block`)."""
    buf = np.empty(ROWS)
    scratch = np.empty(ROWS)
    lanes = np.empty(LANES)
    m = -np.inf
    total = 0.0
    for b in range(lo, hi, ROWS):
        count = min(ROWS, hi - b)
        top = -np.inf
        finite = True
        for r in range(count):
            s = _dot(A, b + r, t)
            buf[r] = s
            finite &= abs(s) < np.inf
            top = max(top, s)
        if not finite:
            return m, total, False
        if top > m:
            total *= np.exp(m - top)
            m = top
        total += _exp_block(buf, 0, count, m, scratch, lanes)
    return m, total, True


@njit(cache=True, nogil=True)
def softplus_rows(A, y, t, lo, hi):
    """(sum_{lo <= i < hi} log(1 + exp(-y_i A[i] . t)), finite): blocks of ROWS margins (in L1), each summed by
    :func:`_softplus_block`; the block sums add into the total (two-level summation)."""
    buf = np.empty(ROWS)
    scratch = np.empty(ROWS)
    lanes = np.empty(LANES)
    plus = np.empty(LANES)
    total = 0.0
    for b in range(lo, hi, ROWS):
        count = min(ROWS, hi - b)
        finite = True
        for r in range(count):
            u = -y[b + r] * _dot(A, b + r, t)
            buf[r] = u
            finite &= abs(u) < np.inf
        if not finite:
            return total, False
        total += _softplus_block(buf, 0, count, scratch, lanes, plus)
    return total, True


@njit(cache=True, nogil=True, error_model="numpy")  # no zero-division test: the weights' loop vectorises
def gradient_rows(A, y, t, lo, hi, g):
    """g = sum_{lo <= i < hi} y_i A[i] / (1 + exp(y_i A[i] . t)); returns finite (every product finite).

    Blocks of ROWS rows (200 KB at d = 100: L2-resident): the block's margins w_i = y_i A[i] . t, then its weights
    c_i = y_i / (1 + exp(w_i)) in one vectorised pass (exp(-|w|) by :func:`_exp`: e / (1 + e) for w > 0, no
    overflow; libm for |w| > -EXP_LOW), then sum_i c_i A[i] over the block's rows read again from cache: each row
    comes from memory once.  g (d,) is overwritten; the block sums add into it (two-level summation)."""
    d = A.shape[1]
    buf = np.empty(ROWS)
    weight = np.empty(ROWS)
    block = np.empty(d)
    for k in range(d):
        g[k] = 0.0
    for b in range(lo, hi, ROWS):
        count = min(ROWS, hi - b)
        finite = True
        for r in range(count):
            w = y[b + r] * _dot(A, b + r, t)
            buf[r] = w
            finite &= abs(w) < np.inf
        if not finite:
            return False
        far = 0
        for r in range(count):  # vectorised
            w = buf[r]
            a = abs(w)
            e = _exp(-a)
            far += a > -EXP_LOW
            weight[r] = y[b + r] * (e / (1.0 + e) if w > 0.0 else 1.0 / (1.0 + e))
        if far > 0:
            for r in range(count):
                w = buf[r]
                if abs(w) > -EXP_LOW:
                    e = np.exp(-abs(w))
                    weight[r] = y[b + r] * (e / (1.0 + e) if w > 0.0 else 1.0 / (1.0 + e))
        for k in range(d):
            block[k] = 0.0
        r = 0
        while r + 4 <= count:  # four rows per pass over the block sum (its loads and stores shared)
            c0, c1, c2, c3 = weight[r], weight[r + 1], weight[r + 2], weight[r + 3]
            i = b + r
            for k in range(d):
                block[k] += (c0 * A[i, k] + c1 * A[i + 1, k]) + (c2 * A[i + 2, k] + c3 * A[i + 3, k])
            r += 4
        while r < count:
            c0 = weight[r]
            for k in range(d):
                block[k] += c0 * A[b + r, k]
            r += 1
        for k in range(d):
            g[k] += block[k]
    return True


# --------------------------------------------------------------------------- the same sums over a vector


@njit(cache=True, nogil=True)
def exp_in_place(x):
    """x_i <- exp(x_i) for x_i <= 0 (or -inf) and returns sum_i exp(x_i).  The vectorised exp; when some argument
    is below EXP_LOW (a result below e^-708: subnormal or 0) the pass takes libm's exp for those, so every value is
    numpy's to 1 ulp and the small ones exactly libm's.  The sum in LANES lanes per block of ROWS (two-level)."""
    n = x.shape[0]
    low = 0
    for i in range(n):
        low += x[i] < EXP_LOW
    if low == 0:
        for i in range(n):
            x[i] = _exp(x[i])
    else:
        for i in range(n):
            v = x[i]
            x[i] = np.exp(v) if v < EXP_LOW else _exp(v)
    lanes = np.empty(LANES)
    total = 0.0
    for b in range(0, n, ROWS):
        total += _lane_sum(x, b, min(n, b + ROWS), lanes)
    return total


@njit(cache=True, nogil=True, error_model="numpy")
def logistic_weights(z, mu, limit, out):
    """out_i = 1 / (1 + exp(z_i / mu)) (mu > 0) in one vectorised pass over z; returns (finite, within): every z_i
    finite, and every |z_i| and |z_i / mu| <= ``limit`` (the contract's max|z| and max|z| / mu tests, entry by entry:
    the rounded division by mu > 0 is monotone, so max_i |z_i / mu| = fl(max_i |z_i| / mu)).

    t_i = z_i / mu (numpy's division), e = exp(-|t_i|) by :func:`_exp`; out_i = e / (1 + e) for t_i > 0, else
    1 / (1 + e): no overflow, as scipy's expit(-t_i).  |t_i| > -EXP_LOW (e below e^-708) takes libm's exp in a
    second pass over those entries only (where scipy's expit underflows to 0 from |t| = 709.8 on, this gives the
    subnormal values of the reference).  Against expit(-z / mu): within 3 ulp, each within ~1.5 ulp of the exact
    value (tests/test_losses.py).  ``error_model="numpy"``: no zero-division test on the divisions
    (mu > 0, 1 + e >= 1), which would stop the loop from vectorising (4x slower).  ~3x scipy's expit (libm exp)."""
    n = z.shape[0]
    bad = 0
    over = 0
    far = 0
    for i in range(n):  # vectorised: integer flags, selects, no libm call
        v = z[i]
        t = v / mu
        a = abs(t)
        bad |= not (abs(v) < np.inf)
        over |= (abs(v) > limit) | (a > limit)
        far |= a > -EXP_LOW
        e = _exp(-a)
        out[i] = e / (1.0 + e) if t > 0.0 else 1.0 / (1.0 + e)
    if far and not bad:
        for i in range(n):
            t = z[i] / mu
            if abs(t) > -EXP_LOW:
                e = np.exp(-abs(t))
                out[i] = e / (1.0 + e) if t > 0.0 else 1.0 / (1.0 + e)
    return bad == 0, over == 0


@njit(cache=True, nogil=True)
def exp_sum(s, shift):
    """sum_i exp(s_i - shift) for s_i <= shift (terms below e^-708 dropped: see :func:`_exp_block`)."""
    scratch = np.empty(ROWS)
    lanes = np.empty(LANES)
    total = 0.0
    for b in range(0, s.shape[0], ROWS):
        total += _exp_block(s, b, min(s.shape[0], b + ROWS), shift, scratch, lanes)
    return total


@njit(cache=True, nogil=True)
def softplus_sum(u):
    """sum_i log(1 + exp(u_i)) (finite u), by blocks of ROWS (:func:`_softplus_block`)."""
    scratch = np.empty(ROWS)
    lanes = np.empty(LANES)
    plus = np.empty(LANES)
    total = 0.0
    for b in range(0, u.shape[0], ROWS):
        total += _softplus_block(u, b, min(u.shape[0], b + ROWS), scratch, lanes, plus)
    return total


_POOL = {}


def _helpers(count: int):
    """A persistent pool of ``count`` helper threads (idle threads block on a queue, never spin)."""
    if count not in _POOL:
        _POOL[count] = ThreadPoolExecutor(count, thread_name_prefix="privlearn-risk")
    return _POOL[count]


def map_rows(n: int, d: int, compute) -> list:
    """[compute(lo, hi) for consecutive row ranges covering 0 .. n - 1], ranges split between this thread and
    ``numba.get_num_threads() - 1`` helper threads, never waiting long for a helper.

    ``compute`` must return its result (and write nothing shared).  Ranges are claimed from a shared counter
    (next() on an itertools.count is atomic under the GIL) by this thread and the helpers.  When none is left, this
    thread waits for each range a helper is still computing at most as long as one of its own ranges took, then
    computes it itself and keeps whichever result comes first (under a lock; a late helper's result is dropped).
    On a loaded machine a helper descheduled in the middle of a range (a scheduler quantum: milliseconds) then
    costs about one range of work, where a static split (OpenBLAS's threads) waits for it: the 2-thread failure
    mode of the BLAS products on this machine (a 0.24 ms product measured at 5-6 ms under load 7)."""
    workers = numba.get_num_threads() if n * d >= PARALLEL_MIN_WORK else 1
    if workers <= 1 or n < 2:
        return [compute(0, n)]
    step = -(-n // (workers * PIECES_PER_WORKER))
    ranges = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
    results = [None] * len(ranges)
    finished = [threading.Event() for _ in ranges]
    lock = threading.Lock()
    claims = itertools.count()

    def run(k):
        value = compute(*ranges[k])
        with lock:
            if not finished[k].is_set():
                results[k] = value
                finished[k].set()

    def helper():
        for k in claims:
            if k >= len(ranges):
                return
            run(k)

    pool = _helpers(workers - 1)
    for _ in range(workers - 1):
        pool.submit(helper)
    start, own = time.perf_counter(), 0
    for k in claims:
        if k >= len(ranges):
            break
        run(k)
        own += 1
    patience = (time.perf_counter() - start) / max(own, 1)  # one of this thread's ranges
    for k in range(len(ranges)):  # claimed by a helper: wait about one range for it, else compute it here
        if not finished[k].wait(patience):
            run(k)
    return results


def products(A, t):
    """(A @ t, finite) for C-contiguous float64 A (n, d) and float64 t (d,)."""
    n, d = A.shape

    def compute(lo, hi):
        out = np.empty(hi - lo, dtype=np.float64)
        return out, dot_rows(A, t, out, lo, hi)

    parts = map_rows(n, d, compute)
    finite = all(p[1] for p in parts)
    return (parts[0][0] if len(parts) == 1 else np.concatenate([p[0] for p in parts])), finite


def log_sum_exp_rows(A, t):
    """(log sum_i exp(A[i] . t), finite) for C-contiguous float64 A (n, d): :func:`lse_rows` per row range."""
    n, d = A.shape
    parts = map_rows(n, d, lambda lo, hi: lse_rows(A, t, lo, hi))
    if not all(p[2] for p in parts):
        return math.nan, False
    top = max(p[0] for p in parts)
    return top + math.log(math.fsum(total * math.exp(m - top) for m, total, _ in parts)), True


def softplus_sum_rows(A, y, t):
    """(sum_i log(1 + exp(-y_i A[i] . t)), finite) for C-contiguous float64 A: :func:`softplus_rows` per range."""
    n, d = A.shape
    parts = map_rows(n, d, lambda lo, hi: softplus_rows(A, y, t, lo, hi))
    if not all(p[1] for p in parts):
        return math.nan, False
    return sum(p[0] for p in parts), True  # positive partial sums; inf when the risk exceeds float64


def gradient_sum_rows(A, y, t):
    """(sum_i y_i A[i] / (1 + exp(y_i A[i] . t)), finite) for C-contiguous float64 A."""
    n, d = A.shape

    def compute(lo, hi):
        g = np.empty(d, dtype=np.float64)
        return g, gradient_rows(A, y, t, lo, hi, g)

    parts = map_rows(n, d, compute)
    finite = all(p[1] for p in parts)
    if len(parts) == 1:
        return parts[0][0], finite
    return np.sum([p[0] for p in parts], axis=0), finite
