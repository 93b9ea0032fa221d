"""A private fit's label set is PUBLIC input (issue 25, item 1; ``spec/labels_contract.py``).

The leak this guards against (replace-one, with certainty): with ONE row holding the only positive label, the old
``RadoBoostClassifier(privacy=gaussian_edges(...))``, ``PrivateBoostClassifier`` (stump and halfspace),
``ImpactEncoder(epsilon=...)`` and the CLI commands ``rados``, ``boost``, ``impact --epsilon`` fitted on D and raised
``ValueError`` ("exactly 2 classes" / "y must contain both classes") or exited 3 on the neighbour D' where that label
is replaced: whether the fit succeeded revealed the label, and ``classes_`` / the CLI metadata released the label set.

Now every private entry point takes the pair ``classes=(negative, positive)`` (``--classes NEG,POS``): ``classes_``
is that pair, y == classes[1] is +1 and every other value -1.  Each test below fits D, D' (the lone positive label
replaced by the negative one) and D'' (replaced by a value outside the pair: 7, NaN, "maybe", an empty cell) and
requires the same observable behaviour: success, the same warnings (none), the same stdout / stderr, the same exit
code, ``classes_`` equal to the declared pair, and the same sequence of mechanism calls (public arguments: shapes,
sensitivities, budgets), the first of which is the first noise draw.  On the old code D' raised, so each of these
tests fails there.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import fast.dp_rados as D
import fast.mechanisms as M
from fast import cli
from fast.estimators.boosting import PrivateBoostClassifier
from fast.estimators.impact import ImpactEncoder
from fast.estimators.rados import OmegaRAdaBoostClassifier, RadoBoostClassifier
from fast.labels import CLASSES_REQUIRED, declared_pm1
from reference.labels import declared_pm1 as reference_declared_pm1

M_ROWS = 200
LONE = 17  # the row holding the only positive label


def _features(d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(M_ROWS, d))


def _neighbours(negative, positive, outside):
    """D (row LONE holds the only positive label), D' (replaced by the negative one), D'' (by a value outside)."""
    base = np.array([negative] * M_ROWS, dtype=object)
    d, d_neg, d_out = base.copy(), base.copy(), base.copy()
    d[LONE], d_out[LONE] = positive, outside
    return {"D": d, "D'": d_neg, "D''": d_out}


#: label encodings: (declared pair, value outside the pair, how y is typed)
ENCODINGS = {
    "int": ((0, 1), 7, np.int64),
    "float-nan": ((0.0, 1.0), math.nan, np.float64),
    "str": (("no", "yes"), "maybe", str),
}


def _labels(encoding):
    (negative, positive), outside, kind = ENCODINGS[encoding]
    out = {}
    for name, y in _neighbours(negative, positive, outside).items():
        out[name] = y.astype(kind) if kind is not str else np.array(y.tolist(), dtype=str)
    return out


# --------------------------------------------------------------------------- spies and the observable behaviour
_SPIED = {M: ("gaussian_mechanism", "laplace_mechanism", "sample_discrete_gaussian", "sample_discrete_laplace"),
          D: ("gaussian_mechanism", "_window_ks")}


def _public(value):
    """What a mechanism call's argument says publicly: an array's shape and dtype, a scalar's value."""
    if isinstance(value, np.ndarray):
        return ("array", value.shape, str(value.dtype))
    if isinstance(value, (int, float, str, type(None))):
        return value
    return type(value).__name__


@contextlib.contextmanager
def _mechanism_spy(monkeypatch, calls):
    """Record every outermost call of the mechanisms (and DP-Feat's first private draw) with its public arguments:
    the data (``value``) only by shape; a generator by its type.  Calls made inside a spied call (a sampler's own
    retries after rejected attempts, whose number is random) are not recorded."""
    depth = [0]
    with monkeypatch.context() as patch:  # undone on exit: the next observation spies afresh
        for module, names in _SPIED.items():
            for name in names:
                patch.setattr(module, name, _spy(getattr(module, name), f"{module.__name__}.{name}", calls, depth))
        yield calls


def _spy(real, name, calls, depth):
    def spy(*args, **kwargs):
        if depth[0] == 0:
            calls.append((name, tuple(_public(a) for a in args),
                          tuple(sorted((k, _public(v)) for k, v in kwargs.items() if k != "rng"))))
        depth[0] += 1
        try:
            return real(*args, **kwargs)
        finally:
            depth[0] -= 1
    return spy


def _observe(fit, capsys, monkeypatch):
    """Run ``fit()`` and return everything an observer of the fit could see, except the released noisy values."""
    calls = []
    with _mechanism_spy(monkeypatch, calls), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = fit()
            outcome = ("ok", None)
        except Exception as exc:  # noqa: BLE001 - the outcome itself is what is compared
            est, outcome = None, (type(exc).__name__, str(exc))
    captured = capsys.readouterr()
    return {"outcome": outcome, "warnings": [(w.category.__name__, str(w.message)) for w in caught],
            "stdout": captured.out, "stderr": captured.err, "calls": calls,
            "classes_": None if est is None else np.asarray(est.classes_).tolist()}


def _assert_same_behaviour(observed, pair, *, first_call_only=False):
    seen = dict(observed)
    reference = seen.pop("D")
    assert reference["outcome"] == ("ok", None), reference["outcome"]
    # NoiseDominatesWarning depends on public parameters only (m, d, epsilon, delta): allowed here, and still compared
    # across the neighbours below like every other warning
    # (and BoostingNoiseWarning / ANMNoiseWarning: the same public-only reports, issue 28 item 6)
    public = ("NoiseDominatesWarning", "BoostingNoiseWarning", "ANMNoiseWarning")
    assert [w for w in reference["warnings"] if w[0] not in public] == [], reference["warnings"]
    assert reference["classes_"] == list(pair)
    assert reference["calls"], "no mechanism call was seen: the spy misses the noise draw"
    for name, other in seen.items():
        for key in ("outcome", "warnings", "stdout", "stderr", "classes_"):
            assert other[key] == reference[key], (name, key, other[key], reference[key])
        if first_call_only:  # an adaptive run (SmoothBoost's noisy stopping rule): the first draw is the same
            assert other["calls"][:1] == reference["calls"][:1], name
        else:
            assert other["calls"] == reference["calls"], name


# --------------------------------------------------------------------------- the estimators
PRIVATE_ESTIMATORS = {
    "radoboost-gaussian_edges": lambda pair: RadoBoostClassifier(
        20, privacy=D.gaussian_edges(1.0, 1e-5, 0.5), classes=pair, random_state=0),
    "omega-gaussian_edges": lambda pair: OmegaRAdaBoostClassifier(
        20, privacy=D.gaussian_edges(1.0, 1e-5, 10), classes=pair, random_state=0),
    "boost-halfspace": lambda pair: PrivateBoostClassifier(weak_learner="halfspace",
        epsilon=2.0, n_rounds=4, data_norm=4.0, classes=pair, progress=True),
    "boost-stump": lambda pair: PrivateBoostClassifier(
        epsilon=2.0, n_rounds=4, weak_learner="stump", bounds=(-4, 4), n_thresholds=4, classes=pair, progress=True),
    "boost-smooth-halfspace": lambda pair: PrivateBoostClassifier(weak_learner="halfspace",
        epsilon=20.0, n_rounds=3, booster="smooth", data_norm=4.0, classes=pair),
    "boost-smooth-stump": lambda pair: PrivateBoostClassifier(
        epsilon=20.0, n_rounds=3, booster="smooth", weak_learner="stump", bounds=(-4, 4), n_thresholds=4,
        classes=pair),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("name", sorted(PRIVATE_ESTIMATORS))
def test_a_lone_label_decides_nothing(name, encoding, capsys, monkeypatch):
    """D, D' and D'' (the lone positive label kept, made negative, made a value outside the pair) fit with the same
    outcome, warnings, output, classes_ and mechanism calls.  Old code: D' raised ValueError ("exactly 2 classes")."""
    pair = ENCODINGS[encoding][0]
    X = _features()
    observed = {k: _observe(lambda y=y: PRIVATE_ESTIMATORS[name](pair).fit(X, y), capsys, monkeypatch)
                for k, y in _labels(encoding).items()}
    _assert_same_behaviour(observed, pair, first_call_only="smooth" in name)


@pytest.mark.parametrize("cls", [RadoBoostClassifier, OmegaRAdaBoostClassifier])
def test_dp_feat_lone_label(cls, capsys, monkeypatch):
    """RadoBoost / Omega-R.AdaBoost with privacy=dp_feat on its allowed X (the protected boolean column alone).
    DP-Feat's signatures are drawn in the window of K = #{i : sigma_i y_i = x_i}, whose bounds depend on m and
    epsilon only, and its selection reads x (y cancels): the same draws on every labelling."""
    X = np.where(_features(1) > 0, 1.0, -1.0)
    observed = {k: _observe(lambda y=y: cls(10, n_rados=2, privacy=D.dp_feat(0, 8.0, 1e-2), classes=(0, 1),
                                            random_state=0).fit(X, y), capsys, monkeypatch)
                for k, y in _labels("int").items()}
    _assert_same_behaviour(observed, (0, 1))
    assert observed["D"]["calls"][0][0] == "fast.dp_rados._window_ks"


IMPACT_MODES = {"cross": "fit_transform", "split": "fit_transform", "naive": "fit_transform", "jackknife": "fit"}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("mode", sorted(IMPACT_MODES))
def test_impact_encoder_lone_label(mode, encoding, capsys, monkeypatch):
    """ImpactEncoder(epsilon=...) in every mode: the old fit raised "y must contain both classes" on D' (and on D''
    a third value made the target continuous: "epsilon is supported for a binary target only"; NaN raised)."""
    pair = ENCODINGS[encoding][0]
    X = np.array([["abc"[i % 3]] for i in range(M_ROWS)], dtype=object)

    def fit(y):
        enc = ImpactEncoder(mode=mode, cv=3, epsilon=1.0, categories=[list("abc")], classes=pair, random_state=0)
        getattr(enc, IMPACT_MODES[mode])(X, y)
        return enc

    observed = {k: _observe(lambda y=y: fit(y), capsys, monkeypatch) for k, y in _labels(encoding).items()}
    _assert_same_behaviour(observed, pair)
    assert all(c[0] == "fast.mechanisms.laplace_mechanism" for c in observed["D"]["calls"][:1])


def test_first_noise_draw_is_the_first_data_dependent_branch():
    """Structural argument, written down (the spies above check its consequence): before the first mechanism call a
    private fit runs (1) parameter checks and the budget plan (no data), (2) X's schema / domain map, (3)
    ``declared_pm1``: one vectorised comparison (or one pass over an object array), the same work for any labels of
    a given dtype and length, (4) label-blind arithmetic of fixed shapes (clip, y_i x_i, KFold folds, bincount
    tables, the first LB-NxM projection of L = 0).  No branch reads which labels occur.  This test pins (3): the
    comparison never raises or warns on any label value, whatever its type, and fast and reference agree."""
    weird = [1, 1.0, True, 0, None, math.nan, math.inf, "1", b"1", [1], (1,), {1: 1}, np.array([1, 1]), object(),
             np.float16(1), np.int8(1), complex(1, 0), -0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fast_out = declared_pm1(weird, (0, 1))
        ref_out = reference_declared_pm1(weird, (0, 1))
    np.testing.assert_array_equal(fast_out, ref_out)
    assert fast_out.tolist() == [1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 1, 1, -1]


@pytest.mark.parametrize("y, pair, expected", [
    ([1, 1, "a"], (0, 1), [1, 1, -1]),  # a list is read element by element: "a" does not turn 1 into "1"
    (np.array([0.0, 1.0, math.nan, 2.0]), (0, 1), [-1, 1, -1, -1]),
    (np.array(["no", "yes", ""]), ("no", "yes"), [-1, 1, -1]),
    (np.array([b"n", b"y"]), (b"n", b"y"), [-1, 1]),
    (np.array([True, False]), (False, True), [1, -1]),
    (np.array([1, 2], dtype=np.uint8), (0, 300), [-1, -1]),
    (np.array([1.5], dtype=np.float16), (0, 1e300), [-1]),
])
def test_declared_mapping_fast_and_reference(y, pair, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert declared_pm1(y, pair).tolist() == expected
        assert reference_declared_pm1(y, pair).tolist() == expected


@pytest.mark.parametrize("classes, message", [
    ((0, 0), "two distinct labels"),
    ((1, True), "two distinct labels"),
    ((1, 1.0), "two distinct labels"),
    ((0, math.nan), "not NaN"),
    ((0, 1, 2), "a pair"),
    ("ab", "a pair"),
    ({0, 1}, "a pair"),
    ((0, [1]), "a pair"),
    (None, None),
])
@pytest.mark.parametrize("make", [
    lambda c: RadoBoostClassifier(5, privacy=D.gaussian_edges(1.0, 1e-5, 0.5), classes=c),
    lambda c: PrivateBoostClassifier(weak_learner="halfspace", n_rounds=2, data_norm=1.0, classes=c),
    lambda c: ImpactEncoder(epsilon=1.0, categories=[["a"]], classes=c),
], ids=["radoboost", "boost", "impact"])
def test_classes_checked_before_the_data_is_read(make, classes, message):
    """A bad pair is a ValueError naming ``classes``, raised from the parameters alone: X and y are not even arrays
    of the right shape here.  classes=None on a private fit is refused from y's dtype alone."""
    X, y = np.ones(3), np.zeros(5)  # never read: a pair error comes first
    if classes == (0, 1, 2) and isinstance(make(None), PrivateBoostClassifier):  # a one-vs-rest set (issue 28)
        assert make(classes)._validate_params()  # accepted, from the parameters alone
        return
    if classes == (0, 1, 2) and isinstance(make(None), RadoBoostClassifier):  # one-vs-rest (estimators/_multiclass)
        from fast.estimators._multiclass import wants_ovr

        assert wants_ovr(make(classes), y) == (0, 1, 2)  # accepted, from the parameters alone
        return
    with pytest.raises(ValueError) as err:
        make(classes).fit(X, y)
    assert "classes" in str(err.value)
    if message is None:
        assert str(err.value) == CLASSES_REQUIRED
    else:
        assert message in str(err.value)


@pytest.mark.parametrize("make", [
    lambda: RadoBoostClassifier(5, privacy=D.gaussian_edges(1.0, 1e-5, 0.5), random_state=0),
    lambda: PrivateBoostClassifier(weak_learner="halfspace", n_rounds=2, data_norm=4.0),
    lambda: ImpactEncoder(mode="naive", epsilon=1.0, categories=[list("abc")]),
], ids=["radoboost", "boost", "impact"])
def test_no_classes_private_fit(make):
    """Without classes a private fit is refused for every y whose dtype is not bool, whatever its labels (the
    message is the same on D and D'; even {0, 1} is not read as a default, see spec.labels_contract); a y of bool
    dtype is (False, True) on D and on D' (no positive label at all)."""
    X = _features() if not isinstance(make(), ImpactEncoder) else np.array([["abc"[i % 3]] for i in range(M_ROWS)],
                                                                              dtype=object)
    messages = set()
    for y in _labels("int").values():
        with pytest.raises(ValueError) as err:
            make().fit(X, y)
        messages.add(str(err.value))
    assert messages == {CLASSES_REQUIRED}
    for y in (_labels("int")["D"] == 1, _labels("int")["D'"] == 1):
        assert make().fit(X, y).classes_.tolist() == [False, True]


def test_non_private_path_keeps_reading_two_classes():
    """Without privacy and classes, RadoBoost reads its two classes from y as before (np.unique; one class is an
    error); with classes it maps as declared."""
    X = _features()
    y = _labels("str")["D'"]
    with pytest.raises(ValueError, match="exactly 2 classes"):
        RadoBoostClassifier(5, random_state=0).fit(X, y)
    clf = RadoBoostClassifier(5, classes=("no", "yes"), random_state=0).fit(X, y)
    assert clf.classes_.tolist() == ["no", "yes"] and set(clf.predict(X).tolist()) <= {"no", "yes"}
    with pytest.raises(ValueError, match="differs from the estimator's classes"):
        clf.fit_rados(np.ones((4, 3)), classes=(0, 1))
    assert clf.fit_rados(np.ones((4, 3)) - 2 * np.eye(4, 3)).classes_.tolist() == ["no", "yes"]


# --------------------------------------------------------------------------- the command line
def _csv(path, labels):
    rng = np.random.default_rng(5)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "city", "outcome"])
        for i, label in enumerate(labels):
            w.writerow([*np.round(rng.normal(size=2), 4), "xyz"[i % 3], label])
    return path


CLI_LABELS = {"D": "yes", "D'": "no", "D''": "maybe", "D'''": ""}


def _cli_files(tmp_path):
    files = {}
    for name, lone in CLI_LABELS.items():
        d = tmp_path / f"data{len(files)}"
        d.mkdir()
        labels = ["no"] * M_ROWS
        labels[LONE] = lone
        files[name] = _csv(d / "data.csv", labels)
    return files


CLI_COMMANDS = {
    "rados": (["--label", "outcome", "--classes", "no,yes", "--features", "a,b", "--epsilon", "1", "--bounds",
               "-4:4", "--n", "20", "--seed", "0"], "out.csv"),
    "boost": (["--label", "outcome", "--classes", "no,yes", "--features", "a,b", "--epsilon", "2", "--data-norm",
               "4", "--rounds", "5"], "model.json"),
    "impact": (["--column", "city", "--label", "outcome", "--classes", "no,yes", "--epsilon", "1", "--levels",
                "city=x,y,z", "--seed", "0"], "coded.csv"),
}


def _released_labels(command, out):
    if command == "rados":
        return cli.read_rados(out)[0]["labels"]
    if command == "boost":
        return json.loads(out.read_text())["labels"]
    return None


@pytest.mark.parametrize("command", sorted(CLI_COMMANDS))
def test_cli_lone_label(command, tmp_path, capsys, monkeypatch):
    """`privlearn rados / boost / impact --epsilon` on D, D', D'' ("maybe") and D''' (an empty cell): exit 0, the
    same stdout (the output path aside) and stderr, the same mechanism calls, the declared labels in the metadata.
    Old code: exit 3 on D' ("labels must take exactly two values, found 1") and on D''' ("empty label")."""
    options, out_name = CLI_COMMANDS[command]
    seen = {}
    for name, path in _cli_files(tmp_path).items():
        out = path.parent / out_name
        calls = []
        with _mechanism_spy(monkeypatch, calls):
            code = cli.main([command, str(path), *options, "--out", str(out), "--quiet"])
        captured = capsys.readouterr()
        seen[name] = {"code": code, "stdout": captured.out.replace(str(out), "OUT"), "stderr": captured.err,
                      "calls": calls, "labels": _released_labels(command, out)}
    reference = seen.pop("D")
    assert reference["code"] == 0 and reference["stderr"] == "" and reference["calls"]
    if command != "impact":
        assert reference["labels"] == {"-1": "no", "+1": "yes"}
    else:
        assert "positive class 'yes'" in reference["stdout"]
    for name, other in seen.items():
        assert other == reference, name


def test_cli_lone_label_exit_code_through_the_console(tmp_path):
    """The exit code of a real process on D' (the lone positive label replaced): 0 for every private command (old
    code: 3)."""
    path = _cli_files(tmp_path)["D'"]
    env = dict(os.environ, PYTHONWARNINGS="ignore", TQDM_DISABLE="1")
    for command, (options, out_name) in CLI_COMMANDS.items():
        proc = subprocess.run([sys.executable, "-m", "fast.cli", command, str(path), *options, "--out",
                               str(tmp_path / out_name), "--quiet"], capture_output=True, text=True, env=env,
                              timeout=300)
        assert proc.returncode == 0, (command, proc.stderr)
        assert proc.stderr == ""
