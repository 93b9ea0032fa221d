"""Input contract of ``reference.losses`` / ``fast.losses`` and ``*.regularizers`` (nock2016 s2-3, eq. 20).

Both packages validate through these functions, in the same order, so a bad input raises the same
exception type with the same message in both (see :mod:`spec.validation`).  Only validation lives here;
the computations live in the two packages.
"""
from __future__ import annotations

import math

import numpy as np

from fast._contracts.validation import (
    as_float_matrix,
    as_float_vector,
    check_enumerable,
    check_finite_array,
    check_int,
    check_positive,
    check_real,
)

#: the rows of nock2016 Table 1: I exponential, II mean-variance, III ReLU, IV unhinged
ROWS = ("I", "II", "III", "IV")
#: largest m for which a rado loss / game may be enumerated over all 2^m subsets
MAX_ENUMERATED_M = 26
#: bound on |z_i| and |z_i| / mu (so that the squares of row II and 2^m sums stay finite)
MAX_MARGIN = 1e100


def check_row(row) -> str:
    if not isinstance(row, str):
        raise TypeError(f"row must be one of {ROWS} (nock2016 Table 1), got {row!r}")
    if row not in ROWS:
        raise ValueError(f"row must be one of {ROWS} (nock2016 Table 1), got {row!r}")
    return row


def check_generator_args(x, row, m):
    """(x, row, m) for a generator phi(x): x a real number (may be outside dom phi: then phi = +inf);
    m an integer >= 1, required for row IV (dom phi_r = [2^-m, 1/2]), optional (None) otherwise."""
    row = check_row(row)
    x = check_real(x, "x")
    if m is None:
        if row == "IV":
            raise ValueError("m must be given for row IV (phi_r = chi_[2^-m, 1/2] depends on m)")
    else:
        m = check_int(m, "m", minimum=1, maximum=1023)
    return x, row, m


def check_margins(z, row, mu, mu_name: str, *, enumerate_subsets: bool = False):
    """(z, row, mu): z a finite (m,) margin vector, row in ROWS, mu a finite number > 0."""
    z = as_float_matrix(z, "z", ndim=1, check_finite=False)
    high, low = float(z.max()), float(z.min())  # finite iff every z_i is (NaN / inf propagate); max|z| without |z|
    if not (math.isfinite(high) and math.isfinite(low)):
        check_finite_array(z, "z")
    row = check_row(row)
    mu = check_positive(mu, mu_name)
    top = max(high, -low)
    if top > MAX_MARGIN or top / mu > MAX_MARGIN:
        raise ValueError(
            f"z and z / {mu_name} must stay within {MAX_MARGIN:g} in absolute value (squares must not overflow), "
            f"got max|z| = {top:g}, {mu_name} = {mu:g}"
        )
    if enumerate_subsets:
        m = z.shape[0]
        check_enumerable(2**m, 8, "all 2^m subsets J of [m]", name=f"m = {m} (len(z))")
        if m > MAX_ENUMERATED_M:  # refused like check_enumerable: saying what it would take
            raise ValueError(
                f"m = {m} (len(z)) too large to enumerate all 2^m subsets J of [m]: {2**m} items would take "
                f"{2**m * 8 / 1024**3:.3g} GiB (limit m <= {MAX_ENUMERATED_M}); sample instead"
            )
    return z, row, mu


def check_set_and_theta(points, theta, points_name: str):
    """(points (n, d), theta (d,)) finite, matching d."""
    points = as_float_matrix(points, points_name)
    theta = as_float_vector(theta, "theta")
    if theta.shape[0] != points.shape[1]:
        raise ValueError(
            f"theta must have length d = {points.shape[1]} (columns of {points_name}), got {theta.shape[0]}"
        )
    return points, theta


def check_penalty(penalty) -> float:
    """Omega(theta), the value of a regularizer: a finite real number."""
    return check_real(penalty, "penalty")


def check_reading(reading) -> str:
    if reading not in ("printed", "corrected"):
        raise ValueError(f"reading must be 'printed' or 'corrected', got {reading!r}")
    return reading


def check_shift_finite(scale: float) -> None:
    """The shift a_e Omega(theta) theta / ||theta||^2 must be finite (it is, unless Omega is astronomically
    large compared with ||theta||)."""
    if not math.isfinite(scale):
        raise ValueError(
            "penalty is too large for theta: the regularized-rado shift a_e * penalty * theta / ||theta||^2 "
            "overflows float64"
        )


# --------------------------------------------------------------------------- regularizers (eq. 20)

REGULARIZER_NAMES = ("none", "ridge", "lasso", "linf", "slope", "elastic_net")


def check_theta(theta) -> np.ndarray:
    return as_float_vector(theta, "theta")


def check_gamma(Gamma, d: int | None):
    """Gamma: None (identity) or a finite (d, d) symmetric positive definite matrix (d = None: any square).

    Symmetry is checked to a relative tolerance 1e-12 * max|Gamma| (so A @ A.T + I passes whatever BLAS
    did); positive definiteness by a Cholesky factorisation (numpy: the rule is part of the specification,
    the same decision is taken for reference and fast).
    """
    if Gamma is None:
        return None
    G = as_float_matrix(Gamma, "Gamma")
    if d is None and G.shape[0] != G.shape[1]:
        raise ValueError(f"Gamma must be a square (d, d) matrix, got shape {G.shape}")
    if d is not None and G.shape != (d, d):
        raise ValueError(f"Gamma must be a (d, d) = ({d}, {d}) matrix matching theta, got shape {G.shape}")
    scale = float(np.max(np.abs(G)))
    if float(np.max(np.abs(G - G.T))) > 1e-12 * scale:
        raise ValueError("Gamma must be symmetric positive definite: it is not symmetric")
    try:
        np.linalg.cholesky(G)
    except np.linalg.LinAlgError:
        raise ValueError("Gamma must be symmetric positive definite: it is not positive definite") from None
    return G


def check_q(q) -> float:
    """SLOPE's q in (0, 1)   [nock2016 eq. (20)]."""
    return check_real(q, "q", low=0.0, high=1.0, low_open=True, high_open=True)


def check_weight(value, name: str) -> float:
    """A finite weight >= 0 (elastic-net mixing weights)."""
    return check_real(value, name, low=0.0)


def check_regularizer_name(name) -> str:
    if not isinstance(name, str) or name not in REGULARIZER_NAMES:
        raise ValueError(f"unknown regularizer name {name!r}; the names are {REGULARIZER_NAMES}")
    return name


def check_regularizer_params(name: str, params: dict) -> dict:
    """The keyword parameters each regularizer accepts (anything else: TypeError naming it), validated:
    Gamma symmetric positive definite, q in (0, 1), weights l1, l2 >= 0 (ValueError naming the parameter)."""
    allowed = {
        "none": (),
        "ridge": ("Gamma",),
        "lasso": (),
        "linf": (),
        "slope": ("q",),
        "elastic_net": ("l1", "l2", "Gamma"),
    }[name]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise TypeError(f"regularizer {name!r} takes parameters {allowed}, got unexpected {unknown}")
    if name == "slope" and "q" not in params:
        raise TypeError("regularizer 'slope' needs the parameter q in (0, 1)")
    params = dict(params)  # validated copies; the caller's dict is left alone
    if "Gamma" in params:
        params["Gamma"] = check_gamma(params["Gamma"], None)
    if "q" in params:
        params["q"] = check_q(params["q"])
    for key in ("l1", "l2"):
        if key in params:
            params[key] = check_weight(params[key], key)
    return params


def check_positive_a_e(a_e) -> float:
    return check_positive(a_e, "a_e")
