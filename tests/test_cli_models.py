"""The command line uses what it writes: ``predict`` / ``score`` for the models of ``fit-rados --out`` and
``boost --out``, ``impact --tables`` and ``impact-apply``, and the JSON record of every run (issue 28 item 1).

Before this change none of it existed: ``privlearn predict`` / ``score`` / ``impact-apply`` were unknown commands
(argparse exit 2), ``impact`` had no ``--tables``, and no command wrote a record, so every test below fails on the
old code (the first command it runs is refused, or the record it reads is absent).  Commands run in-process through
``fast.cli.main`` (the console script's entry point); the exit code of a bad model file is also checked through the
executable.
"""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from fast import cli

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "uci"


def _write(path: Path, header, rows) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def _read(path: Path) -> list[list[str]]:
    with path.open(newline="") as fh:
        return list(csv.reader(fh))


def _main(*args) -> int:
    return cli.main([str(a) for a in args])


def _record(path: Path) -> dict:
    """A record parses as STRICT JSON (no NaN / Infinity) and holds the common fields."""
    rec = json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"{path}: non-strict JSON {c}"))
    assert rec["format"] == cli.RECORD_FORMAT
    assert set(rec) >= {"command", "argv", "version", "commit", "parameters", "privacy_spent", "outputs", "results"}
    assert rec["commit"] is None or re.fullmatch(r"[0-9a-f]{40}", rec["commit"])
    assert rec["version"] == cli._version()
    return rec


def _spent_ok(spent: dict, epsilon: float) -> None:
    assert set(spent) == {"epsilon", "delta", "rho", "neighbouring", "accounting"}
    assert 0 < spent["epsilon"] <= epsilon * (1 + 1e-12)
    assert spent["neighbouring"] and spent["accounting"]


@pytest.fixture
def synthetic(tmp_path) -> tuple[Path, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    m = 800
    X = np.round(rng.normal(size=(m, 3)), 4)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    city = rng.choice(["paris", "lyon", "nice", "=cmd"], m)
    path = _write(tmp_path / "train.csv", ["a", "b", "c", "city", "outcome"],
                  [[*X[i], city[i], y[i]] for i in range(m)])
    return path, X, y


def _rados_pipeline(tmp_path, csv_path, label, classes, features, bounds, X, y_pm1, epsilon=2.0):
    """rados -> fit-rados --out -> predict --out -> score; returns the model and the score record."""
    rados, model, pred = tmp_path / "r.csv", tmp_path / "model.json", tmp_path / "pred.csv"
    assert _main("rados", csv_path, "--label", label, "--classes", classes, "--epsilon", epsilon, "--bounds", bounds,
                 "--features", ",".join(features), "--n", 400, "--seed", 0, "--out", rados, "--quiet") == 0
    rec = _record(Path(f"{rados}.json"))
    assert rec["command"] == "rados" and rec["outputs"] == [str(rados)]
    _spent_ok(rec["privacy_spent"], epsilon)
    assert rec["parameters"]["epsilon"] == epsilon and rec["parameters"]["classes"] == classes
    assert _main("fit-rados", rados, "--rounds", 60, "--out", model, "--quiet") == 0
    rec = _record(Path(f"{model}.json"))
    assert rec["privacy_spent"]["epsilon"] == pytest.approx(epsilon) and "post-processing" in \
        rec["privacy_spent"]["accounting"]
    m = json.loads(model.read_text())
    assert m["format"] == cli.MODEL_FORMAT and m["kind"] == "radoboost-linear" and m["features"] == features
    # the model's rule, computed here from its JSON: sign(theta . s(x)), s the public-bounds scaling
    lo, hi = (float(t) for t in bounds.split(":"))
    S = np.clip((2 * X - lo - hi) / (hi - lo), -1, 1)
    expected = np.where(S @ np.array([m["theta"][f] for f in features]) > 0, 1, -1)
    assert _main("predict", model, csv_path, "--out", pred, "--quiet") == 0
    rows = _read(pred)
    assert rows[0] == ["score", "prediction"] and len(rows) == len(X) + 1
    neg, pos = classes.split(",")
    assert [r[1] for r in rows[1:]] == [pos if e > 0 else neg for e in expected]
    assert _record(Path(f"{pred}.json"))["outputs"] == [str(pred)]
    record = tmp_path / "score.json"
    assert _main("score", model, csv_path, "--label", label, "--record", record, "--quiet") == 0
    rec = _record(record)
    assert rec["results"]["accuracy"] == pytest.approx(float(np.mean(expected == y_pm1)), abs=0)
    assert rec["outputs"] == []
    return m, rec


def test_rados_fit_predict_score_synthetic(tmp_path, synthetic, capsys):
    """rados -> fit-rados -> predict -> score on a synthetic CSV: the predictions are sign(theta . s(x)) with the
    public scaling the rados file recorded, and the printed and recorded accuracy is theirs against the labels
    (exactly: the noise is from OS entropy, so no accuracy LEVEL is asserted)."""
    path, X, y = synthetic
    _, rec = _rados_pipeline(tmp_path, path, "outcome", "no,yes", ["a", "b", "c"], "-4:4", X,
                             np.where(y == "yes", 1, -1))
    assert f"accuracy: {rec['results']['accuracy']:.6g}" in capsys.readouterr().out


@pytest.mark.parametrize("learner", ["halfspace", "stump"])
def test_boost_predict_score_equal_the_estimator(tmp_path, synthetic, monkeypatch, learner):
    """boost --out -> predict -> score: the CLI's predictions and accuracy equal those of the fitted
    PrivateBoostClassifier the command released (captured in-process) on the same rows; the record of the fit
    holds its privacy_spent_."""
    import fast

    path, X, y = synthetic
    fitted = []

    class Capture(fast.PrivateBoostClassifier):
        def fit(self, X, y, *a, **k):
            fitted.append(self)
            return super().fit(X, y, *a, **k)

    monkeypatch.setattr(fast, "PrivateBoostClassifier", Capture)
    model, pred, record = tmp_path / "b.json", tmp_path / "p.csv", tmp_path / "s.json"
    opts = ["--data-norm", 4] if learner == "halfspace" else ["--bounds", "-3:3", "--bound", "c=-5:5"]
    assert _main("boost", path, "--label", "outcome", "--classes", "no,yes", "--epsilon", 2, "--features", "a,b,c",
                 "--weak-learner", learner, *opts, "--rounds", 15, "--out", model, "--quiet") == 0
    clf = fitted[0]
    rec = _record(Path(f"{model}.json"))
    assert rec["privacy_spent"]["epsilon"] == clf.privacy_spent_.epsilon
    assert rec["privacy_spent"]["rho"] == clf.privacy_spent_.rho and rec["outputs"] == [str(model)]
    _spent_ok(rec["privacy_spent"], 2.0)
    y_pm1 = np.where(y == "yes", 1, -1)
    assert _main("predict", model, path, "--out", pred, "--quiet") == 0
    rows = _read(pred)[1:]
    np.testing.assert_array_equal([float(r[0]) for r in rows], clf.decision_function(X))
    assert [r[1] for r in rows] == np.where(clf.predict(X) == 1, "yes", "no").tolist()
    assert _main("score", model, path, "--label", "outcome", "--record", record, "--quiet") == 0
    assert _record(record)["results"]["accuracy"] == clf.score(X, y_pm1)


def test_impact_tables_apply_equal_transform(tmp_path, synthetic, monkeypatch):
    """impact --epsilon --tables -> impact-apply on ANOTHER CSV (a novel level, an empty cell, a formula-like level)
    equals ImpactEncoder.transform with the coders the command fitted (captured in-process), bit for bit; the
    tables hold levels, codes and the novel code only (no counts); both records hold the privacy spent / the
    tables' privacy."""
    import fast.estimators.impact as impact_module

    path, _, _ = synthetic
    fitted = []

    class Capture(impact_module.ImpactEncoder):
        def fit_transform(self, X, y, *a, **k):
            fitted.append(self)
            return super().fit_transform(X, y, *a, **k)

    monkeypatch.setattr(impact_module, "ImpactEncoder", Capture)
    out, tables = tmp_path / "coded.csv", tmp_path / "tables.json"
    assert _main("impact", path, "--column", "city", "--label", "outcome", "--classes", "no,yes", "--epsilon", 1,
                 "--levels", "city=paris,lyon,nice,=cmd", "--out", out, "--tables", tables, "--quiet") == 0
    enc = fitted[0]
    rec = _record(Path(f"{out}.json"))
    assert rec["outputs"] == [str(out), str(tables)]
    assert rec["privacy_spent"]["epsilon"] == enc.privacy_spent_.epsilon
    _spent_ok(rec["privacy_spent"], 1.0)
    t = json.loads(tables.read_text())
    assert t["format"] == cli.TABLES_FORMAT and t["privacy"] == rec["privacy_spent"]
    assert set(t["columns"][0]) == {"name", "levels", "code", "default"}  # never counts / p-values
    assert "\"count\"" not in tables.read_text() and "\"p_value\"" not in tables.read_text()
    new = _write(tmp_path / "new.csv", ["id", "city"],
                 [[1, "paris"], [2, "rome"], [3, ""], [4, "=cmd"], [5, "nice"], [6, "lyon"]])
    coded = tmp_path / "new_coded.csv"
    assert _main("impact-apply", tables, new, "--out", coded, "--quiet") == 0
    rows = _read(coded)
    assert rows[0] == ["id", "city_impact"]
    got = np.array([float(r[1]) for r in rows[1:]])
    cells = np.array([["paris"], ["rome"], [None], ["=cmd"], ["nice"], ["lyon"]], dtype=object)
    want = enc.transform(cells)[:, 0]
    np.testing.assert_array_equal(got, want)
    assert got[1] == got[2] == 0.0  # rome (novel) and the empty cell: the Bayes code's novel code
    rec = _record(Path(f"{coded}.json"))
    assert rec["privacy_spent"] is None and rec["results"]["tables_privacy"] == t["privacy"]


def test_causal_record(tmp_path, synthetic):
    """causal --record writes the record with the privacy spent and the released direction; without --record
    causal writes no file."""
    path, _, _ = synthetic
    record = tmp_path / "causal.json"
    before = set(tmp_path.iterdir())
    assert _main("causal", path, "--x", "a", "--y", "b", "--epsilon", 1, "--seed", 0, "--quiet") == 0
    assert set(tmp_path.iterdir()) == before
    assert _main("causal", path, "--x", "a", "--y", "b", "--epsilon", 1, "--seed", 0, "--record", record,
                 "--quiet") == 0
    rec = _record(record)
    _spent_ok(rec["privacy_spent"], 1.0)
    assert rec["results"]["direction"] in ("x->y", "y->x", "undecided") and rec["outputs"] == []
    assert rec["argv"][0] == "causal" and rec["parameters"]["x"] == "a"


def _model(tmp_path, **fields) -> Path:
    base = {"format": cli.MODEL_FORMAT, "kind": "private-boost", "features": ["a"], "labels": {"-1": "n", "+1": "y"},
            "params": {"weak_learner": "halfspace", "data_norm": 1.0}, "hypotheses": [[1.0]]}
    base.update(fields)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(base))
    return path


@pytest.mark.parametrize("fields, message", [
    ({"format": "privlearn-model/9"}, "not a model this privlearn can read"),
    ({"format": None}, "written by an older privlearn"),
    ({"kind": "forest"}, "unknown model kind 'forest'"),
    ({"hypotheses": [[1.0, 2.0]]}, "damaged field 'hypotheses'"),
    ({"labels": {"-1": "n"}}, "damaged model (labels"),
])
def test_bad_model_file_exit_3(tmp_path, synthetic, capsys, fields, message):
    """A model file of an unknown format, version or kind, or a damaged one: exit 3 (bad input, EXIT_CODES) with a
    message saying what is wrong, and nothing written."""
    path, _, _ = synthetic
    model = _model(tmp_path, **fields)
    out = tmp_path / "p.csv"
    assert _main("predict", model, path, "--out", out) == cli.EXIT_DATA
    assert message in capsys.readouterr().err
    assert not out.exists() and not Path(f"{out}.json").exists()
    assert _main("score", model, path, "--label", "outcome") == cli.EXIT_DATA


def test_wrong_kind_of_file_exit_3_through_the_executable(tmp_path, synthetic):
    """The documented exit code through the console script: a CSV or a tables file given as a model, and a model
    given as tables, exit 3."""
    from tests.test_cli import run

    path, _, _ = synthetic
    model = _model(tmp_path)
    r = run("predict", path, path)
    assert r.returncode == 3 and "not a model file" in r.stderr
    r = run("impact-apply", model, path, "--out", tmp_path / "c.csv")
    assert r.returncode == 3 and "not coding tables" in r.stderr
    assert "a model or coding-tables file of an unknown format" in run("predict", "--help").stdout.replace("\n ", "")


def test_outputs_naming_an_input_refused(tmp_path, synthetic, capsys):
    """An output, a --tables file or a --record naming an input, or a record naming the output: exit 2 before
    anything is read, the input unchanged and nothing written."""
    path, _, _ = synthetic
    model = _model(tmp_path)
    raw = path.read_bytes()
    tables = tmp_path / "t.json"
    before = set(tmp_path.iterdir())
    cases = [
        ("predict", model, path, "--out", path),
        ("predict", model, path, "--out", tmp_path / "p.csv", "--record", model),
        ("predict", model, path, "--out", tmp_path / "p.csv", "--record", tmp_path / "p.csv"),
        ("score", model, path, "--label", "outcome", "--record", path),
        ("impact-apply", tables, path, "--out", path),
        ("impact", path, "--column", "city", "--label", "outcome", "--out", tmp_path / "c.csv", "--tables", path),
        ("impact", path, "--column", "city", "--label", "outcome", "--out", tmp_path / "c.csv", "--tables",
         tmp_path / "c.csv"),
        ("boost", path, "--label", "outcome", "--classes", "no,yes", "--epsilon", 1, "--data-norm", 4, "--out",
         tmp_path / "b.json", "--record", path),
        ("causal", path, "--x", "a", "--y", "b", "--epsilon", 1, "--record", path),
    ]
    for case in cases:
        assert _main(*case) == cli.EXIT_USAGE, case
        err = capsys.readouterr().err
        assert "choose another path" in err, (case, err)
    assert path.read_bytes() == raw and set(tmp_path.iterdir()) == before


def test_commit_is_null_outside_a_checkout(monkeypatch):
    """``commit`` is None when git fails (no git, not a checkout), never an error."""
    import subprocess

    def boom(*a, **k):
        raise OSError("no git")

    monkeypatch.setattr(subprocess, "run", boom)
    assert cli._commit() is None


# --------------------------------------------------------------------------- real data (../shared/data)

needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/uci is absent (a user's clone has no "
                                                             "../shared): the real-data checks need it")


@needs_shared
def test_banknote_models_end_to_end(tmp_path, monkeypatch):
    """UCI banknote authentication (1,372 rows, 4 features, label 0/1; no header in the file: one is added):
    rados -> fit-rados -> predict -> score, and boost -> predict -> score equal to the fitted estimator.  The
    features are ranged about [-14, 18] (public --bounds -15:18.5 / --data-norm 25, from the UCI description's
    ranges, not fitted)."""
    import fast

    with (SHARED / "banknote_authentication.csv").open(newline="") as fh:
        rows = [r for r in csv.reader(fh) if r]
    features = ["variance", "skewness", "curtosis", "entropy"]
    path = _write(tmp_path / "banknote.csv", [*features, "class"], rows)
    X = np.array([[float(v) for v in r[:4]] for r in rows])
    y = np.array([1 if r[4] == "1" else -1 for r in rows])
    _rados_pipeline(tmp_path, path, "class", "0,1", features, "-15:18.5", X, y, epsilon=4.0)
    fitted = []

    class Capture(fast.PrivateBoostClassifier):
        def fit(self, X, y, *a, **k):
            fitted.append(self)
            return super().fit(X, y, *a, **k)

    monkeypatch.setattr(fast, "PrivateBoostClassifier", Capture)
    model, record = tmp_path / "boost.json", tmp_path / "s.json"
    assert _main("boost", path, "--label", "class", "--classes", "0,1", "--epsilon", 2, "--data-norm", 25,
                 "--rounds", 20, "--out", model, "--quiet") == 0
    _spent_ok(_record(Path(f"{model}.json"))["privacy_spent"], 2.0)
    assert _main("score", model, path, "--label", "class", "--record", record, "--quiet") == 0
    acc = _record(record)["results"]["accuracy"]
    assert acc == fitted[0].score(X, y)


@needs_shared
def test_adult_impact_tables_end_to_end(tmp_path, monkeypatch):
    """UCI adult (the first 2,000 training rows; categorical occupation and education with their PUBLIC level lists
    from adult.names): impact --epsilon --tables on them, impact-apply on the next 1,000 rows equals
    ImpactEncoder.transform with the fitted coders."""
    import fast.estimators.impact as impact_module

    names = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
             "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
             "income"]
    with (SHARED / "adult-train.csv").open() as fh:
        rows = [[c.strip() for c in r] for _, r in zip(range(3000), csv.reader(fh)) if len(r) == 15]
    train = _write(tmp_path / "train.csv", names, rows[:2000])
    test = _write(tmp_path / "test.csv", names, rows[2000:])
    spec = (SHARED / "adult.names").read_text()
    levels = {}
    for col in ("occupation", "education"):
        line = re.search(rf"^{col}: (.*)\.$", spec, re.M).group(1)
        levels[col] = [v.strip() for v in line.split(",")]
    fitted = []

    class Capture(impact_module.ImpactEncoder):
        def fit_transform(self, X, y, *a, **k):
            fitted.append(self)
            return super().fit_transform(X, y, *a, **k)

    monkeypatch.setattr(impact_module, "ImpactEncoder", Capture)
    tables, out, coded = tmp_path / "t.json", tmp_path / "c.csv", tmp_path / "new.csv"
    assert _main("impact", train, "--column", "occupation", "--column", "education", "--label", "income",
                 "--classes", "<=50K,>50K", "--epsilon", 2, *[f"--levels={c}={','.join(v)}" for c, v in levels.items()],
                 "--out", out, "--tables", tables, "--seed", 0, "--quiet") == 0
    _spent_ok(_record(Path(f"{out}.json"))["privacy_spent"], 2.0)
    assert _main("impact-apply", tables, test, "--out", coded, "--quiet") == 0
    got = np.array([[float(v) for v in r[-2:]] for r in _read(coded)[1:]])
    cells = np.array([[r[6] or None, r[3] or None] for r in rows[2000:]], dtype=object)
    np.testing.assert_array_equal(got, fitted[0].transform(cells))
    assert np.ptp(got[:, 1]) > 0  # education is informative: the codes differ


def test_record_in_a_missing_directory_refused_before_writing(tmp_path, synthetic):
    """--record in a directory that does not exist: exit 2 before the output is written (nothing is written on
    failure, the record included)."""
    path, _, _ = synthetic
    out = tmp_path / "coded.csv"
    assert _main("impact", path, "--column", "city", "--label", "outcome", "--out", out, "--record",
                 tmp_path / "nowhere" / "r.json", "--quiet") == cli.EXIT_USAGE
    assert not out.exists()


def test_impact_tables_without_epsilon_say_not_private(tmp_path, synthetic):
    """impact --tables without --epsilon: the tables and the record say nothing private was released (privacy
    null), and impact-apply codes with them as with private ones."""
    path, _, _ = synthetic
    out, tables, coded = tmp_path / "c.csv", tmp_path / "t.json", tmp_path / "n.csv"
    assert _main("impact", path, "--column", "city", "--label", "outcome", "--out", out, "--tables", tables,
                 "--quiet") == 0
    assert json.loads(tables.read_text())["privacy"] is None
    assert _record(Path(f"{out}.json"))["privacy_spent"] is None
    assert _main("impact-apply", tables, path, "--out", coded, "--quiet") == 0
    assert _read(coded)[0] == ["a", "b", "c", "outcome", "city_impact"]


def test_dp_feat_model_predicts_with_the_sign_of_the_sensitive_column(tmp_path):
    """A fit-rados model of DP-Feat rados (--sensitive COL, a 0/1 column, no bounds) records the sensitive column,
    and predict reads it as the release did: +1 where the value is > 0, else -1 (not a bounds scaling: the model has
    none for it)."""
    rng = np.random.default_rng(1)
    m = 400
    s = rng.choice([0, 1], m)
    y = np.where(rng.random(m) < 0.8, s, 1 - s)
    path = _write(tmp_path / "d.csv", ["smoker", "y"], [[s[i], y[i]] for i in range(m)])
    rados, model, pred = tmp_path / "r.csv", tmp_path / "m.json", tmp_path / "p.csv"
    assert _main("rados", path, "--label", "y", "--classes", "0,1", "--features", "smoker", "--sensitive", "smoker",
                 "--epsilon", 4, "--delta", 1e-5, "--n", 5, "--out", rados, "--quiet") == 0
    _spent_ok(_record(Path(f"{rados}.json"))["privacy_spent"], 4.0)
    assert _main("fit-rados", rados, "--rounds", 20, "--out", model, "--quiet") == 0
    mod = json.loads(model.read_text())
    assert mod["sensitive"] == "smoker" and mod["bounds"] == {}
    assert _main("predict", model, path, "--out", pred, "--quiet") == 0
    theta = mod["theta"]["smoker"]
    want = np.where(np.where(s > 0, 1.0, -1.0) * theta > 0, "1", "0")
    assert [r[1] for r in _read(pred)[1:]] == want.tolist()
