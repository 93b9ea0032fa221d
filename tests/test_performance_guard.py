"""Performance regression guard (issue 15): fast vs its peer from benchmarks/peers/, as a ratio, in a FRESH process.

Never an absolute time.  Method (``benchmarks.peers.guard_ratio``): process CPU time (time.process_time) with
BLAS / OpenMP / numba on one thread, each side looped to ~5 ms per timing, 9 back-to-back pairs in alternating
order (fast-peer, peer-fast, ...) after a warm-up pair, and the MEDIAN of the 9 per-pair ratios fast / peer.  A
load change between pairs hits both members of a pair alike, and the median ignores the pairs a burst disturbed.

A pair fails when that median exceeds FACTOR (1.6) x its committed ratio (BASELINE: the typical value of this
method on the shared machine at load 4.5-8, not its best) in the majority of ATTEMPTS (3) measurements, PAUSE
seconds apart (2 of 3; it stops once two agree).  FACTOR < 2 so that a 2x regression is caught, not left to a
coin toss at the limit; test_guard_flags_a_2x_regression checks it with a fast function that does its work twice.

The guarded pairs are measured in one fresh Python process (this file run with ``--verdicts``), the pairs in sorted
order: the context the baselines come from.  A ratio measured inside the test session depended on the state earlier
tests leave in the process: ``losses.example_adversary`` measured 0.87-0.90 in a pytest-xdist worker of stop 21's CI
and 0.23-0.45 in a fresh process, which had forced a looser baseline there (stop 22 restored it).

Re-baselining: ``PYTHONPATH=. .venv/bin/python tests/test_performance_guard.py 5`` prints each pair's median over 5 runs
(and the spread); run it in 3 sessions on the busy machine and commit the highest session median, rounded up to two
digits (docs/performance.md, "Regression guard").
"""
from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

import benchmarks.peers as peers  # a plain import: a broken benchmarks module fails the guard, never skips it

#: (module, function, size) -> committed fast / peer CPU-time ratio, one thread, this file's method (typical value)
BASELINE = {
    ("rados", "rados", "mid"): 0.52,                  # table kernel vs GEMM formulation, d = 10 (0.33 at load 4.5)
    ("rados", "edge_vectors", "mid"): 0.8,
    ("rados", "support_sizes", "mid"): 0.26,          # 64-bit word reads since stop 18 (was 0.75; 0.23-0.26)
    ("rados", "logistic_risk", "mid"): 1.1,
    ("rados", "log_exp_rado_risk", "mid"): 0.64,
    ("rados", "exp_rado_risk", "mid"): 1.3,
    ("rados", "logistic_risk_gradient", "mid"): 1.3,
    ("losses", "rado_set_loss", "mid"): 0.75,
    ("losses", "example_adversary", "mid"): 0.5,      # one fused pass since stop 18; 0.23-0.45 in a fresh process.
    # Inside a test session it measured 0.87-0.90 (state left by earlier tests), hence the fresh process below
    ("reconstruction", "hausdorff_distance", "mid"): 0.5,  # compiled early-exit search since stop 18 (was 1.1)
    ("regularizers", "slope", "mid"): 0.35,
    ("radoboost", "radoboost", "mid"): 0.96,          # boosting loops vs the textbook numpy loop
    ("radoboost", "omega_radaboost", "mid"): 1.1,
    ("radoboost", "adaboost", "mid"): 1.1,
    ("measures", "project_dense", "mid"): 0.16,       # sort-free capped scaling since stop 18 (0.09-0.15; was 2.1)
    ("private_boosting", "lb_nxm", "mid"): 0.43,      # sort-free projection since stop 18 (0.27-0.42; was 1.1)
    ("impact_coding", "cross_codes", "mid"): 0.46,    # vs sklearn TargetEncoder(cv=5)
    ("budgeted", "greedy_select", "small"): 0.17,     # vs an lstsq-per-candidate greedy
    ("snc", "snc_gradient", "small"): 0.32,           # vs the plain numpy GEMM formulation
}
#: fail when the median ratio > FACTOR x baseline in the majority of attempts.  Below 2 on purpose: a 2x regression must land
#: ABOVE the limit (2 / 1.6 = 1.25: room for the measurement to come out 20 % low), while the highest of 15
#: measurements per pair (3 sessions, load 4.5-8) stayed at <= 0.86 of the limit (one isolated outlier at 1.04,
#: outvoted by the other attempts)
FACTOR = 1.6
#: measurements of a pair, PAUSE seconds apart; the majority decides (2 of 3), so one outlier cannot
ATTEMPTS = 3
PAUSE = 0.5
#: the pair the self-test slows down: cheap and steady (doubled / plain 1.83-2.08 in 12 measurements at load 2).
#: Not losses.example_adversary any more: since its fused kernel (stop 18) its ratio moves between two levels with
#: the warmth of the output allocations (0.31-0.45), and a plain ratio taken at the high level let a doubled fast
#: measure 1.38x plain in stop 20's CI
SELF_TEST_KEY = ("snc", "snc_gradient", "small")
#: measurements of the plain pair whose median is the self-test's baseline
SELF_TEST_PLAIN = 5


@dataclasses.dataclass
class Verdict:
    ok: bool
    #: the median ratio of each attempt made (one when the first passes)
    ratios: list
    limit: float


def check(case, baseline: float, *, factor: float = FACTOR, attempts: int = ATTEMPTS, pause: float = PAUSE,
          measure=peers.guard_ratio) -> Verdict:
    """The guard's decision for one pair: the MAJORITY of ``attempts`` measurements (2 of 3) decides, and it stops
    as soon as the majority is reached.  A single outlier attempt within the limit cannot pass a pair: under "pass
    if ANY attempt is within the limit" one lucky attempt let a doubled fast through (stop 20's CI: 0.99 then 0.61
    against a limit of 0.705).  One exception keeps healthy pairs cheap: a first attempt at or below the baseline
    itself passes at once (a 2x regression would have to measure at half its real ratio; the lowest doubled / plain
    seen is 1.46)."""
    if attempts < 1 or attempts % 2 == 0:
        raise ValueError(f"attempts must be a positive odd number so that a majority exists, got {attempts}")
    limit = factor * baseline
    need = attempts // 2 + 1
    ratios = []
    for attempt in range(attempts):
        if attempt:
            time.sleep(pause)  # let a burst of load pass
        ratios.append(measure(case)[0])
        if attempt == 0 and ratios[0] <= baseline:
            return Verdict(True, ratios, limit)
        within = sum(r <= limit for r in ratios)
        if within >= need:
            return Verdict(True, ratios, limit)
        if len(ratios) - within >= need:
            return Verdict(False, ratios, limit)
    raise AssertionError("unreachable: a majority of an odd number of attempts is always reached")


def test_check_is_decided_by_the_majority_of_attempts():
    """The decision rule alone, on scripted measurements (no timing): one outlier attempt never decides."""
    def scripted(values):
        values = iter(values)
        return lambda case: (next(values), [])

    cases = {  # measurements (baseline 0.625, limit 1.0) -> (ok, attempts made)
        (0.6, 2.0): (True, 1), (0.9, 0.8): (True, 2), (1.2, 1.3): (False, 2),
        (0.87, 1.4, 1.1): (False, 3), (0.99, 1.4, 1.2): (False, 3),  # stop 20 CI, scaled: one low attempt
        (1.4, 0.9, 0.95): (True, 3), (0.9, 1.4, 0.7): (True, 3),      # one high outlier on a healthy pair
    }
    for values, (ok, made) in cases.items():
        verdict = check(None, 0.625, factor=1.6, pause=0.0, measure=scripted(values))
        assert (verdict.ok, len(verdict.ratios)) == (ok, made), (values, verdict)
    with pytest.raises(ValueError, match="attempts must be a positive odd number"):
        check(None, 1.0, attempts=2, measure=scripted([]))


def _rows(modules=None):
    table = {}
    for module in modules or {key[0] for key in BASELINE}:
        for row in peers.MODULES[module]():
            table[(module, row.function)] = row
    return table


def _case(key):
    module, function, size = key
    return _rows({module})[(module, function)].cases[size]()


def test_guarded_pairs_exist():
    rows = _rows()
    for module, function, size in BASELINE:
        assert (module, function) in rows and size in rows[(module, function)].cases, (module, function, size)


def _verdicts_here():
    """Every guarded pair's verdict, measured in THIS process in sorted order: one JSON line per pair, after a line
    naming the process."""
    print(json.dumps({"pid": os.getpid()}), flush=True)
    for key in sorted(BASELINE):
        verdict = check(_case(key), BASELINE[key])
        print(json.dumps({"key": list(key), **dataclasses.asdict(verdict)}), flush=True)


#: the fresh process must finish within this (it takes ~30 s on the shared machine; a hung kernel fails the guard)
FRESH_TIMEOUT = 900


@pytest.fixture(scope="module")
def fresh_verdicts():
    """Run the guard in a fresh interpreter (``python tests/test_performance_guard.py --verdicts``), so that what earlier
    tests left in the session's process (allocator state, caches, threads) cannot move a ratio away from the
    context its baseline was measured in.  Its failure to run fails every pair (never a skip)."""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--verdicts"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=FRESH_TIMEOUT)
    assert done.returncode == 0, f"the guard's fresh process failed ({done.returncode}):\n{done.stderr[-4000:]}"
    verdicts = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            if "pid" in row:
                verdicts["pid"] = row["pid"]
                continue
            key = tuple(row.pop("key"))
            verdicts[key] = Verdict(**row)
    assert set(verdicts) == set(BASELINE) | {"pid"}, f"pairs without a verdict: {set(BASELINE) - set(verdicts)}"
    return verdicts


def test_pairs_are_measured_in_a_fresh_process(fresh_verdicts):
    """The verdicts come from another interpreter than the test session's (the reason is in the module docstring)."""
    assert fresh_verdicts["pid"] != os.getpid()


@pytest.mark.parametrize("key", sorted(BASELINE), ids=lambda k: f"{k[0]}.{k[1]}[{k[2]}]")
def test_fast_has_not_regressed_relative_to_its_peer(key, fresh_verdicts):
    verdict = fresh_verdicts[key]
    module, function, size = key
    assert verdict.ok, (f"{module}.{function} ({size}): fast / peer = "
                        f"{', '.join(f'{r:.2f}' for r in verdict.ratios)} in CPU time, one thread (median of 9 "
                        f"pairs, {len(verdict.ratios)} attempts); committed {BASELINE[key]:.2f}, limit "
                        f"{verdict.limit:.2f} ({FACTOR}x)")


def test_guard_flags_a_2x_regression():
    """A fast function that does its work twice is caught; the plain one is not.  The baseline is the plain pair's
    ratio measured here and now (not the committed one), so the outcome does not depend on the machine's speed or
    load, only on the method resolving a doubling of the work."""
    case = _case(SELF_TEST_KEY)
    fast = case.fast

    def twice():
        fast()
        return fast()

    doubled = dataclasses.replace(case, fast=twice)
    plain = statistics.median(peers.guard_ratio(case)[0] for _ in range(SELF_TEST_PLAIN))
    assert check(case, plain).ok
    verdict = check(doubled, plain)
    assert not verdict.ok, (f"a 2x slower fast passed: ratios {verdict.ratios} vs plain {plain:.3f}, "
                            f"limit {verdict.limit:.3f}")
    assert all(r / plain <= 3.0 for r in verdict.ratios), (verdict.ratios, plain)  # flagged for doing 2x, not 10x


def test_every_public_function_has_a_peer_row():
    """benchmarks/peers/ covers every public function (and estimator) of EVERY module it lists: a new public
    function without a row fails here (tests/test_peers_coverage.py checks that every module is listed)."""
    assert not hasattr(peers, "PARTIAL") or not peers.PARTIAL, f"modules exempted from coverage: {peers.PARTIAL}"
    missing = {module: names for module, names in peers.coverage(list(peers.MODULES)).items() if names}
    assert not missing, f"public functions with no row in benchmarks/peers/: {missing}"


if __name__ == "__main__" and sys.argv[1:] == ["--verdicts"]:  # the fixture's fresh process
    _verdicts_here()
elif __name__ == "__main__":  # re-baselining: the median ratio of every pair over N runs of the guard's method
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else None
    for key in sorted(BASELINE):
        if only and key[1] not in only:
            continue
        case = _case(key)
        values = [peers.guard_ratio(case)[0] for _ in range(runs)]
        print(f"{key[0]}.{key[1]}[{key[2]}]: median {statistics.median(values):.3f}  min {min(values):.3f}  "
              f"max {max(values):.3f}  committed {BASELINE[key]}  runs {' '.join(f'{v:.3f}' for v in values)}",
              flush=True)
