"""Comparison of everything a user can observe: values, dtype, shape, nested results."""
from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np


def assert_same(ref, fast, *, rtol: float = 1e-12, atol: float = 0.0, path: str = "result") -> None:
    """Raise AssertionError unless ``ref`` and ``fast`` agree: same type family, dtype, shape, and values
    within ``|ref - fast| <= atol + rtol * |ref|`` elementwise (exact for integers, booleans, strings)."""
    if dataclasses.is_dataclass(ref) and not isinstance(ref, type):
        assert type(ref).__name__ == type(fast).__name__, f"{path}: {type(ref).__name__} vs {type(fast).__name__}"
        for f in dataclasses.fields(ref):
            assert_same(getattr(ref, f.name), getattr(fast, f.name), rtol=rtol, atol=atol, path=f"{path}.{f.name}")
        return
    if isinstance(ref, dict):
        assert isinstance(fast, dict) and set(ref) == set(fast), f"{path}: keys {set(ref)} vs {set(fast) if isinstance(fast, dict) else type(fast)}"
        for k in ref:
            assert_same(ref[k], fast[k], rtol=rtol, atol=atol, path=f"{path}[{k!r}]")
        return
    if isinstance(ref, (tuple, list)):
        assert isinstance(fast, (tuple, list)) and type(ref) is type(fast), f"{path}: {type(ref)} vs {type(fast)}"
        assert len(ref) == len(fast), f"{path}: length {len(ref)} vs {len(fast)}"
        for i, (a, b) in enumerate(zip(ref, fast)):
            assert_same(a, b, rtol=rtol, atol=atol, path=f"{path}[{i}]")
        return
    if isinstance(ref, np.ndarray):
        assert isinstance(fast, np.ndarray), f"{path}: ndarray vs {type(fast).__name__}"
        assert ref.dtype == fast.dtype, f"{path}: dtype {ref.dtype} vs {fast.dtype}"
        assert ref.shape == fast.shape, f"{path}: shape {ref.shape} vs {fast.shape}"
        if ref.dtype.kind in "biuUSO":
            assert np.array_equal(ref, fast), f"{path}: arrays differ exactly"
        else:
            np.testing.assert_allclose(fast, ref, rtol=rtol, atol=atol, err_msg=path, equal_nan=False)
        return
    if isinstance(ref, (bool, np.bool_, str, type(None), Fraction)) or isinstance(ref, (int, np.integer)) and not isinstance(ref, bool) and isinstance(fast, (int, np.integer)):
        assert ref == fast and type(ref) is type(fast), f"{path}: {ref!r} ({type(ref).__name__}) vs {fast!r} ({type(fast).__name__})"
        return
    if isinstance(ref, (float, np.floating, int)):
        assert isinstance(fast, (float, np.floating, int)) and not isinstance(fast, bool), f"{path}: float vs {type(fast).__name__}"
        assert type(ref) is type(fast), f"{path}: type {type(ref).__name__} vs {type(fast).__name__}"
        a, b = float(ref), float(fast)
        if math.isinf(a) or math.isinf(b):
            assert a == b, f"{path}: {a} vs {b}"
            return
        assert not (math.isnan(a) or math.isnan(b)), f"{path}: NaN result ({a} vs {b})"
        assert abs(a - b) <= atol + rtol * abs(a), f"{path}: {a!r} vs {b!r} (rtol={rtol}, atol={atol})"
        return
    assert ref == fast, f"{path}: {ref!r} vs {fast!r}"
