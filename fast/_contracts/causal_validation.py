"""The input contract of the causal modules (``reference.causal*`` and ``fast.causal*``).

Built on :mod:`spec.validation`, so both packages raise the same exception type with the same message on
the same bad input (kusner2016 ch4: dependence scores, ANM, private release).
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from fast._contracts.privacy_contract import to_domain
from fast._contracts.validation import as_float_vector, check_int, check_positive, check_real

#: the smallest test-set size each score is defined for (denominators m(m^2-1), m(m-1)/2, (m-1)^2;
#: the IQR needs two distinct quartile order statistics)
MIN_M = {"spearman": 2, "kendall": 2, "hsic": 2, "iqr": 4}
SCORES = tuple(MIN_M)
DIRECTIONS = ("x->y", "y->x", "undecided")

#: default fixed HSIC bandwidth (data rescaled to [-1, 1]); fixed so that Theorems 5 and 9 apply
HSIC_BANDWIDTH = 0.5
#: default ridge parameter lambda of eq. (4.6)
DEFAULT_LAM = 1e-3
#: the median heuristic looks at most at this many training inputs
MEDIAN_POINTS = 1000
SPEARMAN_BOUNDS = ("proof", "thesis", "exact")
HSIC_BOUNDS = ("entrywise", "appendix", "thm5")
RESIDUAL_BOUNDS = ("corrected", "thesis")
THRESHOLDS = ("corrected", "thesis")
#: exact global sensitivity of the Spearman score |rho| (midranks, ties allowed in both data sets, one record
#: changed in both coordinates), from the exhaustive search of proofs_checks/check_causal_sensitivity.py, which
#: asserts these values.  6/(m+1) for m = 5, 6 (the tie-free maximum of |rho|, 6/(m+1) for m = 5..8).
SPEARMAN_EXACT = {
    2: Fraction(1, 2),
    3: Fraction(7, 8),
    4: Fraction(19, 20),
    5: Fraction(1, 1),
    6: Fraction(6, 7),
}


def paired_vectors(a, b, score: str, names=("a", "b")):
    """Two finite 1-d float64 vectors of the same length m >= MIN_M[score]."""
    na, nb = names
    a = as_float_vector(a, na)
    b = as_float_vector(b, nb)
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"{na} and {nb} must have the same length, got {a.shape[0]} and {b.shape[0]}")
    need = MIN_M[score]
    if a.shape[0] < need:
        raise ValueError(f"the {score} score needs m >= {need} paired values, got m = {a.shape[0]}")
    return a, b


def check_score(score) -> str:
    if not isinstance(score, str) or score not in MIN_M:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    return score


def check_m(m, score: str, name: str = "m") -> int:
    return check_int(m, name, minimum=MIN_M[score])


def check_bandwidth(bandwidth, name: str = "bandwidth") -> float:
    """A fixed Gaussian-kernel bandwidth h > 0."""
    return check_positive(bandwidth, name)


def check_bandwidth_or_median(bandwidth, name: str = "bandwidth"):
    """``"median"`` (the median heuristic, data-dependent) or a fixed bandwidth h > 0."""
    if isinstance(bandwidth, str):
        if bandwidth != "median":
            raise ValueError(f"{name} must be 'median' or a finite number > 0, got {bandwidth!r}")
        return bandwidth
    return check_bandwidth(bandwidth, name)


def check_lam(lam, name: str = "lam") -> float:
    """The ridge parameter lambda > 0 of eq. (4.6)."""
    return check_positive(lam, name)


def check_test_fraction(test_fraction) -> float:
    return check_real(test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True)


def check_delta(delta, name: str = "delta") -> float:
    return check_real(delta, name, low=0.0, high=1.0, low_open=True, high_open=True)


#: The PUBLIC value domain [-B, B] of a private ANM input under privacy="test" and of the values the propose-test-
#: release functions read (issue 25): a value beyond it is clamped to it, NaN (or a non-number) read as 0, never
#: refused.  B = 2^512 (~1.3e154) keeps every intermediate finite: a residual y - fhat(x) is at most (1 + 2/lam) B
#: (|fhat| <= ||alpha||_1 <= 2 B/lam, the kernel being <= 1 and K + (n lam/2) I >= (n lam/2) I), below 2^1000 for
#: lam >= 2^-480, so the IQR, its log and Algorithm 4's bins stay finite; the kernels' squared differences may
#: overflow to inf, which the compiled kernels read as a kernel value of 0 (exp(-inf)), without a warning.  Under
#: privacy="train" the domain is Theorem 7's [-1, 1] (UNIT_BOUND).
PRIVATE_VALUE_BOUND = 2.0 ** 512
UNIT_BOUND = 1.0


def private_values(v, name: str, bound: float = PRIVATE_VALUE_BOUND) -> np.ndarray:
    """A private 1-d input in its public domain [-bound, bound]: ``spec.privacy_contract.to_domain`` (clamped, NaN
    and non-numbers read as 0, only a dtype / shape schema check refuses)."""
    return to_domain(v, name, low=-bound, high=bound, ndim=1)


def check_unit_bounded(v: np.ndarray, name: str) -> None:
    """Theorem 7 and eq. (4.6) assume |x|, |y| <= 1."""
    if v.size and float(np.max(np.abs(v))) > 1.0:
        raise ValueError(f"{name} must lie in [-1, 1] (Theorem 7 assumes |x|, |y| <= 1); rescale with public bounds first")


def check_choice(value, name: str, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_margin(gamma, name: str = "gamma") -> float:
    """A finite real margin (any sign)."""
    return check_real(gamma, name)


def check_distance(distance, name: str = "distance") -> int:
    return check_int(distance, name, minimum=0)


def check_score_value(value, name: str = "value") -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def quartile_indices(m: int) -> tuple[int, int]:
    """1-based order-statistic indices (ceil(m/4), ceil(3m/4)) of Q1 and Q3: the IQR convention of both packages
    (numpy's ``method="inverted_cdf"``), fixed so that propose-test-release counts substitutions exactly."""
    return -(-m // 4), -(-3 * m // 4)


def check_bin_arguments(lo, hi, cap):
    """A bin [lo, hi) with 0 < lo < hi and an optional cap >= 1 on the substitution count (Algorithm 4)."""
    lo = check_positive(lo, "lo")
    hi = check_positive(hi, "hi")
    if not lo < hi:
        raise ValueError(f"lo must be < hi, got lo = {lo} and hi = {hi}")
    return lo, hi, (None if cap is None else check_int(cap, "cap", minimum=1))
