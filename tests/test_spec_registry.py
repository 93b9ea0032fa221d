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
    claim = registry._parse_claim(_raw(status="loose", finding="the sum over {x_i} and {Gamma_kappa}, {s}"), "t.toml")
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
