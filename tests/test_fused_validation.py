"""The finiteness checks that fast.rados fuses into its compute passes (issue 15) reject exactly what the shared
contract rejects, with the same message, whatever the position of the bad value, the layout of the array and the
zeros of theta (a NaN in a column where theta_k = 0 does not reach the BLAS product)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import fast.rados as F
import reference.rados as R


def _message(fn, *args):
    with pytest.raises((ValueError, TypeError)) as info:
        fn(*args)
    return type(info.value), str(info.value)


BAD = (np.nan, np.inf, -np.inf)


def _cases(m=7, d=3):
    rng = np.random.default_rng(0)
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    for (i, k), bad, order, zero in itertools.product([(0, 0), (m - 1, d - 1), (3, 1)], BAD, "CF", (None, 0, 1)):
        X = rng.normal(size=(m, d))
        X[i, k] = bad
        X = np.asarray(X, order=order)
        theta = rng.normal(size=d)
        if zero is not None:
            theta[zero] = 0.0
        yield X, y, theta


@pytest.mark.parametrize("name", ["logistic_risk", "logistic_risk_gradient"])
def test_examples_with_a_non_finite_entry_are_refused_like_the_reference(name):
    for X, y, theta in _cases():
        assert _message(getattr(F, name), X, y, theta) == _message(getattr(R, name), X, y, theta)


@pytest.mark.parametrize("name", ["log_exp_rado_risk", "exp_rado_risk"])
def test_rados_with_a_non_finite_entry_are_refused_like_the_reference(name):
    for P, _, theta in _cases():
        assert _message(getattr(F, name), P, theta) == _message(getattr(R, name), P, theta)
    for P, _, theta in _cases():
        assert _message(F.log_rado_risk, P, theta, 5) == _message(R.log_rado_risk, P, theta, 5)


def test_edge_vectors_and_rados_refuse_non_finite_examples():
    for X, y, _ in _cases(m=70):
        sigmas = np.where(np.random.default_rng(1).random((5, 70)) < 0.5, -1, 1).astype(np.int8)
        assert _message(F.edge_vectors, X, y) == _message(R.edge_vectors, X, y)
        for method in ("table", "gemm"):
            assert _message(lambda *a: F.rados(*a, method=method), X, y, sigmas)[1].startswith("X must contain")


def test_a_non_finite_matrix_is_reported_before_a_bad_theta_or_y():
    X = np.ones((4, 3))
    X[1, 1] = np.nan
    y = np.array([1.0, -1.0, 1.0, -1.0])
    assert _message(F.logistic_risk, X, y, np.ones(2)) == _message(R.logistic_risk, X, y, np.ones(2))
    assert _message(F.logistic_risk, X, y[:3], np.ones(3)) == _message(R.logistic_risk, X, y[:3], np.ones(3))
    assert _message(F.log_exp_rado_risk, X, np.ones(5)) == _message(R.log_exp_rado_risk, X, np.ones(5))


def test_overflowing_products_of_finite_data_are_not_refused():
    """A finite matrix whose products overflow is valid input: the fused check must not mistake it for NaN/inf."""
    P = np.array([[1e308, 1e308], [1.0, 2.0]])
    assert F.log_exp_rado_risk(P, np.array([-1.0, -1.0])) == np.inf
    assert F.logistic_risk(P, np.array([1.0, -1.0]), np.array([-1.0, -1.0])) == np.inf  # reference: OverflowError


def test_support_sizes_fused_value_check():
    y = np.array([1, -1, 1], dtype=np.int8)
    good = np.array([[1, 1, -1], [-1, -1, 1]], dtype=np.int8)
    assert F.support_sizes(y, good).tolist() == R.support_sizes(y, good).tolist()
    for bad in (0, 2, -2, 127, -128):
        sigmas = good.copy()
        sigmas[1, 2] = bad
        assert _message(F.support_sizes, y, sigmas) == _message(R.support_sizes, y, sigmas)


def test_sample_signatures_stream_is_the_int64_stream():
    """int32 draws give numpy's int64 draws bit for bit (both take one 32-bit word per value), odd sizes too."""
    y = np.array([1, -1, 1, 1, -1])
    for n in (1, 3, 7):
        assert np.array_equal(F.sample_signatures(y, n, rng=11), R.sample_signatures(y, n, rng=11))
        expected = 2 * np.random.default_rng(11).integers(0, 2, size=(n, 5)) - 1
        assert np.array_equal(F.sample_signatures(y, n, rng=11), expected)


@pytest.mark.parametrize("name", ["lasso", "ridge", "linf", "elastic_net"])
def test_regularizers_refuse_non_finite_theta_like_the_reference(name):
    import fast.regularizers as FR
    import reference.regularizers as RR

    for size, position, bad in itertools.product((5, 5000), (0, -1, 2), BAD):
        theta = np.random.default_rng(size).normal(size=size)
        theta[position] = bad
        assert _message(getattr(FR, name), theta) == _message(getattr(RR, name), theta)
        assert _message(getattr(FR, name), theta[::-1]) == _message(getattr(RR, name), theta[::-1])


def test_margins_and_shifted_rados_refuse_non_finite_input_like_the_reference():
    import fast.losses as FL
    import reference.losses as RL

    for position, bad in itertools.product((0, -1, 3), BAD):
        z = np.linspace(-1.0, 1.0, 7)
        z[position] = bad
        for row in ("I", "II"):
            assert _message(FL.example_loss, z, row, 1.0) == _message(RL.example_loss, z, row, 1.0)
        assert _message(FL.example_loss, z, "V", 1.0) == _message(RL.example_loss, z, "V", 1.0)
        P = np.ones((4, 3))
        P[1, position % 3] = bad
        for theta in (np.array([1.0, 2.0, 3.0]), np.zeros(3)):
            assert _message(FL.regularized_rados, P, theta, 0.5, 1.0) == _message(RL.regularized_rados, P, theta,
                                                                                0.5, 1.0)
            assert _message(FL.regularized_rados, np.asfortranarray(P), theta, 0.5, 1.0)[1].startswith("rados must")
        assert _message(FL.regularized_rados, P, np.ones(2), 0.5, 1.0) == _message(RL.regularized_rados, P,
                                                                                  np.ones(2), 0.5, 1.0)
