"""Command line of the specification.

``python -m spec coverage``  list claims with no check; exit 1 on a broken link (a registered check that
                             does not exist, an unknown id in @implements/@checks, a missing implementation) or
                             on a claim whose text breaks its scope (spec.registry.scope_problems).
                             From an installed package (no tests/ on disk) it says the checks are not shipped
                             and verifies what ships: the registry, @implements and the code targets.
``python -m spec findings``  write ``docs/findings.md``: every claim the checks found false or loose, with
                             its evidence and scope, grouped by paper, then the library's own entries
                             (spec.report.findings_markdown; regenerate after changing the registry).
``python -m spec report``    run every registered check (pytest, default markers: all but ``slow``), print a
                             summary and write ``report/claims.md`` and ``report/index.html`` (stamped with commit,
                             date and versions; findings first with severity and privacy impact; each claim linked
                             to its reference function, fast twin and checks): the document an auditor reads.
                             ``--all`` includes the slow suites; ``--no-run`` writes it from the registry alone;
                             ``--out PATH`` moves the Markdown (the HTML goes beside it unless ``--html PATH``).
                             From an installed package (no tests/ on disk) the checks cannot run: the report is
                             built from the shipped registry and says so (see :mod:`spec.report`).
                             While the checks run, a line per claim whose checks have all finished goes to stderr
                             (items done / total, claims done / total, seconds; ``--quiet`` silences it) and the
                             Markdown is rewritten about every 10 s, marked PARTIAL REPORT until the run ends: an
                             interrupted run (Ctrl-C, SIGTERM; exit 130) leaves what it finished. ``--no-run``
                             takes a few seconds; a full run about 6 minutes on 2 loaded cores.
``python -m spec check CLAIM_ID [...]``  run exactly the checks of those claims (one pytest process, ``-n0``,
                             ``-p no:randomly``) and print, per check: claim id, node id, verdict (passed; failed
                             with the failing items' errors; skipped with the reason) and duration. Checks marked
                             slow run with ``--slow``; without it they are reported "skipped: slow (use --slow)".
                             Exit 1 if a check failed, 2 for an unknown claim id (the closest ids are suggested).
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from collections import Counter
from pathlib import Path

from spec.registry import ROOT, coverage, grading_problems


def _cmd_coverage(args) -> int:
    from spec import report

    src = report.source_tree()
    cov = coverage(verify_checks=src)
    n = len(cov.claims)
    checked = sum(1 for cid in cov.claims if cov.checks_of[cid])
    not_checkable = sum(1 for c in cov.claims.values() if c.status == "not-checkable")
    if not src:
        registered = sorted({nid for c in cov.claims.values() for nid in c.checks})
        files = sorted({nid.split("::", 1)[0] for nid in registered})
        print(textwrap.fill(
            f"installed package (no tests/ or proofs_checks/ beside {ROOT}): the checks are not shipped. Not "
            f"verified here: the {len(registered)} checks the registry names (in the {len(files)} files below) and "
            "the checks attached with @checks in tests/ and proofs_checks/, hence also which claims have no check. "
            "Verified: the registry parses, every @implements in reference/, fast/ and spec/ names a registered "
            "claim, every reference / fast target imports and the reference one carries @implements. The full "
            "coverage: `python -m spec coverage` in a source checkout.", 100, break_long_words=False,
            break_on_hyphens=False))
        print(textwrap.fill("not shipped: " + ", ".join(files), 100, subsequent_indent="  ", break_long_words=False,
                            break_on_hyphens=False))
        print()
        print(f"{n} claims registered, {not_checkable} not-checkable (with reason)")
    else:
        print(f"{n} claims registered: {checked} checked, {not_checkable} not-checkable (with reason), "
              f"{len(cov.unchecked)} with no check")
    by_paper = Counter(c.paper for c in cov.claims.values())
    for paper, count in sorted(by_paper.items()):
        print(f"  {paper:14s} {count:4d} claims")
    if cov.unchecked and src:
        print("\nclaims with no check:")
        for cid in cov.unchecked:
            print(f"  {cid}  ({cov.claims[cid].source})")
    grading = grading_problems(cov.claims)
    if grading:
        print("\nfindings not graded, or graded against their status (severity / privacy_impact):")
        for p in grading:
            print(f"  {p}")
    if cov.scoping:
        print("\nclaims whose text is about something other than their scope (paper / library / extraction):")
        for p in cov.scoping:
            print(f"  {p}")
    if cov.problems:
        print("\nbroken links:")
        for p in cov.problems:
            print(f"  {p}")
    return 1 if (cov.problems or cov.scoping) else 0


def _outcomes_for(nodeid: str, results: dict[str, str]) -> list[str]:
    from spec.report import outcomes_for

    return outcomes_for(nodeid, results)


def _cmd_report(args) -> int:
    from spec import report

    return report.main(out=args.out, html=args.html, run=not args.no_run, include_slow=args.all, quiet=args.quiet)


def _cmd_check(args) -> int:
    from spec import report

    return report.check(args.claim_ids, include_slow=args.slow)


def _cmd_findings(args) -> int:
    from spec.report import findings_markdown

    cov = coverage(import_targets=False)
    out = Path(args.out) if args.out else ROOT / "docs" / "findings.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(findings_markdown(cov))
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
    rep.add_argument("--html", default=None, help="output HTML path (default: index.html beside the Markdown)")
    rep.add_argument("--quiet", "-q", action="store_true", help="no progress lines on standard error")
    chk = sub.add_parser("check", help="run the checks of the given claims and print each check's verdict")
    chk.add_argument("claim_ids", nargs="+", metavar="CLAIM_ID", help="registered claim ids (e.g. nock2015.lemma2)")
    chk.add_argument("--slow", action="store_true", help="run the checks marked slow too (else reported as skipped)")
    fnd = sub.add_parser("findings", help="write docs/findings.md from the registry")
    fnd.add_argument("--out", default=None, help="output Markdown path (default docs/findings.md)")
    args = parser.parse_args(argv)
    return {"coverage": _cmd_coverage, "report": _cmd_report, "check": _cmd_check,
            "findings": _cmd_findings}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
