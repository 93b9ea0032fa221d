"""The auditor's report (``python -m spec report`` / ``privlearn report``): graded findings, stamped Markdown and HTML,
links from each claim to its code and checks, a console that never cuts a word, the installed-package mode, and the
HTML rendered by a real headless browser (Chromium)."""
from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spec import report
from spec.registry import ROOT, coverage, grading_problems, load_claims


@pytest.fixture(scope="module")
def built():
    """One report built from the registry (checks not run: the suite runs them itself)."""
    return report.build(run=False)


@pytest.fixture(scope="module")
def written(built, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    paths = report.write(built, out / "claims.md", out / "index.html")
    return built, paths[0], paths[1]


def test_every_finding_is_graded():
    """Every false / loose claim has a severity consistent with its status (a loose claim is not an error, a false one
    is not loose); every privacy finding says whether it leaks."""
    claims = load_claims()
    assert not grading_problems(claims), "\n".join(grading_problems(claims))
    findings = [c for c in claims.values() if c.status in ("false", "loose")]
    assert findings and all(c.severity in ("misprint", "error", "loose") for c in findings)
    assert all(c.severity in ("error", "misprint") for c in findings if c.status == "false")
    assert all(c.severity in ("loose", "misprint") for c in findings if c.status == "loose")


def test_grading_problems_refuses_a_severity_against_the_status():
    """status loose (true, not tight) graded error (false as meant), or status false graded loose, is inconsistent."""
    from spec.registry import Claim

    def claim(status, severity):
        return Claim(f"bun2020.{status}_{severity}", "s", "bound", "s", status, finding="f", severity=severity,
                     source="t.toml")

    bad = {c.id: c for c in (claim("loose", "error"), claim("false", "loose"))}
    problems = grading_problems(bad)
    assert len(problems) == 2
    assert "bun2020.loose_error: status 'loose'" in problems[0] and "severity 'error'" in problems[0]
    assert "bun2020.false_loose: status 'false'" in problems[1] and "severity 'loose'" in problems[1]
    good = {c.id: c for c in (claim("loose", "loose"), claim("false", "error"), claim("false", "misprint"),
                              claim("loose", "misprint"))}
    assert grading_problems(good) == []


def test_grading_problems_catches_ungraded_findings():
    from spec.registry import Claim

    bad = {"x.y": Claim("nock2015.x", "s", "privacy", "s", "false", finding="f", source="t.toml")}
    problems = grading_problems(bad)
    assert any("needs a severity" in p for p in problems) and any("privacy_impact" in p for p in problems)
    ok = {"x.y": Claim("nock2015.x", "s", "privacy", "s", "false", finding="f", severity="error",
                       privacy_impact="leaks", source="t.toml")}
    assert grading_problems(ok) == []


def test_markdown_is_stamped_and_puts_findings_first(written):
    rep, md_path, _ = written
    md = md_path.read_text()
    st = rep.stamp
    assert st["commit"] in md and st["date"] in md and st["python"] in md
    for name in ("numpy", "scipy", "privlearn"):
        assert f"{name} {st['packages'][name]}" in md
    if (ROOT / ".git").exists():
        assert re.fullmatch(r"[0-9a-f]{40}", st["commit"])  # HEAD when built (others may commit meanwhile)
        is_ancestor = subprocess.run(["git", "merge-base", "--is-ancestor", st["commit"], "HEAD"], cwd=ROOT)
        assert is_ancestor.returncode == 0
    findings_at = md.index("## Findings")
    assert all(md.index(f"## {p}: every claim") > findings_at for p in ("nock2015", "kusner2016"))
    for claim in load_claims().values():
        assert f"`{claim.id}`" in md
        if claim.status in ("false", "loose"):
            assert f"### `{claim.id}`" in md
    assert "How to read it" in md and "extracted from PDFs" in md
    # the papers' findings first, then the library's; within each, most severe first: every error before every
    # misprint before every loose
    scopes = [r.claim.scope == "library" for r in rep.findings]
    assert scopes == sorted(scopes) and any(scopes) and not all(scopes)
    for part in (False, True):
        order = [r.claim.severity for r in rep.findings if (r.claim.scope == "library") == part]
        assert order == sorted(order, key=lambda s: report.SEVERITY_ORDER[s])


def test_report_and_findings_doc_show_each_claims_scope(written):
    """Issue 27: every finding in the Markdown, the HTML and docs/findings.md states its scope; the papers' findings
    come before the library's own in the report, and docs/findings.md lists every library entry (with its code and
    related claims) in a section of its own, after the papers', never inside a paper's section."""
    from spec.registry import coverage

    rep, md_path, html_path = written
    md = md_path.read_text()
    page = html_path.read_text()
    against, about = md.index("### Against the papers"), md.index("### About this library's code")
    assert against < about
    for r in rep.findings:
        c = r.claim
        head = f"### `{c.id}` ({c.where}): {c.status}, severity {c.severity}, scope {c.scope}"
        assert head in md, head
        assert (md.index(head) > about) == (c.scope == "library")
        row = page[page.index(f'<td id="{c.id}"'):]
        row = row[:row.index("</tr>")]
        assert f'<span class="badge c-{c.scope}">{c.scope}</span>' in row
    assert "## library: every claim (scope library" in md and 'id="paper-library"' in page
    doc = report.findings_markdown(coverage(import_targets=False))
    lib_at = doc.index("## library: statements about this library's code (scope library)")
    notes_at = doc.index("## Claims that hold, with a note")
    for c in load_claims().values():
        if c.scope == "library":
            at = doc.index(f"### `{c.id}`: ")
            assert lib_at < at < notes_at and f"scope library" in doc[at:at + 200]
            assert "- Code: " + ", ".join(f"`{t}`" for t in c.code) in doc[at:]
        elif c.status in ("false", "loose"):
            at = doc.index(f"### `{c.id}` (")
            assert at < lib_at and f", scope {c.scope}" in doc[at:doc.index("\n", at)]
    assert (ROOT / "docs" / "findings.md").read_text() == doc  # the committed doc is the generator's output


def test_coverage_fails_on_a_scope_problem(monkeypatch, capsys):
    """`python -m spec coverage` exits 1 when a claim breaks its scope, and says which (a paper finding that speaks
    about this library's grid is an error an auditor would cite against the paper)."""
    from spec import registry
    from spec.__main__ import main

    assert main(["coverage"]) == 0
    capsys.readouterr()
    real = registry.scope_problems
    monkeypatch.setattr(registry, "scope_problems", lambda claims: real(claims) + [
        'spec/claims.d/bun2020.toml: bun2020.thm25: a paper-scoped claim speaks about the library ("library\'s")'])
    assert main(["coverage"]) == 1
    assert "bun2020.thm25: a paper-scoped claim speaks about the library" in capsys.readouterr().out


def test_each_claim_links_to_its_reference_fast_and_checks(written):
    rep, md_path, _ = written
    md = md_path.read_text()
    linked = 0
    for row in rep.rows:
        for link in (row.reference, row.fast):
            if link is None:
                continue
            assert not link.error, link
            src = (ROOT / link.path).read_text().splitlines()
            name = link.target.split(":")[1].split(".")[-1]
            window = "\n".join(src[link.line - 1:link.line + 12])
            assert re.search(rf"(def|class) {re.escape(name)}\b", window), (link, window)
            assert f"[`{link.target}`](" in md and f"#L{link.line})" in md
            linked += 1
        for nodeid, _ in row.checks:
            assert f"`{nodeid}`" in md
            link = report.check_link(nodeid)
            assert link is not None, nodeid  # every registered check is on disk in a source checkout
            line = (ROOT / link.path).read_text().splitlines()[link.line - 1]
            assert re.match(rf"\s*(async )?def {re.escape(nodeid.split('[')[0].split('::')[-1])}\(", line), line
            assert f"[`{nodeid}`](" in md and f"{Path(link.path).as_posix()}#L{link.line})" in md
    assert linked > 100


def test_console_never_cuts_a_word_and_explains_counts(built):
    lines: list[str] = []
    report.console(built, [Path("report/claims.md")], width=90, echo=lines.append)
    text = "\n".join(lines)
    assert "a claim counts once" in text
    by_id = {r.claim.id: r.claim for r in built.findings}
    current = None
    for line in text.splitlines():
        if not re.match(r"^(paper|all|nock|bun|kusner|winvector|library)", line):  # the status table is fixed-width
            assert len(line) <= 90 or " " not in line.strip(), line
        m = re.match(r"^  (\S+)  \[", line)
        if m and m.group(1) in by_id:
            current = by_id[m.group(1)]
            continue
        if current is not None and line.startswith("      "):
            words = set((current.finding + " " + current.privacy_impact).split())
            for token in line.split():
                assert token in words or token in ("[...]", "privacy:"), (current.id, token)
    assert current is not None


def test_first_sentences_respects_words_and_abbreviations():
    text = "Alg. 4 as printed leaks (e.g. at eps = 0.1; delta = 1e-3). The fix is simple. " + "word " * 80
    short = report._first_sentences(text, 90)
    assert short.startswith("Alg. 4 as printed leaks (e.g. at eps = 0.1; delta = 1e-3).")
    assert short.endswith(" [...]")
    long_sentence = "x" * 5 + " " + "abcdefgh " * 50
    cut = report._first_sentences(long_sentence, 100)
    assert cut.endswith("abcdefgh [...]")


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch in "([{") - (ch in ")]}")
        if depth < 0:
            return False
    return depth == 0 and text.count("`") % 2 == 0


def test_console_never_cuts_inside_a_formula(built):
    """kusner2016.ch4.dist_lb's privacy impact was cut as 'delta e^{eps [...]' (inside a brace, between two symbols of
    one formula): a cut lands only between two words of prose, outside every bracket, brace and `code` span."""
    row = next(r for r in built.findings if r.claim.id == "kusner2016.ch4.dist_lb")
    impact = report._first_sentences(row.claim.privacy_impact, 200)
    assert impact.endswith(" [...]") and _balanced(impact[:-6]), impact
    assert "e^{eps" not in impact and not impact[:-6].rstrip().endswith("delta")
    lines: list[str] = []
    report.console(built, [], width=90, echo=lines.append)
    text = "\n".join(lines)
    block = text[text.index("  kusner2016.ch4.dist_lb  ["):].split("\n  ", 2)[1]
    assert "e^{eps [...]" not in block and "delta e^{eps d_printed}/2" not in block.replace("\n      ", " ")
    # every cut excerpt in the console, of every finding, is balanced and ends on a word of prose
    for r in built.findings:
        for text_, limit in ((r.claim.finding, 240), (r.claim.privacy_impact, 200)):
            short = report._first_sentences(text_, limit)
            if short.endswith(" [...]"):
                kept = short[:-6]
                assert " ".join(text_.split()).startswith(kept), r.claim.id
                assert _balanced(kept), (r.claim.id, kept[-80:])
                last = kept.split()[-1]
                assert kept.endswith((".", ";")) or report._plain_word(last), (r.claim.id, last)


def test_cut_points_refuse_formulas():
    text = "so it releases with probability delta e^{eps d}/2 and m delta grows (at eps = 1) as `x y` shows here"
    cuts = {text[:p].split()[-1] + "|" + text[p + 1:].split()[0] for p in report._cut_points(text)}
    assert "it|releases" in cuts and "with|probability" in cuts and "as|`x" not in cuts
    for bad in ("probability|delta", "delta|e^{eps", "m|delta", "delta|grows", "at|eps", "y`|shows"):
        assert bad not in cuts, bad
    whole = "(" + " ".join(["word"] * 100) + ")"
    assert report._first_sentences(whole, 50) == whole  # no safe cut: the text whole, never cut inside


def test_console_in_installed_mode_prints_the_stamp_whole(built, monkeypatch):
    """From an installed wheel there is no git checkout: the stamp's commit is a sentence, printed whole (it was sliced
    to 'unknown (not,'), and the first line of the console is the header, not a blank line."""
    monkeypatch.setattr(report, "_git", lambda *args: "")
    monkeypatch.setattr(report, "source_tree", lambda: False)
    st = report.stamp()
    assert st["commit"] == "unknown (not a git checkout)" and st["mode"] == "installed package"
    rep = dataclasses.replace(built, stamp=st)
    lines: list[str] = []
    report.console(rep, [], width=100, echo=lines.append)
    assert lines[0].startswith("privlearn claim report -- commit unknown (not a git checkout),"), lines[:2]
    assert "(not," not in " ".join(lines)
    from spec import report_html

    page = report_html.render(rep, Path("report/index.html"))
    assert "<title>privlearn claim report (unknown (not a git checkout))</title>" in page
    assert report.short_commit("a" * 40) == "a" * 12
    assert report.short_commit(built.stamp["commit"]) in built.stamp["commit"]


def test_count_explanation_distinguishes_items_from_claim_outcomes(built):
    rows = built.rows
    nodeid = rows[0].checks[0][0] if rows[0].checks else "tests/t.py::test_a"
    fake = report.CheckRun(True, results={f"{nodeid}[1]": "passed", f"{nodeid}[2]": "passed"}, pytest_line="2 passed",
                           nodeids=1, seconds=1.0)
    rep = report.Report(built.stamp, [report.Row(r.claim, r.reference, r.fast, [(nodeid, ["passed", "passed"])] * 2,
                                                 "", False) for r in rows[:1]], fake, [], [])
    text = " ".join(rep.count_explanation())
    assert "1 distinct registered checks" in text and "2 test items" in text
    assert "4 outcomes" in text and "once for every claim it checks" in text


def test_html_is_self_contained_and_complete(written):
    rep, _, html_path = written
    page = html_path.read_text()
    assert "<script src" not in page and "<link " not in page and "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert rep.stamp["commit"] in page and rep.stamp["python"] in page
    for r in rep.findings:
        assert f'id="{r.claim.id}"' in page
    assert page.count("<svg") == len(rep.plots) >= 3
    assert page.index("Findings (false or loose)") < page.index('id="paper-nock2015"')


def test_dp_feat_plot_shows_the_cube_root_curve_fall(built):
    """nock2015.thm6's plot: at eps = m^(-1/3) m delta peaks at m = 1e5 and falls after it (the plot stopped at the
    peak, so the curve seemed to keep rising: the argument the finding withdrew); at eps = 100/m it keeps growing."""
    from fast import dp_rados

    plot = next(p for p in built.plots if p.claim_id == "nock2015.thm6")
    (_, xs_c, ys_c), (_, xs_r, ys_r) = plot.series
    assert ys_c == sorted(ys_c) and xs_c[-1] >= 1_000_000  # eps = c/m: m delta rises all the way
    cube = dict(zip(xs_r, ys_r))
    peak = max(cube, key=cube.get)
    assert peak == 100_000 and max(cube) > peak and 1_000_000 in cube
    assert cube[1_000_000] < 0.6 * cube[100_000] and min(cube[m] for m in cube if m > peak) < 0.1 * cube[peak]
    assert cube[100_000] == pytest.approx(65.9, abs=0.05) and cube[1_000_000] == pytest.approx(35.7, abs=0.05)
    m = 1000  # one live point re-derived here
    assert cube[m] == pytest.approx(m * dp_rados.dp_feat_delta(m, m // 2, m ** (-1 / 3)), rel=1e-12)
    assert "falls" in plot.note


@pytest.mark.slow
def test_dp_feat_tabled_values_are_exact():
    """The tabled m * delta at eps = m^(-1/3) beyond 10^6 (too slow to compute at report time) is what
    fast.dp_rados.dp_feat_delta gives (about 17 s at m = 10^7)."""
    from fast import dp_rados
    from spec.report_plots import DP_FEAT_CUBE_ROOT_TABLE

    for m, value in DP_FEAT_CUBE_ROOT_TABLE.items():
        assert m * dp_rados.dp_feat_delta(m, m // 2, m ** (-1 / 3)) == pytest.approx(value, rel=1e-9)


def test_coverage_in_installed_mode_checks_what_ships(monkeypatch, capsys):
    """From a wheel (no tests/ or proofs_checks/) `python -m spec coverage` said ~330 times 'registered check ... does
    not exist' and exited 1: it now names the unshipped check files, verifies the shipped links and exits 0."""
    from spec.__main__ import main

    monkeypatch.setattr(report, "source_tree", lambda: False)
    assert main(["coverage"]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())  # the text is wrapped, and where depends on the length of the checkout's path
    assert out.startswith("installed package") and "the checks are not shipped" in flat
    assert "does not exist" not in out and "broken links" not in out and "claims with no check:" not in out
    files = {n.split("::")[0] for c in load_claims().values() for n in c.checks}
    assert files and all(f in out for f in files)


@pytest.mark.slow
@pytest.mark.ci
def test_installed_package_mode(tmp_path):
    """What a wheel ships (the three packages and the registry as package data, no tests/ or proofs_checks/): the
    report runs from any directory, writes ./report/, says plainly that the checks are not shipped, and verifies the
    code links (each target imports and carries @implements)."""
    site = tmp_path / "site"
    for pkg in ("reference", "fast", "spec"):
        shutil.copytree(ROOT / pkg, site / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    work = tmp_path / "work"
    work.mkdir()
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONWARNINGS": "ignore"}
    out = subprocess.run([sys.executable, "-c", "import sys; from spec.__main__ import main; sys.exit(main(['report']))"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=300)
    expected = 1 if coverage(verify_checks=False).problems else 0
    assert out.returncode == expected, out.stdout[-3000:] + out.stderr[-3000:]
    assert "installed package" in out.stdout and "checks (tests/, proofs_checks/)" in out.stdout
    first = out.stdout.splitlines()[0]
    assert first.startswith("privlearn claim report -- commit unknown (not a git checkout),"), out.stdout[:300]
    md = (work / "report" / "claims.md").read_text()
    assert "Mode: installed package" in md and "Checks not run" in md
    assert (work / "report" / "index.html").is_file()
    cov = subprocess.run([sys.executable, "-m", "spec", "coverage"], cwd=work, env=env, capture_output=True,
                         text=True, timeout=300)
    assert cov.returncode == expected, cov.stdout[-3000:] + cov.stderr[-3000:]
    said = " ".join(cov.stdout.split())  # the console wraps at its width: a longer tmp path moves the breaks
    assert "the checks are not shipped" in said and "does not exist" not in said


def test_every_experiment_plot_is_linked():
    """Every committed plot under docs/experiments/ is linked (Markdown link or image) from a Markdown file of its own
    directory, so a reader of the experiment's page finds it (committed: a plot being made is not yet held to it)."""
    listed = subprocess.run(["git", "ls-files", "docs/experiments"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0:
        plots = sorted(ROOT / p for p in listed.stdout.split() if p.endswith(".png") and (ROOT / p).is_file())
    else:  # not a git checkout
        plots = sorted((ROOT / "docs" / "experiments").rglob("*.png"))
    assert len(plots) >= 7
    unlinked = []
    for png in plots:
        pages = " ".join(md.read_text() for md in png.parent.glob("*.md"))
        if not re.search(rf"\]\((\./)?{re.escape(png.name)}\)", pages):
            unlinked.append(str(png.relative_to(ROOT)))
    assert not unlinked, unlinked


CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def _chromium(tmp_path, *args, timeout=120):
    profile = tmp_path / "chromium-profile"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y chromium)")
def test_html_renders_in_headless_chromium(written, tmp_path):
    """A real browser parses the page, runs its script (body data-ready = number of sortable tables), sorts a table
    from the URL hash, and paints a non-blank screenshot."""
    rep, _, html_path = written
    url = html_path.resolve().as_uri()
    dom = _chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", url + "#sort=1,0")
    assert dom.returncode == 0, dom.stderr[-2000:]
    page = dom.stdout
    n_tables = 2 + len({r.claim.paper for r in rep.rows})  # counts, findings, one per paper
    assert f'data-ready="{n_tables}"' in page, page[:500]
    assert f"{n_tables} sortable tables" in page
    assert page.count("<svg") >= 3
    # the findings table (table 1) was sorted by claim id, ascending, by the page's own script
    findings = page[page.index("Findings (false or loose), most severe"):page.index('id="paper-')]
    ids = re.findall(r'<td id="([^"]+)" data-sort="[^"]*"><code>', findings)
    assert len(ids) == len(rep.findings) and ids == sorted(ids, key=str.lower)
    assert ids != [r.claim.id for r in rep.findings]  # it was not in that order before the sort
    shot = tmp_path / "shot.png"
    painted = _chromium(tmp_path, "--window-size=1200,1600", f"--screenshot={shot}", url)
    assert painted.returncode == 0 and shot.is_file(), painted.stderr[-2000:]
    PIL = pytest.importorskip("PIL.Image")
    with PIL.open(shot) as img:
        colors = img.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colors is not None and len(colors) > 50  # text, badges and plots, not a blank page


@pytest.mark.slow
@pytest.mark.ci
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y chromium)")
def test_html_fits_a_1400_pixel_window(written, tmp_path):
    """At 1400 px the page does not scroll sideways (issue 28 item 7: the claim tables were 1,733 px wide, long
    unbreakable check ids and dotted paths folded in the last column): long code may break anywhere in a cell."""
    _, _, html_path = written
    probe = tmp_path / "probe.html"
    script = ("<script>window.addEventListener('load', function(){document.body.setAttribute('data-width', "
              "String(document.documentElement.scrollWidth));});</script>")
    probe.write_text(html_path.read_text(encoding="utf-8").replace("</body>", script + "</body>"), encoding="utf-8")
    dom = _chromium(tmp_path, "--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    width = re.search(r'data-width="(\d+)"', dom.stdout)
    assert width is not None, dom.stdout[:500]
    assert int(width.group(1)) <= 1400


def test_report_no_run_takes_seconds_of_cpu(tmp_path):
    """``python -m spec report --no-run`` (registry, links, Markdown and HTML) uses a few seconds of CPU. Before, the
    report parsed a check's whole file anew for every link it drew (1668 ast.parse calls): 17 s of CPU here, 62 s of
    wall time on a loaded machine; now each file is parsed once (about 4.5 s of CPU). The bound is CPU time (the
    child's user + system), so that other jobs on the machine do not move it."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-m", "spec", "report", "--no-run", "--out", str(tmp_path / "claims.md")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert (tmp_path / "claims.md").is_file() and (tmp_path / "index.html").is_file()
    assert cpu < 10, f"--no-run used {cpu:.1f} s of CPU"


def test_report_files_are_written_atomically_with_the_usual_mode(tmp_path):
    """The report's files are replaced atomically (a temporary file, then os.replace) yet keep the mode a plain write
    gives (0666 less the umask): a temporary file from mkstemp is 0600, which made report/claims.md unreadable to
    the other users of a shared checkout. No temporary file is left behind."""
    import os

    umask = os.umask(0)
    os.umask(umask)
    target = tmp_path / "sub" / "claims.md"
    report._replace(target, "one\n")
    report._replace(target, "two\n")
    assert target.read_text() == "two\n"
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert [p.name for p in target.parent.iterdir()] == ["claims.md"]


def _fake_run(k: int, interrupt: bool):
    """A stand-in for :func:`spec.report.run_checks` that reports the checks of the first ``k`` claims (one item per
    node id, passed) through ``on_update``, then raises KeyboardInterrupt (``interrupt``) or returns. Returns it, the
    claims whose checks have then all finished (the first ``k`` and any other whose checks are among theirs: a check
    may check several claims) and every claim with checks."""
    cov = coverage(import_targets=False)
    claims = [cid for cid, ids in cov.checks_of.items() if ids and all(report._check_exists(n) for n in ids)]
    first = claims[:k]
    ran = {n for cid in first for n in cov.checks_of[cid]}
    done = [cid for cid in claims if set(cov.checks_of[cid]) <= ran]

    def fake(nodeids, include_slow, *, progress=print, on_update=None, pytest_args=()):
        state = report.CheckRun(True, nodeids=len(set(nodeids)), collected=list(dict.fromkeys(nodeids)))
        for cid in first:
            for n in cov.checks_of[cid]:
                state.results[n] = "passed"
                state.details[n] = {"outcome": "passed", "seconds": 0.1, "reason": ""}
            if on_update is not None:
                on_update(state)
        if interrupt:
            raise KeyboardInterrupt
        state.results.update({n: "passed" for n in nodeids})
        return state

    return fake, done, claims


def test_interrupted_report_leaves_a_partial_report_marked_partial(monkeypatch, tmp_path):
    """A run interrupted after the checks of 3 claims finished leaves report/claims.md: a valid report whose top says
    PARTIAL REPORT and INTERRUPTED, the claims whose checks finished with their evidence, every other claim with checks 'pending'.
    Before, nothing was written until the end: an interrupted run left no file (or the previous run's)."""
    fake, done, claims = _fake_run(3, interrupt=True)
    monkeypatch.setattr(report, "run_checks", fake)
    out = tmp_path / "claims.md"
    lines = []
    try:
        code = report.main(out=str(out), echo=lines.append, progress=lines.append)
    except KeyboardInterrupt:  # the old code let it through
        code = "KeyboardInterrupt"
    assert code == 130
    md = out.read_text()
    assert md.startswith("# privlearn claim report\n")
    head = md[:2000]
    assert "**PARTIAL REPORT: INTERRUPTED" in head and f"the checks of {len(done)} of the {len(claims)} claims" in head
    rows = {line.split("|")[1].strip(" `"): line for line in md.splitlines() if line.startswith("| `")}
    assert len(done) >= 3
    for cid in done:
        assert "passed" in rows[cid] and "pending" not in rows[cid], rows[cid]
    pending = [cid for cid in claims if cid not in done]
    assert all("pending: checks not finished" in rows[cid] for cid in pending)
    assert not (tmp_path / "index.html").exists()  # the HTML is written only for a complete run
    assert any("interrupted" in line and str(out) in line for line in lines)


def test_report_prints_progress_per_claim_and_ends_complete(monkeypatch, tmp_path):
    """While the checks run, one line per claim whose checks have all finished: items done / total, claims done /
    total, and the claim id; the final Markdown is complete (no PARTIAL mark, no pending claim). Before, the report
    printed one line before pytest and nothing until the end."""
    fake, done, claims = _fake_run(4, interrupt=False)
    monkeypatch.setattr(report, "run_checks", fake)
    progress, echo = [], []
    code = report.main(out=str(tmp_path / "claims.md"), echo=echo.append, progress=progress.append)
    assert code == 0
    claim_lines = [line for line in progress if line.startswith("[")]
    assert len(claim_lines) == len(done) >= 4
    for i, (cid, line) in enumerate(zip(done, claim_lines), start=1):
        assert re.match(rf"\[\s*\d+/\d+ items,\s+{i}/{len(claims)} claims,\s+\d+ s\] {re.escape(cid)}: \d+ passed$",
                        line), line
    md = (tmp_path / "claims.md").read_text()
    assert "PARTIAL REPORT" not in md and "pending: checks not finished" not in md
    quiet = []
    monkeypatch.setattr(report, "run_checks", _fake_run(2, interrupt=False)[0])
    report.main(out=str(tmp_path / "q.md"), echo=quiet.append, quiet=True)
    assert not any(line.startswith("[") for line in quiet)
