"""The input contract of ``reference.impact_coding`` and ``fast.impact_coding`` (winvector2015).

Shared by both packages so that the same bad input raises the same exception with the same message, and so
that both return the same result type (:class:`CodeTable`).  The numerical conventions (floors, clips, what a
novel or pruned level is coded) are written here once.

Conventions (the paper gives prose only; the formulas are vtreat's public R code and the post's own
experiment code, marked [EXT] in ``shared/claims``):

* **Levels.**  A column is factorised into levels sorted ascending (strings lexicographically, numbers
  numerically); the missing value (None, float NaN, pandas NA / NaT) is a level of its own, listed LAST
  (vtreat maps NA to the level "NA" the same way).  Levels of one column must share one kind: str, int,
  float or bool (a column mixing kinds is refused: ``1`` and ``"1"`` would otherwise be silently two levels).
* **Count tables.**  Binary target: one row per level ``[n_pos, n_neg]``.  Continuous target:
  ``[count, sum_y, sum_y^2]``.
* **Novel and pruned levels** are coded by the coder's ``default`` row: 0 for the Bayes, log-lift and mean
  codes; for the count code the floored zero counts ``[1e-3, 1e-3, 0, 1]`` (the post's ``countCode``).
  vtreat would code a novel level with the rare pool's code when rare pooling is on; we code it as novel
  (the issue asks for "novel levels coded 0"), a documented divergence.
* **Rare pooling** (``rare_count``, vtreat ``rareCount``): levels with ``0 < count <= rare_count`` or
  ``count >= N - rare_count`` are pooled into one rare group; a group (a level or the pool) is eligible
  when ``rare_count < count < N - rare_count``.  vtreat codes an ineligible pool anyway (unpruned); we code it
  as pruned (0), a documented divergence that only matters when the pool itself is tiny.
* **Significance pruning** (``rare_sig``, vtreat ``rareSig``): when ``rare_sig < 1`` an eligible group is kept
  only if its p-value is ``<= rare_sig``.  The p-value of every present group is computed and reported
  (``CodeTable.p_value``, ``ImpactEncoder.score_frame_``) whatever ``rare_sig`` is.  Binary target: the 2x2 table (in the group or not) x (positive or
  not); p = 1 if the table has an empty row or column; Fisher's exact two-sided test (R's rule: sum of the
  hypergeometric probabilities <= (1 + 1e-7) P(observed)) when a cell is <= 10 or an expected count is < 5
  (R's ``chisq.test`` warns there and vtreat then falls back to Fisher); Pearson's chi-square with Yates'
  continuity correction (R's default for 2x2) otherwise.  Continuous target: the F test of ``y ~ (level ==
  c)`` (vtreat's ``lm`` / ``anova``), p = 1 when it is undefined.  Counts are rounded to integers for the
  test (a no-op for exact counts; post-processing for Laplace-noised counts).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CODES",
    "CONSTRUCTIONS",
    "TARGET_TYPES",
    "CodeTable",
    "COUNT_FLOOR",
    "check_code",
    "check_folds",
    "check_level_index",
    "check_rare_count",
    "check_rare_sig",
    "check_smoothing",
    "check_target",
    "check_table",
    "default_row",
    "level_kind",
    "resolve_code",
]

CODES = ("bayes", "log_lift", "count", "mean")
TARGET_TYPES = ("binary", "continuous")
CONSTRUCTIONS = ("cross", "split", "jackknife", "naive")
#: the post's floor on (noisy) counts: ``max(count, 1e-3)``  [EXT conditionalCounts]
COUNT_FLOOR = 1e-3
#: vtreat floors the Bayes smoothing factor at 1e-4 and clips the base rate to [1e-6, 1 - 1e-6]  [EXT catB]
BAYES_SMOOTHING_FLOOR = 1e-4
BAYES_RATE_CLIP = 1e-6
#: the post's experiment code floors the smoothing at 1e-3 and the total at 1e-3  [EXT bayesCode]
LOG_LIFT_SMOOTHING_FLOOR = 1e-3
#: the count coder flags a level rare when both (floored) counts are below this  [EXT countCode]
COUNT_RARE_BELOW = 10.0
#: R's fisher.test tie tolerance
FISHER_REL_ERR = 1.0 + 1e-7
#: vtreat uses Fisher when a cell is at most this
FISHER_MAX_CELL = 10
#: R's chisq.test warns (and vtreat falls back to Fisher) when an expected count is below this
CHISQ_MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class CodeTable:
    """A fitted single-variable coder over ``n_levels`` levels (index ``0 .. n_levels-1``).

    Attributes
    ----------
    count : ndarray (n_levels,) float64
        How many training rows (or noisy counts) of each level the coder saw (0: the level is novel to it).
    pooled : ndarray (n_levels,) bool
        The level was pooled into the rare group (``rare_count``).
    p_value : ndarray (n_levels,) float64
        The significance of the level's group (the pool's for pooled levels; 1.0 for absent levels, by the
        empty-row rule), computed whatever ``rare_sig`` is (as vtreat's score frame), for eligible and ineligible
        groups alike (only eligible groups are pruned by it).
    kept : ndarray (n_levels,) bool
        The level codes a non-default value (present, eligible, significant).
    code : ndarray (n_levels, n_columns) float64
        The code of each level (the ``default`` row where not kept).
    default : ndarray (n_columns,) float64
        The code of a novel or pruned level.
    """

    count: np.ndarray
    pooled: np.ndarray
    p_value: np.ndarray
    kept: np.ndarray
    code: np.ndarray
    default: np.ndarray


# ---------------------------------------------------------------------------------------------------------
# scalar options
# ---------------------------------------------------------------------------------------------------------
def check_code(code, target_type):
    """``code`` in CODES and compatible with ``target_type``; "auto" is bayes (binary) or mean (continuous)."""
    if target_type not in TARGET_TYPES:
        raise ValueError(f"target_type must be one of {TARGET_TYPES}, got {target_type!r}")
    if code == "auto":
        return "bayes" if target_type == "binary" else "mean"
    if code not in CODES:
        raise ValueError(f"code must be one of {CODES} or 'auto', got {code!r}")
    if target_type == "binary" and code == "mean":
        return code  # the mean of a 0/1 outcome is allowed (the rate difference)
    if target_type == "continuous" and code != "mean":
        raise ValueError(f"code={code!r} needs a binary target (target_type='binary'); use code='mean' for a "
                         f"continuous target")
    return code


resolve_code = check_code


def check_counts(name, *arrays, counts=True):
    """Each array holds finite numbers, and (``counts``) none is negative: the code functions' count inputs.

    Both packages call it before computing, so a negative or NaN count is the same ValueError in both (the reference
    hit a math domain error where fast returned NaN)."""
    for i, values in enumerate(arrays):
        arr = np.asarray(values, dtype=np.float64)
        label = name.split(",")[i].strip() if "," in name else name
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{label} must hold finite numbers (no NaN or inf)")
        if counts and np.any(arr < 0):
            raise ValueError(f"{label} must hold counts >= 0, got a negative value {float(arr.min())!r}")


def check_smoothing(smoothing, name="smoothing"):
    if isinstance(smoothing, bool) or not isinstance(smoothing, numbers.Real):
        raise TypeError(f"{name} must be a finite number >= 0, got {type(smoothing).__name__}")
    if not math.isfinite(smoothing) or smoothing < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {smoothing!r}")
    return float(smoothing)


def check_rare_sig(rare_sig):
    if isinstance(rare_sig, bool) or not isinstance(rare_sig, numbers.Real):
        raise TypeError(f"rare_sig must be a number in (0, 1], got {type(rare_sig).__name__}")
    if not (0 < rare_sig <= 1):
        raise ValueError(f"rare_sig must be a number in (0, 1] (1 = no pruning), got {rare_sig!r}")
    return float(rare_sig)


def check_rare_count(rare_count):
    if isinstance(rare_count, bool) or not isinstance(rare_count, numbers.Integral):
        raise TypeError(f"rare_count must be an int >= 0, got {type(rare_count).__name__}")
    if rare_count < 0:
        raise ValueError(f"rare_count must be an int >= 0, got {rare_count!r}")
    return int(rare_count)


def default_row(code):
    """The code of a novel or pruned level."""
    if code == "count":
        return np.array([COUNT_FLOOR, COUNT_FLOOR, 0.0, 1.0])
    return np.zeros(1)


# ---------------------------------------------------------------------------------------------------------
# arrays
# ---------------------------------------------------------------------------------------------------------
def check_level_index(index, n_levels, name="index", *, allow_novel=False):
    """A 1-d int64 array of level indices in ``[0, n_levels)`` (``-1`` = novel allowed when ``allow_novel``)."""
    if isinstance(n_levels, bool) or not isinstance(n_levels, numbers.Integral):
        raise TypeError(f"n_levels must be an int >= 1, got {type(n_levels).__name__}")
    if n_levels < 1:
        raise ValueError(f"n_levels must be an int >= 1, got {n_levels!r}")
    arr = np.asarray(index)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array of level indices, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    low = -1 if allow_novel else 0
    if arr.min() < low or arr.max() >= n_levels:
        raise ValueError(f"{name} must hold level indices in [{low}, n_levels={n_levels}), got values in "
                         f"[{arr.min()}, {arr.max()}]")
    return arr.astype(np.int64, copy=False)


def check_target(y, target_type, length, name="y"):
    """Binary: a 0/1 int64 array with both classes; continuous: a finite float64 array (no NaN)."""
    if target_type not in TARGET_TYPES:
        raise ValueError(f"target_type must be one of {TARGET_TYPES}, got {target_type!r}")
    if isinstance(y, (str, bytes)) or y is None:
        raise TypeError(f"{name} must be a 1-d numeric array, got {type(y).__name__}")
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {arr.shape}")
    if arr.shape[0] != length:
        raise ValueError(f"{name} must have one value per row ({length}), got {arr.shape[0]}")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a 1-d numeric array, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN (a missing outcome cannot be coded)")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite numbers")
    if target_type == "binary":
        if not np.isin(arr, (0.0, 1.0)).all():
            raise ValueError(f"{name} must be binary (values 0 and 1) for a binary code; got values outside "
                             f"{{0, 1}} (use target_type='continuous' and code='mean' for a numeric outcome)")
        if arr.min() == arr.max():
            raise ValueError(f"{name} must contain both classes 0 and 1, got a single class {arr[0]:g}")
        return arr.astype(np.int64)
    return arr


def check_table(table, target_type, name="table"):
    """A count table: (n_levels, 2) [n_pos, n_neg] (binary) or (n_levels, 3) [count, sum_y, sum_y2]."""
    arr = np.asarray(table)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or arr.dtype == bool:
        raise TypeError(f"{name} must be a numeric count table, got dtype {arr.dtype}")
    width = 2 if target_type == "binary" else 3
    if arr.ndim != 2 or arr.shape[1] != width or arr.shape[0] < 1:
        raise ValueError(f"{name} must have shape (n_levels >= 1, {width}) for target_type={target_type!r}, "
                         f"got {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite numbers")
    if (arr[:, 0] < 0).any() or (target_type == "binary" and (arr[:, 1] < 0).any()):
        raise ValueError(f"{name} counts must be >= 0")
    return arr


def check_folds(folds, length, name="folds"):
    """Fold ids (int, one per row) taking k >= 2 distinct values, k <= rows; returns (folds int64, k ids)."""
    arr = np.asarray(folds)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array of fold ids, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.shape[0] != length:
        raise ValueError(f"{name} must be a 1-d array with one fold id per row ({length}), got shape {arr.shape}")
    k = np.unique(arr)
    if k.size < 2:
        raise ValueError(f"{name} must define k >= 2 folds, got {k.size}")
    return arr.astype(np.int64, copy=False), k


# ---------------------------------------------------------------------------------------------------------
# level kinds (the slow, exact classification; fast uses it only to word its errors the same way)
# ---------------------------------------------------------------------------------------------------------
def is_missing(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, np.floating) and np.isnan(value):
        return True
    name = type(value).__name__
    return name in ("NAType", "NaTType")


def _kind(value, name="v") -> str:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (numbers.Integral, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, str):
        return "str"
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"{name} must hold hashable levels (str, int, float or bool), got an unhashable "
                        f"{type(value).__name__}") from None
    raise TypeError(f"{name} must hold levels of kind str, int, float or bool, got {type(value).__name__}")


def level_kind(values, name="v") -> str:
    """The one kind (str, int, float, bool) of the non-missing values of a column; 'none' when all missing."""
    kinds = set()
    for value in values:
        if is_missing(value):
            continue
        kinds.add(_kind(value, name))
    if len(kinds) > 1:
        raise TypeError(f"{name} must hold levels of one kind, got a mix of {sorted(kinds)} (convert the column "
                        f"to str first if that is meant)")
    return kinds.pop() if kinds else "none"


def column_values(v, name="v"):
    """A 1-d object-free view of a column: ndarray or pandas Series/Categorical values; refuses 0 rows and 2-d."""
    if isinstance(v, (str, bytes)) or v is None or np.isscalar(v):
        raise TypeError(f"{name} must be a 1-d array-like column of levels, got {type(v).__name__}")
    if hasattr(v, "to_numpy") and not isinstance(v, np.ndarray):
        arr = v.to_numpy(dtype=object, na_value=None) if hasattr(v, "dtype") else np.asarray(v, dtype=object)
    else:
        arr = np.asarray(v) if not isinstance(v, (list, tuple)) else _object_array(v)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d column, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must not be empty (a column with 0 rows cannot be coded)")
    return arr


def _object_array(values):
    arr = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        arr[i] = value
    return arr
