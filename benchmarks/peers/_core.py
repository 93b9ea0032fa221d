"""Shared machinery of benchmarks.peers: the Row / Case model, the input builders, the loss reasons
(SLOWER_BECAUSE), the timing (guard_ratio, measure, recheck) and the docs/performance.md table writer."""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import itertools
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

# import every library whose thread pool we limit BEFORE threadpoolctl (it only sees loaded libraries)
import scipy.linalg  # noqa: F401
import scipy.optimize
import scipy.special
import scipy.stats
import sklearn  # noqa: F401
from scipy.spatial.distance import pdist
from scipy.special import expit, logsumexp

from benchmarks._timing import interleaved, one_thread as _one_thread, paired_ratios

SIZES = ("small", "mid", "large")


SCALAR = "scalar"


DOC = Path(__file__).resolve().parents[2] / "docs" / "performance.md"


@dataclass
class Case:
    """One size: zero-argument callables for fast and its peer (inputs built once, outside the timing)."""

    label: str
    fast: Callable[[], object]
    peer: Callable[[], object] | None
    #: compare the two results (numerically, rtol 1e-6); False for random or structurally different outputs
    same: bool = True


@dataclass
class Row:
    module: str
    function: str
    #: the formulation the peer stands for (or, when there is none, what fast is compared with instead)
    peer: str
    #: size name -> () -> Case (built lazily: large inputs only when that size runs)
    cases: dict = field(default_factory=dict)
    note: str = ""


def _rng(seed=0):
    return np.random.default_rng(seed)


def _data(m, d, seed=0):
    rng = _rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    return X, y


def _signatures(n, m, seed=1):
    return (2 * _rng(seed).integers(0, 2, size=(n, m), dtype=np.int8) - 1).astype(np.int8)


def _g(m):
    """G_m (m, 2^m) as a user would build it: column c = the binary digits of c, most significant first."""
    return ((np.arange(2**m)[None, :] >> np.arange(m - 1, -1, -1)[:, None]) & 1).astype(np.uint8)


def scalar(module, function, peer_text, fast, peer, note="", same=True):
    """A row for a function of scalars (one size): its cost is its validation plus a few float operations."""
    return Row(module, function, peer_text, {SCALAR: lambda: Case("scalars", fast, peer, same)}, note)


def sized(module, function, peer_text, make, labels, note="", same=True):
    """A row with the three sizes; ``make(size_args) -> (fast, peer)``; ``labels`` maps size -> (label, args)."""
    cases = {}
    for size, (label, args) in labels.items():
        def build(label=label, args=args):
            fast, peer = make(*args)
            return Case(label, fast, peer, same)
        cases[size] = build
    return Row(module, function, peer_text, cases, note)


# the boosting loops' shared reason, given the loop's per-round product (radoboost and omega_radaboost: w @ Pi;
# adaboost: w @ (y X))
def _boosting_loop_reason(product: str) -> str:
    return (
        f'one thread on purpose: the per-round product {product} (85 % of a round, memory-bound) runs as compiled'
        ' column dots on the calling thread, 1.18x OpenBLAS gemv on one thread (4.35 vs 5.13 ms); split '
        'between two threads it LOST under load (2 threads / 1: 0.72 at n = 1e4, 0.80 at 1e5, load 6), as a '
        "2-thread gemv did (20x stalls, _blas_threads). On a quiet machine the peer's 2-thread gemv gains ~25"
        ' % and wins with default threads: x0.86-0.99 at load 1.2 (stop 18), while fast wins on one thread '
        '(x1.18-1.30) and under load'
    )


#: module.function -> why fast cannot beat its peer (the loss is inherent to what fast guarantees and the peer
#: does not: exactness, privacy, validation of the contract, or a different algorithm).  Printed beside every loss
#: at mid / large size; a loss without an entry is reported as "NO REASON RECORDED".
SLOWER_BECAUSE: dict[str, str] = {
    'accounting.basic_composition': (
        'the peer sums a Python list with math.fsum (~26 ns an element); fast must first convert the list to '
        'an array for its vectorised validation (~35 ns an element), after which its exact sum costs ~1 ns an'
        ' element (with array inputs fast is 10x faster)'
    ),
    'accounting.renyi_gaussian': (
        "mid size only: a fixed ~15 us (four validated arguments, the exact-sum set-up) against the peer's 7 "
        'us; faster from about 1e5 coordinates'
    ),
    'accounting.split': (
        "two exact Fraction divisions and the budget's validation (~5 us) against a float division; the tuple"
        ' itself is now one repeat'
    ),
    'accounting.zcdp_composition': (
        'as basic_composition: list-to-array conversion for validation dominates; the exact sum itself is ~1 '
        'ns an element'
    ),
    'budgeted.l1_logistic': (
        'a different solver: FISTA to tolerance 1e-10 (about 250 full-gradient iterations) against '
        "liblinear's coordinate descent"
    ),
    'dp_rados.dp_feat_rados': (
        'its signatures (see dp_rados.dp_feat_signatures); the rados themselves go through the fast.rados table '
        "kernel (20-50 ms at m = 1e4, n = 1e3 where the peer's GEMM takes 130-170 ms): x0.63-1.43 at mid and "
        'x0.96-1.58 at large over three runs at load 4-7'
    ),
    'dp_rados.dp_feat_signatures': (
        "the exact sampler takes the reference's draws (seeded fast == reference, bit for bit): after the n "
        'truncated-binomial K, n m uniform doubles (64 bits each; the K smallest of a row form the subset), '
        'against the peer\'s n m int8 coin flips (8 bits each) plus the redrawn rows. At m = 1e4, n = 1e3 the '
        "doubles alone take ~100 ms of fast's 105-170 ms (the K: 2 ms; the O(m) selection ~2 ns an entry); "
        'x0.44-1.43 at mid and x0.72-1.02 at large (was 0.03-0.12 before the O(m) rewrite)'
    ),
    'dp_rados.noisy_edges': (
        'exact discrete Gaussian noise on every edge (see mechanisms.gaussian_mechanism) plus clipping, '
        "against numpy's floating-point normal"
    ),
    'estimators.OmegaRAdaBoostClassifier.fit': (
        'a different algorithm: boosting rounds over rados with the Omega regulariser (nock2016) against '
        "liblinear's L1 logistic regression"
    ),
    'estimators.OmegaRAdaBoostClassifier.predict': (
        'the same scikit-learn validate_data (a finiteness sum over X) and the same BLAS gemv as '
        'LogisticRegression.predict; with the lasso 19 of 20 coefficients are 0 and hide their columns from '
        "the scores' finiteness test, so the pass stays (a dense model skips it: 2.0-2.3x); paired 1.04-1.27"
    ),
    'estimators.RadoBoostClassifier.fit': (
        'a different algorithm: 300 rounds of boosting over rados (nock2015) against L-BFGS logistic '
        'regression on the examples'
    ),
    'estimators.SNCClassifier.fit': (
        'a different algorithm: SNC optimises the compression objective over all n inputs (O(n m d) per '
        'L-BFGS iteration, plus the gamma^2 hold-out) where the peer fits per-class k-means prototypes'
    ),
    'impact_coding.coder_from_table': (
        "the contract reports every level's Fisher / chi-square significance (about 80 % of the time, 17 ms "
        'per 1e5 levels, one compiled pass per level) whatever rare_sig is; the peer is the bare catB formula'
        ' (0.12-0.14)'
    ),
    'impact_coding.factorize': (
        "pandas.factorize plus the contract's level-kind check and conversion of the levels to Python values "
        '(0.92-1.06 over runs: at par)'
    ),
    'impact_coding.laplace_count_table': (
        "exact discrete Laplace noise on every count (see mechanisms.laplace_mechanism) against numpy's "
        'floating-point Laplace'
    ),
    'impact_coding.log_lift_code': (
        "one np.log over the levels is ~60 % of both sides' time (0.91-1.08 over runs: at par)"
    ),
    'losses.omega_tilde': (
        'both sides do one dot product at d = 1e6 (0.9-1.3 over runs); the overflow-safe rescaling adds a '
        'pass only when needed'
    ),
    'losses.rado_game_value': (
        'the contract caps m at 26 (the reference enumerates 2^m subsets), so every size is tiny: about 4 us '
        'of validation against a 2 us one-liner'
    ),
    'losses.regularized_exp_rado_loss': (
        'the same one pass over P as the peer: fused row products 203 us vs OpenBLAS gemv 214 us, exp-sum 55 '
        'us vs np.exp + mean 67 us (n = 1e4, d = 100, one thread), plus ~6 us of validation: at par '
        '(0.96-1.28 over runs)'
    ),
    'losses.regularized_rados': (
        "one pass that reads and writes n d values, memory-bound like the peer's subtraction (80 MB each way "
        'at n = 1e5); paired 1.04-1.19 at load 4.6, and a 2-thread split did not pay on the loaded 2-core '
        'machine (0.86-0.96)'
    ),
    'measures.density': (
        'as measures.size: exactly rounded sum plus the range check'
    ),
    'measures.is_dense': (
        'as measures.size: exactly rounded sum plus the range check'
    ),
    'measures.kl': (
        'the contract checks both inputs are probability vectors (range, exact sum to 1): two passes the peer'
        ' skips'
    ),
    'measures.normalize': (
        'as measures.size: exactly rounded sum plus the range check, then the division'
    ),
    'measures.renyi': (
        "the contract's probability-vector checks of both inputs (large size); integer orders have an exact "
        'power path'
    ),
    'measures.size': (
        "the contract returns math.fsum's exactly rounded float and checks the [0, 1] range: one certified "
        "compensated pass (fast._exact_sum) costs about 2x np.sum's plain pairwise sum"
    ),
    'measures.statistical_distance': (
        "the contract's probability-vector checks of both inputs: two passes the peer skips"
    ),
    'mechanisms.gaussian_mechanism': (
        'exact discrete Gaussian (CKS20): ~85 ns a draw of exact arithmetic (~2.1 attempts of 4 words), the '
        "words alone cost 1.1-1.6x numpy's whole normal draw, which is not DP"
    ),
    'mechanisms.laplace_mechanism': (
        'exact discrete Laplace (CKS20) from random words: the compiled sampler is ~74 ns a draw of exact '
        "integer arithmetic with rejection (~1.6 attempts, ~6 words a draw), 2.9x numpy's whole floating-"
        'point draw, which is not DP (Mironov 2012); the rest is the words (~21 %), validation and release (<'
        ' 7 %)'
    ),
    'mechanisms.sample_discrete_gaussian': (
        'the exact discrete Gaussian sampler (see gaussian_mechanism) against a rounded continuous normal (a '
        'different law)'
    ),
    'mechanisms.sample_discrete_laplace': (
        "the exact discrete Laplace sampler (see laplace_mechanism) against numpy's floating-point geometric "
        'draws'
    ),
    'mechanisms.unsafe_float_gaussian': (
        'mid size: the validation and the (memoised) analytic-Gaussian calibration, ~15 us, against a 17 us '
        'numpy call; at par at large size'
    ),
    'mechanisms.unsafe_float_laplace': (
        'mid size: ~6 us of argument validation and calibration against a 25 us numpy call; at par at large '
        'size'
    ),
    'private_boosting.boost': (
        "the user's weak-learner callables dominate both sides; fast adds one exact sum per round (~0.1 ms) "
        'and passes int8 labels as the contract requires (0.91-1.05 over runs)'
    ),
    'private_boosting.centroid': (
        "large size (0.94): the contract's unit-ball check adds the squared norms to the one read of X (85-95"
        " % of OpenBLAS's matrix-vector product at d = 20) and the weights' exact sum adds 0.6 ms at n = 1e6"
    ),
    'private_boosting.lazy_bregman_boost': (
        'the projection and products are at par; the difference is the exact discrete-Gaussian release each '
        'round (~0.16 ms per round, within noise)'
    ),
    'private_boosting.noisy_centroid': (
        'exact discrete Gaussian noise on the centroid (see mechanisms.gaussian_mechanism)'
    ),
    'private_boosting.noisy_stump': (
        'exact discrete noise for the report-noisy-max (see mechanisms.laplace_mechanism)'
    ),
    'private_boosting.report_noisy_max': (
        '93-100 % of its time is the exact discrete Laplace noise (fast.mechanisms, ~100 ns a draw against '
        "~25 ns for numpy's floating-point Laplace); the argmax is one compiled pass"
    ),
    'private_boosting.smooth_boost': (
        'every round draws exact discrete noise (stump / centroid and the PTR test) and sums exactly, against'
        ' AdaBoost with no noise'
    ),
    'radoboost.adaboost': _boosting_loop_reason('w @ (y X)'),
    'radoboost.omega_radaboost': _boosting_loop_reason('w @ Pi'),
    'radoboost.radoboost': _boosting_loop_reason('w @ Pi'),
    'rados.exp_rado_risk': (
        "mid size (n = 1e4 rows, d = 100): one thread, the peer is one BLAS product and one exp-sum and fast's "
        'compiled row products are at par with BLAS (0.95-1.05 over runs); default threads, fast stays on one '
        'thread below 2^22 entries (a 2-thread split stalled under load: the fix took log_exp_rado_risk from 1.06 '
        "to 40.6) while on a quiet machine the peer's 2-thread gemv gains 20 %: x0.68-0.85. From 1e5 rows: "
        'x1.5-1.6'
    ),
    'rados.logistic_risk_gradient': (
        "mid size, one thread, matrix in cache: two BLAS passes cost about as much as fast's one fused pass "
        '(0.8-0.95)'
    ),
    'rados.rados': (
        "default threads under load: both sides run 2 threads (the table kernel's pool / OpenBLAS GEMM) and "
        'lose 1.5-2x to their own one-thread time at load 4-7; paired at d = 100, mid: 1.27-2.6; a 0.91 had '
        'fast at 204 ms against its usual 60-93 ms'
    ),
    'rados.sample_signatures': (
        "bound to the reference's random stream (one 32-bit draw per signature entry, so seeded runs "
        "reproduce the reference's signatures); numpy's int8 draws use 8 bits an entry but give other "
        'signatures (0.65-0.7 at small / mid size)'
    ),
    'reconstruction.alternative_edge_vectors': (
        "a rank check by SVD (Lemma 9), which the peer's np.linalg.inv skips, on 10-80 us of work"
    ),
    'reconstruction.recover_edge_vectors': (
        "it is the peer's lstsq plus ~5 % of validation (supports, rank as Lemma 9 requires)"
    ),
    'reconstruction.split_edge_vectors': (
        '5-10 us of validation of E, v and U against a 10-30 us peer'
    ),
    'reconstruction.support_matrix': (
        'at n = 512: 5-10 us of validation of the supports against a 10-30 us peer; 3x faster at n = 4096'
    ),
    'regularizers.linf': (
        'd = 1e6: one pass on both sides; default-thread figures on the shared machine are noise (median 4.1x'
        ' faster over runs)'
    ),
    'regularizers.ridge': (
        'with Gamma: its symmetric positive definiteness must be decided (a Cholesky, or a full comparison '
        "with the copy already certified), reading 2 d^2 values where the peer's quadratic form reads d^2; "
        'without Gamma both sides are one dot product (at par)'
    ),
    'estimators.DomainClipper.transform': (
        'the peer assumes finite floats; fast first maps every value into the declared domain '
        '(spec.privacy_contract.to_domain: a float64 copy, a NaN test, a clamp of +-inf, NaN to the centre; '
        'object columns read one by one) so that no record can make the clip fail or return NaN: 3 more passes '
        'over X than the peer (x2.2 at 1e3 and x2.4 at 1e5 rows, d = 20)'
    ),
    'estimators.clipping_report': (
        'the peer compares a float64 array it already holds; fast reads any input a transformer accepts (object '
        'columns, None, str, ints beyond the float range) through to_domain before the mask, checks the schema '
        'against the fit and names the features: x2.1-2.4 at 1e3-1e5 rows, a non-private diagnostic run once'
    ),
}


def _loops(fn, target=2e-3) -> int:
    """Calls per timing so that one timing lasts about ``target`` seconds."""
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    return 1 if elapsed >= target else min(10_000, max(1, int(target / max(elapsed, 1e-7))))


def _looped(fn, k):
    if k == 1:
        return fn

    def run():
        for _ in range(k):
            fn()
    return run


def _same(a, b) -> bool | None:
    """Do fast and peer agree (rtol 1e-6)?  None when the outputs are not comparable arrays / numbers."""
    try:
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):  # e.g. (gradient array, scalar)
            parts = [_same(x, z) for x, z in zip(a, b)]
            return None if None in parts else all(parts)
        return None
    if a.shape != b.shape:
        return None
    return bool(np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True))


def time_case(case: Case, repeat: int) -> dict:
    """{fast, peer (seconds per call, least over ``repeat`` alternating repetitions), same}."""
    fns = {"fast": case.fast}
    if case.peer is not None:
        fns["peer"] = case.peer
    loops = {name: _loops(fn) for name, fn in fns.items()}  # also the warm-up (numba compiles, caches fill)
    timed = interleaved({n: _looped(f, loops[n]) for n, f in fns.items()}, repeat=repeat, warmup=0)
    out = {name: timed[name][0] / loops[name] for name in fns}
    out["same"] = _same(case.fast(), case.peer()) if (case.same and case.peer is not None) else None
    return out


def guard_ratio(case: Case, pairs: int = 9, target: float = 5e-3) -> tuple:
    """(median, per-pair ratios) of fast / peer for tests/test_performance_guard.py: process CPU time (one thread for
    BLAS / OpenMP / numba, so CPU time is the work done, whatever the time-slicing of a loaded machine), each side
    looped to about ``target`` seconds per timing, ``pairs`` alternating back-to-back pairs after one warm-up pair
    (``benchmarks._timing.paired_ratios``), the median of the per-pair ratios."""
    import statistics

    with _one_thread():
        loops = {name: _loops(fn, target=target) for name, fn in (("fast", case.fast), ("peer", case.peer))}
        ratios = paired_ratios(_looped(case.fast, loops["fast"]), _looped(case.peer, loops["peer"]), pairs,
                               warmup=1, clock=time.process_time)
    ratios = [r * loops["peer"] / loops["fast"] for r in ratios]
    return statistics.median(ratios), ratios


def _repeat_for(seconds: float) -> int:
    return 7 if seconds < 0.01 else 5 if seconds < 0.2 else 3 if seconds < 1.0 else 2


def measure(rows, sizes, threads=("default", "1"), log=print, checkpoint=None):
    """Time every row at every size and threading; returns a list of result dicts.  ``checkpoint(results)`` is
    called after every row (the full run takes long on a loaded machine: partial tables survive an interruption)."""
    results = []
    for row in rows:
        if checkpoint is not None and results:
            checkpoint(results)
        for size in (SCALAR, *sizes):
            if size not in row.cases:
                continue
            try:
                case = row.cases[size]()
            except Exception as error:  # noqa: BLE001 - a module in flux: report it in the table
                results.append({"row": row, "size": size, "label": "-", "error": f"{type(error).__name__}: {error}"})
                continue
            entry = {"row": row, "size": size, "label": case.label}
            for thread in threads:
                try:
                    probe = time.perf_counter()
                    case.fast()
                    repeat = _repeat_for(time.perf_counter() - probe)
                    if thread == "1":
                        with _one_thread():
                            entry[thread] = time_case(case, repeat)
                    else:
                        entry[thread] = time_case(case, repeat)
                except Exception as error:  # noqa: BLE001
                    entry["error"] = f"{type(error).__name__}: {error}"[:120]
                    break
            results.append(entry)
            log(_line(entry))
            del case
    return results


def _fmt(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _ratio(t: dict | None) -> str:
    if not t or t.get("peer") is None:
        return "-"
    return f"{t['peer'] / t['fast']:.2f}"


def _line(e) -> str:
    row = e["row"]
    if "error" in e and "default" not in e:
        return f"{row.module:15s} {row.function:28s} {e['size']:7s} ERROR {e['error']}"
    d, one = e.get("default"), e.get("1")
    same = "" if not d or d.get("same") is None else ("" if d["same"] else "  (results differ!)")
    return (f"{row.module:15s} {row.function:28s} {e['size']:7s} {e['label']:22s} "
            f"fast {_fmt(d['fast']):>10s} peer {_fmt(d.get('peer')):>10s} x{_ratio(d):>6s} | 1 thread "
            f"{_fmt(one['fast']) if one else '-':>10s} {_fmt(one.get('peer')) if one else '-':>10s} "
            f"x{_ratio(one):>6s}{same}")


#: a first-pass ratio at or above this is re-timed (:func:`recheck`) before it is called a loss: the rows are timed
#: once over 3-7 repetitions on a shared machine, where a 1-10 % swing between runs of the same code is common
RECHECK_ABOVE = 0.8


RECHECK_REPEAT = 9


def _losing(t) -> bool:
    return bool(t) and t.get("peer") is not None and t["peer"] < t["fast"]


def recheck(results, sizes=("mid", "large"), log=print):
    """Re-time every near-parity loss (first-pass ratio in [RECHECK_ABOVE, 1)) at mid / large size with
    ``RECHECK_REPEAT`` alternating repetitions, in the same threading; the result goes to ``entry[thread +
    "_recheck"]``.  :func:`verdicts` then calls it a loss only when the re-timing confirms it, and prints both."""
    for e in results:
        if e["size"] not in sizes or "error" in e:
            continue
        for thread in ("default", "1"):
            t = e.get(thread)
            if not _losing(t) or t["peer"] / t["fast"] < RECHECK_ABOVE:
                continue
            case = e["row"].cases[e["size"]]()
            if thread == "1":
                with _one_thread():
                    e[thread + "_recheck"] = time_case(case, RECHECK_REPEAT)
            else:
                e[thread + "_recheck"] = time_case(case, RECHECK_REPEAT)
            r = e[thread + "_recheck"]
            log(f"recheck {e['row'].module}.{e['row'].function} {e['size']} {thread}: x{t['peer'] / t['fast']:.2f}"
                f" -> x{r['peer'] / r['fast']:.2f}")
            del case


def verdicts(results, at_par=None) -> list[str]:
    """Rows where fast loses to its peer at mid or large size (ratio < 1 with either threading), each with the
    reason recorded in :data:`SLOWER_BECAUSE` (or a flag saying none is recorded: a loss to fix or explain).

    A loss that :func:`recheck` re-timed is a loss only when the re-timing also has fast slower; otherwise it goes
    to ``at_par`` (a list, when given) with both ratios, and is not a loss."""
    out = []
    for e in results:
        if e["size"] not in ("mid", "large"):
            continue
        key = f"{e['row'].module}.{e['row'].function.split(' ')[0]}"
        for thread in ("default", "1"):
            t = e.get(thread)
            if not _losing(t):
                continue
            r = e.get(thread + "_recheck")
            again = "" if r is None else f", re-timed x{r['peer'] / r['fast']:.2f}"
            where = (f"{key} {e['size']} ({e['label']}), {thread} thread(s): fast {_fmt(t['fast'])} vs peer "
                     f"{_fmt(t['peer'])} (x{t['peer'] / t['fast']:.2f}{again})")
            if r is not None and not _losing(r):
                if at_par is not None:
                    at_par.append(where)
                continue
            why = SLOWER_BECAUSE.get(key, "NO REASON RECORDED: fix it or say why in peers.SLOWER_BECAUSE")
            out.append(f"{where}. Why: {why}")
    return out


def markdown(results, header: str) -> str:
    lines = [header, "",
             "| module | function | size | fast | peer | peer/fast | fast (1 thr) | peer (1 thr) | peer/fast (1 thr) "
             "| peer formulation |", "|---|---|---|---|---|---|---|---|---|---|"]
    for e in results:
        row = e["row"]
        peer = row.peer + (f" ({row.note})" if row.note and e["size"] in ("small", SCALAR) else "")
        if "default" not in e:
            lines.append(f"| {row.module} | {row.function} | {e['size']} | error: {e.get('error', '')} | | | | | | |")
            continue
        d, one = e["default"], e.get("1") or {}
        flag = " (results differ)" if d.get("same") is False else ""
        lines.append(
            f"| {row.module} | `{row.function}` | {e['size']}: {e['label']} | {_fmt(d['fast'])} | "
            f"{_fmt(d.get('peer'))} | **{_ratio(d)}** | {_fmt(one.get('fast'))} | {_fmt(one.get('peer'))} | "
            f"**{_ratio(one)}** | {peer}{flag} |")
    return "\n".join(lines)


BEGIN, END = "<!-- peers table: generated by benchmarks/peers.py -->", "<!-- end of peers table -->"


def write_table(text: str, path: Path = DOC) -> None:
    """Replace the generated block of ``path`` (between BEGIN and END) by ``text``; the rest is hand-written."""
    doc = path.read_text() if path.exists() else f"# Performance\n\n{BEGIN}\n{END}\n"
    if BEGIN not in doc:
        doc += f"\n{BEGIN}\n{END}\n"
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1] if END in rest else ""
    path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


LOSSES_TITLE = "fast slower than its peer at mid/large size:"


AT_PAR_TITLE = (f"slower in the first pass but not when re-timed with {RECHECK_REPEAT} alternating repetitions "
                f"(first-pass ratio >= {RECHECK_ABOVE}; at par):")


def _merge_bullets(lines: list, title: str, new: list, modules) -> list:
    """``lines`` with the bullets of the section starting with ``title`` for ``modules`` replaced by ``new`` (the
    section is added at the end when absent and ``new`` is not empty)."""
    prefixes = tuple(f"* {m}." for m in modules)
    start = next((i for i, line in enumerate(lines) if line.startswith(title)), None)
    if start is None:
        return lines + (["", title, ""] + [f"* {x}" for x in new] if new else [])
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith("* ") or lines[end] == "none"):
        end += 1
    kept = [line for line in lines[start + 1:end] if line.startswith("* ") and not line.startswith(prefixes)]
    bullets = sorted(kept + [f"* {x}" for x in new])
    return lines[:start + 1] + [""] + (bullets or ["none"]) + [""] + lines[end:]


def merge_rows(table: str, modules, header: str, path: Path = DOC, losers=None, at_par=None) -> None:
    """Replace the rows of ``modules`` in the generated table of ``path`` by those of ``table`` (same columns), in
    place, and note the re-measurement under the table's header.  ``losers`` / ``at_par`` (from
    :func:`verdicts`) replace those modules' lines in the lists under the table."""
    doc = path.read_text()
    head, rest = doc.split(BEGIN, 1)
    block, tail = rest.split(END, 1)
    new_rows = {m: [line for line in table.splitlines() if line.startswith(f"| {m} |")] for m in modules}
    lines, done = [], set()
    for line in block.splitlines():
        module = line.split("|")[1].strip() if line.startswith("| ") else None
        if module in new_rows:
            if module not in done:
                lines.extend(new_rows[module])
                done.add(module)
            continue
        lines.append(line)
        if line.startswith("Measured ") and "Re-measured" not in line:
            lines.append("")
            lines.append(f"Re-measured after later fixes ({', '.join(modules)}): {header.split(' by ')[0].replace('Measured ', '')}.")
    missing = [m for m in modules if m not in done and new_rows[m]]
    if missing:  # modules new to the table: their rows go after the table's last row
        last = max(i for i, line in enumerate(lines) if line.startswith("| "))
        lines[last + 1:last + 1] = [row for m in missing for row in new_rows[m]]
    if losers is not None:
        lines = _merge_bullets(lines, LOSSES_TITLE, losers, modules)
    if at_par is not None:
        lines = _merge_bullets(lines, AT_PAR_TITLE, at_par, modules)
    while lines and not lines[-1].strip():
        lines.pop()
    path.write_text(f"{head}{BEGIN}{chr(10).join(lines)}\n{END}{tail}")
