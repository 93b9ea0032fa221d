"""Loaders for the UCI data sets in ``../shared/data/uci`` (binary splits documented per set).

Every loader returns a :class:`Dataset` (X float64 (m, d), y int8 in {-1, +1}), or ``None`` when the file is
absent (a user's clone has no ``../shared``): callers skip the set and say so.  ``breast_cancer`` ships with
scikit-learn and is always available.

Binary splits (the rado papers do not give them; these are ours, stated in ``Dataset.split``):

=============  ======  ===  ==================================================================
name           m       d    split (+1 / -1)
=============  ======  ===  ==================================================================
abalone        4177    8    rings > 9 / rings <= 9; sex coded M = +1, F = -1, I = 0 (one feature, d = 8 as nock2015)
wine_white     4898    11   quality >= 6 / quality < 6
banknote       1372    4    class 1 / class 0
transfusion    748     4    donated in March 2007 (target 1) / not
ionosphere     351     34   good (g) / bad (b)
sonar          208     60   mine (M) / rock (R)
haberman       306     3    died within 5 years (status 2) / survived (status 1)
pima           768     8    diabetes (1) / not (0)
breast_cancer  569     30   malignant / benign (scikit-learn's load_breast_cancer; target 0 = malignant)
=============  ======  ===  ==================================================================
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["Dataset", "DATA_DIR", "NAMES", "load", "load_all"]

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "uci"


@dataclass
class Dataset:
    name: str
    X: np.ndarray
    y: np.ndarray
    split: str
    source: str


def _rows(path: Path, skip_header: bool = False) -> list[list[str]]:
    with open(path, newline="") as handle:
        rows = [[cell.strip() for cell in row] for row in csv.reader(handle) if row and any(c.strip() for c in row)]
    return rows[1:] if skip_header else rows


def _numeric(rows, label_index=-1):
    X = np.array([[float(v) for i, v in enumerate(r) if i != (label_index % len(r))] for r in rows], dtype=np.float64)
    labels = [r[label_index] for r in rows]
    return X, labels


def _abalone(path):
    rows = _rows(path)
    sex = {"M": 1.0, "F": -1.0, "I": 0.0}
    X = np.array([[sex[r[0]]] + [float(v) for v in r[1:-1]] for r in rows])
    rings = np.array([int(r[-1]) for r in rows])
    return X, np.where(rings > 9, 1, -1)


def _wine(path):
    X, labels = _numeric(_rows(path))
    return X, np.where(np.array([float(v) for v in labels]) >= 6, 1, -1)


def _labelled(positive):
    def load(path):
        rows = _rows(path, skip_header=path.suffix == ".data")
        X, labels = _numeric(rows)
        return X, np.where(np.array(labels) == positive, 1, -1)
    return load


_SPECS = {
    "abalone": ("abalone.csv", _abalone, "rings > 9 (+1) vs <= 9; sex M/F/I -> +1/-1/0"),
    "wine_white": ("winequality-white.csv", _wine, "quality >= 6 (+1) vs < 6"),
    "banknote": ("banknote_authentication.csv", _labelled("1"), "class 1 (+1) vs 0"),
    "transfusion": ("transfusion.data", _labelled("1"), "donated March 2007 (+1) vs not"),
    "ionosphere": ("ionosphere.csv", _labelled("g"), "good g (+1) vs bad b"),
    "sonar": ("sonar.csv", _labelled("M"), "mine M (+1) vs rock R"),
    "haberman": ("haberman.csv", _labelled("2"), "died within 5 years, status 2 (+1) vs 1"),
    "pima": ("pima-indians-diabetes.csv", _labelled("1"), "diabetes 1 (+1) vs 0"),
}
NAMES = tuple(_SPECS) + ("breast_cancer",)


def load(name: str, data_dir: Path | str | None = None) -> Dataset | None:
    """The data set ``name`` (one of :data:`NAMES`), or None when its file is absent."""
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, target = load_breast_cancer(return_X_y=True)
        return Dataset(name, X.astype(np.float64), np.where(target == 0, 1, -1).astype(np.int8),
                       "malignant (+1) vs benign", "scikit-learn")
    if name not in _SPECS:
        raise ValueError(f"name must be one of {NAMES}, got {name!r}")
    filename, loader, split = _SPECS[name]
    path = Path(data_dir or DATA_DIR) / filename
    if not path.is_file():
        return None
    X, y = loader(path)
    return Dataset(name, X, y.astype(np.int8), split, str(path))


def load_all(names=NAMES, data_dir=None) -> tuple[list[Dataset], list[str]]:
    """(loaded data sets, names skipped because their file is absent)."""
    loaded, missing = [], []
    for name in names:
        ds = load(name, data_dir)
        (loaded if ds is not None else missing).append(ds if ds is not None else name)
    return loaded, missing
