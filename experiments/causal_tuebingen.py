"""Private ANM causal inference on the Tuebingen cause-effect pairs (kusner2016 s4.1.9, Table 4.2 / Figs 4.3-4.4 style).

Run:  .venv/bin/python -m experiments.causal_tuebingen [--quick]
Writes docs/experiments/causal/README.md, results.json and PNG plots.  Without ../shared/data/tuebingen the script
says so and exits 0 without writing anything.

Protocol (the thesis used 10 ChaLearn sets, which we do not have; what it leaves open is fixed here):
* every pair is stored as A -> B; each pair is swapped with probability 1/2 (numpy seed 0) and the swap predicted;
* each variable is rescaled to [-1, 1] by its min and max (Theorem 7 assumes |x|, |y| <= 1; this rescaling reads
  the data and is NOT private: a deployment would use public bounds); pairs longer than MAX_N are subsampled (seed);
* SPLITS random 50/50 splits per pair; KRR (eq. 4.6) with lambda = LAM and the median-heuristic bandwidth for the
  test-set experiments; HSIC with fixed Gaussian bandwidths 0.5;
* non-private accuracy: the fraction of (pair, split) decisions that are right (a tie counts 1/2);
* test-set privacy: the probability of the right private decision from the closed forms (Theorem 4 and its mirror
  for a wrong order; Theorem 6.2 for the IQR, given release), averaged over splits, with the library's default
  sensitivities (Spearman 6(5m-9)/(m(m+1)), Kendall 4/m, HSIC (8m-4)/(m-1)^2) and, for comparison, the thesis's
  (30/m, (16m-8)/(m-1)^2); one Monte Carlo run with the real mechanism checks the closed form;
* training-set privacy (HSIC, Fig. 4.4 style): a lambda sweep with a fixed regression bandwidth (0.3) and the
  corrected Theorem 9 sensitivity (4m/(m-1)) L_l R_n, R_n = (4/(n lambda))(1 + 1/sqrt(2 lambda)); and the IQR score
  with training-set PTR (iqr_train_ptr, delta = TRAIN_DELTA): P(correct) = P(release) P(correct | release) +
  P(bottom)/2, with P(release) exact for the continuous Laplace and P(correct | release) from Theorem 4
  (two noised log-IQRs); ``--train-only`` recomputes just this part from the stored results.json;
* causal-learn's ANM (GP regression + HSIC test) on a subset, if causal-learn is installed: agreement and time.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from fast import causal, causal_privacy, mechanisms

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "tuebingen"
OUT = ROOT / "docs" / "experiments" / "causal"
SCORES = ("spearman", "kendall", "hsic", "iqr")
EPSILONS = (0.1, 1.0, 2.0, 10.0)
LAM = 1e-3
MAX_N = 2000
SPLITS = 5
TRAIN_LAMS = (1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4)
TRAIN_EPS = (0.1, 1.0, 10.0)
TRAIN_BANDWIDTH = 0.3
TRAIN_DELTA = 1e-6


def load_pairs(max_n: int, seed: int = 0):
    """[(name, x, y, truth)] with a fixed-seed swap; x, y rescaled to [-1, 1]; None without the data."""
    pairs_file = DATA / "Tuebingen_pairs.csv"
    if not pairs_file.exists():
        return None
    csv.field_size_limit(1 << 30)
    rng = np.random.default_rng(seed)
    out = []
    with pairs_file.open(newline="") as fh:
        for row in csv.DictReader(fh):
            a = np.array(row["A"].split(), dtype=float)
            b = np.array(row["B"].split(), dtype=float)
            swap = bool(rng.random() < 0.5)
            if a.shape[0] > max_n:
                keep = rng.choice(a.shape[0], max_n, replace=False)
                a, b = a[keep], b[keep]
            if np.ptp(a) == 0 or np.ptp(b) == 0:
                continue
            a = 2 * (a - a.min()) / np.ptp(a) - 1
            b = 2 * (b - b.min()) / np.ptp(b) - 1
            x, y = (b, a) if swap else (a, b)
            out.append((row["SampleID"], x, y, "y->x" if swap else "x->y"))
    return out


def margins_toward_truth(x, y, truth, splits, rng):
    """Per split: {score: signed margin s_YX - s_XY oriented so that > 0 means the non-private answer is right}."""
    rows = []
    for _ in range(splits):
        x_tr, y_tr, x_te, y_te = causal.train_test_split(x, y, rng=rng)
        r_y, r_x = causal.anm_residuals(x_tr, y_tr, x_te, y_te, lam=LAM)
        row = {"m": int(x_te.shape[0])}
        for score in SCORES:
            try:
                s_xy = causal.dependence_score(x_te, r_y, score)
                s_yx = causal.dependence_score(y_te, r_x, score)
            except ValueError:  # IQR = 0 on heavily tied data: no decision
                row[score] = None
                continue
            margin = s_yx - s_xy
            row[score] = margin if truth == "x->y" else -margin
        rows.append(row)
    return rows


def test_sensitivity(score, m, which):
    if score == "spearman":
        return causal_privacy.spearman_sensitivity(m, bound="thesis" if which == "thesis" else "proof")
    if score == "kendall":
        return causal_privacy.kendall_sensitivity(m)
    if score == "hsic":
        return causal_privacy.hsic_sensitivity(m, bound="thm5" if which == "thesis" else "entrywise")
    return 1.0  # ln IQR inside a PTR bin


def prob_correct(score, margin, m, epsilon, which="library"):
    if margin is None:
        return 0.5
    if score == "iqr":
        return causal_privacy.prob_correct_four_laplace(margin, 1.0 / epsilon)
    return causal_privacy.prob_correct_laplace(margin, test_sensitivity(score, m, which) / epsilon)


def accuracy(margin):
    if margin is None:
        return 0.5
    return 1.0 if margin > 0 else (0.5 if margin == 0 else 0.0)


def monte_carlo_check(results, epsilon=1.0, draws=2000, seed=1):
    """Closed form vs the real mechanism for Kendall at eps = 1, on the first split of each pair."""
    rng = np.random.default_rng(seed)
    closed, empirical = [], []
    for res in results:
        row = res["splits"][0]
        margin, m = row["kendall"], row["m"]
        if margin is None:
            continue
        sens = causal_privacy.kendall_sensitivity(m)
        noisy = mechanisms.laplace_mechanism(np.tile([0.0, margin], (draws, 1)), sensitivity=sens, epsilon=epsilon,
                                             rng=rng)
        empirical.append(float(np.mean(noisy[:, 0] < noisy[:, 1])))
        closed.append(causal_privacy.prob_correct_laplace(margin, sens / epsilon))
    return float(np.mean(closed)), float(np.mean(empirical)), draws


def causallearn_comparison(pairs, n_pairs=10, n_max=300, seed=2):
    """Agreement of our non-private HSIC ANM with causal-learn's ANM (GP + HSIC p-values) and wall time."""
    try:
        from causallearn.search.FCMBased.ANM.ANM import ANM
    except ImportError:
        return None
    rng = np.random.default_rng(seed)
    agree = right_ours = right_cl = 0
    t_ours = t_cl = 0.0
    used = 0
    for _, x, y, truth in pairs[:n_pairs]:
        if x.shape[0] > n_max:
            keep = rng.choice(x.shape[0], n_max, replace=False)
            x, y = x[keep], y[keep]
        t0 = time.perf_counter()
        ours = causal.anm(x, y, score="hsic", lam=LAM, rng=rng).direction
        t_ours += time.perf_counter() - t0
        t0 = time.perf_counter()
        p_forward, p_backward = ANM().cause_or_effect(x[:, None], y[:, None])
        t_cl += time.perf_counter() - t0
        theirs = "x->y" if p_forward > p_backward else "y->x"
        agree += ours == theirs
        right_ours += ours == truth
        right_cl += theirs == truth
        used += 1
    return {"pairs": used, "n_max": n_max, "agreement": agree / used, "accuracy_ours": right_ours / used,
            "accuracy_causallearn": right_cl / used, "seconds_ours": t_ours, "seconds_causallearn": t_cl}


def plots(summary, train, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    eps_grid = summary["eps_grid"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for score in SCORES:
        axes[0].semilogx(eps_grid, summary["curve_all"][score], marker="o", label=score)
        axes[1].semilogx(eps_grid, summary["curve_good"][score], marker="o", label=score)
    axes[0].set_title("all pairs")
    axes[1].set_title("pairs the score gets right non-privately")
    for ax in axes:
        ax.set_xlabel("epsilon (test-set privacy)")
        ax.set_ylabel("P(correct private decision)")
        ax.set_ylim(0.0, 1.02)
        ax.axhline(0.5, color="grey", lw=0.5)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "test_privacy_vs_epsilon.png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    lams = list(train)
    for eps in TRAIN_EPS:
        axes[0].semilogx(lams, [train[lam][eps] for lam in lams], marker="o", label=f"eps = {eps}")
    axes[0].set_xlabel("lambda")
    if "train_iqr" in summary:
        iqr_rows = {float(k): _floats(v) for k, v in summary["train_iqr"].items()}
        for eps in TRAIN_EPS:
            axes[0].semilogx(lams, [iqr_rows[float(lam)][eps] for lam in lams], ls="--", marker="x",
                             label=f"IQR eps = {eps}")
    axes[0].set_ylabel("P(correct), training-set privacy")
    axes[0].set_title("HSIC solid, IQR dashed")
    axes[0].legend()
    axes[0].axhline(0.5, color="grey", lw=0.5)
    best = summary["train_best"]
    axes[1].semilogx(list(best), [v["p"] for v in best.values()], marker="o")
    axes[1].set_xlabel("epsilon")
    axes[1].set_ylabel("P(correct) at the best lambda")
    axes[1].axhline(0.5, color="grey", lw=0.5)
    fig.tight_layout()
    fig.savefig(out / "train_privacy_vs_lambda.png", dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 pairs, 2 splits, N <= 500 (a smoke run)")
    parser.add_argument("--train-only", action="store_true",
                        help="recompute only the training-set sweeps; the rest is read from the stored results.json")
    args = parser.parse_args(argv)
    if args.train_only:
        return train_only(args.quick)
    max_n, splits, limit = (500, 2, 20) if args.quick else (MAX_N, SPLITS, None)
    pairs = load_pairs(max_n)
    if pairs is None:
        print(f"skipped: {DATA} is absent (a clone without ../shared); nothing written")
        return 0
    pairs = pairs[:limit] if limit else pairs
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    results = []
    for name, x, y, truth in pairs:
        results.append({"pair": name, "n": int(x.shape[0]), "truth": truth,
                        "splits": margins_toward_truth(x, y, truth, splits, rng)})
    t_scores = time.perf_counter() - t0

    eps_grid = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
    summary = {"pairs": len(results), "splits": splits, "max_n": max_n, "lam": LAM, "eps_grid": eps_grid}
    acc = {s: [np.mean([accuracy(r[s]) for r in res["splits"]]) for res in results] for s in SCORES}
    summary["accuracy"] = {s: float(np.mean(v)) for s, v in acc.items()}
    for key, which in (("private", "library"), ("private_thesis_bounds", "thesis")):
        summary[key] = {s: {eps: float(np.mean([np.mean([prob_correct(s, r[s], r["m"], eps, which)
                                                         for r in res["splits"]]) for res in results]))
                            for eps in EPSILONS} for s in SCORES}
    summary["curve_all"] = {s: [float(np.mean([np.mean([prob_correct(s, r[s], r["m"], e) for r in res["splits"]])
                                               for res in results])) for e in eps_grid] for s in SCORES}
    summary["curve_good"] = {}
    for s in SCORES:
        good = [res for res, a in zip(results, acc[s]) if a == 1.0]
        summary["curve_good"][s] = [float(np.mean([np.mean([prob_correct(s, r[s], r["m"], e) for r in res["splits"]])
                                                   for res in good])) if good else 0.5 for e in eps_grid]
        summary.setdefault("n_good", {})[s] = len(good)
    closed, empirical, draws = monte_carlo_check(results)
    summary["monte_carlo_kendall_eps1"] = {"closed_form": closed, "real_mechanism": empirical, "draws_per_pair": draws}

    train = training_part(pairs, summary, args.quick)
    summary["causallearn"] = causallearn_comparison(pairs)
    summary["seconds"]["scores"] = t_scores

    OUT.mkdir(parents=True, exist_ok=True)
    plots(summary, train, OUT)
    per_pair = [{"pair": r["pair"], "n": r["n"], "truth": r["truth"],
                 "accuracy": {s: float(np.mean([accuracy(x[s]) for x in r["splits"]])) for s in SCORES},
                 "std": {s: float(np.std([accuracy(x[s]) for x in r["splits"]], ddof=1)) if splits > 1 else 0.0
                         for s in SCORES},
                 "private": {s: {eps: float(np.mean([prob_correct(s, x[s], x["m"], eps) for x in r["splits"]]))
                                 for eps in EPSILONS} for s in SCORES}} for r in results]
    (OUT / "results.json").write_text(json.dumps({"summary": summary, "train": train, "per_pair": per_pair},
                                                 indent=1, default=str))
    write_markdown(summary, train, per_pair, OUT)
    print(f"wrote {OUT}/README.md ({len(results)} pairs, {t_scores:.1f} s scores, {t_train:.1f} s training sweep)")
    return 0


def training_part(pairs, summary, quick):
    """The training-set sweeps (HSIC and IQR) into ``summary``; returns the HSIC table {lam: {eps: P}}."""
    t1 = time.perf_counter()
    train_pairs = pairs[: (10 if quick else 40)]
    _TRAIN_CACHE.clear()
    eps_all = sorted(set(TRAIN_EPS) | {0.3, 3.0})
    by_eps = {eps: train_sweep_eps(train_pairs, eps) for eps in eps_all}
    train = {lam: {eps: by_eps[eps][lam] for eps in TRAIN_EPS} for lam in TRAIN_LAMS}
    iqr_by_eps = {eps: train_sweep_iqr(eps) for eps in eps_all}
    summary["train_iqr"] = {lam: {eps: iqr_by_eps[eps][lam][0] for eps in TRAIN_EPS} for lam in TRAIN_LAMS}
    summary["train_iqr_release"] = {lam: {eps: iqr_by_eps[eps][lam][1] for eps in TRAIN_EPS} for lam in TRAIN_LAMS}
    summary["train_iqr_nonprivate"] = {lam: iqr_by_eps[TRAIN_EPS[0]][lam][2] for lam in TRAIN_LAMS}
    summary["train_delta"] = TRAIN_DELTA
    summary.setdefault("seconds", {})["train_sweep"] = time.perf_counter() - t1
    for key, table in (("train_best", by_eps), ("train_best_iqr", {e: {lam: v[0] for lam, v in c.items()}
                                                                    for e, c in iqr_by_eps.items()})):
        summary[key] = {}
        for eps, curve in table.items():
            lam_best = max(curve, key=curve.get)
            summary[key][eps] = {"lambda": lam_best, "p": curve[lam_best]}
    summary["train_pairs"] = len(train_pairs)
    return train


def _floats(d):
    """JSON turned float keys into strings: back to floats (one level)."""
    return {float(k): v for k, v in d.items()}


def train_only(quick):
    """Recompute the training-set sweeps and rewrite the outputs, reusing the stored test-set results."""
    stored = OUT / "results.json"
    pairs = load_pairs(500 if quick else MAX_N)
    if pairs is None or not stored.exists():
        print(f"skipped: {DATA} or {stored} is absent; nothing written")
        return 0
    data = json.loads(stored.read_text())
    summary, per_pair = data["summary"], data["per_pair"]
    for key in ("private", "private_thesis_bounds"):
        summary[key] = {s: _floats(v) for s, v in summary[key].items()}
    for r in per_pair:
        r["private"] = {s: _floats(v) for s, v in r["private"].items()}
    train = training_part(pairs, summary, quick)
    plots(summary, train, OUT)
    stored.write_text(json.dumps({"summary": summary, "train": train, "per_pair": per_pair}, indent=1, default=str))
    write_markdown(summary, train, per_pair, OUT)
    print(f"rewrote {OUT}/README.md ({summary['seconds']['train_sweep']:.1f} s training sweep)")
    return 0


_TRAIN_CACHE: dict = {}


def _release_probability(a, epsilon, delta):
    """P(PTR releases) for proxies a = (A~_1, A~_2) under continuous Lap(1/eps) noise, threshold 1 + ln(1/delta)/eps."""
    cut = 1.0 + math.log(1.0 / delta) / epsilon
    fail = 1.0
    for a_j in a:
        t = epsilon * (cut - a_j)
        fail *= 0.5 * math.exp(t) if t < 0 else 1.0 - 0.5 * math.exp(-t)
    return 1.0 - fail


def train_sweep_eps(pairs, eps):
    """HSIC with training-set privacy: mean P(correct) over pairs per lambda at one eps (one split per pair;
    margins, corrected Theorem 9 sensitivities and the IQR quantities cached across calls)."""
    if not _TRAIN_CACHE:
        rng = np.random.default_rng(3)
        for _, x, y, truth in pairs:
            x_tr, y_tr, x_te, y_te = causal.train_test_split(x, y, rng=rng)
            m, n = x_te.shape[0], x_tr.shape[0]
            for lam in TRAIN_LAMS:
                r_y, r_x = causal.anm_residuals(x_tr, y_tr, x_te, y_te, lam=lam, bandwidth=TRAIN_BANDWIDTH)
                margin = causal.hsic_score(y_te, r_x) - causal.hsic_score(x_te, r_y)
                margin = margin if truth == "x->y" else -margin
                sens = causal_privacy.hsic_train_sensitivity(m, n, lam, bandwidth=causal.HSIC_BANDWIDTH)
                _TRAIN_CACHE.setdefault(lam, []).append((margin, sens, _iqr_train_row(x_te, y_te, r_y, r_x, n, lam,
                                                                                     truth)))
    return {lam: float(np.mean([causal_privacy.prob_correct_laplace(g, s / eps) for g, s, _ in rows]))
            for lam, rows in _TRAIN_CACHE.items()}


def _iqr_train_row(x_te, y_te, r_y, r_x, n, lam, truth):
    """(margin toward the truth or None, proxies of r'_Y, proxies of r'_X) for the training-set IQR release."""
    qs = [causal.iqr(v) for v in (x_te, r_y, y_te, r_x)]
    if min(qs) <= 0.0:
        return None, (0, 0), (0, 0)
    margin = causal.iqr_score(y_te, r_x) - causal.iqr_score(x_te, r_y)
    proxies = [tuple(causal_privacy.iqr_train_bin_distance(r, lo, hi, n=n, lam=lam, cap=10 ** 9)
                     for lo, hi in causal_privacy.iqr_bins(causal.iqr(r))) for r in (r_y, r_x)]
    return (margin if truth == "x->y" else -margin), proxies[0], proxies[1]


def train_sweep_iqr(eps):
    """IQR with training-set privacy (after train_sweep_eps filled the cache): {lam: (mean P(correct), mean
    P(release), non-private accuracy)}; bottom and an undefined IQR count 1/2."""
    out = {}
    for lam, rows in _TRAIN_CACHE.items():
        p_correct, p_release = [], []
        for _, _, (margin, a_y, a_x) in rows:
            if margin is None:
                p_correct.append(0.5)
                p_release.append(0.0)
                continue
            rel = _release_probability(a_y, eps, TRAIN_DELTA) * _release_probability(a_x, eps, TRAIN_DELTA)
            p_correct.append(rel * causal_privacy.prob_correct_laplace(margin, 1.0 / eps) + (1.0 - rel) * 0.5)
            p_release.append(rel)
        out[lam] = (float(np.mean(p_correct)), float(np.mean(p_release)),
                    float(np.mean([accuracy(row[2][0]) for row in rows])))
    return out


def write_markdown(summary, train, per_pair, out):
    lines = ["# Private ANM on the Tuebingen cause-effect pairs (kusner2016 ch4, s4.1.9 style)", "",
             "Generated by `experiments/causal_tuebingen.py`; numbers in `results.json`. Protocol in the script's "
             "docstring: fixed-seed swap of A and B, variables rescaled to [-1, 1] (non-private preprocessing), "
             f"{summary['splits']} random 50/50 splits per pair, N <= {summary['max_n']}, KRR lambda = {summary['lam']} "
             "with the median-heuristic bandwidth, HSIC bandwidths 0.5.", "",
             f"## Non-private accuracy ({summary['pairs']} pairs; a tie or an undefined IQR counts 1/2)", "",
             "| score | accuracy |", "|---|---|"]
    lines += [f"| {s} | {summary['accuracy'][s]:.3f} |" for s in SCORES]
    lines += ["", "## Test-set privacy: probability of the right private decision (Table 4.2 style, mean over pairs)",
              "", "Closed forms (Theorem 4 and its mirror; Theorem 6.2 for IQR, given release). Library sensitivities "
              "(left) and the thesis's (right: 30/m for Spearman, (16m-8)/(m-1)^2 for HSIC).", "",
              "| score | " + " | ".join(f"eps={e}" for e in EPSILONS) + " | " + " | ".join(
                  f"thesis eps={e}" for e in EPSILONS) + " |", "|---" * (1 + 2 * len(EPSILONS)) + "|"]
    for s in SCORES:
        lines.append(f"| {s} | " + " | ".join(f"{summary['private'][s][e]:.3f}" for e in EPSILONS) + " | "
                     + " | ".join(f"{summary['private_thesis_bounds'][s][e]:.3f}" for e in EPSILONS) + " |")
    mc = summary["monte_carlo_kendall_eps1"]
    lines += ["", f"Monte Carlo check (Kendall, eps = 1, real floating-point-safe mechanism, {mc['draws_per_pair']} "
              f"draws per pair): closed form {mc['closed_form']:.4f}, mechanism {mc['real_mechanism']:.4f}.", "",
              "![P(correct) vs epsilon](test_privacy_vs_epsilon.png)", "",
              "Right panel (Figure 4.3 style): pairs each score gets right on every split non-privately "
              f"({', '.join(f'{s}: {n}' for s, n in summary['n_good'].items())} pairs).", "",
              f"## Training-set privacy, HSIC (Figure 4.4 style; {summary['train_pairs']} pairs, one split, regression "
              f"bandwidth {TRAIN_BANDWIDTH})", "", "| lambda | " + " | ".join(f"eps={e}" for e in TRAIN_EPS) + " |",
              "|---" * (1 + len(TRAIN_EPS)) + "|"]
    for lam, row in train.items():
        lines.append(f"| {lam} | " + " | ".join(f"{row[e]:.3f}" for e in TRAIN_EPS) + " |")
    lines += ["", "Best lambda per epsilon: " + ", ".join(
        f"eps={e}: lambda={v['lambda']} (P = {v['p']:.3f})" for e, v in summary["train_best"].items()), ""]
    if "train_iqr" in summary:
        lines += [f"### Training-set privacy, IQR (PTR with A~_j = ceil(dist(IQR, bin edge) / 2 R_n), delta = "
                  f"{summary['train_delta']}; (6 eps, 2 delta) per decision; bottom counts 1/2)", "",
                  "Non-private accuracy at that lambda, P(correct) and P(both residual IQRs released). A~_j grows "
                  "like n lambda / (IQR distance to a bin edge), so small lambda returns bottom and large lambda "
                  "releases; but large lambda shrinks the regressions to 0 (r'_Y -> y', r'_X -> x', both scores "
                  "-> ln IQR(x') + ln IQR(y')). On these pairs the IQR score is not informative at any lambda "
                  "(non-private column), so the private P(correct) stays near 1/2 whether or not it releases.", "",
                  "| lambda | non-private | " + " | ".join(f"eps={e}" for e in TRAIN_EPS) + " | "
                  + " | ".join(f"release eps={e}" for e in TRAIN_EPS) + " |", "|---" * (2 + 2 * len(TRAIN_EPS)) + "|"]
        for lam in train:
            row, rel = _floats(summary["train_iqr"])[float(lam)], _floats(summary["train_iqr_release"])[float(lam)]
            row, rel = _floats(row), _floats(rel)
            acc = _floats(summary["train_iqr_nonprivate"])[float(lam)]
            lines.append(f"| {lam} | {acc:.3f} | " + " | ".join(f"{row[e]:.3f}" for e in TRAIN_EPS) + " | "
                         + " | ".join(f"{rel[e]:.3f}" for e in TRAIN_EPS) + " |")
        lines += ["", "Best lambda per epsilon (IQR): " + ", ".join(
            f"eps={e}: lambda={v['lambda']} (P = {v['p']:.3f})" for e, v in summary["train_best_iqr"].items()), ""]
    lines += ["![training-set privacy](train_privacy_vs_lambda.png)", ""]
    cl = summary["causallearn"]
    lines += ["## Against causal-learn's ANM", ""]
    if cl is None:
        lines += ["causal-learn is not installed: comparison skipped (`pip install causal-learn`)."]
    else:
        lines += [f"{cl['pairs']} pairs subsampled to N <= {cl['n_max']}: agreement of directions "
                  f"{cl['agreement']:.2f}; accuracy ours (KRR + HSIC score) {cl['accuracy_ours']:.2f}, causal-learn "
                  f"(GP + HSIC p-value) {cl['accuracy_causallearn']:.2f}; time ours {cl['seconds_ours']:.2f} s, "
                  f"causal-learn {cl['seconds_causallearn']:.2f} s."]
    lines += ["", "## Per pair (non-private accuracy +- std over splits; private P(correct) at eps = 1 and 10)", "",
              "| pair | n | truth | " + " | ".join(SCORES) + " | " + " | ".join(f"{s} eps=1/10" for s in SCORES) + " |",
              "|---" * (3 + 2 * len(SCORES)) + "|"]
    for r in per_pair:
        lines.append(f"| {r['pair']} | {r['n']} | {r['truth']} | " + " | ".join(
            f"{r['accuracy'][s]:.2f}+-{r['std'][s]:.2f}" for s in SCORES) + " | " + " | ".join(
            f"{r['private'][s][1.0]:.2f}/{r['private'][s][10.0]:.2f}" for s in SCORES) + " |")
    (out / "README.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
