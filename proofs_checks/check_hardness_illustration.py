"""nock2015 Lemma 12 (Probe-Sample-Subsumption is NP-hard), illustrated by brute force on tiny instances.

Probe-Sample-Subsumption (PSS), nock2015 s7.2: given examples S, rados pi_1..pi_n, m and p, r >= 0, is there
S' subset S with |S'| = m and signatures sigma_1..sigma_n in Sigma_m with ||pi_j - pi_{sigma_j}(S')||_p <= r
for every j?  Since pi_sigma(S') = sum_{i in S', sigma_i = y_i} y_i x_i (Definition 1), the rados of S' are
exactly the 2^m subset sums of its edge vectors, so PSS is decided by enumerating the C(|S|, m) subsets S'
and, per rado, the 2^m subset sums (`decide_pss`, exponential, for illustration only).

What is checked (and what is not):
* the decision procedure answers yes on planted instances (rados computed from a chosen S' and chosen
  signatures, r = 0 and r > 0 with perturbed rados) and no where the answer is certified independently;
* the reduction Subset-Sum <=_p PSS (a_1..a_N, T  ->  x_i = a_i, y_i = +1, d = 1, m = N, one rado pi_1 = T,
  r = 0, any p) maps yes-instances to yes-instances and no-instances to no-instances, on EVERY instance with
  N <= 5 and a_i in {1..6} (multisets) and every target T in [0, sum a + 1], against an independent
  subset-sum dynamic programme.  Subset-Sum is NP-complete, and the map is computable in linear time, so
  this is the reduction behind the hardness (the claim note's "d = 1, r = 0 contains subset-sum").
  NP-hardness itself is a statement about all instances and cannot be established by running any finite
  set of them: the check confirms the reduction's correctness on the instances enumerated, nothing more.
"""
from __future__ import annotations

import itertools

import numpy as np

import reference.rados as R
from spec.links import checks


def _subset_sums(edges: np.ndarray) -> np.ndarray:
    """All 2^m rados of edge vectors ``edges`` (m, d): the rows of G_m^T E (nock2015 eq. 21)."""
    m = edges.shape[0]
    G = R.g_matrix(m).astype(np.float64)
    return G.T @ edges


def decide_pss(X, y, rados, m: int, p: float, r: float) -> bool:
    """Brute-force decision of Probe-Sample-Subsumption   [nock2015 s7.2, problem before Lemma 12]."""
    X, y, rados = np.asarray(X, float), np.asarray(y, float), np.atleast_2d(np.asarray(rados, float))
    edges = y[:, None] * X
    for chosen in itertools.combinations(range(X.shape[0]), m):
        sums = _subset_sums(edges[list(chosen)])
        # every rado needs some signature sigma_j (a subset sum of S') within r in L_p
        if all(np.min(np.linalg.norm(sums - pi, ord=p, axis=1)) <= r + 1e-12 for pi in rados):
            return True
    return False


def _subset_sum_dp(a, target: int) -> bool:
    """Independent Subset-Sum decision by dynamic programming over the reachable sums."""
    reachable = {0}
    for v in a:
        reachable |= {s + v for s in reachable}
    return target in reachable


@checks("nock2015.lemma12")
def check_subset_sum_reduction_and_planted_instances():
    # 1. the reduction, exhaustively on small instances, for p = 1 and p = 2
    instances = yes = 0
    for N in range(1, 6):
        for a in itertools.combinations_with_replacement(range(1, 7), N):
            X, y = np.array(a, float)[:, None], np.ones(N)
            for T in range(0, sum(a) + 2):
                expected = _subset_sum_dp(a, T)
                for p in (1, 2):
                    assert decide_pss(X, y, [[T]], N, p, 0.0) == expected, (a, T, p)
                instances += 1
                yes += expected
    assert 0 < yes < instances  # both answers occur
    # a no-instance of Subset-Sum: {3, 5, 9} never sums to 7 (and the DP agrees)
    assert not _subset_sum_dp((3, 5, 9), 7) and not decide_pss([[3], [5], [9]], [1, 1, 1], [[7]], 3, 1, 0.0)
    # ... and r > 0 relaxes it exactly as far as the nearest subset sum (8 is at distance 1)
    assert decide_pss([[3], [5], [9]], [1, 1, 1], [[7]], 3, 1, 1.0)

    # 2. planted instances in d = 2 with labels of both signs: S' subset S, arbitrary signatures
    rng = np.random.default_rng(12)
    for _ in range(30):
        size, m, n = int(rng.integers(3, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        X = rng.integers(-5, 6, size=(size, 2)).astype(float)
        y = rng.choice([-1.0, 1.0], size)
        chosen = np.sort(rng.choice(size, m, replace=False))
        sigmas = rng.choice([-1.0, 1.0], size=(n, m))
        rados = R.rados(X[chosen], y[chosen], sigmas)
        assert decide_pss(X, y, rados, m, 1, 0.0)
        noise = rng.uniform(-0.2, 0.2, size=rados.shape)
        assert decide_pss(X, y, rados + noise, m, 1, float(np.abs(noise).sum(axis=1).max()))
        # certified no: a rado farther (L1) from 0 than the sum of the m largest edge norms plus r
        bound = np.sort(np.abs(X).sum(axis=1))[::-1][:m].sum()
        assert not decide_pss(X, y, [[bound + 1.0, 0.0]], m, 1, 0.5)
    print(f"PSS: reduction from Subset-Sum agrees with the DP on {instances} instances ({yes} yes)")
