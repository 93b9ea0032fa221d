"""Privacy accounting (fast: exact integer sums and float64 with proven rounding where the reference uses fractions and mpmath): composition, zCDP, conversions, and an exact budget ledger   [bun2020 Sec. 2, Appx K]

Every function returns an upper bound on the privacy loss (rounded up where rounding matters).  The
ledgers (BudgetAccountant for (epsilon, delta), ZCDPAccountant for rho; spec.budget_ledger) keep exact fractions,
are charged what a mechanism DELIVERS (Laplace: D/t exactly), and refuse a spend that would exceed the budget
before the caller draws any noise.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from fast._contracts.accounting_contract import Composition
from fast._contracts.links import implements
from fast._contracts.validation import (as_float_matrix, as_float_vector, check_finite_array, check_int, check_positive,
                                        check_real)

__all__ = [
    "basic_composition",
    "advanced_composition",
    "advanced_composition_thm48",
    "Composition",
    "zcdp_composition",
    "renyi_gaussian",
    "gaussian_rho",
    "pure_dp_to_zcdp",
    "zcdp_to_dp",
    "zcdp_to_dp_tight",
    "zcdp_to_dp_rho",
    "Budget",
    "BudgetExceeded",
    "LedgerNotShared",
    "BudgetAccountant",
    "ZCDPAccountant",
    "split",
    "DefaultLedger",
    "LedgerEntry",
    "default_ledger",
    "reset_default_ledger",
]


def _check_delta(value, name="delta", *, allow_zero=True, allow_one=False):
    return check_real(value, name, low=0.0, high=1.0, low_open=not allow_zero, high_open=not allow_one)


def _check_nonnegative(value, name):
    return check_real(value, name, low=0.0)


def _up(x: float) -> float:
    """One ulp up: turns a correctly rounded result into a safe upper bound."""
    return math.nextafter(x, math.inf)


def basic_composition(epsilons, deltas) -> tuple[float, float]:
    """k-fold composition of (eps_i, delta_i)-DP is (sum eps_i, sum delta_i)-DP   [Dwork-Roth 2014, Thm 3.16]

    Parameters
    ----------
    epsilons : array_like of float
        The epsilon of each mechanism (>= 0).
    deltas : array_like of float
        The delta of each mechanism, in [0, 1], same length.

    Returns
    -------
    tuple of float
        The composed (epsilon, delta), rounded up.

    Examples
    --------
    >>> from fast.accounting import basic_composition
    >>> basic_composition([0.5, 0.25], [1e-6, 0.0])
    (0.75, 1e-06)
    """
    eps = as_float_vector(epsilons, "epsilons")
    dls = as_float_vector(deltas, "deltas", length=eps.shape[0])
    _check_entries(eps, "epsilons", _check_nonnegative, eps < 0.0)
    _check_entries(dls, "deltas", _check_delta, (dls < 0.0) | (dls >= 1.0))
    return _ratio_up(*_exact_sum(eps)), min(1.0, _ratio_up(*_exact_sum(dls)))


# ---------------------------------------------------------------------------------------------------------
# exact sums of doubles (the reference sums Fraction(x) one by one; math.fsum).  A finite double q >= 0 is
# M 2^(E - 1075) with E its biased exponent (E = 0: subnormal, same scale as E = 1) and M < 2^53 an integer, so a
# sum of them is an integer over 2^1074: one numba pass adds each M into a uint64 bin per E (an overflowing bin
# carries 2^64 into its carry bin: a branch taken once per ~2^11 terms), and the <= 2048 bins are shifted together
# as Python ints once.  Same rational as the reference, so the same result, at ~1 ns a term.
# ---------------------------------------------------------------------------------------------------------
_SMALL_SUM = 32  # up to this many terms: Python ints / math.fsum (no array set-up)


@intrinsic
def _float_bits(typingctx, x):
    """The IEEE-754 bits of a float64 as a uint64 (an LLVM bitcast)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.uint64(types.float64), codegen


@njit(cache=True, nogil=True)
def _dyadic_bins(a, b, squares, bins, carry):
    """Add q_i = a_i (squares False; a_i >= 0 or -0.0) or q_i = (a_i - b_i)^2 (squares True, the correctly rounded
    product) into bins / carry (2048 uint64 each, see above).  Returns False, and stops, at the first q_i that is
    not finite (a NaN or inf entry, or an overflow): the caller decides what that means.  Written as one loop body
    (an inlined helper made numba's loop 10x slower)."""
    for i in range(a.shape[0]):
        q = a[i]
        if squares:
            d = q - b[i]
            q = d * d
        if not q <= 1.7976931348623157e308:
            return False
        w = _float_bits(q)
        e = (w >> np.uint64(52)) & np.uint64(0x7FF)
        frac = w & np.uint64(0xFFFFFFFFFFFFF)
        mant = frac | np.uint64(1 << 52)
        if e == np.uint64(0):
            mant = frac
        v = bins[e] + mant
        if v < mant:
            carry[e] += np.uint64(1)
        bins[e] = v
    return True


@njit(cache=True, nogil=True)
def _bins_to_limbs(bins, carry, limbs):
    """Write sum_E (carry_E 2^64 + bins_E) 2^(max(E, 1) - low) into limbs (uint64 holding 32-bit digits, little
    end first, 72 + 2048/32 of them) and return low, the lowest used max(E, 1) (-1: all bins empty).  Each digit
    receives < 2^46 before the final carry pass: no overflow."""
    low = np.int64(-1)
    for e in range(bins.shape[0]):
        if bins[e] != np.uint64(0) or carry[e] != np.uint64(0):
            low = max(np.int64(e), np.int64(1))
            break
    if low < 0:
        return low
    mask = np.uint64(0xFFFFFFFF)
    for e in range(bins.shape[0]):
        word, high = bins[e], carry[e]
        if word == np.uint64(0) and high == np.uint64(0):
            continue
        shift = max(np.int64(e), np.int64(1)) - low
        q, r = shift >> 5, np.uint64(shift & 31)
        for j in range(4):
            digit = ((word if j < 2 else high) >> np.uint64(32 * (j & 1))) & mask
            shifted = digit << r  # < 2^63
            limbs[q + j] += shifted & mask
            limbs[q + j + 1] += shifted >> np.uint64(32)
    for i in range(limbs.shape[0] - 1):
        limbs[i + 1] += limbs[i] >> np.uint64(32)
        limbs[i] &= mask
    return low


def _binned_sum(a: np.ndarray, b: np.ndarray | None = None) -> tuple[int, int] | None:
    """(N, k) with sum_i q_i = N 2^-k exactly (q_i = a_i, or (a_i - b_i)^2 when b is given), None if some q_i is
    not finite.  The bins become one Python int through 32-bit digits (no Python loop over the bins)."""
    bins = np.zeros(2048, dtype=np.uint64)
    carry = np.zeros(2048, dtype=np.uint64)
    if not _dyadic_bins(a, a if b is None else b, b is not None, bins, carry):
        return None
    limbs = np.zeros(2048 // 32 + 8, dtype=np.uint64)
    low = _bins_to_limbs(bins, carry, limbs)
    if low < 0:
        return 0, 0
    return int.from_bytes(limbs.astype("<u4").tobytes(), "little"), 1075 - int(low)


def _exact_sum(x: np.ndarray) -> tuple[int, int]:
    """(num, den), den a power of two: sum_i Fraction(x_i) = num / den exactly (x finite float64 >= 0, 1-d), the
    rational the reference computes."""
    if x.shape[0] <= _SMALL_SUM:
        ratios = [v.as_integer_ratio() for v in x.tolist()]  # denominators are powers of two
        den = max(q for _, q in ratios)
        return sum(p * (den // q) for p, q in ratios), den
    total, k = _binned_sum(x)
    return total << max(-k, 0), 1 << max(k, 0)


def _ratio_up(num: int, den: int) -> float:
    """The least float >= num / den (num >= 0, den > 0), as the reference's _float_up(Fraction(num, den)) (the same
    float, the same OverflowError) without Fraction arithmetic: num / den is correctly rounded, and is kept when
    p / q = that float satisfies p den >= num q."""
    f = num / den
    p, q = f.as_integer_ratio()
    return f if p * den >= num * q else math.nextafter(f, math.inf)


def _check_entries(values: np.ndarray, name: str, check, suspect: np.ndarray) -> None:
    """The reference's loop ``for v in values: check(float(v), name)`` (same first error, same message), run on
    the entries flagged by ``suspect`` only: a vectorised comparison that flags at least every entry ``check``
    refuses (entries it flags but ``check`` accepts are only checked, never refused)."""
    if suspect.any():
        for i in np.flatnonzero(suspect).tolist():
            check(float(values[i]), name)


def _sum_of_squares(a: np.ndarray, b: np.ndarray) -> float | None:
    """sum_i (a_i - b_i)^2 correctly rounded (math.fsum's result, from the exact sum), None if a square is not
    finite (a NaN / inf entry, or an overflow).  Each square is the correctly rounded product d * d; the
    reference's d ** 2 goes through libm's pow, which can differ by one ulp (1e-16 relative)."""
    if a.shape[0] <= _SMALL_SUM:
        with np.errstate(over="ignore", invalid="ignore"):
            squares = np.square(a - b)
        return math.fsum(squares.tolist()) if np.isfinite(squares).all() else None
    binned = _binned_sum(a, b)
    if binned is None:
        return None
    total, k = binned
    try:  # int / int and float(int) are correctly rounded, as fsum
        return total / (1 << k) if k >= 0 else float(total << -k)
    except OverflowError:
        return None


@implements("bun2020.thm48")
def advanced_composition_thm48(epsilon, delta, k, delta_prime) -> tuple[float, float]:
    """k-fold adaptive composition of (eps, delta)-DP is (k eps^2/2 + eps sqrt(2 k log(1/delta')), k delta + delta')-DP
    [bun2020 Theorem 48]

    The paper's formula as printed (with the sqrt(2): registry ``bun2020.thm48``).  For small k it is LOOSER than
    basic composition (k eps, k delta): 1.71 against 1.0 at k = 10, eps = 0.1; :func:`advanced_composition` returns
    the smaller of the two.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon (>= 0).
    delta : float
        Per-mechanism delta in [0, 1].
    k : int
        Number of mechanisms (>= 1).
    delta_prime : float
        The slack delta' in (0, 1).

    Returns
    -------
    tuple of float
        The composed (epsilon, delta).

    Examples
    --------
    >>> from fast.accounting import advanced_composition_thm48
    >>> eps, delta = advanced_composition_thm48(0.1, 0.0, 10, 1e-6)
    >>> round(eps, 4), round(delta, 9)
    (1.7123, 1e-06)
    """
    eps = check_positive(epsilon, "epsilon")
    dl = _check_delta(delta, "delta")
    k = check_int(k, "k", minimum=1)
    dp = _check_delta(delta_prime, "delta_prime", allow_zero=False)
    eps_total = k * eps * eps / 2.0 + eps * math.sqrt(2.0 * k * math.log(1.0 / dp))
    return _up(eps_total), min(1.0, _up(k * dl + dp))


def advanced_composition(epsilon, delta, k, delta_prime) -> Composition:
    """k-fold adaptive composition of (eps, delta)-DP: the SMALLER of the two valid bounds, basic (k eps, k delta)
    [Dwork-Roth 2014, Thm 3.16] and advanced (k eps^2/2 + eps sqrt(2 k log(1/delta')), k delta + delta')
    [bun2020 Theorem 48], saying which

    Both bounds hold for every k, so their minimum does.  For small k (or large epsilon) the advanced bound is
    looser (k = 10, eps = 0.1, delta' = 1e-6: 1.71 against 1.0), and a caller would otherwise under-spend a budget;
    this is what dp-accounting and diffprivlib users expect of "advanced composition".  The bound with the smaller
    epsilon is returned; on a tie the basic one (its delta, k delta, is smaller too).  When the advanced bound wins
    its delta carries the slack delta'.  The paper's formula alone is :func:`advanced_composition_thm48`.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon (> 0).
    delta : float
        Per-mechanism delta in [0, 1].
    k : int
        Number of mechanisms (>= 1).
    delta_prime : float
        The slack delta' in (0, 1) of the advanced bound.

    Returns
    -------
    Composition
        (epsilon, delta), each rounded up, unpackable as a pair; ``.bound`` is "basic" or "advanced".

    Examples
    --------
    >>> from fast.accounting import advanced_composition
    >>> eps, delta = advanced_composition(0.1, 0.0, 10, 1e-6)
    >>> round(eps, 12), delta, advanced_composition(0.1, 0.0, 10, 1e-6).bound
    (1.0, 0.0, 'basic')
    >>> c = advanced_composition(0.01, 0.0, 10_000, 1e-6)
    >>> round(c.epsilon, 4), c.bound
    (5.7565, 'advanced')
    """
    eps_advanced, delta_advanced = advanced_composition_thm48(epsilon, delta, k, delta_prime)  # validates
    eps, dl, k = check_positive(epsilon, "epsilon"), _check_delta(delta, "delta"), check_int(k, "k", minimum=1)
    (p, q), (r, t) = eps.as_integer_ratio(), dl.as_integer_ratio()
    try:  # k eps exactly, rounded up (beyond the float range: inf, as the advanced bound's)
        eps_basic = _ratio_up(k * p, q)
    except OverflowError:
        eps_basic = math.inf
    delta_basic = min(1.0, _ratio_up(k * r, t))
    if eps_basic <= eps_advanced:
        return Composition(eps_basic, delta_basic, "basic")
    return Composition(eps_advanced, delta_advanced, "advanced")


@implements("bun2020.lemma14")
def zcdp_composition(rhos) -> float:
    """M2(S, M1(S)) is (rho_1 + rho_2)-zCDP; by induction sum_i rho_i   [bun2020 Lemma 14]

    Parameters
    ----------
    rhos : array_like of float
        The rho of each mechanism (>= 0).

    Returns
    -------
    float
        The composed rho.

    Examples
    --------
    >>> from fast.accounting import zcdp_composition
    >>> round(zcdp_composition([0.1, 0.2]), 12)
    0.3
    """
    r = as_float_vector(rhos, "rhos")
    _check_entries(r, "rhos", _check_nonnegative, r < 0.0)
    return _ratio_up(*_exact_sum(r))


@implements("bun2020.lemma16")
def renyi_gaussian(z, z_prime, sigma, alpha) -> float:
    """D_alpha(N(z, sigma^2 I) || N(z', sigma^2 I)) = alpha ||z - z'||_2^2 / (2 sigma^2)   [bun2020 Lemma 16]

    Parameters
    ----------
    z, z_prime : array_like of shape (d,)
        The two means.
    sigma : float
        Standard deviation (> 0).
    alpha : float
        Renyi order (> 1).

    Returns
    -------
    float
        The Renyi divergence of order alpha.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.accounting import renyi_gaussian
    >>> renyi_gaussian(np.zeros(2), np.array([1.0, 0.0]), 2.0, 3.0)
    0.375
    """
    # finiteness is checked by the summing pass itself; the reference's order of errors is kept: z (all of its
    # rules), z_prime, the length, sigma, alpha
    a = as_float_matrix(z, "z", ndim=1, check_finite=False)
    try:
        b = as_float_matrix(z_prime, "z_prime", ndim=1, check_finite=False)
    except (TypeError, ValueError):
        check_finite_array(a, "z")
        raise
    if b.shape[0] != a.shape[0]:
        check_finite_array(a, "z")
        as_float_vector(b, "z_prime", length=a.shape[0])  # raises: z_prime's finiteness first, then its length
    sq = _sum_of_squares(a, b)
    if sq is None:
        check_finite_array(a, "z")
        check_finite_array(b, "z_prime")
    s = check_positive(sigma, "sigma")
    al = check_real(alpha, "alpha", low=1.0)
    if sq is None:  # a square or the sum overflows: the reference's own expression (inf or its OverflowError)
        sq = math.fsum((x - y) ** 2 for x, y in zip(a.tolist(), b.tolist()))
    return al * sq / (2.0 * s * s)


@implements("bun2020.lemma16")
def gaussian_rho(sensitivity, sigma) -> float:
    """The Gaussian mechanism N(f(S), sigma^2 I) with L2 sensitivity Delta is Delta^2/(2 sigma^2)-zCDP   [bun2020 Lemma 16]

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity Delta (> 0).
    sigma : float
        Standard deviation (> 0).

    Returns
    -------
    float
        rho = Delta^2 / (2 sigma^2).

    Examples
    --------
    >>> from fast.accounting import gaussian_rho
    >>> gaussian_rho(1.0, 2.0)
    0.125
    """
    d = check_positive(sensitivity, "sensitivity")
    s = check_positive(sigma, "sigma")
    (p, q), (r, t) = d.as_integer_ratio(), s.as_integer_ratio()
    return _ratio_up(p * p * t * t, 2 * q * q * r * r)  # Fraction(d)^2 / (2 Fraction(s)^2), without Fractions


def pure_dp_to_zcdp(epsilon) -> float:
    """An eps-DP mechanism is eps^2/2-zCDP   [Bun-Steinke 2016, Prop. 1.4]

    Parameters
    ----------
    epsilon : float
        Pure DP parameter (>= 0).

    Returns
    -------
    float
        rho = epsilon^2 / 2.

    Examples
    --------
    >>> from fast.accounting import pure_dp_to_zcdp
    >>> pure_dp_to_zcdp(1.0)
    0.5
    """
    e = check_positive(epsilon, "epsilon")
    p, q = e.as_integer_ratio()
    return _ratio_up(p * p, 2 * q * q)  # Fraction(e)^2 / 2


@implements("bun2020.lemma15")
def zcdp_to_dp(rho, delta) -> float:
    """rho-zCDP implies (rho + 2 sqrt(rho log(1/delta)), delta)-DP for every delta > 0   [bun2020 Lemma 15]

    Parameters
    ----------
    rho : float
        zCDP parameter (>= 0).
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        The epsilon of Lemma 15.

    Examples
    --------
    >>> from fast.accounting import zcdp_to_dp
    >>> round(zcdp_to_dp(0.5, 1e-5), 4)
    5.2985
    """
    r = check_positive(rho, "rho")
    dl = _check_delta(delta, allow_zero=False)
    return _up(r + 2.0 * math.sqrt(r * math.log(1.0 / dl)))


def _eps_at(w, rho, log_inv_delta):
    """An upper bound on eps at alpha = 1 + w   [CKS20 Prop. 12]: with log(1 - 1/alpha) = log w - log1p w,
    eps = A + B - C, A = (1 + w) rho, B = (L - log1p w) / w, C = log1p(1 / w), each term within 3 roundings (libm's
    log / log1p within one ulp), L = -log(delta) within one: the float result is within 8 u (|A| + (L + log1p w) / w
    + C) of the exact value (u = 2^-53), which is added (the caller rounds one ulp up as well)."""
    log_alpha = math.log1p(w)
    a, b, c = (1.0 + w) * rho, (log_inv_delta - log_alpha) / w, math.log1p(1.0 / w)
    return (a + b - c) + 8.0 * 2.0**-53 * (a + (log_inv_delta + log_alpha) / w + c)


def _optimal_w(rho, log_inv_delta):
    """w* = alpha* - 1 minimising eps(alpha) of CKS20 Prop. 12: eps'(alpha) = rho + (log alpha - L) / (alpha - 1)^2,
    so w* is the one root of g(w) = rho w^2 + log1p(w) - L, increasing from g(0) = -L.  Bracket: g(w) >= rho w^2 - L
    and g(w) >= log1p(w) - L give w* <= min(sqrt(L / rho), expm1(L)); g(w) <= rho w^2 + w - L gives
    w* >= 2L / (1 + sqrt(1 + 4 rho L)).  Newton steps kept inside the bracket (a geometric bisection when a step
    leaves it), to a relative step of 4 ulps."""
    root_rho = math.sqrt(rho)
    lo = 2.0 * log_inv_delta / (1.0 + math.sqrt(1.0 + 4.0 * rho * log_inv_delta))
    hi = min(math.sqrt(log_inv_delta) / root_rho, math.expm1(min(log_inv_delta, 709.0)))
    if not lo < hi:
        return hi
    w = hi
    for _ in range(300):
        g = (root_rho * w) ** 2 + math.log1p(w) - log_inv_delta  # (sqrt(rho) w)^2: no overflow for tiny rho
        if g > 0.0:
            hi = w
        elif g < 0.0:
            lo = w
        else:
            return w
        step = w - g / (2.0 * rho * w + 1.0 / (1.0 + w))
        if abs(step - w) <= 8.9e-16 * w:  # converged (Newton's step is below 4 ulps)
            return step if lo <= step <= hi else w
        nxt = step if lo < step < hi else math.sqrt(lo) * math.sqrt(hi)
        if not lo < nxt < hi:  # the bracket is down to adjacent floats
            return w
        w = nxt
    return w


@implements("bun2020.lemma15")
def zcdp_to_dp_tight(rho, delta) -> float:
    """eps = inf_{alpha > 1} alpha rho + (log(1/delta) + (alpha-1) log(1-1/alpha) - log alpha)/(alpha-1)
    [Canonne-Kamath-Steinke 2020, Prop. 12 / Cor. 13: valid for every rho-zCDP mechanism; never worse than Lemma 15]

    Parameters
    ----------
    rho : float
        zCDP parameter (>= 0).
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        The tight epsilon (at most :func:`zcdp_to_dp`'s).

    Examples
    --------
    >>> from fast.accounting import zcdp_to_dp, zcdp_to_dp_tight
    >>> round(zcdp_to_dp_tight(0.5, 1e-5), 4), zcdp_to_dp_tight(0.5, 1e-5) <= zcdp_to_dp(0.5, 1e-5)
    (4.7284, True)
    """
    r = check_positive(rho, "rho")
    dl = _check_delta(delta, allow_zero=False)
    return _tight(r, -math.log(dl))


def _tight(rho, log_inv_delta):
    """zcdp_to_dp_tight on validated arguments.  Every alpha > 1 gives a valid bound; the minimiser solves
    eps'(alpha) = 0, one increasing scalar equation (a few Newton steps, ~10 us, where scipy's bounded Brent on
    eps took ~0.3 ms)."""
    return _up(max(0.0, _eps_at(_optimal_w(rho, log_inv_delta), rho, log_inv_delta)))


@implements("bun2020.lemma15")
def zcdp_to_dp_rho(epsilon, delta) -> float:
    """the largest rho with zcdp_to_dp_tight(rho, delta) <= epsilon (bisection; rounded down)   [CKS20 Prop. 12]

    Parameters
    ----------
    epsilon : float
        Target epsilon (> 0).
    delta : float
        Target delta in (0, 1).

    Returns
    -------
    float
        The largest rho whose tight conversion is within (epsilon, delta).

    Raises
    ------
    ValueError
        If no rho > 0 converts to (``epsilon``, ``delta``) (epsilon too small for delta), or an input
        is out of range.

    Examples
    --------
    >>> from fast.accounting import zcdp_to_dp_rho, zcdp_to_dp_tight
    >>> rho = zcdp_to_dp_rho(1.0, 1e-5)
    >>> round(rho, 6), zcdp_to_dp_tight(rho, 1e-5) <= 1.0
    (0.030557, True)
    """
    e = check_positive(epsilon, "epsilon")
    dl = _check_delta(delta, allow_zero=False)
    lo, hi = 0.0, e  # eps(rho) >= rho, so rho* <= eps
    log_inv_delta = -math.log(dl)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _tight(mid, log_inv_delta) <= e:  # zcdp_to_dp_tight(mid, dl) without re-validating
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    if lo == 0.0:
        raise ValueError(f"epsilon={e} is too small for delta={dl}: no rho > 0 converts to it")
    return lo


# ---------------------------------------------------------------------------------------------------------
# the budget ledgers: one definition in spec.budget_ledger (exact fractions), this package's conversions bound in
# ---------------------------------------------------------------------------------------------------------
from fast._contracts.budget_ledger import (Budget, BudgetAccountant, BudgetExceeded, LedgerNotShared,  # noqa: E402,F401
                                           RhoBudget, split)
# the process-wide default ledger (issue 28): releases made without accountant= are recorded there
from fast._contracts.budget_ledger import (DefaultLedger, LedgerEntry, default_ledger,  # noqa: E402,F401
                                           reset_default_ledger)
from fast._contracts.budget_ledger import ZCDPAccountant as _ZCDPLedger  # noqa: E402


class ZCDPAccountant(_ZCDPLedger):
    """rho-zCDP ledger (charges add, bun2020 Lemma 14) against an (epsilon, delta) target, converted with this
    package's tight conversion (CKS20 Prop. 12); see :class:`spec.budget_ledger.ZCDPAccountant`.

    Parameters
    ----------
    epsilon : float
        Target epsilon (> 0).
    delta : float
        Target delta in (0, 1).
    path : None, str or os.PathLike, default=None
        None: in memory (refuses to be pickled or copied).  A path: a file-backed ledger shared by processes
        (pickles as its path); see :class:`spec.budget_ledger.BudgetAccountant`.

    Raises
    ------
    ValueError
        epsilon <= 0 or delta outside (0, 1).
    TypeError
        An epsilon or delta that is not a number (a :class:`RhoBudget` included: it is a rho).

    Examples
    --------
    >>> from fast.accounting import ZCDPAccountant
    >>> acc = ZCDPAccountant(1.0, 1e-5)
    >>> _ = acc.charge(0.5, 0, rho=0.01)  # a Gaussian release: its rho
    >>> acc.remaining_rho()  # exact (a Fraction), printed as a decimal
    RhoBudget(rho=0.0205565951976)
    >>> round(float(acc.remaining_rho()), 6)
    0.020557
    """

    _to_rho = staticmethod(zcdp_to_dp_rho)
    _to_epsilon = staticmethod(zcdp_to_dp_tight)
