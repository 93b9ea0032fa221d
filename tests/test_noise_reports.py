"""Expected-noise reports (issue 28 item 6) of PrivateBoostClassifier (``boosting_noise``, ``noise_report_``,
BoostingNoiseWarning) and PrivateANM (``anm_noise``, ``noise_report_``, ANMNoiseWarning), and of the ``boost`` /
``causal`` CLI records.

Every report is checked against an independent computation: the scale the mechanism itself draws with (a spy on
``fast.mechanisms`` / ``fast.private_boosting._release`` during a seeded fit) and OpenDP's accuracy formulas
(``laplacian_scale_to_accuracy`` = b ln(1/alpha), ``gaussian_scale_to_accuracy`` = sigma z_(1-alpha/2)) written out
or called.  On the code before this change ``noise_report_``, ``boosting_noise``, ``anm_noise`` and the warnings did
not exist, so every test here failed (AttributeError / ImportError)."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import fast.mechanisms as M
import fast.private_boosting as PB
from fast import PrivateBoostClassifier
from fast.estimators import boosting as B
from fast.estimators import causal as C

Z95 = 1.959963984540054


def _no(category):
    """A context in which ``category`` is an error (so "no warning" is asserted, not assumed)."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error", category)
    return ctx


def _data(n, d, seed):
    gen = np.random.default_rng(seed)
    X = gen.uniform(-1, 1, size=(n, d))
    return X, (X[:, 0] + 0.3 * gen.normal(size=n) > 0).astype(int)


def _fit_quiet(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # InsecureNoiseWarning (seeded) and the report's own warning
        return est.fit(X, y)


# --------------------------------------------------------------------------- boosting: the report's numbers
@pytest.mark.parametrize("booster,learner", [("lazy_bregman", "stump"), ("smooth", "stump"),
                                             ("lazy_bregman", "halfspace"), ("smooth", "halfspace")])
def test_boosting_report_is_the_mechanisms_own_scale_and_opendps_accuracy(monkeypatch, booster, learner):
    """noise_scale is what the fit's mechanism draws with (a spy during a seeded fit): the discrete Laplace grid of
    report-noisy-max (scale t times the grid step 2^k, at the round's score sensitivity 4/(kappa n) or 12/(kappa n))
    or the delivered sd sqrt(s2) 2^k of the centroid's discrete Gaussian grid; the accuracies are OpenDP's
    formulas (b ln 20; the gap b x with (K - 1) e^(-x) (2 + x) / 4 = 0.05, the union bound over the K - 1 noise
    differences, K = 2 d n_thresholds candidates; 1.96 sigma and sigma sqrt(d)); noise_to_signal is the gap / norm over 1; the report equals boosting_noise of the parameters."""
    n, d, eps = 600, 3, 2.0
    laplace, gauss = [], []
    real_lg, real_gg, real_rel = M.laplace_grid, M.gaussian_grid, PB._release

    def spy_lg(sensitivity, epsilon, *a, **k):
        g = real_lg(sensitivity, epsilon, *a, **k)
        laplace.append((float(sensitivity), g))
        return g

    def spy_gg(*a, **k):
        g = real_gg(*a, **k)
        gauss.append(g)
        return g

    def spy_rel(z, sigma, gen, grid=None):
        gauss.append(grid)
        return real_rel(z, sigma, gen, grid)

    monkeypatch.setattr(M, "laplace_grid", spy_lg)
    monkeypatch.setattr(M, "gaussian_grid", spy_gg)
    monkeypatch.setattr(PB, "_release", spy_rel)
    X, y = _data(n, d, 0)
    est = PrivateBoostClassifier(eps, 1e-6, n_rounds=5, booster=booster, weak_learner=learner, data_norm=2.0,
                                 insecure_noise_seed=1, classes=(0, 1))
    r = _fit_quiet(est, X, y).noise_report_
    monkeypatch.undo()
    kappa = 0.2
    if learner == "stump":
        sens = 4.0 / (kappa * n) if booster == "lazy_bregman" else 12.0 / (kappa * n)
        grids = {(round(s / sens, 9), g.scale, g.k) for s, g in laplace if s != 1.0}  # s = 1: SmoothBoost's PTR test
        assert len(grids) == 1, grids  # every round draws from the same grid
        (ratio, t, k), = grids
        assert ratio == pytest.approx(1.0, rel=1e-12) and r.sensitivity == pytest.approx(sens, rel=1e-12)
        b = t * 2.0 ** k
        K = 2 * d * 16
        assert r.noise_scale == b and r.candidates == K and r.noise_norm is None
        assert r.score_accuracy_95 == pytest.approx(b * math.log(20.0), rel=1e-12)
        x = r.selection_gap_95 / b
        assert (K - 1) * math.exp(-x) * (2 + x) / 4 == pytest.approx(0.05, rel=1e-9)
        assert r.selection_gap_95 > b * math.log(K / 0.05)
        assert r.noise_to_signal == pytest.approx(r.selection_gap_95, rel=1e-12)
        assert r.threshold == B.STUMP_NOISE_RATIO
        dp = pytest.importorskip("opendp.prelude")
        dp.enable_features("contrib")
        assert r.score_accuracy_95 == pytest.approx(dp.laplacian_scale_to_accuracy(b, 0.05), rel=1e-9)
    else:
        sigmas = {math.sqrt(g.sigma2_grid) * g.granularity for g in gauss if g is not None}
        assert len(sigmas) == 1, sigmas
        sigma, = sigmas
        assert r.noise_scale == sigma and r.selection_gap_95 is None and r.candidates == d
        assert r.score_accuracy_95 == pytest.approx(Z95 * sigma, rel=1e-12)
        assert r.noise_norm == pytest.approx(sigma * math.sqrt(d), rel=1e-12)
        assert r.noise_to_signal == pytest.approx(sigma * math.sqrt(d), rel=1e-12)
        assert r.threshold == B.CENTROID_NOISE_RATIO
        dp = pytest.importorskip("opendp.prelude")
        dp.enable_features("contrib")
        assert r.score_accuracy_95 == pytest.approx(dp.gaussian_scale_to_accuracy(sigma, 0.05), rel=1e-9)
    assert r.advantage_needed == pytest.approx(r.noise_to_signal / 2) and r.signal_max == 1.0
    assert r.dominated == (r.noise_to_signal > r.threshold)
    assert r == B.boosting_noise(eps, 1e-6, n=n, d=d, n_rounds=5, booster=booster, weak_learner=learner)
    assert r.as_dict()["noise_to_signal"] == r.noise_to_signal


def test_boosting_selection_gap_is_what_report_noisy_max_needs():
    """Monte Carlo of the selection gap: with the winner's score exactly selection_gap_95 above K - 1 equal
    competitors, report_noisy_max (the library's sampler) picks it in >= 95 % of 2,000 draws (the union bound is
    conservative); at a quarter of the gap it does not.  The one-sided b ln(K / 0.05) (the winner's own noise left
    out) was picked 94.05 % of the time here: too small, which is why the report solves for the differences."""
    r = B.boosting_noise(1.0, 1e-6, n=2000, d=2, n_thresholds=4, n_rounds=25)
    K = r.candidates
    gen = np.random.default_rng(0)

    def rate(gap):
        q = np.zeros(K)
        q[3] = gap
        return np.mean([PB.report_noisy_max(q, r.sensitivity, r.epsilon_round, rng=gen) == 3 for _ in range(2000)])

    assert rate(r.selection_gap_95) >= 0.95
    assert rate(r.selection_gap_95 / 4) < 0.9


def test_boosting_report_one_vs_rest_is_each_binary_fits():
    """One-vs-rest over k = 3 declared classes: the report is each binary fit's (budget rho / 3 each), so noisier
    than the binary fit at the same budget, and the warning is said once for the whole fit."""
    X, y = _data(500, 2, 1)
    y3 = y + (X[:, 1] > 0.5)
    est = PrivateBoostClassifier(0.5, 1e-6, n_rounds=5, classes=(0, 1, 2), insecure_noise_seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y3)
    noise = [w for w in caught if issubclass(w.category, B.BoostingNoiseWarning)]
    r = est.noise_report_
    assert r == B.boosting_noise(0.5, 1e-6, n=500, d=2, n_rounds=5, n_fits=3)
    assert r == est.estimators_[0].noise_report_
    assert r.noise_scale > B.boosting_noise(0.5, 1e-6, n=500, d=2, n_rounds=5).noise_scale
    assert r.dominated and len(noise) == 1 and noise[0].filename == __file__


# --------------------------------------------------------------------------- boosting: the threshold and D vs D'
def _boundary_n(**kw):
    """The smallest n (public) at which boosting_noise(**kw) is not dominated, by bisection (the ratio falls with
    n: the score sensitivity is 4/(kappa n))."""
    lo, hi = 2, 200_000
    assert B.boosting_noise(n=lo, **kw).dominated and not B.boosting_noise(n=hi, **kw).dominated
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if B.boosting_noise(n=mid, **kw).dominated else (lo, mid)
    return hi


@pytest.mark.parametrize("learner", ["stump", "halfspace"])
def test_boosting_warning_fires_exactly_above_the_threshold(learner):
    """At the n where noise_to_signal crosses the documented threshold (4 stump, 1 halfspace), the fit at n - 1
    warns BoostingNoiseWarning and the fit at n does not: the warning is the report's ``dominated``, nothing else."""
    kw = dict(epsilon=1.0, delta=1e-6, d=2, n_rounds=5, weak_learner=learner)
    n = _boundary_n(**kw)
    hi, lo = B.boosting_noise(n=n - 1, **kw), B.boosting_noise(n=n, **kw)
    th = B.STUMP_NOISE_RATIO if learner == "stump" else B.CENTROID_NOISE_RATIO
    assert lo.noise_to_signal <= th < hi.noise_to_signal
    make = lambda: PrivateBoostClassifier(1.0, 1e-6, n_rounds=5, weak_learner=learner, data_norm=2.0,  # noqa: E731
                                          classes=(0, 1))
    X, y = _data(n, 2, 2)
    with pytest.warns(B.BoostingNoiseWarning, match="mostly noise") as rec:
        make().fit(X[1:], y[1:])
    assert f"n = {n - 1}, d = 2" in str(rec[0].message) and rec[0].filename == __file__
    ctx = _no(B.BoostingNoiseWarning)
    try:
        assert make().fit(X, y).noise_report_ == lo
    finally:
        ctx.__exit__(None, None, None)


@pytest.mark.parametrize("eps,expect", [(0.2, True), (50.0, False)])
def test_boosting_report_and_warning_identical_on_neighbouring_data(eps, expect):
    """D and D' of one shape (different features AND labels, one record replaced and then every record): the same
    noise_report_ and the same warnings (message included), whether it warns or not: public quantities only."""
    X, y = _data(400, 3, 3)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = -X2[0], 1 - y2[0]
    X3, y3 = _data(400, 3, 4)
    reports, said = [], []
    for A, b in ((X, y), (X2, y2), (X3, 1 - y3)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reports.append(PrivateBoostClassifier(eps, 1e-6, n_rounds=5, classes=(0, 1)).fit(A, b).noise_report_)
        said.append([str(w.message) for w in caught if issubclass(w.category, B.BoostingNoiseWarning)])
    assert reports[0] == reports[1] == reports[2] and said[0] == said[1] == said[2]
    assert reports[0].dominated is expect and len(said[0]) == int(expect)


@pytest.mark.parametrize("learner", ["stump", "halfspace"])
def test_boosting_report_on_dask_equals_in_memory(learner):
    """PrivateBoostClassifier.fit on dask arrays (fast.estimators._distributed) sets the same noise_report_ as the
    in-memory fit and warns the same way, at the caller's line (dask's local scheduler: no cluster needed)."""
    da = pytest.importorskip("dask.array")
    X, y = _data(600, 3, 7)
    kw = dict(n_rounds=4, classes=(0, 1), weak_learner=learner, data_norm=2.0)
    said = []
    for A, b in ((X, y), (da.from_array(X, chunks=(200, 3)), da.from_array(y, chunks=200))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            said.append((PrivateBoostClassifier(0.5, **kw).fit(A, b).noise_report_,
                         [(str(w.message), w.filename) for w in caught
                          if issubclass(w.category, B.BoostingNoiseWarning)]))
    assert said[0] == said[1] and said[0][0].dominated and said[0][1][0][1] == __file__


def test_boosting_noise_refuses_bad_inputs_and_reports():
    with pytest.raises(ValueError, match="n"):
        B.boosting_noise(1.0, 1e-6, n=0, d=3)
    with pytest.raises(ValueError, match="epsilon"):
        B.boosting_noise(float("nan"), 1e-6, n=10, d=3)
    with pytest.raises(ValueError, match="weak_learner"):
        B.boosting_noise(1.0, 1e-6, n=10, d=3, weak_learner="tree")
    with pytest.raises(TypeError, match="BoostingNoiseReport"):
        B.warn_if_boosting_noise({"dominated": True})
    with pytest.raises(TypeError, match="stacklevel"):
        B.warn_if_boosting_noise(None, stacklevel=0)
    assert B.warn_if_boosting_noise(None) is False


# --------------------------------------------------------------------------- ANM
def test_anm_report_is_the_mechanisms_own_scale_and_opendps_accuracy(monkeypatch):
    """PrivateANM (Kendall, test-set privacy): laplace_scale is the grid laplace_scores draws the 2-vector with
    (spied: laplace_grid(sensitivity_, epsilon / 2, dimension=2), scale t times 2^k); score_accuracy_95 = b ln 20
    (OpenDP laplacian_scale_to_accuracy); difference_accuracy_95 solves (1 + a/2b) e^(-a/b) = 0.05 (the tail of
    the difference of two iid Laplace(b)) and holds for 95 % of 200,000 simulated differences; the expected
    |difference| is 1.5 b; the range is 1 (|tau|)."""
    grids = []
    real = M.laplace_grid

    def spy(sensitivity, epsilon, *a, **k):
        g = real(sensitivity, epsilon, *a, **k)
        grids.append((sensitivity, epsilon, k.get("dimension"), g))
        return g

    monkeypatch.setattr(M, "laplace_grid", spy)
    gen = np.random.default_rng(0)
    x = gen.uniform(-1, 1, 300)
    est = PrivateANM_fit = C.PrivateANM("kendall", epsilon=1.0, bandwidth=0.3, random_state=0,
                                        insecure_noise_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PrivateANM_fit.fit(x, x ** 3 + 0.1 * gen.uniform(-1, 1, 300))
    monkeypatch.undo()
    drawn = [g for s, e, dim, g in grids if s == est.sensitivity_ and dim == 2]
    assert drawn
    b = drawn[-1].scale * drawn[-1].granularity
    r = est.noise_report_
    assert (r.m, r.n, r.score_range) == (150, 150, 1.0) and r.sensitivity == est.sensitivity_ == 4 / 150
    assert r.laplace_scale == b and r.epsilon_per_score == pytest.approx(0.5, rel=1e-12)
    assert r.score_accuracy_95 == pytest.approx(b * math.log(20.0), rel=1e-12)
    a = r.difference_accuracy_95
    assert (1 + a / (2 * b)) * math.exp(-a / b) == pytest.approx(0.05, rel=1e-9)
    diff = np.random.default_rng(1).laplace(0, b, size=(200_000, 2))
    assert np.mean(np.abs(diff[:, 0] - diff[:, 1]) <= a) == pytest.approx(0.95, abs=0.003)
    assert r.expected_difference_noise == pytest.approx(1.5 * b) and r.noise_to_signal == pytest.approx(1.5 * b)
    assert r.prob_correct_at_range == pytest.approx(1 - math.exp(-1 / b) * (2 + 1 / b) / 4)
    assert not r.dominated and r.threshold == C.ANM_NOISE_RATIO
    assert r == C.anm_noise("kendall", m=150, n=150, epsilon=1.0, bandwidth=0.3)
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    assert r.score_accuracy_95 == pytest.approx(dp.laplacian_scale_to_accuracy(b, 0.05), rel=1e-9)


def test_anm_hsic_range_and_no_report_without_a_laplace_score():
    """HSIC's range is m^2/(m-1)^2 (trace(KHLH)/(m-1)^2 with kernels in [0, 1]); IQR and the rank scores under
    privacy="train" release no Laplace-noised score: no report (None), no warning."""
    r = C.anm_noise("hsic", m=10, n=10, epsilon=1.0)
    assert r.score_range == pytest.approx(100 / 81) and r.noise_to_signal == pytest.approx(1.5 * r.laplace_scale
                                                                                           / (100 / 81))
    assert C.anm_noise("iqr", m=10, n=10) is None
    assert C.anm_noise("kendall", m=10, n=10, privacy="train", bandwidth=0.3) is None
    gen = np.random.default_rng(0)
    x = gen.uniform(-1, 1, 60)
    ctx = _no(C.ANMNoiseWarning)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, message="(?!the private ANM)")
            est = C.PrivateANM("iqr", epsilon=0.1, random_state=0).fit(x, x + gen.normal(size=60))
    finally:
        ctx.__exit__(None, None, None)
    assert est.noise_report_ is None


def _anm_boundary_m(**kw):
    lo, hi = 2, 100_000
    assert C.anm_noise(m=lo, n=lo, **kw).dominated and not C.anm_noise(m=hi, n=hi, **kw).dominated
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if C.anm_noise(m=mid, n=mid, **kw).dominated else (lo, mid)
    return hi


def test_anm_warning_fires_exactly_above_the_threshold():
    """Kendall at epsilon 1: at the test size m where 1.5 b / 1 crosses 0.3, the fit with m - 1 test records warns
    ANMNoiseWarning and the fit with m does not."""
    kw = dict(score="kendall", epsilon=1.0, bandwidth=0.3)
    m = _anm_boundary_m(**kw)
    assert C.anm_noise(m=m, n=m, **kw).noise_to_signal <= C.ANM_NOISE_RATIO < \
        C.anm_noise(m=m - 1, n=m - 1, **kw).noise_to_signal
    gen = np.random.default_rng(5)
    x = gen.uniform(-1, 1, 2 * m)
    y = np.tanh(2 * x) + 0.2 * gen.uniform(-1, 1, 2 * m)
    with pytest.warns(C.ANMNoiseWarning, match=f"mostly noise.*m = {m - 1}") as rec:
        C.PrivateANM("kendall", epsilon=1.0, bandwidth=0.3, random_state=0).fit(x[2:], y[2:])
    assert rec[0].filename == __file__
    ctx = _no(C.ANMNoiseWarning)
    try:
        est = C.PrivateANM("kendall", epsilon=1.0, bandwidth=0.3, random_state=0).fit(x, y)
    finally:
        ctx.__exit__(None, None, None)
    assert est.m_test_ == m and not est.noise_report_.dominated


@pytest.mark.parametrize("eps,expect", [(0.05, True), (5.0, False)])
def test_anm_report_and_warning_identical_on_neighbouring_data(eps, expect):
    """D and D' of one length (one pair replaced; then entirely different values): the same noise_report_ and
    the same warnings."""
    gen = np.random.default_rng(6)
    x = gen.uniform(-1, 1, 120)
    y = x ** 3 + 0.1 * gen.normal(size=120)
    x2, y2 = x.copy(), y.copy()
    x2[7], y2[7] = 0.9, -0.9
    reports, said = [], []
    for a, b in ((x, y), (x2, y2), (gen.normal(size=120), gen.normal(size=120))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reports.append(C.PrivateANM("spearman", epsilon=eps, random_state=0).fit(a, b).noise_report_)
        said.append([str(w.message) for w in caught if issubclass(w.category, C.ANMNoiseWarning)])
    assert reports[0] == reports[1] == reports[2] and said[0] == said[1] == said[2]
    assert reports[0].dominated is expect and len(said[0]) == int(expect)


def test_anm_noise_refuses_bad_inputs_and_reports():
    with pytest.raises(ValueError, match="m"):
        C.anm_noise("kendall", m=1, n=10)
    with pytest.raises(ValueError, match="epsilon"):
        C.anm_noise("kendall", m=10, n=10, epsilon=-1.0)
    with pytest.raises(ValueError, match="score"):
        C.anm_noise("tau", m=10, n=10)
    with pytest.raises(TypeError, match="ANMNoiseReport"):
        C.warn_if_anm_noise(B.boosting_noise(n=10, d=1))
    with pytest.raises(TypeError, match="stacklevel"):
        C.warn_if_anm_noise(None, stacklevel=True)


# --------------------------------------------------------------------------- CLI records
def _csv(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def test_cli_boost_record_holds_the_noise_report_and_prints_the_warning(tmp_path, capsys):
    """`privlearn boost` writes results.noise_report (boosting_noise of the command's public n, d and parameters)
    in its record, prints the noise line, and prints the BoostingNoiseWarning on standard output when the rounds
    are mostly noise (300 rows, epsilon 0.5: yes; stderr stays quiet); not at 3,000 rows, epsilon 20."""
    from fast import cli

    gen = np.random.default_rng(0)
    for n, eps, loud in ((300, "0.5", True), (3000, "20", False)):
        X = np.round(gen.uniform(-1, 1, size=(n, 2)), 4)
        data = _csv(tmp_path / f"d{n}.csv", ["a", "b", "y"],
                    [[*X[i], "yes" if X[i, 0] > 0 else "no"] for i in range(n)])
        rec = tmp_path / f"r{n}.json"
        assert cli.main(["boost", str(data), "--label", "y", "--classes", "no,yes", "--epsilon", eps,
                         "--bounds", "-1:1", "--rounds", "5", "--out", str(tmp_path / f"m{n}.json"),
                         "--record", str(rec), "--quiet"]) == cli.EXIT_OK
        out = capsys.readouterr()
        got = json.loads(rec.read_text())["results"]["noise_report"]
        assert got == B.boosting_noise(float(eps), 1e-6, n=n, d=2, n_rounds=5).as_dict()
        assert got["dominated"] is loud and "noise: each round's report-noisy-max" in out.out
        assert ("warning: the private boosting rounds are mostly noise" in out.out) is loud
        assert "mostly noise" not in out.err


def test_cli_causal_record_holds_the_noise_report_and_prints_the_warning(tmp_path, capsys):
    """`privlearn causal` writes results.noise_report (anm_noise of the command's sizes and parameters) and
    prints the ANMNoiseWarning on standard output at epsilon 0.1 (200 pairs), not at epsilon 4."""
    from fast import cli

    gen = np.random.default_rng(1)
    x = gen.uniform(-1, 1, 200)
    data = _csv(tmp_path / "pairs.csv", ["altitude", "temperature"], zip(x, np.tanh(2 * x)))
    for eps, loud in (("0.1", True), ("4", False)):
        rec = tmp_path / f"r{eps}.json"
        assert cli.main(["causal", str(data), "--x", "altitude", "--y", "temperature", "--epsilon", eps,
                         "--seed", "0", "--record", str(rec), "--quiet"]) == cli.EXIT_OK
        out = capsys.readouterr()
        got = json.loads(rec.read_text())["results"]["noise_report"]
        assert got == C.anm_noise("kendall", m=100, n=100, epsilon=float(eps)).as_dict()
        assert got["dominated"] is loud and "noise: each released score carries Laplace noise" in out.out
        assert ("warning: the private ANM scores are mostly noise" in out.out) is loud
        assert "mostly noise" not in out.err
