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

import math

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
    #: privacy-relevant outputs (noise scales, sigmas, rho): (call, ref_out, fast_out) -> None, raises AssertionError
    #: unless fast's value is on the SAFE side by an exact evaluation (e.g. the reference's mpmath privacy profile of
    #: fast's sigma within the target delta): a tolerance alone cannot see rounding towards the unsafe side
    safe_side: Callable | None = None
    #: the least fraction of the examples on which values are compared (not both sides raising the same error)
    min_compared: float = 0.0


def sigma_within_profile(call, ref_sigma, fast_sigma):
    """Safe side of an analytic-Gaussian sigma: the reference's exact (mpmath) Balle-Wang profile of FAST's sigma
    is within the target delta (a sigma rounded down past the boundary fails, however close to the reference)."""
    from reference.mechanisms import gaussian_delta

    sensitivity, epsilon, delta = call.args
    assert gaussian_delta(fast_sigma, sensitivity, epsilon) <= delta, (call, ref_sigma, fast_sigma)


def zcdp_sigma_within_target(call, ref_sigma, fast_sigma):
    """Safe side of a zCDP-calibrated sigma: rho = Delta^2/(2 sigma^2) of FAST's sigma (exact fraction, rounded up)
    converts, by the reference's mpmath tight conversion, to at most the target epsilon."""
    from fractions import Fraction

    from reference.accounting import zcdp_to_dp_tight

    sensitivity, epsilon, delta = call.args
    rho = Fraction(sensitivity) ** 2 / (2 * Fraction(fast_sigma) ** 2)
    rho_up = float(rho) if Fraction(float(rho)) >= rho else math.nextafter(float(rho), math.inf)
    assert zcdp_to_dp_tight(rho_up, delta) <= epsilon, (call, ref_sigma, fast_sigma)


def rho_within_target(call, ref_rho, fast_rho):
    """Safe side of the largest rho for (epsilon, delta): the reference's tight conversion of FAST's rho is within
    epsilon (a rho rounded up past the boundary fails)."""
    from reference.accounting import zcdp_to_dp_tight

    epsilon, delta = call.args
    assert zcdp_to_dp_tight(fast_rho, delta) <= epsilon, (call, ref_rho, fast_rho)


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
