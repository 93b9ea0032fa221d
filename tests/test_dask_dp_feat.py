"""DP-Feat (nock2015 Algorithm 2) on dask input: keyed-word signature selection (fast/estimators/_distributed_dp_feat.py).

Before it, ``RadoBoostClassifier(privacy=dp_feat(...)).fit`` on a dask array raised "privacy with a dask input
supports gaussian_edges(...) only" and ``privlearn rados DIR/ --sensitive COL`` raised "--sensitive (DP-Feat) is
not supported on a Parquet directory"; every test here fails on that code (the module did not exist, and the two
entry points refused).
"""
from __future__ import annotations

import itertools
import json
import os
import pickle
import signal

import numpy as np
import pytest

import dask.array as da
from scipy import stats

import reference.rados as ref_rados
from _dask_cluster import client, spy_compute  # noqa: F401 (fixtures)
from fast import _dask
from fast.dp_rados import _window_ks, dp_feat, in_dp_feat_set
from fast._exact_rados import rados_exact
from fast.estimators import _distributed_dp_feat as dpf
from fast._contracts.privacy_contract import InsecureNoiseWarning


def _data(m, d, seed):
    """X with the protected column 0 in the 0/1 coding (read as -1/+1 by the source) and d - 1 real columns."""
    gen = np.random.default_rng(seed)
    X = gen.normal(size=(m, d)) * np.exp(gen.normal(size=d) * 4)
    X[:, 0] = (gen.random(m) < 0.4).astype(np.float64)
    ypm = np.where(gen.random(m) < 0.55, 1, -1).astype(np.int8)
    return X, ypm


def _memory_signatures(selection, X):
    """The selected signatures of all m rows, materialised in memory: t_i = sign(x_i0) on A_j, -t_i off it."""
    t = np.where(X[:, 0] > 0, 1, -1).astype(np.int8)
    return selection.signatures(t, 0), t


# --------------------------------------------------------------------------- the law (no cluster)


def _masked_words(monkeypatch, mask):
    """Keyed words cut to the bits of ``mask``: ties at every word are frequent, and must be broken by later words."""
    real_rows, real_points = dpf.KeyedRowWords.rows, dpf.KeyedRowWords.points
    monkeypatch.setattr(dpf.KeyedRowWords, "rows", lambda self, *a: real_rows(self, *a) & np.uint64(mask))
    monkeypatch.setattr(dpf.KeyedRowWords, "points", lambda self, *a: real_points(self, *a) & np.uint64(mask))


@pytest.mark.parametrize("mask", [2**64 - 1, 0xC000000000000000], ids=["aes-words", "two-bit-words"])
def test_keyed_selection_is_a_uniform_k_subset(monkeypatch, mask):
    """The law of the distributed selection (claim library.dp_rados.dp-feat-dask-law): given K, the agreeing set is a
    uniform K-subset of the m rows, independent across signatures.  m = 6, K = 2 and 3, 2000 signatures (one draw
    each) of a fixed secret: the 15 / 20 subsets' counts pass a chi-square test (p > 1e-4), every set has exactly K
    rows and equals the K smallest keys (W_0, W_1, W_2, ...) in lexicographic order.  With words cut to their top 2
    bits (mask 0xC0..., ties at 1/4 per pair per word) the law must still hold: a tie broken by the row id (only
    W_0 read) puts row 0 in about 40 % more sets than row 5 and fails; an off-by-one threshold gives |A| = K +- 1."""
    if mask != 2**64 - 1:
        _masked_words(monkeypatch, mask)
    m, n = 6, 2000
    words = dpf.KeyedRowWords(bytes(range(32)))
    for K in (2, 3):
        sel = dpf.select_in_memory(bytes(range(32)), np.full(n, K), m)
        M = sel.members(0, m)
        assert (M.sum(axis=1) == K).all()
        subsets = list(itertools.combinations(range(m), K))
        index = {s: k for k, s in enumerate(subsets)}
        counts = np.bincount([index[tuple(np.flatnonzero(row).tolist())] for row in M], minlength=len(subsets))
        assert stats.chisquare(counts).pvalue > 1e-4, counts
        for j in range(0, n, 97):  # the K smallest keys, read word by word until the order is decided
            keys = [tuple(int(words.points(w, j, [i])[0]) & mask for w in range(12)) for i in range(m)]
            assert len(set(keys)) == m
            assert set(sorted(range(m), key=lambda i: keys[i])[:K]) == set(np.flatnonzero(M[j]).tolist())


def test_keyed_words_agree_between_row_ranges_and_points():
    """W_w(j, i) is a function of (secret, w, j, i) alone: a contiguous range (AES-CTR) and scattered rows (AES-ECB)
    give the same words, and any cut of the rows gives the same selection; a different secret gives other words."""
    words = dpf.KeyedRowWords(b"\x07" * 32)
    for w, j, lo, hi in [(0, 0, 0, 9), (1, 3, 5, 70), (2, 2**40, 1, 2)]:
        assert np.array_equal(words.rows(w, j, lo, hi), words.points(w, j, np.arange(lo, hi)))
    assert not np.array_equal(words.rows(0, 0, 0, 9), dpf.KeyedRowWords(b"\x08" * 32).rows(0, 0, 0, 9))
    sel = dpf.select_in_memory(b"\x07" * 32, np.array([1, 50, 99, 100, 0]), 100)
    whole = sel.members(0, 100)
    assert np.array_equal(np.hstack([sel.members(a, b) for a, b in [(0, 13), (13, 14), (14, 77), (77, 100)]]), whole)
    assert whole.sum(axis=1).tolist() == [1, 50, 99, 100, 0]
    assert "\\x07" not in repr(sel) + repr(words)


# --------------------------------------------------------------------------- dask


def test_dp_feat_dask_rados_equal_exact_rados_of_the_same_signatures_for_every_chunking(client, spy_compute):
    """The rados from a dask array equal, bit for bit, the exactly rounded rados (reference fsum) of the same
    signatures materialised in memory, for three chunkings (seeded: the same K's and secret); every signature agrees
    with t on exactly K_j rows, K_j lies in the plan's window, the K's are _window_ks of the same generator, and
    every signature is in Sigma_m^{beta,j*} (in_dp_feat_set at the plan's window epsilon); only histograms and exact
    partials reached the driver."""
    m, d, n = 1500, 3, 20
    X, ypm = _data(m, d, 1)
    source = dp_feat(0, 16.0, 1e-5)
    plan = source.plan(m, n)
    results = []
    for chunks in (1500, 400, 91):
        R, sel = dpf.dp_feat_dask_rados(source, da.from_array(X, chunks=(chunks, d)), da.from_array(ypm, chunks=chunks),
                                        n, np.random.default_rng(5), m)
        results.append((R, sel))
    for R, sel in results:
        assert R.tobytes() == results[0][0].tobytes()
    R, sel = results[0]
    sig, t = _memory_signatures(sel, X)
    Xd = source.in_domain(X)
    want = np.array(ref_rados.rados(Xd, ypm, sig))
    assert R.tobytes() == want.tobytes() == rados_exact(ypm[:, None] * Xd, ypm, sig).tobytes()
    K = (sig == t[None, :]).sum(axis=1)
    assert np.array_equal(K, sel.K) and ((K >= plan.k_lo) & (K <= plan.k_hi)).all()
    assert np.array_equal(sel.K, _window_ks(np.random.default_rng(5), n, m, plan.k_lo, plan.k_hi))
    assert in_dp_feat_set(Xd, ypm, 0, plan.window_epsilon, sig).all()
    # the j*-coordinate is K - N_- (nock2015 s5): the released value is the mechanism's own draw shifted
    n_minus = int(np.count_nonzero(ypm * Xd[:, 0] == -1))
    assert np.array_equal(R[:, 0], (sel.K - n_minus).astype(np.float64))
    assert spy_compute  # everything reached the driver through fast._dask.compute (sizes: the next test)


def test_mechanism_draws_once_on_the_driver_and_only_partials_travel(client, spy_compute, monkeypatch):
    """The K's (the mechanism's randomness) are drawn once per fit, in the driver's process (the workers'
    _window_ks and WordRandom raise); the fit secret comes from os.urandom once; what reaches the driver is the
    radix histograms (n x 256 int64 each, independent of m) and the exact terms, far below the data's size."""
    from fast import dp_rados

    def forbid():
        import fast._contracts.privacy_contract as pc
        import fast.dp_rados as dr

        def refuse(*a, **k):
            raise AssertionError("a worker drew the mechanism's randomness")

        dr._saved_for_test = (dr._window_ks, pc.WordRandom)
        dr._window_ks, pc.WordRandom = refuse, refuse
        return os.getpid()

    def restore():
        import fast._contracts.privacy_contract as pc
        import fast.dp_rados as dr

        dr._window_ks, pc.WordRandom = dr.__dict__.pop("_saved_for_test")

    calls, secrets = [], []
    real_ks, real_secret = dp_rados._window_ks, dpf.fit_secret
    monkeypatch.setattr(dp_rados, "_window_ks", lambda *a, **k: (calls.append(os.getpid()), real_ks(*a, **k))[1])
    monkeypatch.setattr(dpf, "fit_secret", lambda *a: (secrets.append(os.getpid()), real_secret(*a))[1])
    m, n = 40_000, 10
    X, ypm = _data(m, 1, 2)
    client.run(forbid)
    try:
        R, sel = dpf.dp_feat_dask_rados(dp_feat(0, 8.0, 1e-5), da.from_array(X, chunks=(7000, 1)),
                                        da.from_array(ypm, chunks=7000), n, None, m)
    finally:
        client.run(restore)
    assert calls == [os.getpid()] and secrets == [os.getpid()]
    assert R.shape == (n, 1)
    passes = len(spy_compute) - 1  # radix passes, then the final one
    assert 2 <= passes <= 8 and all(s <= n * 256 * 8 + 200 for s in spy_compute[:-1])
    assert spy_compute[-1] < 0.05 * m * 8  # the final pass: exact terms and counts, not rows


def test_fit_secret_is_not_kept_and_a_retried_task_gives_the_same_rados(client, monkeypatch, tmp_path):
    """The fit secret is on no attribute of the fitted estimator (nor in its pickle), and a task SIGKILLed on its
    first attempt (a radix pass and the final pass, one each) is re-run by the scheduler with the same keyed words:
    the rados equal the fault-free run's bit for bit."""
    from fast.estimators.rados import RadoBoostClassifier

    m, n = 3000, 15
    X, ypm = _data(m, 1, 3)
    y = np.where(ypm > 0, "yes", "no")
    seen = []
    real_secret = dpf.fit_secret
    monkeypatch.setattr(dpf, "fit_secret", lambda *a: (seen.append(real_secret(*a)), seen[-1])[1])
    clf = RadoBoostClassifier(10, n_rados=n, privacy=dp_feat(0, 8.0, 1e-5), classes=("no", "yes"), random_state=1)
    clf.fit(da.from_array(X, chunks=(700, 1)), da.from_array(y, chunks=700))
    assert len(seen) == 1 and len(seen[0]) == 32
    blob = pickle.dumps(clf)
    assert seen[0] not in blob

    def scan(obj, depth=0):
        assert not isinstance(obj, (dpf.DPFeatSelection, dpf.KeyedRowWords))
        assert not (isinstance(obj, bytes) and seen[0] in obj)
        if depth < 4 and isinstance(obj, dict):
            for v in obj.values():
                scan(v, depth + 1)
        elif depth < 4 and isinstance(obj, (list, tuple)):
            for v in obj:
                scan(v, depth + 1)

    scan(vars(clf))

    def run():
        return dpf.dp_feat_dask_rados(dp_feat(0, 8.0, 1e-5), da.from_array(X, chunks=(700, 1)),
                                      da.from_array(ypm, chunks=700), n, np.random.default_rng(11), m)[0]

    clean = run()
    markers = [str(tmp_path / "hist"), str(tmp_path / "final")]
    real_hist, real_final = dpf._histogram_partial, dpf._final_partial

    def dying_hist(secret, level, active, prefixes, start, stop):  # a closure: pickled by value, runs on a worker
        if start == 1400 and not os.path.exists(markers[0]):
            open(markers[0], "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return real_hist(secret, level, active, prefixes, start, stop)

    def dying_final(xb, yb, offset, selection, source):
        if offset == 2100 and not os.path.exists(markers[1]):
            open(markers[1], "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return real_final(xb, yb, offset, selection, source)

    monkeypatch.setattr(dpf, "_histogram_partial", dying_hist)
    monkeypatch.setattr(dpf, "_final_partial", dying_final)
    faulty = run()
    assert all(os.path.exists(p) for p in markers)  # both first attempts really died
    assert faulty.tobytes() == clean.tobytes()


def test_radoboost_dp_feat_dask_fit_charges_first_and_matches_memory(client, monkeypatch):
    """RadoBoostClassifier(privacy=dp_feat(...)).fit on dask arrays works (it raised before): the ledger is charged
    once, before the first job; privacy_spent_ equals the in-memory fit's; a seeded fit gives the same model for any
    chunking, equal to fit_rados on the exact rados of the materialised signatures; more than one column is refused
    before any job, with the in-memory message."""
    from fast.accounting import BudgetAccountant
    from fast.estimators.rados import RadoBoostClassifier

    m, n = 2000, 20
    X, ypm = _data(m, 1, 4)
    y = np.where(ypm > 0, "yes", "no")
    params = dict(n_rados=n, privacy=dp_feat(0, 16.0, 1e-5), classes=("no", "yes"), random_state=3)
    acc = BudgetAccountant(epsilon=40.0, delta=1e-4)
    at_submit = []
    real_compute = _dask.compute
    monkeypatch.setattr(_dask, "compute", lambda *o: (at_submit.append(acc.spent_epsilon), real_compute(*o))[1])
    dist = RadoBoostClassifier(15, **params).fit(da.from_array(X, chunks=(600, 1)), da.from_array(y, chunks=600),
                                                 accountant=acc)
    assert len(at_submit) >= 2 and set(at_submit) == {acc.spent_epsilon} and acc.spent_epsilon > 0
    acc_memory = BudgetAccountant(epsilon=40.0, delta=1e-4)
    memory = RadoBoostClassifier(15, **params).fit(X, y, accountant=acc_memory)
    assert dist.privacy_spent_ == memory.privacy_spent_  # the same guarantee, charged exactly as in memory
    assert (acc.spent_epsilon, acc.spent_delta) == (acc_memory.spent_epsilon, acc_memory.spent_delta)
    monkeypatch.setattr(_dask, "compute", real_compute)
    selections = []
    real_rados = dpf.dp_feat_dask_rados
    monkeypatch.setattr(dpf, "dp_feat_dask_rados", lambda *a: (selections.append(real_rados(*a)), selections[-1])[1])
    coefs = []
    for chunks in (2000, 333):
        clf = RadoBoostClassifier(15, insecure_noise_seed=8, **params)
        with pytest.warns(InsecureNoiseWarning):
            clf.fit(da.from_array(X, chunks=(chunks, 1)), da.from_array(y, chunks=chunks))
        coefs.append(clf.coef_)
    assert np.array_equal(coefs[0], coefs[1])
    sig, _ = _memory_signatures(selections[0][1], X)
    Xd = params["privacy"].in_domain(X)
    want = RadoBoostClassifier(15, **{**params, "privacy": None}).fit_rados(rados_exact(ypm[:, None] * Xd, ypm, sig),
                                                                          classes=("no", "yes"))
    assert np.array_equal(coefs[0], want.coef_)
    jobs = []
    monkeypatch.setattr(_dask, "compute", lambda *o: (jobs.append(1), real_compute(*o))[1])
    X2 = np.column_stack([X, X])
    with pytest.raises(ValueError, match="cannot protect a fit on 2 features") as dist_err:
        RadoBoostClassifier(15, **params).fit(da.from_array(X2, chunks=(600, 2)), da.from_array(y, chunks=600))
    with pytest.raises(ValueError, match="cannot protect a fit on 2 features") as mem_err:
        RadoBoostClassifier(15, **params).fit(X2, y)
    assert str(dist_err.value) == str(mem_err.value) and not jobs


def test_cli_rados_parquet_sensitive_on_a_scheduler(client, tmp_path):
    """`privlearn rados DIR/ --sensitive COL --features COL --scheduler ADDRESS` (refused before): the same metadata
    (mechanism, guarantee, window) and privacy record as the CSV of the same rows; the released j*-coordinates are
    K - N_- with K in the plan's window."""
    import pandas as pd

    from fast.cli import main, read_rados

    gen = np.random.default_rng(6)
    m, n = 900, 12
    df = pd.DataFrame({"s": (gen.random(m) < 0.3).astype(int), "a": gen.normal(size=m),
                       "y": gen.choice(["no", "yes"], m)})
    df.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "pq").mkdir()
    for k in range(3):
        df.iloc[k * 300:(k + 1) * 300].to_parquet(tmp_path / "pq" / f"p{k}.parquet")
    args = ["--label", "y", "--classes", "no,yes", "--features", "s", "--sensitive", "s", "--epsilon", "8",
            "--delta", "1e-5", "--n", str(n)]
    assert main(["rados", str(tmp_path / "in.csv"), *args, "--out", str(tmp_path / "r1.csv")]) == 0
    assert main(["rados", str(tmp_path / "pq"), *args, "--scheduler", client.scheduler.address,
                 "--out", str(tmp_path / "r2.csv")]) == 0
    m1, f1, R1 = read_rados(str(tmp_path / "r1.csv"))
    m2, f2, R2 = read_rados(str(tmp_path / "r2.csv"))
    assert f1 == f2 == ["s"] and R1.shape == R2.shape == (n, 1)
    assert m1 == m2 and m2["sensitive"] == "s" and m2["m"] == m
    r1, r2 = (json.loads((tmp_path / f).read_text()) for f in ("r1.csv.json", "r2.csv.json"))
    assert r1["privacy_spent"] == r2["privacy_spent"]
    assert r2["results"]["m"] == m and r2["results"]["mechanism"] == r1["results"]["mechanism"]
    plan = dp_feat(0, 8.0, 1e-5).plan(m, n)
    e = np.where(df["y"] == "yes", 1, -1) * np.where(df["s"] > 0, 1, -1)
    K = R2[:, 0] + np.count_nonzero(e == -1)
    assert ((K >= plan.k_lo) & (K <= plan.k_hi)).all() and np.array_equal(K, np.round(K))
