"""Hand-picked mutation testing of the privacy-critical sites (issue 27 item 3).

mutmut skips decorated functions (245 of 738 functions in ``fast/``, every public privacy function among them), so
this is a small harness of its own: a list of mutants (file, exact original text, replacement, privacy-critical or
not, the claim it breaks, the test files that must kill it).  Each mutant is applied in a PRIVATE git worktree of
HEAD (never in the working checkout other engineers run tests in), the mutant's test files are run with the default
selection (``-m "not slow"``, ``-n0``, ``-x``) under a timeout, and the outcome recorded: killed (a test failed),
survived (all passed), timeout (counted as killed, as mutmut does) or error (the original text was not found exactly
once: the list is stale).  Each group of test files is first run on the unmutated worktree, which must pass.

Usage::

    python -m proofs_checks.mutation [--only MODULE ...] [--ids ID ...] [--claim ID ...] [--own-checks]
                                     [--timeout S] [--out docs/mutation.md] [--rev COMMIT]

``MODULE`` matches a substring of the mutated file (``--only causal_privacy``).  ``--own-checks`` answers "does the
claim's own check catch a mutant that breaks the claim": each mutant runs its claim's registry checks and
``@checks`` tests only.  The table (score per module, and
every mutant's outcome) is written to ``--out`` with the date, the commit and the command.  Not a ``check_*.py``
file: pytest does not collect it (it takes minutes).
"""
from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PTR = ("proofs_checks/check_causal_ptr.py",)
CAUSAL = ("proofs_checks/check_causal_ptr.py", "tests/test_causal.py", "proofs_checks/check_causal_sensitivity.py")
MECH = ("tests/test_mechanisms.py", "tests/test_release_rounding.py")
LEDGER = ("tests/test_budget_ledger.py",)
ACCT = ("tests/test_accounting.py",)
BOOST = ("proofs_checks/check_bun2020_privacy.py", "tests/test_private_boosting.py", "tests/test_measures.py",
         "proofs_checks/check_hsstl_grid_privacy.py")  # the cheap exact checks first (-x stops at the first failure)
LEMMA50 = ("proofs_checks/check_bun2020_privacy.py",)  # the claim's own check (check_lemma50_ptr_exact)
EST = ("tests/test_boosting_estimator.py", "tests/test_noise_calibration.py")
MEAS = ("tests/test_measures.py",)
NOISE = ("tests/test_noise_calibration.py",)


@dataclass(frozen=True)
class Mutant:
    """One mutant: replace ``original`` (which must occur exactly once in ``path``, or pick occurrence ``nth``)."""
    ident: str
    path: str
    original: str
    replacement: str
    critical: bool
    claim: str
    tests: tuple = field(default=())
    nth: int | None = None


M = Mutant
MUTANTS = [
    # --- propose-test-release (kusner2016 Alg. 4) and the stability release ---------------------------------------
    M("ptr-widest-strict", "fast/causal_privacy.py", "return widest >= hi or narrowest < lo",
      "return widest > hi or narrowest < lo", True, "kusner2016.ch4.alg4", PTR),
    M("ptr-narrowest-le", "fast/causal_privacy.py", "return widest >= hi or narrowest < lo",
      "return widest >= hi or narrowest <= lo", True, "kusner2016.ch4.alg4", PTR),
    M("ref-ptr-widest-strict", "reference/causal_privacy.py", "if widest >= hi or narrowest < lo:",
      "if widest > hi or narrowest < lo:", True, "kusner2016.ch4.alg4", PTR),
    M("ptr-cut-no-one", "fast/causal_privacy.py", "cut = 1.0 + (math.log(1.0 / delta) / epsilon",
      "cut = (math.log(1.0 / delta) / epsilon", True, "kusner2016.ch4.alg4", CAUSAL),
    M("ptr-cut-thesis", "fast/causal_privacy.py",
      'math.log(1.0 / delta) / epsilon if threshold == "corrected"',
      'math.log(1.0 / delta) if threshold == "corrected"', True, "kusner2016.ch4.alg4", CAUSAL),
    M("ptr-test-ge", "fast/causal_privacy.py", "        if r_j > cut:", "        if r_j >= cut - 1.0:", True,
      "kusner2016.ch4.alg4", CAUSAL),
    M("stability-threshold", "fast/causal_privacy.py", "if dhat > math.log(1.0 / delta) / epsilon:",
      "if dhat > math.log(1.0 / delta):", True, "kusner2016.ch4.thm8", CAUSAL),
    M("ref-stability-threshold", "reference/causal_privacy.py", "if dhat > math.log(1.0 / delta) / epsilon:",
      "if dhat > math.log(1.0 / delta):", True, "kusner2016.ch4.thm8", CAUSAL),
    M("stability-distance", "fast/causal_privacy.py", "return max(0, math.ceil(gap / (2.0 * step)) - 1)",
      "return max(0, math.ceil(gap / (2.0 * step)))", True, "kusner2016.s4.1.8", CAUSAL),
    # --- mechanisms: calibrations, grids, rounding directions --------------------------------------------------------
    M("classic-eps-boundary", "fast/mechanisms.py", "    if eps >= 1.0:\n        raise ValueError(f\"epsilon must be < 1",
      "    if eps > 1.0:\n        raise ValueError(f\"epsilon must be < 1", True, "nock2015.eq15", MECH),
    M("ref-classic-eps-boundary", "reference/mechanisms.py",
      "    if eps >= 1.0:\n        raise ValueError(f\"epsilon must be < 1",
      "    if eps > 1.0:\n        raise ValueError(f\"epsilon must be < 1", True, "nock2015.eq15", MECH),
    M("classic-constant", "fast/mechanisms.py", "math.sqrt(2.0 * math.log(1.25 / dl)) / eps)",
      "math.sqrt(2.0 * math.log(1.0 / dl)) / eps)", True, "nock2015.eq15", MECH),
    M("laplace-scale-floor", "fast/mechanisms.py", "t = math.ceil(d_int / eps_q)", "t = math.floor(d_int / eps_q)",
      True, "nock2015.eq15", MECH),
    M("laplace-sensitivity-no-d", "fast/mechanisms.py", "d_int = math.floor(delta_q / lam) + d",
      "d_int = math.floor(delta_q / lam)", True, "nock2015.eq15", MECH),
    M("laplace-eps-effective-down", "fast/mechanisms.py", "epsilon_effective=_float_up(Fraction(d_int, t))",
      "epsilon_effective=float(Fraction(d_int, t))", True, "nock2015.eq15", MECH),
    M("ref-laplace-eps-effective-down", "reference/mechanisms.py", "epsilon_effective=_float_up(Fraction(d_int, t))",
      "epsilon_effective=float(Fraction(d_int, t))", True, "nock2015.eq15", MECH),
    M("float-up-down", "fast/mechanisms.py",
      "return f if Fraction(f) >= q else math.nextafter(f, math.inf)", "return f", True, "nock2015.eq15", MECH),
    M("gauss-grid-inflate", "fast/mechanisms.py", "inflated = _float_up((math.floor(Fraction(delta_s) / lam) + 1) * lam)",
      "inflated = _float_up((math.floor(Fraction(delta_s) / lam)) * lam)", True, "nock2015.eq15", MECH),
    M("gauss-grid-s2-floor", "fast/mechanisms.py", "_s2_up(math.ceil((Fraction(sigma) / lam) ** 2))",
      "_s2_up(math.floor((Fraction(sigma) / lam) ** 2))", True, "nock2015.eq15", MECH),
    M("gauss-s2-up-down", "fast/mechanisms.py", "return s2 if shift <= 0 else -(-s2 >> shift) << shift",
      "return s2 if shift <= 0 else (s2 >> shift) << shift", True, "nock2015.eq15", MECH),
    M("gauss-grid-rho", "fast/mechanisms.py", "rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))",
      "rho = _float_up(Fraction(inflated) ** 2 / (4 * s2 * lam * lam))", True, "bun2020.lemma16", MECH),
    M("gauss-multi-d-inflate", "fast/mechanisms.py",
      "inflated = math.nextafter(delta_s + float(lam) * math.sqrt(d) * (1 + 2**-50), math.inf)",
      "inflated = delta_s", True, "nock2015.eq15", MECH),
    # --- budget ledger: check-and-charge -----------------------------------------------------------------------------
    M("ledger-eps-check", "fast/_contracts/budget_ledger.py",
      "if spent_epsilon + charge.epsilon > self.budget.epsilon:", "if spent_epsilon > self.budget.epsilon:",
      True, "ledger", LEDGER),
    M("ledger-delta-check", "fast/_contracts/budget_ledger.py",
      "if spent_delta + charge.delta > self.budget.delta:", "if spent_delta > self.budget.delta:",
      True, "ledger", LEDGER),
    M("ledger-rho-check", "fast/_contracts/budget_ledger.py", "if self._totals + r > self.rho_budget:",
      "if self._totals > self.rho_budget:", True, "ledger", LEDGER),
    # --- accounting: composition and conversions ---------------------------------------------------------------------
    M("advanced-composition", "fast/accounting.py",
      "eps_total = k * eps * eps / 2.0 + eps * math.sqrt(2.0 * k * math.log(1.0 / dp))",
      "eps_total = k * eps * eps / 2.0 + eps * math.sqrt(k * math.log(1.0 / dp))", True, "composition", ACCT),
    M("zcdp-to-dp", "fast/accounting.py", "return _up(r + 2.0 * math.sqrt(r * math.log(1.0 / dl)))",
      "return _up(r + math.sqrt(r * math.log(1.0 / dl)))", True, "bun2020.lemma15", ACCT),
    # --- bun2020 private boosting ------------------------------------------------------------------------------------
    M("centroid-sensitivity", "fast/private_boosting.py", "return _float_up(2 * (Fraction(1) / (Fraction(k) * m) + z))",
      "return _float_up((Fraction(1) / (Fraction(k) * m) + z))", True, "bun2020.thm22", BOOST),
    M("centroid-grid-rho", "fast/private_boosting.py",
      "rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))",
      "rho = _float_up(Fraction(inflated) ** 2 / (4 * s2 * lam * lam))", True, "bun2020.thm22", BOOST, nth=0),
    M("centroid-run-grid-rho", "fast/private_boosting.py",
      "rho = _float_up(Fraction(inflated) ** 2 / (2 * s2 * lam * lam))",
      "rho = _float_up(Fraction(inflated) ** 2 / (4 * s2 * lam * lam))", True, "bun2020.thm22", BOOST, nth=1),
    M("centroid-s2-floor", "fast/private_boosting.py", "s2 = math.ceil((Fraction(s) / lam) ** 2)",
      "s2 = math.floor((Fraction(s) / lam) ** 2)", True, "bun2020.thm22", BOOST, nth=0),
    M("run-grid-inflate", "fast/private_boosting.py",
      "inflated = _float_up(Fraction(delta_s) + lam * Fraction(math.sqrt(dim)) * (1 + Fraction(1, 2**50)))",
      "inflated = _float_up(Fraction(delta_s))", True, "bun2020.thm22", BOOST),
    M("smoothboost-sensitivity", "fast/private_boosting.py", "return _float_up(Fraction(12) / (Fraction(k) * m))",
      "return _float_up(Fraction(6) / (Fraction(k) * m))", True, "bun2020.lemma52",
      BOOST + ("tests/test_noise_calibration.py",)),
    M("run-rho-composition", "fast/private_boosting.py", "return _float_up(Fraction(grid.rho) * rounds), grid",
      "return _float_up(Fraction(grid.rho)), grid", True, "bun2020.s3.2.iter-privacy", BOOST),
    M("hsstl-rho-composition", "fast/private_boosting.py",
      'return _float_up(Fraction(weak_learner_rho(m, p["kappa"], p["sigma"], d)) * p["T"])',
      'return _float_up(Fraction(weak_learner_rho(m, p["kappa"], p["sigma"], d)))', True,
      "bun2020.s3.2.iter-privacy", BOOST),
    M("hsstl-zcdp-to-dp", "fast/private_boosting.py", "return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))",
      "return rho + math.sqrt(rho * math.log(1.0 / delta))", True, "bun2020.lemma15", BOOST),
    M("lb-nxm-exponent-half", "fast/private_boosting.py", "w = np.multiply(L, -rate)", "w = np.multiply(L, -rate / 2)",
      False, "bun2020.alg3", BOOST),
    M("boost-loop-exponent-half", "fast/private_boosting.py", "np.multiply(L, -rate, out=w)",
      "np.multiply(L, -rate / 2, out=w)", False, "bun2020.alg3", BOOST),
    M("ref-lb-nxm-exponent-half", "reference/private_boosting.py", "w = [math.log(k) - rate * float(v) for v in L]",
      "w = [math.log(k) - rate / 2 * float(v) for v in L]", False, "bun2020.alg3", BOOST),
    M("game-loss-errors", "fast/private_boosting.py", "return 1.0 - np.abs(np.clip(h, -1.0, 1.0) - y) / 2.0",
      "return np.abs(np.clip(h, -1.0, 1.0) - y) / 2.0", False, "bun2020.alg3", BOOST),
    M("kernel-gain-errors", "fast/_boosting_kernels.py", "L[i] += 1.0 - abs(v - y[i]) / 2.0",
      "L[i] += abs(v - y[i]) / 2.0", False, "bun2020.alg3", BOOST),
    M("kernel-loss-errors", "fast/_boosting_kernels.py", "out[i] = 1.0 - abs(c - np.float64(yi)) / 2.0",
      "out[i] = abs(c - np.float64(yi)) / 2.0", False, "bun2020.alg3", BOOST),
    M("ref-game-loss-errors", "reference/private_boosting.py",
      "np.array([1.0 - abs(max(-1.0, min(1.0, float(v))) - int(s)) / 2.0",
      "np.array([abs(max(-1.0, min(1.0, float(v))) - int(s)) / 2.0", False, "bun2020.alg3", BOOST),
    M("ptr-boost-threshold", "fast/private_boosting.py", "threshold = 2.0 + math.log(1.0 / dl) / e",
      "threshold = 1.0 + math.log(1.0 / dl) / e", True, "bun2020.ptr", BOOST),
    M("ref-ptr-boost-threshold", "reference/private_boosting.py", "threshold = 2.0 + math.log(1.0 / dl) / e",
      "threshold = 1.0 + math.log(1.0 / dl) / e", True, "bun2020.lemma50", LEMMA50),
    M("ptr-boost-sensitivity-half", "fast/private_boosting.py",
      "laplace_mechanism(size - k * n / 2.0, sensitivity=1.0,", "laplace_mechanism(size - k * n / 2.0, sensitivity=0.5,",
      True, "bun2020.lemma50", LEMMA50),
    M("ref-ptr-boost-sensitivity-half", "reference/private_boosting.py",
      "laplace_mechanism(size - k * n / 2.0, sensitivity=1.0,", "laplace_mechanism(size - k * n / 2.0, sensitivity=0.5,",
      True, "bun2020.lemma50", LEMMA50),
    M("ptr-round-delta", "fast/_contracts/boosting_contract.py",
      "per_delta = math.nextafter(math.exp(epsilon) * delta, math.inf)", "per_delta = delta", True,
      "bun2020.lemma50", LEMMA50),
    # --- estimators --------------------------------------------------------------------------------------------------
    M("est-sigma-from-rho", "fast/estimators/boosting.py", "sigma = sensitivity / math.sqrt(2.0 * rho_round)",
      "sigma = sensitivity / math.sqrt(4.0 * rho_round)", True, "estimators", EST),
    M("est-sigma-accept", "fast/estimators/boosting.py", "if grid.rho <= rho_round:",
      "if grid.rho <= 2 * rho_round:", True, "estimators", EST),
    M("est-ptr-threshold", "fast/estimators/boosting.py", "threshold = 2.0 + math.log(1.0 / delta_r) / eps_r",
      "threshold = 1.0 + math.log(1.0 / delta_r) / eps_r", True, "estimators", EST),
    M("est-clamp", "fast/estimators/boosting.py", "Xc = np.clip(X, lo, hi)", "Xc = X", True, "estimators", EST,
      nth=0),
    M("est-gain-errors", "fast/estimators/boosting.py", "L += 1.0 - np.abs(np.clip(h, -1.0, 1.0) - yf) / 2.0",
      "L += np.abs(np.clip(h, -1.0, 1.0) - yf) / 2.0", False, "estimators", EST),
    # --- half-sensitivity mutants of every private entry point (issue 27: "the estimator audits must catch a
    # half-sensitivity mutant for every private entry point"); run with the noise-calibration spies ---------------
    M("est-lazy-centroid-half", "fast/estimators/boosting.py", "sensitivity = _pb.centroid_sensitivity(n, kappa)",
      "sensitivity = _pb.centroid_sensitivity(2 * n, kappa)", True, "bun2020.thm22", NOISE, nth=0),
    M("est-lazy-stump-half", "fast/estimators/boosting.py", "sensitivity = _pb.stump_sensitivity(n, kappa)",
      "sensitivity = _pb.stump_sensitivity(2 * n, kappa)", True, "bun2020.s5.stump-sensitivity", NOISE, nth=0),
    # the one-vs-rest fit's spend plan (bf0c93d) repeats the two calibrations: its second occurrence.  HALF the
    # sensitivity there is an exact equivalent (the grid's rho depends on sensitivity / 2^k only, and halving the
    # sensitivity halves sigma and 2^k: the planned rho is bit-identical), so the plan is mis-scaled by 0.7
    M("est-ovr-centroid-scaled", "fast/estimators/boosting.py", "sensitivity = _pb.centroid_sensitivity(n, kappa)",
      "sensitivity = 0.7 * _pb.centroid_sensitivity(n, kappa)", True, "bun2020.thm22", EST + NOISE, nth=1),
    M("est-ovr-stump-scaled", "fast/estimators/boosting.py", "sensitivity = _pb.stump_sensitivity(n, kappa)",
      "sensitivity = 0.7 * _pb.stump_sensitivity(n, kappa)", True, "bun2020.s5.stump-sensitivity", EST + NOISE,
      nth=1),
    M("est-smooth-half", "fast/estimators/boosting.py", "sensitivity = _pb.smoothboost_sensitivity(n, kappa)",
      "sensitivity = _pb.smoothboost_sensitivity(2 * n, kappa)", True, "bun2020.lemma52", NOISE, nth=0),  # 2nd: noise_report_
    M("stump-sensitivity-half", "fast/private_boosting.py", "return centroid_sensitivity(n, kappa)",
      "return centroid_sensitivity(2 * n, kappa)", True, "bun2020.s5.stump-sensitivity", NOISE),
    M("edges-half", "fast/dp_rados.py", "gaussian_mechanism(E, sensitivity=2.0 * c,",
      "gaussian_mechanism(E, sensitivity=c,", True, "nock2015.gauss", NOISE),
    M("anm-kendall-half", "fast/causal_privacy.py", "return min(1.0, 4.0 / m)", "return min(1.0, 2.0 / m)", True,
      "kusner2016.ch4.thm3_kendall", NOISE),
    M("anm-spearman-half", "fast/causal_privacy.py", "return min(1.0, float(Fraction(6 * (5 * m - 9), m * (m + 1))))",
      "return min(1.0, float(Fraction(3 * (5 * m - 9), m * (m + 1))))", True, "kusner2016.ch4.thm3_spearman", NOISE),
    M("anm-hsic-half", "fast/causal_privacy.py", "    return (8 * m - 4) / (m - 1) ** 2",
      "    return (4 * m - 2) / (m - 1) ** 2", True, "kusner2016.ch4.thm5", NOISE),
    # the estimator's _sensitivity for a training-set rank score feeds only the REPORTED sensitivity_ (the
    # stability release draws at sensitivity 1; its distance computes R_n itself): not privacy-critical
    M("anm-train-residual-half", "fast/estimators/causal.py",
      '        return causal_privacy.residual_sensitivity(n, p["lam"])\n',
      '        return causal_privacy.residual_sensitivity(n, p["lam"]) / 2\n', False, "kusner2016.ch4.thm8", NOISE),
    M("anm-rank-distance-half", "fast/causal_privacy.py",
      "    step = residual_sensitivity(n, lam)\n    gap = float(np.min(np.diff(np.sort(r))))",
      "    step = residual_sensitivity(n, lam) / 2\n    gap = float(np.min(np.diff(np.sort(r))))", True,
      "kusner2016.ch4.dist_lb", CAUSAL),
    M("anm-ptr-test-half", "fast/causal_privacy.py",
      "r_j = mechanisms.laplace_mechanism(float(a_j), sensitivity=1.0,",
      "r_j = mechanisms.laplace_mechanism(float(a_j), sensitivity=0.5,", True, "kusner2016.ch4.alg4", NOISE),
    M("anm-stability-half", "fast/causal_privacy.py",
      "dhat = mechanisms.laplace_mechanism(float(distance), sensitivity=1.0,",
      "dhat = mechanisms.laplace_mechanism(float(distance), sensitivity=0.5,", True, "kusner2016.ch4.thm8", NOISE),
    M("impact-count-half", "fast/impact_coding.py", 'return 2 if neighbouring == "replace-one" else 1',
      'return 1 if neighbouring == "replace-one" else 0.5', True, "winvector2015.laplace", NOISE),
    # --- measures ----------------------------------------------------------------------------------------------------
    M("projection-flush", "fast/measures.py", "return np.where(m > _FLUSH, m, 0.0)", "return m", False,
      "bun2020.lemma9", MEAS),
    M("projection-identity", "fast/measures.py", "    k = check_kappa(kappa)\n    n = m.shape[0]\n    target = k * n\n",
      "    return m\n", False, "bun2020.thm8", MEAS),
    M("ref-projection-identity", "reference/measures.py",
      "    check_kappa(kappa)\n    return project_dense_log([math.log(float(v)) if v > 0 else -math.inf for v in m], kappa)",
      "    check_kappa(kappa)\n    return m", False, "bun2020.thm8", MEAS),
]


def own_checks(claim: str) -> tuple:
    """The claim's OWN checks: its registry ``checks`` list and every ``@checks(claim)`` test (node ids, the
    parametrisation dropped), or () when ``claim`` is not a registry id (e.g. "ledger")."""
    from spec.registry import load_claims, scan_links

    claims = load_claims()
    if claim not in claims:
        return ()
    ids = list(claims[claim].checks or ())
    ids += [link.nodeid for link in scan_links(("tests", "proofs_checks")) if link.decorator == "checks"
            and link.claim_id == claim]
    return tuple(dict.fromkeys(i.split("[")[0] for i in ids))


def _apply(mutant: Mutant, root: Path) -> str | None:
    """Apply the mutant under ``root``; return the original file text (None: the original text is not found once)."""
    path = root / mutant.path
    text = path.read_text()
    count = text.count(mutant.original)
    if mutant.nth is None and count != 1 or mutant.nth is not None and count <= mutant.nth:
        return None
    start = -1
    for _ in range((mutant.nth or 0) + 1):
        start = text.index(mutant.original, start + 1)
    path.write_text(text[:start] + mutant.replacement + text[start + len(mutant.original):])
    return text


def _pytest(root: Path, tests: tuple, timeout: float) -> str:
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-n0", "-p", "no:cacheprovider", *tests]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", NUMBA_CACHE_DIR=str(root / ".numba_cache"))
    try:
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    if proc.returncode == 0:
        return "survived"
    if proc.returncode == 1:
        return "killed"
    return f"error (pytest exit {proc.returncode}: {proc.stdout.strip().splitlines()[-1:]})"


def run(mutants, timeout: float, log=print, rev: str = "HEAD") -> list[tuple[Mutant, str, float]]:
    """Run every mutant in a fresh private worktree of ``rev``; return (mutant, outcome, seconds)."""
    tmp = Path(tempfile.mkdtemp(prefix="privlearn-mutation-"))
    tree = tmp / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), rev], cwd=ROOT, check=True)
    results = []
    try:
        baseline = {}
        for mutant in mutants:
            if mutant.tests not in baseline:
                baseline[mutant.tests] = _pytest(tree, mutant.tests, timeout)
                log(f"baseline {' '.join(mutant.tests)}: {'passes' if baseline[mutant.tests] == 'survived' else baseline[mutant.tests]}")
            began = time.monotonic()
            if baseline[mutant.tests] != "survived":
                outcome = "error (tests fail unmutated)"
            else:
                original = _apply(mutant, tree)
                if original is None:
                    outcome = "error (original text not found exactly once)"
                else:
                    try:
                        outcome = _pytest(tree, mutant.tests, timeout)
                    finally:
                        (tree / mutant.path).write_text(original)
            seconds = time.monotonic() - began
            results.append((mutant, outcome, seconds))
            log(f"{mutant.ident:28s} {outcome:10s} {seconds:6.1f} s")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def _killed(outcome: str) -> bool:
    return outcome in ("killed", "timeout")


def report(results, command: str, rev: str = "HEAD") -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Mutation score of the privacy-critical sites", "",
             f"Generated by `{command}` on {now} at commit {commit} (`proofs_checks/mutation.py`: hand-picked mutants, "
             "each applied in a private git worktree; the listed test files run with the default selection "
             "`-m \"not slow\"`, `-n0 -x`; timeout counts as killed).", "",
             "| module | mutants | killed | score | privacy-critical killed |", "|---|---|---|---|---|"]
    modules = sorted({m.path for m, _, _ in results})
    for mod in modules:
        rows = [(m, o) for m, o, _ in results if m.path == mod]
        k = sum(_killed(o) for _, o in rows)
        crit = [(m, o) for m, o in rows if m.critical]
        kc = sum(_killed(o) for _, o in crit)
        lines.append(f"| `{mod}` | {len(rows)} | {k} | {100 * k / len(rows):.0f} % | {kc} / {len(crit)} |")
    total = len(results)
    k = sum(_killed(o) for _, o, _ in results)
    crit = [o for m, o, _ in results if m.critical]
    lines += [f"| **all** | {total} | {k} | {100 * k / max(total, 1):.0f} % | {sum(map(_killed, crit))} / {len(crit)} |",
              "", "| mutant | file | critical | claim | outcome | seconds | tests |", "|---|---|---|---|---|---|---|"]
    for m, o, s in results:
        lines.append(f"| {m.ident} | `{m.path}` | {'yes' if m.critical else 'no'} | {m.claim} | {o} | {s:.0f} | "
                     f"{', '.join(t.split('/')[-1] for t in m.tests)} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m proofs_checks.mutation", description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="substrings of the mutated files to keep")
    parser.add_argument("--ids", nargs="*", default=None, help="mutant ids to run")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", default="docs/mutation.md")
    parser.add_argument("--rev", default="HEAD", help="the commit to mutate (default HEAD)")
    parser.add_argument("--own-checks", action="store_true",
                        help="run each mutant against its claim's OWN checks (registry list and @checks links) "
                             "instead of its test files; mutants of non-registry claims are skipped")
    parser.add_argument("--claim", nargs="*", default=None, help="claims whose mutants to run")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if (args.only is None or any(s in m.path for s in args.only))
              and (args.ids is None or m.ident in args.ids) and (args.claim is None or m.claim in args.claim)]
    if args.own_checks:
        import dataclasses

        chosen = [dataclasses.replace(m, tests=own_checks(m.claim)) for m in chosen]
        chosen = [m for m in chosen if m.tests]
    if not chosen:
        parser.error("no mutant selected")
    rev = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()  # fixed now: HEAD may move while the mutants run
    results = run(chosen, args.timeout, rev=rev)
    command = "python -m proofs_checks.mutation " + " ".join(argv if argv is not None else sys.argv[1:])
    (ROOT / args.out).write_text(report(results, command.strip(), rev))
    survivors = [m.ident for m, o, _ in results if m.critical and not _killed(o)]
    print(f"written {args.out}; privacy-critical survivors: {survivors or 'none'}")
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
