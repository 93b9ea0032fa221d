"""winvector2015 reproduction: impact coding constructions on the post's simulated design, and on Adult.

Run:  .venv/bin/python -m experiments.impact_coding [--seeds 5] [--coarse-grid] [--sweep-seeds 5] [--jobs 2]
      [--no-adult] [--quick]
Writes docs/experiments/impact_coding/README.md, results.json, adult.json (when Adult runs) and PNG plots.
A smoke test: --n-train 200 --n-cal 200 --n-test 1000 --out /tmp/somewhere (never over the recorded results).

Design ([EXT] CodingExample.Rmd / mkExample.R of the post; R seeds cannot be reproduced): 10 signal variables
x1..x10 with 10 equiprobable levels whose effects are N(0, 1) except floor(10/2) = 5 random levels with effect 0;
30 noise variables n1..n30 with 500 equiprobable levels and no effect; y = 1[N(0, 1) + sum of effects > 0];
2000 training rows, 2000 calibration rows (to pick the Laplace scale b), 10,000 test rows; logistic regression
(unpenalised, as R's glm) on all 40 coded columns; AUC on training and test rows.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "experiments" / "impact_coding"
N_SIGNAL, SIGNAL_LEVELS, N_NOISE, NOISE_LEVELS = 10, 10, 30, 500


def _levels(name, k):
    return np.array([f"{name}_lev{i}" for i in range(k)], dtype=object)


def public_categories():
    """The generator's level lists (public: they do not depend on the data)."""
    return ([list(_levels(f"x{v + 1}", SIGNAL_LEVELS)) for v in range(N_SIGNAL)]
            + [list(_levels(f"n{v + 1}", NOISE_LEVELS)) for v in range(N_NOISE)])


def simulate(rng, n_train=2000, n_cal=2000, n_test=10_000):
    """((X_train, y_train), (X_cal, y_cal), (X_test, y_test)) of the post's design, DataFrames of str levels."""
    effects = []
    for _ in range(N_SIGNAL):
        e = rng.normal(size=SIGNAL_LEVELS)
        e[rng.choice(SIGNAL_LEVELS, SIGNAL_LEVELS // 2, replace=False)] = 0.0
        effects.append(e)

    def draw(n):
        cols, y_num = {}, rng.normal(size=n)
        for v in range(N_SIGNAL):
            lv = rng.integers(0, SIGNAL_LEVELS, n)
            cols[f"x{v + 1}"] = _levels(f"x{v + 1}", SIGNAL_LEVELS)[lv]
            y_num = y_num + effects[v][lv]
        for v in range(N_NOISE):
            cols[f"n{v + 1}"] = _levels(f"n{v + 1}", NOISE_LEVELS)[rng.integers(0, NOISE_LEVELS, n)]
        return pd.DataFrame(cols), (y_num > 0).astype(int)

    return draw(n_train), draw(n_cal), draw(n_test)


# ---------------------------------------------------------------------------------------------------------
# constructions
# ---------------------------------------------------------------------------------------------------------
B_GRID = tuple(range(1, 21))  # the post's grid {0, ..., 20} without b = 0 (no noise, no privacy: naive)
N_COLUMNS = N_SIGNAL + N_NOISE


def _auc(y, s):
    from sklearn.metrics import roc_auc_score
    return float(roc_auc_score(y, s))


def _model():
    from sklearn.linear_model import LogisticRegression
    return LogisticRegression(C=1e6, max_iter=5000)  # ~unpenalised, as R's glm


def _fit_eval(enc, Xtr, ytr, Xte, yte, Xcal=None, ycal=None, scores=None):
    """Fit the encoder and the model on the training rows (the model rows only in split mode).  ``scores``: a dict
    that receives the (y, decision score) pairs of the training (model) rows and of the test rows, for ROC plots."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Ztr = np.asarray(enc.fit_transform(Xtr, ytr), dtype=float)
        rows = getattr(enc, "model_rows_", None)
        rows = np.ones(len(ytr), dtype=bool) if rows is None else rows
        model = _model().fit(Ztr[rows], ytr[rows])
        s_tr = model.decision_function(Ztr[rows])
        s_te = model.decision_function(np.asarray(enc.transform(Xte), dtype=float))
        out = {"train": _auc(ytr[rows], s_tr), "test": _auc(yte, s_te)}
        if scores is not None:
            scores.update(train=(np.asarray(ytr[rows]), s_tr), test=(np.asarray(yte), s_te))
        if Xcal is not None:
            pred = model.predict(np.asarray(enc.transform(Xcal), dtype=float))
            out["cal_error"] = float(np.mean(pred != ycal))
    return out, model, enc


def laplace_scale_epsilon(b, neighbouring="replace-one"):
    """Total epsilon of the post's Laplace(b) smearing of 40 columns: per column sensitivity / b."""
    return N_COLUMNS * (2.0 if neighbouring == "replace-one" else 1.0) / b


def grid_search_epsilon(b_grid, neighbouring="replace-one"):
    """Privacy cost of choosing b from ``b_grid``: every b in the grid is a separate Laplace release of the SAME
    training rows' tables, and the choice looks at all of them (their calibration error), so by basic composition
    the search costs the SUM of the releases' epsilons, not the chosen one's."""
    return sum(laplace_scale_epsilon(b, neighbouring) for b in b_grid)


#: the constructions drawn in roc.png (names of run_constructions' rows)
ROC_NAMES = ("naive bayes", "laplace count", "split (vtreat)", "cross k=3 (vtreat)", "jackknife bayes")


def run_constructions(seed, *, n_train=2000, n_cal=2000, n_test=10_000, b_grid=B_GRID, peers=True, roc=None):
    """Train / test AUC of every construction on one draw of the post's design.  ``roc``: a dict that receives, for
    each of ROC_NAMES, the (y, score) pairs of its training (model) rows and test rows (the Laplace row: its chosen b)."""
    from fast import ImpactEncoder

    rng = np.random.default_rng(seed)
    (Xtr, ytr), (Xcal, ycal), (Xte, yte) = simulate(rng, n_train, n_cal, n_test)
    cats = public_categories()
    res = {}

    def fe(name, enc, *cal):
        sc = {} if roc is not None and name in ROC_NAMES else None
        r = _fit_eval(enc, Xtr, ytr, Xte, yte, *cal, scores=sc)[0]
        return r, sc

    def put(name, enc):
        res[name], sc = fe(name, enc)
        if sc is not None:
            roc[name] = sc

    put("naive bayes", ImpactEncoder(mode="naive", code="log_lift"))
    put("naive count", ImpactEncoder(mode="naive", code="count"))
    for code in ("count", "log_lift"):
        name = f"laplace {'count' if code == 'count' else 'bayes'}"
        best = None
        for b in b_grid:
            enc = ImpactEncoder(mode="naive", code=code, epsilon=laplace_scale_epsilon(b), categories=cats,
                                classes=(0, 1))
            r, sc = fe(name, enc, Xcal, ycal)
            if best is None or r["cal_error"] < best[1]["cal_error"]:
                best = (b, r, sc)
        b, r, sc = best
        r.update(b=b, epsilon_total=laplace_scale_epsilon(b), epsilon_total_add_remove=laplace_scale_epsilon(b, "add/remove-one"),
                 epsilon_grid_search=grid_search_epsilon(b_grid),
                 epsilon_grid_search_add_remove=grid_search_epsilon(b_grid, "add/remove-one"))
        res[name] = r
        if sc is not None:
            roc[name] = dict(sc, b=b)
    vt = dict(code="bayes", rare_sig=0.3, smoothing=5.0)  # the post's vtreat settings (rareSig 0.3, smFactor 5)
    put("split (vtreat)", ImpactEncoder(mode="split", random_state=seed, **vt))
    put("cross k=3 (vtreat)", ImpactEncoder(mode="cross", cv=3, random_state=seed, **vt))
    put("jackknife bayes", ImpactEncoder(mode="jackknife", code="log_lift"))
    if peers:
        from sklearn.preprocessing import TargetEncoder
        put("sklearn TargetEncoder cv=5", TargetEncoder(cv=5, random_state=seed))
        try:
            import category_encoders as ce
        except ImportError:  # optional (experiments extra)
            ce = None
        if ce is not None:
            for name, enc in (("ce TargetEncoder", ce.TargetEncoder()), ("ce LeaveOneOutEncoder", ce.LeaveOneOutEncoder()),
                              ("ce CatBoostEncoder", ce.CatBoostEncoder())):
                put(name, _CEWrap(enc))
    return res


class _CEWrap:
    """category_encoders' encoders: fit_transform(X, y) gives their own training codes (LOO / ordered)."""

    def __init__(self, enc):
        self.enc = enc

    def fit_transform(self, X, y):
        return self.enc.fit_transform(X, pd.Series(y))

    def transform(self, X):
        return self.enc.transform(X)


EPSILONS = (0.5, 2.0, 8.0, 32.0, 128.0, 512.0)


def epsilon_sweep(seed, epsilons=EPSILONS, *, n_train=2000, n_test=10_000):
    """Test AUC vs TOTAL epsilon (replace-one) for the private constructions, on one draw (no calibration rows)."""
    from fast import ImpactEncoder

    rng = np.random.default_rng(seed)
    (Xtr, ytr), _, (Xte, yte) = simulate(rng, n_train, 10, n_test)
    cats = public_categories()
    out = {}
    for name, kw in (("naive count", dict(mode="naive", code="count")), ("naive bayes", dict(mode="naive", code="log_lift")),
                     ("cross k=3 bayes", dict(mode="cross", cv=3, code="bayes", smoothing=5.0, random_state=seed))):
        out[name] = [_fit_eval(ImpactEncoder(epsilon=e, categories=cats, classes=(0, 1), **kw), Xtr, ytr, Xte,
                               yte)[0]["test"]
                     for e in epsilons]
    return list(epsilons), out


ADULT_CATS = ["workclass", "education", "marital-status", "occupation", "relationship", "race", "sex", "native-country"]
ADULT_COLS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
              "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country", "y"]


def adult(info=None):
    """Adult's categorical columns with LogisticRegression downstream: test AUC per construction (None if absent).
    ``info``: a dict that receives the row counts and the largest number of levels of a column."""
    from fast import ImpactEncoder
    from sklearn.preprocessing import TargetEncoder

    base = ROOT.parent / "shared" / "data" / "uci"
    if not (base / "adult-train.csv").exists():
        return None
    frames = []
    for name in ("adult-train.csv", "adult-test.csv"):
        df = pd.read_csv(base / name, header=None, names=ADULT_COLS, skipinitialspace=True, na_values="?",
                         comment="|")
        frames.append(df.dropna(subset=["y"]))
    tr, te = frames
    ytr = tr.y.str.startswith(">50K").astype(int).to_numpy()
    yte = te.y.str.startswith(">50K").astype(int).to_numpy()
    Xtr, Xte = tr[ADULT_CATS].astype(object), te[ADULT_CATS].astype(object)
    if info is not None:
        info.update(n_train=len(tr), n_test=len(te), max_levels=int(max(Xtr[c].nunique(dropna=False) for c in ADULT_CATS)))
    res = {}
    for name, enc in (("naive bayes", ImpactEncoder(mode="naive")), ("cross k=5 bayes", ImpactEncoder(cv=5, random_state=0)),
                      ("jackknife bayes", ImpactEncoder(mode="jackknife")),
                      ("cross k=5 rare_sig 0.05", ImpactEncoder(cv=5, rare_sig=0.05, random_state=0)),
                      ("sklearn TargetEncoder cv=5", TargetEncoder(cv=5, random_state=0))):
        res[name] = _fit_eval(enc, Xtr, ytr, Xte.where(pd.notna(Xte), None), yte)[0]
    cats = [sorted(set(Xtr[c].dropna()) | set(Xte[c].dropna())) + [None] for c in ADULT_CATS]  # public lists
    for eps in (1.0, 8.0):
        res[f"cross k=5 bayes, epsilon {eps:g}"] = _fit_eval(
            ImpactEncoder(cv=5, epsilon=eps, categories=cats, classes=(0, 1), random_state=0), Xtr, ytr, Xte, yte)[0]
    return res


# ---------------------------------------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------------------------------------
BLOG = {"naive bayes": (">= 0.99 ('nearly 1.0')", "0.65"), "naive count": ("", "0.56 (as we read it)"),
        "laplace count": ("0.97", "0.92"), "split (vtreat)": ("", "~0.92 ('similar')"),
        "cross k=3 (vtreat)": ("", "0.95"), "jackknife bayes": ("", "~0.95 ('essentially identical')")}


#: what the Laplace rows' epsilon does and does not cover (the grid search composes; the model is not covered)
GRID_COST_NOTE = (
    "Privacy cost of the grid search: each b in {grid} is a separate release of the same training rows' count "
    "tables, and b is chosen by looking at all of them (the calibration error of each), so the search costs the SUM "
    "of their epsilons (basic composition): {rr:.1f} under replace-one ({ar:.1f} under add/remove-one) for one code, "
    "{both:.1f} for the two Laplace rows together; the 'epsilon of the chosen release alone' is what picking b "
    "without looking at the data would cost, not what this procedure costs. Even that covers only the released "
    "coders (the codes of other data): the downstream model is trained on the training rows' own codes, which are "
    "as sensitive as X (see ImpactEncoder's docstring), so the fitted pipeline is not a DP release.")


SWEEP_NOTE = ("Each column is ONE fit at the epsilon shown (no search); the epsilon covers the released coders "
              "(the test rows' codes), not the model, which is trained on the training rows' own codes.")


def _mean_sd(v):
    """'mean (sd)' of a list, sd with ddof=1 ('-' for a single value)."""
    v = np.asarray(v, dtype=float)
    sd = f"{v.std(ddof=1):.3f}" if len(v) > 1 else "-"
    return f"{v.mean():.3f} ({sd})"


def _task(job):
    """One unit of work (a process-pool task): ('constructions', seed, kw), ('sweep', seed, kw) or ('adult',)."""
    t0 = time.time()
    if job[0] == "constructions":
        roc = {} if job[1] == job[2].pop("roc_seed") else None
        out = (run_constructions(job[1], roc=roc, **job[2]), roc)
    elif job[0] == "sweep":
        out = epsilon_sweep(job[1], **job[2])[1]
    else:
        info = {}
        out = (adult(info), info)
    print(f"[{time.strftime('%H:%M:%S')}] {job[0]} {job[1] if len(job) > 1 else ''}: {time.time() - t0:.0f} s",
          flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds of the simulated design (default 5)")
    ap.add_argument("--coarse-grid", action="store_true",
                    help="b grid {1, 2, 4, 8, 16} for the Laplace rows instead of the post's {1, ..., 20}")
    ap.add_argument("--sweep-seeds", type=int, default=None,
                    help="seeds of the epsilon sweep (default: as many as --seeds)")
    ap.add_argument("--no-adult", action="store_true", help="skip Adult (the README then quotes adult.json)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (seeds run in parallel)")
    ap.add_argument("--quick", action="store_true",
                    help="2 seeds, the coarse grid, the sweep on 1 seed, no Adult")
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--n-cal", type=int, default=2000)
    ap.add_argument("--n-test", type=int, default=10_000)
    ap.add_argument("--out", type=Path, default=OUT, help="output folder (default docs/experiments/impact_coding)")
    args = ap.parse_args(argv)
    if args.quick:
        args.seeds, args.coarse_grid, args.sweep_seeds, args.no_adult = 2, True, 1, True
    sweep_seeds = list(range(args.seeds if args.sweep_seeds is None else args.sweep_seeds))
    seeds = list(range(args.seeds))
    grid = (1, 2, 4, 8, 16) if args.coarse_grid else B_GRID
    sizes = dict(n_train=args.n_train, n_cal=args.n_cal, n_test=args.n_test)
    out_dir = args.out
    t0, load0 = time.time(), os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    jobs = [("constructions", s, dict(b_grid=grid, roc_seed=seeds[0], **sizes)) for s in seeds]
    jobs += [("sweep", s, dict(n_train=args.n_train, n_test=args.n_test)) for s in sweep_seeds]
    if not args.no_adult:
        jobs.append(("adult",))
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            outs = list(pool.map(_task, jobs))
    else:
        outs = [_task(j) for j in jobs]
    runs = [o[0] for o in outs[:len(seeds)]]
    roc = outs[0][1]
    sweeps = outs[len(seeds):len(seeds) + len(sweep_seeds)]
    ad, ad_info = outs[-1] if not args.no_adult else (None, None)
    elapsed, load1 = time.time() - t0, os.getloadavg()

    names = list(runs[0])
    table = {n: {k: [r[n][k] for r in runs] for k in ("train", "test")} for n in names}
    for n in ("laplace count", "laplace bayes"):
        for k in ("b", "epsilon_total", "epsilon_grid_search"):
            table[n][k] = [r[n][k] for r in runs]
    eps = list(EPSILONS)
    sweep = {n: [sw[n] for sw in sweeps] for n in sweeps[0]}  # construction -> per seed -> per epsilon
    run_info = {"started": started, "seconds": elapsed, "jobs": args.jobs, "load_average_start": load0[:3],
                "load_average_end": load1[:3], "argv": list(argv) if argv is not None else sys.argv[1:], **sizes}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(
        {"seeds": seeds, "b_grid": list(grid), "table": table,
         "sweep": {"epsilons": eps, "seeds": sweep_seeds, "test_auc_per_seed": sweep},
         "adult": ad, "run": run_info, "seconds": elapsed}, indent=1))
    if ad is not None:
        (out_dir / "adult.json").write_text(json.dumps({"adult": ad, "info": ad_info, "run": started}, indent=1))
    elif (out_dir / "adult.json").exists():
        recorded = json.loads((out_dir / "adult.json").read_text())
        ad, ad_info = recorded["adult"], recorded.get("info")
        ad_when = recorded.get("run")
    _plots(out_dir, roc, eps, sweep)

    grid_txt = "{1, 2, 4, 8, 16} (coarse; the post's is 0..20)" if args.coarse_grid else "{1, ..., 20} (the post's 0..20 without b = 0)"
    cmd = " ".join(["--seeds", str(args.seeds)] + (["--coarse-grid"] if args.coarse_grid else [])
                   + ["--sweep-seeds", str(len(sweep_seeds))] + (["--no-adult"] if args.no_adult else [])
                   + (["--jobs", str(args.jobs)] if args.jobs > 1 else []))
    if sizes != dict(n_train=2000, n_cal=2000, n_test=10_000):
        cmd += f" --n-train {args.n_train} --n-cal {args.n_cal} --n-test {args.n_test} (SMOKE TEST SIZES)"
    lines = ["# winvector2015: impact coding constructions (reproduction)", "",
             f"Generated by `experiments/impact_coding.py {cmd}` on {started}: {len(seeds)} seeds (0..{seeds[-1]}) of "
             f"the simulated design, the Laplace scale b chosen from the grid {grid_txt}, the epsilon sweep on "
             f"{len(sweep_seeds)} seed(s), "
             + ("Adult re-run" if not args.no_adult else "Adult not re-run") + f"; {elapsed:.0f} s wall with "
             f"{args.jobs} worker process(es) on the shared 2-core machine (load average {load0[0]:.1f} at the start, "
             f"{load1[0]:.1f} at the end). Design: the post's simulation (10 signal x 10 levels, 30 noise x 500 levels; "
             f"{args.n_train} train / {args.n_cal} calibration / {args.n_test:,} test), logistic regression "
             "(C = 1e6, ~unpenalised as R's glm) on the 40 coded columns. Mean (sd) over the seeds, sd with ddof = 1.",
             "", "| construction | train AUC | test AUC | the post (train / test) |", "|---|---|---|---|"]
    for n in names:
        post = BLOG.get(n, ("", ""))
        extra = ""
        if "b" in table[n]:
            extra = (f" (b chosen on calibration: {table[n]['b']}; epsilon of the chosen release alone "
                     f"{[round(e, 1) for e in table[n]['epsilon_total']]}, of the grid search that chose it "
                     f"{round(table[n]['epsilon_grid_search'][0], 1)} (replace-one))")
        lines.append(f"| {n}{extra} | {_mean_sd(table[n]['train'])} | {_mean_sd(table[n]['test'])} | "
                     f"{post[0]} / {post[1]} |")
    lines += ["", "Laplace rows: the post's smearing of the count table with Laplace(b) noise, b picked from the grid "
              f"{list(grid)} by the calibration error rate (threshold 0.5), here drawn by the exact discrete Laplace with "
              "scale b (epsilon per column 2/b under replace-one, 1/b under add/remove-one; 40 columns). "
              + GRID_COST_NOTE.format(grid=list(grid), rr=grid_search_epsilon(grid),
                                      ar=grid_search_epsilon(grid, "add/remove-one"),
                                      both=2 * grid_search_epsilon(grid))
              + " Split and cross use the post's vtreat settings (rareSig 0.3, smFactor 5, catB); jackknife "
              "and naive the post's own bayesCode (log-lift). Split's train AUC is on its model rows (the half the "
              "coder did not see). The category_encoders rows code their training rows their own way (TargetEncoder: "
              "in-sample; LeaveOneOut: leave-one-out; CatBoost: ordered).", "",
              f"## Test AUC vs total epsilon (replace-one, {len(sweep_seeds)} seed(s): mean (sd))", "",
              SWEEP_NOTE + " 'naive count' and 'naive bayes' with epsilon set are the Laplace-smeared all-rows coders "
              "(one fixed scale per column, no b search); 'cross k=3 bayes' is cross-frame coding with the same "
              "noise on each fold's table.", "",
              "| construction | " + " | ".join(f"eps {e:g}" for e in eps) + " |", "|---|" + "---|" * len(eps)]
    for n, per_seed in sweep.items():
        a = np.asarray(per_seed, dtype=float)
        lines.append(f"| {n} | " + " | ".join(_mean_sd(a[:, j]) for j in range(len(eps))) + " |")
    if ad:
        when = (f"re-run in this run ({started})" if not args.no_adult
                else f"not re-run here: the results recorded in adult.json ({ad_when or 'an earlier separate run'})")
        lines += ["", "## Adult (8 categorical columns only), LogisticRegression downstream", ""]
        if ad_info:
            lost = ad["cross k=5 bayes"]["test"] - ad["cross k=5 bayes, epsilon 1"]["test"]
            lines += [f"Adult {when}; results also in adult.json. {ad_info['n_train']:,} training / "
                      f"{ad_info['n_test']:,} test rows; '?' is read as missing, a level of its own. Adult's columns "
                      f"have at most {ad_info['max_levels']} levels, most seen hundreds of times, so same-data coding "
                      "barely over-fits here, and the private cross-frame codes "
                      + (f"lose {lost:.3f} of test AUC" if lost > 0 else "lose no test AUC")
                      + " at a total epsilon of 1 (8 columns, replace-one; public level lists).", ""]
        else:
            lines += [f"Adult {when}.", ""]
        lines += ["| construction | train AUC | test AUC |", "|---|---|---|"]
        for n, r in ad.items():
            lines.append(f"| {n} | {r['train']:.3f} | {r['test']:.3f} |")
    lines += ["", f"ROC curves of seed {seeds[0]} (the Laplace curve at its chosen b = {roc['laplace count']['b']}; "
              "split's training curve on its model rows):", "", "![ROC](roc.png)", "",
              "Test AUC vs total epsilon, mean and sd over the sweep's seeds:", "", "![epsilon](epsilon.png)", ""]
    (out_dir / "README.md").write_text("\n".join(lines))
    print("\n".join(lines))


def _plots(out_dir, roc, eps, sweep):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import roc_curve

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    for name in ROC_NAMES:
        sc = roc[name]
        label = f"{name} (b = {sc['b']})" if "b" in sc else name
        for ax, part in ((axes[0], "train"), (axes[1], "test")):
            fpr, tpr, _ = roc_curve(*sc[part])
            ax.plot(fpr, tpr, label=label, lw=1.2)
    for ax, t in zip(axes, ("training rows (split: its model rows)", "test rows")):
        ax.plot([0, 1], [0, 1], "k:", lw=0.8)
        ax.set_title(f"ROC, {t}")
        ax.set_xlabel("FPR")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("TPR")
    fig.tight_layout()
    fig.savefig(out_dir / "roc.png", dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for n, per_seed in sweep.items():
        a = np.asarray(per_seed, dtype=float)
        sd = a.std(axis=0, ddof=1) if len(a) > 1 else np.zeros(a.shape[1])
        ax.errorbar(eps, a.mean(axis=0), yerr=sd, fmt="o-", capsize=3, label=n)
    ax.set_xscale("log")
    ax.set_xlabel("total epsilon (replace-one, 40 columns)")
    ax.set_ylabel(f"test AUC (mean ± sd, {len(next(iter(sweep.values())))} seeds)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "epsilon.png", dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
