"""Private ANM (kusner2016 ch4, s4.1.7-4.1.8): sensitivities, Laplace release, propose-test-release, closed forms.

Readable mirror of :mod:`fast.causal_privacy`.  Privacy noise comes only from :mod:`reference.mechanisms`
(floating-point-safe discrete Laplace); ``rng=None`` draws from the OS CSPRNG.

What the checks in ``proofs_checks/check_causal_*.py`` found, and what this module therefore uses:

* Spearman (Theorem 3.1): ``30/m`` holds but is loose; the proof's own arithmetic gives ``6(5m-9)/(m(m+1))``
  (the thesis prints ``5m-3``), valid for midranks too; the exhaustive maximum is tabled (``bound="exact"``).
* Kendall (Theorem 3.2): ``4/m`` is exact (tight) for m >= 3, ties included.
* HSIC (Theorem 5): ``(16m-8)/(m-1)^2`` holds; the appendix's ``(12m-11)/(m-1)^2`` (m >= 4) holds; with kernels
  valued in [0, 1] every entry of ``HKH`` lies in [-2, 2] (the thesis bounds it by 4), which gives
  ``(8m-4)/(m-1)^2`` by the thesis's own argument: the default.
* Residuals (Theorem 7): ``8/(n lambda^{3/2})`` is FALSE for every lambda > 4 and n > 4/(lambda^{3/2} - 2 lambda)
  (one isolated training point, its label flipped: ``4/(n lambda + 2)``; for n = 1 or identical points, lambda > 6.73):
  the proof drops the "+2" of ``(||w|| + ||w~|| + 2)``.  Its ``||w|| <= 1/sqrt(lambda)`` is true (even
  ``||w||^2 = sum_k s_k^2 (u_k.y)^2 / (s_k^2 + n lambda/2)^2 <= ||y||^2 / (2 n lambda) <= 1/(2 lambda)``), and strong
  convexity applied to both objectives halves the constant: ``|r_i - r~_i| <= (4/(n lambda)) (1 + 1/sqrt(2 lambda))``,
  within 10% of the identical-points example for large lambda: the default.
* IQR propose-test-release (Algorithm 4): the printed second bin ``[e^{k-1/2}, e^{k+1/2})`` need not contain the
  IQR; the half-shifted bin that contains it, ``[e^{k2+1/2}, e^{k2+3/2})`` with ``k2 = floor(ln IQR - 1/2)``, is
  used.  The printed threshold ``1 + ln(1/delta)`` releases an unstable IQR with probability
  ``delta^epsilon / 2`` per test (>> delta for epsilon < 1); ``1 + ln(1/delta)/epsilon`` restores
  ``delta / 2`` (default; ``threshold="thesis"`` reproduces the thesis).
* The four log-IQR releases of one decision all read record k (it sits in x', y' and both residuals), so the
  decision is (12 epsilon, 4 delta)-DP by basic composition, not (9 epsilon, 3 delta).
* Training-set IQR (s4.1.8, "Algorithm 4 with A_j counted in training points"): A_j is replaced by the lower bound
  ``A~_j = ceil(dist(IQR, boundary of B_j) / (2 R_n))`` (each training substitution moves every test residual by
  <= R_n, hence each quartile by <= R_n and the IQR by <= 2 R_n).  A~_j is 1-Lipschitz in the training set, and
  A~_j <= 1 whenever a neighbour's IQR leaves B_j, so Algorithm 4's argument goes through unchanged: (3 eps,
  delta) per residual IQR; IQR(x') and IQR(y') are test data (public here), so the decision is (6 eps, 2 delta)
  per training record (it sits in both regressions), as the thesis says.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reference import mechanisms
from reference.causal import iqr
from spec.causal_validation import (
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
from spec.links import implements
from spec.validation import as_float_vector, as_generator, check_int, check_positive

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
    """One Generator for a sequence of draws (a seed must not restart per draw); None stays None (OS CSPRNG)."""
    return None if rng is None else as_generator(rng)


# --------------------------------------------------------------------------- test-set sensitivities


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
    >>> from reference.causal_privacy import spearman_sensitivity
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
    # Delta sum d^2 <= (m-1)(4m-8) + (m-1)^2 = (m-1)(5m-9); times 6/(m(m^2-1))
    return min(1.0, float(Fraction(6 * (5 * m - 9), m * (m + 1))))  # |rho| lies in [0, 1]


@implements("kusner2016.ch4.thm3_kendall")
def kendall_sensitivity(m):
    """Delta_tau(m) = 2(m - 1) / (m(m - 1)/2) = 4/m   [kusner2016 Thm 3.2].

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
    >>> from reference.causal_privacy import kendall_sensitivity
    >>> kendall_sensitivity(100)
    0.04
    """
    m = check_m(m, "kendall")
    return min(1.0, 4.0 / m)


@implements("kusner2016.ch4.thm5", "kusner2016.ch4.thm5_improved")
def hsic_sensitivity(m, *, bound="entrywise"):
    """Delta_HSIC(m) <= (8m-4)/(m-1)^2 ("entrywise"), (12m-11)/(m-1)^2 ("appendix", m >= 4),
    (16m-8)/(m-1)^2 ("thm5")   [kusner2016 Thm 5 and appendix A]; kernels valued in [0, 1].

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
    >>> from reference.causal_privacy import hsic_sensitivity
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


# --------------------------------------------------------------------------- training-set sensitivities


@implements("kusner2016.ch4.thm7")
def residual_sensitivity(n, lam, *, bound="corrected"):
    """|r'_i - r~'_i| <= (4/(n lambda)) (1 + 1/sqrt(2 lambda)) ("corrected"); 8/(n lambda^{3/2}) ("thesis", false for
    lambda > 4)   [kusner2016 Thm 7, eq. (4.7)]; KRR of eq. (4.6) with |x|, |y| <= 1, k(x, x) <= 1.

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
    >>> from reference.causal_privacy import residual_sensitivity
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
    """|HSIC(x', r'_Y) - HSIC(x', r~'_Y)| <= (4m/(m-1)) L_l R_n, L_l = 1/(h sqrt(e)) for the Gaussian l
    ("corrected", R_n from the corrected Thm 7); 32 L_l R sqrt(m)/n with R = 8/lambda^{3/2} ("thesis")
    [kusner2016 Thm 9].

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
    >>> from reference.causal_privacy import hsic_train_sensitivity
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
    # |Delta L_ij| <= L_l |Delta(r_i - r_j)| <= 2 L_l R_n (i != j), sum_{i != j} |(HKH)_ij| <= 2 m (m - 1)
    return 4.0 * m / (m - 1) * lipschitz * residual_sensitivity(n, lam)


@implements("kusner2016.ch4.dist_lb")
def rank_instability_distance(residuals, *, n, lam):
    """d >= ceil(gamma / (2 R_n)) - 1, gamma = smallest gap between residual values, R_n = residual_sensitivity(n, lam)
    [kusner2016 s4.1.8: d > floor(n gamma lambda^{3/2} / 16) with the thesis's R].

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
    >>> from reference.causal_privacy import rank_instability_distance
    >>> rank_instability_distance(np.array([0.0, 0.5, 1.0, 2.0]), n=1000, lam=1.0)
    36
    """
    r = as_float_vector(residuals, "residuals")
    if r.shape[0] < 2:
        raise ValueError(f"residuals must hold at least 2 values, got {r.shape[0]}")
    step = residual_sensitivity(n, lam)
    values = sorted(float(t) for t in r)
    gap = min(values[i + 1] - values[i] for i in range(len(values) - 1))
    if gap <= 0.0:
        return 0
    # with d substitutions two residuals approach by <= 2 d R_n: no rank changes while 2 d R_n < gap
    return max(0, math.ceil(gap / (2.0 * step)) - 1)


# --------------------------------------------------------------------------- private release


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
    >>> from reference.causal_privacy import laplace_scores
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
    """dhat = d + Lap(1/eps); output f(D) if dhat > ln(1/delta)/eps, else bottom (None)   [Dwork-Roth Alg. 13; kusner2016 Thm 8].

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
    >>> from reference.causal_privacy import stability_release
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
    """B1 = [e^k, e^{k+1}), k = floor(ln q); B2 = [e^{k2+1/2}, e^{k2+3/2}), k2 = floor(ln q - 1/2)   [kusner2016 Alg. 4,
    B2 corrected so that it contains q].

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
    >>> from reference.causal_privacy import iqr_bins
    >>> [tuple(round(e, 3) for e in b) for b in iqr_bins(3.0)]
    [(2.718, 7.389), (1.649, 4.482)]
    """
    q = check_positive(q, "q")
    out = []
    for shift in (0.0, 0.5):
        k = math.floor(math.log(q) - shift)
        while math.exp(k + shift) > q:  # guard the floor against rounding of log / exp
            k -= 1
        while math.exp(k + 1 + shift) <= q:
            k += 1
        out.append((math.exp(k + shift), math.exp(k + 1 + shift)))
    return tuple(out)


@implements("kusner2016.ch4.alg4")
def iqr_bin_distance(v, lo, hi, *, cap=None):
    """A = min number of substituted points moving IQR(v) out of [lo, hi)   [kusner2016 Alg. 4, line 6]:
    min t with max_{a+b=t} v_(i3+a) - v_(i1-b) >= hi or max(0, min_{a+b=t} v_(i3-a) - v_(i1+b)) < lo.
    ``cap``: return min(A, cap) (still 1-Lipschitz in v, so PTR stays private; bounds the work).

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
    >>> from reference.causal import iqr
    >>> from reference.causal_privacy import iqr_bin_distance, iqr_bins
    >>> v = np.arange(20.0)
    >>> iqr_bin_distance(v, *iqr_bins(iqr(v))[0])
    3
    """
    v = as_float_vector(v, "v")
    lo, hi, cap = check_bin_arguments(lo, hi, cap)
    q = iqr(v)
    if not lo <= q < hi:
        return 0
    values = sorted(float(t) for t in v)
    m = len(values)
    i1, i3 = quartile_indices(m)

    def order_stat(i):  # 1-based, +-inf beyond the ends (points moved arbitrarily far)
        if i < 1:
            return -math.inf
        if i > m:
            return math.inf
        return values[i - 1]

    last = m if cap is None else min(m, cap)
    for t in range(1, last + 1):
        widest = max(order_stat(i3 + a) - order_stat(i1 - (t - a)) for a in range(t + 1))
        narrowest = max(0.0, min(order_stat(i3 - a) - order_stat(i1 + (t - a)) for a in range(t + 1)))
        if widest >= hi or narrowest < lo:
            return t
    return last


@implements("kusner2016.ch4.alg4")
def iqr_ptr(v, *, epsilon, delta, rng=None, threshold="corrected"):
    """ln IQR(v) + Lap(1/eps) if A_j + Lap(1/eps) > 1 + ln(1/delta)/eps for j = 1 or 2, else bottom (None)
    [kusner2016 Alg. 4 (Dwork-Lei 2009); (3 eps, delta)-DP].  IQR(v) = 0 returns bottom.

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
    >>> from reference.causal_privacy import iqr_ptr
    >>> iqr_ptr(np.zeros(20), epsilon=1.0, delta=1e-12) is None  # IQR 0 sits in no bin: refused
    True
    """
    v = private_values(v, "v")  # the public domain |v| <= 2^512, NaN read as 0 (issue 25): never refused per value
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    threshold = check_choice(threshold, "threshold", THRESHOLDS)
    return _propose_test_release(v, lambda lo, hi, cap: iqr_bin_distance(v, lo, hi, cap=cap), epsilon=epsilon,
                                 delta=delta, rng=rng, threshold=threshold)


def _propose_test_release(v, distance, *, epsilon, delta, rng, threshold):
    """Alg. 4's loop, shared by the test-set and training-set releases: ``distance(lo, hi, cap)`` is A_j (or a
    1-Lipschitz lower bound of it).  IQR(v) = 0 returns bottom."""
    q = iqr(v)
    if q <= 0.0:
        return None  # A = 0: outside every bin (post-processing of ln 0 = -inf to bottom)
    cut = 1.0 + (math.log(1.0 / delta) / epsilon if threshold == "corrected" else math.log(1.0 / delta))
    gen = _generator(rng)
    cap = math.ceil(cut + 50.0 / epsilon)  # A above the cut by 50/eps passes except w.p. e^-50 / 2
    for lo, hi in iqr_bins(q):
        a_j = distance(lo, hi, cap)
        r_j = mechanisms.laplace_mechanism(float(a_j), sensitivity=1.0, epsilon=epsilon, rng=gen)
        if r_j > cut:
            return mechanisms.laplace_mechanism(math.log(q), sensitivity=1.0, epsilon=epsilon, rng=gen)
    return None


@implements("kusner2016.ch4.iqr_compose")
def iqr_decision_privacy(epsilon, delta):
    """Four PTR releases (ln IQR of x', y', r'_Y, r'_X), each (3 eps, delta), all reading record k:
    (12 eps, 4 delta) by basic composition   [kusner2016 s4.1.7, corrected from (9 eps, 3 delta)].

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
    >>> from reference.causal_privacy import iqr_decision_privacy
    >>> iqr_decision_privacy(1.0, 1e-5)
    (12.0, 4e-05)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    return 12.0 * epsilon, 4.0 * delta


@implements("kusner2016.ch4.iqr_train")
def iqr_train_bin_distance(v, lo, hi, *, n, lam, cap=None):
    """A~ = ceil(min(IQR(v) - lo, hi - IQR(v)) / (2 R_n)) <= number of TRAINING substitutions moving IQR(v) out of
    [lo, hi), R_n = residual_sensitivity(n, lam)   [kusner2016 s4.1.8, IQR score; 0 outside the bin; min(A~, cap)].

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
    >>> from reference.causal import iqr
    >>> from reference.causal_privacy import iqr_bins, iqr_train_bin_distance
    >>> v = np.arange(20.0)
    >>> iqr_train_bin_distance(v, *iqr_bins(iqr(v))[0], n=1000, lam=1.0)
    192
    """
    v = as_float_vector(v, "v")
    lo, hi, cap = check_bin_arguments(lo, hi, cap)
    step = 2.0 * residual_sensitivity(n, lam)
    q = iqr(v)
    if not lo <= q < hi:
        return 0
    # t substitutions move the IQR by <= t * step: leaving the bin needs t * step >= dist (exact ratio: no overflow)
    a = math.ceil(Fraction(min(q - lo, hi - q)) / Fraction(step))
    return a if cap is None else min(a, cap)


@implements("kusner2016.ch4.iqr_train")
def iqr_train_ptr(residuals, *, n, lam, epsilon, delta, rng=None, threshold="corrected"):
    """ln IQR(r') + Lap(1/eps) if A~_j + Lap(1/eps) > 1 + ln(1/delta)/eps for j = 1 or 2, else bottom (None); A~_j from
    iqr_train_bin_distance   [kusner2016 s4.1.8 with Alg. 4; (3 eps, delta)-DP w.r.t. one training substitution].

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
    >>> from reference.causal_privacy import iqr_train_ptr
    >>> iqr_train_ptr(np.zeros(20), n=100, lam=1.0, epsilon=1.0, delta=1e-12) is None
    True
    """
    r = private_values(residuals, "residuals")  # the public domain, as iqr_ptr (issue 25)
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    threshold = check_choice(threshold, "threshold", THRESHOLDS)
    residual_sensitivity(n, lam)  # validate n and lam before any draw
    return _propose_test_release(r, lambda lo, hi, cap: iqr_train_bin_distance(r, lo, hi, n=n, lam=lam, cap=cap),
                                 epsilon=epsilon, delta=delta, rng=rng, threshold=threshold)


@implements("kusner2016.ch4.iqr_train")
def iqr_train_decision_privacy(epsilon, delta):
    """Two PTR releases (ln IQR of r'_Y and r'_X), each (3 eps, delta), both reading every training record;
    ln IQR(x'), ln IQR(y') read no training data: (6 eps, 2 delta)   [kusner2016 s4.1.8].

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
    >>> from reference.causal_privacy import iqr_train_decision_privacy
    >>> iqr_train_decision_privacy(1.0, 1e-5)
    (6.0, 2e-05)
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    return 6.0 * epsilon, 2.0 * delta


# --------------------------------------------------------------------------- utility closed forms


@implements("kusner2016.ch4.thm4", "kusner2016.ch4.thm4_neg")
def prob_correct_laplace(gamma, sigma):
    """P(p_XY < p_YX) = 1 - (gamma + 2 sigma)/(4 sigma) e^{-gamma/sigma} for gamma = s_YX - s_XY >= 0,
    (|gamma| + 2 sigma)/(4 sigma) e^{-|gamma|/sigma} for gamma < 0   [kusner2016 Thm 4].

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
    >>> from reference.causal_privacy import prob_correct_laplace
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
    """P[P_x + P_rY < P_y + P_rX] = 1 - e^{-gamma/sigma} (48 sigma^3 + 33 sigma^2 gamma + 9 sigma gamma^2 + gamma^3)
    / (96 sigma^3), gamma = (Q_y + Q_rX) - (Q_x + Q_rY) (sign corrected); mirrored for gamma < 0   [kusner2016 Thm 6.2].

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
    >>> from reference.causal_privacy import prob_correct_four_laplace
    >>> round(prob_correct_four_laplace(1.0, 1.0), 4)
    0.6513
    """
    gamma = check_margin(gamma)
    sigma = check_positive(sigma, "sigma")
    g = abs(gamma) / sigma
    tail = math.exp(-g) * (48.0 + 33.0 * g + 9.0 * g * g + g * g * g) / 96.0
    return 1.0 - tail if gamma >= 0.0 else tail
