"""diffprivlib's DP LogisticRegression on the same Adult features as experiments/private_boosting.py.

diffprivlib 0.6.6 needs scikit-learn < 1.6 (it imports sklearn.tree._tree.DOUBLE), which conflicts with this
project's environment, so this script runs in a SEPARATE virtual environment:

    python3 -m venv /tmp/dpl && /tmp/dpl/bin/pip install diffprivlib "scikit-learn<1.6"
    /tmp/dpl/bin/python experiments/private_boosting_diffprivlib.py

It imports only numpy, scikit-learn and diffprivlib (the Adult loader of experiments/private_boosting.py is pure
numpy) and writes docs/experiments/private_boosting/diffprivlib.json.  diffprivlib's LogisticRegression is
epsilon-DP (objective perturbation, Chaudhuri et al.) given data_norm; we pass the same public data_norm as our
halfspace learner, so the clipping is data-independent.
"""
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from experiments.private_boosting import CATEGORICAL, EPSILONS, NUMERIC, OUT, load_adult  # noqa: E402


def main():
    import warnings

    from diffprivlib.models import LogisticRegression

    warnings.simplefilter("ignore")
    Xtr, ytr, Xte, yte = load_adult()
    norm = math.sqrt(1 + len(NUMERIC) + len(CATEGORICAL))
    out = {}
    for e in EPSILONS:
        errs = []
        t = time.perf_counter()
        for seed in range(3):
            clf = LogisticRegression(epsilon=e, data_norm=norm, random_state=seed, max_iter=1000).fit(Xtr, ytr)
            errs.append(float(np.mean(clf.predict(Xte) != yte)))
        out[e] = {"error_mean_of_3": float(np.mean(errs)), "errors": errs, "seconds": time.perf_counter() - t}
    (OUT / "diffprivlib.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
