"""The registry machinery itself: schema errors are caught, links are found, node ids resolve."""
import pytest

from spec import registry
from spec.__main__ import _outcomes_for
from spec.links import checks, implements


def _raw(**over):
    raw = dict(id="nock2015.lemma2", where="s2", kind="identity", statement="x", status="holds")
    raw.update(over)
    return raw


def test_parse_accepts_a_valid_claim():
    claim = registry._parse_claim(_raw(checks=["tests/a.py::test_b"]), "t.toml")
    assert claim.paper == "nock2015" and claim.checks == ["tests/a.py::test_b"]


@pytest.mark.parametrize(
    "over, message",
    [
        (dict(kind="theorem"), "kind must be one of"),
        (dict(status="true"), "status must be one of"),
        (dict(id="nock2099.lemma2"), "id must be"),
        (dict(id="Nock2015.Lemma2"), "id must be"),
        (dict(status="false"), "needs a 'finding'"),
        (dict(status="not-checkable"), "needs a 'finding'"),
        (dict(checks="tests/a.py::b"), "'checks' must be a list"),
        (dict(colour="red"), "unknown keys"),
        (dict(statement=""), "'statement' must be a non-empty string"),
        (dict(status="loose", finding="runs: 5 at 1-16 %; {PROT} (CPU)"), "unfilled template placeholder '{PROT}'"),
        (dict(statement="holds for {M16} runs"), "'statement' holds an unfilled template placeholder"),
    ],
)
def test_parse_rejects_malformed_claims(over, message):
    with pytest.raises(registry.RegistryError, match=message):
        registry._parse_claim(_raw(**over), "t.toml")


def test_math_in_braces_is_not_a_placeholder():
    claim = registry._parse_claim(_raw(status="loose", scope="paper", finding="the sum over {x_i} and {Gamma_kappa}, {s}"),
                                  "t.toml")
    assert "{x_i}" in claim.finding


def test_check_exists_resolves_functions_methods_and_params():
    assert registry.check_exists("tests/test_spec_registry.py::test_check_exists_resolves_functions_methods_and_params")
    assert registry.check_exists("tests/test_spec_registry.py::TestHolder::test_method[param]")
    assert not registry.check_exists("tests/test_spec_registry.py::test_no_such_function")
    assert not registry.check_exists("tests/no_such_file.py::test_x")
    assert not registry.check_exists("reference/__init__.py::x")  # not a check directory


class TestHolder:
    def test_method(self):
        assert registry.is_collectable("TestHolder::test_method")
        assert not registry.is_collectable("helper")


def test_decorators_record_ids_and_refuse_bad_ids():
    @implements("nock2015.eq2")
    @checks("nock2015.lemma2")
    def f():
        return 1

    assert f.__claims_implemented__ == ("nock2015.eq2",) and f.__claims_checked__ == ("nock2015.lemma2",)
    with pytest.raises(TypeError):
        implements()
    with pytest.raises(TypeError):
        checks("no-dot")


def test_report_aggregates_parametrized_outcomes():
    results = {"t.py::a[1]": "passed", "t.py::a[2]": "failed", "t.py::ab": "passed"}
    assert sorted(_outcomes_for("t.py::a", results)) == ["failed", "passed"]
    assert _outcomes_for("t.py::a[2]", results) == ["failed"]
    assert _outcomes_for("t.py::missing", results) == []


# ------------------------------------------------------------------ scope: paper, library, extraction (issue 27)
@pytest.mark.parametrize(
    "over, message",
    [
        (dict(scope="journal"), "scope must be one of"),
        (dict(status="loose", finding="not tight", severity="loose"), "must state its scope"),
        (dict(scope="library"), "scope 'library' goes with a 'library.\\*' id"),
        (dict(id="library.private_boosting.x", code=["fast.private_boosting:hsstl_rho"], scope="paper"),
         "scope 'library' goes with a 'library.\\*' id"),
        (dict(id="library.private_boosting.x"), "must name the code it is about"),
        (dict(code=["fast.private_boosting:hsstl_rho"]), "'code' is for library entries"),
        (dict(id="library.private_boosting.x", code=["hsstl_rho"]), "must be 'module:attribute'"),
        (dict(id="library.private_boosting.x", code=["numpy.linalg:norm"]), "must be 'module:attribute' in one of"),
        (dict(related="bun2020.thm53"), "'related' must be a list"),
        (dict(id="libraries.x"), "id must be"),
    ],
)
def test_parse_rejects_claims_that_break_the_scope_schema(over, message):
    with pytest.raises(registry.RegistryError, match=message):
        registry._parse_claim(_raw(**over), "t.toml")


def test_parse_derives_the_scope_from_the_id():
    lib = registry._parse_claim(_raw(id="library.private_boosting.x", code=["fast.private_boosting:hsstl_rho"],
                                     related=["bun2020.thm26.rho"]), "t.toml")
    assert lib.scope == "library" and lib.paper == "library" and lib.code == ["fast.private_boosting:hsstl_rho"]
    assert registry._parse_claim(_raw(), "t.toml").scope == "paper"
    assert registry._parse_claim(_raw(scope="extraction"), "t.toml").scope == "extraction"


def test_load_refuses_a_related_id_that_is_not_registered(tmp_path, monkeypatch):
    bad = tmp_path / "claims.toml"
    bad.write_text('[[claim]]\nid = "library.x.y"\nwhere = "w"\nkind = "bound"\nstatement = "s"\nstatus = "holds"\n'
                   'code = ["fast.private_boosting:hsstl_rho"]\nrelated = ["bun2020.no_such_claim"]\n')
    monkeypatch.setattr(registry, "registry_files", lambda: [bad])
    monkeypatch.setattr(registry, "ROOT", tmp_path)
    with pytest.raises(registry.RegistryError, match="'related' names \\['bun2020.no_such_claim'\\]"):
        registry.load_claims()


def _claim(cid="bun2020.thm25", status="loose", finding="", scope=None, **kw):
    scope = scope or ("library" if cid.startswith("library.") else "paper")
    severity = kw.pop("severity", "loose" if status in ("false", "loose") else "")
    return registry.Claim(cid, "s", kw.pop("kind", "bound"), kw.pop("statement", "s"), status, finding=finding,
                          severity=severity, scope=scope, source="t.toml", **kw)


#: the texts that sat in paper findings before issue 27: each states what this library's code does
PRE_ISSUE_27 = {
    "bun2020.thm25": "So the headline n describes the proof only for small eps. On the library's discrete-Gaussian "
                     "grid (d = 1) eps = 1 is unreachable and eps = 5 needs 508,510,021 (thm26.rho).",
    "bun2020.thm53": "Property numbering in the proof is shifted (A10). smoothboost_privacy returns the corrected "
                     "form (printed=True for the paper's).",
    "winvector2015.laplace": "Our laplace_count_table calibrates the exact discrete Laplace for the relation named.",
    "bun2020.thm22": "(1) holds (Gaussian Renyi identity on adversarial pairs; our grid charges (Delta + 2^k sqrt "
                     "d)^2/(2 s2 4^k) >= it)",
    "kusner2016.ch4.thm7": "A Laplace release is (5.35 eps)-DP at lambda = 100. The library uses the corrected R_n.",
    "nock2015.eq17": "With alpha = (1/(2 kappa pi_*)) log(...) it holds. Implemented with the factor 2.",
    "nock2016.sec5.wl": "Both are available: weak_learner='preference' (printed) and 'half_square'.",
    "bun2020.lemma52": "one case re-done with reference.sb_nxm in 50-digit mpmath",
}


@pytest.mark.parametrize("cid", sorted(PRE_ISSUE_27))
def test_scope_rule_refuses_library_statements_in_paper_findings(cid):
    """The rule fails on each library statement that sat in a paper finding before issue 27 (the grid's
    unreachable eps = 1, a function's return value, the code's calibration, a keyword argument, a dotted module
    path), and passes once the same finding keeps to the paper."""
    bad = _claim(cid, finding=PRE_ISSUE_27[cid])
    problems = registry.scope_problems({cid: bad})
    assert len(problems) == 1 and problems[0].startswith(f"t.toml: {cid}: a paper"), problems
    good = _claim(cid, finding="Loose by 24-30 % at (eps, T) = (.05, 50) ... (.1, 200); see "
                                "library.private_boosting.hsstl-grid-rho for the grid release.")
    lib = _claim("library.private_boosting.hsstl-grid-rho", status="holds", code=["fast.private_boosting:hsstl_rho"],
                 related=[cid])
    assert registry.scope_problems({cid: good, lib.id: lib}) == []


def test_scope_rule_cases():
    """What each part of the rule catches, and what it lets through."""
    ok = registry.scope_problems
    # a library phrase is refused in any paper claim, a code symbol only in a finding (a note that holds may name the
    # function its check exercised)
    assert ok({"a": _claim("bun2020.a", status="holds", finding="The library charges 4/(kappa n).")})
    assert not ok({"a": _claim("bun2020.a", status="holds", finding="hsstl_n_min is exact at n_min.")})
    assert ok({"a": _claim("bun2020.a", finding="hsstl_n_min is exact at n_min.")})
    assert ok({"a": _claim("bun2020.a", status="holds", statement="as privlearn does", finding="x")})
    # the papers' own notation that looks like code is not a library symbol
    assert not ok({"a": _claim("nock2016.a", finding="phi_e = phi_s(r) + c is proportionate for every c")})
    assert ok({"a": _claim("nock2016.a", finding="phi_e = phi_s(r) + c"), "b": _claim("nock2016.b")},
              symbols={"phi_e"}) == []  # PAPER_NOTATION wins over the library's names
    # an extraction entry says what the extraction lost
    assert ok({"a": _claim("nock2015.a", status="holds", scope="extraction", finding="Holds as read.")})
    assert not ok({"a": _claim("nock2015.a", status="holds", scope="extraction", finding="Holds; as extracted the "
                                                                                         "parentheses are lost.")})
    # a library entry relates to a claim or has a check; a finding may name only registered library entries
    assert ok({"l": _claim("library.x.y", status="holds", code=["fast.accounting:zcdp_to_dp"])})
    assert ok({"a": _claim("bun2020.a", finding="see library.x.missing")})[0].endswith("library.x.missing")


def test_registry_keeps_every_claim_to_its_scope():
    """The registry itself: no claim breaks its scope, every finding states one, every library entry names code
    that imports and relates to registered claims, and each moved statement now lives in a library entry."""
    claims = registry.load_claims()
    assert registry.scope_problems(claims) == []
    findings = [c for c in claims.values() if c.status in ("false", "loose")]
    assert {c.scope for c in findings} <= set(registry.SCOPES)
    library = {cid: c for cid, c in claims.items() if c.scope == "library"}
    assert len(library) >= 10 and all(cid.startswith("library.") for cid in library)
    for c in library.values():
        for target in c.code:
            registry.resolve_target(target)
        assert c.related and all(r in claims and claims[r].scope != "library" for r in c.related)
    grid = library["library.private_boosting.hsstl-grid-rho"]
    assert "x1.665" in grid.finding and "x5.246" in grid.finding  # charged and exact, both stated
    assert "unreachable" not in claims["bun2020.thm25"].finding and "out of reach at ANY n" in library[
        "library.private_boosting.hsstl-grid-reach"].finding


def test_regraded_findings_carry_their_derivation():
    """Issue 27 regrades: Theorem 53(2) is loose (was false: the ratios came from generic randomized response, not
    the round) and carries the Renyi-composition checks; winvector2015.laplace grades what the post says (it holds)
    and keeps the calibration analysis in library entries."""
    cov = registry.coverage(import_targets=False)
    thm53 = cov.claims["bun2020.thm53"]
    assert (thm53.status, thm53.severity) == ("loose", "loose") and "2.18 / 4.60 / 4.66 / 10.18" in thm53.finding
    renyi = [n for n in cov.checks_of["bun2020.thm53"] if n.startswith("proofs_checks/check_bun2020_thm53_renyi.py")]
    assert len(renyi) >= 3 and all(registry.check_exists(n) for n in renyi)
    post = cov.claims["winvector2015.laplace"]
    assert post.status == "holds" and "no epsilon, no sensitivity" in post.statement
    assert {"library.impact_coding.laplace-calibration", "library.impact_coding.fold-modes-neighbouring"} <= {
        c.id for c in cov.claims.values() if "winvector2015.laplace" in c.related}
