"""The input contract shared by ``reference`` and ``fast``.

Both packages validate their arguments through these functions, so the same bad input raises the same
exception type with the same message in both (ARCHITECTURE: "Errors and input validation").  Every
message names the argument and the rule.  Nothing passed in is modified: array inputs are converted with
``np.asarray`` (which never writes to its argument) and the implementations never write to them.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

#: the public names (listed, so that ``spec.validation``, an alias of this module, documents them: issue 28)
__all__ = ["ENUMERATION_MEMORY_LIMIT", "as_float_matrix", "check_finite_array", "as_float_vector", "as_labels",
           "as_signatures", "scalar_of", "check_int", "check_real", "check_positive", "check_open_unit",
           "check_enumerable", "as_generator", "as_index_set", "signature_values_error", "as_signature_matrix"]

#: refuse to enumerate more than this many bytes (``all_rados``, ``g_matrix``, exhaustive solvers)
ENUMERATION_MEMORY_LIMIT = 2 * 1024**3


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_matrix(value, name: str, *, ndim: int = 2, allow_empty: bool = False,
                    check_finite: bool = True) -> np.ndarray:
    """A finite float64 array with ``ndim`` dimensions (a read-only view when no conversion is needed).

    ``check_finite=False`` leaves the finiteness test to a caller that fuses it into its own pass over the data
    and calls :func:`check_finite_array` (same message) when that pass sees a non-finite value."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a numeric array, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype != np.float64:  # float64 passes both type rules (skipping them saves ~2 us per call)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise TypeError(f"{name} must be a numeric array, got dtype {arr.dtype}")
        if np.iscomplexobj(arr):
            raise TypeError(f"{name} must be real-valued, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if check_finite:
        check_finite_array(arr, name)
    return arr


def check_finite_array(arr: np.ndarray, name: str) -> None:
    """The finiteness rule of :func:`as_float_matrix`: raise its ValueError if ``arr`` holds a NaN or an inf."""
    if arr.size > 4096:  # a finite sum proves every entry finite (NaN / inf propagate): one read, no temporary
        with np.errstate(over="ignore", invalid="ignore"):
            total = arr.sum()
        if math.isfinite(total):
            return
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")


def as_float_vector(value, name: str, *, length: int | None = None, allow_empty: bool = False) -> np.ndarray:
    arr = as_float_matrix(value, name, ndim=1, allow_empty=allow_empty)
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}, got {arr.shape[0]}")
    return arr


_TO_PM1 = " (map two-class labels with labels.to_pm1: y_pm, classes = to_pm1(y))"


def as_labels(y, name: str = "y", *, length: int | None = None) -> np.ndarray:
    """Labels in {-1, +1} as int8. Use :func:`fast.labels.to_pm1`-style helpers to map other encodings."""
    if isinstance(y, (str, bytes)) or y is None:
        raise TypeError(f"{name} must be an array of labels in {{-1, +1}}, got {type(y).__name__}{_TO_PM1}")
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or arr.dtype == bool:
        raise TypeError(f"{name} must hold the numbers -1 and +1, got dtype {arr.dtype}{_TO_PM1}")
    if not np.all((arr == 1) | (arr == -1)):
        bad = arr[~((arr == 1) | (arr == -1))][0]
        raise ValueError(f"{name} must contain only -1 and +1, found {bad.item()!r}{_TO_PM1}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length} (one label per row of X), got {arr.shape[0]}")
    return arr.astype(np.int8)


def as_signatures(sigmas, name: str = "sigmas", *, m: int | None = None) -> np.ndarray:
    """An (n, m) int8 array with entries in {-1, +1} (int8 input is returned as a read-only-by-contract view;
    the value test runs in row blocks, so no full-size temporaries): see :func:`as_signature_matrix`."""
    return as_signature_matrix(sigmas, name, m=m)


def scalar_of(value):
    """A 0-d numeric array (integer, unsigned or float dtype; not bool, not complex) as its Python scalar, so that
    ``np.array(1.0)`` is the number 1.0 wherever a number is asked for (issue 9: a 0-d array is a scalar);
    anything else is returned unchanged, for the caller's own type rule."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        return value.item()
    return value


def _kind(value) -> str:
    """What a refused value is, for a message: 'the float 2.0', 'the str '3'', 'a 0-d float64 array array(2.)'."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"a {value.ndim}-d {value.dtype} array {_describe(value)}"
    return f"the {type(value).__name__} {_describe(value)}"


def check_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer of an integer type (int, a numpy integer, or a 0-d integer array; not bool): a float is refused,
    even an integral one (2.0), as Python's own integer arguments refuse it (``range(2.0)``): no silent
    coercion, and the type rule does not depend on the value."""
    number = scalar_of(value)
    if isinstance(number, bool) or not isinstance(number, numbers.Integral):
        raise TypeError(f"{name} must be an integer-typed number (int or numpy integer, not bool), "
                        f"got {_kind(value)}")
    value = int(number)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be an integer <= {maximum}, got {value}")
    return value


def check_real(value, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False, allow_inf: bool = False) -> float:
    """A real number in the interval [low, high] (ends open when asked). NaN is always refused.  A 0-d numeric array
    is that number (:func:`scalar_of`); bool (and a 0-d bool array) is refused."""
    number = scalar_of(value)
    if isinstance(number, bool) or not isinstance(number, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_describe(value)}")
    try:
        value = float(number)
    except OverflowError:  # an int (or Fraction) beyond the float range: a bad value, not an arithmetic crash
        rule = _interval(low, high, low_open, high_open, allow_inf)
        raise ValueError(f"{name} must be a finite number{' ' + rule if rule else ''}, got an {type(number).__name__} "
                         "beyond the float range") from None
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        rule = _interval(low, high, low_open, high_open, allow_inf)
        raise ValueError(f"{name} must be a finite number{' ' + rule if rule else ''}, got {value}")
    if (low is not None and (value < low or (low_open and value == low))) or \
            (high is not None and (value > high or (high_open and value == high))):
        rule = _interval(low, high, low_open, high_open, allow_inf)
        raise ValueError(f"{name} must be a {'finite ' if not allow_inf else ''}number {rule}, got {value}")
    return value


def _interval(low, high, low_open, high_open, allow_inf) -> str:
    """The interval of :func:`check_real` as it is ("" when unbounded): an infinite end is open unless infinities
    are allowed.  Built only for the error message (formatting it on every call cost ~2 us)."""
    if low is None and high is None and not allow_inf:
        return ""
    lo = "[" if (low is None and allow_inf) or (low is not None and not low_open) else "("
    hi = "]" if (high is None and allow_inf) or (high is not None and not high_open) else ")"
    return f"in {lo}{'-inf' if low is None else low}, {'inf' if high is None else high}{hi}"


def check_positive(value, name: str) -> float:
    """A finite number > 0 (epsilon, sigma, sensitivity, lambda, ...)."""
    return check_real(value, name, low=0.0, low_open=True)


def check_open_unit(value, name: str) -> float:
    """A number in the open interval (0, 1) (q, gamma, delta, ...)."""
    return check_real(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


def check_enumerable(count: int, bytes_per_item: int, what: str, name: str = "m") -> None:
    """Refuse an enumeration whose output would exceed ENUMERATION_MEMORY_LIMIT, saying how much it needs."""
    need = count * bytes_per_item
    if need > ENUMERATION_MEMORY_LIMIT:
        raise ValueError(
            f"{name} too large to enumerate {what}: {count} items would take {need / 1024**3:.3g} GiB "
            f"(limit {ENUMERATION_MEMORY_LIMIT / 1024**3:.3g} GiB); sample instead"
        )


def as_generator(rng, name: str = "rng") -> np.random.Generator:
    """None -> a Generator seeded from OS entropy; an int seed -> default_rng(seed); a Generator -> itself."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name} seed must be >= 0, got {rng}")
        return np.random.default_rng(int(rng))
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    raise TypeError(f"{name} must be None, an int seed or a numpy.random.Generator, got {type(rng).__name__}")


def as_index_set(value, name: str, upper: int) -> np.ndarray:
    """A non-empty 1-d array of DISTINCT integer indices in [0, upper), as int64 (order kept)."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a 1-d array of integer indices, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be a 1-d array of integer indices, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of indices, got shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= upper or np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must hold distinct indices in [0, {upper})")
    return arr.astype(np.int64)


def signature_values_error(name: str = "sigmas") -> ValueError:
    """The error for signature entries outside {-1, +1} (shared by kernels that check the values themselves)."""
    return ValueError(f"{name} must contain only -1 and +1")


def as_signature_matrix(sigmas, name: str = "sigmas", *, m: int | None = None, check_values: bool = True) -> np.ndarray:
    """Same contract and messages as :func:`as_signatures`, for large inputs: the {-1, +1} test runs in row blocks
    (no full-size boolean temporaries) and an int8 input is returned as is (a view, never written to).
    ``check_values=False`` (int8 input only) leaves the value test to a caller that fuses it into its own pass
    and raises :func:`signature_values_error` itself."""
    if isinstance(sigmas, (str, bytes)) or sigmas is None:
        raise TypeError(f"{name} must be an (n, m) array in {{-1, +1}}, got {type(sigmas).__name__}")
    arr = np.asarray(sigmas)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or arr.dtype == bool:
        raise TypeError(f"{name} must hold the numbers -1 and +1, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array (one signature per row), got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise ValueError(f"{name} must hold at least one signature (n >= 1), got shape {arr.shape}")
    if m is not None and arr.shape[1] != m:
        raise ValueError(f"{name} must have m = {m} columns (one per example), got {arr.shape[1]}")
    if check_values or arr.dtype != np.int8:
        step = max(1, (16 * 1024**2) // max(1, arr.shape[1]))
        for start in range(0, arr.shape[0], step):
            block = arr[start:start + step]
            if np.iscomplexobj(block) or not np.all(np.abs(block) == 1):
                raise signature_values_error(name)
    return arr if arr.dtype == np.int8 else arr.astype(np.int8)
