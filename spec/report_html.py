"""The report as one self-contained HTML page (inline CSS, JS and SVG; nothing fetched from the network).

Layout: stamp and how-to-read; counts; plots of printed bounds against exact values; the findings table (every
false / loose claim of every paper, most severe first); then one table per paper with every claim, findings first.
Every table sorts on a click on its header and the page has a text filter; the script marks ``<body
data-ready="N">`` with the number of sortable tables once it has run (the browser test reads it).
"""
from __future__ import annotations

import html
from pathlib import Path

from spec.registry import GROUPS, LIBRARY, SEVERITIES, STATUSES
from spec.report import short_commit

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;
color:#222;line-height:1.35}
h1{margin-bottom:.2em} h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;width:100%;font-size:13px;margin:.6em 0}
th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}
td{overflow-wrap:break-word} td code,td a{overflow-wrap:anywhere}
th{background:#eef2f7;cursor:pointer;user-select:none;position:sticky;top:0}
th.sorted-asc::after{content:" \\25B2"} th.sorted-desc::after{content:" \\25BC"}
tr:nth-child(even) td{background:#fafafa}
code{font-size:12px;background:#f3f3f3;padding:0 2px;border-radius:2px}
.badge{display:inline-block;padding:1px 6px;border-radius:9px;font-size:12px;font-weight:600;white-space:nowrap}
.s-false{background:#f5b7b1}.s-loose{background:#fad7a0}.s-holds{background:#abebc6}
.s-not-checkable{background:#d6dbdf}.s-unchecked{background:#f9e79f}
.v-error{background:#c0392b;color:#fff}.v-misprint{background:#5dade2;color:#fff}.v-loose{background:#f0b27a}
.c-paper{background:#d5dbdb}.c-library{background:#d2b4de}.c-extraction{background:#fdebd0}
.failed{background:#c0392b;color:#fff}
.meta{font-size:13px;color:#444} .meta li{margin:.1em 0}
.impact{background:#fdedec;border-left:3px solid #c0392b;padding:2px 6px;margin-top:4px}
details summary{cursor:pointer;color:#2471a3}
.plots{display:flex;flex-wrap:wrap;gap:18px} .plots figure{margin:0}
.plots figcaption{font-size:12px;max-width:560px}
#filter{font-size:14px;padding:4px 8px;width:28em}
.small{font-size:12px;color:#555}
"""

JS = r"""
(function(){
  function key(cell){
    var v = cell.getAttribute('data-sort'); if (v === null) v = cell.textContent.trim();
    var n = parseFloat(v); return (!isNaN(n) && /^-?[0-9.eE+-]+$/.test(v)) ? n : v.toLowerCase();
  }
  var tables = document.querySelectorAll('table.sortable');
  tables.forEach(function(table){
    var heads = table.querySelectorAll('thead th');
    heads.forEach(function(th, col){
      th.addEventListener('click', function(){
        var asc = !th.classList.contains('sorted-asc');
        heads.forEach(function(h){h.classList.remove('sorted-asc','sorted-desc');});
        th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function(a, b){
          var x = key(a.cells[col]), y = key(b.cells[col]);
          if (x < y) return asc ? -1 : 1; if (x > y) return asc ? 1 : -1; return 0;
        });
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
  });
  var box = document.getElementById('filter');
  if (box) box.addEventListener('input', function(){
    var q = box.value.toLowerCase();
    document.querySelectorAll('table.sortable tbody tr').forEach(function(tr){
      tr.style.display = tr.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none';
    });
  });
  var m = /^#sort=(\d+),(\d+)$/.exec(window.location.hash);  // a link (and the browser test) can pre-sort a table
  if (m && tables[+m[1]]) { var th = tables[+m[1]].querySelectorAll('thead th')[+m[2]]; if (th) th.click(); }
  document.body.setAttribute('data-ready', String(tables.length));
  var st = document.getElementById('js-status');
  if (st) st.textContent = tables.length + ' sortable tables (click a header to sort)';
})();
"""

E = html.escape


def _badge(kind: str, value: str) -> str:
    if not value:
        return "-"
    return f'<span class="badge {kind}-{E(value)}">{E(value)}</span>'


def _link(link, base: Path) -> str:
    from spec.report import _href

    if link is None:
        return "-"
    if link.error or not link.path:
        return f"<code>{E(link.target)}</code> <span class='small'>(not importable: {E(link.error)})</span>"
    return f'<a href="{E(_href(link, base))}"><code>{E(link.target)}</code></a>'


def _long(text: str, limit: int = 260) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return E(text)
    cut = text.rfind(" ", 0, limit)
    return f"<details><summary>{E(text[:cut])} ...</summary>{E(text)}</details>"


def _checks(row, base: Path) -> str:
    from spec.report import _href, check_link

    parts = []
    for nodeid, outs in row.checks:
        summary = ", ".join(f"{outs.count(o)} {o}" for o in sorted(set(outs))) or "not run"
        link = check_link(nodeid)
        name = f'<a href="{E(_href(link, base))}"><code>{E(nodeid)}</code></a>' if link else f"<code>{E(nodeid)}</code>"
        parts.append(f"{name} <span class='small'>({E(summary)})</span>")
    ev = f'<b class="{"failed badge" if row.check_failed else ""}">{E(row.evidence)}{" - CHECK FAILED" if row.check_failed else ""}</b>'
    if not parts:
        return ev
    return f"{ev}<details><summary>{len(parts)} check(s)</summary>{'<br>'.join(parts)}</details>"


def _row(r, base: Path, with_paper: bool) -> str:
    c = r.claim
    from spec.report import SEVERITY_ORDER, STATUS_ORDER

    finding = _long(c.finding) if c.finding else "-"
    if c.privacy_impact:
        finding += f'<div class="impact"><b>Privacy impact:</b> {_long(c.privacy_impact, 400)}</div>'
    if c.related:
        finding += ('<div class="small">Related: '
                    + ", ".join(f'<a href="#{E(x)}"><code>{E(x)}</code></a>' for x in c.related) + "</div>")
    cells = [f'<td id="{E(c.id)}" data-sort="{E(c.id.lower())}"><code>{E(c.id)}</code><div class="small">{E(c.where)}</div></td>']
    if with_paper:
        cells.append(f"<td>{E(c.paper)}</td>")
    cells += [
        f"<td>{E(c.kind)}</td>",
        f'<td data-sort="{STATUS_ORDER.get(c.status, 9)}">{_badge("s", c.status)}</td>',
        f'<td data-sort="{SEVERITY_ORDER.get(c.severity, 9)}">{_badge("v", c.severity)}</td>',
        f"<td>{_badge('c', c.scope)}</td>",
        f"<td>{_long(c.statement, 200)}</td>",
        f"<td>{finding}</td>",
        f"<td>{_code(r, base)}</td>",
        f"<td>{_checks(r, base)}</td>",
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def _code(r, base: Path) -> str:
    if r.claim.code:  # a library entry: the code it is about
        return "<br>".join(f"<code>{E(t)}</code>" for t in r.claim.code)
    return f"{_link(r.reference, base)}<br>{_link(r.fast, base)}"


def _table(rows, base: Path, with_paper: bool) -> str:
    heads = ["claim"] + (["paper"] if with_paper else []) + ["kind", "status", "severity", "scope", "statement",
                                                              "finding / privacy impact", "reference / fast / code",
                                                              "evidence"]
    head = "".join(f"<th>{h}</th>" for h in heads)
    body = "\n".join(_row(r, base, with_paper) for r in rows)
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>'


def _utility_link(base: Path) -> str:
    """The meta list's link to the utility benchmark (docs/utility.md: private classifiers against diffprivlib and
    non-private models), relative to the report's directory; empty where the docs are absent (an installed wheel)."""
    import os

    from spec.registry import ROOT

    doc = ROOT / "docs" / "utility.md"
    if not doc.is_file():
        return ""
    href = Path(os.path.relpath(doc, base)).as_posix()
    return (f'<li>Utility benchmark (test error and fit time of the private classifiers against diffprivlib and '
            f'non-private models): <a href="{E(href)}"><code>docs/utility.md</code></a></li>')


def render(rep, out: Path) -> str:
    from spec import report_plots
    from spec.report import HOW_TO_READ

    base = out.parent
    st = rep.stamp
    commit = st["commit"] + (" (with uncommitted changes)" if st["dirty"] else "")
    pk = ", ".join(f"{k} {v}" for k, v in st["packages"].items())
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>privlearn claim report ({E(short_commit(st['commit']))})</title><style>{CSS}</style></head>",
        '<body data-ready="0">',
        "<h1>privlearn claim report</h1>",
        '<ul class="meta">',
        f"<li>Commit: <code>{E(commit)}</code></li><li>Date: {E(st['date'])}</li>",
        f"<li>Python: {E(st['python'])} on {E(st['platform'])}</li><li>Packages: {E(pk)}</li>",
        f"<li>Mode: {E(st['mode'])} (<code>{E(st['root'])}</code>)</li>{_utility_link(base)}</ul>",
        '<p class="small" id="js-status">(JavaScript off: tables are not sortable)</p>',
        "<h2>How to read it</h2><ul>" + "".join(f"<li>{E(t)}</li>" for t in HOW_TO_READ) + "</ul>",
        "<h2>Counts</h2>",
    ]
    head = "".join(f"<th>{s}</th>" for s in STATUSES)
    trs = []
    for paper in GROUPS:
        c = rep.status_counts(paper)
        if sum(c.values()):
            trs.append(f'<tr><td><a href="#paper-{paper}">{paper}</a></td>'
                       + "".join(f"<td>{c.get(s, 0)}</td>" for s in STATUSES) + f"<td>{sum(c.values())}</td></tr>")
    c = rep.status_counts()
    trs.append("<tr><td><b>all</b></td>" + "".join(f"<td><b>{c.get(s, 0)}</b></td>" for s in STATUSES)
               + f"<td><b>{sum(c.values())}</b></td></tr>")
    parts.append(f'<table class="sortable" style="width:auto"><thead><tr><th>paper</th>{head}<th>total</th></tr></thead>'
                 f"<tbody>{''.join(trs)}</tbody></table>")
    sev = rep.severity_counts()
    parts.append(f"<p>Findings (false or loose): <b>{len(rep.findings)}</b>; by severity: "
                 + ", ".join(f"{_badge('v', s) if s != 'ungraded' else s} {sev.get(s, 0)}"
                             for s in (*SEVERITIES, "ungraded") if sev.get(s, 0)) + "</p>")
    parts.append("<ul>" + "".join(f"<li>{E(t)}</li>" for t in rep.count_explanation()) + "</ul>")
    if rep.failing:
        parts.append(f'<p class="failed badge">{len(rep.failing)} claim(s) with a failing check: '
                     f"{E(', '.join(rep.failing))}</p>")
    for title, items in (("Broken links", rep.problems),
                         ("Grading problems (ungraded, or a severity against the status)", rep.grading),
                         ("Scope problems (a claim's text about something other than its scope)", rep.scoping)):
        if items:
            parts.append(f'<details class="failed-list"><summary><b>{title}: {len(items)}</b></summary><ul>'
                         + "".join(f"<li>{E(p)}</li>" for p in items) + "</ul></details>")
    if rep.plots:
        parts.append("<h2>Printed bounds against exact values</h2><div class='plots'>")
        for p in rep.plots:
            parts.append(f'<figure>{report_plots.svg(p)}<figcaption><a href="#{E(p.claim_id)}"><code>{E(p.claim_id)}'
                         f"</code></a>: {E(p.note)}</figcaption></figure>")
        parts.append("</div>")
    parts.append('<h2>Findings (false or loose), most severe first</h2>'
                 '<p class="small">The papers\' findings (scope paper: what the paper prints; extraction: what the text '
                 "extraction lost) come first, then the library's own (scope library: what this library's code does, "
                 "ids library.&lt;module&gt;.&lt;label&gt;).</p>"
                 '<p><input id="filter" type="search" placeholder="filter every table (id, word, severity, scope ...)"></p>')
    parts.append(_table(rep.findings, base, with_paper=True))
    for paper in GROUPS:
        rows = [r for r in rep.rows if r.claim.paper == paper]
        if rows:
            what = " (scope library: what this library's code does)" if paper == LIBRARY else ""
            parts.append(f'<h2 id="paper-{paper}">{paper}: every claim ({len(rows)}){what}, findings first</h2>')
            parts.append(_table(rows, base, with_paper=False).replace('<td id="', '<td id="all-'))
    parts.append(f"<script>{JS}</script></body></html>")
    return "\n".join(parts)
