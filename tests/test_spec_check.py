"""``python -m spec check CLAIM_ID [...]`` (and ``privlearn check``): run exactly the checks of the named claims and
print each check's verdict, slow checks reported as skipped (never silently dropped) unless ``--slow`` runs them.

Each test fails on the code before the command existed: ``python -m spec check`` was an argparse error (exit 2, no
verdict printed) and ``privlearn check`` an unknown command."""
from __future__ import annotations

import pytest

from spec import __main__ as spec_main
from spec import report
from spec.registry import coverage

FAST_CLAIM, FAST_CHECK = "bun2020.def3", "tests/test_measures.py::test_def3_helpers"
# its one check is @pytest.mark.slow, yet takes about 4 s
SLOW_CLAIM, SLOW_CHECK = "winvector2015.exp.laplace", "tests/test_impact_encoder.py::test_post_experiment_one_seed_orderings"


def _lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_the_claims_used_here_have_the_checks_assumed():
    """Guard for the tests below: the registry links these claims to these checks (and only these)."""
    cov = coverage(import_targets=False)
    assert cov.checks_of[FAST_CLAIM] == [FAST_CHECK]
    assert cov.checks_of[SLOW_CLAIM] == [SLOW_CHECK]


def test_check_prints_the_verdict_of_a_fast_check(capsys):
    code = spec_main.main(["check", FAST_CLAIM])
    lines = _lines(capsys)
    row = [ln for ln in lines if ln.startswith(FAST_CLAIM + " ")]
    assert code == 0
    assert len(row) == 1 and FAST_CHECK in row[0] and " passed" in row[0] and row[0].endswith(" s)"), lines
    assert "failed" not in "\n".join(lines)


def test_check_reports_a_slow_check_as_skipped_without_slow(capsys):
    code = spec_main.main(["check", SLOW_CLAIM])
    lines = _lines(capsys)
    row = [ln for ln in lines if ln.startswith(SLOW_CLAIM + " ")]
    assert code == 0
    assert len(row) == 1 and SLOW_CHECK in row[0] and "skipped: slow (use --slow)" in row[0], lines


def test_check_runs_a_slow_check_with_slow(capsys):
    code = spec_main.main(["check", SLOW_CLAIM, "--slow"])
    lines = _lines(capsys)
    row = [ln for ln in lines if ln.startswith(SLOW_CLAIM + " ")]
    assert code == 0
    assert len(row) == 1 and SLOW_CHECK in row[0] and "passed" in row[0] and "skipped" not in row[0], lines


def test_check_unknown_claim_is_exit_2_with_the_closest_ids(capsys):
    code = spec_main.main(["check", "bun2020.deff3"])
    out = capsys.readouterr().out
    assert code == 2
    assert "unknown claim id 'bun2020.deff3'" in out and "bun2020.def3" in out


def test_check_a_failing_check_prints_its_error_and_exits_1(monkeypatch, capsys):
    """The verdict of a failing item (as pytest would report it) with its error line; exit 1."""
    item = FAST_CHECK + "[x]"

    def fake_run(nodeids, include_slow, **kwargs):
        assert nodeids == [FAST_CHECK]
        return report.CheckRun(True, results={item: "failed"},
                               details={item: {"outcome": "failed", "seconds": 0.5,
                                               "reason": "E   AssertionError: 1 != 2"}})

    monkeypatch.setattr(report, "run_checks", fake_run)
    code = spec_main.main(["check", FAST_CLAIM])
    lines = _lines(capsys)
    assert code == 1
    assert any(ln.startswith(FAST_CLAIM + " ") and "failed" in ln and "(0.50 s)" in ln for ln in lines), lines
    assert any("AssertionError: 1 != 2" in ln for ln in lines), lines


def test_privlearn_check_delegates_to_spec_check(capsys):
    from fast import cli

    code = cli.main(["check", FAST_CLAIM])
    out = capsys.readouterr().out
    assert code == 0 and FAST_CHECK in out and " passed" in out

