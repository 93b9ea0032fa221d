"""Hypothesis strategies shared by every property and equivalence test.

Aimed at the edges on purpose (ARCHITECTURE "Tests"): examples with y_i x_i = 0, all-zero features,
duplicated examples, m small enough (<= 12) to enumerate Sigma_m, large margins, theta on the boundary.
Topic-specific strategies live beside their pairs (``spec/pairs/<topic>.py``) and build on these.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

#: magnitudes of features: moderate by default; ``scale`` strategies push margins far out
FEATURE = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False, width=64)
SMALL_INT_FEATURE = st.integers(min_value=-5, max_value=5).map(float)


def labels(m: int):
    """Labels in {-1, +1} of length m, as int8."""
    return hnp.arrays(np.int8, (m,), elements=st.sampled_from([-1, 1]))


@st.composite
def datasets(draw, *, min_m: int = 1, max_m: int = 12, min_d: int = 1, max_d: int = 5,
             elements=None, integer_valued: bool = False):
    """(X, y): X (m, d) float64 with zero rows, zero columns and duplicated rows mixed in; y in {-1, +1}."""
    m = draw(st.integers(min_m, max_m))
    d = draw(st.integers(min_d, max_d))
    elements = elements or (SMALL_INT_FEATURE if integer_valued else FEATURE)
    X = draw(hnp.arrays(np.float64, (m, d), elements=elements))
    if m > 1 and draw(st.booleans()):
        X[draw(st.integers(0, m - 1))] = 0.0  # an example with y_i x_i = 0
    if draw(st.booleans()):
        X[:, draw(st.integers(0, d - 1))] = 0.0  # an all-zero feature
    if m > 2 and draw(st.booleans()):
        X[draw(st.integers(1, m - 1))] = X[0]  # a duplicated example
    y = draw(labels(m))
    return X, y


def signatures(n: int, m: int):
    """(n, m) int8 signatures in {-1, +1}."""
    return hnp.arrays(np.int8, (n, m), elements=st.sampled_from([-1, 1]))


def thetas(d: int, *, scale: float = 3.0):
    """theta in R^d with entries in [-scale, scale] (zero and boundary values included)."""
    return hnp.arrays(np.float64, (d,), elements=st.floats(-scale, scale, allow_nan=False, width=64))


def seeds():
    return st.integers(min_value=0, max_value=2**32 - 1)


#: values that must be refused wherever a finite number > 0 is required
BAD_POSITIVE = st.sampled_from([0.0, -1.0, float("nan"), float("inf"), -float("inf")])
#: values that must be refused wherever a number in (0, 1) is required
BAD_OPEN_UNIT = st.sampled_from([0.0, 1.0, -0.5, 1.5, float("nan"), float("inf")])


@st.composite
def bad_matrices(draw, m: int = 4, d: int = 3):
    """Matrices that must be refused: NaN or inf entries, wrong number of dimensions, empty, non-numeric."""
    kind = draw(st.sampled_from(["nan", "inf", "1d", "3d", "empty", "str"]))
    X = np.ones((m, d))
    if kind == "nan":
        X[draw(st.integers(0, m - 1)), draw(st.integers(0, d - 1))] = np.nan
        return X
    if kind == "inf":
        X[draw(st.integers(0, m - 1)), draw(st.integers(0, d - 1))] = -np.inf
        return X
    if kind == "1d":
        return np.ones(m)
    if kind == "3d":
        return np.ones((m, d, 2))
    if kind == "empty":
        return np.ones((0, d))
    return np.array([["a"] * d] * m)
