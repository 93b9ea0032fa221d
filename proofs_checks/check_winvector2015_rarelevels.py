"""winvector2015.rarelevels and winvector2015.sigprune.claims by exact enumeration and Fisher closed forms."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

import fast.impact_coding as F
import reference.impact_coding as R
from spec.links import checks


def _situations(k, fold_a, fold_b):
    """Situation of each fold i for a level seen in exactly two rows (in folds fold_a and fold_b)."""
    out = []
    for i in range(k):
        in_test = (fold_a == i) + (fold_b == i)
        out.append({0: 1, 2: 2, 1: 3}[in_test])  # both in C_i / neither in C_i / one in each
    return out


@checks("winvector2015.rarelevels")
def check_rare_level_situation_probabilities_by_enumeration():
    """Exactly one situation per fold; with i.i.d. uniform folds P(same fold) = 1/k, then 1 fold in situation 2
    and k-1 in situation 1; else 2 folds in situation 3 and k-2 in situation 1 (the note's [H] derivation)."""
    for k in range(2, 9):
        same = Fraction(0)
        for fold_a, fold_b in itertools.product(range(k), repeat=2):
            s = _situations(k, fold_a, fold_b)
            if fold_a == fold_b:
                same += Fraction(1, k * k)
                assert sorted(s) == [1] * (k - 1) + [2]
            else:
                assert sorted(s) == [1] * (k - 2) + [3, 3]
        assert same == Fraction(1, k)


@checks("winvector2015.rarelevels")
def check_situations_as_coded_by_cross_frame():
    """Run cross_codes on every placement of the rare level's two rows (k = 3): situation 2 codes the level as
    novel (0); situation 3 codes each row with the other row's outcome ("applied opposite"): the positive row
    gets a negative code and vice versa."""
    rng = np.random.default_rng(0)
    n = 60
    idx = np.concatenate([rng.integers(0, 3, n - 2), [3, 3]])
    y = np.concatenate([rng.integers(0, 2, n - 2), [1, 0]])
    base_folds = np.arange(n) % 3
    for impl in (R, F):
        for fa, fb in itertools.product(range(3), repeat=2):
            folds = base_folds.copy()
            folds[-2], folds[-1] = fa, fb
            codes = impl.cross_codes(idx, y, 4, folds, code="bayes")[-2:, 0]
            if fa == fb:
                assert codes.tolist() == [0.0, 0.0]
            else:
                assert codes[0] < 0 < codes[1]


def _fisher_p_exact(a, b, t, f):
    """Two-sided Fisher p of [[a, b], [t - a, f - b]] as an exact Fraction (R's rule)."""
    r1, n = a + b, t + f
    weights = {x: math.comb(r1, x) * math.comb(n - r1, t - x) for x in range(max(0, t - (n - r1)), min(r1, t) + 1)}
    cut = weights[a]
    return Fraction(sum(w for w in weights.values() if w <= cut), sum(weights.values()))


@checks("winvector2015.sigprune.claims")
def check_two_row_level_closed_form():
    """(b): a (1+, 1-) level among N = 2000 rows: p = 1 at prevalence 0.5; at prevalence 0.01 the closed form
    p = 1 - C(N-2, T-1) 2 / C(N, T) (all but the observed middle term...) evaluated exactly is 0.019905 < 0.3."""
    n = 2000
    for prevalence, expect in ((0.5, 1.0), (0.01, 0.0199049524762381)):
        t = round(prevalence * n)
        exact = _fisher_p_exact(1, 1, t, n - t)
        # closed form: P(x) = C(2, x) C(N-2, T-x) / C(N, T); p = sum of the terms <= P(1)
        terms = [Fraction(math.comb(2, x) * math.comb(n - 2, t - x), math.comb(n, t)) for x in range(3)]
        assert exact == sum(w for w in terms if w <= terms[1])
        for impl in (R, F):
            p = float(impl.group_p_values(np.array([[1.0, 1.0]]), np.array([t, n - t], dtype=float))[0])
            assert abs(p - float(exact)) <= 1e-12 and abs(p - expect) < 1e-12
    # kept at rareSig = 0.3 when the prevalence is 0.01, pruned at 0.5
    for impl in (R, F):
        idx = np.concatenate([np.zeros(1998, dtype=int), [1, 1]])
        for t, kept in ((20, True), (1000, False)):
            y = np.concatenate([np.ones(t - 1, dtype=int), np.zeros(1999 - t, dtype=int), [1, 0]])
            assert impl.fit_coder(idx, y, 2, rare_sig=0.3).kept[1] == kept


@checks("winvector2015.sigprune.claims")
def check_singleton_levels_closed_form_and_the_minority_counterexample():
    """(a) "a level that appears 0 to 1 times has no significance": true for a majority-class singleton (p = 1)
    but FALSE for a minority-class singleton, whose p is exactly the prevalence T/N (Fisher closed form:
    P(x=1) = T/N, P(x=0) = F/N > T/N), so at rareSig = 0.3 it is kept whenever the prevalence is <= 0.3; only
    rare_count >= 1 prunes it.  Cross-frame then codes its row's neighbours with a non-zero effect."""
    n = 2000
    for t in (20, 200, 600, 999):
        assert _fisher_p_exact(1, 0, t, n - t) == Fraction(t, n)  # minority positive singleton
        assert _fisher_p_exact(0, 1, t, n - t) == 1  # majority negative singleton
        for impl in (R, F):
            p = impl.group_p_values(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([t, n - t], dtype=float))
            assert abs(p[0] - t / n) <= 1e-15 * n and p[1] == 1.0
    idx = np.concatenate([np.zeros(1999, dtype=int), [1]])
    y = np.concatenate([np.ones(19, dtype=int), np.zeros(1980, dtype=int), [1]])  # prevalence 0.01
    for impl in (R, F):
        assert impl.fit_coder(idx, y, 2, rare_sig=0.3).kept[1]  # the singleton codes a non-zero effect
        assert impl.fit_coder(idx, y, 2, rare_sig=0.3).code[1, 0] > 4.0
        assert not impl.fit_coder(idx, y, 2, rare_sig=0.3, rare_count=1).kept[1]
