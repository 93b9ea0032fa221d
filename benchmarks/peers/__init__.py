"""fast vs the obvious formulation: every public function of :mod:`fast`, timed against the code a user would
otherwise write (plain numpy / scipy / scikit-learn), in ONE process, at a small, a mid and a large size, with the
machine's default threading and with one thread (threadpoolctl for BLAS/OpenMP AND numba.set_num_threads).

    .venv/bin/python -m benchmarks.peers                 # full table, writes docs/performance.md (~10 min)
    .venv/bin/python -m benchmarks.peers --quick         # small and mid sizes only (~2 min), no doc
    .venv/bin/python -m benchmarks.peers --only rados    # one module (or several, comma-separated)

Ratios are peer time / fast time (> 1: fast is faster).  Each time is the LEAST over repetitions in which fast and
its peer alternate (``benchmarks._timing.interleaved``): the machine is shared with other tenants, the minimum is
the least disturbed run and alternation lets load changes hit both alike.  Calls shorter than ~1 ms are looped so
one timing lasts at least ~2 ms.  Both sides get the same already-built inputs; fast's argument validation is
inside its time (the peer validates nothing).

Layout (issue 27 item 5): the rows of fast/<module>.py are ``rows_<module>()`` in benchmarks/peers/<module>.py,
with the peer formulations only they use; the Row / Case model, the loss reasons (``SLOWER_BECAUSE``), the timing
and the table writer are in benchmarks/peers/_core.py; this package re-exports all of them and holds the registry.

Adding a module: write benchmarks/peers/<module>.py with one ``rows_<module>()`` function returning its :class:`Row`
list, import it here and add it to ``MODULES``.
Every name in the module's ``__all__`` must then have a row or an entry in ``NOT_FUNCTIONS`` (dataclasses,
exceptions, constants); :func:`coverage` (and tests/test_performance_guard.py) report the ones missing.  An estimator is
covered by rows named ``Class.method``; a second row for the same function against another peer is named
``function (vs peer)``.  Every module of fast with an ``__all__`` is either a ``MODULES`` entry, covered by one
(``COVERED_BY``: the package ``fast`` and ``fast.estimators.<family>`` by ``estimators``), or listed with its reason
in ``EXCLUDED`` (printed in the table's header); tests/test_peers_coverage.py checks it (:func:`public_modules`).
Where no plain formulation exists, a row's peer text says what fast is compared with instead (the same computation
without the privacy step, the reference implementation, or nothing: fast's time only).
"""

from __future__ import annotations

import argparse
import importlib
import time

from benchmarks.peers._core import (  # noqa: F401
    AT_PAR_TITLE,
    BEGIN,
    Case,
    DOC,
    END,
    LOSSES_TITLE,
    RECHECK_ABOVE,
    RECHECK_REPEAT,
    Row,
    SCALAR,
    SIZES,
    SLOWER_BECAUSE,
    _boosting_loop_reason,
    _data,
    _fmt,
    _g,
    _line,
    _looped,
    _loops,
    _losing,
    _merge_bullets,
    _ratio,
    _repeat_for,
    _rng,
    _same,
    _signatures,
    guard_ratio,
    markdown,
    measure,
    merge_rows,
    recheck,
    scalar,
    sized,
    time_case,
    verdicts,
    write_table,
)
from benchmarks.peers.rados import (  # noqa: F401
    gemm_rados,
    rows_rados,
)
from benchmarks.peers.losses import (  # noqa: F401
    rows_losses,
)
from benchmarks.peers.regularizers import (  # noqa: F401
    rows_regularizers,
)
from benchmarks.peers.radoboost import (  # noqa: F401
    numpy_radoboost,
    rows_radoboost,
)
from benchmarks.peers.reconstruction import (  # noqa: F401
    rows_reconstruction,
)
from benchmarks.peers.labels import (  # noqa: F401
    rows_labels,
)
from benchmarks.peers.accounting import (  # noqa: F401
    _SPENDS,
    rows_accounting,
)
from benchmarks.peers.mechanisms import (  # noqa: F401
    rows_mechanisms,
)
from benchmarks.peers.dp_rados import (  # noqa: F401
    rows_dp_rados,
)
from benchmarks.peers.causal import (  # noqa: F401
    hsic_numpy,
    iqr_numpy,
    krr_sklearn,
    rows_causal,
)
from benchmarks.peers.causal_privacy import (  # noqa: F401
    rows_causal_privacy,
)
from benchmarks.peers.measures import (  # noqa: F401
    capped_scaling,
    rows_measures,
)
from benchmarks.peers.private_boosting import (  # noqa: F401
    _labels_pm1,
    _unit_rows,
    grid_numpy,
    hsstl_numpy,
    hsstl_rho_numpy,
    pythia_numpy,
    rows_private_boosting,
    run_grid_numpy,
    smooth_boost_numpy,
    stump_scores_numpy,
)
from benchmarks.peers.impact_coding import (  # noqa: F401
    _levels,
    bayes_numpy,
    fisher_or_chi2_scipy,
    groupby_counts,
    rows_impact_coding,
)
from benchmarks.peers.budgeted import (  # noqa: F401
    budgeted_greedy_table,
    greedy_table,
    lstsq_greedy,
    r_squared_lstsq,
    r_squared_table_lstsq,
    route_numpy,
    rows_budgeted,
    submodularity_ratio_numpy,
)
from benchmarks.peers.snc import (  # noqa: F401
    class_allocation_numpy,
    rows_snc,
    snc_gradient_numpy,
    snc_log_correct_numpy,
    snc_metric_gradient_numpy,
    snc_optimize_numpy,
)
from benchmarks.peers.model_selection import (  # noqa: F401
    rows_model_selection,
)
from benchmarks.peers.estimators import (  # noqa: F401
    anm_kendall_sklearn,
    rows_estimators,
)


#: one entry per module: name -> function returning its rows.  A new module adds ONE line here.
MODULES = {
    "rados": rows_rados,
    "losses": rows_losses,
    "regularizers": rows_regularizers,
    "radoboost": rows_radoboost,
    "reconstruction": rows_reconstruction,
    "labels": rows_labels,
    "accounting": rows_accounting,
    "mechanisms": rows_mechanisms,
    "dp_rados": rows_dp_rados,
    "causal": rows_causal,
    "causal_privacy": rows_causal_privacy,
    "measures": rows_measures,
    "private_boosting": rows_private_boosting,
    "impact_coding": rows_impact_coding,
    "budgeted": rows_budgeted,
    "snc": rows_snc,
    "model_selection": rows_model_selection,
    "estimators": rows_estimators,
}


#: modules of fast with public names that are NOT timed, and why (printed in the table's header): coverage is explicit
EXCLUDED = {
    "cli": "the command-line front end (argument parsing, file I/O and printing around the functions above, which "
           "have their own rows); `python -m fast ...` has no numpy / scikit-learn counterpart to time it against",
}


#: modules of fast whose public names another MODULES entry covers: the package ``fast`` itself re-exports the
#: estimators (and the preprocessing transformers), each fast.estimators.<family> module defines some of them, and
#: fast.preprocessing's scikit-learn transformers are timed with the estimators
COVERED_BY = {"": "estimators", "preprocessing": "estimators"}


#: public names that are not functions (dataclasses, exceptions, constants, classes used through functions)
NOT_FUNCTIONS = {
    "rados": {"Theorem3Quantities"},
    "losses": {"ROWS"},
    "regularizers": {"REGULARIZER_NAMES"},
    "accounting": {"Budget", "BudgetExceeded", "LedgerNotShared", "BudgetAccountant", "ZCDPAccountant", "Composition",
                   "DefaultLedger", "LedgerEntry"},
    "mechanisms": {"LaplaceGrid", "GaussianGrid"},
    "dp_rados": {"DPFeatWindow", "DPFeatPlan", "RadoSource", "DPFeatSource", "GaussianEdgesSource", "NoiseReport",
                 "NoiseDominatesWarning", "NOISE_DOMINATES_RATIO"},
    "causal": {"ANMResult"},
    "causal_privacy": {"SPEARMAN_EXACT"},
    "model_selection": {"ForwardSelection"},
    "estimators": {"__version__", "PairResult", "ANMDiagnostics", "PrivacyLeakWarning", "ClippingWarning",
                   "ImpactNoiseWarning", "BoostingNoiseReport", "BoostingNoiseWarning", "ANMNoiseReport",
                   "ANMNoiseWarning"},
}


def public_modules() -> dict:
    """{module of fast with an ``__all__`` (dotted name under fast, "" for the package): the MODULES or EXCLUDED key
    that accounts for it, or None when none does}.  Walks the package (private ``_`` modules skipped)."""
    import pkgutil

    fast = importlib.import_module("fast")
    found = {"": fast}
    for info in pkgutil.walk_packages(fast.__path__, "fast."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        found[info.name[len("fast."):]] = importlib.import_module(info.name)
    out = {}
    for name, module in found.items():
        if not hasattr(module, "__all__"):
            continue
        key = COVERED_BY.get(name, name.split(".")[0])
        out[name] = key if key in MODULES or key in EXCLUDED else None
    return out


def _public_names(name: str) -> list:
    """The public names of MODULES entry ``name``: its module's ``__all__`` and that of every module it covers."""
    modules = [f"fast.{name}"] + [f"fast.{sub}" if sub else "fast" for sub, key in public_modules().items()
                                  if key == name and sub != name]
    names = []
    for module in modules:
        mod = importlib.import_module(module)
        names += [n for n in getattr(mod, "__all__", []) if n not in names and _home(mod, n) in (None, name)]
    return [n for n in names if n not in NOT_FUNCTIONS.get(name, set())]


def _home(module, name: str):
    """The MODULES entry whose module defines ``module.name`` (a re-export, e.g. ``fast.PrivateGridSearchCV`` from
    ``fast.model_selection``, is timed by its home entry, not by the entry that covers the re-exporting module),
    or None when it is not one of MODULES."""
    home = getattr(getattr(module, name, None), "__module__", None) or ""
    key = home[len("fast."):].split(".")[0] if home.startswith("fast.") else None
    return key if key in MODULES else None


def coverage(modules=None) -> dict:
    """{module: [public functions / estimators of fast.<module> with no row]} (empty lists when covered).  A row
    covers a name when its function is the name, the name followed by " (variant)", or "Class.method"."""
    missing = {}
    for name in modules or MODULES:
        rows = {row.function.split(" ")[0].split(".")[0] for row in MODULES[name]()}
        missing[name] = [n for n in _public_names(name) if n not in rows]
    return missing


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small and mid sizes only; does not write the doc")
    parser.add_argument("--only", default="", help="comma-separated modules")
    parser.add_argument("--no-doc", action="store_true")
    parser.add_argument("--merge", action="store_true",
                        help="with --only: replace those modules' rows in docs/performance.md's table, keep the rest")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(MODULES)
    sizes = ("small", "mid") if args.quick else SIZES
    import numba
    from threadpoolctl import threadpool_info

    info = ", ".join(sorted({f"{i['internal_api']} {i.get('num_threads')}" for i in threadpool_info()}))
    header = (f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python -m benchmarks.peers"
              f"{' --quick' if args.quick else ''}`: default threads = numba {numba.get_num_threads()}, "
              f"threadpools [{info}]; 1 thread = threadpoolctl limit 1 + numba.set_num_threads(1).  Times are the least "
              "over 3-7 alternating repetitions (shared machine); ratio = peer / fast (> 1: fast is faster).  "
              "Every module of fast with public names has rows except: "
              + "; ".join(f"`fast.{name}`: {why}" for name, why in EXCLUDED.items()) + ".")
    missing = {k: v for k, v in coverage(names).items() if v}
    if missing:
        print("NOT COVERED:", missing)
    rows = [row for name in names for row in MODULES[name]()]
    print(header)
    write_doc = not args.quick and not args.no_doc and names == list(MODULES)

    def checkpoint(partial):
        if write_doc:
            write_table(markdown(partial, header) + "\n\n(partial: the run was still going)")

    results = measure(rows, sizes, checkpoint=checkpoint)
    recheck(results)
    at_par = []
    losers = verdicts(results, at_par)
    print("\nfast slower than its peer at mid/large size:" if losers else "\nfast never slower at mid/large size")
    for line in losers:
        print("  ", line)
    if at_par:
        print("\nslower in the first pass, not on re-timing (at par):")
        for line in at_par:
            print("  ", line)
    if args.merge and not args.quick:
        merge_rows(markdown(results, header), names, header, losers=losers, at_par=at_par)
        print("merged into", DOC)
    if write_doc:
        text = markdown(results, header)
        text += f"\n\n{LOSSES_TITLE}\n\n" + ("\n".join(f"* {x}" for x in losers) or "none")
        if at_par:
            text += f"\n\n{AT_PAR_TITLE}\n\n" + "\n".join(f"* {x}" for x in at_par)
        if missing:
            text += f"\n\nNot covered: {missing}\n"
        write_table(text)
        print("wrote", DOC)
    return results
