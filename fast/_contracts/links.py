"""Two-way links between code and the claim registry (as OpenDP links proof and code).

``@implements("nock2015.eq2")`` marks the function that computes a claim's quantity;
``@checks("nock2015.lemma2")`` marks a test or proofs_check that can fail when the claim is wrong.
The decorators only record the ids on the function (``__claims_implemented__`` /
``__claims_checked__``); :mod:`spec.registry` finds them by reading the source (``ast``), so no
module has to be imported to audit the links, and a broken id is caught by
``tests/test_registry_links.py``.
"""
from __future__ import annotations

from typing import Callable, TypeVar

#: the public names (listed, so that ``spec.links``, an alias of this module, documents them: issue 28)
__all__ = ["implements", "checks"]

F = TypeVar("F", bound=Callable)


def _validate_ids(ids: tuple[str, ...], decorator: str) -> None:
    if not ids:
        raise TypeError(f"@{decorator} needs at least one claim id")
    for claim_id in ids:
        if not isinstance(claim_id, str) or "." not in claim_id:
            raise TypeError(
                f"@{decorator}: claim id must be a string 'paper.label', got {claim_id!r}"
            )


def implements(*ids: str) -> Callable[[F], F]:
    """Record that the decorated function implements the given claim ids."""
    _validate_ids(ids, "implements")

    def decorate(func: F) -> F:
        func.__claims_implemented__ = tuple(getattr(func, "__claims_implemented__", ())) + ids
        return func

    return decorate


def checks(*ids: str) -> Callable[[F], F]:
    """Record that the decorated test or proofs_check checks the given claim ids."""
    _validate_ids(ids, "checks")

    def decorate(func: F) -> F:
        func.__claims_checked__ = tuple(getattr(func, "__claims_checked__", ())) + ids
        return func

    return decorate
