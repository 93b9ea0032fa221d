"""Table-driven rado kernel (numba): pi_sigma = sum_{i : sigma_i = y_i} e_i   [nock2015 Definition 1].

Method of the four Russians with 8-bit blocks: examples are taken 8 at a time, and for block b the 256 subset
sums of its edge vectors are built by doubling (T[c] = T[c - lowbit(c)] + e_lowbit, 256 d adds per block).  A
rado is then the sum over blocks of one table row: m/8 row additions of length d instead of m multiply-adds per
coordinate.

SWAR code formation: the int8 signatures of a block are read as ONE little-endian uint64 word w (+1 = byte 0x01,
-1 = byte 0xFF), and the table row is indexed by the 8 SIGN bits n_k = 1[sigma_{8b+k} = -1] (bit 1 of byte k):
``(((w >> 1) & 0x01..01) * 0x0102040810204080) >> 56`` gathers them, bit k = example 8b + k (4 integer ops per 8
examples, no label word).  The labels are folded into the table instead: the row for sign bits n holds the sum
over the support code c = n ^ p, p = the bits with y_i = +1 (i is in J(sigma) iff 1[sigma_i = -1] = 1[y_i = -1]).
The {-1, +1} check is fused into the same pass, on the same words: a byte is 0x01 or 0xFF iff its bits 1..7 are
equal (bits 2..7 of ``w ^ (w << 1)`` are zero) and its bit 0 is set (AND of all words).

Vector layout: the table rows and the output rows are padded to D = 4 ceil(d / 4) doubles (zero columns), and the
innermost loop adds four coordinates per step with an unsigned index (no negative-index wraparound selects), so
LLVM's SLP vectoriser turns each step into AVX2 <4 x double> loads and adds.  numba leaves the SLP vectoriser off
by default (NUMBA_SLP_VECTORIZE=0); :func:`rados_table` switches it on while the accumulation kernel is compiled
(``_slp_vectorize``).  Vectorising never reassociates: results are bit-identical to the scalar loop.

Loop order (cache): tables are built for a group of blocks (at most TABLE_GROUP_BYTES), the group split between
the threads; rows are split into blocks of ROW_BLOCK rows, handed to a persistent pool of numba.get_num_threads()
Python threads as they come free (both kernels are serial and release the GIL; no OpenMP region: idle OpenMP
workers spin and, on 2 cores, stole the CPU of the accumulating threads; and a cached ``parallel=True`` build of
the accumulation ran 2-2.5x slower than a fresh compile, a cached serial build does not); inside a row block, eight blocks' tables
(8 x 256 x D doubles, 96 KB at d = 10: L2-resident) are reused by all its rows, and each output row is loaded and
stored once per eight blocks.  When the signatures cannot be viewed as words in place (m not a multiple of 8,
not C-contiguous, not int8, unaligned) each group's columns are copied to a small padded buffer (n x 8 x group
bytes, at most COPY_BUFFER_BYTES; padding bytes 0x01 are valid and their table entries are zero).  Temporaries:
tables, that buffer, the (n, D) output.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

TABLE_GROUP_BYTES = 8 * 1024**2
#: below this many signature entries (n m) the table kernel runs on one thread: handing work to a second thread
#: costs more than it saves, and on an oversubscribed machine it can stall for a scheduler quantum
PARALLEL_MIN_WORK = 1 << 22


@contextmanager
def _slp_vectorize():
    """Compile (if not compiled yet) with LLVM's SLP vectoriser on; numba reads the flag per compiled module."""
    previous = numba.config.SLP_VECTORIZE
    numba.config.SLP_VECTORIZE = 1
    try:
        yield
    finally:
        numba.config.SLP_VECTORIZE = previous


ROW_BLOCK = 256
#: rows per block when d <= 32 (output rows are short: more rows share each table while it is cached)
ROW_BLOCK_SMALL_D = 1024
#: at most this many 8-example blocks per table group (per parallel region): measured best on one thread
MAX_GROUP_BLOCKS = 128
#: SIMD width (doubles) the table and output rows are padded to
LANES = 4
#: bound on the per-group copy of signatures that cannot be read in place (n x 8 x group bytes)
COPY_BUFFER_BYTES = 64 * 1024**2

_LOW_BITS = np.uint64(0x0101010101010101)
_BITS_2_TO_7 = np.uint64(0xFCFCFCFCFCFCFCFC)
_PACK = np.uint64(0x0102040810204080)  # (v * _PACK) >> 56 gathers bit 0 of byte k into bit k (v: bytes 0/1)
_ONE = np.uint64(1)
_SHIFT56 = np.uint64(56)
_U1, _U2, _U3, _U4 = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)


@njit(cache=True, nogil=True)
def _build_tables(E, y, first_block, lo, hi, tables):
    """tables[b, n] = sum of the rows i = 8 (first_block + b) + k of E over the k with sigma_i = y_i, where bit k of
    n is 1[sigma_i = -1] (rows >= m count 0; ``y`` is padded to whole blocks).

    Built by doubling over the support code c (bit k = 1[i in J(sigma)]) and stored at n = c ^ p, p = the bits
    with y_i = +1: i is in J(sigma) iff 1[sigma_i = -1] = 1[y_i = -1], i.e. c_k = n_k ^ p_k."""
    m, d = E.shape
    for b in range(lo, hi):  # blocks lo .. hi - 1 of the group (serial, releases the GIL: run on the thread pool)
        base = (first_block + b) * 8
        p = 0
        for k in range(8):
            if y[base + k] == 1:
                p |= 1 << k
        for k in range(d):
            tables[b, p, k] = 0.0
        for c in range(1, 256):
            low = c & (-c)
            bit = 0
            while (1 << bit) != low:
                bit += 1
            i = base + bit
            prev = c - low
            if i < m:
                for k in range(d):
                    tables[b, c ^ p, k] = tables[b, prev ^ p, k] + E[i, k]
            else:
                for k in range(d):
                    tables[b, c ^ p, k] = tables[b, prev ^ p, k]


@njit(cache=True, inline="always")
def _malformed(word):
    """``word ^ (word << 1)``: its bits 2..7 of each byte are zero iff every byte has its bits 1..7 equal (the
    caller ORs these over all words and masks once, with _BITS_2_TO_7)."""
    return word ^ (word << _ONE)


@njit(cache=True, inline="always")
def _code(word):
    """The 8 sign bits of one signature word: bit k = 1[sigma_{8b+k} = -1] (bit 1 of byte k, gathered)."""
    return ((word >> _ONE) & _LOW_BITS) * _PACK >> _SHIFT56


@njit(cache=True, inline="always")
def _row8(tables, b, c0, c1, c2, c3, c4, c5, c6, c7, k):
    """Sum of coordinate k of the table rows c0..c7 of blocks b..b+7 (pairwise)."""
    return (((tables[b, c0, k] + tables[b + 1, c1, k]) + (tables[b + 2, c2, k] + tables[b + 3, c3, k]))
            + ((tables[b + 4, c4, k] + tables[b + 5, c5, k]) + (tables[b + 6, c6, k] + tables[b + 7, c7, k])))


@njit(cache=True, nogil=True)
def _accumulate(words, word0, first_block, n_blocks, tables, out, lo, hi):
    """out[j] += sum over blocks first_block .. first_block + n_blocks - 1 of tables[b, code_j(b)].

    ``words[j, g - word0]`` is the uint64 word of block g of signature j (tables indexed by sign bits); the
    output and table rows have D = 4 q doubles.  Per row block, eight blocks are taken at a time: eight table rows
    summed per load/store of the output row, four coordinates per (vectorised) step.  Returns True iff a value
    is outside {-1, +1}.  Rows lo .. hi - 1 only: a serial kernel that releases the GIL (threads: :func:`rados_table`)."""
    D = np.uint64(out.shape[1])
    malformed = np.uint64(0)
    ones = ~np.uint64(0)
    b = 0
    while b + 8 <= n_blocks:
        g = first_block + b - word0
        for j in range(lo, hi):
            w0, w1, w2, w3 = words[j, g], words[j, g + 1], words[j, g + 2], words[j, g + 3]
            w4, w5, w6, w7 = words[j, g + 4], words[j, g + 5], words[j, g + 6], words[j, g + 7]
            malformed |= (_malformed(w0) | _malformed(w1) | _malformed(w2) | _malformed(w3)
                          | _malformed(w4) | _malformed(w5) | _malformed(w6) | _malformed(w7))
            ones &= w0 & w1 & w2 & w3 & w4 & w5 & w6 & w7
            c0, c1, c2, c3 = _code(w0), _code(w1), _code(w2), _code(w3)
            c4, c5, c6, c7 = _code(w4), _code(w5), _code(w6), _code(w7)
            k = np.uint64(0)
            while k < D:  # four lanes: all loads before the stores, so SLP can pack them
                a0 = _row8(tables, b, c0, c1, c2, c3, c4, c5, c6, c7, k)
                a1 = _row8(tables, b, c0, c1, c2, c3, c4, c5, c6, c7, k + _U1)
                a2 = _row8(tables, b, c0, c1, c2, c3, c4, c5, c6, c7, k + _U2)
                a3 = _row8(tables, b, c0, c1, c2, c3, c4, c5, c6, c7, k + _U3)
                out[j, k] += a0
                out[j, k + _U1] += a1
                out[j, k + _U2] += a2
                out[j, k + _U3] += a3
                k += _U4
        b += 8
    while b < n_blocks:
        g = first_block + b - word0
        for j in range(lo, hi):
            w0 = words[j, g]
            malformed |= _malformed(w0)
            ones &= w0
            c0 = _code(w0)
            k = np.uint64(0)
            while k < D:
                a0 = tables[b, c0, k]
                a1 = tables[b, c0, k + _U1]
                a2 = tables[b, c0, k + _U2]
                a3 = tables[b, c0, k + _U3]
                out[j, k] += a0
                out[j, k + _U1] += a1
                out[j, k + _U2] += a2
                out[j, k + _U3] += a3
                k += _U4
        b += 1
    return (malformed & _BITS_2_TO_7) != 0 or (ones & _LOW_BITS) != _LOW_BITS


_POOL = {}


def _pool(workers: int):
    """A persistent pool of ``workers`` Python threads (None for one worker); idle threads block, never spin."""
    if workers <= 1:
        return None
    if workers not in _POOL:
        _POOL[workers] = ThreadPoolExecutor(workers, thread_name_prefix="privlearn-rados")
    return _POOL[workers]


def _word_view(a):
    """``a`` (int8, C-contiguous, last axis a multiple of 8 bytes, 8-byte aligned) as uint64 words, else None."""
    if (a.dtype == np.int8 and a.flags.c_contiguous and a.shape[-1] % 8 == 0
            and a.ctypes.data % 8 == 0):
        return a.view(np.uint64)
    return None


def rados_table(E, sigmas, y, *, workspace=None):
    """(rados, ok): rados (n, d) with row j = sum_{i : sigmas[j, i] == y[i]} E[i]; ok = all entries in {-1, +1}.

    E (m, d) float64, sigmas (n, m) (int8 C-contiguous is read in place; anything else whose values are in
    {-1, +1} is copied one table group at a time), y (m,) in {-1, +1}.  ``workspace``: None, or a callable
    ``(name, shape) -> float64 array`` lending reusable buffers for the padded copy of E and the tables (the
    exact rados' blocks, :mod:`fast._exact_rados`: no fresh mmap per block in a dask worker).
    """
    m, d = E.shape
    n = sigmas.shape[0]
    D = LANES * ((d + LANES - 1) // LANES)
    total_blocks = (m + 7) // 8
    group = max(1, min(total_blocks, MAX_GROUP_BLOCKS, TABLE_GROUP_BYTES // (256 * 8 * D)))
    words = _word_view(sigmas)  # in place: no copy of the signatures
    if words is None:
        group = max(1, min(group, COPY_BUFFER_BYTES // (8 * n)))
    if workspace is None:
        Epad = np.zeros((m, D), dtype=np.float64)
        tables = np.empty((group, 256, D), dtype=np.float64)
    else:
        Epad = workspace("table_E", (m, D))
        Epad[:, d:] = 0.0
        tables = workspace("table_tables", (group, 256, D))
    Epad[:, :d] = E
    out = np.zeros((n, D), dtype=np.float64)
    row_block = ROW_BLOCK_SMALL_D if d <= 32 else ROW_BLOCK
    row_blocks = [(lo, min(n, lo + row_block)) for lo in range(0, n, row_block)]
    bad = False
    ypad = np.ones(8 * total_blocks, dtype=np.int8)  # padding: +1 (valid), table entries zero
    ypad[:m] = y
    buffer = None if words is not None else np.empty((n, 8 * group), dtype=np.int8)
    # row blocks are handed to a pool of threads (the kernels release the GIL) as they come free: dynamic
    # scheduling, since on a loaded machine one of the threads is often descheduled.  No OpenMP region: idle
    # OpenMP threads spin, and on 2 cores they steal the CPU of the working threads (measured 1.5x at d = 10).
    workers = min(numba.get_num_threads() if n * m >= PARALLEL_MIN_WORK else 1, len(row_blocks))
    pool = _pool(workers)
    for first in range(0, total_blocks, group):
        count = min(group, total_blocks - first)
        pieces = [(lo, min(count, lo + -(-count // workers))) for lo in range(0, count, -(-count // workers))]

        def build(bounds, first=first):
            _build_tables(Epad, ypad, first, bounds[0], bounds[1], tables)

        if pool is None:
            build((0, count))
        else:
            list(pool.map(build, pieces))
        if buffer is None:
            block_words, word0 = words, 0
        else:  # this group's columns, padded with +1 to whole words
            lo, hi = 8 * first, min(m, 8 * (first + count))
            buffer[:, :hi - lo] = sigmas[:, lo:hi]
            buffer[:, hi - lo:8 * count] = 1
            block_words, word0 = buffer.view(np.uint64), first

        def rows(bounds, block_words=block_words, word0=word0, first=first, count=count):
            return _accumulate(block_words, word0, first, count, tables, out, bounds[0], bounds[1])

        with _slp_vectorize():  # a first call compiles (or loads the cache) with the SLP vectoriser on
            bad |= any(list(pool.map(rows, row_blocks) if pool is not None else map(rows, row_blocks)))
    return (out if D == d else np.ascontiguousarray(out[:, :d])), not bad


# --------------------------------------------------------------------------- support sizes


@intrinsic
def _load_word(typingctx, a, offset):
    """The little-endian uint64 made of the 8 bytes at byte ``offset`` of the data of the C-contiguous int8 array
    ``a`` (an unaligned load: rows of m bytes start anywhere; x86-64 reads unaligned words at full speed)."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        byte = builder.gep(array.data, [args[1]])
        return builder.load(builder.bitcast(byte, ir.IntType(64).as_pointer()), align=1)
    return types.uint64(a, types.intp), codegen


#: words per partial sum of :func:`support_counts` (each byte lane of the partial sum counts at most this many)
_LANE_WORDS = 255
_EVEN_BYTES = np.uint64(0x00FF00FF00FF00FF)
_SUM_LANES = np.uint64(0x0001000100010001)
_U8, _U48 = np.uint64(8), np.uint64(48)


@njit(cache=True, nogil=True)
def support_counts(sigmas, y):
    """(m_sigma per row, ok): m_sigma = #{i : sigmas[j, i] == y_i} and ok = every entry is -1 or +1, one pass over
    the C-contiguous int8 signatures (no boolean temporaries).

    SWAR, eight entries per 64-bit word (as :func:`_accumulate`): +1 is the byte 0x01, -1 the byte 0xFF, so
    sigma_i == y_i iff bit 1 of the byte sigma ^ y is 0, and ``(~(w ^ yw) >> 1) & 0x01..01`` has byte k = 1 exactly
    where entry 8g + k matches.  Those bytes add up in one word for up to _LANE_WORDS words (a byte lane holds at
    most 255), then the lanes are summed (two multiply-shift steps).  The value test is :func:`_accumulate`'s, on
    the same words.  The m mod 8 last entries of a row are counted one by one.  2-4x the former byte loop (a
    compare and an int64 add per entry: 180 vs 361 ms at n = 1e4, m = 1e5, one thread, load 4), 4-8x numpy's
    (sigmas == y).sum(axis=1)."""
    n, m = sigmas.shape
    q = m // 8
    yw = np.empty(q, dtype=np.uint64)  # the labels as words (their bytes 0x01 / 0xFF, as the signatures')
    for g in range(q):
        yw[g] = _load_word(y, 8 * g)
    counts = np.empty(n, dtype=np.int64)
    malformed = np.uint64(0)
    ones = ~np.uint64(0)
    bad = 0
    for j in range(n):
        row = j * m
        count = 0
        g0 = 0
        while g0 < q:
            g1 = min(q, g0 + _LANE_WORDS)
            lanes = np.uint64(0)
            for g in range(g0, g1):  # vectorised (AVX2: four words a step)
                w = _load_word(sigmas, row + 8 * g)
                malformed |= _malformed(w)
                ones &= w
                lanes += (~(w ^ yw[g]) >> _ONE) & _LOW_BITS
            lanes = (lanes & _EVEN_BYTES) + ((lanes >> _U8) & _EVEN_BYTES)  # four 16-bit lanes, each <= 510
            count += np.int64((lanes * _SUM_LANES) >> _U48)
            g0 = g1
        for i in range(8 * q, m):
            v = sigmas[j, i]
            count += v == y[i]
            bad |= (v != 1) & (v != -1)
        counts[j] = count
    return counts, bad == 0 and (malformed & _BITS_2_TO_7) == 0 and (ones & _LOW_BITS) == _LOW_BITS


@njit(cache=True, nogil=True)
def edge_matrix(X, y, out):
    """out = y[:, None] * X (the edge vectors e_i = y_i x_i) and True iff X is finite, in one pass over X (the
    finiteness flag is an integer OR of comparisons, which LLVM vectorises with the products).  ``out`` is
    allocated by numpy (its large allocations get huge pages: fewer page faults than numba's allocator)."""
    m, d = X.shape
    bad = 0
    for i in range(m):
        yi = np.float64(y[i])
        for k in range(d):
            v = X[i, k]
            out[i, k] = yi * v
            bad |= not (abs(v) < np.inf)
    return bad == 0


@njit(cache=True, nogil=True)
def shifted_rows(P, shift, out):
    """out[j] = P[j] - shift and True iff P is finite, one pass over P (as :func:`edge_matrix`)."""
    n, d = P.shape
    bad = 0
    for j in range(n):
        for k in range(d):
            v = P[j, k]
            out[j, k] = v - shift[k]
            bad |= not (abs(v) < np.inf)
    return bad == 0
