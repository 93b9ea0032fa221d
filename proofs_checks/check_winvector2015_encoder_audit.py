"""winvector2015.laplace through the public ImpactEncoder: an empirical audit (proofs_checks/audit.py) of what
``ImpactEncoder(epsilon=...).fit`` releases on two neighbouring frames, that passes the encoder as built and
catches a mutant whose count sensitivity is halved (noise at half the scale the relation needs).

The released scalar is post-processing of the fitted coder only (``coders_``, the public release): with
``code="count"`` the coder's first column is the floored noisy n_pos of each level, so
``code[a, 0] - code[b, 0]`` is the statistic of ``check_winvector2015_laplace.py``'s audit, now read off the
encoder after its whole pipeline (exact_share, the public category list, the grid of the plan, the mechanism).
The neighbours are replace-one (row 0, a positive of level "a", becomes a positive of level "b"), the relation
the encoder defaults to; mode "naive" (one all-rows table) is audited because its coder exposes one noisy cell per
count, where the audit has power.  The noise is OS entropy (``insecure_noise_seed`` unset), as in production.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fast.impact_coding as ic
from fast import ImpactEncoder
from proofs_checks.audit import audit
from spec.links import checks

EPSILON = 1.0
N_AUDIT = 10_000


def _frames():
    """30 rows over the public levels a, b, c; frame 1 is frame 0 with row 0 (a, y=1) replaced by (b, y=1)."""
    levels = np.array(list("abc"))[np.arange(30) % 3]
    y = np.array([1, 0, 1, 0, 1] * 6)
    y[0] = 1
    x0 = pd.DataFrame({"c": levels})
    x1 = x0.copy()
    x1.iloc[0, 0] = "b"
    return {0.0: x0, 1.0: x1}, y


def _sampler():
    frames, y = _frames()

    def sample(x, n, rng):
        enc = ImpactEncoder(mode="naive", code="count", epsilon=EPSILON, categories=[list("abc")], classes=(0, 1))
        out = np.empty(n)
        for i in range(n):
            code = enc.fit(frames[x], y).coders_[0].code
            out[i] = code[0, 0] - code[1, 0]
        return out
    return sample


@pytest.mark.audit
@pytest.mark.slow
@checks("winvector2015.laplace")
def check_encoder_fit_audit_passes_and_catches_half_sensitivity(monkeypatch):
    """99% audit at N = 10,000 fits per frame (~1 min): the encoder at epsilon = 1 certifies no more than 1; the
    mutant whose count_sensitivity is halved (replace-one charged as 1: the note's [H] calibration, noise at half
    scale, exact loss 2) is caught (certified epsilon > 1)."""
    good = audit(_sampler(), 0.0, 1.0, N_AUDIT, rng=1)
    assert good.epsilon_lower <= EPSILON, good
    real = ic.count_sensitivity
    monkeypatch.setattr(ic, "count_sensitivity", lambda neighbouring="replace-one": real(neighbouring) // 2 or 1)
    bad = audit(_sampler(), 0.0, 1.0, N_AUDIT, rng=1)
    assert bad.epsilon_lower > EPSILON, bad
