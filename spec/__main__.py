"""Command line of the specification.

``python -m spec coverage``  list claims with no check; exit 1 on a broken link (a registered check that
                             does not exist, an unknown id in @implements/@checks, a missing implementation).
``python -m spec findings``  write ``docs/findings.md``: every claim the checks found false or loose, with
                             its evidence, grouped by paper (regenerate after changing the registry).
``python -m spec report``    run every registered check (pytest, default markers: all but ``slow``), print a
                             summary table and write ``report/claims.md`` (id, kind, status, evidence): the
                             document an auditor reads.  ``--all`` includes the slow suites; ``--no-run``
                             writes the table from the registry alone; ``--out PATH`` moves the file.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from spec.registry import ROOT, STATUSES, coverage


def _cmd_coverage(args) -> int:
    cov = coverage()
    n = len(cov.claims)
    checked = sum(1 for cid in cov.claims if cov.checks_of[cid])
    not_checkable = sum(1 for c in cov.claims.values() if c.status == "not-checkable")
    print(f"{n} claims registered: {checked} checked, {not_checkable} not-checkable (with reason), "
          f"{len(cov.unchecked)} with no check")
    by_paper = Counter(c.paper for c in cov.claims.values())
    for paper, count in sorted(by_paper.items()):
        print(f"  {paper:14s} {count:4d} claims")
    if cov.unchecked:
        print("\nclaims with no check:")
        for cid in cov.unchecked:
            print(f"  {cid}  ({cov.claims[cid].source})")
    if cov.problems:
        print("\nbroken links:")
        for p in cov.problems:
            print(f"  {p}")
        return 1
    return 0


_PLUGIN = """
import json, os
_results = {}
def pytest_runtest_logreport(report):
    key = report.nodeid
    prev = _results.get(key, "passed")
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        if prev == "failed":
            outcome = "failed"
        _results[key] = outcome
def pytest_sessionfinish(session):
    with open(os.environ["SPEC_REPORT_JSON"], "w") as fh:
        json.dump(_results, fh)
"""


def _run_checks(nodeids: list[str], include_slow: bool) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        plugin = Path(tmp) / "spec_report_plugin.py"
        plugin.write_text(_PLUGIN)
        out = Path(tmp) / "results.json"
        env = dict(os.environ, SPEC_REPORT_JSON=str(out), PYTHONPATH=os.pathsep.join([tmp, str(ROOT)]))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "spec_report_plugin", "--no-header", "-rN"]
        cmd += ["-m", "" if include_slow else "not slow"]
        cmd += sorted(set(nodeids))
        print(f"running {len(set(nodeids))} registered checks with pytest ...", flush=True)
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
        print("pytest: " + (tail[0] if tail else f"exit {proc.returncode}"))
        if proc.returncode not in (0, 1, 5) or not out.exists():
            sys.stderr.write(proc.stdout[-5000:] + proc.stderr[-5000:])
            raise SystemExit(f"pytest could not run the checks (exit {proc.returncode})")
        return json.loads(out.read_text())


def _outcomes_for(nodeid: str, results: dict[str, str]) -> list[str]:
    if "[" in nodeid:
        return [results[nodeid]] if nodeid in results else []
    return [o for k, o in results.items() if k == nodeid or k.startswith(nodeid + "[")]


def _md_escape(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _cmd_report(args) -> int:
    cov = coverage()
    if cov.problems:
        print("broken links (run `python -m spec coverage`):", *cov.problems, sep="\n  ")
        return 1
    all_nodeids = [n for ids in cov.checks_of.values() for n in ids]
    results = {} if args.no_run else _run_checks(all_nodeids, args.all)
    rows, failing = [], []
    status_counts: Counter = Counter()
    check_counts: Counter = Counter()
    for cid, claim in cov.claims.items():
        outcomes = [o for n in cov.checks_of[cid] for o in _outcomes_for(n, results)]
        c = Counter(outcomes)
        check_counts.update(outcomes)
        if args.no_run:
            evidence_checks = f"{len(cov.checks_of[cid])} check(s), not run"
        elif not cov.checks_of[cid]:
            evidence_checks = "no check"
        else:
            parts = [f"{v} {k}" for k, v in sorted(c.items())]
            evidence_checks = ", ".join(parts) if parts else "checks deselected (slow: run with --all)"
        status = claim.status
        if c.get("failed"):
            status = f"{status}; CHECK FAILED"
            failing.append(cid)
        status_counts[claim.status] += 1
        checks_list = "<br>".join(f"`{n}`" for n in cov.checks_of[cid])
        rows.append(
            f"| `{cid}` | {claim.kind} | {status} | {_md_escape(claim.statement)} | "
            f"{_md_escape(claim.finding) or '-'} | {evidence_checks}<br>{checks_list} |"
        )
    out = Path(args.out) if args.out else ROOT / "report" / "claims.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    header = [
        "# privlearn claim report",
        "",
        "Generated by `python -m spec report`. Status is the registry's verdict on the paper's claim",
        "(holds / loose / false / not-checkable); the evidence column gives the finding and the outcome of",
        "every check run for this report. A failing check marks the row `CHECK FAILED`.",
        "",
        "| status | claims |",
        "|---|---|",
        *[f"| {s} | {status_counts.get(s, 0)} |" for s in STATUSES],
        "",
        "| id | kind | status | statement | finding | evidence |",
        "|---|---|---|---|---|---|",
    ]
    out.write_text("\n".join(header + rows) + "\n")

    print()
    print(f"{'paper':14s} " + " ".join(f"{s:>13s}" for s in STATUSES) + f" {'total':>6s}")
    papers = sorted({c.paper for c in cov.claims.values()})
    for paper in papers:
        counts = Counter(c.status for c in cov.claims.values() if c.paper == paper)
        print(f"{paper:14s} " + " ".join(f"{counts.get(s, 0):13d}" for s in STATUSES) + f" {sum(counts.values()):6d}")
    print(f"{'all':14s} " + " ".join(f"{status_counts.get(s, 0):13d}" for s in STATUSES) + f" {len(cov.claims):6d}")
    if results:
        print("checks: " + ", ".join(f"{v} {k}" for k, v in sorted(check_counts.items())))
    findings = [c for c in cov.claims.values() if c.status in ("false", "loose")]
    if findings:
        print(f"\nfindings ({len(findings)} claims false or loose):")
        for c in findings:
            print(f"  {c.id:32s} {c.status:6s} {c.finding[:100]}")
    print(f"\nwrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    if failing:
        print(f"\n{len(failing)} claim(s) with a failing check: {', '.join(failing)}")
        return 1
    return 0


def _cmd_findings(args) -> int:
    cov = coverage(import_targets=False)
    out = Path(args.out) if args.out else ROOT / "docs" / "findings.md"
    lines = [
        "# Findings: what the checks found about the papers",
        "",
        "Generated by `python -m spec findings` from the registry (`spec/claims.toml`, `spec/claims.d/`).",
        "Each entry is a claim whose check shows it false or loose as printed, with the evidence; the check",
        "itself stays strict (it asserts the corrected statement, or that the printed one fails).",
        "",
    ]
    for paper in sorted({c.paper for c in cov.claims.values()}):
        rows = [c for c in cov.claims.values() if c.paper == paper and c.status in ("false", "loose")]
        if not rows:
            continue
        lines += [f"## {paper}", ""]
        for c in rows:
            checks_list = ", ".join(f"`{n}`" for n in cov.checks_of[c.id]) or "none"
            lines += [
                f"### `{c.id}` ({c.where}): {c.status}",
                "",
                f"- Statement: {' '.join(c.statement.split())}",
                f"- Finding: {' '.join(c.finding.split())}",
                f"- Checks: {checks_list}",
                "",
            ]
    notes = [c for c in cov.claims.values() if c.status == "holds" and c.finding.strip()]
    if notes:
        lines += ["## Claims that hold, with a note (constants, conditions, resolved ambiguities)", ""]
        lines += [f"- `{c.id}`: {' '.join(c.finding.split())}" for c in notes]
        lines.append("")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    n = sum(1 for c in cov.claims.values() if c.status in ("false", "loose"))
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: {n} findings")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spec", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("coverage", help="list unchecked claims; fail on broken links")
    rep = sub.add_parser("report", help="run the checks and write report/claims.md")
    rep.add_argument("--all", action="store_true", help="include slow checks")
    rep.add_argument("--no-run", action="store_true", help="do not run the checks")
    rep.add_argument("--out", default=None, help="output Markdown path (default report/claims.md)")
    fnd = sub.add_parser("findings", help="write docs/findings.md from the registry")
    fnd.add_argument("--out", default=None, help="output Markdown path (default docs/findings.md)")
    args = parser.parse_args(argv)
    return {"coverage": _cmd_coverage, "report": _cmd_report, "findings": _cmd_findings}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
