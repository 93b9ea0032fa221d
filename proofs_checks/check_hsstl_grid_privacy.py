"""The library's HS-StL run on its discrete-Gaussian grid: what it charges, what the exact worst case is (issue 27).

Not a claim of bun2020: the paper's HS-StL adds a CONTINUOUS Gaussian (Theorem 26; bun2020.thm26.rho, which holds:
eps = 1 at delta = 1e-6 with n = 1,732,084,834).  The library releases a noisy centroid on a grid as
z~ = 2^k (rint(z / 2^k) + Y), Y ~ N_Z(0, s2)^d, s2 = ceil((sigma / 2^k)^2); its 11-bit grid
(fast.private_boosting.centroid_grid, noisy_centroid's, and the HS-StL run's until issue 25) has
2^k = 2^(floor(log2 sigma) - 11); the run's grid since (centroid_run_grid) caps it further by 2^k sqrt d <= Delta 2^-8.
Rounding to a grid can move neighbouring centroids apart:

* the library CHARGES each round rho = (Delta + 2^k sqrt(d))^2 / (2 s2 4^k) (the triangle inequality: each coordinate
  moves at most one grid unit more than the centroid), reported as hsstl_rho(d=...) and result.rho;
* the EXACT worst case over centroid pairs at L2 distance <= Delta is max ||c||^2 / (2 s2) over the integer shifts c
  the rounding can produce (for an integer shift c the discrete Gaussian's Renyi divergence of order alpha is
  alpha ||c||^2 / (2 s2) whenever alpha c is integral and never more: CKS20; checked below).  With r = Delta / 2^k a
  coordinate moved by a > 0 grid units can shift by floor(a) + 1 units (a + 1 at an odd integer a, through
  round-half-to-even; a at an even one), so for r < 1 the worst case is ||c||^2 = d: every coordinate moved by a
  hair across a rounding boundary.

On the 11-bit grid at the paper's scale (alpha, beta, tau = 0.1, 0.05, 0.1; n = 1,732,084,834; r = 0.775) the
charge is x5.246 (d = 1), x25.82 (d = 10), x193.35 (d = 100) the paper's continuous figure; the exact worst case
x1.665, x16.65, x166.5.  The exact per-round rho is d / (2 s2) for EVERY n past the point where r < 1, which is also
the limit of the charge as n -> inf: eps = 1 at delta = 1e-6 is out of reach at any n on that grid (floor eps 1.297
at d = 1), charged or exact.  The figures are computed here from centroid_grid, not read from the run's accounting
(hsstl_rho(d=...)), so they stay the 11-bit grid's if the run moves to another grid; whatever grid the run charges
(weak_learner_rho), check_library_run_charge_is_sound holds it to the exact worst case on that grid.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

import fast.accounting as A
import fast.private_boosting as PB
from spec.links import checks

ALPHA, BETA, TAU, DELTA = 0.1, 0.05, 0.1, 1e-6
N_PAPER = 1_732_084_834


def shift_units(a: Fraction) -> int:
    """Largest |rint(x + a) - rint(x)| over x (round half to even), for a shift of a >= 0 grid units."""
    if a == 0:
        return 0
    if a.denominator == 1:
        return int(a) + 1 if int(a) % 2 == 1 else int(a)
    return math.floor(a) + 1


def worst_units(r2: Fraction, d: int) -> int:
    """max ||c||^2 over the integer shifts c that rounding d coordinates can produce from a move of squared L2 length
    <= r2 (in grid units).  A coordinate shifting by m >= 2 units needs a >= m - 1 (with equality only for m - 1 odd,
    round half to even), by 1 unit any a > 0, by 0 units a = 0.  Dynamic programme over the d coordinates and the
    integer budget floor(r2) (exact; r2 <= 10,000)."""
    r2 = Fraction(r2)
    if r2 <= 0:
        return 0
    B = math.floor(r2)
    assert B <= 10_000, "budget too large for the exact programme"
    equal_ok = r2.denominator == 1  # only an integral r2 can be met with equality
    # options of one coordinate: (cost, value, attained at its infimum cost)
    options = [(0, 0, True), (0, 1, False)]
    m = 2
    while (m - 1) ** 2 <= B:
        options.append(((m - 1) ** 2, m * m, (m - 1) % 2 == 1))
        m += 1
    NEG = -1
    # best[b][t]: max value with total infimum cost b; t = 1 when every infimum chosen is attained
    best = [[NEG, NEG] for _ in range(B + 1)]
    best[0][1] = 0
    for _ in range(d):
        new = [[NEG, NEG] for _ in range(B + 1)]
        for b in range(B + 1):
            for t in (0, 1):
                v = best[b][t]
                if v < 0:
                    continue
                for cost, value, attained in options:
                    nb = b + cost
                    if nb > B:
                        continue
                    nt = t if attained else 0
                    if v + value > new[nb][nt]:
                        new[nb][nt] = v + value
        best = new
    out = 0
    for b in range(B + 1):
        for t in (0, 1):
            v = best[b][t]
            if v < 0:
                continue
            if b < r2 or (b == r2 and equal_ok and t == 1):
                out = max(out, v)
    return out


def paper_setting():
    p = PB.hsstl_parameters(ALPHA, BETA, TAU)
    return p["kappa"], p["sigma"], p["T"]


def exact_rho(grid, sens: float, d: int) -> Fraction:
    """Exact worst-case rho of one release on ``grid`` (a CentroidGrid) at sensitivity ``sens``: max ||c||^2/(2 s2)."""
    r = Fraction(sens) / Fraction(2) ** grid.k
    return Fraction(worst_units(r * r, d), 2 * grid.sigma2_grid)


def per_round(n: int, d: int):
    """(continuous, charged, exact) rho of one release on the 11-bit grid at the HS-StL setting and n, dimension d."""
    kappa, sigma, _ = paper_setting()
    sens = PB.centroid_sensitivity(n, kappa)
    grid = PB.centroid_grid(sigma, sens, d)
    return sens**2 / (2 * sigma**2), grid.rho, exact_rho(grid, sens, d)


def run_epsilon(n: int, d: int, which: str) -> float:
    """eps at delta = 1e-6 of T releases on the 11-bit grid, charged ((Delta + 2^k sqrt d)^2 / (2 s2 4^k), rounded up
    as the run's accounting rounds it) or exact (worst case), both converted by Lemma 15."""
    _, _, T = paper_setting()
    _, charged, exact = per_round(n, d)
    rho = Fraction(charged) * T if which == "charged" else exact * T
    up = float(rho) if Fraction(float(rho)) >= rho else math.nextafter(float(rho), math.inf)
    return A.zcdp_to_dp(up, DELTA)


def exact_run_epsilon(n: int, d: int) -> float:
    return run_epsilon(n, d, "exact")


def grid_n_min(epsilon: float, d: int, which: str = "exact") -> int:
    """Smallest n whose run on the 11-bit grid meets (epsilon, 1e-6) (bisection: both figures fall with n)."""
    lo, hi = 1, 10**13
    assert run_epsilon(hi, d, which) <= epsilon
    while lo < hi:
        mid = (lo + hi) // 2
        if run_epsilon(mid, d, which) <= epsilon:
            hi = mid
        else:
            lo = mid + 1
    return lo


def exact_n_min(epsilon: float, d: int) -> int:
    return grid_n_min(epsilon, d, "exact")


@checks("library.private_boosting.hsstl-grid-rho")
def check_grid_rounding_worst_shift_brute_force():
    """shift_units / worst_units against brute force with numpy's rint (round half to even, the rounding the library
    uses): over 20,001 offsets x (every multiple of 1/4096 in [-2, 3] and the half-integers themselves) the largest
    rint(x + a) - rint(x) equals shift_units(a) for a in {0.3, 0.775, 1, 1.5, 2, 2.5, 3}; in d = 2 and 3, 20,000
    random moves of length <= r never beat worst_units(r^2, d), and the explicit construction (each coordinate a
    hair below a rounding boundary) attains it, including d at r = 0.775."""
    xs = np.concatenate([np.arange(-2 * 4096, 3 * 4096 + 1) / 4096.0, np.arange(-2, 3) + 0.5])
    for a in (Fraction(3, 10), Fraction(775, 1000), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(5, 2),
              Fraction(3)):
        got = int(np.max(np.rint(xs + float(a)) - np.rint(xs)))
        assert got == shift_units(a), (a, got)
    rng = np.random.default_rng(27)
    for d, r in ((2, 0.775), (2, 1.3), (3, 1.8), (3, 2.2)):
        best = worst_units(Fraction(r) ** 2, d)
        for _ in range(20_000):
            v = rng.normal(size=d)
            v *= r * rng.uniform() ** (1 / d) / np.linalg.norm(v)
            x = rng.uniform(-3, 3, size=d)
            c = np.rint(x + v) - np.rint(x)
            assert float(c @ c) <= best
        if r < 1:  # the construction: x_j a hair below j + 1/2, moved by a hair
            eta = 1e-9
            x = np.full(d, 0.5 - eta)
            c = np.rint(x + 2 * eta) - np.rint(x)
            assert float(c @ c) == best == d
    assert worst_units(Fraction(1), 1) == 4 and worst_units(Fraction(1), 2) == 4  # r = 1: the tie reaches 2 units
    assert worst_units(Fraction(99, 100), 2) == 2 and worst_units(Fraction(101, 100), 2) == 5


@checks("library.private_boosting.hsstl-grid-rho")
def check_discrete_gaussian_renyi_of_an_integer_shift():
    """The 'exact' rho of a grid shift c is ||c||^2 / (2 s2): for the discrete Gaussian N_Z(0, s2) and an integer
    shift c, D_alpha(N_Z(c, s2) || N_Z(0, s2)) = alpha c^2 / (2 s2) when alpha c is an integer and below it otherwise
    (CKS20), by direct 60-digit summation at s2 in {0.5, 2.5}, c in {1, 2}, alpha in {1.5, 2, 3, 4.25}: the sup over
    alpha of D_alpha / alpha is c^2 / (2 s2), so the zCDP parameter of a shift is exactly that."""
    with mpmath.workdps(60):
        for s2 in (mpmath.mpf("0.5"), mpmath.mpf("2.5")):
            xs = range(-200, 201)
            Z = mpmath.fsum(mpmath.exp(-x * x / (2 * s2)) for x in xs)
            for c in (1, 2):
                for alpha in (mpmath.mpf("1.5"), mpmath.mpf(2), mpmath.mpf(3), mpmath.mpf("4.25")):
                    s = mpmath.fsum(mpmath.exp(-(alpha * (x - c) ** 2 + (1 - alpha) * x * x) / (2 * s2)) for x in xs)
                    D = mpmath.log(s / Z) / (alpha - 1)
                    bound = alpha * c * c / (2 * s2)
                    if mpmath.isint(alpha * c):
                        assert abs(D - bound) < mpmath.mpf(10) ** -50
                    else:
                        assert D < bound - mpmath.mpf(10) ** -30


@checks("library.private_boosting.hsstl-grid-rho")
def check_library_rounds_half_to_even_on_its_grid(monkeypatch):
    """The rounding modelled above is the library's: with the discrete-Gaussian draw replaced by zeros,
    noisy_centroid returns 2^k rint(z / 2^k) exactly (round half to even at the grid of centroid_grid), on random
    centroids and on one placed exactly on a half-unit.  Fails if the library's grid or rounding changes (then the
    figures of library.private_boosting.hsstl-grid-rho must be re-derived)."""
    monkeypatch.setattr(PB._mechanisms, "sample_discrete_gaussian", lambda s2, size, rng=None: np.zeros(size, np.int64))
    rng = np.random.default_rng(3)
    sigma = 0.05
    for d in (1, 3):
        X = rng.normal(size=(50, d))
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
        y = np.where(rng.uniform(size=50) < 0.5, 1, -1)
        mu = rng.dirichlet(np.ones(50))
        z = PB.centroid(X, y, mu)
        k = PB.centroid_grid(sigma, 1.0, d).k
        out = PB.noisy_centroid(X, y, mu, sigma, rng=0)
        assert np.array_equal(out, np.ldexp(np.rint(np.ldexp(z, -k)), k))
    k = PB.centroid_grid(sigma, 1.0, 1).k
    half = math.ldexp(2.5, k)  # 2.5 grid units: a tie, rounds to the even 2
    X = np.array([[half]])
    out = PB.noisy_centroid(X, [1], [1.0], sigma, rng=0)
    assert out[0] == math.ldexp(2.0, k)


@checks("library.private_boosting.hsstl-grid-rho")
def check_library_hsstl_charge_vs_exact_worst_case():
    """On the 11-bit grid at the paper's n = 1,732,084,834 (r = Delta / 2^k = 0.775): charged / continuous = 5.246,
    25.82, 193.35 and exact / continuous = 1.665, 16.65, 166.5 at d = 1, 10, 100 (charged / exact 3.15, 1.55, 1.16);
    eps at delta = 1e-6: continuous 1.000, exact 1.297 / 4.301 / 15.589, charged 2.342 / 5.443 / 17.040; the charge
    is never below the exact worst case on 60 random (alpha, beta, tau, n, d).  The run grid at the same n
    (2^-32 / 2^-34 / 2^-35): charged x1.0050 / x1.0040 / x1.0063, the exact worst case at least the continuous
    figure (the construction a = Delta e_1 already shifts by >= r units) and at most the charge; the run's eps
    1.0026 / 1.0020 / 1.0032.  Fails if a grid's charge ever fell below its exact worst case, or if a grid changed
    (then re-derive the library entry's figures)."""
    assert PB.hsstl_n_min(1.0, DELTA, ALPHA, BETA, TAU) == N_PAPER
    assert abs(PB.hsstl_privacy(N_PAPER, ALPHA, BETA, TAU, DELTA) - 1.0) < 1e-6
    want = {1: (5.246, 1.665, 1.297, 2.342), 10: (25.82, 16.65, 4.301, 5.443), 100: (193.35, 166.5, 15.589, 17.040)}
    for d, (charged_x, exact_x, eps_exact, eps_charged) in want.items():
        cont, charged, exact = per_round(N_PAPER, d)
        assert abs(charged / cont / charged_x - 1) < 1e-3 and abs(float(exact) / cont / exact_x - 1) < 1e-3
        assert Fraction(charged) >= exact
        assert abs(run_epsilon(N_PAPER, d, "exact") - eps_exact) < 1e-3
        assert abs(run_epsilon(N_PAPER, d, "charged") - eps_charged) < 1e-3
    rng = np.random.default_rng(0)
    for _ in range(60):  # n chosen so that r = Delta / 2^k lies in (0.05, 6): where rounding matters
        a, b, t = rng.uniform(0.01, 0.99, 3)
        p = PB.hsstl_parameters(a, b, t)
        d = int(10 ** rng.uniform(0, 2))
        lam = math.ldexp(1.0, PB.centroid_grid(p["sigma"], 1.0, d).k)
        n = max(1, math.ceil(4 / (p["kappa"] * lam * rng.uniform(0.05, 6.0))))
        sens = PB.centroid_sensitivity(n, p["kappa"])
        grid = PB.centroid_grid(p["sigma"], sens, d)
        assert Fraction(grid.rho) >= exact_rho(grid, sens, d)
    kappa, sigma, _ = paper_setting()
    sens = PB.centroid_sensitivity(N_PAPER, kappa)
    run = {1: (-32, 1.0050, 1.0026), 10: (-34, 1.0040, 1.0020), 100: (-35, 1.0063, 1.0032)}
    for d, (k, charged_x, eps_run) in run.items():
        grid = PB.centroid_run_grid(sigma, sens, d)
        cont = sens**2 / (2 * sigma**2)
        r = Fraction(sens) / Fraction(2) ** grid.k
        lower = float(r * r) / (2 * grid.sigma2_grid)  # one coordinate moved by r units shifts by >= r
        upper = (float(r) + math.sqrt(d)) ** 2 / (2 * grid.sigma2_grid)
        assert grid.k == k and grid.rho == PB.weak_learner_rho(N_PAPER, kappa, sigma, d)
        assert abs(grid.rho / cont - charged_x) < 1e-4 and lower / cont > 1 - 1e-9 and grid.rho >= upper * (1 - 1e-12)
        assert abs(PB.hsstl_privacy(N_PAPER, ALPHA, BETA, TAU, DELTA, d=d) - eps_run) < 1e-4


@checks("library.private_boosting.hsstl-grid-rho")
def check_library_run_charge_is_sound():
    """Whatever grid the HS-StL run charges (the grid whose rho equals weak_learner_rho: centroid_grid, or a run grid
    the library may add), its per-round charge is never below the exact worst case on that grid, at the paper's n
    and on 40 random settings: exactly (the programme above) where r^2 <= 400, else against the bound (r + sqrt d)^2
    units that dominates it (every coordinate rounds by less than one unit).  Fails if the run under-charged its own
    grid."""
    kappa, sigma, _ = paper_setting()
    grids = [PB.centroid_grid] + [getattr(PB, name) for name in dir(PB)
                                  if name.startswith("centroid_") and name.endswith("_grid") and name != "centroid_grid"]
    rng = np.random.default_rng(1)
    settings = [(N_PAPER, kappa, sigma, d) for d in (1, 10, 100)]
    for _ in range(40):
        p = PB.hsstl_parameters(*rng.uniform(0.01, 0.99, 3))
        settings.append((int(10 ** rng.uniform(6, 12)), p["kappa"], p["sigma"], int(10 ** rng.uniform(0, 2))))
    for n, kap, sig, d in settings:
        sens = PB.centroid_sensitivity(n, kap)
        charged = PB.weak_learner_rho(n, kap, sig, d)
        used = [g for g in (f(sig, sens, d) for f in grids) if g.rho == charged]
        assert len(used) >= 1, (n, d, charged)
        grid = used[0]
        r = Fraction(sens) / Fraction(2) ** grid.k
        if r * r <= 400:
            assert Fraction(charged) >= exact_rho(grid, sens, d)
        else:  # a fine grid: the exact worst case is at most (r + sqrt d)^2 units (each coordinate rounds by < 1)
            bound = (float(r) + math.sqrt(d)) ** 2 / (2 * grid.sigma2_grid)
            assert charged >= bound * (1 - 1e-12)


@checks("library.private_boosting.hsstl-grid-reach")
def check_library_hsstl_reach_charge_vs_exact():
    """On the 11-bit grid eps = 1 at delta = 1e-6 is unreachable at ANY n, charged or exact: past r < 1 the exact
    worst case is T d / (2 s2) whatever n is (eps 1.297 at d = 1, at n = 1.73e9 and at n = 10^13 alike), the limit of
    the charge as n -> inf.  n_min (eps holds at n_min, fails at n_min - 1), exact worst case against the charge, and
    the paper's continuous n: eps = 5: 447,392,427 vs 508,510,021 (d = 1), 949,062,657 vs 2,812,882,649 (d = 10),
    continuous 368,787,639; eps = 2 (d = 1): 1,342,177,281 vs 2,561,195,139, continuous 880,668,706.  The run, on
    its own grid since issue 25 (hsstl_n_min(d=...)): eps = 1 at 1,736,461,612 (d = 1) and 1,735,543,151 (d = 10);
    eps = 5 at 369,580,991 (d = 1) and 370,043,609 (d = 10); eps = 2 at 882,931,734 (d = 1): within 0.4 % of the
    continuous n."""
    floor = exact_run_epsilon(10**13, 1)
    assert abs(floor - 1.297) < 1e-3 and abs(exact_run_epsilon(N_PAPER, 1) - floor) < 1e-12
    assert run_epsilon(10**13, 1, "charged") > 1.0
    want = {(5.0, 1): (447_392_427, 508_510_021), (5.0, 10): (949_062_657, 2_812_882_649),
            (2.0, 1): (1_342_177_281, 2_561_195_139)}
    cont = {5.0: 368_787_639, 2.0: 880_668_706}
    for (eps, d), (exact_n, charged_n) in want.items():
        got = grid_n_min(eps, d, "exact")
        assert got == exact_n, (eps, d, got)
        assert exact_run_epsilon(got, d) <= eps < exact_run_epsilon(got - 1, d)
        assert grid_n_min(eps, d, "charged") == charged_n
        assert PB.hsstl_n_min(eps, DELTA, ALPHA, BETA, TAU) == cont[eps] < got < charged_n
    run = {(1.0, 1): 1_736_461_612, (1.0, 10): 1_735_543_151, (5.0, 1): 369_580_991, (5.0, 10): 370_043_609,
           (2.0, 1): 882_931_734}
    for (eps, d), n_run in run.items():
        assert PB.hsstl_n_min(eps, DELTA, ALPHA, BETA, TAU, d=d) == n_run
        assert n_run < 1.004 * PB.hsstl_n_min(eps, DELTA, ALPHA, BETA, TAU)
