"""proofs_checks.mutation (issue 27 item 3): the hand-picked mutants still locate their site by text, and a claim's
own checks are resolved from the registry and the @checks links."""
from pathlib import Path

import pytest

from proofs_checks import mutation as MU

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("mutant", MU.MUTANTS, ids=[m.ident for m in MU.MUTANTS])
def test_every_mutant_locates_its_site_by_text(mutant):
    """The original text occurs exactly once (or at least nth + 1 times) in the file: a site moved by an edit is
    still found (no line numbers), a site whose text changed fails here instead of as 'error' in a long run."""
    text = (ROOT / mutant.path).read_text()
    count = text.count(mutant.original)
    assert count == 1 if mutant.nth is None else count > mutant.nth, (mutant.ident, count)
    assert mutant.original != mutant.replacement and all((ROOT / t.split("::")[0]).exists() for t in mutant.tests)


def test_ids_are_unique_and_critical_ones_dominate():
    ids = [m.ident for m in MU.MUTANTS]
    assert len(ids) == len(set(ids))
    assert sum(m.critical for m in MU.MUTANTS) >= 0.8 * len(ids)


def test_own_checks_read_the_registry_and_the_decorators():
    own = MU.own_checks("bun2020.alg3")
    assert "tests/test_private_boosting.py::test_lb_nxm_edges" in own  # the registry's checks list
    assert "tests/test_private_boosting.py::test_boost_rounds_weight_by_cumulative_gains" in own  # an @checks link
    assert MU.own_checks("ledger") == ()  # not a registry id: no own checks
