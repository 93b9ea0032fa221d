"""bun2020 private boosting experiments: Section 5's synthetic setting and Adult.

1. tau-margin halfspaces with random classification noise (bun2020 Section 5.1; x uniform on the unit sphere of
   R^d conditioned on |u.x| >= tau, labels flipped w.p. eta): test error of PrivateBoostClassifier (LazyBregBoost +
   noisy normalised centroid) vs n, vs epsilon and vs eta; the paper's THEORY settings (HS-StL's T and the n it needs
   for privacy, hsstl_n_min) are reported next to the practical settings used (T = 50 rounds, kappa = 0.25).
2. Adult (shared/data/uci/adult-*.csv): numeric columns scaled by PUBLIC ranges (age/100, fnlwgt/1.5e6,
   education-num/16, capital-gain/1e5, capital-loss/5e3, hours/100; no data statistic is read), categorical columns
   one-hot on the categories of the training file (the public schema of adult.names); test error vs epsilon in
   {0.1, 0.5, 1, 2, 5, 10} for the halfspace and stump learners and SmoothBoost, against non-private AdaBoost
   (100 stumps) and LogisticRegression, against diffprivlib's DP LogisticRegression (separate venv:
   experiments/private_boosting_diffprivlib.py; results merged from diffprivlib.json), and against our private
   RadoBoost (nock2015) with the ``gaussian_edges`` rado source at the same (epsilon, delta = 1e-6) and the same
   neighbouring relation (replace one example: the edges are released once by the exact discrete Gaussian, rows
   clipped to the same public norm bound; the rados are post-processing), support picked on a validation split.
   NOT compared: DP-Feat RadoBoost protects ONE boolean feature (feature-level privacy, a different neighbouring
   relation), so "equal epsilon" would compare different guarantees.

Writes docs/experiments/private_boosting/{README.md, results.json, *.png}.  Run: .venv/bin/python -m
experiments.private_boosting [--quick] [--adult-only (keep the saved synthetic part)] [--report-only]
"""
from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "experiments" / "private_boosting"
DATA = ROOT.parent / "shared" / "data" / "uci"

NUMERIC = {0: 100.0, 2: 1.5e6, 4: 16.0, 10: 1e5, 11: 5e3, 12: 100.0}  # column -> public scale
CATEGORICAL = (1, 3, 5, 6, 7, 8, 9, 13)
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)


def tau_margin_data(n, d, tau, eta, rng):
    from proofs_checks.check_bun2020_halfspace import tau_margin_sample

    X, y, yc, u = tau_margin_sample(n, d, tau, eta, rng)
    return X, y, yc


def load_adult(data_dir=DATA):
    """(X_train, y_train, X_test, y_test) with public scaling and one-hot categories; y in {0, 1} (income > 50K)."""
    def rows(path):
        out = []
        for line in Path(path).read_text().splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 15 or "?" in parts or line.startswith("|"):
                continue
            out.append(parts)
        return out

    train, test = rows(data_dir / "adult-train.csv"), rows(data_dir / "adult-test.csv")
    cats = {c: sorted({r[c] for r in train}) for c in CATEGORICAL}

    def encode(rs):
        X = np.zeros((len(rs), len(NUMERIC) + sum(len(v) for v in cats.values())))
        for i, r in enumerate(rs):
            for j, (c, scale) in enumerate(NUMERIC.items()):
                X[i, j] = float(r[c]) / scale
            off = len(NUMERIC)
            for c in CATEGORICAL:
                if r[c] in cats[c]:
                    X[i, off + cats[c].index(r[c])] = 1.0
                off += len(cats[c])
        y = np.array([1 if r[14].rstrip(".") == ">50K" else 0 for r in rs])
        return X, y

    Xtr, ytr = encode(train)
    Xte, yte = encode(test)
    # a constant (public) feature: the halfspace learner's hypotheses pass through the origin, so the bias must be a
    # coordinate (its centroid entry is the weighted label balance)
    return np.column_stack([np.ones(len(Xtr)), Xtr]), ytr, np.column_stack([np.ones(len(Xte)), Xte]), yte


def _err(clf, X, y):
    return float(np.mean(clf.predict(X) != y))


def _grid_n_min(eps, alpha, beta, tau, d):
    from fast.private_boosting import hsstl_n_min

    try:
        return hsstl_n_min(eps, 1e-6, alpha, beta, tau, d=d)
    except ValueError as exc:  # the grid's rounding alone costs more than eps
        return f"unreachable ({exc})"


def synthetic(quick):
    from fast import PrivateBoostClassifier
    from fast.private_boosting import hsstl_n_min, hsstl_parameters

    rng = np.random.default_rng(0)
    d, tau = 10, 0.1
    reps = 2 if quick else 4
    res = {"theory": {}, "vs_n": {}, "vs_eps": {}, "vs_eta": {}}
    for alpha, beta in [(0.1, 0.05), (0.2, 0.1)]:
        p = hsstl_parameters(alpha, beta, tau)
        res["theory"][f"alpha={alpha},beta={beta},tau={tau}"] = {
            "T": p["T"], "sigma": p["sigma"], "kappa": p["kappa"],
            "n_min(eps=1,delta=1e-6)": hsstl_n_min(1.0, 1e-6, alpha, beta, tau),
            # the library's own run draws exact discrete Gaussian noise on a grid whose rounding inflates the
            # sensitivity (hsstl_n_min(d=...)): eps = 1 is out of reach there at any n
            f"n_min(eps=1,delta=1e-6) on the grid, d={d}": _grid_n_min(1.0, alpha, beta, tau, d),
            f"n_min(eps=5,delta=1e-6) on the grid, d={d}": _grid_n_min(5.0, alpha, beta, tau, d)}

    def run(n, eps, eta):
        errs = []
        for r in range(reps):
            X, y, yc = tau_margin_data(n, d, tau, eta, rng)
            Xt, yt, yct = tau_margin_data(5000, d, tau, 0.0, rng)
            clf = PrivateBoostClassifier(epsilon=eps, delta=1e-6, n_rounds=50, kappa=0.25, data_norm=1.0).fit(X, y)
            errs.append(_err(clf, Xt, yct))
        return float(np.mean(errs))

    for n in ([1000, 10000] if quick else [1000, 3000, 10000, 30000, 100000]):
        res["vs_n"][n] = run(n, 1.0, 0.01)
    for eps in EPSILONS:
        res["vs_eps"][eps] = run(10000, eps, 0.01)
    for eta in (0.0, 0.05, 0.1, 0.2):
        res["vs_eta"][eta] = run(10000, 1.0, eta)
    return res


def adult(quick):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.linear_model import LogisticRegression

    from fast import PrivateBoostClassifier

    Xtr, ytr, Xte, yte = load_adult()
    if quick:
        Xtr, ytr = Xtr[:8000], ytr[:8000]
    norm = math.sqrt(1 + len(NUMERIC) + len(CATEGORICAL))  # every row has norm <~ this (public; larger rows clipped)
    res = {"n_train": int(len(ytr)), "n_test": int(len(yte)), "d": int(Xtr.shape[1]), "baselines": {}, "private": {}}
    t = time.perf_counter()
    ada = AdaBoostClassifier(n_estimators=100, random_state=0).fit(Xtr, ytr)
    res["baselines"]["AdaBoost(100 stumps)"] = {"error": _err(ada, Xte, yte), "seconds": time.perf_counter() - t}
    lr = LogisticRegression(max_iter=2000).fit(Xtr, ytr)
    res["baselines"]["LogisticRegression"] = {"error": _err(lr, Xte, yte)}
    from fast import RadoBoostClassifier

    rb = RadoBoostClassifier(RADO_ROUNDS, support=10, random_state=0).fit(Xtr, ytr)
    res["baselines"]["RadoBoost(300, support=10)"] = {"error": _err(rb, Xte, yte)}
    res["baselines"]["majority"] = {"error": float(min(np.mean(yte), 1 - np.mean(yte)))}
    models = {
        "LazyBregBoost+halfspace": lambda e: PrivateBoostClassifier(epsilon=e, delta=1e-6, n_rounds=50, kappa=0.25,
                                                                    data_norm=norm),
        "LazyBregBoost+stump": lambda e: PrivateBoostClassifier(epsilon=e, delta=1e-6, n_rounds=50, kappa=0.25,
                                                                weak_learner="stump", bounds=(0.0, 1.0),
                                                                n_thresholds=4),
        "SmoothBoost+halfspace": lambda e: PrivateBoostClassifier(epsilon=e, delta=1e-6, n_rounds=30, kappa=0.25,
                                                                  booster="smooth", gamma=0.1, data_norm=norm),
    }
    for name, make in models.items():
        res["private"][name] = {}
        for e in EPSILONS:
            t = time.perf_counter()
            clf = make(e)
            while True:  # small budgets: fewer rounds (the exact grid's rounding must stay affordable)
                try:
                    clf.fit(Xtr, ytr)
                    break
                except ValueError as exc:
                    if "n_rounds is too large" not in str(exc) or clf.n_rounds <= 1:
                        res["private"][name][e] = {"error": None, "failed": str(exc)[:160]}
                        break
                    clf.set_params(n_rounds=clf.n_rounds // 2)
            if not hasattr(clf, "classes_"):
                continue
            res["private"][name][e] = {"error": _err(clf, Xte, yte), "seconds": time.perf_counter() - t,
                                       "epsilon_spent": clf.privacy_spent_.epsilon, "n_rounds": clf.n_rounds}
    res["radoboost"] = adult_radoboost(Xtr, ytr, Xte, yte, norm, quick)
    res["private"][RADO_NAME] = {e: {"error": v["test_error_mean"], "n_rounds": RADO_ROUNDS}
                                 for e, v in res["radoboost"]["per_epsilon"].items()}
    return res


RADO_NAME = "RadoBoost+gaussian_edges"
RADO_ROUNDS = 300
RADO_SUPPORTS = (10, 100, 0.05, 0.2, 0.5)  # m* (int) or m*/m (float)
RADO_SEEDS = (0, 1, 2)


def adult_radoboost(Xtr, ytr, Xte, yte, norm, quick):
    """Our private RadoBoost (nock2015) with the gaussian_edges rado source at the SAME (epsilon, delta = 1e-6) and
    the same neighbouring relation (replace one example) as PrivateBoostClassifier: the m edge vectors y_i x_i
    (rows clipped to the public norm bound ``norm``) are released once by the exact discrete Gaussian, the rados
    are post-processing.  support is picked on a validation split (20% of the training file; every candidate is
    fit on the other 80%), by the mean validation error over the seeds; its TEST error is reported.  The
    selection itself is not privatised (a standard, optimistic tuning step; the table per support is kept)."""
    from fast import RadoBoostClassifier
    from fast.dp_rados import gaussian_edges

    perm = np.random.default_rng(0).permutation(len(ytr))
    n_val = len(ytr) // 5
    va, fi = perm[:n_val], perm[n_val:]
    supports = (10, 0.05) if quick else RADO_SUPPORTS
    seeds = RADO_SEEDS[:1] if quick else RADO_SEEDS
    out = {"n_fit": int(len(fi)), "n_val": int(n_val), "clip": norm, "delta": 1e-6, "n_rounds": RADO_ROUNDS,
           "supports": list(supports), "seeds": list(seeds), "per_epsilon": {}}
    for e in EPSILONS:
        grid = {}
        for s in supports:
            val, test = [], []
            for seed in seeds:
                clf = RadoBoostClassifier(RADO_ROUNDS, privacy=gaussian_edges(e, 1e-6, s, clip=norm),
                                          random_state=seed).fit(Xtr[fi], ytr[fi])
                assert clf.privacy_spent_.epsilon <= e and clf.privacy_spent_.delta <= 1e-6
                val.append(_err(clf, Xtr[va], ytr[va]))
                test.append(_err(clf, Xte, yte))
            grid[str(s)] = {"val_error_mean": float(np.mean(val)), "test_error_mean": float(np.mean(test)),
                            "test_error_std": float(np.std(test)), "test_errors": test}
        best = min(grid, key=lambda k: grid[k]["val_error_mean"])
        out["per_epsilon"][e] = {"support_selected_on_val": best, "test_error_mean": grid[best]["test_error_mean"],
                                 "test_error_std": grid[best]["test_error_std"],
                                 "best_on_test_(optimistic)": min(v["test_error_mean"] for v in grid.values()),
                                 "grid": grid}
    return out


def plots(syn, adl):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, key, label, logx in ((axes[0], "vs_n", "n (eps = 1)", True), (axes[1], "vs_eps", "epsilon (n = 10^4)", True),
                                 (axes[2], "vs_eta", "eta (n = 10^4, eps = 1)", False)):
        xs = [float(k) for k in syn[key]]
        ax.plot(xs, list(syn[key].values()), "o-")
        ax.set_xlabel(label)
        ax.set_ylabel("test error")
        if logx:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    fig.suptitle("tau-margin halfspaces (d = 10, tau = 0.1): PrivateBoostClassifier, T = 50, kappa = 0.25")
    fig.tight_layout()
    fig.savefig(OUT / "synthetic.png", dpi=110)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, vals in adl["private"].items():
        pts = [(float(e), v["error"]) for e, v in vals.items() if v.get("error") is not None]
        if pts:
            ax.plot(*zip(*pts), "o-", label=name)
    dpl = OUT / "diffprivlib.json"
    if dpl.exists():  # the separate-venv diffprivlib run (experiments/private_boosting_diffprivlib.py)
        d = json.loads(dpl.read_text())
        pts = [(float(e), d[str(float(e))]["error_mean_of_3"]) for e in EPSILONS if str(float(e)) in d]
        if pts:
            ax.plot(*zip(*pts), "s:", label="diffprivlib LogisticRegression (eps-DP)")
    styles = ("--", "-.", ":", (0, (5, 1)))
    for k, (name, v) in enumerate(adl["baselines"].items()):
        ax.axhline(v["error"], ls=styles[k % len(styles)], lw=1, label=f"{name} (non-private)",
                   color="grey" if name == "majority" else f"C{5 + k}")
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (delta = 1e-6)")
    ax.set_ylabel("test error")
    ax.set_title("Adult")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(OUT / "adult.png", dpi=110)


def report(syn, adl, seconds):
    lines = ["# Private boosting (bun2020): experiments", "",
             f"Generated by `experiments/private_boosting.py` (2-core shared machine): Adult part "
             f"{adl.get('seconds', float('nan')):.0f} s"
             + (f", synthetic part {syn_seconds:.0f} s" if (syn_seconds := (seconds - adl.get('seconds', 0.0)))
                > 0.5 else " (synthetic part kept from the earlier full run, which took 49 s for both parts before RadoBoost was added)")
             + ".", "",
             "## Theory settings (HS-StL, Algorithm 4)", "", "| setting | T | sigma | n for (1, 1e-6)-DP |", "|---|---|---|---|"]
    for k, v in syn["theory"].items():
        lines.append(f"| {k} | {v['T']:,} | {v['sigma']:.3g} | {v['n_min(eps=1,delta=1e-6)']:,} |")
    lines += ["", "The paper's constants are unusable in practice (T ~ 4e5 rounds, n ~ 1.7e9); the practical runs below "
              "use T = 50, kappa = 0.25, lam = sqrt(ln(1/kappa)/T), the normalised learner, zCDP accounting with the "
              "tight conversion.", "",
              "## tau-margin halfspaces (d = 10, tau = 0.1, test on clean labels)", "",
              "![synthetic](synthetic.png)", "", "| sweep | value | test error |", "|---|---|---|"]
    for key in ("vs_n", "vs_eps", "vs_eta"):
        for k, v in syn[key].items():
            lines.append(f"| {key} | {k} | {v:.3f} |")
    lines += ["", f"## Adult (n_train = {adl['n_train']}, n_test = {adl['n_test']}, d = {adl['d']})", "",
              "![adult](adult.png)", "", "| model | " + " | ".join(f"eps={e}" for e in EPSILONS) + " |",
              "|---|" + "---|" * len(EPSILONS)]
    for name, vals in adl["private"].items():
        cells = []
        for e in EPSILONS:
            v = vals.get(e, {})
            cells.append("fail" if v.get("error") is None else f"{v['error']:.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for name, v in adl["baselines"].items():
        lines.append(f"| {name} (non-private) | " + " | ".join(f"{v['error']:.3f}" for _ in EPSILONS) + " |")
    dpl = OUT / "diffprivlib.json"
    if dpl.exists():
        d = json.loads(dpl.read_text())
        lines.append("| diffprivlib LogisticRegression (eps-DP, mean of 3; separate venv, "
                     "experiments/private_boosting_diffprivlib.py) | "
                     + " | ".join(f"{d[str(float(e))]['error_mean_of_3']:.3f}" if str(float(e)) in d else "-"
                                  for e in EPSILONS) + " |")
    failures = {name: {e: v["failed"] for e, v in vals.items() if "failed" in v} for name, vals in adl["private"].items()}
    failures = {k: v for k, v in failures.items() if v}
    if failures:
        lines += ["", f"Budgets too small for a model (even at 1 round): {failures}"]
    rounds = {name: {e: v.get("n_rounds") for e, v in vals.items()} for name, vals in adl["private"].items()}
    lines += ["", f"Rounds actually used (halved from the default while the exact grid's rounding was unaffordable): "
              f"{rounds}", "",
              ] + rado_paragraph(adl) + [
              "Not compared: DP-Feat RadoBoost protects one boolean feature (a different neighbouring relation), so "
              "equal epsilon would compare different guarantees.  diffprivlib 0.6.6 needs scikit-learn < 1.6, so it "
              "runs in a separate virtual environment (experiments/private_boosting_diffprivlib.py); its "
              "objective-perturbation LogisticRegression is pure eps-DP.  It beats the halfspace learner on Adult at "
              "every epsilon >= 0.5; the report-noisy-max stump learner (LazyBregBoost+stump) beats it up to "
              "epsilon = 2 and trails it from epsilon = 5 on (see the table).", ""]
    (OUT / "README.md").write_text("\n".join(lines))


def rado_paragraph(adl):
    """README lines on the RadoBoost + gaussian_edges comparison (empty when it was not run)."""
    rb = adl.get("radoboost")
    if not rb:
        return []
    per = {float(e): v for e, v in rb["per_epsilon"].items()}
    lines = [f"**{RADO_NAME}** (nock2015 RadoBoost, our `RadoBoostClassifier(n_rounds={rb['n_rounds']}, "
             f"privacy=gaussian_edges(eps, {rb['delta']:g}, support, clip={rb['clip']:.3f}))`).  What is compared: "
             "the same total (epsilon, delta = 1e-6) and the same neighbouring relation as PrivateBoostClassifier "
             "(replace one example (x_i, y_i)): the m edge vectors y_i x_i, rows clipped to the same PUBLIC norm bound "
             "sqrt(1 + 6 + 8) the halfspace learner uses (the numeric columns carry the same public scaling; no data "
             "statistic is read), are released ONCE by the exact discrete Gaussian at L2 sensitivity 2 clip; the "
             "rados and the boosting are post-processing.  support in "
             f"{rb['supports']} (an int is m*, a float m*/m) was picked by the mean validation error over seeds "
             f"{rb['seeds']} on a validation split ({rb['n_val']} rows of the training file; every candidate fit on "
             f"the other {rb['n_fit']}; this tuning step is not privatised), and the table row is the mean TEST error "
             "of the selected support.  The privacy noise comes from OS entropy (not reproducible by design).", "",
             "| epsilon | support (val) | test error (mean +- sd over seeds) | best support on test (optimistic) |",
             "|---|---|---|---|"]
    for e in EPSILONS:
        v = per.get(float(e))
        if v:
            lines.append(f"| {e} | {v['support_selected_on_val']} | {v['test_error_mean']:.3f} +- "
                         f"{v['test_error_std']:.3f} | {v['best_on_test_(optimistic)']:.3f} |")
    lines += ["", RADO_RESULT_NOTE, ""]
    return lines


RADO_RESULT_NOTE = (
    "Result: at equal (epsilon, 1e-6) under replace-one, RadoBoost with gaussian_edges never beats the majority "
    "rule (0.246) on Adult: about 0.245-0.247 for epsilon in 0.5-10 (it predicts the majority class; at eps >= 2 "
    "every support in the grid does), and at epsilon = 0.1 worse than majority (0.39, sd 0.20 over seeds), while "
    "LazyBregBoost+stump reaches 0.17-0.18 and diffprivlib 0.16 at eps >= 5.  The reason is structural, not "
    "tuning: gaussian_edges noises every one of the m edge vectors y_i x_i (a release of m*d numbers at L2 "
    "sensitivity 2 clip = 7.75), so each coordinate of each edge carries a discrete Gaussian of sigma = 306, 67, "
    "35, 18, 8.0, 4.4 at epsilon = 0.1, 0.5, 1, 2, 5, 10 against entries in [0, 1]; a rado of support m* sums m* "
    "such noises (sd sqrt(m*) sigma) and what RadoBoost learns from is the VARIATION among rados, which this "
    "noise swamps at every support (small m* keeps the variation but not the signal-to-noise, large m* the "
    "reverse: even non-private, RadoBoost needs small supports on Adult, 0.194 at support = 10 vs majority at "
    "m* >= 0.05 m).  PrivateBoostClassifier spends its budget on aggregates (one noisy centroid or one "
    "report-noisy-max per round, sensitivity O(1/(kappa m))), whose noise shrinks with m; the edge release does "
    "not.")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--adult-only", action="store_true", help="rerun Adult only; keep the saved synthetic part")
    ap.add_argument("--report-only", action="store_true", help="re-render README.md and plots from results.json")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        saved = json.loads((OUT / "results.json").read_text())
        for part in ("vs_n", "vs_eps", "vs_eta"):
            saved["synthetic"][part] = {k: v for k, v in saved["synthetic"][part].items()}
        adl = saved["adult"]
        adl["private"] = {name: {float(e): v for e, v in vals.items()} for name, vals in adl["private"].items()}
        plots(saved["synthetic"], adl)
        report(saved["synthetic"], adl, saved["seconds"])
        return
    t = time.perf_counter()
    if args.adult_only:
        saved = json.loads((OUT / "results.json").read_text())
        syn, syn_seconds = saved["synthetic"], saved.get("seconds_synthetic")
    else:
        syn = synthetic(args.quick)
        syn_seconds = time.perf_counter() - t
    t = time.perf_counter()
    adl = adult(args.quick)
    adl["seconds"] = time.perf_counter() - t
    seconds = adl["seconds"] + (syn_seconds or 0.0)
    (OUT / "results.json").write_text(json.dumps({"synthetic": syn, "adult": adl, "seconds": seconds,
                                                  "seconds_synthetic": syn_seconds}, indent=1,
                                                 default=str))
    plots(syn, adl)
    report(syn, adl, seconds)
    print((OUT / "README.md").read_text())


if __name__ == "__main__":
    main()
