"""eq. (20) against mpmath: SLOPE weights xi_k = Phi^{-1}(1 - k q / (2 d)) to 50 digits   [nock2016 eq. (20)].

Computing 1 - k q / (2 d) in float64 first loses the tail (q = 1e-8: relative error 2e-10 in xi); both
implementations evaluate -Phi^{-1}(k q / (2 d)) instead, which this check holds to 1e-13.
"""
import itertools

import mpmath
import numpy as np

import fast.regularizers as FR
import reference.regularizers as RR
from spec.links import checks


@checks("nock2016.eq20")
def check_slope_weights_against_mpmath():
    with mpmath.workdps(50):  # local precision: the global mpmath context is left as found
        for d in (1, 3, 17):
            for q in (1e-8, 0.1, 0.5, 0.9, 0.999999):
                exact = [mpmath.sqrt(2) * mpmath.erfinv(2 * (1 - mpmath.mpf(k) * mpmath.mpf(q) / (2 * d)) - 1)
                         for k in range(1, d + 1)]
                for mod in (RR, FR):
                    xi = mod.slope_weights(d, q)
                    for k in range(d):
                        assert abs(xi[k] - float(exact[k])) <= 1e-14 * abs(float(exact[k]))  # measured 7.5e-16


@checks("nock2016.eq20")
def check_slope_rearrangement_exhaustive_small_integers():
    """(M|theta|)^T xi is maximal at the sorting permutation, over every theta in {-2..2}^4 and all 24 M."""
    xi = RR.slope_weights(4, 0.3)
    for theta in itertools.product(range(-2, 3), repeat=4):
        theta = np.array(theta, dtype=float)
        brute = max(float(np.abs(theta)[list(p)] @ xi) for p in itertools.permutations(range(4)))
        assert abs(RR.slope(theta, 0.3) - brute) <= 1e-12 * max(1.0, brute)
        assert abs(FR.slope(theta, 0.3) - brute) <= 1e-12 * max(1.0, brute)
