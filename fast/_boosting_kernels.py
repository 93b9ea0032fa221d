"""numba kernels of :mod:`fast.private_boosting` (issue 15).  Most fuse an input contract into the one pass over the
data that the function needs anyway, and report a status instead of raising, so that the caller can run the
contract itself (``spec.boosting_contract``) for the exact error, in the contract's order.

* :func:`centroid_pass`: z = sum_i c_i x_i, c_i = mu^(i) y_i, with the labels test and the unit-ball test of every
  row (its squared norm against a threshold with a margin for the order of the additions, see
  :func:`unit_ball_limit`) in the same read of X, four rows at a time (the product alone reads X once; the
  contract's row norms cost a second read, and the weights' list conversion a third).
* :func:`game_loss_pass`: 1 - |clip(h_i) - y_i| / 2 with the labels and finiteness tests, the same IEEE operations as
  the numpy expression (bit for bit).  :func:`signed_weights`: w * labels with the labels test.
* :func:`stump_buckets`: per feature, the weights v_i summed into the m + 1 buckets cut by the sorted thresholds (a
  count of the thresholds below x_ij, vectorised, up to LINEAR_THRESHOLDS; a binary search beyond), one read of X
  for all features (a sort of each feature costs O(n log n) and a gather).
* :func:`fsum_columns`: ``math.fsum`` of every column of a (T, n) array, bit for bit: a compensated pass certifies
  the rounding of almost every column; the others are summed by CPython's own algorithm (:func:`_fsum_exact`), and
  the cases math.fsum raises on (inf, NaN, intermediate overflow) are flagged for math.fsum itself.
* :func:`vote_signs`: boost's vote sgn(math.fsum(column) / T), exact, from a float sum and its error bound.
* :func:`grid_argmax`: report-noisy-max's exact argmax of round(q / 2^k) + Z in int64.
* :func:`smooth_measure`, :func:`add_game_gain`: the elementwise parts of a SmoothBoost / LazyBregBoost round in one
  pass each, with the operations of the numpy expressions they replace (the runs are unchanged bit for bit).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

#: codes of :func:`centroid_pass` / :func:`game_loss_pass` / :func:`stump_buckets` (any non-zero: the caller runs
#: the contract, which raises or, for a row near the unit sphere, decides with the contract's own norms)
OK = 0
BAD_LABEL = 1
NOT_FINITE = 2
NEAR_OR_OUTSIDE_BALL = 4

#: up to this many thresholds per feature the bucket of x is the count of the thresholds below it (vectorised
#: comparisons); above it a binary search (n = 1e5, d = 10, one thread: count 3.4 ms vs search 21 ms at m = 16,
#: 24 vs 48 ms at m = 256, 90 vs 70 ms at m = 1024: each search step waits for its load)
LINEAR_THRESHOLDS = 512


def unit_ball_limit(slack: float, d: int) -> float:
    """A bound on the squared row norm s (summed in any order) under which the contract's test
    ``sqrt(einsum(x, x)) > 1 + slack`` surely passes: both sums of d squares lie within gamma_d = d u / (1 - d u) of
    the exact value (Higham, eq. (3.4)), so s <= c^2 (1 - 2 gamma_d) / (1 + gamma_d), c = 1 + slack, keeps the
    contract's sum below c^2 and its correctly rounded sqrt at most c.  4 d u per side covers gamma_d and the rounding
    of this bound itself (d u < 1e-3, else 0: every row goes to the contract)."""
    c = 1.0 + slack
    du = d * 2.0**-53
    if du >= 1e-3:
        return 0.0
    return c * c * (1.0 - 8.0 * du)


@njit(cache=True, nogil=True, inline="always")
def _signed(w, y, i):  # pragma: no cover - compiled
    """(c_i, bad_i): c_i = w_i if y_i == 1 else -w_i (exactly w_i * label), bad_i = y_i outside {-1, +1}."""
    yi = y[i]
    return (w[i] if yi == 1 else -w[i]), (yi != 1) & (yi != -1)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def centroid_pass(X, w, y, limit, z):  # pragma: no cover - compiled
    """z += sum_i c_i X[i], c_i = w_i if y_i == 1 else -w_i (exactly w * labels); returns a status: BAD_LABEL for a
    y_i outside {-1, +1}, NEAR_OR_OUTSIDE_BALL for a row whose squared norm is not <= ``limit`` (NaN and inf
    included: NOT <= catches them).

    Four rows at a time (as BLAS's gemv kernels): the inner loop over the d coordinates updates z once per four rows
    and the four squared norms, vectorised (reassociation and FMA contraction: the sums' order and rounding are the
    compiler's, within the bound :func:`unit_ball_limit` allows for the norms; z is a float sum like BLAS's).
    Comparisons keep IEEE semantics (no nnan / ninf flags)."""
    n, d = X.shape
    bad = False
    inside = True
    i = 0
    while i + 4 <= n:
        c0, b0 = _signed(w, y, i)
        c1, b1 = _signed(w, y, i + 1)
        c2, b2 = _signed(w, y, i + 2)
        c3, b3 = _signed(w, y, i + 3)
        bad |= b0 | b1 | b2 | b3
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        for j in range(d):
            a0 = X[i, j]
            a1 = X[i + 1, j]
            a2 = X[i + 2, j]
            a3 = X[i + 3, j]
            s0 += a0 * a0
            s1 += a1 * a1
            s2 += a2 * a2
            s3 += a3 * a3
            z[j] += (c0 * a0 + c1 * a1) + (c2 * a2 + c3 * a3)
        inside &= (s0 <= limit) & (s1 <= limit) & (s2 <= limit) & (s3 <= limit)
        i += 4
    while i < n:
        c, b = _signed(w, y, i)
        bad |= b
        sq = 0.0
        for j in range(d):
            a = X[i, j]
            sq += a * a
            z[j] += c * a
        inside &= sq <= limit
        i += 1
    return (BAD_LABEL if bad else 0) | (0 if inside else NEAR_OR_OUTSIDE_BALL)


@njit(cache=True, nogil=True)
def game_loss_pass(h, y, out):  # pragma: no cover - compiled
    """out_i = 1 - |clip(h_i, -1, 1) - y_i| / 2 (the numpy expression's operations, in its order); returns a status:
    NOT_FINITE for a NaN or infinite h_i, BAD_LABEL for a y_i outside {-1, +1}."""
    finite = True
    bad_y = False
    for i in range(h.shape[0]):
        v = h[i]
        finite &= abs(v) < np.inf  # False for NaN too
        yi = y[i]
        bad_y |= (yi != 1) & (yi != -1)
        c = v if v > -1.0 else -1.0
        c = c if c < 1.0 else 1.0
        out[i] = 1.0 - abs(c - np.float64(yi)) / 2.0
    status = 0
    if not finite:
        status |= NOT_FINITE
    if bad_y:
        status |= BAD_LABEL
    return status


@njit(cache=True, nogil=True, inline="always")
def _bucket(t, j, x, m, linear):  # pragma: no cover - compiled
    """#{k < m : t[j, k] < x} for a sorted row t[j]: a count of comparisons (vectorised) when ``linear``, else a
    branch-free binary search (the answer stays in [base, base + size]; each step keeps the half that holds it)."""
    if linear:
        b = 0
        for k in range(m):
            b += t[j, k] < x
        return b
    base = 0
    size = m
    while size > 1:
        half = size >> 1
        base = base + half if t[j, base + half] < x else base
        size -= half
    return base + (t[j, base] < x)


@njit(cache=True, nogil=True)
def stump_buckets(X, v, thr_sorted, B, linear):  # pragma: no cover - compiled
    """B[j, b] += v_i for b = #{t : thr_sorted[j, t] < X[i, j]} (so x_ij <= thr_sorted[j, t] iff b <= t), X read
    once, row by row, each bucket summed in row order.  Returns NOT_FINITE when X holds a NaN or an infinity."""
    n, d = X.shape
    m = thr_sorted.shape[1]
    finite = True
    for i in range(n):
        vi = v[i]
        for j in range(d):
            x = X[i, j]
            finite &= abs(x) < np.inf  # False for NaN too
            B[j, _bucket(thr_sorted, j, x, m, linear)] += vi
    return 0 if finite else NOT_FINITE


@njit(cache=True, nogil=True)
def _fsum_exact(values, k, p):  # pragma: no cover - compiled
    """math.fsum(values[:, k]) by CPython's algorithm, operation for operation (p: scratch of >= T + 1 partials);
    returns (sum, special): special when a partial is not finite (an inf or NaN term, or an intermediate overflow:
    math.fsum's special sums and errors, left to math.fsum itself)."""
    count = 0
    for r in range(values.shape[0]):
        x = values[r, k]
        i = 0
        for jj in range(count):  # for y in partials
            y = p[jj]
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            yr = hi - x
            lo = y - yr
            if lo != 0.0:
                p[i] = lo
                i += 1
            x = hi
        count = i
        if x != 0.0:
            if not math.isfinite(x):
                return 0.0, True
            p[count] = x
            count += 1
    hi = 0.0
    if count > 0:
        count -= 1
        hi = p[count]
        lo = 0.0
        while count > 0:  # sum_exact(ps, hi) from the top, stop when the sum becomes inexact
            x = hi
            count -= 1
            y = p[count]
            hi = x + y
            yr = hi - x
            lo = y - yr
            if lo != 0.0:
                break
        # half-even rounding across multiple partials
        if count > 0 and ((lo < 0.0 and p[count - 1] < 0.0) or (lo > 0.0 and p[count - 1] > 0.0)):
            y = lo * 2.0
            x = hi + y
            yr = x - hi
            if y == yr:
                hi = x
    return hi, False


#: columns per block of :func:`fsum_columns`: the block's partial sums stay in L1, its T rows in cache for the
#: columns summed exactly
_COLUMN_BLOCK = 256


@njit(cache=True, nogil=True)
def fsum_columns(values, out, flags):  # pragma: no cover - compiled
    """out[k] = math.fsum(values[:, k]) for every column of a (T, n) array, bit for bit, a block of columns at a time.

    1. One pass over the block's rows (contiguous, vectorised across the columns), two levels of TwoSum: s + x =
       s' + e exactly, c + e = c' + f exactly, cc += f, ff += |f|.  Then the exact column sum is
       S = s + c + F, F the exact sum of the T second-level errors f: F = 0 when ff = 0, else
       |cc - F| <= gamma_T ff <= 1.01 T u ff (T u <= 1e-3): bound B = 2.02 T u ff.
    2. t = fl(s + c) with its exact error e3 (TwoSum): S = t + e3 + F.  With ff = 0, S = s + c exactly and fl(S) = t
       (the hardware's round-half-even: a tie included).  Otherwise fl(S) = t when S lies strictly inside t's rounding
       interval: sigma (e3 + cc) + margin < g_away / 2 and sigma (e3 + cc) - margin > -g_toward / 2 (g: the exact gaps
       to t's neighbours; sigma: t's sign; margin = 2 B + (g_away + g_toward) 2^-50 also covers the rounding of
       these few operations).  No tie passes that test (strict).
    3. Any other column (t = 0, not finite, or near a rounding boundary with inexact second-level sums) is summed
       by :func:`_fsum_exact` while the block is in cache; flags[k] = True where that meets a non-finite partial
       (the caller asks math.fsum, which raises or returns its special sum)."""
    T, n = values.shape
    tu = T * 2.0**-53
    bound_factor = 2.0 * 1.01 * tu if tu <= 1e-3 else np.inf
    p = np.empty(T + 1)
    s = np.empty(_COLUMN_BLOCK)
    c = np.empty(_COLUMN_BLOCK)
    cc = np.empty(_COLUMN_BLOCK)
    ff = np.empty(_COLUMN_BLOCK)
    for k0 in range(0, n, _COLUMN_BLOCK):
        w = min(_COLUMN_BLOCK, n - k0)
        for kk in range(w):
            s[kk] = 0.0
            c[kk] = 0.0
            cc[kk] = 0.0
            ff[kk] = 0.0
        for r in range(T):
            row = values[r, k0:k0 + w]
            for kk in range(w):
                x = row[kk]
                sk = s[kk]
                t = sk + x
                b = t - sk
                e = (sk - (t - b)) + (x - b)
                s[kk] = t
                ck = c[kk]
                u = ck + e
                b2 = u - ck
                f = (ck - (u - b2)) + (e - b2)
                c[kk] = u
                cc[kk] += f
                ff[kk] += abs(f)
        for kk in range(w):
            sk = s[kk]
            ck = c[kk]
            t = sk + ck
            bb = t - sk
            e3 = (sk - (t - bb)) + (ck - bb)
            fk = ff[kk]
            if t != 0.0 and math.isfinite(t) and math.isfinite(e3) and math.isfinite(fk):
                if fk == 0.0:  # S = s + c exactly
                    out[k0 + kk] = t
                    continue
                bits = np.float64(t).view(np.int64)
                away = np.int64(bits + 1).view(np.float64)  # the next double away from zero (inf past the largest)
                toward = np.int64(bits - 1).view(np.float64)  # the next double toward zero
                g_away = abs(away - t)
                g_toward = abs(t - toward)
                se = e3 + cc[kk]
                se = se if t > 0.0 else -se
                margin = 2.0 * bound_factor * fk + (g_away + g_toward) * 2.0**-50
                if se + margin < 0.5 * g_away and se - margin > -0.5 * g_toward:
                    out[k0 + kk] = t
                    continue
            total, special = _fsum_exact(values, k0 + kk, p)
            out[k0 + kk] = total
            if special:
                flags[k0 + kk] = True
    return out


@njit(cache=True, nogil=True)
def signed_weights(w, y, v):  # pragma: no cover - compiled
    """v_i = w_i if y_i == 1 else -w_i (exactly w * labels); returns BAD_LABEL for a y_i outside {-1, +1}."""
    bad = False
    for i in range(w.shape[0]):
        yi = y[i]
        bad |= (yi != 1) & (yi != -1)
        v[i] = w[i] if yi == 1 else -w[i]
    return BAD_LABEL if bad else 0


@njit(cache=True, nogil=True)
def smooth_measure(h, y, sums, update, shift, rate, mu, args, idx):  # pragma: no cover - compiled
    """The elementwise part of a SmoothBoost round in one pass (h = X z of the previous hypothesis, by BLAS):

    1. with ``update``: sums_i += y_i clip(h_i, -1, 1) (the former ``sums += yf * np.clip(X @ z, -1, 1)``);
    2. SB-NxM: s_i = sums_i - shift (shift = t gamma/(2+gamma)); mu_i = 1 where s_i < 0; elsewhere the exponent
       (0.5 s_i) rate (rate = log(1 - gamma)) is written to args[k], i to idx[k].

    Returns k: the caller sets mu[idx[:k]] = numpy.exp(args[:k]) (numpy's exp on the same arguments as sb_nxm's:
    the same measure bit for bit, and only where it is not 1)."""
    k = 0
    for i in range(sums.shape[0]):
        if update:
            v = h[i]
            v = v if v > -1.0 else -1.0
            v = v if v < 1.0 else 1.0
            sums[i] += y[i] * v
        s = sums[i] - shift
        if s < 0.0:
            mu[i] = 1.0
        else:
            args[k] = 0.5 * s * rate
            idx[k] = i
            k += 1
    return k


@njit(cache=True, nogil=True)
def add_game_gain(h, y, L):  # pragma: no cover - compiled
    """L_i += 1 - |clip(h_i, -1, 1) - y_i| / 2 in one pass (the former six in-place numpy passes, the same IEEE
    operations: (-0.5 a) + 1 = 1 - a / 2 exactly)."""
    for i in range(h.shape[0]):
        v = h[i]
        v = v if v > -1.0 else -1.0
        v = v if v < 1.0 else 1.0
        L[i] += 1.0 - abs(v - y[i]) / 2.0


@njit(cache=True, nogil=True)
def vote_signs(values, out, flags):  # pragma: no cover - compiled
    """out[k] = 1 if math.fsum(values[:, k]) / T >= 0 else -1 (int8) for every column of a (T, n) array, exactly,
    a block of columns at a time.  The float sum s and the sum a of |x| decide a column when |s| > 2 T u a +
    T 2^-1070: then the exact sum S has the sign of s (recursive summation: |s - S| <= gamma_T sum|x| <= 2 T u a),
    and |fl(S)| / T stays above 2^-1075, so the quotient is not rounded to zero.  The other columns are summed
    exactly (:func:`_fsum_exact`) and their quotient compared; flags[k] = True where that meets a non-finite
    partial (the caller asks math.fsum, which raises or returns its special sum)."""
    T, n = values.shape
    tu = T * 2.0**-53
    bound_factor = 2.0 * 1.01 * tu if tu <= 1e-3 else np.inf
    floor = T * 2.0**-1070
    p = np.empty(T + 1)
    s = np.empty(_COLUMN_BLOCK)
    a = np.empty(_COLUMN_BLOCK)
    for k0 in range(0, n, _COLUMN_BLOCK):
        w = min(_COLUMN_BLOCK, n - k0)
        for kk in range(w):
            s[kk] = 0.0
            a[kk] = 0.0
        for r in range(T):
            row = values[r, k0:k0 + w]
            for kk in range(w):
                x = row[kk]
                s[kk] += x
                a[kk] += abs(x)
        for kk in range(w):
            sk = s[kk]
            if abs(sk) > bound_factor * a[kk] + floor:  # False for NaN; inf bounds fall through
                out[k0 + kk] = 1 if sk > 0.0 else -1
                continue
            total, special = _fsum_exact(values, k0 + kk, p)
            if special:
                flags[k0 + kk] = True
                out[k0 + kk] = 0
            else:
                out[k0 + kk] = 1 if total / T >= 0.0 else -1
    return out


#: |grid score| and |noise| up to this: their sum is exact in int64 (|u| + |Z| <= 2^63 - 2)
INT64_SAFE = 2**62 - 1


@njit(cache=True, nogil=True)
def grid_argmax(q, scale, noise):  # pragma: no cover - compiled
    """First index of max_i (rint(q_i scale) + noise_i), exact in int64 (scale = 2^-k, a power of two: q_i scale is
    q_i / 2^k correctly rounded, as ldexp); -1 when some |grid score| or |noise| exceeds INT64_SAFE or is not finite
    (the caller then takes the exact Python-integer path)."""
    best = 0
    arg = -1
    for i in range(q.shape[0]):
        u = np.rint(q[i] * scale)
        z = noise[i]
        if not (abs(u) <= INT64_SAFE) or z > INT64_SAFE or z < -INT64_SAFE:
            return -1
        v = np.int64(u) + z
        if arg < 0 or v > best:
            best = v
            arg = i
    return arg
