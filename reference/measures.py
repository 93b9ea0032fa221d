"""Bounded measures over a sample [n], their divergences and the KL projection onto the kappa-dense set   [bun2020 s2]

Readable pure-Python mirror of :mod:`fast.measures`.  A bounded measure is mu: [n] -> [0, 1] (Def. 3); its size
is |mu| = sum_i mu(i), its density d(mu) = |mu| / n, its induced distribution mu^ = mu / |mu|.  Gamma_kappa is the
set of bounded measures of density >= kappa; the projection onto it in the generalised KL divergence (Def. 4,
Def. 7) is capped scaling (Lemma 9), computed here in the log domain (w = log mu~) so that measures whose entries
underflow a double (LB-NxM after 10^5 rounds) are projected exactly.  Output entries below the smallest normal
double (2.2e-308) are returned as 0 in both packages (spec.boosting_contract.LOG_TINY).  ``log`` is the natural logarithm.
"""
from __future__ import annotations

import math

import numpy as np

from spec.boosting_contract import LOG_TINY, as_log_measure, as_measure, as_pair, as_probability, check_kappa
from spec.links import implements
from spec.validation import check_real

__all__ = [
    "size",
    "density",
    "normalize",
    "kl",
    "statistical_distance",
    "renyi",
    "is_dense",
    "project_dense",
    "project_dense_log",
]


@implements("bun2020.def3")
def size(mu) -> float:
    """|mu| = sum_{x} mu(x)   [bun2020 Def. 3]

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure (entries in [0, 1]).

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        mu empty, not finite, or outside [0, 1].
    """
    m = as_measure(mu)
    return math.fsum(float(v) for v in m)


@implements("bun2020.def3")
def density(mu) -> float:
    """d(mu) = E_{x ~ U([n])} mu(x) = |mu| / n   [bun2020 Def. 3]

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure.

    Returns
    -------
    float
        |mu| / n.

    Raises
    ------
    ValueError, TypeError
        As :func:`size`.
    """
    m = as_measure(mu)
    return math.fsum(float(v) for v in m) / len(m)


@implements("bun2020.def3")
def normalize(mu) -> np.ndarray:
    """mu^(x) = mu(x) / |mu|   [bun2020 Def. 3]; the zero measure has no induced distribution (ValueError)

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure of positive size.

    Returns
    -------
    ndarray of shape (n,)
        The induced distribution mu / |mu|.

    Raises
    ------
    ValueError
        The zero measure, or a bad measure.
    """
    m = as_measure(mu)
    total = math.fsum(float(v) for v in m)
    if total == 0.0:
        raise ValueError("mu must have positive size |mu| > 0 (the zero measure induces no distribution)")
    return np.array([float(v) / total for v in m], dtype=np.float64)


@implements("bun2020.def4")
def kl(mu, nu) -> float:
    """KL(mu || nu) = sum_x [mu(x) log(mu(x)/nu(x)) + nu(x) - mu(x)], 0 log 0 = 0, +inf if mu(x) > 0 = nu(x)   [bun2020 Def. 4]

    Parameters
    ----------
    mu, nu : array-like of shape (n,)
        Non-negative vectors of the same length (measures or distributions).

    Returns
    -------
    float
        The generalised KL divergence (+inf when mu(x) > 0 = nu(x)).

    Raises
    ------
    ValueError, TypeError
        Negative, non-finite or mismatched inputs.
    """
    a, b = as_pair(mu, nu, names=("mu", "nu"))
    terms = []
    for x, y in zip(a, b):
        x, y = float(x), float(y)
        if x == 0.0:
            terms.append(y)
        elif y == 0.0:
            return math.inf
        else:
            terms.append(x * math.log(x / y) + y - x)
    return max(0.0, math.fsum(terms))


@implements("bun2020.def5")
def statistical_distance(p, q) -> float:
    """Delta(p, q) = max_S |p(S) - q(S)| = (1/2) sum_x |p(x) - q(x)|   [bun2020 Def. 5]; p, q distributions on [n]

    Parameters
    ----------
    p, q : array-like of shape (n,)
        Probability vectors (sums 1 within 1e-9).

    Returns
    -------
    float

    Raises
    ------
    ValueError, TypeError
        Not distributions, or different lengths.
    """
    a, b = as_pair(p, q, check=as_probability)
    return 0.5 * math.fsum(abs(float(x) - float(y)) for x, y in zip(a, b))


#: renyi's near-one form applies when (a - 1) max |log(p/q)| <= this (expm1 is then in [-0.4, 0.65]: no overflow)
NEAR_ONE_EXPONENT = 0.5


@implements("bun2020.def6")
def renyi(p, q, alpha) -> float:
    """D_a(p || q) = (1/(a-1)) log sum_x p(x)^a q(x)^(1-a), a > 1 (finite support)   [bun2020 Def. 6]

    +inf when p(x) > 0 = q(x) for some x.

    Parameters
    ----------
    p, q : array-like of shape (n,)
        Probability vectors.
    alpha : float
        Order, > 1.

    Returns
    -------
    float
        D_alpha(p || q) (+inf when p(x) > 0 = q(x)).

    Raises
    ------
    ValueError, TypeError
        Not distributions, or alpha <= 1.
    """
    a, b = as_pair(p, q, check=as_probability)
    order = check_real(alpha, "alpha", low=1.0, low_open=True)
    logs, ratios, masses = [], [], []
    for x, y in zip(a, b):
        x, y = float(x), float(y)
        if x == 0.0:
            continue
        if y == 0.0:
            return math.inf
        logs.append(order * math.log(x) + (1.0 - order) * math.log(y))
        ratios.append(math.log(x) - math.log(y))
        masses.append(x)
    if (order - 1.0) * max(abs(r) for r in ratios) <= NEAR_ONE_EXPONENT:
        # near a = 1, sum = 1 + O(a - 1) and log(sum) / (a - 1) loses digits to cancellation (1e-12 relative at
        # a = 1.0001): sum - 1 = (sum_x p(x) - 1) + sum_x p(x) expm1((a - 1) log(p(x)/q(x))), each part accurate
        excess = math.fsum(masses + [-1.0]) + math.fsum(m * math.expm1((order - 1.0) * r)
                                                        for m, r in zip(masses, ratios))
        return max(0.0, math.log1p(excess) / (order - 1.0))
    top = max(logs)
    return max(0.0, (top + math.log(math.fsum(math.exp(v - top) for v in logs))) / (order - 1.0))


@implements("bun2020.s2.dense-set")
def is_dense(mu, kappa) -> bool:
    """mu in Gamma_kappa  <=>  d(mu) >= kappa, i.e. |mu| >= kappa n   [bun2020 Section 2]

    Parameters
    ----------
    mu : array-like of shape (n,)
        A bounded measure.
    kappa : float in (0, 1)

    Returns
    -------
    bool

    Raises
    ------
    ValueError, TypeError
        Bad measure or kappa outside (0, 1).
    """
    m = as_measure(mu)
    k = check_kappa(kappa)
    return bool(math.fsum(float(v) for v in m) >= k * len(m))


def _exp(v: float) -> float:
    """exp(v), 0 below LOG_TINY (the smallest normal double; both packages: no subnormal results)."""
    return math.exp(v) if v > LOG_TINY else 0.0


def _logsumexp(values) -> float:
    finite = [v for v in values if v != -math.inf]
    if not finite:
        return -math.inf
    top = max(finite)
    return top + math.log(math.fsum(_exp(v - top) for v in finite))


@implements("bun2020.lemma9", "bun2020.def7")
def project_dense_log(log_mu, kappa) -> np.ndarray:
    """Pi_{Gamma_kappa}(mu~) for mu~ = exp(log_mu): mu(i) = min(1, c mu~(i)), c >= 1 the smallest constant with
    |mu| = kappa n (the identity if mu~ is already kappa-dense)   [bun2020 Lemma 9, capped scaling, log domain]

    ``log_mu``: log mu~(i) <= 0 (-inf allowed for mu~(i) = 0).  Raises ValueError when fewer than kappa n entries
    are positive (then every kappa-dense measure has infinite KL from mu~: no projection exists).

    Parameters
    ----------
    log_mu : array-like of shape (n,)
        log mu~ (entries <= 0; -inf for mu~(i) = 0).
    kappa : float in (0, 1)

    Returns
    -------
    ndarray of shape (n,)
        As :func:`project_dense`, computed without ever forming mu~ (no underflow).

    Raises
    ------
    ValueError, TypeError
        Entries > 0 or NaN, kappa outside (0, 1), or fewer than kappa n finite entries.
    """
    w = [float(v) for v in as_log_measure(log_mu)]
    k = check_kappa(kappa)
    n = len(w)
    target = k * n
    if _logsumexp(w) >= math.log(target):
        return np.array([_exp(v) for v in w], dtype=np.float64)  # already in Gamma_kappa: identity
    positive = sum(1 for v in w if v != -math.inf)
    if positive < target:
        raise ValueError(f"mu~ has {positive} positive entries, fewer than kappa n = {target!r}: every kappa-dense "
                         f"measure has infinite KL from it (no projection)")
    top = max(w)
    w = [v - top for v in w]  # capped scaling is invariant to scaling mu~: work relative to its largest entry
    order = sorted(range(n), key=lambda i: (-w[i], i))  # decreasing mu~, ties by index
    if positive == target:  # only the all-capped measure on the support has finite KL
        return np.array([0.0 if v == -math.inf else 1.0 for v in w], dtype=np.float64)
    capped = 0
    while True:  # capped = number of coordinates set to 1
        rest = [w[i] for i in order[capped:]]
        log_c = math.log(target - capped) - _logsumexp(rest)
        if w[order[capped]] + log_c <= 0.0 and (capped == 0 or w[order[capped - 1]] + log_c >= 0.0):
            break
        capped += 1
    return np.array([_exp(min(v + log_c, 0.0)) for v in w], dtype=np.float64)


@implements("bun2020.lemma9", "bun2020.def7")
def project_dense(mu, kappa) -> np.ndarray:
    """Pi_{Gamma_kappa}(mu~) = argmin_{mu in Gamma_kappa} KL(mu || mu~) = min(1, c mu~)   [bun2020 Def. 7, Lemma 9]

    Parameters
    ----------
    mu : array-like of shape (n,)
        The measure mu~ to project (entries in [0, 1]).
    kappa : float in (0, 1)
        Target density.

    Returns
    -------
    ndarray of shape (n,)
        min(1, c mu~) with |result| = kappa n (or mu~ itself when already kappa-dense); entries below 2.2e-308 are 0.

    Raises
    ------
    ValueError, TypeError
        A bad measure or kappa, or fewer than kappa n positive entries (no finite-KL projection).
    """
    m = as_measure(mu)
    check_kappa(kappa)
    return project_dense_log([math.log(float(v)) if v > 0 else -math.inf for v in m], kappa)
