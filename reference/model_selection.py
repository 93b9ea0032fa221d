"""Private model selection, pure Python (mirror of :mod:`fast.model_selection`; issue 26, item 4).

Mirrored here: the selection mechanism :func:`noisy_max_select` (report-noisy-max with exact discrete Laplace noise,
Dwork-Roth 2014 Claim 3.9) and :class:`Thresholdout` (the reusable holdout, Dwork, Feldman, Hardt, Pitassi,
Reingold, Roth, Science 2015).  Both take the same draws in the same order as ``fast`` from the same seeded
generator, so a seeded test compares them exactly.  The estimator-level helpers (``PrivateGridSearchCV``,
``thresholdout_forward_selection``) wrap scikit-learn and are fast-only, as the estimators are.

Thresholdout's integer calibration and privacy argument: ``spec.selection_contract`` (one definition for both).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reference import mechanisms as _mechanisms
from reference import private_boosting as _pb
from spec.boosting_contract import check_noisy_max_budget
from spec.budget_ledger import charge_release, outer_label, private_release
from spec.links import implements
from spec.privacy_contract import PrivacySpent, to_domain
from spec.selection_contract import check_rows, thresholdout_calibration, training_units
from spec.validation import as_float_vector, as_generator

__all__ = ["noisy_max_select", "noisy_max_select_epsilon", "Thresholdout"]


@implements("library.model_selection.noisy-max")
def noisy_max_select_epsilon(sensitivity, epsilon) -> Fraction:
    """epsilon_eff = 2 D / t <= epsilon: D = floor(Delta / 2^k) + 1 grid units, t = ceil(2 D / epsilon)
    (``mechanisms.laplace_grid`` at epsilon / 2)   [report-noisy-max, pure DP; Dwork-Roth 2014 Claim 3.9]

    Parameters
    ----------
    sensitivity : float > 0
    epsilon : float > 0

    Returns
    -------
    fractions.Fraction
        The delivered epsilon (exact), at most ``epsilon``.

    Raises
    ------
    TypeError, ValueError
        Non-positive or non-finite arguments.
    """
    e, sens = check_noisy_max_budget(epsilon, sensitivity)
    grid = _mechanisms.laplace_grid(sens, e / 2.0)
    return Fraction(2 * grid.integer_sensitivity, grid.scale)


@implements("library.model_selection.noisy-max")
@private_release
def noisy_max_select(scores, *, sensitivity, epsilon, rng=None, accountant=None) -> int:
    """argmax_c (round(q_c / 2^k) + Z_c), Z_c ~ DLap(t) iid, ties to the first index; charged 2D/t before any draw
    [report-noisy-max, Dwork-Roth 2014 Claim 3.9 (non-monotone form: scale 2D / epsilon)]

    Parameters
    ----------
    scores : array-like of shape (c,)
    sensitivity : float > 0
        Of every score (replace-one).
    epsilon : float > 0
    rng : None, int or numpy.random.Generator
        The PRIVATE noise's generator (None: OS entropy).
    accountant : None or a ledger
        Charged once (the default ledger when None).

    Returns
    -------
    int

    Raises
    ------
    TypeError, ValueError
        Bad scores or budget (nothing charged).
    BudgetExceeded
        The ledger cannot pay (nothing drawn).
    """
    q = as_float_vector(scores, "scores")
    eff = noisy_max_select_epsilon(sensitivity, epsilon)
    charge_release(accountant, eff, 0, eff * eff / 2, label=outer_label("noisy_max_select"))
    return _pb.report_noisy_max(q, sensitivity, epsilon, rng=rng)


def _length(data) -> int:
    first = data[0] if isinstance(data, tuple) else data
    return len(first)


def _call(phi, data, n: int):
    """phi's values on ``data``; if phi raises on the whole set, row by row, a row on which it raises reading NaN
    (the domain's centre) -- as fast.model_selection."""
    try:
        return phi(*data) if isinstance(data, tuple) else phi(data)
    except Exception:  # noqa: BLE001
        out = []
        for i in range(n):
            row = tuple(a[i:i + 1] for a in data) if isinstance(data, tuple) else data[i:i + 1]
            try:
                value = np.asarray(phi(*row) if isinstance(row, tuple) else phi(row), dtype=np.float64).reshape(-1)
                out.append(float(value[0]) if value.shape == (1,) else math.nan)
            except Exception:  # noqa: BLE001
                out.append(math.nan)
        return np.array(out, dtype=np.float64)


def _units(values, n: int, g: int, name: str) -> list:
    """u_i = floor(v_i G), v_i the value in the declared domain [0, 1] (NaN and non-numbers: 1/2)."""
    v = to_domain(values, name, low=0.0, high=1.0)
    if v.shape[0] != n:
        raise ValueError(f"{name} must give one value per row ({n}), got {v.shape[0]}")
    return [math.floor(float(x) * g) for x in v.tolist()]


class Thresholdout:
    """The reusable holdout   [Dwork, Feldman, Hardt, Pitassi, Reingold, Roth, Science 349 (2015) 636; algorithm as
    in the NIPS 2015 companion: gamma ~ Lap(2 sigma), eta ~ Lap(4 sigma), xi ~ Lap(sigma)]

    As :class:`fast.model_selection.Thresholdout` (same parameters, attributes, draws and answers); see
    ``spec.selection_contract`` for the integer calibration and the privacy proof ((2B/(sigma n), 0)-DP for the
    holdout under replace-one).

    Parameters
    ----------
    train, holdout : array or tuple of arrays
    threshold : float >= 0
    sigma : float > 0
    budget : int >= 1
    resolution : int, power of two, default=2**16
    rng : None, int or numpy.random.Generator
    accountant : None or a ledger
    """

    @implements("library.model_selection.thresholdout-privacy")
    def __init__(self, train, holdout, *, threshold, sigma, budget, resolution=2**16, rng=None, accountant=None):
        self.calibration = thresholdout_calibration(threshold, sigma, budget, resolution, _length(holdout))
        self._n_train = check_rows(_length(train), self.calibration.resolution, "train")
        self._train, self._holdout = train, holdout
        self._gen = None if rng is None else as_generator(rng)
        self._accountant = accountant
        self.remaining = int(budget)
        self._gamma = None
        self.spent_epsilon = Fraction(0)
        self.epsilon_bound = self.calibration.epoch_epsilon * int(budget)
        self.n_queries = 0
        self.n_answers = 0

    def _draw(self, t: int) -> int:
        return int(_mechanisms.sample_discrete_laplace(t, rng=self._gen))

    @private_release
    def query(self, phi):
        """E_{S_t}[phi], or E_{S_h}[phi] + xi when |E_{S_h}[phi] - E_{S_t}[phi]| > T + gamma + eta, or None when the
        budget is spent (each epoch charged before its gamma is drawn).

        Parameters
        ----------
        phi : callable
            ``phi(*data)`` -> one value in [0, 1] per row.

        Returns
        -------
        float or None
        """
        if self.remaining < 1:
            return None
        cal = self.calibration
        g, n = cal.resolution, cal.n
        u_t = sum(_units(_call(phi, self._train, self._n_train), self._n_train, g, "phi(train)"))
        h = sum(_units(_call(phi, self._holdout, n), n, g, "phi(holdout)"))
        self.n_queries += 1
        if self._gamma is None:
            eps = cal.epoch_epsilon
            charge_release(self._accountant, eps, 0, eps * eps / 2, label=outer_label("Thresholdout"))
            self.spent_epsilon += eps
            self._gamma = self._draw(cal.t1)
        eta = self._draw(cal.t2)
        q = abs(h - training_units(u_t, self._n_train, n))
        if q + eta > cal.threshold_units + self._gamma:
            xi = self._draw(cal.t3)
            self.remaining -= 1
            self.n_answers += 1
            self._gamma = None
            return float(Fraction(h + xi, n * g))
        return float(Fraction(u_t, self._n_train * g))

    def privacy_spent(self) -> PrivacySpent:
        """What the epochs started so far cost (replace-one of a holdout row)."""
        return PrivacySpent.delivered(
            self.spent_epsilon, 0, neighbouring="replace-one (one row of the holdout; training set and n public)",
            accounting=(f"{int(self.spent_epsilon / self.calibration.epoch_epsilon)} epochs of AboveThreshold + "
                        f"one Laplace answer at eps_epoch = {float(self.calibration.epoch_epsilon):.6g} "
                        f"(<= 2/(sigma n)), basic composition"))
