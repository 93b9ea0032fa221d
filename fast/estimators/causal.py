"""PrivateANM: a differentially private additive-noise-model estimator (kusner2016 ch4), a batch helper, and the
explicitly NON-private diagnostics used for research.

>>> est = PrivateANM("kendall", epsilon=1.0, random_state=0).fit(x, y)      # doctest: +SKIP
>>> est.direction_, est.private_scores_, est.privacy_spent_                  # doctest: +SKIP
>>> nonprivate_diagnostics(est, x, y).prob_agree  # NOT private         # doctest: +SKIP

The privacy contract (``spec/privacy_contract.py``): ``epsilon`` and ``delta`` are the TOTAL budget of the fit; the
estimator splits it over its releases; the noise comes from OS entropy whatever ``random_state`` says
(``random_state`` seeds only the train/test split, which is not a privacy mechanism here: the guarantee is stated
for the protected half whatever the split); ``insecure_noise_seed`` (tests only, warns) makes the noise
reproducible; ``privacy_spent_`` reports what was spent; the fitted object keeps no exact score.

Privacy models (the thesis's two, s4.1.7 and s4.1.8), and the split of the total (epsilon, delta):

* ``privacy="test"`` (default): the training set is public, the test set private (replace-one on the test half).
  Spearman / Kendall / HSIC: the two scores by the Laplace mechanism at the global sensitivity, epsilon/2 each.
  IQR: four log-IQRs by propose-test-release, each (3 e, d)-DP with e = epsilon/12, d = delta/4.
* ``privacy="train"``: the test set is public, the training set private (replace-one on the training half).  Needs
  ``|x|, |y| <= 1`` (values outside are clamped to [-1, 1], see below) and a fixed ``bandwidth``.  HSIC: Laplace at the (corrected) Theorem 9 sensitivity, epsilon/2
  per score; Spearman / Kendall: stability-based release (Dwork-Roth Alg. 13), (epsilon/2, delta/2) per score; IQR:
  the two residual log-IQRs by propose-test-release, each (3 e, d) with e = epsilon/6, d = delta/2.

Declared value domains (issue 25: one record's value never decides whether a fit fails): x and y are mapped into
the public domain before anything reads them (``spec.privacy_contract.to_domain``): [-1, 1] under
``privacy="train"`` (Theorem 7's assumption; it was a ValueError), [-2^512, 2^512] under ``privacy="test"``
(``spec.causal_validation.PRIVATE_VALUE_BOUND``: every intermediate, residuals and their IQR included, stays finite;
a record at 1e308 made the residuals inf, and at -1e308 the IQR's bins overflowed); a value beyond is clamped to the
nearer end, NaN and anything that is not a real number (None, a str in a list) is read as 0.  Only the dtype and
shape are checked (a str or datetime dtype is a schema error).

Attributes after ``fit``: ``direction_`` ("x->y", "y->x" or "undecided" when a release returned bottom or the
private scores tie), ``private_scores_`` (released; None where bottom), ``sensitivity_`` (data-independent),
``n_train_``, ``m_test_`` and ``privacy_spent_``.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from sklearn.base import BaseEstimator
from tqdm.auto import tqdm

from fast import causal, causal_privacy
from fast._contracts.causal_validation import (
    DIRECTIONS,
    HSIC_BOUNDS,
    PRIVATE_VALUE_BOUND,
    SPEARMAN_BOUNDS,
    THRESHOLDS,
    UNIT_BOUND,
    check_bandwidth_or_median,
    check_choice,
    check_lam,
    check_score,
    check_test_fraction,
    private_values,
)
from fast._contracts.budget_ledger import private_release
from fast._contracts.privacy_contract import (PrivacySpent, charge_fit, check_total_budget, exact_share, noise_rng,
                                              refuse_seeded_charge, reported_spent)
from fast._contracts.validation import check_positive

__all__ = ["PrivateANM", "PairResult", "ANMDiagnostics", "infer_directions", "nonprivate_diagnostics",
           "ANMNoiseReport", "ANMNoiseWarning", "anm_noise", "warn_if_anm_noise"]

_RENAMED = {"rng": "random_state= (the split; non-private) and, for tests only, insecure_noise_seed= (the noise)"}


def _decide(p_xy, p_yx) -> str:
    """Algorithm 3's rule on the released scores; "undecided" where a release returned bottom (None)."""
    if p_xy is None or p_yx is None:
        return DIRECTIONS[2]
    return causal._decide(p_xy, p_yx)


def _split_generator(random_state) -> np.random.Generator:
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.int64))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0:
        return np.random.default_rng(int(random_state))
    raise ValueError(f"random_state must be None, an int >= 0, a RandomState or a Generator, got {random_state!r}")


class PrivateANM(BaseEstimator):
    """Private ANM causal direction (kusner2016 Algorithm 3 with the releases of s4.1.7-4.1.8).

    Defaults (issue 26 review: kept, on the evidence of docs/experiments/causal/README.md, the 99 Tuebingen pairs,
    5 random 50/50 splits each).  ``score="kendall"`` with ``privacy="test"``: the probability of the right private
    decision at epsilon = 1 is 0.550 for Kendall against 0.527 (Spearman), 0.503 (HSIC) and 0.495 (IQR), and Kendall
    leads at epsilon 0.1 and 2 too (0.514, 0.555); HSIC is the best NON-private score (0.578 vs 0.562) but its
    sensitivity drowns it.  ``privacy="train"`` (HSIC) stays at 0.500-0.506 at epsilon <= 1 for every lambda up to
    1e4, so the test-half guarantee is the default.  ``lam=1e-3``, ``bandwidth="median"``, ``test_fraction=0.5``
    are the protocol those numbers were measured with (kusner2016 s4.1.9's).

    Parameters
    ----------
    score : {"spearman", "kendall", "hsic", "iqr"}
        The dependence score.
    epsilon : float
        The TOTAL epsilon of the fit (finite, > 0), split internally over the releases (module docstring).
    delta : float
        The TOTAL delta in [0, 1) (used by propose-test-release and the stability release; the Laplace releases
        spend 0).
    privacy : {"test", "train"}
        Which half of the data is protected (replace-one on that half).
    lam, bandwidth, hsic_bandwidth, test_fraction, spearman_bound, hsic_bound
        As ``fast.causal`` / ``fast.causal_privacy``.
    ptr_threshold : {"corrected"}
        The propose-test-release threshold of the IQR score; "thesis" (the printed one, which leaks) is refused.
    random_state : None, int, RandomState or Generator
        Seeds the train/test split only (non-private randomness).
    insecure_noise_seed : None or int
        None (default, the only private value): the noise reads OS entropy.  An int makes the noise reproducible
        and the output NOT private (tests only; warns :class:`spec.privacy_contract.InsecureNoiseWarning`):
        ``privacy_spent_`` then reports no guarantee (epsilon = inf, delta = 1, with the reason), and
        ``fit(..., accountant=...)`` is refused (ValueError, before anything is drawn).

    Attributes
    ----------
    direction_ : str
    private_scores_ : tuple
    sensitivity_ : float
    n_train_, m_test_ : int
    noise_report_ : ANMNoiseReport or None
        The expected noise of the Laplace score releases against the public score range, from public quantities
        only (:func:`anm_noise`; None for the IQR score and the rank scores under ``privacy="train"``, which
        release no Laplace-noised score); fit warns :class:`ANMNoiseWarning` when it is ``dominated`` (issue 28
        item 6).
    privacy_spent_ : spec.privacy_contract.PrivacySpent

    Raises
    ------
    ValueError, TypeError
        At ``fit``, for a bad parameter (before the data is read) or bad data.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, 400); y = x ** 3 + 0.1 * rng.uniform(-1, 1, 400)
    >>> est = PrivateANM("kendall", epsilon=2.0, bandwidth=0.3, random_state=0).fit(x, y)
    >>> est.privacy_spent_.epsilon <= 2.0  # the delivered epsilon (the exact grid's), within the grant
    True
    """

    def __new__(cls, *args, **kwargs):
        for old, new in _RENAMED.items():
            if old in kwargs:
                raise TypeError(f"PrivateANM({old}=...) is gone: use {new}")
        return super().__new__(cls)

    def __init__(self, score="kendall", *, epsilon=1.0, delta=1e-6, privacy="test", lam=causal.DEFAULT_LAM,
                 bandwidth="median", hsic_bandwidth=causal.HSIC_BANDWIDTH, test_fraction=0.5,
                 spearman_bound="proof", hsic_bound="entrywise", ptr_threshold="corrected", random_state=None,
                 insecure_noise_seed=None):
        self.score = score
        self.epsilon = epsilon
        self.delta = delta
        self.privacy = privacy
        self.lam = lam
        self.bandwidth = bandwidth
        self.hsic_bandwidth = hsic_bandwidth
        self.test_fraction = test_fraction
        self.spearman_bound = spearman_bound
        self.hsic_bound = hsic_bound
        self.ptr_threshold = ptr_threshold
        self.random_state = random_state
        self.insecure_noise_seed = insecure_noise_seed

    # ------------------------------------------------------------------ parameters
    def _validated(self) -> dict:
        """Every parameter checked (scikit-learn: at fit, not in __init__), before the data is read."""
        p = {"score": check_score(self.score)}
        p["epsilon"], p["delta"] = check_total_budget(self.epsilon, self.delta)
        p["privacy"] = check_choice(self.privacy, "privacy", ("test", "train"))
        p["lam"] = check_lam(self.lam)
        p["bandwidth"] = check_bandwidth_or_median(self.bandwidth)
        p["hsic_bandwidth"] = check_positive(self.hsic_bandwidth, "hsic_bandwidth")
        p["test_fraction"] = check_test_fraction(self.test_fraction)
        p["spearman_bound"] = check_choice(self.spearman_bound, "spearman_bound", SPEARMAN_BOUNDS)
        p["hsic_bound"] = check_choice(self.hsic_bound, "hsic_bound", HSIC_BOUNDS)
        p["ptr_threshold"] = check_choice(self.ptr_threshold, "ptr_threshold", THRESHOLDS)
        if p["privacy"] == "train" and p["bandwidth"] == "median":
            raise ValueError("privacy='train' needs a fixed regression bandwidth (a number), not 'median': "
                             "a data-dependent bandwidth voids Theorem 7")
        if p["score"] == "iqr" and p["ptr_threshold"] != "corrected":
            raise ValueError(
                f"ptr_threshold={p['ptr_threshold']!r} is the thesis's printed propose-test-release threshold, which "
                "leaks (an unstable release w.p. ~delta^eps, not delta: registry kusner2016.ch4.thm6_1 and "
                "kusner2016.ch4.iqr_train), so a private fit could not report its guarantee; use 'corrected' (for "
                "research, fast.causal_privacy.iqr_ptr(threshold='thesis') is not an estimator)")
        if (p["score"] == "iqr" or (p["privacy"] == "train" and p["score"] != "hsic")) and p["delta"] == 0:
            raise ValueError("delta must be > 0 for this score and privacy model (propose-test-release / stability "
                             "release are (epsilon, delta)-DP only), got 0")
        if not isinstance(self.random_state, np.random.Generator):
            _split_generator(self.random_state)  # validates (an int or None costs nothing to build)
        if self.insecure_noise_seed is not None and (
                isinstance(self.insecure_noise_seed, bool) or not isinstance(self.insecure_noise_seed, numbers.Integral)
                or self.insecure_noise_seed < 0):
            raise ValueError(f"insecure_noise_seed must be None or an int >= 0, got {self.insecure_noise_seed!r}")
        return p

    def _budget(self, p) -> tuple[float, float, str]:
        """(epsilon per Laplace draw, delta per release, how the releases compose) for the split of the TOTAL.

        Every per-release share is the largest double whose multiple stays within the total EXACTLY."""
        E, D = p["epsilon"], p["delta"]
        if p["score"] == "iqr":
            if p["privacy"] == "test":
                return exact_share(E, 12), D / 4, "four propose-test-release log-IQRs (kusner2016 s4.1.7, corrected)"
            return exact_share(E, 6), D / 2, "two propose-test-release residual log-IQRs (kusner2016 s4.1.8)"
        if p["privacy"] == "train" and p["score"] != "hsic":
            return exact_share(E, 2), D / 2, "two stability-based releases (Dwork-Roth Alg. 13)"
        where = "s4.1.7" if p["privacy"] == "test" else "s4.1.8, Theorem 9 sensitivity"
        return exact_share(E, 2), 0.0, f"two Laplace releases of the scores (kusner2016 {where})"

    def _spent(self, p, sens) -> PrivacySpent:
        """What the releases DELIVER, exactly: the discrete Laplace draws' D/t (their grid rounding included).

        * the two scores, one 2-vector Laplace release at L1 sensitivity ``sens`` per coordinate: the grid D = F + 2
          (F = floor(sens / 2^k)) pays for rounding both coordinates, but each coordinate of neighbouring inputs
          moves by at most F + 1 grid units and BOTH move (a record enters both scores), so the pair is
          2 (F + 1) / t-DP (basic composition of the two coordinates);
        * a stability release: its scalar Laplace draw (sensitivity 1), D/t, and delta;
        * a propose-test-release log-IQR: up to three scalar Laplace draws at sensitivity 1 (two tests, one
          release), 3 D/t, and delta;
        summed by basic composition (Dwork-Roth Thm 3.16)."""
        from fast.mechanisms import laplace_grid

        e, d, what = self._budget(p)
        if p["score"] == "iqr" or (p["privacy"] == "train" and p["score"] != "hsic"):
            g = laplace_grid(1.0, e)
            per = Fraction(g.integer_sensitivity, g.scale)
            if p["score"] == "iqr":
                k, draws = (4 if p["privacy"] == "test" else 2), 3
            else:
                k, draws = 2, 1
            eps, dl = k * draws * per, k * Fraction(d)
            accounting = (f"{what}, each ({draws} x {float(per):.6g}, {d:.3g})-DP ({draws} discrete Laplace "
                          f"draw{'s' if draws > 1 else ''} of D/t = {g.integer_sensitivity}/{g.scale}), basic composition")
        else:
            g = laplace_grid(sens, e, dimension=2)
            per = Fraction(g.integer_sensitivity - 1, g.scale)
            eps, dl = 2 * per, Fraction(0)
            accounting = (f"{what}, each {float(per):.6g}-DP ((F + 1)/t = {g.integer_sensitivity - 1}/{g.scale} on "
                          f"the grid 2^{g.k}, sensitivity {sens:.6g}), basic composition")
        half = "test" if p["privacy"] == "test" else "training"
        return PrivacySpent.delivered(
            eps, dl, rho=None,
            neighbouring=f"replace-one (one pair (x_k, y_k) of the {half} half replaced"
                         + ("; |x|, |y| <= 1" if p["privacy"] == "train" else "") + "; the other half is public)",
            accounting=accounting)

    def _score(self, a, b, p):
        return causal.dependence_score(a, b, p["score"], bandwidth_a=p["hsic_bandwidth"],
                                       bandwidth_b=p["hsic_bandwidth"])

    def _split(self, x, y, p):
        # the public value domain (issue 25): clamped, NaN read as 0, never refused one record at a time
        bound = UNIT_BOUND if p["privacy"] == "train" else PRIVATE_VALUE_BOUND
        x = private_values(x, "x", bound)
        y = private_values(y, "y", bound)
        if x.shape[0] != y.shape[0]:
            raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
        x_tr, y_tr, x_te, y_te = causal.train_test_split(x, y, test_fraction=p["test_fraction"],
                                                         rng=_split_generator(self.random_state))
        r_y, r_x = causal.anm_residuals(x_tr, y_tr, x_te, y_te, lam=p["lam"], bandwidth=p["bandwidth"])
        return x_tr, x_te, y_te, r_y, r_x

    def _sensitivity(self, p, m, n):
        if p["score"] == "iqr":
            return 1.0 if p["privacy"] == "test" else 2.0 * causal_privacy.residual_sensitivity(n, p["lam"])
        if p["privacy"] == "test":
            if p["score"] == "spearman":
                return causal_privacy.spearman_sensitivity(m, bound=p["spearman_bound"])
            if p["score"] == "kendall":
                return causal_privacy.kendall_sensitivity(m)
            return causal_privacy.hsic_sensitivity(m, bound=p["hsic_bound"])
        if p["score"] == "hsic":
            return causal_privacy.hsic_train_sensitivity(m, n, p["lam"], bandwidth=p["hsic_bandwidth"])
        return causal_privacy.residual_sensitivity(n, p["lam"])

    # ------------------------------------------------------------------ fit
    @private_release
    def fit(self, x, y, *, accountant=None):
        """Release the two private scores and decide (Algorithm 3).

        Parameters
        ----------
        x, y : array-like of shape (N,)
            The pair, read in the declared domain (module docstring): clamped to [-1, 1] (``privacy="train"``) or
            [-2^512, 2^512] (``"test"``), NaN and non-numbers read as 0; never refused for one value.
        accountant : None or a ledger of fast.accounting (BudgetAccountant)
            Charged ``privacy_spent_`` (epsilon, delta) before the data is read (BudgetExceeded if it does not fit).

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> gen = np.random.default_rng(0)
        >>> x = gen.uniform(-1, 1, 400)
        >>> y = x ** 3 + 0.1 * gen.uniform(-1, 1, 400)
        >>> from fast.estimators.causal import PrivateANM
        >>> est = PrivateANM("kendall", epsilon=2.0, bandwidth=0.3, random_state=0).fit(x, y)
        >>> est.direction_ in ("x->y", "y->x", "undecided"), est.m_test_
        (True, 200)
        """
        p = self._validated()  # the TOTAL budget is checked here, before the data is read
        refuse_seeded_charge(self.insecure_noise_seed, accountant)  # a seeded fit is not private: nothing to charge
        e, d, _ = self._budget(p)
        x_tr, x_te, y_te, r_y, r_x = self._split(x, y, p)
        m, n = x_te.shape[0], x_tr.shape[0]
        sens = self._sensitivity(p, m, n)
        spent = self._spent(p, sens)  # depends on the sizes only
        # the exact delivered fractions; refuses before any noise is drawn; no accountant: the default ledger
        charge_fit(spent, accountant, self.insecure_noise_seed, label=type(self).__name__)
        gen = noise_rng(self.insecure_noise_seed)  # None: every release reads OS entropy
        if gen is not None:
            gen = np.random.default_rng(gen)  # one stream for the releases in order (reproducible tests)
        if p["score"] == "iqr":
            released = self._release_iqr(x_te, y_te, r_y, r_x, e, d, gen, n, p)
            scores = (None, None) if any(r is None for r in released) else (released[0] + released[1],
                                                                            released[2] + released[3])
        else:
            s_xy, s_yx = self._score(x_te, r_y, p), self._score(y_te, r_x, p)
            if p["privacy"] == "test" or p["score"] == "hsic":
                scores = causal_privacy.laplace_scores(s_xy, s_yx, sensitivity=sens, epsilon=e, rng=gen)
            else:  # rank score, training-set privacy: stability-based release of each score
                scores = tuple(causal_privacy.stability_release(
                    s, causal_privacy.rank_instability_distance(r, n=n, lam=p["lam"]), epsilon=e, delta=d, rng=gen)
                    for s, r in ((s_xy, r_y), (s_yx, r_x)))
        self.n_train_, self.m_test_ = n, m
        self.sensitivity_ = sens
        self.private_scores_ = tuple(scores)
        self.direction_ = _decide(*self.private_scores_)
        self.privacy_spent_ = reported_spent(spent, self.insecure_noise_seed)  # seeded: no guarantee
        self.noise_report_ = anm_noise(self.score, m=m, n=n, epsilon=self.epsilon, privacy=self.privacy,
                                       **self._noise_params())
        warn_if_anm_noise(self.noise_report_, stacklevel=3)  # fit, private_release, the caller
        return self

    def _noise_params(self) -> dict:
        """The parameters :func:`anm_noise` reads besides score, epsilon and privacy (public)."""
        return {k: getattr(self, k) for k in ("delta", "lam", "bandwidth", "hsic_bandwidth", "test_fraction",
                                              "spearman_bound", "hsic_bound", "ptr_threshold")}

    def _release_iqr(self, x_te, y_te, r_y, r_x, e, d, gen, n, p):
        if p["privacy"] == "test":
            return [causal_privacy.iqr_ptr(v, epsilon=e, delta=d, rng=gen, threshold=p["ptr_threshold"])
                    for v in (x_te, r_y, y_te, r_x)]
        released = []  # training-set privacy: ln IQR(x'), ln IQR(y') read only the public test half
        for v, public in ((r_y, x_te), (r_x, y_te)):
            q = causal.iqr(public)
            released.append(math.log(q) if q > 0 else None)
            released.append(causal_privacy.iqr_train_ptr(v, n=n, lam=p["lam"], epsilon=e, delta=d, rng=gen,
                                                         threshold=p["ptr_threshold"]))
        return released


# --------------------------------------------------------------------------- expected noise (issue 28 item 6)
#: ``noise_to_signal`` (the expected noise of the released score difference, 1.5 b, over the largest difference
#: the public score range allows) above which a fit warns (:class:`ANMNoiseWarning`).  Measured on
#: docs/experiments/causal/results.json (Tuebingen pairs, test-set privacy, epsilon 0.1 to 10, m = N/2): on the
#: pairs a score decides right on every split non-privately, the mean private P(correct) above 0.3 is 0.567
#: (Spearman, 9 (pair, epsilon), at most 0.654), 0.592 (Kendall, 3, at most 0.659), 0.501 (HSIC, 20), against
#: 0.927, 0.920 and 0.561 at or below 0.3: real score differences are a small fraction of the range, so noise a
#: third of the range already makes the direction close to a coin flip.
ANM_NOISE_RATIO = 0.3
_ANM_ALPHA = 0.05


class ANMNoiseWarning(UserWarning):
    """A private ANM fit whose released scores are mostly noise, decided from PUBLIC quantities alone.

    Warned by :meth:`PrivateANM.fit` (and ``privlearn causal``, which prints it) when ``noise_report_`` is
    ``dominated``: the expected magnitude of the Laplace noise of the score DIFFERENCE the direction rests on
    (1.5 b for two iid Laplace(b) draws) exceeds :data:`ANM_NOISE_RATIO` (0.3) times the largest difference the
    public score range allows; above it the Tuebingen pairs every split decides right non-privately were decided
    right with probability 0.50 to 0.59 on average (docs/privacy_security.md, "Expected noise"), a near coin flip.  It depends on the score, epsilon, the
    privacy model, the test / training sizes (public: the split's sizes are functions of N and test_fraction) and
    the sensitivity's public parameters only, never on a value of x or y, so it reveals nothing about the data.
    Raise epsilon or use more records.

    Examples
    --------
    >>> from fast.estimators.causal import ANMNoiseWarning
    >>> issubclass(ANMNoiseWarning, UserWarning)
    True
    """


@dataclass(frozen=True)
class ANMNoiseReport:
    """Expected noise of a private ANM fit's Laplace score releases against the public score range
    (:func:`anm_noise`; ``PrivateANM.noise_report_``).  Every figure is a function of public parameters and of
    the split's sizes alone.

    Parameters
    ----------
    score, privacy : str
    m, n : int
        Test and training records.
    epsilon_per_score : float
        The share of the total epsilon each score's Laplace release gets.
    sensitivity : float
        ``PrivateANM.sensitivity_``: of each score (replace-one on the private half).
    laplace_scale : float
        b, the delivered scale of each score's noise (``fast.mechanisms.laplace_grid`` at dimension 2: its
        discrete scale times its grid step).
    alpha : float
    score_accuracy_95 : float
        b ln(1/alpha): the 95 % accuracy of one released score (OpenDP ``laplacian_scale_to_accuracy``).
    difference_accuracy_95 : float
        a with P(|L1 - L2| > a) = (1 + a/(2b)) e^(-a/b) = alpha: the 95 % accuracy of the released difference
        p_XY - p_YX, whose sign is the decision.
    expected_difference_noise : float
        E|L1 - L2| = 1.5 b.
    score_range : float
        The largest value of the score: 1 for Spearman's |rho| and Kendall's |tau|; m^2/(m - 1)^2 for HSIC
        (trace(K H L H) / (m - 1)^2 <= ||K||_F ||L||_F / (m - 1)^2 with kernels in [0, 1]); scores are >= 0, so
        |s_XY - s_YX| is at most this.
    prob_correct_at_range : float
        The probability the noisy decision is right when the true difference is the whole range (the best case):
        1 - e^(-R/b) (2 + R/b) / 4.
    noise_to_signal : float
        expected_difference_noise / score_range; what :class:`ANMNoiseWarning` compares with ``threshold``.
    threshold : float
        :data:`ANM_NOISE_RATIO`.
    dominated : bool
        noise_to_signal > threshold.

    Examples
    --------
    >>> from fast.estimators.causal import anm_noise
    >>> r = anm_noise("kendall", epsilon=1.0, m=1000, n=1000)
    >>> round(r.laplace_scale, 4), r.dominated
    (0.008, False)
    """

    score: str
    privacy: str
    m: int
    n: int
    epsilon_per_score: float
    sensitivity: float
    laplace_scale: float
    alpha: float
    score_accuracy_95: float
    difference_accuracy_95: float
    expected_difference_noise: float
    score_range: float
    prob_correct_at_range: float
    noise_to_signal: float
    threshold: float
    dominated: bool

    def as_dict(self) -> dict:
        """The report as a JSON-ready dict (the CLI's record).

        Returns
        -------
        dict

        Examples
        --------
        >>> from fast.estimators.causal import anm_noise
        >>> sorted(anm_noise("kendall", m=100, n=100).as_dict())[:2]
        ['alpha', 'difference_accuracy_95']
        """
        from dataclasses import asdict

        return asdict(self)


def _laplace_difference_accuracy(alpha: float) -> float:
    """a / b with P(|L1 - L2| > a) = (1 + a / (2 b)) e^(-a/b) = alpha for iid Laplace(b) (bisection; the tail is
    decreasing in a)."""
    lo, hi = 0.0, 2.0 * math.log(2.0 / alpha) + 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if (1.0 + mid / 2.0) * math.exp(-mid) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def anm_noise(score="kendall", *, m, n, epsilon=1.0, privacy="test", **params) -> ANMNoiseReport | None:
    """How much of a private ANM fit's released scores is noise, from public quantities only: the Laplace scale
    the fit draws with (its own share of epsilon, its own data-independent sensitivity) against the public range of
    the score difference the direction rests on   [OpenDP ``laplacian_scale_to_accuracy``; kusner2016 s4.1.7-8]

    Parameters
    ----------
    score : {"spearman", "kendall", "hsic", "iqr"}, default="kendall"
    m, n : int
        Test and training records (``PrivateANM.m_test_``, ``n_train_``; functions of N and test_fraction).
    epsilon : float, default=1.0
        The TOTAL epsilon of the fit.
    privacy : {"test", "train"}, default="test"
    **params
        Other :class:`PrivateANM` parameters (delta, lam, bandwidth, hsic_bandwidth, test_fraction,
        spearman_bound, hsic_bound, ptr_threshold), validated as fit validates them.

    Returns
    -------
    ANMNoiseReport or None
        None where the fit releases no Laplace-noised score: the IQR score (propose-test-release of log-IQRs,
        whose range is not bounded publicly) and the rank scores under ``privacy="train"`` (stability-based
        release: the exact score or bottom).

    Raises
    ------
    ValueError
        A bad parameter (as :meth:`PrivateANM.fit`), or m < 2 / n < 2.

    Examples
    --------
    >>> from fast.estimators.causal import anm_noise
    >>> anm_noise("hsic", epsilon=0.1, m=100, n=100).dominated
    True
    >>> anm_noise("iqr", m=100, n=100) is None
    True
    """
    from fast._contracts.validation import check_int
    from fast.mechanisms import laplace_grid

    m = check_int(m, "m", minimum=2)
    n = check_int(n, "n", minimum=2)
    est = PrivateANM(score, epsilon=epsilon, privacy=privacy, **params)
    p = est._validated()
    if p["score"] == "iqr" or (p["privacy"] == "train" and p["score"] != "hsic"):
        return None
    e, _d, _ = est._budget(p)
    sens = float(est._sensitivity(p, m, n))
    g = laplace_grid(sens, e, dimension=2)  # laplace_scores' release: laplace_mechanism on the 2-vector
    b = float(g.scale) * float(g.granularity)
    R = 1.0 if p["score"] != "hsic" else m * m / ((m - 1) * (m - 1))
    alpha = _ANM_ALPHA
    ratio = 1.5 * b / R
    return ANMNoiseReport(
        score=p["score"], privacy=p["privacy"], m=m, n=n, epsilon_per_score=float(e), sensitivity=sens,
        laplace_scale=b, alpha=alpha, score_accuracy_95=b * math.log(1.0 / alpha),
        difference_accuracy_95=b * _laplace_difference_accuracy(alpha), expected_difference_noise=1.5 * b,
        score_range=R, prob_correct_at_range=1.0 - math.exp(-R / b) * (2.0 + R / b) / 4.0, noise_to_signal=ratio,
        threshold=ANM_NOISE_RATIO, dominated=bool(ratio > ANM_NOISE_RATIO))


def warn_if_anm_noise(report, *, stacklevel=2) -> bool:
    """Warn :class:`ANMNoiseWarning` when ``report.dominated`` (an :class:`ANMNoiseReport`; None: no report, no
    warning).  Public quantities only.

    Parameters
    ----------
    report : ANMNoiseReport or None
    stacklevel : int, default=2

    Returns
    -------
    bool
        Whether it warned.

    Raises
    ------
    TypeError
        ``report`` is neither None nor an :class:`ANMNoiseReport`; ``stacklevel`` is not an int >= 1.

    Examples
    --------
    >>> import warnings
    >>> from fast.estimators.causal import anm_noise, warn_if_anm_noise
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_anm_noise(anm_noise("hsic", epsilon=0.1, m=100, n=100))
    True
    >>> caught[0].category.__name__
    'ANMNoiseWarning'
    """
    import warnings

    if report is not None and not isinstance(report, ANMNoiseReport):
        raise TypeError(f"report must be None or an ANMNoiseReport (anm_noise), got {type(report).__name__}")
    if isinstance(stacklevel, bool) or not isinstance(stacklevel, int) or stacklevel < 1:
        raise TypeError(f"stacklevel must be an int >= 1, got {stacklevel!r}")
    if report is None or not report.dominated:
        return False
    warnings.warn(
        f"the private ANM scores are mostly noise: the expected Laplace noise of the {report.score} score "
        f"difference, 1.5 b = {report.expected_difference_noise:.3g} (b = {report.laplace_scale:.3g}: sensitivity "
        f"{report.sensitivity:.3g} at epsilon {report.epsilon_per_score:.3g} per score; m = {report.m}), is "
        f"{report.noise_to_signal:.3g} times the largest difference the score allows ({report.score_range:.3g}), "
        f"above {report.threshold:g}, where the benchmark's pairs were decided close to a coin flip "
        f"(docs/privacy_security.md, 'Expected noise'); raise epsilon or use more records",
        ANMNoiseWarning, stacklevel=stacklevel + 1)
    return True


@dataclass(frozen=True)
class ANMDiagnostics:
    """NON-private diagnostics of a PrivateANM configuration on one pair (they read the data without noise: never
    publish them).  ``scores``: the exact (s_XY, s_YX) (None where the IQR is 0); ``prob_agree``: the closed-form
    probability that the private decision equals the exact one (Theorem 4 / 6.2; None where none applies);
    ``epsilon_per_release``: the per-release epsilon the closed form uses.

    Parameters
    ----------
    scores : tuple
        The exact (s_XY, s_YX), or (None, None) where an IQR is 0.
    prob_agree : float or None
        Closed-form probability that the private decision equals the exact one.
    epsilon_per_release : float
        The per-release epsilon the closed form uses.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> x = gen.uniform(-1, 1, 400)
    >>> y = x ** 3 + 0.1 * gen.uniform(-1, 1, 400)
    >>> from fast.estimators.causal import PrivateANM, nonprivate_diagnostics
    >>> diag = nonprivate_diagnostics(PrivateANM("kendall", epsilon=2.0, bandwidth=0.3, random_state=0), x, y)
    >>> round(diag.prob_agree, 4), round(diag.prob_correct("x->y"), 4)
    (0.882, 0.882)
    """

    scores: tuple
    prob_agree: float | None
    epsilon_per_release: float

    def prob_correct(self, truth):
        """P(private decision == truth) from the closed form; None where no closed form applies.

        Parameters
        ----------
        truth : {"x->y", "y->x"}
            The true direction.

        Returns
        -------
        float or None
            The probability, or None where no closed form applies.

        Examples
        --------
        >>> from fast.estimators.causal import ANMDiagnostics
        >>> ANMDiagnostics((0.1, 0.3), 0.9, 1.0).prob_correct("y->x")
        0.09999999999999998
        """
        truth = check_choice(truth, "truth", DIRECTIONS[:2])
        if self.prob_agree is None:
            return None
        s_xy, s_yx = self.scores
        agree_with_truth = (s_xy < s_yx) == (truth == "x->y") and s_xy != s_yx
        return self.prob_agree if agree_with_truth else 1.0 - self.prob_agree


def nonprivate_diagnostics(estimator, x, y) -> ANMDiagnostics:
    """Exact scores and the closed-form agreement probability for ``estimator``'s configuration: NOT PRIVATE.

    For research only (evaluation of the private estimator on public benchmark pairs): the result is an exact
    function of the data.  The split is drawn from ``estimator.random_state`` exactly as ``fit`` draws it, so with
    an int ``random_state`` the diagnostics refer to the same split as the fit.

    Parameters
    ----------
    estimator : PrivateANM
        Fitted or not; only its parameters are read.
    x, y : array-like of shape (N,)

    Returns
    -------
    ANMDiagnostics

    Raises
    ------
    TypeError
        ``estimator`` is not a PrivateANM.

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> x = gen.uniform(-1, 1, 400)
    >>> y = x ** 3 + 0.1 * gen.uniform(-1, 1, 400)
    >>> from fast.estimators.causal import PrivateANM, nonprivate_diagnostics
    >>> est = PrivateANM("kendall", epsilon=2.0, bandwidth=0.3, random_state=0)
    >>> [round(s, 4) for s in nonprivate_diagnostics(est, x, y).scores]  # exact: NOT private, never publish
    [0.0304, 0.074]
    """
    if not isinstance(estimator, PrivateANM):
        raise TypeError(f"estimator must be a PrivateANM, got {type(estimator).__name__}")
    p = estimator._validated()
    e = estimator._budget(p)[0]
    x_tr, x_te, y_te, r_y, r_x = estimator._split(x, y, p)
    m, n = x_te.shape[0], x_tr.shape[0]
    if p["score"] == "iqr":
        qs = [causal.iqr(v) for v in (x_te, r_y, y_te, r_x)]
        if min(qs) <= 0:
            return ANMDiagnostics((None, None), None, e)
        scores = (causal.iqr_score(x_te, r_y), causal.iqr_score(y_te, r_x))
        closed = causal_privacy.prob_correct_four_laplace if p["privacy"] == "test" else \
            causal_privacy.prob_correct_laplace
        return ANMDiagnostics(scores, closed(abs(scores[1] - scores[0]), 1.0 / e), e)
    scores = (estimator._score(x_te, r_y, p), estimator._score(y_te, r_x, p))
    if p["privacy"] == "test" or p["score"] == "hsic":
        sens = estimator._sensitivity(p, m, n)
        return ANMDiagnostics(scores, causal_privacy.prob_correct_laplace(abs(scores[1] - scores[0]), sens / e), e)
    return ANMDiagnostics(scores, None, e)


@dataclass(frozen=True)
class PairResult:
    """One pair of the batch: the private direction and scores, what was spent, and (only when asked with
    ``diagnostics=True``) the NON-private diagnostics.

    Parameters
    ----------
    direction : str
        The private decision ("x->y", "y->x" or "undecided").
    private_scores : tuple
        The released scores (None where a release returned bottom).
    privacy_spent : PrivacySpent
        What the pair's fit spent.
    diagnostics : ANMDiagnostics or None, default=None
        NON-private diagnostics, only when asked for.

    Examples
    --------
    >>> from fast.estimators.causal import PairResult
    >>> PairResult("x->y", (0.1, 0.3), None).diagnostics is None
    True
    """

    direction: str
    private_scores: tuple
    privacy_spent: PrivacySpent
    diagnostics: ANMDiagnostics | None = None


def infer_directions(pairs, score="kendall", *, progress=False, random_state=None, insecure_noise_seed=None,
                     diagnostics=False, **options):
    """Fit a PrivateANM on each (x, y) of ``pairs``, each within the TOTAL (epsilon, delta) of ``options``.

    Parameters
    ----------
    pairs : iterable of (x, y)
    score : str
    progress : bool
        A tqdm bar.
    random_state : None, int or Generator
        One Generator from it draws one split seed per pair, in turn (non-private randomness).
    insecure_noise_seed : None or int
        Tests only (warns): pair k's noise is seeded with ``insecure_noise_seed + k``.
    diagnostics : bool
        Also compute :func:`nonprivate_diagnostics` per pair (NOT private).
    **options
        PrivateANM parameters (epsilon, delta, privacy, bandwidth, ...).

    Returns
    -------
    list of PairResult
        Each pair is a separate data set: the budgets are per pair (parallel composition only if the pairs share
        no record).

    Raises
    ------
    TypeError
        If the removed keyword ``rng`` is passed (the message names its replacement).

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(0)
    >>> x = gen.uniform(-1, 1, 400)
    >>> y = x ** 3 + 0.1 * gen.uniform(-1, 1, 400)
    >>> from fast.estimators.causal import infer_directions
    >>> results = infer_directions([(x, y), (y, x)], epsilon=2.0, bandwidth=0.3, random_state=0)
    >>> len(results), [r.direction in ("x->y", "y->x", "undecided") for r in results]
    (2, [True, True])
    """
    if "rng" in options:
        raise TypeError(f"infer_directions(rng=...) is gone: use {_RENAMED['rng']}")
    gen = _split_generator(random_state)
    pairs = list(pairs)
    out = []
    for k, (x, y) in enumerate(tqdm(pairs, disable=not progress, desc=f"private ANM ({score})")):
        seed = int(gen.integers(0, 2**63 - 1))
        noise = None if insecure_noise_seed is None else insecure_noise_seed + k
        est = PrivateANM(score, random_state=seed, insecure_noise_seed=noise, **options).fit(x, y)
        diag = nonprivate_diagnostics(est, x, y) if diagnostics else None
        out.append(PairResult(est.direction_, est.private_scores_, est.privacy_spent_, diag))
    return out
