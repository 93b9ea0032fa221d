"""The reference-vs-fast table (ARCHITECTURE: "Reference-vs-fast pairing").

One ``Pair`` per public function of a module mirrored in ``reference`` and ``fast``.  Each topic keeps its
pairs in its own submodule (``spec/pairs/rados.py`` defines ``PAIRS = {...}``); this package merges them
into one ``PAIRS`` dict, keyed ``"module.function"`` (the test ids).  ``tests/test_pairs.py`` runs one
parametrized ``equivalence`` test over it, and ``benchmarks/`` times the same pairs.

A ``Pair`` says how to draw inputs (a hypothesis strategy of :class:`Call`), the tolerance chosen for the
output (written down, never loosened globally), and optionally a strategy of bad inputs on which both must
raise the same exception type.  Randomised functions receive an int seed in the Call, so each side builds
its own Generator from the same seed and must take the same draws in the same order.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Call:
    """Positional and keyword arguments for one call (both sides get equal, independent copies)."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)

    def __repr__(self) -> str:  # shown by hypothesis on failure
        return f"Call(args={self.args!r}, kwargs={self.kwargs!r})"


@dataclass(frozen=True)
class Pair:
    reference: Callable
    fast: Callable
    inputs: Any  # hypothesis strategy of Call
    claim: str = ""  # registry id the function implements ("" for helpers)
    rtol: float = 1e-12
    atol: float = 0.0
    bad_inputs: Any = None  # hypothesis strategy of Call on which both must raise
    compare: Callable | None = None  # custom comparison (ref_out, fast_out) -> None, raises AssertionError
    #: input-dependent relative tolerance: the test uses max(rtol, rtol_for(call)) (e.g. an exponent's own rounding,
    #: u |w|, makes exp(w) differ by that much relative however carefully the rest is summed)
    rtol_for: Callable | None = None
    max_examples: int = 60
    note: str = ""  # why this tolerance


def _collect() -> dict[str, Pair]:
    merged: dict[str, Pair] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for key, pair in getattr(module, "PAIRS", {}).items():
            if key in merged:
                raise ValueError(f"duplicate pair {key!r} in spec.pairs.{info.name}")
            merged[key] = pair
    return merged


def load_pairs() -> dict[str, Pair]:
    """All pairs of all topics (imports hypothesis, reference and fast)."""
    return _collect()
