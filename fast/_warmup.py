"""Compile ahead: fill numba's on-disk cache for every compiled kernel of :mod:`fast` (once, e.g. after install).

    privlearn warmup            # or: python -m fast._warmup

Each public entry point that reaches a numba kernel is called once on a tiny input with the argument types the
library itself passes (float64 C-contiguous matrices, int8 signatures, uint64 words: read-only for the first block
of OS entropy, writable after it), so the specialisations a user's first call needs are compiled and cached: a
first call then costs numba's start-up and a cache load instead of a compilation (docs/performance.md: "First-call
cost").  Afterwards every ``cache=True`` kernel of ``fast/`` (found by reading the sources, :func:`kernels`) must
hold a cache entry for this machine and these sources; one that does not is named and the exit code is 1, as is an
entry point that raised.  Safe to run repeatedly (warm: a few seconds).

Where the cache goes is numba's choice: ``NUMBA_CACHE_DIR`` when set, else ``__pycache__`` beside the sources when
that directory is writable (a virtual environment, an editable install), else numba's per-user cache directory
(``~/.cache/numba``).  numba reads a cache only from a directory it could also write to, so a warm-up run by
another user (root after a system-wide install) does not serve this one: each user runs it once.
"""
from __future__ import annotations

import ast
import os
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fast._contracts.budget_ledger import private_release as _private_release

FAST = Path(__file__).resolve().parent

#: cache=True kernels that no entry point of the library reaches (nothing in fast/ calls them), with the reason;
#: tests/test_warmup.py checks that each is still defined and still unreferenced in fast/
UNREACHED = {
    "fast.mechanisms._geometric_e": "only the tests call it (against the reference): _dlap writes its dispatch out",
    "fast.mechanisms._bexp_fraction": "only the tests call it (against the reference): _bexp_fraction_word, "
                                      "_bexp_fraction_slow and _dlap read its word themselves",
}

_DECORATORS = {"njit", "jit"}


@dataclass(frozen=True)
class Kernel:
    """One ``cache=True`` numba function of fast/: where it is, whether numba inlines it into its callers (it is
    then never compiled on its own: its callers' cache entries hold it), and the names its body calls."""

    module: str
    name: str
    inline: bool
    calls: frozenset

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


def _kernel_options(decorator: ast.expr):
    """The keyword options of ``@njit(...)`` / ``@numba.njit(...)`` / ``@jit(...)``, or None for anything else."""
    if not isinstance(decorator, ast.Call):
        return None
    func = decorator.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in _DECORATORS:
        return None
    return {k.arg: k.value for k in decorator.keywords if k.arg}


def kernels(root: Path = FAST) -> list[Kernel]:
    """Every function under ``root`` decorated ``@njit(cache=True, ...)`` (or ``numba.njit`` / ``jit``), read from
    the sources with :mod:`ast` (nothing is imported).

    Parameters
    ----------
    root : Path, default=the fast/ package
        A package directory; module names are dotted from its parent.

    Returns
    -------
    list of Kernel
        In file order.
    """
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                options = _kernel_options(decorator)
                if options is None:
                    continue
                cache, inline = options.get("cache"), options.get("inline")
                if isinstance(cache, ast.Constant) and cache.value is True:
                    calls = frozenset(
                        c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name))
                    always = isinstance(inline, ast.Constant) and inline.value == "always"
                    found.append(Kernel(module, node.name, always, calls))
    return found


def _entry_points() -> dict:
    """label -> call: the public entry points that reach numba kernels, with the argument types the library passes
    them (which kernels each reaches is read from the cache afterwards, not listed here: kernels come and go)."""
    import fast.accounting as accounting
    import fast.budgeted as budgeted
    import fast.causal as causal
    import fast.dp_rados as dp_rados
    import fast.impact_coding as impact_coding
    import fast.losses as losses
    import fast.measures as measures
    import fast.mechanisms as mechanisms
    import fast.private_boosting as private_boosting
    import fast.radoboost as radoboost
    import fast.rados as rados
    import fast.reconstruction as reconstruction
    import fast.regularizers as regularizers
    import fast.snc as snc

    from fast.estimators.astc import ASTCClassifier
    from fast.estimators.boosting import PrivateBoostClassifier

    X, y = np.ones((64, 3)), np.where(np.arange(64) % 2 == 0, 1.0, -1.0)
    X[:, 1] = np.arange(64) / 64.0
    signatures = np.where(np.arange(4 * 64).reshape(4, 64) % 3 == 0, -1, 1).astype(np.int8)
    odd = np.ones((4, 61), dtype=np.int8)  # m not a multiple of 8: the copied-words path
    P = rados.rados(X, y, signatures, method="gemm")
    a = np.arange(50.0)
    # SNC: the point at 10 (class 0) is > 575 nats nearer the class-1 reference than its own: the exact-rows pass
    Xs, ys = np.array([[0.0], [1.0], [10.0]]), np.array([0, 1, 0])
    Zs, zs = np.array([[0.0], [1.0]]), np.array([0, 1])
    Xb, yb = np.where(np.arange(120)[:, None] % 3 == np.arange(3), 0.5, -0.25), np.arange(120) % 2  # norm < 1
    ypm = 2 * yb - 1  # int64 labels in {-1, +1}, as np.where gives a user (the passes specialise on their dtype)
    mu = np.linspace(0.01, 1.0, 64)
    long = np.full(getattr(regularizers, "BLAS1_MAX", 1 << 15), 0.5)  # the regularizers' compiled reductions

    def astc():
        tree = ASTCClassifier(feature_costs=[1, 1, 5], budget=6, depth=2).fit(Xb + 0.01 * ypm[:, None], yb)
        return tree.predict(Xb), tree.predict_cost(Xb)

    noise = dict(sensitivity=1.0, epsilon=1.0)  # rng None: OS entropy, the production path (read-only first block)
    return {
        "rados.rados (table kernel, signatures in place)": lambda: rados.rados(X, y, signatures, method="table"),
        "rados.rados (table kernel, copied words)": lambda: rados.rados(X[:61], y[:61], odd, method="table"),
        "rados.edge_vectors": lambda: rados.edge_vectors(X, y),
        "rados.logistic_risk": lambda: rados.logistic_risk(X, y, np.ones(3)),
        "rados.logistic_risk_gradient": lambda: rados.logistic_risk_gradient(X, y, np.ones(3)),
        "rados.log_exp_rado_risk": lambda: rados.log_exp_rado_risk(P, np.ones(3)),
        "rados.exp_rado_risk": lambda: rados.exp_rado_risk(P, np.ones(3)),
        "rados.log_rado_risk": lambda: rados.log_rado_risk(P, np.ones(3), 64),
        "rados.support_sizes": lambda: rados.support_sizes(y, signatures),
        "losses.example_loss": lambda: losses.example_loss(np.ones(3), "I", 1.0),
        "losses.rado_loss": lambda: losses.rado_loss(np.ones(3), "I", 1.0),
        "losses.rado_set_loss": lambda: losses.rado_set_loss(P, np.ones(3), "I", 1.0),
        "losses.regularized_example_loss":
            lambda: losses.regularized_example_loss(rados.edge_vectors(X, y), np.ones(3), "I", 1.0, 0.1),
        "losses.regularized_rados": lambda: losses.regularized_rados(P, np.ones(3), 1.0, 1.0),
        "regularizers.lasso, ridge, linf (long vectors)":
            lambda: [f(long) for f in (regularizers.lasso, regularizers.ridge, regularizers.linf)],
        "regularizers.ridge (a Gamma seen before)":
            lambda: [regularizers.ridge(np.ones(3), np.eye(3)) for _ in range(2)],
        "mechanisms.laplace_mechanism":
            lambda: mechanisms.laplace_mechanism(np.ones(3), **noise),
        "mechanisms.gaussian_mechanism (200 values)":
            lambda: mechanisms.gaussian_mechanism(np.ones(200), delta=1e-6, **noise),
        "mechanisms.sample_discrete_laplace": lambda: mechanisms.sample_discrete_laplace(10, size=5),
        "mechanisms.sample_discrete_gaussian": lambda: mechanisms.sample_discrete_gaussian(10, size=200),
        "accounting.basic_composition":
            lambda: accounting.basic_composition(np.full(64, 0.01), np.zeros(64)),
        "accounting.renyi_gaussian":
            lambda: accounting.renyi_gaussian(np.zeros(64), np.ones(64), 1.0, 2.0),
        "measures.size": lambda: measures.size(np.full(64, 0.01)),
        "measures.statistical_distance":
            lambda: measures.statistical_distance(np.full(64, 1 / 64), np.full(64, 1 / 64)),
        "impact_coding.group_p_values (Fisher and chi-square)":
            lambda: impact_coding.group_p_values([[1.0, 0.0], [300.0, 400.0]], [20.0, 1980.0]),
        "impact_coding.group_p_values (float arrays)":
            lambda: impact_coding.group_p_values(np.array([[3.0, 1.0], [40.0, 60.0]]), np.array([100.0, 150.0])),
        "impact_coding.mean_code (scalar totals)":
            lambda: impact_coding.mean_code(np.array([2.0, 3.0]), np.array([1.0, 2.0]), 5.0, 3.0),
        "budgeted.tree_decision (routing pass)":
            lambda: budgeted.tree_decision(budgeted.fit_tree(X, X[:, 1], np.ones(3), 2, 2.0), X),
        "impact_coding.mean_code (per-level arrays)":
            lambda: impact_coding.mean_code(np.full(4, 2.0), np.arange(4.0), 8.0, 6.0, smoothing=1.0),
        "reconstruction.split_edge_vectors":
            lambda: reconstruction.split_edge_vectors(X[:3], np.array([1, 2, 4, 7]), 0, np.full(3, 0.5)),
        "reconstruction.support_matrix": lambda: reconstruction.support_matrix([1, 2, 3], 3),
        "_exact_sum.fsum_columns (the exact rados' finish)":
            lambda: __import__("fast._exact_sum", fromlist=["fsum_columns"]).fsum_columns(np.ones((40, 3))),
        "reconstruction.recover_edge_vectors":
            lambda: reconstruction.recover_edge_vectors(np.eye(3), [1, 2, 4], 3),
        "measures.kl, renyi": lambda: (measures.kl(mu / mu.sum(), mu[::-1] / mu.sum()),
                                       measures.renyi(mu / mu.sum(), mu[::-1] / mu.sum(), 2.0)),
        "measures.project_dense, project_dense_log":
            lambda: (measures.project_dense(mu, 0.5), measures.project_dense_log(np.log(mu), 0.5)),
        "private_boosting.lazy_bregman_boost": lambda: private_boosting.lazy_bregman_boost(Xb, ypm, 3, 0.5, 0.1, 1.0),
        "private_boosting.game_loss, centroid, stump_scores": lambda: (
            private_boosting.game_loss(np.linspace(-1.0, 1.0, 120), ypm),
            private_boosting.centroid(Xb, ypm, np.full(120, 1 / 120)),
            private_boosting.stump_scores(Xb, ypm, np.full(120, 1 / 120), np.linspace(-0.9, 0.9, 36).reshape(3, 12))),
        "private_boosting.boost (its vote)": lambda: private_boosting.boost(
            Xb, ypm, 2, lambda X, y, H: np.ones(len(y)), lambda X, y, w: (lambda P: np.asarray(P)[:, 0]))[1](Xb),
        "private_boosting.report_noisy_max": lambda: private_boosting.report_noisy_max(np.linspace(0, 1, 10), 0.1, 1.0),
        "PrivateBoostClassifier (halfspace, SmoothBoost)":
            lambda: PrivateBoostClassifier(epsilon=1.0, n_rounds=3, booster="smooth", weak_learner="halfspace",
                                           data_norm=1.0, classes=(0, 1)).fit(Xb, yb),
        "PrivateBoostClassifier (halfspace, LB-NxM)":
            lambda: PrivateBoostClassifier(epsilon=1.0, n_rounds=3, booster="lazy_bregman", weak_learner="halfspace",
                                           data_norm=1.0, classes=(0, 1)).fit(Xb, yb),
        "PrivateBoostClassifier (stump, LB-NxM)":
            lambda: PrivateBoostClassifier(epsilon=1.0, n_rounds=3, booster="lazy_bregman", weak_learner="stump",
                                           bounds=(-1.0, 1.0), classes=(0, 1)).fit(Xb, yb),
        "PrivateBoostClassifier (stump, SmoothBoost)":
            lambda: PrivateBoostClassifier(epsilon=1.0, n_rounds=3, booster="smooth", weak_learner="stump",
                                           bounds=(-1.0, 1.0), classes=(0, 1)).fit(Xb, yb),
        "ASTCClassifier (fit, predict, predict_cost)": astc,
        "causal.kendall_score": lambda: causal.kendall_score(a, a[::-1].copy()),
        "causal.hsic_score": lambda: causal.hsic_score(a, a[::-1].copy()),
        "causal.median_bandwidth, krr_predict": lambda: causal.krr_predict(a, 2 * a, a[:5].copy()),
        "radoboost.radoboost (strong weak learner)": lambda: radoboost.radoboost(P, 3),
        "radoboost.omega_radaboost (lasso, preference)":
            lambda: radoboost.omega_radaboost(P, 3, regularizer="lasso", omega=0.1),
        "snc.sne_probabilities, nca_correct_probabilities":
            lambda: (snc.sne_probabilities(Xs, 1.0), snc.nca_correct_probabilities(Xs, ys, np.ones(1))),
        "snc.snc_gradient (with the exact-rows pass)":
            lambda: snc.snc_gradient(Xs, ys, Zs, zs, 100.0),
        # the last row, 0.5, is equidistant from both references: a tie the certified pass decides
        "snc.snc_predict (with a tie)": lambda: snc.snc_predict(Zs, zs, np.vstack([Xs, [[0.5]]])),
        "reconstruction.hausdorff_distance": lambda: reconstruction.hausdorff_distance(X, X[::-1]),
        "dp_rados.dp_feat_signatures (window bounds, selection)": lambda: dp_rados.dp_feat_signatures(X, y, 0, 4, 1.0),
        "dp_rados.in_dp_feat_set (agreement counts)": lambda: dp_rados.in_dp_feat_set(X, y, 0, 1.0, signatures),
        "dp_rados.clip_rows": lambda: dp_rados.clip_rows(X, 1.0),
        "losses.example_adversary (fused weights)": lambda: losses.example_adversary(np.ones(3), "I", 1.0),
    }


@_private_release  # the warm-up's releases are of constants: not recorded in the default ledger
def warm(report=None) -> dict:
    """Call every entry point of :func:`_entry_points` once.

    Parameters
    ----------
    report : callable, optional
        ``report(label, seconds, error)`` after each call (``error``: the exception's traceback text, or None).

    Returns
    -------
    dict
        ``{label: seconds}``; a call that raised maps to None (the others still run).
    """
    import warnings

    times = {}
    for label, call in _entry_points().items():
        start = time.perf_counter()
        error = None
        try:
            with warnings.catch_warnings():  # tiny constant inputs: the estimators' "mostly noise" warnings are true
                warnings.simplefilter("ignore")  # and beside the point (they filled the CI log)
                call()
        except Exception:  # noqa: BLE001 - reported with its traceback; the other entry points still warm
            error = traceback.format_exc()
        times[label] = None if error else time.perf_counter() - start
        if report is not None:
            report(label, time.perf_counter() - start, error)
    return times


def _dispatcher(kernel: Kernel):
    import importlib

    return getattr(importlib.import_module(kernel.module), kernel.name, None)


def cache_entries(kernel: Kernel):
    """(entries, directory): the cache entries of ``kernel`` valid for this machine and its current source, and
    where numba keeps them; (None, reason) when that cannot be read (numba's cache internals changed)."""
    dispatcher = _dispatcher(kernel)
    try:
        cache = dispatcher._cache
        index = cache._cache_file._load_index()  # {} when absent, stale (source stamp) or of another numba
        here = cache._index_key(None, dispatcher.targetctx.codegen())[1:]  # (machine, bytecode and closure hash)
        return sum(1 for key in index if tuple(key[1:]) == tuple(here)), cache._cache_path
    except AttributeError as exc:
        return None, f"cannot read numba's cache index ({exc})"


def _inlined_covered(found: list[Kernel], compiled: set) -> set:
    """Inline kernels that a compiled kernel calls, directly or through other inline kernels (a called name is
    looked up in the caller's module first, else among the kernels of every module: an imported kernel)."""
    by_name = {}
    for k in found:
        by_name.setdefault(k.name, []).append(k)
    covered, frontier = set(), [k for k in found if k.qualname in compiled]
    while frontier:
        caller = frontier.pop()
        for name in caller.calls:
            candidates = by_name.get(name, [])
            callees = [k for k in candidates if k.module == caller.module] or candidates
            for callee in callees:
                if callee.inline and callee.qualname not in covered:
                    covered.add(callee.qualname)
                    frontier.append(callee)
    return covered


def main(argv=None) -> int:
    """Warm the cache, print the time per entry point and what is cached; 0 when every kernel is cached, 1 when
    an entry point raised or a kernel has no cache entry (both named on standard error).

    Parameters
    ----------
    argv : list of str, optional
        ``[]`` (the default, ``sys.argv[1:]`` when None): run in the foreground.  ``["--background", STAMP]``: the
        detached run :mod:`fast._autowarm` starts on the first import with a cold cache (``nice`` 10).  Either way a
        run that cached every kernel writes the warm-up stamp (:func:`fast._autowarm.write_stamp`), so that no
        import starts another.

    Returns
    -------
    int
        The exit code.
    """
    import numba

    from fast import _autowarm

    argv = list(sys.argv[1:] if argv is None else argv)
    stamp = None
    if argv:
        if len(argv) != 2 or argv[0] != "--background":
            print(f"usage: python -m fast._warmup [--background STAMP], got {argv!r}", file=sys.stderr)
            return 2
        stamp = Path(argv[1])
        if hasattr(os, "nice"):
            os.nice(10)
    if numba.config.DISABLE_JIT:
        print("NUMBA_DISABLE_JIT is set: nothing is compiled, nothing to warm")
        return 0
    start = time.perf_counter()
    failed = []

    def report(label, seconds, error):
        print(f"{label:48s} {seconds:6.2f} s{'  FAILED' if error else ''}", flush=True)
        if error:
            failed.append(label)
            print(f"privlearn warmup: {label} raised:\n{error}", file=sys.stderr, flush=True)

    warm(report)
    found = kernels()
    compiled, missing, unknown, where = set(), [], [], set()
    for kernel in found:
        if kernel.inline or kernel.qualname in UNREACHED:
            continue
        entries, place = cache_entries(kernel)
        if entries is None:
            unknown.append(f"{kernel.qualname}: {place}")
        elif entries:
            compiled.add(kernel.qualname)
            where.add(place)
        else:
            missing.append(kernel.qualname)
    inline = [k.qualname for k in found if k.inline and k.qualname not in UNREACHED]
    uncovered_inline = sorted(set(inline) - _inlined_covered(found, compiled)) if not unknown else []
    print(f"{len(compiled)} kernels cached ({len(inline)} more inlined into them) in "
          f"{', '.join(sorted(where)) or 'nowhere'}")
    if UNREACHED:
        print(f"{len(UNREACHED)} kernels skipped, no entry point of the library calls them (test-only): "
              f"{', '.join(sorted(UNREACHED))}")
    for line in unknown:
        print(f"privlearn warmup: cannot check the cache: {line}", file=sys.stderr)
    if missing or uncovered_inline:
        print("privlearn warmup: no cache entry after the warm-up (an entry point is missing from "
              f"fast/_warmup.py): {', '.join(missing + uncovered_inline)}", file=sys.stderr)
    print(f"numba cache warmed in {time.perf_counter() - start:.1f} s")
    if failed or missing or uncovered_inline:
        return 1
    try:
        _autowarm.write_stamp(stamp if stamp is not None else _autowarm.stamp_path())
    except OSError as exc:  # a read-only cache directory: the kernels are cached all the same
        print(f"privlearn warmup: could not write the warm-up stamp ({exc})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
