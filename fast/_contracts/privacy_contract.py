"""The privacy contract of every private estimator and factory (both packages, every family).

Three rules, one definition here so that every estimator follows them the same way:

1. **Private noise comes from the operating system's entropy.**  An estimator's ``random_state`` seeds only the
   non-private randomness (signatures, splits, initialisations).  The noise of every mechanism is drawn with
   ``rng=noise_rng(self.insecure_noise_seed)``, which is ``None`` (the mechanisms' OS-entropy path) unless the
   caller set the loudly named, test-only ``insecure_noise_seed``; that option warns
   (:class:`InsecureNoiseWarning`) every time it is used, a seeded fit reports NO guarantee (``privacy_spent_``
   epsilon = inf, delta = 1, with the reason: :func:`reported_spent`), and a fit given both the seed and an
   ``accountant`` is refused with a ValueError before anything is drawn (:func:`refuse_seeded_charge`): a ledger is
   never charged as if a seeded release were private.
2. **One budget on the way in, the truth on the way out.**  Estimators take the TOTAL (epsilon, delta) the user
   grants, split it internally, refuse a void request (:func:`check_total_budget`) before reading the data, and
   expose ``privacy_spent_``, a :class:`PrivacySpent`.
3. **Private results carry only private values.**  No exact data-dependent statistic is kept on a fitted private
   object; research diagnostics live in explicitly non-private functions.
4. **One record's value never decides the outcome** (issue 25).  A private path maps every numeric value into its
   PUBLIC declared domain with :func:`to_domain` (clamped; NaN and anything that is not a real number read as the
   domain's centre) instead of refusing it; only a schema check of the dtype and shape (never of one value) may
   refuse the data.
"""
from __future__ import annotations

import math
import numbers
import sys
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from fast._contracts.validation import scalar_of

__all__ = [
    "InsecureNoiseWarning",
    "NEIGHBOURING",
    "PrivacySpent",
    "check_total_budget",
    "exact_share",
    "float_down",
    "float_up",
    "no_guarantee",
    "refuse_seeded_charge",
    "reported_spent",
    "WordRandom",
    "noise_generator",
    "noise_rng",
    "to_domain",
]

#: the neighbouring relations a guarantee may be stated for
NEIGHBOURING = ("replace-one", "add/remove-one")


class InsecureNoiseWarning(UserWarning):
    """Private noise was drawn from a seeded generator: the output is NOT differentially private."""


def noise_rng(insecure_noise_seed=None):
    """The ``rng`` to pass to the mechanisms for PRIVATE noise.

    Parameters
    ----------
    insecure_noise_seed : None or int
        None (the default and the only safe value): returns None, so the mechanisms read OS entropy.  An int
        (tests only): returns that seed, with an :class:`InsecureNoiseWarning`, so a test can reproduce the
        noise.  Anyone who knows the seed can subtract the noise, so the release is then not private.

    Returns
    -------
    None or int
    """
    if insecure_noise_seed is None:
        return None
    if isinstance(insecure_noise_seed, bool) or not isinstance(insecure_noise_seed, numbers.Integral):
        raise TypeError(f"insecure_noise_seed must be None or an int, got {type(insecure_noise_seed).__name__}")
    if insecure_noise_seed < 0:
        raise ValueError(f"insecure_noise_seed must be None or an int >= 0, got {insecure_noise_seed}")
    warnings.warn(
        "insecure_noise_seed is set: the privacy noise is reproducible from the seed and the output is NOT "
        "differentially private (use it in tests only)", InsecureNoiseWarning, stacklevel=3)
    return int(insecure_noise_seed)


class WordRandom:
    """Private uniform randomness for samplers that need raw words and uniform doubles (DP-Feat), read from the
    SAME vetted word stream as the exact mechanisms: :class:`spec.words.WordBlocks` (``rng=None``: the first 64
    words from ``os.urandom``, then AES-256-CTR keyed afresh from ``os.urandom(48)``, the CTR_DRBG construction;
    docs/privacy_security.md).

    Two draws, each consuming words in order (no word is used twice, none skipped):

    * ``integers(0, 2**64, size=k, dtype=numpy.uint64)``: the next k words, as they are;
    * ``random(shape)``: one word per double, ``(w >> 11) * 2^-53``, exactly uniform on the 2^53-point grid of
      [0, 1) (numpy's own conversion, so a seeded ``WordRandom`` reproduces ``Generator.random`` of the same bits).

    Only these two calls exist (a duck-typed subset of ``numpy.random.Generator``); anything else raises.

    Parameters
    ----------
    rng : None
        None (private): OS-keyed AES-CTR words.  A seed or Generator is accepted for tests of this class only.
    """

    def __init__(self, rng=None):
        from fast._contracts.words import WordBlocks

        self._blocks = WordBlocks(rng)
        self._buffer = np.empty(0, dtype=np.uint64)
        self._pos = 0

    def words(self, k: int) -> np.ndarray:
        """The next k words (uint64), in stream order."""
        k = int(k)
        parts, need = [], k
        while need > 0:
            if self._pos == self._buffer.shape[0]:
                self._buffer, self._pos = self._blocks.next_block(), 0
            take = min(need, self._buffer.shape[0] - self._pos)
            parts.append(self._buffer[self._pos:self._pos + take])
            self._pos += take
            need -= take
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.uint64)

    def integers(self, low, high, size=None, dtype=np.uint64):
        """Only ``integers(0, 2**64, size=k, dtype=uint64)``: the next k words."""
        if low != 0 or high != 2**64 or np.dtype(dtype) != np.uint64 or size is None:
            raise TypeError("WordRandom.integers supports only (0, 2**64, size=k, dtype=uint64): raw words")
        return self.words(int(np.prod(size))).reshape(size)

    def random(self, size=None):
        """Uniform doubles on the 2^53 grid of [0, 1), one word each: ``(w >> 11) * 2^-53``."""
        shape = () if size is None else size
        w = self.words(int(np.prod(shape)))
        out = (w >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
        return float(out[0]) if size is None else out.reshape(shape)


def noise_generator(noise):
    """The private randomness a generator-driven sampler (DP-Feat) draws from, given what :func:`noise_rng` returned.

    Parameters
    ----------
    noise : None or int
        None: a :class:`WordRandom` over the OS-keyed AES-256-CTR word stream of ``spec.words`` (the mechanisms'
        own source).  An int (the test-only ``insecure_noise_seed``, already warned about by :func:`noise_rng`):
        ``numpy.random.default_rng(noise)``.

    Returns
    -------
    WordRandom or numpy.random.Generator
    """
    if noise is None:
        return WordRandom(None)
    if isinstance(noise, bool) or not isinstance(noise, numbers.Integral):
        raise TypeError(f"noise_rng must be None or an int (from noise_rng()), got {type(noise).__name__}")
    return np.random.default_rng(int(noise))


def float_up(q) -> float:
    """The smallest double >= the exact rational q (a reported spend is never understated)."""
    q = Fraction(q)
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def exact_share(total, k: int) -> float:
    """The largest double s <= total / k: k s <= total EXACTLY (rationals), so k parts never overspend."""
    t = Fraction(total)
    s = float(t / k)
    while Fraction(s) * k > t:
        s = math.nextafter(s, 0.0)
    return s


def _shown(value) -> str:
    """A number as a person reads it (numpy scalars without their type: 0.0, not np.float32(0.0))."""
    return repr(float(value)) if isinstance(value, np.generic) else repr(value)


def check_total_budget(epsilon, delta=0.0, *, delta_required=False):
    """Validate the TOTAL budget a user grants, before any data is read.

    Parameters
    ----------
    epsilon : float
        Must be a finite number > 0.
    delta : float
        Must be in [0, 1) (delta >= 1 is no guarantee at all); > 0 when ``delta_required``.
    delta_required : bool
        The mechanism is approximate-DP only (e.g. Gaussian noise, propose-test-release).

    Returns
    -------
    (float, float)
        ``(epsilon, delta)`` as floats (a 0-d numeric array is its number, as in ``spec.validation.scalar_of``),
        each the largest double <= the value granted (:func:`float_down`): a Fraction (a part of
        ``accountant.split(k)``) or a large int is rounded DOWN, never to nearest, so what is calibrated, delivered
        and charged stays within the grant and the k parts of a split all fit (issue 25: ``float(Fraction(1, 10))``
        is 1 ulp above 1/10, and the k-th fit of ``for part in acc.split(k)`` was refused for 7 of 11 k).

    Raises
    ------
    TypeError
        A non-number (or bool).
    ValueError
        epsilon not finite or <= 0 (or below the smallest double), delta outside [0, 1), or 0 when required.
    """
    epsilon, delta = scalar_of(epsilon), scalar_of(delta)
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a finite number > 0, got {type(epsilon).__name__}")
    if not _finite(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon must be a finite number > 0, got {_shown(epsilon)}")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise TypeError(f"delta must be a number in [0, 1), got {type(delta).__name__}")
    if not (0 <= delta < 1):
        raise ValueError(f"delta must be a number in [0, 1) (delta >= 1 guarantees nothing), got {_shown(delta)}")
    eps, dl = float_down(epsilon), float_down(delta)
    if eps == 0:
        raise ValueError(f"epsilon must be a finite number > 0, got {_shown(epsilon)} (0 as a double, rounded down)")
    if delta_required and dl == 0:
        shown = "0" if delta == 0 else f"{_shown(delta)} (0 as a double, rounded down)"
        raise ValueError(f"delta must be > 0 for this mechanism (it is (epsilon, delta)-DP only), got {shown}")
    return eps, dl


def _finite(value) -> bool:
    """Whether a real is finite (an int too large for a double is finite; math.isfinite would overflow)."""
    if isinstance(value, numbers.Rational):
        return True
    return math.isfinite(value)


def float_down(value) -> float:
    """The largest double <= the real ``value``: a rational (Fraction, int) is rounded DOWN, a double (or a numpy
    float, exact in a double) is itself.  What a granted total is calibrated with (a total rounded to nearest
    could be delivered 1 ulp above the grant).

    Parameters
    ----------
    value : real
        A finite real >= 0 (validated by the caller).

    Returns
    -------
    float
        The largest double <= ``value`` (the largest finite double for a rational beyond the float range).

    Examples
    --------
    >>> from fractions import Fraction
    >>> float_down(Fraction(1, 10)) < 0.1 == float_down(0.1)
    True
    """
    if isinstance(value, numbers.Rational) and not isinstance(value, bool):
        q = Fraction(int(value.numerator), int(value.denominator))
        try:
            f = float(q)
        except OverflowError:
            return sys.float_info.max
        if f == math.inf:
            return sys.float_info.max
        return f if Fraction(f) <= q else math.nextafter(f, -math.inf)
    return float(value)


@dataclass(frozen=True)
class PrivacySpent:
    """What a private fit actually spent, as ``privacy_spent_`` on the fitted object.

    Attributes
    ----------
    epsilon, delta : float
        The (epsilon, delta)-DP guarantee of everything the fit released, under ``neighbouring``.
    rho : float or None
        The zCDP parameter where the accounting is zCDP (Bun-Steinke), else None.
    neighbouring : str
        The neighbouring relation the guarantee is stated for: "replace-one" or "add/remove-one", with what a
        record is (e.g. "replace-one (one example (x, y) of the training set)").
    accounting : str
        How the total was obtained (e.g. "T = 100 rounds of rho = 0.001 (zCDP composition), tight conversion").
    exact : None or (Fraction, Fraction)
        The delivered (epsilon, delta) as exact fractions where the estimator knows them (e.g. Laplace releases:
        sums of D/t); ``epsilon`` and ``delta`` are then these values rounded UP to floats.  This is what a fit
        charges an ``accountant``.
    noise_alone : PrivacySpent or None
        On a report with NO guarantee (epsilon = inf, delta = 1: :func:`no_guarantee`, e.g. a fit with
        ``insecure_noise_seed`` or a bound read from the data): what the same noise would have given without that
        defect (for tests and diagnostics; it is not a guarantee).  None otherwise.
    """

    epsilon: float
    delta: float
    rho: float | None
    neighbouring: str
    accounting: str
    exact: tuple | None = None
    noise_alone: "PrivacySpent | None" = None

    @classmethod
    def delivered(cls, epsilon, delta, *, rho=None, neighbouring, accounting):
        """From the exact delivered (epsilon, delta) (Fractions, or floats taken exactly): floats rounded up."""
        e, d = Fraction(epsilon), Fraction(delta)
        return cls(epsilon=float_up(e), delta=float_up(d), rho=rho, neighbouring=neighbouring,
                   accounting=accounting, exact=(e, d))

    def charge(self, accountant):
        """Charge ``accountant`` what was delivered: the exact fractions when known, else the floats."""
        e, d = self.exact if self.exact is not None else (self.epsilon, self.delta)
        return accountant.charge(e, d, rho=self.rho)

    def __post_init__(self):
        if not self.neighbouring.startswith(NEIGHBOURING):
            raise ValueError(f"neighbouring must start with one of {NEIGHBOURING}, got {self.neighbouring!r}")

    def __str__(self) -> str:
        rho = "" if self.rho is None else f", rho={self.rho:.6g}"
        return (f"({self.epsilon:.6g}, {self.delta:.3g})-DP{rho} under {self.neighbouring}; {self.accounting}")



def no_guarantee(spent: PrivacySpent, reason: str, fix: str) -> PrivacySpent:
    """The truthful report of a fit that is NOT differentially private: epsilon = inf, delta = 1 (no guarantee),
    rho None, with the reason and what the same noise would have given after ``fix``.

    Parameters
    ----------
    spent : PrivacySpent
        What the noise alone delivers (kept in the text, not as a guarantee).
    reason : str
        Why no guarantee holds (e.g. "data_norm was read from the data").
    fix : str
        What would restore it (e.g. "a public data_norm").

    Returns
    -------
    PrivacySpent
        epsilon inf, delta 1, the same neighbouring relation; ``exact`` None (nothing to charge); ``noise_alone``
        is ``spent``.  A ``spent`` that already has no guarantee keeps its text, with this reason added.
    """
    if spent.epsilon == math.inf:
        return PrivacySpent(epsilon=math.inf, delta=1.0, rho=None, neighbouring=spent.neighbouring,
                            accounting=f"{spent.accounting}; also {reason}", noise_alone=spent.noise_alone)
    return PrivacySpent(
        epsilon=math.inf, delta=1.0, rho=None, neighbouring=spent.neighbouring,
        accounting=(f"NOT differentially private: {reason}, so no (epsilon, delta) holds; with {fix} the same noise "
                    f"would give ({spent.epsilon:.6g}, {spent.delta:.3g})-DP: {spent.accounting}"),
        noise_alone=spent)


#: why a seeded fit has no guarantee, and the fix (the text of :func:`reported_spent`)
SEEDED_REASON = ("insecure_noise_seed is set (the noise is reproducible from the seed: whoever knows it can subtract "
                 "the noise)")
SEEDED_FIX = "insecure_noise_seed=None (noise from OS entropy)"


def refuse_seeded_charge(insecure_noise_seed, accountant) -> None:
    """Refuse a fit given both ``insecure_noise_seed`` and ``accountant`` (ValueError), before the data is read or
    anything is drawn: a seeded fit is not private, so charging a ledger for it would record a spend as if private
    and the ledger's remaining budget would be a false promise.  Both are parameters (public): the refusal does not
    depend on the data.

    Parameters
    ----------
    insecure_noise_seed : None or int
        The estimator's test-only seed.
    accountant : None or a ledger
        The fit's ``accountant``.

    Raises
    ------
    ValueError
        Both are set.
    """
    if insecure_noise_seed is not None and accountant is not None:
        raise ValueError(
            f"insecure_noise_seed={insecure_noise_seed!r} and accountant= cannot be combined: with a seed the noise "
            f"is reproducible, the fit is NOT differentially private and no budget can pay for it (privacy_spent_ "
            f"reports epsilon = inf, delta = 1); use insecure_noise_seed=None to charge a ledger, or no accountant "
            f"in a test")


def reported_spent(spent, insecure_noise_seed):
    """What a fit reports as ``privacy_spent_``: ``spent``, or :func:`no_guarantee` when the test-only
    ``insecure_noise_seed`` is set (every private estimator calls this, so none reports a guarantee a seeded noise
    does not give).

    Parameters
    ----------
    spent : PrivacySpent or None
        What the fit's noise delivers (None: nothing private was released).
    insecure_noise_seed : None or int
        The estimator's test-only seed.

    Returns
    -------
    PrivacySpent or None
    """
    if spent is None or insecure_noise_seed is None:
        return spent
    return no_guarantee(spent, SEEDED_REASON, SEEDED_FIX)


def charge_fit(spent, accountant, insecure_noise_seed, *, label: str):
    """Charge a private fit's delivered spend once, before any noise: ``accountant`` when given (``spent.charge``),
    else the process-wide default ledger (``fast.accounting.default_ledger``), labelled ``label`` -- unless the fit
    is seeded (``insecure_noise_seed``: not private, not recorded) or runs inside another private release.  The fit
    must be decorated with ``budget_ledger.private_release`` so its internal mechanism calls are not recorded too.

    Parameters
    ----------
    spent : PrivacySpent
        What the fit's noise delivers.
    accountant : None or a ledger
        The fit's explicit ``accountant``.
    insecure_noise_seed : None or int
        The estimator's test-only seed.
    label : str
        The estimator's name, for the default ledger's entry.

    Raises
    ------
    BudgetExceeded
        The explicit ledger (or the default ledger's cap) cannot pay; nothing is drawn.
    """
    from fast._contracts.budget_ledger import charge_release, outer_label

    if accountant is not None:
        return spent.charge(accountant)
    if insecure_noise_seed is not None:
        return None
    e, d = spent.exact if spent.exact is not None else (spent.epsilon, spent.delta)
    return charge_release(None, e, d, spent.rho, label=outer_label(label))

def _real_or_nan(value) -> float:
    """One element of an object array or Python sequence: a real number (bool, int of any size, float, Fraction,
    numpy real) as its float, +-inf beyond the float range; anything else (None, str, a list, a dict) NaN."""
    if isinstance(value, numbers.Real):
        try:
            return float(value)
        except OverflowError:  # an int or Fraction beyond the float range
            return math.inf if value > 0 else -math.inf
    return math.nan


_REAL_OR_NAN = np.frompyfunc(_real_or_nan, 1, 1)


def to_domain(value, name: str, *, low, high, ndim: int = 1) -> np.ndarray:
    """The values of a private numeric input mapped into the PUBLIC declared domain [low, high], entry by entry
    (issue 25: a value inside the domain never changes the outcome; a value outside never refuses the data).

    * Schema check (the type, dtype and shape only, never one value): ``value`` must be an array-like whose numpy
      dtype is numeric or bool (a numpy / pandas string, bytes, datetime or complex dtype is refused with a
      TypeError), of ``ndim`` dimensions and not empty (ValueError).  A Python sequence and an object array have
      no dtype that is independent of their values (one None makes a numpy array of floats an object array), so
      they are read element by element instead of being refused.
    * Per value, the same rule for every record: a real number (bool, int of any size, float, Fraction, numpy
      real) is its float, clamped to [low, high] (+-inf and ints beyond the float range to the nearer end);
      NaN and anything that is not a real number (None, pandas NA, str, list, dict) is read as the centre
      low/2 + high/2 of the domain.  -0.0 and subnormals are ordinary values.

    Parameters
    ----------
    value : array-like
        The private values (never modified).
    name : str
        The argument's name, for messages.
    low, high : float or array-like
        The declared domain (finite, low <= high; arrays broadcast against the last axis, e.g. per feature).
    ndim : int, default=1
        The dimensions the input must have.

    Returns
    -------
    numpy.ndarray of float64
        A new array, every entry in [low, high].

    Raises
    ------
    TypeError
        ``value`` is None, a str / bytes, or has a non-numeric dtype (schema check).
    ValueError
        ``value`` does not have ``ndim`` dimensions, is empty or is ragged (schema check).

    Examples
    --------
    >>> import numpy as np
    >>> to_domain([0.5, np.inf, np.nan, None, 10**400, -7.0], "x", low=-1.0, high=1.0).tolist()
    [0.5, 1.0, 0.0, 0.0, 1.0, -1.0]
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a numeric array, got {type(value).__name__} (schema check on the type, not "
                        "on the values)")
    if isinstance(value, np.ndarray) or hasattr(value, "dtype") or hasattr(value, "dtypes"):
        arr = np.asarray(value)
    else:  # a Python sequence: numpy would infer its dtype from the values, so read it as objects, one by one
        try:
            arr = np.asarray(value, dtype=object)
        except ValueError:
            raise ValueError(f"{name} must be a rectangular {ndim}-d array (schema check on the shape)") from None
    if arr.dtype == object:
        arr = _REAL_OR_NAN(arr).astype(np.float64) if arr.size else arr.astype(np.float64)
    elif arr.dtype.kind in "biuf":
        arr = arr.astype(np.float64)  # a copy: the input is never modified
    else:
        raise TypeError(f"{name} must be a numeric array, got dtype {arr.dtype} (schema check on the dtype, not on "
                        "the values)")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape} (schema check on the shape)")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    centre = lo / 2.0 + hi / 2.0  # no overflow at +-1.8e308
    return np.where(np.isnan(arr), centre, np.clip(arr, lo, hi))
