"""The SNC experiment driver's bookkeeping (experiments/snc.py): a study saved after every fit, continued by
``--append`` with new run numbers, and its report counting what each cell averages.  Synthetic data: no
../shared needed."""
import json

import numpy as np
import pytest

snc_exp = pytest.importorskip("experiments.snc")


def blobs(centre, per_class):
    """A loader: two Gaussian classes at -centre / +centre in 3 dimensions, split 3/4 - 1/4 at random per run."""
    def load(run):
        rng = np.random.default_rng(run)
        X = np.vstack([rng.normal(-centre, 1, (per_class, 3)), rng.normal(centre, 1, (per_class, 3))])
        y = np.repeat([0, 1], per_class)
        p = rng.permutation(2 * per_class)
        cut = 3 * per_class // 2
        return X[p[:cut]], y[p[:cut]], X[p[cut:]], y[p[cut:]]
    return load


@pytest.fixture
def toy(monkeypatch, tmp_path):
    monkeypatch.setitem(snc_exp.LOADERS, "toy", blobs(2.0, 60))
    monkeypatch.setitem(snc_exp.TITLES, "toy", "Toy")
    monkeypatch.setattr(snc_exp, "OUT", tmp_path)
    return tmp_path


def test_study_saves_after_every_fit_and_appends_runs(toy):
    saved = []
    res = snc_exp.study("toy", runs=1, ratios=(0.04, 0.08), max_iter=5, speedup=False,
                        save=lambda r: saved.append(json.loads(json.dumps(r))))
    # one checkpoint per SNC fit (2), per condensation baseline (2), and the closing one
    assert len(saved) == 5
    assert [len(s["snc_error"]["0.04"]) for s in saved][:2] == [1, 1]
    assert len(saved[0]["snc_error"]["0.08"]) == 0 and len(saved[1]["snc_error"]["0.08"]) == 1
    assert res["runs"] == 1 and len(res["cnn"]) == 1 and res["cnn"][0]["run"] == 0
    g0 = res["gamma2"][0]["start"]
    cpu = res["cpu_seconds_total"]

    more = snc_exp.study("toy", runs=2, ratios=(0.04, 0.08, 0.16), max_iter=5, speedup=False,
                         baseline_runs=0, previous=json.loads(json.dumps(res)))
    assert more["runs"] == 3 and len(more["full_1nn_error"]) == 3
    assert more["full_1nn_error"][0] == res["full_1nn_error"][0]
    # new runs are numbered after the old ones (their own split), and start from the stored hold-out gamma^2
    assert [g["run"] for g in more["gamma2"]] == [0, 0, 1, 1, 1, 2, 2, 2]
    assert all(g["commit"] for g in more["gamma2"])  # each fit names the code it ran
    assert all(g["start"] == g0 for g in more["gamma2"])
    assert more["ratios"] == [0.04, 0.08, 0.16] and len(more["snc_error"]["0.16"]) == 2
    assert len(more["cnn"]) == 1 and more["cpu_seconds_total"] > cpu


def test_jobs_make_the_same_runs_as_one_after_the_other(toy, monkeypatch):
    """--jobs 2: the runs are made in two worker processes, and the study records the same fits (same seeds, same
    splits, each SNC error paired with its own run) as the serial continuation; no save holds a pending run."""
    monkeypatch.setitem(snc_exp.LOADERS, "toy", blobs(0.6, 150))  # classes that overlap: every run errs differently
    base = snc_exp.study("toy", runs=1, ratios=(0.04, 0.08), max_iter=5, speedup=False, baseline_runs=0)
    saved = []
    par = snc_exp.study("toy", runs=3, ratios=(0.04, 0.08), max_iter=5, speedup=False,
                        previous=json.loads(json.dumps(base)), jobs=2,
                        save=lambda r: saved.append(json.loads(json.dumps(r))))
    ser = snc_exp.study("toy", runs=3, ratios=(0.04, 0.08), max_iter=5, speedup=False,
                        previous=json.loads(json.dumps(base)))

    def fits(res):
        out = {}
        for r in res["ratios"]:
            records = [g for g in res["gamma2"] if g["ratio"] == r]
            for g, e, sub in zip(records, res["snc_error"][str(r)], res["subsample_error"][str(r)]):
                out[(g["run"], r)] = (e, sub, g["start"], g["optimised"])
        return out

    assert par["full_1nn_error"] == ser["full_1nn_error"] and len(par["full_1nn_error"]) == 4
    assert fits(par) == fits(ser) and len(fits(par)) == 8
    def untimed(records):
        return sorted(json.dumps({k: v for k, v in c.items() if k != "seconds"}, sort_keys=True) for c in records)

    assert untimed(par["cnn"]) == untimed(ser["cnn"]) and untimed(par["fcnn"]) == untimed(ser["fcnn"])
    assert len(set(par["full_1nn_error"])) == 4 and len(set(fits(par).values())) == 8  # runs differ: pairing matters
    assert len(par["fcnn"]) == 3 and par["cpu_seconds_total"] > base["cpu_seconds_total"]
    assert sorted(c["run"] for c in par["cnn"]) == sorted(c["run"] for c in par["fcnn"]) == [1, 2, 3]  # named
    assert saved and all(None not in s["full_1nn_error"] for s in saved)
    # at most one save per SNC fit (6), per baseline (6), and the closing one; a save waits while an earlier run's
    # full 1-NN error is pending (the workers' order decides how often), so the count is not exact, but the saves
    # only grow and the last one holds everything
    assert len(saved) <= 6 + 6 + 1
    sizes = [(len(s["gamma2"]), len(s["cnn"]) + len(s["fcnn"])) for s in saved]
    assert sizes == sorted(sizes) and sizes[-1] == (2 + 6, 6)
    with pytest.raises(ValueError, match="hold-out gamma"):
        snc_exp.study("toy", runs=2, ratios=(0.08,), max_iter=5, speedup=False, jobs=2)
    with pytest.raises(ValueError, match="every run or in none"):
        snc_exp.study("toy", runs=2, ratios=(0.08,), max_iter=5, speedup=False, previous=json.loads(json.dumps(base)),
                      jobs=2, baseline_runs=1)


def test_a_failing_job_stops_the_study(toy, monkeypatch):
    base = snc_exp.study("toy", runs=1, ratios=(0.08,), max_iter=5, speedup=False, baseline_runs=0)

    def broken(run):
        raise OSError(f"run {run}: the data went away")

    monkeypatch.setitem(snc_exp.LOADERS, "toy", broken)
    with pytest.raises(RuntimeError, match="the data went away"):
        snc_exp.study("toy", runs=2, ratios=(0.08,), max_iter=5, speedup=False, previous=base, jobs=2)


def test_a_job_killed_by_a_signal_stops_the_study(toy, monkeypatch):
    """A worker killed outright (the OOM killer's SIGKILL) sends no error event: the parent must notice it died, not
    wait forever (stop 23: three cover type workers, one OOM-killed, and the study hung)."""
    import os
    import signal

    base = snc_exp.study("toy", runs=1, ratios=(0.08,), max_iter=5, speedup=False, baseline_runs=0)
    load = snc_exp.LOADERS["toy"]

    def killed(run):
        if run == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return load(run)

    def too_long(*_):
        raise TimeoutError("the study waited 120 s for a dead worker")

    monkeypatch.setitem(snc_exp.LOADERS, "toy", killed)
    before = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(120)
    try:
        with pytest.raises(RuntimeError, match="killed by signal 9.*OOM killer"):
            snc_exp.study("toy", runs=2, ratios=(0.08,), max_iter=5, speedup=False, previous=base, jobs=2,
                          baseline_runs=0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def test_append_refuses_another_iteration_budget(toy):
    res = snc_exp.study("toy", runs=1, ratios=(0.08,), max_iter=5, speedup=False, baseline_runs=0)
    with pytest.raises(SystemExit, match="5"):
        snc_exp.study("toy", runs=1, ratios=(0.08,), max_iter=6, speedup=False, previous=res)


def test_report_says_how_many_runs_a_short_cell_averages():
    assert snc_exp._ms([0.1, 0.2], runs=2) == "0.1500 ± 0.0707"
    assert snc_exp._ms([0.1], runs=3) == "0.1000 (1 run)"
    assert snc_exp._ms([0.1, 0.3], runs=3) == "0.2000 ± 0.1414 (2 runs)"
    assert snc_exp._ms([], runs=3) == "-"


def test_retime_speedup_refits_the_first_runs_sets_and_records_the_load(toy):
    res = snc_exp.study("toy", runs=1, ratios=(0.08, 0.16), max_iter=5, speedup=True, baseline_runs=0)
    (toy / "toy.json").write_text(json.dumps(res))
    again = snc_exp.retime_speedup("toy")
    assert set(again["snc_seconds"]) == {"0.08", "0.16"}
    assert set(again["full_seconds"]) == set(res["speedup"]["full_seconds"])
    assert again["queries"] == res["speedup"]["queries"] == 30
    assert {"load_average_before", "load_average_after", "measured"} <= set(again["retimed"])


def test_speedup_can_time_a_prefix_of_the_test_queries(toy):
    res = snc_exp.study("toy", runs=1, ratios=(0.08,), max_iter=5, speedup=True, baseline_runs=0,
                        speedup_queries=12)
    assert res["speedup"]["queries"] == 12
    assert snc_exp._queries(res) == "the first 12 of 30 test queries"
    (toy / "toy.json").write_text(json.dumps(res))
    assert snc_exp.retime_speedup("toy", queries=7)["queries"] == 7
    res["speedup"]["queries"] = 30
    assert snc_exp._queries(res) == "all 30 test queries"


def test_judgement_pairs_each_run_with_its_own_split():
    # three runs whose splits differ: SNC is worse than full 1-NN by 0.004-0.006 on each split, though the unpaired
    # spread of the SNC errors (0.011) would call it a match
    res = {"ratios": [0.04], "full_1nn_error": [0.10, 0.12, 0.11, 0.13],
           "snc_error": {"0.04": [0.104, 0.125, 0.116]},
           "gamma2": [{"run": 0, "ratio": 0.04}, {"run": 1, "ratio": 0.04}, {"run": 2, "ratio": 0.04}]}
    assert snc_exp.judgement(res) == "4 %: 0.1150 (worse than full 1-NN 0.1100, +0.0050, 3 runs)"
    # the pairing follows the recorded runs, not the list position
    res["gamma2"] = [{"run": 1, "ratio": 0.04}, {"run": 2, "ratio": 0.04}, {"run": 3, "ratio": 0.04}]
    res["snc_error"]["0.04"] = [0.10, 0.098, 0.111]
    assert snc_exp.judgement(res) == "4 %: 0.1030 (better than full 1-NN 0.1200, -0.0170, 3 runs)"
    res["snc_error"]["0.04"] = [0.121, 0.111, 0.131]
    assert "matches" in snc_exp.judgement(res)
    # the thesis's 5 runs need no count beside the verdict
    res = {"ratios": [0.04], "full_1nn_error": [0.10] * 5, "snc_error": {"0.04": [0.09] * 5},
           "gamma2": [{"run": k, "ratio": 0.04} for k in range(5)]}
    assert snc_exp.judgement(res) == "4 %: 0.0900 (better than full 1-NN 0.1000, -0.0100)"


def test_verdict_uses_the_interval_of_the_mean_difference():
    # cover type at 4 %, stop 20: worse on all five splits (0.18-1.03 points); 2 sd of the differences (0.64 points)
    # exceeds their mean (0.54), which the stop-19 rule called a match
    d = [0.1214 - 0.1169, 0.1260 - 0.1193, 0.1281 - 0.1178, 0.1231 - 0.1213, 0.1237 - 0.1199]
    assert snc_exp.verdict(d) == "worse than"
    assert snc_exp.verdict([-x for x in d]) == "better than"
    # two runs worse by 0.4 and 0.6 points: the t-interval (12.7 x the standard error) cannot exclude zero
    assert snc_exp.verdict([0.004, 0.006]) == "matches"
    # significant but within the 0.2-point margin; one run judged by the margin alone
    assert snc_exp.verdict([0.0010, 0.0011, 0.0012, 0.0011, 0.0010]) == "matches"
    assert snc_exp.verdict([0.0030]) == "worse than" and snc_exp.verdict([0.0015]) == "matches"
    # a mean inside its own interval: signs disagree across runs
    assert snc_exp.verdict([0.010, -0.004, 0.008, -0.003, 0.009]) == "matches"


def test_report_names_the_retimed_rows_and_the_rest_once():
    again = {"measured": "measured 2026-11-28 05:36 UTC at commit abc", "load_average_before": 1.25,
             "load_average_after": 2.0}
    rows = [("letters", {"speedup": {"retimed": again}}), ("adult", {"speedup": {}}),
            ("mnist", {"speedup": {"retimed": again}})]
    text = snc_exp.retime_sentence(rows)
    assert text == ("Re-timed by `--retime-speedup`: Letters 2026-11-28 05:36 UTC at commit abc, load average 1.2 "
                    "before and 2.0 after; MNIST 2026-11-28 05:36 UTC at commit abc, load average 1.2 before and "
                    "2.0 after. Timed during their study: Adult.")
    assert snc_exp.retime_sentence(rows[1:2]) == "Timed during their study: Adult."
    assert "Timed during" not in snc_exp.retime_sentence(rows[::2])
