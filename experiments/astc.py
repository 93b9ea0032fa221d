"""ASTC (kusner2016 ch. 2): Table 2.1 on Spambase and test error vs test-time cost on Forest cover type and Spambase.

Run:  .venv/bin/python -m experiments.astc [--quick] [--full-covtype]
      .venv/bin/python -m experiments.astc --full-covtype-only   (re-run only the full Forest part; the rest of
      results.json is kept)
Writes docs/experiments/astc/README.md, results.json and PNG plots.  Without ../shared/data the script says so and
exits 0 without writing anything.

Protocol (what the thesis leaves open is fixed here):
* Table 2.1: L1 logistic regression (eq. 2.5, unit costs) on ALL of Spambase (train error, as the table), features
  standardised, scikit-learn liblinear with a large intercept_scaling (intercept ~ unpenalised); two scales of
  lambda: the printed mean loss (C = 1/(n lambda)) and the summed loss (C = 1/lambda).
* Cost curves.  Forest cover type: the staged 100k stratified sample, binary as LIBSVM's covtype.binary (class 2,
  lodgepole pine, vs the rest); per seed a random 20,000 / 20,000 train/test split (``--full-covtype`` adds runs on
  the full 581,012 rows, 100k train / 100k test per seed, unit and Yahoo! costs, same grids except the unit-cost l1
  sweep stops at C = 0.01 (7 of its 11 points): with 100k training rows the l1 curve is flat beyond it (cost 47-51 of
  54, error 0.243-0.244) and liblinear needed 60-930 s per fit at C in [0.046, 1] on the loaded machine).  Spambase: 50/50 splits.
  Seeds 0, 1, 2 (split seeds).
* Costs: unit, and the Yahoo! cost set {1, 5, 20, 50, 100, 150, 200} assigned to features at random with numpy seed
  0 (as the thesis does not, for lack of costs, but the issue asks; fixed across seeds).
* Methods and their test-time cost (average over test inputs of the cost of the DISTINCT features the model reads
  for that input, each paid once):
  - ASTC hard and ASTC soft (depth 4, ``budget`` B, ``node_budget`` max(B / 2, cheapest cost)): ``predict_cost``;
  - cost-blind tree of classifiers: the same ASTC trained with unit costs (a feature budget), charged true costs;
  - cost-weighted l1 logistic regression (eq. 2.5; columns divided by c, C in logspace(-4, 0)): every input pays
    for every non-zero weight;
  - scikit-learn DecisionTreeClassifier (max_depth 1..14): each input pays for the distinct features on its path;
  - scikit-learn HistGradientBoostingClassifier (max_depth 3, max_iter 1..40): charged for every feature used by any
    of its trees (an upper bound of what an input reads: each input visits every tree).
Features are standardised (train statistics) for the linear models; the trees take raw features.
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "uci"
OUT = ROOT / "docs" / "experiments" / "astc"
YAHOO_COSTS = np.array([1, 5, 20, 50, 100, 150, 200], dtype=float)
TABLE_LAMBDAS = [2.5, 5, 7.5, 10, 25, 50, 75, 100, 250, 500]
TABLE_ERR = [0.071, 0.073, 0.073, 0.074, 0.082, 0.091, 0.097, 0.103, 0.130, 0.192]
TABLE_COST = [54, 53, 51, 48, 39, 31, 27, 25, 13, 4]


def load_spambase():
    D = np.loadtxt(DATA / "spambase.data", delimiter=",")
    return D[:, :-1], np.where(D[:, -1] == 1, 1, -1)


def load_covtype(full=False):
    name = "covtype.data.gz" if full else "covtype_100k_stratified_seed0.data.gz"
    import pandas as pd

    D = pd.read_csv(DATA / name, header=None, compression="gzip").to_numpy(dtype=np.float64)
    return D[:, :-1], np.where(D[:, -1] == 2, 1, -1)


def table21(X, y):
    from sklearn.linear_model import LogisticRegression

    Xs = (X - X.mean(0)) / X.std(0)
    rows = {"sum": [], "mean": []}
    for scale in rows:
        for lam in TABLE_LAMBDAS:
            C = 1 / lam if scale == "sum" else 1 / (len(y) * lam)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = LogisticRegression(penalty="l1", C=C, solver="liblinear", tol=1e-8, max_iter=10000,
                                       intercept_scaling=100).fit(Xs, y)
            rows[scale].append({"lambda": lam, "train_error": float(np.mean(m.predict(Xs) != y)),
                                "features": int(np.count_nonzero(m.coef_))})
    return rows


def _tree_costs(tree, X, costs):
    """Per-input cost of a fitted sklearn DecisionTree: distinct features on its decision path."""
    from scipy import sparse

    path = tree.decision_path(X).tocsr()
    feat = tree.tree_.feature
    internal = np.flatnonzero(feat >= 0)
    M = sparse.csr_matrix((np.ones(internal.size), (internal, feat[internal])), shape=(len(feat), X.shape[1]))
    used = (path @ M).toarray() > 0
    return used @ costs


def _hgb_features(model):
    used = set()
    for trees in model._predictors:
        for pred in trees:
            nodes = pred.nodes
            used |= set(nodes["feature_idx"][~nodes["is_leaf"].astype(bool)].tolist())
    return sorted(used)


COST_BLIND_K = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
TREE_DEPTHS = (1, 2, 3, 4, 6, 8, 10, 14)


def budgets_for(cname, quick):
    budgets = [1, 2, 3, 5, 8, 13, 20, 30] if cname == "unit" else [5, 20, 50, 100, 200, 400, 800, 1500]
    return budgets[::2] if quick else budgets


def l1_grid(quick, l1_max_C=1.0):
    return [C for C in np.logspace(-4, 0, 7 if quick else 11) if C <= l1_max_C * (1 + 1e-9)]


def hgb_iters(quick):
    return (1, 3, 10, 30) if quick else (1, 2, 5, 10, 20, 40)


def sweep_labels(cname, quick, l1_max_C=1.0):
    """The swept parameter of each point of each method, in the order ``curves`` adds them (all costs >= 1)."""
    out = {"ASTC": [f"B={b}" for b in budgets_for(cname, quick)],
           "ASTC soft": [f"B={b}" for b in budgets_for(cname, quick)],
           "cost-weighted l1": [f"C={C:.2g}" for C in l1_grid(quick, l1_max_C)],
           "DecisionTree": [f"max_depth={d}" for d in TREE_DEPTHS],
           "HistGradientBoosting": [f"max_iter={i}" for i in hgb_iters(quick)]}
    if cname != "unit":
        out["cost-blind tree"] = [f"{k} features" for k in COST_BLIND_K]
    return out


def curves(Xtr, ytr, Xte, yte, costs, budgets, quick, l1_max_C=1.0):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    from fast import ASTCClassifier

    mu, sd = Xtr.mean(0), Xtr.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    Str, Ste = (Xtr - mu) / sd, (Xte - mu) / sd
    res = {}

    def add(method, cost, err, t):
        res.setdefault(method, []).append({"cost": float(cost), "error": float(err), "fit_s": float(t)})

    unit = np.ones(Xtr.shape[1])
    for B in budgets:
        if B < costs.min():
            continue
        for soft in (False, True):
            t = time.perf_counter()
            clf = ASTCClassifier(feature_costs=costs, budget=B, node_budget=max(B / 2, costs.min()), depth=4,
                                 soft=soft).fit(Xtr, ytr)
            add("ASTC soft" if soft else "ASTC", clf.predict_cost(Xte).mean(), np.mean(clf.predict(Xte) != yte),
                time.perf_counter() - t)
    if not np.all(costs == 1):
        for k in COST_BLIND_K:
            t = time.perf_counter()
            clf = ASTCClassifier(budget=k, node_budget=max(k / 2, 1), depth=4).fit(Xtr, ytr)
            used = clf.predict_cost(Xte)  # unit-cost path counts; recharge with true costs per leaf
            leaves = clf.apply(Xte)
            tree = clf.tree_
            ni = (1 << (tree.depth - 1)) - 1
            leaf_true = []
            for leaf in range(len(tree.leaf_cost)):
                k_node, feats = leaf + ni, set()
                while True:
                    feats |= set(tree.features[k_node])
                    if k_node == 0:
                        break
                    k_node = (k_node - 1) // 2
                leaf_true.append(costs[sorted(feats)].sum())
            del used
            add("cost-blind tree", np.mean(np.array(leaf_true)[leaves]), np.mean(clf.predict(Xte) != yte),
                time.perf_counter() - t)
    for C in l1_grid(quick, l1_max_C):
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = LogisticRegression(penalty="l1", C=C, solver="liblinear", tol=1e-6, max_iter=2000,
                                   intercept_scaling=100).fit(Str / costs, ytr)
        nz = np.flatnonzero(m.coef_[0])
        add("cost-weighted l1", costs[nz].sum(), np.mean(m.predict(Ste / costs) != yte), time.perf_counter() - t)
    for depth in TREE_DEPTHS:
        t = time.perf_counter()
        tree = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(Xtr, ytr)
        add("DecisionTree", _tree_costs(tree, Xte, costs).mean(), np.mean(tree.predict(Xte) != yte),
            time.perf_counter() - t)
    for iters in hgb_iters(quick):
        t = time.perf_counter()
        hgb = HistGradientBoostingClassifier(max_depth=3, max_iter=iters, early_stopping=False,
                                             random_state=0).fit(Xtr, ytr)
        add("HistGradientBoosting", costs[_hgb_features(hgb)].sum(), np.mean(hgb.predict(Xte) != yte),
            time.perf_counter() - t)
    return res


def run_dataset(name, X, y, n_train, n_test, cost_sets, seeds, quick, l1_max_C=None):
    out = {}
    for cname, costs in cost_sets.items():
        budgets = budgets_for(cname, quick)
        per_seed = []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            perm = rng.permutation(len(y))
            tr, te = perm[:n_train], perm[n_train:n_train + n_test]
            t = time.perf_counter()
            per_seed.append(curves(X[tr], y[tr], X[te], y[te], costs, budgets, quick,
                                   l1_max_C=(l1_max_C or {}).get(cname, 1.0)))
            print(f"  {name} / {cname} costs / seed {seed}: {time.perf_counter() - t:.1f} s", flush=True)
        out[cname] = per_seed
    return out


FULL_L1_MAX_C = {"unit": 0.01, "yahoo": 1.0}
RERUN_NOTE = ("The first runtime is that of the last run of the whole script (Table 2.1, the 100k sample, Spambase and "
              "the full-Forest part it had then); the full-Forest results below were re-run alone afterwards with "
              "`--full-covtype-only`, which replaces only that part of results.json.")


def run_full_covtype(results, seeds, quick):
    """Forest cover type, all 581,012 rows: per seed 100k train / 100k test, unit and Yahoo! costs."""
    t0 = time.perf_counter()
    Xf, yf = load_covtype(full=True)
    yahoo = np.array(results["costs"]["covtype_yahoo"])
    run = run_dataset("covtype_full", Xf, yf, 100000, 100000, {"unit": np.ones(Xf.shape[1]), "yahoo": yahoo},
                      seeds, quick, l1_max_C=FULL_L1_MAX_C)
    results.setdefault("runs", {})["covtype_full"] = run
    results["covtype_full_meta"] = {"seeds": seeds, "n_train": 100000, "n_test": 100000, "quick_grid": quick,
                                    "l1_max_C": FULL_L1_MAX_C, "runtime_s": time.perf_counter() - t0}
    return run


def summarise(per_seed):
    """Mean and std over seeds of (cost, error) per method and sweep position."""
    methods = per_seed[0].keys()
    out = {}
    for m in methods:
        pts = np.array([[[p["cost"], p["error"]] for p in s[m]] for s in per_seed])  # seeds x points x 2
        out[m] = {"cost_mean": pts[:, :, 0].mean(0).tolist(), "error_mean": pts[:, :, 1].mean(0).tolist(),
                  "error_std": pts[:, :, 1].std(0).tolist(), "cost_std": pts[:, :, 0].std(0).tolist()}
    return out


def plot(summary, title, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for m, s in summary.items():
        order = np.argsort(s["cost_mean"])
        c = np.array(s["cost_mean"])[order]
        e = np.array(s["error_mean"])[order]
        sd = np.array(s["error_std"])[order]
        ax.errorbar(c, e, yerr=sd, marker="o", ms=3, capsize=2, label=m)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("average test-time feature cost per input")
    ax.set_ylabel("test error")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def best_at(summary, method, max_cost):
    s = summary[method]
    ok = [e for c, e in zip(s["cost_mean"], s["error_mean"]) if c <= max_cost + 1e-9]
    return min(ok) if ok else float("nan")


def best_at_std(summary, method, max_cost):
    """'mean ± std' over seeds of the error at the sweep point chosen by ``best_at``."""
    s = summary[method]
    ok = [(e, sd) for c, e, sd in zip(s["cost_mean"], s["error_mean"], s["error_std"]) if c <= max_cost + 1e-9]
    if not ok:
        return "nan"
    e, sd = min(ok)
    return f"{e:.4f} ± {sd:.4f}"


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full-covtype", action="store_true")
    parser.add_argument("--full-covtype-only", action="store_true",
                        help="re-run only the full Forest part (3 seeds, unit and Yahoo! costs) into results.json")
    parser.add_argument("--readme-only", action="store_true", help="rewrite README.md from the stored results.json")
    args = parser.parse_args(argv)
    if args.readme_only:
        write_readme(json.loads((OUT / "results.json").read_text()))
        return 0
    if not (DATA / "spambase.data").exists():
        print("../shared/data/uci is absent: nothing to do")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    from threadpoolctl import threadpool_limits

    # one thread for BLAS / OpenMP: on the shared 2-core machine (load ~10) threaded small kernels were 10x slower
    threadpool_limits(1)
    if args.full_covtype_only:
        results = json.loads((OUT / "results.json").read_text())
        run_full_covtype(results, [0] if args.quick else [0, 1, 2], args.quick)
        results["runtime_note"] = RERUN_NOTE
        finish(results)
        print(f"full Forest part done in {results['covtype_full_meta']['runtime_s']:.0f} s")
        return 0
    t0 = time.perf_counter()
    seeds = [0] if args.quick else [0, 1, 2]
    results = {"seeds": seeds}
    Xs, ys = load_spambase()
    results["table21"] = table21(Xs, ys)
    print("table 2.1 done", flush=True)
    cost_rng = np.random.default_rng(0)
    Xc, yc = load_covtype()
    yahoo_c = cost_rng.choice(YAHOO_COSTS, size=Xc.shape[1])
    yahoo_s = np.random.default_rng(0).choice(YAHOO_COSTS, size=Xs.shape[1])
    results["costs"] = {"covtype_yahoo": yahoo_c.tolist(), "spambase_yahoo": yahoo_s.tolist()}
    n_cov = 5000 if args.quick else 20000
    runs = {
        "covtype100k": run_dataset("covtype100k", Xc, yc, n_cov, n_cov,
                                   {"unit": np.ones(Xc.shape[1]), "yahoo": yahoo_c}, seeds, args.quick),
        "spambase": run_dataset("spambase", Xs, ys, 2300, 2301,
                                {"unit": np.ones(Xs.shape[1]), "yahoo": yahoo_s}, seeds, args.quick),
    }
    results["runs"] = runs
    results.pop("runtime_note", None)
    if args.full_covtype:
        run_full_covtype(results, seeds, args.quick)
    results["runtime_s"] = time.perf_counter() - t0
    finish(results)
    print(f"done in {results['runtime_s']:.0f} s")
    return 0


def finish(results):
    """Summaries over seeds, plots, results.json and README.md."""
    runs = results["runs"]
    summaries = {f"{d}/{c}": summarise(per_seed) for d, r in runs.items() for c, per_seed in r.items()}
    results["summary"] = summaries
    for key, s in summaries.items():
        n = len(runs[key.split("/")[0]][key.split("/")[1]])
        plot(s, f"{key} costs: test error vs test-time cost (mean ± std over {n} seeds)",
             OUT / f"{key.replace('/', '_')}.png")
    (OUT / "results.json").write_text(json.dumps(results, indent=1))
    write_readme(results)


def write_readme(results):
    t = results["table21"]
    lines = ["# ASTC experiments (kusner2016 ch. 2)", "",
             f"Written by `experiments/astc.py` in {results['runtime_s']:.0f} s (2-core shared machine); seeds "
             f"{results['seeds']}. Protocol: see the script's docstring.", ""]
    meta = results.get("covtype_full_meta")
    if meta:
        caps_c = meta["l1_max_C"]
        lines += [f"Full Forest cover type (581,012 rows; per seed {meta['n_train']:,} train / {meta['n_test']:,} "
                  f"test rows drawn at random): seeds {meta['seeds']}, unit and Yahoo! costs, "
                  f"{'reduced (--quick)' if meta['quick_grid'] else 'the same'} sweep grids as the 100k sample except "
                  f"the cost-weighted l1 sweep capped at C <= {caps_c['unit']} for unit costs (C <= "
                  f"{caps_c['yahoo']} for Yahoo! costs); this part took {meta['runtime_s']:.0f} s.", ""]
    if results.get("runtime_note"):
        lines += [results["runtime_note"], ""]
    lines += [
             "## Table 2.1 (Spambase, L1 logistic regression, unit costs, train error on all 4,601 rows)", "",
             "| lambda | " + " | ".join(str(x) for x in TABLE_LAMBDAS) + " |",
             "|---" * (len(TABLE_LAMBDAS) + 1) + "|",
             "| printed error | " + " | ".join(f"{x:.3f}" for x in TABLE_ERR) + " |",
             "| summed loss: error | " + " | ".join(f"{r['train_error']:.3f}" for r in t["sum"]) + " |",
             "| mean loss (as printed): error | " + " | ".join(f"{r['train_error']:.3f}" for r in t["mean"]) + " |",
             "| printed #features | " + " | ".join(str(x) for x in TABLE_COST) + " |",
             "| summed loss: #features | " + " | ".join(str(r["features"]) for r in t["sum"]) + " |",
             "| mean loss (as printed): #features | " + " | ".join(str(r["features"]) for r in t["mean"]) + " |",
             "",
             "The printed objective (2.5) averages the loss (1/n): at these lambdas it zeroes every weight. The summed "
             "loss on standardised features reproduces the table's scale and shape (error up, features down).", ""]
    lines += ["## What the curves show", "",
              "- ASTC (hard) has a lower test error than the single cost-weighted l1 classifier at every cost cap on "
              "every data set and cost set here: the thesis's qualitative claim that tree methods beat the single "
              "l1 classifier (Fig. 2.4) reproduces. ASTC-soft is below l1 at most caps but at or above ASTC-hard at every cap "
              "(its sigmoid weights on +-1-scale scores blur the children's training sets).",
              "- scikit-learn's DecisionTree, charged for the distinct features on each input's path, beats ASTC on "
              "Forest cover type at every cost above ~2 (0.193 vs 0.233 on the 100k sample with ~8 unit-cost "
              "features): 54 cheap, mostly one-hot features favour axis-aligned splits over depth-4 trees of linear "
              "models. On the full set (100k training rows) the gap widens: the deeper trees gain from the data "
              "(0.153 at ~9 unit-cost features, depth 14) while ASTC barely moves (0.229 at 30). On Spambase ASTC is "
              "competitive (lower than the tree at cost 30 with unit costs, and at 100-1000 with the Yahoo! costs).",
              "- With the Yahoo! cost set a cost-blind tree of classifiers (the same tree with unit costs, charged the "
              "true costs) beats ASTC between ~200 and ~500 cost on the Forest 100k sample (~250 to ~700 on the full "
              "set: 0.243 at cost 353 vs ASTC's 0.287 at 350): the cost-benefit greedy at each node prefers cheap "
              "weak features (a weakness of budgeting node by node); ASTC wins at low cost (<= 150) and matches or "
              "wins at high cost (full set: 0.233 at 774 vs 0.239 at 506 and 0.237 at 858).",
              "- Seeds: on Forest cover type (100k sample and full set, 3 random splits each) the std over seeds of a "
              "point's test error is at most 0.006 on the full set (median 0.001) and 0.017 on the sample (median "
              "0.002), so the gaps quoted above exceed the split-to-split spread (the smallest, ASTC 0.233 vs the "
              "cost-blind tree's 0.237 at cost <= 1000 on the full set, is more than twice the larger std, 0.0016); "
              "Spambase's 2,300-row splits vary more (median std 0.005; 0.09 for HistGradientBoosting at 2 "
              "iterations, otherwise <= 0.017).",
              "- CSTC (the thesis's main comparison) has no public code, so 'ASTC matches or beats CSTC' is not re-run.",
              ""]
    lines += ["## Test error vs average test-time cost", "",
              "Mean over seeds of the test error at each sweep point (std in results.json and the error bars of the "
              "plots). 'best error at cost <= c' = the lowest mean error among the sweep points whose mean cost is "
              "at most c.", ""]
    for key, s in results["summary"].items():
        lines.append(f"### {key} costs")
        lines.append("")
        lines.append(f"![{key}]({key.replace('/', '_')}.png)")
        lines.append("")
        caps = [1, 3, 10, 30] if key.endswith("unit") else [20, 100, 300, 1000]
        lines.append("| method | " + " | ".join(f"best error at cost <= {c}" for c in caps) + " |")
        lines.append("|---" * (len(caps) + 1) + "|")
        for m in s:
            lines.append(f"| {m} | " + " | ".join(best_at_std(s, m, c) for c in caps) + " |")
        lines.append("")
        for tree in ("ASTC", "ASTC soft"):
            wins = [c for c in caps if best_at(s, tree, c) < best_at(s, "cost-weighted l1", c)]
            ties = [c for c in caps if best_at(s, tree, c) == best_at(s, "cost-weighted l1", c)]
            lines.append(f"- {tree} vs the single cost-weighted l1 classifier: lower error at cost caps {wins}, "
                         f"equal at {ties}, of {caps}.")
        dt = [c for c in caps if best_at(s, "ASTC", c) < best_at(s, "DecisionTree", c)]
        lines.append(f"- ASTC vs scikit-learn's DecisionTree charged for its path features: ASTC lower at caps {dt}.")
        if "cost-blind tree" in s:
            cb = [c for c in caps if best_at(s, "ASTC", c) < best_at(s, "cost-blind tree", c)]
            lines.append(f"- ASTC vs the cost-blind tree of classifiers: ASTC lower at caps {cb}.")
        lines.append("")
        if key.startswith("covtype_full"):
            cname = key.split("/")[1]
            per_seed = results["runs"]["covtype_full"][cname]
            labels = sweep_labels(cname, meta["quick_grid"], meta["l1_max_C"][cname])
            lines += [f"Every sweep point: mean ± std (ddof 0) over the {len(per_seed)} seeds of the average "
                      "test-time cost and of the test error, and the error's range [min, max] over seeds:", "",
                      "| method | setting | cost | test error | error range |", "|---|---|---|---|---|"]
            for m, v in s.items():
                for i, (cm, cs, em, es) in enumerate(zip(v["cost_mean"], v["cost_std"], v["error_mean"],
                                                         v["error_std"])):
                    errs = [r[m][i]["error"] for r in per_seed]
                    lines.append(f"| {m} | {labels[m][i]} | {cm:.1f} ± {cs:.1f} | {em:.4f} ± {es:.4f} | "
                                 f"[{min(errs):.4f}, {max(errs):.4f}] |")
            lines.append("")
    (OUT / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
