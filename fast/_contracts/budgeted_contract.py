"""Input contract and shared conventions of ``reference.budgeted`` / ``fast.budgeted`` (kusner2016 ch. 1-2, ASTC).

Both packages validate through these functions, so the same bad input raises the same exception type with the
same message, and both return the same result types (:class:`TreeModel`, :class:`L1Logistic`).

Numerical conventions (the thesis leaves them open; both packages follow them exactly):

* **Node objective** (eq. 2.12, corrected as the claims note says): ``z(A)`` is the weighted R^2 of the
  weighted least-squares fit of ``y`` on the columns ``A`` *with an intercept* (equivalently: columns and ``y``
  centred by their weighted node means).  So ``z(empty) = 0`` and ``Var(y; p) = sum_i p_i (y_i - ybar_p)^2``.
  The thesis's own Var omits the 1/n of ``l^k`` and the node mean; the greedy argmax is unaffected.
* **Span tolerance**: a candidate column whose weighted-centred residual after Gram-Schmidt has squared norm
  ``<= SPAN_TOL * ||x_a||^2`` (its own centred squared norm) is in the span of the chosen ones and is skipped.
  A constant column (centred squared norm ``<= CONST_TOL`` times its uncentred one, i.e. rounding noise) is
  set to exactly zero, so it is never chosen; likewise a constant y gives ``Var = 0``.
* **Gain tolerance**: the greedy stops when the best R^2 increase is ``<= GAIN_TOL`` (y already explained or
  orthogonal to every remaining column); otherwise it would spend budget on features that fit nothing.
* **Zero costs** are features already paid for (by ancestors in the tree): they are taken first, best R^2
  increase first (the limit c -> 0+ of eq. 2.11), as long as they add a direction (span tolerance) and gain.
* **Feasible-prefix rule** (Streeter-Golovin / Grubb-Bagnell, ``G<L>``): the greedy picks the best
  gain/cost candidate among ALL remaining ones; if it does not fit in the remaining budget it stops (it does not
  skip to a cheaper one).  Algorithm 1's ``while sum c <= B: add`` would overshoot B; this is the prefix the
  theorems are about.
* **Ties**: a candidate whose score is within a relative ``TIE_TOL`` of the best counts as tied with it, and the
  lowest index among the tied wins (rounding differences between implementations must not pick different
  features, e.g. when several features each complete a saturated fit, R^2 -> 1, on a small node).
* **Node with no weight or constant y** (``Var = 0``): nothing is selected, the node predicts its weighted mean
  (a node with no weight at all copies its parent's predictor and threshold).
* **Threshold**: from the weighted median of the node scores ``s_i = b^k + x_i^T beta^k`` over the inputs with
  weight ``p_i > 0`` (weights p_i).  Let m be the lower weighted median (the smallest s with cumulative weight
  ``>= total / 2``) and tol = ``TIE_TOL * max(1, max |s|)``; scores ``<= m + tol`` are tied with m (equal up to
  rounding, e.g. of a saturated fit) or below it.  theta is midway between the largest tied score and the first
  score ``> m + tol`` (so no training input sits on the threshold and the tied group cannot be re-routed at predict
  time), or the largest tied score itself when no score is above m + tol.  Every tied score is ``<= theta`` and
  goes left with m.  Input goes to the
  *right* (upper) child ``2k + 2`` if ``s > theta`` and to the *left* (lower) child ``2k + 1`` otherwise (heap
  order, root 0).  Soft variant (ASTC, soft): children get ``p sigma(s - theta)`` and ``p (1 - sigma(s - theta))``
  in training; routing at test time is hard in both variants, so the test-time cost of an input is the cost of
  the distinct features selected on its root-to-leaf path (each paid once).
* **Budgets**: ``node_budget`` and ``budget`` below the cheapest feature cost are refused by ``fit_tree`` (and the
  estimators) with a ValueError naming the argument (``check_budget_affords_a_feature``): they could only give a
  constant model.  ``greedy_select`` / ``budgeted_greedy`` accept any budget >= 0 (a node's remaining budget may
  be below every new cost): it then selects only the free (cost 0) features, ``[]`` when there are none.
  ``node_budget`` is the thesis's per-node new-feature budget B; ``budget`` bounds the cost of every
  root-to-leaf path: a node's greedy may add a feature iff ``fsum(costs of its new features + the candidate's) <=
  node_budget`` and ``fsum(costs already paid on its path + its new features + the candidate's) <= budget``.  Both
  tests use ``math.fsum`` (the correctly rounded exact sum), the summation of the reported ``leaf_cost`` /
  ``path_cost``, so ``path_cost <= budget`` holds exactly in floats (a running ``spent += c`` could round 0.1 + 0.4
  + 0.2 down to 0.7 while the reported cost is 0.7000000000000001).
* **Greedy rule** (``greedy=``, :data:`GREEDY_RULES`; ``check_greedy``): ``"prefix"`` is the thesis's rule above (the
  largest feasible prefix; one unaffordable best-ratio feature ends the selection).  ``"best_of"`` is the standard
  remedy (Khuller, Moss and Naor 1999; Krause and Guestrin 2005): the cost-benefit greedy continues over the
  features that still fit (an unaffordable one is skipped, never taken later: the remaining budget only shrinks),
  then the result is the better of that set and the best single affordable feature (largest gain after the free
  features; ties: lowest index).  The single replaces the greedy set iff its gain exceeds the greedy set's total
  gain (``math.fsum`` of the recorded gains) by more than a relative ``TIE_TOL`` (on set-function tables: iff its
  value is strictly larger).  For monotone submodular s: ``s(best_of) >= (1 - 1/e) / 2 * max{s(A): c(A) <= B}``;
  ``best_of`` contains the prefix or beats it, so the prefix's guarantees (Streeter-Golovin, Grubb-Bagnell) carry
  over.  ``fit_tree`` / ``greedy_select`` / ``budgeted_greedy`` default to ``"prefix"`` (the thesis); the ASTC
  estimators default to ``"best_of"``.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from fast._contracts.validation import as_float_matrix, as_float_vector, check_int, check_real

SPAN_TOL = 1e-9
#: a weighted-centred column (or y) whose squared norm is <= CONST_TOL * its uncentred weighted squared norm is
#: constant on the node (rounding noise of the centring): it is set to exactly 0
CONST_TOL = 1e-20
GAIN_TOL = 1e-12
TIE_TOL = 1e-9
#: exhaustive functions refuse more features than this (2^d subsets, 3^d pairs for the submodularity ratio)
MAX_EXHAUSTIVE_D = 14
#: cost-weighted l1 logistic regression (eq. 2.5): FISTA defaults
L1_MAX_ITER = 5000
L1_TOL = 1e-10


def check_xy(X, y, *, name_x: str = "X", name_y: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """X: (n, d) finite float matrix with n >= 1; y: (n,) finite floats."""
    X = as_float_matrix(X, name_x)
    y = as_float_vector(y, name_y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"{name_y} must have length {X.shape[0]} (one value per row of {name_x}), got {y.shape[0]}")
    return X, y


def check_costs(costs, d: int, *, allow_zero: bool, name: str = "costs") -> np.ndarray:
    """Feature costs: length d, finite, > 0 (``allow_zero=False``) or >= 0 (``allow_zero``: 0 = already paid)."""
    c = as_float_vector(costs, name, length=d)
    if allow_zero:
        if np.any(c < 0):
            raise ValueError(f"{name} must be >= 0 (0 marks a feature already paid for), found {c[c < 0][0]!r}")
    elif np.any(c <= 0):
        raise ValueError(f"{name} must be > 0 for every feature, found {c[c <= 0][0]!r}")
    return c


def check_budget(budget, name: str = "budget") -> float:
    """A budget: a number >= 0, +inf allowed (no bound)."""
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real):
        raise TypeError(f"{name} must be a real number >= 0 (inf for no bound), got {budget!r}")
    b = float(budget)
    if math.isnan(b) or b < 0:
        raise ValueError(f"{name} must be a number >= 0 (inf for no bound), got {b}")
    return b


def check_budget_affords_a_feature(value: float, costs, name: str) -> None:
    """A tree's ``budget`` or ``node_budget`` must be >= the cheapest feature cost (costs > 0): below it no node
    could select any feature and the tree would be a constant model (the training mean), so it is refused for both
    arguments rather than fitted silently.  (Inside a tree a node's REMAINING budget may well fall below every new
    cost; that node then keeps its ancestors' features only.)"""
    cheapest = float(min(costs))
    if value < cheapest:
        raise ValueError(f"{name} must be >= the cheapest feature cost {cheapest!r} (below it no input could be "
                         f"given any feature: a constant model), got {value!r}")


def check_weights(sample_weight, n: int) -> np.ndarray:
    """None -> ones(n); else length n, finite, >= 0."""
    if sample_weight is None:
        return np.ones(n)
    w = as_float_vector(sample_weight, "sample_weight", length=n)
    if np.any(w < 0):
        raise ValueError(f"sample_weight must be >= 0, found {w[w < 0][0]!r}")
    return w


def check_subset(subset, d: int) -> list[int]:
    """Distinct feature indices in [0, d) (any iterable of ints, possibly empty), sorted."""
    if isinstance(subset, (str, bytes)) or subset is None:
        raise TypeError(f"subset must be an iterable of feature indices, got {type(subset).__name__}")
    out = []
    for j in subset:
        if isinstance(j, bool) or not isinstance(j, numbers.Integral):
            raise TypeError(f"subset must hold integer feature indices, got {j!r}")
        if not 0 <= int(j) < d:
            raise ValueError(f"subset indices must be in [0, {d}), got {int(j)}")
        out.append(int(j))
    if len(set(out)) != len(out):
        raise ValueError("subset must not repeat a feature index")
    return sorted(out)


def check_exhaustive_d(d: int, name: str = "X") -> None:
    if d > MAX_EXHAUSTIVE_D:
        raise ValueError(f"{name} has {d} columns: exhaustive enumeration is limited to d <= {MAX_EXHAUSTIVE_D}")


def check_k(k, d: int) -> int:
    return check_int(k, "k", minimum=1, maximum=max(d, 1))


def check_set_table(values, name: str = "values") -> tuple[np.ndarray, int]:
    """A set function on {0..d-1} as a table of 2^d values indexed by bitmask (bit j = feature j in the set)."""
    v = as_float_vector(values, name)
    size = v.shape[0]
    d = size.bit_length() - 1
    if size != 1 << d:
        raise ValueError(f"{name} must have length 2^d (one value per subset, indexed by bitmask), got {size}")
    check_exhaustive_d(d, name)
    return v, d


#: the budgeted greedy's rules: the thesis's largest feasible prefix, and continue-with-affordable + best single
GREEDY_RULES = ("prefix", "best_of")


def check_greedy(greedy) -> str:
    """``greedy`` must be one of :data:`GREEDY_RULES` (a str)."""
    if not isinstance(greedy, str):
        raise TypeError(f"greedy must be one of {GREEDY_RULES} (a str), got {greedy!r}")
    if greedy not in GREEDY_RULES:
        raise ValueError(f"greedy must be one of {GREEDY_RULES}, got {greedy!r}")
    return greedy


def check_depth(depth) -> int:
    return check_int(depth, "depth", minimum=1, maximum=20)


def check_lam(lam) -> float:
    return check_real(lam, "lam", low=0.0)


def check_labels_pm1(y, n: int) -> np.ndarray:
    y = as_float_vector(y, "y", length=n)
    if not np.all((y == 1) | (y == -1)):
        raise ValueError("y must contain only -1 and +1")
    return y


@dataclass(frozen=True)
class TreeModel:
    """A fitted tree of sparse linear predictors in heap order (node k: children 2k+1 (s <= theta), 2k+2).

    ``features[k]``: the ordered features node k selected (ancestors' free ones first); ``coef`` (n_nodes, d)
    and ``intercept`` (n_nodes,): node predictor ``s = intercept[k] + X @ coef[k]``; ``threshold`` (n_nodes,):
    +inf at leaves; ``gains[k]``: the R^2 increase of each selected feature, in order; ``weight`` (n_nodes,): the
    total training weight the node received; ``leaf_cost`` (n_leaves,): cost of the distinct features on the
    path to each leaf (leaf index = node - (n_nodes - n_leaves)); ``depth``."""

    depth: int
    features: tuple
    coef: np.ndarray
    intercept: np.ndarray
    threshold: np.ndarray
    gains: tuple
    weight: np.ndarray
    leaf_cost: np.ndarray


@dataclass(frozen=True)
class L1Logistic:
    """Cost-weighted l1 logistic regression (eq. 2.5): coef (d,), intercept, objective value, iterations."""

    coef: np.ndarray
    intercept: float
    objective: float
    n_iter: int


def sigmoid(t: float) -> float:
    """Numerically safe logistic function of one float (shared so both packages round identically)."""
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)
