"""Private boosting (bun2020) as a scikit-learn classifier: LazyBregBoost with a private weak learner.

:class:`PrivateBoostClassifier` runs ``n_rounds`` rounds of Boost (bun2020 Alg. 1-2) with the lazy Bregman next
measure LB-NxM(kappa, lam) (Alg. 3; (1/(kappa n))-slick, Lemma 21) and one of two private weak learners (the stump
is the default, the paper's halfspace learner is chosen by name: the class docstring says why, with the numbers):

* ``"halfspace"``: the noisy centroid of Section 5.2, z~ = sum_i mu^(i) y_i x_i + noise, on rows clipped to the
  L2 ball of radius ``data_norm`` and scaled into the unit ball; normalised to a unit vector (``normalize=True``,
  Servedio's form: the printed unnormalised learner has advantage ~tau^2, ambiguity A8);
* ``"stump"``: a decision stump s * (+1 if x_j > theta else -1) over a DATA-INDEPENDENT threshold grid inside
  ``bounds`` (n_thresholds per feature), chosen by REPORT-NOISY-MAX among the 2 d n_thresholds signed stumps of
  their scores s sum_i mu^(i) y_i h(x_i), with exact discrete Laplace noise
  (:func:`fast.private_boosting.noisy_stump`): each score has sensitivity 4/(kappa n) (mu^ <= 1/(kappa n) by the
  smooth measure's density, plus the measure's own change ||mu^ - mu^'||_1 <= 2/(kappa n), Lemma 21), and
  the selection is (2 D / t)-DP, pure (D the sensitivity in grid units, t the discrete Laplace scale); as zCDP
  epsilon_r^2 / 2 per round.  Only the index of the winner is released (not the scores).

Privacy (replace-one neighbouring, n public).  The halfspace round's release has L2 sensitivity 2 (1/(kappa n) +
zeta) = 4/(kappa n) (Theorem 22 with zeta = 1/(kappa n) from Lemma 21; the exact sensitivity is 2/(kappa n), not
used: no proof), plus the rounding inflation of the exact discrete Gaussian grid.  The TOTAL budget the user grants,
(epsilon, delta) or ``rho`` (zCDP), is turned into rho_total (tight conversion, CKS20 Prop. 12), split evenly over
the rounds (Lemma 14), and each round's noise is calibrated so that its grid rho (halfspace) or epsilon_r^2 / 2
(stump) is <= rho_total / n_rounds.  The spent (epsilon, delta) is charged to ``accountant`` before any
noise is drawn; ``privacy_spent_`` reports rho and its (epsilon, delta).  Noise: ``fast.mechanisms``' exact
discrete Gaussian, from OS entropy unless ``insecure_noise_seed`` (tests only) is set.

Bounds: data outside ``data_norm`` (halfspace) / ``bounds`` (stump) is clipped, never used to set them.  The
stump's default ``bounds=(-1, 1)`` is the unit box, what :class:`fast.preprocessing.PublicScaler` maps declared
feature ranges onto by default; ``data_norm`` has no default.  Setting them to None reads them from the data, which
leaks privacy: a :class:`PrivacyLeakWarning` says so and ``privacy_spent_`` reports no guarantee.

Labels: the label set is PUBLIC input, as the bounds are (issue 25); k > 2 declared labels fit one-vs-rest (the
``classes`` parameter).  ``classes=(negative, positive)`` is required
(a y of bool dtype needs none: (False, True)); ``classes_`` is exactly the pair, y == classes[1] is +1 and every other
value (classes[0], values outside the pair, NaN, None, other types) is -1.  Reading the classes from y
(``np.unique``) let one record decide the fit: with one row holding the only positive label, D gave two classes and
succeeded while its neighbour D' (that label replaced) had one class and raised ValueError, every time, so success
or failure revealed the label with certainty; a default inferred from {0, 1} would leak the same way (a lone 0
decides whether ``classes_`` is (0, 1)).  Nothing before the first noise draw depends on which labels occur: the
work is the projection of L = 0 (label-free), w * y and one product of the same shapes whatever the labels, and no
check, warning or message reads the labels (``spec.labels_contract``).
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import asdict, dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from fast import _dask
from fast import accounting as _acc
from fast import mechanisms as _mech
from fast import private_boosting as _pb
from fast.labels import _column, classes_array, declared_classes, declared_pm1
from fast._contracts.labels_contract import check_class_set, label_array
from fast.measures import project_dense_log
from fast._contracts.boosting_contract import check_kappa, check_lam
from fast._contracts.budget_ledger import charge_release, outer_label, private_release
from fast._contracts.privacy_contract import (InsecureNoiseWarning, PrivacySpent, charge_fit, check_total_budget,
                                              float_down, no_guarantee, noise_rng, refuse_seeded_charge,
                                              reported_spent, to_domain)
from fast._contracts.validation import as_generator, check_int, check_real, scalar_of

__all__ = ["PrivateBoostClassifier", "PrivacyLeakWarning", "BoostingNoiseReport", "BoostingNoiseWarning",
           "boosting_noise", "warn_if_boosting_noise"]

BOOSTERS = ("lazy_bregman", "smooth")
WEAK_LEARNERS = ("halfspace", "stump")


class PrivacyLeakWarning(UserWarning):
    """A bound (data_norm, bounds) was read from the data: the fit is NOT differentially private.

    Examples
    --------
    >>> import warnings
    >>> from fast.estimators.boosting import PrivacyLeakWarning
    >>> issubclass(PrivacyLeakWarning, UserWarning)
    True
    """


def _sigma_for_rho(rho_round: float, sensitivity: float, d: int, rounds: int = 1) -> tuple[float, object]:
    """The smallest sigma (to a factor 1 + 1e-9) whose discrete-Gaussian grid charges rho <= rho_round.

    The grid is the library run's (:func:`fast.private_boosting.centroid_run_grid`: 2^k sqrt(d) <= Delta 2^-8, so the
    rounding inflates the sensitivity by at most 2^-8 whatever n and d; grid variances beyond 2^24 are drawn by the
    exact big-integer sampler).  Every quantity is public (rho, Delta = 4/(kappa n), d), so the refusals below never
    depend on the data."""
    if not rho_round * rounds > 1e-250:
        raise ValueError(f"the privacy budget is too small to pay for one round: rho = {rho_round * rounds:.3g} in "
                         f"dimension {d}; raise epsilon")
    sigma = sensitivity / math.sqrt(2.0 * rho_round)
    for _ in range(60):
        if not sigma < 2.0**900:
            raise ValueError(f"the privacy budget is too small to pay for one round: rho per round = {rho_round!r} "
                             f"at L2 sensitivity {sensitivity!r} needs a noise std beyond the float range (raise "
                             f"epsilon or lower n_rounds)")
        grid = _pb.centroid_run_grid(sigma, sensitivity, d)
        if grid.rho <= rho_round:
            return sigma, grid
        sigma *= math.sqrt(grid.rho / rho_round) * (1 + 1e-9)
    raise ArithmeticError("could not calibrate the noise")  # pragma: no cover - rho within 1.0078 of Delta^2/2s^2


def _release(value: np.ndarray, grid, rng) -> np.ndarray:
    """The library run's release (:func:`fast.private_boosting.lazy_bregman_boost`), word for word: exact rounding
    for any magnitude and any grid variance."""
    return _pb._release(value, float("nan"), rng, grid)


def _stump_epsilon(rho_total: float, rounds: int, sensitivity: float) -> tuple[float, float]:
    """(eps_r, rho_r): the pure epsilon of one report-noisy-max round (delivered on the exact grid, <= the
    requested sqrt(2 rho_total / T)) and its zCDP rho_r = eps_r^2 / 2."""
    requested = math.sqrt(2.0 * rho_total / rounds)
    try:
        eps_r = _pb.noisy_max_epsilon(sensitivity, requested)
    except ValueError as exc:
        what = "the privacy budget is too small to pay for one round" if rounds == 1 else \
            "n_rounds is too large for the budget"
        raise ValueError(f"{what}: per-round epsilon {requested:.3g} of report-noisy-max cannot be met by the exact "
                         f"discrete Laplace sampler ({exc}); raise epsilon or lower n_rounds") from None
    return eps_r, eps_r * eps_r / 2.0


def _labels_array(labels) -> np.ndarray:
    """The declared labels as ``classes_``: numpy's own dtype when it keeps every value exactly (all numbers, all
    str, all bytes), else an object array (as :func:`fast.labels.classes_array` does for a pair)."""
    arr = np.array(labels)
    numeric = all(isinstance(v, (numbers.Real, np.bool_)) and not isinstance(v, (str, bytes)) for v in labels)
    same = (numeric and arr.dtype.kind in "biuf") or all(isinstance(v, str) for v in labels) \
        or all(isinstance(v, bytes) for v in labels)
    if not same or arr.shape != (len(labels),) or not all(a == v for a, v in zip(arr.tolist(), labels)):
        arr = np.empty(len(labels), dtype=object)
        arr[:] = list(labels)
    return arr


def _not_private(spent, leak):
    """The truthful report of a fit whose ``leak`` (data_norm or bounds) was read from the data: no (epsilon, delta)
    guarantee at all (epsilon = inf, delta = 1), with what the noise alone would have given had the bound been
    public."""
    return no_guarantee(spent, f"{leak} was read from the data (its exact value is kept on the fitted object)",
                        f"a public {leak}")


class PrivateBoostClassifier(ClassifierMixin, BaseEstimator):
    """Differentially private boosting (bun2020 LazyBregBoost) with a private stump (default) or halfspace learner.

    Defaults (issue 26): chosen by measurement, not by the paper's asymptotics.  The paper's learner, the noisy
    normalised centroid (``weak_learner="halfspace"``; bun2020 Section 5.2 with the old defaults ``n_rounds=100,
    kappa=0.25``), has advantage only tau^2/2 on a tau-margin halfspace (ambiguity A8), which the per-round noise
    swamps at practical n and epsilon: on real tasks it predicts the majority class.  The report-noisy-max stump
    learns.  Test error at epsilon = 1, delta = 1e-6 (mean of 3 OS-entropy fits; tasks as ``benchmarks.utility``
    preprocesses them: declared bounds -> [-1, 1] / [0, 1] by ``PublicScaler``, one-hot columns, <= 20,000
    training rows; ``experiments/boosting_defaults.py``; "gap" = the share of the distance from the majority error
    to non-private LogisticRegression's that is closed)::

        task (n train, share +)     majority  LogReg  halfspace T=100 k=.25  stump T=25 k=.2 (default)  k=.35  k=.5
        adult (20000, .24)           .236     .153    .212 (gap .29)         .186 (.61)                  .78    .69
        cod-rna (20000, .33)         .333     .064    .219 (.42)             .132 (.75)                  .72    .61
        covertype 2-vs-rest (20000)  .488     .252    .408 (.34)             .326 (.69)                  .84    .89
        letter N-Z (16000, .50)      .495     .277    .332 (.75)             .326 (.78)                  .97    .94
        MNIST 3-vs-rest (20000, .10) .101     .024    .101 (.00)             .079 (.28)                  .00    .00
        spambase (3220, .39)         .394     .072    .481 (-.27)            .392 (.01)                  .35    .52
        abalone / wine-white / banknote (< 3,500 rows): stump k=.2 gap .76 / .32 / .31, halfspace .81 / .00 / -.18

    kappa = 0.2 is the one value (of .15, .2, .25, .35, .5) that closes a quarter of the gap on every task with
    >= 5,000 rows at epsilon = 1 (also at epsilon 0.5 and 2 except MNIST at 0.5: gap .02): the measure's density
    must stay >= kappa, so a minority class rarer than about kappa / 2 can never get the weight to matter and the
    vote returns the majority class (MNIST at kappa >= .25).  Larger kappa means less noise (sensitivity
    4/(kappa n)): on small, balanced data raise it (spambase at .5: gap .52).  n_rounds = 25 beat 10 and 50 at the
    same budget (the budget is split evenly over the rounds, zCDP composition: more rounds, more noise per round;
    adult k=.2: T=25 .61, T=50 .64, cod-rna .75 / .55, covertype .69 / .56); n_thresholds = 16 beat 8 and 32
    (mixed, within the noise, in a first screen with percentile-scaled features).  SmoothBoost with stumps closed at
    most 9 % of the gap on 7 of 8 sets in that screen (its propose-test-release test stops it early).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total epsilon granted (ignored when ``rho`` is set, except for reporting).
    delta : float, default=1e-6
        Total delta granted (> 0: the Gaussian noise is approximate-DP only).
    rho : float or None, default=None
        Total zCDP budget instead of (epsilon, delta); ``privacy_spent_`` then reports its epsilon at ``delta``.
        Refused with ``booster="smooth"``: its propose-test-release stopping rule is (epsilon, delta)-DP only, with
        no zCDP form, so a rho grant could not be honoured; grant (epsilon, delta) there.
    n_rounds : int, default=25
        Boosting rounds T (every round costs rho / T).  The paper's configuration used 100 (see above for why 25).
    kappa : float in (0, 1), default=0.2
        Target density of LB-NxM: the final hypothesis has a good margin on all but a kappa fraction (Theorem 20);
        smaller kappa lets the weights concentrate (needed when one class is rarer than about kappa / 2) but makes
        them noisier (sensitivity 4/(kappa n)).  The paper's configuration used 0.25 (see above for why 0.2).
    lam : float or None, default=None
        Learning rate of LB-NxM; None uses sqrt(ln(1/kappa) / n_rounds), the maximiser of Lemma 39's margin bound.
    booster : {"lazy_bregman", "smooth"}, default="lazy_bregman"
        "lazy_bregman": LB-NxM (bun2020 Alg. 3), zCDP accounting.  "smooth": SmoothBoost (Alg. 13) with the Laplace
        propose-test-release stopping rule (Alg. 10-12) capped at ``n_rounds`` rounds; each round is
        (2 eps_r, e^eps_r delta_r)-DP (Lemmas 49-50) and the total follows Theorem 53(2) WITH the sqrt(2) of
        Theorem 48 (the printed form is not a valid bound, ambiguity A3); both weak learners (the stump's score
        sensitivity is 12/(kappa n), as the centroid's under SB-NxM).
    gamma : float in (0, 1/2), default=0.1
        SmoothBoost only: the advantage assumed of the weak learner (sets theta = gamma/(2 + gamma)).
    weak_learner : {"stump", "halfspace"}, default="stump"
        Private weak learner (see the module docstring).  "halfspace" is the paper's (bun2020 Section 5.2); with
        ``n_rounds=100, kappa=0.25`` and a public ``data_norm`` it is the configuration of the paper and of the old
        defaults, kept for reproduction: it sits at the majority error on most real tasks (table above).
    data_norm : float or None, default=None
        Halfspace learner (ignored by the stump): rows are clipped to this PUBLIC L2 norm and scaled by 1/data_norm.
        None reads the largest row norm from the data (warns: not private).
    bounds : (float, float) or (array, array) or None, default=(-1.0, 1.0)
        Stump learner (ignored by the halfspace): the PUBLIC feature range (lower, upper), scalars or one entry per
        feature, for the data-independent threshold grid; values outside are clamped.  The default is the unit box
        that :class:`fast.preprocessing.PublicScaler` maps declared feature ranges onto (its default
        ``feature_range``): put one before the classifier, or pass the declared ranges here.  Data that was not
        scaled is clamped to [-1, 1] all the same (privately, and uselessly).  None reads the per-feature min and
        max from the data (warns: not private).  A pair of the wrong width or kind: ValueError naming ``bounds``.
    n_thresholds : int, default=16
        Stump learner: thresholds per feature (evenly spaced strictly inside ``bounds``).
    normalize : bool, default=True
        Halfspace learner: release z~/||z~|| (Servedio) rather than z~ (as printed; ambiguity A8).
    random_state : None, int or Generator, default=None
        Non-private randomness only (there is none in this estimator; accepted for API uniformity).
    insecure_noise_seed : None or int, default=None
        TESTS ONLY: seeds the private noise (warns; the output is then not private): ``privacy_spent_`` then
        reports no guarantee (epsilon = inf, delta = 1, with the reason), and a fit with ``accountant`` is refused
        (ValueError, before anything is drawn).
    progress : bool, default=False
        Print the round number every n_rounds/10 rounds.
    classes : pair, sequence of k > 2 labels, or None, default=None
        The PUBLIC label set ``(negative, positive)`` (two distinct hashable scalars), REQUIRED unless y has bool
        dtype ((False, True)): ``classes_`` is exactly this pair, y == classes[1] is +1 and every other value is -1
        ("anything that is not the positive class is negative"; no error, warning or message depends on which
        labels occur).  Reading it from y would let one record decide ``classes_`` and whether the fit succeeds
        (module docstring).  k > 2 distinct labels: ONE-VS-REST (``booster="lazy_bregman"`` only): k binary fits,
        fit c on ALL n rows with y == classes[c] as +1 and every other value as -1, so a value outside the declared
        set is positive for no class (never an error); one example is in every binary problem, so the budget is
        split evenly, rho / k each, and the k spends add up (zCDP composition, Lemma 14: basic composition of
        rho); predict is the class of the largest boosted average.  On dask input the same, with the k binary
        labels formed on the workers and the composed total charged before the first job.

    Attributes
    ----------
    classes_ : ndarray of shape (2,) or (k,)
        The declared ``classes``.
    hypotheses_ : ndarray
        Halfspace: (T, d) released unit vectors; stump: (T, 3) rows (feature, threshold, sign).  One-vs-rest: one
        such block per class, (k, T, ...).
    coef_ : ndarray of shape (d,) or (k, d)
        Halfspace: the average released vector in the scaled space (the HS-StL output direction), per class.
    estimators_ : list of PrivateBoostClassifier
        One-vs-rest only: the k binary fits (classes (-1, 1)), class c's at index c.
    privacy_spent_per_class_ : tuple of PrivacySpent
        One-vs-rest only: what each binary fit spent (equal parts; ``privacy_spent_`` is their composition).
    sigma_ : float
        The noise standard deviation of every halfspace round (grid std >= it); NaN for the stump learner (pure-DP
        report-noisy-max with discrete Laplace noise) and for SmoothBoost.
    noise_report_ : BoostingNoiseReport
        The expected noise of each round against the public signal range, from public quantities only
        (:func:`boosting_noise`: the per-round noise scale, the 95 % accuracy of a noisy score or centroid
        coordinate, report-noisy-max's 95 % selection gap, the noise-to-signal ratio); a
        :class:`BoostingNoiseWarning` is raised by fit when it is ``dominated`` (issue 28 item 6).
    privacy_spent_ : spec.privacy_contract.PrivacySpent
        What the fit spent.  With ``data_norm`` (halfspace) or ``bounds`` (stump) left unset the bound is read from
        the data and the fit is NOT private: ``privacy_spent_`` then reports epsilon = inf, delta = 1 (no guarantee),
        and its ``accounting`` says what the noise alone would have given with a public bound.

    Raises
    ------
    ValueError
        Bad hyper-parameters, no ``classes`` (unless y has bool dtype), a budget that cannot pay for one round,
        ``sample_weight`` (it changes the privacy unit).

    Examples
    --------
    >>> import numpy as np
    >>> from fast import PrivateBoostClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(2000, 3)); y = (X[:, 0] > 0).astype(int)  # in the default bounds
    >>> clf = PrivateBoostClassifier(classes=(0, 1)).fit(X, y)
    >>> float(clf.score(X, y)) > 0.8
    True

    The natural pipeline: declared feature ranges scaled onto the default bounds, then the defaults; and the paper's
    configuration by name:

    >>> from sklearn.pipeline import make_pipeline
    >>> from fast.preprocessing import PublicScaler
    >>> X4 = 4 * X
    >>> pipe = make_pipeline(PublicScaler(bounds=(-4.0, 4.0)), PrivateBoostClassifier(classes=(0, 1))).fit(X4, y)
    >>> float(pipe.score(X4, y)) > 0.8
    True
    >>> paper = PrivateBoostClassifier(weak_learner="halfspace", n_rounds=100, kappa=0.25, data_norm=2.0,
    ...                                classes=(0, 1)).fit(X, y)
    >>> paper.hypotheses_.shape
    (100, 3)
    """

    def __init__(self, epsilon=1.0, delta=1e-6, *, rho=None, n_rounds=25, kappa=0.2, lam=None,
                 booster="lazy_bregman", gamma=0.1, weak_learner="stump", data_norm=None, bounds=(-1.0, 1.0),
                 n_thresholds=16,
                 normalize=True, random_state=None, insecure_noise_seed=None, progress=False, classes=None):
        self.epsilon = epsilon
        self.delta = delta
        self.rho = rho
        self.n_rounds = n_rounds
        self.kappa = kappa
        self.lam = lam
        self.booster = booster
        self.gamma = gamma
        self.weak_learner = weak_learner
        self.data_norm = data_norm
        self.bounds = bounds
        self.n_thresholds = n_thresholds
        self.normalize = normalize
        self.random_state = random_state
        self.insecure_noise_seed = insecure_noise_seed
        self.progress = progress
        self.classes = classes

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._class_set() is not None  # one-vs-rest over declared k > 2
        # a private fit (public data_norm / bounds) reads NaN and non-numbers (a str) as its domain's centre, in fit
        # and predict (issue 25: one record's value must not decide whether the fit fails), never refuses them
        tags.input_tags.allow_nan = tags.input_tags.string = self._leaked_bound() is None
        tags.non_deterministic = True
        return tags

    # ------------------------------------------------------------------ parameters and budget
    def _validate_params(self):
        eps, dl = check_total_budget(self.epsilon, self.delta, delta_required=True)
        T = check_int(self.n_rounds, "n_rounds", minimum=1)
        kappa = check_kappa(self.kappa)
        lam = math.sqrt(math.log(1.0 / kappa) / T) if self.lam is None else check_lam(self.lam)
        if not (isinstance(self.booster, str) and self.booster in BOOSTERS):
            raise ValueError(f"booster must be one of {BOOSTERS}, got {self.booster!r}")
        if not (isinstance(self.weak_learner, str) and self.weak_learner in WEAK_LEARNERS):
            raise ValueError(f"weak_learner must be one of {WEAK_LEARNERS}, got {self.weak_learner!r}")
        if self.booster == "smooth":
            check_real(self.gamma, "gamma", low=0.0, high=0.5, low_open=True, high_open=True)
        if self.data_norm is not None:
            check_real(self.data_norm, "data_norm", low=0.0, low_open=True)
        check_int(self.n_thresholds, "n_thresholds", minimum=1)
        if self.classes is not None:
            check_class_set(self.classes)
            if len(check_class_set(self.classes)) > 2 and self.booster == "smooth":
                raise ValueError("classes with more than two labels (one-vs-rest) needs booster='lazy_bregman': "
                                 "SmoothBoost's propose-test-release stopping rule has no zCDP form to compose the "
                                 "k binary fits with")
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise TypeError(f"normalize must be a bool, got {type(self.normalize).__name__}")
        if self.rho is not None and self.booster == "smooth":
            raise ValueError("rho cannot be granted with booster='smooth': its propose-test-release stopping rule is "
                             "(epsilon, delta)-DP only (no zCDP form), so the fit could not be rho-zCDP; grant "
                             "epsilon and delta instead")
        if self.rho is None:
            rho_total = _acc.zcdp_to_dp_rho(eps, dl)
        else:
            check_real(self.rho, "rho", low=0.0, low_open=True)
            rho_total = float_down(scalar_of(self.rho))  # a Fraction (a ZCDPAccountant.split part) rounded DOWN
            if rho_total == 0:
                raise ValueError(f"rho must be a finite number in (0.0, inf), got {self.rho!r} (0 as a double)")
            eps = _acc.zcdp_to_dp_tight(rho_total, dl)
        return eps, dl, T, kappa, lam, rho_total

    def _bounds(self, X):
        if self.bounds is None:
            warnings.warn("bounds=None: the stump thresholds are read from the data's min and max, which leaks "
                          "privacy (the fit is NOT differentially private); pass bounds=(lower, upper)",
                          PrivacyLeakWarning, stacklevel=3)
            return X.min(axis=0), X.max(axis=0)
        try:
            lo, hi = self.bounds
        except (TypeError, ValueError):
            raise ValueError(f"bounds must be a pair (lower, upper), got {self.bounds!r}") from None
        d = X.shape[1]
        try:
            lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), (d,)).copy()
            hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), (d,)).copy()
        except (TypeError, ValueError):  # X's schema (its width) only, never a value
            raise ValueError(f"bounds must be (lower, upper) with real scalars or one entry per feature ({d} "
                             f"features), got {self.bounds!r}") from None
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or np.any(lo >= hi):
            raise ValueError("bounds must be finite with lower < upper for every feature")
        return lo, hi

    def _class_set(self):
        """The declared labels when ``classes`` declares k > 2 of them (one-vs-rest), else None (a pair, None, or
        an invalid value, refused by fit)."""
        try:
            labels = check_class_set(self.classes)
        except ValueError:
            return None
        return labels if len(labels) > 2 else None

    def _leaked_bound(self):
        """The name of the bound the fit would read from the data ("data_norm" or "bounds"), or None."""
        if self.weak_learner == "halfspace" and self.data_norm is None:
            return "data_norm"
        if self.weak_learner == "stump" and self.bounds is None:
            return "bounds"
        return None

    # ------------------------------------------------------------------ fit
    @private_release
    def fit(self, X, y, sample_weight=None, accountant=None):
        """Fit under the privacy contract; returns self.

        Parameters
        ----------
        X : array-like of shape (n, d)
        y : array-like of shape (n,)
            Any labels: +1 where y == classes[1], -1 for every other value (the declared label set is public).
        sample_weight : None
            Refused: weighting examples changes the privacy unit (a weight-w example is w examples to the
            neighbouring relation), so the guarantee would not hold as stated.
        accountant : fast.accounting.BudgetAccountant, fast.accounting.ZCDPAccountant or None, default=None
            Charged what the fit spends before any noise is drawn (BudgetExceeded if it does not fit): the (epsilon,
            delta) on a BudgetAccountant, the rho on a ZCDPAccountant (booster="lazy_bregman" only: SmoothBoost's
            stopping rule has no zCDP form).  Refused (ValueError) when ``data_norm`` / ``bounds`` is unset: a
            bound read from the data is not private, and no budget can pay for it.  A fit argument, not a
            constructor parameter: ``clone`` deep-copies parameters, so a cloned estimator's spends would never
            reach the user's ledger.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            ``sample_weight`` given, no ``classes`` (unless y has bool dtype), a bad hyper-parameter or budget.

        Examples
        --------
        >>> import numpy as np
        >>> from fast import PrivateBoostClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-1, 1, size=(2000, 3)); y = (X[:, 0] > 0).astype(int)  # in the default bounds
        >>> clf = PrivateBoostClassifier(classes=(0, 1)).fit(X, y)
        >>> clf.privacy_spent_.epsilon <= 1.0
        True
        """
        if sample_weight is not None:
            raise ValueError("sample_weight is not supported: weighting examples changes the privacy unit (the "
                             "replace-one guarantee would no longer hold as stated); duplicate or drop rows instead")
        from fast import _dask

        if _dask.is_dask_collection(X):  # rounds of exact distributed passes, the loop here (estimators/_distributed_boost.py)
            from fast.estimators import _distributed

            return _distributed.boost_fit(self, X, y, accountant=accountant)
        eps, dl, T, kappa, lam, rho_total = self._validate_params()
        leak = self._leaked_bound()
        if leak is not None and accountant is not None:
            raise ValueError(f"{leak}=None reads the {leak} from the data, so the fit is NOT differentially private "
                             f"and no budget can pay for it; pass a public {leak} to charge an accountant")
        refuse_seeded_charge(self.insecure_noise_seed, accountant)  # a seeded fit is not private: nothing to charge
        # the declared label set (issue 25), from the parameters and y's dtype alone; y's values only pick +1
        # (== classes[1]) or -1 (anything else): no check, warning or message reads which labels occur
        for stale in ("estimators_", "privacy_spent_per_class_"):  # a previous one-vs-rest fit's
            self.__dict__.pop(stale, None)
        labels = self._class_set()
        if labels is not None:
            return self._fit_one_vs_rest(X, y, labels, dl, T, kappa, rho_total, leak, accountant)
        pair = declared_classes(self.classes, y)
        if leak is None:  # the public value domain (issue 25): mapped into it, never refused one record at a time
            X = self._domain_data(X, reset=True)
        else:
            X = validate_data(self, X, dtype=np.float64)
        yf = declared_pm1(_column(y), pair, n=X.shape[0]).astype(np.float64)
        classes = classes_array(pair)
        n, d = X.shape
        if self.weak_learner == "halfspace":
            norm = self.data_norm
            if norm is None:
                warnings.warn("data_norm=None: the clipping norm is read from the data (its largest row norm), "
                              "which leaks privacy (the fit is NOT differentially private); pass data_norm",
                              PrivacyLeakWarning, stacklevel=2)
                norm = float(np.sqrt(np.einsum("ij,ij->i", X, X)).max()) or 1.0
            Z = self._scale(X, norm)
            dim = d
            self.data_norm_ = float(norm)
        else:
            lo, hi = self._bounds(X)
            self.bounds_ = (lo, hi)
            thr = lo[:, None] + (hi - lo)[:, None] * (np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1))
            self.thresholds_ = thr  # (d, n_thresholds), data-independent when bounds are given
            Xc = np.clip(X, lo, hi)
            bins = np.empty((n, d), dtype=np.int64)
            for j in range(d):
                bins[:, j] = np.searchsorted(thr[j], Xc[:, j], side="left") + j * (self.n_thresholds + 1)
            dim = d * self.n_thresholds
        if self.booster == "smooth":
            stump = None if self.weak_learner == "halfspace" else (bins, thr, Xc)
            self._fit_smooth(None if stump else Z, yf, classes, eps, dl, T, kappa, stump, n, d, accountant)
            if leak is not None:
                self.privacy_spent_ = _not_private(self.privacy_spent_, leak)
            self.privacy_spent_ = reported_spent(self.privacy_spent_, self.insecure_noise_seed)
            self._report_noise(n, d)
            return self
        if self.weak_learner == "halfspace":
            sensitivity = _pb.centroid_sensitivity(n, kappa)
            sigma, grid = _sigma_for_rho(rho_total / T, sensitivity, dim, T)
            rho_round = grid.rho
        else:
            sensitivity = _pb.stump_sensitivity(n, kappa)
            eps_r, rho_round = _stump_epsilon(rho_total, T, sensitivity)
            sigma = float("nan")
        rho_spent = _acc.zcdp_composition([rho_round] * T)
        eps_spent = _acc.zcdp_to_dp_tight(rho_spent, dl)  # <= the granted epsilon (rho_spent <= rho_total)
        spent = PrivacySpent(
            epsilon=float(eps_spent), delta=float(dl), rho=float(rho_spent),
            neighbouring="replace-one (one example (x, y) of the training set; n public)",
            accounting=(f"T = {T} rounds of a discrete-Gaussian release at L2 sensitivity {sensitivity:.6g} "
                        f"(4/(kappa n), Thm 22 + Lemma 21) on the grid 2^{grid.k}: rho = {grid.rho:.6g} each (zCDP "
                        f"composition, Lemma 14), tight conversion (CKS20 Prop. 12)" if self.weak_learner == "halfspace"
                        else f"T = {T} rounds of report-noisy-max (exact discrete Laplace) over {2 * dim} signed stumps "
                        f"at score sensitivity {sensitivity:.6g} (4/(kappa n): smooth measure + Lemma 21): pure "
                        f"eps_r = {eps_r:.6g} each, rho = eps_r^2/2 = {rho_round:.6g} (BS16 Prop. 1.4), zCDP "
                        f"composition (Lemma 14), tight conversion (CKS20 Prop. 12)"))
        # before any noise (BudgetExceeded refuses); a zCDP ledger is charged rho; no accountant: the default ledger
        charge_fit(spent, accountant, self.insecure_noise_seed, label=type(self).__name__)
        seed = noise_rng(self.insecure_noise_seed)
        gen = None if seed is None else as_generator(seed)  # None: OS-keyed words for every draw
        L = np.zeros(n)
        log_k = math.log(kappa)
        hyps = []
        step = max(1, T // 10)
        for t in range(T):
            mu = project_dense_log(log_k - lam * L, kappa)
            w = mu / float(np.sum(mu))
            v = w * yf
            if self.weak_learner == "halfspace":
                z = _release(v @ Z, grid, gen)
                if self.normalize:  # as fast.private_boosting (fsum): the loop is the library's run, word for word
                    nz = math.sqrt(math.fsum(z * z))
                    z = z / nz if nz > 0 else z
                hyps.append(z)
                h = Z @ z
            else:
                above = np.bincount(bins.ravel(), weights=np.repeat(v, d), minlength=d * (self.n_thresholds + 1))
                above = above.reshape(d, self.n_thresholds + 1)
                # sum of v over x_j > thr_t = total - sum over bins <= t  (bin b means thr[b-1] < x <= thr[b])
                cum = np.cumsum(above, axis=1)[:, :-1]
                total = float(v.sum())
                scores = (total - cum) - cum  # sum v h for h = +1 above, -1 at or below
                # report-noisy-max over the signed stumps (candidate 2 (j m + t) + (s == -1)), as noisy_stump
                c = _pb.report_noisy_max(np.stack([scores, -scores], axis=-1).ravel(), sensitivity, eps_r, rng=gen)
                j, ti = c // (2 * self.n_thresholds), (c // 2) % self.n_thresholds
                s = 1.0 if c % 2 == 0 else -1.0
                hyps.append((j, float(thr[j, ti]), s))
                h = s * np.where(Xc[:, j] > thr[j, ti], 1.0, -1.0)
            L += 1.0 - np.abs(np.clip(h, -1.0, 1.0) - yf) / 2.0
            if self.progress and (t + 1) % step == 0:
                print(f"PrivateBoostClassifier: round {t + 1}/{T}")
        self.classes_ = classes
        self.hypotheses_ = np.array(hyps, dtype=np.float64)
        if self.weak_learner == "halfspace":
            self.coef_ = self.hypotheses_.mean(axis=0)
        self.sigma_ = float(sigma)
        self.lam_ = float(lam)
        self.privacy_spent_ = reported_spent(spent if leak is None else _not_private(spent, leak),
                                             self.insecure_noise_seed)  # seeded: no guarantee
        self._report_noise(n, d)
        return self

    def _fit_one_vs_rest(self, X, y, labels, dl, T, kappa, rho_total, leak, accountant):
        """One-vs-rest over the k > 2 DECLARED classes (issue 28 item 8): k binary LazyBregBoost fits, fit c on ALL n
        rows with y == labels[c] as +1 and every other value as -1 (a value outside the declared set is positive
        for no class: ``spec.labels_contract.check_class_set``).  One example is in every binary problem, so the k
        fits compose: each is granted rho_total / k and the spends add up (zCDP composition, bun2020 Lemma 14, the
        zCDP form of basic composition).  Every fit has the same public n, d, kappa and T, so each spends the same
        rho, computed here before any noise (as the binary fit computes it) and charged once, in total.

        A dask X (from ``fast.estimators._distributed_boost.boost_fit``, issue 29): n from X's public chunk sizes,
        the k binary label vectors formed lazily on the workers (``fast.estimators._multiclass.dask_pm1``: y never
        reaches the driver), the composed total charged here before the first job, and the k binary fits are
        ``boost_fit``'s own (inside this one release: their charges are not recorded again)."""
        k = len(labels)
        distributed = _dask.is_dask_collection(X)
        if distributed:  # the rows stay on the workers; n, d from the chunk sizes (public schema)
            from fast.estimators._multiclass import dask_pm1

            _, offsets, _ = _dask.array_blocks(X)
            n, d = int(offsets[-1]), int(X.shape[1])
            for name in [key for key in self.__dict__ if key.endswith("_") and not key.startswith("_")]:
                del self.__dict__[name]  # a previous fit's attributes (validate_data resets them in memory)
            self.n_features_in_ = d
            columns = [dask_pm1(y, (labels[c - 1], labels[c]), index=c) for c in range(k)]  # lazy, before charging
        else:
            if leak is None:
                X = self._domain_data(X, reset=True)
            else:
                X = validate_data(self, X, dtype=np.float64)
            n, d = X.shape
            arr = label_array(_column(y), n)  # y's schema only (1-d, one label per row)
        rho_c = math.nextafter(rho_total / k, 0.0)  # k rho_c <= rho_total
        if self.weak_learner == "halfspace":
            sensitivity = _pb.centroid_sensitivity(n, kappa)
            rho_round = _sigma_for_rho(rho_c / T, sensitivity, d, T)[1].rho
        else:
            sensitivity = _pb.stump_sensitivity(n, kappa)
            rho_round = _stump_epsilon(rho_c, T, sensitivity)[1]
        rho_class = _acc.zcdp_composition([rho_round] * T)
        rho_spent = _acc.zcdp_composition([rho_class] * k)
        spent = PrivacySpent(
            epsilon=float(_acc.zcdp_to_dp_tight(rho_spent, dl)), delta=float(dl), rho=float(rho_spent),
            neighbouring="replace-one (one example (x, y) of the training set; n public)",
            accounting=(f"one-vs-rest over the k = {k} declared classes: k binary {self.weak_learner} fits, each on "
                        f"ALL n rows (one example is in every one), each granted rho/k = {rho_c:.6g} and spending "
                        f"rho = {rho_class:.6g} (T = {T} rounds at sensitivity {sensitivity:.6g}: "
                        f"privacy_spent_per_class_); zCDP composition over the k fits (Lemma 14), tight conversion "
                        f"(CKS20 Prop. 12)"))
        charge_fit(spent, accountant, self.insecure_noise_seed, label=type(self).__name__)  # before any noise
        if leak is not None:
            warnings.warn(f"{leak}=None: the {leak} is read from the data, which leaks privacy (the fit is NOT "
                          f"differentially private); pass {leak}", PrivacyLeakWarning, stacklevel=3)
        seed = self.insecure_noise_seed
        noise_rng(seed)  # warns once when seeded (test-only noise)
        subs = []
        for c in range(k):
            sub = clone(self).set_params(classes=(-1, 1), rho=rho_c, delta=dl,
                                         insecure_noise_seed=None if seed is None else int(seed) + c)
            # +1 exactly where y == labels[c]
            yc = columns[c] if distributed else declared_pm1(arr, (labels[c - 1], labels[c]), n=n)
            with warnings.catch_warnings():  # said once above, for the whole fit
                warnings.simplefilter("ignore", InsecureNoiseWarning)
                warnings.simplefilter("ignore", PrivacyLeakWarning)
                warnings.simplefilter("ignore", BoostingNoiseWarning)  # said once below, for the whole fit
                sub.fit(X, yc)  # inside this release: its own charge is not recorded again
            got = sub.privacy_spent_
            got = getattr(got, "noise_alone", None) or got
            if got.rho != rho_class:  # pragma: no cover - the plan above is the binary fit's, word for word
                raise ArithmeticError(f"class {c}: spent rho {got.rho!r} != the planned {rho_class!r}")
            subs.append(sub)
        self.estimators_ = subs
        self.classes_ = _labels_array(labels)
        self.hypotheses_ = np.stack([s.hypotheses_ for s in subs])
        if self.weak_learner == "halfspace":
            self.coef_ = np.stack([s.coef_ for s in subs])
            self.data_norm_ = subs[0].data_norm_
        else:
            self.bounds_, self.thresholds_ = subs[0].bounds_, subs[0].thresholds_
        self.sigma_, self.lam_ = subs[0].sigma_, subs[0].lam_
        self.privacy_spent_per_class_ = tuple(s.privacy_spent_ for s in subs)
        self.privacy_spent_ = reported_spent(spent if leak is None else _not_private(spent, leak), seed)
        self._report_noise(n, d, n_fits=k, stacklevel=5)  # each binary fit's rounds (all k the same: public n, d, rho / k)
        return self

    def _report_noise(self, n, d, n_fits=1, stacklevel=4):
        """Set ``noise_report_`` (:func:`boosting_noise` of the fit's public parameters, n and d) and warn
        :class:`BoostingNoiseWarning` when it is dominated; called after the fit, so a refused budget raises the
        fit's own error first.  Public quantities only (issue 28 item 6)."""
        self.noise_report_ = boosting_noise(
            self.epsilon, self.delta, n=n, d=d, rho=self.rho, n_rounds=self.n_rounds, kappa=self.kappa,
            booster=self.booster, weak_learner=self.weak_learner, n_thresholds=self.n_thresholds, n_fits=n_fits)
        warn_if_boosting_noise(self.noise_report_, stacklevel=stacklevel)  # 4: _report_noise, fit, private_release

    def _smooth_plan(self, eps, dl, T, kappa, stump, n, d, accountant):
        """SmoothBoost's budget, charged before any noise; returns (eps_r, delta_r, score / centroid sensitivity,
        epsilon spent, delta spent, the noise generator or None).  Per-round (eps_r, delta_r) from Theorem 53(2)
        with the sqrt(2): eps = 2 T eps_r^2 + 2 eps_r sqrt(2 T ln(2/delta)), delta = T e^eps_r delta_r + delta/2 (a
        ``rho`` grant is refused: the PTR stopping rule has no zCDP form).  The stump learner selects by
        report-noisy-max at pure eps_r (so (eps_r, delta_r) a fortiori) with score sensitivity 12/(kappa n), the
        centroid's bound under SB-NxM (the same 2 (w_max + zeta) argument, Lemma 52)."""
        b = 2.0 * math.sqrt(2.0 * T * math.log(2.0 / dl))
        eps_r = (-b + math.sqrt(b * b + 8.0 * T * eps)) / (4.0 * T) * (1 - 1e-12)
        delta_r = dl / (2.0 * T * math.exp(eps_r)) * (1 - 1e-12)
        if not (0.0 < delta_r < 1.0) or eps_r <= 0.0:
            raise ValueError(f"the privacy budget is too small to pay for one round of {T}")
        sensitivity = _pb.smoothboost_sensitivity(n, kappa)  # 12/(kappa n): w_max + Lemma 52 at density kappa/2
        try:  # the exact grid of the per-round noise must exist (raises before any budget is spent)
            if not stump:
                _mech.gaussian_grid(sensitivity, eps_r, delta_r, dimension=d)
            else:
                _pb.noisy_max_epsilon(sensitivity, eps_r)
        except ValueError as exc:
            raise ValueError(f"n_rounds is too large for the budget: per-round (eps, delta) = ({eps_r:.3g}, "
                             f"{delta_r:.3g}) cannot be met by the exact discrete noise in dimension {d} ({exc}); "
                             f"lower n_rounds or raise epsilon") from None
        eps_spent, delta_spent = _pb.smoothboost_privacy(eps_r, delta_r, T, dl / 2.0)
        if accountant is not None:
            if getattr(accountant, "rho_budget", None) is not None:  # a zCDP ledger: PTR has no rho to charge
                raise ValueError("booster='smooth' cannot be charged to a zCDP ledger: its propose-test-release "
                                 "stopping rule is (epsilon, delta)-DP only; use a BudgetAccountant")
        if accountant is not None or self.insecure_noise_seed is None:  # seeded: not private, not recorded
            # before any noise (BudgetExceeded refuses); no accountant: the default ledger
            charge_release(accountant, eps_spent, delta_spent, label=outer_label(type(self).__name__))
        seed = noise_rng(self.insecure_noise_seed)
        gen = None if seed is None else as_generator(seed)
        return eps_r, delta_r, sensitivity, eps_spent, delta_spent, gen

    def _fit_smooth(self, Z, yf, classes, eps, dl, T, kappa, stump, n, d, accountant):
        """SmoothBoost (:meth:`_smooth_plan`: the per-round budget and the charge, before any noise) on the rows
        in memory; the dask path runs the same rounds as distributed passes
        (``fast.estimators._distributed_boost``) and ends with :meth:`_smooth_attributes` too."""
        eps_r, delta_r, sensitivity, eps_spent, delta_spent, gen = self._smooth_plan(
            eps, dl, T, kappa, stump is not None, n, d, accountant)
        if stump is None:
            res = _pb.smooth_boost(Z, yf, float(self.gamma), kappa, T, eps_r, delta_r,
                                   normalize=bool(self.normalize), rng=gen)
            hyps, rounds = res.hypotheses, int(res.rounds)
        else:
            hyps, rounds = self._smooth_stumps(yf, kappa, T, eps_r, delta_r, sensitivity, stump, gen)
        return self._smooth_attributes(hyps, rounds, classes, stump is not None, d, T, eps_r, delta_r, eps_spent,
                                       delta_spent)

    def _smooth_attributes(self, hyps, rounds, classes, stump, d, T, eps_r, delta_r, eps_spent, delta_spent):
        """The fitted attributes of a SmoothBoost run of ``rounds`` rounds (hypotheses ``hyps``)."""
        if not stump:
            self.hypotheses_ = np.asarray(hyps, dtype=np.float64).reshape(rounds, d) if rounds else np.zeros((1, d))
            self.coef_ = self.hypotheses_.mean(axis=0)
            learner = "Gaussian centroid at L2 sensitivity 12/(kappa n)"
        else:
            self.hypotheses_ = np.array(hyps, dtype=np.float64).reshape(len(hyps), 3) if rounds else \
                np.array([[0.0, np.inf, 1.0]])  # no round: a stump that is -1 everywhere (classes_[0])
            learner = "report-noisy-max stump (discrete Laplace, pure eps_r) at score sensitivity 12/(kappa n)"
        self.classes_ = classes
        self.n_rounds_run_ = rounds
        self.sigma_ = float("nan")  # calibrated per round by the mechanisms at (eps_r, delta_r)
        self.lam_ = float("nan")
        self.privacy_spent_ = PrivacySpent(
            epsilon=float(eps_spent), delta=float(delta_spent), rho=None,
            neighbouring="replace-one (one example (x, y) of the training set; n public)",
            accounting=(f"SmoothBoost capped at T = {T} rounds ({rounds} run), each (2 eps_r, e^eps_r delta_r)-DP "
                        f"with eps_r = {eps_r:.6g}, delta_r = {delta_r:.3g} (Lemmas 49-50: Laplace PTR test + "
                        f"{learner}); Theorem 48 with the sqrt(2) (A3), delta' = delta/2"))
        return self

    def _smooth_stumps(self, yf, kappa, T, eps_r, delta_r, sensitivity, stump, gen):
        """SB-NxM (Alg. 13) + the Laplace PTR test (Alg. 10-12) as fast.private_boosting.smooth_boost, with the
        report-noisy-max stump as the weak learner."""
        bins, thr, Xc = stump
        n, d = Xc.shape
        m = self.n_thresholds
        g = float(self.gamma)
        threshold = 2.0 + math.log(1.0 / delta_r) / eps_r
        sums = np.zeros(n)
        hyps = []
        for t in range(T):
            mu = _pb.sb_nxm(sums, t, g)
            size = math.fsum(mu)
            noisy = _mech.laplace_mechanism(size - kappa * n / 2.0, sensitivity=1.0, epsilon=eps_r, rng=gen)
            if not noisy > threshold:
                break
            v = mu / size * yf
            above = np.bincount(bins.ravel(), weights=np.repeat(v, d), minlength=d * (m + 1)).reshape(d, m + 1)
            cum = np.cumsum(above, axis=1)[:, :-1]
            scores = (float(v.sum()) - cum) - cum
            c = _pb.report_noisy_max(np.stack([scores, -scores], axis=-1).ravel(), sensitivity, eps_r, rng=gen)
            j, ti, s = c // (2 * m), (c // 2) % m, 1.0 if c % 2 == 0 else -1.0
            hyps.append((j, float(thr[j, ti]), s))
            sums += yf * s * np.where(Xc[:, j] > thr[j, ti], 1.0, -1.0)
            if self.progress and (t + 1) % max(1, T // 10) == 0:
                print(f"PrivateBoostClassifier: round {t + 1}/{T}")
        return hyps, len(hyps)

    def _in_domain(self, X):
        """X in the PUBLIC domain of the fit (issue 25; ``spec.privacy_contract.to_domain``), the same map in fit
        and predict.  Halfspace: the ball of radius data_norm, every row clipped to it by :meth:`_scale` (any finite
        norm, also beyond the float range of its square); an entry +-inf is read as +-the largest double, so its
        row is clipped along the limit direction.  Stump: each feature clamped to its [lower, upper] (as the
        thresholds always did).  NaN and anything that is not a real number (None, a str, a list) is read as the
        domain's centre: 0, or (lower + upper)/2.  Only the dtype / shape is checked (a str or datetime dtype is
        refused as a schema error), never one value."""
        if self.weak_learner == "halfspace":
            top = float(np.finfo(np.float64).max)
            return to_domain(X, "X", low=-top, high=top, ndim=2)
        lo, hi = self._bounds(X)  # the public bounds (X's shape only: bounds is set here)
        return to_domain(X, "X", low=lo, high=hi, ndim=2)

    def _domain_data(self, X, *, reset):
        """validate_data for a private fit / its predictions: X's names and shape checked, its values mapped by
        :meth:`_in_domain` (a Python sequence is read element by element: its numpy dtype would depend on them)."""
        X = np.asarray(X, dtype=object) if isinstance(X, (list, tuple)) else X
        return self._in_domain(validate_data(self, X, dtype=None, ensure_all_finite=False, reset=reset))

    @staticmethod
    def _scale(X, norm):
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
        factor = 1.0 / np.maximum(norms, norm)  # clip to the ball of radius norm, then scale into B_d(1)
        Z = X * factor[:, None]
        # ||x||^2 beyond the float range (entries above ~1e154): the same map, by scaling x / max|x_j| (norm in [1,
        # sqrt(d)]).  Computed for EVERY row and selected, never branched on: the code a private fit runs must not
        # depend on one record's value (issue 25)
        peak = np.max(np.abs(X), axis=1)
        safe = np.where(peak > 0, peak, 1.0)
        unit = X / safe[:, None]
        big = unit / np.maximum(np.sqrt(np.einsum("ij,ij->i", unit, unit)), norm / safe)[:, None]
        return np.where(np.isinf(norms)[:, None], big, Z)

    # ------------------------------------------------------------------ predict
    @_dask.lazy_rows
    def decision_function(self, X):
        """H(x) = (1/T) sum_t clip(h_t(x), -1, 1) in [-1, 1] (the boosted average of Theorem 20); one-vs-rest: one
        column per declared class.

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,), or (m, k) one-vs-rest

        Examples
        --------
        >>> import numpy as np
        >>> from fast import PrivateBoostClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-1, 1, size=(2000, 3)); y = (X[:, 0] > 0).astype(int)  # in the default bounds
        >>> clf = PrivateBoostClassifier(classes=(0, 1)).fit(X, y)
        >>> bool(np.all(np.abs(clf.decision_function(X[:5])) <= 1))
        True
        """
        check_is_fitted(self, "hypotheses_")
        if self._leaked_bound() is None:  # the fit's public domain (issue 25): the same map as fit
            X = self._domain_data(X, reset=False)
        else:
            X = validate_data(self, X, dtype=np.float64, reset=False)
        if hasattr(self, "estimators_"):  # one-vs-rest: one column per declared class
            return np.column_stack([est.decision_function(X) for est in self.estimators_])
        if self.weak_learner == "halfspace":
            Z = self._scale(X, self.data_norm_)
            return np.clip(Z @ self.hypotheses_.T, -1.0, 1.0).mean(axis=1)
        lo, hi = self.bounds_
        Xc = np.clip(X, lo, hi)
        out = np.zeros(X.shape[0])
        for j, thr, s in self.hypotheses_:
            out += s * np.where(Xc[:, int(j)] > thr, 1.0, -1.0)
        return out / len(self.hypotheses_)

    @_dask.lazy_rows
    def predict(self, X):
        """classes_[1] where H(x) > 0, else classes_[0] (scikit-learn's convention: a tie H = 0, possible with an
        even number of stumps, goes to classes_[0]; the paper leaves sgn(0) undefined).

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        ndarray of shape (m,)

        Examples
        --------
        >>> import numpy as np
        >>> from fast import PrivateBoostClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-1, 1, size=(2000, 3)); y = (X[:, 0] > 0).astype(int)  # in the default bounds
        >>> clf = PrivateBoostClassifier(classes=(0, 1)).fit(X, y)
        >>> clf.predict(X[:3]).shape
        (3,)
        """
        scores = self.decision_function(X)
        if scores.ndim == 2:  # one-vs-rest: the class of the largest boosted average (a tie: the first declared)
            return self.classes_[np.argmax(scores, axis=1)]
        return np.where(scores > 0, self.classes_[1], self.classes_[0])

    @_dask.lazy_rows
    def predict_proba(self, X):
        """P(classes_[1] | x) = (1 + H(x)) / 2 (H the boosted average in [-1, 1]; a score, not calibrated).

        Parameters
        ----------
        X : array-like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, 2)

        Examples
        --------
        >>> import numpy as np
        >>> from fast import PrivateBoostClassifier
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-1, 1, size=(2000, 3)); y = (X[:, 0] > 0).astype(int)  # in the default bounds
        >>> clf = PrivateBoostClassifier(classes=(0, 1)).fit(X, y)
        >>> clf.predict_proba(X[:2]).shape
        (2, 2)
        """
        scores = self.decision_function(X)
        if scores.ndim == 2:  # one-vs-rest: (1 + H_c) / 2 normalised over the classes (all zero: uniform)
            p = (1.0 + scores) / 2.0
            total = p.sum(axis=1, keepdims=True)
            return np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / p.shape[1])
        p = (1.0 + scores) / 2.0
        return np.column_stack([1.0 - p, p])


# ---------------------------------------------------------------------------------------------------------
# how much of each round's private selection is noise, from public quantities only (issue 28 item 6)
# ---------------------------------------------------------------------------------------------------------
#: ``noise_to_signal`` above which a STUMP fit warns (:class:`BoostingNoiseWarning`): the 95 % selection gap of
#: report-noisy-max over 5 times the largest stump score (1), i.e. 2.5 times the largest gap two scores in [-1, 1]
#: can have.  Measured on the utility benchmark (docs/utility/results.json: 10 tasks, 537 to 20,000 rows, d 4 to
#: 784, epsilon 0.1 to 10, 5 repeats, the defaults T = 25, kappa = 0.2, n_thresholds = 16, delta = 1e-6): of the
#: 15 (task, epsilon) above 5, 1 closed a quarter of the gap between the majority error and LogisticRegression's
#: (abalone at epsilon 0.5, ratio 5.8, closed 0.67); of the 45 at or below 5, 38 did.
STUMP_NOISE_RATIO = 5.0
#: ``noise_to_signal`` above which a HALFSPACE fit warns: the centroid's noise norm sigma sqrt(d) above the largest
#: centroid norm (1).  Measured as above: of the 15 (task, epsilon) above 1, none closed a quarter of the gap (the
#: best 0.16, banknote at epsilon 0.5); of the 45 at or below 1, 24 did (the halfspace learner does not learn
#: wine_white, mnist or pima even at epsilon 10: its ceiling, not noise).
CENTROID_NOISE_RATIO = 1.0
#: the alpha of the report: 95 % accuracies (OpenDP's accuracy helpers at alpha = 0.05)
BOOSTING_NOISE_ALPHA = 0.05
_Z95 = 1.959963984540054  # the 0.975 quantile of N(0, 1)


class BoostingNoiseWarning(UserWarning):
    """A private boosting fit whose per-round selection is mostly noise, decided from PUBLIC quantities alone.

    Warned by :meth:`PrivateBoostClassifier.fit` (and ``privlearn boost``, which prints it) when the report's
    ``noise_to_signal`` (:func:`boosting_noise`) exceeds its threshold (:data:`STUMP_NOISE_RATIO` = 5,
    :data:`CENTROID_NOISE_RATIO` = 1): for the stump learner the
    95 % gap a stump's score must have over the other candidates' to be picked by report-noisy-max (the union
    bound over the K - 1 noise differences: 8.5 b at K = 96, against the one-sided b ln(K / alpha) = 7.6 b; b the
    discrete Laplace scale in score units) against the largest score a stump can
    have (1: every weighted example right); for the halfspace learner the noise norm of the centroid
    (sigma sqrt(d)) against the largest centroid norm (1: unit-ball rows, weights summing to 1).  Above the
    threshold the benchmark's fits did not learn (docs/privacy_security.md, "Expected noise").  It depends on
    epsilon / delta / rho, n (public under replace-one), d, the rounds, kappa, the learner and n_thresholds only,
    never on a value of X or y, so it is the same on neighbouring data sets and reveals nothing about them.  Raise
    epsilon, lower n_rounds or n_thresholds, or use more rows.

    Examples
    --------
    >>> from fast.estimators.boosting import BoostingNoiseWarning
    >>> issubclass(BoostingNoiseWarning, UserWarning)
    True
    """


@dataclass(frozen=True)
class BoostingNoiseReport:
    """Expected noise of one round of a private boosting fit against the public signal range
    (:func:`boosting_noise`; ``PrivateBoostClassifier.noise_report_``).  Every figure is a function of the public
    parameters and of n and d alone, never of the data's values.

    Parameters
    ----------
    booster, weak_learner : str
    n, d, n_rounds : int
        Examples, features, rounds (the cap, for SmoothBoost).
    kappa : float
    mechanism : str
        The per-round release.
    sensitivity : float
        Per-round sensitivity: of every stump score (report-noisy-max) or the centroid's L2 sensitivity.
    epsilon_round : float or None
        The pure epsilon of one report-noisy-max selection (delivered on the exact grid); the per-round epsilon of
        SmoothBoost's Gaussian centroid; None for LazyBregBoost's centroid (calibrated in rho).
    rho_round : float or None
        The zCDP rho of one round (None under SmoothBoost).
    noise_scale : float
        The discrete Laplace scale b of each score (report-noisy-max, in score units: ``laplace_grid`` scale times
        its grid step) or the delivered sd sigma of each coordinate of the centroid.
    candidates : int
        Report-noisy-max candidates K = 2 d n_thresholds (signed stumps); d for the centroid (its coordinates).
    alpha : float
    score_accuracy_95 : float
        The 95 % accuracy of ONE noisy score, b ln(1/alpha) (OpenDP ``laplacian_scale_to_accuracy``), or of one
        centroid coordinate, sigma z_(1 - alpha/2) (``gaussian_scale_to_accuracy``).
    selection_gap_95 : float or None
        Stump: b x with (K - 1) e^(-x) (2 + x) / 4 = alpha, the margin a score needs over every other to be selected
        w.p. >= 1 - alpha (the union bound over the K - 1 differences L_j - L_w of two iid Laplace(b) draws; the
        winner's noise counts too, so it exceeds the one-sided b ln(K/alpha)).  None for the centroid.
    noise_norm : float or None
        Centroid: sigma sqrt(d), the root-mean-square norm of its noise.  None for the stump.
    signal_max : float
        1.0: the largest stump score (weights summing to 1, every example right), or the largest centroid norm.
    advantage_needed : float
        noise / 2 in advantage units (a score q is an advantage q/2 over one half): the advantage a stump must beat
        the others by to be picked at 95 %, or the centroid's noise norm halved; compare with the weak learner's
        advantage gamma the booster assumes (the paper's tau / gamma, at most 1/2).
    noise_to_signal : float
        (selection_gap_95 or noise_norm) / signal_max; what :class:`BoostingNoiseWarning` compares with
        ``threshold``.
    threshold : float
        :data:`STUMP_NOISE_RATIO` or :data:`CENTROID_NOISE_RATIO` (SmoothBoost: the same per learner; it was not
        benchmarked separately).
    dominated : bool
        noise_to_signal > threshold.

    Examples
    --------
    >>> from fast.estimators.boosting import boosting_noise
    >>> r = boosting_noise(1.0, 1e-6, n=20000, d=105)
    >>> r.mechanism, r.candidates, r.dominated
    ('report-noisy-max (discrete Laplace)', 3360, False)
    """

    booster: str
    weak_learner: str
    n: int
    d: int
    n_rounds: int
    kappa: float
    mechanism: str
    sensitivity: float
    epsilon_round: float | None
    rho_round: float | None
    noise_scale: float
    candidates: int
    alpha: float
    score_accuracy_95: float
    selection_gap_95: float | None
    noise_norm: float | None
    signal_max: float
    advantage_needed: float
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
        >>> from fast.estimators.boosting import boosting_noise
        >>> sorted(boosting_noise(1.0, 1e-6, n=1000, d=3).as_dict())[:3]
        ['advantage_needed', 'alpha', 'booster']
        """
        return asdict(self)


def boosting_noise(epsilon=1.0, delta=1e-6, *, n, d, rho=None, n_rounds=25, kappa=0.2, booster="lazy_bregman",
                   weak_learner="stump", n_thresholds=16, n_fits=1) -> BoostingNoiseReport:
    """How much of each round of :class:`PrivateBoostClassifier` is noise, from public quantities only: the
    calibration the fit itself makes (the same functions, the same grids), against the public signal range
    [OpenDP ``laplacian_scale_to_accuracy`` / ``gaussian_scale_to_accuracy`` at alpha = 0.05]

    Parameters
    ----------
    epsilon, delta : float
        The fit's TOTAL budget (ignored for the split when ``rho`` is given).
    n, d : int
        Examples (public under replace-one) and features.
    rho : float or None
        A zCDP grant instead of (epsilon, delta) (booster="lazy_bregman").
    n_rounds, kappa, booster, weak_learner, n_thresholds
        As :class:`PrivateBoostClassifier`.
    n_fits : int, default=1
        One-vs-rest: the k binary fits the budget is split over (each gets rho / k).

    Returns
    -------
    BoostingNoiseReport

    Raises
    ------
    ValueError
        A budget that cannot pay for one round, or a bad argument (named in the message).

    Examples
    --------
    >>> from fast.estimators.boosting import boosting_noise
    >>> r = boosting_noise(0.1, 1e-6, n=537, d=8)  # pima at epsilon 0.1: selection mostly random
    >>> round(r.noise_to_signal, 1), r.dominated
    (141.1, True)
    """
    n = check_int(n, "n", minimum=1)
    d = check_int(d, "d", minimum=1)
    k_fits = check_int(n_fits, "n_fits", minimum=1)
    est = PrivateBoostClassifier(epsilon, delta, rho=rho, n_rounds=n_rounds, kappa=kappa, booster=booster,
                                 weak_learner=weak_learner, n_thresholds=n_thresholds, data_norm=1.0)
    eps, dl, T, kappa, _lam, rho_total = est._validate_params()
    m = int(n_thresholds)
    alpha = BOOSTING_NOISE_ALPHA
    eps_r = rho_r = None
    if booster == "smooth":
        b_ = 2.0 * math.sqrt(2.0 * T * math.log(2.0 / dl))
        eps_r = (-b_ + math.sqrt(b_ * b_ + 8.0 * T * eps)) / (4.0 * T) * (1 - 1e-12)  # as _fit_smooth
        delta_r = dl / (2.0 * T * math.exp(eps_r)) * (1 - 1e-12)
        if not (0.0 < delta_r < 1.0) or eps_r <= 0.0:  # as _fit_smooth refuses it
            raise ValueError(f"the privacy budget is too small to pay for one round of {T}")
        sensitivity = _pb.smoothboost_sensitivity(n, kappa)
        if weak_learner == "halfspace":
            grid = _mech.gaussian_grid(sensitivity, eps_r, delta_r, dimension=d)
            sigma = math.sqrt(grid.sigma2_grid) * grid.granularity
        else:
            eps_r = _pb.noisy_max_epsilon(sensitivity, eps_r)
    else:
        rho_c = rho_total if k_fits == 1 else math.nextafter(rho_total / k_fits, 0.0)
        if weak_learner == "halfspace":
            sensitivity = _pb.centroid_sensitivity(n, kappa)
            _s, grid = _sigma_for_rho(rho_c / T, sensitivity, d, T)
            sigma = math.sqrt(grid.sigma2_grid) * grid.granularity  # the DELIVERED sd
            rho_r = float(grid.rho)
        else:
            sensitivity = _pb.stump_sensitivity(n, kappa)
            eps_r, rho_r = _stump_epsilon(rho_c, T, sensitivity)
    if weak_learner == "halfspace":
        scale, K = float(sigma), d
        acc, gap, norm = _Z95 * scale, None, scale * math.sqrt(d)
        noise, mech = norm, "discrete Gaussian centroid"
    else:
        grid = _mech.laplace_grid(sensitivity, eps_r / 2.0)  # report_noisy_max's own grid
        scale, K = float(grid.scale) * float(grid.granularity), 2 * d * m
        acc, gap, norm = scale * math.log(1.0 / alpha), scale * _noisy_max_gap(K, alpha), None
        noise, mech = gap, "report-noisy-max (discrete Laplace)"
    ratio = noise / 1.0
    threshold = CENTROID_NOISE_RATIO if weak_learner == "halfspace" else STUMP_NOISE_RATIO
    return BoostingNoiseReport(
        booster=booster, weak_learner=weak_learner, n=n, d=d, n_rounds=T, kappa=float(kappa), mechanism=mech,
        sensitivity=float(sensitivity), epsilon_round=None if eps_r is None else float(eps_r),
        rho_round=None if rho_r is None else float(rho_r), noise_scale=scale, candidates=K, alpha=alpha,
        score_accuracy_95=acc, selection_gap_95=gap, noise_norm=norm, signal_max=1.0, advantage_needed=noise / 2.0,
        noise_to_signal=ratio, threshold=threshold, dominated=bool(ratio > threshold))


def _noisy_max_gap(k: int, alpha: float) -> float:
    """x with (k - 1) P(L_j - L_w >= x b) = (k - 1) e^(-x) (2 + x) / 4 = alpha: the margin (in units of the Laplace
    scale b) a score needs over k - 1 others for report-noisy-max to select it w.p. >= 1 - alpha, by the union
    bound over the k - 1 DIFFERENCES of two iid Laplace(b) draws (the winner's own noise included: b ln(k / alpha),
    the bound with the winner's noise left out, was selected only 94.05 % of the time in 2,000 draws at k = 16)."""
    if k < 2:
        return 0.0
    lo, hi = 0.0, 2.0 * math.log(k / alpha) + 4.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if (k - 1) * math.exp(-mid) * (2.0 + mid) / 4.0 > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def warn_if_boosting_noise(report, *, stacklevel=2) -> bool:
    """Warn :class:`BoostingNoiseWarning` when ``report.dominated`` (a :class:`BoostingNoiseReport`; None: no
    report, no warning).  Public quantities only: the same call on any data of the same shape warns the same way.

    Parameters
    ----------
    report : BoostingNoiseReport or None
    stacklevel : int, default=2

    Returns
    -------
    bool
        Whether it warned.

    Raises
    ------
    TypeError
        ``report`` is neither None nor a :class:`BoostingNoiseReport`; ``stacklevel`` is not an int >= 1.

    Examples
    --------
    >>> import warnings
    >>> from fast.estimators.boosting import boosting_noise, warn_if_boosting_noise
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_boosting_noise(boosting_noise(0.1, 1e-6, n=537, d=8))
    True
    >>> caught[0].category.__name__
    'BoostingNoiseWarning'
    """
    if report is not None and not isinstance(report, BoostingNoiseReport):
        raise TypeError(f"report must be None or a BoostingNoiseReport (boosting_noise), got "
                        f"{type(report).__name__}")
    if isinstance(stacklevel, bool) or not isinstance(stacklevel, int) or stacklevel < 1:
        raise TypeError(f"stacklevel must be an int >= 1, got {stacklevel!r}")
    if report is None or not report.dominated:
        return False
    what = (f"the 95 % gap a stump's score needs over the other {report.candidates - 1} candidates to be selected, "
            f"{report.selection_gap_95:.3g} (discrete Laplace scale b = {report.noise_scale:.3g})"
            if report.selection_gap_95 is not None else
            f"the noise norm of the centroid, sigma sqrt(d) = {report.noise_norm:.3g} (sigma = "
            f"{report.noise_scale:.3g} per coordinate)")
    warnings.warn(
        f"the private boosting rounds are mostly noise: {what} is {report.noise_to_signal:.3g} times the largest "
        f"signal ({report.signal_max:g}; n = {report.n}, d = {report.d}, {report.n_rounds} rounds, kappa = "
        f"{report.kappa:g}), above {report.threshold:g}, where the benchmark's fits did not learn "
        "(docs/privacy_security.md, 'Expected noise'); a larger epsilon, fewer rounds or thresholds, or more rows "
        "lower it", BoostingNoiseWarning, stacklevel=stacklevel + 1)
    return True
