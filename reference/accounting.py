"""Privacy accounting: composition, zCDP, conversions, and an exact budget ledger   [bun2020 Sec. 2, Appx K]

Every function returns an upper bound on the privacy loss (rounded up where rounding matters).  The
ledgers (BudgetAccountant for (epsilon, delta), ZCDPAccountant for rho; spec.budget_ledger) keep exact fractions,
are charged what a mechanism DELIVERS (Laplace: D/t exactly), and refuse a spend that would exceed the budget
before the caller draws any noise.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from spec.accounting_contract import Composition
from spec.links import implements
from spec.validation import as_float_vector, check_int, check_positive, check_real

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
    >>> from reference.accounting import basic_composition
    >>> basic_composition([0.5, 0.25], [1e-6, 0.0])
    (0.75, 1e-06)
    """
    eps = as_float_vector(epsilons, "epsilons")
    dls = as_float_vector(deltas, "deltas", length=eps.shape[0])
    for e in eps:
        _check_nonnegative(float(e), "epsilons")
    for d in dls:
        _check_delta(float(d), "deltas")
    total_eps = sum((Fraction(float(e)) for e in eps), Fraction(0))
    total_delta = sum((Fraction(float(d)) for d in dls), Fraction(0))
    return _float_up(total_eps), min(1.0, _float_up(total_delta))


def _float_up(q: Fraction) -> float:
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


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
    >>> from reference.accounting import advanced_composition_thm48
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
    >>> from reference.accounting import advanced_composition
    >>> eps, delta = advanced_composition(0.1, 0.0, 10, 1e-6)
    >>> round(eps, 12), delta, advanced_composition(0.1, 0.0, 10, 1e-6).bound
    (1.0, 0.0, 'basic')
    >>> c = advanced_composition(0.01, 0.0, 10_000, 1e-6)
    >>> round(c.epsilon, 4), c.bound
    (5.7565, 'advanced')
    """
    eps_advanced, delta_advanced = advanced_composition_thm48(epsilon, delta, k, delta_prime)  # validates
    eps, dl, k = check_positive(epsilon, "epsilon"), _check_delta(delta, "delta"), check_int(k, "k", minimum=1)
    try:  # k eps exactly, rounded up (beyond the float range: inf, as the advanced bound's)
        eps_basic = _float_up(k * Fraction(eps))
    except OverflowError:
        eps_basic = math.inf
    delta_basic = min(1.0, _float_up(k * Fraction(dl)))
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
    >>> from reference.accounting import zcdp_composition
    >>> round(zcdp_composition([0.1, 0.2]), 12)
    0.3
    """
    r = as_float_vector(rhos, "rhos")
    for x in r:
        _check_nonnegative(float(x), "rhos")
    return _float_up(sum((Fraction(float(x)) for x in r), Fraction(0)))


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
    >>> from reference.accounting import renyi_gaussian
    >>> renyi_gaussian(np.zeros(2), np.array([1.0, 0.0]), 2.0, 3.0)
    0.375
    """
    a = as_float_vector(z, "z")
    b = as_float_vector(z_prime, "z_prime", length=a.shape[0])
    s = check_positive(sigma, "sigma")
    al = check_real(alpha, "alpha", low=1.0)
    sq = math.fsum((float(x) - float(y)) ** 2 for x, y in zip(a, b))
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
    >>> from reference.accounting import gaussian_rho
    >>> gaussian_rho(1.0, 2.0)
    0.125
    """
    d = check_positive(sensitivity, "sensitivity")
    s = check_positive(sigma, "sigma")
    return _float_up(Fraction(d) ** 2 / (2 * Fraction(s) ** 2))


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
    >>> from reference.accounting import pure_dp_to_zcdp
    >>> pure_dp_to_zcdp(1.0)
    0.5
    """
    e = check_positive(epsilon, "epsilon")
    return _float_up(Fraction(e) ** 2 / 2)


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
    >>> from reference.accounting import zcdp_to_dp
    >>> round(zcdp_to_dp(0.5, 1e-5), 4)
    5.2985
    """
    r = check_positive(rho, "rho")
    dl = _check_delta(delta, allow_zero=False)
    return _up(r + 2.0 * math.sqrt(r * math.log(1.0 / dl)))


def _eps_at_alpha(rho, log_inv_delta, alpha_minus_1):
    """eps(alpha) = alpha rho + (log(1/delta) + (alpha-1) log(1-1/alpha) - log alpha)/(alpha-1)   [CKS20 Prop. 12]

    Given alpha - 1 (not alpha: near alpha = 1 the subtraction would cancel), with log1p for log(1 - 1/alpha) and
    log(alpha): at alpha ~ 1e151 (rho = 1e-300) 1 - 1/alpha rounds to 1 at 40 digits and the (alpha-1) log(1-1/alpha)
    ~ -1 term would vanish (a valid but 0.15 % loose epsilon)."""
    alpha = 1 + alpha_minus_1
    return alpha * rho + (log_inv_delta + alpha_minus_1 * mpmath.log1p(-1 / alpha)
                          - mpmath.log1p(alpha_minus_1)) / alpha_minus_1


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
    >>> from reference.accounting import zcdp_to_dp, zcdp_to_dp_tight
    >>> round(zcdp_to_dp_tight(0.5, 1e-5), 4), zcdp_to_dp_tight(0.5, 1e-5) <= zcdp_to_dp(0.5, 1e-5)
    (4.7284, True)
    """
    r = check_positive(rho, "rho")
    dl = _check_delta(delta, allow_zero=False)
    with mpmath.workdps(40):
        L = -mpmath.log(mpmath.mpf(dl))
        rho_m = mpmath.mpf(r)
        # eps(alpha) is convex in alpha > 1; its minimiser is near 1 + sqrt(L / rho); golden-section on log(alpha - 1)
        f = lambda u: _eps_at_alpha(rho_m, L, mpmath.exp(u))  # noqa: E731
        centre = mpmath.log(mpmath.sqrt(L / rho_m))
        lo, hi = centre - 40, centre + 40
        g = (mpmath.sqrt(5) - 1) / 2
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        fa, fb = f(a), f(b)
        for _ in range(130):  # the bracket shrinks to 80 * 0.618^130 < 1e-25
            if fa < fb:
                hi, b, fb = b, a, fa
                a = hi - g * (hi - lo)
                fa = f(a)
            else:
                lo, a, fa = a, b, fb
                b = lo + g * (hi - lo)
                fb = f(b)
        best = min(fa, fb)
    return _up(max(0.0, float(best)))


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
    >>> from reference.accounting import zcdp_to_dp_rho, zcdp_to_dp_tight
    >>> rho = zcdp_to_dp_rho(1.0, 1e-5)
    >>> round(rho, 6), zcdp_to_dp_tight(rho, 1e-5) <= 1.0
    (0.030557, True)
    """
    e = check_positive(epsilon, "epsilon")
    dl = _check_delta(delta, allow_zero=False)
    lo, hi = 0.0, e  # eps(rho) >= rho, so rho* <= eps
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if zcdp_to_dp_tight(mid, dl) <= e:
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
from spec.budget_ledger import (Budget, BudgetAccountant, BudgetExceeded, LedgerNotShared,  # noqa: E402,F401
                                RhoBudget, split)
# the process-wide default ledger (issue 28): releases made without accountant= are recorded there
from spec.budget_ledger import (DefaultLedger, LedgerEntry, default_ledger,  # noqa: E402,F401
                                reset_default_ledger)
from spec.budget_ledger import ZCDPAccountant as _ZCDPLedger  # noqa: E402


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
    """

    _to_rho = staticmethod(zcdp_to_dp_rho)
    _to_epsilon = staticmethod(zcdp_to_dp_tight)
