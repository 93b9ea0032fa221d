"""PrivateANM: a differentially private additive-noise-model estimator (kusner2016 ch4), and a batch helper.

>>> est = PrivateANM("kendall", epsilon=1.0, rng=0).fit(x, y)        # doctest: +SKIP
>>> est.direction_, est.private_scores_, est.prob_agree_              # doctest: +SKIP

Privacy models (the thesis's two, s4.1.7 and s4.1.8):

* ``privacy="test"`` (default): the training set is public, the test set private.  Spearman / Kendall / HSIC scores
  are released with the Laplace mechanism at the global sensitivity (``2 epsilon`` for the pair of scores); the IQR
  score releases four log-IQRs by propose-test-release (``12 epsilon, 4 delta``).  The split is random, so a record
  is in the test set or not; the guarantee is stated for the test set, as in the thesis.
* ``privacy="train"``: the test set is public, the training set private.  Needs ``|x|, |y| <= 1`` and fixed
  bandwidths (``bandwidth`` a number).  HSIC: Laplace at the (corrected) Theorem 9 sensitivity (``2 epsilon``);
  Spearman / Kendall: stability-based release (Dwork-Roth Alg. 13) with the distance lower bound of s4.1.8
  (``2 epsilon, 2 delta``); IQR: ln IQR(x'), ln IQR(y') exact (test data, public here) and the two residual
  log-IQRs by propose-test-release with A_j counted in training substitutions (each moves the residual IQR by
  <= 2 R_n): ``6 epsilon, 2 delta``; ``prob_agree_`` is then Theorem 4's (two Laplace terms, scale 1/epsilon).

Attributes after ``fit``: ``direction_`` ("x->y", "y->x" or "undecided" when a release returned bottom or the
private scores tie), ``private_scores_`` (released; None where bottom), ``sensitivity_``, ``epsilon_spent_``,
``delta_spent_``, and two NON-private diagnostics for evaluation only (they read the data without noise; never
publish them): ``scores_`` (the exact scores) and ``prob_agree_`` (the closed-form probability that the private
decision equals the non-private one: Theorem 4 or 6.2; None where no closed form applies).  ``prob_correct(truth)``
gives the probability of the true direction ("x->y" or "y->x").
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from fast import causal, causal_privacy
from spec.causal_validation import (
    DIRECTIONS,
    HSIC_BOUNDS,
    SPEARMAN_BOUNDS,
    THRESHOLDS,
    check_bandwidth_or_median,
    check_choice,
    check_delta,
    check_lam,
    check_score,
    check_test_fraction,
    check_unit_bounded,
)
from spec.validation import as_float_vector, as_generator, check_positive

__all__ = ["PrivateANM", "PairResult", "infer_directions"]


def _decide(p_xy, p_yx) -> str:
    """Algorithm 3's rule on the released scores; "undecided" where a release returned bottom (None)."""
    if p_xy is None or p_yx is None:
        return DIRECTIONS[2]
    return causal._decide(p_xy, p_yx)


class PrivateANM:
    """Private ANM causal direction (kusner2016 Algorithm 3 with the releases of s4.1.7-4.1.8)."""

    def __init__(self, score="kendall", *, epsilon=1.0, delta=1e-6, privacy="test", lam=causal.DEFAULT_LAM,
                 bandwidth="median", hsic_bandwidth=causal.HSIC_BANDWIDTH, test_fraction=0.5,
                 spearman_bound="proof", hsic_bound="entrywise", ptr_threshold="corrected", rng=None):
        self.score = check_score(score)
        self.epsilon = check_positive(epsilon, "epsilon")
        self.delta = check_delta(delta)
        self.privacy = check_choice(privacy, "privacy", ("test", "train"))
        self.lam = check_lam(lam)
        self.bandwidth = check_bandwidth_or_median(bandwidth)
        self.hsic_bandwidth = check_positive(hsic_bandwidth, "hsic_bandwidth")
        self.test_fraction = check_test_fraction(test_fraction)
        self.spearman_bound = check_choice(spearman_bound, "spearman_bound", SPEARMAN_BOUNDS)
        self.hsic_bound = check_choice(hsic_bound, "hsic_bound", HSIC_BOUNDS)
        self.ptr_threshold = check_choice(ptr_threshold, "ptr_threshold", THRESHOLDS)
        if self.privacy == "train":
            if self.bandwidth == "median":
                raise ValueError("privacy='train' needs a fixed regression bandwidth (a number), not 'median': "
                                 "a data-dependent bandwidth voids Theorem 7")
        self.rng = rng

    # ------------------------------------------------------------------ helpers
    def _score(self, a, b):
        return causal.dependence_score(a, b, self.score, bandwidth_a=self.hsic_bandwidth,
                                       bandwidth_b=self.hsic_bandwidth)

    def _test_sensitivity(self, m):
        if self.score == "spearman":
            return causal_privacy.spearman_sensitivity(m, bound=self.spearman_bound)
        if self.score == "kendall":
            return causal_privacy.kendall_sensitivity(m)
        return causal_privacy.hsic_sensitivity(m, bound=self.hsic_bound)

    # ------------------------------------------------------------------ fit
    def fit(self, x, y):
        x = as_float_vector(x, "x")
        y = as_float_vector(y, "y")
        if x.shape[0] != y.shape[0]:
            raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
        if self.privacy == "train":
            check_unit_bounded(x, "x")
            check_unit_bounded(y, "y")
        gen = None if self.rng is None else as_generator(self.rng)
        split_rng = gen if gen is not None else np.random.default_rng()
        x_tr, y_tr, x_te, y_te = causal.train_test_split(x, y, test_fraction=self.test_fraction, rng=split_rng)
        r_y, r_x = causal.anm_residuals(x_tr, y_tr, x_te, y_te, lam=self.lam, bandwidth=self.bandwidth)
        m, n = x_te.shape[0], x_tr.shape[0]
        self.n_train_, self.m_test_ = n, m
        self.prob_agree_ = None
        if self.score == "iqr":
            self._fit_iqr(x_te, y_te, r_y, r_x, gen, n)
        else:
            s_xy, s_yx = self._score(x_te, r_y), self._score(y_te, r_x)
            self.scores_ = (s_xy, s_yx)
            if self.privacy == "test" or self.score == "hsic":
                if self.privacy == "test":
                    sens = self._test_sensitivity(m)
                else:
                    sens = causal_privacy.hsic_train_sensitivity(m, n, self.lam, bandwidth=self.hsic_bandwidth)
                self.sensitivity_ = sens
                self.private_scores_ = causal_privacy.laplace_scores(s_xy, s_yx, sensitivity=sens,
                                                                     epsilon=self.epsilon, rng=gen)
                self.epsilon_spent_, self.delta_spent_ = 2.0 * self.epsilon, 0.0
                self.prob_agree_ = causal_privacy.prob_correct_laplace(abs(s_yx - s_xy), sens / self.epsilon)
            else:  # rank score, training-set privacy: stability-based release of each score
                self.sensitivity_ = causal_privacy.residual_sensitivity(n, self.lam)
                released = []
                for s, r in ((s_xy, r_y), (s_yx, r_x)):
                    d = causal_privacy.rank_instability_distance(r, n=n, lam=self.lam)
                    released.append(causal_privacy.stability_release(s, d, epsilon=self.epsilon, delta=self.delta,
                                                                     rng=gen))
                self.private_scores_ = tuple(released)
                self.epsilon_spent_, self.delta_spent_ = 2.0 * self.epsilon, 2.0 * self.delta
        self.direction_ = _decide(*self.private_scores_)
        return self

    def _fit_iqr(self, x_te, y_te, r_y, r_x, gen, n):
        qs = [causal.iqr(v) for v in (x_te, r_y, y_te, r_x)]
        self.scores_ = (causal.iqr_score(x_te, r_y), causal.iqr_score(y_te, r_x)) if min(qs) > 0 else (None, None)
        if self.privacy == "test":
            released = [causal_privacy.iqr_ptr(v, epsilon=self.epsilon, delta=self.delta, rng=gen,
                                               threshold=self.ptr_threshold) for v in (x_te, r_y, y_te, r_x)]
            self.sensitivity_ = 1.0  # of ln IQR inside a bin (PTR)
            self.epsilon_spent_, self.delta_spent_ = causal_privacy.iqr_decision_privacy(self.epsilon, self.delta)
            closed_form = causal_privacy.prob_correct_four_laplace
        else:  # training-set privacy: only the residual IQRs read the training set
            released = []
            for v, public in ((r_y, x_te), (r_x, y_te)):
                q = causal.iqr(public)
                released.append(math.log(q) if q > 0 else None)
                released.append(causal_privacy.iqr_train_ptr(v, n=n, lam=self.lam, epsilon=self.epsilon,
                                                             delta=self.delta, rng=gen, threshold=self.ptr_threshold))
            self.sensitivity_ = 2.0 * causal_privacy.residual_sensitivity(n, self.lam)  # of the residual IQR
            self.epsilon_spent_, self.delta_spent_ = causal_privacy.iqr_train_decision_privacy(self.epsilon,
                                                                                               self.delta)
            closed_form = causal_privacy.prob_correct_laplace
        if any(r is None for r in released):
            self.private_scores_ = (None, None)
        else:
            self.private_scores_ = (released[0] + released[1], released[2] + released[3])
        if self.scores_[0] is not None:
            self.prob_agree_ = closed_form(abs(self.scores_[1] - self.scores_[0]), 1.0 / self.epsilon)

    def prob_correct(self, truth):
        """P(private decision == truth) from the closed form (Theorem 4 / 6.2 and their mirror for a wrong order).
        A non-private diagnostic; None where no closed form applies (stability release, IQR = 0)."""
        truth = check_choice(truth, "truth", DIRECTIONS[:2])
        if self.prob_agree_ is None:
            return None
        s_xy, s_yx = self.scores_
        agree_with_truth = (s_xy < s_yx) == (truth == "x->y") and s_xy != s_yx
        return self.prob_agree_ if agree_with_truth else 1.0 - self.prob_agree_


@dataclass(frozen=True)
class PairResult:
    """One pair of the batch: the private direction, and the non-private diagnostics."""

    direction: str
    private_scores: tuple
    scores: tuple
    prob_agree: float | None
    epsilon_spent: float
    delta_spent: float


def infer_directions(pairs, score="kendall", *, progress=False, rng=None, **options):
    """Fit a PrivateANM on each (x, y) of ``pairs`` (an iterable); options as for PrivateANM.  A progress bar
    (tqdm) when ``progress=True``.  One Generator (from ``rng``) drives every pair in turn."""
    gen = None if rng is None else as_generator(rng)
    pairs = list(pairs)
    out = []
    for x, y in tqdm(pairs, disable=not progress, desc=f"private ANM ({score})"):
        est = PrivateANM(score, rng=gen, **options).fit(x, y)
        out.append(PairResult(est.direction_, est.private_scores_, est.scores_, est.prob_agree_,
                              est.epsilon_spent_, est.delta_spent_))
    return out
