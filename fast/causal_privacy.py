"""Private ANM (kusner2016 ch4, s4.1.7-4.1.8): sensitivities, Laplace release, propose-test-release, closed forms.

Production twin of :mod:`reference.causal_privacy` (read its docstring for what the checks found and which
corrected bounds are the defaults).  Privacy noise comes only from :mod:`fast.mechanisms`; seeded calls take the
same draws in the same order as the reference.  ``iqr_bin_distance`` is vectorised over the a + b = t splits.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from fast import mechanisms
from fast.causal import iqr
from fast._contracts.causal_validation import (
    HSIC_BOUNDS,
    RESIDUAL_BOUNDS,
    SPEARMAN_BOUNDS,
    SPEARMAN_EXACT,
    THRESHOLDS,
    check_bandwidth,
    check_bin_arguments,
    check_choice,
    check_delta,
    check_distance,
    check_lam,
    check_m,
    check_margin,
    check_score_value,
    private_values,
    quartile_indices,
)
from fast._contracts.links import implements
from fast._contracts.validation import as_float_vector, as_generator, check_int, check_positive

__all__ = [
    "SPEARMAN_EXACT",
    "spearman_sensitivity",
    "kendall_sensitivity",
    "hsic_sensitivity",
    "residual_sensitivity",
    "hsic_train_sensitivity",
    "rank_instability_distance",
    "laplace_scores",
    "stability_release",
    "iqr_bins",
    "iqr_bin_distance",
    "iqr_ptr",
    "iqr_decision_privacy",
    "iqr_train_bin_distance",
    "iqr_train_ptr",
    "iqr_train_decision_privacy",
    "prob_correct_laplace",
    "prob_correct_four_laplace",
]


def _generator(rng):
    return None if rng is None else as_generator(rng)


@implements("kusner2016.ch4.thm3_spearman")
def spearman_sensitivity(m, *, bound="proof"):
    """Delta_rho(m) <= 6(5m - 9)/(m(m + 1)) ("proof"), <= 30/m ("thesis"), exact for small m   [kusner2016 Thm 3.1].

    Parameters
    ----------
    m : int
        Number of test records (>= 2).
    bound : {"proof", "thesis"}, default="proof"
        Which bound to return.

    Returns
    -------
    float
        The L1 sensitivity bound of the Spearman score.

    Raises
    ------
    ValueError
        If ``bound="exact"`` and ``m`` is not tabled in ``SPEARMAN_EXACT`` (use ``bound="proof"``), or
        an input is out of range.

    Examples
    --------
    >>> from fast.causal_privacy import spearman_sensitivity
    >>> round(spearman_sensitivity(100), 6), spearman_sensitivity(100, bound="thesis")
    (0.291683, 0.3)
    """
    m = check_m(m, "spearman")
    bound = check_choice(bound, "bound", SPEARMAN_BOUNDS)
    if bound == "thesis":
        return 30.0 / m
    if bound == "exact":
        if m not in SPEARMAN_EXACT:
            raise ValueError(f"the exact Spearman sensitivity is tabled only for m in {sorted(SPEARMAN_EXACT)}, "
                             f"got m = {m}; use bound='proof'")
        return float(SPEARMAN_EXACT[m])
    return min(1.0, float(Fraction(6 * (5 * m - 9), m * (m + 1))))


@implements("kusner2016.ch4.thm3_kendall")
def kendall_sensitivity(m):
    """Delta_tau(m) = 4/m   [kusner2016 Thm 3.2] (capped at 1, the range of |tau|).

    Parameters
    ----------
    m : int
        Number of test records (>= 2).

    Returns
    -------
    float
        The sensitivity of the Kendall score.

    Examples
    --------
    >>> from fast.causal_privacy import kendall_sensitivity
    >>> kendall_sensitivity(100)
    0.04
    """
    m = check_m(m, "kendall")
    return min(1.0, 4.0 / m)


@implements("kusner2016.ch4.thm5", "kusner2016.ch4.thm5_improved")
def hsic_sensitivity(m, *, bound="entrywise"):
    """Delta_HSIC(m) <= (8m-4)/(m-1)^2 ("entrywise"), (12m-11)/(m-1)^2 ("appendix", m >= 4), (16m-8)/(m-1)^2 ("thm5")
    [kusner2016 Thm 5 and appendix A].

    Parameters
    ----------
    m : int
        Number of test records (>= 2).
    bound : {"entrywise", "appendix", "thm5"}, default="entrywise"
        Which bound to return.

    Returns
    -------
    float
        The sensitivity bound of the HSIC score.

    Raises
    ------
    ValueError
        If ``bound="appendix"`` and ``m`` < 4, or an input is out of range.

    Examples
    --------
    >>> from fast.causal_privacy import hsic_sensitivity
    >>> round(hsic_sensitivity(100), 6)
    0.081216
    """
    m = check_m(m, "hsic")
    bound = check_choice(bound, "bound", HSIC_BOUNDS)
    if bound == "thm5":
        return (16 * m - 8) / (m - 1) ** 2
    if bound == "appendix":
        if m < 4:
            raise ValueError(f"the appendix bound (12m-11)/(m-1)^2 needs m >= 4, got m = {m}")
        return (12 * m - 11) / (m - 1) ** 2
    return (8 * m - 4) / (m - 1) ** 2


@implements("kusner2016.ch4.thm7")
def residual_sensitivity(n, lam, *, bound="corrected"):
    """|r'_i - r~'_i| <= (4/(n lambda))(1 + 1/sqrt(2 lambda)) ("corrected"); 8/(n lambda^{3/2}) ("thesis")   [Thm 7].

    Parameters
    ----------
    n : int
        Number of training records.
    lam : float
        Ridge parameter lambda (> 0).
    bound : {"corrected", "thesis"}, default="corrected"
        Which bound to return.

    Returns
    -------
    float
        Bound on the change of one test residual when one training record is replaced.

    Examples
    --------
    >>> from fast.causal_privacy import residual_sensitivity
    >>> round(residual_sensitivity(100, 0.1), 6)
    1.294427
    """
    n = check_int(n, "n", minimum=1)
    lam = check_lam(lam)
    bound = check_choice(bound, "bound", RESIDUAL_BOUNDS)
    if bound == "thesis":
        return 8.0 / (n * lam ** 1.5)
    return 4.0 / (n * lam) * (1.0 + 1.0 / math.sqrt(2.0 * lam))


@implements("kusner2016.ch4.thm9")
def hsic_train_sensitivity(m, n, lam, *, bandwidth, bound="corrected"):
    """(4m/(m-1)) L_l R_n ("corrected") or 32 L_l R sqrt(m)/n, R = 8/lambda^{3/2} ("thesis")   [kusner2016 Thm 9].

    Parameters
    ----------
    m : int
        Number of test records.
    n : int
        Number of training records.
    lam : float
        Ridge parameter lambda (> 0).
    bandwidth : float
        Bandwidth of the HSIC kernel on the residuals (its Lipschitz constant L_l).
    bound : {"corrected", "thesis"}, default="corrected"
        Which bound to return.

    Returns
    -------
    float
        Sensitivity of the HSIC score to one training substitution.

    Examples
    --------
    >>> from fast.causal_privacy import hsic_train_sensitivity
    >>> round(hsic_train_sensitivity(100, 100, 0.1, bandwidth=0.5), 4)
    6.3443
    """
    m = check_m(m, "hsic")
    n = check_int(n, "n", minimum=1)
    lam = check_lam(lam)
    h = check_bandwidth(bandwidth)
    bound = check_choice(bound, "bound", RESIDUAL_BOUNDS)
    lipschitz = 1.0 / (h * math.sqrt(math.e))
    if bound == "thesis":
        return 32.0 * lipschitz * (8.0 / lam ** 1.5) * math.sqrt(m) / n
    return 4.0 * m / (m - 1) * lipschitz * residual_sensitivity(n, lam)


@implements("kusner2016.ch4.dist_lb")
def rank_instability_distance(residuals, *, n, lam):
    """d >= ceil(gamma / (2 R_n)) - 1, gamma = smallest gap between residual values   [kusner2016 s4.1.8].

    Parameters
    ----------
    residuals : array_like of shape (m,)
        Test residuals.
    n : int
        Number of training records.
    lam : float
        Ridge parameter lambda (> 0).

    Returns
    -------
    int
        A lower bound on the number of training substitutions needed to change the residuals' ranks.

    Raises
    ------
    ValueError
        If ``residuals`` holds fewer than 2 values, or an input has a bad shape or value.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal_privacy import rank_instability_distance
    >>> rank_instability_distance(np.array([0.0, 0.5, 1.0, 2.0]), n=1000, lam=1.0)
    36
    """
    r = as_float_vector(residuals, "residuals")
    if r.shape[0] < 2:
        raise ValueError(f"residuals must hold at least 2 values, got {r.shape[0]}")
    step = residual_sensitivity(n, lam)
    gap = float(np.min(np.diff(np.sort(r))))
    if gap <= 0.0:
        return 0
    return max(0, math.ceil(gap / (2.0 * step)) - 1)


@implements("kusner2016.ch4.def6", "kusner2016.ch4.lap2eps")
def laplace_scores(s_xy, s_yx, *, sensitivity, epsilon, rng=None):
    """(p_XY, p_YX) = (s_XY + Lap(Delta/eps), s_YX + Lap(Delta/eps)): (2 eps, 0)-DP on the test set   [kusner2016 s4.1.7].

    Parameters
    ----------
    s_xy, s_yx : float
        The two exact scores.
    sensitivity : float
        Sensitivity Delta of each score (> 0).
    epsilon : float
        Privacy parameter per score (> 0).
    rng : None or numpy.random.Generator, optional
        Noise source (None: OS entropy, as a private release must use).

    Returns
    -------
    tuple of float
        The noisy scores (p_XY, p_YX).

    Examples
    --------
    >>> from fast.causal_privacy import laplace_scores
    >>> p_xy, p_yx = laplace_scores(0.1, 0.3, sensitivity=0.01, epsilon=1.0)
    >>> isinstance(p_xy, float)
    True
    """
    s_xy = check_score_value(s_xy, "s_xy")
    s_yx = check_score_value(s_yx, "s_yx")
    out = mechanisms.laplace_mechanism(np.array([s_xy, s_yx]), sensitivity=sensitivity, epsilon=epsilon,
                                       rng=_generator(rng))
    return float(out[0]), float(out[1])


@implements("kusner2016.ch4.thm8")
def stability_release(value, distance, *, epsilon, delta, rng=None):
    """dhat = d + Lap(1/eps); f(D) if dhat > ln(1/delta)/eps, else bottom (None)   [Dwork-Roth Alg. 13; Thm 8].

    Parameters
    ----------
    value : float
        The exact answer f(D) (a finite real), released only when the distance is large enough.
    distance : int
        Distance d from D to the nearest dataset where f changes (>= 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).
    rng : None or numpy.random.Generator, optional
        Noise source (None: OS entropy).

    Returns
    -------
    float or None
        ``value``, or None (bottom) when the noisy distance is below the threshold.

    Examples
    --------
    >>> from fast.causal_privacy import stability_release
    >>> stability_release(0.25, 0, epsilon=1.0, delta=1e-12) is None  # unstable: refused (prob. 1 - 5e-13)
    True
    """
    value = check_score_value(value)
    distance = check_distance(distance)
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    dhat = mechanisms.laplace_mechanism(float(distance), sensitivity=1.0, epsilon=epsilon, rng=_generator(rng))
    if dhat > math.log(1.0 / delta) / epsilon:
        return value
    return None


@implements("kusner2016.ch4.alg4")
def iqr_bins(q):
    """B1 = [e^k, e^{k+1}), k = floor(ln q); B2 = [e^{k2+1/2}, e^{k2+3/2}), k2 = floor(ln q - 1/2)   [Alg. 4, corrected].

    Parameters
    ----------
    q : float
        An interquartile range (> 0).

    Returns
    -------
    tuple of (float, float)
        The two bins ``(lo, hi)`` containing ``q``.

    Examples
    --------
    >>> from fast.causal_privacy import iqr_bins
    >>> [tuple(round(e, 3) for e in b) for b in iqr_bins(3.0)]
    [(2.718, 7.389), (1.649, 4.482)]
    """
    q = check_positive(q, "q")
    out = []
    for shift in (0.0, 0.5):
        k = math.floor(math.log(q) - shift)
        while math.exp(k + shift) > q:
            k -= 1
        while math.exp(k + 1 + shift) <= q:
            k += 1
        out.append((math.exp(k + shift), math.exp(k + 1 + shift)))
    return tuple(out)


@implements("kusner2016.ch4.alg4")
def iqr_bin_distance(v, lo, hi, *, cap=None):
    """A = min number of substituted points moving IQR(v) out of [lo, hi)   [kusner2016 Alg. 4, line 6]; min(A, cap).

    Parameters
    ----------
    v : array_like of shape (m,)
        Real values.
    lo, hi : float
        The bin [lo, hi).
    cap : int, optional
        Upper cap on the returned count.

    Returns
    -------
    int
        The number of substitutions (0 when IQR(v) is outside the bin).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import iqr
    >>> from fast.causal_privacy import iqr_bin_distance, iqr_bins
    >>> v = np.arange(20.0)
    >>> iqr_bin_distance(v, *iqr_bins(iqr(v))[0])
    3
    """
    v = as_float_vector(v, "v")
    lo, hi, cap = check_bin_arguments(lo, hi, cap)
    return _bin_distance_sorted(_sorted_for_iqr(v), lo, hi, cap)


def _sorted_for_iqr(v: np.ndarray) -> np.ndarray:
    """np.sort(v) (v validated), sorted ONCE for IQR(v) and both bins' substitution counts; fewer than 4 values
    raise iqr's error.  (A full sort, not np.partition: numpy's SIMD sort of 1e6 doubles takes ~0.6x the time of
    a two-kth partition, the peer's np.percentile, on this machine.)"""
    if v.shape[0] < 4:
        iqr(v)  # raises its "m >= 4" error
    return np.sort(v)


def _iqr_sorted(s: np.ndarray) -> float:
    """IQR from the sorted values: s_(ceil(3m/4)) - s_(ceil(m/4)), as fast.causal.iqr."""
    i1, i3 = quartile_indices(s.shape[0])
    return float(s[i3 - 1] - s[i1 - 1])


def _bin_distance_sorted(s: np.ndarray, lo: float, hi: float, cap) -> int:
    """iqr_bin_distance on the sorted values s (arguments validated)."""
    q = _iqr_sorted(s)
    if not lo <= q < hi:
        return 0
    m = s.shape[0]
    i1, i3 = quartile_indices(m)
    last = m if cap is None else min(m, cap)

    def order(ranks):  # v_(rank), 1-based; -inf below 1, +inf above m (only ranks within t <= last of a quartile)
        out = s[np.clip(ranks, 1, m) - 1]
        out[ranks < 1] = -np.inf
        out[ranks > m] = np.inf
        return out

    def leaves(t):  # monotone in t: widest(t) is non-decreasing, narrowest(t) non-increasing
        a = np.arange(t + 1)
        widest = float(np.max(order(i3 + a) - order(i1 - (t - a))))
        narrowest = max(0.0, float(np.min(order(i3 - a) - order(i1 + (t - a)))))
        return widest >= hi or narrowest < lo

    if not leaves(last):
        return last
    low, high = 1, last  # binary search for the smallest t that leaves: O(m log m) instead of O(A^2)
    while low < high:
        mid = (low + high) // 2
        if leaves(mid):
            high = mid
        else:
            low = mid + 1
    return low


@implements("kusner2016.ch4.alg4")
def iqr_ptr(v, *, epsilon, delta, rng=None, threshold="corrected"):
    """ln IQR(v) + Lap(1/eps) if A_j + Lap(1/eps) > 1 + ln(1/delta)/eps for j = 1 or 2, else bottom (None)   [Alg. 4].

    Parameters
    ----------
    v : array_like of shape (m,)
        Real values (residuals), read in the public domain [-2^512, 2^512] (clamped; NaN and non-numbers read as 0:
        never refused for one value, issue 25; ``spec.causal_validation.PRIVATE_VALUE_BOUND``).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).
    rng : None or numpy.random.Generator, optional
        Noise source (None: OS entropy).
    threshold : {"corrected", "thesis"}, default="corrected"
        Test threshold: 1 + ln(1/delta)/eps (corrected) or as printed in the thesis.

    Returns
    -------
    float or None
        The noisy log IQR, or None (bottom).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal_privacy import iqr_ptr
    >>> iqr_ptr(np.zeros(20), epsilon=1.0, delta=1e-12) is None  # IQR 0 sits in no bin: refused
    True
    """
    v = private_values(v, "v")  # the public domain |v| <= 2^512, NaN read as 0 (issue 25): never refused per value
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    threshold = check_choice(threshold, "threshold", THRESHOLDS)
    s = _sorted_for_iqr(v)
    return _propose_test_release(_iqr_sorted(s), lambda lo, hi, cap: _bin_distance_sorted(s, lo, hi, cap),
                                 epsilon=epsilon, delta=delta, rng=rng, threshold=threshold)


def _propose_test_release(q, distance, *, epsilon, delta, rng, threshold):
    """Alg. 4's loop for the test-set and training-set releases, q = IQR(v); ``distance(lo, hi, cap)`` is A_j or
    its lower bound (the bins of iqr_bins(q) are valid bins and cap >= 1, so it validates nothing)."""
    if q <= 0.0:
        return None
    cut = 1.0 + (math.log(1.0 / delta) / epsilon if threshold == "corrected" else math.log(1.0 / delta))
    gen = _generator(rng)
    cap = math.ceil(cut + 50.0 / epsilon)
    for lo, hi in iqr_bins(q):
        a_j = distance(lo, hi, cap)
        r_j = mechanisms.laplace_mechanism(float(a_j), sensitivity=1.0, epsilon=epsilon, rng=gen)
        if r_j > cut:
            return mechanisms.laplace_mechanism(math.log(q), sensitivity=1.0, epsilon=epsilon, rng=gen)
    return None


@implements("kusner2016.ch4.iqr_train")
def iqr_train_bin_distance(v, lo, hi, *, n, lam, cap=None):
    """A~ = ceil(min(IQR(v) - lo, hi - IQR(v)) / (2 R_n)) <= training substitutions moving IQR(v) out of [lo, hi)
    [kusner2016 s4.1.8]; 0 outside the bin; min(A~, cap).

    Parameters
    ----------
    v : array_like of shape (m,)
        Test residuals.
    lo, hi : float
        The bin [lo, hi).
    n : int
        Number of training records.
    lam : float
        Ridge parameter lambda (> 0).
    cap : int, optional
        Upper cap on the returned count.

    Returns
    -------
    int
        The lower bound A~ on training substitutions.

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal import iqr
    >>> from fast.causal_privacy import iqr_bins, iqr_train_bin_distance
    >>> v = np.arange(20.0)
    >>> iqr_train_bin_distance(v, *iqr_bins(iqr(v))[0], n=1000, lam=1.0)
    192
    """
    v = as_float_vector(v, "v")
    lo, hi, cap = check_bin_arguments(lo, hi, cap)
    step = 2.0 * residual_sensitivity(n, lam)
    return _train_bin_distance(iqr(v), lo, hi, step, cap)


def _train_bin_distance(q: float, lo: float, hi: float, step: float, cap) -> int:
    """iqr_train_bin_distance from q = IQR(v) and step = 2 R_n (arguments validated)."""
    if not lo <= q < hi:
        return 0
    a = math.ceil(Fraction(min(q - lo, hi - q)) / Fraction(step))
    return a if cap is None else min(a, cap)


@implements("kusner2016.ch4.iqr_train")
def iqr_train_ptr(residuals, *, n, lam, epsilon, delta, rng=None, threshold="corrected"):
    """Alg. 4 on the test residuals with A_j counted in training substitutions (iqr_train_bin_distance)
    [kusner2016 s4.1.8; (3 eps, delta)-DP w.r.t. one training substitution].

    Parameters
    ----------
    residuals : array_like of shape (m,)
        Test residuals, read in the public domain as ``iqr_ptr``'s ``v`` (clamped to +-2^512, NaN read as 0).
    n : int
        Number of training records.
    lam : float
        Ridge parameter lambda (> 0).
    epsilon : float
        Privacy parameter (> 0).
    delta : float
        Privacy parameter in (0, 1).
    rng : None or numpy.random.Generator, optional
        Noise source (None: OS entropy).
    threshold : {"corrected", "thesis"}, default="corrected"
        Test threshold: 1 + ln(1/delta)/eps (corrected) or as printed in the thesis.

    Returns
    -------
    float or None
        The noisy log IQR, or None (bottom).

    Examples
    --------
    >>> import numpy as np
    >>> from fast.causal_privacy import iqr_train_ptr
    >>> iqr_train_ptr(np.zeros(20), n=100, lam=1.0, epsilon=1.0, delta=1e-12) is None
    True
    """
    r = private_values(residuals, "residuals")  # the public domain, as iqr_ptr (issue 25)
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    threshold = check_choice(threshold, "threshold", THRESHOLDS)
    step = 2.0 * residual_sensitivity(n, lam)
    q = _iqr_sorted(_sorted_for_iqr(r))  # once, for both bins
    return _propose_test_release(q, lambda lo, hi, cap: _train_bin_distance(q, lo, hi, step, cap),
                                 epsilon=epsilon, delta=delta, rng=rng, threshold=threshold)


@implements("kusner2016.ch4.iqr_train")
def iqr_train_decision_privacy(epsilon, delta):
    """(6 eps, 2 delta): two (3 eps, delta) PTR releases (r'_Y, r'_X) read the training set   [kusner2016 s4.1.8].

    Parameters
    ----------
    epsilon : float
        Per-release epsilon.
    delta : float
        Per-release delta.

    Returns
    -------
    tuple of float
        The (epsilon, delta) of the decision w.r.t. one training substitution.

    Examples
    --------
    >>> from fast.causal_privacy import iqr_train_decision_privacy
    >>> iqr_train_decision_privacy(1.0, 1e-5)
    (6.0, 2e-05)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    return 6.0 * epsilon, 2.0 * delta


@implements("kusner2016.ch4.iqr_compose")
def iqr_decision_privacy(epsilon, delta):
    """(12 eps, 4 delta): four PTR releases, each (3 eps, delta), all reading record k   [s4.1.7, corrected].

    Parameters
    ----------
    epsilon : float
        Per-release epsilon of Algorithm 4.
    delta : float
        Per-release delta.

    Returns
    -------
    tuple of float
        The (epsilon, delta) of the decision.

    Examples
    --------
    >>> from fast.causal_privacy import iqr_decision_privacy
    >>> iqr_decision_privacy(1.0, 1e-5)
    (12.0, 4e-05)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    return 12.0 * epsilon, 4.0 * delta


@implements("kusner2016.ch4.thm4", "kusner2016.ch4.thm4_neg")
def prob_correct_laplace(gamma, sigma):
    """1 - (gamma + 2 sigma)/(4 sigma) e^{-gamma/sigma} (gamma >= 0), mirrored for gamma < 0   [kusner2016 Thm 4].

    Parameters
    ----------
    gamma : float
        Gap s_YX - s_XY between the exact scores.
    sigma : float
        Laplace scale of each score's noise (> 0).

    Returns
    -------
    float
        Probability that the noisy decision equals the exact one.

    Examples
    --------
    >>> from fast.causal_privacy import prob_correct_laplace
    >>> prob_correct_laplace(0.0, 1.0), round(prob_correct_laplace(1.0, 1.0), 4)
    (0.5, 0.7241)
    """
    gamma = check_margin(gamma)
    sigma = check_positive(sigma, "sigma")
    g = abs(gamma) / sigma
    tail = (g + 2.0) / 4.0 * math.exp(-g)
    return 1.0 - tail if gamma >= 0.0 else tail


@implements("kusner2016.ch4.thm6_2")
def prob_correct_four_laplace(gamma, sigma):
    """1 - e^{-g} (48 + 33 g + 9 g^2 + g^3)/96, g = gamma/sigma (gamma >= 0), mirrored for gamma < 0   [Thm 6.2].

    Parameters
    ----------
    gamma : float
        Gap between the exact scores.
    sigma : float
        Laplace scale of each of the four noises (> 0).

    Returns
    -------
    float
        Probability that the noisy decision equals the exact one.

    Examples
    --------
    >>> from fast.causal_privacy import prob_correct_four_laplace
    >>> round(prob_correct_four_laplace(1.0, 1.0), 4)
    0.6513
    """
    gamma = check_margin(gamma)
    sigma = check_positive(sigma, "sigma")
    g = abs(gamma) / sigma
    tail = math.exp(-g) * (48.0 + 33.0 * g + 9.0 * g * g + g * g * g) / 96.0
    return 1.0 - tail if gamma >= 0.0 else tail
