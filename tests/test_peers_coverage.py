"""benchmarks/peers/ covers all of fast (issue 15): every module of fast with public names is timed against its
peers or excluded with a stated reason, and the coverage check notices a public function without a row."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

import benchmarks.peers as peers


def _modules_with_all():
    fast = importlib.import_module("fast")
    names = [""]
    for info in pkgutil.walk_packages(fast.__path__, "fast."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if hasattr(importlib.import_module(info.name), "__all__"):
            names.append(info.name[len("fast."):])
    return names


def test_every_module_of_fast_with_all_is_timed_or_excluded():
    """Each module of fast with an ``__all__`` (the package itself included) is a MODULES entry, covered by one
    (COVERED_BY / a family of fast.estimators) or in EXCLUDED: nothing is left out silently."""
    accounted = peers.public_modules()
    names = _modules_with_all()
    assert set(names) == set(accounted), set(names) ^ set(accounted)
    unaccounted = [name for name in names if accounted[name] is None]
    assert not unaccounted, f"modules of fast neither in peers.MODULES nor in peers.EXCLUDED: {unaccounted}"
    for name in names:
        key = peers.COVERED_BY.get(name, name.split(".")[0])
        assert key in peers.MODULES or key in peers.EXCLUDED, name


def test_exclusions_are_real_modules_with_a_reason_and_not_timed():
    for name, reason in peers.EXCLUDED.items():
        assert hasattr(importlib.import_module(f"fast.{name}"), "__all__"), name
        assert name not in peers.MODULES, name
        assert isinstance(reason, str) and len(reason) > 20, name


def test_every_modules_entry_is_a_module_of_fast():
    for name in peers.MODULES:
        assert hasattr(importlib.import_module(f"fast.{name}"), "__all__"), name


def test_estimators_are_covered_including_the_reexports():
    """fast's own __all__ (the estimators it re-exports) counts towards the ``estimators`` entry; a name it
    re-exports from another MODULES entry (fast.model_selection's) is covered by that entry instead."""
    fast = importlib.import_module("fast")
    public = set(peers._public_names("estimators"))
    elsewhere = {n for n in fast.__all__ if peers._home(fast, n) not in (None, "estimators")}
    assert {"PrivateGridSearchCV", "Thresholdout"} <= elsewhere
    assert set(fast.__all__) - peers.NOT_FUNCTIONS["estimators"] - elsewhere <= public
    assert all(n in peers._public_names(peers._home(fast, n)) for n in elsewhere)
    assert peers.coverage(["estimators"]) == {"estimators": []}


def test_coverage_reports_a_public_function_without_a_row(monkeypatch):
    """Dropping one row makes coverage() name the function it covered (for a function and for an estimator)."""
    for module, function in (("snc", "snc_predict"), ("estimators", "SNCClassifier")):
        rows = peers.MODULES[module]

        def fewer(rows=rows, function=function):
            return [row for row in rows() if row.function.split(" ")[0].split(".")[0] != function]

        monkeypatch.setitem(peers.MODULES, module, fewer)
        assert peers.coverage([module]) == {module: [function]}
        monkeypatch.setitem(peers.MODULES, module, rows)


@pytest.mark.parametrize("module", sorted(peers.MODULES))
def test_rows_have_a_peer_text_and_sizes(module):
    """Every row says what fast is compared with, and has a scalar case or at least one of the three sizes."""
    for row in peers.MODULES[module]():
        assert row.peer.strip(), (module, row.function)
        assert set(row.cases) <= {peers.SCALAR, *peers.SIZES} and row.cases, (module, row.function)


def test_every_stated_reason_names_a_timed_function():
    """peers.SLOWER_BECAUSE explains losses at mid / large size: a stale key (renamed or removed row) would
    silently stop explaining anything."""
    rows = {f"{module}.{row.function.split(' ')[0]}" for module, make in peers.MODULES.items() for row in make()}
    stale = sorted(set(peers.SLOWER_BECAUSE) - rows)
    assert not stale, stale
    assert all(len(why) > 20 for why in peers.SLOWER_BECAUSE.values())


def test_a_loss_without_a_reason_is_flagged():
    row = peers.MODULES["labels"]()[0]
    entry = {"row": row, "size": "mid", "label": "x", "default": {"fast": 2.0, "peer": 1.0}}
    (line,) = peers.verdicts([entry])
    assert "NO REASON RECORDED" in line
    key = f"labels.{row.function}"
    try:
        peers.SLOWER_BECAUSE[key] = "a stated reason that is long enough"
        assert "a stated reason" in peers.verdicts([entry])[0]
    finally:
        peers.SLOWER_BECAUSE.pop(key)


def _entry(fast_s, peer_s, size="mid"):
    row = peers.MODULES["labels"]()[0]
    return {"row": row, "size": size, "label": "x", "default": {"fast": fast_s, "peer": peer_s}}


def test_a_near_parity_loss_not_confirmed_on_re_timing_is_at_par_not_a_loss():
    entry = _entry(1.05, 1.0)
    entry["default_recheck"] = {"fast": 1.0, "peer": 1.01}
    at_par = []
    assert peers.verdicts([entry], at_par) == []
    (line,) = at_par
    assert "x0.95" in line and "re-timed x1.01" in line


def test_a_loss_confirmed_on_re_timing_stays_a_loss_and_shows_both_ratios():
    entry = _entry(1.05, 1.0)
    entry["default_recheck"] = {"fast": 1.04, "peer": 1.0}
    at_par = []
    (line,) = peers.verdicts([entry], at_par)
    assert at_par == [] and "re-timed x0.96" in line and "NO REASON RECORDED" in line


def test_recheck_re_times_only_near_parity_losses_at_mid_and_large():
    calls = []

    def make(label):
        def case():
            calls.append(label)
            return peers.Case(label, lambda: sum(range(50)), lambda: sum(range(50)))
        return case

    row = peers.Row("labels", "to_pm1", "peer", {s: make(s) for s in ("small", "mid", "large")})
    entries = [{"row": row, "size": "small", "label": "s", "default": {"fast": 1.05, "peer": 1.0}},
               {"row": row, "size": "mid", "label": "m", "default": {"fast": 1.05, "peer": 1.0}},   # near parity
               {"row": row, "size": "large", "label": "l", "default": {"fast": 2.0, "peer": 1.0}}]  # clear loss
    peers.recheck(entries, log=lambda *a: None)
    assert calls == ["mid"]
    assert "default_recheck" in entries[1] and "default_recheck" not in entries[2]
    assert entries[1]["default_recheck"]["fast"] > 0


def test_merge_replaces_only_the_merged_modules_loss_lines(tmp_path):
    doc = tmp_path / "perf.md"
    table = "\n".join(["Measured then by x", "", "| module | f |", "|---|---|", "| labels | `a` |", "| rados | `b` |"])
    peers.write_table(table + f"\n\n{peers.LOSSES_TITLE}\n\n* labels.a mid: old\n* rados.b mid: kept", doc)
    peers.merge_rows("| labels | `a2` |", ["labels"], "Measured now by y", doc, losers=["labels.a large: new"],
                     at_par=["labels.a mid: at par"])
    text = doc.read_text()
    assert "| labels | `a2` |" in text and "| rados | `b` |" in text
    assert "labels.a mid: old" not in text and "* labels.a large: new" in text and "* rados.b mid: kept" in text
    assert f"{peers.AT_PAR_TITLE}" in text and "* labels.a mid: at par" in text
    assert text.index("* labels.a large: new") < text.index(peers.AT_PAR_TITLE)
