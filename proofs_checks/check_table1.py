"""Table 1 (Theorem 6) readings decided by computation: affine-fit residuals of l_r against l_e   [nock2016 Table 1].

For each row and (mu_e, mu_r), over 200 random margins z (m = 3), fit l_r = c1 * g(l_e) + c0 (g = exp for
row I, identity otherwise) and report the largest residual.  An equivalence with an affine f needs ~0;
the readings that fail are asserted to fail (these numbers are quoted in spec/claims.d/nock2016.toml).
"""
import numpy as np

import fast.losses as FL
from spec.links import checks


def _residual(row, mu_e, mu_r, m=3, n=200, seed=0, transform=None):
    Z = np.random.default_rng(seed).normal(size=(n, m)) * 2
    le = np.array([FL.example_loss(z, row, mu_e) for z in Z])
    lr = np.array([FL.rado_loss(z, row, mu_r) for z in Z])
    x = transform(le) if transform else le
    A = np.c_[x, np.ones_like(x)]
    coef, *_ = np.linalg.lstsq(A, lr, rcond=None)
    order = np.argsort(le)
    inversions = int((np.diff(lr[order]) < -1e-9).sum())
    return float(np.abs(A @ coef - lr).max() / max(1.0, np.abs(lr).max())), float(coef[0]), inversions


@checks("nock2016.table1", "nock2016.table1.i", "nock2016.table1.iii", "nock2016.table1.iv")
def check_rows_i_iii_iv_affine_in_l_e():
    for mu_e, mu_r in ((1.0, 1.0), (0.5, 0.5), (2.0, 2.0)):
        residual, slope, _ = _residual("I", mu_e, mu_r, transform=np.exp)  # l_r = exp(l_e)
        assert residual < 1e-12 and abs(slope - 1.0) < 1e-9
    for mu_e, mu_r in ((1.0, 1.0), (0.5, 2.0), (3.0, 0.2)):
        residual, slope, _ = _residual("III", mu_e, mu_r)
        assert residual < 1e-12 and abs(slope - mu_e / mu_r) < 1e-9
        residual, slope, _ = _residual("IV", mu_e, mu_r)
        assert residual < 1e-12 and abs(slope - mu_e / (2 * mu_r)) < 1e-9


@checks("nock2016.table1", "nock2016.table1.ii")
def check_row_ii_printed_constraint_fails():
    """'for all mu_e = mu_r': fails except at mu = 1 (relative residual > 0.5, inversions: no increasing f)."""
    residual, slope, inversions = _residual("II", 1.0, 1.0)
    assert residual < 1e-12 and abs(slope - 0.25) < 1e-12
    for mu in (0.5, 2.0):
        residual, _, inversions = _residual("II", mu, mu)
        assert residual > 0.1 and inversions > 50
    # mu_e = 1 with any mu_r is an exact equivalence at the loss level: l_r = (l_e - m) / (4 mu_r)
    for mu_r in (0.5, 2.0, 7.0):
        residual, slope, _ = _residual("II", 1.0, mu_r)
        assert residual < 1e-12 and abs(slope - 1 / (4 * mu_r)) < 1e-12
