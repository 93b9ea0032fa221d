"""fast/_risk_kernels.py: the vectorised exp/softplus kernels, map_rows and gradient_rows against their definitions and the BLAS route."""

from __future__ import annotations
import math
import numpy as np
import pytest
import fast.rados as F_rados
from scipy.special import expit
from fast._risk_kernels import gradient_rows
from _numba_threads import threads as _threads


def test_vectorised_exp_is_within_one_ulp():
    import numba

    from fast import _risk_kernels as K

    @numba.njit
    def exps(x, out):
        for i in range(x.shape[0]):
            out[i] = K._exp(x[i])

    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-708.0, 709.0, 200_000), rng.uniform(-1.0, 1.0, 100_000),
                        np.linspace(-708.0, 709.0, 20_001), [0.0, -0.0, 1.0, -1.0, 709.0, -708.0]])
    got = np.empty_like(x)
    exps(x, got)
    want = np.exp(x)  # correctly rounded to within 0.5 ulp
    assert np.all(np.abs(got - want) <= 1.0 * np.spacing(want))
    assert got[-6] == 1.0 and got[-5] == 1.0


def _softplus_reference(u):
    return math.fsum(np.logaddexp(0.0, u).tolist())


@pytest.mark.parametrize("n", [1, 7, 8, 255, 256, 257, 5000])
def test_softplus_and_exp_sums_match_their_definitions(n):
    from fast import _risk_kernels as K

    rng = np.random.default_rng(n)
    u = rng.normal(size=n) * 10.0
    u[::11] = rng.choice([750.0, -750.0, 708.5, -708.5, 720.0, -1e300, 1e300, 0.0], size=u[::11].shape)
    assert K.softplus_sum(u) == pytest.approx(_softplus_reference(u), rel=1e-13)
    tiny = -rng.uniform(709.0, 740.0, size=n)  # every term subnormal: exactly as libm
    assert K.softplus_sum(tiny) == pytest.approx(_softplus_reference(tiny), rel=1e-13, abs=0.0)
    assert K.softplus_sum(tiny) > 0.0
    s = rng.normal(size=n) * 300.0
    top = float(s.max())
    want = math.fsum(np.exp(s - top).tolist())
    assert K.exp_sum(s, top) == pytest.approx(want, rel=1e-13)



def test_map_rows_never_waits_for_a_helper():
    import threading
    import time

    from fast import _risk_kernels as K

    started = threading.Event()
    release = threading.Event()
    calls = []

    def compute(lo, hi):
        if threading.current_thread() is not threading.main_thread() and not started.is_set():
            started.set()
            release.wait(5.0)  # a descheduled helper: holds its range
        calls.append((lo, hi))
        return lo, hi

    with _threads(2, 1):
        start = time.perf_counter()
        parts = K.map_rows(1000, 10, compute)
        elapsed = time.perf_counter() - start
    release.set()
    assert parts == sorted(parts) and parts[0][0] == 0 and parts[-1][1] == 1000
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    assert elapsed < 2.0


@pytest.mark.parametrize("scale", [0.1, 30.0, 2000.0])
def test_gradient_rows_matches_the_blas_route(scale):
    rng = np.random.default_rng(int(scale))
    X = rng.normal(size=(3001, 17))
    y = np.where(rng.random(3001) < 0.5, -1, 1).astype(np.int8)
    theta = rng.normal(size=17) * scale / 17  # scale 2000: margins beyond 708 (the kernel's libm branch)
    g = np.empty(17)
    assert gradient_rows(X, y, theta, 0, 3001, g)
    w = y * (X @ theta)
    want = (y * expit(-w)) @ X
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12 * np.abs(X).sum())
    # the public function on C (fused kernel) and Fortran (BLAS + expit) layouts
    np.testing.assert_allclose(F_rados.logistic_risk_gradient(X, y, theta),
                               F_rados.logistic_risk_gradient(np.asfortranarray(X), y, theta), rtol=1e-10,
                               atol=1e-15)
