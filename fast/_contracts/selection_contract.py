"""The contract of private model selection (``reference.model_selection`` and ``fast.model_selection``).

Both packages validate Thresholdout's parameters and compute its integer calibration here, so the same bad input
raises the same exception with the same message in both, and both draw the same noise in the same order.

Thresholdout (Dwork, Feldman, Hardt, Pitassi, Reingold, Roth, "The reusable holdout: Preserving validity in
adaptive data analysis", Science 349 (2015) 636-638, and the companion "Generalization in adaptive data analysis and
holdout reuse", NIPS 2015; neither text is in the project's paper set, so this is transcribed from the authors'
description, not checked against the print -- see docs/model_selection.md):

    input: training set S_t, holdout S_h (n rows), threshold T, noise rate sigma, budget B
    T^ <- T + gamma, gamma ~ Lap(2 sigma)
    for each statistical query phi: X -> [0, 1]:
        if B < 1: output "bottom" (the holdout is exhausted)
        eta ~ Lap(4 sigma)
        if |E_{S_h}[phi] - E_{S_t}[phi]| > T^ + eta:
            xi ~ Lap(sigma); B <- B - 1; T^ <- T + gamma', gamma' ~ Lap(2 sigma)
            output E_{S_h}[phi] + xi
        else: output E_{S_t}[phi]

What the library runs (exact integer arithmetic, CKS20 discrete Laplace; no float noise):

* every query value is read in the declared domain [0, 1] (:func:`spec.privacy_contract.to_domain`: clamped, NaN
  and non-numbers as 1/2) and quantised DOWN to the grid 1/G (G = ``resolution``, a power of two, so v G is exact):
  u_i = floor(v_i G), an integer in [0, G]; a {0, 1} query (an accuracy) is exact at every G;
* the holdout sum H = sum_i u_i (an integer); replacing one holdout row moves it by at most G units;
* the training mean in the holdout's units, Tr = round(U_t n / n_t) (U_t the training sum; round half up, exact
  rationals) -- the training set is NOT protected (the paper's setting: only the holdout is private);
* q = |H - Tr| (moves by <= G), threshold T_u = round(T n G); the noisy test is q + eta > T_u + gamma with
  gamma ~ DLap(t1), eta ~ DLap(t2), and an answer is (H + xi) / (n G), xi ~ DLap(t3), where
  t1 = ceil(2 sigma n G), t2 = ceil(4 sigma n G), t3 = ceil(sigma n G) (the paper's 2 sigma, 4 sigma, sigma in
  units of 1/(n G));
* a below-threshold query returns the training mean U_t / (n_t G).

Privacy (replace-one of a HOLDOUT row; the training set, the queries and n are public): each "epoch" (the queries
from a fresh gamma up to and including the next above-threshold answer) is the sparse vector technique's
AboveThreshold (Dwork-Roth 2014 Thm 3.23; Lyu, Su, Li 2017 Thm 2 for non-monotone queries) plus one Laplace
answer: epsilon_epoch = G/t1 + 2 G/t2 + G/t3 <= 1/(2 sigma n) + 1/(2 sigma n) + 1/(sigma n) = 2/(sigma n).  The
discrete Laplace supplies what the proof uses: P(z) <= e^{s/t} P(z + s) and P(Z >= m) <= e^{s/t} P(Z >= m + s)
for integers s >= 0.  At most B epochs ever start, so a run is (B epsilon_epoch)-DP <= (2B/(sigma n), 0)-DP, the
paper's bound.  Each epoch is charged (its whole epsilon_epoch) before its gamma is drawn.
"""
from __future__ import annotations

import numbers
from fractions import Fraction
from typing import NamedTuple

from fast._contracts.validation import check_int, check_real

__all__ = ["MAX_SCALE", "ThresholdoutCalibration", "thresholdout_calibration", "check_rows", "quantised_sum",
           "training_units", "check_forward_selection"]

#: the discrete Laplace sampler's largest scale (``mechanisms.MAX_SCALE``)
MAX_SCALE = 2**51


class ThresholdoutCalibration(NamedTuple):
    """The integer calibration of one Thresholdout (see the module docstring).

    Attributes
    ----------
    resolution : int
        G: values are quantised down to multiples of 1/G.
    threshold_units : int
        T_u = round(T n G).
    t1, t2, t3 : int
        The discrete Laplace scales of gamma (threshold), eta (test) and xi (answer).
    n : int
        The holdout's size.
    epoch_epsilon : Fraction
        G/t1 + 2 G/t2 + G/t3 <= 2/(sigma n): what one epoch (up to and including one answer) costs.
    """

    resolution: int
    threshold_units: int
    t1: int
    t2: int
    t3: int
    n: int
    epoch_epsilon: Fraction


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def _round_half_up(q: Fraction) -> int:
    return (2 * q.numerator + q.denominator) // (2 * q.denominator)


def thresholdout_calibration(threshold, sigma, budget, resolution, n) -> ThresholdoutCalibration:
    """Validate Thresholdout's parameters and compute its integer calibration (identical in both packages).

    Parameters
    ----------
    threshold : float
        T, a finite number >= 0 (in units of the query's mean, [0, 1]).
    sigma : float
        The noise rate, a finite number > 0.
    budget : int
        B >= 1, the number of above-threshold answers.
    resolution : int
        G, a power of two in [1, 2^40]: query values are quantised down to multiples of 1/G.
    n : int
        The number of holdout rows (public).

    Returns
    -------
    ThresholdoutCalibration

    Raises
    ------
    TypeError, ValueError
        A bad parameter (the message names it), or a scale beyond the sampler's 2^51.
    """
    t_real = check_real(threshold, "threshold", low=0.0)
    s_real = check_real(sigma, "sigma", low=0.0, low_open=True)
    check_int(budget, "budget", minimum=1)
    g = check_int(resolution, "resolution", minimum=1, maximum=2**40)
    if g & (g - 1):
        raise ValueError(f"resolution must be a power of two (so that v * resolution is exact), got {g}")
    m = check_rows(n, g, "holdout")
    unit = Fraction(s_real) * m * g
    t1, t2, t3 = _ceil(2 * unit), _ceil(4 * unit), _ceil(unit)
    if t2 > MAX_SCALE:
        raise ValueError(f"sigma * n * resolution is too large for the discrete Laplace sampler (4 sigma n G must "
                         f"be <= 2^51, got {float(4 * unit):.6g}): lower resolution")
    eps = Fraction(g, t1) + Fraction(2 * g, t2) + Fraction(g, t3)
    return ThresholdoutCalibration(g, _round_half_up(Fraction(t_real) * m * g), t1, t2, t3, m, eps)


def check_rows(n, resolution: int, name: str) -> int:
    """The row count of ``name`` (train / holdout): >= 1, and n * resolution <= 2^53 so that every quantised sum is
    an exact int64 (and an exact double)."""
    m = check_int(n, f"{name} rows", minimum=1)
    if m * resolution > 2**53:
        raise ValueError(f"{name} rows * resolution must be <= 2^53 (exact integer sums), got {m} * {resolution}: "
                         f"lower resolution")
    return m


def quantised_sum(units) -> int:
    """sum_i u_i of the quantised values (Python integers, exact)."""
    return int(sum(int(u) for u in units))


def training_units(train_sum: int, n_train: int, n_holdout: int) -> int:
    """Tr = round(U_t n_h / n_t), half up, exact: the training mean in the holdout's units."""
    return _round_half_up(Fraction(train_sum * n_holdout, n_train))


def check_forward_selection(max_features, d: int) -> int:
    """``max_features``: an int in [1, d] (d the number of candidate features)."""
    if isinstance(max_features, bool) or not isinstance(max_features, numbers.Integral):
        raise TypeError(f"max_features must be an int in [1, {d}], got {type(max_features).__name__}")
    if not 1 <= max_features <= d:
        raise ValueError(f"max_features must be an int in [1, {d}] (the number of features), got {max_features}")
    return int(max_features)
