"""The experiments of nock2015 s4 (Table 1) and nock2016 s5 (Table 2): printed-table arithmetic, a smoke run of
experiments/rado_boosting.py, and the committed full-run results compared with the papers' numbers."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import experiments.uci
from experiments import rado_boosting
from spec.links import checks

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "experiments" / "rado_boosting" / "results.json"

#: nock2015 Table 1 as printed: (domain, m, d, n/m)
TABLE1 = [("Abalone", 4177, 8, 0.24), ("Wine-white", 4898, 11, 0.20), ("Magic", 19020, 10, 0.05),
          ("EEG", 14980, 14, 0.07), ("Hardware", 28179, 95, 0.04), ("Twitter", 583250, 77, 1e-3),
          ("SuSy", 5_000_000, 17, 2e-4), ("Higgs", 11_000_000, 28, 9e-5)]


@checks("nock2015.exp.setup", "nock2016.sec5.setup")
def test_quick_run_writes_tables_and_plots_and_skips_missing_data(tmp_path, monkeypatch):
    monkeypatch.setattr(experiments.uci, "DATA_DIR", tmp_path / "absent")  # as in a clone without ../shared
    results = rado_boosting.main(["--quick", "--out", str(tmp_path)])  # breast_cancer + haberman, 3 folds, T = 30
    assert results["missing"] == ["haberman"]
    entry = results["domains"]["breast_cancer"]
    for method in ("RadoBoost", "AdaBoost", "AdaBoost(n)", "sklearn LR", "sklearn AdaBoost", "Omega:slope"):
        assert len(entry["errors"][method]) == 3 and all(0 <= e <= 100 for e in entry["errors"][method])
    assert 0 <= entry["p"]["p"] <= 1
    text = (tmp_path / "results.md").read_text()
    assert "Skipped (absent from ../shared): haberman" in text and "Win matrix" in text
    assert (tmp_path / "table1_errors.png").stat().st_size > 0 and (tmp_path / "omega_sparsity.png").is_file()
    json.loads((tmp_path / "results.json").read_text())


@checks("nock2015.table1")
def test_table1_printed_arithmetic():
    dm = [m * d for _, m, d, _ in TABLE1]
    assert dm == sorted(dm)  # "ranked by increasing d*m"
    for name, m, d, ratio in TABLE1:
        # the n/m column is n/(domain size) with n = 1000, not n/(training fold) as the caption says
        unit = 10 ** np.floor(np.log10(ratio))
        assert abs(1000 / m - ratio) < unit, name  # rounded or truncated to one digit
    for name, m, _, ratio in TABLE1[:2]:
        assert abs(1000 / (0.9 * m) - ratio) > 0.005, name  # the fold-size reading does not fit


@checks("nock2016.table2")
def test_table2_printed_consistency():
    paper = rado_boosting.PAPER_TABLE2
    algos = list(paper)
    for a in algos:
        for b in algos:
            if a < b:
                assert paper[a][b] + paper[b][a] <= 20
    assert all(paper["Ada"][r] <= 10 for r in ("ridge", "lasso", "linf", "slope"))  # no majority for Ada
    assert paper["slope"]["none"] == 19  # "virtually always beaten by SLOPE"


def _committed():
    if not RESULTS.is_file():
        pytest.skip("docs/experiments/rado_boosting/results.json not generated")
    return json.loads(RESULTS.read_text())


@checks("nock2015.table1.row1", "nock2015.table1.row2", "nock2015.table1")
@pytest.mark.parametrize("domain", ["abalone", "wine_white"])
def test_table1_rows_reproduced_within_one_fold_sd(domain):
    res = _committed()["domains"].get(domain)
    if res is None:
        pytest.skip(f"{domain} was not in the committed run")
    paper = rado_boosting.PAPER_TABLE1[domain]
    for method in ("AdaBoost", "AdaBoost(n)", "RadoBoost"):
        ours = np.array(res["errors"][method])
        mean_p, sd_p = paper[method]
        assert abs(ours.mean() - mean_p) <= max(sd_p, ours.std(ddof=1)), (method, ours.mean(), mean_p)
    # sign and significance of RadoBoost - AdaBoost: worse, p < 0.01, as printed
    assert np.mean(res["errors"]["RadoBoost"]) > np.mean(res["errors"]["AdaBoost"])
    assert res["p"]["p"] < 0.05  # printed: < 0.01; ours: abalone 0.02, wine-white < 0.01


@checks("nock2015.exp.claims")
def test_radoboost_vs_adaboost_on_our_domains():
    """'RadoBoost compares favourably to AdaBoost': on our (small) domains it does not; recorded as found."""
    doms = _committed()["domains"]
    better = [n for n, e in doms.items() if np.mean(e["errors"]["RadoBoost"]) < np.mean(e["errors"]["AdaBoost"])]
    assert len(doms) >= 1
    assert len(better) <= len(doms) // 2, better  # a minority: the claim does not carry over to small domains


@checks("nock2016.sec5.claims")
def test_regularisation_effect_on_our_domains():
    """'Regularisation consistently reduces the test error; none virtually always beaten by SLOPE'."""
    doms = _committed()["domains"]
    mean = {n: {r: np.mean(e["errors"][f"Omega:{r}"]) for r in ("none", "ridge", "lasso", "linf", "slope")}
            for n, e in doms.items()}
    best_reg_better = sum(min(v[r] for r in ("ridge", "lasso", "linf", "slope")) < v["none"] for v in mean.values())
    slope_better = sum(v["slope"] < v["none"] for v in mean.values())
    # the best regulariser (chosen on test, as the paper's summary does) beats none on most domains, but SLOPE
    # alone does not beat none 'virtually always'
    assert best_reg_better >= len(mean) // 2
    assert slope_better < len(mean) - 1


def test_uci_loaders_shapes_and_splits(shared_data):
    expected = {"abalone": (4177, 8), "wine_white": (4898, 11), "banknote": (1372, 4), "transfusion": (748, 4),
                "ionosphere": (351, 34), "sonar": (208, 60), "haberman": (306, 3), "pima": (768, 8),
                "breast_cancer": (569, 30)}
    loaded, missing = experiments.uci.load_all(data_dir=shared_data / "uci")
    assert not missing
    for ds in loaded:
        assert ds.X.shape == expected[ds.name] and ds.X.dtype == np.float64 and np.isfinite(ds.X).all()
        assert set(np.unique(ds.y)) == {-1, 1} and ds.y.dtype == np.int8 and ds.split
    with pytest.raises(ValueError, match="name must be one of"):
        experiments.uci.load("magic")


@checks("nock2016.thm9")
def test_footnote5_gammas_use_the_checked_ridge_constant():
    """experiments' gamma(a) (brentq, float) = proofs_checks' gamma(a) (mpmath, 40 digits), and the committed
    footnote-5 figures quoted in the nock2016.thm9 finding are gamma(a) of the committed a."""
    import mpmath

    from proofs_checks.check_radoboost import ridge_gamma as exact_gamma

    with mpmath.workdps(40):
        for a in (1 / 7, 1 / 10, 0.129, 0.176, 0.19):
            assert rado_boosting.ridge_gamma(a) == pytest.approx(exact_gamma(mpmath.mpf(a)), rel=1e-12), a
    for name, entry in _committed()["domains"].items():
        a, gamma = entry["thm9_omega1"]["a"], entry["thm9_omega1"]["gamma"]
        assert gamma == (rado_boosting.ridge_gamma(a) if a < 0.2 else None), name
