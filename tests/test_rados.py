"""Paper identities of nock2015 s2 (rados, Lemma 2, eqs. 1-4, Theorem 3's identities) on both packages.

Exact identities are tested exactly where the arithmetic allows it (integer-valued features make every rado
sum exact in float64) and otherwise with a stated relative error.  Sigma_m is enumerated (m <= 12).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import fast.rados as F
import reference.rados as R
from spec.links import checks
from spec.strategies import datasets, signatures, thetas
import fast._rados_kernels as rados_kernels
from _error_parity import raises_same as _raises_same
from _numba_threads import threads as _threads

BOTH = pytest.mark.parametrize("impl", [R, F], ids=["reference", "fast"])


def _max_m(impl):
    return 8 if impl is R else 12


# --------------------------------------------------------------------------- Definition 1


@pytest.mark.equivalence
@checks("nock2015.def1", "nock2015.setup")
@BOTH
def test_def1_identities(impl):
    """pi_y = m mu_S, pi_{-y} = 0, pi_sigma = sum_{i: sigma_i = y_i} y_i x_i (exact on integer data)."""

    @settings(max_examples=40)
    @given(data=datasets(integer_valued=True), sigma_rows=st.data())
    def run(data, sigma_rows):
        X, y = data
        m, d = X.shape
        sigmas = sigma_rows.draw(signatures(3, m))
        both = np.vstack([y, -y, sigmas]).astype(np.int8)
        P = impl.rados(X, y, both)
        E = impl.edge_vectors(X, y)
        assert np.array_equal(E, y[:, None] * X)
        mu_S = (y[:, None] * X).sum(axis=0) / m
        assert np.array_equal(P[0], m * mu_S)  # (a) pi_y = m mu_S (exact: integer sums, m mu_S an integer)
        assert np.array_equal(P[1], np.zeros(d))  # (b) pi_{-y} = 0
        for j, sigma in enumerate(sigmas):
            support = sigma == y
            assert np.array_equal(P[2 + j], E[support].sum(axis=0))  # sum over J(sigma) of the edge vectors
            assert np.array_equal(P[2 + j], 0.5 * ((sigma + y)[:, None] * X).sum(axis=0))  # Definition 1 literally

    run()


@pytest.mark.equivalence
@checks("nock2015.def1")
def test_def1_expected_rado_is_half_the_mean_operator():
    """(c) E_sigma[pi_sigma] = (m/2) mu_S over uniform Sigma_m: exact by enumeration (integer data)."""
    rng = np.random.default_rng(3)
    for m in range(1, 11):
        X = rng.integers(-5, 6, size=(m, 3)).astype(float)
        y = rng.choice([-1, 1], m)
        P = F.all_rados(X, y)
        assert np.array_equal(P.sum(axis=0) * 2, 2**m * (y[:, None] * X).sum(axis=0))


@pytest.mark.equivalence
@checks("nock2015.def1")
def test_table_kernel_matches_gemm_exactly():
    """The bit-packed subset-sum kernel and the 0/1 GEMM give identical rados on integer data (m not a multiple of 8)."""
    rng = np.random.default_rng(7)
    for m, d, n in [(203, 3, 97), (64, 1, 64), (9, 7, 70), (96, 2, 300), (2064, 1, 40)]:  # groups, remainders
        X = rng.integers(-9, 10, size=(m, d)).astype(float)
        y = rng.choice([-1, 1], m).astype(np.int8)
        sigmas = F.sample_signatures(y, n, rng=1)
        table = F.rados(X, y, sigmas, method="table")
        gemm = F.rados(X, y, sigmas, method="gemm")
        assert np.array_equal(table, gemm)
        assert np.array_equal(table, ((sigmas == y)[:, :, None] * (y[:, None] * X)[None]).sum(axis=1))
    with pytest.raises(ValueError, match="method"):
        F.rados(X, y, sigmas, method="bogus")


@pytest.mark.equivalence
@checks("nock2015.def1")
@pytest.mark.parametrize("m", [1, 7, 8, 9, 63, 64, 65, 1000, 2051])
def test_swar_kernel_matches_gemm_exactly_for_awkward_m_and_layouts(m):
    """The SWAR table kernel (uint64 words in place, or a padded per-group copy) equals the GEMM path exactly on
    integer data, for m around the word size and for non-contiguous, offset (unaligned) and non-int8 signatures."""
    rng = np.random.default_rng(100 + m)
    for d in (1, 3, 4, 10):
        X = rng.integers(-9, 10, size=(m, d)).astype(float)
        y = rng.choice([-1, 1], m).astype(np.int8)
        sigmas = F.sample_signatures(y, 37, rng=m)
        expected = F.rados(X, y, sigmas, method="gemm")
        assert np.array_equal(expected, ((sigmas == y)[:, :, None] * (y[:, None] * X)[None]).sum(axis=1))
        wide = np.ones((37, 2 * m + 1), dtype=np.int8)
        wide[:, 1::2] = sigmas  # a strided view
        shifted = np.empty(37 * m + 1, dtype=np.int8)[1:].reshape(37, m)  # C-contiguous, not 8-byte aligned
        shifted[...] = sigmas
        variants = [sigmas, wide[:, 1::2], shifted, np.asfortranarray(sigmas), sigmas.astype(np.int64),
                    sigmas.astype(np.float64), sigmas.tolist()]
        for variant in variants:
            got = F.rados(X, y, variant, method="table")
            assert got.dtype == np.float64 and got.shape == (37, d) and got.flags.c_contiguous
            assert np.array_equal(got, expected)
        assert np.array_equal(F.rados(X, y, sigmas[::-3], method="table"), expected[::-3])


@pytest.mark.equivalence
@checks("nock2015.def1")
def test_swar_kernel_copy_buffer_bound(monkeypatch):
    """A signature copy limited to one 8-example block per group (large n) gives the same rados exactly."""
    import fast._rados_kernels as K

    monkeypatch.setattr(K, "COPY_BUFFER_BYTES", 1)
    rng = np.random.default_rng(5)
    m, d = 203, 5
    X = rng.integers(-9, 10, size=(m, d)).astype(float)
    y = rng.choice([-1, 1], m).astype(np.int8)
    sigmas = F.sample_signatures(y, 50, rng=2)
    assert np.array_equal(F.rados(X, y, sigmas, method="table"), F.rados(X, y, sigmas, method="gemm"))
    sigmas[17, 200] = 3
    with pytest.raises(ValueError, match=r"^sigmas must contain only -1 and \+1$"):
        F.rados(X, y, sigmas, method="table")


@pytest.mark.parametrize("m", [64, 70, 1000], ids=["uint64-words", "padded-copy", "groups"])
@pytest.mark.parametrize("bad", [0, 3, -128, 127, 2, -3])
def test_table_kernel_rejects_values_outside_pm1(m, bad):
    """The table kernel checks {-1, +1} in its own pass (no separate validation pass): same error as reference."""
    rng = np.random.default_rng(m)
    X = rng.normal(size=(m, 2))
    y = rng.choice([-1, 1], m).astype(np.int8)
    sigmas = F.sample_signatures(y, 300, rng=3)
    sigmas[int(rng.integers(300)), int(rng.integers(m))] = bad
    for impl, kw in ((F, {"method": "table"}), (F, {"method": "gemm"}), (R, {})):
        with pytest.raises(ValueError, match=r"^sigmas must contain only -1 and \+1$"):
            impl.rados(X, y, sigmas, **kw)


# --------------------------------------------------------------------------- G_m and eq. (21)


@pytest.mark.equivalence
@checks("nock2015.eq21", "nock2015.eq20")
@BOTH
def test_eq21_all_rados_are_E_G(impl):
    """Pi = E G_m (U = I): row c of all_rados is the sum of the e_i selected by column c of G_m (exact, integers)."""

    @settings(max_examples=25)
    @given(data=datasets(max_m=_max_m(impl), integer_valued=True))
    def run(data):
        X, y = data
        m = X.shape[0]
        G = impl.g_matrix(m)
        E = impl.edge_vectors(X, y)
        P = impl.all_rados(X, y)
        assert np.array_equal(P, G.T.astype(float) @ E)
        # the same rados through Definition 1: sigma_i = y_i exactly where G has a 1
        sigmas = np.where(G.T == 1, y[None, :], -y[None, :]).astype(np.int8)
        assert np.array_equal(impl.rados(X, y, sigmas), P)

    run()


@checks("nock2015.eq21")
def test_all_rados_refuses_huge_m_with_memory_needed():
    X = np.ones((40, 3))
    for impl in (R, F):
        with pytest.raises(ValueError, match=r"m = 40 \(rows of X\) too large to enumerate all 2\^m rados: .* GiB"):
            impl.all_rados(X, np.ones(40))
        with pytest.raises(ValueError, match="GiB"):
            impl.g_matrix(40)


# --------------------------------------------------------------------------- Lemma 2, eqs. (1), (2), (4)


def _lemma2_gap(impl, X, y, theta):
    """(m F_log, log sum_{sigma in Sigma_m} exp(-theta.pi_sigma)): equal by Lemma 2 (both are >= 0)."""
    m = X.shape[0]
    lhs = m * impl.logistic_risk(X, y, theta)
    rhs = impl.log_exp_rado_risk(impl.all_rados(X, y), theta) + m * math.log(2.0)
    return lhs, rhs


@pytest.mark.equivalence
@checks("nock2015.lemma2", "nock2015.eq1", "nock2015.eq2")
@BOTH
def test_lemma2_all_signatures(impl):
    """Lemma 2, eq. (3), enumerating all 2^m rados (m <= 12 fast, <= 8 reference): relative error <= 1e-12.

    Compared in the form m F_log(S, theta) = log(2^m F^r_exp(S, theta, Sigma_m)), where both sides are sums of
    non-negative terms (the sigma = -y rado is 0). The right side is log F^r_exp + m log 2 with log F^r_exp near
    -m log 2, so float64 cannot represent it to better than a few ulps of m log 2: the tolerance adds that
    representation error, 8 eps m log 2 (found by a random-seed run: m = 1, x = -6, y = -1, theta = 2 gives
    m F_log = 6.1e-6 with an unavoidable 4.2e-17 absolute gap). Lemma 2 at high precision is checked with
    mpmath in proofs_checks/check_lemma2.py.
    """

    @settings(max_examples=40)
    @given(data=datasets(max_m=_max_m(impl)), theta_data=st.data())
    def run(data, theta_data):
        X, y = data
        theta = theta_data.draw(thetas(X.shape[1], scale=theta_data.draw(st.sampled_from([0.01, 1.0, 5.0]))))
        lhs, rhs = _lemma2_gap(impl, X, y, theta)
        m = X.shape[0]
        assert abs(lhs - rhs) <= 1e-12 * max(abs(lhs), abs(rhs)) + 8 * np.finfo(float).eps * m * math.log(2.0)

    run()


@pytest.mark.equivalence
@checks("nock2015.eq4", "nock2015.lemma2")
@BOTH
def test_eq4_with_all_signatures_is_the_logistic_risk(impl):
    """F_log(S, theta) = F^r_log(S, theta, Sigma_m) (eq. 4 with U = Sigma_m); absolute error <= 1e-12 (log 2 scale)."""
    rng = np.random.default_rng(11)
    for m in range(1, _max_m(impl) + 1):
        X = rng.normal(size=(m, 3)) * 3
        y = rng.choice([-1, 1], m)
        theta = rng.normal(size=3)
        value = impl.log_rado_risk(impl.all_rados(X, y), theta, m)
        assert value == pytest.approx(impl.logistic_risk(X, y, theta), rel=0, abs=1e-12)
        assert impl.exp_rado_risk(impl.all_rados(X, y), theta) >= 2.0**-m * (1 - 1e-12)  # pi_{-y} = 0 term


@checks("nock2015.eq1", "nock2015.eq2", "nock2015.eq4")
@BOTH
def test_risks_stay_finite_at_huge_margins(impl):
    """|theta.pi| up to 1e6: the log risks are finite and exact to 1e-12; exp_rado_risk is inf only past float64."""
    pi = np.array([[1.0e6], [0.0], [-3.0e5]])
    assert impl.log_exp_rado_risk(pi, np.array([1.0])) == pytest.approx(3.0e5 - math.log(3), rel=1e-12)
    assert impl.log_exp_rado_risk(pi, np.array([-1.0])) == pytest.approx(1.0e6 - math.log(3), rel=1e-12)
    assert impl.log_rado_risk(pi, np.array([-1.0]), 10) == pytest.approx(math.log(2) + (1.0e6 - math.log(3)) / 10,
                                                                        rel=1e-12)
    assert impl.exp_rado_risk(pi, np.array([-1.0])) == math.inf  # e^(1e6)/3 really overflows
    assert impl.exp_rado_risk(np.array([[-709.0], [0.0]]), np.array([1.0])) == pytest.approx(
        (math.exp(709.0) + 1) / 2, rel=1e-12)  # e^709 / 2: close to the edge, still finite
    assert impl.exp_rado_risk(pi, np.array([1e-300])) == pytest.approx(1.0, rel=1e-12)
    X = np.array([[1e6, 0.0], [-1e6, 1.0]])
    y = np.array([1, 1])
    assert impl.logistic_risk(X, y, np.array([1.0, 0.0])) == pytest.approx(1e6 / 2, rel=1e-12)
    assert impl.logistic_risk(X, y, np.array([-1.0, 0.0])) == pytest.approx(1e6 / 2, rel=1e-12)


# --------------------------------------------------------------------------- sampling, eq. (18)


@checks("nock2015.eq18", "nock2015.sampling")
@BOTH
def test_fixed_support_sampler_support_is_exact(impl):
    """Every signature drawn with support=m* has m_sigma = |{i : sigma_i = y_i}| = m* exactly."""
    rng = np.random.default_rng(5)
    for m in (1, 2, 5, 12, 31):
        y = rng.choice([-1, 1], m).astype(np.int8)
        for mstar in sorted({1, m // 2 or 1, m}):
            sig = impl.sample_signatures(y, 25, rng=int(rng.integers(2**31)), support=mstar)
            assert sig.dtype == np.int8 and sig.shape == (25, m)
            assert np.all(np.abs(sig) == 1)
            assert np.all((sig == y).sum(axis=1) == mstar)
            assert np.array_equal(impl.support_sizes(y, sig), np.full(25, mstar))


def _cell_counts(sigmas, y):
    """Index of each signature's support among the 2^m columns of G_m (MSB = example 1)."""
    bits = (sigmas == y).astype(np.int64)
    m = bits.shape[1]
    return bits @ (1 << np.arange(m - 1, -1, -1))


@pytest.mark.equivalence
@checks("nock2015.sampling", "nock2015.eq18")
def test_sampler_uniformity_chi_square():
    """Seeded chi-square goodness of fit (deterministic, hence not flaky): uniform on Sigma_4 (16 cells, 16000
    draws) and on Sigma_5^{2} (C(5,2) = 10 cells, 10000 draws); p-value > 1e-3.  A sampler biased by 2% per cell
    gives p < 1e-3 at these sizes with high probability."""
    y = np.array([1, -1, -1, 1], dtype=np.int8)
    cells = _cell_counts(F.sample_signatures(y, 16000, rng=2024), y)
    counts = np.bincount(cells, minlength=16)
    assert stats.chisquare(counts).pvalue > 1e-3
    y5 = np.array([1, 1, -1, 1, -1], dtype=np.int8)
    cells = _cell_counts(F.sample_signatures(y5, 10000, rng=2025, support=2), y5)
    support_cells = [c for c in range(32) if bin(c).count("1") == 2]
    counts = np.bincount(cells, minlength=32)
    assert counts[[c for c in range(32) if c not in support_cells]].sum() == 0
    assert stats.chisquare(counts[support_cells]).pvalue > 1e-3
    # and the sampler is not degenerate: a biased stream fails the same test
    biased = np.concatenate([counts[support_cells][:-1], [counts[support_cells][-1] * 1.3]]).astype(int)
    assert stats.chisquare(biased).pvalue < 1e-3


def test_sampler_reference_and_fast_take_the_same_draws():
    y = np.array([1, -1, 1, 1, -1, -1, 1], dtype=np.int8)
    for support in (None, 3):
        a = R.sample_signatures(y, 50, rng=np.random.default_rng(9), support=support)
        b = F.sample_signatures(y, 50, rng=np.random.default_rng(9), support=support)
        assert np.array_equal(a, b)
    # fast draws in blocks of rows: the stream must not depend on the block size
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    a = F.sample_signatures(y, 1000, rng=rng_a)
    old = F.CHUNK_BYTES
    try:
        F.CHUNK_BYTES = 8 * 7 * 13  # 13 rows per block
        b = F.sample_signatures(y, 1000, rng=rng_b)
    finally:
        F.CHUNK_BYTES = old
    assert np.array_equal(a, b)
    assert rng_a.random() == rng_b.random()


# --------------------------------------------------------------------------- Theorem 3 identities


@pytest.mark.equivalence
@checks("nock2015.thm3.qid", "nock2015.thm3.rho")
@BOTH
def test_theorem3_Q_decomposition_is_exact(impl):
    """F_log(S, theta) = F^r_log(S, theta, Sigma_r) + Q with Q = -(1/m) log rho' (and Q = 0 for Sigma_r = Sigma_m)."""

    @settings(max_examples=30)
    @given(data=datasets(max_m=6 if impl is R else 10), extra=st.data())
    def run(data, extra):
        X, y = data
        m, d = X.shape
        theta = extra.draw(thetas(d, scale=2.0))
        rows = np.array(extra.draw(st.permutations(range(2**m)))[: extra.draw(st.integers(1, 2**m))])
        q = impl.theorem3_quantities(X, y, theta, rows)
        P = impl.all_rados(X, y)
        lhs = impl.logistic_risk(X, y, theta)
        rhs = impl.log_rado_risk(P[rows], theta, m) + q.Q
        assert abs(lhs - rhs) <= 1e-12 * (1 + abs(lhs) + abs(q.Q))
        assert q.rho_prime == pytest.approx(math.exp(-m * q.Q), rel=1e-9)
        full = impl.theorem3_quantities(X, y, theta, np.arange(2**m))
        assert abs(full.Q) <= 1e-13 * (1 + abs(lhs)) * m
        # rho: sup over the open ball of max_{Sigma_r} exp(-theta'.pi) / F_r = exp(r max ||pi||) / F_r;
        # any theta' in the ball stays below it and theta' = -(1 - 1e-9) r pi/||pi|| comes within 1e-9 r ||pi||
        norms = np.linalg.norm(P[rows], axis=1)
        log_F_r = impl.log_exp_rado_risk(P[rows], theta)
        assert q.log_rho == pytest.approx(q.r_theta * norms.max() - log_F_r, rel=1e-12, abs=1e-12)
        pi = P[rows][np.argmax(norms)]
        if norms.max() > 0 and q.r_theta > 0:
            theta_near = -(1 - 1e-9) * q.r_theta * pi / np.linalg.norm(pi)
            assert -theta_near @ pi - log_F_r <= q.log_rho + 1e-9
            assert -theta_near @ pi - log_F_r >= q.log_rho - 1e-8 * (1 + q.r_theta * norms.max())

    run()


@checks("nock2015.eq5", "nock2015.eq6")
def test_eq5_eq6_scalar_formulas():
    for impl in (R, F):
        assert impl.theorem3_eq5_bound(0.5, 0.1, 10, 100, 5.0) == pytest.approx(0.6 - math.log(0.5) / 10, rel=1e-15)
        assert impl.theorem3_eq5_bound(0.5, 0.1, 10, 100, 10.0) == math.inf  # q >= sqrt(n): vacuous
        q = impl.theorem3_eq6_q(math.log(2.0), 1.5, 2.0, 3, 50, 0.1)
        assert q == pytest.approx(2.0 * (3.0 + math.sqrt(3 * math.log(2 * math.e * 50 / 3) + math.log(10))), rel=1e-14)
        assert impl.theorem3_eq6_q(800.0, 1.0, 1.0, 1, 1, 0.5) == math.inf



@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n,d", [(1, 3), (300, 7), (3001, 20)])
def test_fused_risks_match_reference_and_the_blas_route(threads, n, d):
    import fast.rados as F
    import reference.rados as R

    rng = np.random.default_rng(n + d)
    X = rng.normal(size=(n, d)) * 3.0
    y = np.where(rng.random(n) < 0.5, -1, 1)
    theta = rng.normal(size=d)
    strided = np.asfortranarray(X)  # the BLAS route (_products, then the vector sums)
    with _threads(threads, 64):
        for fn, rtol in (("logistic_risk", 1e-12), ("log_exp_rado_risk", 1e-12), ("exp_rado_risk", 1e-12)):
            args = (X, y, theta) if fn == "logistic_risk" else (X, theta)
            fused = getattr(F, fn)(*args)
            blas = getattr(F, fn)(*((strided,) + args[1:]))
            assert fused == pytest.approx(blas, rel=rtol)
            if n <= 300:
                assert fused == pytest.approx(getattr(R, fn)(*args), rel=1e-10)
        g = F.logistic_risk_gradient(X, y, theta)
        assert np.allclose(g, F.logistic_risk_gradient(strided, y, theta), rtol=1e-12, atol=1e-15)
        if n <= 300:
            assert np.allclose(g, R.logistic_risk_gradient(X, y, theta), rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_risks_report_non_finite_matrices_and_overflow_as_before(threads):
    import fast.rados as F

    rng = np.random.default_rng(9)
    X = rng.normal(size=(2000, 5))
    y = np.where(rng.random(2000) < 0.5, -1, 1)
    theta = np.array([1.0, 0.0, -1.0, 2.0, 0.5])
    with _threads(threads, 64):
        for bad in (np.nan, np.inf):
            Z = X.copy()
            Z[1500, 1] = bad  # a column theta ignores: 0 * NaN is NaN all the same
            for call in (lambda: F.logistic_risk(Z, y, theta), lambda: F.logistic_risk_gradient(Z, y, theta),
                         lambda: F.log_exp_rado_risk(Z, theta), lambda: F.exp_rado_risk(Z, theta)):
                with pytest.raises(ValueError, match="finite"):
                    call()
        huge = X * 1e306  # finite entries whose products overflow: the results of the BLAS route
        for fn in ("log_exp_rado_risk", "exp_rado_risk"):
            assert getattr(F, fn)(huge, theta) == getattr(F, fn)(np.asfortranarray(huge), theta)
        assert F.logistic_risk(huge, y, theta) == F.logistic_risk(np.asfortranarray(huge), y, theta) == math.inf
        big = np.full((40, 5), 1e3)  # margins of -5000: every term exp(-5000) = 0 in the risk, exactly
        assert F.logistic_risk(big, np.ones(40), np.ones(5)) == 0.0
        assert F.exp_rado_risk(big, -np.ones(5)) == math.inf
        assert F.exp_rado_risk(big, np.ones(5)) == 0.0
        assert F.exp_rado_risk(X, np.zeros(5)) == 1.0


def test_theorem3_rows_rule_and_values():
    import fast.rados as F
    import reference.rados as R

    rng = np.random.default_rng(6)
    X = rng.normal(size=(7, 3))
    y = np.where(rng.random(7) < 0.5, -1, 1)
    theta = rng.normal(size=3) * 0.3
    rows = rng.permutation(2**7)[:50]
    got, want = F.theorem3_quantities(X, y, theta, rows), R.theorem3_quantities(X, y, theta, rows)
    for field in ("r_theta", "log_rho", "rho_prime", "Q", "grad_norm", "pibar_r", "pistar_r", "eq7_bound"):
        assert getattr(got, field) == pytest.approx(getattr(want, field), rel=1e-9, abs=1e-12)
    assert F.theorem3_quantities(X, y, theta, rows.astype(np.uint8)) == got
    for bad in (np.array([1, 1]), np.array([0, 128]), np.array([-1, 3]), np.array([1.0, 2.0]), np.array([], dtype=int),
                np.array([[1, 2]]), [3, 3], "ab"):
        _raises_same(lambda: R.theorem3_quantities(X, y, theta, bad), lambda: F.theorem3_quantities(X, y, theta, bad))
    big = rng.normal(size=(30, 2))  # 2^30 rows: the rows rule (np.unique beyond the marking range), then m refused
    _raises_same(lambda: R.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 5])),
                 lambda: F.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 5])))
    _raises_same(lambda: R.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 6])),
                 lambda: F.theorem3_quantities(big, np.ones(30), np.ones(2), np.array([5, 6])))


def _error(fn, *args):
    try:
        fn(*args)
    except (TypeError, ValueError) as error:
        return type(error), str(error)
    return None


def _signatures(rng, n, m):
    return np.where(rng.random((n, m)) < 0.5, -1, 1).astype(np.int8)


@pytest.mark.parametrize("m", [1, 7, 8, 9, 15, 16, 17, 64, 65, 255 * 8, 255 * 8 + 1, 255 * 8 + 9, 256 * 8, 3001])
def test_support_sizes_counts_on_every_layout(m):
    rng = np.random.default_rng(m)
    y = np.where(rng.random(m) < 0.5, -1, 1).astype(np.int8)
    base = _signatures(rng, 6, m + 3)
    flat = _signatures(rng, 1, 5 * m + 3)[0]
    layouts = {
        "C": np.ascontiguousarray(base[:5, :m]),
        "strided columns": base[:5, 3:],
        "C rows at an odd byte offset": flat[3:].reshape(5, m),
        "Fortran": np.asfortranarray(base[:5, :m]),
        "reversed rows": base[:5, :m][::-1],
    }
    for name, sigmas in layouts.items():
        want = np.count_nonzero(sigmas == y[None, :], axis=1)
        got = F.support_sizes(y, sigmas)
        assert got.dtype == np.int64 and got.shape == (5,), name
        np.testing.assert_array_equal(got, want, err_msg=name)
    # all agreeing / all disagreeing rows: the byte lanes at their largest (255 words per flush)
    both = np.stack([y, -y]).astype(np.int8)
    np.testing.assert_array_equal(F.support_sizes(y, both), [m, 0])


def test_support_sizes_matches_the_reference():
    rng = np.random.default_rng(7)
    for m in (1, 8, 13, 40):
        y = np.where(rng.random(m) < 0.5, -1, 1)
        sigmas = _signatures(rng, 9, m)
        np.testing.assert_array_equal(F.support_sizes(y, sigmas), R.support_sizes(y, sigmas))


@pytest.mark.parametrize("bad", [0, 2, -2, 3, -3, 127, -127, -128, 0x41, 0x7E])
def test_support_sizes_catches_a_bad_value_in_every_byte_position(bad):
    m = 8 * 3 + 5  # three words and a tail of five
    rng = np.random.default_rng(bad & 0xFF)
    y = np.where(rng.random(m) < 0.5, -1, 1).astype(np.int8)
    sigmas = _signatures(rng, 3, m)
    want = _error(R.support_sizes, y, np.where(np.arange(m) == 0, 0, 1)[None, :])
    assert want is not None
    for column in range(m):
        for row in (0, 2):
            broken = sigmas.copy()
            broken[row, column] = bad
            assert _error(F.support_sizes, y, broken) == want, (row, column)
            assert _error(F.support_sizes, y, np.asfortranarray(broken)) == want, (row, column)


def test_dead_softplus_kernels_are_gone():
    assert not hasattr(rados_kernels, "softplus_margins")
    assert not hasattr(rados_kernels, "softplus_total")
