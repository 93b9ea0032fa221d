"""Reference vs fast, for every pair of spec.pairs.PAIRS (one equivalence test per public function).

Compares values (with the tolerance written in the pair), dtype and shape, and that both raise the same
exception type on the same input; on the pair's bad inputs both must raise ValueError or TypeError.
"""
import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spec.compare import assert_same
from spec.pairs import load_pairs

PAIRS = load_pairs()


def _call(func, call):
    args = copy.deepcopy(call.args)
    kwargs = copy.deepcopy(call.kwargs)
    snapshot = copy.deepcopy((args, kwargs))
    try:
        out = func(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared below
        out_exc = exc
        out = None
    else:
        out_exc = None
    # nothing a caller passes in is modified
    for before, after in zip(_leaves(snapshot), _leaves((args, kwargs))):
        if isinstance(before, np.ndarray):
            numeric = before.dtype.kind in "biufc"
            assert np.array_equal(before, after, equal_nan=numeric), f"{func.__module__}.{func.__name__} modified its input"
    return out, out_exc


def _leaves(obj):
    if isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _leaves(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _leaves(o)
    else:
        yield obj


@pytest.mark.equivalence
@pytest.mark.parametrize("key", sorted(PAIRS))
def test_reference_matches_fast(key):
    pair = PAIRS[key]
    outcomes = []

    @settings(max_examples=pair.max_examples)
    @given(call=pair.inputs)
    def run(call):
        ref_out, ref_exc = _call(pair.reference, call)
        fast_out, fast_exc = _call(pair.fast, call)
        if ref_exc is not None or fast_exc is not None:
            assert type(ref_exc) is type(fast_exc), f"reference raised {ref_exc!r}, fast raised {fast_exc!r}"
            assert isinstance(ref_exc, (ValueError, TypeError)), f"unexpected exception {ref_exc!r}"
            outcomes.append(False)
            return
        if pair.compare is not None:
            pair.compare(ref_out, fast_out)
        else:
            rtol = pair.rtol if pair.rtol_for is None else max(pair.rtol, pair.rtol_for(call))
            assert_same(ref_out, fast_out, rtol=rtol, atol=pair.atol)
        if pair.safe_side is not None:
            pair.safe_side(call, ref_out, fast_out)
        outcomes.append(True)

    run()
    # values, not only errors, were compared (hypothesis may replay examples: the fraction is over all runs)
    compared = sum(outcomes) / max(len(outcomes), 1)
    assert compared >= pair.min_compared, f"{key}: values compared on {compared:.0%} of examples (< {pair.min_compared:.0%})"


@pytest.mark.equivalence
@pytest.mark.parametrize("key", sorted(k for k, p in PAIRS.items() if p.bad_inputs is not None))
def test_bad_input_raises_same_error(key):
    pair = PAIRS[key]

    @settings(max_examples=max(20, pair.max_examples // 2))
    @given(call=pair.bad_inputs)
    def run(call):
        _, ref_exc = _call(pair.reference, call)
        _, fast_exc = _call(pair.fast, call)
        assert isinstance(ref_exc, (ValueError, TypeError)), f"reference accepted bad input (raised {ref_exc!r})"
        assert type(ref_exc) is type(fast_exc), f"reference raised {ref_exc!r}, fast raised {fast_exc!r}"
        assert str(ref_exc) == str(fast_exc), f"messages differ: {ref_exc} / {fast_exc}"

    run()


def test_every_pair_has_bad_inputs_or_a_reason():
    missing = [k for k, p in PAIRS.items() if p.bad_inputs is None and "no bad input" not in p.note]
    assert not missing, f"pairs without bad_inputs (or a 'no bad input: why' note): {missing}"


def test_pairs_cover_every_public_function():
    """Each public function of a paired module in reference has a pair (same names in fast); a function both
    packages re-export as ONE object (the shared default ledger of fast._contracts.budget_ledger) needs none."""
    import importlib
    import inspect

    modules = {k.split(".")[0] for k in PAIRS}
    missing = []
    for mod in sorted(modules):
        ref = importlib.import_module(f"reference.{mod}")
        fast = importlib.import_module(f"fast.{mod}")
        public = getattr(ref, "__all__", None) or [n for n, o in vars(ref).items()
                                                   if inspect.isfunction(o) and not n.startswith("_") and o.__module__ == ref.__name__]
        for name in public:
            assert hasattr(fast, name), f"fast.{mod} lacks {name} (reference.{mod} has it)"
            shared = getattr(ref, name) is getattr(fast, name)  # one object in both packages: equal by construction
            if inspect.isfunction(getattr(ref, name)) and not shared and f"{mod}.{name}" not in PAIRS:
                missing.append(f"{mod}.{name}")
    assert not missing, f"public functions with no reference/fast pair: {missing}"
