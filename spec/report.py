"""The auditor's report: every registered claim, its verdict, its evidence, and links to the code that implements it.

``python -m spec report`` (or ``privlearn report``) builds a :class:`Report` and writes

* ``report/claims.md``   -- Markdown: stamp, how to read it, counts, the findings in full (severity, privacy impact),
                            then one table per paper;
* ``report/index.html``  -- the same as one self-contained page (inline CSS, JS and SVG plots; no network): sortable
                            and filterable tables, findings first, plots of printed bounds against exact values;

and prints a console summary whose lines are wrapped at word boundaries (never cut mid-word).

Two modes, decided by what is on disk (:func:`source_tree`):

* **source checkout** (``tests/`` and ``proofs_checks/`` beside the packages): the registered checks are run with
  pytest and each claim's evidence is the outcome of its checks;
* **installed package** (a wheel: the registry ships as package data, the checks do not): the report is built from
  the registry and the code links (each reference / fast target is imported and its ``@implements`` verified), and
  says plainly that the checks were not run and how to run them.
"""
from __future__ import annotations

import datetime as _dt
import importlib.metadata
import inspect
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from spec.registry import (CHECK_DIRS, GROUPS, LIBRARY, PAPERS, ROOT, SCOPES, SEVERITIES, STATUSES, Claim, RegistryError,
                           coverage, grading_problems, resolve_target)

__all__ = ["build", "write", "main", "check", "console", "markdown", "findings_markdown", "stamp", "short_commit", "source_tree",
           "run_checks", "outcomes_for",
           "check_link", "Report", "Row", "CheckRun", "CodeLink"]

#: display order: findings first
STATUS_ORDER = {"false": 0, "loose": 1, "not-checkable": 2, "unchecked": 3, "holds": 4}
SEVERITY_ORDER = {"error": 0, "misprint": 1, "loose": 2, "": 3}
PACKAGES = ("privlearn", "numpy", "scipy", "numba", "scikit-learn", "mpmath", "cryptography", "pytest", "hypothesis",
            "sympy")
HOW_TO_READ = [
    "Status is the registry's verdict on the paper's claim: holds (the checks confirm it), loose (true, but the bound "
    "or constant is not tight), false (a counterexample is given), not-checkable (no finite computation can decide "
    "it; the reason is given), unchecked.",
    "Severity grades a false or loose claim: misprint (the evident intended form holds; the fix is typographical), "
    "error (false as meant), loose (true but not tight). Privacy impact says, for a finding that touches a privacy "
    "guarantee, whether using the printed form leaks and what the true epsilon / delta is.",
    "The papers' text was extracted from PDFs; formulas quoted 'as extracted' may have lost large delimiters, "
    "sub/superscripts or line order in extraction, so a claim that fails only in its extracted layout is reported "
    "as such (see nock2015.eq7), not as an error of the paper.",
    "Scope says what a claim or finding is about: paper (what the paper prints; graded against the printed text), "
    "extraction (what the PDF-to-text extraction lost), or library (what this library's code does: its grids, "
    "calibrations, defaults and corrected forms; ids library.<module>.<label>, each naming its code and the paper "
    "claims it bears on). A paper finding never rests on a property of this library's code.",
    "Evidence: the outcome of every check attached to the claim in this run. A check that fails marks the claim "
    "CHECK FAILED (the report then exits 1). Checks are pytest node ids; re-run one with "
    "`python -m pytest '<node id>'` from a source checkout, or every check of a claim, with each one's verdict, with "
    "`python -m spec check <claim id>` (`--slow` includes the slow ones).",
]

_PLUGIN = """
import json, os
import pytest

_WORKER = bool(os.environ.get("PYTEST_XDIST_WORKER"))  # an xdist worker: its reports reach the controller too
_results = {}
_seen = set()
_fh = open(os.environ["SPEC_REPORT_JSON"] + "l", "a", buffering=1)


def _emit(obj):
    _fh.write(json.dumps(obj) + "\\n")
    _fh.flush()


def _reason(report):
    lr = report.longrepr
    if isinstance(lr, tuple) and len(lr) == 3:
        return str(lr[2])
    lines = [ln.strip() for ln in (getattr(report, "longreprtext", "") or "").splitlines() if ln.strip()]
    err = [ln for ln in lines if ln.startswith("E ")]
    return ((err or lines or [""])[-1])[:300]


def pytest_runtest_logreport(report):
    if _WORKER:
        return
    key = report.nodeid
    rec = _results.setdefault(key, {"outcome": "passed", "seconds": 0.0, "reason": ""})
    rec["seconds"] += report.duration
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        if rec["outcome"] == "failed":
            outcome = "failed"
        if outcome != "passed" and not rec["reason"]:
            rec["reason"] = _reason(report)
        rec["outcome"] = outcome
    if report.when == "teardown":
        _emit({"item": key, **rec})


def pytest_collection_finish(session):
    if session.items:
        _emit({"collected": [i.nodeid for i in session.items]})


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    if not _seen:
        _seen.add(node)
        _emit({"collected": list(ids)})


def pytest_deselected(items):
    _emit({"deselected": {i.nodeid: bool(i.get_closest_marker("slow")) for i in items}})


def pytest_collectreport(report):
    if report.failed and not _WORKER:
        _emit({"collect_error": report.nodeid, "reason": _reason(report)})


def pytest_sessionfinish(session):
    if not _WORKER:
        with open(os.environ["SPEC_REPORT_JSON"], "w") as fh:
            json.dump({k: v["outcome"] for k, v in _results.items()}, fh)


def pytest_unconfigure(config):
    _fh.close()  # left to the garbage collector it surfaced as "ResourceWarning: unclosed file" in the child's summary
"""


def source_tree() -> bool:
    """Whether the checks are on disk (a source checkout) rather than only the installed packages.

    Returns
    -------
    bool
        True when ``tests/``, ``proofs_checks/`` and ``pyproject.toml`` are beside the packages.

    Examples
    --------
    >>> from spec.report import source_tree
    >>> source_tree()  # the doctests run from a source checkout
    True
    """
    return (ROOT / "tests").is_dir() and (ROOT / "proofs_checks").is_dir() and (ROOT / "pyproject.toml").is_file()


# --------------------------------------------------------------------------- stamp


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def short_commit(commit: str) -> str:
    """The first 12 hex digits of a commit hash; any other text (``"unknown (not a git checkout)"``) whole.

    Parameters
    ----------
    commit : str
        The stamp's ``commit`` field.

    Returns
    -------
    str

    Examples
    --------
    >>> short_commit("90e4bb6c0ffee0123456789abcdef0123456789a")
    '90e4bb6c0ffe'
    >>> short_commit("unknown (not a git checkout)")
    'unknown (not a git checkout)'
    """
    return commit[:12] if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit) else commit


def stamp() -> dict:
    """Commit, date, Python and package versions of this run.

    Returns
    -------
    dict
        ``commit`` (the hash, or ``"unknown (not a git checkout)"``), ``dirty``, ``date``, ``python``, ``platform``,
        ``packages`` (name -> version), ``mode`` (source checkout or installed package) and ``root``.

    Examples
    --------
    >>> from spec.report import stamp
    >>> st = stamp()
    >>> sorted(st)
    ['commit', 'date', 'dirty', 'mode', 'packages', 'platform', 'python', 'root']
    >>> st["date"].endswith("UTC"), "numpy" in st["packages"]
    (True, True)
    """
    commit = _git("rev-parse", "HEAD") if (ROOT / ".git").exists() else ""
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no")) if commit else False
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "commit": commit or "unknown (not a git checkout)",
        "dirty": dirty,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(terse=True),
        "packages": versions,
        "mode": "source checkout" if source_tree() else "installed package",
        "root": str(ROOT),
    }


# --------------------------------------------------------------------------- running the checks


@dataclass
class CheckRun:
    """What running the registered checks gave (or why they were not run).

    Parameters
    ----------
    ran : bool
        Whether pytest ran.
    reason : str, default=""
        Why not (installed package, ``--no-run``).
    results : dict of str to str, default={}
        pytest item id -> outcome (passed, failed, skipped, xfailed, xpassed).
    pytest_line : str, default=""
        pytest's own summary line.
    nodeids : int, default=0
        Distinct registered node ids run.
    seconds : float, default=0.0
        Wall time.
    details : dict of str to dict, default={}
        pytest item id -> ``{"outcome", "seconds", "reason"}``: its duration (setup, call and teardown) and, when it
        did not pass, the skip reason or the last error line.
    collected : list of str, default=[]
        The items pytest collected (after ``-m`` deselection); empty until it has collected.
    deselected : dict of str to bool, default={}
        Item id -> whether it is marked ``slow``, for the items ``-m "not slow"`` deselected.
    errors : dict of str to str, default={}
        Collection errors: node id (a file) -> the error line.

    Examples
    --------
    >>> from spec.report import CheckRun
    >>> CheckRun(False, reason="--no-run").results
    {}
    """

    ran: bool
    reason: str = ""  # why not run
    results: dict = field(default_factory=dict)  # pytest item id -> outcome
    pytest_line: str = ""  # pytest's own summary line
    nodeids: int = 0  # distinct registered node ids
    seconds: float = 0.0
    details: dict = field(default_factory=dict)  # pytest item id -> {"outcome", "seconds", "reason"}
    collected: list = field(default_factory=list)  # the items pytest collected (empty until it has)
    deselected: dict = field(default_factory=dict)  # item id -> whether it is marked slow
    errors: dict = field(default_factory=dict)  # collection errors: node id -> reason


def run_checks(nodeids: list[str], include_slow: bool, *, progress=print, on_update=None,
               pytest_args: tuple = ()) -> CheckRun:
    """Run the node ids with pytest in a subprocess (cwd = the source root); return each item's outcome.

    Parameters
    ----------
    nodeids : list of str
        pytest node ids (duplicates are run once; pytest runs them in this order).
    include_slow : bool
        Include the items marked ``slow`` (else ``-m "not slow"``: they are deselected and listed in
        :attr:`CheckRun.deselected`).
    progress : callable, default=print
        Receives one line before pytest starts.
    on_update : callable or None, default=None
        Called with the :class:`CheckRun` so far (``ran`` True, ``seconds`` the time so far) each time pytest
        reports its collection or finished items, about twice a second at most: live progress and the partial report.
    pytest_args : tuple of str, default=()
        More pytest options (``("-n0",)``).

    Returns
    -------
    CheckRun

    Raises
    ------
    SystemExit
        pytest could not run at all (an exit code other than 0, 1 or 5).

    Examples
    --------
    >>> from spec.report import run_checks
    >>> run = run_checks(["tests/test_registry_links.py::test_registry_parses"], False, progress=lambda line: None)
    >>> run.results
    {'tests/test_registry_links.py::test_registry_parses': 'passed'}
    >>> run.details["tests/test_registry_links.py::test_registry_parses"]["outcome"]
    'passed'
    """
    import time

    ids = list(dict.fromkeys(nodeids))
    start = time.perf_counter()
    state = CheckRun(True, nodeids=len(ids))
    with tempfile.TemporaryDirectory() as tmp:
        plugin = Path(tmp) / "spec_report_plugin.py"
        plugin.write_text(_PLUGIN)
        out = Path(tmp) / "results.json"
        events = Path(tmp) / "results.jsonl"
        events.touch()
        # the child is a pytest run of its own: an xdist worker's variables (when this runs inside a test of an
        # xdist run) would make the plugin think it is a worker and write nothing
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
        env.update(SPEC_REPORT_JSON=str(out), PYTHONPATH=os.pathsep.join([tmp, str(ROOT)]))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "spec_report_plugin", "--no-header", "-rN"]
        cmd += ["-m", "" if include_slow else "not slow", *pytest_args]
        cmd += ids
        progress(f"running the {len(ids)} registered checks with pytest{' (slow ones included)' if include_slow else ''} ...")
        collected: dict[str, None] = {}
        with open(Path(tmp) / "stdout", "w+") as log, open(events) as ev:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
            try:
                pending = ""
                while True:
                    finished = proc.poll() is not None
                    chunk = ev.read()
                    changed = False
                    if chunk:
                        pending += chunk
                        *lines, pending = pending.split("\n")
                        for line in lines:
                            if not line.strip():
                                continue
                            rec = json.loads(line)
                            changed = True
                            if "item" in rec:
                                item = rec.pop("item")
                                state.details[item] = rec
                                state.results[item] = rec["outcome"]
                            elif "collected" in rec:
                                collected.update(dict.fromkeys(rec["collected"]))
                                state.collected = list(collected)
                            elif "deselected" in rec:
                                state.deselected.update(rec["deselected"])
                            elif "collect_error" in rec:
                                state.errors[rec["collect_error"]] = rec["reason"]
                    if changed and on_update is not None:
                        state.seconds = time.perf_counter() - start
                        on_update(state)
                    if finished and not chunk:
                        break
                    if not chunk:
                        time.sleep(0.5)
            finally:
                if proc.poll() is None:  # interrupted: do not leave pytest running
                    proc.terminate()
                    try:
                        proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()
            log.seek(0)
            stdout = log.read()
        tail = stdout.strip().splitlines()[-1:] if stdout.strip() else []
        if proc.returncode not in (0, 1, 5) or not out.exists():
            sys.stderr.write(stdout[-10000:])
            raise SystemExit(f"pytest could not run the checks (exit {proc.returncode})")
        state.results = {k: v for k, v in json.loads(out.read_text()).items()} | state.results
        state.pytest_line = tail[0] if tail else ""
        state.seconds = time.perf_counter() - start
        return state


def outcomes_for(nodeid: str, results: dict[str, str]) -> list[str]:
    """Outcomes of the pytest items a registered node id expands to (its parametrizations).

    Parameters
    ----------
    nodeid : str
        A registered node id; with ``[param]`` it names one item.
    results : dict of str to str
        :attr:`CheckRun.results`.

    Returns
    -------
    list of str
        Empty when the node id produced no item (slow and deselected, or not run).

    Examples
    --------
    >>> from spec.report import outcomes_for
    >>> results = {"t.py::test_a[1]": "passed", "t.py::test_a[2]": "failed", "t.py::test_ab": "passed"}
    >>> outcomes_for("t.py::test_a", results)
    ['passed', 'failed']
    >>> outcomes_for("t.py::test_a[2]", results)
    ['failed']
    """
    if "[" in nodeid:
        return [results[nodeid]] if nodeid in results else []
    return [o for k, o in results.items() if k == nodeid or k.startswith(nodeid + "[")]


# --------------------------------------------------------------------------- the report's rows


@dataclass
class CodeLink:
    """Where a claim's implementation (or a check) is defined.

    Parameters
    ----------
    target : str
        ``"reference.rados:logistic_risk"``, or a check's node id.
    path : str, default=""
        Its file, relative to the source root when inside it.
    line : int, default=0
        The line of its ``def``.
    error : str, default=""
        Why it could not be resolved (then ``path`` is empty).

    Examples
    --------
    >>> from spec.report import CodeLink
    >>> CodeLink("reference.rados:logistic_risk", "reference/rados.py", 120).error
    ''
    """

    target: str  # "reference.rados:logistic_risk"
    path: str = ""  # file, relative to ROOT when inside it
    line: int = 0
    error: str = ""


@dataclass
class Row:
    """One claim of the report with its code links and the outcomes of its checks.

    Parameters
    ----------
    claim : spec.registry.Claim
    reference, fast : CodeLink or None
        Its implementations (None when the claim names none).
    checks : list of (str, list of str)
        (node id, outcomes) for each of its checks.
    evidence : str
        The outcomes summed up ("3 passed", "2 check(s), not run", "no check").
    check_failed : bool
        Whether any of its checks failed in this run.

    Examples
    --------
    >>> from spec.registry import Claim
    >>> from spec.report import Row
    >>> row = Row(Claim("nock2015.eq7", "eq. (7)", "bound", "b", "false", finding="f", severity="error"), None, None,
    ...           [], "no check", False)
    >>> row.sort_key  # findings first, the most severe first
    (0, 0, 'nock2015.eq7')
    """

    claim: Claim
    reference: CodeLink | None
    fast: CodeLink | None
    checks: list[tuple[str, list[str]]]  # (node id, outcomes)
    evidence: str
    check_failed: bool

    @property
    def sort_key(self):
        c = self.claim
        return (STATUS_ORDER.get(c.status, 9), SEVERITY_ORDER.get(c.severity, 9), c.id)


@dataclass
class Report:
    """The report: every claim's row, the stamp of the run, the check run, broken links, ungraded findings, plots.

    Parameters
    ----------
    stamp : dict
        As :func:`stamp` returns.
    rows : list of Row
        One per claim.
    run : CheckRun
    problems : list of str
        Broken links (source checkout) or targets that do not import.
    grading : list of str
        Findings without a severity / privacy impact, or graded against their status.
    plots : list of spec.report_plots.Plot, default=[]
    scoping : list of str, default=[]
        Claims whose text is about something other than their scope (:func:`spec.registry.scope_problems`).
    partial : str, default=""
        Non-empty when the checks have not all finished (a run in progress or interrupted): how far it got. The
        Markdown then says PARTIAL REPORT at its top.

    Examples
    --------
    >>> from spec.registry import Claim
    >>> from spec.report import CheckRun, Report, Row, stamp
    >>> claim = Claim("nock2015.eq7", "Section 2, eq. (7)", "bound", "a bound", "loose", finding="Not tight.",
    ...               severity="loose")
    >>> rep = Report(stamp(), [Row(claim, None, None, [], "no check", False)], CheckRun(False, reason="an example"),
    ...              problems=[], grading=[])
    >>> [r.claim.id for r in rep.findings], rep.failing
    (['nock2015.eq7'], [])
    """

    stamp: dict
    rows: list[Row]
    run: CheckRun
    problems: list[str]  # broken links (source mode) or failed imports
    grading: list[str]  # findings without severity / privacy impact
    plots: list = field(default_factory=list)
    scoping: list = field(default_factory=list)  # scope rule broken (spec.registry.scope_problems)
    partial: str = ""  # non-empty: the run did not finish, and this says how far it got

    @property
    def findings(self) -> list[Row]:
        """The false / loose claims: the papers' findings (scope paper or extraction) first, then the library's; within
        each, most severe first."""
        return sorted((r for r in self.rows if r.claim.status in ("false", "loose")),
                      key=lambda r: (r.claim.scope == LIBRARY, SEVERITY_ORDER.get(r.claim.severity, 9),
                                     not r.claim.privacy_impact, _group_index(r.claim.paper), r.claim.id))

    @property
    def failing(self) -> list[str]:
        return [r.claim.id for r in self.rows if r.check_failed]

    def status_counts(self, paper: str | None = None) -> Counter:
        """How many claims have each status (a claim counts once).

        Parameters
        ----------
        paper : str or None, default=None
            Count one paper's claims only.

        Returns
        -------
        collections.Counter

        Examples
        --------
        >>> from spec.registry import Claim
        >>> from spec.report import CheckRun, Report, Row, stamp
        >>> claim = Claim("nock2015.eq7", "Section 2, eq. (7)", "bound", "a bound", "loose", finding="Not tight.",
        ...               severity="loose")
        >>> rep = Report(stamp(), [Row(claim, None, None, [], "no check", False)], CheckRun(False, reason="an example"),
        ...              problems=[], grading=[])
        >>> rep.status_counts()["loose"], rep.status_counts("bun2020")["loose"]
        (1, 0)
        """
        return Counter(r.claim.status for r in self.rows if paper is None or r.claim.paper == paper)

    def severity_counts(self) -> Counter:
        """How many findings have each severity (``"ungraded"`` for none).

        Returns
        -------
        collections.Counter

        Examples
        --------
        >>> from spec.registry import Claim
        >>> from spec.report import CheckRun, Report, Row, stamp
        >>> claim = Claim("nock2015.eq7", "Section 2, eq. (7)", "bound", "a bound", "loose", finding="Not tight.",
        ...               severity="loose")
        >>> rep = Report(stamp(), [Row(claim, None, None, [], "no check", False)], CheckRun(False, reason="an example"),
        ...              problems=[], grading=[])
        >>> dict(rep.severity_counts())
        {'loose': 1}
        """
        return Counter(r.claim.severity or "ungraded" for r in self.findings)

    def count_explanation(self) -> list[str]:
        """What each number means (pytest items vs per-claim outcomes are different counts).

        Returns
        -------
        list of str
            One sentence per count; a single line saying why when the checks were not run.

        Examples
        --------
        >>> from spec.registry import Claim
        >>> from spec.report import CheckRun, Report, Row, stamp
        >>> claim = Claim("nock2015.eq7", "Section 2, eq. (7)", "bound", "a bound", "loose", finding="Not tight.",
        ...               severity="loose")
        >>> rep = Report(stamp(), [Row(claim, None, None, [], "no check", False)], CheckRun(False, reason="an example"),
        ...              problems=[], grading=[])
        >>> rep.count_explanation()
        ['Checks not run: an example']
        """
        if not self.run.ran:
            return [f"Checks not run: {self.run.reason}"]
        items = Counter(self.run.results.values())
        per_claim = Counter(o for r in self.rows for _, outs in r.checks for o in outs)
        not_run = sum(1 for r in self.rows for n, outs in r.checks if not outs and not r.evidence.startswith("pending"))
        lines = [
            f"{self.run.nodeids} distinct registered checks (pytest node ids) expanded by pytest into "
            f"{sum(items.values())} test items, each run once in {self.run.seconds:.0f} s: "
            + ", ".join(f"{v} {k}" for k, v in sorted(items.items())) + f" (pytest: {self.run.pytest_line}).",
            f"Per claim, an item is counted once for every claim it checks (one test may check several claims), so "
            f"the per-claim evidence adds up to {sum(per_claim.values())} outcomes: "
            + ", ".join(f"{v} {k}" for k, v in sorted(per_claim.items())) + ".",
        ]
        if not_run:
            lines.append(f"{not_run} registered check(s) produced no item in this run: they are marked slow "
                         "(run with --all) or deselected.")
        return lines


def _group_index(group: str) -> int:
    return GROUPS.index(group) if group in GROUPS else 99


def check_link(nodeid: str) -> CodeLink | None:
    """Where a registered check is defined (file and line of its function), or None when not on disk.

    Parameters
    ----------
    nodeid : str
        ``"path.py::func"`` or ``"path.py::Class::method"`` (a ``[param]`` suffix is ignored).

    Returns
    -------
    CodeLink or None

    Examples
    --------
    >>> from spec.report import check_link
    >>> link = check_link("tests/test_registry_links.py::test_registry_parses[x]")
    >>> link.path, link.line > 0
    ('tests/test_registry_links.py', True)
    >>> check_link("tests/nowhere.py::test_a") is None
    True
    """
    parts = nodeid.split("[", 1)[0].split("::")
    if len(parts) < 2:
        return None
    line = _definitions(ROOT / parts[0]).get("::".join(parts[1:]))
    return CodeLink(nodeid, parts[0], line) if line else None


_DEFINITIONS: dict = {}


def _definitions(path: Path) -> dict[str, int]:
    """``{"func": line, "Class::method": line}`` for the top-level functions and methods of a file (empty when it is
    not on disk or does not parse), parsed once per version of the file: the report links about 800 checks in
    about 60 files, twice (Markdown and HTML), and parsing each file anew for every link was 13 of the 17 s of
    ``--no-run`` (62 s on a loaded machine)."""
    import ast

    try:
        st = path.stat()
    except OSError:
        return {}
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _DEFINITIONS:
        defs: dict[str, int] = {}
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, OSError, UnicodeDecodeError, ValueError):
            tree = None
        for node in tree.body if tree else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(node.name, node.lineno)
            elif isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        defs.setdefault(f"{node.name}::{sub.name}", sub.lineno)
        _DEFINITIONS[key] = defs
    return _DEFINITIONS[key]


def _check_exists(nodeid: str) -> bool:
    """:func:`spec.registry.check_exists`, with each file parsed once (:func:`_definitions`)."""
    parts = nodeid.split("[", 1)[0].split("::")
    return (len(parts) >= 2 and parts[0].split("/")[0] in CHECK_DIRS
            and "::".join(parts[1:]) in _definitions(ROOT / parts[0]))


def _code_link(target: str) -> CodeLink | None:
    if not target:
        return None
    link = CodeLink(target)
    try:
        obj = resolve_target(target)
        obj = inspect.unwrap(obj)
        path = Path(inspect.getsourcefile(obj) or "")
        link.line = inspect.getsourcelines(obj)[1]
        link.path = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    except (RegistryError, TypeError, OSError) as exc:
        link.error = str(exc)
    return link


def _items_of(nodeid: str, collected) -> list[str]:
    """The collected pytest items a registered node id expands to (the :func:`outcomes_for` rule)."""
    if "[" in nodeid:
        return [k for k in collected if k == nodeid]
    return [k for k in collected if k == nodeid or k.startswith(nodeid + "[")]


class _Tracker:
    """Which claims' checks have all finished in a running :class:`CheckRun`; prints a progress line per finished
    claim (and a heartbeat every 30 s without one) and hands the partial report to ``on_partial`` at most every
    ``every`` seconds (and at the end of the run or on an interrupt: :meth:`flush`)."""

    def __init__(self, checks_of: dict[str, list[str]], make_report, echo, on_partial, every: float = 10.0):
        import time

        self.checks_of = {cid: [n for n in ids if _check_exists(n)] for cid, ids in checks_of.items()}
        self.make_report, self.echo, self.on_partial, self.every = make_report, echo, on_partial, every
        self.done: set[str] = set()  # claims whose checks all finished
        self.items: dict[str, list[str]] | None = None  # registered node id -> its collected items
        self.state: CheckRun | None = None
        self.time = time.monotonic
        self.last_write = self.last_line = self.time()
        self.with_checks = sum(1 for ids in self.checks_of.values() if ids)

    def pending(self) -> set[str]:
        return {cid for cid, ids in self.checks_of.items() if ids and cid not in self.done}

    def update(self, state: CheckRun) -> None:
        self.state = state
        if self.items is None and state.collected:
            by_base: dict[str, list[str]] = {}
            for item in state.collected:
                by_base.setdefault(item.split("[", 1)[0], []).append(item)
            self.items = {n: [k for k in by_base.get(n.split("[", 1)[0], []) if "[" not in n or k == n]
                          for ids in self.checks_of.values() for n in ids}
        if self.items is None:
            return
        total = len(state.collected)
        for cid, ids in self.checks_of.items():
            if not ids or cid in self.done:
                continue
            if all(k in state.results for n in ids for k in self.items[n]):
                self.done.add(cid)
                outs = Counter(state.results[k] for n in ids for k in self.items[n])
                evidence = ", ".join(f"{v} {k}" for k, v in sorted(outs.items())) or "deselected (slow)"
                self.echo(f"[{len(state.results):{len(str(total))}d}/{total} items, {len(self.done):3d}/"
                          f"{self.with_checks} claims, {state.seconds:4.0f} s] {cid}: {evidence}")
                self.last_line = self.time()
        if self.time() - self.last_line > 30:
            running = next(reversed(state.results), "") if state.results else "(starting)"
            self.echo(f"[{len(state.results)}/{total} items, {len(self.done)}/{self.with_checks} claims, "
                      f"{state.seconds:.0f} s] still running; last finished: {running}")
            self.last_line = self.time()
        if self.on_partial is not None and self.time() - self.last_write >= self.every:
            self.flush()

    def flush(self, note: str = "") -> None:
        """Hand the partial report (claims not finished marked pending) to ``on_partial``."""
        if self.on_partial is None:
            return
        state = self.state or CheckRun(True)
        n, total = len(self.done), self.with_checks
        self.on_partial(self.make_report(state, self.pending(), (
            f"{note or 'the run is in progress'}: the checks of {n} of the {total} claims that have checks "
            f"finished ({len(state.results)} pytest items in {state.seconds:.0f} s); the others are marked pending. "
            "The complete report replaces this file when the run ends.")))
        self.last_write = self.time()


def _rows(cov, links: dict, check_run: CheckRun, pending=frozenset()) -> list[Row]:
    rows = []
    for cid, claim in cov.claims.items():
        if cid in pending:
            checks = [(n, []) for n in cov.checks_of[cid]]
            rows.append(Row(claim, *links[cid], checks, "pending: checks not finished (partial report)", False))
            continue
        checks = [(n, outcomes_for(n, check_run.results)) for n in cov.checks_of[cid]]
        outs = Counter(o for _, found in checks for o in found)
        if not check_run.ran:
            evidence = f"{len(checks)} check(s), not run" if checks else "no check"
        elif not checks:
            evidence = "no check"
        else:
            evidence = ", ".join(f"{v} {k}" for k, v in sorted(outs.items())) or "checks deselected (slow: run with --all)"
        rows.append(Row(claim, *links[cid], checks, evidence, bool(outs.get("failed"))))
    rows.sort(key=lambda r: (_group_index(r.claim.paper),) + r.sort_key)
    return rows


def build(*, run: bool = True, include_slow: bool = False, progress=print, on_partial=None) -> Report:
    """Collect the registry, verify the links, run the checks when the source tree is present, compute the plots.

    Parameters
    ----------
    run : bool, default=True
        Run the registered checks (source checkout only; an installed package has none on disk).
    include_slow : bool, default=False
        Include checks marked ``slow``.
    progress : callable, default=print
        Receives the progress lines: one before pytest starts, then one each time the checks of a claim have all
        finished (``[items done/total, claims done/total, seconds] claim id: outcomes``).
    on_partial : callable or None, default=None
        Receives a partial :class:`Report` (``partial`` says how far the run got; claims whose checks have not all
        finished are marked pending) before the checks start, about every 10 s while they run and, on an
        interrupt (KeyboardInterrupt, SystemExit), once more before the exception propagates.

    Returns
    -------
    Report
        Rows (one per claim, paper order, findings first), the stamp, the check run, broken links, ungraded
        findings and the plots.

    Raises
    ------
    spec.registry.RegistryError
        A malformed registry file.
    SystemExit
        pytest could not run at all.

    Examples
    --------
    >>> from spec.report import build
    >>> rep = build(run=False)  # the registry and the code links alone: a few seconds
    >>> rep.run.ran, rep.problems, rep.partial
    (False, [], '')
    >>> rep.findings[0].claim.severity
    'error'
    """
    from spec import report_plots

    src = source_tree()
    cov = coverage(verify_checks=src)
    problems = list(cov.problems)
    links = {cid: (_code_link(c.reference), _code_link(c.fast)) for cid, c in cov.claims.items()}
    st = stamp()
    grading = grading_problems(cov.claims)

    def report(check_run: CheckRun, pending=frozenset(), partial: str = "", plots=()) -> Report:
        return Report(st, _rows(cov, links, check_run, pending), check_run, problems, grading, list(plots),
                      scoping=list(cov.scoping), partial=partial)

    if not src:
        check_run = CheckRun(False, reason=(
            "this is an installed package: the registry ships with it, the checks (tests/, proofs_checks/) do not. "
            "To run them: clone the source, `pip install -e '.[test]'`, then `python -m spec report` from its root."))
    elif not run:
        check_run = CheckRun(False, reason="--no-run: the report was written from the registry alone")
    else:  # run every registered check that exists (a broken link elsewhere is reported, and makes the exit 1)
        # in claim order, so that claims finish one after another and the partial report fills up as pytest runs
        existing = [n for ids in cov.checks_of.values() for n in ids if _check_exists(n)]
        tracker = _Tracker(cov.checks_of, report, progress, on_partial)
        tracker.flush("the checks have not started")
        try:
            check_run = run_checks(existing, include_slow, progress=progress, on_update=tracker.update)
        except BaseException:
            tracker.flush("INTERRUPTED")
            raise
    return report(check_run, plots=report_plots.bound_vs_exact())


# --------------------------------------------------------------------------- Markdown


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _md_cell(text: str) -> str:
    return _one_line(text).replace("|", "\\|")


def _md_link(link: CodeLink | None, base: Path) -> str:
    if link is None:
        return "-"
    if link.error or not link.path:
        return f"`{link.target}` (not importable: {_md_cell(link.error)})"
    href = _href(link, base)
    return f"[`{link.target}`]({href})"


def _md_check(nodeid: str, base: Path) -> str:
    link = check_link(nodeid)
    return f"[`{nodeid}`]({_href(link, base)})" if link else f"`{nodeid}`"


def _href(link: CodeLink, base: Path) -> str:
    path = Path(link.path)
    if not path.is_absolute():
        path = ROOT / path
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        rel = str(path)
    return f"{Path(rel).as_posix()}#L{link.line}"


def _stamp_lines(st: dict) -> list[str]:
    pk = ", ".join(f"{k} {v}" for k, v in st["packages"].items())
    commit = st["commit"] + (" (with uncommitted changes)" if st["dirty"] else "")
    return [f"- Commit: `{commit}`", f"- Date: {st['date']}", f"- Python: {st['python']} on {st['platform']}",
            f"- Packages: {pk}", f"- Mode: {st['mode']} (`{st['root']}`)"]


def markdown(rep: Report, out: Path) -> str:
    """The report as Markdown: stamp, how to read it, counts, the findings in full, one table per paper.

    Parameters
    ----------
    rep : Report
    out : pathlib.Path
        Where it will be written: links to code are made relative to its directory.

    Returns
    -------
    str

    Examples
    --------
    >>> from spec.registry import Claim
    >>> from spec.report import CheckRun, Report, Row, stamp
    >>> claim = Claim("nock2015.eq7", "Section 2, eq. (7)", "bound", "a bound", "loose", finding="Not tight.",
    ...               severity="loose")
    >>> rep = Report(stamp(), [Row(claim, None, None, [], "no check", False)], CheckRun(False, reason="an example"),
    ...              problems=[], grading=[])
    >>> from pathlib import Path
    >>> from spec.report import markdown
    >>> md = markdown(rep, Path("report/claims.md"))
    >>> md.splitlines()[0]
    '# privlearn claim report'
    >>> "### `nock2015.eq7` (Section 2, eq. (7)): loose, severity loose" in md
    True
    """
    base = out.parent
    lines = ["# privlearn claim report", "", "Generated by `python -m spec report` (also `privlearn report`).", ""]
    if rep.partial:
        lines += [f"**PARTIAL REPORT: {rep.partial}**", ""]
    lines += _stamp_lines(rep.stamp) + ["", "## How to read it", ""]
    lines += [f"- {t}" for t in HOW_TO_READ]
    lines += ["", "## Counts", "", "| paper | " + " | ".join(STATUSES) + " | total |",
              "|---|" + "---|" * (len(STATUSES) + 1)]
    for paper in GROUPS:
        c = rep.status_counts(paper)
        if sum(c.values()):
            lines.append(f"| {paper} | " + " | ".join(str(c.get(s, 0)) for s in STATUSES) + f" | {sum(c.values())} |")
    c = rep.status_counts()
    lines.append("| **all** | " + " | ".join(str(c.get(s, 0)) for s in STATUSES) + f" | {sum(c.values())} |")
    sev = rep.severity_counts()
    lines += ["", f"Findings (false or loose): {len(rep.findings)}; by severity: "
              + ", ".join(f"{sev.get(s, 0)} {s}" for s in (*SEVERITIES, "ungraded") if sev.get(s, 0)) + ".", ""]
    lines += [f"- {t}" for t in rep.count_explanation()]
    if rep.failing:
        lines += ["", f"**{len(rep.failing)} claim(s) with a FAILING check:** " + ", ".join(f"`{c}`" for c in rep.failing)]
    if rep.problems:
        lines += ["", "**Broken links:**", *[f"- {_md_cell(p)}" for p in rep.problems]]
    if rep.grading:
        lines += ["", "**Grading problems (ungraded findings, or a severity against the status):**",
                  *[f"- {_md_cell(p)}" for p in rep.grading]]
    if rep.scoping:
        lines += ["", "**Scope problems (a claim's text about something other than its scope):**",
                  *[f"- {_md_cell(p)}" for p in rep.scoping]]
    lines += ["", "## Findings (false or loose), most severe first", "",
              "The papers' findings (scope paper: what the paper prints; extraction: what the text extraction lost) "
              "come first, then the library's own (scope library: what this library's code does).", ""]
    current = None
    for r in rep.findings:
        c = r.claim
        part = "library" if c.scope == LIBRARY else "paper"
        if part != current:
            current = part
            lines += [("### Against the papers" if part == "paper" else "### About this library's code"), ""]
        lines += [f"### `{c.id}` ({c.where}): {c.status}, severity {c.severity or 'ungraded'}, scope {c.scope}", "",
                  f"- Statement: {_one_line(c.statement)}", f"- Finding: {_one_line(c.finding)}"]
        if c.privacy_impact:
            lines.append(f"- Privacy impact: {_one_line(c.privacy_impact)}")
        lines += _md_scope_lines(c)
        lines += [f"- Reference: {_md_link(r.reference, base)}; fast: {_md_link(r.fast, base)}",
                  f"- Checks ({r.evidence}{'; CHECK FAILED' if r.check_failed else ''}): "
                  + (", ".join(_md_check(n, base) for n, _ in r.checks) or "none"), ""]
    for paper in GROUPS:
        rows = [r for r in rep.rows if r.claim.paper == paper]
        if not rows:
            continue
        title = (f"## {paper}: every claim" if paper != LIBRARY else
                 f"## {paper}: every claim (scope library: what this library's code does)")
        lines += [title, "", "| id | kind | status | severity | scope | statement | finding | code | evidence |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            c = r.claim
            status = c.status + ("; CHECK FAILED" if r.check_failed else "")
            code = f"{_md_link(r.reference, base)}<br>{_md_link(r.fast, base)}"
            if c.code:
                code = "<br>".join(f"`{t}`" for t in c.code)
            checks = "<br>".join(_md_check(n, base) for n, _ in r.checks)
            finding = _md_cell(c.finding) or "-"
            if c.privacy_impact:
                finding += f" **Privacy impact:** {_md_cell(c.privacy_impact)}"
            if c.related:
                finding += " **Related:** " + ", ".join(f"`{x}`" for x in c.related)
            lines.append(f"| `{c.id}` | {c.kind} | {status} | {c.severity or '-'} | {c.scope} | {_md_cell(c.statement)} "
                         f"| {finding} | {code} | {r.evidence}<br>{checks} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def _md_scope_lines(c: Claim) -> list[str]:
    """The scope's own lines of a finding: the code a library entry is about, and the claims it bears on."""
    out = []
    if c.code:
        out.append("- Code: " + ", ".join(f"`{t}`" for t in c.code))
    if c.related:
        out.append("- Related: " + ", ".join(f"`{x}`" for x in c.related))
    return out


#: the preamble of docs/findings.md (``python -m spec findings``)
FINDINGS_PREAMBLE = [
    "# Findings: what the checks found about the papers",
    "",
    "Generated by `python -m spec findings` from the registry (`spec/claims.toml`, `spec/claims.d/`).",
    "Each entry is a claim whose check shows it false or loose as printed, with the evidence; the check",
    "itself stays strict (it asserts the corrected statement, or that the printed one fails). Each carries a",
    "severity: misprint (the evident intended form holds), error (false as meant) or loose (true, not tight);",
    "a finding that touches a privacy guarantee says whether the printed form leaks and how much.",
    "",
    "Each carries a scope as well. A finding against a paper (scope paper) is about what the paper PRINTS and is",
    "graded against the printed text, never against a property of this library's code; what the library does about",
    "it (its grids, calibrations, defaults, the corrected forms it implements) is a separate entry of scope library",
    "(`library.<module>.<label>`, listed at the end), which names the code it is about and the paper claims it",
    "bears on. Scope extraction marks what the PDF-to-text extraction lost.",
    "",
    "How the text was obtained: the papers were read as text extracted from their PDFs, not from the typeset",
    "pages. Extraction keeps words and most symbols but can lose large (math-extension) delimiters, sub- and",
    "superscript placement and the order of displayed lines. So 'as printed' below means 'as extracted': where a",
    "claim fails only in its extracted layout and a natural reading with the lost delimiters holds, it is",
    "registered as holding with the extracted form noted (nock2015.eq7, scope extraction); where the statement is",
    "marked 'reconstructed reading', a garbled layout was re-read and the verdict applies to that reading.",
    "",
]


def findings_markdown(cov) -> str:
    """docs/findings.md: every false / loose claim of each paper with its evidence, scope, severity and privacy impact;
    then every library entry (scope library); then the claims that hold with a note.

    Parameters
    ----------
    cov : spec.registry.Coverage
        As :func:`spec.registry.coverage` returns (its ``checks_of`` lists each claim's checks).

    Returns
    -------
    str
        The Markdown, as ``python -m spec findings`` writes it.

    Examples
    --------
    >>> from spec.registry import coverage
    >>> from spec.report import findings_markdown
    >>> md = findings_markdown(coverage(import_targets=False))
    >>> md.splitlines()[0], "## library: statements about this library's code (scope library)" in md
    ('# Findings: what the checks found about the papers', True)
    """
    lines = list(FINDINGS_PREAMBLE)
    claims = cov.claims.values()
    for paper in PAPERS:
        rows = [c for c in claims if c.paper == paper and c.status in ("false", "loose")]
        if not rows:
            continue
        lines += [f"## {paper}", ""]
        for c in rows:
            checks_list = ", ".join(f"`{n}`" for n in cov.checks_of[c.id]) or "none"
            lines += [
                f"### `{c.id}` ({c.where}): {c.status}, severity {c.severity or 'ungraded'}, scope {c.scope}",
                "",
                f"- Statement: {_one_line(c.statement)}",
                f"- Finding: {_one_line(c.finding)}",
            ]
            if c.privacy_impact:
                lines.append(f"- Privacy impact: {_one_line(c.privacy_impact)}")
            lines += [f"- Checks: {checks_list}", ""]
    library = [c for c in claims if c.scope == LIBRARY]
    if library:
        lines += ["## library: statements about this library's code (scope library)", "",
                  "What the library's code does where a paper's claim is false, loose or silent: not findings against "
                  "the papers. Each names the code it is about and the paper claims it bears on.", ""]
        for c in library:
            checks_list = ", ".join(f"`{n}`" for n in cov.checks_of[c.id]) or "none"
            grade = f"{c.status}, severity {c.severity}" if c.severity else c.status
            lines += [f"### `{c.id}`: {grade}, scope {c.scope}", "", f"- Where: {_one_line(c.where)}",
                      f"- Statement: {_one_line(c.statement)}", f"- Finding: {_one_line(c.finding)}"]
            if c.privacy_impact:
                lines.append(f"- Privacy impact: {_one_line(c.privacy_impact)}")
            lines += _md_scope_lines(c) + [f"- Checks: {checks_list}", ""]
    notes = [c for c in claims if c.scope != LIBRARY and c.status == "holds" and c.finding.strip()]
    if notes:
        lines += ["## Claims that hold, with a note (constants, conditions, resolved ambiguities)", ""]
        lines += [f"- `{c.id}`{'' if c.scope == 'paper' else f' (scope {c.scope})'}: {_one_line(c.finding)}"
                  for c in notes]
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- console


_ABBREVIATIONS = ("e.g", "i.e", "Alg", "alg", "Thm", "Cor", "Prop", "eq", "Eq", "eqs", "s", "cf", "vs", "Def", "Sec",
                  "appx", "resp", "approx", "No", "Fig", "al")


def _sentences(text: str) -> list[str]:
    """Split after '. ' / '; ' unless the period ends an abbreviation (Alg., e.g., Thm. ...) or a number."""
    out, start, depth = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([{") - (ch in ")]}")
        if ch in ".;" and depth <= 0 and text[i + 1:i + 2] == " ":
            word = text[:i].rsplit(" ", 1)[-1].lstrip("(")
            if ch == "." and (word in _ABBREVIATIONS or word[-1:].isdigit() or len(word) == 1):
                continue
            out.append(text[start:i + 1].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [t for t in out if t]


#: names that are symbols in the findings' formulas: a cut between two of them (or beside an operator) would split one
_MATH_NAMES = {"eps", "epsilon", "delta", "lambda", "gamma", "sigma", "rho", "theta", "beta", "alpha", "kappa", "mu",
               "pi", "tau", "omega", "xi", "nu", "phi", "psi", "chi", "eta", "zeta", "log", "ln", "exp", "sqrt", "max",
               "min", "sup", "inf", "argmax", "argmin", "sum", "prod", "mod", "var", "cov"}
_OPENERS, _CLOSERS = "([{", ")]}"


def _plain_word(token: str) -> bool:
    """A word of prose: letters (hyphens allowed), two or more, not a symbol name; trailing punctuation ignored."""
    core = token.rstrip(".,;:!?").strip("\"'")
    letters = core.replace("-", "")
    return len(letters) > 1 and letters.isalpha() and letters.isascii() and core.lower() not in _MATH_NAMES


def _cut_points(text: str) -> list[int]:
    """Indices of the spaces where ``text`` may be cut: outside every (), [], {} and `code` span, between two words
    of prose (so never inside a formula such as ``delta e^{eps d}/2`` or ``m delta``)."""
    points, depth, code = [], 0, False
    tokens = text.split(" ")
    pos = 0
    for k, tok in enumerate(tokens[:-1]):
        for ch in tok:
            if ch == "`":
                code = not code
            elif not code:
                depth += (ch in _OPENERS) - (ch in _CLOSERS)
        pos += len(tok)
        if depth <= 0 and not code and _plain_word(tok) and _plain_word(tokens[k + 1]):
            points.append(pos)
        pos += 1  # the space
    return points


def _first_sentences(text: str, limit: int) -> str:
    """Whole sentences up to about ``limit`` characters, else whole words of prose: never a cut word, never a cut
    inside brackets, braces, a `code` span or a formula ('[...]' marks a cut; with no safe cut the text is whole)."""
    text = _one_line(text)
    if len(text) <= limit:
        return text
    out = ""
    for sentence in _sentences(text):
        if len(out) + len(sentence) + 1 > limit:
            break
        out = f"{out} {sentence}".strip()
    if len(out) < limit // 2:  # a long sentence: whole words of prose, up to the limit if a safe cut is there
        points = _cut_points(text)
        before = [p for p in points if len(out) < p <= limit]
        after = [p for p in points if p > limit]
        if before:
            out = text[:before[-1]]
        elif not out:  # no safe cut before the limit: the first one after it, else the whole text
            if not after:
                return text
            out = text[:after[0]]
    return out + " [...]"


def console(rep: Report, out_paths: list[Path], width: int | None = None, echo=print) -> None:
    """Print the summary: stamp, counts per paper and verdict, what the counts mean, each finding's first sentences
    (never cut inside a word, bracket or formula), broken links, the files written.

    Parameters
    ----------
    rep : Report
    out_paths : list of pathlib.Path
        The files written (listed last).
    width : int or None, default=None
        Wrap width (default: the terminal's, within 60..120).
    echo : callable, default=print
        Receives each line.

    Examples
    --------
    >>> from spec.registry import Claim
    >>> from spec.report import CheckRun, Report, Row, stamp
    >>> claim = Claim("nock2015.eq7", "Section 2, eq. (7)", "bound", "a bound", "loose", finding="Not tight.",
    ...               severity="loose")
    >>> rep = Report(stamp(), [Row(claim, None, None, [], "no check", False)], CheckRun(False, reason="an example"),
    ...              problems=[], grading=[])
    >>> from spec.report import console
    >>> lines = []
    >>> console(rep, [], width=80, echo=lines.append)
    >>> lines[0].startswith("privlearn claim report -- commit ")
    True
    >>> print("\\n".join(lines[-3:]))
      nock2015.eq7  [loose, loose, paper]
          Not tight.
    <BLANKLINE>
    """
    width = width or max(60, min(120, shutil.get_terminal_size((100, 24)).columns))
    echo(textwrap.fill(f"privlearn claim report -- commit {short_commit(rep.stamp['commit'])}"
                       f"{' (dirty)' if rep.stamp['dirty'] else ''}, {rep.stamp['date']}, {rep.stamp['python']}, "
                       f"{rep.stamp['mode']}", width, break_long_words=False))
    echo("")
    echo(f"{'paper':14s} " + " ".join(f"{s:>13s}" for s in STATUSES) + f" {'total':>6s}")
    for paper in GROUPS:
        c = rep.status_counts(paper)
        if sum(c.values()):
            echo(f"{paper:14s} " + " ".join(f"{c.get(s, 0):13d}" for s in STATUSES) + f" {sum(c.values()):6d}")
    c = rep.status_counts()
    echo(f"{'all':14s} " + " ".join(f"{c.get(s, 0):13d}" for s in STATUSES) + f" {sum(c.values()):6d}")
    echo("(claims per paper and verdict; a claim counts once)")
    echo("")
    for line in rep.count_explanation():
        echo(textwrap.fill(line, width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False))
    sev = rep.severity_counts()
    echo("")
    echo(textwrap.fill(f"findings ({len(rep.findings)} claims false or loose; "
                       + ", ".join(f"{sev.get(s, 0)} {s}" for s in (*SEVERITIES, "ungraded") if sev.get(s, 0))
                       + "), most severe first; full text in the report:", width, break_long_words=False))
    for r in rep.findings:
        cl = r.claim
        head = (f"  {cl.id}  [{cl.status}, {cl.severity or 'ungraded'}, {cl.scope}]"
                + ("  CHECK FAILED" if r.check_failed else ""))
        echo(head)
        wrap = dict(width=width, initial_indent="      ", subsequent_indent="      ", break_long_words=False,
                    break_on_hyphens=False)
        echo(textwrap.fill(_first_sentences(cl.finding, 240), **wrap))
        if cl.privacy_impact:
            echo(textwrap.fill("privacy: " + _first_sentences(cl.privacy_impact, 200), **wrap))
    for p in rep.problems:
        echo(textwrap.fill(f"broken link: {p}", width, subsequent_indent="  ", break_long_words=False))
    for p in rep.grading:
        echo(textwrap.fill(f"grading problem: {p}", width, subsequent_indent="  ", break_long_words=False))
    for p in rep.scoping:
        echo(textwrap.fill(f"scope problem: {p}", width, subsequent_indent="  ", break_long_words=False))
    echo("")
    for path in out_paths:
        echo(f"wrote {path}")
    if rep.failing:
        echo(f"\n{len(rep.failing)} claim(s) with a failing check: {', '.join(rep.failing)}")


def write(rep: Report, out_md: Path, out_html: Path | None) -> list[Path]:
    """Write the Markdown (and the HTML unless ``out_html`` is None), each atomically; return the paths written.

    Parameters
    ----------
    rep : Report
    out_md : pathlib.Path
    out_html : pathlib.Path or None

    Returns
    -------
    list of pathlib.Path

    Examples
    --------
    >>> from spec.registry import Claim
    >>> from spec.report import CheckRun, Report, Row, stamp
    >>> claim = Claim("nock2015.eq7", "Section 2, eq. (7)", "bound", "a bound", "loose", finding="Not tight.",
    ...               severity="loose")
    >>> rep = Report(stamp(), [Row(claim, None, None, [], "no check", False)], CheckRun(False, reason="an example"),
    ...              problems=[], grading=[])
    >>> import tempfile
    >>> from pathlib import Path
    >>> from spec.report import write
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = write(rep, Path(tmp) / "claims.md", Path(tmp) / "index.html")
    ...     [p.name for p in paths], paths[1].read_text().startswith("<!DOCTYPE html>")
    (['claims.md', 'index.html'], True)
    """
    from spec import report_html

    _replace(out_md, markdown(rep, out_md))
    written = [out_md]
    if out_html is not None:
        _replace(out_html, report_html.render(rep, out_html))
        written.append(out_html)
    return written


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, then :func:`os.replace`): a reader, or a run
    killed mid-write, never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # as open() would create it (mkstemp makes it 0600)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class _Terminated(Exception):
    """SIGTERM (``timeout``, a CI cancel) while the report runs: unwinds like Ctrl-C, so the partial report is written
    and pytest stopped."""


def main(*, out: str | None = None, html: str | None = None, run: bool = True, include_slow: bool = False,
         echo=print, progress=None, quiet: bool = False) -> int:
    """Build, write and summarise the report (``python -m spec report``, ``privlearn report``).

    While the checks run, one progress line per claim whose checks have all finished goes to ``progress`` (standard
    error by default), and the Markdown is rewritten (atomically) about every 10 s with the claims finished so far,
    marked PARTIAL REPORT at its top: a run that is interrupted (Ctrl-C, SIGTERM) leaves that partial report. The
    complete Markdown and the HTML are written at the end.

    Parameters
    ----------
    out : str or None
        The Markdown path (default ``report/claims.md`` under the source root, or under the current directory for
        an installed package).
    html : str or None
        The HTML path (default ``index.html`` beside the Markdown).
    run, include_slow : bool
        As :func:`build`.
    echo : callable, default=print
        Receives the console lines.
    progress : callable or None, default=None
        Receives the progress lines (default: standard error).
    quiet : bool, default=False
        No progress lines.

    Returns
    -------
    int
        0 when every check run passed, every link holds and every claim keeps to its scope, else 1; 130 when
        interrupted (the partial report is left in place).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from spec.report import main
    >>> lines = []
    >>> with tempfile.TemporaryDirectory() as tmp:  # the registry alone (checks not run): a few seconds
    ...     code = main(out=str(Path(tmp) / "claims.md"), run=False, echo=lines.append)
    >>> code, lines[-1].startswith("note: --no-run")
    (0, True)
    """
    import signal
    import threading

    default_dir = (ROOT / "report") if source_tree() else (Path.cwd() / "report")
    out_md = Path(out) if out else default_dir / "claims.md"
    out_html = Path(html) if html else out_md.parent / "index.html"
    if quiet:
        progress = lambda line: None  # noqa: E731
    elif progress is None:
        progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731

    def on_partial(rep: Report) -> None:
        _replace(out_md, markdown(rep, out_md))

    def on_term(signum, frame):
        raise _Terminated(f"signal {signum}")

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, on_term) if main_thread else None
    try:
        rep = build(run=run, include_slow=include_slow, progress=progress, on_partial=on_partial)
    except (KeyboardInterrupt, _Terminated):
        echo(f"interrupted: {out_md} holds the partial report (marked PARTIAL REPORT)")
        return 130
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    written = write(rep, out_md, out_html)
    console(rep, written, echo=echo)
    if not rep.run.ran:
        echo(textwrap.fill(f"note: {rep.run.reason}", 100, subsequent_indent="  ", break_long_words=False))
    return 1 if (rep.failing or rep.problems or rep.scoping) else 0


# --------------------------------------------------------------------------- spec check


def _verdict(items: list[str], run: CheckRun, include_slow: bool) -> tuple[str, float, list[str]]:
    """One registered check's verdict from its items: (verdict, seconds, lines about its failing items)."""
    details = [run.details.get(k) or {"outcome": run.results[k], "seconds": 0.0, "reason": ""} for k in items]
    seconds = sum(d["seconds"] for d in details)
    failed = [(k, d) for k, d in zip(items, details) if d["outcome"] in ("failed", "xpassed")]
    outs = Counter(d["outcome"] for d in details)
    if failed:
        verdict = f"failed ({len(failed)} of {len(items)} items)" if len(items) > 1 else "failed"
        return verdict, seconds, [f"{k}: {d['outcome']}: {d['reason']}" for k, d in failed]
    if outs and set(outs) <= {"skipped"}:
        reasons = sorted({d["reason"] for d in details})
        return "skipped: " + "; ".join(reasons), seconds, []
    verdict = ", ".join(f"{v} {k}" for k, v in sorted(outs.items())) if len(items) > 1 else details[0]["outcome"]
    return verdict, seconds, []


def check(claim_ids: list[str], *, include_slow: bool = False, echo=print, pytest_args: tuple = ("-n0",)) -> int:
    """Run exactly the checks of the given claims and print each check's verdict (``python -m spec check``,
    ``privlearn check``).

    For each claim and each of its checks (the registry's ``checks`` and the ``@checks`` decorators): the claim id,
    the check's node id, its verdict (passed, failed with the failing items and their error, skipped with the reason)
    and its duration. A check marked ``slow`` runs only with ``include_slow``; without it, it is reported as
    ``skipped: slow (use --slow)``, never dropped. pytest runs once, in one subprocess, in the given order
    (``-p no:randomly``, ``-n0`` by default).

    Parameters
    ----------
    claim_ids : list of str
        Registered claim ids (``python -m spec coverage`` lists them; so does the report).
    include_slow : bool, default=False
        Run the checks marked ``slow`` as well.
    echo : callable, default=print
        Receives the lines.
    pytest_args : tuple of str, default=("-n0",)
        More pytest options.

    Returns
    -------
    int
        0 when no check failed, 1 when one did (or its file did not collect, or a registered check is not on disk),
        2 for an unknown claim id (the closest ids are suggested) or no checks on disk (an installed package).

    Examples
    --------
    >>> from spec.report import check
    >>> lines = []
    >>> check(["nock2015.lema2"], echo=lines.append)
    2
    >>> lines[0].startswith("unknown claim id 'nock2015.lema2'; closest: nock2015.lemma2")
    True
    """
    import difflib

    cov = coverage(import_targets=False, verify_checks=source_tree())
    unknown = [cid for cid in claim_ids if cid not in cov.claims]
    if unknown:
        for cid in unknown:
            close = difflib.get_close_matches(cid, list(cov.claims), n=5, cutoff=0.6)
            close += [c for c in cov.claims if c.startswith(cid) and c not in close][:5]
            echo(f"unknown claim id {cid!r}" + (f"; closest: {', '.join(close)}" if close else ""))
        return 2
    if not source_tree():
        echo("installed package: the checks (tests/, proofs_checks/) are not shipped; run `python -m spec check` "
             "from a source checkout")
        return 2
    wanted = list(dict.fromkeys(claim_ids))
    pairs = [(cid, n) for cid in wanted for n in cov.checks_of[cid]]
    missing = {n for _, n in pairs if not _check_exists(n)}
    nodeids = [n for _, n in pairs if n not in missing]
    run = CheckRun(True)
    if nodeids:
        run = run_checks(nodeids, include_slow, progress=lambda line: None,
                         pytest_args=("-p", "no:randomly", *pytest_args))
    width = max((len(n) for _, n in pairs), default=0)
    failed = bad = 0
    counts: Counter = Counter()
    for cid in wanted:
        claim = cov.claims[cid]
        if not cov.checks_of[cid]:
            echo(f"{cid}: no check (status {claim.status})")
            continue
        for n in cov.checks_of[cid]:
            notes: list[str] = []
            seconds = 0.0
            if n in missing:
                verdict = "missing: the registered check is not on disk"
                bad += 1
            else:
                items = _items_of(n, run.results)
                slow = [k for k, is_slow in run.deselected.items() if is_slow and k in _items_of(n, run.deselected)]
                errors = [f"{k}: {r}" for k, r in run.errors.items() if k == n.split("::")[0] or n.startswith(k + "::")]
                if items:
                    verdict, seconds, notes = _verdict(items, run, include_slow)
                    if slow:
                        verdict += f"; {len(slow)} more item(s) skipped: slow (use --slow)"
                elif slow:
                    verdict = "skipped: slow (use --slow)"
                elif errors:
                    verdict, notes = "failed: collection error", errors
                else:
                    verdict = "not run: pytest collected no item (deselected by a marker?)"
                    bad += 1
            kind = next((w for w in ("failed", "skipped", "missing", "not run") if verdict.startswith(w)), "passed")
            counts[kind] += 1
            failed += kind == "failed"
            echo(f"{cid}  {n:{width}s}  {verdict}  ({seconds:.2f} s)")
            for note in notes:
                echo(f"    {note}")
    echo(f"{len(pairs)} check(s) of {len(wanted)} claim(s): " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
         + (f"; pytest: {run.pytest_line}" if run.pytest_line else ""))
    return 1 if (failed or bad) else 0
