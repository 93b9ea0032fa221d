"""The claim registry: loading, validation, and the two-way links between claims, code and checks.

The registry is ``spec/claims.toml`` (nock2015 s2, s7 and nock2016 s2-3: the rados core) plus one file
per further topic in ``spec/claims.d/*.toml`` (RadoBoost, privacy, causal inference, ...).  All files
share one schema and one id space; an id registered twice is an error.  The split is only physical:
several people edit different topics at once, and one TOML file per topic keeps their edits apart.

Schema of one ``[[claim]]`` table::

    id         "nock2015.lemma2"             paper key + the paper's own label, lower case
    where      "Section 2, Lemma 2, eq. (3)"
    kind       definition | algorithm | identity | bound | probability | privacy | experiment | hardness
    statement  the claim in plain-text maths
    reference  "reference.rados:logistic_risk"   (optional) the readable implementation
    fast       "fast.rados:logistic_risk"        (optional) the production implementation
    checks     ["tests/test_rados.py::test_x", "proofs_checks/check_y.py::check_z"]  (optional)
    status     holds | loose | false | unchecked | not-checkable
    finding    what the checks found, with numbers; the reason when not-checkable
    no_implementation  (optional) why a definition/algorithm has no code
    severity   (optional; for status false / loose) misprint | error | loose
    privacy_impact  (optional; for privacy claims with a finding) does using the printed form leak, and how much
    scope      paper | library | extraction: what the finding is about (required on a false / loose claim;
               default "library" for a ``library.*`` id, else "paper").  A paper finding is about what the paper
               PRINTS; what this library's code does (its grid, its calibration, its defaults) is a ``library.*``
               entry; an extraction entry records what the PDF-to-text extraction lost (see :func:`scope_problems`)
    code       (library entries only, required there) ["fast.private_boosting:hsstl_rho", ...]: the code it is about
    related    (optional) ids of the claims it bears on (a library entry: the paper claims whose findings it explains)

Checks can also be attached in code with ``@checks("id")`` (:mod:`spec.links`); they are found by reading
the source with :mod:`ast`, so auditing the links imports nothing but the implementations.
"""
from __future__ import annotations

import ast
import functools
import importlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = Path(__file__).resolve().parent
PAPERS = ("nock2015", "nock2016", "bun2020", "winvector2015", "kusner2016")
#: the id prefix of the entries about this library's own code (``library.<module>.<label>``), not about a paper
LIBRARY = "library"
#: how the report groups the registry: one group per paper, then the library's own entries
GROUPS = PAPERS + (LIBRARY,)
#: what a finding is about: what the paper prints, what this library's code does, or what the text extraction lost
SCOPES = ("paper", "library", "extraction")
KINDS = (
    "definition",
    "algorithm",
    "identity",
    "bound",
    "probability",
    "privacy",
    "experiment",
    "hardness",
)
STATUSES = ("holds", "loose", "false", "unchecked", "not-checkable")
#: directories whose sources may carry @implements / @checks
CODE_DIRS = ("reference", "fast", "spec", "tests", "proofs_checks", "benchmarks")
CHECK_DIRS = ("tests", "proofs_checks")
#: the packages a library entry's ``code`` may name
CODE_PACKAGES = ("reference", "fast", "spec", "experiments")
ALLOWED_KEYS = {
    "id",
    "where",
    "kind",
    "statement",
    "reference",
    "fast",
    "checks",
    "status",
    "finding",
    "no_implementation",
    "severity",
    "privacy_impact",
    "scope",
    "code",
    "related",
}
#: how bad a finding is: a misprint (the evident intended form holds), an error (the claim is false as meant), or
#: loose (true, but the constant or bound is not tight)
SEVERITIES = ("misprint", "error", "loose")
REQUIRED_KEYS = ("id", "where", "kind", "statement", "status")


class RegistryError(ValueError):
    """The registry or a link to it is malformed.

    Examples
    --------
    >>> from spec.registry import RegistryError, resolve_target
    >>> try:
    ...     resolve_target("no colon here")
    ... except RegistryError as exc:
    ...     print(exc)
    target 'no colon here' must be 'module:function'
    """


@dataclass
class Claim:
    """One ``[[claim]]`` table of the registry (see the module docstring for the schema).

    Parameters
    ----------
    id : str
        Paper key + the paper's own label, lower case (``"nock2015.lemma2"``).
    where : str
        Where the paper states it.
    kind : str
        One of :data:`KINDS`.
    statement : str
        The claim in plain-text maths.
    status : str
        One of :data:`STATUSES`.
    finding : str, default=""
        What the checks found; required for false, loose and not-checkable.
    reference, fast : str, default=""
        ``"package.module:function"`` of the readable and the production implementation.
    checks : list of str, default=[]
        pytest node ids of the registered checks.
    no_implementation : str, default=""
        Why a definition / algorithm has no code.
    severity : str, default=""
        For a finding: one of :data:`SEVERITIES`.
    privacy_impact : str, default=""
        For a privacy finding: does the printed form leak, and how much.
    source : str, default=""
        The registry file it came from.
    scope : str, default="paper"
        One of :data:`SCOPES`: what the finding is about (the paper's printed text, this library's code, or the
        text extraction).
    code : list of str, default=[]
        For a library entry: the ``"module:attribute"`` targets of the code it is about.
    related : list of str, default=[]
        Ids of the claims it bears on.

    Examples
    --------
    >>> from spec.registry import Claim
    >>> c = Claim("nock2015.lemma2", "Section 2, Lemma 2", "identity", "F_log = log 2 + ...", "holds")
    >>> c.paper, c.severity, c.scope
    ('nock2015', '', 'paper')
    """

    id: str
    where: str
    kind: str
    statement: str
    status: str
    finding: str = ""
    reference: str = ""
    fast: str = ""
    checks: list[str] = field(default_factory=list)
    no_implementation: str = ""
    severity: str = ""
    privacy_impact: str = ""
    source: str = ""  # the registry file it came from
    scope: str = "paper"
    code: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]


def registry_files() -> list[Path]:
    """The registry's files: ``spec/claims.toml``, then ``spec/claims.d/*.toml`` in name order.

    Returns
    -------
    list of pathlib.Path

    Examples
    --------
    >>> from spec.registry import registry_files
    >>> files = registry_files()
    >>> files[0].name, all(f.suffix == ".toml" for f in files)
    ('claims.toml', True)
    """
    files = [SPEC_DIR / "claims.toml"]
    files += sorted((SPEC_DIR / "claims.d").glob("*.toml"))
    return [f for f in files if f.exists()]


#: an unfilled template placeholder such as ``{PROT}`` (an upper-case name in braces) left in a claim's text by a
#: script that forgot its f-string: stop 22 registered two findings that way. Math in braces ({x_i}, {Gamma_kappa})
#: has lower-case letters and passes.
_PLACEHOLDER = re.compile(r"\{[A-Z][A-Z0-9_]+\}")


def _parse_claim(raw: dict, source: str) -> Claim:
    unknown = set(raw) - ALLOWED_KEYS
    where = f"{source}: claim {raw.get('id', '?')!r}"
    if unknown:
        raise RegistryError(f"{where}: unknown keys {sorted(unknown)}")
    for key in REQUIRED_KEYS:
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise RegistryError(f"{where}: '{key}' must be a non-empty string")
    claim_id = raw["id"]
    paper = claim_id.split(".", 1)[0]
    if paper not in GROUPS or "." not in claim_id or claim_id != claim_id.lower():
        raise RegistryError(f"{where}: id must be lower-case 'paper.label' with paper in {PAPERS}, or "
                            f"'{LIBRARY}.<module>.<label>' for an entry about this library's code")
    if raw["kind"] not in KINDS:
        raise RegistryError(f"{where}: kind must be one of {KINDS}, got {raw['kind']!r}")
    if raw["status"] not in STATUSES:
        raise RegistryError(f"{where}: status must be one of {STATUSES}, got {raw['status']!r}")
    checks = raw.get("checks", [])
    if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks):
        raise RegistryError(f"{where}: 'checks' must be a list of strings")
    if raw["status"] in ("false", "loose", "not-checkable") and not raw.get("finding", "").strip():
        raise RegistryError(f"{where}: status {raw['status']!r} needs a 'finding' with the evidence or reason")
    severity = raw.get("severity", "")
    if severity and severity not in SEVERITIES:
        raise RegistryError(f"{where}: severity must be one of {SEVERITIES}, got {severity!r}")
    if not isinstance(raw.get("privacy_impact", ""), str):
        raise RegistryError(f"{where}: 'privacy_impact' must be a string")
    for key, value in raw.items():
        hole = _PLACEHOLDER.search(value) if isinstance(value, str) else None
        if hole:
            raise RegistryError(f"{where}: '{key}' holds an unfilled template placeholder {hole.group()!r}")
    is_library = paper == LIBRARY
    scope = raw.get("scope", LIBRARY if is_library else "paper")
    if scope not in SCOPES:
        raise RegistryError(f"{where}: scope must be one of {SCOPES}, got {scope!r}")
    if raw["status"] in ("false", "loose") and "scope" not in raw:
        raise RegistryError(f"{where}: a {raw['status']!r} finding must state its scope ({', '.join(SCOPES)}): is it "
                            "about what the paper prints, this library's code, or the text extraction?")
    if is_library != (scope == LIBRARY):
        raise RegistryError(f"{where}: scope 'library' goes with a '{LIBRARY}.*' id and only with one (a paper id is "
                            "about the paper; register what the library does as a library.<module>.<label> entry)")
    lists = {}
    for key in ("code", "related"):
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise RegistryError(f"{where}: '{key}' must be a list of non-empty strings")
        lists[key] = list(value)
    if is_library and not lists["code"]:
        raise RegistryError(f"{where}: a library entry must name the code it is about in 'code' "
                            "(['fast.module:function', ...])")
    if not is_library and lists["code"]:
        raise RegistryError(f"{where}: 'code' is for library entries; a paper claim names its implementations in "
                            "'reference' / 'fast'")
    for target in lists["code"]:
        if ":" not in target or target.split(".", 1)[0] not in CODE_PACKAGES:
            raise RegistryError(f"{where}: code target {target!r} must be 'module:attribute' in one of "
                                f"{CODE_PACKAGES}")
    return Claim(
        id=claim_id,
        where=raw["where"],
        kind=raw["kind"],
        statement=raw["statement"],
        status=raw["status"],
        finding=raw.get("finding", ""),
        reference=raw.get("reference", ""),
        fast=raw.get("fast", ""),
        checks=list(checks),
        no_implementation=raw.get("no_implementation", ""),
        severity=severity,
        privacy_impact=raw.get("privacy_impact", ""),
        source=source,
        scope=scope,
        code=lists["code"],
        related=lists["related"],
    )


def grading_problems(claims: dict[str, Claim]) -> list[str]:
    """Findings not graded, or graded against their status.

    A false / loose claim without ``severity``; a privacy claim (kind privacy) false / loose without
    ``privacy_impact``; a severity on a claim that is neither false nor loose; a ``loose`` claim (true, not tight)
    graded ``error`` (false as meant), or a ``false`` claim graded ``loose``.  Reported by ``python -m spec
    coverage`` and asserted by tests/test_report.py.

    Parameters
    ----------
    claims : dict of str to Claim
        As :func:`load_claims` returns.

    Returns
    -------
    list of str
        One line per problem, ``"<file>: <id>: <what is wrong>"``; empty when every finding is graded consistently.

    Examples
    --------
    >>> from spec.registry import Claim, grading_problems
    >>> c = Claim("bun2020.x", "s", "bound", "s", "loose", finding="true, not tight", severity="error", source="t.toml")
    >>> print(grading_problems({c.id: c})[0][:60])
    t.toml: bun2020.x: status 'loose' (true, not tight) cannot h
    >>> c.severity = "loose"
    >>> grading_problems({c.id: c})
    []
    """
    out = []
    for cid, c in claims.items():
        if c.status in ("false", "loose") and not c.severity:
            out.append(f"{c.source}: {cid}: status {c.status!r} needs a severity ({', '.join(SEVERITIES)})")
        if c.status in ("false", "loose") and c.kind == "privacy" and not c.privacy_impact.strip():
            out.append(f"{c.source}: {cid}: a privacy finding needs a privacy_impact (does the printed form leak, how much)")
        if c.severity and c.status not in ("false", "loose"):
            out.append(f"{c.source}: {cid}: severity {c.severity!r} given but status is {c.status!r}")
        if c.status == "loose" and c.severity == "error":
            out.append(f"{c.source}: {cid}: status 'loose' (true, not tight) cannot have severity 'error' (false as "
                       "meant): make the status 'false' or the severity 'loose'")
        if c.status == "false" and c.severity == "loose":
            out.append(f"{c.source}: {cid}: status 'false' cannot have severity 'loose' (true, not tight): grade it "
                       "'error' or 'misprint', or make the status 'loose'")
    return out


#: phrases that make a statement about this library (its code, its grid, its run) rather than about a paper: refused
#: in every paper- or extraction-scoped claim (statement, finding, privacy impact).  Issue 27: "epsilon = 1 is
#: unreachable at any n" (a property of the library's discrete-Gaussian grid) sat in bun2020.thm25 / thm26.
LIBRARY_PHRASES = (
    r"\bthis library\b", r"\bthe library\b", r"\blibrary's\b", r"\bprivlearn\b",
    r"\bour (?:grid|run|implementation|code|estimator|sampler|encoder|accounting|calibration|default)s?\b",
    r"\bdiscrete[- ]Gaussian grid\b", r"\bon the grid\b", r"\bthe grid's\b", r"\bresult\.rho\b",
    r"\blibrary default\b",
)
#: further phrases refused in a paper FINDING (status false / loose), the text an auditor cites against the paper:
#: what the library implements, or its defaults, belongs to a library entry
FINDING_PHRASES = (r"\bimplemented\b", r"\bdefault\b", r"\b[a-z_]+=(?:True|False|None|'[^']*')")
#: the papers' own notation that coincides with a library name (nock2016's phi_e, phi_s, phi_r)
PAPER_NOTATION = frozenset({"phi_e", "phi_s", "phi_r"})
_DOTTED = re.compile(r"\b(?:reference|fast|spec|experiments)\.[a-z_][\w.]*[\w]")


def library_symbols() -> frozenset[str]:
    """The code-like public names of ``reference`` and ``fast`` (``hsstl_rho``, ``ImpactEncoder``): top-level functions
    and classes not starting with ``_`` whose name holds an underscore or a lower-to-upper case change, so that a
    plain word (``centroid``, ``split``) is not one.  Read with :mod:`ast` (nothing is imported); cached.

    Returns
    -------
    frozenset of str

    Examples
    --------
    >>> from spec.registry import library_symbols
    >>> names = library_symbols()
    >>> "hsstl_rho" in names and "ImpactEncoder" in names and "centroid" not in names
    True
    """
    return _library_symbols()


@functools.lru_cache(maxsize=1)
def _library_symbols() -> frozenset[str]:
    names = set()
    for path in _python_files(("reference", "fast")):
        if "_contracts" in path.relative_to(ROOT).parts:  # spec's contracts, kept in fast/_contracts/ (issue 28)
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                names.add(node.name)
    return frozenset(n for n in names if "_" in n or re.search(r"[a-z][A-Z]", n))


def scope_problems(claims: dict[str, Claim], symbols=None) -> list[str]:
    """Claims whose text is about something other than their scope (issue 27: findings an auditor can cite).

    * A paper- or extraction-scoped claim (any status) may not speak about this library: none of
      :data:`LIBRARY_PHRASES` ("the library", "this library", "our grid", "discrete-Gaussian grid", "result.rho", ...)
      in its statement, finding or privacy impact.
    * A paper FINDING (scope paper, status false / loose) may not name library code either: no dotted
      ``fast.`` / ``reference.`` / ``spec.`` path, no code-like public name of ``reference`` / ``fast``
      (:func:`library_symbols`, less the papers' own :data:`PAPER_NOTATION`), none of :data:`FINDING_PHRASES`
      ("implemented", "(default)").  What the library does about a finding is a ``library.*`` entry that names its
      code and lists the finding in ``related``.
    * An extraction-scoped claim says what the extraction lost: its finding mentions the extraction (or the OCR).
    * A library entry names its code (``code``, enforced when parsing) and relates to at least one registered claim
      or carries a check of its own.
    * Every ``library.<module>.<label>`` id a finding or privacy impact names is registered.

    Parameters
    ----------
    claims : dict of str to Claim
        As :func:`load_claims` returns.
    symbols : collection of str or None, default=None
        The library's code-like names (default :func:`library_symbols`).

    Returns
    -------
    list of str
        One line per problem, ``"<file>: <id>: <what is wrong>"``; empty when every claim keeps to its scope.

    Examples
    --------
    >>> from spec.registry import Claim, scope_problems
    >>> c = Claim("bun2020.x", "s", "bound", "s", "loose", finding="On the library's grid eps = 1 is unreachable.",
    ...           severity="loose", source="t.toml")
    >>> print(scope_problems({c.id: c}, symbols=set())[0].split(": move")[0])
    t.toml: bun2020.x: a paper-scoped claim speaks about the library ("the library")
    >>> c.finding = "Holds at eps = 1 with n = 1,732,084,834."
    >>> scope_problems({c.id: c}, symbols=set())
    []
    """
    named = re.compile(r"\blibrary\.[a-z_]+\.[a-z0-9_.-]*[a-z0-9]")
    names = library_symbols() if symbols is None else frozenset(symbols)
    code_names = sorted(names - PAPER_NOTATION, key=len, reverse=True)
    symbol_re = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, code_names)) + r")(?![\w])") if code_names else None
    phrases = [re.compile(p, re.IGNORECASE) for p in LIBRARY_PHRASES]
    finding_phrases = [re.compile(p, re.IGNORECASE) for p in FINDING_PHRASES]
    out = []
    for cid, c in claims.items():
        head = f"{c.source}: {cid}"
        dangling = sorted({m.group() for m in named.finditer(" ".join((c.finding, c.privacy_impact)))} - set(claims))
        if dangling:
            out.append(f"{head}: names library entries that are not registered: {', '.join(dangling)}")
        if c.scope == LIBRARY:
            if not c.related and not c.checks:
                out.append(f"{head}: a library entry relates to no claim and carries no check of its own")
            continue
        text = " ".join((c.statement, c.finding, c.privacy_impact))
        for pat in phrases:
            m = pat.search(text)
            if m:
                out.append(f'{head}: a {c.scope}-scoped claim speaks about the library ("{m.group()}"): move the '
                           "statement to a library.<module>.<label> entry that names its code")
                break
        if c.scope == "extraction" and not re.search(r"extract|\bOCR\b", c.finding, re.IGNORECASE):
            out.append(f"{head}: an extraction-scoped claim must say what the extraction lost (its finding never "
                       "mentions the extraction)")
        if c.scope != "paper" or c.status not in ("false", "loose"):
            continue
        found = [m.group() for m in _DOTTED.finditer(text)]
        found += [m.group() for pat in finding_phrases for m in pat.finditer(text)]
        if symbol_re is not None:
            found += [m.group(1) for m in symbol_re.finditer(text)]
        if found:
            out.append(f"{head}: a paper finding names library code or behaviour ({', '.join(sorted(set(found)))}): "
                       "cite the paper's own terms, and put what the library does in a library entry (add a paper "
                       "symbol that only looks like code to PAPER_NOTATION)")
    return out


def load_claims() -> dict[str, Claim]:
    """All registered claims by id, in file order.

    Returns
    -------
    dict of str to Claim

    Raises
    ------
    RegistryError
        A malformed entry (unknown key, bad id, kind, status or scope, a finding missing, a library entry naming no
        code, a 'related' id not registered) or an id registered twice.

    Examples
    --------
    >>> from spec.registry import load_claims
    >>> claims = load_claims()
    >>> claims["nock2015.lemma2"].kind
    'identity'
    >>> {c.paper for c in claims.values()} == {"nock2015", "nock2016", "bun2020", "winvector2015", "kusner2016",
    ...                                        "library"}
    True
    >>> claims["library.private_boosting.hsstl-grid-rho"].scope
    'library'
    """
    claims: dict[str, Claim] = {}
    for path in registry_files():
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        unknown_top = set(data) - {"claim"}
        if unknown_top:
            raise RegistryError(f"{path.name}: only [[claim]] tables are allowed, found {sorted(unknown_top)}")
        for raw in data.get("claim", []):
            claim = _parse_claim(raw, str(path.relative_to(ROOT)))
            if claim.id in claims:
                raise RegistryError(
                    f"{claim.source}: id {claim.id!r} already registered in {claims[claim.id].source}"
                )
            claims[claim.id] = claim
    for claim in claims.values():
        unknown = [r for r in claim.related if r not in claims or r == claim.id]
        if unknown:
            raise RegistryError(f"{claim.source}: {claim.id}: 'related' names {unknown}, not another registered claim")
    return claims


# --------------------------------------------------------------------------- links found in source


@dataclass(frozen=True)
class Link:
    """One ``@implements(id)`` or ``@checks(id)`` found in the source.

    Parameters
    ----------
    decorator : str
        ``"implements"`` or ``"checks"``.
    claim_id : str
        The claim id it names.
    path : str
        The file, relative to the source root.
    qualname : str
        ``"func"`` or ``"Class::method"`` (pytest's spelling).
    lineno : int
        The line of the ``def``.

    Examples
    --------
    >>> from spec.registry import Link
    >>> Link("checks", "nock2015.lemma2", "tests/test_rados.py", "test_lemma2", 10).nodeid
    'tests/test_rados.py::test_lemma2'
    """

    decorator: str  # "implements" | "checks"
    claim_id: str
    path: str  # relative to ROOT
    qualname: str  # "func" or "Class::method" (pytest spelling)
    lineno: int

    @property
    def nodeid(self) -> str:
        return f"{self.path}::{self.qualname}"


def _decorator_ids(node: ast.AST) -> tuple[str, list[str]] | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in ("implements", "checks"):
        return None
    ids = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if len(ids) != len(node.args):
        raise RegistryError(f"@{name} arguments must be string literals (line {node.lineno})")
    return name, ids


def _python_files(dirs=CODE_DIRS):
    for d in dirs:
        base = ROOT / d
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*.py") if ".venv" not in p.parts)


def _functions(tree: ast.Module):
    """(qualname, node) for top-level functions and methods of top-level classes."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}::{sub.name}", sub


def scan_links(dirs=CODE_DIRS) -> list[Link]:
    """Every ``@implements`` / ``@checks`` on a top-level function or method in ``dirs``, read with :mod:`ast`.

    Parameters
    ----------
    dirs : tuple of str, default=CODE_DIRS
        Directories under the source root to scan (those absent are skipped).

    Returns
    -------
    list of Link

    Raises
    ------
    RegistryError
        A decorator argument that is not a string literal.

    Examples
    --------
    >>> from spec.registry import scan_links
    >>> links = scan_links(("reference",))
    >>> any(l.decorator == "implements" and l.claim_id == "nock2015.lemma2" for l in links)
    True
    """
    links = []
    for path in _python_files(dirs):
        rel = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(), filename=rel)
        for qualname, node in _functions(tree):
            for dec in node.decorator_list:
                found = _decorator_ids(dec)
                if found:
                    name, ids = found
                    links.extend(Link(name, i, rel, qualname, node.lineno) for i in ids)
    return links


def check_exists(nodeid: str) -> bool:
    """Whether a pytest node id 'path.py::func' (or 'path.py::Class::method', '[param]' ignored) exists.

    Parameters
    ----------
    nodeid : str

    Returns
    -------
    bool
        False as well when the file is not under tests/ or proofs_checks/ (or not on disk: an installed package).

    Examples
    --------
    >>> from spec.registry import check_exists
    >>> check_exists("tests/test_registry_links.py::test_registry_parses")
    True
    >>> check_exists("tests/test_registry_links.py::test_no_such_test")
    False
    """
    nodeid = nodeid.split("[", 1)[0]
    parts = nodeid.split("::")
    path = ROOT / parts[0]
    if len(parts) < 2 or not path.is_file() or parts[0].split("/")[0] not in CHECK_DIRS:
        return False
    st = path.stat()
    return "::".join(parts[1:]) in _function_names(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=512)
def _function_names(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """The qualnames :func:`_functions` finds in a file, parsed once per version of the file (``coverage`` asks
    about some 200 registered checks in about 60 files: 0.9 s of parsing each file anew)."""
    return frozenset(q for q, _ in _functions(ast.parse(Path(path).read_text())))


def is_collectable(qualname: str) -> bool:
    """Whether pytest collects a function of this name (``test_*`` / ``check_*``).

    Parameters
    ----------
    qualname : str
        ``"func"`` or ``"Class::method"``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from spec.registry import is_collectable
    >>> is_collectable("TestX::test_a"), is_collectable("check_lemma2"), is_collectable("helper")
    (True, True, False)
    """
    name = qualname.split("::")[-1]
    return name.startswith(("test_", "check_"))


def resolve_target(target: str):
    """Import 'package.module:function' and return the object.

    Parameters
    ----------
    target : str
        ``"package.module:attribute"``; the attribute may be dotted (``"fast.x:Class.method"``).

    Returns
    -------
    object

    Raises
    ------
    RegistryError
        No colon, the module does not import, or it has no such attribute.

    Examples
    --------
    >>> from spec.registry import resolve_target
    >>> resolve_target("reference.rados:logistic_risk").__name__
    'logistic_risk'
    """
    if ":" not in target:
        raise RegistryError(f"target {target!r} must be 'module:function'")
    module_name, attr = target.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - reported with context
        raise RegistryError(f"cannot import {module_name!r} for {target!r}: {exc}") from exc
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise RegistryError(f"{module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


@dataclass
class Coverage:
    """The links between the registry, the code and the checks, as :func:`coverage` finds them.

    Parameters
    ----------
    claims : dict of str to Claim
        The registry.
    links : list of Link
        The decorators found in the source.
    checks_of : dict of str to list of str
        Claim id -> node ids of its checks (registered and decorated).
    problems : list of str
        Broken links; ``python -m spec coverage`` fails on any.
    unchecked : list of str
        Claims with no check (not counting not-checkable ones).
    scoping : list of str, default=[]
        Claims whose text is about something other than their scope (:func:`scope_problems`); ``python -m spec
        coverage`` fails on any.

    Examples
    --------
    >>> from spec.registry import coverage
    >>> cov = coverage(import_targets=False, verify_checks=False)
    >>> len(cov.claims) == len(cov.checks_of) and isinstance(cov.problems, list)
    True
    """

    claims: dict[str, Claim]
    links: list[Link]
    checks_of: dict[str, list[str]]  # claim id -> node ids (registered + decorated)
    problems: list[str]  # broken links: make coverage fail
    unchecked: list[str]  # claims with no check (not counting not-checkable)
    scoping: list[str] = field(default_factory=list)  # scope rule broken: makes coverage fail


def coverage(import_targets: bool = True, verify_checks: bool = True) -> Coverage:
    """Links between registry, code and checks.

    Parameters
    ----------
    import_targets : bool, default=True
        Import every ``reference`` / ``fast`` target and require ``@implements`` on the reference one.
    verify_checks : bool, default=True
        Scan tests/ and proofs_checks/ and require every registered check to exist.  False for an installed package
        (its wheel ships the registry and the packages but not tests/ and proofs_checks/): only the packages are
        scanned.

    Returns
    -------
    Coverage

    Raises
    ------
    RegistryError
        A malformed registry file or decorator.

    Examples
    --------
    >>> from spec.registry import coverage
    >>> cov = coverage(import_targets=False)
    >>> cov.problems, cov.scoping
    ([], [])
    >>> lemma2 = cov.checks_of["nock2015.lemma2"]  # node ids of its checks, registered or @checks
    >>> len(lemma2) > 0 and all(n.startswith(("tests/", "proofs_checks/")) for n in lemma2)
    True
    """
    claims = load_claims()
    links = scan_links() if verify_checks else scan_links(("reference", "fast", "spec"))
    problems: list[str] = []
    checks_of: dict[str, list[str]] = {cid: list(c.checks) for cid, c in claims.items()}
    for link in links:
        if link.claim_id not in claims:
            problems.append(f"{link.path}:{link.lineno}: @{link.decorator}({link.claim_id!r}): unknown claim id")
            continue
        if link.decorator == "checks":
            if link.path.split("/")[0] not in CHECK_DIRS or not is_collectable(link.qualname):
                problems.append(
                    f"{link.path}:{link.lineno}: @checks on {link.qualname}, which pytest does not collect "
                    "(checks live in tests/ or proofs_checks/ and are named test_* / check_*)"
                )
                continue
            if link.nodeid not in checks_of[link.claim_id]:
                checks_of[link.claim_id].append(link.nodeid)
    for cid, claim in claims.items():
        for nodeid in claim.checks if verify_checks else ():
            if not check_exists(nodeid):
                problems.append(f"{claim.source}: {cid}: registered check {nodeid!r} does not exist")
        if import_targets:
            for target in claim.code:
                try:
                    resolve_target(target)
                except RegistryError as exc:
                    problems.append(f"{cid}: code target: {exc}")
            for field_name in ("reference", "fast"):
                target = getattr(claim, field_name)
                if not target:
                    continue
                if not target.startswith(field_name + "."):
                    problems.append(f"{cid}: '{field_name}' target {target!r} must live in the {field_name} package")
                    continue
                try:
                    obj = resolve_target(target)
                except RegistryError as exc:
                    problems.append(f"{cid}: {exc}")
                    continue
                if field_name == "reference":
                    implemented = getattr(obj, "__claims_implemented__", ())
                    if cid not in implemented:
                        problems.append(f"{cid}: {target} does not carry @implements({cid!r})")
        if claim.kind in ("definition", "algorithm") and not (claim.reference or claim.code or claim.no_implementation):
            if claim.status != "not-checkable":
                problems.append(f"{cid}: a {claim.kind} needs a 'reference' implementation or 'no_implementation' reason")
        if claim.status == "not-checkable" and checks_of[cid]:
            problems.append(f"{cid}: status not-checkable but checks are attached; give it a real status")
    unchecked = [cid for cid, c in claims.items() if not checks_of[cid] and c.status != "not-checkable"]
    return Coverage(claims, links, checks_of, problems, unchecked, scope_problems(claims))
