"""Bounded measures, divergences and the KL projection onto the kappa-dense set (fast: numpy)   [bun2020 s2]

Same public names and semantics as :mod:`reference.measures` (read its docstring).  The projection (Lemma 9,
capped scaling min(1, c mu~)) needs no sort: the capping constant c is the fixed point of
c <- (kappa n - |C(c)|) / sum_{i not in C(c)} mu~_i, C(c) = {i : c mu~_i >= 1}, iterated from c_0 = kappa n / |mu~|
(a Newton iteration from below on the concave piecewise-linear f(c) = sum min(1, c mu~_i): c_k increases to the
solution, C(c_k) grows, and it stops at the first repeated |C|: 3-12 vectorised O(n) passes in practice,
:func:`_capping`), the sum of the last one compensated.  :func:`project_dense` runs it on mu~ itself (no log, no
exp); :func:`project_dense_log` on a = exp(log mu~ - max) (one exp pass; exponents below -707 handled exactly).
Inputs the iteration does not settle (more than ``_CAP_ITERATIONS`` passes, an uncapped mass near underflow in the
log domain, c overflowing) go to the sort-based log-domain search (:func:`_project_log_sorted`: one O(n)
partition, a sort of the ceil(kappa n) largest, suffix log-sum-exps accumulated from the smallest entry up).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy import special

from fast._exact_sum import _lanes, _lanes_kept, checked_fsum, fsum, fsum_absdiff
from fast._contracts.boosting_contract import LOG_TINY, as_log_measure, as_measure, as_pair, as_probability, check_kappa
from fast._contracts.links import implements
from fast._contracts.validation import as_float_matrix, check_real

__all__ = [
    "size",
    "density",
    "normalize",
    "kl",
    "statistical_distance",
    "renyi",
    "is_dense",
    "project_dense",
    "project_dense_log",
]


# The contract's checks (spec.boosting_contract) test the range of every entry, then sum with math.fsum; here the
# range test is fused into one exactly rounded summing pass (fast._exact_sum: the same float as math.fsum, bit for
# bit), and the contract itself runs only when that pass finds a bad entry (its message, its order of checks).


def _measure_and_size(mu, name: str = "mu"):
    """(as_measure(mu), math.fsum of it) in one pass over mu."""
    arr = as_float_matrix(mu, name, ndim=1, check_finite=False)  # type, shape, emptiness: as_measure's first rules
    total, ok = checked_fsum(arr, 0.0, 1.0)
    if not ok:  # a non-finite entry or one outside [0, 1]: the contract raises its own message
        arr = as_measure(mu, name)
        total = math.fsum(arr)
    return arr, total


def _probability(p, name: str) -> np.ndarray:
    """as_probability(p, name) with its sum (entries >= 0, |sum - 1| <= 1e-9) taken in the range-testing pass."""
    arr = as_float_matrix(p, name, ndim=1, check_finite=False)
    total, ok = checked_fsum(arr, 0.0, math.inf)
    if not ok or abs(total - 1.0) > 1e-9:
        return as_probability(p, name)  # raises the contract's message
    return arr


@implements("bun2020.def3")
def size(mu) -> float:
    """|mu| = sum_x mu(x)   [bun2020 Def. 3]

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure (entries in [0, 1]).

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        mu empty, not finite, or outside [0, 1].

    Examples
    --------
    >>> from fast.measures import size
    >>> size([0.5, 0.25, 1.0])
    1.75
    """
    return _measure_and_size(mu)[1]


@implements("bun2020.def3")
def density(mu) -> float:
    """d(mu) = |mu| / n   [bun2020 Def. 3]

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure.

    Returns
    -------
    float
        |mu| / n.

    Raises
    ------
    ValueError, TypeError
        As :func:`size`.

    Examples
    --------
    >>> from fast.measures import density
    >>> density([0.5, 0.25, 1.0, 0.25])
    0.5
    """
    m, total = _measure_and_size(mu)
    return total / m.shape[0]


@implements("bun2020.def3")
def normalize(mu) -> np.ndarray:
    """mu^ = mu / |mu|   [bun2020 Def. 3]

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure of positive size.

    Returns
    -------
    ndarray of shape (n,)
        The induced distribution mu / |mu|.

    Raises
    ------
    ValueError
        The zero measure, or a bad measure.

    Examples
    --------
    >>> from fast.measures import normalize
    >>> normalize([0.5, 0.5, 1.0])
    array([0.25, 0.25, 0.5 ])
    """
    m, total = _measure_and_size(mu)
    if total == 0.0:
        raise ValueError("mu must have positive size |mu| > 0 (the zero measure induces no distribution)")
    return m / total


@implements("bun2020.def4")
def kl(mu, nu) -> float:
    """KL(mu || nu) = sum mu log(mu/nu) + nu - mu   [bun2020 Def. 4] (scipy.special.kl_div is this generalised form)

    Parameters
    ----------
    mu, nu : array-like of shape (n,)
        Non-negative vectors of the same length (measures or distributions).

    Returns
    -------
    float
        The generalised KL divergence (+inf when mu(x) > 0 = nu(x)).

    Raises
    ------
    ValueError, TypeError
        Negative, non-finite or mismatched inputs.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.measures import kl
    >>> round(kl(np.array([0.5, 0.5]), np.array([0.25, 0.75])), 6)
    0.143841
    """
    a, b = as_pair(mu, nu, names=("mu", "nu"))
    terms = special.kl_div(a, b)
    total, finite = checked_fsum(terms, -math.inf, math.inf)
    if not finite:  # a term is +inf (mu(x) > 0 = nu(x)); no term is NaN for finite non-negative inputs
        return math.inf
    return max(0.0, total)


@implements("bun2020.def5")
def statistical_distance(p, q) -> float:
    """Delta(p, q) = (1/2) ||p - q||_1   [bun2020 Def. 5]

    Parameters
    ----------
    p, q : array-like of shape (n,)
        Probability vectors (sums 1 within 1e-9).

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Not distributions, or different lengths.

    Examples
    --------
    >>> from fast.measures import statistical_distance
    >>> statistical_distance([0.5, 0.5], [0.25, 0.75])
    0.25
    """
    a, b = as_pair(p, q, check=_probability)
    return 0.5 * fsum_absdiff(a, b)


#: integer orders up to this are summed as p (p / q)^(a - 1) by repeated multiplication (see _integer_order_sum)
_POWER_MAX_ORDER = 64


def _integer_order_sum(a: np.ndarray, b: np.ndarray, k: int):
    """sum_x p(x)^k q(x)^(1-k) = sum p (p / q)^(k - 1) for an integer order k >= 2 and p, q > 0: one division and
    <= 2 log2(k) multiplications per entry (binary powering), no transcendental function; exactly rounded sum.
    A term is off by at most ~2 log2(k) + 2 roundings (the reference's log-space form by a few ulps too), so D
    moves by ~1e-15 at most.  None when the sum is not a finite positive number (a ratio or a power overflowed):
    the log-space route then decides; terms that underflow are below 1e-308 next to a sum >= 1 - 1e-9 (Hoelder:
    sum p^k q^(1-k) >= (sum p)^k (sum q)^(1-k))."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        power = np.divide(a, b)  # (p / q)^(k - 1) by binary powering, in place: power <- power^2 * (p / q)^bit
        ratio = power.copy() if k > 2 else None
        for bit in bin(k - 1)[3:]:  # the bits after the leading one
            np.multiply(power, power, out=power)
            if bit == "1":
                np.multiply(power, ratio, out=power)
        power *= a
    value, finite = checked_fsum(power, -math.inf, math.inf)  # None when a ratio or a power overflowed
    return value if finite and 0.0 < value < math.inf else None


#: renyi's near-one form applies when (a - 1) max |log(p/q)| <= this (as reference.measures.NEAR_ONE_EXPONENT)
NEAR_ONE_EXPONENT = 0.5


@implements("bun2020.def6")
def renyi(p, q, alpha) -> float:
    """D_a(p || q) = (1/(a-1)) log sum p^a q^(1-a)   [bun2020 Def. 6]

    Parameters
    ----------
    p, q : array-like of shape (n,)
        Probability vectors.
    alpha : float
        Order, > 1.

    Returns
    -------
    float
        D_alpha(p || q) (+inf when p(x) > 0 = q(x)).

    Raises
    ------
    ValueError, TypeError
        Not distributions, or alpha <= 1.

    Examples
    --------
    >>> from fast.measures import renyi
    >>> round(renyi([0.5, 0.5], [0.25, 0.75], 2.0), 6)
    0.287682
    """
    a, b = as_pair(p, q, check=_probability)
    order = check_real(alpha, "alpha", low=1.0, low_open=True)
    if not (a.min() > 0.0 and b.min() > 0.0):  # zeros: restrict to the support of p (no gathers otherwise)
        support = a > 0
        if np.any(b[support] == 0.0):
            return math.inf
        a, b = a[support], b[support]
    log_a, log_b = np.log(a), np.log(b)
    ratios = log_a - log_b
    if (order - 1.0) * float(np.abs(ratios).max()) <= NEAR_ONE_EXPONENT:
        # sum = 1 + O((a - 1) log(p/q)): sum - 1 = (sum p - 1) + sum p expm1((a - 1) log(p/q)), as the reference (no
        # cancellation in log(sum), which lost 1e-12 relative at a = 1.0001)
        excess = fsum(np.concatenate([a, [-1.0]])) + fsum(a * np.expm1((order - 1.0) * ratios))
        return max(0.0, math.log1p(excess) / (order - 1.0))
    if order == int(order) and 2 <= order <= _POWER_MAX_ORDER:
        value = _integer_order_sum(a, b, int(order))
        if value is not None:
            return max(0.0, math.log(value) / (order - 1.0))
    logs = log_a * order
    tail = log_b * (1.0 - order)
    logs += tail  # order log p + (1 - order) log q, the reference's operations in its order
    top = float(logs.max())
    logs -= top
    return max(0.0, (top + math.log(fsum(np.exp(logs, out=logs)))) / (order - 1.0))


@implements("bun2020.s2.dense-set")
def is_dense(mu, kappa) -> bool:
    """mu in Gamma_kappa <=> |mu| >= kappa n   [bun2020 Section 2]

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure.
    kappa : float in (0, 1)

    Returns
    -------
    bool

    Raises
    ------
    ValueError, TypeError
        Bad measure or kappa outside (0, 1).

    Examples
    --------
    >>> from fast.measures import is_dense
    >>> is_dense([0.5, 0.25, 1.0, 0.25], 0.5), is_dense([0.5, 0.25, 1.0, 0.25], 0.6)
    (True, False)
    """
    m, total = _measure_and_size(mu)
    k = check_kappa(kappa)
    return bool(total >= k * m.shape[0])


#: numpy's SIMD exp leaves its fast path (~15x slower) for arguments below about -707.3 (results near the subnormal
#: range): arguments are clamped here, and the few in (LOG_TINY, _EXP_FAST] are evaluated exactly afterwards
_EXP_FAST = -707.0


def _exp(x: np.ndarray, inplace: bool = False) -> np.ndarray:
    """exp(x), 0 at or below LOG_TINY, bit-identical to np.exp above it.  Branch-free: one clamped SIMD exp, one
    multiplication by the mask, and an exact np.exp on the (usually empty) band (LOG_TINY, -707]; inplace: x is
    overwritten with the result."""
    keep = x > _EXP_FAST
    above_tiny = x > LOG_TINY
    band = None
    if np.count_nonzero(above_tiny) != np.count_nonzero(keep):  # some x in (LOG_TINY, -707]: rare
        band = np.flatnonzero(above_tiny & ~keep)
        low = x[band]
    del above_tiny
    out = np.maximum(x, _EXP_FAST, out=x if inplace else None)
    np.exp(out, out=out)
    out *= keep
    if band is not None:
        out[band] = np.exp(low)
    return out


def _exp_sum(x: np.ndarray) -> float:
    """sum exp(x) over x <= 0 containing 0, terms at or below -707 dropped (each < 1e-307 of the sum's term 1:
    invisible in the float result); pairwise summation; x is overwritten."""
    keep = x > _EXP_FAST
    np.maximum(x, _EXP_FAST, out=x)
    np.exp(x, out=x)
    x *= keep
    return float(np.sum(x))


def _lse(w: np.ndarray, inplace: bool = False) -> float:
    top = float(w.max())
    if top == -math.inf:
        return -math.inf
    if inplace:
        w -= top
        return top + math.log(_exp_sum(w))
    return top + math.log(_exp_sum(w - top))


#: the linear-domain search for the capping level is used when the capped boundary value is above this log weight
#: (relative to the largest): every term it compares is then a normal double far from underflow; below it the
#: log-domain accumulation (no underflow at any depth) decides
_LINEAR_SEARCH_FLOOR = -600.0


def _capping_level(head: np.ndarray, a: np.ndarray, tail: float, target: float) -> int:
    """The number j of capped coordinates: head[j] + log c_j <= 0 <= head[j-1] + log c_j with
    c_j = (target - j) / S_j, S_j = sum_{i >= j} exp(head[i]) + exp(tail) (head sorted decreasing, head[0] = 0,
    a = exp(head))."""
    kmax = head.shape[0]
    # linear domain: a_i = exp(head[i]) in (0, 1], suffix sums accumulated from the smallest term up (no cancellation).
    # A(j): a_j (target - j) <= S_j is monotone in j (A(j) and a_{j+1} <= a_j give a_{j+1} (target - j - 1) <=
    # S_j - a_j = S_{j+1}), and at the first j with A(j) the second condition follows from not A(j - 1): bisection.
    suffix = np.cumsum(a[::-1])[::-1]
    extra = math.exp(tail) if tail > LOG_TINY else 0.0
    lo, hi = 0, kmax - 1  # A(kmax - 1) holds: kmax - 1 < target <= kmax ... or the log-domain search decides
    if float(a[hi]) * (target - hi) <= float(suffix[hi]) + extra:
        while lo < hi:
            mid = (lo + hi) // 2
            if float(a[mid]) * (target - mid) <= float(suffix[mid]) + extra:
                hi = mid
            else:
                lo = mid + 1
        if head[lo] > _LINEAR_SEARCH_FLOOR:
            return lo
    span = target - np.arange(kmax)
    # log domain: suffix[j] = logsumexp(values below and including head[j]), accumulated upwards from the tail
    lsuffix = np.logaddexp.accumulate(np.concatenate(([tail], head[::-1])))[1:][::-1]
    log_c = np.log(span) - lsuffix
    ok = head + log_c <= 0.0
    ok[1:] &= head[:-1] + log_c[1:] >= 0.0
    capped = int(np.argmax(ok))
    if not ok[capped]:  # pragma: no cover - existence is Lemma 9's intermediate-value argument
        raise ArithmeticError("no capping level found")
    return capped


def _project_log_sorted(w: np.ndarray, ws: np.ndarray, top: float, positive: int, target: float,
                        owned: bool = False) -> np.ndarray:
    """Capped scaling by sorting (the fallback of :func:`_project_log`; ws = w - top, possibly w itself when
    owned): one O(n) partition, one sort of the kmax = ceil(kappa n) largest, two SIMD exp passes over n (the
    tail's log-sum-exp, the output) and a linear-domain suffix sum over the kmax largest (log domain only when the
    capping level is near underflow)."""
    n = w.shape[0]
    kmax = min(int(math.ceil(target)), positive)  # capped < target, and the rest keeps positive mass
    # only the kmax largest values can be capped: select them in O(n), sort only them (decreasing)
    if kmax < n:
        part = np.partition(ws, n - kmax)
        head = np.sort(part[n - kmax:])[::-1]
        tail = _lse(part[:n - kmax], inplace=True)  # part is our copy; its tail is not needed afterwards
    else:
        head = np.sort(ws)[::-1]
        tail = -math.inf
    a = _exp(head)  # head[0] = 0: a[0] = 1, so sum(a) is the head's log-sum-exp relative to its top
    if float(np.logaddexp(tail, math.log(float(np.sum(a))))) + top >= math.log(target):
        if owned:  # w was overwritten: the caller recomputes exp(w) exactly (see _project_owned)
            return None
        return _exp(w)  # already kappa-dense: the identity
    if positive == target:
        return (w != -np.inf).astype(np.float64)
    capped = _capping_level(head, a, tail, target)
    # log_c recomputed by pairwise sums (the accumulated suffix only chose `capped`); linear sums while the
    # boundary term is far above underflow
    head_rest = math.log(float(np.sum(a[capped:]))) if head[capped] > _LINEAR_SEARCH_FLOOR else _lse(head[capped:])
    rest = float(np.logaddexp(tail, head_rest))
    lc = math.log(target - capped) - rest
    np.add(ws, lc, out=ws)
    np.minimum(ws, 0.0, out=ws)
    return _exp(ws, inplace=True)  # min(1, c mu~), never overflowing (ws is our own array)


#: passes of the fixed-point iteration before the sort-based search takes over (3-12 in practice: Newton steps)
_CAP_ITERATIONS = 64
#: exp(_EXP_FAST): a = exp(max(w - top, -707)) equals it for every exponent at or below -707 (and a few just above):
#: such entries ("low") are left out of the iteration's sums and recomputed from their exponent for the output
_A_LOW = math.exp(_EXP_FAST)
#: the iteration's uncapped mass relative to the largest weight must exceed n times this (e^-600, see _project_log)
_KEPT_FLOOR = math.exp(-600.0)


def _flush_limit() -> float:
    """The largest double v with math.log(v) <= LOG_TINY: the reference's outputs exp(log v) at or below it are 0
    (the smallest normal double 2^-1022 and the 378 doubles above it whose log rounds to LOG_TINY)."""
    v = 2.0**-1022
    while math.log(math.nextafter(v, 1.0)) <= LOG_TINY:
        v = math.nextafter(v, 1.0)
    return v


#: outputs at or below this are 0, as the reference's exp(v) for v <= LOG_TINY (no subnormal results)
_FLUSH = _flush_limit()


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _kept_pass(x, c, low):
    """(capped, kept sum) at c: capped = #{x_i c >= 1}, kept = sum of x_i over low < x_i, x_i c < 1 (a plain
    vectorised sum: only the iteration's next c depends on it; the last pass is compensated)."""
    over = 0
    kept = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        scaled = v * c
        over += scaled >= 1.0
        kept += v if (v > low) & (scaled < 1.0) else 0.0
    return over, kept


@njit(cache=True, nogil=True)
def _capping(x, target, low, c, iterations):
    """(status, c, capped, kept) of capped scaling on x >= 0 (entries <= low count as 0), iterated from c (at most
    the solution, e.g. target / sum x): status 0 = c = (target - capped) / kept is the fixed point, kept = the
    uncapped sum, compensated (:func:`fast._exact_sum._lanes_kept`); status 1 = not settled within ``iterations``
    passes, the count went down (rounding) or c overflowed: the caller sorts instead."""
    previous = -1
    for _ in range(iterations):
        capped, kept = _kept_pass(x, c, low)
        if capped == previous:  # C(c) = C(c_prev): c is the fixed point; its sum once more, compensated
            capped, hi, lo, _ = _lanes_kept(x, c, low)
            kept = hi + lo
            if capped != previous or not (kept > 0.0):
                return 1, c, capped, kept
            c = (target - capped) / kept
            return (0 if c < np.inf else 1), c, capped, kept
        if capped < previous or not (kept > 0.0) or not (target - capped > 0.0):
            return 1, c, capped, kept
        c = (target - capped) / kept
        if not (c < np.inf):
            return 1, c, capped, kept
        previous = capped
    return 1, c, previous, 0.0


@njit(cache=True, nogil=True)
def _scale_capped(x, c, low, mark, out):
    """out_i = min(1, c x_i) for x_i > low (results at or below _FLUSH, the smallest normal double and a few
    above it: 0), out_i = mark for the others; returns their number."""
    lows = 0
    for i in range(x.shape[0]):
        v = x[i]
        r = min(1.0, v * c)
        keep = v > low
        lows += v <= low
        out[i] = (r if r > _FLUSH else 0.0) if keep else mark
    return lows


def _check_positive(positive: int, target: float) -> None:
    if positive < target:  # then |mu~| <= positive < kappa n: not the identity case either
        raise ValueError(f"mu~ has {positive} positive entries, fewer than kappa n = {target!r}: every kappa-dense "
                         f"measure has infinite KL from it (no projection)")


def _project_log(w: np.ndarray, k: float, owned: bool = False) -> np.ndarray:
    """Capped scaling on validated log weights (the kernel of project_dense_log and LB-NxM): a = exp(w - max)
    (exponents clamped at -707), the fixed-point iteration on a (:func:`_capping`), min(1, c a) and the exponents
    below -707 recomputed as exp(min(w - max + log c, 0)); the sort-based search when the iteration does not settle
    or the uncapped mass is near underflow (then the clamped entries are not negligible).  owned: w is a scratch
    array the projection may overwrite; in the identity case it returns None (the caller recomputes exp(w))."""
    n = w.shape[0]
    target = k * n
    positive = n - int(np.count_nonzero(w == -np.inf))
    _check_positive(positive, target)
    top = float(w.max())
    # capped scaling is invariant to scaling mu~: work relative to its largest entry (in place on a caller's scratch)
    ws = np.subtract(w, top, out=w if owned else None)
    a = np.maximum(ws, _EXP_FAST)
    np.exp(a, out=a)  # a[argmax] = 1; every exponent <= -707 gives exactly _A_LOW (numpy's fast SIMD path)
    _, hi, lo, _ = _lanes_kept(a, 0.0, _A_LOW)  # the kept (non-low) mass, compensated
    total = hi + lo
    # dense test on log |mu~|; the low entries (each < e^-707 of the largest) are below the sum's rounding
    if math.log(total) + top >= math.log(target):
        if owned:
            return None
        return _exp(w)  # already kappa-dense: the identity
    if positive == target:
        return (w != -np.inf).astype(np.float64)
    status, c, _, kept = _capping(a, target, _A_LOW, target / total, _CAP_ITERATIONS)
    # the left-out low terms (< n e^-707 of the largest) are far below the rounding of an uncapped mass above
    # n e^-600; a smaller one (weights spread over > 600 nats): the sort-based search, which keeps them
    if status != 0 or not (kept > n * _KEPT_FLOOR):
        return _project_log_sorted(w, ws, top, positive, target, owned)
    if _scale_capped(a, c, _A_LOW, -1.0, a):  # in place; the low entries marked -1
        fix = np.flatnonzero(a < 0.0)
        log_c = math.log(c)
        if log_c + _EXP_FAST + 1e-9 > LOG_TINY:  # some may scale to a normal number: exp(w - top + log c) exactly
            a[fix] = _exp(np.minimum(ws[fix] + log_c, 0.0))
        else:
            a[fix] = 0.0
    return a


def _project_owned(make_w, k: float) -> np.ndarray:
    """_project_log on a scratch array ``make_w()`` the projection may overwrite (one n-float allocation fewer);
    in the identity case the log weights are rebuilt by ``make_w()`` (bit-identical) and exponentiated."""
    out = _project_log(make_w(), k, owned=True)
    return _exp(make_w(), inplace=True) if out is None else out


@implements("bun2020.lemma9", "bun2020.def7")
def project_dense_log(log_mu, kappa) -> np.ndarray:
    """Pi_{Gamma_kappa}(exp(log_mu)) = min(1, c mu~)   [bun2020 Lemma 9, capped scaling, log domain]

    Parameters
    ----------
    log_mu : array-like of shape (n,)
        log mu~ (entries <= 0; -inf for mu~(i) = 0).
    kappa : float in (0, 1)

    Returns
    -------
    ndarray of shape (n,)
        As :func:`project_dense`, computed without ever forming mu~ (no underflow).

    Raises
    ------
    ValueError, TypeError
        Entries > 0 or NaN, kappa outside (0, 1), or fewer than kappa n finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.measures import project_dense_log
    >>> project_dense_log(np.log([0.1, 0.2, 0.05]) - 1000.0, 0.5).round(6)
    array([0.428571, 0.857143, 0.214286])
    """
    w = as_log_measure(log_mu)
    k = check_kappa(kappa)
    return _project_log(w, k)


@implements("bun2020.lemma9", "bun2020.def7")
def project_dense(mu, kappa) -> np.ndarray:
    """Pi_{Gamma_kappa}(mu~) = argmin_{mu in Gamma_kappa} KL(mu || mu~)   [bun2020 Def. 7, Lemma 9]

    Parameters
    ----------
    mu : array-like of shape (n,)
        The measure mu~ to project (entries in [0, 1]).
    kappa : float in (0, 1)
        Target density.

    Returns
    -------
    ndarray of shape (n,)
        min(1, c mu~) with |result| = kappa n (or mu~ itself when already kappa-dense); entries below 2.2e-308 are 0.

    Raises
    ------
    ValueError, TypeError
        A bad measure or kappa, or fewer than kappa n positive entries (no finite-KL projection).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.measures import project_dense
    >>> project_dense(np.array([0.1, 0.2, 0.05, 0.0]), 0.5)
    array([0.66666667, 1.        , 0.33333333, 0.        ])
    """
    m = as_float_matrix(mu, "mu", ndim=1, check_finite=False)  # as_measure's type, shape and emptiness rules
    hi, lo, _, ok = _lanes(m, 0.0, 1.0)  # its range rule fused into the compensated sum (a NaN makes hi NaN)
    if not (ok and math.isfinite(hi)):
        m = as_measure(mu)  # raises the contract's message
    k = check_kappa(kappa)
    n = m.shape[0]
    target = k * n
    positive = int(np.count_nonzero(m))
    if hi + lo >= target:  # already kappa-dense (|mu~| summed exactly): the identity
        return np.where(m > _FLUSH, m, 0.0)  # exp(log mu~) flushed as the reference does
    if positive <= target:
        _check_positive(positive, target)
        return (m > 0.0).astype(np.float64)  # exactly kappa n positive entries: all capped
    # the fixed-point iteration on mu~ itself: no log, no exp (capped scaling is linear in mu~)
    status, c, _, _ = _capping(m, target, 0.0, target / (hi + lo), _CAP_ITERATIONS)
    if status == 0:
        out = np.empty(n)
        _scale_capped(m, c, 0.0, 0.0, out)  # zeros of mu~ stay 0
        return out
    with np.errstate(divide="ignore"):  # what the iteration left (c overflowing: |mu~| near underflow)
        w = np.log(m)
    return _project_log(w, k)
