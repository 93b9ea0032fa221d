"""The registry and its links: walk the packages and fail on any broken link.

Fails on an unknown id in @implements / @checks, a registered check that does not exist, a claim whose
implementation does not import or does not carry @implements, a definition/algorithm with no
implementation and no reason, and a claim with no check that is not marked not-checkable.
"""
from spec.registry import coverage, load_claims


def test_registry_parses():
    claims = load_claims()
    assert len(claims) > 0


def test_no_broken_links():
    cov = coverage()
    assert not cov.problems, "broken links:\n" + "\n".join(cov.problems)


def test_every_claim_is_checked_or_not_checkable():
    cov = coverage()
    assert not cov.unchecked, "claims with no check (add one, or mark not-checkable with a reason):\n" + "\n".join(cov.unchecked)


def test_findings_doc_is_current(tmp_path):
    """docs/findings.md is what `python -m spec findings` writes from the registry (regenerate after editing it)."""
    from spec.__main__ import main
    from spec.registry import ROOT

    out = tmp_path / "findings.md"
    assert main(["findings", "--out", str(out)]) == 0
    committed = (ROOT / "docs" / "findings.md").read_text()
    assert out.read_text() == committed, "docs/findings.md is stale: run `python -m spec findings`"
