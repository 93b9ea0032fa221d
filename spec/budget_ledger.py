"""The budget ledgers shared by ``reference.accounting`` and ``fast.accounting`` (one definition: the ledger is
bookkeeping in exact fractions, the same in both packages; each package binds its own zCDP conversions).

* :class:`BudgetAccountant`: (epsilon, delta) under basic composition (Dwork-Roth Thm 3.16), totals as exact
  fractions.  The mechanisms charge what they DELIVER (``charge``): the Laplace mechanism its exact D/t (an integer
  ratio, so ten releases asked at epsilon = 0.1 cost exactly 1), the Gaussian the (epsilon, delta) its grid was
  calibrated for.  A charge that would exceed the budget raises :class:`BudgetExceeded` and records nothing.
* :class:`ZCDPAccountant`: rho-zCDP charges add (bun2020 Lemma 14); the budget is an (epsilon, delta) target,
  whose rho is the largest with the tight conversion (CKS20 Prop. 12) within epsilon; a pure epsilon-DP charge
  costs epsilon^2 / 2 (Bun-Steinke 2016 Prop. 1.4).

Both have the same surface (``check``, ``spend``, ``charge``, ``remaining``, ``split``, a decimal ``repr``): the
(epsilon, delta) ledger in :class:`Budget` objects, the zCDP ledger in :class:`RhoBudget` objects (an exact Fraction
that prints in decimals).  Each accepts the parts its ``split`` returns; the exact fractions stay available.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

from spec.validation import check_int, scalar_of

__all__ = ["Budget", "RhoBudget", "BudgetExceeded", "BudgetAccountant", "ZCDPAccountant", "split", "as_fraction",
           "calibration_float"]


def calibration_float(value):
    """The double a mechanism calibrates with: a Fraction (e.g. a part of ``split``) is rounded DOWN, so the
    guarantee delivered is within the Fraction and k parts of a split never overspend; anything else unchanged
    (validated by the mechanism)."""
    if isinstance(value, Fraction):
        f = float(value)
        return f if Fraction(f) <= value else math.nextafter(f, -math.inf)
    return value


def _decimal(q: Fraction) -> str:
    """A readable decimal (12 significant digits) of an exact fraction; exact integers print as such."""
    if q.denominator == 1:
        return str(q.numerator)
    return f"{float(q):.12g}"


@dataclass(frozen=True)
class Budget:
    """An (epsilon, delta) budget held exactly (fractions).  ``repr`` prints decimals; ``epsilon`` and ``delta``
    are the exact :class:`fractions.Fraction` values.

    Parameters
    ----------
    epsilon : fractions.Fraction
        The epsilon (>= 0).
    delta : fractions.Fraction
        The delta in [0, 1].

    Examples
    --------
    >>> from fractions import Fraction
    >>> from fast.accounting import Budget
    >>> Budget(Fraction(1, 2), Fraction(0))
    Budget(epsilon=0.5, delta=0)
    """

    epsilon: Fraction
    delta: Fraction

    def __repr__(self) -> str:
        return f"Budget(epsilon={_decimal(self.epsilon)}, delta={_decimal(self.delta)})"

    __str__ = __repr__

    def as_floats(self) -> tuple[float, float]:
        """(epsilon, delta) as floats (rounded to nearest: use the fractions for exact bookkeeping).

        Returns
        -------
        tuple of float
            (epsilon, delta) as floats.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from fast.accounting import Budget
        >>> Budget(Fraction(1, 4), Fraction(0)).as_floats()
        (0.25, 0.0)
        """
        return float(self.epsilon), float(self.delta)


class RhoBudget(Fraction):
    """A rho (zCDP) budget or charge held exactly: a :class:`fractions.Fraction` that prints in decimals.

    What :class:`ZCDPAccountant` returns (``remaining()``, ``remaining_rho()``, ``split``, ``spend``) and accepts
    (``spend(part)``), as :class:`Budget` is for :class:`BudgetAccountant`: ``repr`` prints a 12-digit decimal, the
    value itself is exact (it IS a Fraction: arithmetic, comparisons and ``float()`` work as on the Fraction) and
    ``rho`` is the exact value as a plain Fraction.

    Parameters
    ----------
    rho : float, int or Fraction
        The rho (finite, >= 0), taken exactly (a float as the exact value of the double).
    denominator : int, optional
        With an integer ``rho``: the Fraction rho / denominator.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from fast.accounting import RhoBudget
    >>> RhoBudget(Fraction(1, 3))
    RhoBudget(rho=0.333333333333)
    >>> RhoBudget(Fraction(1, 3)).rho
    Fraction(1, 3)
    """

    def __new__(cls, rho, denominator=None):
        q = as_fraction(rho if denominator is None else Fraction(rho, denominator), "rho")
        return super().__new__(cls, q.numerator, q.denominator)

    @property
    def rho(self) -> Fraction:
        """The exact value, as a plain :class:`fractions.Fraction`."""
        return Fraction(self.numerator, self.denominator)

    def as_float(self) -> float:
        """rho as a float (rounded to nearest: use the fraction for exact bookkeeping).

        Returns
        -------
        float
            rho as a float.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from fast.accounting import RhoBudget
        >>> RhoBudget(Fraction(1, 4)).as_float()
        0.25
        """
        return float(self)

    def __repr__(self) -> str:
        return f"RhoBudget(rho={_decimal(self)})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (self.numerator, self.denominator))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class BudgetExceeded(ValueError):
    """A spend would exceed the budget; nothing was spent (the caller must not draw noise).

    A subclass of ValueError, raised by :meth:`BudgetAccountant.spend` / ``charge`` and the zCDP ledger.

    Examples
    --------
    >>> from fast.accounting import BudgetAccountant, BudgetExceeded
    >>> acc = BudgetAccountant(1.0)
    >>> try:
    ...     acc.spend(2.0)
    ... except BudgetExceeded as exc:
    ...     print(exc)
    epsilon budget exceeded: spent 0 + 2 > 1
    """


def as_fraction(value, name: str, *, upper=None, upper_name="") -> Fraction:
    """A finite real >= 0 (float, int, Fraction or a 0-d numeric array) as the exact Fraction of its value;
    ``upper`` bounds it."""
    value = scalar_of(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if isinstance(value, Fraction):
        q = value
    else:
        v = float(value)
        if not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number >= 0, got {v}")
        q = Fraction(v)
    if q < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {float(q)}")
    if upper is not None and q > upper:
        raise ValueError(f"{name} must be a number in [0, {upper}]{upper_name}, got {float(q)}")
    return q


def _budget(epsilon, delta=0.0) -> Budget:
    if isinstance(epsilon, Budget):
        if not (isinstance(delta, numbers.Real) and delta == 0):
            raise TypeError("pass either a Budget or (epsilon, delta), not a Budget and a delta")
        return epsilon
    return Budget(as_fraction(epsilon, "epsilon"), as_fraction(delta, "delta", upper=1))


def split(budget, k) -> tuple[Budget, ...]:
    """k equal parts (eps/k, delta/k) that sum EXACTLY to the budget (basic composition)   [Dwork-Roth Thm 3.16]

    A :class:`RhoBudget` (a zCDP budget) splits into k equal RhoBudget parts rho/k (zCDP composes by addition,
    bun2020 Lemma 14).

    Parameters
    ----------
    budget : Budget, RhoBudget or tuple of (float, float)
        The budget to split.
    k : int
        Number of parts (>= 1).

    Returns
    -------
    tuple of Budget or tuple of RhoBudget
        ``k`` equal parts (RhoBudget parts for a RhoBudget).

    Raises
    ------
    TypeError
        If ``budget`` is neither a Budget, a RhoBudget nor an (epsilon, delta) pair.

    Examples
    --------
    >>> from fast.accounting import split
    >>> parts = split((1.0, 1e-5), 4)
    >>> len(parts), float(parts[0].epsilon), sum(p.epsilon for p in parts) == 1
    (4, 0.25, True)
    """
    if isinstance(budget, RhoBudget):
        k = check_int(k, "k", minimum=1)
        part = RhoBudget(budget.rho / k)
        return (part,) * k
    if not isinstance(budget, Budget):
        if not isinstance(budget, (tuple, list)) or len(budget) != 2:
            raise TypeError(f"budget must be a Budget or an (epsilon, delta) pair, got {type(budget).__name__}")
        budget = _budget(*budget)
    k = check_int(k, "k", minimum=1)
    part = Budget(budget.epsilon / k, budget.delta / k)
    return (part,) * k


class BudgetAccountant:
    """Ledger of (epsilon, delta) spends under basic composition, with exact fractional totals.

    ``spend`` refuses (BudgetExceeded, nothing recorded) a charge that would take the total above the budget:
    the mechanisms call ``charge`` BEFORE drawing noise when given ``accountant=``.

    Parameters
    ----------
    epsilon : float, Fraction or Budget
        The total epsilon (> 0), or a Budget (then ``delta`` must be left at 0).
    delta : float or Fraction
        The total delta in [0, 1].

    Raises
    ------
    ValueError
        A zero epsilon, or an epsilon / delta out of range.
    TypeError
        An epsilon or delta that is not a number (or a Budget with a delta beside it).

    Examples
    --------
    >>> acc = BudgetAccountant(1.0)
    >>> for _ in range(10):
    ...     _ = acc.spend(Fraction(1, 10))
    >>> acc.remaining()
    Budget(epsilon=0, delta=0)
    """

    def __init__(self, epsilon, delta=0.0):
        self.budget = _budget(epsilon, delta)
        if self.budget.epsilon == 0:
            raise ValueError("epsilon must be a finite number > 0, got 0.0")
        self.spent_epsilon = Fraction(0)
        self.spent_delta = Fraction(0)
        self.ledger: list[Budget] = []

    def check(self, epsilon, delta=0.0) -> Budget:
        """The spend as a Budget, or BudgetExceeded if it does not fit (nothing is recorded).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].

        Returns
        -------
        Budget
            The spend, exactly.

        Raises
        ------
        BudgetExceeded
            If the spend does not fit (nothing is recorded either way).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.check(0.5)
        Budget(epsilon=0.5, delta=0)
        """
        charge = _budget(epsilon, delta)
        if self.spent_epsilon + charge.epsilon > self.budget.epsilon:
            raise BudgetExceeded(
                f"epsilon budget exceeded: spent {_decimal(self.spent_epsilon)} + {_decimal(charge.epsilon)} "
                f"> {_decimal(self.budget.epsilon)}")
        if self.spent_delta + charge.delta > self.budget.delta:
            raise BudgetExceeded(
                f"delta budget exceeded: spent {_decimal(self.spent_delta)} + {_decimal(charge.delta)} "
                f"> {_decimal(self.budget.delta)}")
        return charge

    def spend(self, epsilon, delta=0.0) -> Budget:
        """Record a spend (a Budget, or epsilon and delta as floats or Fractions, taken exactly).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].

        Returns
        -------
        Budget
            The recorded spend.

        Raises
        ------
        BudgetExceeded
            If the spend does not fit (nothing is recorded).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.spend(0.5, 1e-6)
        Budget(epsilon=0.5, delta=1e-06)
        >>> acc.remaining()
        Budget(epsilon=0.5, delta=9e-06)
        """
        charge = self.check(epsilon, delta)
        self.spent_epsilon += charge.epsilon
        self.spent_delta += charge.delta
        self.ledger.append(charge)
        return charge

    def charge(self, epsilon, delta=0, rho=None) -> Budget:
        """What a mechanism calls: its DELIVERED (epsilon, delta) (``rho`` is for zCDP ledgers; ignored here).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].
        rho : float, optional
            Ignored by this ledger (zCDP ledgers use it).

        Returns
        -------
        Budget
            The recorded spend.

        Raises
        ------
        BudgetExceeded
            If the charge does not fit (nothing is recorded).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.charge(0.25)
        Budget(epsilon=0.25, delta=0)
        """
        return self.spend(epsilon, delta)

    def remaining(self) -> Budget:
        """What remains of the budget.

        Returns
        -------
        Budget
            The budget minus everything spent.

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> _ = acc.spend(0.75)
        >>> acc.remaining()
        Budget(epsilon=0.25, delta=1e-05)
        """
        return Budget(self.budget.epsilon - self.spent_epsilon, self.budget.delta - self.spent_delta)

    def split(self, k) -> tuple[Budget, ...]:
        """k equal parts of what remains.

        Parameters
        ----------
        k : int
            Number of parts (>= 1).

        Returns
        -------
        tuple of Budget
            ``k`` equal parts of the remaining budget (nothing is spent).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.split(2)
        (Budget(epsilon=0.5, delta=5e-06), Budget(epsilon=0.5, delta=5e-06))
        """
        return split(self.remaining(), k)

    def __repr__(self) -> str:
        r = self.remaining()
        return (f"BudgetAccountant(budget=({_decimal(self.budget.epsilon)}, {_decimal(self.budget.delta)}), "
                f"spent=({_decimal(self.spent_epsilon)}, {_decimal(self.spent_delta)}), "
                f"remaining=({_decimal(r.epsilon)}, {_decimal(r.delta)}), charges={len(self.ledger)})")


class ZCDPAccountant:
    """Ledger of rho-zCDP charges (they add, bun2020 Lemma 14) against an (epsilon, delta) target.

    Parameters
    ----------
    epsilon, delta : float
        The target guarantee (delta in (0, 1)): the ledger's rho budget is the largest rho whose tight conversion
        (CKS20 Prop. 12) is within epsilon at delta.

    A Gaussian release charges its grid's rho; a pure epsilon-DP release (Laplace) charges epsilon^2 / 2; an
    (epsilon, delta) release without a rho cannot be charged (TypeError).  ``guarantee()`` is the (epsilon, delta)
    of what was spent, by the tight conversion.  Subclasses bind ``_to_rho`` and ``_to_epsilon`` (each package its
    own conversions).

    The surface of :class:`BudgetAccountant`, in rho: ``check(rho)`` / ``spend(rho)`` (exact: a float is its exact
    double, a Fraction or a :class:`RhoBudget` part of ``split`` is taken as it is; BudgetExceeded records
    nothing), ``charge`` (what mechanisms call), ``remaining()`` (= ``remaining_rho()``), ``split(k)``, and a repr
    in decimals.  Values are :class:`RhoBudget` (exact Fractions that print as decimals); ``rho_budget`` and
    ``spent_rho`` are the exact fractions.  ``check_rho`` / ``spend_rho`` are the same as ``check`` / ``spend``.

    Raises
    ------
    ValueError
        epsilon <= 0 or delta outside (0, 1).
    TypeError
        An epsilon or delta that is not a number.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from fast.accounting import ZCDPAccountant
    >>> acc = ZCDPAccountant(1.0, 1e-5)
    >>> acc.remaining()
    RhoBudget(rho=0.0305565951976)
    >>> for part in acc.split(4):
    ...     _ = acc.spend(part)
    >>> acc.remaining() == 0
    True
    """

    @staticmethod
    def _to_rho(epsilon, delta):  # pragma: no cover - bound by the packages
        raise NotImplementedError

    @staticmethod
    def _to_epsilon(rho, delta):  # pragma: no cover - bound by the packages
        raise NotImplementedError

    def __init__(self, epsilon, delta):
        self.epsilon = float(as_fraction(epsilon, "epsilon"))
        self.delta = float(as_fraction(delta, "delta", upper=1))
        if not (self.epsilon > 0 and 0 < self.delta < 1):
            raise ValueError(f"a zCDP ledger needs epsilon > 0 and delta in (0, 1), got ({epsilon}, {delta})")
        self.rho_budget = RhoBudget(self._to_rho(self.epsilon, self.delta))
        self.spent_rho = Fraction(0)
        self.ledger: list[RhoBudget] = []

    def check_rho(self, rho) -> RhoBudget:
        """Whether a charge of ``rho`` fits: the charge, exactly, or BudgetExceeded (nothing is recorded).

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0).

        Returns
        -------
        RhoBudget
            ``rho``, exactly.

        Raises
        ------
        TypeError
            A ``rho`` that is not a number (a Budget, an (epsilon, delta) pair, a bool).
        ValueError
            A negative or non-finite ``rho``.
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> float(acc.check_rho(0.01))
        0.01
        """
        if isinstance(rho, Budget):
            raise TypeError("rho must be a real number or a RhoBudget, got a Budget (an (epsilon, delta) release: "
                            "charge(epsilon, delta, rho=...) with its rho, or charge(epsilon) for a pure-DP one)")
        r = RhoBudget(rho)
        if self.spent_rho + r > self.rho_budget:
            raise BudgetExceeded(f"rho budget exceeded: spent {_decimal(self.spent_rho)} + {_decimal(r)} > "
                                 f"{_decimal(self.rho_budget)} (the rho of ({self.epsilon}, {self.delta:.3g}))")
        return r

    def spend_rho(self, rho) -> RhoBudget:
        """Record a charge of ``rho`` (BudgetExceeded, nothing recorded, if it does not fit).

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0).

        Returns
        -------
        RhoBudget
            The recorded charge.

        Raises
        ------
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> float(acc.spend_rho(0.01)), len(acc.ledger)
        (0.01, 1)
        """
        r = self.check_rho(rho)
        self.spent_rho += r.rho
        self.ledger.append(r)
        return r

    def check(self, rho) -> RhoBudget:
        """Whether a charge of ``rho`` fits (as :meth:`BudgetAccountant.check`; the same as :meth:`check_rho`).

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0), taken exactly.

        Returns
        -------
        RhoBudget
            The charge, exactly (nothing is recorded).

        Raises
        ------
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.check(0.01)
        RhoBudget(rho=0.01)
        """
        return self.check_rho(rho)

    def spend(self, rho) -> RhoBudget:
        """Record a charge of ``rho`` exactly (as :meth:`BudgetAccountant.spend`; the same as :meth:`spend_rho`).

        A float is taken as the exact value of its double, a Fraction or a :class:`RhoBudget` (a part of
        :meth:`split`) as it is, so spending the k parts of a split spends exactly what was split.

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0).

        Returns
        -------
        RhoBudget
            The recorded charge.

        Raises
        ------
        BudgetExceeded
            If the charge does not fit (nothing is recorded).

        Examples
        --------
        >>> from fractions import Fraction
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.spend(Fraction(1, 100))
        RhoBudget(rho=0.01)
        >>> acc.spent_rho
        Fraction(1, 100)
        """
        return self.spend_rho(rho)

    def charge(self, epsilon, delta=0, rho=None) -> Fraction:
        """What a mechanism calls: rho if given, else epsilon^2 / 2 for a pure-DP release (delta must be 0; a
        Budget's own delta counts).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].
        rho : float, optional
            The release's rho (a Gaussian release: its grid's rho).

        Returns
        -------
        RhoBudget
            The recorded rho.

        Raises
        ------
        TypeError
            For an (epsilon, delta) release with delta > 0 and no rho.
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> round(float(acc.charge(0.1)), 12)  # a pure 0.1-DP release: rho = 0.1^2 / 2
        0.005
        """
        if isinstance(epsilon, Budget):
            budget = _budget(epsilon, delta)  # refuses a Budget AND a delta
            epsilon, delta = budget.epsilon, budget.delta
        if rho is None:
            if as_fraction(delta, "delta") != 0:
                raise TypeError("an (epsilon, delta)-DP release with delta > 0 and no rho cannot be charged to a "
                                "zCDP ledger")
            e = as_fraction(epsilon, "epsilon")
            rho = e * e / 2
        return self.spend_rho(rho)

    def remaining(self) -> RhoBudget:
        """What remains of the rho budget (as :meth:`BudgetAccountant.remaining`).

        Returns
        -------
        RhoBudget
            The rho budget minus everything spent: exact (a Fraction), printed as a decimal.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> _ = acc.spend(0.01)
        >>> acc.remaining()
        RhoBudget(rho=0.0205565951976)
        >>> acc.remaining() == acc.rho_budget - acc.spent_rho
        True
        """
        return RhoBudget(self.rho_budget - self.spent_rho)

    def remaining_rho(self) -> RhoBudget:
        """The rho still available: the rho budget minus the charges (the same as :meth:`remaining`).

        Returns
        -------
        RhoBudget
            The remaining rho, exactly (a Fraction), printed as a decimal.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.remaining_rho() == acc.rho_budget
        True
        >>> acc.remaining_rho()
        RhoBudget(rho=0.0305565951976)
        """
        return self.remaining()

    def split(self, k) -> tuple[RhoBudget, ...]:
        """k equal parts of what remains (as :meth:`BudgetAccountant.split`): they sum EXACTLY to it.

        Parameters
        ----------
        k : int
            Number of parts (>= 1).

        Returns
        -------
        tuple of RhoBudget
            ``k`` equal parts of the remaining rho (nothing is spent).

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> parts = acc.split(3)
        >>> sum(parts) == acc.remaining()
        True
        """
        return split(self.remaining(), k)

    def guarantee(self) -> tuple[float, float]:
        """(epsilon, delta) of everything spent so far (tight conversion; (0, 0) before any charge).

        Returns
        -------
        tuple of float
            The (epsilon, delta) of the charges so far.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.guarantee()
        (0.0, 0.0)
        >>> _ = acc.spend_rho(0.01)
        >>> round(acc.guarantee()[0], 4)
        0.5457
        """
        if self.spent_rho == 0:
            return 0.0, 0.0
        return self._to_epsilon(float(self.spent_rho) * (1 + 2**-50), self.delta), self.delta

    def __repr__(self) -> str:
        return (f"ZCDPAccountant(target=({self.epsilon:.12g}, {self.delta:.3g}), rho_budget="
                f"{_decimal(self.rho_budget)}, spent_rho={_decimal(self.spent_rho)}, "
                f"remaining_rho={_decimal(self.rho_budget - self.spent_rho)}, charges={len(self.ledger)})")
