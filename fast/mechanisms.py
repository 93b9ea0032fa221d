"""Laplace and Gaussian mechanisms safe against floating-point attacks (fast: numba kernels)   [CKS20]

Same mechanisms, guarantees and word streams as :mod:`reference.mechanisms` (read its docstring for the
privacy statement); seeded reference and fast draws are equal, words consumed and the Generator's final state
included.  All integers stay below 2^63 by construction (the scale bounds of the reference).

Discrete Laplace: one numba kernel over a buffer of words; when the buffer runs out in the middle of a draw,
the kernel rolls that draw back and the wrapper appends the next block (64, 128, ..., 65536 words, the
reference's schedule).  Discrete Gaussian: every attempt owns four main words, so a whole block of attempts is
decided at once by a branch-free kernel (_dgauss_batch: status kept / refused / rare); a sequential pass takes
the kept ones in order and decides the rare ones (about 4%: a tie, past the five queued trials, a tail) in the
reference's order from the extra stream (_dgauss_attempt), so no attempt past the last draw is ever decided.

Speed (benchmarks/bench_privacy.py): on this machine a mispredicted branch costs about 10 ns, more than a
whole branch-free trial, so the common case of every exact test is decided without branching (_first_failure4:
A_1..A_4 of CKS20 Alg. 1 from four 16-bit digits; _trial32 / _quick_one: Bernoulli(e^-1) from 32 or 64 bits;
_successes3: three trials), and only rare cases (a tied digit, a tail) branch to the in-order functions that
mirror the reference.  Small helpers are inlined (numba calls returning (value, pos) cost up to 2.5x); the
128-bit high product is one LLVM i128 multiply.  The grids are memoised (their calibration costs ~5 ms).

Release (_release_kernel): 2^k (round(x / 2^k) + noise) is rounded exactly by one branch-free computation for every
finite x (Boldo-Melquiond's correctly rounded three-term sum with round-to-odd), so its time does not depend on the
exact value; the path depends only on the public grid exponent k (exact Fractions for k outside [-950, 1000]).  The
old kernel fell back to Fractions for ALL entries once one |x| / 2^k reached 2^61: a 20,000-cell table took 725
instead of 11 ms, which told whether one record's value had crossed that magnitude.
"""
from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic
from scipy import special

from fast._contracts.budget_ledger import calibration_float, charge_release
from fast._contracts.links import implements
from fast._contracts.words import KEY_WORDS, KeyedBlocks, WordBlocks
from fast._contracts.validation import (as_float_matrix, as_generator, check_int, check_open_unit, check_positive,
                                        check_real, scalar_of)

__all__ = [
    "LaplaceGrid",
    "GaussianGrid",
    "laplace_grid",
    "gaussian_grid",
    "laplace_mechanism",
    "gaussian_mechanism",
    "sample_discrete_laplace",
    "sample_discrete_gaussian",
    "classic_gaussian_sigma",
    "analytic_gaussian_sigma",
    "zcdp_gaussian_sigma",
    "gaussian_delta",
    "unsafe_float_laplace",
    "unsafe_float_gaussian",
]

LAPLACE_GRID_BITS = 40
GAUSSIAN_GRID_BITS = 10
MAX_SCALE = 2**51
GAUSSIAN_PROPOSAL_LIMIT = 2**31
#: the discrete Gaussian's grid variance s2 must stay below this (2 s2 t^2 < 2^50; v_max >= 126)
MAX_SIGMA2 = 2**24
GAUSSIAN_S2_BITS = 25
ONE_WORD_K = 4096
DIGIT_BITS = 16
CALIBRATIONS = ("auto", "analytic", "classic", "zcdp")


# ---------------------------------------------------------------------------------------------------------
# numba kernels: the position in the word buffer is threaded through as a local integer (pos < 0: the buffer ran
# out; the draw in progress is then rolled back by _fill).  Local positions keep the loops in registers (4x faster
# than a position held in an array).
# ---------------------------------------------------------------------------------------------------------
@intrinsic
def _mulhi(typingctx, a, b):
    """High 64 bits of the 128-bit product of two uint64 (one LLVM i128 multiply: a single mul instruction)."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(product, ir.Constant(i128, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@njit(cache=True)
def _below(buf, pos, n):
    """(uniform on {0..n-1}, new pos) by Lemire's multiply-and-reject, as the reference (n == 1: no word)."""
    if n == 1:
        return np.int64(0), pos
    size = buf.shape[0]
    if pos >= size:
        return np.int64(0), np.int64(-1)
    un = np.uint64(n)
    w = buf[pos]
    pos += 1
    low = w * un
    if low < un:
        threshold = (np.uint64(0) - un) % un
        while low < threshold:
            if pos >= size:
                return np.int64(0), np.int64(-1)
            w = buf[pos]
            pos += 1
            low = w * un
    return np.int64(_mulhi(w, un)), pos


@njit(cache=True)
def _less(buf, pos, a, b):
    """([W < a/b], pos) for a fresh uniform W, 0 <= a, 0 < b < 2^63, one word per step as the reference:
    with w * b = hi 2^64 + lo, c = a 2^64 - w b is <= 0 (hi >= a: false), >= 2^64 > b (a - hi >= 2: true),
    or 2^64 - lo (a - hi == 1), which becomes the next a."""
    ua = np.uint64(a)
    ub = np.uint64(b)
    size = buf.shape[0]
    while True:
        if ua == 0:
            return np.int64(0), pos
        if ua >= ub:
            return np.int64(1), pos
        if pos >= size:
            return np.int64(0), np.int64(-1)
        w = buf[pos]
        pos += 1
        hi = _mulhi(w, ub)
        if hi >= ua:
            return np.int64(0), pos
        if ua - hi >= np.uint64(2):
            return np.int64(1), pos
        lo = w * ub
        if lo == 0:
            return np.int64(1), pos
        ua = np.uint64(0) - lo


@njit(cache=True, inline="always")
def _digit_vs(d, a, b):
    """0 if W >= a/b surely, 1 if W < a/b surely, 2 on a tie, from W's first DIGIT_BITS = 16 bits d (0 <= a,
    0 < b < 2^60), without branching: W >= a/b surely iff d b >= a 2^16 iff floor(d b / 2^16) >= a, and
    W < a/b surely iff (d + 1) b <= a 2^16 iff floor(((d + 1) b - 1) / 2^16) < a; with b = bh 2^16 + bl,
    floor((d b + e) / 2^16) = d bh + floor((d bl + e) / 2^16) in int64 (arithmetic shift for e = -1)."""
    bh = b >> DIGIT_BITS
    bl = b & 0xFFFF
    high = d * bh
    low = d * bl
    ge = np.int64(high + (low >> DIGIT_BITS) >= a)
    le = np.int64(high + bh + ((low + bl - 1) >> DIGIT_BITS) < a)
    return le + 2 * (1 - (ge | le))


@njit(cache=True)
def _compare_digit(buf, pos, d, a, b):
    """([W < a/b], pos), W's first DIGIT_BITS bits d already read; on a tie, [W' < c/b] with c = a 2^16 - d b."""
    r = _digit_vs(d, a, b)
    if r < 2:
        return r, pos
    c = (np.uint64(a) << np.uint64(DIGIT_BITS)) - np.uint64(d) * np.uint64(b)
    return _less(buf, pos, np.int64(c), b)


@njit(cache=True, inline="always")
def _first_failure4(word, num, den):
    """K = the first k <= 4 with A_k = [W_k < num/(k den)] = 0, W_k's first 16 bits the k-th 16-bit digit of word
    from the top (5: all four are 1, the tail decides; 0: a digit ties, the in-order path decides), no branching."""
    mask = np.uint64(0xFFFF)
    r1 = _digit_vs(np.int64((word >> np.uint64(48)) & mask), num, den)
    r2 = _digit_vs(np.int64((word >> np.uint64(32)) & mask), num, 2 * den)
    r3 = _digit_vs(np.int64((word >> np.uint64(16)) & mask), num, 3 * den)
    r4 = _digit_vs(np.int64(word & mask), num, 4 * den)
    k = 1 + r1 + r1 * r2 + r1 * r2 * r3 + r1 * r2 * r3 * r4
    return k * np.int64((r1 | r2 | r3 | r4) & 2 == 0)


_FACTORIALS = np.array([math.factorial(k) for k in range(21)], dtype=np.uint64)
# W < 1/k! for sure iff w < floor(2^64/k!); w == floor(2^64/k!) ties unless k! divides 2^64 (k = 2)
_FACT_FLOOR = np.array([0, 0] + [2**64 // math.factorial(k) for k in range(2, 21)] + [0] * 13, dtype=np.uint64)
# 2^64/21! and 2^32/13! in lowest terms (both < 2^63): [W' < 2^bits/k!] past the last tabulated factorial
_TAIL64_NUM, _TAIL64_DEN = (np.int64(v) for v in Fraction(2**64, math.factorial(21)).as_integer_ratio())
_TAIL32_NUM, _TAIL32_DEN = (np.int64(v) for v in Fraction(2**32, math.factorial(13)).as_integer_ratio())
_FACT_TIES = np.array([0, 0, 0] + [1] * 18 + [1] * 13, dtype=np.int64)
_MASK32 = np.uint64(0xFFFFFFFF)
_FACT32_LAST = 12  # 12! < 2^32 < 13!
# W < 1/k! surely iff x < floor(2^32/k!) (x: W's first 32 bits); x == floor(2^32/k!) ties for k >= 3 (k! does not divide 2^32)
_FACT32_FLOOR = np.array([0, 0] + [2**32 // math.factorial(k) for k in range(2, 13)] + [0], dtype=np.uint64)


@njit(cache=True)
def _quick_one(w):
    """K = min{k : W >= 1/k!} from W's first word w by a branch-free binary search over the decreasing
    floor(2^64/k!), k = 2..20, and 1 when w ties at K or W < 1/20! (then _bexp_one_from decides)."""
    c = np.int64(0)
    for step in (16, 8, 4, 2, 1):
        c += step * np.int64(w < _FACT_FLOOR[1 + c + step])
    kk = 2 + c
    irregular = (kk == 21) | ((w == _FACT_FLOOR[kk]) & (_FACT_TIES[kk] == 1))
    return kk, np.int64(irregular)


@njit(cache=True)
def _successes3(w1, w2, w3):
    """Leading Bernoulli(e^-1) successes among three trials from their first words (3: all succeed, the tail
    decides; -1: a word is irregular, the in-order path decides), without branching."""
    k1, irr1 = _quick_one(w1)
    k2, irr2 = _quick_one(w2)
    k3, irr3 = _quick_one(w3)
    b1 = k1 & 1
    b2 = k2 & 1
    v = b1 + b1 * b2 + b1 * b2 * (k3 & 1)
    return v - (v + 1) * np.int64((irr1 | irr2 | irr3) != 0)


@njit(cache=True)
def _bexp_one_from(buf, pos, w, bits):
    """(Bernoulli(e^-1), pos) = [K odd], K = min{k : W >= 1/k!}, w = W's first ``bits`` (64 or 32) bits   [CKS20
    Alg. 1, gamma = 1; the reference's _bernoulli_exp_one(w, bits)]: with w f = hi 2^bits + lo, W >= 1/k! surely
    if hi > 0, W < 1/k! surely if lo <= 2^bits - f, else [W' < (2^bits - lo)/f] decides (a tie)."""
    last = np.int64(20) if bits == 64 else np.int64(_FACT32_LAST)
    k = np.int64(2)
    while k <= last:
        f = _FACTORIALS[k]
        if bits == 64:
            hi, lo, top_minus_f = _mulhi(w, f), w * f, np.uint64(0) - f
        else:
            p = w * f  # < 2^64: w < 2^32, f <= 12!
            hi, lo, top_minus_f = p >> np.uint64(32), p & _MASK32, np.uint64(2**32) - f
        if hi != 0:
            return k & 1, pos
        if lo <= top_minus_f:
            k += 1
            continue
        rest = (np.uint64(0) - lo) if bits == 64 else (np.uint64(2**32) - lo)
        below, pos = _less(buf, pos, np.int64(rest), np.int64(f))
        if pos < 0:
            return np.int64(0), pos
        return (k + below) & 1, pos
    if bits == 64:
        return _bexp_one_past(buf, pos, w, k, _TAIL64_NUM, _TAIL64_DEN)
    return _bexp_one_past(buf, pos, w, k, _TAIL32_NUM, _TAIL32_DEN)


@njit(cache=True)
def _bexp_one_past(buf, pos, w, k, num, den):
    """(Bernoulli(e^-1), pos) once W < 1/(k-1)! and k! > 2^bits (w: W's first bits, num/den = 2^bits/k! reduced),
    as the reference: W < 1/k! only if w == 0 and [W' < 2^bits/k!]; then A_{k+1}, A_{k+2}, ... ~ Bernoulli(1/j)."""
    if w != 0:
        return k & 1, pos
    a, pos = _less(buf, pos, num, den)
    if pos < 0:
        return np.int64(0), pos
    while a == 1:
        k += 1
        a, pos = _less(buf, pos, np.int64(1), k)
        if pos < 0:
            return np.int64(0), pos
    return k & 1, pos


@njit(cache=True)
def _bexp_one(buf, pos):
    """(Bernoulli(e^-1), pos) from a fresh word: decided without branching (_quick_one) unless the word is
    irregular (then in order, _bexp_one_from); a mispredicted branch costs more than the whole trial."""
    if pos >= buf.shape[0]:
        return np.int64(0), np.int64(-1)
    w = buf[pos]
    k, irregular = _quick_one(w)
    if irregular:
        return _bexp_one_from(buf, pos + 1, w, 64)
    return k & 1, pos + 1


@njit(cache=True, inline="always")
def _bexp_fraction(buf, pos, num, den):
    """(Bernoulli(exp(-num/den)), pos), 0 <= num <= den <= 2^51   [CKS20 Alg. 1]: A_1..A_4 from the four 16-bit
    digits of one word (decided without branching unless a digit ties), A_k = [W_k < num/(k den)] one word each after."""
    if pos >= buf.shape[0]:
        return np.int64(0), np.int64(-1)
    return _bexp_fraction_word(buf, pos + 1, num, den, buf[pos])


@njit(cache=True)
def _bexp_fraction_word(buf, pos, num, den, word):
    """_bexp_fraction with its word of four digits already read."""
    k = _first_failure4(word, num, den)
    if k == 0:
        return _bexp_fraction_slow(buf, pos, num, den, word)
    if k == 5:
        return _bexp_fraction_tail(buf, pos, num, den, np.int64(5))
    return k & 1, pos


@njit(cache=True)
def _bexp_fraction_slow(buf, pos, num, den, word):
    """The same as _bexp_fraction when a digit of its word ties: A_1..A_4 in order, as the reference."""
    for k in range(1, 5):
        d = np.int64((word >> np.uint64(64 - DIGIT_BITS * k)) & np.uint64(0xFFFF))
        a, pos = _compare_digit(buf, pos, d, num, k * den)
        if pos < 0:
            return np.int64(0), pos
        if a == 0:
            return np.int64(k & 1), pos
    return _bexp_fraction_tail(buf, pos, num, den, np.int64(5))


@njit(cache=True)
def _bexp_fraction_tail(buf, pos, num, den, k):
    """(Bernoulli(exp(-num/den)), pos) once A_1 .. A_{k-1} are 1: A_k, A_{k+1}, ... one word each."""
    while True:
        if k < ONE_WORD_K:
            a, pos = _less(buf, pos, num, k * den)
        else:
            a, pos = _less(buf, pos, np.int64(1), k)
            if pos >= 0 and a == 1:
                a, pos = _less(buf, pos, num, den)
        if pos < 0 or a == 0:
            break
        k += 1
    return k & 1, pos


@njit(cache=True)
def _geometric_e(buf, pos):
    """(V, pos), P(V >= v) = e^-v: successes of Bernoulli(e^-1) before the first failure; the first three trials
    from three words read up front (decided without branching unless a word is irregular or all three succeed)."""
    if pos + 3 > buf.shape[0]:
        return np.int64(0), np.int64(-1)
    w1, w2, w3 = buf[pos], buf[pos + 1], buf[pos + 2]
    v = _successes3(w1, w2, w3)
    if v < 0:
        return _geometric_e_slow(buf, pos + 3, w1, w2, w3)
    if v == 3:
        return _geometric_e_tail(buf, pos + 3, np.int64(3))
    return v, pos + 3


@njit(cache=True)
def _geometric_e_slow(buf, pos, w1, w2, w3):
    """The same as _geometric_e when one of its three words is irregular: trials in order, as the reference."""
    b, pos = _bexp_one_from(buf, pos, w1, 64)
    if pos < 0 or b == 0:
        return np.int64(0), pos
    b, pos = _bexp_one_from(buf, pos, w2, 64)
    if pos < 0 or b == 0:
        return np.int64(1), pos
    b, pos = _bexp_one_from(buf, pos, w3, 64)
    if pos < 0 or b == 0:
        return np.int64(2), pos
    return _geometric_e_tail(buf, pos, np.int64(3))


@njit(cache=True)
def _geometric_e_tail(buf, pos, v):
    while True:
        a, pos = _bexp_one(buf, pos)
        if pos < 0 or a == 0:
            return v, pos
        v += 1


@njit(cache=True)
def _dlap(buf, pos, t, v_max):
    """(Z ~ DLap(t), pos)   [CKS20 Alg. 2, s = 1]; sign and U from one uniform on [0, 2t); V > v_max redrawn.

    The dispatch of _bexp_fraction(u, t) and _geometric_e is written out here: one function body keeps the loop
    in registers (numba's calls returning (value, pos) cost 2.5x); the rare paths (a tied or irregular word, A_4,
    V >= 3) call the shared functions."""
    size = buf.shape[0]
    while True:
        s, pos = _below(buf, pos, 2 * t)
        if pos < 0 or pos >= size:
            return np.int64(0), np.int64(-1)
        u = s >> 1
        b = s & 1
        word = buf[pos]
        pos += 1
        k = _first_failure4(word, u, t)
        if k == 0:
            d, pos = _bexp_fraction_slow(buf, pos, u, t, word)
        elif k == 5:
            d, pos = _bexp_fraction_tail(buf, pos, u, t, np.int64(5))
        else:
            d = k & 1
        if pos < 0 or pos + 3 > size:
            return np.int64(0), np.int64(-1)
        if d == 0:
            continue
        w1, w2, w3 = buf[pos], buf[pos + 1], buf[pos + 2]
        pos += 3
        v = _successes3(w1, w2, w3)
        if v < 0:
            v, pos = _geometric_e_slow(buf, pos, w1, w2, w3)
        elif v == 3:
            v, pos = _geometric_e_tail(buf, pos, np.int64(3))
        if pos < 0:
            return np.int64(0), pos
        if v > v_max:
            continue
        x = u + t * v
        if b == 1 and x == 0:
            continue
        return (1 - 2 * b) * x, pos


@njit(cache=True, inline="always")
def _below32(buf, pos, x, n):
    """(uniform on {0..n-1}, pos) from 32 uniform bits x (Lemire, n < 2^31); a fresh _below when x is refused."""
    un = np.uint64(n)
    product = x * un
    low = product & _MASK32
    if low < un and low < (np.uint64(2**32) - un) % un:
        return _below(buf, pos, n)
    return np.int64(product >> np.uint64(32)), pos




@njit(cache=True, inline="always")
def _trial32(x):
    """(Bernoulli(e^-1) from W's first 32 bits x, irregular) without branching: K = min{k : W >= 1/k!} =
    2 + #{k in 2..12 : x < floor(2^32/k!)} (decreasing thresholds), success = K odd; irregular (1) when x ties at
    K or K = 13 (W < 1/12!): then _bexp_one_from(.., 32) decides in order."""
    c = np.int64(0)
    for k in range(2, _FACT32_LAST + 1):
        c += np.int64(x < _FACT32_FLOOR[k])
    k = 2 + c
    irregular = np.int64(k > _FACT32_LAST) | (np.int64(x == _FACT32_FLOOR[k]) & np.int64(k >= 3))
    return k & 1, irregular


@njit(cache=True, inline="always")
def _queue_half(w0, w1, w3, i):
    """The i-th 32-bit uniform of an attempt's queue: w0 low, w1 high, w1 low, w3 high, w3 low (as the reference)."""
    if i == 0:
        return w0 & _MASK32
    if i == 1:
        return w1 >> np.uint64(32)
    if i == 2:
        return w1 & _MASK32
    if i == 3:
        return w3 >> np.uint64(32)
    return w3 & _MASK32


@njit(cache=True)
def _leading_successes(ext, epos, w0, w1, w3, q, limit):
    """(leading Bernoulli(e^-1) successes, at most limit (-1: none), q, epos): trials from the queue halves q, q+1,
    ..., 4, then a fresh ext word each, as the reference's _leading_successes."""
    count = np.int64(0)
    while limit < 0 or count < limit:
        if q < 5:
            h = _queue_half(w0, w1, w3, q)
            q += 1
            ok, irregular = _trial32(h)
            if irregular:
                ok, epos = _bexp_one_from(ext, epos, h, 32)
        else:
            ok, epos = _bexp_one(ext, epos)
        if epos < 0:
            return np.int64(0), q, epos
        if ok == 0:
            break
        count += 1
    return count, q, epos


@njit(cache=True, inline="always")
def _queue_trials(w0, w1, w3):
    """The five queued Bernoulli(e^-1) trials of an attempt (w0 low, w1 high, w1 low, w3 high, w3 low), each from its
    32 bits without branching: (a0, a1, a2, a3, a4, irregular), irregular = 1 if any of them ties (_trial32)."""
    a0, i0 = _trial32(w0 & _MASK32)
    a1, i1 = _trial32(w1 >> np.uint64(32))
    a2, i2 = _trial32(w1 & _MASK32)
    a3, i3 = _trial32(w3 >> np.uint64(32))
    a4, i4 = _trial32(w3 & _MASK32)
    return a0, a1, a2, a3, a4, i0 | i1 | i2 | i3 | i4


@njit(cache=True, inline="always")
def _queue_whole(a1, a2, a3, a4, q, whole):
    """The whole part's trials on regular queue entries q, q+1, ... (q = V + 1 after V's failure): (running, past),
    running = 1 if every required entry up to the end of the queue succeeds, past = trials still owed beyond the
    queue (a fresh word each); no branching."""
    last = q + whole - 1  # the whole part's trials are entries q .. last (none when whole == 0)
    running = np.int64(1)
    running &= a1 | np.int64(q > 1) | np.int64(last < 1)
    running &= a2 | np.int64(q > 2) | np.int64(last < 2)
    running &= a3 | np.int64(q > 3) | np.int64(last < 3)
    running &= a4 | np.int64(q > 4) | np.int64(last < 4)
    return running, max(last - max(q - 1, 4), 0)


@njit(cache=True)
def _dgauss_attempt(w0, w1, w2, w3, ext, epos, s2, t, v_max):
    """(status, y, epos) of one attempt in the order of the reference (status 1 kept, 0 refused; epos < 0: ext ran
    out); the rare attempts of _dgauss_batch (a refused Lemire draw, a tie, past the queue, a tail) are decided here."""
    s, epos = _below32(ext, epos, w0 >> np.uint64(32), 2 * t)
    if epos < 0:
        return np.int64(0), np.int64(0), epos
    u = s >> 1
    b = s & 1
    a0, a1, a2, a3, a4, irregular = _queue_trials(w0, w1, w3)
    regular = irregular == 0  # no queued uniform ties: the queue decides its trials without an ext word
    if regular:
        v = a0 + (a0 & a1) + (a0 & a1 & a2) + (a0 & a1 & a2 & a3) + (a0 & a1 & a2 & a3 & a4)
        q = v + 1
        if v == 5:
            v, epos = _geometric_e_tail(ext, epos, np.int64(5))
    else:
        v, q, epos = _leading_successes(ext, epos, w0, w1, w3, np.int64(0), np.int64(-1))
    if epos < 0 or v > v_max:
        return np.int64(0), np.int64(0), epos
    x = u + t * v
    if b == 1 and x == 0:
        return np.int64(0), np.int64(0), epos
    c = x * t - s2
    den = 2 * s2 * t * t
    num = 2 * s2 * t * u + c * c
    whole = num // den
    if regular and whole > 0:
        running, past = _queue_whole(a1, a2, a3, a4, q, whole)
        if running == 0:
            return np.int64(0), np.int64(0), epos
        for _ in range(past):
            ok, epos = _bexp_one(ext, epos)
            if epos < 0 or ok == 0:
                return np.int64(0), np.int64(0), epos
    elif whole > 0:
        got, q, epos = _leading_successes(ext, epos, w0, w1, w3, q, whole)
        if epos < 0 or got < whole:
            return np.int64(0), np.int64(0), epos
    a, epos = _bexp_fraction_word(ext, epos, num - whole * den, den, w2)
    if epos < 0:
        return np.int64(0), np.int64(0), epos
    return a, (1 - 2 * b) * x, epos


@njit(cache=True)
def _dgauss_batch(main, status, value, s2, t):
    """status[j] (1 kept, 0 refused, 2 rare: decide with _dgauss_attempt) and value[j] of the attempt on main words
    4j..4j+3, all without branching: the reference's steps when no uniform ties, Lemire keeps its draw, the five
    queued trials suffice (V + 1 + whole <= 5 or a whole trial fails) and A_1..A_4 decide the fraction test."""
    n = np.uint64(2 * t)
    lemire_cut = (np.uint64(2**32) - n) % n
    den = 2 * s2 * t * t
    for j in range(status.shape[0]):
        w0 = main[4 * j]
        w1 = main[4 * j + 1]
        w2 = main[4 * j + 2]
        w3 = main[4 * j + 3]
        product = (w0 >> np.uint64(32)) * n
        low = product & _MASK32
        rare = np.int64(low < n) & np.int64(low < lemire_cut)
        s = np.int64(product >> np.uint64(32))
        u = s >> 1
        b = s & 1
        a0, a1, a2, a3, a4, irregular = _queue_trials(w0, w1, w3)
        v = a0 + (a0 & a1) + (a0 & a1 & a2) + (a0 & a1 & a2 & a3) + (a0 & a1 & a2 & a3 & a4)
        rare |= irregular | np.int64(v == 5)  # 5: the queue ran out within V
        x = u + t * v
        c = x * t - s2
        num = 2 * s2 * t * u + c * c
        whole = num // den
        running, past = _queue_whole(a1, a2, a3, a4, v + 1, whole)
        rare |= running & np.int64(past > 0)
        k = _first_failure4(w2, num - whole * den, den)
        rare |= np.int64(k == 0) | np.int64(k == 5)
        kept = running & k & 1 & (1 - (b & np.int64(x == 0)))
        status[j] = 2 * rare + (1 - rare) * kept
        value[j] = (1 - 2 * b) * x


@njit(cache=True)
def _dgauss_collect(main, status, value, j, ext, epos, out, i, s2, t, v_max):
    """Take the kept attempts from j on into out[i:], deciding rare ones in order with ext; returns
    (j, i, epos, ext_ran_out): stops when out is full, main's attempts are used up, or ext runs out (then the
    rare attempt j is retried once ext is refilled)."""
    while j < status.shape[0] and i < out.shape[0]:
        st = status[j]
        y = value[j]
        if st == 2:
            st, y, e2 = _dgauss_attempt(main[4 * j], main[4 * j + 1], main[4 * j + 2], main[4 * j + 3], ext, epos,
                                        s2, t, v_max)
            if e2 < 0:
                return j, i, epos, True
            epos = e2
        out[i] = y  # written always, kept only if st == 1 (no branch on the coin flip of acceptance)
        i += st
        j += 1
    return j, i, epos, False


def _draw_gaussian(n: int, rng, s2: int, t: int, v_max: int) -> np.ndarray:
    """n draws of N_Z(0, s2): the main words in batches of attempts (a block at a time, as the reference reads
    them), the extra words (keyed by the first KEY_WORDS main words) refilled when a rare attempt runs out."""
    blocks = WordBlocks(rng)
    main = blocks.next_block()
    extra = KeyedBlocks(main[:KEY_WORDS])
    main = main[KEY_WORDS:]
    ext = np.empty(0, dtype=np.uint64)
    epos = 0
    out = np.empty(n, dtype=np.int64)
    i = 0
    while i < n:
        attempts = main.shape[0] // 4
        status = np.empty(attempts, dtype=np.int64)
        value = np.empty(attempts, dtype=np.int64)
        _dgauss_batch(main, status, value, s2, t)
        j = 0
        while True:
            j, i, epos, ran_out = _dgauss_collect(main, status, value, j, ext, np.int64(epos), out, i, s2, t, v_max)
            if not ran_out:
                break
            ext = np.concatenate([ext[epos:], extra.next_block()])
            epos = 0
        if i < n:
            main = blocks.next_block()
    return out


# ---------------------------------------------------------------------------------------------------------
# the exact discrete Gaussian at any rational variance (big integers)
# ---------------------------------------------------------------------------------------------------------
#: at most this variance the draws are int64 (|Y| >= 2^62 is redrawn: total variation < 2 exp(-2^23)); above it they
#: are Python ints (object arrays), with no truncation at all
INT64_SIGMA2 = 2**100
#: |Y| of an int64 draw stays below this (so the release kernel's noise bound |n| < 2^62 holds)
INT64_NOISE_BOUND = 2**62


def _big_below(words, n: int) -> int:
    """Uniform on {0, ..., n-1} for any n >= 1 by Lemire's multiply-and-reject on L = 64 ceil(bits(n) / 64) bits
    (L / 64 words, the most significant first): x n = hi 2^L + lo, redrawn while lo < (2^L - n) mod n; for n < 2^64
    this is ``_below`` word for word."""
    if n == 1:
        return 0
    count = (n.bit_length() + 63) // 64
    bits = 64 * count
    mask = (1 << bits) - 1
    threshold = None
    while True:
        x = 0
        for _ in range(count):
            x = (x << 64) | words.next()
        product = x * n
        low = product & mask
        if low >= n:
            return product >> bits
        if threshold is None:
            threshold = ((1 << bits) - n) % n
        if low >= threshold:
            return product >> bits


def _big_less(words, a: int, b: int) -> int:
    """[W < a/b] for a fresh uniform W read word by word, any integers a >= 0, b > 0 (``_less`` without its size
    bound): with the next word w, W < a/b iff W' < (a 2^64 - w b)/b for the uniform rest W'; a further word is
    needed only when 0 < a 2^64 - w b < b, which one value of w at most allows (probability <= 2^-64)."""
    while True:
        if a <= 0:
            return 0
        if a >= b:
            return 1
        a = (a << 64) - words.next() * b


def _big_bernoulli_exp_fraction(words, num: int, den: int) -> int:
    """Bernoulli(exp(-num/den)), 0 <= num <= den   [CKS20 Algorithm 1]: K = the first k with A_k = 0, A_k ~
    Bernoulli(gamma / k) = [W_k < num / (k den)]; returns [K odd]."""
    k = 1
    while _big_less(words, num, k * den):
        k += 1
    return k & 1


def _big_bernoulli_exp(words, num: int, den: int) -> int:
    """Bernoulli(exp(-num/den)) for any num >= 0, den > 0   [CKS20 Algorithm 1, gamma > 1]: floor(gamma) trials of
    Bernoulli(e^-1), then Bernoulli(exp(-(gamma - floor(gamma))))."""
    while num > den:
        if not _big_bernoulli_exp_fraction(words, 1, 1):
            return 0
        num -= den
    return _big_bernoulli_exp_fraction(words, num, den)


def _big_discrete_laplace(words, t: int) -> int:
    """Z ~ DLap(t), any integer t >= 1   [CKS20 Algorithm 2, s = 1]: S uniform on [0, 2t) gives U = S // 2 and the
    sign B = S mod 2; U kept with probability exp(-U/t); V = the Bernoulli(e^-1) successes before the first failure;
    X = U + t V; B = 1, X = 0 refused."""
    while True:
        s = _big_below(words, 2 * t)
        u, b = s >> 1, s & 1
        if not _big_bernoulli_exp_fraction(words, u, t):
            continue
        v = 0
        while _big_bernoulli_exp_fraction(words, 1, 1):
            v += 1
        x = u + t * v
        if b == 1 and x == 0:
            continue
        return x if b == 0 else -x


def _big_discrete_gaussian(words, p: int, q: int, t: int, bound) -> int:
    """Y ~ N_Z(0, p/q)   [CKS20 Algorithm 3, sigma^2 = p/q rational, t = floor(sigma) + 1]: Y ~ DLap(t) kept with
    probability exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|Y| q t - p)^2 / (2 p q t^2)); every step an exact
    comparison of integers.  ``bound`` (int64 draws): |Y| >= bound is redrawn."""
    den = 2 * p * q * t * t
    while True:
        y = _big_discrete_laplace(words, t)
        c = abs(y) * q * t - p
        if _big_bernoulli_exp(words, c * c, den) and (bound is None or abs(y) < bound):
            return y


class _Words:
    """The words of ``spec.words.WordBlocks(rng)`` one at a time as Python ints, in the reference's blocks."""

    __slots__ = ("blocks", "buffer", "pos")

    def __init__(self, rng):
        self.blocks = WordBlocks(rng)
        self.buffer: list[int] = []
        self.pos = 0

    def next(self) -> int:
        if self.pos == len(self.buffer):
            self.buffer = self.blocks.next_block().tolist()
            self.pos = 0
        word = self.buffer[self.pos]
        self.pos += 1
        return word


def _exact_gaussian_draws(p: int, q: int, n: int, rng) -> list:
    """n draws of N_Z(0, p/q) by the big-integer sampler from the word stream of ``rng`` (``spec.words``; OS entropy
    for None), the reference's code and words (Python integers: numba has none beyond 64 bits); int64-bounded
    (|Y| < 2^62) when p/q <= INT64_SIGMA2."""
    words = _Words(rng)
    t = math.isqrt(p // q) + 1
    bound = INT64_NOISE_BOUND if p <= INT64_SIGMA2 * q else None
    return [_big_discrete_gaussian(words, p, q, t, bound) for _ in range(n)]


def _check_sigma2(sigma2) -> tuple[int, int]:
    """sigma2 as (p, q) in lowest terms: an integer >= 1 (the integer rule of ``check_int``, floats refused) or a
    positive Fraction."""
    number = scalar_of(sigma2)
    if isinstance(number, Fraction):
        if not number > 0:
            raise ValueError(f"sigma2 must be a positive rational, got {number}")
        return number.numerator, number.denominator
    return check_int(sigma2, "sigma2", minimum=1), 1


def _fast_path(p: int, q: int) -> bool:
    """The word-batched sampler of integer variances up to MAX_SIGMA2 (a function of sigma2 alone: public)."""
    return q == 1 and p <= MAX_SIGMA2


@njit(cache=True)
def _fill(buf, pos, out, start, t, v_max):
    """Draw DLap(t) into out[start:]; returns (next index, pos), rolling back the draw in progress when buf runs out."""
    i = start
    while i < out.shape[0]:
        p0 = pos
        v, pos = _dlap(buf, pos, t, v_max)
        if pos < 0:
            return i, p0
        out[i] = v
        i += 1
    return i, pos


def _draw_laplace(n: int, rng, t: int, v_max: int) -> np.ndarray:
    blocks = WordBlocks(rng)
    buf = np.empty(0, dtype=np.uint64)
    pos = 0
    out = np.empty(n, dtype=np.int64)
    i = 0
    while True:
        i, pos = _fill(buf, np.int64(pos), out, i, t, v_max)
        if i == n:
            return out
        buf = np.concatenate([buf[pos:], blocks.next_block()])
        pos = 0


def _laplace_v_max(t: int) -> int:
    return (2**62) // t - 1


def _gaussian_t_vmax(s2: int) -> tuple[int, int]:
    t = math.isqrt(s2) + 1
    return t, GAUSSIAN_PROPOSAL_LIMIT // (t * t) - 1


def _size(size):
    return None if size is None else check_int(size, "size", minimum=0)


def sample_discrete_laplace(scale, size=None, rng=None):
    """Z ~ DLap(scale), integer scale in [1, 2^51]   [CKS20 Alg. 2]; a Python int (size None) or int64 array.

    Parameters
    ----------
    scale : int
        The scale t, an integer in [1, 2**51].
    size : int, optional
        Number of draws; None returns one Python int.
    rng : None or numpy.random.Generator, optional
        Source of random words (None: OS entropy).

    Returns
    -------
    int or numpy.ndarray
        One draw, or an int64 array of ``size`` draws.

    Raises
    ------
    ValueError
        If ``scale`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.mechanisms import sample_discrete_laplace
    >>> z = sample_discrete_laplace(3, size=4, rng=np.random.default_rng(0))
    >>> z.shape, z.dtype
    ((4,), dtype('int64'))
    """
    t = check_int(scale, "scale", minimum=1, maximum=MAX_SCALE)
    n = _size(size)
    out = _draw_laplace(1 if n is None else n, rng, t, _laplace_v_max(t))
    return int(out[0]) if n is None else out


def sample_discrete_gaussian(sigma2, size=None, rng=None):
    """Y ~ N_Z(0, sigma2), any rational sigma2 > 0   [CKS20 Alg. 3]; a Python int (size None) or an array.

    As :func:`reference.mechanisms.sample_discrete_gaussian` (the same words): an integer sigma2 <= 2^24 takes the
    word-batched numba sampler, any other sigma2 (a larger integer, a Fraction) CKS20 Algorithms 1-3 on Python
    integers; the choice depends on sigma2 alone (public).  Draws are int64 up to sigma2 = 2^100 (|Y| >= 2^62
    redrawn), Python ints (object array) above.

    Parameters
    ----------
    sigma2 : int or fractions.Fraction
        The variance parameter: an integer >= 1 or a positive Fraction.
    size : int, optional
        Number of draws; None returns one Python int.
    rng : None or numpy.random.Generator, optional
        Source of random words (None: OS entropy).

    Returns
    -------
    int or numpy.ndarray
        One draw, or an array of ``size`` draws (int64; object for sigma2 > 2^100).

    Raises
    ------
    ValueError
        If ``sigma2`` is not positive.
    TypeError
        If ``sigma2`` is neither an integer nor a Fraction.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.mechanisms import sample_discrete_gaussian
    >>> sample_discrete_gaussian(4, size=5, rng=np.random.default_rng(0)).shape
    (5,)
    >>> sample_discrete_gaussian(2**40, size=3, rng=np.random.default_rng(0)).dtype
    dtype('int64')
    """
    p, q = _check_sigma2(sigma2)
    n = _size(size)
    count = 1 if n is None else n
    if _fast_path(p, q):
        t, v_max = _gaussian_t_vmax(p)
        out = _draw_gaussian(count, rng, p, t, v_max)
        return int(out[0]) if n is None else out
    draws = _exact_gaussian_draws(p, q, count, rng)
    if n is None:
        return draws[0]
    return np.array(draws, dtype=np.int64 if p <= INT64_SIGMA2 * q else object)


# ---------------------------------------------------------------------------------------------------------
# grids and calibration (exact integer / Fraction arithmetic, as the reference)
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LaplaceGrid:
    """Calibration of the discrete Laplace mechanism (returned by :func:`laplace_grid`).

    Parameters
    ----------
    k : int
        Grid exponent: outputs are multiples of ``2**k``.
    granularity : float
        The grid step ``2**k``.
    integer_sensitivity : int
        Sensitivity in grid units, ``floor(sensitivity / 2**k) + dimension``.
    scale : int
        Discrete Laplace scale ``t = ceil(integer_sensitivity / epsilon)``.
    epsilon_effective : float
        The delivered epsilon ``integer_sensitivity / scale`` (at most the requested one).
    truncation_delta : float
        Probability mass lost to the bounded sampler (a delta, about 1e-323).

    Examples
    --------
    >>> from fast.mechanisms import laplace_grid
    >>> grid = laplace_grid(1.0, 1.0)
    >>> grid.k, grid.epsilon_effective <= 1.0
    (-40, True)
    """
    k: int
    granularity: float
    integer_sensitivity: int
    scale: int
    epsilon_effective: float
    truncation_delta: float


@dataclass(frozen=True)
class GaussianGrid:
    """Calibration of the discrete Gaussian mechanism (returned by :func:`gaussian_grid`).

    Parameters
    ----------
    k : int
        Grid exponent: outputs are multiples of ``2**k``.
    granularity : float
        The grid step ``2**k``.
    sensitivity_inflated : float
        L2 sensitivity inflated by the rounding to the grid.
    sigma : float
        Standard deviation calibrated for ``sensitivity_inflated``.
    sigma2_grid : int
        Variance in grid units, ``ceil((sigma / 2**k)**2)``.
    rho : float
        zCDP parameter of the delivered noise.
    calibration : str
        The calibration used: ``"zcdp"``, ``"analytic"`` or ``"classic"``.

    Examples
    --------
    >>> from fast.mechanisms import gaussian_grid
    >>> grid = gaussian_grid(1.0, 1.0, 1e-5)
    >>> grid.calibration, grid.k
    ('zcdp', -8)
    """
    k: int
    granularity: float
    sensitivity_inflated: float
    sigma: float
    sigma2_grid: int
    rho: float
    calibration: str


def _float_up(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)

def _sensitivity_grid_exponent(delta_s: float, d: int) -> int:
    """The largest k with 2^k sqrt(d) <= Delta 2^-GAUSSIAN_GRID_BITS, exactly (4^k d <= Delta^2 2^-20; as the
    reference)."""
    q = Fraction(delta_s) ** 2 / (d * 2 ** (2 * GAUSSIAN_GRID_BITS))
    floor_log2 = q.numerator.bit_length() - q.denominator.bit_length()  # 2^(L-1) < q < 2^(L+1)
    floor_log2 -= 1 if Fraction(2) ** floor_log2 > q else 0
    return floor_log2 // 2


def _s2_up(s2: int) -> int:
    """s2 rounded UP to GAUSSIAN_S2_BITS significant bits (as the reference)."""
    shift = s2.bit_length() - GAUSSIAN_S2_BITS
    return s2 if shift <= 0 else -(-s2 >> shift) << shift


def _grid_on(k: int, delta_s: float, d: int, calibrate, eps: float, dl: float) -> tuple[float, float, int]:
    """(Delta', sigma(Delta'), s2) on the grid 2^k, as the reference."""
    lam = Fraction(2) ** k
    if d == 1:
        inflated = _float_up((math.floor(Fraction(delta_s) / lam) + 1) * lam)
    else:
        inflated = math.nextafter(delta_s + float(lam) * math.sqrt(d) * (1 + 2**-50), math.inf)
    sigma = calibrate(inflated, eps, dl)
    return inflated, sigma, _s2_up(math.ceil((Fraction(sigma) / lam) ** 2))

def _finite_sigma(sigma: float) -> float:
    """sigma itself, or a ValueError from 2^1020 on (2 sigma and the profile's arguments would overflow)."""
    if not sigma < 2.0**1020:
        raise ValueError("sigma overflows the float range: sensitivity / epsilon too large for a Gaussian mechanism")
    return sigma


def _pow2(k: int) -> float:
    return math.inf if k > 1023 else math.ldexp(1.0, k)


@implements("nock2015.eq15")
def laplace_grid(sensitivity, epsilon, *, dimension=1) -> LaplaceGrid:
    """Lambda = 2^ceil(log2(b / 2^40)); D = floor(sensitivity/Lambda) + d; t = ceil(D/epsilon)   [CKS20; Google]

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity (> 0) of the released value.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    dimension : int, default=1
        Number of released coordinates (each rounding may add one grid unit).

    Returns
    -------
    LaplaceGrid
        The grid exponent, integer sensitivity and discrete Laplace scale.

    Raises
    ------
    ValueError
        If ``sensitivity`` or ``epsilon`` is not positive and finite, or the scale exceeds ``2**51``.

    Examples
    --------
    >>> from fast.mechanisms import laplace_grid
    >>> g = laplace_grid(1.0, 1.0)
    >>> g.granularity == 2.0 ** g.k, g.scale == g.integer_sensitivity
    (True, True)
    """
    sens = float(check_positive(sensitivity, "sensitivity"))
    eps = float(check_positive(epsilon, "epsilon"))
    if eps < 2.0**-50:
        raise ValueError(f"epsilon must be >= 2^-50 for the discrete Laplace sampler, got {eps}")
    return _laplace_grid(sens, eps, int(check_int(dimension, "dimension", minimum=1)))


@functools.lru_cache(maxsize=1024)
def _laplace_grid(sens: float, eps: float, d: int) -> LaplaceGrid:
    """laplace_grid on validated arguments, memoised (exact Fraction arithmetic, ~30 us: most of a scalar release)."""
    delta_q, eps_q = Fraction(sens), Fraction(eps)
    b = delta_q / eps_q / 2**LAPLACE_GRID_BITS
    k = b.numerator.bit_length() - b.denominator.bit_length()  # 2^(k-1) < b <= 2^(k+1)
    k += 1 if Fraction(2) ** k < b else 0
    k -= 1 if Fraction(2) ** (k - 1) >= b else 0
    lam = Fraction(2) ** k
    d_int = math.floor(delta_q / lam) + d  # sum_i |round(x_i) - round(x'_i)| <= ||x - x'||_1 / Lambda + d
    t = math.ceil(d_int / eps_q)
    if t > MAX_SCALE:
        raise ValueError(f"epsilon too small for dimension {d}: noise scale {t} grid units exceeds 2^51")
    return LaplaceGrid(k=k, granularity=_pow2(k), integer_sensitivity=d_int, scale=t,
                       epsilon_effective=_float_up(Fraction(d_int, t)),
                       truncation_delta=2.0 * math.exp(-min(_laplace_v_max(t), 745)))


@implements("bun2020.lemma16")
def gaussian_grid(sensitivity, epsilon, delta, *, dimension=1, calibration="auto") -> GaussianGrid:
    """Lambda = 2^(floor(log2 sigma0) - 10); Delta' inflated by the rounding; s2 = ceil((sigma(Delta')/Lambda)^2)   [CKS20]

    As :func:`reference.mechanisms.gaussian_grid`: where that s2 exceeds 2^24 (sigma0 / Delta above about 2^12),
    Lambda is the largest power of two with Lambda sqrt(d) <= Delta 2^-10 instead, and s2 (above 2^38) is drawn by
    the big-integer sampler; which rule applies depends on the public arguments alone.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0) of the released value.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    delta : float or Fraction
        Privacy parameter in (0, 1).
    dimension : int, default=1
        Number of released coordinates (the rounding inflates the L2 sensitivity).
    calibration : {"auto", "zcdp", "analytic", "classic"}, default="auto"
        How sigma is calibrated (``"auto"``: the smallest safe sigma).

    Returns
    -------
    GaussianGrid
        The grid exponent, inflated sensitivity, sigma, integer variance and rho.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Examples
    --------
    >>> from fast.mechanisms import gaussian_grid
    >>> g = gaussian_grid(1.0, 1.0, 1e-5)
    >>> g.sensitivity_inflated > 1.0, round(g.sigma, 2)
    (True, 4.06)
    """
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    dl = check_open_unit(delta, "delta")
    d = check_int(dimension, "dimension", minimum=1)
    if not (isinstance(calibration, str) and calibration in CALIBRATIONS):
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, got {calibration!r}")
    # str(): np.str_('zcdp') and 'zcdp' are one cache key, so the cached grid must not keep the caller's type
    return _gaussian_grid(float(delta_s), float(eps), float(dl), int(d), str(calibration))


@functools.lru_cache(maxsize=1024)
def _gaussian_grid(delta_s: float, eps: float, dl: float, d: int, calibration: str) -> GaussianGrid:
    """gaussian_grid on validated arguments, memoised: the two sigma calibrations (bisections) cost ~5 ms, which
    would dominate every small release; the grid is a pure function of these five values (frozen result)."""
    method = calibration if calibration != "auto" else "zcdp"  # proven for N_Z; see the reference
    calibrate = {"analytic": analytic_gaussian_sigma, "classic": classic_gaussian_sigma,
                 "zcdp": zcdp_gaussian_sigma}[method]
    sigma0 = calibrate(delta_s, eps, dl)
    k = math.frexp(sigma0)[1] - 1 - GAUSSIAN_GRID_BITS
    inflated, sigma, s2 = _grid_on(k, delta_s, d, calibrate, eps, dl)
    if s2 > MAX_SIGMA2:  # sigma / Delta above ~2^12: the grid follows Delta (see the reference)
        k = _sensitivity_grid_exponent(delta_s, d)
        inflated, sigma, s2 = _grid_on(k, delta_s, d, calibrate, eps, dl)
    lam = Fraction(2) ** k
    rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))
    return GaussianGrid(k=k, granularity=_pow2(k), sensitivity_inflated=inflated, sigma=sigma,
                        sigma2_grid=s2, rho=rho, calibration=method)


@implements("nock2015.eq15")
def classic_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon, epsilon < 1   [Dwork-Roth 2014, Thm A.1]

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter in (0, 1).
    delta : float
        Privacy parameter in (0, 1).

    Returns
    -------
    float
        The classic sigma.

    Raises
    ------
    ValueError
        If ``epsilon`` >= 1 (Dwork-Roth Thm A.1 holds for epsilon < 1 only), or an input is out of
        range.

    Examples
    --------
    >>> from fast.mechanisms import classic_gaussian_sigma
    >>> round(classic_gaussian_sigma(1.0, 0.5, 1e-5), 4)
    9.6896
    """
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    dl = check_open_unit(delta, "delta")
    if eps >= 1.0:
        raise ValueError(f"epsilon must be < 1 for the classic Gaussian calibration (Dwork-Roth Thm A.1), got {eps}")
    return _finite_sigma(delta_s * math.sqrt(2.0 * math.log(1.25 / dl)) / eps)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(30)
_GL_LOG_W = np.log(_GL_W)


#: the float evaluation of the Balle-Wang profile is within DELTA_ERROR_ULPS u ((1 + |log I|) I + (1 + |log E|) E)
#: of the exact delta = I - E (u = 2^-53): each of log I and log E is within a few ulps of |log|, so I and E are
#: within a few u (1 + |log|) relative, and the subtraction adds no error of its own.  Measured against mpmath
#: (80 digits) on 8,000 random settings (sigma, Delta in [1e-4, 1e4], eps in [1e-5, 300]): at most 15.4 units; the
#: constant is twice that.
DELTA_ERROR_ULPS = 32.0
#: where that bound exceeds this fraction of the float delta (a cancellation I ~ E: deltas below ~1e-100, or a float
#: delta <= 0), the profile is evaluated in 60-digit arithmetic instead, as the reference does
DELTA_LOOSENESS = 2.0**-33


def _log_gaussian_delta(sigma, delta_s, eps):
    """An UPPER bound of log[Phi(a - b) - e^eps Phi(-a - b)], a = Delta/(2 sigma), b = eps sigma/Delta: log[I - E],
    I = Phi(a-b) - Phi(-a-b) = int_{-a-b}^{a-b} phi (by 30-point Gauss-Legendre when the interval is short, no
    cancellation between two nearly equal CDFs; else from log_ndtr) and E = expm1(eps) Phi(-a-b), plus the float
    evaluation's error bound DELTA_ERROR_ULPS u ((1 + |log I|) I + (1 + |log E|) E) and the rounding of the log
    itself (8 u (1 + |log|)), so that exp of it, one ulp up, is never below the exact delta (the plain float
    evaluation was up to 2.6e-13 relative below it near delta = 1e-5).  Where the bound is looser than
    DELTA_LOOSENESS (heavy cancellation; a choice made from sigma, Delta and eps alone), the reference's 60-digit
    evaluation (:func:`_log_gaussian_delta_mp`).  The calibration bisects on this bound, so the analytic sigma is
    safe and gaussian_delta at it is within the target (it may exceed the reference's, mpmath-decided, sigma by
    ~1e-13 relative)."""
    a = delta_s / (2.0 * sigma)
    b = eps * sigma / delta_s
    lower, upper = -a - b, a - b
    # the interval's half-width is a exactly; upper - lower can round to 0 when b >> a (e.g. sigma 672,
    # Delta 1e-5), so the quadrature is laid out from a and b, not from the rounded ends
    if 2.0 * a < 0.5:
        x = a * _GL_X - b
        terms = _GL_LOG_W - 0.5 * x * x  # logsumexp by hand: scipy's costs ~1 ms a call (array-API dispatch)
        top = float(terms.max())
        log_i = top + math.log(float(np.exp(terms - top).sum())) - 0.5 * math.log(2 * math.pi) + math.log(a)
    else:
        lu, ll = float(special.log_ndtr(upper)), float(special.log_ndtr(lower))
        log_i = lu + math.log1p(-math.exp(ll - lu))
    log_err = math.log1p(abs(log_i)) + log_i + math.log(DELTA_ERROR_ULPS * 2.0**-53)
    if eps == 0.0:
        log_d = log_i
    else:
        # log(e^eps - 1): expm1 overflows past ~709, where eps + log1p(-e^-eps) is exact to rounding
        log_expm1 = math.log(math.expm1(eps)) if eps < 700 else eps + math.log1p(-math.exp(-eps))
        second = log_expm1 + float(special.log_ndtr(lower))
        if not second < log_i:
            return _log_gaussian_delta_mp(sigma, delta_s, eps)
        log_d = log_i + math.log1p(-math.exp(second - log_i))
        log_err = _logaddexp(log_err, math.log1p(abs(second)) + second + math.log(DELTA_ERROR_ULPS * 2.0**-53))
    if log_err - log_d > math.log(DELTA_LOOSENESS):
        return _log_gaussian_delta_mp(sigma, delta_s, eps)
    log_up = _logaddexp(log_d, log_err)
    return log_up + 8.0 * 2.0**-53 * (1.0 + abs(log_up))


def _logaddexp(p: float, q: float) -> float:
    """log(e^p + e^q) (q finite)."""
    if p < q:
        p, q = q, p
    return p + math.log1p(math.exp(q - p))


def _log_gaussian_delta_mp(sigma: float, delta_s: float, eps: float) -> float:
    """An upper bound of log delta(eps) from the profile in 60-digit arithmetic (the reference's
    ``_log_gaussian_delta``, bit for bit): the value raised by 1e-40 relative (far above the 60-digit error),
    its log rounded up to a double; -inf when it is <= 0 in 60 digits."""
    import mpmath

    with mpmath.workdps(60):
        a = mpmath.mpf(delta_s) / (2 * mpmath.mpf(sigma))
        b = eps * mpmath.mpf(sigma) / delta_s
        value = mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)
        if not value > 0:
            return -math.inf
        log_value = mpmath.log(value * (1 + mpmath.mpf(10) ** -40))
        f = float(log_value)
        return f if mpmath.mpf(f) >= log_value else math.nextafter(f, math.inf)


@implements("bun2020.lemma15")
def gaussian_delta(sigma, sensitivity, epsilon) -> float:
    """delta(eps) = Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)   [Balle-Wang 2018]

    Parameters
    ----------
    sigma : float
        Noise standard deviation (> 0).
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (>= 0).

    Returns
    -------
    float
        The exact delta of the Gaussian mechanism at ``epsilon``, rounded UP: never below it (the float evaluation's
        error bound is added, see ``DELTA_ERROR_ULPS``; about 1e-13 relative near delta = 1e-5).

    Examples
    --------
    >>> from fast.mechanisms import analytic_gaussian_sigma, gaussian_delta
    >>> gaussian_delta(analytic_gaussian_sigma(1.0, 0.5, 1e-5), 1.0, 0.5) <= 1e-5
    True
    """
    s = check_positive(sigma, "sigma")
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_real(epsilon, "epsilon", low=0.0)
    return min(1.0, math.nextafter(math.exp(_log_gaussian_delta(s, delta_s, eps)), math.inf))


def _bisect_sigma(log_delta_of_sigma, log_target, lo, hi):
    hi = _finite_sigma(hi)
    while log_delta_of_sigma(hi) > log_target:
        lo, hi = hi, _finite_sigma(2.0 * hi)
    while log_delta_of_sigma(lo) <= log_target and lo > 1e-300:
        lo, hi = lo / 2.0, lo
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi) or hi - lo <= 1e-13 * hi:
            break
        if log_delta_of_sigma(mid) <= log_target:
            hi = mid
        else:
            lo = mid
    return hi


@implements("nock2015.eq15")
def analytic_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """smallest sigma with the Balle-Wang profile delta(eps) <= delta (bisection, safe side)   [Balle-Wang 2018, Alg. 1]

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).

    Returns
    -------
    float
        The analytic sigma (never smaller than the exact one).

    Examples
    --------
    >>> from fast.mechanisms import analytic_gaussian_sigma
    >>> round(analytic_gaussian_sigma(1.0, 0.5, 1e-5), 4)
    7.0318
    """
    delta_s = check_positive(sensitivity, "sensitivity")
    eps = check_positive(epsilon, "epsilon")
    dl = check_open_unit(delta, "delta")
    return _analytic_sigma(float(delta_s), float(eps), float(dl))


@functools.lru_cache(maxsize=1024)
def _analytic_sigma(delta_s: float, eps: float, dl: float) -> float:
    """analytic_gaussian_sigma on validated arguments, memoised as the grids are (~50 profile evaluations, ~0.5 ms;
    a pure function of three floats): repeated releases at one calibration (audits, unsafe_float_gaussian in a
    loop) pay it once."""
    return _bisect_sigma(lambda s: _log_gaussian_delta(s, delta_s, eps), math.log(dl), delta_s, delta_s)


def zcdp_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """sigma = Delta / sqrt(2 rho*), rho* the largest rho with the tight zCDP conversion within (eps, delta)   [CKS20 Prop. 12]

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).

    Returns
    -------
    float
        sigma calibrated through zCDP.

    Examples
    --------
    >>> from fast.mechanisms import zcdp_gaussian_sigma
    >>> round(zcdp_gaussian_sigma(1.0, 0.5, 1e-5), 4)
    7.6672
    """
    from fast.accounting import zcdp_to_dp_rho

    delta_s = check_positive(sensitivity, "sensitivity")
    rho = zcdp_to_dp_rho(epsilon, delta)
    try:
        sigma = _float_up(Fraction(delta_s) / Fraction(math.sqrt(2.0 * rho)))
    except OverflowError:
        sigma = math.inf
    return _finite_sigma(sigma)


# ---------------------------------------------------------------------------------------------------------
# the mechanisms
# ---------------------------------------------------------------------------------------------------------
def _as_value(value):
    """(float64 array, shape or None for a scalar)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"value must be a real number or a numeric array, got {type(value).__name__}")
    if isinstance(value, numbers.Real):
        return np.array([check_real(value, "value")]), None
    if isinstance(value, np.ndarray) and value.ndim == 0:  # a 0-d array is a scalar (returns a float)
        if value.dtype == bool:
            raise TypeError(f"value must be a real number or a numeric array, got dtype {value.dtype}")
        return np.array([check_real(value.item(), "value")]), None
    x = as_float_matrix(value, "value", ndim=max(1, np.ndim(value)))
    return x.ravel(), x.shape


#: grid exponents the release kernel handles (2^-k and 2^k normal doubles, and 2^k z normal for every integer z != 0)
RELEASE_K_MIN = -950
RELEASE_K_MAX = 1000


@intrinsic
def _float_bits(typingctx, x):
    """The IEEE-754 bit pattern of a float64 as an int64 (an LLVM bitcast)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _bits_float(typingctx, b):
    """The float64 whose IEEE-754 bit pattern is the int64 b (an LLVM bitcast)."""
    if b != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@njit(cache=True, inline="always")
def _two_sum(a, b):
    """(s, e) with s = RN(a + b) and s + e = a + b exactly   [Knuth's TwoSum; no overflow]."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


@njit(cache=True, inline="always")
def _add_round_odd(a, b):
    """RO(a + b): a + b rounded to odd (the neighbour of a + b whose last significand bit is 1, or a + b itself when
    representable), without branching: s = RN(a + b) with error e; when e != 0 and s is even, s moves one ulp towards
    a + b (its bit pattern +1 when e and s have the same sign, -1 otherwise).  a + b is a nonzero multiple of 1 or
    zero here (grid units), so s = 0 implies e = 0."""
    s, e = _two_sum(a, b)
    bits = _float_bits(s)
    inexact = np.int64(e != 0.0)
    even = np.int64((bits & 1) == 0)
    step = np.int64(1) - 2 * np.int64((e < 0.0) != (s < 0.0))
    return _bits_float(bits + inexact * even * step)


@njit(cache=True)
def _release_kernel(x, k, noise, out):
    """out[i] = 2^k (round_half_even(x[i] 2^-k) + noise[i]) correctly rounded, for EVERY finite x[i] and |noise[i]|
    < 2^62, RELEASE_K_MIN <= k <= RELEASE_K_MAX, by one branch-free computation per element (the time does not
    depend on the exact value: issue 25, item 5).

    With C = 2^(1023 + k) (inf for k >= 1): for |x| < C, S = rint(x 2^-k) is exact (a product by the normal double
    2^-k is exact or, below 2^-1022, rounds to 0 as x 2^-k itself does) and |S| <= 2^1023; the noise n splits
    exactly as nd = RN(n), nl = n - nd (|nl| <= 2^9: |n| < 2^62, so int64(nd) does not overflow); RN(S + nd + nl)
    is Boldo-Melquiond's correctly rounded sum of three doubles (IEEE TC 2008, Alg. 7 with round-to-odd):
    (uh, ul) = TwoSum(nd, nl), (th, tl) = TwoSum(S, uh), v = RO(tl + ul), z = RN(th + v) (no overflow: |S| + |n|
    < 2^1024 - 2^970); z 2^k is exact (z = 0 or |z| >= 1 and k >= -950) or +-inf exactly when the exact value
    rounds past the float range (rounding commutes with scaling by 2^k), as ``_from_grid``.  For |x| >= C (k <= 0),
    x is a multiple of 2^k and |n 2^k| < 2^(62+k) is below a quarter ulp of x, so the result is x itself: the
    clamped x gives a finite z that a select (no branch) replaces by x."""
    down = math.ldexp(1.0, -k)
    up = math.ldexp(1.0, k)
    cap = math.ldexp(1.0, 1023 + k) if k <= 0 else math.inf
    for i in range(x.shape[0]):
        xi = x[i]
        clamped = min(max(xi, -cap), cap)
        s = np.rint(clamped * down)
        n = noise[i]
        nd = np.float64(n)
        nl = np.float64(n - np.int64(nd))
        uh, ul = _two_sum(nd, nl)
        th, tl = _two_sum(s, uh)
        v = _add_round_odd(tl, ul)
        z = (th + v) * up
        out[i] = xi if abs(xi) >= cap else z


def _release(x: np.ndarray, shape, k: int, noise: np.ndarray):
    """2^k * (round_half_even(x / 2^k) + noise), exactly rounded once; the path depends only on the PUBLIC grid
    exponent k (the compiled kernel for RELEASE_K_MIN <= k <= RELEASE_K_MAX, exact Fractions outside), never on x."""
    if RELEASE_K_MIN <= k <= RELEASE_K_MAX:
        out = np.empty(x.shape[0], dtype=np.float64)
        _release_kernel(x, k, noise, out)
    else:
        out = _release_exact(x, k, noise)
    return float(out[0]) if shape is None else out.reshape(shape)


def _release_exact(x: np.ndarray, k: int, noise: np.ndarray) -> np.ndarray:
    """The release in exact Fractions (grid exponents outside the kernel's range; the kernel's oracle in tests)."""
    lam = Fraction(2) ** k
    return np.array([_from_grid(round(Fraction(float(v)) / lam) + int(z), k) for v, z in zip(x, noise)],
                    dtype=np.float64)


def _from_grid(z: int, k: int) -> float:
    """z * 2^k correctly rounded (one rounding, subnormals included), +-inf beyond the float range."""
    try:
        return float(Fraction(z) * Fraction(2) ** k)
    except OverflowError:
        return math.copysign(math.inf, z)


@implements("nock2015.eq15")
def laplace_mechanism(value, *, sensitivity, epsilon, rng=None, accountant=None):
    """M(x) = 2^k (round(x / 2^k) + Z), Z ~ DLap(t)^d exact: epsilon-DP at L1 sensitivity   [CKS20 Alg. 2]

    ``value``: a real number or a 0-d array (returns a float), or a numeric array of ANY shape, 1-d, 2-d or more
    (returns float64 of that shape; each entry gets independent noise; ``sensitivity`` bounds the L1 norm of the
    difference over ALL entries of neighbouring values).  ``epsilon`` may be a Fraction (e.g. a part of
    ``accounting.split``): it is rounded DOWN to a double.  ``accountant`` (a BudgetAccountant or ZCDPAccountant)
    is charged the DELIVERED epsilon D/t exactly (a ZCDPAccountant: (D/t)^2/2) before any noise is drawn.

    Parameters
    ----------
    value : float or array_like
        The exact value to release (any shape).
    sensitivity : float
        L1 sensitivity (> 0) over all entries.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    rng : None or numpy.random.Generator, optional
        Source of the noise words; None (the default) uses OS entropy, which a private release must use.
    accountant : BudgetAccountant or ZCDPAccountant, optional
        Charged the delivered epsilon before any noise is drawn.

    Returns
    -------
    float or numpy.ndarray
        The noisy value: a float for a scalar input, else float64 of the input's shape.

    Raises
    ------
    ValueError
        If ``sensitivity`` or ``epsilon`` is invalid, or the value is not finite.
    BudgetExceeded
        If ``accountant`` cannot afford the release (nothing is drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.mechanisms import laplace_mechanism
    >>> noisy = laplace_mechanism(np.zeros((2, 3)), sensitivity=1.0, epsilon=1.0)
    >>> noisy.shape, noisy.dtype
    ((2, 3), dtype('float64'))
    >>> type(laplace_mechanism(3.0, sensitivity=1.0, epsilon=1.0))
    <class 'float'>
    """
    epsilon = calibration_float(epsilon)  # a Fraction (a part of split) rounds DOWN: never overspends
    x, shape = _as_value(value)
    grid = laplace_grid(sensitivity, epsilon, dimension=x.shape[0])
    # the DELIVERED epsilon D/t, exactly (an integer ratio <= epsilon); refuses before any word is drawn; no
    # accountant: recorded in the default ledger (unless inside a private fit, whose charge covers this call)
    charge_release(accountant, Fraction(grid.integer_sensitivity, grid.scale), 0, label="laplace_mechanism")
    noise = _draw_laplace(x.shape[0], rng, grid.scale, _laplace_v_max(grid.scale))
    return _release(x, shape, grid.k, noise)


@implements("nock2015.eq15", "bun2020.lemma16")
def gaussian_mechanism(value, *, sensitivity, epsilon, delta, rng=None, calibration="auto",
                       sensitivity_dimension=None, accountant=None):
    """M(x) = 2^k (round(x / 2^k) + Y), Y ~ N_Z(0, s2)^d exact: (epsilon, delta)-DP and rho-zCDP   [CKS20 Alg. 3]

    ``value``: as :func:`laplace_mechanism` (any shape; a 0-d array is a scalar); ``sensitivity`` bounds the L2
    norm of the difference over ALL entries.  ``epsilon``/``delta`` may be Fractions (rounded DOWN).
    ``accountant`` is charged the calibrated (epsilon, delta) and the grid's rho before any noise is drawn.

    Parameters
    ----------
    value : float or array_like
        The exact value to release (any shape).
    sensitivity : float
        L2 sensitivity (> 0) over all entries.
    epsilon : float or Fraction
        Privacy parameter (> 0).
    delta : float or Fraction
        Privacy parameter in (0, 1).
    rng : None or numpy.random.Generator, optional
        Source of the noise words; None (the default) uses OS entropy, which a private release must use.
    calibration : {"auto", "zcdp", "analytic", "classic"}, default="auto"
        How sigma is calibrated (see :func:`gaussian_grid`).
    sensitivity_dimension : int, optional
        Number of coordinates the rounding inflation is computed for (default: all entries).
    accountant : BudgetAccountant or ZCDPAccountant, optional
        Charged (epsilon, delta) and rho before any noise is drawn.

    Returns
    -------
    float or numpy.ndarray
        The noisy value: a float for a scalar input, else float64 of the input's shape.

    Raises
    ------
    ValueError
        If an argument is out of range or the value is not finite.
    BudgetExceeded
        If ``accountant`` cannot afford the release (nothing is drawn).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.mechanisms import gaussian_mechanism
    >>> gaussian_mechanism(np.zeros(4), sensitivity=1.0, epsilon=1.0, delta=1e-5).shape
    (4,)
    """
    epsilon = calibration_float(epsilon)  # a Fraction (a part of split) rounds DOWN: never overspends
    delta = calibration_float(delta)
    x, shape = _as_value(value)
    dims = x.shape[0] if sensitivity_dimension is None else check_int(
        sensitivity_dimension, "sensitivity_dimension", minimum=1, maximum=max(1, x.shape[0]))
    grid = gaussian_grid(sensitivity, epsilon, delta, dimension=max(1, dims), calibration=calibration)
    # the (epsilon, delta) the grid is calibrated for, and its rho; refuses before any word is drawn; no accountant:
    # recorded in the default ledger (unless inside a private fit, whose charge covers this call)
    charge_release(accountant, Fraction(float(epsilon)), Fraction(float(delta)), rho=grid.rho,
                   label="gaussian_mechanism")
    s2 = grid.sigma2_grid
    if _fast_path(s2, 1):
        t, v_max = _gaussian_t_vmax(s2)
        noise = _draw_gaussian(x.shape[0], rng, s2, t, v_max)
    else:  # s2 > 2^24 (public: a function of the grid alone): the exact big-integer sampler, the reference's words
        noise = np.array(_exact_gaussian_draws(s2, 1, x.shape[0], rng),
                         dtype=np.int64 if s2 <= INT64_SIGMA2 else object)
        if noise.dtype == object:  # |Y| may pass 2^62: the release in exact Fractions
            out = _release_exact(x, grid.k, noise)
            return float(out[0]) if shape is None else out.reshape(shape)
    return _release(x, shape, grid.k, noise)


def unsafe_float_laplace(value, *, sensitivity, epsilon, rng=None):
    """UNSAFE (Mironov 2012): x + numpy Laplace(sensitivity/epsilon). For comparison and audits only.

    Parameters
    ----------
    value : float or array_like
        The exact value.
    sensitivity : float
        L1 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    rng : None, int or numpy.random.Generator, optional
        Seed or generator of the floating-point noise.

    Returns
    -------
    float or numpy.ndarray
        The noisy value (NOT private: floating-point noise leaks, Mironov 2012).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.mechanisms import unsafe_float_laplace
    >>> unsafe_float_laplace(np.zeros(3), sensitivity=1.0, epsilon=1.0, rng=0).shape
    (3,)
    """
    b = check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon")
    x, shape = _as_value(value)
    gen = as_generator(rng)
    out = gen.laplace(0.0, b, size=x.shape[0])
    out += x  # in place: noise + x == x + noise bit for bit, one array fewer than x + noise
    return float(out[0]) if shape is None else out.reshape(shape)


def unsafe_float_gaussian(value, *, sensitivity, epsilon, delta, rng=None):
    """UNSAFE (Jin et al. 2022): x + numpy N(0, sigma^2), sigma analytic. For comparison and audits only.

    Parameters
    ----------
    value : float or array_like
        The exact value.
    sensitivity : float
        L2 sensitivity (> 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).
    rng : None, int or numpy.random.Generator, optional
        Seed or generator of the floating-point noise.

    Returns
    -------
    float or numpy.ndarray
        The noisy value (NOT private: floating-point noise leaks, Jin et al. 2022).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.mechanisms import unsafe_float_gaussian
    >>> unsafe_float_gaussian(np.zeros(2), sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0).shape
    (2,)
    """
    sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
    x, shape = _as_value(value)
    gen = as_generator(rng)
    out = gen.normal(0.0, sigma, size=x.shape[0])
    out += x  # in place, as unsafe_float_laplace
    return float(out[0]) if shape is None else out.reshape(shape)
